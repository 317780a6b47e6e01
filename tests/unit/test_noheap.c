/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L
/* No heap after init: with malloc, calloc, realloc, free, aligned_alloc,
 * posix_memalign, mmap and munmap wrapped by the linker, everything the
 * runtime offers is exercised between slc_memory_init and slc_memory_deinit,
 * and not one of those calls happens. The block itself is mapped once, by
 * the platform, before init. The wrappers: noheap_wrap.h. */
#include "noheap_wrap.h"
#include "profile_sections.h"
#include "sluice/platform.h"
#include "test_util.h"

static void quiet(void *user, slc_log_level level, slc_status status, const char *message)
{
    (void)level;
    (void)status;
    (void)message;
    ++*(int *)user;
}

static void exercise(slc_memory *m, const slc_profile *p, const char *text, size_t len)
{
    slc_budgets *b = slc_memory_budgets(m);
    slc_budget_id meta, decode, pool;
    assert_int_equal(slc_budgets_scan(b, "cpu/meta", &meta), SLC_OK);
    assert_int_equal(slc_budgets_scan(b, "cpu/decode", &decode), SLC_OK);
    assert_int_equal(slc_budgets_scan(b, "gpu/pool", &pool), SLC_OK);
    assert_int_equal(slc_budgets_begin_phase(b, "open"), SLC_OK);
    slc_arena *arena = slc_memory_arena(m, meta);
    void *table;
    assert_int_equal(slc_arena_alloc(arena, 100000, 64, &table), SLC_OK);
    slc_arena *scratch = slc_memory_arena(m, decode);
    slc_arena_mark mark = slc_arena_get_mark(scratch);
    void *pool_mem;
    assert_int_equal(slc_arena_alloc(scratch, slc_block_pool_footprint(256, 64, 64), 64, &pool_mem), SLC_OK);
    slc_block_pool *records;
    assert_int_equal(
        slc_block_pool_init(pool_mem, slc_block_pool_footprint(256, 64, 64), 256, 64, NULL, SLC_BUDGET_NONE, &records),
        SLC_OK);
    assert_int_equal(slc_budgets_begin_phase(b, "stream"), SLC_OK);
    for (int frame = 0; frame < 1000; frame++) {
        void *blk[8];
        for (int i = 0; i < 8; i++) {
            assert_int_equal(slc_block_pool_alloc(records, &blk[i]), SLC_OK);
        }
        for (int i = 7; i >= 0; i--) {
            slc_block_pool_free(records, blk[i]);
        }
        assert_int_equal(slc_budgets_reserve(b, pool, p->page_size, NULL), SLC_OK);
        slc_budgets_release(b, pool, p->page_size);
        void *tmp;
        slc_arena_mark inner = slc_arena_get_mark(scratch);
        assert_int_equal(slc_arena_alloc(scratch, 4096, 16, &tmp), SLC_OK);
        slc_arena_reset(scratch, inner);
    }
    void *too_big;
    assert_int_equal(slc_arena_alloc(scratch, SIZE_MAX / 2, 16, &too_big), SLC_E_CAPACITY);
    slc_budget_refusal why;
    assert_int_equal(slc_budgets_reserve(b, pool, UINT64_MAX / 2, &why), SLC_E_BUDGET_REFUSED);
    slc_arena_reset(scratch, mark);
    slc_budget_stats report[SLC_BUDGET_MAX];
    assert_true(slc_budgets_walk_report(b, report, SLC_BUDGET_MAX) >= 8);
    slc_phase_stats ps;
    slc_budgets_get_phase(b, 1, meta, &ps);
    assert_true(slc_budgets_check(b));
    /* The parser is heap-free too, on good and bad input. */
    slc_profile again;
    slc_profile_diag d;
    assert_int_equal(tool_profile_parse(text, len, "default.profile", &again, NULL, &d), SLC_OK);
    assert_int_equal(tool_profile_parse(text, len / 2, "half.profile", &again, NULL, &d) != SLC_OK, 1);
    slc_memory_requirements r;
    assert_int_equal(slc_memory_calculate_requirements(p, &r), SLC_OK);
    (void)slc_status_name(SLC_E_CAPACITY);
}

static void test_no_heap_between_init_and_deinit(void **state)
{
    (void)state;
    size_t len;
    char *text = read_source_file("budgets/default.profile", &len);
    slc_profile p;
    slc_profile_diag d;
    assert_int_equal(tool_profile_parse(text, len, "default.profile", &p, NULL, &d), SLC_OK);
    slc_memory_requirements r;
    assert_int_equal(slc_memory_calculate_requirements(&p, &r), SLC_OK);

    noheap_maps = 0;
    slc_platform_block block;
    assert_int_equal(slc_platform_block_map(r.block_size, 0, NULL, &block), SLC_OK);
    assert_int_equal(noheap_maps, 1); /* the one mapping, on the init path */

    int logged = 0;
    slc_logger log = {quiet, &logged};
    slc_memory *m;
    noheap_calls = 0;
    noheap_counting = 1;
    slc_status s = slc_memory_init(block.base, block.size, &p, &log, &m);
    int init_calls = noheap_calls;
    if (s == SLC_OK) {
        exercise(m, &p, text, len);
        slc_memory_deinit(m);
    }
    noheap_counting = 0;
    assert_int_equal(s, SLC_OK);
    assert_int_equal(init_calls, 0);
    assert_int_equal(noheap_calls, 0);
    slc_platform_block_unmap(&block);
    free(text);
}

/* The meshopt decoders linked into the runtime: opening a pack of meshopt
 * and meshopt-LZ4 chunks and loading each, mapped and through read(), makes
 * no heap call in sluice's code (meshoptimizer's own: test_pack_meshopt). */
static slc_status noheap_read(void *user, uint64_t offset, void *dst, size_t size)
{
    const slc_io *from = user;
    if (offset > from->size || size > from->size - offset) {
        return SLC_E_IO_SHORT;
    }
    memcpy(dst, from->mapped + offset, size);
    return SLC_OK;
}

static void test_no_heap_while_meshopt_chunks_load(void **state)
{
    (void)state;
#if !defined(SLC_CODEC_MESHOPT) || !SLC_CODEC_MESHOPT
    skip(); /* a runtime built without the codec refuses these packs (test_pack_meshopt_off) */
#endif
    static _Alignas(64) unsigned char meta_mem[SLC_ARENA_FOOTPRINT(1 << 16)];
    static unsigned char page[4096], scratch[16384];
    const char *files[] = {"tests/fuzz/corpus/pack/box-meshopt.pack",
                           "tests/fuzz/corpus/pack/quantized-meshopt-lz4.pack"};
    slc_profile limits;
    memset(&limits, 0, sizeof limits);
    limits.page_size = 4096;
    limits.max_chunks = 64;
    limits.max_objects = 64;
    limits.max_lods = 8;
    limits.max_string_bytes = 4096;
    int loaded = 0;
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        size_t len;
        char *bytes = read_source_file(files[f], &len);
        for (int mapped = 0; mapped < 2; mapped++) {
            slc_io mem, io;
            slc_io_from_memory(bytes, len, &mem);
            io = mem;
            if (!mapped) {
                io.mapped = NULL;
                io.read = noheap_read;
                io.user = &mem;
            }
            noheap_calls = 0;
            noheap_counting = 1;
            slc_arena *meta;
            assert_int_equal(slc_arena_init(meta_mem, sizeof meta_mem, NULL, SLC_BUDGET_NONE, &meta), SLC_OK);
            slc_pack *p;
            assert_int_equal(slc_pack_open(&io, files[f], &limits, meta, NULL, &p), SLC_OK);
            assert_true(slc_pack_scratch_size(p) <= sizeof scratch);
            for (uint32_t c = 0; c < slc_pack_get_header(p)->chunk_count; c++) {
                assert_int_equal(slc_pack_load_chunk(p, (slc_chunk_id){c}, page, sizeof page, scratch, sizeof scratch),
                                 SLC_OK);
                assert_int_equal(slc_pack_check_chunk(p, (slc_chunk_id){c}, page), SLC_OK);
                loaded += slc_pack_get_chunk(p, (slc_chunk_id){c})->codec >= SLC_PACK_CODEC_MESHOPT;
            }
            slc_pack_close(p);
            noheap_counting = 0;
            assert_int_equal(noheap_calls, 0);
        }
        free(bytes);
    }
    assert_int_equal(loaded, 2 * (1 + 8)); /* every chunk of both packs is a meshopt one, twice */
}

static void test_the_counter_sees_heap_calls(void **state)
{
    (void)state;
    /* The wrappers do count: otherwise the test above could not fail. */
    noheap_calls = 0;
    noheap_counting = 1;
    void *volatile p = malloc(16); /* volatile: the pair may not be optimised away */
    free(p);
    void *q = NULL;
    assert_int_equal(posix_memalign(&q, 64, 64), 0);
    free(q);
    noheap_counting = 0;
    assert_int_equal(noheap_calls, 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_counter_sees_heap_calls),
        cmocka_unit_test(test_no_heap_between_init_and_deinit),
        cmocka_unit_test(test_no_heap_while_meshopt_chunks_load),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
