#!/bin/sh
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
