/* SPDX-License-Identifier: MIT */
/* sluice pack: USD's implicit gprims (Cube, Sphere, Cylinder, Cone, Capsule,
 * Plane, and the newer Cylinder_1 and Capsule_1) tessellated into a pk_mesh
 * in the prim's local space, as pure functions. The caller (usd_stage.c)
 * reads the schema's attributes and hands each value to usd_shape_set, which
 * checks it; usd_shape_tessellate then builds the mesh that goes down the
 * same path as a Mesh prim's (LOD chain by simplification, clusters).
 *
 * Schema (UsdGeom), every shape centred at the origin:
 *   Cube      size = 2: edge length.
 *   Sphere    radius = 1.
 *   Cylinder  radius = 1, height = 2, axis = "Z"; caps closed. Cylinder_1
 *             has radiusTop and radiusBottom (1) instead: the top is the +axis
 *             end. Authored radiusTop/radiusBottom win over radius.
 *   Cone      radius = 1, height = 2, axis = "Z": apex at +height/2 on the
 *             axis, base closed at -height/2.
 *   Capsule   radius = 0.5, height = 1 (the spine between the centres of the
 *             two hemispherical caps, caps excluded), axis = "Z". Capsule_1
 *             has radiusTop and radiusBottom (0.5): each cap is a part of the
 *             sphere of its radius around its end of the spine, and the side
 *             is tangent to both spheres (the schema's rule), so the side is a
 *             frustum when the radii differ.
 *   Plane     width = 2, length = 2, axis = "Z" (the normal), doubleSided =
 *             true (the Plane schema's own fallback; other gprims' is false).
 *
 * Axes. A round shape's spine is `axis`; the circle around it is spanned by
 * the next two axes in cyclic order, (U, V, A) right-handed: Z: (X, Y, Z),
 * X: (Y, Z, X), Y: (Z, X, Y); the seam (u = 0) lies on +U. A Plane spans
 * width and length as the schema's table says: axis X: width along Z, length
 * along Y; Y: width X, length Z; Z: width X, length Y; its front faces +axis.
 *
 * Output: counter-clockwise front faces seen from outside, unit normals
 * pointing out (flat on the cube's faces, the cylinder's and cone's caps and
 * the plane; smooth elsewhere: a sphere's and capsule's are the unit
 * direction from their sphere's centre, a cylinder's or cone's side tilted by
 * its slope), texture coordinates in [0, 1] written as the pack's (u, 1 - t)
 * of a USD st whose t runs up: per cube face the whole square; around a round
 * shape u = angle / 2 pi from +U, t from the bottom (-axis) to the top; caps
 * and planes mapped flat. orientation = "leftHanded" makes the inside the
 * front: every triangle's winding is reversed and every normal negated, so
 * normals still point out of the front face as the mesh path has them.
 *
 * Every function is reentrant. */
#ifndef SLUICE_TOOLS_PACK_USD_SHAPE_H
#define SLUICE_TOOLS_PACK_USD_SHAPE_H

#include <stdint.h>

#include "mesh.h"
#include "usd_geom.h"

/* ---- Resolution: one place, the pack's level 0 -------------------------- */

/* Segments around the spine of every round shape (a multiple of 4, so the
 * extremes along U and V are vertices and the bounds are exact). */
#define USD_SHAPE_SEGMENTS 32u
/* Latitude bands of a sphere, pole to pole (even: the equator is a ring). */
#define USD_SHAPE_SPHERE_RINGS 16u
/* Latitude bands of each capsule cap, from its pole to where the side joins. */
#define USD_SHAPE_CAPSULE_CAP_RINGS 8u

typedef enum usd_shape_kind {
    USD_SHAPE_CUBE = 0,
    USD_SHAPE_SPHERE,
    USD_SHAPE_CYLINDER, /* Cylinder and Cylinder_1 */
    USD_SHAPE_CONE,
    USD_SHAPE_CAPSULE, /* Capsule and Capsule_1 */
    USD_SHAPE_PLANE
} usd_shape_kind;

typedef enum usd_shape_axis {
    USD_SHAPE_AXIS_X = 0,
    USD_SHAPE_AXIS_Y,
    USD_SHAPE_AXIS_Z /* the schemas' fallback */
} usd_shape_axis;

/* One shape's parameters. usd_shape_init gives the schema's fallbacks. */
typedef struct usd_shape {
    usd_shape_kind kind;
    usd_shape_axis axis;
    double size;          /* Cube */
    double radius_top;    /* Sphere: its radius; Cone: unused (the apex) */
    double radius_bottom; /* Sphere: as radius_top */
    double height;        /* Cylinder, Cone, Capsule */
    double width, length; /* Plane */
    int double_sided;     /* Plane: also the back face */
    int left_handed;      /* orientation = "leftHanded" */
} usd_shape;

/* The kind of a prim type name: "Cube", "Sphere", "Cylinder", "Cylinder_1",
 * "Cone", "Capsule", "Capsule_1", "Plane". Returns 0, or -1 (out unchanged)
 * for any other type. O(1). */
int usd_shape_kind_parse(const char *type_name, usd_shape_kind *out);

/* The schema's fallbacks for kind (see the top of this file). O(1). */
void usd_shape_init(usd_shape_kind kind, usd_shape *out);

/* The numeric attributes the kind reads, in the order to apply them (so
 * radiusTop and radiusBottom come after radius and win over it), NULL
 * terminated: Cube {size}, Sphere {radius}, Cylinder {radius, radiusTop,
 * radiusBottom, height}, Cone {radius, height}, Capsule {radius, radiusTop,
 * radiusBottom, height}, Plane {width, length}. O(1). */
const char *const *usd_shape_attributes(usd_shape_kind kind);

/* Sets the numeric attribute name (one of usd_shape_attributes(s->kind);
 * "radius" sets both radii) to value. Fails (-1, s unchanged) iff the value
 * makes no shape, naming the attribute and the value: a size, radius, width
 * or length that is not a finite number above 0, a Cylinder's or Cone's
 * height that is not above 0, a Capsule's height below 0 (0 is a sphere):
 * "a.usda: </S>: radius: -1 makes no shape (a finite number above 0 is
 * needed)". An unknown name is a caller mistake (asserted). O(1). */
int usd_shape_set(usd_shape *s, const char *name, double value, const usd_geom_ctx *ctx, pk_diag *d);

/* Sets the axis from its token "X", "Y" or "Z". Fails (-1, s unchanged) for
 * any other token: "axis: 'W' is not X, Y or Z". O(1). */
int usd_shape_set_axis(usd_shape *s, const char *token, const usd_geom_ctx *ctx, pk_diag *d);

/* Checks what no single attribute shows: a capsule whose radii differ by as
 * much as its height or more has no side tangent to both caps (one sphere
 * holds the other): "radiusTop 2 and radiusBottom 0.5 differ by 1.5, not less
 * than height 1: no side is tangent to both caps". Returns 0 or -1. O(1). */
int usd_shape_check(const usd_shape *s, const usd_geom_ctx *ctx, pk_diag *d);

/* The vertex and triangle counts usd_shape_tessellate gives, with S =
 * USD_SHAPE_SEGMENTS, R = USD_SHAPE_SPHERE_RINGS, C =
 * USD_SHAPE_CAPSULE_CAP_RINGS:
 *   Cube      24 vertices, 12 triangles (4 and 2 a face);
 *   Sphere    2 S + (R - 1)(S + 1) vertices, 2 S + 2 S (R - 2) triangles
 *             (a fan at each pole, one pole vertex per segment);
 *   Cylinder  4 (S + 1) vertices, 4 S triangles (side, two capped fans);
 *   Cone      3 S + 2 vertices, 2 S triangles (an apex vertex per segment);
 *   Capsule   with N = 2 C rings (2 C - 1 when height is 0: the caps share
 *             the equator), 2 S + N (S + 1) vertices, 2 S + 2 S (N - 1)
 *             triangles;
 *   Plane     4 vertices, 2 triangles; 8 and 4 when double sided.
 * O(1). */
void usd_shape_counts(const usd_shape *s, uint32_t *vertices, uint32_t *triangles);

/* Builds the mesh (positions, normals, uvs, indices) in the prim's local
 * space; out->name is left "". Fails (-1, *out zeroed) iff usd_shape_check
 * fails or memory runs out. Allocates out's arrays (pk_mesh_free);
 * O(vertices). */
int usd_shape_tessellate(const usd_shape *s, const usd_geom_ctx *ctx, pk_mesh *out, pk_diag *d);

#endif
