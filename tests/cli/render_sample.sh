#!/bin/sh
# SPDX-License-Identifier: MIT
# render_sample.sh OUTDIR PACK SLUICE...: a real model (../shared/gltf, one
# small textured model a pack) rendered with the built-in cameras fills the
# view and is lit. For each of orbit, fly and closeup, 8 frames at 480x270
# with the validation layer, frames 0, 4 and 7 written; in each, the pixels
# that differ from the background (its top-left pixel, which the model
# never reaches on these paths) must be at least 5% of the frame and span
# at least 35% of its height, and their mean luminance (Rec. 709 weights,
# 0..255) must be at least 25: the light comes from over the camera's
# shoulder, so the surfaces facing it are lit, not near-black (the model
# is drawn with its own textures: ToyCar's fabric is dark brown, a mean of
# about 30 in the close-up).
set -u
out=$1
pack=$2
shift 2
fail() { echo "render_sample: $*" >&2; exit 1; }
rm -rf "$out"
mkdir -p "$out" || exit 1
for cam in orbit fly closeup; do
    "$@" render "$pack" --camera $cam --frames 8 --every 4 --size 480x270 --validate -o "$out/$cam" \
        > "$out/$cam.log" 2> "$out/$cam.err" || fail "render --camera $cam: exit $?: $(cat "$out/$cam.err")"
    ! grep -Eq 'VUID|Validation' "$out/$cam.err" || fail "validation messages: $(cat "$out/$cam.err")"
done
python3 - "$out" <<'PY' || fail "a frame is not filled or not lit"
import struct, sys, zlib

def load(path):
    """RGB rows of an 8-bit RGB or RGBA, non-interlaced PNG."""
    d = open(path, "rb").read()
    assert d[:8] == b"\x89PNG\r\n\x1a\n", path
    i, idat = 8, b""
    while i < len(d):
        n, t = struct.unpack(">I4s", d[i:i + 8])
        body = d[i + 8:i + 8 + n]
        i += 12 + n
        if t == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and ctype in (2, 6) and interlace == 0, path
        elif t == b"IDAT":
            idat += body
    raw, bpp = zlib.decompress(idat), 4 if ctype == 6 else 3
    stride, rows, prev, p = w * bpp, [], bytearray(w * bpp), 0
    for _ in range(h):
        f, line = raw[p], bytearray(raw[p + 1:p + 1 + stride])
        p += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return w, h, [[tuple(r[x * bpp:x * bpp + 3]) for x in range(w)] for r in rows]

ok = True
for cam in ("orbit", "fly", "closeup"):
    for frame in (0, 4, 7):
        path = "%s/%s/frame-%05d.png" % (sys.argv[1], cam, frame)
        w, h, px = load(path)
        bg = px[0][0]
        covered, luma, top, bottom = 0, 0.0, h, -1
        for y in range(h):
            for p in px[y]:
                if max(abs(p[k] - bg[k]) for k in range(3)) > 2:
                    covered += 1
                    luma += 0.2126 * p[0] + 0.7152 * p[1] + 0.0722 * p[2]
                    top, bottom = min(top, y), max(bottom, y)
        share = covered / (w * h)
        span = (bottom - top + 1) / h if covered else 0
        mean = luma / covered if covered else 0
        good = share >= 0.05 and span >= 0.35 and mean >= 25
        print("%s frame %d: %.1f%% of the pixels, %.0f%% of the height, mean luminance %.1f%s"
              % (cam, frame, 100 * share, 100 * span, mean, "" if good else "  <- too little"))
        ok = ok and good
sys.exit(0 if ok else 1)
PY
