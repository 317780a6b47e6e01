/* SPDX-License-Identifier: MIT */
/* Soak: the streaming scheduler on the host backend for a long time, with a
 * wandering camera over a pack several times larger than the pool.
 *
 * 4 KiB pages; a generated pack (stream_pack.h) of 256 objects of three
 * LODs, 2304 chunks, over a pool of 384 pages of which the pinned coarsest
 * levels take 256; 2 worker threads (the platform's); no fault. The camera
 * is a seeded random walk along the objects' line with an occasional
 * teleport; each frame asks for the objects near it, the LOD and priority
 * by distance. The run lasts SLUICE_SOAK_FRAMES frames (environment; 20000
 * when unset, which the test command runs in seconds; docs/building.md gives the
 * long run), and is made twice in the same process. It checks:
 *   - no growth: every budget's use as each frame ended (the telemetry
 *     record of that frame, read right after end_frame, since the ring
 *     keeps only the newest frames) has its maximum over the last 10% of
 *     the frames and its final value at most its maximum over the first
 *     10%;
 *   - no reservation refused on any budget, no request refused, no load
 *     failed, no hole (the pinned levels always resolve);
 *   - slc_stream_check, slc_pool_check and slc_budgets_check every 1000
 *     frames and at the end;
 *   - the second run's eviction log (hash and length) and per-frame
 *     results are the first run's.
 * It prints frames/s and the hashes. */
#define _POSIX_C_SOURCE 200809L /* nanosleep in stream_pack.h */
#include <inttypes.h>

#include "stream_fixture.h"

enum { PAGE_SIZE = 4096, PAGES = 384, WORKERS = 2, OBJECTS = 256, CHECK_EVERY = 1000, DEFAULT_FRAMES = 20000 };

static const char profile_text[] = "[profile]\nname = soak\n"
                                   "[budgets]\ncpu = 8 MiB\ncpu/meta = 2 MiB\ncpu/decode = 1 MiB\ncpu/queues = 1 MiB\n"
                                   "cpu/driver = 1 MiB\ngpu = 8 MiB\ngpu/pool = 4 MiB\ngpu/staging = 1 MiB\n"
                                   "[pool]\npage_size = 4 KiB\npage_count = 384\neviction = lru\n"
                                   "[stream]\nframes_in_flight = 2\nworkers = 2\nqueue_capacity = 256\n"
                                   "staging_size = 0 B\nupload_per_frame = 16 KiB\npin_coarsest = 1\n"
                                   "[tables]\nmax_objects = 1024\nmax_chunks = 4096\nmax_lods = 4\n"
                                   "max_string_bytes = 4 KiB\n";

static const sp_params pack_params = {PAGE_SIZE, OBJECTS, 3, {6, 2, 1}, 7};

typedef struct soak_result {
    uint64_t log_hash, log_count, frames_hash;
    uint64_t loads, evictions, deferred, fallbacks;
    double seconds;
} soak_result;

static slc_platform_workers workers; /* must not move while started */

static uint32_t soak_frames(void)
{
    const char *env = getenv("SLUICE_SOAK_FRAMES");
    if (env == NULL || *env == '\0') {
        return DEFAULT_FRAMES;
    }
    char *end = NULL;
    unsigned long n = strtoul(env, &end, 10);
    if (*end != '\0' || n < 10 || n > 100000000ul) {
        fail_msg("SLUICE_SOAK_FRAMES='%s': expected a frame count in 10..100000000", env);
    }
    return (uint32_t)n;
}

/* The camera: a random walk along the line of objects (10 units apart),
 * up to 7 units a frame, turning at its ends, with a teleport about once
 * in 150 frames. */
typedef struct camera {
    uint64_t rng;
    int32_t x, span;
} camera;

static uint32_t camera_requests(camera *c, slc_stream_object_request *out, uint32_t cap)
{
    uint64_t r = sp_next(&c->rng);
    if (r % 150u == 0) {
        c->x = (int32_t)((r >> 20) % (uint64_t)c->span);
    } else {
        c->x += (int32_t)((r >> 12) % 15u) - 7;
        c->x = c->x < 0 ? -c->x : c->x >= c->span ? 2 * (c->span - 1) - c->x : c->x;
    }
    uint32_t n = 0;
    for (int32_t o = 0; o * 10 < c->span && n < cap; o++) {
        int32_t d = o * 10 + 4 - c->x;
        d = d < 0 ? -d : d;
        if (d > 60) {
            continue;
        }
        out[n].object.index = (uint32_t)o;
        out[n].lod = (uint8_t)(d < 15 ? 0 : d < 35 ? 1 : 2);
        out[n].priority = (uint8_t)(255 - d);
        out[n].partition.index = 0;
        n++;
    }
    return n;
}

static void soak_run(const slc_profile *profile, const sp_pack *pack, uint32_t frames, soak_result *out)
{
    memset(out, 0, sizeof *out);
    sp_io io;
    sp_io_init(&io, pack);
    slc_platform_block block;
    slc_memory *mem = NULL;
    sff_memory_map(profile, &block, &mem);
    slc_budgets *b = slc_memory_budgets(mem);
    unsigned char *store_mem;
    slc_arena *store_arena;
    slc_page_store store;
    slc_arena_mark store_mark = sff_host_store_init(mem, PAGES, PAGE_SIZE, &store_mem, &store_arena, &store);
    slc_arena *meta;
    assert_int_equal(slc_memory_scan_arena(mem, "cpu/meta", &meta), SLC_OK);
    capture_log log;
    slc_logger logger = capture_logger(&log);
    slc_pack *pk = NULL;
    assert_int_equal(slc_pack_open(&io.io, "soak.pack", profile, meta, &logger, &pk), SLC_OK);

    slc_stream_desc d;
    memset(&d, 0, sizeof d);
    d.profile = profile;
    d.memory = mem;
    d.pack = pk;
    d.stores[SLC_POOL_GEOMETRY] = &store;
    d.log = &logger;
    slc_stream *s = NULL;
    sfx_stream_start(&d, WORKERS, &workers, &log, &s);

    /* Per budget: the maximum over the first and the last 10% of the
     * frames, and the last value. */
    uint32_t nb = profile->budget_count;
    uint64_t first_max[SLC_PROFILE_BUDGET_MAX] = {0}, last_max[SLC_PROFILE_BUDGET_MAX] = {0};
    uint64_t final[SLC_PROFILE_BUDGET_MAX] = {0};
    uint32_t tenth = frames / 10u;
    camera cam = {0x9E3779B97F4A7C15ull, 0, OBJECTS * 10};
    uint64_t t0 = slc_platform_now_ns();
    for (uint32_t t = 0; t < frames; t++) {
        assert_int_equal(slc_stream_begin_frame(s, NULL), SLC_OK);
        slc_stream_object_request rq[64];
        uint32_t n = camera_requests(&cam, rq, 64);
        for (uint32_t i = 0; i < n; i++) {
            assert_int_equal(slc_stream_request(s, &rq[i]), SLC_OK);
        }
        assert_int_equal(slc_stream_end_frame(s), SLC_OK);
        out->frames_hash = sfx_hash_results(s, out->frames_hash);
        slc_stream_frame_stats fs;
        assert_int_equal(slc_stream_walk_telemetry(s, &fs, 1), 1);
        if (fs.refused != 0 || fs.holes != 0 || fs.failures != 0) {
            fail_msg("frame %" PRIu64 ": %u requests refused, %u holes, %u failed loads", fs.frame, fs.refused,
                     fs.holes, fs.failures);
        }
        out->frames_hash = sfx_mix(out->frames_hash, (uint64_t)fs.loads_started << 32 | fs.evictions);
        assert_int_equal(fs.budget_count, nb);
        for (uint32_t i = 0; i < nb; i++) {
            if (t < tenth && fs.budgets[i] > first_max[i]) {
                first_max[i] = fs.budgets[i];
            }
            if (t >= frames - tenth && fs.budgets[i] > last_max[i]) {
                last_max[i] = fs.budgets[i];
            }
            final[i] = fs.budgets[i];
        }
        if ((t + 1u) % CHECK_EVERY == 0 || t + 1u == frames) {
            assert_true(slc_stream_check(s));
            assert_true(slc_pool_check(slc_stream_pool(s)));
            assert_true(slc_budgets_check(b));
        }
    }
    out->seconds = (double)(slc_platform_now_ns() - t0) / 1e9;

    for (uint32_t i = 0; i < nb; i++) {
        if (last_max[i] > first_max[i] || final[i] > first_max[i]) {
            fail_msg("budget %s grew: at most %" PRIu64 " bytes in the first 10%% of the frames, %" PRIu64
                     " in the last 10%%, %" PRIu64 " at the end",
                     profile->budgets[i].name, first_max[i], last_max[i], final[i]);
        }
    }
    slc_budget_stats bs[SLC_BUDGET_MAX];
    size_t count = slc_budgets_walk_report(b, bs, SLC_BUDGET_MAX);
    for (size_t i = 0; i < count; i++) {
        if (bs[i].refused != 0 || bs[i].peak > bs[i].limit) {
            fail_msg("budget %s: %" PRIu64 " reservations refused, peak %" PRIu64 " of %" PRIu64, bs[i].name,
                     bs[i].refused, bs[i].peak, bs[i].limit);
        }
    }
    slc_stream_stats ss;
    slc_stream_get_stats(s, &ss);
    assert_int_equal(ss.refused, 0);
    assert_int_equal(ss.failures, 0);
    assert_int_equal(ss.holes, 0);
    out->loads = ss.loads_completed;
    out->evictions = ss.evictions;
    out->deferred = ss.deferred;
    out->fallbacks = ss.fallbacks;
    slc_pool_stats ps;
    slc_pool_get_stats(slc_stream_pool(s), &ps);
    out->log_hash = ps.log_hash;
    out->log_count = ps.log_count;

    slc_platform_workers_stop(&workers);
    slc_stream_destroy(s);
    slc_pack_close(pk);
    slc_arena_reset(store_arena, store_mark);
    sff_assert_budgets_released(mem);
    slc_memory_deinit(mem);
    slc_platform_block_unmap(&block);
    free(store_mem);
}

static void test_soak_streams_without_growth_and_repeats(void **state)
{
    (void)state;
    uint32_t frames = soak_frames();
    slc_profile profile;
    sfx_profile_parse(profile_text, "soak.profile", &profile);
    sp_pack pack;
    sp_build(&pack, &pack_params);
    assert_true(pack.chunk_count >= 6u * PAGES); /* the pool is far smaller than the pack */
    soak_result r[2];
    for (int k = 0; k < 2; k++) {
        soak_run(&profile, &pack, frames, &r[k]);
        printf("soak run %d: %" PRIu32 " frames in %.2f s, %.0f frames/s; %" PRIu64 " loads, %" PRIu64
               " evictions, %" PRIu64 " deferred, %" PRIu64 " fallbacks; log %" PRIu64 " entries, hash 0x%016" PRIx64
               "; frames hash 0x%016" PRIx64 "\n",
               k + 1, frames, r[k].seconds, (double)frames / r[k].seconds, r[k].loads, r[k].evictions, r[k].deferred,
               r[k].fallbacks, r[k].log_count, r[k].log_hash, r[k].frames_hash);
        fflush(stdout);
    }
    assert_true(r[0].loads > frames / 10u && r[0].evictions > 0);
    assert_int_equal(r[1].log_count, r[0].log_count);
    assert_int_equal(r[1].log_hash, r[0].log_hash);
    assert_int_equal(r[1].frames_hash, r[0].frames_hash);
    sp_free(&pack);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_soak_streams_without_growth_and_repeats),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
