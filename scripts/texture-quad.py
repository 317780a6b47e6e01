#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# texture-quad.py SIDE DIR: writes DIR/tex.png, a SIDE x SIDE RGBA PNG of
# bricks and mortar, and DIR/quad.gltf, one quad whose material's base
# colour is that image: the input of scripts/bench-texture.sh and of
# tests/cli/pack_texture_memory.sh (an 8K texture, 256 MiB as RGBA8).
import struct, sys, zlib, base64
side, work = int(sys.argv[1]), sys.argv[2]
# Brick rows repeat every 64 lines (mortar, shaded bricks, no texel noise):
# 64 distinct rows, so an 8K image is written in seconds.
period = []
for y in range(64):
    r = bytearray(1 + side * 4)
    for x in range(side):
        brick = ((y // 32) * 977 + ((x + (y // 32 % 2) * 32) // 64) * 131) % 40
        mortar = y % 32 < 2 or (x + (y // 32 % 2) * 32) % 64 < 2
        c = (180, 180, 175) if mortar else (120 + brick, 70 + brick // 2, 55 + (x * 7 + y * 3) % 9)
        r[1 + x * 4:5 + x * 4] = bytes((c[0], c[1], c[2], 255))
    period.append(bytes(r))
rows = [period[y % 64] for y in range(side)]
raw = b"".join(rows)
def chunk(t, d):
    return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xFFFFFFFF)
png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", side, side, 8, 6, 0, 0, 0))
png += chunk(b"IDAT", zlib.compress(raw, 1)) + chunk(b"IEND", b"")
open(f"{work}/tex.png", "wb").write(png)
quad = struct.pack("<12f", 0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0) + struct.pack("<8f", 0, 0, 1, 0, 1, 1, 0, 1)
quad += struct.pack("<6H", 0, 1, 2, 0, 2, 3)
gltf = {"asset": {"version": "2.0"},
        "buffers": [{"uri": "data:application/octet-stream;base64," + base64.b64encode(quad).decode(), "byteLength": len(quad)}],
        "bufferViews": [{"buffer": 0, "byteLength": 48}, {"buffer": 0, "byteOffset": 48, "byteLength": 32},
                        {"buffer": 0, "byteOffset": 80, "byteLength": 12}],
        "accessors": [{"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3", "min": [0, 0, 0], "max": [1, 1, 0]},
                      {"bufferView": 1, "componentType": 5126, "count": 4, "type": "VEC2"},
                      {"bufferView": 2, "componentType": 5123, "count": 6, "type": "SCALAR"}],
        "images": [{"uri": "tex.png"}], "textures": [{"source": 0}],
        "materials": [{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "TEXCOORD_0": 1}, "indices": 2, "material": 0}]}],
        "nodes": [{"mesh": 0}]}
import json
open(f"{work}/quad.gltf", "w").write(json.dumps(gltf))
