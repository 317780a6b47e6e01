/* sluice run: workload traces (docs/trace-format.md).
 *
 * A trace is a list of requests, each tagged with the frame it belongs to,
 * in file order (frames never decrease). trace_parse is a pure function of
 * its input: no global state, memory bounded by max_requests (one
 * trace_req per request, grown by doubling), every error reported as
 * "file:line: what is wrong" in err. It never reads past len and accepts
 * any bytes (a NUL is an error, not an end). */
#ifndef SLUICE_TOOLS_TRACE_H
#define SLUICE_TOOLS_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define TRACE_VERSION 1u
#define TRACE_LINE_MAX 1024u        /* bytes of one line, its end excluded */
#define TRACE_PARTITIONS_MAX 16u    /* distinct partition names in one trace */
#define TRACE_NAME_MAX 32u          /* bytes of a partition name, NUL included */
#define TRACE_FRAMES_MAX 100000000u /* frame numbers are below this */
#define TRACE_PARTITION_DEFAULT 0xFFu

typedef enum trace_kind { TRACE_OBJECT = 0, TRACE_CHUNK = 1 } trace_kind;

typedef struct trace_req {
    uint32_t frame;
    uint32_t id;        /* object or chunk id */
    uint32_t line;      /* 1-based line in the file (0: generated) */
    uint8_t kind;       /* trace_kind */
    uint8_t lod;        /* TRACE_OBJECT only */
    uint8_t priority;
    uint8_t partition;  /* index into trace.partitions, or TRACE_PARTITION_DEFAULT */
} trace_req;

typedef struct trace {
    uint32_t frames;    /* frames to run: the declared count, else the last frame + 1 */
    uint32_t declared;  /* the "frames N" line's N, 0 if none */
    size_t count;
    size_t cap;
    trace_req *reqs;    /* malloc'd; trace_free releases it */
    uint32_t partition_count;
    char partitions[TRACE_PARTITIONS_MAX][TRACE_NAME_MAX];
} trace;

/* Parses len bytes of text (file names it in messages). At most
 * max_requests requests are accepted (more is an error). Returns 0 and
 * fills *out (free it with trace_free), or -1 with err holding
 * "file:line: message" and *out empty. */
int trace_parse(const char *text, size_t len, const char *file, size_t max_requests, trace *out, char *err,
                size_t errcap);

/* Appends one request (frames must not decrease); -1 when out of memory or
 * past max_requests. Used by generators. */
int trace_push(trace *t, const trace_req *r, size_t max_requests);

/* Writes t in the format trace_parse reads; returns 0, or -1 on a write error. */
int trace_write(FILE *f, const trace *t, const char *comment);

void trace_free(trace *t);

#endif
