#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Writes a thrashing trace: every frame asks for a window of WINDOW chunks
# that moves by WINDOW each frame, cycling over the pack's first CHUNKS
# chunks, so a pool smaller than CHUNKS pages (and LRU with it) evicts
# everything it loaded one cycle earlier, the worst case for a cache.
#
# usage: thrash_trace.sh CHUNKS WINDOW FRAMES OUT
set -euo pipefail
chunks=$1 window=$2 frames=$3 out=$4
awk -v c="$chunks" -v w="$window" -v n="$frames" 'BEGIN {
    print "sluice-trace 1"
    print "# thrash: a window of " w " chunks moving by " w " a frame over " c " chunks"
    print "frames " n
    for (f = 0; f < n; f++)
        for (k = 0; k < w; k++)
            printf "%d chunk %d %d\n", f, (f * w + k) % c, 100 + k % 50
}' >"$out"
