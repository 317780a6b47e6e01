/* SPDX-License-Identifier: MIT */
/* sluice pack: a glTF bufferView compressed with EXT_meshopt_compression (or
 * KHR_meshopt_compression, which has the same fields): reading and checking
 * its extension object, and decoding its bytes with meshoptimizer. The one
 * home of these rules for the importer (gltf.c) and for `sluice bench
 * codec`, which decodes gltfpack's output.
 *
 * The extension's specification (KhronosGroup/glTF,
 * extensions/2.0/Vendor/EXT_meshopt_compression): the view's bytes are
 * count elements of byteStride bytes, stored compressed in
 * [byteOffset, byteOffset + byteLength) of buffer; mode names the
 * bitstream (ATTRIBUTES: vertex data, byteStride a multiple of 4 up to 256;
 * TRIANGLES: a triangle list, count a multiple of 3; INDICES: any index
 * sequence; both with byteStride 2 or 4), filter what is applied to the
 * decoded ATTRIBUTES (NONE, OCTAHEDRAL with byteStride 4 or 8, QUATERNION
 * with 8, EXPONENTIAL with a multiple of 4). The parent view's byteLength
 * is count * byteStride, and its byteStride, when given, the extension's. */
#ifndef SLUICE_TOOLS_PACK_GLTF_MESHOPT_H
#define SLUICE_TOOLS_PACK_GLTF_MESHOPT_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

/* The most bytes one view may decode to (count * byteStride): nothing but
 * the file bounds a count, and a lying one must not make the importer
 * allocate more than this. */
#define GLTF_MESHOPT_MAX_VIEW_BYTES ((uint64_t)1 << 30)

typedef enum { GLTF_MESHOPT_ATTRIBUTES, GLTF_MESHOPT_TRIANGLES, GLTF_MESHOPT_INDICES } gltf_meshopt_mode;

typedef enum {
    GLTF_MESHOPT_NONE,
    GLTF_MESHOPT_OCTAHEDRAL,
    GLTF_MESHOPT_QUATERNION,
    GLTF_MESHOPT_EXPONENTIAL
} gltf_meshopt_filter;

typedef struct gltf_meshopt {
    uint32_t buffer;         /* the buffer holding the compressed bytes */
    uint64_t offset, length; /* where they lie in it (not checked against it) */
    uint32_t count, stride;  /* elements and bytes per element once decoded */
    uint64_t size;           /* count * stride, at most GLTF_MESHOPT_MAX_VIEW_BYTES */
    gltf_meshopt_mode mode;
    gltf_meshopt_filter filter;
} gltf_meshopt;

/* Reads ext, a bufferView's EXT_/KHR_meshopt_compression object, into out.
 * buffer_count: the file's buffers; view_stride: the parent view's
 * byteStride (0: none); view_length: its byteLength. Returns 0, or -1 with
 * why (cap bytes) naming the member and the failed check, e.g.
 * "byteStride: 6 is not a multiple of 4 (mode ATTRIBUTES)": a member
 * missing or not a whole number in range, buffer not below buffer_count,
 * an unknown mode or filter (COLOR, which only KHR_meshopt_compression
 * defines, included: this build's meshoptimizer has no decoder for it), a
 * byteStride the mode or the filter forbids, a filter on a mode other than
 * ATTRIBUTES, a TRIANGLES count not a multiple of 3, count * byteStride over
 * GLTF_MESHOPT_MAX_VIEW_BYTES or not view_length, a byteStride other than
 * view_stride. The caller checks offset + length against the buffer.
 * O(members); allocates nothing; thread-safe. */
int gltf_meshopt_parse(const cJSON *ext, uint32_t buffer_count, uint32_t view_stride, uint64_t view_length,
                       gltf_meshopt *out, char *why, size_t cap);

/* Decodes the m->length compressed bytes at src into dst (m->size bytes) by
 * m->mode, then applies m->filter in place. Returns 0, or -1 with why ("the
 * 120 compressed bytes do not decode as ATTRIBUTES (meshoptimizer: -2)")
 * when meshoptimizer refuses them (a truncated or corrupt stream, one of a
 * newer bitstream version). O(m->size); allocates nothing; thread-safe on
 * distinct dst. */
int gltf_meshopt_decode(const gltf_meshopt *m, const unsigned char *src, unsigned char *dst, char *why, size_t cap);

/* "ATTRIBUTES", "TRIANGLES" or "INDICES". */
const char *gltf_meshopt_mode_name(gltf_meshopt_mode mode);

#endif
