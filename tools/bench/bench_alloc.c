/* SPDX-License-Identifier: MIT */
/* sluice bench alloc: what the runtime's allocators cost on this machine, each
 * against glibc malloc/free doing the same work in the same run.
 *
 * An "op" is one allocation and its release: a reserve+release pair; an arena
 * alloc with its share of the reset that ends each round of 1024; a pool
 * alloc with its free. ns/op is the median over repeats of whole batches.
 * Latency is per call instead: every alloc, free, reset, reserve and release
 * timed alone, so p99.9 and max include the timer's overhead, printed first.
 * Seeds are fixed, so two runs do the same work. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cli.h"
#include "sluice/platform.h"

#if defined(__GNUC__)
#define BENCH_INLINE static inline __attribute__((always_inline))
#else
#define BENCH_INLINE static inline
#endif

enum {
    ROUND = 1024,
    SIZE_COUNT = 4 * ROUND,
    SIZE_LO = 16,
    SIZE_HI = 4096,
    ALIGN = 16,
    META_BYTES = 64,
    BLOCK = 256,
    REPEATS_MAX = 15
};
#define ARENA_CAPACITY ((size_t)8 << 20) /* > 1024 * (4096 + 15): a round always fits */

typedef struct bench {
    slc_budgets *budgets;
    slc_budget_id meta;
    slc_arena *arena;
    slc_arena_mark mark;
    slc_block_pool *pool;
    slc_arena *arena_free; /* the same, charged to no budget: what charging costs */
    slc_arena_mark mark_free;
    slc_block_pool *pool_free;
    uint32_t sizes[SIZE_COUNT]; /* the mixed sizes, shared by the arena and its baseline */
    uint16_t order[ROUND];      /* the shuffled free order, shared by the pool and its baseline */
    void *ptrs[ROUND];
} bench;

#define NEED_ME "sluice bench" /* what a failed setup step names */

/* One byte written into what an allocator returned, runtime and baseline alike. */
static inline void touch(void *p, size_t i)
{
    *(volatile unsigned char *)p = (unsigned char)i;
}

static inline uint32_t clamp32(uint64_t v)
{
    return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/* Runs stmt; with lat (a constant NULL in batch mode, folded away), times it alone. */
#define CALL(lat, n, stmt)                                       \
    do {                                                         \
        if (lat) {                                               \
            uint64_t t0_ = slc_platform_now_ns();                \
            stmt;                                                \
            (lat)[(n)++] = clamp32(slc_platform_now_ns() - t0_); \
        } else {                                                 \
            stmt;                                                \
        }                                                        \
    } while (0)

BENCH_INLINE size_t run_reserve(bench *b, size_t rounds, uint32_t *lat)
{
    size_t n = 0;
    for (size_t r = 0; r < rounds; r++) {
        for (size_t i = 0; i < ROUND; i++) {
            slc_status s;
            CALL(lat, n, s = slc_budgets_reserve(b->budgets, b->meta, META_BYTES, NULL));
            cli_need(NEED_ME, s == SLC_OK, "reservation refused");
            CALL(lat, n, slc_budgets_release(b->budgets, b->meta, META_BYTES));
        }
    }
    return n;
}

BENCH_INLINE size_t run_malloc64(bench *b, size_t rounds, uint32_t *lat)
{
    size_t n = 0;
    (void)b;
    for (size_t r = 0; r < rounds; r++) {
        for (size_t i = 0; i < ROUND; i++) {
            void *p;
            CALL(lat, n, p = malloc(META_BYTES));
            cli_need(NEED_ME, p != NULL, "out of memory");
            touch(p, i);
            CALL(lat, n, free(p));
        }
    }
    return n;
}

BENCH_INLINE size_t run_arena_on(bench *b, size_t rounds, uint32_t *lat, slc_arena *arena, slc_arena_mark mark)
{
    size_t n = 0;
    for (size_t r = 0; r < rounds; r++) {
        const uint32_t *sz = &b->sizes[(r % (SIZE_COUNT / ROUND)) * ROUND];
        for (size_t i = 0; i < ROUND; i++) {
            void *p;
            slc_status s;
            CALL(lat, n, s = slc_arena_alloc(arena, sz[i], ALIGN, &p));
            cli_need(NEED_ME, s == SLC_OK, "arena allocation failed");
            touch(p, i);
        }
        CALL(lat, n, slc_arena_reset(arena, mark));
    }
    return n;
}

BENCH_INLINE size_t run_arena(bench *b, size_t rounds, uint32_t *lat)
{
    return run_arena_on(b, rounds, lat, b->arena, b->mark);
}

BENCH_INLINE size_t run_arena_free(bench *b, size_t rounds, uint32_t *lat)
{
    return run_arena_on(b, rounds, lat, b->arena_free, b->mark_free);
}

/* The baselines of the arena (mixed: the arena's sizes, freed in order) and of
 * the pool (256 bytes, freed in the pool's shuffled order). */
BENCH_INLINE size_t run_malloc_round(bench *b, size_t rounds, uint32_t *lat, int mixed)
{
    size_t n = 0;
    for (size_t r = 0; r < rounds; r++) {
        const uint32_t *sz = &b->sizes[(r % (SIZE_COUNT / ROUND)) * ROUND];
        for (size_t i = 0; i < ROUND; i++) {
            CALL(lat, n, b->ptrs[i] = malloc(mixed ? sz[i] : BLOCK));
            cli_need(NEED_ME, b->ptrs[i] != NULL, "out of memory");
            touch(b->ptrs[i], i);
        }
        for (size_t i = 0; i < ROUND; i++) {
            CALL(lat, n, free(b->ptrs[mixed ? i : b->order[i]]));
        }
    }
    return n;
}

BENCH_INLINE size_t run_malloc_mixed(bench *b, size_t rounds, uint32_t *lat)
{
    return run_malloc_round(b, rounds, lat, 1);
}

BENCH_INLINE size_t run_pool_on(bench *b, size_t rounds, uint32_t *lat, slc_block_pool *pool)
{
    size_t n = 0;
    for (size_t r = 0; r < rounds; r++) {
        for (size_t i = 0; i < ROUND; i++) {
            slc_status s;
            CALL(lat, n, s = slc_block_pool_alloc(pool, &b->ptrs[i]));
            cli_need(NEED_ME, s == SLC_OK, "pool allocation failed");
            touch(b->ptrs[i], i);
        }
        for (size_t i = 0; i < ROUND; i++) {
            CALL(lat, n, slc_block_pool_free(pool, b->ptrs[b->order[i]]));
        }
    }
    return n;
}

BENCH_INLINE size_t run_pool(bench *b, size_t rounds, uint32_t *lat)
{
    return run_pool_on(b, rounds, lat, b->pool);
}

BENCH_INLINE size_t run_pool_free(bench *b, size_t rounds, uint32_t *lat)
{
    return run_pool_on(b, rounds, lat, b->pool_free);
}

BENCH_INLINE size_t run_malloc256(bench *b, size_t rounds, uint32_t *lat)
{
    return run_malloc_round(b, rounds, lat, 0);
}

/* Each case twice: untimed calls for batches, timed calls for latency. */
#define BENCH_PAIR(name)                                             \
    static void name##_batch(bench *b, size_t rounds)                \
    {                                                                \
        (void)name(b, rounds, NULL);                                 \
    }                                                                \
    static size_t name##_lat(bench *b, size_t rounds, uint32_t *lat) \
    {                                                                \
        return name(b, rounds, lat);                                 \
    }
BENCH_PAIR(run_reserve)
BENCH_PAIR(run_malloc64)
BENCH_PAIR(run_arena)
BENCH_PAIR(run_malloc_mixed)
BENCH_PAIR(run_pool)
BENCH_PAIR(run_arena_free)
BENCH_PAIR(run_pool_free)
BENCH_PAIR(run_malloc256)

typedef struct bench_case {
    const char *label, *key;
    int baseline; /* 1: the malloc baseline of the cases above it, up to the previous baseline */
    void (*batch)(bench *, size_t);
    size_t (*lat)(bench *, size_t, uint32_t *);
} bench_case;

static const bench_case cases[] = {
    {"budget reserve+release, depth 1", "budget_reserve_release", 0, run_reserve_batch, run_reserve_lat},
    {"  malloc(64)+free", "malloc64_free", 1, run_malloc64_batch, run_malloc64_lat},
    {"arena alloc 16..4096 B, reset/1024", "arena_alloc_mixed", 0, run_arena_batch, run_arena_lat},
    {"  same, arena charged to no budget", "arena_alloc_mixed_uncharged", 0, run_arena_free_batch, run_arena_free_lat},
    {"  malloc 16..4096 B, free all/1024", "malloc_mixed_free", 1, run_malloc_mixed_batch, run_malloc_mixed_lat},
    {"block pool 256 B, shuffled free", "pool_alloc_free_256", 0, run_pool_batch, run_pool_lat},
    {"  same, pool charged to no budget", "pool_alloc_free_256_uncharged", 0, run_pool_free_batch, run_pool_free_lat},
    {"  malloc(256), shuffled free", "malloc256_free", 1, run_malloc256_batch, run_malloc256_lat},
};
enum { CASES = sizeof cases / sizeof cases[0] };

typedef struct result {
    double ns_per_op;
    uint32_t p999, max;
} result;

/* Sorts the samples; fills p99.9 (nearest rank) and max. */
static void tail(uint32_t *lat, size_t n, result *out)
{
    qsort(lat, n, sizeof *lat, cli_cmp_u32);
    out->p999 = lat[(n * 999 + 999) / 1000 - 1];
    out->max = lat[n - 1];
}

static void *alloc64(size_t size)
{
    void *p = aligned_alloc(64, (size + 63) & ~(size_t)63);
    cli_need(NEED_ME, p != NULL, "out of memory");
    memset(p, 0, size); /* fault every page in now, as slc_memory_init does */
    return p;
}

/* sluice bench alloc: every figure, as a table or (json) JSON. */
static int alloc_measure(int quick, int json)
{
    const size_t repeats = quick ? 5 : REPEATS_MAX, rounds = quick ? 20 : 196, lat_rounds = quick ? 98 : 977;
    const size_t batch_ops = rounds * ROUND, lat_ops = lat_rounds * ROUND;

    static bench b;
    const slc_budget_desc descs[] = {{"cpu", 64u << 20, SLC_BUDGET_NONE_INDEX},
                                     {"cpu/meta", 1u << 20, 0},
                                     {"cpu/scratch", 16u << 20, 0},
                                     {"cpu/pool", 1u << 20, 0}};
    size_t fp = slc_budgets_footprint(4, 1), arena_fp = SLC_ARENA_FOOTPRINT(ARENA_CAPACITY);
    size_t pool_fp = slc_block_pool_footprint(BLOCK, ALIGN, ROUND);
    void *bmem = alloc64(fp), *amem = alloc64(arena_fp), *pmem = alloc64(pool_fp);
    void *amem_free = alloc64(arena_fp), *pmem_free = alloc64(pool_fp);
    slc_budget_id scratch, pool;
    cli_need(NEED_ME,
             slc_budgets_init(bmem, fp, descs, 4, 1, &cli_stderr_logger, &b.budgets) == SLC_OK &&
                 slc_budgets_scan(b.budgets, "cpu/meta", &b.meta) == SLC_OK &&
                 slc_budgets_scan(b.budgets, "cpu/scratch", &scratch) == SLC_OK &&
                 slc_budgets_scan(b.budgets, "cpu/pool", &pool) == SLC_OK &&
                 slc_arena_init(amem, arena_fp, b.budgets, scratch, &b.arena) == SLC_OK &&
                 slc_block_pool_init(pmem, pool_fp, BLOCK, ALIGN, b.budgets, pool, &b.pool) == SLC_OK &&
                 slc_arena_init(amem_free, arena_fp, NULL, SLC_BUDGET_NONE, &b.arena_free) == SLC_OK &&
                 slc_block_pool_init(pmem_free, pool_fp, BLOCK, ALIGN, NULL, SLC_BUDGET_NONE, &b.pool_free) == SLC_OK,
             "setting up the budgets, arena or pool failed");
    b.mark = slc_arena_get_mark(b.arena);
    b.mark_free = slc_arena_get_mark(b.arena_free);
    uint64_t seed = 0x9E3779B97F4A7C15u;
    for (size_t i = 0; i < SIZE_COUNT; i++) {
        b.sizes[i] = (uint32_t)(SIZE_LO + bench_xorshift64(&seed) % (SIZE_HI - SIZE_LO + 1));
    }
    for (size_t i = 0; i < ROUND; i++) {
        b.order[i] = (uint16_t)i;
    }
    for (size_t i = ROUND - 1; i > 0; i--) { /* Fisher-Yates */
        size_t j = (size_t)(bench_xorshift64(&seed) % (i + 1));
        uint16_t t = b.order[i];
        b.order[i] = b.order[j];
        b.order[j] = t;
    }

    /* Two timed calls per op at most, plus the arena's resets. */
    uint32_t *lat = alloc64(2 * lat_ops * sizeof *lat);
    result timer;
    for (size_t i = 0; i < lat_ops; i++) {
        uint64_t t0 = slc_platform_now_ns();
        lat[i] = clamp32(slc_platform_now_ns() - t0);
    }
    tail(lat, lat_ops, &timer);
    uint32_t timer_median = lat[lat_ops / 2], timer_p999 = timer.p999;

    /* Repeats go round the cases, so a noisy spell on a shared machine falls
     * on every case alike rather than on one of them. */
    result res[CASES];
    double reps[CASES][REPEATS_MAX];
    for (size_t c = 0; c < CASES; c++) {
        cases[c].batch(&b, rounds); /* warm-up */
    }
    for (size_t r = 0; r < repeats; r++) {
        for (size_t c = 0; c < CASES; c++) {
            uint64_t t0 = slc_platform_now_ns();
            cases[c].batch(&b, rounds);
            reps[c][r] = (double)(slc_platform_now_ns() - t0) / (double)batch_ops;
        }
    }
    for (size_t c = 0; c < CASES; c++) {
        qsort(reps[c], repeats, sizeof reps[c][0], cli_cmp_double);
        res[c].ns_per_op = reps[c][repeats / 2];
        tail(lat, cases[c].lat(&b, lat_rounds, lat), &res[c]);
    }

    if (json) {
        printf("{\"repeats\": %zu, \"batch_ops\": %zu, \"latency_ops\": %zu, \"timer_overhead_ns\": "
               "{\"median\": %u, \"p99_9\": %u},\n \"results\": [\n",
               repeats, batch_ops, lat_ops, timer_median, timer_p999);
    } else {
        printf("sluice bench alloc%s: ns/op = median of %zu repeats of %zu ops (%zu rounds of %d)\n",
               quick ? " --quick" : "", repeats, batch_ops, rounds, ROUND);
        printf("latency: %zu ops, each call (alloc, free, reset, reserve, release) timed alone\n", lat_ops);
        printf("timer overhead (empty timed region): median %u ns, p99.9 %u ns; included in p99.9 and max\n\n",
               timer_median, timer_p999);
        printf("%-36s %9s %10s %10s %10s\n", "operation", "ns/op", "vs malloc", "p99.9 ns", "max ns");
    }
    for (size_t c = 0; c < CASES; c++) {
        size_t base = c;
        while (base < CASES && !cases[base].baseline) {
            base++;
        }
        int has_base = !cases[c].baseline && base < CASES;
        double ratio = has_base ? res[base].ns_per_op / res[c].ns_per_op : 0.0;
        if (json) {
            printf("  {\"op\": \"%s\", \"ns_per_op\": %.2f, ", cases[c].key, res[c].ns_per_op);
            if (has_base) {
                printf("\"baseline\": \"%s\", \"vs_malloc\": %.2f, ", cases[base].key, ratio);
            }
            printf("\"p99_9_ns\": %u, \"max_ns\": %u}%s\n", res[c].p999, res[c].max, c + 1 < CASES ? "," : "");
        } else {
            char rs[32] = "";
            if (has_base) {
                snprintf(rs, sizeof rs, "%.2fx", ratio);
            }
            printf("%-36s %9.2f %10s %10u %10u\n", cases[c].label, res[c].ns_per_op, rs, res[c].p999, res[c].max);
        }
    }
    fputs(json ? " ]}\n" : "\nvs malloc = malloc ns/op / sluice ns/op (above 1: sluice is faster)\n", stdout);
    /* Every round gave back what it took: nothing stays charged. */
    slc_budget_stats root;
    slc_budgets_get(b.budgets, (slc_budget_id){0}, &root);
    cli_need(NEED_ME, slc_budgets_check(b.budgets) && root.current == 0, "budgets left unbalanced");
    free(lat);
    free(pmem);
    free(amem);
    free(pmem_free);
    free(amem_free);
    free(bmem);
    return CLI_OK;
}

int bench_alloc(int argc, char **argv)
{
    int quick = 0, json = 0;
    const cli_opt table[] = {
        {.name = "--quick",
         .kind = CLI_OPT_FLAG,
         .dest = &quick,
         .help = "fewer repeats (a smoke run, not a measurement)"},
        {.name = "--json", .kind = CLI_OPT_FLAG, .dest = &json, .help = "the figures as JSON on stdout"},
    };
    size_t operands = 0;
    const cli_args spec = {.me = "sluice bench alloc",
                           .opts = table,
                           .count = sizeof table / sizeof table[0],
                           .operand_count = &operands,
                           .help_column = 14}; /* any error: the usage below */
    if (cli_wants_help(argc, argv)) {
        return bench_help(&spec, "usage: sluice bench alloc [--quick] [--json]\n\n"
                                 "Budget reserve/release, arena and block-pool costs against glibc malloc/free,\n"
                                 "measured in the same run.\n\n");
    }
    if (cli_args_parse(&spec, argc, argv) != CLI_OK) {
        return BENCH_USAGE_ALL;
    }
    return alloc_measure(quick, json);
}
