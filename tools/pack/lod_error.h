/* SPDX-License-Identifier: MIT */
/* sluice pack: how far a simplified level lies from its mesh's level 0.
 *
 * The two-sided Hausdorff distance in object space between two triangle
 * surfaces that index the same vertex positions (every level of a mesh
 * indexes its level 0's vertices): the largest distance from a point of
 * one surface to the nearest point of the other, both ways. Each side is
 * measured in three parts, each sample's distance exact (to its nearest
 * point on the other surface, found through a bounding volume hierarchy
 * over that surface's triangles):
 * - every vertex the other surface does not share (where a coarse level
 *   cut a bump off, level 0 deviates most at a vertex; skipping some, as a
 *   cap once did, understated a sloppy level of a real model by a third);
 * - PK_LOD_AREA_SAMPLES points spread over the triangles by area;
 * - every edge, bounded rather than sampled: where a coarse edge cuts
 *   across a fold of level 0 the surfaces lie farthest apart (points
 *   spread by area rarely land there: ToyCar's level 4 recorded 5.81 where
 *   its edges reach 7.34). The distance is 1-Lipschitz, and convex along a
 *   line where it is the distance to one triangle, so an edge's bound comes
 *   from its ends and is halved where it exceeds the largest distance
 *   sampled (plus 1/32 of it) until it does not.
 * The result is at least the true distance on every vertex and edge (and
 * normally at most 1/32 above the largest distance sampled); in the
 * triangles' interiors it is the samples' estimate.
 *
 * Deterministic: the samples are placed by a fixed low-discrepancy rule
 * and the edges taken in a fixed order (no random numbers), so the same
 * input gives the same bits on any thread and in any order. */
#ifndef SLUICE_TOOLS_PACK_LOD_ERROR_H
#define SLUICE_TOOLS_PACK_LOD_ERROR_H

#include <stddef.h>
#include <stdint.h>

/* The area samples taken from one surface, spread by area. With the
 * vertices and edges, a side costs O((vertices + edges + this) x log
 * triangles) queries; an edge needs none where its ends' bounds cover it,
 * more where it crosses the other surface's folds. */
#define PK_LOD_AREA_SAMPLES 8192u

/* A surface: triangle_count triangles, three indices each, into positions
 * (x, y, z as the first three floats of each vertex, stride floats apart).
 * Degenerate triangles are points or segments of the surface. */
typedef struct pk_surface {
    const float *positions;
    size_t stride; /* floats from one vertex to the next, >= 3 */
    const unsigned int *indices;
    size_t triangle_count;
} pk_surface;

/* The nearest-point structure over one surface's triangles. */
typedef struct pk_surface_index pk_surface_index;

/* Builds the index over s (which must outlive it). Returns NULL when out
 * of memory or when s has no triangle. O(n log n) expected for n triangles;
 * allocates about 120 bytes a triangle, and 90 more during the build;
 * thread-safe on distinct outputs. */
pk_surface_index *pk_surface_index_build(const pk_surface *s);

void pk_surface_index_free(pk_surface_index *x);

/* The distance from point p to the nearest point of x's surface, exact
 * (point to triangle, in double precision). O(log n) typically; no
 * allocation; thread-safe (x is only read). */
double pk_surface_distance(const pk_surface_index *x, const double p[3]);

/* The largest distance from a point of surface `from` to surface `to`
 * (indexed by to_index), as described above: one side of the Hausdorff
 * distance. Returns it, or a distance above stop_above as soon as one is
 * found (INFINITY: measure it all), or -1 when out of memory (about 13
 * bytes a vertex and 8 an edge; vertex_count at least one more than the
 * largest index of `from`). Thread-safe. */
double pk_surface_deviation(const pk_surface *from, size_t vertex_count, const pk_surface_index *to_index,
                            double stop_above);

/* The two-sided Hausdorff distance between a and b (each with its index):
 * the larger of the two deviations, or some distance above stop_above as
 * soon as one side finds one. Both sides' vertices and area samples are
 * measured before either side's edges, which then need no halving below
 * the larger side's samples. Returns it, or -1 when out of memory. */
double pk_hausdorff(const pk_surface *a, const pk_surface_index *a_index, const pk_surface *b,
                    const pk_surface_index *b_index, size_t vertex_count, double stop_above);

/* The name of an LOD record's method (SLC_PACK_LOD_METHOD_*: "none",
 * "simplify", "welded", "sloppy") and of its chain_end (SLC_PACK_LOD_END_*:
 * "", "max-lods", "too-small", "error-cap"), for a pack of version 1.2 or
 * later; "unknown" for a value out of range or an older pack (minor < 2),
 * whose words are 0. O(1); thread-safe. */
const char *pk_lod_method_name(unsigned version_minor, uint32_t method);
const char *pk_lod_end_name(unsigned version_minor, uint32_t chain_end);

#endif
