/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the trace parser of `sluice run` (trace_parse,
 * tools/trace.c, compiled into the target) on any bytes, checked for
 * properties, not only for crashes. Built by the `fuzz` preset (clang,
 * ASan+UBSan, so a leak is a finding too) and run by the test command for a
 * bounded time; every other preset replays the seed corpus
 * (tests/fuzz/corpus/trace) through tests/fuzz/replay.c.
 *
 * On success (docs/trace-format.md): at most max_requests requests; frames
 * in 1..TRACE_FRAMES_MAX, equal to the declared count when there is one and
 * to the last request's frame + 1 otherwise; every request's frame
 * non-decreasing and below frames; its line a line of the input, after the
 * previous request's; kind, LOD (0 for a chunk), id and partition in their
 * documented ranges; every partition name valid, unique and used. The trace
 * written back by trace_write parses to an equal trace (lines aside), and
 * the same input parses the same with a cap of exactly its request count,
 * and fails ("more than N requests") with one less.
 * On failure: -1, *out all zero, and the message is "fuzz.trace:LINE: ..."
 * with LINE a line of the input (1 for an empty one) and text after it; the
 * result does not depend on the file name or on whether a message is asked
 * for. The same bytes read from a stream (fmemopen: the reader's path for
 * files and pipes) give the same requests, partitions and frame count, or
 * the same message. A broken property aborts with its name, which libFuzzer
 * reports. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"

#define FILE_NAME "fuzz.trace"
#define MAX_REQUESTS ((size_t)1 << 16)

static void require(int ok, const char *what, const char *detail)
{
    if (!ok) {
        fprintf(stderr, "fuzz_trace: property broken: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
        abort();
    }
}
#define REQUIRE(x) require((x) != 0, #x, NULL)
#define REQUIRE_MSG(x, detail) require((x) != 0, #x, detail)

/* Lines as the parser counts them: segments ended by '\n' or by the end. */
static uint32_t line_count(const char *text, size_t len)
{
    uint32_t n = 0;
    for (size_t i = 0; i < len; i++) {
        n += text[i] == '\n';
    }
    return n + (len > 0 && text[len - 1] != '\n' ? 1u : 0u);
}

static int all_zero(const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        if (b[i] != 0) {
            return 0;
        }
    }
    return 1;
}

static int name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
           c == '/' || c == '.';
}

static void check_ok(const trace *t, uint32_t lines, size_t max_requests)
{
    REQUIRE(t->count <= max_requests && t->count <= t->cap);
    REQUIRE(t->count == 0 || t->reqs != NULL);
    REQUIRE(t->frames >= 1 && t->frames <= TRACE_FRAMES_MAX);
    REQUIRE(t->declared <= TRACE_FRAMES_MAX);
    if (t->declared != 0) {
        REQUIRE(t->frames == t->declared);
    } else {
        REQUIRE(t->count > 0 && t->frames == t->reqs[t->count - 1].frame + 1u);
    }
    REQUIRE(t->partition_count <= TRACE_PARTITIONS_MAX);
    int used[TRACE_PARTITIONS_MAX] = {0};
    for (size_t i = 0; i < t->count; i++) {
        const trace_req *r = &t->reqs[i];
        REQUIRE(r->frame < t->frames && r->frame < TRACE_FRAMES_MAX);
        REQUIRE(r->line >= 1 && r->line <= lines);
        if (i > 0) {
            REQUIRE(r->frame >= t->reqs[i - 1].frame); /* frames never decrease */
            REQUIRE(r->line > t->reqs[i - 1].line);    /* one request a line, in file order */
        }
        REQUIRE(r->kind == TRACE_OBJECT || r->kind == TRACE_CHUNK);
        REQUIRE(r->id <= UINT32_MAX - 1u);
        REQUIRE(r->lod <= 254u);
        if (r->kind == TRACE_CHUNK) {
            REQUIRE(r->lod == 0);
        }
        REQUIRE(r->partition == TRACE_PARTITION_DEFAULT || r->partition < t->partition_count);
        if (r->partition != TRACE_PARTITION_DEFAULT) {
            used[r->partition] = 1;
        }
    }
    for (uint32_t p = 0; p < t->partition_count; p++) {
        const char *name = t->partitions[p];
        const char *nul = memchr(name, '\0', TRACE_NAME_MAX);
        REQUIRE(nul != NULL && nul != name);
        for (const char *c = name; c < nul; c++) {
            REQUIRE_MSG(name_char(*c), name);
        }
        REQUIRE_MSG(used[p], name); /* a name is only kept with its request */
        for (uint32_t q = 0; q < p; q++) {
            REQUIRE_MSG(strcmp(t->partitions[q], name) != 0, name);
        }
    }
    for (uint32_t p = t->partition_count; p < TRACE_PARTITIONS_MAX; p++) {
        REQUIRE(all_zero(t->partitions[p], TRACE_NAME_MAX));
    }
}

/* Equal as a workload: frames, requests (lines aside) and partition names. */
static void check_equal(const trace *a, const trace *b)
{
    REQUIRE(a->frames == b->frames);
    REQUIRE(a->count == b->count);
    REQUIRE(a->partition_count == b->partition_count);
    for (uint32_t p = 0; p < a->partition_count; p++) {
        REQUIRE(strcmp(a->partitions[p], b->partitions[p]) == 0);
    }
    for (size_t i = 0; i < a->count; i++) {
        const trace_req *x = &a->reqs[i], *y = &b->reqs[i];
        REQUIRE(x->frame == y->frame && x->id == y->id && x->kind == y->kind && x->lod == y->lod &&
                x->priority == y->priority && x->partition == y->partition);
    }
}

/* trace_write, then trace_parse of what it wrote. */
static void check_round_trip(const trace *t)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    REQUIRE(f != NULL);
    REQUIRE(trace_write(f, t, "written back by fuzz_trace") == 0);
    REQUIRE(fclose(f) == 0);
    trace again;
    char err[512];
    int rc = trace_parse(buf, len, "written", MAX_REQUESTS, &again, err, sizeof err);
    REQUIRE_MSG(rc == 0, err);
    REQUIRE(again.declared == t->frames);
    check_equal(t, &again);
    /* What the writer writes, it writes again byte for byte. */
    char *buf2 = NULL;
    size_t len2 = 0;
    f = open_memstream(&buf2, &len2);
    REQUIRE(f != NULL);
    REQUIRE(trace_write(f, &again, "written back by fuzz_trace") == 0);
    REQUIRE(fclose(f) == 0);
    REQUIRE(len2 == len && memcmp(buf, buf2, len) == 0);
    free(buf2);
    free(buf);
    trace_free(&again);
}

/* "file:LINE: " then a non-empty message, LINE a line of the input. */
static void check_err(const char *err, size_t cap, const char *file, uint32_t lines)
{
    REQUIRE(memchr(err, '\0', cap) != NULL);
    size_t flen = strlen(file);
    REQUIRE_MSG(strncmp(err, file, flen) == 0 && err[flen] == ':', err);
    const char *p = err + flen + 1;
    REQUIRE_MSG(*p >= '1' && *p <= '9', err);
    uint64_t line = 0;
    while (*p >= '0' && *p <= '9') {
        line = line * 10u + (uint64_t)(*p - '0');
        REQUIRE_MSG(line <= UINT32_MAX, err);
        p++;
    }
    REQUIRE_MSG(p[0] == ':' && p[1] == ' ' && p[2] != '\0', err);
    REQUIRE_MSG(line <= (lines == 0 ? 1u : lines), err);
}

/* The stream reader over the same bytes agrees with trace_parse: its result
 * t (rc 0) or its message err (rc -1). */
static void check_stream(const char *text, size_t size, int rc, const trace *t, const char *err)
{
    if (size == 0) {
        return; /* fmemopen refuses an empty buffer */
    }
    FILE *f = fmemopen((void *)(uintptr_t)text, size, "r");
    REQUIRE(f != NULL);
    static trace_reader rd;
    trace_reader_init_stream(&rd, f, FILE_NAME, MAX_REQUESTS);
    trace_req r;
    size_t n = 0;
    int k;
    while ((k = trace_reader_next(&rd, &r)) == 1) {
        if (rc != 0) {
            continue; /* the requests before the bad line */
        }
        REQUIRE(n < t->count);
        const trace_req *x = &t->reqs[n++];
        REQUIRE(x->frame == r.frame && x->id == r.id && x->kind == r.kind && x->lod == r.lod &&
                x->priority == r.priority && x->partition == r.partition && x->line == r.line);
    }
    REQUIRE(trace_reader_next(&rd, &r) == k); /* the end, or the failure, stays */
    if (rc == 0) {
        REQUIRE(k == 0 && n == t->count);
        REQUIRE(trace_reader_frames(&rd) == t->frames);
        REQUIRE(rd.partition_count == t->partition_count);
        REQUIRE(memcmp(rd.partitions, t->partitions, sizeof rd.partitions) == 0);
    } else {
        REQUIRE(k == -1);
        REQUIRE_MSG(strcmp(rd.err, err) == 0, rd.err);
    }
    trace_reader_close(&rd);
    REQUIRE(fclose(f) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    uint32_t lines = line_count(text, size);
    trace t;
    char err[512];
    memset(err, 0xA5, sizeof err); /* the parser must write all of what it reports */
    int rc = trace_parse(text, size, FILE_NAME, MAX_REQUESTS, &t, err, sizeof err);
    REQUIRE(rc == 0 || rc == -1);
    check_stream(text, size, rc, &t, err);
    if (rc == 0) {
        REQUIRE(err[0] == '\0');
        check_ok(&t, lines, MAX_REQUESTS);
        check_round_trip(&t);
        /* Deterministic, and the cap is exact. */
        trace again;
        REQUIRE(trace_parse(text, size, "other", t.count, &again, NULL, 0) == 0);
        REQUIRE(again.declared == t.declared);
        check_equal(&t, &again);
        trace_free(&again);
        if (t.count > 0) {
            char err2[512];
            REQUIRE(trace_parse(text, size, FILE_NAME, t.count - 1u, &again, err2, sizeof err2) == -1);
            REQUIRE(all_zero(&again, sizeof again));
            check_err(err2, sizeof err2, FILE_NAME, lines);
            REQUIRE_MSG(strstr(err2, "more than") != NULL, err2);
        }
        trace_free(&t);
        REQUIRE(all_zero(&t, sizeof t));
        return 0;
    }
    REQUIRE(all_zero(&t, sizeof t));
    check_err(err, sizeof err, FILE_NAME, lines);
    /* The same failure under another name, and without a message. */
    char err2[512];
    REQUIRE(trace_parse(text, size, "x", MAX_REQUESTS, &t, err2, sizeof err2) == -1);
    REQUIRE(all_zero(&t, sizeof t));
    check_err(err2, sizeof err2, "x", lines);
    REQUIRE_MSG(strcmp(strchr(err + strlen(FILE_NAME) + 1, ':'), strchr(err2 + 2, ':')) == 0, err2);
    REQUIRE(trace_parse(text, size, FILE_NAME, MAX_REQUESTS, &t, NULL, 0) == -1);
    REQUIRE(all_zero(&t, sizeof t));
    return 0;
}
