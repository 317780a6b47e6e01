/* SPDX-License-Identifier: MIT */
/* sluice: the meshopt chunk codecs' decoder (docs/pack-format.md, "Meshopt
 * stream"); internal to the runtime, used by pack.c. Built when
 * SLC_CODEC_MESHOPT is 1 (CMake option SLUICE_CODEC_MESHOPT). */
#ifndef SLUICE_CODEC_MESHOPT_H
#define SLUICE_CODEC_MESHOPT_H

#include <stddef.h>
#include <stdint.h>

#include "sluice/pack_format.h"
#include "sluice/status.h"

#ifndef SLC_CODEC_MESHOPT
#define SLC_CODEC_MESHOPT 0
#endif

/* Scratch bytes the decoder needs: one cluster's 16-bit indices, aligned
 * inside the scratch by the decoder itself. */
#define SLC__MESHOPT_SCRATCH ((size_t)SLC_PACK_MESHOPT_MAX_TRIANGLES * 3u * 2u + 16u)

/* Which check of the stream failed. */
typedef enum slc__meshopt_check {
    SLC__MESHOPT_OK = 0,
    SLC__MESHOPT_SHORT_HEAD,    /* a: stream bytes, b: header and records */
    SLC__MESHOPT_CLUSTER_COUNT, /* a: header's count, b: record's count, c: magic */
    SLC__MESHOPT_OBJECT,        /* a: object, b: object count */
    SLC__MESHOPT_COUNTS,        /* a: vertices, b: triangles */
    SLC__MESHOPT_LAYOUT,    /* a: vertex_offset, b: index_offset, c: expected vertex_offset, d: expected index_offset */
    SLC__MESHOPT_PAST_PAGE, /* a: cluster end, b: decoded size */
    SLC__MESHOPT_SHORT_PREFIX,   /* a: prefix offset, b: stream bytes */
    SLC__MESHOPT_PAST_STORED,    /* a: vertex bytes, b: index bytes, c: offset, d: stream bytes */
    SLC__MESHOPT_DECODED_SIZE,   /* a: where the clusters end, b: decoded size */
    SLC__MESHOPT_TRAILING,       /* a: bytes after the last cluster */
    SLC__MESHOPT_VERTEX_DECODER, /* a: decoder's error code (as unsigned), b: vertex bytes */
    SLC__MESHOPT_INDEX_DECODER,  /* a: decoder's error code (as unsigned), b: index bytes */
    SLC__MESHOPT_INDEX_RANGE     /* a: triangle, b: index, c: vertex count */
} slc__meshopt_check;

typedef struct slc__meshopt_error {
    slc__meshopt_check check;
    uint32_t cluster;
    uint64_t a, b, c, d;
} slc__meshopt_error;

/* Decodes a meshopt stream of size bytes at src into page (which holds at
 * least c->decoded_size bytes; size <= decoded_size) for the chunk record c, whose clusters'
 * objects are objects[0 .. object_count) (their strides checked at open: a
 * multiple of 4, at most 32). scratch: SLC__MESHOPT_SCRATCH bytes, any
 * alignment.
 *
 * Every size in the stream is checked against size and against
 * c->decoded_size before the first vertex is decoded; nothing is written
 * outside page[0 .. decoded_size). Returns SLC_OK; SLC_E_PACK_DECODED_SIZE
 * when the clusters end elsewhere than decoded_size; otherwise
 * SLC_E_PACK_CORRUPT, with *err saying which check failed (for
 * slc__meshopt_describe). Logs nothing (it may run inside an io guard).
 * O(stream + decoded bytes); no allocation, about 9 KiB of stack inside
 * meshoptimizer's vertex decoder (0.18). Thread-safe. */
slc_status slc__meshopt_decode(const unsigned char *src, size_t size, unsigned char *page, const slc_pack_chunk *c,
                               const slc_pack_object *objects, uint32_t object_count, void *scratch,
                               slc__meshopt_error *err);

/* Words err as "cluster N: ..." (or the stream's own check) into buf;
 * returns the length. */
size_t slc__meshopt_describe(const slc__meshopt_error *err, char *buf, size_t cap);

#endif
