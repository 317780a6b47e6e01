#!/bin/sh
# SPDX-License-Identifier: MIT
# pack_inputs.sh CASE WORKDIR SLUICE...: `sluice pack` against its inputs.
# Writes a one-triangle scene into WORKDIR/CASE (tri.gltf reading tri.bin,
# and tri.glb), then runs CASE:
#   glb_as_output     pack tri.glb -o tri.glb
#   gltf_as_output    pack tri.gltf -o tri.gltf
#   bin_as_output     pack tri.gltf -o tri.bin (the buffer the glTF reads)
#   second_input_bin  pack tri.glb tri.gltf -o tri.bin (the second input's buffer)
#   image_as_output   pack img.gltf -o tex.png (an image the glTF names, though
#                     the packer does not read images yet), and -o a hard link
#                     of it; the data: URI image names no file
#   hard_link_output  pack tri.gltf -o a hard link of tri.bin
#   symlink_output    pack tri.glb -o a symbolic link to tri.glb
#   distinct_output   pack tri.gltf -o tri.pack, which verifies (the control)
#   help              pack --help prints its usage and exits 0
#   outside_path      a uri '../tri.bin' within the asset root (the current
#                     directory) packs; refused outside it (--asset-root sub,
#                     or run from sub), and with --allow-outside-paths packs;
#                     an absolute uri and a bad --asset-root are refused
#   nothing_left      --skip-unsupported over points only: "nothing left to pack",
#                     an existing output untouched, a new one never created; the
#                     same for a glTF without meshes and one without vertices
#   index_4294967295  bufferViews[0].buffer 4294967295 is refused naming its path
# Each refusal must exit with its code, name the files, and leave every
# input (and an existing output) byte for byte as it was, with no temporary
# left in the folder.
set -u
case=$1
dir=$2/$1
shift 2
run_expect=$(cd "$(dirname "$0")" && pwd)/run_expect.sh
rm -rf "$dir" && mkdir -p "$dir/sub" || exit 1
cd "$dir" || exit 1

fail() {
    echo "pack_inputs $case: $*" >&2
    exit 1
}

# A little-endian 32-bit integer.
le32() {
    printf "$(printf '\\%03o\\%03o\\%03o\\%03o' $(($1 & 255)) $(($1 >> 8 & 255)) $(($1 >> 16 & 255)) $(($1 >> 24 & 255)))"
}

# tri.bin: the positions (0,0,0) (1,0,0) (0,1,0) as floats.
z='\000\000\000\000'
one='\000\000\200\077'
printf "$z$z$z$one$z$z$z$one$z" >tri.bin
views='"bufferViews":[{"buffer":0,"byteLength":36}]'
rest='"accessors":[{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3"}],'\
'"meshes":[{"name":"tri","primitives":[{"attributes":{"POSITION":0}MODE}]}],"nodes":[{"mesh":0}]}'
tri_gltf() { # URI MODE VIEWS
    printf '{"asset":{"version":"2.0"},"buffers":[{"uri":"%s","byteLength":36}],%s,%s' "$1" "$3" \
        "$(printf '%s' "$rest" | sed "s/MODE/$2/")"
}
tri_gltf tri.bin "" "$views" >tri.gltf
# tri.glb: the same JSON without a uri, padded with spaces, then tri.bin.
json=$(printf '{"asset":{"version":"2.0"},"buffers":[{"byteLength":36}],%s,%s' "$views" \
       "$(printf '%s' "$rest" | sed 's/MODE//')")
while [ $((${#json} % 4)) -ne 0 ]; do json="$json "; done
{
    printf 'glTF'; le32 2; le32 $((12 + 8 + ${#json} + 8 + 36))
    le32 ${#json}; printf 'JSON'; printf '%s' "$json"
    le32 36; printf 'BIN\000'; cat tri.bin
} >tri.glb
for f in tri.bin tri.gltf tri.glb; do cp "$f" "$f.orig" || exit 1; done

# expect CODE REGEX ARGS...: sluice exits with CODE, its output matches REGEX.
expect() {
    "$run_expect" "$@" || fail "$*"
}

# The inputs are as they were, and no temporary is left behind.
inputs_intact() {
    for f in tri.bin tri.gltf tri.glb; do
        cmp "$f" "$f.orig" || fail "$f changed"
    done
    leftover=$(find . -name '.*' ! -name .)
    [ -z "$leftover" ] || fail "left behind: $leftover"
}

case $case in
glb_as_output)
    expect 2 "output '$dir/tri.glb' is an input \('$dir/tri.glb'\); nothing written" \
        "$@" pack "$dir/tri.glb" -o "$dir/tri.glb"
    ;;
gltf_as_output)
    expect 2 "output 'tri.gltf' is an input \('tri.gltf'\)" "$@" pack tri.gltf -o tri.gltf
    ;;
bin_as_output)
    expect 2 "output 'tri.bin' is an input \(buffer 0 'tri.bin' of 'tri.gltf'\); nothing written" \
        "$@" pack tri.gltf -o tri.bin
    ;;
second_input_bin)
    expect 2 "output 'tri.bin' is an input \(buffer 0 'tri.bin' of 'tri.gltf'\)" \
        "$@" pack tri.glb tri.gltf -o tri.bin
    ;;
image_as_output)
    printf 'not really a png' >tex.png && cp tex.png tex.png.orig || exit 1
    tri_gltf tri.bin "" "$views" | sed 's/"nodes":/"images":[{"uri":"data:image\/png;base64,AAAA"},{"uri":"tex.png"}],"nodes":/' >img.gltf
    expect 2 "output 'tex.png' is an input \(image 1 'tex.png' of 'img.gltf'\); nothing written" \
        "$@" pack img.gltf -o tex.png
    ln tex.png hard.png || exit 1
    expect 2 "output 'hard.png' is an input \(image 1 'tex.png' of 'img.gltf'\)" "$@" pack img.gltf -o hard.png
    cmp tex.png tex.png.orig || fail "tex.png changed"
    expect 0 "img.pack: 1 objects" "$@" pack img.gltf -o img.pack
    ;;
hard_link_output)
    ln tri.bin hard.bin || exit 1
    expect 2 "output 'hard.bin' is an input \(buffer 0 'tri.bin' of 'tri.gltf'\)" "$@" pack tri.gltf -o hard.bin
    cmp hard.bin tri.bin.orig || fail "hard.bin changed"
    ;;
symlink_output)
    ln -s tri.glb link.pack || exit 1
    expect 2 "output 'link.pack' is an input \('tri.glb'\)" "$@" pack tri.glb -o link.pack
    [ -L link.pack ] || fail "link.pack is no longer a symbolic link"
    ;;
distinct_output)
    expect 0 "tri.pack: 1 objects from 1 meshes" "$@" pack tri.gltf -o tri.pack
    expect 0 "0 bad" "$@" inspect tri.pack --verify
    ;;
help)
    expect 0 "usage: sluice pack" "$@" pack --help
    expect 0 "--allow-outside-paths" "$@" pack --help
    ;;
outside_path)
    tri_gltf ../tri.bin "" "$views" >sub/up.gltf
    here=$(pwd -P)
    # The asset root is the current directory, which holds sub/up.gltf: its
    # '../tri.bin' is within it.
    expect 0 "up.pack: 1 objects" "$@" pack sub/up.gltf -o up.pack
    rm -f up.pack
    # Narrowed to sub: refused, naming the file, the root and the options.
    expect 1 "sub/up.gltf: buffers\[0\].uri '\.\./tri.bin': 'sub/\.\./tri.bin' is outside the asset root $here/sub \(--asset-root DIR widens it; --allow-outside-paths reads any path\)" \
        "$@" pack --asset-root sub sub/up.gltf -o up.pack
    [ ! -e up.pack ] || fail "up.pack was written"
    # From sub itself (the root is then the glTF's folder), and with
    # --asset-root .. from there.
    (cd sub && "$run_expect" 1 "up.gltf: buffers\[0\].uri '\.\./tri.bin': '\.\./tri.bin' is outside the asset root $here/sub " \
        "$@" pack up.gltf -o ../up.pack) || fail "from sub: not refused"
    (cd sub && "$run_expect" 0 "up.pack: 1 objects" "$@" pack --asset-root .. up.gltf -o ../up.pack) ||
        fail "from sub with --asset-root ..: not packed"
    rm -f up.pack
    expect 0 "up.pack: 1 objects" "$@" pack --allow-outside-paths --asset-root sub sub/up.gltf -o up.pack
    rm -f up.pack
    # An absolute uri is refused whatever the root; a root that is no folder too.
    tri_gltf "$here/tri.bin" "" "$views" >sub/abs.gltf
    expect 1 "buffers\[0\].uri '$here/tri.bin': '$here/tri.bin' is an absolute path \(--allow-outside-paths reads it\)" \
        "$@" pack --asset-root / sub/abs.gltf -o up.pack
    expect 1 "sluice: --asset-root tri.bin: not a folder" "$@" pack --asset-root tri.bin sub/up.gltf -o up.pack
    expect 1 "sluice: --asset-root nowhere: No such file or directory" "$@" pack --asset-root nowhere sub/up.gltf -o up.pack
    [ ! -e up.pack ] || fail "up.pack was written"
    rm -f sub/up.gltf sub/abs.gltf
    ;;
nothing_left)
    tri_gltf tri.bin ',"mode":0' "$views" >points.gltf
    cp tri.glb old.pack || exit 1
    expect 1 "nothing left to pack: every primitive of the input was skipped as unsupported; nothing written" \
        "$@" pack --skip-unsupported points.gltf -o old.pack
    cmp old.pack tri.glb.orig || fail "old.pack changed"
    expect 1 "nothing left to pack: every primitive of the inputs was skipped" \
        "$@" pack --skip-unsupported points.gltf points.gltf -o new.pack
    [ ! -e new.pack ] || fail "new.pack was created"
    # No mesh at all, and a mesh whose only primitive has no vertex.
    printf '{"asset":{"version":"2.0"},"meshes":[]}' >empty.gltf
    expect 1 "nothing left to pack: no mesh primitive in the input; nothing written" "$@" pack empty.gltf -o new.pack
    [ ! -e new.pack ] || fail "new.pack was created"
    tri_gltf tri.bin "" "$views" | sed 's/"count":3/"count":0/' >none.gltf
    expect 1 "nothing left to pack: no mesh of the input has a triangle; nothing written" \
        "$@" pack none.gltf -o new.pack
    [ ! -e new.pack ] || fail "new.pack was created"
    rm -f points.gltf empty.gltf none.gltf
    ;;
index_4294967295)
    tri_gltf tri.bin "" '"bufferViews":[{"buffer":4294967295,"byteLength":36}]' >bad.gltf
    expect 1 "bad.gltf: bufferViews\[0\].buffer: index 4294967295 out of range \(1 buffer\)" \
        "$@" pack bad.gltf -o bad.pack
    [ ! -e bad.pack ] || fail "bad.pack was created"
    rm -f bad.gltf
    ;;
*)
    fail "unknown case"
    ;;
esac
inputs_intact
echo "pack_inputs $case: ok"
