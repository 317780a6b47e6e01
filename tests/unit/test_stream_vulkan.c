/* SPDX-License-Identifier: MIT */
/* The streaming scheduler on the Vulkan backend (lavapipe, with
 * VK_LAYER_KHRONOS_validation: any warning or error fails the test): the
 * fly-through of test_stream.c, the same pack, profile and camera, over the
 * page store of slc_vulkan_init instead of the host store, inline and with
 * two worker threads. After every frame each resolved span's page holds its
 * chunk's decoded bytes, no validation message was reported and every
 * budget, `cpu/driver` included, is within its limit.
 *
 * On lavapipe's unified memory the pages are read through the pool's
 * mapping, and the eviction log and the frames are the host backend's, bit
 * for bit (test_stream.c's FLY_LOG_HASH and FLY_FRAMES_HASH): the decisions
 * depend neither on the backend nor on when the GPU retires frames (the
 * store refuses begin_frame while two frames are in flight; the frame is
 * begun again once the oldest retires).
 *
 * With the staging belt forced the pages are read through a mapping the
 * test makes of the pool's memory (HOST_VISIBLE on lavapipe), once the
 * copies that carry them have executed; the belt holds the upload cap for
 * every frame a slot stays taken, so the log is again the host backend's
 * (so is the host store behind a wrapper that hides its host addresses, the
 * way a belt does).
 *
 * A staged page's copy goes with the submission slc_stream_end_frame makes
 * of the frame that first hands the page out (its load was applied when
 * that frame began): so it runs before that frame's work (the pinned pages'
 * copies go with frame 1, the pins' own frame). The test
 * waits for that submission and then checks every span handed out: none
 * may be `early` (its bytes not yet on the device). */
#define _POSIX_C_SOURCE 200809L /* setenv; nanosleep in the delaying reader */
#define VK_NO_PROTOTYPES
#include <volk.h>

#include <dlfcn.h>
#include <inttypes.h>

#include "stream_fixture.h"

#include "sluice/vulkan.h"

#define SECOND 1000000000ull
#define FRAMES_IN_FLIGHT 2u
#define MAX_SEGMENTS 4u

/* test_stream.c's fly-through (stream_fixture.h): fly_pack, FLY_FRAMES and
 * the hashes of its eviction log and frames on the host backend. */

#define MAX_SPANS 1024u /* spans of one frame: 64 requests of at most 16 */

/* --- validation messages ---------------------------------------------------- */

#include "vk_messages.h" /* messages, on_message */

#include "vk_test_log.h" /* vk_test_log: what the backend logs, printed, errors counted */

static const char *const validation_layer[] = {"VK_LAYER_KHRONOS_validation"};

/* --- fixture ------------------------------------------------------------------- */

typedef enum backend {
    VULKAN_UNIFIED, /* slc_vulkan_init, placement auto: lavapipe's unified memory, mapped */
    VULKAN_STAGING, /* slc_vulkan_init, SLC_VULKAN_PLACEMENT_STAGING: the belt */
    HOST_BELT       /* the host store, its mapping hidden from the stream as a belt's device memory is */
} backend;

typedef struct params {
    backend backend;
    uint32_t workers;
} params;

static const char *const backend_names[] = {"vulkan, unified", "vulkan, staging belt", "host, as a belt"};

/* A resolved span, kept to be checked once its copy has executed. */
typedef struct kept_span {
    uint32_t chunk;
    uint32_t page;
    slc_page_location location;
} kept_span;

typedef struct fixture {
    params prm;
    sp_pack pack;
    sp_io io;
    slc_profile profile;
    slc_platform_block block;
    slc_memory *mem;
    /* VULKAN_*: the backend, and each segment's bytes as the CPU sees them */
    void *vk_mem;
    slc_vulkan *vk;
    vk_test_log vklog;
    slc_vulkan_info info;
    const struct VolkDeviceTable *d;
    unsigned char *map[MAX_SEGMENTS];
    /* HOST_BELT: the host store, and the wrapper the stream gets */
    unsigned char *host_mem;
    slc_page_store host;
    slc_page_store belt;
    const slc_page_store *store; /* what the stream runs over */
    slc_pack *pk;
    slc_platform_workers workers;
    slc_stream *s;
    capture_log log;
    slc_logger logger;
    capture_log pack_log;
    slc_logger pack_logger;
    uint32_t refusals; /* begin_frame refused with SLC_E_FRAMES_IN_FLIGHT */
    kept_span *kept;   /* the previous frame's spans (VULKAN_STAGING) */
    uint32_t kept_count;
    uint64_t spans; /* spans checked */
    uint64_t early; /* VULKAN_STAGING: spans whose bytes were not on the device yet when handed out */
} fixture;

/* test_stream.c's profile with its `fly` parameters (96 pages of 4 KiB,
 * queue 256, 16 KiB of uploads a frame, the coarsest level pinned, two
 * frames in flight). What differs: `cpu/driver` holds the instance with the
 * validation layer and the device (a peak of about 3.6 MiB on lavapipe),
 * and a staging belt of 64 pages, because pinning writes the 48 pinned
 * chunks through the belt before any frame is submitted; the stream's
 * upload cap, min(upload_per_frame, staging_size / (frames_in_flight +
 * load_frames + 1)) = min(16 KiB, 64 KiB), stays 4 pages. Unified memory
 * uses no belt. */
static void profile_text(char *buf, size_t cap, const params *p)
{
    snprintf(buf, cap,
             "[profile]\nname = stream-vulkan-test\n"
             "[budgets]\ncpu = 24 MiB\ncpu/meta = 2 MiB\ncpu/decode = 1 MiB\ncpu/queues = 1 MiB\ncpu/driver = 16 MiB\n"
             "gpu = 8 MiB\ngpu/pool = 4 MiB\ngpu/staging = 1 MiB\n"
             "[pool]\npage_size = 4 KiB\npage_count = 96\neviction = lru\n"
             "[stream]\nframes_in_flight = %u\nworkers = %u\nqueue_capacity = 256\nstaging_size = 256 KiB\n"
             "upload_per_frame = 16 KiB\npin_coarsest = 1\n"
             "[tables]\nmax_objects = 1024\nmax_chunks = 4096\nmax_lods = 4\nmax_string_bytes = 4 KiB\n",
             FRAMES_IN_FLIGHT, p->workers);
}

static double ms_since(uint64_t t0)
{
    return (double)(slc_platform_now_ns() - t0) / 1e6;
}

/* The page store: a headless instance and device with validation, the pool
 * (and belt) from the profile, charged to the memory's budgets. */
static void open_vulkan(fixture *f)
{
    bool staging = f->prm.backend == VULKAN_STAGING;
    slc_vulkan_desc d;
    memset(&d, 0, sizeof d);
    slc_pool_spec spec;
    slc_pool_spec_from_profile(&f->profile, SLC_POOL_GEOMETRY, &spec);
    slc_vulkan_desc_from_spec(&d, &spec, &f->profile);
    d.placement = staging ? SLC_VULKAN_PLACEMENT_STAGING : SLC_VULKAN_PLACEMENT_AUTO;
    d.budgets = slc_memory_budgets(f->mem);
    d.log = vk_test_logger(&f->vklog);
    d.layers = validation_layer;
    d.layer_count = 1;
    d.debug_callback = on_message;
    size_t size = slc_vulkan_footprint(&d);
    assert_true(size > 0);
    f->vk_mem = aligned_alloc(SLC_VULKAN_ALIGN, (size + SLC_VULKAN_ALIGN - 1u) & ~(size_t)(SLC_VULKAN_ALIGN - 1u));
    assert_non_null(f->vk_mem);
    uint64_t t0 = slc_platform_now_ns();
    slc_status st = slc_vulkan_init(f->vk_mem, size, &d, &f->vk);
    if (st != SLC_OK) {
        fail_msg("slc_vulkan_init: %s", slc_status_name(st));
    }
    printf("%s: slc_vulkan_init (instance, validation layer, device, pool): %.1f ms\n", backend_names[f->prm.backend],
           ms_since(t0));
    slc_vulkan_get_info(f->vk, &f->info);
    f->d = slc_vulkan_get_device_table(f->vk);
    assert_true(f->info.created);
    assert_int_equal(f->info.unified, !staging); /* lavapipe: one DEVICE_LOCAL | HOST_VISIBLE type */
    assert_int_equal(f->info.page_size, 4096);
    assert_int_equal(f->info.page_count, 96);
    assert_int_equal(f->info.frames_in_flight, FRAMES_IN_FLIGHT);
    assert_int_equal(f->info.belt_slots, staging ? 64u : 0u);
    assert_true(f->info.segment_count <= MAX_SEGMENTS);
    /* The pages as the CPU sees them: the backend's mapping, or (the belt)
     * one the test makes of the pool's memory, which is HOST_VISIBLE |
     * HOST_COHERENT on lavapipe too; the backend never maps it then. */
    for (uint32_t i = 0; i < f->info.segment_count; i++) {
        slc_vulkan_segment seg;
        slc_vulkan_get_segment(f->vk, i, &seg);
        void *map = seg.mapped;
        if (staging) {
            assert_null(map);
            assert_int_equal(f->d->vkMapMemory(f->info.device, seg.memory, 0, VK_WHOLE_SIZE, 0, &map), VK_SUCCESS);
        }
        assert_non_null(map);
        f->map[i] = map;
    }
    f->store = slc_vulkan_get_store(f->vk);
}

/* The host store's pages, charged to gpu/pool, behind the belt wrapper
 * (sfx_belt_wrap: its pages have no host address, so the stream counts its
 * uploads in whole pages; everything else is the host store's). */
static void open_host_belt(fixture *f)
{
    slc_arena *arena;
    (void)sff_host_store_init(f->mem, 96, 4096, &f->host_mem, &arena, &f->host);
    sfx_belt_wrap(&f->host, &f->belt);
    f->store = &f->belt;
}

static void fx_open(fixture *f, const params *p)
{
    memset(f, 0, sizeof *f);
    atomic_store(&messages, 0);
    f->prm = *p;
    sp_build(&f->pack, &fly_pack);
    sp_io_init(&f->io, &f->pack);
    char text[2048];
    profile_text(text, sizeof text, p);
    sfx_profile_parse(text, "stream-vulkan-test.profile", &f->profile);
    sff_memory_map(&f->profile, &f->block, &f->mem);
    if (p->backend == HOST_BELT) {
        open_host_belt(f);
    } else {
        open_vulkan(f);
    }
    f->kept = calloc(MAX_SPANS, sizeof *f->kept);
    assert_non_null(f->kept);
    f->pack_logger = capture_logger(&f->pack_log);
    sfx_pack_open(f->mem, &f->io.io, &f->profile, &f->pack_logger, &f->pk);
    f->logger = capture_logger(&f->log);
}

static void fx_create(fixture *f)
{
    slc_stream_desc d;
    memset(&d, 0, sizeof d);
    d.profile = &f->profile;
    d.memory = f->mem;
    d.pack = f->pk;
    d.stores[SLC_POOL_GEOMETRY] = f->store;
    d.now_ns = sfx_clock_ns;
    d.log = &f->logger;
    sfx_stream_start(&d, f->prm.workers, &f->workers, &f->log, &f->s);
}

static void fx_close(fixture *f)
{
    if (f->prm.workers > 0 && f->s != NULL) {
        slc_platform_workers_stop(&f->workers);
    }
    slc_stream_destroy(f->s);
    slc_pack_close(f->pk);
    if (f->vk != NULL) {
        if (f->prm.backend == VULKAN_STAGING) {
            for (uint32_t i = 0; i < f->info.segment_count; i++) {
                slc_vulkan_segment seg;
                slc_vulkan_get_segment(f->vk, i, &seg);
                f->d->vkUnmapMemory(f->info.device, seg.memory);
            }
        }
        slc_vulkan_deinit(f->vk);
        free(f->vk_mem);
        assert_int_equal(f->vklog.errors, 0);
        assert_int_equal(f->vklog.leaks, 0);
        /* every byte the backend charged is given back */
        static const char *const charged[] = {"cpu/driver", "gpu/pool", "gpu/staging"};
        for (size_t i = 0; i < sizeof charged / sizeof charged[0]; i++) {
            slc_budget_id id;
            slc_budget_stats bs;
            assert_int_equal(slc_budgets_scan(slc_memory_budgets(f->mem), charged[i], &id), SLC_OK);
            slc_budgets_get(slc_memory_budgets(f->mem), id, &bs);
            if (bs.current != 0) {
                fail_msg("budget %s still holds %" PRIu64 " bytes", bs.name, bs.current);
            }
        }
    }
    free(f->host_mem);
    free(f->kept);
    slc_memory_deinit(f->mem);
    slc_platform_block_unmap(&f->block);
    sp_free(&f->pack);
    assert_int_equal(atomic_load(&messages), 0);
}

static slc_budget_stats budget_named(fixture *f, const char *name)
{
    slc_budget_id id;
    slc_budget_stats bs;
    assert_int_equal(slc_budgets_scan(slc_memory_budgets(f->mem), name, &id), SLC_OK);
    slc_budgets_get(slc_memory_budgets(f->mem), id, &bs);
    return bs;
}

/* Whether a page holds the chunk's decoded bytes, read as the CPU sees the
 * page. */
static bool page_holds(fixture *f, const slc_page_location *loc, uint32_t page, uint32_t chunk)
{
    const unsigned char *p;
    if (f->prm.backend == HOST_BELT) {
        assert_null(loc->host);
        slc_page_location host;
        f->host.ops->locate(f->host.self, page, &host);
        p = host.host;
    } else {
        assert_true(loc->segment < f->info.segment_count);
        p = f->map[loc->segment] + loc->offset;
        if (f->prm.backend == VULKAN_STAGING) {
            assert_null(loc->host); /* device memory the store does not map */
        } else {
            assert_ptr_equal(loc->host, p);
        }
    }
    assert_non_null(p);
    return XXH3_64bits(p, f->pack.decoded_size[chunk]) == f->pack.decoded_xxh3[chunk];
}

/* The spans kept from the previous frame, now that every copy submitted
 * before that frame's work would have run has executed. */
static void check_kept(fixture *f, uint64_t frame)
{
    for (uint32_t i = 0; i < f->kept_count; i++) {
        const kept_span *k = &f->kept[i];
        if (!page_holds(f, &k->location, k->page, k->chunk)) {
            fail_msg("frame %" PRIu64 ": chunk %u: page %u holds other bytes once its copy has executed", frame,
                     k->chunk, k->page);
        }
    }
    f->kept_count = 0;
}

/* A span of the ended frame: its page holds its chunk's decoded bytes
 * (VULKAN_STAGING: counted in early when they are not there yet, and kept
 * for check_kept). */
static void span_holds(void *user, const slc_stream_span *span, uint64_t frame)
{
    fixture *f = user;
    uint32_t chunk = span->chunk.index;
    f->spans++;
    bool holds = page_holds(f, &span->location, span->page.index, chunk);
    if (f->prm.backend == VULKAN_STAGING) {
        f->early += holds ? 0u : 1u;
        assert_true(f->kept_count < MAX_SPANS);
        f->kept[f->kept_count++] = (kept_span){chunk, span->page.index, span->location};
    } else if (!holds) {
        fail_msg("frame %" PRIu64 ": chunk %u: page %u holds other bytes", frame, chunk, span->page.index);
    }
}

/* Checks every result of the ended frame (sfx_check_results: the LOD, the
 * spans, each span's page by span_holds). Returns the number of holes. */
static uint32_t check_results(fixture *f)
{
    return sfx_check_results(f->s, f->pk, span_holds, f);
}

/* Begins frame t. The Vulkan store refuses a frame while frames_in_flight
 * frames are not retired (the host store never does: it retires at
 * submit); the stream then changed nothing but the submit, so wait for the
 * oldest and begin again. When frames retire decides how long the caller
 * waits, never what the frame does. */
static void begin(fixture *f, uint64_t t)
{
    uint64_t frame = 0;
    slc_status st;
    while ((st = slc_stream_begin_frame(f->s, &frame)) == SLC_E_FRAMES_IN_FLIGHT) {
        assert_non_null(f->vk);
        f->refusals++;
        slc_pool_stats ps;
        slc_pool_get_stats(slc_stream_pool(f->s), &ps);
        assert_true(ps.submitted >= FRAMES_IN_FLIGHT);
        assert_int_equal(slc_vulkan_wait_frame(f->vk, ps.submitted + 1u - FRAMES_IN_FLIGHT, 10 * SECOND), SLC_OK);
    }
    assert_int_equal(st, SLC_OK);
    assert_int_equal(frame, t);
}

/* With the belt, the copies for the pages frame t hands out go with frame
 * t's own submission, made by its end_frame, ahead of the frame's work:
 * wait for it (as the frame's work would), then check what frame t - 1
 * handed out once more. */
static void settle_belt(fixture *f, uint64_t t)
{
    if (f->prm.backend != VULKAN_STAGING || t < 2) {
        return;
    }
    assert_int_equal(slc_vulkan_wait_frame(f->vk, t, 10 * SECOND), SLC_OK);
    check_kept(f, t - 1u);
}

static void run_trace(fixture *f, uint32_t frames, sfx_trace_result *out)
{
    memset(out, 0, sizeof *out);
    uint64_t t0 = slc_platform_now_ns();
    const slc_pack_header *h = slc_pack_get_header(f->pk);
    for (uint32_t t = 1; t <= frames; t++) {
        uint64_t frame = t + 1u; /* frame 1 wrote the pinned chunks */
        begin(f, frame);
        slc_stream_object_request req[64];
        uint32_t n = sfx_camera_requests(t, h->object_count, req, 64);
        for (uint32_t i = 0; i < n; i++) {
            assert_int_equal(slc_stream_request(f->s, &req[i]), SLC_OK);
        }
        assert_int_equal(slc_stream_end_frame(f->s), SLC_OK);
        settle_belt(f, frame);
        assert_int_equal(check_results(f), 0); /* pinned coarsest levels: never a hole */
        out->frames_hash = sfx_hash_results(f->s, out->frames_hash);
        slc_stream_frame_stats fs;
        assert_int_equal(slc_stream_walk_telemetry(f->s, &fs, 1), 1);
        assert_int_equal(fs.frame, frame);
        out->frames_hash = sfx_hash_frame_stats(out->frames_hash, &fs);
        assert_true(slc_stream_check(f->s));
        sfx_assert_budgets_hold(f->mem);
        if (atomic_load(&messages) != 0) {
            fail_msg("frame %u: %d validation message(s)", t, atomic_load(&messages));
        }
    }
    out->ms = ms_since(t0);
    slc_pool_stats ps;
    slc_pool_get_stats(slc_stream_pool(f->s), &ps);
    out->log_hash = ps.log_hash;
    out->log_count = ps.log_count;
    slc_stream_get_stats(f->s, &out->stats);
    /* The last frame's copies go with its submit, made by one more frame. */
    if (f->prm.backend == VULKAN_STAGING) {
        begin(f, frames + 2u);
        assert_int_equal(slc_stream_end_frame(f->s), SLC_OK);
        settle_belt(f, frames + 2u);
    }
}

/* --- the fly-through ------------------------------------------------------------ */

static void fly_through(const params *p)
{
    char what[64];
    snprintf(what, sizeof what, "%s, %u worker(s)", backend_names[p->backend], p->workers);
    fixture f;
    fx_open(&f, p);
    fx_create(&f);
    slc_stream_stats st;
    slc_stream_get_stats(f.s, &st);
    assert_int_equal(st.pinned_chunks, 48);
    assert_int_equal(st.upload_cap_pages, 4); /* 16 KiB of 4 KiB pages, the belt's share too */
    assert_int_equal(st.workers, p->workers);
    sfx_trace_result r;
    run_trace(&f, FLY_FRAMES, &r);

    printf("%s: %u frames in %.1f ms; %" PRIu64 " loads, %" PRIu64 " evictions, %" PRIu64 " deferred, %" PRIu64
           " fallbacks; begin_frame refused %u time(s) (frames in flight); %" PRIu64 " spans checked\n",
           what, FLY_FRAMES, r.ms, r.stats.loads_completed, r.stats.evictions, r.stats.deferred, r.stats.fallbacks,
           f.refusals, f.spans);
    printf("%s: log %" PRIu64 " entries, hash 0x%016" PRIx64 "; frames hash 0x%016" PRIx64 "\n", what, r.log_count,
           r.log_hash, r.frames_hash);

    /* the scene streamed as on the host backend */
    assert_true(r.stats.loads_completed > 300);
    assert_true(r.stats.evictions > 200);
    assert_true(r.stats.deferred > 0);
    assert_int_equal(r.stats.holes, 0);
    assert_int_equal(r.stats.failures, 0);
    assert_int_equal(r.stats.refused, 0);
    if (p->workers == 0) {
        assert_int_equal(r.stats.worker_loads, 0);
        assert_int_equal(r.stats.caller_loads, r.stats.loads_started);
    } else {
        assert_true(r.stats.worker_loads + r.stats.caller_loads >= r.stats.loads_completed);
    }
    /* Mapped pages, a staging belt, the host store: the same decisions. */
    assert_int_equal(r.log_count, FLY_LOG_COUNT);
    assert_int_equal(r.log_hash, FLY_LOG_HASH);
    assert_int_equal(r.frames_hash, FLY_FRAMES_HASH);

    if (f.vk != NULL) {
        /* the backend's side: what it charged, what it copied */
        slc_vulkan_stats vs;
        slc_vulkan_get_stats(f.vk, &vs);
        slc_budget_stats driver = budget_named(&f, "cpu/driver");
        slc_budget_stats pool = budget_named(&f, "gpu/pool");
        slc_budget_stats staging = budget_named(&f, "gpu/staging");
        printf("%s: %" PRIu64 " frames submitted, %" PRIu64 " copies (%" PRIu64 " bytes), belt full %" PRIu64
               "; cpu/driver peak %" PRIu64 " of %" PRIu64 ", gpu/pool %" PRIu64 ", gpu/staging %" PRIu64 "\n",
               what, vs.frames_submitted, vs.copies, vs.bytes_copied, vs.belt_full, driver.peak, driver.limit,
               pool.peak, staging.peak);
        assert_int_equal(driver.peak, vs.driver_peak);
        assert_true(driver.peak > 0 && driver.peak <= driver.limit);
        assert_int_equal(pool.current, 96u * 4096u);
        assert_int_equal(staging.current, p->backend == VULKAN_STAGING ? 64u * 4096u : 0u);
        assert_int_equal(vs.belt_full, 0); /* the upload cap keeps the belt from filling */
        /* VK_EXT_debug_utils (the loader offers it): each segment's buffer
         * and memory named, and the belt's; each submission of copies
         * labelled "sluice upload". */
        uint32_t named = 2u * f.info.segment_count + (p->backend == VULKAN_STAGING ? 2u : 0u);
        assert_int_equal(vs.debug_names, named);
        if (p->backend == VULKAN_STAGING) {
            /* The pins, then every load applied, up to the settling frame. */
            slc_stream_stats now;
            slc_stream_get_stats(f.s, &now); /* with the loads the settling frame applied */
            assert_int_equal(vs.copies, 48u + now.loads_completed);
            assert_int_equal(vs.frames_submitted, FLY_FRAMES + 2u); /* the pins', the trace's and the settling frame */
            /* Every staged page's copy ran before the frame that read it. */
            assert_int_equal(f.early, 0);
            assert_true(vs.debug_labels > 0 && vs.debug_labels <= vs.frames_submitted);
        } else {
            assert_int_equal(vs.copies, 0);
            assert_int_equal(vs.debug_labels, 0);
            assert_int_equal(vs.frames_submitted, FLY_FRAMES + 1u); /* the pins' frame and the trace's 400 */
        }
    }
    fx_close(&f);
}

static void test_fly_through_unified_inline(void **state)
{
    (void)state;
    fly_through(&(params){VULKAN_UNIFIED, 0});
}

static void test_fly_through_unified_two_workers(void **state)
{
    (void)state;
    fly_through(&(params){VULKAN_UNIFIED, 2});
}

/* The belt's decisions come from the stream, not the backend: the host
 * store without its mapping makes them too. */
static void test_fly_through_host_as_a_belt(void **state)
{
    (void)state;
    fly_through(&(params){HOST_BELT, 0});
}

static void test_fly_through_staging_inline(void **state)
{
    (void)state;
    fly_through(&(params){VULKAN_STAGING, 0});
}

static void test_fly_through_staging_two_workers(void **state)
{
    (void)state;
    fly_through(&(params){VULKAN_STAGING, 2});
}

int main(void)
{
    /* As test_vulkan.c: lavapipe only, no Mesa device-select layer, the
     * validation layer kept loaded for the whole run (tsan-vulkan.supp's
     * called_from_lib needs that), synchronization validation on; ctest
     * sets these too. */
    setenv("VK_DRIVER_FILES", SLUICE_LVP_ICD, 0);
    setenv("NODEVICE_SELECT", "1", 0);
    (void)dlopen("libVkLayer_khronos_validation.so", RTLD_NOW | RTLD_NODELETE);
    setenv("VK_LAYER_ENABLES", "VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT", 0);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fly_through_unified_inline),      cmocka_unit_test(test_fly_through_unified_two_workers),
        cmocka_unit_test(test_fly_through_host_as_a_belt),      cmocka_unit_test(test_fly_through_staging_inline),
        cmocka_unit_test(test_fly_through_staging_two_workers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
