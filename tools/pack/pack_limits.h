/* SPDX-License-Identifier: MIT */
/* sluice pack: the largest scene a pack holds, and the check that refuses a
 * scene past it before anything is packed.
 *
 * Every limit here is derived from the format's record types
 * (sluice/pack_format.h: the width of each count field) or from the
 * runtime's own bounds (sluice/limits.h, sluice/profile.h: what any profile
 * lets the reader open), never restated as a number. docs/pack-format.md,
 * "Limits: the largest scene a pack holds", says what they mean. (Named
 * pack_limits.h, not limits.h: this folder is on the include path of the
 * packer and the CLI, where a limits.h would hide the C library's.) */
#ifndef SLUICE_TOOLS_PACK_LIMITS_H
#define SLUICE_TOOLS_PACK_LIMITS_H

#include <stdint.h>

#include "importer.h"
#include "mesh.h"
#include "sluice/limits.h"
#include "sluice/pack_format.h"
#include "sluice/profile.h"

/* The largest value of an unsigned field of a format record. */
#define PK_FIELD_MAX(type, field) (UINT64_MAX >> (64u - 8u * sizeof(((type *)0)->field)))

/* Chunks and objects: the header holds 32-bit counts, but no profile opens
 * more than SLC_TABLE_COUNT_MAX of either (max_chunks, max_objects). */
#define PK_LIMIT_CHUNKS ((uint64_t)SLC_TABLE_COUNT_MAX)
#define PK_LIMIT_OBJECTS ((uint64_t)SLC_TABLE_COUNT_MAX)
/* Instances, LOD records and spans: the header's 32-bit counts. */
#define PK_LIMIT_INSTANCES PK_FIELD_MAX(slc_pack_header, instance_count)
#define PK_LIMIT_LOD_RECORDS PK_FIELD_MAX(slc_pack_header, lod_count)
#define PK_LIMIT_SPANS PK_FIELD_MAX(slc_pack_header, span_count)
/* String table bytes: a 32-bit size, and no profile opens more than
 * SLC_PROFILE_STRING_BYTES_MAX (max_string_bytes). */
#define PK_LIMIT_STRING_BYTES ((uint64_t)SLC_PROFILE_STRING_BYTES_MAX)
/* Clusters of one chunk a span can name (first_cluster, cluster_count). */
#define PK_LIMIT_CHUNK_CLUSTERS PK_FIELD_MAX(slc_pack_span, cluster_count)
/* Triangles and vertices of one chunk (the chunk record's counts). */
#define PK_LIMIT_CHUNK_TRIANGLES PK_FIELD_MAX(slc_pack_chunk, triangle_count)
#define PK_LIMIT_CHUNK_VERTICES PK_FIELD_MAX(slc_pack_chunk, vertex_count)
/* Triangles of one cluster (a 16-bit count; meshoptimizer's meshlets and the
 * meshopt codec's scratch stop at SLC_PACK_MESHOPT_MAX_TRIANGLES), vertices
 * of one cluster (its triangles index them with one byte). */
#define PK_LIMIT_CLUSTER_TRIANGLES ((uint64_t)SLC_PACK_MESHOPT_MAX_TRIANGLES)
#define PK_LIMIT_CLUSTER_VERTICES ((uint64_t)UINT8_MAX)
/* Levels of one object (what any profile's max_lods allows). */
#define PK_LIMIT_OBJECT_LODS ((uint64_t)SLC_LODS_MAX)
/* Bytes of the file: 64-bit offsets. */
#define PK_LIMIT_FILE_BYTES PK_FIELD_MAX(slc_pack_header, file_size)

/* Decoded bytes a byte of input (pk_mesh_input_bytes: float attributes,
 * uint32 indices) becomes, over a whole LOD chain. Level 0 decodes to at
 * most its input (a vertex is at most its float size, a triangle 3 bytes
 * instead of 12) and each further level holds about half the one before,
 * so a chain adds up to about twice level 0. A synthetic city measures
 * 1.9 (8.3 MiB decoded from 4.4 MiB, 139 chunks where the estimate says
 * 141). */
#define PK_LIMITS_DECODED_PER_INPUT 2u

/* The most chunks a scene of input_bytes packs to at page_size (> 0), pages
 * taken as full: input_bytes x PK_LIMITS_DECODED_PER_INPUT / page_size,
 * rounded up, saturating at UINT64_MAX. An estimate, not a bound: a pack
 * whose LOD levels shrink less than by half, or whose pages are less full,
 * takes more. O(1). */
uint64_t pk_limits_chunk_estimate(uint64_t input_bytes, uint32_t page_size);

/* Decoded geometry bytes of the largest pack a runtime opens at page_size:
 * PK_LIMIT_CHUNKS full pages. O(1). */
uint64_t pk_limits_largest_geometry(uint32_t page_size);

/* What is known of a scene before it is packed. Zero fields are unknown
 * and not checked. */
typedef struct pk_limits_plan {
    const char *what;     /* names the scene in messages: "synthetic city", "x.gltf", "3 inputs" */
    uint64_t meshes;      /* meshes of every input: at most that many objects */
    uint64_t instances;   /* instances of every input */
    uint64_t name_bytes;  /* string table bytes known up front (names with their NUL) */
    uint64_t input_bytes; /* synthetic: the --size target, for the chunk estimate */
    uint32_t page_size;   /* the resolved page size (0: SLC_DEFAULT_PAGE_SIZE) */
} pk_limits_plan;

/* Checks a plan against the limits above, before anything is written:
 * meshes against PK_LIMIT_OBJECTS, instances against PK_LIMIT_INSTANCES,
 * name_bytes against PK_LIMIT_STRING_BYTES, and the chunk estimate of
 * input_bytes against PK_LIMIT_CHUNKS. Returns 0, or -1 with d->message
 * naming the scene, the limit and both numbers (the first limit passed, in
 * that order). O(1); no allocation. */
int pk_limits_check_plan(const pk_limits_plan *plan, pk_diag *d);

/* Adds what an importer's scan knows of an input to a plan: its meshes,
 * instances, name bytes and (a generated scene) input bytes; the fields it
 * leaves unknown (0) add nothing. O(1). */
void pk_limits_plan_add(pk_limits_plan *plan, const pk_import_scan *scan);

#endif
