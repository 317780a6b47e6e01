#!/bin/sh
# SPDX-License-Identifier: MIT
# pack_usd.sh CASE WORKDIR SLUICE...: `sluice pack` of USD inputs. Writes a
# small stage into WORKDIR/CASE (root.usda placing two instances of a quad
# from asset.usda, and tri.gltf, one glTF triangle), then runs CASE:
#   packs            pack root.usda: its summary, its phases, and it verifies
#   mixed            pack root.usda tri.gltf: one pack of both
#   layer_as_output  pack root.usda -o asset.usda (a layer it reads) is refused
#   image_as_output  pack tex.usda -o tex.png (a texture its bound material
#                    reads, though no valid PNG) is refused, tex.png unchanged
#   missing_layer    a reference to a missing layer: refused naming layer and
#                    prim; with --skip-unsupported a warning and the rest packs
#   unsupported      a Points prim: refused naming it; skipped with the option,
#                    warned once; a stage of Points only: nothing left to pack
#   shapes           every implicit shape under a transformed Xform packs and
#                    verifies; a bad radius is refused naming prim, attribute
#                    and value, or skipped with a warning under the option
#   outside          a layer above the root layer's folder: composed within
#                    the asset root (the current directory), refused outside it
#                    (--asset-root in) unless --allow-outside-paths; an absolute
#                    asset path refused
#   bad_layer        a malformed .usda: refused, exit 1, no output
#   placements       a chain of layers each placing the next twice: 2^16
#                    placements pack as one object (its two composed Mesh
#                    prims identical), 65536 instances; 2^24 refused at once
#                    by the default limit, naming the count, and 2^16 by
#                    --max-placements 65535; --max-placements 0 refused
# Each refusal exits with its code, names what failed, leaves every input
# byte for byte as it was and writes no output.
set -u
case=$1
dir=$2/$1
shift 2
run_expect=$(cd "$(dirname "$0")" && pwd)/run_expect.sh
rm -rf "$dir" && mkdir -p "$dir/in" || exit 1
cd "$dir" || exit 1

fail() {
    echo "pack_usd $case: $*" >&2
    exit 1
}

expect() {
    "$run_expect" "$@" || fail "$*"
}

cat >asset.usda <<'USD'
#usda 1.0
(
    defaultPrim = "Quad"
)
def Xform "Quad"
{
    def Mesh "Geo"
    {
        int[] faceVertexCounts = [4]
        int[] faceVertexIndices = [0, 1, 2, 3]
        point3f[] points = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0)]
    }
}
USD
cat >root.usda <<'USD'
#usda 1.0
(
    metersPerUnit = 1
    upAxis = "Z"
)
def Xform "A" (
    instanceable = true
    references = @asset.usda@
)
{
}
def Xform "B" (
    instanceable = true
    references = @./asset.usda@
)
{
    double3 xformOp:translate = (5, 0, 0)
    uniform token[] xformOpOrder = ["xformOp:translate"]
}
USD
printf '{"asset":{"version":"2.0"},"buffers":[{"uri":"data:application/octet-stream;base64,AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAA","byteLength":36}],"bufferViews":[{"buffer":0,"byteLength":36}],"accessors":[{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3"}],"meshes":[{"primitives":[{"attributes":{"POSITION":0}}]}],"nodes":[{"mesh":0}]}' >tri.gltf
for f in asset.usda root.usda tri.gltf; do cp "$f" "$f.orig" || exit 1; done

inputs_intact() {
    for f in asset.usda root.usda tri.gltf; do
        cmp "$f" "$f.orig" || fail "$f changed"
    done
    leftover=$(find . -name '.*' ! -name .)
    [ -z "$leftover" ] || fail "left behind: $leftover"
}

case $case in
packs)
    expect 0 "root.usda: 2 layers \([0-9.]+ [KMG]?i?B\), 3 prims, 1 meshes, 2 placements, 1 prototypes reused 1 times" \
        "$@" pack root.usda -o out.pack
    expect 0 "usd phases   open [0-9.]+ s \(peak [0-9.]+ [KMG]iB\), compose [0-9.]+ s" "$@" pack root.usda -o out.pack
    expect 0 "out.pack: 1 objects from 1 meshes \(0 identical to an earlier one\), 2 instances" \
        "$@" pack root.usda -o out.pack
    expect 0 "0 bad" "$@" inspect out.pack --verify
    ;;
mixed)
    expect 0 "out.pack: 2 objects from 2 meshes \(0 identical to an earlier one\), 3 instances" \
        "$@" pack root.usda tri.gltf -o out.pack
    expect 0 "out.pack: 2 objects from 2 meshes" "$@" pack tri.gltf root.usda -o out.pack
    expect 0 "0 bad" "$@" inspect out.pack --verify
    ;;
layer_as_output)
    expect 2 "output 'asset.usda' is an input \(layer '.*asset.usda' of 'root.usda'\); nothing written" \
        "$@" pack root.usda -o asset.usda
    expect 2 "output 'root.usda' is an input \('root.usda'\); nothing written" "$@" pack root.usda -o root.usda
    ;;
image_as_output)
    printf 'not really a png' >tex.png && cp tex.png tex.png.orig || exit 1
    cat >tex.usda <<'USD'
#usda 1.0
def Material "M"
{
    token outputs:surface.connect = </M/S.outputs:surface>
    def Shader "S"
    {
        uniform token info:id = "UsdPreviewSurface"
        color3f inputs:diffuseColor.connect = </M/T.outputs:rgb>
        token outputs:surface
    }
    def Shader "T"
    {
        uniform token info:id = "UsdUVTexture"
        asset inputs:file = @./tex.png@
        float2 inputs:st.connect = </M/R.outputs:result>
        float3 outputs:rgb
    }
    def Shader "R"
    {
        uniform token info:id = "UsdPrimvarReader_float2"
        string inputs:varname = "st"
        float2 outputs:result
    }
}
def Mesh "Quad"
{
    rel material:binding = </M>
    int[] faceVertexCounts = [4]
    int[] faceVertexIndices = [0, 1, 2, 3]
    point3f[] points = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0)]
    texCoord2f[] primvars:st = [(0, 0), (1, 0), (1, 1), (0, 1)] (interpolation = "vertex")
}
USD
    expect 2 "output 'tex.png' is an input \(texture '.*tex.png' of 'tex.usda'\); nothing written" \
        "$@" pack tex.usda -o tex.png
    cmp tex.png tex.png.orig || fail "tex.png changed"
    ;;
missing_layer)
    printf '#usda 1.0\n(\n    metersPerUnit = 1\n)\ndef "M" (\n    references = @gone.usda@\n)\n{\n}\ndef "Q" (\n    references = @asset.usda@\n)\n{\n}\n' >in/miss.usda
    cp asset.usda in/asset.usda || exit 1
    expect 1 "in/miss.usda: </M>: reference @gone.usda@: cannot open layer 'in/gone.usda': No such file or directory" \
        "$@" pack in/miss.usda -o miss.pack
    [ ! -e miss.pack ] || fail "miss.pack was written"
    expect 0 "warning: in/miss.usda: </M>: reference @gone.usda@: cannot open layer .*; arc skipped" \
        "$@" pack --skip-unsupported in/miss.usda -o miss.pack
    expect 0 "0 bad" "$@" inspect miss.pack --verify
    ;;
unsupported)
    printf '#usda 1.0\ndef Points "C"\n{\n}\ndef "Q" (\n    references = @asset.usda@\n)\n{\n}\n' >points.usda
    expect 1 "points.usda: </C>: Points prims are not supported \(--skip-unsupported skips them\)" \
        "$@" pack points.usda -o points.pack
    [ ! -e points.pack ] || fail "points.pack was written"
    expect 0 "warning: points.usda: </C>: Points prims are not supported; skipped" \
        "$@" pack --skip-unsupported points.usda -o points.pack
    # The warning is given once, though the stage is composed twice (checked, then packed).
    n=$("$@" pack --skip-unsupported points.usda -o points.pack 2>&1 | grep -c "Points prims are not supported")
    [ "$n" -eq 1 ] || fail "the Points warning came $n times"
    printf '#usda 1.0\ndef Points "C"\n{\n}\n' >only.usda
    expect 1 "nothing left to pack" "$@" pack --skip-unsupported only.usda -o only.pack
    [ ! -e only.pack ] || fail "only.pack was written"
    ;;
shapes)
    cat >shapes.usda <<'USD'
#usda 1.0
(
    metersPerUnit = 1
    upAxis = "Y"
)
def Xform "W"
{
    double3 xformOp:translate = (10, 0, 0)
    float3 xformOp:scale = (2, 2, 2)
    uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:scale"]
    def Cube "Cube" { double size = 1 }
    def Sphere "Sphere" { double radius = 2 }
    def Cylinder "Cylinder" { uniform token axis = "X" }
    def Cylinder_1 "Cylinder_1" { double radiusTop = 0.5 }
    def Cone "Cone" { uniform token axis = "Y" }
    def Capsule "Capsule" { }
    def Capsule_1 "Capsule_1" { double radiusBottom = 0.25 }
    def Plane "Plane" { }
}
USD
    expect 0 "shapes.usda: 1 layers \([0-9.]+ [KMG]?i?B\), 9 prims, 8 meshes, 8 placements" \
        "$@" pack shapes.usda -o shapes.pack
    expect 0 "shapes.pack: 8 objects from 8 meshes \(0 identical to an earlier one\), 8 instances" \
        "$@" pack shapes.usda -o shapes.pack
    expect 0 "0 bad" "$@" inspect shapes.pack --verify
    printf '#usda 1.0\ndef Sphere "S"\n{\n    double radius = -1\n}\ndef "Q" (\n    references = @asset.usda@\n)\n{\n}\n' >bad.usda
    expect 1 "bad.usda: </S>: radius: -1 makes no shape \(a finite number above 0 is needed\)" \
        "$@" pack bad.usda -o bad.pack
    [ ! -e bad.pack ] || fail "bad.pack was written"
    expect 0 "warning: bad.usda: </S>: radius: -1 makes no shape .*; skipped" \
        "$@" pack --skip-unsupported bad.usda -o bad.pack
    expect 0 "bad.pack: 1 objects" "$@" pack --skip-unsupported bad.usda -o bad.pack
    ;;
outside)
    printf '#usda 1.0\ndef "Q" (\n    references = @../asset.usda@\n)\n{\n}\n' >in/up.usda
    here=$(pwd -P)
    # Within the asset root (the current directory): composed.
    expect 0 "up.pack: 1 objects" "$@" pack in/up.usda -o up.pack
    rm -f up.pack
    expect 1 "in/up.usda: </Q>: reference @../asset.usda@: layer 'asset.usda' is outside the asset root $here/in \(--asset-root DIR widens it; --allow-outside-paths reads any path\)" \
        "$@" pack --asset-root in in/up.usda -o up.pack
    [ ! -e up.pack ] || fail "up.pack was written"
    expect 0 "up.pack: 1 objects" "$@" pack --allow-outside-paths --asset-root in in/up.usda -o up.pack
    rm -f up.pack
    printf '#usda 1.0\ndef "Q" (\n    references = @%s/asset.usda@\n)\n{\n}\n' "$here" >in/abs.usda
    expect 1 "reference @$here/asset.usda@: layer '$here/asset.usda' is an absolute path \(--allow-outside-paths reads it\)" \
        "$@" pack in/abs.usda -o up.pack
    [ ! -e up.pack ] || fail "up.pack was written"
    ;;
placements)
    # chain N: l0.usda .. lN.usda, each R placing the next as A and, moved
    # by 2^k, as B; lN a triangle.
    chain() {
        mkdir -p "chain$1" && k=0
        while [ "$k" -lt "$1" ]; do
            printf '#usda 1.0\n(\n    defaultPrim = "R"\n    metersPerUnit = 1\n)\ndef Xform "R"\n{\n    def "A" (\n        references = @./l%d.usda@\n    )\n    {\n    }\n    def "B" (\n        references = @./l%d.usda@\n    )\n    {\n        double3 xformOp:translate = (%d, 0, 0)\n        uniform token[] xformOpOrder = ["xformOp:translate"]\n    }\n}\n' \
                $((k + 1)) $((k + 1)) $((1 << k)) >"chain$1/l$k.usda"
            k=$((k + 1))
        done
        printf '#usda 1.0\n(\n    defaultPrim = "R"\n)\ndef Mesh "R"\n{\n    point3f[] points = [(0, 0, 0), (1, 0, 0), (0, 1, 0)]\n    int[] faceVertexCounts = [3]\n    int[] faceVertexIndices = [0, 1, 2]\n}\n' >"chain$1/l$1.usda"
    }
    chain 16
    expect 0 "chain16.pack: 1 objects from 2 meshes \(1 identical to an earlier one\), 65536 instances" \
        "$@" pack chain16/l0.usda -o chain16.pack
    expect 0 "0 bad" "$@" inspect chain16.pack --verify
    expect 1 "l0.usda: 65536 placements, more than the limit of 65535 \(--max-placements N raises it\)" \
        "$@" pack chain16/l0.usda --max-placements 65535 -o refused.pack
    [ ! -e refused.pack ] || fail "refused.pack was written"
    chain 24
    expect 1 "l0.usda: 16777216 placements, more than the limit of 4194304 \(--max-placements N raises it\)" \
        "$@" pack chain24/l0.usda -o refused.pack
    [ ! -e refused.pack ] || fail "refused.pack was written"
    expect 2 "--max-placements '0' is not a count of placements above 0" \
        "$@" pack chain16/l0.usda --max-placements 0 -o refused.pack
    ;;
bad_layer)
    printf '#usda 1.0\ndef Mesh "M" (\n' >bad.usda
    expect 1 "bad.usda" "$@" pack bad.usda -o bad.pack
    [ ! -e bad.pack ] || fail "bad.pack was written"
    ;;
*)
    fail "unknown case"
    ;;
esac
inputs_intact
echo "pack_usd $case: ok"
