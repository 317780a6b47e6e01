/* SPDX-License-Identifier: MIT */
/* A reader built without the LZ4 and meshopt codecs (SLUICE_CODEC_LZ4=OFF,
 * SLUICE_CODEC_MESHOPT=OFF: the bare-metal configuration) refuses a pack
 * with an LZ4 chunk at open, naming the option that left the codec out,
 * and leaves its arena as it was. */
#include "test_pack.h"

static _Alignas(64) unsigned char ameta[SLC_ARENA_FOOTPRINT(1 << 16)];
static slc_arena *meta;
static slc_profile limits;
static test_pack tp;
static capture_log logged;
static slc_logger logger;

static int setup(void **state)
{
    (void)state;
    if (slc_arena_init(ameta, sizeof ameta, NULL, (slc_budget_id){0}, &meta) != SLC_OK) {
        return -1;
    }
    tp_limits(&limits);
    logger = capture_logger(&logged);
    tp_build(&tp); /* chunk 0 stored, chunks 1 and 2 LZ4 */
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    free(tp.data);
    return 0;
}

static void expect_refused(const char *message)
{
    slc_arena_stats before, after;
    slc_arena_get_stats(meta, &before);
    slc_io io;
    slc_io_from_memory(tp.data, tp.size, &io);
    slc_pack *p = (slc_pack *)1;
    assert_int_equal(slc_pack_open(&io, "t.pack", &limits, meta, &logger, &p), SLC_E_PACK_VERSION);
    assert_null(p);
    assert_string_equal(logged.message, message);
    slc_arena_get_stats(meta, &after);
    assert_int_equal(after.used, before.used);
}

static void test_only_stored_chunks_are_built(void **state)
{
    (void)state;
    assert_int_equal(slc_pack_codec_is_built(SLC_PACK_CODEC_STORED), 1);
    assert_int_equal(slc_pack_codec_is_built(SLC_PACK_CODEC_LZ4), 0);
    assert_int_equal(slc_pack_codec_is_built(SLC_PACK_CODEC_MESHOPT), 0);
    assert_int_equal(slc_pack_codec_is_built(SLC_PACK_CODEC_MESHOPT_LZ4), 0);
}

static void test_lz4_chunk_is_refused_at_open(void **state)
{
    (void)state;
    expect_refused("pack 't.pack': chunk 1: codec 1 (lz4) is not built into this reader (SLUICE_CODEC_LZ4=OFF)");
}

/* meshopt-lz4 needs both codecs: the refusal names the first option off. */
static void test_meshopt_lz4_chunk_names_the_first_missing_codec(void **state)
{
    (void)state;
    tp_chunk(&tp, 1)->codec = SLC_PACK_CODEC_MESHOPT_LZ4;
    tp_reseal(&tp);
    expect_refused(
        "pack 't.pack': chunk 1: codec 3 (meshopt-lz4) is not built into this reader (SLUICE_CODEC_MESHOPT=OFF)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_only_stored_chunks_are_built),
        cmocka_unit_test(test_lz4_chunk_is_refused_at_open),
        cmocka_unit_test(test_meshopt_lz4_chunk_names_the_first_missing_codec),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
