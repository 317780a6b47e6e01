/* SPDX-License-Identifier: MIT */
/* sluice bench: the distance in pixels between two coverage masks.
 *
 * A mask is w x h bytes, a pixel covered where its byte is not 0. The
 * distance from mask a to mask b is the largest over a's covered pixels of
 * the Euclidean distance to the nearest covered pixel of b (exact, through
 * the distance transform of b); the two-sided distance is the larger of a
 * to b and b to a (the Hausdorff distance between the two pixel sets).
 *
 * Sub-pixel features. A covered pixel none of whose eight neighbours is
 * covered in its own mask is a feature thinner than a pixel (a sliver, the
 * far tip of a thin part): whether the rasterizer covers it depends on
 * where the pixel centres fall, not on how far the surface moved, so a
 * shift of a fraction of a pixel can light it several pixels from anything
 * the other mask covers. Such a pixel is never a source of the distance
 * (it still counts as a target: the other mask's pixels may find it
 * nearest). Every larger feature counts in full.
 *
 * Deterministic: integer masks, exact transforms; no allocation beyond the
 * caller's scratch. */
#ifndef SLUICE_TOOLS_BENCH_MASK_DISTANCE_H
#define SLUICE_TOOLS_BENCH_MASK_DISTANCE_H

#include <stddef.h>
#include <stdint.h>

/* Scratch of the transforms for images of at most `line` - 1 pixels a
 * side: f, d and v of line entries, z of line + 1. */
typedef struct mask_scratch {
    double *f, *d, *z;
    uint32_t *v;
} mask_scratch;

/* A squared distance no two pixels of a w x h image are apart: where a
 * transform is at least this, its mask is empty. */
double mask_far(uint32_t w, uint32_t h);

/* out[y * w + x]: the squared distance from pixel (x, y) to the nearest
 * covered pixel of mask (mask_far(w, h) or more when none is).
 * O(w * h). */
void mask_transform(const uint8_t *mask, uint32_t w, uint32_t h, double *out, mask_scratch *s);

/* The distance from mask a to the mask whose transform is dt_b (both
 * w x h): the largest over a's covered pixels that are not isolated (see
 * above) of the distance to b's nearest covered pixel; 0 when a has no
 * such pixel, INFINITY when b is empty and a has one. O(w * h). */
double mask_directed(const uint8_t *a, uint32_t w, uint32_t h, const double *dt_b);

#endif
