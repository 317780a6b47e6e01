/* SPDX-License-Identifier: MIT */
/* sluice pack: an image's full mip chain (see mip.h). Compiled with
 * -ffp-contract=off (tools/CMakeLists.txt): the results must not depend on
 * whether the target fuses a multiply and an add. */
#include "mip.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pack_writer.h"

uint32_t pk_mip_level_count(uint32_t width, uint32_t height)
{
    uint32_t m = width > height ? width : height, n = 1;
    while (m > 1) {
        m >>= 1;
        n++;
    }
    return n;
}

static uint32_t half(uint32_t v)
{
    return v > 1 ? v / 2 : 1;
}

uint64_t pk_mip_chain_bytes(uint32_t width, uint32_t height, pk_texel_format format)
{
    uint64_t total = 0;
    uint32_t n = pk_mip_level_count(width, height);
    for (uint32_t i = 0; i < n; i++) {
        total += (uint64_t)width * height * pk_texel_bytes(format);
        width = half(width);
        height = half(height);
    }
    return total;
}

/* x^(1/k) for x in (0, 1] by Newton's iteration from 1, which decreases
 * monotonically towards the root; it stops when a step no longer
 * decreases (the same step on every target: basic operations only). */
static double root(double x, int k)
{
    double y = 1.0;
    for (int i = 0; i < 200; i++) {
        double p = 1.0;
        for (int j = 0; j < k - 1; j++) {
            p = p * y;
        }
        double next = ((double)(k - 1) * y + x / p) / (double)k;
        if (!(next < y)) {
            break;
        }
        y = next;
    }
    return y;
}

double pk_srgb_to_linear(double s)
{
    if (!(s > 0.0)) {
        return 0.0;
    }
    if (s >= 1.0) {
        return 1.0;
    }
    if (s <= 0.04045) {
        return s / 12.92;
    }
    double x = (s + 0.055) / 1.055; /* x^2.4 = x^2 x (x^(1/5))^2 */
    double r = root(x, 5);
    return x * x * (r * r);
}

double pk_linear_to_srgb(double l)
{
    if (!(l > 0.0)) {
        return 0.0;
    }
    if (l >= 1.0) {
        return 1.0;
    }
    if (l <= 0.0031308) {
        return l * 12.92;
    }
    double r = sqrt(sqrt(root(l, 3))); /* l^(1/12) */
    double p = r * r;                  /* l^(5/12) = l^(1/2.4) */
    p = p * p * r;
    return 1.055 * p - 0.055;
}

/* The source span of destination index x: first and count (see mip.h). */
static void span(uint32_t x, uint32_t src, uint32_t dst, uint32_t *first, uint32_t *count)
{
    if (src == 1) {
        *first = 0;
        *count = 1;
        return;
    }
    *first = 2 * x;
    *count = (x == dst - 1 && (src & 1u)) ? 3 : 2;
}

static uint32_t get(const uint8_t *p, size_t i, int wide)
{
    if (wide) {
        uint16_t v;
        memcpy(&v, p + i * 2, 2);
        return v;
    }
    return p[i];
}

static void put(uint8_t *p, size_t i, int wide, uint32_t v)
{
    if (wide) {
        uint16_t s = (uint16_t)v;
        memcpy(p + i * 2, &s, 2);
    } else {
        p[i] = (uint8_t)v;
    }
}

static uint32_t quantise(double unit, uint32_t max)
{
    double v = floor(unit * (double)max + 0.5);
    return v <= 0.0 ? 0u : v >= (double)max ? max : (uint32_t)v;
}

/* One level from the one above. lin: the sRGB decode of every 8-bit value
 * (colour, 8 bits), else NULL. */
static void reduce(const uint8_t *src, uint32_t sw, uint32_t sh, uint8_t *dst, uint32_t dw, uint32_t dh, int wide,
                   pk_mip_kind kind, const double *lin)
{
    uint32_t max = wide ? 65535u : 255u;
    for (uint32_t y = 0; y < dh; y++) {
        uint32_t y0, ny;
        span(y, sh, dh, &y0, &ny);
        for (uint32_t x = 0; x < dw; x++) {
            uint32_t x0, nx;
            span(x, sw, dw, &x0, &nx);
            uint32_t n = nx * ny;
            uint64_t isum[4] = {0, 0, 0, 0};
            double fsum[3] = {0.0, 0.0, 0.0};
            for (uint32_t j = 0; j < ny; j++) {
                for (uint32_t i = 0; i < nx; i++) {
                    size_t t = ((size_t)(y0 + j) * sw + (x0 + i)) * 4;
                    for (uint32_t c = 0; c < 4; c++) {
                        uint32_t v = get(src, t + c, wide);
                        isum[c] += v;
                        if (c == 3) {
                            continue;
                        }
                        if (kind == PK_MIP_COLOR) {
                            fsum[c] += lin != NULL ? lin[v] : pk_srgb_to_linear((double)v / (double)max);
                        } else if (kind == PK_MIP_NORMAL) {
                            fsum[c] += ((double)v * 2.0 - (double)max) / (double)max;
                        }
                    }
                }
            }
            size_t o = ((size_t)y * dw + x) * 4;
            uint32_t out[4];
            for (uint32_t c = 0; c < 4; c++) {
                out[c] = (uint32_t)((isum[c] + n / 2) / n);
            }
            if (kind == PK_MIP_COLOR) {
                for (uint32_t c = 0; c < 3; c++) {
                    out[c] = quantise(pk_linear_to_srgb(fsum[c] / (double)n), max);
                }
            } else if (kind == PK_MIP_NORMAL) {
                double len = sqrt(fsum[0] * fsum[0] + fsum[1] * fsum[1] + fsum[2] * fsum[2]);
                double v[3] = {0.0, 0.0, 1.0};
                if (len > 1e-12) {
                    for (uint32_t c = 0; c < 3; c++) {
                        v[c] = fsum[c] / len;
                    }
                }
                for (uint32_t c = 0; c < 3; c++) {
                    out[c] = quantise((v[c] + 1.0) * 0.5, max);
                }
            }
            for (uint32_t c = 0; c < 4; c++) {
                put(dst, o + c, wide, out[c]);
            }
        }
    }
}

int pk_mip_build(const pk_image *img, pk_mip_kind kind, const char *name, pk_mip_chain *out, pk_diag *d)
{
    memset(out, 0, sizeof *out);
    uint32_t tb = pk_texel_bytes(img->format);
    if (img->texels == NULL || tb == 0) {
        return pk_fail(d, "%s: no texels to build mips from", name);
    }
    if (kind != PK_MIP_COLOR && kind != PK_MIP_DATA && kind != PK_MIP_NORMAL) {
        return pk_fail(d, "%s: unknown mip kind %d", name, (int)kind);
    }
    uint64_t level0 = 0;
    if (pk_image_check_size(name, img->width, img->height, tb, &level0, d) != 0) {
        return -1;
    }
    uint64_t total = pk_mip_chain_bytes(img->width, img->height, img->format);
    if (total == 0 || total > SIZE_MAX || (out->texels = malloc((size_t)total)) == NULL) {
        return pk_fail(d, "%s: out of memory for a mip chain of %llu bytes", name, (unsigned long long)total);
    }
    out->format = img->format;
    out->bytes = (size_t)total;
    out->levels = pk_mip_level_count(img->width, img->height);
    uint32_t w = img->width, h = img->height;
    size_t at = 0;
    for (uint32_t i = 0; i < out->levels; i++) {
        out->level[i] = (pk_mip_level){w, h, at, (size_t)w * h * tb};
        at += out->level[i].bytes;
        w = half(w);
        h = half(h);
    }
    memcpy(out->texels, img->texels, (size_t)level0);
    double lin[256];
    int wide = img->format == PK_TEXEL_RGBA16;
    if (!wide) {
        for (int v = 0; v < 256; v++) {
            lin[v] = pk_srgb_to_linear((double)v / 255.0);
        }
    }
    for (uint32_t i = 1; i < out->levels; i++) {
        const pk_mip_level *s = &out->level[i - 1], *t = &out->level[i];
        reduce(out->texels + s->offset, s->width, s->height, out->texels + t->offset, t->width, t->height, wide, kind,
               wide ? NULL : lin);
    }
    return 0;
}

void pk_mip_free(pk_mip_chain *chain)
{
    if (chain != NULL) {
        free(chain->texels);
        memset(chain, 0, sizeof *chain);
    }
}
