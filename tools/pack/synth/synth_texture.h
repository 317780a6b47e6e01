/* SPDX-License-Identifier: MIT */
/* sluice pack: the synthetic city's textures (`sluice pack --synthetic city
 * --textures`): for each building a facade colour map and its normal map,
 * made from the seed and the building's index alone, so a textured city of
 * any size needs no sample file.
 *
 * The facade: a grid of 8 x 8 windows (dark glass with a sky gradient,
 * a frame around it) in a wall of bricks (rows of bricks offset every other
 * row, light mortar between them, each brick's shade drawn from a hash);
 * the wall's colour comes from the building. The normal map is the same
 * layout as a height field (brick proud, mortar and glass recessed, the
 * frame between), its normals the height's slopes normalised in integers.
 * Integer arithmetic only: the same texels on every target.
 *
 * Sizes: 256 x 256 to 4096 x 4096 (pk_synth_texture_side: mostly small,
 * one building in 20 at 4K), so a city's texture bytes grow with its
 * buildings much as a real scene's do. */
#ifndef SLUICE_TOOLS_PACK_SYNTH_TEXTURE_H
#define SLUICE_TOOLS_PACK_SYNTH_TEXTURE_H
#include <stdint.h>

#include "image.h"
#include "mesh.h"

/* The side of building's textures: 256, 512, 1024, 2048 or 4096, with
 * weights 8, 5, 4, 2 and 1 in 20, drawn from the seed and the index. O(1). */
uint32_t pk_synth_texture_side(uint64_t seed, uint32_t building);

/* Makes building's colour map (normal = 0: RGBA8, sRGB, opaque) or normal
 * map (normal = 1: RGBA8, tangent space, Z up) into *out (free with
 * pk_image_free), its hash set. Returns 0, or -1 with d->message when out of
 * memory. O(side^2). */
int pk_synth_texture(uint64_t seed, uint32_t building, int normal, pk_image *out, pk_diag *d);

#endif
