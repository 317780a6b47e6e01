/* SPDX-License-Identifier: MIT */
/* sluice: the budget profile parser (see sluice/profile.h, budgets/README.md). */
#include "sluice/profile.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "internal.h"
#include "sluice/pack.h"

#define KIB ((uint64_t)1 << 10)
#define MIB ((uint64_t)1 << 20)
#define GIB ((uint64_t)1 << 30)
#define TIB ((uint64_t)1 << 40)

typedef enum value_kind { KIND_SIZE, KIND_COUNT, KIND_NAME, KIND_POLICY, KIND_TEXEL } value_kind;

typedef struct key_def {
    const char *section;
    const char *key;
    value_kind kind;
    size_t offset; /* into slc_profile */
    size_t width;  /* bytes of the field: 4 or 8 (KIND_NAME: SLC_NAME_MAX; KIND_POLICY, KIND_TEXEL: 4) */
    uint64_t min;
    uint64_t max;
    int required;
    int pow2;
    uint64_t fallback; /* value when not required and absent */
} key_def;

#define FIELD(f) offsetof(slc_profile, f), sizeof(((slc_profile *)0)->f)

static const key_def keys[] = {
    {"profile", "name", KIND_NAME, FIELD(name), 0, 0, 0, 0, 0},
    {"pool", "page_size", KIND_SIZE, FIELD(page_size), SLC_PAGE_SIZE_MIN, SLC_PAGE_SIZE_MAX, 1, 1, 0},
    {"pool", "page_count", KIND_COUNT, FIELD(page_count), 1, SLC_PAGE_COUNT_MAX, 1, 0, 0},
    {"pool", "eviction", KIND_POLICY, FIELD(eviction), 0, 0, 0, 0, SLC_EVICTION_PREDICT},
    {"stream", "frames_in_flight", KIND_COUNT, FIELD(frames_in_flight), 1, SLC_FRAMES_IN_FLIGHT_MAX, 1, 0, 0},
    {"stream", "workers", KIND_COUNT, FIELD(workers), 0, SLC_PROFILE_WORKERS_MAX, 1, 0, 0},
    {"stream", "queue_capacity", KIND_COUNT, FIELD(queue_capacity), 1, SLC_PROFILE_QUEUE_CAPACITY_MAX, 1, 0, 0},
    {"stream", "staging_size", KIND_SIZE, FIELD(staging_size), 0, SLC_PROFILE_SIZE_MAX, 1, 0, 0},
    {"stream", "upload_per_frame", KIND_SIZE, FIELD(upload_cap), 1, SLC_PROFILE_SIZE_MAX, 1, 0, 0},
    {"stream", "pin_coarsest", KIND_COUNT, FIELD(pin_coarsest), 0, SLC_LODS_MAX, 0, 0, 0},
    {"tables", "max_objects", KIND_COUNT, FIELD(max_objects), 1, SLC_TABLE_COUNT_MAX, 1, 0, 0},
    {"tables", "max_chunks", KIND_COUNT, FIELD(max_chunks), 1, SLC_TABLE_COUNT_MAX, 1, 0, 0},
    {"tables", "max_lods", KIND_COUNT, FIELD(max_lods), 1, SLC_LODS_MAX, 1, 0, 0},
    {"tables", "max_string_bytes", KIND_SIZE, FIELD(max_string_bytes), 1, SLC_PROFILE_STRING_BYTES_MAX, 1, 0, 0},
    {"report", "max_phases", KIND_COUNT, FIELD(max_phases), SLC_PROFILE_PHASES_MIN, SLC_PROFILE_PHASES_MAX, 0, 0,
     SLC_PROFILE_PHASES_DEFAULT},
    {"textures", "format", KIND_TEXEL, FIELD(texture_format), 0, 0, 0, 0, SLC_PACK_TEXEL_RGBA8},
    {"textures", "page_count", KIND_COUNT, FIELD(texture_page_count), 0, SLC_PAGE_COUNT_MAX, 0, 0, 0},
    {"textures", "eviction", KIND_POLICY, FIELD(texture_eviction), 0, 0, 0, 0, SLC_EVICTION_LRU},
    {"textures", "pin_tiles", KIND_COUNT, FIELD(texture_pin_tiles), 0, 1, 0, 0, 0},
    {"textures", "staging_size", KIND_SIZE, FIELD(texture_staging_size), 0, SLC_PROFILE_SIZE_MAX, 0, 0, 0},
};
#define KEY_COUNT (sizeof keys / sizeof keys[0])

/* The runtime's sections; a parse's caller may pass more
 * (slc_profile_section), numbered after these. */
static const char *const sections[] = {"profile", "budgets", "pool",     "partitions",        "stream",
                                       "tables",  "report",  "textures", "texture_partitions"};
#define SECTION_COUNT (sizeof sections / sizeof sections[0])
#define SECTION_BUDGETS 1u
#define SECTION_PARTITIONS 3u
#define SECTION_TEXTURE_PARTITIONS 8u

/* The values of [pool] eviction, indexed by slc_eviction_policy. */

/* Budgets every profile must declare: the runtime charges them by name.
 * Those under gpu form a group: a profile that declares no budget under gpu
 * is host-only and needs none of them; one that declares any needs all. */
static const char *const required_budgets[] = {"cpu/meta",   "cpu/decode", "cpu/queues",
                                               "cpu/driver", "gpu/pool",   "gpu/staging"};
#define REQUIRED_BUDGET_COUNT (sizeof required_budgets / sizeof required_budgets[0])

/* Whether a budget name lies under the gpu root (the root included). */
static int under_gpu(const char *name)
{
    return strncmp(name, "gpu", 3) == 0 && (name[3] == '\0' || name[3] == '/');
}

typedef struct parsed_budget {
    char name[SLC_NAME_MAX];
    uint64_t limit;
    uint32_t line;
    uint32_t depth;
    int parent; /* index into the parser's array, -1 for a root */
} parsed_budget;

typedef struct parser {
    const char *file;
    slc_profile_diag *diag;
    slc_profile *out;
    uint32_t line;
    uint32_t last_line;
    const slc_profile_section *ext; /* the caller's sections */
    size_t ext_count;
    int section; /* index into sections, then into ext after SECTION_COUNT; -1 before the first */
    uint32_t section_line[SECTION_COUNT + SLC_PROFILE_SECTIONS_MAX];
    uint32_t key_line[KEY_COUNT];
    parsed_budget budgets[SLC_PROFILE_BUDGET_MAX];
    uint32_t budget_count;
    uint32_t partition_line[SLC_PARTITION_MAX]; /* partitions themselves go straight into out */
    uint32_t texture_partition_line[SLC_PARTITION_MAX];
} parser;

/* A view of part of the text: not NUL-terminated. */
typedef struct span {
    const char *p;
    size_t n;
} span;

static int span_eq(span s, const char *z)
{
    size_t n = strlen(z);
    return s.n == n && memcmp(s.p, z, n) == 0;
}

/* Copies a span into a NUL-terminated buffer for messages, eliding the tail
 * of a long one. */
static const char *span_z(span s, char *buf, size_t cap)
{
    size_t n = s.n < cap - 1 ? s.n : cap - 1;
    memcpy(buf, s.p, n);
    buf[n] = '\0';
    if (s.n > n && cap > 4) {
        memcpy(buf + cap - 4, "...", 4);
    }
    return buf;
}

static span trim(span s)
{
    while (s.n > 0 && (s.p[0] == ' ' || s.p[0] == '\t')) {
        s.p++;
        s.n--;
    }
    while (s.n > 0 && (s.p[s.n - 1] == ' ' || s.p[s.n - 1] == '\t')) {
        s.n--;
    }
    return s;
}

/* Records the diagnostic "file:line: " + what, and returns status. */
static slc_status parse_fail(parser *ps, slc_status status, uint32_t line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static slc_status parse_fail(parser *ps, slc_status status, uint32_t line, const char *fmt, ...)
{
    if (ps->diag != NULL) {
        ps->diag->line = line;
        size_t n = slc__fmt(ps->diag->message, sizeof ps->diag->message, "%s:%u: ", ps->file, line);
        va_list ap;
        va_start(ap, fmt);
        slc__vfmt(ps->diag->message + n, sizeof ps->diag->message - n, fmt, ap);
        va_end(ap);
    }
    return status;
}

/* Fails with a refusal written by a helper or a section's handler. */
static slc_status parse_refused(parser *ps, slc_status status, uint32_t line, const char *why)
{
    return parse_fail(ps, status, line, "%s", why);
}

static const char *section_name(const parser *ps, size_t i)
{
    return i < SECTION_COUNT ? sections[i] : ps->ext[i - SECTION_COUNT].name;
}

/* "64 MiB" when the size is a whole number of a binary unit, else "N B". */
static const char *size_z(uint64_t v, char *buf, size_t cap)
{
    static const char *const units[] = {"TiB", "GiB", "MiB", "KiB"};
    static const uint64_t scale[] = {TIB, GIB, MIB, KIB};
    for (size_t i = 0; i < 4; i++) {
        if (v != 0 && v % scale[i] == 0) {
            slc__fmt(buf, cap, "%llu %s", (unsigned long long)(v / scale[i]), units[i]);
            return buf;
        }
    }
    slc__fmt(buf, cap, "%llu B", (unsigned long long)v);
    return buf;
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Parses a decimal integer with an optional binary unit (sizes) or none
 * (counts). Returns 0 and *out, or -1 (not a number or unit) or -2 (too large). */
static int parse_number(span v, int allow_unit, uint64_t *out)
{
    size_t i = 0;
    uint64_t x = 0;
    if (v.n == 0 || !is_digit(v.p[0])) {
        return -1;
    }
    for (; i < v.n && is_digit(v.p[i]); i++) {
        if (x > (UINT64_MAX - 9) / 10) {
            return -2;
        }
        x = x * 10 + (uint64_t)(v.p[i] - '0');
    }
    span unit = trim((span){v.p + i, v.n - i});
    if (unit.n == 0) {
        *out = x;
        return 0;
    }
    if (!allow_unit) {
        return -1;
    }
    static const char *const names[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    for (size_t u = 0; u < 5; u++) {
        if (span_eq(unit, names[u])) {
            unsigned shift = 10u * (unsigned)u;
            if (shift > 0 && x > (UINT64_MAX >> shift)) {
                return -2;
            }
            *out = x << shift;
            return 0;
        }
    }
    return -1;
}

/* Parses a decimal of digits, optionally a '.' and 1 to frac_max more
 * digits, into thousandths (frac_max <= 3). Returns 0 and *out, or -1 (not
 * such a decimal), -2 (too large) or -3 (more than frac_max digits after
 * the point). */
#define MILLI_WHOLE_MAX UINT64_C(1000000000000000) /* 10^15: far above any range, and x1000 fits */
static int parse_milli(span v, size_t frac_max, uint64_t *out)
{
    size_t i = 0;
    uint64_t x = 0;
    if (v.n == 0 || !is_digit(v.p[0])) {
        return -1;
    }
    for (; i < v.n && is_digit(v.p[i]); i++) {
        if (x > MILLI_WHOLE_MAX) {
            return -2;
        }
        x = x * 10 + (uint64_t)(v.p[i] - '0');
    }
    x *= 1000u; /* at most (10 * MILLI_WHOLE_MAX + 9) * 1000 + 999, below 2^64 */
    if (i == v.n) {
        *out = x;
        return 0;
    }
    if (v.p[i] != '.' || i + 1 == v.n) {
        return -1;
    }
    size_t digits = 0;
    uint64_t scale = 100;
    for (i++; i < v.n; i++, digits++) {
        if (!is_digit(v.p[i])) {
            return -1;
        }
        x += (uint64_t)(v.p[i] - '0') * scale; /* scale reaches 0 past the third digit */
        scale /= 10;
    }
    if (digits > frac_max) {
        return -3;
    }
    *out = x;
    return 0;
}

/* Thousandths as a decimal: 30500 is "30.5", 200000 "200", 1 "0.001". */
static const char *milli_z(uint64_t v, char *buf, size_t cap)
{
    size_t n = slc__fmt(buf, cap, "%llu", (unsigned long long)(v / 1000u));
    unsigned frac = (unsigned)(v % 1000u);
    if (frac != 0) {
        char digits[4] = {(char)('0' + frac / 100u), (char)('0' + frac / 10u % 10u), (char)('0' + frac % 10u), '\0'};
        size_t last = 2;
        while (last > 0 && digits[last] == '0') {
            digits[last--] = '\0';
        }
        slc__fmt(buf + n, cap - n, ".%s", digits);
    }
    return buf;
}

static int name_char(char c)
{
    return (c >= 'a' && c <= 'z') || is_digit(c) || c == '_';
}

static slc_status parse_budget(parser *ps, span key, span value)
{
    char kb[64], vb[64], sb[32];
    span_z(key, kb, sizeof kb);
    if (key.n >= SLC_NAME_MAX) {
        return parse_fail(ps, SLC_E_PROFILE_VALUE, ps->line, "[budgets] %s: name is longer than %u bytes", kb,
                          SLC_NAME_MAX - 1);
    }
    uint32_t depth = 0;
    for (size_t i = 0; i < key.n; i++) {
        char c = key.p[i];
        int seg_start = i == 0 || key.p[i - 1] == '/';
        if (c == '/') {
            if (seg_start || i + 1 == key.n) {
                return parse_fail(ps, SLC_E_PROFILE_VALUE, ps->line, "[budgets] %s: empty path segment", kb);
            }
            depth++;
        } else if (!name_char(c)) {
            return parse_fail(ps, SLC_E_PROFILE_VALUE, ps->line,
                              "[budgets] %s: budget names use only a-z, 0-9, '_' and '/'", kb);
        }
    }
    if (depth > SLC_BUDGET_DEPTH_MAX) {
        return parse_fail(ps, SLC_E_PROFILE_RANGE, ps->line, "[budgets] %s: %u levels below its root; at most %u", kb,
                          depth, SLC_BUDGET_DEPTH_MAX);
    }
    span root = key;
    for (size_t i = 0; i < key.n; i++) {
        if (key.p[i] == '/') {
            root.n = i;
            break;
        }
    }
    if (!span_eq(root, "cpu") && !span_eq(root, "gpu")) {
        return parse_fail(ps, SLC_E_PROFILE_TREE, ps->line,
                          "[budgets] %s: unknown root; every budget lives under cpu or gpu", kb);
    }
    for (uint32_t i = 0; i < ps->budget_count; i++) {
        if (span_eq(key, ps->budgets[i].name)) {
            return parse_fail(ps, SLC_E_PROFILE_DUPLICATE, ps->line, "[budgets] %s: duplicate key (first on line %u)",
                              kb, ps->budgets[i].line);
        }
    }
    if (ps->budget_count == SLC_PROFILE_BUDGET_MAX) {
        return parse_fail(ps, SLC_E_PROFILE_RANGE, ps->line, "[budgets] %s: more than %u budgets", kb,
                          SLC_PROFILE_BUDGET_MAX);
    }
    uint64_t limit = 0;
    int r = parse_number(value, 1, &limit);
    if (r == -1) {
        return parse_fail(ps, SLC_E_PROFILE_VALUE, ps->line,
                          "[budgets] %s: '%s' is not a size (an integer with B, KiB, MiB, GiB or TiB)", kb,
                          span_z(value, vb, sizeof vb));
    }
    if (r == -2 || limit > SLC_PROFILE_SIZE_MAX) {
        return parse_fail(ps, SLC_E_PROFILE_RANGE, ps->line, "[budgets] %s: '%s' is out of range (0 to %s)", kb,
                          span_z(value, vb, sizeof vb), size_z(SLC_PROFILE_SIZE_MAX, sb, sizeof sb));
    }
    parsed_budget *b = &ps->budgets[ps->budget_count++];
    memcpy(b->name, key.p, key.n);
    b->limit = limit;
    b->line = ps->line;
    b->depth = depth;
    return SLC_OK;
}

/* A [partitions] or [texture_partitions] line: `name = pages`. Names
 * follow the budget rules but have one segment (no '/'); "default" is the
 * implied partition of the pages no line claims. */
static slc_status parse_partition(parser *ps, span key, span value, int textures)
{
    const char *sec = textures ? "texture_partitions" : "partitions";
    slc_profile *p = ps->out;
    uint32_t *count = textures ? &p->texture_partition_count : &p->partition_count;
    slc_profile_partition *parts = textures ? p->texture_partitions : p->partitions;
    uint32_t *lines = textures ? ps->texture_partition_line : ps->partition_line;
    char kb[64], vb[64];
    span_z(key, kb, sizeof kb);
    if (key.n >= SLC_NAME_MAX) {
        return parse_fail(ps, SLC_E_PROFILE_VALUE, ps->line, "[%s] %s: name is longer than %u bytes", sec, kb,
                          SLC_NAME_MAX - 1);
    }
    for (size_t i = 0; i < key.n; i++) {
        if (!name_char(key.p[i])) {
            return parse_fail(ps, SLC_E_PROFILE_VALUE, ps->line, "[%s] %s: partition names use only a-z, 0-9 and '_'",
                              sec, kb);
        }
    }
    if (span_eq(key, SLC_PROFILE_PARTITION_DEFAULT_NAME)) {
        return parse_fail(ps, SLC_E_PROFILE_VALUE, ps->line,
                          "[%s] default: the name is reserved for the pages no partition claims", sec);
    }
    for (uint32_t i = 0; i < *count; i++) {
        if (span_eq(key, parts[i].name)) {
            return parse_fail(ps, SLC_E_PROFILE_DUPLICATE, ps->line, "[%s] %s: duplicate key (first on line %u)", sec,
                              kb, lines[i]);
        }
    }
    if (*count == SLC_PARTITION_MAX) {
        return parse_fail(ps, SLC_E_PROFILE_RANGE, ps->line, "[%s] %s: more than %u partitions", sec, kb,
                          SLC_PARTITION_MAX);
    }
    uint64_t pages = 0;
    int r = parse_number(value, 0, &pages);
    if (r == -1) {
        return parse_fail(ps, SLC_E_PROFILE_VALUE, ps->line, "[%s] %s: '%s' is not a count (a plain decimal integer)",
                          sec, kb, span_z(value, vb, sizeof vb));
    }
    if (r == -2 || pages < 1 || pages > SLC_PAGE_COUNT_MAX) {
        return parse_fail(ps, SLC_E_PROFILE_RANGE, ps->line, "[%s] %s: '%s' is out of range (1 to %u)", sec, kb,
                          span_z(value, vb, sizeof vb), SLC_PAGE_COUNT_MAX);
    }
    slc_profile_partition *pp = &parts[*count];
    memcpy(pp->name, key.p, key.n);
    pp->page_count = (uint32_t)pages;
    lines[(*count)++] = ps->line;
    return SLC_OK;
}

/* Writes a number into its field, at the field's width (x fits: the ranges
 * of the 32-bit fields are below 2^32). */
static void store(slc_profile *p, const key_def *d, uint64_t x)
{
    unsigned char *field = (unsigned char *)p + d->offset;
    if (d->width == sizeof(uint64_t)) {
        memcpy(field, &x, sizeof x);
    } else {
        uint32_t v32 = (uint32_t)x;
        memcpy(field, &v32, sizeof v32);
    }
}

/* The refusal of a key the section does not know (first_line 0) or already
 * read on first_line. */
static slc_status refuse_key(const char *section, const char *kb, uint32_t first_line, char *why, size_t cap)
{
    if (first_line != 0) {
        slc__fmt(why, cap, "[%s] %s: duplicate key (first on line %u)", section, kb, first_line);
        return SLC_E_PROFILE_DUPLICATE;
    }
    slc__fmt(why, cap, "[%s] %s: unknown key", section, kb);
    return SLC_E_PROFILE_UNKNOWN;
}

/* A size (sizes != 0) or a count in min..max, a power of two when pow2. */
static slc_status read_number(const char *section, const char *kb, span value, int sizes, uint64_t min, uint64_t max,
                              int pow2, uint64_t *out, char *why, size_t cap)
{
    char vb[64], lo[32], hi[32];
    uint64_t x = 0;
    int r = parse_number(value, sizes, &x);
    span_z(value, vb, sizeof vb);
    if (r == -1) {
        slc__fmt(why, cap,
                 sizes ? "[%s] %s: '%s' is not a size (an integer with B, KiB, MiB, GiB or TiB)"
                       : "[%s] %s: '%s' is not a count (a plain decimal integer)",
                 section, kb, vb);
        return SLC_E_PROFILE_VALUE;
    }
    if (r == -2 || x < min || x > max) {
        if (sizes) {
            slc__fmt(why, cap, "[%s] %s: '%s' is out of range (%s to %s)", section, kb, vb, size_z(min, lo, sizeof lo),
                     size_z(max, hi, sizeof hi));
        } else {
            slc__fmt(why, cap, "[%s] %s: '%s' is out of range (%llu to %llu)", section, kb, vb, (unsigned long long)min,
                     (unsigned long long)max);
        }
        return SLC_E_PROFILE_RANGE;
    }
    if (pow2 && !slc__is_pow2(x)) {
        slc__fmt(why, cap, "[%s] %s: '%s' is not a power of two", section, kb, vb);
        return SLC_E_PROFILE_RANGE;
    }
    *out = x;
    return SLC_OK;
}

/* A decimal of at most digits fractional digits, in thousandths, in
 * min..max. */
static slc_status read_milli(const char *section, const char *kb, span value, uint32_t digits, uint64_t min,
                             uint64_t max, uint64_t *out, char *why, size_t cap)
{
    char vb[64], lo[32], hi[32];
    uint64_t x = 0;
    int r = parse_milli(value, digits, &x);
    span_z(value, vb, sizeof vb);
    if (r == -1) {
        slc__fmt(why, cap, "[%s] %s: '%s' is not a decimal (digits, optionally a '.' and up to %u more)", section, kb,
                 vb, digits);
        return SLC_E_PROFILE_VALUE;
    }
    if (r == -3) {
        slc__fmt(why, cap, "[%s] %s: '%s' has more than %u digits after the point", section, kb, vb, digits);
        return SLC_E_PROFILE_VALUE;
    }
    if (r == -2 || x < min || x > max) {
        slc__fmt(why, cap, "[%s] %s: '%s' is out of range (%s to %s)", section, kb, vb, milli_z(min, lo, sizeof lo),
                 milli_z(max, hi, sizeof hi));
        return SLC_E_PROFILE_RANGE;
    }
    *out = x;
    return SLC_OK;
}

static slc_status parse_key(parser *ps, span key, span value)
{
    char kb[64], vb[64], why[256];
    const char *section = sections[ps->section];
    span_z(key, kb, sizeof kb);
    size_t k = 0;
    while (k < KEY_COUNT && !(strcmp(keys[k].section, section) == 0 && span_eq(key, keys[k].key))) {
        k++;
    }
    if (k == KEY_COUNT || ps->key_line[k] != 0) {
        slc_status s = refuse_key(section, kb, k == KEY_COUNT ? 0 : ps->key_line[k], why, sizeof why);
        return parse_refused(ps, s, ps->line, why);
    }
    const key_def *d = &keys[k];
    unsigned char *field = (unsigned char *)ps->out + d->offset;
    if (d->kind == KIND_NAME) {
        if (value.n >= SLC_NAME_MAX) {
            return parse_fail(ps, SLC_E_PROFILE_VALUE, ps->line, "[%s] %s: name is longer than %u bytes", section, kb,
                              SLC_NAME_MAX - 1);
        }
        for (size_t i = 0; i < value.n; i++) {
            char c = value.p[i];
            if (!name_char(c) && c != '-' && !(c >= 'A' && c <= 'Z')) {
                return parse_fail(ps, SLC_E_PROFILE_VALUE, ps->line,
                                  "[%s] %s: '%s' is not a name (letters, digits, '_' and '-')", section, kb,
                                  span_z(value, vb, sizeof vb));
            }
        }
        memcpy(field, value.p, value.n);
        ps->key_line[k] = ps->line;
        return SLC_OK;
    }
    if (d->kind == KIND_POLICY || d->kind == KIND_TEXEL) {
        /* A value named by a table: names v = first, first + 1, ... up to
         * the first NULL. */
        const char *(*name)(uint32_t) = d->kind == KIND_POLICY ? slc__evict_policy_name : slc_pack_texel_format_name;
        const uint32_t first = d->kind == KIND_POLICY ? 0u : 1u;
        uint32_t v = first;
        while (name(v) != NULL && !span_eq(value, name(v))) {
            v++;
        }
        if (name(v) == NULL) {
            char names[80];
            size_t n = 0;
            for (uint32_t i = first; name(i) != NULL; i++) {
                const char *sep = i == first ? "" : name(i + 1) == NULL ? " or " : ", ";
                n += slc__fmt(names + n, sizeof names - n, "%s%s", sep, name(i));
            }
            return parse_fail(ps, SLC_E_PROFILE_VALUE, ps->line, "[%s] %s: '%s' is not a %s (%s)", section, kb,
                              span_z(value, vb, sizeof vb), d->kind == KIND_POLICY ? "policy" : "texel format", names);
        }
        store(ps->out, d, v);
        ps->key_line[k] = ps->line;
        return SLC_OK;
    }
    uint64_t x = 0;
    slc_status s = read_number(section, kb, value, d->kind == KIND_SIZE, d->min, d->max, d->pow2, &x, why, sizeof why);
    if (s != SLC_OK) {
        return parse_refused(ps, s, ps->line, why);
    }
    store(ps->out, d, x);
    ps->key_line[k] = ps->line;
    return SLC_OK;
}

/* A line of a section the caller owns: its handler takes it or refuses. */
static slc_status parse_ext_line(parser *ps, span key, span value)
{
    const slc_profile_section *e = &ps->ext[(size_t)ps->section - SECTION_COUNT];
    char kz[SLC_PROFILE_LINE_MAX + 1], vz[SLC_PROFILE_LINE_MAX + 1], why[256];
    memcpy(kz, key.p, key.n); /* both within the line's SLC_PROFILE_LINE_MAX bytes */
    kz[key.n] = '\0';
    memcpy(vz, value.p, value.n);
    vz[value.n] = '\0';
    why[0] = '\0';
    slc_status s = e->line(e->ctx, kz, vz, ps->line, why, sizeof why);
    if (s == SLC_OK) {
        return SLC_OK;
    }
    if (why[0] == '\0') {
        char kb[64];
        slc__fmt(why, sizeof why, "[%s] %s: refused", e->name, span_z(key, kb, sizeof kb));
    }
    return parse_refused(ps, s, ps->line, why);
}

static slc_status parse_line(parser *ps, span line)
{
    char buf[64];
    if (line.n > SLC_PROFILE_LINE_MAX) {
        return parse_fail(ps, SLC_E_PROFILE_SYNTAX, ps->line, "line is %zu bytes long; at most %u allowed", line.n,
                          SLC_PROFILE_LINE_MAX);
    }
    size_t comment = line.n;
    for (size_t i = 0; i < line.n; i++) {
        unsigned char c = (unsigned char)line.p[i];
        if ((c < 0x20 && c != '\t') || c == 0x7f) {
            return parse_fail(ps, SLC_E_PROFILE_BINARY, ps->line, "byte 0x%llx at column %zu is not text",
                              (unsigned long long)c, i + 1);
        }
        if (c == '#' && comment == line.n) {
            comment = i;
        }
        if (c >= 0x80 && comment == line.n) {
            /* Only comments may hold UTF-8; names and values are ASCII. */
            return parse_fail(ps, SLC_E_PROFILE_BINARY, ps->line, "byte 0x%llx at column %zu is not ASCII text",
                              (unsigned long long)c, i + 1);
        }
    }
    span s = trim((span){line.p, comment});
    if (s.n == 0) {
        return SLC_OK;
    }
    if (s.p[0] == '[') {
        if (s.p[s.n - 1] != ']') {
            int closed = memchr(s.p, ']', s.n) != NULL;
            return parse_fail(ps, SLC_E_PROFILE_SYNTAX, ps->line,
                              closed ? "section header '%s' has text after its closing ']'"
                                     : "section header '%s' lacks its closing ']'",
                              span_z(s, buf, sizeof buf));
        }
        span name = trim((span){s.p + 1, s.n - 2});
        for (size_t i = 0; i < SECTION_COUNT + ps->ext_count; i++) {
            if (span_eq(name, section_name(ps, i))) {
                if (ps->section_line[i] != 0) {
                    return parse_fail(ps, SLC_E_PROFILE_DUPLICATE, ps->line,
                                      "[%s]: duplicate section (first on line %u)", section_name(ps, i),
                                      ps->section_line[i]);
                }
                ps->section = (int)i;
                ps->section_line[i] = ps->line;
                return SLC_OK;
            }
        }
        char known[192];
        size_t n = 0;
        for (size_t i = 0; i < SECTION_COUNT + ps->ext_count; i++) {
            n += slc__fmt(known + n, sizeof known - n, "%s%s", i == 0 ? "" : ", ", section_name(ps, i));
        }
        return parse_fail(ps, SLC_E_PROFILE_UNKNOWN, ps->line, "[%s]: unknown section (known: %s)",
                          span_z(name, buf, sizeof buf), known);
    }
    size_t eq = 0;
    while (eq < s.n && s.p[eq] != '=') {
        eq++;
    }
    if (eq == s.n) {
        return parse_fail(ps, SLC_E_PROFILE_SYNTAX, ps->line, "'%s' is not 'key = value', a [section] or a # comment",
                          span_z(s, buf, sizeof buf));
    }
    span key = trim((span){s.p, eq});
    span value = trim((span){s.p + eq + 1, s.n - eq - 1});
    if (key.n == 0) {
        return parse_fail(ps, SLC_E_PROFILE_SYNTAX, ps->line, "'%s' has no key before '='", span_z(s, buf, sizeof buf));
    }
    if (ps->section < 0) {
        return parse_fail(ps, SLC_E_PROFILE_SYNTAX, ps->line, "%s: key outside any [section]",
                          span_z(key, buf, sizeof buf));
    }
    if (value.n == 0) {
        return parse_fail(ps, SLC_E_PROFILE_VALUE, ps->line, "[%s] %s: value is empty",
                          section_name(ps, (size_t)ps->section), span_z(key, buf, sizeof buf));
    }
    if ((unsigned)ps->section >= SECTION_COUNT) {
        return parse_ext_line(ps, key, value);
    }
    if ((unsigned)ps->section == SECTION_BUDGETS) {
        return parse_budget(ps, key, value);
    }
    if ((unsigned)ps->section == SECTION_PARTITIONS || (unsigned)ps->section == SECTION_TEXTURE_PARTITIONS) {
        return parse_partition(ps, key, value, (unsigned)ps->section == SECTION_TEXTURE_PARTITIONS);
    }
    return parse_key(ps, key, value);
}

static size_t key_index(const char *section, const char *key)
{
    size_t k = 0;
    while (strcmp(keys[k].section, section) != 0 || strcmp(keys[k].key, key) != 0) {
        k++; /* only called with names from the table above */
    }
    return k;
}

static int find_budget(const parser *ps, const char *name, size_t len)
{
    for (uint32_t i = 0; i < ps->budget_count; i++) {
        if (slc__strnlen(ps->budgets[i].name, SLC_NAME_MAX) == len && memcmp(ps->budgets[i].name, name, len) == 0) {
            return (int)i;
        }
    }
    return -1;
}

/* The required keys and budgets a profile lacks, reported together: the
 * first as "[section] key: required key is missing" at its line, the
 * others after it ("; also missing: [section] key, ..."), as many as the
 * message holds, then how many more. */
#define MISSING_NAMED_MAX 48u
typedef struct missing_list {
    uint32_t count, line;
    const char *section[MISSING_NAMED_MAX], *name[MISSING_NAMED_MAX], *what;
} missing_list;

static void missing_add(missing_list *m, uint32_t line, const char *section, const char *name, const char *what)
{
    if (m->count == 0) {
        m->line = line;
        m->what = what;
    }
    if (m->count < MISSING_NAMED_MAX) {
        m->section[m->count] = section;
        m->name[m->count] = name;
    }
    m->count++;
}

static slc_status missing_fail(parser *ps, const missing_list *m)
{
    if (ps->diag == NULL) {
        return SLC_E_PROFILE_MISSING;
    }
    char *msg = ps->diag->message;
    const size_t cap = sizeof ps->diag->message;
    (void)parse_fail(ps, SLC_E_PROFILE_MISSING, m->line, "[%s] %s: required %s is missing", m->section[0], m->name[0],
                     m->what);
    size_t n = slc__strnlen(msg, cap);
    const uint32_t named = m->count < MISSING_NAMED_MAX ? m->count : MISSING_NAMED_MAX;
    uint32_t i = 1;
    for (; i < named; i++) {
        char item[2 * SLC_NAME_MAX + 24];
        size_t len = slc__fmt(item, sizeof item, "%s[%s] %s", i == 1 ? "; also missing: " : ", ", m->section[i],
                              m->name[i]);
        /* room for this item and for ", and 99 more" after it */
        if (n + len + 16 >= cap) {
            break;
        }
        memcpy(msg + n, item, len + 1);
        n += len;
    }
    if (i < m->count) {
        (void)slc__fmt(msg + n, cap - n, "%sand %u more", i == 1 ? "; " : ", ", m->count - i);
    }
    return SLC_E_PROFILE_MISSING;
}

/* Everything that needs the whole file: required keys, the tree, the
 * cross-checks between sections. */
static slc_status check_whole(parser *ps)
{
    char a[32], b[32], c[32];
    slc_profile *p = ps->out;
    missing_list miss = {0};
    for (size_t k = 0; k < KEY_COUNT; k++) {
        if (ps->key_line[k] != 0) {
            continue;
        }
        if (keys[k].required) {
            size_t s = 0;
            while (strcmp(sections[s], keys[k].section) != 0) {
                s++;
            }
            uint32_t at = ps->section_line[s] != 0 ? ps->section_line[s] : ps->last_line;
            missing_add(&miss, at, keys[k].section, keys[k].key, "key");
            continue;
        }
        if (keys[k].kind != KIND_NAME) {
            store(p, &keys[k], keys[k].fallback);
        }
    }
    if (p->name[0] == '\0') {
        memcpy(p->name, "unnamed", 8);
    }
    uint32_t budgets_at = ps->section_line[SECTION_BUDGETS] != 0 ? ps->section_line[SECTION_BUDGETS] : ps->last_line;
    int host_only = 1;
    for (uint32_t i = 0; i < ps->budget_count; i++) {
        host_only = host_only && !under_gpu(ps->budgets[i].name);
    }
    for (size_t r = 0; r < REQUIRED_BUDGET_COUNT; r++) {
        if (host_only && under_gpu(required_budgets[r])) {
            continue; /* a host-only profile: the gpu group is absent as a whole */
        }
        if (find_budget(ps, required_budgets[r], strlen(required_budgets[r])) < 0) {
            missing_add(&miss, budgets_at, "budgets", required_budgets[r], "budget");
        }
    }
    if (miss.count > 0) {
        return missing_fail(ps, &miss);
    }
    for (uint32_t i = 0; i < ps->budget_count; i++) {
        parsed_budget *pb = &ps->budgets[i];
        size_t len = slc__strnlen(pb->name, SLC_NAME_MAX);
        pb->parent = -1;
        while (len > 0 && pb->name[len - 1] != '/') {
            len--;
        }
        if (len > 0) {
            pb->parent = find_budget(ps, pb->name, len - 1);
            if (pb->parent < 0) {
                char parent[SLC_NAME_MAX];
                memcpy(parent, pb->name, len - 1);
                parent[len - 1] = '\0';
                return parse_fail(ps, SLC_E_PROFILE_TREE, pb->line, "[budgets] %s: parent budget '%s' is not declared",
                                  pb->name, parent);
            }
        }
    }
    for (uint32_t i = 0; i < ps->budget_count; i++) {
        uint64_t sum = 0;
        for (uint32_t j = 0; j < ps->budget_count; j++) {
            if (ps->budgets[j].parent == (int)i) {
                sum += ps->budgets[j].limit; /* at most 32 limits of at most 2^40 each */
            }
        }
        if (sum > ps->budgets[i].limit) {
            return parse_fail(ps, SLC_E_PROFILE_TREE, ps->budgets[i].line,
                              "[budgets] %s: children sum to %s, above its limit %s", ps->budgets[i].name,
                              size_z(sum, a, sizeof a), size_z(ps->budgets[i].limit, b, sizeof b));
        }
    }
    /* A host-only profile's pool is bounded by [pool] alone: its pages live in
     * host memory that no budget charges, and nothing stages them. */
    uint64_t pool = host_only ? UINT64_MAX : ps->budgets[find_budget(ps, "gpu/pool", 8)].limit;
    uint64_t need = (uint64_t)p->page_size * p->page_count; /* at most 2^26 * 2^24 */
    if (need > pool) {
        return parse_fail(ps, SLC_E_PROFILE_RANGE, ps->key_line[key_index("pool", "page_count")],
                          "[pool] page_count: %u pages of %s need %s, above budget gpu/pool %s", p->page_count,
                          size_z(p->page_size, a, sizeof a), size_z(need, b, sizeof b), size_z(pool, c, sizeof c));
    }
    /* The texture pool, as the page pool: its own budget, gpu/textures. */
    if (p->texture_page_count != 0) {
        int tb = host_only ? -1 : find_budget(ps, "gpu/textures", 12);
        uint32_t line = ps->key_line[key_index("textures", "page_count")];
        if (!host_only && tb < 0) {
            return parse_fail(
                ps, SLC_E_PROFILE_MISSING, line,
                "[textures] page_count: %u pages, but [budgets] declares no gpu/textures to charge them to",
                p->texture_page_count);
        }
        uint64_t tex = host_only ? UINT64_MAX : ps->budgets[tb].limit;
        uint64_t tneed = (uint64_t)p->page_size * p->texture_page_count;
        if (tneed > tex) {
            return parse_fail(ps, SLC_E_PROFILE_RANGE, line,
                              "[textures] page_count: %u pages of %s need %s, above budget gpu/textures %s",
                              p->texture_page_count, size_z(p->page_size, a, sizeof a), size_z(tneed, b, sizeof b),
                              size_z(tex, c, sizeof c));
        }
    }
    if (host_only && p->staging_size != 0) {
        return parse_fail(ps, SLC_E_PROFILE_RANGE, ps->key_line[key_index("stream", "staging_size")],
                          "[stream] staging_size: %s, but a host-only profile (no gpu budget) has no staging belt; "
                          "set 0",
                          size_z(p->staging_size, a, sizeof a));
    }
    uint64_t staging = host_only ? 0 : ps->budgets[find_budget(ps, "gpu/staging", 11)].limit;
    if (p->staging_size > staging) {
        return parse_fail(ps, SLC_E_PROFILE_RANGE, ps->key_line[key_index("stream", "staging_size")],
                          "[stream] staging_size: %s is above budget gpu/staging %s",
                          size_z(p->staging_size, a, sizeof a), size_z(staging, b, sizeof b));
    }
    if (p->staging_size != 0 && p->staging_size < p->page_size) {
        return parse_fail(ps, SLC_E_PROFILE_RANGE, ps->key_line[key_index("stream", "staging_size")],
                          "[stream] staging_size: %s is below page_size %s, so no page could ever be staged",
                          size_z(p->staging_size, a, sizeof a), size_z(p->page_size, b, sizeof b));
    }
    if (p->upload_cap < p->page_size) {
        return parse_fail(ps, SLC_E_PROFILE_RANGE, ps->key_line[key_index("stream", "upload_per_frame")],
                          "[stream] upload_per_frame: %s is below page_size %s, so no page could ever be uploaded",
                          size_z(p->upload_cap, a, sizeof a), size_z(p->page_size, b, sizeof b));
    }
    uint64_t claimed = 0; /* at most 15 counts of at most 2^24 each */
    for (uint32_t i = 0; i < p->partition_count; i++) {
        claimed += p->partitions[i].page_count;
        if (claimed > p->page_count) {
            return parse_fail(ps, SLC_E_PROFILE_RANGE, ps->partition_line[i],
                              "[partitions] %s: partitions up to here claim %llu pages, above [pool] page_count %u",
                              p->partitions[i].name, (unsigned long long)claimed, p->page_count);
        }
    }
    if (p->texture_staging_size != 0) {
        const uint32_t line = ps->key_line[key_index("textures", "staging_size")];
        if (p->texture_page_count == 0) {
            return parse_fail(ps, SLC_E_PROFILE_RANGE, line,
                              "[textures] staging_size: %s, but there is no texture pool to stage tiles for "
                              "([textures] page_count is 0)",
                              size_z(p->texture_staging_size, a, sizeof a));
        }
        if (host_only) {
            return parse_fail(ps, SLC_E_PROFILE_RANGE, line,
                              "[textures] staging_size: %s, but a host-only profile (no gpu budget) has no staging "
                              "belt; set 0",
                              size_z(p->texture_staging_size, a, sizeof a));
        }
        if (p->texture_staging_size < p->page_size) {
            return parse_fail(ps, SLC_E_PROFILE_RANGE, line,
                              "[textures] staging_size: %s is below page_size %s, so no tile could ever be staged",
                              size_z(p->texture_staging_size, a, sizeof a), size_z(p->page_size, b, sizeof b));
        }
        if (p->texture_staging_size > staging || p->staging_size > staging - p->texture_staging_size) {
            return parse_fail(ps, SLC_E_PROFILE_RANGE, line,
                              "[textures] staging_size: %s with [stream] staging_size %s is above budget "
                              "gpu/staging %s",
                              size_z(p->texture_staging_size, a, sizeof a), size_z(p->staging_size, b, sizeof b),
                              size_z(staging, c, sizeof c));
        }
    }
    if (p->texture_pin_tiles != 0 && p->texture_page_count == 0) {
        return parse_fail(ps, SLC_E_PROFILE_RANGE, ps->key_line[key_index("textures", "pin_tiles")],
                          "[textures] pin_tiles: 1, but there is no texture pool to pin them in ([textures] "
                          "page_count is 0)");
    }
    /* The texture pool's partitions: within its pages, leaving the default
     * partition at least a page (the mip tails are pinned there). */
    claimed = 0;
    for (uint32_t i = 0; i < p->texture_partition_count; i++) {
        claimed += p->texture_partitions[i].page_count;
        if (p->texture_page_count == 0) {
            return parse_fail(ps, SLC_E_PROFILE_RANGE, ps->texture_partition_line[i],
                              "[texture_partitions] %s: there is no texture pool to divide ([textures] page_count "
                              "is 0)",
                              p->texture_partitions[i].name);
        }
        if (claimed >= p->texture_page_count) {
            return parse_fail(ps, SLC_E_PROFILE_RANGE, ps->texture_partition_line[i],
                              "[texture_partitions] %s: partitions up to here claim %llu pages, leaving none of "
                              "[textures] page_count %u to the default partition, which holds the mip tails",
                              p->texture_partitions[i].name, (unsigned long long)claimed, p->texture_page_count);
        }
    }
    /* Order by depth, then by position in the file, so parents come first. */
    uint32_t n = 0;
    int index_of[SLC_PROFILE_BUDGET_MAX];
    for (uint32_t depth = 0; depth <= SLC_BUDGET_DEPTH_MAX; depth++) {
        for (uint32_t i = 0; i < ps->budget_count; i++) {
            if (ps->budgets[i].depth != depth) {
                continue;
            }
            slc_profile_budget *ob = &p->budgets[n];
            memcpy(ob->name, ps->budgets[i].name, SLC_NAME_MAX);
            ob->limit = ps->budgets[i].limit;
            int parent = ps->budgets[i].parent;
            ob->parent = parent < 0 ? SLC_BUDGET_NONE_INDEX : (uint16_t)index_of[parent];
            index_of[i] = (int)n++;
        }
    }
    p->budget_count = n;
    return SLC_OK;
}

/* The end handlers of the caller's sections, in the order passed. */
static slc_status end_sections(parser *ps)
{
    for (size_t i = 0; i < ps->ext_count; i++) {
        const slc_profile_section *e = &ps->ext[i];
        if (e->end == NULL) {
            continue;
        }
        uint32_t at = ps->section_line[SECTION_COUNT + i];
        char why[256];
        why[0] = '\0';
        slc_status s = e->end(e->ctx, at, why, sizeof why);
        if (s != SLC_OK) {
            if (why[0] == '\0') {
                slc__fmt(why, sizeof why, "[%s]: refused", e->name);
            }
            return parse_refused(ps, s, at != 0 ? at : ps->last_line, why);
        }
    }
    return SLC_OK;
}

slc_status slc_profile_parse(const char *text, size_t len, const char *file_name, slc_profile *out,
                             slc_profile_diag *diag)
{
    return slc_profile_parse_sections(text, len, file_name, NULL, 0, out, diag);
}

slc_status slc_profile_parse_sections(const char *text, size_t len, const char *file_name,
                                      const slc_profile_section *sections_in, size_t count, slc_profile *out,
                                      slc_profile_diag *diag)
{
    SLC_ASSERT(out != NULL);
    SLC_ASSERT(text != NULL || len == 0);
    SLC_ASSERT(count <= SLC_PROFILE_SECTIONS_MAX && (sections_in != NULL || count == 0));
    for (size_t i = 0; i < count; i++) {
        SLC_ASSERT(sections_in[i].name != NULL && sections_in[i].line != NULL);
        for (size_t j = 0; j < SECTION_COUNT + i; j++) {
            SLC_ASSERT(strcmp(sections_in[i].name,
                              j < SECTION_COUNT ? sections[j] : sections_in[j - SECTION_COUNT].name) != 0);
        }
    }
    parser ps;
    memset(&ps, 0, sizeof ps);
    memset(out, 0, sizeof *out);
    ps.file = file_name != NULL ? file_name : "<profile>";
    ps.diag = diag;
    ps.out = out;
    ps.ext = sections_in;
    ps.ext_count = count;
    ps.section = -1;
    if (diag != NULL) {
        diag->line = 0;
        diag->message[0] = '\0';
    }
    size_t at = 0;
    slc_status s = SLC_OK;
    while (at < len && s == SLC_OK) {
        size_t end = at;
        while (end < len && text[end] != '\n') {
            end++;
        }
        size_t n = end - at;
        if (n > 0 && text[at + n - 1] == '\r') {
            n--; /* CRLF line ends */
        }
        ps.line++;
        s = parse_line(&ps, (span){text + at, n});
        at = end + 1;
    }
    ps.last_line = ps.line;
    if (s == SLC_OK) {
        s = check_whole(&ps);
    }
    if (s == SLC_OK) {
        s = end_sections(&ps);
    }
    if (s != SLC_OK) {
        memset(out, 0, sizeof *out);
    }
    return s;
}

size_t slc_profile_budget_descs(const slc_profile *p, slc_budget_desc *out, size_t cap)
{
    SLC_ASSERT(p != NULL);
    SLC_ASSERT(out != NULL || cap == 0);
    for (uint32_t i = 0; i < p->budget_count && i < cap; i++) {
        out[i].name = p->budgets[i].name;
        out[i].limit = p->budgets[i].limit;
        out[i].parent = p->budgets[i].parent;
    }
    return p->budget_count;
}

static bool partitions_equal(uint32_t count_a, const slc_profile_partition *a, uint32_t count_b,
                             const slc_profile_partition *b)
{
    if (count_a != count_b) {
        return false;
    }
    for (uint32_t i = 0; i < count_a && i < SLC_PARTITION_MAX; i++) {
        if (strncmp(a[i].name, b[i].name, SLC_NAME_MAX) != 0 || a[i].page_count != b[i].page_count) {
            return false;
        }
    }
    return true;
}

bool slc_profile_equal(const slc_profile *a, const slc_profile *b)
{
    SLC_ASSERT(a != NULL && b != NULL);
    if (strncmp(a->name, b->name, SLC_NAME_MAX) != 0 || a->budget_count != b->budget_count) {
        return false;
    }
    for (uint32_t i = 0; i < a->budget_count && i < SLC_PROFILE_BUDGET_MAX; i++) {
        if (strncmp(a->budgets[i].name, b->budgets[i].name, SLC_NAME_MAX) != 0 ||
            a->budgets[i].limit != b->budgets[i].limit || a->budgets[i].parent != b->budgets[i].parent) {
            return false;
        }
    }
    return a->page_size == b->page_size && a->page_count == b->page_count &&
           a->frames_in_flight == b->frames_in_flight && a->workers == b->workers &&
           a->queue_capacity == b->queue_capacity && a->staging_size == b->staging_size &&
           a->upload_cap == b->upload_cap && a->max_objects == b->max_objects && a->max_chunks == b->max_chunks &&
           a->max_lods == b->max_lods && a->max_string_bytes == b->max_string_bytes && a->max_phases == b->max_phases &&
           a->eviction == b->eviction && a->pin_coarsest == b->pin_coarsest && a->texture_format == b->texture_format &&
           a->texture_page_count == b->texture_page_count && a->texture_eviction == b->texture_eviction &&
           a->texture_pin_tiles == b->texture_pin_tiles && a->texture_staging_size == b->texture_staging_size &&
           partitions_equal(a->partition_count, a->partitions, b->partition_count, b->partitions) &&
           partitions_equal(a->texture_partition_count, a->texture_partitions, b->texture_partition_count,
                            b->texture_partitions);
}

int slc_profile_scan_budget(const slc_profile *p, const char *name)
{
    SLC_ASSERT(p != NULL && name != NULL);
    for (uint32_t i = 0; i < p->budget_count && i < SLC_PROFILE_BUDGET_MAX; i++) {
        if (strncmp(p->budgets[i].name, name, SLC_NAME_MAX) == 0) {
            return (int)i;
        }
    }
    return -1;
}

bool slc_profile_scan_host_only(const slc_profile *p)
{
    SLC_ASSERT(p != NULL);
    for (uint32_t i = 0; i < p->budget_count && i < SLC_PROFILE_BUDGET_MAX; i++) {
        if (under_gpu(p->budgets[i].name)) {
            return false;
        }
    }
    return true;
}

slc_status slc_profile_refuse_host_only(const char *profile, const char *what, char *why, size_t cap)
{
    SLC_ASSERT(what != NULL && why != NULL && cap > 0);
    size_t n = slc__fmt(why, cap, "profile '%s' is host-only (it declares no gpu budget): %s needs gpu",
                        profile != NULL ? profile : "?", what);
    for (size_t r = 0; r < REQUIRED_BUDGET_COUNT; r++) {
        if (under_gpu(required_budgets[r]) && n < cap) {
            n += slc__fmt(why + n, cap - n, ", %s", required_budgets[r]);
        }
    }
    return SLC_E_PROFILE_MISSING;
}

const char *slc_profile_policy_name(uint32_t eviction)
{
    const char *name = slc__evict_policy_name(eviction);
    return name != NULL ? name : "?";
}

int slc_profile_scan_partition(const slc_profile *p, const char *name)
{
    SLC_ASSERT(p != NULL && name != NULL);
    for (uint32_t i = 0; i < p->partition_count && i < SLC_PARTITION_MAX; i++) {
        if (strncmp(p->partitions[i].name, name, SLC_NAME_MAX) == 0) {
            return (int)i;
        }
    }
    return -1;
}

/* The key as the parser's messages name it: elided past 60 bytes. */
static const char *key_z(const char *key, char *buf, size_t cap)
{
    return span_z((span){key, strlen(key)}, buf, cap);
}

slc_status slc_profile_read_count(const char *section, const char *key, const char *value, uint64_t min, uint64_t max,
                                  uint64_t *out, char *why, size_t cap)
{
    SLC_ASSERT(section != NULL && key != NULL && value != NULL && out != NULL && why != NULL && cap > 0);
    char kb[64];
    return read_number(section, key_z(key, kb, sizeof kb), (span){value, strlen(value)}, 0, min, max, 0, out, why, cap);
}

slc_status slc_profile_read_decimal(const char *section, const char *key, const char *value, uint32_t digits,
                                    uint64_t min, uint64_t max, uint64_t *out, char *why, size_t cap)
{
    SLC_ASSERT(section != NULL && key != NULL && value != NULL && out != NULL && why != NULL && cap > 0);
    SLC_ASSERT(digits <= SLC_PROFILE_DECIMAL_DIGITS_MAX);
    char kb[64];
    return read_milli(section, key_z(key, kb, sizeof kb), (span){value, strlen(value)}, digits, min, max, out, why,
                      cap);
}

slc_status slc_profile_refuse_key(const char *section, const char *key, uint32_t first_line, char *why, size_t cap)
{
    SLC_ASSERT(section != NULL && key != NULL && why != NULL && cap > 0);
    char kb[64];
    return refuse_key(section, key_z(key, kb, sizeof kb), first_line, why, cap);
}
