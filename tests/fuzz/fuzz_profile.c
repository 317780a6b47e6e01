/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the budget profile parser on any bytes, with the
 * sections the tools attach ([render], [quality]: tool_profile_parse),
 * checked for properties, not only for crashes. Built by the `fuzz`
 * preset (clang, ASan+UBSan) and run by the test command for a bounded time;
 * every other preset replays the seed corpus (tests/fuzz/corpus/profile)
 * through tests/fuzz/replay.c.
 *
 * On SLC_OK the profile must re-validate on its own: its budgets form a
 * tree the budget manager accepts (parents first, names that extend their
 * parent's, children within their parent's limit, the required budgets
 * present: the gpu ones unless no budget is under gpu, a host-only
 * profile), every number lies in its documented range (page_size a power
 * of two, the pool within gpu/pool, no staging when host-only, ...), the memory block and the page pool
 * accept it, slc_profile_equal(p, p) holds, parsing again gives the same
 * bytes, and the profile written back as canonical text parses to an equal
 * profile ([render] and [quality] included). On failure the status is a
 * profile status, *out and the sections' values are all zero, and
 * the diagnostic is non-empty, NUL-terminated, "file:line: ..." with the
 * file name given (or "<profile>") and a line of the input; the status does
 * not depend on the file name or on whether a diagnostic is asked for. A
 * broken property aborts with its name, which libFuzzer reports as a crash. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile_sections.h"
#include "sluice/sluice.h"

#define FILE_NAME "fuzz.profile"

static void require(int ok, const char *what, const char *detail)
{
    if (!ok) {
        fprintf(stderr, "fuzz_profile: property broken: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
        abort();
    }
}
#define REQUIRE(x) require((x) != 0, #x, NULL)
#define REQUIRE_MSG(x, detail) require((x) != 0, #x, detail)

static int is_pow2(uint64_t x)
{
    return x != 0 && (x & (x - 1)) == 0;
}

/* A NUL within the field, non-empty, and only zero bytes after it. */
static int name_ok(const char *name, size_t cap)
{
    const char *nul = memchr(name, '\0', cap);
    if (nul == NULL || nul == name) {
        return 0;
    }
    for (const char *c = nul; c < name + cap; c++) {
        if (*c != '\0') {
            return 0;
        }
    }
    return 1;
}

static int budget_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '/';
}

/* Lines as the parser counts them: segments ended by '\n' or by the end. */
static uint32_t line_count(const char *text, size_t len)
{
    uint32_t n = 0;
    for (size_t i = 0; i < len; i++) {
        n += text[i] == '\n';
    }
    return n + (len > 0 && text[len - 1] != '\n' ? 1u : 0u);
}

static _Alignas(
    SLC_BUDGETS_ALIGN) unsigned char budgets_mem[SLC_BUDGETS_FOOTPRINT(SLC_PROFILE_BUDGET_MAX, SLC_PROFILE_PHASES_MAX)];

/* Whether p declares no budget under gpu (counted here, not asked of the
 * runtime, whose answer is checked against it). */
static int host_only(const slc_profile *p)
{
    for (uint32_t i = 0; i < p->budget_count; i++) {
        if (strncmp(p->budgets[i].name, "gpu", 3) == 0 &&
            (p->budgets[i].name[3] == '\0' || p->budgets[i].name[3] == '/')) {
            return 0;
        }
    }
    return 1;
}

static void check_budgets(const slc_profile *p)
{
    /* The gpu group (the last two) is required unless the profile is
     * host-only. */
    static const char *const required[] = {"cpu/meta",   "cpu/decode", "cpu/queues",
                                           "cpu/driver", "gpu/pool",   "gpu/staging"};
    const size_t count = sizeof required / sizeof required[0] - (host_only(p) ? 2u : 0u);
    REQUIRE(slc_profile_scan_host_only(p) == (host_only(p) != 0));
    REQUIRE(p->budget_count >= count && p->budget_count <= SLC_PROFILE_BUDGET_MAX);
    for (size_t r = 0; r < count; r++) {
        REQUIRE_MSG(slc_profile_scan_budget(p, required[r]) >= 0, required[r]);
    }
    uint64_t children[SLC_PROFILE_BUDGET_MAX] = {0};
    for (uint32_t i = 0; i < p->budget_count; i++) {
        const slc_profile_budget *b = &p->budgets[i];
        REQUIRE(name_ok(b->name, sizeof b->name));
        size_t len = strlen(b->name);
        for (size_t c = 0; c < len; c++) {
            REQUIRE_MSG(budget_char(b->name[c]), b->name);
        }
        REQUIRE_MSG(b->limit <= SLC_PROFILE_SIZE_MAX, b->name);
        REQUIRE_MSG(slc_profile_scan_budget(p, b->name) == (int)i, b->name); /* unique */
        const char *slash = strrchr(b->name, '/');
        if (b->parent == SLC_BUDGET_NONE_INDEX) {
            REQUIRE_MSG(slash == NULL && (strcmp(b->name, "cpu") == 0 || strcmp(b->name, "gpu") == 0), b->name);
        } else {
            /* Parents first; the name is the parent's, '/', one segment. */
            REQUIRE_MSG(b->parent < i && slash != NULL && slash[1] != '\0', b->name);
            const slc_profile_budget *up = &p->budgets[b->parent];
            REQUIRE_MSG((size_t)(slash - b->name) == strlen(up->name) &&
                            memcmp(b->name, up->name, strlen(up->name)) == 0,
                        b->name);
            children[b->parent] += b->limit;
        }
    }
    for (uint32_t i = 0; i < p->budget_count; i++) {
        REQUIRE_MSG(children[i] <= p->budgets[i].limit, p->budgets[i].name);
    }
    /* The budget manager takes the same tree. */
    slc_budget_desc descs[SLC_PROFILE_BUDGET_MAX];
    REQUIRE(slc_profile_budget_descs(p, descs, SLC_PROFILE_BUDGET_MAX) == p->budget_count);
    slc_budgets *b = NULL;
    REQUIRE(slc_budgets_init(budgets_mem, sizeof budgets_mem, descs, p->budget_count, p->max_phases, NULL, &b) ==
            SLC_OK);
    REQUIRE(slc_budgets_check(b));
}

static void check_values(const slc_profile *p)
{
    REQUIRE(name_ok(p->name, sizeof p->name));
    for (const char *c = p->name; *c != '\0'; c++) {
        REQUIRE((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_' ||
                *c == '-');
    }
    REQUIRE(is_pow2(p->page_size) && p->page_size >= SLC_PAGE_SIZE_MIN && p->page_size <= SLC_PAGE_SIZE_MAX);
    REQUIRE(p->page_count >= 1 && p->page_count <= SLC_PAGE_COUNT_MAX);
    /* A host-only profile's pool is bounded by [pool] alone, and it has no
     * staging belt. */
    uint64_t pool = host_only(p) ? UINT64_MAX : p->budgets[slc_profile_scan_budget(p, "gpu/pool")].limit;
    uint64_t staging = host_only(p) ? 0 : p->budgets[slc_profile_scan_budget(p, "gpu/staging")].limit;
    REQUIRE((uint64_t)p->page_size * p->page_count <= pool);
    REQUIRE(p->frames_in_flight >= 1 && p->frames_in_flight <= SLC_FRAMES_IN_FLIGHT_MAX);
    REQUIRE(p->workers <= SLC_PROFILE_WORKERS_MAX);
    REQUIRE(p->queue_capacity >= 1 && p->queue_capacity <= SLC_PROFILE_QUEUE_CAPACITY_MAX);
    REQUIRE(p->staging_size <= staging && (p->staging_size == 0 || p->staging_size >= p->page_size));
    REQUIRE(p->upload_cap >= p->page_size && p->upload_cap <= SLC_PROFILE_SIZE_MAX);
    REQUIRE(p->pin_coarsest <= SLC_LODS_MAX);
    REQUIRE(p->max_objects >= 1 && p->max_objects <= SLC_TABLE_COUNT_MAX);
    REQUIRE(p->max_chunks >= 1 && p->max_chunks <= SLC_TABLE_COUNT_MAX);
    REQUIRE(p->max_lods >= 1 && p->max_lods <= SLC_LODS_MAX);
    REQUIRE(p->max_string_bytes >= 1 && p->max_string_bytes <= SLC_PROFILE_STRING_BYTES_MAX);
    REQUIRE(p->max_phases >= SLC_PROFILE_PHASES_MIN && p->max_phases <= SLC_PROFILE_PHASES_MAX);
    REQUIRE(p->eviction <= SLC_EVICTION_PREDICT);
    REQUIRE(p->partition_count <= SLC_PARTITION_MAX);
    uint64_t claimed = 0;
    for (uint32_t i = 0; i < p->partition_count; i++) {
        const slc_profile_partition *part = &p->partitions[i];
        REQUIRE(name_ok(part->name, sizeof part->name) && strchr(part->name, '/') == NULL);
        REQUIRE(strcmp(part->name, SLC_PROFILE_PARTITION_DEFAULT_NAME) != 0);
        REQUIRE(slc_profile_scan_partition(p, part->name) == (int)i); /* unique */
        REQUIRE(part->page_count >= 1);
        claimed += part->page_count;
    }
    REQUIRE(claimed <= p->page_count);
    for (uint32_t i = p->partition_count; i < SLC_PARTITION_MAX; i++) {
        REQUIRE(p->partitions[i].page_count == 0 && p->partitions[i].name[0] == '\0');
    }
}

/* [render] and [quality]: 0 (not declared) or within range. */
static void check_sections(const tool_profile_sections *sec)
{
    const slc_render_profile *r = &sec->render;
    REQUIRE(r->width <= SLC_RENDER_SIZE_MAX && r->height <= SLC_RENDER_SIZE_MAX);
    REQUIRE(r->max_draws <= SLC_RENDER_LIST_MAX && r->max_placements <= SLC_RENDER_LIST_MAX);
    REQUIRE(sec->quality.min_psnr_mdb <= QUALITY_PSNR_MAX_MDB);
}

/* The values of two parses' sections are equal (the lines they were read on
 * may differ). */
static int sections_equal(const tool_profile_sections *a, const tool_profile_sections *b)
{
    return a->render.width == b->render.width && a->render.height == b->render.height &&
           a->render.max_draws == b->render.max_draws && a->render.max_placements == b->render.max_placements &&
           a->quality.min_psnr_mdb == b->quality.min_psnr_mdb;
}

/* The profile as canonical text: every key, sizes in bytes, budgets in the
 * profile's order (which is how the parser orders them again). */
static size_t write_profile(const slc_profile *p, const tool_profile_sections *sec, char *buf, size_t cap)
{
    size_t n = 0;
#define PUT(...) (n += (size_t)snprintf(buf + n, n < cap ? cap - n : 0, __VA_ARGS__))
    PUT("# written back by fuzz_profile\n[profile]\nname = %s\n[budgets]\n", p->name);
    for (uint32_t i = 0; i < p->budget_count; i++) {
        PUT("%s = %" PRIu64 " B\n", p->budgets[i].name, p->budgets[i].limit);
    }
    PUT("[pool]\npage_size = %" PRIu32 " B\npage_count = %" PRIu32 "\neviction = %s\n", p->page_size, p->page_count,
        slc_profile_policy_name(p->eviction));
    PUT("[partitions]\n");
    for (uint32_t i = 0; i < p->partition_count; i++) {
        PUT("%s = %" PRIu32 "\n", p->partitions[i].name, p->partitions[i].page_count);
    }
    PUT("[stream]\nframes_in_flight = %" PRIu32 "\nworkers = %" PRIu32 "\nqueue_capacity = %" PRIu32
        "\nstaging_size = %" PRIu64 " B\nupload_per_frame = %" PRIu64 " B\npin_coarsest = %" PRIu32 "\n",
        p->frames_in_flight, p->workers, p->queue_capacity, p->staging_size, p->upload_cap, p->pin_coarsest);
    PUT("[tables]\nmax_objects = %" PRIu32 "\nmax_chunks = %" PRIu32 "\nmax_lods = %" PRIu32
        "\nmax_string_bytes = %" PRIu64 " B\n",
        p->max_objects, p->max_chunks, p->max_lods, p->max_string_bytes);
    PUT("[report]\nmax_phases = %" PRIu32 "\n", p->max_phases);
    PUT("[render]\n"); /* only what is declared: 0 is not a value the parser takes */
    const uint32_t render[] = {sec->render.width, sec->render.height, sec->render.max_draws,
                               sec->render.max_placements};
    const char *const render_keys[] = {"width", "height", "max_draws", "max_placements"};
    for (size_t i = 0; i < 4; i++) {
        if (render[i] != 0) {
            PUT("%s = %" PRIu32 "\n", render_keys[i], render[i]);
        }
    }
    PUT("[quality]\n");
    const uint32_t mdb = sec->quality.min_psnr_mdb;
    if (mdb != 0) {
        PUT("min_psnr_db = %" PRIu32 ".%03" PRIu32 "\n", mdb / 1000u, mdb % 1000u);
    }
#undef PUT
    return n;
}

static void check_ok(const char *text, size_t len, const slc_profile *p, const tool_profile_sections *sec)
{
    check_budgets(p);
    check_values(p);
    check_sections(sec);
    REQUIRE(slc_profile_equal(p, p));

    /* The memory block and the page pool accept what the parser accepted. */
    slc_memory_requirements req;
    REQUIRE(slc_memory_calculate_requirements(p, &req) == SLC_OK && req.block_size > 0);
    slc_pool_desc pd;
    slc_pool_spec spec;
    slc_pool_spec_from_profile(p, SLC_POOL_GEOMETRY, &spec);
    pd = spec.pool;
    REQUIRE(slc_pool_footprint(&pd) > 0);

    /* Deterministic, byte for byte (unused name bytes and padding are zero). */
    static slc_profile again;
    static tool_profile_sections sec_again;
    REQUIRE(tool_profile_parse(text, len, FILE_NAME, &again, &sec_again, NULL) == SLC_OK);
    REQUIRE(memcmp(p, &again, sizeof *p) == 0);
    REQUIRE(memcmp(sec, &sec_again, sizeof *sec) == 0);

    /* Written back as text, it parses to the same profile. */
    static char canonical[8192];
    size_t n = write_profile(p, sec, canonical, sizeof canonical);
    REQUIRE(n < sizeof canonical);
    static slc_profile round;
    static tool_profile_sections sec_round;
    slc_profile_diag d;
    slc_status s = tool_profile_parse(canonical, n, "canonical", &round, &sec_round, &d);
    REQUIRE_MSG(s == SLC_OK, d.message);
    REQUIRE(slc_profile_equal(p, &round) && slc_profile_equal(&round, p));
    REQUIRE(memcmp(p, &round, sizeof *p) == 0);
    REQUIRE(sections_equal(sec, &sec_round));
}

static int is_profile_status(slc_status s)
{
    return s == SLC_E_PROFILE_SYNTAX || s == SLC_E_PROFILE_UNKNOWN || s == SLC_E_PROFILE_DUPLICATE ||
           s == SLC_E_PROFILE_VALUE || s == SLC_E_PROFILE_MISSING || s == SLC_E_PROFILE_RANGE ||
           s == SLC_E_PROFILE_TREE || s == SLC_E_PROFILE_BINARY;
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

/* "file:line: " then a non-empty message, NUL-terminated within the field. */
static void check_diag(const slc_profile_diag *d, const char *file, uint32_t lines)
{
    REQUIRE(memchr(d->message, '\0', sizeof d->message) != NULL);
    REQUIRE(d->line <= lines && (d->line >= 1 || lines == 0));
    char prefix[64];
    int n = snprintf(prefix, sizeof prefix, "%s:%" PRIu32 ": ", file, d->line);
    REQUIRE(n > 0 && (size_t)n < sizeof prefix);
    REQUIRE_MSG(strncmp(d->message, prefix, (size_t)n) == 0, d->message);
    REQUIRE_MSG(d->message[n] != '\0', d->message);
}

/* The length of message s before a closing ", and N more" or "; and N
 * more" (the count of missing keys the message had no room to name),
 * else its whole length. */
static size_t named_len(const char *s)
{
    size_t n = strlen(s);
    static const char more[] = " more";
    if (n < sizeof more || strcmp(s + n - (sizeof more - 1), more) != 0) {
        return n;
    }
    size_t i = n - (sizeof more - 1);
    while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9') {
        i--;
    }
    if (i >= 6 && strncmp(s + i - 6, ", and ", 6) == 0) {
        return i - 6;
    }
    if (i >= 6 && strncmp(s + i - 6, "; and ", 6) == 0) {
        return i - 6;
    }
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    static slc_profile p;
    static tool_profile_sections sec;
    slc_profile_diag d;
    memset(&d, 0xA5, sizeof d); /* the parser must write all of what it reports */
    slc_status s = tool_profile_parse(text, size, FILE_NAME, &p, &sec, &d);
    if (s == SLC_OK) {
        check_ok(text, size, &p, &sec);
        return 0;
    }
    uint32_t lines = line_count(text, size);
    REQUIRE_MSG(is_profile_status(s), slc_status_name(s));
    REQUIRE(all_zero(&p, sizeof p) && all_zero(&sec, sizeof sec));
    check_diag(&d, FILE_NAME, lines);

    /* The same failure without a file name ("<profile>") and without a
     * diagnostic. */
    slc_profile_diag d2;
    REQUIRE(tool_profile_parse(text, size, NULL, &p, &sec, &d2) == s);
    REQUIRE(all_zero(&p, sizeof p));
    REQUIRE(d2.line == d.line);
    check_diag(&d2, "<profile>", lines);
    /* The same message after the prefix (up to where the longer prefix may
     * have truncated it, or named fewer missing keys before "and N
     * more"). */
    const char *rest = d.message + strlen(FILE_NAME), *rest2 = d2.message + strlen("<profile>");
    size_t len = named_len(rest), len2 = named_len(rest2);
    REQUIRE_MSG(strncmp(rest, rest2, len < len2 ? len : len2) == 0, d2.message);
    REQUIRE(tool_profile_parse(text, size, FILE_NAME, &p, NULL, NULL) == s);
    REQUIRE(all_zero(&p, sizeof p));
    return 0;
}
