/* SPDX-License-Identifier: MIT */
#version 450
// sluice bench render: the classic pipeline's vertex shader. Vertices come
// from an ordinary vertex buffer (float position and normal, already
// decoded on the CPU), one placement per instance from an instance-rate
// buffer (the object-to-scene matrix and the object's colour).

layout(location = 0) in vec3 in_pos;
layout(location = 1) in vec3 in_normal;
layout(location = 2) in vec4 in_model0;
layout(location = 3) in vec4 in_model1;
layout(location = 4) in vec4 in_model2;
layout(location = 5) in vec4 in_model3;
layout(location = 6) in vec4 in_color;

layout(push_constant) uniform view_block {
    mat4 view_proj;
    vec4 eye;
} view;

layout(location = 0) out vec3 out_normal;
layout(location = 1) out vec3 out_world;
layout(location = 2) out vec3 out_color;

void main()
{
    mat4 model = mat4(in_model0, in_model1, in_model2, in_model3);
    vec4 world = model * vec4(in_pos, 1.0);
    out_world = world.xyz;
    out_normal = mat3(model) * in_normal;
    out_color = in_color.rgb;
    gl_Position = view.view_proj * world;
}
