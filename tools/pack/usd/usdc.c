/* SPDX-License-Identifier: MIT */
/* The USD crate (.usdc) reader: bootstrap, table of contents, the six
 * structural sections (TOKENS, STRINGS, FIELDS, FIELDSETS, PATHS, SPECS) and
 * the ValueRep decoder, written from the format's public description
 * (OpenUSD's crateFile.cpp and integerCoding.cpp).
 *
 * Versions read: 0.4.0 through 0.11.0 (structural sections compressed, which
 * 0.4.0 introduced; 0.11.0 added the layerRelocates field and its value
 * type). Earlier and later versions are refused by name.
 *
 * Every offset and count is checked against the bytes of the file before it
 * sizes anything; a crate that lies is an error naming the byte offset and the
 * section, spec or field, never a crash, a hang or a huge allocation. */
#include <lz4.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "usd_layer_internal.h"

#define USDC_VERSION(a, b, c) ((uint32_t)(a) << 16 | (uint32_t)(b) << 8 | (uint32_t)(c))
#define USDC_NO_PATH UINT32_MAX

/* SdfSpecType values as the crate stores them. */
enum {
    USDC_SPEC_ATTRIBUTE = 1,
    USDC_SPEC_CONNECTION = 2,
    USDC_SPEC_EXPRESSION = 3,
    USDC_SPEC_MAPPER = 4,
    USDC_SPEC_MAPPER_ARG = 5,
    USDC_SPEC_PRIM = 6,
    USDC_SPEC_PSEUDO_ROOT = 7,
    USDC_SPEC_RELATIONSHIP = 8,
    USDC_SPEC_RELATIONSHIP_TARGET = 9,
    USDC_SPEC_VARIANT = 10,
    USDC_SPEC_VARIANT_SET = 11,
};

typedef struct usdc_section {
    char name[17];
    uint64_t start;
    uint64_t size;
} usdc_section;

/* One open crate. The tokens and strings live in the layer's arena (the
 * value hooks need them for as long as the layer); the rest is freed when
 * the layer is built. */
typedef struct usdc_crate {
    const char *name;
    const uint8_t *data;
    uint64_t size;
    pk_diag *diag;
    usd_layer *layer; /* NULL: tokens and strings are malloc'ed */
    uint8_t ver[3];
    uint32_t version;
    uint64_t toc_offset;
    uint32_t nsections;
    usdc_section *sections;
    char *token_chars;
    uint64_t token_bytes;
    uint32_t *token_off;
    uint64_t ntokens;
    uint32_t *strings;
    uint64_t nstrings;
    uint32_t *field_tok;
    uint64_t *field_rep;
    uint64_t nfields;
    uint32_t *fieldsets;
    uint64_t nfieldsets;
    uint32_t *path_parent;
    uint32_t *path_elem;
    uint8_t *path_prop;
    uint64_t npaths;
    uint32_t root_path;
    uint32_t *spec_path;
    uint32_t *spec_fset;
    uint32_t *spec_type;
    uint64_t nspecs;
} usdc_crate;

static void usdc_crate_close(usdc_crate *c);

#define CRATE_BOOT_SIZE 88u
#define CRATE_MIN_COMPRESSED_ARRAY 16u
/* LZ4 expands at most about 255:1, so a compressed size bounds what it can
 * decompress to; a count beyond that is a lie found before allocating. */
#define LZ4_MAX_RATIO 255u

/* ---- diagnostics ---------------------------------------------------------- */

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int
usdc_fail_impl(const usdc_crate *c, uint64_t off, const char *fmt, ...);
static int usdc_fail_impl(const usdc_crate *c, uint64_t off, const char *fmt, ...)
{
    if (c->diag == NULL) {
        return -1;
    }
    char what[384];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(c->diag->message, sizeof c->diag->message, "%s: offset %llu: %s", c->name, (unsigned long long)off, what);
    return -1;
}

/* Every failure is -1, in a form the static analyser sees through (it does
 * not follow variadic calls). */
#define usdc_fail(...) (usdc_fail_impl(__VA_ARGS__), -1)
#define VALUE_FAIL(...) (usd_value_fail(__VA_ARGS__), -1)

/* ---- bounded little-endian reads ------------------------------------------ */

static uint64_t rd_u64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) {
        v = (v << 8) | p[i];
    }
    return v;
}

/* A byte as int8. */
static int64_t s8(uint8_t x)
{
    return x < 128u ? (int64_t)x : (int64_t)x - 256;
}

static uint32_t rd_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* True iff [off, off+n) lies inside the file. */
static int in_file(const usdc_crate *c, uint64_t off, uint64_t n)
{
    return off <= c->size && n <= c->size - off;
}

static int usdc_read_u64(const usdc_crate *c, uint64_t off, uint64_t *out, const char *what)
{
    if (!in_file(c, off, 8)) {
        return usdc_fail(c, off, "truncated: 8 bytes of %s past the end of the file (%llu bytes)", what,
                         (unsigned long long)c->size);
    }
    *out = rd_u64(c->data + off);
    return 0;
}

/* ---- TfFastCompression: LZ4 with a chunk-count prefix --------------------- */

/* Decompresses the n bytes at file offset off into out, at most cap bytes,
 * and says how many came out. The first byte is the chunk count: 0 means
 * one LZ4 block follows; otherwise that many chunks, each an int32 size
 * and an LZ4 block. */
static int lz4_into(const usdc_crate *c, uint64_t off, uint64_t n, uint8_t *out, uint64_t cap, uint64_t *got,
                    const char *what)
{
    if (!in_file(c, off, n)) {
        return usdc_fail(c, off, "truncated: %llu compressed bytes of %s past the end of the file (%llu bytes)",
                         (unsigned long long)n, what, (unsigned long long)c->size);
    }
    if (n < 1) {
        return usdc_fail(c, off, "empty compressed block (%s)", what);
    }
    const uint8_t *src = c->data + off;
    uint64_t done = 0;
    unsigned chunks = src[0];
    uint64_t pos = 1;
    for (unsigned i = 0; i < (chunks == 0 ? 1u : chunks); i++) {
        uint64_t csz = n - 1;
        if (chunks != 0) {
            if (n - pos < 4) {
                return usdc_fail(c, off + pos, "truncated LZ4 chunk header %u of %u (%s)", i, chunks, what);
            }
            csz = rd_u32(src + pos);
            pos += 4;
            if (csz > n - pos) {
                return usdc_fail(c, off + pos, "LZ4 chunk %u of %llu bytes past the block's %llu bytes (%s)", i,
                                 (unsigned long long)csz, (unsigned long long)n, what);
            }
        }
        uint64_t room = cap - done;
        if (room > (uint64_t)INT32_MAX) {
            room = (uint64_t)INT32_MAX;
        }
        if (csz > (uint64_t)INT32_MAX) {
            return usdc_fail(c, off + pos, "compressed block of %llu bytes too large (%s)", (unsigned long long)csz,
                             what);
        }
        int r = LZ4_decompress_safe((const char *)src + pos, (char *)out + done, (int)csz, (int)room);
        if (r < 0) {
            return usdc_fail(c, off + pos, "corrupt LZ4 data (%s)", what);
        }
        done += (uint64_t)r;
        pos += csz;
    }
    *got = done;
    return 0;
}

/* As lz4_into, for exactly out_size bytes. */
static int usdc_lz4(const usdc_crate *c, uint64_t off, uint64_t n, void *out, uint64_t out_size, const char *what)
{
    uint64_t got;
    if (lz4_into(c, off, n, out, out_size, &got, what) != 0) {
        return -1;
    }
    if (got != out_size) {
        return usdc_fail(c, off, "LZ4 data of %s decompressed to %llu bytes, expected %llu", what,
                         (unsigned long long)got, (unsigned long long)out_size);
    }
    return 0;
}

/* ---- integer coding ------------------------------------------------------- */

/* Decodes n integers of width w (4 or 8) from an encoded buffer of enc_size
 * bytes: the common delta, 2-bit codes, then the variable-width deltas. */
static int decode_ints(const usdc_crate *c, uint64_t off, const uint8_t *enc, uint64_t enc_size, uint64_t n, unsigned w,
                       void *out, const char *what)
{
    uint64_t codes = (n * 2 + 7) / 8;
    if (enc_size < w || enc_size - w < codes) {
        return usdc_fail(c, off, "integer coding of %s: %llu bytes too short for %llu codes", what,
                         (unsigned long long)enc_size, (unsigned long long)n);
    }
    int64_t common;
    if (w == 4) {
        common = (int32_t)rd_u32(enc);
    } else {
        common = (int64_t)rd_u64(enc);
    }
    const uint8_t *cp = enc + w;
    uint64_t vpos = w + codes;
    uint64_t prev = 0; /* sums wrap as the format's signed integers do */
    for (uint64_t i = 0; i < n; i++) {
        unsigned code = (cp[i / 4] >> (2 * (i % 4))) & 3u;
        unsigned bytes = code == 0 ? 0 : (w == 4 ? (1u << (code - 1)) : (2u << (code - 1)));
        int64_t delta = common;
        if (code != 0) {
            if (enc_size - vpos < bytes) {
                return usdc_fail(c, off, "integer coding of %s: value %llu past the %llu encoded bytes", what,
                                 (unsigned long long)i, (unsigned long long)enc_size);
            }
            const uint8_t *v = enc + vpos;
            switch (bytes) {
            case 1:
                delta = s8(v[0]);
                break;
            case 2:
                delta = (int16_t)(uint16_t)(v[0] | v[1] << 8);
                break;
            case 4:
                delta = (int32_t)rd_u32(v);
                break;
            default:
                delta = (int64_t)rd_u64(v);
                break;
            }
            vpos += bytes;
        }
        prev += (uint64_t)delta;
        if (w == 4) {
            ((uint32_t *)out)[i] = (uint32_t)prev;
        } else {
            ((uint64_t *)out)[i] = prev;
        }
    }
    return 0;
}

static int usdc_compressed_ints(const usdc_crate *c, uint64_t off, uint64_t n, unsigned w, void *out, uint64_t *end,
                                const char *what)
{
    uint64_t csz;
    if (usdc_read_u64(c, off, &csz, what) != 0) {
        return -1;
    }
    if (!in_file(c, off + 8, csz)) {
        return usdc_fail(c, off, "compressed size %llu of %s past the end of the file (%llu bytes)",
                         (unsigned long long)csz, what, (unsigned long long)c->size);
    }
    if (end != NULL) {
        *end = off + 8 + csz;
    }
    if (n == 0) {
        return 0;
    }
    uint64_t enc_size = w + (n * 2 + 7) / 8 + n * w;
    /* The codes alone take n/4 bytes; LZ4 cannot have made them from fewer
     * than 1/255 of that. */
    if (n / 4 > csz * LZ4_MAX_RATIO + 64) {
        return usdc_fail(c, off, "count %llu of %s cannot come from %llu compressed bytes", (unsigned long long)n, what,
                         (unsigned long long)csz);
    }
    uint64_t cap = csz * LZ4_MAX_RATIO + 64;
    if (cap > enc_size) {
        cap = enc_size;
    }
    if (cap > SIZE_MAX / 2) {
        return usdc_fail(c, off, "%s: %llu integers too many for this machine", what, (unsigned long long)n);
    }
    uint8_t *buf = malloc((size_t)cap);
    if (buf == NULL) {
        return usdc_fail(c, off, "out of memory decoding %s", what);
    }
    /* The encoded length is only known after decoding: decompress what is
     * there, up to the worst case. */
    int rc = -1;
    uint64_t got = 0;
    if (lz4_into(c, off + 8, csz, buf, cap, &got, what) != 0) {
        goto done;
    }
    rc = decode_ints(c, off + 8, buf, got, n, w, out, what);
done:
    free(buf);
    return rc;
}

/* ---- bootstrap and table of contents -------------------------------------- */

static const usdc_section *find_section(const usdc_crate *c, const char *name)
{
    for (uint32_t i = 0; i < c->nsections; i++) {
        if (strcmp(c->sections[i].name, name) == 0) {
            return &c->sections[i];
        }
    }
    return NULL;
}

static int need_section(const usdc_crate *c, const char *name, const usdc_section **out)
{
    *out = find_section(c, name);
    if (*out == NULL) {
        return usdc_fail(c, c->toc_offset, "missing section %s", name);
    }
    return 0;
}

static int read_boot(usdc_crate *c)
{
    if (c->size < CRATE_BOOT_SIZE) {
        return usdc_fail(c, 0, "truncated: %llu bytes, too small for the 88-byte bootstrap",
                         (unsigned long long)c->size);
    }
    if (memcmp(c->data, "PXR-USDC", 8) != 0) {
        return usdc_fail(c, 0, "not a crate file (no PXR-USDC magic)");
    }
    c->ver[0] = c->data[8];
    c->ver[1] = c->data[9];
    c->ver[2] = c->data[10];
    c->version = (uint32_t)c->ver[0] << 16 | (uint32_t)c->ver[1] << 8 | c->ver[2];
    if (c->version < USDC_VERSION(0, 4, 0) || c->version > USDC_VERSION(0, 11, 0)) {
        return usdc_fail(c, 8, "crate version %u.%u.%u is not readable (this reader reads 0.4.0 through 0.11.0)",
                         c->ver[0], c->ver[1], c->ver[2]);
    }
    c->toc_offset = rd_u64(c->data + 16);
    uint64_t n;
    if (usdc_read_u64(c, c->toc_offset, &n, "the table of contents") != 0) {
        return -1;
    }
    if (n > (c->size - c->toc_offset - 8) / 32) {
        return usdc_fail(c, c->toc_offset, "table of contents claims %llu sections, past the end of the file",
                         (unsigned long long)n);
    }
    c->nsections = (uint32_t)n;
    c->sections = calloc(n ? (size_t)n : 1, sizeof *c->sections);
    if (c->sections == NULL) {
        return usdc_fail(c, c->toc_offset, "out of memory");
    }
    for (uint64_t i = 0; i < n; i++) {
        const uint8_t *p = c->data + c->toc_offset + 8 + i * 32;
        usdc_section *s = &c->sections[i];
        memcpy(s->name, p, 16);
        s->name[16] = '\0';
        s->start = rd_u64(p + 16);
        s->size = rd_u64(p + 24);
        if (!in_file(c, s->start, s->size)) {
            return usdc_fail(c, c->toc_offset + 8 + i * 32,
                             "section %s [%llu, +%llu) past the end of the file (%llu bytes)", s->name,
                             (unsigned long long)s->start, (unsigned long long)s->size, (unsigned long long)c->size);
        }
    }
    return 0;
}

/* ---- structural sections -------------------------------------------------- */

static int read_tokens(usdc_crate *c)
{
    const usdc_section *s;
    if (need_section(c, "TOKENS", &s) != 0) {
        return -1;
    }
    uint64_t n, raw, comp;
    if (s->size < 24) {
        return usdc_fail(c, s->start, "truncated: section TOKENS of %llu bytes has no header",
                         (unsigned long long)s->size);
    }
    n = rd_u64(c->data + s->start);
    raw = rd_u64(c->data + s->start + 8);
    comp = rd_u64(c->data + s->start + 16);
    if (comp > s->size - 24) {
        return usdc_fail(c, s->start + 16, "compressed size %llu past the end of section TOKENS",
                         (unsigned long long)comp);
    }
    if (raw > comp * LZ4_MAX_RATIO + 64 || n > raw || raw >= UINT32_MAX || raw > SIZE_MAX / 2) {
        return usdc_fail(c, s->start,
                         "%llu tokens in %llu bytes cannot come from %llu compressed bytes (section TOKENS)",
                         (unsigned long long)n, (unsigned long long)raw, (unsigned long long)comp);
    }
    c->token_chars = malloc(raw ? (size_t)raw : 1);
    c->token_off = malloc((n ? (size_t)n : 1) * sizeof *c->token_off);
    if (c->token_chars == NULL || c->token_off == NULL) {
        return usdc_fail(c, s->start, "out of memory (section TOKENS)");
    }
    if (raw > 0 && usdc_lz4(c, s->start + 24, comp, c->token_chars, raw, "section TOKENS") != 0) {
        return -1;
    }
    uint64_t pos = 0;
    for (uint64_t i = 0; i < n; i++) {
        const char *z = pos < raw ? memchr(c->token_chars + pos, '\0', (size_t)(raw - pos)) : NULL;
        if (z == NULL) {
            return usdc_fail(c, s->start, "token %llu of %llu runs past the %llu token bytes (section TOKENS)",
                             (unsigned long long)i, (unsigned long long)n, (unsigned long long)raw);
        }
        c->token_off[i] = (uint32_t)pos;
        pos = (uint64_t)(z - c->token_chars) + 1;
    }
    c->ntokens = n;
    c->token_bytes = raw;
    return 0;
}

static int read_strings(usdc_crate *c)
{
    const usdc_section *s;
    if (need_section(c, "STRINGS", &s) != 0) {
        return -1;
    }
    uint64_t n;
    if (usdc_read_u64(c, s->start, &n, "section STRINGS") != 0) {
        return -1;
    }
    if (n > (c->size - s->start - 8) / 4) {
        return usdc_fail(c, s->start, "%llu strings past the end of the file (section STRINGS)", (unsigned long long)n);
    }
    c->strings = malloc((n ? (size_t)n : 1) * sizeof *c->strings);
    if (c->strings == NULL) {
        return usdc_fail(c, s->start, "out of memory (section STRINGS)");
    }
    for (uint64_t i = 0; i < n; i++) {
        uint32_t t = rd_u32(c->data + s->start + 8 + i * 4);
        if (t >= c->ntokens) {
            return usdc_fail(c, s->start + 8 + i * 4,
                             "string %llu: token index %u out of range (%llu tokens) (section STRINGS)",
                             (unsigned long long)i, t, (unsigned long long)c->ntokens);
        }
        c->strings[i] = t;
    }
    c->nstrings = n;
    return 0;
}

/* Bounds a count that a compressed-int array will hold, before allocating. */
static int plausible_count(const usdc_crate *c, const usdc_section *s, uint64_t n, const char *what)
{
    /* Indices are 32-bit (UINT32_MAX ends a field set), and the tables of
     * n entries must be addressable here (32-bit size_t included). */
    if (n >= UINT32_MAX || n > SIZE_MAX / 16) {
        return usdc_fail(c, s->start, "%llu %s: more than this reader can index (section %s)", (unsigned long long)n,
                         what, s->name);
    }
    if (n / 4 > s->size * LZ4_MAX_RATIO + 64) {
        return usdc_fail(c, s->start, "%llu %s cannot fit in section %s of %llu bytes", (unsigned long long)n, what,
                         s->name, (unsigned long long)s->size);
    }
    return 0;
}

static int read_fields(usdc_crate *c)
{
    const usdc_section *s;
    if (need_section(c, "FIELDS", &s) != 0) {
        return -1;
    }
    uint64_t n, end;
    if (usdc_read_u64(c, s->start, &n, "section FIELDS") != 0 || plausible_count(c, s, n, "fields") != 0) {
        return -1;
    }
    c->field_tok = malloc((n ? (size_t)n : 1) * sizeof *c->field_tok);
    c->field_rep = malloc((n ? (size_t)n : 1) * sizeof *c->field_rep);
    if (c->field_tok == NULL || c->field_rep == NULL) {
        return usdc_fail(c, s->start, "out of memory (section FIELDS)");
    }
    if (usdc_compressed_ints(c, s->start + 8, n, 4, c->field_tok, &end, "the field names (section FIELDS)") != 0) {
        return -1;
    }
    uint64_t rsz;
    if (usdc_read_u64(c, end, &rsz, "the field values (section FIELDS)") != 0) {
        return -1;
    }
    if (n > 0) {
        uint8_t *tmp = malloc((size_t)n * 8);
        if (tmp == NULL) {
            return usdc_fail(c, s->start, "out of memory (section FIELDS)");
        }
        if (usdc_lz4(c, end + 8, rsz, tmp, n * 8, "the field values (section FIELDS)") != 0) {
            free(tmp);
            return -1;
        }
        for (uint64_t i = 0; i < n; i++) {
            c->field_rep[i] = rd_u64(tmp + i * 8);
        }
        free(tmp);
    }
    for (uint64_t i = 0; i < n; i++) {
        if (c->field_tok[i] >= c->ntokens) {
            return usdc_fail(c, s->start, "field %llu: name token %u out of range (%llu tokens) (section FIELDS)",
                             (unsigned long long)i, c->field_tok[i], (unsigned long long)c->ntokens);
        }
    }
    c->nfields = n;
    return 0;
}

static int read_fieldsets(usdc_crate *c)
{
    const usdc_section *s;
    if (need_section(c, "FIELDSETS", &s) != 0) {
        return -1;
    }
    uint64_t n;
    if (usdc_read_u64(c, s->start, &n, "section FIELDSETS") != 0 ||
        plausible_count(c, s, n, "field set entries") != 0) {
        return -1;
    }
    c->fieldsets = malloc((n ? (size_t)n : 1) * sizeof *c->fieldsets);
    if (c->fieldsets == NULL) {
        return usdc_fail(c, s->start, "out of memory (section FIELDSETS)");
    }
    if (usdc_compressed_ints(c, s->start + 8, n, 4, c->fieldsets, NULL, "section FIELDSETS") != 0) {
        return -1;
    }
    for (uint64_t i = 0; i < n; i++) {
        if (c->fieldsets[i] != UINT32_MAX && c->fieldsets[i] >= c->nfields) {
            return usdc_fail(c, s->start,
                             "field set entry %llu: field index %u out of range (%llu fields) (section FIELDSETS)",
                             (unsigned long long)i, c->fieldsets[i], (unsigned long long)c->nfields);
        }
    }
    c->nfieldsets = n;
    return 0;
}

/* The encoded PATHS arrays read_paths walks, with the entries it has visited. */
typedef struct path_tables {
    const uint32_t *idx, *tok;
    uint8_t *seen;
    uint64_t npaths, nenc;
} path_tables;

/* Places encoded entry I under PARENT (USDC_NO_PATH: the root, which must be entry 0): its path index, once,
 * and its element token (negative: a property). *PI receives the path index. 0, or -1 with a message. */
static int place_path_entry(usdc_crate *c, const usdc_section *s, const path_tables *pt, uint64_t i, uint32_t parent,
                            uint32_t *pi_out)
{
    if (i >= pt->nenc) {
        return usdc_fail(c, s->start, "path entry %llu past the %llu encoded paths (section PATHS)",
                         (unsigned long long)i, (unsigned long long)pt->nenc);
    }
    if (pt->seen[i]) {
        return usdc_fail(c, s->start, "path tree loops back to entry %llu (section PATHS)", (unsigned long long)i);
    }
    pt->seen[i] = 1;
    uint32_t pi = pt->idx[i];
    if (pi >= pt->npaths) {
        return usdc_fail(c, s->start, "path entry %llu: path index %u out of range (%llu paths) (section PATHS)",
                         (unsigned long long)i, pi, (unsigned long long)pt->npaths);
    }
    if (c->path_elem[pi] != USDC_NO_PATH || pi == c->root_path) {
        return usdc_fail(c, s->start, "path entry %llu: path index %u given twice (section PATHS)",
                         (unsigned long long)i, pi);
    }
    if (parent == USDC_NO_PATH) {
        if (i != 0) {
            return usdc_fail(c, s->start, "path entry %llu: a second root (section PATHS)", (unsigned long long)i);
        }
        c->root_path = pi;
    } else {
        int32_t t = (int32_t)pt->tok[i];
        uint32_t a = t < 0 ? (uint32_t)0 - (uint32_t)t : (uint32_t)t;
        if (a >= c->ntokens) {
            return usdc_fail(c, s->start,
                             "path entry %llu: element token %u out of range (%llu tokens) (section PATHS)",
                             (unsigned long long)i, a, (unsigned long long)c->ntokens);
        }
        c->path_parent[pi] = parent;
        c->path_elem[pi] = a;
        c->path_prop[pi] = t < 0;
    }
    *pi_out = pi;
    return 0;
}

static int read_paths(usdc_crate *c)
{
    const usdc_section *s;
    if (need_section(c, "PATHS", &s) != 0) {
        return -1;
    }
    uint64_t npaths, nenc, end;
    if (usdc_read_u64(c, s->start, &npaths, "section PATHS") != 0 ||
        usdc_read_u64(c, s->start + 8, &nenc, "section PATHS") != 0) {
        return -1;
    }
    if (plausible_count(c, s, npaths, "paths") != 0 || plausible_count(c, s, nenc, "encoded paths") != 0) {
        return -1;
    }
    if (nenc > npaths) {
        return usdc_fail(c, s->start + 8, "%llu encoded paths for %llu paths (section PATHS)", (unsigned long long)nenc,
                         (unsigned long long)npaths);
    }
    size_t np = npaths ? (size_t)npaths : 1, ne = nenc ? (size_t)nenc : 1;
    c->path_parent = malloc(np * sizeof *c->path_parent);
    c->path_elem = malloc(np * sizeof *c->path_elem);
    c->path_prop = calloc(np, 1);
    uint32_t *idx = malloc(ne * 4), *jmp = malloc(ne * 4), *tok = malloc(ne * 4), *stack = malloc(ne * 8);
    uint8_t *seen = calloc(ne, 1);
    int rc = -1;
    if (c->path_parent == NULL || c->path_elem == NULL || c->path_prop == NULL || idx == NULL || jmp == NULL ||
        tok == NULL || stack == NULL || seen == NULL) {
        (void)usdc_fail(c, s->start, "out of memory (section PATHS)");
        goto done;
    }
    for (uint64_t i = 0; i < npaths; i++) {
        c->path_parent[i] = USDC_NO_PATH;
        c->path_elem[i] = USDC_NO_PATH;
    }
    if (usdc_compressed_ints(c, s->start + 16, nenc, 4, idx, &end, "the path indexes (section PATHS)") != 0 ||
        usdc_compressed_ints(c, end, nenc, 4, tok, &end, "the path element tokens (section PATHS)") != 0 ||
        usdc_compressed_ints(c, end, nenc, 4, jmp, &end, "the path jumps (section PATHS)") != 0) {
        goto done;
    }
    /* Walk the tree without recursion: a sibling subtree is pushed, the
     * child followed. Each encoded entry is visited once, so a jump that
     * loops is found, and the stack never exceeds the entry count. */
    path_tables pt = {idx, tok, seen, npaths, nenc};
    uint64_t sp = 0;
    if (nenc > 0) {
        stack[0] = 0;
        stack[1] = USDC_NO_PATH;
        sp = 1;
    }
    while (sp > 0) {
        sp--;
        uint64_t i = stack[sp * 2];
        uint32_t parent = stack[sp * 2 + 1];
        for (;;) {
            uint32_t pi;
            if (place_path_entry(c, s, &pt, i, parent, &pi) != 0) {
                goto done;
            }
            int32_t j = (int32_t)jmp[i];
            int child = j > 0 || j == -1;
            int sibling = j >= 0;
            if (child && sibling) {
                if ((uint64_t)j > nenc - i) {
                    (void)usdc_fail(c, s->start,
                                    "path entry %llu: sibling jump %d past the %llu encoded paths (section PATHS)",
                                    (unsigned long long)i, j, (unsigned long long)nenc);
                    goto done;
                }
                stack[sp * 2] = (uint32_t)(i + (uint64_t)j);
                stack[sp * 2 + 1] = parent;
                sp++;
            }
            if (child) {
                if (c->path_prop[pi]) {
                    (void)usdc_fail(c, s->start, "path entry %llu: a property path with children (section PATHS)",
                                    (unsigned long long)i);
                    goto done;
                }
                parent = pi;
            }
            if (!child && !sibling) {
                break;
            }
            i++;
        }
    }
    c->npaths = npaths;
    rc = 0;
done:
    free(idx);
    free(jmp);
    free(tok);
    free(stack);
    free(seen);
    return rc;
}

static int read_specs(usdc_crate *c)
{
    const usdc_section *s;
    if (need_section(c, "SPECS", &s) != 0) {
        return -1;
    }
    uint64_t n, end;
    if (usdc_read_u64(c, s->start, &n, "section SPECS") != 0 || plausible_count(c, s, n, "specs") != 0) {
        return -1;
    }
    size_t sz = (n ? (size_t)n : 1) * 4;
    c->spec_path = malloc(sz);
    c->spec_fset = malloc(sz);
    c->spec_type = malloc(sz);
    if (c->spec_path == NULL || c->spec_fset == NULL || c->spec_type == NULL) {
        return usdc_fail(c, s->start, "out of memory (section SPECS)");
    }
    if (usdc_compressed_ints(c, s->start + 8, n, 4, c->spec_path, &end, "the spec paths (section SPECS)") != 0 ||
        usdc_compressed_ints(c, end, n, 4, c->spec_fset, &end, "the spec field sets (section SPECS)") != 0 ||
        usdc_compressed_ints(c, end, n, 4, c->spec_type, &end, "the spec types (section SPECS)") != 0) {
        return -1;
    }
    uint64_t last_end = UINT64_MAX; /* the last terminator of the field sets */
    for (uint64_t k = c->nfieldsets; k-- > 0;) {
        if (c->fieldsets[k] == UINT32_MAX) {
            last_end = k;
            break;
        }
    }
    for (uint64_t i = 0; i < n; i++) {
        if (c->spec_path[i] >= c->npaths ||
            (c->path_elem[c->spec_path[i]] == USDC_NO_PATH && c->spec_path[i] != c->root_path)) {
            return usdc_fail(c, s->start, "spec %llu: path index %u out of range (%llu paths) (section SPECS)",
                             (unsigned long long)i, c->spec_path[i], (unsigned long long)c->npaths);
        }
        if (c->spec_fset[i] >= c->nfieldsets) {
            return usdc_fail(c, s->start, "spec %llu: field set index %u out of range (%llu entries) (section SPECS)",
                             (unsigned long long)i, c->spec_fset[i], (unsigned long long)c->nfieldsets);
        }
        /* The set must end with a terminator: one at or after its start. */
        if (last_end == UINT64_MAX || c->spec_fset[i] > last_end) {
            return usdc_fail(c, s->start, "spec %llu: field set %u has no terminator (section SPECS)",
                             (unsigned long long)i, c->spec_fset[i]);
        }
        if (c->spec_type[i] == 0 || c->spec_type[i] > USDC_SPEC_VARIANT_SET) {
            return usdc_fail(c, s->start, "spec %llu: unknown spec type %u (section SPECS)", (unsigned long long)i,
                             c->spec_type[i]);
        }
    }
    c->nspecs = n;
    return 0;
}

static int usdc_crate_open(usdc_crate *c, const char *name, const uint8_t *data, uint64_t size, pk_diag *diag)
{
    memset(c, 0, sizeof *c);
    c->name = name;
    c->data = data;
    c->size = size;
    c->diag = diag;
    c->root_path = USDC_NO_PATH;
    if (read_boot(c) != 0 || read_tokens(c) != 0 || read_strings(c) != 0 || read_fields(c) != 0 ||
        read_fieldsets(c) != 0 || read_paths(c) != 0 || read_specs(c) != 0) {
        usdc_crate_close(c);
        return -1;
    }
    return 0;
}

static void usdc_crate_close(usdc_crate *c)
{
    free(c->sections);
    free(c->token_chars);
    free(c->token_off);
    free(c->strings);
    free(c->field_tok);
    free(c->field_rep);
    free(c->fieldsets);
    free(c->path_parent);
    free(c->path_elem);
    free(c->path_prop);
    free(c->spec_path);
    free(c->spec_fset);
    free(c->spec_type);
    const char *name = c->name;
    pk_diag *d = c->diag;
    memset(c, 0, sizeof *c);
    c->name = name;
    c->diag = d;
}

static const char *usdc_token(const usdc_crate *c, uint32_t i)
{
    return i < c->ntokens ? c->token_chars + c->token_off[i] : NULL;
}

static const char *usdc_string(const usdc_crate *c, uint32_t i)
{
    return i < c->nstrings ? usdc_token(c, c->strings[i]) : NULL;
}

/* Writes path p as text ("/A/B", "/A{v=x}B", "/A.attr"), NUL-terminated,
 * truncated to cap; "" for a path index the tree left empty. Returns the
 * length written. O(depth); the tree was built parent-first, so it cannot
 * loop. */
static size_t usdc_path_string(const usdc_crate *c, uint32_t p, char *out, size_t cap)
{
    uint32_t chain[USD_MAX_DEPTH * 2];
    size_t n = 0;
    if (cap == 0) {
        return 0;
    }
    out[0] = '\0';
    if (p == c->root_path) {
        snprintf(out, cap, "/");
        return 1;
    }
    while (p != USDC_NO_PATH && p < c->npaths && p != c->root_path && n < sizeof chain / sizeof chain[0]) {
        if (c->path_elem[p] == USDC_NO_PATH) {
            return 0;
        }
        chain[n++] = p;
        p = c->path_parent[p];
    }
    size_t len = 0;
    int after_variant = 0;
    for (size_t i = n; i-- > 0;) {
        uint32_t q = chain[i];
        const char *e = usdc_token(c, c->path_elem[q]);
        const char *sep = "/";
        if (c->path_prop[q]) {
            sep = ".";
        } else if (e[0] == '{' || after_variant) {
            sep = "";
        }
        after_variant = !c->path_prop[q] && e[0] == '{';
        int w = snprintf(out + len, cap - len, "%s%s", sep, e);
        if (w < 0 || (size_t)w >= cap - len) {
            return cap - 1;
        }
        len += (size_t)w;
    }
    return len;
}

/* ---- ValueReps ------------------------------------------------------------ */

/* A ValueRep: bit 63 array, 62 inlined, 61 compressed, bits 48..55 the type,
 * the low 48 bits the payload (an inlined value or a file offset). */
#define REP_ARRAY(r) (((r) >> 63) & 1u)
#define REP_INLINED(r) (((r) >> 62) & 1u)
#define REP_COMPRESSED(r) (((r) >> 61) & 1u)
#define REP_TYPE(r) ((unsigned)(((r) >> 48) & 0xffu))
#define REP_PAYLOAD(r) ((r)&0xffffffffffffull)

/* The crate's value types (CrateDataTypes) this reader knows. */
enum {
    T_BOOL = 1,
    T_UCHAR,
    T_INT,
    T_UINT,
    T_INT64,
    T_UINT64,
    T_HALF,
    T_FLOAT,
    T_DOUBLE,
    T_STRING,
    T_TOKEN,
    T_ASSET,
    T_MATRIX2D,
    T_MATRIX3D,
    T_MATRIX4D,
    T_QUATD,
    T_QUATF,
    T_QUATH,
    T_VEC2D,
    T_VEC2F,
    T_VEC2H,
    T_VEC2I,
    T_VEC3D,
    T_VEC3F,
    T_VEC3H,
    T_VEC3I,
    T_VEC4D,
    T_VEC4F,
    T_VEC4H,
    T_VEC4I,
    T_DICTIONARY,
    T_TOKEN_LISTOP,
    T_STRING_LISTOP,
    T_PATH_LISTOP,
    T_REFERENCE_LISTOP,
    T_INT_LISTOP,
    T_INT64_LISTOP,
    T_UINT_LISTOP,
    T_UINT64_LISTOP,
    T_PATH_VECTOR,
    T_TOKEN_VECTOR,
    T_SPECIFIER,
    T_PERMISSION,
    T_VARIABILITY,
    T_VARIANT_SELECTION_MAP,
    T_TIME_SAMPLES,
    T_PAYLOAD,
    T_DOUBLE_VECTOR,
    T_LAYER_OFFSET_VECTOR,
    T_STRING_VECTOR,
    T_VALUE_BLOCK,
    T_VALUE,
    T_UNREGISTERED_VALUE,
    T_UNREGISTERED_VALUE_LISTOP,
    T_PAYLOAD_LISTOP,
    T_TIMECODE,
    T_PATH_EXPRESSION,
    T_RELOCATES /* 0.11.0: u64 count, then per relocate a source and a target path index */
};

/* Scalar component kinds. */
enum { K_NONE = 0, K_U8, K_I32, K_U32, K_I64, K_U64, K_HALF, K_FLOAT, K_DOUBLE };

typedef struct num_type {
    uint8_t kind;       /* K_* of each component */
    uint8_t components; /* per element */
    uint8_t bytes;      /* of one component */
    uint8_t matrix;     /* square matrix dimension, for inlined diagonals */
} num_type;

/* The numeric layout of a crate type, or kind K_NONE. */
static num_type numeric_type(unsigned t)
{
    num_type n = {K_NONE, 0, 0, 0};
    switch (t) {
    case T_BOOL:
    case T_UCHAR:
        n = (num_type){K_U8, 1, 1, 0};
        break;
    case T_INT:
        n = (num_type){K_I32, 1, 4, 0};
        break;
    case T_UINT:
        n = (num_type){K_U32, 1, 4, 0};
        break;
    case T_INT64:
        n = (num_type){K_I64, 1, 8, 0};
        break;
    case T_UINT64:
        n = (num_type){K_U64, 1, 8, 0};
        break;
    case T_HALF:
        n = (num_type){K_HALF, 1, 2, 0};
        break;
    case T_FLOAT:
        n = (num_type){K_FLOAT, 1, 4, 0};
        break;
    case T_DOUBLE:
    case T_TIMECODE:
        n = (num_type){K_DOUBLE, 1, 8, 0};
        break;
    case T_MATRIX2D:
        n = (num_type){K_DOUBLE, 4, 8, 2};
        break;
    case T_MATRIX3D:
        n = (num_type){K_DOUBLE, 9, 8, 3};
        break;
    case T_MATRIX4D:
        n = (num_type){K_DOUBLE, 16, 8, 4};
        break;
    case T_QUATD:
        n = (num_type){K_DOUBLE, 4, 8, 0};
        break;
    case T_QUATF:
        n = (num_type){K_FLOAT, 4, 4, 0};
        break;
    case T_QUATH:
        n = (num_type){K_HALF, 4, 2, 0};
        break;
    case T_VEC2D:
        n = (num_type){K_DOUBLE, 2, 8, 0};
        break;
    case T_VEC2F:
        n = (num_type){K_FLOAT, 2, 4, 0};
        break;
    case T_VEC2H:
        n = (num_type){K_HALF, 2, 2, 0};
        break;
    case T_VEC2I:
        n = (num_type){K_I32, 2, 4, 0};
        break;
    case T_VEC3D:
        n = (num_type){K_DOUBLE, 3, 8, 0};
        break;
    case T_VEC3F:
        n = (num_type){K_FLOAT, 3, 4, 0};
        break;
    case T_VEC3H:
        n = (num_type){K_HALF, 3, 2, 0};
        break;
    case T_VEC3I:
        n = (num_type){K_I32, 3, 4, 0};
        break;
    case T_VEC4D:
        n = (num_type){K_DOUBLE, 4, 8, 0};
        break;
    case T_VEC4F:
        n = (num_type){K_FLOAT, 4, 4, 0};
        break;
    case T_VEC4H:
        n = (num_type){K_HALF, 4, 2, 0};
        break;
    case T_VEC4I:
        n = (num_type){K_I32, 4, 4, 0};
        break;
    default:
        break;
    }
    return n;
}

static double component_f64(const uint8_t *p, unsigned kind)
{
    switch (kind) {
    case K_U8:
        return p[0];
    case K_I32:
        return (double)(int32_t)rd_u32(p);
    case K_U32:
        return (double)rd_u32(p);
    case K_I64:
        return (double)(int64_t)rd_u64(p);
    case K_U64:
        return (double)rd_u64(p);
    case K_HALF:
        return (double)usd_half_to_float((uint16_t)(p[0] | p[1] << 8));
    case K_FLOAT: {
        uint32_t b = rd_u32(p);
        float f;
        memcpy(&f, &b, 4);
        return (double)f;
    }
    default: {
        uint64_t b = rd_u64(p);
        double d;
        memcpy(&d, &b, 8);
        return d;
    }
    }
}

/* The crate a property's values come from (stored in each value ref). */
static const usdc_crate *crate_of(const usd_value_ref *v)
{
    /* usd_value_ref has no pointer field: the crate travels as an integer. */
    return (const usdc_crate *)(uintptr_t)v->b; // NOLINT(performance-no-int-to-ptr)
}

static int value_fail(const usd_prop *p, const usdc_crate *c, uint64_t off, pk_diag *d, const char *what)
{
    (void)c;
    return VALUE_FAIL(p, 0, d, "offset %llu: %s", (unsigned long long)off, what);
}

/* Where an array's elements start and how many there are. For compressed
 * arrays *data is where the compressed form starts. */
static int array_header(const usd_prop *p, const usdc_crate *c, uint64_t rep, uint64_t *count, uint64_t *data,
                        pk_diag *d)
{
    uint64_t off = REP_PAYLOAD(rep);
    if (off == 0) {
        *count = 0;
        *data = 0;
        return 0;
    }
    if (c->version < USDC_VERSION(0, 5, 0)) {
        off += 4; /* the rank, always 1 */
    }
    if (c->version < USDC_VERSION(0, 7, 0)) {
        if (!in_file(c, off, 4)) {
            return value_fail(p, c, off, d, "truncated: array count past the end of the file");
        }
        *count = rd_u32(c->data + off);
        off += 4;
    } else {
        if (!in_file(c, off, 8)) {
            return value_fail(p, c, off, d, "truncated: array count past the end of the file");
        }
        *count = rd_u64(c->data + off);
        off += 8;
    }
    *data = off;
    return 0;
}

/* Whether an array of n elements is stored compressed: the rep says so,
 * it has 16 or more elements, and it is an int array of 0.5.0 or later
 * ('n') or a floating-point array of 0.6.0 or later ('f'); else 0 and the
 * elements are stored as they are. The one rule count and read share. */
static int compressed_form(const usdc_crate *c, uint64_t rep, uint64_t n)
{
    if (!REP_ARRAY(rep) || !REP_COMPRESSED(rep) || n < CRATE_MIN_COMPRESSED_ARRAY) {
        return 0;
    }
    unsigned t = REP_TYPE(rep);
    if ((t == T_INT || t == T_UINT || t == T_INT64 || t == T_UINT64) && c->version >= USDC_VERSION(0, 5, 0)) {
        return 'n';
    }
    if ((t == T_HALF || t == T_FLOAT || t == T_DOUBLE) && c->version >= USDC_VERSION(0, 6, 0)) {
        return 'f';
    }
    return 0;
}

/* The element size of a non-numeric array type (token, string, asset
 * indices), or 0. */
static unsigned index_type_bytes(unsigned t)
{
    return t == T_TOKEN || t == T_STRING || t == T_ASSET ? 4u : 0u;
}

static int usdc_count(const usd_prop *p, const usd_value_ref *v, uint64_t *count, uint32_t *components, pk_diag *d)
{
    const usdc_crate *c = crate_of(v);
    uint64_t rep = v->a;
    unsigned t = REP_TYPE(rep);
    num_type nt = numeric_type(t);
    unsigned ib = index_type_bytes(t);
    if (nt.kind == K_NONE && ib == 0) {
        return VALUE_FAIL(p, 0, d, "value of crate type %u is not numeric, token or string", t);
    }
    *components = nt.kind != K_NONE ? nt.components : 1u;
    if (!REP_ARRAY(rep)) {
        *count = 1;
        return 0;
    }
    uint64_t n, data;
    if (array_header(p, c, rep, &n, &data, d) != 0) {
        return -1;
    }
    uint64_t esz = nt.kind != K_NONE ? (uint64_t)nt.components * nt.bytes : ib;
    uint64_t room = c->size - (data < c->size ? data : c->size);
    if (compressed_form(c, rep, n) != 0) {
        /* Compressed: at least 2 bits an element, from at most 255:1 LZ4. */
        if (n / 4 > room * LZ4_MAX_RATIO + 64) {
            return value_fail(p, c, data, d, "array count cannot come from the bytes left in the file");
        }
    } else if (n > room / esz) {
        char m[160];
        snprintf(m, sizeof m, "truncated: %llu elements of %llu bytes past the end of the file", (unsigned long long)n,
                 (unsigned long long)esz);
        return value_fail(p, c, data, d, m);
    }
    *count = n;
    return 0;
}

static void store(void *out, int dst, size_t i, double x)
{
    if (dst == USD_DST_F64) {
        ((double *)out)[i] = x;
    } else if (dst == USD_DST_F32) {
        ((float *)out)[i] = (float)x;
    } else {
        ((int32_t *)out)[i] = (int32_t)x;
    }
}

static int check_i32(const usd_prop *p, const usdc_crate *c, uint64_t off, unsigned kind, double x, pk_diag *d)
{
    if (kind == K_HALF || kind == K_FLOAT || kind == K_DOUBLE) {
        return value_fail(p, c, off, d, "a floating-point value read as int");
    }
    if (x < -2147483648.0 || x > 2147483647.0) {
        char m[96];
        snprintf(m, sizeof m, "value %.17g outside int32", x);
        return value_fail(p, c, off, d, m);
    }
    return 0;
}

/* Decodes the compressed int array at data (n elements of width w) into a
 * fresh buffer the caller frees. */
static void *decode_array_ints(const usd_prop *p, const usdc_crate *c, uint64_t data, uint64_t n, unsigned w,
                               pk_diag *d)
{
    void *buf = n <= SIZE_MAX / w ? malloc((size_t)n * w) : NULL;
    if (buf == NULL) {
        value_fail(p, c, data, d, "out of memory");
        return NULL;
    }
    pk_diag tmp;
    usdc_crate cc = *c;
    cc.diag = &tmp;
    if (usdc_compressed_ints(&cc, data, n, w, buf, NULL, "an array") != 0) {
        free(buf);
        (void)VALUE_FAIL(p, 0, d, "%s", tmp.message + strlen(c->name) + 2);
        return NULL;
    }
    return buf;
}

/* An inlined (not array) numeric value of crate type T: a scalar in the payload's 32 bits, or a vector or
 * a diagonal matrix of small integers, one int8 each; converted to DST in OUT. 0, or -1 with a message. */
static int read_num_inlined(const usd_prop *p, const usdc_crate *c, unsigned t, num_type nt, uint64_t rep, int dst,
                            void *out, pk_diag *d)
{
    uint32_t bits = (uint32_t)REP_PAYLOAD(rep);
    uint8_t b[4] = {(uint8_t)bits, (uint8_t)(bits >> 8), (uint8_t)(bits >> 16), (uint8_t)(bits >> 24)};
    double vals[16];
    if (nt.components == 1) {
        switch (nt.kind) {
        case K_I64:
            vals[0] = (double)(int32_t)bits;
            break;
        case K_U64:
            vals[0] = (double)bits;
            break;
        case K_DOUBLE:
            vals[0] = component_f64(b, K_FLOAT);
            break;
        default:
            vals[0] = component_f64(b, nt.kind);
            break;
        }
    } else if (nt.matrix != 0) {
        /* A diagonal matrix of small integers: its diagonal as int8. */
        for (unsigned i = 0; i < nt.components; i++) {
            vals[i] = 0;
        }
        for (unsigned i = 0; i < nt.matrix; i++) {
            vals[i * nt.matrix + i] = (double)s8(b[i]);
        }
    } else if (nt.components <= 4 && t != T_QUATD && t != T_QUATF && t != T_QUATH) {
        /* A vector of small integers: each component as int8. */
        for (unsigned i = 0; i < nt.components; i++) {
            vals[i] = (double)s8(b[i]);
        }
    } else {
        return value_fail(p, c, 0, d, "inlined quaternion (no such encoding)");
    }
    for (unsigned i = 0; i < nt.components; i++) {
        if (dst == USD_DST_I32 && check_i32(p, c, 0, nt.kind, vals[i], d) != 0) {
            return -1;
        }
        store(out, dst, i, vals[i]);
    }
    return 0;
}

/* COUNT integers stored with the crate's integer compression at DATA, converted to DST in OUT. 0, or -1 with
 * a message. */
static int read_num_int_coded(const usd_prop *p, const usdc_crate *c, num_type nt, uint64_t data, uint64_t count,
                              int dst, void *out, pk_diag *d)
{
    unsigned w = nt.bytes;
    uint8_t *ints = decode_array_ints(p, c, data, count, w, d);
    if (ints == NULL) {
        return -1;
    }
    for (uint64_t i = 0; i < count; i++) {
        double x = w == 4 ? (nt.kind == K_I32 ? (double)((int32_t *)(void *)ints)[i]
                                              : (double)((uint32_t *)(void *)ints)[i])
                          : (nt.kind == K_I64 ? (double)((int64_t *)(void *)ints)[i]
                                              : (double)((uint64_t *)(void *)ints)[i]);
        if (dst == USD_DST_I32 && check_i32(p, c, data, nt.kind, x, d) != 0) {
            free(ints);
            return -1;
        }
        store(out, dst, (size_t)i, x);
    }
    free(ints);
    return 0;
}

/* COUNT floating-point values stored as a lookup table (code 't' at DATA) and compressed indices into it.
 * 0, or -1 with a message (an index past the table included). */
static int read_num_lut(const usd_prop *p, const usdc_crate *c, num_type nt, uint64_t data, uint64_t count, int dst,
                        void *out, pk_diag *d)
{
    uint32_t lut;
    if (!in_file(c, data + 1, 4)) {
        return value_fail(p, c, data + 1, d, "truncated: lookup table size past the end of the file");
    }
    lut = rd_u32(c->data + data + 1);
    uint64_t lut_at = data + 5;
    if (!in_file(c, lut_at, (uint64_t)lut * nt.bytes)) {
        return value_fail(p, c, lut_at, d, "truncated: lookup table past the end of the file");
    }
    uint32_t *idx = decode_array_ints(p, c, lut_at + (uint64_t)lut * nt.bytes, count, 4, d);
    if (idx == NULL) {
        return -1;
    }
    for (uint64_t i = 0; i < count; i++) {
        if (idx[i] >= lut) {
            char m[128];
            snprintf(m, sizeof m, "lookup index %u of element %llu out of range (%u entries)", idx[i],
                     (unsigned long long)i, lut);
            free(idx);
            return value_fail(p, c, lut_at, d, m);
        }
        store(out, dst, (size_t)i, component_f64(c->data + lut_at + (uint64_t)idx[i] * nt.bytes, nt.kind));
    }
    free(idx);
    return 0;
}

/* COUNT floating-point values stored compressed at DATA: as compressed integers (code 'i') or through a lookup
 * table (code 't'); never read as int. 0, or -1 with a message. */
static int read_num_float_coded(const usd_prop *p, const usdc_crate *c, num_type nt, uint64_t data, uint64_t count,
                                int dst, void *out, pk_diag *d)
{
    if (dst == USD_DST_I32) {
        return value_fail(p, c, data, d, "a floating-point value read as int");
    }
    if (!in_file(c, data, 1)) {
        return value_fail(p, c, data, d, "truncated: compressed array code past the end of the file");
    }
    uint8_t code = c->data[data];
    if (code == 'i') {
        int32_t *ints = decode_array_ints(p, c, data + 1, count, 4, d);
        if (ints == NULL) {
            return -1;
        }
        for (uint64_t i = 0; i < count; i++) {
            store(out, dst, (size_t)i, (double)ints[i]);
        }
        free(ints);
        return 0;
    }
    if (code == 't') {
        return read_num_lut(p, c, nt, data, count, dst, out, d);
    }
    char m[96];
    snprintf(m, sizeof m, "unknown compressed array code 0x%02x", code);
    return value_fail(p, c, data, d, m);
}

static int usdc_read_num(const usd_prop *p, const usd_value_ref *v, int dst, void *out, size_t cap, size_t *nout,
                         pk_diag *d)
{
    const usdc_crate *c = crate_of(v);
    uint64_t rep = v->a;
    unsigned t = REP_TYPE(rep);
    num_type nt = numeric_type(t);
    if (nt.kind == K_NONE) {
        return VALUE_FAIL(p, 0, d, "value of crate type %u is not numeric", t);
    }
    uint64_t count;
    uint32_t comps;
    if (usdc_count(p, v, &count, &comps, d) != 0) {
        return -1;
    }
    uint64_t total = count * comps;
    if (total > cap) {
        char m[128];
        snprintf(m, sizeof m, "%llu values do not fit the caller's %zu", (unsigned long long)total, cap);
        return value_fail(p, c, REP_PAYLOAD(rep), d, m);
    }
    if (nout != NULL) {
        *nout = (size_t)total;
    }
    if (!REP_ARRAY(rep) && REP_INLINED(rep)) {
        return read_num_inlined(p, c, t, nt, rep, dst, out, d);
    }
    uint64_t data;
    if (!REP_ARRAY(rep)) {
        data = REP_PAYLOAD(rep);
        if (!in_file(c, data, (uint64_t)nt.components * nt.bytes)) {
            return value_fail(p, c, data, d, "truncated: value past the end of the file");
        }
    } else if (array_header(p, c, rep, &count, &data, d) != 0) {
        return -1;
    }
    if (count == 0) {
        return 0;
    }
    int compressed = compressed_form(c, rep, count);
    if (compressed == 'n') {
        return read_num_int_coded(p, c, nt, data, count, dst, out, d);
    }
    if (compressed == 'f') {
        return read_num_float_coded(p, c, nt, data, count, dst, out, d);
    }
    /* Uncompressed: converted straight out of the file's bytes, no copy. A
     * crate stores a quaternion as i, j, k, real; readers hand it out real
     * first, as text writes it (w, x, y, z). */
    const uint8_t *src = c->data + data;
    int quat = t == T_QUATD || t == T_QUATF || t == T_QUATH;
    for (uint64_t i = 0; i < total; i++) {
        uint64_t at = quat ? (i & ~(uint64_t)3) + ((i + 3) & 3) : i;
        double x = component_f64(src + at * nt.bytes, nt.kind);
        if (dst == USD_DST_I32 && check_i32(p, c, data + i * nt.bytes, nt.kind, x, d) != 0) {
            return -1;
        }
        store(out, dst, (size_t)i, x);
    }
    return 0;
}

static int usdc_read_token(const usd_prop *p, const usd_value_ref *v, size_t index, char *buf, size_t cap, pk_diag *d)
{
    const usdc_crate *c = crate_of(v);
    uint64_t rep = v->a;
    unsigned t = REP_TYPE(rep);
    const char *s = NULL;
    if (index_type_bytes(t) == 0) {
        return VALUE_FAIL(p, 0, d, "value of crate type %u is not a token, string or asset", t);
    }
    if (!REP_ARRAY(rep)) {
        if (index != 0) {
            return VALUE_FAIL(p, 0, d, "index %zu of a scalar", index);
        }
        if (!REP_INLINED(rep)) {
            return value_fail(p, c, REP_PAYLOAD(rep), d, "token value not inlined");
        }
        uint32_t i = (uint32_t)REP_PAYLOAD(rep);
        s = t == T_STRING ? usdc_string(c, i) : usdc_token(c, i);
        if (s == NULL) {
            char m[96];
            snprintf(m, sizeof m, "%s index %u out of range", t == T_STRING ? "string" : "token", i);
            return value_fail(p, c, 0, d, m);
        }
    } else {
        uint64_t n, data;
        uint32_t comps;
        if (usdc_count(p, v, &n, &comps, d) != 0 || array_header(p, c, rep, &n, &data, d) != 0) {
            return -1;
        }
        if (index >= n) {
            return VALUE_FAIL(p, 0, d, "index %zu past the %llu elements", index, (unsigned long long)n);
        }
        uint32_t i = rd_u32(c->data + data + index * 4);
        /* Token arrays hold token indices; string and asset arrays string
         * indices. */
        s = t == T_TOKEN ? usdc_token(c, i) : usdc_string(c, i);
        if (s == NULL) {
            char m[96];
            snprintf(m, sizeof m, "element %zu: index %u out of range", index, i);
            return value_fail(p, c, data + index * 4, d, m);
        }
    }
    size_t len = strlen(s);
    if (len >= cap) {
        return VALUE_FAIL(p, 0, d, "value of %zu bytes does not fit the caller's %zu", len, cap);
    }
    memcpy(buf, s, len + 1);
    return 0;
}

static const usd_value_hooks usdc_hooks = {usdc_count, usdc_read_num, usdc_read_token};

/* ---- building the layer --------------------------------------------------- */

typedef struct builder {
    usdc_crate *c;
    usd_layer *layer;
    uint32_t *spec_of_path; /* spec index per path, UINT32_MAX when none */
    uint32_t *first_child;  /* per path: the first child path, path order */
    uint32_t *next_sibling;
    uint32_t cur_spec; /* for messages */
    const char *cur_field;
    uint8_t *known_of_token; /* per token: 1 + its index in known_fields, or 0 */
    uint32_t *tok_child;     /* per token: a child path while ordering, else UINT32_MAX */
    uint8_t *taken;          /* per path: placed while ordering */
    uint32_t *scratch;       /* per path: one prim's children while ordering */
    uint32_t table_spec;     /* the spec whose fields are in table */
    uint64_t table[32];
    uint32_t table_has;     /* bit k: known field k present */
    uint64_t fields_walked; /* over all specs, bounded */
} builder;

/* The fields this reader uses; a spec's fields are looked up in one pass
 * over its field set, so a lookup costs O(1) and a spec O(its fields). */
static const char *const known_fields[] = {"typeName",         "variability",   "custom",      "interpolation",
                                           "elementSize",      "default",       "timeSamples", "connectionPaths",
                                           "targetPaths",      "specifier",     "active",      "instanceable",
                                           "hidden",           "kind",          "references",  "payload",
                                           "inherits",         "specializes",   "apiSchemas",  "variantSetNames",
                                           "variantSelection", "primChildren",  "properties",  "defaultPrim",
                                           "upAxis",           "metersPerUnit", "subLayers",   "layerRelocates"};
#define KNOWN_FIELDS (sizeof known_fields / sizeof known_fields[0])

/* "offset N: what (spec </path> / field F)" */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int
spec_fail_impl(const builder *b, uint64_t off, const char *fmt, ...);
static int spec_fail_impl(const builder *b, uint64_t off, const char *fmt, ...)
{
    char what[256], path[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    usdc_path_string(b->c, b->c->spec_path[b->cur_spec], path, sizeof path);
    if (b->cur_field != NULL) {
        return usdc_fail(b->c, off, "%s (spec <%s> / field %s)", what, path, b->cur_field);
    }
    return usdc_fail(b->c, off, "%s (spec <%s>)", what, path);
}
#define spec_fail(...) (spec_fail_impl(__VA_ARGS__), -1)

static int oom(const builder *b)
{
    return spec_fail(b, 0, "out of memory");
}

/* Reads spec s's known fields into b->table: one pass over its field set.
 * Field sets may be shared by many specs; the passes of all specs together
 * are bounded, so a file whose specs share one huge set is refused rather
 * than read in quadratic time. */
static int load_fields(builder *b, uint32_t s)
{
    const usdc_crate *c = b->c;
    b->table_spec = s;
    b->table_has = 0;
    uint64_t limit = 64 * (c->nfieldsets + c->nspecs) + (1u << 24);
    for (uint64_t k = c->spec_fset[s]; k < c->nfieldsets && c->fieldsets[k] != UINT32_MAX; k++) {
        if (++b->fields_walked > limit) {
            b->cur_spec = s;
            b->cur_field = NULL;
            return spec_fail(b, 0, "field sets shared beyond %llu field reads (section FIELDSETS)",
                             (unsigned long long)limit);
        }
        uint32_t f = c->fieldsets[k];
        unsigned id = b->known_of_token[c->field_tok[f]];
        if (id != 0 && !(b->table_has & (1u << (id - 1)))) {
            b->table[id - 1] = c->field_rep[f];
            b->table_has |= 1u << (id - 1);
        }
    }
    return 0;
}

/* The value of known field `name` of spec s, if the spec has it (its
 * fields are loaded by load_fields first). */
static int spec_field(const builder *b, uint32_t s, const char *name, uint64_t *rep)
{
    if (s != b->table_spec) {
        return 0;
    }
    for (unsigned k = 0; k < KNOWN_FIELDS; k++) {
        if (strcmp(known_fields[k], name) == 0) {
            if (b->table_has & (1u << k)) {
                *rep = b->table[k];
                return 1;
            }
            return 0;
        }
    }
    return 0;
}

/* A token-valued field (token, string or asset scalar) as a string. */
static int rep_text(const builder *b, uint64_t rep, const char **out)
{
    unsigned t = REP_TYPE(rep);
    if ((t != T_TOKEN && t != T_STRING && t != T_ASSET) || REP_ARRAY(rep) || !REP_INLINED(rep)) {
        return spec_fail(b, REP_INLINED(rep) ? 0 : REP_PAYLOAD(rep), "expected a token, found crate type %u", t);
    }
    uint32_t i = (uint32_t)REP_PAYLOAD(rep);
    *out = t == T_STRING ? usdc_string(b->c, i) : usdc_token(b->c, i);
    if (*out == NULL) {
        return spec_fail(b, 0, "%s index %u out of range", t == T_STRING ? "string" : "token", i);
    }
    return 0;
}

/* An inlined bool/enum/int field's low 32 bits. */
static int rep_small(const builder *b, uint64_t rep, unsigned want, uint32_t *out)
{
    if (REP_TYPE(rep) != want || REP_ARRAY(rep) || !REP_INLINED(rep)) {
        return spec_fail(b, REP_INLINED(rep) ? 0 : REP_PAYLOAD(rep), "expected crate type %u, found %u", want,
                         REP_TYPE(rep));
    }
    *out = (uint32_t)REP_PAYLOAD(rep);
    return 0;
}

static int rep_double(const builder *b, uint64_t rep, double *out)
{
    unsigned t = REP_TYPE(rep);
    if (REP_ARRAY(rep) || (t != T_DOUBLE && t != T_FLOAT && t != T_INT)) {
        return spec_fail(b, 0, "expected a double, found crate type %u", t);
    }
    num_type nt = numeric_type(t);
    if (REP_INLINED(rep)) {
        uint32_t bits = (uint32_t)REP_PAYLOAD(rep);
        uint8_t v[4] = {(uint8_t)bits, (uint8_t)(bits >> 8), (uint8_t)(bits >> 16), (uint8_t)(bits >> 24)};
        *out = component_f64(v, t == T_DOUBLE ? K_FLOAT : nt.kind);
        return 0;
    }
    if (!in_file(b->c, REP_PAYLOAD(rep), nt.bytes)) {
        return spec_fail(b, REP_PAYLOAD(rep), "truncated: value past the end of the file");
    }
    *out = component_f64(b->c->data + REP_PAYLOAD(rep), nt.kind);
    return 0;
}

/* A vector<index> (u64 count then u32 items) at off: where the items start
 * and how many. */
static int index_vector(const builder *b, uint64_t off, uint64_t *n, uint64_t *items, uint64_t *end)
{
    if (!in_file(b->c, off, 8)) {
        return spec_fail(b, off, "truncated: vector count past the end of the file");
    }
    *n = rd_u64(b->c->data + off);
    if (*n > (b->c->size - off - 8) / 4) {
        return spec_fail(b, off, "truncated: vector of %llu items past the end of the file", (unsigned long long)*n);
    }
    *items = off + 8;
    *end = off + 8 + *n * 4;
    return 0;
}

/* A count (u64) at off, then that many pairs of 4-byte indexes (a variant
 * selection map, relocates): *n, checked to fit in the file; the pairs
 * start at off + 8. what names them in the messages. */
static int pair_vector(const builder *b, uint64_t off, const char *what, uint64_t *n)
{
    if (!in_file(b->c, off, 8)) {
        return spec_fail(b, off, "truncated: %s count past the end of the file", what);
    }
    *n = rd_u64(b->c->data + off);
    if (*n > (b->c->size - off - 8) / 8) {
        return spec_fail(b, off, "truncated: %llu %s past the end of the file", (unsigned long long)*n, what);
    }
    return 0;
}

static int token_at(const builder *b, uint64_t off, const char **out)
{
    uint32_t i = rd_u32(b->c->data + off);
    *out = usdc_token(b->c, i);
    if (*out == NULL) {
        return spec_fail(b, off, "token index %u out of range (%llu tokens)", i, (unsigned long long)b->c->ntokens);
    }
    return 0;
}

static int string_at(const builder *b, uint64_t off, const char **out)
{
    uint32_t i = rd_u32(b->c->data + off);
    *out = usdc_string(b->c, i);
    if (*out == NULL) {
        return spec_fail(b, off, "string index %u out of range (%llu strings)", i, (unsigned long long)b->c->nstrings);
    }
    return 0;
}

static int path_at(const builder *b, uint64_t off, char *buf, size_t cap)
{
    uint32_t i = rd_u32(b->c->data + off);
    if (i >= b->c->npaths) {
        return spec_fail(b, off, "path index %u out of range (%llu paths)", i, (unsigned long long)b->c->npaths);
    }
    usdc_path_string(b->c, i, buf, cap);
    return 0;
}

/* Skips a dictionary at off (u64 count, then per entry a string key and a
 * value written behind a forward offset): no recursion, each value is
 * jumped over. */
static int skip_dictionary(const builder *b, uint64_t off, uint64_t *end)
{
    const usdc_crate *c = b->c;
    if (!in_file(c, off, 8)) {
        return spec_fail(b, off, "truncated: dictionary past the end of the file");
    }
    uint64_t n = rd_u64(c->data + off);
    uint64_t pos = off + 8;
    if (n > (c->size - pos) / 20) {
        return spec_fail(b, off, "dictionary of %llu entries past the end of the file", (unsigned long long)n);
    }
    for (uint64_t i = 0; i < n; i++) {
        if (!in_file(c, pos, 12)) {
            return spec_fail(b, pos, "truncated: dictionary entry %llu past the end of the file",
                             (unsigned long long)i);
        }
        uint64_t at = pos + 4;
        int64_t jump = (int64_t)rd_u64(c->data + at);
        if (jump < 8 || (uint64_t)jump > c->size - at || !in_file(c, at + (uint64_t)jump, 8)) {
            return spec_fail(b, at, "dictionary entry %llu: value offset %lld out of range", (unsigned long long)i,
                             (long long)jump);
        }
        pos = at + (uint64_t)jump + 8;
    }
    *end = pos;
    return 0;
}

/* One item of a list op of crate type T (OFF: the list op, for messages) at *POS, which moves past it: a path,
 * a token or string (into PATH), or a reference or payload (asset, path and, where the version writes one, layer
 * offset and scale; a reference's custom data skipped). 0, or -1 with a message. */
static int listop_item(const builder *b, unsigned t, uint64_t off, int payload_offset, uint64_t *pos,
                       char path[USD_MAX_PATH], const char **asset, double *lo, double *ls)
{
    const usdc_crate *c = b->c;
    const char *tok = NULL;
    switch (t) {
    case T_PATH_LISTOP:
        if (path_at(b, *pos, path, USD_MAX_PATH) != 0) {
            return -1;
        }
        *pos += 4;
        break;
    case T_TOKEN_LISTOP:
        if (token_at(b, *pos, &tok) != 0) {
            return -1;
        }
        *pos += 4;
        break;
    case T_STRING_LISTOP:
        if (string_at(b, *pos, &tok) != 0) {
            return -1;
        }
        *pos += 4;
        break;
    case T_REFERENCE_LISTOP:
    case T_PAYLOAD_LISTOP:
        if (string_at(b, *pos, asset) != 0 || path_at(b, *pos + 4, path, USD_MAX_PATH) != 0) {
            return -1;
        }
        *pos += 8;
        if (t == T_REFERENCE_LISTOP || payload_offset) {
            *lo = component_f64(c->data + *pos, K_DOUBLE);
            *ls = component_f64(c->data + *pos + 8, K_DOUBLE);
            *pos += 16;
        }
        if (t == T_REFERENCE_LISTOP && skip_dictionary(b, *pos, pos) != 0) {
            return -1;
        }
        break;
    default:
        return spec_fail(b, off, "list op of crate type %u is not readable here", t);
    }
    if (tok != NULL) {
        snprintf(path, USD_MAX_PATH, "%s", tok);
    }
    return 0;
}

/* A list op of field at rep into the model. kind: T_*_LISTOP, or
 * T_PAYLOAD (a single payload, the older form). */
static int read_listop(const builder *b, usd_prim *prim, usd_field field, uint64_t rep)
{
    const usdc_crate *c = b->c;
    unsigned t = REP_TYPE(rep);
    uint64_t off = REP_PAYLOAD(rep);
    char path[USD_MAX_PATH];
    if (REP_INLINED(rep) || REP_ARRAY(rep)) {
        return spec_fail(b, 0, "list op of crate type %u is inlined", t);
    }
    /* The payload of a Payload item carries a layer offset from 0.8.0. */
    int payload_offset = c->version >= USDC_VERSION(0, 8, 0);
    if (t == T_PAYLOAD) {
        const char *asset;
        if (!in_file(c, off, 8 + (payload_offset ? 16u : 0u))) {
            return spec_fail(b, off, "truncated: payload past the end of the file");
        }
        if (string_at(b, off, &asset) != 0 || path_at(b, off + 4, path, sizeof path) != 0) {
            return -1;
        }
        double lo = 0, ls = 1;
        if (payload_offset) {
            lo = component_f64(c->data + off + 8, K_DOUBLE);
            ls = component_f64(c->data + off + 16, K_DOUBLE);
        }
        usd_build_listop_explicit(prim, field);
        if (usd_build_listop_item(b->layer, prim, field, USD_LISTOP_EXPLICIT, asset, strlen(asset), path, strlen(path),
                                  lo, ls) != 0) {
            return oom(b);
        }
        return 0;
    }
    if (!in_file(c, off, 1)) {
        return spec_fail(b, off, "truncated: list op past the end of the file");
    }
    uint8_t h = c->data[off];
    uint64_t pos = off + 1;
    if (h & 1u) {
        usd_build_listop_explicit(prim, field);
    }
    /* Parts in the order the format writes them. */
    static const struct {
        uint8_t bit;
        usd_listop_part part;
    } parts[] = {{2, USD_LISTOP_EXPLICIT}, {4, USD_LISTOP_ADD},    {32, USD_LISTOP_PREPEND},
                 {64, USD_LISTOP_APPEND},  {8, USD_LISTOP_DELETE}, {16, USD_LISTOP_REORDER}};
    for (size_t k = 0; k < sizeof parts / sizeof parts[0]; k++) {
        if (!(h & parts[k].bit)) {
            continue;
        }
        if (!in_file(c, pos, 8)) {
            return spec_fail(b, pos, "truncated: list op items past the end of the file");
        }
        uint64_t n = rd_u64(c->data + pos);
        pos += 8;
        uint64_t min_item = t == T_REFERENCE_LISTOP ? 32u : t == T_PAYLOAD_LISTOP ? (payload_offset ? 24u : 8u) : 4u;
        if (n > (c->size - pos) / min_item) {
            return spec_fail(b, pos - 8, "list op of %llu items past the end of the file", (unsigned long long)n);
        }
        for (uint64_t i = 0; i < n; i++) {
            const char *asset = "";
            double lo = 0, ls = 1;
            path[0] = '\0';
            if (!in_file(c, pos, min_item)) {
                return spec_fail(b, pos, "truncated: list op item %llu past the end of the file",
                                 (unsigned long long)i);
            }
            if (listop_item(b, t, off, payload_offset, &pos, path, &asset, &lo, &ls) != 0) {
                return -1;
            }
            if (usd_build_listop_item(b->layer, prim, field, parts[k].part, asset, strlen(asset), path, strlen(path),
                                      lo, ls) != 0) {
                return oom(b);
            }
        }
    }
    return 0;
}

/* Connection or relationship targets of a PathListOp (explicit, prepended,
 * added and appended items together, in that order). */
static int read_targets(const builder *b, usd_prop *prop, uint64_t rep)
{
    const usdc_crate *c = b->c;
    if (REP_TYPE(rep) != T_PATH_LISTOP || REP_INLINED(rep) || REP_ARRAY(rep)) {
        return spec_fail(b, 0, "expected a path list op, found crate type %u", REP_TYPE(rep));
    }
    uint64_t off = REP_PAYLOAD(rep);
    if (!in_file(c, off, 1)) {
        return spec_fail(b, off, "truncated: list op past the end of the file");
    }
    uint8_t h = c->data[off];
    uint64_t pos = off + 1;
    static const uint8_t order[] = {2, 4, 32, 64, 8, 16};
    char path[USD_MAX_PATH];
    for (size_t k = 0; k < sizeof order; k++) {
        if (!(h & order[k])) {
            continue;
        }
        uint64_t n, items, end;
        if (index_vector(b, pos, &n, &items, &end) != 0) {
            return -1;
        }
        if (order[k] != 8 && order[k] != 16) {
            for (uint64_t i = 0; i < n; i++) {
                if (path_at(b, items + i * 4, path, sizeof path) != 0) {
                    return -1;
                }
                if (usd_build_target(b->layer, prop, path, strlen(path)) != 0) {
                    return oom(b);
                }
            }
        }
        pos = end;
    }
    return 0;
}

static int read_time_samples(const builder *b, usd_prop *prop, uint64_t rep)
{
    const usdc_crate *c = b->c;
    uint64_t off = REP_PAYLOAD(rep);
    if (REP_INLINED(rep) || !in_file(c, off, 8)) {
        return spec_fail(b, off, "truncated: time samples past the end of the file");
    }
    int64_t j1 = (int64_t)rd_u64(c->data + off);
    if (j1 < 8 || (uint64_t)j1 > c->size - off || !in_file(c, off + (uint64_t)j1, 16)) {
        return spec_fail(b, off, "time samples: times offset %lld out of range", (long long)j1);
    }
    uint64_t times_rep = rd_u64(c->data + off + (uint64_t)j1);
    uint64_t at = off + (uint64_t)j1 + 8;
    int64_t j2 = (int64_t)rd_u64(c->data + at);
    if (j2 < 8 || (uint64_t)j2 > c->size - at || !in_file(c, at + (uint64_t)j2, 8)) {
        return spec_fail(b, at, "time samples: values offset %lld out of range", (long long)j2);
    }
    uint64_t vat = at + (uint64_t)j2;
    uint64_t nvals = rd_u64(c->data + vat);
    vat += 8;
    if (nvals > (c->size - vat) / 8) {
        return spec_fail(b, vat - 8, "time samples: %llu values past the end of the file", (unsigned long long)nvals);
    }
    /* The times: a DoubleVector (or a double array), uncompressed. */
    uint64_t tn, tdata;
    unsigned tt = REP_TYPE(times_rep);
    uint64_t toff = REP_PAYLOAD(times_rep);
    if (tt == T_DOUBLE_VECTOR && !REP_INLINED(times_rep)) {
        if (!in_file(c, toff, 8)) {
            return spec_fail(b, toff, "truncated: sample times past the end of the file");
        }
        tn = rd_u64(c->data + toff);
        tdata = toff + 8;
    } else if (tt == T_DOUBLE && REP_ARRAY(times_rep) && !REP_COMPRESSED(times_rep)) {
        if (toff == 0) {
            tn = 0;
            tdata = 0;
        } else {
            uint64_t hdr = c->version < USDC_VERSION(0, 7, 0) ? 4u : 8u;
            if (c->version < USDC_VERSION(0, 5, 0)) {
                toff += 4;
            }
            if (!in_file(c, toff, hdr)) {
                return spec_fail(b, toff, "truncated: sample times past the end of the file");
            }
            tn = hdr == 4 ? rd_u32(c->data + toff) : rd_u64(c->data + toff);
            tdata = toff + hdr;
        }
    } else {
        return spec_fail(b, off, "time samples: times of crate type %u", tt);
    }
    if (tn > (c->size - (tdata < c->size ? tdata : c->size)) / 8) {
        return spec_fail(b, tdata, "time samples: %llu times past the end of the file", (unsigned long long)tn);
    }
    if (tn != nvals) {
        return spec_fail(b, off, "time samples: %llu times but %llu values", (unsigned long long)tn,
                         (unsigned long long)nvals);
    }
    for (uint64_t i = 0; i < tn; i++) {
        usd_value_ref v;
        memset(&v, 0, sizeof v);
        v.a = rd_u64(c->data + vat + i * 8);
        v.b = (uint64_t)(uintptr_t)c;
        v.c = (uint32_t)(vat + i * 8 > UINT32_MAX ? UINT32_MAX : vat + i * 8);
        if (REP_TYPE(v.a) == T_VALUE_BLOCK) {
            v.flags = USD_VALUE_NONE;
        }
        if (usd_build_sample(b->layer, prop, component_f64(c->data + tdata + i * 8, K_DOUBLE), &v) != 0) {
            return oom(b);
        }
    }
    return 0;
}

static int build_prop(builder *b, usd_prim *prim, uint32_t path)
{
    const usdc_crate *c = b->c;
    uint32_t s = b->spec_of_path[path];
    if (s == UINT32_MAX) {
        return 0; /* a path with no spec (a target path's parent) */
    }
    uint32_t kind = c->spec_type[s];
    if (kind != USDC_SPEC_ATTRIBUTE && kind != USDC_SPEC_RELATIONSHIP) {
        return 0;
    }
    if (load_fields(b, s) != 0) {
        return -1;
    }
    b->cur_spec = s;
    b->cur_field = "typeName";
    const char *name = usdc_token(c, c->path_elem[path]);
    const char *type = "";
    uint64_t rep;
    if (kind == USDC_SPEC_ATTRIBUTE && spec_field(b, s, "typeName", &rep) && rep_text(b, rep, &type) != 0) {
        return -1;
    }
    usd_prop *p = usd_build_prop(b->layer, prim, name, strlen(name),
                                 kind == USDC_SPEC_ATTRIBUTE ? USD_PROP_ATTRIBUTE : USD_PROP_RELATIONSHIP, type,
                                 strlen(type));
    if (p == NULL) {
        return oom(b);
    }
    uint32_t u;
    b->cur_field = "variability";
    if (spec_field(b, s, "variability", &rep)) {
        if (rep_small(b, rep, T_VARIABILITY, &u) != 0) {
            return -1;
        }
        p->uniform = u == 1;
    }
    b->cur_field = "custom";
    if (spec_field(b, s, "custom", &rep)) {
        if (rep_small(b, rep, T_BOOL, &u) != 0) {
            return -1;
        }
        p->custom = u != 0;
    }
    b->cur_field = "interpolation";
    const char *interp;
    if (spec_field(b, s, "interpolation", &rep)) {
        if (rep_text(b, rep, &interp) != 0) {
            return -1;
        }
        p->interpolation = usd_layer_intern(b->layer, interp, strlen(interp));
        if (p->interpolation == NULL) {
            return oom(b);
        }
    }
    b->cur_field = "elementSize";
    if (spec_field(b, s, "elementSize", &rep)) {
        if (rep_small(b, rep, T_INT, &u) != 0) {
            return -1;
        }
        p->element_size = u;
    }
    b->cur_field = "default";
    if (spec_field(b, s, "default", &rep)) {
        usd_value_ref v;
        memset(&v, 0, sizeof v);
        v.a = rep;
        v.b = (uint64_t)(uintptr_t)c;
        if (REP_TYPE(rep) == T_VALUE_BLOCK) {
            v.flags = USD_VALUE_NONE;
        }
        usd_build_default(p, &v);
    }
    b->cur_field = "timeSamples";
    if (spec_field(b, s, "timeSamples", &rep) && read_time_samples(b, p, rep) != 0) {
        return -1;
    }
    b->cur_field = kind == USDC_SPEC_ATTRIBUTE ? "connectionPaths" : "targetPaths";
    if (spec_field(b, s, b->cur_field, &rep) && read_targets(b, p, rep) != 0) {
        return -1;
    }
    b->cur_field = NULL;
    return 0;
}

static int build_prim_body(builder *b, usd_prim *prim, uint32_t path, unsigned depth);

/* Parses a variant selection element "{set=variant}". */
static int split_variant(const char *e, const char **set, size_t *set_len, const char **var, size_t *var_len)
{
    size_t n = strlen(e);
    const char *eq = strchr(e, '=');
    if (n < 3 || e[0] != '{' || e[n - 1] != '}' || eq == NULL) {
        return -1;
    }
    *set = e + 1;
    *set_len = (size_t)(eq - e - 1);
    *var = eq + 1;
    *var_len = (size_t)(e + n - 1 - eq - 1);
    return 0;
}

static int build_child(builder *b, usd_prim *prim, uint32_t child, unsigned depth)
{
    const usdc_crate *c = b->c;
    uint32_t s = b->spec_of_path[child];
    const char *e = usdc_token(c, c->path_elem[child]);
    if (c->path_prop[child] || s == UINT32_MAX) {
        return 0;
    }
    b->cur_spec = s;
    b->cur_field = NULL;
    uint32_t kind = c->spec_type[s];
    if (e[0] == '{') {
        const char *set, *var;
        size_t sl, vl;
        if (split_variant(e, &set, &sl, &var, &vl) != 0) {
            return spec_fail(b, 0, "malformed variant element '%s'", e);
        }
        if (kind == USDC_SPEC_VARIANT_SET || vl == 0) {
            return usd_build_variant_set(b->layer, prim, set, sl) != 0 ? oom(b) : 0;
        }
        usd_prim *v = usd_build_variant(b->layer, prim, set, sl, var, vl);
        if (v == NULL) {
            return oom(b);
        }
        return build_prim_body(b, v, child, depth + 1);
    }
    if (kind != USDC_SPEC_PRIM) {
        return 0;
    }
    if (load_fields(b, s) != 0) {
        return -1;
    }
    uint64_t rep;
    uint32_t u = 0;
    b->cur_field = "specifier";
    if (spec_field(b, s, "specifier", &rep) && rep_small(b, rep, T_SPECIFIER, &u) != 0) {
        return -1;
    }
    if (u > 2) {
        return spec_fail(b, 0, "unknown specifier %u", u);
    }
    const char *type = "";
    b->cur_field = "typeName";
    if (spec_field(b, s, "typeName", &rep) && rep_text(b, rep, &type) != 0) {
        return -1;
    }
    b->cur_field = NULL;
    usd_prim *child_prim = usd_build_prim(b->layer, prim, e, strlen(e), (usd_specifier)u, type, strlen(type));
    if (child_prim == NULL) {
        return oom(b);
    }
    return build_prim_body(b, child_prim, child, depth + 1);
}

/* The variant selections of the prim spec S ("variantSelection": a map of set name to variant name). 0, or -1
 * with a message. */
static int prim_variant_selection(builder *b, usd_prim *prim, uint32_t s)
{
    uint64_t rep;
    b->cur_field = "variantSelection";
    if (!spec_field(b, s, "variantSelection", &rep)) {
        return 0;
    }
    if (REP_TYPE(rep) != T_VARIANT_SELECTION_MAP || REP_INLINED(rep)) {
        return spec_fail(b, 0, "expected a variant selection map, found crate type %u", REP_TYPE(rep));
    }
    uint64_t off = REP_PAYLOAD(rep), n;
    if (pair_vector(b, off, "variant selections", &n) != 0) {
        return -1;
    }
    for (uint64_t i = 0; i < n; i++) {
        const char *set, *var;
        if (string_at(b, off + 8 + i * 8, &set) != 0 || string_at(b, off + 12 + i * 8, &var) != 0) {
            return -1;
        }
        if (usd_build_selection(b->layer, prim, set, strlen(set), var, strlen(var)) != 0) {
            return oom(b);
        }
    }
    return 0;
}

/* The prim spec S's own fields into PRIM: active, instanceable, hidden, kind, its list ops and its variant
 * selections. 0, or -1 with a message. */
static int build_prim_fields(builder *b, usd_prim *prim, uint32_t s)
{
    uint64_t rep;
    uint32_t u;
    if (load_fields(b, s) != 0) {
        return -1;
    }
    b->cur_spec = s;
    static const struct {
        const char *name;
        size_t off;
    } tri[] = {{"active", offsetof(usd_prim, active)},
               {"instanceable", offsetof(usd_prim, instanceable)},
               {"hidden", offsetof(usd_prim, hidden)}};
    for (size_t k = 0; k < sizeof tri / sizeof tri[0]; k++) {
        b->cur_field = tri[k].name;
        if (spec_field(b, s, tri[k].name, &rep)) {
            if (rep_small(b, rep, T_BOOL, &u) != 0) {
                return -1;
            }
            *((int8_t *)(void *)((char *)prim + tri[k].off)) = (int8_t)(u != 0);
        }
    }
    b->cur_field = "kind";
    const char *kind;
    if (spec_field(b, s, "kind", &rep)) {
        if (rep_text(b, rep, &kind) != 0) {
            return -1;
        }
        prim->kind = usd_layer_intern(b->layer, kind, strlen(kind));
        if (prim->kind == NULL) {
            return oom(b);
        }
    }
    static const struct {
        const char *name;
        usd_field field;
        unsigned type;
    } lists[] = {{"references", USD_FIELD_REFERENCES, T_REFERENCE_LISTOP},
                 {"payload", USD_FIELD_PAYLOAD, T_PAYLOAD_LISTOP},
                 {"inherits", USD_FIELD_INHERITS, T_PATH_LISTOP},
                 {"specializes", USD_FIELD_SPECIALIZES, T_PATH_LISTOP},
                 {"apiSchemas", USD_FIELD_API_SCHEMAS, T_TOKEN_LISTOP},
                 {"variantSetNames", USD_FIELD_VARIANT_SET_NAMES, T_STRING_LISTOP}};
    for (size_t k = 0; k < sizeof lists / sizeof lists[0]; k++) {
        b->cur_field = lists[k].name;
        if (!spec_field(b, s, lists[k].name, &rep)) {
            continue;
        }
        unsigned t = REP_TYPE(rep);
        if (t != lists[k].type && !(lists[k].type == T_PAYLOAD_LISTOP && t == T_PAYLOAD)) {
            return spec_fail(b, 0, "expected crate type %u, found %u", lists[k].type, t);
        }
        if (read_listop(b, prim, lists[k].field, rep) != 0) {
            return -1;
        }
    }
    if (prim_variant_selection(b, prim, s) != 0) {
        return -1;
    }
    b->cur_field = NULL;
    return 0;
}

/* Reorders the children of PATH (spec S) in place by one order field (PASS 0: "primChildren" for prims, 1:
 * "properties"): the named ones first in that order, then the others as they were; O(children + names)
 * through a per-token index. 0, or -1 with a message. */
static int order_children(builder *b, uint32_t path, uint32_t s, uint8_t pass)
{
    static const char *const order_fields[2] = {"primChildren", "properties"};
    const usdc_crate *c = b->c;
    uint64_t rep;
    if (s == UINT32_MAX || !spec_field(b, s, order_fields[pass], &rep)) {
        return 0;
    }
    b->cur_spec = s;
    b->cur_field = order_fields[pass];
    if (REP_TYPE(rep) != T_TOKEN_VECTOR || REP_INLINED(rep) || REP_ARRAY(rep)) {
        return spec_fail(b, 0, "expected a token vector, found crate type %u", REP_TYPE(rep));
    }
    uint64_t n, items, end;
    if (index_vector(b, REP_PAYLOAD(rep), &n, &items, &end) != 0) {
        return -1;
    }
    /* The old order, into the scratch list (free again before any
     * child is built, so one list serves every level). */
    uint32_t m = 0;
    for (uint32_t ch = b->first_child[path]; ch != UINT32_MAX; ch = b->next_sibling[ch]) {
        b->scratch[m++] = ch;
        if (c->path_prop[ch] == pass && b->tok_child[c->path_elem[ch]] == UINT32_MAX) {
            b->tok_child[c->path_elem[ch]] = ch;
        }
    }
    uint32_t head = UINT32_MAX, tail = UINT32_MAX;
    for (uint64_t i = 0; i < n + m; i++) {
        /* the named children in order, then the others as they were */
        uint32_t ch;
        if (i < n) {
            uint32_t t = rd_u32(c->data + items + i * 4);
            ch = t < c->ntokens ? b->tok_child[t] : UINT32_MAX;
            if (ch == UINT32_MAX || b->taken[ch]) {
                continue;
            }
        } else {
            ch = b->scratch[i - n];
            if (b->taken[ch]) {
                continue;
            }
        }
        b->taken[ch] = 1;
        if (tail == UINT32_MAX) {
            head = ch;
        } else {
            b->next_sibling[tail] = ch;
        }
        tail = ch;
    }
    if (tail != UINT32_MAX) {
        b->next_sibling[tail] = UINT32_MAX;
    }
    b->first_child[path] = head;
    for (uint32_t k = 0; k < m; k++) {
        b->tok_child[c->path_elem[b->scratch[k]]] = UINT32_MAX;
        b->taken[b->scratch[k]] = 0;
    }
    b->cur_field = NULL;
    return 0;
}

static int build_prim_body(builder *b, usd_prim *prim, uint32_t path, unsigned depth)
{
    const usdc_crate *c = b->c;
    uint32_t s = b->spec_of_path[path];
    if (depth > USD_MAX_DEPTH) {
        b->cur_spec = s;
        return spec_fail(b, 0, "nesting too deep (more than %u levels)", USD_MAX_DEPTH);
    }
    if (s != UINT32_MAX && build_prim_fields(b, prim, s) != 0) {
        return -1;
    }
    /* Children: prims in "primChildren" order and properties in
     * "properties" order, then whatever else the path tree holds (in path
     * order), so nothing the file has is dropped. The child list is
     * reordered in place before any child is built, in O(children + names)
     * through a per-token index. */
    for (uint8_t pass = 0; pass < 2; pass++) {
        if (order_children(b, path, s, pass) != 0) {
            return -1;
        }
    }
    for (uint32_t ch = b->first_child[path]; ch != UINT32_MAX; ch = b->next_sibling[ch]) {
        int rc = c->path_prop[ch] ? build_prop(b, prim, ch) : build_child(b, prim, ch, depth);
        if (rc != 0) {
            return -1;
        }
    }
    return 0;
}

static int build_layer_info(builder *b)
{
    const usdc_crate *c = b->c;
    uint32_t s = b->spec_of_path[c->root_path];
    if (s == UINT32_MAX) {
        return 0;
    }
    if (load_fields(b, s) != 0) {
        return -1;
    }
    b->cur_spec = s;
    uint64_t rep;
    const char *t;
    b->cur_field = "defaultPrim";
    if (spec_field(b, s, "defaultPrim", &rep)) {
        if (rep_text(b, rep, &t) != 0) {
            return -1;
        }
        if (usd_build_default_prim(b->layer, t, strlen(t)) != 0) {
            return oom(b);
        }
    }
    b->cur_field = "upAxis";
    if (spec_field(b, s, "upAxis", &rep)) {
        if (rep_text(b, rep, &t) != 0) {
            return -1;
        }
        if (usd_build_up_axis(b->layer, t, strlen(t)) != 0) {
            return oom(b);
        }
    }
    b->cur_field = "metersPerUnit";
    if (spec_field(b, s, "metersPerUnit", &rep)) {
        double mpu = 0;
        if (rep_double(b, rep, &mpu) != 0) {
            return -1;
        }
        usd_build_meters_per_unit(b->layer, mpu);
    }
    b->cur_field = "subLayers";
    if (spec_field(b, s, "subLayers", &rep)) {
        if (REP_TYPE(rep) != T_STRING_VECTOR || REP_INLINED(rep)) {
            return spec_fail(b, 0, "expected a string vector, found crate type %u", REP_TYPE(rep));
        }
        uint64_t n, items, end;
        if (index_vector(b, REP_PAYLOAD(rep), &n, &items, &end) != 0) {
            return -1;
        }
        for (uint64_t i = 0; i < n; i++) {
            if (string_at(b, items + i * 4, &t) != 0) {
                return -1;
            }
            if (usd_build_sublayer(b->layer, t, strlen(t)) != 0) {
                return oom(b);
            }
        }
    }
    b->cur_field = "layerRelocates";
    if (spec_field(b, s, "layerRelocates", &rep)) {
        if (REP_TYPE(rep) != T_RELOCATES || REP_INLINED(rep) || REP_ARRAY(rep)) {
            return spec_fail(b, 0, "expected relocates, found crate type %u", REP_TYPE(rep));
        }
        uint64_t off = REP_PAYLOAD(rep), n;
        if (pair_vector(b, off, "relocates", &n) != 0) {
            return -1;
        }
        for (uint64_t i = 0; i < n; i++) {
            char src[USD_MAX_PATH], dst[USD_MAX_PATH];
            if (path_at(b, off + 8 + i * 8, src, sizeof src) != 0 ||
                path_at(b, off + 12 + i * 8, dst, sizeof dst) != 0) {
                return -1;
            }
            if (usd_build_relocate(b->layer, src, strlen(src), dst, strlen(dst)) != 0) {
                return oom(b);
            }
        }
    }
    b->cur_field = NULL;
    return 0;
}

/* The builder's indexes over the crate: per token, its known-field number; per path, its spec (one at most),
 * first child and next sibling, children in path order (LAST_CHILD: scratch, a slot per path). 0, or -1 with a
 * message. */
static int index_crate(builder *b, uint32_t *last_child)
{
    const usdc_crate *c = b->c;
    for (uint64_t i = 0; i < c->ntokens; i++) {
        b->tok_child[i] = UINT32_MAX;
        for (unsigned k = 0; k < KNOWN_FIELDS; k++) {
            if (strcmp(usdc_token(c, (uint32_t)i), known_fields[k]) == 0) {
                b->known_of_token[i] = (uint8_t)(k + 1);
                break;
            }
        }
    }
    for (uint64_t i = 0; i < c->npaths; i++) {
        b->spec_of_path[i] = UINT32_MAX;
        b->first_child[i] = UINT32_MAX;
        b->next_sibling[i] = UINT32_MAX;
        last_child[i] = UINT32_MAX;
    }
    for (uint64_t i = 0; i < c->nspecs; i++) {
        uint32_t p = c->spec_path[i];
        if (b->spec_of_path[p] != UINT32_MAX) {
            b->cur_spec = (uint32_t)i;
            return spec_fail(b, 0, "a second spec for the same path");
        }
        b->spec_of_path[p] = (uint32_t)i;
    }
    for (uint64_t i = 0; i < c->npaths; i++) {
        uint32_t q = c->path_parent[i];
        if (q == USDC_NO_PATH || c->path_elem[i] == USDC_NO_PATH) {
            continue;
        }
        if (last_child[q] == UINT32_MAX) {
            b->first_child[q] = (uint32_t)i;
        } else {
            b->next_sibling[last_child[q]] = (uint32_t)i;
        }
        last_child[q] = (uint32_t)i;
    }
    return 0;
}

int usd_usdc_parse(usd_layer *layer, pk_diag *d)
{
    size_t size;
    const uint8_t *data = usd_layer_data(layer, &size);
    const char *name = usd_layer_get_info(layer)->name;
    usdc_crate *c = usd_layer_alloc(layer, sizeof *c);
    if (c == NULL) {
        snprintf(d->message, sizeof d->message, "%s: out of memory", name);
        return -1;
    }
    if (usdc_crate_open(c, name, data, size, d) != 0) {
        return -1;
    }
    builder b;
    memset(&b, 0, sizeof b);
    b.c = c;
    b.layer = layer;
    int rc = -1;
    /* The hooks outlive this call: keep tokens and strings in the arena. */
    char *chars = usd_layer_alloc(layer, c->token_bytes ? (size_t)c->token_bytes : 1);
    uint32_t *toff = usd_layer_alloc(layer, (c->ntokens ? (size_t)c->ntokens : 1) * 4);
    uint32_t *strs = usd_layer_alloc(layer, (c->nstrings ? (size_t)c->nstrings : 1) * 4);
    size_t np = c->npaths ? (size_t)c->npaths : 1;
    b.spec_of_path = malloc(np * 4);
    b.first_child = malloc(np * 4);
    b.next_sibling = malloc(np * 4);
    uint32_t *last_child = malloc(np * 4);
    b.taken = calloc(np, 1);
    b.scratch = malloc(np * 4);
    b.tok_child = malloc((c->ntokens ? (size_t)c->ntokens : 1) * 4);
    b.known_of_token = calloc(c->ntokens ? (size_t)c->ntokens : 1, 1);
    b.table_spec = UINT32_MAX;
    if (chars == NULL || toff == NULL || strs == NULL || b.spec_of_path == NULL || b.first_child == NULL ||
        b.next_sibling == NULL || last_child == NULL || b.taken == NULL || b.scratch == NULL || b.tok_child == NULL ||
        b.known_of_token == NULL) {
        (void)usdc_fail(c, 0, "out of memory");
        goto done;
    }
    memcpy(chars, c->token_chars, (size_t)c->token_bytes);
    if (c->ntokens) {
        memcpy(toff, c->token_off, (size_t)c->ntokens * 4);
    }
    if (c->nstrings) {
        memcpy(strs, c->strings, (size_t)c->nstrings * 4);
    }
    free(c->token_chars);
    free(c->token_off);
    free(c->strings);
    c->token_chars = chars;
    c->token_off = toff;
    c->strings = strs;
    c->layer = layer;
    if (index_crate(&b, last_child) != 0) {
        goto done;
    }
    if (c->npaths == 0 || c->root_path == USDC_NO_PATH) {
        rc = usd_layer_finish(layer, d);
        goto done;
    }
    if (build_layer_info(&b) != 0 || build_prim_body(&b, usd_build_root(layer), c->root_path, 0) != 0) {
        goto done;
    }
    usd_layer_set_hooks(layer, &usdc_hooks);
    rc = usd_layer_finish(layer, d);
done:
    free(b.spec_of_path);
    free(b.first_child);
    free(b.next_sibling);
    free(last_child);
    free(b.taken);
    free(b.scratch);
    free(b.tok_child);
    free(b.known_of_token);
    /* Only the arena's tokens and strings stay. */
    free(c->sections);
    free(c->field_tok);
    free(c->field_rep);
    free(c->fieldsets);
    free(c->path_parent);
    free(c->path_elem);
    free(c->path_prop);
    free(c->spec_path);
    free(c->spec_fset);
    free(c->spec_type);
    c->sections = NULL;
    c->field_tok = NULL;
    c->field_rep = NULL;
    c->fieldsets = NULL;
    c->path_parent = NULL;
    c->path_elem = NULL;
    c->path_prop = NULL;
    c->spec_path = NULL;
    c->spec_fset = NULL;
    c->spec_type = NULL;
    if (c->layer == NULL) {
        free(c->token_chars);
        free(c->token_off);
        free(c->strings);
        c->token_chars = NULL;
        c->token_off = NULL;
        c->strings = NULL;
    }
    return rc;
}
