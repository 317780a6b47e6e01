/* SPDX-License-Identifier: MIT */
/* A minimal crate writer for tests (see usdc_writer.h). */
#include "usdc_writer.h"

#include <lz4.h>
#include <stdlib.h>
#include <string.h>

typedef struct buf {
    uint8_t *p;
    size_t n, cap;
} buf;

static void put(buf *b, const void *d, size_t n)
{
    if (b->n + n > b->cap) {
        size_t c = b->cap ? b->cap : 256;
        while (c < b->n + n) {
            c *= 2;
        }
        b->p = realloc(b->p, c);
        b->cap = c;
    }
    if (n) {
        memcpy(b->p + b->n, d, n);
    }
    b->n += n;
}

static void put_u64(buf *b, uint64_t v)
{
    uint8_t x[8];
    for (int i = 0; i < 8; i++) {
        x[i] = (uint8_t)(v >> (8 * i));
    }
    put(b, x, 8);
}

static void put_u32(buf *b, uint32_t v)
{
    uint8_t x[4];
    for (int i = 0; i < 4; i++) {
        x[i] = (uint8_t)(v >> (8 * i));
    }
    put(b, x, 4);
}

static void put_f64(buf *b, double d)
{
    uint64_t v;
    memcpy(&v, &d, 8);
    put_u64(b, v);
}

typedef struct wpath {
    uint32_t parent;
    uint32_t elem;
    int is_prop;
} wpath;

typedef struct wfield {
    uint32_t tok;
    uint64_t rep;
} wfield;

typedef struct wspec {
    uint32_t path, type, fset;
} wspec;

typedef struct woverride {
    char name[17];
    uint8_t *data;
    size_t n;
} woverride;

struct usdc_writer {
    uint8_t ver[3];
    char **tokens;
    uint32_t ntokens, cap_tokens;
    uint32_t *strings;
    uint32_t nstrings, cap_strings;
    wpath *paths;
    uint32_t npaths, cap_paths;
    wfield *fields;
    uint32_t nfields, cap_fields;
    uint32_t *fsets;
    uint32_t nfsets, cap_fsets;
    wspec *specs;
    uint32_t nspecs, cap_specs;
    int open_spec;
    buf out;
    woverride ov[8];
    int nov;
    struct {
        char name[17];
        uint64_t start, size;
    } sec[8];
    int nsec;
};

#define GROW(arr, n, cap)                                          \
    do {                                                           \
        if ((n) == (cap)) {                                        \
            (cap) = (cap) ? (cap)*2 : 16;                          \
            (arr) = realloc((arr), (size_t)(cap) * sizeof *(arr)); \
        }                                                          \
    } while (0)

usdc_writer *usdcw_create(uint8_t major, uint8_t minor, uint8_t patch)
{
    usdc_writer *w = calloc(1, sizeof *w);
    w->ver[0] = major;
    w->ver[1] = minor;
    w->ver[2] = patch;
    uint8_t zero[88] = {0};
    put(&w->out, zero, sizeof zero);
    GROW(w->paths, w->npaths, w->cap_paths);
    w->paths[w->npaths++] = (wpath){UINT32_MAX, 0, 0};
    return w;
}

void usdcw_free(usdc_writer *w)
{
    if (w == NULL) {
        return;
    }
    for (uint32_t i = 0; i < w->ntokens; i++) {
        free(w->tokens[i]);
    }
    for (int i = 0; i < w->nov; i++) {
        free(w->ov[i].data);
    }
    free(w->tokens);
    free(w->strings);
    free(w->paths);
    free(w->fields);
    free(w->fsets);
    free(w->specs);
    free(w->out.p);
    free(w);
}

uint32_t usdcw_token(usdc_writer *w, const char *s)
{
    for (uint32_t i = 0; i < w->ntokens; i++) {
        if (strcmp(w->tokens[i], s) == 0) {
            return i;
        }
    }
    GROW(w->tokens, w->ntokens, w->cap_tokens);
    size_t n = strlen(s) + 1;
    w->tokens[w->ntokens] = malloc(n);
    memcpy(w->tokens[w->ntokens], s, n);
    return w->ntokens++;
}

uint32_t usdcw_string(usdc_writer *w, const char *s)
{
    uint32_t t = usdcw_token(w, s);
    for (uint32_t i = 0; i < w->nstrings; i++) {
        if (w->strings[i] == t) {
            return i;
        }
    }
    GROW(w->strings, w->nstrings, w->cap_strings);
    w->strings[w->nstrings] = t;
    return w->nstrings++;
}

uint32_t usdcw_child(usdc_writer *w, uint32_t parent, const char *elem, int is_prop)
{
    uint32_t t = usdcw_token(w, elem);
    GROW(w->paths, w->npaths, w->cap_paths);
    w->paths[w->npaths] = (wpath){parent, t, is_prop};
    return w->npaths++;
}

uint64_t usdcw_rep(unsigned type, int array, int inlined, int compressed, uint64_t payload)
{
    return (array ? 1ull << 63 : 0) | (inlined ? 1ull << 62 : 0) | (compressed ? 1ull << 61 : 0) |
           (uint64_t)(type & 0xffu) << 48 | (payload & 0xffffffffffffull);
}

uint64_t usdcw_token_rep(usdc_writer *w, const char *s)
{
    return usdcw_rep(USDCW_TOKEN, 0, 1, 0, usdcw_token(w, s));
}

uint64_t usdcw_string_rep(usdc_writer *w, const char *s)
{
    return usdcw_rep(USDCW_STRING, 0, 1, 0, usdcw_string(w, s));
}

uint64_t usdcw_asset_rep(usdc_writer *w, const char *s)
{
    return usdcw_rep(USDCW_ASSET, 0, 1, 0, usdcw_token(w, s));
}

static uint64_t align8(usdc_writer *w)
{
    static const uint8_t zero[8] = {0};
    if (w->out.n % 8) {
        put(&w->out, zero, 8 - w->out.n % 8);
    }
    return w->out.n;
}

uint64_t usdcw_bytes(usdc_writer *w, const void *data, size_t n)
{
    uint64_t at = align8(w);
    put(&w->out, data, n);
    return at;
}

uint64_t usdcw_double_rep(usdc_writer *w, double v)
{
    uint64_t at = align8(w);
    put_f64(&w->out, v);
    return usdcw_rep(USDCW_DOUBLE, 0, 0, 0, at);
}

uint64_t usdcw_float_rep(float v)
{
    uint32_t bits;
    memcpy(&bits, &v, 4);
    return usdcw_rep(USDCW_FLOAT, 0, 1, 0, bits);
}

uint64_t usdcw_vec_rep(usdc_writer *w, unsigned type, const float *v, size_t n)
{
    uint64_t at = align8(w);
    put(&w->out, v, n * 4);
    return usdcw_rep(type, 0, 0, 0, at);
}

static void put_count(usdc_writer *w, uint64_t n)
{
    if (w->ver[1] < 7) {
        put_u32(&w->out, (uint32_t)n);
    } else {
        put_u64(&w->out, n);
    }
}

uint64_t usdcw_array(usdc_writer *w, unsigned type, const void *elems, uint64_t n, size_t elem_size)
{
    uint64_t at = align8(w);
    if (w->ver[1] < 5) {
        put_u32(&w->out, 1);
    }
    put_count(w, n);
    put(&w->out, elems, (size_t)n * elem_size);
    return usdcw_rep(type, 1, 0, 0, at);
}

/* The integer coding: the most common delta, 2-bit codes, the deltas. */
static size_t encode_ints(const uint32_t *v, size_t n, uint8_t *out)
{
    if (n == 0) {
        return 0;
    }
    int32_t common = 0;
    size_t best = 0;
    int32_t prev = 0;
    for (size_t i = 0; i < n; i++) {
        int32_t d = (int32_t)(v[i] - (uint32_t)prev);
        size_t cnt = 0;
        int32_t p2 = 0;
        for (size_t j = 0; j < n; j++) {
            if ((int32_t)(v[j] - (uint32_t)p2) == d) {
                cnt++;
            }
            p2 = (int32_t)v[j];
        }
        if (cnt > best || (cnt == best && d > common)) {
            best = cnt;
            common = d;
        }
        prev = (int32_t)v[i];
    }
    memcpy(out, &common, 4);
    size_t codes = (n * 2 + 7) / 8;
    memset(out + 4, 0, codes);
    size_t vp = 4 + codes;
    prev = 0;
    for (size_t i = 0; i < n; i++) {
        int32_t d = (int32_t)(v[i] - (uint32_t)prev);
        prev = (int32_t)v[i];
        unsigned code;
        if (d == common) {
            code = 0;
        } else if (d >= -128 && d <= 127) {
            code = 1;
            out[vp++] = (uint8_t)(int8_t)d;
        } else if (d >= -32768 && d <= 32767) {
            code = 2;
            int16_t s = (int16_t)d;
            memcpy(out + vp, &s, 2);
            vp += 2;
        } else {
            code = 3;
            memcpy(out + vp, &d, 4);
            vp += 4;
        }
        out[4 + i / 4] = (uint8_t)(out[4 + i / 4] | code << (2 * (i % 4)));
    }
    return vp;
}

/* LZ4 with the chunk-count prefix 0 (one block). */
static size_t lz4_block(const uint8_t *src, size_t n, uint8_t *out, size_t cap)
{
    out[0] = 0;
    int r = LZ4_compress_default((const char *)src, (char *)out + 1, (int)n, (int)(cap - 1));
    return r <= 0 ? 0 : (size_t)r + 1;
}

size_t usdcw_compress_ints(const uint32_t *v, size_t n, uint8_t *out, size_t cap)
{
    uint8_t *enc = malloc(4 + (n * 2 + 7) / 8 + n * 4 + 1);
    size_t en = encode_ints(v, n, enc);
    size_t bound = (size_t)LZ4_compressBound((int)en) + 1;
    uint8_t *tmp = malloc(bound + 1);
    size_t cn = lz4_block(enc, en, tmp, bound + 1);
    size_t total = 8 + cn;
    if (total <= cap) {
        for (int i = 0; i < 8; i++) {
            out[i] = (uint8_t)((uint64_t)cn >> (8 * i));
        }
        memcpy(out + 8, tmp, cn);
    }
    free(enc);
    free(tmp);
    return total;
}

static void put_compressed_ints(buf *b, const uint32_t *v, size_t n)
{
    size_t cap = 64 + n * 6;
    uint8_t *tmp = malloc(cap);
    size_t k = usdcw_compress_ints(v, n, tmp, cap);
    put(b, tmp, k);
    free(tmp);
}

uint64_t usdcw_int_array(usdc_writer *w, const int32_t *v, uint64_t n, int compress)
{
    if (!compress || n < 16 || w->ver[1] < 5) {
        return usdcw_array(w, USDCW_INT, v, n, 4);
    }
    uint64_t at = align8(w);
    put_count(w, n);
    put_compressed_ints(&w->out, (const uint32_t *)(const void *)v, (size_t)n);
    return usdcw_rep(USDCW_INT, 1, 0, 1, at);
}

uint64_t usdcw_float_array(usdc_writer *w, const float *v, uint64_t n, int mode)
{
    if (mode == 0 || n < 16 || w->ver[1] < 6) {
        return usdcw_array(w, USDCW_FLOAT, v, n, 4);
    }
    uint64_t at = align8(w);
    put_count(w, n);
    uint8_t code = (uint8_t)mode;
    put(&w->out, &code, 1);
    uint32_t *ints = malloc((size_t)n * 4);
    if (mode == 'i') {
        for (uint64_t i = 0; i < n; i++) {
            ints[i] = (uint32_t)(int32_t)v[i];
        }
    } else {
        float lut[256];
        uint32_t nl = 0;
        for (uint64_t i = 0; i < n; i++) {
            uint32_t k = 0;
            while (k < nl && lut[k] != v[i]) {
                k++;
            }
            if (k == nl) {
                lut[nl++] = v[i];
            }
            ints[i] = k;
        }
        put_u32(&w->out, nl);
        put(&w->out, lut, (size_t)nl * 4);
    }
    put_compressed_ints(&w->out, ints, (size_t)n);
    free(ints);
    return usdcw_rep(USDCW_FLOAT, 1, 0, 1, at);
}

uint64_t usdcw_token_array(usdc_writer *w, const char *const *v, uint64_t n)
{
    uint32_t *idx = malloc((size_t)(n ? n : 1) * 4);
    for (uint64_t i = 0; i < n; i++) {
        idx[i] = usdcw_token(w, v[i]);
    }
    uint64_t r = usdcw_array(w, USDCW_TOKEN, idx, n, 4);
    free(idx);
    return r;
}

static uint64_t index_vector(usdc_writer *w, unsigned type, const char *const *v, uint64_t n, int strings)
{
    uint32_t *idx = malloc((size_t)(n ? n : 1) * 4);
    for (uint64_t i = 0; i < n; i++) {
        idx[i] = strings ? usdcw_string(w, v[i]) : usdcw_token(w, v[i]);
    }
    uint64_t at = align8(w);
    put_u64(&w->out, n);
    for (uint64_t i = 0; i < n; i++) {
        put_u32(&w->out, idx[i]);
    }
    free(idx);
    return usdcw_rep(type, 0, 0, 0, at);
}

uint64_t usdcw_token_vector(usdc_writer *w, const char *const *v, uint64_t n)
{
    return index_vector(w, USDCW_TOKEN_VECTOR, v, n, 0);
}

uint64_t usdcw_string_vector(usdc_writer *w, const char *const *v, uint64_t n)
{
    return index_vector(w, USDCW_STRING_VECTOR, v, n, 1);
}

static void put_ref(usdc_writer *w, unsigned type, const usdcw_ref *r)
{
    put_u32(&w->out, usdcw_string(w, r->asset ? r->asset : ""));
    put_u32(&w->out, r->path);
    if (type == USDCW_REFERENCE_LISTOP || w->ver[1] >= 8) {
        put_f64(&w->out, r->offset);
        put_f64(&w->out, r->scale);
    }
    if (type == USDCW_REFERENCE_LISTOP) {
        put_u64(&w->out, 0); /* customData: an empty dictionary */
    }
}

uint64_t usdcw_listop(usdc_writer *w, unsigned type, int is_explicit, const usdcw_part *parts, const uint32_t *paths,
                      const char *const *strs, const usdcw_ref *refs)
{
    /* Intern first, so nothing is added between the header and the items. */
    for (const usdcw_part *p = parts; p->bit; p++) {
        for (uint32_t i = p->first; i < p->first + p->count; i++) {
            if (type == USDCW_TOKEN_LISTOP) {
                usdcw_token(w, strs[i]);
            } else if (type == USDCW_STRING_LISTOP) {
                usdcw_string(w, strs[i]);
            } else if (type == USDCW_REFERENCE_LISTOP || type == USDCW_PAYLOAD_LISTOP) {
                usdcw_string(w, refs[i].asset ? refs[i].asset : "");
            }
        }
    }
    uint8_t h = is_explicit ? 1 : 0;
    for (const usdcw_part *p = parts; p->bit; p++) {
        h = (uint8_t)(h | p->bit);
    }
    uint64_t at = align8(w);
    put(&w->out, &h, 1);
    static const unsigned order[] = {USDCW_LIST_EXPLICIT, USDCW_LIST_ADDED,   USDCW_LIST_PREPENDED,
                                     USDCW_LIST_APPENDED, USDCW_LIST_DELETED, USDCW_LIST_ORDERED};
    for (size_t k = 0; k < 6; k++) {
        for (const usdcw_part *p = parts; p->bit; p++) {
            if (p->bit != order[k]) {
                continue;
            }
            put_u64(&w->out, p->count);
            for (uint32_t i = p->first; i < p->first + p->count; i++) {
                if (type == USDCW_PATH_LISTOP) {
                    put_u32(&w->out, paths[i]);
                } else if (type == USDCW_TOKEN_LISTOP) {
                    put_u32(&w->out, usdcw_token(w, strs[i]));
                } else if (type == USDCW_STRING_LISTOP) {
                    put_u32(&w->out, usdcw_string(w, strs[i]));
                } else {
                    put_ref(w, type, &refs[i]);
                }
            }
        }
    }
    return usdcw_rep(type, 0, 0, 0, at);
}

uint64_t usdcw_path_rep(usdc_writer *w, uint32_t path)
{
    const usdcw_part one[] = {{USDCW_LIST_EXPLICIT, 0, 1}, {0, 0, 0}};
    return usdcw_listop(w, USDCW_PATH_LISTOP, 1, one, &path, NULL, NULL);
}

uint64_t usdcw_payload(usdc_writer *w, const usdcw_ref *ref)
{
    usdcw_string(w, ref->asset ? ref->asset : "");
    uint64_t at = align8(w);
    put_ref(w, USDCW_PAYLOAD, ref);
    return usdcw_rep(USDCW_PAYLOAD, 0, 0, 0, at);
}

uint64_t usdcw_selection_map(usdc_writer *w, const char *const *pairs, uint64_t n)
{
    for (uint64_t i = 0; i < 2 * n; i++) {
        usdcw_string(w, pairs[i]);
    }
    uint64_t at = align8(w);
    put_u64(&w->out, n);
    for (uint64_t i = 0; i < 2 * n; i++) {
        put_u32(&w->out, usdcw_string(w, pairs[i]));
    }
    return usdcw_rep(USDCW_VARIANT_SELECTION_MAP, 0, 0, 0, at);
}

uint64_t usdcw_time_samples(usdc_writer *w, const double *times, const uint64_t *reps, uint64_t n)
{
    /* The layout of the format: a forward offset over the times' data to
     * the times rep; a forward offset over nothing to the count and reps. */
    uint64_t at = align8(w);
    put_u64(&w->out, 0);
    uint64_t times_at = w->out.n;
    put_u64(&w->out, n);
    for (uint64_t i = 0; i < n; i++) {
        put_f64(&w->out, times[i]);
    }
    uint64_t rep_at = w->out.n;
    for (int i = 0; i < 8; i++) {
        w->out.p[at + (size_t)i] = (uint8_t)((rep_at - at) >> (8 * i));
    }
    put_u64(&w->out, usdcw_rep(USDCW_DOUBLE_VECTOR, 0, 0, 0, times_at));
    put_u64(&w->out, 8);
    put_u64(&w->out, n);
    for (uint64_t i = 0; i < n; i++) {
        put_u64(&w->out, reps[i]);
    }
    return usdcw_rep(USDCW_TIME_SAMPLES, 0, 0, 0, at);
}

static void close_spec(usdc_writer *w)
{
    if (w->open_spec) {
        GROW(w->fsets, w->nfsets, w->cap_fsets);
        w->fsets[w->nfsets++] = UINT32_MAX;
        w->open_spec = 0;
    }
}

void usdcw_spec(usdc_writer *w, uint32_t path, unsigned spec_type)
{
    close_spec(w);
    GROW(w->specs, w->nspecs, w->cap_specs);
    w->specs[w->nspecs++] = (wspec){path, spec_type, w->nfsets};
    w->open_spec = 1;
}

void usdcw_field(usdc_writer *w, const char *name, uint64_t rep)
{
    GROW(w->fields, w->nfields, w->cap_fields);
    w->fields[w->nfields] = (wfield){usdcw_token(w, name), rep};
    GROW(w->fsets, w->nfsets, w->cap_fsets);
    w->fsets[w->nfsets++] = w->nfields++;
}

/* Whether path q is a prim (props 0) or property (props 1) right under
 * path; variant elements are not children. */
static int child_of(const usdc_writer *w, uint32_t q, uint32_t path, int props)
{
    return w->paths[q].parent == path && (w->paths[q].is_prop != 0) == props && w->tokens[w->paths[q].elem][0] != '{';
}

void usdcw_child_fields(usdc_writer *w, uint32_t path)
{
    static const char *const field[2] = {"primChildren", "properties"};
    for (int props = 0; props < 2; props++) {
        uint64_t n = 0;
        for (uint32_t q = 0; q < w->npaths; q++) {
            if (child_of(w, q, path, props)) {
                n++;
            }
        }
        if (n == 0) {
            continue;
        }
        uint64_t at = align8(w);
        put_u64(&w->out, n);
        for (uint32_t q = 0; q < w->npaths; q++) {
            if (child_of(w, q, path, props)) {
                put_u32(&w->out, w->paths[q].elem);
            }
        }
        usdcw_field(w, field[props], usdcw_rep(USDCW_TOKEN_VECTOR, 0, 0, 0, at));
    }
}

void usdcw_override_section(usdc_writer *w, const char *name, const void *data, size_t n)
{
    woverride *o = &w->ov[w->nov++];
    memset(o->name, 0, sizeof o->name);
    strncpy(o->name, name, 16);
    o->data = malloc(n ? n : 1);
    memcpy(o->data, data, n);
    o->n = n;
}

/* The compressed path tree: depth first, each entry's jump says whether a
 * child follows (-1), a sibling follows (0), both (the sibling's distance)
 * or neither (-2). */
static void encode_tree(const usdc_writer *w, uint32_t first, uint32_t *idx, int32_t *tok, int32_t *jmp, uint32_t *n)
{
    for (uint32_t p = first; p != UINT32_MAX;) {
        uint32_t next = UINT32_MAX, child = UINT32_MAX;
        for (uint32_t q = p + 1; q < w->npaths; q++) {
            if (w->paths[q].parent == w->paths[p].parent) {
                next = q;
                break;
            }
        }
        for (uint32_t q = 0; q < w->npaths; q++) {
            if (w->paths[q].parent == p) {
                child = q;
                break;
            }
        }
        uint32_t at = (*n)++;
        idx[at] = p;
        tok[at] = w->paths[p].is_prop ? -(int32_t)w->paths[p].elem : (int32_t)w->paths[p].elem;
        if (child != UINT32_MAX) {
            encode_tree(w, child, idx, tok, jmp, n);
        }
        if (child != UINT32_MAX && next != UINT32_MAX) {
            jmp[at] = (int32_t)(*n - at);
        } else if (child != UINT32_MAX) {
            jmp[at] = -1;
        } else if (next != UINT32_MAX) {
            jmp[at] = 0;
        } else {
            jmp[at] = -2;
        }
        p = next;
    }
}

static void section(usdc_writer *w, const char *name, buf *b)
{
    uint64_t start = align8(w);
    for (int i = 0; i < w->nov; i++) {
        if (strcmp(w->ov[i].name, name) == 0) {
            put(&w->out, w->ov[i].data, w->ov[i].n);
            goto done;
        }
    }
    put(&w->out, b->p, b->n);
done:
    memset(w->sec[w->nsec].name, 0, 17);
    strncpy(w->sec[w->nsec].name, name, 16);
    w->sec[w->nsec].start = start;
    w->sec[w->nsec].size = w->out.n - start;
    w->nsec++;
    free(b->p);
    memset(b, 0, sizeof *b);
}

int usdcw_finish(usdc_writer *w, const uint8_t **out, size_t *size)
{
    close_spec(w);
    buf b = {0};
    /* TOKENS */
    buf raw = {0};
    for (uint32_t i = 0; i < w->ntokens; i++) {
        put(&raw, w->tokens[i], strlen(w->tokens[i]) + 1);
    }
    size_t bound = (size_t)LZ4_compressBound((int)raw.n) + 2;
    uint8_t *cz = malloc(bound);
    size_t cn = lz4_block(raw.p, raw.n, cz, bound);
    put_u64(&b, w->ntokens);
    put_u64(&b, raw.n);
    put_u64(&b, cn);
    put(&b, cz, cn);
    free(cz);
    free(raw.p);
    section(w, "TOKENS", &b);
    /* STRINGS */
    put_u64(&b, w->nstrings);
    for (uint32_t i = 0; i < w->nstrings; i++) {
        put_u32(&b, w->strings[i]);
    }
    section(w, "STRINGS", &b);
    /* FIELDS */
    uint32_t *tmp = malloc((w->nfields + 1) * 4);
    for (uint32_t i = 0; i < w->nfields; i++) {
        tmp[i] = w->fields[i].tok;
    }
    put_u64(&b, w->nfields);
    put_compressed_ints(&b, tmp, w->nfields);
    free(tmp);
    buf reps = {0};
    for (uint32_t i = 0; i < w->nfields; i++) {
        put_u64(&reps, w->fields[i].rep);
    }
    bound = (size_t)LZ4_compressBound((int)reps.n) + 2;
    cz = malloc(bound);
    cn = lz4_block(reps.p, reps.n, cz, bound);
    put_u64(&b, cn);
    put(&b, cz, cn);
    free(cz);
    free(reps.p);
    section(w, "FIELDS", &b);
    /* FIELDSETS */
    put_u64(&b, w->nfsets);
    put_compressed_ints(&b, w->fsets, w->nfsets);
    section(w, "FIELDSETS", &b);
    /* PATHS */
    uint32_t *idx = malloc(w->npaths * 4);
    int32_t *tok = malloc(w->npaths * 4), *jmp = malloc(w->npaths * 4);
    uint32_t n = 0;
    encode_tree(w, 0, idx, tok, jmp, &n);
    put_u64(&b, w->npaths);
    put_u64(&b, n);
    put_compressed_ints(&b, idx, n);
    put_compressed_ints(&b, (uint32_t *)(void *)tok, n);
    put_compressed_ints(&b, (uint32_t *)(void *)jmp, n);
    free(idx);
    free(tok);
    free(jmp);
    section(w, "PATHS", &b);
    /* SPECS */
    uint32_t *sp = malloc((w->nspecs + 1) * 4);
    put_u64(&b, w->nspecs);
    for (int k = 0; k < 3; k++) {
        for (uint32_t i = 0; i < w->nspecs; i++) {
            sp[i] = k == 0 ? w->specs[i].path : k == 1 ? w->specs[i].fset : w->specs[i].type;
        }
        put_compressed_ints(&b, sp, w->nspecs);
    }
    free(sp);
    section(w, "SPECS", &b);
    /* TOC and bootstrap */
    uint64_t toc = align8(w);
    put_u64(&w->out, (uint64_t)w->nsec);
    for (int i = 0; i < w->nsec; i++) {
        put(&w->out, w->sec[i].name, 16);
        put_u64(&w->out, w->sec[i].start);
        put_u64(&w->out, w->sec[i].size);
    }
    memcpy(w->out.p, "PXR-USDC", 8);
    w->out.p[8] = w->ver[0];
    w->out.p[9] = w->ver[1];
    w->out.p[10] = w->ver[2];
    for (int i = 0; i < 8; i++) {
        w->out.p[16 + i] = (uint8_t)(toc >> (8 * i));
    }
    *out = w->out.p;
    *size = w->out.n;
    return 0;
}

int usdcw_section(const usdc_writer *w, const char *name, uint64_t *start, uint64_t *size)
{
    for (int i = 0; i < w->nsec; i++) {
        if (strcmp(w->sec[i].name, name) == 0) {
            *start = w->sec[i].start;
            *size = w->sec[i].size;
            return 1;
        }
    }
    *start = *size = 0;
    return 0;
}
