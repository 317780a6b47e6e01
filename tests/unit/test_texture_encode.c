/* SPDX-License-Identifier: MIT */
/* GPU block formats (tools/pack/texture/encode.c): names and sizes, every
 * format round-tripped with a PSNR floor, flat colours, odd sizes padded
 * by the edge texels, every refusal and its message, the same bytes on two
 * threads and on repeated calls, and the sRGB flag reaching the library.
 * With a folder argument (../shared/gltf), ToyCar's base colour texture at
 * every format instead.
 *
 * Encoded bytes are compared only within one process (the same library
 * builds on the same machine): encode.h promises no more across
 * architectures, so there are no recorded hashes of encoded output. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "encode.h"

static const char *samples;

static const pk_encode_format all_formats[] = {PK_ENCODE_RGBA8,    PK_ENCODE_BC1,      PK_ENCODE_BC3,
                                               PK_ENCODE_ASTC_4X4, PK_ENCODE_ASTC_6X6, PK_ENCODE_ASTC_8X8};
#define FORMATS (sizeof all_formats / sizeof all_formats[0])

/* The PSNR floors (dB) of the generated 64 x 64 image at the default
 * quality, RGB of the opaque image for BC1 (1-bit alpha), RGBA of the
 * image with an alpha ramp for the others: the lower of the sRGB and
 * linear values measured on x86-64 (in the comments) less about 2 dB, so
 * another architecture's build of a library, which may pick other blocks,
 * still passes. RGBA8 is exact. */
static double floor_of(pk_encode_format f)
{
    switch (f) {
    case PK_ENCODE_RGBA8:
        return PK_ENCODE_PSNR_IDENTICAL;
    case PK_ENCODE_BC1: /* measured 36.27 sRGB, 36.82 linear */
        return 34.0;
    case PK_ENCODE_BC3: /* 37.47, 38.01 */
        return 35.5;
    case PK_ENCODE_ASTC_4X4: /* 40.14, 40.13 */
        return 38.0;
    case PK_ENCODE_ASTC_6X6: /* 35.78, 35.78 */
        return 33.5;
    case PK_ENCODE_ASTC_8X8: /* 34.72, 34.72 */
        return 32.5;
    }
    return 0;
}

/* A deterministic test image: R and G ramps, B a diagonal ramp with noise
 * (+-12, from an LCG), a sharp edge (x > y + 8: R inverted, B dark), and
 * alpha opaque or a ramp with its own noise. */
static uint8_t *make_image(uint32_t w, uint32_t h, int opaque)
{
    uint8_t *t = malloc((size_t)w * h * 4);
    assert_non_null(t);
    uint32_t seed = 12345u + w * 7u + h;
    for (uint32_t y = 0; y < h; y++) {
        for (uint32_t x = 0; x < w; x++) {
            uint8_t *p = t + ((size_t)y * w + x) * 4;
            seed = seed * 1664525u + 1013904223u;
            int noise = (int)(seed >> 27) - 16; /* -16 .. 15 */
            int r = (int)(x * 255 / (w > 1 ? w - 1 : 1)), g = (int)(y * 255 / (h > 1 ? h - 1 : 1));
            int b = (int)((x + y) * 255 / (w + h)) + noise * 3 / 4;
            if (x > y + 8) {
                r = 255 - r;
                b = 20 + noise / 4;
            }
            int a = opaque ? 255 : 64 + (int)(x * 150 / (w > 1 ? w - 1 : 1)) + noise / 2;
            p[0] = (uint8_t)r;
            p[1] = (uint8_t)g;
            p[2] = (uint8_t)(b < 0 ? 0 : b > 255 ? 255 : b);
            p[3] = (uint8_t)(a < 0 ? 0 : a > 255 ? 255 : a);
        }
    }
    return t;
}

static pk_encoder *encoder(pk_encode_format f, bool srgb, pk_encode_quality q)
{
    pk_encoder *e = NULL;
    pk_diag d = {{0}};
    if (pk_encoder_create(f, srgb, q, &e, &d) != 0) {
        fail_msg("%s", d.message);
    }
    return e;
}

/* Encodes w x h texels with e into a fresh buffer of exactly the encoded
 * size; *size receives it. */
static uint8_t *encode(pk_encoder *e, const uint8_t *t, uint32_t w, uint32_t h, size_t *size)
{
    size_t n = (size_t)pk_encode_bytes(pk_encoder_format(e), w, h);
    uint8_t *out = malloc(n);
    assert_non_null(out);
    pk_diag d = {{0}};
    if (pk_encoder_encode(e, t, w, h, "t.png", out, n, &d) != 0) {
        fail_msg("%s", d.message);
    }
    if (size != NULL) {
        *size = n;
    }
    return out;
}

/* Decodes n bytes into w x h texels, checking that not a byte past them is
 * written. */
static uint8_t *decode(pk_encoder *e, const uint8_t *blocks, size_t n, uint32_t w, uint32_t h)
{
    size_t texels = (size_t)w * h * 4;
    uint8_t *out = malloc(texels + 16);
    assert_non_null(out);
    memset(out, 0xa5, texels + 16);
    pk_diag d = {{0}};
    if (pk_encoder_decode(e, blocks, n, w, h, "t.png", out, texels, &d) != 0) {
        fail_msg("%s", d.message);
    }
    for (size_t i = texels; i < texels + 16; i++) {
        assert_int_equal(out[i], 0xa5);
    }
    return out;
}

static double round_trip(pk_encoder *e, const uint8_t *t, uint32_t w, uint32_t h, uint32_t channels)
{
    size_t n;
    uint8_t *blocks = encode(e, t, w, h, &n);
    uint8_t *back = decode(e, blocks, n, w, h);
    double psnr = pk_encode_psnr(t, back, w, h, channels);
    free(blocks);
    free(back);
    return psnr;
}

static void test_names_and_parse(void **state)
{
    (void)state;
    static const char *names[] = {"rgba8", "bc1", "bc3", "astc4x4", "astc6x6", "astc8x8"};
    for (size_t i = 0; i < FORMATS; i++) {
        assert_string_equal(pk_encode_format_name(all_formats[i]), names[i]);
        pk_encode_format f = 0;
        pk_diag d = {{0}};
        assert_int_equal(pk_encode_format_parse(names[i], &f, &d), 0);
        assert_int_equal(f, all_formats[i]);
    }
    assert_null(pk_encode_format_name((pk_encode_format)0));
    assert_null(pk_encode_format_name((pk_encode_format)7));

    static const char *refused[] = {"bc7", "BC1", "astc", "astc5x5", "", "rgba8 "};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        pk_encode_format f = PK_ENCODE_BC3;
        pk_diag d = {{0}};
        assert_int_equal(pk_encode_format_parse(refused[i], &f, &d), -1);
        assert_int_equal(f, PK_ENCODE_BC3);
        char want[256];
        snprintf(want, sizeof want,
                 "%s: unknown texture format: the accepted names are rgba8, bc1, bc3, astc4x4, astc6x6, astc8x8",
                 refused[i]);
        assert_string_equal(d.message, want);
    }
    pk_diag d = {{0}};
    pk_encode_format f;
    assert_int_equal(pk_encode_format_parse(NULL, &f, &d), -1);
    assert_non_null(strstr(d.message, "(null): unknown texture format"));

    pk_encode_quality q = PK_ENCODE_FAST;
    assert_int_equal(pk_encode_quality_parse("medium", &q, &d), 0);
    assert_int_equal(q, PK_ENCODE_MEDIUM);
    assert_int_equal(pk_encode_quality_parse("thorough", &q, &d), 0);
    assert_int_equal(q, PK_ENCODE_THOROUGH);
    assert_int_equal(pk_encode_quality_parse("fast", &q, &d), 0);
    assert_int_equal(q, PK_ENCODE_FAST);
    assert_int_equal(pk_encode_quality_parse("exhaustive", &q, &d), -1);
    assert_string_equal(d.message,
                        "exhaustive: unknown texture quality: the accepted names are fast, medium, thorough");
    assert_string_equal(pk_encode_quality_name(PK_ENCODE_MEDIUM), "medium");
    assert_null(pk_encode_quality_name((pk_encode_quality)3));
}

static void test_block_sizes(void **state)
{
    (void)state;
    static const pk_encode_block blocks[] = {{1, 1, 4}, {4, 4, 8}, {4, 4, 16}, {4, 4, 16}, {6, 6, 16}, {8, 8, 16}};
    /* Encoded bytes of 64 x 64, 1 x 1, 5 x 3, 7 x 13, by hand. */
    static const uint64_t sizes[][4] = {
        {16384, 4, 60, 364},                /* rgba8: w x h x 4 */
        {2048, 8, 16, 64},                  /* bc1: 16 x 16, 1, 2 x 1, 2 x 4 blocks of 8 bytes */
        {4096, 16, 32, 128},                /* bc3 */
        {4096, 16, 32, 128},                /* astc4x4 */
        {11 * 11 * 16, 16, 16, 2 * 3 * 16}, /* astc6x6: 11 x 11, 1, 1, 2 x 3 blocks */
        {8 * 8 * 16, 16, 16, 1 * 2 * 16},   /* astc8x8 */
    };
    for (size_t i = 0; i < FORMATS; i++) {
        pk_encode_block b = pk_encode_block_of(all_formats[i]);
        assert_int_equal(b.width, blocks[i].width);
        assert_int_equal(b.height, blocks[i].height);
        assert_int_equal(b.bytes, blocks[i].bytes);
        assert_true(b.width <= PK_ENCODE_MAX_BLOCK_SIDE && b.bytes <= PK_ENCODE_MAX_BLOCK_BYTES);
        assert_int_equal(pk_encode_bytes(all_formats[i], 64, 64), sizes[i][0]);
        assert_int_equal(pk_encode_bytes(all_formats[i], 1, 1), sizes[i][1]);
        assert_int_equal(pk_encode_bytes(all_formats[i], 5, 3), sizes[i][2]);
        assert_int_equal(pk_encode_bytes(all_formats[i], 7, 13), sizes[i][3]);
        assert_int_equal(pk_encode_bytes(all_formats[i], 0, 13), 0);
    }
    assert_int_equal(pk_encode_block_of((pk_encode_format)0).bytes, 0);
    assert_int_equal(pk_encode_bytes((pk_encode_format)9, 4, 4), 0);
    /* The largest: a 16384 square as RGBA8 is 2^30 bytes. */
    assert_int_equal(pk_encode_bytes(PK_ENCODE_RGBA8, PK_IMAGE_MAX_SIDE, PK_IMAGE_MAX_SIDE), (uint64_t)1 << 30);
    uint64_t bytes = 1;
    pk_diag d = {{0}};
    assert_int_equal(pk_encode_check_size("t.png", PK_ENCODE_BC1, PK_IMAGE_MAX_SIDE, 1, &bytes, &d), 0);
    assert_int_equal(bytes, 4096 * 8);
}

static void test_round_trip(void **state)
{
    (void)state;
    uint8_t *opaque = make_image(64, 64, 1), *alpha = make_image(64, 64, 0);
    for (size_t i = 0; i < FORMATS; i++) {
        for (int srgb = 0; srgb < 2; srgb++) {
            pk_encoder *e = encoder(all_formats[i], srgb, PK_ENCODE_MEDIUM);
            /* BC1 has 1-bit alpha: the opaque image, RGB and RGBA alike. */
            int bc1 = all_formats[i] == PK_ENCODE_BC1;
            double psnr = bc1 ? round_trip(e, opaque, 64, 64, 3) : round_trip(e, alpha, 64, 64, 4);
            printf("%-8s %-6s PSNR %.2f dB\n", pk_encode_format_name(all_formats[i]), srgb ? "sRGB" : "linear", psnr);
            if (psnr < floor_of(all_formats[i])) {
                fail_msg("%s %s: PSNR %.2f dB under the floor of %.1f", pk_encode_format_name(all_formats[i]),
                         srgb ? "sRGB" : "linear", psnr, floor_of(all_formats[i]));
            }
            if (bc1) {
                /* Opaque stays opaque: alpha is exact. */
                assert_true(round_trip(e, opaque, 64, 64, 4) >= psnr);
            }
            pk_encoder_destroy(e);
        }
    }
    free(opaque);
    free(alpha);
}

/* Medium and thorough clear the floor on the opaque image (RGB), fast
 * comes within 5 dB of it, and neither thorough nor medium is worse than
 * fast. Measured on x86-64, sRGB, fast / medium / thorough: bc1 32.42 /
 * 36.27 / 35.90 (iterative cluster fit minimises squish's perceptual
 * error, not this uniform one), bc3 32.47 / 36.27 / 36.27, astc4x4 41.14 /
 * 41.77 / 41.87, astc8x8 31.90 / 35.77 / 36.45. */
static void test_qualities(void **state)
{
    (void)state;
    uint8_t *img = make_image(64, 64, 1);
    static const pk_encode_format some[] = {PK_ENCODE_BC1, PK_ENCODE_BC3, PK_ENCODE_ASTC_4X4, PK_ENCODE_ASTC_8X8};
    static const pk_encode_quality qs[] = {PK_ENCODE_FAST, PK_ENCODE_MEDIUM, PK_ENCODE_THOROUGH};
    for (size_t i = 0; i < sizeof some / sizeof some[0]; i++) {
        double psnr[3];
        for (int q = 0; q < 3; q++) {
            pk_encoder *e = encoder(some[i], true, qs[q]);
            assert_int_equal(pk_encoder_quality(e), qs[q]);
            psnr[q] = round_trip(e, img, 64, 64, 3);
            pk_encoder_destroy(e);
            printf("%-8s %-8s PSNR %.2f dB\n", pk_encode_format_name(some[i]), pk_encode_quality_name(qs[q]), psnr[q]);
            if (psnr[q] < floor_of(some[i]) - (qs[q] == PK_ENCODE_FAST ? 5.0 : 0.0)) {
                fail_msg("%s %s: PSNR %.2f dB under the floor", pk_encode_format_name(some[i]),
                         pk_encode_quality_name(qs[q]), psnr[q]);
            }
        }
        assert_true(psnr[1] >= psnr[0] && psnr[2] >= psnr[0]);
    }
    free(img);
}

/* A flat colour decodes back within 1 per channel (exactly for RGBA8 and
 * ASTC, whose constant-colour blocks hold it), at a size with partial
 * blocks. */
static void test_flat_colour(void **state)
{
    (void)state;
    static const uint8_t colours[][4] = {{200, 100, 50, 255},
                                         {0, 0, 0, 255},
                                         {255, 255, 255, 255},
                                         {17, 130, 241, 255},
                                         {93, 7, 180, 128}};
    const uint32_t w = 13, h = 10;
    uint8_t *t = malloc((size_t)w * h * 4);
    assert_non_null(t);
    for (size_t c = 0; c < sizeof colours / sizeof colours[0]; c++) {
        for (size_t i = 0; i < (size_t)w * h; i++) {
            memcpy(t + i * 4, colours[c], 4);
        }
        for (size_t i = 0; i < FORMATS; i++) {
            pk_encode_format f = all_formats[i];
            if (f == PK_ENCODE_BC1 && colours[c][3] != 255) {
                continue; /* 1-bit alpha */
            }
            for (int srgb = 0; srgb < 2; srgb++) {
                pk_encoder *e = encoder(f, srgb, PK_ENCODE_MEDIUM);
                size_t n;
                uint8_t *blocks = encode(e, t, w, h, &n);
                uint8_t *back = decode(e, blocks, n, w, h);
                int tolerance = f == PK_ENCODE_BC1 || f == PK_ENCODE_BC3 ? 1 : 0;
                for (size_t k = 0; k < (size_t)w * h * 4; k++) {
                    int diff = abs((int)back[k] - (int)t[k]);
                    if (diff > tolerance) {
                        fail_msg("%s %s colour %zu: texel %zu channel %zu is %d, not %d", pk_encode_format_name(f),
                                 srgb ? "sRGB" : "linear", c, k / 4, k % 4, back[k], t[k]);
                    }
                }
                free(blocks);
                free(back);
                pk_encoder_destroy(e);
            }
        }
    }
    free(t);
}

/* The image w x h padded to whole blocks by repeating its right column and
 * bottom row. */
static uint8_t *padded(const uint8_t *t, uint32_t w, uint32_t h, uint32_t pw, uint32_t ph)
{
    uint8_t *p = malloc((size_t)pw * ph * 4);
    assert_non_null(p);
    for (uint32_t y = 0; y < ph; y++) {
        for (uint32_t x = 0; x < pw; x++) {
            uint32_t sx = x < w ? x : w - 1, sy = y < h ? y : h - 1;
            memcpy(p + ((size_t)y * pw + x) * 4, t + ((size_t)sy * w + sx) * 4, 4);
        }
    }
    return p;
}

/* 1 x 1, 5 x 3, 7 x 13 (and 9 x 6, partial in one direction only): the
 * right sizes; the same bytes as the image padded by its edge texels to
 * whole blocks (the contract of encode.h); a decode that is the padded
 * image's decode cropped, writes nothing past the image (decode() checks)
 * and resembles the image (a loose floor: a few texels of steep ramps, an
 * edge and noise, over 15 dB measured; random bytes score about 8). */
static void test_odd_sizes(void **state)
{
    (void)state;
    static const uint32_t sizes[][2] = {{1, 1}, {5, 3}, {7, 13}, {9, 6}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        uint32_t w = sizes[s][0], h = sizes[s][1];
        for (size_t i = 0; i < FORMATS; i++) {
            pk_encode_format f = all_formats[i];
            int bc1 = f == PK_ENCODE_BC1;
            uint8_t *t = make_image(w, h, bc1);
            pk_encode_block b = pk_encode_block_of(f);
            pk_encoder *e = encoder(f, true, PK_ENCODE_MEDIUM);
            size_t n;
            uint8_t *blocks = encode(e, t, w, h, &n);
            assert_int_equal(n, (size_t)((w + b.width - 1) / b.width) * ((h + b.height - 1) / b.height) * b.bytes);
            uint32_t pw = (w + b.width - 1) / b.width * b.width, ph = (h + b.height - 1) / b.height * b.height;
            uint8_t *p = padded(t, w, h, pw, ph);
            size_t pn;
            uint8_t *pblocks = encode(e, p, pw, ph, &pn);
            assert_int_equal(pn, n);
            if (memcmp(blocks, pblocks, n) != 0) {
                fail_msg("%s %u x %u: not the bytes of the image padded with its edge texels", pk_encode_format_name(f),
                         w, h);
            }
            uint8_t *back = decode(e, blocks, n, w, h), *pback = decode(e, pblocks, n, pw, ph);
            for (uint32_t y = 0; y < h; y++) {
                assert_memory_equal(back + (size_t)y * w * 4, pback + (size_t)y * pw * 4, (size_t)w * 4);
            }
            double psnr = pk_encode_psnr(t, back, w, h, bc1 ? 3 : 4);
            if (psnr < 12.0) {
                fail_msg("%s %u x %u: PSNR %.2f dB", pk_encode_format_name(f), w, h, psnr);
            }
            free(back);
            free(pback);
            free(blocks);
            free(pblocks);
            free(p);
            free(t);
            pk_encoder_destroy(e);
        }
    }
}

static void test_refusals(void **state)
{
    (void)state;
    uint8_t *t = make_image(16, 16, 1);
    uint8_t out[16 * 16 * 4];
    pk_diag d = {{0}};
    uint64_t bytes = 7;

    /* Sizes. */
    assert_int_equal(pk_encode_check_size("a.png", PK_ENCODE_BC1, 0, 5, &bytes, &d), -1);
    assert_int_equal(bytes, 0);
    assert_string_equal(d.message, "a.png: bc1: size 0 x 5 is empty");
    assert_int_equal(pk_encode_check_size(NULL, PK_ENCODE_ASTC_6X6, 5, 0, &bytes, &d), -1);
    assert_string_equal(d.message, "image: astc6x6: size 5 x 0 is empty");
    assert_int_equal(pk_encode_check_size("a.png", PK_ENCODE_RGBA8, 16385, 1, &bytes, &d), -1);
    assert_string_equal(d.message, "a.png: rgba8: size 16385 x 1 exceeds the limit of 16384 x 16384 texels");
    assert_int_equal(pk_encode_check_size("a.png", PK_ENCODE_BC3, 1, 16385, &bytes, &d), -1);
    assert_string_equal(d.message, "a.png: bc3: size 1 x 16385 exceeds the limit of 16384 x 16384 texels");
    assert_int_equal(pk_encode_check_size("a.png", (pk_encode_format)0, 4, 4, &bytes, &d), -1);
    assert_string_equal(d.message, "a.png: texture format 0 is unknown");

    /* Creation. */
    pk_encoder *e = (pk_encoder *)&d; /* overwritten with NULL on failure */
    assert_int_equal(pk_encoder_create((pk_encode_format)7, true, PK_ENCODE_MEDIUM, &e, &d), -1);
    assert_null(e);
    assert_string_equal(d.message, "texture encoder: texture format 7 is unknown");
    assert_int_equal(pk_encoder_create(PK_ENCODE_BC1, true, (pk_encode_quality)5, &e, &d), -1);
    assert_string_equal(d.message, "texture encoder: bc1: quality 5 is unknown");
    assert_int_equal(pk_encoder_create(PK_ENCODE_BC1, true, PK_ENCODE_MEDIUM, NULL, &d), -1);
    assert_string_equal(d.message, "texture encoder: no place for the encoder (out is NULL)");

    for (size_t i = 0; i < FORMATS; i++) {
        pk_encode_format f = all_formats[i];
        const char *fn = pk_encode_format_name(f);
        e = encoder(f, false, PK_ENCODE_FAST);
        char want[256];
        size_t need = (size_t)pk_encode_bytes(f, 16, 16);

        /* NULLs. */
        assert_int_equal(pk_encoder_encode(NULL, t, 16, 16, "a.png", out, sizeof out, &d), -1);
        assert_string_equal(d.message, "a.png: no encoder (NULL)");
        assert_int_equal(pk_encoder_encode(e, NULL, 16, 16, "a.png", out, sizeof out, &d), -1);
        snprintf(want, sizeof want, "a.png: %s: no source buffer (NULL)", fn);
        assert_string_equal(d.message, want);
        assert_int_equal(pk_encoder_encode(e, t, 16, 16, NULL, NULL, sizeof out, &d), -1);
        snprintf(want, sizeof want, "image: %s: no destination buffer (NULL)", fn);
        assert_string_equal(d.message, want);
        assert_int_equal(pk_encoder_decode(e, NULL, need, 16, 16, "a.png", out, sizeof out, &d), -1);
        snprintf(want, sizeof want, "a.png: %s: no source buffer (NULL)", fn);
        assert_string_equal(d.message, want);
        assert_int_equal(pk_encoder_decode(NULL, out, need, 16, 16, "a.png", out, sizeof out, &d), -1);
        assert_string_equal(d.message, "a.png: no encoder (NULL)");

        /* Sizes, through the encoder. */
        assert_int_equal(pk_encoder_encode(e, t, 0, 16, "a.png", out, sizeof out, &d), -1);
        snprintf(want, sizeof want, "a.png: %s: size 0 x 16 is empty", fn);
        assert_string_equal(d.message, want);
        assert_int_equal(pk_encoder_encode(e, t, 16, 20000, "a.png", out, sizeof out, &d), -1);
        snprintf(want, sizeof want, "a.png: %s: size 16 x 20000 exceeds the limit of 16384 x 16384 texels", fn);
        assert_string_equal(d.message, want);
        assert_int_equal(pk_encoder_decode(e, out, need, 16385, 16385, "a.png", out, sizeof out, &d), -1);
        snprintf(want, sizeof want, "a.png: %s: size 16385 x 16385 exceeds the limit of 16384 x 16384 texels", fn);
        assert_string_equal(d.message, want);

        /* Capacities: one byte short refused, dst untouched beyond it; the
         * exact size accepted. */
        assert_int_equal(pk_encoder_encode(e, t, 16, 16, "a.png", out, need - 1, &d), -1);
        snprintf(want, sizeof want, "a.png: %s: 16 x 16 texels encode to %zu bytes, more than the %zu of the buffer",
                 fn, need, need - 1);
        assert_string_equal(d.message, want);
        assert_int_equal(pk_encoder_encode(e, t, 16, 16, "a.png", out, need, &d), 0);
        uint8_t texels[16 * 16 * 4];
        assert_int_equal(pk_encoder_decode(e, out, need - 1, 16, 16, "a.png", texels, sizeof texels, &d), -1);
        snprintf(want, sizeof want, "a.png: %s: 16 x 16 texels need %zu bytes of blocks, only %zu given", fn, need,
                 need - 1);
        assert_string_equal(d.message, want);
        assert_int_equal(pk_encoder_decode(e, out, need, 16, 16, "a.png", texels, sizeof texels - 1, &d), -1);
        snprintf(want, sizeof want, "a.png: %s: 16 x 16 texels decode to 1024 bytes, more than the 1023 of the buffer",
                 fn);
        assert_string_equal(d.message, want);
        assert_int_equal(pk_encoder_decode(e, out, need, 16, 16, "a.png", texels, sizeof texels, &d), 0);
        pk_encoder_destroy(e);
    }
    pk_encoder_destroy(NULL);

    /* PSNR's own refusals and its identical value. */
    assert_true(pk_encode_psnr(NULL, t, 16, 16, 3) == 0.0);
    assert_true(pk_encode_psnr(t, t, 0, 16, 3) == 0.0);
    assert_true(pk_encode_psnr(t, t, 16, 16, 2) == 0.0);
    assert_true(pk_encode_psnr(t, t, 16, 16, 4) == PK_ENCODE_PSNR_IDENTICAL);
    /* One channel off by 1 in 16 x 16 x 3: 10 log10(255^2 x 768) = 76.985 dB;
     * alpha differences are ignored with 3 channels. */
    memcpy(out, t, sizeof out);
    out[5] ^= 1;
    out[3] ^= 0x80;
    double p = pk_encode_psnr(t, out, 16, 16, 3);
    assert_true(p > 76.98 && p < 76.99);
    free(t);
}

/* The same bytes from every call and from two threads. */
typedef struct job {
    pk_encode_format format;
    const uint8_t *texels;
    uint8_t *out;
    size_t size;
} job;

static void *encode_job(void *arg)
{
    job *j = arg;
    pk_encoder *e = NULL;
    pk_diag d = {{0}};
    if (pk_encoder_create(j->format, true, PK_ENCODE_MEDIUM, &e, &d) != 0 ||
        pk_encoder_encode(e, j->texels, 48, 40, "t.png", j->out, j->size, &d) != 0) {
        j->size = 0;
    }
    pk_encoder_destroy(e);
    return NULL;
}

static void test_deterministic(void **state)
{
    (void)state;
    uint8_t *t = make_image(48, 40, 0), *other = make_image(40, 48, 1);
    for (size_t i = 0; i < FORMATS; i++) {
        pk_encode_format f = all_formats[i];
        pk_encoder *e = encoder(f, true, PK_ENCODE_MEDIUM);
        size_t n;
        uint8_t *first = encode(e, t, 48, 40, &n);
        /* Another image between two encodings of this one: no state
         * carried from image to image. */
        free(encode(e, other, 40, 48, NULL));
        uint8_t *again = encode(e, t, 48, 40, NULL);
        assert_memory_equal(first, again, n);
        pk_encoder_destroy(e);

        job jobs[2];
        pthread_t threads[2];
        for (int k = 0; k < 2; k++) {
            jobs[k] = (job){f, t, malloc(n), n};
            assert_non_null(jobs[k].out);
            assert_int_equal(pthread_create(&threads[k], NULL, encode_job, &jobs[k]), 0);
        }
        for (int k = 0; k < 2; k++) {
            assert_int_equal(pthread_join(threads[k], NULL), 0);
            assert_int_equal(jobs[k].size, n);
            if (memcmp(jobs[k].out, first, n) != 0) {
                fail_msg("%s: thread %d encoded other bytes", pk_encode_format_name(f), k);
            }
            free(jobs[k].out);
        }
        free(first);
        free(again);
    }
    free(t);
    free(other);
}

/* The flag reaches the library: sRGB and linear encodings of a non-trivial
 * image differ for every block format (RGBA8 is the same bytes). */
static void test_srgb_flag(void **state)
{
    (void)state;
    uint8_t *t = make_image(32, 32, 0);
    for (size_t i = 0; i < FORMATS; i++) {
        pk_encode_format f = all_formats[i];
        pk_encoder *s = encoder(f, true, PK_ENCODE_MEDIUM), *l = encoder(f, false, PK_ENCODE_MEDIUM);
        assert_true(pk_encoder_srgb(s));
        assert_false(pk_encoder_srgb(l));
        size_t n;
        uint8_t *a = encode(s, t, 32, 32, &n), *b = encode(l, t, 32, 32, NULL);
        if (f == PK_ENCODE_RGBA8) {
            assert_memory_equal(a, b, n);
        } else if (memcmp(a, b, n) == 0) {
            fail_msg("%s: sRGB and linear encodings are the same bytes", pk_encode_format_name(f));
        }
        free(a);
        free(b);
        pk_encoder_destroy(s);
        pk_encoder_destroy(l);
    }
    free(t);
}

/* ToyCar's base colour (1024 x 1024 RGBA, sRGB) at every format and the
 * default quality: floors measured on x86-64 less about 2 dB. */
static void test_sample(void **state)
{
    (void)state;
    char path[1024];
    snprintf(path, sizeof path, "%s/ToyCar/glTF/ToyCar_basecolor.png", samples);
    pk_image img;
    pk_diag d = {{0}};
    if (pk_image_load(path, &img, &d) != 0) {
        fail_msg("%s", d.message);
    }
    assert_int_equal(img.format, PK_TEXEL_RGBA8);
    /* Measured on x86-64 (RGBA): rgba8 exact, bc1 42.66, bc3 42.66,
     * astc4x4 55.94, astc6x6 47.88, astc8x8 43.50 dB. */
    static const double floors[] = {PK_ENCODE_PSNR_IDENTICAL, 40.5, 40.5, 54.0, 46.0, 41.5};
    for (size_t i = 0; i < FORMATS; i++) {
        pk_encoder *e = encoder(all_formats[i], true, PK_ENCODE_MEDIUM);
        double psnr = round_trip(e, img.texels, img.width, img.height, 4);
        printf("ToyCar %-8s PSNR %.2f dB\n", pk_encode_format_name(all_formats[i]), psnr);
        if (psnr < floors[i]) {
            fail_msg("ToyCar %s: PSNR %.2f dB under the floor of %.1f", pk_encode_format_name(all_formats[i]), psnr,
                     floors[i]);
        }
        pk_encoder_destroy(e);
    }
    pk_image_free(&img);
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        samples = argv[1];
        const struct CMUnitTest sample_tests[] = {cmocka_unit_test(test_sample)};
        return cmocka_run_group_tests(sample_tests, NULL, NULL);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names_and_parse), cmocka_unit_test(test_block_sizes),   cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_qualities),       cmocka_unit_test(test_flat_colour),   cmocka_unit_test(test_odd_sizes),
        cmocka_unit_test(test_refusals),        cmocka_unit_test(test_deterministic), cmocka_unit_test(test_srgb_flag),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
