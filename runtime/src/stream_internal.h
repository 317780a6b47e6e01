/* SPDX-License-Identifier: MIT */
/* sluice: what the stream's files share (the scheduler in stream.c, its
 * telemetry in stream_telemetry.c, its checker in stream_check.c); not
 * installed. stream.c calls the other two, never the reverse. */
#ifndef SLUICE_STREAM_INTERNAL_H
#define SLUICE_STREAM_INTERNAL_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "sluice/pool_spec.h"
#include "sluice/stream.h"

/* --- records ------------------------------------------------------------------ */

/* The stream's own state of a chunk id (the pool holds its page). */
enum { CH_IDLE = 0, CH_LOADING = 1, CH_FAILED = 2 };

typedef struct chunk_rec {
    uint32_t stamp;   /* the (32-bit) frame that last put the chunk in the frame's list; 0: never */
    uint32_t index;   /* its index in that list */
    uint32_t aux;     /* CH_LOADING: the load's sequence number (low 32 bits); CH_FAILED: the frame it failed in */
    uint8_t state;    /* CH_* */
    uint8_t attempts; /* failures in a row */
    uint16_t status;  /* of the last failure */
} chunk_rec;
_Static_assert(sizeof(chunk_rec) == SLC_STREAM_CHUNK_RECORD_SIZE, "chunk record size");

/* One entry of the frame's chunk list, of the carried list, or an object
 * request. */
enum { E_REQUESTED = 1, E_CARRIED = 2 };
typedef struct entry {
    uint32_t id; /* chunk, or object */
    uint8_t priority;
    uint8_t flags; /* E_*; object requests: the requested LOD */
    uint8_t partition;
    uint8_t extra; /* object requests: the resolved LOD */
} entry;
_Static_assert(sizeof(entry) == SLC_STREAM_REQUEST_RECORD_SIZE, "request record size");

/* A load: filled by the caller before publication, run by one thread,
 * applied by the caller in sequence order. */
enum { SLOT_QUEUED = 0, SLOT_RUNNING = 1, SLOT_DONE = 2, SLOT_SKIPPED = 3 };
typedef struct load_slot {
    _Atomic uint32_t state;     /* SLOT_* */
    _Atomic uint32_t cancelled; /* set by the caller; checked by the thread holding the page */
    uint32_t chunk;
    uint32_t page;
    uint32_t generation;
    int32_t status; /* written by the runner before SLOT_DONE */
    uint64_t due;   /* the frame whose begin applies it */
    uint64_t seq;
    union {
        void *dst;
        uint64_t pad;
    } dst;
    uint8_t reserved[SLC_STREAM_SLOT_RECORD_SIZE - 48];
} load_slot;
_Static_assert(sizeof(load_slot) == SLC_STREAM_SLOT_RECORD_SIZE, "load slot size");
_Static_assert(sizeof(slc_stream_frame_stats) == SLC_STREAM_FRAME_RECORD_SIZE, "frame record size");

enum { PHASE_IDLE = 0, PHASE_REQUESTING = 1, PHASE_SCHEDULED = 2 };

/* One pool the stream holds, by slc_pool_kind: built at create from the
 * spec slc_pool_spec_from_profile makes of its kind's profile section, over
 * the desc's store of that kind. A kind of pool added to slc_pool_kind gets
 * its slot here with no new field. */
typedef struct stream_pool {
    slc_pool *pool;
    _Atomic unsigned char *page_busy; /* a thread is writing the page */
    uint32_t page_size;
    uint32_t partition_count;
} stream_pool;

struct slc_stream {
    const slc_pack *pack;
    stream_pool pools[SLC_POOL_KIND_COUNT];
    slc_budgets *budgets;
    slc_stream_executor exec;
    uint64_t (*now_ns)(void);
    slc_logger logger;
    slc_arena *meta, *queues, *decode;
    slc_arena_mark meta_mark, queues_mark, decode_mark;

    chunk_rec *chunks;
    entry *objects; /* this frame's object requests */
    entry *list;    /* this frame's chunks */
    uint64_t *keys; /* sort keys of list */
    entry *carried; /* deferred into the next frame */
    load_slot *slots;
    slc_stream_frame_stats *ring;
    unsigned char *scratch; /* (workers + 1) x scratch_stride */
    size_t scratch_stride;
    size_t scratch_size;

    uint32_t chunk_count, object_count;
    uint32_t capacity; /* queue_capacity */
    uint32_t workers;
    uint32_t load_frames;
    uint32_t ring_capacity;
    uint32_t upload_cap_pages;
    uint32_t tile_cap_pages;
    uint32_t pinned_chunks;

    uint32_t object_count_frame, list_count, carried_count;
    int phase;
    uint32_t pool_frame_open; /* bit k: pool k holds frame `frame` open (not yet submitted) */
    uint32_t pool_begun;      /* bit k: pool k has begun frame `frame` + 1 in a begin not yet finished */
    uint64_t frame;
    uint64_t prepared;   /* the frame whose due loads are applied */
    uint64_t ring_count; /* frame records ever written */
    slc_stream_frame_stats cur;
    uint64_t frame_start_ns;

    _Atomic uint64_t published; /* loads published */
    _Atomic uint64_t claimed;   /* loads claimed by a thread */
    uint64_t applied;           /* loads applied (or dropped after cancellation) */

    slc_stream_stats totals;
    _Atomic uint64_t worker_loads, caller_loads, skipped_loads;
};
_Static_assert(sizeof(struct slc_stream) <= SLC_STREAM_HEADER_SIZE, "stream record fits its reserved size");

/* The desc's clock, or 0 without one. */
static inline uint64_t now(const slc_stream *s)
{
    return s->now_ns != NULL ? s->now_ns() : 0;
}

/* The kind of pool chunk goes to (slc_pool_kind_of_chunk_flags). */
static inline uint32_t chunk_kind(const slc_stream *s, uint32_t chunk)
{
    return (uint32_t)slc_pool_kind_of_chunk_flags(slc_pack_get_chunk(s->pack, (slc_chunk_id){chunk})->flags);
}

/* The pool chunk goes to: NULL when the profile declares none of its kind. */
static inline slc_pool *chunk_pool(const slc_stream *s, uint32_t chunk)
{
    return s->pools[chunk_kind(s, chunk)].pool;
}

/* --- telemetry (stream_telemetry.c) ------------------------------------------- */

/* Records the failure of chunk in frame (status st) in the frame's record
 * and, while there is room, in the stream's first failures. */
void slc__stream_record_failure(slc_stream *s, uint32_t chunk, slc_status st, uint64_t frame);

/* The frame's record (t0: when slc_stream_end_frame began): the budgets' use
 * now and the caller's time, added to the totals and written to the ring. */
void slc__stream_roll_up_telemetry(slc_stream *s, uint64_t t0);

#endif
