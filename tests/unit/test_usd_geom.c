/* SPDX-License-Identifier: MIT */
/* USD geometry (tools/pack/usd_geom.c): triangulation, primvars and vertex
 * splitting, xformOp stacks, stage units; every error with its message. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "usd_geom.h"

#define PI 3.14159265358979323846

static const usd_geom_ctx ctx = {"t.usda: /M", NULL, NULL};

/* Warnings, collected. */
static char warned[4][512];
static int warn_count;

static void on_warn(void *user, const char *message)
{
    (void)user;
    if (warn_count < 4) {
        snprintf(warned[warn_count], sizeof warned[0], "%s", message);
    }
    warn_count++;
}

static const usd_geom_ctx wctx = {"t.usda: /M", on_warn, NULL};

static void reset_warnings(void)
{
    warn_count = 0;
    memset(warned, 0, sizeof warned);
}

/* ---- geometry helpers ------------------------------------------------- */

/* Twice the signed area of triangle t, along normal n. */
static double tri_area2(const usd_mesh_topology *t, const usd_triangles *tr, uint32_t i, const double n[3])
{
    const float *p[3];
    for (int k = 0; k < 3; k++) {
        p[k] = t->points + 3 * t->face_vertex_indices[tr->corners[3 * i + k]];
    }
    double a[3], b[3];
    for (int k = 0; k < 3; k++) {
        a[k] = (double)p[1][k] - p[0][k];
        b[k] = (double)p[2][k] - p[0][k];
    }
    double c[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
    return c[0] * n[0] + c[1] * n[1] + c[2] * n[2];
}

/* Shoelace area of a 2D polygon. */
static double poly_area(const double *xy, uint32_t n)
{
    double s = 0.0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t j = (i + 1) % n;
        s += xy[2 * i] * xy[2 * j + 1] - xy[2 * j] * xy[2 * i + 1];
    }
    return s / 2.0;
}

/* A single face from 2D points placed in the plane spanned by u and v
 * (points[3 i] = o + x u + y v). */
typedef struct one_face {
    float points[3 * 64];
    int32_t counts[1];
    int32_t indices[64];
    usd_mesh_topology t;
} one_face;

static void make_face(one_face *f, const double *xy, uint32_t n, const double u[3], const double v[3])
{
    memset(f, 0, sizeof *f);
    for (uint32_t i = 0; i < n; i++) {
        for (int k = 0; k < 3; k++) {
            f->points[3 * i + k] = (float)(xy[2 * i] * u[k] + xy[2 * i + 1] * v[k] + 0.25 * (k + 1));
        }
        f->indices[i] = (int32_t)i;
    }
    f->counts[0] = (int32_t)n;
    f->t.face_vertex_counts = f->counts;
    f->t.face_count = 1;
    f->t.face_vertex_indices = f->indices;
    f->t.index_count = n;
    f->t.points = f->points;
    f->t.point_count = n;
}

/* Every triangle strictly positive along n, the areas summing to area. */
static void check_tiling(const usd_mesh_topology *t, const usd_triangles *tr, const double n[3], double area)
{
    double sum = 0.0;
    for (uint32_t i = 0; i < tr->count; i++) {
        double a = tri_area2(t, tr, i, n) / 2.0;
        if (!(a > 1e-6)) {
            fail_msg("triangle %u has area %g along the normal", i, a);
        }
        sum += a;
    }
    assert_true(fabs(sum - area) < 1e-4 * area);
}

static const double ex[3] = {1, 0, 0}, ey[3] = {0, 1, 0}, ez[3] = {0, 0, 1};

/* ---- triangulation ---------------------------------------------------- */

static void test_quad_gives_two_fan_triangles(void **state)
{
    (void)state;
    static const double xy[] = {0, 0, 1, 0, 1, 1, 0, 1};
    one_face f;
    make_face(&f, xy, 4, ex, ey);
    usd_triangles tr;
    pk_diag d = {{0}};
    assert_int_equal(usd_geom_triangulate(&f.t, &ctx, &tr, &d), 0);
    assert_int_equal(tr.count, 2);
    static const uint32_t want[] = {0, 1, 2, 0, 2, 3};
    assert_memory_equal(tr.corners, want, sizeof want);
    assert_int_equal(tr.faces[0], 0);
    assert_int_equal(tr.faces[1], 0);
    usd_triangles_free(&tr);
}

static void test_convex_pentagon_is_a_fan(void **state)
{
    (void)state;
    double xy[10];
    for (int i = 0; i < 5; i++) {
        xy[2 * i] = cos(2 * PI * i / 5);
        xy[2 * i + 1] = sin(2 * PI * i / 5);
    }
    one_face f;
    make_face(&f, xy, 5, ey, ez); /* in the YZ plane, normal +X */
    usd_triangles tr;
    pk_diag d = {{0}};
    assert_int_equal(usd_geom_triangulate(&f.t, &ctx, &tr, &d), 0);
    assert_int_equal(tr.count, 3);
    static const uint32_t want[] = {0, 1, 2, 0, 2, 3, 0, 3, 4};
    assert_memory_equal(tr.corners, want, sizeof want);
    check_tiling(&f.t, &tr, ex, poly_area(xy, 5));
    usd_triangles_free(&tr);
}

static void test_concave_l_is_ear_clipped(void **state)
{
    (void)state;
    /* Starting at (2, 0): a fan from there would cross the notch. */
    static const double xy[] = {2, 0, 2, 1, 1, 1, 1, 2, 0, 2, 0, 0};
    one_face f;
    make_face(&f, xy, 6, ez, ex); /* in the ZX plane, normal +Y */
    usd_triangles tr;
    pk_diag d = {{0}};
    assert_int_equal(usd_geom_triangulate(&f.t, &ctx, &tr, &d), 0);
    assert_int_equal(tr.count, 4);
    check_tiling(&f.t, &tr, ey, 3.0);
    usd_triangles_free(&tr);

    /* The same L wound the other way faces -Y: still a tiling, along -Y. */
    double rev[12];
    for (int i = 0; i < 6; i++) {
        rev[2 * i] = xy[2 * (5 - i)];
        rev[2 * i + 1] = xy[2 * (5 - i) + 1];
    }
    make_face(&f, rev, 6, ez, ex);
    assert_int_equal(usd_geom_triangulate(&f.t, &ctx, &tr, &d), 0);
    static const double neg_y[3] = {0, -1, 0};
    check_tiling(&f.t, &tr, neg_y, 3.0);
    usd_triangles_free(&tr);
}

static void test_star_in_a_tilted_plane_is_ear_clipped(void **state)
{
    (void)state;
    double xy[20];
    for (int i = 0; i < 10; i++) {
        double r = i % 2 ? 0.4 : 1.0;
        xy[2 * i] = r * cos(2 * PI * i / 10 + 0.3);
        xy[2 * i + 1] = r * sin(2 * PI * i / 10 + 0.3);
    }
    const double s = 1.0 / sqrt(2.0), t3 = 1.0 / sqrt(6.0);
    const double u[3] = {s, -s, 0}, v[3] = {t3, t3, -2 * t3};
    /* normal = u x v */
    const double n[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
    one_face f;
    make_face(&f, xy, 10, u, v);
    usd_triangles tr;
    pk_diag d = {{0}};
    assert_int_equal(usd_geom_triangulate(&f.t, &ctx, &tr, &d), 0);
    assert_int_equal(tr.count, 8);
    check_tiling(&f.t, &tr, n, poly_area(xy, 10));
    usd_triangles_free(&tr);
}

/* usd-wg schemaTests/usdGeom/meshes/mixed.usda: 1 quad + 10 triangles. */
static const int32_t mixed_counts[] = {4, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3};
static const int32_t mixed_indices[] = {0, 4, 6, 2, 0, 1, 5, 0, 5, 4, 4, 5, 7, 4, 7, 6, 3,
                                        7, 5, 3, 5, 1, 6, 7, 3, 6, 3, 2, 2, 3, 1, 2, 1, 0};
static const float cube_points[] = {-0.5f, -0.5f, -0.5f, 0.5f, -0.5f, -0.5f, -0.5f, 0.5f, -0.5f, 0.5f, 0.5f, -0.5f,
                                    -0.5f, -0.5f, 0.5f,  0.5f, -0.5f, 0.5f,  -0.5f, 0.5f, 0.5f,  0.5f, 0.5f, 0.5f};

static void test_mixed_counts_give_twelve_triangles(void **state)
{
    (void)state;
    usd_mesh_topology t = {mixed_counts, 11, mixed_indices, 34, cube_points, 8, NULL, 0, 0};
    usd_triangles tr;
    pk_diag d = {{0}};
    assert_int_equal(usd_geom_triangulate(&t, &ctx, &tr, &d), 0);
    assert_int_equal(tr.count, 12);
    assert_int_equal(tr.faces[0], 0);
    assert_int_equal(tr.faces[1], 0);
    for (uint32_t i = 2; i < 12; i++) {
        assert_int_equal(tr.faces[i], i - 1);
        for (uint32_t k = 0; k < 3; k++) {
            assert_int_equal(tr.corners[3 * i + k], 4 + 3 * (i - 2) + k);
        }
    }
    usd_triangles_free(&tr);
}

/* The cube of complex_transform.usda: 6 quads. */
static const int32_t cube_counts[] = {4, 4, 4, 4, 4, 4};
static const int32_t cube_indices[] = {0, 4, 6, 2, 0, 1, 5, 4, 4, 5, 7, 6, 3, 7, 5, 1, 6, 7, 3, 2, 2, 3, 1, 0};

static void test_holes_skip_their_faces(void **state)
{
    (void)state;
    static const int32_t holes[] = {0, 4, 4};
    usd_mesh_topology t = {cube_counts, 6, cube_indices, 24, cube_points, 8, holes, 3, 0};
    usd_triangles tr;
    pk_diag d = {{0}};
    assert_int_equal(usd_geom_triangulate(&t, &ctx, &tr, &d), 0);
    assert_int_equal(tr.count, 8);
    static const uint32_t faces[] = {1, 1, 2, 2, 3, 3, 5, 5};
    assert_memory_equal(tr.faces, faces, sizeof faces);
    assert_int_equal(tr.corners[0], 4);
    usd_triangles_free(&tr);
}

static void test_left_handed_reverses_winding(void **state)
{
    (void)state;
    static const double xy[] = {0, 0, 0, 1, 1, 1, 1, 0}; /* clockwise seen from +Z */
    one_face f;
    make_face(&f, xy, 4, ex, ey);
    f.t.left_handed = 1;
    usd_triangles tr;
    pk_diag d = {{0}};
    assert_int_equal(usd_geom_triangulate(&f.t, &ctx, &tr, &d), 0);
    assert_int_equal(tr.count, 2);
    static const uint32_t want[] = {0, 2, 1, 0, 3, 2};
    assert_memory_equal(tr.corners, want, sizeof want);
    check_tiling(&f.t, &tr, ez, 1.0); /* front faces +Z, counter-clockwise */
    usd_triangles_free(&tr);
}

static void test_degenerate_polygons_are_fanned(void **state)
{
    (void)state;
    usd_triangles tr;
    pk_diag d = {{0}};
    one_face f;
    static const double line[] = {0, 0, 1, 0, 2, 0, 3, 0, 4, 0};
    make_face(&f, line, 5, ex, ey);
    assert_int_equal(usd_geom_triangulate(&f.t, &ctx, &tr, &d), 0);
    static const uint32_t fan5[] = {0, 1, 2, 0, 2, 3, 0, 3, 4};
    assert_int_equal(tr.count, 3);
    assert_memory_equal(tr.corners, fan5, sizeof fan5);
    usd_triangles_free(&tr);

    static const double dot[] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    make_face(&f, dot, 5, ex, ey);
    assert_int_equal(usd_geom_triangulate(&f.t, &ctx, &tr, &d), 0);
    assert_int_equal(tr.count, 3);
    assert_memory_equal(tr.corners, fan5, sizeof fan5);
    usd_triangles_free(&tr);

    make_face(&f, line, 5, ex, ey);
    f.points[4] = NAN;
    assert_int_equal(usd_geom_triangulate(&f.t, &ctx, &tr, &d), 0);
    assert_int_equal(tr.count, 3);
    usd_triangles_free(&tr);

    /* Self-intersecting: a pentagram and a bow tie end with n - 2 triangles. */
    double star[10];
    for (int i = 0; i < 5; i++) {
        star[2 * i] = cos(4 * PI * i / 5);
        star[2 * i + 1] = sin(4 * PI * i / 5);
    }
    make_face(&f, star, 5, ex, ey);
    assert_int_equal(usd_geom_triangulate(&f.t, &ctx, &tr, &d), 0);
    assert_int_equal(tr.count, 3);
    usd_triangles_free(&tr);
    static const double bow[] = {0, 0, 1, 1, 1, 0, 0, 1, 0.5, 2, -1, 3};
    make_face(&f, bow, 6, ex, ey);
    assert_int_equal(usd_geom_triangulate(&f.t, &ctx, &tr, &d), 0);
    assert_int_equal(tr.count, 4);
    for (uint32_t i = 0; i < 12; i++) {
        assert_true(tr.corners[i] < 6);
    }
    usd_triangles_free(&tr);
}

static void test_polygon_over_the_bound_is_fanned_with_a_warning(void **state)
{
    (void)state;
    uint32_t n = USD_GEOM_MAX_EAR_CLIP_VERTICES + 1;
    float *pts = malloc(3 * sizeof(float) * n);
    int32_t *idx = malloc(sizeof(int32_t) * n);
    assert_non_null(pts);
    assert_non_null(idx);
    for (uint32_t i = 0; i < n; i++) {
        /* concave: a fan would be wrong, but it is what the bound promises */
        double r = i % 2 ? 0.5 : 1.0;
        pts[3 * i] = (float)(r * cos(2 * PI * i / n));
        pts[3 * i + 1] = (float)(r * sin(2 * PI * i / n));
        pts[3 * i + 2] = 0;
        idx[i] = (int32_t)i;
    }
    int32_t count = (int32_t)n;
    usd_mesh_topology t = {&count, 1, idx, n, pts, n, NULL, 0, 0};
    usd_triangles tr;
    pk_diag d = {{0}};
    reset_warnings();
    assert_int_equal(usd_geom_triangulate(&t, &wctx, &tr, &d), 0);
    assert_int_equal(tr.count, n - 2);
    assert_int_equal(tr.corners[3 * (n - 3) + 2], n - 1);
    assert_int_equal(warn_count, 1);
    assert_string_equal(warned[0], "t.usda: /M: face 0: concave, 4097 vertices, over 4096: fanned, not ear-clipped");
    usd_triangles_free(&tr);

    /* convex, as large: a fan is right, and nothing is said */
    for (uint32_t i = 0; i < n; i++) {
        pts[3 * i] = (float)cos(2 * PI * i / n);
        pts[3 * i + 1] = (float)sin(2 * PI * i / n);
    }
    reset_warnings();
    assert_int_equal(usd_geom_triangulate(&t, &wctx, &tr, &d), 0);
    assert_int_equal(tr.count, n - 2);
    assert_int_equal(warn_count, 0);
    usd_triangles_free(&tr);
    free(pts);
    free(idx);
}

static void test_empty_mesh_has_no_triangles(void **state)
{
    (void)state;
    usd_mesh_topology t = {0};
    usd_triangles tr;
    pk_diag d = {{0}};
    assert_int_equal(usd_geom_triangulate(&t, NULL, &tr, &d), 0);
    assert_int_equal(tr.count, 0);
    assert_null(tr.corners);
    usd_triangles_free(&tr);
}

static void expect_topology_error(const usd_mesh_topology *t, const char *message)
{
    usd_triangles tr;
    pk_diag d = {{0}};
    memset(&tr, 0xab, sizeof tr);
    assert_int_equal(usd_geom_triangulate(t, &ctx, &tr, &d), -1);
    assert_string_equal(d.message, message);
    assert_int_equal(tr.count, 0);
    assert_null(tr.corners);
    assert_null(tr.faces);
}

static void test_topology_errors_name_face_and_index(void **state)
{
    (void)state;
    int32_t counts[] = {3, 2};
    int32_t idx[] = {0, 1, 2, 3, 4};
    usd_mesh_topology t = {counts, 2, idx, 5, cube_points, 8, NULL, 0, 0};
    expect_topology_error(&t, "t.usda: /M: faceVertexCounts[1]: count 2 is below 3");
    counts[1] = 0;
    expect_topology_error(&t, "t.usda: /M: faceVertexCounts[1]: count 0 is below 3");
    counts[1] = -4;
    expect_topology_error(&t, "t.usda: /M: faceVertexCounts[1]: count -4 is below 3");
    counts[1] = 3;
    expect_topology_error(&t, "t.usda: /M: faceVertexCounts: the counts sum to 6, faceVertexIndices has 5 indices");
    t.index_count = 4;
    counts[0] = 4;
    t.face_count = 1;
    idx[3] = 8;
    expect_topology_error(&t, "t.usda: /M: faceVertexIndices[3] (face 0): index 8 out of range (8 points)");
    idx[3] = -1;
    expect_topology_error(&t, "t.usda: /M: faceVertexIndices[3] (face 0): index -1 out of range (8 points)");
    idx[3] = 3;
    int32_t holes[] = {0, 1};
    t.hole_indices = holes;
    t.hole_count = 2;
    expect_topology_error(&t, "t.usda: /M: holeIndices[1]: face 1 out of range (1 faces)");
    holes[1] = -2;
    expect_topology_error(&t, "t.usda: /M: holeIndices[1]: face -2 out of range (1 faces)");
    /* With no ctx the messages say "mesh". */
    usd_triangles tr;
    pk_diag d = {{0}};
    idx[3] = 9;
    t.hole_count = 0;
    assert_int_equal(usd_geom_triangulate(&t, NULL, &tr, &d), -1);
    assert_string_equal(d.message, "mesh: faceVertexIndices[3] (face 0): index 9 out of range (8 points)");
}

/* ---- primvars and vertex splitting ------------------------------------- */

/* The cube's six faces' outward normals, in face order. */
static const float face_normals[] = {-1, 0, 0, 0, -1, 0, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, -1};

static usd_mesh_input cube_input(void)
{
    usd_mesh_input in;
    memset(&in, 0, sizeof in);
    usd_mesh_topology t = {cube_counts, 6, cube_indices, 24, cube_points, 8, NULL, 0, 0};
    in.topology = t;
    return in;
}

static void test_cube_face_varying_normals_split_to_24_vertices(void **state)
{
    (void)state;
    float fv[24 * 3];
    for (int c = 0; c < 24; c++) {
        memcpy(fv + 3 * c, face_normals + 3 * (c / 4), 3 * sizeof(float));
    }
    usd_primvar n = {"normals", fv, 24, NULL, 0, USD_INTERP_FACE_VARYING, 0};
    usd_mesh_input in = cube_input();
    in.normals = &n;
    pk_mesh m;
    pk_diag d = {{0}};
    assert_int_equal(usd_geom_build_mesh(&in, &ctx, &m, &d), 0);
    assert_int_equal(m.vertex_count, 24);
    assert_int_equal(m.index_count, 36);
    assert_null(m.uvs);
    assert_string_equal(m.name, "");
    /* each triangle's vertices carry its face's normal and the right point */
    for (uint32_t i = 0; i < 36; i++) {
        uint32_t v = m.indices[i], face = i / 6;
        assert_memory_equal(m.normals + 3 * v, face_normals + 3 * face, 3 * sizeof(float));
        /* outward: the position dotted with the normal is +0.5 */
        double dp = 0;
        for (int k = 0; k < 3; k++) {
            dp += m.positions[3 * v + k] * m.normals[3 * v + k];
        }
        assert_true(fabs(dp - 0.5) < 1e-6);
    }
    /* first-occurrence order: the first triangle makes vertices 0, 1, 2 */
    assert_int_equal(m.indices[0], 0);
    assert_int_equal(m.indices[1], 1);
    assert_int_equal(m.indices[2], 2);
    assert_int_equal(m.indices[3], 0);
    assert_int_equal(m.indices[4], 2);
    assert_int_equal(m.indices[5], 3);
    pk_mesh_free(&m);
}

static void test_cube_vertex_normals_stay_shared_at_8_vertices(void **state)
{
    (void)state;
    float vn[8 * 3];
    for (int i = 0; i < 24; i++) {
        vn[i] = cube_points[i] * 2.0f;
    }
    usd_primvar n = {"primvars:normals", vn, 8, NULL, 0, USD_INTERP_VERTEX, 1};
    usd_mesh_input in = cube_input();
    in.normals = &n;
    pk_mesh m;
    pk_diag d = {{0}};
    assert_int_equal(usd_geom_build_mesh(&in, &ctx, &m, &d), 0);
    assert_int_equal(m.vertex_count, 8);
    assert_int_equal(m.index_count, 36);
    for (uint32_t v = 0; v < 8; v++) {
        for (int k = 0; k < 3; k++) {
            assert_true(m.normals[3 * v + k] == m.positions[3 * v + k] * 2.0f);
        }
    }
    /* vertex 0 is point 0 (first corner), vertex 1 point 4, vertex 2 point 6 */
    assert_memory_equal(m.positions + 3, cube_points + 12, 3 * sizeof(float));
    pk_mesh_free(&m);

    /* no primvars at all: 8 vertices too, positions only */
    in.normals = NULL;
    assert_int_equal(usd_geom_build_mesh(&in, &ctx, &m, &d), 0);
    assert_int_equal(m.vertex_count, 8);
    assert_null(m.normals);
    pk_mesh_free(&m);
}

static void test_indexed_face_varying_st_flips_v(void **state)
{
    (void)state;
    /* Four st values, each face's corners use them in order. */
    static const float st[] = {0, 0, 1, 0, 1, 1, 0.25f, 0.75f};
    int32_t idx[24];
    for (int c = 0; c < 24; c++) {
        idx[c] = c % 4;
    }
    usd_primvar uv = {"primvars:st", st, 4, idx, 24, USD_INTERP_FACE_VARYING, 0};
    usd_mesh_input in = cube_input();
    in.uvs = &uv;
    pk_mesh m;
    pk_diag d = {{0}};
    assert_int_equal(usd_geom_build_mesh(&in, &ctx, &m, &d), 0);
    /* a point meets 3 faces; it is split where their corners' st differ:
     * 20 distinct (point, st) pairs */
    assert_int_equal(m.vertex_count, 20);
    /* triangle 0 = corners 0, 1, 2: st 0, 1, 2 -> uv (s, 1 - t) */
    static const float want[] = {0, 1, 1, 1, 1, 0};
    assert_memory_equal(m.uvs, want, sizeof want);
    /* corner 3 of face 0 (second triangle's third vertex) has st (0.25, 0.75) */
    uint32_t v = m.indices[5];
    assert_true(m.uvs[2 * v] == 0.25f && m.uvs[2 * v + 1] == 0.25f);
    pk_mesh_free(&m);
}

static void test_constant_uniform_and_varying_interpolation(void **state)
{
    (void)state;
    usd_mesh_input in = cube_input();
    pk_mesh m;
    pk_diag d = {{0}};

    static const float up[] = {0, 1, 0};
    usd_primvar c = {"primvars:normals", up, 1, NULL, 0, USD_INTERP_CONSTANT, 0};
    in.normals = &c;
    assert_int_equal(usd_geom_build_mesh(&in, &ctx, &m, &d), 0);
    assert_int_equal(m.vertex_count, 8);
    for (uint32_t v = 0; v < 8; v++) {
        assert_memory_equal(m.normals + 3 * v, up, sizeof up);
    }
    pk_mesh_free(&m);

    usd_primvar u = {"primvars:normals", face_normals, 6, NULL, 0, USD_INTERP_UNIFORM, 0};
    in.normals = &u;
    assert_int_equal(usd_geom_build_mesh(&in, &ctx, &m, &d), 0);
    assert_int_equal(m.vertex_count, 24);
    for (uint32_t i = 0; i < 36; i++) {
        assert_memory_equal(m.normals + 3 * m.indices[i], face_normals + 3 * (i / 6), 3 * sizeof(float));
    }
    pk_mesh_free(&m);

    /* uniform with a hole: still one value per face, holes included, each
     * triangle taking its own face's */
    static const int32_t hole0[] = {0};
    in.topology.hole_indices = hole0;
    in.topology.hole_count = 1;
    assert_int_equal(usd_geom_build_mesh(&in, &ctx, &m, &d), 0);
    assert_int_equal(m.index_count, 30);
    assert_int_equal(m.vertex_count, 20);
    for (uint32_t i = 0; i < 30; i++) {
        assert_memory_equal(m.normals + 3 * m.indices[i], face_normals + 3 * (1 + i / 6), 3 * sizeof(float));
    }
    pk_mesh_free(&m);
    in.topology.hole_count = 0;

    /* uniform, indexed: two values for six faces, -0.0 and 0.0 the same */
    static const float two[] = {0, 0, 1, -0.0f, 0, 1};
    static const int32_t pick[] = {0, 1, 0, 1, 0, 1};
    usd_primvar ui = {"primvars:normals", two, 2, pick, 6, USD_INTERP_UNIFORM, 0};
    in.normals = &ui;
    assert_int_equal(usd_geom_build_mesh(&in, &ctx, &m, &d), 0);
    assert_int_equal(m.vertex_count, 8);
    pk_mesh_free(&m);

    /* varying: per point, as vertex */
    static const float st8[] = {0, 0, 1, 0, 0, 1, 1, 1, 0, 0, 1, 0, 0, 1, 1, 1};
    usd_primvar va = {"primvars:st", st8, 8, NULL, 0, USD_INTERP_VARYING, 0};
    in.normals = NULL;
    in.uvs = &va;
    assert_int_equal(usd_geom_build_mesh(&in, &ctx, &m, &d), 0);
    assert_int_equal(m.vertex_count, 8);
    /* vertex 1 is point 4: st (0, 0) -> uv (0, 1) */
    assert_true(m.uvs[2] == 0.0f && m.uvs[3] == 1.0f);
    pk_mesh_free(&m);
}

static void test_left_handed_keeps_authored_normals(void **state)
{
    (void)state;
    /* A quad wound clockwise seen from +Z, leftHanded: its front is +Z, and
     * its authored normal says so. */
    static const float pts[] = {0, 0, 0, 0, 1, 0, 1, 1, 0, 1, 0, 0};
    static const int32_t cnt[] = {4}, idx[] = {0, 1, 2, 3};
    static const float nz[] = {0, 0, 1};
    usd_primvar n = {"normals", nz, 1, NULL, 0, USD_INTERP_CONSTANT, 0};
    usd_mesh_input in;
    memset(&in, 0, sizeof in);
    usd_mesh_topology t = {cnt, 1, idx, 4, pts, 4, NULL, 0, 1};
    in.topology = t;
    in.normals = &n;
    pk_mesh m;
    pk_diag d = {{0}};
    assert_int_equal(usd_geom_build_mesh(&in, &ctx, &m, &d), 0);
    assert_int_equal(m.index_count, 6);
    for (uint32_t tri = 0; tri < 2; tri++) {
        const float *a = m.positions + 3 * m.indices[3 * tri], *b = m.positions + 3 * m.indices[3 * tri + 1],
                    *c = m.positions + 3 * m.indices[3 * tri + 2];
        double cz = ((double)b[0] - a[0]) * ((double)c[1] - a[1]) - ((double)b[1] - a[1]) * ((double)c[0] - a[0]);
        assert_true(cz > 0.0); /* counter-clockwise from +Z */
        assert_memory_equal(m.normals + 3 * m.indices[3 * tri], nz, sizeof nz);
    }
    pk_mesh_free(&m);
}

static void expect_primvar_error(usd_mesh_input *in, const char *why)
{
    pk_mesh m;
    pk_diag d = {{0}};
    char want[512];
    in->drop_bad_primvars = 0;
    assert_int_equal(usd_geom_build_mesh(in, &ctx, &m, &d), -1);
    snprintf(want, sizeof want, "t.usda: /M: %s", why);
    assert_string_equal(d.message, want);
    assert_null(m.positions);
    assert_int_equal(m.vertex_count, 0);
    /* dropped with the same text as a warning */
    in->drop_bad_primvars = 1;
    reset_warnings();
    assert_int_equal(usd_geom_build_mesh(in, &wctx, &m, &d), 0);
    assert_int_equal(warn_count, 1);
    snprintf(want, sizeof want, "t.usda: /M: %s; dropped", why);
    assert_string_equal(warned[0], want);
    assert_int_equal(m.vertex_count, 8);
    assert_null(m.normals);
    assert_null(m.uvs);
    pk_mesh_free(&m);
    in->drop_bad_primvars = 0;
}

static void test_primvar_count_mismatches_are_errors_or_dropped(void **state)
{
    (void)state;
    static float vals[32 * 3];
    usd_mesh_input in = cube_input();
    usd_primvar p = {"primvars:normals", vals, 2, NULL, 0, USD_INTERP_CONSTANT, 0};
    in.normals = &p;
    expect_primvar_error(&in, "primvars:normals: constant needs 1 elements, has 2");
    p.interp = USD_INTERP_UNIFORM;
    expect_primvar_error(&in, "primvars:normals: uniform needs 6 elements, has 2");
    p.interp = USD_INTERP_VERTEX;
    expect_primvar_error(&in, "primvars:normals: vertex needs 8 elements, has 2");
    p.interp = USD_INTERP_VARYING;
    p.value_count = 9;
    expect_primvar_error(&in, "primvars:normals: varying needs 8 elements, has 9");
    p.interp = USD_INTERP_FACE_VARYING;
    p.value_count = 23;
    expect_primvar_error(&in, "primvars:normals: faceVarying needs 24 elements, has 23");
    p.value_count = 24;
    p.element_size = 2;
    expect_primvar_error(&in, "primvars:normals: elementSize 2 is not imported (only 1)");
    p.element_size = 1;
    p.interp = (usd_interp)9;
    expect_primvar_error(&in, "primvars:normals: interpolation 9 unknown");

    /* indexed: the index count is checked, then each index */
    static int32_t idx[24];
    usd_primvar st = {"primvars:st", vals, 3, idx, 23, USD_INTERP_FACE_VARYING, 0};
    in.normals = NULL;
    in.uvs = &st;
    expect_primvar_error(&in, "primvars:st:indices: faceVarying needs 24 elements, has 23");
    st.index_count = 24;
    idx[17] = 3;
    expect_primvar_error(&in, "primvars:st:indices[17]: index 3 out of range (3 values)");
    idx[17] = -1;
    expect_primvar_error(&in, "primvars:st:indices[17]: index -1 out of range (3 values)");
    idx[17] = 2;
    pk_mesh m;
    pk_diag d = {{0}};
    assert_int_equal(usd_geom_build_mesh(&in, &ctx, &m, &d), 0);
    pk_mesh_free(&m);
}

static void test_build_mesh_reports_topology_errors_and_empty_meshes(void **state)
{
    (void)state;
    usd_mesh_input in = cube_input();
    int32_t bad[24];
    memcpy(bad, cube_indices, sizeof bad);
    bad[5] = 12;
    in.topology.face_vertex_indices = bad;
    pk_mesh m;
    pk_diag d = {{0}};
    assert_int_equal(usd_geom_build_mesh(&in, &ctx, &m, &d), -1);
    assert_string_equal(d.message, "t.usda: /M: faceVertexIndices[5] (face 1): index 12 out of range (8 points)");
    assert_null(m.indices);

    /* every face a hole: an empty mesh, not an error */
    static const int32_t all[] = {0, 1, 2, 3, 4, 5};
    in = cube_input();
    in.topology.hole_indices = all;
    in.topology.hole_count = 6;
    assert_int_equal(usd_geom_build_mesh(&in, &ctx, &m, &d), 0);
    assert_int_equal(m.vertex_count, 0);
    assert_int_equal(m.index_count, 0);
    pk_mesh_free(&m);
}

static void test_interpolation_tokens(void **state)
{
    (void)state;
    usd_interp i = USD_INTERP_UNIFORM;
    assert_int_equal(usd_interp_parse(NULL, USD_INTERP_VERTEX, &i), 0);
    assert_int_equal(i, USD_INTERP_VERTEX);
    assert_int_equal(usd_interp_parse("", USD_INTERP_CONSTANT, &i), 0);
    assert_int_equal(i, USD_INTERP_CONSTANT);
    static const char *const names[] = {"constant", "uniform", "vertex", "varying", "faceVarying"};
    for (int k = 0; k < 5; k++) {
        assert_int_equal(usd_interp_parse(names[k], USD_INTERP_CONSTANT, &i), 0);
        assert_int_equal(i, (usd_interp)k);
        assert_string_equal(usd_interp_name(i), names[k]);
    }
    i = USD_INTERP_UNIFORM;
    assert_int_equal(usd_interp_parse("facevarying", USD_INTERP_CONSTANT, &i), -1);
    assert_int_equal(i, USD_INTERP_UNIFORM);
    assert_string_equal(usd_interp_name((usd_interp)7), "?");
}

static void test_picking_normals_and_texcoords(void **state)
{
    (void)state;
    const char *a[] = {"points", "normals", "primvars:normals", "primvars:normals:indices"};
    assert_int_equal(usd_geom_pick_normals(a, 4), 2);
    assert_int_equal(usd_geom_pick_normals(a, 2), 1);
    assert_int_equal(usd_geom_pick_normals(a, 1), -1);

    const char *n[] = {"primvars:zz", "primvars:uv:indices", "primvars:uv", "primvars:ab", "primvars:st", "uv"};
    const char *t[] = {"float2[]", "int[]", "texCoord2f[]", "float3[]", "texCoord2f[]", "float2[]"};
    assert_int_equal(usd_geom_pick_texcoords(n, t, 6), 4);
    assert_int_equal(usd_geom_pick_texcoords(n, t, 4), 2); /* "uv" < "zz"; "ab" is float3 */
    assert_int_equal(usd_geom_pick_texcoords(n, t, 1), 0);
    const char *n2[] = {"primvars:st", "primvars:", "primvars:a:b"};
    const char *t2[] = {"float3[]", "float2[]", "float2[]"};
    assert_int_equal(usd_geom_pick_texcoords(n2, t2, 3), -1);
    const char *t3[] = {"half2[]", "double2[]", "texCoord2d[]"};
    assert_int_equal(usd_geom_pick_texcoords(n2, t3, 1), 0);
}

/* ---- xformOps ----------------------------------------------------------- */

static void assert_matrix_near(const double *got, const double *want, double tol)
{
    for (int i = 0; i < 16; i++) {
        if (!(fabs(got[i] - want[i]) <= tol)) {
            fail_msg("element %d: got %.17g, want %.17g", i, got[i], want[i]);
        }
    }
}

static usd_xform_op op_of(const char *name, const double *v, uint32_t n)
{
    usd_xform_op op;
    pk_diag d = {{0}};
    assert_int_equal(usd_xform_op_parse(name, 0, &op, &ctx, &d), 0);
    if (n > 0) {
        memcpy(op.value, v, n * sizeof(double));
    }
    op.value_count = n;
    return op;
}

static void one_op(const char *name, const double *v, uint32_t n, const double *want)
{
    usd_xform_op op = op_of(name, v, n);
    double m[16];
    pk_diag d = {{0}};
    assert_int_equal(usd_xform_op_matrix(&op, &ctx, m, &d), 0);
    assert_matrix_near(m, want, 1e-12);
}

static void test_op_names_parse(void **state)
{
    (void)state;
    usd_xform_op op;
    pk_diag d = {{0}};
    assert_int_equal(usd_xform_op_parse("xformOp:translate", 0, &op, &ctx, &d), 0);
    assert_int_equal(op.kind, USD_XFORM_TRANSLATE);
    assert_int_equal(op.invert, 0);
    assert_string_equal(op.attr, "xformOp:translate");
    assert_string_equal(op.suffix, "");
    assert_int_equal(usd_xform_op_parse("xformOp:rotateXYZ:foo", 0, &op, &ctx, &d), 0);
    assert_int_equal(op.kind, USD_XFORM_ROTATE_XYZ);
    assert_string_equal(op.suffix, "foo");
    assert_int_equal(usd_xform_op_parse("!invert!xformOp:translate:pivot", 0, &op, &ctx, &d), 0);
    assert_int_equal(op.kind, USD_XFORM_TRANSLATE);
    assert_int_equal(op.invert, 1);
    assert_string_equal(op.attr, "xformOp:translate:pivot");
    assert_string_equal(op.suffix, "pivot");
    assert_int_equal(usd_xform_op_parse("xformOp:scale:a:b", 0, &op, &ctx, &d), 0);
    assert_string_equal(op.suffix, "a:b");
    assert_int_equal(usd_xform_op_parse("!resetXformStack!", 0, &op, &ctx, &d), 0);
    assert_int_equal(op.kind, USD_XFORM_RESET_STACK);
    assert_string_equal(op.attr, "");
    static const struct {
        const char *name;
        usd_xform_op_kind kind;
        uint32_t n;
    } kinds[] = {
        {"xformOp:translateX", USD_XFORM_TRANSLATE_X, 1}, {"xformOp:translateY", USD_XFORM_TRANSLATE_Y, 1},
        {"xformOp:translateZ", USD_XFORM_TRANSLATE_Z, 1}, {"xformOp:scale", USD_XFORM_SCALE, 3},
        {"xformOp:scaleX", USD_XFORM_SCALE_X, 1},         {"xformOp:scaleY", USD_XFORM_SCALE_Y, 1},
        {"xformOp:scaleZ", USD_XFORM_SCALE_Z, 1},         {"xformOp:rotateX", USD_XFORM_ROTATE_X, 1},
        {"xformOp:rotateY", USD_XFORM_ROTATE_Y, 1},       {"xformOp:rotateZ", USD_XFORM_ROTATE_Z, 1},
        {"xformOp:rotateXZY", USD_XFORM_ROTATE_XZY, 3},   {"xformOp:rotateYXZ", USD_XFORM_ROTATE_YXZ, 3},
        {"xformOp:rotateYZX", USD_XFORM_ROTATE_YZX, 3},   {"xformOp:rotateZXY", USD_XFORM_ROTATE_ZXY, 3},
        {"xformOp:rotateZYX", USD_XFORM_ROTATE_ZYX, 3},   {"xformOp:orient", USD_XFORM_ORIENT, 4},
        {"xformOp:transform", USD_XFORM_TRANSFORM, 16},   {"!resetXformStack!", USD_XFORM_RESET_STACK, 0},
    };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        assert_int_equal(usd_xform_op_parse(kinds[i].name, 0, &op, &ctx, &d), 0);
        assert_int_equal(op.kind, kinds[i].kind);
        assert_int_equal(usd_xform_op_value_count(op.kind), kinds[i].n);
    }
}

static void test_op_name_errors(void **state)
{
    (void)state;
    usd_xform_op op;
    pk_diag d = {{0}};
    assert_int_equal(usd_xform_op_parse("xformOp:spin", 2, &op, &ctx, &d), -1);
    assert_string_equal(d.message,
                        "t.usda: /M: xformOpOrder[2]: 'xformOp:spin' is not an xformOp (unknown op type 'spin')");
    assert_int_equal(usd_xform_op_parse("xformOp:translatex:a", 0, &op, &ctx, &d), -1);
    assert_string_equal(d.message,
                        "t.usda: /M: xformOpOrder[0]: 'xformOp:translatex:a' is not an xformOp (unknown op type "
                        "'translatex')");
    assert_int_equal(usd_xform_op_parse("translate", 1, &op, &ctx, &d), -1);
    assert_string_equal(d.message,
                        "t.usda: /M: xformOpOrder[1]: 'translate' is not an xformOp (no 'xformOp:' namespace)");
    assert_int_equal(usd_xform_op_parse("!invert!!resetXformStack!", 3, &op, &ctx, &d), -1);
    assert_string_equal(d.message, "t.usda: /M: xformOpOrder[3]: '!invert!!resetXformStack!' is not an xformOp (no "
                                   "'xformOp:' namespace)");
    assert_int_equal(usd_xform_op_parse("xformOp:scale:", 4, &op, &ctx, &d), -1);
    assert_string_equal(d.message, "t.usda: /M: xformOpOrder[4]: 'xformOp:scale:' is not an xformOp (empty suffix)");
    assert_int_equal(usd_xform_op_parse("xformOp:", 5, &op, &ctx, &d), -1);
    assert_string_equal(d.message, "t.usda: /M: xformOpOrder[5]: 'xformOp:' is not an xformOp (unknown op type '')");
}

static void test_translate_scale_and_axis_rotations(void **state)
{
    (void)state;
    const double t[] = {1, 2, 3};
    one_op("xformOp:translate", t, 3, (const double[16]){1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 1, 2, 3, 1});
    one_op("!invert!xformOp:translate", t, 3, (const double[16]){1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -1, -2, -3, 1});
    one_op("xformOp:translateY", t, 1, (const double[16]){1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 1, 0, 1});
    one_op("xformOp:translateX", t, 1, (const double[16]){1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 1, 0, 0, 1});
    one_op("xformOp:translateZ", t, 1, (const double[16]){1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 1, 1});
    const double s[] = {2, 4, 8};
    one_op("xformOp:scale", s, 3, (const double[16]){2, 0, 0, 0, 0, 4, 0, 0, 0, 0, 8, 0, 0, 0, 0, 1});
    one_op("!invert!xformOp:scale", s, 3, (const double[16]){0.5, 0, 0, 0, 0, 0.25, 0, 0, 0, 0, 0.125, 0, 0, 0, 0, 1});
    one_op("xformOp:scaleX", s, 1, (const double[16]){2, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1});
    one_op("xformOp:scaleY", s, 1, (const double[16]){1, 0, 0, 0, 0, 2, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1});
    one_op("xformOp:scaleZ", s, 1, (const double[16]){1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 2, 0, 0, 0, 0, 1});
    const double c = sqrt(3.0) / 2.0, h = 0.5, a30[] = {30};
    /* right-hand rule: rotateX(30) takes +Y toward +Z */
    one_op("xformOp:rotateX", a30, 1, (const double[16]){1, 0, 0, 0, 0, c, h, 0, 0, -h, c, 0, 0, 0, 0, 1});
    one_op("xformOp:rotateY", a30, 1, (const double[16]){c, 0, -h, 0, 0, 1, 0, 0, h, 0, c, 0, 0, 0, 0, 1});
    one_op("xformOp:rotateZ", a30, 1, (const double[16]){c, h, 0, 0, -h, c, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1});
    one_op("!invert!xformOp:rotateZ", a30, 1, (const double[16]){c, -h, 0, 0, h, c, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1});
    const double a90[] = {90}, a450[] = {-270};
    one_op("xformOp:rotateZ", a90, 1, (const double[16]){0, 1, 0, 0, -1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1});
    one_op("xformOp:rotateZ", a450, 1, (const double[16]){0, 1, 0, 0, -1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1});
}

static void test_each_rotation_order(void **state)
{
    (void)state;
    /* rotateABC (x, y, z) turns a point about A first, then B, then C.
     * Quarter turns permute coordinates: X (x,y,z) -> (x,-z,y); Y -> (z,y,-x);
     * Z -> (-y,x,z). The columns below are the images of the basis vectors
     * under (90, 180, 270) degrees, applied by hand in each order. */
    static const char *const names[] = {"xformOp:rotateXYZ", "xformOp:rotateXZY", "xformOp:rotateYXZ",
                                        "xformOp:rotateYZX", "xformOp:rotateZXY", "xformOp:rotateZYX"};
    static const double want[6][16] = {
        {0, 1, 0, 0, 0, 0, -1, 0, -1, 0, 0, 0, 0, 0, 0, 1}, /* XYZ */
        {0, -1, 0, 0, 0, 0, -1, 0, 1, 0, 0, 0, 0, 0, 0, 1}, /* XZY */
        {0, 1, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 1},   /* YXZ */
        {0, 0, 1, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1},   /* YZX */
        {0, 0, 1, 0, -1, 0, 0, 0, 0, -1, 0, 0, 0, 0, 0, 1}, /* ZXY */
        {0, 0, -1, 0, -1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1}, /* ZYX */
    };
    const double v[] = {90, 180, 270};
    for (int i = 0; i < 6; i++) {
        one_op(names[i], v, 3, want[i]);
    }
    /* With (90, 90, 90): XYZ takes (1, 2, 3) to (3, 2, -1). */
    usd_xform_op op = op_of("xformOp:rotateXYZ", (const double[]){90, 90, 90}, 3);
    double m[16];
    pk_diag d = {{0}};
    assert_int_equal(usd_xform_op_matrix(&op, &ctx, m, &d), 0);
    assert_true(fabs(m[0] * 1 + m[4] * 2 + m[8] * 3 - 3) < 1e-12);
    assert_true(fabs(m[1] * 1 + m[5] * 2 + m[9] * 3 - 2) < 1e-12);
    assert_true(fabs(m[2] * 1 + m[6] * 2 + m[10] * 3 + 1) < 1e-12);
}

static void test_orient_and_transform(void **state)
{
    (void)state;
    const double h = sqrt(0.5);
    /* (w, x, y, z): 90 degrees about X, as rotateX 90 */
    one_op("xformOp:orient", (const double[]){h, h, 0, 0}, 4,
           (const double[16]){1, 0, 0, 0, 0, 0, 1, 0, 0, -1, 0, 0, 0, 0, 0, 1});
    one_op("xformOp:orient", (const double[]){h, 0, 0, h}, 4,
           (const double[16]){0, 1, 0, 0, -1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1});
    /* not unit: normalised */
    one_op("xformOp:orient", (const double[]){2, 0, 0, 0}, 4,
           (const double[16]){1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1});
    one_op("!invert!xformOp:orient", (const double[]){h, 0, 0, h}, 4,
           (const double[16]){0, -1, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1});
    /* matrix4d as USD writes it, rows ( (..), (..), (..), (tx, ty, tz, 1) ) */
    const double rows[16] = {2, 0, 0, 0, 0, 3, 0, 0, 0, 0, 4, 0, 5, 6, 7, 1};
    one_op("xformOp:transform", rows, 16, rows);
    one_op("!invert!xformOp:transform", rows, 16,
           (const double[16]){0.5, 0, 0, 0, 0, 1.0 / 3, 0, 0, 0, 0, 0.25, 0, -2.5, -2, -1.75, 1});
}

static void expect_op_error(const char *name, const double *v, uint32_t n, const char *message)
{
    usd_xform_op op = op_of(name, v, n);
    double m[16];
    pk_diag d = {{0}};
    assert_int_equal(usd_xform_op_matrix(&op, &ctx, m, &d), -1);
    assert_string_equal(d.message, message);
    assert_int_equal(usd_xform_compose(&op, 1, &ctx, m, NULL, &d), -1);
    assert_string_equal(d.message, message);
}

static void test_op_value_errors(void **state)
{
    (void)state;
    const double v[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    expect_op_error("xformOp:rotateXYZ", v, 2, "t.usda: /M: xformOp:rotateXYZ: needs 3 values, has 2");
    expect_op_error("xformOp:transform:m", v, 9, "t.usda: /M: xformOp:transform:m: needs 16 values, has 9");
    expect_op_error("xformOp:orient", (const double[]){0, 0, 0, 0}, 4,
                    "t.usda: /M: xformOp:orient: the quaternion has zero length");
    expect_op_error("xformOp:translate", (const double[]){1, NAN, 0}, 3,
                    "t.usda: /M: xformOp:translate: value 1 is not finite");
    expect_op_error("xformOp:rotateX", (const double[]){INFINITY}, 1,
                    "t.usda: /M: xformOp:rotateX: value 0 is not finite");
    expect_op_error("!invert!xformOp:scale", (const double[]){1, 0, 1}, 3,
                    "t.usda: /M: !invert!xformOp:scale: the matrix is singular, it has no inverse");
    /* a rank-3 matrix (row 2 = row 0 + row 1) */
    const double sing[16] = {1, 2, 3, 0, 4, 5, 6, 0, 5, 7, 9, 0, 0, 0, 0, 1};
    expect_op_error("!invert!xformOp:transform", sing, 16,
                    "t.usda: /M: !invert!xformOp:transform: the matrix is singular, it has no inverse");
    /* a projective transform (its last column not (0, 0, 0, 1)) is
     * refused, naming the prim and the column */
    const double proj[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0.5, 0, 0, 0, 1};
    expect_op_error("xformOp:transform", proj, 16,
                    "t.usda: /M: xformOp:transform: not an affine transform (last column (0, 0, 0.5, 1), not (0, 0, 0, "
                    "1))");
    const double w2[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 2};
    expect_op_error("xformOp:transform:w", w2, 16,
                    "t.usda: /M: xformOp:transform:w: not an affine transform (last column (0, 0, 0, 2), not (0, 0, 0, "
                    "1))");
    /* not inverted, a singular transform is fine */
    double m[16];
    pk_diag d = {{0}};
    usd_xform_op op = op_of("xformOp:transform", sing, 16);
    assert_int_equal(usd_xform_op_matrix(&op, &ctx, m, &d), 0);
    assert_matrix_near(m, sing, 0);
}

/* Applies a point transform to p (column vectors: M p). */
static void apply(const double m[16], const double p[3], double out[3])
{
    for (int r = 0; r < 3; r++) {
        out[r] = m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r];
    }
}

static void test_pivot_idiom(void **state)
{
    (void)state;
    /* translate:pivot, rotateZ 90, !invert!translate:pivot: a turn about (1, 0, 0) */
    usd_xform_op ops[3] = {op_of("xformOp:translate:pivot", (const double[]){1, 0, 0}, 3),
                           op_of("xformOp:rotateZ", (const double[]){90}, 1),
                           op_of("!invert!xformOp:translate:pivot", (const double[]){1, 0, 0}, 3)};
    double m[16], q[3];
    int resets = 7;
    pk_diag d = {{0}};
    assert_int_equal(usd_xform_compose(ops, 3, &ctx, m, &resets, &d), 0);
    assert_int_equal(resets, 0);
    assert_matrix_near(m, (const double[16]){0, 1, 0, 0, -1, 0, 0, 0, 0, 0, 1, 0, 1, -1, 0, 1}, 1e-12);
    apply(m, (const double[]){1, 0, 0}, q);
    assert_true(fabs(q[0] - 1) < 1e-12 && fabs(q[1]) < 1e-12);
    apply(m, (const double[]){2, 0, 0}, q);
    assert_true(fabs(q[0] - 1) < 1e-12 && fabs(q[1] - 1) < 1e-12);
}

/* The naive path: a point pushed through the ops one at a time, the last op
 * first, each by its own formula (no matrices). */
static void naive_rotate(int axis, double deg, double p[3])
{
    double r = deg * PI / 180.0, c = cos(r), s = sin(r);
    int a = (axis + 1) % 3, b = (axis + 2) % 3;
    double x = p[a], y = p[b];
    p[a] = c * x - s * y;
    p[b] = s * x + c * y;
}

static void naive_point(const usd_xform_op *ops, int n, const double in[3], double p[3])
{
    memcpy(p, in, 3 * sizeof(double));
    for (int i = n - 1; i >= 0; i--) {
        const usd_xform_op *o = &ops[i];
        double sign = o->invert ? -1.0 : 1.0;
        switch (o->kind) {
        case USD_XFORM_TRANSLATE:
            for (int k = 0; k < 3; k++) {
                p[k] += sign * o->value[k];
            }
            break;
        case USD_XFORM_SCALE:
            for (int k = 0; k < 3; k++) {
                p[k] = o->invert ? p[k] / o->value[k] : p[k] * o->value[k];
            }
            break;
        case USD_XFORM_ROTATE_XYZ:
            assert_false(o->invert);
            naive_rotate(0, o->value[0], p);
            naive_rotate(1, o->value[1], p);
            naive_rotate(2, o->value[2], p);
            break;
        case USD_XFORM_TRANSFORM: {
            /* row vector times the row-major matrix, as USD writes it */
            assert_false(o->invert);
            double q[3];
            for (int c = 0; c < 3; c++) {
                q[c] = p[0] * o->value[0 * 4 + c] + p[1] * o->value[1 * 4 + c] + p[2] * o->value[2 * 4 + c] +
                       o->value[3 * 4 + c];
            }
            memcpy(p, q, sizeof q);
            break;
        }
        default:
            fail_msg("op kind %d not in the naive path", (int)o->kind);
        }
    }
}

static void test_complex_transform_stack(void **state)
{
    (void)state;
    /* usd-wg schemaTests/usdGeom/transforms/complex_transform.usda */
    static const char *const order[] = {"xformOp:translate",
                                        "xformOp:translate:rotatePivotOffset",
                                        "xformOp:translate:rotatePivot",
                                        "xformOp:rotateXYZ:rotateOffset",
                                        "xformOp:rotateXYZ",
                                        "!invert!xformOp:translate:rotatePivot",
                                        "xformOp:translate:scalePivotOffset",
                                        "xformOp:translate:scalePivot",
                                        "xformOp:transform:shear",
                                        "xformOp:scale:scaleOffset",
                                        "xformOp:scale",
                                        "!invert!xformOp:translate:scalePivot"};
    static const double vals[12][16] = {
        {1, 2, 3},    {4, 5, 6},          {7, 8, 9},
        {10, 11, 12}, {110, 120, 130},    {7, 8, 9},
        {1, 2, 3},    {4, 5, 6},          {1, 0.5, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1},
        {7, 8, 9},    {0.1f, 0.2f, 0.3f}, /* float3 in the file */
        {4, 5, 6},
    };
    usd_xform_op ops[12];
    pk_diag d = {{0}};
    for (uint32_t i = 0; i < 12; i++) {
        assert_int_equal(usd_xform_op_parse(order[i], i, &ops[i], &ctx, &d), 0);
        ops[i].value_count = usd_xform_op_value_count(ops[i].kind);
        memcpy(ops[i].value, vals[i], sizeof vals[i]);
    }
    double m[16];
    int resets = 1;
    assert_int_equal(usd_xform_compose(ops, 12, &ctx, m, &resets, &d), 0);
    assert_int_equal(resets, 0);
    static const double pts[5][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {-0.5, 0.25, 2}};
    for (int i = 0; i < 5; i++) {
        double got[3], want[3];
        apply(m, pts[i], got);
        naive_point(ops, 12, pts[i], want);
        for (int k = 0; k < 3; k++) {
            if (!(fabs(got[k] - want[k]) < 1e-9)) {
                fail_msg("point %d axis %d: got %.17g, want %.17g", i, k, got[k], want[k]);
            }
        }
    }
    assert_true(m[3] == 0 && m[7] == 0 && m[11] == 0 && m[15] == 1);
}

static void test_reset_xform_stack_and_empty_order(void **state)
{
    (void)state;
    usd_xform_op ops[3] = {op_of("xformOp:translate", (const double[]){5, 5, 5}, 3),
                           op_of("!resetXformStack!", NULL, 0), op_of("xformOp:scale", (const double[]){2, 2, 2}, 3)};
    ops[0].value_count = 1; /* bad, but before the reset: ignored */
    double m[16];
    int resets = 0;
    pk_diag d = {{0}};
    assert_int_equal(usd_xform_compose(ops, 3, &ctx, m, &resets, &d), 0);
    assert_int_equal(resets, 1);
    assert_matrix_near(m, (const double[16]){2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 1}, 0);
    assert_int_equal(usd_xform_compose(ops + 1, 1, &ctx, m, &resets, &d), 0);
    assert_int_equal(resets, 1);
    assert_matrix_near(m, (const double[16]){1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}, 0);
    assert_int_equal(usd_xform_compose(NULL, 0, &ctx, m, &resets, &d), 0);
    assert_int_equal(resets, 0);
    assert_matrix_near(m, (const double[16]){1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}, 0);
}

/* ---- stage units and matrices ---------------------------------------------- */

static void test_stage_matrix(void **state)
{
    (void)state;
    usd_up_axis up = USD_UP_Z;
    assert_int_equal(usd_up_axis_parse(NULL, &up), 0);
    assert_int_equal(up, USD_UP_Y);
    assert_int_equal(usd_up_axis_parse("Z", &up), 0);
    assert_int_equal(up, USD_UP_Z);
    assert_int_equal(usd_up_axis_parse("Y", &up), 0);
    assert_int_equal(up, USD_UP_Y);
    assert_int_equal(usd_up_axis_parse("X", &up), -1);
    assert_int_equal(usd_up_axis_parse("z", &up), -1);

    double m[16], q[3];
    pk_diag d = {{0}};
    assert_int_equal(usd_geom_stage_matrix(USD_UP_Z, 1.0, &ctx, m, &d), 0);
    apply(m, (const double[]){1, 2, 3}, q); /* (x, y, z) -> (x, z, -y) */
    assert_true(q[0] == 1 && q[1] == 3 && q[2] == -2);
    assert_int_equal(usd_geom_stage_matrix(USD_UP_Z, 0.01, &ctx, m, &d), 0);
    apply(m, (const double[]){100, 200, 300}, q);
    assert_true(fabs(q[0] - 1) < 1e-12 && fabs(q[1] - 3) < 1e-12 && fabs(q[2] + 2) < 1e-12);
    assert_int_equal(usd_geom_stage_matrix(USD_UP_Y, 0.01, &ctx, m, &d), 0);
    assert_matrix_near(m, (const double[16]){0.01, 0, 0, 0, 0, 0.01, 0, 0, 0, 0, 0.01, 0, 0, 0, 0, 1}, 0);
    static const double bad[] = {0.0, -1.0, NAN, INFINITY};
    static const char *const msg[] = {"t.usda: /M: metersPerUnit 0 is not a positive finite number",
                                      "t.usda: /M: metersPerUnit -1 is not a positive finite number",
                                      "t.usda: /M: metersPerUnit nan is not a positive finite number",
                                      "t.usda: /M: metersPerUnit inf is not a positive finite number"};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(usd_geom_stage_matrix(USD_UP_Z, bad[i], &ctx, m, &d), -1);
        assert_string_equal(d.message, msg[i]);
    }
}

static void test_matrix_helpers(void **state)
{
    (void)state;
    const double a[16] = {2, 1, 0, 0, -1, 3, 0.5, 0, 0.25, 0, 4, 0, 1, 2, 3, 1};
    double inv[16], p[16], id[16], f64[16];
    assert_int_equal(usd_geom_matrix_invert(a, inv), 0);
    usd_geom_matrix_mul(a, inv, p);
    usd_geom_matrix_identity(id);
    assert_matrix_near(p, id, 1e-12);
    memcpy(p, a, sizeof p);
    usd_geom_matrix_mul(p, id, p); /* aliasing */
    assert_matrix_near(p, a, 0);
    const double zero[16] = {0};
    memcpy(inv, id, sizeof inv);
    assert_int_equal(usd_geom_matrix_invert(zero, inv), -1);
    assert_matrix_near(inv, id, 0); /* unchanged */
    float f[16];
    usd_geom_matrix_to_float(a, f);
    for (int i = 0; i < 16; i++) {
        f64[i] = f[i];
    }
    assert_matrix_near(f64, a, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quad_gives_two_fan_triangles),
        cmocka_unit_test(test_convex_pentagon_is_a_fan),
        cmocka_unit_test(test_concave_l_is_ear_clipped),
        cmocka_unit_test(test_star_in_a_tilted_plane_is_ear_clipped),
        cmocka_unit_test(test_mixed_counts_give_twelve_triangles),
        cmocka_unit_test(test_holes_skip_their_faces),
        cmocka_unit_test(test_left_handed_reverses_winding),
        cmocka_unit_test(test_degenerate_polygons_are_fanned),
        cmocka_unit_test(test_polygon_over_the_bound_is_fanned_with_a_warning),
        cmocka_unit_test(test_empty_mesh_has_no_triangles),
        cmocka_unit_test(test_topology_errors_name_face_and_index),
        cmocka_unit_test(test_cube_face_varying_normals_split_to_24_vertices),
        cmocka_unit_test(test_cube_vertex_normals_stay_shared_at_8_vertices),
        cmocka_unit_test(test_indexed_face_varying_st_flips_v),
        cmocka_unit_test(test_constant_uniform_and_varying_interpolation),
        cmocka_unit_test(test_left_handed_keeps_authored_normals),
        cmocka_unit_test(test_primvar_count_mismatches_are_errors_or_dropped),
        cmocka_unit_test(test_build_mesh_reports_topology_errors_and_empty_meshes),
        cmocka_unit_test(test_interpolation_tokens),
        cmocka_unit_test(test_picking_normals_and_texcoords),
        cmocka_unit_test(test_op_names_parse),
        cmocka_unit_test(test_op_name_errors),
        cmocka_unit_test(test_translate_scale_and_axis_rotations),
        cmocka_unit_test(test_each_rotation_order),
        cmocka_unit_test(test_orient_and_transform),
        cmocka_unit_test(test_op_value_errors),
        cmocka_unit_test(test_pivot_idiom),
        cmocka_unit_test(test_complex_transform_stack),
        cmocka_unit_test(test_reset_xform_stack_and_empty_order),
        cmocka_unit_test(test_stage_matrix),
        cmocka_unit_test(test_matrix_helpers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
