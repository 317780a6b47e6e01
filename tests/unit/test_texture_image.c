/* SPDX-License-Identifier: MIT */
/* Images decoded to RGBA (tools/pack/texture/image.c): PNG files of every
 * kind written here with libpng and read back texel for texel, JPEG files
 * written here with libjpeg and compared with the source (within the
 * codec's error) and with libjpeg's own decode (exactly), the content
 * hash, and every refusal driven by a crafted file: truncated data, a
 * corrupt CRC, a huge declared size, a CMYK JPEG, containers named by
 * their magic bytes. With a folder argument (../shared/gltf), the sample
 * textures: sizes and texels read independently of libpng (a zlib-only
 * reading of the PNG) and facts of the files. */
#define _POSIX_C_SOURCE 200809L /* mkstemp, fdopen */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jpeglib.h>
#include <png.h>
#include <zlib.h>

#include "image.h"

/* --- writing PNG and JPEG in memory ----------------------------------------- */

typedef struct buf {
    uint8_t *p;
    size_t n, cap;
} buf;

static void buf_put(buf *b, const void *p, size_t n)
{
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2;
        b->p = realloc(b->p, b->cap);
        assert_non_null(b->p);
    }
    memcpy(b->p + b->n, p, n);
    b->n += n;
}

static void png_put(png_structp png, png_bytep p, png_size_t n)
{
    buf_put(png_get_io_ptr(png), p, n);
}

static void png_flush_none(png_structp png)
{
    (void)png;
}

/* A PNG of w x h with the given colour type and depth; rows holds the
 * samples as libpng wants them (packed below 8 bits, big-endian at 16). */
static buf png_make(uint32_t w, uint32_t h, int color, int depth, int interlace, const uint8_t *samples,
                    const png_color *palette, int palette_n, const uint8_t *trns, int trns_n)
{
    buf b = {0};
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    assert_non_null(info);
    if (setjmp(png_jmpbuf(png))) {
        fail_msg("libpng failed to write the test image");
    }
    png_set_write_fn(png, &b, png_put, png_flush_none);
    png_set_IHDR(png, info, w, h, depth, color, interlace, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    if (palette != NULL) {
        png_set_PLTE(png, info, palette, palette_n);
    }
    if (trns != NULL) {
        png_set_tRNS(png, info, trns, trns_n, NULL);
    }
    png_write_info(png, info);
    size_t row = png_get_rowbytes(png, info);
    png_bytep *rows = malloc(sizeof(png_bytep) * h);
    for (uint32_t y = 0; y < h; y++) {
        rows[y] = (png_bytep)samples + y * row;
    }
    png_write_image(png, rows);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    free(rows);
    return b;
}

/* The test pattern: a value per texel and channel, distinct enough that a
 * swapped channel, row or byte order shows. */
static uint32_t pattern(uint32_t x, uint32_t y, uint32_t c, uint32_t max)
{
    return (x * 37u + y * 101u + c * 59u + x * y * 7u) % (max + 1u);
}

/* Writes a PNG of kind (colour type, depth), reads it back, compares every
 * texel with what the kind means in RGBA. */
static void png_kind(int color, int depth, int interlace)
{
    const uint32_t w = 13, h = 7; /* odd sizes: interlace passes and packed rows end mid-byte */
    uint32_t max = (1u << depth) - 1u;
    uint32_t channels = color == PNG_COLOR_TYPE_GRAY         ? 1
                        : color == PNG_COLOR_TYPE_GRAY_ALPHA ? 2
                        : color == PNG_COLOR_TYPE_RGB        ? 3
                        : color == PNG_COLOR_TYPE_RGBA       ? 4
                                                             : 1;
    size_t row = ((size_t)w * channels * (size_t)depth + 7) / 8;
    uint8_t *samples = calloc(h, row);
    uint32_t *expect = calloc((size_t)w * h * 4, sizeof(uint32_t));
    png_color palette[16];
    uint8_t trns[16];
    for (int i = 0; i < 16; i++) {
        palette[i] = (png_color){(png_byte)(i * 16), (png_byte)(255 - i * 9), (png_byte)(i * i)};
        trns[i] = (uint8_t)(255 - i * 13);
    }
    for (uint32_t y = 0; y < h; y++) {
        for (uint32_t x = 0; x < w; x++) {
            uint32_t *e = expect + ((size_t)y * w + x) * 4;
            for (uint32_t c = 0; c < channels; c++) {
                uint32_t v = pattern(x, y, c, color == PNG_COLOR_TYPE_PALETTE ? 15u : max);
                size_t bit = ((size_t)x * channels + c) * (size_t)depth;
                if (depth == 16) {
                    samples[y * row + bit / 8] = (uint8_t)(v >> 8);
                    samples[y * row + bit / 8 + 1] = (uint8_t)v;
                } else {
                    samples[y * row + bit / 8] |= (uint8_t)(v << (8 - depth - (int)(bit % 8)));
                }
                if (color == PNG_COLOR_TYPE_PALETTE) {
                    e[0] = palette[v].red, e[1] = palette[v].green, e[2] = palette[v].blue, e[3] = trns[v];
                } else if (channels <= 2) {
                    uint32_t s = depth < 8 ? v * (255u / max) : v; /* grey below 8 bits scales to 8 */
                    if (c == 0) {
                        e[0] = e[1] = e[2] = s;
                        e[3] = depth == 16 ? 65535u : 255u;
                    } else {
                        e[3] = s;
                    }
                } else {
                    e[c] = v;
                    if (channels == 3) {
                        e[3] = depth == 16 ? 65535u : 255u;
                    }
                }
            }
        }
    }
    buf b = png_make(w, h, color, depth, interlace, samples, color == PNG_COLOR_TYPE_PALETTE ? palette : NULL, 16,
                     color == PNG_COLOR_TYPE_PALETTE ? trns : NULL, 16);
    pk_image img;
    pk_diag d = {{0}};
    assert_int_equal(pk_image_decode(b.p, b.n, "kind.png", &img, &d), 0);
    assert_int_equal(img.width, w);
    assert_int_equal(img.height, h);
    assert_int_equal(img.format, depth == 16 ? PK_TEXEL_RGBA16 : PK_TEXEL_RGBA8);
    assert_int_equal(img.hash, pk_image_hash(&img));
    for (size_t i = 0; i < (size_t)w * h * 4; i++) {
        uint32_t got = depth == 16 ? ((const uint16_t *)(const void *)img.texels)[i] : img.texels[i];
        if (got != expect[i]) {
            fail_msg("colour %d depth %d interlace %d: texel %zu channel %zu is %u, expected %u", color, depth,
                     interlace, i / 4, i % 4, got, expect[i]);
        }
    }
    pk_image_free(&img);
    assert_null(img.texels);
    free(b.p);
    free(samples);
    free(expect);
}

static void test_png_kinds(void **state)
{
    (void)state;
    static const int kinds[][2] = {
        {PNG_COLOR_TYPE_GRAY, 1},        {PNG_COLOR_TYPE_GRAY, 2},  {PNG_COLOR_TYPE_GRAY, 4},
        {PNG_COLOR_TYPE_GRAY, 8},        {PNG_COLOR_TYPE_GRAY, 16}, {PNG_COLOR_TYPE_GRAY_ALPHA, 8},
        {PNG_COLOR_TYPE_GRAY_ALPHA, 16}, {PNG_COLOR_TYPE_RGB, 8},   {PNG_COLOR_TYPE_RGB, 16},
        {PNG_COLOR_TYPE_RGBA, 8},        {PNG_COLOR_TYPE_RGBA, 16}, {PNG_COLOR_TYPE_PALETTE, 4},
        {PNG_COLOR_TYPE_PALETTE, 8}};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        png_kind(kinds[i][0], kinds[i][1], PNG_INTERLACE_NONE);
        png_kind(kinds[i][0], kinds[i][1], PNG_INTERLACE_ADAM7);
    }
}

/* An RGB PNG and a palette PNG of the same texels decode alike and hash
 * alike; one texel changed changes the hash; so does the size. */
static void test_hash_identical(void **state)
{
    (void)state;
    png_color pal[2] = {{10, 20, 30}, {200, 100, 50}};
    uint8_t idx[4 * 2] = {0, 1, 1, 0, 1, 1, 0, 0};
    uint8_t rgb[4 * 2 * 3];
    for (int i = 0; i < 8; i++) {
        rgb[i * 3] = pal[idx[i]].red, rgb[i * 3 + 1] = pal[idx[i]].green, rgb[i * 3 + 2] = pal[idx[i]].blue;
    }
    buf a = png_make(4, 2, PNG_COLOR_TYPE_PALETTE, 8, 0, idx, pal, 2, NULL, 0);
    buf b = png_make(4, 2, PNG_COLOR_TYPE_RGB, 8, 0, rgb, NULL, 0, NULL, 0);
    buf c = png_make(8, 1, PNG_COLOR_TYPE_RGB, 8, 0, rgb, NULL, 0, NULL, 0);
    pk_image ia, ib, ic;
    pk_diag d = {{0}};
    assert_int_equal(pk_image_decode(a.p, a.n, "a.png", &ia, &d), 0);
    assert_int_equal(pk_image_decode(b.p, b.n, "b.png", &ib, &d), 0);
    assert_int_equal(pk_image_decode(c.p, c.n, "c.png", &ic, &d), 0);
    assert_memory_equal(ia.texels, ib.texels, 4 * 2 * 4);
    assert_int_equal(ia.hash, ib.hash);
    assert_int_not_equal(ia.hash, ic.hash); /* same texels, other size */
    ib.texels[5] ^= 1;
    assert_int_not_equal(pk_image_hash(&ib), ia.hash);
    pk_image_free(&ia);
    pk_image_free(&ib);
    pk_image_free(&ic);
    free(a.p);
    free(b.p);
    free(c.p);
}

/* --- JPEG ------------------------------------------------------------------ */

/* A JPEG at quality 95: baseline, libjpeg's progressive script, or the
 * given scan script (script non-NULL). */
static buf jpeg_encode(uint32_t w, uint32_t h, int components, J_COLOR_SPACE space, int progressive,
                       const jpeg_scan_info *script, int scans, const uint8_t *s)
{
    struct jpeg_compress_struct ci;
    struct jpeg_error_mgr err;
    ci.err = jpeg_std_error(&err);
    jpeg_create_compress(&ci);
    unsigned char *out = NULL;
    unsigned long n = 0;
    jpeg_mem_dest(&ci, &out, &n);
    ci.image_width = w;
    ci.image_height = h;
    ci.input_components = components;
    ci.in_color_space = space;
    jpeg_set_defaults(&ci);
    jpeg_set_quality(&ci, 95, TRUE);
    if (progressive) {
        jpeg_simple_progression(&ci);
    }
    if (script != NULL) {
        ci.scan_info = script;
        ci.num_scans = scans;
    }
    jpeg_start_compress(&ci, TRUE);
    while (ci.next_scanline < ci.image_height) {
        JSAMPROW r = (JSAMPROW)s + (size_t)ci.next_scanline * w * (size_t)components;
        jpeg_write_scanlines(&ci, &r, 1);
    }
    jpeg_finish_compress(&ci);
    jpeg_destroy_compress(&ci);
    buf b = {0};
    buf_put(&b, out, n);
    free(out);
    return b;
}

static buf jpeg_make(uint32_t w, uint32_t h, int components, J_COLOR_SPACE space, int progressive, const uint8_t *s)
{
    return jpeg_encode(w, h, components, space, progressive, NULL, 0, s);
}

/* libjpeg's own decode of b to RGB (or grey), for the exact comparison. */
static uint8_t *jpeg_reference(const buf *b, int components)
{
    struct jpeg_decompress_struct ci;
    struct jpeg_error_mgr err;
    ci.err = jpeg_std_error(&err);
    jpeg_create_decompress(&ci);
    jpeg_mem_src(&ci, b->p, (unsigned long)b->n);
    jpeg_read_header(&ci, TRUE);
    ci.out_color_space = components == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_start_decompress(&ci);
    uint8_t *px = malloc((size_t)ci.output_width * ci.output_height * (size_t)components);
    while (ci.output_scanline < ci.output_height) {
        JSAMPROW r = px + (size_t)ci.output_scanline * ci.output_width * (size_t)components;
        jpeg_read_scanlines(&ci, &r, 1);
    }
    jpeg_finish_decompress(&ci);
    jpeg_destroy_decompress(&ci);
    return px;
}

/* A smooth 40 x 24 gradient (RGB, or grey), so a JPEG at quality 95 stays
 * within a few levels of it. */
static uint8_t *gradient(uint32_t w, uint32_t h, int components)
{
    uint8_t *s = malloc((size_t)w * h * (size_t)components);
    for (uint32_t y = 0; y < h; y++) {
        for (uint32_t x = 0; x < w; x++) {
            for (int c = 0; c < components; c++) {
                s[((size_t)y * w + x) * (size_t)components + (size_t)c] = (uint8_t)(c == 0   ? x * 5 + 20
                                                                                    : c == 1 ? y * 8 + 10
                                                                                             : 200 - x * 2 - y);
            }
        }
    }
    return s;
}

static void jpeg_case(int components, int progressive)
{
    const uint32_t w = 40, h = 24;
    uint8_t *s = gradient(w, h, components);
    buf b = jpeg_make(w, h, components, components == 1 ? JCS_GRAYSCALE : JCS_RGB, progressive, s);
    assert_string_equal(pk_image_kind(b.p, b.n), "JPEG");
    uint8_t *ref = jpeg_reference(&b, components);
    pk_image img;
    pk_diag d = {{0}};
    assert_int_equal(pk_image_decode(b.p, b.n, "g.jpg", &img, &d), 0);
    assert_int_equal(img.width, w);
    assert_int_equal(img.height, h);
    assert_int_equal(img.format, PK_TEXEL_RGBA8);
    int worst = 0;
    for (size_t i = 0; i < (size_t)w * h; i++) {
        for (int c = 0; c < 3; c++) {
            int cc = components == 1 ? 0 : c;
            uint8_t got = img.texels[i * 4 + (size_t)c];
            assert_int_equal(got, ref[i * (size_t)components + (size_t)cc]);
            int diff = abs((int)got - (int)s[i * (size_t)components + (size_t)cc]);
            worst = diff > worst ? diff : worst;
        }
        assert_int_equal(img.texels[i * 4 + 3], 255);
    }
    assert_in_range(worst, 0, 8);
    pk_image_free(&img);
    free(ref);
    free(s);
    free(b.p);
}

static void test_jpeg_kinds(void **state)
{
    (void)state;
    jpeg_case(3, 0); /* baseline YCbCr */
    jpeg_case(3, 1); /* progressive YCbCr */
    jpeg_case(1, 0); /* baseline grey */
    jpeg_case(1, 1); /* progressive grey */
}

/* --- refusals -------------------------------------------------------------- */

static void refused(const void *data, size_t n, const char *name, const char *needle)
{
    pk_image img;
    pk_diag d = {{0}};
    memset(&img, 0x5a, sizeof img);
    assert_int_equal(pk_image_decode(data, n, name, &img, &d), -1);
    assert_null(img.texels);
    assert_int_equal(img.width, 0);
    if (strncmp(d.message, name, strlen(name)) != 0 || strstr(d.message, needle) == NULL) {
        fail_msg("message '%s' does not name '%s' and '%s'", d.message, name, needle);
    }
}

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8), p[3] = (uint8_t)v;
}

/* Offset of the chunk named type in a PNG (its length field). */
static size_t png_chunk(const buf *b, const char *type)
{
    for (size_t at = 8; at + 12 <= b->n; at += 12 + be32(b->p + at)) {
        if (memcmp(b->p + at + 4, type, 4) == 0) {
            return at;
        }
    }
    fail_msg("no %s chunk", type);
    return 0;
}

static void test_png_refusals(void **state)
{
    (void)state;
    uint8_t rgba[16 * 16 * 4];
    for (size_t i = 0; i < sizeof rgba; i++) {
        rgba[i] = (uint8_t)(i * 7 + i / 64);
    }
    buf b = png_make(16, 16, PNG_COLOR_TYPE_RGBA, 8, 0, rgba, NULL, 0, NULL, 0);
    size_t idat = png_chunk(&b, "IDAT");

    /* Truncated: in the IDAT data, and in the header. */
    refused(b.p, idat + 8 + be32(b.p + idat) / 2, "cut.png", "PNG: truncated");
    refused(b.p, 20, "head.png", "PNG: truncated");
    /* The IDAT's CRC changed: libpng's check says so. */
    uint8_t *bad = malloc(b.n);
    memcpy(bad, b.p, b.n);
    bad[idat + 8 + be32(b.p + idat)] ^= 0x40;
    refused(bad, b.n, "crc.png", "PNG: IDAT: CRC error");
    /* A byte of the compressed data changed: zlib's check says so (before
     * the CRC is read). */
    memcpy(bad, b.p, b.n);
    bad[idat + 8 + 3] ^= 0x40;
    refused(bad, b.n, "zlib.png", "PNG: IDAT: ");
    /* The header's CRC changed. */
    memcpy(bad, b.p, b.n);
    bad[29] ^= 1;
    refused(bad, b.n, "ihdr.png", "PNG: IHDR: CRC error");
    /* Declared sizes past the limit, and zero, with valid CRCs: refused
     * from the header, before the texels are allocated. */
    static const uint32_t sizes[][2] = {{PK_IMAGE_MAX_SIDE + 1, 1},
                                        {1, PK_IMAGE_MAX_SIDE + 1},
                                        {0x7fffffffu, 0x7fffffffu}};
    for (size_t i = 0; i < 3; i++) {
        memcpy(bad, b.p, b.n);
        put_be32(bad + 16, sizes[i][0]);
        put_be32(bad + 20, sizes[i][1]);
        put_be32(bad + 29, (uint32_t)crc32(0, bad + 12, 17));
        refused(bad, b.n, "huge.png", "exceeds the limit of 16384 x 16384 texels");
    }
    free(bad);
    free(b.p);
}

static void test_jpeg_refusals(void **state)
{
    (void)state;
    uint8_t *s = gradient(40, 24, 3);
    buf b = jpeg_make(40, 24, 3, JCS_RGB, 0, s);
    refused(b.p, b.n / 2, "cut.jpg", "JPEG: Premature end of JPEG file");
    refused(b.p, 3, "head.jpg", "JPEG:");
    buf p = jpeg_make(40, 24, 3, JCS_RGB, 1, s);
    refused(p.p, p.n * 2 / 3, "cutp.jpg", "JPEG: Premature end of JPEG file");
    /* The frame header (SOF0) declares 20000 x 24: refused by our limit. */
    uint8_t *bad = malloc(b.n);
    memcpy(bad, b.p, b.n);
    size_t sof = 2;
    while (sof + 4 < b.n && !(bad[sof] == 0xff && bad[sof + 1] == 0xc0)) {
        sof += 2 + ((size_t)bad[sof + 2] << 8 | bad[sof + 3]);
    }
    assert_true(sof + 9 < b.n);
    bad[sof + 7] = (uint8_t)(20000 >> 8), bad[sof + 8] = (uint8_t)(20000 & 0xff);
    refused(bad, b.n, "huge.jpg", "declared size 20000 x 24 exceeds the limit of 16384 x 16384 texels");
    /* Garbage in the entropy-coded data after the header. */
    memcpy(bad, b.p, b.n);
    for (size_t i = b.n - 200; i < b.n - 150; i++) {
        bad[i] = 0xff;
        bad[i + 1] = 0xd9; /* end-of-image markers mid-stream */
        i++;
    }
    refused(bad, b.n, "corrupt.jpg", "JPEG:");
    free(bad);
    /* A valid progressive file of more scans than PK_IMAGE_MAX_JPEG_SCANS:
     * every AC coefficient of every component its own band, each sent in
     * 11 successive-approximation steps, the most libjpeg writes (3 x 63 x
     * 11 + 11 scans). */
    static jpeg_scan_info script[3 * 63 * 11 + 11];
    int ns = 0;
    for (int al = 10; al >= 0; al--) {
        script[ns++] = (jpeg_scan_info){3, {0, 1, 2, 0}, 0, 0, al == 10 ? 0 : al + 1, al};
    }
    for (int c = 0; c < 3; c++) {
        for (int k = 1; k < 64; k++) {
            for (int al = 10; al >= 0; al--) {
                script[ns++] = (jpeg_scan_info){1, {c, 0, 0, 0}, k, k, al == 10 ? 0 : al + 1, al};
            }
        }
    }
    assert_true(ns > (int)PK_IMAGE_MAX_JPEG_SCANS);
    buf many = jpeg_encode(8, 8, 3, JCS_RGB, 0, script, ns, s);
    refused(many.p, many.n, "scans.jpg", "JPEG: more than 1000 progressive scans");
    free(many.p);
    /* CMYK is refused by name. */
    uint8_t cmyk[8 * 8 * 4];
    memset(cmyk, 100, sizeof cmyk);
    buf k = jpeg_make(8, 8, 4, JCS_CMYK, 0, cmyk);
    refused(k.p, k.n, "cmyk.jpg", "(CMYK or YCCK) is not supported");
    free(k.p);
    free(p.p);
    free(b.p);
    free(s);
}

static void test_kind_refusals(void **state)
{
    (void)state;
    static const struct {
        const char *bytes;
        size_t n;
        const char *kind;
    } kinds[] = {
        {"\xabKTX 20\xbb\r\n\x1a\n\0\0\0\0", 16, "KTX2"},
        {"\xabKTX 11\xbb\r\n\x1a\n\0\0\0\0", 16, "KTX"},
        {"RIFF\x10\0\0\0WEBPVP8 ", 16, "WebP"},
        {"GIF89a\x01\0\x01\0\0\0\0", 13, "GIF"},
        {"DDS |\0\0\0", 8, "DDS"},
    };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        assert_string_equal(pk_image_kind(kinds[i].bytes, kinds[i].n), kinds[i].kind);
        char want[64];
        snprintf(want, sizeof want, ": %s images are not supported", kinds[i].kind);
        refused(kinds[i].bytes, kinds[i].n, "t.bin", want);
    }
    refused("hello world", 11, "text.png", "not a PNG or JPEG image (it starts with 68 65 6c 6c 6f 20 77 6f)");
    refused("", 0, "empty.png", "the image is empty");
    refused("\x89PNG", 4, "short.png", "not a PNG or JPEG image");
    assert_null(pk_image_kind(NULL, 0));

    uint64_t bytes = 1;
    pk_diag d = {{0}};
    assert_int_equal(pk_image_check_size("m", PK_IMAGE_MAX_SIDE, PK_IMAGE_MAX_SIDE, 8, &bytes, &d), 0);
    assert_int_equal(bytes, (uint64_t)1 << 31);
    assert_int_equal(pk_image_check_size("m", 0, 5, 4, &bytes, &d), -1);
    assert_string_equal(d.message, "m: declared size 0 x 5 is empty");
    assert_int_equal(bytes, 0);
}

static void test_load_file(void **state)
{
    (void)state;
    uint8_t grey[3 * 2] = {0, 50, 100, 150, 200, 250};
    buf b = png_make(3, 2, PNG_COLOR_TYPE_GRAY, 8, 0, grey, NULL, 0, NULL, 0);
    char path[] = "/tmp/sluice_texture_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "wb");
    assert_int_equal(fwrite(b.p, 1, b.n, f), b.n);
    fclose(f);
    pk_image img;
    pk_diag d = {{0}};
    assert_int_equal(pk_image_load(path, &img, &d), 0);
    assert_int_equal(img.width, 3);
    assert_int_equal(img.texels[4 * 5 + 1], 250);
    pk_image_free(&img);
    f = fopen(path, "wb");
    assert_int_equal(fwrite(b.p, 1, b.n - 10, f), b.n - 10);
    fclose(f);
    assert_int_equal(pk_image_load(path, &img, &d), -1);
    assert_true(strncmp(d.message, path, strlen(path)) == 0 && strstr(d.message, "PNG:") != NULL);
    f = fopen(path, "wb");
    fclose(f);
    assert_int_equal(pk_image_load(path, &img, &d), -1);
    assert_true(strstr(d.message, "the image is empty") != NULL);
    remove(path);
    assert_int_equal(pk_image_load(path, &img, &d), -1);
    assert_true(strstr(d.message, "cannot open the image") != NULL);
    free(b.p);
}

/* --- the sample textures (../shared/gltf) ---------------------------------- */

static const char *samples;

static void texel_is(const pk_image *img, uint32_t x, uint32_t y, int r, int g, int b, int a)
{
    const uint8_t *t = img->texels + ((size_t)y * img->width + x) * 4;
    if (t[0] != r || t[1] != g || t[2] != b || t[3] != a) {
        fail_msg("texel (%u, %u) is %d %d %d %d, expected %d %d %d %d", x, y, t[0], t[1], t[2], t[3], r, g, b, a);
    }
}

static pk_image sample(const char *rel)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", samples, rel);
    pk_image img;
    pk_diag d = {{0}};
    if (pk_image_load(path, &img, &d) != 0) {
        fail_msg("%s", d.message);
    }
    return img;
}

/* Texels read from the files by a zlib-only reading of the PNG (a Python
 * script that inflates IDAT and undoes the row filters, independent of
 * libpng); sizes from IHDR and the JPEG's frame header. */
static void test_samples(void **state)
{
    (void)state;
    pk_image img = sample("ToyCar/glTF/ToyCar_basecolor.png"); /* RGBA 8 */
    assert_int_equal(img.width, 1024);
    assert_int_equal(img.height, 1024);
    texel_is(&img, 0, 0, 42, 42, 42, 255);
    texel_is(&img, 511, 200, 0, 120, 41, 255);
    texel_is(&img, 700, 650, 0, 120, 41, 255);
    texel_is(&img, 1023, 1023, 9, 113, 46, 241);
    pk_image_free(&img);
    img = sample("Box With Spaces/glTF/Normal Map.png"); /* RGB 8 */
    assert_int_equal(img.width, 1024);
    texel_is(&img, 100, 37, 127, 127, 255, 255);
    pk_image_free(&img);
    img = sample("Fox/glTF/Texture.png"); /* RGB 8 */
    assert_int_equal(img.width, 1024);
    assert_int_equal(img.height, 1024);
    texel_is(&img, 300, 300, 255, 250, 242, 255);
    texel_is(&img, 1023, 1000, 67, 63, 30, 255);
    pk_image_free(&img);
    img = sample("CesiumMan/glTF/CesiumMan_img0.jpg"); /* baseline YCbCr, 1024 x 1024 */
    assert_int_equal(img.width, 1024);
    assert_int_equal(img.height, 1024);
    assert_int_equal(img.format, PK_TEXEL_RGBA8);
    /* Texel for texel what libjpeg itself decodes from the file. */
    char path[1024];
    snprintf(path, sizeof path, "%s/CesiumMan/glTF/CesiumMan_img0.jpg", samples);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    buf file = {0};
    uint8_t chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        buf_put(&file, chunk, n);
    }
    fclose(f);
    uint8_t *ref = jpeg_reference(&file, 3);
    for (size_t i = 0; i < (size_t)1024 * 1024; i++) {
        if (memcmp(img.texels + i * 4, ref + i * 3, 3) != 0 || img.texels[i * 4 + 3] != 255) {
            fail_msg("CesiumMan texel %zu differs from libjpeg's decode", i);
        }
    }
    free(ref);
    free(file.p);
    pk_image_free(&img);
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        samples = argv[1];
        const struct CMUnitTest sample_tests[] = {cmocka_unit_test(test_samples)};
        return cmocka_run_group_tests(sample_tests, NULL, NULL);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_png_kinds),     cmocka_unit_test(test_hash_identical),
        cmocka_unit_test(test_jpeg_kinds),    cmocka_unit_test(test_png_refusals),
        cmocka_unit_test(test_jpeg_refusals), cmocka_unit_test(test_kind_refusals),
        cmocka_unit_test(test_load_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
