/* SPDX-License-Identifier: MIT */
// sluice renderer: the page pool and the draw lists, read as 32-bit words
// only (no 8- or 16-bit storage features). Layouts: docs/pack-format.md
// "Decoded chunk" for the pages; rd_draw, RD_INFO_* and rd_object in
// platform/src/render_internal.h for the lists.
layout(constant_id = 0) const uint SEGMENTS = 1u;

layout(std430, set = 0, binding = 0) readonly buffer Segment { uint w[]; } seg[SEGMENTS];

#include "pack_layout.h"

// A cluster draw. The host writes
//   a: segment, the page's first word in it, cluster index in the page, object
//   b: first placement, placement count, info (RD_INFO_*), 0
// and the cull pass, which reads the cluster record, leaves in its place
// what the vertex shader reads of it, one uvec4 and a word:
//   a: the cluster's first vertex word and first index byte in the segment,
//      first placement, info
//   b: (as written), (as written), (as written), object
struct Draw {
    uvec4 a;
    uvec4 b;
};
#ifdef SLC_CULL_PASS
layout(std430, set = 0, binding = 1) buffer Draws { Draw draws[]; };
#else
layout(std430, set = 0, binding = 1) readonly buffer Draws { Draw draws[]; };
#endif
layout(std430, set = 0, binding = 2) readonly buffer Placements { mat4 placements[]; };

struct Object {
    vec4 pos_offset;
    vec4 pos_scale;
    vec4 uv;    // xy: offset, zw: scale
    uvec4 info; // attributes, stride in words, palette index, 0
};
layout(std430, set = 0, binding = 3) readonly buffer Objects { Object objects[]; };

// Word i of segment s. The segment is picked by a loop over the array, whose
// index is the loop counter (dynamically uniform) even where s is not, as in
// the cull pass where each invocation has its own draw.
uint pool_word(uint s, uint i)
{
    uint v = 0u;
    for (uint k = 0u; k < SEGMENTS; k++) {
        if (k == s) {
            v = seg[k].w[i];
        }
    }
    return v;
}

float pool_float(uint s, uint i) { return uintBitsToFloat(pool_word(s, i)); }

// The word of a cluster record's field f (SLC_GPU_CLUSTER_*: pack_layout.h),
// from the draw as the host wrote it.
uint cluster_word(Draw d, uint f) { return d.a.y + SLC_GPU_CHUNK_HEADER_WORDS + d.a.z * SLC_GPU_CLUSTER_WORDS + f; }
