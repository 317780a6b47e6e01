/* SPDX-License-Identifier: MIT */
/* sluice run: workload traces (docs/trace-format.md).
 *
 * A trace is a list of requests, each tagged with the frame it belongs to,
 * in file order (frames never decrease). The reader (trace_reader) takes
 * them one at a time from a file or from memory, in memory of its own size
 * whatever the trace's length: one line buffer of TRACE_LINE_MAX + 2 bytes
 * and the partition table. A line longer than TRACE_LINE_MAX fails at its
 * byte TRACE_LINE_MAX + 1 (+ 2 when that one is a '\r', which may end the
 * line), without reading the rest of it. trace_parse
 * keeps a whole trace in memory (one trace_req per request, grown by
 * doubling, at most max_requests) on top of the same reader. Both are pure
 * functions of their input: no global state, every error reported as
 * "file:line: what is wrong" in err; they accept any bytes (a NUL is an
 * error, not an end). */
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
    uint32_t id;   /* object or chunk id */
    uint32_t line; /* 1-based line in the file (0: generated) */
    uint8_t kind;  /* trace_kind */
    uint8_t lod;   /* TRACE_OBJECT only */
    uint8_t priority;
    uint8_t partition; /* index into trace.partitions, or TRACE_PARTITION_DEFAULT */
} trace_req;

typedef struct trace {
    uint32_t frames;   /* frames to run: the declared count, else the last frame + 1 */
    uint32_t declared; /* the "frames N" line's N, 0 if none */
    size_t count;
    size_t cap;
    trace_req *reqs; /* malloc'd; trace_free releases it */
    uint32_t partition_count;
    char partitions[TRACE_PARTITIONS_MAX][TRACE_NAME_MAX];
} trace;

/* The reader's state; its fields are read-only to callers. */
typedef struct trace_reader {
    const char *file; /* the name in messages */
    FILE *f;          /* the source, or NULL: mem */
    int own;          /* f was opened by trace_reader_open */
    const char *mem;
    size_t mem_len, mem_pos;
    size_t max_requests;
    size_t count;        /* requests returned so far */
    uint32_t line;       /* lines read so far */
    uint32_t declared;   /* the "frames N" line's N, 0 if none (known once next returned anything) */
    uint32_t last_frame; /* of the last request returned */
    int header, ended;
    uint32_t partition_count;
    char partitions[TRACE_PARTITIONS_MAX][TRACE_NAME_MAX];
    char buf[TRACE_LINE_MAX + 2u];
    char err[512];
} trace_reader;

/* A reader over len bytes of text (file names it in messages); nothing to close. */
void trace_reader_init_mem(trace_reader *rd, const char *text, size_t len, const char *file, size_t max_requests);

/* A reader over an open stream (not closed by trace_reader_close). */
void trace_reader_init_stream(trace_reader *rd, FILE *f, const char *file, size_t max_requests);

/* Opens path for reading (a pipe is fine: the trace is read once, in
 * order). Returns 0, or -1 with "PATH: reason" in rd->err. */
int trace_reader_open(trace_reader *rd, const char *path, size_t max_requests);

/* The next request, in file order. Returns 1 and fills *out; 0 at the end
 * of a valid trace (the end is checked: a header, at least one frame);
 * -1 on bad input with "file:line: message" in rd->err; -2 when the file
 * cannot be read ("file: read failed: reason"). After -1 or -2 every call
 * returns the same. O(bytes of the lines read); no allocation. */
int trace_reader_next(trace_reader *rd, trace_req *out);

/* Frames the trace runs: the declared count, else (once next returned 0)
 * the last request's frame + 1; 0 while neither is known. */
uint32_t trace_reader_frames(const trace_reader *rd);

/* Closes the file opened by trace_reader_open; safe on a memory reader. */
void trace_reader_close(trace_reader *rd);

/* Writes the header of a trace (and "frames N" when frames is not 0):
 * trace_write_req then writes each request. -1 on a write error. */
int trace_write_header(FILE *f, uint32_t frames, const char *comment);
int trace_write_req(FILE *f, const trace_req *r, const char *partition);

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
