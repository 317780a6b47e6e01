// sluice renderer: the frame's uniform block, shared by the three stages.
// Its layout is struct rd_frame in platform/src/vulkan_render.c (std140).
layout(std140, set = 0, binding = 4) uniform Frame {
    mat4 view_proj;
    vec4 eye;             // xyz: the camera, for two-sided lighting
    vec4 light;           // xyz: towards the light (unit), w: ambient
    vec4 planes[6];       // the frustum: dot(xyz, p) + w >= 0 inside
    uvec4 params;         // x: tint, y: draws this frame
    vec4 lod_palette[8];  // slc_render_lod_color's table, from C
    vec4 object_palette[8];
};
