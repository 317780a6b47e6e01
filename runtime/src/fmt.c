/* SPDX-License-Identifier: MIT */
/* sluice: the runtime's small formatter and the logger call. */
#include <stdarg.h>
#include <stddef.h>

#include "internal.h"

#ifdef SLC_FMT_UINT32_IS_ULONG /* newlib's uint32_t: see runtime/CMakeLists.txt */
_Static_assert(sizeof(unsigned long) == sizeof(unsigned),
               "%u reads a uint32_t (unsigned long here) as an unsigned int");
#endif

typedef struct out_buf {
    char *buf;
    size_t cap;
    size_t len;
} out_buf;

static void put(out_buf *o, char c)
{
    if (o->len + 1 < o->cap) {
        o->buf[o->len++] = c;
    }
}

static void put_u(out_buf *o, unsigned long long v, unsigned base)
{
    char tmp[24];
    size_t n = 0;
    do {
        unsigned d = (unsigned)(v % base);
        tmp[n++] = (char)(d < 10 ? '0' + d : 'a' + d - 10);
        v /= base;
    } while (v != 0);
    while (n > 0) {
        put(o, tmp[--n]);
    }
}

size_t slc__vfmt(char *buf, size_t cap, const char *fmt, va_list ap)
{
    out_buf o = {buf, cap, 0};
    for (const char *p = fmt; *p != '\0'; p++) {
        if (*p != '%') {
            put(&o, *p);
            continue;
        }
        p++;
        switch (*p) {
        case 's': {
            const char *s = va_arg(ap, const char *);
            for (s = s ? s : "(null)"; *s != '\0'; s++) {
                put(&o, *s);
            }
            break;
        }
        case 'c':
            put(&o, (char)va_arg(ap, int));
            break;
        case 'd': {
            int v = va_arg(ap, int);
            if (v < 0) {
                put(&o, '-');
                put_u(&o, 0ull - (unsigned long long)v, 10);
            } else {
                put_u(&o, (unsigned long long)v, 10);
            }
            break;
        }
        case 'u':
            put_u(&o, va_arg(ap, unsigned), 10);
            break;
        case 'z':
            p++; /* only %zu */
            put_u(&o, va_arg(ap, size_t), 10);
            break;
        case 'l':
            p += 2; /* only %llu and %llx */
            put_u(&o, va_arg(ap, unsigned long long), *p == 'x' ? 16u : 10u);
            break;
        case '%':
            put(&o, '%');
            break;
        default:
            /* An unsupported conversion is a bug in the runtime's own format
             * strings, which -Wformat checks; print it literally. */
            put(&o, '%');
            if (*p == '\0') {
                p--;
            } else {
                put(&o, *p);
            }
            break;
        }
    }
    if (cap > 0) {
        buf[o.len] = '\0';
    }
    return o.len;
}

size_t slc__fmt(char *buf, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t n = slc__vfmt(buf, cap, fmt, ap);
    va_end(ap);
    return n;
}

/* The name in parentheses: internal.h may define slc__log as a macro for the
 * static analyzer. */
slc_status(slc__log)(const slc_logger *log, slc_log_level level, slc_status status, const char *fmt, ...)
{
    if (log != NULL && log->fn != NULL) {
        char msg[320];
        va_list ap;
        va_start(ap, fmt);
        slc__vfmt(msg, sizeof msg, fmt, ap);
        va_end(ap);
        log->fn(log->user, level, status, msg);
    }
    return status;
}
