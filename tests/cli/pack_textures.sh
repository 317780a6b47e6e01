#!/bin/sh
# SPDX-License-Identifier: MIT
# pack_textures.sh OUTDIR SLUICE...: a synthetic city with --textures packs
# its facade materials and their colour and normal maps (format 1.3): the
# summary counts them, inspect --verify decodes every tile, inspect lists
# the textures in the format asked for (rgba8 by default, bc3), none packs
# the materials alone; --textures without --synthetic and an unknown
# --texture-format are usage errors naming the choices.
set -u
out=$1
shift
mkdir -p "$out" || exit 1
fail() { echo "pack_textures: $*" >&2; exit 1; }

sum=$("$@" pack --synthetic city --size 1M --seed 11 --textures -o "$out/tex.pack") || fail "pack failed: $sum"
printf '%s\n' "$sum" | grep -Eq "^  materials    [1-9][0-9]*; textures [1-9][0-9]* \(for [0-9]+ slots\), rgba8, " ||
    fail "no materials line in: $sum"
info=$("$@" inspect --verify "$out/tex.pack") || fail "inspect --verify failed: $info"
printf '%s\n' "$info" | grep -q "format 1.3" || fail "not format 1.3: $(printf '%s\n' "$info" | head -1)"
printf '%s\n' "$info" | grep -q "; 0 bad$" || fail "bad chunks: $info"
printf '%s\n' "$info" | grep -Eq "^  0 +facade 0 colour +[0-9]+x[0-9]+ rgba8 +color " || fail "no texture row: $info"
printf '%s\n' "$info" | grep -Eq "^  0 facade 0: opaque, base colour \(1, 1, 1, 1\), metallic 0, roughness 0.85; textures base_color=0 normal=1$" ||
    fail "no material row: $info"

"$@" pack --synthetic city --size 1M --seed 11 --textures --texture-format bc3 --quiet -o "$out/bc3.pack" ||
    fail "bc3 pack failed"
json=$("$@" inspect --json --verify "$out/bc3.pack") || fail "bc3 inspect failed"
printf '%s\n' "$json" | grep -q '"format": "bc3", "kind": "color"' || fail "bc3: no bc3 colour texture in: $json"
printf '%s\n' "$json" | grep -q '"format": "bc3", "kind": "normal"' || fail "bc3: no bc3 normal map in: $json"
printf '%s\n' "$json" | grep -q '"bad_chunks": 0' || fail "bc3: bad chunks"

sum=$("$@" pack --synthetic city --size 1M --seed 11 --textures --texture-format none -o "$out/none.pack") ||
    fail "none pack failed"
printf '%s\n' "$sum" | grep -Eq "^  materials    [1-9][0-9]*; textures not packed \(--texture-format none\)$" ||
    fail "none: $sum"

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
