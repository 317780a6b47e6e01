/* sluice run: stream a workload through a profile and a pack on a backend,
 * frame by frame, with the real scheduler (sluice/stream.h), the profile's
 * worker threads, memory from one mapped block, and a page store (Vulkan,
 * else the host backend), then report what every budget and frame did and
 * judge it.
 *
 * The workload is a trace (docs/trace-format.md) or the built-in camera
 * (camera.h), read or made frame by frame (workload.h): both run through the
 * same replay loop, so --save-trace followed by --trace of the saved file
 * makes the same requests and, the scheduler being a pure function of them,
 * the same eviction log.
 *
 * Memory does not grow with the frame count: each frame's figures are
 * aggregated as it ends (run_outputs.h: log-bucket percentiles, running
 * peaks and counts, a timeline of at most RUN_TIMELINE_POINTS points), and
 * the eviction log, the Chrome trace and the saved trace are streamed to
 * their files. Every file is written through a temporary and renamed over
 * its target only when the run completes (atomic_file.h); a failed run
 * leaves the old files as they were.
 *
 * The verdict checks, and only these: every budget's peak within its limit
 * (from the budget manager, over the whole run); no reservation refused; in
 * every frame's telemetry, every budget within its limit and the decoded
 * bytes of the loads the frame applied within the profile's upload cap; with
 * --frame-budget-us, the caller's time in the frame (the telemetry's
 * caller_ns) within it; no chunk load failed (checksum, short read, decode,
 * content), unless --allow-load-failures. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "camera.h"
#include "cli.h"
#include "run_files.h"
#include "run_outputs.h"
#include "run_report.h"
#include "sluice/host_store.h"
#include "sluice/platform.h"
#include "sluice/stream.h"
#include "sluice/workers.h"
#include "trace.h"
#include "workload.h"
#ifdef SLUICE_HAVE_VULKAN
#include "sluice/vulkan.h"
#endif

#ifndef SLUICE_DEFAULT_PROFILE
#define SLUICE_DEFAULT_PROFILE "budgets/default.profile"
#endif

/* The verdict failed: a budget or a frame limit was missed (every reason is
 * printed). cli.h's codes stop at 3; this one is run's own. */
#define RUN_VERDICT_FAILED 4

#define ME "sluice run"
#define SPAN_RING 4096u      /* load spans a worker holds until the caller writes them (a power of two) */

static const char usage_head[] =
    "usage: sluice run PACK [options]\n"
    "\n"
    "Streams a workload through PACK frame by frame with the streaming scheduler, the\n"
    "profile's memory budgets and worker threads, on a GPU page store, then reports every\n"
    "budget, the scheduler's counters and the caller's time per frame, and judges the run.\n"
    "\n"
    "options:\n";

/* After the options the table lists. */
static const char usage_tail[] =
    "  -h, --help            this text\n"
    "\n"
    "The verdict checks every budget's peak against its limit, that no reservation was\n"
    "refused, that no chunk load failed, and in each frame the budgets, the decoded bytes\n"
    "of the loads applied against the upload cap, and (--frame-budget-us) the caller's time.\n"
    "Files are written through a temporary renamed over the target when the run completes:\n"
    "a failed run leaves an existing file as it was. An output may not name an input.\n"
    "\n"
    "exit codes: 0 the verdict holds; 1 input judged bad (profile, pack, trace) or the run\n"
    "failed; 2 bad command line; 3 a file not readable or writable; 4 the verdict failed\n"
    "(each reason printed)\n";

typedef struct opts {
    const char *pack_path, *profile_path, *trace_path, *save_trace, *svg, *chrome, *evict_log;
    const char *backend; /* auto, vulkan, host */
    camera_desc cam;
    int json;
    int allow_load_failures;
    int mmap; /* map the pack; by default it is read through pread (platform.h: faults) */
    int64_t workers;         /* -1: the profile's */
    uint64_t frame_budget_ns; /* 0: none */
    int frames_set;
} opts;

/* One frame's figures, folded into the run's aggregates when it ends. */
typedef struct frame_rec {
    slc_stream_frame_stats t;
    uint64_t start_ns, end_ns; /* from the run's origin: begin_frame to the last resident query */
    uint32_t pool_used;        /* pages not free after end_frame */
    uint32_t objects, exact, coarser, none;
    uint32_t stalls;           /* begin_frame refused: frames in flight */
} frame_rec;

typedef struct load_span {
    uint64_t t0, t1;
} load_span;

/* The worker threads' context: the stream and, for the Chrome trace, each
 * worker's ring of load spans (the worker writes head, the caller's thread
 * drains up to it each frame and writes tail). */
typedef struct work_ctx {
    slc_stream *s;
    uint64_t origin;
    uint32_t workers;
    load_span *spans[SLC_PLATFORM_WORKERS_MAX];
    atomic_size_t head[SLC_PLATFORM_WORKERS_MAX], tail[SLC_PLATFORM_WORKERS_MAX];
    size_t dropped[SLC_PLATFORM_WORKERS_MAX]; /* the ring was full; read once the workers are joined */
} work_ctx;

static bool work_fn(void *ctx, uint32_t worker)
{
    work_ctx *w = ctx;
    uint64_t t0 = slc_platform_now_ns();
    bool ran = slc_stream_work(w->s, worker);
    if (ran && w->spans[worker] != NULL) {
        size_t head = atomic_load_explicit(&w->head[worker], memory_order_relaxed);
        size_t tail = atomic_load_explicit(&w->tail[worker], memory_order_acquire);
        if (head - tail < SPAN_RING) {
            w->spans[worker][head & (SPAN_RING - 1u)] = (load_span){t0 - w->origin, slc_platform_now_ns() - w->origin};
            atomic_store_explicit(&w->head[worker], head + 1u, memory_order_release);
        } else {
            w->dropped[worker]++;
        }
    }
    return ran;
}

/* The stream's logger: the first few messages, then a count. */
typedef struct quiet_log {
    unsigned shown, dropped;
} quiet_log;

static void quiet_log_fn(void *user, slc_log_level level, slc_status status, const char *message)
{
    quiet_log *q = user;
    if (q->shown < 8) {
        q->shown++;
        cli_stderr_logger.fn(cli_stderr_logger.user, level, status, message);
    } else {
        q->dropped++;
    }
}

/* A logger that keeps the last message (the Vulkan backend's reason). */
typedef struct keep_log {
    char message[512];
    slc_status status;
} keep_log;

static void keep_log_fn(void *user, slc_log_level level, slc_status status, const char *message)
{
    keep_log *k = user;
    (void)level;
    k->status = status;
    snprintf(k->message, sizeof k->message, "%s", message);
}

#define RUN_USAGE "usage: sluice run PACK [options] (sluice run --help: every option)\n"

/* Returns CLI_OK, CLI_USAGE (printed), or CLI_ARGS_HELP after the help. */
static int parse_args(int argc, char **argv, opts *o)
{
    static const char *const backends[] = {"auto", "vulkan", "host", NULL};
    memset(o, 0, sizeof *o);
    o->profile_path = SLUICE_DEFAULT_PROFILE;
    int backend = 0, path = CAMERA_FLY, workers_set = 0;
    uint64_t frames = 240, workers = 0, budget_us = 0;
    double sse = 1.0;
    o->cam.seed = 1;
    const cli_opt table[] = {
        {.name = "--profile", .kind = CLI_OPT_STRING, .dest = &o->profile_path, .arg = "FILE",
         .help = "budget profile (default: " SLUICE_DEFAULT_PROFILE ")"},
        {.name = "--trace", .kind = CLI_OPT_STRING, .dest = &o->trace_path, .arg = "FILE",
         .help = "replay a trace (docs/trace-format.md); otherwise the camera runs"},
        {.name = "--camera", .kind = CLI_OPT_ENUM, .dest = &path, .choices = camera_path_names,
         .bad = "{opt} '{value}': expected fly, orbit or teleport", .arg = "PATH",
         .help = "built-in camera: fly (default), orbit or teleport"},
        {.name = "--frames", .kind = CLI_OPT_U64, .dest = &frames, .min = 1, .max = TRACE_FRAMES_MAX,
         .bad = "{opt} '{value}': expected a count in 1..{max}", .seen = &o->frames_set, .arg = "N",
         .help = "frames the camera runs (default 240)"},
        {.name = "--seed", .kind = CLI_OPT_U64, .dest = &o->cam.seed, .max = UINT64_MAX,
         .bad = "{opt} '{value}': expected a number", .arg = "N", .help = "the camera's seed (default 1)"},
        {.name = "--sse", .kind = CLI_OPT_DOUBLE, .dest = &sse, .dmin = 0.0, .open_min = 1, .dmax = 1e6,
         .bad = "{opt} '{value}': expected pixels above 0", .arg = "PX",
         .help = "the camera's screen-space error threshold in pixels (default 1)"},
        {.name = "--save-trace", .kind = CLI_OPT_STRING, .dest = &o->save_trace, .arg = "FILE",
         .help = "write the workload (the camera's too) as a trace, as it runs"},
        {.name = "--backend", .kind = CLI_OPT_ENUM, .dest = &backend, .choices = backends,
         .bad = "{opt} '{value}': expected auto, vulkan or host", .arg = "B",
         .help = "auto (default: Vulkan on the default device, the host backend\n"
                 "with a notice when there is none), vulkan or host"},
        {.name = "--workers", .kind = CLI_OPT_U64, .dest = &workers, .max = SLC_PLATFORM_WORKERS_MAX,
         .bad = "{opt} '{value}': expected a count in 0..{max}", .seen = &workers_set, .arg = "N",
         .help = "override the profile's worker threads (0: loads run inline)"},
        {.name = "--mmap", .kind = CLI_OPT_FLAG, .dest = &o->mmap,
         .help = "map the pack instead of reading it with pread (a pack cut short\n"
                 "while it runs fails the loads of the bytes gone: SLC_E_IO)"},
        {.name = "--frame-budget-us", .kind = CLI_OPT_U64, .dest = &budget_us, .min = 1, .max = UINT64_MAX / 1000u,
         .bad = "{opt} '{value}': expected microseconds above 0", .arg = "N",
         .help = "a frame whose caller time exceeds N microseconds misses its limit"},
        {.name = "--allow-load-failures", .kind = CLI_OPT_FLAG, .dest = &o->allow_load_failures,
         .help = "a failed chunk load (checksum, short read, decode) does not fail\n"
                 "the verdict: the run degrades and continues, and the report says so"},
        {.name = "--json", .kind = CLI_OPT_FLAG, .dest = &o->json,
         .help = "the report as JSON on stdout instead of the table"},
        {.name = "--svg", .kind = CLI_OPT_STRING, .dest = &o->svg, .arg = "FILE",
         .help = "a timeline: budgets against their limits, pool pages, upload\n"
                 "bytes and misses per frame"},
        {.name = "--chrome-trace", .kind = CLI_OPT_STRING, .dest = &o->chrome, .arg = "FILE",
         .help = "Chrome trace-event JSON (Perfetto, chrome://tracing): frames on\n"
                 "the caller's thread, loads on each worker (the first 100000 frames)"},
        {.name = "--evict-log", .kind = CLI_OPT_STRING, .dest = &o->evict_log, .arg = "FILE",
         .help = "the pool's eviction log, one entry a line"},
    };
    size_t operands = 0;
    const cli_args spec = {.me = ME, .opts = table, .count = sizeof table / sizeof table[0],
                           .operands = &o->pack_path, .max_operands = 1, .operand_count = &operands,
                           .missing = "{opt} needs a value", .unknown = "unexpected argument '{value}'",
                           .usage = RUN_USAGE, .usage_after = CLI_ARGS_ALL, .help = 1, .help_column = 24};
    int rc = cli_args_parse(&spec, argc, argv);
    if (rc == CLI_ARGS_HELP) {
        fputs(usage_head, stdout);
        cli_args_print_options(stdout, &spec);
        fputs(usage_tail, stdout);
    }
    if (rc != CLI_OK) {
        return rc;
    }
    o->backend = backends[backend];
    o->cam.path = (camera_path)path;
    o->cam.frames = (uint32_t)frames;
    o->cam.sse_px = (float)sse;
    o->workers = workers_set ? (int64_t)workers : -1;
    o->frame_budget_ns = budget_us * 1000u;
    if (o->pack_path == NULL) {
        return cli_usage_error(ME, RUN_USAGE, "no PACK given");
    }
    if (o->trace_path != NULL && o->frames_set) {
        return cli_usage_error(ME, RUN_USAGE, "--frames is for the camera; a trace declares its own frames");
    }
    return CLI_OK;
}

/* --- the run's state ----------------------------------------------------------------- */

typedef struct run {
    opts o;
    slc_profile prof;
    const char *pack_name;
    slc_platform_block block;
    slc_memory *mem;
    slc_platform_file file;
    int file_open;
    slc_pack *pack;
    /* the store */
    const char *backend;  /* "vulkan" or "host" */
    char backend_detail[400];
    slc_platform_block page_block;
    slc_page_store host_store;
    const slc_page_store *store;
#ifdef SLUICE_HAVE_VULKAN
    void *vk_mem;
    slc_vulkan *vk;
#endif
    double store_init_ms;
    /* the stream */
    quiet_log qlog;
    slc_logger stream_log;
    slc_platform_workers workers;
    int workers_started;
    work_ctx wctx;
    slc_stream *s;
    /* the workload */
    workload wl;
    slc_partition parts[TRACE_PARTITIONS_MAX];
    uint8_t part_known[TRACE_PARTITIONS_MAX];
    /* results, aggregated frame by frame */
    uint32_t frame_count;
    uint64_t wall_ns;
    uint64_t reservations_at_start; /* of every budget outside cpu/driver, when streaming began */
    uint64_t limit[SLC_BUDGET_MAX]; /* every budget's limit, in the telemetry's order */
    size_t nlimit;
    run_hist caller;                /* caller_ns of every frame */
    run_summary agg;                /* the frames' counts, maxima and first frames over a limit; summarise
                                     * starts from a copy and fills in the rest */
    run_timeline timeline;
    run_files files; /* each through a temporary, committed when the run completes */
    run_chrome chrome;
    FILE *evlog;
    uint64_t ev_next;
    uint64_t ev_lost;
} run;

static void run_close(run *r)
{
    slc_platform_workers_stop(&r->workers);
    if (r->s != NULL) {
        slc_stream_destroy(r->s);
        r->s = NULL;
    }
#ifdef SLUICE_HAVE_VULKAN
    if (r->vk != NULL) {
        slc_vulkan_deinit(r->vk);
        r->vk = NULL;
    }
    free(r->vk_mem);
    r->vk_mem = NULL;
#endif
    if (r->host_store.ops != NULL) {
        slc_host_store_deinit(&r->host_store);
    }
    if (r->page_block.base != NULL) {
        slc_platform_block_unmap(&r->page_block);
    }
    if (r->pack != NULL) {
        slc_pack_close(r->pack);
        r->pack = NULL;
    }
    if (r->file_open) {
        slc_platform_file_close(&r->file);
        r->file_open = 0;
    }
    if (r->mem != NULL) {
        slc_memory_deinit(r->mem);
        r->mem = NULL;
    }
    if (r->block.base != NULL) {
        slc_platform_block_unmap(&r->block);
    }
    for (uint32_t i = 0; i < SLC_PLATFORM_WORKERS_MAX; i++) {
        free(r->wctx.spans[i]);
        r->wctx.spans[i] = NULL;
    }
    workload_close(&r->wl);
    run_files_abort(&r->files); /* a run that failed: its files are incomplete, the old ones stay */
    r->evlog = NULL;
}

/* The host store: pages in host memory mapped once, exactly their bytes
 * charged to gpu/pool (as a GPU backend's pool would be). */
static int open_host_store(run *r)
{
    slc_host_store_desc hd;
    slc_host_store_desc_from_profile(&r->prof, &hd);
    const uint32_t pages = hd.page_count, page_size = hd.page_size;
    size_t fp = slc_host_store_footprint(pages, page_size);
    if (fp == 0) {
        fprintf(stderr, ME ": profile '%s': %u pages of %u bytes do not fit this machine\n", r->prof.name, pages,
                page_size);
        return CLI_FAILED;
    }
    slc_budgets *b = slc_memory_budgets(r->mem);
    slc_budget_id gpu_pool;
    if (slc_budgets_scan(b, "gpu/pool", &gpu_pool) != SLC_OK) {
        fprintf(stderr, ME ": profile '%s' declares no gpu/pool budget to charge the host store's pages to\n",
                r->prof.name);
        return CLI_FAILED;
    }
    char why[512];
    if (cli_check_machine_memory(&r->prof, r->block.size, fp, 1, why, sizeof why) != 0) {
        fprintf(stderr, ME ": %s\n", why);
        return CLI_FAILED;
    }
    if (slc_platform_block_map(fp, SLC_PLATFORM_BLOCK_DEFAULT, &cli_stderr_logger, &r->page_block) != SLC_OK) {
        fprintf(stderr, ME ": profile '%s': the host store of %u pages of %u bytes cannot be mapped (see above)\n",
                r->prof.name, pages, page_size);
        return CLI_FAILED;
    }
    slc_status hs = slc_host_store_init_at(r->page_block.base, fp, b, gpu_pool, pages, page_size, &cli_stderr_logger,
                                           &r->host_store);
    if (hs != SLC_OK) {
        fprintf(stderr, ME ": the host store of %u pages of %u bytes %s of profile '%s' (%s)\n", pages, page_size,
                hs == SLC_E_BUDGET_REFUSED ? "does not fit the gpu/pool budget" : "cannot be set up in the block",
                r->prof.name, slc_status_name(hs));
        return CLI_FAILED;
    }
    r->store = &r->host_store;
    r->backend = "host";
    snprintf(r->backend_detail, sizeof r->backend_detail, "host (pages in host memory, no GPU)");
    return CLI_OK;
}

#ifdef SLUICE_HAVE_VULKAN
/* The Vulkan store on the default device. Returns CLI_OK, CLI_FAILED, or -1
 * when there is no Vulkan device (the caller may fall back). */
static int open_vulkan_store(run *r, keep_log *why)
{
    slc_vulkan_desc d;
    memset(&d, 0, sizeof d);
    slc_vulkan_desc_from_profile(&d, &r->prof);
    d.budgets = slc_memory_budgets(r->mem);
    d.log = (slc_logger){keep_log_fn, why};
    size_t size = slc_vulkan_footprint(&d);
    if (size == 0) {
        fprintf(stderr, ME ": profile '%s' cannot be a Vulkan page pool (page size or count out of range)\n",
                r->prof.name);
        return CLI_FAILED;
    }
    r->vk_mem = aligned_alloc(SLC_VULKAN_ALIGN, (size + SLC_VULKAN_ALIGN - 1u) & ~(size_t)(SLC_VULKAN_ALIGN - 1u));
    if (r->vk_mem == NULL) {
        fprintf(stderr, ME ": out of memory\n");
        return CLI_FAILED;
    }
    slc_status st = slc_vulkan_init(r->vk_mem, size, &d, &r->vk);
    if (st != SLC_OK) {
        free(r->vk_mem);
        r->vk_mem = NULL;
        r->vk = NULL;
        if (st == SLC_E_UNSUPPORTED) {
            return -1;
        }
        fprintf(stderr, ME ": Vulkan: %s (%s)\n", why->message, slc_status_name(st));
        return CLI_FAILED;
    }
    slc_vulkan_info info;
    slc_vulkan_get_info(r->vk, &info);
    r->store = slc_vulkan_get_store(r->vk);
    r->backend = "vulkan";
    snprintf(r->backend_detail, sizeof r->backend_detail, "vulkan (%s, %s, %u segment%s, %s)", info.device_name,
             info.unified ? "unified memory, mapped" : "staging belt", info.segment_count,
             info.segment_count == 1 ? "" : "s", info.timeline ? "timeline semaphore" : "fences");
    return CLI_OK;
}
#endif

static int open_store(run *r)
{
    uint64_t t0 = slc_platform_now_ns();
    int rc;
    if (strcmp(r->o.backend, "host") == 0) {
        rc = open_host_store(r);
    } else {
#ifdef SLUICE_HAVE_VULKAN
        keep_log why;
        memset(&why, 0, sizeof why);
        rc = open_vulkan_store(r, &why);
        if (rc < 0) {
            if (strcmp(r->o.backend, "vulkan") == 0) {
                fprintf(stderr, ME ": no Vulkan device: %s\n", why.message[0] ? why.message : "slc_vulkan_init failed");
                rc = CLI_FAILED;
            } else {
                fprintf(stderr, ME ": notice: no Vulkan device (%s); running on the host backend\n",
                        why.message[0] ? why.message : "slc_vulkan_init failed");
                rc = open_host_store(r);
            }
        }
#else
        if (strcmp(r->o.backend, "vulkan") == 0) {
            fprintf(stderr, ME ": this build has no Vulkan backend (SLUICE_VULKAN=OFF)\n");
            return CLI_FAILED;
        }
        fprintf(stderr, ME ": notice: this build has no Vulkan backend; running on the host backend\n");
        rc = open_host_store(r);
#endif
    }
    r->store_init_ms = (double)(slc_platform_now_ns() - t0) / 1e6;
    return rc;
}

/* The pool partition of the trace's partition index p, looked up when first
 * asked for; CLI_FAILED (printed) when the profile lacks it. */
static int resolve_partition(run *r, const trace_req *q)
{
    uint8_t p = q->partition;
    if (r->part_known[p]) {
        return CLI_OK;
    }
    const char *name = workload_partition(&r->wl, p);
    if (slc_pool_scan_partition(slc_stream_pool(r->s), name, &r->parts[p]) != SLC_OK) {
        fprintf(stderr, "%s:%u: partition '%s' is not in profile '%s'\n", r->o.trace_path, q->line, name, r->prof.name);
        return CLI_FAILED;
    }
    r->part_known[p] = 1;
    return CLI_OK;
}

static void walk_evictions(run *r)
{
    if (r->evlog != NULL) {
        run_evict_log_walk(r->evlog, slc_stream_pool(r->s), &r->ev_next, &r->ev_lost);
    }
}

/* --- the frame loop --------------------------------------------------------------------- */

/* Writes the load spans the workers finished so far to the Chrome trace. */
static void drain_spans(run *r)
{
    for (uint32_t w = 0; w < r->wctx.workers; w++) {
        if (r->wctx.spans[w] == NULL) {
            continue;
        }
        size_t head = atomic_load_explicit(&r->wctx.head[w], memory_order_acquire);
        size_t tail = atomic_load_explicit(&r->wctx.tail[w], memory_order_relaxed);
        for (; tail != head; tail++) {
            const load_span *sp = &r->wctx.spans[w][tail & (SPAN_RING - 1u)];
            run_chrome_load(&r->chrome, w, sp->t0, sp->t1);
        }
        atomic_store_explicit(&r->wctx.tail[w], tail, memory_order_release);
    }
}

/* Folds frame f's figures into the run's aggregates and outputs. */
static void add_frame(run *r, uint32_t f, const frame_rec *fr)
{
    run_summary *a = &r->agg;
    run_hist_add(&r->caller, fr->t.caller_ns);
    a->wait_max = fr->t.wait_ns > a->wait_max ? fr->t.wait_ns : a->wait_max;
    a->objects += fr->objects;
    a->exact += fr->exact;
    a->coarser += fr->coarser;
    a->none += fr->none;
    a->stalls += fr->stalls;
    int over = 0;
    for (uint32_t i = 0; i < fr->t.budget_count && i < r->nlimit; i++) {
        over |= fr->t.budgets[i] > r->limit[i];
    }
    if (over && a->over_budget++ == 0) {
        a->first_over_budget = f;
    }
    if (fr->t.bytes_decoded > r->prof.upload_cap && a->over_upload++ == 0) {
        a->first_over_upload = f;
    }
    if (r->o.frame_budget_ns && fr->t.caller_ns > r->o.frame_budget_ns && a->over_time++ == 0) {
        a->first_over_time = f;
    }
    run_timeline_add(&r->timeline, &fr->t, fr->pool_used);
    if (r->o.chrome != NULL) {
        run_chrome_frame(&r->chrome, f, fr->start_ns, fr->end_ns, &fr->t, fr->pool_used);
        drain_spans(r);
    }
}

static int run_frames(run *r)
{
    const uint64_t origin = r->wctx.origin;
    const slc_partition def = {0};
    slc_budget_stats lim[SLC_BUDGET_MAX];
    r->nlimit = slc_budgets_walk_report(slc_memory_budgets(r->mem), lim, SLC_BUDGET_MAX);
    r->nlimit = r->nlimit > SLC_BUDGET_MAX ? SLC_BUDGET_MAX : r->nlimit;
    for (size_t i = 0; i < r->nlimit; i++) {
        r->limit[i] = lim[i].limit;
    }
    run_timeline_init(&r->timeline);
    const uint64_t t_start = slc_platform_now_ns();
    for (uint32_t f = 0; workload_has_frame(&r->wl, f); f++) {
        frame_rec rec, *fr = &rec;
        memset(fr, 0, sizeof *fr);
        fr->start_ns = slc_platform_now_ns() - origin;
        slc_status st;
        while ((st = slc_stream_begin_frame(r->s, NULL)) == SLC_E_FRAMES_IN_FLIGHT) {
            fr->stalls++;
#ifdef SLUICE_HAVE_VULKAN
            if (r->vk != NULL) {
                slc_pool_stats ps;
                slc_pool_get_stats(slc_stream_pool(r->s), &ps);
                uint64_t want = ps.submitted + 1u > r->prof.frames_in_flight ? ps.submitted + 1u - r->prof.frames_in_flight : 1u;
                st = slc_vulkan_wait_frame(r->vk, want, 10ull * 1000000000ull);
                if (st != SLC_OK) {
                    break;
                }
                continue;
            }
#endif
            if (fr->stalls > 1000000u) {
                break;
            }
        }
        if (st != SLC_OK) {
            fprintf(stderr, ME ": frame %u: begin_frame failed (%s)\n", f, slc_status_name(st));
            return CLI_FAILED;
        }
        walk_evictions(r);
        trace_req q;
        int k;
        while ((k = workload_next(&r->wl, f, &q)) == 1) {
            slc_partition part = def;
            if (q.partition != TRACE_PARTITION_DEFAULT) {
                if (resolve_partition(r, &q) != CLI_OK) {
                    return CLI_FAILED;
                }
                part = r->parts[q.partition];
            }
            if (q.kind == TRACE_OBJECT) {
                slc_stream_object_request req = {{q.id}, q.lod, q.priority, part};
                (void)slc_stream_request(r->s, &req); /* a refusal is counted in the telemetry */
            } else {
                (void)slc_stream_request_chunk(r->s, (slc_chunk_id){q.id}, q.priority, part);
            }
        }
        if (k < 0) {
            return r->wl.rc;
        }
        if ((st = slc_stream_end_frame(r->s)) != SLC_OK) {
            fprintf(stderr, ME ": frame %u: end_frame failed (%s)\n", f, slc_status_name(st));
            return CLI_FAILED;
        }
        walk_evictions(r);
        uint32_t results = slc_stream_result_count(r->s);
        for (uint32_t i = 0; i < results; i++) {
            slc_stream_result res;
            st = slc_stream_resident(r->s, i, &res, NULL, 0);
            if (st != SLC_OK && st != SLC_E_CAPACITY) {
                continue;
            }
            fr->objects++;
            if (res.lod == SLC_STREAM_LOD_NONE) {
                fr->none++;
            } else if (res.lod == res.requested_lod) {
                fr->exact++;
            } else {
                fr->coarser++;
            }
        }
        fr->end_ns = slc_platform_now_ns() - origin;
        if (slc_stream_walk_telemetry(r->s, &fr->t, 1) != 1) {
            fprintf(stderr, ME ": frame %u: the stream kept no telemetry\n", f);
            return CLI_FAILED;
        }
        slc_pool_stats ps;
        slc_pool_get_stats(slc_stream_pool(r->s), &ps);
        fr->pool_used = ps.page_count - ps.free;
        add_frame(r, f, fr);
        r->frame_count = f + 1;
    }
    r->wall_ns = slc_platform_now_ns() - t_start;
    return CLI_OK;
}

/* Reservations made so far on every budget but cpu/driver and its
 * children (the driver's own host allocations, which a GPU driver may make
 * at any time through the allocation callbacks): what the runtime itself
 * took. Streaming must not add to it. */
static uint64_t runtime_reservations(run *r)
{
    slc_budget_stats b[SLC_BUDGET_MAX];
    size_t n = slc_budgets_walk_report(slc_memory_budgets(r->mem), b, SLC_BUDGET_MAX);
    uint64_t total = 0;
    for (size_t i = 0; i < n && i < SLC_BUDGET_MAX; i++) {
        if (strncmp(b[i].name, "cpu/driver", 10) != 0) {
            total += b[i].reservations;
        }
    }
    return total;
}

/* --- the report --------------------------------------------------------------------------- */

static void add_reason(run_summary *s, const char *fmt, ...)
{
    if (s->nreasons >= RUN_REASONS_MAX) {
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->reasons[s->nreasons++], sizeof s->reasons[0], fmt, ap);
    va_end(ap);
}

static int summarise(run *r, run_summary *s)
{
    *s = r->agg;
    slc_stream_get_stats(r->s, &s->st);
    slc_pool_get_stats(slc_stream_pool(r->s), &s->ps);
    s->nb = slc_budgets_walk_report(slc_memory_budgets(r->mem), s->b, SLC_BUDGET_MAX);
    if (s->nb > SLC_BUDGET_MAX) {
        s->nb = SLC_BUDGET_MAX;
    }
    s->p50 = run_hist_percentile(&r->caller, 50);
    s->p99 = run_hist_percentile(&r->caller, 99);
    s->max = r->caller.max;
    s->reservations_while_streaming = runtime_reservations(r) - r->reservations_at_start;
    if (s->reservations_while_streaming != 0) {
        add_reason(s, "%" PRIu64 " budget reservations while streaming (nothing may be allocated after init)",
                   s->reservations_while_streaming);
    }
    for (size_t i = 0; i < s->nb; i++) {
        if (s->b[i].peak > s->b[i].limit) {
            add_reason(s, "budget %s: peak %" PRIu64 " above its limit %" PRIu64, s->b[i].name, s->b[i].peak,
                       s->b[i].limit);
        }
        if (s->b[i].refused > 0) {
            add_reason(s, "budget %s: %" PRIu64 " reservations refused", s->b[i].name, s->b[i].refused);
        }
    }
    if (s->over_budget) {
        add_reason(s, "%u frames with a budget above its limit (first: frame %u)", s->over_budget,
                   s->first_over_budget);
    }
    if (s->over_upload) {
        add_reason(s, "%u frames applied more than the upload cap of %" PRIu64 " bytes (first: frame %u)",
                   s->over_upload, r->prof.upload_cap, s->first_over_upload);
    }
    if (s->over_time) {
        add_reason(s, "%u of %u frames over --frame-budget-us %" PRIu64 " (first: frame %u, max %.1f us)", s->over_time,
                   r->frame_count, r->o.frame_budget_ns / 1000u, s->first_over_time, (double)s->max / 1e3);
    }
    run_describe_failures(&s->st, s->failed, sizeof s->failed);
    if (s->st.failures > 0 && !r->o.allow_load_failures) {
        add_reason(s, "%" PRIu64 " chunk loads failed (%s)", s->st.failures, s->failed);
    }
    return CLI_OK;
}

/* Opens the output files, the profile (with --workers applied), the pack
 * file, the memory block the profile describes and the pack in it.
 * CLI_OK, or the status of the first step that failed (printed). */
static int run_open_pack(run *r)
{
    const run_paths paths = {r->o.svg, r->o.chrome, r->o.evict_log, r->o.save_trace,
                             r->o.pack_path, r->o.profile_path, r->o.trace_path};
    int rc = run_files_open(&r->files, &paths, ME);
    if (rc != CLI_OK) {
        return rc;
    }
    rc = cli_load_profile(r->o.profile_path, &r->prof);
    if (rc != CLI_OK) {
        return rc;
    }
    if (r->o.workers >= 0) {
        r->prof.workers = (uint32_t)r->o.workers;
    }
    r->pack_name = strrchr(r->o.pack_path, '/') ? strrchr(r->o.pack_path, '/') + 1 : r->o.pack_path;
    /* pread by default; a mapped pack cut short is a failed load too (the
     * platform's guard turns its SIGBUS into SLC_E_IO, sluice/platform.h). */
    unsigned file_flags = r->o.mmap ? SLC_PLATFORM_FILE_DEFAULT : SLC_PLATFORM_FILE_PREAD;
    if (slc_platform_file_open(r->o.pack_path, file_flags, &cli_stderr_logger, &r->file) != SLC_OK) {
        return CLI_IO;
    }
    r->file_open = 1;
    slc_memory_requirements req;
    if (slc_memory_calculate_requirements(&r->prof, &req) != SLC_OK) {
        fprintf(stderr, ME ": %s: the profile needs more memory than this machine can address\n", r->o.profile_path);
        return CLI_FAILED;
    }
    char why[512]; /* before mapping: memory this machine cannot give is refused, not populated */
    if (cli_check_machine_memory(&r->prof, req.block_size, 0, 0, why, sizeof why) != 0) {
        fprintf(stderr, ME ": %s\n", why);
        return CLI_FAILED;
    }
    if (slc_platform_block_map(req.block_size, SLC_PLATFORM_BLOCK_DEFAULT, &cli_stderr_logger, &r->block) != SLC_OK ||
        slc_memory_init(r->block.base, r->block.size, &r->prof, &cli_stderr_logger, &r->mem) != SLC_OK) {
        return CLI_FAILED;
    }
    slc_arena *meta = NULL;
    if (slc_memory_scan_arena(r->mem, "cpu/meta", &meta) != SLC_OK) {
        fprintf(stderr, ME ": profile '%s' has no cpu/meta arena for the pack's tables\n", r->prof.name);
        return CLI_FAILED;
    }
    if (slc_pack_open(&r->file.io, r->pack_name, &r->prof, meta, &cli_stderr_logger, &r->pack) != SLC_OK) {
        fprintf(stderr, ME ": pack '%s' cannot be used with profile '%s' (see above)\n", r->pack_name, r->prof.name);
        return CLI_FAILED;
    }
    return CLI_OK;
}

/* Opens the workload (the trace or the camera, sized by the profile's
 * queue), saves it for --save-trace and starts the eviction log. */
static int run_open_workload(run *r)
{
    int rc;
    camera_desc cam = r->o.cam;
    cam.max_requests = r->prof.queue_capacity;
    cam.max_chunks = r->prof.queue_capacity;
    if ((rc = workload_open(&r->wl, ME, r->o.trace_path, &cam, r->pack, r->pack_name)) != CLI_OK) {
        return rc;
    }
    if (r->o.save_trace != NULL && (rc = workload_save(&r->wl, r->files.save.f, r->o.save_trace)) != CLI_OK) {
        return rc;
    }
    if (r->o.evict_log != NULL) {
        r->evlog = r->files.evict.f;
        run_evict_log_begin(r->evlog);
    }
    return CLI_OK;
}

/* Opens the page store, creates the stream on it, starts the workers (and
 * their span rings for --chrome-trace) and enters the "stream" phase,
 * noting the reservations made until then. */
static int run_start_stream(run *r)
{
    int rc;
    if ((rc = open_store(r)) != CLI_OK) {
        return rc;
    }
    r->qlog.shown = r->qlog.dropped = 0;
    r->stream_log = (slc_logger){quiet_log_fn, &r->qlog};
    slc_stream_desc d;
    memset(&d, 0, sizeof d);
    d.profile = &r->prof;
    d.memory = r->mem;
    d.pack = r->pack;
    d.store = r->store;
    d.now_ns = slc_platform_now_ns;
    d.load_frames = SLC_STREAM_DEFAULT_LOAD_FRAMES;
    d.telemetry_frames = 4;
    d.log = &r->stream_log;
    if (r->prof.workers > 0) {
        slc_platform_workers_executor(&r->workers, &d.executor);
    }
    slc_status st = slc_stream_create(&d, &r->s);
    if (st != SLC_OK) {
        fprintf(stderr, ME ": the stream cannot start with pack '%s' and profile '%s' (%s)\n", r->pack_name,
                r->prof.name, slc_status_name(st));
        return CLI_FAILED;
    }
    r->wctx.s = r->s;
    r->wctx.origin = slc_platform_now_ns();
    r->wctx.workers = r->prof.workers;
    if (r->o.chrome != NULL) {
        for (uint32_t w = 0; w < r->prof.workers; w++) {
            r->wctx.spans[w] = malloc(sizeof(load_span) * SPAN_RING);
            if (r->wctx.spans[w] == NULL) {
                fprintf(stderr, ME ": out of memory for the chrome trace\n");
                return CLI_FAILED;
            }
        }
        run_chrome_begin(&r->chrome, r->files.chrome.f, r->prof.workers);
    }
    if (r->prof.workers > 0) {
        if (slc_platform_workers_start(&r->workers, r->prof.workers, work_fn, &r->wctx, &cli_stderr_logger) != SLC_OK) {
            return CLI_FAILED;
        }
    }
    (void)slc_budgets_begin_phase(slc_memory_budgets(r->mem), "stream");
    r->reservations_at_start = runtime_reservations(r);
    return CLI_OK;
}

/* Joins the workers, so that their last load spans reach the Chrome trace,
 * and says how many of the stream's messages were not shown. */
static void run_stop_workers(run *r)
{
    slc_platform_workers_stop(&r->workers); /* the spans are complete once the threads are joined */
    if (r->o.chrome != NULL) {
        drain_spans(r);
    }
    if (r->qlog.dropped) {
        fprintf(stderr, ME ": %u more messages from the stream not shown\n", r->qlog.dropped);
    }
}

/* Writes the report (text or --json) to stdout and the SVG and Chrome trace
 * to their files, which run_files_commit then puts in place. */
static void run_report(run *r, const run_summary *s)
{
    const run_report_in in = {r->pack_name, r->pack, &r->prof, r->mem, r->backend, r->backend_detail,
                              r->store_init_ms, r->wl.describe, r->wl.given, r->frame_count, r->wall_ns,
                              r->o.frame_budget_ns, r->o.allow_load_failures};
    if (r->o.json) {
        run_report_json(&in, s);
    } else {
        run_report_text(&in, s);
    }
    if (r->ev_lost) {
        fprintf(stderr, ME ": %s: %" PRIu64 " entries lost (the pool's log ring overran)\n", r->o.evict_log, r->ev_lost);
    }
    if (r->o.svg != NULL) {
        run_svg_info info = {r->pack_name, r->prof.name, r->backend, s->nreasons == 0, s->b, s->nb,
                             r->prof.page_count, r->prof.upload_cap, r->o.frame_budget_ns};
        (void)run_timeline_write_svg(r->files.svg.f, &r->timeline, &info); /* a write error fails the commit */
    }
    if (r->o.chrome != NULL) {
        size_t dropped = 0;
        for (uint32_t w = 0; w < r->wctx.workers; w++) {
            dropped += r->wctx.dropped[w];
        }
        (void)run_chrome_end(&r->chrome, dropped);
        if (r->chrome.frames_left_out > 0) {
            fprintf(stderr, ME ": %s: the first %u frames recorded, %" PRIu64 " later ones left out\n", r->o.chrome,
                    RUN_CHROME_FRAMES_MAX, r->chrome.frames_left_out);
        }
    }
}

/* Open, stream the frames, report, commit the output files. CLI_OK,
 * RUN_VERDICT_FAILED when the report gives reasons, or the status of the
 * step that failed; run_close releases what was opened either way. */
static int run_main(run *r)
{
    int rc;
    if ((rc = run_open_pack(r)) != CLI_OK || (rc = run_open_workload(r)) != CLI_OK ||
        (rc = run_start_stream(r)) != CLI_OK || (rc = run_frames(r)) != CLI_OK) {
        return rc;
    }
    run_stop_workers(r);
    run_summary *s = malloc(sizeof *s);
    if (s == NULL || summarise(r, s) != CLI_OK) {
        free(s);
        fprintf(stderr, ME ": out of memory for the report\n");
        return CLI_FAILED;
    }
    run_report(r, s);
    r->evlog = NULL;
    rc = run_files_commit(&r->files, ME);
    int failed = s->nreasons > 0;
    free(s);
    if (rc != CLI_OK) {
        return rc;
    }
    return failed ? RUN_VERDICT_FAILED : CLI_OK;
}

int cmd_run(int argc, char **argv)
{
    static run r; /* large (the workers' storage): not on the stack; one run a process */
    memset(&r, 0, sizeof r);
    int rc = parse_args(argc, argv, &r.o);
    if (rc != CLI_OK) {
        return rc == CLI_ARGS_HELP ? CLI_OK : rc;
    }
    rc = run_main(&r);
    run_close(&r);
    return rc;
}
