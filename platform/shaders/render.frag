/* SPDX-License-Identifier: MIT */
#version 450
// sluice renderer: shading. TINT_NONE: an object without a material gets
// lambert from a light over the camera's shoulder (the frame's uniforms:
// render_frames.c) with an ambient term, in its palette colour; an object
// with one gets its material (render_texture.glsl samples its textures
// from the texture pool's atlas images): front faces only unless it is
// double-sided, base colour times its factor (alpha mask honoured), metallic-roughness, a tangent-space normal map on a frame
// from the derivatives of position and UV, occlusion and emissive, under
// the same light with a GGX specular term, written in sRGB. Normals are
// the vertex's or (none) the face's from the derivatives of the position,
// turned towards the eye. TINT_LOD: the served level's palette colour,
// flat, with black diagonal stripes where the level is coarser than
// requested. TINT_MIP: the same for the mip level a textured surface's base
// colour was sampled at against the level its texel density asks for.
#include "render_frame.glsl"
#ifdef SLC_MATERIALS
#include "render_texture.glsl"
#endif

layout(location = 0) in vec3 i_world;
layout(location = 1) in vec3 i_normal;
layout(location = 2) flat in uint i_info; // the draw's info word
layout(location = 3) in vec2 i_uv;
layout(location = 4) flat in uint i_object;
#ifdef SLC_MATERIALS
layout(location = 5) flat in uint i_mirrored;
#endif

layout(location = 0) out vec4 o_color;

bool stripe() { return ((int(gl_FragCoord.x) + int(gl_FragCoord.y)) / 4) % 2 == 0; }

#ifdef SLC_MATERIALS
// Built three times (platform/CMakeLists.txt): without SLC_MATERIALS for a
// pack with no material (the palette alone: a small shader, quick for the
// driver to compile); with it and SHADE 1 for materials with their factors
// (no texture pool bound); with SLC_TEXTURES too and SHADE 2 for materials
// sampling the texture pool's atlas images.
// SHADE is a specialisation constant, not a define, so that the factors'
// variant keeps reading the UVs it is given (the normal map's frame):
// an interface the compiler would otherwise strip.
layout(constant_id = 2) const uint SHADE = 1u;

layout(std430, set = 0, binding = 3) readonly buffer ObjectInfo { uvec4 object_info[]; }; // rd_object, as uvec4s

const uint SLOT_BASE = 0u, SLOT_MR = 1u, SLOT_NORMAL = 2u, SLOT_OCCLUSION = 3u, SLOT_EMISSIVE = 4u;
const float PI = 3.14159265;

// Slot k of material m sampled at the pixel (uv, its derivatives through
// the slot's transform); white when the slot is empty or no pool is bound.
vec4 slot_sample(uint m, uint k, vec2 duvdx, vec2 duvdy, out uint used, out uint wanted)
{
    used = 0u;
    wanted = 0u;
    uint f = 12u + 8u * k;
    uint tex = mat_word(m, f);
#ifndef SLC_TEXTURES
    return vec4(1.0);
#else
    if (tex == 0u) {
        return vec4(1.0);
    }
    float r = mat_float(m, f + 5u);
    mat2 rot = mat2(cos(r), sin(r), -sin(r), cos(r));
    vec2 scale = vec2(mat_float(m, f + 6u), mat_float(m, f + 7u));
    vec2 uv = vec2(mat_float(m, f + 3u), mat_float(m, f + 4u)) + rot * (scale * i_uv);
    return sample_texture(tex - 1u, uv, rot * (scale * duvdx), rot * (scale * duvdy), used, wanted);
#endif
}

float linear_to_srgb(float c) { return c <= 0.0031308 ? c * 12.92 : 1.055 * pow(c, 1.0 / 2.4) - 0.055; }
#endif

void main()
{
    // Derivatives first, in uniform control flow.
    vec3 dpdx = dFdx(i_world), dpdy = dFdy(i_world);
    vec2 duvdx = dFdx(i_uv), duvdy = dFdy(i_uv);
    vec3 face = cross(dpdx, dpdy);
#ifdef SLC_MATERIALS
    uint material = object_info[i_object * 4u + 3u].w;
    bool mip_tinted = material != 0u && mat_word(material - 1u, 12u) != 0u;
    // A material that is not double-sided shows its front faces only: the
    // triangles wound counter-clockwise as the pack gives them, seen through
    // a placement that mirrors them reversed.
    if (params.z == 0u && material != 0u && (mat_word(material - 1u, 1u) & 1u) == 0u &&
        gl_FrontFacing == (i_mirrored != 0u)) {
        discard;
    }
#else
    uint material = 0u;
    bool mip_tinted = false;
#endif
    if (params.x == 1u || (params.x == 2u && !mip_tinted)) {
        vec3 c = lod_palette[info_lod_color(i_info)].rgb;
        if (info_coarser(i_info) && stripe()) {
            c = vec3(0.0);
        }
        o_color = vec4(c, 1.0);
        return;
    }
    vec3 n = normalize((info_attributes(i_info) & ATTR_NORMAL) != 0u ? i_normal : face);
    if (dot(n, eye.xyz - i_world) < 0.0) {
        n = -n;
    }
    if (material == 0u) {
        float lambert = max(dot(n, light.xyz), 0.0);
        o_color = vec4(object_palette[info_palette(i_info)].rgb * (light.w + (1.0 - light.w) * lambert), 1.0);
        return;
    }
#ifdef SLC_MATERIALS
    uint m = material - 1u;
    // Every slot through one call (a loop: the sampling is compiled once).
    vec4 texel[5];
    uint used = 0u, wanted = 0u;
    for (uint k = 0u; k < 5u; k++) {
        uint u, w;
        texel[k] = slot_sample(m, k, duvdx, duvdy, u, w);
        if (k == SLOT_BASE) {
            used = u;
            wanted = w;
        }
        if (params.x == 2u) {
            break; // --tint mip: the base colour alone
        }
    }
    vec4 base = texel[SLOT_BASE] * vec4(mat_float(m, 5u), mat_float(m, 6u), mat_float(m, 7u), mat_float(m, 8u));
    if (params.x == 2u) {
        vec3 c = lod_palette[min(used, 7u)].rgb;
        if (used > wanted && stripe()) {
            c = vec3(0.0);
        }
        o_color = vec4(c, 1.0);
        return;
    }
    uint flags = mat_word(m, 1u);
    if (((flags >> 1) & 3u) == 1u && base.a < mat_float(m, 2u)) {
        discard;
    }
    vec4 mr = texel[SLOT_MR];
    float metallic = clamp(mat_float(m, 3u) * mr.b, 0.0, 1.0);
    float roughness = clamp(mat_float(m, 4u) * mr.g, 0.04, 1.0);
    if (SHADE == 2u && mat_word(m, 12u + 8u * SLOT_NORMAL) != 0u) {
        // The tangent frame from the derivatives (no tangents in the pack).
        vec3 t = cross(dpdy, n) * duvdx.x + cross(n, dpdx) * duvdy.x;
        vec3 b = cross(dpdy, n) * duvdx.y + cross(n, dpdx) * duvdy.y;
        float len = max(dot(t, t), dot(b, b));
        if (len > 0.0) {
            float s = mat_float(m, 12u + 8u * SLOT_NORMAL + 2u);
            vec3 tn = texel[SLOT_NORMAL].xyz * 2.0 - 1.0;
            tn.xy *= s;
            n = normalize(mat3(t * inversesqrt(len), b * inversesqrt(len), n) * tn);
        }
    }
    float ao = 1.0;
    if (mat_word(m, 12u + 8u * SLOT_OCCLUSION) != 0u) {
        float strength = mat_float(m, 12u + 8u * SLOT_OCCLUSION + 2u);
        ao = 1.0 + strength * (texel[SLOT_OCCLUSION].r - 1.0);
    }
    vec3 emissive = vec3(mat_float(m, 9u), mat_float(m, 10u), mat_float(m, 11u)) * texel[SLOT_EMISSIVE].rgb;
    // One directional light and an ambient term; GGX specular, Schlick Fresnel.
    vec3 v = normalize(eye.xyz - i_world);
    vec3 l = light.xyz;
    vec3 h = normalize(l + v);
    float nl = max(dot(n, l), 0.0), nv = max(dot(n, v), 1e-4), nh = max(dot(n, h), 0.0), vh = max(dot(v, h), 0.0);
    float a2 = roughness * roughness * roughness * roughness;
    float d = a2 / (PI * pow(nh * nh * (a2 - 1.0) + 1.0, 2.0));
    float k = (roughness + 1.0) * (roughness + 1.0) / 8.0;
    float g = nl / (nl * (1.0 - k) + k) * nv / (nv * (1.0 - k) + k);
    vec3 f0 = mix(vec3(0.04), base.rgb, metallic);
    vec3 fr = f0 + (1.0 - f0) * pow(1.0 - vh, 5.0);
    vec3 spec = d * g * fr / max(4.0 * nl * nv, 1e-4);
    vec3 diffuse = (1.0 - fr) * (1.0 - metallic) * base.rgb;
    vec3 c = light.w * base.rgb * ao + (1.0 - light.w) * (diffuse + spec * PI) * nl + emissive;
    c = clamp(c, 0.0, 1.0);
    o_color = vec4(linear_to_srgb(c.r), linear_to_srgb(c.g), linear_to_srgb(c.b), 1.0);
#endif
}
