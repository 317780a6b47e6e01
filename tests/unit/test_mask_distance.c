/* SPDX-License-Identifier: MIT */
/* The distance between two coverage masks (tools/bench/mask_distance.c),
 * which `sluice bench lod --check` holds a served level to: exact
 * transforms, the two directions, empty masks, and pixels covered alone
 * (features thinner than a pixel) that are no source of the distance. The
 * case of the thin tip is the one a glass part of a real model gave, where
 * a level 0.26 px from level 0 lit one pixel 5 px past level 0's tip. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "mask_distance.h"

#define W 32u
#define H 24u

static uint8_t ma[W * H], mb[W * H];
static double dta[W * H], dtb[W * H];
static double sf[W + 1u], sd[W + 1u], sz[W + 2u];
static uint32_t sv[W + 1u];
static mask_scratch scratch = {sf, sd, sz, sv};

static void clear(void)
{
    memset(ma, 0, sizeof ma);
    memset(mb, 0, sizeof mb);
}

static void set(uint8_t *m, uint32_t x, uint32_t y)
{
    m[y * W + x] = 1;
}

static void disk(uint8_t *m, double cx, double cy, double r)
{
    for (uint32_t y = 0; y < H; y++) {
        for (uint32_t x = 0; x < W; x++) {
            if ((x - cx) * (x - cx) + (y - cy) * (y - cy) <= r * r) {
                set(m, x, y);
            }
        }
    }
}

/* The two-sided distance between ma and mb. */
static double both(void)
{
    mask_transform(ma, W, H, dta, &scratch);
    mask_transform(mb, W, H, dtb, &scratch);
    return fmax(mask_directed(ma, W, H, dtb), mask_directed(mb, W, H, dta));
}

static void test_transform_is_the_squared_distance(void **state)
{
    (void)state;
    clear();
    set(ma, 3, 4);
    set(ma, 30, 20);
    mask_transform(ma, W, H, dta, &scratch);
    for (uint32_t y = 0; y < H; y++) {
        for (uint32_t x = 0; x < W; x++) {
            const double d1 = ((double)x - 3) * ((double)x - 3) + ((double)y - 4) * ((double)y - 4);
            const double d2 = ((double)x - 30) * ((double)x - 30) + ((double)y - 20) * ((double)y - 20);
            assert_true(dta[y * W + x] == fmin(d1, d2));
        }
    }
    clear();
    mask_transform(ma, W, H, dta, &scratch);
    assert_true(dta[0] >= mask_far(W, H));
    assert_true(dta[W * H - 1u] >= mask_far(W, H));
}

static void test_equal_masks_are_0_apart(void **state)
{
    (void)state;
    clear();
    disk(ma, 12, 11, 6);
    disk(mb, 12, 11, 6);
    assert_true(both() == 0.0);
}

static void test_a_shifted_disk_is_its_shift_apart(void **state)
{
    (void)state;
    clear();
    disk(ma, 10, 11, 5);
    disk(mb, 13, 11, 5);
    assert_true(both() == 3.0);
    /* The directions differ when one mask holds the other: rows 5 to 15,
     * columns 2 to 20 and 6 to 20. */
    clear();
    for (uint32_t y = 5; y <= 15; y++) {
        for (uint32_t x = 2; x <= 20; x++) {
            set(ma, x, y);
            if (x >= 6) {
                set(mb, x, y);
            }
        }
    }
    mask_transform(ma, W, H, dta, &scratch);
    mask_transform(mb, W, H, dtb, &scratch);
    assert_true(mask_directed(mb, W, H, dta) == 0.0);
    assert_true(mask_directed(ma, W, H, dtb) == 4.0);
}

static void test_an_empty_mask_is_infinitely_far(void **state)
{
    (void)state;
    clear();
    disk(ma, 12, 11, 3);
    assert_true(isinf(both()));
    clear();
    assert_true(both() == 0.0);
}

/* A thin diagonal tip, and past it one pixel lit alone 5 px away (3, 4):
 * no source. Two pixels lit together there are a feature: they count. */
static void test_a_pixel_lit_alone_is_no_source(void **state)
{
    (void)state;
    clear();
    for (uint32_t i = 0; i < 8; i++) {
        set(ma, 4u + 2u * i, 4u + i);
        set(ma, 5u + 2u * i, 4u + i);
        set(mb, 4u + 2u * i, 4u + i);
        set(mb, 5u + 2u * i, 4u + i);
    }
    set(mb, 19u + 3u, 11u + 4u);
    assert_true(both() == 0.0);
    set(mb, 19u + 2u, 11u + 4u); /* 4.47 px from the tip */
    assert_true(both() == 5.0);
    /* Either mask: the lone pixel in ma counts no more. */
    clear();
    disk(ma, 8, 8, 3);
    disk(mb, 8, 8, 3);
    set(ma, 20, 8);
    assert_true(both() == 0.0);
    set(ma, 21, 9);                     /* a diagonal neighbour makes it a feature */
    assert_true(both() == sqrt(101.0)); /* (21, 9) to the disk's (11, 8) */
}

/* Pixels on the image's edges and corners: their neighbours are the ones
 * inside the image. */
static void test_edges_and_corners(void **state)
{
    (void)state;
    clear();
    set(ma, 0, 0);
    set(ma, W - 1u, H - 1u);
    mask_transform(mb, W, H, dtb, &scratch);
    assert_true(mask_directed(ma, W, H, dtb) == 0.0); /* both alone */
    set(ma, 1, 1);
    assert_true(isinf(mask_directed(ma, W, H, dtb)));
    set(mb, 0, H - 1u);
    set(mb, 1, H - 1u);
    mask_transform(mb, W, H, dtb, &scratch);
    assert_true(mask_directed(ma, W, H, dtb) == (double)(H - 1u));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_transform_is_the_squared_distance),
        cmocka_unit_test(test_equal_masks_are_0_apart),
        cmocka_unit_test(test_a_shifted_disk_is_its_shift_apart),
        cmocka_unit_test(test_an_empty_mask_is_infinitely_far),
        cmocka_unit_test(test_a_pixel_lit_alone_is_no_source),
        cmocka_unit_test(test_edges_and_corners),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
