/* SPDX-License-Identifier: MIT */
/* sluice: XXH3 compiled for AVX2, on x86-64 only (see hash.h). Only this
 * file's functions carry the AVX2 target, so nothing else in the runtime
 * can use an AVX2 instruction on a CPU without it; slc__xxh3_64 calls in
 * here only after asking the CPU. */
#include "hash.h"

#ifdef SLC_HASH_AVX2
/* The C library's and the intrinsics' headers first, outside the target
 * region, so their declarations keep the baseline target. */
#include <immintrin.h>
#include <stdlib.h>
#include <string.h>

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2")
#endif

#define XXH_VECTOR XXH_AVX2
#include "hash_xxh.h"

uint64_t slc__xxh3_64_avx2(const void *data, size_t size)
{
    return XXH3_64bits(data, size);
}

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#else
/* Not x86-64: no AVX2 variant (ISO C wants a declaration in every file). */
typedef int slc__hash_no_avx2;
#endif
