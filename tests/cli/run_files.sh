#!/bin/sh
# SPDX-License-Identifier: MIT
# run_files.sh OUTDIR PACK SLUICE...: the files `sluice run` writes.
#   - A run that fails leaves every existing output byte for byte and no
#     temporary behind: once when an output cannot be created (the run
#     stops before streaming: the eviction log and saved trace are not
#     touched), once when the trace turns out bad at frame 5 (after the
#     eviction log, Chrome trace and saved trace were being written), and
#     when a file cannot be completed (RLIMIT_FSIZE, as a full disk), and
#     when SIGTERM or SIGKILL stops a run that is streaming.
#   - An output naming an input (the pack, the profile, the trace) is
#     refused, exit 2, with a message naming both; the input is unchanged.
#     So are two outputs naming one file.
#   - File names with '"', '\', '<', '&' and a byte that is not UTF-8: the
#     --json report parses with python3's json module, the --svg with
#     xml.etree, `budget fit --json` with json too, and the names come back
#     (the invalid byte as U+FFFD).
set -u
out=$1
pack=$2
shift 2
rm -rf "$out"
mkdir -p "$out" || exit 1
fail() { echo "run_files: $*" >&2; exit 1; }
profile=$(dirname "$0")/../../budgets/default.profile
sluice=$1
[ "$#" -eq 1 ] || fail "SLUICE must be one word"

# 1. Old files survive a failed run.
for f in svg evict chrome trace; do
    printf 'old %s, must survive\n' "$f" > "$out/old.$f"
    cp "$out/old.$f" "$out/keep.$f"
done
same_as_before() {
    for f in svg evict chrome trace; do
        cmp -s "$out/old.$f" "$out/keep.$f" || fail "$1: $out/old.$f was changed"
    done
    left=$(ls -A "$out" | grep '^\.old\.' || true)
    [ -z "$left" ] || fail "$1: temporaries left behind: $left"
}
msg=$("$@" run "$pack" --backend host --frames 20 --evict-log "$out/old.evict" --save-trace "$out/old.trace" \
      --chrome-trace "$out/old.chrome" --svg "$out/no-such-dir/x.svg" 2>&1)
rc=$?
printf '%s\n' "$msg"
[ "$rc" -eq 3 ] || fail "unwritable --svg: exit code $rc, expected 3"
same_as_before "unwritable --svg"
bad="$out/bad-at-5.trace"
printf 'sluice-trace 1\n' > "$bad"
for k in 0 1 2 3 4; do printf '%s obj 0 0 200\n%s obj 1 0 100\n' "$k" "$k" >> "$bad"; done
printf '5 obj 999999 0 1\n6 obj 0 0 1\n' >> "$bad"
msg=$("$@" run "$pack" --backend host --trace "$bad" --evict-log "$out/old.evict" --save-trace "$out/old.trace" \
      --chrome-trace "$out/old.chrome" --svg "$out/old.svg" 2>&1)
rc=$?
printf '%s\n' "$msg"
[ "$rc" -eq 1 ] || fail "bad trace at frame 5: exit code $rc, expected 1"
printf '%s\n' "$msg" | grep -q "bad-at-5.trace:12: object 999999 is not in pack" || fail "bad trace: no message naming line 12"
same_as_before "bad trace at frame 5"

# ... and a run whose file cannot be completed: RLIMIT_FSIZE (SIGXFSZ
# ignored, so the write fails with EFBIG, as on a full disk) stops the
# Chrome trace (about 100 KiB) at 4 KiB, where the eviction log (about
# 2 KiB) is whole; the commit fails, exit 3, the target stays.
msg=$( (trap '' XFSZ; ulimit -f 8; exec "$sluice" run "$pack" --backend host --frames 240 --camera teleport \
        --evict-log "$out/old.evict" --chrome-trace "$out/old.chrome") 2>&1)
rc=$?
printf '%s\n' "$msg" | tail -3
[ "$rc" -eq 3 ] || fail "file size limit: exit code $rc, expected 3"
printf '%s\n' "$msg" | grep -q "old.chrome: cannot write" || fail "file size limit: no 'old.chrome: cannot write'"
same_as_before "file size limit"

# ... and a run stopped by SIGTERM (its temporaries removed) or SIGKILL (the
# temporaries may stay; the targets are untouched either way).
printf 'sluice-trace 1\nframes 100000000\n' > "$out/long.trace"
for sig in TERM KILL; do
    "$sluice" run "$pack" --backend host --trace "$out/long.trace" --evict-log "$out/old.evict" \
        --svg "$out/old.svg" > /dev/null 2>&1 &
    pid=$!
    until ls -A "$out" | grep -q '^\.old\.evict\.'; do sleep 0.1; done # the run's files are open
    kill -"$sig" "$pid"
    wait "$pid"
    rc=$?
    [ "$rc" -gt 128 ] || fail "SIG$sig: exit code $rc, expected death by the signal"
    if [ "$sig" = KILL ]; then
        rm -f "$out"/.old.* # what only SIGKILL may leave
    fi
    same_as_before "SIG$sig during the run"
done

# 2. An output is never an input.
cp "$pack" "$out/in.pack"
cp "$out/in.pack" "$out/in.pack.orig"
printf 'sluice-trace 1\n0 obj 0 0 1\n' > "$out/in.trace"
cp "$out/in.trace" "$out/in.trace.orig"
refuse() { # OPTION TARGET INPUT-NAME
    msg=$("$sluice" run "$out/in.pack" --backend host --trace "$out/in.trace" --profile "$profile" "$1" "$2" 2>&1)
    rc=$?
    printf '%s\n' "$msg"
    [ "$rc" -eq 2 ] || fail "$1 $2: exit code $rc, expected 2"
    printf '%s\n' "$msg" | grep -q -- "$1 '$2' is $3 '" || fail "$1 $2: the message does not name $3"
}
refuse --svg "$out/in.pack" "the pack"
refuse --evict-log "$out/in.trace" "the trace"
refuse --save-trace "$out/in.trace" "the trace"
refuse --chrome-trace "$profile" "the profile"
msg=$("$sluice" run "$out/in.pack" --backend host --frames 2 --svg "$out/same.out" --evict-log "$out/same.out" 2>&1)
rc=$?
printf '%s\n' "$msg"
[ "$rc" -eq 2 ] || fail "two outputs naming one file: exit code $rc, expected 2"
printf '%s\n' "$msg" | grep -q -- "--svg '$out/same.out' and --evict-log '$out/same.out' are the same file" ||
    fail "two outputs naming one file: the message does not name both"
[ ! -e "$out/same.out" ] || fail "two outputs naming one file: the file was written"
cmp -s "$out/in.pack" "$out/in.pack.orig" || fail "the pack was changed"
cmp -s "$out/in.trace" "$out/in.trace.orig" || fail "the trace was changed"

# 3. Names that need escaping.
odd=$(printf 'a"b\\c<d&e\377f')
mkdir -p "$out/$odd" || fail "mkdir"
cp "$pack" "$out/$odd/$odd.pack"
printf 'sluice-trace 1\nframes 8\n0 obj 0 0 200\n3 obj 1 0 100\n' > "$out/$odd/$odd.trace"
"$sluice" run "$out/$odd/$odd.pack" --backend host --trace "$out/$odd/$odd.trace" --json \
    --svg "$out/$odd/$odd.svg" > "$out/odd.json" || fail "the run with odd names failed"
python3 - "$out/odd.json" "$out/$odd/$odd.svg" "$odd" <<'PY' || fail "the JSON or the SVG is not valid, or a name did not come back"
import json, os, sys
import xml.etree.ElementTree as ET
report = json.load(open(sys.argv[1], encoding="utf-8"))
svg = ET.parse(sys.argv[2]).getroot()
name = os.fsencode(sys.argv[3]).decode("utf-8", errors="replace")  # the 0xff byte as U+FFFD
assert report["pack"] == name + ".pack", report["pack"]
assert report["workload"] == "trace " + name + ".trace", report["workload"]
title = "".join(svg.find("{http://www.w3.org/2000/svg}text").itertext())
assert ("sluice run: " + name + ".pack, profile ") in title, title
print("run_files: names round-trip: %r" % report["pack"])
PY
"$sluice" budget fit "$profile" "$out/$odd/$odd.pack" --trace "$out/$odd/$odd.trace" --json > "$out/odd-fit.json" ||
    fail "budget fit with odd names failed"
python3 - "$out/odd-fit.json" "$odd" <<'PY' || fail "budget fit's JSON is not valid, or a name did not come back"
import json, os, sys
report = json.load(open(sys.argv[1], encoding="utf-8"))
name = os.fsencode(sys.argv[2]).decode("utf-8", errors="replace")
assert report["pack"] == name + ".pack", report["pack"]
assert report["workload"] == "trace " + name + ".trace", report["workload"]
print("run_files: budget fit names round-trip: %r" % report["workload"])
PY
echo "run_files: ok"
