/* SPDX-License-Identifier: MIT */
/* sluice bench stream: the streaming scheduler end to end on the host
 * backend (sluice/stream.h), against plain LZ4 decode and a load-everything
 * loader in the same run.
 *
 * 1. Throughput: GB/s of decoded bytes made resident. A pass requests every
 *    chunk of the pack once, in chunk-id order: each frame asks for the
 *    chunks from the first one not yet started up to what the upload cap
 *    (in whole pages and in bytes) and the queue allow, and the window
 *    moves on by the frame's loads_started; the pass ends at the
 *    begin_frame that applies the last load. Timed from the first
 *    begin_frame to that one, in wall time and in CPU time of the whole
 *    process; the stream's creation, its memory block and the workers'
 *    start are outside. Inline (no workers: every load on
 *    the caller's thread), 1 worker and N workers; with workers the caller's
 *    thread also runs unclaimed loads while it waits in begin_frame (the
 *    "by caller" column). The baseline is plain decode of the same chunks
 *    (LZ4_decompress_safe; for the meshopt codecs the tools' decoder,
 *    tools/pack/meshopt_stream.h, after LZ4 for codec 3; a copy for stored
 *    ones) from the same mapping into one page-sized buffer, and for
 *    reference into a ring of pool-sized pages. Repeats go round the modes,
 *    as in bench load, so a noisy spell falls on every mode alike.
 * 2. Per-request cost on the caller's thread: begin_frame to end_frame,
 *    requests included, timed by the tool, less the telemetry's wait_ns.
 *    Hit: the same resident chunks (as many as the queue and the pool hold)
 *    asked for frame after frame. Miss: a pass as in 1 whose every request
 *    is a chunk neither resident nor loading, with 1 worker and an executor
 *    without threads, so every load runs on the caller's thread inside
 *    begin_frame's wait and what is left is the scheduler's own work.
 * 3. Peak process memory: ru_maxrss of forked children, each forked before
 *    the parent allocates anything large, so none inherits another's peak:
 *    an idle child (what every child starts with), the whole pack streamed
 *    through a pool of at most a fiftieth of the pack (read with pread, then
 *    mapped), and a loader that mallocs the whole decoded pack and loads
 *    every chunk into it.
 *
 * The profile's pinning and partitions are set aside (every request goes to
 * one pool, and nothing is loaded at create), so a pass loads every chunk
 * exactly once.
 *
 * A pack with textures: the passes above cover its geometry chunks, and its
 * texture tiles are measured apart (measure_tiles): each tile once, inline,
 * through the texture pool of the profile's [textures] page_count, against
 * their plain decode, per CPU second. Every texture's mip tail is pinned
 * when the stream is made (as any stream of the pack does), so no pass asks
 * for the tails; a geometry pass's texture pool holds them alone. */
#define _POSIX_C_SOURCE 200809L /* fork, pipe, sysconf, getrusage */
#include <errno.h>
#include <lz4.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "cli.h"
#include "meshopt_stream.h"
#include "session.h"
#include "sluice/host_store.h"
#include "sluice/platform.h"
#include "sluice/stream.h"
#include "sluice/workers.h"

enum { REPS_MAX = 99, MODES = 4, MODE_RAW = 0, IDLE_FRAMES_MAX = 64, HIT_REQUESTS = 1000000, RAW_THREADS_MAX = 2 };
#define USAGE "usage: sluice bench stream PACK [--profile FILE] [--workers N] [--reps N] [--pool-pages N] [--json]\n"
#define ME "sluice bench stream"

typedef struct bench {
    const char *pack_path, *profile_path;
    const char *name;    /* the pack's file name, for messages */
    slc_profile profile; /* as read, with pinning and partitions set aside */
    int set_aside;       /* the profile pinned or had partitions */
    cli_pack info;       /* mapped, with the format's limits: the header and the raw baseline */
    int info_open;
    const slc_pack_header *h;
    uint64_t decoded;                         /* decoded bytes of every chunk */
    uint32_t *by_codec[SLC_PACK_CODEC_COUNT]; /* the chunk ids of each codec, in id order */
    uint32_t codec_count[SLC_PACK_CODEC_COUNT];
    uint64_t codec_decoded[SLC_PACK_CODEC_COUNT];
    /* The chunks a pass covers: every chunk (ids NULL) of a pack without
     * textures; with textures, every geometry chunk (ids = geo_ids), and
     * the texture tiles apart (the mip tails, pinned at create, in none). */
    const uint32_t *ids;
    uint32_t count;
    uint32_t *geo_ids, *tile_ids;
    uint32_t tile_count, tail_count;
    uint64_t tile_decoded;
    uint32_t workers; /* N */
    uint32_t reps;
    uint32_t pool_pages; /* of the memory runs */
    int json;
    unsigned char *store_mem; /* pre-touched pages for the profile's pool */
    size_t store_size;
    int store_uncharged; /* gpu/pool refused the pool's pages */
    struct raw_work {
        unsigned char *stream; /* a page: codec 3's meshopt stream */
        uint16_t *indices;     /* PK_MESHOPT_INDICES */
    } work[RAW_THREADS_MAX];   /* the plain decode's, a thread each */
} bench;

static double median(double *v, uint32_t n)
{
    qsort(v, n, sizeof v[0], cli_cmp_double);
    return v[n / 2];
}

/* CPU time of every thread of the process: on a shared machine, bytes per
 * CPU second is steadier than bytes per second of wall time. */
static uint64_t cpu_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0) {
        return 0;
    }
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static double mib(uint64_t bytes)
{
    return (double)bytes / (1024.0 * 1024.0);
}

static void *alloc_touched(size_t size)
{
    size_t rounded = (size + 63u) & ~(size_t)63u;
    void *p = aligned_alloc(64, rounded);
    if (p != NULL) {
        memset(p, 0, rounded); /* fault every page in now, as the runtime does at init */
        /* and keep it in: a kernel that reclaims idle memory proactively
         * (DAMON on this class of VM) would otherwise take pages back between
         * passes and charge their faults to whichever pass comes next. Failing
         * to lock (RLIMIT_MEMLOCK) leaves the measurement as it was. */
        (void)mlock(p, rounded);
    }
    return p;
}

/* The chunks of the passes (bench.ids) and the tiles (bench.tile_ids), with
 * the decoded bytes and codec lists of the passes' chunks. A pack with
 * textures needs a profile with a texture pool (the stream refuses it
 * otherwise). CLI_OK, or CLI_FAILED printed. */
static int classify_chunks(bench *b)
{
    const uint32_t n = b->h->chunk_count, textures = slc_pack_texture_count(b->info.pack);
    if (tool_texture_pool_missing(b->info.pack, &b->profile, ME)) {
        return CLI_FAILED;
    }
    uint8_t *tail = calloc((size_t)n + 1u, 1);
    b->geo_ids = malloc(((size_t)n + 1u) * sizeof *b->geo_ids);
    b->tile_ids = malloc(((size_t)n + 1u) * sizeof *b->tile_ids);
    if (tail == NULL || b->geo_ids == NULL || b->tile_ids == NULL) {
        free(tail);
        fprintf(stderr, ME ": out of memory for the chunk lists of %s\n", b->pack_path);
        return CLI_FAILED;
    }
    b->tail_count = tool_mark_texture_tails(b->info.pack, tail, NULL);
    b->count = 0;
    for (uint32_t i = 0; i < n; i++) {
        const slc_pack_chunk *c = slc_pack_get_chunk(b->info.pack, (slc_chunk_id){i});
        if (slc_pool_kind_of_chunk_flags(c->flags) == SLC_POOL_TEXTURES) {
            if (!tail[i]) {
                b->tile_ids[b->tile_count++] = i;
                b->tile_decoded += c->decoded_size;
            }
            continue;
        }
        b->geo_ids[b->count++] = i;
        b->decoded += c->decoded_size;
        if (c->codec < SLC_PACK_CODEC_COUNT) { /* the reader refuses any other at open */
            b->by_codec[c->codec][b->codec_count[c->codec]++] = i;
            b->codec_decoded[c->codec] += c->decoded_size;
        }
    }
    free(tail);
    b->ids = textures > 0 ? b->geo_ids : NULL;
    if (b->count == 0) {
        fprintf(stderr, ME ": pack %s has no geometry chunks\n", b->pack_path);
        return CLI_FAILED;
    }
    return CLI_OK;
}

/* --- a stream on the host backend -------------------------------------------- */

typedef struct rig {
    slc_profile prof;
    tool_session ses; /* the memory block, the memory, the pack */
    slc_memory *mem;  /* ses.mem */
    slc_page_store store;
    slc_pack *pack;               /* ses.pack */
    slc_platform_workers workers; /* must not move while started: a rig is never copied */
    slc_stream *s;
    int charged; /* the store is charged to gpu/pool */
} rig;

static bool work_fn(void *ctx, uint32_t worker)
{
    return slc_stream_work(ctx, worker);
}

/* An executor with no threads, for a profile of 1 worker: nobody claims a
 * load, so the caller's thread runs them all while it waits in begin_frame,
 * inside the telemetry's wait_ns, and the rest of its time is the
 * scheduler's own. (wait is never reached: the caller always finds the
 * load it needs unclaimed.) */
static void null_notify(void *self, uint32_t jobs)
{
    (void)self;
    (void)jobs;
}
static void null_event(void *self)
{
    (void)self;
}
static const slc_stream_executor_ops null_ops = {null_notify, null_event, null_event};

static void rig_close(rig *r)
{
    slc_platform_workers_stop(&r->workers); /* a no-op when not started */
    tool_session_close(&r->ses);            /* the stream, the store (close_store), the pack, the memory */
    r->s = NULL;
    r->pack = NULL;
    r->mem = NULL;
}

/* The session's close of rig_store's store. */
static void close_store(void *ctx)
{
    rig *r = ctx;
    if (r->store.ops != NULL) {
        slc_host_store_deinit(&r->store);
    }
}

/* The host store's pages in store_mem, exactly their bytes charged to
 * gpu/pool (its record and padding are bookkeeping, charged to nobody), or
 * to nothing for a host-only profile. */
static slc_status rig_store(rig *r, void *store_mem, size_t store_size)
{
    slc_host_store_desc hd;
    slc_pool_spec spec;
    slc_pool_spec_from_profile(&r->prof, SLC_POOL_GEOMETRY, &spec);
    slc_host_store_desc_from_spec(&spec, &hd);
    const uint32_t pages = hd.page_count, page_size = hd.page_size;
    slc_budgets *budgets = slc_memory_budgets(r->mem);
    slc_budget_id gpu_pool;
    size_t pad = (SLC_HOST_STORE_PAGE_ALIGN - (uintptr_t)store_mem % SLC_HOST_STORE_PAGE_ALIGN) %
                 SLC_HOST_STORE_PAGE_ALIGN;
    void *base = (unsigned char *)store_mem + pad;
    size_t size = store_size - pad;
    if (spec.budget != NULL && slc_budgets_scan(budgets, spec.budget, &gpu_pool) == SLC_OK &&
        slc_host_store_init_at(base, size, budgets, gpu_pool, pages, page_size, NULL, &r->store) == SLC_OK) {
        r->charged = 1;
        return SLC_OK;
    }
    return slc_host_store_init_at(base, size, NULL, SLC_BUDGET_NONE, pages, page_size, &cli_stderr_logger, &r->store);
}

/* A stream for prof over io (a pack opened with prof in the memory's
 * cpu/meta), its host store in store_mem (SLC_ARENA_FOOTPRINT of the store's
 * footprint), prof->workers threads, or with no_threads the executor without
 * threads. Prints why and returns CLI_FAILED on failure (r closed). */
static int rig_open(rig *r, const slc_profile *prof, const slc_io *io, const char *name, void *store_mem,
                    size_t store_size, int no_threads)
{
    memset(r, 0, sizeof *r);
    r->prof = *prof;
    const tool_session_desc sesd = {.me = ME, .profile = &r->prof, .io = io, .pack_name = name};
    tool_session_step step = tool_session_open(&sesd, &r->ses);
    r->mem = r->ses.mem;
    r->pack = r->ses.pack;
    if (step == TOOL_SESSION_LAYOUT) {
        fprintf(stderr, ME ": profile '%s': its memory block does not fit this machine\n", r->prof.name);
        rig_close(r);
        return CLI_FAILED;
    }
    slc_status st = step == TOOL_SESSION_OPEN ? SLC_OK : r->ses.status;
    if (st == SLC_OK) {
        st = rig_store(r, store_mem, store_size);
        tool_session_set_store(&r->ses, st == SLC_OK ? &r->store : NULL, close_store, r);
    }
    if (st == SLC_OK && tool_session_open_texture_store(&r->ses, &r->prof, &r->store, ME) != CLI_OK) {
        st = SLC_E_BUDGET_REFUSED; /* printed */
    }
    if (st == SLC_OK) {
        slc_stream_desc d;
        tool_session_stream_desc(&r->ses, &r->prof, &r->store, &cli_stderr_logger, &d);
        if (no_threads) {
            d.executor.ops = &null_ops;
        } else if (r->prof.workers > 0) {
            slc_platform_workers_executor(&r->workers, &d.executor);
        }
        st = tool_session_start_stream(&r->ses, &d);
        r->s = r->ses.stream;
    }
    if (st == SLC_OK && r->prof.workers > 0 && !no_threads) {
        st = slc_platform_workers_start(&r->workers, r->prof.workers, work_fn, r->s, &cli_stderr_logger);
    }
    if (st != SLC_OK) {
        fprintf(stderr, ME ": could not set up the stream (%s)\n", slc_status_name(st));
        rig_close(r);
        return CLI_FAILED;
    }
    return CLI_OK;
}

/* --- one pass over the pack ------------------------------------------------------ */

typedef struct pass_result {
    uint64_t ns;     /* first begin_frame to the one that applied the last load */
    uint64_t cpu_ns; /* CPU time of the process (every thread) meanwhile */
    uint64_t frames, requests, loads, evictions;
    uint64_t bytes;    /* decoded bytes made resident */
    uint64_t sched_ns; /* begin_frame..end_frame on the caller's thread, less wait_ns */
    uint64_t tele_ns;  /* the telemetry's caller_ns less wait_ns */
    uint64_t caller_loads, worker_loads;
} pass_result;

/* The k-th chunk of a pass: ids[k], or k itself when ids is NULL. */
static uint32_t id_at(const uint32_t *ids, uint32_t k)
{
    return ids != NULL ? ids[k] : k;
}

/* Requests every chunk once, in chunk-id order (see the top of the file),
 * or only the n chunks ids lists (every chunk when ids is NULL). */
static int stream_pass(rig *r, const uint32_t *ids, uint32_t n, pass_result *out)
{
    memset(out, 0, sizeof *out);
    if (ids == NULL) {
        n = slc_pack_get_header(r->pack)->chunk_count;
    }
    const slc_partition part = {0};
    uint32_t next = 0, idle = 0;
    slc_stream_stats before, after;
    slc_stream_get_stats(r->s, &before);
    /* The window: what the frame's cap lets start, in whole pages as the
     * stream applies it (and in bytes, which never asks for more). */
    const uint32_t cap_pages = before.upload_cap_pages < r->prof.queue_capacity ? before.upload_cap_pages
                                                                                : r->prof.queue_capacity;
    const uint64_t c0 = cpu_ns(), t0 = slc_platform_now_ns();
    for (;;) {
        const uint64_t f0 = slc_platform_now_ns();
        slc_status st = slc_stream_begin_frame(r->s, NULL);
        if (st != SLC_OK) {
            fprintf(stderr, ME ": begin_frame: %s\n", slc_status_name(st));
            return CLI_FAILED;
        }
        if (next >= n) {
            slc_stream_get_stats(r->s, &after);
            if (after.in_flight == 0) {
                break;
            }
        }
        uint64_t bytes = 0;
        uint32_t end = next;
        while (end < n && end - next < cap_pages) {
            uint32_t d = slc_pack_get_chunk(r->pack, (slc_chunk_id){id_at(ids, end)})->decoded_size;
            if (end > next && bytes + d > r->prof.upload_cap) {
                break;
            }
            bytes += d;
            end++;
        }
        for (uint32_t k = next; k < end; k++) {
            const uint32_t c = id_at(ids, k);
            if ((st = slc_stream_request_chunk(r->s, (slc_chunk_id){c}, 0, part)) != SLC_OK) {
                fprintf(stderr, ME ": request of chunk %u refused: %s\n", c, slc_status_name(st));
                return CLI_FAILED;
            }
        }
        if ((st = slc_stream_end_frame(r->s)) != SLC_OK) {
            fprintf(stderr, ME ": end_frame: %s\n", slc_status_name(st));
            return CLI_FAILED;
        }
        const uint64_t f1 = slc_platform_now_ns();
        slc_stream_frame_stats fs;
        if (slc_stream_walk_telemetry(r->s, &fs, 1) != 1) {
            fprintf(stderr, ME ": the stream kept no telemetry\n");
            return CLI_FAILED;
        }
        out->sched_ns += (f1 - f0) - fs.wait_ns;
        out->tele_ns += fs.caller_ns - fs.wait_ns;
        out->frames++;
        next += fs.loads_started;
        idle = fs.loads_started > 0 || next >= n ? 0 : idle + 1;
        if (idle > IDLE_FRAMES_MAX) {
            fprintf(stderr, ME ": no load started in %d frames (chunk %u): the pool of %u pages has no page to give\n",
                    IDLE_FRAMES_MAX, id_at(ids, next), r->prof.page_count);
            return CLI_FAILED;
        }
    }
    out->ns = slc_platform_now_ns() - t0;
    out->cpu_ns = cpu_ns() - c0;
    out->frames++;                              /* the frame that applied the last loads */
    if (slc_stream_end_frame(r->s) != SLC_OK) { /* close it (untimed) */
        return CLI_FAILED;
    }
    slc_stream_get_stats(r->s, &after);
    out->requests = after.requests - before.requests;
    out->loads = after.loads_completed - before.loads_completed;
    out->evictions = after.evictions - before.evictions;
    out->bytes = after.bytes_uploaded - before.bytes_uploaded;
    out->caller_loads = after.caller_loads - before.caller_loads;
    out->worker_loads = after.worker_loads - before.worker_loads;
    if (after.failures != before.failures || out->loads != n) {
        fprintf(stderr, ME ": %llu of %u chunks loaded, %llu failed\n", (unsigned long long)out->loads, n,
                (unsigned long long)(after.failures - before.failures));
        return CLI_FAILED;
    }
    return CLI_OK;
}

/* Plain decode of one chunk from the mapping into page: a copy (stored),
 * LZ4_decompress_safe (lz4), the tools' meshopt decode (meshopt; after
 * LZ4_decompress_safe into w->stream for meshopt-lz4): what the stream's
 * load does, less the XXH3 and the checks of the meshopt stream, which
 * setup ran once through slc_pack_load_chunk on every meshopt chunk.
 * Returns the decoded bytes, 0 on a decode failure. */
typedef struct raw_work raw_work;

static uint32_t raw_chunk(const unsigned char *map, const slc_pack_chunk *c, unsigned char *page, const raw_work *w)
{
    const unsigned char *src = map + c->offset;
    switch (c->codec) {
    case SLC_PACK_CODEC_LZ4:
        return LZ4_decompress_safe((const char *)src, (char *)page, (int)c->stored_size, (int)c->decoded_size) ==
                       (int)c->decoded_size
                   ? c->decoded_size
                   : 0;
    case SLC_PACK_CODEC_MESHOPT:
        return pk_meshopt_decode_stream(src, page, w->indices) == c->decoded_size ? c->decoded_size : 0;
    case SLC_PACK_CODEC_MESHOPT_LZ4:
        if (LZ4_decompress_safe((const char *)src, (char *)w->stream, (int)c->stored_size, (int)c->decoded_size) < 0) {
            return 0;
        }
        return pk_meshopt_decode_stream(w->stream, page, w->indices) == c->decoded_size ? c->decoded_size : 0;
    default:
        memcpy(page, src, c->stored_size);
        return c->decoded_size;
    }
}

/* raw_chunk of every chunk into one page (ring 1), or chunk i into page
 * i % ring of pages (page_size apart); with ids, only the n chunks it
 * lists; with step > 1, only the k-th chunks for k = first, first + step,
 * ... Returns decoded bytes, 0 on a decode failure. */
static uint64_t raw_pass_of(const bench *b, unsigned char *pages, uint32_t ring, size_t page_size, const uint32_t *ids,
                            uint32_t n, uint32_t first, uint32_t step, const raw_work *w)
{
    const unsigned char *map = b->info.file.map;
    uint64_t bytes = 0;
    for (uint32_t k = first; k < n; k += step) {
        const uint32_t i = id_at(ids, k);
        const slc_pack_chunk *c = slc_pack_get_chunk(b->info.pack, (slc_chunk_id){i});
        uint32_t got = raw_chunk(map, c, pages + (size_t)(i % ring) * page_size, w);
        if (got == 0) {
            return 0;
        }
        bytes += got;
    }
    return bytes;
}

static uint64_t raw_pass(const bench *b, unsigned char *pages, uint32_t ring, size_t page_size)
{
    return raw_pass_of(b, pages, ring, page_size, b->ids, b->count, 0, 1, &b->work[0]);
}

/* The machine's ceiling for threads that decode: plain decode of every
 * chunk by `threads` threads at once, thread t taking chunks t, t +
 * threads, ... into its own page; no stream, no lock, nothing shared but
 * the mapping. What two threads reach over one bounds what two workers can. */
typedef struct raw_thread {
    const bench *b;
    unsigned char *page;
    uint32_t first, step;
    uint64_t bytes;
    const raw_work *work;
} raw_thread;

static void *raw_thread_main(void *arg)
{
    raw_thread *t = arg;
    t->bytes = raw_pass_of(t->b, t->page, 1, 0, t->b->ids, t->b->count, t->first, t->step, t->work);
    return NULL;
}

/* Returns decoded bytes (0 on a failure); pages holds threads pages. */
static uint64_t raw_threads_pass(const bench *b, unsigned char *pages, uint32_t threads)
{
    raw_thread t[RAW_THREADS_MAX];
    pthread_t tid[RAW_THREADS_MAX];
    memset(t, 0, sizeof t);
    uint64_t bytes = 0;
    int ok = 1;
    threads = threads < 1 ? 1u : threads > RAW_THREADS_MAX ? (uint32_t)RAW_THREADS_MAX : threads;
    for (uint32_t k = 0; k < threads; k++) {
        t[k] = (raw_thread){b, pages + (size_t)k * b->h->page_size, k, threads, 0, &b->work[k]};
    }
    for (uint32_t k = 1; k < threads; k++) {
        if (pthread_create(&tid[k], NULL, raw_thread_main, &t[k]) != 0) {
            ok = 0;
            threads = k;
            break;
        }
    }
    raw_thread_main(&t[0]);
    for (uint32_t k = 1; k < threads; k++) {
        pthread_join(tid[k], NULL);
    }
    for (uint32_t k = 0; k < threads; k++) {
        ok &= t[k].bytes != 0;
        bytes += t[k].bytes;
    }
    return ok ? bytes : 0;
}

/* --- hits ------------------------------------------------------------------------- */

/* Loads chunks 0..count-1, then asks for them all, frames times; *self_ns is
 * the tool's begin..end time, *tele_ns the telemetry's caller_ns, both per
 * request. Every request must hit. */
static int hit_batch(rig *r, const uint32_t *ids, uint32_t count, uint32_t frames, int load, double *self_ns,
                     double *tele_ns)
{
    const slc_partition part = {0};
    uint64_t self = 0, tele = 0;
    for (uint32_t f = 0; f < (load ? 10000u : frames); f++) {
        const uint64_t t0 = slc_platform_now_ns();
        slc_status st = slc_stream_begin_frame(r->s, NULL);
        for (uint32_t c = 0; c < count && st == SLC_OK; c++) {
            st = slc_stream_request_chunk(r->s, (slc_chunk_id){id_at(ids, c)}, 0, part);
        }
        if (st == SLC_OK) {
            st = slc_stream_end_frame(r->s);
        }
        const uint64_t t1 = slc_platform_now_ns();
        slc_stream_frame_stats fs;
        if (st != SLC_OK || slc_stream_walk_telemetry(r->s, &fs, 1) != 1) {
            fprintf(stderr, ME ": hits: a frame failed (%s)\n", slc_status_name(st));
            return CLI_FAILED;
        }
        if (load) {
            if (fs.hits == count) {
                return CLI_OK;
            }
            continue;
        }
        if (fs.hits != count) {
            fprintf(stderr, ME ": hits: %u of %u requests hit\n", fs.hits, count);
            return CLI_FAILED;
        }
        self += t1 - t0;
        tele += fs.caller_ns;
    }
    if (load) {
        fprintf(stderr, ME ": hits: %u chunks never became resident\n", count);
        return CLI_FAILED;
    }
    *self_ns = (double)self / ((double)frames * count);
    *tele_ns = (double)tele / ((double)frames * count);
    return CLI_OK;
}

/* --- peak memory in forked children --------------------------------------------- */

enum { RSS_IDLE, RSS_STREAM_PREAD, RSS_STREAM_MAPPED, RSS_LOAD_ALL, RSS_KINDS };

typedef struct rss_result {
    int32_t rc;
    uint32_t reserved;
    uint64_t maxrss_kib;
    uint64_t bytes; /* decoded bytes loaded */
    uint64_t ns;
} rss_result;

/* The child's work: what it loads, in its own process. */
static int rss_work(const bench *b, int kind, rss_result *out)
{
    if (kind == RSS_IDLE) {
        return CLI_OK;
    }
    if (kind == RSS_LOAD_ALL) {
        cli_pack p;
        int rc = cli_pack_open(b->pack_path, SLC_PLATFORM_FILE_PREAD, &cli_stderr_logger, &p);
        if (rc != CLI_OK) {
            return rc;
        }
        size_t ss = slc_pack_scratch_size(p.pack);
        unsigned char *scratch = malloc(ss + 1), *all = malloc(b->decoded > 0 ? (size_t)b->decoded : 1);
        rc = scratch != NULL && all != NULL ? CLI_OK : CLI_FAILED;
        uint64_t t0 = slc_platform_now_ns(), off = 0;
        for (uint32_t k = 0; rc == CLI_OK && k < b->count; k++) {
            const uint32_t i = id_at(b->ids, k);
            uint32_t d = slc_pack_get_chunk(p.pack, (slc_chunk_id){i})->decoded_size;
            if (slc_pack_load_chunk(p.pack, (slc_chunk_id){i}, all + off, d, scratch, ss) != SLC_OK) {
                rc = CLI_FAILED;
            }
            off += d;
        }
        out->ns = slc_platform_now_ns() - t0;
        out->bytes = off;
        free(scratch);
        free(all);
        cli_pack_close(&p);
        return rc;
    }
    slc_profile prof = b->profile;
    prof.page_count = b->pool_pages;
    prof.texture_page_count = b->tail_count; /* the tails alone: no tile is streamed here */
    prof.workers = b->workers;
    slc_platform_file file;
    memset(&file, 0, sizeof file);
    const slc_io *io = &b->info.file.io;
    if (kind == RSS_STREAM_PREAD) {
        if (slc_platform_file_open(b->pack_path, SLC_PLATFORM_FILE_PREAD, &cli_stderr_logger, &file) != SLC_OK) {
            return CLI_IO;
        }
        io = &file.io;
    }
    size_t store_size = SLC_ARENA_FOOTPRINT(slc_host_store_footprint(prof.page_count, prof.page_size));
    void *store_mem = alloc_touched(store_size);
    static rig r; /* static: it must not move, and it is large */
    int rc = store_mem != NULL ? rig_open(&r, &prof, io, b->name, store_mem, store_size, 0) : CLI_FAILED;
    if (rc == CLI_OK) {
        pass_result pr;
        rc = stream_pass(&r, b->ids, b->count, &pr);
        out->ns = pr.ns;
        out->bytes = pr.bytes;
        rig_close(&r);
    }
    free(store_mem);
    if (kind == RSS_STREAM_PREAD) {
        slc_platform_file_close(&file);
    }
    return rc;
}

/* Runs kind in a forked child; its peak RSS comes back through a pipe. */
static int rss_measure(const bench *b, int kind, rss_result *out)
{
    memset(out, 0, sizeof *out);
    int fd[2];
    if (pipe(fd) != 0) {
        fprintf(stderr, ME ": pipe: %s\n", strerror(errno));
        return CLI_FAILED;
    }
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, ME ": fork: %s\n", strerror(errno));
        close(fd[0]);
        close(fd[1]);
        return CLI_FAILED;
    }
    if (pid == 0) {
        close(fd[0]);
        rss_result m;
        memset(&m, 0, sizeof m);
        m.rc = rss_work(b, kind, &m);
        struct rusage ru;
        if (getrusage(RUSAGE_SELF, &ru) == 0) {
            m.maxrss_kib = (uint64_t)ru.ru_maxrss; /* KiB on Linux */
        }
        ssize_t w = write(fd[1], &m, sizeof m);
        _exit(w == (ssize_t)sizeof m ? 0 : 1);
    }
    close(fd[1]);
    ssize_t got = read(fd[0], out, sizeof *out);
    close(fd[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (got != (ssize_t)sizeof *out || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, ME ": the memory-measuring child did not report back\n");
        return CLI_FAILED;
    }
    if (out->rc == CLI_OK && kind != RSS_IDLE && out->bytes != b->decoded) {
        fprintf(stderr, ME ": the memory-measuring child loaded %llu of %llu bytes\n", (unsigned long long)out->bytes,
                (unsigned long long)b->decoded);
        return CLI_FAILED;
    }
    return out->rc;
}

/* --- the command ------------------------------------------------------------------ */

static void stream_help(const cli_args *spec)
{
    bench_help(spec, USAGE "\n"
                           "The stream scheduler end to end on the host backend: GB/s against plain\n"
                           "decode (LZ4, meshopt), ns a request on hits and misses, and peak RSS\n"
                           "through a pool of pack/50 pages against loading everything.\n\n");
}

/* Returns CLI_OK, CLI_USAGE (printed) or CLI_ARGS_HELP (the help printed). */
static int parse_args(int argc, char **argv, bench *b)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    b->workers = n < 1 ? 1u : n > (long)SLC_PLATFORM_WORKERS_MAX ? SLC_PLATFORM_WORKERS_MAX : (uint32_t)n;
    b->reps = 5;
    b->profile_path = cli_default_profile();
    uint64_t workers = b->workers, reps = b->reps, pool_pages = b->pool_pages;
    const cli_opt table[] = {
        {.name = "--profile",
         .kind = CLI_OPT_STRING,
         .dest = &b->profile_path,
         .bad = "{opt} needs a file",
         .arg = "FILE",
         .help = "budgets and stream settings (default: " CLI_DEFAULT_PROFILE_HELP ")"},
        {.name = "--workers",
         .kind = CLI_OPT_U64,
         .dest = &workers,
         .min = 1,
         .max = SLC_PLATFORM_WORKERS_MAX,
         .bad = "{opt} needs a count in {min}..{max}",
         .arg = "N",
         .help = "worker threads, 1..64 (default: the online CPUs)"},
        {.name = "--reps",
         .kind = CLI_OPT_U64,
         .dest = &reps,
         .min = 1,
         .max = REPS_MAX,
         .bad = "{opt} needs a count in {min}..{max}",
         .arg = "N",
         .help = "repetitions, 1..99 (default 5)"},
        {.name = "--pool-pages",
         .kind = CLI_OPT_U64,
         .dest = &pool_pages,
         .min = 1,
         .max = SLC_PAGE_COUNT_MAX,
         .bad = "{opt} needs a page count of at least 1",
         .arg = "N",
         .help = "pages of the streaming pool (default: pack/50)"},
        {.name = "--json", .kind = CLI_OPT_FLAG, .dest = &b->json, .help = "the figures as JSON on stdout"},
    };
    size_t operands = 0;
    const cli_args spec = {.me = ME,
                           .opts = table,
                           .count = sizeof table / sizeof table[0],
                           .operands = &b->pack_path,
                           .max_operands = 1,
                           .operand_count = &operands,
                           .unknown = "unknown argument '{value}'",
                           .usage = USAGE,
                           .usage_after = CLI_ARGS_ALL,
                           .help_column = 18};
    if (cli_wants_help(argc, argv)) {
        stream_help(&spec);
        return CLI_ARGS_HELP;
    }
    int rc = cli_args_parse(&spec, argc, argv);
    if (rc != CLI_OK) {
        return rc;
    }
    b->workers = (uint32_t)workers;
    b->reps = (uint32_t)reps;
    b->pool_pages = (uint32_t)pool_pages;
    if (b->pack_path == NULL) {
        fputs(USAGE, stderr);
        return CLI_USAGE;
    }
    return CLI_OK;
}

/* The plain decode of the meshopt codecs skips the stream's checks: every
 * meshopt chunk is loaded once through slc_pack_load_chunk (XXH3 and every
 * check of the stream) and decoded plainly beside it, and the two pages
 * must match byte for byte. */
static int check_meshopt(bench *b)
{
    if (b->codec_count[SLC_PACK_CODEC_MESHOPT] + b->codec_count[SLC_PACK_CODEC_MESHOPT_LZ4] == 0) {
        return CLI_OK;
    }
    const size_t ss = slc_pack_scratch_size(b->info.pack), ps = b->h->page_size;
    unsigned char *checked = malloc(ps), *plain = malloc(ps), *scratch = malloc(ss + 1);
    int rc = checked != NULL && plain != NULL && scratch != NULL ? CLI_OK : CLI_FAILED;
    if (rc != CLI_OK) {
        fprintf(stderr, ME ": out of memory for the check of %s's meshopt chunks\n", b->pack_path);
    }
    for (uint32_t c = SLC_PACK_CODEC_MESHOPT; c <= SLC_PACK_CODEC_MESHOPT_LZ4 && rc == CLI_OK; c++) {
        for (uint32_t k = 0; k < b->codec_count[c] && rc == CLI_OK; k++) {
            const uint32_t i = b->by_codec[c][k];
            const slc_pack_chunk *ch = slc_pack_get_chunk(b->info.pack, (slc_chunk_id){i});
            slc_status st = slc_pack_load_chunk(b->info.pack, (slc_chunk_id){i}, checked, ps, scratch, ss);
            if (st != SLC_OK) {
                fprintf(stderr, ME ": %s chunk %u of %s does not load (%s): no plain decode of it\n",
                        slc_pack_codec_name(c), i, b->pack_path, slc_status_name(st));
                rc = CLI_FAILED;
            } else if (raw_chunk(b->info.file.map, ch, plain, &b->work[0]) != ch->decoded_size ||
                       memcmp(plain, checked, ch->decoded_size) != 0) {
                fprintf(stderr, ME ": %s chunk %u of %s: the plain decode differs from slc_pack_load_chunk's\n",
                        slc_pack_codec_name(c), i, b->pack_path);
                rc = CLI_FAILED;
            }
        }
    }
    free(checked);
    free(plain);
    free(scratch);
    return rc;
}

/* Loads the profile and the pack and checks that they go together. */
static int setup(bench *b)
{
    int rc = cli_load_profile(b->profile_path, &b->profile);
    if (rc != CLI_OK) {
        return rc;
    }
    b->set_aside = b->profile.pin_coarsest != 0 || b->profile.partition_count != 0;
    b->profile.pin_coarsest = 0;
    b->profile.partition_count = 0;
    memset(b->profile.partitions, 0, sizeof b->profile.partitions);
    if ((rc = cli_pack_open(b->pack_path, SLC_PLATFORM_FILE_DEFAULT, &cli_stderr_logger, &b->info)) != CLI_OK) {
        return rc;
    }
    b->info_open = 1;
    b->name = strrchr(b->pack_path, '/') != NULL ? strrchr(b->pack_path, '/') + 1 : b->pack_path;
    if (b->info.file.map == NULL) {
        fprintf(stderr, ME ": %s could not be mapped\n", b->pack_path);
        return CLI_FAILED;
    }
    b->h = slc_pack_get_header(b->info.pack);
    if (b->profile.page_size < b->h->page_size) {
        fprintf(stderr, ME ": profile %s has pages of %llu bytes; pack %s needs at least %u\n", b->profile_path,
                (unsigned long long)b->profile.page_size, b->pack_path, b->h->page_size);
        return CLI_FAILED;
    }
    if (b->profile.max_chunks < b->h->chunk_count) {
        fprintf(stderr, ME ": profile %s holds %u chunks; pack %s has %u\n", b->profile_path, b->profile.max_chunks,
                b->pack_path, b->h->chunk_count);
        return CLI_FAILED;
    }
    if (b->h->chunk_count == 0) {
        fprintf(stderr, ME ": pack %s has no chunks\n", b->pack_path);
        return CLI_FAILED;
    }
    for (uint32_t c = 0; c < SLC_PACK_CODEC_COUNT; c++) {
        b->by_codec[c] = malloc(sizeof(uint32_t) * b->h->chunk_count);
        if (b->by_codec[c] == NULL) {
            fprintf(stderr, ME ": out of memory for the chunk lists of %s\n", b->pack_path);
            return CLI_FAILED;
        }
    }
    if (classify_chunks(b) != CLI_OK) {
        return CLI_FAILED;
    }
    for (uint32_t t = 0; t < RAW_THREADS_MAX; t++) {
        b->work[t].stream = alloc_touched(b->h->page_size);
        b->work[t].indices = alloc_touched(PK_MESHOPT_INDICES * sizeof(uint16_t));
        if (b->work[t].stream == NULL || b->work[t].indices == NULL) {
            fprintf(stderr, ME ": out of memory for the plain decode of %s\n", b->pack_path);
            return CLI_FAILED;
        }
    }
    if ((rc = check_meshopt(b)) != CLI_OK) {
        return rc;
    }
    if (b->pool_pages == 0) { /* the largest pool of at most a fiftieth of the pack */
        uint64_t pages = b->h->file_size / 50u / b->profile.page_size;
        b->pool_pages = pages < 1 ? 1u : pages > SLC_PAGE_COUNT_MAX ? SLC_PAGE_COUNT_MAX : (uint32_t)pages;
    }
    return CLI_OK;
}

typedef struct results {
    uint32_t modes, mode_workers[MODES];
    double gbps[MODES], cpu_gbps[MODES];
    double ring_gbps, ring_cpu_gbps; /* raw, into the pool's pages */
    double raw2_gbps, raw2_cpu_gbps; /* raw by two threads at once */
    uint32_t codecs_present;
    double codec_raw_cpu[SLC_PACK_CODEC_COUNT], codec_stream_cpu[SLC_PACK_CODEC_COUNT]; /* inline, one thread */
    pass_result pass[MODES];                                                            /* of the last repeat */
    pass_result miss;                                                                   /* of the last repeat */
    double miss_ns, miss_tele_ns;
    uint32_t hit_count, hit_frames;
    double hit_ns, hit_tele_ns;
    rss_result rss[RSS_KINDS];
    double tile_raw_cpu, tile_stream_cpu; /* GB per CPU second, inline, one thread */
    double tile_loads_cpu;                /* verified tile loads per CPU second, inline */
    pass_result tile_pass;                /* of the last repeat */
} results;

static const char *mode_label(const results *res, uint32_t m, char *buf, size_t cap)
{
    if (m == MODE_RAW) {
        snprintf(buf, cap, "plain decode");
    } else if (res->mode_workers[m] == 0) {
        snprintf(buf, cap, "stream, inline (0 workers)");
    } else {
        snprintf(buf, cap, "stream, %u worker%s", res->mode_workers[m], res->mode_workers[m] > 1 ? "s" : "");
    }
    return buf;
}

static void print_text(const bench *b, const results *res)
{
    char s1[32], s2[32], s3[32], label[64];
    const slc_profile *p = &b->profile;
    printf("sluice bench stream %s: %u chunks, %s pages, %llu decoded bytes%s (%.1f MiB), file %.1f MiB\n",
           b->pack_path, b->h->chunk_count, cli_size(b->h->page_size, s1, sizeof s1), (unsigned long long)b->decoded,
           b->ids != NULL ? " of geometry" : "", mib(b->decoded), mib(b->h->file_size));
    if (b->ids != NULL) {
        printf("textures: the rows below stream its %u geometry chunks (%.1f MiB decoded); its %u texture tiles are "
               "measured apart, and its %u mip tails are pinned at create\n",
               b->count, mib(b->decoded), b->tile_count, b->tail_count);
    }
    printf("profile %s (%s): %s pages, pool %u pages (%s), upload cap %s a frame, queue %u, %u frames in flight;\n"
           "host backend, load_frames 1%s%s\n",
           b->profile_path, p->name, cli_size(p->page_size, s1, sizeof s1), p->page_count,
           cli_size((uint64_t)p->page_size * p->page_count, s2, sizeof s2), cli_size(p->upload_cap, s3, sizeof s3),
           p->queue_capacity, p->frames_in_flight,
           b->set_aside ? "; the profile's pinning and partitions set aside" : "",
           b->store_uncharged ? ";\ngpu/pool refused the pool's pages: "
                                "the store is charged to no budget"
                              : "");
    printf("\nthroughput: median of %u passes, each requesting every chunk once in chunk-id order\n\n", b->reps);
    printf("%-28s %7s %7s %9s %7s %7s %7s %9s %9s\n", "path", "GB/s", "vs raw", "GB/cpu-s", "vs raw", "frames", "loads",
           "by caller", "evictions");
    for (uint32_t m = 0; m < res->modes; m++) {
        const pass_result *pr = &res->pass[m];
        mode_label(res, m, label, sizeof label);
        printf("%-28s %7.2f %6.2fx %9.2f %6.2fx", label, res->gbps[m], res->gbps[m] / res->gbps[0], res->cpu_gbps[m],
               res->cpu_gbps[m] / res->cpu_gbps[0]);
        if (m != MODE_RAW) {
            printf(" %7llu %7llu %9llu %9llu", (unsigned long long)pr->frames, (unsigned long long)pr->loads,
                   (unsigned long long)pr->caller_loads, (unsigned long long)pr->evictions);
        } else {
            printf("\n%-28s %7.2f %6.2fx %9.2f %6.2fx", "  the same, into pool pages", res->ring_gbps,
                   res->ring_gbps / res->gbps[0], res->ring_cpu_gbps, res->ring_cpu_gbps / res->cpu_gbps[0]);
        }
        putchar('\n');
    }
    uint32_t last = res->modes - 1;
    printf("\nstream / raw, 1 worker: %.2f (the aim: at least 0.9), %.2f per CPU second; inline, one thread: %.2f, "
           "%.2f per CPU second\n",
           res->gbps[2] / res->gbps[0], res->cpu_gbps[2] / res->cpu_gbps[0], res->gbps[1] / res->gbps[0],
           res->cpu_gbps[1] / res->cpu_gbps[0]);
    printf("\nscaling (wall time): 1 worker and the caller over inline: %.2fx", res->gbps[2] / res->gbps[1]);
    if (last > 2) {
        printf("; %u workers over 1: %.2fx", res->mode_workers[last], res->gbps[last] / res->gbps[2]);
    }
    printf("\nthe machine's ceiling: plain decode by %d threads at once %.2f GB/s, %.2fx one thread; %.2f GB/cpu-s, "
           "%.2fx one thread's\n",
           RAW_THREADS_MAX, res->raw2_gbps, res->raw2_gbps / res->gbps[0], res->raw2_cpu_gbps,
           res->raw2_cpu_gbps / res->cpu_gbps[0]);
    printf("threads that decode: inline 1; N workers N + 1 (the caller runs unclaimed loads while it waits)\n");
    printf("\nper codec, inline (one thread): verified stream / plain decode per CPU second\n\n");
    printf("%-12s %7s %11s %15s %16s %7s\n", "codec", "chunks", "decoded MiB", "plain GB/cpu-s", "stream GB/cpu-s",
           "ratio");
    for (uint32_t c = 0; c < SLC_PACK_CODEC_COUNT; c++) {
        if (b->codec_count[c] == 0) {
            continue;
        }
        printf("%-12s %7u %11.1f", slc_pack_codec_name(c), b->codec_count[c], mib(b->codec_decoded[c]));
        if (res->codec_raw_cpu[c] > 0) {
            printf(" %15.2f %16.2f %6.2fx\n", res->codec_raw_cpu[c], res->codec_stream_cpu[c],
                   res->codec_stream_cpu[c] / res->codec_raw_cpu[c]);
        } else {
            printf(" %15s %16.2f %7s\n", "-", res->codec_stream_cpu[c], "-");
        }
    }
    printf("plain decode: a copy (stored), LZ4_decompress_safe (lz4), meshoptimizer's decoders and the u16->u8\n"
           "narrowing (meshopt; after LZ4_decompress_safe for meshopt-lz4), from the same mapping the stream reads.\n"
           "The stream also hashes the stored bytes (XXH3) and checks the meshopt stream's layout, sizes and\n"
           "indices.\n");
    if (b->tile_count > 0) {
        printf("\ntexture tiles, inline (one thread), through the texture pool (%u pages): %u tiles, %.1f MiB decoded "
               "(the %u mip tails, pinned at create, are left out, and from every row above)\n\n",
               p->texture_page_count, b->tile_count, mib(b->tile_decoded), b->tail_count);
        printf("%-12s %7s %11s %15s %16s %7s %18s\n", "tiles", "chunks", "decoded MiB", "plain GB/cpu-s",
               "stream GB/cpu-s", "ratio", "tile loads/cpu-s");
        printf("%-12s %7u %11.1f %15.2f %16.2f %6.2fx %18.0f\n\n", "tiles", b->tile_count, mib(b->tile_decoded),
               res->tile_raw_cpu, res->tile_stream_cpu, res->tile_stream_cpu / res->tile_raw_cpu, res->tile_loads_cpu);
    }
    printf("GB/s: decoded bytes made resident per second of wall time; GB/cpu-s: per second of CPU time of all\n"
           "the process's threads (steadier on a shared machine). The stream also hashes the stored bytes (XXH3)\n"
           "and writes each chunk into its own page of the pool; the baseline decodes into one hot page, and\n"
           "(second row, for reference) chunk i into page i mod %u of a pool-sized ring. With workers, the\n"
           "caller's thread runs unclaimed loads while it waits (\"by caller\").\n",
           p->page_count);

    printf("\nper-request cost on the caller's thread (begin_frame..end_frame, less the wait for loads), median\n\n");
    printf("%-44s %12s %14s\n", "case", "ns/request", "telemetry ns");
    snprintf(label, sizeof label, "hit: %u resident chunks x %u frames", res->hit_count, res->hit_frames);
    printf("%-44s %12.1f %14.1f\n", label, res->hit_ns, res->hit_tele_ns);
    snprintf(label, sizeof label, "miss: %llu requests, %llu loads, %llu frames",
             (unsigned long long)res->miss.requests, (unsigned long long)res->miss.loads,
             (unsigned long long)res->miss.frames);
    printf("%-44s %12.1f %14.1f\n", label, res->miss_ns, res->miss_tele_ns);
    printf("hit: the same resident chunks asked for every frame (inline stream). miss: a pass over the pack whose\n"
           "every request is a chunk neither resident nor loading, with 1 worker whose executor has no threads, so\n"
           "the caller runs each load inside begin_frame's wait, which is subtracted: what is left is scheduling,\n"
           "eviction, publication and applying the loads. telemetry ns: the stream's caller_ns (less wait_ns) per\n"
           "request; it times begin_frame and end_frame, not the requests between them.\n");

    const rss_result *r = res->rss;
    uint64_t declared = 0;
    for (uint32_t i = 0; i < p->budget_count; i++) {
        declared += p->budgets[i].parent == SLC_BUDGET_NONE_INDEX ? p->budgets[i].limit : 0;
    }
    int cpu = slc_profile_scan_budget(p, "cpu");
    uint64_t cpu_limit = cpu >= 0 ? p->budgets[cpu].limit : 0, pool_bytes = (uint64_t)b->pool_pages * p->page_size;
    printf("\npeak process memory (ru_maxrss of a forked child, %u workers)\n\n", b->workers);
    printf("%-58s %9s %8s\n", "case", "MiB", "GB/s");
    printf("%-58s %9.1f\n", "fixed: the process at fork, idle", (double)r[RSS_IDLE].maxrss_kib / 1024.0);
    snprintf(label, sizeof label, "stream through %u pages (%.2f MiB, pack/%.0f), pread", b->pool_pages,
             mib(pool_bytes), (double)b->h->file_size / (double)pool_bytes);
    printf("%-58s %9.1f %8.2f\n", label, (double)r[RSS_STREAM_PREAD].maxrss_kib / 1024.0,
           (double)b->decoded / (double)r[RSS_STREAM_PREAD].ns);
    printf("%-58s %9.1f %8.2f\n", "  the same, pack mapped (its page cache counts in RSS)",
           (double)r[RSS_STREAM_MAPPED].maxrss_kib / 1024.0, (double)b->decoded / (double)r[RSS_STREAM_MAPPED].ns);
    printf("%-58s %9.1f %8.2f\n", "load everything: malloc the decoded pack, load each chunk",
           (double)r[RSS_LOAD_ALL].maxrss_kib / 1024.0, (double)b->decoded / (double)r[RSS_LOAD_ALL].ns);
    printf("\nload everything / stream (pread): %.2fx\n",
           (double)r[RSS_LOAD_ALL].maxrss_kib / (double)r[RSS_STREAM_PREAD].maxrss_kib);
    printf("profile's declared total (cpu + gpu roots): %.1f MiB; as run: cpu %.1f MiB (the memory block) + pool "
           "%.2f MiB = %.1f MiB, plus the fixed cost\n",
           mib(declared), mib(cpu_limit), mib(pool_bytes), mib(cpu_limit + pool_bytes));
}

static void print_json(const bench *b, const results *res)
{
    const slc_profile *p = &b->profile;
    const rss_result *r = res->rss;
    uint64_t declared = 0;
    for (uint32_t i = 0; i < p->budget_count; i++) {
        declared += p->budgets[i].parent == SLC_BUDGET_NONE_INDEX ? p->budgets[i].limit : 0;
    }
    int cpu = slc_profile_scan_budget(p, "cpu");
    uint64_t cpu_limit = cpu >= 0 ? p->budgets[cpu].limit : 0;
    uint32_t last = res->modes - 1;
    printf("{\"pack\": {\"file_bytes\": %llu, \"chunks\": %u, \"page_size\": %u, \"decoded_bytes\": %llu},\n",
           (unsigned long long)b->h->file_size, b->h->chunk_count, b->h->page_size, (unsigned long long)b->decoded);
    printf(" \"profile\": {\"name\": \"%s\", \"page_size\": %llu, \"pool_pages\": %u, \"upload_cap\": %llu, "
           "\"queue_capacity\": %u, \"frames_in_flight\": %u, \"pin_and_partitions_set_aside\": %s, "
           "\"store_charged\": %s},\n",
           p->name, (unsigned long long)p->page_size, p->page_count, (unsigned long long)p->upload_cap,
           p->queue_capacity, p->frames_in_flight, b->set_aside ? "true" : "false",
           b->store_uncharged ? "false" : "true");
    printf(" \"repeats\": %u,\n \"throughput\": [\n", b->reps);
    for (uint32_t m = 0; m < res->modes; m++) {
        const pass_result *pr = &res->pass[m];
        if (m == 1) {
            printf("  {\"path\": \"raw_lz4_into_pool_pages\", \"gbps\": %.3f, \"vs_raw\": %.3f, "
                   "\"gb_per_cpu_s\": %.3f, \"cpu_vs_raw\": %.3f},\n",
                   res->ring_gbps, res->ring_gbps / res->gbps[0], res->ring_cpu_gbps,
                   res->ring_cpu_gbps / res->cpu_gbps[0]);
        }
        printf("  {\"path\": \"%s\", ", m == MODE_RAW ? "raw_lz4" : "stream");
        if (m != MODE_RAW) {
            printf("\"workers\": %u, \"frames\": %llu, \"loads\": %llu, \"caller_loads\": %llu, \"evictions\": %llu, ",
                   res->mode_workers[m], (unsigned long long)pr->frames, (unsigned long long)pr->loads,
                   (unsigned long long)pr->caller_loads, (unsigned long long)pr->evictions);
        }
        printf("\"gbps\": %.3f, \"vs_raw\": %.3f, \"gb_per_cpu_s\": %.3f, \"cpu_vs_raw\": %.3f}%s\n", res->gbps[m],
               res->gbps[m] / res->gbps[0], res->cpu_gbps[m], res->cpu_gbps[m] / res->cpu_gbps[0],
               m + 1 < res->modes ? "," : "");
    }
    printf(" ],\n \"ratio_1_worker_vs_raw\": %.3f, \"ratio_1_worker_vs_raw_cpu\": %.3f, \"ratio_inline_vs_raw\": %.3f, "
           "\"ratio_inline_vs_raw_cpu\": %.3f, \"speedup_workers\": %u, \"speedup_vs_1_worker\": %.3f,\n",
           res->gbps[2] / res->gbps[0], res->cpu_gbps[2] / res->cpu_gbps[0], res->gbps[1] / res->gbps[0],
           res->cpu_gbps[1] / res->cpu_gbps[0], res->mode_workers[last], res->gbps[last] / res->gbps[2]);
    printf(" \"speedup_1_worker_vs_inline\": %.3f, \"raw_threads\": %d, \"raw_threads_gbps\": %.3f, "
           "\"raw_threads_vs_raw\": %.3f, \"raw_threads_gb_per_cpu_s\": %.3f, \"raw_threads_cpu_vs_raw\": %.3f,\n",
           res->gbps[2] / res->gbps[1], RAW_THREADS_MAX, res->raw2_gbps, res->raw2_gbps / res->gbps[0],
           res->raw2_cpu_gbps, res->raw2_cpu_gbps / res->cpu_gbps[0]);
    printf(" \"per_codec\": [");
    const char *sep = "";
    for (uint32_t c = 0; c < SLC_PACK_CODEC_COUNT; c++) {
        if (b->codec_count[c] == 0) {
            continue;
        }
        printf("%s{\"codec\": \"%s\", \"chunks\": %u, \"decoded_bytes\": %llu, \"stream_gb_per_cpu_s\": %.3f", sep,
               slc_pack_codec_name(c), b->codec_count[c], (unsigned long long)b->codec_decoded[c],
               res->codec_stream_cpu[c]);
        if (res->codec_raw_cpu[c] > 0) {
            printf(", \"raw_gb_per_cpu_s\": %.3f, \"stream_vs_raw_cpu\": %.3f}", res->codec_raw_cpu[c],
                   res->codec_stream_cpu[c] / res->codec_raw_cpu[c]);
        } else {
            printf(", \"raw_gb_per_cpu_s\": null, \"stream_vs_raw_cpu\": null}");
        }
        sep = ", ";
    }
    printf("],\n");
    if (b->tile_count > 0) {
        printf(
            " \"tiles\": {\"chunks\": %u, \"decoded_bytes\": %llu, \"tails_left_out\": %u, \"texture_pool_pages\": %u, "
            "\"raw_gb_per_cpu_s\": %.3f, \"stream_gb_per_cpu_s\": %.3f, \"stream_vs_raw_cpu\": %.3f, "
            "\"loads\": %llu, \"loads_per_cpu_s\": %.1f},\n",
            b->tile_count, (unsigned long long)b->tile_decoded, b->tail_count, p->texture_page_count, res->tile_raw_cpu,
            res->tile_stream_cpu, res->tile_stream_cpu / res->tile_raw_cpu, (unsigned long long)res->tile_pass.loads,
            res->tile_loads_cpu);
    } else {
        printf(" \"tiles\": null,\n");
    }
    printf(" \"overhead\": {\"hit_requests\": %u, \"hit_frames\": %u, \"hit_ns_per_request\": %.2f, "
           "\"hit_telemetry_ns_per_request\": %.2f",
           res->hit_count, res->hit_frames, res->hit_ns, res->hit_tele_ns);
    printf(", \"miss_requests\": %llu, \"miss_loads\": %llu, \"miss_ns_per_request\": %.2f, "
           "\"miss_telemetry_ns_per_request\": %.2f",
           (unsigned long long)res->miss.requests, (unsigned long long)res->miss.loads, res->miss_ns,
           res->miss_tele_ns);
    printf("},\n \"memory\": {\"workers\": %u, \"pool_pages\": %u, \"pool_bytes\": %llu, \"fixed_kib\": %llu, "
           "\"stream_pread_kib\": %llu, \"stream_mapped_kib\": %llu, \"load_all_kib\": %llu, "
           "\"load_all_vs_stream\": %.3f, \"profile_declared_bytes\": %llu, \"profile_cpu_bytes\": %llu}}\n",
           b->workers, b->pool_pages, (unsigned long long)b->pool_pages * p->page_size,
           (unsigned long long)r[RSS_IDLE].maxrss_kib, (unsigned long long)r[RSS_STREAM_PREAD].maxrss_kib,
           (unsigned long long)r[RSS_STREAM_MAPPED].maxrss_kib, (unsigned long long)r[RSS_LOAD_ALL].maxrss_kib,
           (double)r[RSS_LOAD_ALL].maxrss_kib / (double)r[RSS_STREAM_PREAD].maxrss_kib, (unsigned long long)declared,
           (unsigned long long)cpu_limit);
}

/* A throughput run of one mode: a fresh stream, one pass (over the n
 * chunks ids lists, or every chunk when ids is NULL). */
static int run_mode_of(bench *b, uint32_t workers, int no_threads, const uint32_t *ids, uint32_t n, pass_result *out)
{
    static rig r; /* static: it must not move, and it is large */
    slc_profile prof = b->profile;
    prof.workers = workers;
    if (ids != b->tile_ids) {
        prof.texture_page_count = b->tail_count; /* a geometry pass: the tails alone */
    }
    int rc = rig_open(&r, &prof, &b->info.file.io, b->name, b->store_mem, b->store_size, no_threads);
    if (rc != CLI_OK) {
        return rc;
    }
    b->store_uncharged |= !r.charged;
    rc = stream_pass(&r, ids, n, out);
    rig_close(&r);
    return rc;
}

static int run_mode(bench *b, uint32_t workers, int no_threads, pass_result *out)
{
    return run_mode_of(b, workers, no_threads, b->ids, b->count, out);
}

/* Each repeat's figures, of which the results keep the medians. */
typedef struct samples {
    double gbps[MODES][REPS_MAX], cpu[MODES][REPS_MAX], ring_gbps[REPS_MAX], ring_cpu[REPS_MAX];
    double miss[REPS_MAX], miss_tele[REPS_MAX], raw2[REPS_MAX], raw2_cpu[REPS_MAX];
    double codec_raw[SLC_PACK_CODEC_COUNT][REPS_MAX], codec_stream[SLC_PACK_CODEC_COUNT][REPS_MAX];
    double tile_raw[REPS_MAX], tile_stream[REPS_MAX], tile_loads[REPS_MAX];
} samples;

/* The buffers the passes decode into: the pool's pages (b->store_mem), one
 * page, and a page for each thread of the two-thread pass. */
static int alloc_buffers(bench *b, unsigned char **page, unsigned char **pages2)
{
    b->store_size = SLC_ARENA_FOOTPRINT(slc_host_store_footprint(b->profile.page_count, b->profile.page_size));
    b->store_mem = alloc_touched(b->store_size);
    *page = alloc_touched(b->h->page_size);
    *pages2 = alloc_touched((size_t)RAW_THREADS_MAX * b->h->page_size);
    if (b->store_mem == NULL || *page == NULL || *pages2 == NULL) {
        fprintf(stderr, ME ": out of memory for a pool of %u pages\n", b->profile.page_count);
        return CLI_FAILED;
    }
    return CLI_OK;
}

/* Repeat k of the plain decode: into one page (the raw mode's row) and into
 * the pool's pages (the ring's). */
static int measure_raw(bench *b, unsigned char *page, uint32_t k, samples *sm)
{
    int rc = CLI_OK;
    for (int into_pool = 0; into_pool < 2; into_pool++) {
        uint64_t c0 = cpu_ns(), t0 = slc_platform_now_ns();
        uint64_t bytes = into_pool ? raw_pass(b, b->store_mem, b->profile.page_count, b->profile.page_size)
                                   : raw_pass(b, page, 1, 0);
        uint64_t t1 = slc_platform_now_ns(), c1 = cpu_ns();
        if (bytes != b->decoded) {
            fprintf(stderr, ME ": the plain decode rejected a chunk of %s\n", b->pack_path);
            rc = CLI_FAILED;
        }
        (into_pool ? sm->ring_gbps : sm->gbps[MODE_RAW])[k] = (double)bytes / (double)(t1 - t0);
        (into_pool ? sm->ring_cpu : sm->cpu[MODE_RAW])[k] = (double)bytes / (double)(c1 - c0);
    }
    return rc;
}

/* Repeat k of the ceiling for two threads: plain decode by two at once. */
static int measure_raw2(bench *b, unsigned char *pages2, uint32_t k, samples *sm)
{
    uint64_t c0 = cpu_ns(), t0 = slc_platform_now_ns();
    uint64_t bytes = raw_threads_pass(b, pages2, RAW_THREADS_MAX);
    uint64_t t1 = slc_platform_now_ns(), c1 = cpu_ns();
    sm->raw2[k] = (double)bytes / (double)(t1 - t0);
    sm->raw2_cpu[k] = (double)bytes / (double)(c1 - c0);
    if (bytes != b->decoded) {
        fprintf(stderr, ME ": plain decode by %d threads failed on %s\n", RAW_THREADS_MAX, b->pack_path);
        return CLI_FAILED;
    }
    return CLI_OK;
}

/* Repeat k of each codec alone, inline against its plain decode, where the
 * pack mixes codecs (one codec: the rows of the modes are that codec's). */
static int measure_codecs(bench *b, const results *res, unsigned char *page, uint32_t k, samples *sm)
{
    int rc = CLI_OK;
    for (uint32_t c = 0; c < SLC_PACK_CODEC_COUNT && rc == CLI_OK && res->codecs_present > 1; c++) {
        if (b->codec_count[c] == 0) {
            continue;
        }
        uint64_t c0 = cpu_ns();
        uint64_t bytes = raw_pass_of(b, page, 1, 0, b->by_codec[c], b->codec_count[c], 0, 1, &b->work[0]);
        uint64_t c1 = cpu_ns();
        if (bytes != b->codec_decoded[c]) {
            fprintf(stderr, ME ": the plain decode rejected a chunk of %s\n", b->pack_path);
            rc = CLI_FAILED;
        }
        sm->codec_raw[c][k] = (double)bytes / (double)(c1 - c0);
        pass_result pr;
        if (rc == CLI_OK && (rc = run_mode_of(b, 0, 0, b->by_codec[c], b->codec_count[c], &pr)) == CLI_OK) {
            sm->codec_stream[c][k] = (double)pr.bytes / (double)pr.cpu_ns;
        }
    }
    return rc;
}

/* Repeat k of every mode (raw, inline, 1 worker, N workers), of the
 * two-thread ceiling, of each codec and of the misses. */
/* Repeat k of the texture tiles (a pack with textures): each tile once,
 * inline, through the stream's texture pool (the profile's [textures]
 * page_count) against their plain decode, per CPU second. */
static int measure_tiles(bench *b, results *res, unsigned char *page, uint32_t k, samples *sm)
{
    if (b->tile_count == 0) {
        return CLI_OK;
    }
    uint64_t c0 = cpu_ns();
    uint64_t bytes = raw_pass_of(b, page, 1, 0, b->tile_ids, b->tile_count, 0, 1, &b->work[0]);
    uint64_t c1 = cpu_ns();
    if (bytes != b->tile_decoded) {
        fprintf(stderr, ME ": the plain decode rejected a tile of %s\n", b->pack_path);
        return CLI_FAILED;
    }
    sm->tile_raw[k] = (double)bytes / (double)(c1 - c0);
    int rc = run_mode_of(b, 0, 0, b->tile_ids, b->tile_count, &res->tile_pass);
    if (rc == CLI_OK) {
        sm->tile_stream[k] = (double)res->tile_pass.bytes / (double)res->tile_pass.cpu_ns;
        sm->tile_loads[k] = (double)res->tile_pass.loads * 1e9 / (double)res->tile_pass.cpu_ns;
    }
    return rc;
}

static int measure_rep(bench *b, results *res, unsigned char *page, unsigned char *pages2, uint32_t k, samples *sm)
{
    int rc = CLI_OK;
    for (uint32_t m = 0; m < res->modes && rc == CLI_OK; m++) {
        if (m == MODE_RAW) {
            rc = measure_raw(b, page, k, sm);
            continue;
        }
        pass_result *pr = &res->pass[m];
        rc = run_mode(b, res->mode_workers[m], 0, pr);
        sm->gbps[m][k] = (double)pr->bytes / (double)pr->ns;
        sm->cpu[m][k] = (double)pr->bytes / (double)pr->cpu_ns;
    }
    if (rc == CLI_OK) {
        rc = measure_raw2(b, pages2, k, sm);
    }
    if (rc == CLI_OK) {
        rc = measure_codecs(b, res, page, k, sm);
    }
    if (rc == CLI_OK) {
        rc = measure_tiles(b, res, page, k, sm);
    }
    /* 2, misses: 1 worker without threads (see the top of the file). */
    if (rc == CLI_OK && (rc = run_mode(b, 1, 1, &res->miss)) == CLI_OK) {
        sm->miss[k] = (double)res->miss.sched_ns / (double)res->miss.requests;
        sm->miss_tele[k] = (double)res->miss.tele_ns / (double)res->miss.requests;
    }
    return rc;
}

/* The medians of the repeats into res. */
static void summarise(const bench *b, results *res, samples *sm)
{
    for (uint32_t m = 0; m < res->modes; m++) {
        res->gbps[m] = median(sm->gbps[m], b->reps);
        res->cpu_gbps[m] = median(sm->cpu[m], b->reps);
    }
    res->ring_gbps = median(sm->ring_gbps, b->reps);
    res->ring_cpu_gbps = median(sm->ring_cpu, b->reps);
    res->miss_ns = median(sm->miss, b->reps);
    res->miss_tele_ns = median(sm->miss_tele, b->reps);
    res->raw2_gbps = median(sm->raw2, b->reps);
    res->raw2_cpu_gbps = median(sm->raw2_cpu, b->reps);
    if (b->tile_count > 0) {
        res->tile_raw_cpu = median(sm->tile_raw, b->reps);
        res->tile_stream_cpu = median(sm->tile_stream, b->reps);
        res->tile_loads_cpu = median(sm->tile_loads, b->reps);
    }
    for (uint32_t c = 0; c < SLC_PACK_CODEC_COUNT; c++) {
        if (b->codec_count[c] == 0) {
            continue;
        }
        if (res->codecs_present == 1) { /* the pack is this codec: the inline row's figures */
            res->codec_raw_cpu[c] = res->cpu_gbps[MODE_RAW];
            res->codec_stream_cpu[c] = res->cpu_gbps[1];
        } else {
            res->codec_raw_cpu[c] = median(sm->codec_raw[c], b->reps);
            res->codec_stream_cpu[c] = median(sm->codec_stream[c], b->reps);
        }
    }
}

/* 2, hits: one stream (no workers: nothing loads while timed). */
static int measure_hits(bench *b, results *res)
{
    static rig r;
    static double self[REPS_MAX], tele[REPS_MAX];
    uint32_t count = b->profile.queue_capacity;
    count = count < b->count ? count : b->count;
    count = count < b->profile.page_count ? count : b->profile.page_count;
    res->hit_count = count;
    res->hit_frames = HIT_REQUESTS / count > 0 ? HIT_REQUESTS / count : 1;
    slc_profile prof = b->profile;
    prof.workers = 0;
    prof.texture_page_count = b->tail_count;
    int rc = rig_open(&r, &prof, &b->info.file.io, b->name, b->store_mem, b->store_size, 0);
    if (rc == CLI_OK) {
        rc = hit_batch(&r, b->ids, count, 0, 1, NULL, NULL);
        for (uint32_t k = 0; k < b->reps && rc == CLI_OK; k++) {
            rc = hit_batch(&r, b->ids, count, res->hit_frames, 0, &self[k], &tele[k]);
        }
        rig_close(&r);
    }
    if (rc == CLI_OK) {
        res->hit_ns = median(self, b->reps);
        res->hit_tele_ns = median(tele, b->reps);
    }
    return rc;
}

static void bench_free(bench *b, unsigned char *page, unsigned char *pages2)
{
    free(page);
    free(pages2);
    free(b->store_mem);
    for (uint32_t t = 0; t < RAW_THREADS_MAX; t++) {
        free(b->work[t].stream);
        free(b->work[t].indices);
    }
    for (uint32_t c = 0; c < SLC_PACK_CODEC_COUNT; c++) {
        free(b->by_codec[c]);
    }
    free(b->geo_ids);
    free(b->tile_ids);
    if (b->info_open) {
        cli_pack_close(&b->info);
    }
}

int bench_stream(int argc, char **argv)
{
    static bench b;
    static results res;
    static samples sm;
    memset(&b, 0, sizeof b);
    memset(&res, 0, sizeof res);
    int rc = parse_args(argc, argv, &b);
    if (rc == CLI_ARGS_HELP) {
        return CLI_OK;
    }
    if (rc == CLI_OK) {
        rc = setup(&b);
    }

    /* 3 first, while this process is small: every child starts with its RSS. */
    for (int k = 0; k < RSS_KINDS && rc == CLI_OK; k++) {
        rc = rss_measure(&b, k, &res.rss[k]);
    }

    unsigned char *page = NULL, *pages2 = NULL;
    if (rc == CLI_OK) {
        rc = alloc_buffers(&b, &page, &pages2);
    }

    /* 1: raw, inline, 1 worker, N workers; repeats go round the modes. */
    res.mode_workers[1] = 0;
    res.mode_workers[2] = 1;
    res.mode_workers[3] = b.workers;
    res.modes = b.workers > 1 ? 4u : 3u;
    for (uint32_t c = 0; c < SLC_PACK_CODEC_COUNT; c++) {
        res.codecs_present += b.codec_count[c] > 0;
    }
    if (rc == CLI_OK) { /* warm the page cache and the code */
        rc = raw_pass(&b, page, 1, 0) == b.decoded ? run_mode(&b, b.workers, 0, &res.pass[0]) : CLI_FAILED;
    }
    for (uint32_t k = 0; k < b.reps && rc == CLI_OK; k++) {
        rc = measure_rep(&b, &res, page, pages2, k, &sm);
    }
    if (rc == CLI_OK) {
        summarise(&b, &res, &sm);
        rc = measure_hits(&b, &res);
    }

    if (rc == CLI_OK) {
        if (b.json) {
            print_json(&b, &res);
        } else {
            print_text(&b, &res);
        }
    }
    bench_free(&b, page, pages2);
    return rc;
}
