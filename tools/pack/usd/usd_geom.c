/* SPDX-License-Identifier: MIT */
/* sluice pack: USD geometry as pure functions (see usd_geom.h). */
#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "usd_geom.h"

/* ---- messages ---------------------------------------------------------- */

#if defined(__GNUC__)
#define UG_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define UG_PRINTF(f, a)
#endif

static const char *where_of(const usd_geom_ctx *ctx)
{
    return ctx != NULL && ctx->where != NULL ? ctx->where : "mesh";
}

static void vformat(const usd_geom_ctx *ctx, char *out, size_t n, const char *fmt, va_list ap)
{
    char what[480];
    vsnprintf(what, sizeof what, fmt, ap);
    snprintf(out, n, "%s: %s", where_of(ctx), what);
}

static int fail(const usd_geom_ctx *ctx, pk_diag *d, const char *fmt, ...) UG_PRINTF(3, 4);
static int fail(const usd_geom_ctx *ctx, pk_diag *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vformat(ctx, d->message, sizeof d->message, fmt, ap);
    va_end(ap);
    return -1;
}

#ifdef __clang_analyzer__
/* For clang's static analyzer only: it does not inline a variadic function,
 * so it cannot see that fail() returns -1. The build never sees this. */
#define fail(...) (fail(__VA_ARGS__), -1)
#endif

static void warn(const usd_geom_ctx *ctx, const char *fmt, ...) UG_PRINTF(2, 3);
static void warn(const usd_geom_ctx *ctx, const char *fmt, ...)
{
    if (ctx == NULL || ctx->warn == NULL) {
        return;
    }
    char message[512];
    va_list ap;
    va_start(ap, fmt);
    vformat(ctx, message, sizeof message, fmt, ap);
    va_end(ap);
    ctx->warn(ctx->user, message);
}

/* ---- triangulation ----------------------------------------------------- */

/* Whether a byte count is addressable here (32-bit size_t on armhf). */
static int fits_size(uint64_t bytes)
{
    return (uint64_t)(size_t)bytes == bytes;
}

/* Scratch for one polygon of up to n vertices: its projection and a ring. */
typedef struct ug_poly {
    double *xy;     /* 2 per vertex */
    uint32_t *next; /* ring, by vertex number in the face */
    uint32_t *prev;
} ug_poly;

/* The projected vertex i of the polygon. */
static const double *xy_at(const ug_poly *p, uint32_t i)
{
    return p->xy + (size_t)2 * i;
}

/* The point of face corner c (its index checked by the caller). */
static const float *corner_point(const usd_mesh_topology *t, uint32_t c)
{
    return t->points + (size_t)3 * (uint32_t)t->face_vertex_indices[c];
}

static double cross2(const double *a, const double *b, const double *c)
{
    return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
}

/* Emits triangle (a, b, c) of the face starting at corner `base`. */
static void emit(usd_triangles *out, uint32_t face, uint32_t base, uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t t = out->count++;
    out->corners[3 * t + 0] = base + a;
    out->corners[3 * t + 1] = base + b;
    out->corners[3 * t + 2] = base + c;
    out->faces[t] = face;
}

static void emit_fan(usd_triangles *out, uint32_t face, uint32_t base, uint32_t n)
{
    for (uint32_t i = 1; i + 1 < n; i++) {
        emit(out, face, base, 0, i, i + 1);
    }
}

/* Whether point p lies inside triangle (a, b, c) (counter-clockwise) or on
 * its boundary, eps being the area tolerance. */
static int in_triangle(const double *p, const double *a, const double *b, const double *c, double eps)
{
    return cross2(a, b, p) >= -eps && cross2(b, c, p) >= -eps && cross2(c, a, p) >= -eps;
}

static int same_point(const double *p, const double *q)
{
    return p[0] == q[0] && p[1] == q[1];
}

/* Ear clipping of a counter-clockwise projected ring of n vertices. When no
 * ear is found (a self-intersecting or degenerate remainder) what remains
 * is fanned, so it always ends with n - 2 triangles. */
static void ear_clip(usd_triangles *out, uint32_t face, uint32_t base, uint32_t n, const ug_poly *p, double eps)
{
    for (uint32_t i = 0; i < n; i++) {
        p->next[i] = i + 1 == n ? 0 : i + 1;
        p->prev[i] = i == 0 ? n - 1 : i - 1;
    }
    uint32_t remaining = n, cur = 0, misses = 0;
    while (remaining > 3) {
        uint32_t a = p->prev[cur], c = p->next[cur];
        const double *pa = xy_at(p, a), *pb = xy_at(p, cur), *pc = xy_at(p, c);
        int ear = cross2(pa, pb, pc) > eps;
        for (uint32_t k = p->next[c]; ear && k != a; k = p->next[k]) {
            const double *pk = xy_at(p, k);
            if (!same_point(pk, pa) && !same_point(pk, pb) && !same_point(pk, pc) && in_triangle(pk, pa, pb, pc, eps)) {
                ear = 0;
            }
        }
        if (ear) {
            emit(out, face, base, a, cur, c);
            p->next[a] = c;
            p->prev[c] = a;
            remaining--;
            cur = a; /* its ear status changed */
            misses = 0;
            continue;
        }
        cur = c;
        if (++misses >= remaining) {
            /* No ear left: fan the rest from cur. */
            uint32_t first = cur, b = p->next[first];
            for (uint32_t k = 0; k + 2 < remaining; k++) {
                uint32_t nb = p->next[b];
                emit(out, face, base, first, b, nb);
                b = nb;
            }
            return;
        }
    }
    emit(out, face, base, p->prev[cur], cur, p->next[cur]);
}

/* Triangulates one face of n >= 4 vertices starting at corner base. */
static void triangulate_polygon(const usd_mesh_topology *t, const usd_geom_ctx *ctx, usd_triangles *out, uint32_t face,
                                uint32_t base, uint32_t n, const ug_poly *p)
{
    /* Newell normal and extent. */
    double nx = 0.0, ny = 0.0, nz = 0.0, lo[3], hi[3];
    for (int k = 0; k < 3; k++) {
        lo[k] = hi[k] = corner_point(t, base)[k];
    }
    for (uint32_t i = 0; i < n; i++) {
        const float *a = corner_point(t, base + i);
        const float *b = corner_point(t, base + (i + 1 == n ? 0 : i + 1));
        nx += ((double)a[1] - b[1]) * ((double)a[2] + b[2]);
        ny += ((double)a[2] - b[2]) * ((double)a[0] + b[0]);
        nz += ((double)a[0] - b[0]) * ((double)a[1] + b[1]);
        for (int k = 0; k < 3; k++) {
            lo[k] = a[k] < lo[k] ? a[k] : lo[k];
            hi[k] = a[k] > hi[k] ? a[k] : hi[k];
        }
    }
    double extent = 0.0;
    for (int k = 0; k < 3; k++) {
        extent = hi[k] - lo[k] > extent ? hi[k] - lo[k] : extent;
    }
    double len = sqrt(nx * nx + ny * ny + nz * nz);
    double eps = 1e-12 * extent * extent;
    if (!(len > eps) || !isfinite(len)) {
        emit_fan(out, face, base, n); /* degenerate: collinear, zero area or not finite */
        return;
    }
    /* Project on the plane of the dominant axis, counter-clockwise. */
    int u, v;
    double s;
    if (fabs(nx) >= fabs(ny) && fabs(nx) >= fabs(nz)) {
        u = 1, v = 2, s = nx;
    } else if (fabs(ny) >= fabs(nz)) {
        u = 2, v = 0, s = ny;
    } else {
        u = 0, v = 1, s = nz;
    }
    for (uint32_t i = 0; i < n; i++) {
        const float *a = corner_point(t, base + i);
        p->xy[(size_t)2 * i] = a[u];
        p->xy[(size_t)2 * i + 1] = s < 0.0 ? -(double)a[v] : a[v];
    }
    /* Convex: every turn left, and the turns sum to one revolution. */
    int convex = 1;
    double turning = 0.0;
    for (uint32_t i = 0; i < n && convex; i++) {
        const double *a = xy_at(p, i == 0 ? n - 1 : i - 1), *b = xy_at(p, i), *c = xy_at(p, i + 1 == n ? 0 : i + 1);
        double cr = cross2(a, b, c);
        if (cr < -eps) {
            convex = 0;
        }
        double dot = (b[0] - a[0]) * (c[0] - b[0]) + (b[1] - a[1]) * (c[1] - b[1]);
        turning += atan2(cr, dot);
    }
    if (convex && turning < 3.0 * 3.14159265358979323846) {
        emit_fan(out, face, base, n);
        return;
    }
    if (n > USD_GEOM_MAX_EAR_CLIP_VERTICES) {
        warn(ctx, "face %u: concave, %u vertices, over %u: fanned, not ear-clipped", face, n,
             USD_GEOM_MAX_EAR_CLIP_VERTICES);
        emit_fan(out, face, base, n);
        return;
    }
    ear_clip(out, face, base, n, p, eps);
}

/* Checks the face counts (each at least 3, summing to the index count) and that every index names a point;
 * *LARGEST receives the largest count. 0, or -1 with a message. */
static int check_faces(const usd_mesh_topology *t, const usd_geom_ctx *ctx, uint32_t *largest_out, pk_diag *d)
{
    uint64_t sum = 0;
    uint32_t largest = 0;
    for (uint32_t f = 0; f < t->face_count; f++) {
        int32_t c = t->face_vertex_counts[f];
        if (c < 3) {
            return fail(ctx, d, "faceVertexCounts[%u]: count %d is below 3", f, (int)c);
        }
        sum += (uint32_t)c;
        largest = (uint32_t)c > largest ? (uint32_t)c : largest;
    }
    if (sum != t->index_count) {
        return fail(ctx, d, "faceVertexCounts: the counts sum to %llu, faceVertexIndices has %u indices",
                    (unsigned long long)sum, t->index_count);
    }
    uint32_t corner = 0;
    for (uint32_t f = 0; f < t->face_count; f++) {
        for (uint32_t k = 0; k < (uint32_t)t->face_vertex_counts[f]; k++, corner++) {
            int32_t i = t->face_vertex_indices[corner];
            if (i < 0 || (uint32_t)i >= t->point_count) {
                return fail(ctx, d, "faceVertexIndices[%u] (face %u): index %d out of range (%u points)", corner, f,
                            (int)i, t->point_count);
            }
        }
    }
    *largest_out = largest;
    return 0;
}

/* The hole flags per face, from holeIndices (NULL without holes). 0, or -1 with a message (a face out of range,
 * out of memory). */
static int mark_holes(const usd_mesh_topology *t, const usd_geom_ctx *ctx, unsigned char **hole_out, pk_diag *d)
{
    unsigned char *hole = NULL;
    if (t->hole_count > 0) {
        hole = calloc(t->face_count > 0 ? t->face_count : 1, 1);
        if (hole == NULL) {
            return fail(ctx, d, "out of memory for %u faces", t->face_count);
        }
        for (uint32_t h = 0; h < t->hole_count; h++) {
            int32_t f = t->hole_indices[h];
            if (f < 0 || (uint32_t)f >= t->face_count) {
                free(hole);
                return fail(ctx, d, "holeIndices[%u]: face %d out of range (%u faces)", h, (int)f, t->face_count);
            }
            hole[f] = 1;
        }
    }
    *hole_out = hole;
    return 0;
}

int usd_geom_triangulate(const usd_mesh_topology *t, const usd_geom_ctx *ctx, usd_triangles *out, pk_diag *d)
{
    assert(t != NULL && out != NULL && d != NULL);
    memset(out, 0, sizeof *out);
    assert(t->face_count == 0 || t->face_vertex_counts != NULL);
    assert(t->index_count == 0 || t->face_vertex_indices != NULL);
    assert(t->point_count == 0 || t->points != NULL);
    assert(t->hole_count == 0 || t->hole_indices != NULL);

    uint64_t tris = 0;
    uint32_t largest = 0;
    if (check_faces(t, ctx, &largest, d) != 0) {
        return -1;
    }
    unsigned char *hole = NULL;
    if (mark_holes(t, ctx, &hole, d) != 0) {
        return -1;
    }
    for (uint32_t f = 0; f < t->face_count; f++) {
        if (hole == NULL || !hole[f]) {
            tris += (uint32_t)t->face_vertex_counts[f] - 2u;
        }
    }
    if (tris == 0) {
        free(hole);
        return 0;
    }
    if (tris > UINT32_MAX / 3u || !fits_size(tris * 3u * sizeof(uint32_t))) {
        free(hole);
        return fail(ctx, d, "%llu triangles: over the %u a mesh can index", (unsigned long long)tris, UINT32_MAX / 3u);
    }
    ug_poly p = {0};
    out->corners = malloc((size_t)tris * 3u * sizeof(uint32_t));
    out->faces = malloc((size_t)tris * sizeof(uint32_t));
    if (largest > 3) {
        p.xy = malloc((size_t)largest * 2u * sizeof(double));
        p.next = malloc((size_t)largest * sizeof(uint32_t));
        p.prev = malloc((size_t)largest * sizeof(uint32_t));
    }
    if (out->corners == NULL || out->faces == NULL ||
        (largest > 3 && (p.xy == NULL || p.next == NULL || p.prev == NULL))) {
        free(hole);
        free(p.xy);
        free(p.next);
        free(p.prev);
        usd_triangles_free(out);
        return fail(ctx, d, "out of memory for %llu triangles", (unsigned long long)tris);
    }
    uint32_t base = 0;
    for (uint32_t f = 0; f < t->face_count; f++) {
        uint32_t n = (uint32_t)t->face_vertex_counts[f];
        if (hole == NULL || !hole[f]) {
            if (n == 3) {
                emit(out, f, base, 0, 1, 2);
            } else {
                triangulate_polygon(t, ctx, out, f, base, n, &p);
            }
        }
        base += n;
    }
    assert(out->count == tris);
    if (t->left_handed) {
        for (uint32_t i = 0; i < out->count; i++) {
            uint32_t x = out->corners[3 * i + 1];
            out->corners[3 * i + 1] = out->corners[3 * i + 2];
            out->corners[3 * i + 2] = x;
        }
    }
    free(hole);
    free(p.xy);
    free(p.next);
    free(p.prev);
    return 0;
}

void usd_triangles_free(usd_triangles *t)
{
    free(t->corners);
    free(t->faces);
    memset(t, 0, sizeof *t);
}

/* ---- primvars ------------------------------------------------------------ */

static const char *const interp_names[] = {"constant", "uniform", "vertex", "varying", "faceVarying"};

int usd_interp_parse(const char *token, usd_interp dflt, usd_interp *out)
{
    if (token == NULL || token[0] == '\0') {
        *out = dflt;
        return 0;
    }
    for (int i = 0; i < 5; i++) {
        if (strcmp(token, interp_names[i]) == 0) {
            *out = (usd_interp)i;
            return 0;
        }
    }
    return -1;
}

const char *usd_interp_name(usd_interp i)
{
    return (unsigned)i < 5u ? interp_names[i] : "?";
}

/* Checks one primvar against the topology. Returns 1 usable, 0 dropped with
 * a warning, -1 failed. */
static int check_primvar(const usd_mesh_input *in, const usd_primvar *pv, const usd_geom_ctx *ctx, pk_diag *d)
{
    const usd_mesh_topology *t = &in->topology;
    char why[400];
    uint32_t need = 0;
    switch (pv->interp) {
    case USD_INTERP_CONSTANT:
        need = 1;
        break;
    case USD_INTERP_UNIFORM:
        need = t->face_count;
        break;
    case USD_INTERP_VERTEX:
    case USD_INTERP_VARYING:
        need = t->point_count;
        break;
    case USD_INTERP_FACE_VARYING:
        need = t->index_count;
        break;
    default:
        snprintf(why, sizeof why, "%s: interpolation %d unknown", pv->name, (int)pv->interp);
        goto bad;
    }
    assert(pv->value_count == 0 || pv->values != NULL);
    assert(pv->index_count == 0 || pv->indices != NULL);
    if (pv->element_size > 1) {
        snprintf(why, sizeof why, "%s: elementSize %u is not imported (only 1)", pv->name, pv->element_size);
        goto bad;
    }
    if (pv->indices != NULL) {
        if (pv->index_count != need) {
            snprintf(why, sizeof why, "%s:indices: %s needs %u elements, has %u", pv->name, usd_interp_name(pv->interp),
                     need, pv->index_count);
            goto bad;
        }
        for (uint32_t i = 0; i < pv->index_count; i++) {
            if (pv->indices[i] < 0 || (uint32_t)pv->indices[i] >= pv->value_count) {
                snprintf(why, sizeof why, "%s:indices[%u]: index %d out of range (%u values)", pv->name, i,
                         (int)pv->indices[i], pv->value_count);
                goto bad;
            }
        }
    } else if (pv->value_count != need) {
        snprintf(why, sizeof why, "%s: %s needs %u elements, has %u", pv->name, usd_interp_name(pv->interp), need,
                 pv->value_count);
        goto bad;
    }
    return 1;
bad:
    if (in->drop_bad_primvars) {
        warn(ctx, "%s; dropped", why);
        return 0;
    }
    return fail(ctx, d, "%s", why);
}

/* The value number of the primvar at corner c of triangle tri. */
static uint32_t primvar_value(const usd_primvar *pv, const usd_mesh_topology *t, const usd_triangles *tr, uint32_t tri,
                              uint32_t c)
{
    uint32_t e = 0;
    switch (pv->interp) {
    case USD_INTERP_UNIFORM:
        e = tr->faces[tri];
        break;
    case USD_INTERP_VERTEX:
    case USD_INTERP_VARYING:
        e = (uint32_t)t->face_vertex_indices[c];
        break;
    case USD_INTERP_FACE_VARYING:
        e = c;
        break;
    default:
        e = 0;
        break;
    }
    return pv->indices != NULL ? (uint32_t)pv->indices[e] : e;
}

static float canon(float x)
{
    return x == 0.0f ? 0.0f : x; /* -0.0 -> 0.0 */
}

static uint32_t mix(uint32_t h, uint32_t x)
{
    h ^= x + 0x9e3779b9u + (h << 6) + (h >> 2);
    return h;
}

static uint32_t float_bits(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static int same_bits(const float *a, const float *b, int n)
{
    for (int i = 0; i < n; i++) {
        if (float_bits(a[i]) != float_bits(b[i])) {
            return 0;
        }
    }
    return 1;
}

/* The vertex table build_mesh welds corners into: open addressing over CAP slots (a power of two, at least
 * twice the corners, so never full), each vertex's point beside it. */
typedef struct corner_welder {
    uint32_t *slots;
    uint32_t *point_of;
    uint32_t cap;
    uint32_t nv;
} corner_welder;

/* The normal and texture coordinate (flipped to v down) of corner C of triangle TRI, canonical, into N3 and
 * ST (zeros where the mesh has none); returns the hash of the corner's point and attributes. */
static uint32_t corner_attributes(const usd_primvar *nrm, const usd_primvar *uv, const usd_mesh_topology *t,
                                  const usd_triangles *tr, uint32_t tri, uint32_t c, float n3[3], float st[2])
{
    uint32_t pt = (uint32_t)t->face_vertex_indices[c];
    uint32_t h = mix(0, pt);
    if (nrm != NULL) {
        const float *src = nrm->values + (size_t)3 * primvar_value(nrm, t, tr, tri, c);
        for (int j = 0; j < 3; j++) {
            n3[j] = canon(src[j]);
            h = mix(h, float_bits(n3[j]));
        }
    }
    if (uv != NULL) {
        const float *src = uv->values + (size_t)2 * primvar_value(uv, t, tr, tri, c);
        st[0] = canon(src[0]);
        st[1] = canon(1.0f - src[1]);
        h = mix(h, float_bits(st[0]));
        h = mix(h, float_bits(st[1]));
    }
    return h;
}

/* The vertex of point PT with attributes N3 and ST (hashed to H): the one already made with the same bits, or
 * a new one appended to OUT. */
static uint32_t weld_corner(corner_welder *w, pk_mesh *out, const float *points, uint32_t h, uint32_t pt,
                            const float n3[3], const float st[2])
{
    uint32_t s = h & (w->cap - 1u), v;
    for (;;) {
        v = w->slots[s];
        if (v == UINT32_MAX) {
            v = w->nv++;
            w->slots[s] = v;
            w->point_of[v] = pt;
            memcpy(out->positions + (size_t)3 * v, points + (size_t)3 * pt, 3u * sizeof(float));
            if (out->normals != NULL) {
                memcpy(out->normals + (size_t)3 * v, n3, 3u * sizeof(float));
            }
            if (out->uvs != NULL) {
                memcpy(out->uvs + (size_t)2 * v, st, 2u * sizeof(float));
            }
            return v;
        }
        if (w->point_of[v] == pt && (out->normals == NULL || same_bits(out->normals + (size_t)3 * v, n3, 3)) &&
            (out->uvs == NULL || same_bits(out->uvs + (size_t)2 * v, st, 2))) {
            return v;
        }
        s = (s + 1u) & (w->cap - 1u);
    }
}

/* A corner array A shrunk to N floats (N > 0), or A itself where the shrinking fails. */
static float *shrink_floats(float *a, size_t n)
{
    assert(n > 0);
    float *p = realloc(a, n * sizeof(float));
    if (p == NULL) {
        return a;
    }
    return p;
}

/* Gives back what vertex sharing saved (shrinking never fails for long); NV > 0. */
static void shrink_mesh(pk_mesh *out, uint32_t nv)
{
    out->positions = shrink_floats(out->positions, (size_t)nv * 3u);
    if (out->normals != NULL) {
        out->normals = shrink_floats(out->normals, (size_t)nv * 3u);
    }
    if (out->uvs != NULL) {
        out->uvs = shrink_floats(out->uvs, (size_t)nv * 2u);
    }
}

int usd_geom_build_mesh(const usd_mesh_input *in, const usd_geom_ctx *ctx, pk_mesh *out, pk_diag *d)
{
    assert(in != NULL && out != NULL && d != NULL);
    memset(out, 0, sizeof *out);
    const usd_mesh_topology *t = &in->topology;
    usd_triangles tr;
    if (usd_geom_triangulate(t, ctx, &tr, d) != 0) {
        return -1;
    }
    const usd_primvar *nrm = in->normals, *uv = in->uvs;
    int r;
    if (nrm != NULL && (r = check_primvar(in, nrm, ctx, d)) <= 0) {
        if (r < 0) {
            usd_triangles_free(&tr);
            return -1;
        }
        nrm = NULL;
    }
    if (uv != NULL && (r = check_primvar(in, uv, ctx, d)) <= 0) {
        if (r < 0) {
            usd_triangles_free(&tr);
            return -1;
        }
        uv = NULL;
    }
    if (tr.count == 0) {
        usd_triangles_free(&tr);
        return 0;
    }
    uint32_t corners = tr.count * 3u; /* fits: checked by the triangulation */
    uint32_t cap = 1;
    while (cap < corners && cap < (1u << 31)) {
        cap <<= 1;
    }
    cap = cap < (1u << 31) ? cap << 1 : cap; /* at least 2 slots per corner: never full */
    if (corners > (1u << 30) || !fits_size((uint64_t)cap * sizeof(uint32_t)) ||
        !fits_size((uint64_t)corners * 3u * sizeof(float))) {
        usd_triangles_free(&tr);
        return fail(ctx, d, "%u corners: too many for this machine's memory", corners);
    }
    uint32_t *slots = malloc((size_t)cap * sizeof(uint32_t));
    uint32_t *point_of = malloc((size_t)corners * sizeof(uint32_t));
    out->positions = malloc((size_t)corners * 3u * sizeof(float));
    out->normals = nrm != NULL ? malloc((size_t)corners * 3u * sizeof(float)) : NULL;
    out->uvs = uv != NULL ? malloc((size_t)corners * 2u * sizeof(float)) : NULL;
    out->indices = malloc((size_t)corners * sizeof(uint32_t));
    if (slots == NULL || point_of == NULL || out->positions == NULL || (nrm != NULL && out->normals == NULL) ||
        (uv != NULL && out->uvs == NULL) || out->indices == NULL) {
        free(slots);
        free(point_of);
        pk_mesh_free(out);
        usd_triangles_free(&tr);
        return fail(ctx, d, "out of memory for %u corners", corners);
    }
    memset(slots, 0xff, (size_t)cap * sizeof(uint32_t));
    corner_welder w = {slots, point_of, cap, 0};
    for (uint32_t tri = 0; tri < tr.count; tri++) {
        for (uint32_t k = 0; k < 3; k++) {
            uint32_t c = tr.corners[3 * tri + k];
            float n3[3] = {0.0f, 0.0f, 0.0f}, st[2] = {0.0f, 0.0f};
            uint32_t h = corner_attributes(nrm, uv, t, &tr, tri, c, n3, st);
            out->indices[3 * tri + k] = weld_corner(&w, out, t->points, h, (uint32_t)t->face_vertex_indices[c], n3, st);
        }
    }
    free(slots);
    free(point_of);
    out->vertex_count = w.nv;
    out->index_count = corners;
    shrink_mesh(out, w.nv);
    usd_triangles_free(&tr);
    return 0;
}

int32_t usd_geom_pick_normals(const char *const *names, uint32_t n)
{
    int32_t plain = -1;
    for (uint32_t i = 0; i < n && i <= (uint32_t)INT32_MAX; i++) {
        if (strcmp(names[i], "primvars:normals") == 0) {
            return (int32_t)i;
        }
        if (plain < 0 && strcmp(names[i], "normals") == 0) {
            plain = (int32_t)i;
        }
    }
    return plain;
}

static int is_texcoord_type(const char *type)
{
    static const char *const ok[] = {"texCoord2f[]", "texCoord2h[]", "texCoord2d[]", "float2[]", "half2[]",
                                     "double2[]",    "Vec2f[]",      "Vec2h[]",      "Vec2d[]"};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        if (type != NULL && strcmp(type, ok[i]) == 0) {
            return 1;
        }
    }
    return 0;
}

int32_t usd_geom_pick_texcoords(const char *const *names, const char *const *types, uint32_t n)
{
    int32_t best = -1;
    for (uint32_t i = 0; i < n && i <= (uint32_t)INT32_MAX; i++) {
        const char *nm = names[i];
        if (strncmp(nm, "primvars:", 9) != 0 || nm[9] == '\0' || strchr(nm + 9, ':') != NULL ||
            !is_texcoord_type(types[i])) {
            continue;
        }
        if (strcmp(nm, "primvars:st") == 0) {
            return (int32_t)i;
        }
        if (best < 0 || strcmp(nm, names[best]) < 0) {
            best = (int32_t)i;
        }
    }
    return best;
}

/* ---- xformOps -------------------------------------------------------------- */

static const struct {
    const char *name;
    usd_xform_op_kind kind;
    uint32_t values;
} op_kinds[] = {
    {"translate", USD_XFORM_TRANSLATE, 3},
    {"translateX", USD_XFORM_TRANSLATE_X, 1},
    {"translateY", USD_XFORM_TRANSLATE_Y, 1},
    {"translateZ", USD_XFORM_TRANSLATE_Z, 1},
    {"scale", USD_XFORM_SCALE, 3},
    {"scaleX", USD_XFORM_SCALE_X, 1},
    {"scaleY", USD_XFORM_SCALE_Y, 1},
    {"scaleZ", USD_XFORM_SCALE_Z, 1},
    {"rotateX", USD_XFORM_ROTATE_X, 1},
    {"rotateY", USD_XFORM_ROTATE_Y, 1},
    {"rotateZ", USD_XFORM_ROTATE_Z, 1},
    {"rotateXYZ", USD_XFORM_ROTATE_XYZ, 3},
    {"rotateXZY", USD_XFORM_ROTATE_XZY, 3},
    {"rotateYXZ", USD_XFORM_ROTATE_YXZ, 3},
    {"rotateYZX", USD_XFORM_ROTATE_YZX, 3},
    {"rotateZXY", USD_XFORM_ROTATE_ZXY, 3},
    {"rotateZYX", USD_XFORM_ROTATE_ZYX, 3},
    {"orient", USD_XFORM_ORIENT, 4},
    {"transform", USD_XFORM_TRANSFORM, 16},
};
#define OP_KIND_COUNT (sizeof op_kinds / sizeof op_kinds[0])

uint32_t usd_xform_op_value_count(usd_xform_op_kind k)
{
    for (size_t i = 0; i < OP_KIND_COUNT; i++) {
        if (op_kinds[i].kind == k) {
            return op_kinds[i].values;
        }
    }
    return 0;
}

static const char *op_kind_name(usd_xform_op_kind k)
{
    for (size_t i = 0; i < OP_KIND_COUNT; i++) {
        if (op_kinds[i].kind == k) {
            return op_kinds[i].name;
        }
    }
    return "resetXformStack";
}

int usd_xform_op_parse(const char *name, uint32_t index, usd_xform_op *op, const usd_geom_ctx *ctx, pk_diag *d)
{
    assert(name != NULL && op != NULL && d != NULL);
    memset(op, 0, sizeof *op);
    if (strcmp(name, "!resetXformStack!") == 0) {
        op->kind = USD_XFORM_RESET_STACK;
        op->attr = op->suffix = name + strlen(name);
        return 0;
    }
    const char *s = name;
    if (strncmp(s, "!invert!", 8) == 0) {
        op->invert = 1;
        s += 8;
    }
    if (strncmp(s, "xformOp:", 8) != 0) {
        return fail(ctx, d, "xformOpOrder[%u]: '%s' is not an xformOp (no 'xformOp:' namespace)", index, name);
    }
    const char *type = s + 8, *colon = strchr(type, ':');
    size_t type_len = colon != NULL ? (size_t)(colon - type) : strlen(type);
    for (size_t i = 0; i < OP_KIND_COUNT; i++) {
        if (strlen(op_kinds[i].name) == type_len && strncmp(type, op_kinds[i].name, type_len) == 0) {
            if (colon != NULL && colon[1] == '\0') {
                return fail(ctx, d, "xformOpOrder[%u]: '%s' is not an xformOp (empty suffix)", index, name);
            }
            op->kind = op_kinds[i].kind;
            op->attr = s;
            op->suffix = colon != NULL ? colon + 1 : type + type_len;
            return 0;
        }
    }
    return fail(ctx, d, "xformOpOrder[%u]: '%s' is not an xformOp (unknown op type '%.*s')", index, name,
                (int)(type_len > 64 ? 64 : type_len), type);
}

static void rotation_axis(int axis, double degrees, double m[16])
{
    double r = degrees * (3.14159265358979323846 / 180.0);
    double c = cos(r), s = sin(r);
    /* Exact values at multiples of 90 degrees, so composed matrices of
     * quarter turns have exact zeros. */
    if (fabs(degrees) < 1e9 && fmod(degrees, 90.0) == 0.0) {
        long q = ((long)(degrees / 90.0) % 4 + 4) % 4;
        c = q == 0 ? 1.0 : q == 2 ? -1.0 : 0.0;
        s = q == 1 ? 1.0 : q == 3 ? -1.0 : 0.0;
    }
    usd_geom_matrix_identity(m);
    int a = (axis + 1) % 3, b = (axis + 2) % 3; /* the rotated plane, right-handed */
    m[a * 4 + a] = c;
    m[b * 4 + a] = -s;
    m[a * 4 + b] = s;
    m[b * 4 + b] = c;
}

int usd_xform_op_matrix(const usd_xform_op *op, const usd_geom_ctx *ctx, double out[16], pk_diag *d)
{
    assert(op != NULL && out != NULL && d != NULL);
    const char *attr = op->attr != NULL && op->attr[0] != '\0' ? op->attr : op_kind_name(op->kind);
    uint32_t need = usd_xform_op_value_count(op->kind);
    if (op->value_count != need) {
        return fail(ctx, d, "%s: needs %u values, has %u", attr, need, op->value_count);
    }
    for (uint32_t i = 0; i < need; i++) {
        if (!isfinite(op->value[i])) {
            return fail(ctx, d, "%s: value %u is not finite", attr, i);
        }
    }
    const double *v = op->value;
    double m[16];
    usd_geom_matrix_identity(m);
    switch (op->kind) {
    case USD_XFORM_TRANSLATE:
        m[12] = v[0], m[13] = v[1], m[14] = v[2];
        break;
    case USD_XFORM_TRANSLATE_X:
        m[12] = v[0];
        break;
    case USD_XFORM_TRANSLATE_Y:
        m[13] = v[0];
        break;
    case USD_XFORM_TRANSLATE_Z:
        m[14] = v[0];
        break;
    case USD_XFORM_SCALE:
        m[0] = v[0], m[5] = v[1], m[10] = v[2];
        break;
    case USD_XFORM_SCALE_X:
        m[0] = v[0];
        break;
    case USD_XFORM_SCALE_Y:
        m[5] = v[0];
        break;
    case USD_XFORM_SCALE_Z:
        m[10] = v[0];
        break;
    case USD_XFORM_ROTATE_X:
        rotation_axis(0, v[0], m);
        break;
    case USD_XFORM_ROTATE_Y:
        rotation_axis(1, v[0], m);
        break;
    case USD_XFORM_ROTATE_Z:
        rotation_axis(2, v[0], m);
        break;
    case USD_XFORM_ROTATE_XYZ:
    case USD_XFORM_ROTATE_XZY:
    case USD_XFORM_ROTATE_YXZ:
    case USD_XFORM_ROTATE_YZX:
    case USD_XFORM_ROTATE_ZXY:
    case USD_XFORM_ROTATE_ZYX: {
        /* rotateABC applies A first, then B, then C (row vectors: v Ra Rb
         * Rc); with column vectors M = Rc Rb Ra. Values are (x, y, z). */
        static const char order[6][4] = {"XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX"};
        const char *o = order[op->kind - USD_XFORM_ROTATE_XYZ];
        for (int k = 0; k < 3; k++) {
            int axis = o[k] - 'X';
            double r[16];
            rotation_axis(axis, v[axis], r);
            usd_geom_matrix_mul(r, m, m);
        }
        break;
    }
    case USD_XFORM_ORIENT: {
        double w = v[0], x = v[1], y = v[2], z = v[3];
        double len = sqrt(w * w + x * x + y * y + z * z);
        if (!(len > 0.0)) {
            return fail(ctx, d, "%s: the quaternion has zero length", attr);
        }
        w /= len, x /= len, y /= len, z /= len;
        m[0] = 1 - 2 * (y * y + z * z), m[4] = 2 * (x * y - w * z), m[8] = 2 * (x * z + w * y);
        m[1] = 2 * (x * y + w * z), m[5] = 1 - 2 * (x * x + z * z), m[9] = 2 * (y * z - w * x);
        m[2] = 2 * (x * z - w * y), m[6] = 2 * (y * z + w * x), m[10] = 1 - 2 * (x * x + y * y);
        break;
    }
    case USD_XFORM_TRANSFORM:
        /* Row-major row-vector storage is the column-major storage of the
         * transposed, column-vector matrix: the same 16 numbers. Its last
         * column (v[3], v[7], v[11], v[15]) must be (0, 0, 0, 1), within
         * USD_XFORM_AFFINE_TOLERANCE: a projective transform has no place
         * in an instance's affine matrix, and keeping it would place the
         * mesh wrongly. */
        if (fabs(v[3]) > USD_XFORM_AFFINE_TOLERANCE || fabs(v[7]) > USD_XFORM_AFFINE_TOLERANCE ||
            fabs(v[11]) > USD_XFORM_AFFINE_TOLERANCE || fabs(v[15] - 1.0) > USD_XFORM_AFFINE_TOLERANCE) {
            return fail(ctx, d, "%s: not an affine transform (last column (%g, %g, %g, %g), not (0, 0, 0, 1))", attr,
                        v[3], v[7], v[11], v[15]);
        }
        memcpy(m, v, sizeof m);
        break;
    case USD_XFORM_RESET_STACK:
        break;
    default:
        return fail(ctx, d, "%s: op kind %d unknown", attr, (int)op->kind);
    }
    if (op->invert && op->kind != USD_XFORM_RESET_STACK) {
        if (usd_geom_matrix_invert(m, out) != 0) {
            return fail(ctx, d, "!invert!%s: the matrix is singular, it has no inverse", attr);
        }
        return 0;
    }
    memcpy(out, m, sizeof m);
    return 0;
}

int usd_xform_compose(const usd_xform_op *ops, uint32_t n, const usd_geom_ctx *ctx, double out[16], int *resets,
                      pk_diag *d)
{
    assert((ops != NULL || n == 0) && out != NULL && d != NULL);
    uint32_t first = 0;
    int reset = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (ops[i].kind == USD_XFORM_RESET_STACK) {
            first = i + 1;
            reset = 1;
        }
    }
    double m[16];
    usd_geom_matrix_identity(m);
    for (uint32_t i = first; i < n; i++) {
        double o[16];
        if (usd_xform_op_matrix(&ops[i], ctx, o, d) != 0) {
            return -1;
        }
        usd_geom_matrix_mul(m, o, m);
    }
    memcpy(out, m, sizeof m);
    if (resets != NULL) {
        *resets = reset;
    }
    return 0;
}

/* ---- stage units ------------------------------------------------------------- */

int usd_up_axis_parse(const char *token, usd_up_axis *out)
{
    if (token == NULL || token[0] == '\0' || strcmp(token, "Y") == 0) {
        *out = USD_UP_Y;
        return 0;
    }
    if (strcmp(token, "Z") == 0) {
        *out = USD_UP_Z;
        return 0;
    }
    return -1;
}

int usd_geom_stage_matrix(usd_up_axis up, double meters_per_unit, const usd_geom_ctx *ctx, double out[16], pk_diag *d)
{
    assert(out != NULL && d != NULL);
    if (!isfinite(meters_per_unit) || !(meters_per_unit > 0.0)) {
        return fail(ctx, d, "metersPerUnit %g is not a positive finite number", meters_per_unit);
    }
    double s = meters_per_unit;
    memset(out, 0, 16 * sizeof out[0]);
    out[0] = s;
    if (up == USD_UP_Z) {
        /* (x, y, z) -> (x, z, -y): column 1 (the image of y) is (0, 0, -1),
         * column 2 (the image of z) is (0, 1, 0). */
        out[4 + 2] = -s;
        out[8 + 1] = s;
    } else {
        out[5] = s;
        out[10] = s;
    }
    out[15] = 1.0;
    return 0;
}

/* ---- matrices -------------------------------------------------------------- */

void usd_geom_matrix_identity(double out[16])
{
    memset(out, 0, 16 * sizeof out[0]);
    out[0] = out[5] = out[10] = out[15] = 1.0;
}

void usd_geom_matrix_mul(const double a[16], const double b[16], double out[16])
{
    double r[16];
    for (int c = 0; c < 4; c++) {
        for (int i = 0; i < 4; i++) {
            double s = 0.0;
            for (int k = 0; k < 4; k++) {
                s += a[k * 4 + i] * b[c * 4 + k];
            }
            r[c * 4 + i] = s;
        }
    }
    memcpy(out, r, sizeof r);
}

int usd_geom_matrix_invert(const double m[16], double out[16])
{
    /* Gauss-Jordan elimination with partial pivoting on [m | I]. */
    double a[4][8];
    for (int r = 0; r < 4; r++) {
        for (int c = 0; c < 4; c++) {
            a[r][c] = m[c * 4 + r];
            a[r][c + 4] = r == c ? 1.0 : 0.0;
        }
    }
    double big = 0.0;
    for (int i = 0; i < 16; i++) {
        big = fabs(m[i]) > big ? fabs(m[i]) : big;
    }
    if (!isfinite(big) || big == 0.0) {
        return -1;
    }
    double det = 1.0;
    for (int c = 0; c < 4; c++) {
        int piv = c;
        for (int r = c + 1; r < 4; r++) {
            if (fabs(a[r][c]) > fabs(a[piv][c])) {
                piv = r;
            }
        }
        if (!(fabs(a[piv][c]) > 1e-14 * big) || !isfinite(a[piv][c])) {
            return -1;
        }
        if (piv != c) {
            for (int k = 0; k < 8; k++) {
                double x = a[c][k];
                a[c][k] = a[piv][k];
                a[piv][k] = x;
            }
            det = -det;
        }
        double p = a[c][c];
        det *= p;
        for (int k = 0; k < 8; k++) {
            a[c][k] /= p;
        }
        for (int r = 0; r < 4; r++) {
            if (r != c && a[r][c] != 0.0) {
                double f = a[r][c];
                for (int k = 0; k < 8; k++) {
                    a[r][k] -= f * a[c][k];
                }
            }
        }
    }
    if (!isfinite(det)) {
        return -1;
    }
    for (int r = 0; r < 4; r++) {
        for (int c = 0; c < 4; c++) {
            out[c * 4 + r] = a[r][c + 4];
        }
    }
    return 0;
}

void usd_geom_matrix_to_float(const double m[16], float out[16])
{
    for (int i = 0; i < 16; i++) {
        out[i] = (float)m[i];
    }
}
