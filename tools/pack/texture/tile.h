/* SPDX-License-Identifier: MIT */
/* sluice pack: a mip chain cut into fixed-size tiles with borders, and its
 * mip tail.
 *
 * A level is tiled iff it is at least one tile wide or high (width >= tile
 * or height >= tile); since levels shrink, the tiled levels are the first
 * ones, and the rest (both sides under a tile) form the mip tail, kept
 * together. Level i is cut into cols x rows tiles (ceil(width / tile) x
 * ceil(height / tile)); tile (x, y) holds the texels from column x x tile
 * and row y x tile of its level, tile x tile of them (its payload), inside
 * a border of `border` texels on each side: (tile + 2 border)^2 texels in
 * all, rows top to bottom, in the chain's texel format.
 *
 * Every texel of a tile, border or payload, is the level's texel at its
 * coordinates when they lie inside the level; outside (beyond the image's
 * edge, and a partial tile's payload past it) the coordinates are
 * resolved by the texture's wrap mode on that axis, as a sampler would:
 *   PK_WRAP_REPEAT           from the opposite edge (coordinate mod size),
 *   PK_WRAP_CLAMP_TO_EDGE    the edge texel repeated,
 *   PK_WRAP_MIRRORED_REPEAT  mirrored, the edge texel once per side
 *                            (-1 reads 0, size reads size - 1),
 * so filtering near a tile's edge, border texels included, never reads a
 * texel that the whole level would not give it.
 *
 * The mip tail is the chain's last levels as they are (one after the
 * other, no border: it is small, and sampled as one piece with the wrap
 * mode). */
#ifndef SLUICE_TOOLS_PACK_TEXTURE_TILE_H
#define SLUICE_TOOLS_PACK_TEXTURE_TILE_H

#include <stddef.h>
#include <stdint.h>

#include "mesh.h"
#include "mip.h"

/* The largest tile payload side and border a grid accepts. */
#define PK_TILE_MAX_SIZE 4096u
#define PK_TILE_MAX_BORDER 64u

typedef enum pk_wrap {
    PK_WRAP_REPEAT = 0,
    PK_WRAP_CLAMP_TO_EDGE = 1,
    PK_WRAP_MIRRORED_REPEAT = 2,
} pk_wrap;

/* Where a coordinate v (any integer) of an axis of size texels (>= 1)
 * reads under wrap: a coordinate in [0, size). O(1); thread-safe. */
uint32_t pk_wrap_coord(int64_t v, uint32_t size, pk_wrap wrap);

typedef struct pk_tile_grid {
    uint32_t tile, border;            /* payload side, border width */
    uint32_t tiled_levels;            /* levels 0 .. tiled_levels - 1 are cut into tiles */
    uint32_t cols[PK_MIP_MAX_LEVELS]; /* tiles across each tiled level (0 beyond) */
    uint32_t rows[PK_MIP_MAX_LEVELS]; /* tiles down */
    uint64_t tiles;                   /* tiles of every tiled level */
    size_t tile_bytes;                /* (tile + 2 border)^2 texels */
    size_t tail_offset, tail_bytes;   /* the mip tail in the chain (levels tiled_levels ..); 0 bytes if none */
} pk_tile_grid;

/* The grid of chain cut into tile x tile payloads with border texels.
 * Returns 0, or -1 with d->message naming name: fails iff tile is 0 or
 * more than PK_TILE_MAX_SIZE, border more than PK_TILE_MAX_BORDER or than
 * tile, or the chain is empty. O(levels); no allocation. Thread-safe. */
int pk_tile_grid_make(const pk_mip_chain *chain, uint32_t tile, uint32_t border, const char *name, pk_tile_grid *grid,
                      pk_diag *d);

/* Writes tile (x, y) of level, with its border, into dst (cap bytes):
 * grid->tile_bytes bytes, wrap_s resolving columns and wrap_t rows outside
 * the level. Returns 0, or -1 (dst untouched) iff level is not tiled, x or
 * y is past the level's grid, a wrap mode is unknown, or cap is less than
 * grid->tile_bytes. Cost: O(tile_bytes). No allocation; thread-safe. */
int pk_tile_write(const pk_mip_chain *chain, const pk_tile_grid *grid, uint32_t level, uint32_t x, uint32_t y,
                  pk_wrap wrap_s, pk_wrap wrap_t, void *dst, size_t cap);

/* Copies the mip tail (grid->tail_bytes bytes) into dst (cap bytes).
 * Returns 0, or -1 (dst untouched) iff there is no tail or cap is less.
 * O(tail_bytes); no allocation; thread-safe. */
int pk_tile_write_tail(const pk_mip_chain *chain, const pk_tile_grid *grid, void *dst, size_t cap);

#endif
