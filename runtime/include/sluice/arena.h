/* SPDX-License-Identifier: MIT */
/* sluice: arenas.
 *
 * Two allocators, both built in memory the caller hands in (the control
 * record sits at the start of that memory, as o1heap does) and both charged
 * to a budget of the MemoryBudgetManager:
 *
 * - slc_arena: a linear (bump) arena with mark and reset, for scratch and for
 *   tables that live as long as the arena. Each allocation reserves its bytes
 *   (alignment padding included) on the arena's budget; a reset releases them.
 * - slc_block_pool: fixed-size blocks with O(1) alloc and free, for records
 *   with independent lifetimes. Each block in use is charged to its budget.
 *
 * Neither zero-fills what it hands out: zero-filling is variable-time work
 * the caller may not need. Neither is thread-safe: give each thread its own
 * arena or pool (the budgets they charge are thread-safe). Neither ever
 * calls the heap. */
#ifndef SLUICE_ARENA_H
#define SLUICE_ARENA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "budget.h"
#include "config.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes the control record takes at the start of an arena's or a pool's
 * memory, on every architecture, and the alignment that memory must have. */
#define SLC_ARENA_HEADER_SIZE 64u
#define SLC_BLOCK_POOL_HEADER_SIZE 128u
#define SLC_ARENA_ALIGN 64u

/* Most alignment an arena allocation or a pool block may ask for. */
#define SLC_ARENA_MAX_ALIGN 4096u

typedef struct slc_arena slc_arena;
typedef struct slc_block_pool slc_block_pool;

/* A point in an arena to reset to: everything allocated after it is released. */
typedef struct slc_arena_mark {
    size_t offset;
} slc_arena_mark;

/* Counters of an arena, by value; high_water, allocs and refused never
 * decrease. */
typedef struct slc_arena_stats {
    size_t capacity;   /* bytes available to allocations */
    size_t used;       /* bytes allocated now, padding included */
    size_t high_water; /* most bytes ever allocated at once */
    uint64_t allocs;   /* successful allocations */
    uint64_t refused;  /* failed allocations (capacity or budget) */
} slc_arena_stats;

typedef struct slc_block_pool_stats {
    size_t block_size; /* bytes a block occupies (the requested size rounded up to its alignment) */
    size_t capacity;   /* blocks */
    size_t in_use;
    size_t high_water;
    uint64_t allocs;
    uint64_t refused;
} slc_block_pool_stats;

/* Bytes an arena needs so that `capacity` bytes are available to
 * allocations: SLC_ARENA_HEADER_SIZE + capacity. */
#define SLC_ARENA_FOOTPRINT(capacity) ((size_t)SLC_ARENA_HEADER_SIZE + (size_t)(capacity))

/* Builds an arena in [base, base + size). Allocations are charged to budget
 * on b; b may be NULL (then budget is ignored and nothing is charged).
 * Fails iff base is NULL (SLC_E_BLOCK_NULL), not aligned to SLC_ARENA_ALIGN
 * (SLC_E_BLOCK_MISALIGNED) or size is below SLC_ARENA_HEADER_SIZE
 * (SLC_E_BLOCK_TOO_SMALL). O(1). */
slc_status slc_arena_init(void *base, size_t size, slc_budgets *b, slc_budget_id budget, slc_arena **out);

/* Allocates size bytes aligned to align (a power of two, at most
 * SLC_ARENA_MAX_ALIGN: SLC_ASSERT). size 0 gives a valid pointer to no bytes.
 * Fails iff the arena has no room (SLC_E_CAPACITY) or the budget refused
 * (SLC_E_BUDGET_REFUSED); then nothing changed but the refused counters, and
 * *out is NULL. O(depth of the budget). */
slc_status slc_arena_alloc(slc_arena *a, size_t size, size_t align, void **out);

/* The current position, to reset to later. O(1). */
slc_arena_mark slc_arena_get_mark(const slc_arena *a);

/* Releases everything allocated after mark (which must come from this arena
 * and not lie beyond the current position: SLC_ASSERT). O(depth). */
void slc_arena_reset(slc_arena *a, slc_arena_mark mark);

void slc_arena_get_stats(const slc_arena *a, slc_arena_stats *out);

/* Bytes a pool of count blocks of block_size bytes aligned to align needs. */
size_t slc_block_pool_footprint(size_t block_size, size_t align, size_t count);

/* Builds a pool in [base, base + size) of as many blocks as fit. block_size
 * is rounded up to align (a power of two of at least sizeof(void *), at most
 * SLC_ARENA_MAX_ALIGN: SLC_ASSERT). Each block in use is charged to budget on
 * b; b may be NULL. Fails iff base is NULL (SLC_E_BLOCK_NULL), misaligned to
 * SLC_ARENA_ALIGN (SLC_E_BLOCK_MISALIGNED), or too small for one block
 * (SLC_E_BLOCK_TOO_SMALL). O(1): blocks never handed out are not walked. */
slc_status slc_block_pool_init(void *base, size_t size, size_t block_size, size_t align, slc_budgets *b,
                               slc_budget_id budget, slc_block_pool **out);

/* Takes one block. Fails iff every block is in use (SLC_E_CAPACITY) or the
 * budget refused (SLC_E_BUDGET_REFUSED); then *out is NULL. O(depth). */
slc_status slc_block_pool_alloc(slc_block_pool *p, void **out);

/* Returns a block taken from this pool (SLC_ASSERT: inside the pool, on a
 * block boundary). O(depth). */
void slc_block_pool_free(slc_block_pool *p, void *block);

void slc_block_pool_get_stats(const slc_block_pool *p, slc_block_pool_stats *out);

/* Invariant checkers: return false if the structure is broken (use above
 * capacity, a high-water mark below the use, a free list that leaves the
 * pool, is misaligned, loops, or disagrees with the in-use count). The
 * arena's is O(1); the pool's walks its free list, O(capacity). */
bool slc_arena_check(const slc_arena *a);
bool slc_block_pool_check(const slc_block_pool *p);

#ifdef __cplusplus
}
#endif

#endif
