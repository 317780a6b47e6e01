/* SPDX-License-Identifier: MIT */
/* Helpers shared by the unit tests. */
#ifndef SLUICE_TEST_UTIL_H
#define SLUICE_TEST_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sluice/sluice.h"

/* A logger that keeps the last message and status. */
typedef struct capture_log {
    char message[512];
    slc_status status;
    int calls;
} capture_log;

static void capture_fn(void *user, slc_log_level level, slc_status status, const char *message)
{
    capture_log *c = user;
    (void)level;
    snprintf(c->message, sizeof c->message, "%s", message);
    c->status = status;
    c->calls++;
}

static inline slc_logger capture_logger(capture_log *c)
{
    memset(c, 0, sizeof *c);
    slc_logger l = {capture_fn, c};
    return l;
}

/* Reads the file at path into a malloc'd, NUL-terminated buffer. */
static inline char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        fail_msg("cannot open %s", path);
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    buf[n] = '\0';
    *len = (size_t)n;
    return buf;
}

/* Reads a file under the source tree into a malloc'd, NUL-terminated buffer. */
static inline char *read_source_file(const char *relative, size_t *len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", SLUICE_SOURCE_DIR, relative);
    return read_file(path, len);
}

/* xorshift64*: seeded, printed by the tests that use it. */
static inline uint64_t rng_next(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545F4914F6CDD1Dull;
}

#endif
