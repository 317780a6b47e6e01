/* SPDX-License-Identifier: MIT */
/* sluice: the host backend of the page pool.
 *
 * An slc_page_store whose pages live in host memory taken from an arena:
 * for targets without a GPU and for fast tests. It is always named as such:
 * its store->backend is "host", and nothing it holds is device memory.
 *
 * Pages are page_count x page_size bytes, each aligned to
 * SLC_HOST_STORE_PAGE_ALIGN (a page's stride is page_size rounded up to
 * it), in one segment (0) at offset index x stride; locate gives each
 * page's CPU address. write_begin hands out the page itself (no staging),
 * write_end has nothing to flush, submit records the frame, and retired()
 * is the newest submitted frame: no device ever reads host memory, so a
 * frame is finished the moment it is submitted.
 *
 * Everything is allocated once, at init, from the arena (and charged to the
 * arena's budget); nothing is allocated afterwards, and nothing calls the
 * heap. Not thread-safe: the pool that uses the store makes every call. */
#ifndef SLUICE_HOST_STORE_H
#define SLUICE_HOST_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "sluice/arena.h"
#include "sluice/budget.h"
#include "sluice/page_store.h"
#include "sluice/pool_spec.h"
#include "sluice/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SLC_HOST_STORE_PAGE_ALIGN 64u
#define SLC_HOST_STORE_BACKEND "host"

/* Counters of a host store, by value; none ever decreases. */
typedef struct slc_host_store_stats {
    uint32_t page_count;
    uint32_t page_size;
    size_t stride;          /* bytes from one page to the next */
    uint64_t writes;        /* completed writes (write_end) */
    uint64_t bytes_written; /* sum of their sizes */
    uint64_t submitted;     /* newest submitted frame, 0 before the first */
} slc_host_store_stats;

/* What a host store holds: page_count pages of page_size bytes (the
 * arguments of slc_host_store_footprint, slc_host_store_init and
 * slc_host_store_init_at). */
typedef struct slc_host_store_desc {
    uint32_t page_count;
    uint32_t page_size;
} slc_host_store_desc;

/* A desc for the pages of a pool's spec (slc_pool_spec_from_profile): its
 * pool.page_count and page_size, the numbers the pool is built from. Every
 * field of *out is written. A parsed profile may still declare more pages
 * than this target can address: slc_host_store_footprint is then 0 and the
 * inits refuse it (SLC_E_INVALID). O(1). */
void slc_host_store_desc_from_spec(const slc_pool_spec *spec, slc_host_store_desc *out);

/* Bytes of arena capacity slc_host_store_init takes for page_count pages of
 * page_size bytes, alignment padding included (so it holds whatever the
 * arena's position). Returns 0 iff either count is 0 or the size does not
 * fit size_t on this target. O(1). */
size_t slc_host_store_footprint(uint32_t page_count, uint32_t page_size);

/* Takes the store's record and its pages from arena (one allocation) and
 * fills *out with the store. The pages are not cleared: a page's bytes are
 * defined only once a pool has written them. log (may be NULL) receives the
 * reason of a failure.
 *
 * Fails iff page_count or page_size is 0 or their product does not fit size_t
 * (SLC_E_INVALID), or the arena refuses the allocation (its status:
 * SLC_E_CAPACITY or SLC_E_BUDGET_REFUSED). On failure *out is zeroed and the
 * arena is unchanged. O(1); never calls the heap. */
slc_status slc_host_store_init(slc_arena *arena, uint32_t page_count, uint32_t page_size, const slc_logger *log,
                               slc_page_store *out);

/* The same over memory the caller provides (mem: slc_host_store_footprint
 * bytes, aligned to SLC_HOST_STORE_PAGE_ALIGN; a static array, or a block
 * platform/ mapped once), with exactly page_count x page_size bytes reserved
 * on budget (normally gpu/pool, which then shows the pool as a GPU backend
 * would; b NULL: nothing reserved). The store's 64-byte record and the
 * pages' alignment padding are bookkeeping, charged to nobody. Release the
 * reservation with slc_host_store_deinit.
 *
 * Fails iff page_count or page_size is 0 or their product does not fit
 * size_t, or mem is misaligned or smaller than needed (SLC_E_INVALID), or
 * the budget refuses (its status). On failure *out is zeroed and nothing is
 * reserved. O(1); never calls the heap. */
slc_status slc_host_store_init_at(void *mem, size_t size, slc_budgets *b, slc_budget_id budget, uint32_t page_count,
                                  uint32_t page_size, const slc_logger *log, slc_page_store *out);

/* Releases what slc_host_store_init_at reserved (nothing for a store made
 * by slc_host_store_init, whose arena is reset by its owner) and zeroes
 * *store. O(1). */
void slc_host_store_deinit(slc_page_store *store);

/* The counters of a store made by slc_host_store_init (SLC_ASSERT: its
 * backend is the host one). O(1). */
void slc_host_store_get_stats(const slc_page_store *store, slc_host_store_stats *out);

#ifdef __cplusplus
}
#endif

#endif
