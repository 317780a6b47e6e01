/* SPDX-License-Identifier: MIT */
// sluice renderer: texture sampling, straight from the texture pool's
// pages (docs/pack-format.md "Texture table": tiles with borders, the mip
// tail's levels one after another), through the frame's indirection table
// (one entry a texture chunk: its page, or none). Layouts: RD_MATERIAL_WORDS,
// RD_TEXTURE_WORDS and RD_ENTRY_NONE in platform/src/render_internal.h.
// Formats decoded here: rgba8, bc1, bc3; another format samples as white
// (the material's factors alone). Needs render_frame.glsl first.
layout(constant_id = 1) const uint TEX_SEGMENTS = 1u;

layout(std430, set = 0, binding = 7) readonly buffer TexSegment { uint w[]; } tex_seg[TEX_SEGMENTS];
layout(std430, set = 0, binding = 8) readonly buffer Tables { uint tables[]; };
layout(std430, set = 0, binding = 9) readonly buffer Entries { uint entries[]; };

const uint MATERIAL_WORDS = 52u, TEXTURE_WORDS = 40u, ENTRY_NONE = 0xFFFFFFFFu;
const uint FORMAT_RGBA8 = 1u, FORMAT_BC1 = 2u, FORMAT_BC3 = 3u;
const uint KIND_COLOR = 1u;

// Word i of texture pool page `page`. The segment is picked by a loop whose
// counter indexes the array (dynamically uniform), as pool_word does.
uint tex_word(uint page, uint i)
{
    uint s = page / tex_params.y;
    uint at = (page - s * tex_params.y) * tex_params.z + i;
    uint v = 0u;
    for (uint k = 0u; k < TEX_SEGMENTS; k++) {
        if (k == s) {
            v = tex_seg[k].w[at];
        }
    }
    return v;
}

uint tex_rec(uint t, uint f) { return tables[tex_params.x + t * TEXTURE_WORDS + f]; }
uint mat_word(uint m, uint f) { return tables[m * MATERIAL_WORDS + f]; }
float mat_float(uint m, uint f) { return uintBitsToFloat(mat_word(m, f)); }

vec3 rgb565(uint c) { return vec3(float((c >> 11) & 31u) / 31.0, float((c >> 5) & 63u) / 63.0, float(c & 31u) / 31.0); }

// Texel i (0..15, row by row) of a BC1 colour block (words c: the two
// endpoints, bits: the 2-bit selectors); three_colour: BC1's rule (endpoint
// 0 not above endpoint 1: three colours and transparent black).
vec4 bc_colour(uint c, uint bits, uint i, bool three_colour)
{
    uint c0 = c & 0xFFFFu, c1 = c >> 16;
    vec3 a = rgb565(c0), b = rgb565(c1);
    uint sel = (bits >> (2u * i)) & 3u;
    if (sel == 0u) {
        return vec4(a, 1.0);
    }
    if (sel == 1u) {
        return vec4(b, 1.0);
    }
    if (three_colour && c0 <= c1) {
        return sel == 2u ? vec4((a + b) * 0.5, 1.0) : vec4(0.0);
    }
    return vec4(sel == 2u ? (2.0 * a + b) / 3.0 : (a + 2.0 * b) / 3.0, 1.0);
}

// Texel i of a BC3 alpha block (w0, w1: its 8 bytes).
float bc3_alpha(uint w0, uint w1, uint i)
{
    float a0 = float(w0 & 255u), a1 = float((w0 >> 8) & 255u);
    uint bp = 16u + 3u * i;
    uint v = bp < 32u ? (w0 >> bp) | (bp > 29u ? w1 << (32u - bp) : 0u) : w1 >> (bp - 32u);
    v &= 7u;
    float a;
    if (v == 0u) {
        a = a0;
    } else if (v == 1u) {
        a = a1;
    } else if (a0 > a1) {
        a = (float(8u - v) * a0 + float(v - 1u) * a1) / 7.0;
    } else if (v < 6u) {
        a = (float(6u - v) * a0 + float(v - 1u) * a1) / 5.0;
    } else {
        a = v == 6u ? 0.0 : 255.0;
    }
    return a / 255.0;
}

float srgb_to_linear(float c) { return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4); }

// Texel (x, y) of a region `width` texels wide starting at word `base` of
// `page`, in the texture's format; colour textures decoded to linear.
vec4 fetch(uint format, uint kind, uint page, uint base, uint width, uint x, uint y)
{
    vec4 c;
    if (format == FORMAT_RGBA8) {
        uint v = tex_word(page, base + y * width + x);
        c = vec4(float(v & 255u), float((v >> 8) & 255u), float((v >> 16) & 255u), float(v >> 24)) / 255.0;
    } else if (format == FORMAT_BC1 || format == FORMAT_BC3) {
        uint words = format == FORMAT_BC1 ? 2u : 4u;
        uint block = (y >> 2) * ((width + 3u) >> 2) + (x >> 2);
        uint at = base + block * words;
        uint i = (y & 3u) * 4u + (x & 3u);
        if (format == FORMAT_BC1) {
            c = bc_colour(tex_word(page, at), tex_word(page, at + 1u), i, true);
        } else {
            c = vec4(bc_colour(tex_word(page, at + 2u), tex_word(page, at + 3u), i, false).rgb,
                     bc3_alpha(tex_word(page, at), tex_word(page, at + 1u), i));
        }
    } else {
        return vec4(1.0);
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
    uint format = fk & 255u, kind = (fk >> 8) & 255u, tiled = fk >> 24;
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
        sum += weight * fetch(format, kind, page, base, width, uint(right ? b.x : a.x), uint(down ? b.y : a.y));
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
