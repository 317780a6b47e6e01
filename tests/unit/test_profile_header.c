/* SPDX-License-Identifier: MIT */
/* Every profile in budgets/ (and tests/unit/render_quality.profile, which
 * sets every [render] and [quality] key), emitted as a C header by `sluice
 * budget header`, compiles, holds the same configuration as the parsed file,
 * byte for byte, and states the block size the runtime computes on this
 * architecture and the host backend's page storage. */
#include "all_profiles.h"
#include "sluice/host_store.h"
#include "test_util.h"

static const struct {
    const char *path;
    const slc_profile *emitted;
    size_t block_size;
    size_t host_pages_size;
    size_t host_pages_align;
} profiles[] = {SLUICE_PROFILE_TABLE};

static void test_emitted_headers_match_parsed_profiles(void **state)
{
    (void)state;
    assert_true(sizeof profiles / sizeof profiles[0] >= 4);
    for (size_t i = 0; i < sizeof profiles / sizeof profiles[0]; i++) {
        FILE *f = fopen(profiles[i].path, "rb");
        assert_non_null(f);
        static char text[1 << 16];
        size_t len = fread(text, 1, sizeof text, f);
        fclose(f);
        slc_profile parsed;
        slc_profile_diag d;
        if (slc_profile_parse(text, len, profiles[i].path, &parsed, &d) != SLC_OK) {
            fail_msg("%s", d.message);
        }
        if (!slc_profile_equal(&parsed, profiles[i].emitted)) {
            fail_msg("%s: the emitted header differs from the parsed profile", profiles[i].path);
        }
        /* Byte-equal: the parser zeroes what it leaves (unused name bytes,
         * padding), as static initialisation does. */
        if (memcmp(&parsed, profiles[i].emitted, sizeof parsed) != 0) {
            fail_msg("%s: the emitted header's bytes differ from the parsed profile's", profiles[i].path);
        }
        slc_memory_requirements r;
        assert_int_equal(slc_memory_calculate_requirements(profiles[i].emitted, &r), SLC_OK);
        assert_int_equal(r.block_size, profiles[i].block_size);
        assert_int_equal(profiles[i].host_pages_size, slc_host_store_footprint(parsed.page_count, parsed.page_size));
        assert_int_equal(profiles[i].host_pages_align, SLC_HOST_STORE_PAGE_ALIGN);
        print_message("%s: block %zu bytes\n", parsed.name, r.block_size);
    }
}

/* The emitted header carries the [render] and [quality] sections: the test
 * profile's values, and default.profile's 28 dB floor in milli-dB. */
static void test_emitted_header_carries_render_and_quality(void **state)
{
    (void)state;
    const slc_profile *p = &slc_profile_render_quality;
    assert_string_equal(p->name, "render-quality");
    assert_int_equal(p->render_width, 641);
    assert_int_equal(p->render_height, 479);
    assert_int_equal(p->render_max_draws, 12345);
    assert_int_equal(p->render_max_placements, 1u << 24);
    assert_int_equal(p->min_psnr_mdb, 31125);
    assert_int_equal(slc_profile_default.render_width, 1280);
    assert_int_equal(slc_profile_default.render_height, 720);
    assert_int_equal(slc_profile_default.min_psnr_mdb, 28000); /* [quality] min_psnr_db = 28 */
}

/* Firmware that cannot read files: a static block sized by the emitted
 * macro, the emitted profile, and nothing else. */
static _Alignas(SLC_PROFILE_DEFAULT_BLOCK_ALIGN) unsigned char firmware_block[SLC_PROFILE_DEFAULT_BLOCK_SIZE];

static void test_static_block_from_emitted_header_initialises(void **state)
{
    (void)state;
    slc_memory *m;
    assert_int_equal(slc_memory_init(firmware_block, sizeof firmware_block, &slc_profile_default, NULL, &m), SLC_OK);
    slc_arena *meta;
    assert_int_equal(slc_memory_scan_arena(m, "cpu/meta", &meta), SLC_OK);
    slc_arena_stats s;
    slc_arena_get_stats(meta, &s);
    slc_budget_id id;
    assert_int_equal(slc_budgets_scan(slc_memory_budgets(m), "cpu/meta", &id), SLC_OK);
    slc_budget_stats b;
    slc_budgets_get(slc_memory_budgets(m), id, &b);
    assert_int_equal(s.capacity, b.limit);
    slc_memory_deinit(m);
    /* One byte less is refused. */
    assert_int_equal(slc_memory_init(firmware_block, sizeof firmware_block - 1, &slc_profile_default, NULL, &m),
                     SLC_E_BLOCK_TOO_SMALL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_emitted_headers_match_parsed_profiles),
        cmocka_unit_test(test_emitted_header_carries_render_and_quality),
        cmocka_unit_test(test_static_block_from_emitted_header_initialises),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
