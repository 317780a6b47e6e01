/* SPDX-License-Identifier: MIT */
/* sluice: the MemoryBudgetManager (see sluice/budget.h). */
#include "sluice/budget.h"

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "internal.h"

/* One budget. Padded to SLC_BUDGETS_NODE_SIZE on every architecture so the
 * footprint a host tool computes holds on the target. */
typedef struct node {
    char name[SLC_NAME_MAX];
    uint64_t limit;
    uint16_t parent;
    uint16_t depth;
    uint32_t reserved_;
    _Atomic uint64_t current;
    _Atomic uint64_t peak;
    _Atomic uint64_t reservations;
    _Atomic uint64_t refused;
    _Atomic uint64_t refused_here;
} node;

typedef union node_slot {
    node n;
    unsigned char pad[SLC_BUDGETS_NODE_SIZE];
} node_slot;

typedef union phase_slot {
    struct {
        char name[SLC_NAME_MAX];
        uint32_t ended;
    } p;
    unsigned char pad[SLC_BUDGETS_PHASE_SIZE];
} phase_slot;

/* One budget in one phase. */
typedef union entry_slot {
    struct {
        uint64_t start;
        _Atomic uint64_t peak;
        uint64_t end;
    } e;
    unsigned char pad[SLC_BUDGETS_PHASE_ENTRY_SIZE];
} entry_slot;

struct slc_budgets {
    node_slot *nodes;
    phase_slot *phases;
    entry_slot *entries; /* [phase][budget] */
    slc_logger log;
    uint32_t count;
    uint32_t phase_capacity;
    _Atomic uint32_t phase_count; /* the current phase is phase_count - 1 */
};

typedef union header_slot {
    struct slc_budgets b;
    unsigned char pad[SLC_BUDGETS_HEADER_SIZE];
} header_slot;

_Static_assert(sizeof(node_slot) == SLC_BUDGETS_NODE_SIZE, "node record size is part of the footprint");
_Static_assert(sizeof(phase_slot) == SLC_BUDGETS_PHASE_SIZE, "phase record size is part of the footprint");
_Static_assert(sizeof(entry_slot) == SLC_BUDGETS_PHASE_ENTRY_SIZE, "entry size is part of the footprint");
_Static_assert(sizeof(header_slot) == SLC_BUDGETS_HEADER_SIZE, "header size is part of the footprint");
_Static_assert((SLC_BUDGETS_HEADER_SIZE % 8) == 0 && (SLC_BUDGETS_NODE_SIZE % 8) == 0,
               "records keep 8-byte alignment for their 64-bit atomics");

static node *node_at(const slc_budgets *b, uint32_t i)
{
    return &b->nodes[i].n;
}

static entry_slot *entry_at(const slc_budgets *b, uint32_t phase, uint32_t budget)
{
    return &b->entries[(size_t)phase * b->count + budget];
}

static void atomic_max_u64(_Atomic uint64_t *a, uint64_t v)
{
    uint64_t cur = atomic_load_explicit(a, memory_order_relaxed);
    while (cur < v && !atomic_compare_exchange_weak_explicit(a, &cur, v, memory_order_relaxed, memory_order_relaxed)) {
    }
}

size_t slc_budgets_footprint(size_t budget_count, size_t phase_capacity)
{
    return SLC_BUDGETS_FOOTPRINT(budget_count, phase_capacity);
}

static slc_status check_descs(const slc_budget_desc *descs, size_t count, const slc_logger *log)
{
    if (count == 0 || count > SLC_BUDGET_MAX) {
        return slc__log(log, SLC_LOG_ERROR, SLC_E_INVALID, "budgets: %zu budgets declared; 1 to %u allowed", count,
                        SLC_BUDGET_MAX);
    }
    for (size_t i = 0; i < count; i++) {
        const char *name = descs[i].name;
        size_t len = name ? slc__strnlen(name, SLC_NAME_MAX) : 0;
        if (len == 0 || len >= SLC_NAME_MAX) {
            return slc__log(log, SLC_LOG_ERROR, SLC_E_INVALID,
                            "budgets: budget %zu: name is empty or longer than %u bytes", i, SLC_NAME_MAX - 1);
        }
        uint16_t parent = descs[i].parent;
        if (parent != SLC_BUDGET_NONE_INDEX && parent >= i) {
            return slc__log(log, SLC_LOG_ERROR, SLC_E_INVALID,
                            "budgets: budget '%s': parent %u is not an earlier declaration", name, (unsigned)parent);
        }
        uint32_t depth = 0;
        for (uint16_t p = parent; p != SLC_BUDGET_NONE_INDEX; p = descs[p].parent) {
            depth++;
        }
        if (depth > SLC_BUDGET_DEPTH_MAX) {
            return slc__log(log, SLC_LOG_ERROR, SLC_E_INVALID, "budgets: budget '%s': depth %u is above %u", name,
                            depth, SLC_BUDGET_DEPTH_MAX);
        }
        for (size_t j = 0; j < i; j++) {
            if (strcmp(descs[j].name, name) == 0) {
                return slc__log(log, SLC_LOG_ERROR, SLC_E_INVALID, "budgets: budget '%s' is declared twice", name);
            }
        }
    }
    for (size_t i = 0; i < count; i++) {
        uint64_t sum = 0;
        for (size_t j = i + 1; j < count; j++) {
            if (descs[j].parent == i) {
                if (descs[j].limit > descs[i].limit - sum) {
                    return slc__log(log, SLC_LOG_ERROR, SLC_E_INVALID,
                                    "budgets: children of '%s' sum to more than its limit %llu", descs[i].name,
                                    (unsigned long long)descs[i].limit);
                }
                sum += descs[j].limit;
            }
        }
    }
    return SLC_OK;
}

slc_status slc_budgets_init(void *mem, size_t size, const slc_budget_desc *descs, size_t count, size_t phase_capacity,
                            const slc_logger *log, slc_budgets **out)
{
    SLC_ASSERT(out != NULL);
    SLC_ASSERT(descs != NULL || count == 0);
    *out = NULL;
    if (mem == NULL) {
        return slc__log(log, SLC_LOG_ERROR, SLC_E_BLOCK_NULL, "budgets: memory is NULL");
    }
    if (((uintptr_t)mem % SLC_BUDGETS_ALIGN) != 0) {
        return slc__log(log, SLC_LOG_ERROR, SLC_E_BLOCK_MISALIGNED,
                        "budgets: memory at 0x%llx is not aligned to %u bytes", (unsigned long long)(uintptr_t)mem,
                        SLC_BUDGETS_ALIGN);
    }
    if (phase_capacity == 0 || phase_capacity > UINT32_MAX) {
        return slc__log(log, SLC_LOG_ERROR, SLC_E_INVALID, "budgets: phase capacity %zu is not in 1..%u",
                        phase_capacity, UINT32_MAX);
    }
    slc_status s = check_descs(descs, count, log);
    if (s != SLC_OK) {
        return s;
    }
    size_t need = slc_budgets_footprint(count, phase_capacity);
    if (size < need) {
        return slc__log(log, SLC_LOG_ERROR, SLC_E_BLOCK_TOO_SMALL,
                        "budgets: memory of %zu bytes is smaller than the %zu bytes required", size, need);
    }
    memset(mem, 0, need);
    unsigned char *base = mem;
    slc_budgets *b = &((header_slot *)mem)->b;
    b->nodes = (node_slot *)(void *)(base + SLC_BUDGETS_HEADER_SIZE);
    b->phases = (phase_slot *)(void *)((unsigned char *)b->nodes + SLC_BUDGETS_NODE_SIZE * count);
    b->entries = (entry_slot *)(void *)((unsigned char *)b->phases + SLC_BUDGETS_PHASE_SIZE * phase_capacity);
    b->count = (uint32_t)count;
    b->phase_capacity = (uint32_t)phase_capacity;
    if (log != NULL) {
        b->log = *log;
    }
    for (size_t i = 0; i < count; i++) {
        node *n = node_at(b, (uint32_t)i);
        memcpy(n->name, descs[i].name, slc__strnlen(descs[i].name, SLC_NAME_MAX));
        n->limit = descs[i].limit;
        n->parent = descs[i].parent;
        n->depth = n->parent == SLC_BUDGET_NONE_INDEX ? 0 : (uint16_t)(node_at(b, n->parent)->depth + 1);
    }
    memcpy(b->phases[0].p.name, "init", 5);
    atomic_store_explicit(&b->phase_count, 1, memory_order_release);
    *out = b;
    return SLC_OK;
}

slc_status slc_budgets_reserve(slc_budgets *b, slc_budget_id budget, uint64_t bytes, slc_budget_refusal *why)
{
    SLC_ASSERT(b != NULL);
    SLC_ASSERT(budget.index < b->count);
    if (bytes == 0) {
        return SLC_OK;
    }
    /* A test configuration may refuse this reservation on purpose, at the
     * budget itself (config.h); 0, and gone, in every other build. */
    const bool fault = SLC_FAULT_RESERVE(b, budget, bytes) != 0;
    uint16_t path[SLC_BUDGET_DEPTH_MAX + 1];
    uint64_t after[SLC_BUDGET_DEPTH_MAX + 1];
    uint32_t levels = 0;
    uint16_t i = budget.index;
    for (;;) {
        node *n = node_at(b, i);
        uint64_t cur = atomic_load_explicit(&n->current, memory_order_relaxed);
        do {
            /* cur > limit cannot happen unless a caller released more than
             * it reserved (a contract violation that SLC_ASSERT catches in
             * checked builds); refuse then too rather than wrap around. */
            if ((fault && levels == 0) || cur > n->limit || bytes > n->limit - cur) {
                /* Refused here: undo the levels below, count, and say why. */
                for (uint32_t k = 0; k < levels; k++) {
                    atomic_fetch_sub_explicit(&node_at(b, path[k])->current, bytes, memory_order_relaxed);
                }
                atomic_fetch_add_explicit(&node_at(b, budget.index)->refused, 1, memory_order_relaxed);
                atomic_fetch_add_explicit(&n->refused_here, 1, memory_order_relaxed);
                if (why != NULL) {
                    why->budget = budget;
                    why->refused_by.index = i;
                    why->requested = bytes;
                    why->current = cur;
                    why->limit = n->limit;
                }
                return SLC_E_BUDGET_REFUSED;
            }
        } while (!atomic_compare_exchange_weak_explicit(&n->current, &cur, cur + bytes, memory_order_relaxed,
                                                        memory_order_relaxed));
        path[levels] = i;
        after[levels] = cur + bytes;
        levels++;
        if (n->parent == SLC_BUDGET_NONE_INDEX) {
            break;
        }
        i = n->parent;
    }
    uint32_t phase = atomic_load_explicit(&b->phase_count, memory_order_acquire) - 1;
    for (uint32_t k = 0; k < levels; k++) {
        atomic_max_u64(&node_at(b, path[k])->peak, after[k]);
        atomic_max_u64(&entry_at(b, phase, path[k])->e.peak, after[k]);
    }
    atomic_fetch_add_explicit(&node_at(b, budget.index)->reservations, 1, memory_order_relaxed);
    return SLC_OK;
}

void slc_budgets_release(slc_budgets *b, slc_budget_id budget, uint64_t bytes)
{
    SLC_ASSERT(b != NULL);
    SLC_ASSERT(budget.index < b->count);
    for (uint16_t i = budget.index; i != SLC_BUDGET_NONE_INDEX; i = node_at(b, i)->parent) {
        uint64_t before = atomic_fetch_sub_explicit(&node_at(b, i)->current, bytes, memory_order_relaxed);
        SLC_ASSERT(before >= bytes); /* released more than was reserved */
        (void)before;
    }
}

slc_status slc_budgets_begin_phase(slc_budgets *b, const char *name)
{
    SLC_ASSERT(b != NULL);
    size_t len = name ? slc__strnlen(name, SLC_NAME_MAX) : 0;
    if (len == 0 || len >= SLC_NAME_MAX) {
        return slc__log(&b->log, SLC_LOG_ERROR, SLC_E_INVALID, "budgets: phase name is empty or longer than %u bytes",
                        SLC_NAME_MAX - 1);
    }
    uint32_t cur = atomic_load_explicit(&b->phase_count, memory_order_relaxed) - 1;
    if (cur + 1 >= b->phase_capacity) {
        return slc__log(&b->log, SLC_LOG_ERROR, SLC_E_CAPACITY,
                        "budgets: phase '%s' refused: all %u phases declared at init have begun", name,
                        b->phase_capacity);
    }
    uint32_t next = cur + 1;
    memcpy(b->phases[next].p.name, name, len);
    for (uint32_t i = 0; i < b->count; i++) {
        uint64_t now = atomic_load_explicit(&node_at(b, i)->current, memory_order_relaxed);
        entry_at(b, next, i)->e.start = now;
        atomic_store_explicit(&entry_at(b, next, i)->e.peak, now, memory_order_relaxed);
    }
    atomic_store_explicit(&b->phase_count, next + 1, memory_order_release);
    /* A reservation between the reads above and the switch counted in the old
     * phase; fold what it left into the new phase's peak too. */
    for (uint32_t i = 0; i < b->count; i++) {
        uint64_t now = atomic_load_explicit(&node_at(b, i)->current, memory_order_relaxed);
        atomic_max_u64(&entry_at(b, next, i)->e.peak, now);
        entry_at(b, cur, i)->e.end = now;
    }
    b->phases[cur].p.ended = 1;
    return SLC_OK;
}

size_t slc_budgets_count(const slc_budgets *b)
{
    SLC_ASSERT(b != NULL);
    return b->count;
}

size_t slc_budgets_phase_count(const slc_budgets *b)
{
    SLC_ASSERT(b != NULL);
    return atomic_load_explicit(&((slc_budgets *)b)->phase_count, memory_order_acquire);
}

slc_status slc_budgets_scan(const slc_budgets *b, const char *name, slc_budget_id *out)
{
    SLC_ASSERT(b != NULL && name != NULL && out != NULL);
    for (uint32_t i = 0; i < b->count; i++) {
        if (strncmp(node_at(b, i)->name, name, SLC_NAME_MAX) == 0) {
            out->index = (uint16_t)i;
            return SLC_OK;
        }
    }
    out->index = SLC_BUDGET_NONE_INDEX;
    return SLC_E_NOT_FOUND;
}

void slc_budgets_get(const slc_budgets *b, slc_budget_id budget, slc_budget_stats *out)
{
    SLC_ASSERT(b != NULL && out != NULL);
    SLC_ASSERT(budget.index < b->count);
    node *n = node_at(b, budget.index);
    memcpy(out->name, n->name, SLC_NAME_MAX);
    out->id = budget;
    out->parent.index = n->parent;
    out->depth = n->depth;
    out->limit = n->limit;
    out->current = atomic_load_explicit(&n->current, memory_order_relaxed);
    out->peak = atomic_load_explicit(&n->peak, memory_order_relaxed);
    out->reservations = atomic_load_explicit(&n->reservations, memory_order_relaxed);
    out->refused = atomic_load_explicit(&n->refused, memory_order_relaxed);
    out->refused_here = atomic_load_explicit(&n->refused_here, memory_order_relaxed);
}

void slc_budgets_get_phase(const slc_budgets *b, size_t phase, slc_budget_id budget, slc_phase_stats *out)
{
    SLC_ASSERT(b != NULL && out != NULL);
    size_t count = slc_budgets_phase_count(b);
    SLC_ASSERT(phase < count);
    SLC_ASSERT(budget.index < b->count);
    entry_slot *e = entry_at(b, (uint32_t)phase, budget.index);
    memcpy(out->phase, b->phases[phase].p.name, SLC_NAME_MAX);
    out->phase_index = (uint32_t)phase;
    out->budget = budget;
    out->start = e->e.start;
    out->peak = atomic_load_explicit(&e->e.peak, memory_order_relaxed);
    out->ended = phase + 1 < count;
    out->end = out->ended ? e->e.end : atomic_load_explicit(&node_at(b, budget.index)->current, memory_order_relaxed);
}

size_t slc_budgets_walk_report(const slc_budgets *b, slc_budget_stats *out, size_t cap)
{
    SLC_ASSERT(b != NULL);
    SLC_ASSERT(out != NULL || cap == 0);
    for (uint32_t i = 0; i < b->count && i < cap; i++) {
        slc_budgets_get(b, (slc_budget_id){(uint16_t)i}, &out[i]);
    }
    return b->count;
}

bool slc_budgets_check(const slc_budgets *b)
{
    SLC_ASSERT(b != NULL);
    for (uint32_t i = 0; i < b->count; i++) {
        slc_budget_stats s;
        slc_budgets_get(b, (slc_budget_id){(uint16_t)i}, &s);
        if (s.current > s.limit || s.peak > s.limit || s.current > s.peak) {
            return false;
        }
        uint64_t children = 0;
        for (uint32_t j = i + 1; j < b->count; j++) {
            if (node_at(b, j)->parent == i) {
                children += atomic_load_explicit(&node_at(b, j)->current, memory_order_relaxed);
            }
        }
        if (children > s.current) {
            return false;
        }
    }
    return true;
}
