/* SPDX-License-Identifier: MIT */
/* sluice pack: USD geometry as pure functions. A Mesh prim's properties, as
 * plain arrays a layer reader returns, become a pk_mesh in the prim's local
 * space; an xformOpOrder with its op values becomes a local matrix; a
 * stage's upAxis and metersPerUnit become the matrix to the pack's Y-up
 * metres. Nothing here knows the layer model: the caller reads the
 * properties, picks them by name with the helpers below and passes arrays.
 *
 * Conventions. The pack is right-handed with counter-clockwise front faces
 * and column-vector matrices stored column-major (pk_instance.matrix, as
 * glTF): m[col * 4 + row], v' = M v. USD writes row vectors (v' = v M) and
 * the FIRST op of xformOpOrder is outermost; the functions here convert, so
 * every matrix they return is already in the pack's convention.
 *
 * Messages. Every failure fills d->message as "WHERE: what: why", WHERE
 * being ctx->where (the caller's "file: /prim/path", or "mesh" when NULL),
 * and names the property, the element and the failed check:
 * "a.usda: /World/Box: faceVertexCounts[3]: count 2 is below 3".
 *
 * Every function is reentrant: it touches only its arguments (and calls
 * ctx->warn), so independent calls may run on any threads. */
#ifndef SLUICE_TOOLS_PACK_USD_GEOM_H
#define SLUICE_TOOLS_PACK_USD_GEOM_H

#include <stdint.h>

#include "mesh.h"

/* Where messages come from and where warnings go. A zeroed struct is valid:
 * messages start "mesh: ", warnings are dropped. */
typedef struct usd_geom_ctx {
    const char *where; /* "file: /prim/path", or NULL */
    void (*warn)(void *user, const char *message);
    void *user;
} usd_geom_ctx;

/* ---- Triangulation ------------------------------------------------------ */

/* Concave polygons with more vertices than this are not ear-clipped (ear
 * clipping here is O(n^2) typical, O(n^3) worst case per polygon): they
 * are fanned, with a warning naming the face, so a hostile file cannot make
 * the packer spin. Convex ones of any size are fans anyway. */
#define USD_GEOM_MAX_EAR_CLIP_VERTICES 4096u

/* A Mesh prim's topology, as read from its attributes. Counts are element
 * counts (points: float3 elements). A zeroed struct is an empty mesh. */
typedef struct usd_mesh_topology {
    const int32_t *face_vertex_counts; /* faceVertexCounts */
    uint32_t face_count;
    const int32_t *face_vertex_indices; /* faceVertexIndices */
    uint32_t index_count;
    const float *points; /* points: 3 floats per point */
    uint32_t point_count;
    const int32_t *hole_indices; /* holeIndices (may be NULL) */
    uint32_t hole_count;
    int left_handed; /* orientation = "leftHanded" (0: rightHanded, the default) */
} usd_mesh_topology;

/* Triangles as face corners: corners[3 t + k] is a position in
 * faceVertexIndices (so a faceVarying primvar is gathered with the same
 * number, a vertex primvar through faceVertexIndices[corner]); faces[t] is
 * the face triangle t comes from (for uniform primvars). */
typedef struct usd_triangles {
    uint32_t count;    /* triangles */
    uint32_t *corners; /* 3 per triangle, counter-clockwise front faces */
    uint32_t *faces;   /* 1 per triangle */
} usd_triangles;

/* Triangulates every face. A face of n vertices gives n - 2 triangles:
 *  - a triangle as is; a polygon convex in its plane (the plane of its
 *    Newell normal; every turn the same way) as a fan from its first
 *    corner; a concave or non-planar but simple polygon by ear clipping in
 *    its projection on that plane (every triangle positive area there, the
 *    areas summing to the polygon's); a degenerate one (zero Newell normal:
 *    collinear or zero area) or one where clipping finds no ear
 *    (self-intersecting) as a fan, never looping; a concave one over
 *    USD_GEOM_MAX_EAR_CLIP_VERTICES as a fan with a warning;
 *  - faces listed in holeIndices are skipped: for a polygonal mesh (the
 *    only kind the pack imports; subdivision is not applied) that is what a
 *    hole means. A hole index out of range is an error;
 *  - left_handed: every triangle's winding is reversed, so front faces are
 *    counter-clockwise in the pack.
 * Fails (-1, *out zeroed) iff a face count is 0, negative or below 3 ("count
 * 0 is below 3"), the counts' sum differs from index_count, a face vertex
 * index is negative or >= point_count (naming the face, the corner and the
 * index: "faceVertexIndices[7] (face 2): index 9 out of range (8 points)"),
 * a hole index is out of range, or memory runs out. Returns 0 with
 * out->count == 0 for an empty mesh. Allocates out's two arrays
 * (usd_triangles_free); O(corners) plus the ear clipping; scratch is one
 * buffer sized by the largest face. */
int usd_geom_triangulate(const usd_mesh_topology *t, const usd_geom_ctx *ctx, usd_triangles *out, pk_diag *d);

void usd_triangles_free(usd_triangles *t);

/* ---- Primvars and vertex splitting --------------------------------------- */

typedef enum usd_interp {
    USD_INTERP_CONSTANT = 0, /* 1 element */
    USD_INTERP_UNIFORM,      /* one per face (faceVertexCounts, holes included) */
    USD_INTERP_VERTEX,       /* one per point */
    USD_INTERP_VARYING,      /* one per point (for a polygonal mesh, as vertex) */
    USD_INTERP_FACE_VARYING  /* one per face corner (faceVertexIndices) */
} usd_interp;

/* Parses an interpolation token ("constant", "uniform", "vertex",
 * "varying", "faceVarying"). NULL or "" gives *out = dflt. Returns 0, or -1
 * for any other token (out unchanged). The default the caller passes is
 * USD's: USD_INTERP_VERTEX for the `normals` attribute (UsdGeomPointBased),
 * USD_INTERP_CONSTANT for a primvar without interpolation metadata. O(1). */
int usd_interp_parse(const char *token, usd_interp dflt, usd_interp *out);

/* The token of an interpolation, for messages: "faceVarying". O(1). */
const char *usd_interp_name(usd_interp i);

/* One primvar (or the `normals` attribute): values of `components` floats
 * each (normals 3, texcoords 2), optionally indexed (primvars:X:indices):
 * element i is values[indices[i]]. */
typedef struct usd_primvar {
    const char *name; /* for messages: "primvars:st" */
    const float *values;
    uint32_t value_count;   /* elements, not floats */
    const int32_t *indices; /* NULL: not indexed */
    uint32_t index_count;
    usd_interp interp;
    uint32_t element_size; /* elementSize metadata; 0 means 1; only 1 is imported */
} usd_primvar;

/* What becomes one pk_mesh. normals and uvs may be NULL. */
typedef struct usd_mesh_input {
    usd_mesh_topology topology;
    const usd_primvar *normals; /* 3 floats per value */
    const usd_primvar *uvs;     /* 2 floats per value: USD st */
    /* 0: a primvar whose element count does not fit its interpolation, an
     * index out of range or an elementSize other than 1 is an error.
     * 1: it is a warning with the same text and the primvar is dropped
     * (the mesh is built without it). */
    int drop_bad_primvars;
} usd_mesh_input;

/* Triangulates (usd_geom_triangulate) and builds the mesh: one output vertex
 * per distinct (point index, normal, uv) tuple, numbered in order of first
 * occurrence over the triangles' corners, so a faceVarying seam splits a
 * vertex and a shared one stays shared (a cube with faceVarying normals has
 * 24 vertices, with vertex normals 8). Values are compared by their bits
 * after mapping -0.0 to 0.0. Element counts are checked per interpolation
 * (constant 1, uniform faces, vertex/varying points, faceVarying corners;
 * an indexed primvar's index count is checked, and each index against the
 * values): "primvars:st: faceVarying needs 24 elements, has 23". For the
 * pack's texture convention (v down, as glTF) uv = (st.s, 1 - st.t).
 * Normals are copied as authored, not normalised and not flipped for
 * leftHanded: USD normals point out of the front face whatever the
 * orientation, and reversing the winding is what makes the triangles' own
 * facing agree with them. Positions and normals stay in the prim's local
 * space (the caller's instance matrix places them). out->name is left "".
 * Fails (-1, *out zeroed) as usd_geom_triangulate does, on a bad primvar
 * unless drop_bad_primvars, or when the mesh would have more than
 * UINT32_MAX indices or memory runs out. Allocates out's arrays (free with
 * pk_mesh_free) and a hash table of 2 slots per corner; O(corners). */
int usd_geom_build_mesh(const usd_mesh_input *in, const usd_geom_ctx *ctx, pk_mesh *out, pk_diag *d);

/* Which attribute gives normals: of a Mesh prim's property names (n of
 * them), the index of "primvars:normals" if present, else of "normals",
 * else -1. O(n). */
int32_t usd_geom_pick_normals(const char *const *names, uint32_t n);

/* Which primvar gives texcoords: the index of "primvars:st" if present,
 * else, of the primvars ("primvars:X", no further namespace, so not
 * "primvars:X:indices") whose type (types[i], e.g. "texCoord2f[]") is
 * float2[] or texCoord2f[] (also texCoord2h/d, float2/half2/double2
 * arrays), the first by name (strcmp order), else -1. O(n). */
int32_t usd_geom_pick_texcoords(const char *const *names, const char *const *types, uint32_t n);

/* ---- xformOps -------------------------------------------------------------- */

typedef enum usd_xform_op_kind {
    USD_XFORM_TRANSLATE = 0, /* 3 values */
    USD_XFORM_TRANSLATE_X,   /* 1 value each (newer USD) */
    USD_XFORM_TRANSLATE_Y,
    USD_XFORM_TRANSLATE_Z,
    USD_XFORM_SCALE,   /* 3 */
    USD_XFORM_SCALE_X, /* 1 */
    USD_XFORM_SCALE_Y,
    USD_XFORM_SCALE_Z,
    USD_XFORM_ROTATE_X, /* 1, degrees */
    USD_XFORM_ROTATE_Y,
    USD_XFORM_ROTATE_Z,
    USD_XFORM_ROTATE_XYZ, /* 3, degrees, always (x, y, z) whatever the order */
    USD_XFORM_ROTATE_XZY,
    USD_XFORM_ROTATE_YXZ,
    USD_XFORM_ROTATE_YZX,
    USD_XFORM_ROTATE_ZXY,
    USD_XFORM_ROTATE_ZYX,
    USD_XFORM_ORIENT,     /* 4: quaternion (w, x, y, z) */
    USD_XFORM_TRANSFORM,  /* 16: matrix4d, row-major as USD writes it */
    USD_XFORM_RESET_STACK /* "!resetXformStack!": no value, no attribute */
} usd_xform_op_kind;

/* One entry of xformOpOrder, parsed, with the value the caller read from
 * its attribute (as doubles; for a quaternion (w, x, y, z), real part first
 * as USDA text writes it; a crate stores GfQuat as (x, y, z, w) and its
 * reader converts). */
typedef struct usd_xform_op {
    usd_xform_op_kind kind;
    int invert;         /* "!invert!" prefix */
    const char *attr;   /* into the parsed name: the attribute to read,
                         * "xformOp:translate:pivot"; "" for RESET_STACK */
    const char *suffix; /* into the parsed name: "pivot", "" when none */
    double value[16];   /* filled by the caller */
    uint32_t value_count;
} usd_xform_op;

/* The number of values an op of this kind takes (3, 1, 4, 16 or 0). O(1). */
uint32_t usd_xform_op_value_count(usd_xform_op_kind k);

/* Parses an xformOpOrder token: "xformOp:KIND" or "xformOp:KIND:SUFFIX"
 * (the suffix may itself hold ':'), optionally prefixed "!invert!", or
 * exactly "!resetXformStack!". Sets kind, invert, attr and suffix (pointers
 * into name, which must outlive op), zeroes value. Fails (-1) iff the
 * token is none of these ("xformOpOrder[2]: 'xformOp:spin' is not an
 * xformOp (unknown op type 'spin')"); `index` is its position in
 * xformOpOrder, for the message. O(length). */
int usd_xform_op_parse(const char *name, uint32_t index, usd_xform_op *op, const usd_geom_ctx *ctx, pk_diag *d);

/* How far a transform op's last column may be from (0, 0, 0, 1) and the
 * op still be affine. */
#define USD_XFORM_AFFINE_TOLERANCE 1e-6

/* The matrix of one op (inverted when op->invert), column-major column
 * vectors. Fails (-1) iff value_count differs from the kind's count
 * ("xformOp:rotateXYZ: needs 3 values, has 2"), a value is not finite, an
 * orient quaternion has zero length (it is normalised otherwise), a
 * transform is not affine ("xformOp:transform: not an affine transform
 * (last column (0, 0, 0.5, 1), not (0, 0, 0, 1))"), or an inverted op is
 * singular (a zero scale, a singular transform). O(1). */
int usd_xform_op_matrix(const usd_xform_op *op, const usd_geom_ctx *ctx, double out[16], pk_diag *d);

/* Composes ops[0..n) in xformOpOrder order, the first outermost: M =
 * M(ops[0]) * M(ops[1]) * ... Ops before the last RESET_STACK are ignored
 * (as UsdGeomXformable does) and *resets (may be NULL) says whether there
 * was one: the prim then does not inherit its parent's transform. n == 0
 * gives the identity. Fails as usd_xform_op_matrix. O(n). */
int usd_xform_compose(const usd_xform_op *ops, uint32_t n, const usd_geom_ctx *ctx, double out[16], int *resets,
                      pk_diag *d);

/* ---- Stage units ------------------------------------------------------------- */

typedef enum usd_up_axis {
    USD_UP_Y = 0, /* USD's fallback */
    USD_UP_Z
} usd_up_axis;

/* Parses upAxis: "Y" or "Z"; NULL or "" gives Y. Returns 0, or -1 for
 * anything else. O(1). */
int usd_up_axis_parse(const char *token, usd_up_axis *out);

/* The stage-to-pack matrix: Z-up is turned to Y-up by -90 degrees about X
 * ((x, y, z) -> (x, z, -y)), then scaled by metersPerUnit to metres (USD's
 * fallback is 0.01: pass what the layer says, or 0.01 when unset). Fails
 * (-1) iff meters_per_unit is not finite or not positive. O(1). */
int usd_geom_stage_matrix(usd_up_axis up, double meters_per_unit, const usd_geom_ctx *ctx, double out[16], pk_diag *d);

/* ---- Matrix helpers ---------------------------------------------------------- */

void usd_geom_matrix_identity(double out[16]);
/* out = a * b (column-major); out may alias a or b. */
void usd_geom_matrix_mul(const double a[16], const double b[16], double out[16]);
/* Returns 0 and the inverse, or -1 (out unchanged) when m is singular:
 * Gauss-Jordan elimination with partial pivoting meets a pivot at most
 * 1e-14 times m's largest element (so rounding cannot make a rank-3
 * matrix invertible), or an element is not finite. O(1). */
int usd_geom_matrix_invert(const double m[16], double out[16]);
/* To the float matrix of a pk_instance. */
void usd_geom_matrix_to_float(const double m[16], float out[16]);

#endif
