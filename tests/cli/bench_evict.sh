#!/bin/sh
# SPDX-License-Identifier: MIT
# bench_evict.sh OUTDIR PACK PROFILE SLUICE...: the smoke test of `sluice bench
# evict` (tiny sizes; no figure is judged against a threshold):
#   - on a 96-page copy of PROFILE the fly camera's table has a line for opt,
#     lru, priority and every sim-* candidate, each with loads, hits, busy and a
#     ratio that parse; opt's ratio is 1.000, no policy loads fewer than opt nor
#     fewer than the distinct chunks, and every policy is busy as often as opt
#     (every request is served, so the pages in use are the same);
#   - lru and priority show the real stream's loads (a number); --no-stream
#     leaves them out ("-");
#   - --json gives the same figures, parsed by python3's json module;
#   - hand-made traces with known answers: the textbook reference string
#     7 0 1 2 0 3 0 4 2 3 0 3 2 1 2 0 1 7 0 1, one chunk a frame, over 3 pages
#     with 1 frame in flight and nothing pinned: OPT 9 loads and 11 hits, LRU
#     12 and 8; and 0 1 2 0 over 2 pages: OPT 3 loads with 1 frame in flight
#     (chunk 1 is never used again), 4 with 2 (chunk 1, used in the frame
#     before, may not be evicted, so chunk 0 must go);
#   - a trace naming a partition the profile lacks fails with exit 1 and
#     "FILE:LINE: partition 'NAME' is not in profile", a missing pack with
#     exit 3, an unknown option with exit 2.
set -u
out=$1
pack=$2
profile=$3
shift 3
mkdir -p "$out" || exit 1
fail() { echo "bench_evict: $*" >&2; exit 1; }

small="$out/evict96.profile"
sed -e 's/^page_count .*/page_count = 96/' -e 's|^gpu/pool .*|gpu/pool = 6 MiB|' -e 's/^name .*/name = evict-96/' \
    "$profile" > "$small" || fail "cannot write $small"

"$@" bench evict "$pack" --profile "$small" --camera fly --frames 60 > "$out/text.txt" 2> "$out/text.err"
rc=$?
cat "$out/text.txt"
[ "$rc" -eq 0 ] || { cat "$out/text.err"; fail "text: exit code $rc"; }
awk '
    /distinct chunks/ { distinct = $1 }
    $1 == "opt" { optl = $2; optb = $4; if ($5 != "1.000") bad = bad " opt ratio " $5 }
    $1 == "opt" || $1 == "lru" || $1 == "priority" || $1 ~ /^sim-/ {
        n++
        if ($2 !~ /^[0-9]+$/ || $3 !~ /^[0-9]+$/ || $4 !~ /^[0-9]+$/ || $5 !~ /^[0-9]+\.[0-9][0-9][0-9]$/)
            bad = bad " unparsed line: " $0
        if (optl != "" && $2 + 0 < optl + 0) bad = bad " " $1 " loads below opt"
        if (optb != "" && $4 != optb) bad = bad " " $1 " busy " $4 " against opt " optb
        if (distinct != "" && $2 + 0 < distinct + 0) bad = bad " " $1 " loads below the distinct chunks"
        if (($1 == "lru" || $1 == "priority") && $6 !~ /^[0-9]+$/) bad = bad " " $1 " has no stream loads"
        if ($1 ~ /^sim-/ && $6 != "-") bad = bad " " $1 " has stream loads"
        seen[$1] = 1
    }
    END {
        if (!seen["opt"] || !seen["lru"] || !seen["priority"] || !seen["sim-lru"] || !seen["sim-2q-25"]) bad = bad " missing rows"
        if (distinct == "") bad = bad " no distinct line"
        if (bad != "") { print bad; exit 1 }
    }' "$out/text.txt" || fail "text table"

"$@" bench evict "$pack" --profile "$small" --camera fly --frames 60 --no-stream > "$out/nostream.txt" || fail "--no-stream: exit code $?"
awk '$1 == "lru" && $6 != "-" { exit 1 }' "$out/nostream.txt" || fail "--no-stream: lru still has stream loads"

"$@" bench evict "$pack" --profile "$small" --camera teleport --frames 60 --json > "$out/evict.json" || fail "json: exit code $?"
python3 - "$out/evict.json" <<'PY' || fail "json"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["profile"] == "evict-96" and d["pages"] == 96, d
names = [p["name"] for p in d["policies"]]
assert names[:3] == ["opt", "lru", "priority"] and "sim-lru" in names, names
opt = d["policies"][0]
assert opt["kind"] == "optimum" and opt["ratio"] == 1.0, opt
for p in d["policies"]:
    assert p["loads"] >= opt["loads"] >= d["distinct"], p
    assert p["loads"] + p["hits"] + p["busy"] == d["requests"], p
    assert ("stream" in p) == (p["kind"] == "pool"), p
print("json ok:", len(names), "policies")
PY

# A profile of PAGES pages, FIF frames in flight and nothing pinned.
tiny() {
    sed -e "s/^page_count .*/page_count = $1/" -e "s|^gpu/pool .*|gpu/pool = $(($1 * 64)) KiB|" \
        -e "s/^name .*/name = evict-$1-$2/" -e 's/^pin_coarsest .*/pin_coarsest = 0/' \
        -e "s/^frames_in_flight .*/frames_in_flight = $2/" "$profile" > "$out/evict-$1-$2.profile" || fail "cannot write a profile"
}
# row FILE POLICY: "loads hits" of POLICY's line.
row() { awk -v p="$2" '$1 == p { print $2, $3 }' "$1"; }
tiny 3 1
{ echo "sluice-trace 1"; f=0; for c in 7 0 1 2 0 3 0 4 2 3 0 3 2 1 2 0 1 7 0 1; do echo "$f chunk $c 100"; f=$((f + 1)); done; } > "$out/belady.trace"
"$@" bench evict "$pack" --profile "$out/evict-3-1.profile" --trace "$out/belady.trace" > "$out/belady.txt" || fail "belady: exit code $?"
[ "$(row "$out/belady.txt" opt)" = "9 11" ] || fail "belady: opt '$(row "$out/belady.txt" opt)', expected '9 11'"
[ "$(row "$out/belady.txt" lru)" = "12 8" ] || fail "belady: lru '$(row "$out/belady.txt" lru)', expected '12 8'"
printf 'sluice-trace 1\n0 chunk 0 1\n1 chunk 1 1\n2 chunk 2 1\n3 chunk 0 1\n' > "$out/fif.trace"
for fif in 1 2; do
    tiny 2 $fif
    "$@" bench evict "$pack" --profile "$out/evict-2-$fif.profile" --trace "$out/fif.trace" --no-stream > "$out/fif$fif.txt" ||
        fail "frames in flight $fif: exit code $?"
done
[ "$(row "$out/fif1.txt" opt)" = "3 1" ] || fail "1 frame in flight: opt '$(row "$out/fif1.txt" opt)', expected '3 1'"
[ "$(row "$out/fif2.txt" opt)" = "4 0" ] || fail "2 frames in flight: opt '$(row "$out/fif2.txt" opt)', expected '4 0'"

printf 'sluice-trace 1\n0 obj 0 0 200\n1 obj 0 0 200 nowhere\n' > "$out/part.trace"
msg=$("$@" bench evict "$pack" --trace "$out/part.trace" 2>&1)
rc=$?
printf '%s\n' "$msg"
[ "$rc" -eq 1 ] || fail "unknown partition: exit code $rc, expected 1"
printf '%s\n' "$msg" | grep -q "part.trace:3: partition 'nowhere' is not in profile 'default'" ||
    fail "unknown partition: no 'part.trace:3: partition 'nowhere' is not in profile 'default''"

"$@" bench evict "$out/no-such.pack" > /dev/null 2>&1
rc=$?
[ "$rc" -eq 3 ] || fail "missing pack: exit code $rc, expected 3"
msg=$("$@" bench evict "$pack" --slow 2>&1)
rc=$?
[ "$rc" -eq 2 ] || fail "unknown option: exit code $rc, expected 2"
printf '%s\n' "$msg" | grep -q "unexpected argument '--slow'" || fail "unknown option: no message"
echo "bench_evict: ok"
