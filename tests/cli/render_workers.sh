#!/bin/sh
# SPDX-License-Identifier: MIT
# render_workers.sh OUTDIR SLUICE...: `sluice render` is deterministic. A
# small synthetic city, 8 frames of the camera at 160x90, every 3rd frame
# written (0, 3, 6) and the last (7): with --workers 0, 1 and 2 every PNG and
# the contact sheet are byte for byte the same (cmp), and the eviction log
# hash each render prints is the one `sluice run` prints for the same
# options on the Vulkan backend (--view-height 90: render's camera measures
# against the 90-pixel frame it draws). Each run has --validate: a message from the
# validation layer fails it, and none may appear on stderr.
set -u
out=$1
shift
fail() { echo "render_workers: $*" >&2; exit 1; }
rm -rf "$out"
mkdir -p "$out" || exit 1
pack=$out/city.pack
"$@" pack --synthetic city --size 1MiB --seed 3 -o "$pack" > "$out/pack.log" 2>&1 || fail "pack: $(cat "$out/pack.log")"
opts="--frames 8 --camera orbit --validate"

"$@" run "$pack" $opts --view-height 90 --backend vulkan --workers 0 > "$out/run.log" 2> "$out/run.err" || fail "run: exit $?: $(cat "$out/run.err")"
want=$(grep '^eviction log:' "$out/run.log")
[ -n "$want" ] || fail "run printed no eviction log line"

for w in 0 1 2; do
    d=$out/w$w
    "$@" render "$pack" $opts --workers "$w" --size 160x90 --every 3 -o "$d" > "$out/render$w.log" 2> "$out/render$w.err" ||
        fail "render --workers $w: exit $?: $(cat "$out/render$w.err")"
    cat "$out/render$w.log"
    ! grep -Eq 'VUID|Validation' "$out/render$w.err" || fail "render --workers $w: validation messages: $(cat "$out/render$w.err")"
    got=$(grep '^eviction log:' "$out/render$w.log")
    [ "$got" = "$want" ] || fail "render --workers $w: '$got', run printed '$want'"
    grep -q "^render: 8 frames rendered at 160x90, 4 written (every 3 and the last) to $d, contact sheet $d/contact.png$" \
        "$out/render$w.log" || fail "render --workers $w: no 'render: 8 frames rendered...' line"
    grep -Eq '^render drawn a frame \(median\): [1-9][0-9]* triangles, [1-9][0-9]* clusters$' "$out/render$w.log" ||
        fail "render --workers $w: nothing drawn"
    files=$(cd "$d" && ls -A | tr '\n' ' ')
    [ "$files" = "contact.png frame-00000.png frame-00003.png frame-00006.png frame-00007.png " ] ||
        fail "render --workers $w: files '$files'"
done
for f in contact.png frame-00000.png frame-00003.png frame-00006.png frame-00007.png; do
    head -c 8 "$out/w0/$f" | od -An -tx1 | grep -q '89 50 4e 47 0d 0a 1a 0a' || fail "$f is not a PNG"
    cmp "$out/w0/$f" "$out/w1/$f" || fail "$f differs between --workers 0 and 1"
    cmp "$out/w0/$f" "$out/w2/$f" || fail "$f differs between --workers 0 and 2"
done
# The camera moves: the frames are not all one image.
! cmp -s "$out/w0/frame-00000.png" "$out/w0/frame-00006.png" || fail "frames 0 and 6 are the same image"
echo "render_workers: ok ($want)"
