/* SPDX-License-Identifier: MIT */
/* sluice: the LZ4 block decoder of the pack reader (codecs 1, lz4, and 3,
 * meshopt-lz4), liblz4's, built in when SLC_CODEC_LZ4 is 1 (the default;
 * CMake option SLUICE_CODEC_LZ4). A reader built without it (firmware
 * whose toolchain has no liblz4) refuses a pack with such a chunk at open,
 * naming the option, so neither function below is ever reached there.
 * Not installed. */
#ifndef SLUICE_CODEC_LZ4_H
#define SLUICE_CODEC_LZ4_H

#include <stdint.h>

#ifndef SLC_CODEC_LZ4
#define SLC_CODEC_LZ4 1
#endif

#if SLC_CODEC_LZ4
#include <lz4.h>

/* The most bytes one LZ4 block of n decoded bytes can take. */
#define SLC__LZ4_BOUND(n) ((uint32_t)LZ4_COMPRESSBOUND(n))

/* Decodes the LZ4 block src (stored bytes) into dst (capacity decoded
 * bytes, all of which the decoder may use); returns the bytes decoded, or
 * a negative number when the block is corrupt or decodes to more. */
static inline int slc__lz4_decode(const void *src, void *dst, uint32_t stored, uint32_t decoded)
{
    return LZ4_decompress_safe((const char *)src, (char *)dst, (int)stored, (int)decoded);
}
#else
/* Never reached: the reader refused every LZ4 chunk at open. */
#define SLC__LZ4_BOUND(n) ((void)(n), 0u)

static inline int slc__lz4_decode(const void *src, void *dst, uint32_t stored, uint32_t decoded)
{
    (void)src;
    (void)dst;
    (void)stored;
    (void)decoded;
    return -1;
}
#endif

#endif
