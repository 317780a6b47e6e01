#!/bin/sh
# SPDX-License-Identifier: MIT
# bench_lod.sh WORKDIR SLUICE...: `sluice bench lod` over a UV sphere written
# here (32 x 16 segments, 1024 triangles, positions and normals; its name has
# a quote and a backslash), with the validation layer on (--validate: any
# message fails the run). Asserts what is exact: the levels and their
# triangles as the pack records them, level 0's coverage 1 and PSNR inf
# (null in JSON) and mask distance 0, eight views, --json parsed with the
# name as it is, the contact sheet's size (a row per view, a column per
# level, cells of --size with 4-pixel gaps), the same output on a second run,
# the glTF input packed as `sluice pack` packs it; then each bad input: its
# exit code and message.
set -u
dir=$1
shift
fail() { echo "bench_lod: $*" >&2; exit 1; }
rm -rf "$dir" && mkdir -p "$dir" || fail "mkdir $dir"
out=$dir/out.txt
err=$dir/err.txt

name='ball"q\b'
python3 - "$dir" "$name" <<'PY' || fail "cannot write the sphere"
import json, math, struct, sys
d, name = sys.argv[1], sys.argv[2]
seg, rings = 32, 16
pos, idx = [], []
for r in range(rings + 1):
    th = math.pi * r / rings
    for s in range(seg + 1):
        ph = 2 * math.pi * s / seg
        pos += (math.sin(th) * math.cos(ph), math.cos(th), math.sin(th) * math.sin(ph))
for r in range(rings):
    for s in range(seg):
        a = r * (seg + 1) + s
        b = a + seg + 1
        idx += [a, b, a + 1, a + 1, b, b + 1]
nv = len(pos) // 3
blob = struct.pack("<%df" % len(pos), *pos) * 2 + struct.pack("<%dH" % len(idx), *idx)
g = {"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}], "nodes": [{"mesh": 0, "name": name}],
     "meshes": [{"name": name, "primitives": [{"attributes": {"POSITION": 0, "NORMAL": 1}, "indices": 2}]}],
     "buffers": [{"uri": "ball.bin", "byteLength": len(blob)}],
     "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": nv * 12},
                     {"buffer": 0, "byteOffset": nv * 12, "byteLength": nv * 12},
                     {"buffer": 0, "byteOffset": nv * 24, "byteLength": len(idx) * 2}],
     "accessors": [{"bufferView": 0, "componentType": 5126, "count": nv, "type": "VEC3",
                    "min": [-1, -1, -1], "max": [1, 1, 1]},
                   {"bufferView": 1, "componentType": 5126, "count": nv, "type": "VEC3"},
                   {"bufferView": 2, "componentType": 5123, "count": len(idx), "type": "SCALAR"}]}
open(d + "/ball.gltf", "w").write(json.dumps(g))
open(d + "/ball.bin", "wb").write(blob)
PY
model=$dir/ball.gltf
"$@" pack --quiet "$model" -o "$dir/ball.pack" || fail "sluice pack failed"
# The levels as the pack records them (sluice inspect), for the exact checks.
"$@" inspect "$dir/ball.pack" --json > "$dir/inspect.json" || fail "sluice inspect failed"

TMPDIR=$dir "$@" bench lod "$model" --sheet "$dir/sheet.png" --validate > "$out" 2> "$err"
rc=$?
cat "$out"
[ "$rc" -eq 0 ] || fail "exit code $rc, expected 0: $(cat "$err")"
[ ! -s "$err" ] || fail "wrote to stderr: $(cat "$err")"
ls "$dir" | grep -q '^sluice-bench-lod-' && fail "the temporary pack was left behind: $(ls "$dir")"
grep -q "^bench lod: $dir/ball.gltf: 1 object, 8 views at 128x128 (fov 60 degrees), sse 1 px, coverage tolerance 0.05\$" \
    "$out" || fail "no header line"
grep -q "^object 0 'ball\"q\\\\b': [2-9] levels, bounding sphere radius 1, views at distance 2, scale 1\$" "$out" ||
    fail "no object line"
grep -Eq '^      0       1024             0    1\.0000       inf      0\.00$' "$out" || fail "level 0's row is not exact"
n=$(grep -Ec '^ +[0-7]  [-+]x[-+]y[-+]z  ' "$out")
[ "$n" -eq 8 ] || fail "view rows: $n, expected 8"

# --json: parsed, the name as it is, level 0 exact, every level's triangles
# and error the pack's own (sluice pack of the same file), coverage and PSNR
# in range, the same as the text's levels.
TMPDIR=$dir "$@" bench lod "$dir/ball.pack" --json --validate > "$dir/out.json" 2> "$err" ||
    fail "--json: exit code $?: $(cat "$err")"
python3 - "$dir/out.json" "$name" "$out" <<'PY' || fail "--json: $(cat "$dir/out.json")"
import json, re, sys
j = json.load(open(sys.argv[1]))
assert j["bench"] == "lod" and j["width"] == 128 and j["height"] == 128 and j["views"] == 8, j
assert j["sse_px"] == 1 and j["coverage_tol"] == 0.05 and j["check"] is None, j
(o,) = j["objects"]
assert o["object"] == 0 and o["name"] == sys.argv[2], o["name"]
lv = o["levels"]
assert len(lv) >= 2, lv
l0 = lv[0]
assert l0["triangles"] == 1024 and l0["error"] == 0 and l0["coverage"] == 1, l0
assert l0["psnr_db"] is None and l0["mask_px"] == 0 and l0["covered_pixels"] > 0, l0
for i, l in enumerate(lv):
    assert l["level"] == i and 0 < l["triangles"] <= 1024, l
    assert l["coverage"] == round(l["covered_pixels"] / l0["covered_pixels"], 6), l
    if i > 0:
        assert l["triangles"] < lv[i - 1]["triangles"] and l["error"] > 0, l
        assert l["psnr_db"] is None or l["psnr_db"] > 0, l
assert len(o["views"]) == 8 and [v["view"] for v in o["views"]] == list(range(8)), o["views"]
for v in o["views"]:
    assert 0 <= v["level"] < len(v and lv) and re.fullmatch(r"[-+]x[-+]y[-+]z", v["direction"]), v
    assert v["holds"] == (v["mask_px"] is not None and v["mask_px"] <= 1), v
# the text gives the same levels
rows = [l for l in open(sys.argv[3]) if re.match(r"^ {6}\d  ", l)]
assert len(rows) == len(lv), rows
for l, row in zip(lv, rows):
    f = row.split()
    assert int(f[0]) == l["level"] and int(f[1]) == l["triangles"], (row, l)
PY
python3 - "$dir/inspect.json" "$dir/out.json" <<'PY' || fail "the levels are not the pack's"
import json, sys
p = json.load(open(sys.argv[1]))
j = json.load(open(sys.argv[2]))
# inspect's per-level table: the levels and their triangles
levels = p["levels"]
tris = [l["triangles"] for l in j["objects"][0]["levels"]]
assert len(levels) == len(tris), (levels, tris)
for want, got in zip(levels, tris):
    assert want["triangles"] == got, (want, got)
PY

# The contact sheet: one row per view, one column per level.
levels=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["objects"][0]["levels"]))' "$dir/out.json")
python3 - "$dir/sheet.png" "$levels" <<'PY' || fail "the sheet's size"
import struct, sys
b = open(sys.argv[1], "rb").read(32)
assert b[:8] == b"\x89PNG\r\n\x1a\n", b[:8]
w, h = struct.unpack(">II", b[16:24])
n = int(sys.argv[2])
# png_sheet: cells of 128x128, 4-pixel gaps between and around them
assert (w, h) == (n * (128 + 4) + 4, 8 * (128 + 4) + 4), (w, h, n)
PY

# Deterministic: the same figures and the same sheet again.
TMPDIR=$dir "$@" bench lod "$dir/ball.pack" --sheet "$dir/sheet2.png" > "$dir/out2.txt" 2> "$err" ||
    fail "second run: $(cat "$err")"
cmp -s "$dir/sheet.png" "$dir/sheet2.png" || fail "the sheet differs between two runs"
tail -n +2 "$out" > "$dir/a.txt"
tail -n +2 "$dir/out2.txt" > "$dir/b.txt"
cmp -s "$dir/a.txt" "$dir/b.txt" || fail "the figures differ between two runs: $(diff "$dir/a.txt" "$dir/b.txt")"

# --check on a sphere: the result and its messages agree with the table.
TMPDIR=$dir "$@" bench lod "$dir/ball.pack" --check > "$out" 2> "$err"
rc=$?
if grep -q '^check: holds (0 failures)$' "$out"; then
    [ "$rc" -eq 0 ] && [ ! -s "$err" ] || fail "--check holds but exit code $rc: $(cat "$err")"
else
    [ "$rc" -eq 1 ] || fail "--check fails but exit code $rc"
    grep -Eq "^check: fails \\([1-9][0-9]* failures?\\)\$" "$out" || fail "no check line: $(cat "$out")"
    grep -Eq "^sluice bench lod: check: object 0 'ball\"q\\\\b'" "$err" || fail "no failure named: $(cat "$err")"
fi
# A threshold far below any coarser level's error serves level 0 in every
# view (mask distance 0), and a tolerance of 1 allows any coverage: holds.
TMPDIR=$dir "$@" bench lod "$dir/ball.pack" --check --sse 0.001 --coverage-tol 1 --object 0 > "$out" 2> "$err" ||
    fail "--check serving level 0: exit code $?: $(cat "$err")"
n=$(grep -Ec '^ +[0-7]  [-+]x[-+]y[-+]z  +0    0\.0000      0\.00  ok$' "$out")
[ "$n" -eq 8 ] || fail "--sse 0.001: $n views serve level 0 at distance 0, expected 8: $(cat "$out")"
grep -q '^check: holds (0 failures)$' "$out" || fail "--sse 0.001: no 'check: holds' line"

# expect CODE REGEX ARGS...: `sluice ARGS` exits CODE with REGEX on stderr.
expect() {
    code=$1
    regex=$2
    shift 2
    TMPDIR=$dir "$@" > "$out" 2> "$err"
    got=$?
    [ "$got" -eq "$code" ] || fail "'$*': exit code $got, expected $code: $(cat "$err")"
    grep -Eq -- "$regex" "$err" || fail "'$*': stderr does not match '$regex': $(cat "$err")"
}
expect 3 "^sluice bench lod: $dir/missing.pack: cannot open: No such file or directory\$" \
    "$@" bench lod "$dir/missing.pack"
expect 2 "^sluice bench lod: $dir/ball.pack: --object 1: the pack has 1 object \\(0\\.\\.0\\)\$" \
    "$@" bench lod "$dir/ball.pack" --object 1
expect 2 "^sluice bench lod: --object needs an object index in 0\\.\\.4294967294\$" \
    "$@" bench lod "$dir/ball.pack" --object x
expect 2 "^sluice bench lod: --size '0x5': expected WxH, each 1\\.\\.4096\$" "$@" bench lod "$dir/ball.pack" --size 0x5
expect 2 "^sluice bench lod: --sse '0': expected pixels above 0, at most 1000\$" "$@" bench lod "$dir/ball.pack" --sse 0
expect 2 "^sluice bench lod: --coverage-tol '2': expected a share in 0\\.\\.1\$" \
    "$@" bench lod "$dir/ball.pack" --coverage-tol 2
expect 2 "^sluice bench lod: no PACK or GLTF given\$" "$@" bench lod
expect 2 "^sluice bench lod: unknown option or operand '--nope'\$" "$@" bench lod "$dir/ball.pack" --nope
expect 2 "^sluice bench lod: unknown option or operand 'two'\$" "$@" bench lod "$dir/ball.pack" two
printf 'not a pack' > "$dir/bad.pack"
expect 1 "bad.pack" "$@" bench lod "$dir/bad.pack"
printf '{' > "$dir/bad.gltf"
expect 1 "^sluice bench lod: $dir/bad.gltf: could not be packed \\(see above\\)\$" "$@" bench lod "$dir/bad.gltf"
ls "$dir" | grep -q '^sluice-bench-lod-' && fail "a failed pack left its folder behind: $(ls "$dir")"
# The sheet is written through a temporary: a folder that does not exist
# fails, and an existing sheet stays as it was when the run fails.
expect 3 "$dir/nodir/s\\.png" "$@" bench lod "$dir/ball.pack" --sheet "$dir/nodir/s.png"
cp "$dir/sheet.png" "$dir/keep.png"
expect 2 "--object 1" "$@" bench lod "$dir/ball.pack" --object 1 --sheet "$dir/keep.png"
cmp -s "$dir/sheet.png" "$dir/keep.png" || fail "a failed run changed the existing sheet"
echo "bench_lod: ok"
