/* SPDX-License-Identifier: MIT */
#version 450
// sluice renderer: the cull pass. One invocation a cluster draw: the
// cluster's bounding sphere (read from its page) against the frustum under
// each placement of the draw; writes the draw's VkDrawIndirectCommand
// (instance count 0 where no placement sees it), counts what it kept, and
// leaves in the draw's record what the vertex shader reads of it (the
// cluster's vertex and index offsets made absolute: render_pool.glsl).
#define SLC_CULL_PASS 1
#include "render_frame.glsl"
#include "render_pool.glsl"

layout(local_size_x = 64) in;

struct Command {
    uint vertex_count;
    uint instance_count;
    uint first_vertex;
    uint first_instance;
};
layout(std430, set = 0, binding = 5) writeonly buffer Commands { Command commands[]; };
layout(std430, set = 0, binding = 6) buffer Counters {
    uint kept;         // clusters drawn
    uint triangles_lo; // triangles times placements, 64-bit
    uint triangles_hi;
    uint unused;
};

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= params.y) {
        return;
    }
    Draw d = draws[i];
    uint s = d.a.x;
    uint vertex_offset = pool_word(s, cluster_word(d, SLC_GPU_CLUSTER_VERTEX_OFFSET));
    uint index_offset = pool_word(s, cluster_word(d, SLC_GPU_CLUSTER_INDEX_OFFSET));
    uint triangles = pool_word(s, cluster_word(d, SLC_GPU_CLUSTER_COUNTS)) >> SLC_GPU_CLUSTER_TRIANGLES_SHIFT;
    vec4 sphere = vec4(pool_float(s, cluster_word(d, SLC_GPU_CLUSTER_SPHERE)),
                       pool_float(s, cluster_word(d, SLC_GPU_CLUSTER_SPHERE + 1u)),
                       pool_float(s, cluster_word(d, SLC_GPU_CLUSTER_SPHERE + 2u)),
                       pool_float(s, cluster_word(d, SLC_GPU_CLUSTER_SPHERE + 3u)));
    bool seen = false;
    for (uint p = 0u; p < d.b.y && !seen; p++) {
        mat4 m = placements[d.b.x + p];
        vec3 c = (m * vec4(sphere.xyz, 1.0)).xyz;
        float scale = max(length(m[0].xyz), max(length(m[1].xyz), length(m[2].xyz)));
        float r = sphere.w * scale;
        bool inside = true;
        for (int k = 0; k < 6; k++) {
            if (dot(planes[k].xyz, c) + planes[k].w < -r) {
                inside = false;
            }
        }
        seen = inside;
    }
    // A segment's bytes are addressed by 32-bit words: its binding's range
    // is at most maxStorageBufferRange, a uint32_t.
    draws[i].a = uvec4(d.a.y + (vertex_offset >> 2), d.a.y * 4u + index_offset, d.b.x, d.b.z);
    draws[i].b.w = d.a.w;
    uint count = seen ? d.b.y : 0u;
    commands[i] = Command(triangles * 3u, count, 0u, 0u);
    if (seen) {
        atomicAdd(kept, 1u);
        uint add = triangles * count;
        uint before = atomicAdd(triangles_lo, add);
        if (before + add < before) {
            atomicAdd(triangles_hi, 1u);
        }
    }
}
