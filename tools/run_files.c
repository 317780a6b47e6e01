/* SPDX-License-Identifier: MIT */
/* sluice run's output files (run_files.h). */
#include "run_files.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "cli.h"

int run_files_open(run_files *files, const run_paths *paths, const char *me)
{
    const char *inputs[3] = {paths->pack, paths->profile, paths->trace};
    static const char *const input_names[3] = {"the pack", "the profile", "the trace"};
    struct {
        const char *opt, *path;
        atomic_file *af;
    } outs[4] = {{"--svg", paths->svg, &files->svg},
                 {"--chrome-trace", paths->chrome, &files->chrome},
                 {"--evict-log", paths->evict_log, &files->evict},
                 {"--save-trace", paths->save_trace, &files->save}};
    for (size_t i = 0; i < 4; i++) {
        if (outs[i].path == NULL) {
            continue;
        }
        int k = atomic_file_find_input(outs[i].path, inputs, paths->trace != NULL ? 3u : 2u);
        if (k >= 0) {
            fprintf(stderr, "%s: %s '%s' is %s '%s': an output may not overwrite an input\n", me, outs[i].opt,
                    outs[i].path, input_names[k], inputs[k]);
            return CLI_USAGE;
        }
        for (size_t j = 0; j < i; j++) {
            if (outs[j].path != NULL &&
                (strcmp(outs[j].path, outs[i].path) == 0 || atomic_file_same(outs[j].path, outs[i].path))) {
                fprintf(stderr, "%s: %s '%s' and %s '%s' are the same file\n", me, outs[j].opt, outs[j].path,
                        outs[i].opt, outs[i].path);
                return CLI_USAGE;
            }
        }
    }
    for (size_t i = 0; i < 4; i++) {
        char err[512];
        if (outs[i].path != NULL && atomic_file_open(outs[i].af, outs[i].path, err, sizeof err) != 0) {
            fprintf(stderr, "%s: %s\n", me, err);
            return CLI_IO;
        }
    }
    return CLI_OK;
}

int run_files_commit(run_files *files, const char *me)
{
    atomic_file *order[4] = {&files->evict, &files->svg, &files->chrome, &files->save};
    for (size_t i = 0; i < 4; i++) {
        if (order[i]->f == NULL) {
            continue;
        }
        errno = 0;
        if (fflush(order[i]->f) != 0 || ferror(order[i]->f)) {
            fprintf(stderr, "%s: %s: cannot write: %s\n", me, order[i]->path,
                    errno != 0 ? strerror(errno) : "write error");
            return CLI_IO; /* run_files_abort removes every temporary */
        }
    }
    int rc = CLI_OK;
    for (size_t i = 0; i < 4; i++) {
        char err[512];
        if (order[i]->f != NULL && atomic_file_commit(order[i], err, sizeof err) != 0) {
            fprintf(stderr, "%s: %s\n", me, err);
            rc = CLI_IO;
        }
    }
    return rc;
}

void run_files_abort(run_files *files)
{
    /* No-ops once committed. */
    atomic_file_abort(&files->svg);
    atomic_file_abort(&files->chrome);
    atomic_file_abort(&files->evict);
    atomic_file_abort(&files->save);
}

void run_evict_log_begin(FILE *f, int textures)
{
    fprintf(f, "# sluice eviction log: seq frame evicted page loaded partition ('-': no chunk)\n");
    if (textures) {
        fprintf(f, "# the texture pool's entries: t seq frame evicted page loaded partition (its own seq)\n");
    }
}

void run_evict_log_walk(FILE *f, const slc_pool *pool, const char *tag, uint64_t *next, uint64_t *lost)
{
    slc_pool_log_entry e[256];
    for (;;) {
        size_t n = slc_pool_walk_log(pool, *next, e, 256);
        if (n == 0) {
            break;
        }
        if (e[0].seq > *next) {
            fprintf(f, "# %s%" PRIu64 " entries lost (the pool's log ring overran)\n", tag, e[0].seq - *next);
            *lost += e[0].seq - *next;
        }
        for (size_t i = 0; i < n; i++) {
            char ev[16], ld[16];
            snprintf(ev, sizeof ev, "%u", e[i].evicted.index);
            snprintf(ld, sizeof ld, "%u", e[i].loaded.index);
            fprintf(f, "%s%" PRIu64 " %" PRIu64 " %s %u %s %u\n", tag, e[i].seq, e[i].frame,
                    e[i].evicted.index == SLC_CHUNK_NONE_INDEX ? "-" : ev, e[i].page,
                    e[i].loaded.index == SLC_CHUNK_NONE_INDEX ? "-" : ld, e[i].partition);
        }
        *next = e[n - 1].seq + 1;
    }
}
