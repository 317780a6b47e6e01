/* SPDX-License-Identifier: MIT */
/* stderr, captured around a call, for tests that assert a tool's message:
 * capture_begin() sends stderr (the descriptor, so every writer) to a
 * temporary file, capture_end() restores it and returns what was written
 * (the first 4095 bytes, NUL-terminated, in a static buffer that the next
 * capture_end reuses). One capture at a time; not thread-safe. Uses cmocka's
 * asserts: include it after <cmocka.h>, with _POSIX_C_SOURCE 200809L defined
 * (fileno, dup). */
#ifndef SLUICE_TEST_STDERR_CAPTURE_H
#define SLUICE_TEST_STDERR_CAPTURE_H

#include <stdio.h>
#include <unistd.h>

static char capture_text[4096];
static int capture_saved_fd = -1;
static FILE *capture_file;

static void capture_begin(void)
{
    fflush(stderr);
    capture_file = tmpfile();
    assert_non_null(capture_file);
    capture_saved_fd = dup(fileno(stderr));
    assert_true(capture_saved_fd >= 0);
    assert_true(dup2(fileno(capture_file), fileno(stderr)) >= 0);
}

static const char *capture_end(void)
{
    fflush(stderr);
    assert_true(dup2(capture_saved_fd, fileno(stderr)) >= 0);
    close(capture_saved_fd);
    rewind(capture_file);
    size_t n = fread(capture_text, 1, sizeof capture_text - 1, capture_file);
    capture_text[n] = '\0';
    fclose(capture_file);
    return capture_text;
}

#endif
