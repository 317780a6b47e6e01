#!/bin/sh
# SPDX-License-Identifier: MIT
# run_replay.sh OUTDIR PACK BACKEND SLUICE...: the camera's workload saved
# with --save-trace (host backend, the profile's workers), then replayed from
# the file on BACKEND with --workers 0 and with --workers 3: each run's
# eviction log hash must be the first's (the scheduler is a pure function of
# the requests; worker count, I/O timing and the backend change only when
# data becomes visible).
set -u
out=$1
pack=$2
backend=$3
shift 3
mkdir -p "$out" || exit 1
trace="$out/replay-$backend.trace"
first=$("$@" run "$pack" --backend host --camera fly --seed 11 --frames 150 --sse 0.5 --save-trace "$trace" 2>&1)
rc=$?
printf '%s\n' "$first"
[ "$rc" -eq 0 ] || { echo "run_replay: first run: exit code $rc" >&2; exit 1; }
want=$(printf '%s\n' "$first" | grep '^eviction log:')
[ -n "$want" ] || { echo "run_replay: no eviction log line" >&2; exit 1; }
head -1 "$trace" | grep -q '^sluice-trace 1$' || { echo "run_replay: $trace has no header" >&2; exit 1; }
for workers in 0 3; do
    again=$("$@" run "$pack" --backend "$backend" --trace "$trace" --workers "$workers" 2>&1)
    rc=$?
    printf '%s\n' "$again"
    [ "$rc" -eq 0 ] || { echo "run_replay: replay ($workers workers): exit code $rc" >&2; exit 1; }
    got=$(printf '%s\n' "$again" | grep '^eviction log:')
    [ "$got" = "$want" ] || { echo "run_replay: replay on $backend with $workers workers: '$got', expected '$want'" >&2; exit 1; }
done
echo "run_replay: ok ($want)"
