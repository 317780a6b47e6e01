/* SPDX-License-Identifier: MIT */
/* sluice: helpers shared by the runtime's own files; not installed. */
#ifndef SLUICE_INTERNAL_H
#define SLUICE_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "sluice/status.h"

/* Formats into buf (always NUL-terminated when cap > 0, truncated if long)
 * and returns the length written. A deliberately small printf: the runtime
 * has no stdio. Conversions: %s, %c, %d (int), %u (unsigned), %zu (size_t),
 * %llu (unsigned long long), %llx, %%. */
size_t slc__vfmt(char *buf, size_t cap, const char *fmt, va_list ap);
size_t slc__fmt(char *buf, size_t cap, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Formats a message and hands it to the logger (if any); returns status so
 * callers can `return slc__log(...)`. */
slc_status slc__log(const slc_logger *log, slc_log_level level, slc_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

#ifdef __clang_analyzer__
/* For clang's static analyzer only (clang-tidy's clang-analyzer-* checks):
 * it never inlines a variadic function, so it cannot see that slc__log
 * returns its status argument, and then explores a `return slc__log(...)`
 * that returned SLC_OK (false null dereferences after every failed lookup).
 * This wrapper states the contract; the build itself never sees it. */
static inline slc_status slc__analyzer_status(slc_status status, slc_status logged)
{
    (void)logged;
    return status;
}
#define slc__log(log, level, status, ...) \
    slc__analyzer_status((status), slc__log((log), (level), (status), __VA_ARGS__))
#endif

/* The profile keyword of eviction policy `eviction` (slc_eviction_policy),
 * from the pool's table of policies (pool.c), or NULL past its last row:
 * the one list of policies that the pool, the profile parser and its
 * messages read. O(1). */
const char *slc__evict_policy_name(uint32_t eviction);

static inline int slc__is_pow2(uint64_t x)
{
    return x != 0 && (x & (x - 1)) == 0;
}

static inline uint64_t slc__align_up(uint64_t x, uint64_t a)
{
    return (x + a - 1) & ~(a - 1);
}

/* strnlen without string.h's optional POSIX part. */
static inline size_t slc__strnlen(const char *s, size_t max)
{
    size_t n = 0;
    while (n < max && s[n] != '\0') {
        n++;
    }
    return n;
}

#endif
