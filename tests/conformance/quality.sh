#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# One conformance quality case: renders a small workload under a budget
# profile and, in lockstep, under its reference profile (every chunk of the
# pack resident, every level pinned: `sluice render --reference`), and
# asserts that the command succeeds: the run's verdict holds and no frame's
# luminance PSNR against the reference falls below the profile's
# [quality] min_psnr_db (a profile without one has no floor, and the case
# reports its figures). Frames below the floor fail the case with the
# frame and both numbers.
#
# usage: quality.sh SLUICE PROFILE PACK -- RENDER-ARGS...
set -euo pipefail
sluice=$1 profile=$2 pack=$3
shift 3
[ "${1:-}" = "--" ] && shift

status=0
out=$("$sluice" render "$pack" --profile "$profile" --reference "$@" 2>&1) || status=$?
line=$(grep '^quality: PSNR' <<<"$out" || true)
if [ "$status" -ne 0 ]; then
    printf '%s\n' "$out" >&2
    if grep -q '^quality floor: FAILED' <<<"$out"; then
        echo "FAIL: frames below the profile's floor: $(grep 'below the floor' <<<"$out" | head -n 1)" >&2
    else
        echo "FAIL: sluice render --reference exited $status" >&2
    fi
    exit 1
fi
if [ -z "$line" ]; then
    printf '%s\n' "$out" >&2
    echo "FAIL: no quality line in the report" >&2
    exit 1
fi
floor=$(sed -n 's/^min_psnr_db[ \t]*=[ \t]*\([0-9.]*\).*/\1/p' "$profile")
if [ -n "$floor" ]; then floor="every frame at or above the floor of $floor dB"; else floor="no floor declared"; fi
printf '%s\n' "$line"
echo "PASS: quality ok ($floor): $line"
