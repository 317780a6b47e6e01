/* SPDX-License-Identifier: MIT */
/* The workload of `sluice run` and `sluice budget fit` (see workload.h). */
#include "workload.h"

#include <inttypes.h>
#include <string.h>

#include "cli.h"

void workload_close(workload *w)
{
    trace_reader_close(&w->rd);
    camera_free(&w->cam);
    w->save = NULL;
}

/* Reads the trace's next request ahead; CLI_OK or the failure (printed). */
static int read_ahead(workload *w)
{
    int k = trace_reader_next(&w->rd, &w->pending);
    w->has_pending = k == 1;
    if (k < 0) {
        fprintf(stderr, "%s\n", w->rd.err);
        return k == -2 ? CLI_IO : CLI_FAILED;
    }
    return CLI_OK;
}

int workload_open(workload *w, const char *me, const char *path, const camera_desc *cam, const slc_pack *pack,
                  const char *pack_name)
{
    memset(w, 0, sizeof *w);
    w->me = me;
    w->pack = pack;
    w->pack_name = pack_name;
    w->trace_path = path;
    if (path == NULL) {
        char err[256];
        if (camera_init(&w->cam, pack, cam, err, sizeof err) != 0) {
            fprintf(stderr, "%s: camera: %s\n", me, err);
            return CLI_FAILED;
        }
        snprintf(w->describe, sizeof w->describe, "camera %s, seed %" PRIu64 ", sse %.2g px",
                 camera_path_name(cam->path), cam->seed, (double)cam->sse_px);
        return CLI_OK;
    }
    if (trace_reader_open(&w->rd, path, WORKLOAD_REQUESTS_MAX) != 0) {
        fprintf(stderr, "sluice: %s\n", w->rd.err);
        return CLI_IO;
    }
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    snprintf(w->describe, sizeof w->describe, "trace %s", base);
    return read_ahead(w); /* the head: header and 'frames N' */
}

uint32_t workload_frames(const workload *w)
{
    return w->trace_path == NULL ? w->cam.desc.frames : trace_reader_frames(&w->rd);
}

int workload_has_frame(const workload *w, uint32_t f)
{
    uint32_t n = workload_frames(w);
    return n != 0 ? f < n : w->has_pending;
}

/* An object, LOD or chunk the pack lacks: "file:line: ..." and CLI_FAILED. */
static int check_req(const workload *w, const trace_req *q)
{
    const slc_pack_header *h = slc_pack_get_header(w->pack);
    const char *file = w->trace_path;
    if (q->kind == TRACE_OBJECT) {
        if (q->id >= h->object_count) {
            fprintf(stderr, "%s:%u: object %u is not in pack '%s' (it has %u objects)\n", file, q->line, q->id,
                    w->pack_name, h->object_count);
            return CLI_FAILED;
        }
        uint32_t lods = slc_pack_get_object(w->pack, (slc_object_id){q->id})->lod_count;
        if (q->lod >= lods) {
            fprintf(stderr, "%s:%u: object %u has no LOD %u in pack '%s' (it has %u)\n", file, q->line, q->id, q->lod,
                    w->pack_name, lods);
            return CLI_FAILED;
        }
    } else if (q->id >= h->chunk_count) {
        fprintf(stderr, "%s:%u: chunk %u is not in pack '%s' (it has %u chunks)\n", file, q->line, q->id, w->pack_name,
                h->chunk_count);
        return CLI_FAILED;
    }
    return CLI_OK;
}

int workload_next(workload *w, uint32_t f, trace_req *out)
{
    if (w->trace_path == NULL) {
        if (w->cam.next == f && f < w->cam.desc.frames) {
            w->cam_count = camera_frame(&w->cam);
            w->cam_pos = 0;
        }
        if (w->cam.next != f + 1u || w->cam_pos >= w->cam_count) {
            return 0;
        }
        *out = w->cam.reqs[w->cam_pos++];
    } else {
        if (!w->has_pending || w->pending.frame != f) {
            return 0;
        }
        *out = w->pending;
        int rc = check_req(w, out);
        if (rc == CLI_OK) {
            rc = read_ahead(w);
        }
        if (rc != CLI_OK) {
            w->has_pending = 0;
            w->rc = rc;
            return -1;
        }
    }
    w->given++;
    if (w->save != NULL) {
        const char *part = w->trace_path != NULL && out->partition != TRACE_PARTITION_DEFAULT
                               ? w->rd.partitions[out->partition]
                               : NULL;
        (void)trace_write_req(w->save, out, part); /* ferror is checked when the file is committed */
    }
    return 1;
}

slc_pool_kind workload_req_pool(const slc_pack *pack, const trace_req *q)
{
    return q->kind == TRACE_OBJECT
               ? SLC_POOL_GEOMETRY
               : slc_pool_kind_of_chunk_flags(slc_pack_get_chunk(pack, (slc_chunk_id){q->id})->flags);
}

const char *workload_partition(const workload *w, uint8_t p)
{
    return p < w->rd.partition_count ? w->rd.partitions[p] : "";
}

int workload_save(workload *w, FILE *f, const char *path)
{
    char comment[256];
    snprintf(comment, sizeof comment, "written by %s: %s over %s", w->me, w->describe, w->pack_name);
    if (trace_write_header(f, workload_frames(w), comment) != 0) {
        fprintf(stderr, "%s: %s: write failed\n", w->me, path);
        return CLI_IO;
    }
    w->save = f;
    return CLI_OK;
}
