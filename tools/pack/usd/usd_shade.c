/* SPDX-License-Identifier: MIT */
/* sluice pack: USD materials (usd_shade.h): a Material's UsdPreviewSurface
 * network read into a pk_material, and its slot images built and handed to
 * the sink. */
#define _POSIX_C_SOURCE 200809L

#include "usd_shade.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "pack_writer.h"

/* Interface inputs followed from one connection to the next, at most. */
#define SHADE_MAX_HOPS 16u

typedef struct known_material {
    char *path;
    int32_t entry; /* -1: left out */
} known_material;

typedef struct given_texture {
    uint64_t key;
    uint32_t id;
} given_texture;

typedef struct given_material {
    int32_t entry;
    int double_sided;
    uint32_t dropped;
    uint32_t id;
} given_material;

struct usd_shade_table {
    usd_shade_material *mats;
    uint32_t mat_count, mat_cap;
    known_material *known;
    uint32_t known_count, known_cap;
    given_texture *textures;
    uint32_t texture_count, texture_cap;
    given_material *given;
    uint32_t given_count, given_cap;
    const char **files; /* every material's files, each once (the materials own them) */
    uint32_t file_count, file_cap;
};

static void material_free(usd_shade_material *sm)
{
    free(sm->path);
    for (uint32_t s = 0; s < PK_SLOT_COUNT; s++) {
        free(sm->slot[s].texture);
        free(sm->slot[s].primvar);
    }
    for (uint32_t i = 0; i < sm->file_count; i++) {
        free(sm->file[i].resolved);
        free(sm->file[i].written);
    }
    memset(sm, 0, sizeof *sm);
}

usd_shade_table *usd_shade_table_create(void)
{
    return calloc(1, sizeof(usd_shade_table));
}

void usd_shade_table_free(usd_shade_table *t)
{
    if (t == NULL) {
        return;
    }
    for (uint32_t i = 0; i < t->mat_count; i++) {
        material_free(&t->mats[i]);
    }
    for (uint32_t i = 0; i < t->known_count; i++) {
        free(t->known[i].path);
    }
    free(t->mats);
    free(t->known);
    free(t->textures);
    free(t->given);
    free(t->files);
    free(t);
}

const usd_shade_material *usd_shade_table_at(const usd_shade_table *t, int32_t entry)
{
    return entry >= 0 && (uint32_t)entry < t->mat_count ? &t->mats[entry] : NULL;
}

const char *usd_shade_table_file(const usd_shade_table *t, uint32_t i)
{
    return i < t->file_count ? t->files[i] : NULL;
}

/* ---- paths ------------------------------------------------------------------ */

/* The names from the root to spec, variant nodes left out: "/A/B". */
static size_t plain_path(const usd_prim *spec, char *out, size_t cap)
{
    const char *names[USD_MAX_PATH / 2] = {NULL};
    uint32_t n = 0;
    for (const usd_prim *p = spec; p != NULL && p->parent != NULL && n < USD_MAX_PATH / 2; p = p->parent) {
        if (!p->is_variant) {
            names[n++] = p->name;
        }
    }
    size_t k = 0;
    out[0] = '\0';
    for (uint32_t i = n; i-- > 0;) {
        int w = snprintf(out + k, cap - k, "/%s", names[i]);
        if (w < 0 || (size_t)w >= cap - k) {
            return 0;
        }
        k += (size_t)w;
    }
    if (k == 0 && cap > 1) {
        out[0] = '/';
        out[1] = '\0';
        k = 1;
    }
    return k;
}

size_t usd_shade_map_path(const char *composed_path, const usd_prim *owner, const char *target, char *out, size_t cap)
{
    if (target[0] != '/') {
        return usd_path_anchor(composed_path, target, out, cap);
    }
    char spec[USD_MAX_PATH], comp[USD_MAX_PATH];
    size_t sn = plain_path(owner, spec, sizeof spec), cn = strlen(composed_path), tn = strlen(target);
    if (sn == 0 || cn >= sizeof comp) {
        return 0;
    }
    memcpy(comp, composed_path, cn + 1);
    /* Strip the names both paths end with: what is left are the arc's
     * source (in the owner's layer) and where the arcs put it. */
    while (sn > 1 && cn > 1) {
        const char *a = strrchr(spec, '/'), *b = strrchr(comp, '/');
        size_t al = sn - (size_t)(a - spec), bl = cn - (size_t)(b - comp);
        if (al != bl || memcmp(a, b, al) != 0) {
            break;
        }
        sn = (size_t)(a - spec);
        cn = (size_t)(b - comp);
        spec[sn] = '\0';
        comp[cn] = '\0';
    }
    /* spec is "" when every name matched (the arc's source is a root
     * prim's parent: the pseudo-root), else the source prim's path. */
    const int under = sn == 0 ||
                      (tn >= sn && memcmp(target, spec, sn) == 0 && (target[sn] == '/' || target[sn] == '\0'));
    if ((sn == cn && memcmp(spec, comp, sn) == 0) || !under) {
        /* No arc between them, or a target outside the arc's source: as
         * written. */
        if (tn + 1 > cap) {
            return 0;
        }
        memcpy(out, target, tn + 1);
        return tn;
    }
    int w = snprintf(out, cap, "%s%s", comp, target + sn);
    return w < 0 || (size_t)w >= cap ? 0 : (size_t)w;
}

/* ---- reading a network ------------------------------------------------------- */

/* What a refusal leaves out under skip_unsupported. */
typedef enum scope { SCOPE_MATERIAL, SCOPE_TEXTURE } scope;

typedef struct reader {
    const usd_shade_stage *st;
    usd_shade_material *out;
    pk_diag *d;
    const char *surf;       /* the UsdPreviewSurface's composed path */
    const char *surf_layer; /* its layer's name */
} reader;

/* An error, or under skip_unsupported a warning saying what is left out
 * (returns 1). */
__attribute__((format(printf, 3, 4))) static int refuse(reader *r, scope what, const char *fmt, ...)
{
    char msg[sizeof r->d->message];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (!r->st->skip_unsupported) {
        snprintf(r->d->message, sizeof r->d->message, "%s", msg);
        return -1;
    }
    if (r->st->warn != NULL) {
        char w[sizeof msg + 64];
        snprintf(w, sizeof w, "%s; %s", msg,
                 what == SCOPE_MATERIAL ? "the material is ignored" : "the texture is ignored");
        r->st->warn(r->st->user, w);
    }
    return 1;
}

static void warn(reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(reader *r, const char *fmt, ...)
{
    char msg[sizeof r->d->message];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (r->st->warn != NULL) {
        r->st->warn(r->st->user, msg);
    }
}

/* A composed prim held for the length of a read. */
typedef struct held {
    usd_shade_prim *p;
    char path[USD_MAX_PATH];
} held;

static void held_release(reader *r, held *h)
{
    if (h->p != NULL) {
        r->st->release(r->st->user, h->p);
        h->p = NULL;
    }
}

/* An input, resolved: unauthored, a value (prop holds it), or a shader's
 * output (src, output). */
typedef enum input_kind { INPUT_NONE, INPUT_VALUE, INPUT_OUTPUT } input_kind;

typedef struct input {
    input_kind kind;
    const usd_prop *prop; /* INPUT_VALUE: the attribute; its prim stays composed while held is */
    held holder;          /* the prim prop belongs to when it is not the asked prim (an interface input) */
    char src[USD_MAX_PATH];
    char output[USD_MAX_IDENTIFIER + 1];
} input;

/* Resolves property name of prim h: its connection followed through
 * interface inputs (a Material's or NodeGraph's inputs:*) to a value or a
 * shader output. 0, 1 (refused under skip: treat as unauthored), -1. */
static int resolve(reader *r, const held *h, const char *name, input *in, scope what, uint32_t hops)
{
    const usd_shade_stage *st = r->st;
    const usd_prop *p = st->prop(h->p, name);
    if (p == NULL) {
        return 0;
    }
    if (p->target_count == 0) {
        if (p->kind == USD_PROP_ATTRIBUTE && usd_prop_has_value(p, USD_WHICH_AUTO)) {
            in->kind = INPUT_VALUE;
            in->prop = p;
        }
        return 0;
    }
    const char *layer = st->layer(h->p);
    const char *t = p->targets[0];
    const char *slash = strrchr(t, '/');
    const char *dot = strchr(slash != NULL ? slash : t, '.');
    char prim[USD_MAX_PATH], mapped[USD_MAX_PATH];
    size_t pn = dot != NULL ? (size_t)(dot - t) : 0;
    if (dot == NULL || pn == 0 || pn >= sizeof prim || strlen(dot + 1) > USD_MAX_IDENTIFIER) {
        return refuse(r, what, "%s: <%s>: %s.connect <%s> names no property", layer, h->path, name, t);
    }
    memcpy(prim, t, pn);
    prim[pn] = '\0';
    if (hops >= SHADE_MAX_HOPS) {
        return refuse(r, what, "%s: <%s>: %s.connect: more than %u interface inputs in a row", layer, h->path, name,
                      SHADE_MAX_HOPS);
    }
    if (usd_shade_map_path(h->path, p->owner, prim, mapped, sizeof mapped) == 0) {
        return refuse(r, what, "%s: <%s>: %s.connect <%s> is not a prim path from <%s>", layer, h->path, name, t,
                      h->path);
    }
    held src = {NULL, {0}};
    snprintf(src.path, sizeof src.path, "%s", mapped);
    int rc = st->compose(st->user, mapped, &src.p, r->d);
    if (rc != 0) {
        return rc < 0 ? -1 : refuse(r, what, "%s: <%s>: %s.connect <%s>: no such prim", layer, h->path, name, mapped);
    }
    const char *type = st->type(src.p);
    const char *prop = dot + 1;
    if ((strcmp(type, "Material") == 0 || strcmp(type, "NodeGraph") == 0) && strncmp(prop, "inputs:", 7) == 0) {
        held_release(r, &in->holder);
        in->holder = src;
        return resolve(r, &in->holder, prop, in, what, hops + 1u);
    }
    held_release(r, &src);
    if (strncmp(prop, "outputs:", 8) != 0) {
        return refuse(r, what, "%s: <%s>: %s.connect <%s>: not an output or an interface input", layer, h->path, name,
                      t);
    }
    in->kind = INPUT_OUTPUT;
    snprintf(in->src, sizeof in->src, "%s", mapped);
    snprintf(in->output, sizeof in->output, "%s", prop);
    return 0;
}

static void input_release(reader *r, input *in)
{
    held_release(r, &in->holder);
    in->kind = INPUT_NONE;
    in->prop = NULL;
}

/* What read_text and read_numbers return besides -1 (an error). */
enum { VALUE_UNAUTHORED = 0, VALUE_READ = 1, VALUE_REFUSED = 2 };

/* A refusal's result (-1, or 1 under skip) as a read's. */
static int refused(int rc)
{
    return rc < 0 ? -1 : VALUE_REFUSED;
}

/* Prim h's input name resolved to a value (in->prop): VALUE_READ, what a
 * failed resolve gives (as refused() words it), or VALUE_REFUSED when it is
 * connected to an output. in is released by the caller. */
static int resolve_value(reader *r, const held *h, const char *name, input *in, scope what)
{
    memset(in, 0, sizeof *in);
    int rc = resolve(r, h, name, in, what, 0);
    if (rc != 0) {
        return refused(rc);
    }
    if (in->kind == INPUT_OUTPUT) {
        return refused(refuse(r, what, "%s: <%s>: %s: connected to <%s.%s>, not a value", r->st->layer(h->p), h->path,
                              name, in->src, in->output));
    }
    return in->kind == INPUT_VALUE ? VALUE_READ : VALUE_UNAUTHORED;
}

/* A token, string or asset value of prim h's property name (its
 * connections followed) into buf, *owner (may be NULL) the spec that wrote
 * it: VALUE_READ, VALUE_UNAUTHORED, VALUE_REFUSED (warned) or -1. */
static int read_text(reader *r, const held *h, const char *name, char *buf, size_t cap, scope what,
                     const usd_prim **owner)
{
    input in;
    int rc = resolve_value(r, h, name, &in, what);
    if (rc == VALUE_READ) {
        rc = usd_prop_read_token(in.prop, USD_WHICH_AUTO, 0, buf, cap, r->d) == 0 ? VALUE_READ : -1;
        if (owner != NULL) {
            *owner = in.prop->owner;
        }
    }
    input_release(r, &in);
    return rc;
}

/* n numbers of prim h's property name into v (left as they are unless
 * read): as read_text. */
static int read_numbers(reader *r, const held *h, const char *name, double *v, size_t n, scope what)
{
    input in;
    int rc = resolve_value(r, h, name, &in, what);
    if (rc == VALUE_READ) {
        double tmp[16];
        size_t got = 0;
        rc = usd_prop_read_f64(in.prop, USD_WHICH_AUTO, tmp, 16, &got, r->d) == 0 ? VALUE_READ : -1;
        if (rc == VALUE_READ && got < n) {
            rc = refused(
                refuse(r, what, "%s: <%s>: %s: %zu values, expected %zu", r->st->layer(h->p), h->path, name, got, n));
        }
        if (rc == VALUE_READ) {
            memcpy(v, tmp, n * sizeof *v);
        }
    }
    input_release(r, &in);
    return rc;
}

/* A read's result as a step's: 0 (read or unauthored), 1 refused, -1. */
static int step(int got)
{
    return got < 0 ? -1 : got == VALUE_REFUSED ? 1 : 0;
}

/* The shader id of a composed Shader prim into id: 0, or 1 and a refusal
 * when it is not a Shader. */
static int shader_id(reader *r, const held *h, char *id, size_t cap, scope what)
{
    const char *type = r->st->type(h->p);
    if (strcmp(type, "Shader") != 0) {
        return refuse(r, what, "%s: <%s>: a %s prim, not a Shader", r->st->layer(h->p), h->path,
                      type[0] != '\0' ? type : "typeless");
    }
    id[0] = '\0';
    return step(read_text(r, h, "info:id", id, cap, what, NULL));
}

/* A texture an input reads. */
typedef struct texture {
    int channel; /* -1: rgb, else 0..3 */
    double scale[4], bias[4];
    uint8_t file;
    pk_wrap wrap_s, wrap_t;
    char path[USD_MAX_PATH]; /* the UsdUVTexture */
    char primvar[USD_MAX_IDENTIFIER + 1];
    char color_space[32];
    const char *layer; /* the UsdUVTexture's */
    /* A UsdTransform2d between the texture and its primvar reader, as the
     * pack's UV transform (pk_texture_ref: identity without one). */
    float offset[2], rotation, uv_scale[2];
    char via[USD_MAX_PATH]; /* the UsdTransform2d's path, "" without one */
} texture;

static int wrap_of(reader *r, const held *h, const char *name, pk_wrap *out)
{
    char tok[64];
    int rc = read_text(r, h, name, tok, sizeof tok, SCOPE_TEXTURE, NULL);
    if (rc != VALUE_READ) {
        *out = PK_WRAP_CLAMP_TO_EDGE; /* useMetadata, USD's fallback: PNG and JPEG have none, so black: clamp */
        return step(rc);
    }
    if (strcmp(tok, "repeat") == 0) {
        *out = PK_WRAP_REPEAT;
    } else if (strcmp(tok, "mirror") == 0) {
        *out = PK_WRAP_MIRRORED_REPEAT;
    } else if (strcmp(tok, "clamp") == 0 || strcmp(tok, "black") == 0 || strcmp(tok, "useMetadata") == 0) {
        *out = PK_WRAP_CLAMP_TO_EDGE;
    } else {
        return refuse(r, SCOPE_TEXTURE, "%s: <%s>: %s '%s' is not repeat, mirror, clamp, black or useMetadata",
                      r->st->layer(h->p), h->path, name, tok);
    }
    return 0;
}

/* Adds the file (resolved, as written) to the material, once: its index. */
static int add_file(reader *r, const char *resolved, const char *written, uint8_t *index)
{
    usd_shade_material *m = r->out;
    for (uint32_t i = 0; i < m->file_count; i++) {
        if (strcmp(m->file[i].resolved, resolved) == 0) {
            *index = (uint8_t)i;
            return 0;
        }
    }
    if (m->file_count >= USD_SHADE_MAX_FILES) {
        return pk_fail(r->d, "%s: more than %u texture files in one material", m->path, USD_SHADE_MAX_FILES);
    }
    usd_shade_file *f = &m->file[m->file_count];
    f->resolved = strdup(resolved);
    f->written = strdup(written);
    if (f->resolved == NULL || f->written == NULL) {
        free(f->resolved);
        free(f->written);
        f->resolved = f->written = NULL;
        return pk_fail(r->d, "out of memory");
    }
    *index = (uint8_t)m->file_count++;
    return 0;
}

/* The texture file of UsdUVTexture h: resolved against the layer that
 * wrote it, checked against the asset root. */
static int texture_file(reader *r, const held *h, texture *t)
{
    char asset[USD_MAX_PATH];
    const usd_prim *owner = NULL;
    int rc = read_text(r, h, "inputs:file", asset, sizeof asset, SCOPE_TEXTURE, &owner);
    if (rc == VALUE_UNAUTHORED || (rc == VALUE_READ && asset[0] == '\0')) {
        return refuse(r, SCOPE_TEXTURE, "%s: <%s>: UsdUVTexture has no inputs:file", r->st->layer(h->p), h->path);
    }
    if (rc != VALUE_READ) {
        return step(rc);
    }
    char resolved[USD_MAX_PATH + PATH_MAX];
    size_t n = usd_layer_resolve(owner->layer, asset, resolved, sizeof resolved);
    if (n == 0 || n >= sizeof resolved) {
        return refuse(r, SCOPE_TEXTURE, "%s: <%s>: inputs:file @%s@ cannot be resolved", r->st->layer(h->p), h->path,
                      asset);
    }
    /* Inside a usdz the package is the file the root rule checks. */
    char file[USD_MAX_PATH + PATH_MAX];
    snprintf(file, sizeof file, "%s", resolved);
    char *br = strchr(file, '[');
    if (br != NULL && file[strlen(file) - 1] == ']') {
        *br = '\0';
    }
    char why[PATH_MAX + 256];
    if (r->st->root != NULL && pk_asset_check(r->st->root, br != NULL ? NULL : asset, file, why, sizeof why) != 0) {
        return refuse(r, SCOPE_TEXTURE, "%s: <%s>: inputs:file %s", r->st->layer(h->p), h->path, why);
    }
    return add_file(r, resolved, asset, &t->file);
}

/* The pack's UV transform of a UsdTransform2d h: USD's st' = R(rotation)
 * S(scale) st + translation, rotation in degrees counter-clockwise with t
 * up. The importer stores uv = (s, 1 - t) (images top row first), so in uv
 * the same map is T' R' S uv with R' the rotation KHR_texture_transform's
 * matrix gives for the same angle (flipping v turns its sense), S the
 * same scale and T' = (tx - sy sin a, 1 - ty - sy cos a). */
static int read_transform(reader *r, const held *h, texture *t)
{
    double scale[2] = {1.0, 1.0}, rotation[1] = {0.0}, translation[2] = {0.0, 0.0};
    int rc = step(read_numbers(r, h, "inputs:scale", scale, 2, SCOPE_TEXTURE));
    if (rc == 0) {
        rc = step(read_numbers(r, h, "inputs:rotation", rotation, 1, SCOPE_TEXTURE));
    }
    if (rc == 0) {
        rc = step(read_numbers(r, h, "inputs:translation", translation, 2, SCOPE_TEXTURE));
    }
    if (rc != 0) {
        return rc;
    }
    for (int k = 0; k < 2; k++) {
        if (!isfinite(scale[k]) || !isfinite(translation[k]) || fabs(scale[k]) > 1e6 || fabs(translation[k]) > 1e6) {
            return refuse(r, SCOPE_TEXTURE,
                          "%s: <%s>: inputs:scale (%g, %g) or inputs:translation (%g, %g) is not a "
                          "finite UV transform of at most 1e6",
                          r->st->layer(h->p), h->path, scale[0], scale[1], translation[0], translation[1]);
        }
    }
    if (!isfinite(rotation[0]) || fabs(rotation[0]) > 1e6) {
        return refuse(r, SCOPE_TEXTURE, "%s: <%s>: inputs:rotation %g is not a finite angle of at most 1e6 degrees",
                      r->st->layer(h->p), h->path, rotation[0]);
    }
    const double a = fmod(rotation[0], 360.0) * (3.14159265358979323846 / 180.0);
    t->uv_scale[0] = (float)scale[0];
    t->uv_scale[1] = (float)scale[1];
    t->rotation = (float)a;
    t->offset[0] = (float)(translation[0] - scale[1] * sin(a));
    t->offset[1] = (float)(1.0 - translation[1] - scale[1] * cos(a));
    return 0;
}

/* The shader a float2 input of h (name) is connected to, composed into
 * *out, with the output it reads into output (cap bytes). 0, 1 refused
 * under skip, -1. */
static int connected_shader(reader *r, const held *h, const char *name, const char *what, held *out, char *output,
                            size_t cap)
{
    const char *layer = r->st->layer(h->p);
    input st;
    memset(&st, 0, sizeof st);
    int rc = resolve(r, h, name, &st, SCOPE_TEXTURE, 0);
    input_kind kind = st.kind;
    if (rc == 0 && kind == INPUT_OUTPUT) {
        snprintf(out->path, sizeof out->path, "%s", st.src);
        snprintf(output, cap, "%s", st.output);
    }
    input_release(r, &st);
    if (rc != 0) {
        return rc;
    }
    if (kind != INPUT_OUTPUT) {
        return refuse(r, SCOPE_TEXTURE, "%s: <%s>: %s is not connected to a %s", layer, h->path, name, what);
    }
    rc = r->st->compose(r->st->user, out->path, &out->p, r->d);
    if (rc != 0) {
        return rc < 0 ? -1
                      : refuse(r, SCOPE_TEXTURE, "%s: <%s>: %s.connect <%s>: no such prim", layer, h->path, name,
                               out->path);
    }
    return 0;
}

/* The primvar UsdUVTexture h reads: its inputs:st connected to a
 * UsdPrimvarReader_float2's outputs:result, whose varname names it, or to
 * a UsdTransform2d's outputs:result whose inputs:in is (the transform into
 * t's UV transform). */
static int texture_primvar(reader *r, const held *h, texture *t)
{
    t->uv_scale[0] = t->uv_scale[1] = 1.0f;
    const char *layer = r->st->layer(h->p);
    held pv = {NULL, {0}};
    char output[USD_MAX_IDENTIFIER + 1];
    const char *reads = "inputs:st";
    int rc = connected_shader(r, h, reads, "UsdPrimvarReader_float2", &pv, output, sizeof output);
    if (rc != 0) {
        return rc;
    }
    char id[128];
    rc = shader_id(r, &pv, id, sizeof id, SCOPE_TEXTURE);
    if (rc == 0 && strcmp(id, "UsdTransform2d") == 0) {
        held xf = pv;
        memset(&pv, 0, sizeof pv);
        rc = strcmp(output, "outputs:result") != 0
                 ? refuse(r, SCOPE_TEXTURE, "%s: <%s>: inputs:st reads %s of <%s>, not outputs:result", layer, h->path,
                          output, xf.path)
                 : read_transform(r, &xf, t);
        if (rc == 0) {
            layer = r->st->layer(xf.p);
            reads = "inputs:in";
            rc = connected_shader(r, &xf, reads, "UsdPrimvarReader_float2", &pv, output, sizeof output);
            h = NULL; /* messages below name the transform */
        }
        if (rc == 0) {
            rc = shader_id(r, &pv, id, sizeof id, SCOPE_TEXTURE);
        }
        if (rc != 0) {
            held_release(r, &xf);
            held_release(r, &pv);
            return rc;
        }
        snprintf(t->via, sizeof t->via, "%s", xf.path);
        held_release(r, &xf);
    }
    const char *from = h != NULL ? h->path : t->via;
    if (rc == 0 && strcmp(id, "UsdPrimvarReader_float2") != 0) {
        rc = refuse(r, SCOPE_TEXTURE,
                    "%s: <%s>: shader '%s' is not supported (UsdPreviewSurface, UsdUVTexture, UsdTransform2d and "
                    "UsdPrimvarReader_float2 are read)",
                    r->st->layer(pv.p), pv.path, id);
    }
    if (rc == 0 && strcmp(output, "outputs:result") != 0) {
        rc = refuse(r, SCOPE_TEXTURE, "%s: <%s>: %s reads %s of <%s>, not outputs:result", layer, from, reads, output,
                    pv.path);
    }
    if (rc == 0) {
        int got = read_text(r, &pv, "inputs:varname", t->primvar, sizeof t->primvar, SCOPE_TEXTURE, NULL);
        rc = got == VALUE_UNAUTHORED
                 ? refuse(r, SCOPE_TEXTURE, "%s: <%s>: UsdPrimvarReader_float2 has no inputs:varname",
                          r->st->layer(pv.p), pv.path)
                 : step(got);
    }
    held_release(r, &pv);
    return rc;
}

/* The UsdUVTexture at in (a shader output) that input `name` of the
 * surface reads: color (rgb) or a channel. 0, 1 refused under skip, -1. */
static int read_texture(reader *r, const input *in, const char *name, int color, texture *t)
{
    memset(t, 0, sizeof *t);
    for (int c = 0; c < 4; c++) {
        t->scale[c] = 1.0;
    }
    snprintf(t->path, sizeof t->path, "%s", in->src);
    held h = {NULL, {0}};
    snprintf(h.path, sizeof h.path, "%s", in->src);
    int rc = r->st->compose(r->st->user, in->src, &h.p, r->d);
    if (rc != 0) {
        return rc < 0 ? -1
                      : refuse(r, SCOPE_TEXTURE, "%s: <%s>: %s.connect <%s>: no such prim", r->surf_layer, r->surf,
                               name, in->src);
    }
    t->layer = r->st->layer(h.p);
    char id[128];
    rc = shader_id(r, &h, id, sizeof id, SCOPE_TEXTURE);
    if (rc == 0 && strcmp(id, "UsdUVTexture") != 0) {
        rc = refuse(r, SCOPE_TEXTURE,
                    "%s: <%s>: shader '%s' is not supported (UsdPreviewSurface, UsdUVTexture, UsdTransform2d and "
                    "UsdPrimvarReader_float2 are read)",
                    r->st->layer(h.p), h.path, id);
    }
    if (rc == 0) {
        static const char *const outs[] = {"outputs:r", "outputs:g", "outputs:b", "outputs:a"};
        t->channel = -2;
        if (strcmp(in->output, "outputs:rgb") == 0) {
            t->channel = -1;
        }
        for (int c = 0; c < 4; c++) {
            if (strcmp(in->output, outs[c]) == 0) {
                t->channel = c;
            }
        }
        if (t->channel == -2) {
            rc = refuse(r, SCOPE_TEXTURE, "%s: <%s>: %s reads %s of <%s> (rgb, r, g, b or a are read)", r->surf_layer,
                        r->surf, name, in->output, h.path);
        } else if (color != (t->channel == -1)) {
            rc = refuse(r, SCOPE_TEXTURE, "%s: <%s>: %s reads %s of <%s>, not %s", r->surf_layer, r->surf, name,
                        in->output, h.path, color ? "outputs:rgb" : "one channel (outputs:r, g, b or a)");
        }
    }
    if (rc == 0) {
        rc = texture_file(r, &h, t);
    }
    if (rc == 0) {
        rc = wrap_of(r, &h, "inputs:wrapS", &t->wrap_s);
    }
    if (rc == 0) {
        rc = wrap_of(r, &h, "inputs:wrapT", &t->wrap_t);
    }
    if (rc == 0) {
        rc = step(read_numbers(r, &h, "inputs:scale", t->scale, 4, SCOPE_TEXTURE));
    }
    if (rc == 0) {
        rc = step(read_numbers(r, &h, "inputs:bias", t->bias, 4, SCOPE_TEXTURE));
    }
    if (rc == 0) {
        rc = step(
            read_text(r, &h, "inputs:sourceColorSpace", t->color_space, sizeof t->color_space, SCOPE_TEXTURE, NULL));
    }
    if (rc == 0) {
        rc = texture_primvar(r, &h, t);
    }
    held_release(r, &h);
    return rc;
}

/* The UsdPreviewSurface inputs the pack reads. */
typedef enum input_use {
    USE_BASE_RGB,
    USE_OPACITY,
    USE_EMISSIVE,
    USE_METALLIC,
    USE_ROUGHNESS,
    USE_OCCLUSION,
    USE_NORMAL
} input_use;

static const struct surface_input {
    const char *name;
    input_use use;
    pk_material_slot slot;
    int dst; /* the slot's channel (-1: RGB) */
} surface_inputs[] = {
    {"inputs:diffuseColor", USE_BASE_RGB, PK_SLOT_BASE_COLOR, -1},
    {"inputs:opacity", USE_OPACITY, PK_SLOT_BASE_COLOR, 3},
    {"inputs:emissiveColor", USE_EMISSIVE, PK_SLOT_EMISSIVE, -1},
    {"inputs:metallic", USE_METALLIC, PK_SLOT_METALLIC_ROUGHNESS, 2},
    {"inputs:roughness", USE_ROUGHNESS, PK_SLOT_METALLIC_ROUGHNESS, 1},
    {"inputs:occlusion", USE_OCCLUSION, PK_SLOT_OCCLUSION, 0},
    {"inputs:normal", USE_NORMAL, PK_SLOT_NORMAL, -1},
};

static int is_zero(const double *v, int from, int to)
{
    for (int c = from; c < to; c++) {
        if (v[c] != 0.0) {
            return 0;
        }
    }
    return 1;
}

/* Folds texture t's scale into the factor of the input it feeds (refusing
 * a bias, or a scale the factor cannot carry) and sets the slot's sources.
 * 0, 1 refused under skip, -1. */
static int apply_texture(reader *r, const struct surface_input *si, const texture *t)
{
    pk_material *m = &r->out->m;
    const int from = t->channel < 0 ? 0 : t->channel, to = t->channel < 0 ? 3 : t->channel + 1;
    char bias[160], scale[160];
    snprintf(bias, sizeof bias, "(%g, %g, %g, %g)", t->bias[0], t->bias[1], t->bias[2], t->bias[3]);
    snprintf(scale, sizeof scale, "(%g, %g, %g, %g)", t->scale[0], t->scale[1], t->scale[2], t->scale[3]);
    double k = 1.0; /* the normal map's scale */
    if (si->use == USE_NORMAL) {
        const int gltf_form = t->scale[0] == t->scale[1] && t->scale[2] == 2.0 && t->bias[2] == -1.0 &&
                              t->bias[0] == -t->scale[0] / 2.0 && t->bias[1] == t->bias[0] && t->scale[0] > 0.0;
        const int plain = t->scale[0] == 1.0 && t->scale[1] == 1.0 && t->scale[2] == 1.0 && is_zero(t->bias, 0, 3);
        if (!gltf_form && !plain) {
            return refuse(r, SCOPE_TEXTURE,
                          "%s: <%s>: inputs:scale %s and inputs:bias %s cannot be carried by <%s>.inputs:normal (a "
                          "normal map is read with scale (2k, 2k, 2) and bias (-k, -k, -1), or scale 1 and bias 0)",
                          t->layer, t->path, scale, bias, r->surf);
        }
        k = gltf_form ? t->scale[0] / 2.0 : 1.0;
    } else {
        if (!is_zero(t->bias, from, to)) {
            return refuse(r, SCOPE_TEXTURE,
                          "%s: <%s>: inputs:bias %s is not supported (a texture bias, read by <%s>.%s)", t->layer,
                          t->path, bias, r->surf, si->name);
        }
        for (int c = from; c < to; c++) {
            if (!(t->scale[c] >= 0.0 && t->scale[c] <= 1.0) || (si->use == USE_OCCLUSION && t->scale[c] != 1.0)) {
                return refuse(r, SCOPE_TEXTURE, "%s: <%s>: inputs:scale %s cannot be carried by <%s>.%s (%s)", t->layer,
                              t->path, scale, r->surf, si->name,
                              si->use == USE_OCCLUSION ? "occlusion takes no factor: scale 1" : "a factor in [0, 1]");
            }
        }
    }
    usd_shade_slot *s = &r->out->slot[si->slot];
    if (s->primvar != NULL && strcmp(s->primvar, t->primvar) != 0) {
        return refuse(r, SCOPE_TEXTURE, "%s: <%s>: reads primvar '%s' where <%s> reads '%s' for the same slot",
                      t->layer, t->path, t->primvar, s->texture, s->primvar);
    }
    switch (si->use) {
    case USE_BASE_RGB:
    case USE_EMISSIVE:
        for (int c = 0; c < 3; c++) {
            (si->use == USE_BASE_RGB ? m->base_color : m->emissive)[c] = (float)t->scale[c];
        }
        break;
    case USE_OPACITY:
        m->base_color[3] = (float)t->scale[t->channel];
        break;
    case USE_METALLIC:
        m->metallic = (float)t->scale[t->channel];
        break;
    case USE_ROUGHNESS:
        m->roughness = (float)t->scale[t->channel];
        break;
    case USE_OCCLUSION:
        break;
    case USE_NORMAL:
        m->slot[PK_SLOT_NORMAL].scale = (float)k;
        break;
    }
    pk_texture_ref *ref = &m->slot[si->slot];
    if (s->texture == NULL) {
        s->texture = strdup(t->path);
        s->primvar = strdup(t->primvar);
        if (s->texture == NULL || s->primvar == NULL) {
            return pk_fail(r->d, "out of memory");
        }
        s->layer = t->layer;
        ref->image = (uint32_t)si->slot;
        ref->wrap_s = t->wrap_s;
        ref->wrap_t = t->wrap_t;
        memcpy(ref->offset, t->offset, sizeof ref->offset);
        ref->rotation = t->rotation;
        memcpy(ref->uv_scale, t->uv_scale, sizeof ref->uv_scale);
    } else if (!(ref->offset[0] == t->offset[0] && ref->offset[1] == t->offset[1] && ref->rotation == t->rotation &&
                 ref->uv_scale[0] == t->uv_scale[0] && ref->uv_scale[1] == t->uv_scale[1])) {
        return refuse(r, SCOPE_TEXTURE,
                      "%s: <%s>: reads its UVs through another UsdTransform2d than <%s>, which fills the same slot",
                      t->layer, t->path, s->texture);
    }
    for (int c = from; c < to; c++) {
        int dst = si->dst < 0 ? c : si->dst;
        s->file[dst] = t->file;
        s->channel[dst] = (uint8_t)(t->channel < 0 ? c : t->channel);
    }
    /* Colour spaces: the pack reads colour slots as sRGB, the others as
     * linear data; a texture that says otherwise is read as the slot reads
     * it, with a warning. */
    const int colour = si->use == USE_BASE_RGB || si->use == USE_EMISSIVE;
    if ((colour && strcmp(t->color_space, "raw") == 0) ||
        (!colour && si->use != USE_OPACITY && strcmp(t->color_space, "sRGB") == 0)) {
        warn(r, "%s: <%s>: sourceColorSpace '%s' read by <%s>.%s: read as %s, as the pack reads that slot", t->layer,
             t->path, t->color_space, r->surf, si->name, colour ? "sRGB" : "linear (raw)");
    }
    return 0;
}

/* One input of the surface: a value into the factors, or a texture. */
static int read_surface_input(reader *r, const held *surf, const struct surface_input *si, int *textured,
                              double *opacity)
{
    pk_material *m = &r->out->m;
    input in;
    memset(&in, 0, sizeof in);
    int rc = resolve(r, surf, si->name, &in, SCOPE_TEXTURE, 0);
    if (rc == 0 && in.kind == INPUT_VALUE) {
        double v[16] = {0};
        size_t got = 0;
        rc = usd_prop_read_f64(in.prop, USD_WHICH_AUTO, v, 16, &got, r->d);
        size_t want = si->dst < 0 ? 3u : 1u;
        if (rc == 0 && got < want) {
            rc = pk_fail(r->d, "%s: <%s>: %s: %zu values, expected %zu", r->surf_layer, r->surf, si->name, got, want);
        }
        if (rc == 0) {
            switch (si->use) {
            case USE_BASE_RGB:
                for (int c = 0; c < 3; c++) {
                    m->base_color[c] = (float)v[c];
                }
                break;
            case USE_OPACITY:
                *opacity = v[0];
                m->base_color[3] = (float)v[0];
                break;
            case USE_EMISSIVE:
                for (int c = 0; c < 3; c++) {
                    m->emissive[c] = (float)v[c];
                }
                break;
            case USE_METALLIC:
                m->metallic = (float)v[0];
                break;
            case USE_ROUGHNESS:
                m->roughness = (float)v[0];
                break;
            case USE_OCCLUSION: /* no constant occlusion in the pack's model */
            case USE_NORMAL:    /* a constant normal is the surface's own */
                break;
            }
        }
    } else if (rc == 0 && in.kind == INPUT_OUTPUT) {
        texture t;
        rc = read_texture(r, &in, si->name, si->dst < 0, &t);
        if (rc == 0) {
            rc = apply_texture(r, si, &t);
        }
        if (rc == 0) {
            *textured = 1;
        }
    }
    input_release(r, &in);
    return rc < 0 ? -1 : 0;
}

/* Which channels each slot's shader reads. */
static uint8_t slot_reads(pk_material_slot s, pk_alpha_mode mode)
{
    switch (s) {
    case PK_SLOT_BASE_COLOR:
        return mode == PK_ALPHA_OPAQUE ? 0x7u : 0xfu;
    case PK_SLOT_METALLIC_ROUGHNESS:
        return 0x6u;
    case PK_SLOT_OCCLUSION:
        return 0x1u;
    default:
        return 0x7u;
    }
}

/* The surface shader's inputs into r->out. */
static int read_surface(reader *r, const held *surf)
{
    pk_material *m = &r->out->m;
    /* UsdPreviewSurface's fallbacks. */
    m->base_color[0] = m->base_color[1] = m->base_color[2] = 0.18f;
    m->base_color[3] = 1.0f;
    m->metallic = 0.0f;
    m->roughness = 0.5f;
    for (uint32_t s = 0; s < PK_SLOT_COUNT; s++) {
        memset(r->out->slot[s].file, USD_SHADE_FILL, 4);
    }
    int textured[sizeof surface_inputs / sizeof surface_inputs[0]] = {0};
    double opacity = 1.0;
    for (size_t i = 0; i < sizeof surface_inputs / sizeof surface_inputs[0]; i++) {
        if (read_surface_input(r, surf, &surface_inputs[i], &textured[i], &opacity) != 0) {
            return -1;
        }
    }
    double threshold = 0.0;
    int got = step(read_numbers(r, surf, "inputs:opacityThreshold", &threshold, 1, SCOPE_MATERIAL));
    if (got != 0) {
        return got;
    }
    if (threshold > 0.0) {
        m->alpha_mode = PK_ALPHA_MASK;
        m->alpha_cutoff = (float)threshold;
    } else if (textured[1] || opacity < 1.0) {
        m->alpha_mode = PK_ALPHA_BLEND;
    }
    /* Channels read but fed by a constant take 255 (the factor is the
     * constant); channels not read 0 (alpha 255). */
    for (uint32_t s = 0; s < PK_SLOT_COUNT; s++) {
        usd_shade_slot *sl = &r->out->slot[s];
        sl->reads = slot_reads((pk_material_slot)s, m->alpha_mode);
        for (int c = 0; c < 4; c++) {
            sl->fill[c] = (sl->reads >> c) & 1u || c == 3 ? 255u : 0u;
        }
    }
    return 0;
}

/* Reads the Material at path into a new entry. 0 (*entry), 1 left out
 * under skip (warned), -1. */
static int read_material(usd_shade_table *t, const usd_shade_stage *st, const char *path, const char *who,
                         int32_t *entry, pk_diag *d)
{
    if (pk_grow((void **)&t->mats, &t->mat_cap, t->mat_count + 1u, sizeof *t->mats) != 0) {
        return pk_fail(d, "out of memory");
    }
    usd_shade_material *out = &t->mats[t->mat_count];
    memset(out, 0, sizeof *out);
    pk_material_default(&out->m);
    out->path = strdup(path);
    if (out->path == NULL) {
        return pk_fail(d, "out of memory");
    }
    const char *leaf = strrchr(path, '/');
    snprintf(out->m.name, sizeof out->m.name, "%.63s", leaf != NULL ? leaf + 1 : path);
    reader r = {st, out, d, path, ""};
    held mat = {NULL, {0}};
    snprintf(mat.path, sizeof mat.path, "%s", path);
    int rc = st->compose(st->user, path, &mat.p, d);
    if (rc != 0) {
        rc = rc < 0 ? -1 : refuse(&r, SCOPE_MATERIAL, "%s: no such prim", who);
    } else if (strcmp(st->type(mat.p), "Material") != 0) {
        const char *type = st->type(mat.p);
        rc = refuse(&r, SCOPE_MATERIAL, "%s: a %s prim, not a Material", who, type[0] != '\0' ? type : "typeless");
    }
    input surf_in;
    memset(&surf_in, 0, sizeof surf_in);
    if (rc == 0) {
        rc = resolve(&r, &mat, "outputs:surface", &surf_in, SCOPE_MATERIAL, 0);
        if (rc == 0 && surf_in.kind != INPUT_OUTPUT) {
            rc = refuse(&r, SCOPE_MATERIAL,
                        "%s: <%s>: Material has no outputs:surface connection (a UsdPreviewSurface is what is read)",
                        st->layer(mat.p), path);
        }
    }
    held surf = {NULL, {0}};
    if (rc == 0) {
        snprintf(surf.path, sizeof surf.path, "%s", surf_in.src);
        rc = st->compose(st->user, surf_in.src, &surf.p, d);
        if (rc > 0) {
            rc = refuse(&r, SCOPE_MATERIAL, "%s: <%s>: outputs:surface.connect <%s>: no such prim", st->layer(mat.p),
                        path, surf_in.src);
        }
    }
    char id[128];
    if (rc == 0) {
        r.surf = surf.path;
        r.surf_layer = st->layer(surf.p);
        rc = shader_id(&r, &surf, id, sizeof id, SCOPE_MATERIAL);
    }
    if (rc == 0 && strcmp(id, "UsdPreviewSurface") != 0) {
        rc = refuse(&r, SCOPE_MATERIAL,
                    "%s: <%s>: shader '%s' is not supported (UsdPreviewSurface, UsdUVTexture, UsdTransform2d and "
                    "UsdPrimvarReader_float2 are read)",
                    r.surf_layer, surf.path, id);
    }
    if (rc == 0) {
        rc = read_surface(&r, &surf);
    }
    held_release(&r, &surf);
    input_release(&r, &surf_in);
    held_release(&r, &mat);
    if (rc != 0) {
        material_free(out);
        return rc;
    }
    *entry = (int32_t)t->mat_count++;
    return 0;
}

int usd_shade_table_get(usd_shade_table *t, const usd_shade_stage *st, const char *path, const char *who,
                        int32_t *entry, pk_diag *d)
{
    for (uint32_t i = 0; i < t->known_count; i++) {
        if (strcmp(t->known[i].path, path) == 0) {
            *entry = t->known[i].entry;
            return 0;
        }
    }
    if (pk_grow((void **)&t->known, &t->known_cap, t->known_count + 1u, sizeof *t->known) != 0) {
        return pk_fail(d, "out of memory");
    }
    int32_t e = -1;
    int rc = read_material(t, st, path, who, &e, d);
    if (rc < 0) {
        return -1;
    }
    char *copy = strdup(path);
    if (copy == NULL) {
        return pk_fail(d, "out of memory");
    }
    const usd_shade_material *sm = rc == 0 ? &t->mats[e] : NULL;
    for (uint32_t i = 0; sm != NULL && i < sm->file_count; i++) {
        uint32_t k = 0;
        while (k < t->file_count && strcmp(t->files[k], sm->file[i].resolved) != 0) {
            k++;
        }
        if (k < t->file_count) {
            continue;
        }
        if (pk_grow((void **)&t->files, &t->file_cap, t->file_count + 1u, sizeof *t->files) != 0) {
            free(copy);
            return pk_fail(d, "out of memory");
        }
        t->files[t->file_count++] = sm->file[i].resolved;
    }
    t->known[t->known_count++] = (known_material){copy, rc == 0 ? e : -1};
    *entry = rc == 0 ? e : -1;
    return 0;
}

/* ---- images ------------------------------------------------------------------------ */

static int load_file(const usd_shade_material *sm, uint32_t f, pk_image *out, pk_diag *d)
{
    usd_asset a;
    if (usd_asset_map(sm->file[f].resolved, &a, d) != 0) {
        return -1;
    }
    int rc = pk_image_decode(a.bytes, a.size, sm->file[f].resolved, out, d);
    usd_asset_unmap(&a);
    return rc;
}

int usd_shade_slot_image(const usd_shade_material *sm, pk_material_slot slot, pk_image *out, pk_diag *d)
{
    memset(out, 0, sizeof *out);
    const usd_shade_slot *s = &sm->slot[slot];
    uint8_t first = USD_SHADE_FILL;
    int direct = 1;
    for (int c = 0; c < 4; c++) {
        if (!((s->reads >> c) & 1u)) {
            continue;
        }
        if (first == USD_SHADE_FILL) {
            first = s->file[c];
        }
        direct = direct && s->file[c] == first && s->channel[c] == c && first != USD_SHADE_FILL;
    }
    if (first == USD_SHADE_FILL) {
        for (int c = 0; c < 4 && first == USD_SHADE_FILL; c++) {
            first = s->file[c];
        }
    }
    if (first == USD_SHADE_FILL) {
        return pk_fail(d, "%s: slot %s has no texture", sm->path, pk_material_slot_name(slot));
    }
    if (direct) {
        return load_file(sm, first, out, d);
    }
    pk_image src[4];
    uint8_t loaded[4] = {0, 0, 0, 0};
    uint32_t n = 0;
    memset(src, 0, sizeof src);
    int rc = 0;
    for (int c = 0; c < 4 && rc == 0; c++) {
        if (!((s->reads >> c) & 1u) || s->file[c] == USD_SHADE_FILL) {
            continue;
        }
        uint32_t k = 0;
        while (k < n && loaded[k] != s->file[c]) {
            k++;
        }
        if (k == n) {
            rc = load_file(sm, s->file[c], &src[n], d);
            loaded[n++] = s->file[c];
            if (rc == 0 && (src[n - 1].width != src[0].width || src[n - 1].height != src[0].height)) {
                rc = pk_fail(d,
                             "%s is %ux%u and %s %ux%u: the channels of slot %s of <%s> come from images of "
                             "different sizes",
                             sm->file[loaded[0]].resolved, src[0].width, src[0].height, sm->file[s->file[c]].resolved,
                             src[n - 1].width, src[n - 1].height, pk_material_slot_name(slot), sm->path);
            }
        }
    }
    uint64_t bytes = 0;
    if (rc == 0) {
        rc = pk_image_check_size(sm->path, src[0].width, src[0].height, 4, &bytes, d);
    }
    if (rc == 0) {
        out->texels = malloc((size_t)bytes);
        rc = out->texels == NULL ? pk_fail(d, "%s: out of memory", sm->path) : 0;
    }
    if (rc == 0) {
        out->width = src[0].width;
        out->height = src[0].height;
        out->format = PK_TEXEL_RGBA8;
        const size_t texels = (size_t)out->width * out->height;
        for (int c = 0; c < 4; c++) {
            const pk_image *from = NULL;
            if (((s->reads >> c) & 1u) && s->file[c] != USD_SHADE_FILL) {
                for (uint32_t k = 0; k < n; k++) {
                    from = loaded[k] == s->file[c] ? &src[k] : from;
                }
            }
            if (from == NULL) {
                for (size_t i = 0; i < texels; i++) {
                    out->texels[i * 4 + (size_t)c] = s->fill[c];
                }
                continue;
            }
            const uint32_t tb = pk_texel_bytes(from->format), ch = s->channel[c];
            for (size_t i = 0; i < texels; i++) {
                /* RGBA16 is host order, little-endian: the high byte is the second. */
                out->texels[i * 4 + (size_t)c] = from->texels[i * tb + (tb == 8 ? ch * 2u + 1u : ch)];
            }
        }
        out->hash = pk_image_hash(out);
    }
    for (uint32_t k = 0; k < n; k++) {
        pk_image_free(&src[k]);
    }
    if (rc != 0) {
        pk_image_free(out);
    }
    return rc;
}

/* ---- handing over ------------------------------------------------------------------ */

/* What makes one slot's texture: its sources, its kind and wrap modes. */
static uint64_t slot_key(const usd_shade_material *sm, pk_material_slot slot)
{
    const usd_shade_slot *s = &sm->slot[slot];
    XXH3_state_t st;
    XXH3_64bits_reset(&st);
    for (int c = 0; c < 4; c++) {
        uint8_t head[4] = {s->file[c] == USD_SHADE_FILL ? 0u : 1u, s->channel[c], s->fill[c],
                           (uint8_t)((s->reads >> c) & 1u)};
        XXH3_64bits_update(&st, head, sizeof head);
        if (s->file[c] != USD_SHADE_FILL) {
            const char *f = sm->file[s->file[c]].resolved;
            XXH3_64bits_update(&st, f, strlen(f) + 1);
        }
    }
    uint32_t tail[3] = {(uint32_t)pk_material_slot_kind(slot), (uint32_t)sm->m.slot[slot].wrap_s,
                        (uint32_t)sm->m.slot[slot].wrap_t};
    XXH3_64bits_update(&st, tail, sizeof tail);
    return XXH3_64bits_digest(&st);
}

/* The sink's texture of one slot (PK_NONE when it is left empty). */
static int give_texture(usd_shade_table *t, const usd_shade_stage *st, const usd_shade_material *sm,
                        pk_material_slot slot, const usd_shade_sink *sink, uint32_t *id, pk_diag *d)
{
    uint64_t key = slot_key(sm, slot);
    for (uint32_t i = 0; i < t->texture_count; i++) {
        if (t->textures[i].key == key) {
            *id = t->textures[i].id;
            return 0;
        }
    }
    if (pk_grow((void **)&t->textures, &t->texture_cap, t->texture_count + 1u, sizeof *t->textures) != 0) {
        return pk_fail(d, "out of memory");
    }
    pk_image img;
    pk_diag why = {{0}};
    const double t0 = pk_seconds_now();
    const int loaded = usd_shade_slot_image(sm, slot, &img, &why);
    img.decode_seconds = pk_seconds_now() - t0;
    if (loaded != 0) {
        const usd_shade_slot *sl = &sm->slot[slot];
        if (!st->skip_unsupported) {
            return pk_fail(d, "%s: <%s>: %s", sl->layer, sl->texture, why.message);
        }
        if (st->warn != NULL) {
            char m[sizeof why.message + USD_MAX_PATH + 256];
            snprintf(m, sizeof m, "%s: <%s>: %s; the materials that use it are packed without it", sl->layer,
                     sl->texture, why.message);
            st->warn(st->user, m);
        }
        t->textures[t->texture_count++] = (given_texture){key, PK_NONE};
        *id = PK_NONE;
        return 0;
    }
    uint8_t f = USD_SHADE_FILL;
    for (int c = 0; c < 4 && f == USD_SHADE_FILL; c++) {
        f = ((sm->slot[slot].reads >> c) & 1u) ? sm->slot[slot].file[c] : f;
    }
    const char *name = f != USD_SHADE_FILL ? sm->file[f].written : sm->slot[slot].texture;
    int rc = sink->texture(sink->user, &img, pk_material_slot_kind(slot), sm->m.slot[slot].wrap_s,
                           sm->m.slot[slot].wrap_t, name, id, d);
    pk_image_free(&img);
    if (rc != 0) {
        return -1;
    }
    t->textures[t->texture_count++] = (given_texture){key, *id};
    return 0;
}

int usd_shade_table_give(usd_shade_table *t, const usd_shade_stage *st, int32_t entry, int double_sided,
                         uint32_t dropped, const usd_shade_sink *sink, uint32_t *id, pk_diag *d)
{
    for (uint32_t i = 0; i < t->given_count; i++) {
        const given_material *g = &t->given[i];
        if (g->entry == entry && g->double_sided == double_sided && g->dropped == dropped) {
            *id = g->id;
            return 0;
        }
    }
    if (pk_grow((void **)&t->given, &t->given_cap, t->given_count + 1u, sizeof *t->given) != 0) {
        return pk_fail(d, "out of memory");
    }
    const usd_shade_material *sm = &t->mats[entry];
    pk_material m = sm->m;
    m.double_sided = double_sided;
    for (uint32_t s = 0; s < PK_SLOT_COUNT; s++) {
        if (m.slot[s].image == PK_NONE) {
            continue;
        }
        uint32_t tid = PK_NONE;
        if (sink->texture != NULL && !((dropped >> s) & 1u) &&
            give_texture(t, st, sm, (pk_material_slot)s, sink, &tid, d) != 0) {
            return -1;
        }
        m.slot[s].image = tid;
    }
    if (sink->material(sink->user, &m, id, d) != 0) {
        return -1;
    }
    t->given[t->given_count++] = (given_material){entry, double_sided, dropped, *id};
    return 0;
}
