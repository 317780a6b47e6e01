#!/bin/sh
# SPDX-License-Identifier: MIT
# pack_textures.sh OUTDIR SLUICE...: a synthetic city with --textures packs
# its facade materials and their colour and normal maps (format 1.3): the
# summary counts them, gives the decode and encode times and a row per
# texture (index, size, kind, format, level-0 PSNR, times, name; the same
# for any --jobs but the times; past 16 textures the 8 of lowest PSNR and a
# line for the rest; a glTF's image names made printable), inspect --verify
# decodes every tile, inspect lists the textures in the format asked for
# (rgba8 by default, bc3), --quiet prints nothing, none packs the materials
# alone; --textures without --synthetic and an unknown --texture-format are
# usage errors naming the choices.
set -u
out=$1
shift
mkdir -p "$out" || exit 1
fail() { echo "pack_textures: $*" >&2; exit 1; }

sum=$("$@" pack --synthetic city --size 1M --seed 11 --textures -o "$out/tex.pack") || fail "pack failed: $sum"
printf '%s\n' "$sum" | grep -Eq "^  materials    [1-9][0-9]*; textures [1-9][0-9]* \(for [0-9]+ slots\), rgba8, " ||
    fail "no materials line in: $sum"
# The summary's rows without their times: spaces squeezed, "N.NN s" as T.
rows() { printf '%s\n' "$1" | grep -E "^    [0-9]+ +[0-9]+x[0-9]+ " | sed -E 's/ +/ /g; s/[0-9]+\.[0-9]{2} s/T/g'; }
printf '%s\n' "$sum" | grep -Eq "^  textures     decode [0-9]+\.[0-9]{2} s, encode [0-9]+\.[0-9]{2} s; level-0 PSNR against the decoded image:$" ||
    fail "no texture times line in: $sum"
printf '%s\n' "$sum" | grep -Eq "^    index +size +kind +format +PSNR +decode +encode +source$" || fail "no texture header in: $sum"
want=" 0 256x256 colour rgba8 exact T T facade 0 colour
 1 256x256 normal rgba8 exact T T facade 0 normal
 2 512x512 colour rgba8 exact T T facade 1 colour
 3 512x512 normal rgba8 exact T T facade 1 normal"
[ "$(rows "$sum")" = "$want" ] || fail "texture rows: got
$(rows "$sum")
want
$want"
# bc1: a PSNR in dB per texture, the rows the same for --jobs 1 and 3.
bc1=$("$@" pack --synthetic city --size 1M --seed 11 --textures --texture-format bc1 --jobs 1 -o "$out/bc1.pack") ||
    fail "bc1 pack failed: $bc1"
bc1_3=$("$@" pack --synthetic city --size 1M --seed 11 --textures --texture-format bc1 --jobs 3 -o "$out/bc1.pack") ||
    fail "bc1 --jobs 3 pack failed: $bc1_3"
[ "$(rows "$bc1" | sed -E 's/ [0-9]+\.[0-9]{2} dB / P /')" = "$(printf '%s\n' "$want" | sed 's/rgba8 exact/bc1 P/')" ] ||
    fail "bc1 rows: $(rows "$bc1")"
[ "$(rows "$bc1")" = "$(rows "$bc1_3")" ] || fail "bc1 rows differ for --jobs 1 and 3: $(rows "$bc1") / $(rows "$bc1_3")"

# 18 textures: the 8 of lowest PSNR, by PSNR then index, and one line for
# the 10 others with the PSNR's min (the first row's), median and max.
many=$("$@" pack --synthetic city --size 6M --seed 26 --textures --texture-format bc1 --texture-quality fast \
    -o "$out/many.pack") || fail "18-texture pack failed: $many"
printf '%s\n' "$many" | grep -Eq "^  materials    [0-9]+; textures 18 \(" || fail "not 18 textures: $many"
printf '%s\n' "$many" | grep -Eq "^  textures     decode [0-9.]+ s, encode [0-9.]+ s; the 8 of 18 with the lowest level-0 PSNR against the decoded image:$" ||
    fail "no 8-of-18 line in: $many"
[ "$(rows "$many" | grep -Ec '^ [0-9]+ [0-9]+x[0-9]+ (colour|normal) bc1 [0-9]+\.[0-9]{2} dB T T facade [0-9]+ (colour|normal)$')" -eq 8 ] ||
    fail "not 8 texture rows: $(rows "$many")"
[ "$(rows "$many" | wc -l)" -eq 8 ] || fail "rows besides the 8: $(rows "$many")"
rows "$many" | awk '{ if (NR > 1 && ($5 < p || ($5 == p && $1 <= i))) bad = 1; p = $5; i = $1 } END { exit bad }' ||
    fail "rows not by PSNR, then index: $(rows "$many")"
last=$(printf '%s\n' "$many" | grep -E "^    10 more; level-0 PSNR of all 18: min [0-9]+\.[0-9]{2} dB, median [0-9]+\.[0-9]{2} dB, max [0-9]+\.[0-9]{2} dB$") ||
    fail "no line for the others in: $many"
printf '%s\n' "$last" | awk -v first="$(rows "$many" | awk 'NR == 1 { print $5 }')" -v eighth="$(rows "$many" | awk 'NR == 8 { print $5 }')" \
    '{ min = $9; med = $12; max = $15; exit !(min == first && med >= eighth && max >= med) }' ||
    fail "min, median, max do not fit the rows: $last / $(rows "$many")"

# A glTF's images by their names: a control byte as '?', UTF-8, quotes and
# backslashes as they are, an unnamed data URI as images[N].
python3 - "$out/names.gltf" <<'PY' || fail "cannot write the glTF"
import base64, json, struct, sys, zlib
def png(seed):
    raw = b"".join(b"\0" + bytes((x * 30 + seed, y * 30, seed * 2, 255)[c] for x in range(8) for c in range(4))
                   for y in range(8))
    def chunk(t, d):
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xFFFFFFFF)
    data = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 8, 8, 8, 6, 0, 0, 0))
    data += chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")
    return "data:image/png;base64," + base64.b64encode(data).decode()
quad = struct.pack("<12f", 0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0) + struct.pack("<8f", 0, 0, 1, 0, 1, 1, 0, 1)
quad += struct.pack("<6H", 0, 1, 2, 0, 2, 3)
gltf = {"asset": {"version": "2.0"},
        "buffers": [{"uri": "data:application/octet-stream;base64," + base64.b64encode(quad).decode(),
                     "byteLength": len(quad)}],
        "bufferViews": [{"buffer": 0, "byteLength": 48}, {"buffer": 0, "byteOffset": 48, "byteLength": 32},
                        {"buffer": 0, "byteOffset": 80, "byteLength": 12}],
        "accessors": [{"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3",
                       "min": [0, 0, 0], "max": [1, 1, 0]},
                      {"bufferView": 1, "componentType": 5126, "count": 4, "type": "VEC2"},
                      {"bufferView": 2, "componentType": 5123, "count": 6, "type": "SCALAR"}],
        "images": [{"uri": png(1), "name": "tab\tname"}, {"uri": png(2)},
                   {"uri": png(3), "name": "brique \u00e9 \\ 'x'.png"}],
        "textures": [{"source": 0}, {"source": 1}, {"source": 2}],
        "materials": [{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0},
                                                "metallicRoughnessTexture": {"index": 2}},
                       "normalTexture": {"index": 1}}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "TEXCOORD_0": 1}, "indices": 2, "material": 0}]}],
        "nodes": [{"mesh": 0}], "scenes": [{"nodes": [0]}]}
open(sys.argv[1], "w").write(json.dumps(gltf))
PY
names=$("$@" pack "$out/names.gltf" -o "$out/names.pack") || fail "names pack failed: $names"
want=" 0 8x8 colour rgba8 exact T T tab?name
 1 8x8 data rgba8 exact T T brique \303\251 \\\\ 'x'.png
 2 8x8 normal rgba8 exact T T images[1]"
want=$(printf "$want")
[ "$(rows "$names")" = "$want" ] || fail "glTF texture rows: got
$(rows "$names")
want
$want"

info=$("$@" inspect --verify "$out/tex.pack") || fail "inspect --verify failed: $info"
printf '%s\n' "$info" | grep -q "format 1.3" || fail "not format 1.3: $(printf '%s\n' "$info" | head -1)"
printf '%s\n' "$info" | grep -q "; 0 bad$" || fail "bad chunks: $info"
printf '%s\n' "$info" | grep -Eq "^  0 +facade 0 colour +[0-9]+x[0-9]+ rgba8 +color " || fail "no texture row: $info"
printf '%s\n' "$info" | grep -Eq "^  0 facade 0: opaque, base colour \(1, 1, 1, 1\), metallic 0, roughness 0.85; textures base_color=0 normal=1$" ||
    fail "no material row: $info"

quiet=$("$@" pack --synthetic city --size 1M --seed 11 --textures --texture-format bc3 --quiet -o "$out/bc3.pack") ||
    fail "bc3 pack failed"
[ -z "$quiet" ] || fail "--quiet printed: $quiet"
json=$("$@" inspect --json --verify "$out/bc3.pack") || fail "bc3 inspect failed"
printf '%s\n' "$json" | grep -q '"format": "bc3", "kind": "color"' || fail "bc3: no bc3 colour texture in: $json"
printf '%s\n' "$json" | grep -q '"format": "bc3", "kind": "normal"' || fail "bc3: no bc3 normal map in: $json"
printf '%s\n' "$json" | grep -q '"bad_chunks": 0' || fail "bc3: bad chunks"

sum=$("$@" pack --synthetic city --size 1M --seed 11 --textures --texture-format none -o "$out/none.pack") ||
    fail "none pack failed"
printf '%s\n' "$sum" | grep -Eq "^  materials    [1-9][0-9]*; textures not packed \(--texture-format none\)$" ||
    fail "none: $sum"
! printf '%s\n' "$sum" | grep -Eq "^  textures |^    [0-9]+ " || fail "none: texture lines in: $sum"

msg=$("$@" pack x.gltf --textures -o "$out/x.pack" 2>&1)
[ $? -eq 2 ] || fail "--textures without --synthetic: not a usage error: $msg"
printf '%s\n' "$msg" | grep -q "sluice pack: --size, --seed and --textures go with --synthetic" ||
    fail "--textures without --synthetic: $msg"
msg=$("$@" pack --synthetic city --texture-format etc2 -o "$out/x.pack" 2>&1)
[ $? -eq 2 ] || fail "--texture-format etc2: not a usage error: $msg"
printf '%s\n' "$msg" | grep -q "etc2': expected rgba8, bc1, bc3, astc4x4, astc6x6, astc8x8 or none" ||
    fail "--texture-format etc2: $msg"
[ ! -e "$out/x.pack" ] || fail "a refused command wrote its output"
echo "pack_textures: ok"
