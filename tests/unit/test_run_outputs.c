/* SPDX-License-Identifier: MIT */
/* sluice run's aggregates (tools/run_outputs.c): the log-bucket percentiles
 * against the exact nearest-rank value, within the documented 1/128; the
 * timeline's points, one a frame up to RUN_TIMELINE_POINTS frames and then
 * each the maximum of the frames it spans, however many frames pass; the
 * SVG made from it well-formed with every name escaped, its labels whole
 * and in their column, its axes' values, the budgets that never changed in
 * one table, its series bounded and its bytes the same for the same input;
 * the Chrome trace's frame cap. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <math.h>

#include "run_files.h"
#include "run_outputs.h"
#include "sluice/host_store.h"
#include "sluice/pool.h"
#include "test_util.h"

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static run_hist hist; /* 32 KiB: off the stack */

static void test_hist_small_values_are_exact(void **state)
{
    (void)state;
    memset(&hist, 0, sizeof hist);
    assert_int_equal(run_hist_percentile(&hist, 50), 0);
    for (uint64_t v = 1; v <= 63; v++) {
        run_hist_add(&hist, v);
    }
    assert_int_equal(run_hist_percentile(&hist, 50), 32); /* rank 32 of 1..63 */
    assert_int_equal(run_hist_percentile(&hist, 99), 63);
    assert_int_equal(run_hist_percentile(&hist, 100), 63);
    assert_int_equal(hist.max, 63);
    assert_int_equal(hist.count, 63);
}

static void test_hist_percentiles_within_one_in_128(void **state)
{
    (void)state;
    enum { N = 20000 };
    static uint64_t v[N];
    uint64_t seed = 0x5151u;
    printf("seed 0x%llx\n", (unsigned long long)seed);
    for (int round = 0; round < 8; round++) {
        memset(&hist, 0, sizeof hist);
        for (int i = 0; i < N; i++) {
            /* spread over many powers of two: nanoseconds to seconds, and the top of the range */
            uint64_t r = splitmix64(&seed);
            v[i] = round == 7 ? UINT64_MAX - (r >> 40) : (r >> (r % 44u)) % 4000000000ull;
            run_hist_add(&hist, v[i]);
        }
        qsort(v, N, sizeof v[0], cmp_u64);
        assert_true(hist.max == v[N - 1]);
        for (unsigned p = 1; p <= 100; p++) {
            size_t rank = ((size_t)N * p + 99u) / 100u;
            uint64_t exact = v[rank - 1], got = run_hist_percentile(&hist, p);
            double err = exact ? fabs((double)got - (double)exact) / (double)exact : (double)got;
            if (err > 1.0 / 128.0) {
                fail_msg("round %d p%u: %llu, exact %llu (error %.5f)", round, p, (unsigned long long)got,
                         (unsigned long long)exact, err);
            }
        }
    }
}

static run_timeline tl;

/* Occurrences of needle in s. */
static size_t count(const char *s, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(s, needle); p != NULL; p = strstr(p + 1, needle)) {
        n++;
    }
    return n;
}

static slc_stream_frame_stats frame_with(uint64_t v)
{
    slc_stream_frame_stats fs;
    memset(&fs, 0, sizeof fs);
    fs.budget_count = 2;
    fs.budgets[0] = v;
    fs.budgets[1] = 2 * v;
    fs.bytes_uploaded = 3 * v;
    fs.misses = (uint32_t)(v % 1000u);
    return fs;
}

static void test_timeline_one_point_a_frame_up_to_its_size(void **state)
{
    (void)state;
    run_timeline_init(&tl);
    for (uint32_t f = 0; f < RUN_TIMELINE_POINTS; f++) {
        slc_stream_frame_stats fs = frame_with(f);
        run_timeline_add(&tl, &fs, f + 1u);
    }
    assert_int_equal(tl.span, 1);
    assert_int_equal(tl.frames, RUN_TIMELINE_POINTS);
    for (uint32_t k = 0; k < RUN_TIMELINE_POINTS; k++) {
        assert_int_equal(tl.p[k].budgets[0], k);
        assert_int_equal(tl.p[k].budgets[1], 2u * k);
        assert_int_equal(tl.p[k].uploaded, 3u * k);
        assert_int_equal(tl.p[k].pool_used, k + 1u);
    }
    slc_stream_frame_stats fs = frame_with(5000);
    run_timeline_add(&tl, &fs, 1);
    assert_int_equal(tl.span, 2);
    assert_int_equal(tl.p[0].budgets[0], 1);      /* max of frames 0 and 1 */
    assert_int_equal(tl.p[511].budgets[0], 1023); /* max of frames 1022 and 1023 */
    assert_int_equal(tl.p[512].budgets[0], 5000); /* frame 1024 alone so far */
    assert_int_equal(tl.p[513].budgets[0], 0);
}

static void test_timeline_points_are_maxima_over_a_million_frames(void **state)
{
    (void)state;
    const uint32_t frames = 1000003;
    uint64_t seed = 77;
    run_timeline_init(&tl);
    static uint64_t want[RUN_TIMELINE_POINTS];
    memset(want, 0, sizeof want);
    /* The span the timeline ends with: the smallest power of two that fits. */
    uint32_t span = 1;
    while ((frames - 1u) / span >= RUN_TIMELINE_POINTS) {
        span *= 2u;
    }
    for (uint32_t f = 0; f < frames; f++) {
        uint64_t v = splitmix64(&seed) % 1000000u;
        slc_stream_frame_stats fs = frame_with(v);
        run_timeline_add(&tl, &fs, (uint32_t)v);
        want[f / span] = v > want[f / span] ? v : want[f / span];
    }
    assert_int_equal(tl.frames, frames);
    assert_int_equal(tl.span, span);
    for (uint32_t k = 0; k < RUN_TIMELINE_POINTS; k++) {
        assert_true(tl.p[k].budgets[0] == want[k]);
        assert_true(tl.p[k].uploaded == 3u * want[k]);
        assert_true(tl.p[k].pool_used == want[k]);
    }
}

static void test_svg_escapes_names_and_stays_small(void **state)
{
    (void)state;
    slc_budget_stats b[2];
    memset(b, 0, sizeof b);
    snprintf(b[0].name, sizeof b[0].name, "gpu/<pool>&\"x\"");
    b[0].limit = 4000000;
    b[0].peak = 999999;
    b[0].id.index = 0;
    run_svg_info in = {"a<b>&\"c\xff.pack", "p&q", "host", 1, b, 1, 4096, 16u << 20, 0, 0, 0};
    run_timeline_init(&tl);
    for (uint32_t f = 0; f < 300000; f++) {
        slc_stream_frame_stats fs = frame_with(f % 4000000u);
        run_timeline_add(&tl, &fs, f % 4096u);
    }
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_int_equal(run_timeline_write_svg(f, &tl, &in), 0);
    assert_int_equal(fclose(f), 0);
    assert_non_null(strstr(buf, "sluice run: a&lt;b&gt;&amp;&quot;c\xef\xbf\xbd.pack, profile p&amp;q, host"));
    assert_non_null(strstr(buf, "class=\"label\">gpu/&lt;pool&gt;&amp;&quot;x&quot;</text>"));
    assert_non_null(strstr(buf, "(each point the maximum of its frames)"));
    assert_null(strchr(buf, '\xff'));
    assert_true(len < 1000000u);
    free(buf);
}

/* A stream with a texture pool: its pages used (of the pool) and the tile
 * requests not resident when asked get rows of their own, each point the
 * most of its frames; without a texture pool, neither row. */
static void test_svg_texture_pool_rows(void **state)
{
    (void)state;
    slc_budget_stats b[1];
    memset(b, 0, sizeof b);
    run_svg_info in = {"t.pack", "tiles", "host", 1, b, 0, 64, 1u << 20, 0, 0, 20};
    run_timeline_init(&tl);
    run_timeline_set_textures(&tl, 0, 99, 99); /* not added yet: ignored */
    static const uint32_t used[4] = {4, 12, 20, 20}, missed[4] = {0, 98, 37, 0};
    for (uint32_t f = 0; f < 4; f++) {
        slc_stream_frame_stats fs = frame_with(f);
        run_timeline_add(&tl, &fs, 3);
        run_timeline_set_textures(&tl, f, used[f], missed[f]);
        assert_int_equal(tl.p[f].tex_used, used[f]);
        assert_int_equal(tl.p[f].tile_misses, missed[f]);
    }
    for (int textures = 1; textures >= 0; textures--) {
        in.texture_page_count = textures ? 20u : 0u;
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        assert_non_null(f);
        assert_int_equal(run_timeline_write_svg(f, &tl, &in), 0);
        assert_int_equal(fclose(f), 0);
        if (textures) {
            assert_non_null(strstr(buf, ">texture pool pages used</text>"));
            assert_non_null(strstr(buf, ">of 20</text>"));
            assert_non_null(strstr(buf, ">tiles not resident when asked</text>"));
            assert_non_null(strstr(buf, ">max 98 a frame</text>"));
        } else {
            assert_null(strstr(buf, "texture pool"));
            assert_null(strstr(buf, "tiles not resident"));
        }
        free(buf);
    }
}

/* One <text> of the SVG: where it starts and ends by the writer's estimate
 * (RUN_SVG_GLYPH_EM em a byte of the unescaped string, an entity one byte). */
typedef struct svg_text_box {
    double x0, x1, y;
    char cls[16];
    char s[160]; /* the escaped content */
} svg_text_box;

static size_t svg_texts(const char *svg, svg_text_box *box, size_t cap)
{
    size_t n = 0;
    for (const char *p = strstr(svg, "<text "); p != NULL && n < cap; p = strstr(p + 1, "<text ")) {
        const char *end = strchr(p, '>'), *close = strstr(p, "</text>");
        assert_non_null(end);
        assert_non_null(close);
        svg_text_box *b = &box[n++];
        memset(b, 0, sizeof *b);
        double x = atof(strstr(p, " x=\"") + 4);
        b->y = atof(strstr(p, " y=\"") + 4);
        const char *cls = strstr(p, " class=\"");
        if (cls != NULL && cls < end) {
            size_t len = strcspn(cls + 8, "\"");
            memcpy(b->cls, cls + 8, len < sizeof b->cls - 1 ? len : sizeof b->cls - 1);
        }
        size_t len = (size_t)(close - end - 1);
        memcpy(b->s, end + 1, len < sizeof b->s - 1 ? len : sizeof b->s - 1);
        double glyphs = 0;
        for (const char *c = end + 1; c < close; c++) {
            if (*c == '&') {
                c = strchr(c, ';');
            }
            glyphs++;
        }
        const char *fs = strstr(p, " font-size=\"");
        double w = glyphs * RUN_SVG_GLYPH_EM * (fs != NULL && fs < end ? atof(fs + 12) : RUN_SVG_FONT_PX);
        const char *anchor = strstr(p, " text-anchor=\"");
        int mid = anchor != NULL && anchor < end && strncmp(anchor + 14, "middle", 6) == 0;
        int right = anchor != NULL && anchor < end && strncmp(anchor + 14, "end", 3) == 0;
        b->x0 = right ? x - w : mid ? x - w / 2 : x;
        b->x1 = b->x0 + w;
    }
    return n;
}

static int has_text(const svg_text_box *box, size_t n, const char *cls, const char *s)
{
    for (size_t i = 0; i < n; i++) {
        if (strcmp(box[i].cls, cls) == 0 && strcmp(box[i].s, s) == 0) {
            return 1;
        }
    }
    return 0;
}

/* Each polyline's points and each bar path's bars: at most RUN_TIMELINE_POINTS. */
static void assert_series_bounded(const char *svg)
{
    size_t lines = 0;
    for (const char *p = strstr(svg, "<polyline"); p != NULL; p = strstr(p + 1, "<polyline")) {
        const char *pts = strstr(p, "points=\""), *end = strstr(pts + 8, "\"");
        size_t k = 0;
        for (const char *c = pts + 8; c < end; c++) {
            k += *c == ',';
        }
        assert_true(k > 0 && k <= RUN_TIMELINE_POINTS);
        lines++;
    }
    assert_true(lines > 0);
    for (const char *p = strstr(svg, "<path fill=\""); p != NULL; p = strstr(p + 1, "<path fill=\"")) {
        const char *d = strstr(p, " d=\""), *end = strstr(d + 4, "\"");
        size_t k = 0;
        for (const char *c = d + 4; c < end; c++) {
            k += *c == 'M';
        }
        assert_true(k <= RUN_TIMELINE_POINTS);
    }
}

static void test_svg_labels_axes_and_flat_budgets_in_a_table(void **state)
{
    (void)state;
    slc_budget_stats b[3];
    memset(b, 0, sizeof b);
    snprintf(b[0].name, sizeof b[0].name, "cpu/meta"); /* carved at init: the same every frame */
    b[0].limit = 8u << 20;
    b[0].peak = 1478656; /* 1.41 MiB */
    b[0].id.index = 0;
    snprintf(b[1].name, sizeof b[1].name, "gpu/<pool>&'x' long name"); /* changes: plotted */
    b[1].limit = 48u << 20;
    b[1].peak = 6184960; /* 5.9 MiB: a label cut at the margin before */
    b[1].id.index = 1;
    snprintf(b[2].name, sizeof b[2].name, "gpu/staging"); /* never used: neither plotted nor listed */
    b[2].limit = 32u << 20;
    b[2].id.index = 2;
    run_svg_info in = {"city.pack", "default", "host", 1, b, 3, 4096, 16u << 20, 2000000, 0, 0};
    run_timeline_init(&tl);
    for (uint32_t f = 0; f < 300000; f++) {
        slc_stream_frame_stats fs;
        memset(&fs, 0, sizeof fs);
        fs.budget_count = 3;
        fs.budgets[0] = b[0].peak;
        fs.budgets[1] = (f * 7919u) % b[1].peak;
        fs.caller_ns = 1000u + (f % 977u) * 1000u;
        fs.bytes_uploaded = f % 5u == 0 ? 65536u : 0u;
        fs.misses = f % 13u;
        run_timeline_add(&tl, &fs, f % 4096u);
    }
    assert_false(tl.varied[0]);
    assert_true(tl.varied[1]);
    char *buf = NULL, *again = NULL;
    size_t len = 0, len2 = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_int_equal(run_timeline_write_svg(f, &tl, &in), 0);
    assert_int_equal(fclose(f), 0);
    f = open_memstream(&again, &len2);
    assert_non_null(f);
    assert_int_equal(run_timeline_write_svg(f, &tl, &in), 0);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(len, len2); /* deterministic */
    assert_memory_equal(buf, again, len);
    free(again);

    static svg_text_box box[512];
    size_t n = svg_texts(buf, box, 512);
    assert_true(n > 10 && n < 512);
    /* Every label in full, escaped. */
    assert_true(has_text(box, n, "label", "gpu/&lt;pool&gt;&amp;&apos;x&apos; long name"));
    assert_true(has_text(box, n, "label", "limit 48 MiB, peak 5.9 MiB"));
    assert_true(has_text(box, n, "label", "caller&apos;s time a frame"));
    assert_true(has_text(box, n, "label", "max 977 \xc2\xb5s, budget 2000 \xc2\xb5s"));
    assert_true(has_text(box, n, "label", "pool pages used"));
    assert_true(has_text(box, n, "label", "bytes uploaded a frame"));
    assert_true(has_text(box, n, "label", "misses a frame"));
    /* The y axes' values: bytes with units, microseconds, counts; the x axis's frame numbers. */
    assert_true(has_text(box, n, "ytick", "48 MiB"));
    assert_true(has_text(box, n, "ytick", "24 MiB"));
    assert_true(has_text(box, n, "ytick", "0 B"));
    assert_true(has_text(box, n, "ytick", "2000 \xc2\xb5s"));
    assert_true(has_text(box, n, "ytick", "4096"));
    assert_true(has_text(box, n, "xtick", "0"));
    assert_true(has_text(box, n, "xtick", "50000"));
    assert_true(has_text(box, n, "xtick", "250000"));
    /* The flat budget in the table, not plotted; the unused one nowhere. */
    assert_true(has_text(box, n, "cell", "cpu/meta"));
    assert_true(has_text(box, n, "cell", "8 MiB"));
    assert_true(has_text(box, n, "cell", "1.4 MiB"));
    assert_false(has_text(box, n, "label", "cpu/meta"));
    assert_null(strstr(buf, "gpu/staging"));
    /* Rows: the caller's time, the changing budget, pool, upload, misses. */
    size_t plots = 0;
    for (const char *p = strstr(buf, "class=\"plot\""); p != NULL; p = strstr(p + 1, "class=\"plot\"")) {
        plots++;
    }
    assert_int_equal(plots, 5);
    /* Each label ends before the y axis's values start, and those before the plots. */
    const double plot_x = atof(strstr(buf, "<rect x=\"") + 9); /* the first plot's: all start there */
    double ytick_x0 = 1e9, label_x1 = 0;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(box[i].cls, "label") == 0) {
            label_x1 = box[i].x1 > label_x1 ? box[i].x1 : label_x1;
        } else if (strcmp(box[i].cls, "ytick") == 0) {
            ytick_x0 = box[i].x0 < ytick_x0 ? box[i].x0 : ytick_x0;
            assert_true(box[i].x1 <= plot_x);
        }
        assert_true(box[i].x0 >= 0);
    }
    assert_true(label_x1 <= ytick_x0);
    assert_series_bounded(buf);
    assert_true(len < 1000000u);
    free(buf);
}

static void test_chrome_trace_stops_at_its_cap(void **state)
{
    (void)state;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    run_chrome c;
    run_chrome_begin(&c, f, 1, NULL, 0);
    slc_stream_frame_stats fs = frame_with(1);
    for (uint32_t k = 0; k < RUN_CHROME_FRAMES_MAX + 5u; k++) {
        run_chrome_frame(&c, k, 1000u * k, 1000u * k + 500u, &fs, 1, 0);
        run_chrome_load(&c, 0, 1000u * k, 1000u * k + 100u);
    }
    assert_int_equal(run_chrome_end(&c, 2), 0);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(c.frames_written, RUN_CHROME_FRAMES_MAX);
    assert_int_equal(c.frames_left_out, 5);
    assert_int_equal(c.loads_left_out, 5); /* the loads of the frames left out */
    assert_non_null(strstr(buf, "\"args\": {\"frame\": 99999,"));
    assert_null(strstr(buf, "\"args\": {\"frame\": 100000,"));
    assert_non_null(strstr(buf, "not recorded: 5 frames after the first 100000, 7 loads"));
    assert_int_equal(strcmp(buf + len - 4, "\n]}\n"), 0);
    free(buf);
}

/* Every frame slice has one name, its number an argument; the counter
 * tracks are sampled each frame, a budget's only where its value changed,
 * and budget names are escaped. */
static void test_chrome_trace_counter_tracks(void **state)
{
    (void)state;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    slc_budget_stats b[2];
    memset(b, 0, sizeof b);
    strcpy(b[0].name, "gpu/pool");
    strcpy(b[1].name, "cpu/\"q\"");
    run_chrome c;
    run_chrome_begin(&c, f, 0, b, 2);
    slc_stream_frame_stats fs = frame_with(5);
    run_chrome_frame(&c, 0, 0, 500, &fs, 7, 3);
    run_chrome_frame(&c, 1, 1000, 1500, &fs, 7, 0); /* no budget changed */
    fs.budgets[1] = 11;
    run_chrome_frame(&c, 2, 2000, 2500, &fs, 8, 1); /* budget 1 changed */
    assert_int_equal(run_chrome_end(&c, 0), 0);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(count(buf, "\"name\": \"frame\", \"cat\": \"frame\""), 3);
    assert_non_null(strstr(buf, "\"args\": {\"frame\": 2, \"requests\""));
    assert_int_equal(count(buf, "\"name\": \"misses\", \"ph\": \"C\""), 3);
    assert_int_equal(count(buf, "\"name\": \"caller loads\", \"ph\": \"C\""), 3);
    assert_non_null(strstr(buf, "\"ts\": 0.500, \"args\": {\"loads\": 3}"));
    assert_int_equal(count(buf, "\"name\": \"budget gpu/pool\""), 1);
    assert_int_equal(count(buf, "\"name\": \"budget cpu/\\\"q\\\"\""), 2);
    assert_non_null(strstr(buf, "\"ts\": 2.500, \"args\": {\"bytes\": 11}"));
    free(buf);
}

/* The texture pool's counter track: its pages used and the frame's tile
 * misses at the frame's end; none once frames are left out. */
static void test_chrome_trace_texture_pool_counters(void **state)
{
    (void)state;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    run_chrome c;
    run_chrome_begin(&c, f, 0, NULL, 0);
    slc_stream_frame_stats fs = frame_with(1);
    run_chrome_frame(&c, 0, 0, 500, &fs, 7, 0);
    run_chrome_textures(&c, 500, 12, 98);
    c.frames_written = RUN_CHROME_FRAMES_MAX;
    run_chrome_frame(&c, 1, 1000, 1500, &fs, 7, 0); /* left out */
    run_chrome_textures(&c, 1500, 20, 0);
    assert_int_equal(run_chrome_end(&c, 0), 0);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(count(buf, "\"name\": \"texture pool\", \"ph\": \"C\""), 1);
    assert_non_null(strstr(buf, "\"ts\": 0.500, \"args\": {\"pages used\": 12, \"tile misses\": 98}"));
    free(buf);
}

/* The eviction log file (run_files.c): each pool's entries on their own
 * lines, the texture pool's tagged "t "; a ring that overran says, with the
 * pool's tag, how many entries were lost, and the walk goes on from the
 * oldest kept. A pool of 2 pages, a log ring of 2, 5 loads (3 evictions). */
static void test_evict_log_tags_and_lost_entries(void **state)
{
    (void)state;
    enum { PAGES = 2, LOADS = 5 };
    size_t sfp = slc_host_store_footprint(PAGES, 64);
    void *smem = aligned_alloc(SLC_POOL_ALIGN, (sfp + SLC_POOL_ALIGN - 1u) & ~(size_t)(SLC_POOL_ALIGN - 1u));
    slc_page_store store;
    assert_int_equal(slc_host_store_init_at(smem, sfp, NULL, SLC_BUDGET_NONE, PAGES, 64, NULL, &store), SLC_OK);
    slc_pool_desc d;
    memset(&d, 0, sizeof d);
    d.page_count = PAGES;
    d.max_chunks = 16;
    d.frames_in_flight = 1;
    d.log_capacity = 2;
    d.eviction = SLC_EVICTION_LRU;
    size_t pfp = slc_pool_footprint(&d);
    void *pmem = aligned_alloc(SLC_POOL_ALIGN, (pfp + SLC_POOL_ALIGN - 1u) & ~(size_t)(SLC_POOL_ALIGN - 1u));
    slc_pool *pool = NULL;
    assert_int_equal(slc_pool_init(pmem, pfp, &d, &store, NULL, &pool), SLC_OK);
    for (uint32_t c = 0; c < LOADS; c++) {
        assert_int_equal(slc_pool_begin_frame(pool, NULL), SLC_OK);
        slc_pool_request q = {{c}, {0}, 0, 0};
        slc_page pg;
        void *dst = NULL;
        assert_int_equal(slc_pool_acquire(pool, &q, &pg), SLC_OK);
        assert_int_equal(slc_pool_write_begin(pool, pg, &dst), SLC_OK);
        assert_int_equal(slc_pool_write_end(pool, pg, 0), SLC_OK);
        assert_int_equal(slc_pool_end_frame(pool), SLC_OK);
    }
    for (int textures = 0; textures < 2; textures++) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        assert_non_null(f);
        uint64_t next = 0, lost = 0;
        run_evict_log_begin(f, textures);
        run_evict_log_walk(f, pool, textures ? "t " : "", &next, &lost);
        assert_int_equal(fclose(f), 0);
        assert_int_equal(next, LOADS);
        assert_int_equal(lost, LOADS - 2);
        const char *want = textures ? "# sluice eviction log: seq frame evicted page loaded partition ('-': no chunk)\n"
                                      "# the texture pool's entries: t seq frame evicted page loaded partition (its "
                                      "own seq)\n"
                                      "# t 3 entries lost (the pool's log ring overran)\n"
                                      "t 3 4 1 1 3 0\n"
                                      "t 4 5 2 0 4 0\n"
                                    : "# sluice eviction log: seq frame evicted page loaded partition ('-': no chunk)\n"
                                      "# 3 entries lost (the pool's log ring overran)\n"
                                      "3 4 1 1 3 0\n"
                                      "4 5 2 0 4 0\n";
        assert_string_equal(buf, want);
        free(buf);
    }
    slc_host_store_deinit(&store);
    free(pmem);
    free(smem);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hist_small_values_are_exact),
        cmocka_unit_test(test_hist_percentiles_within_one_in_128),
        cmocka_unit_test(test_timeline_one_point_a_frame_up_to_its_size),
        cmocka_unit_test(test_timeline_points_are_maxima_over_a_million_frames),
        cmocka_unit_test(test_svg_escapes_names_and_stays_small),
        cmocka_unit_test(test_svg_labels_axes_and_flat_budgets_in_a_table),
        cmocka_unit_test(test_svg_texture_pool_rows),
        cmocka_unit_test(test_chrome_trace_stops_at_its_cap),
        cmocka_unit_test(test_chrome_trace_counter_tracks),
        cmocka_unit_test(test_chrome_trace_texture_pool_counters),
        cmocka_unit_test(test_evict_log_tags_and_lost_entries),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
