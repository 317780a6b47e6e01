// sluice renderer: the page pool and the draw lists, read as 32-bit words
// only (no 8- or 16-bit storage features). Layouts: docs/pack-format.md
// "Decoded chunk" for the pages; rd_draw and rd_object in
// platform/src/vulkan_render.c for the lists.
layout(constant_id = 0) const uint SEGMENTS = 1u;

layout(std430, set = 0, binding = 0) readonly buffer Segment { uint w[]; } seg[SEGMENTS];

struct Draw {
    uvec4 a; // segment, the page's first word in it, cluster index in the page, object
    uvec4 b; // first placement, placement count, requested lod, served lod
};
layout(std430, set = 0, binding = 1) readonly buffer Draws { Draw draws[]; };
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

// The word of a cluster record's field f (0 object, 1 vertex_offset,
// 2 index_offset, 3 counts, 4..7 sphere).
uint cluster_word(Draw d, uint f) { return d.a.y + 4u + d.a.z * 8u + f; }
