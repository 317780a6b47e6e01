/* SPDX-License-Identifier: MIT */
/* The streaming scheduler on the host backend: a fly-through of a pack
 * several times larger than the pool with every visible page checked
 * against the pack; budgets never exceeded; determinism across worker
 * counts and I/O delays (the eviction log's hash is a constant, the same on
 * every architecture); cancellation, deferral, faults and retries, pinning
 * and fallback; every error path. */
#define _POSIX_C_SOURCE 200809L /* nanosleep in the delaying reader */
#include <inttypes.h>

#include "stream_fixture.h"
#ifdef SLUICE_STREAM_NOHEAP
#include "noheap_wrap.h"
#endif

/* --- fixture ------------------------------------------------------------------- */

typedef struct params {
    uint32_t pages;
    uint32_t workers;
    uint32_t queue;
    uint32_t upload_kib;
    uint32_t pin;
    uint32_t load_frames;
    uint32_t delay_us;
    const char *eviction;
    const char *partitions;    /* "[partitions]" body, or NULL */
    const char *queues_budget; /* "1 MiB" unless set */
} params;

typedef struct fixture {
    params prm;
    sp_pack pack;
    sp_io io;
    slc_profile profile;
    slc_platform_block block;
    slc_memory *mem;
    unsigned char *store_mem;
    slc_arena *store_arena;
    slc_page_store store;
    slc_pack *pk;
    slc_platform_workers workers;
    slc_stream *s;
    capture_log log;
    slc_logger logger;
    capture_log pack_log;
    slc_logger pack_logger;
} fixture;

static void profile_text(char *buf, size_t cap, const params *p)
{
    snprintf(buf, cap,
             "[profile]\nname = stream-test\n"
             "[budgets]\ncpu = 8 MiB\ncpu/meta = 2 MiB\ncpu/decode = 1 MiB\ncpu/queues = %s\ncpu/driver = 1 MiB\n"
             "gpu = 8 MiB\ngpu/pool = 4 MiB\ngpu/staging = 1 MiB\n"
             "[pool]\npage_size = 4 KiB\npage_count = %u\neviction = %s\n"
             "[stream]\nframes_in_flight = 2\nworkers = %u\nqueue_capacity = %u\nstaging_size = 0 B\n"
             "upload_per_frame = %u KiB\npin_coarsest = %u\n"
             "[tables]\nmax_objects = 1024\nmax_chunks = 4096\nmax_lods = 4\nmax_string_bytes = 4 KiB\n%s%s",
             p->queues_budget != NULL ? p->queues_budget : "1 MiB", p->pages, p->eviction != NULL ? p->eviction : "lru",
             p->workers, p->queue, p->upload_kib, p->pin, p->partitions != NULL ? "[partitions]\n" : "",
             p->partitions != NULL ? p->partitions : "");
}

/* Everything up to the stream; fx_create makes the stream. */
static void fx_open(fixture *f, const params *p, const sp_params *pp)
{
    memset(f, 0, sizeof *f);
    f->prm = *p;
    sp_build(&f->pack, pp);
    sp_io_init(&f->io, &f->pack);
    f->io.max_delay_us = p->delay_us;
    char text[2048];
    profile_text(text, sizeof text, p);
    sfx_profile_parse(text, "stream-test.profile", &f->profile);
    sff_memory_map(&f->profile, &f->block, &f->mem);
    /* The host store's pages, charged to gpu/pool. */
    (void)sff_host_store_init(f->mem, p->pages, 4096, &f->store_mem, &f->store_arena, &f->store);
    f->pack_logger = capture_logger(&f->pack_log);
    sfx_pack_open(f->mem, &f->io.io, &f->profile, &f->pack_logger, &f->pk);
    f->pack_logger = capture_logger(&f->pack_log);
    f->logger = capture_logger(&f->log);
}

static slc_stream_desc fx_desc(fixture *f)
{
    slc_stream_desc d;
    memset(&d, 0, sizeof d);
    d.profile = &f->profile;
    d.memory = f->mem;
    d.pack = f->pk;
    d.stores[SLC_POOL_GEOMETRY] = &f->store;
    d.now_ns = sfx_clock_ns;
    d.load_frames = f->prm.load_frames;
    d.log = &f->logger;
    return d;
}

static void fx_create(fixture *f)
{
    slc_stream_desc d = fx_desc(f);
    sfx_stream_start(&d, f->prm.workers, &f->workers, &f->log, &f->s);
}

static void fx_close(fixture *f)
{
    if (f->prm.workers > 0 && f->s != NULL) {
        slc_platform_workers_stop(&f->workers);
    }
    slc_stream_destroy(f->s);
    slc_pack_close(f->pk);
    slc_memory_deinit(f->mem);
    slc_platform_block_unmap(&f->block);
    free(f->store_mem);
    sp_free(&f->pack);
}

/* A span's page, read through its host address, holds its chunk's decoded bytes. */
static void span_holds(void *user, const slc_stream_span *span, uint64_t frame)
{
    const fixture *f = user;
    (void)frame;
    sp_assert_page_holds(&f->pack, span->location.host, span->chunk.index);
}

/* Checks every result of the ended frame (sfx_check_results, each span's
 * page read through its host address); returns the number of holes. */
static uint32_t check_results(fixture *f)
{
    return sfx_check_results(f->s, f->pk, span_holds, f);
}

static void run_trace(fixture *f, uint32_t frames, sfx_trace_result *out)
{
    memset(out, 0, sizeof *out);
    const slc_pack_header *h = slc_pack_get_header(f->pk);
    uint64_t first = f->prm.pin > 0 ? 2 : 1; /* the pins were written in frame 1 */
    for (uint32_t t = 1; t <= frames; t++) {
        uint64_t frame = 0;
        assert_int_equal(slc_stream_begin_frame(f->s, &frame), SLC_OK);
        assert_int_equal(frame, first + t - 1u);
        slc_stream_object_request req[64];
        uint32_t n = sfx_camera_requests(t, h->object_count, req, 64);
        for (uint32_t i = 0; i < n; i++) {
            assert_int_equal(slc_stream_request(f->s, &req[i]), SLC_OK);
        }
        assert_int_equal(slc_stream_end_frame(f->s), SLC_OK);
        uint32_t holes = check_results(f);
        if (f->prm.pin > 0) {
            assert_int_equal(holes, 0); /* pinned coarsest levels: never a hole */
        }
        out->frames_hash = sfx_hash_results(f->s, out->frames_hash);
        slc_stream_frame_stats fs;
        assert_int_equal(slc_stream_walk_telemetry(f->s, &fs, 1), 1);
        assert_int_equal(fs.frame, first + t - 1u);
        /* every budget's use as the frame ended, within its limit */
        slc_budgets *b = slc_memory_budgets(f->mem);
        assert_int_equal(fs.budget_count, f->profile.budget_count);
        for (uint32_t i = 0; i < fs.budget_count; i++) {
            slc_budget_stats bs;
            slc_budgets_get(b, (slc_budget_id){(uint16_t)i}, &bs);
            assert_int_equal(fs.budgets[i], bs.current);
            assert_true(fs.budgets[i] <= bs.limit);
        }
        assert_true(fs.caller_ns > 0);
        assert_true(fs.wait_ns <= fs.caller_ns);
        out->frames_hash = sfx_hash_frame_stats(out->frames_hash, &fs);
        assert_true(slc_stream_check(f->s));
        sfx_assert_budgets_hold(f->mem);
    }
    slc_pool_stats ps;
    slc_pool_get_stats(slc_stream_pool(f->s), &ps);
    out->log_hash = ps.log_hash;
    out->log_count = ps.log_count;
    slc_stream_get_stats(f->s, &out->stats);
}

/* --- the fly-through ------------------------------------------------------------ */

/* FLY_FRAMES frames over fly_pack; FLY_LOG_HASH and FLY_FRAMES_HASH
 * (stream_fixture.h) are its eviction log and frames, a constant on every
 * architecture and worker count (printed when they differ, to update them
 * on purpose). */
static const params fly = {96, 0, 256, 16, 1, 1, 0, "lru", NULL, NULL};

#ifndef SLUICE_STREAM_NOHEAP
static void expect_fly_hashes(const sfx_trace_result *r, const char *what)
{
    printf("%s: %" PRIu64 " requests, %" PRIu64 " hits, %" PRIu64 " misses, %" PRIu64 " loads, %" PRIu64
           " evictions, %" PRIu64 " deferred, %" PRIu64 " dropped, %" PRIu64 " fallbacks, wait %.2f ms\n",
           what, r->stats.requests, r->stats.hits, r->stats.misses, r->stats.loads_completed, r->stats.evictions,
           r->stats.deferred, r->stats.dropped, r->stats.fallbacks, (double)r->stats.wait_ns / 1e6);
    printf("%s: log %" PRIu64 " entries, hash 0x%016" PRIx64 "; frames hash 0x%016" PRIx64 "\n", what, r->log_count,
           r->log_hash, r->frames_hash);
    assert_int_equal(r->log_hash, FLY_LOG_HASH);
    assert_int_equal(r->frames_hash, FLY_FRAMES_HASH);
}

static void test_fly_through_inline(void **state)
{
    (void)state;
    fixture f;
    fx_open(&f, &fly, &fly_pack);
    fx_create(&f);
    /* several times larger than the pool */
    assert_true(f.pack.chunk_count >= 4u * fly.pages);
    slc_stream_stats st;
    slc_stream_get_stats(f.s, &st);
    assert_int_equal(st.pinned_chunks, 48);   /* one coarsest chunk per object */
    assert_int_equal(st.upload_cap_pages, 4); /* 16 KiB of 4 KiB pages */
    sfx_trace_result r;
    run_trace(&f, FLY_FRAMES, &r);
    /* the scene streamed: loads, evictions, deferrals, hits, fallbacks */
    assert_true(r.stats.loads_completed > 300);
    assert_true(r.stats.evictions > 200);
    assert_true(r.stats.deferred > 0);
    assert_true(r.stats.hits > r.stats.misses);
    assert_true(r.stats.fallbacks > 0);
    assert_int_equal(r.stats.holes, 0);
    assert_int_equal(r.stats.failures, 0);
    assert_int_equal(r.stats.worker_loads, 0);
    assert_int_equal(r.stats.caller_loads, r.stats.loads_started);
    expect_fly_hashes(&r, "inline");
    fx_close(&f);
}

/* The same trace with 1, 2 and 4 workers and random I/O delays: the same
 * log, the same frames. */
static void test_fly_through_is_the_same_with_workers_and_delays(void **state)
{
    (void)state;
    static const uint32_t counts[] = {1, 2, 4};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        params p = fly;
        p.workers = counts[i];
        p.delay_us = 200;
        fixture f;
        fx_open(&f, &p, &fly_pack);
        fx_create(&f);
        sfx_trace_result r;
        run_trace(&f, FLY_FRAMES, &r);
        char what[32];
        snprintf(what, sizeof what, "%u workers", counts[i]);
        expect_fly_hashes(&r, what);
        assert_int_equal(r.stats.workers, counts[i]);
        /* every load applied ran on some thread; the last frame's may still be queued */
        assert_true(r.stats.worker_loads + r.stats.caller_loads >= r.stats.loads_completed);
        assert_true(r.stats.worker_loads + r.stats.caller_loads <= r.stats.loads_started);
        assert_true(r.stats.worker_loads > 0);
        assert_true(r.stats.wait_ns > 0); /* delays of up to 200 us a read made the caller wait */
        fx_close(&f);
    }
}

/* The priority policy streams the same trace deterministically too. */
#define FLY_PRIORITY_LOG_HASH 0x9af8ed1c981de385ull
static void test_fly_through_priority_eviction(void **state)
{
    (void)state;
    uint64_t hash[2] = {0, 0};
    for (uint32_t w = 0; w < 2; w++) {
        params p = fly;
        p.eviction = "priority";
        p.workers = 2u * w;
        p.delay_us = 100u * w;
        fixture f;
        fx_open(&f, &p, &fly_pack);
        fx_create(&f);
        sfx_trace_result r;
        run_trace(&f, FLY_FRAMES, &r);
        assert_int_equal(r.stats.holes, 0);
        assert_true(r.stats.evictions > 200);
        hash[w] = r.log_hash;
        printf("priority, %u workers: log hash 0x%016" PRIx64 "\n", p.workers, r.log_hash);
        fx_close(&f);
    }
    assert_int_equal(hash[0], hash[1]);
    assert_int_equal(hash[0], FLY_PRIORITY_LOG_HASH);
}

/* --- frames, step by step ------------------------------------------------------- */

static void frame_begin(fixture *f, uint64_t expect)
{
    uint64_t frame = 0;
    assert_int_equal(slc_stream_begin_frame(f->s, &frame), SLC_OK);
    assert_int_equal(frame, expect);
}

static void want(fixture *f, uint32_t chunk, uint8_t priority)
{
    assert_int_equal(slc_stream_request_chunk(f->s, (slc_chunk_id){chunk}, priority, (slc_partition){0}), SLC_OK);
}

static slc_stream_frame_stats last_frame(fixture *f)
{
    slc_stream_frame_stats fs;
    assert_int_equal(slc_stream_walk_telemetry(f->s, &fs, 1), 1);
    return fs;
}

static slc_stream_chunk_state chunk_state(fixture *f, uint32_t chunk)
{
    slc_stream_chunk_info ci;
    slc_stream_get_chunk(f->s, (slc_chunk_id){chunk}, &ci);
    return ci.state;
}

static void assert_visible(fixture *f, uint32_t chunk)
{
    slc_page_info info;
    assert_int_equal(slc_stream_get_chunk_page(f->s, (slc_chunk_id){chunk}, &info), SLC_OK);
    sp_assert_page_holds(&f->pack, info.location.host, chunk);
}

static const sp_params small_pack = {4096, 4, 3, {2, 1, 1}, 7}; /* 16 chunks; object o's coarsest is 4o + 3 */

/* A load published in frame f is visible from frame f + load_frames; the
 * upload cap defers the rest in (priority, chunk id) order; a deferred
 * chunk that is only carried and deferred again is dropped. */
static void test_deferral_by_upload_cap_in_priority_order(void **state)
{
    (void)state;
    params p = {32, 0, 64, 8, 0, 1, 0, "lru", NULL, NULL}; /* 2 pages a frame */
    fixture f;
    fx_open(&f, &p, &fly_pack);
    fx_create(&f);
    frame_begin(&f, 1);
    for (uint32_t c = 0; c < 10; c++) {
        want(&f, c, 100);
    }
    want(&f, 20, 200);
    want(&f, 3, 150); /* asked twice: the higher priority counts */
    assert_int_equal(slc_stream_end_frame(f.s), SLC_OK);
    slc_stream_frame_stats fs = last_frame(&f);
    assert_int_equal(fs.requests, 12);
    assert_int_equal(fs.chunks, 11);
    assert_int_equal(fs.misses, 11);
    assert_int_equal(fs.loads_started, 2);
    assert_int_equal(fs.deferred, 9);
    assert_int_equal(fs.dropped, 0);
    assert_int_equal(chunk_state(&f, 20), SLC_STREAM_CHUNK_LOADING);
    assert_int_equal(chunk_state(&f, 3), SLC_STREAM_CHUNK_LOADING);
    assert_int_equal(chunk_state(&f, 0), SLC_STREAM_CHUNK_ABSENT);
    /* not visible before its frame */
    slc_page_info info;
    assert_int_equal(slc_stream_get_chunk_page(f.s, (slc_chunk_id){20}, &info), SLC_E_NOT_FOUND);

    /* Frame 2 asks for nothing: the 9 carried are scheduled, 2 load (0, 1),
     * 7 are deferred again and dropped. */
    frame_begin(&f, 2);
    assert_visible(&f, 20);
    assert_visible(&f, 3);
    fs = last_frame(&f); /* frame 1's record until frame 2 ends */
    assert_int_equal(fs.frame, 1);
    assert_int_equal(slc_stream_end_frame(f.s), SLC_OK);
    fs = last_frame(&f);
    assert_int_equal(fs.frame, 2);
    assert_int_equal(fs.loads_completed, 2);
    assert_int_equal(fs.bytes_uploaded, (uint64_t)f.pack.decoded_size[20] + f.pack.decoded_size[3]);
    assert_int_equal(fs.requests, 0);
    assert_int_equal(fs.chunks, 9);
    assert_int_equal(fs.loads_started, 2);
    assert_int_equal(fs.deferred, 7);
    assert_int_equal(fs.dropped, 7);
    assert_int_equal(chunk_state(&f, 0), SLC_STREAM_CHUNK_LOADING);
    assert_int_equal(chunk_state(&f, 1), SLC_STREAM_CHUNK_LOADING);
    assert_int_equal(chunk_state(&f, 2), SLC_STREAM_CHUNK_ABSENT);

    /* Frame 3: nothing carried any more. */
    frame_begin(&f, 3);
    assert_int_equal(slc_stream_end_frame(f.s), SLC_OK);
    fs = last_frame(&f);
    assert_int_equal(fs.chunks, 0);
    assert_int_equal(fs.loads_completed, 2);
    assert_visible(&f, 0);
    assert_visible(&f, 1);
    assert_true(slc_stream_check(f.s));
    fx_close(&f);
}

/* The load slots (queue_capacity) bound what is in flight; the chunk list
 * refuses a request past its capacity. */
static void test_deferral_by_queue_capacity(void **state)
{
    (void)state;
    params p = {32, 0, 2, 64, 0, 2, 0, "lru", NULL, NULL}; /* 2 slots, visible two frames later */
    fixture f;
    fx_open(&f, &p, &fly_pack);
    fx_create(&f);
    frame_begin(&f, 1);
    want(&f, 0, 1);
    want(&f, 1, 1);
    assert_int_equal(slc_stream_request_chunk(f.s, (slc_chunk_id){2}, 1, (slc_partition){0}), SLC_E_CAPACITY);
    assert_int_equal(slc_stream_end_frame(f.s), SLC_OK);
    slc_stream_frame_stats fs = last_frame(&f);
    assert_int_equal(fs.refused, 1);
    assert_int_equal(fs.loads_started, 2);
    frame_begin(&f, 2);
    want(&f, 0, 1);
    want(&f, 2, 1);
    assert_int_equal(slc_stream_end_frame(f.s), SLC_OK);
    fs = last_frame(&f);
    assert_int_equal(fs.in_flight, 1);       /* chunk 0 */
    assert_int_equal(fs.loads_cancelled, 1); /* chunk 1: not asked for any more */
    assert_int_equal(fs.loads_started, 0);   /* the cancelled load keeps its slot until its frame */
    assert_int_equal(fs.deferred, 1);        /* chunk 2, carried */
    frame_begin(&f, 3);
    want(&f, 0, 1);
    want(&f, 3, 1); /* with chunk 2, carried */
    assert_int_equal(slc_stream_end_frame(f.s), SLC_OK);
    fs = last_frame(&f);
    assert_int_equal(fs.loads_completed, 1); /* chunk 0; chunk 1's slot freed */
    assert_int_equal(fs.chunks, 3);
    assert_int_equal(fs.hits, 1);
    assert_int_equal(fs.misses, 2);
    assert_int_equal(fs.loads_started, 2);
    assert_int_equal(fs.deferred, 0);
    frame_begin(&f, 4);
    want(&f, 2, 1);
    want(&f, 3, 1);
    assert_int_equal(slc_stream_end_frame(f.s), SLC_OK);
    fs = last_frame(&f);
    assert_int_equal(fs.loads_completed, 0);
    assert_int_equal(fs.in_flight, 2);
    frame_begin(&f, 5);
    want(&f, 2, 1);
    want(&f, 4, 1);
    assert_int_equal(slc_stream_end_frame(f.s), SLC_OK);
    fs = last_frame(&f);
    assert_int_equal(fs.loads_completed, 2);
    assert_int_equal(fs.hits, 1);
    assert_int_equal(fs.loads_started, 1);
    assert_visible(&f, 2);
    assert_visible(&f, 3);
    assert_true(slc_stream_check(f.s));
    fx_close(&f);
}

/* Every page of the pool is used by a frame in flight: the miss waits. */
static void test_deferral_when_no_page_is_evictable(void **state)
{
    (void)state;
    params p = {2, 0, 16, 64, 0, 1, 0, "lru", NULL, NULL};
    fixture f;
    fx_open(&f, &p, &fly_pack);
    fx_create(&f);
    frame_begin(&f, 1);
    want(&f, 0, 1);
    want(&f, 1, 1);
    assert_int_equal(slc_stream_end_frame(f.s), SLC_OK);
    frame_begin(&f, 2);
    want(&f, 0, 1);
    want(&f, 1, 1);
    want(&f, 2, 1);
    assert_int_equal(slc_stream_end_frame(f.s), SLC_OK);
    slc_stream_frame_stats fs = last_frame(&f);
    assert_int_equal(fs.hits, 2);
    assert_int_equal(fs.misses, 1);
    assert_int_equal(fs.deferred, 1);
    assert_int_equal(fs.evictions, 0);
    /* Two frames later nothing uses chunks 0 and 1 any more. */
    for (uint64_t t = 3; t <= 4; t++) {
        frame_begin(&f, t);
        want(&f, 2, 1);
        assert_int_equal(slc_stream_end_frame(f.s), SLC_OK);
    }
    fs = last_frame(&f);
    assert_int_equal(fs.loads_started, 1);
    assert_int_equal(fs.evictions, 1);
    frame_begin(&f, 5);
    assert_visible(&f, 2);
    assert_int_equal(slc_stream_end_frame(f.s), SLC_OK);
    fx_close(&f);
}

/* A load cancelled while a worker runs it: the page goes to another chunk,
 * whose load waits for the cancelled one to end, and holds the other
 * chunk's bytes. A load cancelled before any thread took it is skipped. */
static void test_cancellation_through_the_generation(void **state)
{
    (void)state;
    for (uint32_t workers = 1; workers <= 2; workers++) {
        params p = {8, workers, 16, 64, 0, 2, 0, "lru", NULL, NULL};
        fixture f;
        fx_open(&f, &p, &fly_pack);
        f.io.gate_chunk = 0;
        fx_create(&f);
        frame_begin(&f, 1);
        want(&f, 0, 9); /* first: the worker takes it and blocks in its read */
        want(&f, 1, 1); /* queued behind it with one worker */
        assert_int_equal(slc_stream_end_frame(f.s), SLC_OK);
        while (!atomic_load(&f.io.gate_entered)) {
            sp_sleep_us(100);
        }
        slc_page_info p0;
        slc_pool_get_page(slc_stream_pool(f.s), 0, &p0);
        assert_int_equal(p0.chunk.index, 0);
        assert_int_equal(p0.state, SLC_PAGE_LOADING);

        frame_begin(&f, 2);
        want(&f, 7, 5); /* chunks 0 and 1 are not wanted any more */
        assert_int_equal(slc_stream_end_frame(f.s), SLC_OK);
        slc_stream_frame_stats fs = last_frame(&f);
        assert_int_equal(fs.loads_cancelled, 2);
        assert_int_equal(fs.loads_started, 1);
        slc_page_info pg;
        slc_pool_get_page(slc_stream_pool(f.s), 1, &pg); /* the most recently freed page: chunk 1's, then 0's */
        slc_pool_get_page(slc_stream_pool(f.s), 0, &p0);
        assert_int_equal(p0.chunk.index == 7 || pg.chunk.index == 7, 1);
        assert_int_not_equal(p0.page.generation, 1u); /* page 0 changed hands */
        assert_int_equal(chunk_state(&f, 0), SLC_STREAM_CHUNK_ABSENT);
        atomic_store(&f.io.gate_open, 1);

        for (uint64_t t = 3; t <= 4; t++) {
            frame_begin(&f, t);
            want(&f, 7, 5);
            assert_int_equal(slc_stream_end_frame(f.s), SLC_OK);
        }
        assert_visible(&f, 7); /* chunk 0's bytes never landed over chunk 7's */
        slc_page_info info;
        assert_int_equal(slc_stream_get_chunk_page(f.s, (slc_chunk_id){0}, &info), SLC_E_NOT_FOUND);
        assert_int_equal(slc_stream_get_chunk_page(f.s, (slc_chunk_id){1}, &info), SLC_E_NOT_FOUND);
        slc_stream_stats st;
        slc_stream_get_stats(f.s, &st);
        assert_int_equal(st.loads_cancelled, 2);
        if (workers == 1) {
            assert_int_equal(st.skipped_loads, 1); /* chunk 1 never started */
        }
        /* the log: acquires of 0 and 1, their releases, the acquire of 7 */
        slc_pool_log_entry log[8];
        size_t n = slc_pool_walk_log(slc_stream_pool(f.s), 0, log, 8);
        assert_int_equal(n, 5);
        assert_int_equal(log[2].evicted.index, 0);
        assert_int_equal(log[2].loaded.index, SLC_CHUNK_NONE_INDEX);
        assert_int_equal(log[3].evicted.index, 1);
        assert_int_equal(log[3].loaded.index, SLC_CHUNK_NONE_INDEX);
        assert_int_equal(log[4].loaded.index, 7);
        assert_true(slc_stream_check(f.s));
        fx_close(&f);
    }
}

/* --- faults and retries ------------------------------------------------------------ */

typedef struct fault_case {
    const char *what;
    slc_status io_status; /* injected by the reader; SLC_OK: corrupt bytes read */
    int edit;             /* 0: none; 1: corrupt the LZ4 stream (checksum resealed); 2: decoded size + 8;
                           * 3: an index out of its cluster's range (recompressed, checksum resealed) */
    slc_status expect;
    const char *message;
} fault_case;

static void edit_chunk(sp_pack *pk, uint32_t chunk, int edit)
{
    test_pack t = {.data = pk->data, .size = pk->size};
    slc_pack_chunk *c = tp_chunk(&t, chunk);
    assert_int_equal(c->codec, SLC_PACK_CODEC_LZ4);
    if (edit == 1) {
        memset(pk->data + c->offset + c->stored_size / 2u, 0xFF, 16);
        c->xxh3 = XXH3_64bits(pk->data + c->offset, c->stored_size);
    } else if (edit == 3) {
        /* Cluster 0 has 3 vertices and its indices at byte 152
         * (tp_fill_chunk): triangle 0 now uses vertex 3. Everything the
         * checksum and the decoder see is valid. */
        unsigned char *page = malloc(c->decoded_size);
        unsigned char *packed = malloc((size_t)LZ4_compressBound((int)c->decoded_size));
        assert_non_null(page);
        assert_non_null(packed);
        assert_int_equal(LZ4_decompress_safe((const char *)pk->data + c->offset, (char *)page, (int)c->stored_size,
                                             (int)c->decoded_size),
                         (int)c->decoded_size);
        assert_int_equal(page[152], 0);
        page[152] = 3;
        int n = LZ4_compress_default((const char *)page, (char *)packed, (int)c->decoded_size,
                                     LZ4_compressBound((int)c->decoded_size));
        assert_true(n > 0 && (uint64_t)n <= tp_chunk(&t, chunk + 1u)->offset - c->offset); /* fits its place */
        memcpy(pk->data + c->offset, packed, (size_t)n);
        c->stored_size = (uint32_t)n;
        c->xxh3 = XXH3_64bits(pk->data + c->offset, c->stored_size);
        free(packed);
        free(page);
    } else {
        c->decoded_size += 8u;
    }
    tp_reseal(&t);
}

static void test_faults_fall_back_and_retry(void **state)
{
    (void)state;
    static const fault_case cases[] = {
        {"read error", SLC_E_IO, 0, SLC_E_IO, "pack 'stream.pack': chunk 0: read of"},
        {"short read", SLC_E_IO_SHORT, 0, SLC_E_IO_SHORT, "pack 'stream.pack': chunk 0: read of"},
        {"checksum", SLC_OK, 0, SLC_E_PACK_CHUNK_CHECKSUM, "pack 'stream.pack': chunk 0: XXH3 of its"},
        {"corrupt LZ4", SLC_E_INVALID, 1, SLC_E_PACK_CORRUPT, "pack 'stream.pack': chunk 0: LZ4 rejects its"},
        {"decoded size", SLC_E_INVALID, 2, SLC_E_PACK_DECODED_SIZE, "pack 'stream.pack': chunk 0: decoded to"},
        {"index out of range", SLC_E_INVALID, 3, SLC_E_PACK_CHUNK_CONTENT,
         "pack 'stream.pack': chunk 0 cluster 0: triangle 0 uses vertex 3 of 3"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const fault_case *fc = &cases[i];
        params p = {12, 0, 16, 64, 1, 1, 0, "lru", NULL, NULL};
        fixture f;
        memset(&f, 0, sizeof f);
        fx_open(&f, &p, &small_pack);
        if (fc->edit != 0) {
            slc_pack_close(f.pk); /* reopen over the edited bytes */
            edit_chunk(&f.pack, 0, fc->edit);
            sfx_pack_open(f.mem, &f.io.io, &f.profile, &f.pack_logger, &f.pk);
        } else {
            sp_io_fault(&f.io, 0, fc->io_status, 3); /* the first three reads of chunk 0 fail */
        }
        fx_create(&f);
        slc_stream_object_request req = {{0}, 0, 10, {0}};
        /* frame: load attempts (1-based) and the failures applied by it */
        uint32_t failures = 0, loads_of_0 = 0;
        for (uint64_t t = 1; t <= 9; t++) {
            frame_begin(&f, t + 1); /* frame 1 wrote the pinned chunks */
            assert_int_equal(slc_stream_request(f.s, &req), SLC_OK);
            assert_int_equal(slc_stream_end_frame(f.s), SLC_OK);
            slc_stream_frame_stats fs = last_frame(&f);
            failures += fs.failures;
            slc_stream_result r;
            slc_stream_span spans[4];
            assert_int_equal(slc_stream_resident(f.s, 0, &r, spans, 4), SLC_OK);
            assert_true(r.lod != SLC_STREAM_LOD_NONE); /* the pinned coarsest at worst */
            assert_true(r.lod > 0);                    /* never the level with the failed chunk */
            if (fs.failures > 0) {
                assert_int_equal(fs.failures, 1);
                assert_int_equal(f.pack_log.status, fc->expect);
                if (strncmp(f.pack_log.message, fc->message, strlen(fc->message)) != 0) {
                    fail_msg("%s: message '%s'", fc->what, f.pack_log.message);
                }
            }
            slc_stream_chunk_info ci;
            slc_stream_get_chunk(f.s, (slc_chunk_id){0}, &ci);
            if (ci.state == SLC_STREAM_CHUNK_LOADING) {
                loads_of_0++;
            }
            /* Failures applied in frames 2, 4 (retry after 1 frame) and 7
             * (retry after 2); then no more loads. */
            if (t == 2 || t == 3) {
                assert_int_equal(ci.attempts, 1);
            }
            if (t == 2) {
                assert_int_equal(ci.state, SLC_STREAM_CHUNK_FAILED);
                assert_int_equal(ci.status, fc->expect);
                assert_int_equal(ci.retry_frame, 4); /* failed in frame 3 (t = 2), retried after 1 */
                assert_int_equal(fs.failed_skips, 1);
            }
            if (t == 4) {
                assert_int_equal(ci.attempts, 2);
                assert_int_equal(ci.retry_frame, 7); /* failed in frame 5, retried after 2 */
            }
            if (t >= 7) {
                assert_int_equal(ci.attempts, SLC_STREAM_MAX_ATTEMPTS);
                assert_int_equal(ci.state, SLC_STREAM_CHUNK_FAILED);
                assert_int_equal(ci.retry_frame, UINT64_MAX);
            }
            assert_true(slc_stream_check(f.s));
        }
        assert_int_equal(loads_of_0, 3);
        assert_int_equal(failures, 3);
        /* The other chunk of the level loaded; the object shows level 1
         * once chunk 2 (level 1) is resident. */
        assert_visible(&f, 1);
        slc_stream_stats st;
        slc_stream_get_stats(f.s, &st);
        assert_int_equal(st.failures, 3);
        assert_true(st.fallbacks >= 9);
        /* Chunk 0's page was never published, and the failures are named
         * in the order applied: frames 3, 5 and 8. */
        slc_page_info pinfo;
        assert_int_equal(slc_stream_get_chunk_page(f.s, (slc_chunk_id){0}, &pinfo), SLC_E_NOT_FOUND);
        assert_int_equal(st.failure_records, 3);
        static const uint64_t failed_in[3] = {3, 5, 8};
        for (uint32_t k = 0; k < 3; k++) {
            assert_int_equal(st.first_failures[k].chunk.index, 0);
            assert_int_equal(st.first_failures[k].status, fc->expect);
            assert_int_equal(st.first_failures[k].frame, failed_in[k]);
        }
        /* Only chunk 1 loaded (the pinned coarsest are not counted): bytes
         * decoded are its, and chunk 0's stored bytes count as read only
         * when its read succeeded (three times). */
        const slc_pack_chunk *c0 = slc_pack_get_chunk(f.pk, (slc_chunk_id){0}),
                             *c1 = slc_pack_get_chunk(f.pk, (slc_chunk_id){1});
        assert_int_equal(st.loads_completed, 1);
        assert_int_equal(st.bytes_decoded, c1->decoded_size);
        assert_int_equal(st.bytes_uploaded, st.bytes_decoded);
        uint64_t read0 = fc->io_status == SLC_E_IO || fc->io_status == SLC_E_IO_SHORT ? 0 : 3u * c0->stored_size;
        assert_int_equal(st.bytes_read, (uint64_t)c1->stored_size + read0);
        if (fc->edit == 0) {
            /* After retry_failed the chunk loads (the reader fails 3 times only). */
            assert_int_equal(slc_stream_retry_failed(f.s), 1);
            assert_int_equal(slc_stream_retry_failed(f.s), 0);
            for (uint64_t t = 11; t <= 12; t++) {
                frame_begin(&f, t);
                assert_int_equal(slc_stream_request(f.s, &req), SLC_OK);
                assert_int_equal(slc_stream_end_frame(f.s), SLC_OK);
            }
            slc_stream_result r;
            slc_stream_span spans[4];
            assert_int_equal(slc_stream_resident(f.s, 0, &r, spans, 4), SLC_OK);
            assert_int_equal(r.lod, 0);
            assert_int_equal(r.span_count, 2);
            assert_int_equal(spans[0].chunk.index, 0);
            sp_assert_page_holds(&f.pack, spans[0].location.host, 0);
            slc_stream_chunk_info ci;
            slc_stream_get_chunk(f.s, (slc_chunk_id){0}, &ci);
            assert_int_equal(ci.state, SLC_STREAM_CHUNK_RESIDENT);
            assert_int_equal(ci.attempts, 0);
            assert_int_equal(ci.status, SLC_OK);
        }
        fx_close(&f);
    }
}

/* The stats name the first SLC_STREAM_FAILURE_RECORDS failed loads by
 * chunk, status and frame, in the order applied, and only once the frame
 * that applied them has ended (so failure_records never exceeds failures). */
static void test_failure_records_name_the_first_failed_loads(void **state)
{
    (void)state;
    params p = {12, 0, 16, 64, 1, 1, 0, "lru", NULL, NULL};
    fixture f;
    fx_open(&f, &p, &small_pack);
    /* Level 0 of objects 0..2 is chunks 0, 1, 4, 5, 8, 9: all but 9 fail. */
    static const uint32_t bad[5] = {0, 1, 4, 5, 8};
    for (uint32_t i = 0; i < 5; i++) {
        sp_io_fault(&f.io, bad[i], i % 2u == 0 ? SLC_E_IO : SLC_E_IO_SHORT, UINT32_MAX);
    }
    fx_create(&f);
    slc_stream_stats st;
    for (uint64_t t = 1; t <= 4; t++) {
        frame_begin(&f, t + 1);
        slc_stream_get_stats(f.s, &st);
        assert_int_equal(st.failure_records, st.failures < 8 ? st.failures : 8);
        for (uint32_t o = 0; o < 3; o++) {
            slc_stream_object_request req = {{o}, 0, 10, {0}};
            assert_int_equal(slc_stream_request(f.s, &req), SLC_OK);
        }
        assert_int_equal(slc_stream_end_frame(f.s), SLC_OK);
        if (t == 2) {
            /* frame 3 applied the first five failures */
            slc_stream_get_stats(f.s, &st);
            assert_int_equal(st.failures, 5);
            assert_int_equal(st.failure_records, 5);
        }
    }
    /* Frame 5 applied the first retries: ten failures, eight named. */
    slc_stream_get_stats(f.s, &st);
    assert_int_equal(st.failures, 10);
    assert_int_equal(st.failure_records, SLC_STREAM_FAILURE_RECORDS);
    static const uint32_t chunks[8] = {0, 1, 4, 5, 8, 0, 1, 4};
    static const uint64_t frames[8] = {3, 3, 3, 3, 3, 5, 5, 5};
    for (uint32_t k = 0; k < 8; k++) {
        assert_int_equal(st.first_failures[k].chunk.index, chunks[k]);
        assert_int_equal(st.first_failures[k].frame, frames[k]);
        assert_int_equal(st.first_failures[k].status, chunks[k] == 1 || chunks[k] == 5 ? SLC_E_IO_SHORT : SLC_E_IO);
    }
    assert_visible(&f, 9);
    assert_int_equal(st.bytes_decoded, st.bytes_uploaded);
    assert_int_equal(st.bytes_decoded, slc_pack_get_chunk(f.pk, (slc_chunk_id){9})->decoded_size);
    assert_true(slc_stream_check(f.s));
    fx_close(&f);
}

/* Pinning: what does not fit, or fails, fails the create and leaves the
 * arenas as they were; the runtime stays usable. */
static void test_pinning_errors(void **state)
{
    (void)state;
    params p = fly;
    p.pages = 40; /* 48 objects: 48 pinned chunks */
    fixture f;
    fx_open(&f, &p, &fly_pack);
    slc_arena *meta, *queues;
    assert_int_equal(slc_memory_scan_arena(f.mem, "cpu/meta", &meta), SLC_OK);
    assert_int_equal(slc_memory_scan_arena(f.mem, "cpu/queues", &queues), SLC_OK);
    slc_arena_stats m0, q0, m1, q1;
    slc_arena_get_stats(meta, &m0);
    slc_arena_get_stats(queues, &q0);
    slc_stream_desc d = fx_desc(&f);
    assert_int_equal(slc_stream_create(&d, &f.s), SLC_E_POOL_BUSY);
    assert_null(f.s);
    assert_string_equal(
        f.log.message,
        "stream: pinning the 1 coarsest level(s) of every object needs 48 pages; partition 'default' has 40");
    slc_arena_get_stats(meta, &m1);
    slc_arena_get_stats(queues, &q1);
    assert_int_equal(m1.used, m0.used);
    assert_int_equal(q1.used, q0.used);
    fx_close(&f);

    /* A pinned chunk that cannot be read. */
    p.pages = 96;
    fx_open(&f, &p, &fly_pack);
    assert_int_equal(slc_memory_scan_arena(f.mem, "cpu/meta", &meta), SLC_OK);
    slc_arena_get_stats(meta, &m0);
    sp_io_fault(&f.io, 8, SLC_E_IO, UINT32_MAX); /* object 0's coarsest chunk */
    d = fx_desc(&f);
    assert_int_equal(slc_stream_create(&d, &f.s), SLC_E_IO);
    assert_string_equal(f.log.message, "stream: pinned chunk 8 could not be loaded: SLC_E_IO");
    slc_arena_get_stats(meta, &m1);
    assert_int_equal(m1.used, m0.used);
    f.io.fault_count = 0;
    fx_create(&f); /* usable afterwards */
    slc_stream_stats st;
    slc_stream_get_stats(f.s, &st);
    assert_int_equal(st.pinned_chunks, 48);
    slc_page_info info;
    assert_int_equal(slc_stream_get_chunk_page(f.s, (slc_chunk_id){8}, &info), SLC_OK);
    assert_int_equal(info.state, SLC_PAGE_PINNED);
    fx_close(&f);

    /* A pinned chunk whose index leaves its cluster (the checksum holds):
     * its page is not pinned, the create fails and gives everything back. */
    fx_open(&f, &p, &fly_pack);
    slc_pack_close(f.pk);
    edit_chunk(&f.pack, 8, 3);
    assert_int_equal(slc_memory_scan_arena(f.mem, "cpu/meta", &meta), SLC_OK);
    assert_int_equal(slc_pack_open(&f.io.io, "stream.pack", &f.profile, meta, &f.pack_logger, &f.pk), SLC_OK);
    slc_arena_get_stats(meta, &m0);
    d = fx_desc(&f);
    assert_int_equal(slc_stream_create(&d, &f.s), SLC_E_PACK_CHUNK_CONTENT);
    assert_null(f.s);
    assert_string_equal(f.log.message, "stream: pinned chunk 8 could not be loaded: SLC_E_PACK_CHUNK_CONTENT");
    assert_string_equal(f.pack_log.message, "pack 'stream.pack': chunk 8 cluster 0: triangle 0 uses vertex 3 of 3");
    slc_arena_get_stats(meta, &m1);
    assert_int_equal(m1.used, m0.used);
    fx_close(&f);

    /* An unknown pin partition. */
    fx_open(&f, &p, &fly_pack);
    d = fx_desc(&f);
    d.pin_partition = "nowhere";
    assert_int_equal(slc_stream_create(&d, &f.s), SLC_E_INVALID);
    assert_string_equal(f.log.message, "stream: pin_partition 'nowhere' is not a partition of the pool");
    fx_close(&f);
}

/* Every create error names what is wrong. */
static void test_create_errors(void **state)
{
    (void)state;
    params p = {16, 0, 16, 64, 0, 1, 0, "lru", NULL, NULL};
    fixture f;
    fx_open(&f, &p, &fly_pack);
    slc_stream_desc d = fx_desc(&f);
#define EXPECT_CREATE(edit, status, msg)                     \
    do {                                                     \
        slc_stream_desc e = d;                               \
        edit;                                                \
        slc_stream *s = (slc_stream *)&e;                    \
        assert_int_equal(slc_stream_create(&e, &s), status); \
        assert_null(s);                                      \
        assert_string_equal(f.log.message, msg);             \
    } while (0)
    EXPECT_CREATE(e.profile = NULL, SLC_E_INVALID, "stream: the desc lacks its profile");
    EXPECT_CREATE(e.memory = NULL, SLC_E_INVALID, "stream: the desc lacks its memory");
    EXPECT_CREATE(e.pack = NULL, SLC_E_INVALID, "stream: the desc lacks its pack");
    EXPECT_CREATE(e.stores[SLC_POOL_GEOMETRY] = NULL, SLC_E_INVALID, "stream: the desc lacks its page store");
    slc_page_store other = f.store;
    other.page_count = 15;
    EXPECT_CREATE(e.stores[SLC_POOL_GEOMETRY] = &other, SLC_E_INVALID,
                  "pool: page_count 16 differs from the host store's 15 pages");
    /* The pages a load writes are the store's: a store of smaller pages
     * than the pack's cannot take its chunks. */
    other = f.store;
    other.page_size = 2048;
    EXPECT_CREATE(e.stores[SLC_POOL_GEOMETRY] = &other, SLC_E_INVALID,
                  "stream: the pack (432 chunks of pages of 4096 bytes) was not opened with this profile (4096 chunks, "
                  "2048-byte pages)");
    EXPECT_CREATE(e.load_frames = 9, SLC_E_INVALID, "stream: load_frames 9 is above 8");
    EXPECT_CREATE(e.telemetry_frames = 65537, SLC_E_INVALID, "stream: telemetry_frames 65537 is above 65536");
    slc_profile prof = f.profile;
    prof.workers = 2;
    EXPECT_CREATE(e.profile = &prof, SLC_E_INVALID,
                  "stream: the profile asks for 2 workers but the desc has no executor (or one lacking an operation)");
    prof = f.profile;
    prof.upload_cap = 1024;
    EXPECT_CREATE(e.profile = &prof, SLC_E_INVALID,
                  "stream: upload_per_frame 1024 is below the page size 4096: no page could be loaded");
    prof = f.profile;
    prof.max_chunks = 10;
    EXPECT_CREATE(e.profile = &prof, SLC_E_INVALID,
                  "stream: the pack (432 chunks of pages of 4096 bytes) was not opened with this profile (10 chunks, "
                  "4096-byte pages)");
    fx_close(&f);

    /* An arena too small: the message names the part, the budget and the bytes. */
    p.queues_budget = "64 KiB";
    p.queue = 1024;
    fx_open(&f, &p, &fly_pack);
    d = fx_desc(&f);
    slc_stream *s = NULL;
    assert_int_equal(slc_stream_create(&d, &s), SLC_E_CAPACITY);
    assert_null(s);
    assert_string_equal(f.log.message, "stream: the load slots (cpu/queues) needs 65536 bytes; its arena has 16384 of "
                                       "65536 left");
    slc_arena *queues;
    assert_int_equal(slc_memory_scan_arena(f.mem, "cpu/queues", &queues), SLC_OK);
    slc_arena_stats qs;
    slc_arena_get_stats(queues, &qs);
    assert_int_equal(qs.used, 0);
    /* the footprint says how much each arena needs */
    slc_stream_footprint fp;
    assert_int_equal(slc_stream_calculate_footprint(&f.profile, slc_pack_scratch_size(f.pk), 0, &fp), SLC_OK);
    assert_true(fp.queues > 64u * 1024u);
    assert_true(slc_pack_scratch_size(f.pk) > 0);
    assert_true(fp.decode >= slc_pack_scratch_size(f.pk)); /* no workers: the caller's scratch, aligned, and slack */
    fx_close(&f);
#undef EXPECT_CREATE
}

/* A store without host addresses stands for a staging belt: the upload
 * cap is held to the belt's share, and a belt too small for one page a
 * frame is refused. */
static void test_staging_belt_share(void **state)
{
    (void)state;
    params p = {16, 0, 16, 64, 0, 1, 0, "lru", NULL, NULL};
    fixture f;
    fx_open(&f, &p, &fly_pack);
    slc_page_store belt;
    sfx_belt_wrap(&f.store, &belt);
    slc_stream_desc d = fx_desc(&f);
    d.stores[SLC_POOL_GEOMETRY] = &belt;
    assert_int_equal(slc_stream_create(&d, &f.s), SLC_E_INVALID); /* the profile's staging_size is 0 */
    assert_string_equal(f.log.message, "stream: staging_size 0 holds less than one 4096-byte page for each of 4 frames "
                                       "(frames_in_flight + load_frames + 1)");
    f.profile.staging_size = 3u * 4u * 4096u; /* 3 pages for each of 4 frames */
    assert_int_equal(slc_stream_create(&d, &f.s), SLC_OK);
    slc_stream_stats st;
    slc_stream_get_stats(f.s, &st);
    assert_int_equal(st.upload_cap_pages, 3); /* not the 16 of upload_per_frame */
    frame_begin(&f, 1);
    for (uint32_t c = 0; c < 5; c++) {
        want(&f, c, 1);
    }
    assert_int_equal(slc_stream_end_frame(f.s), SLC_OK);
    slc_stream_frame_stats fs = last_frame(&f);
    assert_int_equal(fs.loads_started, 3);
    assert_int_equal(fs.deferred, 2);
    fx_close(&f);
}

/* Requests and queries outside the contract are refused with a message. */
static void test_request_errors(void **state)
{
    (void)state;
    params p = {16, 0, 4, 64, 0, 1, 0, "lru", NULL, NULL};
    fixture f;
    fx_open(&f, &p, &fly_pack);
    fx_create(&f);
    slc_stream_object_request req = {{0}, 0, 1, {0}};
    assert_int_equal(slc_stream_request(f.s, &req), SLC_E_INVALID);
    assert_string_equal(f.log.message, "stream: a request outside a frame (begin_frame first)");
    assert_int_equal(slc_stream_request_chunk(f.s, (slc_chunk_id){0}, 1, (slc_partition){0}), SLC_E_INVALID);
    assert_string_equal(f.log.message, "stream: a chunk request outside a frame (begin_frame first)");
    assert_int_equal(slc_stream_end_frame(f.s), SLC_E_INVALID);
    assert_string_equal(f.log.message, "stream: end_frame without a begun frame");
    frame_begin(&f, 1);
    assert_int_equal(slc_stream_begin_frame(f.s, NULL), SLC_E_INVALID);
    assert_string_equal(f.log.message, "stream: frame 1 is begun and not ended (slc_stream_end_frame first)");
    req.object.index = 48;
    assert_int_equal(slc_stream_request(f.s, &req), SLC_E_INVALID);
    assert_string_equal(f.log.message, "stream: request for object 48: the pack has 48 objects");
    req.object.index = 3;
    req.lod = 3;
    assert_int_equal(slc_stream_request(f.s, &req), SLC_E_INVALID);
    assert_string_equal(f.log.message, "stream: request for object 3 LOD 3: the object has 3 levels");
    req.lod = 0;
    req.partition.index = 1;
    assert_int_equal(slc_stream_request(f.s, &req), SLC_E_INVALID);
    assert_string_equal(f.log.message, "stream: request for object 3: partition 1 does not exist (the pool has 1)");
    assert_int_equal(slc_stream_request_chunk(f.s, (slc_chunk_id){432}, 1, (slc_partition){0}), SLC_E_INVALID);
    assert_string_equal(f.log.message, "stream: request for chunk 432: the pack has 432 chunks");
    assert_int_equal(slc_stream_request_chunk(f.s, (slc_chunk_id){0}, 1, (slc_partition){3}), SLC_E_INVALID);
    assert_string_equal(f.log.message,
                        "stream: request for chunk 0: partition 3 does not exist (the geometry pool has 1)");
    /* object 3 LOD 0 is 6 chunks: more than the 4-entry list holds */
    req.partition.index = 0;
    assert_int_equal(slc_stream_request(f.s, &req), SLC_E_CAPACITY);
    req.lod = 2;
    req.object.index = 1;
    assert_int_equal(slc_stream_request(f.s, &req), SLC_OK);
    assert_int_equal(slc_stream_resident(f.s, 0, &(slc_stream_result){0}, NULL, 0), SLC_E_INVALID);
    assert_string_equal(f.log.message, "stream: no result 0 (the ended frame has 0 object requests)");
    assert_int_equal(slc_stream_end_frame(f.s), SLC_OK);
    slc_stream_frame_stats fs = last_frame(&f);
    assert_int_equal(fs.requests, 1);
    assert_int_equal(fs.refused, 6); /* the two before the frame count in the totals only */
    assert_int_equal(fs.chunks, 1);  /* the refused request added nothing */
    assert_int_equal(slc_stream_result_count(f.s), 1);
    slc_stream_result r;
    assert_int_equal(slc_stream_resident(f.s, 1, &r, NULL, 0), SLC_E_INVALID);
    assert_string_equal(f.log.message, "stream: no result 1 (the ended frame has 1 object requests)");
    slc_page_info info;
    assert_int_equal(slc_stream_get_chunk_page(f.s, (slc_chunk_id){432}, &info), SLC_E_INVALID);
    assert_string_equal(f.log.message, "stream: chunk 432: the pack has 432 chunks");
    frame_begin(&f, 2);
    assert_int_equal(slc_stream_request(f.s, &req), SLC_OK);
    assert_int_equal(slc_stream_end_frame(f.s), SLC_OK);
    assert_int_equal(slc_stream_resident(f.s, 0, &r, NULL, 0), SLC_E_CAPACITY); /* one span, no room */
    assert_int_equal(r.span_count, 1);
    assert_int_equal(r.lod, 2);
    slc_stream_stats st;
    slc_stream_get_stats(f.s, &st);
    assert_int_equal(st.refused, 8);
    assert_true(slc_stream_check(f.s));
    fx_close(&f);
}

#endif

#ifdef SLUICE_STREAM_NOHEAP
/* Built a second time with malloc & co. wrapped by the linker (see
 * tests/CMakeLists.txt), against the product libraries: between
 * slc_stream_create and slc_stream_destroy, with worker threads streaming a
 * fly-through, not one heap or mapping call is made by the runtime, the
 * platform or the workers (the wrappers: noheap_wrap.h). */
static void test_no_heap_between_create_and_destroy(void **state)
{
    (void)state;
    /* the counter counts */
    noheap_calls = 0;
    noheap_counting = 1;
    void *volatile probe = malloc(16);
    free(probe);
    noheap_counting = 0;
    assert_int_equal(noheap_calls, 2);
    for (uint32_t workers = 0; workers <= 2; workers += 2) {
        params p = fly;
        p.workers = workers;
        p.delay_us = 50;
        fixture f;
        fx_open(&f, &p, &fly_pack);
        noheap_calls = 0;
        noheap_counting = 1;
        fx_create(&f);
        sfx_trace_result r;
        run_trace(&f, 200, &r);
        if (workers > 0) {
            slc_platform_workers_stop(&f.workers);
        }
        slc_stream_destroy(f.s);
        noheap_counting = 0;
        assert_int_equal(noheap_calls, 0);
        assert_true(r.stats.loads_completed > 100);
        f.s = NULL;
        f.prm.workers = 0;
        fx_close(&f);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_heap_between_create_and_destroy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
#else
int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fly_through_inline),
        cmocka_unit_test(test_fly_through_is_the_same_with_workers_and_delays),
        cmocka_unit_test(test_fly_through_priority_eviction),
        cmocka_unit_test(test_deferral_by_upload_cap_in_priority_order),
        cmocka_unit_test(test_deferral_by_queue_capacity),
        cmocka_unit_test(test_deferral_when_no_page_is_evictable),
        cmocka_unit_test(test_cancellation_through_the_generation),
        cmocka_unit_test(test_faults_fall_back_and_retry),
        cmocka_unit_test(test_failure_records_name_the_first_failed_loads),
        cmocka_unit_test(test_pinning_errors),
        cmocka_unit_test(test_create_errors),
        cmocka_unit_test(test_staging_belt_share),
        cmocka_unit_test(test_request_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
#endif
