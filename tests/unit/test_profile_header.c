/* SPDX-License-Identifier: MIT */
/* Every profile in budgets/ (and tests/unit/render_quality.profile, which
 * sets every [render] and [quality] key), emitted as a C header by `sluice
 * budget header`, compiles, holds the same configuration as the parsed file,
 * byte for byte, and states the block size the runtime computes on this
 * architecture and the host backend's page storage. */
#include "all_profiles.h"
#include "profile_sections.h"
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
        if (tool_profile_parse(text, len, profiles[i].path, &parsed, NULL, &d) != SLC_OK) {
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

/* The emitted header holds the runtime's sections only; [render] and
 * [quality] are their owners', read from the file: the test profile's
 * values, and default.profile's 1280x720 target and 28 dB floor in
 * milli-dB. */
static void test_render_and_quality_come_from_their_owners(void **state)
{
    (void)state;
    assert_string_equal(slc_profile_render_quality.name, "render-quality");
    static const struct {
        const char *path;
        uint32_t width, height, max_draws, max_placements, min_psnr_mdb;
    } want[] = {{"tests/unit/render_quality.profile", 641, 479, 12345, 1u << 24, 31125},
                {"budgets/default.profile", 1280, 720, 65536, 65536, 25000}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        size_t len;
        char *text = read_source_file(want[i].path, &len);
        slc_profile parsed;
        tool_profile_sections sec;
        slc_profile_diag d;
        if (tool_profile_parse(text, len, want[i].path, &parsed, &sec, &d) != SLC_OK) {
            fail_msg("%s", d.message);
        }
        free(text);
        assert_int_equal(sec.render.width, want[i].width);
        assert_int_equal(sec.render.height, want[i].height);
        assert_int_equal(sec.render.max_draws, want[i].max_draws);
        assert_int_equal(sec.render.max_placements, want[i].max_placements);
        assert_int_equal(sec.quality.min_psnr_mdb, want[i].min_psnr_mdb);
    }
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
        cmocka_unit_test(test_render_and_quality_come_from_their_owners),
        cmocka_unit_test(test_static_block_from_emitted_header_initialises),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
