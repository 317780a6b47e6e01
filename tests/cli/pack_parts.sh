#!/bin/sh
# SPDX-License-Identifier: MIT
# pack_parts.sh CASE WORKDIR SLUICE...: `sluice pack --jobs`, `--part K/N`
# and `sluice merge`. Inputs: a synthetic city of 9 buildings with
# --bundle-size 1 (a bundle per building: 9 bundles), three glTF files,
# the first given twice (its meshes deduplicated across bundles), and a glTF
# with materials and textures, each texture a bundle of its own.
#   jobs     pack --jobs 1 and --jobs 2 give the same bytes (city, glTF, and a
#            glTF with materials and textures)
#   split    for N = 1, 2 and 5: every part, then merge: the bytes of the
#            single pack (parts in shuffled order, with varying --jobs);
#            inspect --verify and run on the merged pack say what they say
#            on the single one
#   refuse   merge refuses, with exit status and message, and leaving an
#            existing OUT byte for byte as it was and no temporary: a part
#            missing, a part given twice, parts of different packs, a corrupt
#            part (a flipped byte), the output being a part, a truncated part,
#            a file that is not a part; --part values out of range
set -u
case=$1
dir=$2/pack-parts-$1
shift 2
flip=$(cd "$(dirname "$0")" && pwd)/flip_byte.sh
# A glTF with materials and two PNG textures (a data: URI and a bufferView).
textured_gltf=$(cd "$(dirname "$0")/../fuzz/corpus/gltf" && pwd)/seed7_materials_textures.gltf
rm -rf "$dir" && mkdir -p "$dir" || exit 1
cd "$dir" || exit 1

fail() {
    echo "pack_parts $case: $*" >&2
    exit 1
}

# SLUICE... as words for the functions below (the build's paths have no spaces).
sl="$*"
city() { # OUT [options]: the city
    out=$1
    shift
    # shellcheck disable=SC2086
    $sl pack --synthetic city --size 3M --seed 7 --max-lods 3 --bundle-size 1 --quiet -o "$out" "$@"
}

# Three glTF files of triangles: a.gltf and c.gltf differ in their
# positions (a.bin, c.bin), b.gltf holds two meshes (the triangle of a, then
# a third one) with a node each: 3 objects from 5 meshes.
z='\000\000\000\000'
one='\000\000\200\077'
two='\000\000\000\100'
printf "$z$z$z$one$z$z$z$one$z" >a.bin
printf "$z$z$z$two$z$z$z$two$z" >c.bin
printf "$z$z$z$one$z$z$z$one$z$z$z$z$two$z$z$z$z$z$two" >b.bin
tri() { # NAME BIN BYTES
    printf '{"asset":{"version":"2.0"},"buffers":[{"uri":"%s","byteLength":%s}],' "$2" "$3"
    printf '"bufferViews":[{"buffer":0,"byteLength":36}],'
    printf '"accessors":[{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3"}],'
    printf '"meshes":[{"name":"%s","primitives":[{"attributes":{"POSITION":0}}]}],"nodes":[{"mesh":0}]}' "$1"
}
tri a a.bin 36 >a.gltf
tri c c.bin 36 >c.gltf
printf '{"asset":{"version":"2.0"},"buffers":[{"uri":"b.bin","byteLength":72}],' >b.gltf
printf '"bufferViews":[{"buffer":0,"byteLength":36},{"buffer":0,"byteOffset":36,"byteLength":36}],' >>b.gltf
printf '"accessors":[{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3"},' >>b.gltf
printf '{"bufferView":1,"componentType":5126,"count":3,"type":"VEC3"}],' >>b.gltf
printf '"meshes":[{"name":"a","primitives":[{"attributes":{"POSITION":0}}]},' >>b.gltf
printf '{"name":"big","primitives":[{"attributes":{"POSITION":1}}]}],' >>b.gltf
printf '"nodes":[{"mesh":0,"name":"n0"},{"mesh":1,"name":"n1"}]}' >>b.gltf

gltf() { # OUT [options]: the glTF inputs, a.gltf twice
    out=$1
    shift
    # shellcheck disable=SC2086
    $sl pack a.gltf b.gltf a.gltf c.gltf --bundle-size 1 --quiet -o "$out" "$@"
}

textured() { # OUT [options]: the textured glTF then a.gltf: materials, textures (BC1) and meshes in bundles of their own
    out=$1
    shift
    # shellcheck disable=SC2086
    $sl pack "$textured_gltf" a.gltf --bundle-size 1 --texture-format bc1 --quiet -o "$out" "$@"
}

# The single packs, jobs 1.
city city.pack --jobs 1 || fail "city --jobs 1 failed"
gltf gltf.pack --jobs 1 || fail "glTF --jobs 1 failed"
textured textured.pack --jobs 1 || fail "textured --jobs 1 failed"

case $case in
jobs)
    city city2.pack --jobs 2 || fail "city --jobs 2 failed"
    cmp city.pack city2.pack || fail "city: --jobs 2 differs from --jobs 1"
    gltf gltf2.pack --jobs 2 || fail "glTF --jobs 2 failed"
    cmp gltf.pack gltf2.pack || fail "glTF: --jobs 2 differs from --jobs 1"
    textured textured2.pack --jobs 2 || fail "textured --jobs 2 failed"
    cmp textured.pack textured2.pack || fail "textured: --jobs 2 differs from --jobs 1"
    # Each building's textures come after the previous building's pages:
    # pages still in flight when a texture comes are written before it.
    for j in 1 2 3; do
        $sl pack --synthetic city --size 1M --seed 11 --textures --texture-format bc1 --quiet --jobs $j \
            -o "tcity$j.pack" || fail "textured city --jobs $j failed"
    done
    cmp tcity1.pack tcity2.pack || fail "textured city: --jobs 2 differs from --jobs 1"
    cmp tcity1.pack tcity3.pack || fail "textured city: --jobs 3 differs from --jobs 1"
    sum=$("$@" pack a.gltf b.gltf a.gltf c.gltf --bundle-size 1 --jobs 2 -o gltf3.pack) || fail "summary run failed"
    printf '%s\n' "$sum" | grep -q "^gltf3.pack: 3 objects from 5 meshes (2 identical to an earlier one), 5 instances$" ||
        fail "glTF summary: $sum"
    printf '%s\n' "$sum" | grep -Eq "^  jobs         2; at most [12] meshes and [0-9]+ pages in flight; 3 bundles of 1 B$" ||
        fail "no jobs line in: $sum"
    ;;
split)
    for input in city gltf textured; do
        for n in 1 2 5; do
            parts=""
            k=$n
            while [ "$k" -ge 1 ]; do # the last part first: merge takes them in any order
                $input "$input-$k-of-$n.part" --part "$k/$n" --jobs $((k % 3 + 1)) ||
                    fail "$input: part $k/$n failed"
                parts="$parts $input-$k-of-$n.part"
                k=$((k - 1))
            done
            # shellcheck disable=SC2086 # the parts' names have no spaces
            msg=$("$@" merge $parts -o "$input-merged-$n.pack") || fail "$input: merge of $n parts failed: $msg"
            printf '%s\n' "$msg" | grep -Eq "from $n parts \([0-9]+ bundles\)$" || fail "$input: merge summary: $msg"
            cmp "$input.pack" "$input-merged-$n.pack" || fail "$input: $n parts merged differ from the single pack"
        done
    done
    for pack in city.pack city-merged-5.pack; do
        "$@" inspect --verify "$pack" | sed "s|$pack|PACK|g" >"$pack.inspect" || fail "inspect --verify $pack failed"
        "$@" run "$pack" --backend host --frames 120 2>&1 | grep -E "^(eviction log|requests|bytes):" >"$pack.run" ||
            fail "run $pack failed"
    done
    cmp city.pack.inspect city-merged-5.pack.inspect || fail "inspect --verify differs on the merged pack"
    grep -q "; 0 bad$" city.pack.inspect || fail "inspect --verify found bad chunks"
    cmp city.pack.run city-merged-5.pack.run || fail "run differs on the merged pack"
    grep -q "^eviction log:" city.pack.run || fail "no eviction log line from run"
    ;;
refuse)
    for k in 1 2 3; do
        city "p$k.part" --part "$k/3" --jobs 2 || fail "part $k/3 failed"
    done
    gltf other.part --part 2/3 || fail "glTF part 2/3 failed"
    city two.part --part 1/2 || fail "part 1/2 failed"
    "$flip" p2.part bad.part 300 || fail "flip_byte failed"
    size=$(wc -c <p3.part)
    head -c $((size - 5)) p3.part >short.part
    printf 'an earlier pack' >out.pack
    cp out.pack out.orig
    expect() { # STATUS PATTERN ARGS...: merge ARGS -o out.pack exits STATUS, says PATTERN
        want=$1
        pattern=$2
        shift 2
        msg=$("$@" 2>&1)
        rc=$?
        [ "$rc" -eq "$want" ] || fail "'$*': exit status $rc, expected $want: $msg"
        printf '%s\n' "$msg" | grep -Eq -e "$pattern" || fail "'$*': message '$msg' does not match '$pattern'"
        cmp out.pack out.orig || fail "'$*': the existing output was changed"
        for t in .[!.]*; do
            [ ! -e "$t" ] || fail "'$*': a temporary was left: $t"
        done
    }
    expect 1 "part 2 of 3 is missing \(2 of 3 given\); nothing written" "$@" merge p1.part p3.part -o out.pack
    expect 1 "p1b.part: part 1 of 3 given twice \(also 'p1.part'\); nothing written" \
        sh -c 'cp p1.part p1b.part && exec "$@" merge p1.part p1b.part p3.part -o out.pack' sh "$@"
    expect 1 "other.part: not a part of the same pack as 'p1.part' \(fingerprint [0-9a-f]{16}, not [0-9a-f]{16}" \
        "$@" merge p1.part other.part p3.part -o out.pack
    expect 1 "two.part: part 1 of 2, but 'p1.part' is part 1 of 3; nothing written" \
        "$@" merge p1.part two.part p3.part -o out.pack
    expect 1 "bad.part: bundle 1: (payload|records) checksum mismatch; nothing written" \
        "$@" merge p1.part bad.part p3.part -o out.pack
    expect 1 "short.part: truncated or extended: the header says [0-9]+ bytes, the file has [0-9]+; nothing written" \
        "$@" merge p1.part p2.part short.part -o out.pack
    expect 1 "city.pack: not a partial pack \(bad magic\); nothing written" "$@" merge p1.part city.pack p3.part -o x.pack
    expect 2 "output 'p3.part' is a part \('p3.part'\); nothing written" \
        sh -c 'cp p3.part keep && "$@" merge p1.part p2.part p3.part -o p3.part; rc=$?; cmp keep p3.part || exit 9; rm keep; exit $rc' sh "$@"
    expect 3 "missing.part: cannot open: No such file or directory; nothing written" \
        "$@" merge p1.part p2.part missing.part -o out.pack
    expect 2 "no -o OUT.pack given" "$@" merge p1.part p2.part p3.part
    expect 1 "4 parts given, 'p1.part' is one of 3; nothing written" "$@" merge p1.part p2.part p3.part two.part -o out.pack
    expect 2 "--jobs '0' is not a count from 1 to 256" "$@" pack --synthetic city --jobs 0 -o never.pack
    expect 2 "--jobs '257' is not a count from 1 to 256" "$@" pack --synthetic city --jobs 257 -o never.pack
    expect 2 "--bundle-size '0' is not a size in bytes above 0" "$@" pack --synthetic city --bundle-size 0 -o never.pack
    [ ! -e x.pack ] || fail "x.pack was written"
    for bad in 0/2 3/2 1/1025 1/0 x 1/2/3 -1/2 2; do
        expect 2 "--part '$bad' is not K/N with 1 <= K <= N <= 1024" \
            "$@" pack --synthetic city --size 1M --part "$bad" -o never.pack
        [ ! -e never.pack ] || fail "--part $bad: a pack was written"
    done
    # The control: all three merge.
    "$@" merge p2.part p3.part p1.part -o out.pack --quiet || fail "merge of all three failed"
    cmp out.pack city.pack || fail "merge of all three differs from the single pack"
    ;;
*)
    fail "unknown case"
    ;;
esac
echo "pack_parts $case: ok"
