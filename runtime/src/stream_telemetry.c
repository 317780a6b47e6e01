/* SPDX-License-Identifier: MIT */
/* sluice: the stream's telemetry: the frame records, their ring, the totals
 * and the first failures' records (see sluice/stream.h). */
#include "sluice/stream.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "stream_internal.h"

void slc__stream_record_failure(slc_stream *s, uint32_t chunk, slc_status st, uint64_t frame)
{
    /* Failures are applied only in begin_frame, after cur is cleared and
     * before end_frame adds it to the totals: this is failure number
     * totals.failures + cur.failures of the stream's life. */
    uint64_t index = s->totals.failures + s->cur.failures;
    s->cur.failures++;
    if (index < SLC_STREAM_FAILURE_RECORDS) {
        slc_stream_failure *rec = &s->totals.first_failures[index];
        rec->frame = frame;
        rec->chunk.index = chunk;
        rec->status = st;
    }
}

/* The frame's record: the budgets' use now, the caller's time, added to
 * the totals and written to the telemetry ring. */
void slc__stream_roll_up_telemetry(slc_stream *s, uint64_t t0)
{
    size_t nb = slc_budgets_count(s->budgets);
    s->cur.budget_count = (uint32_t)(nb < SLC_PROFILE_BUDGET_MAX ? nb : SLC_PROFILE_BUDGET_MAX);
    for (uint32_t i = 0; i < s->cur.budget_count; i++) {
        slc_budget_stats bs;
        slc_budgets_get(s->budgets, (slc_budget_id){(uint16_t)i}, &bs);
        s->cur.budgets[i] = bs.current;
    }
    s->cur.caller_ns += now(s) - t0;
    slc_stream_stats *t = &s->totals;
    const slc_stream_frame_stats *c = &s->cur;
    t->requests += c->requests;
    t->refused += c->refused;
    t->hits += c->hits;
    t->misses += c->misses;
    t->loads_started += c->loads_started;
    t->loads_completed += c->loads_completed;
    t->loads_cancelled += c->loads_cancelled;
    t->failures += c->failures;
    t->failed_skips += c->failed_skips;
    t->evictions += c->evictions;
    t->deferred += c->deferred;
    t->dropped += c->dropped;
    t->fallbacks += c->fallbacks;
    t->holes += c->holes;
    t->bytes_read += c->bytes_read;
    t->bytes_decoded += c->bytes_decoded;
    t->bytes_uploaded += c->bytes_uploaded;
    t->tile_bytes_read += c->tile_bytes_read;
    t->tile_bytes_uploaded += c->tile_bytes_uploaded;
    t->wait_ns += c->wait_ns;
    s->ring[s->ring_count % s->ring_capacity] = s->cur;
    s->ring_count++;
}

void slc_stream_get_stats(const slc_stream *s, slc_stream_stats *out)
{
    SLC_ASSERT(s != NULL && out != NULL);
    *out = s->totals;
    out->worker_loads = atomic_load_explicit(&s->worker_loads, memory_order_relaxed);
    out->caller_loads = atomic_load_explicit(&s->caller_loads, memory_order_relaxed);
    out->skipped_loads = atomic_load_explicit(&s->skipped_loads, memory_order_relaxed);
    out->in_flight = (uint32_t)(atomic_load_explicit(&s->published, memory_order_relaxed) - s->applied);
    out->pinned_chunks = s->pinned_chunks;
    out->upload_cap_pages = s->upload_cap_pages;
    out->tile_cap_pages = s->tile_cap_pages;
    out->workers = s->workers;
    /* the records of failures applied by a frame not yet ended wait for its totals */
    out->failure_records = s->totals.failures < SLC_STREAM_FAILURE_RECORDS ? (uint32_t)s->totals.failures
                                                                           : SLC_STREAM_FAILURE_RECORDS;
    memset(out->first_failures + out->failure_records, 0,
           (SLC_STREAM_FAILURE_RECORDS - out->failure_records) * sizeof out->first_failures[0]);
}

size_t slc_stream_walk_telemetry(const slc_stream *s, slc_stream_frame_stats *out, size_t cap)
{
    SLC_ASSERT(s != NULL && (out != NULL || cap == 0));
    uint64_t first = s->ring_count > s->ring_capacity ? s->ring_count - s->ring_capacity : 0;
    uint64_t n = s->ring_count - first;
    if (n > cap) {
        first += n - cap;
        n = cap;
    }
    for (uint64_t i = 0; i < n; i++) {
        out[i] = s->ring[(first + i) % s->ring_capacity];
    }
    return (size_t)n;
}
