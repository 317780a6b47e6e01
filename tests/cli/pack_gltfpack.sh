#!/bin/sh
# SPDX-License-Identifier: MIT
# pack_gltfpack.sh CASE WORKDIR MODEL GLTFPACK EMULATOR SAME_GEOMETRY SLUICE...: a real
# model compressed by gltfpack (EXT_meshopt_compression) packs, and its
# decoded geometry is the one gltfpack writes uncompressed. CASE:
#   c    gltfpack -c (no filter) against gltfpack's plain output, both GLBs:
#        the same geometry bit for bit (SAME_GEOMETRY, tests/unit/
#        gltf_same_geometry.c); both pack, verify, with the triangle count
#        SAME_GEOMETRY reported at level 0
#   cc   gltfpack -cc -cf (normals through the octahedral filter) against
#        its own fallback data (the extensions removed from the JSON), the
#        decoded normals of unit length; then the fallback .bin is deleted
#        and the file still packs and verifies (a fallback is never read)
#   khr  the -c file with every EXT_meshopt_compression renamed
#        KHR_meshopt_compression: the same geometry as the plain output
# EMULATOR runs SAME_GEOMETRY in a cross build (qemu); empty when native.
set -u
case=$1
dir=$2/$1
model=$3
gltfpack=$4
emulator=$5
same=$6
shift 6
rm -rf "$dir" && mkdir -p "$dir/c" "$dir/p" || exit 1

fail() {
    echo "pack_gltfpack $case: $*" >&2
    exit 1
}

# gltfpack ARGS...: quiet unless it fails.
gp() {
    "$gltfpack" "$@" > "$dir/gltfpack.log" 2>&1 || fail "gltfpack $*: $(cat "$dir/gltfpack.log")"
}

# packs FILE OUT: sluice pack (one LOD, no textures: the geometry is what
# is checked, and gltfpack names ToyCar's images without copying them),
# then inspect --verify; prints the level-0 triangle count.
pack_verify() {
    in=$1
    out=$2
    shift 2
    "$@" pack --quiet --max-lods 1 --texture-format none "$in" -o "$out" > "$dir/pack.log" 2>&1 ||
        fail "pack $in: $(cat "$dir/pack.log")"
    "$@" inspect "$out" --verify > "$dir/verify.log" 2>&1 || fail "verify $out: $(cat "$dir/verify.log")"
    grep -Eq "verify: [0-9]+ chunks read, checked and decoded; 0 bad" "$dir/verify.log" ||
        fail "verify $out: $(cat "$dir/verify.log")"
    "$@" inspect "$out" --json | sed -n 's/.*"triangles_lod0": \([0-9]*\),.*/\1/p'
}

# same A B [--normals-unit]: SAME_GEOMETRY passes; prints its triangle count.
same() {
    ${emulator:+"$emulator"} "$same" "$@" > "$dir/same.log" 2>&1 || fail "$*: $(cat "$dir/same.log")"
    sed -n 's/^same geometry: [0-9]* meshes, [0-9]* vertices, \([0-9]*\) triangles$/\1/p' "$dir/same.log"
}

gp -i "$model" -o "$dir/p/m.glb"
case $case in
c)
    gp -i "$model" -o "$dir/c/m.glb" -c
    grep -q EXT_meshopt_compression "$dir/c/m.glb" || fail "gltfpack -c wrote no EXT_meshopt_compression"
    tri=$(same "$dir/c/m.glb" "$dir/p/m.glb") || exit 1
    [ -n "$tri" ] && [ "$tri" -gt 0 ] || fail "no triangles: $(cat "$dir/same.log")"
    got=$(pack_verify "$dir/c/m.glb" "$dir/c.pack" "$@") || exit 1
    [ "$got" = "$tri" ] || fail "-c pack: $got triangles at level 0, the model has $tri"
    got=$(pack_verify "$dir/p/m.glb" "$dir/p.pack" "$@") || exit 1
    [ "$got" = "$tri" ] || fail "plain pack: $got triangles at level 0, the model has $tri"
    ;;
cc)
    gp -i "$model" -o "$dir/c/m.gltf" -cc -cf
    [ -f "$dir/c/m.fallback.bin" ] || fail "gltfpack -cf wrote no m.fallback.bin"
    grep -q '"OCTAHEDRAL"' "$dir/c/m.gltf" || fail "gltfpack -cc used no octahedral filter"
    python3 - "$dir/c/m.gltf" "$dir/c/plain.gltf" <<'PY' || fail "cannot strip the extensions"
import json, sys
j = json.load(open(sys.argv[1]))
for x in j["bufferViews"] + j["buffers"]:
    x.get("extensions", {}).pop("EXT_meshopt_compression", None)
j["extensionsUsed"] = [e for e in j.get("extensionsUsed", []) if e != "EXT_meshopt_compression"]
json.dump(j, open(sys.argv[2], "w"))
PY
    tri=$(same "$dir/c/m.gltf" "$dir/c/plain.gltf" --normals-unit) || exit 1
    [ -n "$tri" ] && [ "$tri" -gt 0 ] || fail "no triangles: $(cat "$dir/same.log")"
    rm "$dir/c/m.fallback.bin"
    got=$(pack_verify "$dir/c/m.gltf" "$dir/cc.pack" "$@") || exit 1
    [ "$got" = "$tri" ] || fail "-cc pack: $got triangles at level 0, the model has $tri"
    ;;
khr)
    gp -i "$model" -o "$dir/c/m.gltf" -c
    sed 's/EXT_meshopt_compression/KHR_meshopt_compression/g' "$dir/c/m.gltf" > "$dir/c/khr.gltf" || exit 1
    grep -q EXT_meshopt "$dir/c/khr.gltf" && fail "EXT_meshopt_compression left in khr.gltf"
    grep -q KHR_meshopt_compression "$dir/c/khr.gltf" || fail "no KHR_meshopt_compression in khr.gltf"
    tri=$(same "$dir/c/khr.gltf" "$dir/p/m.glb") || exit 1
    [ -n "$tri" ] && [ "$tri" -gt 0 ] || fail "no triangles: $(cat "$dir/same.log")"
    got=$(pack_verify "$dir/c/khr.gltf" "$dir/khr.pack" "$@") || exit 1
    [ "$got" = "$tri" ] || fail "KHR pack: $got triangles at level 0, the model has $tri"
    ;;
*)
    fail "unknown case"
    ;;
esac
echo "pack_gltfpack $case: ok ($tri triangles)"
