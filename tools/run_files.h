/* SPDX-License-Identifier: MIT */
/* sluice run's output files: the timeline (--svg), the Chrome trace
 * (--chrome-trace), the eviction log (--evict-log) and the saved workload
 * (--save-trace). Each is refused when it names an input or another output,
 * written through a temporary next to its target (atomic_file.h), and
 * renamed over it only when the run completes: a failed run leaves every
 * existing file as it was. */
#ifndef SLUICE_TOOLS_RUN_FILES_H
#define SLUICE_TOOLS_RUN_FILES_H

#include <stdint.h>
#include <stdio.h>

#include "atomic_file.h"
#include "sluice/pool.h"

/* The paths given (NULL: not asked for) and the inputs they may not name
 * (trace NULL: the camera). */
typedef struct run_paths {
    const char *svg, *chrome, *evict_log, *save_trace;
    const char *pack, *profile, *trace;
} run_paths;

typedef struct run_files {
    atomic_file svg, chrome, evict, save; /* .f NULL when not asked for */
} run_files;

/* Refuses an output that is an input or the same file as another output
 * (CLI_USAGE), then opens each as a temporary (CLI_IO when one cannot be
 * created); every message printed, "<me>: ...". files must be zeroed. */
int run_files_open(run_files *files, const run_paths *paths, const char *me);

/* Flushes every file, then renames each over its target, in a fixed order:
 * when one cannot be written, none is committed. CLI_OK or CLI_IO (printed). */
int run_files_commit(run_files *files, const char *me);

/* Removes the temporaries not committed (every one after a failed run). */
void run_files_abort(run_files *files);

/* The eviction log: its header line, then the pool's log entries from *next
 * on, one a line ("seq frame evicted page loaded partition", '-' for no
 * chunk), *next advanced past them; entries the pool's ring overwrote
 * before they were read get a comment line and are added to *lost. */
void run_evict_log_begin(FILE *f, int textures);
void run_evict_log_walk(FILE *f, const slc_pool *pool, const char *tag, uint64_t *next, uint64_t *lost);

#endif
