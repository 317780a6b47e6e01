/* SPDX-License-Identifier: MIT */
/* sluice: the stream's invariant checker (slc_stream_check, see sluice/stream.h). */
#include "sluice/stream.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "stream_internal.h"

bool slc_stream_check(const slc_stream *s)
{
    SLC_ASSERT(s != NULL);
    for (uint32_t k = 0; k < SLC_POOL_KIND_COUNT; k++) {
        if (s->pools[k].pool != NULL && !slc_pool_check(s->pools[k].pool)) {
            return false;
        }
    }
    uint64_t pub = atomic_load_explicit(&s->published, memory_order_relaxed);
    if (pub < s->applied || pub - s->applied > s->capacity || s->carried_count > s->capacity ||
        s->list_count > 2u * s->capacity || s->object_count_frame > s->capacity) {
        return false;
    }
    uint32_t loading = 0;
    for (uint32_t i = 0; i < s->chunk_count; i++) {
        const chunk_rec *r = &s->chunks[i];
        slc_page_info info;
        const slc_pool *pool = chunk_pool(s, i);
        int found = pool != NULL && slc_pool_lookup(pool, (slc_chunk_id){i}, &info) == SLC_OK;
        if (r->state > CH_FAILED || (r->state == CH_FAILED && r->attempts == 0)) {
            return false;
        }
        if (r->state == CH_LOADING) {
            /* its load is in flight, not cancelled, and holds its page */
            loading++;
            uint64_t seq = (pub & ~(uint64_t)0xFFFFFFFFu) | r->aux;
            if (seq >= pub) {
                seq -= (uint64_t)1 << 32;
            }
            if (seq < s->applied || seq >= pub) {
                return false;
            }
            const load_slot *slot = &s->slots[seq % s->capacity];
            if (slot->chunk != i || slot->seq != seq || atomic_load_explicit(&slot->cancelled, memory_order_relaxed) ||
                !found || info.state != SLC_PAGE_LOADING || info.page.index != slot->page ||
                info.page.generation != slot->generation) {
                return false;
            }
        } else if (found && info.state == SLC_PAGE_LOADING) {
            return false; /* a loading page without a load */
        }
    }
    uint32_t live = 0;
    for (uint64_t q = s->applied; q < pub; q++) {
        if (!atomic_load_explicit(&s->slots[q % s->capacity].cancelled, memory_order_relaxed)) {
            live++;
        }
    }
    return live == loading;
}
