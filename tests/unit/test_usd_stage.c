/* SPDX-License-Identifier: MIT */
/* USD composition and traversal (tools/pack/usd_stage.h) on .usda files this
 * test writes: subLayers and their strength, internal and external
 * references with and without a prim path, payloads, inherits, specializes,
 * variant selections and the default variant, instanceable prims sharing one
 * mesh, prototypes that share a path but not their content, cycles, missing
 * and outside layers, every refused or skipped schema, xformOp concatenation
 * and !resetXformStack!, upAxis and metersPerUnit, visibility, purpose and
 * active, PointInstancer placements. Each refusal is checked with its exact
 * message. */
#define _GNU_SOURCE /* realpath */

#include <ftw.h>
#include <math.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_util.h"

#include "builder.h"
#include "gltf.h"
#include "usd_layer.h"
#include "sluice/platform.h"
#include "usd_stage.h"

/* ---- files ----------------------------------------------------------------- */

static char dir[64];

static const char *path_of(const char *name)
{
    static char p[4][512];
    static int k;
    k = (k + 1) % 4;
    snprintf(p[k], sizeof p[k], "%s/%s", dir, name);
    return p[k];
}

/* Writes text to dir/name, making its folders. */
static void put(const char *name, const char *text)
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
    assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
    assert_int_equal(fclose(f), 0);
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(p);
}

static int setup_dir(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/sluice-usd-stage-XXXXXX");
    return mkdtemp(dir) == NULL ? -1 : 0;
}

static int teardown_dir(void **state)
{
    (void)state;
    return nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* A header with Y up and metres, so placements are the plain world matrix. */
#define HEAD "#usda 1.0\n(\n    metersPerUnit = 1\n    upAxis = \"Y\"\n)\n"
/* One triangle, the x coordinate of its first point X. */
#define TRI(X)                                                                                                         \
    "        int[] faceVertexCounts = [3]\n"                                                                           \
    "        int[] faceVertexIndices = [0, 1, 2]\n"                                                                    \
    "        point3f[] points = [(" #X ", 0, 0), (1, 0, 0), (0, 1, 0)]\n"

/* ---- a sink that keeps what it is given -------------------------------------- */

typedef struct got_mesh {
    uint32_t vertices, indices;
    float first[3];       /* the first vertex */
    float lo[3], hi[3];   /* the box of the vertices */
    char name[64];
} got_mesh;

typedef struct collect {
    got_mesh meshes[64];
    uint32_t mesh_count;
    pk_instance inst[1024];
    uint32_t inst_count;
} collect;

static int on_mesh(void *user, const pk_mesh *m, uint32_t *object, pk_diag *d)
{
    (void)d;
    collect *c = user;
    assert_true(c->mesh_count < 64);
    got_mesh *g = &c->meshes[c->mesh_count];
    g->vertices = m->vertex_count;
    g->indices = m->index_count;
    memcpy(g->first, m->positions, sizeof g->first);
    for (int k = 0; k < 3; k++) {
        g->lo[k] = INFINITY;
        g->hi[k] = -INFINITY;
        for (uint32_t i = 0; i < m->vertex_count; i++) {
            g->lo[k] = fminf(g->lo[k], m->positions[(size_t)i * 3 + (size_t)k]);
            g->hi[k] = fmaxf(g->hi[k], m->positions[(size_t)i * 3 + (size_t)k]);
        }
    }
    snprintf(g->name, sizeof g->name, "%s", m->name);
    *object = c->mesh_count++;
    return 0;
}

static int on_instance(void *user, const pk_instance *inst, pk_diag *d)
{
    (void)d;
    collect *c = user;
    assert_true(c->inst_count < 1024);
    c->inst[c->inst_count++] = *inst;
    return 0;
}

typedef struct warnings {
    char last[1024];
    char all[8192]; /* every message, each followed by a newline */
    int count;
} warnings;

static void on_warn(void *user, const char *message)
{
    warnings *w = user;
    snprintf(w->last, sizeof w->last, "%s", message);
    size_t used = strlen(w->all);
    snprintf(w->all + used, sizeof w->all - used, "%s\n", message);
    w->count++;
}

static warnings warned;

/* Opens name and imports it into c (both must succeed). */
static void import_ok(const char *name, int skip, int outside, collect *c, usd_stage_stats *st)
{
    memset(c, 0, sizeof *c);
    memset(&warned, 0, sizeof warned);
    usd_stage_options o = {skip, outside, on_warn, &warned, NULL, 0};
    usd_stage *s = NULL;
    pk_diag d;
    memset(&d, 0, sizeof d);
    if (usd_stage_open(path_of(name), &o, &s, &d) != 0) {
        fail_msg("open %s: %s", name, d.message);
    }
    usd_stage_sink sink = {on_mesh, on_instance, c, NULL, NULL};
    if (usd_stage_import(s, &sink, &d) != 0) {
        usd_stage_close(s);
        fail_msg("import %s: %s", name, d.message);
    }
    if (st != NULL) {
        usd_stage_get_stats(s, st);
    }
    assert_int_equal(usd_stage_mesh_count(s) >= c->mesh_count, 1);
    usd_stage_close(s);
}

/* usd_stage_open fails with exactly want, where "@" stands for the folder. */
static void expect_open_error(const char *name, int skip, const char *want)
{
    memset(&warned, 0, sizeof warned);
    usd_stage_options o = {skip, 0, on_warn, &warned, NULL, 0};
    usd_stage *s = (usd_stage *)&s;
    pk_diag d;
    memset(&d, 0, sizeof d);
    char full[1024];
    size_t k = 0;
    for (const char *p = want; *p != '\0' && k + 64 < sizeof full; p++) {
        if (*p == '@' && p[1] == '/') {
            k += (size_t)snprintf(full + k, sizeof full - k, "%s", dir);
        } else {
            full[k++] = *p;
        }
    }
    full[k] = '\0';
    if (usd_stage_open(path_of(name), &o, &s, &d) == 0) {
        usd_stage_close(s);
        fail_msg("open %s succeeded, want \"%s\"", name, full);
    }
    assert_null(s);
    if (strcmp(d.message, full) != 0) {
        fail_msg("got  \"%s\"\nwant \"%s\"", d.message, full);
    }
}

static void expect_translation(const pk_instance *inst, double x, double y, double z)
{
    if (fabs(inst->matrix[12] - x) > 1e-5 || fabs(inst->matrix[13] - y) > 1e-5 || fabs(inst->matrix[14] - z) > 1e-5) {
        fail_msg("instance '%s' at (%g, %g, %g), want (%g, %g, %g)", inst->name, inst->matrix[12], inst->matrix[13],
                 inst->matrix[14], x, y, z);
    }
}

/* ---- layer stacks and arcs ------------------------------------------------------ */

static void test_one_mesh_is_one_mesh_and_one_placement(void **state)
{
    (void)state;
    put("one/a.usda", HEAD "def Mesh \"M\"\n{\n" TRI(0) "}\n");
    collect c;
    usd_stage_stats st;
    import_ok("one/a.usda", 0, 0, &c, &st);
    assert_int_equal(c.mesh_count, 1);
    assert_int_equal(c.meshes[0].indices, 3);
    assert_string_equal(c.meshes[0].name, "M");
    assert_int_equal(c.inst_count, 1);
    assert_string_equal(c.inst[0].name, "M");
    expect_translation(&c.inst[0], 0, 0, 0);
    assert_int_equal(st.layers, 1);
    assert_int_equal(st.meshes, 1);
    assert_int_equal(st.instances, 1);
}

static void test_sublayers_stronger_first(void **state)
{
    (void)state;
    put("sub/root.usda", "#usda 1.0\n(\n    metersPerUnit = 1\n    subLayers = [@a.usda@, @b.usda@]\n)\n"
                         "over \"M\"\n{\n    double3 xformOp:translate = (1, 0, 0)\n}\n");
    put("sub/a.usda", "#usda 1.0\n(\n    subLayers = [@deep/c.usda@]\n)\n"
                      "over \"M\"\n{\n    double3 xformOp:translate = (2, 0, 0)\n"
                      "    uniform token[] xformOpOrder = [\"xformOp:translate\"]\n}\n");
    put("sub/b.usda", "#usda 1.0\ndef Mesh \"M\"\n{\n" TRI(5) "    uniform token[] xformOpOrder = []\n}\n"
                      "def Mesh \"OnlyInB\"\n{\n" TRI(6) "}\n");
    put("sub/deep/c.usda", "#usda 1.0\ndef Mesh \"OnlyInC\"\n{\n" TRI(7) "}\n");
    collect c;
    usd_stage_stats st;
    import_ok("sub/root.usda", 0, 0, &c, &st);
    assert_int_equal(st.layers, 4);
    assert_int_equal(c.mesh_count, 3);
    /* The root's translate over a's, a's xformOpOrder over b's empty one,
     * b's points: children in the strongest layer's order first. */
    assert_string_equal(c.inst[0].name, "M");
    expect_translation(&c.inst[0], 1, 0, 0);
    assert_true(c.meshes[0].first[0] == 5.0f);
    assert_string_equal(c.inst[1].name, "OnlyInC");
    assert_string_equal(c.inst[2].name, "OnlyInB");
}

static void test_internal_reference_with_and_without_path(void **state)
{
    (void)state;
    put("iref/a.usda", "#usda 1.0\n(\n    defaultPrim = \"Proto\"\n    metersPerUnit = 1\n)\n"
                       "class \"Proto\"\n{\n    def Mesh \"Geo\"\n    {\n" TRI(3) "    }\n}\n"
                       "def Xform \"A\" (\n    references = </Proto>\n)\n{\n"
                       "    double3 xformOp:translate = (0, 2, 0)\n"
                       "    uniform token[] xformOpOrder = [\"xformOp:translate\"]\n}\n"
                       "def Xform \"B\" (\n    references = @@\n)\n{\n}\n");
    collect c;
    import_ok("iref/a.usda", 0, 0, &c, NULL);
    /* The class itself is not imported; A and B both hold its Geo. */
    assert_int_equal(c.inst_count, 2);
    assert_string_equal(c.inst[0].name, "Geo");
    expect_translation(&c.inst[0], 0, 2, 0);
    expect_translation(&c.inst[1], 0, 0, 0);
    assert_true(c.meshes[0].first[0] == 3.0f);
}

static void test_external_reference_default_prim_and_path(void **state)
{
    (void)state;
    put("eref/asset.usda", "#usda 1.0\n(\n    defaultPrim = \"Main\"\n)\n"
                           "def Xform \"Main\"\n{\n    def Mesh \"Geo\"\n    {\n" TRI(1) "    }\n}\n"
                           "def Xform \"Other\"\n{\n    def Mesh \"Geo2\"\n    {\n" TRI(2) "    }\n}\n");
    put("eref/root.usda", HEAD "def Xform \"X\" (\n    prepend references = @./asset.usda@\n)\n{\n}\n"
                              "def Xform \"Y\" (\n    references = @asset.usda@</Other>\n)\n{\n}\n");
    collect c;
    usd_stage_stats st;
    import_ok("eref/root.usda", 0, 0, &c, &st);
    assert_int_equal(st.layers, 2); /* asset.usda opened once for both */
    assert_int_equal(c.inst_count, 2);
    assert_string_equal(c.inst[0].name, "Geo");
    assert_string_equal(c.inst[1].name, "Geo2");
    assert_true(c.meshes[0].first[0] == 1.0f);
    assert_true(c.meshes[1].first[0] == 2.0f);
}

static void test_payload_is_loaded(void **state)
{
    (void)state;
    put("pay/p.usda", "#usda 1.0\n(\n    defaultPrim = \"P\"\n)\ndef \"P\"\n{\n    def Mesh \"Geo\"\n    {\n" TRI(4)
                      "    }\n}\n");
    put("pay/root.usda", HEAD "def Xform \"X\" (\n    payload = @p.usda@\n)\n{\n}\n");
    collect c;
    import_ok("pay/root.usda", 0, 0, &c, NULL);
    assert_int_equal(c.inst_count, 1);
    assert_true(c.meshes[0].first[0] == 4.0f);
}

static void test_inherits_weaker_than_local_stronger_than_references(void **state)
{
    (void)state;
    put("inh/asset.usda", "#usda 1.0\n(\n    defaultPrim = \"A\"\n)\ndef Mesh \"A\"\n{\n" TRI(0)
                          "    double3 xformOp:translate = (9, 9, 9)\n"
                          "    uniform token[] xformOpOrder = [\"xformOp:translate\"]\n}\n");
    put("inh/root.usda", HEAD "class \"_c\"\n{\n    double3 xformOp:translate = (5, 0, 0)\n}\n"
                              "def \"X\" (\n    inherits = </_c>\n    references = @asset.usda@\n)\n{\n}\n"
                              "def \"Y\" (\n    inherits = </_c>\n    references = @asset.usda@\n)\n{\n"
                              "    double3 xformOp:translate = (6, 0, 0)\n}\n");
    collect c;
    import_ok("inh/root.usda", 0, 0, &c, NULL);
    assert_int_equal(c.inst_count, 2);
    expect_translation(&c.inst[0], 5, 0, 0); /* the class over the reference */
    expect_translation(&c.inst[1], 6, 0, 0); /* the local opinion over the class */
}

static void test_specializes_weakest(void **state)
{
    (void)state;
    put("spec/root.usda", HEAD "class \"_s\"\n{\n    double3 xformOp:translate = (7, 0, 0)\n"
                               "    uniform token[] xformOpOrder = [\"xformOp:translate\"]\n}\n"
                               "def Mesh \"Base\"\n{\n" TRI(0) "    double3 xformOp:translate = (3, 0, 0)\n}\n"
                               "def Mesh \"X\" (\n    specializes = </_s>\n    references = </Base>\n)\n{\n}\n"
                               "def Mesh \"Y\" (\n    specializes = </_s>\n)\n{\n" TRI(0) "}\n");
    collect c;
    import_ok("spec/root.usda", 0, 0, &c, NULL);
    assert_int_equal(c.inst_count, 3);
    expect_translation(&c.inst[0], 0, 0, 0); /* Base: no xformOpOrder */
    expect_translation(&c.inst[1], 3, 0, 0); /* the reference's translate, the specialized order */
    expect_translation(&c.inst[2], 7, 0, 0); /* only the specialized class has one */
}

static void test_variant_selection_and_default_variant(void **state)
{
    (void)state;
    put("var/root.usda",
        HEAD "def Xform \"X\" (\n    variants = {\n        string shape = \"big\"\n    }\n"
             "    prepend variantSets = \"shape\"\n)\n{\n"
             "    variantSet \"shape\" = {\n"
             "        \"small\" {\n            def Mesh \"S\"\n            {\n" TRI(1) "            }\n        }\n"
             "        \"big\" {\n            def Mesh \"B\"\n            {\n" TRI(2) "            }\n        }\n"
             "    }\n}\n"
             "def Xform \"Y\" (\n    prepend variantSets = \"shape\"\n)\n{\n"
             "    variantSet \"shape\" = {\n"
             "        \"small\" {\n            def Mesh \"S\"\n            {\n" TRI(3) "            }\n        }\n"
             "        \"big\" {\n            def Mesh \"B\"\n            {\n" TRI(4) "            }\n        }\n"
             "    }\n}\n");
    collect c;
    import_ok("var/root.usda", 0, 0, &c, NULL);
    assert_int_equal(c.inst_count, 2);
    assert_string_equal(c.inst[0].name, "B"); /* selected */
    assert_true(c.meshes[0].first[0] == 2.0f);
    assert_string_equal(c.inst[1].name, "S"); /* nothing selected: the first variant */
    assert_true(c.meshes[1].first[0] == 3.0f);
}

static void test_reference_selects_variant_of_target(void **state)
{
    (void)state;
    put("var2/asset.usda", "#usda 1.0\n(\n    defaultPrim = \"A\"\n)\n"
                           "def \"A\" (\n    variants = {\n        string lod = \"lo\"\n    }\n"
                           "    prepend variantSets = \"lod\"\n)\n{\n    variantSet \"lod\" = {\n"
                           "        \"hi\" {\n            def Mesh \"Hi\"\n            {\n" TRI(1) "            }\n"
                           "        }\n        \"lo\" {\n            def Mesh \"Lo\"\n            {\n" TRI(2)
                           "            }\n        }\n    }\n}\n");
    put("var2/root.usda", HEAD "def \"X\" (\n    references = @asset.usda@\n    variants = {\n"
                               "        string lod = \"hi\"\n    }\n)\n{\n}\n");
    collect c;
    import_ok("var2/root.usda", 0, 0, &c, NULL);
    assert_int_equal(c.inst_count, 1);
    assert_string_equal(c.inst[0].name, "Hi"); /* the referencing layer's selection wins */
}

/* ---- instancing -------------------------------------------------------------------- */

static void test_instanceable_prims_share_one_mesh(void **state)
{
    (void)state;
    put("inst/asset.usda", "#usda 1.0\n(\n    defaultPrim = \"A\"\n)\n"
                           "def Xform \"A\"\n{\n    def Mesh \"Geo\"\n    {\n" TRI(0) "    }\n"
                           "    def Mesh \"Geo2\"\n    {\n" TRI(1) "    }\n}\n");
    char text[4096];
    int n = snprintf(text, sizeof text, HEAD);
    for (int i = 0; i < 5; i++) {
        n += snprintf(text + n, sizeof text - (size_t)n,
                      "def Xform \"I%d\" (\n    instanceable = true\n    references = @asset.usda@\n)\n{\n"
                      "    double3 xformOp:translate = (%d, 0, 0)\n"
                      "    uniform token[] xformOpOrder = [\"xformOp:translate\"]\n"
                      "    over \"Geo\" { double3 xformOp:translate = (0, 100, 0)\n"
                      "        uniform token[] xformOpOrder = [\"xformOp:translate\"] }\n}\n",
                      i, i * 10);
    }
    put("inst/root.usda", text);
    collect c;
    usd_stage_stats st;
    import_ok("inst/root.usda", 0, 0, &c, &st);
    assert_int_equal(c.mesh_count, 2); /* one prototype's two meshes */
    assert_int_equal(c.inst_count, 10);
    assert_int_equal(st.prototypes, 1);
    assert_int_equal(st.prototype_hits, 4);
    for (int i = 0; i < 5; i++) {
        /* The instance's own opinion on a descendant is ignored, as USD does. */
        expect_translation(&c.inst[2 * i], i * 10, 0, 0);
        assert_int_equal(c.inst[2 * i].mesh, 0);
        assert_int_equal(c.inst[2 * i + 1].mesh, 1);
    }
}

/* A chain of n layers, each placing the next twice (non-instanceable
 * references, "A" where it is and "B" moved by 2^k), the last a Mesh:
 * 2^n placements of one mesh, at x = 0 .. 2^n - 1. */
static void write_chain(const char *folder, unsigned n)
{
    char name[96], text[1024];
    for (unsigned k = 0; k < n; k++) {
        snprintf(name, sizeof name, "%s/l%u.usda", folder, k);
        snprintf(text, sizeof text,
                 "#usda 1.0\n(\n    defaultPrim = \"R\"\n    metersPerUnit = 1\n    upAxis = \"Y\"\n)\n"
                 "def Xform \"R\"\n{\n"
                 "    def \"A\" (\n        references = @./l%u.usda@\n    )\n    {\n    }\n"
                 "    def \"B\" (\n        references = @./l%u.usda@\n    )\n    {\n"
                 "        double3 xformOp:translate = (%u, 0, 0)\n"
                 "        uniform token[] xformOpOrder = [\"xformOp:translate\"]\n    }\n}\n",
                 k + 1, k + 1, 1u << k);
        put(name, text);
    }
    snprintf(name, sizeof name, "%s/l%u.usda", folder, n);
    put(name, "#usda 1.0\n(\n    defaultPrim = \"R\"\n)\ndef Mesh \"R\"\n{\n" TRI(0) "}\n");
}

typedef struct counter {
    uint32_t meshes;
    uint64_t instances;
    unsigned char *seen; /* x translations met, one byte each */
    uint64_t range;
} counter;

static int count_mesh(void *user, const pk_mesh *m, uint32_t *object, pk_diag *d)
{
    (void)m;
    (void)d;
    counter *c = user;
    *object = c->meshes++;
    return 0;
}

static int count_instance(void *user, const pk_instance *inst, pk_diag *d)
{
    (void)d;
    counter *c = user;
    c->instances++;
    float x = inst->matrix[12];
    if (inst->mesh >= c->meshes || !(x >= 0.0f) || (uint64_t)x >= c->range || (float)(uint64_t)x != x ||
        c->seen[(uint64_t)x]++ != 0) {
        fail_msg("placement %llu: mesh %u at x %g", (unsigned long long)c->instances, inst->mesh, (double)x);
    }
    return 0;
}

/* A subtree reached again through the same arcs is composed and imported
 * once, instanceable or not: 2^20 placements of one mesh are one object
 * and 2^20 instances, each where the chain puts it. */
static void test_repeated_subtrees_are_composed_once(void **state)
{
    (void)state;
    const unsigned n = 20;
    write_chain("chain", n);
    usd_stage_options o = {0, 0, on_warn, &warned, NULL, 0};
    usd_stage *s = NULL;
    pk_diag d;
    memset(&d, 0, sizeof d);
    memset(&warned, 0, sizeof warned);
    if (usd_stage_open(path_of("chain/l0.usda"), &o, &s, &d) != 0) {
        fail_msg("open: %s", d.message);
    }
    /* The last layer's Mesh, reached as "A" and as "B" (two composed
     * prims: B carries its own translation) is imported twice; the pack
     * stores the two identical meshes as one object. */
    assert_int_equal(usd_stage_mesh_count(s), 2);
    counter c = {0, 0, calloc((size_t)1 << n, 1), (uint64_t)1 << n};
    assert_non_null(c.seen);
    usd_stage_sink sink = {count_mesh, count_instance, &c, NULL, NULL};
    if (usd_stage_import(s, &sink, &d) != 0) {
        fail_msg("import: %s", d.message);
    }
    usd_stage_stats st;
    usd_stage_get_stats(s, &st);
    usd_stage_close(s);
    free(c.seen);
    assert_int_equal(c.meshes, 2);
    assert_int_equal(c.instances, (uint64_t)1 << n);
    assert_int_equal(st.placements, (uint64_t)1 << n);
    assert_int_equal(st.instances, 1u << n);
    /* Each layer's "A" and "B" (two composed prims per layer) is composed
     * once, and reached again from every other prim of the layer above. */
    assert_int_equal(st.prototypes, 2 * n);
    assert_int_equal(st.prototype_hits, 2 * (n - 1));
    assert_int_equal(warned.count, 0);
}

/* More placements than the limit: refused at open, naming the count, before
 * any geometry is read (2^24 by the chain, against the default); a
 * PointInstancer's instances, which open does not count, stop the import at
 * the first past the limit. */
static void test_placement_limit(void **state)
{
    (void)state;
    write_chain("chain24", 24);
    char want[256];
    snprintf(want, sizeof want, "@/chain24/l0.usda: 16777216 placements, more than the limit of %d "
                                "(--max-placements N raises it)",
             PK_DEFAULT_MAX_PLACEMENTS);
    expect_open_error("chain24/l0.usda", 0, want);

    write_chain("chain8", 8);
    usd_stage_options o = {0, 0, on_warn, &warned, NULL, 255};
    usd_stage *s = NULL;
    pk_diag d;
    memset(&d, 0, sizeof d);
    assert_int_equal(usd_stage_open(path_of("chain8/l0.usda"), &o, &s, &d), -1);
    snprintf(want, sizeof want, "%s: 256 placements, more than the limit of 255 (--max-placements N raises it)",
             path_of("chain8/l0.usda"));
    assert_string_equal(d.message, want);
    o.max_placements = 256;
    assert_int_equal(usd_stage_open(path_of("chain8/l0.usda"), &o, &s, &d), 0);
    usd_stage_close(s);

    put("limit/inst.usda", HEAD "def PointInstancer \"P\"\n{\n"
                               "    rel prototypes = </P/Protos/M>\n"
                               "    int[] protoIndices = [0, 0, 0, 0]\n"
                               "    point3f[] positions = [(0, 0, 0), (1, 0, 0), (2, 0, 0), (3, 0, 0)]\n"
                               "    def Xform \"Protos\"\n    {\n        def Mesh \"M\"\n        {\n" TRI(0)
                               "        }\n    }\n}\n");
    o.max_placements = 3;
    assert_int_equal(usd_stage_open(path_of("limit/inst.usda"), &o, &s, &d), 0);
    collect c;
    memset(&c, 0, sizeof c);
    usd_stage_sink sink = {on_mesh, on_instance, &c, NULL, NULL};
    assert_int_equal(usd_stage_import(s, &sink, &d), -1);
    snprintf(want, sizeof want, "%s: more than 3 placements (the limit; --max-placements N raises it)",
             path_of("limit/inst.usda"));
    assert_string_equal(d.message, want);
    assert_int_equal(c.inst_count, 3);
    usd_stage_close(s);
}

static void test_prototypes_sharing_a_path_keep_their_own_meshes(void **state)
{
    (void)state;
    put("proto/a.usda", "#usda 1.0\ndef Xform \"Proto\"\n{\n    def Mesh \"Geo\"\n    {\n" TRI(1) "    }\n}\n");
    put("proto/b.usda", "#usda 1.0\ndef Xform \"Proto\"\n{\n    def Mesh \"Geo\"\n    {\n" TRI(2) "    }\n}\n");
    put("proto/root.usda", HEAD "def \"First\"\n{\n"
                                "    def \"I\" (\n        instanceable = true\n        references = @a.usda@</Proto>\n"
                                "    )\n    {\n    }\n}\n"
                                "def \"Second\"\n{\n"
                                "    def \"I\" (\n        instanceable = true\n        references = @b.usda@</Proto>\n"
                                "    )\n    {\n    }\n}\n");
    collect c;
    usd_stage_stats st;
    import_ok("proto/root.usda", 0, 0, &c, &st);
    assert_int_equal(c.mesh_count, 2);
    assert_int_equal(st.prototypes, 2);
    assert_true(c.meshes[0].first[0] == 1.0f);
    assert_true(c.meshes[1].first[0] == 2.0f);
    assert_int_equal(c.inst[0].mesh, 0);
    assert_int_equal(c.inst[1].mesh, 1);
}

static void test_point_instancer_places_each_instance(void **state)
{
    (void)state;
    put("pi/root.usda",
        HEAD "def PointInstancer \"PI\"\n{\n"
             "    rel prototypes = [</PI/Protos/A>, </PI/Protos/B>]\n"
             "    int[] protoIndices = [0, 1, 0, 1]\n"
             "    point3f[] positions = [(1, 0, 0), (2, 0, 0), (3, 0, 0), (4, 0, 0)]\n"
             "    quath[] orientations = [(1, 0, 0, 0), (1, 0, 0, 0), (0, 0, 1, 0), (1, 0, 0, 0)]\n"
             "    float3[] scales = [(1, 1, 1), (1, 1, 1), (2, 2, 2), (1, 1, 1)]\n"
             "    int64[] invisibleIds = [1]\n"
             "    def Scope \"Protos\"\n    {\n"
             "        def Mesh \"A\"\n        {\n" TRI(0) "        }\n"
             "        def Xform \"B\"\n        {\n            double3 xformOp:translate = (0, 5, 0)\n"
             "            uniform token[] xformOpOrder = [\"xformOp:translate\"]\n"
             "            def Mesh \"G\"\n            {\n" TRI(1) "            }\n        }\n    }\n}\n");
    collect c;
    import_ok("pi/root.usda", 0, 0, &c, NULL);
    assert_int_equal(c.mesh_count, 2); /* the prototypes, not walked as prims of their own */
    assert_int_equal(c.inst_count, 3); /* id 1 invisible */
    expect_translation(&c.inst[0], 1, 0, 0);
    assert_int_equal(c.inst[0].mesh, 0);
    expect_translation(&c.inst[1], 3, 0, 0);
    /* 180 degrees about Y, scale 2: x axis to (-2, 0, 0). */
    assert_true(fabsf(c.inst[1].matrix[0] + 2.0f) < 1e-3f);
    expect_translation(&c.inst[2], 4, 5, 0); /* B's own translate inside the instance */
    assert_int_equal(c.inst[2].mesh, 1);
}

static void test_point_instancer_index_out_of_range(void **state)
{
    (void)state;
    put("pibad/root.usda", HEAD "def PointInstancer \"PI\"\n{\n    rel prototypes = [</PI/A>]\n"
                                "    int[] protoIndices = [0, 3]\n"
                                "    point3f[] positions = [(1, 0, 0), (2, 0, 0)]\n"
                                "    def Mesh \"A\"\n    {\n" TRI(0) "    }\n}\n");
    collect c;
    memset(&c, 0, sizeof c);
    usd_stage *s = NULL;
    pk_diag d;
    assert_int_equal(usd_stage_open(path_of("pibad/root.usda"), NULL, &s, &d), 0);
    usd_stage_sink sink = {on_mesh, on_instance, &c, NULL, NULL};
    assert_int_equal(usd_stage_import(s, &sink, &d), -1);
    char want[512];
    snprintf(want, sizeof want, "%s: </PI>: protoIndices[1]: index 3 out of range (1 prototypes)",
             path_of("pibad/root.usda"));
    assert_string_equal(d.message, want);
    usd_stage_close(s);
}

/* ---- refusals ---------------------------------------------------------------------- */

static void test_reference_cycle_is_refused(void **state)
{
    (void)state;
    put("cyc/a.usda", HEAD "(\n)\ndef \"A\" (\n    references = @b.usda@</B>\n)\n{\n}\n");
    put("cyc/a.usda", HEAD "def \"A\" (\n    references = @b.usda@</B>\n)\n{\n}\n");
    put("cyc/b.usda", "#usda 1.0\ndef \"B\" (\n    references = @a.usda@</A>\n)\n{\n}\n");
    expect_open_error("cyc/a.usda", 0, "@/cyc/b.usda: </A>: reference @a.usda@</A> forms a cycle");
    put("cyc/self.usda", HEAD "def \"S\" (\n    references = </S>\n)\n{\n}\n");
    expect_open_error("cyc/self.usda", 0, "@/cyc/self.usda: </S>: reference </S> forms a cycle");
    collect c;
    import_ok("cyc/self.usda", 1, 0, &c, NULL);
    assert_int_equal(warned.count, 1);
    char want[512];
    snprintf(want, sizeof want, "%s: </S>: reference </S> forms a cycle; arc skipped", path_of("cyc/self.usda"));
    assert_string_equal(warned.last, want);
}

static void test_missing_layer_is_refused_or_skipped(void **state)
{
    (void)state;
    put("miss/root.usda", HEAD "def \"A\" (\n    references = @nothere.usda@\n)\n{\n}\n"
                               "def Mesh \"M\"\n{\n" TRI(0) "}\n");
    expect_open_error("miss/root.usda", 0,
                      "@/miss/root.usda: </A>: reference @nothere.usda@: cannot open layer '@/miss/nothere.usda': No "
                      "such file or directory");
    collect c;
    import_ok("miss/root.usda", 1, 0, &c, NULL);
    assert_int_equal(c.inst_count, 1);
    assert_int_equal(warned.count, 1);
    put("miss/sub.usda", "#usda 1.0\n(\n    subLayers = [@gone.usda@]\n)\n");
    expect_open_error("miss/sub.usda", 0,
                      "@/miss/sub.usda: subLayers[0] 'gone.usda': cannot open layer '@/miss/gone.usda': No such file "
                      "or directory");
    put("miss/noprim.usda", HEAD "def \"A\" (\n    references = </Nope>\n)\n{\n}\n");
    expect_open_error("miss/noprim.usda", 0, "@/miss/noprim.usda: </A>: reference </Nope>: no such prim in "
                                             "@/miss/noprim.usda");
    put("miss/nodefault.usda", "#usda 1.0\ndef \"Z\"\n{\n}\n");
    put("miss/usesdefault.usda", HEAD "def \"A\" (\n    references = @nodefault.usda@\n)\n{\n}\n");
    expect_open_error("miss/usesdefault.usda", 0,
                      "@/miss/usesdefault.usda: </A>: reference @nodefault.usda@ names no prim and "
                      "@/miss/nodefault.usda has no defaultPrim");
}

static void test_layer_outside_the_root_folder_is_refused_unless_allowed(void **state)
{
    (void)state;
    put("out/elsewhere.usda", "#usda 1.0\n(\n    defaultPrim = \"E\"\n)\ndef Mesh \"E\"\n{\n" TRI(0) "}\n");
    put("out/in/root.usda", HEAD "def \"A\" (\n    references = @../elsewhere.usda@\n)\n{\n}\n");
    char want[2048];
    char real[512];
    assert_non_null(realpath(dir, real));
    snprintf(want, sizeof want,
             "%s: </A>: reference @../elsewhere.usda@: layer '%s' is outside the asset root %s/out/in "
             "(--asset-root DIR widens it; --allow-outside-paths reads any path)",
             path_of("out/in/root.usda"), path_of("out/elsewhere.usda"), real);
    usd_stage *s = NULL;
    pk_diag d;
    assert_int_equal(usd_stage_open(path_of("out/in/root.usda"), NULL, &s, &d), -1);
    assert_string_equal(d.message, want);
    collect c;
    import_ok("out/in/root.usda", 0, 1, &c, NULL);
    assert_int_equal(c.inst_count, 1);
    /* --asset-root the folder above: composed. */
    char out_dir[600];
    snprintf(out_dir, sizeof out_dir, "%s/out", real);
    usd_stage_options o = {0, 0, on_warn, &warned, out_dir, 0};
    assert_int_equal(usd_stage_open(path_of("out/in/root.usda"), &o, &s, &d), 0);
    usd_stage_close(s);
    /* The default root is the current directory when it holds the root
     * layer. */
    char cwd[512];
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(out_dir), 0);
    int rc = usd_stage_open("in/root.usda", NULL, &s, &d);
    assert_int_equal(chdir(cwd), 0);
    if (rc != 0) {
        fail_msg("from out/: %s", d.message);
    }
    usd_stage_close(s);
    /* An absolute asset path is refused even within the root. */
    char text[2048];
    snprintf(text, sizeof text, HEAD "def \"A\" (\n    references = @%s/out/elsewhere.usda@\n)\n{\n}\n", real);
    put("out/in/abs.usda", text);
    snprintf(want, sizeof want,
             "%s: </A>: reference @%s/out/elsewhere.usda@: layer '%s/out/elsewhere.usda' is an absolute path "
             "(--allow-outside-paths reads it)",
             path_of("out/in/abs.usda"), real, real);
    o.asset_root = "/";
    assert_int_equal(usd_stage_open(path_of("out/in/abs.usda"), &o, &s, &d), -1);
    assert_string_equal(d.message, want);
}

static void test_unsupported_schemas_are_refused_or_skipped(void **state)
{
    (void)state;
    static const char *const types[] = {"BasisCurves", "NurbsCurves", "HermiteCurves", "Points", "NurbsPatch",
                                        "TetMesh",     "Volume"};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        char text[512], want[512];
        snprintf(text, sizeof text, HEAD "def Xform \"W\"\n{\n    def %s \"G\"\n    {\n    }\n}\n"
                                         "def Mesh \"M\"\n{\n" TRI(0) "}\n",
                 types[i]);
        put("schema/root.usda", text);
        snprintf(want, sizeof want, "@/schema/root.usda: </W/G>: %s prims are not supported (--skip-unsupported skips them)",
                 types[i]);
        expect_open_error("schema/root.usda", 0, want);
        collect c;
        import_ok("schema/root.usda", 1, 0, &c, NULL);
        assert_int_equal(c.inst_count, 1);
        assert_int_equal(warned.count, 1);
        snprintf(want, sizeof want, "%s: </W/G>: %s prims are not supported; skipped", path_of("schema/root.usda"),
                 types[i]);
        assert_string_equal(warned.last, want);
    }
}

/* Layer relocates move prims in namespace: a stage that has them (in its
 * root layer or in a layer an arc opens) is refused, or packed as
 * authored with a warning under --skip-unsupported. */
static void test_layer_relocates_are_refused_or_skipped(void **state)
{
    (void)state;
    put("reloc/root.usda", "#usda 1.0\n(\n    relocates = { </W/A>: </W/B> }\n)\n"
                           "def Xform \"W\"\n{\n    def Mesh \"M\"\n    {\n" TRI(0) "    }\n}\n");
    expect_open_error("reloc/root.usda", 0,
                      "@/reloc/root.usda: layer relocates are not supported (1, the first </W/A> to </W/B>; "
                      "--skip-unsupported packs the prims where they are authored)");
    collect c;
    import_ok("reloc/root.usda", 1, 0, &c, NULL);
    assert_int_equal(c.inst_count, 1);
    assert_int_equal(warned.count, 1);
    char want[512];
    snprintf(want, sizeof want,
             "%s: 1 layer relocates ignored (the first </W/A> to </W/B>): the prims are packed where they are authored",
             path_of("reloc/root.usda"));
    assert_string_equal(warned.last, want);

    put("reloc/ref.usda", HEAD "def Xform \"R\" (\n    references = @./root.usda@</W>\n)\n{\n}\n");
    expect_open_error("reloc/ref.usda", 0,
                      "@/reloc/ref.usda: </R>: reference @./root.usda@: @/reloc/root.usda: layer relocates are not "
                      "supported (1, the first </W/A> to </W/B>; --skip-unsupported packs the prims where they are "
                      "authored)");
}

/* ---- composition as USD defines it ---------------------------------------------- */

/* An asset whose default prim R is moved by (X, 0, 0) and holds a Mesh M
 * whose first point has x = X. */
#define ASSET(X)                                                                                                       \
    "#usda 1.0\n(\n    defaultPrim = \"R\"\n)\ndef Xform \"R\"\n{\n    double3 xformOp:translate = (" #X ", 0, 0)\n"  \
    "    uniform token[] xformOpOrder = [\"xformOp:translate\"]\n    def Mesh \"M\"\n    {\n" TRI(X) "    }\n}\n"

/* One placement: where it is, and its mesh's first x. */
static void expect_one(const char *name, double x, float first)
{
    collect c;
    import_ok(name, 0, 0, &c, NULL);
    if (c.inst_count != 1 || c.mesh_count != 1) {
        fail_msg("%s: %u placements of %u meshes, want 1 of 1", name, c.inst_count, c.mesh_count);
    }
    expect_translation(&c.inst[0], x, 0, 0);
    if (c.meshes[0].first[0] != first) {
        fail_msg("%s: the mesh's first x is %g, want %g", name, (double)c.meshes[0].first[0], (double)first);
    }
}

/* List ops compose across the layer stack, weakest first: a stronger
 * layer's delete removes a weaker layer's reference, its explicit list
 * replaces it, and its prepended item goes first (the stronger reference). */
static void test_list_ops_compose_across_the_layer_stack(void **state)
{
    (void)state;
    put("lops/a.usda", ASSET(1));
    put("lops/b.usda", ASSET(2));
    put("lops/sub.usda", "#usda 1.0\ndef \"A\" (\n    prepend references = @a.usda@\n)\n{\n}\n");
    put("lops/keep.usda", "#usda 1.0\ndef Mesh \"K\"\n{\n" TRI(9) "}\n");
    /* delete: A references nothing; only K is placed. */
    put("lops/del.usda", "#usda 1.0\n(\n    metersPerUnit = 1\n    subLayers = [@sub.usda@, @keep.usda@]\n)\n"
                         "over \"A\" (\n    delete references = @a.usda@\n)\n{\n}\n");
    collect c;
    import_ok("lops/del.usda", 0, 0, &c, NULL);
    assert_int_equal(c.inst_count, 1);
    assert_string_equal(c.meshes[0].name, "K");
    /* explicit: b only. */
    put("lops/exp.usda", "#usda 1.0\n(\n    metersPerUnit = 1\n    subLayers = [@sub.usda@]\n)\n"
                         "over \"A\" (\n    references = @b.usda@\n)\n{\n}\n");
    expect_one("lops/exp.usda", 2, 2.0f);
    /* prepend over prepend: [b, a], b the stronger. */
    put("lops/pre.usda", "#usda 1.0\n(\n    metersPerUnit = 1\n    subLayers = [@sub.usda@]\n)\n"
                         "over \"A\" (\n    prepend references = @b.usda@\n)\n{\n}\n");
    expect_one("lops/pre.usda", 2, 2.0f);
    /* append in the stronger layer: [a, b], a the stronger. */
    put("lops/app.usda", "#usda 1.0\n(\n    metersPerUnit = 1\n    subLayers = [@sub.usda@]\n)\n"
                         "over \"A\" (\n    append references = @b.usda@\n)\n{\n}\n");
    expect_one("lops/app.usda", 1, 1.0f);
}

/* LIVRPS: a local opinion in any layer of the stack (here the weaker
 * sublayer) beats a reference; an inherit beats a reference. */
static void test_livrps_local_then_inherits_then_references(void **state)
{
    (void)state;
    put("livrps/a.usda", ASSET(1));
    put("livrps/sub.usda", "#usda 1.0\nover \"A\"\n{\n    double3 xformOp:translate = (5, 0, 0)\n}\n");
    put("livrps/local.usda", "#usda 1.0\n(\n    metersPerUnit = 1\n    subLayers = [@sub.usda@]\n)\n"
                             "def \"A\" (\n    references = @a.usda@\n)\n{\n}\n");
    expect_one("livrps/local.usda", 5, 1.0f);
    put("livrps/inh.usda", HEAD "class \"_C\"\n{\n    double3 xformOp:translate = (7, 0, 0)\n}\n"
                           "def \"A\" (\n    inherits = </_C>\n    references = @a.usda@\n)\n{\n}\n");
    expect_one("livrps/inh.usda", 7, 1.0f);
}

/* Between two arcs of one type, the one authored on the deeper prim is the
 * stronger: C's own reference beats the one its parent A brings. */
static void test_a_prims_own_arc_beats_its_ancestors(void **state)
{
    (void)state;
    put("anc/x.usda", "#usda 1.0\n(\n    defaultPrim = \"X\"\n)\ndef Xform \"X\"\n{\n    def Xform \"C\"\n    {\n"
                      "        double3 xformOp:translate = (1, 0, 0)\n"
                      "        uniform token[] xformOpOrder = [\"xformOp:translate\"]\n    }\n}\n");
    put("anc/y.usda", ASSET(2));
    put("anc/root.usda", HEAD "def \"A\" (\n    references = @x.usda@\n)\n{\n"
                         "    over \"C\" (\n        references = @y.usda@\n    )\n    {\n    }\n}\n");
    expect_one("anc/root.usda", 2, 2.0f);
}

/* A variant selection authored in a stronger layer, or on the prim that
 * references the asset, beats the asset's own. */
static void test_variant_selections_from_stronger_layers_and_references(void **state)
{
    (void)state;
#define VSET                                                                                                           \
    "    variantSet \"v\" = {\n"                                                                                      \
    "        \"one\" {\n            double3 xformOp:translate = (1, 0, 0)\n        }\n"                                \
    "        \"two\" {\n            double3 xformOp:translate = (2, 0, 0)\n        }\n    }\n"                         \
    "    uniform token[] xformOpOrder = [\"xformOp:translate\"]\n"                                                    \
    "    def Mesh \"M\"\n    {\n" TRI(0) "    }\n"
    put("var/sub.usda", "#usda 1.0\ndef Xform \"A\" (\n    variants = {\n        string v = \"one\"\n    }\n"
                        "    prepend variantSets = \"v\"\n)\n{\n" VSET "}\n");
    put("var/root.usda", "#usda 1.0\n(\n    metersPerUnit = 1\n    subLayers = [@sub.usda@]\n)\n"
                         "over \"A\" (\n    variants = {\n        string v = \"two\"\n    }\n)\n{\n}\n");
    expect_one("var/root.usda", 2, 0.0f);
    put("var/asset.usda", "#usda 1.0\n(\n    defaultPrim = \"A\"\n)\n"
                          "def Xform \"A\" (\n    variants = {\n        string v = \"one\"\n    }\n"
                          "    prepend variantSets = \"v\"\n)\n{\n" VSET "}\n");
    put("var/ref.usda", HEAD "def \"B\" (\n    references = @asset.usda@\n"
                        "    variants = {\n        string v = \"two\"\n    }\n)\n{\n}\n");
    expect_one("var/ref.usda", 2, 0.0f);
    put("var/plain.usda", HEAD "def \"B\" (\n    references = @asset.usda@\n)\n{\n}\n");
    expect_one("var/plain.usda", 1, 0.0f);
#undef VSET
}

/* An over is a prim only where composition defines it: through a
 * reference, or a def in a weaker sublayer; an over alone is nothing. */
static void test_overs_defined_through_composition(void **state)
{
    (void)state;
    put("over/a.usda", ASSET(3));
    put("over/ref.usda", HEAD "over \"A\" (\n    references = @a.usda@\n)\n{\n}\n"
                         "over \"Nothing\"\n{\n    def Mesh \"M\"\n    {\n" TRI(4) "    }\n}\n");
    expect_one("over/ref.usda", 3, 3.0f);
    put("over/sub.usda", "#usda 1.0\ndef Mesh \"S\"\n{\n" TRI(6) "}\n");
    put("over/stack.usda", "#usda 1.0\n(\n    metersPerUnit = 1\n    subLayers = [@sub.usda@]\n)\n"
                           "over \"S\"\n{\n    double3 xformOp:translate = (8, 0, 0)\n"
                           "    uniform token[] xformOpOrder = [\"xformOp:translate\"]\n}\n");
    expect_one("over/stack.usda", 8, 6.0f);
}

static void test_skel_root_meshes_import_with_a_warning(void **state)
{
    (void)state;
    put("skel/root.usda", HEAD "def SkelRoot \"R\"\n{\n    def Skeleton \"Skel\"\n    {\n    }\n"
                               "    def Mesh \"Body\"\n    {\n" TRI(0) "    }\n}\n");
    collect c;
    import_ok("skel/root.usda", 0, 0, &c, NULL);
    assert_int_equal(c.inst_count, 1);
    assert_int_equal(warned.count, 1);
    char want[512];
    snprintf(want, sizeof want,
             "%s: </R>: skinning is ignored: the meshes under this SkelRoot are packed in their rest pose",
             path_of("skel/root.usda"));
    assert_string_equal(warned.last, want);
}

static void test_subdivision_packs_the_cage_with_one_warning(void **state)
{
    (void)state;
    put("subd/root.usda", HEAD "def Mesh \"M\"\n{\n" TRI(0) "    uniform token subdivisionScheme = \"catmullClark\"\n}\n"
                               "def Mesh \"N\"\n{\n" TRI(0) "    uniform token subdivisionScheme = \"none\"\n}\n");
    collect c;
    import_ok("subd/root.usda", 0, 0, &c, NULL);
    assert_int_equal(c.inst_count, 2);
    assert_int_equal(warned.count, 1);
    char want[512];
    snprintf(want, sizeof want, "%s: </M>: subdivisionScheme 'catmullClark' is not applied: the control cage is packed",
             path_of("subd/root.usda"));
    assert_string_equal(warned.last, want);
}

/* ---- traversal -------------------------------------------------------------------- */

static void test_xforms_concatenate_and_reset(void **state)
{
    (void)state;
    put("xf/root.usda", HEAD "def Xform \"A\"\n{\n    double3 xformOp:translate = (1, 0, 0)\n"
                             "    float3 xformOp:scale = (2, 2, 2)\n"
                             "    uniform token[] xformOpOrder = [\"xformOp:translate\", \"xformOp:scale\"]\n"
                             "    def Xform \"B\"\n    {\n        double3 xformOp:translate = (0, 1, 0)\n"
                             "        uniform token[] xformOpOrder = [\"xformOp:translate\"]\n"
                             "        def Mesh \"M\"\n        {\n" TRI(0) "        }\n"
                             "        def Mesh \"R\"\n        {\n" TRI(0)
                             "            double3 xformOp:translate = (0, 0, 3)\n"
                             "            uniform token[] xformOpOrder = [\"!resetXformStack!\", \"xformOp:translate\"]\n"
                             "        }\n    }\n}\n");
    collect c;
    import_ok("xf/root.usda", 0, 0, &c, NULL);
    assert_int_equal(c.inst_count, 2);
    expect_translation(&c.inst[0], 1, 2, 0); /* T(1,0,0) S(2) T(0,1,0) */
    assert_true(fabsf(c.inst[0].matrix[0] - 2.0f) < 1e-6f);
    expect_translation(&c.inst[1], 0, 0, 3); /* the parent's transform dropped */
    assert_true(fabsf(c.inst[1].matrix[0] - 1.0f) < 1e-6f);
}

static void test_up_axis_z_and_centimetres(void **state)
{
    (void)state;
    put("units/root.usda", "#usda 1.0\n(\n    upAxis = \"Z\"\n    metersPerUnit = 0.01\n)\n"
                           "def Mesh \"M\"\n{\n" TRI(0) "    double3 xformOp:translate = (0, 0, 100)\n"
                           "    uniform token[] xformOpOrder = [\"xformOp:translate\"]\n}\n");
    put("units/default.usda", "#usda 1.0\ndef Mesh \"M\"\n{\n" TRI(0) "    double3 xformOp:translate = (100, 0, 0)\n"
                              "    uniform token[] xformOpOrder = [\"xformOp:translate\"]\n}\n");
    collect c;
    import_ok("units/root.usda", 0, 0, &c, NULL);
    expect_translation(&c.inst[0], 0, 1, 0); /* Z up 100 cm: Y up 1 m */
    import_ok("units/default.usda", 0, 0, &c, NULL);
    expect_translation(&c.inst[0], 1, 0, 0); /* USD's fallback: centimetres */
}

static void test_invisible_inactive_proxy_and_guide_are_skipped(void **state)
{
    (void)state;
    put("vis/root.usda", HEAD "def Xform \"Hidden\"\n{\n    token visibility = \"invisible\"\n"
                              "    def Mesh \"M\"\n    {\n" TRI(0) "    }\n}\n"
                              "def Xform \"Off\" (\n    active = false\n)\n{\n    def Mesh \"M\"\n    {\n" TRI(0)
                              "    }\n}\n"
                              "def Mesh \"Proxy\"\n{\n" TRI(0) "    uniform token purpose = \"proxy\"\n}\n"
                              "def Mesh \"Guide\"\n{\n" TRI(0) "    uniform token purpose = \"guide\"\n}\n"
                              "def Mesh \"Render\"\n{\n" TRI(0) "    uniform token purpose = \"render\"\n}\n"
                              "over \"OverOnly\"\n{\n    def Mesh \"M\"\n    {\n" TRI(0) "    }\n}\n"
                              "def Xform \"Shown\"\n{\n    token visibility = \"inherited\"\n"
                              "    def Mesh \"M\"\n    {\n" TRI(0) "    }\n}\n");
    collect c;
    import_ok("vis/root.usda", 0, 0, &c, NULL);
    assert_int_equal(c.inst_count, 2);
    assert_string_equal(c.inst[0].name, "Render");
    assert_string_equal(c.inst[1].name, "M");
}

static void test_output_checks_see_every_layer(void **state)
{
    (void)state;
    put("files/a.usda", "#usda 1.0\n(\n    defaultPrim = \"A\"\n)\ndef Mesh \"A\"\n{\n" TRI(0) "}\n");
    put("files/root.usda", HEAD "def \"X\" (\n    references = @a.usda@\n)\n{\n}\n");
    usd_stage *s = NULL;
    pk_diag d;
    assert_int_equal(usd_stage_open(path_of("files/root.usda"), NULL, &s, &d), 0);
    assert_int_equal(usd_stage_layer_count(s), 2);
    char real[512];
    assert_non_null(realpath(path_of("files/a.usda"), real));
    assert_string_equal(usd_stage_layer_file(s, 1), path_of("files/a.usda"));
    assert_int_equal(usd_stage_mesh_count(s), 1);
    usd_stage_close(s);
}

/* usd_stage_import fails with exactly want ("@/" the folder). */
static void expect_import_error(const char *name, const char *want)
{
    collect c;
    memset(&c, 0, sizeof c);
    usd_stage *s = NULL;
    pk_diag d;
    memset(&d, 0, sizeof d);
    if (usd_stage_open(path_of(name), NULL, &s, &d) != 0) {
        fail_msg("open %s: %s", name, d.message);
    }
    usd_stage_sink sink = {on_mesh, on_instance, &c, NULL, NULL};
    int rc = usd_stage_import(s, &sink, &d);
    usd_stage_close(s);
    char full[1024];
    size_t k = 0;
    for (const char *p = want; *p != '\0' && k + 64 < sizeof full; p++) {
        if (*p == '@' && p[1] == '/') {
            k += (size_t)snprintf(full + k, sizeof full - k, "%s", dir);
        } else {
            full[k++] = *p;
        }
    }
    full[k] = '\0';
    assert_int_equal(rc, -1);
    if (strcmp(d.message, full) != 0) {
        fail_msg("got  \"%s\"\nwant \"%s\"", d.message, full);
    }
}

static void test_bad_stages_are_refused_with_their_reason(void **state)
{
    (void)state;
    put("bad/cyc_a.usda", "#usda 1.0\n(\n    subLayers = [@cyc_b.usda@]\n)\n");
    put("bad/cyc_b.usda", "#usda 1.0\n(\n    subLayers = [@cyc_a.usda@]\n)\n");
    expect_open_error("bad/cyc_a.usda", 0,
                      "@/bad/cyc_a.usda: subLayers[0] 'cyc_b.usda': @/bad/cyc_b.usda: subLayers[0] 'cyc_a.usda': "
                      "@/bad/cyc_a.usda: subLayers form a cycle");
    put("bad/up.usda", "#usda 1.0\n(\n    upAxis = \"X\"\n)\n");
    expect_open_error("bad/up.usda", 0, "@/bad/up.usda: upAxis 'X' is neither Y nor Z");
    /* An internal reference to an ancestor makes namespace without end. */
    put("bad/deep.usda", HEAD "def \"A\"\n{\n    def \"C\" (\n        references = </A>\n    )\n    {\n    }\n}\n");
    char want[512];
    char deep[256] = "/A";
    for (int i = 0; i < 79; i++) {
        strcat(deep, "/C"); /* 160 bytes of it */
    }
    snprintf(want, sizeof want, "@/bad/deep.usda: <%.160s...>: namespace deeper than 256 prims", deep);
    expect_open_error("bad/deep.usda", 0, want);
    /* A chain of 70 internal references, each to the next. */
    char text[16384];
    int n = snprintf(text, sizeof text, HEAD);
    for (int i = 0; i < 70; i++) {
        n += snprintf(text + n, sizeof text - (size_t)n, "def \"P%d\" (\n    references = </P%d>\n)\n{\n}\n", i, i + 1);
    }
    n += snprintf(text + n, sizeof text - (size_t)n, "def \"P70\"\n{\n}\n");
    put("bad/chain.usda", text);
    expect_open_error("bad/chain.usda", 0, "@/bad/chain.usda: </P0>: arcs nested deeper than 64");
    put("bad/pi_target.usda", HEAD "def PointInstancer \"PI\"\n{\n    rel prototypes = [</Nope>]\n}\n");
    expect_open_error("bad/pi_target.usda", 0, "@/bad/pi_target.usda: </PI>: prototypes[0] </Nope>: no such prim");
    /* A prototype that holds its instancer: itself, an ancestor, or through a
     * second instancer. Each would instance itself without end. */
    put("bad/pi_self.usda", HEAD "def PointInstancer \"PI\"\n{\n    rel prototypes = [</PI>]\n}\n");
    expect_open_error("bad/pi_self.usda", 0,
                      "@/bad/pi_self.usda: </PI>: prototypes[0] </PI>: the prototype holds this instancer");
    put("bad/pi_up.usda", HEAD "def Xform \"A\"\n{\n    def PointInstancer \"PI\"\n    {\n"
                              "        rel prototypes = [<..>]\n    }\n}\n");
    expect_open_error("bad/pi_up.usda", 0, "@/bad/pi_up.usda: </A/PI>: prototypes[0] <..> (</A>): the prototype holds this instancer");
    put("bad/pi_two.usda", HEAD "def Xform \"P\"\n{\n    def PointInstancer \"I\"\n    {\n"
                               "        rel prototypes = [</Q>]\n    }\n}\n"
                               "def Xform \"Q\"\n{\n    def PointInstancer \"J\"\n    {\n"
                               "        rel prototypes = [</P>]\n    }\n}\n");
    expect_open_error("bad/pi_two.usda", 0, "@/bad/pi_two.usda: </Q/J>: prototypes[0] </P>: the prototype holds this instancer");
    /* 300 instancers, each the prototype of the one before: deeper than the
     * namespace limit allows, refused in a bounded stack. */
    static char chain[32768];
    n = snprintf(chain, sizeof chain, HEAD);
    for (int i = 0; i < 300; i++) {
        n += snprintf(chain + n, sizeof chain - (size_t)n, "def PointInstancer \"I%d\"\n{\n    rel prototypes = [</I%d>]\n}\n",
                      i, i + 1);
    }
    assert_true(n < (int)sizeof chain);
    put("bad/pi_chain.usda", chain);
    expect_open_error("bad/pi_chain.usda", 0, "@/bad/pi_chain.usda: </I254>: prototypes[0] </I255>: prototypes nested deeper than 256 prims");
}

static void test_bad_geometry_is_refused_at_import(void **state)
{
    (void)state;
    put("geo/badindex.usda", HEAD "def Mesh \"M\"\n{\n    int[] faceVertexCounts = [3]\n"
                                  "    int[] faceVertexIndices = [0, 1, 3]\n"
                                  "    point3f[] points = [(0, 0, 0), (1, 0, 0), (0, 1, 0)]\n}\n");
    expect_import_error("geo/badindex.usda",
                        "@/geo/badindex.usda: </M>: faceVertexIndices[2] (face 0): index 3 out of range (3 points)");
    put("geo/badpoints.usda", HEAD "def Mesh \"M\"\n{\n    int[] faceVertexCounts = [3]\n"
                                   "    int[] faceVertexIndices = [0, 1, 2]\n    int[] points = [0, 1, 2]\n}\n");
    expect_import_error("geo/badpoints.usda", "@/geo/badpoints.usda: </M>: points: 1 components per element, expected 3");
    put("geo/noop.usda", HEAD "def Mesh \"M\"\n{\n" TRI(0) "    uniform token[] xformOpOrder = [\"xformOp:translate\"]\n}\n");
    expect_open_error("geo/noop.usda", 0,
                      "@/geo/noop.usda: </M>: xformOpOrder[0] names xformOp:translate, which has no value");
    put("geo/pipos.usda", HEAD "def PointInstancer \"PI\"\n{\n    rel prototypes = [</PI/A>]\n"
                              "    int[] protoIndices = [0]\n    def Mesh \"A\"\n    {\n" TRI(0) "    }\n}\n");
    expect_import_error("geo/pipos.usda", "@/geo/pipos.usda: </PI>: PointInstancer has protoIndices but no positions");
    put("geo/picount.usda", HEAD "def PointInstancer \"PI\"\n{\n    rel prototypes = [</PI/A>]\n"
                                "    int[] protoIndices = [0, 0]\n    point3f[] positions = [(0, 0, 0)]\n"
                                "    def Mesh \"A\"\n    {\n" TRI(0) "    }\n}\n");
    expect_import_error("geo/picount.usda", "@/geo/picount.usda: </PI>: 2 protoIndices but 1 positions and 0 scales");
    put("geo/piorient.usda", HEAD "def PointInstancer \"PI\"\n{\n    rel prototypes = [</PI/A>]\n"
                                 "    int[] protoIndices = [0, 0]\n    point3f[] positions = [(0, 0, 0), (1, 0, 0)]\n"
                                 "    quath[] orientations = [(1, 0, 0, 0)]\n"
                                 "    def Mesh \"A\"\n    {\n" TRI(0) "    }\n}\n");
    expect_import_error("geo/piorient.usda", "@/geo/piorient.usda: </PI>: orientations: 1 elements of 4, expected 2 of 4");
    /* A relative prototype path that climbs above the root, or names no prim. */
    put("geo/pirel.usda", HEAD "def PointInstancer \"PI\"\n{\n    rel prototypes = [<../../..>]\n"
                              "    int[] protoIndices = [0]\n    point3f[] positions = [(0, 0, 0)]\n}\n");
    expect_open_error("geo/pirel.usda", 0, "@/geo/pirel.usda: </PI>: prototypes[0] <../../..>: not a prim path from </PI>");
    put("geo/pinope.usda", HEAD "def PointInstancer \"PI\"\n{\n    rel prototypes = [<Nope>]\n"
                               "    int[] protoIndices = [0]\n    point3f[] positions = [(0, 0, 0)]\n}\n");
    expect_open_error("geo/pinope.usda", 0, "@/geo/pinope.usda: </PI>: prototypes[0] <Nope> (</PI/Nope>): no such prim");
    /* Every face a hole: a warning, and the mesh is left out. */
    put("geo/holes.usda", HEAD "def Mesh \"M\"\n{\n" TRI(0) "    int[] holeIndices = [0]\n}\n"
                              "def Mesh \"N\"\n{\n" TRI(0) "}\n");
    collect c;
    import_ok("geo/holes.usda", 0, 0, &c, NULL);
    assert_int_equal(c.inst_count, 1);
    assert_string_equal(c.inst[0].name, "N");
    char want[512];
    snprintf(want, sizeof want, "%s: </M>: Mesh has no triangles; left out", path_of("geo/holes.usda"));
    assert_string_equal(warned.last, want);
}

/* Where USD composes and reads on, so does the importer: each of these is
 * a warning naming the prim and the reason, and the rest of the stage packs
 * (without --skip-unsupported). */
static void test_tolerant_where_usd_is_tolerant(void **state)
{
    (void)state;
    collect c;
    char want[2048];
    /* An empty or incomplete Mesh: a placeholder, left out. */
    put("tol/empty.usda", HEAD "def Mesh \"Empty\"\n{\n}\n"
                              "def Mesh \"NoPoints\"\n{\n    point3f[] points = []\n"
                              "    int[] faceVertexCounts = [3]\n    int[] faceVertexIndices = [0, 1, 2]\n}\n"
                              "def Mesh \"NoFaces\"\n{\n    point3f[] points = [(0, 0, 0)]\n}\n"
                              "def Mesh \"N\"\n{\n" TRI(0) "}\n");
    import_ok("tol/empty.usda", 0, 0, &c, NULL);
    assert_int_equal(c.inst_count, 1);
    assert_string_equal(c.inst[0].name, "N");
    const char *f = path_of("tol/empty.usda");
    snprintf(want, sizeof want,
             "%s: </Empty>: Mesh has no points; left out\n%s: </NoPoints>: Mesh has no points; left out\n"
             "%s: </NoFaces>: Mesh has no faceVertexCounts; left out\n",
             f, f, f);
    assert_string_equal(warned.all, want);

    /* Optional attributes of the wrong type: read as unauthored. */
    put("tol/types.usda", HEAD "def Mesh \"M\"\n{\n" TRI(0) "    int normals = 3\n    float[] holeIndices = [0]\n"
                              "    int orientation = 1\n    string[] primvars:st = [\"a\", \"b\", \"c\"]\n}\n");
    import_ok("tol/types.usda", 0, 0, &c, NULL);
    assert_int_equal(c.inst_count, 1);
    assert_int_equal(c.meshes[0].indices, 3); /* holeIndices ignored: the face stays */
    f = path_of("tol/types.usda");
    snprintf(want, sizeof want,
             "%s: </M>: holeIndices: type 'float[]', not int[]; ignored\n"
             "%s: </M>: orientation: type 'int', not token; ignored\n"
             "%s: </M>: normals: type 'int', not an array of 3 numbers an element (normal3f[]); ignored\n",
             f, f, f);
    assert_string_equal(warned.all, want);

    /* A class that is not there, a MaterialX document and an image
     * referenced: composed without them. */
    put("tol/arcs.usda", HEAD "def Mesh \"M\" (\n    inherits = </NoSuchClass>\n    specializes = </NoBase>\n"
                             "    references = @./look.mtlx@</Materials/M>\n    payload = @tex/wood.png@\n)\n{\n" TRI(2)
                             "}\n");
    import_ok("tol/arcs.usda", 0, 0, &c, NULL);
    assert_int_equal(c.inst_count, 1);
    assert_float_equal(c.meshes[0].first[0], 2.0f, 0.0f);
    f = path_of("tol/arcs.usda");
    snprintf(want, sizeof want,
             "%s: </M>: inherits </NoSuchClass>: no such prim in %s; ignored\n"
             "%s: </M>: reference @./look.mtlx@: not a USD layer (not .usd, .usda, .usdc or .usdz); arc skipped\n"
             "%s: </M>: payload @tex/wood.png@: not a USD layer (not .usd, .usda, .usdc or .usdz); arc skipped\n"
             "%s: </M>: specializes </NoBase>: no such prim in %s; ignored\n",
             f, f, f, f, f, f);
    assert_string_equal(warned.all, want);

    /* Relative relationship targets, anchored at the prim that owns them. */
    put("tol/rel.usda", HEAD "def Xform \"W\"\n{\n    def PointInstancer \"PI\"\n    {\n"
                            "        rel prototypes = [<Protos/A>, <../Src>, <./Protos/../Protos/A>]\n"
                            "        int[] protoIndices = [1, 0, 2]\n"
                            "        point3f[] positions = [(0, 0, 0), (10, 0, 0), (20, 0, 0)]\n"
                            "        def Scope \"Protos\"\n        {\n            def Mesh \"A\"\n            {\n" TRI(5)
                            "            }\n        }\n    }\n    def Mesh \"Src\"\n    {\n" TRI(7) "    }\n}\n");
    import_ok("tol/rel.usda", 0, 0, &c, NULL);
    assert_int_equal(warned.count, 0);
    uint32_t from_src = 0, from_a = 0;
    for (uint32_t i = 0; i < c.inst_count; i++) {
        float x0 = c.meshes[c.inst[i].mesh].first[0];
        from_src += x0 == 7.0f;
        from_a += x0 == 5.0f;
    }
    assert_int_equal(from_src, 2); /* Src itself and protoIndices[0] */
    assert_true(from_a >= 2);      /* protoIndices[1] and [2] */

    /* Legacy type names Sdf still reads. */
    put("tol/legacy.usda", HEAD "def Mesh \"M\"\n{\n    int[] faceVertexCounts = [3]\n"
                               "    int[] faceVertexIndices = [0, 1, 2]\n"
                               "    PointFloat[] points = [(3, 0, 0), (1, 0, 0), (0, 1, 0)]\n"
                               "    Vec3f[] normals = [(0, 0, 1), (0, 0, 1), (0, 0, 1)]\n"
                               "    Vec2f[] primvars:st = [(0, 0), (1, 0), (0, 1)] (\n        interpolation = \"vertex\"\n    )\n"
                               "    Matrix4d xformOp:transform = ((1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 1, 0), (0, 0, 4, 1))\n"
                               "    uniform token[] xformOpOrder = [\"xformOp:transform\"]\n}\n");
    import_ok("tol/legacy.usda", 0, 0, &c, NULL);
    assert_int_equal(warned.count, 0);
    assert_int_equal(c.inst_count, 1);
    assert_float_equal(c.meshes[0].first[0], 3.0f, 0.0f);
    assert_float_equal(c.inst[0].matrix[14], 4.0f, 0.0f);
}

static void test_path_anchor(void **state)
{
    (void)state;
    char out[64];
    assert_int_equal(usd_path_anchor("/W/PI", "Protos/A", out, sizeof out), 14);
    assert_string_equal(out, "/W/PI/Protos/A");
    assert_int_equal(usd_path_anchor("/W/PI", "../Src", out, sizeof out), 6);
    assert_string_equal(out, "/W/Src");
    assert_int_equal(usd_path_anchor("/W/PI", "./A/../B", out, sizeof out), 7);
    assert_string_equal(out, "/W/PI/B");
    assert_int_equal(usd_path_anchor("/W", "../..", out, sizeof out), 0); /* above the root */
    assert_int_equal(usd_path_anchor("/W", "..", out, sizeof out), 1);
    assert_string_equal(out, "/");
    assert_int_equal(usd_path_anchor("/W/PI", "/Abs/B", out, sizeof out), 6);
    assert_string_equal(out, "/Abs/B");
    assert_int_equal(usd_path_anchor("/W/PI", "", out, sizeof out), 0);
    assert_int_equal(usd_path_anchor("/W/PI", "ABCDEFGH", out, 12), 0); /* does not fit */
    assert_int_equal(usd_is_layer_asset("./a.usda"), 1);
    assert_int_equal(usd_is_layer_asset("B.USDZ"), 1);
    assert_int_equal(usd_is_layer_asset("pkg.usdz[geo/x.usdc]"), 1);
    assert_int_equal(usd_is_layer_asset("pkg.usdz[tex/x.png]"), 0);
    assert_int_equal(usd_is_layer_asset("./look.mtlx"), 0);
    assert_int_equal(usd_is_layer_asset("dir.usd/noext"), 0);
    assert_int_equal(usd_is_layer_asset("a.usdx"), 0);
}

/* ---- implicit shapes -------------------------------------------------------------- */

static void expect_box(const got_mesh *g, double x0, double y0, double z0, double x1, double y1, double z1)
{
    const double lo[3] = {x0, y0, z0}, hi[3] = {x1, y1, z1};
    for (int k = 0; k < 3; k++) {
        if (fabs(g->lo[k] - lo[k]) > 1e-5 || fabs(g->hi[k] - hi[k]) > 1e-5) {
            fail_msg("mesh '%s': bounds[%d] [%g, %g], want [%g, %g]", g->name, k, (double)g->lo[k], (double)g->hi[k],
                     lo[k], hi[k]);
        }
    }
}

static void test_implicit_shapes_import_as_meshes(void **state)
{
    (void)state;
    put("shapes/all.usda", HEAD "def Xform \"W\"\n{\n"
                                "    def Cube \"Cube\"\n    {\n        double size = 3\n    }\n"
                                "    def Sphere \"Sphere\"\n    {\n        double radius.timeSamples = {\n"
                                "            4: 9,\n            2: 0.5,\n        }\n    }\n"
                                "    def Cylinder \"Cylinder\"\n    {\n        uniform token axis = \"X\"\n    }\n"
                                "    def Cylinder_1 \"Cylinder_1\"\n    {\n        double radius = 7\n"
                                "        double radiusTop = 0.5\n        double radiusBottom = 1.5\n"
                                "        double height = 4\n        uniform token axis = \"Y\"\n    }\n"
                                "    def Cone \"Cone\"\n    {\n        double height = 1\n    }\n"
                                "    def Capsule \"Capsule\"\n    {\n    }\n"
                                "    def Capsule_1 \"Capsule_1\"\n    {\n        double radiusTop = 0.25\n"
                                "        double radiusBottom = 0.25\n        double height = 2\n    }\n"
                                "    def Plane \"Plane\"\n    {\n        double width = 4\n        uniform token axis = \"Y\"\n"
                                "        uniform bool doubleSided = 0\n    }\n"
                                "}\n");
    collect c;
    usd_stage_stats st;
    import_ok("shapes/all.usda", 0, 0, &c, &st);
    assert_int_equal(warned.count, 0);
    assert_int_equal(c.mesh_count, 8);
    assert_int_equal(c.inst_count, 8);
    assert_int_equal(st.meshes, 8);
    static const char *const names[] = {"Cube", "Sphere", "Cylinder", "Cylinder_1",
                                        "Cone", "Capsule", "Capsule_1", "Plane"};
    static const uint32_t vertices[] = {24, 559, 132, 132, 98, 592, 592, 4};
    static const uint32_t triangles[] = {12, 960, 128, 128, 64, 1024, 1024, 2};
    for (uint32_t i = 0; i < 8; i++) {
        assert_string_equal(c.meshes[i].name, names[i]);
        assert_string_equal(c.inst[i].name, names[i]);
        assert_int_equal(c.meshes[i].vertices, vertices[i]);
        assert_int_equal(c.meshes[i].indices, triangles[i] * 3);
    }
    expect_box(&c.meshes[0], -1.5, -1.5, -1.5, 1.5, 1.5, 1.5);
    expect_box(&c.meshes[1], -0.5, -0.5, -0.5, 0.5, 0.5, 0.5); /* the earliest sample, as for a Mesh's points */
    expect_box(&c.meshes[2], -1, -1, -1, 1, 1, 1);
    expect_box(&c.meshes[3], -1.5, -2, -1.5, 1.5, 2, 1.5); /* radiusTop/radiusBottom win over radius */
    expect_box(&c.meshes[4], -1, -1, -0.5, 1, 1, 0.5);
    expect_box(&c.meshes[5], -0.5, -0.5, -1, 0.5, 0.5, 1);
    expect_box(&c.meshes[6], -0.25, -0.25, -1.25, 0.25, 0.25, 1.25);
    expect_box(&c.meshes[7], -2, 0, -1, 2, 0, 1); /* axis Y: width along X, length along Z */
}

static void test_bad_shape_values_are_refused_or_skipped(void **state)
{
    (void)state;
    static const struct {
        const char *type, *body, *why;
    } bad[] = {
        {"Sphere", "double radius = -1", "radius: -1 makes no shape (a finite number above 0 is needed)"},
        {"Cube", "double size = 0", "size: 0 makes no shape (a finite number above 0 is needed)"},
        {"Cube", "double size = nan", "size: nan makes no shape (a finite number above 0 is needed)"},
        {"Cylinder", "double height = inf", "height: inf makes no shape (a finite number above 0 is needed)"},
        {"Cylinder_1", "double radiusBottom = -2", "radiusBottom: -2 makes no shape (a finite number above 0 is needed)"},
        {"Cone", "uniform token axis = \"W\"", "axis: 'W' is not X, Y or Z"},
        {"Capsule", "double height = -1", "height: -1 makes no shape (a finite number at or above 0 is needed)"},
        {"Capsule_1", "double radiusTop = 2",
         "radiusTop 2 and radiusBottom 0.5 differ by 1.5, not less than height 1: no side is tangent to both caps"},
        {"Plane", "double width = -3", "width: -3 makes no shape (a finite number above 0 is needed)"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[512], want[512];
        snprintf(text, sizeof text, HEAD "def Xform \"W\"\n{\n    def %s \"S\"\n    {\n        %s\n    }\n}\n"
                                         "def Mesh \"M\"\n{\n" TRI(0) "}\n",
                 bad[i].type, bad[i].body);
        put("shapes/bad.usda", text);
        snprintf(want, sizeof want, "@/shapes/bad.usda: </W/S>: %s", bad[i].why);
        expect_open_error("shapes/bad.usda", 0, want);
        collect c;
        import_ok("shapes/bad.usda", 1, 0, &c, NULL);
        assert_int_equal(c.inst_count, 1);
        assert_string_equal(c.inst[0].name, "M");
        assert_int_equal(warned.count, 1);
        snprintf(want, sizeof want, "%s: </W/S>: %s; skipped", path_of("shapes/bad.usda"), bad[i].why);
        assert_string_equal(warned.last, want);
    }
}

static int pack_mesh(void *user, const pk_mesh *m, uint32_t *object, pk_diag *d)
{
    return pk_builder_add_mesh(user, m, object, d);
}

static int pack_instance(void *user, const pk_instance *inst, pk_diag *d)
{
    return pk_builder_add_instance(user, inst, d);
}

static void test_cube_under_a_transformed_xform_packs_with_its_bounds(void **state)
{
    (void)state;
    put("shapes/xf.usda", HEAD "def Xform \"W\"\n{\n    double3 xformOp:translate = (10, 0, 0)\n"
                               "    float3 xformOp:scale = (2, 2, 2)\n"
                               "    uniform token[] xformOpOrder = [\"xformOp:translate\", \"xformOp:scale\"]\n"
                               "    def Cube \"C\"\n    {\n        double size = 3\n"
                               "        double3 xformOp:translate = (0, 1, 0)\n"
                               "        uniform token[] xformOpOrder = [\"xformOp:translate\"]\n    }\n}\n");
    usd_stage *s = NULL;
    pk_builder *b = NULL;
    pk_diag d;
    memset(&d, 0, sizeof d);
    if (usd_stage_open(path_of("shapes/xf.usda"), NULL, &s, &d) != 0 ||
        pk_builder_open(path_of("shapes/xf.pack"), NULL, &b, &d) != 0) {
        fail_msg("%s", d.message);
    }
    usd_stage_sink sink = {pack_mesh, pack_instance, b, NULL, NULL};
    if (usd_stage_import(s, &sink, &d) != 0 || pk_builder_finish(b, NULL, &d) != 0) {
        fail_msg("%s", d.message);
    }
    usd_stage_close(s);

    capture_log logged;
    memset(&logged, 0, sizeof logged);
    slc_logger log = capture_logger(&logged);
    slc_platform_file file;
    assert_int_equal(slc_platform_file_open(path_of("shapes/xf.pack"), SLC_PLATFORM_FILE_PREAD, &log, &file), SLC_OK);
    size_t cap = SLC_ARENA_FOOTPRINT(1u << 20);
    cap = (cap + SLC_ARENA_ALIGN - 1) / SLC_ARENA_ALIGN * SLC_ARENA_ALIGN;
    void *mem = aligned_alloc(SLC_ARENA_ALIGN, cap);
    assert_non_null(mem);
    slc_arena *meta = NULL;
    assert_int_equal(slc_arena_init(mem, cap, NULL, (slc_budget_id){0}, &meta), SLC_OK);
    slc_profile limits;
    memset(&limits, 0, sizeof limits);
    limits.page_size = 65536;
    limits.max_chunks = 64;
    limits.max_objects = 4;
    limits.max_lods = SLC_LODS_MAX;
    limits.max_string_bytes = 4096;
    slc_pack *pack = NULL;
    if (slc_pack_open(&file.io, path_of("shapes/xf.pack"), &limits, meta, &log, &pack) != SLC_OK) {
        fail_msg("slc_pack_open: %s", logged.message);
    }
    assert_int_equal(slc_pack_get_header(pack)->object_count, 1);
    assert_int_equal(slc_pack_get_header(pack)->instance_count, 1);
    /* The object in the cube's own space; the instance places it: world = T(10,0,0) S(2) T(0,1,0). */
    const slc_pack_object *ob = slc_pack_get_object(pack, (slc_object_id){0});
    const slc_pack_instance *in = slc_pack_get_instance(pack, 0);
    assert_string_equal(slc_pack_get_string(pack, ob->name), "C");
    const float want_lo[3] = {7, -1, -3}, want_hi[3] = {13, 5, 3};
    for (int k = 0; k < 3; k++) {
        assert_true(fabsf(ob->aabb_min[k] + 1.5f) < 1e-6f && fabsf(ob->aabb_max[k] - 1.5f) < 1e-6f);
        float lo = INFINITY, hi = -INFINITY;
        for (int corner = 0; corner < 8; corner++) {
            float p[3] = {(corner & 1) ? ob->aabb_max[0] : ob->aabb_min[0],
                          (corner & 2) ? ob->aabb_max[1] : ob->aabb_min[1],
                          (corner & 4) ? ob->aabb_max[2] : ob->aabb_min[2]};
            float w = in->matrix[k] * p[0] + in->matrix[4 + k] * p[1] + in->matrix[8 + k] * p[2] + in->matrix[12 + k];
            lo = fminf(lo, w);
            hi = fmaxf(hi, w);
        }
        if (fabsf(lo - want_lo[k]) > 1e-5f || fabsf(hi - want_hi[k]) > 1e-5f) {
            fail_msg("world bounds[%d] [%g, %g], want [%g, %g]", k, (double)lo, (double)hi, (double)want_lo[k],
                     (double)want_hi[k]);
        }
    }
    slc_pack_close(pack);
    slc_platform_file_close(&file);
    free(mem);
}

static void test_root_layer_that_does_not_open(void **state)
{
    (void)state;
    expect_open_error("none.usda", 0, "@/none.usda: cannot open: No such file or directory");
}

/* ---- a glTF/USD pair: the same world-space triangles -------------------------- */

/* Every triangle corner of a scene in world space: meshes kept until their
 * placements are known. */
typedef struct corners {
    pk_mesh *meshes;
    uint32_t mesh_count, mesh_cap;
    float *xyz; /* 3 per corner */
    size_t count, cap;
} corners;

static int corners_mesh(void *user, const pk_mesh *m, uint32_t *object, pk_diag *d)
{
    (void)d;
    corners *c = user;
    if (c->mesh_count == c->mesh_cap) {
        c->mesh_cap = c->mesh_cap ? c->mesh_cap * 2 : 16;
        c->meshes = realloc(c->meshes, c->mesh_cap * sizeof *c->meshes);
    }
    pk_mesh *k = &c->meshes[c->mesh_count];
    memset(k, 0, sizeof *k);
    k->vertex_count = m->vertex_count;
    k->index_count = m->index_count;
    k->positions = malloc((size_t)m->vertex_count * 3 * sizeof(float));
    k->indices = malloc((size_t)m->index_count * sizeof(uint32_t));
    memcpy(k->positions, m->positions, (size_t)m->vertex_count * 3 * sizeof(float));
    memcpy(k->indices, m->indices, (size_t)m->index_count * sizeof(uint32_t));
    *object = c->mesh_count++;
    return 0;
}

static int corners_instance(void *user, const pk_instance *inst, pk_diag *d)
{
    (void)d;
    corners *c = user;
    const pk_mesh *m = &c->meshes[inst->mesh];
    const float *a = inst->matrix;
    while (c->count + m->index_count > c->cap) {
        c->cap = c->cap ? c->cap * 2 : 1024;
        c->xyz = realloc(c->xyz, c->cap * 3 * sizeof(float));
    }
    for (uint32_t i = 0; i < m->index_count; i++) {
        const float *p = &m->positions[(size_t)m->indices[i] * 3];
        float *o = &c->xyz[c->count++ * 3];
        for (int r = 0; r < 3; r++) {
            o[r] = a[r] * p[0] + a[4 + r] * p[1] + a[8 + r] * p[2] + a[12 + r];
        }
    }
    return 0;
}

static void corners_free(corners *c)
{
    for (uint32_t i = 0; i < c->mesh_count; i++) {
        pk_mesh_free(&c->meshes[i]);
    }
    free(c->meshes);
    free(c->xyz);
}

/* Every corner of a has one of b within tol, and back. */
static size_t unmatched(const corners *a, const corners *b, float tol)
{
    size_t bad = 0;
    for (size_t i = 0; i < a->count; i++) {
        const float *p = &a->xyz[i * 3];
        int found = 0;
        for (size_t j = 0; j < b->count && !found; j++) {
            const float *q = &b->xyz[j * 3];
            found = fabsf(p[0] - q[0]) <= tol && fabsf(p[1] - q[1]) <= tol && fabsf(p[2] - q[2]) <= tol;
        }
        bad += found ? 0u : 1u;
    }
    return bad;
}

/* test_usd_stage --pair USD GLTF: the same triangle count, and every
 * world-space triangle corner of one within 1e-5 of the scene's extent of a
 * corner of the other. Prints the figures; exits 0 when they agree. */
static int compare_pair(const char *usd, const char *gltf)
{
    corners u, g;
    memset(&u, 0, sizeof u);
    memset(&g, 0, sizeof g);
    pk_diag d;
    usd_stage *s = NULL;
    if (usd_stage_open(usd, NULL, &s, &d) != 0) {
        fprintf(stderr, "%s\n", d.message);
        return 1;
    }
    usd_stage_sink sink = {corners_mesh, corners_instance, &u, NULL, NULL};
    if (usd_stage_import(s, &sink, &d) != 0) {
        fprintf(stderr, "%s\n", d.message);
        usd_stage_close(s);
        return 1;
    }
    usd_stage_close(s);
    gltf_scene *sc = NULL;
    if (gltf_open(gltf, NULL, &sc, &d) != 0) {
        fprintf(stderr, "%s\n", d.message);
        return 1;
    }
    uint32_t *obj = calloc(gltf_mesh_count(sc) + 1u, sizeof *obj);
    for (uint32_t i = 0; i < gltf_mesh_count(sc); i++) {
        pk_mesh m;
        if (gltf_load_mesh(sc, i, &m, &d) != 0) {
            fprintf(stderr, "%s\n", d.message);
            return 1;
        }
        corners_mesh(&g, &m, &obj[i], &d);
        pk_mesh_free(&m);
    }
    for (uint32_t i = 0; i < gltf_instance_count(sc); i++) {
        pk_instance inst;
        gltf_get_instance(sc, i, &inst);
        inst.mesh = obj[inst.mesh];
        corners_instance(&g, &inst, &d);
    }
    free(obj);
    gltf_close(sc);
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t i = 0; i < g.count; i++) {
        for (int r = 0; r < 3; r++) {
            lo[r] = fminf(lo[r], g.xyz[i * 3 + (size_t)r]);
            hi[r] = fmaxf(hi[r], g.xyz[i * 3 + (size_t)r]);
        }
    }
    float extent = fmaxf(hi[0] - lo[0], fmaxf(hi[1] - lo[1], hi[2] - lo[2]));
    float tol = 1e-5f * (extent > 0.0f ? extent : 1.0f);
    size_t bad_u = unmatched(&u, &g, tol), bad_g = unmatched(&g, &u, tol);
    printf("usd %zu triangles, gltf %zu triangles; extent %g; corners without a match within %g: usd %zu, gltf %zu\n",
           u.count / 3, g.count / 3, (double)extent, (double)tol, bad_u, bad_g);
    int ok = u.count == g.count && bad_u == 0 && bad_g == 0;
    corners_free(&u);
    corners_free(&g);
    return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "--pair") == 0) {
        return compare_pair(argv[2], argv[3]);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_mesh_is_one_mesh_and_one_placement),
        cmocka_unit_test(test_sublayers_stronger_first),
        cmocka_unit_test(test_internal_reference_with_and_without_path),
        cmocka_unit_test(test_external_reference_default_prim_and_path),
        cmocka_unit_test(test_payload_is_loaded),
        cmocka_unit_test(test_inherits_weaker_than_local_stronger_than_references),
        cmocka_unit_test(test_specializes_weakest),
        cmocka_unit_test(test_variant_selection_and_default_variant),
        cmocka_unit_test(test_reference_selects_variant_of_target),
        cmocka_unit_test(test_instanceable_prims_share_one_mesh),
        cmocka_unit_test(test_prototypes_sharing_a_path_keep_their_own_meshes),
        cmocka_unit_test(test_repeated_subtrees_are_composed_once),
        cmocka_unit_test(test_placement_limit),
        cmocka_unit_test(test_point_instancer_places_each_instance),
        cmocka_unit_test(test_point_instancer_index_out_of_range),
        cmocka_unit_test(test_reference_cycle_is_refused),
        cmocka_unit_test(test_missing_layer_is_refused_or_skipped),
        cmocka_unit_test(test_layer_outside_the_root_folder_is_refused_unless_allowed),
        cmocka_unit_test(test_unsupported_schemas_are_refused_or_skipped),
        cmocka_unit_test(test_layer_relocates_are_refused_or_skipped),
        cmocka_unit_test(test_list_ops_compose_across_the_layer_stack),
        cmocka_unit_test(test_livrps_local_then_inherits_then_references),
        cmocka_unit_test(test_a_prims_own_arc_beats_its_ancestors),
        cmocka_unit_test(test_variant_selections_from_stronger_layers_and_references),
        cmocka_unit_test(test_overs_defined_through_composition),
        cmocka_unit_test(test_skel_root_meshes_import_with_a_warning),
        cmocka_unit_test(test_subdivision_packs_the_cage_with_one_warning),
        cmocka_unit_test(test_xforms_concatenate_and_reset),
        cmocka_unit_test(test_up_axis_z_and_centimetres),
        cmocka_unit_test(test_invisible_inactive_proxy_and_guide_are_skipped),
        cmocka_unit_test(test_output_checks_see_every_layer),
        cmocka_unit_test(test_root_layer_that_does_not_open),
        cmocka_unit_test(test_bad_stages_are_refused_with_their_reason),
        cmocka_unit_test(test_bad_geometry_is_refused_at_import),
        cmocka_unit_test(test_tolerant_where_usd_is_tolerant),
        cmocka_unit_test(test_path_anchor),
        cmocka_unit_test(test_implicit_shapes_import_as_meshes),
        cmocka_unit_test(test_bad_shape_values_are_refused_or_skipped),
        cmocka_unit_test(test_cube_under_a_transformed_xform_packs_with_its_bounds),
    };
    return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
