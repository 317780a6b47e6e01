/* SPDX-License-Identifier: MIT */
/* Image quality under a budget (tools/quality.c): the luminance PSNR and the
 * share of pixels over the threshold of small synthetic images, exactly;
 * the series' minimum, worst frame (the earliest on a tie), percentiles and
 * bounded points; the summary line and the floor's message; the reference
 * profile's fields for a small pack, a stream created on it pinning every
 * chunk and serving every request at its level, and each refusal's message;
 * the JSON and SVG with a pack name full of quotes and markup; the run
 * timeline's PSNR row (tools/run_outputs.c). */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "quality.h"
#include "run_outputs.h"
#include "stream_fixture.h"

/* --- images ----------------------------------------------------------------------------- */

#define IMG_W 4u
#define IMG_H 3u
#define IMG_STRIDE (IMG_W * 4u + 8u) /* rows padded: the stride is honoured */

typedef struct img {
    uint8_t px[IMG_H * IMG_STRIDE];
    quality_image q;
} img;

static void img_fill(img *m, uint32_t w, uint32_t h, uint8_t grey)
{
    memset(m->px, 0xEE, sizeof m->px); /* padding that would change every figure if it were read */
    for (uint32_t y = 0; y < h; y++) {
        for (uint32_t x = 0; x < w; x++) {
            uint8_t *p = &m->px[y * IMG_STRIDE + x * 4u];
            p[0] = p[1] = p[2] = grey;
            p[3] = 255;
        }
    }
    m->q = (quality_image){w, h, IMG_STRIDE, m->px};
}

static uint8_t *img_at(img *m, uint32_t x, uint32_t y)
{
    return &m->px[y * IMG_STRIDE + x * 4u];
}

static void img_set(img *m, uint32_t x, uint32_t y, uint8_t r, uint8_t g, uint8_t b)
{
    uint8_t *p = img_at(m, x, y);
    p[0] = r;
    p[1] = g;
    p[2] = b;
}

static void test_compare_known_psnr(void **state)
{
    (void)state;
    img a, b;
    img_fill(&a, 2, 2, 100);
    img_fill(&b, 2, 2, 100);
    img_set(&b, 1, 1, 116, 116, 116); /* one of four pixels 16 levels off: MSE 256 / 4 = 64 */
    quality_frame f = {0};
    assert_int_equal(quality_compare(&a.q, &b.q, 8, &f), 0);
    assert_true(fabs(f.psnr_db - 10.0 * log10(255.0 * 255.0 / 64.0)) < 1e-9); /* 30.0688 dB */
    assert_int_equal(f.pixels, 4);
    assert_int_equal(f.over, 1);
    assert_true(f.share == 0.25);
}

static void test_compare_identical_is_inf(void **state)
{
    (void)state;
    img a, b;
    img_fill(&a, IMG_W, IMG_H, 37);
    img_fill(&b, IMG_W, IMG_H, 37);
    img_at(&b, 2, 1)[3] = 0; /* alpha is not compared */
    quality_frame f = {0};
    assert_int_equal(quality_compare(&a.q, &b.q, 0, &f), 0);
    assert_true(isinf(f.psnr_db) && f.psnr_db > 0);
    assert_int_equal(f.over, 0);
    assert_true(f.share == 0.0);
    char buf[16];
    assert_string_equal(quality_db(f.psnr_db, buf, sizeof buf), "inf");
}

static void test_compare_one_pixel_black_on_white_is_zero_db(void **state)
{
    (void)state;
    img a, b;
    img_fill(&a, 1, 1, 255);
    img_fill(&b, 1, 1, 0);
    quality_frame f = {0};
    assert_int_equal(quality_compare(&a.q, &b.q, 8, &f), 0);
    assert_true(f.psnr_db == 0.0); /* MSE 255^2: the worst there is */
    assert_true(f.share == 1.0);
    /* one pixel off by one level in IMG_W x IMG_H: MSE 1/12 */
    img_fill(&a, IMG_W, IMG_H, 200);
    img_fill(&b, IMG_W, IMG_H, 200);
    img_set(&b, 3, 2, 201, 201, 201);
    assert_int_equal(quality_compare(&a.q, &b.q, 0, &f), 0);
    assert_true(fabs(f.psnr_db - 10.0 * log10(255.0 * 255.0 * 12.0)) < 1e-9);
    assert_int_equal(f.over, 1); /* 1 > 0 */
    char buf[16];
    assert_string_equal(quality_db(f.psnr_db, buf, sizeof buf), "58.92");
}

static void test_compare_threshold_edges(void **state)
{
    (void)state;
    img a, b;
    img_fill(&a, IMG_W, IMG_H, 100);
    img_fill(&b, IMG_W, IMG_H, 100);
    img_set(&b, 0, 0, 108, 108, 108); /* exactly 8: not over */
    img_set(&b, 1, 0, 109, 109, 109); /* 9: over */
    img_set(&b, 2, 0, 92, 92, 92);    /* -8: not over */
    img_set(&b, 3, 0, 91, 91, 91);    /* -9: over */
    img_set(&b, 0, 1, 138, 100, 100); /* red +38: luma +8.0788: over */
    img_set(&b, 1, 1, 137, 100, 100); /* red +37: luma +7.8662: not over */
    img_set(&b, 2, 1, 100, 100, 211); /* blue +111: luma +8.0142: over */
    img_set(&b, 3, 1, 100, 100, 210); /* blue +110: luma +7.942: not over */
    quality_frame f = {0};
    assert_int_equal(quality_compare(&a.q, &b.q, 8, &f), 0);
    assert_int_equal(f.over, 4);
    assert_int_equal(f.pixels, IMG_W * IMG_H);
    assert_true(f.share == 4.0 / 12.0);
    assert_int_equal(quality_compare(&a.q, &b.q, 9, &f), 0);
    assert_int_equal(f.over, 0);
    assert_int_equal(quality_compare(&a.q, &b.q, 0, &f), 0);
    assert_int_equal(f.over, 8);
}

static void test_compare_refuses_sizes_that_differ(void **state)
{
    (void)state;
    img a, b;
    img_fill(&a, IMG_W, IMG_H, 1);
    img_fill(&b, IMG_W - 1u, IMG_H, 1);
    quality_frame f = {.frame = 77, .psnr_db = 1.5};
    assert_int_equal(quality_compare(&a.q, &b.q, 8, &f), -1);
    img_fill(&b, IMG_W, 0, 1);
    img_fill(&a, IMG_W, 0, 1);
    assert_int_equal(quality_compare(&a.q, &b.q, 8, &f), -1);
    assert_int_equal(f.frame, 77);
    assert_true(f.psnr_db == 1.5);
}

/* --- the series -------------------------------------------------------------------------- */

static quality_series series; /* 160 KiB: off the stack */

static void add(uint32_t frame, double db, double share)
{
    quality_frame f = {.frame = frame, .psnr_db = db, .share = share};
    quality_series_add(&series, &f);
}

static void test_series_percentiles_of_a_known_series(void **state)
{
    (void)state;
    quality_series_init(&series);
    /* 20 frames: 30.00, 30.25, ..., 34.75 dB, in a shuffled order (7 is prime to 20) */
    for (uint32_t k = 0; k < 20; k++) {
        uint32_t i = (k * 7u) % 20u;
        add(k, 30.0 + 0.25 * i, 0.0);
    }
    quality_summary q;
    quality_series_summarise(&series, &q);
    assert_int_equal(q.frames, 20);
    assert_true(q.min_db == 30.0);
    assert_int_equal(q.worst_frame, 0);
    assert_true(q.p5_db == 30.0);      /* rank 1 */
    assert_true(q.median_db == 32.25); /* rank 10: 30 + 9 x 0.25 */
    assert_true(quality_series_percentile(&series, 100) == 34.75);
    assert_true(quality_series_percentile(&series, 90) == 34.25); /* rank 18 */
    /* within a bin: never above the exact value, at most 0.01 dB below */
    quality_series_init(&series);
    add(0, 41.2345, 0);
    add(1, 40.1234, 0);
    add(2, 40.1299, 0);
    double med = quality_series_percentile(&series, 50); /* rank 2: 40.1299 */
    assert_true(med <= 40.1299 && med > 40.1299 - 0.01);
    assert_true(quality_series_percentile(&series, 5) == 40.1234); /* clamped to the exact minimum */
    quality_series_init(&series);
    assert_true(quality_series_percentile(&series, 50) == 0);
}

static void test_series_worst_frame_ties_to_the_earliest(void **state)
{
    (void)state;
    quality_series_init(&series);
    add(0, 40, 0.01);
    add(1, 25, 0.02);
    add(2, 33, 0.05);
    add(3, 25, 0.05);
    add(4, INFINITY, 0);
    quality_summary q;
    quality_series_summarise(&series, &q);
    assert_true(q.min_db == 25);
    assert_int_equal(q.worst_frame, 1);
    assert_true(q.max_share == 0.05);
    assert_int_equal(q.max_share_frame, 2);
    assert_int_equal(series.inf_count, 1);
}

static void test_series_identical_frames(void **state)
{
    (void)state;
    quality_series_init(&series);
    for (uint32_t k = 0; k < 5; k++) {
        add(k, INFINITY, 0);
    }
    quality_summary q;
    quality_series_summarise(&series, &q);
    assert_true(isinf(q.min_db) && isinf(q.p5_db) && isinf(q.median_db));
    assert_int_equal(q.worst_frame, 0);
    char line[256];
    quality_format_summary(&q, line, sizeof line);
    assert_string_equal(line, "quality: PSNR min inf dB (frame 0), p5 inf dB, median inf dB; pixels over threshold: "
                              "max 0.00% (frame 0)");
    /* 3 finite frames of 10: the median (rank 5) is an identical frame */
    quality_series_init(&series);
    for (uint32_t k = 0; k < 10; k++) {
        add(k, k % 3u == 1u && k < 8u ? 20.0 + k : INFINITY, 0);
    }
    quality_series_summarise(&series, &q);
    assert_true(q.min_db == 21.0);
    assert_int_equal(q.worst_frame, 1);
    assert_true(q.p5_db == 21.0);
    assert_true(isinf(q.median_db));
    assert_true(quality_series_percentile(&series, 30) == 27.0); /* rank 3 */
}

static void test_series_summary_line(void **state)
{
    (void)state;
    quality_series_init(&series);
    add(0, 44.5, 0.001);
    add(1, 31.25, 0.0725);
    add(2, 38.0, 0.01);
    quality_summary q;
    quality_series_summarise(&series, &q);
    char line[256];
    quality_format_summary(&q, line, sizeof line);
    assert_string_equal(line, "quality: PSNR min 31.25 dB (frame 1), p5 31.25 dB, median 38.00 dB; pixels over "
                              "threshold: max 7.25% (frame 1)");
}

static void test_series_points_bounded_each_the_lowest_of_its_frames(void **state)
{
    (void)state;
    quality_series_init(&series);
    const uint32_t n = 5000;
    for (uint32_t k = 0; k < n; k++) {
        add(k, k == 4321u ? 12.5 : k == 17u ? INFINITY : 40.0 + (double)(k % 7u), 0);
    }
    assert_int_equal(series.frames, n);
    assert_int_equal(series.span, 8); /* 5000 frames in at most 1024 points */
    assert_true(series.points[4321u / 8u] == 12.5);
    assert_true(series.points[17u / 8u] == 40.0);      /* frames 16..23, 17 identical: 21 % 7 = 0 the lowest */
    assert_true(series.points[(n - 1u) / 8u] == 40.0); /* frames 4992..4999: 4998 % 7 = 0 */
    assert_true(series.points[(n - 1u) / 8u - 1u] == 40.0);
    /* at most 1024 points however many frames: the first span-merge keeps the minima */
    quality_series_init(&series);
    for (uint32_t k = 0; k < 2048; k++) {
        add(k, k == 1u ? 5.0 : 50.0, 0);
    }
    assert_int_equal(series.span, 2);
    assert_true(series.points[0] == 5.0);
    assert_true(series.points[1] == 50.0);
    assert_true(series.points[1023] == 50.0);
}

/* --- the floor --------------------------------------------------------------------------- */

static void test_floor_holds_at_and_above_and_fails_below(void **state)
{
    (void)state;
    quality_summary q = {.frames = 3, .min_db = 30.5, .worst_frame = 2};
    char msg[256] = "";
    assert_int_equal(quality_check_floor(&q, 30500, NULL, msg, sizeof msg), 0); /* at the floor */
    assert_int_equal(quality_check_floor(&q, 0, NULL, msg, sizeof msg), 0);     /* no floor */
    assert_string_equal(msg, "");
    q.min_db = 30.4991;
    assert_int_equal(quality_check_floor(&q, 30500, NULL, msg, sizeof msg), -1);
    assert_string_equal(msg, "quality: frame 2 has PSNR 30.50 dB, below the floor of 30.5 dB (the profile's "
                             "[quality] min_psnr_db)");
    q.min_db = 12.25;
    q.worst_frame = 17;
    assert_int_equal(quality_check_floor(&q, 99000, "--psnr-threshold", msg, sizeof msg), -1);
    assert_string_equal(msg, "quality: frame 17 has PSNR 12.25 dB, below the floor of 99 dB (--psnr-threshold)");
    assert_int_equal(quality_check_floor(&q, 31125, NULL, msg, sizeof msg), -1);
    assert_string_equal(msg, "quality: frame 17 has PSNR 12.25 dB, below the floor of 31.125 dB (the profile's "
                             "[quality] min_psnr_db)");
    q.min_db = INFINITY; /* identical frames meet any floor */
    assert_int_equal(quality_check_floor(&q, 99000, NULL, msg, sizeof msg), 0);
}

/* --- the reference profile -------------------------------------------------------------- */

/* 6 objects of 3 levels (4, 2 and 1 chunks): 42 chunks of 4 KiB pages. */
static const sp_params ref_pack = {4096, 6, 3, {4, 2, 1}, 7};

static const char base_text[] =
    "[profile]\nname = qbase\n"
    "[budgets]\ncpu = 4 MiB\ncpu/meta = 1 MiB\ncpu/decode = 256 KiB\ncpu/queues = 256 KiB\ncpu/driver = 1 MiB\n"
    "gpu = 1 MiB\ngpu/pool = 64 KiB\ngpu/staging = 0\n"
    "[pool]\npage_size = 4 KiB\npage_count = 12\n"
    "[stream]\nframes_in_flight = 2\nworkers = 0\nqueue_capacity = 16\nstaging_size = 0\n"
    "upload_per_frame = 8 KiB\npin_coarsest = 1\n"
    "[tables]\nmax_objects = 64\nmax_chunks = 256\nmax_lods = 4\nmax_string_bytes = 4 KiB\n";

typedef struct opened {
    sp_pack pack;
    slc_io io;
    slc_platform_block block;
    slc_memory *mem;
    slc_pack *pk;
} opened;

static void open_pack(opened *o, const slc_profile *p)
{
    memset(o, 0, sizeof *o);
    sp_build(&o->pack, &ref_pack);
    slc_io_from_memory(o->pack.data, o->pack.size, &o->io);
    sff_memory_map(p, &o->block, &o->mem);
    sfx_pack_open(o->mem, &o->io, p, NULL, &o->pk);
}

static void close_pack(opened *o)
{
    slc_pack_close(o->pk);
    slc_memory_deinit(o->mem);
    slc_platform_block_unmap(&o->block);
    sp_free(&o->pack);
}

static uint64_t limit_of(const slc_profile *p, const char *name)
{
    int i = slc_profile_scan_budget(p, name);
    assert_true(i >= 0);
    return p->budgets[i].limit;
}

static void assert_tree_holds(const slc_profile *p)
{
    uint64_t sums[SLC_PROFILE_BUDGET_MAX] = {0};
    for (uint32_t i = 0; i < p->budget_count; i++) {
        if (p->budgets[i].parent != SLC_BUDGET_NONE_INDEX) {
            sums[p->budgets[i].parent] += p->budgets[i].limit;
        }
    }
    for (uint32_t i = 0; i < p->budget_count; i++) {
        assert_true(sums[i] <= p->budgets[i].limit);
    }
}

static void test_reference_profile_of_a_small_pack(void **state)
{
    (void)state;
    slc_profile base, ref;
    sfx_profile_parse(base_text, "qbase.profile", &base);
    opened o;
    open_pack(&o, &base);
    quality_pack_figures fig;
    quality_pack_figures_get(o.pk, "small.pack", &fig);
    assert_int_equal(fig.chunk_count, 42);
    assert_int_equal(fig.object_count, 6);
    assert_int_equal(fig.max_lods, 3);
    assert_int_equal(fig.page_size, 4096);
    /* each object drawn once at its largest level: the clusters of its level 0's 4 chunks, counted by hand */
    uint64_t draws = 0;
    for (uint32_t obj = 0; obj < 6; obj++) {
        const slc_pack_object *ob = slc_pack_get_object(o.pk, (slc_object_id){obj});
        uint64_t most = 0;
        for (uint32_t l = 0; l < ob->lod_count; l++) {
            const slc_pack_lod *lod = slc_pack_get_lod(o.pk, ob->first_lod + l);
            uint64_t c = 0;
            for (uint32_t k = 0; k < lod->span_count; k++) {
                c += slc_pack_get_span(o.pk, lod->first_span + k)->cluster_count;
            }
            most = c > most ? c : most;
        }
        draws += most;
    }
    assert_true(draws >= 6);
    assert_int_equal(fig.max_draws, draws);
    assert_int_equal(fig.max_placements, 6); /* no instances: each object placed once */
    char msg[256] = "";
    const size_t scratch = slc_pack_scratch_size(o.pk);
    slc_render_profile render = {0}; /* base declares no [render] */
    assert_int_equal(quality_reference_profile(&base, o.pk, "small.pack", scratch, 0, &ref, &render, msg, sizeof msg),
                     0);
    close_pack(&o);

    assert_string_equal(ref.name, "qbase-reference");
    assert_int_equal(ref.page_size, 4096);
    assert_int_equal(ref.page_count, 42);
    assert_int_equal(ref.pin_coarsest, 3);
    assert_true(ref.upload_cap >= 42u * 4096u);
    assert_int_equal(ref.staging_size, 0); /* base has no belt */
    assert_int_equal(ref.queue_capacity, 48);
    assert_int_equal(ref.frames_in_flight, base.frames_in_flight);
    assert_int_equal(ref.workers, base.workers);
    assert_int_equal(ref.max_chunks, 256);
    assert_int_equal(render.max_draws, draws); /* base's 0 (the renderer's default) grown to the pack's bound */
    assert_int_equal(render.max_placements, 6);
    assert_int_equal(limit_of(&ref, "gpu/pool"), 42u * 4096u);
    assert_int_equal(limit_of(&ref, "gpu"), 1u << 20); /* its children still fit */
    assert_int_equal(limit_of(&ref, "cpu/driver"), 1u << 20);
    slc_stream_footprint fb, fr;
    assert_int_equal(slc_stream_calculate_footprint(&base, scratch, 0, &fb), SLC_OK);
    assert_int_equal(slc_stream_calculate_footprint(&ref, scratch, 0, &fr), SLC_OK);
    assert_int_equal(limit_of(&ref, "cpu/meta"), (1u << 20) + (fr.meta - fb.meta));
    assert_int_equal(limit_of(&ref, "cpu/queues"), (256u << 10) + (fr.queues - fb.queues));
    assert_int_equal(limit_of(&ref, "cpu/decode"), 256u << 10); /* the same scratch */
    assert_tree_holds(&ref);
    slc_memory_requirements req;
    assert_int_equal(slc_memory_calculate_requirements(&ref, &req), SLC_OK);

    /* A stream on it: every chunk pinned at create, every request served at its level. */
    open_pack(&o, &ref);
    /* the host store as sluice run sets it up: exactly the pages' bytes charged to gpu/pool */
    slc_budget_id gpu_pool;
    assert_int_equal(slc_budgets_scan(slc_memory_budgets(o.mem), "gpu/pool", &gpu_pool), SLC_OK);
    const size_t fp = slc_host_store_footprint(ref.page_count, ref.page_size);
    unsigned char *store_mem = aligned_alloc(64, (fp + 63u) & ~(size_t)63u);
    assert_non_null(store_mem);
    slc_page_store store;
    assert_int_equal(slc_host_store_init_at(store_mem, fp, slc_memory_budgets(o.mem), gpu_pool, ref.page_count,
                                            ref.page_size, NULL, &store),
                     SLC_OK);
    capture_log log = {0};
    slc_logger logger = capture_logger(&log);
    slc_stream_desc d = {.profile = &ref,
                         .memory = o.mem,
                         .pack = o.pk,
                         .stores = {[SLC_POOL_GEOMETRY] = &store},
                         .log = &logger};
    slc_stream *s = NULL;
    sfx_stream_start(&d, 0, NULL, &log, &s);
    slc_stream_stats ss;
    slc_stream_get_stats(s, &ss);
    assert_int_equal(ss.pinned_chunks, 42);
    for (uint32_t lod = 0; lod < 3; lod++) {
        uint64_t frame;
        assert_int_equal(slc_stream_begin_frame(s, &frame), SLC_OK);
        for (uint32_t obj = 0; obj < 6; obj++) {
            slc_stream_object_request rq = {.object = {obj}, .lod = (uint8_t)((obj + lod) % 3u), .priority = 1};
            assert_int_equal(slc_stream_request(s, &rq), SLC_OK);
        }
        assert_int_equal(slc_stream_end_frame(s), SLC_OK);
        assert_int_equal(slc_stream_result_count(s), 6);
        for (uint32_t i = 0; i < 6; i++) {
            slc_stream_result r;
            slc_stream_span spans[8];
            assert_int_equal(slc_stream_resident(s, i, &r, spans, 8), SLC_OK);
            assert_int_equal(r.lod, r.requested_lod);
        }
    }
    sfx_assert_budgets_hold(o.mem);
    slc_stream_destroy(s);
    slc_host_store_deinit(&store);
    close_pack(&o);
    free(store_mem);
}

/* Replaces the first from in text (room to spare) with to. */
static void replace(char *text, const char *from, const char *to)
{
    char *at = strstr(text, from);
    assert_non_null(at);
    memmove(at + strlen(to), at + strlen(from), strlen(at + strlen(from)) + 1);
    memcpy(at, to, strlen(to));
}

static void test_reference_profile_keeps_partitions_and_belt(void **state)
{
    (void)state;
    /* base with a belt (8 KiB of a 16 KiB gpu/staging) and a partition of 4 pages */
    char text[2048];
    snprintf(text, sizeof text, "%s[partitions]\nnav = 4\n", base_text);
    replace(text, "gpu/staging = 0", "gpu/staging = 16 KiB");
    replace(text, "staging_size = 0", "staging_size = 8 KiB");
    replace(text, "gpu = 1 MiB", "gpu = 80 KiB");
    slc_profile base, ref;
    sfx_profile_parse(text, "qbase.profile", &base);
    assert_int_equal(base.partition_count, 1);
    assert_int_equal(base.staging_size, 8192);
    assert_int_equal(limit_of(&base, "gpu/staging"), 16384);
    quality_pack_figures fig =
        {.name = "p.pack", .page_size = 4096, .chunk_count = 42, .object_count = 6, .max_lods = 3, .string_size = 10};
    char msg[256] = "";
    assert_int_equal(quality_reference_profile_for(&base, &fig, 0, 0, &ref, NULL, msg, sizeof msg), 0);
    assert_int_equal(ref.page_count, 46); /* every chunk in default, besides nav's 4 */
    assert_int_equal(ref.partition_count, 1);
    assert_string_equal(ref.partitions[0].name, "nav");
    assert_int_equal(ref.partitions[0].page_count, 4);
    assert_int_equal(ref.staging_size, 46u * 4096u);
    assert_int_equal(limit_of(&ref, "gpu/staging"), 46u * 4096u);
    assert_int_equal(limit_of(&ref, "gpu/pool"), 46u * 4096u);
    assert_int_equal(limit_of(&ref, "gpu"), 2u * 46u * 4096u); /* grown to its children's sum */
    assert_tree_holds(&ref);
}

static void test_reference_profile_refusals(void **state)
{
    (void)state;
    slc_profile base, ref;
    sfx_profile_parse(base_text, "qbase.profile", &base);
    char msg[256] = "";
    quality_pack_figures fig = {.name = "huge.pack",
                                .page_size = 4096,
                                .chunk_count = SLC_PAGE_COUNT_MAX,
                                .object_count = 1,
                                .max_lods = 1};
    assert_int_equal(quality_reference_profile_for(&base, &fig, 0, 0, &ref, NULL, msg, sizeof msg),
                     0); /* exactly the bound */
    assert_int_equal(ref.page_count, SLC_PAGE_COUNT_MAX);
    fig.chunk_count = SLC_PAGE_COUNT_MAX + 1u;
    assert_int_equal(quality_reference_profile_for(&base, &fig, 0, 0, &ref, NULL, msg, sizeof msg), -1);
    assert_string_equal(msg, "reference profile of 'qbase' for pack 'huge.pack': 16777217 pages (16777217 chunks and 0 "
                             "in named partitions) exceed the pool's bound of 16777216 (SLC_PAGE_COUNT_MAX)");
    fig.chunk_count = 10;
    fig.page_size = 3000;
    assert_int_equal(quality_reference_profile_for(&base, &fig, 0, 0, &ref, NULL, msg, sizeof msg), -1);
    assert_string_equal(msg, "reference profile of 'qbase' for pack 'huge.pack': the pack's page size 3000 is not a "
                             "power of two in 4096..67108864");
    fig.page_size = 4096;
    fig.max_lods = 17;
    assert_int_equal(quality_reference_profile_for(&base, &fig, 0, 0, &ref, NULL, msg, sizeof msg), -1);
    assert_string_equal(msg, "reference profile of 'qbase' for pack 'huge.pack': an object has 17 levels; a profile "
                             "pins at most 16");
    /* a pool whose bytes a profile cannot declare */
    fig.max_lods = 1;
    fig.page_size = SLC_PAGE_SIZE_MAX;
    fig.chunk_count = SLC_PAGE_COUNT_MAX;
    assert_int_equal(quality_reference_profile_for(&base, &fig, 0, 0, &ref, NULL, msg, sizeof msg), -1);
    assert_non_null(strstr(msg, "reference profile of 'qbase' for pack 'huge.pack': "));
    assert_true(slc_profile_equal(&ref, &base)); /* refused: out is base */
}

/* A pack with textures: the reference's page pool holds its geometry
 * chunks, its texture pool every tile and tail besides the named texture
 * partitions' pages, all pinned ([textures] pin_tiles), gpu/textures grown
 * to it; a texture pool past SLC_PAGE_COUNT_MAX is refused. */
static void test_reference_profile_pins_every_tile(void **state)
{
    (void)state;
    slc_profile base, ref;
    char text[1024];
    snprintf(text, sizeof text, "%s%s", base_text, "[textures]\npage_count = 8\n[texture_partitions]\nui = 2\n");
    /* gpu/textures for its 8 pages of 4 KiB */
    char *at = strstr(text, "gpu/staging = 0\n");
    assert_non_null(at);
    char full[1100];
    snprintf(full, sizeof full, "%.*sgpu/staging = 0\ngpu/textures = 32 KiB\n%s", (int)(at - text), text,
             at + strlen("gpu/staging = 0\n"));
    sfx_profile_parse(full, "qtex.profile", &base);
    assert_int_equal(base.texture_pin_tiles, 0);
    quality_pack_figures fig = {.name = "t.pack",
                                .page_size = 4096,
                                .chunk_count = 42,
                                .texture_chunks = 30,
                                .object_count = 6,
                                .max_lods = 3,
                                .string_size = 10};
    char msg[256] = "";
    assert_int_equal(quality_reference_profile_for(&base, &fig, 0, 0, &ref, NULL, msg, sizeof msg), 0);
    assert_int_equal(ref.page_count, 12);         /* the 12 geometry chunks */
    assert_int_equal(ref.texture_page_count, 32); /* 30 tiles and tails in default, ui's 2 */
    assert_int_equal(ref.texture_pin_tiles, 1);
    assert_int_equal(ref.texture_partition_count, 1);
    assert_int_equal(limit_of(&ref, "gpu/textures"), 32u * 4096u);
    assert_tree_holds(&ref);
    /* Without textures the texture pool is base's, its tails alone pinned. */
    fig.texture_chunks = 0;
    assert_int_equal(quality_reference_profile_for(&base, &fig, 0, 0, &ref, NULL, msg, sizeof msg), 0);
    assert_int_equal(ref.texture_page_count, 8);
    assert_int_equal(ref.texture_pin_tiles, 0);
    fig.chunk_count = SLC_PAGE_COUNT_MAX;
    fig.texture_chunks = SLC_PAGE_COUNT_MAX - 1u;
    assert_int_equal(quality_reference_profile_for(&base, &fig, 0, 0, &ref, NULL, msg, sizeof msg), -1);
    assert_string_equal(msg, "reference profile of 'qbase' for pack 't.pack': a texture pool of 16777217 pages "
                             "(16777215 tiles and mip tails and 2 in named partitions) exceeds the bound of "
                             "16777216 (SLC_PAGE_COUNT_MAX)");
}

static void test_profile_add_grows_the_ancestors(void **state)
{
    (void)state;
    slc_profile p, before;
    sfx_profile_parse(base_text, "qbase.profile", &p);
    before = p;
    char msg[256] = "";
    /* cpu = 4 MiB, its children 1 MiB + 256 KiB + 256 KiB + 1 MiB: 2 MiB of room */
    assert_int_equal(quality_profile_add(&p, "cpu/meta", 1u << 20, msg, sizeof msg), 0);
    assert_int_equal(limit_of(&p, "cpu/meta"), 2u << 20);
    assert_int_equal(limit_of(&p, "cpu"), 4u << 20); /* still holds them */
    assert_int_equal(quality_profile_add(&p, "cpu/driver", 3u << 20, msg, sizeof msg), 0);
    assert_int_equal(limit_of(&p, "cpu"), (2u << 20) + (512u << 10) + (4u << 20)); /* grown to the sum */
    assert_tree_holds(&p);
    /* refusals leave the profile as it was */
    slc_profile kept = p;
    assert_int_equal(quality_profile_add(&p, "cpu/render", 1, msg, sizeof msg), -1);
    assert_string_equal(msg, "profile 'qbase' declares no cpu/render budget");
    assert_int_equal(quality_profile_add(&p, "gpu/pool", SLC_PROFILE_SIZE_MAX, msg, sizeof msg), -1);
    assert_string_equal(msg, "profile 'qbase': budget gpu/pool would need more than a profile's bound of "
                             "1099511627776 bytes");
    assert_true(slc_profile_equal(&p, &kept));
    assert_false(slc_profile_equal(&p, &before));
}

static void test_reference_profile_name_is_cut_to_fit(void **state)
{
    (void)state;
    slc_profile base, ref;
    sfx_profile_parse(base_text, "qbase.profile", &base);
    snprintf(base.name, sizeof base.name, "%s", "abcdefghijklmnopqrstuvwxyz01234"); /* 31 bytes */
    quality_pack_figures fig = {.name = "p", .page_size = 4096, .chunk_count = 5, .object_count = 1, .max_lods = 1};
    char msg[256];
    assert_int_equal(quality_reference_profile_for(&base, &fig, 0, 0, &ref, NULL, msg, sizeof msg), 0);
    assert_string_equal(ref.name, "abcdefghijklmnopqrstu-reference");
}

/* --- JSON and SVG ------------------------------------------------------------------------ */

static char *mem_buf;
static size_t mem_len;

static const quality_info hostile = {.pack = "a\"b<&>.pack",
                                     .profile = "p&q",
                                     .reference = "p&q-reference",
                                     .width = 160,
                                     .height = 90,
                                     .threshold = 8,
                                     .min_psnr_mdb = 30500};

static void test_json_escapes_names_and_writes_null_for_inf(void **state)
{
    (void)state;
    FILE *f = open_memstream(&mem_buf, &mem_len);
    quality_series_init(&series);
    quality_json j;
    quality_json_begin(&j, f, &hostile);
    const quality_frame frames[] = {{0, INFINITY, 0, 0, 14400}, {1, 28.5, 0.0125, 180, 14400}};
    for (size_t i = 0; i < 2; i++) {
        quality_json_frame(&j, &frames[i]);
        quality_series_add(&series, &frames[i]);
    }
    quality_summary q;
    quality_series_summarise(&series, &q);
    assert_int_equal(quality_json_end(&j, &hostile, &q), 0);
    fclose(f);
    assert_string_equal(mem_buf,
                        "{\"pack\": \"a\\\"b<&>.pack\", \"profile\": \"p&q\", \"reference\": \"p&q-reference\", "
                        "\"width\": 160, \"height\": 90, \"diff_threshold\": 8, \"min_psnr_db\": 30.500,\n"
                        " \"frames\": [\n"
                        "  {\"frame\": 0, \"psnr_db\": null, \"over_share\": 0.000000, \"over_pixels\": 0},\n"
                        "  {\"frame\": 1, \"psnr_db\": 28.5000, \"over_share\": 0.012500, \"over_pixels\": 180}],\n"
                        " \"summary\": {\"frames\": 2, \"min_psnr_db\": 28.5000, \"worst_frame\": 1, \"p5_psnr_db\": "
                        "28.5000, \"median_psnr_db\": 28.5000, \"max_over_share\": 0.012500, \"max_over_frame\": 1},\n"
                        " \"floor\": {\"holds\": false, \"frame\": 1}}\n");
    free(mem_buf);
}

static char *svg_of(const quality_info *in)
{
    FILE *f = open_memstream(&mem_buf, &mem_len);
    assert_int_equal(quality_write_svg(f, &series, in), 0);
    fclose(f);
    return mem_buf;
}

static void test_svg_escapes_names_and_draws_the_floor(void **state)
{
    (void)state;
    quality_series_init(&series);
    add(0, INFINITY, 0);
    add(1, 28.5, 0);
    add(2, 35.0, 0);
    char *a = svg_of(&hostile);
    assert_non_null(strstr(a, "sluice render: a&quot;b&lt;&amp;&gt;.pack, profile p&amp;q against p&amp;q-reference"));
    assert_null(strstr(a, "a\"b"));
    assert_null(strstr(a, "<&"));
    assert_non_null(strstr(a, "class=\"floor\""));
    assert_non_null(strstr(a, "stroke-dasharray=\"4 3\""));
    assert_non_null(strstr(a, ">floor 30.5 dB</text>"));
    assert_non_null(strstr(a, ">min 28.50 dB (frame 1), median 35.00 dB; dashed: the floor</text>"));
    /* the y axis: 0 to 50 dB (the top finite value 35 and the floor, rounded up), and inf */
    assert_non_null(strstr(a, ">0 dB</text>"));
    assert_non_null(strstr(a, ">25 dB</text>"));
    assert_non_null(strstr(a, ">50 dB</text>"));
    assert_non_null(strstr(a, ">inf</text>"));
    assert_non_null(strstr(a, ">frame</text>"));
    assert_non_null(strstr(a, "class=\"xtick\">2</text>"));
    char *b = svg_of(&hostile);
    assert_string_equal(a, b); /* the same bytes for the same input */
    free(a);
    free(b);
    quality_info plain = hostile;
    plain.min_psnr_mdb = 0;
    a = svg_of(&plain);
    assert_null(strstr(a, "class=\"floor\""));
    assert_null(strstr(a, "dashed"));
    free(a);
}

/* --- the run timeline's PSNR row ---------------------------------------------------------- */

static run_timeline timeline; /* off the stack */

static char *timeline_svg(const run_svg_info *in)
{
    FILE *f = open_memstream(&mem_buf, &mem_len);
    assert_int_equal(run_timeline_write_svg(f, &timeline, in), 0);
    fclose(f);
    return mem_buf;
}

static void test_timeline_psnr_row_only_when_compared(void **state)
{
    (void)state;
    run_timeline_init(&timeline);
    slc_stream_frame_stats fs;
    memset(&fs, 0, sizeof fs);
    for (uint32_t k = 0; k < 3000; k++) {
        run_timeline_add(&timeline, &fs, 1);
    }
    const run_svg_info in = {.pack = "c.pack",
                             .profile = "p",
                             .backend = "vulkan",
                             .ok = 1,
                             .page_count = 8,
                             .upload_cap = 4096,
                             .min_psnr_mdb = 30500};
    char *a = timeline_svg(&in);
    assert_null(strstr(a, "PSNR")); /* nothing compared: no row */
    free(a);
    run_timeline_set_psnr(&timeline, 0, INFINITY);
    run_timeline_set_psnr(&timeline, 2001, 33.0);
    run_timeline_set_psnr(&timeline, 2002, 27.25); /* the same point (4 frames a point): the lowest */
    run_timeline_set_psnr(&timeline, 2999, 41.0);
    run_timeline_set_psnr(&timeline, 3000, 1.0); /* not added yet: ignored */
    assert_int_equal(timeline.span, 4);
    assert_true(timeline.p[2001u / 4u].psnr_set && timeline.p[2001u / 4u].psnr_db == 27.25);
    assert_true(isinf(timeline.p[0].psnr_db));
    assert_false(timeline.p[1].psnr_set);
    a = timeline_svg(&in);
    assert_non_null(strstr(a, ">PSNR against the reference</text>"));
    assert_non_null(strstr(a, ">min 27.25 dB, floor 30.5 dB</text>"));
    assert_non_null(strstr(a, ">50 dB</text>")); /* the top: 41 rounded up */
    assert_non_null(strstr(a, "stroke=\"#8c564b\""));
    free(a);
    run_svg_info fine = in;
    fine.min_psnr_mdb = 31125; /* every digit of the milli-dB floor */
    a = timeline_svg(&fine);
    assert_non_null(strstr(a, ">min 27.25 dB, floor 31.125 dB</text>"));
    free(a);
    /* merging points keeps the lowest */
    for (uint32_t k = 0; k < 2000; k++) {
        run_timeline_add(&timeline, &fs, 1);
    }
    assert_int_equal(timeline.span, 8);
    assert_true(timeline.p[2001u / 8u].psnr_db == 27.25);
    assert_true(timeline.p[2999u / 8u].psnr_db == 41.0);
    assert_true(isinf(timeline.p[0].psnr_db));
}

/* The GPU time row (sluice render): only when frames were timed, placed
 * right below the caller's time, each point the most of its frames. */
static void test_timeline_gpu_row_only_when_timed(void **state)
{
    (void)state;
    run_timeline_init(&timeline);
    slc_stream_frame_stats fs;
    memset(&fs, 0, sizeof fs);
    for (uint32_t k = 0; k < 3000; k++) {
        run_timeline_add(&timeline, &fs, 1);
    }
    const run_svg_info in =
        {.pack = "c.pack", .profile = "p", .backend = "vulkan", .ok = 1, .page_count = 8, .upload_cap = 4096};
    char *a = timeline_svg(&in);
    assert_null(strstr(a, "GPU time")); /* nothing timed: no row */
    free(a);
    run_timeline_set_gpu(&timeline, 5, 1500000);
    run_timeline_set_gpu(&timeline, 6, 2500000); /* the same point (4 frames a point): the most */
    run_timeline_set_gpu(&timeline, 2999, 7000);
    run_timeline_set_gpu(&timeline, 3000, 900000000); /* not added yet: ignored */
    assert_int_equal(timeline.span, 4);
    assert_true(timeline.p[5u / 4u].gpu_set && timeline.p[5u / 4u].gpu_ns == 2500000);
    assert_true(timeline.p[2999u / 4u].gpu_ns == 7000);
    assert_false(timeline.p[0].gpu_set);
    a = timeline_svg(&in);
    const char *caller = strstr(a, ">caller"), *gpu = strstr(a, ">GPU time a frame</text>");
    const char *pool = strstr(a, ">pool pages used</text>");
    assert_non_null(caller);
    assert_non_null(gpu);
    assert_non_null(pool);
    assert_true(caller < gpu && gpu < pool);
    assert_non_null(strstr(a, ">max 2500 \xc2\xb5s</text>"));
    assert_non_null(strstr(a, "stroke=\"#17becf\""));
    free(a);
    /* merging points keeps the most */
    for (uint32_t k = 0; k < 2000; k++) {
        run_timeline_add(&timeline, &fs, 1);
    }
    assert_int_equal(timeline.span, 8);
    assert_true(timeline.p[0].gpu_set && timeline.p[0].gpu_ns == 2500000);
    assert_true(timeline.p[2999u / 8u].gpu_ns == 7000);
}

/* --- a session ------------------------------------------------------------------------------ */

/* stderr captured into a file while fn runs, read back into err. */
static char err_text[2048];

static void stderr_begin(int *saved, FILE **tmp)
{
    fflush(stderr);
    *tmp = tmpfile();
    assert_non_null(*tmp);
    *saved = dup(2);
    assert_true(*saved >= 0);
    assert_true(dup2(fileno(*tmp), 2) >= 0);
}

static const char *stderr_end(int saved, FILE *tmp)
{
    fflush(stderr);
    assert_true(dup2(saved, 2) >= 0);
    close(saved);
    rewind(tmp);
    size_t n = fread(err_text, 1, sizeof err_text - 1u, tmp);
    err_text[n] = '\0';
    fclose(tmp);
    return err_text;
}

static quality_session session; /* large: off the stack */

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static char buf[65536];
    size_t n = fread(buf, 1, sizeof buf - 1u, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static void test_session_writes_files_and_fails_below_the_floor(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_quality.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char json[128], svg[128], input[128];
    snprintf(json, sizeof json, "%s/q.json", dir);
    snprintf(svg, sizeof svg, "%s/q.svg", dir);
    snprintf(input, sizeof input, "%s/in.pack", dir);
    FILE *f = fopen(json, "w");
    fputs("old", f);
    fclose(f);
    f = fopen(input, "w");
    fputs("pack", f);
    fclose(f);
    const char *inputs[] = {input, NULL};
    int saved;
    FILE *tmp;

    /* an output naming an input: refused, nothing created */
    stderr_begin(&saved, &tmp);
    int rc = quality_session_open(&session, &hostile, input, NULL, inputs, 2, "sluice render");
    const char *e = stderr_end(saved, tmp);
    assert_int_equal(rc, -1);
    char want[512];
    snprintf(want, sizeof want, "sluice render: %s: is an input (%s); refusing to overwrite it\n", input, input);
    assert_string_equal(e, want);
    assert_string_equal(slurp(input), "pack");
    /* a folder that does not exist */
    stderr_begin(&saved, &tmp);
    rc = quality_session_open(&session, &hostile, json, "/no-such-dir/q.svg", inputs, 2, "sluice render");
    e = stderr_end(saved, tmp);
    assert_int_equal(rc, -1);
    assert_non_null(strstr(e, "sluice render: /no-such-dir/q.svg: cannot create"));
    assert_string_equal(slurp(json), "old"); /* the json's temporary removed, the old file kept */

    /* two frames, the second below the 30.5 dB floor */
    assert_int_equal(quality_session_open(&session, &hostile, json, svg, inputs, 2, "sluice render"), 0);
    img a, b;
    img_fill(&a, 2, 2, 100);
    img_fill(&b, 2, 2, 100);
    quality_frame fr;
    assert_int_equal(quality_session_frame(&session, 0, &a.q, &b.q, &fr, "sluice render"), 0);
    assert_true(isinf(fr.psnr_db));
    img_set(&b, 0, 0, 116, 116, 116);
    assert_int_equal(quality_session_frame(&session, 1, &a.q, &b.q, &fr, "sluice render"), 0);
    img c;
    img_fill(&c, 3, 2, 100);
    stderr_begin(&saved, &tmp);
    rc = quality_session_frame(&session, 2, &a.q, &c.q, NULL, "sluice render");
    e = stderr_end(saved, tmp);
    assert_int_equal(rc, -1);
    assert_string_equal(e, "sluice render: frame 2: the images differ in size (2x2 against 3x2)\n");
    assert_string_equal(slurp(json), "old"); /* nothing replaced before finish */
    char *report;
    size_t report_len;
    FILE *rf = open_memstream(&report, &report_len);
    quality_summary q;
    stderr_begin(&saved, &tmp);
    rc = quality_session_finish(&session, rf, &q, "sluice render");
    e = stderr_end(saved, tmp);
    fclose(rf);
    assert_int_equal(rc, 1);
    assert_string_equal(report, "quality: PSNR min 30.07 dB (frame 1), p5 30.07 dB, median 30.07 dB; pixels over "
                                "threshold: max 25.00% (frame 1)\n");
    assert_string_equal(e, "sluice render: quality: frame 1 has PSNR 30.07 dB, below the floor of 30.5 dB (the "
                           "profile's [quality] min_psnr_db)\n");
    free(report);
    assert_non_null(strstr(slurp(json), "\"floor\": {\"holds\": false, \"frame\": 1}}"));
    assert_non_null(strstr(slurp(svg), "</svg>"));
    quality_session_abort(&session); /* after finish: nothing to remove */
    unlink(json);
    unlink(svg);
    unlink(input);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compare_known_psnr),
        cmocka_unit_test(test_compare_identical_is_inf),
        cmocka_unit_test(test_compare_one_pixel_black_on_white_is_zero_db),
        cmocka_unit_test(test_compare_threshold_edges),
        cmocka_unit_test(test_compare_refuses_sizes_that_differ),
        cmocka_unit_test(test_series_percentiles_of_a_known_series),
        cmocka_unit_test(test_series_worst_frame_ties_to_the_earliest),
        cmocka_unit_test(test_series_identical_frames),
        cmocka_unit_test(test_series_summary_line),
        cmocka_unit_test(test_series_points_bounded_each_the_lowest_of_its_frames),
        cmocka_unit_test(test_floor_holds_at_and_above_and_fails_below),
        cmocka_unit_test(test_reference_profile_of_a_small_pack),
        cmocka_unit_test(test_reference_profile_keeps_partitions_and_belt),
        cmocka_unit_test(test_reference_profile_refusals),
        cmocka_unit_test(test_reference_profile_pins_every_tile),
        cmocka_unit_test(test_profile_add_grows_the_ancestors),
        cmocka_unit_test(test_reference_profile_name_is_cut_to_fit),
        cmocka_unit_test(test_json_escapes_names_and_writes_null_for_inf),
        cmocka_unit_test(test_svg_escapes_names_and_draws_the_floor),
        cmocka_unit_test(test_timeline_psnr_row_only_when_compared),
        cmocka_unit_test(test_timeline_gpu_row_only_when_timed),
        cmocka_unit_test(test_session_writes_files_and_fails_below_the_floor),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
