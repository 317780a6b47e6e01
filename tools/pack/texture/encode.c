/* SPDX-License-Identifier: MIT */
/* sluice pack: texture tiles in GPU block formats (see encode.h). */
#include "encode.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "encode_lib.h"
#include "pack_writer.h"
#include "sluice/pack.h"

/* One row per format, in enum order: what every other function reads. */
/* The formats are the pack's (sluice/pack_format.h): their names and
 * blocks come from the runtime's one table (slc_pack_texel_block). */
_Static_assert((int)PK_ENCODE_RGBA8 == SLC_PACK_TEXEL_RGBA8 && (int)PK_ENCODE_BC1 == SLC_PACK_TEXEL_BC1 &&
                   (int)PK_ENCODE_BC3 == SLC_PACK_TEXEL_BC3 && (int)PK_ENCODE_ASTC_4X4 == SLC_PACK_TEXEL_ASTC_4X4 &&
                   (int)PK_ENCODE_ASTC_6X6 == SLC_PACK_TEXEL_ASTC_6X6 &&
                   (int)PK_ENCODE_ASTC_8X8 == SLC_PACK_TEXEL_ASTC_8X8 &&
                   PK_ENCODE_FORMAT_COUNT + 1 == SLC_PACK_TEXEL_COUNT,
               "the encoder's formats are the pack's");

static const char *format_name(pk_encode_format format)
{
    return slc_pack_texel_format_name((uint32_t)format);
}

static const char *const qualities[] = {"medium", "fast", "thorough"};

struct pk_encoder {
    pk_encode_format format;
    bool srgb;
    pk_encode_quality quality;
    struct astcenc_context *astc; /* ASTC formats only */
};

static bool known(pk_encode_format format)
{
    return (unsigned)format >= 1 && (unsigned)format <= PK_ENCODE_FORMAT_COUNT;
}

static bool is_astc(pk_encode_format format)
{
    return format == PK_ENCODE_ASTC_4X4 || format == PK_ENCODE_ASTC_6X6 || format == PK_ENCODE_ASTC_8X8;
}

const char *pk_encode_format_name(pk_encode_format format)
{
    return known(format) ? format_name(format) : NULL;
}

const char *pk_encode_quality_name(pk_encode_quality quality)
{
    return (unsigned)quality < sizeof qualities / sizeof qualities[0] ? qualities[quality] : NULL;
}

/* "a, b, c" from names (n of them) into buf. */
static const char *join(const char *const *names, size_t n, char *buf, size_t cap)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && used < cap; i++) {
        int w = snprintf(buf + used, cap - used, "%s%s", i > 0 ? ", " : "", names[i]);
        used += w > 0 ? (size_t)w : 0;
    }
    return buf;
}

int pk_encode_format_parse(const char *text, pk_encode_format *format, pk_diag *d)
{
    const char *names[PK_ENCODE_FORMAT_COUNT];
    for (unsigned i = 0; i < PK_ENCODE_FORMAT_COUNT; i++) {
        names[i] = format_name((pk_encode_format)(i + 1));
        if (text != NULL && strcmp(text, names[i]) == 0) {
            *format = (pk_encode_format)(i + 1);
            return 0;
        }
    }
    char list[128];
    return pk_fail(d, "%s: unknown texture format: the accepted names are %s", text != NULL ? text : "(null)",
                   join(names, PK_ENCODE_FORMAT_COUNT, list, sizeof list));
}

int pk_encode_quality_parse(const char *text, pk_encode_quality *quality, pk_diag *d)
{
    /* Listed fastest first, as a reader expects the scale. */
    static const pk_encode_quality order[] = {PK_ENCODE_FAST, PK_ENCODE_MEDIUM, PK_ENCODE_THOROUGH};
    const char *names[3];
    for (unsigned i = 0; i < 3; i++) {
        names[i] = qualities[order[i]];
        if (text != NULL && strcmp(text, names[i]) == 0) {
            *quality = order[i];
            return 0;
        }
    }
    char list[64];
    return pk_fail(d, "%s: unknown texture quality: the accepted names are %s", text != NULL ? text : "(null)",
                   join(names, 3, list, sizeof list));
}

pk_encode_block pk_encode_block_of(pk_encode_format format)
{
    pk_encode_block b = {0, 0, 0};
    if (known(format)) {
        (void)slc_pack_texel_block((uint32_t)format, &b.width, &b.height, &b.bytes);
    }
    return b;
}

uint64_t pk_encode_bytes(pk_encode_format format, uint32_t width, uint32_t height)
{
    return known(format) ? slc_pack_texel_bytes((uint32_t)format, width, height) : 0;
}

static const char *or_image(const char *name)
{
    return name != NULL ? name : "image";
}

int pk_encode_check_size(const char *name, pk_encode_format format, uint32_t width, uint32_t height, uint64_t *bytes,
                         pk_diag *d)
{
    *bytes = 0;
    name = or_image(name);
    if (!known(format)) {
        return pk_fail(d, "%s: texture format %d is unknown", name, (int)format);
    }
    const char *f = format_name(format);
    if (width == 0 || height == 0) {
        return pk_fail(d, "%s: %s: size %" PRIu32 " x %" PRIu32 " is empty", name, f, width, height);
    }
    if (width > PK_IMAGE_MAX_SIDE || height > PK_IMAGE_MAX_SIDE) {
        return pk_fail(d, "%s: %s: size %" PRIu32 " x %" PRIu32 " exceeds the limit of %u x %u texels", name, f, width,
                       height, PK_IMAGE_MAX_SIDE, PK_IMAGE_MAX_SIDE);
    }
    *bytes = pk_encode_bytes(format, width, height);
    return 0;
}

int pk_encoder_create(pk_encode_format format, bool srgb, pk_encode_quality quality, pk_encoder **out, pk_diag *d)
{
    if (out == NULL) {
        return pk_fail(d, "texture encoder: no place for the encoder (out is NULL)");
    }
    *out = NULL;
    if (!known(format)) {
        return pk_fail(d, "texture encoder: texture format %d is unknown", (int)format);
    }
    const char *f = format_name(format);
    if (pk_encode_quality_name(quality) == NULL) {
        return pk_fail(d, "texture encoder: %s: quality %d is unknown", f, (int)quality);
    }
    pk_encoder *enc = calloc(1, sizeof *enc);
    if (enc == NULL) {
        return pk_fail(d, "texture encoder: %s: out of memory", f);
    }
    enc->format = format;
    enc->srgb = srgb;
    enc->quality = quality;
    if (is_astc(format)) {
        const char *err = pk_astc_alloc(pk_encode_block_of(format).width, srgb, quality, &enc->astc);
        if (err != NULL) {
            free(enc);
            return pk_fail(d, "texture encoder: %s: astcenc refused the context: %s", f, err);
        }
    }
    *out = enc;
    return 0;
}

pk_encode_format pk_encoder_format(const pk_encoder *enc)
{
    return enc->format;
}

bool pk_encoder_srgb(const pk_encoder *enc)
{
    return enc->srgb;
}

pk_encode_quality pk_encoder_quality(const pk_encoder *enc)
{
    return enc->quality;
}

void pk_encoder_destroy(pk_encoder *enc)
{
    if (enc != NULL) {
        pk_astc_free(enc->astc);
        free(enc);
    }
}

/* The checks encode and decode share: enc and both buffers present, the
 * size accepted, *bytes its encoded size. */
static int check_call(const pk_encoder *enc, const void *in, const void *out, uint32_t width, uint32_t height,
                      const char *name, uint64_t *bytes, pk_diag *d)
{
    *bytes = 0;
    if (enc == NULL) {
        return pk_fail(d, "%s: no encoder (NULL)", name);
    }
    const char *f = format_name(enc->format);
    if (in == NULL || out == NULL) {
        return pk_fail(d, "%s: %s: no %s buffer (NULL)", name, f, in == NULL ? "source" : "destination");
    }
    return pk_encode_check_size(name, enc->format, width, height, bytes, d);
}

/* The 4 x 4 block at block column bx, row by of a width x height image,
 * texels past the right and bottom edges clamped to the edge. */
static void gather4x4(const uint8_t *texels, uint32_t width, uint32_t height, uint32_t bx, uint32_t by, uint8_t out[64])
{
    for (uint32_t r = 0; r < 4; r++) {
        uint32_t y = by * 4 + r < height ? by * 4 + r : height - 1;
        for (uint32_t c = 0; c < 4; c++) {
            uint32_t x = bx * 4 + c < width ? bx * 4 + c : width - 1;
            memcpy(out + ((size_t)r * 4 + c) * 4, texels + ((size_t)y * width + x) * 4, 4);
        }
    }
}

int pk_encoder_encode(pk_encoder *enc, const uint8_t *texels, uint32_t width, uint32_t height, const char *name,
                      void *dst, size_t cap, pk_diag *d)
{
    name = or_image(name);
    uint64_t bytes;
    if (check_call(enc, texels, dst, width, height, name, &bytes, d) != 0) {
        return -1;
    }
    const char *f = format_name(enc->format);
    if (bytes > cap) {
        return pk_fail(
            d, "%s: %s: %" PRIu32 " x %" PRIu32 " texels encode to %" PRIu64 " bytes, more than the %zu of the buffer",
            name, f, width, height, bytes, cap);
    }
    uint8_t *out = dst;
    switch (enc->format) {
    case PK_ENCODE_RGBA8:
        memcpy(out, texels, (size_t)bytes);
        return 0;
    case PK_ENCODE_BC1:
    case PK_ENCODE_BC3: {
        bool bc3 = enc->format == PK_ENCODE_BC3;
        size_t block_bytes = bc3 ? 16 : 8;
        uint32_t cols = (width + 3) / 4, rows = (height + 3) / 4;
        for (uint32_t by = 0; by < rows; by++) {
            for (uint32_t bx = 0; bx < cols; bx++) {
                uint8_t block[64];
                gather4x4(texels, width, height, bx, by, block);
                pk_squish_compress(block, bc3, enc->srgb, enc->quality, out);
                out += block_bytes;
            }
        }
        return 0;
    }
    case PK_ENCODE_ASTC_4X4:
    case PK_ENCODE_ASTC_6X6:
    case PK_ENCODE_ASTC_8X8: {
        const char *err = pk_astc_compress(enc->astc, texels, width, height, out, (size_t)bytes);
        if (err != NULL) {
            return pk_fail(d, "%s: %s: astcenc could not encode %" PRIu32 " x %" PRIu32 " texels: %s", name, f, width,
                           height, err);
        }
        return 0;
    }
    }
    return pk_fail(d, "%s: texture format %d is unknown", name, (int)enc->format);
}

int pk_encoder_decode(pk_encoder *enc, const void *src, size_t size, uint32_t width, uint32_t height, const char *name,
                      uint8_t *texels, size_t cap, pk_diag *d)
{
    name = or_image(name);
    uint64_t bytes;
    if (check_call(enc, src, texels, width, height, name, &bytes, d) != 0) {
        return -1;
    }
    const char *f = format_name(enc->format);
    uint64_t need = (uint64_t)width * height * 4;
    if (bytes > size) {
        return pk_fail(d, "%s: %s: %" PRIu32 " x %" PRIu32 " texels need %" PRIu64 " bytes of blocks, only %zu given",
                       name, f, width, height, bytes, size);
    }
    if (need > cap) {
        return pk_fail(
            d, "%s: %s: %" PRIu32 " x %" PRIu32 " texels decode to %" PRIu64 " bytes, more than the %zu of the buffer",
            name, f, width, height, need, cap);
    }
    const uint8_t *in = src;
    switch (enc->format) {
    case PK_ENCODE_RGBA8:
        memcpy(texels, in, (size_t)need);
        return 0;
    case PK_ENCODE_BC1:
    case PK_ENCODE_BC3: {
        bool bc3 = enc->format == PK_ENCODE_BC3;
        size_t block_bytes = bc3 ? 16 : 8;
        uint32_t cols = (width + 3) / 4, rows = (height + 3) / 4;
        for (uint32_t by = 0; by < rows; by++) {
            for (uint32_t bx = 0; bx < cols; bx++) {
                uint8_t block[64];
                pk_squish_decompress(in, bc3, block);
                in += block_bytes;
                /* Only the texels inside the image. */
                uint32_t w = width - bx * 4 < 4 ? width - bx * 4 : 4, h = height - by * 4 < 4 ? height - by * 4 : 4;
                for (uint32_t r = 0; r < h; r++) {
                    memcpy(texels + ((size_t)(by * 4 + r) * width + (size_t)bx * 4) * 4, block + (size_t)r * 16,
                           (size_t)w * 4);
                }
            }
        }
        return 0;
    }
    case PK_ENCODE_ASTC_4X4:
    case PK_ENCODE_ASTC_6X6:
    case PK_ENCODE_ASTC_8X8: {
        const char *err = pk_astc_decompress(enc->astc, in, (size_t)bytes, width, height, texels);
        if (err != NULL) {
            return pk_fail(d, "%s: %s: astcenc could not decode %" PRIu32 " x %" PRIu32 " texels: %s", name, f, width,
                           height, err);
        }
        return 0;
    }
    }
    return pk_fail(d, "%s: texture format %d is unknown", name, (int)enc->format);
}

uint64_t pk_encode_sse(const uint8_t *a, const uint8_t *b, uint32_t width, uint32_t height, uint32_t channels)
{
    /* Exact: each squared difference is at most 255^2 < 2^16, and 2^48
     * of them would be needed to overflow. */
    uint64_t sum = 0;
    const size_t n = (size_t)width * height;
    for (size_t i = 0; i < n; i++) {
        for (uint32_t c = 0; c < channels; c++) {
            int e = (int)a[i * 4 + c] - (int)b[i * 4 + c];
            sum += (uint64_t)(e * e);
        }
    }
    return sum;
}

double pk_encode_psnr(const uint8_t *a, const uint8_t *b, uint32_t width, uint32_t height, uint32_t channels)
{
    if (a == NULL || b == NULL || width == 0 || height == 0 || (channels != 3 && channels != 4)) {
        return 0.0;
    }
    const uint64_t sum = pk_encode_sse(a, b, width, height, channels);
    const size_t n = (size_t)width * height;
    if (sum == 0) {
        return PK_ENCODE_PSNR_IDENTICAL;
    }
    double mse = (double)sum / ((double)n * channels);
    return 10.0 * log10(255.0 * 255.0 / mse);
}
