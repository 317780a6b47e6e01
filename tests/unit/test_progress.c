/* SPDX-License-Identifier: MIT */
/* The progress line of pack and merge (tools/progress.c): what it says at
 * each point of a job (percent, rate, ETA unknown, minutes, hours), how it
 * fits a narrow terminal, and that nothing is drawn when stderr is not a
 * terminal. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "progress.h"

static void test_half_done_shows_percent_rate_eta_and_what(void **state)
{
    (void)state;
    char buf[256];
    /* 50 MB in 10 s: 5 MB/s; half done after 10 s: 10 s left. */
    size_t n = progress_format(buf, sizeof buf, 120, "pack", 0.5, 10.0, 50000000u, "mesh 3 of 6");
    assert_int_equal(n, strlen(buf));
    assert_string_equal(buf, "pack [############............]  50.0%     5.0 MB/s ETA 0:10 mesh 3 of 6");
}

static void test_nothing_done_has_unknown_eta(void **state)
{
    (void)state;
    char buf[256];
    progress_format(buf, sizeof buf, 120, "pack", 0.0, 3.0, 0, "");
    assert_string_equal(buf, "pack [........................]   0.0%     0.0 MB/s ETA --:--");
    /* No time elapsed: no rate either. */
    progress_format(buf, sizeof buf, 120, "pack", 0.0, 0.0, 0, NULL);
    assert_string_equal(buf, "pack [........................]   0.0%      -- MB/s ETA --:--");
}

static void test_unknown_total_has_no_percent_and_no_eta(void **state)
{
    (void)state;
    char buf[256];
    progress_format(buf, sizeof buf, 120, "merge", -1.0, 2.0, 4000000u, "part 2");
    assert_string_equal(buf, "merge [........................] --.-%     2.0 MB/s ETA --:-- part 2");
}

static void test_eta_in_minutes_hours_and_beyond(void **state)
{
    (void)state;
    char buf[256];
    /* 10% after 500 s: 4500 s left = 1:15:00. */
    progress_format(buf, sizeof buf, 120, "", 0.1, 500.0, 1000000u, "");
    assert_non_null(strstr(buf, "ETA 1:15:00"));
    assert_non_null(strstr(buf, " 10.0%"));
    assert_true(buf[0] == '['); /* no label: the bar first */
    /* 75% after 300 s: 100 s left = 1:40. */
    progress_format(buf, sizeof buf, 120, "", 0.75, 300.0, 1000000u, "");
    assert_non_null(strstr(buf, "ETA 1:40"));
    /* 0.1% after an hour: 999 hours left. */
    progress_format(buf, sizeof buf, 120, "", 0.001, 3600.0, 1000000u, "");
    assert_non_null(strstr(buf, "ETA >99h"));
    /* Done: nothing left. */
    progress_format(buf, sizeof buf, 120, "", 1.0, 10.0, 1000000u, "");
    assert_non_null(strstr(buf, "100.0%"));
    assert_non_null(strstr(buf, "ETA 0:00"));
    assert_non_null(strstr(buf, "[########################]"));
}

static void test_fraction_is_clamped(void **state)
{
    (void)state;
    char buf[256];
    progress_format(buf, sizeof buf, 120, "", 7.5, 1.0, 1, "");
    assert_non_null(strstr(buf, "100.0%"));
}

static void test_narrow_terminal_cuts_what_then_the_bar(void **state)
{
    (void)state;
    char buf[256];
    const char *what = "writing tables of a pack with a long name";
    const char *stats = " 50.0%     5.0 MB/s ETA 0:10";
    for (unsigned width = 1; width <= 120; width++) {
        size_t n = progress_format(buf, sizeof buf, width, "pack", 0.5, 10.0, 50000000u, what);
        assert_int_equal(n, strlen(buf));
        assert_true(n <= width - 1);
    }
    /* 70 columns: the full bar and the stats take 61, what is cut to the
     * 7 left after its space, and the space the cut leaves at its end. */
    size_t n = progress_format(buf, sizeof buf, 70, "pack", 0.5, 10.0, 50000000u, what);
    assert_int_equal(n, 68);
    assert_string_equal(buf, "pack [############............]  50.0%     5.0 MB/s ETA 0:10 writing");
    /* 60 columns: no room for what; the bar shrinks to what is left. */
    n = progress_format(buf, sizeof buf, 60, "pack", 0.5, 10.0, 50000000u, what);
    assert_string_equal(buf, "pack [###########............]  50.0%     5.0 MB/s ETA 0:10");
    assert_int_equal(n, 59);
    /* 45 columns: the bar is gone, the stats stay whole. */
    progress_format(buf, sizeof buf, 45, "pack", 0.5, 10.0, 50000000u, what);
    char want[64];
    snprintf(want, sizeof want, "pack %s", stats);
    assert_string_equal(buf, want);
    /* 20 columns: the line is cut. */
    n = progress_format(buf, sizeof buf, 20, "pack", 0.5, 10.0, 50000000u, what);
    assert_int_equal(n, 19);
    assert_memory_equal(buf, want, 19);
}

static void test_small_buffer_is_cut_and_terminated(void **state)
{
    (void)state;
    char buf[8];
    size_t n = progress_format(buf, sizeof buf, 120, "pack", 0.5, 10.0, 1, "x");
    assert_int_equal(n, 7);
    assert_string_equal(buf, "pack [#");
}

/* With stderr a regular file (not a terminal), start, updates and end write
 * nothing. */
static void test_no_bytes_when_stderr_is_not_a_terminal(void **state)
{
    (void)state;
    char path[] = "/tmp/test_progress_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    fflush(stderr);
    int saved = dup(STDERR_FILENO);
    assert_true(saved >= 0);
    assert_true(dup2(fd, STDERR_FILENO) == STDERR_FILENO);
    progress pg;
    progress_start(&pg, 1000, "pack", 0);
    for (uint64_t i = 0; i <= 1000; i += 100) {
        progress_update(&pg, i, "mesh");
    }
    progress_end(&pg);
    fflush(stderr);
    assert_true(dup2(saved, STDERR_FILENO) == STDERR_FILENO);
    close(saved);
    struct stat st;
    assert_int_equal(fstat(fd, &st), 0);
    close(fd);
    unlink(path);
    assert_int_equal(pg.on, 0);
    assert_int_equal(st.st_size, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_half_done_shows_percent_rate_eta_and_what),
        cmocka_unit_test(test_nothing_done_has_unknown_eta),
        cmocka_unit_test(test_unknown_total_has_no_percent_and_no_eta),
        cmocka_unit_test(test_eta_in_minutes_hours_and_beyond),
        cmocka_unit_test(test_fraction_is_clamped),
        cmocka_unit_test(test_narrow_terminal_cuts_what_then_the_bar),
        cmocka_unit_test(test_small_buffer_is_cut_and_terminated),
        cmocka_unit_test(test_no_bytes_when_stderr_is_not_a_terminal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
