/* SPDX-License-Identifier: MIT */
/* The USDZ package reader: a zip archive of stored (uncompressed) entries
 * whose first entry is the root layer (a .usda, .usdc or .usd file: a
 * package whose first entry is anything else is refused). The end of central
 * directory record is found from the end of the file (a bounded search over
 * the largest comment a zip allows); the central directory names each entry
 * and where its local header is. An entry's bytes are a slice of the
 * package's memory, never copied. Deflated or encrypted entries and zip64
 * archives are refused naming the entry or the archive. The 64-byte data
 * alignment the usdz spec asks of writers is not required to read. */
#include <stdio.h>
#include <string.h>

#include "usd_layer_internal.h"

#define ZIP_EOCD_SIG 0x06054b50u
#define ZIP_CDIR_SIG 0x02014b50u
#define ZIP_LOCAL_SIG 0x04034b50u
#define ZIP_EOCD_SIZE 22u
#define ZIP_CDIR_SIZE 46u
#define ZIP_LOCAL_SIZE 30u
#define ZIP_MAX_COMMENT 65535u

static uint32_t rd16(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int zfail(pk_diag *d, const char *pkg, uint64_t off, const char *what, const char *entry)
{
    if (entry != NULL) {
        snprintf(d->message, sizeof d->message, "%.180s: offset %llu: %.100s (entry '%.180s')", pkg,
                 (unsigned long long)off, what, entry);
    } else {
        snprintf(d->message, sizeof d->message, "%.180s: offset %llu: %.100s", pkg, (unsigned long long)off, what);
    }
    return -1;
}

/* True for names ending in .usda, .usdc or .usd (ASCII case-insensitive). */
static int is_layer_name(const char *n, size_t len)
{
    static const char *const ext[] = {".usda", ".usdc", ".usd"};
    for (size_t k = 0; k < 3; k++) {
        size_t el = strlen(ext[k]);
        if (len > el) {
            size_t i = 0;
            while (i < el) {
                char c = n[len - el + i];
                if (c >= 'A' && c <= 'Z') {
                    c = (char)(c - 'A' + 'a');
                }
                if (c != ext[k][i]) {
                    break;
                }
                i++;
            }
            if (i == el) {
                return 1;
            }
        }
    }
    return 0;
}

int usd_usdz_find(const char *package_path, const void *data, size_t size, const char *entry, const uint8_t **bytes,
                  size_t *n, char name[USD_MAX_PATH], pk_diag *d)
{
    const uint8_t *z = data;
    if (size < ZIP_EOCD_SIZE) {
        return zfail(d, package_path, 0, "truncated: no end of central directory record", NULL);
    }
    /* The record is the last signature within the comment's reach. */
    size_t lo = size - ZIP_EOCD_SIZE > ZIP_MAX_COMMENT ? size - ZIP_EOCD_SIZE - ZIP_MAX_COMMENT : 0;
    size_t eocd = SIZE_MAX;
    for (size_t at = size - ZIP_EOCD_SIZE + 1; at-- > lo;) {
        if (rd32(z + at) == ZIP_EOCD_SIG && at + ZIP_EOCD_SIZE + rd16(z + at + 20) == size) {
            eocd = at;
            break;
        }
    }
    if (eocd == SIZE_MAX) {
        return zfail(d, package_path, size, "no end of central directory record (not a zip archive, or truncated)",
                     NULL);
    }
    uint32_t count = rd16(z + eocd + 10);
    uint32_t cd_size = rd32(z + eocd + 12);
    uint32_t cd_off = rd32(z + eocd + 16);
    if (count == 0xffffu || cd_size == 0xffffffffu || cd_off == 0xffffffffu) {
        return zfail(d, package_path, eocd, "zip64 archives are not supported", NULL);
    }
    if (rd16(z + eocd + 4) != 0 || rd16(z + eocd + 6) != 0) {
        return zfail(d, package_path, eocd, "multi-disk archives are not supported", NULL);
    }
    if ((uint64_t)cd_off + cd_size > eocd) {
        return zfail(d, package_path, eocd, "central directory past the end of the archive", NULL);
    }
    uint64_t pos = cd_off;
    for (uint32_t i = 0; i < count; i++) {
        if (pos + ZIP_CDIR_SIZE > (uint64_t)cd_off + cd_size || rd32(z + pos) != ZIP_CDIR_SIG) {
            return zfail(d, package_path, pos, "bad central directory entry", NULL);
        }
        const uint8_t *h = z + pos;
        uint32_t flags = rd16(h + 8), method = rd16(h + 10);
        uint32_t csize = rd32(h + 20), usize = rd32(h + 24);
        uint32_t nlen = rd16(h + 28), xlen = rd16(h + 30), clen = rd16(h + 32);
        uint32_t local = rd32(h + 42);
        if (pos + ZIP_CDIR_SIZE + nlen + xlen + clen > (uint64_t)cd_off + cd_size) {
            return zfail(d, package_path, pos, "central directory entry past the directory's end", NULL);
        }
        if (nlen >= USD_MAX_PATH) {
            return zfail(d, package_path, pos, "entry name too long", NULL);
        }
        memcpy(name, h + ZIP_CDIR_SIZE, nlen);
        name[nlen] = '\0';
        if (memchr(name, '\0', nlen) != NULL) {
            return zfail(d, package_path, pos, "entry name holds a NUL byte", NULL);
        }
        const uint64_t at = pos;
        pos += ZIP_CDIR_SIZE + nlen + xlen + clen;
        /* The root layer is the package's first file (the usdz spec): a
         * package whose first entry is anything else is refused, not
         * searched for a layer further on. */
        int wanted = entry != NULL ? strcmp(name, entry) == 0 : 1;
        if (!wanted) {
            continue;
        }
        if (entry == NULL && !is_layer_name(name, nlen)) {
            return zfail(
                d, package_path, at,
                "the first entry is not a .usda, .usdc or .usd layer (a package's root layer is its first file)", name);
        }
        if (csize == 0xffffffffu || usize == 0xffffffffu || local == 0xffffffffu) {
            return zfail(d, package_path, pos, "zip64 entries are not supported", name);
        }
        if (flags & 1u) {
            return zfail(d, package_path, local, "encrypted entry", name);
        }
        if (method != 0) {
            char m[96];
            snprintf(m, sizeof m, "compressed entry (method %u; usdz entries must be stored)", method);
            return zfail(d, package_path, local, m, name);
        }
        if (csize != usize) {
            return zfail(d, package_path, local, "stored entry whose sizes differ", name);
        }
        if ((uint64_t)local + ZIP_LOCAL_SIZE > size || rd32(z + local) != ZIP_LOCAL_SIG) {
            return zfail(d, package_path, local, "bad local header", name);
        }
        uint64_t start = (uint64_t)local + ZIP_LOCAL_SIZE + rd16(z + local + 26) + rd16(z + local + 28);
        if (start > size || usize > size - start) {
            return zfail(d, package_path, local, "entry data past the end of the archive", name);
        }
        *bytes = z + start;
        *n = usize;
        return 0;
    }
    if (entry != NULL) {
        return zfail(d, package_path, cd_off, "no such entry in the package", entry);
    }
    return zfail(d, package_path, cd_off, "no entry in the package", NULL);
}

int usd_usdz_open(const char *package_path, const void *data, size_t size, const char *entry,
                  const usd_layer_options *opt, usd_layer **out, pk_diag *d)
{
    *out = NULL;
    const uint8_t *bytes = NULL;
    size_t usize = 0;
    char name[USD_MAX_PATH];
    if (usd_usdz_find(package_path, data, size, entry, &bytes, &usize, name, d) != 0) {
        return -1;
    }
    usd_format f = usd_detect_format(bytes, usize);
    if (f != USD_FORMAT_USDA && f != USD_FORMAT_USDC) {
        return zfail(d, package_path, (uint64_t)(bytes - (const uint8_t *)data),
                     f == USD_FORMAT_USDZ ? "a package inside a package" : "entry is not a USD layer", name);
    }
    char lname[2 * USD_MAX_PATH + 2];
    snprintf(lname, sizeof lname, "%s[%s]", package_path, name);
    usd_layer *L = usd_layer_create(lname, f, bytes, usize, opt);
    if (L == NULL || usd_layer_set_package(L, package_path, name) != 0) {
        usd_layer_close(L);
        snprintf(d->message, sizeof d->message, "%s: out of memory", package_path);
        return -1;
    }
    return usd_layer_parse(L, f, out, d);
}
