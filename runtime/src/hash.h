/* SPDX-License-Identifier: MIT */
/* sluice: XXH3 of payload bytes, built into the runtime for the instruction
 * sets of the target and picked per call from what the CPU has; not
 * installed.
 *
 * Every variant is xxhash.h's own XXH3_64bits (the package's header, with
 * XXH_INLINE_ALL, no code copied) compiled for one instruction set, so all
 * of them return XXH3_64bits(data, size) bit for bit: the variant changes
 * only the speed. None allocates, and no build of them references the
 * heap (hash_xxh.h). All are thread-safe: they touch nothing but data. */
#ifndef SLUICE_HASH_H
#define SLUICE_HASH_H

#include <stddef.h>
#include <stdint.h>

/* XXH3_64bits(data, size) with the fastest variant this CPU runs: AVX2 on
 * x86-64 where the CPU and the OS have it, else the target's baseline
 * (SSE2 on x86-64, NEON on aarch64, the toolchain's baseline on 32-bit
 * ARM). O(size); the choice costs one test of a bit the C library's CPU
 * model set before main. data may be NULL iff size is 0. */
uint64_t slc__xxh3_64(const void *data, size_t size);

/* The variants themselves, for the tests that hold them to the same value.
 * slc__xxh3_64_baseline: the target's baseline instruction set.
 * slc__xxh3_64_scalar: no vector instructions at all.
 * slc__xxh3_64_avx2: AVX2; exists on x86-64 only, and may be called only
 * where slc__xxh3_have_avx2() is true (elsewhere it faults). */
uint64_t slc__xxh3_64_baseline(const void *data, size_t size);
uint64_t slc__xxh3_64_scalar(const void *data, size_t size);
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define SLC_HASH_AVX2 1
uint64_t slc__xxh3_64_avx2(const void *data, size_t size);
#endif

/* Whether slc__xxh3_64 runs the AVX2 variant on this CPU (false where the
 * target has none). O(1). */
int slc__xxh3_have_avx2(void);

#endif
