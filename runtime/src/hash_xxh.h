/* SPDX-License-Identifier: MIT */
/* sluice: xxhash.h inlined (XXH_INLINE_ALL) without a reference to the
 * heap, for the hash_*.c files only; each defines XXH_VECTOR (or leaves it
 * to the target) first, and includes this once. With SLC__XXH_LIBRARY
 * defined first (xxhash_lib.c only), the library's functions themselves
 * instead (XXH_IMPLEMENTATION: external, under their own names), for a
 * target without libxxhash. Not installed.
 *
 * xxhash 0.8.1 reaches malloc and free through two static helpers of its
 * own (for its state functions, which the runtime never calls). An
 * optimised build drops them as unused; an unoptimised one (-O0: Debug,
 * the sanitizer builds) still emits them, and with them references to
 * malloc and free. Here the header's calls land on two stubs instead, so
 * no build of these files references the heap. */
#ifndef SLUICE_HASH_XXH_H
#define SLUICE_HASH_XXH_H

#include <stddef.h>
#include <stdlib.h> /* before the macros below: its declarations keep their names */
#include <string.h>

static inline void *slc__xxh_no_malloc(size_t size)
{
    (void)size;
    return NULL;
}

static inline void slc__xxh_no_free(void *p)
{
    (void)p;
}

#define malloc(size) slc__xxh_no_malloc(size)
#define free(p) slc__xxh_no_free(p)
#ifdef SLC__XXH_LIBRARY
#define XXH_STATIC_LINKING_ONLY
#define XXH_IMPLEMENTATION
#else
#define XXH_INLINE_ALL
#endif
#include <xxhash.h>
#undef malloc
#undef free

#endif
