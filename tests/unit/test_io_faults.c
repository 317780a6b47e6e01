/* SPDX-License-Identifier: MIT */
/* I/O faults through platform/, on a real file: a generated pack written to
 * a temporary file, opened with slc_platform_file_open(SLC_PLATFORM_FILE_PREAD)
 * and streamed by the fly-through of stream_fixture.h (its pack and its
 * camera, for FRAMES frames) on the host backend, inline
 * and with 2 workers, while at every frame k of the run in turn one fault
 * is injected:
 *   eio        the next pread fails with EIO (the platform's fault hook)
 *   short      the next read gets half its bytes, then end of file
 *   truncate   the file is cut (ftruncate) inside the next chunk to be read:
 *              every later read of a chunk past the end is short
 *   rewrite    the next chunk to be read has a byte changed on disk
 *   retried    preads interrupted (EINTR) and partial: the reader retries
 *              and continues them, so nothing fails at all
 * Each time: the run goes on; each frame's failures are exactly the loads
 * the fault broke, each kept with its status on the chunk; every object
 * request resolves (pin_coarsest 1: no hole); slc_stream_check holds and
 * every budget is within its limit every frame; every visible page holds
 * its chunk's bytes; after teardown every budget's current use is 0; and a
 * following clean run over the restored file gives the clean eviction log.
 * (A mapped pack truncated under the reader, whose SIGBUS the platform
 * turns into SLC_E_IO, is test_mapped_faults.c.) */
#define _GNU_SOURCE 1 /* ftruncate, pwrite, mkstemp, nanosleep */
#include <inttypes.h>

#include "stream_fixture.h"

/* --- the pack and the fault hook ------------------------------------------------- */

#define FRAMES 40u
#define FRAME_SLOTS (FRAMES + 8u)

/* The clean run's eviction log: the same on every architecture and worker
 * count (printed when it differs, to update it on purpose). */
#define CLEAN_LOG_HASH 0xb9e264009e6e7ab4ull

typedef enum fault_kind { F_NONE, F_EIO, F_SHORT, F_TRUNCATE, F_REWRITE, F_RETRIED, F_KINDS } fault_kind;
static const char *const kind_names[F_KINDS] = {"clean", "eio", "short", "truncate", "rewrite", "retried"};

/* What the hook injects and what it saw, shared with the readers. */
typedef struct faults {
    const slc_pack_chunk *table; /* the pack's chunk table (sorted by offset) */
    uint32_t chunk_count;
    _Atomic uint32_t eio;                     /* next n reads: pread fails with EIO */
    _Atomic uint32_t shorts;                  /* next n reads: half the bytes, then end of file */
    _Atomic uint32_t eintr;                   /* next n pread calls: EINTR */
    _Atomic uint32_t partial;                 /* next n pread calls: half the bytes asked */
    _Atomic uint64_t short_end;               /* where the short read's file ends (UINT64_MAX: none) */
    _Atomic uint64_t cut;                     /* the file's length after truncation (UINT64_MAX: whole) */
    _Atomic uint32_t bad_chunk;               /* the rewritten chunk (UINT32_MAX: none) */
    _Atomic uint32_t frame;                   /* the stream frame whose loads are being read */
    _Atomic uint32_t expect[FRAME_SLOTS];     /* loads of each frame the fault breaks */
    _Atomic uint32_t status[FRAME_SLOTS];     /* and the status they fail with (one per run) */
    _Atomic uint32_t hit;                     /* a chunk an injected eio/short read failed (UINT32_MAX: none) */
    _Atomic uint32_t first_read[FRAME_SLOTS]; /* lowest chunk read in each frame (clean run) */
} faults;

static uint32_t chunk_at(const faults *q, uint64_t offset)
{
    for (uint32_t lo = 0, hi = q->chunk_count; lo < hi;) {
        uint32_t mid = lo + (hi - lo) / 2u;
        if (q->table[mid].offset == offset) {
            return mid;
        }
        if (q->table[mid].offset < offset) {
            lo = mid + 1u;
        } else {
            hi = mid;
        }
    }
    return UINT32_MAX;
}

static bool take(_Atomic uint32_t *n)
{
    uint32_t v = atomic_load(n);
    while (v > 0) {
        if (atomic_compare_exchange_weak(n, &v, v - 1u)) {
            return true;
        }
    }
    return false;
}

static void expect_failure(faults *q, slc_status st)
{
    uint32_t f = atomic_load(&q->frame);
    assert_true(f < FRAME_SLOTS);
    atomic_fetch_add(&q->expect[f], 1u);
    atomic_store(&q->status[f], (uint32_t)st);
}

static int fault_hook(void *user, uint64_t offset, size_t *size)
{
    faults *q = user;
    uint64_t end = offset;
    if (atomic_compare_exchange_strong(&q->short_end, &end, UINT64_MAX)) {
        *size = 0; /* the rest of the short read: end of file */
        return 0;
    }
    uint32_t c = chunk_at(q, offset); /* UINT32_MAX: the rest of a partial read */
    if (c != UINT32_MAX) {
        uint32_t f = atomic_load(&q->frame);
        uint32_t lowest = atomic_load(&q->first_read[f]);
        while (c < lowest && !atomic_compare_exchange_weak(&q->first_read[f], &lowest, c)) {
        }
        if (take(&q->eio)) {
            atomic_store(&q->hit, c);
            expect_failure(q, SLC_E_IO);
            return EIO;
        }
        if (*size > 1u && take(&q->shorts)) {
            atomic_store(&q->hit, c);
            expect_failure(q, SLC_E_IO_SHORT);
            *size /= 2u;
            atomic_store(&q->short_end, offset + *size);
            return 0;
        }
        if (q->table[c].offset + q->table[c].stored_size > atomic_load(&q->cut)) {
            expect_failure(q, SLC_E_IO_SHORT); /* the real pread will come up short */
        }
        if (c == atomic_load(&q->bad_chunk)) {
            expect_failure(q, SLC_E_PACK_CHUNK_CHECKSUM);
        }
    }
    if (take(&q->eintr)) {
        return EINTR;
    }
    if (*size > 1u && take(&q->partial)) {
        *size /= 2u;
    }
    return 0;
}

/* --- the stream over the file --------------------------------------------------- */

static void fx_open(sff_fixture *f, const disk *d, faults *q, uint32_t workers)
{
    /* the real file, read through pread, with the hook */
    const sff_desc desc = {
        .name = "io-faults",
        .pack_name = "io.pack",
        .pages = 96,
        .upload_kib = 16,
        .workers = workers,
        .access = SFF_PREAD,
        .hook = fault_hook,
        .hook_user = q,
        .now_ns = slc_platform_now_ns,
        .check_teardown = true,
    };
    sff_open(f, d, &desc); /* pins load here, before any fault */
}

/* A span's page, read through its host address, holds its chunk's decoded
 * bytes (user: the disk). */
static void span_holds(void *user, const slc_stream_span *span, uint64_t frame)
{
    const disk *d = user;
    (void)frame;
    sp_assert_page_holds(&d->pack, span->location.host, span->chunk.index);
}

typedef struct run_result {
    uint64_t log_hash;
    uint64_t failures;
    uint64_t fallbacks;
} run_result;

/* Streams FRAMES frames; inject(k) runs after begin_frame of run frame k
 * (nothing is being read then: with load_frames 1 begin_frame has applied
 * every load). */
typedef void (*inject_fn)(disk *d, faults *q, uint32_t k, fault_kind kind);

static void run(disk *d, faults *q, uint32_t workers, fault_kind kind, uint32_t at, inject_fn inject, run_result *out)
{
    sff_fixture f;
    fx_open(&f, d, q, workers);
    slc_stream_object_request req[64];
    uint64_t failures = 0;
    for (uint32_t t = 1; t <= FRAMES; t++) {
        uint64_t frame = 0;
        assert_int_equal(slc_stream_begin_frame(f.s, &frame), SLC_OK);
        assert_int_equal(frame, t + 1u); /* frame 1 wrote the pinned chunks */
        if (t == at && inject != NULL) {
            inject(d, q, t, kind);
        }
        atomic_store(&q->frame, (uint32_t)frame);
        uint32_t n = sfx_camera_requests(t, fly_pack.objects, req, 64);
        for (uint32_t i = 0; i < n; i++) {
            assert_int_equal(slc_stream_request(f.s, &req[i]), SLC_OK);
        }
        assert_int_equal(slc_stream_end_frame(f.s), SLC_OK);
        /* every result checked, every visible page holding its chunk's
         * decoded bytes; pinned coarsest levels: never a hole */
        assert_int_equal(sfx_check_results(f.s, f.pk, span_holds, d), 0);
        /* the failures applied this frame are exactly the loads of the
         * previous frame the fault broke */
        slc_stream_frame_stats fs;
        assert_int_equal(slc_stream_walk_telemetry(f.s, &fs, 1), 1);
        assert_int_equal(fs.frame, frame);
        uint32_t expect = atomic_load(&q->expect[frame - 1u]);
        if (fs.failures != expect) {
            fail_msg("%s at frame %u, %u workers: frame %" PRIu64 " applied %u failures, expected %u", kind_names[kind],
                     at, workers, frame, fs.failures, expect);
        }
        failures += fs.failures;
        if (fs.failures > 0) {
            slc_status want = (slc_status)atomic_load(&q->status[frame - 1u]);
            pthread_mutex_lock(&f.pack_log.mu);
            assert_int_equal(f.pack_log.status, want);
            assert_true(strncmp(f.pack_log.message, "pack 'io.pack': chunk ", 22) == 0);
            pthread_mutex_unlock(&f.pack_log.mu);
        }
        /* every failed chunk keeps the status the fault gives it */
        for (uint32_t c = 0; c < d->pack.chunk_count; c++) {
            slc_stream_chunk_info ci;
            slc_stream_get_chunk(f.s, (slc_chunk_id){c}, &ci);
            if (ci.state != SLC_STREAM_CHUNK_FAILED) {
                continue;
            }
            const slc_pack_chunk *rec = slc_pack_get_chunk(f.pk, (slc_chunk_id){c});
            slc_status want = kind == F_EIO        ? SLC_E_IO
                              : kind == F_SHORT    ? SLC_E_IO_SHORT
                              : kind == F_TRUNCATE ? SLC_E_IO_SHORT
                              : kind == F_REWRITE  ? SLC_E_PACK_CHUNK_CHECKSUM
                                                   : SLC_OK;
            if (ci.status != want || ci.attempts == 0 || ci.attempts > SLC_STREAM_MAX_ATTEMPTS) {
                fail_msg("%s at frame %u: chunk %u failed with %s, %u attempts", kind_names[kind], at, c,
                         slc_status_name(ci.status), ci.attempts);
            }
            if (kind == F_EIO || kind == F_SHORT) {
                assert_int_equal(c, atomic_load(&q->hit));
                assert_int_equal(ci.attempts, 1); /* the fault was once: its retry succeeds */
            } else if (kind == F_TRUNCATE) {
                assert_true(rec->offset + rec->stored_size > atomic_load(&q->cut));
            } else if (kind == F_REWRITE) {
                assert_int_equal(c, atomic_load(&q->bad_chunk));
            }
        }
        assert_true(slc_stream_check(f.s));
        sfx_assert_budgets_hold(f.mem); /* current <= peak <= limit */
    }
    slc_stream_stats ss;
    slc_stream_get_stats(f.s, &ss);
    assert_int_equal(ss.failures, failures);
    slc_pool_stats ps;
    slc_pool_get_stats(slc_stream_pool(f.s), &ps);
    out->log_hash = ps.log_hash;
    out->failures = failures;
    out->fallbacks = ss.fallbacks;
    sff_close(&f);
}

static void faults_reset(faults *q, const disk *d)
{
    memset(q, 0, sizeof *q);
    const slc_pack_header *h = (const slc_pack_header *)(const void *)d->pack.data;
    q->table = (const slc_pack_chunk *)(const void *)(d->pack.data + h->chunk_offset);
    q->chunk_count = h->chunk_count;
    atomic_store(&q->short_end, UINT64_MAX);
    atomic_store(&q->cut, UINT64_MAX);
    atomic_store(&q->bad_chunk, UINT32_MAX);
    atomic_store(&q->hit, UINT32_MAX);
    for (uint32_t i = 0; i < FRAME_SLOTS; i++) {
        atomic_store(&q->first_read[i], UINT32_MAX);
    }
}

/* The first chunk the clean run read in run frames k..last, or UINT32_MAX. */
static uint32_t next_read(const uint32_t *clean_first, uint32_t k, uint32_t last)
{
    for (uint32_t t = k; t <= last; t++) {
        if (clean_first[t] != UINT32_MAX) {
            return clean_first[t];
        }
    }
    return UINT32_MAX;
}

static uint32_t clean_first[FRAMES + 1u]; /* by run frame */

static void inject(disk *d, faults *q, uint32_t k, fault_kind kind)
{
    uint32_t c = next_read(clean_first, k, FRAMES);
    switch (kind) {
    case F_EIO:
        atomic_store(&q->eio, 1u);
        break;
    case F_SHORT:
        atomic_store(&q->shorts, 1u);
        break;
    case F_TRUNCATE:
        if (c != UINT32_MAX) { /* cut inside the next chunk to be read */
            uint64_t cut = q->table[c].offset + q->table[c].stored_size / 2u;
            atomic_store(&q->cut, cut);
            assert_int_equal(ftruncate(d->fd, (off_t)cut), 0);
        }
        break;
    case F_REWRITE:
        if (c != UINT32_MAX) {
            uint64_t at = q->table[c].offset + q->table[c].stored_size / 2u;
            unsigned char b = (unsigned char)(d->pack.data[at] ^ 0x5Au);
            assert_int_equal(pwrite(d->fd, &b, 1, (off_t)at), 1);
            atomic_store(&q->bad_chunk, c);
        }
        break;
    case F_RETRIED:
        atomic_store(&q->eintr, 3u);
        atomic_store(&q->partial, 3u);
        break;
    default:
        break;
    }
}

static void test_every_fault_at_every_frame(void **state)
{
    (void)state;
    disk d; /* the pack, written once; rewritten whole before each run */
    disk_create(&d, &fly_pack, "io");
    faults *q = calloc(1, sizeof *q);
    assert_non_null(q);

    /* The clean run, inline: the eviction log and the chunks read in each frame. */
    run_result clean;
    faults_reset(q, &d);
    run(&d, q, 0, F_NONE, 0, NULL, &clean);
    assert_int_equal(clean.failures, 0);
    uint32_t reading_frames = 0;
    for (uint32_t t = 1; t <= FRAMES; t++) {
        clean_first[t] = atomic_load(&q->first_read[t + 1u]);
        reading_frames += clean_first[t] != UINT32_MAX;
    }
    assert_true(reading_frames >= FRAMES / 2u); /* the camera keeps loading */
    printf("clean: log hash 0x%016" PRIx64 ", %u of %u frames read chunks, %" PRIu64 " fallbacks\n", clean.log_hash,
           reading_frames, FRAMES, clean.fallbacks);
    assert_int_equal(clean.log_hash, CLEAN_LOG_HASH);

    uint32_t points = 0;
    uint64_t total_failures[F_KINDS] = {0};
    for (uint32_t w = 0; w <= 2; w += 2) {
        for (int kind = F_EIO; kind < F_KINDS; kind++) {
            for (uint32_t k = 1; k <= FRAMES; k++) {
                run_result r;
                faults_reset(q, &d);
                run(&d, q, w, (fault_kind)kind, k, inject, &r);
                total_failures[kind] += r.failures;
                if (kind == F_RETRIED) {
                    assert_int_equal(r.failures, 0);
                    assert_int_equal(r.log_hash, clean.log_hash); /* retried calls change nothing */
                } else if (next_read(clean_first, k, FRAMES - 1u) != UINT32_MAX) {
                    /* a read followed, applied within the run: the fault was met */
                    assert_true(r.failures > 0);
                }
                /* the following run, over the restored file: clean again */
                disk_restore(&d);
                faults_reset(q, &d);
                run(&d, q, w, F_NONE, 0, NULL, &r);
                assert_int_equal(r.failures, 0);
                if (r.log_hash != clean.log_hash) {
                    fail_msg("after %s at frame %u with %u workers: log hash 0x%016" PRIx64 ", clean 0x%016" PRIx64,
                             kind_names[kind], k, w, r.log_hash, clean.log_hash);
                }
                points++;
            }
        }
    }
    printf("%u fault points (%u frames x %d kinds x 2 worker counts), each followed by a clean run\n", points, FRAMES,
           F_KINDS - 1);
    for (int kind = F_EIO; kind < F_KINDS; kind++) {
        printf("  %-8s %" PRIu64 " failed loads in all\n", kind_names[kind], total_failures[kind]);
    }
    free(q);
    disk_remove(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_fault_at_every_frame),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
