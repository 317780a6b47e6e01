/* SPDX-License-Identifier: MIT */
/* PNG files of RGBA8 images (libpng), written through atomic_file.h: a
 * failed write leaves no file, or the old one as it was, never a part of
 * one. Deterministic: the same pixels give the same bytes (no time chunk,
 * fixed compression settings), so images from two runs compare with cmp. */
#ifndef SLUICE_TOOLS_PNG_WRITE_H
#define SLUICE_TOOLS_PNG_WRITE_H

#include <stddef.h>
#include <stdint.h>

/* Width and height a PNG may have here (libpng's own limit is 2^31 - 1;
 * the tools' images are far smaller). */
#define PNG_WRITE_SIZE_MAX 65535u

/* Writes width x height pixels of RGBA8 (rows top first, stride bytes
 * apart) to path, as RGB (alpha dropped: the images are opaque). Returns 0,
 * or -1 with "PATH: cannot create ...: reason" or "PATH: cannot write ...:
 * reason" in err (cap bytes), and path untouched. */
int png_write_rgba(const char *path, const uint8_t *rgba, uint32_t width, uint32_t height, size_t stride, char *err,
                   size_t cap);

/* A grid of images, each downscaled into a fixed cell (box filter),
 * columns cells a row, in the order added, on a dark background with a gap
 * between cells: a contact sheet. */
typedef struct png_sheet {
    uint32_t cell_w, cell_h, columns, gap;
    uint32_t count, cap; /* cells added, cells the memory holds */
    uint8_t *cells;      /* cap cells of cell_w * cell_h * 4 bytes */
} png_sheet;

/* Cells of cell_w x cell_h, columns a row, room for expected cells (more
 * may be added: the memory grows). Returns 0, or -1 (out of memory). */
int png_sheet_init(png_sheet *s, uint32_t cell_w, uint32_t cell_h, uint32_t columns, uint32_t expected);

/* Adds an image (RGBA8, rows top first, stride bytes apart) as the next
 * cell. Returns 0, or -1 (out of memory: the cell is not added). */
int png_sheet_add(png_sheet *s, const uint8_t *rgba, uint32_t width, uint32_t height, size_t stride);

/* Writes the sheet to path (as png_write_rgba). An empty sheet is one cell
 * of background. */
int png_sheet_write(const png_sheet *s, const char *path, char *err, size_t cap);

void png_sheet_free(png_sheet *s);

#endif
