/* SPDX-License-Identifier: MIT */
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
 * (from the budget manager, over the whole run); no reservation refused; no
 * request refused (queue_capacity, or an invalid id: budget fit's "does not
 * hold" for the same workload); in
 * every frame's telemetry, every budget within its limit and the decoded
 * bytes of the loads the frame applied within the profile's upload cap; with
 * --frame-budget-us, the caller's time in the frame (the telemetry's
 * caller_ns) within it; no chunk load failed (checksum, short read, decode,
 * content), unless --allow-load-failures; with --validate, no message from
 * the Vulkan validation layer.
 *
 * The run itself is a context (run.h: run_open, run_frame, run_finish,
 * run_close) that `sluice render` steps too, adding its work in hooks. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "run.h"
#include "sluice/render_profile.h"
#ifdef SLUICE_HAVE_VULKAN
#include "sluice/vulkan.h"
#endif

#define ME "sluice run"
/* The texture pool backend's driver heap: the device is the geometry
 * backend's, so the driver holds only a few buffers, memories and fences
 * for it. */
#define TEXTURE_DRIVER_HEAP (1u << 20)

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
    "The verdict checks every budget's peak against its limit, that no reservation and no\n"
    "request was refused, that no chunk load failed, and in each frame the budgets, the decoded bytes\n"
    "of the loads applied against the upload cap, and (--frame-budget-us) the caller's time.\n"
    "Files are written through a temporary renamed over the target when the run completes:\n"
    "a failed run leaves an existing file as it was. An output may not name an input.\n"
    "\n"
    "exit codes: 0 the verdict holds; 1 input judged bad (profile, pack, trace) or the run\n"
    "failed; 2 bad command line; 3 a file not readable or writable; 4 the verdict failed\n"
    "(each reason printed)\n";

static bool work_fn(void *ctx, uint32_t worker)
{
    run_work *w = ctx;
    uint64_t t0 = slc_platform_now_ns();
    bool ran = slc_stream_work(w->s, worker);
    if (ran && w->spans[worker] != NULL) {
        size_t head = atomic_load_explicit(&w->head[worker], memory_order_relaxed);
        size_t tail = atomic_load_explicit(&w->tail[worker], memory_order_acquire);
        if (head - tail < RUN_SPAN_RING) {
            w->spans[worker][head & (RUN_SPAN_RING - 1u)] = (run_load_span){t0 - w->origin,
                                                                            slc_platform_now_ns() - w->origin};
            atomic_store_explicit(&w->head[worker], head + 1u, memory_order_release);
        } else {
            w->dropped[worker]++;
        }
    }
    return ran;
}

static void quiet_log_fn(void *user, slc_log_level level, slc_status status, const char *message)
{
    run_quiet_log *q = user;
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

size_t run_args_table(run_args *a, cli_opt *table, size_t cap)
{
    static const char *const backends[] = {"auto", "vulkan", "host", NULL};
    memset(a, 0, sizeof *a);
    run_opts *o = &a->o;
    o->profile_path = cli_default_profile();
    a->path = CAMERA_FLY;
    a->frames = 240;
    a->sse = 1.0;
    o->cam.seed = 1;
    const cli_opt t[] = {
        {.name = "--profile",
         .kind = CLI_OPT_STRING,
         .dest = &o->profile_path,
         .arg = "FILE",
         .help = "budget profile (default: " CLI_DEFAULT_PROFILE_HELP ")"},
        {.name = "--trace",
         .kind = CLI_OPT_STRING,
         .dest = &o->trace_path,
         .arg = "FILE",
         .help = "replay a trace (docs/trace-format.md); otherwise the camera runs"},
        {.name = "--camera",
         .kind = CLI_OPT_ENUM,
         .dest = &a->path,
         .choices = camera_path_names,
         .bad = "{opt} '{value}': expected fly, orbit, teleport or closeup",
         .arg = "PATH",
         .help = "built-in camera: fly (default), orbit, teleport or closeup"},
        {.name = "--frames",
         .kind = CLI_OPT_U64,
         .dest = &a->frames,
         .min = 1,
         .max = TRACE_FRAMES_MAX,
         .bad = "{opt} '{value}': expected a count in 1..{max}",
         .seen = &o->frames_set,
         .arg = "N",
         .help = "frames the camera runs (default 240)"},
        {.name = "--seed",
         .kind = CLI_OPT_U64,
         .dest = &o->cam.seed,
         .max = UINT64_MAX,
         .bad = "{opt} '{value}': expected a number",
         .arg = "N",
         .help = "the camera's seed (default 1)"},
        {.name = "--sse",
         .kind = CLI_OPT_DOUBLE,
         .dest = &a->sse,
         .dmin = 0.0,
         .open_min = 1,
         .dmax = 1e6,
         .bad = "{opt} '{value}': expected pixels above 0",
         .arg = "PX",
         .help = "the camera's screen-space error threshold in pixels (default 1)"},
        {.name = "--view-height",
         .kind = CLI_OPT_U64,
         .dest = &a->view_height,
         .min = 1,
         .max = 65536,
         .bad = "{opt} '{value}': expected pixels in 1..{max}",
         .seen = &a->view_height_set,
         .arg = "PX",
         .help = "the frame height the camera's screen-space error and texel\n"
                 "density are measured in (default 1080; sluice render: its frame's)"},
        {.name = "--save-trace",
         .kind = CLI_OPT_STRING,
         .dest = &o->save_trace,
         .arg = "FILE",
         .help = "write the workload (the camera's too) as a trace, as it runs"},
        {.name = "--backend",
         .kind = CLI_OPT_ENUM,
         .dest = &a->backend,
         .choices = backends,
         .bad = "{opt} '{value}': expected auto, vulkan or host",
         .arg = "B",
         .help = "auto (default: Vulkan on the default device, the host backend\n"
                 "with a notice when there is none), vulkan or host"},
        {.name = "--workers",
         .kind = CLI_OPT_U64,
         .dest = &a->workers,
         .max = SLC_PLATFORM_WORKERS_MAX,
         .bad = "{opt} '{value}': expected a count in 0..{max}",
         .seen = &a->workers_set,
         .arg = "N",
         .help = "override the profile's worker threads (0: loads run inline)"},
        {.name = "--mmap",
         .kind = CLI_OPT_FLAG,
         .dest = &o->mmap,
         .help = "map the pack instead of reading it with pread (a pack cut short\n"
                 "while it runs fails the loads of the bytes gone: SLC_E_IO)"},
        {.name = "--frame-budget-us",
         .kind = CLI_OPT_U64,
         .dest = &a->budget_us,
         .min = 1,
         .max = UINT64_MAX / 1000u,
         .bad = "{opt} '{value}': expected microseconds above 0",
         .arg = "N",
         .help = "a frame whose caller time exceeds N microseconds misses its limit"},
        {.name = "--allow-load-failures",
         .kind = CLI_OPT_FLAG,
         .dest = &o->allow_load_failures,
         .help = "a failed chunk load (checksum, short read, decode) does not fail\n"
                 "the verdict: the run degrades and continues, and the report says so"},
        {.name = "--validate",
         .kind = CLI_OPT_FLAG,
         .dest = &o->validate,
         .help = "Vulkan: enable the Khronos validation layer; each message it\n"
                 "sends is printed and fails the verdict"},
        {.name = "--json",
         .kind = CLI_OPT_FLAG,
         .dest = &o->json,
         .help = "the report as JSON on stdout instead of the table"},
        {.name = "--svg",
         .kind = CLI_OPT_STRING,
         .dest = &o->svg,
         .arg = "FILE",
         .help = "a timeline: budgets against their limits, pool pages, upload\n"
                 "bytes and misses per frame"},
        {.name = "--chrome-trace",
         .kind = CLI_OPT_STRING,
         .dest = &o->chrome,
         .arg = "FILE",
         .help = "Chrome trace-event JSON (Perfetto, chrome://tracing): frames on\n"
                 "the caller's thread, loads on each worker (the first 100000 frames)"},
        {.name = "--evict-log",
         .kind = CLI_OPT_STRING,
         .dest = &o->evict_log,
         .arg = "FILE",
         .help = "the pool's eviction log, one entry a line"},
    };
    _Static_assert(sizeof t / sizeof t[0] <= RUN_ARGS_MAX, "RUN_ARGS_MAX holds run's options");
    size_t n = sizeof t / sizeof t[0];
    n = n < cap ? n : cap;
    memcpy(table, t, n * sizeof t[0]);
    return n;
}

int run_args_finish(run_args *a, const char *me, const char *usage)
{
    static const char *const backends[] = {"auto", "vulkan", "host"};
    run_opts *o = &a->o;
    o->backend = backends[a->backend];
    o->cam.path = (camera_path)a->path;
    o->cam.frames = (uint32_t)a->frames;
    o->cam.sse_px = (float)a->sse;
    o->cam.height_px = a->view_height_set ? (uint32_t)a->view_height : 0u;
    o->workers = a->workers_set ? (int64_t)a->workers : -1;
    o->frame_budget_ns = a->budget_us * 1000u;
    if (o->pack_path == NULL) {
        return cli_usage_error(me, usage, "no PACK given");
    }
    if (o->trace_path != NULL && o->frames_set) {
        return cli_usage_error(me, usage, "--frames is for the camera; a trace declares its own frames");
    }
    return CLI_OK;
}

/* Returns CLI_OK, CLI_USAGE (printed), or CLI_ARGS_HELP after the help. */
static int parse_args(int argc, char **argv, run_args *a)
{
    cli_opt table[RUN_ARGS_MAX];
    size_t n = run_args_table(a, table, RUN_ARGS_MAX);
    size_t operands = 0;
    const cli_args spec = {.me = ME,
                           .opts = table,
                           .count = n,
                           .operands = &a->o.pack_path,
                           .max_operands = 1,
                           .operand_count = &operands,
                           .missing = "{opt} needs a value",
                           .unknown = "unexpected argument '{value}'",
                           .usage = RUN_USAGE,
                           .usage_after = CLI_ARGS_ALL,
                           .help = 1,
                           .help_column = 24};
    int rc = cli_args_parse(&spec, argc, argv);
    if (rc == CLI_ARGS_HELP) {
        fputs(usage_head, stdout);
        cli_args_print_options(stdout, &spec);
        fputs(usage_tail, stdout);
    }
    if (rc != CLI_OK) {
        return rc;
    }
    return run_args_finish(a, ME, RUN_USAGE);
}

/* --- the run's state ----------------------------------------------------------------- */

void run_close(run *r)
{
    free(r->summary);
    r->summary = NULL;
    slc_platform_workers_stop(&r->workers);
    tool_session_close(&r->ses); /* the stream, the store (close_store), the pack, the memory */
    r->s = NULL;
    r->pack = NULL;
    r->mem = NULL;
    for (uint32_t i = 0; i < SLC_PLATFORM_WORKERS_MAX; i++) {
        free(r->wctx.spans[i]);
        r->wctx.spans[i] = NULL;
    }
    workload_close(&r->wl);
    run_files_abort(&r->files); /* a run that failed: its files are incomplete, the old ones stay */
    r->evlog = NULL;
}

/* The session's close of the store open_store opened, in any state. */
static void close_store(void *ctx)
{
    run *r = ctx;
#ifdef SLUICE_HAVE_VULKAN
    if (r->tex_vk != NULL) { /* on r->vk's device: first */
        slc_vulkan_deinit(r->tex_vk);
        r->tex_vk = NULL;
    }
    free(r->tex_vk_mem);
    r->tex_vk_mem = NULL;
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
}

/* The host store of the geometry pool. */
static int open_host_store(run *r)
{
    int rc = tool_session_open_host_store(&r->ses, &r->prof, SLC_POOL_GEOMETRY, &r->page_block, &r->host_store, r->me);
    if (rc != CLI_OK) {
        return rc;
    }
    r->store = &r->host_store;
    r->backend = "host";
    snprintf(r->backend_detail, sizeof r->backend_detail, "host (pages in host memory, no GPU)");
    return CLI_OK;
}

#ifdef SLUICE_HAVE_VULKAN
static VkBool32 VKAPI_PTR on_validation(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                        VkDebugUtilsMessageTypeFlagsEXT types,
                                        const VkDebugUtilsMessengerCallbackDataEXT *data, void *user)
{
    (void)severity;
    if ((types & (VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT)) ==
        0) {
        return VK_FALSE;
    }
    run_validation *v = user;
    v->messages++;
    fprintf(stderr, "%s: Vulkan validation: %s\n", v->me, data != NULL && data->pMessage ? data->pMessage : "?");
    return VK_FALSE;
}

void run_validation_enable(slc_vulkan_desc *desc, run_validation *v)
{
    static const char *const validation[] = {"VK_LAYER_KHRONOS_validation"};
    desc->layers = validation;
    desc->layer_count = 1;
    desc->debug_callback = on_validation;
    desc->debug_user = v;
}

/* The memory a backend built from d needs (*size bytes, aligned), or NULL
 * with the reason printed: the profile cannot be such a pool (what: "page"
 * or "texture"), or the host is out of memory. */
static void *vulkan_memory(const run *r, const slc_vulkan_desc *d, const char *what, size_t *size)
{
    *size = slc_vulkan_footprint(d);
    if (*size == 0) {
        fprintf(stderr, "%s: profile '%s' cannot be a Vulkan %s pool (page size or count out of range)\n", r->me,
                r->prof.name, what);
        return NULL;
    }
    void *mem = aligned_alloc(SLC_VULKAN_ALIGN, (*size + SLC_VULKAN_ALIGN - 1u) & ~(size_t)(SLC_VULKAN_ALIGN - 1u));
    if (mem == NULL) {
        fprintf(stderr, "%s: out of memory\n", r->me);
    }
    return mem;
}

/* The Vulkan store on the default device. Returns CLI_OK, CLI_FAILED, or -1
 * when there is no Vulkan device (the caller may fall back). */
static int open_vulkan_store(run *r, keep_log *why)
{
    slc_vulkan_desc d;
    memset(&d, 0, sizeof d);
    slc_pool_spec spec;
    slc_pool_spec_from_profile(&r->prof, SLC_POOL_GEOMETRY, &spec);
    slc_vulkan_desc_from_spec(&d, &spec, &r->prof);
    d.budgets = slc_memory_budgets(r->mem);
    d.log = (slc_logger){keep_log_fn, why};
    if (r->o.validate) {
        r->validation.me = r->me;
        run_validation_enable(&d, &r->validation);
    }
    size_t size = 0;
    if ((r->vk_mem = vulkan_memory(r, &d, "page", &size)) == NULL) {
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
        fprintf(stderr, "%s: Vulkan: %s (%s)\n", r->me, why->message, slc_status_name(st));
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

/* The texture pool as atlas images in the pack's texel format, on the
 * page pool's device (where the renderer samples them), written through
 * the belt [textures] staging_size declares, charged to gpu/staging.
 * CLI_OK; CLI_FAILED (printed); or 1 when there is no such belt, or the
 * device cannot hold them (the format is not sampled, a budget or the
 * heap has no room; a notice says why): the caller keeps the tiles in host
 * memory. */
static int open_vulkan_texture_store(run *r, uint32_t texel)
{
    slc_pool_spec spec;
    slc_pool_spec_from_profile(&r->prof, SLC_POOL_TEXTURES, &spec);
    if (spec.staging_size == 0) {
        return 1; /* no [textures] staging_size: no belt to write atlas images through */
    }
    slc_vulkan_desc d;
    memset(&d, 0, sizeof d);
    slc_vulkan_desc_from_spec(&d, &spec, &r->prof);
    d.driver_heap_size = TEXTURE_DRIVER_HEAP; /* a few buffers, memories and fences: not the device's */
    d.budgets = slc_memory_budgets(r->mem);
    d.image_texel = texel;
    keep_log why;
    memset(&why, 0, sizeof why);
    d.log = (slc_logger){keep_log_fn, &why};
    slc_vulkan_device_info dev;
    slc_vulkan_get_device_info(r->vk, &dev);
    size_t size = 0;
    if ((r->tex_vk_mem = vulkan_memory(r, &d, "texture", &size)) == NULL) {
        return CLI_FAILED;
    }
    slc_status st = slc_vulkan_adopt(r->tex_vk_mem, size, &d, &dev, &r->tex_vk);
    if (st != SLC_OK) {
        r->tex_vk = NULL;
        free(r->tex_vk_mem);
        r->tex_vk_mem = NULL;
        if (st == SLC_E_UNSUPPORTED || st == SLC_E_BUDGET_REFUSED || st == SLC_E_DEVICE_MEMORY) {
            fprintf(stderr,
                    "%s: notice: the texture pool stays in host memory (textured surfaces show their "
                    "materials' factors): %s\n",
                    r->me, why.message[0] ? why.message : slc_status_name(st));
            return 1;
        }
        fprintf(stderr, "%s: Vulkan: the texture pool: %s: %s\n", r->me, slc_status_name(st), why.message);
        return CLI_FAILED;
    }
    r->ses.tex_device = slc_vulkan_get_store(r->tex_vk);
    slc_vulkan_info ti;
    slc_vulkan_get_info(r->tex_vk, &ti);
    size_t used = strlen(r->backend_detail);
    if (used + 1u < sizeof r->backend_detail) {
        snprintf(r->backend_detail + used, sizeof r->backend_detail - used,
                 "; texture tiles in %u atlas image%s of %s (%ux%u texels a page, %u a layer) through a %u-slot belt",
                 ti.segment_count, ti.segment_count == 1 ? "" : "s", slc_pack_texel_format_name(ti.image_texel),
                 ti.page_width, ti.page_height, ti.pages_per_layer, ti.belt_slots);
    }
    return CLI_OK;
}
#endif

static int open_store(run *r)
{
    uint64_t t0 = slc_platform_now_ns();
    int rc;
    if (slc_profile_scan_host_only(&r->prof)) { /* not --backend vulkan: run_open_pack refused that */
        if (strcmp(r->o.backend, "host") != 0) {
            fprintf(stderr, "%s: notice: profile '%s' is host-only (no gpu budget); running on the host backend\n",
                    r->me, r->prof.name);
        }
        rc = open_host_store(r);
    } else if (strcmp(r->o.backend, "host") == 0) {
        rc = open_host_store(r);
    } else {
#ifdef SLUICE_HAVE_VULKAN
        keep_log why;
        memset(&why, 0, sizeof why);
        rc = open_vulkan_store(r, &why);
        if (rc < 0) {
            if (strcmp(r->o.backend, "vulkan") == 0) {
                fprintf(stderr, "%s: no Vulkan device: %s\n", r->me,
                        why.message[0] ? why.message : "slc_vulkan_init failed");
                rc = CLI_FAILED;
            } else {
                fprintf(stderr, "%s: notice: no Vulkan device (%s); running on the host backend\n", r->me,
                        why.message[0] ? why.message : "slc_vulkan_init failed");
                rc = open_host_store(r);
            }
        }
#else
        if (strcmp(r->o.backend, "vulkan") == 0) {
            fprintf(stderr, "%s: this build has no Vulkan backend (SLUICE_VULKAN=OFF)\n", r->me);
            return CLI_FAILED;
        }
        fprintf(stderr, "%s: notice: this build has no Vulkan backend; running on the host backend\n", r->me);
        rc = open_host_store(r);
#endif
    }
    /* The texture pool's tiles, charged to gpu/textures: on the Vulkan
     * backend in atlas images on the page pool's device, where the
     * renderer samples them (open_vulkan_texture_store); on the host
     * backend, or where the device cannot hold them, in host memory, the
     * device the geometry store speaks for being the one that must sample
     * them. */
    if (rc == CLI_OK) {
#ifdef SLUICE_HAVE_VULKAN
        slc_pack_texture first;
        rc = 1;
        if (r->vk != NULL && slc_pool_kind_declared(&r->prof, SLC_POOL_TEXTURES) &&
            slc_pack_texture_count(r->pack) > 0 && slc_pack_read_texture(r->pack, 0, &first) == SLC_OK) {
            rc = open_vulkan_texture_store(r, first.format);
        }
        if (rc == 1)
#endif
        {
            rc = tool_session_open_texture_store(&r->ses, &r->prof, r->store, r->me);
        }
    }
    r->store_init_ms = (double)(slc_platform_now_ns() - t0) / 1e6;
    tool_session_set_store(&r->ses, rc == CLI_OK ? r->store : NULL, close_store, r);
    return rc;
}

/* The partition of q's trace partition index in the pool of kind (a
 * texture tile's is the texture pool's: [texture_partitions]), looked up
 * when first asked for; CLI_FAILED (printed) when the profile lacks it. */
static int resolve_partition(run *r, const trace_req *q, slc_pool_kind kind, slc_partition *out)
{
    uint8_t p = q->partition;
    if (!r->part_known[kind][p]) {
        const char *name = workload_partition(&r->wl, p);
        if (slc_pool_scan_partition(slc_stream_pool_of_kind(r->s, kind), name, &r->parts[kind][p]) != SLC_OK) {
            fprintf(stderr, "%s:%u: partition '%s' is not in profile '%s'%s\n", r->o.trace_path, q->line, name,
                    r->prof.name, kind == SLC_POOL_TEXTURES ? " ([texture_partitions])" : "");
            return CLI_FAILED;
        }
        r->part_known[kind][p] = 1;
    }
    *out = r->parts[kind][p];
    return CLI_OK;
}

static void walk_evictions(run *r)
{
    if (r->evlog != NULL) {
        run_evict_log_walk(r->evlog, slc_stream_pool(r->s), "", &r->ev_next, &r->ev_lost);
        const slc_pool *tp = slc_stream_pool_of_kind(r->s, SLC_POOL_TEXTURES);
        if (tp != NULL) {
            run_evict_log_walk(r->evlog, tp, "t ", &r->tev_next, &r->tev_lost);
        }
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
            const run_load_span *sp = &r->wctx.spans[w][tail & (RUN_SPAN_RING - 1u)];
            run_chrome_load(&r->chrome, w, sp->t0, sp->t1);
        }
        atomic_store_explicit(&r->wctx.tail[w], tail, memory_order_release);
    }
}

/* Folds frame f's figures into the run's aggregates and outputs. */
static void add_frame(run *r, uint32_t f, const run_frame_rec *fr)
{
    run_summary *a = &r->agg;
    run_hist_add(&r->caller, fr->t.caller_ns);
    a->wait_max = fr->t.wait_ns > a->wait_max ? fr->t.wait_ns : a->wait_max;
    a->objects += fr->objects;
    a->exact += fr->exact;
    a->coarser += fr->coarser;
    a->none += fr->none;
    a->tiles += fr->tiles;
    a->tiles_resident += fr->tiles_resident;
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
    const int textures = slc_stream_pool_of_kind(r->s, SLC_POOL_TEXTURES) != NULL;
    const uint32_t tile_misses = fr->tiles - fr->tiles_resident;
    if (textures) {
        run_timeline_set_textures(&r->timeline, f, fr->tex_used, tile_misses);
    }
    if (r->o.chrome != NULL) {
        run_chrome_frame(&r->chrome, f, fr->start_ns, fr->end_ns, &fr->t, fr->pool_used, fr->caller_loads);
        if (textures) {
            run_chrome_textures(&r->chrome, fr->end_ns, fr->tex_used, tile_misses);
        }
        drain_spans(r);
    }
}

/* Every budget's limit, in the telemetry's order, and the timeline, before
 * the first frame. */
static void run_start_frames(run *r)
{
    slc_budget_stats lim[SLC_BUDGET_MAX];
    r->nlimit = slc_budgets_walk_report(slc_memory_budgets(r->mem), lim, SLC_BUDGET_MAX);
    r->nlimit = r->nlimit > SLC_BUDGET_MAX ? SLC_BUDGET_MAX : r->nlimit;
    for (size_t i = 0; i < r->nlimit; i++) {
        r->limit[i] = lim[i].limit;
    }
    run_timeline_init(&r->timeline);
    r->t_start = slc_platform_now_ns();
}

int run_has_frame(const run *r, uint32_t f)
{
    return workload_has_frame(&r->wl, f);
}

int run_frame(run *r, uint32_t f)
{
    const uint64_t origin = r->wctx.origin;
    const slc_partition def = {0};
    {
        run_frame_rec rec, *fr = &rec;
        memset(fr, 0, sizeof *fr);
        fr->start_ns = slc_platform_now_ns() - origin;
        uint64_t caller_before = 0;
        if (r->o.chrome != NULL) {
            slc_stream_stats ss;
            slc_stream_get_stats(r->s, &ss);
            caller_before = ss.caller_loads;
        }
        slc_status st;
        while ((st = slc_stream_begin_frame(r->s, &r->frame)) == SLC_E_FRAMES_IN_FLIGHT) {
            fr->stalls++;
#ifdef SLUICE_HAVE_VULKAN
            if (r->vk != NULL) {
                slc_pool_stats ps;
                slc_pool_get_stats(slc_stream_pool(r->s), &ps);
                uint64_t want = ps.submitted + 1u > r->prof.frames_in_flight
                                    ? ps.submitted + 1u - r->prof.frames_in_flight
                                    : 1u;
                st = slc_vulkan_wait_frame(r->vk, want, 10ull * 1000000000ull);
                if (st == SLC_OK && r->tex_vk != NULL) {
                    st = slc_vulkan_wait_frame(r->tex_vk, want, 10ull * 1000000000ull);
                }
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
            fprintf(stderr, "%s: frame %u: begin_frame failed (%s)\n", r->me, f, slc_status_name(st));
            return CLI_FAILED;
        }
        walk_evictions(r);
        trace_req q;
        int k;
        while ((k = workload_next(&r->wl, f, &q)) == 1) {
            /* A texture tile goes to the texture pool, its partition one of [texture_partitions]. */
            const slc_pool_kind kind = workload_req_pool(r->pack, &q);
            const int tile = kind == SLC_POOL_TEXTURES;
            slc_partition part = def;
            if (q.partition != TRACE_PARTITION_DEFAULT && resolve_partition(r, &q, kind, &part) != CLI_OK) {
                return CLI_FAILED;
            }
            if (q.kind == TRACE_OBJECT) {
                slc_stream_object_request req = {{q.id}, q.lod, q.priority, part};
                (void)slc_stream_request(r->s, &req); /* a refusal is counted in the telemetry */
            } else {
                if (slc_stream_request_chunk(r->s, (slc_chunk_id){q.id}, q.priority, part) == SLC_OK && tile) {
                    slc_stream_chunk_info ci;
                    slc_stream_get_chunk(r->s, (slc_chunk_id){q.id}, &ci);
                    fr->tiles++;
                    fr->tiles_resident += ci.state == SLC_STREAM_CHUNK_RESIDENT;
                }
            }
        }
        if (k < 0) {
            return r->wl.rc;
        }
        if ((st = slc_stream_end_frame(r->s)) != SLC_OK) {
            fprintf(stderr, "%s: frame %u: end_frame failed (%s)\n", r->me, f, slc_status_name(st));
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
        if (r->o.chrome != NULL) {
            slc_stream_stats ss;
            slc_stream_get_stats(r->s, &ss);
            fr->caller_loads = ss.caller_loads - caller_before;
        }
        if (r->hooks.frame != NULL) {
            int rc = r->hooks.frame(r->hooks.user, r, f, r->frame);
            if (rc != CLI_OK) {
                return rc;
            }
        }
        if (slc_stream_walk_telemetry(r->s, &fr->t, 1) != 1) {
            fprintf(stderr, "%s: frame %u: the stream kept no telemetry\n", r->me, f);
            return CLI_FAILED;
        }
        slc_pool_stats ps;
        slc_pool_get_stats(slc_stream_pool(r->s), &ps);
        fr->pool_used = ps.page_count - ps.free;
        const slc_pool *tp = slc_stream_pool_of_kind(r->s, SLC_POOL_TEXTURES);
        if (tp != NULL) {
            slc_pool_get_stats(tp, &ps);
            fr->tex_used = ps.page_count - ps.free;
        }
        add_frame(r, f, fr);
        r->frame_count = f + 1;
    }
    r->wall_ns = slc_platform_now_ns() - r->t_start;
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
    const slc_pool *tp = slc_stream_pool_of_kind(r->s, SLC_POOL_TEXTURES);
    /* The texture pool's figures, for a pack with textures (a profile's
     * pool stays empty under a pack without). */
    s->has_tps = tp != NULL && slc_pack_texture_count(r->pack) > 0;
    if (s->has_tps) {
        slc_pool_get_stats(tp, &s->tps);
        s->tail_bytes = 0;
        (void)tool_mark_texture_tails(r->pack, NULL, &s->tail_bytes);
        (void)tool_texture_memory_of(r->pack, &s->tmem); /* every record was read at create */
        s->page_size = r->prof.page_size;
        s->frame_w = r->sections.render.width ? r->sections.render.width : SLC_RENDER_DEFAULT_WIDTH;
        s->frame_h = r->sections.render.height ? r->sections.render.height : SLC_RENDER_DEFAULT_HEIGHT;
    }
    s->nb = slc_budgets_walk_report(slc_memory_budgets(r->mem), s->b, SLC_BUDGET_MAX);
    if (s->nb > SLC_BUDGET_MAX) {
        s->nb = SLC_BUDGET_MAX;
    }
    run_pool_holders(r->pack, slc_stream_pool(r->s), s->holders, &s->holders_named, &s->holders_count,
                     &s->holders_pages);
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
    if (s->st.refused > 0) {
        /* budget fit's "does not hold" for the same requests (one rule:
         * slc_stream_admit), so the two never disagree. */
        add_reason(
            s, "%" PRIu64 " of %" PRIu64 " requests refused (the profile's queue_capacity bounds a frame's requests)",
            s->st.refused, s->st.requests + s->st.refused);
    }
    run_describe_failures(r->pack, &s->st, s->failed, sizeof s->failed);
    if (s->st.failures > 0 && !r->o.allow_load_failures) {
        add_reason(s, "%" PRIu64 " chunk loads failed (%s)", s->st.failures, s->failed);
    }
    if (r->validation.messages > 0) {
        add_reason(s, "%" PRIu64 " messages from the Vulkan validation layer (printed above)", r->validation.messages);
    }
    return CLI_OK;
}

/* Opens the output files, the profile (with --workers applied), the pack
 * file, the memory block the profile describes and the pack in it.
 * CLI_OK, or the status of the first step that failed (printed). */
static int run_open_pack(run *r)
{
    const run_paths paths = {r->o.svg,       r->o.chrome,       r->o.evict_log, r->o.save_trace,
                             r->o.pack_path, r->o.profile_path, r->o.trace_path};
    int rc = run_files_open(&r->files, &paths, r->me);
    if (rc != CLI_OK) {
        return rc;
    }
    if (r->o.profile != NULL) {
        r->prof = *r->o.profile;
        if (r->o.sections != NULL) {
            r->sections = *r->o.sections;
        } else {
            memset(&r->sections, 0, sizeof r->sections);
        }
    } else if ((rc = cli_load_profile_sections(r->o.profile_path, &r->prof, &r->sections)) != CLI_OK) {
        return rc;
    }
    /* A host-only profile cannot give the Vulkan backend its memory: said
     * before the pack is read. */
    if (strcmp(r->o.backend, "vulkan") == 0 &&
        (rc = cli_refuse_host_only(r->me, r->o.profile_path, &r->prof, "the Vulkan backend")) != CLI_OK) {
        return rc;
    }
    if (r->o.workers >= 0) {
        r->prof.workers = (uint32_t)r->o.workers;
    }
    r->pack_name = strrchr(r->o.pack_path, '/') ? strrchr(r->o.pack_path, '/') + 1 : r->o.pack_path;
    /* pread by default; a mapped pack cut short is a failed load too (the
     * platform's guard turns its SIGBUS into SLC_E_IO, sluice/platform.h). */
    const tool_session_desc sd = {.me = r->me,
                                  .profile = &r->prof,
                                  .pack_path = r->o.pack_path,
                                  .file_flags = r->o.mmap ? SLC_PLATFORM_FILE_DEFAULT : SLC_PLATFORM_FILE_PREAD,
                                  .pack_name = r->pack_name,
                                  .check_machine = 1,
                                  .profile_path = r->o.profile_path};
    tool_session_step step = tool_session_open(&sd, &r->ses);
    r->mem = r->ses.mem;
    r->pack = r->ses.pack;
    if (step == TOOL_SESSION_PACK) {
        fprintf(stderr, "%s: pack '%s' cannot be used with profile '%s' (see above)\n", r->me, r->pack_name,
                r->prof.name);
    }
    return tool_session_exit_code(step); /* a refusal is printed or logged */
}

/* Opens the workload (the trace or the camera, sized by the profile's
 * queue), saves it for --save-trace and starts the eviction log. */
static int run_open_workload(run *r)
{
    int rc;
    camera_desc cam = r->o.cam;
    if (cam.height_px == 0 && r->o.view_from_frame) {
        cam.height_px = r->sections.render.height ? r->sections.render.height : SLC_RENDER_DEFAULT_HEIGHT;
    }
    cam.max_requests = r->prof.queue_capacity;
    cam.max_chunks = r->prof.queue_capacity;
    if ((rc = workload_open(&r->wl, r->me, r->o.trace_path, &cam, r->pack, r->pack_name)) != CLI_OK) {
        return rc;
    }
    if (r->o.save_trace != NULL && (rc = workload_save(&r->wl, r->files.save.f, r->o.save_trace)) != CLI_OK) {
        return rc;
    }
    if (r->o.evict_log != NULL) {
        r->evlog = r->files.evict.f;
        run_evict_log_begin(r->evlog, slc_pack_texture_count(r->pack) > 0);
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
    tool_session_stream_desc(&r->ses, &r->prof, r->store, &r->stream_log, &d);
    d.telemetry_frames = RUN_TELEMETRY_FRAMES;
    if (r->prof.workers > 0) {
        slc_platform_workers_executor(&r->workers, &d.executor);
    }
    slc_status st = tool_session_start_stream(&r->ses, &d);
    r->s = r->ses.stream;
    if (st != SLC_OK) {
        fprintf(stderr, "%s: the stream cannot start with pack '%s' and profile '%s' (%s)\n", r->me, r->pack_name,
                r->prof.name, slc_status_name(st));
        return CLI_FAILED;
    }
    r->wctx.s = r->s;
    r->wctx.origin = slc_platform_now_ns();
    r->wctx.workers = r->prof.workers;
    if (r->o.chrome != NULL) {
        for (uint32_t w = 0; w < r->prof.workers; w++) {
            r->wctx.spans[w] = malloc(sizeof(run_load_span) * RUN_SPAN_RING);
            if (r->wctx.spans[w] == NULL) {
                fprintf(stderr, "%s: out of memory for the chrome trace\n", r->me);
                return CLI_FAILED;
            }
        }
        size_t nb = slc_budgets_walk_report(slc_memory_budgets(r->mem), r->chrome_budgets, SLC_BUDGET_MAX);
        run_chrome_begin(&r->chrome, r->files.chrome.f, r->prof.workers, r->chrome_budgets,
                         nb < SLC_BUDGET_MAX ? nb : SLC_BUDGET_MAX);
    }
    if (r->prof.workers > 0) {
        if (slc_platform_workers_start(&r->workers, r->prof.workers, work_fn, &r->wctx, &cli_stderr_logger) != SLC_OK) {
            return CLI_FAILED;
        }
    }
    if (r->hooks.start != NULL && (rc = r->hooks.start(r->hooks.user, r)) != CLI_OK) {
        return rc;
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
        fprintf(stderr, "%s: %u more messages from the stream not shown\n", r->me, r->qlog.dropped);
    }
}

/* Writes the report (text or --json) to stdout and the SVG and Chrome trace
 * to their files, which run_files_commit then puts in place. */
static void run_report(run *r, const run_summary *s, void (*extra)(FILE *f, int json, void *user), void *user)
{
    const run_report_in in = {r->pack_name,
                              r->pack,
                              &r->prof,
                              r->mem,
                              r->backend,
                              r->backend_detail,
                              r->store_init_ms,
                              r->wl.describe,
                              r->wl.given,
                              r->frame_count,
                              r->wall_ns,
                              r->o.frame_budget_ns,
                              r->o.allow_load_failures,
                              extra,
                              user};
    if (r->o.json) {
        run_report_json(&in, s);
    } else {
        run_report_text(&in, s);
    }
    if (r->tev_lost) {
        fprintf(stderr, "%s: %s: %" PRIu64 " of the texture pool's entries lost (its log ring overran)\n", r->me,
                r->o.evict_log, r->tev_lost);
    }
    if (r->ev_lost) {
        fprintf(stderr, "%s: %s: %" PRIu64 " entries lost (the pool's log ring overran)\n", r->me, r->o.evict_log,
                r->ev_lost);
    }
    if (r->o.svg != NULL) {
        run_svg_info info = {r->pack_name,
                             r->prof.name,
                             r->backend,
                             s->nreasons == 0,
                             s->b,
                             s->nb,
                             r->prof.page_count,
                             r->prof.upload_cap,
                             r->o.frame_budget_ns,
                             r->sections.quality.min_psnr_mdb,
                             s->has_tps ? r->prof.texture_page_count : 0};
        (void)run_timeline_write_svg(r->files.svg.f, &r->timeline, &info); /* a write error fails the commit */
    }
    if (r->o.chrome != NULL) {
        size_t dropped = 0;
        for (uint32_t w = 0; w < r->wctx.workers; w++) {
            dropped += r->wctx.dropped[w];
        }
        (void)run_chrome_end(&r->chrome, dropped);
        if (r->chrome.frames_left_out > 0) {
            fprintf(stderr, "%s: %s: the first %u frames recorded, %" PRIu64 " later ones left out\n", r->me,
                    r->o.chrome, RUN_CHROME_FRAMES_MAX, r->chrome.frames_left_out);
        }
    }
}

int run_open(run *r, const run_opts *o, const run_hooks *hooks, const char *me)
{
    r->o = *o;
    r->me = me;
    if (hooks != NULL) {
        r->hooks = *hooks;
    }
    int rc;
    if ((rc = run_open_pack(r)) != CLI_OK || (rc = run_open_workload(r)) != CLI_OK ||
        (rc = run_start_stream(r)) != CLI_OK) {
        return rc;
    }
    run_start_frames(r);
    return CLI_OK;
}

int run_finish(run *r, void (*extra)(FILE *f, int json, void *user), void *user, const char *reason)
{
    run_stop_workers(r);
    run_summary *s = malloc(sizeof *s);
    if (s == NULL || summarise(r, s) != CLI_OK) {
        free(s);
        fprintf(stderr, "%s: out of memory for the report\n", r->me);
        return CLI_FAILED;
    }
    if (reason != NULL) {
        add_reason(s, "%s", reason);
    }
    r->summary = s;
    run_report(r, s, extra, user);
    r->evlog = NULL;
    int rc = run_files_commit(&r->files, r->me);
    if (rc != CLI_OK) {
        return rc;
    }
    return s->nreasons > 0 ? RUN_VERDICT_FAILED : CLI_OK;
}

int cmd_run(int argc, char **argv)
{
    run_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc != CLI_OK) {
        return rc == CLI_ARGS_HELP ? CLI_OK : rc;
    }
    run *r = calloc(1, sizeof *r); /* large (the workers' storage): not on the stack */
    if (r == NULL) {
        fprintf(stderr, ME ": out of memory\n");
        return CLI_FAILED;
    }
    rc = run_open(r, &a.o, NULL, ME);
    for (uint32_t f = 0; rc == CLI_OK && run_has_frame(r, f); f++) {
        rc = run_frame(r, f);
    }
    if (rc == CLI_OK) {
        rc = run_finish(r, NULL, NULL, NULL);
    }
    run_close(r);
    free(r);
    return rc;
}
