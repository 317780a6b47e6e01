/* SPDX-License-Identifier: MIT */
/* sluice: the one block of memory (see sluice/memory.h). This is the init
 * path that carves every CPU arena; nothing here or anywhere in the runtime
 * calls the heap. */
#include "sluice/memory.h"

#include <stdint.h>
#include <string.h>

#include "internal.h"

#define MEMORY_MAGIC 0x736c6d656d6f7279ull /* "slmemory" */

struct slc_memory {
    uint64_t magic;
    slc_budgets *budgets;
    slc_arena *arenas[SLC_BUDGET_MAX]; /* by budget index; NULL where a budget owns no bytes */
    uint32_t budget_count;
};

typedef union memory_slot {
    struct slc_memory m;
    unsigned char pad[SLC_MEMORY_HEADER_SIZE];
} memory_slot;

_Static_assert(sizeof(memory_slot) == SLC_MEMORY_HEADER_SIZE, "memory header size is part of the block size");
_Static_assert(SLC_MEMORY_HEADER_SIZE % SLC_BLOCK_ALIGN == 0, "the budget manager starts aligned");
_Static_assert(SLC_PROFILE_BUDGET_MAX <= SLC_BUDGET_MAX, "every profile budget fits the manager");

/* True when budget i of p lives in the block: its root is `cpu`. */
static int host_backed(const slc_profile *p, uint32_t i)
{
    while (p->budgets[i].parent != SLC_BUDGET_NONE_INDEX) {
        i = p->budgets[i].parent;
    }
    return strncmp(p->budgets[i].name, "cpu", sizeof "cpu") == 0; /* the NUL too: exactly "cpu" */
}

/* Bytes budget i owns for itself: its limit less what its children claim. */
static uint64_t own_bytes(const slc_profile *p, uint32_t i)
{
    uint64_t children = 0;
    for (uint32_t j = 0; j < p->budget_count; j++) {
        if (p->budgets[j].parent == i) {
            children += p->budgets[j].limit;
        }
    }
    return children >= p->budgets[i].limit ? 0 : p->budgets[i].limit - children;
}

slc_status slc_memory_calculate_requirements(const slc_profile *p, slc_memory_requirements *out)
{
    SLC_ASSERT(p != NULL && out != NULL);
    memset(out, 0, sizeof *out);
    if (p->budget_count == 0 || p->budget_count > SLC_PROFILE_BUDGET_MAX || p->max_phases == 0) {
        return SLC_E_INVALID;
    }
    uint64_t overhead = SLC_MEMORY_HEADER_SIZE +
                        slc__align_up(SLC_BUDGETS_FOOTPRINT((uint64_t)p->budget_count, (uint64_t)p->max_phases),
                                      SLC_BLOCK_ALIGN);
    uint64_t arena_bytes = 0;
    uint32_t arenas = 0;
    for (uint32_t i = 0; i < p->budget_count; i++) {
        uint64_t own = host_backed(p, i) ? own_bytes(p, i) : 0;
        if (own > 0) {
            if (own > SLC_PROFILE_SIZE_MAX) {
                return SLC_E_INVALID;
            }
            overhead += SLC_ARENA_HEADER_SIZE + (slc__align_up(own, SLC_BLOCK_ALIGN) - own);
            arena_bytes += own;
            arenas++;
        }
    }
    if (overhead + arena_bytes > (uint64_t)SIZE_MAX) {
        return SLC_E_INVALID; /* does not fit this target's address space */
    }
    out->block_size = (size_t)(overhead + arena_bytes);
    out->block_align = SLC_BLOCK_ALIGN;
    out->overhead = (size_t)overhead;
    out->arena_bytes = (size_t)arena_bytes;
    out->arena_count = arenas;
    return SLC_OK;
}

slc_status slc_memory_init(void *block, size_t size, const slc_profile *p, const slc_logger *log, slc_memory **out)
{
    SLC_ASSERT(p != NULL && out != NULL);
    *out = NULL;
    slc_memory_requirements req;
    if (slc_memory_calculate_requirements(p, &req) != SLC_OK) {
        return slc__log(log, SLC_LOG_ERROR, SLC_E_INVALID,
                        "memory: profile '%s' is inconsistent or needs more memory than this target can address",
                        p->name);
    }
    if (block == NULL) {
        return slc__log(log, SLC_LOG_ERROR, SLC_E_BLOCK_NULL, "memory: the block is NULL");
    }
    if (((uintptr_t)block % SLC_BLOCK_ALIGN) != 0) {
        return slc__log(log, SLC_LOG_ERROR, SLC_E_BLOCK_MISALIGNED,
                        "memory: the block at 0x%llx is not aligned to %u bytes", (unsigned long long)(uintptr_t)block,
                        SLC_BLOCK_ALIGN);
    }
    if (size < req.block_size) {
        return slc__log(log, SLC_LOG_ERROR, SLC_E_BLOCK_TOO_SMALL,
                        "memory: the block has %zu bytes; profile '%s' needs %zu", size, p->name, req.block_size);
    }
    unsigned char *base = block;
    memset(base, 0, SLC_MEMORY_HEADER_SIZE);
    slc_memory *m = &((memory_slot *)block)->m;
    m->magic = MEMORY_MAGIC;
    m->budget_count = p->budget_count;
    slc_budget_desc descs[SLC_PROFILE_BUDGET_MAX];
    size_t count = slc_profile_budget_descs(p, descs, SLC_PROFILE_BUDGET_MAX);
    size_t at = SLC_MEMORY_HEADER_SIZE;
    size_t footprint = slc_budgets_footprint(count, p->max_phases);
    slc_status s = slc_budgets_init(base + at, footprint, descs, count, p->max_phases, log, &m->budgets);
    if (s != SLC_OK) {
        m->magic = 0;
        return s;
    }
    at += (size_t)slc__align_up(footprint, SLC_BLOCK_ALIGN);
    for (uint32_t i = 0; i < p->budget_count; i++) {
        uint64_t own = host_backed(p, i) ? own_bytes(p, i) : 0;
        if (own == 0) {
            continue;
        }
        size_t region = SLC_ARENA_HEADER_SIZE + (size_t)slc__align_up(own, SLC_BLOCK_ALIGN);
        /* The arena's capacity is exactly the budget's own bytes; the padding
         * up to the next arena only keeps arenas aligned. */
        s = slc_arena_init(base + at, SLC_ARENA_HEADER_SIZE + (size_t)own, m->budgets, (slc_budget_id){(uint16_t)i},
                           &m->arenas[i]);
        SLC_ASSERT(s == SLC_OK);                                   /* aligned and large enough by construction */
        memset(base + at + SLC_ARENA_HEADER_SIZE, 0, (size_t)own); /* touch: no page fault later */
        at += region;
    }
    SLC_ASSERT(at == req.block_size);
    *out = m;
    return SLC_OK;
}

void slc_memory_deinit(slc_memory *m)
{
    SLC_ASSERT(m != NULL && m->magic == MEMORY_MAGIC);
    m->magic = 0;
}

slc_budgets *slc_memory_budgets(slc_memory *m)
{
    SLC_ASSERT(m != NULL && m->magic == MEMORY_MAGIC);
    return m->budgets;
}

slc_arena *slc_memory_arena(slc_memory *m, slc_budget_id budget)
{
    SLC_ASSERT(m != NULL && m->magic == MEMORY_MAGIC);
    SLC_ASSERT(budget.index < m->budget_count);
    return m->arenas[budget.index];
}

slc_status slc_memory_scan_arena(slc_memory *m, const char *budget_name, slc_arena **out)
{
    SLC_ASSERT(m != NULL && m->magic == MEMORY_MAGIC && out != NULL);
    slc_budget_id id;
    *out = NULL;
    if (slc_budgets_scan(m->budgets, budget_name, &id) != SLC_OK) {
        return SLC_E_NOT_FOUND;
    }
    *out = m->arenas[id.index];
    return *out != NULL ? SLC_OK : SLC_E_INVALID;
}
