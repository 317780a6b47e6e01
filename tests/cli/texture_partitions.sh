#!/bin/sh
# SPDX-License-Identifier: MIT
# texture_partitions.sh OUTDIR PROFILES SLUICE...: [texture_partitions]
# divides the texture pool as [partitions] the page pool. budget check and
# header show them; a trace's tile request goes to the texture pool's
# partition it names (absent: its first); the mip tails stay pinned in
# 'default'; run, budget fit and bench evict agree on where each tile goes
# (fit's figures by partition, bench evict's replay loading what the stream
# loads); a partition the texture pool lacks is refused by all three.
set -u
out=$1
profiles=$2
shift 2
mkdir -p "$out" || exit 1
fail() { echo "texture_partitions: $*" >&2; exit 1; }

sum=$("$@" pack --synthetic city --size 1M --seed 11 --textures --texture-quality fast --texture-format rgba8 \
    -o "$out/t.pack") || fail "pack failed: $sum"
# 40 texture pages: 'signs' 12, 'default' 28 (the 4 mip tails and 24 more).
sed 's/^page_count       = 1024 .*/page_count = 40/' "$profiles/default.profile" > "$out/p.profile"
printf '[texture_partitions]\nsigns = 12\n' >> "$out/p.profile"
msg=$("$@" budget check "$out/p.profile") || fail "budget check: $msg"
printf '%s\n' "$msg" | grep -Eq "^texture partition signs +12 pages$" || fail "budget check: no 'signs': $msg"
printf '%s\n' "$msg" | grep -Eq "^texture partition default +28 pages$" || fail "budget check: no 'default': $msg"
printf '%s\n' "$msg" | grep -q "^partition " && fail "budget check: a page pool partition appeared: $msg"
msg=$("$@" budget check "$out/p.profile" --json) || fail "budget check --json: $msg"
printf '%s\n' "$msg" | python3 -c '
import json, sys
r = json.load(sys.stdin)
assert r["texture_partitions"] == [{"name": "signs", "pages": 12}] and r["partitions"] == [], r
' || fail "budget check --json: $msg"
msg=$("$@" budget header "$out/p.profile") || fail "budget header: $msg"
printf '%s\n' "$msg" | grep -q '^    .texture_partition_count = 1u,$' || fail "budget header: no count: $msg"
printf '%s\n' "$msg" | grep -q '^        {"signs", 12u},$' || fail "budget header: no 'signs': $msg"

# The camera's trace, then the same with every other tile in 'default'.
msg=$("$@" run "$out/t.pack" --profile "$out/p.profile" --backend host --camera fly --frames 16 \
    --save-trace "$out/cam.trace" --evict-log "$out/cam.evict" 2>&1) || fail "run, camera: $msg"
# Absent, a tile's partition is the texture pool's first ('signs'): 12 pages, the tails beside them.
printf '%s\n' "$msg" | grep -Eq "^texture pool: peak 16 of 40 pages used, 4 pinned \(mip tails\), 12 tiles resident " ||
    fail "run, camera: the tiles did not fill 'signs' alone: $msg"
awk '$2 == "chunk" && $3 % 2 == 0 { print $0 " default"; next } { print }' "$out/cam.trace" > "$out/split.trace"
grep -q ' default$' "$out/split.trace" || fail "split.trace: no tile moved to 'default'"
msg=$("$@" run "$out/t.pack" --profile "$out/p.profile" --backend host --trace "$out/split.trace" \
    --evict-log "$out/split.evict" 2>&1) || fail "run, split: $msg"
printf '%s\n' "$msg" | grep -Eq "^texture pool: peak 40 of 40 pages used, 4 pinned \(mip tails\), " ||
    fail "run, split: the tiles did not spread over both partitions: $msg"
# The texture pool's eviction log: loads in both partitions (0 'signs', 1 'default').
for p in 0 1; do
    grep -Eq "^t [0-9]+ [0-9]+ [-0-9]+ [0-9]+ [0-9]+ $p$" "$out/split.evict" ||
        fail "split.evict: no tile loaded into texture partition $p"
done

# budget fit: the figures by partition, the break in 'signs'.
msg=$("$@" budget fit "$out/p.profile" "$out/t.pack" --trace "$out/split.trace" 2>&1)
rc=$?
[ "$rc" -eq 4 ] || fail "fit: exit code $rc, expected 4 (holds only with fallback): $msg"
printf '%s\n' "$msg" | grep -Eq "^texture pool: 40 pages, 4 pinned \(mip tails of 4 textures\) in 'default'; [0-9]+ tile requests .*; partitions: signs 12 pages, default 28 pages$" ||
    fail "fit: no texture pool line: $msg"
printf '%s\n' "$msg" | grep -Eq "^texture pool 'signs': working set worst [0-9]+ of 12 pages at frame [0-9]+, " ||
    fail "fit: no 'signs' line: $msg"
printf '%s\n' "$msg" | grep -Eq "^  texture pool working set: frame 0, chunk [0-9]+ .*: [0-9]+ pages in partition 'signs', has 12 " ||
    fail "fit: no break in 'signs': $msg"
msg=$("$@" budget fit "$out/p.profile" "$out/t.pack" --trace "$out/split.trace" --json 2>&1)
printf '%s\n' "$msg" | python3 -c '
import json, sys
r = json.load(sys.stdin)
t = r["texture_pool"]
parts = {p["name"]: p for p in t["partitions"]}
assert sorted(parts) == ["default", "signs"] and parts["signs"]["pages"] == 12 and parts["default"]["pages"] == 28, t
assert parts["default"]["working_set"] == t["working_set"], t  # the top level: the pin partition
assert parts["default"]["working_set"]["worst"] >= 4, t
b = r["breaks"]["texture_working_set"]
assert b["partition"] == "signs" and b["limit"] == 12, b
' || fail "fit --json: $msg"

# bench evict replays each partition of the texture pool: its replay of
# each pool policy loads what the stream loads, with either trace.
for tr in cam split; do
    msg=$("$@" bench evict "$out/t.pack" --profile "$out/p.profile" --trace "$out/$tr.trace" --json 2>&1) ||
        fail "bench evict, $tr: $msg"
    printf '%s\n' "$msg" | python3 -c '
import json, sys
t = json.load(sys.stdin)["texture_pool"]
pol = {p["name"]: p for p in t["policies"]}
for name in ("lru", "priority", "predict"):
    assert pol[name]["stream"]["loads"] == pol[name]["loads"], (name, pol[name])
assert all(p["loads"] >= pol["opt"]["loads"] for p in t["policies"]), t
' || fail "bench evict, $tr: the replay differs from the stream: $msg"
done

# A partition the texture pool lacks: refused by each, naming file and line.
awk '$2 == "chunk" { print $0 " ui"; next } { print }' "$out/cam.trace" > "$out/bad.trace"
line=$(grep -n ' ui$' "$out/bad.trace" | head -1 | cut -d: -f1)
want="$out/bad.trace:$line: partition 'ui' is not in profile 'default' ([texture_partitions])"
for cmd in "run $out/t.pack --profile $out/p.profile --backend host" "budget fit $out/p.profile $out/t.pack" \
    "bench evict $out/t.pack --profile $out/p.profile"; do
    # shellcheck disable=SC2086 # $cmd is a list of arguments
    msg=$("$@" $cmd --trace "$out/bad.trace" 2>&1)
    rc=$?
    [ "$rc" -eq 1 ] || fail "$cmd: exit code $rc, expected 1: $msg"
    printf '%s\n' "$msg" | grep -Fxq "$want" || fail "$cmd: not '$want': $msg"
done
echo "texture_partitions: ok"
