/* SPDX-License-Identifier: MIT */
/* sluice pack: texture tiles encoded into the block formats a GPU samples
 * directly, and decoded back.
 *
 * Input: RGBA8 texels, rows top to bottom, no padding (what pk_image,
 * pk_mip_chain and pk_tile_write give). Output, by format:
 *
 *   name      block   bytes  Vulkan format (UNORM / SRGB)  library
 *   rgba8     1 x 1   4      R8G8B8A8                      (a copy)
 *   bc1       4 x 4   8      BC1_RGBA                      libsquish
 *   bc3       4 x 4   16     BC3                           libsquish
 *   astc4x4   4 x 4   16     ASTC_4x4                      astc-encoder
 *   astc6x6   6 x 6   16     ASTC_6x6                      astc-encoder
 *   astc8x8   8 x 8   16     ASTC_8x8                      astc-encoder
 *
 * Blocks are stored row by row, left to right, top row first, each block's
 * bytes as the format defines them (no header, no padding between rows). A
 * w x h image has ceil(w / bw) x ceil(h / bh) blocks; where the last column
 * or row of blocks reaches past the image, the texels beyond its right and
 * bottom edges are encoded as the edge texels repeated (clamp to edge), so
 * every w x h with both sides in 1 .. PK_IMAGE_MAX_SIDE encodes and an
 * edge block's endpoints are fitted to texels the image has. (A GPU image
 * of extent w x h never samples the padding: Vulkan allows block-compressed
 * images whose extent is not a multiple of the block.)
 *
 * sRGB or linear: colour textures (base colour, emissive) hold sRGB-encoded
 * values and are sampled through a *_SRGB format; data textures (normal,
 * metallic-roughness, occlusion) are linear and sampled through *_UNORM.
 * The srgb flag of an encoder says which:
 *   rgba8   the same bytes either way (the flag picks the Vulkan format).
 *   bc1/3   the colour endpoints are fitted with squish's perceptual channel
 *           weights (0.2126, 0.7152, 0.0722: an error in green shows most)
 *           for sRGB, with equal weights for linear data (a normal's X
 *           matters as much as its Y); so the bytes differ.
 *   astc    astcenc's profile: ASTCENC_PRF_LDR_SRGB or ASTCENC_PRF_LDR.
 *           ASTC's sRGB endpoints decode differently from UNORM ones, so an
 *           sRGB encoding must be sampled as *_SRGB and a linear one as
 *           *_UNORM; the bytes differ.
 *
 * Quality: PK_ENCODE_MEDIUM by default (value 0). For ASTC the astcenc
 * presets ASTCENC_PRE_FAST, _MEDIUM, _THOROUGH; for BC1/BC3 squish's range
 * fit (fast), cluster fit (medium), iterative cluster fit (thorough). RGBA8
 * ignores it.
 *
 * Deterministic: the same texels, format, flag and quality give the same
 * bytes on every call, from every encoder, on every thread, with the same
 * library builds on the same machine. Neither library keeps state between
 * blocks or images (an astcenc context is reset after each image; squish
 * compresses each 4 x 4 block from its 16 texels alone, and is called a
 * block at a time here, never through its OpenMP-parallel CompressImage),
 * and both are single-threaded here.
 *
 * Across architectures the bytes are NOT promised to be identical, so
 * compare decoded texels (or PSNR), never encoded bytes, between targets:
 *   - astc-encoder builds are by default "invariant" (ASTCENC_INVARIANCE,
 *     no fused multiply-add, fixed summation order): since 2.5 its change
 *     log says all builds "except Armv7" are "believed to be invariant
 *     across operating systems, compilers, CPU architectures, and SIMD
 *     instruction sets". Believed, not tested here: an upstream report
 *     (issue 474, NEON with clang against AVX2 with GCC) found differences,
 *     closed without a reproduction; armhf is Armv7, explicitly excluded;
 *     and a distribution chooses the SIMD build (Debian 12's amd64 library
 *     is SSE2 only, by disassembly) and may choose the option otherwise.
 *   - libsquish is scalar float code with no invariance claim; a compiler
 *     that fuses multiply-adds (GCC's default on aarch64) can round a fit
 *     differently and pick other endpoints.
 * Decoding, unlike the encoders' search, is defined by the formats (ASTC
 * bit-exactly), so decoded texels, not encoded bytes, are what to compare
 * between targets.
 *
 * Decoding: with the same libraries, to RGBA8. It serves to measure
 * quality and as a CPU fallback. A GPU's BC1/BC3 decode may differ from
 * squish's slightly (the formats leave the rounding of the interpolated
 * colours to the hardware); ASTC decoding is bit-exact by specification.
 * An sRGB texture decodes to its sRGB-encoded values (what a *_SRGB format
 * holds before the sampler converts to linear). */
#ifndef SLUICE_TOOLS_PACK_TEXTURE_ENCODE_H
#define SLUICE_TOOLS_PACK_TEXTURE_ENCODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "image.h"
#include "mesh.h"

typedef enum pk_encode_format {
    PK_ENCODE_RGBA8 = 1,
    PK_ENCODE_BC1 = 2,
    PK_ENCODE_BC3 = 3,
    PK_ENCODE_ASTC_4X4 = 4,
    PK_ENCODE_ASTC_6X6 = 5,
    PK_ENCODE_ASTC_8X8 = 6,
} pk_encode_format;

/* Formats 1 .. PK_ENCODE_FORMAT_COUNT are valid. */
#define PK_ENCODE_FORMAT_COUNT 6u

typedef enum pk_encode_quality {
    PK_ENCODE_MEDIUM = 0, /* the default */
    PK_ENCODE_FAST = 1,
    PK_ENCODE_THOROUGH = 2,
} pk_encode_quality;

/* The largest block of any format: 8 x 8 texels, 16 bytes. */
#define PK_ENCODE_MAX_BLOCK_SIDE 8u
#define PK_ENCODE_MAX_BLOCK_BYTES 16u

/* One block of a format: width x height texels in bytes bytes. */
typedef struct pk_encode_block {
    uint32_t width, height;
    uint32_t bytes;
} pk_encode_block;

/* The CLI spelling of format ("rgba8", "bc1", "bc3", "astc4x4", "astc6x6",
 * "astc8x8"), or NULL for an unknown format. O(1); thread-safe. */
const char *pk_encode_format_name(pk_encode_format format);

/* The format spelt text (exactly one of the names above, case-sensitive)
 * into *format. Returns 0, or -1 with d->message "text: unknown texture
 * format: ..." listing the accepted names (and *format untouched) iff text
 * is NULL or no name matches. O(formats); no allocation; thread-safe. */
int pk_encode_format_parse(const char *text, pk_encode_format *format, pk_diag *d);

/* "fast", "medium" or "thorough"; NULL for an unknown quality. O(1). */
const char *pk_encode_quality_name(pk_encode_quality quality);

/* As pk_encode_format_parse, for the quality names. */
int pk_encode_quality_parse(const char *text, pk_encode_quality *quality, pk_diag *d);

/* The block of format (see the table above); all zero for an unknown
 * format. O(1); thread-safe. */
pk_encode_block pk_encode_block_of(pk_encode_format format);

/* Bytes of a width x height image encoded as format: ceil(width / bw) x
 * ceil(height / bh) x block bytes, in 64 bits (at most 2^30, the RGBA8 of
 * a PK_IMAGE_MAX_SIDE square). 0 for an unknown format or a 0 side; sides
 * past PK_IMAGE_MAX_SIDE are computed all the same (pk_encode_check_size
 * refuses them). O(1); thread-safe. */
uint64_t pk_encode_bytes(pk_encode_format format, uint32_t width, uint32_t height);

/* Checks a size before encoding: refused (-1, d->message naming name, the
 * size and the failed check; *bytes = 0) iff format is unknown, width or
 * height is 0, or either is more than PK_IMAGE_MAX_SIDE. Else *bytes =
 * pk_encode_bytes. name may be NULL ("image"). O(1); thread-safe. */
int pk_encode_check_size(const char *name, pk_encode_format format, uint32_t width, uint32_t height, uint64_t *bytes,
                         pk_diag *d);

/* An encoder (and decoder) of one format, flavour and quality. Create one
 * per thread and reuse it for every tile: an ASTC encoder holds an astcenc
 * context, whose creation builds the block-mode and partition tables
 * (measured with Debian 12's astcenc 4.2 on x86-64: 3.5 ms for 4 x 4,
 * 5 ms for 6 x 6, 8 ms for 8 x 8; 32.6 MiB allocated, of which 4.3, 5.4
 * and 9.3 MiB are touched). BC and RGBA8 encoders hold no library state.
 *
 * Speed, one thread, 256 x 256 tiles of ToyCar's 1024 x 1024 base colour
 * (large flat areas: a busier image is slower), release build, x86-64
 * (2-core VM), megatexels per second, fast / medium / thorough:
 *   rgba8 ~3000 (a copy); bc1 66 / 6.6 / 4.2; bc3 35 / 7.1 / 4.8;
 *   astc4x4 14 / 3.8 / 1.25; astc6x6 11 / 4.1 / 1.2; astc8x8 9.6 / 3.1 / 1.1. */
typedef struct pk_encoder pk_encoder;

/* Creates an encoder into *out. Returns 0, or -1 with d->message and *out
 * NULL iff format or quality is unknown, out is NULL, memory runs out, or
 * astcenc refuses the configuration or the CPU (its own error string is
 * quoted). Allocates the encoder and, for ASTC, an astcenc context for one
 * thread. Thread-safe (no shared state). */
int pk_encoder_create(pk_encode_format format, bool srgb, pk_encode_quality quality, pk_encoder **out, pk_diag *d);

/* The encoder's format, flavour and quality. O(1). */
pk_encode_format pk_encoder_format(const pk_encoder *enc);
bool pk_encoder_srgb(const pk_encoder *enc);
pk_encode_quality pk_encoder_quality(const pk_encoder *enc);

/* Encodes width x height RGBA8 texels into dst (cap bytes): exactly
 * pk_encode_bytes(format, width, height) bytes are written. name (may be
 * NULL: "image") names the image in messages. Returns 0, or -1 with
 * d->message "name: format: what failed" (dst then holds nothing useful)
 * iff enc, texels or dst is NULL, the size is refused (see
 * pk_encode_check_size), cap is less than the encoded size, or the library
 * reports an error (its own error string is quoted). Cost: O(texels), the
 * library's per-block search (speeds above); RGBA8 is a copy.
 * No allocation. Not thread-safe on one encoder: one thread at a time. */
int pk_encoder_encode(pk_encoder *enc, const uint8_t *texels, uint32_t width, uint32_t height, const char *name,
                      void *dst, size_t cap, pk_diag *d);

/* Decodes size bytes of blocks at src, a width x height image encoded in
 * enc's format and flavour, into RGBA8 texels (cap bytes; width x height x
 * 4 are written). Returns 0, or -1 with d->message iff enc, src or texels
 * is NULL, the size is refused, size is less than pk_encode_bytes, cap is
 * less than width x height x 4, or the library reports an error. O(texels);
 * no allocation. Not thread-safe on one encoder. */
int pk_encoder_decode(pk_encoder *enc, const void *src, size_t size, uint32_t width, uint32_t height, const char *name,
                      uint8_t *texels, size_t cap, pk_diag *d);

/* Frees an encoder and its library state; NULL is a no-op. */
void pk_encoder_destroy(pk_encoder *enc);

/* What pk_encode_psnr returns for identical images: above any finite PSNR
 * of an image within PK_IMAGE_MAX_SIDE (at most 10 log10(255^2 x 2^30) =
 * 138.4 dB: one channel off by 1 among the 2^30 of a 16384 x 16384 RGBA
 * image), and finite, so it prints and compares as a number. */
#define PK_ENCODE_PSNR_IDENTICAL 200.0

/* The sum of squared differences of b against a, both width x height RGBA8
 * texels, over R, G and B (channels = 3) or R, G, B and A (channels = 4):
 * exact (2^48 texels would be needed to overflow). O(texels); no
 * allocation; thread-safe. */
uint64_t pk_encode_sse(const uint8_t *a, const uint8_t *b, uint32_t width, uint32_t height, uint32_t channels);

/* The peak signal-to-noise ratio of b against a, both width x height RGBA8
 * texels: 10 log10(255^2 / MSE), the mean squared error taken over R, G
 * and B (channels = 3; alpha ignored) or R, G, B and A (channels = 4), in
 * dB. PK_ENCODE_PSNR_IDENTICAL when they are equal on those channels; 0
 * when a or b is NULL, a side is 0, or channels is not 3 or 4. O(texels);
 * no allocation; thread-safe. */
double pk_encode_psnr(const uint8_t *a, const uint8_t *b, uint32_t width, uint32_t height, uint32_t channels);

#endif
