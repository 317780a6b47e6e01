/* SPDX-License-Identifier: MIT */
/* sluice run: the report, as a table or as JSON (stdout), from the run's
 * summary (every figure aggregated while it streamed) and what it ran. */
#ifndef SLUICE_TOOLS_RUN_REPORT_H
#define SLUICE_TOOLS_RUN_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "session.h"
#include "sluice/sluice.h"

#define RUN_REASONS_MAX 16
#define RUN_FAILED_NAMED_MAX 4u /* failed chunk loads the report names */
#define RUN_HOLDERS_MAX 5u      /* objects the report names as holding most of the pool */

/* An object's share of the pool's resident (and pinned) pages: each page
 * its chunk's clusters of the object over all its clusters, so shared
 * pages are split and the shares of every object add up to the pages. */
typedef struct run_holder {
    uint32_t object;
    const char *name; /* the pack's string, or NULL for an unnamed object */
    double pages;
} run_holder;

/* The pool's holders: top[0 .. *named) are the RUN_HOLDERS_MAX objects
 * with the largest shares, largest first (ties: the lower object id
 * first); *holders counts the objects with any share, *pages the resident
 * and pinned pages of the pack's chunks. Allocates nothing; O(the pack's
 * spans), one pool lookup each. */
void run_pool_holders(const slc_pack *pack, const slc_pool *pool, run_holder top[RUN_HOLDERS_MAX], uint32_t *named,
                      uint32_t *holders, uint32_t *pages);

/* The run judged: the stream's, pool's and budgets' totals, the frames'
 * aggregates, and every reason the verdict failed (none: it holds). */
typedef struct run_summary {
    slc_stream_stats st;
    slc_pool_stats ps;
    int has_tps;               /* the stream holds a texture pool */
    slc_pool_stats tps;        /* its stats (has_tps) */
    uint64_t tail_bytes;       /* the decoded bytes of the mip tails it pins (has_tps) */
    tool_texture_memory tmem;  /* the pack's textures (has_tps) */
    uint32_t page_size;        /* of the pools */
    uint32_t frame_w, frame_h; /* the frame the texel floor is for: [render], else the renderer's default */
    slc_budget_stats b[SLC_BUDGET_MAX];
    size_t nb;
    uint64_t p50, p99, max, wait_max;
    uint64_t objects, exact, coarser, none, stalls;
    uint64_t tiles, tiles_resident;               /* texture tile requests accepted, and those resident when asked */
    uint32_t over_budget, over_upload, over_time; /* frames */
    uint32_t first_over_budget, first_over_upload, first_over_time;
    uint64_t reservations_while_streaming;
    char failed[640]; /* "first: chunk 3 SLC_E_PACK_CHUNK_CHECKSUM (frame 2), ..." */
    char reasons[RUN_REASONS_MAX][768];
    uint32_t nreasons;
    run_holder holders[RUN_HOLDERS_MAX]; /* run_pool_holders at the end of the run */
    uint32_t holders_named, holders_count, holders_pages;
} run_summary;

/* What the run ran: the report's head and its context. */
typedef struct run_report_in {
    const char *pack_name;
    const slc_pack *pack;
    const slc_profile *prof;
    slc_memory *memory; /* its budgets' phases */
    const char *backend, *backend_detail;
    double store_init_ms;
    const char *workload; /* "camera fly, seed 1, sse 1 px" or "trace NAME" */
    size_t requests;      /* of the workload, made */
    uint32_t frames;      /* run */
    uint64_t wall_ns;
    uint64_t frame_budget_ns; /* 0: none */
    int allow_load_failures;
    /* NULL, or a command's own part of the report, before the verdict: lines
     * of text, or (json 1) members of the JSON object, each line
     * "  \"name\": value,\n". */
    void (*extra)(FILE *f, int json, void *user);
    void *extra_user;
} run_report_in;

/* The stream's first failed loads, at most RUN_FAILED_NAMED_MAX. */
uint32_t run_failures_named(const slc_stream_stats *st);

/* Where a chunk of the pack belongs: a texture's tile (its texture, mip
 * level and tile in that level) or mip tail, or geometry. */
typedef struct run_chunk_place {
    int texture;      /* the texture's index, or -1: not a texture's chunk */
    const char *name; /* the texture's name in the pack, or NULL */
    int tail;         /* 1: the texture's mip tail (level and tile are 0) */
    uint32_t level, tile;
} run_chunk_place;

/* Finds chunk c among the pack's textures' chunks into *w. O(textures):
 * one record read each; a record that cannot be read counts as not
 * holding c. */
void run_chunk_place_of(const slc_pack *pack, slc_chunk_id c, run_chunk_place *w);

/* " (texture 0 'brick', level 1, tile 2)", " (texture 0 'brick', mip
 * tail)" for a texture's chunk, or "" for geometry, into buf. */
void run_describe_chunk_place(const slc_pack *pack, slc_chunk_id c, char *buf, size_t cap);

/* "first: chunk 3 SLC_E_PACK_CHUNK_CHECKSUM (frame 2), ..." into buf; a
 * texture's chunk says which: "chunk 7 (texture 0 'brick', level 1, tile
 * 2)", "chunk 9 (texture 0 'brick', mip tail)". */
void run_describe_failures(const slc_pack *pack, const slc_stream_stats *st, char *buf, size_t cap);

/* The loads a worker or the caller ran that the stream had not applied
 * when the stats were taken (they were in flight at the end of the run):
 * worker_loads + caller_loads less the loads applied, failed and
 * cancelled, so that the report's parts add up to the loads run. 0 if
 * those exceed the loads run. O(1). */
uint64_t run_loads_unapplied(const slc_stream_stats *st);

/* The version of run --json's layout, its "schema_version" member. */
#define RUN_REPORT_SCHEMA 1

void run_report_text(const run_report_in *in, const run_summary *s);
void run_report_json(const run_report_in *in, const run_summary *s);

#endif
