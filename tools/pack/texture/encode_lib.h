/* SPDX-License-Identifier: MIT */
/* sluice pack: the C face of the two C++ block-format libraries, for
 * encode.c alone. astcenc.h and squish.h are C++ headers; encode_astc.cpp
 * and encode_bc.cpp include them and export these functions with C
 * linkage, each a thin call of the library (the mapping of quality and
 * flavour to the library's settings included, since the constants live in
 * those headers). No function here throws or allocates beyond what its
 * library does. */
#ifndef SLUICE_TOOLS_PACK_TEXTURE_ENCODE_LIB_H
#define SLUICE_TOOLS_PACK_TEXTURE_ENCODE_LIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "encode.h"

#ifdef __cplusplus
extern "C" {
#endif

/* astcenc's context, opaque here (the same struct tag as astcenc.h's). */
struct astcenc_context;

/* Allocates an astcenc context for one thread: blocks block x block,
 * profile ASTCENC_PRF_LDR_SRGB if srgb else ASTCENC_PRF_LDR, the preset of
 * quality. Returns NULL and sets *ctx, or astcenc's error string (*ctx
 * NULL). */
const char *pk_astc_alloc(uint32_t block, bool srgb, pk_encode_quality quality, struct astcenc_context **ctx);

/* Compresses width x height RGBA8 texels into dst (bytes: exactly the
 * blocks' size), then resets the context for the next image. Returns NULL
 * or astcenc's error string. */
const char *pk_astc_compress(struct astcenc_context *ctx, const uint8_t *texels, uint32_t width, uint32_t height,
                             uint8_t *dst, size_t bytes);

/* Decompresses bytes bytes at src into width x height RGBA8 texels, then
 * resets the context. Returns NULL or astcenc's error string. */
const char *pk_astc_decompress(struct astcenc_context *ctx, const uint8_t *src, size_t bytes, uint32_t width,
                               uint32_t height, uint8_t *texels);

/* Frees ctx; NULL is a no-op. */
void pk_astc_free(struct astcenc_context *ctx);

/* Compresses 16 RGBA8 texels (a 4 x 4 block, row by row) into one BC1
 * block (8 bytes) or, when bc3, one BC3 block (16 bytes): squish's range
 * fit, cluster fit or iterative cluster fit for quality; perceptual or
 * uniform channel weights for srgb. */
void pk_squish_compress(const uint8_t rgba[64], bool bc3, bool srgb, pk_encode_quality quality, void *block);

/* Decompresses one BC1 or BC3 block into 16 RGBA8 texels. */
void pk_squish_decompress(const void *block, bool bc3, uint8_t rgba[64]);

#ifdef __cplusplus
}
#endif

#endif
