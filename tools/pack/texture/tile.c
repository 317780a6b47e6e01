/* SPDX-License-Identifier: MIT */
/* sluice pack: a mip chain cut into tiles with borders (see tile.h). */
#include "tile.h"

#include <string.h>

#include "pack_writer.h"

uint32_t pk_wrap_coord(int64_t v, uint32_t size, pk_wrap wrap)
{
    int64_t n = (int64_t)size;
    switch (wrap) {
    case PK_WRAP_REPEAT:
        return (uint32_t)(((v % n) + n) % n);
    case PK_WRAP_CLAMP_TO_EDGE:
        return (uint32_t)(v < 0 ? 0 : v >= n ? n - 1 : v);
    case PK_WRAP_MIRRORED_REPEAT: {
        int64_t m = ((v % (2 * n)) + 2 * n) % (2 * n);
        return (uint32_t)(m < n ? m : 2 * n - 1 - m);
    }
    }
    return 0;
}

int pk_tile_grid_make(const pk_mip_chain *chain, uint32_t tile, uint32_t border, const char *name, pk_tile_grid *grid,
                      pk_diag *d)
{
    memset(grid, 0, sizeof *grid);
    if (tile == 0 || tile > PK_TILE_MAX_SIZE) {
        return pk_fail(d, "%s: tile size %u is not in 1 .. %u", name, tile, PK_TILE_MAX_SIZE);
    }
    if (border > PK_TILE_MAX_BORDER || border > tile) {
        return pk_fail(d, "%s: tile border %u is more than %u or than the tile size %u", name, border,
                       PK_TILE_MAX_BORDER, tile);
    }
    if (chain->texels == NULL || chain->levels == 0 || chain->levels > PK_MIP_MAX_LEVELS) {
        return pk_fail(d, "%s: no mip chain to cut into tiles", name);
    }
    grid->tile = tile;
    grid->border = border;
    size_t side = (size_t)tile + 2 * (size_t)border;
    grid->tile_bytes = side * side * pk_texel_bytes(chain->format);
    uint32_t i = 0;
    for (; i < chain->levels; i++) {
        const pk_mip_level *l = &chain->level[i];
        if (l->width < tile && l->height < tile) {
            break;
        }
        grid->cols[i] = (l->width + tile - 1) / tile;
        grid->rows[i] = (l->height + tile - 1) / tile;
        grid->tiles += (uint64_t)grid->cols[i] * grid->rows[i];
    }
    grid->tiled_levels = i;
    if (i < chain->levels) {
        grid->tail_offset = chain->level[i].offset;
        grid->tail_bytes = chain->bytes - grid->tail_offset;
    }
    return 0;
}

int pk_tile_write(const pk_mip_chain *chain, const pk_tile_grid *grid, uint32_t level, uint32_t x, uint32_t y,
                  pk_wrap wrap_s, pk_wrap wrap_t, void *dst, size_t cap)
{
    if (level >= grid->tiled_levels || x >= grid->cols[level] || y >= grid->rows[level] || cap < grid->tile_bytes ||
        (unsigned)wrap_s > PK_WRAP_MIRRORED_REPEAT || (unsigned)wrap_t > PK_WRAP_MIRRORED_REPEAT) {
        return -1;
    }
    const pk_mip_level *l = &chain->level[level];
    const uint8_t *src = chain->texels + l->offset;
    size_t tb = pk_texel_bytes(chain->format);
    uint32_t side = grid->tile + 2u * grid->border;
    int64_t x0 = (int64_t)x * grid->tile - grid->border, y0 = (int64_t)y * grid->tile - grid->border;
    uint8_t *out = dst;
    for (uint32_t r = 0; r < side; r++) {
        uint32_t sy = pk_wrap_coord(y0 + r, l->height, wrap_t);
        const uint8_t *row = src + (size_t)sy * l->width * tb;
        for (uint32_t c = 0; c < side; c++) {
            int64_t v = x0 + c;
            uint32_t sx = v >= 0 && v < (int64_t)l->width ? (uint32_t)v : pk_wrap_coord(v, l->width, wrap_s);
            memcpy(out, row + (size_t)sx * tb, tb);
            out += tb;
        }
    }
    return 0;
}

int pk_tile_write_tail(const pk_mip_chain *chain, const pk_tile_grid *grid, void *dst, size_t cap)
{
    if (grid->tail_bytes == 0 || cap < grid->tail_bytes) {
        return -1;
    }
    memcpy(dst, chain->texels + grid->tail_offset, grid->tail_bytes);
    return 0;
}
