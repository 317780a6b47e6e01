/* SPDX-License-Identifier: MIT */
/* Linear arenas and fixed-block pools: alignment, charging, refusals,
 * mark/reset, high-water marks, contract checks. */
#include "test_util.h"

static _Alignas(64) unsigned char bmem[SLC_BUDGETS_FOOTPRINT(3, 2)];
static _Alignas(64) unsigned char region[8192];

enum { CPU, SCRATCH, RECORDS };
static const slc_budget_desc tree[] = {
    {"cpu", 6000, SLC_BUDGET_NONE_INDEX}, {"cpu/scratch", 1000, CPU}, {"cpu/records", 4096, CPU}};

static slc_budgets *budgets(void)
{
    slc_budgets *b;
    assert_int_equal(slc_budgets_init(bmem, sizeof bmem, tree, 3, 2, NULL, &b), SLC_OK);
    return b;
}

static uint64_t used(slc_budgets *b, uint16_t i)
{
    slc_budget_stats s;
    slc_budgets_get(b, (slc_budget_id){i}, &s);
    return s.current;
}

static void test_arena_init_refuses_bad_memory(void **state)
{
    (void)state;
    slc_arena *a = (slc_arena *)1;
    assert_int_equal(slc_arena_init(NULL, 100, NULL, SLC_BUDGET_NONE, &a), SLC_E_BLOCK_NULL);
    assert_null(a);
    assert_int_equal(slc_arena_init(region + 16, 1000, NULL, SLC_BUDGET_NONE, &a), SLC_E_BLOCK_MISALIGNED);
    assert_int_equal(slc_arena_init(region, SLC_ARENA_HEADER_SIZE - 1, NULL, SLC_BUDGET_NONE, &a),
                     SLC_E_BLOCK_TOO_SMALL);
    assert_int_equal(slc_arena_init(region, SLC_ARENA_HEADER_SIZE, NULL, SLC_BUDGET_NONE, &a), SLC_OK);
    slc_arena_stats s;
    slc_arena_get_stats(a, &s);
    assert_int_equal(s.capacity, 0);
}

static void test_arena_aligns_and_charges_padding(void **state)
{
    (void)state;
    slc_budgets *b = budgets();
    slc_arena *a;
    assert_int_equal(slc_arena_init(region, SLC_ARENA_FOOTPRINT(1000), b, (slc_budget_id){SCRATCH}, &a), SLC_OK);
    void *p1, *p2, *p3;
    assert_int_equal(slc_arena_alloc(a, 3, 1, &p1), SLC_OK);
    assert_ptr_equal(p1, region + SLC_ARENA_HEADER_SIZE);
    assert_int_equal(slc_arena_alloc(a, 8, 64, &p2), SLC_OK);
    assert_int_equal((uintptr_t)p2 % 64, 0);
    assert_ptr_equal(p2, region + SLC_ARENA_HEADER_SIZE + 64);
    assert_int_equal(used(b, SCRATCH), 72); /* 3 + 61 padding + 8 */
    assert_int_equal(used(b, CPU), 72);
    assert_int_equal(slc_arena_alloc(a, 0, 16, &p3), SLC_OK);
    assert_non_null(p3);
    assert_int_equal((uintptr_t)p3 % 16, 0);
    slc_arena_stats s;
    slc_arena_get_stats(a, &s);
    assert_int_equal(s.capacity, 1000);
    assert_int_equal(s.used, 80);
    assert_int_equal(s.allocs, 3);
    assert_int_equal(used(b, SCRATCH), 80);
}

static void test_arena_capacity_refusal_changes_nothing(void **state)
{
    (void)state;
    slc_arena *a;
    assert_int_equal(slc_arena_init(region, SLC_ARENA_FOOTPRINT(100), NULL, SLC_BUDGET_NONE, &a), SLC_OK);
    void *p;
    assert_int_equal(slc_arena_alloc(a, 90, 1, &p), SLC_OK);
    assert_int_equal(slc_arena_alloc(a, 11, 1, &p), SLC_E_CAPACITY);
    assert_null(p);
    assert_int_equal(slc_arena_alloc(a, 1, 64, &p), SLC_E_CAPACITY); /* padding alone overflows */
    assert_int_equal(slc_arena_alloc(a, SIZE_MAX, 1, &p), SLC_E_CAPACITY);
    slc_arena_stats s;
    slc_arena_get_stats(a, &s);
    assert_int_equal(s.used, 90);
    assert_int_equal(s.refused, 3);
    assert_int_equal(slc_arena_alloc(a, 10, 1, &p), SLC_OK); /* exactly full */
    slc_arena_get_stats(a, &s);
    assert_int_equal(s.used, 100);
}

static void test_arena_budget_refusal_changes_nothing(void **state)
{
    (void)state;
    slc_budgets *b = budgets();
    slc_arena *a;
    /* The region is larger than the budget: the budget must refuse first. */
    assert_int_equal(slc_arena_init(region, sizeof region, b, (slc_budget_id){SCRATCH}, &a), SLC_OK);
    void *p;
    assert_int_equal(slc_arena_alloc(a, 900, 1, &p), SLC_OK);
    assert_int_equal(slc_arena_alloc(a, 101, 1, &p), SLC_E_BUDGET_REFUSED);
    assert_null(p);
    slc_arena_stats s;
    slc_arena_get_stats(a, &s);
    assert_int_equal(s.used, 900);
    assert_int_equal(s.refused, 1);
    slc_budget_stats bs;
    slc_budgets_get(b, (slc_budget_id){SCRATCH}, &bs);
    assert_int_equal(bs.current, 900);
    assert_int_equal(bs.refused, 1);
}

static void test_arena_mark_reset_releases_and_keeps_high_water(void **state)
{
    (void)state;
    slc_budgets *b = budgets();
    slc_arena *a;
    assert_int_equal(slc_arena_init(region, SLC_ARENA_FOOTPRINT(1000), b, (slc_budget_id){SCRATCH}, &a), SLC_OK);
    void *keep, *p;
    assert_int_equal(slc_arena_alloc(a, 100, 8, &keep), SLC_OK);
    slc_arena_mark m = slc_arena_get_mark(a);
    assert_int_equal(slc_arena_alloc(a, 500, 8, &p), SLC_OK);
    assert_int_equal(slc_arena_alloc(a, 300, 8, &p), SLC_OK);
    assert_int_equal(used(b, SCRATCH), 908); /* 100, 4 padding, 500, 4 padding, 300 */
    slc_arena_reset(a, m);
    assert_int_equal(used(b, SCRATCH), 100);
    slc_arena_stats s;
    slc_arena_get_stats(a, &s);
    assert_int_equal(s.used, 100);
    assert_int_equal(s.high_water, 908);
    void *again;
    assert_int_equal(slc_arena_alloc(a, 8, 8, &again), SLC_OK);
    assert_ptr_equal(again, (unsigned char *)keep + 104); /* the space is reused, aligned to 8 */
    slc_arena_reset(a, (slc_arena_mark){0});
    assert_int_equal(used(b, SCRATCH), 0);
    assert_int_equal(used(b, CPU), 0);
    slc_arena_reset(a, (slc_arena_mark){0}); /* resetting to where it is changes nothing */
    assert_int_equal(used(b, SCRATCH), 0);
}

static void test_arena_contract_violations_assert(void **state)
{
    (void)state;
    slc_arena *a;
    assert_int_equal(slc_arena_init(region, SLC_ARENA_FOOTPRINT(100), NULL, SLC_BUDGET_NONE, &a), SLC_OK);
    void *p;
    expect_assert_failure(slc_arena_alloc(a, 8, 3, &p));
    expect_assert_failure(slc_arena_alloc(a, 8, 8192, &p));
    expect_assert_failure(slc_arena_reset(a, (slc_arena_mark){50}));
}

static void test_pool_init_refuses_bad_memory(void **state)
{
    (void)state;
    slc_block_pool *p = (slc_block_pool *)1;
    assert_int_equal(slc_block_pool_init(NULL, 1000, 32, 16, NULL, SLC_BUDGET_NONE, &p), SLC_E_BLOCK_NULL);
    assert_null(p);
    assert_int_equal(slc_block_pool_init(region + 8, 1000, 32, 16, NULL, SLC_BUDGET_NONE, &p), SLC_E_BLOCK_MISALIGNED);
    assert_int_equal(slc_block_pool_init(region, SLC_BLOCK_POOL_HEADER_SIZE + 31, 32, 16, NULL, SLC_BUDGET_NONE, &p),
                     SLC_E_BLOCK_TOO_SMALL);
    assert_int_equal(slc_block_pool_init(region, SLC_BLOCK_POOL_HEADER_SIZE + 32, 32, 16, NULL, SLC_BUDGET_NONE, &p),
                     SLC_OK);
    slc_block_pool_stats s;
    slc_block_pool_get_stats(p, &s);
    assert_int_equal(s.capacity, 1);
    expect_assert_failure(slc_block_pool_init(region, 1000, 32, 2, NULL, SLC_BUDGET_NONE, &p)); /* below a pointer */
    expect_assert_failure(slc_block_pool_init(region, 1000, 32, 24, NULL, SLC_BUDGET_NONE, &p));
}

static void test_pool_footprint_holds_exactly_count_blocks(void **state)
{
    (void)state;
    size_t size = slc_block_pool_footprint(40, 16, 10); /* blocks round up to 48 */
    assert_int_equal(size, SLC_BLOCK_POOL_HEADER_SIZE + 480);
    slc_block_pool *p;
    assert_int_equal(slc_block_pool_init(region, size, 40, 16, NULL, SLC_BUDGET_NONE, &p), SLC_OK);
    slc_block_pool_stats s;
    slc_block_pool_get_stats(p, &s);
    assert_int_equal(s.block_size, 48);
    assert_int_equal(s.capacity, 10);
    assert_int_equal(slc_block_pool_footprint(64, 256, 2), 256 + 512); /* first block aligned past the header */
}

static void test_pool_alloc_free_reuse_and_exhaustion(void **state)
{
    (void)state;
    slc_block_pool *p;
    assert_int_equal(
        slc_block_pool_init(region, slc_block_pool_footprint(64, 64, 4), 64, 64, NULL, SLC_BUDGET_NONE, &p), SLC_OK);
    void *blk[4], *extra;
    for (int i = 0; i < 4; i++) {
        assert_int_equal(slc_block_pool_alloc(p, &blk[i]), SLC_OK);
        assert_int_equal((uintptr_t)blk[i] % 64, 0);
        memset(blk[i], i, 64); /* the whole block is the caller's */
        for (int j = 0; j < i; j++) {
            assert_ptr_not_equal(blk[i], blk[j]);
        }
    }
    assert_int_equal(slc_block_pool_alloc(p, &extra), SLC_E_CAPACITY);
    assert_null(extra);
    slc_block_pool_free(p, blk[2]);
    slc_block_pool_free(p, blk[0]);
    void *again;
    assert_int_equal(slc_block_pool_alloc(p, &again), SLC_OK);
    assert_ptr_equal(again, blk[0]); /* last freed, first reused */
    assert_int_equal(slc_block_pool_alloc(p, &again), SLC_OK);
    assert_ptr_equal(again, blk[2]);
    slc_block_pool_stats s;
    slc_block_pool_get_stats(p, &s);
    assert_int_equal(s.in_use, 4);
    assert_int_equal(s.high_water, 4);
    assert_int_equal(s.allocs, 6);
    assert_int_equal(s.refused, 1);
    for (int i = 0; i < 4; i++) {
        slc_block_pool_free(p, blk[i]);
    }
    slc_block_pool_get_stats(p, &s);
    assert_int_equal(s.in_use, 0);
    assert_int_equal(s.high_water, 4);
}

static void test_pool_charges_budget_per_block(void **state)
{
    (void)state;
    slc_budgets *b = budgets();
    slc_block_pool *p;
    /* Room for 100 blocks, budget for 4096 / 1024 = 4. */
    assert_int_equal(slc_block_pool_init(region, sizeof region, 1024, 64, b, (slc_budget_id){RECORDS}, &p), SLC_OK);
    void *blk[4], *extra;
    for (int i = 0; i < 4; i++) {
        assert_int_equal(slc_block_pool_alloc(p, &blk[i]), SLC_OK);
    }
    assert_int_equal(used(b, RECORDS), 4096);
    assert_int_equal(slc_block_pool_alloc(p, &extra), SLC_E_BUDGET_REFUSED);
    assert_null(extra);
    slc_block_pool_stats s;
    slc_block_pool_get_stats(p, &s);
    assert_int_equal(s.in_use, 4);
    assert_int_equal(s.refused, 1);
    slc_block_pool_free(p, blk[1]);
    assert_int_equal(used(b, RECORDS), 3072);
    assert_int_equal(slc_block_pool_alloc(p, &extra), SLC_OK);
    assert_ptr_equal(extra, blk[1]);
}

static void test_checkers_accept_sound_and_reject_broken_state(void **state)
{
    (void)state;
    slc_arena *a;
    assert_int_equal(slc_arena_init(region, SLC_ARENA_FOOTPRINT(1000), NULL, SLC_BUDGET_NONE, &a), SLC_OK);
    void *p;
    assert_int_equal(slc_arena_alloc(a, 100, 1, &p), SLC_OK);
    assert_true(slc_arena_check(a));
    size_t *used = (size_t *)(void *)(region + 2 * sizeof(size_t)); /* base, capacity, used */
    assert_int_equal(*used, 100);
    *used = 2000;
    assert_false(slc_arena_check(a));
    *used = 100;
    assert_true(slc_arena_check(a));

    slc_block_pool *pool;
    static _Alignas(64) unsigned char pmem[4096];
    assert_int_equal(slc_block_pool_init(pmem, sizeof pmem, 64, 64, NULL, SLC_BUDGET_NONE, &pool), SLC_OK);
    void *blk[5];
    for (int i = 0; i < 5; i++) {
        assert_int_equal(slc_block_pool_alloc(pool, &blk[i]), SLC_OK);
        assert_true(slc_block_pool_check(pool));
    }
    slc_block_pool_free(pool, blk[1]);
    slc_block_pool_free(pool, blk[3]);
    assert_true(slc_block_pool_check(pool));
    /* A write through a stale pointer into a free block corrupts the list. */
    void *saved;
    memcpy(&saved, blk[3], sizeof saved);
    void *loop = blk[3];
    memcpy(blk[3], &loop, sizeof loop); /* the list now loops on itself */
    assert_false(slc_block_pool_check(pool));
    void *outside = region;
    memcpy(blk[3], &outside, sizeof outside);
    assert_false(slc_block_pool_check(pool));
    void *misaligned = (unsigned char *)blk[0] + 8;
    memcpy(blk[3], &misaligned, sizeof misaligned);
    assert_false(slc_block_pool_check(pool));
    void *none = NULL; /* drops blk[1] from the list: counts disagree */
    memcpy(blk[3], &none, sizeof none);
    assert_false(slc_block_pool_check(pool));
    memcpy(blk[3], &saved, sizeof saved);
    assert_true(slc_block_pool_check(pool));
}

static void test_pool_free_of_foreign_pointer_asserts(void **state)
{
    (void)state;
    slc_block_pool *p;
    assert_int_equal(slc_block_pool_init(region, 1024, 64, 64, NULL, SLC_BUDGET_NONE, &p), SLC_OK);
    void *blk;
    assert_int_equal(slc_block_pool_alloc(p, &blk), SLC_OK);
    int local;
    expect_assert_failure(slc_block_pool_free(p, &local));
    expect_assert_failure(slc_block_pool_free(p, (unsigned char *)blk + 8));
    expect_assert_failure(slc_block_pool_free(p, (unsigned char *)blk + 64)); /* never handed out */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_arena_init_refuses_bad_memory),
        cmocka_unit_test(test_arena_aligns_and_charges_padding),
        cmocka_unit_test(test_arena_capacity_refusal_changes_nothing),
        cmocka_unit_test(test_arena_budget_refusal_changes_nothing),
        cmocka_unit_test(test_arena_mark_reset_releases_and_keeps_high_water),
        cmocka_unit_test(test_arena_contract_violations_assert),
        cmocka_unit_test(test_pool_init_refuses_bad_memory),
        cmocka_unit_test(test_pool_footprint_holds_exactly_count_blocks),
        cmocka_unit_test(test_pool_alloc_free_reuse_and_exhaustion),
        cmocka_unit_test(test_pool_charges_budget_per_block),
        cmocka_unit_test(test_checkers_accept_sound_and_reject_broken_state),
        cmocka_unit_test(test_pool_free_of_foreign_pointer_asserts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
