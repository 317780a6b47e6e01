/* SPDX-License-Identifier: MIT */
/* Mip chains (tools/pack/texture/mip.c): the sRGB curves against the
 * formula, colour averaged in linear light against values computed
 * independently (Python's float maths on the IEC 61966-2-1 curves), data
 * averaged as integers, odd sizes by the documented spans (recomputed here
 * by brute force), normal maps of unit length, the memory bound, and the
 * chain's bytes against hashes recorded on x86-64, which the aarch64 and
 * armhf builds run too: the same bytes on every target. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <xxhash.h>

#include "mip.h"

static pk_image image(uint32_t w, uint32_t h, pk_texel_format f, const uint32_t *values)
{
    pk_image img = {w, h, f, NULL, 0, 0.0};
    size_t n = (size_t)w * h * 4;
    img.texels = malloc(n * pk_texel_bytes(f));
    assert_non_null(img.texels);
    for (size_t i = 0; i < n; i++) {
        if (f == PK_TEXEL_RGBA16) {
            uint16_t v = (uint16_t)values[i];
            memcpy(img.texels + i * 2, &v, 2);
        } else {
            img.texels[i] = (uint8_t)values[i];
        }
    }
    img.hash = pk_image_hash(&img);
    return img;
}

static pk_mip_chain build(const pk_image *img, pk_mip_kind kind)
{
    pk_mip_chain c;
    pk_diag d = {{0}};
    if (pk_mip_build(img, kind, "t.png", &c, &d) != 0) {
        fail_msg("%s", d.message);
    }
    return c;
}

static uint32_t texel(const pk_mip_chain *c, uint32_t level, uint32_t x, uint32_t y, uint32_t ch)
{
    const pk_mip_level *l = &c->level[level];
    size_t i = ((size_t)y * l->width + x) * 4 + ch;
    if (c->format == PK_TEXEL_RGBA16) {
        uint16_t v;
        memcpy(&v, c->texels + l->offset + i * 2, 2);
        return v;
    }
    return c->texels[l->offset + i];
}

static void test_srgb_curves(void **state)
{
    (void)state;
    for (int i = 0; i <= 1000; i++) {
        double s = i / 1000.0;
        double lin = s <= 0.04045 ? s / 12.92 : pow((s + 0.055) / 1.055, 2.4);
        double enc = s <= 0.0031308 ? s * 12.92 : 1.055 * pow(s, 1.0 / 2.4) - 0.055;
        assert_true(fabs(pk_srgb_to_linear(s) - lin) < 1e-12);
        assert_true(fabs(pk_linear_to_srgb(s) - enc) < 1e-12);
    }
    assert_true(pk_srgb_to_linear(-1.0) == 0.0 && pk_srgb_to_linear(2.0) == 1.0);
    assert_true(pk_linear_to_srgb(-1.0) == 0.0 && pk_linear_to_srgb(2.0) == 1.0);
}

/* 2 x 2 texels, channel by channel: R 0 255 0 255, G 255 0 0 0, B 100 200
 * 100 200, A 0 255 0 255. In linear light R averages to 0.5 (sRGB
 * 187.516), G to 0.25 (136.960), B to sRGB 160.201; alpha and data are
 * integer means rounded half up. */
static void test_colour_and_data_averages(void **state)
{
    (void)state;
    const uint32_t v[16] = {0, 255, 100, 0, 255, 0, 200, 255, 0, 0, 100, 0, 255, 0, 200, 255};
    pk_image img = image(2, 2, PK_TEXEL_RGBA8, v);
    pk_mip_chain c = build(&img, PK_MIP_COLOR);
    assert_int_equal(c.levels, 2);
    assert_memory_equal(c.texels, img.texels, 16); /* level 0 unchanged */
    assert_int_equal(texel(&c, 1, 0, 0, 0), 188);
    assert_int_equal(texel(&c, 1, 0, 0, 1), 137);
    assert_int_equal(texel(&c, 1, 0, 0, 2), 160);
    assert_int_equal(texel(&c, 1, 0, 0, 3), 128);
    pk_mip_free(&c);
    c = build(&img, PK_MIP_DATA);
    assert_int_equal(texel(&c, 1, 0, 0, 0), 128); /* 127.5 */
    assert_int_equal(texel(&c, 1, 0, 0, 1), 64);  /* 63.75 */
    assert_int_equal(texel(&c, 1, 0, 0, 2), 150);
    assert_int_equal(texel(&c, 1, 0, 0, 3), 128);
    pk_mip_free(&c);
    pk_image_free(&img);

    /* 16 bits: R 0 65535 0 65535 averages to sRGB 48191.620. */
    const uint32_t w[16] = {0, 0, 0, 65535, 65535, 0, 0, 65535, 0, 0, 0, 65535, 65535, 0, 0, 65535};
    img = image(2, 2, PK_TEXEL_RGBA16, w);
    c = build(&img, PK_MIP_COLOR);
    assert_int_equal(c.format, PK_TEXEL_RGBA16);
    assert_int_equal(texel(&c, 1, 0, 0, 0), 48192);
    assert_int_equal(texel(&c, 1, 0, 0, 1), 0);
    assert_int_equal(texel(&c, 1, 0, 0, 3), 65535);
    pk_mip_free(&c);
    pk_image_free(&img);

    /* 3 x 2 averages 6 texels (R 10 .. 60: sRGB 38.924), 3 x 3 nine (R 1 ..
     * 9: sRGB 5.000). */
    uint32_t six[24] = {0}, nine[36] = {0};
    for (uint32_t i = 0; i < 6; i++) {
        six[i * 4] = 10 * (i + 1);
    }
    for (uint32_t i = 0; i < 9; i++) {
        nine[i * 4] = i + 1;
    }
    img = image(3, 2, PK_TEXEL_RGBA8, six);
    c = build(&img, PK_MIP_COLOR);
    assert_int_equal(c.levels, 2);
    assert_int_equal(c.level[1].width, 1);
    assert_int_equal(texel(&c, 1, 0, 0, 0), 39);
    pk_mip_free(&c);
    c = build(&img, PK_MIP_DATA);
    assert_int_equal(texel(&c, 1, 0, 0, 0), 35); /* 210 / 6 */
    pk_mip_free(&c);
    pk_image_free(&img);
    img = image(3, 3, PK_TEXEL_RGBA8, nine);
    c = build(&img, PK_MIP_COLOR);
    assert_int_equal(texel(&c, 1, 0, 0, 0), 5);
    pk_mip_free(&c);
    pk_image_free(&img);
}

/* The documented spans, by brute force: the source range of destination
 * index x. */
static void spans(uint32_t x, uint32_t src, uint32_t dst, uint32_t *lo, uint32_t *hi)
{
    *lo = src == 1 ? 0 : 2 * x;
    *hi = src == 1 ? 1 : (x + 1 == dst && src % 2 == 1) ? 2 * x + 3 : 2 * x + 2;
}

static void test_odd_sizes(void **state)
{
    (void)state;
    static const uint32_t sizes[][2] = {{5, 3}, {1, 8}, {7, 1}, {13, 6}, {2, 9}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        uint32_t w = sizes[s][0], h = sizes[s][1];
        uint32_t *v = malloc(sizeof(uint32_t) * w * h * 4);
        for (uint32_t i = 0; i < w * h * 4; i++) {
            v[i] = (i * 97u + 13u) % 256u;
        }
        pk_image img = image(w, h, PK_TEXEL_RGBA8, v);
        pk_mip_chain c = build(&img, PK_MIP_DATA);
        assert_int_equal(c.levels, pk_mip_level_count(w, h));
        uint32_t expect_levels = 1;
        for (uint32_t m = w > h ? w : h; m > 1; m /= 2) {
            expect_levels++;
        }
        assert_int_equal(c.levels, expect_levels);
        for (uint32_t l = 1; l < c.levels; l++) {
            const pk_mip_level *a = &c.level[l - 1], *b = &c.level[l];
            assert_int_equal(b->width, a->width > 1 ? a->width / 2 : 1);
            assert_int_equal(b->height, a->height > 1 ? a->height / 2 : 1);
            assert_int_equal(b->offset, a->offset + a->bytes);
            for (uint32_t y = 0; y < b->height; y++) {
                for (uint32_t x = 0; x < b->width; x++) {
                    uint32_t x0, x1, y0, y1;
                    spans(x, a->width, b->width, &x0, &x1);
                    spans(y, a->height, b->height, &y0, &y1);
                    for (uint32_t ch = 0; ch < 4; ch++) {
                        uint32_t sum = 0, n = 0;
                        for (uint32_t j = y0; j < y1; j++) {
                            for (uint32_t i = x0; i < x1; i++) {
                                sum += texel(&c, l - 1, i, j, ch);
                                n++;
                            }
                        }
                        assert_int_equal(texel(&c, l, x, y, ch), (sum + n / 2) / n);
                    }
                }
            }
        }
        const pk_mip_level *last = &c.level[c.levels - 1];
        assert_int_equal(last->width, 1);
        assert_int_equal(last->height, 1);
        assert_int_equal(last->offset + last->bytes, c.bytes);
        pk_mip_free(&c);
        pk_image_free(&img);
        free(v);
    }
}

static void test_normal_maps(void **state)
{
    (void)state;
    /* +X and +Y average to (0.707, 0.707, 0.004): 218 218 128. Exactly
     * opposite normals vanish: (0, 0, 1). */
    const uint32_t a[8] = {255, 128, 128, 255, 128, 255, 128, 255};
    pk_image img = image(2, 1, PK_TEXEL_RGBA8, a);
    pk_mip_chain c = build(&img, PK_MIP_NORMAL);
    assert_int_equal(texel(&c, 1, 0, 0, 0), 218);
    assert_int_equal(texel(&c, 1, 0, 0, 1), 218);
    assert_int_equal(texel(&c, 1, 0, 0, 2), 128);
    pk_mip_free(&c);
    pk_image_free(&img);
    const uint32_t b[8] = {0, 127, 127, 255, 255, 128, 128, 255};
    img = image(1, 2, PK_TEXEL_RGBA8, b);
    c = build(&img, PK_MIP_NORMAL);
    assert_int_equal(texel(&c, 1, 0, 0, 0), 128);
    assert_int_equal(texel(&c, 1, 0, 0, 1), 128);
    assert_int_equal(texel(&c, 1, 0, 0, 2), 255);
    pk_mip_free(&c);
    pk_image_free(&img);

    /* A bumpy 64 x 48 map: every texel of every level below 0 has unit
     * length within what 8-bit encoding allows (sqrt(3) / 255). */
    uint32_t w = 64, h = 48;
    uint32_t *v = malloc(sizeof(uint32_t) * w * h * 4);
    for (uint32_t y = 0; y < h; y++) {
        for (uint32_t x = 0; x < w; x++) {
            double nx = sin(x * 0.7) * 0.6, ny = cos(y * 0.45 + x * 0.1) * 0.5, nz = 1.0;
            double len = sqrt(nx * nx + ny * ny + nz * nz);
            uint32_t *t = v + ((size_t)y * w + x) * 4;
            t[0] = (uint32_t)lround((nx / len + 1) * 127.5);
            t[1] = (uint32_t)lround((ny / len + 1) * 127.5);
            t[2] = (uint32_t)lround((nz / len + 1) * 127.5);
            t[3] = 255;
        }
    }
    img = image(w, h, PK_TEXEL_RGBA8, v);
    c = build(&img, PK_MIP_NORMAL);
    assert_int_equal(c.levels, 7);
    for (uint32_t l = 1; l < c.levels; l++) {
        for (uint32_t y = 0; y < c.level[l].height; y++) {
            for (uint32_t x = 0; x < c.level[l].width; x++) {
                double s = 0;
                for (uint32_t ch = 0; ch < 3; ch++) {
                    double n = texel(&c, l, x, y, ch) * (2.0 / 255.0) - 1.0;
                    s += n * n;
                }
                if (fabs(sqrt(s) - 1.0) > sqrt(3.0) / 255.0) {
                    fail_msg("level %u texel (%u, %u) has length %f", l, x, y, sqrt(s));
                }
            }
        }
    }
    pk_mip_free(&c);
    pk_image_free(&img);
    free(v);
}

static void test_memory_bound(void **state)
{
    (void)state;
    static const uint32_t sizes[][2] = {{1, 1},    {2, 2},     {1024, 1024}, {1, 16384}, {16384, 16384},
                                        {1000, 3}, {4096, 64}, {17, 9999},   {3, 5}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        uint64_t w = sizes[s][0], h = sizes[s][1];
        uint64_t texels = pk_mip_chain_bytes(sizes[s][0], sizes[s][1], PK_TEXEL_RGBA8) / 4;
        uint64_t side = w > h ? w : h;
        assert_true(texels * 3 <= 4 * w * h + 6 * side);
        assert_true(pk_mip_chain_bytes(sizes[s][0], sizes[s][1], PK_TEXEL_RGBA16) == texels * 8);
    }
    /* A square power of two: (4^(n+1) - 1) / 3 texels for 2^n x 2^n. */
    assert_int_equal(pk_mip_chain_bytes(1024, 1024, PK_TEXEL_RGBA8) / 4, ((1ull << 22) - 1) / 3);
    assert_int_equal(pk_mip_level_count(16384, 1), PK_MIP_MAX_LEVELS);
}

/* The same bytes on every target: chains of a pseudo-random image, hashed,
 * against the hashes recorded on x86-64 (run in the cross builds too). */
static void test_same_bytes_everywhere(void **state)
{
    (void)state;
    uint32_t w = 37, h = 23, seed = 12345;
    uint32_t *v = malloc(sizeof(uint32_t) * w * h * 4);
    for (uint32_t i = 0; i < w * h * 4; i++) {
        seed = seed * 1103515245u + 12345u;
        v[i] = seed >> 16;
    }
    static const struct {
        pk_texel_format f;
        pk_mip_kind kind;
        uint64_t hash;
    } cases[] = {
        {PK_TEXEL_RGBA8, PK_MIP_COLOR, 0x8a3cd9ad26c39564ull},   {PK_TEXEL_RGBA8, PK_MIP_DATA, 0x40b86f2bb7145226ull},
        {PK_TEXEL_RGBA8, PK_MIP_NORMAL, 0xb87c985ad9811c68ull},  {PK_TEXEL_RGBA16, PK_MIP_COLOR, 0xa69109e152c3301eull},
        {PK_TEXEL_RGBA16, PK_MIP_NORMAL, 0xb2118f8295b15bb7ull},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint32_t *m = malloc(sizeof(uint32_t) * w * h * 4);
        for (uint32_t j = 0; j < w * h * 4; j++) {
            m[j] = cases[i].f == PK_TEXEL_RGBA8 ? v[j] & 0xffu : v[j];
        }
        pk_image img = image(w, h, cases[i].f, m);
        pk_mip_chain c = build(&img, cases[i].kind);
        uint64_t got = XXH3_64bits(c.texels, c.bytes);
        if (got != cases[i].hash) {
            fail_msg("case %zu: chain hash 0x%016llx, recorded 0x%016llx", i, (unsigned long long)got,
                     (unsigned long long)cases[i].hash);
        }
        pk_mip_free(&c);
        pk_image_free(&img);
        free(m);
    }
    free(v);
}

static void test_refusals(void **state)
{
    (void)state;
    pk_image img = {4, 4, PK_TEXEL_RGBA8, NULL, 0, 0.0};
    pk_mip_chain c;
    pk_diag d = {{0}};
    assert_int_equal(pk_mip_build(&img, PK_MIP_COLOR, "e.png", &c, &d), -1);
    assert_string_equal(d.message, "e.png: no texels to build mips from");
    assert_null(c.texels);
    uint8_t t[4 * 16] = {0};
    img.texels = t;
    assert_int_equal(pk_mip_build(&img, (pk_mip_kind)7, "k.png", &c, &d), -1);
    assert_string_equal(d.message, "k.png: unknown mip kind 7");
    img.width = PK_IMAGE_MAX_SIDE + 1;
    assert_int_equal(pk_mip_build(&img, PK_MIP_DATA, "w.png", &c, &d), -1);
    assert_string_equal(d.message, "w.png: declared size 16385 x 4 exceeds the limit of 16384 x 16384 texels");
    pk_mip_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_srgb_curves),  cmocka_unit_test(test_colour_and_data_averages),
        cmocka_unit_test(test_odd_sizes),    cmocka_unit_test(test_normal_maps),
        cmocka_unit_test(test_memory_bound), cmocka_unit_test(test_same_bytes_everywhere),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
