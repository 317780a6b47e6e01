/* SPDX-License-Identifier: MIT */
/* sluice pack: USD implicit gprims tessellated (see usd_shape.h). Shapes are
 * built in a frame (u, v, a) where a is the spine (or a plane's normal) and
 * (u, v, a) is right-handed, in double, then turned to the axis and stored
 * as float. */
#include "usd_shape.h"

#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__)
#define US_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define US_PRINTF(f, a)
#endif

static int fail(const usd_geom_ctx *ctx, pk_diag *d, const char *fmt, ...) US_PRINTF(3, 4);
static int fail(const usd_geom_ctx *ctx, pk_diag *d, const char *fmt, ...)
{
    char what[480];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(d->message, sizeof d->message, "%s: %s", ctx != NULL && ctx->where != NULL ? ctx->where : "shape", what);
    return -1;
}

#ifdef __clang_analyzer__
/* As in usd_geom.c: the analyzer does not see that fail() returns -1. */
#define fail(...) (fail(__VA_ARGS__), -1)
#endif

static const double PI = 3.14159265358979323846;

/* ---- parameters ------------------------------------------------------------ */

int usd_shape_kind_parse(const char *type_name, usd_shape_kind *out)
{
    static const struct {
        const char *name;
        usd_shape_kind kind;
    } names[] = {
        {"Cube", USD_SHAPE_CUBE},           {"Sphere", USD_SHAPE_SPHERE}, {"Cylinder", USD_SHAPE_CYLINDER},
        {"Cylinder_1", USD_SHAPE_CYLINDER}, {"Cone", USD_SHAPE_CONE},     {"Capsule", USD_SHAPE_CAPSULE},
        {"Capsule_1", USD_SHAPE_CAPSULE},   {"Plane", USD_SHAPE_PLANE},
    };
    if (type_name == NULL) {
        return -1;
    }
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (strcmp(type_name, names[i].name) == 0) {
            *out = names[i].kind;
            return 0;
        }
    }
    return -1;
}

void usd_shape_init(usd_shape_kind kind, usd_shape *out)
{
    memset(out, 0, sizeof *out);
    out->kind = kind;
    out->axis = USD_SHAPE_AXIS_Z;
    out->size = 2.0;
    double r = kind == USD_SHAPE_CAPSULE ? 0.5 : 1.0;
    out->radius_top = kind == USD_SHAPE_CONE ? 0.0 : r;
    out->radius_bottom = r;
    out->height = kind == USD_SHAPE_CAPSULE ? 1.0 : 2.0;
    out->width = 2.0;
    out->length = 2.0;
    out->double_sided = kind == USD_SHAPE_PLANE;
}

const char *const *usd_shape_attributes(usd_shape_kind kind)
{
    static const char *const cube[] = {"size", NULL};
    static const char *const sphere[] = {"radius", NULL};
    static const char *const round[] = {"radius", "radiusTop", "radiusBottom", "height", NULL};
    static const char *const cone[] = {"radius", "height", NULL};
    static const char *const plane[] = {"width", "length", NULL};
    switch (kind) {
    case USD_SHAPE_CUBE:
        return cube;
    case USD_SHAPE_SPHERE:
        return sphere;
    case USD_SHAPE_CONE:
        return cone;
    case USD_SHAPE_PLANE:
        return plane;
    case USD_SHAPE_CYLINDER:
    case USD_SHAPE_CAPSULE:
    default:
        return round;
    }
}

int usd_shape_set(usd_shape *s, const char *name, double value, const usd_geom_ctx *ctx, pk_diag *d)
{
    int zero_ok = strcmp(name, "height") == 0 && s->kind == USD_SHAPE_CAPSULE;
    if (!isfinite(value) || value < 0.0 || (value == 0.0 && !zero_ok)) {
        return fail(ctx, d, "%s: %g makes no shape (a finite number %s 0 is needed)", name, value,
                    zero_ok ? "at or above" : "above");
    }
    if (strcmp(name, "size") == 0) {
        s->size = value;
    } else if (strcmp(name, "radius") == 0) {
        s->radius_bottom = value;
        s->radius_top = s->kind == USD_SHAPE_CONE ? 0.0 : value;
    } else if (strcmp(name, "radiusTop") == 0) {
        s->radius_top = value;
    } else if (strcmp(name, "radiusBottom") == 0) {
        s->radius_bottom = value;
    } else if (strcmp(name, "height") == 0) {
        s->height = value;
    } else if (strcmp(name, "width") == 0) {
        s->width = value;
    } else {
        assert(strcmp(name, "length") == 0);
        s->length = value;
    }
    return 0;
}

int usd_shape_set_axis(usd_shape *s, const char *token, const usd_geom_ctx *ctx, pk_diag *d)
{
    if (token != NULL && token[0] != '\0' && token[1] == '\0' && token[0] >= 'X' && token[0] <= 'Z') {
        s->axis = (usd_shape_axis)(token[0] - 'X');
        return 0;
    }
    return fail(ctx, d, "axis: '%s' is not X, Y or Z", token != NULL ? token : "");
}

int usd_shape_check(const usd_shape *s, const usd_geom_ctx *ctx, pk_diag *d)
{
    if (s->kind != USD_SHAPE_CAPSULE) {
        return 0;
    }
    double diff = fabs(s->radius_top - s->radius_bottom);
    if (diff > 0.0 && diff >= s->height) {
        return fail(
            ctx, d,
            "radiusTop %g and radiusBottom %g differ by %g, not less than height %g: no side is tangent to both "
            "caps",
            s->radius_top, s->radius_bottom, diff, s->height);
    }
    return 0;
}

/* Rings of a capsule between its poles. */
static uint32_t capsule_rings(const usd_shape *s)
{
    return s->height > 0.0 ? 2u * USD_SHAPE_CAPSULE_CAP_RINGS : 2u * USD_SHAPE_CAPSULE_CAP_RINGS - 1u;
}

void usd_shape_counts(const usd_shape *s, uint32_t *vertices, uint32_t *triangles)
{
    const uint32_t S = USD_SHAPE_SEGMENTS;
    uint32_t v = 0, t = 0, rings = 0;
    switch (s->kind) {
    case USD_SHAPE_CUBE:
        v = 24;
        t = 12;
        break;
    case USD_SHAPE_SPHERE:
    case USD_SHAPE_CAPSULE:
        rings = s->kind == USD_SHAPE_SPHERE ? USD_SHAPE_SPHERE_RINGS - 1u : capsule_rings(s);
        v = 2u * S + rings * (S + 1u);
        t = 2u * S + 2u * S * (rings - 1u);
        break;
    case USD_SHAPE_CYLINDER:
        v = 4u * (S + 1u);
        t = 4u * S;
        break;
    case USD_SHAPE_CONE:
        v = 3u * S + 2u;
        t = 2u * S;
        break;
    case USD_SHAPE_PLANE:
    default:
        v = s->double_sided ? 8u : 4u;
        t = s->double_sided ? 4u : 2u;
        break;
    }
    *vertices = v;
    *triangles = t;
}

/* ---- building ---------------------------------------------------------------- */

typedef struct builder {
    const usd_shape *s;
    pk_mesh *m;
    uint32_t v, t; /* vertices and triangles written */
} builder;

/* Appends a vertex: position (u, v, a) and normal in the shape's frame,
 * texture coordinates (s, t) with t up. Returns its index. */
static uint32_t vertex(builder *b, const double p[3], const double n[3], double s, double t)
{
    /* Frame to xyz: Z (u, v, a) -> (u, v, a); X -> (a, u, v); Y -> (v, a, u). */
    static const int place[3][3] = {{1, 2, 0}, {2, 0, 1}, {0, 1, 2}}; /* place[axis][k]: xyz slot of p[k] */
    const int *at = place[b->s->axis];
    double sign = b->s->left_handed ? -1.0 : 1.0;
    float *pos = &b->m->positions[(size_t)b->v * 3];
    float *nor = &b->m->normals[(size_t)b->v * 3];
    for (int k = 0; k < 3; k++) {
        pos[at[k]] = (float)p[k];
        nor[at[k]] = (float)(sign * n[k]);
    }
    b->m->uvs[(size_t)b->v * 2] = (float)s;
    b->m->uvs[(size_t)b->v * 2 + 1] = (float)(1.0 - t);
    return b->v++;
}

/* Appends a triangle counter-clockwise seen from outside (reversed when
 * left-handed). */
static void triangle(builder *b, uint32_t i0, uint32_t i1, uint32_t i2)
{
    uint32_t *o = &b->m->indices[(size_t)b->t * 3];
    o[0] = i0;
    o[1] = b->s->left_handed ? i2 : i1;
    o[2] = b->s->left_handed ? i1 : i2;
    b->t++;
}

/* A ring of S + 1 vertices (the last repeats the first at u = 1) at height a
 * and radius r, normals (nr cos, nr sin, na), texture row t. Returns the
 * first index. */
static uint32_t ring(builder *b, double a, double r, double nr, double na, double t)
{
    const uint32_t S = USD_SHAPE_SEGMENTS;
    uint32_t first = b->v;
    for (uint32_t j = 0; j <= S; j++) {
        double th = 2.0 * PI * (double)(j % S) / (double)S;
        double c = cos(th), s = sin(th);
        double p[3] = {r * c, r * s, a}, n[3] = {nr * c, nr * s, na};
        vertex(b, p, n, (double)j / (double)S, t);
    }
    return first;
}

/* Quads between two rings, lo below hi along the spine. */
static void band(builder *b, uint32_t lo, uint32_t hi)
{
    for (uint32_t j = 0; j < USD_SHAPE_SEGMENTS; j++) {
        triangle(b, lo + j, lo + j + 1u, hi + j + 1u);
        triangle(b, lo + j, hi + j + 1u, hi + j);
    }
}

/* S vertices at a pole (or an apex) at height a, one per segment, each with
 * the normal of its segment's middle: (nr cos, nr sin, na). */
static uint32_t pole(builder *b, double a, double nr, double na, double t)
{
    const uint32_t S = USD_SHAPE_SEGMENTS;
    uint32_t first = b->v;
    for (uint32_t j = 0; j < S; j++) {
        double th = 2.0 * PI * ((double)j + 0.5) / (double)S;
        double p[3] = {0.0, 0.0, a}, n[3] = {nr * cos(th), nr * sin(th), na};
        vertex(b, p, n, ((double)j + 0.5) / (double)S, t);
    }
    return first;
}

/* The fan from pole vertices to a ring: below the ring when top is 0. */
static void fan(builder *b, uint32_t poles, uint32_t rim, int top)
{
    for (uint32_t j = 0; j < USD_SHAPE_SEGMENTS; j++) {
        if (top) {
            triangle(b, rim + j, rim + j + 1u, poles + j);
        } else {
            triangle(b, poles + j, rim + j + 1u, rim + j);
        }
    }
}

/* A flat disc of radius r at height a facing +a (up) or -a, mapped flat:
 * seen from outside, s runs along +u and t along +v (up) or -v (down). */
static void cap(builder *b, double a, double r, int up)
{
    const uint32_t S = USD_SHAPE_SEGMENTS;
    double na = up ? 1.0 : -1.0;
    double pc[3] = {0.0, 0.0, a}, n[3] = {0.0, 0.0, na};
    uint32_t centre = vertex(b, pc, n, 0.5, 0.5);
    uint32_t rim = b->v;
    for (uint32_t j = 0; j < S; j++) {
        double th = 2.0 * PI * (double)j / (double)S;
        double c = cos(th), s = sin(th);
        double p[3] = {r * c, r * s, a};
        vertex(b, p, n, 0.5 + 0.5 * c, 0.5 + 0.5 * na * s);
    }
    for (uint32_t j = 0; j < S; j++) {
        uint32_t k = rim + (j + 1u) % S;
        if (up) {
            triangle(b, centre, rim + j, k);
        } else {
            triangle(b, centre, k, rim + j);
        }
    }
}

static void build_cube(builder *b)
{
    double h = b->s->size * 0.5;
    for (int axis = 0; axis < 3; axis++) {
        for (int side = 0; side < 2; side++) {
            /* The face at +h or -h on axis: (t1, t2, normal) right-handed. */
            double sign = side == 0 ? 1.0 : -1.0;
            int t1 = side == 0 ? (axis + 1) % 3 : (axis + 2) % 3;
            int t2 = side == 0 ? (axis + 2) % 3 : (axis + 1) % 3;
            uint32_t first = b->v;
            static const double corner[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
            for (int k = 0; k < 4; k++) {
                double p[3] = {0, 0, 0}, n[3] = {0, 0, 0};
                p[axis] = sign * h;
                p[t1] = (corner[k][0] * 2.0 - 1.0) * h;
                p[t2] = (corner[k][1] * 2.0 - 1.0) * h;
                n[axis] = sign;
                /* The cube is built in xyz directly: place it as axis Z does. */
                vertex(b, p, n, corner[k][0], corner[k][1]);
            }
            triangle(b, first, first + 1u, first + 2u);
            triangle(b, first, first + 2u, first + 3u);
        }
    }
}

/* A sphere or capsule: a pole fan, latitude rings, a pole fan. The bottom
 * cap is the sphere of radius rb around -h/2, the top one of rt around +h/2;
 * both meet the side at latitude lat0, sin(lat0) = (rb - rt) / h: there the
 * side's line in the (radius, spine) plane is tangent to both circles, so
 * the normal is the same on both ends of the side (smooth). */
static void build_round(builder *b, double rb, double rt, double h, uint32_t cap_rings, int share_equator)
{
    double lat0 = 0.0;
    if (h > 0.0 && rt != rb) {
        lat0 = asin((rb - rt) / h); /* the side's normal leans up when the bottom is larger */
    }
    uint32_t total = 2u * cap_rings; /* bands pole to pole along t */
    double zb = -h * 0.5, zt = h * 0.5;
    uint32_t south = pole(b, zb - rb, 0.0, -1.0, 0.0);
    uint32_t prev = 0;
    /* Bottom cap: rings 1 .. cap_rings, from the pole up to lat0. */
    for (uint32_t k = 1; k <= cap_rings; k++) {
        double lat = -PI * 0.5 + (lat0 + PI * 0.5) * (double)k / (double)cap_rings;
        double c = cos(lat), s = sin(lat);
        uint32_t r = ring(b, zb + rb * s, rb * c, c, s, (double)k / (double)total);
        if (k == 1) {
            fan(b, south, r, 0);
        } else {
            band(b, prev, r);
        }
        prev = r;
    }
    /* Top cap: rings from lat0 (unless it is the same ring) to below the pole. */
    for (uint32_t k = share_equator ? 1u : 0u; k < cap_rings; k++) {
        double lat = lat0 + (PI * 0.5 - lat0) * (double)k / (double)cap_rings;
        double c = cos(lat), s = sin(lat);
        uint32_t r = ring(b, zt + rt * s, rt * c, c, s, (double)(cap_rings + k) / (double)total);
        band(b, prev, r);
        prev = r;
    }
    uint32_t north = pole(b, zt + rt, 0.0, 1.0, 1.0);
    fan(b, north, prev, 1);
}

/* A cylinder (rt > 0) or a cone (rt == 0): the side, then the caps. */
static void build_side(builder *b, double rb, double rt, double h)
{
    double slope = hypot(h, rb - rt);
    double nr = h / slope, na = (rb - rt) / slope;
    uint32_t lo = ring(b, -h * 0.5, rb, nr, na, 0.0);
    if (rt > 0.0) {
        uint32_t hi = ring(b, h * 0.5, rt, nr, na, 1.0);
        band(b, lo, hi);
        cap(b, h * 0.5, rt, 1);
    } else {
        uint32_t apex = pole(b, h * 0.5, nr, na, 1.0);
        fan(b, apex, lo, 1);
    }
    cap(b, -h * 0.5, rb, 0);
}

static void build_plane(builder *b)
{
    /* Width along U for axis Z, along V for X and Y (the schema's table). */
    int width_on_u = b->s->axis == USD_SHAPE_AXIS_Z;
    double hu = (width_on_u ? b->s->width : b->s->length) * 0.5;
    double hv = (width_on_u ? b->s->length : b->s->width) * 0.5;
    static const double corner[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
    for (int face = 0; face < (b->s->double_sided ? 2 : 1); face++) {
        double na = face == 0 ? 1.0 : -1.0;
        uint32_t first = b->v;
        for (int k = 0; k < 4; k++) {
            double p[3] = {(corner[k][0] * 2.0 - 1.0) * hu, (corner[k][1] * 2.0 - 1.0) * hv, 0.0};
            double n[3] = {0.0, 0.0, na};
            /* The back face seen from behind: s mirrored, so the image reads the right way round. */
            vertex(b, p, n, face == 0 ? corner[k][0] : 1.0 - corner[k][0], corner[k][1]);
        }
        if (face == 0) {
            triangle(b, first, first + 1u, first + 2u);
            triangle(b, first, first + 2u, first + 3u);
        } else {
            triangle(b, first, first + 2u, first + 1u);
            triangle(b, first, first + 3u, first + 2u);
        }
    }
}

int usd_shape_tessellate(const usd_shape *s, const usd_geom_ctx *ctx, pk_mesh *out, pk_diag *d)
{
    memset(out, 0, sizeof *out);
    if (usd_shape_check(s, ctx, d) != 0) {
        return -1;
    }
    uint32_t nv = 0, nt = 0;
    usd_shape_counts(s, &nv, &nt);
    out->positions = malloc((size_t)nv * 3 * sizeof(float));
    out->normals = malloc((size_t)nv * 3 * sizeof(float));
    out->uvs = malloc((size_t)nv * 2 * sizeof(float));
    out->indices = malloc((size_t)nt * 3 * sizeof(uint32_t));
    if (out->positions == NULL || out->normals == NULL || out->uvs == NULL || out->indices == NULL) {
        pk_mesh_free(out);
        return fail(ctx, d, "out of memory");
    }
    out->vertex_count = nv;
    out->index_count = nt * 3u;
    usd_shape cube_frame;
    builder b = {s, out, 0, 0};
    switch (s->kind) {
    case USD_SHAPE_CUBE:
        /* Built in xyz: the identity placement is axis Z's. */
        cube_frame = *s;
        cube_frame.axis = USD_SHAPE_AXIS_Z;
        b.s = &cube_frame;
        build_cube(&b);
        break;
    case USD_SHAPE_SPHERE:
        build_round(&b, s->radius_bottom, s->radius_bottom, 0.0, USD_SHAPE_SPHERE_RINGS / 2u, 1);
        break;
    case USD_SHAPE_CAPSULE:
        build_round(&b, s->radius_bottom, s->radius_top, s->height, USD_SHAPE_CAPSULE_CAP_RINGS, !(s->height > 0.0));
        break;
    case USD_SHAPE_CYLINDER:
    case USD_SHAPE_CONE:
        build_side(&b, s->radius_bottom, s->kind == USD_SHAPE_CONE ? 0.0 : s->radius_top, s->height);
        break;
    case USD_SHAPE_PLANE:
    default:
        build_plane(&b);
        break;
    }
    assert(b.v == nv && b.t == nt);
    return 0;
}
