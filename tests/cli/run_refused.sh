#!/bin/sh
# SPDX-License-Identifier: MIT
# run_refused.sh OUTDIR PACK PROFILE SLUICE...: a frame that asks for object
# 0 5,000 times, more than the profile's queue_capacity admits. `sluice run`
# and `budget fit` decide admission by the same rule (slc_stream_admit) and
# must agree: the run's verdict fails (exit 4) naming the refused requests,
# and fit says the workload does not hold (exit 5) naming queue_capacity.
set -u
out=$1
pack=$2
profile=$3
shift 3
mkdir -p "$out" || exit 1
trace="$out/refused.trace"
{
    echo "sluice-trace 1"
    i=0
    while [ "$i" -lt 5000 ]; do
        echo "0 obj 0 0 0"
        i=$((i + 1))
    done
    echo "1 obj 0 0 0"
} > "$trace" || exit 1
fail() { echo "run_refused: $*" >&2; exit 1; }

report=$("$@" run "$pack" --backend host --profile "$profile" --trace "$trace" 2>&1)
rc=$?
printf '%s\n' "$report"
[ "$rc" -eq 4 ] || fail "run: exit code $rc, expected 4 (the verdict failed)"
line=$(printf '%s\n' "$report" | grep '^requests: ')
accepted=$(printf '%s\n' "$line" | sed -n 's/^requests: \([0-9]*\) accepted, \([0-9]*\) refused$/\1/p')
refused=$(printf '%s\n' "$line" | sed -n 's/^requests: \([0-9]*\) accepted, \([0-9]*\) refused$/\2/p')
[ -n "$refused" ] && [ "$refused" -gt 0 ] || fail "run: no refused requests counted: '$line'"
total=$((accepted + refused))
[ "$total" -eq 5001 ] || fail "run: $accepted accepted and $refused refused make $total, not the trace's 5001"
printf '%s\n' "$report" | grep -qx "  - $refused of 5001 requests refused (the profile's queue_capacity bounds a frame's requests)" ||
    fail "run: the verdict does not name the refused requests"

fit=$("$@" budget fit "$profile" "$pack" --trace "$trace" 2>&1)
rc=$?
printf '%s\n' "$fit"
[ "$rc" -eq 5 ] || fail "fit: exit code $rc, expected 5 (does not hold)"
printf '%s\n' "$fit" | grep -q "queue_capacity" || fail "fit: queue_capacity not named"
echo "run_refused: ok (run: $refused of 5001 refused, verdict failed; fit: does not hold)"
