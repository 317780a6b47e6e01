/* SPDX-License-Identifier: MIT */
// sluice renderer: what the three stages share: the frame's uniform block
// (its layout is struct rd_frame in platform/src/render_internal.h, std140)
// and the decoding of a draw's info word, which the vertex shader reads and
// hands to the fragment shader.
layout(std140, set = 0, binding = 4) uniform Frame {
    mat4 view_proj;
    vec4 eye;             // xyz: the camera, for two-sided lighting
    vec4 light;           // xyz: towards the light (unit), w: ambient
    vec4 planes[6];       // the frustum: dot(xyz, p) + w >= 0 inside
    uvec4 params;         // x: tint (0 shaded, 1 LOD, 2 mip), y: draws this frame, z: 1 two-sided (no back
                          // face removed)
    vec4 lod_palette[8];  // slc_render_lod_color's table, from C
    vec4 object_palette[8];
    uvec4 tex_params;     // x: first word of the texture records in the tables, y: texture pool pages an atlas
                          // image, z: blocks a page's row, w: the atlas's SLC_PACK_TEXEL_* (0: none bound)
    uvec4 tex_atlas_layout; // x: pages a layer (one above the other), y: a page's height in texels,
                            // z: the format's block side in texels, w: its 32-bit words
};

// A draw's info word (RD_INFO_* in platform/src/render_internal.h).
const uint ATTR_NORMAL = 1u, ATTR_UV = 2u, ATTR_POS_U16 = 4u, ATTR_NORMAL_OCT8 = 8u, ATTR_UV_U16 = 16u;
uint info_attributes(uint info) { return info & 31u; }
uint info_palette(uint info) { return (info >> 5) & 7u; }
uint info_lod_color(uint info) { return (info >> 8) & 7u; }
bool info_coarser(uint info) { return (info & (1u << 11)) != 0u; }
uint info_stride(uint info) { return (info >> 12) & 15u; }
bool info_affine(uint info) { return (info & (1u << 16)) != 0u; }
uint info_segment(uint info) { return (info >> 17) & 63u; }

