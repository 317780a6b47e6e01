#!/bin/sh
# SPDX-License-Identifier: MIT
# render_culling.sh OUTDIR PACK SLUICE...: single-sided materials show their
# front faces only, mirrored placements included. PACK is the glTF sample
# NegativeScaleTest (../shared/gltf): a board whose "back" column holds,
# for a placement of scale 1 and one of scale -1, a single-sided quad
# turned away from the viewer, a red cross on it, with a green check
# behind it: a renderer that draws back faces shows the crosses, one that
# gets a mirrored placement's winding wrong hides the scale -1 checks of
# the other columns. Seen from the front (frame 10 of a 40-frame orbit at 480x270,
# with the validation layer) the frame has no red pixel and at least 180
# green ones (the checks of the front, back and sample columns; drawing
# back faces shows 77 red pixels and 139 green).
set -u
out=$1
pack=$2
shift 2
fail() { echo "render_culling: $*" >&2; exit 1; }
here=$(dirname "$0")
rm -rf "$out"
mkdir -p "$out" || exit 1
"$@" render "$pack" --camera orbit --frames 40 --every 10 --size 480x270 --validate -o "$out/orbit" \
    > "$out/orbit.log" 2> "$out/orbit.err" || fail "render: exit $?: $(cat "$out/orbit.err")"
! grep -Eq 'VUID|Validation' "$out/orbit.err" || fail "validation messages: $(cat "$out/orbit.err")"
set -- $(python3 "$here/png_colours.py" --red-green "$out/orbit/frame-00010.png") || fail "frame 10 cannot be read"
[ "$4" -eq 0 ] && [ "$5" -ge 180 ] || fail "frame 10: $4 red pixels (crosses on back faces), $5 green (checks)"
echo "render_culling: ok ($5 green pixels, no red)"
