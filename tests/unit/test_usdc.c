/* SPDX-License-Identifier: MIT */
/* The crate (.usdc) and package (.usdz) readers (tools/pack/usdc.c,
 * usdz.c): files written by tests/support/usdc_writer.c cover every
 * structural section, every value encoding and every refusal; the real
 * samples (when SLUICE_USD_SAMPLES is given) are read and counted. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "usd_layer.h"
#include "usd_layer_internal.h"
#include "usdc_writer.h"

/* ---- helpers -------------------------------------------------------------- */

static const usd_prop *prop_at(const usd_layer *L, const char *prim, const char *name)
{
    const usd_prim *p = usd_layer_find_prim(L, prim);
    assert_non_null(p);
    const usd_prop *q = usd_prim_find_prop(p, name);
    if (q == NULL) {
        fail_msg("no property %s on %s", name, prim);
    }
    return q;
}

#ifndef SLUICE_USD_SAMPLES

static usd_layer *open_bytes(const uint8_t *data, size_t size, pk_diag *d)
{
    usd_layer *L = NULL;
    int rc = usd_layer_open_memory("t.usdc", data, size, NULL, &L, d);
    if (rc != 0) {
        assert_null(L);
    }
    return L;
}

static usd_layer *open_ok(const uint8_t *data, size_t size)
{
    pk_diag d;
    memset(&d, 0, sizeof d);
    usd_layer *L = open_bytes(data, size, &d);
    if (L == NULL) {
        fail_msg("open failed: %s", d.message);
    }
    return L;
}

/* Opening must fail and the message contain want. */
static void expect_fail(const uint8_t *data, size_t size, const char *want)
{
    pk_diag d;
    memset(&d, 0, sizeof d);
    usd_layer *L = open_bytes(data, size, &d);
    if (L != NULL) {
        usd_layer_close(L);
        fail_msg("opened, expected failure '%s'", want);
    }
    if (strstr(d.message, want) == NULL) {
        fail_msg("message '%s' lacks '%s'", d.message, want);
    }
}

static void expect_f64(const usd_prop *q, int which, const double *want, size_t n)
{
    double got[64];
    size_t k = 0;
    pk_diag d;
    if (usd_prop_read_f64(q, which, got, 64, &k, &d) != 0) {
        fail_msg("read %s: %s", q->name, d.message);
    }
    assert_int_equal(k, n);
    for (size_t i = 0; i < n; i++) {
        if (got[i] != want[i]) {
            fail_msg("%s[%zu] = %.9g, want %.9g", q->name, i, got[i], want[i]);
        }
    }
}

static void expect_token(const usd_prop *q, size_t index, const char *want)
{
    char buf[256];
    pk_diag d;
    if (usd_prop_read_token(q, USD_WHICH_AUTO, index, buf, sizeof buf, &d) != 0) {
        fail_msg("read %s: %s", q->name, d.message);
    }
    assert_string_equal(buf, want);
}

static void expect_read_fail(const usd_prop *q, const char *want)
{
    double got[4096];
    pk_diag d;
    memset(&d, 0, sizeof d);
    assert_int_equal(usd_prop_read_f64(q, USD_WHICH_AUTO, got, 4096, NULL, &d), -1);
    if (strstr(d.message, want) == NULL) {
        fail_msg("message '%s' lacks '%s'", d.message, want);
    }
}

/* ---- a crate with every feature --------------------------------------------- */

enum { N_BIG = 40 };

typedef struct sample_file {
    usdc_writer *w;
    const uint8_t *data;
    size_t size;
    uint64_t counts_array; /* offset of the int array's count */
} sample_file;

/* Writes /World (Xform, kind component, references, payload, inherits,
 * apiSchemas, variant sets), its mesh with arrays in every encoding, a
 * relationship, time samples, and a variant holding a prim. */
static void write_sample(sample_file *f, uint8_t minor)
{
    usdc_writer *w = usdcw_create(0, minor, 0);
    f->w = w;
    uint32_t world = usdcw_child(w, USDCW_ROOT, "World", 0);
    uint32_t cls = usdcw_child(w, USDCW_ROOT, "_class", 0);
    uint32_t mesh = usdcw_child(w, world, "Mesh", 0);
    uint32_t other = usdcw_child(w, world, "Other", 0);
    uint32_t vset = usdcw_child(w, world, "{look=}", 0);
    uint32_t vred = usdcw_child(w, world, "{look=red}", 0);
    uint32_t vprim = usdcw_child(w, vred, "Inside", 0);
    uint32_t counts = usdcw_child(w, mesh, "faceVertexCounts", 1);
    uint32_t small = usdcw_child(w, mesh, "small", 1);
    uint32_t pts = usdcw_child(w, mesh, "points", 1);
    uint32_t fi = usdcw_child(w, mesh, "floatsInt", 1);
    uint32_t ft = usdcw_child(w, mesh, "floatsLut", 1);
    uint32_t order = usdcw_child(w, mesh, "xformOpOrder", 1);
    uint32_t xf = usdcw_child(w, mesh, "xformOp:transform", 1);
    uint32_t sc = usdcw_child(w, mesh, "scalars", 1);
    uint32_t anim = usdcw_child(w, mesh, "anim", 1);
    uint32_t blocked = usdcw_child(w, mesh, "blocked", 1);
    uint32_t rel = usdcw_child(w, mesh, "material:binding", 1);
    uint32_t st = usdcw_child(w, mesh, "primvars:st", 1);
    uint32_t vattr = usdcw_child(w, vprim, "size", 1);

    /* pseudo-root */
    usdcw_spec(w, USDCW_ROOT, USDCW_SPEC_PSEUDO_ROOT);
    usdcw_field(w, "defaultPrim", usdcw_token_rep(w, "World"));
    usdcw_field(w, "upAxis", usdcw_token_rep(w, "Z"));
    usdcw_field(w, "metersPerUnit", usdcw_double_rep(w, 0.01));
    const char *subs[] = {"./a.usda", "b.usdc"};
    usdcw_field(w, "subLayers", usdcw_string_vector(w, subs, 2));
    /* root children in reverse path order: the field's order wins */
    const char *rootkids[] = {"_class", "World"};
    usdcw_field(w, "primChildren", usdcw_token_vector(w, rootkids, 2));

    /* /World */
    usdcw_spec(w, world, USDCW_SPEC_PRIM);
    usdcw_field(w, "specifier", usdcw_rep(USDCW_SPECIFIER, 0, 1, 0, 0));
    usdcw_field(w, "typeName", usdcw_token_rep(w, "Xform"));
    usdcw_field(w, "kind", usdcw_token_rep(w, "component"));
    usdcw_field(w, "active", usdcw_rep(USDCW_BOOL, 0, 1, 0, 1));
    usdcw_field(w, "instanceable", usdcw_rep(USDCW_BOOL, 0, 1, 0, 0));
    usdcw_ref refs[] = {{"./asset.usd", other, 2.0, 0.5}, {"", mesh, 0, 1}, {"pay.usdc", world, 0, 1}};
    usdcw_part prepend[] = {{USDCW_LIST_PREPENDED, 0, 1}, {USDCW_LIST_APPENDED, 1, 1}, {0, 0, 0}};
    usdcw_field(w, "references", usdcw_listop(w, USDCW_REFERENCE_LISTOP, 0, prepend, NULL, NULL, refs));
    usdcw_part pay[] = {{USDCW_LIST_EXPLICIT, 2, 1}, {0, 0, 0}};
    usdcw_field(w, "payload", usdcw_listop(w, USDCW_PAYLOAD_LISTOP, 1, pay, NULL, NULL, refs));
    uint32_t inh[] = {cls};
    usdcw_part one[] = {{USDCW_LIST_PREPENDED, 0, 1}, {0, 0, 0}};
    usdcw_field(w, "inherits", usdcw_listop(w, USDCW_PATH_LISTOP, 0, one, inh, NULL, NULL));
    const char *api[] = {"MaterialBindingAPI", "Old"};
    usdcw_part apiparts[] = {{USDCW_LIST_PREPENDED, 0, 1}, {USDCW_LIST_DELETED, 1, 1}, {0, 0, 0}};
    usdcw_field(w, "apiSchemas", usdcw_listop(w, USDCW_TOKEN_LISTOP, 0, apiparts, NULL, api, NULL));
    const char *vsn[] = {"look"};
    usdcw_field(w, "variantSetNames", usdcw_listop(w, USDCW_STRING_LISTOP, 0, one, NULL, vsn, NULL));
    const char *sel[] = {"look", "red"};
    usdcw_field(w, "variantSelection", usdcw_selection_map(w, sel, 1));

    /* /_class */
    usdcw_spec(w, cls, USDCW_SPEC_PRIM);
    usdcw_field(w, "specifier", usdcw_rep(USDCW_SPECIFIER, 0, 1, 0, 2));

    /* /World/Other: an over */
    usdcw_spec(w, other, USDCW_SPEC_PRIM);
    usdcw_field(w, "specifier", usdcw_rep(USDCW_SPECIFIER, 0, 1, 0, 1));

    /* /World/Mesh */
    usdcw_spec(w, mesh, USDCW_SPEC_PRIM);
    usdcw_field(w, "specifier", usdcw_rep(USDCW_SPECIFIER, 0, 1, 0, 0));
    usdcw_field(w, "typeName", usdcw_token_rep(w, "Mesh"));

    int32_t big[N_BIG];
    for (int i = 0; i < N_BIG; i++) {
        big[i] = i % 5 == 0 ? 3 : 4;
    }
    big[7] = 100000;
    big[8] = -70000;
    usdcw_spec(w, counts, USDCW_SPEC_ATTRIBUTE);
    usdcw_field(w, "typeName", usdcw_token_rep(w, "int[]"));
    uint64_t crep = usdcw_int_array(w, big, N_BIG, 1);
    f->counts_array = crep & 0xffffffffffffull;
    usdcw_field(w, "default", crep);
    usdcw_field(w, "variability", usdcw_rep(USDCW_VARIABILITY, 0, 1, 0, 1));

    int32_t few[] = {7, -8, 9};
    usdcw_spec(w, small, USDCW_SPEC_ATTRIBUTE);
    usdcw_field(w, "typeName", usdcw_token_rep(w, "int[]"));
    usdcw_field(w, "default", usdcw_int_array(w, few, 3, 1));

    float p3[] = {0.5f, 1.5f, -2.25f, 3, 4, 5};
    usdcw_spec(w, pts, USDCW_SPEC_ATTRIBUTE);
    usdcw_field(w, "typeName", usdcw_token_rep(w, "point3f[]"));
    usdcw_field(w, "default", usdcw_array(w, USDCW_VEC3F, p3, 2, 12));

    float fints[20], flut[20];
    for (int i = 0; i < 20; i++) {
        fints[i] = (float)(i * 3 - 10);
        flut[i] = i % 2 ? 0.25f : -1.5f;
    }
    usdcw_spec(w, fi, USDCW_SPEC_ATTRIBUTE);
    usdcw_field(w, "typeName", usdcw_token_rep(w, "float[]"));
    usdcw_field(w, "default", usdcw_float_array(w, fints, 20, minor >= 6 ? 'i' : 0));
    usdcw_spec(w, ft, USDCW_SPEC_ATTRIBUTE);
    usdcw_field(w, "typeName", usdcw_token_rep(w, "float[]"));
    usdcw_field(w, "default", usdcw_float_array(w, flut, 20, minor >= 6 ? 't' : 0));

    const char *ops[] = {"xformOp:translate", "xformOp:transform"};
    usdcw_spec(w, order, USDCW_SPEC_ATTRIBUTE);
    usdcw_field(w, "typeName", usdcw_token_rep(w, "token[]"));
    usdcw_field(w, "default", usdcw_token_array(w, ops, 2));
    usdcw_field(w, "variability", usdcw_rep(USDCW_VARIABILITY, 0, 1, 0, 1));

    /* an inlined diagonal matrix: diag(2, 3, 4, 1) */
    usdcw_spec(w, xf, USDCW_SPEC_ATTRIBUTE);
    usdcw_field(w, "typeName", usdcw_token_rep(w, "matrix4d"));
    usdcw_field(w, "default", usdcw_rep(USDCW_MATRIX4D, 0, 1, 0, 0x01040302u));

    /* an inlined vector of small integers: (1, -2, 3) */
    usdcw_spec(w, sc, USDCW_SPEC_ATTRIBUTE);
    usdcw_field(w, "typeName", usdcw_token_rep(w, "float3"));
    usdcw_field(w, "default", usdcw_rep(USDCW_VEC3F, 0, 1, 0, 0x0003fe01u));
    usdcw_field(w, "custom", usdcw_rep(USDCW_BOOL, 0, 1, 0, 1));

    /* time samples: 3 floats, the middle one blocked */
    float fv;
    memcpy(&fv, &(float){2.5f}, 4);
    uint32_t fb;
    memcpy(&fb, &fv, 4);
    double times[] = {1, 2, 4};
    uint64_t reps[] = {usdcw_rep(USDCW_FLOAT, 0, 1, 0, fb), usdcw_rep(USDCW_VALUE_BLOCK, 0, 1, 0, 0),
                       usdcw_double_rep(w, 8.0)};
    reps[2] = (reps[2] & ~(0xffull << 48)) | (uint64_t)USDCW_DOUBLE << 48;
    usdcw_spec(w, anim, USDCW_SPEC_ATTRIBUTE);
    usdcw_field(w, "typeName", usdcw_token_rep(w, "double"));
    usdcw_field(w, "timeSamples", usdcw_time_samples(w, times, reps, 3));

    usdcw_spec(w, blocked, USDCW_SPEC_ATTRIBUTE);
    usdcw_field(w, "typeName", usdcw_token_rep(w, "float"));
    usdcw_field(w, "default", usdcw_rep(USDCW_VALUE_BLOCK, 0, 1, 0, 0));

    uint32_t tgt[] = {cls};
    usdcw_part exp1[] = {{USDCW_LIST_EXPLICIT, 0, 1}, {0, 0, 0}};
    usdcw_spec(w, rel, USDCW_SPEC_RELATIONSHIP);
    usdcw_field(w, "targetPaths", usdcw_listop(w, USDCW_PATH_LISTOP, 1, exp1, tgt, NULL, NULL));

    float uv[] = {0, 1, 1, 0};
    usdcw_spec(w, st, USDCW_SPEC_ATTRIBUTE);
    usdcw_field(w, "typeName", usdcw_token_rep(w, "texCoord2f[]"));
    usdcw_field(w, "default", usdcw_array(w, USDCW_VEC2F, uv, 2, 8));
    usdcw_field(w, "interpolation", usdcw_token_rep(w, "faceVarying"));
    usdcw_field(w, "elementSize", usdcw_rep(USDCW_INT, 0, 1, 0, 1));

    /* the variant set and its variant, holding a prim with a property */
    usdcw_spec(w, vset, USDCW_SPEC_VARIANT_SET);
    const char *vkids[] = {"red"};
    usdcw_field(w, "variantChildren", usdcw_token_vector(w, vkids, 1));
    usdcw_spec(w, vred, USDCW_SPEC_VARIANT);
    usdcw_spec(w, vprim, USDCW_SPEC_PRIM);
    usdcw_field(w, "specifier", usdcw_rep(USDCW_SPECIFIER, 0, 1, 0, 0));
    usdcw_field(w, "typeName", usdcw_token_rep(w, "Cube"));
    usdcw_spec(w, vattr, USDCW_SPEC_ATTRIBUTE);
    usdcw_field(w, "typeName", usdcw_token_rep(w, "double"));
    usdcw_field(w, "default", usdcw_rep(USDCW_DOUBLE, 0, 1, 0, 0x40400000u)); /* 3.0f inlined */

    assert_int_equal(usdcw_finish(w, &f->data, &f->size), 0);
}

/* ---- structure -------------------------------------------------------------- */

static void test_layer_metadata_and_prim_order(void **state)
{
    (void)state;
    sample_file f;
    write_sample(&f, 8);
    usd_layer *L = open_ok(f.data, f.size);
    const usd_layer_info *in = usd_layer_get_info(L);
    assert_int_equal(in->format, USD_FORMAT_USDC);
    assert_string_equal(in->default_prim, "World");
    assert_string_equal(in->up_axis, "Z");
    assert_true(in->meters_per_unit == 0.01);
    assert_int_equal(in->sublayer_count, 2);
    assert_string_equal(in->sublayers[0], "./a.usda");
    assert_string_equal(in->sublayers[1], "b.usdc");
    const usd_prim *root = usd_layer_get_root(L);
    assert_int_equal(root->child_count, 2);
    assert_string_equal(root->children[0]->name, "_class"); /* primChildren order */
    assert_string_equal(root->children[1]->name, "World");
    assert_int_equal(root->children[0]->specifier, USD_SPECIFIER_CLASS);
    const usd_prim *world = usd_layer_find_prim(L, "/World");
    assert_non_null(world);
    assert_string_equal(world->type_name, "Xform");
    assert_string_equal(world->kind, "component");
    assert_int_equal(world->active, 1);
    assert_int_equal(world->instanceable, 0);
    assert_int_equal(world->hidden, -1);
    const usd_prim *other = usd_layer_find_prim(L, "/World/Other");
    assert_non_null(other);
    assert_int_equal(other->specifier, USD_SPECIFIER_OVER);
    assert_string_equal(usd_layer_find_prim(L, "/World/Mesh")->type_name, "Mesh");
    usd_layer_close(L);
    usdcw_free(f.w);
}

static void test_list_ops_keep_their_parts(void **state)
{
    (void)state;
    sample_file f;
    write_sample(&f, 8);
    usd_layer *L = open_ok(f.data, f.size);
    const usd_prim *world = usd_layer_find_prim(L, "/World");
    const usd_listop *refs = &world->listops[USD_FIELD_REFERENCES];
    assert_int_equal(refs->explicit_set, 0);
    assert_int_equal(refs->count[USD_LISTOP_PREPEND], 1);
    assert_string_equal(refs->items[USD_LISTOP_PREPEND][0].asset, "./asset.usd");
    assert_string_equal(refs->items[USD_LISTOP_PREPEND][0].path, "/World/Other");
    assert_true(refs->items[USD_LISTOP_PREPEND][0].offset == 2.0);
    assert_true(refs->items[USD_LISTOP_PREPEND][0].scale == 0.5);
    assert_int_equal(refs->count[USD_LISTOP_APPEND], 1);
    assert_string_equal(refs->items[USD_LISTOP_APPEND][0].asset, ""); /* internal */
    assert_string_equal(refs->items[USD_LISTOP_APPEND][0].path, "/World/Mesh");
    const usd_listop *pay = &world->listops[USD_FIELD_PAYLOAD];
    assert_int_equal(pay->explicit_set, 1);
    assert_int_equal(pay->count[USD_LISTOP_EXPLICIT], 1);
    assert_string_equal(pay->items[USD_LISTOP_EXPLICIT][0].asset, "pay.usdc");
    const usd_listop *inh = &world->listops[USD_FIELD_INHERITS];
    assert_int_equal(inh->count[USD_LISTOP_PREPEND], 1);
    assert_string_equal(inh->items[USD_LISTOP_PREPEND][0].path, "/_class");
    const usd_listop *api = &world->listops[USD_FIELD_API_SCHEMAS];
    assert_string_equal(api->items[USD_LISTOP_PREPEND][0].path, "MaterialBindingAPI");
    assert_string_equal(api->items[USD_LISTOP_DELETE][0].path, "Old");
    const usd_listop *vsn = &world->listops[USD_FIELD_VARIANT_SET_NAMES];
    assert_string_equal(vsn->items[USD_LISTOP_PREPEND][0].path, "look");
    usd_layer_close(L);
    usdcw_free(f.w);
}

static void test_variant_sets_selection_and_variant_prims(void **state)
{
    (void)state;
    sample_file f;
    write_sample(&f, 8);
    usd_layer *L = open_ok(f.data, f.size);
    const usd_prim *world = usd_layer_find_prim(L, "/World");
    assert_string_equal(usd_prim_get_selection(world, "look"), "red");
    const usd_variant_set *vs = usd_prim_find_variant_set(world, "look");
    assert_non_null(vs);
    assert_int_equal(vs->variant_count, 1);
    const usd_prim *red = usd_variant_set_find(vs, "red");
    assert_non_null(red);
    assert_int_equal(red->is_variant, 1);
    const usd_prim *inside = usd_layer_find_prim(L, "/World{look=red}Inside");
    assert_non_null(inside);
    assert_string_equal(inside->type_name, "Cube");
    double three = 3.0;
    expect_f64(usd_prim_find_prop(inside, "size"), USD_WHICH_AUTO, &three, 1);
    usd_layer_close(L);
    usdcw_free(f.w);
}

static void test_properties_metadata_and_targets(void **state)
{
    (void)state;
    sample_file f;
    write_sample(&f, 8);
    usd_layer *L = open_ok(f.data, f.size);
    const usd_prim *mesh = usd_layer_find_prim(L, "/World/Mesh");
    assert_int_equal(mesh->prop_count, 12);
    const usd_prop *c = prop_at(L, "/World/Mesh", "faceVertexCounts");
    assert_string_equal(c->type_name, "int[]");
    assert_int_equal(c->is_array, 1);
    assert_int_equal(c->uniform, 1);
    const usd_prop *st = prop_at(L, "/World/Mesh", "primvars:st");
    assert_string_equal(st->interpolation, "faceVarying");
    assert_int_equal(st->element_size, 1);
    assert_int_equal(prop_at(L, "/World/Mesh", "scalars")->custom, 1);
    const usd_prop *rel = prop_at(L, "/World/Mesh", "material:binding");
    assert_int_equal(rel->kind, USD_PROP_RELATIONSHIP);
    assert_int_equal(rel->target_count, 1);
    assert_string_equal(rel->targets[0], "/_class");
    usd_layer_close(L);
    usdcw_free(f.w);
}

/* ---- values ------------------------------------------------------------------ */

static void test_int_arrays_compressed_and_not(void **state)
{
    (void)state;
    sample_file f;
    write_sample(&f, 8);
    usd_layer *L = open_ok(f.data, f.size);
    const usd_prop *c = prop_at(L, "/World/Mesh", "faceVertexCounts");
    uint64_t n;
    uint32_t comps;
    pk_diag d;
    assert_int_equal(usd_prop_value_count(c, USD_WHICH_AUTO, &n, &comps, &d), 0);
    assert_int_equal(n, N_BIG);
    assert_int_equal(comps, 1);
    int32_t got[N_BIG];
    size_t k;
    assert_int_equal(usd_prop_read_i32(c, USD_WHICH_AUTO, got, N_BIG, &k, &d), 0);
    assert_int_equal(k, N_BIG);
    for (int i = 0; i < N_BIG; i++) {
        int32_t want = i == 7 ? 100000 : i == 8 ? -70000 : (i % 5 == 0 ? 3 : 4);
        assert_int_equal(got[i], want);
    }
    /* a caller's buffer too small: refused, nothing promised */
    assert_int_equal(usd_prop_read_i32(c, USD_WHICH_AUTO, got, N_BIG - 1, &k, &d), -1);
    double few[] = {7, -8, 9};
    expect_f64(prop_at(L, "/World/Mesh", "small"), USD_WHICH_AUTO, few, 3);
    usd_layer_close(L);
    usdcw_free(f.w);
}

static void test_float_arrays_in_every_encoding(void **state)
{
    (void)state;
    sample_file f;
    write_sample(&f, 8);
    usd_layer *L = open_ok(f.data, f.size);
    double p3[] = {0.5, 1.5, -2.25, 3, 4, 5};
    expect_f64(prop_at(L, "/World/Mesh", "points"), USD_WHICH_AUTO, p3, 6);
    double fi[20], ft[20];
    for (int i = 0; i < 20; i++) {
        fi[i] = i * 3 - 10;
        ft[i] = i % 2 ? 0.25 : -1.5;
    }
    expect_f64(prop_at(L, "/World/Mesh", "floatsInt"), USD_WHICH_AUTO, fi, 20);
    expect_f64(prop_at(L, "/World/Mesh", "floatsLut"), USD_WHICH_AUTO, ft, 20);
    float f32[6];
    size_t k;
    pk_diag d;
    assert_int_equal(usd_prop_read_f32(prop_at(L, "/World/Mesh", "points"), USD_WHICH_AUTO, f32, 6, &k, &d), 0);
    assert_true(f32[2] == -2.25f);
    /* a float array is not read as int */
    int32_t i32[20];
    assert_int_equal(usd_prop_read_i32(prop_at(L, "/World/Mesh", "floatsInt"), USD_WHICH_AUTO, i32, 20, &k, &d), -1);
    assert_non_null(strstr(d.message, "is not an integer type"));
    double uv[] = {0, 1, 1, 0};
    expect_f64(prop_at(L, "/World/Mesh", "primvars:st"), USD_WHICH_AUTO, uv, 4);
    usd_layer_close(L);
    usdcw_free(f.w);
}

static void test_inlined_scalars_tokens_and_matrices(void **state)
{
    (void)state;
    sample_file f;
    write_sample(&f, 8);
    usd_layer *L = open_ok(f.data, f.size);
    double m[16] = {2, 0, 0, 0, 0, 3, 0, 0, 0, 0, 4, 0, 0, 0, 0, 1};
    expect_f64(prop_at(L, "/World/Mesh", "xformOp:transform"), USD_WHICH_AUTO, m, 16);
    double v3[] = {1, -2, 3};
    expect_f64(prop_at(L, "/World/Mesh", "scalars"), USD_WHICH_AUTO, v3, 3);
    const usd_prop *order = prop_at(L, "/World/Mesh", "xformOpOrder");
    expect_token(order, 0, "xformOp:translate");
    expect_token(order, 1, "xformOp:transform");
    char buf[8];
    pk_diag d;
    assert_int_equal(usd_prop_read_token(order, USD_WHICH_AUTO, 2, buf, sizeof buf, &d), -1);
    assert_non_null(strstr(d.message, "index 2"));
    assert_int_equal(usd_prop_read_token(order, USD_WHICH_AUTO, 0, buf, sizeof buf, &d), -1);
    assert_non_null(strstr(d.message, "does not fit"));
    usd_layer_close(L);
    usdcw_free(f.w);
}

static void test_time_samples_and_blocked_values(void **state)
{
    (void)state;
    sample_file f;
    write_sample(&f, 8);
    usd_layer *L = open_ok(f.data, f.size);
    const usd_prop *a = prop_at(L, "/World/Mesh", "anim");
    assert_int_equal(a->has_default, 0);
    assert_int_equal(a->sample_count, 3);
    assert_true(a->samples[0].time == 1 && a->samples[1].time == 2 && a->samples[2].time == 4);
    double v0 = 2.5, v2 = 8.0;
    expect_f64(a, USD_WHICH_AUTO, &v0, 1); /* no default: the earliest sample */
    expect_f64(a, 0, &v0, 1);
    expect_f64(a, 2, &v2, 1);
    assert_int_equal(usd_prop_has_value(a, 1), 0); /* blocked */
    const usd_prop *b = prop_at(L, "/World/Mesh", "blocked");
    assert_int_equal(b->has_default, 1);
    assert_int_equal(usd_prop_has_value(b, USD_WHICH_AUTO), 0);
    usd_layer_close(L);
    usdcw_free(f.w);
}

static void test_quaternions_halves_and_wide_integers(void **state)
{
    (void)state;
    usdc_writer *w = usdcw_create(0, 8, 0);
    uint32_t a = usdcw_child(w, USDCW_ROOT, "A", 0);
    uint32_t q = usdcw_child(w, a, "xformOp:orient", 1);
    uint32_t h = usdcw_child(w, a, "h", 1);
    uint32_t i64 = usdcw_child(w, a, "big", 1);
    uint32_t qh = usdcw_child(w, a, "qh", 1);
    uint32_t tk = usdcw_child(w, a, "tok", 1);
    usdcw_spec(w, USDCW_ROOT, USDCW_SPEC_PSEUDO_ROOT);
    usdcw_spec(w, a, USDCW_SPEC_PRIM);
    usdcw_field(w, "specifier", usdcw_rep(USDCW_SPECIFIER, 0, 1, 0, 0));
    /* a quatf as the crate stores it: imaginary i, j, k, then the real part;
     * read back real first */
    float qv[4] = {0.5f, -0.5f, 0.25f, 0.75f};
    usdcw_spec(w, q, USDCW_SPEC_ATTRIBUTE);
    usdcw_field(w, "typeName", usdcw_token_rep(w, "quatf"));
    usdcw_field(w, "default", usdcw_rep(USDCW_QUATF, 0, 0, 0, usdcw_bytes(w, qv, 16)));
    usdcw_spec(w, h, USDCW_SPEC_ATTRIBUTE);
    usdcw_field(w, "typeName", usdcw_token_rep(w, "half"));
    usdcw_field(w, "default", usdcw_rep(USDCW_HALF, 0, 1, 0, 0xc100u)); /* -2.5 */
    usdcw_spec(w, i64, USDCW_SPEC_ATTRIBUTE);
    usdcw_field(w, "typeName", usdcw_token_rep(w, "int64"));
    usdcw_field(w, "default", usdcw_rep(USDCW_INT64, 0, 1, 0, 0xfffffff6u)); /* -10, inlined as int32 */
    uint16_t qhv[8] = {0x3c00, 0, 0, 0x3800, 0, 0xbc00, 0, 0};               /* (1, 0, 0, 0.5), (0, -1, 0, 0) */
    usdcw_spec(w, qh, USDCW_SPEC_ATTRIBUTE);
    usdcw_field(w, "typeName", usdcw_token_rep(w, "quath[]"));
    usdcw_field(w, "default", usdcw_array(w, USDCW_QUATH, qhv, 2, 8));
    usdcw_spec(w, tk, USDCW_SPEC_ATTRIBUTE);
    usdcw_field(w, "typeName", usdcw_token_rep(w, "token"));
    usdcw_field(w, "default", usdcw_token_rep(w, "hello"));
    const uint8_t *data;
    size_t size;
    usdcw_finish(w, &data, &size);
    usd_layer *L = open_ok(data, size);
    double qw[] = {0.75, 0.5, -0.5, 0.25}; /* real first, as text writes it */
    expect_f64(prop_at(L, "/A", "xformOp:orient"), USD_WHICH_AUTO, qw, 4);
    double hw = -2.5;
    expect_f64(prop_at(L, "/A", "h"), USD_WHICH_AUTO, &hw, 1);
    int32_t iv;
    size_t k;
    pk_diag d;
    assert_int_equal(usd_prop_read_i32(prop_at(L, "/A", "big"), USD_WHICH_AUTO, &iv, 1, &k, &d), 0);
    assert_int_equal(iv, -10);
    double qhw[] = {0.5, 1, 0, 0, 0, 0, -1, 0};
    expect_f64(prop_at(L, "/A", "qh"), USD_WHICH_AUTO, qhw, 8);
    expect_token(prop_at(L, "/A", "tok"), 0, "hello");
    expect_read_fail(prop_at(L, "/A", "tok"), "is not numeric");
    usd_layer_close(L);
    usdcw_free(w);
}

/* ---- versions ---------------------------------------------------------------- */

static void test_versions_0_4_through_0_11_read(void **state)
{
    (void)state;
    static const uint8_t minors[] = {4, 5, 6, 7, 8, 9, 10, 11};
    for (size_t i = 0; i < sizeof minors; i++) {
        sample_file f;
        write_sample(&f, minors[i]);
        usd_layer *L = open_ok(f.data, f.size);
        double p3[] = {0.5, 1.5, -2.25, 3, 4, 5};
        expect_f64(prop_at(L, "/World/Mesh", "points"), USD_WHICH_AUTO, p3, 6);
        int32_t got[N_BIG];
        size_t k;
        pk_diag d;
        if (usd_prop_read_i32(prop_at(L, "/World/Mesh", "faceVertexCounts"), USD_WHICH_AUTO, got, N_BIG, &k, &d) != 0) {
            fail_msg("0.%u.0: %s", minors[i], d.message);
        }
        assert_int_equal(got[7], 100000);
        const usd_prim *world = usd_layer_find_prim(L, "/World");
        assert_string_equal(world->listops[USD_FIELD_PAYLOAD].items[USD_LISTOP_EXPLICIT][0].asset, "pay.usdc");
        usd_layer_close(L);
        usdcw_free(f.w);
    }
}

/* A 0.11.0 layer whose metadata holds layerRelocates (a count, then per
 * relocate a source and a target path index), with the relocates given
 * as COUNT and PAIRS (path ids); SIZE: bytes of the value written. */
static void write_relocates(usdc_writer *w, uint64_t count, const uint32_t *pairs, size_t size)
{
    uint8_t v[8 + 4 * 8];
    memcpy(v, &count, 8);
    memcpy(v + 8, pairs, size - 8);
    usdcw_spec(w, USDCW_ROOT, USDCW_SPEC_PSEUDO_ROOT);
    usdcw_field(w, "layerRelocates", usdcw_rep(USDCW_RELOCATES, 0, 0, 0, usdcw_bytes(w, v, size)));
}

static void test_layer_relocates_of_0_11(void **state)
{
    (void)state;
    usdc_writer *w = usdcw_create(0, 11, 0);
    uint32_t a = usdcw_child(w, USDCW_ROOT, "A", 0);
    uint32_t b = usdcw_child(w, a, "B", 0);
    uint32_t c = usdcw_child(w, USDCW_ROOT, "C", 0);
    const uint32_t pairs[] = {b, c, a, USDCW_ROOT};
    write_relocates(w, 2, pairs, 8 + sizeof pairs);
    const uint8_t *data;
    size_t size;
    usdcw_finish(w, &data, &size);
    usd_layer *L = open_ok(data, size);
    const usd_layer_info *info = usd_layer_get_info(L);
    assert_int_equal(info->relocate_count, 2);
    assert_string_equal(info->relocate_source, "/A/B");
    assert_string_equal(info->relocate_target, "/C");
    usd_layer_close(L);
    usdcw_free(w);

    /* A path index out of range, a count past the end, a wrong type. */
    w = usdcw_create(0, 11, 0);
    const uint32_t bad[] = {0, 99};
    write_relocates(w, 1, bad, 8 + sizeof bad);
    usdcw_finish(w, &data, &size);
    expect_fail(data, size, "path index 99 out of range");
    usdcw_free(w);
    w = usdcw_create(0, 11, 0);
    write_relocates(w, 1000000, bad, 8 + sizeof bad);
    usdcw_finish(w, &data, &size);
    expect_fail(data, size, "truncated: 1000000 relocates past the end of the file");
    usdcw_free(w);
    w = usdcw_create(0, 11, 0);
    usdcw_spec(w, USDCW_ROOT, USDCW_SPEC_PSEUDO_ROOT);
    usdcw_field(w, "layerRelocates", usdcw_token_rep(w, "x"));
    usdcw_finish(w, &data, &size);
    expect_fail(data, size, "expected relocates, found crate type 11 (spec </> / field layerRelocates)");
    usdcw_free(w);
}

static void test_single_payload_of_older_versions(void **state)
{
    (void)state;
    usdc_writer *w = usdcw_create(0, 7, 0);
    uint32_t a = usdcw_child(w, USDCW_ROOT, "A", 0);
    usdcw_spec(w, USDCW_ROOT, USDCW_SPEC_PSEUDO_ROOT);
    usdcw_spec(w, a, USDCW_SPEC_PRIM);
    usdcw_field(w, "specifier", usdcw_rep(USDCW_SPECIFIER, 0, 1, 0, 0));
    usdcw_ref r = {"p.usd", a, 0, 1};
    usdcw_field(w, "payload", usdcw_payload(w, &r));
    const uint8_t *data;
    size_t size;
    usdcw_finish(w, &data, &size);
    usd_layer *L = open_ok(data, size);
    const usd_prim *p = usd_layer_find_prim(L, "/A");
    assert_int_equal(p->listops[USD_FIELD_PAYLOAD].explicit_set, 1);
    assert_string_equal(p->listops[USD_FIELD_PAYLOAD].items[USD_LISTOP_EXPLICIT][0].asset, "p.usd");
    assert_string_equal(p->listops[USD_FIELD_PAYLOAD].items[USD_LISTOP_EXPLICIT][0].path, "/A");
    usd_layer_close(L);
    usdcw_free(w);
}

static void test_unreadable_versions_are_refused_by_name(void **state)
{
    (void)state;
    static const uint8_t v[][3] = {{0, 3, 0}, {0, 12, 0}, {1, 0, 0}};
    for (size_t i = 0; i < 3; i++) {
        usdc_writer *w = usdcw_create(v[i][0], v[i][1], v[i][2]);
        usdcw_spec(w, USDCW_ROOT, USDCW_SPEC_PSEUDO_ROOT);
        const uint8_t *data;
        size_t size;
        usdcw_finish(w, &data, &size);
        char want[96];
        snprintf(want, sizeof want, "t.usdc: offset 8: crate version %u.%u.%u is not readable", v[i][0], v[i][1],
                 v[i][2]);
        expect_fail(data, size, want);
        usdcw_free(w);
    }
}

/* ---- lying files --------------------------------------------------------------- */

static void test_every_truncation_fails_cleanly(void **state)
{
    (void)state;
    sample_file f;
    write_sample(&f, 8);
    uint8_t *copy = malloc(f.size);
    for (size_t n = 0; n < f.size; n++) {
        memcpy(copy, f.data, n);
        pk_diag d;
        memset(&d, 0, sizeof d);
        usd_layer *L = open_bytes(copy, n, &d);
        if (L != NULL) {
            fail_msg("a %zu-byte prefix of %zu opened", n, f.size);
        }
        if (strncmp(d.message, "t.usdc: ", 8) != 0 || (n >= 8 && strstr(d.message, "offset ") == NULL)) {
            fail_msg("prefix %zu: message '%s'", n, d.message);
        }
    }
    free(copy);
    usdcw_free(f.w);
}

static void test_bad_magic_and_tiny_files(void **state)
{
    (void)state;
    sample_file f;
    write_sample(&f, 8);
    uint8_t *copy = malloc(f.size);
    memcpy(copy, f.data, f.size);
    copy[3] = 'X';
    expect_fail(copy, f.size, "not a USD file");
    expect_fail(f.data, 40, "t.usdc: offset 0: truncated: 40 bytes, too small for the 88-byte bootstrap");
    free(copy);
    usdcw_free(f.w);
}

/* Patches the u64 at off of a copy and expects the open to fail with want. */
static void expect_patched_u64(const sample_file *f, uint64_t off, uint64_t v, const char *want)
{
    uint8_t *copy = malloc(f->size);
    memcpy(copy, f->data, f->size);
    for (int i = 0; i < 8; i++) {
        copy[off + (uint64_t)i] = (uint8_t)(v >> (8 * i));
    }
    expect_fail(copy, f->size, want);
    free(copy);
}

static uint64_t toc_entry(const sample_file *f, const char *name)
{
    uint64_t toc = 0;
    for (int i = 0; i < 8; i++) {
        toc |= (uint64_t)f->data[16 + i] << (8 * i);
    }
    for (uint64_t k = 0; k < 6; k++) {
        if (strcmp((const char *)f->data + toc + 8 + k * 32, name) == 0) {
            return toc + 8 + k * 32;
        }
    }
    fail_msg("no section %s", name);
    return 0;
}

static void test_lying_offsets_and_counts(void **state)
{
    (void)state;
    sample_file f;
    write_sample(&f, 8);
    uint64_t toc = 0;
    for (int i = 0; i < 8; i++) {
        toc |= (uint64_t)f.data[16 + i] << (8 * i);
    }
    expect_patched_u64(&f, 16, f.size + 100, "truncated: 8 bytes of the table of contents");
    expect_patched_u64(&f, toc, 1ull << 40, "sections, past the end of the file");
    expect_patched_u64(&f, toc_entry(&f, "PATHS") + 16, f.size - 4, "section PATHS [");
    expect_patched_u64(&f, toc_entry(&f, "SPECS") + 24, f.size, "past the end of the file");
    uint64_t start, size;
    usdcw_section(f.w, "TOKENS", &start, &size);
    expect_patched_u64(&f, start, 1ull << 50, "cannot come from");
    expect_patched_u64(&f, start + 16, size, "compressed size");
    usdcw_section(f.w, "STRINGS", &start, &size);
    expect_patched_u64(&f, start, 1ull << 60, "strings past the end of the file (section STRINGS)");
    usdcw_section(f.w, "FIELDS", &start, &size);
    expect_patched_u64(&f, start, 200000000u, "fields cannot fit in section FIELDS");
    expect_patched_u64(&f, start + 8, 1ull << 40, "compressed size");
    usdcw_section(f.w, "SPECS", &start, &size);
    expect_patched_u64(&f, start, 200000000u, "specs cannot fit in section SPECS");
    usdcw_section(f.w, "PATHS", &start, &size);
    expect_patched_u64(&f, start + 8, 200000000u, "encoded paths cannot fit in section PATHS");
    expect_patched_u64(&f, start + 8, 1ull << 45,
                       "35184372088832 encoded paths: more than this reader can index (section PATHS)");
    /* a missing section */
    uint8_t *copy = malloc(f.size);
    memcpy(copy, f.data, f.size);
    memcpy(copy + toc_entry(&f, "FIELDSETS"), "FIELDSETZ", 10);
    expect_fail(copy, f.size, "missing section FIELDSETS");
    /* corrupt LZ4 in the token blob */
    usdcw_section(f.w, "TOKENS", &start, &size);
    memcpy(copy, f.data, f.size);
    memset(copy + start + 25, 0xff, (size_t)size - 25);
    expect_fail(copy, f.size, "(section TOKENS)");
    free(copy);
    usdcw_free(f.w);
}

/* A crate of one prim /A whose sections are then replaced. */
static usdc_writer *one_prim(void)
{
    usdc_writer *w = usdcw_create(0, 8, 0);
    uint32_t a = usdcw_child(w, USDCW_ROOT, "A", 0);
    usdcw_child(w, a, "B", 0);
    usdcw_spec(w, USDCW_ROOT, USDCW_SPEC_PSEUDO_ROOT);
    usdcw_spec(w, a, USDCW_SPEC_PRIM);
    usdcw_field(w, "specifier", usdcw_rep(USDCW_SPECIFIER, 0, 1, 0, 0));
    return w;
}

static void expect_override(const char *section, const uint8_t *bytes, size_t n, const char *want)
{
    usdc_writer *w = one_prim();
    usdcw_override_section(w, section, bytes, n);
    const uint8_t *data;
    size_t size;
    usdcw_finish(w, &data, &size);
    expect_fail(data, size, want);
    usdcw_free(w);
}

/* PATHS: npaths, nenc, then the three compressed arrays. */
static size_t paths_section(uint8_t *out, uint64_t npaths, const uint32_t *idx, const int32_t *tok, const int32_t *jmp,
                            uint32_t n)
{
    size_t k = 0;
    for (int i = 0; i < 8; i++) {
        out[k++] = (uint8_t)(npaths >> (8 * i));
    }
    for (int i = 0; i < 8; i++) {
        out[k++] = (uint8_t)((uint64_t)n >> (8 * i));
    }
    k += usdcw_compress_ints(idx, n, out + k, 256);
    k += usdcw_compress_ints((const uint32_t *)(const void *)tok, n, out + k, 256);
    k += usdcw_compress_ints((const uint32_t *)(const void *)jmp, n, out + k, 256);
    return k;
}

static void test_path_trees_that_lie(void **state)
{
    (void)state;
    uint8_t buf[1024];
    /* tokens of one_prim: 0 "A", 1 "B", 2 "specifier" */
    uint32_t idx[] = {0, 1, 2};
    int32_t tok[] = {0, 0, 1};
    int32_t jmp_loop[] = {-1, 1, -2}; /* /A: a child at 2 and a sibling at 2 as well */
    size_t n = paths_section(buf, 3, idx, tok, (int32_t[]){-1, -1, -1}, 3);
    expect_override("PATHS", buf, n, "path entry 3 past the 3 encoded paths (section PATHS)");
    n = paths_section(buf, 3, idx, tok, jmp_loop, 3);
    expect_override("PATHS", buf, n, "path tree loops back to entry 2 (section PATHS)");
    n = paths_section(buf, 3, idx, tok, (int32_t[]){-1, 7, -2}, 3);
    expect_override("PATHS", buf, n, "sibling jump 7 past the 3 encoded paths (section PATHS)");
    n = paths_section(buf, 3, (uint32_t[]){0, 9, 2}, tok, (int32_t[]){-1, -1, -2}, 3);
    expect_override("PATHS", buf, n, "path entry 1: path index 9 out of range (3 paths) (section PATHS)");
    n = paths_section(buf, 3, (uint32_t[]){0, 1, 1}, tok, (int32_t[]){-1, -1, -2}, 3);
    expect_override("PATHS", buf, n, "path entry 2: path index 1 given twice (section PATHS)");
    n = paths_section(buf, 3, idx, (int32_t[]){0, 0, 99}, (int32_t[]){-1, -1, -2}, 3);
    expect_override("PATHS", buf, n, "path entry 2: element token 99 out of range");
    n = paths_section(buf, 3, idx, (int32_t[]){0, -0x7fffffff - 1, 1}, (int32_t[]){-1, -1, -2}, 3);
    expect_override("PATHS", buf, n, "element token 2147483648 out of range");
    n = paths_section(buf, 3, idx, (int32_t[]){0, -1, 1}, (int32_t[]){-1, -1, -2}, 3);
    expect_override("PATHS", buf, n, "path entry 1: a property path with children (section PATHS)");
    /* path 1 left out of the tree, but a spec names it */
    n = paths_section(buf, 3, (uint32_t[]){0, 2, 1}, tok, (int32_t[]){-1, -2, 0}, 2);
    expect_override("PATHS", buf, n, "spec 1: path index 1 out of range (3 paths) (section SPECS)");
    /* the encoded count lies */
    n = paths_section(buf, 3, idx, tok, (int32_t[]){-1, -1, -2}, 3);
    buf[8] = 200;
    expect_override("PATHS", buf, n, "200 encoded paths for 3 paths (section PATHS)");
}

static void test_bad_indices_in_specs_and_fields(void **state)
{
    (void)state;
    uint8_t buf[512];
    size_t k;
    /* SPECS: a field-set index past the field sets */
    k = 0;
    memset(buf, 0, 8);
    buf[0] = 2;
    k = 8;
    k += usdcw_compress_ints((uint32_t[]){0, 1}, 2, buf + k, 200);
    k += usdcw_compress_ints((uint32_t[]){0, 50}, 2, buf + k, 200);
    k += usdcw_compress_ints((uint32_t[]){7, 6}, 2, buf + k, 200);
    expect_override("SPECS", buf, k, "spec 1: field set index 50 out of range");
    k = 8;
    k += usdcw_compress_ints((uint32_t[]){0, 1}, 2, buf + k, 200);
    k += usdcw_compress_ints((uint32_t[]){0, 1}, 2, buf + k, 200);
    k += usdcw_compress_ints((uint32_t[]){7, 77}, 2, buf + k, 200);
    expect_override("SPECS", buf, k, "spec 1: unknown spec type 77 (section SPECS)");
    k = 8;
    k += usdcw_compress_ints((uint32_t[]){0, 0}, 2, buf + k, 200);
    k += usdcw_compress_ints((uint32_t[]){0, 1}, 2, buf + k, 200);
    k += usdcw_compress_ints((uint32_t[]){7, 6}, 2, buf + k, 200);
    expect_override("SPECS", buf, k, "a second spec for the same path");
    /* FIELDSETS: an index past the fields, and a set with no terminator */
    memset(buf, 0, 8);
    buf[0] = 3;
    k = 8 + usdcw_compress_ints((uint32_t[]){UINT32_MAX, 0, 12}, 3, buf + 8, 200);
    expect_override("FIELDSETS", buf, k, "field set entry 2: field index 12 out of range (1 fields)");
    buf[0] = 2;
    k = 8 + usdcw_compress_ints((uint32_t[]){UINT32_MAX, 0}, 2, buf + 8, 200);
    expect_override("FIELDSETS", buf, k, "spec 1: field set 1 has no terminator (section SPECS)");
    /* STRINGS: a token index out of range */
    memset(buf, 0, 12);
    buf[0] = 1;
    buf[8] = 200;
    expect_override("STRINGS", buf, 12, "string 0: token index 200 out of range");
    /* a field value's token out of range */
    usdc_writer *w = one_prim();
    uint32_t a = usdcw_child(w, USDCW_ROOT, "C", 0);
    usdcw_spec(w, a, USDCW_SPEC_PRIM);
    usdcw_field(w, "typeName", usdcw_rep(USDCW_TOKEN, 0, 1, 0, 999));
    const uint8_t *data;
    size_t size;
    usdcw_finish(w, &data, &size);
    expect_fail(data, size, "token index 999 out of range (spec </C> / field typeName)");
    usdcw_free(w);
    /* a field of the wrong type */
    w = one_prim();
    a = usdcw_child(w, USDCW_ROOT, "C", 0);
    usdcw_spec(w, a, USDCW_SPEC_PRIM);
    usdcw_field(w, "specifier", usdcw_rep(USDCW_SPECIFIER, 0, 1, 0, 7));
    usdcw_finish(w, &data, &size);
    expect_fail(data, size, "unknown specifier 7 (spec </C> / field specifier)");
    usdcw_free(w);
    w = one_prim();
    a = usdcw_child(w, USDCW_ROOT, "C", 0);
    usdcw_spec(w, a, USDCW_SPEC_PRIM);
    usdcw_field(w, "references", usdcw_rep(USDCW_PATH_LISTOP, 0, 0, 0, 8));
    usdcw_finish(w, &data, &size);
    expect_fail(data, size, "expected crate type 35, found 34 (spec </C> / field references)");
    usdcw_free(w);
}

/* Specs sharing one huge field set would cost specs x set reads: refused
 * once the reads pass their bound, instead of taking quadratic time. */
static void test_shared_field_sets_are_bounded(void **state)
{
    (void)state;
    enum { PRIMS = 2000, SET = 10000 };
    usdc_writer *w = usdcw_create(0, 8, 0);
    usdcw_spec(w, USDCW_ROOT, USDCW_SPEC_PSEUDO_ROOT);
    usdcw_field(w, "specifier", usdcw_rep(USDCW_SPECIFIER, 0, 1, 0, 0));
    for (int i = 0; i < PRIMS; i++) {
        char name[16];
        snprintf(name, sizeof name, "p%d", i);
        usdcw_child(w, USDCW_ROOT, name, 0);
    }
    uint32_t *v = malloc((SET + 1) * 4 > 3 * (PRIMS + 1) * 4 ? (SET + 1) * 4 : 3 * (PRIMS + 1) * 4);
    uint8_t *sec = malloc(64 + (SET + 1) * 6);
    for (int i = 0; i < SET; i++) {
        v[i] = 0;
    }
    v[SET] = UINT32_MAX;
    memset(sec, 0, 8);
    sec[0] = (uint8_t)((SET + 1) & 0xff);
    sec[1] = (uint8_t)((SET + 1) >> 8);
    size_t k = 8 + usdcw_compress_ints(v, SET + 1, sec + 8, (SET + 1) * 6);
    usdcw_override_section(w, "FIELDSETS", sec, k);
    /* specs: every path, all on field set 0 */
    uint8_t *specs = malloc(64 + 3 * (PRIMS + 1) * 6);
    memset(specs, 0, 8);
    specs[0] = (uint8_t)((PRIMS + 1) & 0xff);
    specs[1] = (uint8_t)((PRIMS + 1) >> 8);
    k = 8;
    for (int part = 0; part < 3; part++) {
        for (uint32_t i = 0; i <= PRIMS; i++) {
            v[i] = part == 0 ? i : part == 1 ? 0 : (i == 0 ? 7u : 6u);
        }
        k += usdcw_compress_ints(v, PRIMS + 1, specs + k, (PRIMS + 1) * 6);
    }
    usdcw_override_section(w, "SPECS", specs, k);
    const uint8_t *data;
    size_t size;
    usdcw_finish(w, &data, &size);
    expect_fail(data, size, "field sets shared beyond");
    free(v);
    free(sec);
    free(specs);
    usdcw_free(w);
}

static void test_lying_values_fail_on_read(void **state)
{
    (void)state;
    sample_file f;
    write_sample(&f, 8);
    uint8_t *copy = malloc(f.size);
    memcpy(copy, f.data, f.size);
    /* the compressed int array's count says more than its bytes hold */
    uint64_t huge = 1ull << 40;
    for (int i = 0; i < 8; i++) {
        copy[f.counts_array + (uint64_t)i] = (uint8_t)(huge >> (8 * i));
    }
    usd_layer *L = open_ok(copy, f.size);
    const usd_prop *c = prop_at(L, "/World/Mesh", "faceVertexCounts");
    uint64_t n;
    uint32_t comps;
    pk_diag d;
    assert_int_equal(usd_prop_value_count(c, USD_WHICH_AUTO, &n, &comps, &d), -1);
    assert_non_null(strstr(d.message, "t.usdc: property 'faceVertexCounts': offset "));
    assert_non_null(strstr(d.message, "(in prim </World/Mesh>)"));
    assert_non_null(strstr(d.message, "array count cannot come from the bytes left in the file"));
    usd_layer_close(L);
    /* ... or fewer than it holds: the decoder finds the mismatch */
    memcpy(copy, f.data, f.size);
    copy[f.counts_array] = 200;
    L = open_ok(copy, f.size);
    expect_read_fail(prop_at(L, "/World/Mesh", "faceVertexCounts"), "integer coding of an array");
    usd_layer_close(L);
    free(copy);
    usdcw_free(f.w);
}

static void test_uncompressed_array_past_the_end(void **state)
{
    (void)state;
    usdc_writer *w = one_prim();
    uint32_t a = usdcw_child(w, USDCW_ROOT, "C", 0);
    uint32_t p = usdcw_child(w, a, "pts", 1);
    usdcw_spec(w, a, USDCW_SPEC_PRIM);
    usdcw_field(w, "specifier", usdcw_rep(USDCW_SPECIFIER, 0, 1, 0, 0));
    uint64_t at = usdcw_bytes(w, (uint64_t[]){1000000}, 8); /* a count, no elements */
    usdcw_spec(w, p, USDCW_SPEC_ATTRIBUTE);
    usdcw_field(w, "typeName", usdcw_token_rep(w, "point3f[]"));
    usdcw_field(w, "default", usdcw_rep(USDCW_VEC3F, 1, 0, 0, at));
    const uint8_t *data;
    size_t size;
    usdcw_finish(w, &data, &size);
    usd_layer *L = open_ok(data, size);
    char want[128];
    snprintf(want, sizeof want, "offset %llu: truncated: 1000000 elements of 12 bytes past the end of the file",
             (unsigned long long)at + 8);
    expect_read_fail(prop_at(L, "/C", "pts"), want);
    usd_layer_close(L);
    usdcw_free(w);
}

/* The compressed bit on a type the format never compresses (a vector, a
 * bool) or on an old version's float array does not change how its bytes
 * are bounded: the elements are read as stored, and a count past the end
 * of the file fails instead of reading past it. */
static void test_compressed_bit_on_other_types_is_bounded(void **state)
{
    (void)state;
    static const struct {
        uint8_t minor;
        unsigned type;
        const char *type_name;
        unsigned esz;
    } cases[] = {{8, USDCW_VEC3F, "point3f[]", 12}, {8, USDCW_BOOL, "bool[]", 1}, {5, USDCW_FLOAT, "float[]", 4}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        usdc_writer *w = usdcw_create(0, cases[k].minor, 0);
        uint32_t a = usdcw_child(w, USDCW_ROOT, "A", 0);
        uint32_t p = usdcw_child(w, a, "v", 1);
        usdcw_spec(w, a, USDCW_SPEC_PRIM);
        usdcw_field(w, "specifier", usdcw_rep(USDCW_SPECIFIER, 0, 1, 0, 0));
        /* a count of 1000 elements, 4 bytes of them */
        uint8_t bytes[12] = {0xe8, 0x03, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1};
        uint64_t at = usdcw_bytes(w, bytes, 12);
        usdcw_spec(w, p, USDCW_SPEC_ATTRIBUTE);
        usdcw_field(w, "typeName", usdcw_token_rep(w, cases[k].type_name));
        usdcw_field(w, "default", usdcw_rep(cases[k].type, 1, 0, 1, at));
        const uint8_t *data;
        size_t size;
        usdcw_finish(w, &data, &size);
        usd_layer *L = open_ok(data, size);
        char want[96];
        snprintf(want, sizeof want, "truncated: 1000 elements of %u bytes past the end of the file", cases[k].esz);
        expect_read_fail(prop_at(L, "/A", "v"), want);
        usd_layer_close(L);
        usdcw_free(w);
    }
}

/* ---- usdz ------------------------------------------------------------------- */

typedef struct zip_entry {
    const char *name;
    const uint8_t *data;
    size_t size;
    unsigned method;
} zip_entry;

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

/* A zip of stored entries (the method field as given). */
static uint8_t *make_zip(const zip_entry *e, int n, size_t *size)
{
    size_t cap = 1024;
    for (int i = 0; i < n; i++) {
        cap += e[i].size + 2 * strlen(e[i].name) + 100;
    }
    uint8_t *z = calloc(1, cap);
    size_t pos = 0;
    uint32_t local[8];
    for (int i = 0; i < n; i++) {
        local[i] = (uint32_t)pos;
        uint8_t *h = z + pos;
        le32(h, 0x04034b50u);
        le16(h + 8, e[i].method);
        le32(h + 18, (uint32_t)e[i].size);
        le32(h + 22, (uint32_t)e[i].size);
        le16(h + 26, (uint32_t)strlen(e[i].name));
        memcpy(h + 30, e[i].name, strlen(e[i].name));
        pos += 30 + strlen(e[i].name);
        memcpy(z + pos, e[i].data, e[i].size);
        pos += e[i].size;
    }
    size_t cd = pos;
    for (int i = 0; i < n; i++) {
        uint8_t *h = z + pos;
        le32(h, 0x02014b50u);
        le16(h + 10, e[i].method);
        le32(h + 20, (uint32_t)e[i].size);
        le32(h + 24, (uint32_t)e[i].size);
        le16(h + 28, (uint32_t)strlen(e[i].name));
        le32(h + 42, local[i]);
        memcpy(h + 46, e[i].name, strlen(e[i].name));
        pos += 46 + strlen(e[i].name);
    }
    uint8_t *h = z + pos;
    le32(h, 0x06054b50u);
    le16(h + 8, (uint32_t)n);
    le16(h + 10, (uint32_t)n);
    le32(h + 12, (uint32_t)(pos - cd));
    le32(h + 16, (uint32_t)cd);
    pos += 22;
    *size = pos;
    return z;
}

/* The root layer is the package's first entry; the other entries (an
 * image, another layer) are reached by name. */
static void test_usdz_root_is_the_first_entry(void **state)
{
    (void)state;
    sample_file f;
    write_sample(&f, 8);
    static const uint8_t png[] = {0x89, 'P', 'N', 'G'};
    zip_entry e[] = {{"scene.usdc", f.data, f.size, 0},
                     {"tex/a.png", png, 4, 0},
                     {"sub/other.usdc", f.data, f.size, 0}};
    size_t zs;
    uint8_t *z = make_zip(e, 3, &zs);
    usd_layer *L = NULL;
    pk_diag d;
    assert_int_equal(usd_layer_open_memory("pkg.usdz", z, zs, NULL, &L, &d), 0);
    const usd_layer_info *in = usd_layer_get_info(L);
    assert_int_equal(in->format, USD_FORMAT_USDC);
    assert_string_equal(in->package, "pkg.usdz");
    assert_string_equal(in->default_prim, "World");
    double p3[] = {0.5, 1.5, -2.25, 3, 4, 5};
    expect_f64(prop_at(L, "/World/Mesh", "points"), USD_WHICH_AUTO, p3, 6);
    char out[256];
    usd_layer_resolve(L, "sub/other.usdc", out, sizeof out);
    assert_string_equal(out, "pkg.usdz[sub/other.usdc]");
    usd_layer_close(L);
    /* another entry by name */
    assert_int_equal(usd_usdz_open("pkg.usdz", z, zs, "sub/other.usdc", NULL, &L, &d), 0);
    usd_layer_resolve(L, "../scene.usdc", out, sizeof out);
    assert_string_equal(out, "pkg.usdz[scene.usdc]");
    usd_layer_close(L);
    assert_int_equal(usd_usdz_open("pkg.usdz", z, zs, "nope.usdc", NULL, &L, &d), -1);
    assert_non_null(strstr(d.message, "no such entry in the package (entry 'nope.usdc')"));
    free(z);
    usdcw_free(f.w);
}

static void test_usdz_with_a_text_root(void **state)
{
    (void)state;
    static const char text[] = "#usda 1.0\n(\n    defaultPrim = \"T\"\n)\n\ndef Xform \"T\"\n{\n}\n";
    zip_entry e[] = {{"root.usda", (const uint8_t *)text, sizeof text - 1, 0}};
    size_t zs;
    uint8_t *z = make_zip(e, 1, &zs);
    usd_layer *L = NULL;
    pk_diag d;
    if (usd_layer_open_memory("pkg.usdz", z, zs, NULL, &L, &d) != 0) {
        free(z);
        fail_msg("%s", d.message);
    }
    assert_int_equal(usd_layer_get_info(L)->format, USD_FORMAT_USDA);
    assert_non_null(usd_layer_find_prim(L, "/T"));
    usd_layer_close(L);
    free(z);
}

static void expect_zip_fail(const uint8_t *z, size_t zs, const char *want)
{
    usd_layer *L = NULL;
    pk_diag d;
    memset(&d, 0, sizeof d);
    assert_int_equal(usd_layer_open_memory("pkg.usdz", z, zs, NULL, &L, &d), -1);
    assert_null(L);
    if (strstr(d.message, want) == NULL) {
        fail_msg("message '%s' lacks '%s'", d.message, want);
    }
}

static void test_usdz_refusals(void **state)
{
    (void)state;
    sample_file f;
    write_sample(&f, 8);
    size_t zs;
    zip_entry deflated[] = {{"scene.usdc", f.data, f.size, 8}};
    uint8_t *z = make_zip(deflated, 1, &zs);
    expect_zip_fail(z, zs, "compressed entry (method 8; usdz entries must be stored) (entry 'scene.usdc')");
    free(z);
    static const uint8_t png[] = {1, 2, 3};
    /* The root layer is the first entry: a package whose first entry is
     * an image is refused, even with a layer after it (which the reader
     * once took as the root). */
    static const char layer[] = "#usda 1.0\n";
    zip_entry image_first[] = {{"a.png", png, 3, 0}, {"root.usda", (const uint8_t *)layer, sizeof layer - 1, 0}};
    z = make_zip(image_first, 2, &zs);
    expect_zip_fail(z, zs,
                    "the first entry is not a .usda, .usdc or .usd layer (a package's root layer is its first file) "
                    "(entry 'a.png')");
    free(z);
    /* an end record that counts no entry */
    z = make_zip(image_first, 2, &zs);
    le16(z + zs - 22 + 8, 0);
    le16(z + zs - 22 + 10, 0);
    expect_zip_fail(z, zs, "no entry in the package");
    free(z);
    zip_entry none[] = {{"a.png", png, 3, 0}};
    z = make_zip(none, 1, &zs);
    expect_zip_fail(z, zs, "the first entry is not a .usda, .usdc or .usd layer");
    /* zip64 markers in the end record */
    uint8_t *z64 = malloc(zs);
    memcpy(z64, z, zs);
    le32(z64 + zs - 22 + 16, 0xffffffffu);
    expect_zip_fail(z64, zs, "zip64 archives are not supported");
    /* a central directory past the end record */
    memcpy(z64, z, zs);
    le32(z64 + zs - 22 + 12, 5000);
    expect_zip_fail(z64, zs, "central directory past the end of the archive");
    free(z64);
    free(z);
    zip_entry notusd[] = {{"x.usdc", png, 3, 0}};
    z = make_zip(notusd, 1, &zs);
    expect_zip_fail(z, zs, "entry is not a USD layer (entry 'x.usdc')");
    free(z);
    /* every truncation of a package fails cleanly */
    zip_entry ok[] = {{"scene.usdc", f.data, f.size, 0}};
    z = make_zip(ok, 1, &zs);
    for (size_t n = 4; n < zs; n++) {
        usd_layer *L = NULL;
        pk_diag d;
        assert_int_equal(usd_layer_open_memory("pkg.usdz", z, n, NULL, &L, &d), -1);
        assert_non_null(strstr(d.message, "pkg.usdz"));
    }
    /* the entry's crate broken: its message names the entry */
    z[30 + strlen("scene.usdc") + 9] = 42;
    expect_zip_fail(z, zs, "pkg.usdz[scene.usdc]: offset 8: crate version 0.42.0 is not readable");
    free(z);
    usdcw_free(f.w);
}

#endif

/* ---- the real samples ------------------------------------------------------- */

#ifdef SLUICE_USD_SAMPLES
static usd_layer *open_sample(const char *rel)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", SLUICE_USD_SAMPLES, rel);
    usd_layer *L = NULL;
    pk_diag d;
    if (usd_layer_open(path, NULL, &L, &d) != 0) {
        fail_msg("%s", d.message);
    }
    return L;
}

static int32_t *read_ints(const usd_prop *p, uint64_t *n)
{
    uint32_t comps;
    pk_diag d;
    assert_int_equal(usd_prop_value_count(p, USD_WHICH_AUTO, n, &comps, &d), 0);
    int32_t *v = malloc((size_t)(*n ? *n : 1) * 4);
    assert_int_equal(usd_prop_read_i32(p, USD_WHICH_AUTO, v, (size_t)*n, NULL, &d), 0);
    return v;
}

static double *read_doubles(const usd_prop *p, uint64_t *n)
{
    uint32_t comps;
    pk_diag d;
    assert_int_equal(usd_prop_value_count(p, USD_WHICH_AUTO, n, &comps, &d), 0);
    *n *= comps;
    double *v = malloc((size_t)(*n ? *n : 1) * 8);
    assert_int_equal(usd_prop_read_f64(p, USD_WHICH_AUTO, v, (size_t)*n, NULL, &d), 0);
    return v;
}

static void test_sample_suzanne_counts(void **state)
{
    (void)state;
    usd_layer *L = open_sample("tinyusdz/suzanne.usdc");
    uint64_t n;
    int32_t *c = read_ints(prop_at(L, "/Suzanne/Suzanne", "faceVertexCounts"), &n);
    assert_int_equal(n, 500);
    int quads = 0;
    uint64_t sum = 0;
    for (uint64_t i = 0; i < n; i++) {
        quads += c[i] == 4;
        sum += (uint64_t)c[i];
    }
    assert_int_equal(quads, 468);
    free(c);
    int32_t *idx = read_ints(prop_at(L, "/Suzanne/Suzanne", "faceVertexIndices"), &n);
    assert_int_equal(n, sum);
    free(idx);
    usd_layer_close(L);
}

static void test_sample_translated_cube_matches_its_text_twin(void **state)
{
    (void)state;
    usd_layer *A = open_sample("tinyusdz/translated-cube.usda");
    usd_layer *C = open_sample("tinyusdz/translated-cube.usdc");
    static const char *const names[] = {"points", "faceVertexIndices", "faceVertexCounts", "normals"};
    for (int k = 0; k < 4; k++) {
        uint64_t nc, na;
        double *vc = read_doubles(prop_at(C, "/Cube/Cube", names[k]), &nc);
        double *va = read_doubles(prop_at(A, "/Cube/Cube", names[k]), &na);
        assert_int_equal(nc, na);
        for (uint64_t i = 0; i < nc; i++) {
            if (vc[i] != va[i]) {
                fail_msg("%s[%llu]: crate %.9g, text %.9g", names[k], (unsigned long long)i, vc[i], va[i]);
            }
        }
        free(vc);
        free(va);
    }
    assert_string_equal(usd_layer_get_info(C)->up_axis, "Z");
    usd_layer_close(C);
    usd_layer_close(A);
}

static void test_sample_cube_usdz_indexed_primvars(void **state)
{
    (void)state;
    usd_layer *L = open_sample("tinyusdz/cube.usdz");
    assert_int_equal(usd_layer_get_info(L)->format, USD_FORMAT_USDC);
    const usd_prop *uv = prop_at(L, "/Cube/Cube", "primvars:UVMap");
    assert_string_equal(uv->interpolation, "faceVarying");
    assert_string_equal(uv->type_name, "texCoord2f[]");
    uint64_t n;
    int32_t *ui = read_ints(prop_at(L, "/Cube/Cube", "primvars:UVMap:indices"), &n);
    assert_int_equal(n, 24);
    free(ui);
    int32_t *ni = read_ints(prop_at(L, "/Cube/Cube", "primvars:normals:indices"), &n);
    assert_int_equal(n, 24);
    free(ni);
    double *nv = read_doubles(prop_at(L, "/Cube/Cube", "primvars:normals"), &n);
    assert_int_equal(n, 18);
    free(nv);
    usd_layer_close(L);
}

static void test_sample_box_animated_time_samples(void **state)
{
    (void)state;
    usd_layer *L = open_sample("pairs/BoxAnimated/BoxAnimated.usdz");
    const usd_prop *t = prop_at(L, "/BoxAnimated/Geom/node_0", "xformOp:translate");
    assert_int_equal(t->sample_count, 4);
    uint64_t n;
    int32_t *c = read_ints(prop_at(L, "/BoxAnimated/Geom/node_3", "faceVertexCounts"), &n);
    free(c);
    double *p = read_doubles(prop_at(L, "/BoxAnimated/Geom/node_3", "points"), &n);
    assert_int_equal(n, 224 * 3);
    free(p);
    usd_layer_close(L);
}

/* Every crate sample and crate usdz: every value of every property reads
 * or fails with a message, never a crash. */
static void walk_values(const usd_prim *p, int *values)
{
    for (uint32_t i = 0; i < p->prop_count; i++) {
        const usd_prop *q = p->props[i];
        uint64_t n;
        uint32_t comps;
        pk_diag d;
        if (!usd_prop_has_value(q, USD_WHICH_AUTO) || usd_prop_value_count(q, USD_WHICH_AUTO, &n, &comps, &d) != 0) {
            continue;
        }
        double *v = malloc((size_t)(n * comps + 1) * 8);
        char tok[512];
        if (usd_prop_read_f64(q, USD_WHICH_AUTO, v, (size_t)(n * comps), NULL, &d) == 0 ||
            usd_prop_read_token(q, USD_WHICH_AUTO, 0, tok, sizeof tok, &d) == 0) {
            (*values)++;
        }
        free(v);
    }
    for (uint32_t i = 0; i < p->variant_set_count; i++) {
        for (uint32_t j = 0; j < p->variant_sets[i].variant_count; j++) {
            walk_values(p->variant_sets[i].variants[j], values);
        }
    }
    for (uint32_t i = 0; i < p->child_count; i++) {
        walk_values(p->children[i], values);
    }
}

static void test_sample_crates_read_every_value(void **state)
{
    (void)state;
    static const char *const files[] = {"tinyusdz/suzanne.usdc",
                                        "tinyusdz/translated-cube.usdc",
                                        "tinyusdz/texturedcube.usdc",
                                        "tinyusdz/skintest.usdc",
                                        "tinyusdz/cube.usdz",
                                        "pairs/BoxAnimated/BoxAnimated.usdz",
                                        "pairs/InterpolationTest/InterpolationTest.usdz",
                                        "usdwg/RoughnessTest/RoughnessTest.usdz"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        usd_layer *L = open_sample(files[i]);
        int values = 0;
        walk_values(usd_layer_get_root(L), &values);
        if (values < 5) {
            fail_msg("%s: only %d values read", files[i], values);
        }
        usd_layer_close(L);
    }
}
#endif

int main(void)
{
#ifdef SLUICE_USD_SAMPLES
    /* The samples build of this file (ctest label samples). */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sample_suzanne_counts),
        cmocka_unit_test(test_sample_translated_cube_matches_its_text_twin),
        cmocka_unit_test(test_sample_cube_usdz_indexed_primvars),
        cmocka_unit_test(test_sample_box_animated_time_samples),
        cmocka_unit_test(test_sample_crates_read_every_value),
    };
#else
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layer_metadata_and_prim_order),
        cmocka_unit_test(test_list_ops_keep_their_parts),
        cmocka_unit_test(test_variant_sets_selection_and_variant_prims),
        cmocka_unit_test(test_properties_metadata_and_targets),
        cmocka_unit_test(test_int_arrays_compressed_and_not),
        cmocka_unit_test(test_float_arrays_in_every_encoding),
        cmocka_unit_test(test_inlined_scalars_tokens_and_matrices),
        cmocka_unit_test(test_time_samples_and_blocked_values),
        cmocka_unit_test(test_quaternions_halves_and_wide_integers),
        cmocka_unit_test(test_versions_0_4_through_0_11_read),
        cmocka_unit_test(test_layer_relocates_of_0_11),
        cmocka_unit_test(test_single_payload_of_older_versions),
        cmocka_unit_test(test_unreadable_versions_are_refused_by_name),
        cmocka_unit_test(test_every_truncation_fails_cleanly),
        cmocka_unit_test(test_bad_magic_and_tiny_files),
        cmocka_unit_test(test_lying_offsets_and_counts),
        cmocka_unit_test(test_path_trees_that_lie),
        cmocka_unit_test(test_bad_indices_in_specs_and_fields),
        cmocka_unit_test(test_shared_field_sets_are_bounded),
        cmocka_unit_test(test_lying_values_fail_on_read),
        cmocka_unit_test(test_uncompressed_array_past_the_end),
        cmocka_unit_test(test_compressed_bit_on_other_types_is_bounded),
        cmocka_unit_test(test_usdz_root_is_the_first_entry),
        cmocka_unit_test(test_usdz_with_a_text_root),
        cmocka_unit_test(test_usdz_refusals),
    };
#endif
    return cmocka_run_group_tests(tests, NULL, NULL);
}
