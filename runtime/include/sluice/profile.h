/* SPDX-License-Identifier: MIT */
/* sluice: budget profiles.
 *
 * A profile declares, for one target class, every budget and the sizes of
 * everything the runtime will ever hold: the GPU page size and count, the
 * staging size, the per-frame upload cap, frames in flight, worker threads
 * and table capacities; optionally the reference renderer's target size and
 * per-frame lists ([render]) and the image-quality floor its frames must
 * keep ([quality]). Its text format is documented in budgets/README.md.
 *
 * slc_profile is plain data. The parser reads a memory buffer, never
 * allocates, and rejects malformed input with "file:line: [section] key:
 * rule" in its diagnostic. `sluice budget header` turns a profile into a C
 * header holding the same slc_profile as static data, for firmware that
 * cannot read files. */
#ifndef SLUICE_PROFILE_H
#define SLUICE_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "budget.h"
#include "config.h"
#include "limits.h"
#include "pool.h" /* slc_eviction_policy */
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Most budgets a profile declares; longest line the parser accepts (bytes,
 * without the line break). */
#define SLC_PROFILE_BUDGET_MAX 32u
#define SLC_PROFILE_LINE_MAX 256u

/* The ranges the parser enforces; a value outside is "absurd". page_size,
 * page_count, frames_in_flight, max_objects, max_chunks and the partitions
 * take the bounds of sluice/limits.h (SLC_PAGE_SIZE_MIN/MAX,
 * SLC_PAGE_COUNT_MAX, SLC_FRAMES_IN_FLIGHT_MAX, SLC_TABLE_COUNT_MAX,
 * SLC_PARTITION_MAX), so every profile it accepts fits the pool and the
 * stores. */
#define SLC_PROFILE_SIZE_MAX ((uint64_t)1 << 40) /* 1 TiB, for any size or limit */
#define SLC_PROFILE_WORKERS_MAX 64u
#define SLC_PROFILE_QUEUE_CAPACITY_MAX (1u << 20)
#define SLC_PROFILE_STRING_BYTES_MAX (64u << 20)
#define SLC_PROFILE_PHASES_MIN 2u
#define SLC_PROFILE_PHASES_MAX 64u
#define SLC_PROFILE_PHASES_DEFAULT 8u /* [report] max_phases: the default when absent */
/* [render] width and height (the renderer's own target); max_draws and
 * max_placements (its per-frame lists). The renderer's own bound on a
 * target's side, SLC_RENDER_SIZE_MAX in sluice/render.h, is the same 16384. */
#define SLC_PROFILE_RENDER_SIZE_MAX 16384u
#define SLC_PROFILE_RENDER_LIST_MAX (1u << 24)
/* [quality] min_psnr_db: a decimal of at most 3 fractional digits, above 0
 * and at most 200 dB, stored in milli-dB (1 to 200000). */
#define SLC_PROFILE_PSNR_FRACTION_DIGITS 3u
#define SLC_PROFILE_PSNR_MAX_MDB 200000u

/* The partition of the pages no named partition claims ([partitions] names
 * at most SLC_PARTITION_MAX others). */
#define SLC_PROFILE_PARTITION_DEFAULT_NAME "default"

typedef struct slc_profile_budget {
    char name[SLC_NAME_MAX]; /* full path, "cpu/meta" */
    uint64_t limit;          /* bytes */
    uint16_t parent;         /* index into budgets, or SLC_BUDGET_NONE_INDEX */
} slc_profile_budget;

/* One named partition of the page pool: page_count pages (at least 1) that
 * only requests in this partition can fill or evict. */
typedef struct slc_profile_partition {
    char name[SLC_NAME_MAX];
    uint32_t page_count;
} slc_profile_partition;

/* A parsed profile. Budgets are ordered by depth, then by their order in the
 * file, so every parent precedes its children. Partitions keep their order in
 * the file; the "default" partition of the pages they leave is implied, not
 * listed. Unused name bytes are zero, so two equal profiles are equal byte
 * for byte in their names. */
typedef struct slc_profile {
    char name[SLC_NAME_MAX];
    uint32_t budget_count;
    slc_profile_budget budgets[SLC_PROFILE_BUDGET_MAX];
    /* [pool] */
    uint32_t page_size; /* bytes, a power of two from SLC_PAGE_SIZE_MIN to SLC_PAGE_SIZE_MAX */
    uint32_t page_count;
    /* [stream] */
    uint32_t frames_in_flight;
    uint32_t workers;
    uint32_t queue_capacity;
    uint64_t staging_size;
    uint64_t upload_cap;
    /* [tables] */
    uint32_t max_objects;
    uint32_t max_chunks;
    uint32_t max_lods;
    uint64_t max_string_bytes;
    /* [report] */
    uint32_t max_phases;
    /* [pool] eviction: an slc_eviction_policy value (a fixed-width field, so
     * the layout is the same with every compiler) */
    uint32_t eviction;
    /* [partitions]: partition_count named partitions, at most
     * SLC_PARTITION_MAX, whose page counts sum to at most page_count */
    uint32_t partition_count;
    slc_profile_partition partitions[SLC_PARTITION_MAX];
    /* [stream] pin_coarsest: how many of every object's coarsest levels the
     * stream pins at create (0: none; optional, default 0) */
    uint32_t pin_coarsest;
    /* [render]: the reference renderer's own target, in pixels (1 to
     * SLC_PROFILE_RENDER_SIZE_MAX), and its per-frame cluster draws and
     * instance placements (1 to SLC_PROFILE_RENDER_LIST_MAX). Each optional:
     * 0 means not declared, and the renderer takes its default
     * (slc_render_desc_from_profile). */
    uint32_t render_width, render_height, render_max_draws, render_max_placements;
    /* [quality] min_psnr_db in milli-dB (30.5 dB is 30500): the lowest PSNR
     * a frame rendered under this profile may have against the unlimited
     * reference. 0: no floor declared. */
    uint32_t min_psnr_mdb;
} slc_profile;

/* Where and why parsing failed. message holds the whole diagnostic,
 * "file:line: [section] key: rule". line is 1-based (0 when no line
 * applies). */
typedef struct slc_profile_diag {
    uint32_t line;
    char message[320];
} slc_profile_diag;

/* Parses len bytes of profile text. file_name names the source in messages
 * (may be NULL: "<profile>"). On failure *out is left zeroed, diag (may be
 * NULL) says why, and the status says which class of rule broke:
 * SLC_E_PROFILE_SYNTAX, _UNKNOWN, _DUPLICATE, _VALUE, _MISSING, _RANGE,
 * _TREE or _BINARY. O(len + budgets^2); never allocates. */
slc_status slc_profile_parse(const char *text, size_t len, const char *file_name, slc_profile *out,
                             slc_profile_diag *diag);

/* Fills cap budget declarations (pointing into p's names) for
 * slc_budgets_init and returns p->budget_count. O(budgets). */
size_t slc_profile_budget_descs(const slc_profile *p, slc_budget_desc *out, size_t cap);

/* True iff a and b declare the same configuration, field by field. */
bool slc_profile_equal(const slc_profile *a, const slc_profile *b);

/* Index of the budget with that full name, or -1. O(budgets). */
int slc_profile_scan_budget(const slc_profile *p, const char *name);

/* Index into p->partitions of the partition with that name, or -1 (also for
 * "default", which is not listed). O(partitions). */
int slc_profile_scan_partition(const slc_profile *p, const char *name);

/* The [pool] eviction keyword of an slc_eviction_policy value ("lru",
 * "priority", "predict"), or "?" for a value that is none. O(1). */
const char *slc_profile_policy_name(uint32_t eviction);

#ifdef __cplusplus
}
#endif

#endif
