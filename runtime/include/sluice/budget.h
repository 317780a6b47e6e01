/* SPDX-License-Identifier: MIT */
/* sluice: the MemoryBudgetManager.
 *
 * A tree of named budgets declared once at init, each with a limit in bytes.
 * The limits of a budget's children may not sum above its own limit.
 * Reserving bytes on a budget reserves them on every budget on the path to
 * its root, all or nothing: either every level has room and every level is
 * charged, or none is charged, the refusal is counted and the caller learns
 * which level refused. Nothing ever exceeds its limit.
 *
 * Phases ("open", "warmup", "stream", ...) split a run into named intervals;
 * for each phase and budget the manager keeps the use at its start, its peak
 * and the use at its end, so the gap between what a phase allocates and what
 * it keeps is visible.
 *
 * The manager lives in memory the caller provides (slc_budgets_footprint
 * bytes) and never allocates. The report is plain data; text and JSON
 * formatting live in tools/, outside the runtime. */
#ifndef SLUICE_BUDGET_H
#define SLUICE_BUDGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Most budgets one manager holds, and the deepest path (root = depth 0). */
#define SLC_BUDGET_MAX 64u
#define SLC_BUDGET_DEPTH_MAX 8u

/* The footprint is the same on every architecture (the internal records are
 * padded to these sizes and their layout is asserted), so a host tool can
 * size a firmware image's static block for any target. */
#define SLC_BUDGETS_HEADER_SIZE 128u
#define SLC_BUDGETS_NODE_SIZE 128u
#define SLC_BUDGETS_PHASE_SIZE 64u
#define SLC_BUDGETS_PHASE_ENTRY_SIZE 32u
#define SLC_BUDGETS_FOOTPRINT(budget_count, phase_capacity)                             \
    ((size_t)SLC_BUDGETS_HEADER_SIZE + (size_t)SLC_BUDGETS_NODE_SIZE * (budget_count) + \
     (size_t)SLC_BUDGETS_PHASE_SIZE * (phase_capacity) +                                \
     (size_t)SLC_BUDGETS_PHASE_ENTRY_SIZE * (budget_count) * (phase_capacity))

/* Alignment slc_budgets_init requires of its memory. */
#define SLC_BUDGETS_ALIGN 64u

/* A budget, by index into the declaration array. A struct so that it cannot
 * be mixed up with a byte count. */
typedef struct slc_budget_id {
    uint16_t index;
} slc_budget_id;

/* "No budget": accepted where a budget is optional. */
#define SLC_BUDGET_NONE_INDEX 0xFFFFu
#ifdef __cplusplus
#define SLC_BUDGET_NONE (slc_budget_id{SLC_BUDGET_NONE_INDEX})
#else
#define SLC_BUDGET_NONE ((slc_budget_id){SLC_BUDGET_NONE_INDEX})
#endif

/* One declared budget. parent is the index of an earlier declaration, or
 * SLC_BUDGET_NONE_INDEX for a root. name is copied at init. */
typedef struct slc_budget_desc {
    const char *name;
    uint64_t limit;
    uint16_t parent;
} slc_budget_desc;

/* Why a reservation was refused: the budget asked for and the first level on
 * the path to the root (possibly the budget itself) that had no room. */
typedef struct slc_budget_refusal {
    slc_budget_id budget;
    slc_budget_id refused_by;
    uint64_t requested;
    uint64_t current; /* use of refused_by when it refused */
    uint64_t limit;   /* limit of refused_by */
} slc_budget_refusal;

/* Counters of one budget, by value. peak, reservations, refused and
 * refused_here never decrease. */
typedef struct slc_budget_stats {
    char name[SLC_NAME_MAX];
    slc_budget_id id;
    slc_budget_id parent; /* SLC_BUDGET_NONE for a root */
    uint32_t depth;       /* 0 for a root */
    uint64_t limit;
    uint64_t current;
    uint64_t peak;
    uint64_t reservations; /* successful reservations made on this budget */
    uint64_t refused;      /* reservations made on this budget that were refused */
    uint64_t refused_here; /* refusals, on this budget or below, caused by this budget's limit */
} slc_budget_stats;

/* One budget within one phase. end is the use when the phase ended, or the
 * use now while the phase is still the current one (then ended is false). */
typedef struct slc_phase_stats {
    char phase[SLC_NAME_MAX];
    uint32_t phase_index;
    slc_budget_id budget;
    uint64_t start;
    uint64_t peak;
    uint64_t end;
    bool ended;
} slc_phase_stats;

typedef struct slc_budgets slc_budgets;

/* Bytes of memory slc_budgets_init needs for count budgets and phase_capacity
 * phases: SLC_BUDGETS_FOOTPRINT. O(1). */
size_t slc_budgets_footprint(size_t budget_count, size_t phase_capacity);

/* Builds a manager in mem from count declarations and starts phase 0, named
 * "init". phase_capacity (at least 1) is how many phases can ever begin,
 * "init" included. The logger (may be NULL) receives the reason of a failure.
 *
 * Fails iff mem is NULL (SLC_E_BLOCK_NULL), misaligned to SLC_BUDGETS_ALIGN
 * (SLC_E_BLOCK_MISALIGNED), smaller than the footprint (SLC_E_BLOCK_TOO_SMALL),
 * or the declarations are invalid (SLC_E_INVALID): count 0 or above
 * SLC_BUDGET_MAX, an empty, overlong or duplicate name, a parent that is not
 * an earlier declaration, a path deeper than SLC_BUDGET_DEPTH_MAX, or children
 * whose limits sum above their parent's. On failure *out is NULL.
 * O(count^2) for the duplicate check; never allocates. */
slc_status slc_budgets_init(void *mem, size_t size, const slc_budget_desc *descs, size_t count, size_t phase_capacity,
                            const slc_logger *log, slc_budgets **out);

/* Reserves bytes on budget and each ancestor, all or nothing. Fails iff some
 * level would exceed its limit (SLC_E_BUDGET_REFUSED): then no level has
 * changed, the refusal is counted on budget (refused) and on the level that
 * refused (refused_here), and *why (may be NULL) says which level and its
 * numbers. Reserving 0 bytes always succeeds and changes nothing.
 *
 * Thread-safe and lock-free (C11 atomics), O(depth). A level's use can rise
 * for an instant while a concurrent reservation that will be refused is
 * rolled back; a reservation racing with it near the limit may then be
 * refused too. Refusals are conservative: use never exceeds a limit. */
slc_status slc_budgets_reserve(slc_budgets *b, slc_budget_id budget, uint64_t bytes, slc_budget_refusal *why);

/* Returns bytes reserved earlier on budget to it and its ancestors. Releasing
 * more than the budget's current use is a contract violation (SLC_ASSERT).
 * Thread-safe, lock-free, O(depth). */
void slc_budgets_release(slc_budgets *b, slc_budget_id budget, uint64_t bytes);

/* Begins a new phase: ends the current one (its end is the use now) and
 * starts one whose start and peak are the use now. The name is copied.
 * Fails iff name is empty or longer than SLC_NAME_MAX - 1 (SLC_E_INVALID) or
 * phase_capacity phases have already begun (SLC_E_CAPACITY); the current
 * phase then goes on. O(budget count). Thread-safe against reserve and
 * release (a reservation racing with the switch counts in either phase), but
 * not against another begin_phase. */
slc_status slc_budgets_begin_phase(slc_budgets *b, const char *name);

/* Number of declared budgets; number of phases begun so far (at least 1).
 * O(1). */
size_t slc_budgets_count(const slc_budgets *b);
size_t slc_budgets_phase_count(const slc_budgets *b);

/* Finds a budget by its full name ("cpu/meta"). Fails iff no budget has that
 * name (SLC_E_NOT_FOUND, *out = SLC_BUDGET_NONE). O(count) string compares. */
slc_status slc_budgets_scan(const slc_budgets *b, const char *name, slc_budget_id *out);

/* The counters of one budget. budget must be valid (SLC_ASSERT). O(1). */
void slc_budgets_get(const slc_budgets *b, slc_budget_id budget, slc_budget_stats *out);

/* The counters of one budget in one phase. Both indices must be valid
 * (SLC_ASSERT). O(1). */
void slc_budgets_get_phase(const slc_budgets *b, size_t phase, slc_budget_id budget, slc_phase_stats *out);

/* The whole report: writes the counters of up to cap budgets, in declaration
 * order, and returns the number of budgets (which may exceed cap). O(count). */
size_t slc_budgets_walk_report(const slc_budgets *b, slc_budget_stats *out, size_t cap);

/* Walks every budget and returns false if any invariant is broken: use above
 * limit, peak above limit, use above peak, or (only meaningful when no
 * reservation is in flight) children's use summing above their parent's.
 * O(count). */
bool slc_budgets_check(const slc_budgets *b);

#ifdef __cplusplus
}
#endif

#endif
