/* SPDX-License-Identifier: MIT */
#version 450
// sluice bench render, --breakdown: the classic pipeline's vertices fetched
// by the shader from storage buffers instead of by the vertex input stage,
// to tell the cost of pulling itself from what the renderer does besides
// (a draw a cluster, the page's byte indices and encodings, the cull pass).
// INDEXED 0: the vertex is the corner's own (the corner buffer, one vertex
// per index); 1: the corner's 32-bit index is read first, then the vertex.
// The same float position and normal (6 floats a vertex) and placement
// (matrix and colour, 5 vec4) as the classic buffers.

layout(constant_id = 0) const uint INDEXED = 0u;

layout(std430, set = 0, binding = 0) readonly buffer Vertices { float v[]; };
layout(std430, set = 0, binding = 1) readonly buffer Placements { vec4 p[]; };
layout(std430, set = 0, binding = 2) readonly buffer Indices { uint idx[]; };

layout(push_constant) uniform view_block {
    mat4 view_proj;
    vec4 eye;
} view;

layout(location = 0) out vec3 out_normal;
layout(location = 1) out vec3 out_world;
layout(location = 2) out vec3 out_color;

void main()
{
    uint corner = uint(gl_VertexIndex);
    uint i = (INDEXED != 0u ? idx[corner] : corner) * 6u;
    vec3 pos = vec3(v[i], v[i + 1u], v[i + 2u]);
    vec3 n = vec3(v[i + 3u], v[i + 4u], v[i + 5u]);
    uint k = uint(gl_InstanceIndex) * 5u;
    mat4 model = mat4(p[k], p[k + 1u], p[k + 2u], p[k + 3u]);
    vec4 world = model * vec4(pos, 1.0);
    out_world = world.xyz;
    out_normal = mat3(model) * n;
    out_color = p[k + 4u].rgb;
    gl_Position = view.view_proj * world;
}
