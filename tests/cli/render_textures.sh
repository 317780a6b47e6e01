#!/bin/sh
# SPDX-License-Identifier: MIT
# render_textures.sh OUTDIR PROFILE SLUICE...: the renderer samples the
# texture pool. A 1 MiB textured city (rgba8, and bc1), 8 frames of the orbit
# camera at 160x90 under PROFILE, every run with --validate (a message from
# the validation layer fails it):
#   - the texture pool's line (its eviction log hash, `run --view-height
#     90` measuring the camera against render's 90-pixel frame) is the same on the
#     host backend, on the Vulkan backend (its tiles in an atlas image, as
#     the run's backend line says) and
#     in `sluice render` with --workers 0 and 2, whose PNGs are byte for
#     byte the same;
#   - each frame binds tiles beside the pinned mip tails ("render textures a
#     frame" above the texture count), and its textured surfaces show
#     texels: hundreds of colours, where --tint lod draws a handful;
#   - --tint mip draws the mip palette: every pixel not background is one of
#     its colours or a stripe's black;
#   - bc1 tiles, in a bc1 atlas the device decodes, render as many colours;
#   - without a tile belt ([textures] staging_size) the tiles stay in host
#     memory on Vulkan too: the same texture pool line as on the host
#     backend, no atlas, and the renderer binds no tile.
set -u
out=$1
profile=$2
shift 2
fail() { echo "render_textures: $*" >&2; exit 1; }
here=$(dirname "$0")
rm -rf "$out"
mkdir -p "$out" || exit 1
opts="--frames 8 --camera orbit --validate --profile $profile"
for fmt in rgba8 bc1; do
    "$@" pack --synthetic city --size 1MiB --seed 11 --textures --texture-quality fast --texture-format $fmt \
        -o "$out/$fmt.pack" > "$out/pack-$fmt.log" 2>&1 || fail "pack $fmt: $(cat "$out/pack-$fmt.log")"
done
pack=$out/rgba8.pack
# shellcheck disable=SC2086 # $opts is a list of options
"$@" run "$pack" $opts --view-height 90 --backend host > "$out/host.log" 2> "$out/host.err" || fail "run host: $(cat "$out/host.err")"
want=$(grep '^texture pool:' "$out/host.log")
[ -n "$want" ] || fail "run on the host printed no texture pool line"
# shellcheck disable=SC2086
"$@" run "$pack" $opts --view-height 90 --backend vulkan > "$out/vk.log" 2> "$out/vk.err" || fail "run vulkan: $(cat "$out/vk.err")"
[ "$(grep '^texture pool:' "$out/vk.log")" = "$want" ] || fail "vulkan: $(grep '^texture pool:' "$out/vk.log"), host: $want"
grep -Eq '^backend: vulkan \(.*\); texture tiles in 1 atlas image of rgba8 \(128x128 texels a page, 1 a layer\) through a [0-9]+-slot belt' \
    "$out/vk.log" || fail "vulkan: no atlas image in $(grep '^backend:' "$out/vk.log")"

textures=$(sed -n 's/^  materials .*; textures \([0-9]*\) .*/\1/p' "$out/pack-rgba8.log")
[ -n "$textures" ] || fail "no texture count in the pack's summary"
render() { # NAME PACK OPTIONS...
    name=$1
    p=$2
    shift 2
    # shellcheck disable=SC2086
    "$@" > "$out/$name.log" 2> "$out/$name.err" || fail "$name: exit $?: $(cat "$out/$name.err")"
    ! grep -Eq 'VUID|Validation' "$out/$name.err" || fail "$name: validation messages: $(cat "$out/$name.err")"
}
for w in 0 2; do
    # shellcheck disable=SC2086
    render w$w "$pack" "$@" render "$pack" $opts --workers $w --size 160x90 --every 3 -o "$out/w$w"
    [ "$(grep '^texture pool:' "$out/w$w.log")" = "$want" ] || fail "render --workers $w streamed textures otherwise"
    bound=$(sed -n "s/^render textures a frame (median): \([0-9]*\) tiles and mip tails bound (of $textures textures)$/\1/p" \
        "$out/w$w.log")
    [ -n "$bound" ] && [ "$bound" -gt "$textures" ] || fail "render --workers $w: bound '$bound' of $textures textures"
done
for f in frame-00000.png frame-00003.png frame-00006.png frame-00007.png contact.png; do
    cmp "$out/w0/$f" "$out/w2/$f" || fail "$f differs between --workers 0 and 2"
done
# shellcheck disable=SC2086
render lod "$pack" "$@" render "$pack" $opts --size 160x90 --every 3 -o "$out/lod" --tint lod
# shellcheck disable=SC2086
render mip "$pack" "$@" render "$pack" $opts --size 160x90 --every 3 -o "$out/mip" --tint mip
# shellcheck disable=SC2086
render bc1 "$out/bc1.pack" "$@" render "$out/bc1.pack" $opts --size 160x90 --every 3 -o "$out/bc1"
# No tile belt: host memory on Vulkan too, nothing bound.
grep -v '^staging_size *= *[0-9]* MiB *# the tiles' "$profile" > "$out/nobelt.profile"
! grep -q "the tiles' belt" "$out/nobelt.profile" || fail "the tile belt is still in $out/nobelt.profile"
nb="--frames 8 --camera orbit --validate --profile $out/nobelt.profile"
# shellcheck disable=SC2086
"$@" run "$pack" $nb --view-height 90 --backend host > "$out/nb-host.log" 2>&1 || fail "run host, no belt: $(cat "$out/nb-host.log")"
# shellcheck disable=SC2086
render nb "$pack" "$@" render "$pack" $nb --size 160x90 --every 3 -o "$out/nb"
[ "$(grep '^texture pool:' "$out/nb.log")" = "$(grep '^texture pool:' "$out/nb-host.log")" ] ||
    fail "no belt: render $(grep '^texture pool:' "$out/nb.log"), host $(grep '^texture pool:' "$out/nb-host.log")"
! grep -q 'atlas image' "$out/nb.log" || fail "no belt, yet $(grep '^backend:' "$out/nb.log")"
grep -q "^render textures a frame (median): 0 tiles and mip tails bound (of $textures textures)$" "$out/nb.log" ||
    fail "no belt: $(grep '^render textures' "$out/nb.log")"
# (the loop below takes over the positional parameters)
for f in frame-00000.png frame-00003.png frame-00006.png frame-00007.png; do
    set -- $(python3 "$here/png_colours.py" "$out/w0/$f") || fail "$f cannot be read"
    [ "$3" -gt 1000 ] && [ "$4" -gt 300 ] || fail "$f: $3 pixels drawn in $4 colours: no texels"
    set -- $(python3 "$here/png_colours.py" "$out/lod/$f") || fail "lod/$f cannot be read"
    [ "$3" -gt 1000 ] && [ "$4" -le 16 ] || fail "lod/$f: $3 pixels drawn in $4 colours"
    set -- $(python3 "$here/png_colours.py" "$out/bc1/$f") || fail "bc1/$f cannot be read"
    [ "$3" -gt 1000 ] && [ "$4" -gt 300 ] || fail "bc1/$f: $3 pixels drawn in $4 colours: no texels"
    set -- $(python3 "$here/png_colours.py" --palette "$out/mip/$f") || fail "mip/$f cannot be read"
    [ "$3" -gt 1000 ] && [ "$5" = 0 ] || fail "mip/$f: $3 pixels drawn, $5 of them not the mip palette or black"
done

echo "render_textures: ok ($want)"
