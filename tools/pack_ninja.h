/* SPDX-License-Identifier: MIT */
/* sluice pack --emit-ninja FILE / --emit-make FILE --parts N: instead of
 * packing, writes a build graph that packs in N parts and merges them:
 *
 *     build OUT.pack.part-K-of-N: one edge per part, running
 *         sluice pack --part K/N <the same options and inputs> --quiet -o OUT.pack.part-K-of-N
 *     build OUT.pack: the merge edge, running
 *         sluice merge <the N parts> --quiet -o OUT.pack
 *
 * so `ninja -j J` (or `make -j J`) runs up to J parts at once on one machine,
 * and any executor that runs Ninja or Make jobs spreads them over machines
 * that see the same paths. The sluice binary (/proc/self/exe resolved), the
 * inputs and the outputs are absolute paths. A part edge's implicit inputs
 * are the inputs, the files they read (a glTF's buffers, a USD stage's
 * layers and packages: what each importer's `file` lists,
 * pack/importer.h) and the sluice binary, so a changed input rebuilds
 * every part. Each part gets --jobs 1 unless --jobs
 * was given (then each part gets that many threads): the graph's executor
 * runs the parts in parallel, so threads per part would oversubscribe.
 *
 * Ninja: every path and argument is quoted for the shell (single quotes)
 * and then escaped for Ninja ('$' '$$', ' ' '$ ', ':' '$:'). Make: quoted for
 * the shell in recipes ('$' '$$'), and in targets and prerequisites a space,
 * ':', '#' and '\' escaped with '\' (as GNU make reads them; POSIX make has no
 * escape for a space). A newline in any path or argument, and '%' in a Make
 * target or prerequisite, is refused with a message. The file is written
 * through a temporary (tools/common/atomic_file.h): a failed emit leaves no
 * file and an existing one as it was. */
#ifndef SLUICE_TOOLS_PACK_NINJA_H
#define SLUICE_TOOLS_PACK_NINJA_H

#include <stddef.h>
#include <stdint.h>

#include "cli_args.h"

/* What the emit needs from the pack command line. */
typedef struct pack_graph {
    const char *ninja;                         /* --emit-ninja FILE, or NULL */
    const char *make;                          /* --emit-make FILE, or NULL */
    uint32_t parts;                            /* --parts N, 1..PK_MAX_PARTS */
    const char *out;                           /* -o OUT.pack, as given */
    int jobs_given;                            /* --jobs was given: passed as it is */
    int skip_unsupported, allow_outside_paths; /* as for pack: how the inputs are opened */
    const char *asset_root;                    /* --asset-root DIR as given, or NULL */
    uint64_t max_placements;                   /* --max-placements N, or 0 */
    /* The options to pass to every part, in argv order: argv minus -o/--output
     * FILE, --emit-ninja FILE, --emit-make FILE, --parts N, --quiet,
     * --asset-root DIR (each part is given the resolved root instead) and the
     * inputs (pointers into argv, but --profile's FILE replaced by profile,
     * so that the graph runs from any folder). */
    const char **args;
    size_t arg_count;
    char *profile; /* --profile's FILE made absolute by pack's parse (allocated; freed by pack_graph_free), or NULL */
    const char **inputs; /* the inputs, as given */
    size_t input_count;
} pack_graph;

/* Fills g->args and g->inputs (arrays of argc entries, allocated; freed by
 * pack_graph_free) from an argv that cli_args_parse accepted with opts[0..n).
 * Returns 0, or -1 when out of memory (printed). */
int pack_graph_collect(pack_graph *g, const cli_opt *opts, size_t n, int argc, char **argv);

/* Opens every input with its importer (for the files it reads), checks the
 * scene against the format's limits as pack does (generated_bytes: the
 * target of a generated scene, --synthetic's --size, else 0; page_size as
 * given, 0 for the default), and writes the
 * Ninja file and/or the Makefile. Prints what it wrote, unless quiet, or the
 * error. Returns CLI_OK, CLI_USAGE (a newline in a path, stdin as an input,
 * the output or a graph file being an input), CLI_FAILED (a bad
 * input, a scene past the limits) or CLI_IO (a file that cannot be
 * written). */
int pack_graph_emit(const pack_graph *g, uint64_t generated_bytes, uint32_t page_size, int quiet);

void pack_graph_free(pack_graph *g);

/* Escapes s for a Ninja build line or variable ('$' '$$', ' ' '$ ', ':'
 * '$:') into buf (cap bytes). Returns the length, or -1 when s has a newline
 * or buf is too small. */
int pack_graph_ninja_escape(const char *s, char *buf, size_t cap);

/* Quotes s for a POSIX shell (single quotes, a quote as '\'') into buf.
 * Returns the length, or -1 when buf is too small. */
int pack_graph_shell_quote(const char *s, char *buf, size_t cap);

#endif
