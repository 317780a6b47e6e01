/* SPDX-License-Identifier: MIT */
/* sluice CLI: subcommands and the helpers they share. */
#ifndef SLUICE_TOOLS_CLI_H
#define SLUICE_TOOLS_CLI_H

#include <stdio.h>

#include "cli_args.h"
#include "profile_sections.h"
#include "sluice/platform.h"
#include "sluice/sluice.h"
#include "trace.h"

/* Exit codes of every subcommand. */
enum {
    CLI_OK = 0,
    CLI_FAILED = 1, /* the input was read and judged bad */
    CLI_USAGE = 2,  /* bad command line */
    CLI_IO = 3      /* a file could not be read or written */
};

/* Each subcommand's entry: argv[0..argc) are the arguments after its
 * words ("sluice budget fit P K": P K); returns the process's exit code. */
int cmd_budget(int argc, char **argv);
int cmd_budget_fit(int argc, char **argv); /* fit_cmd.c */
int cmd_run(int argc, char **argv);        /* run_cmd.c */
int cmd_render(int argc, char **argv);     /* render_cmd.c */
int cmd_bench(int argc, char **argv);      /* bench/bench.c */
int cmd_pack(int argc, char **argv);
int cmd_merge(int argc, char **argv); /* merge_cmd.c */
int cmd_inspect(int argc, char **argv);

/* Reads a whole file (at most max bytes) into a malloc'd buffer; the tools
 * may use the heap, the runtime may not. Prints the reason and returns NULL
 * on failure. */
char *cli_read_file(const char *path, size_t max, size_t *len);

/* Reads and parses a profile file (tool_profile_parse: the runtime's
 * sections, [render] and [quality]); prints the diagnostic and returns the
 * exit code on failure. cli_load_profile_sections also gives [render] and
 * [quality]'s values (sections may be NULL). */
int cli_load_profile(const char *path, slc_profile *out);
int cli_load_profile_sections(const char *path, slc_profile *out, tool_profile_sections *sections);

/* CLI_OK when p declares its gpu budgets; for a host-only profile (no gpu
 * budget, sluice/profile.h) prints "ME: FILE: profile 'NAME' is host-only
 * ...: WHAT needs gpu, gpu/pool, gpu/staging (SLC_E_PROFILE_MISSING)" on
 * stderr and returns CLI_FAILED. path may be NULL (not named). */
int cli_refuse_host_only(const char *me, const char *path, const slc_profile *p, const char *what);

/* The runtime build options of needs (SLC_PACK_BUILD_* bits, from
 * slc_pack_codec_needs) as "SLUICE_CODEC_LZ4=ON and SLUICE_CODEC_MESHOPT=ON",
 * or "no codec option" for 0; written into buf (cap bytes), which it
 * returns. */
const char *cli_codec_needs(uint32_t needs, char *buf, size_t cap);

/* A logger that prints "sluice: level: message" on stderr. */
extern const slc_logger cli_stderr_logger;

/* "64 MiB" for exact binary multiples, else "12345 B". */
const char *cli_size(unsigned long long bytes, char *buf, size_t cap);

/* "23.4 GiB": one decimal in the largest unit below the value, or cli_size's
 * exact form when the value is an exact multiple or under 1 KiB. */
const char *cli_size_approx(uint64_t bytes, char *buf, size_t cap);

/* A pack opened by a tool: the file, a table arena sized from the pack's
 * header, and the reader over them. */
typedef struct cli_pack {
    slc_platform_file file;
    void *arena_mem;
    slc_pack *pack;
} cli_pack;

/* Opens path (flags: SLC_PLATFORM_FILE_*) with the format's own limits as
 * capacities; log receives the reader's messages. Returns CLI_OK, CLI_IO
 * (the file cannot be read) or CLI_FAILED (a bad pack). out must not move
 * while open (out->file.io refers to it). */
int cli_pack_open(const char *path, unsigned flags, const slc_logger *log, cli_pack *out);
void cli_pack_close(cli_pack *p);

/* The one rule for host memory this machine cannot give, checked before
 * it is mapped (`sluice run`, `sluice budget check`): block bytes of the
 * memory block (slc_memory_requirements.block_size) plus pool bytes of a
 * page pool in host memory (slc_host_store_footprint; 0 when the pool is
 * not mapped here) against this machine's physical memory, and what is
 * still to be mapped (the pool alone when block_mapped is 1) against what
 * RLIMIT_AS leaves the process (slc_platform_query_memory_limits). Returns
 * 0 when they fit, or -1 with msg (cap bytes) naming the profile, what was
 * asked and what is available, e.g. "profile 'x': host page pool of 512.0
 * GiB (gpu/pool: 524288 pages of 1 MiB) exceeds this machine's physical
 * memory of 23.4 GiB". */
int cli_check_machine_memory(const slc_profile *p, uint64_t block, uint64_t pool, int block_mapped, char *msg,
                             size_t cap);

/* The memory report of an initialised memory system, as a table or JSON. */
void report_memory_text(FILE *f, const slc_profile *p, const tool_profile_sections *sec,
                        const slc_memory_requirements *req, slc_memory *m);
void report_memory_json(FILE *f, const slc_profile *p, const tool_profile_sections *sec,
                        const slc_memory_requirements *req, slc_memory *m);

#endif
