/* SPDX-License-Identifier: MIT */
/* The workload of `sluice run` and `sluice budget fit`: a trace read as a
 * stream (trace.h) or the built-in camera made frame by frame (camera.h),
 * each request checked against the pack as it is given. Its memory does not
 * grow with the frame or request count: a trace's reader holds one line, the
 * camera one frame. A trace is read once, in order, so a pipe works; a bad
 * line is found when the run reaches it (docs/trace-format.md).
 *
 * With a save file (workload_save), every request given is written to it as
 * it is given, so the file is the workload as far as it was consumed. */
#ifndef SLUICE_TOOLS_WORKLOAD_H
#define SLUICE_TOOLS_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "camera.h"
#include "sluice/pack.h"
#include "sluice/pool_spec.h"
#include "trace.h"

#define WORKLOAD_REQUESTS_MAX ((size_t)1 << 26) /* requests in one trace */

typedef struct workload {
    const slc_pack *pack;
    const char *pack_name;
    const char *trace_path; /* NULL: the camera */
    trace_reader rd;
    camera cam;
    uint32_t cam_count, cam_pos; /* the camera's current frame: its requests, the next to give */
    trace_req pending;           /* the trace's next request, read ahead */
    int has_pending;
    size_t given; /* requests given so far */
    FILE *save;
    const char *me;     /* the command, in messages */
    int rc;             /* after workload_next returned -1: CLI_FAILED or CLI_IO */
    char describe[160]; /* "trace NAME" or "camera fly, seed 1, sse 1 px" */
} workload;

/* Opens the trace at path, or (path NULL) the camera cam over pack (which
 * must outlive w). Prints the reason and returns CLI_IO (the trace cannot
 * be read), CLI_FAILED (a bad trace head, an empty pack) or CLI_OK;
 * workload_close either way. */
int workload_open(workload *w, const char *me, const char *path, const camera_desc *cam, const slc_pack *pack,
                  const char *pack_name);

/* Frames the workload runs, 0 while not known yet (a trace without a
 * 'frames N' line, not read to its end). */
uint32_t workload_frames(const workload *w);

/* Whether frame f runs: f below the frame count, or the count not known
 * and requests left. Frames are asked for in order. */
int workload_has_frame(const workload *w, uint32_t f);

/* The next request of frame f (frames in order): 1 with *out filled, 0 when
 * f has none left, -1 after printing the reason (a bad line, an object, LOD
 * or chunk the pack lacks, a read error) with w->rc its exit code. */
int workload_next(workload *w, uint32_t f, trace_req *out);

/* The name of the trace's partition index p (trace_req.partition). */
const char *workload_partition(const workload *w, uint8_t p);

/* The pool q's chunks go to, whose partitions its partition names: an
 * object's, the page pool; a chunk's, the pool of its kind (a texture
 * tile's: the texture pool). q's id must be in pack. O(1). */
slc_pool_kind workload_req_pool(const slc_pack *pack, const trace_req *q);

/* Writes every request given from now on to f, after the trace header
 * ("frames N" when known). Returns CLI_OK or CLI_IO (printed). */
int workload_save(workload *w, FILE *f, const char *path);

void workload_close(workload *w);

#endif
