/* SPDX-License-Identifier: MIT */
/* sluice pack: the tools' decoder of the meshopt stream the packer writes
 * (docs/pack-format.md, "Meshopt stream"), for streams already known good:
 * the packer's own check of each cluster it encodes, and bench stream's
 * plain decode of meshopt chunks the runtime has verified. It does what the
 * runtime's decoder (runtime/src/codec_meshopt.c) does to make the page,
 * without the checks of the stream's layout, sizes and index range: a
 * stream it has not been given by the packer or through slc_pack_load_chunk
 * must not reach it. */
#ifndef SLUICE_TOOLS_PACK_MESHOPT_STREAM_H
#define SLUICE_TOOLS_PACK_MESHOPT_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "sluice/pack_format.h"

/* uint16_t indices of the scratch both calls take: one cluster's. */
#define PK_MESHOPT_INDICES ((size_t)SLC_PACK_MESHOPT_MAX_TRIANGLES * 3u)

/* Decodes one cluster: the vertex_bytes at src (meshopt_decodeVertexBuffer)
 * into vertex_count vertices of stride bytes at vertices, then the
 * index_bytes after them (meshopt_decodeIndexBuffer, 16-bit into indices,
 * PK_MESHOPT_INDICES of them) into triangle_count triangles of 3 u8 at
 * triangles, each narrowed (index & 0xff) and in its canonical rotation
 * (slc_pack_put_triangle). Returns 0, or -1 when either decoder rejects its
 * bytes. O(vertex_count x stride + triangle_count); no allocation; about
 * 9 KiB of stack in meshoptimizer's vertex decoder; thread-safe. */
int pk_meshopt_decode_cluster(const unsigned char *src, slc_pack_meshopt_cluster sizes, uint32_t vertex_count,
                              uint32_t stride, uint32_t triangle_count, unsigned char *vertices,
                              unsigned char *triangles, uint16_t *indices);

/* Decodes the meshopt stream at src into page: the chunk header and
 * cluster records copied, then per cluster its alignment padding zeroed and
 * pk_meshopt_decode_cluster at the record's offsets, each cluster's stride
 * taken from its record ((index_offset - vertex_offset) / vertex_count).
 * page holds the chunk's decoded bytes; indices as above. Returns the
 * decoded bytes (where the last cluster's triangles end), 0 when a decoder
 * rejects a cluster. Same costs as above, over the chunk. */
size_t pk_meshopt_decode_stream(const unsigned char *src, unsigned char *page, uint16_t *indices);

#endif
