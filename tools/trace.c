/* sluice run: the trace parser and writer (docs/trace-format.md). */
#include "trace.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

enum { TOKENS_MAX = 8 };

typedef struct token {
    const char *p;
    size_t n;
} token;

static void set_err(char *err, size_t cap, const char *file, uint32_t line, const char *fmt, ...)
{
    if (err == NULL || cap == 0) {
        return;
    }
    int k = snprintf(err, cap, "%s:%u: ", file, line);
    if (k < 0 || (size_t)k >= cap) {
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err + k, cap - (size_t)k, fmt, ap);
    va_end(ap);
}

static int tok_is(const token *t, const char *s) { return t->n == strlen(s) && memcmp(t->p, s, t->n) == 0; }

/* A decimal number in [0, max] with no sign, no spaces, at most 10 digits. */
static int tok_u32(const token *t, uint32_t max, uint32_t *out)
{
    if (t->n == 0 || t->n > 10) {
        return 0;
    }
    uint64_t v = 0;
    for (size_t i = 0; i < t->n; i++) {
        if (t->p[i] < '0' || t->p[i] > '9') {
            return 0;
        }
        v = v * 10u + (uint64_t)(t->p[i] - '0');
    }
    if (v > max) {
        return 0;
    }
    *out = (uint32_t)v;
    return 1;
}

/* "what 'tok'" with the token cut to 40 bytes for the message. */
static int tok_len(const token *t) { return t->n > 40 ? 40 : (int)t->n; }

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
static int partition_index(trace *t, const token *name)
{
    for (uint32_t i = 0; i < t->partition_count; i++) {
        if (tok_is(name, t->partitions[i])) {
            return (int)i;
        }
    }
    if (t->partition_count >= TRACE_PARTITIONS_MAX) {
        return -1;
    }
    memcpy(t->partitions[t->partition_count], name->p, name->n);
    t->partitions[t->partition_count][name->n] = '\0';
    return (int)t->partition_count++;
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

/* Parses one request line (tokens after comment removal); 0 or -1 with err. */
static int parse_request(trace *t, const token *tk, int nt, uint32_t line, const char *file, uint32_t *last_frame,
                         size_t max_requests, char *err, size_t errcap)
{
    trace_req r;
    memset(&r, 0, sizeof r);
    r.line = line;
    r.partition = TRACE_PARTITION_DEFAULT;
    if (!tok_u32(&tk[0], TRACE_FRAMES_MAX - 1u, &r.frame)) {
        set_err(err, errcap, file, line, "frame '%.*s' is not a number below %u (a line is 'FRAME obj OBJECT LOD PRIORITY' "
                "or 'FRAME chunk CHUNK PRIORITY')", tok_len(&tk[0]), tk[0].p, TRACE_FRAMES_MAX);
        return -1;
    }
    if (nt < 2) {
        set_err(err, errcap, file, line, "frame %u: missing 'obj' or 'chunk'", r.frame);
        return -1;
    }
    uint32_t v = 0;
    int base;
    if (tok_is(&tk[1], "obj")) {
        if (nt < 5 || nt > 6) {
            set_err(err, errcap, file, line, "'obj' takes OBJECT LOD PRIORITY [PARTITION]: %d fields given", nt - 2);
            return -1;
        }
        r.kind = TRACE_OBJECT;
        if (!tok_u32(&tk[2], UINT32_MAX - 1u, &r.id)) {
            set_err(err, errcap, file, line, "object '%.*s' is not a number", tok_len(&tk[2]), tk[2].p);
            return -1;
        }
        if (!tok_u32(&tk[3], 254u, &v)) {
            set_err(err, errcap, file, line, "LOD '%.*s' is not a number in 0..254", tok_len(&tk[3]), tk[3].p);
            return -1;
        }
        r.lod = (uint8_t)v;
        base = 4;
    } else if (tok_is(&tk[1], "chunk")) {
        if (nt < 4 || nt > 5) {
            set_err(err, errcap, file, line, "'chunk' takes CHUNK PRIORITY [PARTITION]: %d fields given", nt - 2);
            return -1;
        }
        r.kind = TRACE_CHUNK;
        if (!tok_u32(&tk[2], UINT32_MAX - 1u, &r.id)) {
            set_err(err, errcap, file, line, "chunk '%.*s' is not a number", tok_len(&tk[2]), tk[2].p);
            return -1;
        }
        base = 3;
    } else {
        set_err(err, errcap, file, line, "unknown request kind '%.*s' (expected 'obj' or 'chunk')", tok_len(&tk[1]),
                tk[1].p);
        return -1;
    }
    if (!tok_u32(&tk[base], 255u, &v)) {
        set_err(err, errcap, file, line, "priority '%.*s' is not a number in 0..255", tok_len(&tk[base]), tk[base].p);
        return -1;
    }
    r.priority = (uint8_t)v;
    if (nt > base + 1) {
        const token *name = &tk[base + 1];
        if (!valid_name(name)) {
            set_err(err, errcap, file, line, "partition '%.*s' is not a name of 1..%u letters, digits or _-./",
                    tok_len(name), name->p, TRACE_NAME_MAX - 1u);
            return -1;
        }
        int pi = partition_index(t, name);
        if (pi < 0) {
            set_err(err, errcap, file, line, "more than %u distinct partitions", TRACE_PARTITIONS_MAX);
            return -1;
        }
        r.partition = (uint8_t)pi;
    }
    if (t->count > 0 && r.frame < *last_frame) {
        set_err(err, errcap, file, line, "frame %u comes after frame %u: frames must not decrease", r.frame,
                *last_frame);
        return -1;
    }
    if (t->declared != 0 && r.frame >= t->declared) {
        set_err(err, errcap, file, line, "frame %u is outside the declared 'frames %u'", r.frame, t->declared);
        return -1;
    }
    if (trace_push(t, &r, max_requests) != 0) {
        set_err(err, errcap, file, line, t->count >= max_requests ? "more than %zu requests" : "out of memory (%zu requests)",
                max_requests);
        return -1;
    }
    *last_frame = r.frame;
    return 0;
}

int trace_parse(const char *text, size_t len, const char *file, size_t max_requests, trace *out, char *err,
                size_t errcap)
{
    memset(out, 0, sizeof *out);
    if (err != NULL && errcap > 0) {
        err[0] = '\0';
    }
    size_t pos = 0;
    uint32_t line = 0, last_frame = 0;
    int header = 0;
    while (pos < len) {
        line++;
        size_t start = pos;
        while (pos < len && text[pos] != '\n') {
            pos++;
        }
        size_t end = pos;
        if (pos < len) {
            pos++; /* the '\n' */
        }
        if (end > start && text[end - 1] == '\r') {
            end--;
        }
        if (end - start > TRACE_LINE_MAX) {
            set_err(err, errcap, file, line, "line longer than %u bytes", TRACE_LINE_MAX);
            goto fail;
        }
        token tk[TOKENS_MAX];
        int nt = 0;
        for (size_t i = start; i < end;) {
            char c = text[i];
            if (c == '#') {
                break;
            }
            if (c == ' ' || c == '\t') {
                i++;
                continue;
            }
            if ((unsigned char)c < 0x20 || (unsigned char)c >= 0x7f) {
                set_err(err, errcap, file, line, "byte 0x%02x at column %zu: only printable ASCII is allowed",
                        (unsigned)(unsigned char)c, i - start + 1);
                goto fail;
            }
            size_t j = i;
            while (j < end && text[j] != ' ' && text[j] != '\t' && text[j] != '#' &&
                   (unsigned char)text[j] >= 0x20 && (unsigned char)text[j] < 0x7f) {
                j++;
            }
            if (nt == TOKENS_MAX) {
                set_err(err, errcap, file, line, "more than %d fields", TOKENS_MAX);
                goto fail;
            }
            tk[nt].p = text + i;
            tk[nt].n = j - i;
            nt++;
            i = j;
        }
        if (nt == 0) {
            continue;
        }
        if (!header) {
            uint32_t version = 0;
            if (nt != 2 || !tok_is(&tk[0], "sluice-trace") || !tok_u32(&tk[1], UINT32_MAX, &version)) {
                set_err(err, errcap, file, line, "expected the header 'sluice-trace %u' before anything else", TRACE_VERSION);
                goto fail;
            }
            if (version != TRACE_VERSION) {
                set_err(err, errcap, file, line, "trace version %u is not supported (this reader knows %u)", version,
                        TRACE_VERSION);
                goto fail;
            }
            header = 1;
            continue;
        }
        if (tok_is(&tk[0], "frames")) {
            uint32_t n = 0;
            if (nt != 2 || !tok_u32(&tk[1], TRACE_FRAMES_MAX, &n) || n == 0) {
                set_err(err, errcap, file, line, "'frames' takes one count in 1..%u", TRACE_FRAMES_MAX);
                goto fail;
            }
            if (out->declared != 0 || out->count > 0) {
                set_err(err, errcap, file, line, "'frames' must come once, before the first request");
                goto fail;
            }
            out->declared = n;
            out->frames = n;
            continue;
        }
        if (parse_request(out, tk, nt, line, file, &last_frame, max_requests, err, errcap) != 0) {
            goto fail;
        }
    }
    if (!header) {
        set_err(err, errcap, file, line == 0 ? 1 : line, "empty trace: expected the header 'sluice-trace %u'",
                TRACE_VERSION);
        goto fail;
    }
    if (out->frames == 0) {
        set_err(err, errcap, file, line, "no frames: the trace has no request and no 'frames N' line");
        goto fail;
    }
    return 0;
fail:
    trace_free(out);
    return -1;
}

int trace_write(FILE *f, const trace *t, const char *comment)
{
    fprintf(f, "sluice-trace %u\n", TRACE_VERSION);
    if (comment != NULL) {
        fprintf(f, "# %s\n", comment);
    }
    fprintf(f, "frames %u\n", t->frames);
    for (size_t i = 0; i < t->count; i++) {
        const trace_req *r = &t->reqs[i];
        if (r->kind == TRACE_OBJECT) {
            fprintf(f, "%u obj %u %u %u", r->frame, r->id, r->lod, r->priority);
        } else {
            fprintf(f, "%u chunk %u %u", r->frame, r->id, r->priority);
        }
        if (r->partition != TRACE_PARTITION_DEFAULT && r->partition < t->partition_count) {
            fprintf(f, " %s", t->partitions[r->partition]);
        }
        fputc('\n', f);
    }
    return ferror(f) ? -1 : 0;
}
