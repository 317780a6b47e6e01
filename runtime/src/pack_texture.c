/* SPDX-License-Identifier: MIT */
/* sluice: texel formats and the texture tiling rule of the pack format
 * (sluice/pack.h, docs/pack-format.md "Texture table"). */
#include <stddef.h>
#include <stdint.h>

#include "sluice/pack.h"

#include "internal.h"

static const struct {
    const char *name;
    uint8_t width, height, bytes;
} formats[SLC_PACK_TEXEL_COUNT] = {
    [SLC_PACK_TEXEL_RGBA8] = {"rgba8", 1, 1, 4},       [SLC_PACK_TEXEL_BC1] = {"bc1", 4, 4, 8},
    [SLC_PACK_TEXEL_BC3] = {"bc3", 4, 4, 16},          [SLC_PACK_TEXEL_ASTC_4X4] = {"astc4x4", 4, 4, 16},
    [SLC_PACK_TEXEL_ASTC_6X6] = {"astc6x6", 6, 6, 16}, [SLC_PACK_TEXEL_ASTC_8X8] = {"astc8x8", 8, 8, 16},
};

int slc_pack_texel_block(uint32_t format, uint32_t *width, uint32_t *height, uint32_t *bytes)
{
    if (format == 0 || format >= SLC_PACK_TEXEL_COUNT) {
        return -1;
    }
    *width = formats[format].width;
    *height = formats[format].height;
    *bytes = formats[format].bytes;
    return 0;
}

const char *slc_pack_texel_format_name(uint32_t format)
{
    return format != 0 && format < SLC_PACK_TEXEL_COUNT ? formats[format].name : NULL;
}

size_t slc_pack_texel_format_list(uint32_t mask, char *buf, size_t cap)
{
    SLC_ASSERT(buf != NULL && cap > 0);
    uint32_t count = 0, total = 0;
    for (uint32_t f = 1; f < SLC_PACK_TEXEL_COUNT; f++) {
        total += (mask >> f) & 1u;
    }
    size_t n = 0;
    buf[0] = '\0';
    for (uint32_t f = 1; f < SLC_PACK_TEXEL_COUNT; f++) {
        if (((mask >> f) & 1u) != 0u) {
            const char *sep = count == 0 ? "" : count + 1 == total ? " and " : ", ";
            n += slc__fmt(buf + n, cap - n, "%s%s", sep, formats[f].name);
            count++;
        }
    }
    if (total == 0) {
        n = slc__fmt(buf, cap, "no texel format");
    }
    return n;
}

uint64_t slc_pack_texel_bytes(uint32_t format, uint32_t width, uint32_t height)
{
    uint32_t bw, bh, bytes;
    if (slc_pack_texel_block(format, &bw, &bh, &bytes) != 0 || width == 0 || height == 0) {
        return 0;
    }
    return (uint64_t)((width + bw - 1u) / bw) * ((height + bh - 1u) / bh) * bytes;
}

int slc_pack_texture_layout_of(uint32_t width, uint32_t height, uint32_t format, uint32_t tile, uint32_t border,
                               slc_pack_texture_layout *out)
{
    uint32_t bw, bh, bytes;
    if (width == 0 || height == 0 || width > SLC_PACK_MAX_TEXTURE_SIDE || height > SLC_PACK_MAX_TEXTURE_SIDE ||
        slc_pack_texel_block(format, &bw, &bh, &bytes) != 0 || tile == 0 || border > tile) {
        return -1;
    }
    const uint32_t side = tile + 2u * border;
    if (side % bw != 0 || side % bh != 0) {
        return -1;
    }
    *out = (slc_pack_texture_layout){0};
    uint32_t big = width > height ? width : height, levels = 1;
    while (big > 1u) {
        big >>= 1;
        levels++;
    }
    out->level_count = levels;
    out->tile_bytes = slc_pack_texel_bytes(format, side, side);
    for (uint32_t l = 0; l < levels; l++) {
        uint32_t w = width >> l, h = height >> l;
        w = w > 0 ? w : 1u;
        h = h > 0 ? h : 1u;
        if (w >= tile || h >= tile) {
            out->cols[l] = (w + tile - 1u) / tile;
            out->rows[l] = (h + tile - 1u) / tile;
            out->first[l] = out->tiles;
            out->tiles += out->cols[l] * out->rows[l]; /* at most 16384^2 tiles over all levels: fits */
            out->tiled_levels = l + 1u;
        } else {
            out->tail_bytes += slc_pack_texel_bytes(format, w, h);
        }
    }
    out->chunk_count = out->tiles + (out->tail_bytes > 0 ? 1u : 0u);
    return 0;
}
