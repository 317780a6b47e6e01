/* SPDX-License-Identifier: MIT */
/* sluice pack: images decoded to RGBA, bounded (see image.h). */
#include "image.h"

#include <inttypes.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <png.h>
#define XXH_STATIC_LINKING_ONLY /* XXH3_state_t on the stack */
#include <xxhash.h>

#include "pack_writer.h"

uint32_t pk_texel_bytes(pk_texel_format format)
{
    switch (format) {
    case PK_TEXEL_RGBA8:
        return 4;
    case PK_TEXEL_RGBA16:
        return 8;
    }
    return 0;
}

static int starts(const uint8_t *p, size_t size, size_t at, const char *magic, size_t n)
{
    return size >= at + n && memcmp(p + at, magic, n) == 0;
}

const char *pk_image_kind(const void *data, size_t size)
{
    const uint8_t *p = data;
    if (p == NULL) {
        return NULL;
    }
    static const struct {
        size_t at;
        const char *magic;
        size_t n;
        const char *kind;
    } kinds[] = {
        {0, "\x89PNG\r\n\x1a\n", 8, "PNG"},
        {0, "\xff\xd8\xff", 3, "JPEG"},
        {0, "\xabKTX 20\xbb\r\n\x1a\n", 12, "KTX2"},
        {0, "\xabKTX 11\xbb\r\n\x1a\n", 12, "KTX"},
        {0, "DDS ", 4, "DDS"},
        {8, "WEBP", 4, "WebP"},
        {0, "GIF87a", 6, "GIF"},
        {0, "GIF89a", 6, "GIF"},
        {0, "BM", 2, "BMP"},
        {0, "II*\0", 4, "TIFF"},
        {0, "MM\0*", 4, "TIFF"},
        {4, "ftypavif", 8, "AVIF"},
        {4, "ftypheic", 8, "HEIF"},
        {0, "v/1\x01", 4, "OpenEXR"},
        {0, "#?RADIANCE", 10, "Radiance HDR"},
        {0, "#?RGBE", 6, "Radiance HDR"},
        {0, "sB", 2, "Basis Universal"},
        {0, "\0\0\0\x0cjP  \r\n\x87\n", 12, "JPEG 2000"},
        {0, "\xff\x0a", 2, "JPEG XL"},
        {0, "\0\0\0\x0cJXL \r\n\x87\n", 12, "JPEG XL"},
    };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        if (starts(p, size, kinds[i].at, kinds[i].magic, kinds[i].n)) {
            return kinds[i].kind;
        }
    }
    return NULL;
}

int pk_image_check_size(const char *name, uint32_t width, uint32_t height, uint32_t bytes_per_texel, uint64_t *bytes,
                        pk_diag *d)
{
    *bytes = 0;
    if (width == 0 || height == 0) {
        return pk_fail(d, "%s: declared size %" PRIu32 " x %" PRIu32 " is empty", name, width, height);
    }
    if (width > PK_IMAGE_MAX_SIDE || height > PK_IMAGE_MAX_SIDE) {
        return pk_fail(d, "%s: declared size %" PRIu32 " x %" PRIu32 " exceeds the limit of %u x %u texels", name,
                       width, height, PK_IMAGE_MAX_SIDE, PK_IMAGE_MAX_SIDE);
    }
    *bytes = (uint64_t)width * height * (bytes_per_texel > 8 ? 8 : bytes_per_texel);
    return 0;
}

uint64_t pk_image_hash(const pk_image *img)
{
    uint8_t head[12];
    uint32_t f[3] = {img->width, img->height, (uint32_t)img->format};
    for (int i = 0; i < 3; i++) {
        for (int b = 0; b < 4; b++) {
            head[i * 4 + b] = (uint8_t)(f[i] >> (8 * b));
        }
    }
    XXH3_state_t st;
    XXH3_64bits_reset(&st);
    XXH3_64bits_update(&st, head, sizeof head);
    size_t n = (size_t)img->width * img->height * pk_texel_bytes(img->format);
    if (img->texels != NULL && n > 0) {
        XXH3_64bits_update(&st, img->texels, n);
    }
    return XXH3_64bits_digest(&st);
}

void pk_image_free(pk_image *img)
{
    if (img != NULL) {
        free(img->texels);
        memset(img, 0, sizeof *img);
    }
}

/* --- PNG ------------------------------------------------------------------ */

/* Everything the PNG decode allocates, so the error path (a longjmp out of
 * libpng) frees it: this lives in the caller's frame, which never calls
 * setjmp, and is reached through a pointer. */
typedef struct png_ctx {
    const char *name;
    const uint8_t *data;
    size_t size, at;
    png_structp png;
    png_infop info;
    uint8_t *texels;
    png_bytep *rows;
    pk_diag *d;
    int failed; /* d->message is set */
} png_ctx;

static void png_on_error(png_structp png, png_const_charp msg)
{
    png_ctx *c = png_get_error_ptr(png);
    if (!c->failed) {
        pk_fail(c->d, "%s: PNG: %s", c->name, msg);
        c->failed = 1;
    }
    png_longjmp(png, 1);
}

static void png_on_warning(png_structp png, png_const_charp msg)
{
    (void)png;
    (void)msg;
}

static void png_on_read(png_structp png, png_bytep out, png_size_t n)
{
    png_ctx *c = png_get_io_ptr(png);
    if (n > c->size - c->at) {
        png_error(png, "truncated (the data ends before the image does)");
    }
    memcpy(out, c->data + c->at, n);
    c->at += n;
}

/* The decode itself; returns 0 or -1 (c->failed says whether the message
 * is set). Locals are not used after a longjmp. */
static int png_run(png_ctx *c, pk_image *out)
{
    if (setjmp(png_jmpbuf(c->png))) {
        return -1;
    }
    png_set_read_fn(c->png, c, png_on_read);
    /* The cap is ours (checked below, with our message); libpng's own
     * default limit is lifted so the check happens in one place. */
    png_set_user_limits(c->png, 0x7fffffffu, 0x7fffffffu);
    png_read_info(c->png, c->info);
    png_uint_32 w = 0, h = 0;
    int depth = 0, color = 0, interlace = 0;
    png_get_IHDR(c->png, c->info, &w, &h, &depth, &color, &interlace, NULL, NULL);
    pk_texel_format format = depth == 16 ? PK_TEXEL_RGBA16 : PK_TEXEL_RGBA8;
    uint64_t bytes = 0;
    if (pk_image_check_size(c->name, (uint32_t)w, (uint32_t)h, pk_texel_bytes(format), &bytes, c->d) != 0) {
        c->failed = 1;
        return -1;
    }
    if (color == PNG_COLOR_TYPE_PALETTE) {
        png_set_palette_to_rgb(c->png);
    }
    if (color == PNG_COLOR_TYPE_GRAY && depth < 8) {
        png_set_expand_gray_1_2_4_to_8(c->png);
    }
    int has_trns = png_get_valid(c->png, c->info, PNG_INFO_tRNS) != 0;
    if (has_trns) {
        png_set_tRNS_to_alpha(c->png);
    }
    if (color == PNG_COLOR_TYPE_GRAY || color == PNG_COLOR_TYPE_GRAY_ALPHA) {
        png_set_gray_to_rgb(c->png);
    }
    if (!(color & PNG_COLOR_MASK_ALPHA) && !has_trns) {
        png_set_filler(c->png, depth == 16 ? 0xffff : 0xff, PNG_FILLER_AFTER);
    }
    if (depth == 16) {
        uint16_t probe = 1;
        uint8_t first;
        memcpy(&first, &probe, 1);
        if (first == 1) {
            png_set_swap(c->png); /* PNG is big-endian; the texels are host-order */
        }
    }
    (void)png_set_interlace_handling(c->png);
    png_read_update_info(c->png, c->info);
    uint32_t row = (uint32_t)w * pk_texel_bytes(format);
    if (png_get_rowbytes(c->png, c->info) != row) {
        pk_fail(c->d, "%s: PNG: %zu bytes a row after conversion, expected %" PRIu32, c->name,
                (size_t)png_get_rowbytes(c->png, c->info), row);
        c->failed = 1;
        return -1;
    }
    c->texels = malloc((size_t)bytes);
    c->rows = malloc(sizeof(png_bytep) * h);
    if (c->texels == NULL || c->rows == NULL) {
        pk_fail(c->d, "%s: out of memory for %" PRIu32 " x %" PRIu32 " texels", c->name, (uint32_t)w, (uint32_t)h);
        c->failed = 1;
        return -1;
    }
    for (png_uint_32 y = 0; y < h; y++) {
        c->rows[y] = c->texels + (size_t)y * row;
    }
    png_read_image(c->png, c->rows);
    png_read_end(c->png, NULL);
    out->width = (uint32_t)w;
    out->height = (uint32_t)h;
    out->format = format;
    return 0;
}

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int decode_png(const uint8_t *data, size_t size, const char *name, pk_image *out, pk_diag *d)
{
    /* The declared size first, from IHDR (which must come first), before
     * libpng allocates anything: its own checks of the size differ between
     * 32- and 64-bit targets, ours are the same on every one. */
    if (size >= 8 + 8 + 13 && memcmp(data + 12, "IHDR", 4) == 0) {
        uint64_t bytes = 0;
        if (pk_image_check_size(name, be32(data + 16), be32(data + 20), data[24] == 16 ? 8 : 4, &bytes, d) != 0) {
            return -1;
        }
    }
    png_ctx c = {.name = name, .data = data, .size = size, .d = d};
    c.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &c, png_on_error, png_on_warning);
    if (c.png != NULL) {
        c.info = png_create_info_struct(c.png);
    }
    if (c.png == NULL || c.info == NULL) {
        png_destroy_read_struct(&c.png, NULL, NULL);
        return pk_fail(d, "%s: out of memory for the PNG decoder", name);
    }
    int rc = png_run(&c, out);
    png_destroy_read_struct(&c.png, &c.info, NULL);
    free(c.rows);
    if (rc != 0) {
        free(c.texels);
        if (!c.failed) {
            pk_fail(d, "%s: PNG: not decoded", name);
        }
        return -1;
    }
    out->texels = c.texels;
    return 0;
}

/* --- JPEG ----------------------------------------------------------------- */

typedef struct jpeg_ctx {
    struct jpeg_error_mgr err; /* first: libjpeg hands back its address */
    struct jpeg_progress_mgr progress;
    jmp_buf jump;
    struct jpeg_decompress_struct cinfo;
    const char *name;
    uint8_t *texels;
    pk_diag *d;
    int failed;
} jpeg_ctx;

static void jpeg_fail_with(j_common_ptr cinfo)
{
    jpeg_ctx *c = (jpeg_ctx *)cinfo->err;
    if (!c->failed) {
        char msg[JMSG_LENGTH_MAX];
        cinfo->err->format_message(cinfo, msg);
        pk_fail(c->d, "%s: JPEG: %s", c->name, msg);
        c->failed = 1;
    }
    longjmp(c->jump, 1);
}

/* A warning (msg_level -1: corrupt data, a premature end) refuses the
 * image: libjpeg would otherwise fill what is missing with grey. Trace
 * messages (msg_level >= 0) are ignored. */
static void jpeg_on_message(j_common_ptr cinfo, int msg_level)
{
    if (msg_level < 0) {
        jpeg_fail_with(cinfo);
    }
}

static void jpeg_on_progress(j_common_ptr cinfo)
{
    j_decompress_ptr dinfo = (j_decompress_ptr)cinfo;
    jpeg_ctx *c = (jpeg_ctx *)cinfo->err;
    if (dinfo->input_scan_number > (int)PK_IMAGE_MAX_JPEG_SCANS) {
        if (!c->failed) {
            pk_fail(c->d, "%s: JPEG: more than %u progressive scans", c->name, PK_IMAGE_MAX_JPEG_SCANS);
            c->failed = 1;
        }
        longjmp(c->jump, 1);
    }
}

static int jpeg_run(jpeg_ctx *c, const uint8_t *data, size_t size, pk_image *out)
{
    if (setjmp(c->jump)) {
        return -1;
    }
    jpeg_create_decompress(&c->cinfo);
    jpeg_mem_src(&c->cinfo, data, (unsigned long)size);
    (void)jpeg_read_header(&c->cinfo, TRUE);
    uint64_t bytes = 0;
    if (pk_image_check_size(c->name, (uint32_t)c->cinfo.image_width, (uint32_t)c->cinfo.image_height, 4, &bytes,
                            c->d) != 0) {
        c->failed = 1;
        return -1;
    }
    if (c->cinfo.jpeg_color_space != JCS_GRAYSCALE && c->cinfo.jpeg_color_space != JCS_YCbCr &&
        c->cinfo.jpeg_color_space != JCS_RGB) {
        pk_fail(c->d, "%s: JPEG: colour space %d (CMYK or YCCK) is not supported, only grey and YCbCr", c->name,
                (int)c->cinfo.jpeg_color_space);
        c->failed = 1;
        return -1;
    }
    c->cinfo.out_color_space = JCS_EXT_RGBA;
    c->cinfo.progress = &c->progress;
    (void)jpeg_start_decompress(&c->cinfo);
    c->texels = malloc((size_t)bytes);
    if (c->texels == NULL) {
        pk_fail(c->d, "%s: out of memory for %u x %u texels", c->name, (unsigned)c->cinfo.image_width,
                (unsigned)c->cinfo.image_height);
        c->failed = 1;
        return -1;
    }
    size_t row = (size_t)c->cinfo.output_width * 4;
    while (c->cinfo.output_scanline < c->cinfo.output_height) {
        JSAMPROW r = c->texels + (size_t)c->cinfo.output_scanline * row;
        (void)jpeg_read_scanlines(&c->cinfo, &r, 1);
    }
    (void)jpeg_finish_decompress(&c->cinfo);
    out->width = (uint32_t)c->cinfo.output_width;
    out->height = (uint32_t)c->cinfo.output_height;
    out->format = PK_TEXEL_RGBA8;
    return 0;
}

static int decode_jpeg(const uint8_t *data, size_t size, const char *name, pk_image *out, pk_diag *d)
{
    jpeg_ctx *c = calloc(1, sizeof *c);
    if (c == NULL) {
        return pk_fail(d, "%s: out of memory for the JPEG decoder", name);
    }
    c->name = name;
    c->d = d;
    c->cinfo.err = jpeg_std_error(&c->err);
    c->err.error_exit = jpeg_fail_with;
    c->err.emit_message = jpeg_on_message;
    c->progress.progress_monitor = jpeg_on_progress;
    int rc = jpeg_run(c, data, size, out);
    jpeg_destroy_decompress(&c->cinfo);
    if (rc != 0) {
        free(c->texels);
    } else {
        out->texels = c->texels;
    }
    free(c);
    return rc;
}

/* --- both ----------------------------------------------------------------- */

int pk_image_decode(const void *data, size_t size, const char *name, pk_image *out, pk_diag *d)
{
    memset(out, 0, sizeof *out);
    if (data == NULL || size == 0) {
        return pk_fail(d, "%s: the image is empty", name);
    }
    const char *kind = pk_image_kind(data, size);
    int rc;
    if (kind == NULL) {
        const uint8_t *p = data;
        char first[3 * 8 + 1] = "";
        size_t at = 0;
        for (size_t i = 0; i < size && i < 8; i++) {
            at += (size_t)snprintf(first + at, sizeof first - at, "%s%02x", i > 0 ? " " : "", p[i]);
        }
        return pk_fail(d, "%s: not a PNG or JPEG image (it starts with %s)", name, first);
    } else if (strcmp(kind, "PNG") == 0) {
        rc = decode_png(data, size, name, out, d);
    } else if (strcmp(kind, "JPEG") == 0) {
        rc = decode_jpeg(data, size, name, out, d);
    } else {
        return pk_fail(d, "%s: %s images are not supported (only PNG and JPEG are decoded)", name, kind);
    }
    if (rc != 0) {
        memset(out, 0, sizeof *out);
        return -1;
    }
    out->hash = pk_image_hash(out);
    return 0;
}

int pk_image_load(const char *path, pk_image *out, pk_diag *d)
{
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        return pk_fail(d, "%s: cannot open the image", path);
    }
    uint8_t *buf = NULL;
    int rc = -1;
    long end = -1;
    if (fseek(f, 0, SEEK_END) == 0) {
        end = ftell(f);
    }
    if (end < 0 || fseek(f, 0, SEEK_SET) != 0) {
        pk_fail(d, "%s: cannot find the image's size", path);
    } else if ((uint64_t)end > PK_IMAGE_MAX_FILE_BYTES) {
        pk_fail(d, "%s: the file is %ld bytes, more than the limit of %" PRIu64, path, end, PK_IMAGE_MAX_FILE_BYTES);
    } else if (end == 0) {
        pk_fail(d, "%s: the image is empty", path);
    } else if ((buf = malloc((size_t)end)) == NULL) {
        pk_fail(d, "%s: out of memory for %ld bytes", path, end);
    } else if (fread(buf, 1, (size_t)end, f) != (size_t)end) {
        pk_fail(d, "%s: cannot read the image", path);
    } else {
        rc = pk_image_decode(buf, (size_t)end, path, out, d);
    }
    free(buf);
    (void)fclose(f); /* read only: nothing to lose */
    return rc;
}
