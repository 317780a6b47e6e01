/* SPDX-License-Identifier: MIT */
/* sluice: XXH3 for the target's baseline instruction set, and the choice
 * of variant (see hash.h). */
#include "hash.h"

#include "hash_xxh.h"

uint64_t slc__xxh3_64_baseline(const void *data, size_t size)
{
    return XXH3_64bits(data, size);
}

int slc__xxh3_have_avx2(void)
{
#ifdef SLC_HASH_AVX2
    /* libgcc's (or compiler-rt's) CPU model, filled by a constructor before
     * main: AVX2 only where the OS also saves the YMM registers. */
    return __builtin_cpu_supports("avx2") ? 1 : 0;
#else
    return 0;
#endif
}

uint64_t slc__xxh3_64(const void *data, size_t size)
{
#ifdef SLC_HASH_AVX2
    if (__builtin_cpu_supports("avx2")) {
        return slc__xxh3_64_avx2(data, size);
    }
#endif
    return slc__xxh3_64_baseline(data, size);
}
