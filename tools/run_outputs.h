/* SPDX-License-Identifier: MIT */
/* sluice run: per-frame figures aggregated as frames pass, in memory that
 * does not grow with the frame count, and the files written from them.
 *
 * - run_hist: caller times in log buckets (64 a power of two, values below
 *   64 exact); a percentile is the middle of its bucket, clamped to the
 *   largest value seen: within 1/128 (0.8%) of the exact nearest-rank value.
 * - run_timeline: the SVG timeline's series in at most RUN_TIMELINE_POINTS
 *   points, each the maximum over consecutive frames (1 frame a point up to
 *   that many frames; the span doubles, merging neighbours, each time the
 *   points run out), so the SVG stays under ~1 MB for any frame count; and,
 *   exactly, which budgets never changed after frame 0 (memory carved at
 *   init), which the SVG folds into one table instead of a flat plot each.
 * - run_chrome: Chrome trace-event JSON streamed to its file as frames pass,
 *   the first RUN_CHROME_FRAMES_MAX frames and the loads during them (about
 *   600 bytes a frame: 60 MB at the cap, which viewers still open); later
 *   frames are counted in a closing instant event, not written. */
#ifndef SLUICE_TOOLS_RUN_OUTPUTS_H
#define SLUICE_TOOLS_RUN_OUTPUTS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sluice/budget.h"
#include "sluice/stream.h"

#define RUN_HIST_SUB 64u
#define RUN_HIST_BUCKETS (64u * RUN_HIST_SUB)
#define RUN_TIMELINE_POINTS 1024u
#define RUN_CHROME_FRAMES_MAX 100000u

typedef struct run_hist {
    uint64_t count, max;
    uint64_t b[RUN_HIST_BUCKETS];
} run_hist;

void run_hist_add(run_hist *h, uint64_t v);

/* Nearest rank: (about) the smallest value with at least p% of the values at
 * or below it; 0 when empty. O(RUN_HIST_BUCKETS). */
uint64_t run_hist_percentile(const run_hist *h, unsigned p);

typedef struct run_point {
    uint64_t budgets[SLC_PROFILE_BUDGET_MAX];
    uint64_t uploaded;
    uint64_t caller_ns; /* the caller's time in the frame (slc_stream_frame_stats.caller_ns) */
    uint32_t pool_used, misses;
    double psnr_db;       /* with psnr_set: the lowest PSNR against the reference (+INFINITY: identical) */
    uint32_t psnr_set;    /* 1 once a frame of the point was compared */
    uint64_t gpu_ns;      /* with gpu_set: the most GPU time of its frames (sluice render's timestamps) */
    uint32_t gpu_set;     /* 1 once a frame of the point was timed on the GPU */
    uint32_t tex_used;    /* texture pool pages in use at the end of a frame (the most of its frames) */
    uint32_t tile_misses; /* tile requests not resident when asked in a frame (the most) */
} run_point;

typedef struct run_timeline {
    uint32_t span;                          /* frames a point: a power of two */
    uint32_t frames;                        /* added so far */
    uint64_t first[SLC_PROFILE_BUDGET_MAX]; /* each budget's use in frame 0 */
    uint8_t varied[SLC_PROFILE_BUDGET_MAX]; /* 1 once a later frame's use differed from frame 0's */
    run_point p[RUN_TIMELINE_POINTS];
} run_timeline;

/* Adds the next frame (call run_timeline_init first). O(1) amortised. */
void run_timeline_init(run_timeline *t);
void run_timeline_add(run_timeline *t, const slc_stream_frame_stats *fs, uint32_t pool_used);

/* Frame's PSNR against a reference rendering (sluice render --reference:
 * quality.h), known once the frame has retired, so for a frame already
 * added (frame < t->frames; a later one is ignored). A timeline with any
 * gets a PSNR row, each point the lowest of its frames. O(1). */
void run_timeline_set_psnr(run_timeline *t, uint32_t frame, double psnr_db);

/* Frame's texture pool figures (a stream with a texture pool): its pages
 * in use at the frame's end, and the frame's tile requests that were not
 * resident when asked. Call after run_timeline_add of the frame; a frame
 * not yet added is ignored. O(1). */
void run_timeline_set_textures(run_timeline *t, uint32_t frame, uint32_t used, uint32_t tile_misses);

/* Frame's GPU time (sluice render: the renderer's timestamps), known once
 * the frame has retired, so for a frame already added (a later one is
 * ignored). A timeline with any gets a GPU time row below the caller's,
 * each point the most of its frames. O(1). */
void run_timeline_set_gpu(run_timeline *t, uint32_t frame, uint64_t gpu_ns);

/* The top of an SVG plot's scale: the smallest 1, 2 or 5 times a power of
 * ten at or above v (1 for v <= 1); the timeline's and quality's plots. */
double svg_nice_ceil(double v);

/* What the SVG's title and rows name. */
typedef struct run_svg_info {
    const char *pack, *profile, *backend;
    int ok;                    /* the verdict */
    const slc_budget_stats *b; /* every budget, with its limit and peak */
    size_t nb;
    uint32_t page_count;
    uint64_t upload_cap;
    uint64_t frame_budget_ns;    /* --frame-budget-us, drawn on the caller's row; 0: none */
    uint32_t min_psnr_mdb;       /* the profile's [quality] floor, drawn on the PSNR row; 0: none */
    uint32_t texture_page_count; /* the texture pool's pages: its rows are drawn; 0: no texture pool */
} run_svg_info;

/* The SVG's text is monospace (DejaVu Sans Mono, whose advance is 0.602 em)
 * at RUN_SVG_FONT_PX, the title at RUN_SVG_TITLE_PX. Columns are sized from
 * an estimate that never falls short: RUN_SVG_GLYPH_EM em a byte of the
 * string (a byte is at most one glyph, a wide glyph takes two or more). */
#define RUN_SVG_FONT_PX 11.0
#define RUN_SVG_TITLE_PX 14.0
#define RUN_SVG_GLYPH_EM 0.62

/* Writes the timeline as SVG, every string escaped: a title; a row a series
 * (the caller's time a frame in microseconds, each budget that changed
 * during the run against its limit, pool pages used, bytes uploaded and
 * misses a frame, and, when frames were compared with a reference, their
 * PSNR in dB against the floor, identical frames at the top), each with its full label in a left column sized to the
 * longest label and its scale's values (bytes with units, microseconds,
 * counts) on the y axis; frame numbers on a shared x axis; and the budgets
 * that held the same use, their peak, over every frame folded into one
 * table row (name, limit, peak). At most RUN_TIMELINE_POINTS points a
 * series; the same input gives the same bytes. -1 on a write error. */
int run_timeline_write_svg(FILE *f, const run_timeline *t, const run_svg_info *info);

typedef struct run_chrome {
    FILE *f;
    uint32_t frames_written;
    uint64_t frames_left_out, loads_left_out;
    const slc_budget_stats *budgets; /* the telemetry's budgets, in its order (names) */
    size_t budget_count;
    uint64_t last[SLC_PROFILE_BUDGET_MAX]; /* each budget's value in its counter track's last sample */
} run_chrome;

/* Starts the trace: the process, the caller's and each worker's thread.
 * budgets[0 .. budget_count) names the telemetry's budgets, in its order
 * (slc_budgets_walk_report); they must live until run_chrome_end. */
void run_chrome_begin(run_chrome *c, FILE *f, uint32_t workers, const slc_budget_stats *budgets, size_t budget_count);
/* Frame k (in order) from start_ns to end_ns on the caller's thread: a slice
 * named "frame" (every frame the same name, so a viewer groups them; the
 * number is its "frame" argument) with the frame's counters as arguments,
 * and samples of the counter tracks at its end: "pool" (pages used),
 * "misses", "upload" (bytes), "caller loads" (loads the caller ran in the
 * frame: caller_loads), and "budget NAME" (bytes in use) for each budget,
 * sampled where its value changed (a track holds its value until the next
 * sample), every name escaped. */
void run_chrome_frame(run_chrome *c, uint32_t k, uint64_t start_ns, uint64_t end_ns, const slc_stream_frame_stats *fs,
                      uint32_t pool_used, uint64_t caller_loads);
/* The texture pool's counters for the frame just written by
 * run_chrome_frame (a stream with a texture pool): "texture pool" with its
 * pages used and the frame's tile requests not resident when asked. */
void run_chrome_textures(run_chrome *c, uint64_t end_ns, uint32_t used, uint32_t tile_misses);
/* A load on worker w (0-based) from t0 to t1 ns. */
void run_chrome_load(run_chrome *c, uint32_t w, uint64_t t0, uint64_t t1);
/* Closes the JSON; -1 when the stream saw a write error. */
int run_chrome_end(run_chrome *c, uint64_t loads_dropped);

#endif
