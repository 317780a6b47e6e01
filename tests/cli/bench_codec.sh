#!/bin/sh
# SPDX-License-Identifier: MIT
# bench_codec.sh WORKDIR SLUICE...: a smoke run of `sluice bench codec` on a
# small grid written here (512 triangles, positions, normals and uvs), with
# a stand-in gltfpack that writes a known glTF, so the anchor's columns are
# exact: the POSITION view's compressed bytes (EXT_meshopt_compression) and
# the index view count, the image view does not. Checks every line exists
# and its numbers parse (no timing threshold), --json parses and escapes
# the model's name, no temporary is left; then each failure of the anchor
# (gltfpack missing, failing, writing bad JSON or a view outside its .bin)
# is said in its columns' place, and each bad command line and a model the
# packer refuses give their exit code and message. With a real gltfpack and
# lz4 on PATH, one more run over the grid has numbers in every anchor column.
set -u
dir=$1
shift
fail() { echo "bench_codec: $*" >&2; exit 1; }
rm -rf "$dir" && mkdir -p "$dir" || fail "mkdir $dir"
out=$dir/out.txt
err=$dir/err.txt

# The grid: 17 x 17 vertices, 16 x 16 quads; its name has a quote and a backslash.
grid='grid"q\b'
python3 - "$dir" "$grid" <<'PY' || fail "cannot write the grid"
import json, math, struct, sys
d, name = sys.argv[1], sys.argv[2]
n = 17
pos, nrm, uv, idx = [], [], [], []
for j in range(n):
    for i in range(n):
        x, y = i / (n - 1), j / (n - 1)
        pos += [x, y, 0.1 * math.sin(6 * x) * math.cos(5 * y)]
        nrm += [0.0, 0.0, 1.0]
        uv += [x, y]
for j in range(n - 1):
    for i in range(n - 1):
        a = j * n + i
        idx += [a, a + 1, a + n, a + 1, a + n + 1, a + n]
blob = struct.pack('<%df' % len(pos), *pos) + struct.pack('<%df' % len(nrm), *nrm) + \
       struct.pack('<%df' % len(uv), *uv) + struct.pack('<%dI' % len(idx), *idx)
v = n * n
offs = [0, 12 * v, 24 * v, 32 * v]
g = {"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}], "nodes": [{"mesh": 0}],
     "buffers": [{"uri": "grid.bin", "byteLength": len(blob)}],
     "bufferViews": [{"buffer": 0, "byteOffset": offs[0], "byteLength": 12 * v},
                     {"buffer": 0, "byteOffset": offs[1], "byteLength": 12 * v},
                     {"buffer": 0, "byteOffset": offs[2], "byteLength": 8 * v},
                     {"buffer": 0, "byteOffset": offs[3], "byteLength": 4 * len(idx)}],
     "accessors": [{"bufferView": 0, "componentType": 5126, "count": v, "type": "VEC3",
                    "min": [0, 0, -0.1], "max": [1, 1, 0.1]},
                   {"bufferView": 1, "componentType": 5126, "count": v, "type": "VEC3"},
                   {"bufferView": 2, "componentType": 5126, "count": v, "type": "VEC2"},
                   {"bufferView": 3, "componentType": 5125, "count": len(idx), "type": "SCALAR"}],
     "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "NORMAL": 1, "TEXCOORD_0": 2}, "indices": 3}]}]}
open(d + "/grid.bin", "wb").write(blob)
open(d + "/" + name + ".gltf", "w").write(json.dumps(g))
# A glTF of points only: the packer refuses it.
p = dict(g, meshes=[{"primitives": [{"attributes": {"POSITION": 0}, "mode": 0}]}])
open(d + "/points.gltf", "w").write(json.dumps(p))
PY
model="$dir/$grid.gltf"
re='grid"q\\b' # the grid's name as a regular expression

# fake NAME BODY: a stand-in gltfpack at $dir/NAME; BODY runs with
# $out the -o path and $bin the .bin beside it.
fake() {
    cat > "$dir/$1" <<SH
#!/bin/sh
while [ \$# -gt 0 ]; do [ "\$1" = -o ] && out=\$2; shift; done
bin=\$(dirname "\$out")/out.bin
$2
SH
    chmod +x "$dir/$1"
}
# A known output: 48 bytes of .bin; POSITION's view compressed to 20 bytes at
# 0, indices stored raw at 20 (12 bytes), an image's 16 bytes at 32.
fake gltfpack-known "printf '%048d' 0 > \"\$bin\"
cat > \"\$out\" <<'J'
{\"buffers\": [{\"uri\": \"out.bin\", \"byteLength\": 48},
  {\"byteLength\": 100, \"extensions\": {\"EXT_meshopt_compression\": {\"fallback\": true}}}],
 \"bufferViews\": [
  {\"buffer\": 1, \"byteLength\": 96, \"extensions\": {\"EXT_meshopt_compression\":
    {\"buffer\": 0, \"byteOffset\": 0, \"byteLength\": 20, \"byteStride\": 8, \"mode\": \"ATTRIBUTES\", \"count\": 12}}},
  {\"buffer\": 0, \"byteOffset\": 20, \"byteLength\": 12},
  {\"buffer\": 0, \"byteOffset\": 32, \"byteLength\": 16}],
 \"accessors\": [{\"bufferView\": 0, \"count\": 12}, {\"bufferView\": 1, \"count\": 6}],
 \"meshes\": [{\"primitives\": [{\"attributes\": {\"POSITION\": 0}, \"indices\": 1}]}],
 \"images\": [{\"bufferView\": 2, \"mimeType\": \"image/png\"}]}
J"
fake gltfpack-huge "printf '%016d' 0 > \"\$bin\"
echo '{\"buffers\": [{\"uri\": \"out.bin\"}], \"bufferViews\": [{\"buffer\": 0, \"byteLength\": 16,
 \"extensions\": {\"EXT_meshopt_compression\": {\"buffer\": 0, \"byteLength\": 16, \"byteStride\": 8,
 \"mode\": \"ATTRIBUTES\", \"count\": 200000000}}}],
 \"accessors\": [{\"bufferView\": 0, \"count\": 3}], \"meshes\": [{\"primitives\": [{\"attributes\": {\"POSITION\": 0}}]}]}' > \"\$out\""
fake gltfpack-fails "echo 'Error loading model: no such thing' >&2; exit 1"
fake gltfpack-notjson "printf '%048d' 0 > \"\$bin\"; echo 'not json {' > \"\$out\""
fake gltfpack-outside "printf '%016d' 0 > \"\$bin\"
echo '{\"buffers\": [{\"uri\": \"out.bin\"}], \"bufferViews\": [{\"buffer\": 0, \"byteOffset\": 8, \"byteLength\": 991}],
 \"accessors\": [{\"bufferView\": 0, \"count\": 3}], \"meshes\": [{\"primitives\": [{\"attributes\": {\"POSITION\": 0}}]}]}' > \"\$out\""

have_lz4=0
command -v lz4 > /dev/null 2>&1 && have_lz4=1

TMPDIR=$dir "$@" bench codec "$model" "$dir/points.gltf" --quick --gltfpack "$dir/gltfpack-known" > "$out" 2> "$err"
rc=$?
cat "$out"
[ "$rc" -eq 0 ] || fail "exit code $rc, expected 0: $(cat "$err")"
[ ! -s "$err" ] || fail "wrote to stderr: $(cat "$err")"
ls "$dir" | grep -q '^sluice-bench-codec-' && fail "the temporary folder was left behind: $(ls "$dir")"
grep -q '^sluice bench codec: LOD 0 (--max-lods 1), quantized' "$out" || fail "no header line"
# The bytes row: 512 triangles, 289 vertices, every built codec a number,
# the stand-in anchor's 32 geometry bytes, its lz4 a number (or '-' without lz4).
row=$(grep -E "^${re} +[0-9]+ +[0-9]+ +[0-9]+ " "$out" | head -n 1) || fail "no bytes row for the grid"
printf '%s\n' "$row" | awk -v lz4="$have_lz4" '{
    if (NF != 13 || $2 != 512 || $3 != 289) { print "fields, triangles, vertices: " NF " " $2 " " $3; exit 1 }
    for (i = 4; i <= 8; i++) if ($i !~ /^[0-9]+$/ && $i != "-") { print "codec column " i ": " $i; exit 1 }
    if ($4 !~ /^[1-9][0-9]*$/ || $5 !~ /^[1-9][0-9]*$/ || $8 !~ /^[1-9][0-9]*$/) { print "stored, lz4 or auto missing"; exit 1 }
    if ($9 != 32) { print "gltfpack geometry " $9 ", expected 32"; exit 1 }
    if (lz4 && ($10 !~ /^[1-9][0-9]*$/ || $12 !~ /^[0-9]+\.[0-9][0-9]x$/)) { print "lz4 or ratio: " $10 " " $12; exit 1 }
    if (!lz4 && $10 != "-") { print "lz4 column without lz4: " $10; exit 1 }
}' || fail "bytes row: $row"
grep -q '^skipped points: the packer refuses it: .*points.gltf: .*POINTS' "$out" || fail "no skipped line for points"
# Whole files: the stand-in's .gltf + 48 bytes of .bin, 16 of them an image.
grep -Eq "^${re} +[1-9][0-9]* +[1-9][0-9]* .* [1-9][0-9]* +16$" "$out" || fail "no whole-file row with 16 other bytes"
# Decode: a line per codec, positive GB/s and ratio, decoding to the stored
# pack's bytes; and memcpy's.
for c in stored lz4 auto memcpy; do
    line=$(grep "^${re}  *$c " "$out") || fail "no decode line for $c"
    printf '%s\n' "$line" | awk -v c=$c '{ n = c == "memcpy" ? NF : NF - 1
        if ($(n-1) + 0 <= 0 || $n !~ /^[0-9]+\.[0-9][0-9]x$/ || (c != "memcpy" && $NF != "yes")) exit 1 }' ||
        fail "decode $c: $line"
done
# The stand-in's POSITION bytes are not meshopt's: the anchor's decode says so.
grep -Eq "^${re} +gltfpack: no decode: out\.gltf: bufferViews\[0\]: the [0-9]+ compressed bytes do not decode as [0-9]+ ATTRIBUTES of [0-9]+ bytes \(meshoptimizer: -[0-9]+\)$" \
    "$out" || fail "no line for the stand-in's undecodable view"
# The meshopt codecs: measured, or (a runtime built without SLUICE_CODEC_MESHOPT)
# the reader's refusal in their row.
for c in meshopt meshopt-lz4; do
    grep -q "^${re}  *$c  *1 .* yes$" "$out" || grep -q "^${re} $c: .*codec" "$out" ||
        fail "$c: neither measured nor said to be refused"
done

# --json parses, names the grid as it is, and has the stand-in's figures.
TMPDIR=$dir "$@" bench codec "$model" --quick --json --gltfpack "$dir/gltfpack-known" > "$dir/out.json" 2> "$err" ||
    fail "--json failed: $(cat "$err")"
python3 - "$dir/out.json" "$grid" "$have_lz4" <<'PY' || fail "--json: $(cat "$dir/out.json")"
import json, sys
d = json.load(open(sys.argv[1]))
m = d["models"][0]
assert m["name"] == sys.argv[2], m["name"]
assert m["triangles"] == 512 and m["vertices"] == 289, m
codecs = {c["codec"]: c for c in m["codecs"]}
assert set(codecs) == {"stored", "lz4", "meshopt", "meshopt-lz4", "auto"}, codecs
for c in ("stored", "lz4", "auto"):
    assert codecs[c]["payload_bytes"] > 0 and codecs[c]["decode_gbps"] > 0 and codecs[c]["error"] is None, codecs[c]
    assert codecs[c]["decodes_as_stored"] is True, codecs[c]
a = m["anchors"][0]
assert a["command"] == "gltfpack -cc" and a["geometry_bytes"] == 32 and a["other_bytes"] == 16, a
assert a["triangles"] == 2 and a["includes_morph_targets"] is False, a
assert a["decode_gbps"] is None and a["decoded_bytes"] is None, a
if sys.argv[3] == "1":
    assert a["lz4_bytes"] > 0 and a["auto_vs_anchor"] > 0, a
PY

# Each failure of the anchor, said where its figures would be; the run still exits 0.
anchor_says() {
    prog=$1
    regex=$2
    # shellcheck disable=SC2086 # SLUICE may be an emulator and the binary
    TMPDIR=$dir $sluice bench codec "$model" --quick --gltfpack "$prog" > "$out" 2> "$err"
    got=$?
    [ "$got" -eq 0 ] || fail "--gltfpack $prog: exit code $got, expected 0: $(cat "$err")"
    grep -Eq -- "$regex" "$out" || fail "--gltfpack $prog: no line matching '$regex': $(cat "$out")"
    grep -q "^${re}  *512  *289 .* -  *-  *-  *-  *-$" "$out" || fail "--gltfpack $prog: anchor columns not '-'"
}
sluice=$*
anchor_says "$dir/no-such-gltfpack" "^${re} anchor: .*no-such-gltfpack: not found$"
anchor_says "$dir/gltfpack-fails" "^${re} anchor: .*gltfpack-fails: exit 1: Error loading model: no such thing$"
anchor_says "$dir/gltfpack-notjson" "^${re} anchor: out\\.gltf: not JSON$"
anchor_says "$dir/gltfpack-outside" \
    "^${re} anchor: out\\.gltf: bufferViews\\[0\\]: bytes 8\\.\\.999 outside out\\.bin \\(16 bytes\\)$"
# A view whose count x byteStride is 1.6 GB: counted, not decoded.
# shellcheck disable=SC2086 # SLUICE may be an emulator and the binary
TMPDIR=$dir $sluice bench codec "$model" --quick --gltfpack "$dir/gltfpack-huge" > "$out" 2>&1 || fail "huge view: not exit 0"
grep -Eq "^${re} +[0-9]+ +[0-9]+ .* 16 +([1-9][0-9]*|-) " "$out" || fail "huge view: its 16 bytes not counted: $(cat "$out")"
grep -q "^${re}  *gltfpack: no decode: out\.gltf: bufferViews\[0\]: count x byteStride: 200000000 x 8 = 1600000000 bytes, more than the importer's limit of 1073741824$" "$out" ||
    fail "huge view: its decode not refused: $(cat "$out")"
# shellcheck disable=SC2086
TMPDIR=$dir $sluice bench codec "$model" --quick --gltfpack "$dir/gltfpack-known" --lz4 "$dir/no-such-lz4" \
    > "$out" 2>&1 || fail "--lz4 missing: not exit 0"
grep -q "^${re} anchor: .*no-such-lz4: not found$" "$out" || fail "--lz4 missing: not said: $(cat "$out")"
# shellcheck disable=SC2086
TMPDIR=$dir $sluice bench codec "$model" --quick --gltfpack none > "$out" 2>&1 || fail "--gltfpack none: not exit 0"
grep -q "^anchor: not measured (--gltfpack none)$" "$out" || fail "--gltfpack none: not said"

# SIGTERM while gltfpack runs: the command dies of it and its folder goes
# (the stand-in says it started, then waits to be killed). Not SIGINT: a
# background job of a script starts with SIGINT ignored.
fake gltfpack-waits "echo \$\$ > \"$dir/waits.pid\"; exec sleep 60"
rm -f "$dir/waits.pid"
# shellcheck disable=SC2086
TMPDIR=$dir $sluice bench codec "$model" --quick --gltfpack "$dir/gltfpack-waits" > "$out" 2>&1 &
pid=$!
tries=0
while [ ! -s "$dir/waits.pid" ] && [ "$tries" -lt 600 ]; do sleep 0.1; tries=$((tries + 1)); done
[ -s "$dir/waits.pid" ] || { kill "$pid"; fail "the stand-in gltfpack never started"; }
ls "$dir" | grep -q '^sluice-bench-codec-' || fail "no temporary folder while gltfpack runs"
kill -TERM "$pid"
wait "$pid"
got=$?
kill "$(cat "$dir/waits.pid")" 2> /dev/null
[ "$got" -eq 143 ] || fail "SIGTERM: exit code $got, expected 143 (killed by SIGTERM)"
ls "$dir" | grep -q '^sluice-bench-codec-' && fail "SIGTERM left the temporary folder: $(ls "$dir"/sluice-bench-codec-*)"

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
# shellcheck disable=SC2086
expect 2 "^sluice bench codec: no model: give one or more glTF or GLB files$" $sluice bench codec --quick
# shellcheck disable=SC2086
expect 2 "^sluice bench codec: --reps needs a count in 1\\.\\.1000$" $sluice bench codec "$model" --reps 0
# shellcheck disable=SC2086
expect 2 "^sluice bench codec: unknown option or operand '--frobnicate'$" $sluice bench codec "$model" --frobnicate
# shellcheck disable=SC2086
expect 1 "^sluice bench codec: nothing measured: the packer refused every model$" \
    $sluice bench codec "$dir/points.gltf" "$dir/no-such.gltf" --gltfpack none
grep -q "^skipped no-such: the packer refuses it: .*no-such.gltf" "$out" || fail "no skipped line for a missing file"
ls "$dir" | grep -q '^sluice-bench-codec-' && fail "a refused run left its temporary folder: $(ls "$dir")"

# The real anchor, when this machine has it: numbers in every anchor column
# (over a copy named plainly: gltfpack's loader takes a backslash for a folder).
if command -v gltfpack > /dev/null 2>&1 && [ "$have_lz4" -eq 1 ]; then
    cp "$model" "$dir/grid.gltf" || fail "cp"
    # shellcheck disable=SC2086
    TMPDIR=$dir $sluice bench codec "$dir/grid.gltf" --quick > "$out" 2> "$err" || fail "real gltfpack: $(cat "$err")"
    grep -Eq "^grid  *512  *289 .* [1-9][0-9]*  *[1-9][0-9]*  *[1-9][0-9]*  *[0-9.]+x  *[0-9.]+x$" "$out" ||
        fail "real gltfpack: anchor columns: $(cat "$out")"
    grep -Eq "^grid  *gltfpack  *[1-9][0-9]*  *[0-9.]+  *[0-9.]+x  \(meshoptimizer's decoders over gltfpack -cc's views\)$" \
        "$out" || fail "real gltfpack: no decode line: $(cat "$out")"
fi
echo "bench_codec: ok"
