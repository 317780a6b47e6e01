/* SPDX-License-Identifier: MIT */
#version 450
// sluice renderer: vertex pulling. Finds its draw record by the push
// constant plus gl_DrawID (SLC_DRAW_ID: shaderDrawParameters enabled, one
// multi-draw a frame) or by the push constant alone (one draw call per
// cluster), its placement by gl_InstanceIndex (firstInstance is always 0),
// its triangle corner by gl_VertexIndex, and decodes the vertex from the page
// (position, normal; with SLC_MATERIALS the UV and the object too, for the
// materials' fragment shader) for the fragment shader.
// It reads of the draw record only what the cull pass left there (one uvec4:
// render_pool.glsl), and of the object record only a quantized position's
// decode; its loads from the pool index the segment array directly (the
// segment is dynamically uniform, a draw's own, and init refuses more than
// one segment without shaderStorageBufferArrayDynamicIndexing).
#ifdef SLC_DRAW_ID
#extension GL_ARB_shader_draw_parameters : require
#endif
#include "render_frame.glsl"
#include "render_pool.glsl"

layout(push_constant) uniform Push { uint draw_base; } pc;

layout(location = 0) out vec3 o_world;
layout(location = 1) out vec3 o_normal;
layout(location = 2) flat out uint o_info; // the draw's info word
#ifdef SLC_MATERIALS
layout(location = 3) out vec2 o_uv;
layout(location = 4) flat out uint o_object;
layout(location = 5) flat out uint o_mirrored; // the placement flips handedness: the winding is reversed
#endif

// The placements and the object table again, as words: a vec4 member read
// for its xyz is a 4-word load; these read 3.
layout(std430, set = 0, binding = 2) readonly buffer PlacementWords { float placement_words[]; };
layout(std430, set = 0, binding = 3) readonly buffer ObjectWords { float object_words[]; };

uint word(uint s, uint i) { return SEGMENTS == 1u ? seg[0].w[i] : seg[s].w[i]; }
vec3 placement_column(uint k, uint c) { uint i = k * 16u + c * 4u; return vec3(placement_words[i], placement_words[i + 1u], placement_words[i + 2u]); }
// Word f of object o's record (rd_object: pos_offset at 0, pos_scale at 4).
vec3 object_vec3(uint o, uint f) { uint i = o * 16u + f; return vec3(object_words[i], object_words[i + 1u], object_words[i + 2u]); }
float word_float(uint s, uint i) { return uintBitsToFloat(word(s, i)); }

void main()
{
#ifdef SLC_DRAW_ID
    uint di = pc.draw_base + uint(gl_DrawIDARB);
#else
    uint di = pc.draw_base;
#endif
    uvec4 d = draws[di].a;
    uint info = d.w;
    uint s = info_segment(info);
    uint attrs = info_attributes(info);
    // The corner's uint8 index: the index bytes are not 4-aligned, so the
    // byte is taken from its word.
    uint byte = d.y + uint(gl_VertexIndex);
    uint index = (word(s, byte >> 2) >> ((byte & 3u) * 8u)) & 0xFFu;
    uint w = d.x + index * info_stride(info);
    vec3 pos;
    uint o = draws[di].b.w;
    if ((attrs & ATTR_POS_U16) != 0u) {
        uint a = word(s, w), b = word(s, w + 1u);
        pos = object_vec3(o, 0u) + vec3(float(a & 0xFFFFu), float(a >> 16), float(b & 0xFFFFu)) / 65535.0 * object_vec3(o, 4u);
        w += 2u;
    } else {
        pos = vec3(word_float(s, w), word_float(s, w + 1u), word_float(s, w + 2u));
        w += 3u;
    }
    vec3 n = vec3(0.0);
    if ((attrs & ATTR_NORMAL) != 0u) {
        if ((attrs & ATTR_NORMAL_OCT8) != 0u) {
            int q = int(word(s, w));
            float x = float(bitfieldExtract(q, 0, 8)) / 127.0;
            float y = float(bitfieldExtract(q, 8, 8)) / 127.0;
            float z = 1.0 - abs(x) - abs(y);
            if (z < 0.0) {
                float ox = (1.0 - abs(y)) * (x >= 0.0 ? 1.0 : -1.0);
                float oy = (1.0 - abs(x)) * (y >= 0.0 ? 1.0 : -1.0);
                x = ox;
                y = oy;
            }
            n = normalize(vec3(x, y, z));
        } else {
            n = vec3(word_float(s, w), word_float(s, w + 1u), word_float(s, w + 2u));
        }
    }
#ifdef SLC_MATERIALS
    vec2 uv = vec2(0.0);
    if ((attrs & ATTR_NORMAL) != 0u) {
        w += (attrs & ATTR_NORMAL_OCT8) != 0u ? 1u : 3u;
    }
    if ((attrs & ATTR_UV) != 0u) {
        if ((attrs & ATTR_UV_U16) != 0u) {
            uint q = word(s, w);
            uint i = o * 16u + 8u; // rd_object's uv: offset xy, scale zw
            uv = vec2(object_words[i], object_words[i + 1u]) +
                 vec2(float(q & 0xFFFFu), float(q >> 16)) / 65535.0 * vec2(object_words[i + 2u], object_words[i + 3u]);
        } else {
            uv = vec2(word_float(s, w), word_float(s, w + 1u));
        }
    }
#endif
    uint k = d.z + uint(gl_InstanceIndex);
    mat4 m;
    if (info_affine(info)) {
        // Every placement of the draw has the last row 0 0 0 1 (the host
        // checked): three rows read, the product as with all four.
        m = mat4(vec4(placement_column(k, 0u), 0.0), vec4(placement_column(k, 1u), 0.0),
                 vec4(placement_column(k, 2u), 0.0), vec4(placement_column(k, 3u), 1.0));
    } else {
        m = placements[k];
    }
    vec4 world = m * vec4(pos, 1.0);
    o_world = world.xyz;
    o_normal = mat3(m) * n;
    o_info = info;
#ifdef SLC_MATERIALS
    o_uv = uv;
    o_object = o;
    o_mirrored = determinant(mat3(m)) < 0.0 ? 1u : 0u;
#endif
    gl_Position = view_proj * world;
}
