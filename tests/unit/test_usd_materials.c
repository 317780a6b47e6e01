/* SPDX-License-Identifier: MIT */
/* USD materials (tools/pack/usd/usd_shade.h through usd_stage.h) on stages
 * this test writes: UsdPreviewSurface constants and fallbacks, alpha modes,
 * UsdUVTexture factors, wrap modes and outputs, channels repacked texel by
 * texel into the pack's slot layout, material:binding inherited and mapped
 * over a reference, materialBind GeomSubsets as parts with every placement,
 * a texture read from a usdz package and listed as an input, and every
 * refusal with its exact message (and its warning under skip_unsupported);
 * the shader network of the usda fuzz seed written as a crate, read alike
 * (it is the usdc fuzz seed: --write-crate-seed FILE writes it).
 * With --samples DIR: TextureCoordinateTest's materials against its text and
 * the intent-vfx teapot's binding over its references. */
#define _GNU_SOURCE /* realpath */

#include <ftw.h>
#include <math.h>
#include <png.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_util.h"

#include "usd_layer.h"
#include "usd_shade.h"
#include "usd_stage.h"
#include "usdc_writer.h"

/* ---- files ------------------------------------------------------------------- */

static char dir[64];

static const char *path_of(const char *name)
{
    static char p[4][512];
    static int k;
    k = (k + 1) % 4;
    snprintf(p[k], sizeof p[k], "%s/%s", dir, name);
    return p[k];
}

static void put_bytes(const char *name, const void *data, size_t n)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", path_of(name));
    for (char *s = buf + strlen(dir) + 1; *s != '\0'; s++) {
        if (*s == '/') {
            *s = '\0';
            (void)mkdir(buf, 0755);
            *s = '/';
        }
    }
    FILE *f = fopen(buf, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

static void put(const char *name, const char *text)
{
    put_bytes(name, text, strlen(text));
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(p);
}

/* ---- PNGs of the test's own texels --------------------------------------------- */

typedef struct membuf {
    unsigned char *p;
    size_t n, cap;
} membuf;

static void png_put(png_structp png, png_bytep p, png_size_t n)
{
    membuf *b = png_get_io_ptr(png);
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2;
        b->p = realloc(b->p, b->cap);
        assert_non_null(b->p);
    }
    memcpy(b->p + b->n, p, n);
    b->n += n;
}

static void png_flush_none(png_structp png)
{
    (void)png;
}

/* Image `seed`'s texel (x, y), channel c. */
static uint8_t texel(int seed, uint32_t x, uint32_t y, int c)
{
    return (uint8_t)(x * 70u + y * 31u + (uint32_t)c * 50u + (uint32_t)seed * 13u + 7u);
}

/* A 3 x 2 RGBA PNG of texel(seed, ...) written to name. */
static void put_png(const char *name, int seed)
{
    membuf b = {0};
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    assert_true(png != NULL && info != NULL);
    png_set_write_fn(png, &b, png_put, png_flush_none);
    png_set_IHDR(png, info, 3, 2, 8, PNG_COLOR_TYPE_RGBA, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (uint32_t y = 0; y < 2; y++) {
        png_byte row[12];
        for (uint32_t x = 0; x < 3; x++) {
            for (int c = 0; c < 4; c++) {
                row[x * 4 + (uint32_t)c] = texel(seed, x, y, c);
            }
        }
        png_write_row(png, row);
    }
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    put_bytes(name, b.p, b.n);
    free(b.p);
}

/* ---- a sink that records everything ------------------------------------------------ */

typedef struct got_texture {
    pk_image img; /* a copy */
    pk_mip_kind kind;
    pk_wrap wrap_s, wrap_t;
    char name[128];
} got_texture;

typedef struct got_object {
    uint32_t indices, material;
    char name[64];
} got_object;

typedef struct rec {
    got_texture tex[16];
    uint32_t tex_count;
    pk_material mat[16];
    uint32_t mat_count;
    got_object obj[32];
    uint32_t obj_count;
    pk_instance inst[64];
    uint32_t inst_count;
    uint32_t mesh_before_material; /* a mesh named a material not given yet */
} rec;

static int on_texture(void *user, const pk_image *img, pk_mip_kind kind, pk_wrap wrap_s, pk_wrap wrap_t,
                      const char *name, uint32_t *id, pk_diag *d)
{
    (void)d;
    rec *r = user;
    assert_true(r->tex_count < 16);
    got_texture *t = &r->tex[r->tex_count];
    t->img = *img;
    size_t bytes = (size_t)img->width * img->height * pk_texel_bytes(img->format);
    t->img.texels = malloc(bytes);
    assert_non_null(t->img.texels);
    memcpy(t->img.texels, img->texels, bytes);
    t->kind = kind;
    t->wrap_s = wrap_s;
    t->wrap_t = wrap_t;
    snprintf(t->name, sizeof t->name, "%s", name);
    *id = r->tex_count++;
    return 0;
}

static int on_material(void *user, const pk_material *m, uint32_t *id, pk_diag *d)
{
    (void)d;
    rec *r = user;
    assert_true(r->mat_count < 16);
    r->mat[r->mat_count] = *m;
    *id = r->mat_count++;
    return 0;
}

static int on_mesh(void *user, const pk_mesh *m, uint32_t *object, pk_diag *d)
{
    (void)d;
    rec *r = user;
    assert_true(r->obj_count < 32);
    if (m->material > r->mat_count) {
        r->mesh_before_material++;
    }
    r->obj[r->obj_count] = (got_object){m->index_count, m->material, {0}};
    snprintf(r->obj[r->obj_count].name, sizeof r->obj[r->obj_count].name, "%s", m->name);
    *object = r->obj_count++;
    return 0;
}

static int on_instance(void *user, const pk_instance *inst, pk_diag *d)
{
    (void)d;
    rec *r = user;
    assert_true(r->inst_count < 64);
    r->inst[r->inst_count++] = *inst;
    return 0;
}

static void rec_free(rec *r)
{
    for (uint32_t i = 0; i < r->tex_count; i++) {
        free(r->tex[i].img.texels);
    }
    memset(r, 0, sizeof *r);
}

typedef struct warnings {
    char all[8192];
    int count;
} warnings;

static warnings warned;

static void on_warn(void *user, const char *message)
{
    warnings *w = user;
    size_t used = strlen(w->all);
    snprintf(w->all + used, sizeof w->all - used, "%s\n", message);
    w->count++;
}

/* "@@" in want stands for the test's folder (resolved), "^^" for its
 * parent. */
static void expand(const char *want, char *full, size_t cap)
{
    char real[PATH_MAX];
    if (realpath(dir, real) == NULL) {
        snprintf(real, sizeof real, "%s", dir);
    }
    size_t k = 0;
    for (const char *p = want; *p != '\0' && k + 80 < cap; p++) {
        if (*p == '@' && p[1] == '@') {
            k += (size_t)snprintf(full + k, cap - k, "%s", real);
            p++;
        } else if (*p == '^' && p[1] == '^') {
            k += (size_t)snprintf(full + k, cap - k, "%.*s", (int)(strrchr(real, '/') - real), real);
            p++;
        } else {
            full[k++] = *p;
        }
    }
    full[k] = '\0';
}

/* Opens and imports path (both must succeed) into r. */
static void import_path(const char *path, int skip, const char *root, rec *r)
{
    memset(r, 0, sizeof *r);
    memset(&warned, 0, sizeof warned);
    usd_stage_options o = {skip, 0, on_warn, &warned, root, 0};
    usd_stage *s = NULL;
    pk_diag d = {{0}};
    if (usd_stage_open(path, &o, &s, &d) != 0) {
        fail_msg("open %s: %s", path, d.message);
    }
    usd_stage_sink sink = {on_mesh, on_instance, r, on_texture, on_material};
    if (usd_stage_import(s, &sink, &d) != 0) {
        usd_stage_close(s);
        fail_msg("import %s: %s", path, d.message);
    }
    usd_stage_close(s);
    assert_int_equal(r->mesh_before_material, 0);
}

static void import_ok(const char *name, int skip, rec *r)
{
    import_path(path_of(name), skip, NULL, r);
}

/* Open (or, when at_import, the import) of name fails with exactly want. */
static void expect_error(const char *name, int at_import, const char *want)
{
    memset(&warned, 0, sizeof warned);
    usd_stage_options o = {0, 0, on_warn, &warned, NULL, 0};
    usd_stage *s = NULL;
    pk_diag d = {{0}};
    char full[2048];
    expand(want, full, sizeof full);
    int rc = usd_stage_open(path_of(name), &o, &s, &d);
    if (at_import) {
        if (rc != 0) {
            fail_msg("open %s: %s", name, d.message);
        }
        rec r;
        memset(&r, 0, sizeof r);
        usd_stage_sink sink = {on_mesh, on_instance, &r, on_texture, on_material};
        rc = usd_stage_import(s, &sink, &d);
        usd_stage_close(s);
        rec_free(&r);
    } else if (rc == 0) {
        usd_stage_close(s);
    }
    if (rc == 0) {
        fail_msg("%s succeeded, want \"%s\"", name, full);
    }
    if (strcmp(d.message, full) != 0) {
        fail_msg("got  \"%s\"\nwant \"%s\"", d.message, full);
    }
}

/* Under skip_unsupported name imports, warning exactly want (every
 * warning, each ending in a newline). */
static void expect_warnings(const char *name, const char *want, rec *r)
{
    import_ok(name, 1, r);
    char full[4096];
    expand(want, full, sizeof full);
    if (strcmp(warned.all, full) != 0) {
        fail_msg("warned \"%s\"\nwant   \"%s\"", warned.all, full);
    }
}

static void expect_color(const float *got, double r, double g, double b)
{
    if (fabs(got[0] - r) > 1e-6 || fabs(got[1] - g) > 1e-6 || fabs(got[2] - b) > 1e-6) {
        fail_msg("colour (%g, %g, %g), want (%g, %g, %g)", got[0], got[1], got[2], r, g, b);
    }
}

/* ---- stages ----------------------------------------------------------------------- */

#define HEAD "#usda 1.0\n(\n    metersPerUnit = 1\n    upAxis = \"Y\"\n)\n"
#define QUADS                                                                                         \
    "        int[] faceVertexCounts = [4, 4]\n"                                                       \
    "        int[] faceVertexIndices = [0, 1, 2, 3, 1, 4, 5, 2]\n"                                    \
    "        point3f[] points = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (2, 0, 0), (2, 1, 0)]\n" \
    "        texCoord2f[] primvars:st = [(0, 0), (1, 0), (1, 1), (0, 1), (1, 0), (1, 1)] (interpolation = \"vertex\")\n"
/* A Material NAME whose surface has the input lines BODY. */
#define MATERIAL(NAME, BODY)                                                                                 \
    "    def Material \"" NAME "\"\n    {\n"                                                                 \
    "        token outputs:surface.connect = </Looks/" NAME "/S.outputs:surface>\n"                          \
    "        def Shader \"S\"\n        {\n"                                                                  \
    "            uniform token info:id = \"UsdPreviewSurface\"\n" BODY "            token outputs:surface\n" \
    "        }\n"
/* A UsdUVTexture T of FILE (with the lines MORE) reading st through R, inside a Material. */
#define TEXTURE(T, FILE, MORE)                                                                   \
    "        def Shader \"" T "\"\n        {\n"                                                  \
    "            uniform token info:id = \"UsdUVTexture\"\n"                                     \
    "            asset inputs:file = @" FILE "@\n" MORE                                          \
    "            float2 inputs:st.connect = <../R.outputs:result>\n"                             \
    "            float3 outputs:rgb\n            float outputs:r\n            float outputs:a\n" \
    "        }\n"
#define READER(VAR)                                                     \
    "        def Shader \"R\"\n        {\n"                             \
    "            uniform token info:id = \"UsdPrimvarReader_float2\"\n" \
    "            string inputs:varname = \"" VAR "\"\n            float2 outputs:result\n        }\n"
#define END "    }\n"

static void test_constants_fallbacks_and_alpha(void **state)
{
    (void)state;
    put("const.usda",
        HEAD "def Scope \"Looks\"\n{\n" MATERIAL("Blend", "            color3f inputs:diffuseColor = (0.5, 0.25, "
                                                          "0.125)\n"
                                                          "            color3f inputs:emissiveColor = (0.1, 0.2, "
                                                          "0.3)\n"
                                                          "            float inputs:metallic = 0.3\n"
                                                          "            float inputs:roughness = 0.7\n"
                                                          "            float inputs:opacity = 0.4\n"
                                                          "            float inputs:occlusion = 0.5\n"
                                                          "            float inputs:clearcoat = 1\n")
            END MATERIAL("Mask", "            float inputs:opacity = 0.4\n"
                                 "            float inputs:opacityThreshold = 0.25\n") END MATERIAL("Plain", "") END
        "}\n"
        "def Mesh \"A\" { rel material:binding = </Looks/Blend>\n" QUADS "}\n"
        "def Mesh \"B\" { rel material:binding = </Looks/Mask>\n uniform bool doubleSided = 1\n" QUADS "}\n"
        "def Mesh \"C\" { rel material:binding = </Looks/Plain>\n" QUADS "}\n"
        "def Mesh \"D\" {\n" QUADS "}\n");
    rec r;
    import_ok("const.usda", 0, &r);
    assert_int_equal(r.obj_count, 4);
    assert_int_equal(r.mat_count, 3);
    assert_int_equal(r.tex_count, 0);
    const pk_material *a = &r.mat[0], *b = &r.mat[1], *c = &r.mat[2];
    assert_string_equal(a->name, "Blend");
    expect_color(a->base_color, 0.5, 0.25, 0.125);
    assert_float_equal(a->base_color[3], 0.4f, 1e-6);
    expect_color(a->emissive, 0.1, 0.2, 0.3);
    assert_float_equal(a->metallic, 0.3f, 1e-6);
    assert_float_equal(a->roughness, 0.7f, 1e-6);
    assert_int_equal(a->alpha_mode, PK_ALPHA_BLEND);
    assert_int_equal(a->double_sided, 0);
    assert_int_equal(b->alpha_mode, PK_ALPHA_MASK);
    assert_float_equal(b->alpha_cutoff, 0.25f, 1e-6);
    assert_int_equal(b->double_sided, 1);
    /* UsdPreviewSurface's fallbacks, not glTF's. */
    expect_color(c->base_color, 0.18, 0.18, 0.18);
    assert_float_equal(c->metallic, 0.0f, 0);
    assert_float_equal(c->roughness, 0.5f, 0);
    assert_int_equal(c->alpha_mode, PK_ALPHA_OPAQUE);
    for (int s = 0; s < PK_SLOT_COUNT; s++) {
        assert_int_equal(a->slot[s].image, PK_NONE);
    }
    assert_int_equal(r.obj[0].material, 1);
    assert_int_equal(r.obj[1].material, 2);
    assert_int_equal(r.obj[2].material, 3);
    assert_int_equal(r.obj[3].material, 0);
    assert_int_equal(warned.count, 0);
    rec_free(&r);
}

static void test_textures_factors_wraps_and_direct_images(void **state)
{
    (void)state;
    put_png("tex/base.png", 1);
    put_png("tex/n.png", 2);
    put("tex.usda", HEAD "def Scope \"Looks\"\n{\n" MATERIAL(
                        "M", "            color3f inputs:diffuseColor.connect = </Looks/M/T.outputs:rgb>\n"
                             "            float inputs:opacity.connect = </Looks/M/T.outputs:a>\n"
                             "            normal3f inputs:normal.connect = </Looks/M/N.outputs:rgb>\n"
                             "            color3f inputs:emissiveColor.connect = </Looks/M/E.outputs:rgb>\n")
                        TEXTURE("T", "tex/base.png",
                                "            float4 inputs:scale = (0.5, 0.25, 1, 0.75)\n"
                                "            token inputs:wrapS = \"repeat\"\n"
                                "            token inputs:wrapT = \"mirror\"\n")
                            TEXTURE("N", "./tex/n.png",
                                    "            float4 inputs:scale = (3, 3, 2, 1)\n"
                                    "            float4 inputs:bias = (-1.5, -1.5, -1, 0)\n"
                                    "            token inputs:sourceColorSpace = \"raw\"\n"
                                    "            token inputs:wrapS = \"black\"\n")
                                TEXTURE("E", "tex/base.png", "            token inputs:wrapS = \"clamp\"\n")
                                    READER("st") END "}\n"
                                                     "def Xform \"X\" { rel material:binding = </Looks/M>\n"
                                                     "  def Mesh \"A\" {\n" QUADS "}\n}\n");
    rec r;
    import_ok("tex.usda", 0, &r);
    assert_int_equal(r.mat_count, 1);
    const pk_material *m = &r.mat[0];
    expect_color(m->base_color, 0.5, 0.25, 1.0);
    assert_float_equal(m->base_color[3], 0.75f, 1e-6);
    assert_int_equal(m->alpha_mode, PK_ALPHA_BLEND);
    expect_color(m->emissive, 1, 1, 1);
    assert_float_equal(m->slot[PK_SLOT_NORMAL].scale, 1.5f, 1e-6);
    assert_int_equal(m->slot[PK_SLOT_METALLIC_ROUGHNESS].image, PK_NONE);
    assert_int_equal(m->slot[PK_SLOT_OCCLUSION].image, PK_NONE);
    /* Base colour (RGB and A of one file: the file's image as decoded),
     * normal, emissive: three textures. */
    assert_int_equal(r.tex_count, 3);
    const got_texture *base = &r.tex[m->slot[PK_SLOT_BASE_COLOR].image];
    const got_texture *n = &r.tex[m->slot[PK_SLOT_NORMAL].image];
    const got_texture *e = &r.tex[m->slot[PK_SLOT_EMISSIVE].image];
    assert_int_equal(base->kind, pk_material_slot_kind(PK_SLOT_BASE_COLOR));
    assert_int_equal(n->kind, pk_material_slot_kind(PK_SLOT_NORMAL));
    assert_int_equal(base->wrap_s, PK_WRAP_REPEAT);
    assert_int_equal(base->wrap_t, PK_WRAP_MIRRORED_REPEAT);
    assert_int_equal(n->wrap_s, PK_WRAP_CLAMP_TO_EDGE); /* black */
    assert_int_equal(n->wrap_t, PK_WRAP_CLAMP_TO_EDGE); /* useMetadata, the fallback */
    assert_int_equal(e->wrap_s, PK_WRAP_CLAMP_TO_EDGE);
    assert_string_equal(base->name, "tex/base.png");
    assert_string_equal(n->name, "./tex/n.png");
    for (uint32_t y = 0; y < 2; y++) {
        for (uint32_t x = 0; x < 3; x++) {
            for (int c = 0; c < 4; c++) {
                assert_int_equal(base->img.texels[(y * 3 + x) * 4 + (uint32_t)c], texel(1, x, y, c));
                assert_int_equal(n->img.texels[(y * 3 + x) * 4 + (uint32_t)c], texel(2, x, y, c));
            }
        }
    }
    /* The normal map's raw colour space is what the slot reads: no warning. */
    assert_int_equal(warned.count, 0);
    assert_int_equal(r.obj[0].material, 1);
    rec_free(&r);
}

/* A UsdTransform2d between a texture and its primvar reader becomes the
 * slot's UV transform: the map it gives a point in USD's st (t up) is the
 * one the pack's transform gives that point in uv = (s, 1 - t), checked
 * here on a few points; without one the transform is the identity. */
static void test_uv_transform2d_is_the_slots_transform(void **state)
{
    (void)state;
    put_png("xf/base.png", 1);
    put("xf.usda",
        HEAD "def Scope \"Looks\"\n{\n" MATERIAL(
            "M",
            "            color3f inputs:diffuseColor.connect = </Looks/M/T.outputs:rgb>\n"
            "            normal3f inputs:normal.connect = </Looks/M/N.outputs:rgb>\n") "        def Shader \"T\"\n        {\n"
                                                                                       "            uniform token info:id = \"UsdUVTexture\"\n"
                                                                                       "            asset inputs:file = @xf/base.png@\n"
                                                                                       "            float2 inputs:st.connect = </Looks/M/X.outputs:result>\n"
                                                                                       "            float3 outputs:rgb\n        }\n"
                                                                                       "        def Shader \"X\"\n        {\n"
                                                                                       "            uniform token info:id = \"UsdTransform2d\"\n"
                                                                                       "            float2 inputs:in.connect = </Looks/M/R.outputs:result>\n"
                                                                                       "            float2 inputs:scale = (2, 3)\n"
                                                                                       "            float inputs:rotation = 30\n"
                                                                                       "            float2 inputs:translation = (0.25, -0.5)\n"
                                                                                       "            float2 outputs:result\n        }\n" TEXTURE(
                                                                                           "N", "xf/base.png", "")
                                                                                           READER("st") END
        "}\n"
        "def Mesh \"A\" { rel material:binding = </Looks/M>\n" QUADS "}\n");
    rec r;
    import_ok("xf.usda", 0, &r);
    assert_int_equal(r.mat_count, 1);
    const pk_texture_ref *t = &r.mat[0].slot[PK_SLOT_BASE_COLOR];
    const double a = 30.0 * 3.14159265358979323846 / 180.0;
    for (int i = 0; i < 4; i++) {
        const double s0 = 0.1 + 0.3 * i, t0 = 0.7 - 0.2 * i;
        /* USD: scale, rotate counter-clockwise (t up), translate */
        const double ss = 2.0 * s0, ts = 3.0 * t0;
        const double s1 = cos(a) * ss - sin(a) * ts + 0.25, t1 = sin(a) * ss + cos(a) * ts - 0.5;
        /* the pack: uv' = T + R S uv, R as KHR_texture_transform writes it */
        const double u = s0, v = 1.0 - t0;
        const double us = t->uv_scale[0] * u, vs = t->uv_scale[1] * v;
        const double c = cos(t->rotation), sn = sin(t->rotation);
        const double u1 = c * us + sn * vs + t->offset[0], v1 = -sn * us + c * vs + t->offset[1];
        assert_float_equal(u1, s1, 1e-5);
        assert_float_equal(v1, 1.0 - t1, 1e-5);
    }
    const pk_texture_ref *n = &r.mat[0].slot[PK_SLOT_NORMAL];
    assert_float_equal(n->uv_scale[0], 1.0f, 0.0f);
    assert_float_equal(n->uv_scale[1], 1.0f, 0.0f);
    assert_float_equal(n->rotation, 0.0f, 0.0f);
    assert_float_equal(n->offset[0], 0.0f, 0.0f);
    assert_float_equal(n->offset[1], 0.0f, 0.0f);
    assert_int_equal(warned.count, 0);
    rec_free(&r);
}

static void test_channels_are_repacked_into_the_slots_layout(void **state)
{
    (void)state;
    put_png("ch/a.png", 3);
    put_png("ch/b.png", 4);
    put("chan.usda", HEAD
        "def Scope \"Looks\"\n{\n" MATERIAL("M", "            float inputs:metallic.connect = </Looks/M/A.outputs:r>\n"
                                                 "            float inputs:roughness.connect = </Looks/M/B.outputs:a>\n"
                                                 "            float inputs:occlusion.connect = </Looks/M/A.outputs:g>\n"
                                                 "            float inputs:opacity.connect = </Looks/M/B.outputs:r>\n"
                                                 "            color3f inputs:diffuseColor = (0.2, 0.3, 0.4)\n")
            TEXTURE("A", "ch/a.png", "            float4 inputs:scale = (0.5, 1, 1, 1)\n")
                TEXTURE("B", "ch/b.png", "            float4 inputs:scale = (0.25, 1, 1, 0.125)\n") READER("st") END
        "}\n"
        "def Mesh \"A\" { rel material:binding = </Looks/M>\n" QUADS "}\n");
    rec r;
    import_ok("chan.usda", 0, &r);
    assert_int_equal(r.mat_count, 1);
    const pk_material *m = &r.mat[0];
    assert_float_equal(m->metallic, 0.5f, 1e-6);
    assert_float_equal(m->roughness, 0.125f, 1e-6);
    assert_float_equal(m->base_color[3], 0.25f, 1e-6);
    expect_color(m->base_color, 0.2, 0.3, 0.4);
    assert_int_equal(m->alpha_mode, PK_ALPHA_BLEND);
    assert_int_equal(r.tex_count, 3);
    const pk_image *mr = &r.tex[m->slot[PK_SLOT_METALLIC_ROUGHNESS].image].img;
    const pk_image *occ = &r.tex[m->slot[PK_SLOT_OCCLUSION].image].img;
    const pk_image *bc = &r.tex[m->slot[PK_SLOT_BASE_COLOR].image].img;
    assert_int_equal(mr->format, PK_TEXEL_RGBA8);
    assert_int_equal(mr->width, 3);
    assert_int_equal(mr->height, 2);
    for (uint32_t y = 0; y < 2; y++) {
        for (uint32_t x = 0; x < 3; x++) {
            const uint8_t *t = mr->texels + (y * 3 + x) * 4;
            assert_int_equal(t[1], texel(4, x, y, 3)); /* roughness: B's alpha into G */
            assert_int_equal(t[2], texel(3, x, y, 0)); /* metallic: A's red into B */
            assert_int_equal(t[0], 0);                 /* not read */
            assert_int_equal(t[3], 255);
            t = occ->texels + (y * 3 + x) * 4;
            assert_int_equal(t[0], texel(3, x, y, 1)); /* occlusion: A's green into R */
            t = bc->texels + (y * 3 + x) * 4;
            assert_int_equal(t[0], 255); /* the diffuse constant is the factor */
            assert_int_equal(t[1], 255);
            assert_int_equal(t[2], 255);
            assert_int_equal(t[3], texel(4, x, y, 0)); /* opacity: B's red into A */
        }
    }
    assert_int_not_equal(mr->hash, 0);
    rec_free(&r);
}

static void test_binding_inherited_and_mapped_over_a_reference(void **state)
{
    (void)state;
    put("asset.usda", "#usda 1.0\n(\n    defaultPrim = \"Asset\"\n)\n"
                      "def Xform \"Asset\"\n{\n"
                      "    def Material \"Mat\"\n    {\n"
                      "        token outputs:surface.connect = </Asset/Mat/S.outputs:surface>\n"
                      "        def Shader \"S\"\n        {\n"
                      "            uniform token info:id = \"UsdPreviewSurface\"\n"
                      "            color3f inputs:diffuseColor = (0, 0, 1)\n"
                      "            token outputs:surface\n        }\n    }\n"
                      "    def Mesh \"Geo\" ( prepend apiSchemas = [\"MaterialBindingAPI\"] )\n    {\n"
                      "        rel material:binding = </Asset/Mat>\n" QUADS "    }\n}\n");
    put("bind.usda",
        HEAD "def Scope \"Looks\"\n{\n" MATERIAL("Red", "            color3f inputs:diffuseColor = (1, 0, 0)\n")
            END MATERIAL("Green", "            color3f inputs:diffuseColor = (0, 1, 0)\n") END
        "}\n"
        "def Xform \"World\" { rel material:binding = </Looks/Red>\n"
        "  rel material:binding:preview = </Looks/Green>\n"
        "  def Xform \"Inner\" {\n"
        "    def Mesh \"Inherits\" {\n" QUADS "    }\n"
        "    def Mesh \"Own\" { rel material:binding = </Looks/Green>\n" QUADS "    }\n  }\n"
        "  def \"Ref\" ( references = @./asset.usda@ ) { }\n"
        "}\n");
    rec r;
    import_ok("bind.usda", 0, &r);
    assert_int_equal(r.obj_count, 3);
    assert_int_equal(r.mat_count, 3);
    expect_color(r.mat[r.obj[0].material - 1].base_color, 1, 0, 0);
    expect_color(r.mat[r.obj[1].material - 1].base_color, 0, 1, 0);
    /* Authored in asset.usda as </Asset/Mat>: the Material at </World/Ref/Mat>. */
    expect_color(r.mat[r.obj[2].material - 1].base_color, 0, 0, 1);
    char want[1024];
    snprintf(want, sizeof want,
             "%s: </World>: material:binding:preview is not read (only the direct, all-purpose material:binding is); "
             "ignored\n",
             path_of("bind.usda"));
    assert_string_equal(warned.all, want);
    rec_free(&r);
    /* A sink that takes no materials: meshes name none. */
    memset(&r, 0, sizeof r);
    usd_stage *s = NULL;
    pk_diag d = {{0}};
    assert_int_equal(usd_stage_open(path_of("bind.usda"), NULL, &s, &d), 0);
    usd_stage_sink sink = {on_mesh, on_instance, &r, NULL, NULL};
    assert_int_equal(usd_stage_import(s, &sink, &d), 0);
    usd_stage_close(s);
    assert_int_equal(r.mat_count, 0);
    for (uint32_t i = 0; i < r.obj_count; i++) {
        assert_int_equal(r.obj[i].material, 0);
    }
}

static void test_geom_subsets_are_parts_placed_everywhere(void **state)
{
    (void)state;
    put("subasset.usda",
        "#usda 1.0\n(\n    defaultPrim = \"Part\"\n)\n"
        "def Xform \"Part\"\n{\n"
        "    def Material \"Blue\"\n    {\n"
        "        token outputs:surface.connect = </Part/Blue/S.outputs:surface>\n"
        "        def Shader \"S\"\n        {\n"
        "            uniform token info:id = \"UsdPreviewSurface\"\n"
        "            color3f inputs:diffuseColor = (0, 0, 1)\n"
        "            token outputs:surface\n        }\n    }\n"
        "    def Material \"Red\"\n    {\n"
        "        token outputs:surface.connect = </Part/Red/S.outputs:surface>\n"
        "        def Shader \"S\"\n        {\n"
        "            uniform token info:id = \"UsdPreviewSurface\"\n"
        "            color3f inputs:diffuseColor = (1, 0, 0)\n"
        "            token outputs:surface\n        }\n    }\n"
        "    def Mesh \"Geo\"\n    {\n"
        "        rel material:binding = </Part/Blue>\n" QUADS "        def GeomSubset \"Right\"\n        {\n"
        "            uniform token familyName = \"materialBind\"\n"
        "            uniform token elementType = \"face\"\n"
        "            int[] indices = [1]\n"
        "            rel material:binding = </Part/Red>\n        }\n"
        "        def GeomSubset \"Unbound\"\n        {\n"
        "            uniform token familyName = \"materialBind\"\n"
        "            int[] indices = [0]\n        }\n"
        "        def GeomSubset \"OtherFamily\"\n        {\n"
        "            uniform token familyName = \"parts\"\n"
        "            int[] indices = [0]\n"
        "            rel material:binding = </Part/Red>\n        }\n"
        "    }\n}\n");
    put("subsets.usda", HEAD "def \"One\" ( instanceable = true\n references = @./subasset.usda@ ) { }\n"
                             "def \"Two\" ( instanceable = true\n references = @./subasset.usda@ ) {\n"
                             "  double3 xformOp:translate = (5, 0, 0)\n"
                             "  uniform token[] xformOpOrder = [\"xformOp:translate\"]\n}\n");
    rec r;
    import_ok("subsets.usda", 0, &r);
    /* The faces no bound subset claims (face 0, Blue) and Right's (face 1,
     * Red): two objects, each placed by both instances. */
    assert_int_equal(r.obj_count, 2);
    assert_int_equal(r.obj[0].indices, 6);
    assert_int_equal(r.obj[1].indices, 6);
    expect_color(r.mat[r.obj[0].material - 1].base_color, 0, 0, 1);
    expect_color(r.mat[r.obj[1].material - 1].base_color, 1, 0, 0);
    assert_int_equal(r.inst_count, 4);
    uint32_t per_object[2] = {0, 0};
    for (uint32_t i = 0; i < r.inst_count; i++) {
        assert_true(r.inst[i].mesh < 2);
        per_object[r.inst[i].mesh]++;
    }
    assert_int_equal(per_object[0], 2);
    assert_int_equal(per_object[1], 2);
    char want[1024];
    snprintf(want, sizeof want,
             "%s: </One/Geo/OtherFamily>: GeomSubset binds </One/Red> but its familyName is not materialBind, so USD "
             "does not apply the binding; ignored\n",
             path_of("subasset.usda"));
    assert_string_equal(warned.all, want);
    rec_free(&r);
}

/* ---- usdz ---------------------------------------------------------------------------- */

static void le16(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void le32(uint8_t *p, uint32_t v)
{
    le16(p, v & 0xffffu);
    le16(p + 2, v >> 16);
}

/* A zip of two stored entries. */
static void put_zip(const char *name, const char *const names[2], const uint8_t *const data[2], const size_t size[2])
{
    size_t cap = 1024 + size[0] + size[1];
    uint8_t *z = calloc(1, cap);
    size_t pos = 0;
    uint32_t local[2];
    for (int i = 0; i < 2; i++) {
        local[i] = (uint32_t)pos;
        uint8_t *h = z + pos;
        le32(h, 0x04034b50u);
        le32(h + 18, (uint32_t)size[i]);
        le32(h + 22, (uint32_t)size[i]);
        le16(h + 26, (uint32_t)strlen(names[i]));
        memcpy(h + 30, names[i], strlen(names[i]));
        pos += 30 + strlen(names[i]);
        memcpy(z + pos, data[i], size[i]);
        pos += size[i];
    }
    size_t cd = pos;
    for (int i = 0; i < 2; i++) {
        uint8_t *h = z + pos;
        le32(h, 0x02014b50u);
        le32(h + 20, (uint32_t)size[i]);
        le32(h + 24, (uint32_t)size[i]);
        le16(h + 28, (uint32_t)strlen(names[i]));
        le32(h + 42, local[i]);
        memcpy(h + 46, names[i], strlen(names[i]));
        pos += 46 + strlen(names[i]);
    }
    uint8_t *h = z + pos;
    le32(h, 0x06054b50u);
    le16(h + 8, 2);
    le16(h + 10, 2);
    le32(h + 12, (uint32_t)(pos - cd));
    le32(h + 16, (uint32_t)cd);
    pos += 22;
    put_bytes(name, z, pos);
    free(z);
}

static uint8_t *read_all(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    *n = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *p = malloc(*n);
    assert_non_null(p);
    assert_int_equal(fread(p, 1, *n, f), *n);
    fclose(f);
    return p;
}

static void test_usdz_texture_is_read_from_the_package_and_listed(void **state)
{
    (void)state;
    put_png("z/t.png", 5);
    size_t png_n = 0;
    uint8_t *png = read_all(path_of("z/t.png"), &png_n);
    const char *root = HEAD "def Scope \"Looks\"\n{\n" MATERIAL(
        "M", "            color3f inputs:diffuseColor.connect = </Looks/M/T.outputs:rgb>\n")
        TEXTURE("T", "tex/t.png", "") READER("st") END "}\n"
                                                       "def Mesh \"A\" { rel material:binding = </Looks/M>\n" QUADS
                                                       "}\n";
    const char *names[2] = {"scene.usda", "tex/t.png"};
    const uint8_t *data[2] = {(const uint8_t *)root, png};
    const size_t size[2] = {strlen(root), png_n};
    put_zip("pkg.usdz", names, data, size);
    free(png);
    rec r;
    import_ok("pkg.usdz", 0, &r);
    assert_int_equal(r.tex_count, 1);
    for (uint32_t i = 0; i < 6; i++) {
        for (int c = 0; c < 4; c++) {
            assert_int_equal(r.tex[0].img.texels[i * 4 + (uint32_t)c], texel(5, i % 3, i / 3, c));
        }
    }
    rec_free(&r);
    /* The importer lists the package as the texture's file. */
    const pk_importer *imp = pk_importer_for_file(path_of("pkg.usdz"));
    assert_string_equal(imp->name, "usd");
    pk_import_options o;
    memset(&o, 0, sizeof o);
    void *st = NULL;
    pk_diag d = {{0}};
    assert_int_equal(imp->open(path_of("pkg.usdz"), &o, &st, &d), 0);
    char label[64];
    char real[PATH_MAX];
    assert_non_null(realpath(path_of("pkg.usdz"), real));
    assert_string_equal(imp->file(st, 0, label, sizeof label), real);
    assert_string_equal(label, "layer");
    assert_string_equal(imp->file(st, 1, label, sizeof label), path_of("pkg.usdz"));
    assert_string_equal(label, "texture");
    assert_null(imp->file(st, 2, label, sizeof label));
    imp->close(st);
}

/* ---- refusals ----------------------------------------------------------------------------- */

/* A stage binding </Looks/M> (whose surface has BODY and the extra shader
 * lines MORE) to a Mesh with primvars:st. */
#define BOUND(BODY, MORE)                                        \
    HEAD "def Scope \"Looks\"\n{\n" MATERIAL("M", BODY) MORE END \
        "}\n"                                                    \
        "def Mesh \"A\" { rel material:binding = </Looks/M>\n" QUADS "}\n"
#define DIFFUSE_T "            color3f inputs:diffuseColor.connect = </Looks/M/T.outputs:rgb>\n"

static void test_refusals_name_the_prim_and_input(void **state)
{
    (void)state;
    put_png("r/ok.png", 6);
    static const struct {
        const char *text;
        const char *error;   /* at open, "@/" the folder, "%s" the file */
        const char *warning; /* under skip_unsupported */
    } cases[] = {
        {HEAD "def Mesh \"A\" { rel material:binding = </Nowhere>\n" QUADS "}\n",
         "%s: </A>: material:binding </Nowhere>: no such prim",
         "%s: </A>: material:binding </Nowhere>: no such prim; the material is ignored"},
        {HEAD "def Xform \"X\" {}\ndef Mesh \"A\" { rel material:binding = </X>\n" QUADS "}\n",
         "%s: </A>: material:binding </X>: a Xform prim, not a Material",
         "%s: </A>: material:binding </X>: a Xform prim, not a Material; the material is ignored"},
        {HEAD "def Material \"M\" {}\ndef Mesh \"A\" { rel material:binding = </M>\n" QUADS "}\n",
         "%s: </M>: Material has no outputs:surface connection (a UsdPreviewSurface is what is read)",
         "%s: </M>: Material has no outputs:surface connection (a UsdPreviewSurface is what is read); the material "
         "is ignored"},
        {HEAD "def Material \"M\" { token outputs:surface.connect = </M/S.outputs:surface>\n"
              "  def Shader \"S\" { uniform token info:id = \"ND_standard_surface_surfaceshader\"\n"
              "    token outputs:surface } }\n"
              "def Mesh \"A\" { rel material:binding = </M>\n" QUADS "}\n",
         "%s: </M/S>: shader 'ND_standard_surface_surfaceshader' is not supported (UsdPreviewSurface, UsdUVTexture, "
         "UsdTransform2d and UsdPrimvarReader_float2 are read)",
         "%s: </M/S>: shader 'ND_standard_surface_surfaceshader' is not supported (UsdPreviewSurface, UsdUVTexture, "
         "UsdTransform2d and UsdPrimvarReader_float2 are read); the material is ignored"},
        {BOUND(DIFFUSE_T, TEXTURE("T", "r/ok.png", "            float4 inputs:bias = (0.5, 0, 0, 0)\n") READER("st")),
         "%s: </Looks/M/T>: inputs:bias (0.5, 0, 0, 0) is not supported (a texture bias, read by "
         "</Looks/M/S>.inputs:diffuseColor)",
         "%s: </Looks/M/T>: inputs:bias (0.5, 0, 0, 0) is not supported (a texture bias, read by "
         "</Looks/M/S>.inputs:diffuseColor); the texture is ignored"},
        {BOUND("            float inputs:metallic.connect = </Looks/M/T.outputs:r>\n",
               TEXTURE("T", "r/ok.png", "            float4 inputs:scale = (2, 1, 1, 1)\n") READER("st")),
         "%s: </Looks/M/T>: inputs:scale (2, 1, 1, 1) cannot be carried by </Looks/M/S>.inputs:metallic (a factor in "
         "[0, 1])",
         "%s: </Looks/M/T>: inputs:scale (2, 1, 1, 1) cannot be carried by </Looks/M/S>.inputs:metallic (a factor in "
         "[0, 1]); the texture is ignored"},
        {BOUND("            float inputs:occlusion.connect = </Looks/M/T.outputs:r>\n",
               TEXTURE("T", "r/ok.png", "            float4 inputs:scale = (0.5, 1, 1, 1)\n") READER("st")),
         "%s: </Looks/M/T>: inputs:scale (0.5, 1, 1, 1) cannot be carried by </Looks/M/S>.inputs:occlusion "
         "(occlusion takes no factor: scale 1)",
         "%s: </Looks/M/T>: inputs:scale (0.5, 1, 1, 1) cannot be carried by </Looks/M/S>.inputs:occlusion "
         "(occlusion takes no factor: scale 1); the texture is ignored"},
        {BOUND("            normal3f inputs:normal.connect = </Looks/M/T.outputs:rgb>\n",
               TEXTURE("T", "r/ok.png", "            float4 inputs:scale = (2, 2, 2, 1)\n") READER("st")),
         "%s: </Looks/M/T>: inputs:scale (2, 2, 2, 1) and inputs:bias (0, 0, 0, 0) cannot be carried by "
         "</Looks/M/S>.inputs:normal (a normal map is read with scale (2k, 2k, 2) and bias (-k, -k, -1), or scale 1 "
         "and bias 0)",
         "%s: </Looks/M/T>: inputs:scale (2, 2, 2, 1) and inputs:bias (0, 0, 0, 0) cannot be carried by "
         "</Looks/M/S>.inputs:normal (a normal map is read with scale (2k, 2k, 2) and bias (-k, -k, -1), or scale 1 "
         "and bias 0); the texture is ignored"},
        {BOUND(DIFFUSE_T "            float inputs:opacity.connect = </Looks/M/U.outputs:a>\n",
               "        def Shader \"T\" { uniform token info:id = \"UsdUVTexture\"\n"
               "          asset inputs:file = @r/ok.png@\n"
               "          float2 inputs:st.connect = </Looks/M/X.outputs:result> }\n"
               "        def Shader \"X\" { uniform token info:id = \"UsdTransform2d\"\n"
               "          float2 inputs:scale = (2, 2)\n"
               "          float2 inputs:in.connect = </Looks/M/R.outputs:result> }\n" TEXTURE("U", "r/ok.png", "")
                   READER("st")),
         "%s: </Looks/M/U>: reads its UVs through another UsdTransform2d than </Looks/M/T>, which fills the same slot",
         "%s: </Looks/M/U>: reads its UVs through another UsdTransform2d than </Looks/M/T>, which fills the same "
         "slot; the texture is ignored"},
        {BOUND(DIFFUSE_T, "        def Shader \"T\" { uniform token info:id = \"UsdUVTexture\"\n"
                          "          asset inputs:file = @r/ok.png@\n"
                          "          float2 inputs:st.connect = </Looks/M/X.outputs:result> }\n"
                          "        def Shader \"X\" { uniform token info:id = \"UsdTransform2d\" }\n"),
         "%s: </Looks/M/X>: inputs:in is not connected to a UsdPrimvarReader_float2",
         "%s: </Looks/M/X>: inputs:in is not connected to a UsdPrimvarReader_float2; the texture is ignored"},
        {BOUND(DIFFUSE_T, "        def Shader \"T\" { uniform token info:id = \"UsdUVTexture\"\n"
                          "          asset inputs:file = @r/ok.png@\n"
                          "          float2 inputs:st.connect = </Looks/M/X.outputs:result> }\n"
                          "        def Shader \"X\" { uniform token info:id = \"UsdTransform2d\"\n"
                          "          float2 inputs:in.connect = </Looks/M/X.outputs:result> }\n"),
         "%s: </Looks/M/X>: shader 'UsdTransform2d' is not supported (UsdPreviewSurface, UsdUVTexture, "
         "UsdTransform2d and UsdPrimvarReader_float2 are read)",
         "%s: </Looks/M/X>: shader 'UsdTransform2d' is not supported (UsdPreviewSurface, UsdUVTexture, "
         "UsdTransform2d and UsdPrimvarReader_float2 are read); the texture is ignored"},
        {BOUND(DIFFUSE_T, "        def Shader \"T\" { uniform token info:id = \"UsdUVTexture\"\n"
                          "          asset inputs:file = @r/ok.png@\n"
                          "          float2 inputs:st.connect = </Looks/M/X.outputs:result> }\n"
                          "        def Shader \"X\" { uniform token info:id = \"UsdTransform2d\"\n"
                          "          float inputs:rotation = inf\n"
                          "          float2 inputs:in.connect = </Looks/M/R.outputs:result> }\n" READER("st")),
         "%s: </Looks/M/X>: inputs:rotation inf is not a finite angle of at most 1e6 degrees",
         "%s: </Looks/M/X>: inputs:rotation inf is not a finite angle of at most 1e6 degrees; the texture is ignored"},
        {BOUND(DIFFUSE_T, "        def Shader \"T\" { uniform token info:id = \"UsdUVTexture\"\n"
                          "          asset inputs:file = @r/ok.png@\n"
                          "          float2 inputs:st.connect = </Looks/M/X.outputs:result> }\n"
                          "        def Shader \"X\" { uniform token info:id = \"UsdTransform2d\"\n"
                          "          float2 inputs:in.connect = </Looks/M/R.outputs:other> }\n" READER("st")),
         "%s: </Looks/M/X>: inputs:in reads outputs:other of </Looks/M/R>, not outputs:result",
         "%s: </Looks/M/X>: inputs:in reads outputs:other of </Looks/M/R>, not outputs:result; the texture is ignored"},
        {BOUND("            color3f inputs:diffuseColor.connect = </Looks/M/T.outputs:r>\n",
               TEXTURE("T", "r/ok.png", "") READER("st")),
         "%s: </Looks/M/S>: inputs:diffuseColor reads outputs:r of </Looks/M/T>, not outputs:rgb",
         "%s: </Looks/M/S>: inputs:diffuseColor reads outputs:r of </Looks/M/T>, not outputs:rgb; the texture is "
         "ignored"},
        {BOUND(DIFFUSE_T, TEXTURE("T", "r/ok.png", "            token inputs:wrapS = \"spiral\"\n") READER("st")),
         "%s: </Looks/M/T>: inputs:wrapS 'spiral' is not repeat, mirror, clamp, black or useMetadata",
         "%s: </Looks/M/T>: inputs:wrapS 'spiral' is not repeat, mirror, clamp, black or useMetadata; the texture is "
         "ignored"},
        {BOUND(DIFFUSE_T, TEXTURE("T", "../outside.png", "") READER("st")),
         "%s: </Looks/M/T>: inputs:file '^^/outside.png' is outside the asset root @@ (--asset-root DIR widens it; "
         "--allow-outside-paths reads any path)",
         "%s: </Looks/M/T>: inputs:file '^^/outside.png' is outside the asset root @@ (--asset-root DIR widens it; "
         "--allow-outside-paths reads any path); the texture is ignored"},
        {BOUND(DIFFUSE_T, TEXTURE("T", "r/ok.png", "") READER("uv2")),
         "%s: </A>: texture </Looks/M/T> reads primvar 'uv2', but the mesh's texture coordinates are primvars:st",
         "%s: </A>: texture </Looks/M/T> reads primvar 'uv2', but the mesh's texture coordinates are primvars:st; the "
         "texture is ignored for this mesh"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char name[32];
        snprintf(name, sizeof name, "refuse%zu.usda", i);
        put(name, cases[i].text);
        char want[2048];
        snprintf(want, sizeof want, cases[i].error, path_of(name));
        expect_error(name, 0, want);
        char warn[2048];
        int n = snprintf(warn, sizeof warn, cases[i].warning, path_of(name));
        snprintf(warn + n, sizeof warn - (size_t)n, "\n");
        rec r;
        expect_warnings(name, warn, &r);
        assert_int_equal(r.obj_count, 1);
        rec_free(&r);
    }
}

static void test_unreadable_image_is_refused_at_import_or_left_empty(void **state)
{
    (void)state;
    put_bytes("bad/cut.png", "\x89PNG\r\n\x1a\n", 8);
    put("missing.usda", BOUND(DIFFUSE_T, TEXTURE("T", "bad/none.png", "") READER("st")));
    char want[1024];
    snprintf(want, sizeof want, "%s: </Looks/M/T>: %s: cannot open: No such file or directory", path_of("missing.usda"),
             path_of("bad/none.png"));
    expect_error("missing.usda", 1, want);
    char warn[1100];
    snprintf(warn, sizeof warn, "%s; the materials that use it are packed without it\n", want);
    rec r;
    expect_warnings("missing.usda", warn, &r);
    assert_int_equal(r.mat_count, 1);
    assert_int_equal(r.mat[0].slot[PK_SLOT_BASE_COLOR].image, PK_NONE);
    assert_int_equal(r.tex_count, 0);
    rec_free(&r);
}

/* ---- the network in a crate ------------------------------------------------------------ */

/* tests/fuzz/corpus/usdc/written-0.8.0-shader-network.usdc is write_network_crate's output for the
 * varname "st": after a change to the network or to tests/support/usdc_writer.c, regenerate it with
 *   build/default/tests/test_usd_materials --write-crate-seed tests/fuzz/corpus/usdc/written-0.8.0-shader-network.usdc
 * (run from the source folder; test_crate_seed_is_the_writers_network says when it is stale). */
#define NETWORK_SEED "tests/fuzz/corpus/usdc/written-0.8.0-shader-network.usdc"
#define NO_CONNECTION UINT32_MAX

/* The attribute spec at path: its typeName, uniform or not, its default (0: none) and its one connection
 * (NO_CONNECTION: none). */
static void crate_attr(usdc_writer *w, uint32_t path, const char *type, int uniform, uint64_t value, uint32_t connect)
{
    usdcw_spec(w, path, USDCW_SPEC_ATTRIBUTE);
    usdcw_field(w, "typeName", usdcw_token_rep(w, type));
    if (uniform) {
        usdcw_field(w, "variability", usdcw_rep(USDCW_VARIABILITY, 0, 1, 0, 1));
    }
    if (value != 0) {
        usdcw_field(w, "default", value);
    }
    if (connect != NO_CONNECTION) {
        usdcw_field(w, "connectionPaths", usdcw_path_rep(w, connect));
    }
}

/* A new attribute name of prim (crate_attr's spec). */
static uint32_t crate_prop(usdc_writer *w, uint32_t prim, const char *name, const char *type, int uniform,
                           uint64_t value, uint32_t connect)
{
    uint32_t p = usdcw_child(w, prim, name, 1);
    crate_attr(w, p, type, uniform, value, connect);
    return p;
}

static void crate_rel(usdc_writer *w, uint32_t prim, const char *name, uint32_t target)
{
    usdcw_spec(w, usdcw_child(w, prim, name, 1), USDCW_SPEC_RELATIONSHIP);
    usdcw_field(w, "targetPaths", usdcw_path_rep(w, target));
}

/* The def prim spec of path, typed, listing its children and properties (all added by then). */
static void crate_prim(usdc_writer *w, uint32_t path, const char *type)
{
    usdcw_spec(w, path, USDCW_SPEC_PRIM);
    usdcw_field(w, "specifier", usdcw_rep(USDCW_SPECIFIER, 0, 1, 0, 0));
    usdcw_field(w, "typeName", usdcw_token_rep(w, type));
    usdcw_child_fields(w, path);
}

static void crate_binding_api(usdc_writer *w)
{
    static const char *const api[] = {"MaterialBindingAPI"};
    const usdcw_part prepend[] = {{USDCW_LIST_PREPENDED, 0, 1}, {0, 0, 0}};
    usdcw_field(w, "apiSchemas", usdcw_listop(w, USDCW_TOKEN_LISTOP, 0, prepend, NULL, api, NULL));
}

/* tests/fuzz/corpus/usda/seed17_shader_network.usda's network as a crate (0.8.0), with constant metallic and
 * roughness in place of its ORM texture: /World binds Wood (and Plain for the preview purpose); Wood's
 * UsdPreviewSurface reads diffuseColor and opacity from Tex (wood_albedo.png, repeat and mirror, scale 0.8)
 * and normal from Nrm (./textures/wood_n.png, scale 2 and bias -1), through Reader, whose varname is
 * connected to the Material's inputs:frame:stPrimvarName (varname); a MaterialX shader beside it; the
 * Board mesh's face 1 is the GeomSubset Right, bound to Plain. *w owns *data. */
static void write_network_crate(const char *varname, usdc_writer **out, const uint8_t **data, size_t *size)
{
    usdc_writer *w = usdcw_create(0, 8, 0);
    uint32_t world = usdcw_child(w, USDCW_ROOT, "World", 0);
    uint32_t looks = usdcw_child(w, world, "Looks", 0);
    uint32_t wood = usdcw_child(w, looks, "Wood", 0);
    uint32_t surf = usdcw_child(w, wood, "Surface", 0);
    uint32_t tex = usdcw_child(w, wood, "Tex", 0);
    uint32_t nrm = usdcw_child(w, wood, "Nrm", 0);
    uint32_t reader = usdcw_child(w, wood, "Reader", 0);
    uint32_t std = usdcw_child(w, wood, "Std", 0);
    uint32_t plain = usdcw_child(w, looks, "Plain", 0);
    uint32_t plain_surf = usdcw_child(w, plain, "Surface", 0);
    uint32_t board = usdcw_child(w, world, "Board", 0);
    uint32_t right = usdcw_child(w, board, "Right", 0);
    /* The properties connections name, first (a connection names a path index). */
    uint32_t frame_st = usdcw_child(w, wood, "inputs:frame:stPrimvarName", 1);
    uint32_t surf_out = usdcw_child(w, surf, "outputs:surface", 1);
    uint32_t std_out = usdcw_child(w, std, "outputs:surface", 1);
    uint32_t plain_out = usdcw_child(w, plain_surf, "outputs:surface", 1);
    uint32_t tex_rgb = usdcw_child(w, tex, "outputs:rgb", 1);
    uint32_t tex_a = usdcw_child(w, tex, "outputs:a", 1);
    uint32_t nrm_rgb = usdcw_child(w, nrm, "outputs:rgb", 1);
    uint32_t result = usdcw_child(w, reader, "outputs:result", 1);

    usdcw_spec(w, USDCW_ROOT, USDCW_SPEC_PSEUDO_ROOT);
    usdcw_field(w, "defaultPrim", usdcw_token_rep(w, "World"));
    usdcw_field(w, "metersPerUnit", usdcw_double_rep(w, 1.0));
    usdcw_field(w, "upAxis", usdcw_token_rep(w, "Y"));
    usdcw_child_fields(w, USDCW_ROOT);

    crate_rel(w, world, "material:binding", wood);
    crate_rel(w, world, "material:binding:preview", plain);
    crate_prim(w, world, "Xform");
    crate_binding_api(w);
    crate_prim(w, looks, "Scope");

    crate_attr(w, frame_st, "token", 0, usdcw_token_rep(w, varname), NO_CONNECTION);
    crate_prop(w, wood, "outputs:surface", "token", 0, 0, surf_out);
    crate_prop(w, wood, "outputs:mtlx:surface", "token", 0, 0, std_out);
    crate_prim(w, wood, "Material");

    static const float emissive[3] = {0.1f, 0.05f, 0.0f};
    crate_prop(w, surf, "info:id", "token", 1, usdcw_token_rep(w, "UsdPreviewSurface"), NO_CONNECTION);
    crate_prop(w, surf, "inputs:diffuseColor", "color3f", 0, 0, tex_rgb);
    crate_prop(w, surf, "inputs:opacity", "float", 0, 0, tex_a);
    crate_prop(w, surf, "inputs:normal", "normal3f", 0, 0, nrm_rgb);
    crate_prop(w, surf, "inputs:metallic", "float", 0, usdcw_float_rep(0.25f), NO_CONNECTION);
    crate_prop(w, surf, "inputs:roughness", "float", 0, usdcw_float_rep(0.625f), NO_CONNECTION);
    crate_prop(w, surf, "inputs:emissiveColor", "color3f", 0, usdcw_vec_rep(w, USDCW_VEC3F, emissive, 3),
               NO_CONNECTION);
    crate_prop(w, surf, "inputs:opacityThreshold", "float", 0, usdcw_float_rep(0.5f), NO_CONNECTION);
    crate_attr(w, surf_out, "token", 0, 0, NO_CONNECTION);
    crate_prim(w, surf, "Shader");

    static const float tex_scale[4] = {0.8f, 0.8f, 0.8f, 1.0f}, tex_bias[4] = {0, 0, 0, 0};
    crate_prop(w, tex, "info:id", "token", 1, usdcw_token_rep(w, "UsdUVTexture"), NO_CONNECTION);
    crate_prop(w, tex, "inputs:file", "asset", 0, usdcw_asset_rep(w, "textures/wood_albedo.png"), NO_CONNECTION);
    crate_prop(w, tex, "inputs:scale", "float4", 0, usdcw_vec_rep(w, USDCW_VEC4F, tex_scale, 4), NO_CONNECTION);
    crate_prop(w, tex, "inputs:bias", "float4", 0, usdcw_vec_rep(w, USDCW_VEC4F, tex_bias, 4), NO_CONNECTION);
    crate_prop(w, tex, "inputs:sourceColorSpace", "token", 0, usdcw_token_rep(w, "sRGB"), NO_CONNECTION);
    crate_prop(w, tex, "inputs:wrapS", "token", 0, usdcw_token_rep(w, "repeat"), NO_CONNECTION);
    crate_prop(w, tex, "inputs:wrapT", "token", 0, usdcw_token_rep(w, "mirror"), NO_CONNECTION);
    crate_prop(w, tex, "inputs:st", "float2", 0, 0, result);
    crate_attr(w, tex_rgb, "float3", 0, 0, NO_CONNECTION);
    crate_attr(w, tex_a, "float", 0, 0, NO_CONNECTION);
    crate_prim(w, tex, "Shader");

    static const float nrm_scale[4] = {2, 2, 2, 1}, nrm_bias[4] = {-1, -1, -1, 0};
    crate_prop(w, nrm, "info:id", "token", 1, usdcw_token_rep(w, "UsdUVTexture"), NO_CONNECTION);
    crate_prop(w, nrm, "inputs:file", "asset", 0, usdcw_asset_rep(w, "./textures/wood_n.png"), NO_CONNECTION);
    crate_prop(w, nrm, "inputs:scale", "float4", 0, usdcw_vec_rep(w, USDCW_VEC4F, nrm_scale, 4), NO_CONNECTION);
    crate_prop(w, nrm, "inputs:bias", "float4", 0, usdcw_vec_rep(w, USDCW_VEC4F, nrm_bias, 4), NO_CONNECTION);
    crate_prop(w, nrm, "inputs:sourceColorSpace", "token", 0, usdcw_token_rep(w, "raw"), NO_CONNECTION);
    crate_prop(w, nrm, "inputs:st", "float2", 0, 0, result);
    crate_attr(w, nrm_rgb, "float3", 0, 0, NO_CONNECTION);
    crate_prim(w, nrm, "Shader");

    crate_prop(w, reader, "info:id", "token", 1, usdcw_token_rep(w, "UsdPrimvarReader_float2"), NO_CONNECTION);
    crate_prop(w, reader, "inputs:varname", "token", 0, 0, frame_st);
    crate_attr(w, result, "float2", 0, 0, NO_CONNECTION);
    crate_prim(w, reader, "Shader");

    static const float grey[3] = {0.8f, 0.8f, 0.8f};
    crate_prop(w, std, "info:id", "token", 1, usdcw_token_rep(w, "ND_standard_surface_surfaceshader"), NO_CONNECTION);
    crate_prop(w, std, "inputs:base_color", "color3f", 0, usdcw_vec_rep(w, USDCW_VEC3F, grey, 3), NO_CONNECTION);
    crate_attr(w, std_out, "token", 0, 0, NO_CONNECTION);
    crate_prim(w, std, "Shader");

    crate_prop(w, plain, "outputs:surface", "token", 0, 0, plain_out);
    crate_prim(w, plain, "Material");
    crate_prop(w, plain_surf, "info:id", "token", 1, usdcw_token_rep(w, "UsdPreviewSurface"), NO_CONNECTION);
    crate_prop(w, plain_surf, "inputs:opacity", "float", 0, usdcw_float_rep(0.5f), NO_CONNECTION);
    crate_attr(w, plain_out, "token", 0, 0, NO_CONNECTION);
    crate_prim(w, plain_surf, "Shader");

    static const int32_t counts[] = {4, 4}, indices[] = {0, 1, 2, 3, 1, 4, 5, 2}, subset[] = {1};
    static const float points[] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 2, 0, 0, 2, 1, 0};
    static const float st[] = {0, 0, 1, 0, 1, 1, 0, 1, 1, 0, 1, 1};
    crate_prop(w, board, "faceVertexCounts", "int[]", 0, usdcw_int_array(w, counts, 2, 1), NO_CONNECTION);
    crate_prop(w, board, "faceVertexIndices", "int[]", 0, usdcw_int_array(w, indices, 8, 1), NO_CONNECTION);
    crate_prop(w, board, "points", "point3f[]", 0, usdcw_array(w, USDCW_VEC3F, points, 6, 12), NO_CONNECTION);
    crate_prop(w, board, "primvars:st", "texCoord2f[]", 0, usdcw_array(w, USDCW_VEC2F, st, 6, 8), NO_CONNECTION);
    usdcw_field(w, "interpolation", usdcw_token_rep(w, "vertex"));
    crate_prop(w, board, "doubleSided", "bool", 1, usdcw_rep(USDCW_BOOL, 0, 1, 0, 1), NO_CONNECTION);
    crate_prim(w, board, "Mesh");

    crate_prop(w, right, "elementType", "token", 1, usdcw_token_rep(w, "face"), NO_CONNECTION);
    crate_prop(w, right, "familyName", "token", 1, usdcw_token_rep(w, "materialBind"), NO_CONNECTION);
    crate_prop(w, right, "indices", "int[]", 0, usdcw_int_array(w, subset, 1, 1), NO_CONNECTION);
    crate_rel(w, right, "material:binding", plain);
    crate_prim(w, right, "GeomSubset");
    crate_binding_api(w);

    assert_int_equal(usdcw_finish(w, data, size), 0);
    *out = w;
}

/* What write_network_crate's stage imports to, from name (beside the test's two PNGs). */
static void expect_network(const char *name)
{
    rec r;
    import_ok(name, 0, &r);
    /* Face 0 (Wood, the mesh's binding inherited from /World) and face 1 (Right's Plain). */
    assert_int_equal(r.obj_count, 2);
    assert_int_equal(r.obj[0].indices, 6);
    assert_int_equal(r.obj[1].indices, 6);
    assert_int_equal(r.mat_count, 2);
    assert_int_not_equal(r.obj[0].material, 0);
    assert_int_not_equal(r.obj[1].material, 0);
    const pk_material *wood = &r.mat[r.obj[0].material - 1], *plain = &r.mat[r.obj[1].material - 1];
    assert_string_equal(wood->name, "Wood");
    assert_string_equal(plain->name, "Plain");
    /* Wood: Tex's scale is the base colour factor, its alpha the opacity (masked at 0.5). */
    expect_color(wood->base_color, 0.8, 0.8, 0.8);
    assert_float_equal(wood->base_color[3], 1.0f, 1e-6);
    assert_int_equal(wood->alpha_mode, PK_ALPHA_MASK);
    assert_float_equal(wood->alpha_cutoff, 0.5f, 1e-6);
    expect_color(wood->emissive, 0.1, 0.05, 0.0);
    assert_float_equal(wood->metallic, 0.25f, 1e-6);
    assert_float_equal(wood->roughness, 0.625f, 1e-6);
    assert_int_equal(wood->double_sided, 1);
    assert_float_equal(wood->slot[PK_SLOT_NORMAL].scale, 1.0f, 1e-6);
    assert_int_equal(wood->slot[PK_SLOT_METALLIC_ROUGHNESS].image, PK_NONE);
    assert_int_equal(wood->slot[PK_SLOT_OCCLUSION].image, PK_NONE);
    assert_int_equal(wood->slot[PK_SLOT_EMISSIVE].image, PK_NONE);
    assert_int_equal(wood->slot[PK_SLOT_BASE_COLOR].texcoord, 0);
    assert_int_equal(wood->slot[PK_SLOT_NORMAL].texcoord, 0);
    assert_int_equal(r.tex_count, 2);
    const got_texture *base = &r.tex[wood->slot[PK_SLOT_BASE_COLOR].image];
    const got_texture *n = &r.tex[wood->slot[PK_SLOT_NORMAL].image];
    assert_string_equal(base->name, "textures/wood_albedo.png");
    assert_string_equal(n->name, "./textures/wood_n.png");
    assert_int_equal(base->kind, pk_material_slot_kind(PK_SLOT_BASE_COLOR));
    assert_int_equal(n->kind, pk_material_slot_kind(PK_SLOT_NORMAL));
    assert_int_equal(base->wrap_s, PK_WRAP_REPEAT);
    assert_int_equal(base->wrap_t, PK_WRAP_MIRRORED_REPEAT);
    assert_int_equal(n->wrap_s, PK_WRAP_CLAMP_TO_EDGE); /* unauthored: useMetadata */
    assert_int_equal(n->wrap_t, PK_WRAP_CLAMP_TO_EDGE);
    for (uint32_t y = 0; y < 2; y++) {
        for (uint32_t x = 0; x < 3; x++) {
            for (int c = 0; c < 4; c++) {
                assert_int_equal(base->img.texels[(y * 3 + x) * 4 + (uint32_t)c], texel(6, x, y, c));
                assert_int_equal(n->img.texels[(y * 3 + x) * 4 + (uint32_t)c], texel(7, x, y, c));
            }
        }
    }
    /* Plain: UsdPreviewSurface's fallbacks but its opacity, no texture. */
    expect_color(plain->base_color, 0.18, 0.18, 0.18);
    assert_float_equal(plain->base_color[3], 0.5f, 1e-6);
    assert_int_equal(plain->alpha_mode, PK_ALPHA_BLEND);
    assert_float_equal(plain->metallic, 0.0f, 0);
    assert_float_equal(plain->roughness, 0.5f, 0);
    for (int s = 0; s < PK_SLOT_COUNT; s++) {
        assert_int_equal(plain->slot[s].image, PK_NONE);
    }
    /* The one thing not read: the preview-purpose binding. */
    char want[1024];
    snprintf(want, sizeof want,
             "%s: </World>: material:binding:preview is not read (only the direct, all-purpose material:binding is); "
             "ignored\n",
             path_of(name));
    assert_string_equal(warned.all, want);
    rec_free(&r);
}

static void test_crate_shader_network_is_read(void **state)
{
    (void)state;
    put_png("textures/wood_albedo.png", 6);
    put_png("textures/wood_n.png", 7);
    usdc_writer *w;
    const uint8_t *data;
    size_t size;
    write_network_crate("st", &w, &data, &size);
    put_bytes("network.usdc", data, size);
    usdcw_free(w);
    expect_network("network.usdc");
    /* The varname, read through the Material's interface input, is checked against the mesh's UV primvar
     * (when the stage is composed). */
    write_network_crate("uv", &w, &data, &size);
    put_bytes("network-uv.usdc", data, size);
    usdcw_free(w);
    expect_error("network-uv.usdc", 0,
                 "@@/network-uv.usdc: </World/Board>: texture </World/Looks/Wood/Tex> reads primvar 'uv', but the "
                 "mesh's texture coordinates are primvars:st");
}

static void test_crate_seed_is_the_writers_network(void **state)
{
    (void)state;
    size_t n = 0;
    uint8_t *seed = read_all(SLUICE_SOURCE_DIR "/" NETWORK_SEED, &n);
    usdc_writer *w;
    const uint8_t *data;
    size_t size;
    write_network_crate("st", &w, &data, &size);
    if (n != size || memcmp(seed, data, size) != 0) {
        fail_msg("%s is not the writer's network: regenerate it (test_usd_materials --write-crate-seed)", NETWORK_SEED);
    }
    usdcw_free(w);
    /* The checked-in bytes themselves, beside the textures. */
    put_png("textures/wood_albedo.png", 6);
    put_png("textures/wood_n.png", 7);
    put_bytes("seed.usdc", seed, n);
    free(seed);
    expect_network("seed.usdc");
}

/* --write-crate-seed FILE: write_network_crate's output for the fuzz corpus. */
static int write_crate_seed(const char *file)
{
    usdc_writer *w;
    const uint8_t *data;
    size_t size;
    write_network_crate("st", &w, &data, &size);
    FILE *f = fopen(file, "wb");
    int ok = f != NULL && fwrite(data, 1, size, f) == size;
    ok = (f != NULL && fclose(f) == 0) && ok;
    usdcw_free(w);
    if (!ok) {
        fprintf(stderr, "cannot write %s\n", file);
    }
    return ok ? 0 : 1;
}

/* ---- samples ------------------------------------------------------------------------------------- */

static const char *samples; /* ../shared/usd (argv[2]) */

/* The three numbers after `key = (` in text, from *at on. */
static int numbers_after(const char *from, const char *end, const char *key, double v[3])
{
    const char *p = strstr(from, key);
    if (p == NULL || p > end) {
        return 0;
    }
    return sscanf(p + strlen(key), " = (%lf, %lf, %lf", &v[0], &v[1], &v[2]) == 3;
}

static void test_sample_texture_coordinate_test(void **state)
{
    (void)state;
    char path[1024];
    snprintf(path, sizeof path, "%s/pairs/TextureCoordinateTest/TextureCoordinateTest.usda", samples);
    size_t n = 0;
    uint8_t *bytes = read_all(path, &n);
    char *text = realloc(bytes, n + 1);
    assert_non_null(text);
    text[n] = '\0';
    /* Its PNG is not copied with it: under skip_unsupported every
     * material packs with its factors and an empty slot. */
    rec r;
    import_path(path, 1, NULL, &r);
    assert_int_equal(r.obj_count, 5);
    assert_int_equal(r.mat_count, 5);
    for (uint32_t i = 0; i < r.mat_count; i++) {
        const pk_material *m = &r.mat[i];
        char head[128];
        snprintf(head, sizeof head, "def Material \"%s\"", m->name);
        const char *at = strstr(text, head);
        assert_non_null(at);
        const char *end = strstr(at + 1, "def Material");
        end = end != NULL ? end : text + n;
        double v[3];
        if (numbers_after(at, end, "float4 inputs:scale", v)) {
            expect_color(m->base_color, v[0], v[1], v[2]);
            assert_non_null(strstr(at, "asset inputs:file = @TextureCoordinateTemplate.png@"));
        } else {
            assert_true(numbers_after(at, end, "float3 inputs:diffuseColor", v));
            expect_color(m->base_color, v[0], v[1], v[2]);
        }
        assert_float_equal(m->roughness, 1.0f, 0);
        assert_float_equal(m->metallic, 0.0f, 0);
        assert_int_equal(m->double_sided, 1);
        assert_int_equal(m->slot[PK_SLOT_BASE_COLOR].image, PK_NONE);
    }
    /* The texture file, resolved next to the layer, is an input. */
    usd_stage_options o = {1, 0, NULL, NULL, NULL, 0};
    usd_stage *s = NULL;
    pk_diag d = {{0}};
    assert_int_equal(usd_stage_open(path, &o, &s, &d), 0);
    const char *file = usd_stage_texture_file(s, 0),
               *want = "/pairs/TextureCoordinateTest/TextureCoordinateTemplate.png";
    assert_non_null(file);
    assert_true(strlen(file) > strlen(want));
    assert_string_equal(file + strlen(file) - strlen(want), want);
    char a[PATH_MAX], b[PATH_MAX], prefix[PATH_MAX];
    snprintf(prefix, sizeof prefix, "%.*s", (int)(strlen(file) - strlen(want)), file);
    assert_non_null(realpath(prefix, a));
    assert_non_null(realpath(samples, b));
    assert_string_equal(a, b);
    assert_null(usd_stage_texture_file(s, 1));
    usd_stage_close(s);
    free(text);
    rec_free(&r);
}

static void test_sample_teapot_binding_over_references(void **state)
{
    (void)state;
    char path[1024];
    snprintf(path, sizeof path, "%s/usdwg/intent-vfx/assets/teapot/teapot.usd", samples);
    rec r;
    import_path(path, 0, NULL, &r);
    /* mtl.usd binds </teapot/mtl/default_material> to the Body mesh that
     * geo.usd references from geo/UtahTeapot.usd; its UsdPreviewSurface
     * (the MaterialX shader beside it is not read). */
    assert_int_equal(r.obj_count, 1);
    assert_int_equal(r.mat_count, 1);
    assert_int_equal(r.obj[0].material, 1);
    assert_string_equal(r.mat[0].name, "default_material");
    expect_color(r.mat[0].base_color, 0.107700236, 0.90119886, 0.038153667);
    assert_float_equal(r.mat[0].roughness, 0.2f, 1e-6);
    rec_free(&r);
}

static int setup_dir(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/sluice-usd-mat-XXXXXX");
    if (mkdtemp(dir) == NULL) {
        return -1;
    }
    /* The asset root is the current directory when the stage lies in it:
     * run from the folder, so it is the root. */
    return chdir(dir);
}

static int teardown_dir(void **state)
{
    (void)state;
    return nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--write-crate-seed") == 0) {
        return write_crate_seed(argv[2]);
    }
    if (argc == 3 && strcmp(argv[1], "--samples") == 0) {
        samples = argv[2];
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_sample_texture_coordinate_test),
            cmocka_unit_test(test_sample_teapot_binding_over_references),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_constants_fallbacks_and_alpha),
        cmocka_unit_test(test_textures_factors_wraps_and_direct_images),
        cmocka_unit_test(test_uv_transform2d_is_the_slots_transform),
        cmocka_unit_test(test_channels_are_repacked_into_the_slots_layout),
        cmocka_unit_test(test_binding_inherited_and_mapped_over_a_reference),
        cmocka_unit_test(test_geom_subsets_are_parts_placed_everywhere),
        cmocka_unit_test(test_usdz_texture_is_read_from_the_package_and_listed),
        cmocka_unit_test(test_refusals_name_the_prim_and_input),
        cmocka_unit_test(test_unreadable_image_is_refused_at_import_or_left_empty),
        cmocka_unit_test(test_crate_shader_network_is_read),
        cmocka_unit_test(test_crate_seed_is_the_writers_network),
    };
    return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
