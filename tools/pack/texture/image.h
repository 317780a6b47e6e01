/* SPDX-License-Identifier: MIT */
/* sluice pack: images decoded to RGBA, bounded.
 *
 * PNG (1, 2, 4, 8 and 16 bit; palette, grey, grey + alpha, RGB, RGBA;
 * interlaced or not; through libpng) and JPEG (baseline and progressive,
 * grey and YCbCr; through libjpeg-turbo's libjpeg API) decode to RGBA8, or
 * to RGBA16 for a 16-bit PNG. A texture's bytes come from a file or from a
 * memory buffer (a glTF bufferView, a data URI once decoded): the same
 * decoder reads both.
 *
 * Refused, with -1 and d->message naming the image and the failed check,
 * never a crash: an empty or unknown buffer, a container that is known but
 * not decoded (KTX2, KTX, DDS, WebP, GIF, BMP, TIFF, ... named from their
 * magic bytes), truncated or corrupt data (libpng's and libjpeg's own
 * checks, CRCs included; a libjpeg warning such as a premature end of data
 * is an error here, not a grey image), a CMYK JPEG, and a declared size
 * past PK_IMAGE_MAX_SIDE on either side, checked from the header before
 * the texels are allocated (a PNG's IHDR is read before libpng starts, so
 * the same check and message hold on 32- and 64-bit targets; a JPEG's
 * frame header after jpeg_read_header, which allocates only libjpeg's own
 * state). Both libraries report errors by longjmp from
 * their error handlers; everything allocated is reachable from a context
 * that the error path frees.
 *
 * Identical images are recognised by their content hash (pk_image_hash):
 * XXH3-64 of the width, height and format (each 4 bytes, little-endian)
 * followed by the texels, so two files (a PNG and its re-encoding, a
 * palette PNG and its RGB twin) that decode to the same texels hash alike
 * and the packer stores them once. */
#ifndef SLUICE_TOOLS_PACK_TEXTURE_IMAGE_H
#define SLUICE_TOOLS_PACK_TEXTURE_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "mesh.h"

/* The largest side of an image the packer decodes: 16384, the largest 2D
 * texture Vulkan devices commonly offer. A 16384 x 16384 RGBA16 image is
 * 2 GiB (2^14 x 2^14 x 8 = 2^31 bytes): the size computation is done in
 * 64 bits and cannot overflow, and fits a 32-bit size_t. */
#define PK_IMAGE_MAX_SIDE 16384u

/* Progressive JPEG scans decoded before an image is refused as hostile: a
 * real encoder writes about 10 (libjpeg's default script), a crafted file
 * can hold millions of empty ones that cost time but no memory. */
#define PK_IMAGE_MAX_JPEG_SCANS 1000u

typedef enum pk_texel_format {
    PK_TEXEL_RGBA8 = 1,  /* 4 bytes: R, G, B, A */
    PK_TEXEL_RGBA16 = 2, /* 8 bytes: R, G, B, A as host-order uint16 (little-endian on every target) */
} pk_texel_format;

/* Bytes of one texel of format (4 or 8; 0 for an unknown format). */
uint32_t pk_texel_bytes(pk_texel_format format);

/* A decoded image: width x height texels, rows top to bottom, no padding. */
typedef struct pk_image {
    uint32_t width, height;
    pk_texel_format format;
    uint8_t *texels; /* width x height x pk_texel_bytes(format) bytes, owned */
    uint64_t hash;   /* pk_image_hash of the above, set by the decoder */
    /* Seconds it took to make, for the packer's summary: set by the importer
     * that hands it on (a file's read and decode, a generator's run); the
     * decoder leaves it 0. Not part of the hash. */
    double decode_seconds;
} pk_image;

/* What the first bytes of data (size bytes) say it is: "PNG", "JPEG", or
 * the name of a container the packer does not decode ("KTX2", "KTX",
 * "DDS", "WebP", "GIF", "BMP", "TIFF", "AVIF", "HEIF", "OpenEXR",
 * "Radiance HDR", "Basis Universal", "JPEG 2000", "JPEG XL"), or NULL when
 * nothing is recognised. Reads at most 16 bytes; O(1). Thread-safe. */
const char *pk_image_kind(const void *data, size_t size);

/* Checks a declared size before anything is allocated: refused (-1, with
 * d->message naming name, both sides and the cap) iff width or height is
 * 0 or more than PK_IMAGE_MAX_SIDE. Sets *bytes to width x height x
 * bytes_per_texel (bytes_per_texel at most 8), computed in 64 bits (at
 * most 2^31). O(1); no allocation. Thread-safe. */
int pk_image_check_size(const char *name, uint32_t width, uint32_t height, uint32_t bytes_per_texel, uint64_t *bytes,
                        pk_diag *d);

/* Decodes size bytes at data, named name in messages ("Avocado.gltf
 * image 2", a path), into *out (overwritten; free with pk_image_free).
 * Returns 0, or -1 with d->message "name: ..." and *out zeroed. Fails iff
 * the data is refused (see above) or memory runs out. Cost: the
 * libraries' decode, O(texels), plus one pass to hash. Allocates the
 * texels (checked against the cap first) and the libraries' own state;
 * nothing is left allocated on failure. Thread-safe (no shared state). */
int pk_image_decode(const void *data, size_t size, const char *name, pk_image *out, pk_diag *d);

/* Reads the file at path whole and decodes it as pk_image_decode does,
 * messages naming path. Fails as pk_image_decode does, and iff the file
 * cannot be opened or read, is empty, or is larger than
 * PK_IMAGE_MAX_FILE_BYTES. Allocates the file's bytes for the call. */
#define PK_IMAGE_MAX_FILE_BYTES ((uint64_t)1 << 30)
int pk_image_load(const char *path, pk_image *out, pk_diag *d);

/* The content hash of an image (see above). O(texels); no allocation. */
uint64_t pk_image_hash(const pk_image *img);

/* Frees img's texels and zeroes it; NULL is a no-op. */
void pk_image_free(pk_image *img);

#endif
