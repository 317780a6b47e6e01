/* SPDX-License-Identifier: MIT */
/* sluice: one description per pool, made once from its profile section.
 *
 * A pool's numbers (page size and count, chunk ids, frames in flight,
 * eviction, partitions, staging belt) enter the runtime through one door:
 * slc_pool_spec_from_profile. The page store (host or Vulkan) and the pool
 * are both built from the spec it fills, so a store and a pool cannot be
 * built from different numbers; the stream builds the same spec from the
 * profile it is given, and slc_pool_init refuses a store whose page count
 * differs from it.
 *
 * Kinds of pool. A stream holds one pool slot per slc_pool_kind: its pool,
 * its page locks and its page size, over the store the desc gives for that
 * kind (slc_stream_desc.stores[kind]). Geometry pages are the first kind,
 * always declared; texture tiles the second, declared by [textures]
 * page_count (0: none, and the stream holds no pool of that kind). Each
 * chunk goes to the pool of its kind (slc_pool_kind_of_chunk_flags). A
 * further kind touches:
 *   1. this header: its value, before SLC_POOL_KIND_COUNT;
 *   2. pool_spec.c: its row in the kind table (section, budget) and where
 *      its numbers come from in slc_profile;
 *   3. profile.h / profile.c (and budgets/README.md): its section's keys;
 *   4. stream.c: its two lines in pool_purpose and busy_purpose (what a
 *      refused take of its records says);
 *   5. the application (tools/ for the CLI): its store, built from its spec
 *      like the geometry store (slc_host_store_desc_from_spec or
 *      slc_vulkan_desc_from_spec, which charges spec.budget), placed in
 *      stores[kind].
 * The stream's layout, slc_stream_calculate_footprint, carve and pool
 * builds loop over the kinds, and so need no edit.
 * No call site grows a field. */
#ifndef SLUICE_POOL_SPEC_H
#define SLUICE_POOL_SPEC_H

#include <stdint.h>

#include "pool.h"
#include "profile.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The kinds of pool a stream holds, one slot each. 0, geometry, is the
 * default. */
typedef enum slc_pool_kind {
    SLC_POOL_GEOMETRY = 0, /* [pool] pages of clusters, charged to gpu/pool */
    SLC_POOL_TEXTURES = 1, /* [textures] pages of texture tiles and mip tails, charged to gpu/textures */
    SLC_POOL_KIND_COUNT = 2
} slc_pool_kind;

/* One pool as its profile section declares it. pool is the pool's own desc
 * (slc_pool_init takes &spec.pool); page_size, staging_size and budget are
 * what its store needs besides pool.page_count. Partition names point into
 * the profile, which must outlive the spec (not the pool: it copies them). */
typedef struct slc_pool_spec {
    slc_pool_kind kind;
    uint32_t page_size;    /* bytes of a page, a power of two */
    uint64_t staging_size; /* bytes of the store's staging belt: [stream] or [textures] staging_size; geometry
                            * 0: the store's default if it needs one; textures 0: none declared */
    const char *budget;    /* the budget the store charges its pages to, "gpu/pool"; NULL for a
                            * host-only profile (no gpu budget: the pages are charged to none) */
    const char *section;   /* the profile section it comes from, "pool" */
    slc_pool_desc pool;    /* page_count, max_chunks, frames_in_flight, eviction, partitions */
} slc_pool_spec;

/* Fills *out with the pool of kind that p declares: every field written, an
 * eviction value that is no policy read as LRU (a parsed profile has none).
 * SLC_ASSERT: p and out are not NULL, kind is below SLC_POOL_KIND_COUNT.
 * O(partitions + budgets); never allocates; thread-safe (reads p only). */
void slc_pool_spec_from_profile(const slc_profile *p, slc_pool_kind kind, slc_pool_spec *out);

/* Whether p declares a pool of kind: geometry always, textures iff
 * [textures] page_count is not 0 (the spec of an undeclared kind has
 * page_count 0). O(1). */
int slc_pool_kind_declared(const slc_profile *p, slc_pool_kind kind);

/* The kind of pool a chunk with these slc_pack_chunk.flags goes to:
 * SLC_POOL_TEXTURES for SLC_PACK_CHUNK_TEXTURE, else SLC_POOL_GEOMETRY.
 * The one rule the stream and the tools route chunks by. O(1). */
slc_pool_kind slc_pool_kind_of_chunk_flags(uint32_t flags);

/* The kind's name, "geometry" or "textures", for messages and reports;
 * NULL for a value that is no kind. O(1). */
const char *slc_pool_kind_name(slc_pool_kind kind);

#ifdef __cplusplus
}
#endif

#endif
