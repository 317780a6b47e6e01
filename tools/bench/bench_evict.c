/* SPDX-License-Identifier: MIT */
/* sluice bench evict: eviction policies against Belady's optimum (OPT) on
 * one request sequence.
 *
 * The request sequence. The workload (a trace, or the built-in camera capped
 * at queue_capacity as `sluice run` makes it: workload.h) is turned into
 * what the stream asks the pool for, frame by frame, by the stream's own
 * rules (sluice/stream.h): requests are accepted as slc_stream_admit
 * decides (all or nothing, queue_capacity object requests and distinct
 * chunks a frame); an object request stands for the chunks of its LOD's
 * spans; a frame's chunks are de-duplicated (a chunk keeps the highest
 * priority it was asked at and the partition of its first request) and
 * ordered by priority, highest first, then chunk id. Each entry carries the
 * chunk, its priority, its LOD (the pack's chunk record) and its partition.
 * The chunks slc_stream_create pins (slc_stream_pin_iter) are not in the
 * sequence: they hold their pages in the pin partition for the whole run,
 * which is that much smaller for everything else.
 *
 * A pack with textures gives two sequences, one a pool, as the stream
 * routes chunks (slc_pool_kind_of_chunk_flags): geometry chunks in the
 * geometry pool, texture tiles in the texture pool ([textures] page_count
 * pages, one partition; every mip tail pinned there), each replayed and
 * reported on its own (the texture pool's table second, "texture_pool" in
 * --json). Admission counts both, as the stream's does.
 *
 * The replay model. Every policy and OPT see exactly that sequence: frame
 * 1 holds the pinned chunks, the workload's frames are 2, 3, ...; in each,
 * every entry is served in order: a resident chunk is a hit (touched at its
 * priority), any other is a load (a page of its partition, free or evicted,
 * written at once). There is no upload cap and no fallback, so a policy's
 * choices never change what is asked later. The pool's safe-frame rule is
 * kept: a page used in the last frames_in_flight frames is not evictable
 * (sluice/pool.h). A load that finds no free or evictable page is counted as
 * busy and skipped; with every request served, the pages in use by the last
 * frames are the same whatever the policy, so busy is too.
 *
 * Replays. The pool's own policies (lru, priority) run through the real
 * slc_pool on a host store of tiny pages. OPT evicts, among the evictable
 * pages, the one whose chunk is next used furthest in the future (never:
 * furthest of all, ties by the lower chunk id): next uses come from one
 * backward pass over the sequence, the victim from a max-heap keyed by next
 * use (lazy deletion), pages not yet safe waiting in a FIFO ordered by last
 * use: O(log n) a request. Candidate policies (sim-*) run in a small
 * simulator of the same pool (the same free-page order, safe-frame rule and
 * counts) that finds each victim by a scan of the partition's pages: O(n)
 * an eviction, fine for measuring, not for the runtime. Its sim-lru and
 * sim-priority must give the pool's loads exactly (checked: a difference
 * fails the run).
 *
 * What the candidates say (each sim_policy's comment defines it). On the
 * fly camera the reuses that LRU misses are the figure-eight's returns, 225
 * to 300 frames after a chunk left the view, beyond what LRU's pool keeps
 * (about 145 frames of departures at the default profile); OPT keeps part
 * of them. Policies that count uses or favour coarse levels (LRU-2, 2Q,
 * frequency, LOD or priority weights, object recency) do not help, since a
 * camera touches every visible chunk every frame; what helps is treating a
 * run of consecutive frames as one reference: sim-predict (evict the page
 * predicted back furthest, from the chunk's last gap between such runs) and
 * sim-aged (LRU for what left the view lately, MRU for what left long ago,
 * nothing kept past a horizon; no per-chunk history).
 *
 * The real stream. Unless --no-stream, each pool policy also streams the
 * workload through `sluice run`'s context (run.h: the host backend, the
 * profile's upload cap, deferrals and fallbacks) and its loads are printed
 * beside the replay's, tying the model to what the stream does.
 *
 * Memory. Unlike `sluice run`, this tool keeps the whole sequence (12 bytes
 * an entry, plus 4 for its next use): OPT needs the future. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cli.h"
#include "cli_args.h"
#include "escape.h"
#include "run.h"
#include "session.h"
#include "sluice/host_store.h"
#include "sluice/pack.h"
#include "sluice/platform.h"
#include "sluice/pool.h"
#include "sluice/stream.h"
#include "workload.h"

#define ME "sluice bench evict"
#define EV_NEVER UINT32_MAX
#define EV_PARTS SLC_POOL_PARTITION_MAX
#define EV_HOST_PAGE 64u

static const char usage_text[] =
    "usage: sluice bench evict PACK [--trace FILE | --camera fly|orbit|teleport|closeup] [options]\n"
    "\n"
    "Replays a workload's request sequence through each eviction policy and through\n"
    "Belady's optimum (OPT) with the same pool, pinned pages and frames-in-flight rule (a\n"
    "page used in the last frames_in_flight frames cannot be evicted), and prints loads,\n"
    "hits and the ratio to OPT per policy. The sequence: per frame, the distinct chunks\n"
    "the stream asks the pool for, in its order (priority, then chunk id), pinned chunks\n"
    "left out; every miss loads at once (no upload cap, no fallback), so every policy sees\n"
    "the same sequence. lru and priority replay through the real pool; sim-* are candidate\n"
    "policies in a simulator. Unless --no-stream, each pool policy also streams the\n"
    "workload as `sluice run` does (host backend, real caps) and its loads are shown.\n"
    "The whole sequence is kept in memory (16 bytes a chunk request): OPT needs the future.\n"
    "\n"
    "options:\n";

static const char usage_tail[] = "  -h, --help            this text\n"
                                 "\n"
                                 "exit codes: 0 ok; 1 input judged bad (profile, pack, trace); 2 bad command line;\n"
                                 "3 a file not readable\n";

#define EV_USAGE "usage: sluice bench evict PACK [options] (sluice bench evict --help: every option)\n"

/* --- the request sequence ---------------------------------------------------------------- */

typedef struct ev_req {
    uint32_t chunk;
    uint8_t priority, lod, part, reserved;
    uint32_t object; /* the chunk's first object (sim-object) */
} ev_req;

typedef struct ev_seq {
    ev_req *r;
    size_t n, cap;
    uint32_t *frame_end; /* frame k's entries end at frame_end[k] */
    uint32_t frames, frames_cap;
    uint32_t *next; /* index of the chunk's next entry, EV_NEVER */
    uint32_t nchunks, nobjects;
    uint8_t *pinned;    /* chunk -> 1 when pinned */
    uint32_t *pin_list; /* pinned chunks in id order */
    uint32_t pin_count;
    uint32_t part_count, pin_part;
    uint32_t part_pages[EV_PARTS];
    uint32_t part_pinned[EV_PARTS];
    uint64_t refused;  /* requests the stream would refuse (queue_capacity) */
    uint64_t distinct; /* distinct chunks in the sequence: loads no policy avoids */
    uint32_t kind;     /* the pool it is asked of: SLC_POOL_GEOMETRY or SLC_POOL_TEXTURES */
    uint32_t pages;    /* that pool's pages */
} ev_seq;

static void seq_free(ev_seq *s)
{
    free(s->r);
    free(s->frame_end);
    free(s->next);
    free(s->pinned);
    free(s->pin_list);
    memset(s, 0, sizeof *s);
}

static int seq_push(ev_seq *s, const ev_req *q)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 4096;
        if (cap >= EV_NEVER) { /* entries are indexed by uint32_t */
            return -1;
        }
        ev_req *r = realloc(s->r, cap * sizeof *r);
        if (r == NULL) {
            return -1;
        }
        s->r = r;
        s->cap = cap;
    }
    s->r[s->n++] = *q;
    return 0;
}

static int seq_end_frame(ev_seq *s)
{
    if (s->frames == s->frames_cap) {
        uint32_t cap = s->frames_cap ? s->frames_cap * 2 : 256;
        uint32_t *e = realloc(s->frame_end, cap * sizeof *e);
        if (e == NULL) {
            return -1;
        }
        s->frame_end = e;
        s->frames_cap = cap;
    }
    s->frame_end[s->frames++] = (uint32_t)s->n;
    return 0;
}

static int cmp_req(const void *a, const void *b)
{
    const ev_req *x = a, *y = b;
    if (x->priority != y->priority) {
        return x->priority > y->priority ? -1 : 1;
    }
    return x->chunk < y->chunk ? -1 : x->chunk > y->chunk;
}

/* What a recording needs open: the profile, the session (the pack opened as
 * run opens it, into the profile's cpu/meta arena), the workload and a pool
 * laid out by the profile (its partitions). */
typedef struct ev_src {
    slc_profile prof;
    const char *pack_name;
    tool_session ses; /* the pack file, the memory block, the memory, the pack */
    const slc_pack *pack;
    workload wl;
    int wl_open;
} ev_src;

static void src_close(ev_src *c)
{
    if (c->wl_open) {
        workload_close(&c->wl);
    }
    tool_session_close(&c->ses);
    memset(c, 0, sizeof *c);
}

static int src_open(ev_src *c, const run_opts *o)
{
    int rc = cli_load_profile(o->profile_path, &c->prof);
    if (rc != CLI_OK) {
        return rc;
    }
    c->pack_name = strrchr(o->pack_path, '/') ? strrchr(o->pack_path, '/') + 1 : o->pack_path;
    const tool_session_desc sd = {.me = ME,
                                  .profile = &c->prof,
                                  .pack_path = o->pack_path,
                                  .file_flags = SLC_PLATFORM_FILE_DEFAULT,
                                  .pack_name = c->pack_name,
                                  .profile_path = o->profile_path};
    tool_session_step step = tool_session_open(&sd, &c->ses);
    c->pack = c->ses.pack;
    if (step == TOOL_SESSION_PACK) {
        fprintf(stderr, ME ": pack '%s' cannot be used with profile '%s' (see above)\n", c->pack_name, c->prof.name);
    }
    if (step != TOOL_SESSION_OPEN) { /* else printed or logged */
        return tool_session_exit_code(step);
    }
    camera_desc cam = o->cam;
    cam.max_requests = c->prof.queue_capacity;
    cam.max_chunks = c->prof.queue_capacity;
    c->wl_open = 1;
    return workload_open(&c->wl, ME, o->trace_path, &cam, c->pack, c->pack_name);
}

/* --- a pool on a host store of tiny pages ------------------------------------------------ */

typedef struct ev_pool {
    void *store_mem, *pool_mem;
    slc_page_store store;
    slc_pool *pool;
} ev_pool;

static void evp_free(ev_pool *p)
{
    if (p->store.ops != NULL) {
        slc_host_store_deinit(&p->store);
    }
    free(p->pool_mem);
    free(p->store_mem);
    memset(p, 0, sizeof *p);
}

static void *alloc64(size_t size)
{
    void *p = aligned_alloc(SLC_POOL_ALIGN, (size + SLC_POOL_ALIGN - 1u) & ~(size_t)(SLC_POOL_ALIGN - 1u));
    if (p != NULL) {
        memset(p, 0, size);
    }
    return p;
}

/* The profile's pool of kind (partitions, frames in flight, max_chunks:
 * slc_pool_spec_from_profile) with the given policy. CLI_OK, or CLI_FAILED
 * (printed). */
static int evp_init(ev_pool *p, const slc_profile *prof, uint32_t kind, uint32_t policy)
{
    memset(p, 0, sizeof *p);
    slc_pool_spec spec;
    slc_pool_spec_from_profile(prof, kind, &spec);
    const uint32_t pages = spec.pool.page_count;
    size_t sfp = slc_host_store_footprint(pages, EV_HOST_PAGE);
    p->store_mem = sfp ? alloc64(sfp) : NULL;
    if (p->store_mem == NULL || slc_host_store_init_at(p->store_mem, sfp, NULL, SLC_BUDGET_NONE, pages, EV_HOST_PAGE,
                                                       &cli_stderr_logger, &p->store) != SLC_OK) {
        fprintf(stderr, ME ": a host store of %u pages cannot be made\n", pages);
        return CLI_FAILED;
    }
    slc_pool_desc d = spec.pool;
    d.eviction = (slc_eviction_policy)policy;
    d.log_capacity = 1;
    size_t fp = slc_pool_footprint(&d);
    p->pool_mem = fp ? alloc64(fp) : NULL;
    if (p->pool_mem == NULL || slc_pool_init(p->pool_mem, fp, &d, &p->store, &cli_stderr_logger, &p->pool) != SLC_OK) {
        fprintf(stderr, ME ": the profile's pool cannot be made (see above)\n");
        return CLI_FAILED;
    }
    return CLI_OK;
}

/* The pool of kind's partitions and the chunks slc_stream_create pins in
 * it into s: the coarsest levels (slc_stream_pin_iter) in the geometry
 * pool, every texture's mip tail (slc_pack_texture_tail) in the texture
 * pool. */
static int seq_layout(ev_seq *s, ev_src *c, uint32_t kind)
{
    ev_pool p;
    s->kind = kind;
    s->nchunks = slc_pack_get_header(c->pack)->chunk_count;
    s->nobjects = slc_pack_get_header(c->pack)->object_count;
    if (kind == SLC_POOL_TEXTURES && !slc_pool_kind_declared(&c->prof, SLC_POOL_TEXTURES)) {
        /* No texture pool: nothing to lay out (a pack with textures is refused). */
        s->pinned = calloc(s->nchunks + 1u, 1);
        s->pin_list = malloc(sizeof *s->pin_list);
        return s->pinned != NULL && s->pin_list != NULL ? CLI_OK : CLI_FAILED;
    }
    int rc = evp_init(&p, &c->prof, kind, SLC_EVICTION_LRU);
    if (rc != CLI_OK) {
        evp_free(&p);
        return rc;
    }
    slc_pool_stats ps;
    slc_pool_get_stats(p.pool, &ps);
    s->pages = ps.page_count;
    s->part_count = ps.partition_count;
    for (uint32_t k = 0; k < ps.partition_count; k++) {
        slc_pool_partition_stats st;
        slc_pool_get_partition_stats(p.pool, (slc_partition){(uint16_t)k}, &st);
        s->part_pages[k] = st.page_count;
    }
    slc_partition pin;
    s->pin_part = slc_pool_scan_partition(p.pool, SLC_PROFILE_PARTITION_DEFAULT_NAME, &pin) == SLC_OK ? pin.index : 0;
    evp_free(&p);
    s->pinned = calloc(s->nchunks + 1u, 1);
    if (s->pinned == NULL) {
        return CLI_FAILED;
    }
    if (kind == SLC_POOL_GEOMETRY) {
        slc_stream_pin_iter it;
        slc_stream_pin_iter_init(&it, c->pack, c->prof.pin_coarsest);
        slc_chunk_id ch = {0};
        while (slc_stream_pin_iter_next(&it, &ch)) {
            s->pin_count += !s->pinned[ch.index];
            s->pinned[ch.index] = 1;
        }
    }
    if (kind == SLC_POOL_TEXTURES) {
        s->pin_count = tool_mark_texture_tails(c->pack, s->pinned, NULL);
    }
    s->pin_list = malloc(((size_t)s->pin_count + 1u) * sizeof *s->pin_list);
    if (s->pin_list == NULL) {
        return CLI_FAILED;
    }
    uint32_t k = 0;
    for (uint32_t i = 0; i < s->nchunks; i++) {
        if (s->pinned[i]) {
            s->pin_list[k++] = i;
        }
    }
    s->part_pinned[s->pin_part] = s->pin_count;
    if (s->pin_count > s->part_pages[s->pin_part]) {
        fprintf(stderr, ME ": %u pinned chunks do not fit the %s pool's partition %u of %u pages\n", s->pin_count,
                slc_pool_kind_name(kind), s->pin_part, s->part_pages[s->pin_part]);
        return CLI_FAILED;
    }
    return CLI_OK;
}

/* The partition of the trace's partition of q, in the pool q's chunks go to
 * (a tile's: the texture pool's), by name, as run resolves it. */
static int req_partition(ev_src *c, const trace_req *q, uint32_t *out)
{
    if (q->partition == TRACE_PARTITION_DEFAULT) {
        *out = 0;
        return CLI_OK;
    }
    const slc_pool_kind kind = workload_req_pool(c->pack, q);
    const char *name = workload_partition(&c->wl, q->partition);
    int k = tool_pool_partition_index(&c->prof, kind, name);
    if (k < 0) {
        fprintf(stderr, "%s:%u: partition '%s' is not in profile '%s'%s\n", c->wl.trace_path, q->line, name,
                c->prof.name, kind == SLC_POOL_TEXTURES ? " ([texture_partitions])" : "");
        return CLI_FAILED;
    }
    *out = (uint32_t)k;
    return CLI_OK;
}

static int seq_next_uses(ev_seq *s);

/* Records the whole sequence (see the top of the file), each chunk into
 * the sequence of its pool's kind (slc_pool_kind_of_chunk_flags): seqs[k]
 * is SLC_POOL_GEOMETRY's or SLC_POOL_TEXTURES's, laid out (seq_layout). */
static int seq_record(ev_seq seqs[SLC_POOL_KIND_COUNT], ev_src *c)
{
    ev_seq *s = &seqs[SLC_POOL_GEOMETRY];
    const uint32_t cap = c->prof.queue_capacity;
    uint32_t *stamp = calloc(s->nchunks + 1u, sizeof *stamp);
    uint32_t *slot = calloc(s->nchunks + 1u, sizeof *slot);
    int rc = stamp != NULL && slot != NULL ? CLI_OK : CLI_FAILED;
    for (uint32_t f = 0; rc == CLI_OK && workload_has_frame(&c->wl, f); f++) {
        size_t first[SLC_POOL_KIND_COUNT];
        for (uint32_t k = 0; k < SLC_POOL_KIND_COUNT; k++) {
            first[k] = seqs[k].n;
        }
        uint32_t objreqs = 0, distinct = 0;
        trace_req q;
        int k = 0;
        while (rc == CLI_OK && (k = workload_next(&c->wl, f, &q)) == 1) {
            uint32_t part = 0;
            if ((rc = req_partition(c, &q, &part)) != CLI_OK) {
                break;
            }
            uint32_t n = 1, first_span = 0;
            if (q.kind == TRACE_OBJECT) {
                const slc_pack_object *o = slc_pack_get_object(c->pack, (slc_object_id){q.id});
                const slc_pack_lod *l = slc_pack_get_lod(c->pack, o->first_lod + q.lod);
                n = l->span_count;
                first_span = l->first_span;
            }
            uint32_t fresh = 0;
            for (uint32_t j = 0; j < n; j++) {
                uint32_t ch = q.kind == TRACE_OBJECT ? slc_pack_get_span(c->pack, first_span + j)->chunk : q.id;
                fresh += stamp[ch] != f + 1u;
            }
            if (slc_stream_admit(cap, objreqs, distinct, q.kind == TRACE_OBJECT, fresh) != SLC_STREAM_ADMITTED) {
                s->refused++;
                continue;
            }
            objreqs += q.kind == TRACE_OBJECT;
            for (uint32_t j = 0; j < n; j++) {
                uint32_t ch = q.kind == TRACE_OBJECT ? slc_pack_get_span(c->pack, first_span + j)->chunk : q.id;
                const slc_pack_chunk *pc = slc_pack_get_chunk(c->pack, (slc_chunk_id){ch});
                ev_seq *ks = &seqs[slc_pool_kind_of_chunk_flags(pc->flags)];
                if (stamp[ch] == f + 1u) {
                    if (slot[ch] != EV_NEVER && ks->r[slot[ch]].priority < q.priority) {
                        ks->r[slot[ch]].priority = q.priority;
                    }
                    continue;
                }
                stamp[ch] = f + 1u;
                distinct++;
                slot[ch] = EV_NEVER;
                if (ks->pinned[ch]) {
                    continue;
                }
                ev_req e = {ch, q.priority, pc->lod, (uint8_t)part, 0, pc->first_object};
                slot[ch] = (uint32_t)ks->n;
                if (seq_push(ks, &e) != 0) {
                    fprintf(stderr, ME ": out of memory for the request sequence\n");
                    rc = CLI_FAILED;
                    break;
                }
            }
        }
        if (rc == CLI_OK && k < 0) {
            rc = c->wl.rc;
        }
        for (uint32_t kk = 0; rc == CLI_OK && kk < SLC_POOL_KIND_COUNT; kk++) {
            ev_seq *ks = &seqs[kk];
            if (ks->n > first[kk]) {
                qsort(ks->r + first[kk], ks->n - first[kk], sizeof *ks->r, cmp_req);
            }
            if (seq_end_frame(ks) != 0) {
                fprintf(stderr, ME ": out of memory for the request sequence\n");
                rc = CLI_FAILED;
            }
        }
    }
    free(stamp);
    free(slot);
    seqs[SLC_POOL_TEXTURES].refused = s->refused;
    for (uint32_t kk = 0; rc == CLI_OK && kk < SLC_POOL_KIND_COUNT; kk++) {
        rc = seq_next_uses(&seqs[kk]);
    }
    return rc;
}

/* Each entry's next use, by one backward pass. */
static int seq_next_uses(ev_seq *s)
{
    s->next = malloc((s->n + 1u) * sizeof *s->next);
    uint32_t *last = malloc(((size_t)s->nchunks + 1u) * sizeof *last);
    if (s->next == NULL || last == NULL) {
        free(last);
        free(s->next);
        s->next = NULL;
        fprintf(stderr, ME ": out of memory for the request sequence\n");
        return CLI_FAILED;
    }
    for (uint32_t i = 0; i < s->nchunks; i++) {
        last[i] = EV_NEVER;
    }
    for (size_t i = s->n; i-- > 0;) {
        s->distinct += last[s->r[i].chunk] == EV_NEVER;
        s->next[i] = last[s->r[i].chunk];
        last[s->r[i].chunk] = (uint32_t)i;
    }
    free(last);
    return CLI_OK;
}

/* --- results ----------------------------------------------------------------------------- */

typedef struct ev_result {
    const char *name;
    const char *kind; /* "optimum", "pool", "simulated" */
    uint64_t loads, hits, busy;
    uint64_t trail; /* of every load's page and chunk, in order (load_trail): twins agree page by page */
    int has_stream;
    uint64_t stream_loads, stream_hits, stream_deferred, stream_fallbacks;
} ev_result;

/* A load of chunk into page, folded into r's trail (FNV-1a's step over
 * the pair), so that two replays that load the same chunks into the same
 * pages in the same order, and only those, have the same trail. */
static void load_trail(ev_result *r, uint32_t page, uint32_t chunk)
{
    r->trail = (r->trail ^ ((uint64_t)page << 32 | chunk)) * 0x100000001b3u;
}

/* --- the real pool ----------------------------------------------------------------------- */

static int replay_pool(const ev_seq *s, const slc_profile *prof, uint32_t policy, ev_result *out)
{
    ev_pool p;
    int rc = evp_init(&p, prof, s->kind, policy);
    slc_status st = SLC_OK;
    if (rc == CLI_OK) {
        st = slc_pool_begin_frame(p.pool, NULL);
        for (uint32_t i = 0; st == SLC_OK && i < s->pin_count; i++) {
            slc_pool_request q = {{s->pin_list[i]}, {(uint16_t)s->pin_part}, 0, 0};
            slc_page pg;
            void *dst = NULL;
            if ((st = slc_pool_acquire(p.pool, &q, &pg)) == SLC_OK &&
                (st = slc_pool_write_begin(p.pool, pg, &dst)) == SLC_OK &&
                (st = slc_pool_write_end(p.pool, pg, 0)) == SLC_OK) {
                st = slc_pool_pin(p.pool, pg);
            }
        }
        if (st == SLC_OK) {
            st = slc_pool_end_frame(p.pool);
        }
    }
    size_t i = 0;
    for (uint32_t f = 0; rc == CLI_OK && st == SLC_OK && f < s->frames; f++) {
        if ((st = slc_pool_begin_frame(p.pool, NULL)) != SLC_OK) {
            break;
        }
        for (; st == SLC_OK && s->r != NULL && i < s->frame_end[f]; i++) {
            const ev_req *e = &s->r[i];
            slc_page_info info;
            if (slc_pool_lookup(p.pool, (slc_chunk_id){e->chunk}, &info) == SLC_OK) {
                out->hits++;
                st = slc_pool_touch(p.pool, info.page, e->priority);
                continue;
            }
            slc_pool_request q = {{e->chunk}, {e->part}, e->lod, e->priority};
            slc_page pg;
            void *dst = NULL;
            st = slc_pool_acquire(p.pool, &q, &pg);
            if (st == SLC_E_POOL_BUSY) {
                out->busy++;
                st = SLC_OK;
                continue;
            }
            out->loads++;
            if (st == SLC_OK) {
                load_trail(out, pg.index, e->chunk);
            }
            if (st == SLC_OK && (st = slc_pool_write_begin(p.pool, pg, &dst)) == SLC_OK) {
                st = slc_pool_write_end(p.pool, pg, 0);
            }
        }
        if (st == SLC_OK) {
            st = slc_pool_end_frame(p.pool);
        }
    }
    if (rc == CLI_OK && st != SLC_OK) {
        fprintf(stderr, ME ": the pool refused a replayed call (%s)\n", slc_status_name(st));
        rc = CLI_FAILED;
    }
    evp_free(&p);
    return rc;
}

/* --- OPT ---------------------------------------------------------------------------------- */

typedef struct opt_ent {
    uint32_t next, chunk, version;
} opt_ent;

typedef struct opt_heap {
    opt_ent *e;
    size_t n;
} opt_heap;

/* a is the better victim: used later (never is latest), then the lower chunk id. */
static int opt_above(const opt_ent *a, const opt_ent *b)
{
    return a->next != b->next ? a->next > b->next : a->chunk < b->chunk;
}

static void opt_push(opt_heap *h, opt_ent x)
{
    size_t i = h->n++;
    while (i > 0 && opt_above(&x, &h->e[(i - 1) / 2])) {
        h->e[i] = h->e[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h->e[i] = x;
}

static opt_ent opt_pop(opt_heap *h)
{
    opt_ent top = h->e[0], x = h->e[--h->n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= h->n) {
            break;
        }
        if (c + 1 < h->n && opt_above(&h->e[c + 1], &h->e[c])) {
            c++;
        }
        if (!opt_above(&h->e[c], &x)) {
            break;
        }
        h->e[i] = h->e[c];
        i = c;
    }
    if (h->n > 0) {
        h->e[i] = x;
    }
    return top;
}

static int replay_opt(const ev_seq *s, uint32_t fif, ev_result *out)
{
    /* Each use pushes one FIFO entry and at most one heap entry: sized by the
     * partition's share of the sequence, no wrap, no compaction. */
    size_t per_part[EV_PARTS] = {0};
    for (size_t i = 0; i < s->n; i++) {
        per_part[s->r[i].part]++;
    }
    uint32_t *version = calloc(s->nchunks + 1u, sizeof *version);
    uint8_t *resident = calloc(s->nchunks + 1u, 1);
    uint32_t *next_of = calloc(s->nchunks + 1u, sizeof *next_of);
    opt_heap heap[EV_PARTS];
    opt_ent *fifo[EV_PARTS]; /* (last frame in .next, chunk, version), in last-use order */
    size_t fhead[EV_PARTS], ftail[EV_PARTS];
    uint32_t used[EV_PARTS];
    int ok = version != NULL && resident != NULL && next_of != NULL;
    for (uint32_t k = 0; k < EV_PARTS; k++) {
        heap[k].n = 0;
        heap[k].e = ok && k < s->part_count ? malloc((per_part[k] + 1u) * sizeof(opt_ent)) : NULL;
        fifo[k] = ok && k < s->part_count ? malloc((per_part[k] + 1u) * sizeof(opt_ent)) : NULL;
        fhead[k] = ftail[k] = 0;
        used[k] = s->part_pinned[k];
        ok = ok && (k >= s->part_count || (heap[k].e != NULL && fifo[k] != NULL));
    }
    size_t i = 0;
    for (uint32_t f = 0; ok && f < s->frames; f++) {
        const uint32_t frame = f + 2u; /* frame 1 holds the pinned chunks */
        for (; s->r != NULL && i < s->frame_end[f]; i++) {
            const ev_req *e = &s->r[i];
            const uint32_t c = e->chunk, k = e->part;
            if (resident[c]) {
                out->hits++;
            } else {
                if (used[k] == s->part_pages[k]) {
                    int evicted = 0;
                    while (heap[k].n > 0 && !evicted) {
                        opt_ent v = opt_pop(&heap[k]);
                        if (resident[v.chunk] && version[v.chunk] == v.version) {
                            resident[v.chunk] = 0;
                            used[k]--;
                            evicted = 1;
                        }
                    }
                    if (!evicted) {
                        out->busy++;
                        continue;
                    }
                }
                resident[c] = 1;
                used[k]++;
                out->loads++;
            }
            version[c]++;
            next_of[c] = s->next[i];
            fifo[k][ftail[k]++] = (opt_ent){frame, c, version[c]};
        }
        /* What is safe in the next frame (last use at most frame + 1 - fif) into the heap. */
        const uint32_t nsafe = frame + 1u > fif ? frame + 1u - fif : 0;
        for (uint32_t k = 0; k < s->part_count; k++) {
            while (fhead[k] != ftail[k] && fifo[k][fhead[k]].next <= nsafe) {
                opt_ent w = fifo[k][fhead[k]++];
                if (resident[w.chunk] && version[w.chunk] == w.version) {
                    opt_push(&heap[k], (opt_ent){next_of[w.chunk], w.chunk, w.version});
                }
            }
        }
    }
    for (uint32_t k = 0; k < EV_PARTS; k++) {
        free(heap[k].e);
        free(fifo[k]);
    }
    free(version);
    free(resident);
    free(next_of);
    if (!ok) {
        fprintf(stderr, ME ": out of memory for OPT\n");
        return CLI_FAILED;
    }
    return CLI_OK;
}

/* --- the simulator of candidate policies ------------------------------------------------- */

typedef enum sim_policy {
    SIM_LRU,       /* the pool's LRU: least recently used (a use: load or hit) */
    SIM_PRIORITY,  /* the pool's priority order: (priority, LOD, last-used frame, chunk) */
    SIM_LOD_LRU,   /* LRU on last-used frame + param x LOD: a coarser level counts as param frames fresher */
    SIM_OBJECT,    /* LRU by the last use of the chunk's (first) object, then the page's own */
    SIM_LRU2,      /* LRU-2: the oldest second-to-last use (history kept past eviction), then LRU */
    SIM_2Q,        /* full 2Q: A1in FIFO of param% of the pages, A1out ghosts of half, Am LRU */
    SIM_EPI_BONUS, /* LRU on last-used frame + param for a chunk seen in 2+ episodes (runs of frames), history kept */
    SIM_EPI_2Q,    /* two LRU lists, first-episode chunks and returning ones; the first evicted while over param% */
    SIM_PREDICT, /* OPT on a prediction: next use = last use + the chunk's last gap between episodes (param if none) */
    SIM_PREDICT2, /* as SIM_PREDICT, a chunk without a gap (or overdue): frame + age while young (age < w), last + l once old,
                   * never after amax frames (w, l, amax from param: w | l << 10 | amax << 20) */
    SIM_AGED,       /* by age a = frame - last use, in frames, (w, l, amax) packed in param as for SIM_PREDICT2:
                   * a >= amax first (least recently used of them), then the larger of "young" a < w, oldest
                   * first, predicted back at frame + a, and "old", most recently used first, predicted back
                   * at last use + l (old wins a tie): LRU for what left the view lately, MRU (a loop's
                   * optimum) for what left long ago, and nothing kept past amax. One recency list and a
                   * cursor at the young/old boundary: O(1) amortised in a pool */
    SIM_PREDICT_OD, /* SIM_PREDICT, a chunk overdue (away longer than twice its last gap) predicted as one without a gap */
    SIM_MRU,        /* the most recently used safe page first (loop-resistant, for reference) */
    SIM_FREQ,       /* LRU on last-used frame + param x log2(frames the chunk was used in, history kept) */
    SIM_FREQ_RES, /* the same, the count restarting at each load */
    SIM_LIRS,     /* LIRS on episodes, resident HIR param% of the partition (replay_lists) */
    SIM_ARC,      /* ARC on episodes (replay_lists) */
    SIM_COUNT
} sim_policy;

typedef struct sim_def {
    const char *name;
    sim_policy policy;
    uint32_t param;
} sim_def;

static const sim_def sim_defs[] = {
    {"sim-lru", SIM_LRU, 0},
    {"sim-priority", SIM_PRIORITY, 0},
    {"sim-predict", SIM_PREDICT_OD, SLC_POOL_PREDICT_HORIZON},
    {"sim-lod-lru-2", SIM_LOD_LRU, 2},
    {"sim-lod-lru-8", SIM_LOD_LRU, 8},
    {"sim-lod-lru-32", SIM_LOD_LRU, 32},
    {"sim-object", SIM_OBJECT, 0},
    {"sim-lru2", SIM_LRU2, 0},
    {"sim-2q-25", SIM_2Q, 25},
    {"sim-2q-50", SIM_2Q, 50},
    {"sim-mru", SIM_MRU, 0},
    {"sim-predod-1024", SIM_PREDICT_OD, 1024},
    {"sim-p2-50-300-600", SIM_PREDICT2, 50u | 300u << 10 | 600u << 20},
    {"sim-p2-100-300-600", SIM_PREDICT2, 100u | 300u << 10 | 600u << 20},
    {"sim-p2-100-500-1000", SIM_PREDICT2, 100u | 500u << 10 | 1000u << 20},
    {"sim-p2-50-1000-1023", SIM_PREDICT2, 50u | 1000u << 10 | 1023u << 20},
    {"sim-p2-150-400-800", SIM_PREDICT2, 150u | 400u << 10 | 800u << 20},
    {"sim-aged-100-300-600", SIM_AGED, 100u | 300u << 10 | 600u << 20},
    {"sim-aged-64-256-512", SIM_AGED, 64u | 256u << 10 | 512u << 20},
    {"sim-aged-100-400-800", SIM_AGED, 100u | 400u << 10 | 800u << 20},
    {"sim-aged-50-200-400", SIM_AGED, 50u | 200u << 10 | 400u << 20},
    {"sim-aged-150-300-900", SIM_AGED, 150u | 300u << 10 | 900u << 20},
    {"sim-predict-64", SIM_PREDICT, 64},
    {"sim-predict-256", SIM_PREDICT, 256},
    {"sim-predict-1024", SIM_PREDICT, 1024},
    {"sim-epi-32", SIM_EPI_BONUS, 32},
    {"sim-epi-128", SIM_EPI_BONUS, 128},
    {"sim-epi-512", SIM_EPI_BONUS, 512},
    {"sim-epi2q-25", SIM_EPI_2Q, 25},
    {"sim-epi2q-50", SIM_EPI_2Q, 50},
    {"sim-epi2q-75", SIM_EPI_2Q, 75},
    {"sim-freq-4", SIM_FREQ, 4},
    {"sim-freq-16", SIM_FREQ, 16},
    {"sim-freq-64", SIM_FREQ, 64},
    {"sim-freqres-4", SIM_FREQ_RES, 4},
    {"sim-freqres-16", SIM_FREQ_RES, 16},
    {"sim-freqres-64", SIM_FREQ_RES, 64},
    {"sim-lirs-1", SIM_LIRS, 1},
    {"sim-lirs-3", SIM_LIRS, 3},
    {"sim-lirs-10", SIM_LIRS, 10},
    {"sim-lirs-50", SIM_LIRS, 50},
    {"sim-arc", SIM_ARC, 0},
};
#define SIM_DEFS (sizeof sim_defs / sizeof sim_defs[0])

typedef struct sim_page {
    uint32_t chunk, object, last_frame;
    uint64_t stamp;
    uint32_t uses;                        /* frames used in since loaded */
    uint8_t priority, lod, queue, pinned; /* queue: 2Q's 0 A1in, 1 Am */
} sim_page;

static uint32_t ev_log2(uint32_t x)
{
    uint32_t l = 0;
    while (x > 1u) {
        x >>= 1;
        l++;
    }
    return l;
}

typedef struct sim {
    const sim_def *def;
    sim_page *pg;
    uint32_t *map; /* chunk -> page, EV_NEVER */
    uint64_t *obj_stamp;
    uint32_t *use1, *use2; /* chunk -> last and second-to-last use frame (0: none), kept past eviction */
    uint32_t *uses;        /* chunk -> frames used in, kept past eviction */
    uint32_t *epis;        /* chunk -> episodes (runs of consecutive frames) it was used in */
    uint32_t *gap;         /* chunk -> frames between its last two episodes (0: one episode so far) */
    uint64_t *ghost;       /* chunk -> 2Q A1out sequence + 1, 0: not a ghost */
    uint64_t ghost_seq;
    uint32_t *ring; /* 2Q A1out, a FIFO of chunks */
    size_t ring_head, ring_n, ring_cap;
    uint64_t clock;
    uint32_t frame;
    uint32_t first[EV_PARTS], count[EV_PARTS], next_free[EV_PARTS], a1in[EV_PARTS];
} sim;

static uint64_t sim_pred2(const sim *m, const sim_page *p)
{
    const uint64_t w = m->def->param & 1023u, l = m->def->param >> 10 & 1023u, amax = m->def->param >> 20 & 1023u;
    const uint64_t age = m->frame - p->last_frame, g = m->gap[p->chunk];
    if (g != 0 && age <= g) {
        return (uint64_t)p->last_frame + g;
    }
    if (age < w) {
        return m->frame + age;
    }
    return age >= amax ? UINT64_MAX : (uint64_t)p->last_frame + l;
}

static uint64_t sim_aged(const sim *m, const sim_page *p, int *cls)
{
    const uint64_t w = m->def->param & 1023u, l = m->def->param >> 10 & 1023u, amax = m->def->param >> 20 & 1023u;
    const uint64_t age = m->frame - p->last_frame;
    *cls = age >= amax ? 2 : age >= w;
    return age >= amax ? UINT64_MAX : age < w ? m->frame + age : (uint64_t)p->last_frame + l;
}

/* sim_before under SIM_PRIORITY: the lower priority, then the lower lod,
 * then the least recently used, then the lower chunk id. */
static int sim_before_priority(const sim_page *a, const sim_page *b)
{
    if (a->priority != b->priority) {
        return a->priority < b->priority;
    }
    if (a->lod != b->lod) {
        return a->lod < b->lod;
    }
    if (a->last_frame != b->last_frame) {
        return a->last_frame < b->last_frame;
    }
    return a->chunk < b->chunk;
}

/* sim_before under SIM_PREDICT_OD: the later predicted next use, a gap
 * overdue by twice its length taken as the default. */
static int sim_before_predict_od(const sim *m, const sim_page *a, const sim_page *b)
{
    uint64_t ga = m->gap[a->chunk], gb = m->gap[b->chunk];
    ga = ga != 0 && m->frame - a->last_frame <= 2u * ga ? ga : m->def->param;
    gb = gb != 0 && m->frame - b->last_frame <= 2u * gb ? gb : m->def->param;
    uint64_t x = (uint64_t)a->last_frame + ga, y = (uint64_t)b->last_frame + gb;
    return x != y ? x > y : a->stamp < b->stamp;
}

/* sim_before under SIM_AGED: the later key of sim_aged, then the older
 * class, then by stamp (the newest first among the old). */
static int sim_before_aged(const sim *m, const sim_page *a, const sim_page *b)
{
    int ca, cb; /* 2 expired, 1 old, 0 young */
    uint64_t x = sim_aged(m, a, &ca), y = sim_aged(m, b, &cb);
    if (x != y) {
        return x > y;
    }
    if (ca != cb) {
        return ca > cb;
    }
    return ca == 1 ? a->stamp > b->stamp : a->stamp < b->stamp;
}

/* a is a better victim than b under the policy. */
static int sim_before(const sim *m, const sim_page *a, const sim_page *b, int prefer_a1in)
{
    switch (m->def->policy) {
    case SIM_PRIORITY:
        return sim_before_priority(a, b);
    case SIM_LOD_LRU: {
        uint64_t x = (uint64_t)a->last_frame + (uint64_t)m->def->param * a->lod;
        uint64_t y = (uint64_t)b->last_frame + (uint64_t)m->def->param * b->lod;
        return x != y ? x < y : a->stamp < b->stamp;
    }
    case SIM_OBJECT: {
        uint64_t x = m->obj_stamp[a->object], y = m->obj_stamp[b->object];
        return x != y ? x < y : a->stamp < b->stamp;
    }
    case SIM_LRU2: {
        uint32_t x = m->use2[a->chunk], y = m->use2[b->chunk];
        return x != y ? x < y : a->stamp < b->stamp;
    }
    case SIM_2Q: {
        int qa = a->queue == 0 ? !prefer_a1in : prefer_a1in, qb = b->queue == 0 ? !prefer_a1in : prefer_a1in;
        return qa != qb ? qa < qb : a->stamp < b->stamp;
    }
    case SIM_FREQ:
    case SIM_FREQ_RES: {
        uint32_t ca = m->def->policy == SIM_FREQ ? m->uses[a->chunk] : a->uses;
        uint32_t cb = m->def->policy == SIM_FREQ ? m->uses[b->chunk] : b->uses;
        uint64_t x = (uint64_t)a->last_frame + (uint64_t)m->def->param * ev_log2(ca);
        uint64_t y = (uint64_t)b->last_frame + (uint64_t)m->def->param * ev_log2(cb);
        return x != y ? x < y : a->stamp < b->stamp;
    }
    case SIM_MRU:
        return a->stamp > b->stamp;
    case SIM_PREDICT: {
        uint64_t x = (uint64_t)a->last_frame + (m->gap[a->chunk] ? m->gap[a->chunk] : m->def->param);
        uint64_t y = (uint64_t)b->last_frame + (m->gap[b->chunk] ? m->gap[b->chunk] : m->def->param);
        return x != y ? x > y : a->stamp < b->stamp;
    }
    case SIM_PREDICT_OD:
        return sim_before_predict_od(m, a, b);
    case SIM_PREDICT2:
        return sim_pred2(m, a) != sim_pred2(m, b) ? sim_pred2(m, a) > sim_pred2(m, b) : a->stamp < b->stamp;
    case SIM_AGED:
        return sim_before_aged(m, a, b);
    case SIM_EPI_BONUS: {
        uint64_t x = (uint64_t)a->last_frame + (m->epis[a->chunk] >= 2u ? m->def->param : 0u);
        uint64_t y = (uint64_t)b->last_frame + (m->epis[b->chunk] >= 2u ? m->def->param : 0u);
        return x != y ? x < y : a->stamp < b->stamp;
    }
    case SIM_EPI_2Q: {
        int qa = (m->epis[a->chunk] >= 2u) == !prefer_a1in, qb = (m->epis[b->chunk] >= 2u) == !prefer_a1in;
        return qa != qb ? qa < qb : a->stamp < b->stamp;
    }
    case SIM_LRU:
    case SIM_LIRS:
    case SIM_ARC:
    case SIM_COUNT:
        break;
    }
    return a->stamp < b->stamp;
}

static void sim_free(sim *m)
{
    free(m->pg);
    free(m->map);
    free(m->obj_stamp);
    free(m->use1);
    free(m->use2);
    free(m->uses);
    free(m->epis);
    free(m->gap);
    free(m->ghost);
    free(m->ring);
    memset(m, 0, sizeof *m);
}

static void ghost_add(sim *m, uint32_t chunk)
{
    if (m->ring_n == m->ring_cap) { /* the oldest ghost goes */
        uint32_t old = m->ring[m->ring_head];
        m->ghost[old] = 0;
        m->ring_head = (m->ring_head + 1u) % m->ring_cap;
        m->ring_n--;
    }
    m->ring[(m->ring_head + m->ring_n) % m->ring_cap] = chunk;
    m->ring_n++;
    m->ghost[chunk] = 1;
}

static void sim_use(sim *m, sim_page *p, const ev_req *e, uint32_t frame, int load)
{
    p->last_frame = frame;
    p->priority = e->priority;
    if (m->def->policy != SIM_2Q || p->queue == 1 || load) {
        p->stamp = ++m->clock;
    }
    m->obj_stamp[e->object] = ++m->clock;
    m->uses[e->chunk]++;
    p->uses++;
    if (m->use1[e->chunk] + 1u != frame && m->use1[e->chunk] != frame) {
        m->epis[e->chunk]++;
        if (m->use1[e->chunk] != 0) {
            m->gap[e->chunk] = frame - m->use1[e->chunk];
        }
    }
    if (m->use1[e->chunk] != frame) {
        m->use2[e->chunk] = m->use1[e->chunk];
        m->use1[e->chunk] = frame;
    }
}

static int replay_sim(const ev_seq *s, const slc_profile *prof, const sim_def *def, ev_result *out)
{
    sim m;
    memset(&m, 0, sizeof m);
    m.def = def;
    const uint32_t pages = s->pages, fif = prof->frames_in_flight;
    m.pg = calloc(pages + 1u, sizeof *m.pg);
    m.map = malloc(((size_t)s->nchunks + 1u) * sizeof *m.map);
    m.obj_stamp = calloc((size_t)s->nobjects + 1u, sizeof *m.obj_stamp);
    m.use1 = calloc(s->nchunks + 1u, sizeof *m.use1);
    m.use2 = calloc(s->nchunks + 1u, sizeof *m.use2);
    m.uses = calloc(s->nchunks + 1u, sizeof *m.uses);
    m.epis = calloc(s->nchunks + 1u, sizeof *m.epis);
    m.gap = calloc(s->nchunks + 1u, sizeof *m.gap);
    m.ghost = calloc(s->nchunks + 1u, sizeof *m.ghost);
    m.ring_cap = pages / 2u + 1u;
    m.ring = malloc(m.ring_cap * sizeof *m.ring);
    if (m.pg == NULL || m.map == NULL || m.obj_stamp == NULL || m.use1 == NULL || m.use2 == NULL || m.uses == NULL ||
        m.epis == NULL || m.gap == NULL || m.ghost == NULL || m.ring == NULL) {
        sim_free(&m);
        fprintf(stderr, ME ": out of memory for the simulator\n");
        return CLI_FAILED;
    }
    for (uint32_t i = 0; i < s->nchunks; i++) {
        m.map[i] = EV_NEVER;
    }
    uint32_t at = 0;
    for (uint32_t k = 0; k < s->part_count; k++) {
        m.first[k] = at;
        m.count[k] = s->part_pages[k];
        m.next_free[k] = at;
        at += s->part_pages[k];
    }
    for (uint32_t i = 0; i < s->pin_count; i++) { /* frame 1: the pinned chunks, in id order */
        uint32_t pgi = m.next_free[s->pin_part]++;
        m.pg[pgi] = (sim_page){s->pin_list[i], 0, 1, ++m.clock, 0, 0, 0, 0, 1};
        m.map[s->pin_list[i]] = pgi;
    }
    size_t i = 0;
    for (uint32_t f = 0; f < s->frames; f++) {
        const uint32_t frame = f + 2u;
        const uint32_t safe = frame > fif ? frame - fif : 0;
        m.frame = frame;
        for (; s->r != NULL && i < s->frame_end[f]; i++) {
            const ev_req *e = &s->r[i];
            const uint32_t k = e->part;
            if (m.map[e->chunk] != EV_NEVER) {
                out->hits++;
                sim_use(&m, &m.pg[m.map[e->chunk]], e, frame, 0);
                continue;
            }
            uint32_t v = EV_NEVER;
            if (m.next_free[k] < m.first[k] + m.count[k]) {
                v = m.next_free[k]++;
            } else {
                uint32_t first_ep = m.a1in[k];
                if (def->policy == SIM_EPI_2Q) {
                    first_ep = 0;
                    for (uint32_t j = m.first[k]; j < m.first[k] + m.count[k]; j++) {
                        first_ep += !m.pg[j].pinned && m.epis[m.pg[j].chunk] < 2u;
                    }
                }
                int prefer_a1in = (uint64_t)first_ep * 100u > (uint64_t)m.count[k] * def->param;
                for (uint32_t j = m.first[k]; j < m.first[k] + m.count[k]; j++) {
                    const sim_page *p = &m.pg[j];
                    if (p->pinned || p->last_frame > safe) {
                        continue;
                    }
                    if (v == EV_NEVER || sim_before(&m, p, &m.pg[v], prefer_a1in)) {
                        v = j;
                    }
                }
                if (v == EV_NEVER) {
                    out->busy++;
                    continue;
                }
                sim_page *old = &m.pg[v];
                m.map[old->chunk] = EV_NEVER;
                if (def->policy == SIM_2Q && old->queue == 0) {
                    m.a1in[k]--;
                    ghost_add(&m, old->chunk);
                }
            }
            out->loads++;
            load_trail(out, v, e->chunk);
            sim_page *p = &m.pg[v];
            memset(p, 0, sizeof *p);
            p->chunk = e->chunk;
            p->object = e->object;
            p->lod = e->lod;
            p->queue = 0;
            if (def->policy == SIM_2Q) {
                if (m.ghost[e->chunk]) {
                    p->queue = 1; /* the ghost stays in the ring until it ages out; it is no longer counted */
                    m.ghost[e->chunk] = 0;
                } else {
                    m.a1in[k]++;
                }
            }
            m.map[e->chunk] = v;
            sim_use(&m, p, e, frame, 1);
        }
    }
    sim_free(&m);
    return CLI_OK;
}

/* --- list policies on episodes: LIRS and ARC ---------------------------------------------
 *
 * Both take a run of consecutive frames in which a chunk is requested (an
 * episode) as one reference: the first request of an episode (or any miss)
 * is a reference with the policy's status changes, a later request in the
 * same episode only refreshes the chunk's recency (moves it to the top of
 * its lists). The victim is the policy's, skipping pages not yet safe (used
 * in the last frames_in_flight frames); lists are per partition. */

typedef struct ev_dl {
    uint32_t head, tail, n; /* head: most recent; EV_NEVER when empty */
} ev_dl;

typedef struct ev_links {
    uint32_t *prev, *next;
} ev_links;

static void dl_remove(ev_dl *l, const ev_links *k, uint32_t x)
{
    uint32_t p = k->prev[x], n = k->next[x];
    if (p != EV_NEVER) {
        k->next[p] = n;
    } else {
        l->head = n;
    }
    if (n != EV_NEVER) {
        k->prev[n] = p;
    } else {
        l->tail = p;
    }
    k->prev[x] = k->next[x] = EV_NEVER;
    l->n--;
}

static void dl_push(ev_dl *l, const ev_links *k, uint32_t x)
{
    k->prev[x] = EV_NEVER;
    k->next[x] = l->head;
    if (l->head != EV_NEVER) {
        k->prev[l->head] = x;
    } else {
        l->tail = x;
    }
    l->head = x;
    l->n++;
}

enum { LS_NONE, LS_LIR, LS_HIR, LS_GHOST }; /* LIRS states; ARC: LS_NONE, then 1 T1, 2 T2, 3 B1, 4 B2 */

typedef struct lsim {
    const sim_def *def;
    uint32_t *page;   /* chunk -> page, EV_NEVER */
    uint32_t *last;   /* chunk -> last use frame, 0 none */
    uint32_t *pchunk; /* page -> chunk, EV_NEVER */
    uint8_t *state, *in_s, *part;
    ev_links s, q; /* LIRS: stack S and queue Q; ARC: s links T1/T2/B1/B2 */
    ev_dl S[EV_PARTS], Q[EV_PARTS], T[EV_PARTS][4];
    uint32_t lir[EV_PARTS], cap[EV_PARTS], arc_p[EV_PARTS];
    uint32_t first[EV_PARTS], count[EV_PARTS], next_free[EV_PARTS];
} lsim;

static void lsim_free(lsim *m)
{
    free(m->page);
    free(m->last);
    free(m->pchunk);
    free(m->state);
    free(m->in_s);
    free(m->part);
    free(m->s.prev);
    free(m->s.next);
    free(m->q.prev);
    free(m->q.next);
}

/* LIRS: drop the HIR entries at the bottom of S, so that its bottom is LIR. */
static void lirs_prune(lsim *m, uint32_t k)
{
    while (m->S[k].tail != EV_NEVER && m->state[m->S[k].tail] != LS_LIR) {
        uint32_t x = m->S[k].tail;
        dl_remove(&m->S[k], &m->s, x);
        m->in_s[x] = 0;
        if (m->state[x] == LS_GHOST) {
            m->state[x] = LS_NONE;
        }
    }
}

/* LIRS: the bottom LIR of S becomes a resident HIR at the top of Q. */
static void lirs_demote(lsim *m, uint32_t k)
{
    uint32_t y = m->S[k].tail;
    if (y == EV_NEVER) {
        return;
    }
    dl_remove(&m->S[k], &m->s, y);
    m->in_s[y] = 0;
    m->state[y] = LS_HIR;
    m->lir[k]--;
    dl_push(&m->Q[k], &m->q, y);
    lirs_prune(m, k);
}

static int lsim_safe(const lsim *m, uint32_t c, uint32_t safe)
{
    return m->last[c] <= safe;
}

/* Evicts chunk c's page (its state already decided by the caller); returns the page. */
static uint32_t lsim_take(lsim *m, uint32_t c)
{
    uint32_t pg = m->page[c];
    m->page[c] = EV_NEVER;
    m->pchunk[pg] = EV_NEVER;
    return pg;
}

/* LIRS victim: the least recent safe resident HIR in Q, else the least recent safe LIR in S. */
static uint32_t lirs_evict(lsim *m, uint32_t k, uint32_t safe)
{
    for (uint32_t x = m->Q[k].tail; x != EV_NEVER; x = m->q.prev[x]) {
        if (lsim_safe(m, x, safe)) {
            dl_remove(&m->Q[k], &m->q, x);
            m->state[x] = m->in_s[x] ? LS_GHOST : LS_NONE;
            return lsim_take(m, x);
        }
    }
    for (uint32_t x = m->S[k].tail; x != EV_NEVER; x = m->s.prev[x]) {
        if (m->state[x] == LS_LIR && m->page[x] != EV_NEVER && lsim_safe(m, x, safe)) {
            dl_remove(&m->S[k], &m->s, x);
            m->in_s[x] = 0;
            m->state[x] = LS_NONE;
            m->lir[k]--;
            lirs_prune(m, k);
            return lsim_take(m, x);
        }
    }
    return EV_NEVER;
}

static void lirs_to_top(lsim *m, uint32_t k, uint32_t c)
{
    int was_bottom = m->S[k].tail == c;
    if (m->in_s[c]) {
        dl_remove(&m->S[k], &m->s, c);
    }
    dl_push(&m->S[k], &m->s, c);
    m->in_s[c] = 1;
    if (was_bottom) {
        lirs_prune(m, k);
    }
}

/* ARC: evicts the least recent safe page of T1 (into B1) or T2 (into B2), the preferred list first. */
static uint32_t arc_evict(lsim *m, uint32_t k, uint32_t safe, int from_t1)
{
    for (int pass = 0; pass < 2; pass++, from_t1 = !from_t1) {
        ev_dl *t = &m->T[k][from_t1 ? 0 : 1];
        for (uint32_t x = t->tail; x != EV_NEVER; x = m->s.prev[x]) {
            if (lsim_safe(m, x, safe)) {
                dl_remove(t, &m->s, x);
                m->state[x] = from_t1 ? 3 : 4;
                dl_push(&m->T[k][from_t1 ? 2 : 3], &m->s, x);
                return lsim_take(m, x);
            }
        }
    }
    return EV_NEVER;
}

static void arc_drop_ghost(lsim *m, uint32_t k, int b)
{
    ev_dl *l = &m->T[k][b];
    if (l->tail != EV_NEVER) {
        uint32_t x = l->tail;
        dl_remove(l, &m->s, x);
        m->state[x] = LS_NONE;
    }
}

/* Allocates the simulator for s and lays out its partitions, the pinned
 * chunks in their pages; CLI_OK, or CLI_FAILED (said) out of memory. */
static int lsim_init(lsim *m, const ev_seq *s, const sim_def *def)
{
    memset(m, 0, sizeof *m);
    m->def = def;
    const uint32_t pages = s->pages;
    const size_t nc = (size_t)s->nchunks + 1u;
    m->page = malloc(nc * sizeof *m->page);
    m->last = calloc(nc, sizeof *m->last);
    m->pchunk = malloc(((size_t)pages + 1u) * sizeof *m->pchunk);
    m->state = calloc(nc, 1);
    m->in_s = calloc(nc, 1);
    m->part = calloc(nc, 1);
    m->s.prev = malloc(nc * sizeof(uint32_t));
    m->s.next = malloc(nc * sizeof(uint32_t));
    m->q.prev = malloc(nc * sizeof(uint32_t));
    m->q.next = malloc(nc * sizeof(uint32_t));
    if (m->page == NULL || m->last == NULL || m->pchunk == NULL || m->state == NULL || m->in_s == NULL ||
        m->part == NULL || m->s.prev == NULL || m->s.next == NULL || m->q.prev == NULL || m->q.next == NULL) {
        lsim_free(m);
        fprintf(stderr, ME ": out of memory for the simulator\n");
        return CLI_FAILED;
    }
    for (size_t i = 0; i < nc; i++) {
        m->page[i] = m->s.prev[i] = m->s.next[i] = m->q.prev[i] = m->q.next[i] = EV_NEVER;
    }
    for (size_t i = 0; i <= pages; i++) {
        m->pchunk[i] = EV_NEVER;
    }
    uint32_t at = 0;
    for (uint32_t k = 0; k < EV_PARTS; k++) {
        m->S[k] = m->Q[k] = (ev_dl){EV_NEVER, EV_NEVER, 0};
        for (int b = 0; b < 4; b++) {
            m->T[k][b] = (ev_dl){EV_NEVER, EV_NEVER, 0};
        }
    }
    for (uint32_t k = 0; k < s->part_count; k++) {
        m->first[k] = at;
        m->count[k] = s->part_pages[k];
        m->next_free[k] = at;
        m->cap[k] = s->part_pages[k] - (k == s->pin_part ? s->pin_count : 0u);
        at += s->part_pages[k];
    }
    for (uint32_t i = 0; i < s->pin_count; i++) {
        uint32_t pgi = m->next_free[s->pin_part]++;
        m->page[s->pin_list[i]] = pgi;
        m->pchunk[pgi] = s->pin_list[i];
        m->last[s->pin_list[i]] = 1;
        m->state[s->pin_list[i]] = 0xff; /* pinned: in no list */
    }
    return CLI_OK;
}

/* A hit on chunk c, resident, in frame (cont: its episode goes on). */
static void lsim_hit(lsim *m, uint32_t c, uint32_t frame, int cont, int arc)
{
    m->last[c] = frame;
    if (m->state[c] == 0xff) {
        return;
    }
    const uint32_t k = m->part[c];
    if (arc) {
        int t = m->state[c] - 1; /* 0 T1, 1 T2 */
        dl_remove(&m->T[k][t], &m->s, c);
        if (!cont) {
            t = 1;
            m->state[c] = 2;
        }
        dl_push(&m->T[k][t], &m->s, c);
    } else if (m->state[c] == LS_LIR) {
        lirs_to_top(m, k, c);
    } else if (cont || !m->in_s[c]) { /* a resident HIR: refreshed, stays HIR */
        lirs_to_top(m, k, c);
        dl_remove(&m->Q[k], &m->q, c);
        dl_push(&m->Q[k], &m->q, c);
    } else { /* a resident HIR in S: back within the LIR set's recency, LIR now */
        dl_remove(&m->Q[k], &m->q, c);
        m->state[c] = LS_LIR;
        m->lir[k]++;
        lirs_to_top(m, k, c);
        lirs_demote(m, k);
    }
}

/* A miss of chunk c in partition k: a chunk asked in another partition
 * than its history's forgets it. */
static void lsim_move(lsim *m, uint32_t c, uint32_t k, int arc)
{
    if (m->state[c] != LS_NONE && m->part[c] != k) {
        const uint32_t o = m->part[c];
        if (arc) {
            dl_remove(&m->T[o][m->state[c] - 1], &m->s, c);
        } else if (m->in_s[c]) {
            dl_remove(&m->S[o], &m->s, c);
            m->in_s[c] = 0;
            lirs_prune(m, o);
        }
        m->state[c] = LS_NONE;
    }
    m->part[c] = (uint8_t)k;
}

/* ARC's miss of chunk c in partition k: the page it gets (free, or a
 * victim's), or EV_NEVER when none is free or safe (busy). */
static uint32_t arc_miss(lsim *m, uint32_t k, uint32_t c, uint32_t safe)
{
    uint32_t v = EV_NEVER;
    const int full = m->next_free[k] >= m->first[k] + m->count[k];
    const uint32_t cap = m->cap[k];
    ev_dl *t1 = &m->T[k][0], *t2 = &m->T[k][1], *b1 = &m->T[k][2], *b2 = &m->T[k][3];
    const uint8_t was = m->state[c];
    const int t1_full = was == LS_NONE && t1->n >= cap;
    if (was == 3 || was == 4) {
        if (was == 3) {
            uint32_t d = b2->n >= b1->n ? b2->n / b1->n : 1u;
            m->arc_p[k] = m->arc_p[k] + d < cap ? m->arc_p[k] + d : cap;
        } else {
            uint32_t d = b1->n >= b2->n ? b1->n / b2->n : 1u;
            m->arc_p[k] = m->arc_p[k] > d ? m->arc_p[k] - d : 0u;
        }
        dl_remove(&m->T[k][was - 1], &m->s, c);
        m->state[c] = LS_NONE;
    } else if (t1->n + b1->n >= cap) {
        if (t1->n < cap) {
            arc_drop_ghost(m, k, 2);
        }
    } else if (t1->n + t2->n + b1->n + b2->n >= cap && t1->n + t2->n + b1->n + b2->n >= 2u * cap) {
        arc_drop_ghost(m, k, 3);
    }
    if (full) {
        int from_t1 = t1->n > 0 && (t1->n > m->arc_p[k] || (was == 4 && t1->n == m->arc_p[k]));
        v = arc_evict(m, k, safe, from_t1);
        if (t1_full && v != EV_NEVER) { /* T1 full of itself: the victim keeps no ghost */
            arc_drop_ghost(m, k, 2);
        }
    }
    if (full && v == EV_NEVER) {
        return EV_NEVER;
    }
    if (!full) {
        v = m->next_free[k]++;
    }
    m->state[c] = was == 3 || was == 4 ? 2 : 1;
    dl_push(&m->T[k][m->state[c] - 1], &m->s, c);
    return v;
}

/* LIRS's miss of chunk c in partition k (cont: its episode goes on): the
 * page it gets, or EV_NEVER (busy). */
static uint32_t lirs_miss(lsim *m, uint32_t k, uint32_t c, uint32_t safe, int cont)
{
    uint32_t v = EV_NEVER;
    const int full = m->next_free[k] >= m->first[k] + m->count[k];
    const uint32_t hir_n = m->cap[k] * m->def->param / 100u > 0 ? m->cap[k] * m->def->param / 100u : 1u;
    const uint32_t lir_max = m->cap[k] > hir_n ? m->cap[k] - hir_n : 1u;
    if (full) {
        v = lirs_evict(m, k, safe);
        if (v == EV_NEVER) {
            return EV_NEVER;
        }
    } else {
        v = m->next_free[k]++;
    }
    if (m->lir[k] < lir_max && m->state[c] != LS_GHOST) { /* LIR set not full yet */
        m->state[c] = LS_LIR;
        m->lir[k]++;
        lirs_to_top(m, k, c);
    } else if (m->state[c] == LS_GHOST && !cont) { /* back within the LIR recency */
        m->state[c] = LS_LIR;
        m->lir[k]++;
        lirs_to_top(m, k, c);
        if (m->lir[k] > lir_max) {
            lirs_demote(m, k);
        }
    } else {
        m->state[c] = LS_HIR;
        lirs_to_top(m, k, c);
        dl_push(&m->Q[k], &m->q, c);
    }
    return v;
}

static int replay_lists(const ev_seq *s, const slc_profile *prof, const sim_def *def, ev_result *out)
{
    lsim m;
    if (lsim_init(&m, s, def) != CLI_OK) {
        return CLI_FAILED;
    }
    const int arc = def->policy == SIM_ARC;
    const uint32_t fif = prof->frames_in_flight;
    size_t i = 0;
    for (uint32_t f = 0; f < s->frames; f++) {
        const uint32_t frame = f + 2u;
        const uint32_t safe = frame > fif ? frame - fif : 0;
        for (; s->r != NULL && i < s->frame_end[f]; i++) {
            const ev_req *e = &s->r[i];
            const uint32_t c = e->chunk;
            const int cont = m.last[c] != 0 && m.last[c] + 1u >= frame; /* the episode goes on */
            if (m.page[c] != EV_NEVER) {
                out->hits++;
                lsim_hit(&m, c, frame, cont, arc);
                continue;
            }
            const uint32_t k = e->part;
            lsim_move(&m, c, k, arc);
            const uint32_t v = arc ? arc_miss(&m, k, c, safe) : lirs_miss(&m, k, c, safe, cont);
            if (v == EV_NEVER) {
                out->busy++;
                continue;
            }
            out->loads++;
            m.page[c] = v;
            m.pchunk[v] = c;
            m.last[c] = frame;
        }
    }
    lsim_free(&m);
    return CLI_OK;
}

/* --- the real stream ---------------------------------------------------------------------- */

/* Streams the workload as `sluice run` does (its context, the host backend,
 * no output files) under prof with the given policy; the stream's counters
 * into out. */
/* The workload through `sluice run`'s context with policy for the pool of
 * s's kind (the other pool keeps its own); its loads into that pool are the
 * pool's acquires less the chunks pinned at create. */
static int stream_policy(const run_opts *base, const slc_profile *prof, const ev_seq *s, uint32_t policy,
                         ev_result *out)
{
    slc_profile p = *prof;
    if (s->kind == SLC_POOL_TEXTURES) {
        p.texture_eviction = policy;
    } else {
        p.eviction = policy;
    }
    run_opts o = *base;
    o.profile = &p;
    o.backend = "host";
    run *r = calloc(1, sizeof *r);
    if (r == NULL) {
        fprintf(stderr, ME ": out of memory\n");
        return CLI_FAILED;
    }
    int rc = run_open(r, &o, NULL, ME);
    for (uint32_t f = 0; rc == CLI_OK && run_has_frame(r, f); f++) {
        rc = run_frame(r, f);
    }
    if (rc == CLI_OK) {
        slc_stream_stats st;
        slc_pool_stats ps;
        slc_stream_get_stats(r->s, &st);
        slc_pool_get_stats(slc_stream_pool_of_kind(r->s, s->kind), &ps);
        out->has_stream = 1;
        out->stream_loads = ps.acquires - s->pin_count;
        out->stream_hits = st.hits;
        out->stream_deferred = st.deferred;
        out->stream_fallbacks = st.fallbacks;
    }
    run_close(r);
    free(r);
    return rc;
}

/* --- the command -------------------------------------------------------------------------- */

static const char *const pool_names[] = {"lru", "priority", "predict"};
#define POOL_POLICIES 3u

static void print_text(const ev_src *c, const ev_seq *s, const ev_result *res, size_t n)
{
    if (s->kind == SLC_POOL_TEXTURES) {
        printf("texture pool: %zu tile requests, %u pages (%u pinned: mip tails), eviction %s\n", s->n, s->pages,
               s->pin_count, slc_profile_policy_name(c->prof.texture_eviction));
    } else {
        printf("bench evict: %s over %s, profile %s: %u frames, %zu chunk requests, %u pages (%u pinned), "
               "%u frames in flight\n",
               c->wl.describe, c->pack_name, c->prof.name, s->frames, s->n, s->pages, s->pin_count,
               c->prof.frames_in_flight);
    }
    if (s->refused > 0 && s->kind == SLC_POOL_GEOMETRY) {
        printf("  %" PRIu64 " requests refused by the queue (queue_capacity %u), left out as the stream would\n",
               s->refused, c->prof.queue_capacity);
    }
    printf("  %" PRIu64 " distinct chunks: the loads no policy avoids\n", s->distinct);
    printf("  %-22s %10s %10s %8s %9s %14s\n", "policy", "loads", "hits", "busy", "x OPT", "stream loads");
    for (size_t i = 0; i < n; i++) {
        char stream[32] = "-";
        if (res[i].has_stream) {
            snprintf(stream, sizeof stream, "%" PRIu64, res[i].stream_loads);
        }
        double ratio = res[0].loads ? (double)res[i].loads / (double)res[0].loads : 0.0;
        printf("  %-22s %10" PRIu64 " %10" PRIu64 " %8" PRIu64 " %9.3f %14s\n", res[i].name, res[i].loads, res[i].hits,
               res[i].busy, ratio, stream);
    }
}

static void print_json_policies(const ev_result *res, size_t n)
{
    printf("\"policies\": [");
    for (size_t i = 0; i < n; i++) {
        double ratio = res[0].loads ? (double)res[i].loads / (double)res[0].loads : 0.0;
        printf("%s{\"name\": ", i ? ", " : "");
        esc_json(stdout, res[i].name);
        printf(", \"kind\": ");
        esc_json(stdout, res[i].kind);
        printf(", \"loads\": %" PRIu64 ", \"hits\": %" PRIu64 ", \"busy\": %" PRIu64 ", \"ratio\": %.4f", res[i].loads,
               res[i].hits, res[i].busy, ratio);
        if (res[i].has_stream) {
            printf(", \"stream\": {\"loads\": %" PRIu64 ", \"hits\": %" PRIu64 ", \"deferred\": %" PRIu64
                   ", \"fallbacks\": %" PRIu64 "}",
                   res[i].stream_loads, res[i].stream_hits, res[i].stream_deferred, res[i].stream_fallbacks);
        }
        printf("}");
    }
    printf("]");
}

/* The geometry pool's figures at the top level (as before textures), and
 * the texture pool's, when the pack has textures, in "texture_pool". */
static void print_json(const ev_src *c, const ev_seq *s, const ev_result *res, size_t n, const ev_seq *ts,
                       const ev_result *tres, size_t tn)
{
    printf("{\"pack\": ");
    esc_json(stdout, c->pack_name);
    printf(", \"profile\": ");
    esc_json(stdout, c->prof.name);
    printf(", \"workload\": ");
    esc_json(stdout, c->wl.describe);
    printf(", \"frames\": %u, \"requests\": %zu, \"refused\": %" PRIu64 ", \"distinct\": %" PRIu64
           ", \"pages\": %u, \"pinned\": %u, \"frames_in_flight\": %u, ",
           s->frames, s->n, s->refused, s->distinct, s->pages, s->pin_count, c->prof.frames_in_flight);
    print_json_policies(res, n);
    if (tn > 0) {
        printf(", \"texture_pool\": {\"requests\": %zu, \"distinct\": %" PRIu64 ", \"pages\": %u, \"pinned\": %u, ",
               ts->n, ts->distinct, ts->pages, ts->pin_count);
        print_json_policies(tres, tn);
        printf("}");
    }
    printf("}\n");
}

/* OPT, the pool's policies (and the stream with each, unless no_stream)
 * and the simulated candidates over s, into res[0 .. *n). */
static int evict_kind(const ev_src *c, const ev_seq *s, const run_opts *o, int no_stream, ev_result *res, size_t *n)
{
    size_t nres = 0;
    res[nres] = (ev_result){.name = "opt", .kind = "optimum"};
    int rc = replay_opt(s, c->prof.frames_in_flight, &res[nres++]);
    for (uint32_t p = 0; rc == CLI_OK && p < POOL_POLICIES; p++) {
        res[nres] = (ev_result){.name = pool_names[p], .kind = "pool"};
        rc = replay_pool(s, &c->prof, p, &res[nres]);
        if (rc == CLI_OK && !no_stream) {
            rc = stream_policy(o, &c->prof, s, p, &res[nres]);
        }
        nres++;
    }
    for (size_t d = 0; rc == CLI_OK && d < SIM_DEFS; d++) {
        res[nres] = (ev_result){.name = sim_defs[d].name, .kind = "simulated"};
        const int lists = sim_defs[d].policy == SIM_LIRS || sim_defs[d].policy == SIM_ARC;
        rc = (lists ? replay_lists : replay_sim)(s, &c->prof, &sim_defs[d], &res[nres++]);
    }
    /* sim-NAME is the twin of pool policy NAME: the same loads, into the same pages. */
    for (uint32_t p = 0; rc == CLI_OK && p < POOL_POLICIES; p++) {
        const ev_result *twin = &res[1 + POOL_POLICIES + p], *pool = &res[1 + p];
        if (twin->loads != pool->loads || twin->trail != pool->trail) {
            fprintf(stderr, ME ": the simulator disagrees with the %s pool: %s %" PRIu64 " against %" PRIu64 "%s\n",
                    slc_pool_kind_name(s->kind), pool_names[p], twin->loads, pool->loads,
                    twin->loads == pool->loads ? " loads, not into the same pages" : "");
            rc = CLI_FAILED;
        }
    }
    *n = nres;
    return rc;
}

/* Options of run this command has no use for (outputs, backends, timing). */
static int run_option_kept(const char *name)
{
    static const char *const dropped[] = {
        "--save-trace", "--backend", "--mmap",         "--frame-budget-us", "--allow-load-failures",
        "--validate",   "--svg",     "--chrome-trace", "--evict-log"};
    for (size_t i = 0; i < sizeof dropped / sizeof dropped[0]; i++) {
        if (strcmp(name, dropped[i]) == 0) {
            return 0;
        }
    }
    return 1;
}

int bench_evict(int argc, char **argv)
{
    run_args a;
    cli_opt all[RUN_ARGS_MAX], table[RUN_ARGS_MAX + 1];
    size_t n = run_args_table(&a, all, RUN_ARGS_MAX), count = 0;
    for (size_t i = 0; i < n; i++) {
        if (run_option_kept(all[i].name)) {
            table[count++] = all[i];
        }
    }
    int no_stream = 0;
    table[count++] = (cli_opt){.name = "--no-stream",
                               .kind = CLI_OPT_FLAG,
                               .dest = &no_stream,
                               .help = "only the replays: do not also stream with each pool policy"};
    size_t operands = 0;
    const cli_args spec = {.me = ME,
                           .opts = table,
                           .count = count,
                           .operands = &a.o.pack_path,
                           .max_operands = 1,
                           .operand_count = &operands,
                           .missing = "{opt} needs a value",
                           .unknown = "unexpected argument '{value}'",
                           .usage = EV_USAGE,
                           .usage_after = CLI_ARGS_ALL,
                           .help = 1,
                           .help_column = 24};
    int rc = cli_args_parse(&spec, argc, argv);
    if (rc == CLI_ARGS_HELP) {
        fputs(usage_text, stdout);
        cli_args_print_options(stdout, &spec);
        fputs(usage_tail, stdout);
        return CLI_OK;
    }
    if (rc != CLI_OK || (rc = run_args_finish(&a, ME, EV_USAGE)) != CLI_OK) {
        return rc;
    }
    ev_src c;
    ev_seq seq[SLC_POOL_KIND_COUNT];
    memset(&c, 0, sizeof c);
    memset(seq, 0, sizeof seq);
    rc = src_open(&c, &a.o);
    /* The texture pool when the pack has textures and the profile one to
     * stream them in (else the stream refuses, as run does). */
    const uint32_t kinds = rc == CLI_OK && slc_pack_texture_count(c.pack) > 0 ? 2u : 1u;
    if (rc == CLI_OK && tool_texture_pool_missing(c.pack, &c.prof, ME)) {
        rc = CLI_FAILED;
    }
    for (uint32_t k = 0; rc == CLI_OK && k < SLC_POOL_KIND_COUNT; k++) {
        rc = seq_layout(&seq[k], &c, k);
    }
    if (rc == CLI_OK) {
        rc = seq_record(seq, &c);
    }
    static ev_result res[SLC_POOL_KIND_COUNT][POOL_POLICIES + SIM_DEFS + 1];
    memset(res, 0, sizeof res);
    size_t nres[SLC_POOL_KIND_COUNT] = {0, 0};
    for (uint32_t k = 0; rc == CLI_OK && k < kinds; k++) {
        rc = evict_kind(&c, &seq[k], &a.o, no_stream, res[k], &nres[k]);
    }
    if (rc == CLI_OK) {
        if (a.o.json) {
            print_json(&c, &seq[0], res[0], nres[0], &seq[1], res[1], nres[1]);
        } else {
            for (uint32_t k = 0; k < kinds; k++) {
                print_text(&c, &seq[k], res[k], nres[k]);
            }
        }
    }
    for (uint32_t k = 0; k < SLC_POOL_KIND_COUNT; k++) {
        seq_free(&seq[k]);
    }
    src_close(&c);
    return rc;
}
