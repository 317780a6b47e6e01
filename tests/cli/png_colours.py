# SPDX-License-Identifier: MIT
# png_colours.py [--palette] PNG: prints the image's width, height, the
# pixels that are not the background (the clear colour `sluice render`
# uses, 0.08 0.09 0.11: 20 23 28) and how
# many distinct colours those have; with --palette, also how many of them
# are neither black nor a colour of the LOD palette (slc_render_lod_color:
# platform/src/render_frames.c); with --red-green, instead of those two,
# how many are strongly red (R > 150, G and B < 100) and how many strongly
# green (G > 120, R and B < 110). Reads the 8-bit RGB or RGBA, non-interlaced PNGs that
# `sluice render` writes (zlib and the five row filters of the PNG spec).
import sys, zlib, struct
def read_png(path):
    d = open(path, 'rb').read()
    assert d[:8] == b'\x89PNG\r\n\x1a\n'
    pos, idat, w, h, ct = 8, b'', 0, 0, 0
    while pos < len(d):
        n, t = struct.unpack('>I4s', d[pos:pos + 8])
        body = d[pos + 8:pos + 8 + n]
        if t == b'IHDR':
            w, h, bd, ct = struct.unpack('>IIBB', body[:10])
        elif t == b'IDAT':
            idat += body
        pos += 12 + n
    bpp = 3 if ct == 2 else 4
    raw = zlib.decompress(idat)
    rows, prev, i = [], bytearray(w * bpp), 0
    for y in range(h):
        f = raw[i]; line = bytearray(raw[i + 1:i + 1 + w * bpp]); i += 1 + w * bpp
        for x in range(len(line)):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1: line[x] = (line[x] + a) & 255
            elif f == 2: line[x] = (line[x] + b) & 255
            elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line)); prev = line
    return w, h, [tuple(r[x * bpp:x * bpp + 3]) for r in rows for x in range(w)]
PALETTE = {(46, 204, 64), (0, 116, 217), (255, 220, 0), (255, 133, 27), (240, 18, 190), (127, 219, 255),
           (177, 13, 201), (255, 65, 54), (0, 0, 0)}
palette = sys.argv[1] == '--palette'
red_green = sys.argv[1] == '--red-green'
w, h, px = read_png(sys.argv[-1])
bg = (20, 23, 28)
fg = [p for p in px if p != bg]
fields = [w, h, len(fg), len(set(fg))]
if red_green:
    fields = [w, h, len(fg), sum(1 for p in fg if p[0] > 150 and p[1] < 100 and p[2] < 100),
              sum(1 for p in fg if p[1] > 120 and p[0] < 110 and p[2] < 110)]
if palette:
    fields.append(sum(1 for p in fg if p not in PALETTE))
print(*fields)
