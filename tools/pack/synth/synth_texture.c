/* SPDX-License-Identifier: MIT */
/* sluice pack: the synthetic city's textures (see synth_texture.h). */
#include "synth_texture.h"

#include <stdlib.h>
#include <string.h>

#include "pack_writer.h"

static uint64_t mix(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

static uint64_t building_key(uint64_t seed, uint32_t building)
{
    return mix(seed ^ mix(0x5EEDull + building));
}

uint32_t pk_synth_texture_side(uint64_t seed, uint32_t building)
{
    static const uint32_t weights[5] = {8, 5, 4, 2, 1}; /* of 20 */
    uint32_t draw = (uint32_t)(building_key(seed, building) % 20u), k = 0;
    while (draw >= weights[k]) {
        draw -= weights[k++];
    }
    return 256u << k;
}

/* What lies at (x, y) of a side x side facade: 0 mortar, 1 brick, 2 frame,
 * 3 glass; *brick is the brick's own hash. */
static int facade(uint32_t x, uint32_t y, uint32_t side, uint64_t key, uint64_t *brick)
{
    const uint32_t cell = side / 8u;
    const uint32_t cx = x % cell, cy = y % cell;
    const uint32_t w0 = cell / 4u, w1 = cell - cell / 4u, h0 = cell / 5u, h1 = cell - cell / 4u;
    const uint32_t frame = cell / 32u + 1u;
    if (cx >= w0 && cx < w1 && cy >= h0 && cy < h1) {
        int inner = cx >= w0 + frame && cx + frame < w1 && cy >= h0 + frame && cy + frame < h1;
        *brick = 0;
        return inner ? 3 : 2;
    }
    const uint32_t bh = side / 64u, bw = 2u * bh, mortar = side / 512u + 1u; /* 4 x 8 texel bricks at 256 */
    const uint32_t row = y / bh, shift = (row & 1u) * (bw / 2u);
    const uint32_t col = (x + shift) / bw;
    *brick = mix(key ^ ((uint64_t)row << 32 | col));
    return (y % bh) < mortar || ((x + shift) % bw) < mortar ? 0 : 1;
}

/* The height field of the normal map: mortar 0, a brick 96 with bevelled
 * edges (rising over a quarter of its height), the frame 64, the glass 8. */
static int height_at(uint32_t x, uint32_t y, uint32_t side, uint64_t key)
{
    static const int heights[4] = {0, 96, 64, 8};
    uint64_t brick;
    x %= side;
    y %= side;
    int kind = facade(x, y, side, key, &brick);
    if (kind != 1) {
        return heights[kind];
    }
    const uint32_t bh = side / 64u, bw = 2u * bh, mortar = side / 512u + 1u, bevel = bh / 4u + 1u;
    const uint32_t shift = ((y / bh) & 1u) * (bw / 2u);
    const uint32_t in_y = y % bh - mortar, in_x = (x + shift) % bw - mortar; /* inside the brick */
    const uint32_t hy = bh - mortar, hx = bw - mortar;
    uint32_t edge = in_y < hy - 1u - in_y ? in_y : hy - 1u - in_y;
    uint32_t ex = in_x < hx - 1u - in_x ? in_x : hx - 1u - in_x;
    edge = ex < edge ? ex : edge;
    return edge >= bevel ? 96 : (int)(96u * (edge + 1u) / (bevel + 1u));
}

static uint32_t isqrt(uint64_t v)
{
    uint64_t r = 0, bit = 1ull << 62;
    while (bit > v) {
        bit >>= 2;
    }
    while (bit != 0) {
        if (v >= r + bit) {
            v -= r + bit;
            r = (r >> 1) + bit;
        } else {
            r >>= 1;
        }
        bit >>= 2;
    }
    return (uint32_t)r;
}

static uint8_t clamp8(int v)
{
    return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
}

int pk_synth_texture(uint64_t seed, uint32_t building, int normal, pk_image *out, pk_diag *d)
{
    memset(out, 0, sizeof *out);
    const uint32_t side = pk_synth_texture_side(seed, building);
    const uint64_t key = building_key(seed, building);
    uint8_t *t = malloc((size_t)side * side * 4u);
    if (t == NULL) {
        return pk_fail(d, "synthetic city: out of memory for a %u x %u texture", side, side);
    }
    const int wall[3] = {(int)(90u + (key >> 8) % 110u), (int)(70u + (key >> 16) % 90u),
                         (int)(60u + (key >> 24) % 80u)};
    for (uint32_t y = 0; y < side; y++) {
        for (uint32_t x = 0; x < side; x++) {
            uint8_t *px = t + ((size_t)y * side + x) * 4u;
            if (normal) {
                /* Slopes of the height field (wrapping, as the texture repeats). */
                int dx = height_at(x + side - 1u, y, side, key) - height_at(x + 1u, y, side, key);
                int dy = height_at(x, y + side - 1u, side, key) - height_at(x, y + 1u, side, key);
                const int z = 96;
                const int64_t sq = (int64_t)dx * dx + (int64_t)dy * dy + (int64_t)z * z;
                uint32_t len = isqrt((uint64_t)sq);
                px[0] = clamp8(128 + 127 * dx / (int)len);
                px[1] = clamp8(128 + 127 * dy / (int)len);
                px[2] = clamp8(128 + 127 * z / (int)len);
                px[3] = 255;
                continue;
            }
            uint64_t brick;
            int kind = facade(x, y, side, key, &brick);
            /* Each brick its own shade, darker towards its lower edge (no
             * texel noise: that no block format keeps, nor a real wall has). */
            const uint32_t bh = side / 64u;
            int shade = (int)(brick % 25u) - 12 - (int)((y % bh) * 8u / bh);
            for (int c = 0; c < 3; c++) {
                int v = kind == 0   ? 185 + shade / 2
                        : kind == 1 ? wall[c] + shade
                        : kind == 2 ? 60 + c * 4
                                    : 30 + c * 15 + (int)((side - y % (side / 8u)) * 40u / side);
                px[c] = clamp8(v);
            }
            px[3] = 255;
        }
    }
    *out = (pk_image){side, side, PK_TEXEL_RGBA8, t, 0, 0.0};
    out->hash = pk_image_hash(out);
    return 0;
}
