/* SPDX-License-Identifier: MIT */
/* The USD layer model (tools/pack/usd_layer.h) and the USDA text parser
 * (tools/pack/usda.c): every construct of the grammar on small layers
 * written here, every accessor, every error message with its file, line,
 * column and prim. With `--samples DIR` it instead opens every text layer
 * of the USD samples (DIR/MANIFEST.tsv, fmt usda) and checks the prim
 * types, face counts, up axis and units their manifest row gives. */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_util.h"

#include "usd_layer.h"
#include "usd_layer_internal.h"

/* ---- helpers ---------------------------------------------------------- */

static usd_layer *open_text(const char *text)
{
    usd_layer *L = NULL;
    pk_diag d;
    if (usd_layer_open_memory("t.usda", text, strlen(text), NULL, &L, &d) != 0)
        fail_msg("open: %s", d.message);
    return L;
}

/* Opening text fails with exactly want. */
static void expect_open_error(const char *text, const char *want)
{
    usd_layer *L = (usd_layer *)1;
    pk_diag d;
    int rc = usd_layer_open_memory("t.usda", text, strlen(text), NULL, &L, &d);
    if (rc == 0)
        usd_layer_close(L);
    assert_int_equal(rc, -1);
    assert_null(L);
    assert_string_equal(d.message, want);
}

static const usd_prim *prim_at(const usd_layer *L, const char *path)
{
    const usd_prim *p = usd_layer_find_prim(L, path);
    if (!p)
        fail_msg("no prim %s", path);
    return p;
}

static const usd_prop *prop_at(const usd_layer *L, const char *path, const char *name)
{
    const usd_prop *p = usd_prim_find_prop(prim_at(L, path), name);
    if (!p)
        fail_msg("no property %s.%s", path, name);
    return p;
}

static char tmpdir[256];

static int setup_dir(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "%s/test_usda.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static const char *const k_written[] = {"layer.usda", "empty.usda", "bad.usda", "plain.usda"};

static int remove_dir(void **state)
{
    (void)state;
    char path[512];
    for (size_t i = 0; i < sizeof k_written / sizeof k_written[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", tmpdir, k_written[i]);
        unlink(path);
    }
    return rmdir(tmpdir);
}

static const char *write_file(const char *name, const void *data, size_t n)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    fclose(f);
    return path;
}

/* ---- layer metadata and prims ----------------------------------------- */

static void test_layer_metadata(void **state)
{
    (void)state;
    usd_layer *L = open_text("#usda 1.0\n"
                             "(\n"
                             "    \"a doc string\"\n"
                             "    defaultPrim = \"World\"\n"
                             "    upAxis = \"Z\"\n"
                             "    metersPerUnit = 0.01\n"
                             "    startTimeCode = 1\n"
                             "    customLayerData = { string copyright = \"x\" dictionary d = { int a = 1 } }\n"
                             "    doc = \"\"\"two\nlines\"\"\"\n"
                             "    subLayers = [@./a.usda@ (offset = 10; scale = 2), @b.usdc@]\n"
                             "    relocates = { </World/A>: </World/B>, </C>: </D> }\n"
                             ")\n"
                             "def \"World\" {}\n");
    const usd_layer_info *in = usd_layer_get_info(L);
    assert_int_equal(in->format, USD_FORMAT_USDA);
    assert_string_equal(in->name, "t.usda");
    assert_string_equal(in->default_prim, "World");
    assert_string_equal(in->up_axis, "Z");
    assert_true(in->meters_per_unit == 0.01);
    assert_int_equal(in->sublayer_count, 2);
    assert_string_equal(in->sublayers[0], "./a.usda");
    assert_string_equal(in->sublayers[1], "b.usdc");
    assert_string_equal(in->package, "");
    assert_int_equal(in->relocate_count, 2);
    assert_string_equal(in->relocate_source, "/World/A");
    assert_string_equal(in->relocate_target, "/World/B");
    usd_layer_close(L);

    /* nothing authored */
    L = open_text("#usda 1.0\n");
    in = usd_layer_get_info(L);
    assert_string_equal(in->default_prim, "");
    assert_string_equal(in->up_axis, "");
    assert_true(in->meters_per_unit == 0);
    assert_int_equal(in->sublayer_count, 0);
    assert_int_equal(in->relocate_count, 0);
    assert_string_equal(in->relocate_source, "");
    assert_int_equal(usd_layer_get_root(L)->child_count, 0);
    usd_layer_close(L);
}

static void test_prim_tree_and_specifiers(void **state)
{
    (void)state;
    usd_layer *L = open_text("#usda 1.0\n"
                             "def Xform \"A\" {\n"
                             "  def Mesh \"m\" {}\n"
                             "  over \"o\" {}\n"
                             "  def \"untyped\" {}\n"
                             "}\n"
                             "class Scope \"_class_\" {}\n"
                             "over \"B\" { reorder nameChildren = [\"y\", \"x\"]\n def \"x\" {} def \"y\" {} }\n"
                             "reorder rootPrims = [\"B\", \"A\"]\n");
    const usd_prim *root = usd_layer_get_root(L);
    assert_null(root->parent);
    assert_int_equal(root->child_count, 3);
    assert_string_equal(root->children[0]->name, "A");
    assert_string_equal(root->children[1]->name, "_class_");
    assert_string_equal(root->children[2]->name, "B");
    const usd_prim *a = prim_at(L, "/A");
    assert_string_equal(a->type_name, "Xform");
    assert_int_equal(a->specifier, USD_SPECIFIER_DEF);
    assert_int_equal(a->line, 2);
    assert_int_equal(a->child_count, 3);
    assert_ptr_equal(a->parent, root);
    assert_ptr_equal(a->layer, L);
    assert_string_equal(prim_at(L, "/A/m")->type_name, "Mesh");
    assert_int_equal(prim_at(L, "/A/o")->specifier, USD_SPECIFIER_OVER);
    assert_string_equal(prim_at(L, "/A/untyped")->type_name, "");
    assert_int_equal(prim_at(L, "/_class_")->specifier, USD_SPECIFIER_CLASS);
    assert_ptr_equal(usd_prim_find_child(a, "m"), prim_at(L, "/A/m"));
    assert_null(usd_prim_find_child(a, "nope"));
    /* tri-state metadata unset */
    assert_int_equal(a->active, -1);
    assert_int_equal(a->instanceable, -1);
    assert_int_equal(a->hidden, -1);
    assert_string_equal(a->kind, "");
    /* lookups that fail */
    assert_null(usd_layer_find_prim(L, "/A/nope"));
    assert_null(usd_layer_find_prim(L, "A"));
    assert_null(usd_layer_find_prim(L, "//A"));
    assert_null(usd_layer_find_prim(L, "/A//m"));
    assert_null(usd_layer_find_prim(L, "/A/"));
    assert_ptr_equal(usd_layer_find_prim(L, "/"), root);
    char buf[64];
    assert_int_equal(usd_prim_path(prim_at(L, "/A/m"), buf, sizeof buf), 4);
    assert_string_equal(buf, "/A/m");
    assert_int_equal(usd_prim_path(root, buf, sizeof buf), 1);
    assert_string_equal(buf, "/");
    /* truncation reports the full length */
    assert_int_equal(usd_prim_path(prim_at(L, "/A/m"), buf, 3), 4);
    assert_string_equal(buf, "/A");
    usd_layer_close(L);
}

static void test_prim_metadata(void **state)
{
    (void)state;
    usd_layer *L = open_text("#usda 1.0\n"
                             "def Xform \"A\" (\n"
                             "    \"doc\"\n"
                             "    kind = \"component\"\n"
                             "    instanceable = true\n"
                             "    active = false\n"
                             "    hidden = 1\n"
                             "    doc = '''multi\nline'''\n"
                             "    customData = { int x = 1; string s = \")\" }\n"
                             "    prepend apiSchemas = [\"MaterialBindingAPI\", \"SkelBindingAPI\"]\n"
                             "    somethingElse = [1, (2, 3), { int a = 4 }]\n"
                             "    assetInfo = { asset identifier = @x.usd@ }\n"
                             ") {}\n");
    const usd_prim *a = prim_at(L, "/A");
    assert_string_equal(a->kind, "component");
    assert_int_equal(a->instanceable, 1);
    assert_int_equal(a->active, 0);
    assert_int_equal(a->hidden, 1);
    const usd_listop *api = &a->listops[USD_FIELD_API_SCHEMAS];
    assert_int_equal(api->explicit_set, 0);
    assert_int_equal(api->count[USD_LISTOP_PREPEND], 2);
    assert_string_equal(api->items[USD_LISTOP_PREPEND][0].path, "MaterialBindingAPI");
    assert_string_equal(api->items[USD_LISTOP_PREPEND][1].path, "SkelBindingAPI");
    assert_string_equal(api->items[USD_LISTOP_PREPEND][1].asset, "");
    usd_layer_close(L);
}

static void test_references_payloads_inherits(void **state)
{
    (void)state;
    usd_layer *L = open_text("#usda 1.0\n"
                             "def \"A\" (\n"
                             "    references = [@a.usd@</X>, @b.usd@, </Internal>, @c.usd@ (offset = 5; scale = 0.5)]\n"
                             "    prepend payload = @p.usd@</P>\n"
                             "    append payload = @q.usd@\n"
                             "    delete references = @old.usd@\n"
                             "    add references = @added.usd@\n"
                             "    reorder references = [@b.usd@]\n"
                             "    prepend inherits = </_class_/a>\n"
                             "    specializes = [</S1>, </S2>]\n"
                             "    append specializes = </S3>\n"
                             "    variantSets = \"shading\"\n"
                             "    prepend variantSets = [\"lod\"]\n"
                             ") {}\n"
                             "def \"B\" ( references = None inherits = [] ) {}\n"
                             "def \"C\" ( payload = @@@three@at.usd@@@ ) {}\n");
    const usd_prim *a = prim_at(L, "/A");
    const usd_listop *r = &a->listops[USD_FIELD_REFERENCES];
    assert_int_equal(r->explicit_set, 1);
    assert_int_equal(r->count[USD_LISTOP_EXPLICIT], 4);
    const usd_listop_item *e = r->items[USD_LISTOP_EXPLICIT];
    assert_string_equal(e[0].asset, "a.usd");
    assert_string_equal(e[0].path, "/X");
    assert_string_equal(e[1].asset, "b.usd");
    assert_string_equal(e[1].path, "");
    assert_string_equal(e[2].asset, "");
    assert_string_equal(e[2].path, "/Internal");
    assert_string_equal(e[3].asset, "c.usd");
    assert_true(e[3].offset == 5 && e[3].scale == 0.5);
    assert_true(e[0].offset == 0 && e[0].scale == 1);
    assert_int_equal(r->count[USD_LISTOP_DELETE], 1);
    assert_string_equal(r->items[USD_LISTOP_DELETE][0].asset, "old.usd");
    assert_int_equal(r->count[USD_LISTOP_ADD], 1);
    assert_int_equal(r->count[USD_LISTOP_REORDER], 1);
    const usd_listop *p = &a->listops[USD_FIELD_PAYLOAD];
    assert_int_equal(p->explicit_set, 0);
    assert_int_equal(p->count[USD_LISTOP_PREPEND], 1);
    assert_string_equal(p->items[USD_LISTOP_PREPEND][0].asset, "p.usd");
    assert_string_equal(p->items[USD_LISTOP_PREPEND][0].path, "/P");
    assert_int_equal(p->count[USD_LISTOP_APPEND], 1);
    const usd_listop *inh = &a->listops[USD_FIELD_INHERITS];
    assert_int_equal(inh->count[USD_LISTOP_PREPEND], 1);
    assert_string_equal(inh->items[USD_LISTOP_PREPEND][0].path, "/_class_/a");
    const usd_listop *sp = &a->listops[USD_FIELD_SPECIALIZES];
    assert_int_equal(sp->count[USD_LISTOP_EXPLICIT], 2);
    assert_string_equal(sp->items[USD_LISTOP_EXPLICIT][1].path, "/S2");
    assert_int_equal(sp->count[USD_LISTOP_APPEND], 1);
    const usd_listop *vsn = &a->listops[USD_FIELD_VARIANT_SET_NAMES];
    assert_int_equal(vsn->count[USD_LISTOP_EXPLICIT], 1);
    assert_string_equal(vsn->items[USD_LISTOP_EXPLICIT][0].path, "shading");
    assert_string_equal(vsn->items[USD_LISTOP_PREPEND][0].path, "lod");

    /* None and [] make an explicit, empty list */
    const usd_prim *b = prim_at(L, "/B");
    assert_int_equal(b->listops[USD_FIELD_REFERENCES].explicit_set, 1);
    assert_int_equal(b->listops[USD_FIELD_REFERENCES].count[USD_LISTOP_EXPLICIT], 0);
    assert_int_equal(b->listops[USD_FIELD_INHERITS].explicit_set, 1);
    assert_int_equal(b->listops[USD_FIELD_PAYLOAD].explicit_set, 0);
    assert_string_equal(prim_at(L, "/C")->listops[USD_FIELD_PAYLOAD].items[0][0].asset, "three@at.usd");
    usd_layer_close(L);
}

static void test_listop_apply(void **state)
{
    (void)state;
    usd_layer *L = open_text("#usda 1.0\n"
                             "def \"A\" (\n"
                             "    prepend references = [@p.usd@, @w2.usd@]\n"
                             "    append references = @a.usd@\n"
                             "    delete references = @w1.usd@\n"
                             "    add references = [@w3.usd@, @n.usd@]\n"
                             ") {}\n"
                             "def \"E\" ( references = [@x.usd@, @x.usd@, @y.usd@] ) {}\n"
                             "def \"R\" ( reorder references = [@c.usd@, @a.usd@, @c.usd@, @zz.usd@] ) {}\n");
    usd_listop_item weaker[3] = {{"w1.usd", "", 0, 1}, {"w2.usd", "", 0, 1}, {"w3.usd", "", 0, 1}};
    usd_listop_item out[8];
    const usd_listop *op = &prim_at(L, "/A")->listops[USD_FIELD_REFERENCES];
    uint32_t n = usd_listop_apply(op, weaker, 3, out, 8);
    /* As USD applies it: prepended first (w2 moved there), the weaker list
     * without w1 (deleted) and w2, then added items not present yet (w3
     * is), then appended last */
    assert_int_equal(n, 5);
    assert_string_equal(out[0].asset, "p.usd");
    assert_string_equal(out[1].asset, "w2.usd");
    assert_string_equal(out[2].asset, "w3.usd");
    assert_string_equal(out[3].asset, "n.usd");
    assert_string_equal(out[4].asset, "a.usd");
    /* too small an output: the full count, the first items written */
    memset(out, 0, sizeof out);
    assert_int_equal(usd_listop_apply(op, weaker, 3, out, 2), 5);
    assert_string_equal(out[1].asset, "w2.usd");
    assert_null(out[2].asset);
    /* one layer alone */
    assert_int_equal(usd_listop_apply(op, NULL, 0, out, 8), 5);
    /* explicit replaces the weaker list, duplicates once */
    op = &prim_at(L, "/E")->listops[USD_FIELD_REFERENCES];
    n = usd_listop_apply(op, weaker, 3, out, 8);
    assert_int_equal(n, 2);
    assert_string_equal(out[0].asset, "x.usd");
    assert_string_equal(out[1].asset, "y.usd");
    /* reorder [c, a] (c named twice, zz absent): the items before the first
     * named one stay first, then each named item with the unnamed ones that
     * followed it */
    op = &prim_at(L, "/R")->listops[USD_FIELD_REFERENCES];
    static const char *const cases[2][2][5] = {
        {{"a.usd", "b.usd", "c.usd", "d.usd", NULL}, {"c.usd", "d.usd", "a.usd", "b.usd", NULL}},
        {{"x.usd", "a.usd", "b.usd", "c.usd", "y.usd"}, {"x.usd", "c.usd", "y.usd", "a.usd", "b.usd"}},
    };
    for (int c = 0; c < 2; c++) {
        usd_listop_item in[5];
        uint32_t k = 0;
        for (; k < 5 && cases[c][0][k] != NULL; k++) {
            in[k] = (usd_listop_item){cases[c][0][k], "", 0, 1};
        }
        n = usd_listop_apply(op, in, k, out, 8);
        assert_int_equal(n, k);
        for (uint32_t j = 0; j < k; j++) {
            assert_string_equal(out[j].asset, cases[c][1][j]);
        }
    }
    usd_layer_close(L);
}

static void test_variant_sets(void **state)
{
    (void)state;
    usd_layer *L = open_text("#usda 1.0\n"
                             "def Xform \"A\" (\n"
                             "    variants = { string shading = \"red\" string lod = \"hi\" }\n"
                             "    prepend variantSets = [\"shading\", \"lod\"]\n"
                             ") {\n"
                             "    variantSet \"shading\" = {\n"
                             "        \"red\" ( kind = \"subcomponent\" ) {\n"
                             "            color3f c = (1, 0, 0)\n"
                             "            def Mesh \"m\" { int[] faceVertexCounts = [3] }\n"
                             "        }\n"
                             "        \"blue\" {\n"
                             "            variantSet \"inner\" = { \"x\" { def \"deep\" {} } }\n"
                             "        }\n"
                             "    }\n"
                             "    variantSet \"lod\" = { \"hi\" {} \"lo\" ( prepend references = @lo.usd@ ) {} }\n"
                             "}\n");
    const usd_prim *a = prim_at(L, "/A");
    assert_int_equal(a->selection_count, 2);
    assert_string_equal(usd_prim_get_selection(a, "shading"), "red");
    assert_string_equal(usd_prim_get_selection(a, "lod"), "hi");
    assert_null(usd_prim_get_selection(a, "none"));
    assert_int_equal(a->variant_set_count, 2);
    const usd_variant_set *vs = usd_prim_find_variant_set(a, "shading");
    assert_non_null(vs);
    assert_string_equal(vs->name, "shading");
    assert_int_equal(vs->variant_count, 2);
    const usd_prim *red = usd_variant_set_find(vs, "red");
    assert_non_null(red);
    assert_int_equal(red->is_variant, 1);
    assert_ptr_equal(red->parent, a);
    assert_string_equal(red->kind, "subcomponent");
    assert_int_equal(red->prop_count, 1);
    assert_string_equal(red->props[0]->name, "c");
    assert_null(usd_variant_set_find(vs, "green"));
    assert_null(usd_prim_find_variant_set(a, "nope"));
    /* variant paths */
    assert_ptr_equal(usd_layer_find_prim(L, "/A{shading=red}"), red);
    const usd_prim *m = prim_at(L, "/A{shading=red}m");
    assert_string_equal(m->type_name, "Mesh");
    char buf[128];
    usd_prim_path(m, buf, sizeof buf);
    assert_string_equal(buf, "/A{shading=red}m");
    const usd_prim *deep = prim_at(L, "/A{shading=blue}{inner=x}deep");
    usd_prim_path(deep, buf, sizeof buf);
    assert_string_equal(buf, "/A{shading=blue}{inner=x}deep");
    assert_null(usd_layer_find_prim(L, "/A{shading=green}m"));
    assert_null(usd_layer_find_prim(L, "/A{shading=red"));
    assert_null(usd_layer_find_prim(L, "/{shading=red}"));
    const usd_prim *lo = prim_at(L, "/A{lod=lo}");
    assert_string_equal(lo->listops[USD_FIELD_REFERENCES].items[USD_LISTOP_PREPEND][0].asset, "lo.usd");
    usd_layer_close(L);
}

/* ---- properties ------------------------------------------------------- */

static const char *k_props = "#usda 1.0\n"
                             "def Mesh \"M\" {\n"
                             "    uniform token subdivisionScheme = \"none\"\n"
                             "    custom string userProperties:name = \"a \\\"q\\\" \\n b\"\n"
                             "    point3f[] points = [(0, 1, 2), (-3.5, 4e2, -5E-1), (inf, -inf, nan)]\n"
                             "    int[] faceVertexCounts = [4, 3,\n 3]\n"
                             "    int[] faceVertexIndices = [0, 1, 2, 3, 0, 2, 1, 2, 3,]\n"
                             "    texCoord2f[] primvars:st = [(0, 0), (1, 0)] (\n"
                             "        interpolation = \"faceVarying\"\n"
                             "        elementSize = 2\n"
                             "        customData = { bool x = true }\n"
                             "    )\n"
                             "    int[] primvars:st:indices = [0, 1]\n"
                             "    matrix4d xformOp:transform = ( (1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 1, 0), (5, 6, 7, 1) )\n"
                             "    quatf xformOp:orient = (1, 0, 0, 0)\n"
                             "    quath xformOp:orient:h = (0.5, 0.5, 0.5, 0.5)\n"
                             "    double3 xformOp:translate:pivot = (1, 2, 3)\n"
                             "    uniform token[] xformOpOrder = [\"xformOp:transform\", \"!invert!xformOp:translate:pivot\"]\n"
                             "    bool doubleSided = true\n"
                             "    float f\n"
                             "    float none = None\n"
                             "    asset tex = @./tex.png@\n"
                             "    asset tex3 = @@@a@b.png@@@\n"
                             "    string single = 'it\\'s'\n"
                             "    string triple = \"\"\"x\n\"y\"\n\"\"\"\n"
                             "    uchar u = 255\n"
                             "    int64 big = 5000000000\n"
                             "    half h = 0.5\n"
                             "    double d = 1.25e-3\n"
                             "    normal3f[] normals = []\n"
                             "    rel material:binding = </Looks/M> ( bindMaterialAs = \"strongerThanDescendants\" )\n"
                             "    rel proxyPrim\n"
                             "    prepend rel prototypes = [</P/a>, </P/b>]\n"
                             "    rel noneRel = None\n"
                             "    color3f inputs:c.connect = </Looks/M/T.outputs:rgb>\n"
                             "    token outputs:surface.connect = [</S.outputs:a>, </S.outputs:b>]\n"
                             "    prepend color3f inputs:d.connect = </Looks/M/T.outputs:rgb>\n"
                             "}\n";

static void test_property_declarations(void **state)
{
    (void)state;
    usd_layer *L = open_text(k_props);
    const usd_prim *m = prim_at(L, "/M");
    /* a list-op qualifier on a connection is read (on a value it is not:
     * test_open_errors) */
    assert_int_equal(prop_at(L, "/M", "inputs:d")->kind, USD_PROP_ATTRIBUTE);
    assert_string_equal(m->props[0]->name, "subdivisionScheme");
    const usd_prop *p = prop_at(L, "/M", "subdivisionScheme");
    assert_int_equal(p->uniform, 1);
    assert_int_equal(p->custom, 0);
    assert_int_equal(p->kind, USD_PROP_ATTRIBUTE);
    assert_string_equal(p->type_name, "token");
    assert_int_equal(p->is_array, 0);
    assert_int_equal(p->line, 3);
    assert_ptr_equal(p->owner, m);
    p = prop_at(L, "/M", "userProperties:name");
    assert_int_equal(p->custom, 1);
    p = prop_at(L, "/M", "points");
    assert_string_equal(p->type_name, "point3f[]");
    assert_int_equal(p->is_array, 1);
    assert_int_equal(p->has_default, 1);
    assert_int_equal(p->sample_count, 0);
    assert_string_equal(p->interpolation, "");
    assert_int_equal(p->element_size, 0);
    p = prop_at(L, "/M", "primvars:st");
    assert_string_equal(p->interpolation, "faceVarying");
    assert_int_equal(p->element_size, 2);
    assert_non_null(usd_prim_find_prop(m, "primvars:st:indices"));
    assert_non_null(usd_prim_find_prop(m, "xformOp:translate:pivot"));
    assert_null(usd_prim_find_prop(m, "nope"));
    p = prop_at(L, "/M", "f");
    assert_int_equal(p->has_default, 0);
    assert_int_equal(usd_prop_has_value(p, USD_WHICH_AUTO), 0);
    p = prop_at(L, "/M", "none");
    assert_int_equal(p->has_default, 1);
    assert_int_equal(usd_prop_has_value(p, USD_WHICH_AUTO), 0);
    assert_int_equal(usd_prop_has_value(p, USD_WHICH_DEFAULT), 0);

    p = prop_at(L, "/M", "material:binding");
    assert_int_equal(p->kind, USD_PROP_RELATIONSHIP);
    assert_string_equal(p->type_name, "");
    assert_int_equal(p->target_count, 1);
    assert_string_equal(p->targets[0], "/Looks/M");
    assert_int_equal(prop_at(L, "/M", "proxyPrim")->target_count, 0);
    p = prop_at(L, "/M", "prototypes");
    assert_int_equal(p->target_count, 2);
    assert_string_equal(p->targets[1], "/P/b");
    assert_int_equal(prop_at(L, "/M", "noneRel")->target_count, 0);
    p = prop_at(L, "/M", "inputs:c");
    assert_int_equal(p->target_count, 1);
    assert_string_equal(p->targets[0], "/Looks/M/T.outputs:rgb");
    assert_int_equal(p->has_default, 0);
    p = prop_at(L, "/M", "outputs:surface");
    assert_int_equal(p->target_count, 2);
    assert_string_equal(p->targets[0], "/S.outputs:a");
    usd_layer_close(L);
}

static void test_numeric_reads(void **state)
{
    (void)state;
    usd_layer *L = open_text(k_props);
    pk_diag d;
    uint64_t count;
    uint32_t comps;
    size_t n;

    const usd_prop *p = prop_at(L, "/M", "points");
    assert_int_equal(usd_prop_value_count(p, USD_WHICH_AUTO, &count, &comps, &d), 0);
    assert_int_equal(count, 3);
    assert_int_equal(comps, 3);
    float f[9];
    assert_int_equal(usd_prop_read_f32(p, USD_WHICH_AUTO, f, 9, &n, &d), 0);
    assert_int_equal(n, 9);
    assert_true(f[0] == 0 && f[1] == 1 && f[2] == 2 && f[3] == -3.5f && f[4] == 400 && f[5] == -0.5f);
    assert_true(isinf(f[6]) && f[6] > 0 && isinf(f[7]) && f[7] < 0 && isnan(f[8]));
    double dv[16];
    assert_int_equal(usd_prop_read_f64(p, USD_WHICH_AUTO, dv, 9, &n, &d), 0);
    assert_true(dv[4] == 400.0);

    p = prop_at(L, "/M", "faceVertexCounts");
    int32_t iv[16];
    assert_int_equal(usd_prop_read_i32(p, USD_WHICH_AUTO, iv, 16, &n, &d), 0);
    assert_int_equal(n, 3);
    assert_int_equal(iv[0], 4);
    assert_int_equal(iv[2], 3);
    p = prop_at(L, "/M", "faceVertexIndices"); /* a trailing comma */
    assert_int_equal(usd_prop_read_i32(p, USD_WHICH_AUTO, iv, 16, &n, &d), 0);
    assert_int_equal(n, 9);

    p = prop_at(L, "/M", "xformOp:transform");
    assert_int_equal(usd_prop_value_count(p, USD_WHICH_AUTO, &count, &comps, &d), 0);
    assert_int_equal(count, 1);
    assert_int_equal(comps, 16);
    assert_int_equal(usd_prop_read_f64(p, USD_WHICH_AUTO, dv, 16, &n, &d), 0);
    assert_int_equal(n, 16);
    assert_true(dv[0] == 1 && dv[5] == 1 && dv[12] == 5 && dv[13] == 6 && dv[14] == 7 && dv[15] == 1);

    p = prop_at(L, "/M", "xformOp:orient");
    assert_int_equal(usd_prop_read_f32(p, USD_WHICH_AUTO, f, 4, &n, &d), 0);
    assert_true(f[0] == 1 && f[3] == 0);
    p = prop_at(L, "/M", "xformOp:orient:h");
    assert_int_equal(usd_prop_read_f32(p, USD_WHICH_AUTO, f, 4, &n, &d), 0);
    assert_true(f[0] == 0.5f);
    p = prop_at(L, "/M", "xformOp:translate:pivot");
    assert_int_equal(usd_prop_read_f64(p, USD_WHICH_AUTO, dv, 3, &n, &d), 0);
    assert_true(dv[2] == 3);

    int b = -1;
    assert_int_equal(usd_prop_read_bool(prop_at(L, "/M", "doubleSided"), USD_WHICH_AUTO, &b, &d), 0);
    assert_int_equal(b, 1);
    assert_int_equal(usd_prop_read_i32(prop_at(L, "/M", "u"), USD_WHICH_AUTO, iv, 1, &n, &d), 0);
    assert_int_equal(iv[0], 255);
    assert_int_equal(usd_prop_read_f64(prop_at(L, "/M", "big"), USD_WHICH_AUTO, dv, 1, &n, &d), 0);
    assert_true(dv[0] == 5000000000.0);
    assert_int_equal(usd_prop_read_f32(prop_at(L, "/M", "h"), USD_WHICH_AUTO, f, 1, &n, &d), 0);
    assert_true(f[0] == 0.5f);
    assert_int_equal(usd_prop_read_f64(prop_at(L, "/M", "d"), USD_WHICH_AUTO, dv, 1, &n, &d), 0);
    assert_true(dv[0] == 1.25e-3);

    /* an empty array */
    p = prop_at(L, "/M", "normals");
    assert_int_equal(usd_prop_value_count(p, USD_WHICH_AUTO, &count, &comps, &d), 0);
    assert_int_equal(count, 0);
    assert_int_equal(comps, 3);
    assert_int_equal(usd_prop_read_f32(p, USD_WHICH_AUTO, f, 0, &n, &d), 0);
    assert_int_equal(n, 0);
    usd_layer_close(L);
}

static void test_token_reads(void **state)
{
    (void)state;
    usd_layer *L = open_text(k_props);
    pk_diag d;
    char buf[64];
    uint64_t count;
    uint32_t comps;
    assert_int_equal(usd_prop_read_token(prop_at(L, "/M", "subdivisionScheme"), USD_WHICH_AUTO, 0, buf, sizeof buf, &d), 0);
    assert_string_equal(buf, "none");
    assert_int_equal(usd_prop_read_token(prop_at(L, "/M", "userProperties:name"), USD_WHICH_AUTO, 0, buf, sizeof buf, &d), 0);
    assert_string_equal(buf, "a \"q\" \n b");
    const usd_prop *p = prop_at(L, "/M", "xformOpOrder");
    assert_int_equal(usd_prop_value_count(p, USD_WHICH_AUTO, &count, &comps, &d), 0);
    assert_int_equal(count, 2);
    assert_int_equal(comps, 1);
    assert_int_equal(usd_prop_read_token(p, USD_WHICH_AUTO, 1, buf, sizeof buf, &d), 0);
    assert_string_equal(buf, "!invert!xformOp:translate:pivot");
    assert_int_equal(usd_prop_read_token(p, USD_WHICH_AUTO, 0, buf, sizeof buf, &d), 0);
    assert_string_equal(buf, "xformOp:transform");
    assert_int_equal(usd_prop_read_token(prop_at(L, "/M", "tex"), USD_WHICH_AUTO, 0, buf, sizeof buf, &d), 0);
    assert_string_equal(buf, "./tex.png");
    assert_int_equal(usd_prop_read_token(prop_at(L, "/M", "tex3"), USD_WHICH_AUTO, 0, buf, sizeof buf, &d), 0);
    assert_string_equal(buf, "a@b.png");
    assert_int_equal(usd_prop_read_token(prop_at(L, "/M", "single"), USD_WHICH_AUTO, 0, buf, sizeof buf, &d), 0);
    assert_string_equal(buf, "it's");
    assert_int_equal(usd_prop_read_token(prop_at(L, "/M", "triple"), USD_WHICH_AUTO, 0, buf, sizeof buf, &d), 0);
    assert_string_equal(buf, "x\n\"y\"\n");
    usd_layer_close(L);
}

static void test_time_samples(void **state)
{
    (void)state;
    usd_layer *L = open_text("#usda 1.0\n"
                             "def Xform \"X\" {\n"
                             "    double3 xformOp:translate = (9, 9, 9)\n"
                             "    double3 xformOp:translate.timeSamples = {\n"
                             "        10: (10, 0, 0),\n"
                             "        -2.5: (-2, 0, 0),\n"
                             "        4: None,\n"
                             "    }\n"
                             "    float3 xformOp:scale.timeSamples = { 3: (3, 3, 3), 1: (1, 1, 1) }\n"
                             "    float blocked = None\n"
                             "    float blocked.timeSamples = { 0: 7 }\n"
                             "    float empty.timeSamples = { }\n"
                             "}\n");
    pk_diag d;
    double v[3];
    size_t n;
    const usd_prop *t = prop_at(L, "/X", "xformOp:translate");
    assert_int_equal(t->sample_count, 3);
    /* sorted by time */
    assert_true(t->samples[0].time == -2.5);
    assert_true(t->samples[1].time == 4);
    assert_true(t->samples[2].time == 10);
    /* the default wins under AUTO */
    assert_int_equal(usd_prop_read_f64(t, USD_WHICH_AUTO, v, 3, &n, &d), 0);
    assert_true(v[0] == 9);
    assert_int_equal(usd_prop_read_f64(t, USD_WHICH_DEFAULT, v, 3, &n, &d), 0);
    assert_true(v[0] == 9);
    assert_int_equal(usd_prop_read_f64(t, 0, v, 3, &n, &d), 0);
    assert_true(v[0] == -2);
    assert_int_equal(usd_prop_read_f64(t, 2, v, 3, &n, &d), 0);
    assert_true(v[0] == 10);
    /* a None sample has no value */
    assert_int_equal(usd_prop_has_value(t, 1), 0);
    assert_int_equal(usd_prop_read_f64(t, 1, v, 3, &n, &d), -1);
    assert_string_equal(d.message,
                        "t.usda:3: property 'xformOp:translate': no time sample 1 (in prim </X>)");
    assert_int_equal(usd_prop_read_f64(t, 3, v, 3, &n, &d), -1);
    assert_string_equal(d.message,
                        "t.usda:3: property 'xformOp:translate': no time sample 3 (in prim </X>)");

    /* no default: the earliest sample */
    const usd_prop *s = prop_at(L, "/X", "xformOp:scale");
    assert_int_equal(s->has_default, 0);
    assert_int_equal(usd_prop_read_f64(s, USD_WHICH_AUTO, v, 3, &n, &d), 0);
    assert_true(v[0] == 1);
    assert_int_equal(usd_prop_read_f64(s, USD_WHICH_DEFAULT, v, 3, &n, &d), -1);
    assert_string_equal(d.message, "t.usda:9: property 'xformOp:scale': no default value (in prim </X>)");

    /* a None default falls back to the earliest sample */
    const usd_prop *b = prop_at(L, "/X", "blocked");
    assert_int_equal(usd_prop_read_f64(b, USD_WHICH_AUTO, v, 1, &n, &d), 0);
    assert_true(v[0] == 7);

    const usd_prop *e = prop_at(L, "/X", "empty");
    assert_int_equal(e->sample_count, 0);
    assert_int_equal(usd_prop_read_f64(e, USD_WHICH_AUTO, v, 1, &n, &d), -1);
    assert_string_equal(d.message,
                        "t.usda:12: property 'empty': no default value and no time sample (in prim </X>)");
    usd_layer_close(L);
}

/* ---- read errors ------------------------------------------------------ */

static void test_read_errors(void **state)
{
    (void)state;
    usd_layer *L = open_text("#usda 1.0\n"
                             "def \"P\" {\n"
                             "    float3[] bad = [(1, 2), (1, 2, 3)]\n"
                             "    float3[] flat = [1, 2, 3]\n"
                             "    int[] big = [1, 3000000000]\n"
                             "    int[] frac = [1.5]\n"
                             "    float[] many = [1, 2, 3, 4]\n"
                             "    float3 notuple = 1\n"
                             "    token t = \"abcdefgh\"\n"
                             "    token[] ts = [\"a\", \"b\"]\n"
                             "    float num = \"str\"\n"
                             "    string s = 5\n"
                             "    rel r = </X>\n"
                             "}\n");
    pk_diag d;
    float f[8];
    int32_t iv[8];
    size_t n;
    char buf[8];
    uint64_t c;
    uint32_t k;
    assert_int_equal(usd_prop_read_f32(prop_at(L, "/P", "bad"), USD_WHICH_AUTO, f, 8, &n, &d), -1);
    assert_string_equal(d.message, "t.usda:3: property 'bad': element 0 has 2 values, type 'float3[]' has 3 (in prim </P>)");
    assert_int_equal(usd_prop_value_count(prop_at(L, "/P", "bad"), USD_WHICH_AUTO, &c, &k, &d), -1);
    assert_string_equal(d.message, "t.usda:3: property 'bad': element 0 has 2 values, type 'float3[]' has 3 (in prim </P>)");
    assert_int_equal(usd_prop_read_f32(prop_at(L, "/P", "flat"), USD_WHICH_AUTO, f, 8, &n, &d), -1);
    assert_string_equal(d.message,
                        "t.usda:4: property 'flat': element 0: expected a tuple of 3 values for type 'float3[]' (in prim </P>)");
    assert_int_equal(usd_prop_read_i32(prop_at(L, "/P", "big"), USD_WHICH_AUTO, iv, 8, &n, &d), -1);
    assert_string_equal(d.message, "t.usda:5: property 'big': element 1: 3e+09 is not an int32 (in prim </P>)");
    assert_int_equal(usd_prop_read_i32(prop_at(L, "/P", "frac"), USD_WHICH_AUTO, iv, 8, &n, &d), -1);
    assert_string_equal(d.message, "t.usda:6: property 'frac': element 0: 1.5 is not an int32 (in prim </P>)");
    /* a value that does not fit the caller's buffer */
    assert_int_equal(usd_prop_read_f32(prop_at(L, "/P", "many"), USD_WHICH_AUTO, f, 3, &n, &d), -1);
    assert_string_equal(d.message, "t.usda:7: property 'many': the value has 4 numbers, the buffer holds 3 (in prim </P>)");
    assert_int_equal(usd_prop_read_f32(prop_at(L, "/P", "notuple"), USD_WHICH_AUTO, f, 8, &n, &d), -1);
    assert_string_equal(d.message,
                        "t.usda:8: property 'notuple': element 0: expected a tuple of 3 values for type 'float3' (in prim </P>)");
    assert_int_equal(usd_prop_read_token(prop_at(L, "/P", "t"), USD_WHICH_AUTO, 0, buf, sizeof buf, &d), -1);
    assert_string_equal(d.message,
                        "t.usda:9: property 't': a string of 8 bytes does not fit a buffer of 8 (in prim </P>)");
    assert_string_equal(buf, "");
    assert_int_equal(usd_prop_read_token(prop_at(L, "/P", "t"), USD_WHICH_AUTO, 1, buf, sizeof buf, &d), -1);
    assert_string_equal(d.message, "t.usda:9: property 't': element 1 of a scalar (in prim </P>)");
    assert_int_equal(usd_prop_read_token(prop_at(L, "/P", "ts"), USD_WHICH_AUTO, 2, buf, sizeof buf, &d), -1);
    assert_string_equal(d.message, "t.usda:10: property 'ts': element 2 out of range (2 elements) (in prim </P>)");
    assert_int_equal(usd_prop_read_f32(prop_at(L, "/P", "num"), USD_WHICH_AUTO, f, 8, &n, &d), -1);
    assert_string_equal(d.message, "t.usda:11: property 'num': element 0: expected a number (in prim </P>)");
    assert_int_equal(usd_prop_read_token(prop_at(L, "/P", "s"), USD_WHICH_AUTO, 0, buf, sizeof buf, &d), -1);
    assert_string_equal(d.message, "t.usda:12: property 's': expected a string (in prim </P>)");
    /* type mismatches */
    assert_int_equal(usd_prop_read_f32(prop_at(L, "/P", "t"), USD_WHICH_AUTO, f, 8, &n, &d), -1);
    assert_string_equal(d.message, "t.usda:9: property 't': type 'token' is not numeric (in prim </P>)");
    assert_int_equal(usd_prop_read_i32(prop_at(L, "/P", "many"), USD_WHICH_AUTO, iv, 8, &n, &d), -1);
    assert_string_equal(d.message, "t.usda:7: property 'many': type 'float[]' is not an integer type (in prim </P>)");
    assert_int_equal(usd_prop_read_token(prop_at(L, "/P", "num"), USD_WHICH_AUTO, 0, buf, sizeof buf, &d), -1);
    assert_string_equal(d.message, "t.usda:11: property 'num': type 'float' is not a token, string or asset (in prim </P>)");
    int b;
    assert_int_equal(usd_prop_read_bool(prop_at(L, "/P", "num"), USD_WHICH_AUTO, &b, &d), -1);
    assert_string_equal(d.message, "t.usda:11: property 'num': type 'float' is not a bool (in prim </P>)");
    assert_int_equal(usd_prop_read_f32(prop_at(L, "/P", "r"), USD_WHICH_AUTO, f, 8, &n, &d), -1);
    assert_string_equal(d.message, "t.usda:13: property 'r': a relationship has no numeric value (in prim </P>)");
    usd_layer_close(L);
}

/* ---- open errors ------------------------------------------------------ */

static void test_open_errors(void **state)
{
    (void)state;
    expect_open_error("hello", "t.usda: not a USD file (no '#usda 1.0' header, 'PXR-USDC' magic or zip signature)");
    expect_open_error("", "t.usda: not a USD file (no '#usda 1.0' header, 'PXR-USDC' magic or zip signature)");
    expect_open_error("#usda 2.0\n", "t.usda:1:1: not a USDA file (the first line is not '#usda 1.0')");
    expect_open_error("#usda 1.0\ndef \"A\" {\n  string s = \"abc\n}\n",
                      "t.usda:3:14: unterminated string (in prim </A>)");
    expect_open_error("#usda 1.0\ndef \"A\" {\n  string s = \"\"\"abc\n}\n",
                      "t.usda:3:14: unterminated string (in prim </A>)");
    expect_open_error("#usda 1.0\ndef \"A\" {\n  float x = 1.2.3\n}\n", "t.usda:3:13: bad number '1.2.3' (in prim </A>)");
    expect_open_error("#usda 1.0\ndef \"A\" {\n  float x = 1e\n}\n", "t.usda:3:13: bad number '1e' (in prim </A>)");
    expect_open_error("#usda 1.0\ndef \"A\" {\n  float x = -\n}\n", "t.usda:3:13: unexpected character '-' (in prim </A>)");
    expect_open_error("#usda 1.0\ndef \"A\" {\n  asset x = @abc\n}\n", "t.usda:3:13: unterminated asset path (in prim </A>)");
    expect_open_error("#usda 1.0\ndef \"A\" {\n  rel x = </abc\n}\n", "t.usda:3:11: unterminated path (in prim </A>)");
    expect_open_error("#usda 1.0\nfoo \"A\" {}\n", "t.usda:2:1: expected def, over or class, found 'foo'");
    expect_open_error("#usda 1.0\ndef \"A\" {\n  float x = )\n}\n",
                      "t.usda:3:13: expected a value, found ')' (in prim </A>)");
    expect_open_error("#usda 1.0\ndef \"A\" {\n  float x = [1, 2)\n}\n",
                      "t.usda:3:18: unexpected ')' (expected ']') (in prim </A>)");
    expect_open_error("#usda 1.0\ndef \"A\" {\n  float x = [1, 2\n", "t.usda:3:13: unterminated '[' (in prim </A>)");
    expect_open_error("#usda 1.0\ndef \"A\" {\n", "t.usda:2:9: unterminated '{' (in prim </A>)");
    expect_open_error("#usda 1.0\ndef \"A\" (\n", "t.usda:2:9: unterminated '(' (in prim </A>)");
    expect_open_error("#usda 1.0\ndef \"A\"\n", "t.usda:3:1: expected '{' to open prim 'A', found 'end of file' (in prim </A>)");
    expect_open_error("#usda 1.0\ndef \"1A\" {}\n", "t.usda:2:5: bad prim name '1A'");
    expect_open_error("#usda 1.0\ndef \"A\" {}\ndef \"A\" {}\n", "t.usda:3:5: prim 'A' defined twice");
    expect_open_error("#usda 1.0\ndef \"A\" {\n  float x.foo = 1\n}\n",
                      "t.usda:3:11: unknown property field 'foo' (in prim </A>)");
    expect_open_error("#usda 1.0\ndef \"A\" {\n  float a:b: = 1\n}\n", "t.usda:3:9: bad property name 'a:b:' (in prim </A>)");
    expect_open_error("#usda 1.0\ndef \"A\" {\n  float x = 1\n  float x = 2\n}\n",
                      "t.usda:4:9: property 'x' has two default values (in prim </A>)");
    expect_open_error("#usda 1.0\ndef \"A\" {\n  float x = 1\n  int x.timeSamples = {}\n}\n",
                      "t.usda:4:7: property 'x' declared again with another type (in prim </A>)");
    expect_open_error("#usda 1.0\ndef \"A\" ( instanceable = maybe ) {}\n",
                      "t.usda:2:26: expected a bool, found 'maybe' (in prim </A>)");
    expect_open_error("#usda 1.0\ndef \"A\" ( kind = 3 ) {}\n", "t.usda:2:18: expected a string, found '3' (in prim </A>)");
    expect_open_error("#usda 1.0\ndef \"A\" ( references = [@a@ @b@] ) {}\n",
                      "t.usda:2:29: expected ',' or ']' in a list, found '@b@' (in prim </A>)");
    expect_open_error("#usda 1.0\ndef \"A\" ( inherits = @a@ ) {}\n",
                      "t.usda:2:22: expected a path, found '@a@' (in prim </A>)");
    expect_open_error("#usda 1.0\ndef \"A\" ( references = 5 ) {}\n",
                      "t.usda:2:24: expected an asset path or a path, found '5' (in prim </A>)");
    expect_open_error("#usda 1.0\ndef \"A\" ( kind \"x\" ) {}\n",
                      "t.usda:2:16: expected '=' after a metadata name, found '\"x\"' (in prim </A>)");
    expect_open_error("#usda 1.0\n( metersPerUnit = -1 )\n", "t.usda:2:19: metersPerUnit must be a positive number, found '-1'");
    expect_open_error("#usda 1.0\n( subLayers = [\"a\"] )\n", "t.usda:2:16: expected an asset path in subLayers, found '\"a\"'");
    expect_open_error("#usda 1.0\n( relocates = [] )\n", "t.usda:2:15: expected '{' after relocates =, found '['");
    expect_open_error("#usda 1.0\n( relocates = { \"a\": </b> } )\n",
                      "t.usda:2:17: expected a source path in relocates, found '\"a\"'");
    expect_open_error("#usda 1.0\n( relocates = { </a> </b> } )\n",
                      "t.usda:2:22: expected ':' after a relocate's source path, found '</b>'");
    expect_open_error("#usda 1.0\n( relocates = { </a>: 3 } )\n",
                      "t.usda:2:23: expected a target path in relocates, found '3'");
    expect_open_error("#usda 1.0\n( relocates = { </a>: </b> </c> } )\n",
                      "t.usda:2:28: expected ',' or '}' in relocates, found '</c>'");
    expect_open_error("#usda 1.0\ndef \"A\" {\n  float x (elementSize = 0)\n}\n",
                      "t.usda:3:26: elementSize must be a positive integer, found '0' (in prim </A>)");
    expect_open_error("#usda 1.0\ndef \"A\" {\n  float x.timeSamples = { a: 1 }\n}\n",
                      "t.usda:3:27: expected a time code, found 'a:' (in prim </A>)");
    expect_open_error("#usda 1.0\ndef \"A\" {\n  float x.timeSamples = { 1 2 }\n}\n",
                      "t.usda:3:29: expected ':' after a time code, found '2' (in prim </A>)");
    expect_open_error("#usda 1.0\ndef \"A\" {\n  rel x = [</a> </b>]\n}\n",
                      "t.usda:3:17: expected ',' or ']' in targets, found '</b>' (in prim </A>)");
    expect_open_error("#usda 1.0\ndef \"A\" {\n  rel x = 5\n}\n",
                      "t.usda:3:11: expected a target path, found '5' (in prim </A>)");
    expect_open_error("#usda 1.0\ndef \"A\" {\n  variantSet \"v\" = { x {} }\n}\n",
                      "t.usda:3:22: expected a variant name in quotes, found 'x' (in prim </A>)");
    expect_open_error("#usda 1.0\ndef \"A\" {\n  variantSet \"v\" = { \"x\" {} \"x\" {} }\n}\n",
                      "t.usda:3:29: variant 'x' defined twice (in prim </A>)");
    expect_open_error("#usda 1.0\ndef \"A\" {\n  variantSet \"v\" = { \"x\" { float y = ) } }\n}\n",
                      "t.usda:3:38: expected a value, found ')' (in prim </A{v=x}>)");
    expect_open_error("#usda 1.0\ndef \"A\" {\n  \x01\n}\n", "t.usda:3:3: unexpected byte 0x01 (in prim </A>)");
    expect_open_error("#usda 1.0\ndef \"A\" {\n  5\n}\n",
                      "t.usda:3:3: expected a property, prim or variantSet, found '5' (in prim </A>)");
    /* a list-op qualifier on an attribute's value (only relationships
     * and connections are list-edited) */
    expect_open_error("#usda 1.0\ndef \"A\" {\n  add float x = 1\n}\n",
                      "t.usda:3:13: list-op qualifier 'add' on attribute 'x': only relationships and connections take "
                      "one (in prim </A>)");
    expect_open_error("#usda 1.0\ndef \"A\" {\n  prepend float3[] x.timeSamples = {}\n}\n",
                      "t.usda:3:20: list-op qualifier 'prepend' on attribute 'x': only relationships and connections "
                      "take one (in prim </A>)");
    /* the prim path names the innermost prim */
    expect_open_error("#usda 1.0\ndef \"A\" {\n def \"B\" {\n  float x = [\n }\n}\n",
                      "t.usda:5:2: unexpected '}' (expected ']') (in prim </A/B>)");
}

static void test_limits(void **state)
{
    (void)state;
    /* nesting: prims */
    size_t cap = 64u * 32u + 64;
    char *text = malloc(cap);
    assert_non_null(text);
    size_t o = (size_t)snprintf(text, cap, "#usda 1.0\n");
    for (unsigned i = 0; i <= USD_MAX_DEPTH; i++)
        o += (size_t)snprintf(text + o, cap - o, "def \"P\" {");
    usd_layer *L = NULL;
    pk_diag d;
    assert_int_equal(usd_layer_open_memory("t.usda", text, o, NULL, &L, &d), -1);
    char want[256];
    snprintf(want, sizeof want, "t.usda:2:%u: nesting too deep (more than %u levels) (in prim <", 9u * USD_MAX_DEPTH + 1u,
             USD_MAX_DEPTH);
    assert_memory_equal(d.message, want, strlen(want));

    /* nesting: values (arrays of arrays) never recurse past the limit */
    o = (size_t)snprintf(text, cap, "#usda 1.0\ndef \"A\" { float x = ");
    for (unsigned i = 0; i < 2u * USD_MAX_DEPTH; i++)
        text[o++] = '[';
    assert_int_equal(usd_layer_open_memory("t.usda", text, o, NULL, &L, &d), -1);
    snprintf(want, sizeof want, "t.usda:2:%u: nesting too deep (more than %u levels) (in prim </A>)",
             21u + USD_MAX_DEPTH - 1u, USD_MAX_DEPTH);
    assert_string_equal(d.message, want);
    free(text);

    /* identifier too long */
    size_t big = USD_MAX_IDENTIFIER + 1u;
    text = malloc(big + 64);
    assert_non_null(text);
    o = (size_t)snprintf(text, big + 64, "#usda 1.0\ndef \"A\" {\n  float ");
    memset(text + o, 'x', big);
    o += big;
    assert_int_equal(usd_layer_open_memory("t.usda", text, o, NULL, &L, &d), -1);
    snprintf(want, sizeof want, "t.usda:3:9: identifier too long (%zu bytes, at most %u) (in prim </A>)", big,
             USD_MAX_IDENTIFIER);
    assert_string_equal(d.message, want);
    /* a prim name as long */
    o = (size_t)snprintf(text, big + 64, "#usda 1.0\ndef \"");
    memset(text + o, 'x', big);
    o += big;
    text[o++] = '"';
    text[o++] = '{';
    text[o++] = '}';
    assert_int_equal(usd_layer_open_memory("t.usda", text, o, NULL, &L, &d), -1);
    snprintf(want, sizeof want, "t.usda:2:5: identifier too long (%zu bytes, at most %u)", big, USD_MAX_IDENTIFIER);
    assert_string_equal(d.message, want);
    free(text);
}

/* Every prefix of a valid layer either opens or fails with a message; none
 * crashes (ASan/valgrind check the reads). */
static void test_every_truncation(void **state)
{
    (void)state;
    size_t n = strlen(k_props);
    for (size_t len = 0; len < n; len++) {
        char *copy = malloc(len ? len : 1);
        assert_non_null(copy);
        memcpy(copy, k_props, len);
        usd_layer *L = NULL;
        pk_diag d;
        d.message[0] = '\0';
        int rc = usd_layer_open_memory("t.usda", copy, len, NULL, &L, &d);
        if (rc == 0)
            usd_layer_close(L);
        else
            assert_true(d.message[0] != '\0');
        free(copy);
    }
}

/* ---- files, formats, types -------------------------------------------- */

static void test_open_files_and_resolve(void **state)
{
    (void)state;
    const char *text = "#usda 1.0\n( defaultPrim = \"A\" )\ndef \"A\" { float x = 2 }\n";
    const char *path = write_file("layer.usda", text, strlen(text));
    usd_layer *L = NULL;
    pk_diag d;
    assert_int_equal(usd_layer_open(path, NULL, &L, &d), 0);
    assert_string_equal(usd_layer_get_info(L)->name, path);
    float f;
    size_t n;
    assert_int_equal(usd_prop_read_f32(prop_at(L, "/A", "x"), USD_WHICH_AUTO, &f, 1, &n, &d), 0);
    assert_true(f == 2);
    char out[512], want[1100];
    snprintf(want, sizeof want, "%s/sub/b.usda", tmpdir);
    assert_int_equal(usd_layer_resolve(L, "./sub/b.usda", out, sizeof out), strlen(want));
    assert_string_equal(out, want);
    assert_int_equal(usd_layer_resolve(L, "sub/./c/../b.usda", out, sizeof out), strlen(want));
    assert_string_equal(out, want);
    snprintf(want, sizeof want, "%s", tmpdir);
    char *slash = strrchr(want, '/');
    snprintf(slash + 1, sizeof want - (size_t)(slash + 1 - want), "up.usda");
    usd_layer_resolve(L, "../up.usda", out, sizeof out);
    assert_string_equal(out, want);
    assert_int_equal(usd_layer_resolve(L, "/abs/x.usd", out, sizeof out), 10);
    assert_string_equal(out, "/abs/x.usd");
    assert_int_equal(usd_layer_resolve(L, "", out, sizeof out), 0);
    assert_string_equal(out, "");
    usd_layer_close(L);

    /* a layer named without a folder resolves against nothing */
    L = open_text("#usda 1.0\n");
    usd_layer_resolve(L, "./a/../b.usd", out, sizeof out);
    assert_string_equal(out, "b.usd");
    usd_layer_resolve(L, "../b.usd", out, sizeof out);
    assert_string_equal(out, "../b.usd");
    usd_layer_close(L);

    /* a package entry path names the entry */
    L = usd_layer_create("pkg.usdz", USD_FORMAT_USDA, "", 0, NULL);
    assert_non_null(L);
    assert_int_equal(usd_layer_set_package(L, "dir/pkg.usdz", "geo/root.usda"), 0);
    usd_layer_resolve(L, "./tex/a.png", out, sizeof out);
    assert_string_equal(out, "dir/pkg.usdz[geo/tex/a.png]");
    usd_layer_resolve(L, "../b.usdc", out, sizeof out);
    assert_string_equal(out, "dir/pkg.usdz[b.usdc]");
    assert_string_equal(usd_layer_get_info(L)->package, "dir/pkg.usdz");
    usd_layer_close(L);

    /* errors of the file itself */
    char missing[512];
    snprintf(missing, sizeof missing, "%s/missing.usda", tmpdir);
    assert_int_equal(usd_layer_open(missing, NULL, &L, &d), -1);
    assert_null(L);
    snprintf(want, sizeof want, "%s: cannot open: No such file or directory", missing);
    assert_string_equal(d.message, want);
    assert_int_equal(usd_layer_open(tmpdir, NULL, &L, &d), -1);
    snprintf(want, sizeof want, "%s: not a regular file", tmpdir);
    assert_string_equal(d.message, want);
    path = write_file("empty.usda", "", 0);
    assert_int_equal(usd_layer_open(path, NULL, &L, &d), -1);
    snprintf(want, sizeof want, "%s: not a USD file (no '#usda 1.0' header, 'PXR-USDC' magic or zip signature)", path);
    assert_string_equal(d.message, want);
    path = write_file("bad.usda", "#usda 1.0\ndef \"A\" { float x = 1.. }\n", 34);
    assert_int_equal(usd_layer_open(path, NULL, &L, &d), -1);
    snprintf(want, sizeof want, "%s:2:21: bad number '1..' (in prim </A>)", path);
    assert_string_equal(d.message, want);
    /* an entry of something that is not a package */
    path = write_file("plain.usda", text, strlen(text));
    char entry[600];
    snprintf(entry, sizeof entry, "%s[inner.usda]", path);
    assert_int_equal(usd_layer_open(entry, NULL, &L, &d), -1);
    snprintf(want, sizeof want, "%s: not a usdz package (asked for its entry 'inner.usda')", path);
    assert_string_equal(d.message, want);
    usd_layer_close(NULL);
}

static void test_detect_format(void **state)
{
    (void)state;
    assert_int_equal(usd_detect_format("#usda 1.0\n", 10), USD_FORMAT_USDA);
    assert_int_equal(usd_detect_format("#usda\t1.0", 9), USD_FORMAT_USDA);
    assert_int_equal(usd_detect_format("#usdaX", 6), USD_FORMAT_UNKNOWN);
    assert_int_equal(usd_detect_format("#usd", 4), USD_FORMAT_UNKNOWN);
    assert_int_equal(usd_detect_format("PXR-USDC\0\0", 10), USD_FORMAT_USDC);
    assert_int_equal(usd_detect_format("PXR-USD", 7), USD_FORMAT_UNKNOWN);
    assert_int_equal(usd_detect_format("PK\3\4rest", 8), USD_FORMAT_USDZ);
    assert_int_equal(usd_detect_format("PK\5\6", 4), USD_FORMAT_UNKNOWN);
    assert_int_equal(usd_detect_format("", 0), USD_FORMAT_UNKNOWN);
}

static void test_type_scalar(void **state)
{
    (void)state;
    uint32_t c = 99;
    int arr = -1;
    assert_int_equal(usd_type_scalar("point3f[]", &c, &arr), USD_SCALAR_FLOAT);
    assert_int_equal(c, 3);
    assert_int_equal(arr, 1);
    assert_int_equal(usd_type_scalar("matrix4d", &c, &arr), USD_SCALAR_DOUBLE);
    assert_int_equal(c, 16);
    assert_int_equal(arr, 0);
    assert_int_equal(usd_type_scalar("quath", &c, NULL), USD_SCALAR_HALF);
    assert_int_equal(c, 4);
    assert_int_equal(usd_type_scalar("texCoord2f[]", &c, NULL), USD_SCALAR_FLOAT);
    assert_int_equal(c, 2);
    assert_int_equal(usd_type_scalar("texCoord3d", &c, NULL), USD_SCALAR_DOUBLE);
    assert_int_equal(c, 3);
    assert_int_equal(usd_type_scalar("color4h", &c, NULL), USD_SCALAR_HALF);
    assert_int_equal(c, 4);
    assert_int_equal(usd_type_scalar("normal3f[]", &c, NULL), USD_SCALAR_FLOAT);
    assert_int_equal(usd_type_scalar("vector3d", &c, NULL), USD_SCALAR_DOUBLE);
    assert_int_equal(usd_type_scalar("int2", &c, NULL), USD_SCALAR_INT);
    assert_int_equal(c, 2);
    assert_int_equal(usd_type_scalar("double3", &c, NULL), USD_SCALAR_DOUBLE);
    assert_int_equal(usd_type_scalar("half4", &c, NULL), USD_SCALAR_HALF);
    assert_int_equal(usd_type_scalar("token[]", &c, &arr), USD_SCALAR_TOKEN);
    assert_int_equal(c, 1);
    assert_int_equal(arr, 1);
    assert_int_equal(usd_type_scalar("asset", &c, NULL), USD_SCALAR_ASSET);
    assert_int_equal(usd_type_scalar("timecode", &c, NULL), USD_SCALAR_TIMECODE);
    assert_int_equal(usd_type_scalar("uint64", &c, NULL), USD_SCALAR_UINT64);
    assert_int_equal(usd_type_scalar("opaque", &c, NULL), USD_SCALAR_OTHER);
    /* not types */
    assert_int_equal(usd_type_scalar("point2f", &c, NULL), USD_SCALAR_NONE);
    assert_int_equal(c, 0);
    assert_int_equal(usd_type_scalar("color2f", &c, NULL), USD_SCALAR_NONE);
    assert_int_equal(usd_type_scalar("texCoord4f", &c, NULL), USD_SCALAR_NONE);
    assert_int_equal(usd_type_scalar("float5", &c, NULL), USD_SCALAR_NONE);
    assert_int_equal(usd_type_scalar("float3x", &c, NULL), USD_SCALAR_NONE);
    assert_int_equal(usd_type_scalar("", &c, NULL), USD_SCALAR_NONE);
    assert_int_equal(usd_type_scalar("[]", &c, NULL), USD_SCALAR_NONE);
}

static void test_half_to_float(void **state)
{
    (void)state;
    assert_true(usd_half_to_float(0x3c00) == 1.0f);
    assert_true(usd_half_to_float(0xc000) == -2.0f);
    assert_true(usd_half_to_float(0x3800) == 0.5f);
    assert_true(usd_half_to_float(0x7bff) == 65504.0f);
    assert_true(usd_half_to_float(0x0001) == ldexpf(1.0f, -24)); /* smallest subnormal */
    assert_true(usd_half_to_float(0x03ff) == ldexpf(1023.0f, -24));
    assert_true(usd_half_to_float(0x0000) == 0.0f);
    assert_true(signbit(usd_half_to_float(0x8000)));
    assert_true(isinf(usd_half_to_float(0x7c00)));
    assert_true(isinf(usd_half_to_float(0xfc00)) && usd_half_to_float(0xfc00) < 0);
    assert_true(isnan(usd_half_to_float(0x7e00)));
}

static void test_crate_stub_refuses(void **state)
{
    (void)state;
    /* until the crate reader exists its entry points fail, naming the file */
    usd_layer *L = NULL;
    pk_diag d;
    if (usd_layer_open_memory("x.usdc", "PXR-USDC\0\0\0\0\0\0\0\0", 16, NULL, &L, &d) != 0)
        assert_non_null(strstr(d.message, "x.usdc"));
    else
        usd_layer_close(L);
}

/* The comments, blank forms and separators the grammar allows. */
static void test_comments_and_layout(void **state)
{
    (void)state;
    usd_layer *L = open_text("#usda 1.0 # the header may carry a comment\n"
                             "# a comment\n"
                             "(defaultPrim=\"A\";upAxis=\"Y\")\n"
                             "def Xform \"A\"(kind=\"group\"){float x=1;float y.timeSamples={0:2,1:3}\n"
                             "  string s = \"# not a comment\" # a comment\n"
                             "}\r\n");
    pk_diag d;
    char buf[32];
    assert_string_equal(usd_layer_get_info(L)->up_axis, "Y");
    assert_string_equal(prim_at(L, "/A")->kind, "group");
    assert_int_equal(prop_at(L, "/A", "y")->sample_count, 2);
    assert_int_equal(usd_prop_read_token(prop_at(L, "/A", "s"), USD_WHICH_AUTO, 0, buf, sizeof buf, &d), 0);
    assert_string_equal(buf, "# not a comment");
    usd_layer_close(L);
}


/* Many names on one prim: every lookup still finds its own (the name map
 * grows through several rehashes). */
static void test_many_names(void **state)
{
    (void)state;
    const unsigned n = 5000;
    size_t cap = (size_t)n * 48u + 64u;
    char *text = malloc(cap);
    assert_non_null(text);
    size_t o = (size_t)snprintf(text, cap, "#usda 1.0\ndef \"A\" {\n");
    for (unsigned i = 0; i < n; i++)
        o += (size_t)snprintf(text + o, cap - o, "float p%u = %u\ndef \"c%u\" {}\n", i, i, i);
    o += (size_t)snprintf(text + o, cap - o, "}\n");
    usd_layer *L = NULL;
    pk_diag d;
    if (usd_layer_open_memory("t.usda", text, o, NULL, &L, &d) != 0)
        fail_msg("%s", d.message);
    const usd_prim *a = prim_at(L, "/A");
    assert_int_equal(a->prop_count, n);
    assert_int_equal(a->child_count, n);
    for (unsigned i = 0; i < n; i += 97) {
        char name[32];
        snprintf(name, sizeof name, "p%u", i);
        const usd_prop *p = usd_prim_find_prop(a, name);
        assert_non_null(p);
        assert_ptr_equal(p, a->props[i]);
        float f;
        size_t got;
        assert_int_equal(usd_prop_read_f32(p, USD_WHICH_AUTO, &f, 1, &got, &d), 0);
        assert_true(f == (float)i);
        snprintf(name, sizeof name, "c%u", i);
        assert_ptr_equal(usd_prim_find_child(a, name), a->children[i]);
    }
    assert_null(usd_prim_find_prop(a, "p5000"));
    assert_null(usd_prim_find_child(a, "p1")); /* a property's name is not a child */
    usd_layer_close(L);
    free(text);
}

/* The build calls a crate reader uses: a repeated variant is the same
 * node, a later selection replaces an earlier one, sets keep their order. */
static void test_build_calls(void **state)
{
    (void)state;
    usd_layer *L = usd_layer_create("b.usdc", USD_FORMAT_USDC, "", 0, NULL);
    assert_non_null(L);
    usd_prim *root = usd_build_root(L);
    usd_prim *a = usd_build_prim(L, root, "A", 1, USD_SPECIFIER_DEF, "Xform", 5);
    assert_non_null(a);
    assert_ptr_equal(usd_build_find_child(root, "A", 1), a);
    assert_null(usd_build_find_child(root, "B", 1));
    assert_int_equal(usd_build_variant_set(L, a, "lod", 3), 0);
    usd_prim *hi = usd_build_variant(L, a, "lod", 3, "hi", 2);
    assert_non_null(hi);
    assert_ptr_equal(usd_build_variant(L, a, "lod", 3, "hi", 2), hi);
    assert_ptr_equal(usd_build_find_variant(a, "lod", 3, "hi", 2), hi);
    assert_null(usd_build_find_variant(a, "lod", 3, "lo", 2));
    assert_non_null(usd_build_variant(L, a, "shade", 5, "red", 3));
    assert_int_equal(a->variant_set_count, 2);
    assert_string_equal(a->variant_sets[0].name, "lod");
    assert_int_equal(a->variant_sets[0].variant_count, 1);
    assert_int_equal(usd_build_selection(L, a, "lod", 3, "hi", 2), 0);
    assert_int_equal(usd_build_selection(L, a, "lod", 3, "lo", 2), 0);
    assert_int_equal(a->selection_count, 1);
    assert_string_equal(usd_prim_get_selection(a, "lod"), "lo");
    usd_prop *p = usd_build_prop(L, a, "xformOpOrder", 12, USD_PROP_ATTRIBUTE, "token[]", 7);
    assert_non_null(p);
    assert_int_equal(p->is_array, 1);
    assert_ptr_equal(usd_build_find_prop(a, "xformOpOrder", 12), p);
    usd_value_ref v = {0, 0, 0, 0};
    assert_int_equal(usd_build_sample(L, p, 2, &v), 0);
    assert_int_equal(usd_build_sample(L, p, 1, &v), 0);
    assert_int_equal(usd_build_target(L, p, "/X", 2), 0);
    assert_int_equal(usd_build_listop_item(L, a, USD_FIELD_INHERITS, USD_LISTOP_APPEND, NULL, 0, "/C", 2, 0, 1), 0);
    assert_string_equal(a->listops[USD_FIELD_INHERITS].items[USD_LISTOP_APPEND][0].asset, "");
    assert_int_equal(usd_layer_finish(L, &(pk_diag){{0}}), 0);
    assert_true(p->samples[0].time == 1 && p->samples[1].time == 2);
    assert_string_equal(p->targets[0], "/X");
    /* the same bytes intern to the same pointer */
    assert_ptr_equal(usd_layer_intern(L, "lod", 3), a->variant_sets[0].name);
    /* a layer without hooks refuses reads, naming the property */
    pk_diag d;
    char buf[8];
    assert_int_equal(usd_prop_read_token(p, 0, 0, buf, sizeof buf, &d), -1);
    assert_string_equal(d.message, "b.usdc: property 'xformOpOrder': values of this layer are not readable (in prim </A>)");
    usd_layer_close(L);
}

/* ---- the samples ------------------------------------------------------ */

typedef struct sample_counts {
    uint32_t types[16];
    char names[16][32];
    uint32_t type_kinds;
    uint64_t tri, quad, ngon;
    uint32_t instanceable;
} sample_counts;

static void count_type(sample_counts *c, const char *type)
{
    for (uint32_t i = 0; i < c->type_kinds; i++)
        if (strcmp(c->names[i], type) == 0) {
            c->types[i]++;
            return;
        }
    if (c->type_kinds < 16) {
        snprintf(c->names[c->type_kinds], sizeof c->names[0], "%s", type);
        c->types[c->type_kinds++] = 1;
    }
}

static uint32_t type_count(const sample_counts *c, const char *type)
{
    for (uint32_t i = 0; i < c->type_kinds; i++)
        if (strcmp(c->names[i], type) == 0)
            return c->types[i];
    return 0;
}

static void walk_sample(const usd_prim *p, sample_counts *c)
{
    if (p->type_name[0])
        count_type(c, p->type_name);
    if (p->instanceable == 1)
        c->instanceable++;
    if (strcmp(p->type_name, "Mesh") == 0) {
        const usd_prop *q = usd_prim_find_prop(p, "faceVertexCounts");
        if (q) {
            pk_diag d;
            uint64_t n;
            uint32_t k;
            if (usd_prop_value_count(q, USD_WHICH_AUTO, &n, &k, &d) != 0)
                fail_msg("%s", d.message);
            int32_t *v = malloc((size_t)n * sizeof *v + 1);
            assert_non_null(v);
            size_t got;
            if (usd_prop_read_i32(q, USD_WHICH_AUTO, v, (size_t)n, &got, &d) != 0)
                fail_msg("%s", d.message);
            assert_int_equal(got, n);
            for (size_t i = 0; i < got; i++) {
                if (v[i] == 3)
                    c->tri++;
                else if (v[i] == 4)
                    c->quad++;
                else
                    c->ngon++;
            }
            free(v);
        }
    }
    for (uint32_t i = 0; i < p->child_count; i++)
        walk_sample(p->children[i], c);
    for (uint32_t s = 0; s < p->variant_set_count; s++)
        for (uint32_t v = 0; v < p->variant_sets[s].variant_count; v++)
            walk_sample(p->variant_sets[s].variants[v], c);
}

/* Checks the layer against its manifest features: "Mesh x5; Xform x13;
 * faces: 10 tri, 1 quad; ...; up Y; mpu 0.01" (types before the first
 * lower-case part; faces, up and mpu where given). */
static int check_features(const char *file, const usd_layer *L, const sample_counts *c, char *features)
{
    int bad = 0;
    const usd_layer_info *in = usd_layer_get_info(L);
    for (char *part = strtok(features, ";"); part; part = strtok(NULL, ";")) {
        while (*part == ' ')
            part++;
        if (strncmp(part, "faces:", 6) == 0) {
            uint64_t tri = 0, quad = 0, ngon = 0;
            char *s = part + 6;
            while (*s) {
                unsigned long long v = strtoull(s, &s, 10);
                while (*s == ' ')
                    s++;
                if (strncmp(s, "tri", 3) == 0)
                    tri = v;
                else if (strncmp(s, "quad", 4) == 0)
                    quad = v;
                else if (strncmp(s, "ngon", 4) == 0)
                    ngon = v;
                s += strcspn(s, ",");
                if (*s == ',')
                    s++;
            }
            if (tri != c->tri || quad != c->quad || ngon != c->ngon) {
                print_message("%s: faces %llu/%llu/%llu, manifest %llu/%llu/%llu\n", file,
                              (unsigned long long)c->tri, (unsigned long long)c->quad, (unsigned long long)c->ngon,
                              (unsigned long long)tri, (unsigned long long)quad, (unsigned long long)ngon);
                bad++;
            }
        } else if (strncmp(part, "up ", 3) == 0) {
            if (strcmp(in->up_axis, part + 3) != 0) {
                print_message("%s: upAxis '%s', manifest '%s'\n", file, in->up_axis, part + 3);
                bad++;
            }
        } else if (strncmp(part, "mpu ", 4) == 0) {
            if (in->meters_per_unit != strtod(part + 4, NULL)) {
                print_message("%s: metersPerUnit %g, manifest %s\n", file, in->meters_per_unit, part + 4);
                bad++;
            }
        } else if (part[0] >= 'A' && part[0] <= 'Z') {
            /* "Mesh", "Mesh x2", "Mesh GeomSubset x4", "Xform x3" */
            char *save = NULL;
            char words[256];
            snprintf(words, sizeof words, "%s", part);
            char *w = strtok_r(words, " ", &save);
            while (w) {
                char *next_w = strtok_r(NULL, " ", &save);
                uint32_t want = 1;
                if (next_w && next_w[0] == 'x' && next_w[1] >= '0' && next_w[1] <= '9') {
                    want = (uint32_t)strtoul(next_w + 1, NULL, 10);
                    next_w = strtok_r(NULL, " ", &save);
                }
                if (type_count(c, w) != want) {
                    print_message("%s: %u %s prims, manifest %u\n", file, type_count(c, w), w, want);
                    bad++;
                }
                w = next_w;
            }
        }
    }
    return bad;
}

static int run_samples(const char *dir)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/MANIFEST.tsv", dir);
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        return 1;
    }
    char line[8192];
    int bad = 0, opened = 0;
    int suzanne = 0, teapots = 0, sublayer = 0;
    if (!fgets(line, sizeof line, f)) {
        fclose(f);
        return 1;
    }
    while (fgets(line, sizeof line, f)) {
        char *cols[9] = {0};
        char *s = line;
        for (int i = 0; i < 9 && s; i++) {
            cols[i] = s;
            s = strchr(s, '\t');
            if (s)
                *s++ = '\0';
        }
        if (!cols[8] || strcmp(cols[4], "usda") != 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, cols[0]);
        usd_layer *L = NULL;
        pk_diag d;
        if (usd_layer_open(path, NULL, &L, &d) != 0) {
            fprintf(stderr, "FAIL %s\n", d.message);
            bad++;
            continue;
        }
        opened++;
        sample_counts c;
        memset(&c, 0, sizeof c);
        walk_sample(usd_layer_get_root(L), &c);
        int b = check_features(cols[0], L, &c, cols[7]);
        bad += b;
        /* the README's figures, one by one */
        if (strcmp(cols[0], "tinyusdz/suzanne.usda") == 0) {
            suzanne = 1;
            if (type_count(&c, "Mesh") != 1 || c.tri + c.quad + c.ngon != 500 || c.quad != 468) {
                fprintf(stderr, "suzanne.usda: want one Mesh of 500 faces, 468 quads\n");
                bad++;
            }
        }
        if (strcmp(cols[0], "usdwg/intent-vfx/scenes/teapotScene_layout.usd") == 0) {
            teapots = 1;
            if (c.instanceable != 494 || type_count(&c, "PointInstancer") != 23) {
                fprintf(stderr, "teapotScene_layout.usd: %u instanceable prims (want 494), %u PointInstancers (want 23)\n",
                        c.instanceable, type_count(&c, "PointInstancer"));
                bad++;
            }
        }
        if (strcmp(cols[0], "usdwg/RelationshipEncapsulationTests/InternalReferenceTest.usda") == 0) {
            sublayer = 1;
            const usd_layer_info *in = usd_layer_get_info(L);
            if (in->sublayer_count != 1 || strcmp(in->sublayers[0], "./utils/Environment.usda") != 0) {
                fprintf(stderr, "InternalReferenceTest.usda: want subLayers [./utils/Environment.usda]\n");
                bad++;
            }
        }
        printf("%s %s: %u prim types, %llu tri %llu quad %llu ngon\n", b ? "BAD" : "ok", cols[0], c.type_kinds,
               (unsigned long long)c.tri, (unsigned long long)c.quad, (unsigned long long)c.ngon);
        usd_layer_close(L);
    }
    fclose(f);
    if (!suzanne || !teapots || !sublayer || opened < 10) {
        fprintf(stderr, "the manifest lacks expected samples (%d opened)\n", opened);
        bad++;
    }
    printf("%d text layers opened, %d mismatches\n", opened, bad);
    return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--samples") == 0)
        return run_samples(argv[2]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layer_metadata),
        cmocka_unit_test(test_prim_tree_and_specifiers),
        cmocka_unit_test(test_prim_metadata),
        cmocka_unit_test(test_references_payloads_inherits),
        cmocka_unit_test(test_listop_apply),
        cmocka_unit_test(test_variant_sets),
        cmocka_unit_test(test_property_declarations),
        cmocka_unit_test(test_numeric_reads),
        cmocka_unit_test(test_token_reads),
        cmocka_unit_test(test_time_samples),
        cmocka_unit_test(test_read_errors),
        cmocka_unit_test(test_open_errors),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_every_truncation),
        cmocka_unit_test(test_open_files_and_resolve),
        cmocka_unit_test(test_detect_format),
        cmocka_unit_test(test_type_scalar),
        cmocka_unit_test(test_half_to_float),
        cmocka_unit_test(test_crate_stub_refuses),
        cmocka_unit_test(test_comments_and_layout),
        cmocka_unit_test(test_many_names),
        cmocka_unit_test(test_build_calls),
    };
    return cmocka_run_group_tests(tests, setup_dir, remove_dir);
}
