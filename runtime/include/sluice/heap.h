/* SPDX-License-Identifier: MIT */
/* sluice: a general-purpose heap in caller memory.
 *
 * Some callers need malloc, realloc and free of any size and alignment: the
 * Vulkan driver's host allocations, which sluice routes through
 * VkAllocationCallbacks so that they are budgeted like everything else. This
 * is a two-level segregated-fit allocator (TLSF, Masmano et al. 2004) built
 * in memory the caller hands in, with the control record at its start as
 * o1heap does:
 *
 * - alloc and free are O(1): two bitmap scans and constant list surgery,
 *   whatever the number of blocks; realloc is O(1) plus the copy when the
 *   block must move. Neighbouring free blocks are merged at once, so the
 *   heap never holds two free blocks side by side.
 * - A request is served from a block at least one size class above it (the
 *   "good fit" of TLSF): never a search, at the price of up to 1/16 of the
 *   size in internal fragmentation for large blocks.
 * - Each allocated block (header and rounding included) is reserved on the
 *   heap's budget while it lives, so the budget's current use and peak are
 *   the heap's; a refusal by the budget, or a heap with no block large
 *   enough, fails the call with nothing changed but the refusal counters.
 * - Memory is not zero-filled: zero-filling is variable-time work the caller
 *   may not need.
 * - Thread-safe: every call takes a spinlock (a C11 atomic_flag) held for
 *   O(1) work only (a moving realloc copies outside it), so a Vulkan driver
 *   may call from several threads. It never calls the system heap. */
#ifndef SLUICE_HEAP_H
#define SLUICE_HEAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "budget.h"
#include "config.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes of the control record at the start of a heap's memory, on every
 * architecture, and the alignment that memory must have. */
#define SLC_HEAP_HEADER_SIZE 4608u
#define SLC_HEAP_ALIGN 64u

/* Every block starts with a header of SLC_HEAP_BLOCK_OVERHEAD bytes and has
 * a size that is a multiple of SLC_HEAP_GRANULE, at least SLC_HEAP_MIN_BLOCK.
 * A request of n bytes aligned to at most SLC_HEAP_GRANULE takes
 * SLC_HEAP_BLOCK_SIZE(n) bytes of the heap and of its budget. */
#define SLC_HEAP_BLOCK_OVERHEAD 16u
#define SLC_HEAP_GRANULE 16u
#define SLC_HEAP_MIN_BLOCK 32u
#define SLC_HEAP_ROUND_(n) \
    (((size_t)(n) + SLC_HEAP_BLOCK_OVERHEAD + SLC_HEAP_GRANULE - 1) / SLC_HEAP_GRANULE * SLC_HEAP_GRANULE)
#define SLC_HEAP_BLOCK_SIZE(n) \
    (SLC_HEAP_ROUND_(n) < SLC_HEAP_MIN_BLOCK ? (size_t)SLC_HEAP_MIN_BLOCK : SLC_HEAP_ROUND_(n))

/* Largest alignment a request may ask for. Every returned pointer is aligned
 * to at least SLC_HEAP_GRANULE. */
#define SLC_HEAP_MAX_ALIGN 4096u

/* Bytes of memory a heap needs so that capacity bytes of blocks fit (the
 * header, then the blocks, then a SLC_HEAP_BLOCK_OVERHEAD end marker). */
#define SLC_HEAP_FOOTPRINT(capacity) \
    ((size_t)SLC_HEAP_HEADER_SIZE + (size_t)(capacity) + (size_t)SLC_HEAP_BLOCK_OVERHEAD)

typedef struct slc_heap slc_heap;

/* Counters of a heap, by value. high_water and the counts never decrease. */
typedef struct slc_heap_stats {
    size_t capacity;                        /* bytes blocks may occupy; the largest single block */
    size_t used;                            /* bytes of allocated blocks, headers and rounding included */
    size_t high_water;                      /* most bytes ever used at once */
    size_t live;                            /* allocations not yet freed */
    size_t free_blocks;                     /* free blocks (fragmentation: 1 when fully merged) */
    uint64_t allocs;                        /* successful allocations, reallocations that moved included */
    uint64_t frees;                         /* blocks returned, reallocations that moved included */
    uint64_t reallocs;                      /* successful reallocations of an existing block */
    uint64_t refused_capacity;              /* requests no free block could hold */
    uint64_t refused_budget;                /* requests the budget refused */
    size_t last_refused;                    /* bytes asked by the newest refused request (0: none yet) */
    slc_budget_refusal last_budget_refusal; /* the budget's reason for the newest budget refusal */
} slc_heap_stats;

/* Builds a heap in [mem, mem + size): everything past the header becomes one
 * free block. Blocks are charged to budget on b; b may be NULL (nothing is
 * charged). mem must not itself be charged to that budget (the bytes would
 * count twice): a static array or memory outside the budget tree.
 * Fails iff mem is NULL (SLC_E_BLOCK_NULL), not aligned to SLC_HEAP_ALIGN
 * (SLC_E_BLOCK_MISALIGNED) or smaller than SLC_HEAP_FOOTPRINT(SLC_HEAP_MIN_BLOCK)
 * (SLC_E_BLOCK_TOO_SMALL); then *out is NULL. Memory beyond 2^38 bytes on
 * 64-bit targets is left unused. O(1); never allocates. */
slc_status slc_heap_init(void *mem, size_t size, slc_budgets *b, slc_budget_id budget, slc_heap **out);

/* Allocates size bytes aligned to align (a power of two at most
 * SLC_HEAP_MAX_ALIGN: SLC_ASSERT). size 0 gives a unique pointer, as for 1.
 * Fails iff no free block can hold it (SLC_E_CAPACITY) or the budget refused
 * (SLC_E_BUDGET_REFUSED); then *out is NULL and only the refusal counters
 * changed. O(1). Thread-safe. */
slc_status slc_heap_alloc(slc_heap *h, size_t size, size_t align, void **out);

/* Resizes the allocation at ptr to size bytes, keeping the first
 * min(old, new) bytes. ptr NULL allocates as slc_heap_alloc; size 0 frees
 * ptr and sets *out to NULL. align must be the alignment ptr was allocated
 * with (SLC_ASSERT that ptr has it). Shrinking and growing into a free
 * neighbour stay in place; otherwise the bytes move to a new block (O(size)
 * copy, outside the lock). Fails iff the heap has no room (SLC_E_CAPACITY)
 * or the budget refused (SLC_E_BUDGET_REFUSED): then ptr is untouched and
 * still allocated, and *out is NULL. Thread-safe, but the caller must not
 * use or free ptr concurrently, as with realloc. */
slc_status slc_heap_realloc(slc_heap *h, void *ptr, size_t size, size_t align, void **out);

/* Returns the allocation at ptr (NULL does nothing). ptr must come from this
 * heap and be live: SLC_ASSERT checks that it lies in the heap, on a block
 * boundary, in an allocated block. O(1). Thread-safe. */
void slc_heap_free(slc_heap *h, void *ptr);

/* Bytes usable at ptr (at least what was asked; the rest of its block).
 * ptr must be live (SLC_ASSERT as for free). O(1). */
size_t slc_heap_get_usable_size(slc_heap *h, const void *ptr);

/* The counters, read under the lock. O(1). */
void slc_heap_get_stats(slc_heap *h, slc_heap_stats *out);

/* Walks every block and free list under the lock and returns false on any
 * broken invariant: a block size off the granule or past the end, a broken
 * back link, two free neighbours, a free block missing from its size class
 * list or a list entry that is not free, a bitmap that disagrees with its
 * lists, or counters (used, live, free blocks) that disagree with the walk.
 * O(blocks). */
bool slc_heap_check(slc_heap *h);

#ifdef __cplusplus
}
#endif

#endif
