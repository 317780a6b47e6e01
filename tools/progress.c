/* SPDX-License-Identifier: MIT */
/* A progress bar on stderr: see progress.h. */
#define _POSIX_C_SOURCE 200809L

#include "progress.h"

#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

/* Cells of the bar when the line has room, and the fewest kept before the
 * bar is dropped. */
#define BAR_CELLS 24u
#define BAR_CELLS_MIN 10u

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void copy_text(char *dst, size_t cap, const char *src)
{
    size_t n = src != NULL ? strlen(src) : 0;
    n = n < cap - 1 ? n : cap - 1;
    if (n > 0) {
        memcpy(dst, src, n);
    }
    dst[n] = '\0';
}

/* "1:05", "1:02:03", ">99h" or "--:--". */
static void format_eta(char *buf, size_t cap, double fraction, double elapsed)
{
    if (fraction <= 0.0 || elapsed <= 0.0) {
        snprintf(buf, cap, "--:--");
        return;
    }
    double left = elapsed * (1.0 - fraction) / fraction;
    if (left >= 100.0 * 3600.0) {
        snprintf(buf, cap, ">99h");
        return;
    }
    unsigned s = (unsigned)(left + 0.5);
    if (s >= 3600u) {
        snprintf(buf, cap, "%u:%02u:%02u", s / 3600u, s / 60u % 60u, s % 60u);
    } else {
        snprintf(buf, cap, "%u:%02u", s / 60u, s % 60u);
    }
}

size_t progress_format(char *buf, size_t cap, unsigned width, const char *label, double fraction, double elapsed,
                       uint64_t done_bytes, const char *what)
{
    label = label != NULL ? label : "";
    what = what != NULL ? what : "";
    int known = fraction >= 0.0;
    fraction = fraction > 1.0 ? 1.0 : fraction < 0.0 ? 0.0 : fraction;
    char percent[16], rate[32], eta[24], stats[96];
    if (known) {
        snprintf(percent, sizeof percent, "%5.1f%%", fraction * 100.0);
        format_eta(eta, sizeof eta, fraction, elapsed);
    } else {
        snprintf(percent, sizeof percent, "--.-%%");
        snprintf(eta, sizeof eta, "--:--");
    }
    if (elapsed > 0.0) {
        snprintf(rate, sizeof rate, "%7.1f MB/s", (double)done_bytes / elapsed / 1e6);
    } else {
        snprintf(rate, sizeof rate, "     -- MB/s");
    }
    snprintf(stats, sizeof stats, "%s %s ETA %s", percent, rate, eta);

    size_t avail = width > 0 ? (size_t)width - 1 : 0;
    size_t llen = strlen(label), slen = strlen(stats), wlen = strlen(what);
    size_t head = llen > 0 ? llen + 1 : 0; /* "LABEL " */
    /* What is cut first, then the bar shrinks, then it goes. */
    size_t base = head + slen, bar = BAR_CELLS + 3; /* "[" cells "] " */
    size_t cells = BAR_CELLS;
    if (base + bar + (wlen > 0 ? wlen + 1 : 0) > avail) {
        if (wlen > 0 && base + bar + 2 <= avail) {
            wlen = avail - base - bar - 1;
            while (wlen > 0 && what[wlen - 1] == ' ') { /* no space left dangling at the cut */
                wlen--;
            }
        } else {
            wlen = 0;
            size_t room = avail > base ? avail - base : 0;
            cells = room >= BAR_CELLS_MIN + 3 ? (room - 3 < BAR_CELLS ? room - 3 : BAR_CELLS) : 0;
        }
    }
    char line[512];
    size_t n = 0;
    if (llen > 0) {
        n += (size_t)snprintf(line + n, sizeof line - n, "%s ", label);
    }
    if (cells > 0) {
        size_t fill = (size_t)(fraction * (double)cells);
        line[n++] = '[';
        for (size_t i = 0; i < cells; i++) {
            line[n++] = known && i < fill ? '#' : '.';
        }
        line[n++] = ']';
        line[n++] = ' ';
    }
    n += (size_t)snprintf(line + n, sizeof line - n, "%s", stats);
    if (wlen > 0) {
        n += (size_t)snprintf(line + n, sizeof line - n, " %.*s", (int)wlen, what);
    }
    n = n < sizeof line - 1 ? n : sizeof line - 1;
    n = n < avail ? n : avail;
    n = n < cap - 1 ? n : cap - 1;
    memcpy(buf, line, n);
    buf[n] = '\0';
    return n;
}

/* The terminal's columns. */
static unsigned term_width(void)
{
    struct winsize ws;
    if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) {
        return ws.ws_col;
    }
    return PROGRESS_DEFAULT_WIDTH;
}

void progress_start(progress *p, uint64_t total_bytes, const char *label, int quiet)
{
    memset(p, 0, sizeof *p);
    p->on = !quiet && isatty(STDERR_FILENO);
    p->total = total_bytes;
    p->start = now();
    copy_text(p->label, sizeof p->label, label);
}

void progress_update(progress *p, uint64_t done_bytes, const char *what)
{
    p->done = done_bytes;
    if (!p->on) {
        return;
    }
    double t = now();
    if (p->drawn && t - p->last < 1.0 / PROGRESS_REDRAW_HZ) {
        return;
    }
    p->last = t;
    if (p->total > 0 && done_bytes > p->total) {
        done_bytes = p->total;
    }
    double fraction = p->total > 0 ? (double)done_bytes / (double)p->total : -1.0;
    char cut[PROGRESS_TEXT_MAX];
    copy_text(cut, sizeof cut, what);
    char line[512];
    progress_format(line, sizeof line, term_width(), p->label, fraction, t - p->start, done_bytes, cut);
    fprintf(stderr, "\r%s\033[K", line);
    fflush(stderr);
    p->drawn = 1;
}

void progress_end(progress *p)
{
    if (p->on && p->drawn) {
        fprintf(stderr, "\r\033[K");
        fflush(stderr);
    }
    p->drawn = 0;
}
