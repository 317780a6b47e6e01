/* SPDX-License-Identifier: MIT */
#version 450
// sluice renderer: shading. TINT_NONE: lambert from a light over the
// camera's shoulder (the frame's uniforms: render_frames.c) with an ambient term, the object's palette colour, the vertex normal or (no
// normals) the face's from the derivatives of the position, turned towards
// the eye. TINT_LOD: the served level's palette colour, flat, with black
// diagonal stripes where the level is coarser than requested.
#include "render_frame.glsl"

layout(location = 0) in vec3 i_world;
layout(location = 1) in vec3 i_normal;
layout(location = 2) flat in uint i_info; // the draw's info word

layout(location = 0) out vec4 o_color;

void main()
{
    vec3 face = cross(dFdx(i_world), dFdy(i_world));
    if (params.x == 1u) {
        vec3 c = lod_palette[info_lod_color(i_info)].rgb;
        if (info_coarser(i_info) && ((int(gl_FragCoord.x) + int(gl_FragCoord.y)) / 4) % 2 == 0) {
            c = vec3(0.0);
        }
        o_color = vec4(c, 1.0);
        return;
    }
    vec3 n = normalize((info_attributes(i_info) & ATTR_NORMAL) != 0u ? i_normal : face);
    if (dot(n, eye.xyz - i_world) < 0.0) {
        n = -n;
    }
    float lambert = max(dot(n, light.xyz), 0.0);
    o_color = vec4(object_palette[info_palette(i_info)].rgb * (light.w + (1.0 - light.w) * lambert), 1.0);
}
