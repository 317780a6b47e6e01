/* SPDX-License-Identifier: MIT */
/* The TLSF heap: alignment, budget charging, merging, realloc in place and
 * by moving, exhaustion and refusals that change nothing, the invariant
 * checker, a seeded model check against a list of live blocks, and a
 * threaded stress (run under TSan by the tsan preset). */
#include <pthread.h>

#include "test_util.h"

#define CAP (64u * 1024u)
static _Alignas(64) unsigned char mem[SLC_HEAP_FOOTPRINT(CAP)];
static _Alignas(64) unsigned char bmem[SLC_BUDGETS_FOOTPRINT(2, 2)];

enum { CPU, DRIVER };

static slc_budgets *budgets(uint64_t driver_limit)
{
    slc_budget_desc tree[] = {{"cpu", 1u << 30, SLC_BUDGET_NONE_INDEX}, {"cpu/driver", driver_limit, CPU}};
    slc_budgets *b;
    assert_int_equal(slc_budgets_init(bmem, sizeof bmem, tree, 2, 2, NULL, &b), SLC_OK);
    return b;
}

static uint64_t charged(slc_budgets *b)
{
    slc_budget_stats s;
    slc_budgets_get(b, (slc_budget_id){DRIVER}, &s);
    return s.current;
}

static uint64_t peak(slc_budgets *b)
{
    slc_budget_stats s;
    slc_budgets_get(b, (slc_budget_id){DRIVER}, &s);
    return s.peak;
}

static slc_heap *heap(slc_budgets *b)
{
    slc_heap *h;
    assert_int_equal(slc_heap_init(mem, sizeof mem, b, (slc_budget_id){DRIVER}, &h), SLC_OK);
    assert_true(slc_heap_check(h));
    return h;
}

static slc_heap_stats stats(slc_heap *h)
{
    slc_heap_stats s;
    slc_heap_get_stats(h, &s);
    return s;
}

static void fill(void *p, size_t n, unsigned char seed)
{
    unsigned char *c = p;
    for (size_t i = 0; i < n; i++) {
        c[i] = (unsigned char)(seed + i * 7u);
    }
}

static int holds(const void *p, size_t n, unsigned char seed)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++) {
        if (c[i] != (unsigned char)(seed + i * 7u)) {
            return 0;
        }
    }
    return 1;
}

static void test_init_refuses_bad_memory(void **state)
{
    (void)state;
    slc_heap *h = (slc_heap *)1;
    assert_int_equal(slc_heap_init(NULL, sizeof mem, NULL, SLC_BUDGET_NONE, &h), SLC_E_BLOCK_NULL);
    assert_null(h);
    assert_int_equal(slc_heap_init(mem + 16, sizeof mem - 64, NULL, SLC_BUDGET_NONE, &h), SLC_E_BLOCK_MISALIGNED);
    assert_int_equal(slc_heap_init(mem, SLC_HEAP_FOOTPRINT(SLC_HEAP_MIN_BLOCK) - 1, NULL, SLC_BUDGET_NONE, &h),
                     SLC_E_BLOCK_TOO_SMALL);
    assert_int_equal(slc_heap_init(mem, SLC_HEAP_FOOTPRINT(SLC_HEAP_MIN_BLOCK), NULL, SLC_BUDGET_NONE, &h), SLC_OK);
    assert_int_equal(stats(h).capacity, SLC_HEAP_MIN_BLOCK);
    void *p;
    assert_int_equal(slc_heap_alloc(h, SLC_HEAP_MIN_BLOCK - SLC_HEAP_BLOCK_OVERHEAD, 1, &p), SLC_OK);
    assert_int_equal(slc_heap_alloc(h, 1, 1, &p), SLC_E_CAPACITY);
    assert_true(slc_heap_check(h));
}

static void test_footprint_gives_the_capacity(void **state)
{
    (void)state;
    slc_heap *h;
    assert_int_equal(slc_heap_init(mem, sizeof mem, NULL, SLC_BUDGET_NONE, &h), SLC_OK);
    slc_heap_stats s = stats(h);
    assert_int_equal(s.capacity, CAP);
    assert_int_equal(s.free_blocks, 1);
    /* The whole capacity is one block: the largest request takes all of it. */
    void *p;
    assert_int_equal(slc_heap_alloc(h, CAP - SLC_HEAP_BLOCK_OVERHEAD, 1, &p), SLC_OK);
    assert_int_equal(stats(h).used, CAP);
    assert_int_equal(stats(h).free_blocks, 0);
    slc_heap_free(h, p);
    assert_int_equal(stats(h).free_blocks, 1);
    assert_int_equal(slc_heap_alloc(h, CAP - SLC_HEAP_BLOCK_OVERHEAD + 1, 1, &p), SLC_E_CAPACITY);
    assert_true(slc_heap_check(h));
}

static void test_alloc_aligns_and_charges_block_sizes(void **state)
{
    (void)state;
    slc_budgets *b = budgets(CAP);
    slc_heap *h = heap(b);
    void *p[16];
    size_t expect = 0;
    for (unsigned i = 0; i < 16; i++) {
        size_t n = 1u + i * 37u;
        assert_int_equal(slc_heap_alloc(h, n, 1, &p[i]), SLC_OK);
        assert_int_equal((uintptr_t)p[i] % SLC_HEAP_GRANULE, 0);
        assert_true(slc_heap_get_usable_size(h, p[i]) >= n);
        expect += SLC_HEAP_BLOCK_SIZE(n);
        fill(p[i], n, (unsigned char)i);
        assert_true(slc_heap_check(h));
    }
    assert_int_equal(stats(h).used, expect);
    assert_int_equal(charged(b), expect);
    for (unsigned i = 0; i < 16; i++) {
        assert_true(holds(p[i], 1u + i * 37u, (unsigned char)i));
    }
    /* Every power-of-two alignment up to the maximum. */
    for (size_t align = 1; align <= SLC_HEAP_MAX_ALIGN; align *= 2) {
        void *q;
        assert_int_equal(slc_heap_alloc(h, 24, align, &q), SLC_OK);
        assert_int_equal((uintptr_t)q % align, 0);
        assert_true(slc_heap_check(h));
        fill(q, 24, 9);
        slc_heap_free(h, q);
        assert_true(slc_heap_check(h));
    }
    assert_int_equal(stats(h).used, expect);
    for (unsigned i = 0; i < 16; i++) {
        slc_heap_free(h, p[i]);
    }
    assert_int_equal(stats(h).used, 0);
    assert_int_equal(charged(b), 0);
    assert_int_equal(stats(h).free_blocks, 1); /* the alignment gaps merged back */
    assert_true(peak(b) >= expect);
    assert_true(slc_heap_check(h));
}

static void test_size_zero_gives_unique_pointers(void **state)
{
    (void)state;
    slc_heap *h = heap(NULL);
    void *a, *c;
    assert_int_equal(slc_heap_alloc(h, 0, 1, &a), SLC_OK);
    assert_int_equal(slc_heap_alloc(h, 0, 1, &c), SLC_OK);
    assert_non_null(a);
    assert_ptr_not_equal(a, c);
    assert_int_equal(stats(h).used, 2 * SLC_HEAP_MIN_BLOCK);
    slc_heap_free(h, a);
    slc_heap_free(h, c);
    slc_heap_free(h, NULL); /* does nothing */
    assert_int_equal(stats(h).used, 0);
}

static void test_free_merges_neighbours(void **state)
{
    (void)state;
    slc_heap *h = heap(NULL);
    enum { N = 64 };
    void *p[N];
    for (int i = 0; i < N; i++) {
        assert_int_equal(slc_heap_alloc(h, 1000 - SLC_HEAP_BLOCK_OVERHEAD, 1, &p[i]), SLC_OK); /* 1008-byte blocks */
    }
    /* Free every other block: 32 holes of 1008 bytes, none can merge. */
    for (int i = 0; i < N; i += 2) {
        slc_heap_free(h, p[i]);
    }
    slc_heap_stats s = stats(h);
    assert_int_equal(s.free_blocks, N / 2 + 1); /* the holes and the tail */
    assert_true(slc_heap_check(h));
    size_t tail = CAP - N * 1008u;
    void *q;
    assert_int_equal(slc_heap_alloc(h, tail + 1000, 1, &q), SLC_E_CAPACITY); /* fragmented */
    /* A hole is reused for a request that fits it. */
    assert_int_equal(slc_heap_alloc(h, 900, 1, &q), SLC_OK);
    assert_true((unsigned char *)q < (unsigned char *)p[N - 1]);
    slc_heap_free(h, q);
    /* Freeing the rest merges left and right, down to one block. */
    for (int i = 1; i < N; i += 2) {
        slc_heap_free(h, p[i]);
        assert_true(slc_heap_check(h));
    }
    s = stats(h);
    assert_int_equal(s.free_blocks, 1);
    assert_int_equal(s.live, 0);
    assert_int_equal(slc_heap_alloc(h, CAP - SLC_HEAP_BLOCK_OVERHEAD, 1, &q), SLC_OK);
}

static void test_exhaustion_changes_nothing(void **state)
{
    (void)state;
    slc_budgets *b = budgets(1u << 20);
    slc_heap *h = heap(b);
    void *p;
    int n = 0;
    while (slc_heap_alloc(h, 4000, 8, &p) == SLC_OK) {
        n++;
    }
    assert_null(p);
    assert_int_equal(n, CAP / 4016);
    slc_heap_stats before = stats(h);
    assert_int_equal(before.refused_capacity, 1);
    assert_int_equal(before.last_refused, 4000);
    assert_int_equal(slc_heap_alloc(h, SIZE_MAX, 1, &p), SLC_E_CAPACITY);
    assert_int_equal(slc_heap_alloc(h, SIZE_MAX - 8, 4096, &p), SLC_E_CAPACITY);
    slc_heap_stats after = stats(h);
    assert_int_equal(after.used, before.used);
    assert_int_equal(after.live, before.live);
    assert_int_equal(after.free_blocks, before.free_blocks);
    assert_int_equal(after.refused_capacity, 3);
    assert_int_equal(charged(b), before.used);
    assert_true(slc_heap_check(h));
}

static void test_budget_refusal_changes_nothing(void **state)
{
    (void)state;
    slc_budgets *b = budgets(4096);
    slc_heap *h = heap(b);
    void *p, *q;
    assert_int_equal(slc_heap_alloc(h, 3000, 1, &p), SLC_OK);
    slc_heap_stats before = stats(h);
    assert_int_equal(slc_heap_alloc(h, 2000, 1, &q), SLC_E_BUDGET_REFUSED);
    assert_null(q);
    slc_heap_stats after = stats(h);
    assert_int_equal(after.used, before.used);
    assert_int_equal(after.free_blocks, before.free_blocks);
    assert_int_equal(after.refused_budget, 1);
    assert_int_equal(after.last_refused, 2000);
    assert_int_equal(after.last_budget_refusal.refused_by.index, DRIVER);
    assert_int_equal(after.last_budget_refusal.requested, SLC_HEAP_BLOCK_SIZE(2000));
    assert_int_equal(after.last_budget_refusal.limit, 4096);
    assert_int_equal(charged(b), SLC_HEAP_BLOCK_SIZE(3000));
    slc_budget_stats bs;
    slc_budgets_get(b, (slc_budget_id){DRIVER}, &bs);
    assert_int_equal(bs.refused, 1);
    assert_true(slc_heap_check(h));
    /* Room again once the first block is back. */
    slc_heap_free(h, p);
    assert_int_equal(slc_heap_alloc(h, 2000, 1, &q), SLC_OK);
}

static void test_realloc_grows_in_place_into_a_free_neighbour(void **state)
{
    (void)state;
    slc_budgets *b = budgets(CAP);
    slc_heap *h = heap(b);
    void *p, *q, *r;
    assert_int_equal(slc_heap_alloc(h, 100, 16, &p), SLC_OK);
    fill(p, 100, 1);
    assert_int_equal(slc_heap_realloc(h, p, 3000, 16, &q), SLC_OK);
    assert_ptr_equal(q, p); /* the rest of the heap was free on its right */
    assert_true(holds(q, 100, 1));
    assert_int_equal(charged(b), SLC_HEAP_BLOCK_SIZE(3000));
    assert_int_equal(stats(h).used, SLC_HEAP_BLOCK_SIZE(3000));
    assert_int_equal(stats(h).reallocs, 1);
    assert_int_equal(stats(h).allocs, 1);
    assert_true(slc_heap_check(h));
    /* A neighbour that is exactly big enough is absorbed whole. */
    assert_int_equal(slc_heap_alloc(h, 500, 1, &r), SLC_OK);
    void *s2;
    assert_int_equal(slc_heap_alloc(h, 500, 1, &s2), SLC_OK);
    slc_heap_free(h, r);
    fill(q, 3000, 2);
    assert_int_equal(slc_heap_realloc(h, q, 3000 + SLC_HEAP_BLOCK_SIZE(500) - 8, 16, &r), SLC_OK);
    assert_ptr_equal(r, q);
    assert_true(holds(r, 3000, 2));
    assert_int_equal(stats(h).used, SLC_HEAP_BLOCK_SIZE(3000) + 2 * SLC_HEAP_BLOCK_SIZE(500));
    assert_true(slc_heap_check(h));
}

static void test_realloc_moves_when_the_neighbour_is_used(void **state)
{
    (void)state;
    slc_budgets *b = budgets(CAP);
    slc_heap *h = heap(b);
    void *p, *wall, *q;
    assert_int_equal(slc_heap_alloc(h, 200, 64, &p), SLC_OK);
    assert_int_equal(slc_heap_alloc(h, 64, 1, &wall), SLC_OK); /* too large for the alignment gap before p */
    assert_true((unsigned char *)wall > (unsigned char *)p);
    fill(p, 200, 3);
    assert_int_equal(slc_heap_realloc(h, p, 5000, 64, &q), SLC_OK);
    assert_ptr_not_equal(q, p);
    assert_int_equal((uintptr_t)q % 64, 0);
    assert_true(holds(q, 200, 3));
    slc_heap_stats s = stats(h);
    assert_int_equal(s.live, 2);
    assert_int_equal(s.reallocs, 1);
    assert_int_equal(s.frees, 1);
    assert_int_equal(charged(b), s.used);
    assert_true(slc_heap_check(h));
    /* The old block is free again and merges with the alignment gap before it. */
    void *again;
    assert_int_equal(slc_heap_alloc(h, 100, 1, &again), SLC_OK);
    assert_true((unsigned char *)again < (unsigned char *)wall);
}

static void test_realloc_shrinks_in_place_and_releases(void **state)
{
    (void)state;
    slc_budgets *b = budgets(CAP);
    slc_heap *h = heap(b);
    void *p, *wall, *q;
    assert_int_equal(slc_heap_alloc(h, 8000, 1, &p), SLC_OK);
    assert_int_equal(slc_heap_alloc(h, 16, 1, &wall), SLC_OK);
    fill(p, 8000, 4);
    assert_int_equal(slc_heap_realloc(h, p, 1000, 1, &q), SLC_OK);
    assert_ptr_equal(q, p);
    assert_true(holds(q, 1000, 4));
    assert_int_equal(charged(b), SLC_HEAP_BLOCK_SIZE(1000) + SLC_HEAP_BLOCK_SIZE(16));
    assert_int_equal(stats(h).free_blocks, 2); /* the released tail, walled off, and the rest */
    assert_true(slc_heap_check(h));
    /* Shrinking by less than a block keeps the block as it is. */
    assert_int_equal(slc_heap_realloc(h, q, 990, 1, &q), SLC_OK);
    assert_int_equal(charged(b), SLC_HEAP_BLOCK_SIZE(1000) + SLC_HEAP_BLOCK_SIZE(16));
    /* A shrink next to a free block merges the tail into it. */
    slc_heap_free(h, wall);
    assert_int_equal(slc_heap_realloc(h, q, 100, 1, &q), SLC_OK);
    assert_int_equal(stats(h).free_blocks, 1);
    assert_true(holds(q, 100, 4));
    assert_true(slc_heap_check(h));
}

static void test_realloc_null_allocates_and_zero_frees(void **state)
{
    (void)state;
    slc_budgets *b = budgets(CAP);
    slc_heap *h = heap(b);
    void *p;
    assert_int_equal(slc_heap_realloc(h, NULL, 64, 32, &p), SLC_OK);
    assert_non_null(p);
    assert_int_equal((uintptr_t)p % 32, 0);
    assert_int_equal(stats(h).live, 1);
    void *q = (void *)1;
    assert_int_equal(slc_heap_realloc(h, p, 0, 32, &q), SLC_OK);
    assert_null(q);
    assert_int_equal(stats(h).live, 0);
    assert_int_equal(charged(b), 0);
}

static void test_realloc_refusal_keeps_the_original(void **state)
{
    (void)state;
    slc_budgets *b = budgets(8192);
    slc_heap *h = heap(b);
    void *p, *wall, *q;
    assert_int_equal(slc_heap_alloc(h, 3000, 1, &p), SLC_OK);
    assert_int_equal(slc_heap_alloc(h, 16, 1, &wall), SLC_OK);
    fill(p, 3000, 5);
    /* Must move, and old + new exceed the budget. */
    assert_int_equal(slc_heap_realloc(h, p, 6000, 1, &q), SLC_E_BUDGET_REFUSED);
    assert_null(q);
    assert_true(holds(p, 3000, 5));
    /* Growing in place, refused by the budget. */
    slc_heap_free(h, wall);
    assert_int_equal(slc_heap_realloc(h, p, 9000, 1, &q), SLC_E_BUDGET_REFUSED);
    assert_true(holds(p, 3000, 5));
    /* Larger than the heap. */
    assert_int_equal(slc_heap_realloc(h, p, CAP * 2, 1, &q), SLC_E_CAPACITY);
    assert_int_equal(slc_heap_realloc(h, p, SIZE_MAX, 1, &q), SLC_E_CAPACITY);
    assert_true(holds(p, 3000, 5));
    slc_heap_stats s = stats(h);
    assert_int_equal(s.live, 1);
    assert_int_equal(s.used, SLC_HEAP_BLOCK_SIZE(3000));
    assert_int_equal(s.refused_budget, 2);
    assert_int_equal(s.refused_capacity, 2);
    assert_int_equal(charged(b), s.used);
    assert_true(slc_heap_check(h));
}

static void test_high_water_never_decreases(void **state)
{
    (void)state;
    slc_budgets *b = budgets(CAP);
    slc_heap *h = heap(b);
    void *p, *q;
    assert_int_equal(slc_heap_alloc(h, 10000, 1, &p), SLC_OK);
    assert_int_equal(slc_heap_alloc(h, 5000, 1, &q), SLC_OK);
    size_t hw = stats(h).high_water;
    assert_int_equal(hw, SLC_HEAP_BLOCK_SIZE(10000) + SLC_HEAP_BLOCK_SIZE(5000));
    slc_heap_free(h, p);
    slc_heap_free(h, q);
    assert_int_equal(stats(h).high_water, hw);
    assert_int_equal(peak(b), hw);
    assert_int_equal(stats(h).allocs, 2);
    assert_int_equal(stats(h).frees, 2);
}

static void test_check_detects_corruption(void **state)
{
    (void)state;
    slc_heap *h = heap(NULL);
    void *p, *q, *r;
    assert_int_equal(slc_heap_alloc(h, 100, 1, &p), SLC_OK);
    assert_int_equal(slc_heap_alloc(h, 100, 1, &q), SLC_OK);
    assert_int_equal(slc_heap_alloc(h, 100, 1, &r), SLC_OK);
    slc_heap_free(h, q);
    assert_true(slc_heap_check(h));
    /* An overrun of p into q's header: the size, then the back link. */
    size_t *qsize = (size_t *)(void *)((unsigned char *)q - SLC_HEAP_BLOCK_OVERHEAD + sizeof(void *));
    size_t saved = *qsize;
    *qsize = saved + 16;
    assert_false(slc_heap_check(h));
    *qsize = saved & ~(size_t)1; /* marked used, but still on a free list */
    assert_false(slc_heap_check(h));
    *qsize = saved;
    assert_true(slc_heap_check(h));
    void **qprev = (void **)(void *)((unsigned char *)q - SLC_HEAP_BLOCK_OVERHEAD);
    void *saved_prev = *qprev;
    *qprev = r;
    assert_false(slc_heap_check(h));
    *qprev = saved_prev;
    /* A write through a stale pointer into the free block's list link. */
    void **link = (void **)q;
    void *saved_link = *link;
    *link = q;
    assert_false(slc_heap_check(h));
    *link = saved_link;
    assert_true(slc_heap_check(h));
}

static void test_contract_violations_assert(void **state)
{
    (void)state;
    slc_heap *h = heap(NULL);
    void *p, *q;
    expect_assert_failure(slc_heap_alloc(h, 8, 3, &p));
    expect_assert_failure(slc_heap_alloc(h, 8, SLC_HEAP_MAX_ALIGN * 2, &p));
    assert_int_equal(slc_heap_alloc(h, 64, 1, &p), SLC_OK);
    int local;
    expect_assert_failure(slc_heap_free(h, &local));
    expect_assert_failure(slc_heap_free(h, (unsigned char *)p + 16));
    expect_assert_failure(slc_heap_realloc(h, (unsigned char *)p + 16, 8, 1, &q));
    slc_heap_free(h, p);
    expect_assert_failure(slc_heap_free(h, p)); /* double free */
    assert_true(slc_heap_check(h));             /* and the lock was released each time */
    assert_int_equal(slc_heap_alloc(h, 64, 1, &p), SLC_OK);
}

/* Seeded model check: random allocs, reallocs and frees of random sizes and
 * alignments; every live block keeps its pattern, nothing overlaps, the
 * invariants hold and the budget equals the heap's use after every step. */
static void test_random_model(void **state)
{
    (void)state;
    uint64_t seed = 0x5EED0001u;
    const char *env = getenv("SLUICE_SEED");
    if (env != NULL) {
        seed = strtoull(env, NULL, 0);
    }
    printf("test_random_model: seed 0x%llx (SLUICE_SEED to replay)\n", (unsigned long long)seed);
    slc_budgets *b = budgets(48u * 1024u);
    slc_heap *h = heap(b);
    enum { LIVE = 96, OPS = 20000 };
    struct {
        unsigned char *p;
        size_t n;
        size_t align;
        unsigned char tag;
    } live[LIVE];
    int count = 0;
    uint64_t ok = 0, refused = 0;
    for (int op = 0; op < OPS; op++) {
        uint64_t r = rng_next(&seed);
        unsigned kind = (unsigned)(r % 8u);
        size_t n = (r >> 8) % 16u == 0 ? (size_t)((r >> 16) % 20000u) : (size_t)((r >> 16) % 1200u);
        size_t align = (size_t)1 << ((r >> 40) % 4u == 0 ? (r >> 44) % 13u : (r >> 44) % 5u);
        if (count > 0 && (kind < 3 || count == LIVE)) {
            int k = (int)((r >> 50) % (uint64_t)count);
            assert_true(holds(live[k].p, live[k].n, live[k].tag));
            slc_heap_free(h, live[k].p);
            live[k] = live[--count];
        } else if (count > 0 && kind < 5) {
            int k = (int)((r >> 50) % (uint64_t)count);
            void *q;
            slc_status s = slc_heap_realloc(h, live[k].p, n == 0 ? 1 : n, live[k].align, &q);
            if (s == SLC_OK) {
                size_t keep = live[k].n < n ? live[k].n : n;
                assert_true(holds(q, keep, live[k].tag));
                live[k].p = q;
                live[k].n = n == 0 ? 1 : n;
                live[k].tag = (unsigned char)(r >> 24);
                fill(q, live[k].n, live[k].tag);
                assert_int_equal((uintptr_t)q % live[k].align, 0);
                ok++;
            } else {
                assert_true(s == SLC_E_CAPACITY || s == SLC_E_BUDGET_REFUSED);
                assert_true(holds(live[k].p, live[k].n, live[k].tag));
                refused++;
            }
        } else {
            void *q;
            slc_status s = slc_heap_alloc(h, n, align, &q);
            if (s == SLC_OK) {
                assert_int_equal((uintptr_t)q % align, 0);
                live[count].p = q;
                live[count].n = n;
                live[count].align = align;
                live[count].tag = (unsigned char)(r >> 24);
                fill(q, n, live[count].tag);
                count++;
                ok++;
            } else {
                assert_true(s == SLC_E_CAPACITY || s == SLC_E_BUDGET_REFUSED);
                assert_null(q);
                refused++;
            }
        }
        if (!slc_heap_check(h)) {
            fail_msg("invariants broken at op %d (seed above)", op);
        }
        slc_heap_stats st = stats(h);
        assert_int_equal(st.live, (size_t)count);
        assert_int_equal(charged(b), st.used);
        if (op % 512 == 0) {
            for (int k = 0; k < count; k++) {
                assert_true(holds(live[k].p, live[k].n, live[k].tag)); /* nothing overlapped */
            }
        }
    }
    for (int k = 0; k < count; k++) {
        assert_true(holds(live[k].p, live[k].n, live[k].tag));
        slc_heap_free(h, live[k].p);
    }
    slc_heap_stats st = stats(h);
    assert_int_equal(st.used, 0);
    assert_int_equal(st.free_blocks, 1);
    assert_int_equal(charged(b), 0);
    printf("test_random_model: %llu done, %llu refused (%llu by the budget, %llu for room)\n", (unsigned long long)ok,
           (unsigned long long)refused, (unsigned long long)st.refused_budget, (unsigned long long)st.refused_capacity);
    assert_true(ok > OPS / 2);
    assert_true(refused > 0); /* the limits were reached */
}

/* Threads allocate, grow and free at random on one heap, each checking its
 * own blocks' contents; afterwards everything is back and merged. */
#define THREADS 4
#define THREAD_OPS 40000

static slc_heap *shared_heap;

static void *stress(void *arg)
{
    uint64_t seed = *(uint64_t *)arg;
    struct {
        unsigned char *p;
        size_t n;
        unsigned char tag;
    } mine[24];
    int count = 0;
    int bad = 0;
    for (int op = 0; op < THREAD_OPS; op++) {
        uint64_t r = rng_next(&seed);
        size_t n = 1 + (size_t)((r >> 16) % 900u);
        size_t align = (size_t)1 << ((r >> 40) % 7u);
        if (count > 0 && ((r & 3u) == 0 || count == 24)) {
            int k = (int)((r >> 50) % (uint64_t)count);
            bad |= !holds(mine[k].p, mine[k].n, mine[k].tag);
            slc_heap_free(shared_heap, mine[k].p);
            mine[k] = mine[--count];
        } else if (count > 0 && (r & 3u) == 1) {
            int k = (int)((r >> 50) % (uint64_t)count);
            void *q;
            if (slc_heap_realloc(shared_heap, mine[k].p, n, 1, &q) == SLC_OK) {
                bad |= !holds(q, mine[k].n < n ? mine[k].n : n, mine[k].tag);
                mine[k].p = q;
                mine[k].n = n;
                fill(q, n, mine[k].tag);
            }
        } else {
            void *q;
            if (slc_heap_alloc(shared_heap, n, align, &q) == SLC_OK) {
                bad |= (uintptr_t)q % align != 0;
                mine[count].p = q;
                mine[count].n = n;
                mine[count].tag = (unsigned char)r;
                fill(q, n, mine[count].tag);
                count++;
            }
        }
    }
    for (int k = 0; k < count; k++) {
        bad |= !holds(mine[k].p, mine[k].n, mine[k].tag);
        slc_heap_free(shared_heap, mine[k].p);
    }
    return bad ? arg : NULL;
}

static void test_threads_share_one_heap(void **state)
{
    (void)state;
    slc_budgets *b = budgets(CAP);
    shared_heap = heap(b);
    pthread_t t[THREADS];
    uint64_t seeds[THREADS];
    for (int i = 0; i < THREADS; i++) {
        seeds[i] = 0xC0FFEEu + (uint64_t)i * 7919u;
        assert_int_equal(pthread_create(&t[i], NULL, stress, &seeds[i]), 0);
    }
    for (int i = 0; i < THREADS; i++) {
        void *ret;
        assert_int_equal(pthread_join(t[i], &ret), 0);
        assert_null(ret); /* a thread saw a block change under it */
    }
    assert_true(slc_heap_check(shared_heap));
    slc_heap_stats s = stats(shared_heap);
    assert_int_equal(s.used, 0);
    assert_int_equal(s.live, 0);
    assert_int_equal(s.free_blocks, 1);
    assert_true(s.allocs > THREADS * THREAD_OPS / 4);
    assert_int_equal(charged(b), 0);
    assert_true(peak(b) > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_init_refuses_bad_memory),
        cmocka_unit_test(test_footprint_gives_the_capacity),
        cmocka_unit_test(test_alloc_aligns_and_charges_block_sizes),
        cmocka_unit_test(test_size_zero_gives_unique_pointers),
        cmocka_unit_test(test_free_merges_neighbours),
        cmocka_unit_test(test_exhaustion_changes_nothing),
        cmocka_unit_test(test_budget_refusal_changes_nothing),
        cmocka_unit_test(test_realloc_grows_in_place_into_a_free_neighbour),
        cmocka_unit_test(test_realloc_moves_when_the_neighbour_is_used),
        cmocka_unit_test(test_realloc_shrinks_in_place_and_releases),
        cmocka_unit_test(test_realloc_null_allocates_and_zero_frees),
        cmocka_unit_test(test_realloc_refusal_keeps_the_original),
        cmocka_unit_test(test_high_water_never_decreases),
        cmocka_unit_test(test_check_detects_corruption),
        cmocka_unit_test(test_contract_violations_assert),
        cmocka_unit_test(test_random_model),
        cmocka_unit_test(test_threads_share_one_heap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
