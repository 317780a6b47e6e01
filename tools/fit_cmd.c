/* SPDX-License-Identifier: MIT */
/* sluice budget fit: the offline fit check (docs/budget-fit.md).
 *
 * From a profile, a pack and a workload alone — no stream, no page store, no
 * GPU — computes what every frame needs at the LODs it asks for and judges
 * whether the profile holds the workload without fallback, only with
 * fallback, or not at all, naming the first frame and request that breaks
 * each bound. The workload is built exactly as `sluice run` builds it (a
 * trace checked against the pack, or the camera capped at queue_capacity),
 * and the pack is opened exactly as run opens it (slc_pack_open with the
 * profile's capacities, into the profile's `cpu/meta` arena), so a fit and a
 * run of the same arguments see the same pack and the same requests.
 *
 * The bounds follow sluice/stream.h, through the stream's own rules:
 * requests are accepted as the stream accepts them (slc_stream_admit: all
 * or nothing, queue_capacity object requests and distinct chunks a frame),
 * a chunk counts in the partition of its first accepted request in the
 * frame, pinned chunks (slc_stream_pin_iter) sit in the pin partition once,
 * and the upload cap in pages is slc_stream_get_upload_cap's for the
 * load_frames `sluice run` uses.
 *
 * The workload is read frame by frame (workload.h) in one pass; the check
 * keeps O(chunks) state (per-chunk stamps and counts) and the chunk lists
 * of the last frames_in_flight + 1 frames, nothing per frame or request. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "camera.h"
#include "cli.h"
#include "cli_args.h"
#include "escape.h"
#include "run_report.h"
#include "session.h"
#include "sluice/memory.h"
#include "sluice/pack.h"
#include "sluice/platform.h"
#include "sluice/stream.h"
#include "trace.h"
#include "workload.h"

/* fit's own verdict codes; cli.h's stop at 3 (4 is also run's "verdict failed"). */
#define FIT_SOFT 4     /* holds only with fallback, or needs deferral */
#define FIT_NOT_HOLD 5 /* does not hold */

#define ME "sluice budget fit"
#define FIT_PARTS_MAX (SLC_PARTITION_MAX + 1u)
#define FIT_TEXTURE_POOL 128u /* check_state.upart of a tile: FIT_TEXTURE_POOL + its texture pool partition */

static const char usage_text[] =
    "usage: sluice budget fit PROFILE PACK [--trace FILE | --camera fly|orbit|teleport|closeup\n"
    "                         [--frames N] [--seed N] [--sse PX]] [--json]\n"
    "\n"
    "Checks offline, without streaming, whether PROFILE holds PACK's workload: a trace\n"
    "(docs/trace-format.md) or the built-in camera, built exactly as `sluice run` builds it\n"
    "(camera defaults: fly, 240 frames, seed 1, 1 px). Every bound is in pages, per\n"
    "partition of the pool (docs/budget-fit.md has the definitions):\n"
    "  pinned     P: distinct chunks of every object's pin_coarsest coarsest levels, in the\n"
    "             pin partition ('default', else the first named one)\n"
    "  W(f)       distinct chunks of frame f's accepted requests in the partition, plus P in\n"
    "             the pin partition (a pinned chunk counts once, there)\n"
    "  U(f)       distinct chunks of frames f-F..f (F = frames_in_flight), plus P: pages a\n"
    "             frame in flight may still read cannot be evicted while f loads\n"
    "  new(f)     chunks of f not asked for in f-1 nor pinned (an upper bound on its loads)\n"
    "             against the upload cap, upload_per_frame / page_size pages\n"
    "  requests   object requests and distinct chunks of a frame against queue_capacity\n"
    "\n"
    "verdicts:\n"
    "  holds without fallback   P, every W(f) and U(f) fit, new(f) <= the cap, every request\n"
    "                           is accepted: each level asked for is visible from the frame\n"
    "                           after it is first asked for and stays while asked for\n"
    "  needs deferral           as above but some new(f) exceeds the cap: its loads spread\n"
    "                           over frames (coarser detail meanwhile)\n"
    "  holds only with fallback some W(f) or U(f) exceeds its partition, but pin_coarsest > 0\n"
    "                           pins a level of every object and the frame's overflowing\n"
    "                           partition has no chunk request: coarser detail, never a hole\n"
    "  does not hold            the pack does not fit the profile's tables, P does not fit,\n"
    "                           a request is refused (queue_capacity), or a working set\n"
    "                           overflows with nothing pinned to fall back to\n"
    "\n"
    "options:\n"
    "  --trace FILE      the workload is a trace; otherwise the camera runs\n"
    "  --camera PATH     fly (default), orbit, teleport or closeup\n"
    "  --frames N        frames the camera runs (default 240)\n"
    "  --seed N          the camera's seed (default 1)\n"
    "  --sse PX          the camera's screen-space error threshold in pixels (default 1)\n"
    "  --json            the report as JSON on stdout\n"
    "  -h, --help        this text\n"
    "\n"
    "exit codes: 0 holds without fallback; 1 input judged bad (profile, pack, trace);\n"
    "2 bad command line; 3 a file not readable; 4 holds only with fallback or needs\n"
    "deferral (the verdict says which); 5 does not hold (each broken bound named)\n";

typedef struct fit_opts {
    const char *profile_path, *pack_path, *trace_path;
    camera_desc cam;
    int json, frames_set, camera_set;
} fit_opts;

/* The first frame that breaks a bound: which partition, which request. */
typedef struct fit_break {
    int broken;
    uint32_t frame;
    uint32_t part;
    int has_req;
    trace_req req;  /* the request where it broke */
    uint64_t value; /* the frame's count in the partition (all of its accepted requests) */
    uint64_t limit;
} fit_break;

typedef struct fit_worst {
    uint64_t value;
    uint32_t frame;
} fit_worst;

typedef struct fit {
    fit_opts o;
    slc_profile prof;
    const char *pack_name;
    tool_session ses; /* the pack file, the memory block, the memory, the pack */
    slc_memory *mem;  /* ses.mem */
    slc_pack *pack;   /* ses.pack */
    workload wl;
    uint32_t frames; /* frames checked */
    /* the pool's partitions, in the pool's order: named ones, then "default" */
    uint32_t nparts;
    const char *part_name[FIT_PARTS_MAX];
    uint32_t part_pages[FIT_PARTS_MAX];
    uint32_t pin_part;
    /* the texture pool's ([texture_partitions]), in its order; tex_pin_part
     * holds the mip tails */
    uint32_t tex_nparts;
    const char *tex_part_name[FIT_PARTS_MAX];
    uint32_t tex_part_pages[FIT_PARTS_MAX];
    uint32_t tex_pin_part;
    uint8_t trace_part[SLC_POOL_KIND_COUNT][TRACE_PARTITIONS_MAX]; /* the trace's names -> each pool's index */
    uint8_t part_known[SLC_POOL_KIND_COUNT][TRACE_PARTITIONS_MAX];
    /* results */
    uint32_t pinned;         /* P */
    uint32_t cap_pages;      /* upload cap in pages */
    uint32_t belt_cap_pages; /* the cap through a staging belt */
    uint32_t tile_cap_pages; /* of which tiles may take (slc_stream_get_tile_cap); 0: the stream refuses */
    fit_worst w[FIT_PARTS_MAX], u[FIT_PARTS_MAX];
    fit_worst newc, newt, firstc, objreqs, chunkreqs, distinct;
    uint64_t refused;
    uint64_t object_requests; /* accepted, over the workload */
    uint64_t tile_requests;   /* accepted requests of texture tiles */
    /* The texture pool ([textures] page_count pages, in its partitions): the
     * mip tails pinned at create (PT, in tex_pin_part), and per frame and
     * partition the distinct tiles asked for (WT(f)) and over frames f-F..f
     * (UT(f)), plus PT in the pin partition. */
    uint32_t textures;   /* the pack's textures */
    uint32_t tex_pinned; /* PT */
    fit_worst tex_w[FIT_PARTS_MAX], tex_u[FIT_PARTS_MAX];
    fit_break tex_pin_b, tex_w_b, tex_u_b;
    uint64_t transient; /* of which asked for a chunk that f - 1 did not ask for (nor pinned) */
    fit_break pin_b, w_b, u_b, new_b, queue_b, hole_b, tile_new_b;
    const char *queue_what; /* "object requests" or "distinct chunks" */
} fit;

#define FIT_USAGE "usage: sluice budget fit PROFILE PACK [--trace FILE | --camera ...] [--json] (--help: all)\n"

/* Returns CLI_OK, CLI_USAGE (printed), or CLI_ARGS_HELP after the help.
 * The camera's defaults are run's. */
static int parse_args(int argc, char **argv, fit_opts *o)
{
    memset(o, 0, sizeof *o);
    o->cam.seed = 1;
    int path = CAMERA_FLY;
    uint64_t frames = 240;
    double sse = 1.0;
    const cli_opt table[] = {
        {.name = "--json", .kind = CLI_OPT_FLAG, .dest = &o->json},
        {.name = "--trace", .kind = CLI_OPT_STRING, .dest = &o->trace_path},
        {.name = "--camera",
         .kind = CLI_OPT_ENUM,
         .dest = &path,
         .choices = camera_path_names,
         .bad = "{opt} '{value}': expected fly, orbit, teleport or closeup",
         .seen = &o->camera_set},
        {.name = "--frames",
         .kind = CLI_OPT_U64,
         .dest = &frames,
         .min = 1,
         .max = TRACE_FRAMES_MAX,
         .bad = "{opt} '{value}': expected a count in 1..{max}",
         .seen = &o->frames_set},
        {.name = "--seed",
         .kind = CLI_OPT_U64,
         .dest = &o->cam.seed,
         .max = UINT64_MAX,
         .bad = "{opt} '{value}': expected a number",
         .seen = &o->camera_set},
        {.name = "--sse",
         .kind = CLI_OPT_DOUBLE,
         .dest = &sse,
         .dmin = 0.0,
         .open_min = 1,
         .dmax = 1e6,
         .bad = "{opt} '{value}': expected pixels above 0",
         .seen = &o->camera_set},
    };
    const char *files[2] = {NULL, NULL};
    size_t nfiles = 0;
    const cli_args spec = {.me = ME,
                           .opts = table,
                           .count = sizeof table / sizeof table[0],
                           .operands = files,
                           .max_operands = 2,
                           .operand_count = &nfiles,
                           .missing = "{opt} needs a value",
                           .unknown = "unexpected argument '{value}'",
                           .usage = FIT_USAGE,
                           .usage_after = CLI_ARGS_ALL,
                           .help = 1};
    int rc = cli_args_parse(&spec, argc, argv);
    if (rc == CLI_ARGS_HELP) {
        fputs(usage_text, stdout);
    }
    if (rc != CLI_OK) {
        return rc;
    }
    o->profile_path = files[0];
    o->pack_path = files[1];
    o->cam.path = (camera_path)path;
    o->cam.frames = (uint32_t)frames;
    o->cam.sse_px = (float)sse;
    if (o->pack_path == NULL) {
        return cli_usage_error(ME, FIT_USAGE, "%s",
                               o->profile_path == NULL ? "no PROFILE and PACK given" : "no PACK given");
    }
    if (o->trace_path != NULL && (o->frames_set || o->camera_set)) {
        return cli_usage_error(
            ME, FIT_USAGE, "--camera, --frames, --seed and --sse are for the camera; a trace declares its own frames");
    }
    return CLI_OK;
}

/* --- setup: as sluice run does it ------------------------------------------------------- */

/* Both pools' partitions as slc_pool lays them out from the profile. */
static void layout_partitions(fit *f)
{
    f->nparts = tool_pool_partitions(&f->prof, SLC_POOL_GEOMETRY, f->part_name, f->part_pages, &f->pin_part);
    f->tex_nparts = tool_pool_partitions(&f->prof, SLC_POOL_TEXTURES, f->tex_part_name, f->tex_part_pages,
                                         &f->tex_pin_part);
    if (f->tex_nparts == 0) { /* no texture pool: a pack with textures is refused, and named so */
        f->tex_part_name[0] = SLC_PROFILE_PARTITION_DEFAULT_NAME;
        f->tex_part_pages[0] = 0;
    }
}

static int open_pack(fit *f)
{
    f->pack_name = strrchr(f->o.pack_path, '/') ? strrchr(f->o.pack_path, '/') + 1 : f->o.pack_path;
    const tool_session_desc sd = {.me = ME,
                                  .profile = &f->prof,
                                  .pack_path = f->o.pack_path,
                                  .file_flags = SLC_PLATFORM_FILE_DEFAULT,
                                  .pack_name = f->pack_name,
                                  .profile_path = f->o.profile_path};
    tool_session_step step = tool_session_open(&sd, &f->ses);
    f->mem = f->ses.mem;
    f->pack = f->ses.pack;
    if (step == TOOL_SESSION_PACK) {
        fprintf(stderr, ME ": does not hold: pack '%s' does not fit profile '%s' (see above)\n", f->pack_name,
                f->prof.name);
    }
    if (step == TOOL_SESSION_META || step == TOOL_SESSION_PACK) {
        return FIT_NOT_HOLD;
    }
    return tool_session_exit_code(step); /* a refusal is printed or logged */
}

/* The workload as run opens it (workload.h: the camera capped at
 * queue_capacity). */
static int load_workload(fit *f)
{
    camera_desc d = f->o.cam;
    d.max_requests = f->prof.queue_capacity;
    d.max_chunks = f->prof.queue_capacity;
    return workload_open(&f->wl, ME, f->o.trace_path, &d, f->pack, f->pack_name);
}

/* The index, in the pool of kind (a tile's: the texture pool), of the
 * trace's partition of q, resolved when first asked for, as run does;
 * CLI_FAILED (printed) when the profile lacks it. */
static int resolve_partition(fit *f, const trace_req *q, slc_pool_kind kind, uint32_t *out)
{
    if (q->partition == TRACE_PARTITION_DEFAULT) {
        *out = 0;
        return CLI_OK;
    }
    if (!f->part_known[kind][q->partition]) {
        const char *name = workload_partition(&f->wl, q->partition);
        int k = tool_pool_partition_index(&f->prof, kind, name);
        if (k < 0) {
            fprintf(stderr, "%s:%u: partition '%s' is not in profile '%s'%s\n", f->o.trace_path, q->line, name,
                    f->prof.name, kind == SLC_POOL_TEXTURES ? " ([texture_partitions])" : "");
            return CLI_FAILED;
        }
        f->trace_part[kind][q->partition] = (uint8_t)k;
        f->part_known[kind][q->partition] = 1;
    }
    *out = f->trace_part[kind][q->partition];
    return CLI_OK;
}

/* --- the check ------------------------------------------------------------------------------ */

typedef struct chunk_list {
    uint32_t *ids;
    size_t count, cap;
} chunk_list;

static int list_push(chunk_list *l, uint32_t id)
{
    if (l->count == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 256;
        uint32_t *ids = realloc(l->ids, cap * sizeof *ids);
        if (ids == NULL) {
            return -1;
        }
        l->ids = ids;
        l->cap = cap;
    }
    l->ids[l->count++] = id;
    return 0;
}

static void mark_break(fit_break *b, uint32_t frame, uint32_t part, const trace_req *req, uint64_t limit)
{
    if (!b->broken) {
        b->broken = 1;
        b->frame = frame;
        b->part = part;
        b->has_req = req != NULL;
        if (req != NULL) {
            b->req = *req;
        }
        b->limit = limit;
    }
}

static void worst(fit_worst *w, uint64_t value, uint32_t frame)
{
    if (value > w->value) {
        w->value = value;
        w->frame = frame;
    }
}

/* Whether chunk c is a texture tile (slc_pool_kind_of_chunk_flags). */
static int is_tile(const fit *f, uint32_t c)
{
    return slc_pool_kind_of_chunk_flags(slc_pack_get_chunk(f->pack, (slc_chunk_id){c})->flags) == SLC_POOL_TEXTURES;
}

/* The chunks of request q: its LOD's spans, or the one chunk. */
static uint32_t req_chunks(const fit *f, const trace_req *q, uint32_t k)
{
    if (q->kind != TRACE_OBJECT) {
        return q->id;
    }
    const slc_pack_object *o = slc_pack_get_object(f->pack, (slc_object_id){q->id});
    const slc_pack_lod *l = slc_pack_get_lod(f->pack, o->first_lod + q->lod);
    return slc_pack_get_span(f->pack, l->first_span + k)->chunk;
}

static uint32_t req_chunk_count(const fit *f, const trace_req *q)
{
    if (q->kind != TRACE_OBJECT) {
        return 1;
    }
    const slc_pack_object *o = slc_pack_get_object(f->pack, (slc_object_id){q->id});
    return slc_pack_get_lod(f->pack, o->first_lod + q->lod)->span_count;
}

/* PT: every texture's mip tail (slc_pack_texture_tail), which
 * slc_stream_create pins in the texture pool, marked in pinned[]. A tail
 * whose record cannot be read is left out (the stream would refuse to
 * start, and open has read every record). */
static void count_tails(fit *f, uint8_t *pinned)
{
    f->textures = slc_pack_texture_count(f->pack);
    f->tex_pinned = tool_mark_texture_tails(f->pack, pinned, NULL);
    const uint32_t room = f->tex_nparts > 0 ? f->tex_part_pages[f->tex_pin_part] : 0;
    if (f->textures > 0 && f->tex_pinned > room) {
        mark_break(&f->tex_pin_b, 0, f->tex_pin_part, NULL, room);
        f->tex_pin_b.value = f->tex_pinned;
    }
}

/* P: the distinct chunks slc_stream_create pins (slc_stream_pin_iter),
 * marked in pinned[]. */
static void count_pinned(fit *f, uint8_t *pinned)
{
    f->pinned = 0;
    slc_stream_pin_iter it;
    slc_stream_pin_iter_init(&it, f->pack, f->prof.pin_coarsest);
    slc_chunk_id c = {0};
    while (slc_stream_pin_iter_next(&it, &c)) {
        f->pinned += !pinned[c.index];
        pinned[c.index] = 1;
    }
    if (f->pinned > f->part_pages[f->pin_part]) {
        mark_break(&f->pin_b, 0, f->pin_part, NULL, f->part_pages[f->pin_part]);
        f->pin_b.value = f->pinned;
    }
}

/* The upload cap in pages as the stream applies it (slc_stream_get_upload_cap)
 * with mapped pages and through a staging belt, for the load_frames
 * `sluice run` streams with; 0 where the stream would refuse to start. */
static void upload_caps(fit *f)
{
    if (slc_stream_get_upload_cap(&f->prof, SLC_STREAM_DEFAULT_LOAD_FRAMES, false, NULL, &f->cap_pages) != SLC_OK) {
        f->cap_pages = 0;
    }
    if (slc_stream_get_upload_cap(&f->prof, SLC_STREAM_DEFAULT_LOAD_FRAMES, true, NULL, &f->belt_cap_pages) != SLC_OK) {
        f->belt_cap_pages = 0;
    }
    if (slc_stream_get_tile_cap(&f->prof, SLC_STREAM_DEFAULT_LOAD_FRAMES, f->cap_pages, NULL, &f->tile_cap_pages) !=
        SLC_OK) {
        f->tile_cap_pages = 0;
    }
}

/* What the check keeps across frames: O(chunks) per-chunk state, and the
 * chunk lists of the window's frames. */
typedef struct check_state {
    uint32_t F;   /* frames_in_flight */
    uint32_t cap; /* queue_capacity */
    uint8_t *pinned;
    uint8_t *seen;
    uint8_t *upart;     /* the partition a chunk of the window counts in (FIT_TEXTURE_POOL: a tile) */
    uint8_t *was_asked; /* this frame's chunk: asked for by frame - 1 too */
    uint32_t *stamp;    /* frame + 1 of the last frame that asked for it */
    uint32_t *ref;      /* frames of the window f-F..f that asked for it */
    chunk_list *ring;
    uint64_t ucount[FIT_PARTS_MAX];
    uint64_t tex_ucount[FIT_PARTS_MAX]; /* the window's distinct tiles, by texture pool partition */
} check_state;

/* One frame's counts. */
typedef struct frame_state {
    uint32_t fr;
    chunk_list *slot; /* the frame's unpinned chunks, in the window's ring */
    uint64_t wcount[FIT_PARTS_MAX];
    uint64_t tex_wcount[FIT_PARTS_MAX];    /* the frame's distinct tiles, by texture pool partition */
    trace_req chunk_req_in[FIT_PARTS_MAX]; /* the frame's first unpinned chunk request in each partition */
    int has_chunk_req[FIT_PARTS_MAX];
    uint32_t objreqs, chunkreqs, distinct, newc, newt, firstc;
    int w_over, u_over;
    fit_break w_here, u_here;
    trace_req tex_req; /* the frame's first request that took a texture pool partition past its pages */
    int tex_over;
    uint32_t tex_over_part; /* that partition */
} frame_state;

static int state_alloc(check_state *st, uint32_t nchunks, const slc_profile *prof)
{
    memset(st, 0, sizeof *st);
    st->F = prof->frames_in_flight;
    st->cap = prof->queue_capacity;
    st->pinned = calloc(nchunks + 1u, 1);
    st->seen = calloc(nchunks + 1u, 1);
    st->upart = calloc(nchunks + 1u, 1);
    st->was_asked = calloc(nchunks + 1u, 1);
    st->stamp = calloc(nchunks + 1u, sizeof *st->stamp);
    st->ref = calloc(nchunks + 1u, sizeof *st->ref);
    st->ring = calloc(st->F + 1u, sizeof *st->ring);
    if (!st->pinned || !st->seen || !st->upart || !st->was_asked || !st->stamp || !st->ref || !st->ring) {
        fprintf(stderr, ME ": out of memory for %u chunks\n", nchunks);
        return CLI_FAILED;
    }
    return CLI_OK;
}

static void state_free(check_state *st)
{
    for (uint32_t i = 0; st->ring != NULL && i <= st->F; i++) {
        free(st->ring[i].ids);
    }
    free(st->ring);
    free(st->ref);
    free(st->stamp);
    free(st->upart);
    free(st->was_asked);
    free(st->seen);
    free(st->pinned);
}

/* The window slides to end at frame fr: frame fr - F - 1 leaves it. */
static void frame_begin(check_state *st, frame_state *fs, uint32_t fr)
{
    memset(fs, 0, sizeof *fs);
    fs->fr = fr;
    fs->slot = &st->ring[fr % (st->F + 1u)];
    for (size_t i = 0; i < fs->slot->count; i++) {
        uint32_t c = fs->slot->ids[i];
        if (--st->ref[c] == 0) {
            if (st->upart[c] >= FIT_TEXTURE_POOL) {
                st->tex_ucount[st->upart[c] - FIT_TEXTURE_POOL]--;
            } else {
                st->ucount[st->upart[c]]--;
            }
        }
    }
    fs->slot->count = 0;
}

/* Acceptance, as slc_stream_request and _request_chunk decide it
 * (slc_stream_admit). Returns 0, with the refusal counted and the first
 * one kept, when q is refused. */
static int admit(fit *f, check_state *st, frame_state *fs, const trace_req *q, uint32_t part, uint32_t n)
{
    uint32_t fresh = 0;
    for (uint32_t k = 0; k < n; k++) {
        fresh += st->stamp[req_chunks(f, q, k)] != fs->fr + 1u;
    }
    slc_stream_admission adm = slc_stream_admit(st->cap, fs->objreqs, fs->distinct, q->kind == TRACE_OBJECT, fresh);
    if (adm == SLC_STREAM_ADMITTED) {
        return 1;
    }
    f->refused++;
    if (!f->queue_b.broken) {
        int objects_full = adm == SLC_STREAM_OBJECTS_FULL;
        f->queue_what = objects_full ? "object requests" : "distinct chunks";
        mark_break(&f->queue_b, fs->fr, part, q, st->cap);
        f->queue_b.value = objects_full ? (uint64_t)fs->objreqs + 1u : (uint64_t)fs->distinct + fresh;
    }
    return 0;
}

/* The chunks of accepted request q into the frame's and the window's
 * counts. Returns CLI_OK, or CLI_FAILED (printed) out of memory. */
static int count_chunks(fit *f, check_state *st, frame_state *fs, const trace_req *q, uint32_t part, uint32_t n)
{
    const uint32_t fr = fs->fr;
    int fresh_level = 0;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t c = req_chunks(f, q, k);
        if (st->stamp[c] == fr + 1u) {
            fresh_level |= !st->pinned[c] && !st->was_asked[c];
            continue; /* already asked for this frame: counted in its first request's partition */
        }
        int asked_before = fr > 0 && st->stamp[c] == fr; /* by frame fr - 1 (stamp 0: never) */
        st->stamp[c] = fr + 1u;
        st->was_asked[c] = (uint8_t)asked_before;
        fresh_level |= !st->pinned[c] && !asked_before;
        fs->distinct++;
        if (st->pinned[c]) {
            continue; /* resident since create, in the pin partition, counted in P */
        }
        /* A texture tile takes a queue entry and a load under the upload
         * cap as a chunk does, and a page of the texture pool. */
        const int tile = is_tile(f, c);
        if (tile) {
            fs->tex_wcount[part]++;
        } else {
            fs->wcount[part]++;
        }
        if (list_push(fs->slot, c) != 0) {
            fprintf(stderr, ME ": out of memory\n");
            return CLI_FAILED;
        }
        if (st->ref[c]++ == 0) {
            st->upart[c] = (uint8_t)(tile ? FIT_TEXTURE_POOL + part : part);
            if (tile) {
                st->tex_ucount[part]++;
            } else {
                st->ucount[part]++;
            }
        }
        fs->newc += !asked_before;
        fs->newt += tile && !asked_before;
        fs->firstc += !st->seen[c];
        st->seen[c] = 1;
    }
    f->transient += q->kind == TRACE_OBJECT && fresh_level;
    return CLI_OK;
}

/* PT in texture pool partition p: the tails, pinned in tex_pin_part. */
static uint64_t tex_pin_in(const fit *f, uint32_t p)
{
    return p == f->tex_pin_part ? f->tex_pinned : 0u;
}

/* The bounds that q, once counted, may be the first to break in its
 * partition (a tile's: of the texture pool). */
static void mark_request_breaks(fit *f, const check_state *st, frame_state *fs, const trace_req *q, uint32_t part,
                                int tile)
{
    if (fs->newc > f->cap_pages) { /* the cap is the two pools' (a tile's break: the page pool's first partition) */
        mark_break(&f->new_b, fs->fr, tile ? 0 : part, q, f->cap_pages);
    }
    if (tile && f->tile_cap_pages != 0 && fs->newt > f->tile_cap_pages) { /* the tiles' share: the rest wait a frame */
        mark_break(&f->tile_new_b, fs->fr, part, q, f->tile_cap_pages);
    }
    if (tile) {
        const uint64_t pin = tex_pin_in(f, part), pages = f->tex_part_pages[part];
        if (!fs->tex_over && (fs->tex_wcount[part] + pin > pages || st->tex_ucount[part] + pin > pages)) {
            fs->tex_over = 1;
            fs->tex_over_part = part;
            fs->tex_req = *q;
        }
        return;
    }
    uint64_t pin_here = part == f->pin_part ? f->pinned : 0;
    if (fs->wcount[part] + pin_here > f->part_pages[part] && !fs->w_over) {
        fs->w_over = 1;
        mark_break(&fs->w_here, fs->fr, part, q, f->part_pages[part]);
    }
    if (st->ucount[part] + pin_here > f->part_pages[part] && !fs->u_over) {
        fs->u_over = 1;
        mark_break(&fs->u_here, fs->fr, part, q, f->part_pages[part]);
    }
}

/* One request of the frame: resolved, accepted or refused, counted. */
static int take_request(fit *f, check_state *st, frame_state *fs, const trace_req *q)
{
    uint32_t part = 0;
    const slc_pool_kind kind = workload_req_pool(f->pack, q);
    const int tile = kind == SLC_POOL_TEXTURES;
    int rc = resolve_partition(f, q, kind, &part);
    if (rc != CLI_OK) {
        return rc;
    }
    uint32_t n = req_chunk_count(f, q);
    if (!admit(f, st, fs, q, part, n)) {
        return CLI_OK;
    }
    if (q->kind == TRACE_OBJECT) {
        fs->objreqs++;
        f->object_requests++;
    } else {
        fs->chunkreqs++;
        f->tile_requests += (uint64_t)tile;
        if (!tile && !st->pinned[q->id] && !fs->has_chunk_req[part]) {
            fs->chunk_req_in[part] = *q;
            fs->has_chunk_req[part] = 1;
        }
    }
    if ((rc = count_chunks(f, st, fs, q, part, n)) != CLI_OK) {
        return rc;
    }
    mark_request_breaks(f, st, fs, q, part, tile);
    return CLI_OK;
}

/* The first frame's break of each bound, from this frame's requests: its
 * value is the frame's whole count in the partition. */
static void settle_breaks(fit *f, const check_state *st, const frame_state *fs)
{
    const uint32_t fr = fs->fr;
    if (fs->w_over && !f->w_b.broken) {
        f->w_b = fs->w_here;
        f->w_b.value = fs->wcount[fs->w_here.part] + (fs->w_here.part == f->pin_part ? f->pinned : 0);
    }
    if (fs->u_over && !f->u_b.broken) {
        f->u_b = fs->u_here;
        f->u_b.value = st->ucount[fs->u_here.part] + (fs->u_here.part == f->pin_part ? f->pinned : 0);
    }
    if (f->new_b.broken && f->new_b.frame == fr) {
        f->new_b.value = fs->newc;
    }
    if (f->tile_new_b.broken && f->tile_new_b.frame == fr) {
        f->tile_new_b.value = fs->newt;
    }
    if (f->hole_b.broken && f->hole_b.frame == fr) {
        uint64_t pin_here = f->hole_b.part == f->pin_part ? f->pinned : 0;
        uint64_t wv = fs->wcount[f->hole_b.part] + pin_here, uv = st->ucount[f->hole_b.part] + pin_here;
        f->hole_b.value = wv > f->part_pages[f->hole_b.part] ? wv : uv;
    }
}

/* The frame's worst values, and the breaks it settles. */
static void frame_end(fit *f, const check_state *st, const frame_state *fs)
{
    const uint32_t fr = fs->fr;
    for (uint32_t p = 0; p < f->nparts; p++) {
        uint64_t pin_here = p == f->pin_part ? f->pinned : 0;
        worst(&f->w[p], fs->wcount[p] + pin_here, fr);
        worst(&f->u[p], st->ucount[p] + pin_here, fr);
        /* An overflowing partition with a chunk request: a chunk has no coarser level. */
        int over = fs->wcount[p] + pin_here > f->part_pages[p] || st->ucount[p] + pin_here > f->part_pages[p];
        if (over && fs->has_chunk_req[p]) {
            mark_break(&f->hole_b, fr, p, &fs->chunk_req_in[p], f->part_pages[p]);
        }
    }
    settle_breaks(f, st, fs);
    for (uint32_t p = 0; f->textures > 0 && p < f->tex_nparts; p++) {
        worst(&f->tex_w[p], fs->tex_wcount[p] + tex_pin_in(f, p), fr);
        worst(&f->tex_u[p], st->tex_ucount[p] + tex_pin_in(f, p), fr);
    }
    if (f->textures > 0 && fs->tex_over) {
        const uint32_t p = fs->tex_over_part;
        const uint64_t pin = tex_pin_in(f, p), pages = f->tex_part_pages[p];
        if (fs->tex_wcount[p] + pin > pages && !f->tex_w_b.broken) {
            mark_break(&f->tex_w_b, fr, p, &fs->tex_req, pages);
            f->tex_w_b.value = fs->tex_wcount[p] + pin;
        }
        if (st->tex_ucount[p] + pin > pages && !f->tex_u_b.broken) {
            mark_break(&f->tex_u_b, fr, p, &fs->tex_req, pages);
            f->tex_u_b.value = st->tex_ucount[p] + pin;
        }
    }
    worst(&f->newc, fs->newc, fr);
    worst(&f->newt, fs->newt, fr);
    worst(&f->firstc, fs->firstc, fr);
    worst(&f->objreqs, fs->objreqs, fr);
    worst(&f->chunkreqs, fs->chunkreqs, fr);
    worst(&f->distinct, fs->distinct, fr);
}

/* The workload frame by frame against the bounds (docs/budget-fit.md). */
static int check(fit *f)
{
    check_state st;
    frame_state fs;
    int rc = state_alloc(&st, slc_pack_get_header(f->pack)->chunk_count, &f->prof);
    if (rc == CLI_OK) {
        count_pinned(f, st.pinned);
        count_tails(f, st.pinned);
        upload_caps(f);
    }
    uint32_t fr;
    for (fr = 0; rc == CLI_OK && workload_has_frame(&f->wl, fr); fr++) {
        frame_begin(&st, &fs, fr);
        trace_req q;
        int got = 0;
        while (rc == CLI_OK && (got = workload_next(&f->wl, fr, &q)) == 1) {
            rc = take_request(f, &st, &fs, &q);
        }
        if (rc == CLI_OK && got < 0) {
            rc = f->wl.rc;
        }
        if (rc == CLI_OK) {
            frame_end(f, &st, &fs);
        }
    }
    if (rc == CLI_OK) {
        f->frames = fr;
    }
    state_free(&st);
    return rc;
}

/* --- verdict and report --------------------------------------------------------------------- */

typedef enum verdict { V_HOLDS = 0, V_DEFERRAL, V_FALLBACK, V_NOT } verdict;

static verdict judge(const fit *f)
{
    if (f->pin_b.broken || f->queue_b.broken || f->hole_b.broken || f->cap_pages == 0 || f->tex_pin_b.broken ||
        (f->textures > 0 && f->prof.texture_page_count > 0 && f->tile_cap_pages == 0) ||
        tool_texture_pool_missing(f->pack, &f->prof, NULL)) {
        return V_NOT;
    }
    if (f->w_b.broken || f->u_b.broken) {
        return f->prof.pin_coarsest > 0 ? V_FALLBACK : V_NOT;
    }
    if (f->tex_w_b.broken || f->tex_u_b.broken) {
        return V_FALLBACK; /* a tile not resident is drawn from its texture's pinned tail, or a level between */
    }
    return f->new_b.broken || f->tile_new_b.broken ? V_DEFERRAL : V_HOLDS;
}

static const char *verdict_name(verdict v)
{
    static const char *const names[] = {"holds without fallback", "needs deferral", "holds only with fallback",
                                        "does not hold"};
    return names[v];
}

/* "object 5 'tower' LOD 0 (file:7)" or "chunk 40 (file:9)". */
static void describe_req(const fit *f, const fit_break *b, char *buf, size_t cap)
{
    if (!b->has_req) {
        snprintf(buf, cap, "-");
        return;
    }
    const trace_req *q = &b->req;
    char where[64] = "";
    if (q->line > 0 && f->o.trace_path != NULL) {
        const char *base = strrchr(f->o.trace_path, '/') ? strrchr(f->o.trace_path, '/') + 1 : f->o.trace_path;
        snprintf(where, sizeof where, " (%.40s:%u)", base, q->line);
    }
    if (q->kind == TRACE_OBJECT) {
        const char *name = slc_pack_get_string(f->pack, slc_pack_get_object(f->pack, (slc_object_id){q->id})->name);
        snprintf(buf, cap, "object %u%s%s%s LOD %u%s", q->id, *name ? " '" : "", name, *name ? "'" : "", q->lod, where);
    } else {
        char place[128];
        run_describe_chunk_place(f->pack, (slc_chunk_id){q->id}, place, sizeof place);
        snprintf(buf, cap, "chunk %u%s%s", q->id, place, where);
    }
}

static void print_break(const fit *f, const char *what, const fit_break *b, const char *limit_name)
{
    char req[256];
    describe_req(f, b, req, sizeof req);
    printf("  %s: frame %u, %s: partition '%s' needs %" PRIu64 " pages, %s %" PRIu64 "\n", what, b->frame, req,
           f->part_name[b->part], b->value, limit_name, b->limit);
}

static void report_text(const fit *f, verdict v)
{
    char sz[32], sz2[32];
    const slc_pack_header *h = slc_pack_get_header(f->pack);
    printf("profile: %s (%s): %u pages of %s, frames_in_flight %u, queue_capacity %u, pin_coarsest %u, eviction %s\n",
           f->prof.name, f->o.profile_path, f->prof.page_count, cli_size(f->prof.page_size, sz, sizeof sz),
           f->prof.frames_in_flight, f->prof.queue_capacity, f->prof.pin_coarsest,
           slc_profile_policy_name(f->prof.eviction));
    printf("pack: %s: %u chunks, %u objects, %s pages\n", f->pack_name, h->chunk_count, h->object_count,
           cli_size(h->page_size, sz2, sizeof sz2));
    printf("workload: %s: %u frames, %zu requests\n", f->wl.describe, f->frames, f->wl.given);
    printf("partitions:");
    for (uint32_t p = 0; p < f->nparts; p++) {
        printf("%s %s %u pages%s", p ? "," : "", f->part_name[p], f->part_pages[p], p == f->pin_part ? " (pins)" : "");
    }
    printf("\n");
    printf("pinned: %u pages in '%s' (pin_coarsest %u) of %u\n", f->pinned, f->part_name[f->pin_part],
           f->prof.pin_coarsest, f->part_pages[f->pin_part]);
    for (uint32_t p = 0; p < f->nparts; p++) {
        printf("working set '%s': worst %" PRIu64 " of %u pages at frame %u\n", f->part_name[p], f->w[p].value,
               f->part_pages[p], f->w[p].frame);
        uint32_t end = f->u[p].frame;
        uint32_t start = end > f->prof.frames_in_flight ? end - f->prof.frames_in_flight : 0;
        printf("in flight '%s': worst %" PRIu64 " of %u pages over frames %u..%u\n", f->part_name[p], f->u[p].value,
               f->part_pages[p], start, end);
    }
    printf("new chunks: worst %" PRIu64 " at frame %u, upload cap %u pages a frame (through a staging belt %u); "
           "first requests: worst %" PRIu64 " at frame %u\n",
           f->newc.value, f->newc.frame, f->cap_pages, f->belt_cap_pages, f->firstc.value, f->firstc.frame);
    printf("requests: worst %" PRIu64 " object requests at frame %u, %" PRIu64 " distinct chunks at frame %u, "
           "queue_capacity %u; %" PRIu64 " refused\n",
           f->objreqs.value, f->objreqs.frame, f->distinct.value, f->distinct.frame, f->prof.queue_capacity,
           f->refused);
    printf("transient: %" PRIu64 " of %" PRIu64 " object requests ask for a chunk the frame before did not "
           "(at most these show a coarser level, or nothing without pinning, when the workload holds)\n",
           f->transient, f->object_requests);
    if (f->textures > 0 && f->tex_nparts <= 1) {
        uint32_t end = f->tex_u[0].frame;
        uint32_t start = end > f->prof.frames_in_flight ? end - f->prof.frames_in_flight : 0;
        printf("texture pool: %u pages, %u pinned (mip tails of %u textures); working set worst %" PRIu64
               " at frame %u, in flight worst %" PRIu64 " over frames %u..%u; %" PRIu64
               " tile requests (in the queues and the upload cap too)\n",
               f->prof.texture_page_count, f->tex_pinned, f->textures, f->tex_w[0].value, f->tex_w[0].frame,
               f->tex_u[0].value, start, end, f->tile_requests);
    } else if (f->textures > 0) {
        /* [texture_partitions]: each partition's figures, the tails in the pin partition. */
        printf("texture pool: %u pages, %u pinned (mip tails of %u textures) in '%s'; %" PRIu64
               " tile requests (in the queues and the upload cap too); partitions:",
               f->prof.texture_page_count, f->tex_pinned, f->textures, f->tex_part_name[f->tex_pin_part],
               f->tile_requests);
        for (uint32_t p = 0; p < f->tex_nparts; p++) {
            printf("%s %s %u pages", p ? "," : "", f->tex_part_name[p], f->tex_part_pages[p]);
        }
        printf("\n");
        for (uint32_t p = 0; p < f->tex_nparts; p++) {
            uint32_t end = f->tex_u[p].frame;
            uint32_t start = end > f->prof.frames_in_flight ? end - f->prof.frames_in_flight : 0;
            printf("texture pool '%s': working set worst %" PRIu64 " of %u pages at frame %u, in flight worst %" PRIu64
                   " over frames %u..%u\n",
                   f->tex_part_name[p], f->tex_w[p].value, f->tex_part_pages[p], f->tex_w[p].frame, f->tex_u[p].value,
                   start, end);
        }
    }
    if (f->textures > 0) {
        printf("new tiles: worst %" PRIu64 " at frame %u, tile cap %u a frame%s\n", f->newt.value, f->newt.frame,
               f->tile_cap_pages,
               f->prof.texture_staging_size != 0 ? " ([textures] staging_size)" : " (no tile belt: the upload cap)");
    }
    printf("verdict: %s\n", verdict_name(v));
    if (f->pin_b.broken) {
        printf("  pinned: partition '%s' needs %" PRIu64 " pages for the pinned levels, has %" PRIu64 "\n",
               f->part_name[f->pin_b.part], f->pin_b.value, f->pin_b.limit);
    }
    if (tool_texture_pool_missing(f->pack, &f->prof, NULL)) {
        printf("  texture pool: the pack has %u textures, but the profile declares no texture pool ([textures] "
               "page_count): the stream refuses to start\n",
               f->textures);
    }
    if (f->tex_pin_b.broken && f->tex_nparts <= 1) {
        printf("  texture pool: the mip tails need %" PRIu64 " pages, the pool has %" PRIu64
               ": the stream refuses to start\n",
               f->tex_pin_b.value, f->tex_pin_b.limit);
    } else if (f->tex_pin_b.broken) {
        printf("  texture pool: the mip tails need %" PRIu64 " pages, its partition '%s' has %" PRIu64
               ": the stream refuses to start\n",
               f->tex_pin_b.value, f->tex_part_name[f->tex_pin_b.part], f->tex_pin_b.limit);
    }
    if (f->cap_pages == 0) {
        printf("  upload cap: upload_per_frame %" PRIu64 " B is less than one page: the stream refuses to start\n",
               f->prof.upload_cap);
    }
    if (f->textures > 0 && f->prof.texture_page_count > 0 && f->cap_pages != 0 && f->tile_cap_pages == 0) {
        printf("  tile cap: [textures] staging_size %" PRIu64
               " B holds less than a page for each frame a slot stays taken: the stream refuses to start\n",
               f->prof.texture_staging_size);
    }
    if (f->queue_b.broken) {
        char req[256];
        describe_req(f, &f->queue_b, req, sizeof req);
        printf("  requests: frame %u, %s refused: %" PRIu64 " %s, queue_capacity %" PRIu64 "\n", f->queue_b.frame, req,
               f->queue_b.value, f->queue_what, f->queue_b.limit);
    }
    if (f->hole_b.broken) {
        print_break(f, "chunk request without fallback", &f->hole_b, "has");
    }
    if (f->w_b.broken) {
        print_break(f, "working set", &f->w_b, "has");
    }
    if (f->u_b.broken) {
        print_break(f, "in flight", &f->u_b, "has");
    }
    const fit_break *tb[2] = {&f->tex_w_b, &f->tex_u_b};
    for (int i = 0; i < 2; i++) {
        if (tb[i]->broken) {
            char req[256];
            describe_req(f, tb[i], req, sizeof req);
            char in[SLC_NAME_MAX + 24] = "";
            if (f->tex_nparts > 1) {
                snprintf(in, sizeof in, " in partition '%s'", f->tex_part_name[tb[i]->part]);
            }
            printf("  texture pool %s: frame %u, %s: %" PRIu64 " pages%s, has %" PRIu64
                   " (tiles not resident fall back to a coarser level)\n",
                   i ? "in flight" : "working set", tb[i]->frame, req, tb[i]->value, in, tb[i]->limit);
        }
    }
    if (f->new_b.broken) {
        char req[256];
        describe_req(f, &f->new_b, req, sizeof req);
        printf("  upload: frame %u, %s: %" PRIu64 " new chunks, upload cap %" PRIu64 " pages\n", f->new_b.frame, req,
               f->new_b.value, f->new_b.limit);
    }
    if (f->tile_new_b.broken) {
        char req[256];
        describe_req(f, &f->tile_new_b, req, sizeof req);
        printf("  tile upload: frame %u, %s: %" PRIu64 " new tiles, tile cap %" PRIu64
               " a frame ([textures] staging_size)\n",
               f->tile_new_b.frame, req, f->tile_new_b.value, f->tile_new_b.limit);
    }
    if ((f->w_b.broken || f->u_b.broken) && f->prof.pin_coarsest == 0) {
        printf("  no fallback: pin_coarsest is 0, so nothing guarantees a coarser level is resident\n");
    }
}

/* b's partition is names[b->part] (the pool's it broke in). */
static void json_break(const fit *f, const char *key, const fit_break *b, const char *const *names)
{
    printf(",\n    ");
    esc_json(stdout, key);
    if (!b->broken) {
        printf(": null");
        return;
    }
    char req[256];
    describe_req(f, b, req, sizeof req);
    printf(": {\"frame\": %u, \"partition\": ", b->frame);
    esc_json(stdout, names[b->part]);
    printf(", \"request\": ");
    esc_json(stdout, req);
    printf(", \"value\": %" PRIu64 ", \"limit\": %" PRIu64 "}", b->value, b->limit);
}

/* One partition's object, after sep: its name, pages and worst W and U. */
static void json_partition(const char *sep, const char *name, uint32_t pages, const fit_worst *w, const fit_worst *u)
{
    printf("%s{\"name\": ", sep);
    esc_json(stdout, name);
    printf(", \"pages\": %u, \"working_set\": {\"worst\": %" PRIu64 ", \"frame\": %u}, "
           "\"in_flight\": {\"worst\": %" PRIu64 ", \"frame\": %u}}",
           pages, w->value, w->frame, u->value, u->frame);
}

static void report_json(const fit *f, verdict v)
{
    const slc_pack_header *h = slc_pack_get_header(f->pack);
    printf("{\n  \"profile\": ");
    esc_json(stdout, f->prof.name);
    printf(", \"pack\": ");
    esc_json(stdout, f->pack_name);
    printf(", \"workload\": ");
    esc_json(stdout, f->wl.describe);
    printf(",\n  \"frames\": %u, \"requests\": %zu, \"chunks\": %u, \"objects\": %u,\n", f->frames, f->wl.given,
           h->chunk_count, h->object_count);
    printf("  \"page_count\": %u, \"frames_in_flight\": %u, \"queue_capacity\": %u, \"pin_coarsest\": %u,\n",
           f->prof.page_count, f->prof.frames_in_flight, f->prof.queue_capacity, f->prof.pin_coarsest);
    printf("  \"pinned\": {\"partition\": ");
    esc_json(stdout, f->part_name[f->pin_part]);
    printf(", \"pages\": %u, \"partition_pages\": %u},\n  \"partitions\": [", f->pinned, f->part_pages[f->pin_part]);
    for (uint32_t p = 0; p < f->nparts; p++) {
        json_partition(p ? ",\n    " : "\n    ", f->part_name[p], f->part_pages[p], &f->w[p], &f->u[p]);
    }
    printf("\n  ],\n");
    printf("  \"new_chunks\": {\"worst\": %" PRIu64 ", \"frame\": %u, \"upload_cap_pages\": %u, "
           "\"staging_belt_cap_pages\": %u},\n",
           f->newc.value, f->newc.frame, f->cap_pages, f->belt_cap_pages);
    printf("  \"new_tiles\": {\"worst\": %" PRIu64 ", \"frame\": %u, \"tile_cap_pages\": %u},\n", f->newt.value,
           f->newt.frame, f->tile_cap_pages);
    printf("  \"first_requests\": {\"worst\": %" PRIu64 ", \"frame\": %u},\n", f->firstc.value, f->firstc.frame);
    printf("  \"requests_per_frame\": {\"objects\": %" PRIu64 ", \"objects_frame\": %u, \"distinct_chunks\": %" PRIu64
           ", \"distinct_chunks_frame\": %u, \"queue_capacity\": %u, \"refused\": %" PRIu64 "},\n",
           f->objreqs.value, f->objreqs.frame, f->distinct.value, f->distinct.frame, f->prof.queue_capacity,
           f->refused);
    printf("  \"object_requests\": %" PRIu64 ", \"transient\": %" PRIu64 ", \"tile_requests\": %" PRIu64 ",\n",
           f->object_requests, f->transient, f->tile_requests);
    /* working_set and in_flight: the pin partition's (the whole pool's without [texture_partitions]). */
    const uint32_t tp = f->tex_pin_part;
    printf("  \"texture_pool\": {\"textures\": %u, \"pages\": %u, \"pinned\": %u, \"working_set\": {\"worst\": %" PRIu64
           ", \"frame\": %u}, \"in_flight\": {\"worst\": %" PRIu64 ", \"frame\": %u}, \"partitions\": [",
           f->textures, f->prof.texture_page_count, f->tex_pinned, f->tex_w[tp].value, f->tex_w[tp].frame,
           f->tex_u[tp].value, f->tex_u[tp].frame);
    for (uint32_t p = 0; p < f->tex_nparts; p++) {
        json_partition(p ? ", " : "", f->tex_part_name[p], f->tex_part_pages[p], &f->tex_w[p], &f->tex_u[p]);
    }
    printf("]},\n");
    printf("  \"verdict\": ");
    esc_json(stdout, verdict_name(v));
    printf(",\n  \"breaks\": {\n    \"upload_cap_below_page\": %s", f->cap_pages == 0 ? "true" : "false");
    json_break(f, "pinned", &f->pin_b, f->part_name);
    json_break(f, "requests", &f->queue_b, f->part_name);
    json_break(f, "chunk_without_fallback", &f->hole_b, f->part_name);
    json_break(f, "working_set", &f->w_b, f->part_name);
    json_break(f, "in_flight", &f->u_b, f->part_name);
    json_break(f, "upload", &f->new_b, f->part_name);
    json_break(f, "tile_upload", &f->tile_new_b, f->tex_part_name);
    printf(",\n    \"texture_pool_missing\": %s",
           tool_texture_pool_missing(f->pack, &f->prof, NULL) ? "true" : "false");
    json_break(f, "texture_pinned", &f->tex_pin_b, f->tex_part_name);
    json_break(f, "texture_working_set", &f->tex_w_b, f->tex_part_name);
    json_break(f, "texture_in_flight", &f->tex_u_b, f->tex_part_name);
    printf("\n  }\n}\n");
}

static void fit_close(fit *f)
{
    workload_close(&f->wl);
    tool_session_close(&f->ses);
    f->mem = NULL;
    f->pack = NULL;
}

int cmd_budget_fit(int argc, char **argv)
{
    static fit f; /* one fit a process */
    memset(&f, 0, sizeof f);
    int rc = parse_args(argc, argv, &f.o);
    if (rc != CLI_OK) {
        return rc == CLI_ARGS_HELP ? CLI_OK : rc;
    }
    if ((rc = cli_load_profile(f.o.profile_path, &f.prof)) != CLI_OK) {
        return rc;
    }
    layout_partitions(&f);
    if ((rc = open_pack(&f)) == CLI_OK && (rc = load_workload(&f)) == CLI_OK && (rc = check(&f)) == CLI_OK) {
        verdict v = judge(&f);
        if (f.o.json) {
            report_json(&f, v);
        } else {
            report_text(&f, v);
        }
        rc = v == V_HOLDS ? CLI_OK : v == V_NOT ? FIT_NOT_HOLD : FIT_SOFT;
    }
    fit_close(&f);
    return rc;
}
