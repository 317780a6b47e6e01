/* SPDX-License-Identifier: MIT */
/* Status codes: names and descriptions come from one list. */
#include "test_util.h"

static void test_every_status_has_name_and_description(void **state)
{
    (void)state;
    for (int s = 0; s < SLC_STATUS_COUNT_; s++) {
        const char *name = slc_status_name((slc_status)s);
        assert_true(strncmp(name, "SLC_", 4) == 0);
        assert_true(strlen(slc_status_describe((slc_status)s)) >= 7);
        for (int t = 0; t < s; t++) {
            assert_string_not_equal(name, slc_status_name((slc_status)t));
        }
    }
    assert_string_equal(slc_status_name(SLC_OK), "SLC_OK");
    assert_string_equal(slc_status_name(SLC_E_BUDGET_REFUSED), "SLC_E_BUDGET_REFUSED");
    assert_string_equal(slc_status_describe(SLC_E_BLOCK_TOO_SMALL),
                        "the memory block is smaller than the profile requires");
}

static void test_unknown_status_is_named_unknown(void **state)
{
    (void)state;
    assert_string_equal(slc_status_name((slc_status)9999), "SLC_UNKNOWN");
    assert_string_equal(slc_status_name((slc_status)-1), "SLC_UNKNOWN");
    assert_string_equal(slc_status_describe((slc_status)SLC_STATUS_COUNT_), "not a sluice status");
}

static void test_version_matches_header(void **state)
{
    (void)state;
    assert_int_equal(slc_version(), SLC_VERSION_NUMBER);
    assert_int_equal(SLC_VERSION_NUMBER, SLC_VERSION_MAJOR * 10000 + SLC_VERSION_MINOR * 100 + SLC_VERSION_PATCH);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_status_has_name_and_description),
        cmocka_unit_test(test_unknown_status_is_named_unknown),
        cmocka_unit_test(test_version_matches_header),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
