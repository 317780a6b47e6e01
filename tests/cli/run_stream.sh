#!/bin/sh
# SPDX-License-Identifier: MIT
# run_stream.sh OUTDIR PACK FRAMES SLUICE...: `sluice run` reads its trace as a
# stream and keeps no per-frame state:
#   - a line of 3 MB fails at its 1025th byte: "FILE:2: line longer than 1024
#     bytes", exit 1;
#   - the same through a FIFO whose writer keeps it open after 4 KiB of that
#     line: run must fail without waiting for the rest (a reader that read
#     the line to its end would block here until the test's timeout);
#   - an empty trace declaring FRAMES frames runs to "verdict: ok" with a peak
#     RSS within 16 MiB of the same trace declaring 1000 frames (measured by
#     python3's resource module; a per-frame record of 416 bytes would add
#     400 MB at 10^6 frames).
set -u
out=$1
pack=$2
frames=$3
shift 3
mkdir -p "$out" || exit 1
fail() { echo "run_stream: $*" >&2; exit 1; }

# 1. A long line in a file.
long="$out/long.trace"
{ printf 'sluice-trace 1\n'; head -c 3000000 /dev/zero | tr '\0' 'a'; printf '\n0 obj 0 0 1\n'; } > "$long"
msg=$("$@" run "$pack" --backend host --trace "$long" 2>&1)
rc=$?
printf '%s\n' "$msg"
[ "$rc" -eq 1 ] || fail "long line: exit code $rc, expected 1"
printf '%s\n' "$msg" | grep -q "long.trace:2: line longer than 1024 bytes" || fail "long line: no 'long.trace:2: line longer than 1024 bytes'"

# 2. The same line through a FIFO held open by its writer.
fifo="$out/long.fifo"
hold="$out/hold.fifo"
rm -f "$fifo" "$hold"
mkfifo "$fifo" "$hold" || fail "mkfifo"
( { printf 'sluice-trace 1\n'; head -c 4096 /dev/zero | tr '\0' 'b'; cat "$hold"; } > "$fifo" ) &
writer=$!
msg=$("$@" run "$pack" --backend host --trace "$fifo" 2>&1)
rc=$?
printf 'x\n' > "$hold" # let the writer finish
wait "$writer"
rm -f "$fifo" "$hold"
printf '%s\n' "$msg"
[ "$rc" -eq 1 ] || fail "fifo: exit code $rc, expected 1"
printf '%s\n' "$msg" | grep -q "long.fifo:2: line longer than 1024 bytes" || fail "fifo: no 'long.fifo:2: line longer than 1024 bytes'"

# 3. Memory does not grow with the frame count.
peak() { # peak RSS in KiB of the command, which must end 'verdict: ok'
    python3 - "$@" <<'PY'
import resource, subprocess, sys
p = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
text = p.stdout.decode(errors="replace")
if p.returncode != 0 or "\nverdict: ok" not in text:
    sys.stderr.write(text + "\nexit code %d\n" % p.returncode)
    sys.exit(1)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
PY
}
printf 'sluice-trace 1\nframes 1000\n' > "$out/empty-small.trace"
printf 'sluice-trace 1\nframes %s\n' "$frames" > "$out/empty-large.trace"
small=$(peak "$@" run "$pack" --backend host --trace "$out/empty-small.trace") || fail "1000 frames: the run failed"
large=$(peak "$@" run "$pack" --backend host --trace "$out/empty-large.trace") || fail "$frames frames: the run failed"
echo "run_stream: peak RSS $small KiB at 1000 frames, $large KiB at $frames frames"
[ "$large" -le $((small + 16384)) ] || fail "peak RSS grew by $((large - small)) KiB from 1000 to $frames frames"
echo "run_stream: ok"
