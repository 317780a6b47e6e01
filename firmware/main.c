/* SPDX-License-Identifier: MIT */
/* A bare-metal firmware image that streams: the runtime linked into an
 * image with no OS, no threads, no file system and no heap. Every byte it
 * uses is a static array sized by `sluice budget header` (the memory block
 * and the host backend's pages) or the stack; the pack is linked in and
 * read in place (slc_io_from_memory); the camera's path is a trace the
 * host's `sluice run --save-trace` wrote, replayed frame by frame with
 * workers = 0 (the caller loads). It prints the run's report and the
 * eviction log's hash over semihosting, in the form firmware/run_qemu.sh
 * compares with the Linux build's `sluice run` of the same pack, profile
 * and path. */
#include <stdint.h>
#include <string.h>

#include "firmware.h"
#include "firmware_profile.h"
#include "sluice/sluice.h"

#define PROFILE slc_profile_firmware

static _Alignas(SLC_PROFILE_FIRMWARE_BLOCK_ALIGN) unsigned char block[SLC_PROFILE_FIRMWARE_BLOCK_SIZE];
static _Alignas(SLC_PROFILE_FIRMWARE_HOST_PAGES_ALIGN) unsigned char pages[SLC_PROFILE_FIRMWARE_HOST_PAGES_SIZE];

/* --- output: one line at a time, no stdio ---------------------------------------------------- */

typedef struct line {
    char text[256];
    size_t n;
} line;

static void put_str(line *l, const char *s)
{
    while (*s != '\0' && l->n + 1 < sizeof l->text) {
        l->text[l->n++] = *s++;
    }
    l->text[l->n] = '\0';
}

static void put_u64(line *l, uint64_t v)
{
    char digits[21];
    size_t i = sizeof digits - 1;
    digits[i] = '\0';
    do {
        digits[--i] = (char)('0' + v % 10u);
        v /= 10u;
    } while (v != 0);
    put_str(l, digits + i);
}

static void put_hex64(line *l, uint64_t v)
{
    char digits[19] = "0x";
    for (int i = 0; i < 16; i++) {
        digits[2 + i] = "0123456789abcdef"[(v >> (60 - 4 * i)) & 0xfu];
    }
    digits[18] = '\0';
    put_str(l, digits);
}

static void put_line(line *l)
{
    put_str(l, "\n");
    fw_puts(l->text);
    l->n = 0;
    l->text[0] = '\0';
}

static _Noreturn void fail(const char *what, slc_status s)
{
    line l = {{0}, 0};
    put_str(&l, "firmware: ");
    put_str(&l, what);
    put_str(&l, " (");
    put_str(&l, slc_status_name(s));
    put_str(&l, ")");
    put_line(&l);
    fw_exit(0);
}

static void log_fn(void *user, slc_log_level level, slc_status status, const char *message)
{
    (void)user;
    (void)level;
    (void)status;
    line l = {{0}, 0};
    put_str(&l, "firmware: ");
    put_str(&l, message);
    put_line(&l);
}

static const slc_logger logger = {log_fn, NULL};

/* --- the camera's path: a trace (docs/trace-format.md) read in place ------------------------- */

/* The requests sluice run's camera writes: "sluice-trace 1", "frames N",
 * then "FRAME obj OBJECT LOD PRIORITY" and "FRAME chunk CHUNK PRIORITY" in
 * frame order, comments and blank lines anywhere. A partition name or any
 * other line fails the run: this reader takes what the camera writes,
 * sluice run reads every trace. */
typedef struct trace {
    const char *at, *end;
    uint32_t frames;
    int chunk;      /* the pending request is a chunk request */
    uint32_t frame; /* of the pending request; UINT32_MAX: none left */
    uint32_t id;    /* object or chunk */
    uint32_t lod;   /* object requests */
    uint32_t priority;
} trace;

static void skip_blanks(trace *t)
{
    while (t->at < t->end && (*t->at == ' ' || *t->at == '\t' || *t->at == '\r')) {
        t->at++;
    }
}

/* The next word of the line, or an empty one at its end. */
static size_t word(trace *t, const char **w)
{
    skip_blanks(t);
    *w = t->at;
    while (t->at < t->end && *t->at != ' ' && *t->at != '\t' && *t->at != '\r' && *t->at != '\n' && *t->at != '#') {
        t->at++;
    }
    return (size_t)(t->at - *w);
}

static int word_is(trace *t, const char *want)
{
    const char *w;
    size_t n = word(t, &w);
    return n == strlen(want) && memcmp(w, want, n) == 0;
}

static int number(trace *t, uint32_t *out)
{
    const char *w;
    size_t n = word(t, &w);
    uint64_t v = 0;
    if (n == 0 || n > 10) {
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        if (w[i] < '0' || w[i] > '9') {
            return 0;
        }
        v = v * 10u + (uint64_t)(w[i] - '0');
    }
    if (v > UINT32_MAX) {
        return 0;
    }
    *out = (uint32_t)v;
    return 1;
}

/* Past the end of the line: only blanks and a comment may remain. */
static int line_end(trace *t)
{
    skip_blanks(t);
    if (t->at < t->end && *t->at == '#') {
        while (t->at < t->end && *t->at != '\n') {
            t->at++;
        }
    }
    if (t->at < t->end && *t->at != '\n' && *t->at != '\0') {
        return 0;
    }
    if (t->at < t->end) {
        t->at++;
    }
    return 1;
}

/* Skips blank and comment lines; 0 at the end of the trace. */
static int next_line(trace *t)
{
    for (;;) {
        skip_blanks(t);
        if (t->at >= t->end || *t->at == '\0') {
            return 0;
        }
        if (*t->at != '\n' && *t->at != '#') {
            return 1;
        }
        (void)line_end(t);
    }
}

static void trace_fail(void)
{
    fail("the camera trace has a line this reader does not take", SLC_E_INVALID);
}

/* Reads the next request into t (frame UINT32_MAX when none is left). */
static void trace_next(trace *t)
{
    t->frame = UINT32_MAX;
    if (!next_line(t)) {
        return;
    }
    uint32_t frame;
    if (!number(t, &frame) || frame >= t->frames) {
        trace_fail();
    }
    const char *w;
    size_t n = word(t, &w);
    t->chunk = n == 5 && memcmp(w, "chunk", 5) == 0;
    if (!t->chunk && !(n == 3 && memcmp(w, "obj", 3) == 0)) {
        trace_fail();
    }
    t->lod = 0;
    if (!number(t, &t->id) || (!t->chunk && !number(t, &t->lod)) || !number(t, &t->priority) || t->lod > 254u ||
        t->priority > 255u || !line_end(t)) {
        trace_fail();
    }
    t->frame = frame;
}

static void trace_open(trace *t, const unsigned char *data, const unsigned char *end)
{
    memset(t, 0, sizeof *t);
    t->at = (const char *)data;
    t->end = (const char *)end;
    if (!next_line(t) || !word_is(t, "sluice-trace") || !word_is(t, "1") || !line_end(t) || !next_line(t) ||
        !word_is(t, "frames") || !number(t, &t->frames) || !line_end(t)) {
        trace_fail();
    }
    trace_next(t);
}

/* --- the run --------------------------------------------------------------------------------- */

static void report(const slc_stream *s, uint32_t frames)
{
    slc_stream_stats st;
    slc_stream_get_stats(s, &st);
    slc_pool_stats ps;
    slc_pool_get_stats(slc_stream_pool(s), &ps);
    line l = {{0}, 0};
    put_str(&l, "report: frames ");
    put_u64(&l, frames);
    put_str(&l, ", requests ");
    put_u64(&l, st.requests);
    put_str(&l, ", refused ");
    put_u64(&l, st.refused);
    put_str(&l, ", loads ");
    put_u64(&l, st.loads_completed);
    put_str(&l, ", evictions ");
    put_u64(&l, st.evictions);
    put_str(&l, ", failures ");
    put_u64(&l, st.failures);
    put_str(&l, ", eviction log ");
    put_u64(&l, ps.log_count);
    put_str(&l, " entries, hash ");
    put_hex64(&l, ps.log_hash);
    put_line(&l);
}

static void memory_map(void)
{
    line l = {{0}, 0};
    put_str(&l, "ram: block ");
    put_u64(&l, sizeof block);
    put_str(&l, " B, pages ");
    put_u64(&l, sizeof pages);
    put_str(&l, " B, stack ");
    put_u64(&l, FW_STACK_SIZE);
    put_str(&l, " B (");
    put_u64(&l, fw_stack_used());
    put_str(&l, " B used); pack ");
    put_u64(&l, (uint64_t)(fw_pack_end - fw_pack));
    put_str(&l, " B in the image");
    put_line(&l);
}

_Noreturn void fw_main(void)
{
    slc_memory *mem;
    slc_status s = slc_memory_init(block, sizeof block, &PROFILE, &logger, &mem);
    if (s != SLC_OK) {
        fail("the memory block", s);
    }
    slc_arena *meta;
    if ((s = slc_memory_scan_arena(mem, "cpu/meta", &meta)) != SLC_OK) {
        fail("the profile has no cpu/meta arena", s);
    }
    slc_io io;
    slc_io_from_memory(fw_pack, (size_t)(fw_pack_end - fw_pack), &io);
    slc_pack *pack;
    if ((s = slc_pack_open(&io, "city.pack", &PROFILE, meta, &logger, &pack)) != SLC_OK) {
        fail("the pack", s);
    }

    /* The host backend over the static pages. The profile is host-only (no
     * gpu budget): the pages are sized by its [pool] alone and charged to no
     * budget, as sluice run --backend host does with such a profile. */
    slc_pool_spec spec;
    slc_pool_spec_from_profile(&PROFILE, SLC_POOL_GEOMETRY, &spec);
    slc_host_store_desc hd;
    slc_host_store_desc_from_spec(&spec, &hd);
    slc_budgets *budgets = NULL;
    slc_budget_id gpu_pool = SLC_BUDGET_NONE;
    if (spec.budget != NULL) {
        budgets = slc_memory_budgets(mem);
        if ((s = slc_budgets_scan(budgets, spec.budget, &gpu_pool)) != SLC_OK) {
            fail("the profile has no budget for the pool's pages", s);
        }
    }
    slc_page_store store;
    if ((s = slc_host_store_init_at(pages, sizeof pages, budgets, gpu_pool, hd.page_count, hd.page_size, &logger,
                                    &store)) != SLC_OK) {
        fail("the host store", s);
    }

    slc_stream_desc d;
    memset(&d, 0, sizeof d);
    d.profile = &PROFILE;
    d.memory = mem;
    d.pack = pack;
    d.stores[SLC_POOL_GEOMETRY] = &store;
    d.load_frames = SLC_STREAM_DEFAULT_LOAD_FRAMES;
    d.log = &logger;
    slc_stream *stream;
    if ((s = slc_stream_create(&d, &stream)) != SLC_OK) {
        fail("the stream", s);
    }

    trace t;
    trace_open(&t, fw_trace, fw_trace_end);
    const slc_partition def = {0};
    for (uint32_t f = 0; f < t.frames; f++) {
        uint64_t frame;
        if ((s = slc_stream_begin_frame(stream, &frame)) != SLC_OK) {
            fail("begin_frame", s);
        }
        for (; t.frame == f; trace_next(&t)) {
            if (t.chunk) {
                (void)slc_stream_request_chunk(stream, (slc_chunk_id){t.id}, (uint8_t)t.priority, def);
            } else {
                slc_stream_object_request req = {{t.id}, (uint8_t)t.lod, (uint8_t)t.priority, def};
                (void)slc_stream_request(stream, &req); /* a refusal is counted in the stats */
            }
        }
        if ((s = slc_stream_end_frame(stream)) != SLC_OK) {
            fail("end_frame", s);
        }
    }
    if (t.frame != UINT32_MAX) {
        trace_fail(); /* a request past the declared frames */
    }
    report(stream, t.frames);
    memory_map();
    slc_stream_destroy(stream);
    slc_host_store_deinit(&store);
    slc_pack_close(pack);
    slc_memory_deinit(mem);
    fw_exit(1);
}
