/* SPDX-License-Identifier: MIT */
/* sluice pack: synthetic scenes of any size, for tests and benchmarks.
 *
 * A generator hands out one mesh at a time with its placements, so a scene of
 * many GiB is produced in the memory of one mesh. The same kind, size and
 * seed give the same meshes and placements, bit for bit, on a given machine
 * (a private xorshift generator; no rand(), no clock).
 *
 * "city": a grid of lots, each building a unique mesh: one to three stacked
 * tiers over a rectangular, chamfered or polygonal footprint, facades of
 * floors and bays with inset windows (frame, reveal, subdivided glass), a
 * parapet, a flat roof with plant boxes. Several thousand to some tens of
 * thousands of triangles each, with flat normals and metric facade uvs, so
 * the float data has the structure of a real model (repeated coordinates,
 * few distinct normals) and simplification has coplanar detail to remove.
 * About a third of the buildings are placed again on further lots, rotated
 * by a multiple of 90 degrees. */
#ifndef SLUICE_TOOLS_PACK_SYNTH_H
#define SLUICE_TOOLS_PACK_SYNTH_H

#include <stdint.h>

#include "mesh.h"

/* Most placements pk_synth_next gives for one mesh. */
#define PK_SYNTH_MAX_INSTANCES 4u

typedef struct pk_synth pk_synth;

/* Starts a generator of scene `kind` ("city") whose meshes add up to at least
 * target_bytes of float vertex data (position, normal, uv: 32 bytes a vertex)
 * plus uint32 indices, as pk_mesh_input_bytes counts them; it stops after the
 * mesh that reaches the target. Returns 0, or -1 with d->message (an unknown
 * kind, a zero size, out of memory). */
int pk_synth_open(const char *kind, uint64_t target_bytes, uint64_t seed, pk_synth **out, pk_diag *d);

/* The next mesh and its placements. On 1, *mesh is filled (the caller frees
 * it with pk_mesh_free) and inst[0 .. *instance_count) hold its placements,
 * each with .mesh set to the index of this mesh in generation order (0, 1,
 * ...). Returns 1, 0 when the scene is complete, -1 with d->message when out
 * of memory. */
int pk_synth_next(pk_synth *s, pk_mesh *mesh, pk_instance inst[PK_SYNTH_MAX_INSTANCES], uint32_t *instance_count,
                  pk_diag *d);

/* Bytes produced so far and the target, for progress. */
uint64_t pk_synth_bytes_done(const pk_synth *s);
uint64_t pk_synth_bytes_target(const pk_synth *s);

/* Frees the generator. s may be NULL. */
void pk_synth_close(pk_synth *s);

#endif
