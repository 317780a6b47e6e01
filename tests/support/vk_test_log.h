/* SPDX-License-Identifier: MIT */
/* What the Vulkan backend logs in its tests (test_vulkan.c,
 * test_stream_vulkan.c): printed on stderr, errors and the driver's leak
 * reports counted, the last error kept. One copy per test binary (static). */
#ifndef SLUICE_TEST_VK_TEST_LOG_H
#define SLUICE_TEST_VK_TEST_LOG_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "sluice/sluice.h"

typedef struct vk_test_log {
    char last_error[512];
    slc_status last_status;
    int errors;
    int leaks;  /* "the driver kept ... after its objects were destroyed" */
    bool quiet; /* keep, do not print (sweeps that refuse on purpose) */
} vk_test_log;

static void vk_test_log_fn(void *user, slc_log_level level, slc_status status, const char *message)
{
    vk_test_log *t = user;
    if (!t->quiet || level != SLC_LOG_ERROR) {
        fprintf(stderr, "[sluice %s] %s\n", level == SLC_LOG_ERROR ? "error" : "warn", message);
    }
    if (level == SLC_LOG_ERROR) {
        snprintf(t->last_error, sizeof t->last_error, "%s", message);
        t->last_status = status;
        t->errors++;
    }
    if (strstr(message, "the driver kept") != NULL) {
        t->leaks++;
    }
}

/* A logger into t, emptied first. */
static inline slc_logger vk_test_logger(vk_test_log *t)
{
    memset(t, 0, sizeof *t);
    slc_logger l = {vk_test_log_fn, t};
    return l;
}

#endif
