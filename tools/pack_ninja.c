/* SPDX-License-Identifier: MIT */
/* sluice pack --emit-ninja / --emit-make: see pack_ninja.h. */
#define _GNU_SOURCE /* realpath */

#include "pack_ninja.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "asset.h"
#include "atomic_file.h"
#include "cli.h"
#include "importer.h"
#include "pack_limits.h"

/* --- text ---------------------------------------------------------------- */

/* A growable string; on a failed allocation it stays failed (oom) and every
 * later append does nothing. */
typedef struct sbuf {
    char *p;
    size_t len, cap;
    int oom;
} sbuf;

static void sb_add(sbuf *b, const char *s, size_t n)
{
    if (b->oom) {
        return;
    }
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap > 0 ? b->cap : 4096;
        while (b->len + n + 1 > cap) {
            cap *= 2;
        }
        char *p = realloc(b->p, cap);
        if (p == NULL) {
            b->oom = 1;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static void sb_str(sbuf *b, const char *s)
{
    sb_add(b, s, strlen(s));
}

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void
sb_printf(sbuf *b, const char *fmt, ...)
{
    char tmp[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n > 0) {
        sb_add(b, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
    }
}

int pack_graph_ninja_escape(const char *s, char *buf, size_t cap)
{
    size_t n = 0;
    for (const char *c = s; *c != '\0'; c++) {
        if (*c == '\n' || *c == '\r') {
            return -1;
        }
        int esc = *c == '$' || *c == ' ' || *c == ':';
        if (n + (size_t)esc + 2 > cap) {
            return -1;
        }
        if (esc) {
            buf[n++] = '$';
        }
        buf[n++] = *c;
    }
    if (cap == 0) {
        return -1;
    }
    buf[n] = '\0';
    return (int)n;
}

int pack_graph_shell_quote(const char *s, char *buf, size_t cap)
{
    size_t n = 0;
    if (cap < 3) {
        return -1;
    }
    buf[n++] = '\'';
    for (const char *c = s; *c != '\0'; c++) {
        const char *put = *c == '\'' ? "'\\''" : NULL;
        size_t k = put != NULL ? 4 : 1;
        if (n + k + 2 > cap) {
            return -1;
        }
        if (put != NULL) {
            memcpy(buf + n, put, k);
        } else {
            buf[n] = *c;
        }
        n += k;
    }
    buf[n++] = '\'';
    buf[n] = '\0';
    return (int)n;
}

/* Which file is written: how its words are escaped. */
typedef enum graph_kind { GRAPH_NINJA, GRAPH_MAKE } graph_kind;

/* A command word: shell-quoted, then escaped for the file ('$' for Make;
 * '$', ' ', ':' for Ninja). */
static void add_word(sbuf *b, graph_kind k, const char *s)
{
    size_t cap = strlen(s) * 4 + 3;
    char *q = malloc(cap), *e = malloc(cap * 2 + 1);
    if (q == NULL || e == NULL || pack_graph_shell_quote(s, q, cap) < 0) {
        b->oom = 1;
    } else if (k == GRAPH_NINJA) {
        if (pack_graph_ninja_escape(q, e, cap * 2 + 1) < 0) {
            b->oom = 1; /* newlines were refused before */
        } else {
            sb_str(b, " ");
            sb_str(b, e);
        }
    } else {
        sb_str(b, " ");
        for (const char *c = q; *c != '\0'; c++) {
            sb_add(b, *c == '$' ? "$$" : c, *c == '$' ? 2 : 1);
        }
    }
    free(q);
    free(e);
}

/* A path on a build line or in a rule's targets and prerequisites, after a
 * space unless it starts the line. */
static void add_path_at(sbuf *b, graph_kind k, const char *s, int first)
{
    if (!first) {
        sb_str(b, " ");
    }
    for (const char *c = s; *c != '\0'; c++) {
        /* '$' doubles in both; Ninja escapes ' ' and ':' with '$', Make with '\'. */
        int ninja_esc = k == GRAPH_NINJA && (*c == ' ' || *c == ':');
        if (*c == '$' || ninja_esc) {
            sb_add(b, "$", 1);
        } else if (k == GRAPH_MAKE && (*c == ' ' || *c == ':' || *c == '#')) {
            sb_add(b, "\\", 1);
        }
        sb_add(b, c, 1);
    }
}

static void add_path(sbuf *b, graph_kind k, const char *s)
{
    add_path_at(b, k, s, 0);
}

/* --- the command line ---------------------------------------------------- */

static const cli_opt *find_opt(const cli_opt *opts, size_t n, const char *a)
{
    for (size_t i = 0; i < n; i++) {
        if (strcmp(a, opts[i].name) == 0 || (opts[i].alias != NULL && strcmp(a, opts[i].alias) == 0)) {
            return &opts[i];
        }
    }
    return NULL;
}

int pack_graph_collect(pack_graph *g, const cli_opt *opts, size_t n, int argc, char **argv)
{
    static const char *const dropped[] = {"--output", "--emit-ninja", "--emit-make",
                                          "--parts",  "--quiet",      "--asset-root"};
    g->args = calloc((size_t)argc + 1, sizeof *g->args);
    g->inputs = calloc((size_t)argc + 1, sizeof *g->inputs);
    if (g->args == NULL || g->inputs == NULL) {
        pack_graph_free(g);
        fprintf(stderr, "sluice pack: out of memory\n");
        return -1;
    }
    g->arg_count = g->input_count = 0;
    for (int i = 0; i < argc; i++) {
        const cli_opt *o = find_opt(opts, n, argv[i]);
        if (o == NULL) {
            g->inputs[g->input_count++] = argv[i];
            continue;
        }
        int takes = o->kind != CLI_OPT_FLAG && i + 1 < argc;
        int drop = 0;
        for (size_t k = 0; k < sizeof dropped / sizeof dropped[0]; k++) {
            drop |= strcmp(o->name, dropped[k]) == 0;
        }
        if (strcmp(o->name, "--jobs") == 0) {
            g->jobs_given = 1;
        }
        if (!drop) {
            g->args[g->arg_count++] = argv[i];
            if (takes && strcmp(o->name, "--profile") == 0 && g->profile != NULL) {
                g->args[g->arg_count++] = g->profile; /* the one the options were read from, absolute */
            } else if (takes) {
                g->args[g->arg_count++] = argv[i + 1];
            }
        }
        i += takes;
    }
    return 0;
}

void pack_graph_free(pack_graph *g)
{
    free((void *)g->args);
    free((void *)g->inputs);
    free(g->profile);
    g->profile = NULL;
    g->args = g->inputs = NULL;
}

/* --- paths --------------------------------------------------------------- */

/* An absolute path for a file that exists (realpath), or for one that may
 * not (its folder resolved, its name kept). Allocated; NULL with a message. */
static char *absolute(const char *path, int must_exist)
{
    char *r = realpath(path, NULL);
    if (r != NULL || must_exist) {
        if (r == NULL) {
            fprintf(stderr, "sluice pack: %s: cannot resolve: %s\n", path, strerror(errno));
        }
        return r;
    }
    const char *slash = strrchr(path, '/');
    const char *name = slash != NULL ? slash + 1 : path;
    char *dir = slash == NULL ? strdup(".") : slash == path ? strdup("/") : strndup(path, (size_t)(slash - path));
    char *rdir = dir != NULL ? realpath(dir, NULL) : NULL;
    if (rdir == NULL || *name == '\0') {
        fprintf(stderr, "sluice pack: %s: cannot resolve its folder: %s\n", path,
                *name == '\0' ? "no file name" : strerror(errno));
        free(dir);
        free(rdir);
        return NULL;
    }
    size_t len = strlen(rdir) + strlen(name) + 2;
    char *out = malloc(len);
    if (out != NULL) {
        snprintf(out, len, "%s%s%s", rdir, strcmp(rdir, "/") == 0 ? "" : "/", name);
    }
    free(dir);
    free(rdir);
    return out;
}

/* The paths of the graph, all absolute and allocated. */
typedef struct graph_paths {
    char *sluice, *out;
    pk_asset_root root; /* every part's --asset-root ("" with --allow-outside-paths) */
    char **parts;       /* g->parts */
    char **inputs;      /* g->input_count, in order (an input may be given twice, as for pack) */
    char **implicit;    /* the inputs and their buffer files, without repeats */
    size_t implicit_count, implicit_cap;
} graph_paths;

static void paths_free(graph_paths *p, uint32_t parts)
{
    free(p->sluice);
    free(p->out);
    for (uint32_t i = 0; p->parts != NULL && i < parts; i++) {
        free(p->parts[i]);
    }
    free(p->parts);
    free(p->inputs); /* its strings are among the implicit inputs */
    for (size_t i = 0; i < p->implicit_count; i++) {
        free(p->implicit[i]);
    }
    free(p->implicit);
}

/* Adds an implicit input (taken over), once; *kept is the copy kept. Returns
 * 0, or -1 when out of memory. */
static int add_implicit(graph_paths *p, char *path, char **kept)
{
    for (size_t i = 0; i < p->implicit_count; i++) {
        if (strcmp(p->implicit[i], path) == 0) {
            free(path);
            *kept = p->implicit[i];
            return 0;
        }
    }
    if (p->implicit_count == p->implicit_cap) {
        size_t cap = p->implicit_cap > 0 ? p->implicit_cap * 2 : 16;
        char **n = realloc(p->implicit, cap * sizeof *n);
        if (n == NULL) {
            free(path);
            return -1;
        }
        p->implicit = n;
        p->implicit_cap = cap;
    }
    p->implicit[p->implicit_count++] = path;
    *kept = path;
    return 0;
}

/* A path or argument the graph cannot carry: a newline (neither Ninja nor
 * Make can name it), a '%' or '\' in a Make target (a pattern, an escape). */
static int refuse_word(const char *what, const char *s, int make_path)
{
    if (strpbrk(s, "\n\r") != NULL) {
        fprintf(stderr, "sluice pack: %s '%s' has a newline, which no Ninja or Make file can name; nothing written\n",
                what, s);
        return 1;
    }
    if (make_path && strpbrk(s, "%\\") != NULL) {
        fprintf(stderr, "sluice pack: %s '%s' has a '%%' or '\\', which a Makefile cannot name; nothing written\n",
                what, s);
        return 1;
    }
    return 0;
}

/* --- the files ----------------------------------------------------------- */

/* The command of part k (1-based), or of the merge (k == 0). */
static void add_command(sbuf *b, graph_kind kind, const pack_graph *g, const graph_paths *p, uint32_t k)
{
    add_word(b, kind, p->sluice);
    if (k == 0) {
        add_word(b, kind, "merge");
        for (uint32_t i = 0; i < g->parts; i++) {
            add_word(b, kind, p->parts[i]);
        }
        add_word(b, kind, "--quiet");
        add_word(b, kind, "-o");
        add_word(b, kind, p->out);
        return;
    }
    char part[32];
    snprintf(part, sizeof part, "%u/%u", k, g->parts);
    add_word(b, kind, "pack");
    add_word(b, kind, "--part");
    add_word(b, kind, part);
    if (!g->jobs_given) {
        add_word(b, kind, "--jobs");
        add_word(b, kind, "1");
    }
    for (size_t i = 0; i < g->arg_count; i++) {
        add_word(b, kind, g->args[i]);
    }
    if (p->root.dir[0] != '\0') {
        add_word(b, kind, "--asset-root");
        add_word(b, kind, p->root.dir);
    }
    for (size_t i = 0; i < g->input_count; i++) {
        add_word(b, kind, p->inputs[i]);
    }
    add_word(b, kind, "--quiet");
    add_word(b, kind, "-o");
    add_word(b, kind, p->parts[k - 1]);
}

static void write_ninja(sbuf *b, const pack_graph *g, const graph_paths *p)
{
    sb_printf(b, "# sluice pack in %u parts, then sluice merge (sluice pack --emit-ninja).\n", g->parts);
    sb_str(b, "# Run: ninja -f THIS_FILE -j J. Every part reads every input.\n");
    sb_str(b, "ninja_required_version = 1.3\n\n");
    sb_str(b, "rule sluice_part\n  command = $cmd\n  description = sluice pack part $part: $out\n\n");
    sb_str(b, "rule sluice_merge\n  command = $cmd\n  description = sluice merge: $out\n\n");
    for (uint32_t k = 1; k <= g->parts; k++) {
        sb_str(b, "build");
        add_path(b, GRAPH_NINJA, p->parts[k - 1]);
        sb_str(b, ": sluice_part |");
        for (size_t i = 0; i < p->implicit_count; i++) {
            add_path(b, GRAPH_NINJA, p->implicit[i]);
        }
        add_path(b, GRAPH_NINJA, p->sluice);
        sb_printf(b, "\n  part = %u/%u\n  cmd =", k, g->parts);
        add_command(b, GRAPH_NINJA, g, p, k);
        sb_str(b, "\n\n");
    }
    sb_str(b, "build");
    add_path(b, GRAPH_NINJA, p->out);
    sb_str(b, ": sluice_merge");
    for (uint32_t k = 0; k < g->parts; k++) {
        add_path(b, GRAPH_NINJA, p->parts[k]);
    }
    sb_str(b, " |");
    add_path(b, GRAPH_NINJA, p->sluice);
    sb_str(b, "\n  cmd =");
    add_command(b, GRAPH_NINJA, g, p, 0);
    sb_str(b, "\n\ndefault");
    add_path(b, GRAPH_NINJA, p->out);
    sb_str(b, "\n");
}

static void write_make(sbuf *b, const pack_graph *g, const graph_paths *p)
{
    sb_printf(b, "# sluice pack in %u parts, then sluice merge (sluice pack --emit-make).\n", g->parts);
    sb_str(b, "# Run: make -f THIS_FILE -j J. Every part reads every input.\n\n");
    sb_str(b, ".POSIX:\n.PHONY: all\nall:");
    add_path(b, GRAPH_MAKE, p->out);
    sb_str(b, "\n\n");
    add_path_at(b, GRAPH_MAKE, p->out, 1);
    sb_str(b, ":");
    for (uint32_t k = 0; k < g->parts; k++) {
        add_path(b, GRAPH_MAKE, p->parts[k]);
    }
    add_path(b, GRAPH_MAKE, p->sluice);
    sb_str(b, "\n\t");
    add_command(b, GRAPH_MAKE, g, p, 0);
    sb_str(b, "\n");
    for (uint32_t k = 1; k <= g->parts; k++) {
        sb_str(b, "\n");
        add_path_at(b, GRAPH_MAKE, p->parts[k - 1], 1);
        sb_str(b, ":");
        for (size_t i = 0; i < p->implicit_count; i++) {
            add_path(b, GRAPH_MAKE, p->implicit[i]);
        }
        add_path(b, GRAPH_MAKE, p->sluice);
        sb_str(b, "\n\t");
        add_command(b, GRAPH_MAKE, g, p, k);
        sb_str(b, "\n");
    }
}

/* Writes text to path through a temporary. CLI_OK or CLI_IO (printed). */
static int write_file(const char *path, const sbuf *text)
{
    atomic_file a;
    char err[512];
    if (atomic_file_open(&a, path, err, sizeof err) != 0) {
        fprintf(stderr, "sluice pack: %s\n", err);
        return CLI_IO;
    }
    if (fwrite(text->p, 1, text->len, a.f) != text->len) {
        atomic_file_abort(&a);
        fprintf(stderr, "sluice pack: %s: cannot write: %s\n", path, strerror(errno));
        return CLI_IO;
    }
    if (atomic_file_commit(&a, err, sizeof err) != 0) {
        fprintf(stderr, "sluice pack: %s\n", err);
        return CLI_IO;
    }
    return CLI_OK;
}

/* The sluice binary running now. */
static char *self_path(void)
{
    char *r = realpath("/proc/self/exe", NULL);
    if (r == NULL) {
        fprintf(stderr, "sluice pack: /proc/self/exe: cannot resolve the sluice binary: %s\n", strerror(errno));
    }
    return r;
}

/* Opens one input (an absolute path) with its importer, adds it to the
 * plan and the files it reads to the implicit inputs: CLI_OK or an error
 * (printed). */
static int gather_input(const pack_graph *g, graph_paths *p, const char *input, pk_limits_plan *plan)
{
    pk_import_options o;
    memset(&o, 0, sizeof o);
    o.skip_unsupported = g->skip_unsupported;
    o.max_placements = g->max_placements;
    o.allow_outside_paths = g->allow_outside_paths;
    o.asset_root = p->root.dir[0] != '\0' ? p->root.dir : NULL;
    const pk_importer *imp = pk_importer_for_file(input);
    void *state = NULL;
    pk_diag d;
    memset(&d, 0, sizeof d);
    if (imp->open(input, &o, &state, &d) != 0) {
        fprintf(stderr, "sluice: %s\n", d.message);
        return CLI_FAILED;
    }
    pk_import_scan scan;
    memset(&scan, 0, sizeof scan);
    imp->scan(state, &scan);
    pk_limits_plan_add(plan, &scan);
    int rc = CLI_OK;
    char label[64];
    const char *file;
    for (uint32_t k = 0; rc == CLI_OK && (file = imp->file(state, k, label, sizeof label)) != NULL; k++) {
        char *a = NULL, *kept = NULL;
        if (refuse_word(label, file, g->make != NULL)) {
            rc = CLI_USAGE;
        } else if ((a = absolute(file, 1)) == NULL) {
            rc = CLI_IO;
        } else if (add_implicit(p, a, &kept) != 0) {
            fprintf(stderr, "sluice pack: out of memory\n");
            rc = CLI_FAILED;
        }
    }
    imp->close(state);
    return rc;
}

/* Collects the paths, checking each: CLI_OK or an error (printed). */
static int gather(const pack_graph *g, graph_paths *p, pk_limits_plan *plan)
{
    int make = g->make != NULL;
    for (size_t i = 0; i < g->arg_count; i++) {
        if (refuse_word("argument", g->args[i], 0)) {
            return CLI_USAGE;
        }
    }
    if (refuse_word("output", g->out, make)) {
        return CLI_USAGE;
    }
    if ((p->sluice = self_path()) == NULL || (p->out = absolute(g->out, 0)) == NULL) {
        return CLI_IO;
    }
    if (refuse_word("the sluice binary", p->sluice, make) || refuse_word("output", p->out, make)) {
        return CLI_USAGE;
    }
    int same = atomic_file_find_input(g->out, g->inputs, g->input_count);
    if (same >= 0) {
        fprintf(stderr, "sluice pack: output '%s' is an input ('%s'); nothing written\n", g->out, g->inputs[same]);
        return CLI_USAGE;
    }
    const char *files[2] = {g->ninja, g->make};
    for (int f = 0; f < 2; f++) {
        if (files[f] == NULL) {
            continue;
        }
        int in = atomic_file_find_input(files[f], g->inputs, g->input_count);
        if (in >= 0 || atomic_file_same(files[f], g->out)) {
            fprintf(stderr, "sluice pack: %s '%s' is %s; nothing written\n", f == 0 ? "--emit-ninja" : "--emit-make",
                    files[f], in >= 0 ? "an input" : "the output");
            return CLI_USAGE;
        }
    }
    p->parts = calloc(g->parts, sizeof *p->parts);
    if (p->parts == NULL) {
        fprintf(stderr, "sluice pack: out of memory\n");
        return CLI_FAILED;
    }
    for (uint32_t k = 0; k < g->parts; k++) {
        size_t len = strlen(p->out) + 40;
        if ((p->parts[k] = malloc(len)) == NULL) {
            fprintf(stderr, "sluice pack: out of memory\n");
            return CLI_FAILED;
        }
        snprintf(p->parts[k], len, "%s.part-%u-of-%u", p->out, k + 1, g->parts);
    }
    p->inputs = calloc(g->input_count + 1, sizeof *p->inputs);
    if (p->inputs == NULL) {
        fprintf(stderr, "sluice pack: out of memory\n");
        return CLI_FAILED;
    }
    /* The inputs, then the files they read. */
    for (size_t i = 0; i < g->input_count; i++) {
        if (strcmp(g->inputs[i], "-") == 0) {
            fprintf(stderr, "sluice pack: input '-': a build graph reads files, not stdin; nothing written\n");
            return CLI_USAGE;
        }
        if (refuse_word("input", g->inputs[i], make)) {
            return CLI_USAGE;
        }
        char *a = absolute(g->inputs[i], 1);
        if (a == NULL) {
            return CLI_IO;
        }
        if (add_implicit(p, a, &p->inputs[i]) != 0) {
            fprintf(stderr, "sluice pack: out of memory\n");
            return CLI_FAILED;
        }
    }
    /* The asset root, resolved now: a part runs in the build tool's
     * folder, not here, so each gets --asset-root as an absolute path; the
     * inputs must agree on it (tools/pack/asset.h). */
    for (size_t i = 0; i < g->input_count; i++) {
        pk_asset_root r;
        pk_diag d;
        memset(&d, 0, sizeof d);
        if (pk_asset_root_for(g->inputs[i], g->asset_root, g->allow_outside_paths, &r, &d) != 0) {
            fprintf(stderr, "sluice pack: %s\n", d.message);
            return CLI_IO;
        }
        if (i > 0 && strcmp(r.dir, p->root.dir) != 0) {
            fprintf(stderr,
                    "sluice pack: inputs '%s' and '%s' have different asset roots (%s, %s); give --asset-root DIR; "
                    "nothing written\n",
                    g->inputs[0], g->inputs[i], p->root.dir, r.dir);
            return CLI_USAGE;
        }
        p->root = r;
    }
    if (refuse_word("--asset-root", p->root.dir, make)) {
        return CLI_USAGE;
    }
    for (size_t i = 0; i < g->input_count; i++) {
        int rc = gather_input(g, p, p->inputs[i], plan);
        if (rc != CLI_OK) {
            return rc;
        }
    }
    return CLI_OK;
}

int pack_graph_emit(const pack_graph *g, uint64_t generated_bytes, uint32_t page_size, int quiet)
{
    graph_paths p;
    memset(&p, 0, sizeof p);
    pk_limits_plan plan = {.what = generated_bytes > 0  ? "synthetic scene"
                                   : g->input_count > 1 ? "the inputs"
                                                        : g->inputs[0],
                           .input_bytes = generated_bytes,
                           .page_size = page_size};
    int rc = gather(g, &p, &plan);
    pk_diag d;
    memset(&d, 0, sizeof d);
    if (rc == CLI_OK && pk_limits_check_plan(&plan, &d) != 0) {
        fprintf(stderr, "sluice pack: %s\n", d.message);
        rc = CLI_FAILED;
    }
    sbuf text[2];
    memset(text, 0, sizeof text);
    if (rc == CLI_OK) {
        if (g->ninja != NULL) {
            write_ninja(&text[0], g, &p);
        }
        if (g->make != NULL) {
            write_make(&text[1], g, &p);
        }
        if (text[0].oom || text[1].oom) {
            fprintf(stderr, "sluice pack: out of memory\n");
            rc = CLI_FAILED;
        }
    }
    /* A file that fails to be written is left as it was. */
    const char *files[2] = {g->ninja, g->make};
    for (int f = 0; f < 2 && rc == CLI_OK; f++) {
        if (files[f] != NULL) {
            rc = write_file(files[f], &text[f]);
            if (rc == CLI_OK && !quiet) {
                printf("%s: %u parts of %s and their merge, for %s\n", files[f], g->parts, p.out,
                       f == 0 ? "ninja -j J" : "make -j J");
            }
        }
    }
    free(text[0].p);
    free(text[1].p);
    paths_free(&p, g->parts);
    return rc;
}
