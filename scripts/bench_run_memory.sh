#!/bin/sh
# SPDX-License-Identifier: MIT
# bench_run_memory.sh [SLUICE] [FRAMES...]: peak RSS of `sluice run` with
# the built-in camera over a small synthetic city (2 MiB, the default
# profile, host backend) at 10^3 and 10^6 frames (or the FRAMES given),
# each the ratio to the first; memory must not grow with the frame count
# (under 10%). Then an empty trace declaring 10^7 frames. Takes ~20 s on
# a Release build (build/release/tools/sluice by default).
#
#   scripts/bench_run_memory.sh build/hC-rel/tools/sluice
set -eu
sluice=${1:-build/release/tools/sluice}
[ "$#" -gt 0 ] && shift
frames=${*:-1000 1000000}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$sluice" pack --synthetic city --size 2MiB --seed 7 -o "$dir/city.pack" > /dev/null
printf 'sluice-trace 1\nframes 10000000\n' > "$dir/empty.trace"
python3 - "$sluice" "$dir" $frames <<'PY'
import resource, subprocess, sys, time
sluice, d, counts = sys.argv[1], sys.argv[2], [int(x) for x in sys.argv[3:]]

def peak(args):
    # each run in its own child that reports its own peak RSS (KiB)
    code = ("import resource,subprocess,sys\n"
            "p=subprocess.run(sys.argv[1:],stdout=subprocess.PIPE,stderr=subprocess.STDOUT)\n"
            "sys.stdout.write('%d %d\\n'%(p.returncode,resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))\n"
            "sys.stdout.write(p.stdout.decode(errors='replace'))")
    t0 = time.time()
    out = subprocess.run([sys.executable, "-c", code] + args, stdout=subprocess.PIPE).stdout.decode()
    head, _, report = out.partition("\n")
    rc, rss = (int(x) for x in head.split())
    if rc != 0 or "\nverdict: ok" not in report:
        sys.exit("run failed (exit %d):\n%s" % (rc, report))
    return rss, time.time() - t0

base = None
for n in counts:
    rss, secs = peak([sluice, "run", d + "/city.pack", "--backend", "host", "--camera", "fly", "--frames", str(n)])
    base = base or rss
    print("camera fly, %9d frames: peak RSS %8d KiB  (%.3f x the first)  %.1f s" % (n, rss, rss / base, secs))
ratio = rss / base
rss, secs = peak([sluice, "run", d + "/city.pack", "--backend", "host", "--trace", d + "/empty.trace"])
print("empty trace, 10000000 frames: peak RSS %8d KiB  (%.3f x the first)  %.1f s" % (rss, rss / base, secs))
print("ratio %d frames / %d frames: %.4f (%s)" % (counts[-1], counts[0], ratio, "ok: under 10%" if abs(ratio - 1) < 0.10 else "FAILED: 10% or more"))
sys.exit(0 if abs(ratio - 1) < 0.10 else 1)
PY
