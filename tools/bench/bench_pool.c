/* SPDX-License-Identifier: MIT */
/* sluice bench pool: the page pool's request bookkeeping at 1k, 64k and 1M
 * pages on the host backend, against a naive pool in the same run.
 *
 * The naive pool keeps the same state in plain arrays and finds its victim
 * by scanning every page for the least recently used one that is safe to
 * evict (or the smallest priority key): O(n) an eviction, against the
 * pool's O(1) list head (LRU) or lowest non-empty bucket (priority). Its lookup is the
 * same direct chunk map and its touch a plain store of two numbers, so
 * those rows show what the pool's O(1) list upkeep costs at touch time.
 *
 * An "op":
 * - acquire: a request that misses and evicts: slc_pool_lookup (a miss) +
 *   slc_pool_acquire + write_begin + write_end of 1 byte (what taking a page
 *   costs the pool; the data copy is not included). Requests walk the chunk
 *   ids round 2n: with LRU every one misses; with the priority policy
 *   chunks of high priority stay, and a request that finds its chunk
 *   resident costs its lookup and is not counted as an op.
 * - lookup: slc_pool_lookup of a random chunk id of 2n (half hit), location
 *   included.
 * - touch: slc_pool_touch of a random resident page.
 * - acquire, lru shuf: the same with LRU after one touch of every page in a
 *   random order. Plain LRU here evicts pages in index order (the requests
 *   walk the chunk ids in order, so each victim's page is the next one in
 *   memory); the priority policy's buckets interleave pages of every
 *   request, so its victims are scattered over the page records, the chunk
 *   map and the store. The shuffled row is LRU on scattered victims too:
 *   the baseline that measures the policy's upkeep rather than the cache.
 * Frames begin and end every n/4 ops (2 frames in flight), inside the timed
 * loop. ns/op is the median over repeats. The naive acquire scans n pages
 * an op, so its op count is capped at large n (printed) to finish in
 * seconds. Before timing, both pools run the same 20000-request sequence at
 * 1k pages and must end with the same chunk in every page: the naive pool
 * is the same policy, only slower. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cli.h"
#include "sluice/host_store.h"
#include "sluice/platform.h"
#include "sluice/pool.h"

#define NONE 0xFFFFFFFFu
enum { FIF = 2, HOST_PAGE_SIZE = 64, REPEATS_MAX = 7, VERIFY_PAGES = 1024, VERIFY_STEPS = 20000 };

#define NEED_ME "sluice bench pool" /* what a failed setup step names */

static void *alloc64(size_t size)
{
    void *p = aligned_alloc(64, (size + 63) & ~(size_t)63);
    cli_need(NEED_ME, p != NULL, "out of memory");
    memset(p, 0, size); /* fault every page in now, as the runtime does at init */
    return p;
}

/* --- the pool on the host backend ------------------------------------------ */

typedef struct real {
    void *store_mem, *pool_mem;
    slc_page_store store;
    slc_pool *pool;
    uint32_t n, next, per_frame, in_frame;
} real;

static void real_begin(real *r)
{
    cli_need(NEED_ME, slc_pool_begin_frame(r->pool, NULL) == SLC_OK, "begin_frame refused");
}

/* One frame boundary every per_frame ops. */
static inline void real_tick(real *r)
{
    if (++r->in_frame == r->per_frame) {
        r->in_frame = 0;
        cli_need(NEED_ME, slc_pool_end_frame(r->pool) == SLC_OK && slc_pool_begin_frame(r->pool, NULL) == SLC_OK,
                 "frame refused");
    }
}

static inline void real_load(real *r, uint32_t chunk, uint8_t lod, uint8_t priority)
{
    slc_pool_request q = {{chunk}, {0}, lod, priority};
    slc_page page;
    void *dst = NULL;
    /* cli_fail, not cli_need: the timed loops call this a few calls deep,
     * past where the analyzer follows cli_need's inline body. */
    if (slc_pool_acquire(r->pool, &q, &page) != SLC_OK || slc_pool_write_begin(r->pool, page, &dst) != SLC_OK) {
        cli_fail(NEED_ME, "acquire refused");
    }
    *(volatile unsigned char *)dst = (unsigned char)chunk;
    cli_need(NEED_ME, slc_pool_write_end(r->pool, page, 1) == SLC_OK, "write_end refused");
}

static void real_init(real *r, uint32_t n, slc_eviction_policy policy)
{
    memset(r, 0, sizeof *r);
    r->n = n;
    r->per_frame = n / 4 > 0 ? n / 4 : 1;
    size_t store_fp = slc_host_store_footprint(n, HOST_PAGE_SIZE);
    r->store_mem = alloc64(SLC_ARENA_FOOTPRINT(store_fp));
    slc_arena *arena;
    cli_need(NEED_ME,
             slc_arena_init(r->store_mem, SLC_ARENA_FOOTPRINT(store_fp), NULL, SLC_BUDGET_NONE, &arena) == SLC_OK &&
                 slc_host_store_init(arena, n, HOST_PAGE_SIZE, &cli_stderr_logger, &r->store) == SLC_OK,
             "host store init failed");
    slc_pool_desc d;
    memset(&d, 0, sizeof d);
    d.page_count = n;
    d.max_chunks = 2 * n;
    d.frames_in_flight = FIF;
    d.log_capacity = 1024;
    d.eviction = policy;
    size_t fp = slc_pool_footprint(&d);
    cli_need(NEED_ME, fp > 0, "bad pool desc");
    r->pool_mem = alloc64(fp);
    cli_need(NEED_ME, slc_pool_init(r->pool_mem, fp, &d, &r->store, &cli_stderr_logger, &r->pool) == SLC_OK,
             "pool init failed");
    real_begin(r);
    for (uint32_t c = 0; c < n; c++) { /* fill: chunks 0 .. n-1 */
        real_load(r, c, (uint8_t)(c % 4), (uint8_t)(c % 8));
        real_tick(r);
    }
    r->next = n;
}

static void real_free(real *r)
{
    free(r->pool_mem);
    free(r->store_mem);
}

static void real_acquire(real *r, size_t ops)
{
    for (size_t i = 0; i < ops;) {
        uint32_t c = r->next;
        r->next = r->next + 1 == 2 * r->n ? 0 : r->next + 1;
        slc_page_info info;
        if (slc_pool_lookup(r->pool, (slc_chunk_id){c}, &info) == SLC_OK) {
            continue; /* still resident: no miss */
        }
        real_load(r, c, (uint8_t)(c % 4), (uint8_t)(c % 8));
        real_tick(r);
        i++;
    }
}

static uint32_t real_lookup(real *r, const uint32_t *chunks, size_t ops)
{
    uint32_t sum = 0;
    for (size_t i = 0; i < ops; i++) {
        slc_page_info info;
        if (slc_pool_lookup(r->pool, (slc_chunk_id){chunks[i]}, &info) == SLC_OK) {
            sum += info.page.index + (uint32_t)info.location.offset;
        }
    }
    return sum;
}

static void real_touch(real *r, const slc_page *pages, size_t ops)
{
    for (size_t i = 0; i < ops; i++) {
        cli_need(NEED_ME, slc_pool_touch(r->pool, pages[i], 1) == SLC_OK, "touch refused");
        real_tick(r);
    }
}

/* --- the naive pool ---------------------------------------------------------- */

typedef struct naive {
    uint32_t n, next, per_frame, in_frame, filled;
    int priority;
    uint32_t *chunk_of; /* page -> chunk */
    uint32_t *map;      /* chunk -> page */
    uint64_t *last;     /* last-used frame */
    uint64_t *stamp;    /* recency */
    uint8_t *lod, *prio;
    uint64_t clock, frame;
} naive;

static void naive_tick(naive *v)
{
    if (++v->in_frame == v->per_frame) {
        v->in_frame = 0;
        v->frame++;
    }
}

/* True when page i comes before page best in the policy's order. */
static int naive_before(const naive *v, uint32_t i, uint32_t best)
{
    if (!v->priority) {
        return v->stamp[i] < v->stamp[best];
    }
    return v->prio[i] != v->prio[best] ? v->prio[i] < v->prio[best]
           : v->lod[i] != v->lod[best] ? v->lod[i] < v->lod[best]
                                       : v->stamp[i] < v->stamp[best]; /* least recently used, as LRU */
}

/* The O(n) scan: the safe page that comes first in the policy's order. */
static uint32_t naive_victim(const naive *v)
{
    uint64_t safe = v->frame >= FIF ? v->frame - FIF : 0;
    uint32_t best = NONE;
    for (uint32_t i = 0; i < v->n; i++) {
        if (v->chunk_of[i] == NONE || v->last[i] > safe) {
            continue;
        }
        if (best == NONE || naive_before(v, i, best)) {
            best = i;
        }
    }
    return best;
}

static void naive_load(naive *v, uint32_t chunk, uint8_t lod, uint8_t prio)
{
    cli_need(NEED_ME, v->map[chunk] == NONE, "naive: chunk already present");
    uint32_t i = v->filled < v->n ? v->filled++ : naive_victim(v);
    cli_need(NEED_ME, i != NONE, "naive: nothing evictable");
    if (v->chunk_of[i] != NONE) {
        v->map[v->chunk_of[i]] = NONE;
    }
    v->chunk_of[i] = chunk;
    v->map[chunk] = i;
    v->lod[i] = lod;
    v->prio[i] = prio;
    v->last[i] = v->frame;
    v->stamp[i] = ++v->clock;
}

static void naive_init(naive *v, uint32_t n, int priority)
{
    memset(v, 0, sizeof *v);
    v->n = n;
    v->priority = priority;
    v->per_frame = n / 4 > 0 ? n / 4 : 1;
    v->frame = 1; /* the pool's first frame */
    v->chunk_of = alloc64(sizeof(uint32_t) * n);
    v->map = alloc64(sizeof(uint32_t) * 2 * n);
    v->last = alloc64(sizeof(uint64_t) * n);
    v->stamp = alloc64(sizeof(uint64_t) * n);
    v->lod = alloc64(n);
    v->prio = alloc64(n);
    memset(v->chunk_of, 0xFF, sizeof(uint32_t) * n);
    memset(v->map, 0xFF, sizeof(uint32_t) * 2 * n);
    for (uint32_t c = 0; c < n; c++) {
        naive_load(v, c, (uint8_t)(c % 4), (uint8_t)(c % 8));
        naive_tick(v);
    }
    v->next = n;
}

static void naive_free(naive *v)
{
    free(v->chunk_of);
    free(v->map);
    free(v->last);
    free(v->stamp);
    free(v->lod);
    free(v->prio);
}

static void naive_acquire(naive *v, size_t ops)
{
    for (size_t i = 0; i < ops;) {
        uint32_t c = v->next;
        v->next = v->next + 1 == 2 * v->n ? 0 : v->next + 1;
        if (v->map[c] != NONE) {
            continue;
        }
        naive_load(v, c, (uint8_t)(c % 4), (uint8_t)(c % 8));
        naive_tick(v);
        i++;
    }
}

static uint32_t naive_lookup(const naive *v, const uint32_t *chunks, size_t ops)
{
    uint32_t sum = 0;
    for (size_t i = 0; i < ops; i++) {
        uint32_t p = v->map[chunks[i]];
        if (p != NONE) {
            sum += p + (uint32_t)((uint64_t)p * HOST_PAGE_SIZE); /* the same location arithmetic */
        }
    }
    return sum;
}

static void naive_touch(naive *v, const uint32_t *pages, size_t ops)
{
    for (size_t i = 0; i < ops; i++) {
        v->last[pages[i]] = v->frame;
        v->stamp[pages[i]] = ++v->clock;
        v->prio[pages[i]] = 1;
        naive_tick(v);
    }
}

/* --- the same policy, checked ------------------------------------------------ */

/* A mix of misses and touches on both pools; every page must end up holding
 * the same chunk. Returns 1 when they agree. */
static int verify_same_decisions(slc_eviction_policy policy)
{
    real r;
    naive v;
    real_init(&r, VERIFY_PAGES, policy);
    naive_init(&v, VERIFY_PAGES, policy == SLC_EVICTION_PRIORITY);
    uint64_t seed = 0x243F6A8885A308D3u;
    for (int s = 0; s < VERIFY_STEPS; s++) {
        uint32_t c = (uint32_t)(bench_xorshift64(&seed) % (2u * (uint64_t)VERIFY_PAGES));
        slc_page_info info;
        if (slc_pool_lookup(r.pool, (slc_chunk_id){c}, &info) == SLC_OK) {
            cli_need(NEED_ME, v.map[c] == info.page.index, "the naive pool disagrees on a lookup");
            cli_need(NEED_ME, slc_pool_touch(r.pool, info.page, 1) == SLC_OK, "touch refused");
            naive_touch(&v, &v.map[c], 1);
            real_tick(&r);
        } else {
            cli_need(NEED_ME, v.map[c] == NONE, "the naive pool disagrees on a miss");
            real_load(&r, c, (uint8_t)(c % 4), (uint8_t)(c % 8));
            real_tick(&r);
            naive_load(&v, c, (uint8_t)(c % 4), (uint8_t)(c % 8));
            naive_tick(&v);
        }
    }
    int same = 1;
    for (uint32_t i = 0; i < VERIFY_PAGES; i++) {
        slc_page_info info;
        slc_pool_get_page(r.pool, i, &info);
        same &= info.chunk.index == v.chunk_of[i];
    }
    real_free(&r);
    naive_free(&v);
    return same;
}

/* --- timing ------------------------------------------------------------------ */

typedef struct row {
    const char *op;
    uint32_t pages;
    double ns, naive_ns;
    size_t ops, naive_ops;
} row;

#define TIME_MEDIAN(out, repeats, ops, body)                                   \
    do {                                                                       \
        double reps_[REPEATS_MAX] = {0};                                       \
        for (size_t r_ = 0; r_ < (repeats); r_++) {                            \
            uint64_t t0_ = slc_platform_now_ns();                              \
            body;                                                              \
            reps_[r_] = (double)(slc_platform_now_ns() - t0_) / (double)(ops); \
        }                                                                      \
        qsort(reps_, (repeats), sizeof reps_[0], cli_cmp_double);              \
        (out) = reps_[(repeats) / 2];                                          \
    } while (0)

static volatile uint32_t sink;

/* Touches every page of both pools once, in the same random order, so that
 * LRU's list (and the naive stamps) follow no page order: from then on its
 * victims are as scattered over the page records as the priority policy's,
 * whose buckets interleave the pages of every request. */
static void shuffle_recency(real *r, naive *v, uint64_t seed)
{
    uint32_t *order = malloc(sizeof(uint32_t) * r->n);
    slc_page *pages = malloc(sizeof(slc_page) * r->n);
    cli_need(NEED_ME, order != NULL && pages != NULL, "out of memory");
    for (uint32_t i = 0; i < r->n; i++) {
        order[i] = i;
    }
    for (uint32_t i = r->n - 1; i > 0; i--) { /* Fisher-Yates */
        uint32_t j = (uint32_t)(bench_xorshift64(&seed) % ((uint64_t)i + 1));
        uint32_t t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (uint32_t i = 0; i < r->n; i++) {
        slc_page_info info;
        slc_pool_get_page(r->pool, order[i], &info);
        cli_need(NEED_ME, info.state == SLC_PAGE_RESIDENT, "a page is not resident");
        pages[i] = info.page;
    }
    real_touch(r, pages, r->n);
    naive_touch(v, order, r->n);
    free(order);
    free(pages);
}

/* The acquire row of one pool and its naive twin, from a steady state. */
static void time_acquire(row *a, real *r, naive *v, size_t repeats, size_t ops, size_t naive_ops)
{
    a->pages = r->n;
    a->ops = ops;
    a->naive_ops = naive_ops;
    real_acquire(r, ops / 10); /* warm up: steady state */
    naive_acquire(v, naive_ops / 4 + 1);
    TIME_MEDIAN(a->ns, repeats, ops, real_acquire(r, ops));
    TIME_MEDIAN(a->naive_ns, repeats, naive_ops, naive_acquire(v, naive_ops));
}

static size_t bench_size(uint32_t n, int quick, size_t repeats, row *rows)
{
    const size_t ops = quick ? 100000 : 1000000;
    /* The naive scan visits n pages an op: about 40M visits a repeat. */
    size_t naive_ops = (size_t)(quick ? 10000000u : 40000000u) / n;
    naive_ops = naive_ops < 16 ? 16 : naive_ops > ops ? ops : naive_ops;
    size_t count = 0;

    {
        real r;
        naive v;
        real_init(&r, n, SLC_EVICTION_LRU);
        naive_init(&v, n, 0);
        shuffle_recency(&r, &v, 0xD1B54A32D192ED03u ^ n);
        row *a = &rows[count++];
        a->op = "acquire, lru shuf";
        time_acquire(a, &r, &v, repeats, ops, naive_ops);
        real_free(&r);
        naive_free(&v);
    }
    for (int policy = 0; policy < 2; policy++) {
        real r;
        naive v;
        real_init(&r, n, (slc_eviction_policy)policy);
        naive_init(&v, n, policy);
        row *a = &rows[count++];
        a->op = policy ? "acquire, priority" : "acquire, lru";
        time_acquire(a, &r, &v, repeats, ops, naive_ops);
        if (policy == 1) {
            real_free(&r);
            naive_free(&v);
            break;
        }
        /* lookup and touch on the LRU pools, as they stand. */
        uint32_t *chunks = malloc(sizeof(uint32_t) * ops);
        slc_page *pages = malloc(sizeof(slc_page) * ops);
        uint32_t *naive_pages = malloc(sizeof(uint32_t) * ops);
        cli_need(NEED_ME, chunks != NULL && pages != NULL && naive_pages != NULL, "out of memory");
        uint64_t seed = 0x9E3779B97F4A7C15u ^ n;
        for (size_t i = 0; i < ops; i++) {
            chunks[i] = (uint32_t)(bench_xorshift64(&seed) % (2 * (uint64_t)n));
        }
        /* Touch targets: random resident pages, the same set for both. */
        for (size_t i = 0; i < ops; i++) {
            uint32_t p = (uint32_t)(bench_xorshift64(&seed) % n);
            slc_page_info info;
            slc_pool_get_page(r.pool, p, &info);
            cli_need(NEED_ME, info.state == SLC_PAGE_RESIDENT, "a page is not resident");
            pages[i] = info.page;
            naive_pages[i] = p;
        }
        row *l = &rows[count++], *t = &rows[count++];
        l->op = "lookup";
        t->op = "touch";
        l->pages = t->pages = n;
        l->ops = t->ops = l->naive_ops = t->naive_ops = ops;
        TIME_MEDIAN(l->ns, repeats, ops, sink += real_lookup(&r, chunks, ops));
        TIME_MEDIAN(l->naive_ns, repeats, ops, sink += naive_lookup(&v, chunks, ops));
        TIME_MEDIAN(t->ns, repeats, ops, real_touch(&r, pages, ops));
        TIME_MEDIAN(t->naive_ns, repeats, ops, naive_touch(&v, naive_pages, ops));
        cli_need(NEED_ME, slc_pool_check(r.pool), "the pool's invariants broke");
        free(chunks);
        free(pages);
        free(naive_pages);
        real_free(&r);
        naive_free(&v);
    }
    return count;
}

int bench_pool(int argc, char **argv)
{
    int quick = 0;
    const cli_opt table[] = {
        {.name = "--quick", .kind = CLI_OPT_FLAG, .dest = &quick, .help = "1k and 64k pages, fewer repeats"}};
    size_t operands = 0;
    const cli_args spec = {.me = "sluice bench pool",
                           .opts = table,
                           .count = 1,
                           .operand_count = &operands,
                           .usage = "usage: sluice bench pool [--quick]\n",
                           .usage_after = CLI_ARGS_ALL,
                           .help_column = 14};
    if (cli_wants_help(argc, argv)) {
        return bench_help(&spec, "usage: sluice bench pool [--quick]\n\n"
                                 "Page pool acquire, lookup and touch at 1k, 64k and 1M pages (host backend)\n"
                                 "against a pool that scans every page for its victim, after checking that\n"
                                 "both make the same decisions.\n\n");
    }
    if (cli_args_parse(&spec, argc, argv) != CLI_OK) {
        return CLI_USAGE;
    }
    static const uint32_t sizes[] = {1024, 65536, 1048576};
    const size_t size_count = quick ? 2 : 3, repeats = quick ? 3 : 5;
    int same_lru = verify_same_decisions(SLC_EVICTION_LRU);
    int same_prio = verify_same_decisions(SLC_EVICTION_PRIORITY);
    cli_need(NEED_ME, same_lru && same_prio, "the pool and the naive scan made different decisions");

    row rows[3 * 5];
    size_t count = 0;
    for (size_t s = 0; s < size_count; s++) {
        count += bench_size(sizes[s], quick, repeats, rows + count);
    }
    printf("sluice bench pool%s: host backend, %d frames in flight, a frame every pages/4 ops;\n"
           "ns/op = median of %zu repeats. naive = the same policy finding its victim by an O(n) scan\n"
           "(same decisions: checked on %d requests at %d pages, lru and priority).\n\n",
           quick ? " --quick" : "", FIF, repeats, VERIFY_STEPS, VERIFY_PAGES);
    printf("%-18s %8s %12s %12s %12s %10s %10s\n", "operation", "pages", "sluice ns/op", "naive ns/op", "naive/sluice",
           "ops", "naive ops");
    for (size_t i = 0; i < count; i++) {
        const row *r = &rows[i];
        printf("%-18s %8u %12.1f %12.1f %11.2fx %10zu %10zu\n", r->op, r->pages, r->ns, r->naive_ns,
               r->naive_ns / r->ns, r->ops, r->naive_ops);
    }
    printf("\npriority/lru acquire:");
    for (size_t i = 0; i < count; i++) {
        if (strcmp(rows[i].op, "acquire, priority") == 0) {
            const row *shuf = &rows[i - 4], *lru = &rows[i - 3];
            printf(" %u pages %.2fx (lru shuf %.2fx)", rows[i].pages, rows[i].ns / lru->ns, rows[i].ns / shuf->ns);
        }
    }
    printf("\n\nacquire = a request that misses and evicts: lookup + acquire + write_begin + write_end of 1 byte\n"
           "(no data copy). lru shuf: LRU after a touch of every page in a random order, so that its victims\n"
           "are as scattered over the page records as the priority policy's (plain lru takes pages in index\n"
           "order here, since the requests walk the chunk ids in order).\n"
           "naive/sluice above 1: the pool is faster. The naive touch is three stores; the pool's also keeps\n"
           "the LRU list (or leaves its priority bucket), which is what makes its eviction O(1).\n");
    return CLI_OK;
}
