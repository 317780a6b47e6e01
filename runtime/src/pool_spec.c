/* SPDX-License-Identifier: MIT */
/* sluice: one description per pool, made once from its profile section
 * (see sluice/pool_spec.h). */
#include "sluice/pool_spec.h"

#include <string.h>

#include "internal.h"
#include "sluice/pack_format.h"

/* Each kind of pool: its name, and where it is declared and charged. */
static const struct {
    const char *name;
    const char *section;
    const char *budget;
} kinds[SLC_POOL_KIND_COUNT] = {
    [SLC_POOL_GEOMETRY] = {"geometry", "pool", "gpu/pool"},
    [SLC_POOL_TEXTURES] = {"textures", "textures", "gpu/textures"},
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
    out->staging_size = kind == SLC_POOL_GEOMETRY ? p->staging_size : p->texture_staging_size;
    slc_pool_desc *d = &out->pool;
    d->max_chunks = p->max_chunks;
    d->frames_in_flight = p->frames_in_flight;
    if (kind == SLC_POOL_TEXTURES) {
        /* [texture_partitions] and the default; its belt is [textures]
         * staging_size (0: none declared). */
        d->page_count = p->texture_page_count;
        d->eviction = slc__evict_policy_name(p->texture_eviction) != NULL ? p->texture_eviction : SLC_EVICTION_LRU;
        d->partition_count = p->texture_partition_count;
        for (uint32_t i = 0; i < p->texture_partition_count && i < SLC_PARTITION_MAX; i++) {
            d->partitions[i].name = p->texture_partitions[i].name;
            d->partitions[i].page_count = p->texture_partitions[i].page_count;
        }
        return;
    }
    d->page_count = p->page_count;
    d->eviction = slc__evict_policy_name(p->eviction) != NULL ? p->eviction : SLC_EVICTION_LRU;
    d->partition_count = p->partition_count;
    for (uint32_t i = 0; i < p->partition_count && i < SLC_PARTITION_MAX; i++) {
        d->partitions[i].name = p->partitions[i].name;
        d->partitions[i].page_count = p->partitions[i].page_count;
    }
}

int slc_pool_kind_declared(const slc_profile *p, slc_pool_kind kind)
{
    SLC_ASSERT(p != NULL);
    return kind == SLC_POOL_GEOMETRY || (kind == SLC_POOL_TEXTURES && p->texture_page_count != 0);
}

slc_pool_kind slc_pool_kind_of_chunk_flags(uint32_t flags)
{
    return (flags & SLC_PACK_CHUNK_TEXTURE) != 0 ? SLC_POOL_TEXTURES : SLC_POOL_GEOMETRY;
}

const char *slc_pool_kind_name(slc_pool_kind kind)
{
    return (uint32_t)kind < (uint32_t)SLC_POOL_KIND_COUNT ? kinds[kind].name : NULL;
}
