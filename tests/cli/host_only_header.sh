#!/bin/sh
# SPDX-License-Identifier: MIT
# host_only_header.sh PROFILE SLUICE...: `sluice budget header` of a host-only
# profile (no gpu budget) writes the host pages' size and names no gpu
# budget at all.
set -u
profile=$1
shift
fail() { echo "host_only_header: $*" >&2; exit 1; }
out=$("$@" budget header "$profile") || fail "budget header failed"
printf '%s\n' "$out"
printf '%s\n' "$out" | grep -q '^#define SLC_PROFILE_HOST_ONLY_HOST_PAGES_SIZE 67108991u$' ||
    fail "no host pages size of 1024 pages of 64 KiB"
printf '%s\n' "$out" | grep -q '^    \.budget_count = 5u,$' || fail "budget_count is not the 5 cpu budgets"
if printf '%s\n' "$out" | grep -q gpu; then
    fail "the header names a gpu budget"
fi
echo "host_only_header: ok"
