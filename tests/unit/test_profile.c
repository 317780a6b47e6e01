/* SPDX-License-Identifier: MIT */
/* The budget profile parser: a valid profile, every rule it enforces with
 * its exact message, every prefix of a valid file, the shipped profiles; the
 * sections its callers own (slc_profile_parse_sections), and the two the
 * tools attach, the renderer's [render] and the quality check's [quality],
 * through their owners' handlers (tool_profile_parse). */
#include "profile_sections.h"
#include "sluice/pack.h"
#include "sluice/pool_spec.h"
#include "sluice/stream.h"
#include "test_util.h"

static const char base[] = "# test profile\n"             /* 1 */
                           "[profile]\n"                  /* 2 */
                           "name = test\n"                /* 3 */
                           "\n"                           /* 4 */
                           "[budgets]\n"                  /* 5 */
                           "cpu = 16 MiB\n"               /* 6 */
                           "cpu/meta = 4 MiB\n"           /* 7 */
                           "cpu/decode = 4 MiB\n"         /* 8 */
                           "cpu/queues = 1 MiB\n"         /* 9 */
                           "cpu/driver = 4 MiB\n"         /* 10 */
                           "gpu = 80 MiB\n"               /* 11 */
                           "gpu/pool = 64 MiB\n"          /* 12 */
                           "gpu/staging = 16 MiB\n"       /* 13 */
                           "\n"                           /* 14 */
                           "[pool]\n"                     /* 15 */
                           "page_size = 64 KiB\n"         /* 16 */
                           "page_count = 1024\n"          /* 17 */
                           "\n"                           /* 18 */
                           "[stream]\n"                   /* 19 */
                           "frames_in_flight = 2\n"       /* 20 */
                           "workers = 2\n"                /* 21 */
                           "queue_capacity = 256\n"       /* 22 */
                           "staging_size = 8 MiB\n"       /* 23 */
                           "upload_per_frame = 4 MiB\n"   /* 24 */
                           "\n"                           /* 25 */
                           "[tables]\n"                   /* 26 */
                           "max_objects = 1000\n"         /* 27 */
                           "max_chunks = 20000\n"         /* 28 */
                           "max_lods = 8\n"               /* 29 */
                           "max_string_bytes = 64 KiB\n"; /* 30 */

static char text[8192];

/* base with the first occurrence of `find` replaced by `repl`. */
static size_t edited(const char *find, const char *repl)
{
    const char *at = strstr(base, find);
    assert_non_null(at);
    size_t head = (size_t)(at - base);
    int n = snprintf(text, sizeof text, "%.*s%s%s", (int)head, base, repl, at + strlen(find));
    assert_true(n > 0 && (size_t)n < sizeof text);
    return (size_t)n;
}

/* The first len bytes of text, read as the tools read a profile, are refused
 * with status want, on line `line`, with exactly this message, and leave
 * the profile and the sections zeroed; a failure names the case by what. */
static void expect_error_in(const char *what, size_t len, slc_status want, uint32_t line, const char *message)
{
    slc_profile p;
    tool_profile_sections sec;
    slc_profile_diag d;
    memset(&p, 0x5a, sizeof p);
    memset(&sec, 0x5a, sizeof sec);
    slc_status s = tool_profile_parse(text, len, "t.profile", &p, &sec, &d);
    if (s != want || strcmp(d.message, message) != 0 || d.line != line) {
        fail_msg("%s: got %s \"%s\" (line %u), want %s \"%s\" (line %u)", what, slc_status_name(s), d.message, d.line,
                 slc_status_name(want), message, line);
    }
    slc_profile zero;
    memset(&zero, 0, sizeof zero);
    assert_memory_equal(&p, &zero, sizeof p); /* nothing half-done is left */
    tool_profile_sections zero_sec;
    memset(&zero_sec, 0, sizeof zero_sec);
    assert_memory_equal(&sec, &zero_sec, sizeof sec);
}

static void expect_error(size_t len, slc_status want, uint32_t line, const char *message)
{
    expect_error_in("t.profile", len, want, line, message);
}

#define EXPECT(find, repl, status, line, message) expect_error_in(repl, edited(find, repl), status, line, message)

/* One refused edit of base: the first occurrence of find replaced by repl,
 * and what the parser must answer. */
typedef struct edit_case {
    const char *find;
    const char *repl;
    slc_status status;
    uint32_t line;
    const char *message;
} edit_case;

/* Each case in turn, as EXPECT checks it. */
static void expect_edits(const edit_case *cases, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        EXPECT(cases[i].find, cases[i].repl, cases[i].status, cases[i].line, cases[i].message);
    }
}

static void test_parses_valid_profile(void **state)
{
    (void)state;
    slc_profile p;
    slc_profile_diag d;
    assert_int_equal(slc_profile_parse(base, strlen(base), "t.profile", &p, &d), SLC_OK);
    assert_string_equal(p.name, "test");
    assert_int_equal(p.budget_count, 8);
    assert_string_equal(p.budgets[0].name, "cpu");
    assert_string_equal(p.budgets[1].name, "gpu");
    assert_string_equal(p.budgets[2].name, "cpu/meta");
    assert_int_equal(p.budgets[2].parent, 0);
    assert_int_equal(p.budgets[2].limit, 4u << 20);
    assert_string_equal(p.budgets[6].name, "gpu/pool");
    assert_int_equal(p.budgets[6].parent, 1);
    assert_int_equal(p.budgets[0].parent, SLC_BUDGET_NONE_INDEX);
    assert_int_equal(p.page_size, 65536);
    assert_int_equal(p.page_count, 1024);
    assert_int_equal(p.frames_in_flight, 2);
    assert_int_equal(p.workers, 2);
    assert_int_equal(p.queue_capacity, 256);
    assert_int_equal(p.staging_size, 8u << 20);
    assert_int_equal(p.upload_cap, 4u << 20);
    assert_int_equal(p.max_objects, 1000);
    assert_int_equal(p.max_chunks, 20000);
    assert_int_equal(p.max_lods, 8);
    assert_int_equal(p.max_string_bytes, 65536);
    assert_int_equal(p.max_phases, 8);                  /* the default */
    assert_int_equal(p.eviction, SLC_EVICTION_PREDICT); /* the default */
    assert_int_equal(p.partition_count, 0);             /* one implied "default" partition of every page */
    assert_int_equal(slc_profile_scan_partition(&p, "default"), -1);
    assert_int_equal(slc_profile_scan_budget(&p, "cpu/driver"), 5);
    assert_int_equal(slc_profile_scan_budget(&p, "cpu/drive"), -1);
    slc_budget_desc descs[SLC_PROFILE_BUDGET_MAX];
    assert_int_equal(slc_profile_budget_descs(&p, descs, 3), 8);
    assert_string_equal(descs[2].name, "cpu/meta");
    assert_int_equal(descs[2].parent, 0);
    assert_int_equal(descs[2].limit, 4u << 20);
}

static void test_accepts_units_comments_crlf_and_any_order(void **state)
{
    (void)state;
    const char *t = "\xef\xbb\xbf"; /* a BOM is not text the parser accepts: checked below */
    slc_profile p, q;
    slc_profile_diag d;
    assert_int_equal(slc_profile_parse(t, strlen(t), "bom.profile", &p, &d), SLC_E_PROFILE_BINARY);
    assert_string_equal(d.message, "bom.profile:1: byte 0xef at column 1 is not ASCII text");

    /* CRLF, tabs, units with and without a space, a UTF-8 comment, children
     * before their parent, [report] given: all equal to the plain form. */
    size_t n = edited("cpu = 16 MiB\ncpu/meta = 4 MiB\n", "cpu/meta\t=\t4096KiB   # m\xc3\xa9ta\ncpu = 16777216 B\n");
    char crlf[8192];
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (text[i] == '\n') {
            crlf[m++] = '\r';
        }
        crlf[m++] = text[i];
    }
    const char extra[] = "[report]\r\nmax_phases = 8\r\n";
    memcpy(crlf + m, extra, sizeof extra - 1);
    m += sizeof extra - 1;
    assert_int_equal(slc_profile_parse(crlf, m, "crlf.profile", &p, &d), SLC_OK);
    assert_int_equal(slc_profile_parse(base, strlen(base), "t.profile", &q, &d), SLC_OK);
    assert_true(slc_profile_equal(&p, &q));
    q.page_count++;
    assert_false(slc_profile_equal(&p, &q));
    q.page_count--;
    q.budgets[3].limit++;
    assert_false(slc_profile_equal(&p, &q));
    q.budgets[3].limit--;
    q.name[0] = 'T';
    assert_false(slc_profile_equal(&p, &q));
}

static void test_every_unit(void **state)
{
    (void)state;
    slc_profile p;
    slc_profile_diag d;
    size_t n = edited("gpu = 80 MiB", "gpu = 1 TiB");
    assert_int_equal(slc_profile_parse(text, n, NULL, &p, &d), SLC_OK);
    assert_int_equal(p.budgets[1].limit, 1ull << 40);
    n = edited("gpu = 80 MiB", "gpu = 1GiB");
    assert_int_equal(slc_profile_parse(text, n, NULL, &p, &d), SLC_OK);
    assert_int_equal(p.budgets[1].limit, 1ull << 30);
    EXPECT("gpu/staging = 16 MiB", "gpu/staging = 0", SLC_E_PROFILE_RANGE, 23,
           "t.profile:23: [stream] staging_size: 8 MiB is above budget gpu/staging 0 B");
}

static void test_rejects_syntax(void **state)
{
    (void)state;
    static const edit_case cases[] = {
        {"[pool]", "[pool", SLC_E_PROFILE_SYNTAX, 15, "t.profile:15: section header '[pool' lacks its closing ']'"},
        {"[pool]", "[pool] junk", SLC_E_PROFILE_SYNTAX, 15,
         "t.profile:15: section header '[pool] junk' has text after its closing ']'"},
        {"page_count = 1024", "page_count 1024", SLC_E_PROFILE_SYNTAX, 17,
         "t.profile:17: 'page_count 1024' is not 'key = value', a [section] or a # comment"},
        {"page_count = 1024", "= 1024", SLC_E_PROFILE_SYNTAX, 17, "t.profile:17: '= 1024' has no key before '='"},
        {"# test profile\n", "orphan = 1\n", SLC_E_PROFILE_SYNTAX, 1, "t.profile:1: orphan: key outside any [section]"},
        {"page_count = 1024", "page_count =   # nothing", SLC_E_PROFILE_VALUE, 17,
         "t.profile:17: [pool] page_count: value is empty"},
    };
    expect_edits(cases, sizeof cases / sizeof cases[0]);
    char longline[400];
    memset(longline, ' ', sizeof longline);
    memcpy(longline, "# ", 2);
    longline[257] = '\0'; /* 257 bytes */
    EXPECT("# test profile", longline, SLC_E_PROFILE_SYNTAX, 1,
           "t.profile:1: line is 257 bytes long; at most 256 allowed");
    longline[256] = '\0'; /* 256 bytes: accepted */
    slc_profile p;
    assert_int_equal(slc_profile_parse(text, edited("# test profile", longline), "t", &p, NULL), SLC_OK);
}

static void test_rejects_unknown_and_duplicates(void **state)
{
    (void)state;
    static const edit_case cases[] = {
        {"[tables]", "[table]", SLC_E_PROFILE_UNKNOWN, 26,
         "t.profile:26: [table]: unknown section (known: profile, budgets, pool, partitions, stream, tables, report, "
         "textures, texture_partitions, render, quality)"},
        {"workers = 2", "worker = 2", SLC_E_PROFILE_UNKNOWN, 21, "t.profile:21: [stream] worker: unknown key"},
        {"workers = 2", "page_size = 4 KiB", SLC_E_PROFILE_UNKNOWN, 21,
         "t.profile:21: [stream] page_size: unknown key"},
        {"workers = 2", "workers = 2\nworkers = 3", SLC_E_PROFILE_DUPLICATE, 22,
         "t.profile:22: [stream] workers: duplicate key (first on line 21)"},
        {"gpu/pool = 64 MiB", "gpu/pool = 64 MiB\ngpu/pool = 1 MiB", SLC_E_PROFILE_DUPLICATE, 13,
         "t.profile:13: [budgets] gpu/pool: duplicate key (first on line 12)"},
        {"max_lods = 8\n", "max_lods = 8\n[pool]\n", SLC_E_PROFILE_DUPLICATE, 30,
         "t.profile:30: [pool]: duplicate section (first on line 15)"},
    };
    expect_edits(cases, sizeof cases / sizeof cases[0]);
}

static void test_rejects_bad_numbers_and_units(void **state)
{
    (void)state;
    static const edit_case cases[] = {
        {"page_size = 64 KiB", "page_size = 64 KB", SLC_E_PROFILE_VALUE, 16,
         "t.profile:16: [pool] page_size: '64 KB' is not a size (an integer with B, KiB, MiB, GiB or TiB)"},
        {"page_size = 64 KiB", "page_size = 1.5 MiB", SLC_E_PROFILE_VALUE, 16,
         "t.profile:16: [pool] page_size: '1.5 MiB' is not a size (an integer with B, KiB, MiB, GiB or TiB)"},
        {"page_size = 64 KiB", "page_size = -64 KiB", SLC_E_PROFILE_VALUE, 16,
         "t.profile:16: [pool] page_size: '-64 KiB' is not a size (an integer with B, KiB, MiB, GiB or TiB)"},
        {"workers = 2", "workers = 2 KiB", SLC_E_PROFILE_VALUE, 21,
         "t.profile:21: [stream] workers: '2 KiB' is not a count (a plain decimal integer)"},
        {"workers = 2", "workers = two", SLC_E_PROFILE_VALUE, 21,
         "t.profile:21: [stream] workers: 'two' is not a count (a plain decimal integer)"},
        {"workers = 2", "workers = 0x2", SLC_E_PROFILE_VALUE, 21,
         "t.profile:21: [stream] workers: '0x2' is not a count (a plain decimal integer)"},
        {"cpu/meta = 4 MiB", "cpu/meta = lots", SLC_E_PROFILE_VALUE, 7,
         "t.profile:7: [budgets] cpu/meta: 'lots' is not a size (an integer with B, KiB, MiB, GiB or TiB)"},
        {"name = test", "name = te st", SLC_E_PROFILE_VALUE, 3,
         "t.profile:3: [profile] name: 'te st' is not a name (letters, digits, '_' and '-')"},
        {"name = test", "name = 0123456789012345678901234567890123", SLC_E_PROFILE_VALUE, 3,
         "t.profile:3: [profile] name: name is longer than 31 bytes"},
    };
    expect_edits(cases, sizeof cases / sizeof cases[0]);
}

static void test_rejects_zero_absurd_and_overflowing_values(void **state)
{
    (void)state;
    static const edit_case cases[] = {
        {"page_count = 1024", "page_count = 0", SLC_E_PROFILE_RANGE, 17,
         "t.profile:17: [pool] page_count: '0' is out of range (1 to 16777216)"},
        {"workers = 2", "workers = 1000", SLC_E_PROFILE_RANGE, 21,
         "t.profile:21: [stream] workers: '1000' is out of range (0 to 64)"},
        {"frames_in_flight = 2", "frames_in_flight = 0", SLC_E_PROFILE_RANGE, 20,
         "t.profile:20: [stream] frames_in_flight: '0' is out of range (1 to 8)"},
        {"max_lods = 8", "max_lods = 99", SLC_E_PROFILE_RANGE, 29,
         "t.profile:29: [tables] max_lods: '99' is out of range (1 to 16)"},
        {"page_size = 64 KiB", "page_size = 128 MiB", SLC_E_PROFILE_RANGE, 16,
         "t.profile:16: [pool] page_size: '128 MiB' is out of range (4 KiB to 64 MiB)"},
        {"page_size = 64 KiB", "page_size = 99999999999999999999999", SLC_E_PROFILE_RANGE, 16,
         "t.profile:16: [pool] page_size: '99999999999999999999999' is out of range (4 KiB to 64 MiB)"},
        {"gpu = 80 MiB", "gpu = 17179869184 GiB", SLC_E_PROFILE_RANGE, 11,
         "t.profile:11: [budgets] gpu: '17179869184 GiB' is out of range (0 to 1 TiB)"},
        {"gpu = 80 MiB", "gpu = 2 TiB", SLC_E_PROFILE_RANGE, 11,
         "t.profile:11: [budgets] gpu: '2 TiB' is out of range (0 to 1 TiB)"},
        {"page_size = 64 KiB", "page_size = 12288", SLC_E_PROFILE_RANGE, 16,
         "t.profile:16: [pool] page_size: '12288' is not a power of two"},
        {"page_size = 64 KiB", "page_size = 96 KiB", SLC_E_PROFILE_RANGE, 16,
         "t.profile:16: [pool] page_size: '96 KiB' is not a power of two"},
    };
    expect_edits(cases, sizeof cases / sizeof cases[0]);
}

static void test_rejects_missing_required(void **state)
{
    (void)state;
    static const edit_case cases[] = {
        {"page_count = 1024\n", "", SLC_E_PROFILE_MISSING, 15,
         "t.profile:15: [pool] page_count: required key is missing"},
        {"[tables]\nmax_objects = 1000\nmax_chunks = 20000\nmax_lods = 8\nmax_string_bytes = 64 KiB\n", "",
         SLC_E_PROFILE_MISSING, 25,
         "t.profile:25: [tables] max_objects: required key is missing; also missing: [tables] max_chunks, [tables] "
         "max_lods, [tables] max_string_bytes"},
        /* every key and budget missing is named at once, the first at its line */
        {"cpu/driver = 4 MiB\ngpu = 80 MiB\ngpu/pool = 64 MiB\ngpu/staging = 16 MiB\n\n[pool]\npage_size = 64 "
         "KiB\npage_count = 1024\n",
         "gpu = 80 MiB\n\n[pool]\npage_size = 64 KiB\n", SLC_E_PROFILE_MISSING, 12,
         "t.profile:12: [pool] page_count: required key is missing; also missing: [budgets] cpu/driver, [budgets] "
         "gpu/pool, [budgets] gpu/staging"},
        {"cpu/driver = 4 MiB\n", "", SLC_E_PROFILE_MISSING, 5,
         "t.profile:5: [budgets] cpu/driver: required budget is missing"},
    };
    expect_edits(cases, sizeof cases / sizeof cases[0]);
    /* an empty profile: as many as the message holds, then how many more
     * (its cpu budgets; with no gpu budget it is host-only, so the gpu
     * group is not asked for) */
    expect_error(0, SLC_E_PROFILE_MISSING, 0,
                 "t.profile:0: [pool] page_size: required key is missing; also missing: [pool] page_count, [stream] "
                 "frames_in_flight, [stream] workers, [stream] queue_capacity, [stream] staging_size, [stream] "
                 "upload_per_frame, [tables] max_objects, [tables] max_chunks, [tables] max_lods, [tables] "
                 "max_string_bytes, and 4 more");
}

/* base without its gpu budgets and with staging_size 0: a host-only profile. */
static size_t host_only(void)
{
    char *at = strstr(text, "gpu = 80 MiB\n");
    assert_non_null(at);
    const char *after = strstr(at, "\n\n");
    memmove(at, after, strlen(after) + 1);
    char *staging = strstr(text, "staging_size = 8 MiB");
    assert_non_null(staging);
    memmove(staging + strlen("staging_size = "), "0", 1);
    memmove(staging + strlen("staging_size = 0"), staging + strlen("staging_size = 8 MiB"),
            strlen(staging + strlen("staging_size = 8 MiB")) + 1);
    return strlen(text);
}

static void test_accepts_host_only_profile(void **state)
{
    (void)state;
    (void)edited("name = test", "name = test");
    size_t n = host_only();
    assert_null(strstr(text, "gpu"));
    slc_profile p;
    slc_profile_diag d;
    assert_int_equal(slc_profile_parse(text, n, "t.profile", &p, &d), SLC_OK);
    assert_int_equal(p.budget_count, 5);
    assert_int_equal(slc_profile_scan_budget(&p, "gpu/pool"), -1);
    assert_true(slc_profile_scan_host_only(&p));
    assert_int_equal(p.page_count, 1024);
    assert_int_equal(p.page_size, 65536);
    assert_int_equal(p.staging_size, 0);
    /* its pool is sized by [pool] and charged to no budget */
    slc_pool_spec spec;
    slc_pool_spec_from_profile(&p, SLC_POOL_GEOMETRY, &spec);
    assert_null(spec.budget);
    assert_int_equal(spec.pool.page_count, 1024);
    assert_int_equal(spec.page_size, 65536);
    /* a profile with its gpu budgets is not host-only, and charges gpu/pool */
    assert_int_equal(slc_profile_parse(base, strlen(base), "t.profile", &p, &d), SLC_OK);
    assert_false(slc_profile_scan_host_only(&p));
    slc_pool_spec_from_profile(&p, SLC_POOL_GEOMETRY, &spec);
    assert_string_equal(spec.budget, "gpu/pool");
    /* [pool] alone bounds it: far more pages than the base's gpu/pool held */
    (void)edited("page_count = 1024", "page_count = 65536");
    n = host_only();
    assert_int_equal(slc_profile_parse(text, n, "t.profile", &p, &d), SLC_OK);
    assert_int_equal(p.page_count, 65536);
}

static void test_refuses_partial_gpu_group_and_host_only_staging(void **state)
{
    (void)state;
    /* some gpu budgets but not all: every missing one named, as before */
    static const edit_case cases[] = {
        {"gpu/pool = 64 MiB\n", "", SLC_E_PROFILE_MISSING, 5,
         "t.profile:5: [budgets] gpu/pool: required budget is missing"},
        {"gpu/pool = 64 MiB\ngpu/staging = 16 MiB\n", "", SLC_E_PROFILE_MISSING, 5,
         "t.profile:5: [budgets] gpu/pool: required budget is missing; also missing: [budgets] gpu/staging"},
        {"gpu/pool = 64 MiB\ngpu/staging = 16 MiB\n", "gpu/render = 1 MiB\n", SLC_E_PROFILE_MISSING, 5,
         "t.profile:5: [budgets] gpu/pool: required budget is missing; also missing: [budgets] gpu/staging"},
        {"gpu = 80 MiB\ngpu/pool = 64 MiB\n", "", SLC_E_PROFILE_MISSING, 5,
         "t.profile:5: [budgets] gpu/pool: required budget is missing"},
    };
    expect_edits(cases, sizeof cases / sizeof cases[0]);
    /* a host-only profile has no staging belt */
    (void)edited("name = test", "name = test");
    size_t n = host_only();
    char *zero = strstr(text, "staging_size = 0");
    assert_non_null(zero);
    char tail[4096];
    snprintf(tail, sizeof tail, "%s", zero + strlen("staging_size = 0"));
    snprintf(zero, sizeof text - (size_t)(zero - text), "staging_size = 64 KiB%s", tail);
    n = strlen(text);
    expect_error(n, SLC_E_PROFILE_RANGE, 21,
                 "t.profile:21: [stream] staging_size: 64 KiB, but a host-only profile (no gpu budget) has no staging "
                 "belt; set 0");
}

static void test_refuse_host_only_names_profile_and_budgets(void **state)
{
    (void)state;
    char why[320];
    assert_int_equal(slc_profile_refuse_host_only("fw", "the Vulkan backend", why, sizeof why), SLC_E_PROFILE_MISSING);
    assert_string_equal(why, "profile 'fw' is host-only (it declares no gpu budget): the Vulkan backend needs gpu, "
                             "gpu/pool, gpu/staging");
    assert_int_equal(slc_profile_refuse_host_only(NULL, "x", why, 24), SLC_E_PROFILE_MISSING);
    assert_string_equal(why, "profile '?' is host-onl"); /* truncated, terminated */
}

static void test_rejects_bad_trees(void **state)
{
    (void)state;
    static const edit_case cases[] = {
        {"cpu = 16 MiB", "cpu = 12 MiB", SLC_E_PROFILE_TREE, 6,
         "t.profile:6: [budgets] cpu: children sum to 13 MiB, above its limit 12 MiB"},
        {"gpu/pool = 64 MiB", "gpu/pool = 96 MiB", SLC_E_PROFILE_TREE, 11,
         "t.profile:11: [budgets] gpu: children sum to 112 MiB, above its limit 80 MiB"},
        {"cpu = 16 MiB\n", "", SLC_E_PROFILE_TREE, 6,
         "t.profile:6: [budgets] cpu/meta: parent budget 'cpu' is not declared"},
        {"cpu/meta = 4 MiB", "cpu/meta = 4 MiB\ncpu/x/y = 1 MiB", SLC_E_PROFILE_TREE, 8,
         "t.profile:8: [budgets] cpu/x/y: parent budget 'cpu/x' is not declared"},
        {"cpu/meta = 4 MiB", "cpu/meta = 4 MiB\nram/x = 1 MiB", SLC_E_PROFILE_TREE, 8,
         "t.profile:8: [budgets] ram/x: unknown root; every budget lives under cpu or gpu"},
        {"cpu/meta = 4 MiB", "cpu/Meta = 4 MiB", SLC_E_PROFILE_VALUE, 7,
         "t.profile:7: [budgets] cpu/Meta: budget names use only a-z, 0-9, '_' and '/'"},
        {"cpu/meta = 4 MiB", "cpu//meta = 4 MiB", SLC_E_PROFILE_VALUE, 7,
         "t.profile:7: [budgets] cpu//meta: empty path segment"},
        {"cpu/meta = 4 MiB", "cpu/meta/ = 4 MiB", SLC_E_PROFILE_VALUE, 7,
         "t.profile:7: [budgets] cpu/meta/: empty path segment"},
        {"cpu/meta = 4 MiB", "cpu/a_budget_name_longer_than_31 = 4 MiB", SLC_E_PROFILE_VALUE, 7,
         "t.profile:7: [budgets] cpu/a_budget_name_longer_than_31: name is longer than 31 bytes"},
        {"cpu/meta = 4 MiB", "cpu/meta = 4 MiB\ncpu/a/b/c/d/e/f/g/h/i = 0", SLC_E_PROFILE_RANGE, 8,
         "t.profile:8: [budgets] cpu/a/b/c/d/e/f/g/h/i: 9 levels below its root; at most 8"},
    };
    expect_edits(cases, sizeof cases / sizeof cases[0]);
    char many[2048] = "cpu/meta = 4 MiB\n";
    for (int i = 0; i < 25; i++) {
        char line[32];
        snprintf(line, sizeof line, "cpu/x%d = 0\n", i);
        strcat(many, line);
    }
    EXPECT("cpu/meta = 4 MiB\n", many, SLC_E_PROFILE_RANGE, 38,
           "t.profile:38: [budgets] gpu/staging: more than 32 budgets");
}

static void test_rejects_inconsistent_sections(void **state)
{
    (void)state;
    static const edit_case cases[] = {
        {"page_count = 1024", "page_count = 1025", SLC_E_PROFILE_RANGE, 17,
         "t.profile:17: [pool] page_count: 1025 pages of 64 KiB need 65600 KiB, above budget gpu/pool 64 MiB"},
        {"staging_size = 8 MiB", "staging_size = 17 MiB", SLC_E_PROFILE_RANGE, 23,
         "t.profile:23: [stream] staging_size: 17 MiB is above budget gpu/staging 16 MiB"},
        {"staging_size = 8 MiB", "staging_size = 60 KiB", SLC_E_PROFILE_RANGE, 23,
         "t.profile:23: [stream] staging_size: 60 KiB is below page_size 64 KiB, so no page could ever be staged"},
        {"upload_per_frame = 4 MiB", "upload_per_frame = 32 KiB", SLC_E_PROFILE_RANGE, 24,
         "t.profile:24: [stream] upload_per_frame: 32 KiB is below page_size 64 KiB, so no page could ever be uploaded"},
    };
    expect_edits(cases, sizeof cases / sizeof cases[0]);
}

/* base with a [partitions] section appended after line 30: its header is
 * line 31, its first partition line 32. PARTITIONS_EDIT is the edit (find,
 * repl) for an edit_case; lines is a string literal. */
#define PARTITIONS_EDIT(lines) "max_string_bytes = 64 KiB\n", "max_string_bytes = 64 KiB\n[partitions]\n" lines
#define PARTITIONS(lines) edited(PARTITIONS_EDIT(lines))

static void test_parses_partitions_and_eviction(void **state)
{
    (void)state;
    slc_profile p, q;
    slc_profile_diag d;
    size_t n = PARTITIONS("gauges = 100   # the cluster's dials\nnav_map=  900\n");
    if (slc_profile_parse(text, n, "t.profile", &p, &d) != SLC_OK) {
        fail_msg("%s", d.message);
    }
    assert_int_equal(p.partition_count, 2);
    assert_string_equal(p.partitions[0].name, "gauges");
    assert_int_equal(p.partitions[0].page_count, 100);
    assert_string_equal(p.partitions[1].name, "nav_map");
    assert_int_equal(p.partitions[1].page_count, 900);
    assert_int_equal(slc_profile_scan_partition(&p, "nav_map"), 1);
    assert_int_equal(slc_profile_scan_partition(&p, "nav"), -1);
    assert_int_equal(p.eviction, SLC_EVICTION_PREDICT); /* the default */
    /* Partitions may take every page (then there is no "default"), and an
     * empty section is allowed. */
    n = PARTITIONS("a = 1000\nb = 24\n");
    assert_int_equal(slc_profile_parse(text, n, "t.profile", &q, &d), SLC_OK);
    assert_int_equal(q.partition_count, 2);
    n = PARTITIONS("");
    assert_int_equal(slc_profile_parse(text, n, "t.profile", &q, &d), SLC_OK);
    assert_int_equal(q.partition_count, 0);
    /* Equality sees partitions and the policy. */
    assert_int_equal(slc_profile_parse(text, PARTITIONS("gauges = 100\nnav_map = 900\n"), "t", &q, &d), SLC_OK);
    assert_true(slc_profile_equal(&p, &q));
    q.partitions[1].page_count++;
    assert_false(slc_profile_equal(&p, &q));
    q.partitions[1].page_count--;
    q.partitions[0].name[0] = 'G';
    assert_false(slc_profile_equal(&p, &q));
    q.partitions[0].name[0] = 'g';
    q.partition_count = 1;
    assert_false(slc_profile_equal(&p, &q));
    q.partition_count = 2;
    q.eviction = SLC_EVICTION_PRIORITY;
    assert_false(slc_profile_equal(&p, &q));

    n = edited("page_count = 1024\n", "page_count = 1024\neviction = priority\n");
    assert_int_equal(slc_profile_parse(text, n, "t.profile", &p, &d), SLC_OK);
    assert_int_equal(p.eviction, SLC_EVICTION_PRIORITY);
    n = edited("page_count = 1024\n", "page_count = 1024\neviction = lru\n");
    assert_int_equal(slc_profile_parse(text, n, "t.profile", &p, &d), SLC_OK);
    assert_int_equal(p.eviction, SLC_EVICTION_LRU);
    n = edited("page_count = 1024\n", "page_count = 1024\neviction = predict\n");
    assert_int_equal(slc_profile_parse(text, n, "t.profile", &p, &d), SLC_OK);
    assert_int_equal(p.eviction, SLC_EVICTION_PREDICT);
    assert_string_equal(slc_profile_policy_name(SLC_EVICTION_LRU), "lru");
    assert_string_equal(slc_profile_policy_name(SLC_EVICTION_PRIORITY), "priority");
    assert_string_equal(slc_profile_policy_name(SLC_EVICTION_PREDICT), "predict");
    assert_string_equal(slc_profile_policy_name(3), "?");
}

static void test_rejects_bad_partitions(void **state)
{
    (void)state;
    static const edit_case cases[] = {
        {PARTITIONS_EDIT("gauges = 100\nnav = 1000\n"), SLC_E_PROFILE_RANGE, 33,
         "t.profile:33: [partitions] nav: partitions up to here claim 1100 pages, above [pool] page_count 1024"},
        {PARTITIONS_EDIT("a = 1025\n"), SLC_E_PROFILE_RANGE, 32,
         "t.profile:32: [partitions] a: partitions up to here claim 1025 pages, above [pool] page_count 1024"},
        {PARTITIONS_EDIT("gauges = 0\n"), SLC_E_PROFILE_RANGE, 32,
         "t.profile:32: [partitions] gauges: '0' is out of range (1 to 16777216)"},
        {PARTITIONS_EDIT("gauges = 16777217\n"), SLC_E_PROFILE_RANGE, 32,
         "t.profile:32: [partitions] gauges: '16777217' is out of range (1 to 16777216)"},
        {PARTITIONS_EDIT("gauges = 99999999999999999999999\n"), SLC_E_PROFILE_RANGE, 32,
         "t.profile:32: [partitions] gauges: '99999999999999999999999' is out of range (1 to 16777216)"},
        {PARTITIONS_EDIT("gauges = 4 KiB\n"), SLC_E_PROFILE_VALUE, 32,
         "t.profile:32: [partitions] gauges: '4 KiB' is not a count (a plain decimal integer)"},
        {PARTITIONS_EDIT("gauges = many\n"), SLC_E_PROFILE_VALUE, 32,
         "t.profile:32: [partitions] gauges: 'many' is not a count (a plain decimal integer)"},
        {PARTITIONS_EDIT("gauges =\n"), SLC_E_PROFILE_VALUE, 32, "t.profile:32: [partitions] gauges: value is empty"},
        {PARTITIONS_EDIT("Gauges = 10\n"), SLC_E_PROFILE_VALUE, 32,
         "t.profile:32: [partitions] Gauges: partition names use only a-z, 0-9 and '_'"},
        {PARTITIONS_EDIT("nav/map = 10\n"), SLC_E_PROFILE_VALUE, 32,
         "t.profile:32: [partitions] nav/map: partition names use only a-z, 0-9 and '_'"},
        {PARTITIONS_EDIT("nav-map = 10\n"), SLC_E_PROFILE_VALUE, 32,
         "t.profile:32: [partitions] nav-map: partition names use only a-z, 0-9 and '_'"},
        {PARTITIONS_EDIT("a_partition_name_of_32_bytes_xyz = 10\n"), SLC_E_PROFILE_VALUE, 32,
         "t.profile:32: [partitions] a_partition_name_of_32_bytes_xyz: name is longer than 31 bytes"},
        {PARTITIONS_EDIT("default = 10\n"), SLC_E_PROFILE_VALUE, 32,
         "t.profile:32: [partitions] default: the name is reserved for the pages no partition claims"},
        {PARTITIONS_EDIT("gauges = 10\nnav = 10\ngauges = 20\n"), SLC_E_PROFILE_DUPLICATE, 34,
         "t.profile:34: [partitions] gauges: duplicate key (first on line 32)"},
        {PARTITIONS_EDIT("gauges = 10\n[partitions]\n"), SLC_E_PROFILE_DUPLICATE, 33,
         "t.profile:33: [partitions]: duplicate section (first on line 31)"},
    };
    expect_edits(cases, sizeof cases / sizeof cases[0]);
    /* 31 bytes is the longest name; 15 partitions the most. */
    slc_profile p;
    assert_int_equal(slc_profile_parse(text, PARTITIONS("a_partition_name_of_31_bytes_xy = 10\n"), "t", &p, NULL),
                     SLC_OK);
    char many[1024] = "";
    for (int i = 0; i < 15; i++) {
        char line[32];
        snprintf(line, sizeof line, "p%d = 1\n", i);
        strcat(many, line);
    }
    size_t n = PARTITIONS("");
    memcpy(text + n, many, strlen(many) + 1);
    assert_int_equal(slc_profile_parse(text, n + strlen(many), "t", &p, NULL), SLC_OK);
    assert_int_equal(p.partition_count, 15);
    assert_int_equal(p.partitions[14].page_count, 1);
    strcpy(text + n + strlen(many), "p15 = 1\n");
    expect_error(strlen(text), SLC_E_PROFILE_RANGE, 47, "t.profile:47: [partitions] p15: more than 15 partitions");
}

static void test_rejects_bad_eviction(void **state)
{
    (void)state;
    static const edit_case cases[] = {
        {"page_count = 1024\n", "page_count = 1024\neviction = fifo\n", SLC_E_PROFILE_VALUE, 18,
         "t.profile:18: [pool] eviction: 'fifo' is not a policy (lru, priority or predict)"},
        {"page_count = 1024\n", "page_count = 1024\neviction = LRU\n", SLC_E_PROFILE_VALUE, 18,
         "t.profile:18: [pool] eviction: 'LRU' is not a policy (lru, priority or predict)"},
        {"page_count = 1024\n", "page_count = 1024\neviction = 1\n", SLC_E_PROFILE_VALUE, 18,
         "t.profile:18: [pool] eviction: '1' is not a policy (lru, priority or predict)"},
        {"page_count = 1024\n", "page_count = 1024\neviction =\n", SLC_E_PROFILE_VALUE, 18,
         "t.profile:18: [pool] eviction: value is empty"},
        {"page_count = 1024\n", "page_count = 1024\neviction = lru\neviction = priority\n", SLC_E_PROFILE_DUPLICATE, 19,
         "t.profile:19: [pool] eviction: duplicate key (first on line 18)"},
        {"workers = 2", "eviction = lru", SLC_E_PROFILE_UNKNOWN, 21, "t.profile:21: [stream] eviction: unknown key"},
    };
    expect_edits(cases, sizeof cases / sizeof cases[0]);
}

/* base with more sections appended after line 30: the first header is line
 * 31, its first setting line 32. APPENDED_EDIT is the edit (find, repl) for
 * an edit_case; lines is a string literal. */
#define APPENDED_EDIT(lines) "max_string_bytes = 64 KiB\n", "max_string_bytes = 64 KiB\n" lines

/* [textures] format: each texel format by its name (the pack's), rgba8
 * when absent; anything else refused listing the names. */
static void test_textures_format(void **state)
{
    (void)state;
    slc_profile p;
    slc_profile_diag d;
    size_t n = strlen(base);
    memcpy(text, base, n + 1);
    assert_int_equal(slc_profile_parse(text, n, "t.profile", &p, &d), SLC_OK);
    assert_int_equal(p.texture_format, SLC_PACK_TEXEL_RGBA8);
    for (uint32_t f = 1; f < SLC_PACK_TEXEL_COUNT; f++) {
        char lines[64];
        snprintf(lines, sizeof lines, "[textures]\nformat = %s\n", slc_pack_texel_format_name(f));
        n = edited("max_string_bytes = 64 KiB\n", "max_string_bytes = 64 KiB\n");
        assert_true(n + strlen(lines) < sizeof text);
        memcpy(text + n, lines, strlen(lines) + 1);
        assert_int_equal(slc_profile_parse(text, n + strlen(lines), "t.profile", &p, &d), SLC_OK);
        assert_int_equal(p.texture_format, f);
        slc_profile q = p;
        q.texture_format = f == SLC_PACK_TEXEL_RGBA8 ? SLC_PACK_TEXEL_BC1 : SLC_PACK_TEXEL_RGBA8;
        assert_false(slc_profile_equal(&p, &q));
    }
    static const edit_case cases[] = {
        {APPENDED_EDIT("[textures]\nformat = etc2\n"), SLC_E_PROFILE_VALUE, 32,
         "t.profile:32: [textures] format: 'etc2' is not a texel format (rgba8, bc1, bc3, astc4x4, astc6x6 or "
         "astc8x8)"},
        {APPENDED_EDIT("[textures]\nformat = ASTC6x6\n"), SLC_E_PROFILE_VALUE, 32,
         "t.profile:32: [textures] format: 'ASTC6x6' is not a texel format (rgba8, bc1, bc3, astc4x4, astc6x6 or "
         "astc8x8)"},
        {APPENDED_EDIT("[textures]\nformat = none\n"), SLC_E_PROFILE_VALUE, 32,
         "t.profile:32: [textures] format: 'none' is not a texel format (rgba8, bc1, bc3, astc4x4, astc6x6 or "
         "astc8x8)"},
        {APPENDED_EDIT("[textures]\nformat = bc1\nformat = bc3\n"), SLC_E_PROFILE_DUPLICATE, 33,
         "t.profile:33: [textures] format: duplicate key (first on line 32)"},
        {APPENDED_EDIT("[textures]\ntile = 64\n"), SLC_E_PROFILE_UNKNOWN, 32,
         "t.profile:32: [textures] tile: unknown key"},
        {"workers = 2", "format = bc1", SLC_E_PROFILE_UNKNOWN, 21, "t.profile:21: [stream] format: unknown key"},
    };
    expect_edits(cases, sizeof cases / sizeof cases[0]);
}

/* [textures] page_count declares the texture pool (0, the default, none),
 * charged to gpu/textures: required when it is not 0, and large enough;
 * [textures] eviction is its own policy (LRU by default). */
static void test_textures_pool(void **state)
{
    (void)state;
    slc_profile p;
    slc_profile_diag d;
    size_t n = strlen(base);
    memcpy(text, base, n + 1);
    assert_int_equal(slc_profile_parse(text, n, "t.profile", &p, &d), SLC_OK);
    assert_int_equal(p.texture_page_count, 0);
    assert_int_equal(p.texture_eviction, SLC_EVICTION_LRU);
    assert_false(slc_pool_kind_declared(&p, SLC_POOL_TEXTURES));
    assert_true(slc_pool_kind_declared(&p, SLC_POOL_GEOMETRY));
    static const char *const pools[] = {"[textures]\npage_count = 16\neviction = priority\n",
                                        "[textures]\npage_count = 17\n"};
    for (int i = 0; i < 2; i++) {
        n = edited("gpu/staging = 16 MiB\n", "gpu/staging = 8 MiB\ngpu/textures = 1 MiB\n");
        size_t add = strlen(pools[i]);
        assert_true(n + add < sizeof text);
        memcpy(text + n, pools[i], add + 1);
        if (i == 1) {
            expect_error_in("17 pages", n + add, SLC_E_PROFILE_RANGE, 33,
                            "t.profile:33: [textures] page_count: 17 pages of 64 KiB need 1088 KiB, above budget "
                            "gpu/textures 1 MiB");
            continue;
        }
        assert_int_equal(slc_profile_parse(text, n + add, "t.profile", &p, &d), SLC_OK);
        assert_int_equal(p.texture_page_count, 16);
        assert_int_equal(p.texture_eviction, SLC_EVICTION_PRIORITY);
        assert_true(slc_pool_kind_declared(&p, SLC_POOL_TEXTURES));
        slc_pool_spec spec;
        slc_pool_spec_from_profile(&p, SLC_POOL_TEXTURES, &spec);
        assert_int_equal(spec.kind, SLC_POOL_TEXTURES);
        assert_string_equal(spec.section, "textures");
        assert_string_equal(spec.budget, "gpu/textures");
        assert_int_equal(spec.page_size, 65536);
        assert_int_equal(spec.staging_size, 0);
        assert_int_equal(spec.pool.page_count, 16);
        assert_int_equal(spec.pool.eviction, SLC_EVICTION_PRIORITY);
        assert_int_equal(spec.pool.partition_count, 0);
        slc_profile q = p;
        q.texture_page_count = 15;
        assert_false(slc_profile_equal(&p, &q));
    }
    assert_int_equal(slc_pool_kind_of_chunk_flags(SLC_PACK_CHUNK_TEXTURE), SLC_POOL_TEXTURES);
    assert_int_equal(slc_pool_kind_of_chunk_flags(1u), SLC_POOL_GEOMETRY);
    assert_string_equal(slc_pool_kind_name(SLC_POOL_TEXTURES), "textures");
    assert_string_equal(slc_pool_kind_name(SLC_POOL_GEOMETRY), "geometry");
    assert_null(slc_pool_kind_name(SLC_POOL_KIND_COUNT));
    static const edit_case cases[] = {
        {APPENDED_EDIT("[textures]\npage_count = 4\n"), SLC_E_PROFILE_MISSING, 32,
         "t.profile:32: [textures] page_count: 4 pages, but [budgets] declares no gpu/textures to charge them to"},
        {APPENDED_EDIT("[textures]\neviction = fifo\n"), SLC_E_PROFILE_VALUE, 32,
         "t.profile:32: [textures] eviction: 'fifo' is not a policy (lru, priority or predict)"},
    };
    expect_edits(cases, sizeof cases / sizeof cases[0]);
}

/* base with gpu/textures and a texture pool of 16 pages (lines 32, 33),
 * then lines (from line 34) appended; the length. */
/* The base with gpu/staging at `gpu_staging`, a 1 MiB gpu/textures and
 * then pool and lines ([textures] at line 32). */
static size_t with_textures_at(const char *gpu_staging, const char *pool, const char *lines)
{
    char repl[96];
    snprintf(repl, sizeof repl, "gpu/staging = %s\ngpu/textures = 1 MiB\n", gpu_staging);
    size_t n = edited("gpu/staging = 16 MiB\n", repl);
    int m = snprintf(text + n, sizeof text - n, "%s%s", pool, lines);
    assert_true(m > 0 && n + (size_t)m < sizeof text);
    return n + (size_t)m;
}

static size_t with_texture_pool(const char *pool, const char *lines)
{
    return with_textures_at("8 MiB", pool, lines);
}

/* [textures] pin_tiles: 0 or 1 (default 0), compared by slc_profile_equal,
 * and only with a texture pool to pin in. */
static void test_texture_pin_tiles(void **state)
{
    (void)state;
    slc_profile p, q;
    slc_profile_diag d;
    size_t n = with_texture_pool("[textures]\npage_count = 16\n", "");
    assert_int_equal(slc_profile_parse(text, n, "t.profile", &p, &d), SLC_OK);
    assert_int_equal(p.texture_pin_tiles, 0);
    n = with_texture_pool("[textures]\npage_count = 16\npin_tiles = 1\n", "");
    if (slc_profile_parse(text, n, "t.profile", &q, &d) != SLC_OK) {
        fail_msg("%s", d.message);
    }
    assert_int_equal(q.texture_pin_tiles, 1);
    assert_false(slc_profile_equal(&p, &q));
    q.texture_pin_tiles = 0;
    assert_true(slc_profile_equal(&p, &q));
    n = with_texture_pool("[textures]\npage_count = 16\npin_tiles = 2\n", "");
    expect_error_in("pin_tiles 2", n, SLC_E_PROFILE_RANGE, 34,
                    "t.profile:34: [textures] pin_tiles: '2' is out of range (0 to 1)");
    n = with_texture_pool("[textures]\npin_tiles = 1\n", "");
    expect_error_in("no pool", n, SLC_E_PROFILE_RANGE, 33,
                    "t.profile:33: [textures] pin_tiles: 1, but there is no texture pool to pin them in ([textures] "
                    "page_count is 0)");
}

/* [textures] staging_size: the tiles' own belt (default 0: none), in the
 * texture pool's spec, compared by slc_profile_equal, charged to
 * gpu/staging with [stream] staging_size; it caps the tile loads a frame
 * (slc_stream_get_tile_cap) at what it holds for the frames a slot stays
 * taken. Refused without a texture pool, on a host-only profile, below a
 * page and above gpu/staging. */
static void test_texture_staging_size(void **state)
{
    (void)state;
    slc_profile p, q;
    slc_profile_diag d;
    size_t n = with_textures_at("9 MiB", "", "[textures]\npage_count = 16\nstaging_size = 1 MiB\n");
    if (slc_profile_parse(text, n, "t.profile", &p, &d) != SLC_OK) {
        fail_msg("%s", d.message);
    }
    assert_int_equal(p.texture_staging_size, 1u << 20);
    slc_pool_spec spec;
    slc_pool_spec_from_profile(&p, SLC_POOL_TEXTURES, &spec);
    assert_int_equal(spec.staging_size, 1u << 20);
    slc_pool_spec_from_profile(&p, SLC_POOL_GEOMETRY, &spec);
    assert_int_equal(spec.staging_size, 8u << 20); /* [stream]'s */
    q = p;
    q.texture_staging_size = 0;
    assert_false(slc_profile_equal(&p, &q));
    /* The tile cap: 1 MiB / (2 frames in flight + 1 load frame + 1) / 64 KiB
     * = 4 pages, within the upload cap; 2 with 3 load frames. */
    uint32_t pages = 99;
    assert_int_equal(slc_stream_get_tile_cap(&p, 0, 64, NULL, &pages), SLC_OK);
    assert_int_equal(pages, 4);
    assert_int_equal(slc_stream_get_tile_cap(&p, 1, 3, NULL, &pages), SLC_OK);
    assert_int_equal(pages, 3);
    assert_int_equal(slc_stream_get_tile_cap(&p, 3, 64, NULL, &pages), SLC_OK);
    assert_int_equal(pages, 2);
    assert_int_equal(slc_stream_get_tile_cap(&p, SLC_STREAM_LOAD_FRAMES_MAX + 1u, 64, NULL, &pages), SLC_E_INVALID);
    assert_int_equal(pages, 0);
    /* A belt of one page is less than a page for each of the 4 frames. */
    p.texture_staging_size = p.page_size;
    assert_int_equal(slc_stream_get_tile_cap(&p, 0, 64, NULL, &pages), SLC_E_INVALID);
    assert_int_equal(pages, 0);
    /* No belt declared: the upload cap alone. */
    q.texture_staging_size = 0;
    assert_int_equal(slc_stream_get_tile_cap(&q, 0, 64, NULL, &pages), SLC_OK);
    assert_int_equal(pages, 64);

    n = with_textures_at("9 MiB", "", "[textures]\npage_count = 16\nstaging_size = 2 MiB\n");
    expect_error_in("above gpu/staging", n, SLC_E_PROFILE_RANGE, 34,
                    "t.profile:34: [textures] staging_size: 2 MiB with [stream] staging_size 8 MiB is above budget "
                    "gpu/staging 9 MiB");
    n = with_textures_at("9 MiB", "", "[textures]\npage_count = 16\nstaging_size = 4 KiB\n");
    expect_error_in("below a page", n, SLC_E_PROFILE_RANGE, 34,
                    "t.profile:34: [textures] staging_size: 4 KiB is below page_size 64 KiB, so no tile could ever be "
                    "staged");
    n = with_textures_at("9 MiB", "", "[textures]\nstaging_size = 1 MiB\n");
    expect_error_in("no pool", n, SLC_E_PROFILE_RANGE, 33,
                    "t.profile:33: [textures] staging_size: 1 MiB, but there is no texture pool to stage tiles for "
                    "([textures] page_count is 0)");
    snprintf(text, sizeof text, "%s", base);
    n = host_only();
    int m = snprintf(text + n, sizeof text - n, "[textures]\npage_count = 16\nstaging_size = 1 MiB\n");
    assert_true(m > 0);
    expect_error_in("host-only", n + (size_t)m, SLC_E_PROFILE_RANGE, 31,
                    "t.profile:31: [textures] staging_size: 1 MiB, but a host-only profile (no gpu budget) has no "
                    "staging belt; set 0");
}

/* [texture_partitions] divides the texture pool as [partitions] the page
 * pool, by the same rules, into the texture pool's spec; the default
 * partition keeps at least a page (the mip tails are pinned there); none
 * without a texture pool. */
static void test_texture_partitions(void **state)
{
    (void)state;
    slc_profile p, q;
    slc_profile_diag d;
    size_t n = with_texture_pool("[textures]\npage_count = 16\n", "[texture_partitions]\nui = 4\nsigns = 11\n");
    if (slc_profile_parse(text, n, "t.profile", &p, &d) != SLC_OK) {
        fail_msg("%s", d.message);
    }
    assert_int_equal(p.partition_count, 0);
    assert_int_equal(p.texture_partition_count, 2);
    assert_string_equal(p.texture_partitions[0].name, "ui");
    assert_int_equal(p.texture_partitions[0].page_count, 4);
    assert_string_equal(p.texture_partitions[1].name, "signs");
    assert_int_equal(p.texture_partitions[1].page_count, 11);
    slc_pool_spec spec;
    slc_pool_spec_from_profile(&p, SLC_POOL_TEXTURES, &spec);
    assert_int_equal(spec.pool.page_count, 16);
    assert_int_equal(spec.pool.partition_count, 2);
    assert_string_equal(spec.pool.partitions[1].name, "signs");
    assert_int_equal(spec.pool.partitions[1].page_count, 11);
    slc_pool_spec_from_profile(&p, SLC_POOL_GEOMETRY, &spec);
    assert_int_equal(spec.pool.partition_count, 0); /* the page pool's are its own */
    /* Equality sees them. */
    q = p;
    assert_true(slc_profile_equal(&p, &q));
    q.texture_partitions[1].page_count--;
    assert_false(slc_profile_equal(&p, &q));
    q = p;
    q.texture_partitions[0].name[0] = 'U';
    assert_false(slc_profile_equal(&p, &q));
    q = p;
    q.texture_partition_count = 1;
    assert_false(slc_profile_equal(&p, &q));
    /* Both pools divided, each by its own section. */
    n = with_texture_pool("[partitions]\nui = 24\n[textures]\npage_count = 16\n", "[texture_partitions]\nui = 2\n");
    assert_int_equal(slc_profile_parse(text, n, "t.profile", &p, &d), SLC_OK);
    assert_int_equal(p.partition_count, 1);
    assert_int_equal(p.partitions[0].page_count, 24);
    assert_int_equal(p.texture_partition_count, 1);
    assert_int_equal(p.texture_partitions[0].page_count, 2);

    static const struct {
        const char *pool, *lines;
        slc_status status;
        uint32_t line;
        const char *message;
    } cases[] = {
        {"[textures]\npage_count = 16\n", "[texture_partitions]\nui = 4\nsigns = 12\n", SLC_E_PROFILE_RANGE, 36,
         "t.profile:36: [texture_partitions] signs: partitions up to here claim 16 pages, leaving none of [textures] "
         "page_count 16 to the default partition, which holds the mip tails"},
        {"", "[texture_partitions]\nui = 4\n", SLC_E_PROFILE_RANGE, 33,
         "t.profile:33: [texture_partitions] ui: there is no texture pool to divide ([textures] page_count is 0)"},
        {"[textures]\npage_count = 16\n", "[texture_partitions]\nui = 0\n", SLC_E_PROFILE_RANGE, 35,
         "t.profile:35: [texture_partitions] ui: '0' is out of range (1 to 16777216)"},
        {"[textures]\npage_count = 16\n", "[texture_partitions]\nui = 1 KiB\n", SLC_E_PROFILE_VALUE, 35,
         "t.profile:35: [texture_partitions] ui: '1 KiB' is not a count (a plain decimal integer)"},
        {"[textures]\npage_count = 16\n", "[texture_partitions]\nUI = 1\n", SLC_E_PROFILE_VALUE, 35,
         "t.profile:35: [texture_partitions] UI: partition names use only a-z, 0-9 and '_'"},
        {"[textures]\npage_count = 16\n", "[texture_partitions]\ndefault = 1\n", SLC_E_PROFILE_VALUE, 35,
         "t.profile:35: [texture_partitions] default: the name is reserved for the pages no partition claims"},
        {"[textures]\npage_count = 16\n", "[texture_partitions]\nui = 1\nui = 2\n", SLC_E_PROFILE_DUPLICATE, 36,
         "t.profile:36: [texture_partitions] ui: duplicate key (first on line 35)"},
        {"[textures]\npage_count = 16\n", "[texture_partitions]\nui = 1\n[texture_partitions]\n",
         SLC_E_PROFILE_DUPLICATE, 36, "t.profile:36: [texture_partitions]: duplicate section (first on line 34)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        n = with_texture_pool(cases[i].pool, cases[i].lines);
        expect_error_in(cases[i].lines, n, cases[i].status, cases[i].line, cases[i].message);
    }
    /* 15 partitions the most, as the page pool's. */
    char many[1024] = "[texture_partitions]\n";
    for (int i = 0; i < 16; i++) {
        char line[32];
        snprintf(line, sizeof line, "p%d = 1\n", i);
        strcat(many, line);
    }
    n = with_texture_pool("[textures]\npage_count = 16\n", many);
    expect_error_in("16 partitions", n, SLC_E_PROFILE_RANGE, 50,
                    "t.profile:50: [texture_partitions] p15: more than 15 partitions");
}

/* The [render] and [quality] values of the last parse_appended. */
static tool_profile_sections sections;

/* The profile base + lines gives, parsed as the tools parse it (its
 * [render] and [quality] in sections); the test fails with the message. */
static slc_profile parse_appended(const char *lines)
{
    size_t head = strlen(base);
    int n = snprintf(text, sizeof text, "%s%s", base, lines);
    assert_true(n > 0 && (size_t)n < sizeof text);
    slc_profile p;
    slc_profile_diag d;
    if (tool_profile_parse(text, (size_t)n, "t.profile", &p, &sections, &d) != SLC_OK) {
        fail_msg("%s (after line 30: %s)", d.message, text + head);
    }
    return p;
}

static void test_parses_render_and_quality(void **state)
{
    (void)state;
    /* Absent: 0 everywhere, the renderer's defaults and no floor. */
    (void)parse_appended("");
    assert_int_equal(sections.render.width, 0);
    assert_int_equal(sections.render.height, 0);
    assert_int_equal(sections.render.max_draws, 0);
    assert_int_equal(sections.render.max_placements, 0);
    assert_int_equal(sections.quality.min_psnr_mdb, 0);
    /* Empty sections are allowed and declare nothing. */
    (void)parse_appended("[render]\n[quality]\n");
    assert_int_equal(sections.render.width, 0);
    assert_int_equal(sections.quality.min_psnr_mdb, 0);
    (void)parse_appended("[render]\nwidth = 1832\nheight = 1920   # one eye\nmax_draws = 100000\n"
                         "max_placements = 16777216\n[quality]\nmin_psnr_db = 30.5\n");
    assert_int_equal(sections.render.width, 1832);
    assert_int_equal(sections.render.height, 1920);
    assert_int_equal(sections.render.max_draws, 100000);
    assert_int_equal(sections.render.max_placements, 1u << 24);
    assert_int_equal(sections.quality.min_psnr_mdb, 30500);
    /* Each key on its own; the others stay undeclared. */
    (void)parse_appended("[render]\nheight = 1\n");
    assert_int_equal(sections.render.width, 0);
    assert_int_equal(sections.render.height, 1);
    (void)parse_appended("[render]\nwidth = 16384\nmax_placements = 1\n");
    assert_int_equal(sections.render.width, 16384);
    assert_int_equal(sections.render.height, 0);
    assert_int_equal(sections.render.max_draws, 0);
    assert_int_equal(sections.render.max_placements, 1);
    /* Sections in any order, [quality] before [render] and [pool]. */
    const char *moved = strstr(base, "[pool]");
    int n = snprintf(text, sizeof text, "%.*s[quality]\nmin_psnr_db = 7\n[render]\nmax_draws = 1\n%s",
                     (int)(moved - base), base, moved);
    slc_profile p;
    slc_profile_diag d;
    assert_int_equal(tool_profile_parse(text, (size_t)n, "t.profile", &p, &sections, &d), SLC_OK);
    assert_int_equal(sections.quality.min_psnr_mdb, 7000);
    assert_int_equal(sections.render.max_draws, 1);
    /* Decimals: whole, up to three fractional digits, leading and trailing
     * zeros, the bounds. */
    static const struct {
        const char *value;
        uint32_t mdb;
    } decimals[] = {{"30", 30000},     {"30.5", 30500}, {"30.25", 30250},    {"30.125", 30125},
                    {"0.001", 1},      {"0.5", 500},    {"200", 200000},     {"200.000", 200000},
                    {"007.100", 7100}, {"1.0", 1000},   {"199.999", 199999}, {"42\t# dB", 42000}};
    for (size_t i = 0; i < sizeof decimals / sizeof decimals[0]; i++) {
        char lines[64];
        snprintf(lines, sizeof lines, "[quality]\nmin_psnr_db = %s\n", decimals[i].value);
        (void)parse_appended(lines);
        if (sections.quality.min_psnr_mdb != decimals[i].mdb) {
            fail_msg("min_psnr_db = %s: %u milli-dB, want %u", decimals[i].value, sections.quality.min_psnr_mdb,
                     decimals[i].mdb);
        }
    }
}

/* [render] and [quality] are their owners': the runtime's profile is the
 * same, byte for byte, with or without them, and the sections' values are
 * the parse's, each key's line with it. */
static void test_runtime_profile_holds_no_render_or_quality(void **state)
{
    (void)state;
    const char *lines = "[render]\nwidth = 640\nheight = 480\nmax_draws = 1000\nmax_placements = 2000\n"
                        "[quality]\nmin_psnr_db = 25.125\n";
    slc_profile p = parse_appended(lines);
    tool_profile_sections with = sections;
    slc_profile none = parse_appended("");
    assert_true(slc_profile_equal(&p, &none));
    assert_memory_equal(&p, &none, sizeof p);
    assert_int_equal(with.render.width, 640);
    assert_int_equal(with.render.height, 480);
    assert_int_equal(with.render.max_draws, 1000);
    assert_int_equal(with.render.max_placements, 2000);
    assert_int_equal(with.quality.min_psnr_mdb, 25125);
    const uint32_t want_lines[] = {32, 33, 34, 35};
    assert_memory_equal(with.render.lines, want_lines, sizeof want_lines);
    assert_int_equal(with.quality.line, 37);
    /* Dropped when not asked for: parsed and checked all the same. */
    int n = snprintf(text, sizeof text, "%s%s", base, "[render]\nwidth = 0\n");
    slc_profile_diag d;
    assert_int_equal(tool_profile_parse(text, (size_t)n, "t.profile", &p, NULL, &d), SLC_E_PROFILE_RANGE);
    assert_string_equal(d.message, "t.profile:32: [render] width: '0' is out of range (1 to 16384)");
}

static void test_rejects_bad_render(void **state)
{
    (void)state;
    static const edit_case cases[] = {
        {APPENDED_EDIT("[render]\ndepth = 24\n"), SLC_E_PROFILE_UNKNOWN, 32,
         "t.profile:32: [render] depth: unknown key"},
        {APPENDED_EDIT("[render]\npage_size = 4 KiB\n"), SLC_E_PROFILE_UNKNOWN, 32,
         "t.profile:32: [render] page_size: unknown key"},
        {APPENDED_EDIT("[render]\nmin_psnr_db = 30\n"), SLC_E_PROFILE_UNKNOWN, 32,
         "t.profile:32: [render] min_psnr_db: unknown key"},
        {APPENDED_EDIT("[render]\nwidth = 0\n"), SLC_E_PROFILE_RANGE, 32,
         "t.profile:32: [render] width: '0' is out of range (1 to 16384)"},
        {APPENDED_EDIT("[render]\nwidth = 16385\n"), SLC_E_PROFILE_RANGE, 32,
         "t.profile:32: [render] width: '16385' is out of range (1 to 16384)"},
        {APPENDED_EDIT("[render]\nheight = 0\n"), SLC_E_PROFILE_RANGE, 32,
         "t.profile:32: [render] height: '0' is out of range (1 to 16384)"},
        {APPENDED_EDIT("[render]\nheight = 99999999999999999999999\n"), SLC_E_PROFILE_RANGE, 32,
         "t.profile:32: [render] height: '99999999999999999999999' is out of range (1 to 16384)"},
        {APPENDED_EDIT("[render]\nmax_draws = 0\n"), SLC_E_PROFILE_RANGE, 32,
         "t.profile:32: [render] max_draws: '0' is out of range (1 to 16777216)"},
        {APPENDED_EDIT("[render]\nmax_draws = 16777217\n"), SLC_E_PROFILE_RANGE, 32,
         "t.profile:32: [render] max_draws: '16777217' is out of range (1 to 16777216)"},
        {APPENDED_EDIT("[render]\nmax_placements = 0\n"), SLC_E_PROFILE_RANGE, 32,
         "t.profile:32: [render] max_placements: '0' is out of range (1 to 16777216)"},
        {APPENDED_EDIT("[render]\nmax_placements = 4294967296\n"), SLC_E_PROFILE_RANGE, 32,
         "t.profile:32: [render] max_placements: '4294967296' is out of range (1 to 16777216)"},
        {APPENDED_EDIT("[render]\nwidth = 1280px\n"), SLC_E_PROFILE_VALUE, 32,
         "t.profile:32: [render] width: '1280px' is not a count (a plain decimal integer)"},
        {APPENDED_EDIT("[render]\nwidth = 1 KiB\n"), SLC_E_PROFILE_VALUE, 32,
         "t.profile:32: [render] width: '1 KiB' is not a count (a plain decimal integer)"},
        {APPENDED_EDIT("[render]\nheight = 720.0\n"), SLC_E_PROFILE_VALUE, 32,
         "t.profile:32: [render] height: '720.0' is not a count (a plain decimal integer)"},
        {APPENDED_EDIT("[render]\nmax_draws = -1\n"), SLC_E_PROFILE_VALUE, 32,
         "t.profile:32: [render] max_draws: '-1' is not a count (a plain decimal integer)"},
        {APPENDED_EDIT("[render]\nwidth =\n"), SLC_E_PROFILE_VALUE, 32, "t.profile:32: [render] width: value is empty"},
        {APPENDED_EDIT("[render]\nwidth = 1280\nheight = 720\nwidth = 640\n"), SLC_E_PROFILE_DUPLICATE, 34,
         "t.profile:34: [render] width: duplicate key (first on line 32)"},
        {APPENDED_EDIT("[render]\nwidth = 1280\n[render]\n"), SLC_E_PROFILE_DUPLICATE, 33,
         "t.profile:33: [render]: duplicate section (first on line 31)"},
        {APPENDED_EDIT("[renderer]\n"), SLC_E_PROFILE_UNKNOWN, 31,
         "t.profile:31: [renderer]: unknown section (known: profile, budgets, pool, partitions, stream, tables, report, "
         "textures, texture_partitions, render, quality)"},
        {"workers = 2", "width = 1280", SLC_E_PROFILE_UNKNOWN, 21, "t.profile:21: [stream] width: unknown key"},
    };
    expect_edits(cases, sizeof cases / sizeof cases[0]);
}

static void test_rejects_bad_quality(void **state)
{
    (void)state;
#define Q(value) APPENDED_EDIT("[quality]\nmin_psnr_db = " value "\n")
#define NOT_DECIMAL(value)                                                   \
    {                                                                        \
        Q(value), SLC_E_PROFILE_VALUE, 32,                                   \
            "t.profile:32: [quality] min_psnr_db: '" value                   \
            "' is not a decimal (digits, optionally a '.' and up to 3 more)" \
    }
#define OUT_OF_RANGE(value)                                                                   \
    {                                                                                         \
        Q(value), SLC_E_PROFILE_RANGE, 32,                                                    \
            "t.profile:32: [quality] min_psnr_db: '" value "' is out of range (0.001 to 200)" \
    }
    static const edit_case cases[] = {
        NOT_DECIMAL("abc"),
        NOT_DECIMAL("-1"),
        NOT_DECIMAL("+30"),
        NOT_DECIMAL(".5"),
        NOT_DECIMAL("30."),
        NOT_DECIMAL("30..5"),
        NOT_DECIMAL("30.5.1"),
        NOT_DECIMAL("30,5"),
        NOT_DECIMAL("3e1"),
        NOT_DECIMAL("30.5 dB"),
        NOT_DECIMAL("30 dB"),
        NOT_DECIMAL("30.1a"),
        NOT_DECIMAL("30.12345a"),
        NOT_DECIMAL("0x1e"),
        {Q("30.1234"), SLC_E_PROFILE_VALUE, 32,
         "t.profile:32: [quality] min_psnr_db: '30.1234' has more than 3 digits after the point"},
        {Q("0.0001"), SLC_E_PROFILE_VALUE, 32,
         "t.profile:32: [quality] min_psnr_db: '0.0001' has more than 3 digits after the point"},
        {Q("30.5000"), SLC_E_PROFILE_VALUE, 32,
         "t.profile:32: [quality] min_psnr_db: '30.5000' has more than 3 digits after the point"},
        OUT_OF_RANGE("0"),
        OUT_OF_RANGE("0.000"),
        OUT_OF_RANGE("000"),
        OUT_OF_RANGE("201"),
        OUT_OF_RANGE("200.001"),
        OUT_OF_RANGE("18446744073709551615"),
        OUT_OF_RANGE("99999999999999999999999.5"),
        {Q(""), SLC_E_PROFILE_VALUE, 32, "t.profile:32: [quality] min_psnr_db: value is empty"},
        {APPENDED_EDIT("[quality]\nmin_psnr_db = 30\nmin_psnr_db = 31\n"), SLC_E_PROFILE_DUPLICATE, 33,
         "t.profile:33: [quality] min_psnr_db: duplicate key (first on line 32)"},
        {APPENDED_EDIT("[quality]\nmin_psnr_db = abc\nmin_psnr_db = 31\n"), SLC_E_PROFILE_VALUE, 32,
         "t.profile:32: [quality] min_psnr_db: 'abc' is not a decimal (digits, optionally a '.' and up to 3 more)"},
        {APPENDED_EDIT("[quality]\nmin_psnr = 30\n"), SLC_E_PROFILE_UNKNOWN, 32,
         "t.profile:32: [quality] min_psnr: unknown key"},
        {APPENDED_EDIT("[quality]\nwidth = 30\n"), SLC_E_PROFILE_UNKNOWN, 32,
         "t.profile:32: [quality] width: unknown key"},
        {APPENDED_EDIT("[quality]\n[quality]\n"), SLC_E_PROFILE_DUPLICATE, 32,
         "t.profile:32: [quality]: duplicate section (first on line 31)"},
        {"workers = 2", "min_psnr_db = 30", SLC_E_PROFILE_UNKNOWN, 21,
         "t.profile:21: [stream] min_psnr_db: unknown key"},
    };
#undef OUT_OF_RANGE
#undef NOT_DECIMAL
#undef Q
    expect_edits(cases, sizeof cases / sizeof cases[0]);
}

/* --- sections the caller owns ---------------------------------------------------------- */

/* A section [extra] whose handlers record what they were given. */
typedef struct extra_ctx {
    uint32_t calls, ends;
    char keys[4][32], values[4][32];
    uint32_t lines[4];
    uint32_t end_line; /* section_line as end saw it */
    int require;       /* end refuses when no key "need" was read */
    int need_read;
} extra_ctx;

static slc_status extra_line(void *ctx, const char *key, const char *value, uint32_t line, char *why, size_t cap)
{
    extra_ctx *x = ctx;
    if (strcmp(key, "bad") == 0) {
        snprintf(why, cap, "[extra] bad: '%s' is never good", value);
        return SLC_E_PROFILE_VALUE;
    }
    if (strcmp(key, "mute") == 0) {
        return SLC_E_PROFILE_RANGE; /* no message: the parser says "refused" */
    }
    if (strcmp(key, "count") == 0) {
        uint64_t v = 0;
        slc_status s = slc_profile_read_count("extra", key, value, 2, 9, &v, why, cap);
        if (s != SLC_OK) {
            return s;
        }
    }
    x->need_read |= strcmp(key, "need") == 0;
    if (x->calls < 4) {
        snprintf(x->keys[x->calls], sizeof x->keys[0], "%s", key);
        snprintf(x->values[x->calls], sizeof x->values[0], "%s", value);
        x->lines[x->calls] = line;
    }
    x->calls++;
    return SLC_OK;
}

static slc_status extra_end(void *ctx, uint32_t section_line, char *why, size_t cap)
{
    extra_ctx *x = ctx;
    x->ends++;
    x->end_line = section_line;
    if (x->require == 1 && !x->need_read) {
        snprintf(why, cap, "[extra] need: required key is missing");
        return SLC_E_PROFILE_MISSING;
    }
    if (x->require == 2) {
        return SLC_E_PROFILE_MISSING; /* no message */
    }
    return SLC_OK;
}

/* base + lines parsed with [extra] attached: the status, diag and *p. */
static slc_status parse_extra(const char *lines, extra_ctx *x, slc_profile *p, slc_profile_diag *d)
{
    int n = snprintf(text, sizeof text, "%s%s", base, lines);
    assert_true(n > 0 && (size_t)n < sizeof text);
    const slc_profile_section extra = {"extra", extra_line, extra_end, x};
    return slc_profile_parse_sections(text, (size_t)n, "t.profile", &extra, 1, p, d);
}

static void test_caller_section_gets_its_lines(void **state)
{
    (void)state;
    extra_ctx x = {0};
    slc_profile p, plain;
    slc_profile_diag d;
    assert_int_equal(parse_extra("[extra]\n  alpha   =  one two  # comment\n\ncount = 9\n", &x, &p, &d), SLC_OK);
    assert_int_equal(x.calls, 2);
    assert_string_equal(x.keys[0], "alpha");
    assert_string_equal(x.values[0], "one two"); /* trimmed, without the comment */
    assert_int_equal(x.lines[0], 32);
    assert_string_equal(x.keys[1], "count");
    assert_string_equal(x.values[1], "9");
    assert_int_equal(x.lines[1], 34);
    assert_int_equal(x.ends, 1);
    assert_int_equal(x.end_line, 31);
    /* The runtime's profile is as without the section. */
    assert_int_equal(slc_profile_parse(base, strlen(base), "t.profile", &plain, &d), SLC_OK);
    assert_memory_equal(&p, &plain, sizeof p);
    /* Absent: end is still called, with line 0. */
    memset(&x, 0, sizeof x);
    assert_int_equal(parse_extra("", &x, &p, &d), SLC_OK);
    assert_int_equal(x.calls, 0);
    assert_int_equal(x.ends, 1);
    assert_int_equal(x.end_line, 0);
}

static void test_caller_section_refusals(void **state)
{
    (void)state;
    static const struct {
        const char *lines;
        int require;
        slc_status status;
        uint32_t line;
        const char *message;
    } cases[] = {
        {"[extra]\nbad = x\n", 0, SLC_E_PROFILE_VALUE, 32, "t.profile:32: [extra] bad: 'x' is never good"},
        {"[extra]\nmute = 1\n", 0, SLC_E_PROFILE_RANGE, 32, "t.profile:32: [extra] mute: refused"},
        {"[extra]\ncount = 10\n", 0, SLC_E_PROFILE_RANGE, 32,
         "t.profile:32: [extra] count: '10' is out of range (2 to 9)"},
        {"[extra]\ncount = 2x\n", 0, SLC_E_PROFILE_VALUE, 32,
         "t.profile:32: [extra] count: '2x' is not a count (a plain decimal integer)"},
        {"[extra]\nalpha =\n", 0, SLC_E_PROFILE_VALUE, 32, "t.profile:32: [extra] alpha: value is empty"},
        {"[extra]\n[extra]\n", 0, SLC_E_PROFILE_DUPLICATE, 32,
         "t.profile:32: [extra]: duplicate section (first on line 31)"},
        {"[extras]\n", 0, SLC_E_PROFILE_UNKNOWN, 31,
         "t.profile:31: [extras]: unknown section (known: profile, budgets, pool, partitions, stream, tables, report, "
         "textures, texture_partitions, extra)"},
        {"[extra]\nalpha = 1\n", 1, SLC_E_PROFILE_MISSING, 31, "t.profile:31: [extra] need: required key is missing"},
        {"\n\n", 1, SLC_E_PROFILE_MISSING, 32, "t.profile:32: [extra] need: required key is missing"},
        {"[extra]\n", 2, SLC_E_PROFILE_MISSING, 31, "t.profile:31: [extra]: refused"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        extra_ctx x = {0};
        x.require = cases[i].require;
        slc_profile p;
        slc_profile_diag d;
        memset(&p, 0x5a, sizeof p);
        slc_status s = parse_extra(cases[i].lines, &x, &p, &d);
        if (s != cases[i].status || strcmp(d.message, cases[i].message) != 0 || d.line != cases[i].line) {
            fail_msg("case %zu: got %s \"%s\" (line %u), want %s \"%s\" (line %u)", i, slc_status_name(s), d.message,
                     d.line, slc_status_name(cases[i].status), cases[i].message, cases[i].line);
        }
        slc_profile zero;
        memset(&zero, 0, sizeof zero);
        assert_memory_equal(&p, &zero, sizeof p);
        /* end runs only after every line was taken. */
        assert_int_equal(x.ends, cases[i].require != 0 ? 1 : 0);
    }
    /* The runtime's own refusal comes first: end is not called. */
    extra_ctx x = {0};
    slc_profile p;
    slc_profile_diag d;
    int n = snprintf(text, sizeof text, "%s", base);
    *strstr(text, "gpu/staging") = 'x'; /* "xpu/staging": unknown root */
    const slc_profile_section extra = {"extra", extra_line, extra_end, &x};
    assert_int_equal(slc_profile_parse_sections(text, (size_t)n, "t.profile", &extra, 1, &p, &d), SLC_E_PROFILE_TREE);
    assert_int_equal(x.ends, 0);
}

/* The runtime alone owns none of the tools' sections. */
static void test_runtime_alone_refuses_render_and_quality(void **state)
{
    (void)state;
    static const char *const lines[] = {"[render]\nwidth = 640\n", "[quality]\nmin_psnr_db = 30\n"};
    static const char *const messages[] = {
        "t.profile:31: [render]: unknown section (known: profile, budgets, pool, partitions, stream, tables, report, textures, texture_partitions)",
        "t.profile:31: [quality]: unknown section (known: profile, budgets, pool, partitions, stream, tables, report, textures, texture_partitions)"};
    for (size_t i = 0; i < 2; i++) {
        int n = snprintf(text, sizeof text, "%s%s", base, lines[i]);
        slc_profile p;
        slc_profile_diag d;
        assert_int_equal(slc_profile_parse(text, (size_t)n, "t.profile", &p, &d), SLC_E_PROFILE_UNKNOWN);
        assert_string_equal(d.message, messages[i]);
    }
}

/* The helpers' wording, with a long key and value elided as the parser's. */
static void test_read_helpers(void **state)
{
    (void)state;
    char why[256];
    uint64_t v = 0;
    assert_int_equal(slc_profile_read_count("s", "k", "17", 1, 17, &v, why, sizeof why), SLC_OK);
    assert_int_equal(v, 17);
    assert_int_equal(slc_profile_read_decimal("s", "k", "1.25", 2, 1, 2000, &v, why, sizeof why), SLC_OK);
    assert_int_equal(v, 1250);
    assert_int_equal(slc_profile_read_decimal("s", "k", "1.125", 2, 1, 2000, &v, why, sizeof why), SLC_E_PROFILE_VALUE);
    assert_string_equal(why, "[s] k: '1.125' has more than 2 digits after the point");
    assert_int_equal(slc_profile_refuse_key("s", "k", 0, why, sizeof why), SLC_E_PROFILE_UNKNOWN);
    assert_string_equal(why, "[s] k: unknown key");
    assert_int_equal(slc_profile_refuse_key("s", "k", 12, why, sizeof why), SLC_E_PROFILE_DUPLICATE);
    assert_string_equal(why, "[s] k: duplicate key (first on line 12)");
    char longer[100];
    memset(longer, 'a', sizeof longer - 1);
    longer[sizeof longer - 1] = '\0';
    assert_int_equal(slc_profile_read_count("s", longer, longer, 1, 2, &v, why, sizeof why), SLC_E_PROFILE_VALUE);
    assert_string_equal(why,
                        "[s] aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...: "
                        "'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...' is not a count (a plain "
                        "decimal integer)");
}

static void test_rejects_binary_garbage(void **state)
{
    (void)state;
    size_t n = edited("workers = 2", "workXrs = 2");
    *strchr(text, 'X') = '\0';
    expect_error(n, SLC_E_PROFILE_BINARY, 21, "t.profile:21: byte 0x0 at column 5 is not text");
    static const edit_case cases[] = {
        {"workers = 2", "workers = 2\x1b[0m", SLC_E_PROFILE_BINARY, 21,
         "t.profile:21: byte 0x1b at column 12 is not text"},
        {"workers = 2", "w\xc3\xb6rkers = 2", SLC_E_PROFILE_BINARY, 21,
         "t.profile:21: byte 0xc3 at column 2 is not ASCII text"},
        {"workers = 2", "workers = 2\x7f", SLC_E_PROFILE_BINARY, 21,
         "t.profile:21: byte 0x7f at column 12 is not text"},
    };
    expect_edits(cases, sizeof cases / sizeof cases[0]);
    /* Random bytes: always refused with a message, never a crash. */
    uint64_t seed = 0x5eed0001;
    print_message("seed %llx\n", (unsigned long long)seed);
    for (int round = 0; round < 200; round++) {
        char junk[512];
        size_t len = (size_t)(rng_next(&seed) % sizeof junk);
        for (size_t i = 0; i < len; i++) {
            junk[i] = (char)rng_next(&seed);
        }
        slc_profile p;
        slc_profile_diag d;
        assert_int_not_equal(slc_profile_parse(junk, len, "junk", &p, &d), SLC_OK);
        assert_true(strncmp(d.message, "junk:", 5) == 0);
    }
}

static void test_every_prefix_is_refused_or_valid(void **state)
{
    (void)state;
    size_t len = strlen(base), accepted = 0;
    for (size_t n = 0; n < len; n++) {
        char *copy = malloc(n + 1); /* exactly n bytes readable, for ASan */
        memcpy(copy, base, n);
        slc_profile p;
        slc_profile_diag d;
        slc_status s = slc_profile_parse(copy, n, "prefix", &p, &d);
        if (s == SLC_OK) {
            /* Only a cut inside the last value can leave a valid file. */
            assert_true(n > len - strlen("64 KiB\n"));
            accepted++;
        } else {
            assert_true(strncmp(d.message, "prefix:", 7) == 0);
        }
        free(copy);
    }
    assert_int_equal(accepted, 4); /* "= 6", "= 64", "= 64 " (bytes) and "= 64 KiB" without its newline */
}

static void test_shipped_profiles_parse(void **state)
{
    (void)state;
    static const char *const files[] = {"budgets/default.profile", "budgets/auto-cluster.profile"};
    static const char *const names[] = {"default", "auto-cluster"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        size_t len;
        char *t = read_source_file(files[i], &len);
        slc_profile p;
        slc_profile_diag d;
        if (tool_profile_parse(t, len, files[i], &p, &sections, &d) != SLC_OK) {
            fail_msg("%s", d.message);
        }
        assert_string_equal(p.name, names[i]);
        if (i == 1) { /* the partitioned example: gauges and the navigation map, the rest "default" */
            assert_int_equal(p.eviction, SLC_EVICTION_PRIORITY);
            assert_int_equal(p.partition_count, 2);
            assert_string_equal(p.partitions[0].name, "gauges");
            assert_string_equal(p.partitions[1].name, "navigation");
            assert_true(p.partitions[0].page_count + p.partitions[1].page_count < p.page_count);
        }
        free(t);
    }
}

/* Every profile in budgets/ declares the renderer's budgets and its [render]
 * size, and its gpu/render holds what its header comment sums from that
 * size: the own target (colour and depth, 4 B each a pixel), a readback
 * buffer a frame in flight, the per-frame lists (a 32 B draw record and a
 * 16 B indirect command a draw, 80 B a placement) and the object table
 * (64 B an object), with 1 MiB to spare; cpu/render holds what
 * slc_render_footprint asks for a pack of max_objects objects and at least
 * max_placements instances: the record (2 KiB allowed), 4 B an object and
 * 4 B an instance. */
static void test_shipped_profiles_budget_the_renderer(void **state)
{
    (void)state;
    static const char *const files[] = {"budgets/default.profile", "budgets/xr-headset.profile",
                                        "budgets/auto-cluster.profile", "budgets/sbc-rpi5.profile"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        size_t len;
        char *t = read_source_file(files[i], &len);
        slc_profile p;
        slc_profile_diag d;
        if (tool_profile_parse(t, len, files[i], &p, &sections, &d) != SLC_OK) {
            fail_msg("%s", d.message);
        }
        free(t);
        int cpu = slc_profile_scan_budget(&p, "cpu/render"), gpu = slc_profile_scan_budget(&p, "gpu/render");
        const slc_render_profile *r = &sections.render;
        if (cpu < 0 || gpu < 0 || r->width == 0 || r->height == 0 || r->max_draws == 0 || r->max_placements == 0) {
            fail_msg("%s: cpu/render, gpu/render and every [render] key must be declared", files[i]);
        }
        uint64_t pixels = (uint64_t)r->width * r->height, frames = p.frames_in_flight;
        uint64_t draws = r->max_draws, placements = r->max_placements;
        uint64_t device = pixels * 8u + pixels * 4u * frames + frames * (draws * 48u + placements * 80u) +
                          (uint64_t)p.max_objects * 64u + (1u << 20);
        uint64_t host = (2u << 10) + ((uint64_t)p.max_objects + 1u) * 4u + placements * 4u;
        print_message("%s: %ux%u, gpu/render %llu of %llu bytes, cpu/render %llu of %llu\n", p.name, r->width,
                      r->height, (unsigned long long)device, (unsigned long long)p.budgets[gpu].limit,
                      (unsigned long long)host, (unsigned long long)p.budgets[cpu].limit);
        if (p.budgets[gpu].limit < device || p.budgets[cpu].limit < host) {
            fail_msg("%s: gpu/render %llu B (needs %llu), cpu/render %llu B (needs %llu)", files[i],
                     (unsigned long long)p.budgets[gpu].limit, (unsigned long long)device,
                     (unsigned long long)p.budgets[cpu].limit, (unsigned long long)host);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parses_valid_profile),
        cmocka_unit_test(test_accepts_units_comments_crlf_and_any_order),
        cmocka_unit_test(test_every_unit),
        cmocka_unit_test(test_rejects_syntax),
        cmocka_unit_test(test_rejects_unknown_and_duplicates),
        cmocka_unit_test(test_rejects_bad_numbers_and_units),
        cmocka_unit_test(test_rejects_zero_absurd_and_overflowing_values),
        cmocka_unit_test(test_rejects_missing_required),
        cmocka_unit_test(test_rejects_bad_trees),
        cmocka_unit_test(test_rejects_inconsistent_sections),
        cmocka_unit_test(test_parses_partitions_and_eviction),
        cmocka_unit_test(test_rejects_bad_partitions),
        cmocka_unit_test(test_rejects_bad_eviction),
        cmocka_unit_test(test_textures_format),
        cmocka_unit_test(test_textures_pool),
        cmocka_unit_test(test_texture_partitions),
        cmocka_unit_test(test_texture_pin_tiles),
        cmocka_unit_test(test_texture_staging_size),
        cmocka_unit_test(test_parses_render_and_quality),
        cmocka_unit_test(test_runtime_profile_holds_no_render_or_quality),
        cmocka_unit_test(test_rejects_bad_render),
        cmocka_unit_test(test_rejects_bad_quality),
        cmocka_unit_test(test_caller_section_gets_its_lines),
        cmocka_unit_test(test_caller_section_refusals),
        cmocka_unit_test(test_runtime_alone_refuses_render_and_quality),
        cmocka_unit_test(test_read_helpers),
        cmocka_unit_test(test_rejects_binary_garbage),
        cmocka_unit_test(test_every_prefix_is_refused_or_valid),
        cmocka_unit_test(test_shipped_profiles_parse),
        cmocka_unit_test(test_shipped_profiles_budget_the_renderer),
        cmocka_unit_test(test_accepts_host_only_profile),
        cmocka_unit_test(test_refuses_partial_gpu_group_and_host_only_staging),
        cmocka_unit_test(test_refuse_host_only_names_profile_and_budgets),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
