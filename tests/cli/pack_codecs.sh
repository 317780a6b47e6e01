#!/bin/sh
# SPDX-License-Identifier: MIT
# pack_codecs.sh OUTDIR SLUICE...: the same synthetic city packed with each
# --codec streams the same way: every pack verifies (inspect --verify decodes
# and checks every chunk), every pack says format 1.2 (its LOD records give
# method, measured error and chain end, whatever the codec), and `sluice run` over the same frames gives the same
# eviction log hash for every codec (the decoded pages are identical). An
# unknown codec is a usage error naming the choices.
set -u
out=$1
shift
mkdir -p "$out" || exit 1
fail() { echo "pack_codecs: $*" >&2; exit 1; }

want_hash=""
for codec in stored lz4 meshopt meshopt-lz4 auto; do
    pack="$out/city-$codec.pack"
    "$@" pack --synthetic city --size 2M --codec "$codec" --quiet -o "$pack" || fail "$codec: pack failed"
    info=$("$@" inspect --verify "$pack") || fail "$codec: inspect --verify failed: $info"
    printf '%s\n' "$info" | grep -q "; 0 bad$" || fail "$codec: bad chunks: $info"
    format="format 1.2"
    printf '%s\n' "$info" | grep -q "$format" || fail "$codec: no '$format' in: $(printf '%s\n' "$info" | head -1)"
    case $codec in
    meshopt | meshopt-lz4)
        printf '%s\n' "$info" | grep -Eq "^$codec +[1-9]" || fail "$codec: no chunk of that codec"
        json=$("$@" inspect --json "$pack") || fail "$codec: inspect --json failed"
        printf '%s\n' "$json" | grep -Eq "\"codecs\": \{\"stored\": [0-9]+, \"lz4\": 0, .*\"$codec\": [1-9]" ||
            fail "$codec: inspect --json codecs: $(printf '%s\n' "$json" | grep codecs)"
        ;;
    esac
    run=$("$@" run "$pack" --backend host --frames 200 2>&1) || fail "$codec: run failed: $run"
    hash=$(printf '%s\n' "$run" | sed -n 's/^eviction log: .*hash \(0x[0-9a-f]*\)$/\1/p')
    [ -n "$hash" ] || fail "$codec: no eviction log hash in: $run"
    echo "$codec: $hash"
    if [ -z "$want_hash" ]; then
        want_hash=$hash
    elif [ "$hash" != "$want_hash" ]; then
        fail "$codec: eviction hash $hash, the stored pack's is $want_hash"
    fi
done

msg=$("$@" pack --synthetic city --codec zstd -o "$out/never.pack" 2>&1)
rc=$?
[ "$rc" -eq 2 ] || fail "--codec zstd: exit code $rc, expected 2"
printf '%s\n' "$msg" | grep -q "\-\-codec 'zstd': expected auto, stored, lz4, meshopt or meshopt-lz4" ||
    fail "--codec zstd: message: $msg"
[ ! -e "$out/never.pack" ] || fail "--codec zstd: a pack was written"
echo "pack_codecs: ok"
