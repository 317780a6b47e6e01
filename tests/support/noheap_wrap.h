/* SPDX-License-Identifier: MIT */
/* The heap and mapping calls counted, for the tests that prove a stretch of
 * code makes none (test_noheap.c, test_stream.c built as
 * test_stream_noheap): the binary is linked with
 *   --wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free,
 *   --wrap=aligned_alloc,--wrap=posix_memalign,--wrap=mmap,--wrap=munmap
 * (tests/CMakeLists.txt), so every such call lands here and is passed on.
 * While noheap_counting is 1 each call adds one to noheap_calls; every mmap
 * adds one to noheap_maps, counting or not.
 *
 * It defines the wrappers: include it from one file of the binary only. */
#ifndef SLUICE_NOHEAP_WRAP_H
#define SLUICE_NOHEAP_WRAP_H

#include <stddef.h>
#include <sys/types.h>

/* volatile: malloc is a builtin the compiler assumes leaves globals alone */
static volatile int noheap_counting;
static volatile int noheap_calls;
static volatile int noheap_maps;

void *__real_malloc(size_t);
void *__real_calloc(size_t, size_t);
void *__real_realloc(void *, size_t);
void __real_free(void *);
void *__real_aligned_alloc(size_t, size_t);
int __real_posix_memalign(void **, size_t, size_t);
void *__real_mmap(void *, size_t, int, int, int, off_t);
int __real_munmap(void *, size_t);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t a, size_t b);
void *__wrap_realloc(void *p, size_t n);
void __wrap_free(void *p);
void *__wrap_aligned_alloc(size_t a, size_t n);
int __wrap_posix_memalign(void **p, size_t a, size_t n);
void *__wrap_mmap(void *a, size_t n, int prot, int flags, int fd, off_t off);
int __wrap_munmap(void *a, size_t n);

void *__wrap_malloc(size_t n)
{
    noheap_calls += noheap_counting;
    return __real_malloc(n);
}
void *__wrap_calloc(size_t a, size_t b)
{
    noheap_calls += noheap_counting;
    return __real_calloc(a, b);
}
void *__wrap_realloc(void *p, size_t n)
{
    noheap_calls += noheap_counting;
    return __real_realloc(p, n);
}
void __wrap_free(void *p)
{
    noheap_calls += noheap_counting;
    __real_free(p);
}
void *__wrap_aligned_alloc(size_t a, size_t n)
{
    noheap_calls += noheap_counting;
    return __real_aligned_alloc(a, n);
}
int __wrap_posix_memalign(void **p, size_t a, size_t n)
{
    noheap_calls += noheap_counting;
    return __real_posix_memalign(p, a, n);
}
void *__wrap_mmap(void *a, size_t n, int prot, int flags, int fd, off_t off)
{
    noheap_maps++;
    noheap_calls += noheap_counting;
    return __real_mmap(a, n, prot, flags, fd, off);
}
int __wrap_munmap(void *a, size_t n)
{
    noheap_calls += noheap_counting;
    return __real_munmap(a, n);
}

#endif
