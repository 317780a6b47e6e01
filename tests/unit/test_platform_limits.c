/* SPDX-License-Identifier: MIT */
/* slc_platform_query_memory_limits (platform/src/posix_os.c): what this
 * machine can give a mapping, for the checks made before mapping. */
#define _GNU_SOURCE
#include <sys/resource.h>
#include <unistd.h>

#include "sluice/platform.h"
#include "test_util.h"

static void test_physical_memory_is_the_page_count_times_the_page_size(void **state)
{
    (void)state;
    slc_platform_memory_limits lim;
    slc_platform_query_memory_limits(&lim);
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    assert_true(pages > 0 && page > 0);
    assert_true(lim.physical == (uint64_t)pages * (uint64_t)page);
#ifdef __linux__
    assert_true(lim.address_space_used > 0); /* this process is mapped somewhere */
#endif
}

static void test_address_space_limit_follows_rlimit_as(void **state)
{
    (void)state;
    struct rlimit saved;
    assert_int_equal(getrlimit(RLIMIT_AS, &saved), 0);
    slc_platform_memory_limits lim;
    slc_platform_query_memory_limits(&lim);
    if (saved.rlim_cur == RLIM_INFINITY) {
        assert_true(lim.address_space_limit == UINT64_MAX);
    } else {
        assert_true(lim.address_space_limit == (uint64_t)saved.rlim_cur);
    }
    /* A soft limit below the hard one, far above what anything here maps
     * (so sanitizers and emulators are not starved), then restored. */
    struct rlimit lower = saved;
    lower.rlim_cur = saved.rlim_max == RLIM_INFINITY ? (rlim_t)-2 : saved.rlim_max - 1;
    if (setrlimit(RLIMIT_AS, &lower) == 0) {
        /* As getrlimit now reports it (an emulator may keep the host's). */
        struct rlimit now;
        assert_int_equal(getrlimit(RLIMIT_AS, &now), 0);
        slc_platform_query_memory_limits(&lim);
        assert_true(lim.address_space_limit == (now.rlim_cur == RLIM_INFINITY ? UINT64_MAX : (uint64_t)now.rlim_cur));
        assert_int_equal(setrlimit(RLIMIT_AS, &saved), 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_physical_memory_is_the_page_count_times_the_page_size),
        cmocka_unit_test(test_address_space_limit_follows_rlimit_as),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
