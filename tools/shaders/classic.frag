/* SPDX-License-Identifier: MIT */
#version 450
// sluice bench render: the classic pipeline's fragment shader, the reference
// renderer's shading (platform/shaders/render.frag, TINT_NONE) so both
// variants pay the same per pixel: lambert from its light (over the
// camera's shoulder: slc_render_light, pushed with the view) with an ambient term, the vertex normal or (none) the face's from the derivatives
// of the position, turned towards the eye; one colour per object.

layout(location = 0) in vec3 in_normal;
layout(location = 1) in vec3 in_world;
layout(location = 2) in vec3 in_color;

layout(push_constant) uniform view_block {
    mat4 view_proj;
    vec4 eye;   // xyz: the camera; w: 1 where the vertices have normals
    vec4 light; // xyz: towards the light (unit, slc_render_light)
} view;

layout(location = 0) out vec4 out_color;

// The renderer's ambient term (platform/src/render_frames.c).
const float ambient = 0.15;

void main()
{
    vec3 face = cross(dFdx(in_world), dFdy(in_world));
    vec3 n = normalize(dot(in_normal, in_normal) > 0.0 ? in_normal : face);
    if (dot(n, view.eye.xyz - in_world) < 0.0) {
        n = -n;
    }
    float lambert = max(dot(n, view.light.xyz), 0.0);
    out_color = vec4(in_color * (ambient + (1.0 - ambient) * lambert), 1.0);
}
