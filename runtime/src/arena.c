/* SPDX-License-Identifier: MIT */
/* sluice: linear arenas and fixed-block pools (see sluice/arena.h). */
#include "sluice/arena.h"

#include <stdint.h>
#include <string.h>

#include "internal.h"

struct slc_arena {
    unsigned char *base; /* first byte available to allocations */
    size_t capacity;
    size_t used;
    size_t high_water;
    uint64_t allocs;
    uint64_t refused;
    slc_budgets *budgets;
    slc_budget_id budget;
};

struct slc_block_pool {
    unsigned char *base; /* first block */
    size_t block_size;
    size_t capacity;  /* blocks */
    size_t untouched; /* blocks [untouched, capacity) were never handed out */
    void *free_list;  /* freed blocks, linked through their first bytes */
    size_t in_use;
    size_t high_water;
    uint64_t allocs;
    uint64_t refused;
    slc_budgets *budgets;
    slc_budget_id budget;
};

typedef union arena_slot {
    struct slc_arena a;
    unsigned char pad[SLC_ARENA_HEADER_SIZE];
} arena_slot;

typedef union pool_slot {
    struct slc_block_pool p;
    unsigned char pad[SLC_BLOCK_POOL_HEADER_SIZE];
} pool_slot;

_Static_assert(sizeof(arena_slot) == SLC_ARENA_HEADER_SIZE, "arena header size is part of the footprint");
_Static_assert(sizeof(pool_slot) == SLC_BLOCK_POOL_HEADER_SIZE, "pool header size is part of the footprint");
_Static_assert((SLC_ARENA_ALIGN & (SLC_ARENA_ALIGN - 1)) == 0, "arena alignment is a power of two");
_Static_assert((SLC_ARENA_MAX_ALIGN & (SLC_ARENA_MAX_ALIGN - 1)) == 0, "max alignment is a power of two");

static slc_status check_base(const void *base, size_t size, size_t header)
{
    if (base == NULL) {
        return SLC_E_BLOCK_NULL;
    }
    if (((uintptr_t)base % SLC_ARENA_ALIGN) != 0) {
        return SLC_E_BLOCK_MISALIGNED;
    }
    if (size < header) {
        return SLC_E_BLOCK_TOO_SMALL;
    }
    return SLC_OK;
}

slc_status slc_arena_init(void *base, size_t size, slc_budgets *b, slc_budget_id budget, slc_arena **out)
{
    SLC_ASSERT(out != NULL);
    SLC_ASSERT(b == NULL || budget.index < slc_budgets_count(b));
    *out = NULL;
    slc_status s = check_base(base, size, SLC_ARENA_HEADER_SIZE);
    if (s != SLC_OK) {
        return s;
    }
    slc_arena *a = &((arena_slot *)base)->a;
    memset(base, 0, SLC_ARENA_HEADER_SIZE);
    a->base = (unsigned char *)base + SLC_ARENA_HEADER_SIZE;
    a->capacity = size - SLC_ARENA_HEADER_SIZE;
    a->budgets = b;
    a->budget = budget;
    *out = a;
    return SLC_OK;
}

slc_status slc_arena_alloc(slc_arena *a, size_t size, size_t align, void **out)
{
    SLC_ASSERT(a != NULL && out != NULL);
    SLC_ASSERT(slc__is_pow2(align) && align <= SLC_ARENA_MAX_ALIGN);
    *out = NULL;
    uintptr_t at = (uintptr_t)(a->base + a->used);
    size_t pad = (size_t)((align - (at & (align - 1))) & (align - 1));
    size_t room = a->capacity - a->used;
    if (pad > room || size > room - pad) {
        a->refused++;
        return SLC_E_CAPACITY;
    }
    size_t take = pad + size;
    if (a->budgets != NULL && slc_budgets_reserve(a->budgets, a->budget, take, NULL) != SLC_OK) {
        a->refused++;
        return SLC_E_BUDGET_REFUSED;
    }
    *out = a->base + a->used + pad;
    a->used += take;
    if (a->used > a->high_water) {
        a->high_water = a->used;
    }
    a->allocs++;
    return SLC_OK;
}

slc_arena_mark slc_arena_get_mark(const slc_arena *a)
{
    SLC_ASSERT(a != NULL);
    slc_arena_mark m = {a->used};
    return m;
}

void slc_arena_reset(slc_arena *a, slc_arena_mark mark)
{
    SLC_ASSERT(a != NULL);
    SLC_ASSERT(mark.offset <= a->used);
    if (a->budgets != NULL && a->used > mark.offset) {
        slc_budgets_release(a->budgets, a->budget, a->used - mark.offset);
    }
    a->used = mark.offset;
}

void slc_arena_get_stats(const slc_arena *a, slc_arena_stats *out)
{
    SLC_ASSERT(a != NULL && out != NULL);
    out->capacity = a->capacity;
    out->used = a->used;
    out->high_water = a->high_water;
    out->allocs = a->allocs;
    out->refused = a->refused;
}

static size_t block_stride(size_t block_size, size_t align)
{
    return (size_t)slc__align_up(block_size == 0 ? 1 : block_size, align);
}

size_t slc_block_pool_footprint(size_t block_size, size_t align, size_t count)
{
    SLC_ASSERT(slc__is_pow2(align) && align <= SLC_ARENA_MAX_ALIGN && align >= sizeof(void *));
    size_t first = (size_t)slc__align_up(SLC_BLOCK_POOL_HEADER_SIZE, align);
    return first + block_stride(block_size, align) * count;
}

slc_status slc_block_pool_init(void *base, size_t size, size_t block_size, size_t align, slc_budgets *b,
                               slc_budget_id budget, slc_block_pool **out)
{
    SLC_ASSERT(out != NULL);
    SLC_ASSERT(slc__is_pow2(align) && align <= SLC_ARENA_MAX_ALIGN && align >= sizeof(void *));
    SLC_ASSERT(b == NULL || budget.index < slc_budgets_count(b));
    *out = NULL;
    size_t first = (size_t)slc__align_up(SLC_BLOCK_POOL_HEADER_SIZE, align);
    size_t stride = block_stride(block_size, align);
    slc_status s = check_base(base, size, first + stride);
    if (s != SLC_OK) {
        return s;
    }
    slc_block_pool *p = &((pool_slot *)base)->p;
    memset(base, 0, SLC_BLOCK_POOL_HEADER_SIZE);
    p->base = (unsigned char *)base + first;
    p->block_size = stride;
    p->capacity = (size - first) / stride;
    p->budgets = b;
    p->budget = budget;
    *out = p;
    return SLC_OK;
}

slc_status slc_block_pool_alloc(slc_block_pool *p, void **out)
{
    SLC_ASSERT(p != NULL && out != NULL);
    *out = NULL;
    if (p->free_list == NULL && p->untouched == p->capacity) {
        p->refused++;
        return SLC_E_CAPACITY;
    }
    if (p->budgets != NULL && slc_budgets_reserve(p->budgets, p->budget, p->block_size, NULL) != SLC_OK) {
        p->refused++;
        return SLC_E_BUDGET_REFUSED;
    }
    void *block = p->free_list;
    if (block != NULL) {
        memcpy(&p->free_list, block, sizeof(void *));
    } else {
        block = p->base + p->untouched * p->block_size;
        p->untouched++;
    }
    p->in_use++;
    if (p->in_use > p->high_water) {
        p->high_water = p->in_use;
    }
    p->allocs++;
    *out = block;
    return SLC_OK;
}

void slc_block_pool_free(slc_block_pool *p, void *block)
{
    SLC_ASSERT(p != NULL && block != NULL);
    unsigned char *at = block;
    SLC_ASSERT(at >= p->base && at < p->base + p->untouched * p->block_size);
    SLC_ASSERT((size_t)(at - p->base) % p->block_size == 0);
    SLC_ASSERT(p->in_use > 0);
    (void)at;
    memcpy(block, &p->free_list, sizeof(void *));
    p->free_list = block;
    p->in_use--;
    if (p->budgets != NULL) {
        slc_budgets_release(p->budgets, p->budget, p->block_size);
    }
}

void slc_block_pool_get_stats(const slc_block_pool *p, slc_block_pool_stats *out)
{
    SLC_ASSERT(p != NULL && out != NULL);
    out->block_size = p->block_size;
    out->capacity = p->capacity;
    out->in_use = p->in_use;
    out->high_water = p->high_water;
    out->allocs = p->allocs;
    out->refused = p->refused;
}

bool slc_arena_check(const slc_arena *a)
{
    SLC_ASSERT(a != NULL);
    return a->used <= a->capacity && a->high_water >= a->used && a->high_water <= a->capacity;
}

bool slc_block_pool_check(const slc_block_pool *p)
{
    SLC_ASSERT(p != NULL);
    if (p->untouched > p->capacity || p->in_use > p->untouched || p->high_water < p->in_use ||
        p->high_water > p->capacity) {
        return false;
    }
    /* Every block handed out at least once is either in use or on the free
     * list, exactly once; a walk longer than that means a loop. */
    size_t free_count = 0;
    for (const void *at = p->free_list; at != NULL;) {
        const unsigned char *b = at;
        if (b < p->base || b >= p->base + p->untouched * p->block_size || (size_t)(b - p->base) % p->block_size != 0 ||
            ++free_count > p->untouched) {
            return false;
        }
        memcpy(&at, b, sizeof at);
    }
    return free_count + p->in_use == p->untouched;
}
