#!/bin/sh
# SPDX-License-Identifier: MIT
# fit_crosscheck.sh EXPECT PACK PROFILE SLUICE... -- CAMERA ARGS...: checks
# `sluice budget fit` against `sluice run` (host backend) of the same
# workload. Both must see the same object requests; then, by EXPECT:
#   holds     fit exits 0; the run has no hole and at most the fit's
#             "transient" requests (those asking for a chunk the frame before
#             did not) show a coarser level: only load latency, no fallback
#   fallback  fit exits 4; the run has no hole (pinned levels) but more
#             coarser requests than load latency explains
#   not       fit exits 5; the run cannot start, or shows holes
set -u
expect=$1
pack=$2
profile=$3
shift 3
sluice=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    sluice="$sluice $1"
    shift
done
[ $# -gt 0 ] && shift
fit=$($sluice budget fit "$profile" "$pack" --json "$@" 2>&1)
fit_rc=$?
printf 'fit (exit %s):\n%s\n' "$fit_rc" "$fit"
run=$($sluice run "$pack" --profile "$profile" --backend host --json "$@" 2>&1)
run_rc=$?
printf 'run (exit %s):\n%s\n' "$run_rc" "$run"
num() { printf '%s\n' "$1" | grep -o "\"$2\": [0-9]*" | head -1 | grep -o '[0-9]*$'; }
fail() { echo "fit_crosscheck: $*" >&2; exit 1; }
if [ "$expect" = not ]; then
    [ "$fit_rc" -eq 5 ] || fail "fit exit code $fit_rc, expected 5"
    if [ "$run_rc" -eq 0 ]; then
        none=$(num "$run" none)
        [ "${none:-0}" -gt 0 ] || fail "fit says it does not hold, yet the run shows no hole"
    fi
    echo "fit_crosscheck: ok (does not hold; run exit $run_rc)"
    exit 0
fi
[ "$run_rc" -eq 0 ] || fail "run exit code $run_rc"
fit_reqs=$(num "$fit" object_requests)
transient=$(num "$fit" transient)
run_reqs=$(num "$run" object_requests)
coarser=$(num "$run" coarser)
none=$(num "$run" none)
[ -n "$fit_reqs" ] && [ -n "$transient" ] && [ -n "$coarser" ] && [ -n "$none" ] || fail "a number is missing"
[ "$fit_reqs" -eq "$run_reqs" ] || fail "fit counted $fit_reqs object requests, the run $run_reqs"
[ "$none" -eq 0 ] || fail "the run shows $none holes"
case $expect in
holds)
    [ "$fit_rc" -eq 0 ] || fail "fit exit code $fit_rc, expected 0"
    [ "$coarser" -le "$transient" ] || fail "the run shows $coarser coarser requests, more than the $transient load latency explains"
    ;;
fallback)
    [ "$fit_rc" -eq 4 ] || fail "fit exit code $fit_rc, expected 4"
    [ "$coarser" -gt "$transient" ] || fail "the run shows only $coarser coarser requests (load latency: $transient)"
    ;;
*) fail "unknown expectation '$expect'" ;;
esac
echo "fit_crosscheck: ok ($expect: $run_reqs object requests, $coarser coarser, $transient transient, 0 holes)"
