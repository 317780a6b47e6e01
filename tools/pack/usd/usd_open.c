/* SPDX-License-Identifier: MIT */
/* sluice pack: opening a USD layer (usd_layer_open, usd_layer_open_memory
 * of usd_layer.h): the file mapped, its format told by its bytes, and the
 * parser of that format run (usda.c, usdc.c, or usdz.c for a package).
 * Its own file, so that the layer container (usd_layer.c) and the parsers
 * that fill it do not call each other in a loop. */
#define _POSIX_C_SOURCE 200809L
#define _FILE_OFFSET_BITS 64

#include "usd_layer_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* d->message from a format, cut to its size (names may be long paths). */
static void diag_set(pk_diag *d, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void diag_set(pk_diag *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->message, sizeof d->message, fmt, ap);
    va_end(ap);
}

static int open_data(const char *name, const void *data, size_t size, const char *entry, const usd_layer_options *opt,
                     usd_layer **out, pk_diag *d)
{
    usd_format f = usd_detect_format(data, size);
    if (entry && f != USD_FORMAT_USDZ) {
        diag_set(d, "%s: not a usdz package (asked for its entry '%s')", name, entry);
        return -1;
    }
    if (f == USD_FORMAT_USDZ)
        return usd_usdz_open(name, data, size, entry, opt, out, d);
    if (f == USD_FORMAT_UNKNOWN) {
        snprintf(d->message, sizeof d->message,
                 "%s: not a USD file (no '#usda 1.0' header, 'PXR-USDC' magic or zip signature)", name);
        return -1;
    }
    usd_layer *L = usd_layer_create(name, f, data, size, opt);
    if (!L) {
        diag_set(d, "%s: out of memory", name);
        return -1;
    }
    return usd_layer_parse(L, f, out, d);
}

int usd_layer_open_memory(const char *name, const void *data, size_t size, const usd_layer_options *opt,
                          usd_layer **out, pk_diag *d)
{
    *out = NULL;
    d->message[0] = '\0';
    return open_data(name, data, size, NULL, opt, out, d);
}

static void unmap(void *ctx, const void *data, size_t size)
{
    (void)ctx;
    if (size)
        munmap((void *)data, size);
}

/* Splits "pkg.usdz[entry]" into file and entry (entry NULL for a plain
 * path). 0, or -1 with d->message when a part does not fit. */
static int split_path(const char *path, char file[USD_MAX_PATH], char entry_buf[USD_MAX_PATH], const char **entry,
                      pk_diag *d)
{
    *entry = NULL;
    size_t plen = strlen(path);
    const char *br = strchr(path, '[');
    if (br && plen > 0 && path[plen - 1] == ']') {
        size_t fl = (size_t)(br - path);
        size_t el = plen - fl - 2u;
        if (fl >= USD_MAX_PATH || el >= USD_MAX_PATH) {
            diag_set(d, "%.300s: path too long", path);
            return -1;
        }
        memcpy(file, path, fl);
        file[fl] = '\0';
        memcpy(entry_buf, br + 1, el);
        entry_buf[el] = '\0';
        *entry = entry_buf;
        return 0;
    }
    if (plen >= USD_MAX_PATH) {
        diag_set(d, "%.300s: path too long", path);
        return -1;
    }
    memcpy(file, path, plen + 1u);
    return 0;
}

/* Maps the whole regular file at file (read only): *data and *size (""
 * and 0 for an empty file). 0, or -1 with d->message naming it. */
static int map_file(const char *file, const void **data, size_t *size, pk_diag *d)
{
    int fd = open(file, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        diag_set(d, "%s: cannot open: %s", file, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        diag_set(d, "%s: not a regular file", file);
        close(fd);
        return -1;
    }
    if ((uint64_t)st.st_size > (uint64_t)SIZE_MAX / 2) {
        diag_set(d, "%s: too large to map", file);
        close(fd);
        return -1;
    }
    *size = (size_t)st.st_size;
    *data = "";
    if (*size) {
        void *m = mmap(NULL, *size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (m == MAP_FAILED) {
            diag_set(d, "%s: cannot map: %s", file, strerror(errno));
            close(fd);
            return -1;
        }
        *data = m;
    }
    close(fd);
    return 0;
}

int usd_layer_open(const char *path, const usd_layer_options *opt, usd_layer **out, pk_diag *d)
{
    *out = NULL;
    d->message[0] = '\0';
    /* "pkg.usdz[entry]": the file is the part before the first '[' */
    char file[USD_MAX_PATH];
    char entry_buf[USD_MAX_PATH];
    const char *entry = NULL;
    const void *data = "";
    size_t size = 0;
    if (split_path(path, file, entry_buf, &entry, d) != 0 || map_file(file, &data, &size, d) != 0) {
        return -1;
    }
    usd_layer *L = NULL;
    if (open_data(file, data, size, entry, opt, &L, d) != 0) {
        unmap(NULL, data, size);
        return -1;
    }
    /* a usdz entry's layer reads a slice of the map: unmap all of it */
    usd_layer_set_release_range(L, unmap, NULL, data, size);
    *out = L;
    return 0;
}

int usd_asset_map(const char *resolved, usd_asset *out, pk_diag *d)
{
    memset(out, 0, sizeof *out);
    d->message[0] = '\0';
    char file[USD_MAX_PATH];
    char entry_buf[USD_MAX_PATH];
    const char *entry = NULL;
    if (split_path(resolved, file, entry_buf, &entry, d) != 0 || map_file(file, &out->map, &out->map_size, d) != 0) {
        return -1;
    }
    if (entry == NULL) {
        out->bytes = out->map;
        out->size = out->map_size;
        return 0;
    }
    if (usd_detect_format(out->map, out->map_size) != USD_FORMAT_USDZ) {
        diag_set(d, "%s: not a usdz package (asked for its entry '%s')", file, entry);
        usd_asset_unmap(out);
        return -1;
    }
    const uint8_t *bytes = NULL;
    char name[USD_MAX_PATH];
    if (usd_usdz_find(file, out->map, out->map_size, entry, &bytes, &out->size, name, d) != 0) {
        usd_asset_unmap(out);
        return -1;
    }
    out->bytes = bytes;
    return 0;
}

void usd_asset_unmap(usd_asset *a)
{
    unmap(NULL, a->map, a->map_size);
    memset(a, 0, sizeof *a);
}
