#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# One conformance case: streams a workload under a budget profile with 1 and
# then 2 worker threads (host backend: the decisions are the same on every
# backend) and asserts that the verdict holds (every budget within its
# limit, no frame over its limits: sluice run's exit 0), that no request was
# left without a visible level (a fallback was always available), that the
# eviction log hashes the same with 1 and 2 workers, that nothing was
# allocated after init (no budget reservation while streaming, cpu/driver
# aside: a GPU driver's own), and, with --expect-fallback,
# that the workload did need coarser levels. With --expect-textures (a pack
# with textures): the texture pool's line, its eviction log hash with it,
# and the tile requests served are the same with 1 and 2 workers, tiles
# were asked for, and every texture's mip tail stayed resident.
#
# usage: conform.sh SLUICE PROFILE PACK [--expect-fallback] [--expect-textures] -- RUN-ARGS...
set -euo pipefail
sluice=$1 profile=$2 pack=$3
shift 3
expect_fallback=0
expect_textures=0
if [ "${1:-}" = "--expect-fallback" ]; then
    expect_fallback=1
    shift
fi
if [ "${1:-}" = "--expect-textures" ]; then
    expect_textures=1
    shift
fi
[ "${1:-}" = "--" ] && shift

run() {
    local workers=$1
    shift
    local out status=0
    out=$("$sluice" run "$pack" --profile "$profile" --backend host --workers "$workers" "$@" 2>&1) || status=$?
    if [ "$status" -ne 0 ]; then
        printf '%s\n' "$out" >&2
        echo "FAIL: sluice run with $workers worker(s) exited $status (the verdict does not hold)" >&2
        exit 1
    fi
    printf '%s\n' "$out"
}

one=$(run 1 "$@")
two=$(run 2 "$@")
hash() { sed -n 's/^eviction log: .* hash \(0x[0-9a-f]*\).*/\1/p' <<<"$1"; }
served() { grep '^served:' <<<"$1"; }
h1=$(hash "$one") h2=$(hash "$two")
printf '%s\n' "$(grep -E '^(workload|chunks|texture pool|served|allocations after init|eviction log|verdict):' <<<"$one")"
if [ -z "$h1" ] || [ "$h1" != "$h2" ]; then
    echo "FAIL: the eviction log hash differs: $h1 with 1 worker, $h2 with 2" >&2
    exit 1
fi
for out in "$one" "$two"; do
    if ! grep -q '^allocations after init: 0 budget reservations while streaming' <<<"$out"; then
        echo "FAIL: the runtime reserved memory while streaming: $(grep '^allocations after init' <<<"$out")" >&2
        exit 1
    fi
done
if ! served "$one" | grep -q ', 0 nothing visible'; then
    echo "FAIL: some request had no visible level: $(served "$one")" >&2
    exit 1
fi
if [ "$expect_fallback" = 1 ] && served "$one" | grep -q ', 0 coarser'; then
    echo "FAIL: the workload was meant to need coarser levels: $(served "$one")" >&2
    exit 1
fi
tiles=""
if [ "$expect_textures" = 1 ]; then
    texture() { grep -E '^(texture pool|served: [0-9]+ tile requests):' <<<"$1" || true; }
    t1=$(texture "$one") t2=$(texture "$two")
    if ! grep -Eq '^texture pool: .* hash 0x[0-9a-f]+$' <<<"$t1" ||
        ! grep -Eq '^served: [1-9][0-9]* tile requests: .*; every texture.s mip tail stays resident$' <<<"$t1"; then
        echo "FAIL: no texture pool streamed, no tile asked for, or a mip tail not resident: $t1" >&2
        exit 1
    fi
    if [ "$t1" != "$t2" ]; then
        echo "FAIL: the texture pool differs: $t1 with 1 worker, $t2 with 2" >&2
        exit 1
    fi
    tiles=", the texture pool's log $(sed -n 's/^texture pool: .* hash \(0x[0-9a-f]*\)$/\1/p' <<<"$t1") both times"
fi
echo "PASS: verdict ok with 1 and 2 workers, eviction log $h1 both times$tiles, no request without a level, nothing allocated after init"
