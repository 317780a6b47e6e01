/* sluice pack: USD geometry as pure functions (see usd_geom.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "usd_geom.h"

static int not_yet(const usd_geom_ctx *ctx, pk_diag *d)
{
    snprintf(d->message, sizeof d->message, "%s: USD geometry is not importable yet",
             ctx && ctx->where ? ctx->where : "mesh");
    return -1;
}

int usd_geom_triangulate(const usd_mesh_topology *t, const usd_geom_ctx *ctx, usd_triangles *out, pk_diag *d)
{
    (void)t;
    memset(out, 0, sizeof *out);
    return not_yet(ctx, d);
}

void usd_triangles_free(usd_triangles *t)
{
    free(t->corners);
    free(t->faces);
    memset(t, 0, sizeof *t);
}

int usd_interp_parse(const char *token, usd_interp dflt, usd_interp *out)
{
    (void)token;
    *out = dflt;
    return 0;
}

const char *usd_interp_name(usd_interp i)
{
    (void)i;
    return "constant";
}

int usd_geom_build_mesh(const usd_mesh_input *in, const usd_geom_ctx *ctx, pk_mesh *out, pk_diag *d)
{
    (void)in;
    memset(out, 0, sizeof *out);
    return not_yet(ctx, d);
}

int32_t usd_geom_pick_normals(const char *const *names, uint32_t n)
{
    (void)names;
    (void)n;
    return -1;
}

int32_t usd_geom_pick_texcoords(const char *const *names, const char *const *types, uint32_t n)
{
    (void)names;
    (void)types;
    (void)n;
    return -1;
}

uint32_t usd_xform_op_value_count(usd_xform_op_kind k)
{
    (void)k;
    return 0;
}

int usd_xform_op_parse(const char *name, uint32_t index, usd_xform_op *op, const usd_geom_ctx *ctx, pk_diag *d)
{
    (void)name;
    (void)index;
    memset(op, 0, sizeof *op);
    return not_yet(ctx, d);
}

int usd_xform_op_matrix(const usd_xform_op *op, const usd_geom_ctx *ctx, double out[16], pk_diag *d)
{
    (void)op;
    (void)out;
    return not_yet(ctx, d);
}

int usd_xform_compose(const usd_xform_op *ops, uint32_t n, const usd_geom_ctx *ctx, double out[16], int *resets,
                      pk_diag *d)
{
    (void)ops;
    (void)n;
    (void)out;
    (void)resets;
    return not_yet(ctx, d);
}

int usd_up_axis_parse(const char *token, usd_up_axis *out)
{
    (void)token;
    *out = USD_UP_Y;
    return 0;
}

int usd_geom_stage_matrix(usd_up_axis up, double meters_per_unit, const usd_geom_ctx *ctx, double out[16],
                          pk_diag *d)
{
    (void)up;
    (void)meters_per_unit;
    (void)out;
    return not_yet(ctx, d);
}

void usd_geom_matrix_identity(double out[16])
{
    memset(out, 0, 16 * sizeof out[0]);
    out[0] = out[5] = out[10] = out[15] = 1.0;
}

void usd_geom_matrix_mul(const double a[16], const double b[16], double out[16])
{
    double r[16];
    for (int c = 0; c < 4; c++)
        for (int i = 0; i < 4; i++) {
            double s = 0.0;
            for (int k = 0; k < 4; k++)
                s += a[k * 4 + i] * b[c * 4 + k];
            r[c * 4 + i] = s;
        }
    memcpy(out, r, sizeof r);
}

int usd_geom_matrix_invert(const double m[16], double out[16])
{
    (void)m;
    (void)out;
    return -1;
}

void usd_geom_matrix_to_float(const double m[16], float out[16])
{
    for (int i = 0; i < 16; i++)
        out[i] = (float)m[i];
}
