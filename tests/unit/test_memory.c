/* SPDX-License-Identifier: MIT */
/* The one block: exact requirements from a profile, carving, refusals. */
#include "sluice/platform.h"
#include "test_util.h"

static const char profile_text[] =
    "[budgets]\n"
    "cpu = 1 MiB\n" /* 64 KiB of its own, beside its children */
    "cpu/meta = 512 KiB\n"
    "cpu/decode = 256 KiB\n"
    "cpu/queues = 100 B\n"    /* not a multiple of the alignment */
    "cpu/driver = 196508 B\n" /* 1 MiB - 512 KiB - 256 KiB - 100 - 64 KiB */
    "cpu/spare = 0\n"         /* owns nothing: no arena */
    "gpu = 64 MiB\n"
    "gpu/pool = 32 MiB\n"
    "gpu/staging = 0\n"
    "[pool]\npage_size = 64 KiB\npage_count = 512\n"
    "[stream]\nframes_in_flight = 2\nworkers = 1\nqueue_capacity = 64\nstaging_size = 0\nupload_per_frame = 1 MiB\n"
    "[tables]\nmax_objects = 10\nmax_chunks = 100\nmax_lods = 4\nmax_string_bytes = 4 KiB\n"
    "[report]\nmax_phases = 4\n";

static slc_profile profile;

static int setup(void **state)
{
    (void)state;
    slc_profile_diag d;
    if (slc_profile_parse(profile_text, strlen(profile_text), "memory.profile", &profile, &d) != SLC_OK) {
        print_error("%s\n", d.message);
        return -1;
    }
    return 0;
}

/* What the block must hold, computed by hand from the documented sizes. */
static size_t expected_block_size(void)
{
    size_t budgets = SLC_BUDGETS_FOOTPRINT(9, 4); /* 9 budgets, 4 phases: a multiple of 64 */
    size_t arenas = (SLC_ARENA_HEADER_SIZE + 65536) + (SLC_ARENA_HEADER_SIZE + 524288) +
                    (SLC_ARENA_HEADER_SIZE + 262144) + (SLC_ARENA_HEADER_SIZE + 128) + /* 100 rounded to 64 */
                    (SLC_ARENA_HEADER_SIZE + 196544);                                  /* 196508 rounded */
    return SLC_MEMORY_HEADER_SIZE + budgets + arenas;
}

static void test_requirements_are_exact(void **state)
{
    (void)state;
    slc_memory_requirements r;
    assert_int_equal(slc_memory_calculate_requirements(&profile, &r), SLC_OK);
    assert_int_equal(r.block_size, expected_block_size());
    assert_int_equal(r.block_size, 1024 + 128 + 9 * 128 + 4 * 64 + 9 * 4 * 32 + 5 * 64 + 1048576 + 28 + 36);
    assert_int_equal(r.block_align, 64);
    assert_int_equal(r.arena_count, 5);
    assert_int_equal(r.arena_bytes, 1048576);
    assert_int_equal(r.overhead + r.arena_bytes, r.block_size);
}

static void test_requirements_refuse_inconsistent_profile(void **state)
{
    (void)state;
    slc_profile p = profile;
    slc_memory_requirements r;
    p.budget_count = 0;
    assert_int_equal(slc_memory_calculate_requirements(&p, &r), SLC_E_INVALID);
    assert_int_equal(r.block_size, 0);
    p = profile;
    p.max_phases = 0;
    assert_int_equal(slc_memory_calculate_requirements(&p, &r), SLC_E_INVALID);
}

static void test_requirements_refuse_what_cannot_be_addressed(void **state)
{
    (void)state;
    slc_profile p = profile;
    slc_memory_requirements r;
    p.budgets[0].limit = (uint64_t)2 << 40; /* cpu: 2 TiB, above what a profile may declare */
    assert_int_equal(slc_memory_calculate_requirements(&p, &r), SLC_E_INVALID);
    p.budgets[0].limit = (uint64_t)1 << 40; /* 1 TiB: fine on 64-bit, not on a 32-bit target */
    slc_status s = slc_memory_calculate_requirements(&p, &r);
    if (sizeof(size_t) == 4) {
        assert_int_equal(s, SLC_E_INVALID);
    } else {
        assert_int_equal(s, SLC_OK);
        assert_true((uint64_t)r.block_size > ((uint64_t)1 << 40));
    }
}

static void test_init_refuses_inconsistent_budget_tree(void **state)
{
    (void)state;
    /* A hand-built profile (not from the parser) whose children outgrow
     * their parent: the budget manager refuses it, init fails cleanly. */
    slc_profile p = profile;
    p.budgets[0].limit = 1024; /* cpu */
    slc_memory_requirements r;
    assert_int_equal(slc_memory_calculate_requirements(&p, &r), SLC_OK);
    slc_platform_block block;
    assert_int_equal(slc_platform_block_map(r.block_size, 0, NULL, &block), SLC_OK);
    capture_log c;
    slc_logger log = capture_logger(&c);
    slc_memory *m = (slc_memory *)1;
    assert_int_equal(slc_memory_init(block.base, block.size, &p, &log, &m), SLC_E_INVALID);
    assert_null(m);
    assert_string_equal(c.message, "budgets: children of 'cpu' sum to more than its limit 1024");
    slc_platform_block_unmap(&block);
}

static void test_init_carves_arenas_for_cpu_budgets(void **state)
{
    (void)state;
    slc_memory_requirements r;
    assert_int_equal(slc_memory_calculate_requirements(&profile, &r), SLC_OK);
    slc_platform_block block;
    assert_int_equal(slc_platform_block_map(r.block_size, SLC_PLATFORM_BLOCK_DEFAULT, NULL, &block), SLC_OK);
    assert_int_equal((uintptr_t)block.base % SLC_BLOCK_ALIGN, 0);
    memset(block.base, 0xee, block.size); /* init must not rely on zeroed memory */
    slc_memory *m;
    assert_int_equal(slc_memory_init(block.base, r.block_size, &profile, NULL, &m), SLC_OK);
    slc_budgets *b = slc_memory_budgets(m);
    assert_int_equal(slc_budgets_count(b), 9);

    static const struct {
        const char *name;
        size_t capacity; /* 0: no arena */
    } want[] = {{"cpu", 65536},      {"cpu/meta", 524288},   {"cpu/decode", 262144},
                {"cpu/queues", 100}, {"cpu/driver", 196508}, {"cpu/spare", 0},
                {"gpu", 0},          {"gpu/pool", 0},        {"gpu/staging", 0}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        slc_budget_id id;
        assert_int_equal(slc_budgets_scan(b, want[i].name, &id), SLC_OK);
        slc_arena *a = slc_memory_arena(m, id);
        slc_arena *scanned;
        slc_status s = slc_memory_scan_arena(m, want[i].name, &scanned);
        if (want[i].capacity == 0) {
            assert_null(a);
            assert_int_equal(s, SLC_E_INVALID);
            continue;
        }
        assert_non_null(a);
        assert_int_equal(s, SLC_OK);
        assert_ptr_equal(scanned, a);
        slc_arena_stats st;
        slc_arena_get_stats(a, &st);
        assert_int_equal(st.capacity, want[i].capacity);
        assert_int_equal(st.used, 0);
        /* The whole budget can be allocated, then not one byte more. */
        void *p;
        assert_int_equal(slc_arena_alloc(a, want[i].capacity, 1, &p), SLC_OK);
        assert_true((unsigned char *)p >= (unsigned char *)block.base);
        assert_true((unsigned char *)p + want[i].capacity <= (unsigned char *)block.base + r.block_size);
        memset(p, (int)i, want[i].capacity);
        assert_int_not_equal(slc_arena_alloc(a, 1, 1, &p), SLC_OK);
    }
    slc_budget_stats cpu;
    slc_budgets_get(b, (slc_budget_id){0}, &cpu);
    assert_string_equal(cpu.name, "cpu");
    assert_int_equal(cpu.current, 1048576);
    assert_int_equal(cpu.peak, 1048576);
    assert_true(slc_budgets_check(b));
    slc_arena *none;
    assert_int_equal(slc_memory_scan_arena(m, "cpu/nothing", &none), SLC_E_NOT_FOUND);
    assert_null(none);

    /* The block can be carved again after deinit, from scratch. */
    slc_memory_deinit(m);
    assert_int_equal(slc_memory_init(block.base, block.size, &profile, NULL, &m), SLC_OK);
    slc_budgets_get(slc_memory_budgets(m), (slc_budget_id){0}, &cpu);
    assert_int_equal(cpu.current, 0);
    slc_memory_deinit(m);
    slc_platform_block_unmap(&block);
    assert_null(block.base);
}

static void test_init_refuses_bad_blocks_with_both_numbers(void **state)
{
    (void)state;
    slc_memory_requirements r;
    assert_int_equal(slc_memory_calculate_requirements(&profile, &r), SLC_OK);
    slc_platform_block block;
    assert_int_equal(slc_platform_block_map(r.block_size + 64, 0, NULL, &block), SLC_OK);
    capture_log c;
    slc_logger log = capture_logger(&c);
    slc_memory *m = (slc_memory *)1;

    assert_int_equal(slc_memory_init(NULL, r.block_size, &profile, &log, &m), SLC_E_BLOCK_NULL);
    assert_null(m);
    assert_string_equal(c.message, "memory: the block is NULL");

    assert_int_equal(slc_memory_init((char *)block.base + 32, r.block_size, &profile, &log, &m),
                     SLC_E_BLOCK_MISALIGNED);
    assert_non_null(strstr(c.message, "is not aligned to 64 bytes"));

    assert_int_equal(slc_memory_init(block.base, r.block_size - 1, &profile, &log, &m), SLC_E_BLOCK_TOO_SMALL);
    char want[160];
    snprintf(want, sizeof want, "memory: the block has %zu bytes; profile 'unnamed' needs %zu", r.block_size - 1,
             r.block_size);
    assert_string_equal(c.message, want);
    assert_int_equal(c.status, SLC_E_BLOCK_TOO_SMALL);

    slc_profile bad = profile;
    bad.max_phases = 0;
    assert_int_equal(slc_memory_init(block.base, block.size, &bad, &log, &m), SLC_E_INVALID);
    assert_string_equal(c.message,
                        "memory: profile 'unnamed' is inconsistent or needs more memory than this target can address");

    /* A bigger block than needed is fine. */
    assert_int_equal(slc_memory_init(block.base, block.size, &profile, &log, &m), SLC_OK);
    slc_memory_deinit(m);
    expect_assert_failure(slc_memory_budgets(m)); /* used after deinit */
    slc_platform_block_unmap(&block);
}

static void test_platform_block_map_refuses_zero_and_huge(void **state)
{
    (void)state;
    slc_platform_block block;
    capture_log c;
    slc_logger log = capture_logger(&c);
    assert_int_equal(slc_platform_block_map(0, 0, &log, &block), SLC_E_INVALID);
    assert_null(block.base);
    assert_int_equal(slc_platform_block_map(SIZE_MAX - 4095, 0, &log, &block), SLC_E_PLATFORM);
    assert_null(block.base);
    assert_int_equal(c.status, SLC_E_PLATFORM);
    assert_true(strncmp(c.message, "platform: mmap of ", 18) == 0);
    assert_non_null(strstr(c.message, "bytes failed: "));
    /* Locking may be refused by RLIMIT_MEMLOCK; the mapping still works. */
    assert_int_equal(slc_platform_block_map(4096, SLC_PLATFORM_BLOCK_LOCK, &log, &block), SLC_OK);
    assert_true(block.locked == 0 || block.locked == 1);
    ((unsigned char *)block.base)[4095] = 1;
    slc_platform_block_unmap(&block);
}

static void test_now_ns_is_monotonic(void **state)
{
    (void)state;
    uint64_t a = slc_platform_now_ns();
    uint64_t b = slc_platform_now_ns();
    assert_true(b >= a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_requirements_are_exact),
        cmocka_unit_test(test_requirements_refuse_inconsistent_profile),
        cmocka_unit_test(test_requirements_refuse_what_cannot_be_addressed),
        cmocka_unit_test(test_init_refuses_inconsistent_budget_tree),
        cmocka_unit_test(test_init_carves_arenas_for_cpu_budgets),
        cmocka_unit_test(test_init_refuses_bad_blocks_with_both_numbers),
        cmocka_unit_test(test_platform_block_map_refuses_zero_and_huge),
        cmocka_unit_test(test_now_ns_is_monotonic),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
