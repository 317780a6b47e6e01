/* SPDX-License-Identifier: MIT */
/* What the stream's tests share over any page store (test_stream.c on the
 * host store, test_stream_vulkan.c on the Vulkan backend and on the host
 * store dressed as a belt; test_io_faults.c flies the same camera over a
 * faulty file, test_stream_rules.c runs through the belt wrapper, and
 * test_soak.c and test_fault_sweep.c set their streams up with these
 * steps): the fly-through's pack, camera and constants
 * (its eviction log and frames hashes are those of the host backend, the
 * same on every architecture, worker count and backend), how a frame is
 * folded into the frames hash, the check of every result an ended frame
 * resolved, the budgets check, the steps that set a stream up, and a
 * wrapper that hides a store's host addresses the way a staging belt does.
 *
 * Built on stream_file_fixture.h (the memory block and the host store) and
 * stream_pack.h (the generated pack and its reader): the including file
 * defines _POSIX_C_SOURCE 200809L (or _GNU_SOURCE) before its first
 * include. */
#ifndef SLUICE_STREAM_FIXTURE_H
#define SLUICE_STREAM_FIXTURE_H

#include "stream_file_fixture.h"

/* --- the fly-through --------------------------------------------------------------- */

/* 48 objects of 3 levels (6, 2 and 1 chunks), 432 chunks of 4 KiB pages. */
static const sp_params fly_pack = {4096, 48, 3, {6, 2, 1}, 42};
#define FLY_FRAMES 400u

/* The eviction log of the fly-through on the host backend, a constant on
 * every architecture and worker count (test_stream.c prints it when it
 * differs, to update it on purpose), and the hash of its frames. */
#define FLY_LOG_HASH 0xb8918ea357201b1full
#define FLY_LOG_COUNT 774u
#define FLY_FRAMES_HASH 0x735b5f062d1ea583ull

/* The camera's requests for frame t: objects within 60 units of x(t), the
 * LOD by distance, the priority falling with distance. The camera flies
 * along the line and back. */
static inline uint32_t sfx_camera_requests(uint32_t t, uint32_t objects, slc_stream_object_request *out, uint32_t cap)
{
    uint32_t span = objects * 10u;
    uint32_t pos = (t * 5u / 2u) % (2u * span);
    int32_t x = (int32_t)(pos < span ? pos : 2u * span - pos);
    uint32_t n = 0;
    for (uint32_t o = 0; o < objects && n < cap; o++) {
        int32_t d = (int32_t)(o * 10u + 4u) - x;
        if (d < 0) {
            d = -d;
        }
        if (d > 60) {
            continue;
        }
        out[n].object.index = o;
        out[n].lod = (uint8_t)(d < 15 ? 0 : d < 35 ? 1 : 2);
        out[n].priority = (uint8_t)(255 - d);
        out[n].partition.index = 0;
        n++;
    }
    return n;
}

/* A trace's outcome: the pool's eviction log, the frames hash, the totals. */
typedef struct sfx_trace_result {
    uint64_t log_hash;
    uint64_t log_count;
    uint64_t frames_hash; /* over every frame's counters and resolved LODs */
    slc_stream_stats stats;
    double ms; /* the trace's wall time, where a test measures it */
} sfx_trace_result;

static inline uint64_t sfx_mix(uint64_t h, uint64_t v)
{
    return XXH3_64bits_withSeed(&v, sizeof v, h);
}

/* h with the ended frame's resolved LODs folded in, result by result. */
static inline uint64_t sfx_hash_results(slc_stream *s, uint64_t h)
{
    for (uint32_t i = 0; i < slc_stream_result_count(s); i++) {
        slc_stream_result r;
        assert_int_equal(slc_stream_resident(s, i, &r, NULL, 0) == SLC_OK || r.span_count > 0, 1);
        h = sfx_mix(h, (uint64_t)r.object.index << 8 | r.lod);
    }
    return h;
}

/* h with a frame's counters folded in. */
static inline uint64_t sfx_hash_frame_stats(uint64_t h, const slc_stream_frame_stats *fs)
{
    const uint64_t v[] = {
        fs->requests,      fs->chunks,          fs->hits,       fs->misses,         fs->in_flight,
        fs->loads_started, fs->loads_completed, fs->evictions,  fs->deferred,       fs->dropped,
        fs->fallbacks,     fs->holes,           fs->bytes_read, fs->bytes_uploaded, fs->loads_cancelled};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        h = sfx_mix(h, v[i]);
    }
    return h;
}

/* --- checks after a frame ---------------------------------------------------------- */

/* Every budget's peak is within its limit. */
static inline void sfx_assert_budgets_hold(slc_memory *mem)
{
    slc_budget_stats st[SLC_BUDGET_MAX];
    size_t n = slc_budgets_walk_report(slc_memory_budgets(mem), st, SLC_BUDGET_MAX);
    for (size_t i = 0; i < n; i++) {
        if (st[i].peak > st[i].limit) {
            fail_msg("budget %s: peak %" PRIu64 " above its limit %" PRIu64, st[i].name, st[i].peak, st[i].limit);
        }
    }
}

/* Checks a span's page bytes, as the test's backend sees them; frame is
 * the ended frame's number. */
typedef void (*sfx_span_check)(void *user, const slc_stream_span *span, uint64_t frame);

/* Checks every result of the ended frame: a hole has no spans; otherwise
 * its LOD is the requested one or coarser, it has the level's spans, and
 * each span's chunk is on the span's page, used by this frame, with the
 * page's bytes checked by check. Returns the number of holes. */
static inline uint32_t sfx_check_results(slc_stream *s, const slc_pack *pk, sfx_span_check check, void *user)
{
    uint32_t holes = 0;
    uint32_t n = slc_stream_result_count(s);
    slc_stream_stats ss;
    slc_stream_get_stats(s, &ss);
    for (uint32_t i = 0; i < n; i++) {
        slc_stream_result r;
        slc_stream_span spans[16];
        assert_int_equal(slc_stream_resident(s, i, &r, spans, 16), SLC_OK);
        if (r.lod == SLC_STREAM_LOD_NONE) {
            holes++;
            assert_int_equal(r.span_count, 0);
            continue;
        }
        assert_true(r.lod >= r.requested_lod);
        const slc_pack_object *o = slc_pack_get_object(pk, r.object);
        assert_true(r.lod < o->lod_count);
        assert_int_equal(r.span_count, slc_pack_get_lod(pk, o->first_lod + r.lod)->span_count);
        for (uint32_t k = 0; k < r.span_count; k++) {
            slc_page_info info;
            assert_int_equal(slc_stream_get_chunk_page(s, spans[k].chunk, &info), SLC_OK);
            assert_int_equal(info.page.index, spans[k].page.index);
            assert_int_equal(info.chunk.index, spans[k].chunk.index);
            assert_true(info.last_used == ss.frame); /* used by this frame: protected while it is in flight */
            check(user, &spans[k], ss.frame);
        }
    }
    return holes;
}

/* --- setting a stream up -------------------------------------------------------------- */

static inline uint64_t sfx_clock_ns(void)
{
    return slc_platform_now_ns();
}

/* Parses a profile the test wrote; a refusal fails the test with its message. */
static inline void sfx_profile_parse(const char *text, const char *file, slc_profile *profile)
{
    slc_profile_diag diag;
    if (slc_profile_parse(text, strlen(text), file, profile, &diag) != SLC_OK) {
        fail_msg("%s", diag.message);
    }
}

/* Opens the pack behind io as 'stream.pack', its tables in cpu/meta. */
static inline void sfx_pack_open(slc_memory *mem, const slc_io *io, const slc_profile *profile, const slc_logger *log,
                                 slc_pack **pk)
{
    slc_arena *meta;
    assert_int_equal(slc_memory_scan_arena(mem, "cpu/meta", &meta), SLC_OK);
    assert_int_equal(slc_pack_open(io, "stream.pack", profile, meta, log, pk), SLC_OK);
}

/* Creates the stream of d (a refusal fails the test with the status and the
 * stream's last message, log) and, with workers > 0, starts that many
 * threads on w running it; d's executor is w's then. */
static inline void sfx_stream_start(slc_stream_desc *d, uint32_t workers, slc_platform_workers *w,
                                    const capture_log *log, slc_stream **s)
{
    if (workers > 0) {
        slc_platform_workers_executor(w, &d->executor);
    }
    slc_status st = slc_stream_create(d, s);
    if (st != SLC_OK) {
        fail_msg("create: %s: %s", slc_status_name(st), log->message);
    }
    if (workers > 0) {
        assert_int_equal(slc_platform_workers_start(w, workers, sff_work, *s, NULL), SLC_OK);
    }
}

/* --- a store as a staging belt ------------------------------------------------------------ */

/* A store whose pages have no host address, as a belt's device memory has
 * none, so the stream counts its uploads in whole pages and holds them to
 * the belt's share. Everything else is the wrapped store's. */
static inline void sfx_belt_locate(void *self, uint32_t page, slc_page_location *out)
{
    const slc_page_store *inner = self;
    inner->ops->locate(inner->self, page, out);
    out->host = NULL;
}

static inline slc_status sfx_belt_write_begin(void *self, uint32_t page, void **dst)
{
    const slc_page_store *inner = self;
    return inner->ops->write_begin(inner->self, page, dst);
}

static inline slc_status sfx_belt_write_end(void *self, uint32_t page, size_t bytes)
{
    const slc_page_store *inner = self;
    return inner->ops->write_end(inner->self, page, bytes);
}

static inline slc_status sfx_belt_submit(void *self, uint64_t frame)
{
    const slc_page_store *inner = self;
    return inner->ops->submit(inner->self, frame);
}

static inline uint64_t sfx_belt_retired(void *self)
{
    const slc_page_store *inner = self;
    return inner->ops->retired(inner->self);
}

static const slc_page_store_ops sfx_belt_ops = {sfx_belt_locate, sfx_belt_write_begin, sfx_belt_write_end,
                                                sfx_belt_submit, sfx_belt_retired};

/* *belt: inner (which must outlive it) without its host addresses. */
static inline void sfx_belt_wrap(slc_page_store *inner, slc_page_store *belt)
{
    *belt = *inner;
    belt->ops = &sfx_belt_ops;
    belt->self = inner;
}

#endif
