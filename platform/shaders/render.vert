#version 450
// sluice renderer: vertex pulling. Finds its draw record by the push
// constant plus gl_DrawID (SLC_DRAW_ID: shaderDrawParameters enabled, one
// multi-draw a frame) or by the push constant alone (one draw call per
// cluster), its placement by gl_InstanceIndex (firstInstance is always 0),
// its triangle corner by gl_VertexIndex, and decodes the vertex from the page.
#ifdef SLC_DRAW_ID
#extension GL_ARB_shader_draw_parameters : require
#endif
#include "render_frame.glsl"
#include "render_pool.glsl"

layout(push_constant) uniform Push { uint draw_base; } pc;

layout(location = 0) out vec3 o_world;
layout(location = 1) out vec3 o_normal;
layout(location = 2) flat out uvec4 o_info; // has normals, palette index, requested lod, served lod

const uint ATTR_NORMAL = 1u, ATTR_UV = 2u, ATTR_POS_U16 = 4u, ATTR_NORMAL_OCT8 = 8u, ATTR_UV_U16 = 16u;

void main()
{
#ifdef SLC_DRAW_ID
    uint di = pc.draw_base + uint(gl_DrawIDARB);
#else
    uint di = pc.draw_base;
#endif
    Draw d = draws[di];
    uint s = d.a.x;
    uint page = d.a.y;
    uint vertex_offset = pool_word(s, cluster_word(d, 1u));
    uint index_offset = pool_word(s, cluster_word(d, 2u));
    // The corner's uint8 index: index_offset is not 4-aligned, so the byte
    // is taken from its word.
    uint byte = index_offset + uint(gl_VertexIndex);
    uint index = (pool_word(s, page + (byte >> 2)) >> ((byte & 3u) * 8u)) & 0xFFu;

    Object ob = objects[d.a.w];
    uint attrs = ob.info.x;
    uint w = page + (vertex_offset >> 2) + index * ob.info.y;
    vec3 pos;
    if ((attrs & ATTR_POS_U16) != 0u) {
        uint a = pool_word(s, w), b = pool_word(s, w + 1u);
        pos = ob.pos_offset.xyz + vec3(float(a & 0xFFFFu), float(a >> 16), float(b & 0xFFFFu)) / 65535.0 * ob.pos_scale.xyz;
        w += 2u;
    } else {
        pos = vec3(pool_float(s, w), pool_float(s, w + 1u), pool_float(s, w + 2u));
        w += 3u;
    }
    vec3 n = vec3(0.0);
    if ((attrs & ATTR_NORMAL) != 0u) {
        if ((attrs & ATTR_NORMAL_OCT8) != 0u) {
            int q = int(pool_word(s, w));
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
            w += 1u;
        } else {
            n = vec3(pool_float(s, w), pool_float(s, w + 1u), pool_float(s, w + 2u));
            w += 3u;
        }
    }
    // UVs decoded for completeness of the layouts; the reference shading
    // samples no texture, so nothing reads them (the compiler drops them).
    vec2 uv = vec2(0.0);
    if ((attrs & ATTR_UV) != 0u) {
        if ((attrs & ATTR_UV_U16) != 0u) {
            uint a = pool_word(s, w);
            uv = ob.uv.xy + vec2(float(a & 0xFFFFu), float(a >> 16)) / 65535.0 * ob.uv.zw;
        } else {
            uv = vec2(pool_float(s, w), pool_float(s, w + 1u));
        }
    }
    mat4 m = placements[d.b.x + uint(gl_InstanceIndex)];
    vec4 world = m * vec4(pos, 1.0);
    o_world = world.xyz;
    o_normal = mat3(m) * n;
    o_info = uvec4((attrs & ATTR_NORMAL) != 0u ? 1u : 0u, ob.info.z, d.b.z, d.b.w);
    gl_Position = view_proj * world;
}
