/* SPDX-License-Identifier: MIT */
/* The CLI's option table (tools/cli_args.c): every kind stores what it
 * parsed, and every error (unknown option, missing value, bad number, out of
 * range, an operand too many) returns CLI_USAGE with its message on stderr. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli.h"
#include "cli_args.h"
#include "stderr_capture.h"

/* --- a command with one option of each kind ------------------------------------------ */

typedef struct fixture {
    int flag, choice, seen_count;
    const char *file;
    uint64_t count, size, plain;
    double ratio;
    const char *operands[2];
    size_t operand_count;
} fixture;

static const char *const colours[] = {"red", "green", "blue", NULL};

#define END ((const char *)NULL) /* ends parse's arguments: a pointer, not an int, through the ... */

/* Parses the NULL-terminated arguments after spec's options; usage_after
 * and missing as given. */
static int parse(fixture *f, unsigned usage_after, const char *missing, const char *first, ...)
{
    memset(f, 0, sizeof *f);
    f->ratio = 1.0;
    const cli_opt table[] = {
        {.name = "--flag", .kind = CLI_OPT_FLAG, .dest = &f->flag},
        {.name = "--plain", .kind = CLI_OPT_U64, .dest = &f->plain, .min = 1, .max = 5}, /* no .bad */
        {.name = "--file", .alias = "-f", .kind = CLI_OPT_STRING, .dest = &f->file, .bad = "{opt} needs a file"},
        {.name = "--count",
         .kind = CLI_OPT_U64,
         .dest = &f->count,
         .min = 2,
         .max = 40,
         .bad = "{opt} '{value}': expected a count in {min}..{max}",
         .seen = &f->seen_count},
        {.name = "--size",
         .kind = CLI_OPT_SIZE,
         .dest = &f->size,
         .min = 1,
         .max = UINT32_MAX,
         .bad = "{opt} '{value}' is not a size in bytes"},
        {.name = "--ratio",
         .kind = CLI_OPT_DOUBLE,
         .dest = &f->ratio,
         .dmin = 0.0,
         .open_min = 1,
         .dmax = 10.0,
         .bad = "{opt} '{value}': expected a ratio above 0"},
        {.name = "--colour",
         .kind = CLI_OPT_ENUM,
         .dest = &f->choice,
         .choices = colours,
         .bad = "{opt} '{value}': expected red, green or blue"},
    };
    char *argv[16];
    int argc = 0;
    va_list ap;
    va_start(ap, first);
    for (const char *a = first; a != NULL && argc < 16; a = va_arg(ap, const char *)) {
        argv[argc++] = (char *)a;
    }
    va_end(ap);
    const cli_args spec = {.me = "sluice test",
                           .opts = table,
                           .count = sizeof table / sizeof table[0],
                           .operands = f->operands,
                           .max_operands = 2,
                           .operand_count = &f->operand_count,
                           .missing = missing,
                           .unknown = "unexpected argument '{value}'",
                           .usage = "usage: sluice test [options]\n",
                           .usage_after = usage_after,
                           .help = 1};
    capture_begin();
    int rc = cli_args_parse(&spec, argc, argv);
    capture_end();
    return rc;
}

static void test_every_kind_stores_its_value(void **state)
{
    (void)state;
    fixture f;
    assert_int_equal(parse(&f, CLI_ARGS_ALL, NULL, "a", "--flag", "-f", "x.txt", "--count", "40", "--size", "64MiB",
                           "--ratio", "2.5", "--colour", "blue", "b", END),
                     CLI_OK);
    assert_int_equal(f.flag, 1);
    assert_string_equal(f.file, "x.txt");
    assert_int_equal(f.count, 40);
    assert_int_equal(f.seen_count, 1);
    assert_int_equal(f.size, 64u << 20);
    assert_true(f.ratio == 2.5);
    assert_int_equal(f.choice, 2);
    assert_int_equal(f.operand_count, 2);
    assert_string_equal(f.operands[0], "a");
    assert_string_equal(f.operands[1], "b");
    assert_string_equal(capture_text, "");
}

static void test_a_later_option_overrides_an_earlier_one(void **state)
{
    (void)state;
    fixture f;
    assert_int_equal(parse(&f, 0, NULL, "--count", "3", "--count", "4", "--file", "a", "--file", "b", END), CLI_OK);
    assert_int_equal(f.count, 4);
    assert_string_equal(f.file, "b");
}

static void test_a_value_may_start_with_a_dash(void **state)
{
    (void)state;
    fixture f;
    assert_int_equal(parse(&f, 0, NULL, "--file", "--flag", END), CLI_OK);
    assert_string_equal(f.file, "--flag");
    assert_int_equal(f.flag, 0);
}

static void test_help_ends_the_parse_where_it_stands(void **state)
{
    (void)state;
    fixture f;
    assert_int_equal(parse(&f, CLI_ARGS_ALL, NULL, "--count", "3", "-h", "--count", "x", END), CLI_ARGS_HELP);
    assert_int_equal(f.count, 3);
    assert_string_equal(capture_text, "");
    /* An error before --help is the result. */
    assert_int_equal(parse(&f, 0, NULL, "--count", "x", "--help", END), CLI_USAGE);
    assert_string_equal(capture_text, "sluice test: --count 'x': expected a count in 2..40\n");
}

static void test_unknown_option_is_refused_with_usage(void **state)
{
    (void)state;
    fixture f;
    assert_int_equal(parse(&f, CLI_ARGS_UNKNOWN, NULL, "--flag", "--frob", END), CLI_USAGE);
    assert_string_equal(capture_text, "sluice test: unexpected argument '--frob'\nusage: sluice test [options]\n");
    /* A lone "-" is an option unless dash_operand says otherwise. */
    assert_int_equal(parse(&f, 0, NULL, "-", END), CLI_USAGE);
    assert_string_equal(capture_text, "sluice test: unexpected argument '-'\n");
}

static void test_operand_too_many_is_refused(void **state)
{
    (void)state;
    fixture f;
    assert_int_equal(parse(&f, 0, NULL, "a", "b", "c", END), CLI_USAGE);
    assert_string_equal(capture_text, "sluice test: unexpected argument 'c'\n");
    assert_int_equal(f.operand_count, 2);
}

static void test_missing_value_uses_the_missing_template(void **state)
{
    (void)state;
    fixture f;
    assert_int_equal(parse(&f, CLI_ARGS_MISSING, "{opt} needs a value", "-f", END), CLI_USAGE);
    assert_string_equal(capture_text, "sluice test: -f needs a value\nusage: sluice test [options]\n");
    assert_null(f.file);
}

static void test_missing_value_without_template_uses_the_bad_message(void **state)
{
    (void)state;
    fixture f;
    assert_int_equal(parse(&f, 0, NULL, "--file", END), CLI_USAGE);
    assert_string_equal(capture_text, "sluice test: --file needs a file\n");
    assert_int_equal(parse(&f, 0, NULL, "--count", END), CLI_USAGE);
    assert_string_equal(capture_text, "sluice test: --count '': expected a count in 2..40\n");
}

/* An option whose table names no message is still refused out loud. */
static void test_an_option_without_a_message_gets_one_by_kind(void **state)
{
    (void)state;
    fixture f;
    assert_int_equal(parse(&f, 0, NULL, "--plain", "0", END), CLI_USAGE);
    assert_string_equal(capture_text, "sluice test: --plain '0' is not a whole number from 1 to 5\n");
    assert_int_equal(parse(&f, 0, NULL, "--plain", END), CLI_USAGE);
    assert_string_equal(capture_text, "sluice test: --plain needs a value\n");
    assert_int_equal(parse(&f, 0, NULL, "--plain", "5", END), CLI_OK);
    assert_int_equal(f.plain, 5);
}

static void test_bad_number_is_refused(void **state)
{
    (void)state;
    fixture f;
    static const char *const bad[] = {"x", "", "-1", "+3", " 3", "3x", "99999999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(parse(&f, CLI_ARGS_BAD, NULL, "--count", bad[i], END), CLI_USAGE);
        char want[128];
        snprintf(want, sizeof want,
                 "sluice test: --count '%s': expected a count in 2..40\nusage: sluice test [options]\n", bad[i]);
        assert_string_equal(capture_text, want);
        assert_int_equal(f.count, 0);
        assert_int_equal(f.seen_count, 0);
    }
}

static void test_number_out_of_range_is_refused(void **state)
{
    (void)state;
    fixture f;
    assert_int_equal(parse(&f, 0, NULL, "--count", "1", END), CLI_USAGE);
    assert_string_equal(capture_text, "sluice test: --count '1': expected a count in 2..40\n");
    assert_int_equal(parse(&f, 0, NULL, "--count", "41", END), CLI_USAGE);
    assert_string_equal(capture_text, "sluice test: --count '41': expected a count in 2..40\n");
    assert_int_equal(parse(&f, 0, NULL, "--count", "2", END), CLI_OK);
    assert_int_equal(f.count, 2);
}

static void test_bad_size_is_refused(void **state)
{
    (void)state;
    fixture f;
    static const char *const bad[] = {"0", "4GiB", "1.5", "12 parsecs", "-1K", "x"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(parse(&f, 0, NULL, "--size", bad[i], END), CLI_USAGE);
        char want[128];
        snprintf(want, sizeof want, "sluice test: --size '%s' is not a size in bytes\n", bad[i]);
        assert_string_equal(capture_text, want);
    }
    assert_int_equal(parse(&f, 0, NULL, "--size", "1.5 KiB", END), CLI_OK);
    assert_int_equal(f.size, 1536);
    assert_int_equal(parse(&f, 0, NULL, "--size", "2kB", END), CLI_OK);
    assert_int_equal(f.size, 2000);
}

static void test_bad_double_is_refused(void **state)
{
    (void)state;
    fixture f;
    static const char *const bad[] = {"0", "-1", "10.5", "nan", "inf", "", "2x"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(parse(&f, 0, NULL, "--ratio", bad[i], END), CLI_USAGE);
        char want[128];
        snprintf(want, sizeof want, "sluice test: --ratio '%s': expected a ratio above 0\n", bad[i]);
        assert_string_equal(capture_text, want);
        assert_true(f.ratio == 1.0);
    }
    assert_int_equal(parse(&f, 0, NULL, "--ratio", "10", END), CLI_OK);
    assert_true(f.ratio == 10.0);
}

static void test_enum_outside_its_choices_is_refused(void **state)
{
    (void)state;
    fixture f;
    assert_int_equal(parse(&f, 0, NULL, "--colour", "Red", END), CLI_USAGE);
    assert_string_equal(capture_text, "sluice test: --colour 'Red': expected red, green or blue\n");
    assert_int_equal(parse(&f, 0, NULL, "--colour", "green", END), CLI_OK);
    assert_int_equal(f.choice, 1);
}

static void test_dash_operand(void **state)
{
    (void)state;
    const char *ops[1];
    size_t n = 0;
    const cli_args spec = {.me = "sluice test",
                           .operands = ops,
                           .max_operands = 1,
                           .operand_count = &n,
                           .unknown = "unknown option '{value}'",
                           .dash_operand = 1};
    char *argv[] = {"-"};
    capture_begin();
    assert_int_equal(cli_args_parse(&spec, 1, argv), CLI_OK);
    capture_end();
    assert_int_equal(n, 1);
    assert_string_equal(ops[0], "-");
    /* Without help set, -h is an unknown option; without unknown, only the usage. */
    const cli_args quiet = {.me = "sluice test",
                            .operands = ops,
                            .max_operands = 1,
                            .operand_count = &n,
                            .usage = "usage: q\n",
                            .usage_after = CLI_ARGS_UNKNOWN};
    char *argv2[] = {"-h"};
    n = 0;
    capture_begin();
    assert_int_equal(cli_args_parse(&quiet, 1, argv2), CLI_USAGE);
    assert_string_equal(capture_end(), "usage: q\n");
}

static void test_usage_error_prints_message_and_usage(void **state)
{
    (void)state;
    capture_begin();
    assert_int_equal(cli_usage_error("sluice test", "usage: t\n", "no %s given", "PACK"), CLI_USAGE);
    assert_string_equal(capture_end(), "sluice test: no PACK given\nusage: t\n");
    capture_begin();
    assert_int_equal(cli_usage_error("sluice test", NULL, "bad"), CLI_USAGE);
    assert_string_equal(capture_end(), "sluice test: bad\n");
}

static void test_parse_u64_bounds(void **state)
{
    (void)state;
    uint64_t v = 7;
    assert_int_equal(cli_parse_u64("18446744073709551615", UINT64_MAX, &v), 1);
    assert_true(v == UINT64_MAX);
    assert_int_equal(cli_parse_u64("18446744073709551616", UINT64_MAX, &v), 0);
    assert_int_equal(cli_parse_u64("10", 9, &v), 0);
    assert_int_equal(cli_parse_u64(NULL, 9, &v), 0);
    assert_int_equal(cli_parse_u64("0", 0, &v), 1);
    assert_int_equal(v, 0);
}

static void test_comparators_order_ascending(void **state)
{
    (void)state;
    uint64_t a[] = {5, UINT64_MAX, 0, 3};
    qsort(a, 4, sizeof a[0], cli_cmp_u64);
    assert_true(a[0] == 0 && a[1] == 3 && a[2] == 5 && a[3] == UINT64_MAX);
    uint32_t b[] = {9, 1, UINT32_MAX};
    qsort(b, 3, sizeof b[0], cli_cmp_u32);
    assert_true(b[0] == 1 && b[1] == 9 && b[2] == UINT32_MAX);
    double c[] = {2.5, -1.0, 0.0};
    qsort(c, 3, sizeof c[0], cli_cmp_double);
    assert_true(c[0] == -1.0 && c[1] == 0.0 && c[2] == 2.5);
}

static void test_print_options_pads_to_the_column(void **state)
{
    (void)state;
    int x = 0;
    const cli_opt table[] = {
        {.name = "--json", .kind = CLI_OPT_FLAG, .dest = &x, .help = "as JSON"},
        {.name = "--hidden", .kind = CLI_OPT_FLAG, .dest = &x},
        {.name = "--output",
         .alias = "-o",
         .kind = CLI_OPT_STRING,
         .dest = &x,
         .arg = "FILE",
         .help = "first line\nsecond line"},
        {.name = "--n", .kind = CLI_OPT_U64, .dest = &x, .arg = "N", .help = "a count"},
    };
    const cli_args spec = {.me = "sluice test", .opts = table, .count = 4, .help_column = 16};
    FILE *f = tmpfile();
    assert_non_null(f);
    cli_args_print_options(f, &spec);
    rewind(f);
    char out[512];
    size_t n = fread(out, 1, sizeof out - 1, f);
    out[n] = '\0';
    fclose(f);
    assert_string_equal(out, "  --json        as JSON\n"
                             "  -o, --output FILE first line\n"
                             "                second line\n"
                             "  --n N         a count\n");
}

static void test_fail_exits_with_its_message(void **state)
{
    (void)state;
    capture_begin();
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        cli_fail("sluice bench", "out of memory");
    }
    int status = 0;
    pid_t waited = waitpid(pid, &status, 0);
    const char *err = capture_end();
    assert_int_equal(waited, pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), CLI_FAILED);
    assert_string_equal(err, "sluice bench: out of memory\n");
}

static void test_wants_help(void **state)
{
    (void)state;
    char *with[] = {"a", "-h"};
    char *without[] = {"a", "--helpful"};
    assert_int_equal(cli_wants_help(2, with), 1);
    assert_int_equal(cli_wants_help(2, without), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_kind_stores_its_value),
        cmocka_unit_test(test_a_later_option_overrides_an_earlier_one),
        cmocka_unit_test(test_a_value_may_start_with_a_dash),
        cmocka_unit_test(test_help_ends_the_parse_where_it_stands),
        cmocka_unit_test(test_unknown_option_is_refused_with_usage),
        cmocka_unit_test(test_operand_too_many_is_refused),
        cmocka_unit_test(test_missing_value_uses_the_missing_template),
        cmocka_unit_test(test_missing_value_without_template_uses_the_bad_message),
        cmocka_unit_test(test_an_option_without_a_message_gets_one_by_kind),
        cmocka_unit_test(test_bad_number_is_refused),
        cmocka_unit_test(test_number_out_of_range_is_refused),
        cmocka_unit_test(test_bad_size_is_refused),
        cmocka_unit_test(test_bad_double_is_refused),
        cmocka_unit_test(test_enum_outside_its_choices_is_refused),
        cmocka_unit_test(test_dash_operand),
        cmocka_unit_test(test_usage_error_prints_message_and_usage),
        cmocka_unit_test(test_parse_u64_bounds),
        cmocka_unit_test(test_comparators_order_ascending),
        cmocka_unit_test(test_print_options_pads_to_the_column),
        cmocka_unit_test(test_fail_exits_with_its_message),
        cmocka_unit_test(test_wants_help),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
