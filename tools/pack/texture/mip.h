/* SPDX-License-Identifier: MIT */
/* sluice pack: an image's full mip chain, down to 1 x 1.
 *
 * Level i + 1 is max(1, w / 2) x max(1, h / 2) (integer halving) of level
 * i's w x h, each texel the box average of the level above: destination
 * column x covers source columns 2x and 2x + 1, and where the source width
 * is odd (and more than 1) the last destination column covers the three
 * columns 2x, 2x + 1 and 2x + 2, so no source texel is dropped; a source
 * width of 1 gives column 0 alone. Rows likewise, so a texel averages 1,
 * 2, 3, 4, 6 or 9 texels with equal weights.
 *
 * How a texel is averaged depends on what the texture holds:
 *   PK_MIP_COLOR   colour (glTF baseColor, emissive): R, G and B are sRGB.
 *                  Each is decoded to linear light, averaged, and encoded
 *                  back, rounding to nearest. Alpha is linear.
 *   PK_MIP_DATA    data (metallic-roughness, occlusion): every channel is
 *                  averaged as an integer, rounding half up.
 *   PK_MIP_NORMAL  a tangent-space normal map: R, G, B are decoded from
 *                  [0, max] to [-1, 1], the vectors averaged, the average
 *                  normalised to unit length ((0, 0, 1) where it vanishes)
 *                  and encoded back, rounding to nearest. Alpha as data.
 * Level 0 is the image's texels unchanged.
 *
 * Exact and deterministic: the integer averages are exact; the colour and
 * normal maths use IEEE double additions, multiplications, divisions and
 * square roots only, in a fixed order (the sRGB curve's powers are computed
 * by Newton iterations of those operations, never by the C library's pow,
 * and the file is compiled with -ffp-contract=off so no multiply-add is
 * fused), so a chain has the same bytes on x86-64, aarch64 and armhf.
 *
 * Memory: the chain is one block, level 0 first, each level right after
 * the one before. Its size (pk_mip_chain_bytes) is at most 4/3 of level 0
 * plus 2 x max(w, h) texels: each level is at most a quarter of the one
 * above until a side reaches 1, then at most half (a 1-texel-high strip).
 * A square power-of-two image takes (4^(n+1) - 1) / (3 x 4^n) of level 0,
 * under 4/3. */
#ifndef SLUICE_TOOLS_PACK_TEXTURE_MIP_H
#define SLUICE_TOOLS_PACK_TEXTURE_MIP_H

#include <stddef.h>
#include <stdint.h>

#include "image.h"
#include "mesh.h"

/* Levels of the largest image (PK_IMAGE_MAX_SIDE = 2^14): 15. */
#define PK_MIP_MAX_LEVELS 15u

typedef enum pk_mip_kind {
    PK_MIP_COLOR = 1,
    PK_MIP_DATA = 2,
    PK_MIP_NORMAL = 3,
} pk_mip_kind;

typedef struct pk_mip_level {
    uint32_t width, height;
    size_t offset; /* bytes from the chain's start */
    size_t bytes;  /* width x height x texel bytes */
} pk_mip_level;

typedef struct pk_mip_chain {
    pk_texel_format format;
    uint32_t levels; /* pk_mip_level_count of level 0 */
    pk_mip_level level[PK_MIP_MAX_LEVELS];
    uint8_t *texels; /* every level, owned */
    size_t bytes;    /* the whole chain */
} pk_mip_chain;

/* Levels of a full chain from w x h (each 1 to PK_IMAGE_MAX_SIDE):
 * floor(log2(max(w, h))) + 1. O(1). */
uint32_t pk_mip_level_count(uint32_t width, uint32_t height);

/* Bytes of a full chain from w x h texels of format (see Memory above).
 * O(levels); no allocation. */
uint64_t pk_mip_chain_bytes(uint32_t width, uint32_t height, pk_texel_format format);

/* Builds img's full chain into *out (overwritten; free with pk_mip_free).
 * Returns 0, or -1 with d->message naming name: fails iff img has no
 * texels, a size past PK_IMAGE_MAX_SIDE, an unknown format or kind, or
 * memory runs out (*out is then zeroed). Cost: O(texels of level 0), each
 * texel of level 0 read once. Allocates the chain (one block; img may be
 * freed afterwards). Thread-safe (no shared state). */
int pk_mip_build(const pk_image *img, pk_mip_kind kind, const char *name, pk_mip_chain *out, pk_diag *d);

/* Frees a chain's texels and zeroes it; NULL is a no-op. */
void pk_mip_free(pk_mip_chain *chain);

/* The sRGB transfer functions used above, on [0, 1] (clamped outside):
 * the IEC 61966-2-1 curves, computed as described under "Exact". Within
 * 1e-12 of the formula. O(1); thread-safe. */
double pk_srgb_to_linear(double s);
double pk_linear_to_srgb(double l);

#endif
