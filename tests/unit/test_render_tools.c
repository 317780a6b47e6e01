/* SPDX-License-Identifier: MIT */
/* sluice render's host-side pieces: the camera's view for drawing
 * (tools/camera.c: camera_get_view, camera_overview, camera_look_along;
 * the screen-space error rule's camera_pixels_per_unit) in Vulkan's clip
 * space, and the PNG writer and contact sheet (tools/png_write.c): pixels
 * read back through libpng as written, the same bytes for the same image,
 * the box filter's averages, and a failed write leaving no file and the
 * old one as it was, with the path in the message. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "camera.h"
#include "png_write.h"
#include "test_util.h"

/* clip = m * (p, 1), column-major. */
static void transform(const float m[16], const float p[3], float clip[4])
{
    for (int r = 0; r < 4; r++) {
        clip[r] = m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r];
    }
}

static void assert_near(double got, double want, double tol)
{
    if (fabs(got - want) > tol) {
        fail_msg("%.6f is not within %.6f of %.6f", got, tol, want);
    }
}

static camera a_camera(void)
{
    camera c;
    memset(&c, 0, sizeof c);
    const float lo[3] = {-100, 0, -100}, hi[3] = {100, 50, 100}, eye[3] = {0, 60, 0}, dir[3] = {0, 0, -1};
    memcpy(c.lo, lo, sizeof lo);
    memcpy(c.hi, hi, sizeof hi);
    memcpy(c.eye, eye, sizeof eye);
    memcpy(c.dir, dir, sizeof dir);
    return c;
}

static void test_view_puts_the_point_ahead_at_the_centre(void **state)
{
    (void)state;
    camera c = a_camera();
    camera_view v;
    camera_get_view(&c, 16.0f / 9.0f, &v);
    const float ahead[3] = {0, 60, -50};
    float clip[4];
    transform(v.view_proj, ahead, clip);
    assert_true(clip[3] > 0);
    assert_near(clip[0] / clip[3], 0, 1e-5);
    assert_near(clip[1] / clip[3], 0, 1e-5);
    const double z = clip[2] / clip[3];
    assert_true(z > 0 && z < 1);
    assert_near(v.eye[1], 60, 0);
}

static void test_view_is_vulkan_clip_space(void **state)
{
    (void)state;
    camera c = a_camera();
    camera_view v;
    camera_get_view(&c, 2.0f, &v);
    /* far reaches the farthest corner of the bounds; near is far / 10000 */
    const double far = sqrt(100.0 * 100 + 60.0 * 60 + 100.0 * 100) * 1.01;
    assert_near(v.zfar, far, 1e-3);
    assert_near(v.znear, far / 10000.0, 1e-6);
    float clip[4];
    const float at_near[3] = {0, 60, -v.znear}, at_far[3] = {0, 60, -v.zfar};
    transform(v.view_proj, at_near, clip);
    assert_near(clip[2] / clip[3], 0, 1e-4);
    transform(v.view_proj, at_far, clip);
    assert_near(clip[2] / clip[3], 1, 1e-4);
    /* y up in the scene is up in the image: Vulkan's y points down */
    const float above[3] = {0, 70, -50}, right[3] = {10, 60, -50};
    transform(v.view_proj, above, clip);
    assert_true(clip[1] / clip[3] < 0);
    transform(v.view_proj, right, clip);
    assert_true(clip[0] / clip[3] > 0);
    /* 60 degrees vertical: a point at 30 degrees up is on the top edge */
    const float edge[3] = {0, 60 + 50 * tanf(30.0f * 3.14159265f / 180.0f), -50};
    transform(v.view_proj, edge, clip);
    assert_near(clip[1] / clip[3], -1, 1e-4);
}

/* camera_look_along (bench lod's views): the target straight ahead at the
 * image's centre, near and far at depth 0 and 1, and looking straight down
 * still gives a view. */
static void test_look_along_centres_the_target(void **state)
{
    (void)state;
    const float eye[3] = {3, 4, 5}, dir[3] = {-3, -4, -5}, target[3] = {0, 0, 0};
    camera_view v;
    camera_look_along(eye, dir, 0, 1.0f, 1.0f, 20.0f, &v);
    float clip[4];
    transform(v.view_proj, target, clip);
    assert_true(clip[3] > 0);
    assert_near(clip[0] / clip[3], 0, 1e-5);
    assert_near(clip[1] / clip[3], 0, 1e-5);
    const double len = sqrt(50.0);
    const float at_near[3] = {(float)(3 - 3 / len), (float)(4 - 4 / len), (float)(5 - 5 / len)};
    const float at_far[3] = {(float)(3 - 60 / len), (float)(4 - 80 / len), (float)(5 - 100 / len)};
    transform(v.view_proj, at_near, clip);
    assert_near(clip[2] / clip[3], 0, 1e-4);
    transform(v.view_proj, at_far, clip);
    assert_near(clip[2] / clip[3], 1, 1e-4);
    const float down[3] = {0, -1, 0}, below[3] = {3, 0, 5};
    camera_look_along(eye, down, 60, 1.0f, 1.0f, 20.0f, &v);
    transform(v.view_proj, below, clip);
    assert_near(clip[0] / clip[3], 0, 1e-5);
    assert_near(clip[1] / clip[3], 0, 1e-5);
}

/* The screen-space error rule's scale: height / (2 d tan(fov / 2)), the
 * distance at least 1e-3. */
static void test_pixels_per_unit(void **state)
{
    (void)state;
    const float t = tanf(30.0f * 3.14159265f / 180.0f);
    assert_near(camera_pixels_per_unit(128.0f, 1.0f, t), 128.0 / (2.0 * tan(3.14159265358979 / 6.0)), 1e-3);
    assert_near(camera_pixels_per_unit(1080.0f, 10.0f, 1.0f), 54.0, 1e-4);
    assert_near(camera_pixels_per_unit(1080.0f, 0.0f, 1.0f), 540000.0, 1.0);
    assert_near(camera_pixels_per_unit(1080.0f, -5.0f, 1.0f), 540000.0, 1.0);
}

static void test_overview_frames_every_corner(void **state)
{
    (void)state;
    const float lo[3] = {-300, 0, -40}, hi[3] = {500, 120, 60};
    for (int k = 0; k < 3; k++) {
        const float aspect = k == 0 ? 1.0f : k == 1 ? 16.0f / 9.0f : 0.5f;
        camera_view v;
        camera_overview(lo, hi, 0, aspect, &v);
        assert_true(v.eye[1] > hi[1]); /* above the scene, looking down */
        assert_true(v.eye[2] > hi[2]); /* in front of it, along +z */
        for (int corner = 0; corner < 8; corner++) {
            const float p[3] = {corner & 1 ? hi[0] : lo[0], corner & 2 ? hi[1] : lo[1], corner & 4 ? hi[2] : lo[2]};
            float clip[4];
            transform(v.view_proj, p, clip);
            assert_true(clip[3] > 0);
            for (int a = 0; a < 2; a++) {
                assert_true(fabsf(clip[a] / clip[3]) <= 1.0f);
            }
            assert_true(clip[2] / clip[3] > 0 && clip[2] / clip[3] < 1);
        }
    }
}

/* Reads a PNG back as RGB8: width, height and the malloc'd pixels. */
static uint8_t *read_png(const char *path, uint32_t *w, uint32_t *h)
{
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    assert_true(png_image_begin_read_from_file(&img, path));
    img.format = PNG_FORMAT_RGB;
    uint8_t *px = malloc(PNG_IMAGE_SIZE(img));
    assert_non_null(px);
    assert_true(png_image_finish_read(&img, NULL, px, 0, NULL));
    *w = img.width;
    *h = img.height;
    return px;
}

/* The whole file, malloc'd. */
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char *buf = malloc(1u << 20);
    assert_non_null(buf);
    *len = fread(buf, 1, 1u << 20, f);
    fclose(f);
    return buf;
}

static char dir[256];

static int make_dir(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/test_render_tools.XXXXXX");
    return mkdtemp(dir) != NULL ? 0 : -1;
}

static uint8_t *pattern(uint32_t w, uint32_t h, size_t stride)
{
    uint8_t *px = calloc(stride * h, 1);
    for (uint32_t y = 0; y < h; y++) {
        for (uint32_t x = 0; x < w; x++) {
            uint8_t *p = px + (size_t)y * stride + (size_t)x * 4u;
            p[0] = (uint8_t)(x * 7u);
            p[1] = (uint8_t)(y * 13u);
            p[2] = (uint8_t)(x ^ y);
            p[3] = 255;
        }
    }
    return px;
}

static void test_png_reads_back_as_written(void **state)
{
    (void)state;
    const uint32_t w = 37, h = 21;
    const size_t stride = w * 4u + 12u; /* rows with padding */
    uint8_t *px = pattern(w, h, stride);
    char path[300], again[300], err[512];
    snprintf(path, sizeof path, "%s/a.png", dir);
    snprintf(again, sizeof again, "%s/b.png", dir);
    assert_int_equal(png_write_rgba(path, px, w, h, stride, err, sizeof err), 0);
    assert_int_equal(png_write_rgba(again, px, w, h, stride, err, sizeof err), 0);
    uint32_t rw, rh;
    uint8_t *back = read_png(path, &rw, &rh);
    assert_int_equal(rw, w);
    assert_int_equal(rh, h);
    for (uint32_t y = 0; y < h; y++) {
        for (uint32_t x = 0; x < w; x++) {
            assert_memory_equal(back + ((size_t)y * w + x) * 3u, px + (size_t)y * stride + (size_t)x * 4u, 3);
        }
    }
    size_t na, nb;
    char *a = slurp(path, &na), *b = slurp(again, &nb);
    assert_int_equal(na, nb); /* the same image, the same bytes */
    assert_memory_equal(a, b, na);
    free(a);
    free(b);
    free(back);
    free(px);
}

static void test_png_failed_write_leaves_the_old_file(void **state)
{
    (void)state;
    uint8_t *px = pattern(4, 4, 16);
    char path[300], err[512];
    snprintf(path, sizeof path, "%s/no-such-dir/x.png", dir);
    assert_int_equal(png_write_rgba(path, px, 4, 4, 16, err, sizeof err), -1);
    assert_non_null(strstr(err, path));
    assert_non_null(strstr(err, "cannot create"));
    struct stat st;
    assert_int_not_equal(stat(path, &st), 0);
    /* a bad image is refused before anything is created */
    snprintf(path, sizeof path, "%s/old.png", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("old", f);
    fclose(f);
    assert_int_equal(png_write_rgba(path, px, 4, 4, 8, err, sizeof err), -1); /* stride below a row */
    assert_non_null(strstr(err, "cannot write an image of 4x4 (stride 8)"));
    size_t n;
    char *old = slurp(path, &n);
    assert_int_equal(n, 3);
    assert_memory_equal(old, "old", 3);
    free(old);
    free(px);
}

static void test_sheet_averages_and_places_cells(void **state)
{
    (void)state;
    png_sheet s;
    assert_int_equal(png_sheet_init(&s, 2, 1, 2, 1), 0);
    /* a 4x2 image: left half 0 and 100, right half 200 and 50 (red) */
    uint8_t img[4 * 2 * 4];
    memset(img, 255, sizeof img);
    const uint8_t reds[8] = {0, 100, 200, 50, 100, 0, 50, 200};
    for (int i = 0; i < 8; i++) {
        img[i * 4] = reds[i];
    }
    for (int i = 0; i < 3; i++) { /* three cells: the memory grows past the one expected */
        assert_int_equal(png_sheet_add(&s, img, 4, 2, 16), 0);
    }
    assert_int_equal(s.count, 3);
    assert_int_equal(s.cells[0], 50);  /* (0 + 100 + 100 + 0) / 4 */
    assert_int_equal(s.cells[4], 125); /* (200 + 50 + 50 + 200) / 4 */
    char path[300], err[512];
    snprintf(path, sizeof path, "%s/sheet.png", dir);
    assert_int_equal(png_sheet_write(&s, path, err, sizeof err), 0);
    uint32_t w, h;
    uint8_t *back = read_png(path, &w, &h);
    assert_int_equal(w, 2 * (2 + s.gap) + s.gap); /* 2 a row */
    assert_int_equal(h, 2 * (1 + s.gap) + s.gap); /* 2 rows */
    assert_int_equal(back[((size_t)s.gap * w + s.gap) * 3u], 50);
    assert_int_equal(back[0], 32); /* the background */
    free(back);
    png_sheet_free(&s);
}

static int remove_dir(void **state)
{
    (void)state;
    static const char *const names[] = {"a.png", "b.png", "old.png", "sheet.png"};
    char path[300];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        (void)unlink(path);
    }
    return rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_view_puts_the_point_ahead_at_the_centre),
        cmocka_unit_test(test_view_is_vulkan_clip_space),
        cmocka_unit_test(test_overview_frames_every_corner),
        cmocka_unit_test(test_look_along_centres_the_target),
        cmocka_unit_test(test_pixels_per_unit),
        cmocka_unit_test(test_png_reads_back_as_written),
        cmocka_unit_test(test_png_failed_write_leaves_the_old_file),
        cmocka_unit_test(test_sheet_averages_and_places_cells),
    };
    return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
