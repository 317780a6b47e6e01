/* SPDX-License-Identifier: MIT */
/* Decoding a pack's vertices as docs/pack-format.md specifies, written from
 * the specification alone (not from the builder or the runtime), shared by
 * bench render's classic path (tools/bench/bench_render.c), the builder's
 * test (test_pack_builder.c) and the round trip (test_pack_roundtrip.c):
 * vertex strides from the attribute bits, 16-bit
 * positions and uvs dequantized with the object's offset and scale,
 * octahedral snorm8 normals unfolded and normalised, cluster records of a
 * decoded chunk. */
#ifndef SLUICE_TOOLS_PACK_DECODE_H
#define SLUICE_TOOLS_PACK_DECODE_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "sluice/pack_format.h"

/* Bytes of one vertex with these attribute bits: written again from the
 * specification on purpose, so the tests do not take the runtime's
 * slc_pack_vertex_stride on trust (test_pack_roundtrip compares the two). */
static inline uint32_t stride_of(uint32_t a)
{
    uint32_t s = (a & SLC_PACK_ATTR_POS_U16) ? 8u : 12u;
    if (a & SLC_PACK_ATTR_NORMAL) {
        s += (a & SLC_PACK_ATTR_NORMAL_OCT8) ? 4u : 12u;
    }
    if (a & SLC_PACK_ATTR_UV) {
        s += (a & SLC_PACK_ATTR_UV_U16) ? 4u : 8u;
    }
    return s;
}

/* Cluster record i of a decoded chunk (its bytes as loaded into a page). */
static inline const slc_pack_cluster *pack_cluster_at(const unsigned char *chunk, uint32_t i)
{
    return (const slc_pack_cluster *)(const void *)(chunk + sizeof(slc_pack_chunk_header) +
                                                    (size_t)i * sizeof(slc_pack_cluster));
}

/* One vertex of object ob at v, as floats. nrm and uv are written only when
 * ob has them. */
static inline void decode_vertex(const slc_pack_object *ob, const unsigned char *v, float pos[3], float nrm[3],
                                 float uv[2])
{
    const unsigned char *q = v;
    if (ob->attributes & SLC_PACK_ATTR_POS_U16) {
        uint16_t u[3];
        memcpy(u, q, 6);
        for (int k = 0; k < 3; k++) {
            pos[k] = ob->pos_offset[k] + (float)u[k] / 65535.0f * ob->pos_scale[k];
        }
        q += 8;
    } else {
        memcpy(pos, q, 12);
        q += 12;
    }
    if (ob->attributes & SLC_PACK_ATTR_NORMAL) {
        if (ob->attributes & SLC_PACK_ATTR_NORMAL_OCT8) {
            int8_t s[2];
            memcpy(s, q, 2);
            float x = (float)s[0] / 127.0f, y = (float)s[1] / 127.0f, z = 1.0f - fabsf(x) - fabsf(y);
            if (z < 0.0f) {
                float ox = (1.0f - fabsf(y)) * (x >= 0.0f ? 1.0f : -1.0f);
                float oy = (1.0f - fabsf(x)) * (y >= 0.0f ? 1.0f : -1.0f);
                x = ox;
                y = oy;
            }
            float l = sqrtf(x * x + y * y + z * z);
            nrm[0] = x / l, nrm[1] = y / l, nrm[2] = z / l;
            q += 4;
        } else {
            memcpy(nrm, q, 12);
            q += 12;
        }
    }
    if (ob->attributes & SLC_PACK_ATTR_UV) {
        if (ob->attributes & SLC_PACK_ATTR_UV_U16) {
            uint16_t u[2];
            memcpy(u, q, 4);
            for (int k = 0; k < 2; k++) {
                uv[k] = ob->uv_offset[k] + (float)u[k] / 65535.0f * ob->uv_scale[k];
            }
        } else {
            memcpy(uv, q, 8);
        }
    }
}

#endif
