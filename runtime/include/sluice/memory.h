/* SPDX-License-Identifier: MIT */
/* sluice: the one block of memory.
 *
 * Everything the runtime holds on the CPU is carved at init from ONE block
 * the application hands in: a static array in firmware, or a mapping that
 * platform/ makes once (slc_platform_block_map). The block holds the budget
 * manager and one linear arena for every budget under the `cpu` root that
 * owns bytes of its own: a leaf owns its whole limit, an inner budget the
 * part of its limit its children do not claim. Budgets under `gpu` are
 * accounted for but live in device memory, not in the block.
 *
 * slc_memory_calculate_requirements gives the exact size of the block from a
 * profile alone, the same on every architecture, so a firmware build can size
 * its static array at build time (`sluice budget header` emits the number). */
#ifndef SLUICE_MEMORY_H
#define SLUICE_MEMORY_H

#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "budget.h"
#include "config.h"
#include "profile.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes the memory system's own record takes at the start of the block. */
#define SLC_MEMORY_HEADER_SIZE 1024u

typedef struct slc_memory slc_memory;

typedef struct slc_memory_requirements {
    size_t block_size;  /* bytes the block must have */
    size_t block_align; /* alignment the block must have: SLC_BLOCK_ALIGN */
    size_t overhead;    /* bytes of block_size that are bookkeeping, not arena capacity */
    size_t arena_bytes; /* bytes of block_size that arenas hand out */
    uint32_t arena_count;
} slc_memory_requirements;

/* Computes the block a profile needs. Fails iff the profile is inconsistent
 * (SLC_E_INVALID: no budget, or sizes that overflow size_t on this target).
 * O(budgets). */
slc_status slc_memory_calculate_requirements(const slc_profile *p, slc_memory_requirements *out);

/* Carves the block: the budget manager (phase capacity from the profile),
 * then the arenas, each touched once so no page fault lands later. The
 * profile is not referenced after init returns.
 * Fails iff block is NULL (SLC_E_BLOCK_NULL), misaligned (SLC_E_BLOCK_MISALIGNED),
 * smaller than required (SLC_E_BLOCK_TOO_SMALL; the message gives both
 * numbers) or the profile is inconsistent (SLC_E_INVALID). O(block size)
 * because of the touch; never allocates. */
slc_status slc_memory_init(void *block, size_t size, const slc_profile *p, const slc_logger *log, slc_memory **out);

/* Ends the memory system; the block may be reused afterwards. Outstanding
 * allocations are dropped with it. O(1). */
void slc_memory_deinit(slc_memory *m);

/* The budget manager inside the block. O(1). */
slc_budgets *slc_memory_budgets(slc_memory *m);

/* The arena charged to budget, or NULL when that budget owns no bytes of the
 * block (a gpu budget, or an inner budget its children fill). O(1). */
slc_arena *slc_memory_arena(slc_memory *m, slc_budget_id budget);

/* The arena of the budget with that full name. Fails iff no such budget
 * (SLC_E_NOT_FOUND) or it has no arena (SLC_E_INVALID). O(budgets). */
slc_status slc_memory_scan_arena(slc_memory *m, const char *budget_name, slc_arena **out);

#ifdef __cplusplus
}
#endif

#endif
