/* SPDX-License-Identifier: MIT */
/* sluice run: the trace reader and writer (docs/trace-format.md). */
#define _POSIX_C_SOURCE 200809L /* getc_unlocked */
#include "trace.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

enum { TOKENS_MAX = 8 };

typedef struct token {
    const char *p;
    size_t n;
} token;

static int tok_is(const token *t, const char *s)
{
    return t->n == strlen(s) && memcmp(t->p, s, t->n) == 0;
}

/* A decimal number with no sign and no spaces: 1 when in [0, max], -1 when
 * all digits but above max (out of range, however many digits), 0 when not
 * a number. */
static int tok_u32(const token *t, uint32_t max, uint32_t *out)
{
    if (t->n == 0) {
        return 0;
    }
    uint64_t v = 0;
    for (size_t i = 0; i < t->n; i++) {
        if (t->p[i] < '0' || t->p[i] > '9') {
            return 0;
        }
        v = v * 10u + (uint64_t)(t->p[i] - '0');
        if (v > UINT32_MAX) {
            v = (uint64_t)UINT32_MAX + 1u; /* saturated: above every max */
        }
    }
    if (v > max || t->n > 10) { /* numbers have at most 10 digits */
        return -1;
    }
    *out = (uint32_t)v;
    return 1;
}

/* "what 'tok'" with the token cut to 40 bytes for the message. */
static int tok_len(const token *t)
{
    return t->n > 40 ? 40 : (int)t->n;
}

int trace_push(trace *t, const trace_req *r, size_t max_requests)
{
    if (t->count >= max_requests) {
        return -1;
    }
    if (t->count == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 256;
        if (cap > max_requests) {
            cap = max_requests;
        }
        trace_req *n = realloc(t->reqs, cap * sizeof *n);
        if (n == NULL) {
            return -1;
        }
        t->reqs = n;
        t->cap = cap;
    }
    t->reqs[t->count++] = *r;
    if (r->frame + 1u > t->frames) {
        t->frames = r->frame + 1u;
    }
    return 0;
}

void trace_free(trace *t)
{
    free(t->reqs);
    memset(t, 0, sizeof *t);
}

/* The partition index of a name, added if new; -1 when the table is full. */
static int partition_index(trace_reader *rd, const token *name)
{
    for (uint32_t i = 0; i < rd->partition_count; i++) {
        if (tok_is(name, rd->partitions[i])) {
            return (int)i;
        }
    }
    if (rd->partition_count >= TRACE_PARTITIONS_MAX) {
        return -1;
    }
    memcpy(rd->partitions[rd->partition_count], name->p, name->n);
    rd->partitions[rd->partition_count][name->n] = '\0';
    return (int)rd->partition_count++;
}

static int valid_name(const token *t)
{
    if (t->n == 0 || t->n >= TRACE_NAME_MAX) {
        return 0;
    }
    for (size_t i = 0; i < t->n; i++) {
        char c = t->p[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
              c == '/' || c == '.')) {
            return 0;
        }
    }
    return 1;
}

/* rd->err = "file:line: " and the message. */
static void rd_err(trace_reader *rd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int k = snprintf(rd->err, sizeof rd->err, "%s:%u: ", rd->file, rd->line);
    if (k >= 0 && (size_t)k < sizeof rd->err) {
        /* va_start is above: the analyzer's valist checker loses it here (a false positive) */
        vsnprintf(rd->err + k, sizeof rd->err - (size_t)k, fmt, ap); /* NOLINT(clang-analyzer-valist.Uninitialized) */
    }
    va_end(ap);
}

/* A number field of a request: 0, or -1 with the message. */
static int req_u32(trace_reader *rd, const token *t, const char *what, uint32_t max, uint32_t *out)
{
    int k = tok_u32(t, max, out);
    if (k == 1) {
        return 0;
    }
    if (k < 0) {
        rd_err(rd, "%s '%.*s' is out of range (at most %u)", what, tok_len(t), t->p, max);
    } else if (max == 255u || max == 254u) {
        rd_err(rd, "%s '%.*s' is not a number in 0..%u", what, tok_len(t), t->p, max);
    } else {
        rd_err(rd, "%s '%.*s' is not a number", what, tok_len(t), t->p);
    }
    return -1;
}

/* Parses one request line (tokens after comment removal); 0 or -1 with rd->err. */
static int parse_request(trace_reader *rd, const token *tk, int nt, trace_req *out)
{
    trace_req r;
    memset(&r, 0, sizeof r);
    r.line = rd->line;
    r.partition = TRACE_PARTITION_DEFAULT;
    int k = tok_u32(&tk[0], TRACE_FRAMES_MAX - 1u, &r.frame);
    if (k < 0) {
        rd_err(rd, "frame '%.*s' is out of range (frames are below %u)", tok_len(&tk[0]), tk[0].p, TRACE_FRAMES_MAX);
        return -1;
    }
    if (k == 0) {
        rd_err(rd,
               "frame '%.*s' is not a number below %u (a line is 'FRAME obj OBJECT LOD PRIORITY' "
               "or 'FRAME chunk CHUNK PRIORITY')",
               tok_len(&tk[0]), tk[0].p, TRACE_FRAMES_MAX);
        return -1;
    }
    if (nt < 2) {
        rd_err(rd, "frame %u: missing 'obj' or 'chunk'", r.frame);
        return -1;
    }
    uint32_t v = 0;
    int base;
    if (tok_is(&tk[1], "obj")) {
        if (nt < 5 || nt > 6) {
            rd_err(rd, "'obj' takes OBJECT LOD PRIORITY [PARTITION]: %d fields given", nt - 2);
            return -1;
        }
        r.kind = TRACE_OBJECT;
        if (req_u32(rd, &tk[2], "object", UINT32_MAX - 1u, &r.id) != 0 || req_u32(rd, &tk[3], "LOD", 254u, &v) != 0) {
            return -1;
        }
        r.lod = (uint8_t)v;
        base = 4;
    } else if (tok_is(&tk[1], "chunk")) {
        if (nt < 4 || nt > 5) {
            rd_err(rd, "'chunk' takes CHUNK PRIORITY [PARTITION]: %d fields given", nt - 2);
            return -1;
        }
        r.kind = TRACE_CHUNK;
        if (req_u32(rd, &tk[2], "chunk", UINT32_MAX - 1u, &r.id) != 0) {
            return -1;
        }
        base = 3;
    } else {
        rd_err(rd, "unknown request kind '%.*s' (expected 'obj' or 'chunk')", tok_len(&tk[1]), tk[1].p);
        return -1;
    }
    if (req_u32(rd, &tk[base], "priority", 255u, &v) != 0) {
        return -1;
    }
    r.priority = (uint8_t)v;
    if (nt > base + 1) {
        const token *name = &tk[base + 1];
        if (!valid_name(name)) {
            rd_err(rd, "partition '%.*s' is not a name of 1..%u letters, digits or _-./", tok_len(name), name->p,
                   TRACE_NAME_MAX - 1u);
            return -1;
        }
        int pi = partition_index(rd, name);
        if (pi < 0) {
            rd_err(rd, "more than %u distinct partitions", TRACE_PARTITIONS_MAX);
            return -1;
        }
        r.partition = (uint8_t)pi;
    }
    if (rd->count > 0 && r.frame < rd->last_frame) {
        rd_err(rd, "frame %u comes after frame %u: frames must not decrease", r.frame, rd->last_frame);
        return -1;
    }
    if (rd->declared != 0 && r.frame >= rd->declared) {
        rd_err(rd, "frame %u is outside the declared 'frames %u'", r.frame, rd->declared);
        return -1;
    }
    if (rd->count >= rd->max_requests) {
        rd_err(rd, "more than %zu requests", rd->max_requests);
        return -1;
    }
    rd->count++;
    rd->last_frame = r.frame;
    *out = r;
    return 0;
}

static void reader_reset(trace_reader *rd, const char *file, size_t max_requests)
{
    memset(rd, 0, sizeof *rd);
    rd->file = file;
    rd->max_requests = max_requests;
}

void trace_reader_init_mem(trace_reader *rd, const char *text, size_t len, const char *file, size_t max_requests)
{
    reader_reset(rd, file, max_requests);
    rd->mem = text;
    rd->mem_len = len;
}

void trace_reader_init_stream(trace_reader *rd, FILE *f, const char *file, size_t max_requests)
{
    reader_reset(rd, file, max_requests);
    rd->f = f;
}

int trace_reader_open(trace_reader *rd, const char *path, size_t max_requests)
{
    reader_reset(rd, path, max_requests);
    rd->f = fopen(path, "rb");
    if (rd->f == NULL) {
        snprintf(rd->err, sizeof rd->err, "%s: %s", path, strerror(errno));
        rd->ended = -2;
        return -1;
    }
    rd->own = 1;
    return 0;
}

void trace_reader_close(trace_reader *rd)
{
    if (rd->own && rd->f != NULL) {
        (void)fclose(rd->f); /* read only: nothing to lose */
    }
    rd->f = NULL;
    rd->own = 0;
}

uint32_t trace_reader_frames(const trace_reader *rd)
{
    if (rd->declared != 0) {
        return rd->declared;
    }
    return rd->ended == 1 && rd->count > 0 ? rd->last_frame + 1u : 0u;
}

/* The next byte, EOF at the end, -2 on a read error. */
static int next_byte(trace_reader *rd)
{
    if (rd->f == NULL) {
        return rd->mem_pos < rd->mem_len ? (unsigned char)rd->mem[rd->mem_pos++] : EOF;
    }
    int c = getc_unlocked(rd->f);
    if (c == EOF && ferror(rd->f)) {
        return -2;
    }
    return c;
}

/* Reads the next line into rd->buf (its end and a '\r' before it
 * dropped). Returns its length, -1 at the end of the input, -3 when the
 * line is too long (the message set), -2 on a read error. Reads at most
 * TRACE_LINE_MAX + 2 bytes of a line. */
static long read_line(trace_reader *rd)
{
    size_t n = 0;
    int c = next_byte(rd);
    if (c == EOF) {
        return -1;
    }
    rd->line++;
    while (c != '\n') {
        if (c == -2) {
            return -2;
        }
        if (c == EOF) {
            break;
        }
        rd->buf[n++] = (char)c;
        /* byte TRACE_LINE_MAX + 1 may only be the '\r' of the line's end */
        if ((n == TRACE_LINE_MAX + 1u && c != '\r') || n == TRACE_LINE_MAX + 2u) {
            rd_err(rd, "line longer than %u bytes", TRACE_LINE_MAX);
            return -3;
        }
        c = next_byte(rd);
    }
    if (n > 0 && rd->buf[n - 1] == '\r') {
        n--; /* the loop keeps a byte TRACE_LINE_MAX + 1 only when it is a '\r': n <= TRACE_LINE_MAX */
    }
    return (long)n;
}

int trace_reader_next(trace_reader *rd, trace_req *out)
{
    if (rd->ended != 0) {
        return rd->ended == 1 ? 0 : rd->ended;
    }
    for (;;) {
        long len = read_line(rd);
        if (len == -1) {
            break;
        }
        if (len == -2) {
            snprintf(rd->err, sizeof rd->err, "%s: read failed: %s", rd->file, strerror(errno));
            rd->ended = -2;
            return -2;
        }
        if (len < 0) {
            rd->ended = -1;
            return -1;
        }
        const char *text = rd->buf;
        const size_t end = (size_t)len;
        token tk[TOKENS_MAX];
        int nt = 0;
        for (size_t i = 0; i < end;) {
            char c = text[i];
            if (c == '#') {
                break;
            }
            if (c == ' ' || c == '\t') {
                i++;
                continue;
            }
            if ((unsigned char)c < 0x20 || (unsigned char)c >= 0x7f) {
                rd_err(rd, "byte 0x%02x at column %zu: only printable ASCII is allowed", (unsigned)(unsigned char)c,
                       i + 1);
                rd->ended = -1;
                return -1;
            }
            size_t j = i;
            while (j < end && text[j] != ' ' && text[j] != '\t' && text[j] != '#' && (unsigned char)text[j] >= 0x20 &&
                   (unsigned char)text[j] < 0x7f) {
                j++;
            }
            if (nt == TOKENS_MAX) {
                rd_err(rd, "more than %d fields", TOKENS_MAX);
                rd->ended = -1;
                return -1;
            }
            tk[nt].p = text + i;
            tk[nt].n = j - i;
            nt++;
            i = j;
        }
        if (nt == 0) {
            continue;
        }
        if (!rd->header) {
            uint32_t version = 0;
            if (nt != 2 || !tok_is(&tk[0], "sluice-trace") || tok_u32(&tk[1], UINT32_MAX, &version) != 1) {
                rd_err(rd, "expected the header 'sluice-trace %u' before anything else", TRACE_VERSION);
                rd->ended = -1;
                return -1;
            }
            if (version != TRACE_VERSION) {
                rd_err(rd, "trace version %u is not supported (this reader knows %u)", version, TRACE_VERSION);
                rd->ended = -1;
                return -1;
            }
            rd->header = 1;
            continue;
        }
        if (tok_is(&tk[0], "frames")) {
            uint32_t n = 0;
            if (nt != 2 || tok_u32(&tk[1], TRACE_FRAMES_MAX, &n) != 1 || n == 0) {
                rd_err(rd, "'frames' takes one count in 1..%u", TRACE_FRAMES_MAX);
                rd->ended = -1;
                return -1;
            }
            if (rd->declared != 0 || rd->count > 0) {
                rd_err(rd, "'frames' must come once, before the first request");
                rd->ended = -1;
                return -1;
            }
            rd->declared = n;
            continue;
        }
        if (parse_request(rd, tk, nt, out) != 0) {
            rd->ended = -1;
            return -1;
        }
        return 1;
    }
    if (!rd->header) {
        if (rd->line == 0) {
            rd->line = 1;
        }
        rd_err(rd, "empty trace: expected the header 'sluice-trace %u'", TRACE_VERSION);
        rd->ended = -1;
        return -1;
    }
    if (rd->declared == 0 && rd->count == 0) {
        rd_err(rd, "no frames: the trace has no request and no 'frames N' line");
        rd->ended = -1;
        return -1;
    }
    rd->ended = 1;
    return 0;
}

int trace_parse(const char *text, size_t len, const char *file, size_t max_requests, trace *out, char *err,
                size_t errcap)
{
    memset(out, 0, sizeof *out);
    if (err != NULL && errcap > 0) {
        err[0] = '\0';
    }
    trace_reader rd;
    trace_reader_init_mem(&rd, text, len, file, max_requests);
    trace_req r;
    int k;
    while ((k = trace_reader_next(&rd, &r)) == 1) {
        if (trace_push(out, &r, max_requests) != 0) {
            rd.line = r.line;
            rd_err(&rd, "out of memory (%zu requests)", out->count);
            k = -1;
            break;
        }
    }
    if (k != 0) {
        if (err != NULL && errcap > 0) {
            snprintf(err, errcap, "%s", rd.err);
        }
        trace_free(out);
        return -1;
    }
    out->declared = rd.declared;
    out->frames = trace_reader_frames(&rd);
    out->partition_count = rd.partition_count;
    memcpy(out->partitions, rd.partitions, sizeof out->partitions);
    return 0;
}

int trace_write_header(FILE *f, uint32_t frames, const char *comment)
{
    fprintf(f, "sluice-trace %u\n", TRACE_VERSION);
    if (comment != NULL) {
        fprintf(f, "# %s\n", comment);
    }
    if (frames != 0) {
        fprintf(f, "frames %u\n", frames);
    }
    return ferror(f) ? -1 : 0;
}

int trace_write_req(FILE *f, const trace_req *r, const char *partition)
{
    if (r->kind == TRACE_OBJECT) {
        fprintf(f, "%u obj %u %u %u", r->frame, r->id, r->lod, r->priority);
    } else {
        fprintf(f, "%u chunk %u %u", r->frame, r->id, r->priority);
    }
    if (partition != NULL) {
        fprintf(f, " %s", partition);
    }
    return fputc('\n', f) == EOF ? -1 : 0;
}

int trace_write(FILE *f, const trace *t, const char *comment)
{
    trace_write_header(f, t->frames, comment);
    for (size_t i = 0; i < t->count; i++) {
        const trace_req *r = &t->reqs[i];
        int named = r->partition != TRACE_PARTITION_DEFAULT && r->partition < t->partition_count;
        trace_write_req(f, r, named ? t->partitions[r->partition] : NULL);
    }
    return ferror(f) ? -1 : 0;
}
