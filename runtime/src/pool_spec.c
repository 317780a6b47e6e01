/* SPDX-License-Identifier: MIT */
/* sluice: one description per pool, made once from its profile section
 * (see sluice/pool_spec.h). */
#include "sluice/pool_spec.h"

#include <string.h>

#include "internal.h"

/* Where each kind of pool is declared and charged. */
static const struct {
    const char *section;
    const char *budget;
} kinds[SLC_POOL_KIND_COUNT] = {
    [SLC_POOL_GEOMETRY] = {"pool", "gpu/pool"},
};

void slc_pool_spec_from_profile(const slc_profile *p, slc_pool_kind kind, slc_pool_spec *out)
{
    SLC_ASSERT(p != NULL && out != NULL && (uint32_t)kind < (uint32_t)SLC_POOL_KIND_COUNT);
    memset(out, 0, sizeof *out);
    out->kind = kind;
    out->section = kinds[kind].section;
    /* A host-only profile declares no budget under gpu: its pages are charged
     * to none (sluice/profile.h). */
    out->budget = slc_profile_scan_host_only(p) ? NULL : kinds[kind].budget;
    out->page_size = p->page_size;
    out->staging_size = p->staging_size;
    slc_pool_desc *d = &out->pool;
    d->page_count = p->page_count;
    d->max_chunks = p->max_chunks;
    d->frames_in_flight = p->frames_in_flight;
    d->eviction = slc__evict_policy_name(p->eviction) != NULL ? p->eviction : SLC_EVICTION_LRU;
    d->partition_count = p->partition_count;
    for (uint32_t i = 0; i < p->partition_count && i < SLC_PARTITION_MAX; i++) {
        d->partitions[i].name = p->partitions[i].name;
        d->partitions[i].page_count = p->partitions[i].page_count;
    }
}
