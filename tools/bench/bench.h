/* SPDX-License-Identifier: MIT */
/* sluice bench: every bench's entry and the dispatcher's texts. A new bench
 * is one file in tools/bench/ with its entry declared here and one row in
 * the table of bench.c. */
#ifndef SLUICE_TOOLS_BENCH_H
#define SLUICE_TOOLS_BENCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cli_args.h"

/* A bench's answer to a bad command line that the dispatcher answers with
 * every bench's synopsis on stderr and CLI_USAGE. */
enum { BENCH_USAGE_ALL = -2 };

/* Each bench's entry: argv[0..argc) are the arguments after its word
 * ("sluice bench load P --quick": P --quick); returns the process's exit
 * code (CLI_OK, CLI_FAILED, CLI_USAGE, CLI_IO) or BENCH_USAGE_ALL. */
int bench_alloc(int argc, char **argv);  /* bench_alloc.c */
int bench_load(int argc, char **argv);   /* bench_load.c */
int bench_pool(int argc, char **argv);   /* bench_pool.c */
int bench_stream(int argc, char **argv); /* bench_stream.c */
int bench_render(int argc, char **argv); /* bench_render.c */
int bench_codec(int argc, char **argv);  /* bench_codec.c */
int bench_evict(int argc, char **argv);  /* bench_evict.c */
int bench_lod(int argc, char **argv);    /* bench_lod.c */

/* The next of the benches' pseudo-random numbers (xorshift64; *s is the
 * state, never 0). */
static inline uint64_t bench_xorshift64(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

/* Writes every bench's synopsis to f (bench.c, as the next one), as `sluice bench` without a known
 * word prints it. */
void bench_print_usage(FILE *f);

/* A bench's --help on stdout (bench_util.c): about (its usage line and what it measures),
 * the options of spec, then "-h, --help" with its text at spec's
 * help_column. Returns CLI_OK. */
int bench_help(const cli_args *spec, const char *about);

/* "WxH" (each side 1..max) of --size into *w and *h: CLI_OK, or CLI_USAGE
 * with "ME: --size 'TEXT': expected WxH, each 1..MAX" and usage printed
 * (bench_util.c). */
int bench_parse_size(const char *me, const char *usage, const char *text, uint32_t max, uint32_t *w, uint32_t *h);

/* A new folder "$TMPDIR/STEM-XXXXXX" (/tmp when TMPDIR is unset or empty)
 * into dir (cap bytes), and cleanup registered with atexit so that what the
 * bench puts there does not outlive a run that exits early. CLI_OK, or
 * CLI_IO (the folder cannot be made: dir "") or CLI_FAILED (atexit refused:
 * cleanup called), with "ME: ..." printed (bench_util.c). */
int bench_tmp_dir(const char *me, const char *stem, char *dir, size_t cap, void (*cleanup)(void));

/* Writes every bench's lines of `sluice help` to f. */
void bench_print_help(FILE *f);

#endif
