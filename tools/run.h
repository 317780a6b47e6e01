/* SPDX-License-Identifier: MIT */
/* sluice run as a context: a workload streamed through a profile and a
 * pack on a backend, opened, stepped one frame at a time and closed, so
 * that a command built on it (`sluice render`, an image comparison of two
 * runs in lockstep) streams exactly as `sluice run` does, eviction log
 * included, and adds its own work in hooks. Nothing in a run is global: two
 * runs live in one process at once (each with its own memory block, pack
 * reader, store, stream and workers).
 *
 *     run *r = calloc(1, sizeof *r);
 *     rc = run_open(r, &opts, &hooks);          // pack, workload, store, stream, workers
 *     for (f = 0; rc == CLI_OK && run_has_frame(r, f); f++)
 *         rc = run_frame(r, f);                 // begin, requests, end, hooks.frame
 *     if (rc == CLI_OK) rc = run_finish(r, NULL, NULL, NULL); // the report and the output files
 *     run_close(r);                             // whatever was opened, in any state
 *
 * The options are run's own command line (run_args_table lists them, so a
 * command that takes run's options parses the same table, plus its own). */
#ifndef SLUICE_TOOLS_RUN_H
#define SLUICE_TOOLS_RUN_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "camera.h"
#include "cli_args.h"
#include "profile_sections.h"
#include "run_files.h"
#include "run_outputs.h"
#include "run_report.h"
#include "session.h"
#include "sluice/host_store.h"
#include "sluice/platform.h"
#include "sluice/stream.h"
#include "sluice/workers.h"
#include "trace.h"
#include "workload.h"

struct slc_vulkan; /* sluice/vulkan.h: the struct's layout is the same in a build without Vulkan */

/* The verdict failed: a budget or a frame limit was missed (every reason is
 * printed). cli.h's codes stop at 3; this one is run's own. */
#define RUN_VERDICT_FAILED 4

/* Frames the stream's telemetry ring keeps (slc_stream_desc.telemetry_frames). */
#define RUN_TELEMETRY_FRAMES 4u

#define RUN_SPAN_RING 4096u /* load spans a worker holds until the caller writes them (a power of two) */

typedef struct run_opts {
    const char *pack_path, *profile_path, *trace_path, *save_trace, *svg, *chrome, *evict_log;
    const char *backend;                   /* auto, vulkan, host */
    const slc_profile *profile;            /* when set, used instead of reading profile_path (a derived profile:
                                 * sluice render --reference's); profile_path still names it as an input */
    const tool_profile_sections *sections; /* with profile: its [render] and [quality] (NULL: none declared) */
    camera_desc cam;
    /* sluice render without --size or --view-height: the camera measures
     * against the frame the profile's [render] declares (else the
     * renderer's default), the frame drawn. */
    int view_from_frame;
    int json;
    int allow_load_failures;
    int mmap;                 /* map the pack; by default it is read through pread (platform.h: faults) */
    int validate;             /* Vulkan: the Khronos validation layer, its every message a failure */
    int64_t workers;          /* -1: the profile's */
    uint64_t frame_budget_ns; /* 0: none */
    int frames_set;
} run_opts;

/* run's command line: where run_args_table's entries store their values
 * until run_args_finish turns them into opts. */
typedef struct run_args {
    run_opts o;
    int backend, path, workers_set, view_height_set;
    uint64_t frames, workers, budget_us, view_height;
    double sse;
} run_args;

/* Entries run_args_table writes (at most). */
#define RUN_ARGS_MAX 20

/* Sets a's defaults and writes run's options (pointing into a) to table
 * (cap entries, at least RUN_ARGS_MAX); returns how many. */
size_t run_args_table(run_args *a, cli_opt *table, size_t cap);

/* After a parse: the options' values into a->o, and the checks that span
 * several options (a PACK given, no --frames with a trace). CLI_OK or
 * CLI_USAGE (printed as "<me>: ..." followed by usage). */
int run_args_finish(run_args *a, const char *me, const char *usage);

typedef struct run run;

/* What a command adds to a run. Each returns CLI_OK, or an exit code that
 * ends the run (after printing why). NULL members do nothing. */
typedef struct run_hooks {
    /* After the store and the stream are up, before streaming starts (the
     * "stream" phase, from which no budget may be reserved): the place to
     * reserve what the command needs on the run's budgets. */
    int (*start)(void *user, run *r);
    /* Frame f (the stream's frame number frame) after slc_stream_end_frame:
     * its resolved requests are there (slc_stream_resident), its pages
     * submitted to the store, and the work that reads them may be recorded
     * and submitted. */
    int (*frame)(void *user, run *r, uint32_t f, uint64_t frame);
    void *user;
} run_hooks;

/* One frame's figures, folded into the run's aggregates when it ends. */
typedef struct run_frame_rec {
    slc_stream_frame_stats t;
    uint64_t start_ns, end_ns; /* from the run's origin: begin_frame to the last resident query */
    uint32_t pool_used;        /* pages not free after end_frame */
    uint32_t tex_used;         /* the texture pool's pages not free after end_frame (0: no texture pool) */
    uint32_t objects, exact, coarser, none;
    uint32_t tiles, tiles_resident; /* texture tile requests, and those resident when asked */
    uint32_t stalls;                /* begin_frame refused: frames in flight */
    uint64_t caller_loads; /* loads run on the caller's thread in the frame (counted with --chrome-trace only) */
} run_frame_rec;

typedef struct run_load_span {
    uint64_t t0, t1;
} run_load_span;

/* The worker threads' context: the stream and, for the Chrome trace, each
 * worker's ring of load spans (the worker writes head, the caller's thread
 * drains up to it each frame and writes tail). */
typedef struct run_work {
    slc_stream *s;
    uint64_t origin;
    uint32_t workers;
    run_load_span *spans[SLC_PLATFORM_WORKERS_MAX];
    atomic_size_t head[SLC_PLATFORM_WORKERS_MAX], tail[SLC_PLATFORM_WORKERS_MAX];
    size_t dropped[SLC_PLATFORM_WORKERS_MAX]; /* the ring was full; read once the workers are joined */
} run_work;

/* The stream's logger: the first few messages, then a count. */
typedef struct run_quiet_log {
    unsigned shown, dropped;
} run_quiet_log;

/* The state of a run. Read by hooks (prof, mem, pack, store, vk, s, wl);
 * written only by run_*. Large (the workers' storage): allocate it, zeroed. */
/* --validate (run, render, bench render): the Khronos validation layer on
 * the backend's instance, every message it sends printed ("ME: Vulkan
 * validation: ...") and counted; the loader's general messages (an ICD
 * manifest whose library is absent) are not the application's errors and
 * are not counted. */
typedef struct run_validation {
    const char *me;
    uint64_t messages;
} run_validation;
struct slc_vulkan_desc;
/* Sets desc's layers and messenger to report into v (which outlives the
 * backend). Vulkan builds only. */
void run_validation_enable(struct slc_vulkan_desc *desc, run_validation *v);

struct run {
    run_opts o;
    run_hooks hooks;
    const char *me; /* "sluice run": the command, in messages */
    slc_profile prof;
    tool_profile_sections sections; /* the profile's [render] and [quality] */
    const char *pack_name;
    tool_session ses; /* the pack file, the memory block, the memory, the pack */
    slc_memory *mem;  /* ses.mem */
    slc_pack *pack;   /* ses.pack */
    /* the store */
    const char *backend; /* "vulkan" or "host" */
    char backend_detail[400];
    slc_platform_block page_block;
    slc_page_store host_store;
    const slc_page_store *store;
    void *vk_mem;
    struct slc_vulkan *vk; /* NULL on the host backend */
    void *tex_vk_mem;
    struct slc_vulkan *tex_vk; /* the texture pool on vk's device; NULL: none, or on the host backend */
    run_validation validation; /* --validate: messages the layer sent */
    double store_init_ms;
    /* the stream */
    run_quiet_log qlog;
    slc_logger stream_log;
    slc_platform_workers workers;
    run_work wctx;
    slc_stream *s;
    uint64_t frame; /* the stream's number of the frame last begun */
    /* the workload */
    workload wl;
    slc_partition parts[SLC_POOL_KIND_COUNT][TRACE_PARTITIONS_MAX]; /* each pool's partition of a trace name */
    uint8_t part_known[SLC_POOL_KIND_COUNT][TRACE_PARTITIONS_MAX];
    /* results, aggregated frame by frame */
    uint32_t frame_count;
    uint64_t t_start, wall_ns;
    uint64_t reservations_at_start;                  /* of every budget outside cpu/driver, when streaming began */
    uint64_t limit[SLC_BUDGET_MAX];                  /* every budget's limit, in the telemetry's order */
    slc_budget_stats chrome_budgets[SLC_BUDGET_MAX]; /* their names, for the Chrome trace's counter tracks */
    size_t nlimit;
    run_hist caller;      /* caller_ns of every frame */
    run_summary agg;      /* the frames' counts, maxima and first frames over a limit; summarise
                                     * starts from a copy and fills in the rest */
    run_summary *summary; /* after run_finish: the run judged */
    run_timeline timeline;
    run_files files; /* each through a temporary, committed when the run completes */
    run_chrome chrome;
    FILE *evlog;
    uint64_t ev_next;
    uint64_t ev_lost;
    uint64_t tev_next, tev_lost; /* the texture pool's */
};

/* Opens the output files, the profile (with --workers applied), the pack,
 * the workload, the store (Vulkan, or the host backend as o->backend says),
 * the stream and its workers, calls hooks->start, and enters the "stream"
 * phase. me names the command in messages. CLI_OK, or the exit code of the
 * first step that failed (printed); run_close either way. */
int run_open(run *r, const run_opts *o, const run_hooks *hooks, const char *me);

/* Whether frame f runs (frames in order from 0). */
int run_has_frame(const run *r, uint32_t f);

/* Runs frame f: begin (waiting for the GPU while frames are in flight), the
 * workload's requests, end, the resolved requests counted, hooks->frame,
 * and the frame's telemetry folded into the aggregates. CLI_OK or the exit
 * code of the failure (printed). */
int run_frame(run *r, uint32_t f);

/* After the last frame: joins the workers, judges the run (r->summary),
 * prints the report (text or --json; extra, when not NULL, adds the
 * command's part before the verdict: run_report_in.extra), writes the
 * output files and commits them. reason, when not NULL, is one more reason
 * the verdict fails that the command judged itself (render --reference: a
 * frame below the quality floor), listed with the run's own. CLI_OK,
 * RUN_VERDICT_FAILED when the report gives reasons, or the failure's code. */
int run_finish(run *r, void (*extra)(FILE *f, int json, void *user), void *user, const char *reason);

/* Releases everything opened, in any state; a run not finished leaves its
 * output files as they were. r may then be freed. */
void run_close(run *r);

#endif
