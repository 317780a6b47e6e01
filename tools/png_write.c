/* SPDX-License-Identifier: MIT */
/* PNG files through libpng and atomic_file.h (see png_write.h). */
#include "png_write.h"

#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"

/* libpng's errors end in a longjmp back to the writer, with the message kept. */
typedef struct png_failure {
    jmp_buf jump;
    char message[200];
} png_failure;

static void on_png_error(png_structp png, png_const_charp message)
{
    png_failure *fail = png_get_error_ptr(png);
    snprintf(fail->message, sizeof fail->message, "%s", message);
    longjmp(fail->jump, 1);
}

static void on_png_warning(png_structp png, png_const_charp message)
{
    (void)png;
    (void)message; /* nothing the tools' images can cause is worth a line */
}

/* Writes the image into the open file f; 0, or -1 with fail->message. The
 * rows are handed over one at a time, so nothing but libpng's own state is
 * allocated. volatile: kept across libpng's longjmp. */
static int write_png(FILE *f, const uint8_t *rgba, uint32_t width, uint32_t height, size_t stride, png_failure *fail)
{
    png_structp volatile png = png_create_write_struct(PNG_LIBPNG_VER_STRING, fail, on_png_error, on_png_warning);
    png_infop volatile info = png != NULL ? png_create_info_struct(png) : NULL;
    if (png == NULL || info == NULL) {
        snprintf(fail->message, sizeof fail->message, "out of memory");
        png_structp p = png;
        png_infop i = info;
        png_destroy_write_struct(p != NULL ? &p : NULL, i != NULL ? &i : NULL);
        return -1;
    }
    if (setjmp(fail->jump) != 0) {
        png_structp p = png;
        png_infop i = info;
        png_destroy_write_struct(&p, &i);
        return -1;
    }
    png_init_io(png, f);
    png_set_compression_level(png, 6);
    png_set_IHDR(png, info, width, height, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    png_set_filler(png, 0, PNG_FILLER_AFTER); /* the rows are RGBA: the alpha byte is dropped */
    for (uint32_t y = 0; y < height; y++) {
        png_write_row(png, (png_const_bytep)(rgba + (size_t)y * stride));
    }
    png_write_end(png, NULL);
    png_structp p = png;
    png_infop i = info;
    png_destroy_write_struct(&p, &i);
    return 0;
}

int png_write_rgba(const char *path, const uint8_t *rgba, uint32_t width, uint32_t height, size_t stride, char *err,
                   size_t cap)
{
    if (width == 0 || height == 0 || width > PNG_WRITE_SIZE_MAX || height > PNG_WRITE_SIZE_MAX ||
        stride < (size_t)width * 4u) {
        snprintf(err, cap, "%s: cannot write an image of %ux%u (stride %zu)", path, width, height, stride);
        return -1;
    }
    atomic_file a;
    if (atomic_file_open(&a, path, err, cap) != 0) {
        return -1;
    }
    png_failure fail;
    memset(&fail, 0, sizeof fail);
    if (write_png(a.f, rgba, width, height, stride, &fail) != 0) {
        atomic_file_abort(&a);
        snprintf(err, cap, "%s: cannot write the PNG: %s", path, fail.message);
        return -1;
    }
    return atomic_file_commit(&a, err, cap);
}

int png_sheet_init(png_sheet *s, uint32_t cell_w, uint32_t cell_h, uint32_t columns, uint32_t expected)
{
    memset(s, 0, sizeof *s);
    s->cell_w = cell_w ? cell_w : 1u;
    s->cell_h = cell_h ? cell_h : 1u;
    s->columns = columns ? columns : 1u;
    s->gap = 4;
    s->cap = expected ? expected : 1u;
    s->cells = malloc((size_t)s->cap * s->cell_w * s->cell_h * 4u);
    return s->cells != NULL ? 0 : -1;
}

int png_sheet_add(png_sheet *s, const uint8_t *rgba, uint32_t width, uint32_t height, size_t stride)
{
    const size_t cell = (size_t)s->cell_w * s->cell_h * 4u;
    if (s->count == s->cap) {
        uint8_t *grown = realloc(s->cells, (size_t)s->cap * 2u * cell);
        if (grown == NULL) {
            return -1;
        }
        s->cells = grown;
        s->cap *= 2u;
    }
    uint8_t *out = s->cells + (size_t)s->count * cell;
    /* Box filter: each cell pixel averages the source pixels whose centres
     * fall in its footprint (at least one), in integers. */
    for (uint32_t y = 0; y < s->cell_h; y++) {
        uint32_t y0 = (uint32_t)((uint64_t)y * height / s->cell_h);
        uint32_t y1 = (uint32_t)((uint64_t)(y + 1u) * height / s->cell_h);
        y1 = y1 > y0 ? y1 : y0 + 1u;
        for (uint32_t x = 0; x < s->cell_w; x++) {
            uint32_t x0 = (uint32_t)((uint64_t)x * width / s->cell_w);
            uint32_t x1 = (uint32_t)((uint64_t)(x + 1u) * width / s->cell_w);
            x1 = x1 > x0 ? x1 : x0 + 1u;
            uint64_t sum[4] = {0, 0, 0, 0};
            for (uint32_t sy = y0; sy < y1; sy++) {
                const uint8_t *row = rgba + (size_t)sy * stride;
                for (uint32_t sx = x0; sx < x1; sx++) {
                    for (int k = 0; k < 4; k++) {
                        sum[k] += row[(size_t)sx * 4u + (size_t)k];
                    }
                }
            }
            const uint64_t n = (uint64_t)(y1 - y0) * (x1 - x0);
            for (int k = 0; k < 4; k++) {
                out[((size_t)y * s->cell_w + x) * 4u + (size_t)k] = (uint8_t)((sum[k] + n / 2u) / n);
            }
        }
    }
    s->count++;
    return 0;
}

int png_sheet_write(const png_sheet *s, const char *path, char *err, size_t cap)
{
    const uint32_t n = s->count ? s->count : 1u;
    const uint32_t cols = n < s->columns ? n : s->columns;
    const uint32_t rows = (n + s->columns - 1u) / s->columns;
    const uint64_t w64 = (uint64_t)cols * (s->cell_w + s->gap) + s->gap;
    const uint64_t h64 = (uint64_t)rows * (s->cell_h + s->gap) + s->gap;
    if (w64 > PNG_WRITE_SIZE_MAX || h64 > PNG_WRITE_SIZE_MAX) {
        snprintf(err, cap, "%s: cannot write a contact sheet of %llux%llu pixels (at most %u a side)", path,
                 (unsigned long long)w64, (unsigned long long)h64, PNG_WRITE_SIZE_MAX);
        return -1;
    }
    const uint32_t w = (uint32_t)w64, h = (uint32_t)h64;
    const size_t stride = (size_t)w * 4u;
    uint8_t *img = malloc(stride * h);
    if (img == NULL) {
        snprintf(err, cap, "%s: cannot write the contact sheet: out of memory", path);
        return -1;
    }
    for (size_t i = 0; i < stride * h; i += 4) { /* the background: dark grey */
        img[i] = img[i + 1] = img[i + 2] = 32;
        img[i + 3] = 255;
    }
    const size_t cell = (size_t)s->cell_w * s->cell_h * 4u;
    for (uint32_t i = 0; i < s->count; i++) {
        const uint32_t cx = s->gap + (i % s->columns) * (s->cell_w + s->gap);
        const uint32_t cy = s->gap + (i / s->columns) * (s->cell_h + s->gap);
        for (uint32_t y = 0; y < s->cell_h; y++) {
            memcpy(img + (size_t)(cy + y) * stride + (size_t)cx * 4u, s->cells + i * cell + (size_t)y * s->cell_w * 4u,
                   (size_t)s->cell_w * 4u);
        }
    }
    int rc = png_write_rgba(path, img, w, h, stride, err, cap);
    free(img);
    return rc;
}

void png_sheet_free(png_sheet *s)
{
    free(s->cells);
    memset(s, 0, sizeof *s);
}
