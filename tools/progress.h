/* SPDX-License-Identifier: MIT */
/* A progress bar on stderr for the long commands (pack, merge):
 *
 *     progress pg;
 *     progress_start(&pg, total_bytes, "pack", quiet);
 *     for (...) progress_update(&pg, done_bytes, "mesh 3 of 40");
 *     progress_end(&pg);
 *
 * The bar is drawn only when stderr is a terminal and quiet is 0; otherwise
 * every call does nothing, so a log or a pipe gets no progress bytes at all.
 * The line shows the label, a bar, the percent done, the rate in MB/s
 * (10^6 bytes a second since progress_start), the time left (ETA, from the
 * rate so far) and what is being done; it is fitted to the terminal's width
 * and redrawn at most PROGRESS_REDRAW_HZ times a second, so a caller may
 * update as often as it likes. progress_end clears the line; a caller that
 * prints a message mid-way calls progress_end first (the next update draws
 * the bar again below the message).
 *
 * Not thread-safe: one thread updates a given progress. No allocation. */
#ifndef SLUICE_TOOLS_PROGRESS_H
#define SLUICE_TOOLS_PROGRESS_H

#include <stddef.h>
#include <stdint.h>

/* Most redraws a second. */
#define PROGRESS_REDRAW_HZ 10

/* Columns when the terminal does not say (TIOCGWINSZ fails or reports 0). */
#define PROGRESS_DEFAULT_WIDTH 80u

/* Widest label and "what" kept (longer ones are cut). */
#define PROGRESS_TEXT_MAX 96

typedef struct progress {
    int on;                        /* drawing: a terminal and not quiet */
    int drawn;                     /* a line is on the screen */
    uint64_t total;                /* bytes of the whole job; 0: unknown (no percent, no ETA) */
    uint64_t done;                 /* the last done_bytes given to progress_update */
    double start;                  /* monotonic seconds at progress_start */
    double last;                   /* monotonic seconds of the last redraw */
    char label[PROGRESS_TEXT_MAX]; /* "pack" */
} progress;

/* Starts a bar for a job of total_bytes (0: unknown) named label (NULL: "").
 * Draws nothing yet. quiet: never draw. */
void progress_start(progress *p, uint64_t total_bytes, const char *label, int quiet);

/* done_bytes of the total are done, now doing `what` (NULL: ""). Redraws
 * when at least 1 / PROGRESS_REDRAW_HZ s passed since the last redraw, and
 * always on the first call. done_bytes above the total count as the total. */
void progress_update(progress *p, uint64_t done_bytes, const char *what);

/* Clears the bar's line (when one was drawn): before a message, and at the
 * end. A later update draws it again. */
void progress_end(progress *p);

/* The line progress_update draws, as a pure function (for the tests):
 * "LABEL [#####.....]  42.0%   12.3 MB/s ETA 1:05 WHAT", at most width - 1
 * characters (the last column is left free so no terminal wraps), written
 * NUL-terminated into buf (cap bytes, cap > 0; cut at cap - 1). fraction is
 * clamped to [0, 1]; a negative fraction means the total is unknown: no
 * percent and no ETA ("--.-%"). The ETA is elapsed x (1 - f) / f: "--:--"
 * while nothing is done (f == 0 or elapsed == 0), "M:SS" under an hour,
 * "H:MM:SS" from one hour, ">99h" from 100 hours. The rate is done_bytes /
 * elapsed / 10^6, "--" while elapsed is 0. When the line is too wide, WHAT is
 * cut first, then the bar shrinks down to 10 cells, then the bar goes, then
 * the line is cut at width - 1. Returns the length written. */
size_t progress_format(char *buf, size_t cap, unsigned width, const char *label, double fraction, double elapsed,
                       uint64_t done_bytes, const char *what);

#endif
