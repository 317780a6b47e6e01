#!/bin/sh
# SPDX-License-Identifier: MIT
# pack_ninja.sh CASE WORKDIR SLUICE: `sluice pack --emit-ninja FILE --parts N`
# (and --emit-make) in a folder whose path has a space and a '$'.
#   city    N = 3 over a small synthetic city cut into small bundles: ninja
#           -j2 builds the parts and merges them into the bytes of the
#           single-process pack; ninja again has no work to do; each part
#           runs --jobs 1 unless --jobs is given; the Makefile (make -j2, when
#           make is there) gives the same bytes
#   gltf    the same over glTF inputs, one of them reading two .bin files:
#           every input and buffer is an implicit input of every part, so a
#           touched .bin rebuilds the three parts and the merge, and the
#           result is again the single pack's bytes
#   usd     the same over a USD stage: root.usda with a sublayer and a
#           reference to a layer in a subfolder; every layer is an implicit
#           input of every part, the merged parts are the single pack's
#           bytes (ninja, and make when it is there), and a changed layer
#           rebuilds every part and the merge
#   refuse  bad --parts, --parts without --emit-* and the reverse, --part
#           with --emit-*, a bad pack option, a newline in the output's path,
#           a scene past the format's limits and a missing input: each exits
#           with its status and message and leaves no graph file (an existing
#           one byte for byte as it was)
set -u
case=$1
dir="$2/pack ninja \$x-$1"
sl=$3 # one word: the test is not registered under an emulator
rm -rf "$dir" && mkdir -p "$dir" || exit 1
cd "$dir" || exit 1

fail() {
    echo "pack_ninja $case: $*" >&2
    exit 1
}

# ninja and its output, which must say "no work to do" (or not).
run_ninja() { # EXPECT_NO_WORK
    "${NINJA:-ninja}" -C "$dir" -j2 >ninja.txt 2>&1 || { cat ninja.txt; fail "ninja failed"; }
    if [ "$1" = 1 ]; then
        grep -q "no work to do" ninja.txt || { cat ninja.txt; fail "ninja found work to do"; }
    else
        ! grep -q "no work to do" ninja.txt || fail "ninja found no work to do"
    fi
}

# After a changed input: ninja runs the 3 parts and the merge again, and the
# merged parts are again the single pack's bytes; then nothing is left to do.
rebuilt_same() {
    run_ninja 0
    [ "$(grep -c "sluice pack part" ninja.txt)" -eq 3 ] || { cat ninja.txt; fail "not every part was rebuilt"; }
    grep -q "sluice merge" ninja.txt || fail "the merge was not run again"
    cmp single.pack out.pack || fail "after the change, the merged parts differ from the single pack"
    run_ninja 1
}

case $case in
city)
    set -- --synthetic city --size 3M --seed 7 --max-lods 3 --bundle-size 256K
    "$sl" pack "$@" --quiet -o single.pack || fail "the single pack failed"
    out=$("$sl" pack "$@" --emit-ninja build.ninja --emit-make Makefile --parts 3 -o "out x.pack") ||
        fail "emit failed"
    printf '%s\n' "$out" | grep -q "^build.ninja: 3 parts of $dir/out x.pack and their merge" ||
        fail "no line for build.ninja: $out"
    [ ! -e "out x.pack" ] || fail "emit packed"
    [ "$(grep -c "^build .*: sluice_part |" build.ninja)" -eq 3 ] || fail "not 3 part edges"
    grep -q "'--part' '2/3' '--jobs' '1' '--synthetic'" build.ninja || fail "a part does not run --jobs 1"
    run_ninja 0
    cmp single.pack "out x.pack" || fail "the merged parts differ from the single pack"
    [ -e "out x.pack.part-3-of-3" ] || fail "no part 3"
    run_ninja 1
    # --jobs given: each part gets it.
    "$sl" pack "$@" --jobs 2 --emit-ninja jobs.ninja --parts 2 --quiet -o j.pack || fail "emit --jobs 2 failed"
    [ "$(grep -c "'--part' '[12]/2' .*'--jobs' '2'" jobs.ninja)" -eq 2 ] || fail "--jobs 2 not passed to the parts"
    ! grep -q "'--jobs' '1'" jobs.ninja || fail "--jobs 1 added beside --jobs 2"
    if command -v make >/dev/null 2>&1; then
        rm -f "out x.pack"*
        make -j2 -s >make.txt 2>&1 || { cat make.txt; fail "make failed"; }
        cmp single.pack "out x.pack" || fail "make: the merged parts differ from the single pack"
    fi
    # --profile FILE given relative: the parts get it absolute, so the graph
    # builds from any folder (here /), and its page size is the pack's.
    mkdir -p sub || fail "mkdir"
    printf '%s\n' "[profile]" "name = p" "[budgets]" "cpu = 4 MiB" "cpu/meta = 1 MiB" "cpu/decode = 1 MiB" \
        "cpu/queues = 1 MiB" "cpu/driver = 1 MiB" "[pool]" "page_size = 32 KiB" "page_count = 64" "[stream]" \
        "frames_in_flight = 2" "workers = 0" "queue_capacity = 64" "staging_size = 0 B" "upload_per_frame = 1 MiB" \
        "[tables]" "max_objects = 64" "max_chunks = 4096" "max_lods = 3" "max_string_bytes = 4 KiB" >sub/p.profile
    "$sl" pack "$@" --profile sub/p.profile --quiet -o psingle.pack || fail "the single pack with --profile failed"
    "$sl" pack "$@" --profile sub/p.profile --emit-ninja prof.ninja --parts 2 --quiet -o p.pack ||
        fail "emit with --profile failed"
    grep -q "'--profile' '/[^']*/sub/p.profile'" prof.ninja || fail "--profile not passed absolute: $(grep cmd prof.ninja)"
    (cd / && "${NINJA:-ninja}" -f "$dir/prof.ninja" >"$dir/prof.txt" 2>&1) || { cat prof.txt; fail "ninja from / failed"; }
    cmp psingle.pack p.pack || fail "--profile: the merged parts differ from the single pack"
    "$sl" inspect p.pack | grep -q "32 KiB pages" || fail "--profile: not the profile's 32 KiB pages"
    ;;
gltf)
    # a.gltf reads a.bin; b.gltf reads b1.bin and b2.bin.
    z='\000\000\000\000'
    one='\000\000\200\077'
    two='\000\000\000\100'
    printf "$z$z$z$one$z$z$z$one$z" >a.bin
    printf "$z$z$z$two$z$z$z$two$z" >b1.bin
    printf "$z$z$z$one$z$z$z$two$z" >b2.bin
    printf '{"asset":{"version":"2.0"},"buffers":[{"uri":"a.bin","byteLength":36}],' >a.gltf
    printf '"bufferViews":[{"buffer":0,"byteLength":36}],' >>a.gltf
    printf '"accessors":[{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3"}],' >>a.gltf
    printf '"meshes":[{"name":"a","primitives":[{"attributes":{"POSITION":0}}]}],"nodes":[{"mesh":0}]}' >>a.gltf
    printf '{"asset":{"version":"2.0"},"buffers":[{"uri":"b1.bin","byteLength":36},{"uri":"b2.bin","byteLength":36}],' >b.gltf
    printf '"bufferViews":[{"buffer":0,"byteLength":36},{"buffer":1,"byteLength":36}],' >>b.gltf
    printf '"accessors":[{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3"},' >>b.gltf
    printf '{"bufferView":1,"componentType":5126,"count":3,"type":"VEC3"}],' >>b.gltf
    printf '"meshes":[{"name":"b1","primitives":[{"attributes":{"POSITION":0}}]},' >>b.gltf
    printf '{"name":"b2","primitives":[{"attributes":{"POSITION":1}}]}],' >>b.gltf
    printf '"nodes":[{"mesh":0,"name":"n0"},{"mesh":1,"name":"n1"}]}' >>b.gltf
    set -- a.gltf b.gltf --bundle-size 1
    "$sl" pack "$@" --quiet -o single.pack || fail "the single pack failed"
    "$sl" pack "$@" --emit-ninja build.ninja --parts 3 --quiet -o out.pack || fail "emit failed"
    esc=$(printf '%s' "$dir" | sed 's/\$/$$/g; s/ /$ /g')
    for f in a.gltf b.gltf a.bin b1.bin b2.bin; do
        [ "$(grep "^build .*: sluice_part |" build.ninja | grep -cF "$esc/$f")" -eq 3 ] ||
            fail "$f is not an implicit input of every part"
    done
    run_ninja 0
    cmp single.pack out.pack || fail "the merged parts differ from the single pack"
    run_ninja 1
    # A changed buffer: every part and the merge run again.
    printf "$z$z$z$two$z$z$z$one$z" >b2.bin
    "$sl" pack "$@" --quiet -o single.pack || fail "the second single pack failed"
    rebuilt_same
    ;;
usd)
    mkdir -p "sub dir" || exit 1
    cat >"sub dir/asset.usda" <<'USD'
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
    cat >over.usda <<'USD'
#usda 1.0
def Mesh "Tri"
{
    int[] faceVertexCounts = [3]
    int[] faceVertexIndices = [0, 1, 2]
    point3f[] points = [(0, 0, 0), (2, 0, 0), (0, 2, 0)]
}
USD
    cat >root.usda <<'USD'
#usda 1.0
(
    subLayers = [@over.usda@]
)
def Xform "A" (
    instanceable = true
    references = @sub dir/asset.usda@
)
{
}
def Xform "B" (
    references = @./sub dir/asset.usda@
)
{
    double3 xformOp:translate = (5, 0, 0)
    uniform token[] xformOpOrder = ["xformOp:translate"]
}
USD
    set -- root.usda --bundle-size 1 --max-lods 2
    "$sl" pack "$@" --quiet -o single.pack || fail "the single pack failed"
    "$sl" pack "$@" --emit-ninja build.ninja --emit-make Makefile --parts 3 --quiet -o out.pack || fail "emit failed"
    esc=$(printf '%s' "$dir" | sed 's/\$/$$/g; s/ /$ /g')
    for f in root.usda over.usda 'sub$ dir/asset.usda'; do
        [ "$(grep "^build .*: sluice_part |" build.ninja | grep -cF "$esc/$f")" -eq 3 ] ||
            fail "$f is not an implicit input of every part"
    done
    run_ninja 0
    cmp single.pack out.pack || fail "the merged parts differ from the single pack"
    run_ninja 1
    # A changed layer: every part and the merge run again.
    sed 's/(1, 1, 0)/(1, 2, 0)/' "sub dir/asset.usda" >asset.new && mv asset.new "sub dir/asset.usda" || exit 1
    "$sl" pack "$@" --quiet -o single.pack || fail "the second single pack failed"
    rebuilt_same
    if command -v make >/dev/null 2>&1; then
        rm -f out.pack*
        make -j2 -s >make.txt 2>&1 || { cat make.txt; fail "make failed"; }
        cmp single.pack out.pack || fail "make: the merged parts differ from the single pack"
    fi
    ;;
refuse)
    printf 'old\n' >build.ninja
    cp build.ninja old.ninja
    expect() { # STATUS MESSAGE ARGS...
        want=$1 msg=$2
        shift 2
        got=$("$sl" pack "$@" 2>&1)
        rc=$?
        [ "$rc" -eq "$want" ] || fail "exit $rc, expected $want: $* ($got)"
        printf '%s\n' "$got" | grep -qF -- "$msg" || fail "message '$got', expected '$msg': $*"
        cmp build.ninja old.ninja || fail "build.ninja changed: $*"
        [ -z "$(find . -name '.build.ninja.*')" ] || fail "a temporary was left: $*"
        [ ! -e fresh.ninja ] || fail "fresh.ninja written: $*"
    }
    c="--synthetic city --size 1M"
    # shellcheck disable=SC2086
    {
        expect 2 "--parts '0' is not a count from 1 to 1024" $c --emit-ninja build.ninja --parts 0 -o o.pack
        expect 2 "--parts '1025' is not a count from 1 to 1024" $c --emit-ninja build.ninja --parts 1025 -o o.pack
        expect 2 "--emit-ninja and --emit-make need --parts N" $c --emit-ninja build.ninja -o o.pack
        expect 2 "--parts N goes with --emit-ninja or --emit-make" $c --parts 2 -o o.pack
        expect 2 "--part is the graph's to give" $c --emit-ninja build.ninja --parts 2 --part 1/2 -o o.pack
        expect 2 "page size 3000 is not a power of two from 4096" $c --page-size 3000 --emit-ninja build.ninja --parts 2 -o o.pack
        expect 1 "make about 3355443200 chunks; a pack holds at most 16777216" --synthetic city --size 100T \
            --emit-ninja build.ninja --parts 2 -o o.pack
        expect 3 "no-such.gltf: cannot resolve: No such file or directory" no-such.gltf --emit-ninja fresh.ninja \
            --parts 2 -o o.pack
    }
    nl='
'
    expect 2 "has a newline, which no Ninja or Make file can name" --synthetic city --size 1M \
        --emit-ninja build.ninja --parts 2 -o "o${nl}x.pack"
    # Inputs whose asset roots differ (each outside the current directory,
    # so each root is its own folder): a part takes one --asset-root.
    mkdir -p roots/a roots/b roots/c && : >roots/a/x.gltf && : >roots/b/y.gltf
    here=$(pwd -P)
    got=$(cd roots/c && "$sl" pack ../a/x.gltf ../b/y.gltf --emit-ninja ../../fresh.ninja --parts 2 -o ../o.pack 2>&1)
    rc=$?
    [ "$rc" -eq 2 ] || fail "different asset roots: exit $rc, expected 2 ($got)"
    printf '%s\n' "$got" | grep -qF -- "have different asset roots ($here/roots/a, $here/roots/b); give --asset-root DIR" ||
        fail "different asset roots: '$got'"
    [ ! -e fresh.ninja ] || fail "fresh.ninja written with different asset roots"
    ;;
*)
    fail "unknown case"
    ;;
esac
echo "pack_ninja $case: ok"
