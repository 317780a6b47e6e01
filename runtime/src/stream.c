/* SPDX-License-Identifier: MIT */
/* sluice: the streaming scheduler (see sluice/stream.h). */
#include "sluice/stream.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "internal.h"
#include "stream_internal.h"

#define ALIGN 64u
#define NO_SLOT 0xFFFFFFFFu

static size_t align_up(size_t x)
{
    return (x + (ALIGN - 1u)) & ~(size_t)(ALIGN - 1u);
}

/* --- layout: what the stream takes from each arena ------------------------------- */

enum { AR_META = 0, AR_QUEUES = 1, AR_DECODE = 2, AR_COUNT = 3 };

/* The regions in the order slc_stream_create takes them: each kind of pool
 * has its pool record (R_POOL + kind) and its page locks (R_BUSY + kind). */
enum {
    R_POOL = 0,
    R_CHUNKS = R_POOL + SLC_POOL_KIND_COUNT,
    R_BUSY,
    R_OBJECTS = R_BUSY + SLC_POOL_KIND_COUNT,
    R_LIST,
    R_KEYS,
    R_CARRIED,
    R_SLOTS,
    R_RING,
    R_SCRATCH,
    R_COUNT
};

/* What the refused take of a kind's pool record or page locks says. */
static const char *const pool_purpose[SLC_POOL_KIND_COUNT] = {
    [SLC_POOL_GEOMETRY] = "the page pool (cpu/meta)",
    [SLC_POOL_TEXTURES] = "the texture pool (cpu/meta)",
};
static const char *const busy_purpose[SLC_POOL_KIND_COUNT] = {
    [SLC_POOL_GEOMETRY] = "the page locks (cpu/meta)",
    [SLC_POOL_TEXTURES] = "the texture page locks (cpu/meta)",
};

/* Every pool the profile declares, by kind: the one description its pool
 * and (in the application) its store are built from. */
static void pool_specs(const slc_profile *p, slc_pool_spec out[SLC_POOL_KIND_COUNT])
{
    for (uint32_t k = 0; k < SLC_POOL_KIND_COUNT; k++) {
        slc_pool_spec_from_profile(p, (slc_pool_kind)k, &out[k]);
    }
}

typedef struct region {
    uint8_t arena;       /* AR_* */
    size_t size;         /* bytes; 0: not taken (no scratch for a mapped pack) */
    const char *purpose; /* in the message of a refused take */
} region;

static int mul_ok(size_t a, size_t b, size_t *out)
{
    if (a != 0 && b > SIZE_MAX / a) {
        return 0;
    }
    *out = a * b;
    return 1;
}

/* The one table slc_stream_create carves and slc_stream_calculate_footprint
 * sums, so the two cannot diverge. A kind of pool the profile does not
 * declare takes nothing. Returns 0 iff a size overflows or a declared pool
 * has no footprint. */
static int layout(const slc_profile *p, const slc_pool_spec pools[SLC_POOL_KIND_COUNT], size_t scratch_size,
                  uint32_t frames, region out[R_COUNT])
{
    const size_t cap = p->queue_capacity;
    struct {
        uint8_t arena;
        size_t unit, count;
        const char *purpose;
    } spec[R_COUNT] = {
        [R_CHUNKS] = {AR_META, SLC_STREAM_CHUNK_RECORD_SIZE, p->max_chunks, "the chunk records (cpu/meta)"},
        [R_OBJECTS] = {AR_QUEUES, SLC_STREAM_REQUEST_RECORD_SIZE, cap, "the object requests (cpu/queues)"},
        /* the chunk list and its keys hold capacity requested and capacity carried */
        [R_LIST] = {AR_QUEUES, (size_t)2 * SLC_STREAM_REQUEST_RECORD_SIZE, cap, "the chunk list (cpu/queues)"},
        [R_KEYS] = {AR_QUEUES, 2u * sizeof(uint64_t), cap, "the sort keys (cpu/queues)"},
        [R_CARRIED] = {AR_QUEUES, SLC_STREAM_REQUEST_RECORD_SIZE, cap, "the deferred list (cpu/queues)"},
        [R_SLOTS] = {AR_QUEUES, SLC_STREAM_SLOT_RECORD_SIZE, cap, "the load slots (cpu/queues)"},
        [R_RING] = {AR_QUEUES, SLC_STREAM_FRAME_RECORD_SIZE, frames, "the telemetry ring (cpu/queues)"},
        [R_SCRATCH] = {AR_DECODE, align_up(scratch_size), (size_t)p->workers + 1u, "the read scratch (cpu/decode)"},
    };
    for (uint32_t k = 0; k < SLC_POOL_KIND_COUNT; k++) {
        if (!slc_pool_kind_declared(p, (slc_pool_kind)k)) {
            continue;
        }
        size_t footprint = slc_pool_footprint(&pools[k].pool);
        if (footprint == 0) {
            return 0;
        }
        spec[R_POOL + k].arena = AR_META;
        spec[R_POOL + k].unit = footprint;
        spec[R_POOL + k].count = 1;
        spec[R_POOL + k].purpose = pool_purpose[k];
        spec[R_BUSY + k].arena = AR_META;
        spec[R_BUSY + k].unit = 1;
        spec[R_BUSY + k].count = pools[k].pool.page_count;
        spec[R_BUSY + k].purpose = busy_purpose[k];
    }
    for (uint32_t i = 0; i < R_COUNT; i++) {
        out[i].arena = spec[i].arena;
        out[i].purpose = spec[i].purpose;
        if (!mul_ok(spec[i].unit, spec[i].count, &out[i].size)) {
            return 0;
        }
    }
    return 1;
}

slc_status slc_stream_calculate_footprint(const slc_profile *p, size_t scratch_size, uint32_t telemetry_frames,
                                          slc_stream_footprint *out)
{
    SLC_ASSERT(p != NULL && out != NULL);
    memset(out, 0, sizeof *out);
    uint32_t frames = telemetry_frames != 0 ? telemetry_frames : SLC_STREAM_DEFAULT_TELEMETRY_FRAMES;
    slc_pool_spec pools[SLC_POOL_KIND_COUNT];
    pool_specs(p, pools);
    region r[R_COUNT];
    if (!layout(p, pools, scratch_size, frames, r)) {
        return SLC_E_INVALID;
    }
    /* The stream's own record heads cpu/meta; each arena with anything to
     * take gets ALIGN bytes of slack for its start's alignment. */
    size_t total[AR_COUNT] = {SLC_STREAM_HEADER_SIZE, 0, 0};
    int used[AR_COUNT] = {1, 0, 0};
    for (uint32_t i = 0; i < R_COUNT; i++) {
        size_t a = align_up(r[i].size);
        if (a < r[i].size || total[r[i].arena] > SIZE_MAX - a) {
            return SLC_E_INVALID;
        }
        total[r[i].arena] += a;
        used[r[i].arena] |= r[i].size != 0;
    }
    for (uint32_t a = 0; a < AR_COUNT; a++) {
        if (used[a] && total[a] > SIZE_MAX - ALIGN) {
            return SLC_E_INVALID;
        }
        total[a] = used[a] ? total[a] + ALIGN : 0;
    }
    out->meta = total[AR_META];
    out->queues = total[AR_QUEUES];
    out->decode = total[AR_DECODE];
    return SLC_OK;
}

/* --- loads (any thread) ---------------------------------------------------------- */

static void lock_page(slc_stream *s, uint32_t kind, uint32_t page)
{
    unsigned char expected = 0;
    _Atomic unsigned char *busy = &s->pools[kind].page_busy[page];
    while (!atomic_compare_exchange_weak_explicit(busy, &expected, 1, memory_order_acquire, memory_order_relaxed)) {
        expected = 0; /* another thread still writes a cancelled load into the page: it ends soon */
    }
}

static void unlock_page(slc_stream *s, uint32_t kind, uint32_t page)
{
    atomic_store_explicit(&s->pools[kind].page_busy[page], 0, memory_order_release);
}

/* Reads, verifies and decodes chunk into dst, then checks its contents
 * (slc_pack_check_chunk), so no page whose indices leave its clusters is
 * ever published: one rule for the pinned and the streamed loads. */
static slc_status load_chunk(const slc_stream *s, uint32_t chunk, void *dst, unsigned char *scratch)
{
    const slc_chunk_id id = {chunk};
    const uint32_t page_size = s->pools[chunk_kind(s, chunk)].page_size;
    slc_status st = slc_pack_load_chunk(s->pack, id, dst, page_size, scratch, scratch != NULL ? s->scratch_size : 0);
    return st == SLC_OK ? slc_pack_check_chunk(s->pack, id, dst) : st;
}

static void run_slot(slc_stream *s, load_slot *slot, uint32_t worker)
{
    const uint32_t kind = chunk_kind(s, slot->chunk);
    lock_page(s, kind, slot->page);
    if (atomic_load_explicit(&slot->cancelled, memory_order_acquire) != 0) {
        unlock_page(s, kind, slot->page);
        atomic_fetch_add_explicit(&s->skipped_loads, 1, memory_order_relaxed);
        atomic_store_explicit(&slot->state, SLOT_SKIPPED, memory_order_release);
        return;
    }
    atomic_store_explicit(&slot->state, SLOT_RUNNING, memory_order_relaxed);
    unsigned char *scratch = s->scratch != NULL ? s->scratch + (size_t)worker * s->scratch_stride : NULL;
    slc_status st = load_chunk(s, slot->chunk, slot->dst.dst, scratch);
    unlock_page(s, kind, slot->page);
    slot->status = (int32_t)st;
    atomic_store_explicit(&slot->state, SLOT_DONE, memory_order_release);
}

bool slc_stream_work(slc_stream *s, uint32_t worker)
{
    SLC_ASSERT(s != NULL && worker <= s->workers);
    uint64_t c = atomic_load_explicit(&s->claimed, memory_order_relaxed);
    for (;;) {
        uint64_t pub = atomic_load_explicit(&s->published, memory_order_acquire);
        if (c >= pub) {
            return false;
        }
        if (atomic_compare_exchange_weak_explicit(&s->claimed, &c, c + 1u, memory_order_acq_rel,
                                                  memory_order_relaxed)) {
            break;
        }
    }
    load_slot *slot = &s->slots[c % s->capacity];
    run_slot(s, slot, worker);
    if (worker < s->workers) {
        atomic_fetch_add_explicit(&s->worker_loads, 1, memory_order_relaxed);
        if (s->exec.ops != NULL) {
            s->exec.ops->completed(s->exec.self);
        }
    } else {
        atomic_fetch_add_explicit(&s->caller_loads, 1, memory_order_relaxed);
    }
    return true;
}

/* --- the caller's side ----------------------------------------------------------- */

static int slot_finished(const load_slot *slot)
{
    uint32_t st = atomic_load_explicit(&slot->state, memory_order_acquire);
    return st == SLOT_DONE || st == SLOT_SKIPPED;
}

/* Blocks until slot's load has run (or been skipped), running unclaimed
 * loads on the caller's thread meanwhile. */
static void wait_slot(slc_stream *s, const load_slot *slot)
{
    while (!slot_finished(slot)) {
        if (slc_stream_work(s, s->workers)) {
            continue;
        }
        if (slot_finished(slot)) {
            break;
        }
        SLC_ASSERT(s->exec.ops != NULL); /* with no workers every load ran inline */
        s->exec.ops->wait(s->exec.self);
    }
}

static void fail_chunk(slc_stream *s, uint32_t chunk, slc_status st, uint64_t frame)
{
    chunk_rec *r = &s->chunks[chunk];
    r->state = CH_FAILED;
    r->status = (uint16_t)st;
    if (r->attempts < 255u) {
        r->attempts++;
    }
    r->aux = (uint32_t)frame;
    slc__stream_record_failure(s, chunk, st, frame);
}

/* Whether a load that ended with st read its stored bytes: it succeeded,
 * or failed after the read (checksum, decode, content). */
static int load_read_its_bytes(slc_status st)
{
    return st == SLC_OK || st == SLC_E_PACK_CHUNK_CHECKSUM || st == SLC_E_PACK_CORRUPT ||
           st == SLC_E_PACK_DECODED_SIZE || st == SLC_E_PACK_CHUNK_CONTENT;
}

/* Applies the loads due by frame, in publication order. */
static void apply_due(slc_stream *s, uint64_t frame)
{
    uint64_t pub = atomic_load_explicit(&s->published, memory_order_relaxed);
    uint64_t t0 = 0;
    int waited = 0;
    while (s->applied < pub) {
        load_slot *slot = &s->slots[s->applied % s->capacity];
        if (slot->due > frame) {
            break;
        }
        if (!slot_finished(slot)) {
            if (!waited) {
                t0 = now(s);
                waited = 1;
            }
            wait_slot(s, slot);
        }
        s->applied++;
        if (atomic_load_explicit(&slot->cancelled, memory_order_relaxed) != 0) {
            continue; /* its page was released when it was cancelled */
        }
        const slc_pack_chunk *c = slc_pack_get_chunk(s->pack, (slc_chunk_id){slot->chunk});
        slc_page page = {slot->page, slot->generation};
        slc_status st = atomic_load_explicit(&slot->state, memory_order_relaxed) == SLOT_DONE ? (slc_status)slot->status
                                                                                              : SLC_E_INVALID;
        const uint32_t kind = chunk_kind(s, slot->chunk);
        slc_pool *pool = s->pools[kind].pool;
        const int tile = kind == SLC_POOL_TEXTURES;
        if (load_read_its_bytes(st)) {
            s->cur.bytes_read += c->stored_size;
            s->cur.tile_bytes_read += tile ? c->stored_size : 0u;
        }
        if (st == SLC_OK) {
            s->cur.bytes_decoded += c->decoded_size;
            st = slc_pool_write_end(pool, page, c->decoded_size);
        }
        chunk_rec *r = &s->chunks[slot->chunk];
        if (st == SLC_OK) {
            r->state = CH_IDLE;
            r->attempts = 0;
            r->status = 0;
            s->cur.loads_completed++;
            s->cur.bytes_uploaded += c->decoded_size;
            s->cur.tile_bytes_uploaded += tile ? c->decoded_size : 0u;
        } else {
            slc_status rs = slc_pool_release(pool, page);
            SLC_ASSERT(rs == SLC_OK); /* a loading page is always releasable */
            (void)rs;
            fail_chunk(s, slot->chunk, st, frame);
        }
    }
    if (waited) {
        s->cur.wait_ns += now(s) - t0;
    }
}

slc_status slc_stream_begin_frame(slc_stream *s, uint64_t *frame)
{
    SLC_ASSERT(s != NULL);
    if (s->phase == PHASE_REQUESTING) {
        return slc__log(&s->logger, SLC_LOG_ERROR, SLC_E_INVALID,
                        "stream: frame %llu is begun and not ended (slc_stream_end_frame first)",
                        (unsigned long long)s->frame);
    }
    uint64_t t0 = now(s);
    uint64_t next = s->frame + 1u;
    if (s->prepared != next) {
        /* The loads due in the next frame are applied first, while the
         * previous frame is still open: a staged page's copy is then
         * submitted with that frame, ahead of the work that will read it.
         * (Done once: a refused begin is retried without applying again.) */
        memset(&s->cur, 0, sizeof s->cur);
        s->cur.frame = next;
        apply_due(s, next);
        s->prepared = next;
    }
    /* Every pool keeps the stream's frame numbers: the previous frame is
     * submitted in each that still holds it open, then the next begun in
     * each. A pool that refuses (its store lags) leaves the others as they
     * are, and a retried begin goes on from there. */
    for (uint32_t k = 0; k < SLC_POOL_KIND_COUNT; k++) {
        if ((s->pool_frame_open & (1u << k)) != 0) {
            slc_status st = slc_pool_end_frame(s->pools[k].pool);
            if (st != SLC_OK) {
                s->cur.caller_ns += now(s) - t0;
                return st;
            }
            s->pool_frame_open &= ~(1u << k);
        }
    }
    for (uint32_t k = 0; k < SLC_POOL_KIND_COUNT; k++) {
        if (s->pools[k].pool != NULL && (s->pool_begun & (1u << k)) == 0) {
            uint64_t f = 0;
            slc_status st = slc_pool_begin_frame(s->pools[k].pool, &f);
            if (st != SLC_OK) {
                s->cur.caller_ns += now(s) - t0;
                return st;
            }
            SLC_ASSERT(f == next);
            s->pool_begun |= 1u << k;
        }
    }
    const uint64_t f = next;
    s->pool_frame_open = s->pool_begun;
    s->pool_begun = 0;
    s->frame = f;
    s->totals.frame = f;
    s->frame_start_ns = t0;
    s->object_count_frame = 0;
    s->list_count = 0;
    s->phase = PHASE_REQUESTING;
    s->cur.caller_ns += now(s) - t0;
    if (frame != NULL) {
        *frame = f;
    }
    return SLC_OK;
}

static slc_status refuse(slc_stream *s, slc_status st)
{
    s->cur.refused++;
    return st;
}

static slc_status check_requesting(slc_stream *s, const char *what)
{
    if (s->phase != PHASE_REQUESTING) {
        s->totals.refused++; /* no frame's record to count it in */
        return slc__log(&s->logger, SLC_LOG_ERROR, SLC_E_INVALID, "stream: %s outside a frame (begin_frame first)",
                        what);
    }
    return SLC_OK;
}

/* Puts chunk in the frame's list (or raises its priority there). */
static slc_status add_chunk(slc_stream *s, uint32_t chunk, uint8_t priority, uint8_t partition, uint8_t flags,
                            uint32_t cap)
{
    chunk_rec *r = &s->chunks[chunk];
    uint32_t stamp = (uint32_t)s->frame;
    if (r->stamp == stamp) {
        entry *e = &s->list[r->index];
        if (priority > e->priority) {
            e->priority = priority;
        }
        e->flags = (uint8_t)(e->flags | flags);
        return SLC_OK;
    }
    if (s->list_count >= cap) {
        return SLC_E_CAPACITY;
    }
    r->stamp = stamp;
    r->index = s->list_count;
    entry *e = &s->list[s->list_count++];
    e->id = chunk;
    e->priority = priority;
    e->flags = flags;
    e->partition = partition;
    e->extra = 0;
    return SLC_OK;
}

slc_status slc_stream_request(slc_stream *s, const slc_stream_object_request *req)
{
    SLC_ASSERT(s != NULL && req != NULL);
    slc_status st = check_requesting(s, "a request");
    if (st != SLC_OK) {
        return st;
    }
    const slc_pack_header *h = slc_pack_get_header(s->pack);
    const uint32_t object = req->object.index;
    if (object >= h->object_count) {
        refuse(s, SLC_E_INVALID);
        return slc__log(&s->logger, SLC_LOG_ERROR, SLC_E_INVALID,
                        "stream: request for object %u: the pack has %u objects", object, h->object_count);
    }
    const slc_pack_object *o = slc_pack_get_object(s->pack, req->object);
    if (req->lod >= o->lod_count) {
        refuse(s, SLC_E_INVALID);
        return slc__log(&s->logger, SLC_LOG_ERROR, SLC_E_INVALID,
                        "stream: request for object %u LOD %u: the object has %u levels", object, req->lod,
                        o->lod_count);
    }
    if (req->partition.index >= s->pools[SLC_POOL_GEOMETRY].partition_count) { /* objects are geometry */
        refuse(s, SLC_E_INVALID);
        return slc__log(&s->logger, SLC_LOG_ERROR, SLC_E_INVALID,
                        "stream: request for object %u: partition %u does not exist (the pool has %u)", object,
                        req->partition.index, s->pools[SLC_POOL_GEOMETRY].partition_count);
    }
    const slc_pack_lod *l = slc_pack_get_lod(s->pack, o->first_lod + req->lod);
    /* All or nothing: a request that does not fit adds none of its chunks. */
    uint32_t fresh = 0;
    for (uint32_t i = 0; i < l->span_count; i++) {
        fresh += s->chunks[slc_pack_get_span(s->pack, l->first_span + i)->chunk].stamp != (uint32_t)s->frame;
    }
    if (slc_stream_admit(s->capacity, s->object_count_frame, s->list_count, true, fresh) != SLC_STREAM_ADMITTED) {
        return refuse(s, SLC_E_CAPACITY);
    }
    for (uint32_t i = 0; i < l->span_count; i++) {
        const slc_pack_span *sp = slc_pack_get_span(s->pack, l->first_span + i);
        st = add_chunk(s, sp->chunk, req->priority, (uint8_t)req->partition.index, E_REQUESTED, s->capacity);
        SLC_ASSERT(st == SLC_OK); /* counted above */
    }
    entry *e = &s->objects[s->object_count_frame++];
    e->id = object;
    e->priority = req->priority;
    e->flags = req->lod;
    e->partition = (uint8_t)req->partition.index;
    e->extra = SLC_STREAM_LOD_NONE;
    s->cur.requests++;
    return SLC_OK;
}

slc_status slc_stream_request_chunk(slc_stream *s, slc_chunk_id id, uint8_t priority, slc_partition partition)
{
    SLC_ASSERT(s != NULL);
    const uint32_t chunk = id.index;
    slc_status st = check_requesting(s, "a chunk request");
    if (st != SLC_OK) {
        return st;
    }
    if (chunk >= s->chunk_count) {
        refuse(s, SLC_E_INVALID);
        return slc__log(&s->logger, SLC_LOG_ERROR, SLC_E_INVALID,
                        "stream: request for chunk %u: the pack has %u chunks", chunk, s->chunk_count);
    }
    const uint32_t kind = chunk_kind(s, chunk);
    /* Every texture chunk belongs to a texture (slc_pack_open), and a pack
     * with textures streams only with a texture pool (create). */
    SLC_ASSERT(s->pools[kind].pool != NULL);
    if (partition.index >= s->pools[kind].partition_count) {
        refuse(s, SLC_E_INVALID);
        return slc__log(&s->logger, SLC_LOG_ERROR, SLC_E_INVALID,
                        "stream: request for chunk %u: partition %u does not exist (the %s pool has %u)", chunk,
                        partition.index, slc_pool_kind_name((slc_pool_kind)kind), s->pools[kind].partition_count);
    }
    uint32_t fresh = s->chunks[chunk].stamp != (uint32_t)s->frame;
    if (slc_stream_admit(s->capacity, s->object_count_frame, s->list_count, false, fresh) != SLC_STREAM_ADMITTED) {
        return refuse(s, SLC_E_CAPACITY);
    }
    st = add_chunk(s, chunk, priority, (uint8_t)partition.index, E_REQUESTED, s->capacity);
    SLC_ASSERT(st == SLC_OK); /* admitted above */
    s->cur.requests++;
    return SLC_OK;
}

/* The page of a chunk, if it is visible (resident or pinned). */
static int visible(const slc_stream *s, uint32_t chunk, slc_page_info *info)
{
    const slc_pool *pool = chunk_pool(s, chunk);
    if (pool == NULL) {
        memset(info, 0, sizeof *info);
        return 0;
    }
    if (slc_pool_lookup(pool, (slc_chunk_id){chunk}, info) != SLC_OK) {
        return 0;
    }
    return info->state == SLC_PAGE_RESIDENT || info->state == SLC_PAGE_PINNED;
}

static int lod_visible(const slc_stream *s, const slc_pack_lod *l)
{
    slc_page_info info;
    for (uint32_t i = 0; i < l->span_count; i++) {
        if (!visible(s, slc_pack_get_span(s->pack, l->first_span + i)->chunk, &info)) {
            return 0;
        }
    }
    return 1;
}

/* Step 1: each object request's best visible LOD, its pages touched. */
static void resolve_objects(slc_stream *s)
{
    for (uint32_t i = 0; i < s->object_count_frame; i++) {
        entry *e = &s->objects[i];
        const slc_pack_object *o = slc_pack_get_object(s->pack, (slc_object_id){e->id});
        e->extra = SLC_STREAM_LOD_NONE;
        for (uint32_t lod = e->flags; lod < o->lod_count; lod++) {
            const slc_pack_lod *l = slc_pack_get_lod(s->pack, o->first_lod + lod);
            if (!lod_visible(s, l)) {
                continue;
            }
            e->extra = (uint8_t)lod;
            slc_page_info info;
            for (uint32_t k = 0; k < l->span_count; k++) {
                uint32_t chunk = slc_pack_get_span(s->pack, l->first_span + k)->chunk;
                (void)visible(s, chunk, &info);
                slc_status st = slc_pool_touch(chunk_pool(s, chunk), info.page, e->priority);
                SLC_ASSERT(st == SLC_OK);
                (void)st;
            }
            break;
        }
        if (e->extra == SLC_STREAM_LOD_NONE) {
            s->cur.holes++;
        } else if (e->extra != e->flags) {
            s->cur.fallbacks++;
        }
    }
}

/* In-place heapsort of keys (ascending): deterministic, no recursion, no
 * extra memory. */
static void sift_down(uint64_t *k, size_t start, size_t end)
{
    size_t root = start;
    while (2u * root + 1u < end) {
        size_t child = 2u * root + 1u;
        if (child + 1u < end && k[child] < k[child + 1u]) {
            child++;
        }
        if (k[root] >= k[child]) {
            return;
        }
        uint64_t t = k[root];
        k[root] = k[child];
        k[child] = t;
        root = child;
    }
}

static void sort_keys(uint64_t *k, size_t n)
{
    if (n < 2u) {
        return;
    }
    for (size_t i = n / 2u; i-- > 0;) {
        sift_down(k, i, n);
    }
    for (size_t end = n - 1u; end > 0; end--) {
        uint64_t t = k[0];
        k[0] = k[end];
        k[end] = t;
        sift_down(k, 0, end);
    }
}

static void defer(slc_stream *s, const entry *e)
{
    s->cur.deferred++;
    if ((e->flags & E_REQUESTED) == 0 || s->carried_count >= s->capacity) {
        s->cur.dropped++;
        return;
    }
    entry *c = &s->carried[s->carried_count++];
    *c = *e;
    c->flags = E_CARRIED;
}

/* Step 4: loads in flight that this frame neither asked for nor carried. */
static void cancel_unwanted(slc_stream *s)
{
    uint64_t pub = atomic_load_explicit(&s->published, memory_order_relaxed);
    uint32_t stamp = (uint32_t)s->frame;
    for (uint64_t q = s->applied; q < pub; q++) {
        load_slot *slot = &s->slots[q % s->capacity];
        if (atomic_load_explicit(&slot->cancelled, memory_order_relaxed) != 0) {
            continue;
        }
        chunk_rec *r = &s->chunks[slot->chunk];
        if (r->stamp == stamp) {
            continue;
        }
        atomic_store_explicit(&slot->cancelled, 1u, memory_order_release);
        slc_page page = {slot->page, slot->generation};
        slc_status st = slc_pool_release(chunk_pool(s, slot->chunk), page);
        SLC_ASSERT(st == SLC_OK);
        (void)st;
        r->state = CH_IDLE;
        s->cur.loads_cancelled++;
    }
}

static int retry_due(const slc_stream *s, const chunk_rec *r)
{
    if (r->attempts >= SLC_STREAM_MAX_ATTEMPTS) {
        return 0;
    }
    uint32_t delay = 1u << (r->attempts - 1u);
    return (uint32_t)s->frame - r->aux >= delay;
}

/* Starts the load of miss e into slot pub: the pool gives it a page of
 * its partition (evicting by the profile's policy) and the store a place
 * to write it. Returns 0, with the miss deferred, when the pool has no
 * evictable page there (SLC_E_POOL_BUSY) or the staging belt is full;
 * *room becomes 0 in the last case. */
static int start_load(slc_stream *s, const entry *e, uint64_t pub, int *room)
{
    const slc_pack_chunk *c = slc_pack_get_chunk(s->pack, (slc_chunk_id){e->id});
    slc_pool_request pr = {{e->id}, {e->partition}, c->lod, e->priority};
    slc_page page;
    slc_pool *pool = chunk_pool(s, e->id);
    slc_status st = slc_pool_acquire(pool, &pr, &page);
    if (st != SLC_OK) {
        SLC_ASSERT(st == SLC_E_POOL_BUSY);
        defer(s, e);
        return 0;
    }
    void *dst = NULL;
    st = slc_pool_write_begin(pool, page, &dst);
    if (st != SLC_OK) {
        /* A staging belt with no room: only when it is smaller than the
         * upload cap needs (see slc_stream_get_upload_cap). */
        slc_status rs = slc_pool_release(pool, page);
        SLC_ASSERT(rs == SLC_OK);
        (void)rs;
        *room = 0;
        defer(s, e);
        return 0;
    }
    load_slot *slot = &s->slots[pub % s->capacity];
    atomic_store_explicit(&slot->state, SLOT_QUEUED, memory_order_relaxed);
    atomic_store_explicit(&slot->cancelled, 0u, memory_order_relaxed);
    slot->chunk = e->id;
    slot->page = page.index;
    slot->generation = page.generation;
    slot->status = 0;
    slot->due = s->frame + s->load_frames;
    slot->seq = pub;
    slot->dst.dst = dst;
    chunk_rec *r = &s->chunks[e->id];
    r->state = CH_LOADING;
    r->aux = (uint32_t)pub;
    s->cur.loads_started++;
    return 1;
}

/* Steps 2 and 3: the frame's chunks in priority order, each a hit, in
 * flight, skipped, loaded or deferred. Returns the loads published after
 * it (the new value of s->published). */
static uint64_t schedule(slc_stream *s)
{
    for (uint32_t i = 0; i < s->list_count; i++) {
        const entry *e = &s->list[i];
        s->keys[i] = ((uint64_t)(255u - e->priority) << 56) | ((uint64_t)e->id << 24) | i;
    }
    sort_keys(s->keys, s->list_count);

    uint64_t pub = atomic_load_explicit(&s->published, memory_order_relaxed);
    int room = 1;
    uint32_t tile_loads = 0; /* of this frame's loads, the texture tiles' (slc_stream_get_tile_cap) */
    const slc_pool *tiles = s->pools[SLC_POOL_TEXTURES].pool;
    for (uint32_t k = 0; k < s->list_count; k++) {
        const entry *e = &s->list[s->keys[k] & 0xFFFFFFu];
        chunk_rec *r = &s->chunks[e->id];
        s->cur.chunks++;
        slc_page_info info;
        slc_pool *pool = chunk_pool(s, e->id);
        if (slc_pool_lookup(pool, (slc_chunk_id){e->id}, &info) == SLC_OK) {
            if (info.state == SLC_PAGE_LOADING) {
                s->cur.in_flight++;
                continue;
            }
            s->cur.hits++;
            slc_status st = slc_pool_touch(pool, info.page, e->priority);
            SLC_ASSERT(st == SLC_OK);
            (void)st;
            continue;
        }
        if (r->state == CH_FAILED && !retry_due(s, r)) {
            s->cur.failed_skips++;
            continue;
        }
        s->cur.misses++;
        if (!room || pub - s->applied >= s->capacity || s->cur.loads_started >= s->upload_cap_pages) {
            room = 0;
            defer(s, e);
            continue;
        }
        const bool tile = tiles != NULL && pool == tiles;
        if (tile && tile_loads >= s->tile_cap_pages) {
            defer(s, e); /* the tiles' share is taken: geometry may still load */
            continue;
        }
        const int started = start_load(s, e, pub, &room);
        pub += (uint64_t)started;
        tile_loads += tile ? (uint32_t)started : 0u;
    }
    return pub;
}

/* Evictions of every pool so far. */
static uint64_t evictions(const slc_stream *s)
{
    uint64_t n = 0;
    for (uint32_t k = 0; k < SLC_POOL_KIND_COUNT; k++) {
        if (s->pools[k].pool != NULL) {
            slc_pool_stats ps;
            slc_pool_get_stats(s->pools[k].pool, &ps);
            n += ps.evictions;
        }
    }
    return n;
}

slc_status slc_stream_end_frame(slc_stream *s)
{
    SLC_ASSERT(s != NULL);
    if (s->phase != PHASE_REQUESTING) {
        return slc__log(&s->logger, SLC_LOG_ERROR, SLC_E_INVALID, "stream: end_frame without a begun frame");
    }
    uint64_t t0 = now(s);
    const uint64_t evicted_before = evictions(s);

    /* The chunks the previous frame deferred join this frame's. */
    for (uint32_t i = 0; i < s->carried_count; i++) {
        const entry *c = &s->carried[i];
        slc_status st = add_chunk(s, c->id, c->priority, c->partition, E_CARRIED, 2u * s->capacity);
        SLC_ASSERT(st == SLC_OK); /* the list holds capacity requested and capacity carried */
        (void)st;
    }
    s->carried_count = 0;

    resolve_objects(s);
    cancel_unwanted(s);
    uint64_t first_new = atomic_load_explicit(&s->published, memory_order_relaxed);
    uint64_t pub = schedule(s);

    s->cur.evictions = (uint32_t)(evictions(s) - evicted_before);

    /* Publish; run inline without workers. */
    atomic_store_explicit(&s->published, pub, memory_order_release);
    if (pub > first_new) {
        if (s->workers == 0) {
            while (slc_stream_work(s, 0)) {
            }
        } else {
            s->exec.ops->notify(s->exec.self, (uint32_t)(pub - first_new));
        }
    }
    s->phase = PHASE_SCHEDULED;

    /* Submit the frame to the store now, before the application records and
     * submits the work that reads its pages: the store's copies for those
     * pages go ahead of that work, and the store counts the work submitted
     * after this submission as this frame's, so the frame retires as soon
     * as it is done. A store that refuses (it lags behind its own frames in
     * flight) leaves the frame open; the next slc_stream_begin_frame
     * submits it, or returns why not. */
    for (uint32_t k = 0; k < SLC_POOL_KIND_COUNT; k++) {
        if ((s->pool_frame_open & (1u << k)) != 0 && slc_pool_end_frame(s->pools[k].pool) == SLC_OK) {
            s->pool_frame_open &= ~(1u << k);
        }
    }
    slc__stream_roll_up_telemetry(s, t0);
    return SLC_OK;
}

uint32_t slc_stream_result_count(const slc_stream *s)
{
    SLC_ASSERT(s != NULL);
    return s->phase == PHASE_SCHEDULED ? s->object_count_frame : 0;
}

slc_status slc_stream_resident(const slc_stream *s, uint32_t index, slc_stream_result *out, slc_stream_span *spans,
                               uint32_t cap)
{
    SLC_ASSERT(s != NULL && out != NULL);
    memset(out, 0, sizeof *out);
    if (s->phase != PHASE_SCHEDULED || index >= s->object_count_frame) {
        return slc__log(&s->logger, SLC_LOG_ERROR, SLC_E_INVALID,
                        "stream: no result %u (the ended frame has %u object requests)", index,
                        s->phase == PHASE_SCHEDULED ? s->object_count_frame : 0u);
    }
    const entry *e = &s->objects[index];
    out->object.index = e->id;
    out->requested_lod = e->flags;
    out->lod = e->extra;
    out->priority = e->priority;
    if (e->extra == SLC_STREAM_LOD_NONE) {
        return SLC_OK;
    }
    const slc_pack_object *o = slc_pack_get_object(s->pack, (slc_object_id){e->id});
    const slc_pack_lod *l = slc_pack_get_lod(s->pack, o->first_lod + e->extra);
    out->span_count = l->span_count;
    if (cap < l->span_count) {
        return SLC_E_CAPACITY;
    }
    SLC_ASSERT(spans != NULL || l->span_count == 0);
    for (uint32_t i = 0; i < l->span_count; i++) {
        const slc_pack_span *sp = slc_pack_get_span(s->pack, l->first_span + i);
        slc_page_info info;
        int vis = visible(s, sp->chunk, &info);
        SLC_ASSERT(vis); /* resolved and touched: nothing evicts it before the next begin_frame */
        (void)vis;
        spans[i].chunk.index = sp->chunk;
        spans[i].first_cluster = sp->first_cluster;
        spans[i].cluster_count = sp->cluster_count;
        spans[i].page = info.page;
        spans[i].location = info.location;
    }
    return SLC_OK;
}

slc_status slc_stream_get_chunk_page(const slc_stream *s, slc_chunk_id id, slc_page_info *out)
{
    SLC_ASSERT(s != NULL && out != NULL);
    const uint32_t chunk = id.index;
    if (chunk >= s->chunk_count) {
        return slc__log(&s->logger, SLC_LOG_ERROR, SLC_E_INVALID, "stream: chunk %u: the pack has %u chunks", chunk,
                        s->chunk_count);
    }
    if (!visible(s, chunk, out)) {
        memset(out, 0, sizeof *out);
        return SLC_E_NOT_FOUND;
    }
    return SLC_OK;
}

void slc_stream_get_chunk(const slc_stream *s, slc_chunk_id id, slc_stream_chunk_info *out)
{
    const uint32_t chunk = id.index;
    SLC_ASSERT(s != NULL && out != NULL && chunk < s->chunk_count);
    memset(out, 0, sizeof *out);
    const chunk_rec *r = &s->chunks[chunk];
    slc_page_info info;
    out->attempts = r->attempts;
    out->status = r->state == CH_FAILED ? (slc_status)r->status : SLC_OK;
    if (r->state == CH_LOADING) {
        out->state = SLC_STREAM_CHUNK_LOADING;
    } else if (visible(s, chunk, &info)) {
        out->state = SLC_STREAM_CHUNK_RESIDENT;
    } else if (r->state == CH_FAILED) {
        out->state = SLC_STREAM_CHUNK_FAILED;
        if (r->attempts >= SLC_STREAM_MAX_ATTEMPTS) {
            out->retry_frame = UINT64_MAX;
        } else {
            /* aux holds the low 32 bits of the failure's frame */
            uint64_t failed = (s->frame & ~(uint64_t)0xFFFFFFFFu) | r->aux;
            if (failed > s->frame) {
                failed -= (uint64_t)1 << 32;
            }
            out->retry_frame = failed + (1u << (r->attempts - 1u));
        }
    } else {
        out->state = SLC_STREAM_CHUNK_ABSENT;
    }
}

uint32_t slc_stream_retry_failed(slc_stream *s)
{
    SLC_ASSERT(s != NULL);
    uint32_t n = 0;
    for (uint32_t i = 0; i < s->chunk_count; i++) {
        chunk_rec *r = &s->chunks[i];
        if (r->state == CH_FAILED && r->attempts >= SLC_STREAM_MAX_ATTEMPTS) {
            r->state = CH_IDLE;
            r->attempts = 0;
            r->status = 0;
            n++;
        }
    }
    return n;
}

const slc_pool *slc_stream_pool(const slc_stream *s)
{
    SLC_ASSERT(s != NULL);
    return s->pools[SLC_POOL_GEOMETRY].pool;
}

const slc_pool *slc_stream_pool_of_kind(const slc_stream *s, slc_pool_kind kind)
{
    SLC_ASSERT(s != NULL && (uint32_t)kind < (uint32_t)SLC_POOL_KIND_COUNT);
    return s->pools[kind].pool;
}

/* --- create / destroy ------------------------------------------------------------- */

static slc_status take(slc_stream *s, slc_arena *a, size_t size, void **out, const char *what)
{
    slc_status st = slc_arena_alloc(a, size, ALIGN, out);
    if (st != SLC_OK) {
        slc_arena_stats as;
        slc_arena_get_stats(a, &as);
        return slc__log(&s->logger, SLC_LOG_ERROR, st, "stream: %s needs %zu bytes; its arena has %zu of %zu left",
                        what, size, as.capacity - as.used, as.capacity);
    }
    return SLC_OK;
}

static void give_back(slc_stream *s)
{
    slc_arena_reset(s->decode, s->decode_mark);
    slc_arena_reset(s->queues, s->queues_mark);
    slc_arena_reset(s->meta, s->meta_mark); /* last: the stream's own record lives there */
}

/* The stamp value that marks a chunk "to pin": frames start at 1, and no
 * frame began yet. */
#define PIN_MARK 1u

/* Loads and pins the chunks marked PIN_MARK in pool kind's partition part
 * (named name), in chunk-id order, on the caller's thread; count of them
 * are marked, and what names them in a refusal. Clears every mark. */
static slc_status pin_marked(slc_stream *s, uint32_t kind, uint32_t count, const char *what, slc_partition part)
{
    slc_pool *pool = s->pools[kind].pool;
    slc_pool_partition_stats ps;
    slc_pool_get_partition_stats(pool, part, &ps);
    const char *name = ps.name;
    slc_status st = SLC_OK;
    if (count > ps.page_count) {
        st = slc__log(&s->logger, SLC_LOG_ERROR, SLC_E_POOL_BUSY, "stream: pinning %s needs %u pages; %s '%s' has %u",
                      what, count, kind == SLC_POOL_GEOMETRY ? "partition" : "the texture pool's partition", name,
                      ps.page_count);
    }
    for (uint32_t c = 0; c < s->chunk_count && st == SLC_OK; c++) {
        chunk_rec *r = &s->chunks[c];
        if (r->stamp != PIN_MARK) {
            continue;
        }
        const slc_pack_chunk *pc = slc_pack_get_chunk(s->pack, (slc_chunk_id){c});
        slc_pool_request pr = {{c}, part, pc->lod, 255u};
        slc_page page;
        void *dst = NULL;
        st = slc_pool_acquire(pool, &pr, &page);
        if (st != SLC_OK) {
            st = slc__log(&s->logger, SLC_LOG_ERROR, st, "stream: no page for pinned chunk %u in partition '%s'", c,
                          name);
            break;
        }
        st = slc_pool_write_begin(pool, page, &dst);
        if (st == SLC_OK) {
            st = load_chunk(s, c, dst, s->scratch);
        }
        if (st == SLC_OK) {
            st = slc_pool_write_end(pool, page, pc->decoded_size);
        }
        if (st == SLC_OK) {
            st = slc_pool_pin(pool, page);
        }
        if (st != SLC_OK) {
            (void)slc_pool_release(pool, page);
            st = slc__log(&s->logger, SLC_LOG_ERROR, st, "stream: pinned chunk %u%s could not be loaded: %s", c,
                          kind == SLC_POOL_TEXTURES ? " (a texture's mip tail)" : "", slc_status_name(st));
            break;
        }
        s->pinned_chunks++;
    }
    for (uint32_t c = 0; c < s->chunk_count; c++) {
        s->chunks[c].stamp = 0;
    }
    return st;
}

/* The partition of pool the stream pins in: want, or with want NULL its
 * "default" partition ([texture_partitions] leave the texture pool's a
 * page at least), else (every page named) its first. Fails iff want is
 * not a partition of pool (SLC_E_NOT_FOUND). */
static slc_status pin_partition(const slc_pool *pool, const char *want, slc_partition *out)
{
    slc_status st = slc_pool_scan_partition(pool, want != NULL ? want : SLC_PROFILE_PARTITION_DEFAULT_NAME, out);
    if (st != SLC_OK && want == NULL) {
        out->index = 0;
        st = SLC_OK;
    }
    return st;
}

/* Loads and pins the chunks slc_stream_pin_iter walks for the profile's
 * pin_coarsest. */
static slc_status pin_coarsest(slc_stream *s, uint32_t levels, slc_partition part)
{
    uint32_t count = 0;
    slc_stream_pin_iter it;
    slc_stream_pin_iter_init(&it, s->pack, levels);
    slc_chunk_id chunk = {0};
    while (slc_stream_pin_iter_next(&it, &chunk)) {
        chunk_rec *r = &s->chunks[chunk.index];
        if (r->stamp != PIN_MARK) {
            r->stamp = PIN_MARK;
            count++;
        }
    }
    char what[64];
    slc__fmt(what, sizeof what, "the %u coarsest level(s) of every object", levels);
    return pin_marked(s, SLC_POOL_GEOMETRY, count, what, part);
}

/* Loads and pins every texture's mip tail (slc_pack_texture_tail) in the
 * texture pool, so that a texture is never absent; with tiles
 * ([textures] pin_tiles), every tile of every level as well. */
static slc_status pin_tails(slc_stream *s, bool tiles)
{
    const uint32_t n = slc_pack_texture_count(s->pack);
    uint32_t count = 0;
    for (uint32_t i = 0; i < n; i++) {
        slc_chunk_id tail;
        slc_status st = slc_pack_texture_tail(s->pack, i, &tail);
        if (st == SLC_E_NOT_FOUND) {
            continue;
        }
        if (st != SLC_OK) {
            return slc__log(&s->logger, SLC_LOG_ERROR, st, "stream: texture %u's record could not be read: %s", i,
                            slc_status_name(st));
        }
        if (s->chunks[tail.index].stamp != PIN_MARK) {
            s->chunks[tail.index].stamp = PIN_MARK;
            count++;
        }
    }
    /* [textures] pin_tiles: every tile too. Every texture chunk belongs
     * to a texture (slc_pack_open), so the chunks flagged texture are the
     * tiles and the tails. */
    if (tiles) {
        for (uint32_t c = 0; c < s->chunk_count; c++) {
            if ((slc_pack_get_chunk(s->pack, (slc_chunk_id){c})->flags & SLC_PACK_CHUNK_TEXTURE) != 0 &&
                s->chunks[c].stamp != PIN_MARK) {
                s->chunks[c].stamp = PIN_MARK;
                count++;
            }
        }
    }
    char what[64];
    slc__fmt(what, sizeof what, tiles ? "every tile and mip tail of %u textures" : "the mip tails of %u textures", n);
    slc_partition part = {0};
    (void)pin_partition(s->pools[SLC_POOL_TEXTURES].pool, NULL, &part); /* "default" or the first: never fails */
    return pin_marked(s, SLC_POOL_TEXTURES, count, what, part);
}

static slc_status invalid(const slc_logger *log, const char *fmt, uint32_t a, uint32_t b)
{
    return slc__log(log, SLC_LOG_ERROR, SLC_E_INVALID, fmt, a, b);
}

/* What create decides before it takes any memory. */
typedef struct create_plan {
    uint32_t load_frames;
    uint32_t telemetry_frames;
    uint32_t upload_cap_pages;
    uint32_t tile_cap_pages;
} create_plan;

/* A pack whose textures the device cannot sample is refused here, at
 * create, naming the formats on both sides, rather than drawn wrong later.
 * store is the one the tiles go to: the texture store, or the geometry
 * store when the profile declares no texture pool (it speaks for the same
 * device). */
static slc_status check_texel_formats(const slc_pack *pack, const slc_page_store *store, const slc_logger *log)
{
    const uint32_t need = slc_pack_texel_formats(pack);
    const uint32_t missing = need & ~store->sampled_formats;
    if (missing == 0) {
        return SLC_OK;
    }
    char lacks[64], samples[96];
    slc_pack_texel_format_list(missing, lacks, sizeof lacks);
    slc_pack_texel_format_list(store->sampled_formats, samples, sizeof samples);
    return slc__log(log, SLC_LOG_ERROR, SLC_E_UNSUPPORTED,
                    "stream: the pack's textures are %s, which the %s device%s%s cannot sample (it samples %s)", lacks,
                    store->backend, store->device != NULL ? " " : "", store->device != NULL ? store->device : "",
                    samples);
}

/* Step 1 of create: the desc is complete and consistent (its messages are
 * slc_stream_create's contract). Takes nothing. */
static slc_status validate(const slc_stream_desc *d, create_plan *plan)
{
    const slc_logger *log = d->log;
    if (d->profile == NULL || d->memory == NULL || d->pack == NULL || d->stores[SLC_POOL_GEOMETRY] == NULL) {
        return slc__log(log, SLC_LOG_ERROR, SLC_E_INVALID, "stream: the desc lacks its %s",
                        d->profile == NULL  ? "profile"
                        : d->memory == NULL ? "memory"
                        : d->pack == NULL   ? "pack"
                                            : "page store");
    }
    const slc_profile *p = d->profile;
    /* A store only for a kind the profile declares (a declared kind may go
     * without: a stream of packs without textures needs no texture store). */
    for (uint32_t k = 1; k < SLC_POOL_KIND_COUNT; k++) {
        if (d->stores[k] != NULL && !slc_pool_kind_declared(p, (slc_pool_kind)k)) {
            const char *kind = slc_pool_kind_name((slc_pool_kind)k);
            return slc__log(log, SLC_LOG_ERROR, SLC_E_INVALID,
                            "stream: the desc has a %s store but profile '%s' declares no %s pool", kind, p->name,
                            kind);
        }
    }
    if (p->workers > 0 && (d->executor.ops == NULL || d->executor.ops->notify == NULL ||
                           d->executor.ops->completed == NULL || d->executor.ops->wait == NULL)) {
        return slc__log(
            log, SLC_LOG_ERROR, SLC_E_INVALID,
            "stream: the profile asks for %u workers but the desc has no executor (or one lacking an operation)",
            p->workers);
    }
    /* load_frames is checked by slc_stream_get_upload_cap below, the one
     * place the stream and budget fit take it from. */
    plan->load_frames = d->load_frames != 0 ? d->load_frames : SLC_STREAM_DEFAULT_LOAD_FRAMES;
    plan->telemetry_frames = d->telemetry_frames != 0 ? d->telemetry_frames : SLC_STREAM_DEFAULT_TELEMETRY_FRAMES;
    if (plan->telemetry_frames > SLC_STREAM_TELEMETRY_FRAMES_MAX) {
        return invalid(log, "stream: telemetry_frames %u is above %u", plan->telemetry_frames,
                       SLC_STREAM_TELEMETRY_FRAMES_MAX);
    }
    /* With a staging belt (pages not mapped) the cap is also what the belt
     * holds for the frames that may have uploads outstanding, so
     * write_begin never finds it full. */
    slc_page_location loc;
    const slc_page_store *geometry = d->stores[SLC_POOL_GEOMETRY];
    geometry->ops->locate(geometry->self, 0, &loc);
    slc_status st = slc_stream_get_upload_cap(p, plan->load_frames, loc.host == NULL, log, &plan->upload_cap_pages);
    if (st == SLC_OK) {
        st = slc_stream_get_tile_cap(p, plan->load_frames, plan->upload_cap_pages, log, &plan->tile_cap_pages);
    }
    if (st != SLC_OK) {
        return st;
    }
    /* A load writes at most a page of the store it goes to: every chunk of
     * the pack must fit one. */
    const slc_pack_header *h = slc_pack_get_header(d->pack);
    const uint32_t page_size = geometry->page_size;
    if (h->chunk_count > p->max_chunks || h->page_size > page_size) {
        return slc__log(
            log, SLC_LOG_ERROR, SLC_E_INVALID,
            "stream: the pack (%u chunks of pages of %u bytes) was not opened with this profile (%u chunks, "
            "%u-byte pages)",
            h->chunk_count, h->page_size, p->max_chunks, page_size);
    }
    const slc_page_store *textures = d->stores[SLC_POOL_TEXTURES];
    if (textures != NULL && h->page_size > textures->page_size) {
        return slc__log(log, SLC_LOG_ERROR, SLC_E_INVALID,
                        "stream: the pack's pages of %u bytes do not fit the texture store's pages of %u bytes",
                        h->page_size, textures->page_size);
    }
    st = check_texel_formats(d->pack, textures != NULL ? textures : geometry, log);
    if (st != SLC_OK) {
        return st;
    }
    /* Every texture's mip tail is pinned in the texture pool: a pack with
     * textures needs one. */
    const uint32_t texture_count = slc_pack_texture_count(d->pack);
    if (texture_count > 0 && textures == NULL) {
        return slc_pool_kind_declared(p, SLC_POOL_TEXTURES)
                   ? slc__log(log, SLC_LOG_ERROR, SLC_E_UNSUPPORTED,
                              "stream: the pack has %u textures, but the desc has no texture store "
                              "(stores[SLC_POOL_TEXTURES]) to pin their mip tails in",
                              texture_count)
                   : slc__log(log, SLC_LOG_ERROR, SLC_E_UNSUPPORTED,
                              "stream: the pack has %u textures, but profile '%s' declares no texture pool "
                              "([textures] page_count) to pin their mip tails in",
                              texture_count, p->name);
    }
    return SLC_OK;
}

/* Step 2 of create: the stream's record at the head of cpu/meta, filled
 * from the desc and the plan. */
static slc_status place_record(const slc_stream_desc *d, const create_plan *plan, slc_stream **out)
{
    const slc_logger *log = d->log;
    slc_arena *meta = NULL, *queues = NULL, *decode = NULL;
    slc_status st = slc_memory_scan_arena(d->memory, "cpu/meta", &meta);
    if (st == SLC_OK) {
        st = slc_memory_scan_arena(d->memory, "cpu/queues", &queues);
    }
    if (st == SLC_OK) {
        st = slc_memory_scan_arena(d->memory, "cpu/decode", &decode);
    }
    if (st != SLC_OK) {
        return slc__log(log, SLC_LOG_ERROR, st,
                        "stream: the memory lacks an arena for cpu/meta, cpu/queues or cpu/decode");
    }
    slc_arena_mark mm = slc_arena_get_mark(meta), qm = slc_arena_get_mark(queues), dm = slc_arena_get_mark(decode);
    void *mem = NULL;
    if (slc_arena_alloc(meta, SLC_STREAM_HEADER_SIZE, ALIGN, &mem) != SLC_OK) {
        slc_arena_stats as;
        slc_arena_get_stats(meta, &as);
        return slc__log(log, SLC_LOG_ERROR, SLC_E_BUDGET_REFUSED,
                        "stream: its record needs %u bytes of cpu/meta; %zu of %zu are left", SLC_STREAM_HEADER_SIZE,
                        as.capacity - as.used, as.capacity);
    }
    memset(mem, 0, SLC_STREAM_HEADER_SIZE);
    const slc_profile *p = d->profile;
    const slc_pack_header *h = slc_pack_get_header(d->pack);
    slc_stream *s = mem;
    s->pack = d->pack;
    s->budgets = slc_memory_budgets(d->memory);
    s->exec = d->executor;
    s->now_ns = d->now_ns;
    if (log != NULL) {
        s->logger = *log;
    }
    s->meta = meta;
    s->queues = queues;
    s->decode = decode;
    s->meta_mark = mm;
    s->queues_mark = qm;
    s->decode_mark = dm;
    s->chunk_count = h->chunk_count;
    s->object_count = h->object_count;
    s->capacity = p->queue_capacity;
    s->workers = p->workers;
    s->load_frames = plan->load_frames;
    s->ring_capacity = plan->telemetry_frames;
    s->upload_cap_pages = plan->upload_cap_pages;
    s->tile_cap_pages = plan->tile_cap_pages;
    s->scratch_size = slc_pack_scratch_size(d->pack);
    s->scratch_stride = align_up(s->scratch_size);
    *out = s;
    return SLC_OK;
}

/* Step 3 of create: the layout's regions taken from their arenas and the
 * pool built in its own. */
static slc_status carve(slc_stream *s, const slc_stream_desc *d)
{
    const slc_profile *p = d->profile;
    slc_pool_spec pools[SLC_POOL_KIND_COUNT];
    pool_specs(p, pools);
    region r[R_COUNT];
    if (!layout(p, pools, s->scratch_size, s->ring_capacity, r)) {
        return slc__log(&s->logger, SLC_LOG_ERROR, SLC_E_INVALID,
                        "stream: the records of profile '%s' overflow this machine's sizes", p->name);
    }
    slc_arena *const arenas[AR_COUNT] = {s->meta, s->queues, s->decode};
    void *mem[R_COUNT] = {0};
    for (uint32_t i = 0; i < R_COUNT; i++) {
        if (r[i].size == 0) {
            continue;
        }
        slc_status st = take(s, arenas[r[i].arena], r[i].size, &mem[i], r[i].purpose);
        if (st != SLC_OK) {
            return st;
        }
    }
    s->chunks = mem[R_CHUNKS];
    memset(s->chunks, 0, r[R_CHUNKS].size);
    s->objects = mem[R_OBJECTS];
    s->list = mem[R_LIST];
    s->keys = mem[R_KEYS];
    s->carried = mem[R_CARRIED];
    s->slots = mem[R_SLOTS];
    memset(s->slots, 0, r[R_SLOTS].size);
    s->ring = mem[R_RING];
    memset(s->ring, 0, r[R_RING].size);
    s->scratch = mem[R_SCRATCH];
    atomic_init(&s->published, 0);
    atomic_init(&s->claimed, 0);
    atomic_init(&s->worker_loads, 0);
    atomic_init(&s->caller_loads, 0);
    atomic_init(&s->skipped_loads, 0);

    /* Each pool from its spec over its store; slc_pool_init refuses a store
     * whose page count is not the spec's. */
    for (uint32_t k = 0; k < SLC_POOL_KIND_COUNT; k++) {
        if (d->stores[k] == NULL) {
            continue; /* no pool (its records, when declared, are taken all the same): its chunks are refused */
        }
        stream_pool *sp = &s->pools[k];
        sp->page_size = d->stores[k]->page_size; /* what a load may write into a page */
        sp->page_busy = mem[R_BUSY + k];
        for (uint32_t i = 0; i < pools[k].pool.page_count; i++) {
            atomic_init(&sp->page_busy[i], 0);
        }
        slc_status st = slc_pool_init(mem[R_POOL + k], r[R_POOL + k].size, &pools[k].pool, d->stores[k], d->log,
                                      &sp->pool);
        if (st != SLC_OK) {
            return st;
        }
        slc_pool_stats ps;
        slc_pool_get_stats(sp->pool, &ps);
        sp->partition_count = ps.partition_count;
    }
    return SLC_OK;
}

/* Step 4 of create: the pin partition found and the coarsest levels pinned
 * in a frame of their own. */
static slc_status pin(slc_stream *s, const slc_stream_desc *d)
{
    const slc_profile *p = d->profile;
    const int tails = s->pools[SLC_POOL_TEXTURES].pool != NULL && slc_pack_texture_count(s->pack) > 0;
    if (p->pin_coarsest == 0 && !tails) {
        return SLC_OK;
    }
    slc_partition part = {0};
    slc_status st = pin_partition(s->pools[SLC_POOL_GEOMETRY].pool, d->pin_partition, &part);
    if (st != SLC_OK) {
        return slc__log(d->log, SLC_LOG_ERROR, SLC_E_INVALID,
                        "stream: pin_partition '%s' is not a partition of the pool", d->pin_partition);
    }
    /* The pinned chunks are written in a frame of their own (1) in every
     * pool, which the first slc_stream_begin_frame submits: on a staging
     * belt their copies then run before any frame's work reads them. The
     * application's frames start at 2. */
    for (uint32_t k = 0; k < SLC_POOL_KIND_COUNT; k++) {
        if (s->pools[k].pool != NULL) {
            uint64_t f = 0;
            st = slc_pool_begin_frame(s->pools[k].pool, &f);
            SLC_ASSERT(st == SLC_OK && f == 1u); /* a new pool, nothing in flight */
            s->pool_frame_open |= 1u << k;
        }
    }
    s->frame = 1;
    s->prepared = 1;
    st = p->pin_coarsest > 0 ? pin_coarsest(s, p->pin_coarsest, part) : SLC_OK;
    return st == SLC_OK && tails ? pin_tails(s, p->texture_pin_tiles != 0) : st;
}

slc_status slc_stream_create(const slc_stream_desc *d, slc_stream **out)
{
    SLC_ASSERT(d != NULL && out != NULL);
    *out = NULL;
    create_plan plan;
    slc_status st = validate(d, &plan);
    if (st != SLC_OK) {
        return st;
    }
    slc_stream *s = NULL;
    if ((st = place_record(d, &plan, &s)) != SLC_OK) {
        return st;
    }
    if ((st = carve(s, d)) != SLC_OK || (st = pin(s, d)) != SLC_OK) {
        give_back(s);
        return st;
    }
    *out = s;
    return SLC_OK;
}

void slc_stream_destroy(slc_stream *s)
{
    if (s == NULL) {
        return;
    }
    /* Cancel everything not yet run; wait for what a thread is running. */
    uint64_t pub = atomic_load_explicit(&s->published, memory_order_relaxed);
    for (uint64_t q = s->applied; q < pub; q++) {
        atomic_store_explicit(&s->slots[q % s->capacity].cancelled, 1u, memory_order_release);
    }
    for (uint64_t q = s->applied; q < pub; q++) {
        const load_slot *slot = &s->slots[q % s->capacity];
        while (!slot_finished(slot)) {
            if (!slc_stream_work(s, s->workers)) {
                /* claimed by a worker that has not finished yet: it is
                 * running (it never waits on the caller), so spin */
            }
        }
    }
    give_back(s);
}
