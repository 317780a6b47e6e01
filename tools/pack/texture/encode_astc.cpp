/* SPDX-License-Identifier: MIT */
/* sluice pack: ASTC through ARM's astc-encoder, for encode.c (see
 * encode_lib.h). */
#include "encode_lib.h"

#include <astcenc.h>

/* Identity: RGBA in, RGBA out. */
static const astcenc_swizzle rgba_swizzle = {ASTCENC_SWZ_R, ASTCENC_SWZ_G, ASTCENC_SWZ_B, ASTCENC_SWZ_A};

static float preset(pk_encode_quality quality)
{
    switch (quality) {
    case PK_ENCODE_FAST:
        return ASTCENC_PRE_FAST;
    case PK_ENCODE_THOROUGH:
        return ASTCENC_PRE_THOROUGH;
    case PK_ENCODE_MEDIUM:
        break;
    }
    return ASTCENC_PRE_MEDIUM;
}

const char *pk_astc_alloc(uint32_t block, bool srgb, pk_encode_quality quality, astcenc_context **ctx)
{
    *ctx = nullptr;
    astcenc_config config;
    astcenc_error err = astcenc_config_init(srgb ? ASTCENC_PRF_LDR_SRGB : ASTCENC_PRF_LDR, block, block, 1,
                                            preset(quality), 0, &config);
    if (err == ASTCENC_SUCCESS) {
        err = astcenc_context_alloc(&config, 1, ctx);
    }
    return err == ASTCENC_SUCCESS ? nullptr : astcenc_get_error_string(err);
}

/* astcenc reads the texels through a non-const pointer but does not write
 * them when compressing. */
static astcenc_image image_of(const uint8_t *texels, uint32_t width, uint32_t height, void **slice)
{
    *slice = const_cast<uint8_t *>(texels);
    return astcenc_image{width, height, 1, ASTCENC_TYPE_U8, slice};
}

const char *pk_astc_compress(astcenc_context *ctx, const uint8_t *texels, uint32_t width, uint32_t height, uint8_t *dst,
                             size_t bytes)
{
    void *slice;
    astcenc_image img = image_of(texels, width, height, &slice);
    astcenc_error err = astcenc_compress_image(ctx, &img, &rgba_swizzle, dst, bytes, 0);
    astcenc_error reset = astcenc_compress_reset(ctx);
    err = err != ASTCENC_SUCCESS ? err : reset;
    return err == ASTCENC_SUCCESS ? nullptr : astcenc_get_error_string(err);
}

const char *pk_astc_decompress(astcenc_context *ctx, const uint8_t *src, size_t bytes, uint32_t width, uint32_t height,
                               uint8_t *texels)
{
    void *slice;
    astcenc_image img = image_of(texels, width, height, &slice);
    astcenc_error err = astcenc_decompress_image(ctx, src, bytes, &img, &rgba_swizzle, 0);
    astcenc_error reset = astcenc_decompress_reset(ctx);
    err = err != ASTCENC_SUCCESS ? err : reset;
    return err == ASTCENC_SUCCESS ? nullptr : astcenc_get_error_string(err);
}

void pk_astc_free(astcenc_context *ctx)
{
    if (ctx != nullptr) {
        astcenc_context_free(ctx);
    }
}
