/* SPDX-License-Identifier: MIT */
/* The CLI's command lines and small helpers, in one place: every command
 * describes its options with a table of cli_opt (name, kind, where the value
 * goes, the message for a refused value) and hands it to cli_args_parse, and
 * the numbers, the usage errors and the sort comparators the commands share
 * are written here once. */
#ifndef SLUICE_TOOLS_CLI_ARGS_H
#define SLUICE_TOOLS_CLI_ARGS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* What an option takes, and what it stores through cli_opt.dest. */
typedef enum cli_opt_kind {
    CLI_OPT_FLAG,   /* no value; int: set to 1 */
    CLI_OPT_STRING, /* const char *: the value as given */
    CLI_OPT_U64,    /* uint64_t: a decimal count (cli_parse_u64) in [min, max] */
    CLI_OPT_SIZE,   /* uint64_t: bytes, with an optional unit (cli_parse_size), in [min, max] */
    CLI_OPT_DOUBLE, /* double: a number (strtod, the whole value) in [dmin, dmax], or (dmin, dmax] with open_min */
    CLI_OPT_ENUM    /* int: the index of the value in choices (NULL-terminated) */
} cli_opt_kind;

/* One option of a command. Messages are templates in which {opt} is the
 * option as typed, {value} its value, {min} and {max} the range of a
 * CLI_OPT_U64 or CLI_OPT_SIZE (in decimal). */
typedef struct cli_opt {
    const char *name;  /* "--frames" */
    const char *alias; /* "-o" beside "--output", or NULL */
    cli_opt_kind kind;
    void *dest;                 /* written only when the value is accepted */
    uint64_t min, max;          /* CLI_OPT_U64, CLI_OPT_SIZE */
    double dmin, dmax;          /* CLI_OPT_DOUBLE */
    int open_min;               /* CLI_OPT_DOUBLE: dmin itself is refused */
    const char *const *choices; /* CLI_OPT_ENUM */
    const char *bad;            /* the message for a refused value (and a missing one, see cli_args.missing);
                                   NULL: a message by kind ("{opt} '{value}' is not a whole number from {min}
                                   to {max}", "{opt} needs a value") */
    int *seen;                  /* NULL, or set to 1 when the option is given */
    const char *arg;            /* the value's name in the help ("FILE"), or NULL */
    const char *help;           /* the help text, lines separated by '\n'; NULL: not listed */
} cli_opt;

/* The errors cli_args_parse reports, as bits of cli_args.usage_after. */
enum {
    CLI_ARGS_MISSING = 1u, /* an option that takes a value is the last argument */
    CLI_ARGS_BAD = 2u,     /* a value refused */
    CLI_ARGS_UNKNOWN = 4u, /* an unknown option, or an operand too many */
    CLI_ARGS_ALL = 7u
};

/* A command line: the options, where the operands go, and how each error
 * is worded. Each message is printed on stderr as "<me>: <message>\n",
 * followed by usage when the error's bit is in usage_after. */
typedef struct cli_args {
    const char *me; /* "sluice run" */
    const cli_opt *opts;
    size_t count;
    const char **operands; /* receives the arguments that are not options, in order */
    size_t max_operands;   /* one more is refused as unknown */
    size_t *operand_count; /* in: 0; out: the operands stored */
    const char *missing;   /* template for a missing value; NULL: the option's own bad message */
    const char *unknown;   /* template for an unknown option or operand, {value} the argument; NULL: none */
    const char *usage;     /* printed after a message (NULL: nothing) */
    void (*print_usage)(FILE *f, const struct cli_args *spec); /* instead of usage, when not NULL */
    unsigned usage_after;                                      /* CLI_ARGS_* bits */
    int help;                                                  /* -h and --help end the parse with CLI_ARGS_HELP */
    int dash_operand;     /* "-" alone is an operand (else it is an unknown option) */
    unsigned help_column; /* where cli_args_print_options starts each option's help text */
} cli_args;

/* cli_args_parse's result after -h or --help (when cli_args.help is set):
 * the command prints its help on stdout and exits CLI_OK. */
#define CLI_ARGS_HELP (-1)

/* Parses argv[0..argc) from left to right: the first error is printed (see
 * cli_args) and ends the parse. A later option overrides an earlier one.
 * Returns CLI_OK, CLI_USAGE or CLI_ARGS_HELP. */
int cli_args_parse(const cli_args *spec, int argc, char **argv);

/* Prints one entry per option that has help, in table order: "  -o, --output
 * FILE" padded to help_column (at least one space), then the help's first
 * line; each further line indented to help_column. */
void cli_args_print_options(FILE *f, const cli_args *spec);

/* 1 when one of argv[0..argc) is --help or -h: the subcommand then prints
 * its usage on stdout and exits CLI_OK. */
int cli_wants_help(int argc, char **argv);

/* Prints "<me>: <message>\n" and usage (when not NULL) on stderr; returns
 * CLI_USAGE. */
int cli_usage_error(const char *me, const char *usage, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* A decimal number of at most max: digits only (no sign, no space), no
 * overflow. Returns 1 and sets *out, or 0. */
int cli_parse_u64(const char *s, uint64_t max, uint64_t *out);

/* Bytes: "65536", "64MiB", "64 M", "1.5GiB", "1kB" (K, M, G, T and KiB...:
 * powers of 1024; kB, KB, MB, GB, TB: of 1000); a whole number of bytes
 * below 2^64. Returns 1 and sets *out, or 0. */
int cli_parse_size(const char *s, uint64_t *out);

/* Exits with CLI_FAILED after "<me>: <what>" on stderr: for the benchmarks,
 * whose every setup step must succeed (cli_need). */
_Noreturn void cli_fail(const char *me, const char *what);

/* cli_fail(me, what) unless ok: a benchmark's setup step. Inline, so the
 * analyzer sees the failed branch end the run. */
static inline void cli_need(const char *me, int ok, const char *what)
{
    if (!ok) {
        cli_fail(me, what);
    }
}

/* qsort comparators, ascending. */
int cli_cmp_u32(const void *a, const void *b);
int cli_cmp_u64(const void *a, const void *b);
int cli_cmp_double(const void *a, const void *b);

/* The profile a command reads when it is given no --profile: the installed
 * one, <bindir>/../share/sluice/budgets/default.profile beside the running
 * executable (found through /proc/self/exe), when that file is readable;
 * else the source tree's budgets/default.profile, the path this build was
 * configured from (so a build folder works without an install). The same
 * answer on every call; the string lives as long as the process.
 * CLI_DEFAULT_PROFILE_HELP says so in the options' help. */
const char *cli_default_profile(void);
#define CLI_DEFAULT_PROFILE_HELP "the installed share/sluice/budgets/default.profile, else the source tree's"

#endif
