/* SPDX-License-Identifier: MIT */
/* The host store's desc from a profile's pool spec (runtime/src/host_store.c,
 * runtime/src/pool_spec.c): the
 * values it takes, the profiles a target cannot hold, the contract on its
 * arguments; and the store made in an arena being the store over caller
 * memory (one init behind both). The store's pages, writes and refusals are
 * tested with the pool (test_pool.c). */
#include "profile_sections.h"
#include "sluice/host_store.h"
#include "test_util.h"

/* The store over a desc this target cannot hold is refused: the status, the
 * reason logged, and *out zeroed. */
static void assert_store_refused(const slc_host_store_desc *d)
{
    _Alignas(SLC_HOST_STORE_PAGE_ALIGN) unsigned char mem[256];
    capture_log c;
    slc_logger log = capture_logger(&c);
    slc_page_store store;
    memset(&store, 0xa5, sizeof store);
    assert_int_equal(
        slc_host_store_init_at(mem, sizeof mem, NULL, SLC_BUDGET_NONE, d->page_count, d->page_size, &log, &store),
        SLC_E_INVALID);
    assert_int_equal(c.status, SLC_E_INVALID);
    assert_string_equal(c.message,
                        "host store: page_count and page_size must be non-zero and their product fit this target");
    assert_null(store.ops);
}

static void test_desc_from_spec_takes_the_pool_pages(void **state)
{
    (void)state;
    size_t len;
    char *text = read_source_file("budgets/default.profile", &len);
    slc_profile p;
    slc_profile_diag diag;
    assert_int_equal(tool_profile_parse(text, len, "default.profile", &p, NULL, &diag), SLC_OK);
    free(text);

    slc_host_store_desc d;
    memset(&d, 0xa5, sizeof d); /* every field is written */
    slc_pool_spec spec;
    slc_pool_spec_from_profile(&p, SLC_POOL_GEOMETRY, &spec);
    slc_host_store_desc_from_spec(&spec, &d);
    assert_int_equal(d.page_count, 4096);
    assert_int_equal(d.page_size, 64 * 1024);
    assert_int_equal(d.page_count, p.page_count);
    assert_int_equal(d.page_size, p.page_size);
    /* The footprint of those pages: the 64-byte record, the pages (64 KiB is
     * already aligned) and the most an aligned allocation pads. */
    assert_int_equal(slc_host_store_footprint(d.page_count, d.page_size), 64 + (size_t)4096 * 65536 + 63);
}

static void test_desc_from_zeroed_profile_is_refused_by_init(void **state)
{
    (void)state;
    slc_profile p;
    memset(&p, 0, sizeof p);
    slc_host_store_desc d;
    memset(&d, 0xa5, sizeof d);
    slc_pool_spec spec;
    slc_pool_spec_from_profile(&p, SLC_POOL_GEOMETRY, &spec);
    slc_host_store_desc_from_spec(&spec, &d);
    assert_int_equal(d.page_count, 0);
    assert_int_equal(d.page_size, 0);
    assert_int_equal(slc_host_store_footprint(d.page_count, d.page_size), 0);

    assert_store_refused(&d);
}

/* The largest pool a profile may declare (2^24 pages of 64 MiB) fits a
 * 64-bit target's address space, not a 32-bit one's: there the footprint is
 * 0 and the store is refused, with the reason. */
static void test_desc_of_the_largest_profile_fits_only_64_bit_targets(void **state)
{
    (void)state;
    slc_profile p;
    memset(&p, 0, sizeof p);
    p.page_count = SLC_PAGE_COUNT_MAX;
    p.page_size = SLC_PAGE_SIZE_MAX;
    slc_host_store_desc d;
    slc_pool_spec spec;
    slc_pool_spec_from_profile(&p, SLC_POOL_GEOMETRY, &spec);
    slc_host_store_desc_from_spec(&spec, &d);
    assert_int_equal(d.page_count, 1u << 24);
    assert_int_equal(d.page_size, 64u << 20);
    size_t fp = slc_host_store_footprint(d.page_count, d.page_size);
    if (SIZE_MAX > UINT32_MAX) {
        assert_true(fp == 64 + ((uint64_t)1 << 50) + 63);
        return;
    }
    assert_int_equal(fp, 0);
    assert_store_refused(&d);
}

static void test_spec_and_desc_assert_on_null(void **state)
{
    (void)state;
    slc_profile p;
    memset(&p, 0, sizeof p);
    slc_pool_spec spec;
    expect_assert_failure(slc_pool_spec_from_profile(NULL, SLC_POOL_GEOMETRY, &spec));
    expect_assert_failure(slc_pool_spec_from_profile(&p, SLC_POOL_GEOMETRY, NULL));
    expect_assert_failure(slc_pool_spec_from_profile(&p, SLC_POOL_KIND_COUNT, &spec));
    slc_pool_spec_from_profile(&p, SLC_POOL_GEOMETRY, &spec);
    slc_host_store_desc d;
    expect_assert_failure(slc_host_store_desc_from_spec(NULL, &d));
    expect_assert_failure(slc_host_store_desc_from_spec(&spec, NULL));
}

/* The store slc_host_store_init makes in an arena is the one
 * slc_host_store_init_at makes over the same bytes: same layout, same
 * counters, and nothing reserved beyond what the arena charged itself. */
static void test_arena_store_is_the_store_over_its_allocation(void **state)
{
    (void)state;
    enum { PAGES = 3, PAGE = 100 };
    size_t fp = slc_host_store_footprint(PAGES, PAGE);
    assert_int_equal(fp, 64 + PAGES * 128 + 63);
    _Alignas(SLC_HOST_STORE_PAGE_ALIGN) static unsigned char amem[SLC_ARENA_FOOTPRINT(64 + PAGES * 128 + 63)];
    _Alignas(SLC_HOST_STORE_PAGE_ALIGN) static unsigned char direct[64 + PAGES * 128];
    slc_arena *arena;
    assert_int_equal(slc_arena_init(amem, sizeof amem, NULL, SLC_BUDGET_NONE, &arena), SLC_OK);
    slc_page_store a, b;
    assert_int_equal(slc_host_store_init(arena, PAGES, PAGE, NULL, &a), SLC_OK);
    assert_int_equal(slc_host_store_init_at(direct, sizeof direct, NULL, SLC_BUDGET_NONE, PAGES, PAGE, NULL, &b),
                     SLC_OK);
    assert_ptr_equal(a.ops, b.ops);
    assert_string_equal(a.backend, b.backend);
    assert_int_equal(a.page_count, b.page_count);
    assert_int_equal(a.page_size, b.page_size);
    assert_ptr_equal(b.self, direct); /* the record first, then the pages */
    for (uint32_t i = 0; i < PAGES; i++) {
        slc_page_location la, lb;
        a.ops->locate(a.self, i, &la);
        b.ops->locate(b.self, i, &lb);
        assert_int_equal(la.segment, lb.segment);
        assert_int_equal(la.offset, lb.offset);
        assert_int_equal((unsigned char *)la.host - (unsigned char *)a.self,
                         (unsigned char *)lb.host - (unsigned char *)b.self);
    }
    slc_host_store_stats sa, sb;
    slc_host_store_get_stats(&a, &sa);
    slc_host_store_get_stats(&b, &sb);
    assert_memory_equal(&sa, &sb, sizeof sa);
    slc_host_store_deinit(&a);
    slc_host_store_deinit(&b);
    assert_null(a.ops);
    assert_null(b.ops);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_desc_from_spec_takes_the_pool_pages),
        cmocka_unit_test(test_desc_from_zeroed_profile_is_refused_by_init),
        cmocka_unit_test(test_desc_of_the_largest_profile_fits_only_64_bit_targets),
        cmocka_unit_test(test_spec_and_desc_assert_on_null),
        cmocka_unit_test(test_arena_store_is_the_store_over_its_allocation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
