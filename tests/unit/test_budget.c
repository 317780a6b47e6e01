/* SPDX-License-Identifier: MIT */
/* The MemoryBudgetManager: declaration checks, all-or-nothing reservations,
 * refusals, peaks, phases, the report. */
#include "test_util.h"

#define PHASES 4
static _Alignas(64) unsigned char mem[SLC_BUDGETS_FOOTPRINT(SLC_BUDGET_MAX, PHASES) + 64];

enum { CPU, META, DECODE, GPU, POOL, COUNT };
static const slc_budget_desc tree[COUNT] = {
    {"cpu", 1000, SLC_BUDGET_NONE_INDEX}, {"cpu/meta", 400, CPU},  {"cpu/decode", 500, CPU},
    {"gpu", 2000, SLC_BUDGET_NONE_INDEX}, {"gpu/pool", 1500, GPU},
};

static slc_budget_id id(uint16_t i)
{
    return (slc_budget_id){i};
}

static slc_budgets *make(void)
{
    slc_budgets *b = NULL;
    assert_int_equal(slc_budgets_init(mem, sizeof mem, tree, COUNT, PHASES, NULL, &b), SLC_OK);
    assert_non_null(b);
    return b;
}

static uint64_t current(slc_budgets *b, uint16_t i)
{
    slc_budget_stats s;
    slc_budgets_get(b, id(i), &s);
    return s.current;
}

static void snapshot(slc_budgets *b, slc_budget_stats out[COUNT])
{
    assert_int_equal(slc_budgets_walk_report(b, out, COUNT), COUNT);
}

/* Refuses a reservation of bytes on budget and checks that nothing but the
 * refusal counters changed; returns the refusal. */
static slc_budget_refusal expect_refused(slc_budgets *b, uint16_t budget, uint64_t bytes)
{
    slc_budget_stats before[COUNT], after[COUNT];
    snapshot(b, before);
    slc_budget_refusal why;
    assert_int_equal(slc_budgets_reserve(b, id(budget), bytes, &why), SLC_E_BUDGET_REFUSED);
    snapshot(b, after);
    for (int i = 0; i < COUNT; i++) {
        assert_int_equal(after[i].current, before[i].current);
        assert_int_equal(after[i].peak, before[i].peak);
        assert_int_equal(after[i].reservations, before[i].reservations);
        assert_int_equal(after[i].refused, before[i].refused + (i == budget));
        assert_int_equal(after[i].refused_here, before[i].refused_here + (i == why.refused_by.index));
    }
    assert_int_equal(why.budget.index, budget);
    assert_int_equal(why.requested, bytes);
    return why;
}

static void test_footprint_matches_macro(void **state)
{
    (void)state;
    assert_int_equal(slc_budgets_footprint(5, 4), SLC_BUDGETS_FOOTPRINT(5, 4));
    assert_int_equal(slc_budgets_footprint(5, 4), 128 + 5 * 128 + 4 * 64 + 5 * 4 * 32);
}

static void test_init_reports_tree(void **state)
{
    (void)state;
    slc_budgets *b = make();
    assert_int_equal(slc_budgets_count(b), COUNT);
    assert_int_equal(slc_budgets_phase_count(b), 1);
    slc_budget_stats s[COUNT];
    snapshot(b, s);
    assert_string_equal(s[META].name, "cpu/meta");
    assert_int_equal(s[META].parent.index, CPU);
    assert_int_equal(s[META].depth, 1);
    assert_int_equal(s[CPU].parent.index, SLC_BUDGET_NONE_INDEX);
    assert_int_equal(s[CPU].depth, 0);
    assert_int_equal(s[POOL].limit, 1500);
    for (int i = 0; i < COUNT; i++) {
        assert_int_equal(s[i].current, 0);
        assert_int_equal(s[i].peak, 0);
        assert_int_equal(s[i].refused, 0);
    }
    assert_true(slc_budgets_check(b));
}

static void expect_init_fails(void *m, size_t size, const slc_budget_desc *d, size_t n, size_t phases, slc_status want,
                              const char *message)
{
    capture_log c;
    slc_logger log = capture_logger(&c);
    slc_budgets *b = (slc_budgets *)1;
    assert_int_equal(slc_budgets_init(m, size, d, n, phases, &log, &b), want);
    assert_null(b);
    assert_int_equal(c.calls, 1);
    assert_int_equal(c.status, want);
    assert_string_equal(c.message, message);
}

static void test_init_refuses_bad_memory(void **state)
{
    (void)state;
    expect_init_fails(NULL, sizeof mem, tree, COUNT, PHASES, SLC_E_BLOCK_NULL, "budgets: memory is NULL");
    capture_log c;
    slc_logger log = capture_logger(&c);
    slc_budgets *b;
    assert_int_equal(slc_budgets_init(mem + 8, sizeof mem - 8, tree, COUNT, PHASES, &log, &b), SLC_E_BLOCK_MISALIGNED);
    assert_non_null(strstr(c.message, "is not aligned to 64 bytes"));
    size_t need = SLC_BUDGETS_FOOTPRINT(COUNT, PHASES);
    char want[128];
    snprintf(want, sizeof want, "budgets: memory of %zu bytes is smaller than the %zu bytes required", need - 1, need);
    expect_init_fails(mem, need - 1, tree, COUNT, PHASES, SLC_E_BLOCK_TOO_SMALL, want);
    assert_int_equal(slc_budgets_init(mem, need, tree, COUNT, PHASES, NULL, &b), SLC_OK);
}

static void test_init_refuses_bad_declarations(void **state)
{
    (void)state;
    expect_init_fails(mem, sizeof mem, tree, 0, PHASES, SLC_E_INVALID, "budgets: 0 budgets declared; 1 to 64 allowed");
    expect_init_fails(mem, sizeof mem, tree, 65, PHASES, SLC_E_INVALID,
                      "budgets: 65 budgets declared; 1 to 64 allowed");
    expect_init_fails(mem, sizeof mem, tree, COUNT, 0, SLC_E_INVALID,
                      "budgets: phase capacity 0 is not in 1..4294967295");

    slc_budget_desc d[COUNT];
    memcpy(d, tree, sizeof d);
    d[2].name = "";
    expect_init_fails(mem, sizeof mem, d, COUNT, PHASES, SLC_E_INVALID,
                      "budgets: budget 2: name is empty or longer than 31 bytes");
    d[2].name = "cpu/a_name_that_is_far_too_long_x";
    expect_init_fails(mem, sizeof mem, d, COUNT, PHASES, SLC_E_INVALID,
                      "budgets: budget 2: name is empty or longer than 31 bytes");
    memcpy(d, tree, sizeof d);
    d[1].parent = 1;
    expect_init_fails(mem, sizeof mem, d, COUNT, PHASES, SLC_E_INVALID,
                      "budgets: budget 'cpu/meta': parent 1 is not an earlier declaration");
    memcpy(d, tree, sizeof d);
    d[2].name = "cpu/meta";
    expect_init_fails(mem, sizeof mem, d, COUNT, PHASES, SLC_E_INVALID, "budgets: budget 'cpu/meta' is declared twice");
    memcpy(d, tree, sizeof d);
    d[2].limit = 601;
    expect_init_fails(mem, sizeof mem, d, COUNT, PHASES, SLC_E_INVALID,
                      "budgets: children of 'cpu' sum to more than its limit 1000");
    d[2].limit = UINT64_MAX; /* a single child above its parent, and no wrap in the sum */
    expect_init_fails(mem, sizeof mem, d, COUNT, PHASES, SLC_E_INVALID,
                      "budgets: children of 'cpu' sum to more than its limit 1000");

    slc_budget_desc chain[SLC_BUDGET_DEPTH_MAX + 2];
    static char names[SLC_BUDGET_DEPTH_MAX + 2][8];
    for (uint16_t i = 0; i < SLC_BUDGET_DEPTH_MAX + 2; i++) {
        snprintf(names[i], sizeof names[i], "b%u", i);
        chain[i].name = names[i];
        chain[i].limit = 10;
        chain[i].parent = i == 0 ? SLC_BUDGET_NONE_INDEX : (uint16_t)(i - 1);
    }
    slc_budgets *b;
    assert_int_equal(slc_budgets_init(mem, sizeof mem, chain, SLC_BUDGET_DEPTH_MAX + 1, PHASES, NULL, &b), SLC_OK);
    expect_init_fails(mem, sizeof mem, chain, SLC_BUDGET_DEPTH_MAX + 2, PHASES, SLC_E_INVALID,
                      "budgets: budget 'b9': depth 9 is above 8");
}

static void test_reserve_charges_every_level(void **state)
{
    (void)state;
    slc_budgets *b = make();
    assert_int_equal(slc_budgets_reserve(b, id(META), 300, NULL), SLC_OK);
    assert_int_equal(current(b, META), 300);
    assert_int_equal(current(b, CPU), 300);
    assert_int_equal(current(b, DECODE), 0);
    assert_int_equal(current(b, GPU), 0);
    assert_int_equal(slc_budgets_reserve(b, id(CPU), 50, NULL), SLC_OK); /* the parent's own part */
    assert_int_equal(current(b, CPU), 350);
    assert_int_equal(current(b, META), 300);
    slc_budgets_release(b, id(META), 100);
    assert_int_equal(current(b, META), 200);
    assert_int_equal(current(b, CPU), 250);
    slc_budget_stats s;
    slc_budgets_get(b, id(META), &s);
    assert_int_equal(s.peak, 300);
    assert_int_equal(s.reservations, 1);
    slc_budgets_get(b, id(CPU), &s);
    assert_int_equal(s.peak, 350);
    assert_int_equal(s.reservations, 1);
    assert_true(slc_budgets_check(b));
}

static void test_reserve_up_to_the_limit_exactly(void **state)
{
    (void)state;
    slc_budgets *b = make();
    assert_int_equal(slc_budgets_reserve(b, id(META), 400, NULL), SLC_OK);
    slc_budget_refusal why;
    assert_int_equal(slc_budgets_reserve(b, id(META), 1, &why), SLC_E_BUDGET_REFUSED);
    assert_int_equal(why.refused_by.index, META);
    assert_int_equal(current(b, META), 400);
}

static void test_reserve_zero_changes_nothing(void **state)
{
    (void)state;
    slc_budgets *b = make();
    assert_int_equal(slc_budgets_reserve(b, id(META), 0, NULL), SLC_OK);
    slc_budget_stats s;
    slc_budgets_get(b, id(META), &s);
    assert_int_equal(s.current, 0);
    assert_int_equal(s.reservations, 0);
}

static void test_reserve_over_leaf_limit_changes_nothing(void **state)
{
    (void)state;
    slc_budgets *b = make();
    assert_int_equal(slc_budgets_reserve(b, id(META), 100, NULL), SLC_OK);
    slc_budget_refusal why = expect_refused(b, META, 301);
    assert_int_equal(why.refused_by.index, META);
    assert_int_equal(why.current, 100);
    assert_int_equal(why.limit, 400);
}

static void test_reserve_refused_by_parent_rolls_back_child(void **state)
{
    (void)state;
    slc_budgets *b = make();
    /* cpu's own part uses 550, so cpu has 450 left while meta has 400. */
    assert_int_equal(slc_budgets_reserve(b, id(CPU), 550, NULL), SLC_OK);
    assert_int_equal(slc_budgets_reserve(b, id(DECODE), 100, NULL), SLC_OK);
    slc_budget_refusal why = expect_refused(b, META, 380);
    assert_int_equal(why.refused_by.index, CPU);
    assert_int_equal(why.current, 650);
    assert_int_equal(why.limit, 1000);
    /* What fits the parent still goes through. */
    assert_int_equal(slc_budgets_reserve(b, id(META), 350, NULL), SLC_OK);
    assert_int_equal(current(b, CPU), 1000);
    assert_true(slc_budgets_check(b));
}

static void test_reserve_near_uint64_max_is_refused(void **state)
{
    (void)state;
    slc_budgets *b = make();
    assert_int_equal(slc_budgets_reserve(b, id(META), 10, NULL), SLC_OK);
    assert_int_equal(slc_budgets_reserve(b, id(META), UINT64_MAX, NULL), SLC_E_BUDGET_REFUSED);
    assert_int_equal(slc_budgets_reserve(b, id(META), UINT64_MAX - 5, NULL), SLC_E_BUDGET_REFUSED);
    assert_int_equal(current(b, META), 10);
}

static void test_release_more_than_reserved_asserts(void **state)
{
    (void)state;
    slc_budgets *b = make();
    assert_int_equal(slc_budgets_reserve(b, id(META), 10, NULL), SLC_OK);
    expect_assert_failure(slc_budgets_release(b, id(META), 11));
}

static void test_bad_budget_id_asserts(void **state)
{
    (void)state;
    slc_budgets *b = make();
    expect_assert_failure(slc_budgets_reserve(b, id(COUNT), 1, NULL));
    expect_assert_failure(slc_budgets_release(b, SLC_BUDGET_NONE, 1));
    slc_budget_stats s;
    expect_assert_failure(slc_budgets_get(b, id(COUNT), &s));
}

static void test_phases_keep_start_peak_end(void **state)
{
    (void)state;
    slc_budgets *b = make();
    assert_int_equal(slc_budgets_reserve(b, id(META), 100, NULL), SLC_OK); /* init keeps 100 */
    assert_int_equal(slc_budgets_begin_phase(b, "open"), SLC_OK);
    assert_int_equal(slc_budgets_reserve(b, id(META), 250, NULL), SLC_OK); /* open peaks at 350 */
    slc_budgets_release(b, id(META), 200);                                 /* and keeps 150 */
    assert_int_equal(slc_budgets_begin_phase(b, "stream"), SLC_OK);
    assert_int_equal(slc_budgets_reserve(b, id(META), 20, NULL), SLC_OK);
    assert_int_equal(slc_budgets_phase_count(b), 3);

    slc_phase_stats p;
    slc_budgets_get_phase(b, 0, id(META), &p);
    assert_string_equal(p.phase, "init");
    assert_true(p.ended);
    assert_int_equal(p.start, 0);
    assert_int_equal(p.peak, 100);
    assert_int_equal(p.end, 100);
    slc_budgets_get_phase(b, 1, id(META), &p);
    assert_string_equal(p.phase, "open");
    assert_int_equal(p.phase_index, 1);
    assert_true(p.ended);
    assert_int_equal(p.start, 100);
    assert_int_equal(p.peak, 350);
    assert_int_equal(p.end, 150);
    slc_budgets_get_phase(b, 1, id(CPU), &p);
    assert_int_equal(p.peak, 350);
    assert_int_equal(p.end, 150);
    slc_budgets_get_phase(b, 2, id(META), &p);
    assert_string_equal(p.phase, "stream");
    assert_false(p.ended);
    assert_int_equal(p.start, 150);
    assert_int_equal(p.peak, 170);
    assert_int_equal(p.end, 170); /* the use now, while current */
    slc_budgets_get_phase(b, 2, id(GPU), &p);
    assert_int_equal(p.peak, 0);
    expect_assert_failure(slc_budgets_get_phase(b, 3, id(META), &p));
}

static void test_phase_capacity_and_names(void **state)
{
    (void)state;
    capture_log c;
    slc_logger log = capture_logger(&c);
    slc_budgets *b;
    assert_int_equal(slc_budgets_init(mem, sizeof mem, tree, COUNT, 2, &log, &b), SLC_OK);
    assert_int_equal(slc_budgets_begin_phase(b, ""), SLC_E_INVALID);
    assert_string_equal(c.message, "budgets: phase name is empty or longer than 31 bytes");
    assert_int_equal(slc_budgets_begin_phase(b, "0123456789012345678901234567890123"), SLC_E_INVALID);
    assert_int_equal(slc_budgets_begin_phase(b, "warmup"), SLC_OK);
    assert_int_equal(slc_budgets_begin_phase(b, "stream"), SLC_E_CAPACITY);
    assert_string_equal(c.message, "budgets: phase 'stream' refused: all 2 phases declared at init have begun");
    assert_int_equal(slc_budgets_phase_count(b), 2);
    slc_phase_stats p;
    slc_budgets_get_phase(b, 1, id(CPU), &p);
    assert_string_equal(p.phase, "warmup");
    assert_false(p.ended);
}

static void test_scan_finds_by_full_name(void **state)
{
    (void)state;
    slc_budgets *b = make();
    slc_budget_id i;
    assert_int_equal(slc_budgets_scan(b, "gpu/pool", &i), SLC_OK);
    assert_int_equal(i.index, POOL);
    assert_int_equal(slc_budgets_scan(b, "pool", &i), SLC_E_NOT_FOUND);
    assert_int_equal(i.index, SLC_BUDGET_NONE_INDEX);
    assert_int_equal(slc_budgets_scan(b, "cpu/met", &i), SLC_E_NOT_FOUND);
}

static void test_walk_report_respects_cap(void **state)
{
    (void)state;
    slc_budgets *b = make();
    slc_budget_stats s[2];
    memset(s, 0xab, sizeof s);
    assert_int_equal(slc_budgets_walk_report(b, s, 1), COUNT);
    assert_string_equal(s[0].name, "cpu");
    assert_int_equal(((unsigned char *)&s[1])[0], 0xab); /* untouched */
    assert_int_equal(slc_budgets_walk_report(b, NULL, 0), COUNT);
}

static void test_check_detects_corruption(void **state)
{
    (void)state;
    slc_budgets *b = make();
    assert_int_equal(slc_budgets_reserve(b, id(META), 10, NULL), SLC_OK);
    assert_true(slc_budgets_check(b));
    /* Corrupt cpu's current through the report layout: the first node after
     * the header holds name[32], limit, parent/depth, then current. */
    uint64_t *cpu_current = (uint64_t *)(void *)(mem + SLC_BUDGETS_HEADER_SIZE + 48);
    assert_int_equal(*cpu_current, 10);
    *cpu_current = 5; /* below its child's 10 */
    assert_false(slc_budgets_check(b));
    *cpu_current = 2000; /* above its limit */
    assert_false(slc_budgets_check(b));
    /* Even with a use above its limit (only a broken caller gets there), a
     * reservation is refused rather than wrapping around. */
    assert_int_equal(slc_budgets_reserve(b, id(META), 1, NULL), SLC_E_BUDGET_REFUSED);
    *cpu_current = 10;
    assert_true(slc_budgets_check(b));
    assert_int_equal(slc_budgets_reserve(b, id(META), 1, NULL), SLC_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_footprint_matches_macro),
        cmocka_unit_test(test_init_reports_tree),
        cmocka_unit_test(test_init_refuses_bad_memory),
        cmocka_unit_test(test_init_refuses_bad_declarations),
        cmocka_unit_test(test_reserve_charges_every_level),
        cmocka_unit_test(test_reserve_up_to_the_limit_exactly),
        cmocka_unit_test(test_reserve_zero_changes_nothing),
        cmocka_unit_test(test_reserve_over_leaf_limit_changes_nothing),
        cmocka_unit_test(test_reserve_refused_by_parent_rolls_back_child),
        cmocka_unit_test(test_reserve_near_uint64_max_is_refused),
        cmocka_unit_test(test_release_more_than_reserved_asserts),
        cmocka_unit_test(test_bad_budget_id_asserts),
        cmocka_unit_test(test_phases_keep_start_peak_end),
        cmocka_unit_test(test_phase_capacity_and_names),
        cmocka_unit_test(test_scan_finds_by_full_name),
        cmocka_unit_test(test_walk_report_respects_cap),
        cmocka_unit_test(test_check_detects_corruption),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
