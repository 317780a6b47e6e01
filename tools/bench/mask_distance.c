/* SPDX-License-Identifier: MIT */
/* sluice bench: the distance in pixels between two coverage masks
 * (mask_distance.h). */
#include "mask_distance.h"

#include <math.h>

/* The squared Euclidean distance transform of one line (the lower
 * envelope of parabolas, after Felzenszwalb and Huttenlocher, "Distance
 * Transforms of Sampled Functions"): d[q] = min_p (q - p)^2 + f[p]. v and z
 * are scratch of n and n + 1 entries. Exact in doubles for the sizes here. */
static void dt_line(const double *f, double *d, uint32_t n, uint32_t *v, double *z)
{
    uint32_t k = 0;
    v[0] = 0;
    z[0] = -INFINITY;
    z[1] = INFINITY;
    for (uint32_t q = 1; q < n; q++) {
        const double fq = f[q] + (double)q * q;
        double s = (fq - (f[v[k]] + (double)v[k] * v[k])) / (2.0 * q - 2.0 * v[k]);
        while (s <= z[k]) {
            k--;
            s = (fq - (f[v[k]] + (double)v[k] * v[k])) / (2.0 * q - 2.0 * v[k]);
        }
        k++;
        v[k] = q;
        z[k] = s;
        z[k + 1] = INFINITY;
    }
    k = 0;
    for (uint32_t q = 0; q < n; q++) {
        while (z[k + 1] < (double)q) {
            k++;
        }
        const double dq = (double)q - v[k];
        d[q] = dq * dq + f[v[k]];
    }
}

double mask_far(uint32_t w, uint32_t h)
{
    return 4.0 * ((double)w * w + (double)h * h) + 4.0;
}

void mask_transform(const uint8_t *mask, uint32_t w, uint32_t h, double *out, mask_scratch *s)
{
    const double far = mask_far(w, h);
    for (uint32_t x = 0; x < w; x++) {
        for (uint32_t y = 0; y < h; y++) {
            s->f[y] = mask[(size_t)y * w + x] ? 0.0 : far;
        }
        dt_line(s->f, s->d, h, s->v, s->z);
        for (uint32_t y = 0; y < h; y++) {
            out[(size_t)y * w + x] = s->d[y];
        }
    }
    for (uint32_t y = 0; y < h; y++) {
        for (uint32_t x = 0; x < w; x++) {
            s->f[x] = out[(size_t)y * w + x];
        }
        dt_line(s->f, s->d, w, s->v, s->z);
        for (uint32_t x = 0; x < w; x++) {
            out[(size_t)y * w + x] = s->d[x];
        }
    }
}

/* Whether covered pixel (x, y) of a has no covered neighbour among its
 * eight. */
static int isolated(const uint8_t *a, uint32_t w, uint32_t h, uint32_t x, uint32_t y)
{
    for (uint32_t ny = y > 0 ? y - 1u : 0; ny <= y + 1u && ny < h; ny++) {
        for (uint32_t nx = x > 0 ? x - 1u : 0; nx <= x + 1u && nx < w; nx++) {
            if ((nx != x || ny != y) && a[(size_t)ny * w + nx]) {
                return 0;
            }
        }
    }
    return 1;
}

double mask_directed(const uint8_t *a, uint32_t w, uint32_t h, const double *dt_b)
{
    double m = 0;
    for (uint32_t y = 0; y < h; y++) {
        for (uint32_t x = 0; x < w; x++) {
            const size_t i = (size_t)y * w + x;
            if (a[i] && dt_b[i] > m && !isolated(a, w, h, x, y)) {
                m = dt_b[i];
            }
        }
    }
    return m >= mask_far(w, h) ? INFINITY : sqrt(m);
}
