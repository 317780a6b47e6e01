/* SPDX-License-Identifier: MIT */
/* The CLI's option tables and small helpers (cli_args.h). */
#define _POSIX_C_SOURCE 200809L /* readlink */
#include "cli_args.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

int cli_wants_help(int argc, char **argv)
{
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            return 1;
        }
    }
    return 0;
}

int cli_usage_error(const char *me, const char *usage, const char *fmt, ...)
{
    fprintf(stderr, "%s: ", me);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap); /* NOLINT(clang-analyzer-valist.Uninitialized): va_start is just above */
    va_end(ap);
    fputc('\n', stderr);
    if (usage != NULL) {
        fputs(usage, stderr);
    }
    return CLI_USAGE;
}

int cli_parse_u64(const char *s, uint64_t max, uint64_t *out)
{
    if (s == NULL || *s < '0' || *s > '9') {
        return 0;
    }
    errno = 0;
    char *end = NULL;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || *end != '\0' || v > max) {
        return 0;
    }
    *out = v;
    return 1;
}

int cli_parse_size(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno != 0 || !(v >= 0.0)) {
        return 0;
    }
    while (*end == ' ') {
        end++;
    }
    static const struct {
        const char *suffix;
        double mult;
    } units[] = {
        {"", 1.0},
        {"B", 1.0},
        {"K", 1024.0},
        {"KiB", 1024.0},
        {"k", 1024.0},
        {"M", 1048576.0},
        {"MiB", 1048576.0},
        {"G", 1073741824.0},
        {"GiB", 1073741824.0},
        {"T", 1099511627776.0},
        {"TiB", 1099511627776.0},
        {"kB", 1e3},
        {"KB", 1e3},
        {"MB", 1e6},
        {"GB", 1e9},
        {"TB", 1e12},
    };
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (strcmp(end, units[i].suffix) == 0) {
            double bytes = v * units[i].mult;
            if (bytes >= 18446744073709551615.0 || bytes != floor(bytes)) {
                return 0;
            }
            *out = (uint64_t)bytes;
            return 1;
        }
    }
    return 0;
}

void cli_fail(const char *me, const char *what)
{
    fprintf(stderr, "%s: %s\n", me, what);
    exit(CLI_FAILED);
}

int cli_cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

int cli_cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

int cli_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* --- the option table --------------------------------------------------------------- */

/* The message of an option that names none (cli_opt.bad NULL): a refusal is
 * never silent. */
static const char *default_template(unsigned error, const cli_opt *o)
{
    if (error == CLI_ARGS_MISSING) {
        return "{opt} needs a value";
    }
    switch (o != NULL ? o->kind : CLI_OPT_STRING) {
    case CLI_OPT_U64:
        return "{opt} '{value}' is not a whole number from {min} to {max}";
    case CLI_OPT_SIZE:
        return "{opt} '{value}' is not a size from {min} to {max} bytes";
    case CLI_OPT_DOUBLE:
        return "{opt} '{value}' is not a number in its range";
    case CLI_OPT_ENUM:
        return "{opt} '{value}' is not one of its values (see --help)";
    default:
        return "{opt} '{value}' is refused";
    }
}

/* Prints "<me>: " and tmpl (or the default for the error and the option's
 * kind) with {opt}, {value}, {min} and {max} replaced, then the usage when
 * the error's bit asks for it; returns CLI_USAGE. */
static int report(const cli_args *spec, unsigned error, const char *tmpl, const char *opt, const char *value,
                  const cli_opt *o)
{
    if (tmpl == NULL && error != CLI_ARGS_UNKNOWN) {
        tmpl = default_template(error, o);
    }
    if (tmpl != NULL) {
        fprintf(stderr, "%s: ", spec->me);
        for (const char *p = tmpl; *p != '\0'; p++) {
            if (strncmp(p, "{opt}", 5) == 0) {
                fputs(opt != NULL ? opt : "", stderr);
                p += 4;
            } else if (strncmp(p, "{value}", 7) == 0) {
                fputs(value != NULL ? value : "", stderr);
                p += 6;
            } else if (o != NULL && strncmp(p, "{min}", 5) == 0) {
                fprintf(stderr, "%" PRIu64, o->min);
                p += 4;
            } else if (o != NULL && strncmp(p, "{max}", 5) == 0) {
                fprintf(stderr, "%" PRIu64, o->max);
                p += 4;
            } else {
                fputc(*p, stderr);
            }
        }
        fputc('\n', stderr);
    }
    if ((spec->usage_after & error) != 0) {
        if (spec->print_usage != NULL) {
            spec->print_usage(stderr, spec);
        } else if (spec->usage != NULL) {
            fputs(spec->usage, stderr);
        }
    }
    return CLI_USAGE;
}

static const cli_opt *find(const cli_args *spec, const char *a)
{
    for (size_t i = 0; i < spec->count; i++) {
        const cli_opt *o = &spec->opts[i];
        if (strcmp(a, o->name) == 0 || (o->alias != NULL && strcmp(a, o->alias) == 0)) {
            return o;
        }
    }
    return NULL;
}

/* Stores v through o->dest when o accepts it; returns 1, or 0 for a refused value. */
static int store(const cli_opt *o, const char *v)
{
    switch (o->kind) {
    case CLI_OPT_FLAG:
        *(int *)o->dest = 1;
        return 1;
    case CLI_OPT_STRING:
        *(const char **)o->dest = v;
        return 1;
    case CLI_OPT_U64:
    case CLI_OPT_SIZE: {
        uint64_t n = 0;
        int ok = o->kind == CLI_OPT_U64 ? cli_parse_u64(v, o->max, &n) : cli_parse_size(v, &n);
        if (!ok || n < o->min || n > o->max) {
            return 0;
        }
        *(uint64_t *)o->dest = n;
        return 1;
    }
    case CLI_OPT_DOUBLE: {
        char *end = NULL;
        double d = strtod(v, &end);
        if (end == v || *end != '\0' || !(o->open_min ? d > o->dmin : d >= o->dmin) || !(d <= o->dmax)) {
            return 0;
        }
        *(double *)o->dest = d;
        return 1;
    }
    case CLI_OPT_ENUM:
        for (int i = 0; o->choices[i] != NULL; i++) {
            if (strcmp(v, o->choices[i]) == 0) {
                *(int *)o->dest = i;
                return 1;
            }
        }
        return 0;
    }
    return 0;
}

int cli_args_parse(const cli_args *spec, int argc, char **argv)
{
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (spec->help && (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)) {
            return CLI_ARGS_HELP;
        }
        const cli_opt *o = find(spec, a);
        if (o == NULL) {
            int option = a[0] == '-' && !(spec->dash_operand && a[1] == '\0');
            if (option || *spec->operand_count >= spec->max_operands) {
                return report(spec, CLI_ARGS_UNKNOWN, spec->unknown, a, a, NULL);
            }
            spec->operands[(*spec->operand_count)++] = a;
            continue;
        }
        const char *v = NULL;
        if (o->kind != CLI_OPT_FLAG) {
            if (i + 1 >= argc) {
                return report(spec, CLI_ARGS_MISSING, spec->missing != NULL ? spec->missing : o->bad, a, NULL, o);
            }
            v = argv[++i];
        }
        if (!store(o, v)) {
            return report(spec, CLI_ARGS_BAD, o->bad, a, v, o);
        }
        if (o->seen != NULL) {
            *o->seen = 1;
        }
    }
    return CLI_OK;
}

void cli_args_print_options(FILE *f, const cli_args *spec)
{
    for (size_t i = 0; i < spec->count; i++) {
        const cli_opt *o = &spec->opts[i];
        if (o->help == NULL) {
            continue;
        }
        int n = fprintf(f, "  %s%s%s%s%s", o->alias != NULL ? o->alias : "", o->alias != NULL ? ", " : "", o->name,
                        o->arg != NULL ? " " : "", o->arg != NULL ? o->arg : "");
        const char *line = o->help;
        do {
            const char *end = strchr(line, '\n');
            size_t len = end != NULL ? (size_t)(end - line) : strlen(line);
            int pad = (int)spec->help_column - (n > 0 ? n : 0);
            fprintf(f, "%*s%.*s\n", pad > 1 ? pad : 1, "", (int)len, line);
            n = 0;
            line = end != NULL ? end + 1 : NULL;
        } while (line != NULL);
    }
}

#ifndef SLUICE_SOURCE_PROFILE
#define SLUICE_SOURCE_PROFILE "budgets/default.profile"
#endif
#ifndef SLUICE_BIN_TO_PROFILE
#define SLUICE_BIN_TO_PROFILE "../share/sluice/budgets/default.profile"
#endif

const char *cli_default_profile(void)
{
    static char path[4096];
    static const char *chosen;
    if (chosen != NULL) {
        return chosen;
    }
    chosen = SLUICE_SOURCE_PROFILE;
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    if (n <= 0) {
        return chosen;
    }
    path[n] = '\0';
    char *slash = strrchr(path, '/');
    size_t dir = slash != NULL ? (size_t)(slash - path) + 1 : 0;
    if (dir + sizeof SLUICE_BIN_TO_PROFILE > sizeof path) {
        return chosen;
    }
    memcpy(path + dir, SLUICE_BIN_TO_PROFILE, sizeof SLUICE_BIN_TO_PROFILE);
    if (access(path, R_OK) == 0) {
        chosen = path;
    }
    return chosen;
}
