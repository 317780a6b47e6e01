/* SPDX-License-Identifier: MIT */
/* XXH3 of payloads (runtime/src/hash.c): every variant built into the
 * runtime (the baseline, scalar and, on x86-64, AVX2 builds of xxhash.h)
 * returns the library's XXH3_64bits on every size and alignment, including
 * the variants this CPU would not pick, and the dispatcher picks AVX2
 * exactly where the CPU has it. */
#include "test_util.h"

#include <xxhash.h>

#include "hash.h"

enum { BUF = 70000, ALIGN_MAX = 64 };

typedef uint64_t (*hash_fn)(const void *, size_t);

typedef struct variant {
    const char *name;
    hash_fn fn;
} variant;

/* The variants this CPU can run: all of them but AVX2 without AVX2. */
static size_t variants(variant out[4])
{
    size_t n = 0;
    out[n++] = (variant){"dispatch", slc__xxh3_64};
    out[n++] = (variant){"baseline", slc__xxh3_64_baseline};
    out[n++] = (variant){"scalar", slc__xxh3_64_scalar};
#ifdef SLC_HASH_AVX2
    if (__builtin_cpu_supports("avx2")) {
        out[n++] = (variant){"avx2", slc__xxh3_64_avx2};
    }
#endif
    return n;
}

static unsigned char *random_bytes(uint32_t seed)
{
    unsigned char *b = malloc(BUF + ALIGN_MAX);
    assert_non_null(b);
    uint32_t x = seed;
    for (size_t i = 0; i < BUF + ALIGN_MAX; i++) {
        x = x * 1664525u + 1013904223u;
        b[i] = (unsigned char)(x >> 24);
    }
    return b;
}

static void expect_all_agree(const variant *v, size_t nv, const unsigned char *p, size_t size, size_t align)
{
    const uint64_t want = XXH3_64bits(p, size);
    for (size_t k = 0; k < nv; k++) {
        const uint64_t got = v[k].fn(p, size);
        if (got != want) {
            fail_msg("%s: XXH3 of %zu bytes at alignment %zu is 0x%llx, the library's 0x%llx", v[k].name, size, align,
                     (unsigned long long)got, (unsigned long long)want);
        }
    }
}

/* Every size through the short-input paths (0-16, 17-128, 129-240) at
 * every alignment mod 64, and every size through the long path's first
 * stripes and its first block (1024 bytes with the default secret) at a
 * few alignments (kept small: the suite runs under valgrind and qemu). */
static void test_variants_agree_on_short_sizes_at_every_alignment(void **state)
{
    (void)state;
    variant v[4];
    const size_t nv = variants(v);
    unsigned char *b = random_bytes(1);
    static const size_t few[] = {0, 1, 3, 8, 31};
    for (size_t align = 0; align < ALIGN_MAX; align++) {
        for (size_t size = 0; size <= 260; size++) {
            expect_all_agree(v, nv, b + align, size, align);
        }
    }
    for (size_t k = 0; k < sizeof few / sizeof few[0]; k++) {
        for (size_t size = 261; size <= 1100; size++) {
            expect_all_agree(v, nv, b + few[k], size, few[k]);
        }
    }
    free(b);
}

/* Chunk-sized inputs: around every block boundary (1024 bytes with the
 * default secret) up to a 64 KiB page and past it, and an odd tail. */
static void test_variants_agree_on_page_sized_inputs(void **state)
{
    (void)state;
    variant v[4];
    const size_t nv = variants(v);
    unsigned char *b = random_bytes(7);
    for (size_t size = 1024 - 65; size <= 65536 + 1024; size += 1023) {
        for (size_t align = 0; align < ALIGN_MAX; align += 13) {
            expect_all_agree(v, nv, b + align, size, align);
            expect_all_agree(v, nv, b + align, size + 1, align);
        }
    }
    expect_all_agree(v, nv, b, BUF, 0);
    expect_all_agree(v, nv, b + 3, BUF - 3, 3);
    free(b);
}

/* Values fixed by the XXH3 specification, not by any build of it. */
static void test_known_values(void **state)
{
    (void)state;
    variant v[4];
    const size_t nv = variants(v);
    for (size_t k = 0; k < nv; k++) {
        assert_true(v[k].fn(NULL, 0) == 0x2D06800538D394C2ull); /* XXH3_64bits of no bytes */
        assert_true(v[k].fn("", 0) == 0x2D06800538D394C2ull);
    }
}

static void test_dispatch_picks_avx2_where_the_cpu_has_it(void **state)
{
    (void)state;
#ifdef SLC_HASH_AVX2
    assert_int_equal(slc__xxh3_have_avx2(), __builtin_cpu_supports("avx2") ? 1 : 0);
#else
    assert_int_equal(slc__xxh3_have_avx2(), 0);
#endif
    print_message("XXH3 variant on this CPU: %s\n", slc__xxh3_have_avx2() ? "avx2" : "baseline");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_variants_agree_on_short_sizes_at_every_alignment),
        cmocka_unit_test(test_variants_agree_on_page_sized_inputs),
        cmocka_unit_test(test_known_values),
        cmocka_unit_test(test_dispatch_picks_avx2_where_the_cpu_has_it),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
