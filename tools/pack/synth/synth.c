/* SPDX-License-Identifier: MIT */
/* sluice pack: synthetic scenes (see synth.h). */
#include "synth.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LOT_SPACING 64.0f         /* metres between lot centres: the widest building plus a street */
#define EST_BUILDING_BYTES 600000 /* a typical building, to size the lot grid */
#define TEX_METRES 3.0f           /* one uv unit is this many metres of facade */
#define PARAPET_THICKNESS 0.3f
#define MAX_SIDES 24
#define MAX_TIERS 3

struct pk_synth {
    uint64_t seed;
    uint64_t target;
    uint64_t done;
    uint32_t next_mesh;
    uint32_t next_lot;
    uint32_t side; /* lots per row */
};

/* --- random numbers: splitmix64 to seed, xorshift64* to draw -------------- */

static uint64_t splitmix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

static uint64_t rnd_next(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545F4914F6CDD1Dull;
}

/* Uniform in [lo, hi). */
static float rnd_range(uint64_t *s, float lo, float hi)
{
    float t = (float)(rnd_next(s) >> 40) / 16777216.0f;
    return lo + (hi - lo) * t;
}

/* Uniform integer in [lo, hi]. */
static int rnd_int(uint64_t *s, int lo, int hi)
{
    return lo + (int)(rnd_next(s) % (uint64_t)(hi - lo + 1));
}

/* --- mesh under construction --------------------------------------------- */

typedef struct gen {
    float *pos, *nrm, *uv;
    uint32_t vc, vcap;
    uint32_t *idx;
    uint32_t ic, icap;
    int oom;
} gen;

typedef struct v3 {
    float x, y, z;
} v3;

static v3 v3_make(float x, float y, float z)
{
    v3 r = {x, y, z};
    return r;
}
static v3 add(v3 a, v3 b)
{
    return v3_make(a.x + b.x, a.y + b.y, a.z + b.z);
}
static v3 sub(v3 a, v3 b)
{
    return v3_make(a.x - b.x, a.y - b.y, a.z - b.z);
}
static v3 scale(v3 a, float s)
{
    return v3_make(a.x * s, a.y * s, a.z * s);
}
static float dot(v3 a, v3 b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z;
}
static v3 cross(v3 a, v3 b)
{
    return v3_make(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}

static int reserve(gen *g, uint32_t verts, uint32_t idx)
{
    if (g->oom) {
        return -1;
    }
    if (g->vc + verts > g->vcap) {
        uint32_t cap = g->vcap ? g->vcap : 4096;
        while (cap < g->vc + verts) {
            cap *= 2;
        }
        float *p = realloc(g->pos, (size_t)cap * 3 * sizeof(float));
        if (p != NULL) {
            g->pos = p;
        }
        float *n = realloc(g->nrm, (size_t)cap * 3 * sizeof(float));
        if (n != NULL) {
            g->nrm = n;
        }
        float *u = realloc(g->uv, (size_t)cap * 2 * sizeof(float));
        if (u != NULL) {
            g->uv = u;
        }
        if (p == NULL || n == NULL || u == NULL) {
            g->oom = 1;
            return -1;
        }
        g->vcap = cap;
    }
    if (g->ic + idx > g->icap) {
        uint32_t cap = g->icap ? g->icap : 8192;
        while (cap < g->ic + idx) {
            cap *= 2;
        }
        uint32_t *i = realloc(g->idx, (size_t)cap * sizeof(uint32_t));
        if (i == NULL) {
            g->oom = 1;
            return -1;
        }
        g->idx = i;
        g->icap = cap;
    }
    return 0;
}

/* A value in [-1, 1) from a hash of integers. */
static float hash_unit(uint64_t a, uint64_t b)
{
    return (float)(splitmix64(a * 0x9E3779B97F4A7C15ull ^ b) >> 40) / 8388608.0f - 1.0f;
}

/* Built things are not exact: each vertex strays by up to AS_BUILT metres
 * and each normal tilts a little, as a function of the vertex's place (and
 * face), so vertices that coincide stay together. This keeps the float data
 * from compressing like a ruled drawing: the low mantissa bits vary, the
 * high ones repeat, as in real models. */
#define AS_BUILT 0.004f
#define NORMAL_TILT 0.02f

static void as_built(v3 *p, v3 *n)
{
    uint64_t kx = (uint64_t)(int64_t)lrintf(p->x * 1000.0f), ky = (uint64_t)(int64_t)lrintf(p->y * 1000.0f);
    uint64_t kz = (uint64_t)(int64_t)lrintf(p->z * 1000.0f);
    uint64_t key = splitmix64(kx ^ splitmix64(ky ^ splitmix64(kz)));
    uint64_t face = (uint64_t)(int64_t)lrintf(n->x * 64.0f) * 31 + (uint64_t)(int64_t)lrintf(n->y * 64.0f) * 7 +
                    (uint64_t)(int64_t)lrintf(n->z * 64.0f);
    p->x += AS_BUILT * hash_unit(key, 1);
    p->y += AS_BUILT * hash_unit(key, 2);
    p->z += AS_BUILT * hash_unit(key, 3);
    v3 t = v3_make(n->x + NORMAL_TILT * hash_unit(key, 4 + face), n->y + NORMAL_TILT * hash_unit(key, 5 + face),
                   n->z + NORMAL_TILT * hash_unit(key, 6 + face));
    float l = sqrtf(t.x * t.x + t.y * t.y + t.z * t.z);
    *n = v3_make(t.x / l, t.y / l, t.z / l);
}

/* Call reserve first. */
static uint32_t vertex(gen *g, v3 p, v3 n, float u, float v)
{
    assert(g->vc < g->vcap && g->pos != NULL && g->nrm != NULL && g->uv != NULL); /* reserve first */
    as_built(&p, &n);
    uint32_t i = g->vc++;
    g->pos[i * 3 + 0] = p.x;
    g->pos[i * 3 + 1] = p.y;
    g->pos[i * 3 + 2] = p.z;
    g->nrm[i * 3 + 0] = n.x;
    g->nrm[i * 3 + 1] = n.y;
    g->nrm[i * 3 + 2] = n.z;
    g->uv[i * 2 + 0] = u;
    g->uv[i * 2 + 1] = v;
    return i;
}

static void triangle(gen *g, uint32_t a, uint32_t b, uint32_t c)
{
    g->idx[g->ic++] = a;
    g->idx[g->ic++] = b;
    g->idx[g->ic++] = c;
}

/* A grid of quads in the plane origin + u * a + v * b (a, b unit vectors),
 * at us[0..nu) x vs[0..nv), facing n (wound counter-clockwise seen from n's
 * side). Cells for which hole(i, j, user) is true are left out. uv is
 * (uv0 + u, v) / TEX_METRES. */
static void grid(gen *g, v3 origin, v3 a, v3 b, v3 n, const float *us, int nu, const float *vs, int nv, float uv0,
                 int (*hole)(int i, int j, const void *user), const void *user)
{
    if (reserve(g, (uint32_t)(nu * nv), (uint32_t)((nu - 1) * (nv - 1) * 6)) != 0) {
        return;
    }
    uint32_t base = g->vc;
    for (int j = 0; j < nv; j++) {
        for (int i = 0; i < nu; i++) {
            v3 p = add(origin, add(scale(a, us[i]), scale(b, vs[j])));
            vertex(g, p, n, (uv0 + us[i]) / TEX_METRES, vs[j] / TEX_METRES);
        }
    }
    int ccw = dot(cross(a, b), n) >= 0.0f;
    for (int j = 0; j + 1 < nv; j++) {
        for (int i = 0; i + 1 < nu; i++) {
            if (hole != NULL && hole(i, j, user)) {
                continue;
            }
            uint32_t p00 = base + (uint32_t)(j * nu + i), p10 = p00 + 1;
            uint32_t p01 = p00 + (uint32_t)nu, p11 = p01 + 1;
            if (ccw) {
                triangle(g, p00, p10, p11);
                triangle(g, p00, p11, p01);
            } else {
                triangle(g, p00, p11, p10);
                triangle(g, p00, p01, p11);
            }
        }
    }
}

/* One quad p0 p1 p2 p3 (in order around it) facing n. */
static void quad(gen *g, v3 p0, v3 p1, v3 p2, v3 p3, v3 n, float u0, float v0, float u1, float v1)
{
    if (reserve(g, 4, 6) != 0) {
        return;
    }
    uint32_t a = vertex(g, p0, n, u0, v0), b = vertex(g, p1, n, u1, v0);
    uint32_t c = vertex(g, p2, n, u1, v1), d = vertex(g, p3, n, u0, v1);
    if (dot(cross(sub(p1, p0), sub(p2, p0)), n) >= 0.0f) {
        triangle(g, a, b, c);
        triangle(g, a, c, d);
    } else {
        triangle(g, a, c, b);
        triangle(g, a, d, c);
    }
}

/* --- a building ---------------------------------------------------------- */

typedef struct floor_plan {
    int floors;
    float ground_height; /* 0: no ground floor (upper tiers) */
    float floor_height;
    float window_ratio; /* of a bay's width */
    float sill, window_height;
    float shop_sill, shop_top; /* ground floor: taller windows in the same bays */
    float bay_width;
    float depth; /* of the window reveal */
    float parapet;
} floor_plan;

typedef struct facade_rows {
    int window_rows; /* rows 3f + 1 for f < floors are window rows */
} facade_rows;

static int window_hole(int i, int j, const void *user)
{
    const facade_rows *r = user;
    return i % 3 == 1 && j % 3 == 1 && j < 3 * r->window_rows;
}

/* One wall from p0 to p1 at height y0, facing out (n). */
static void wall(gen *g, v3 p0, v3 p1, v3 n, float y0, const floor_plan *fp, float uv0)
{
    v3 t = sub(p1, p0);
    t.y = 0.0f;
    float len = sqrtf(dot(t, t));
    t = scale(t, 1.0f / len);
    v3 up = v3_make(0.0f, 1.0f, 0.0f);
    v3 origin = v3_make(p0.x, y0, p0.z);

    int bays = (int)(len / fp->bay_width + 0.5f);
    bays = bays < 1 ? 1 : bays;
    float bw = len / (float)bays;
    float us[3 * 64 + 1];
    if (bays > 64) {
        bays = 64;
        bw = len / 64.0f;
    }
    int nu = 0;
    for (int b = 0; b < bays; b++) {
        float ratio = fp->window_ratio;
        us[nu++] = (float)b * bw;
        us[nu++] = (float)b * bw + 0.5f * (1.0f - ratio) * bw;
        us[nu++] = (float)b * bw + 0.5f * (1.0f + ratio) * bw;
    }
    us[nu++] = len;

    float vs[3 * 48 + 2];
    int nv = 0;
    float base = 0.0f;
    for (int f = 0; f < fp->floors; f++) {
        int ground = f == 0 && fp->ground_height > 0.0f;
        float h = ground ? fp->ground_height : fp->floor_height;
        vs[nv++] = base;
        vs[nv++] = base + (ground ? fp->shop_sill : fp->sill);
        vs[nv++] = base + (ground ? fp->shop_top : fp->sill + fp->window_height);
        base += h;
    }
    vs[nv++] = base;
    vs[nv++] = base + fp->parapet;
    facade_rows rows = {fp->floors};
    grid(g, origin, t, up, n, us, nu, vs, nv, uv0, window_hole, &rows);

    /* The windows: reveal (sill, head, jambs) and a subdivided pane. */
    for (int f = 0; f < fp->floors; f++) {
        float va = vs[3 * f + 1], vb = vs[3 * f + 2];
        for (int b = 0; b < bays; b++) {
            float ua = us[3 * b + 1], ub = us[3 * b + 2];
            v3 in = scale(n, -fp->depth);
            v3 oa = add(origin, add(scale(t, ua), scale(up, va)));
            v3 ob = add(origin, add(scale(t, ub), scale(up, va)));
            v3 oc = add(origin, add(scale(t, ub), scale(up, vb)));
            v3 od = add(origin, add(scale(t, ua), scale(up, vb)));
            float du = (uv0 + ua) / TEX_METRES, dv = va / TEX_METRES;
            float eu = (uv0 + ub) / TEX_METRES, ev = vb / TEX_METRES, dd = fp->depth / TEX_METRES;
            quad(g, oa, ob, add(ob, in), add(oa, in), up, du, 0.0f, eu, dd);               /* sill */
            quad(g, od, oc, add(oc, in), add(od, in), scale(up, -1.0f), du, 0.0f, eu, dd); /* head */
            quad(g, oa, od, add(od, in), add(oa, in), t, dv, 0.0f, ev, dd);                /* left jamb */
            quad(g, ob, oc, add(oc, in), add(ob, in), scale(t, -1.0f), dv, 0.0f, ev, dd);  /* right jamb */
            float pu[3] = {ua, 0.5f * (ua + ub), ub}, pv[3] = {va, va + 0.6f * (vb - va), vb};
            grid(g, add(origin, in), t, up, n, pu, 3, pv, 3, uv0, NULL, NULL);
        }
    }
}

/* Inset of a convex polygon by d (mitred corners). */
static void inset(const v3 *poly, int n, float d, v3 *out)
{
    for (int i = 0; i < n; i++) {
        v3 prev = poly[(i + n - 1) % n], cur = poly[i], next = poly[(i + 1) % n];
        v3 e0 = sub(cur, prev), e1 = sub(next, cur);
        v3 n0 = v3_make(e0.z, 0.0f, -e0.x), n1 = v3_make(e1.z, 0.0f, -e1.x);
        n0 = scale(n0, 1.0f / sqrtf(dot(n0, n0)));
        n1 = scale(n1, 1.0f / sqrtf(dot(n1, n1)));
        if (dot(n0, cur) < 0.0f) { /* make them point outwards */
            n0 = scale(n0, -1.0f);
        }
        if (dot(n1, cur) < 0.0f) {
            n1 = scale(n1, -1.0f);
        }
        out[i] = sub(cur, scale(add(n0, n1), d / (1.0f + dot(n0, n1))));
    }
}

/* A box without a bottom, center (x, y0, z), size sx x h x sz. */
static void plant_box(gen *g, float x, float y0, float z, float sx, float h, float sz)
{
    v3 c[4] = {v3_make(x - sx / 2, y0, z - sz / 2), v3_make(x + sx / 2, y0, z - sz / 2),
               v3_make(x + sx / 2, y0, z + sz / 2), v3_make(x - sx / 2, y0, z + sz / 2)};
    v3 up = v3_make(0.0f, 1.0f, 0.0f);
    for (int i = 0; i < 4; i++) {
        v3 a = c[i], b = c[(i + 1) % 4];
        v3 t = sub(b, a);
        float len = sqrtf(dot(t, t));
        t = scale(t, 1.0f / len);
        v3 n = v3_make(t.z, 0.0f, -t.x);
        if (dot(n, sub(a, v3_make(x, y0, z))) < 0.0f) {
            n = scale(n, -1.0f);
        }
        float us[4] = {0.0f, len / 3.0f, 2.0f * len / 3.0f, len}, vs[3] = {0.0f, h * 0.5f, h};
        grid(g, a, t, up, n, us, 4, vs, 3, 0.0f, NULL, NULL);
    }
    v3 top[4];
    for (int i = 0; i < 4; i++) {
        top[i] = add(c[i], scale(up, h));
    }
    quad(g, top[0], top[1], top[2], top[3], up, 0.0f, 0.0f, sx / TEX_METRES, sz / TEX_METRES);
}

/* One tier: walls, parapet, roof; returns its top (roof) height. */
static float tier(gen *g, const v3 *poly, int sides, float y0, const floor_plan *fp, uint64_t *rng, int top)
{
    v3 up = v3_make(0.0f, 1.0f, 0.0f);
    float perimeter = 0.0f;
    float height = (fp->ground_height > 0.0f ? fp->ground_height + (float)(fp->floors - 1) * fp->floor_height
                                             : (float)fp->floors * fp->floor_height);
    for (int i = 0; i < sides; i++) {
        v3 a = poly[i], b = poly[(i + 1) % sides];
        v3 e = sub(b, a);
        v3 n = v3_make(e.z, 0.0f, -e.x);
        n = scale(n, 1.0f / sqrtf(dot(n, n)));
        if (dot(n, add(a, b)) < 0.0f) {
            n = scale(n, -1.0f);
        }
        wall(g, a, b, n, y0, fp, perimeter);
        perimeter += sqrtf(dot(e, e));
    }
    float roof = y0 + height, cap = roof + fp->parapet;
    v3 inner[MAX_SIDES];
    inset(poly, sides, PARAPET_THICKNESS, inner);
    for (int i = 0; i < sides; i++) {
        int k = (i + 1) % sides;
        v3 a = v3_make(poly[i].x, cap, poly[i].z), b = v3_make(poly[k].x, cap, poly[k].z);
        v3 ia = v3_make(inner[i].x, cap, inner[i].z), ib = v3_make(inner[k].x, cap, inner[k].z);
        quad(g, a, b, ib, ia, up, a.x / TEX_METRES, a.z / TEX_METRES, b.x / TEX_METRES, b.z / TEX_METRES);
        v3 e = sub(ib, ia);
        v3 n = v3_make(-e.z, 0.0f, e.x);
        n = scale(n, 1.0f / sqrtf(dot(n, n)));
        if (dot(n, add(ia, ib)) > 0.0f) { /* the parapet's inner face looks inwards */
            n = scale(n, -1.0f);
        }
        v3 la = v3_make(inner[i].x, roof, inner[i].z), lb = v3_make(inner[k].x, roof, inner[k].z);
        quad(g, la, lb, ib, ia, n, 0.0f, 0.0f, sqrtf(dot(e, e)) / TEX_METRES, fp->parapet / TEX_METRES);
    }
    /* The roof: a fan over two rings, so it is not one flat polygon. */
    if (reserve(g, (uint32_t)(2 * sides + 1), (uint32_t)(9 * sides)) == 0) {
        uint32_t c = vertex(g, v3_make(0.0f, roof, 0.0f), up, 0.0f, 0.0f);
        uint32_t mid0 = g->vc;
        for (int i = 0; i < sides; i++) {
            v3 p = v3_make(inner[i].x * 0.5f, roof, inner[i].z * 0.5f);
            vertex(g, p, up, p.x / TEX_METRES, p.z / TEX_METRES);
        }
        uint32_t out0 = g->vc;
        for (int i = 0; i < sides; i++) {
            v3 p = v3_make(inner[i].x, roof, inner[i].z);
            vertex(g, p, up, p.x / TEX_METRES, p.z / TEX_METRES);
        }
        /* Winding: counter-clockwise seen from above. */
        v3 e0 = sub(inner[1], inner[0]), e1 = sub(inner[2], inner[1]);
        int ccw = cross(e0, e1).y > 0.0f;
        for (int i = 0; i < sides; i++) {
            uint32_t k = (uint32_t)((i + 1) % sides);
            uint32_t m0 = mid0 + (uint32_t)i, m1 = mid0 + k, o0 = out0 + (uint32_t)i, o1 = out0 + k;
            if (ccw) {
                triangle(g, c, m0, m1);
                triangle(g, m0, o0, o1);
                triangle(g, m0, o1, m1);
            } else {
                triangle(g, c, m1, m0);
                triangle(g, m0, o1, o0);
                triangle(g, m0, m1, o1);
            }
        }
    }
    if (top) {
        /* Plant on the roof: boxes inside the circle the inner polygon holds. */
        float r = 1e9f;
        for (int i = 0; i < sides; i++) {
            v3 e = sub(inner[(i + 1) % sides], inner[i]);
            v3 n = v3_make(e.z, 0.0f, -e.x);
            n = scale(n, 1.0f / sqrtf(dot(n, n)));
            float dist = fabsf(dot(n, inner[i]));
            r = dist < r ? dist : r;
        }
        int boxes = rnd_int(rng, 1, 4);
        for (int i = 0; i < boxes; i++) {
            float sx = rnd_range(rng, 1.5f, 4.5f), sz = rnd_range(rng, 1.5f, 3.5f), h = rnd_range(rng, 1.2f, 3.2f);
            float room = 0.7f * r - 0.5f * (sx > sz ? sx : sz);
            if (room <= 0.0f) {
                continue;
            }
            float x = rnd_range(rng, -room, room) * 0.7071f, z = rnd_range(rng, -room, room) * 0.7071f;
            plant_box(g, x, roof, z, sx, h, sz);
        }
    }
    return cap;
}

/* A footprint centred on the origin: rectangle, chamfered rectangle or
 * regular polygon. Returns the number of corners. */
static int footprint(uint64_t *rng, v3 *poly)
{
    int kind = rnd_int(rng, 0, 9);
    if (kind < 5) {
        float w = rnd_range(rng, 14.0f, 42.0f) * 0.5f, d = rnd_range(rng, 12.0f, 36.0f) * 0.5f;
        poly[0] = v3_make(-w, 0.0f, -d);
        poly[1] = v3_make(w, 0.0f, -d);
        poly[2] = v3_make(w, 0.0f, d);
        poly[3] = v3_make(-w, 0.0f, d);
        return 4;
    }
    if (kind < 8) {
        float w = rnd_range(rng, 16.0f, 40.0f) * 0.5f, d = rnd_range(rng, 14.0f, 36.0f) * 0.5f;
        float c = rnd_range(rng, 2.0f, 5.0f);
        const float sx[4] = {-1.0f, 1.0f, 1.0f, -1.0f}, sz[4] = {-1.0f, -1.0f, 1.0f, 1.0f};
        int n = 0;
        for (int i = 0; i < 4; i++) { /* each corner cut into two */
            float x = sx[i] * w, z = sz[i] * d;
            if (i % 2 == 0) {
                poly[n++] = v3_make(x, 0.0f, z - sz[i] * c);
                poly[n++] = v3_make(x - sx[i] * c, 0.0f, z);
            } else {
                poly[n++] = v3_make(x - sx[i] * c, 0.0f, z);
                poly[n++] = v3_make(x, 0.0f, z - sz[i] * c);
            }
        }
        return n;
    }
    static const int counts[5] = {6, 8, 12, 16, 20};
    int n = counts[rnd_int(rng, 0, 4)];
    float r = rnd_range(rng, 9.0f, 20.0f);
    for (int i = 0; i < n; i++) {
        float a = 6.28318530718f * (float)i / (float)n;
        poly[i] = v3_make(r * cosf(a), 0.0f, r * sinf(a));
    }
    return n;
}

static void building(gen *g, uint64_t *rng)
{
    v3 poly[MAX_SIDES];
    int sides = footprint(rng, poly);
    int tiers = rnd_int(rng, 1, 10) <= 5 ? 1 : rnd_int(rng, 2, MAX_TIERS);
    float y = 0.0f;
    floor_plan fp;
    memset(&fp, 0, sizeof fp);
    fp.floor_height = rnd_range(rng, 3.0f, 3.8f);
    fp.window_ratio = rnd_range(rng, 0.35f, 0.7f);
    fp.sill = rnd_range(rng, 0.8f, 1.0f);
    fp.window_height = rnd_range(rng, 1.3f, fp.floor_height - fp.sill - 0.4f);
    fp.bay_width = rnd_range(rng, 2.4f, 4.0f);
    fp.depth = rnd_range(rng, 0.12f, 0.3f);
    for (int t = 0; t < tiers; t++) {
        fp.floors = t == 0 ? rnd_int(rng, 3, 14) : rnd_int(rng, 2, 10);
        fp.parapet = rnd_range(rng, 0.5f, 1.2f);
        if (t == 0) {
            fp.ground_height = rnd_range(rng, 3.8f, 5.0f);
            fp.shop_sill = rnd_range(rng, 0.2f, 0.5f);
            fp.shop_top = fp.ground_height * rnd_range(rng, 0.75f, 0.88f);
        } else {
            fp.ground_height = 0.0f;
        }
        y = tier(g, poly, sides, y, &fp, rng, t + 1 == tiers);
        /* The next tier stands on this roof, set back. */
        float s = rnd_range(rng, 0.55f, 0.85f);
        for (int i = 0; i < sides; i++) {
            poly[i] = scale(poly[i], s);
        }
        y -= fp.parapet;
    }
}

/* --- the generator ------------------------------------------------------- */

int pk_synth_open(const char *kind, uint64_t target_bytes, uint64_t seed, pk_synth **out, pk_diag *d)
{
    *out = NULL;
    if (strcmp(kind, "city") != 0) {
        snprintf(d->message, sizeof d->message, "unknown synthetic scene '%s' (known: city)", kind);
        return -1;
    }
    if (target_bytes == 0) {
        snprintf(d->message, sizeof d->message, "synthetic scene size is 0 bytes");
        return -1;
    }
    pk_synth *s = calloc(1, sizeof *s);
    if (s == NULL) {
        snprintf(d->message, sizeof d->message, "out of memory");
        return -1;
    }
    s->seed = seed;
    s->target = target_bytes;
    double lots = (double)target_bytes / EST_BUILDING_BYTES * 1.5 + 1.0;
    s->side = (uint32_t)ceil(sqrt(lots));
    *out = s;
    return 0;
}

/* Column-major object-to-scene matrix: rotation by quarter turns about y,
 * then the lot's position. */
static void lot_matrix(const pk_synth *s, uint32_t lot, int quarter, float m[16])
{
    static const float cs[4][2] = {{1.0f, 0.0f}, {0.0f, 1.0f}, {-1.0f, 0.0f}, {0.0f, -1.0f}};
    float c = cs[quarter & 3][0], sn = cs[quarter & 3][1];
    memset(m, 0, 16 * sizeof(float));
    m[0] = c;
    m[2] = -sn;
    m[5] = 1.0f;
    m[8] = sn;
    m[10] = c;
    float half = 0.5f * (float)(s->side - 1);
    m[12] = ((float)(lot % s->side) - half) * LOT_SPACING;
    uint32_t row = lot / s->side; /* the lot's row: integer division on purpose */
    m[14] = ((float)row - half) * LOT_SPACING;
    m[15] = 1.0f;
}

int pk_synth_next(pk_synth *s, pk_mesh *mesh, pk_instance inst[PK_SYNTH_MAX_INSTANCES], uint32_t *instance_count,
                  pk_diag *d)
{
    memset(mesh, 0, sizeof *mesh);
    *instance_count = 0;
    if (s->done >= s->target) {
        return 0;
    }
    uint32_t index = s->next_mesh;
    uint64_t rng = splitmix64(s->seed ^ splitmix64((uint64_t)index + 1));
    gen g;
    memset(&g, 0, sizeof g);
    building(&g, &rng);
    if (g.oom) {
        free(g.pos);
        free(g.nrm);
        free(g.uv);
        free(g.idx);
        snprintf(d->message, sizeof d->message, "synthetic building %u: out of memory", index);
        return -1;
    }
    snprintf(mesh->name, sizeof mesh->name, "building_%06u", index);
    mesh->vertex_count = g.vc;
    mesh->positions = g.pos;
    mesh->normals = g.nrm;
    mesh->uvs = g.uv;
    mesh->index_count = g.ic;
    mesh->indices = g.idx;
    s->done += (uint64_t)g.vc * 32u + (uint64_t)g.ic * 4u; /* as pk_mesh_input_bytes counts */
    s->next_mesh++;

    /* Placements: its own lot, and for about a third, more lots. */
    uint32_t n = 1;
    if (rnd_int(&rng, 0, 2) == 0) {
        n += (uint32_t)rnd_int(&rng, 1, (int)PK_SYNTH_MAX_INSTANCES - 1);
    }
    for (uint32_t i = 0; i < n; i++) {
        pk_instance *p = &inst[i];
        memset(p, 0, sizeof *p);
        p->mesh = index;
        uint32_t lot = s->next_lot++;
        lot_matrix(s, lot, i == 0 ? 0 : rnd_int(&rng, 0, 3), p->matrix);
        snprintf(p->name, sizeof p->name, "lot_%u", lot);
    }
    *instance_count = n;
    return 1;
}

uint64_t pk_synth_bytes_done(const pk_synth *s)
{
    return s->done;
}

uint64_t pk_synth_bytes_target(const pk_synth *s)
{
    return s->target;
}

void pk_synth_close(pk_synth *s)
{
    free(s);
}
