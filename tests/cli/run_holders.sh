#!/bin/sh
# SPDX-License-Identifier: MIT
# run_holders.sh PACK SLUICE...: the report names the objects holding most
# of the pool at the end of a run (PACK: a synthetic city, whose object N is
# named building_N): at most 5, largest share first (ties: lower id first),
# shares within the resident pages, which are within the pool; the text
# names the same first object as the JSON.
set -u
pack=$1
shift
fail() { echo "run_holders: $*" >&2; exit 1; }
json=$("$@" run "$pack" --backend host --frames 60 --json) || fail "run --json failed"
first=$(printf '%s\n' "$json" | python3 -c '
import json, sys
r = json.load(sys.stdin)
h = r["pool_holders"]
most = h["most"]
assert 1 <= len(most) <= 5, most
assert len(most) <= h["objects"], h
keys = [(-m["pages"], m["object"]) for m in most]
assert keys == sorted(keys), "not largest first: %s" % most
for m in most:
    assert m["name"] == "building_%06d" % m["object"], m
    assert m["pages"] > 0, m
assert sum(m["pages"] for m in most) <= h["resident_pages"] + 1e-6, h
assert h["resident_pages"] <= r["pool"]["pages"], (h, r["pool"])
print(most[0]["object"])
') || fail "pool_holders: $(printf '%s\n' "$json" | grep -A3 pool_holders)"
text=$("$@" run "$pack" --backend host --frames 60) || fail "run failed"
line=$(printf '%s\n' "$text" | grep '^pool at the end: ')
printf '%s\n' "$line" | grep -Eq "^pool at the end: [0-9]+ pages resident, held by [0-9]+ objects; most by object $first 'building_0*$first' [0-9.]+ pages \([0-9.]+%\)" ||
    fail "text: '$line' does not name object $first first"
echo "run_holders: ok ($line)"
