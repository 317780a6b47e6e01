/* SPDX-License-Identifier: MIT */
/* sluice render --reference: image quality under a budget.
 *
 * The same workload is rendered twice in lockstep: under the profile, and
 * under its reference profile (quality_reference_profile: a pool that holds
 * every chunk of the pack, every level pinned, so every request is served at
 * the level it asked for). Each frame's two images are compared here.
 *
 * - quality_compare: the luminance PSNR of two RGBA8 images and the share
 *   of pixels whose luminance differs by more than a threshold. Luminance is
 *   Rec. 709 (Y = 0.2126 R + 0.7152 G + 0.0722 B, on the 8-bit values as
 *   they are, no linearisation), computed exactly in integers (in units of
 *   1/10000 of a level); alpha is not compared. Identical luminance gives a
 *   PSNR of +INFINITY: "inf" in text, null in JSON.
 * - quality_series: the frames' figures in memory that does not grow with
 *   the frame count. min PSNR, its frame (the earliest on a tie), the
 *   largest share and its frame are exact; the 5th percentile and the median
 *   come from a histogram of QUALITY_HIST_BINS bins of 0.01 dB over
 *   [0, QUALITY_HIST_MAX_DB) (a finite PSNR at or above the top counts in the
 *   last bin, an infinite one in a bin of its own above it): a percentile is
 *   its bin's lower edge, clamped to the exact minimum, so it is never above
 *   the exact nearest-rank value and at most 0.01 dB below it. The SVG's
 *   series is at most QUALITY_SVG_POINTS points, each the lowest PSNR of
 *   consecutive frames (the span doubles, merging neighbours, each time the
 *   points run out, as the run timeline's do).
 * - the JSON (quality_json_*), streamed a frame at a time, and the SVG plot
 *   (quality_write_svg), every string escaped (escape.h); the caller writes
 *   both through atomic_file.h.
 * - quality_check_floor: the profile's [quality] min_psnr_db against the
 *   minimum. */
#ifndef SLUICE_TOOLS_QUALITY_H
#define SLUICE_TOOLS_QUALITY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "atomic_file.h"
#include "quality_profile.h"
#include "sluice/pack.h"
#include "sluice/profile.h"
#include "sluice/render_profile.h"

#define QUALITY_DIFF_THRESHOLD_DEFAULT 8u /* levels of 255 */
#define QUALITY_HIST_MAX_DB 200u
#define QUALITY_HIST_BINS (QUALITY_HIST_MAX_DB * 100u)
#define QUALITY_SVG_POINTS 1024u

/* An RGBA8 image: rows top first, stride bytes apart. */
typedef struct quality_image {
    uint32_t width, height;
    size_t stride;
    const uint8_t *rgba;
} quality_image;

/* One frame's comparison. */
typedef struct quality_frame {
    uint32_t frame; /* the workload's frame, 0-based */
    double psnr_db; /* +INFINITY when the luminance is identical */
    double share;   /* 0..1: pixels whose luminance differs by more than the threshold */
    uint64_t over;  /* those pixels */
    uint64_t pixels;
} quality_frame;

/* Compares a (the budgeted frame) with b (the reference): fills out's
 * psnr_db, share, over and pixels (frame is the caller's). threshold is in
 * levels of 255: a pixel counts when |Ya - Yb| > threshold. Returns 0, or -1
 * when the sizes differ or are 0 (out untouched). O(pixels); exact: the
 * same images give the same figures on every architecture. */
int quality_compare(const quality_image *a, const quality_image *b, uint32_t threshold, quality_frame *out);

typedef struct quality_series {
    uint32_t frames;
    double min_db; /* +INFINITY until a finite frame */
    uint32_t min_frame;
    double max_share;
    uint32_t max_share_frame;
    double top_db; /* the largest finite PSNR (0 when none) */
    uint32_t inf_count;
    uint32_t bins[QUALITY_HIST_BINS];
    /* the SVG's series: the lowest PSNR of each span of frames */
    uint32_t span; /* frames a point: a power of two */
    double points[QUALITY_SVG_POINTS];
} quality_series;

void quality_series_init(quality_series *s);
/* Adds the next frame (in order). O(1) amortised. */
void quality_series_add(quality_series *s, const quality_frame *f);

typedef struct quality_summary {
    uint32_t frames;
    double min_db, p5_db, median_db; /* +INFINITY when every frame was identical */
    uint32_t worst_frame;            /* lowest PSNR, the earliest on a tie (the first frame when all are inf) */
    double max_share;
    uint32_t max_share_frame;
} quality_summary;

/* Nearest rank: the smallest PSNR with at least p% of the frames at or
 * below it (within a bin, see above); +INFINITY when that rank is an
 * identical frame; 0 when there are no frames. O(QUALITY_HIST_BINS). */
double quality_series_percentile(const quality_series *s, unsigned p);
void quality_series_summarise(const quality_series *s, quality_summary *out);

/* "30.07" (two decimals) or "inf", into buf. */
const char *quality_db(double db, char *buf, size_t cap);

/* The summary's line: "quality: PSNR min X dB (frame N), p5 Y dB, median Z
 * dB; pixels over threshold: max S% (frame M)". */
void quality_format_summary(const quality_summary *q, char *buf, size_t cap);

/* The floor (milli-dB; 0: none) against the minimum. Returns 0 when it
 * holds, or -1 with "quality: frame N has PSNR X dB, below the floor of Y
 * dB (SOURCE)" in msg, SOURCE naming where the floor came from (NULL: "the
 * profile's [quality] min_psnr_db"). */
int quality_check_floor(const quality_summary *q, uint32_t min_psnr_mdb, const char *source, char *msg, size_t cap);

/* The reference profile of base for a pack: base with a pool of the pack's
 * page size that holds every chunk besides the pages base's named
 * partitions claim (kept, so a workload's partitions still resolve), the
 * pack's largest lod_count pinned (every level of every object resident
 * from the first frame); for a pack with textures, a texture pool of every
 * tile and mip tail (plus the pages base's [texture_partitions] name) with
 * [textures] pin_tiles (every texel resident from the first frame) and
 * gpu/textures grown to it; the upload cap the whole pool, the staging belt
 * (where base has one) the whole pool, the queues as large as the pack's
 * objects and chunks together, the tables at least the pack's, and the
 * budgets grown to match: gpu/pool and gpu/staging to the pool and the belt;
 * cpu/meta, cpu/queues and cpu/decode by what the stream needs beyond base's
 * (slc_stream_calculate_footprint of both, for scratch_size and
 * telemetry_frames as the caller will create the stream with); then every
 * parent to at least the sum of its children; and, when render is not
 * NULL (in: the base's [render]; out: the reference's, written only on
 * success), the renderer's max_draws and max_placements at least what
 * drawing every object once at its largest level takes, at most
 * SLC_RENDER_LIST_MAX (the caller grows cpu/render and gpu/render by
 * what those lists cost on its device: quality_profile_add). The name becomes
 * "NAME-reference" (cut to fit). Whether the device holds the union is the
 * backend's to say at init.
 *
 * quality_reference_profile_for takes the pack's figures instead of the
 * pack. Each returns 0, or -1 with msg naming the profile, the pack and the
 * bound exceeded (pages over SLC_PAGE_COUNT_MAX, a page size out of range,
 * more levels than a profile may pin, sizes that overflow). O(budgets +
 * objects). */
typedef struct quality_pack_figures {
    const char *name; /* the pack's name, for messages */
    uint32_t page_size;
    uint32_t chunk_count;    /* every chunk, geometry and texture */
    uint32_t texture_chunks; /* of which the textures' tiles and mip tails */
    uint32_t object_count;
    uint32_t max_lods; /* the largest lod_count of an object */
    uint64_t string_size;
    /* the renderer's lists when each object is drawn once at its largest
     * level: the sum over objects of a level's most clusters, and the pack's
     * instances (its objects, when it has none: each placed once) */
    uint64_t max_draws, max_placements;
} quality_pack_figures;

void quality_pack_figures_get(const slc_pack *pack, const char *name, quality_pack_figures *out);

/* Adds bytes to budget's limit and grows its ancestors to hold their
 * children. Returns 0, or -1 with msg when p has no such budget or a limit
 * would pass SLC_PROFILE_SIZE_MAX (p unchanged). O(budgets). */
int quality_profile_add(slc_profile *p, const char *budget, uint64_t bytes, char *msg, size_t cap);
int quality_reference_profile_for(const slc_profile *base, const quality_pack_figures *pack, size_t scratch_size,
                                  uint32_t telemetry_frames, slc_profile *out, slc_render_profile *render, char *msg,
                                  size_t cap);
int quality_reference_profile(const slc_profile *base, const slc_pack *pack, const char *pack_name, size_t scratch_size,
                              uint32_t telemetry_frames, slc_profile *out, slc_render_profile *render, char *msg,
                              size_t cap);

/* What the JSON and the SVG name. */
typedef struct quality_info {
    const char *pack, *profile, *reference; /* names */
    uint32_t width, height;
    uint32_t threshold;       /* levels of 255 */
    uint32_t min_psnr_mdb;    /* the floor; 0: none */
    const char *floor_source; /* where it came from, in messages (NULL: the profile's [quality] min_psnr_db) */
} quality_info;

/* The JSON: begin, a frame at a time, then end with the summary:
 * {"pack": ..., "profile": ..., "reference": ..., "width": W, "height": H,
 *  "diff_threshold": T, "min_psnr_db": F or null,
 *  "frames": [{"frame": N, "psnr_db": X or null, "over_share": S,
 *              "over_pixels": P}, ...],
 *  "summary": {"frames": N, "min_psnr_db": X or null, "worst_frame": N,
 *              "p5_psnr_db": Y or null, "median_psnr_db": Z or null,
 *              "max_over_share": S, "max_over_frame": M},
 *  "floor": {"holds": true|false, "frame": N or null}}
 * A PSNR of +INFINITY (identical frames) is null. end returns -1 when the
 * stream saw a write error. */
typedef struct quality_json {
    FILE *f;
    uint32_t frames; /* written so far */
} quality_json;

void quality_json_begin(quality_json *j, FILE *f, const quality_info *info);
void quality_json_frame(quality_json *j, const quality_frame *fr);
int quality_json_end(quality_json *j, const quality_info *info, const quality_summary *q);

/* The "summary" and "floor" objects alone, for a command's own report. */
void quality_json_summary(FILE *f, const quality_summary *q);
void quality_json_floor(FILE *f, const quality_summary *q, uint32_t min_psnr_mdb);

/* A comparison over a run, for a command (sluice render --reference): the
 * series, the JSON streamed to its file as frames pass and the SVG made at
 * the end, both files through a temporary renamed over the target only when
 * the command completes (atomic_file.h), so a failed command leaves the old
 * files as they were. */
typedef struct quality_session {
    quality_info info;
    quality_series series; /* large: allocate the session */
    quality_json json;
    atomic_file json_file, svg_file;
    const char *json_path, *svg_path; /* NULL: not written */
    int open;
} quality_session;

/* Opens the files (json_path, svg_path: NULL for none), refusing one that
 * names one of inputs[0..ninputs) (NULL entries skipped). me names the
 * command in messages. Returns 0, or -1 with "ME: PATH: ..." printed on
 * stderr and nothing created. */
int quality_session_open(quality_session *q, const quality_info *info, const char *json_path, const char *svg_path,
                         const char *const *inputs, size_t ninputs, const char *me);

/* Compares frame f of the budgeted run (a) with the reference's (ref) and
 * adds it (frames in order). Returns 0, or -1 with "ME: frame F: the
 * images differ in size (AxB against CxD)" printed. fr (may be NULL)
 * receives the frame's figures. */
int quality_session_frame(quality_session *q, uint32_t f, const quality_image *a, const quality_image *ref,
                          quality_frame *fr, const char *me);

/* After the last frame: the summary (out, may be NULL) and its line printed
 * on report (NULL: not printed), the floor checked (its message on stderr when it fails), the
 * files written and committed. Returns 0 when the floor holds, 1 when it
 * does not (the files are still written: they show why), -1 when a file
 * could not be written (printed; none is replaced). */
int quality_session_finish(quality_session *q, FILE *report, quality_summary *out, const char *me);

/* Removes the temporaries; the targets are left as they were. Safe after
 * finish and on a zeroed session. */
void quality_session_abort(quality_session *q);

/* The SVG plot of PSNR over the frames: a title naming the pack and both
 * profiles, y-axis values in dB, frame numbers, the floor as a dashed line
 * when there is one, identical frames (inf) drawn at the top; every string
 * escaped; the same input gives the same bytes. -1 on a write error. */
int quality_write_svg(FILE *f, const quality_series *s, const quality_info *info);

#endif
