/* SPDX-License-Identifier: MIT */
/* Tiles (tools/pack/texture/tile.c): the grid per level and the mip tail,
 * every texel of interior, edge and partial tiles against the level's
 * texel at the coordinates the wrap rule gives (recomputed here for each
 * mode: repeat, clamp-to-edge, mirrored repeat), and every refusal. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tile.h"

/* A chain from a w x h image of pseudo-random texels (no two texels of a
 * level alike in practice, so a texel read from the wrong place shows). */
static pk_mip_chain chain_of(uint32_t w, uint32_t h, pk_texel_format f)
{
    pk_image img = {w, h, f, NULL, 0, 0.0};
    size_t n = (size_t)w * h * pk_texel_bytes(f);
    img.texels = malloc(n);
    assert_non_null(img.texels);
    uint32_t seed = w * 31u + h;
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        img.texels[i] = (uint8_t)(seed >> 24);
    }
    pk_mip_chain c;
    pk_diag d = {{0}};
    assert_int_equal(pk_mip_build(&img, PK_MIP_DATA, "t.png", &c, &d), 0);
    pk_image_free(&img);
    return c;
}

/* The wrap rule, by folding a coordinate back step by step: repeat shifts
 * by the size, clamp stops at the edge, mirrored reflects about the edge
 * (-1 reads 0, n reads n - 1). */
static uint32_t wrapped(int64_t v, uint32_t n, pk_wrap wrap)
{
    while (v < 0 || v >= n) {
        if (wrap == PK_WRAP_REPEAT) {
            v += v < 0 ? n : -(int64_t)n;
        } else if (wrap == PK_WRAP_CLAMP_TO_EDGE) {
            v = v < 0 ? 0 : n - 1;
        } else {
            v = v < 0 ? -1 - v : 2 * (int64_t)n - 1 - v;
        }
    }
    return (uint32_t)v;
}

static const uint8_t *at(const pk_mip_chain *c, uint32_t level, uint32_t x, uint32_t y)
{
    const pk_mip_level *l = &c->level[level];
    return c->texels + l->offset + ((size_t)y * l->width + x) * pk_texel_bytes(c->format);
}

/* Every texel of tile (x, y) of level against the rule. */
static void check_tile(const pk_mip_chain *c, const pk_tile_grid *g, uint32_t level, uint32_t x, uint32_t y, pk_wrap ws,
                       pk_wrap wt)
{
    uint8_t *t = malloc(g->tile_bytes);
    assert_int_equal(pk_tile_write(c, g, level, x, y, ws, wt, t, g->tile_bytes), 0);
    uint32_t side = g->tile + 2 * g->border, tb = pk_texel_bytes(c->format);
    const pk_mip_level *l = &c->level[level];
    for (uint32_t r = 0; r < side; r++) {
        for (uint32_t q = 0; q < side; q++) {
            int64_t sx = (int64_t)x * g->tile + q - g->border, sy = (int64_t)y * g->tile + r - g->border;
            const uint8_t *want = at(c, level, wrapped(sx, l->width, ws), wrapped(sy, l->height, wt));
            if (memcmp(t + ((size_t)r * side + q) * tb, want, tb) != 0) {
                fail_msg("level %u tile (%u, %u) wrap %d/%d: texel (%u, %u) is not level texel (%lld, %lld) wrapped",
                         level, x, y, ws, wt, q, r, (long long)sx, (long long)sy);
            }
        }
    }
    free(t);
}

static void test_grid_and_tail(void **state)
{
    (void)state;
    pk_mip_chain c = chain_of(300, 200, PK_TEXEL_RGBA8);
    pk_tile_grid g;
    pk_diag d = {{0}};
    assert_int_equal(pk_tile_grid_make(&c, 128, 4, "t.png", &g, &d), 0);
    assert_int_equal(c.levels, 9);
    assert_int_equal(g.tiled_levels, 2); /* 300 x 200, 150 x 100; 75 x 50 on are the tail */
    assert_int_equal(g.cols[0], 3);
    assert_int_equal(g.rows[0], 2);
    assert_int_equal(g.cols[1], 2);
    assert_int_equal(g.rows[1], 1);
    assert_int_equal(g.cols[2], 0);
    assert_int_equal(g.tiles, 8);
    assert_int_equal(g.tile_bytes, 136 * 136 * 4);
    assert_int_equal(g.tail_offset, c.level[2].offset);
    size_t tail = 0;
    for (uint32_t i = 2; i < c.levels; i++) {
        tail += c.level[i].bytes;
    }
    assert_int_equal(g.tail_bytes, tail);
    uint8_t *t = malloc(tail);
    assert_int_equal(pk_tile_write_tail(&c, &g, t, tail), 0);
    assert_memory_equal(t, at(&c, 2, 0, 0), c.level[2].bytes);
    assert_memory_equal(t + tail - 4, at(&c, 8, 0, 0), 4); /* the 1 x 1 level last */
    assert_int_equal(pk_tile_write_tail(&c, &g, t, tail - 1), -1);
    free(t);
    pk_mip_free(&c);

    /* Wide and short: a level is tiled while it is a tile wide, however
     * short. */
    c = chain_of(512, 64, PK_TEXEL_RGBA16);
    assert_int_equal(pk_tile_grid_make(&c, 128, 2, "w.png", &g, &d), 0);
    assert_int_equal(g.tiled_levels, 3);
    assert_int_equal(g.cols[0], 4);
    assert_int_equal(g.rows[0], 1);
    assert_int_equal(g.cols[2], 1);
    assert_int_equal(g.tile_bytes, 132 * 132 * 8);
    assert_int_equal(g.tail_offset, c.level[3].offset);
    check_tile(&c, &g, 0, 3, 0, PK_WRAP_REPEAT, PK_WRAP_MIRRORED_REPEAT);
    pk_mip_free(&c);

    /* Smaller than a tile: all tail. One texel with a tile of 1: no tail. */
    c = chain_of(64, 64, PK_TEXEL_RGBA8);
    assert_int_equal(pk_tile_grid_make(&c, 128, 4, "s.png", &g, &d), 0);
    assert_int_equal(g.tiled_levels, 0);
    assert_int_equal(g.tiles, 0);
    assert_int_equal(g.tail_offset, 0);
    assert_int_equal(g.tail_bytes, c.bytes);
    pk_mip_free(&c);
    c = chain_of(1, 1, PK_TEXEL_RGBA8);
    assert_int_equal(pk_tile_grid_make(&c, 1, 1, "o.png", &g, &d), 0);
    assert_int_equal(g.tiled_levels, 1);
    assert_int_equal(g.tail_bytes, 0);
    uint8_t one[4];
    assert_int_equal(pk_tile_write_tail(&c, &g, one, sizeof one), -1);
    uint8_t nine[9 * 4];
    assert_int_equal(pk_tile_write(&c, &g, 0, 0, 0, PK_WRAP_REPEAT, PK_WRAP_REPEAT, nine, sizeof nine), 0);
    for (int i = 0; i < 9; i++) {
        assert_memory_equal(nine + i * 4, c.texels, 4);
    }
    pk_mip_free(&c);
}

/* Interior, edge, corner and partial tiles under each wrap mode, with a
 * few texels named outright besides the full comparison. */
static void test_borders(void **state)
{
    (void)state;
    pk_mip_chain c = chain_of(300, 200, PK_TEXEL_RGBA8);
    pk_tile_grid g;
    pk_diag d = {{0}};
    assert_int_equal(pk_tile_grid_make(&c, 128, 4, "t.png", &g, &d), 0);
    static const pk_wrap modes[] = {PK_WRAP_REPEAT, PK_WRAP_CLAMP_TO_EDGE, PK_WRAP_MIRRORED_REPEAT};
    for (int m = 0; m < 3; m++) {
        for (uint32_t y = 0; y < 2; y++) {
            for (uint32_t x = 0; x < 3; x++) {
                check_tile(&c, &g, 0, x, y, modes[m], modes[m]);
            }
        }
        check_tile(&c, &g, 1, 0, 0, modes[m], modes[(m + 1) % 3]);
        check_tile(&c, &g, 1, 1, 0, modes[(m + 2) % 3], modes[m]);
    }
    uint8_t *t = malloc(g.tile_bytes);
    const uint32_t side = 136;
#define TEXEL(col, row) (t + ((size_t)(row)*side + (col)) * 4)
    /* Interior edge of tile (1, 0): its left border is tile (0, 0)'s last
     * four columns, its bottom border tile (1, 1)'s first rows. */
    assert_int_equal(pk_tile_write(&c, &g, 0, 1, 0, PK_WRAP_CLAMP_TO_EDGE, PK_WRAP_CLAMP_TO_EDGE, t, g.tile_bytes), 0);
    assert_memory_equal(TEXEL(0, 4), at(&c, 0, 124, 0), 4);
    assert_memory_equal(TEXEL(3, 10), at(&c, 0, 127, 6), 4);
    assert_memory_equal(TEXEL(4, 132), at(&c, 0, 128, 128), 4);
    assert_memory_equal(TEXEL(135, 135), at(&c, 0, 259, 131), 4);
    /* The corner tile (0, 0): repeat reads the opposite edges. */
    assert_int_equal(pk_tile_write(&c, &g, 0, 0, 0, PK_WRAP_REPEAT, PK_WRAP_REPEAT, t, g.tile_bytes), 0);
    assert_memory_equal(TEXEL(0, 0), at(&c, 0, 296, 196), 4);
    assert_memory_equal(TEXEL(3, 4), at(&c, 0, 299, 0), 4);
    /* clamp: the edge texel; mirrored: the edge texel once, then inwards. */
    assert_int_equal(pk_tile_write(&c, &g, 0, 0, 0, PK_WRAP_CLAMP_TO_EDGE, PK_WRAP_CLAMP_TO_EDGE, t, g.tile_bytes), 0);
    assert_memory_equal(TEXEL(0, 0), at(&c, 0, 0, 0), 4);
    assert_memory_equal(TEXEL(2, 7), at(&c, 0, 0, 3), 4);
    assert_int_equal(pk_tile_write(&c, &g, 0, 0, 0, PK_WRAP_MIRRORED_REPEAT, PK_WRAP_MIRRORED_REPEAT, t, g.tile_bytes),
                     0);
    assert_memory_equal(TEXEL(0, 0), at(&c, 0, 3, 3), 4);
    assert_memory_equal(TEXEL(3, 4), at(&c, 0, 0, 0), 4);
    /* The partial tile (2, 1): payload past column 299 and row 199 wraps as
     * a border would (repeat: column 300 reads column 0). */
    assert_int_equal(pk_tile_write(&c, &g, 0, 2, 1, PK_WRAP_REPEAT, PK_WRAP_CLAMP_TO_EDGE, t, g.tile_bytes), 0);
    assert_memory_equal(TEXEL(4 + 44, 4), at(&c, 0, 0, 128), 4);
    assert_memory_equal(TEXEL(4 + 43, 4 + 71), at(&c, 0, 299, 199), 4);
    assert_memory_equal(TEXEL(4 + 43, 4 + 100), at(&c, 0, 299, 199), 4);
#undef TEXEL
    free(t);
    pk_mip_free(&c);
}

static void test_wrap_coord(void **state)
{
    (void)state;
    assert_int_equal(pk_wrap_coord(-1, 5, PK_WRAP_REPEAT), 4);
    assert_int_equal(pk_wrap_coord(-11, 5, PK_WRAP_REPEAT), 4);
    assert_int_equal(pk_wrap_coord(12, 5, PK_WRAP_REPEAT), 2);
    assert_int_equal(pk_wrap_coord(-7, 5, PK_WRAP_CLAMP_TO_EDGE), 0);
    assert_int_equal(pk_wrap_coord(9, 5, PK_WRAP_CLAMP_TO_EDGE), 4);
    /* Mirrored, period 10: 0 1 2 3 4 4 3 2 1 0 | 0 1 ... */
    static const uint32_t mirror[] = {0, 1, 2, 3, 4, 4, 3, 2, 1, 0, 0, 1};
    for (int v = 0; v < 12; v++) {
        assert_int_equal(pk_wrap_coord(v, 5, PK_WRAP_MIRRORED_REPEAT), mirror[v]);
        assert_int_equal(pk_wrap_coord(-1 - v, 5, PK_WRAP_MIRRORED_REPEAT), mirror[v]);
    }
    assert_int_equal(pk_wrap_coord(-3, 1, PK_WRAP_MIRRORED_REPEAT), 0);
}

static void test_refusals(void **state)
{
    (void)state;
    pk_mip_chain c = chain_of(300, 200, PK_TEXEL_RGBA8);
    pk_tile_grid g;
    pk_diag d = {{0}};
    assert_int_equal(pk_tile_grid_make(&c, 0, 0, "t.png", &g, &d), -1);
    assert_string_equal(d.message, "t.png: tile size 0 is not in 1 .. 4096");
    assert_int_equal(pk_tile_grid_make(&c, 4097, 4, "t.png", &g, &d), -1);
    assert_string_equal(d.message, "t.png: tile size 4097 is not in 1 .. 4096");
    assert_int_equal(pk_tile_grid_make(&c, 128, 65, "t.png", &g, &d), -1);
    assert_string_equal(d.message, "t.png: tile border 65 is more than 64 or than the tile size 128");
    assert_int_equal(pk_tile_grid_make(&c, 2, 3, "t.png", &g, &d), -1);
    assert_string_equal(d.message, "t.png: tile border 3 is more than 64 or than the tile size 2");
    pk_mip_chain empty = {0};
    assert_int_equal(pk_tile_grid_make(&empty, 128, 4, "e.png", &g, &d), -1);
    assert_string_equal(d.message, "e.png: no mip chain to cut into tiles");

    assert_int_equal(pk_tile_grid_make(&c, 128, 4, "t.png", &g, &d), 0);
    uint8_t *t = malloc(g.tile_bytes);
    memset(t, 0xa5, g.tile_bytes);
    assert_int_equal(pk_tile_write(&c, &g, 2, 0, 0, PK_WRAP_REPEAT, PK_WRAP_REPEAT, t, g.tile_bytes), -1); /* tail */
    assert_int_equal(pk_tile_write(&c, &g, 0, 3, 0, PK_WRAP_REPEAT, PK_WRAP_REPEAT, t, g.tile_bytes), -1);
    assert_int_equal(pk_tile_write(&c, &g, 0, 0, 2, PK_WRAP_REPEAT, PK_WRAP_REPEAT, t, g.tile_bytes), -1);
    assert_int_equal(pk_tile_write(&c, &g, 0, 0, 0, PK_WRAP_REPEAT, PK_WRAP_REPEAT, t, g.tile_bytes - 1), -1);
    assert_int_equal(pk_tile_write(&c, &g, 0, 0, 0, (pk_wrap)3, PK_WRAP_REPEAT, t, g.tile_bytes), -1);
    assert_int_equal(pk_tile_write(&c, &g, 0, 0, 0, PK_WRAP_REPEAT, (pk_wrap)-1, t, g.tile_bytes), -1);
    for (size_t i = 0; i < g.tile_bytes; i++) {
        assert_int_equal(t[i], 0xa5); /* untouched */
    }
    free(t);
    pk_mip_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grid_and_tail),
        cmocka_unit_test(test_borders),
        cmocka_unit_test(test_wrap_coord),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
