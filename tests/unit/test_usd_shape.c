/* SPDX-License-Identifier: MIT */
/* USD implicit shapes (tools/pack/usd/usd_shape.c): for every shape, with the
 * schema's fallbacks, other values and each axis, every vertex lies on the
 * analytic surface, the counts are the documented ones, normals are unit
 * and point out of the front face, triangles wind counter-clockwise seen
 * from that side, texture coordinates stay in [0, 1], closed shapes are
 * closed (once positions are welded every edge is shared by exactly two
 * triangles, once each way) and the bounds are the analytic ones; every value
 * that makes no shape fails with its message. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "usd_shape.h"

#define PI 3.14159265358979323846

static const usd_geom_ctx ctx = {"t.usda: </S>", NULL, NULL};

/* ---- the frame and the analytic surface ------------------------------------ */

/* xyz to the shape's frame (u, v, a), independently of the code under test:
 * axis Z (x, y, z); X (y, z, x); Y (z, x, y). */
static void to_frame(usd_shape_axis axis, const float *p, double f[3])
{
    static const int from[3][3] = {{1, 2, 0}, {2, 0, 1}, {0, 1, 2}};
    for (int k = 0; k < 3; k++) {
        f[k] = p[from[axis][k]];
    }
}

/* The latitude at which a capsule's caps meet its side. */
static double capsule_lat0(const usd_shape *s)
{
    return s->height > 0.0 ? asin((s->radius_bottom - s->radius_top) / s->height) : 0.0;
}

/* Distance from f (in the frame) to the analytic surface. */
static double surface_distance(const usd_shape *s, const double f[3])
{
    double rho = hypot(f[0], f[1]), a = f[2], h = s->height * 0.5;
    double rb = s->radius_bottom, rt = s->kind == USD_SHAPE_CONE ? 0.0 : s->radius_top;
    double best = INFINITY;
    switch (s->kind) {
    case USD_SHAPE_CUBE: {
        double m = fmax(fabs(f[0]), fmax(fabs(f[1]), fabs(f[2])));
        return fabs(m - s->size * 0.5);
    }
    case USD_SHAPE_SPHERE:
        return fabs(sqrt(f[0] * f[0] + f[1] * f[1] + a * a) - rb);
    case USD_SHAPE_CYLINDER:
    case USD_SHAPE_CONE:
        if (a >= -h - 1e-9 && a <= h + 1e-9) {
            double want = rb + (rt - rb) * (a + h) / (2.0 * h);
            best = fabs(rho - want) * cos(atan2(rb - rt, 2.0 * h)); /* distance across the slanted side */
        }
        if (rho <= rt + 1e-9) {
            best = fmin(best, fabs(a - h));
        }
        if (rho <= rb + 1e-9) {
            best = fmin(best, fabs(a + h));
        }
        return best;
    case USD_SHAPE_CAPSULE: {
        double lat0 = capsule_lat0(s);
        double db = hypot(rho, a + h), dt = hypot(rho, a - h);
        if (asin((a + h) / fmax(db, 1e-300)) <= lat0 + 1e-6) {
            best = fabs(db - rb); /* on the bottom sphere, below where the side starts */
        }
        if (asin((a - h) / fmax(dt, 1e-300)) >= lat0 - 1e-6) {
            best = fmin(best, fabs(dt - rt));
        }
        return best;
    }
    case USD_SHAPE_PLANE:
    default:
        return fabs(a);
    }
}

/* The analytic box in the frame. */
static void analytic_bounds(const usd_shape *s, double lo[3], double hi[3])
{
    double r = 0.0, a0 = 0.0, a1 = 0.0;
    switch (s->kind) {
    case USD_SHAPE_CUBE:
        r = s->size * 0.5;
        a0 = -r;
        a1 = r;
        break;
    case USD_SHAPE_SPHERE:
        r = s->radius_bottom;
        a0 = -r;
        a1 = r;
        break;
    case USD_SHAPE_CYLINDER:
        r = fmax(s->radius_bottom, s->radius_top);
        a0 = -s->height * 0.5;
        a1 = s->height * 0.5;
        break;
    case USD_SHAPE_CONE:
        r = s->radius_bottom;
        a0 = -s->height * 0.5;
        a1 = s->height * 0.5;
        break;
    case USD_SHAPE_CAPSULE:
        r = fmax(s->radius_bottom, s->radius_top);
        a0 = -s->height * 0.5 - s->radius_bottom;
        a1 = s->height * 0.5 + s->radius_top;
        break;
    case USD_SHAPE_PLANE:
    default: {
        int width_on_u = s->axis == USD_SHAPE_AXIS_Z;
        lo[0] = -(width_on_u ? s->width : s->length) * 0.5;
        lo[1] = -(width_on_u ? s->length : s->width) * 0.5;
        hi[0] = -lo[0];
        hi[1] = -lo[1];
        lo[2] = hi[2] = 0.0;
        return;
    }
    }
    lo[0] = lo[1] = -r;
    hi[0] = hi[1] = r;
    lo[2] = a0;
    hi[2] = a1;
}

/* ---- welding and edges ------------------------------------------------------- */

typedef struct edge {
    uint32_t a, b; /* welded ids, as the triangle walks them */
} edge;

static int cmp_edge(const void *x, const void *y)
{
    const edge *p = x, *q = y;
    uint32_t pa = p->a < p->b ? p->a : p->b, pb = p->a < p->b ? p->b : p->a;
    uint32_t qa = q->a < q->b ? q->a : q->b, qb = q->a < q->b ? q->b : q->a;
    if (pa != qa) {
        return pa < qa ? -1 : 1;
    }
    return pb < qb ? -1 : pb > qb;
}

/* Welded id of each vertex: the first vertex at the same position (exact
 * floats, -0 as 0). */
static uint32_t *weld(const pk_mesh *m)
{
    uint32_t *id = malloc(m->vertex_count * sizeof *id);
    assert_non_null(id);
    for (uint32_t i = 0; i < m->vertex_count; i++) {
        id[i] = i;
        for (uint32_t j = 0; j < i; j++) {
            const float *p = &m->positions[i * 3], *q = &m->positions[j * 3];
            if (p[0] == q[0] && p[1] == q[1] && p[2] == q[2]) {
                id[i] = id[j];
                break;
            }
        }
    }
    return id;
}

/* Every edge of the welded mesh is used by exactly two triangles, once in
 * each direction, and no triangle is degenerate. */
static void expect_closed(const pk_mesh *m, const char *what)
{
    uint32_t *id = weld(m);
    uint32_t n = m->index_count;
    edge *e = malloc(n * sizeof *e);
    assert_non_null(e);
    for (uint32_t t = 0; t < n / 3; t++) {
        for (int k = 0; k < 3; k++) {
            e[t * 3 + (uint32_t)k].a = id[m->indices[t * 3 + (uint32_t)k]];
            e[t * 3 + (uint32_t)k].b = id[m->indices[t * 3 + (uint32_t)(k + 1) % 3]];
        }
        if (e[t * 3].a == e[t * 3].b || e[t * 3 + 1].a == e[t * 3 + 1].b || e[t * 3 + 2].a == e[t * 3 + 2].b) {
            fail_msg("%s: triangle %u is degenerate", what, t);
        }
    }
    qsort(e, n, sizeof *e, cmp_edge);
    for (uint32_t i = 0; i < n;) {
        uint32_t j = i;
        while (j < n && cmp_edge(&e[i], &e[j]) == 0) {
            j++;
        }
        if (j - i != 2 || e[i].a == e[i + 1].a) {
            fail_msg("%s: edge %u-%u is used %u times (%s)", what, e[i].a, e[i].b, j - i,
                     j - i == 2 ? "the same way twice" : "not twice");
        }
        i = j;
    }
    free(e);
    free(id);
}

/* ---- the checks of one shape ------------------------------------------------------ */

static void expect_shape(const usd_shape *s, uint32_t want_vertices, uint32_t want_triangles, const char *what)
{
    pk_mesh m;
    pk_diag d;
    memset(&d, 0, sizeof d);
    if (usd_shape_tessellate(s, &ctx, &m, &d) != 0) {
        fail_msg("%s: %s", what, d.message);
    }
    uint32_t cv = 0, ct = 0;
    usd_shape_counts(s, &cv, &ct);
    if (m.vertex_count != want_vertices || m.index_count != want_triangles * 3 || cv != want_vertices ||
        ct != want_triangles) {
        fail_msg("%s: %u vertices and %u triangles (counts say %u and %u), want %u and %u", what, m.vertex_count,
                 m.index_count / 3, cv, ct, want_vertices, want_triangles);
    }
    assert_non_null(m.normals);
    assert_non_null(m.uvs);
    double lo[3], hi[3], alo[3], ahi[3];
    analytic_bounds(s, alo, ahi);
    double scale = fmax(fmax(ahi[0] - alo[0], ahi[1] - alo[1]), ahi[2] - alo[2]);
    double tol = 1e-5 * scale;
    for (int k = 0; k < 3; k++) {
        lo[k] = INFINITY;
        hi[k] = -INFINITY;
    }
    double front = s->left_handed ? -1.0 : 1.0;
    for (uint32_t i = 0; i < m.vertex_count; i++) {
        double f[3], n[3];
        to_frame(s->axis, &m.positions[i * 3], f);
        to_frame(s->axis, &m.normals[i * 3], n);
        double dist = surface_distance(s, f);
        if (!(dist < tol)) {
            fail_msg("%s: vertex %u (%g, %g, %g) is %g off the surface", what, i, f[0], f[1], f[2], dist);
        }
        double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        if (!(fabs(len - 1.0) < 1e-5)) {
            fail_msg("%s: normal %u has length %g", what, i, len);
        }
        /* Convex and around the origin: the outward normal has n . p > 0. A plane's front is +axis. */
        double out = s->kind == USD_SHAPE_PLANE ? n[2] : n[0] * f[0] + n[1] * f[1] + n[2] * f[2];
        if (s->kind != USD_SHAPE_PLANE && !(front * out > 0.0)) {
            fail_msg("%s: normal %u (%g, %g, %g) at (%g, %g, %g) does not point %s", what, i, n[0], n[1], n[2], f[0],
                     f[1], f[2], front > 0 ? "out" : "in");
        }
        if (s->kind == USD_SHAPE_PLANE && !(fabs(fabs(out) - 1.0) < 1e-6)) {
            fail_msg("%s: normal %u is not along the axis", what, i);
        }
        for (int k = 0; k < 2; k++) {
            float t = m.uvs[i * 2 + (uint32_t)k];
            if (!(t >= 0.0f && t <= 1.0f)) {
                fail_msg("%s: uv %u[%d] = %g", what, i, k, (double)t);
            }
        }
        for (int k = 0; k < 3; k++) {
            lo[k] = fmin(lo[k], f[k]);
            hi[k] = fmax(hi[k], f[k]);
        }
    }
    /* Winding: counter-clockwise seen from the side the normals point to. */
    for (uint32_t t = 0; t < m.index_count / 3; t++) {
        double p[3][3], nsum[3] = {0, 0, 0};
        for (int c = 0; c < 3; c++) {
            uint32_t v = m.indices[t * 3 + (uint32_t)c];
            assert_true(v < m.vertex_count);
            double nn[3];
            to_frame(s->axis, &m.positions[v * 3], p[c]);
            to_frame(s->axis, &m.normals[v * 3], nn);
            for (int k = 0; k < 3; k++) {
                nsum[k] += nn[k];
            }
        }
        double e1[3], e2[3];
        for (int k = 0; k < 3; k++) {
            e1[k] = p[1][k] - p[0][k];
            e2[k] = p[2][k] - p[0][k];
        }
        double g[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
        if (!(g[0] * nsum[0] + g[1] * nsum[1] + g[2] * nsum[2] > 0.0)) {
            fail_msg("%s: triangle %u winds against its normals", what, t);
        }
    }
    /* Bounds: exact, except where a capsule's caps differ in radius: the larger cap's equator then falls between
     * two rings, by at most the sagitta of one ring step. */
    double radial_tol = tol;
    if (s->kind == USD_SHAPE_CAPSULE && s->radius_top != s->radius_bottom) {
        double step = (PI * 0.5 + fabs(capsule_lat0(s))) / USD_SHAPE_CAPSULE_CAP_RINGS;
        radial_tol = fmax(s->radius_top, s->radius_bottom) * (1.0 - cos(step)) + tol;
    }
    for (int k = 0; k < 3; k++) {
        double kt = k < 2 ? radial_tol : tol;
        if (!(fabs(lo[k] - alo[k]) < kt && fabs(hi[k] - ahi[k]) < kt)) {
            fail_msg("%s: bounds[%d] [%g, %g], analytic [%g, %g]", what, k, lo[k], hi[k], alo[k], ahi[k]);
        }
    }
    if (s->kind != USD_SHAPE_PLANE) {
        expect_closed(&m, what);
    }
    pk_mesh_free(&m);
}

static usd_shape make(usd_shape_kind kind, usd_shape_axis axis)
{
    usd_shape s;
    usd_shape_init(kind, &s);
    s.axis = axis;
    return s;
}

static void set(usd_shape *s, const char *name, double v)
{
    pk_diag d;
    if (usd_shape_set(s, name, v, &ctx, &d) != 0) {
        fail_msg("%s = %g: %s", name, v, d.message);
    }
}

static const char *const axis_name[] = {"X", "Y", "Z"};

/* ---- the shapes -------------------------------------------------------------------- */

static void test_fallbacks_are_the_schemas(void **state)
{
    (void)state;
    usd_shape s;
    usd_shape_init(USD_SHAPE_CUBE, &s);
    assert_true(s.size == 2.0 && s.axis == USD_SHAPE_AXIS_Z && !s.left_handed);
    usd_shape_init(USD_SHAPE_SPHERE, &s);
    assert_true(s.radius_top == 1.0 && s.radius_bottom == 1.0);
    usd_shape_init(USD_SHAPE_CYLINDER, &s);
    assert_true(s.radius_top == 1.0 && s.radius_bottom == 1.0 && s.height == 2.0);
    usd_shape_init(USD_SHAPE_CONE, &s);
    assert_true(s.radius_top == 0.0 && s.radius_bottom == 1.0 && s.height == 2.0);
    usd_shape_init(USD_SHAPE_CAPSULE, &s);
    assert_true(s.radius_top == 0.5 && s.radius_bottom == 0.5 && s.height == 1.0);
    usd_shape_init(USD_SHAPE_PLANE, &s);
    assert_true(s.width == 2.0 && s.length == 2.0 && s.double_sided);
    static const char *const types[] = {"Cube", "Sphere",  "Cylinder",  "Cylinder_1",
                                        "Cone", "Capsule", "Capsule_1", "Plane"};
    static const usd_shape_kind kinds[] = {USD_SHAPE_CUBE, USD_SHAPE_SPHERE,  USD_SHAPE_CYLINDER, USD_SHAPE_CYLINDER,
                                           USD_SHAPE_CONE, USD_SHAPE_CAPSULE, USD_SHAPE_CAPSULE,  USD_SHAPE_PLANE};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        usd_shape_kind k = USD_SHAPE_PLANE;
        assert_int_equal(usd_shape_kind_parse(types[i], &k), 0);
        assert_int_equal(k, kinds[i]);
    }
    usd_shape_kind k = USD_SHAPE_CUBE;
    assert_int_equal(usd_shape_kind_parse("Mesh", &k), -1);
    assert_int_equal(usd_shape_kind_parse("cube", &k), -1);
    assert_int_equal(k, USD_SHAPE_CUBE);
}

static void test_cube(void **state)
{
    (void)state;
    usd_shape s = make(USD_SHAPE_CUBE, USD_SHAPE_AXIS_Z);
    expect_shape(&s, 24, 12, "cube");
    set(&s, "size", 0.25);
    expect_shape(&s, 24, 12, "cube 0.25");
    s.left_handed = 1;
    expect_shape(&s, 24, 12, "cube leftHanded");
}

static void test_cube_normals_are_flat_and_uvs_cover_each_face(void **state)
{
    (void)state;
    usd_shape s = make(USD_SHAPE_CUBE, USD_SHAPE_AXIS_Z);
    pk_mesh m;
    pk_diag d;
    assert_int_equal(usd_shape_tessellate(&s, &ctx, &m, &d), 0);
    for (uint32_t f = 0; f < 6; f++) {
        float umin = 1, umax = 0, vmin = 1, vmax = 0;
        for (uint32_t k = 0; k < 4; k++) {
            const float *n = &m.normals[(f * 4 + k) * 3], *n0 = &m.normals[f * 4 * 3];
            assert_true(n[0] == n0[0] && n[1] == n0[1] && n[2] == n0[2]);
            assert_true(fabsf(n[0]) + fabsf(n[1]) + fabsf(n[2]) == 1.0f);
            umin = fminf(umin, m.uvs[(f * 4 + k) * 2]);
            umax = fmaxf(umax, m.uvs[(f * 4 + k) * 2]);
            vmin = fminf(vmin, m.uvs[(f * 4 + k) * 2 + 1]);
            vmax = fmaxf(vmax, m.uvs[(f * 4 + k) * 2 + 1]);
        }
        assert_true(umin == 0.0f && umax == 1.0f && vmin == 0.0f && vmax == 1.0f);
    }
    pk_mesh_free(&m);
}

static void test_sphere(void **state)
{
    (void)state;
    const uint32_t S = USD_SHAPE_SEGMENTS, R = USD_SHAPE_SPHERE_RINGS;
    uint32_t nv = 2 * S + (R - 1) * (S + 1), nt = 2 * S + 2 * S * (R - 2);
    assert_int_equal(nv, 559);
    assert_int_equal(nt, 960);
    usd_shape s = make(USD_SHAPE_SPHERE, USD_SHAPE_AXIS_Z);
    expect_shape(&s, nv, nt, "sphere");
    set(&s, "radius", 2.5);
    expect_shape(&s, nv, nt, "sphere 2.5");
    s.left_handed = 1;
    expect_shape(&s, nv, nt, "sphere leftHanded");
}

static void test_sphere_normals_are_the_unit_position(void **state)
{
    (void)state;
    usd_shape s = make(USD_SHAPE_SPHERE, USD_SHAPE_AXIS_Z);
    set(&s, "radius", 3.0);
    pk_mesh m;
    pk_diag d;
    assert_int_equal(usd_shape_tessellate(&s, &ctx, &m, &d), 0);
    for (uint32_t i = 0; i < m.vertex_count; i++) {
        for (int k = 0; k < 3; k++) {
            assert_true(fabsf(m.normals[i * 3 + (uint32_t)k] - m.positions[i * 3 + (uint32_t)k] / 3.0f) < 1e-6f);
        }
    }
    /* The poles are fans: the first S and last S vertices sit at the poles. */
    for (uint32_t j = 0; j < USD_SHAPE_SEGMENTS; j++) {
        assert_true(m.positions[j * 3 + 2] == -3.0f);
        assert_true(m.positions[(m.vertex_count - 1 - j) * 3 + 2] == 3.0f);
    }
    pk_mesh_free(&m);
}

static void test_cylinder_every_axis(void **state)
{
    (void)state;
    const uint32_t S = USD_SHAPE_SEGMENTS;
    assert_int_equal(4 * (S + 1), 132);
    for (int a = 0; a < 3; a++) {
        char what[64];
        usd_shape s = make(USD_SHAPE_CYLINDER, (usd_shape_axis)a);
        snprintf(what, sizeof what, "cylinder axis %s", axis_name[a]);
        expect_shape(&s, 4 * (S + 1), 4 * S, what);
        set(&s, "radius", 0.5);
        set(&s, "height", 3.0);
        snprintf(what, sizeof what, "cylinder 0.5 x 3 axis %s", axis_name[a]);
        expect_shape(&s, 4 * (S + 1), 4 * S, what);
        /* Cylinder_1: radiusTop and radiusBottom, after radius, win over it. */
        set(&s, "radius", 9.0);
        set(&s, "radiusTop", 0.5);
        set(&s, "radiusBottom", 1.5);
        assert_true(s.radius_top == 0.5 && s.radius_bottom == 1.5);
        snprintf(what, sizeof what, "frustum axis %s", axis_name[a]);
        expect_shape(&s, 4 * (S + 1), 4 * S, what);
        s.left_handed = 1;
        expect_shape(&s, 4 * (S + 1), 4 * S, "frustum leftHanded");
    }
}

static void test_cylinder_side_normals_tilt_by_the_slope(void **state)
{
    (void)state;
    usd_shape s = make(USD_SHAPE_CYLINDER, USD_SHAPE_AXIS_Z);
    set(&s, "radiusTop", 1.0);
    set(&s, "radiusBottom", 2.0);
    set(&s, "height", 1.0);
    pk_mesh m;
    pk_diag d;
    assert_int_equal(usd_shape_tessellate(&s, &ctx, &m, &d), 0);
    /* The first ring is the side's bottom: at angle 0 the normal is (1, 0, 1) / sqrt 2. */
    assert_true(fabsf(m.normals[0] - 0.70710678f) < 1e-6f && fabsf(m.normals[1]) < 1e-6f &&
                fabsf(m.normals[2] - 0.70710678f) < 1e-6f);
    pk_mesh_free(&m);
}

static void test_cone_every_axis(void **state)
{
    (void)state;
    const uint32_t S = USD_SHAPE_SEGMENTS;
    assert_int_equal(3 * S + 2, 98);
    for (int a = 0; a < 3; a++) {
        char what[64];
        usd_shape s = make(USD_SHAPE_CONE, (usd_shape_axis)a);
        snprintf(what, sizeof what, "cone axis %s", axis_name[a]);
        expect_shape(&s, 3 * S + 2, 2 * S, what);
        set(&s, "radius", 2.0);
        set(&s, "height", 1.0);
        snprintf(what, sizeof what, "cone 2 x 1 axis %s", axis_name[a]);
        expect_shape(&s, 3 * S + 2, 2 * S, what);
    }
    /* The apex is at +height/2 on the axis. */
    usd_shape s = make(USD_SHAPE_CONE, USD_SHAPE_AXIS_Y);
    pk_mesh m;
    pk_diag d;
    assert_int_equal(usd_shape_tessellate(&s, &ctx, &m, &d), 0);
    float top = -INFINITY;
    for (uint32_t i = 0; i < m.vertex_count; i++) {
        top = fmaxf(top, m.positions[i * 3 + 1]);
    }
    assert_true(top == 1.0f);
    for (uint32_t i = 0; i < m.vertex_count; i++) {
        if (m.positions[i * 3 + 1] == top) {
            assert_true(m.positions[i * 3] == 0.0f && m.positions[i * 3 + 2] == 0.0f);
        }
    }
    pk_mesh_free(&m);
}

static void test_capsule_every_axis(void **state)
{
    (void)state;
    const uint32_t S = USD_SHAPE_SEGMENTS, N = 2 * USD_SHAPE_CAPSULE_CAP_RINGS;
    uint32_t nv = 2 * S + N * (S + 1), nt = 2 * S + 2 * S * (N - 1);
    assert_int_equal(nv, 592);
    assert_int_equal(nt, 1024);
    for (int a = 0; a < 3; a++) {
        char what[64];
        usd_shape s = make(USD_SHAPE_CAPSULE, (usd_shape_axis)a);
        snprintf(what, sizeof what, "capsule axis %s", axis_name[a]);
        expect_shape(&s, nv, nt, what);
        set(&s, "radius", 1.0);
        set(&s, "height", 4.0);
        snprintf(what, sizeof what, "capsule 1 x 4 axis %s", axis_name[a]);
        expect_shape(&s, nv, nt, what);
        /* Capsule_1 with different caps: the side is tangent to both spheres. */
        set(&s, "radiusTop", 0.3);
        set(&s, "radiusBottom", 0.6);
        set(&s, "height", 1.0);
        snprintf(what, sizeof what, "capsule_1 0.3/0.6 axis %s", axis_name[a]);
        expect_shape(&s, nv, nt, what);
        set(&s, "radiusTop", 0.9);
        s.left_handed = 1;
        snprintf(what, sizeof what, "capsule_1 0.9/0.6 leftHanded axis %s", axis_name[a]);
        expect_shape(&s, nv, nt, what);
    }
}

static void test_capsule_of_height_zero_is_a_sphere(void **state)
{
    (void)state;
    const uint32_t S = USD_SHAPE_SEGMENTS, N = 2 * USD_SHAPE_CAPSULE_CAP_RINGS - 1;
    usd_shape s = make(USD_SHAPE_CAPSULE, USD_SHAPE_AXIS_Z);
    set(&s, "height", 0.0);
    expect_shape(&s, 2 * S + N * (S + 1), 2 * S + 2 * S * (N - 1), "capsule of height 0");
}

static void test_plane_every_axis(void **state)
{
    (void)state;
    for (int a = 0; a < 3; a++) {
        char what[64];
        usd_shape s = make(USD_SHAPE_PLANE, (usd_shape_axis)a);
        snprintf(what, sizeof what, "plane axis %s", axis_name[a]);
        expect_shape(&s, 8, 4, what);
        set(&s, "width", 3.0);
        set(&s, "length", 1.0);
        s.double_sided = 0;
        snprintf(what, sizeof what, "plane 3 x 1 axis %s", axis_name[a]);
        expect_shape(&s, 4, 2, what);
        /* The schema's table: width along X for axis Y and Z, along Z for X; length along Y for X and Z, Z for Y. */
        pk_mesh m;
        pk_diag d;
        assert_int_equal(usd_shape_tessellate(&s, &ctx, &m, &d), 0);
        float hi[3] = {0, 0, 0};
        for (uint32_t i = 0; i < m.vertex_count; i++) {
            for (int k = 0; k < 3; k++) {
                hi[k] = fmaxf(hi[k], m.positions[i * 3 + (uint32_t)k]);
            }
            /* The front faces +axis. */
            assert_true(m.normals[i * 3 + (uint32_t)a] == 1.0f);
        }
        static const int width_axis[3] = {2, 0, 0}, length_axis[3] = {1, 2, 1};
        assert_true(hi[width_axis[a]] == 1.5f);
        assert_true(hi[length_axis[a]] == 0.5f);
        assert_true(hi[a] == 0.0f);
        pk_mesh_free(&m);
    }
}

static void test_double_sided_plane_has_a_back_face(void **state)
{
    (void)state;
    usd_shape s = make(USD_SHAPE_PLANE, USD_SHAPE_AXIS_Z);
    pk_mesh m;
    pk_diag d;
    assert_int_equal(usd_shape_tessellate(&s, &ctx, &m, &d), 0);
    assert_int_equal(m.vertex_count, 8);
    for (uint32_t i = 0; i < 8; i++) {
        assert_true(m.normals[i * 3 + 2] == (i < 4 ? 1.0f : -1.0f));
    }
    /* The back triangles wind against the front ones: expect_shape checks each against its normals. */
    expect_shape(&s, 8, 4, "double-sided plane");
    pk_mesh_free(&m);
}

/* ---- values that make no shape --------------------------------------------------------- */

static void expect_set_error(usd_shape_kind kind, const char *name, double v, const char *want)
{
    usd_shape s = make(kind, USD_SHAPE_AXIS_Z), before = s;
    pk_diag d;
    memset(&d, 0, sizeof d);
    assert_int_equal(usd_shape_set(&s, name, v, &ctx, &d), -1);
    assert_string_equal(d.message, want);
    assert_memory_equal(&s, &before, sizeof s);
}

static void test_values_that_make_no_shape_are_refused(void **state)
{
    (void)state;
    expect_set_error(USD_SHAPE_SPHERE, "radius", -1.0,
                     "t.usda: </S>: radius: -1 makes no shape (a finite number above 0 is needed)");
    expect_set_error(USD_SHAPE_SPHERE, "radius", 0.0,
                     "t.usda: </S>: radius: 0 makes no shape (a finite number above 0 is needed)");
    expect_set_error(USD_SHAPE_CUBE, "size", NAN,
                     "t.usda: </S>: size: nan makes no shape (a finite number above 0 is needed)");
    expect_set_error(USD_SHAPE_CYLINDER, "radiusTop", INFINITY,
                     "t.usda: </S>: radiusTop: inf makes no shape (a finite number above 0 is needed)");
    expect_set_error(USD_SHAPE_CYLINDER, "height", 0.0,
                     "t.usda: </S>: height: 0 makes no shape (a finite number above 0 is needed)");
    expect_set_error(USD_SHAPE_CONE, "height", -2.0,
                     "t.usda: </S>: height: -2 makes no shape (a finite number above 0 is needed)");
    expect_set_error(USD_SHAPE_CAPSULE, "height", -0.5,
                     "t.usda: </S>: height: -0.5 makes no shape (a finite number at or above 0 is needed)");
    expect_set_error(USD_SHAPE_PLANE, "width", -INFINITY,
                     "t.usda: </S>: width: -inf makes no shape (a finite number above 0 is needed)");
    expect_set_error(USD_SHAPE_PLANE, "length", 0.0,
                     "t.usda: </S>: length: 0 makes no shape (a finite number above 0 is needed)");

    usd_shape s = make(USD_SHAPE_CYLINDER, USD_SHAPE_AXIS_Y);
    pk_diag d;
    assert_int_equal(usd_shape_set_axis(&s, "W", &ctx, &d), -1);
    assert_string_equal(d.message, "t.usda: </S>: axis: 'W' is not X, Y or Z");
    assert_int_equal(usd_shape_set_axis(&s, "x", &ctx, &d), -1);
    assert_int_equal(usd_shape_set_axis(&s, "XY", &ctx, &d), -1);
    assert_int_equal(usd_shape_set_axis(&s, "", &ctx, &d), -1);
    assert_string_equal(d.message, "t.usda: </S>: axis: '' is not X, Y or Z");
    assert_int_equal(s.axis, USD_SHAPE_AXIS_Y);
    assert_int_equal(usd_shape_set_axis(&s, "X", &ctx, &d), 0);
    assert_int_equal(s.axis, USD_SHAPE_AXIS_X);

    /* Capsule caps that no side can join. */
    s = make(USD_SHAPE_CAPSULE, USD_SHAPE_AXIS_Z);
    set(&s, "radiusTop", 2.0);
    set(&s, "radiusBottom", 0.5);
    const char *want = "t.usda: </S>: radiusTop 2 and radiusBottom 0.5 differ by 1.5, not less than height 1: no side "
                       "is tangent to both caps";
    assert_int_equal(usd_shape_check(&s, &ctx, &d), -1);
    assert_string_equal(d.message, want);
    pk_mesh m;
    assert_int_equal(usd_shape_tessellate(&s, &ctx, &m, &d), -1);
    assert_string_equal(d.message, want);
    assert_null(m.positions);
    set(&s, "height", 0.0);
    set(&s, "radiusTop", 0.5);
    assert_int_equal(usd_shape_check(&s, &ctx, &d), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fallbacks_are_the_schemas),
        cmocka_unit_test(test_cube),
        cmocka_unit_test(test_cube_normals_are_flat_and_uvs_cover_each_face),
        cmocka_unit_test(test_sphere),
        cmocka_unit_test(test_sphere_normals_are_the_unit_position),
        cmocka_unit_test(test_cylinder_every_axis),
        cmocka_unit_test(test_cylinder_side_normals_tilt_by_the_slope),
        cmocka_unit_test(test_cone_every_axis),
        cmocka_unit_test(test_capsule_every_axis),
        cmocka_unit_test(test_capsule_of_height_zero_is_a_sphere),
        cmocka_unit_test(test_plane_every_axis),
        cmocka_unit_test(test_double_sided_plane_has_a_back_face),
        cmocka_unit_test(test_values_that_make_no_shape_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
