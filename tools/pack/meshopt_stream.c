/* SPDX-License-Identifier: MIT */
/* sluice pack: the tools' decoder of known-good meshopt streams (see
 * meshopt_stream.h). */
#include "meshopt_stream.h"

#include <string.h>

#include <meshoptimizer.h>

int pk_meshopt_decode_cluster(const unsigned char *src, slc_pack_meshopt_cluster sizes, uint32_t vertex_count,
                              uint32_t stride, uint32_t triangle_count, unsigned char *vertices,
                              unsigned char *triangles, uint16_t *indices)
{
    if (meshopt_decodeVertexBuffer(vertices, vertex_count, stride, src, sizes.vertex_bytes) != 0) {
        return -1;
    }
    size_t count = (size_t)triangle_count * 3u;
    if (meshopt_decodeIndexBuffer(indices, count, sizeof *indices, src + sizes.vertex_bytes, sizes.index_bytes) != 0) {
        return -1;
    }
    for (size_t k = 0; k < count; k += 3) {
        slc_pack_put_triangle(triangles + k, indices[k] & 0xffu, indices[k + 1] & 0xffu, indices[k + 2] & 0xffu);
    }
    return 0;
}

size_t pk_meshopt_decode_stream(const unsigned char *src, unsigned char *page, uint16_t *indices)
{
    slc_pack_chunk_header ch;
    memcpy(&ch, src, sizeof ch);
    const size_t head = sizeof ch + (size_t)ch.cluster_count * sizeof(slc_pack_cluster);
    memcpy(page, src, head);
    size_t at = head, pos = head;
    for (uint32_t i = 0; i < ch.cluster_count; i++) {
        slc_pack_cluster cl;
        memcpy(&cl, src + sizeof ch + (size_t)i * sizeof cl, sizeof cl);
        slc_pack_meshopt_cluster mc;
        memcpy(&mc, src + pos, sizeof mc);
        pos += sizeof mc;
        memset(page + at, 0, cl.vertex_offset - at); /* alignment padding */
        if (pk_meshopt_decode_cluster(src + pos, mc, cl.vertex_count,
                                      (cl.index_offset - cl.vertex_offset) / cl.vertex_count, cl.triangle_count,
                                      page + cl.vertex_offset, page + cl.index_offset, indices) != 0) {
            return 0;
        }
        pos += (size_t)mc.vertex_bytes + mc.index_bytes;
        at = cl.index_offset + (size_t)cl.triangle_count * 3u;
    }
    return at;
}
