/* SPDX-License-Identifier: MIT */
// sluice renderer: texture sampling from the texture pool's atlas images
// (sluice/vulkan.h "Atlas images": a layer a page, the page's blocks row
// after row), through the frame's indirection table (one entry a texture
// chunk: its page, or none); docs/pack-format.md "Texture table" for the
// tiles with borders and the mip tail's levels one after another. The
// device decodes the format (texelFetch); filtering is done here, so that
// a tile's bilinear footprint stays inside its border. Layouts:
// RD_MATERIAL_WORDS, RD_TEXTURE_WORDS and RD_ENTRY_NONE in
// platform/src/render_internal.h. Needs render_frame.glsl first.
// Built into the fragment shader only with SLC_TEXTURES; without it (no
// texture pool bound) the material's tables alone.
layout(constant_id = 1) const uint TEX_SEGMENTS = 1u;

#ifdef SLC_TEXTURES
layout(set = 0, binding = 7) uniform sampler2DArray tex_atlas[TEX_SEGMENTS];
#endif
layout(std430, set = 0, binding = 8) readonly buffer Tables { uint tables[]; };
layout(std430, set = 0, binding = 9) readonly buffer Entries { uint entries[]; };

const uint MATERIAL_WORDS = 52u, TEXTURE_WORDS = 40u, ENTRY_NONE = 0xFFFFFFFFu;
const uint KIND_COLOR = 1u;

uint tex_rec(uint t, uint f) { return tables[tex_params.x + t * TEXTURE_WORDS + f]; }
uint mat_word(uint m, uint f) { return tables[m * MATERIAL_WORDS + f]; }
float mat_float(uint m, uint f) { return uintBitsToFloat(mat_word(m, f)); }

#ifdef SLC_TEXTURES
float srgb_to_linear(float c) { return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4); }

// The atlas format's block (slc_pack_texel_block, from the host): texels
// a side, 32-bit words.
uint block_side() { return tex_atlas_layout.z; }
uint block_words() { return tex_atlas_layout.w; }

// Texel (x, y) of a region `width` texels wide starting at word `base` of
// `page`: its block's place in the page's layer, decoded by the device;
// colour textures to linear. The image is picked by a loop whose counter
// indexes the array (dynamically uniform).
vec4 fetch(uint kind, uint page, uint base, uint width, uint x, uint y)
{
    uint side = block_side();
    uint k = base / block_words() + (y / side) * ((width + side - 1u) / side) + x / side;
    uint lb = tex_params.z;
    uint s = page / tex_params.y;
    uint in_seg = page - s * tex_params.y;
    uint ppl = tex_atlas_layout.x;
    int layer = int(in_seg / ppl);
    ivec2 at = ivec2((k % lb) * side + x % side, (in_seg % ppl) * tex_atlas_layout.y + (k / lb) * side + y % side);
    vec4 c = vec4(1.0);
    for (uint i = 0u; i < TEX_SEGMENTS; i++) {
        if (i == s) {
            c = texelFetch(tex_atlas[i], ivec3(at, layer), 0);
        }
    }
    if (kind == KIND_COLOR) {
        c.rgb = vec3(srgb_to_linear(c.r), srgb_to_linear(c.g), srgb_to_linear(c.b));
    }
    return c;
}

// uv into [0, 1] by a wrap mode (0 repeat, 1 clamp, 2 mirrored repeat).
float wrap_uv(float u, uint mode)
{
    if (mode == 1u) {
        return clamp(u, 0.0, 1.0);
    }
    if (mode == 2u) {
        float m = mod(u, 2.0);
        return m > 1.0 ? 2.0 - m : m;
    }
    return fract(u);
}

// Texel index i of a level n texels wide, by a wrap mode (the tail has no border).
uint wrap_index(int i, int n, uint mode)
{
    if (mode == 1u) {
        return uint(clamp(i, 0, n - 1));
    }
    if (mode == 2u) {
        int m = ((i % (2 * n)) + 2 * n) % (2 * n);
        return uint(m < n ? m : 2 * n - 1 - m);
    }
    return uint(((i % n) + n) % n);
}

// Bilinear within level l of texture t at uv (wrapped), if the level's
// texels there are bound: a tile's four texels lie inside its border (the
// tile is the nearest texel's), the tail's are wrapped by index.
bool sample_level(uint t, uint l, vec2 uv, out vec4 c)
{
    c = vec4(1.0);
    uint fk = tex_rec(t, 2u);
    uint kind = (fk >> 8) & 255u, tiled = fk >> 24;
    uint wrap = tex_rec(t, 5u);
    ivec2 size = ivec2(max(tex_rec(t, 0u) >> l, 1u), max(tex_rec(t, 1u) >> l, 1u));
    vec2 p = vec2(wrap_uv(uv.x, wrap & 3u), wrap_uv(uv.y, (wrap >> 2) & 3u)) * vec2(size) - 0.5;
    vec2 f = p - floor(p);
    ivec2 i0 = ivec2(floor(p));
    uint page, base, width;
    ivec2 a, b;
    if (l < tiled) {
        int tile = int(tex_rec(t, 4u));
        uint side = tex_rec(t, 3u) & 0xFFFFu, border = tex_rec(t, 3u) >> 16;
        ivec2 n = clamp(ivec2(floor(p + 0.5)), ivec2(0), size - 1);
        ivec2 tc = n / tile;
        page = entries[tex_rec(t, 8u + 2u * l) + uint(tc.y) * tex_rec(t, 9u + 2u * l) + uint(tc.x)];
        if (page == ENTRY_NONE) {
            return false;
        }
        a = i0 - tc * tile + int(border);
        b = a + 1;
        base = 0u;
        width = side;
    } else {
        uint tail = tex_rec(t, 7u);
        page = tail != ENTRY_NONE ? entries[tail] : ENTRY_NONE;
        if (page == ENTRY_NONE) {
            return false;
        }
        a = ivec2(wrap_index(i0.x, size.x, wrap & 3u), wrap_index(i0.y, size.y, (wrap >> 2) & 3u));
        b = ivec2(wrap_index(i0.x + 1, size.x, wrap & 3u), wrap_index(i0.y + 1, size.y, (wrap >> 2) & 3u));
        base = tex_rec(t, 8u + 2u * l);
        width = uint(size.x);
    }
    // The four texels in a loop: one fetch in the code, so the driver
    // compiles (and inlines) the format decoders once.
    vec4 sum = vec4(0.0);
    for (uint k = 0u; k < 4u; k++) {
        bool right = (k & 1u) != 0u, down = k >= 2u;
        float weight = (right ? f.x : 1.0 - f.x) * (down ? f.y : 1.0 - f.y);
        sum += weight * fetch(kind, page, base, width, uint(right ? b.x : a.x), uint(down ? b.y : a.y));
    }
    c = sum;
    return true;
}

// Texture t at uv with the pixel's UV derivatives: the level its texel
// density asks for (`wanted`), else the finest bound level above it
// (`used`; the level count when none is bound: white); trilinear with the
// next level where both are bound.
vec4 sample_texture(uint t, vec2 uv, vec2 dx, vec2 dy, out uint used, out uint wanted)
{
    uint levels = (tex_rec(t, 2u) >> 16) & 255u;
    vec2 size = vec2(float(tex_rec(t, 0u)), float(tex_rec(t, 1u)));
    float rho = max(length(dx * size), length(dy * size));
    float lod = clamp(log2(max(rho, 1e-6)), 0.0, float(levels - 1u));
    wanted = uint(floor(lod));
    used = levels;
    float frac = lod - float(wanted);
    vec4 c = vec4(1.0);
    // One sample_level in the code: the first bound level at or above the
    // wanted one, then (the wanted level bound) the next for the blend.
    for (uint l = wanted; l < levels; l++) {
        vec4 s;
        bool bound = sample_level(t, l, uv, s);
        if (used == levels) {
            if (bound) {
                used = l;
                c = s;
                if (l != wanted || frac <= 0.0) {
                    break;
                }
            }
        } else {
            if (bound) {
                c = mix(c, s, frac);
            }
            break;
        }
    }
    return c;
}
#endif
