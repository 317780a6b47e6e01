/* SPDX-License-Identifier: MIT */
/* The importer interface (tools/pack/importer.h): the table's rows and how
 * an input picks one, and each importer behind it on small inputs the test
 * writes: what scan and file report, a failing sink's message named after
 * the input, a reopen keeping composition's warnings to the first open. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "importer.h"
#include "pack_limits.h"

static char folder[64];

/* folder/name, in one of two buffers (two paths live at once). */
static const char *at(const char *name)
{
    static char p[2][256];
    static int k;
    k ^= 1;
    snprintf(p[k], sizeof p[k], "%s/%s", folder, name);
    return p[k];
}

static void write_text(const char *name, const char *text)
{
    FILE *f = fopen(at(name), "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
    assert_int_equal(fclose(f), 0);
}

static const char *const names[] = {"a.bin", "a.gltf", "root.usda", "asset.usda", "x.dat"};

static int make_folder(void **state)
{
    (void)state;
    snprintf(folder, sizeof folder, "/tmp/sluice-importer-XXXXXX");
    return mkdtemp(folder) == NULL ? -1 : 0;
}

static int remove_folder(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        (void)unlink(at(names[i]));
    }
    return rmdir(folder);
}

/* One triangle in a.gltf, read from a.bin. */
static void write_gltf(void)
{
    static const float tri[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    FILE *f = fopen(at("a.bin"), "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(tri, sizeof tri, 1, f), 1);
    assert_int_equal(fclose(f), 0);
    write_text("a.gltf", "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"uri\":\"a.bin\",\"byteLength\":36}],"
                         "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36}],\"accessors\":[{\"bufferView\":0,"
                         "\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"}],\"meshes\":[{\"primitives\":"
                         "[{\"attributes\":{\"POSITION\":0}}]}],\"nodes\":[{\"mesh\":0,\"name\":\"n\"}]}");
}

/* root.usda references asset.usda (a quad) and a missing layer. */
static void write_usd(void)
{
    write_text("asset.usda", "#usda 1.0\n(\n    defaultPrim = \"Q\"\n)\ndef Xform \"Q\"\n{\n    def Mesh \"G\"\n    {\n"
                             "        int[] faceVertexCounts = [4]\n        int[] faceVertexIndices = [0, 1, 2, 3]\n"
                             "        point3f[] points = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0)]\n    }\n}\n");
    write_text("root.usda", "#usda 1.0\ndef Xform \"A\" (\n    references = @asset.usda@\n)\n{\n}\n"
                            "def Xform \"B\" (\n    references = @missing.usda@\n)\n{\n}\n");
}

/* A sink that counts, and fails its mesh call when fail is set. */
typedef struct counting_sink {
    int fail;
    uint32_t meshes, instances, progress_calls;
} counting_sink;

static int sink_mesh(void *user, pk_mesh *m, int owned, uint32_t *object, pk_diag *d)
{
    counting_sink *s = user;
    if (s->fail) {
        snprintf(d->message, sizeof d->message, "the sink says no");
        return -1;
    }
    if (owned) {
        pk_mesh_free(m);
    }
    *object = s->meshes++;
    return 0;
}

static int sink_instance(void *user, const pk_instance *inst, pk_diag *d)
{
    counting_sink *s = user;
    (void)d;
    assert_true(inst->mesh < s->meshes);
    s->instances++;
    return 0;
}

static void sink_progress(void *user, uint64_t done, const char *what)
{
    counting_sink *s = user;
    (void)done;
    assert_non_null(what);
    s->progress_calls++;
}

static void count_warning(void *user, const char *message)
{
    int *n = user;
    assert_non_null(strstr(message, "missing.usda"));
    (*n)++;
}

static void test_every_row_is_complete_and_named_once(void **state)
{
    (void)state;
    assert_int_equal(pk_importer_count(), 3);
    assert_null(pk_importer_at(pk_importer_count()));
    for (uint32_t i = 0; i < pk_importer_count(); i++) {
        const pk_importer *r = pk_importer_at(i);
        assert_non_null(r);
        assert_non_null(r->name);
        assert_true(r->accepts && r->open && r->scan && r->file && r->run && r->report && r->close);
        for (uint32_t k = 0; k < i; k++) {
            assert_string_not_equal(pk_importer_at(k)->name, r->name);
        }
    }
}

static void test_an_input_picks_its_importer_by_its_bytes(void **state)
{
    (void)state;
    write_gltf();
    write_usd();
    write_text("x.dat", "neither");
    assert_string_equal(pk_importer_for_file(at("root.usda"))->name, "usd");
    assert_string_equal(pk_importer_for_file(at("a.gltf"))->name, "gltf");
    /* Anything else, and a file that cannot be read: the last file row,
     * whose open says why. */
    assert_string_equal(pk_importer_for_file(at("x.dat"))->name, "gltf");
    assert_string_equal(pk_importer_for_file(at("no-such-file"))->name, "gltf");
    const pk_importer *g = pk_importer_for_kind("city");
    assert_non_null(g);
    assert_true(g->generated);
    assert_string_equal(g->name, "synthetic");
}

static void test_gltf_scans_lists_its_buffers_and_names_a_sink_failure(void **state)
{
    (void)state;
    write_gltf();
    const pk_importer *imp = pk_importer_for_file(at("a.gltf"));
    pk_import_options o;
    memset(&o, 0, sizeof o);
    void *in = NULL;
    pk_diag d;
    memset(&d, 0, sizeof d);
    assert_int_equal(imp->open(at("a.gltf"), &o, &in, &d), 0);
    pk_import_scan scan;
    memset(&scan, 0, sizeof scan);
    imp->scan(in, &scan);
    assert_int_equal(scan.meshes, 1);
    assert_int_equal(scan.instances, 1);
    assert_int_equal(scan.name_bytes, 2); /* "n" and its NUL */
    assert_int_equal(scan.importable, 1);
    assert_int_equal(scan.input_bytes, 0);
    assert_true(scan.progress_bytes > 36); /* the .gltf and its 36-byte .bin */
    char label[64];
    const char *file = imp->file(in, 0, label, sizeof label);
    assert_non_null(file);
    assert_non_null(strstr(file, "a.bin"));
    assert_string_equal(label, "buffer 0");
    assert_null(imp->file(in, 1, label, sizeof label));
    counting_sink s = {.fail = 1};
    const pk_import_sink sink = {sink_mesh, sink_instance, sink_progress, &s, NULL, NULL};
    assert_int_equal(imp->run(in, &sink, &d), -1);
    char want[300];
    snprintf(want, sizeof want, "%s: the sink says no", at("a.gltf"));
    assert_string_equal(d.message, want);
    imp->close(in);
    /* A sink that takes it: one mesh, one placement, progress given. */
    assert_int_equal(imp->open(at("a.gltf"), &o, &in, &d), 0);
    s.fail = 0;
    assert_int_equal(imp->run(in, &sink, &d), 0);
    assert_int_equal(s.meshes, 1);
    assert_int_equal(s.instances, 1);
    assert_true(s.progress_calls >= 1);
    imp->close(in);
}

static void test_usd_lists_its_layers_and_warns_once_over_a_reopen(void **state)
{
    (void)state;
    write_usd();
    const pk_importer *imp = pk_importer_for_file(at("root.usda"));
    int warnings = 0;
    pk_import_options o = {.skip_unsupported = 1, .warn = count_warning, .user = &warnings};
    void *in = NULL;
    pk_diag d;
    memset(&d, 0, sizeof d);
    assert_int_equal(imp->open(at("root.usda"), &o, &in, &d), 0);
    assert_int_equal(warnings, 1); /* the missing layer, at composition */
    pk_import_scan scan;
    memset(&scan, 0, sizeof scan);
    imp->scan(in, &scan);
    assert_int_equal(scan.importable, 1);
    assert_int_equal(scan.meshes, 0); /* unknown to the planner */
    char label[64];
    int seen_asset = 0;
    uint32_t n = 0;
    for (const char *f; (f = imp->file(in, n, label, sizeof label)) != NULL; n++) {
        assert_string_equal(label, "layer");
        seen_asset |= strstr(f, "asset.usda") != NULL;
    }
    assert_int_equal(n, 2);
    assert_true(seen_asset);
    imp->close(in);
    /* Opened again to be packed: composition's warning is not given twice. */
    o.reopen = 1;
    assert_int_equal(imp->open(at("root.usda"), &o, &in, &d), 0);
    assert_int_equal(warnings, 1);
    counting_sink s = {.fail = 1};
    const pk_import_sink sink = {sink_mesh, sink_instance, NULL, &s, NULL, NULL};
    assert_int_equal(imp->run(in, &sink, &d), -1);
    assert_non_null(strstr(d.message, "the sink says no"));
    imp->close(in);
}

static void test_synthetic_scans_its_target_and_names_a_sink_failure(void **state)
{
    (void)state;
    const pk_importer *imp = pk_importer_for_kind("city");
    pk_import_options o = {.size = 1u << 20, .seed = 1};
    void *in = NULL;
    pk_diag d;
    memset(&d, 0, sizeof d);
    assert_int_equal(imp->open("city", &o, &in, &d), 0);
    pk_import_scan scan;
    memset(&scan, 0, sizeof scan);
    imp->scan(in, &scan);
    assert_int_equal(scan.input_bytes, 1u << 20);
    assert_int_equal(scan.progress_bytes, 1u << 20);
    char label[64];
    assert_null(imp->file(in, 0, label, sizeof label));
    counting_sink s = {.fail = 1};
    const pk_import_sink sink = {sink_mesh, sink_instance, NULL, &s, NULL, NULL};
    assert_int_equal(imp->run(in, &sink, &d), -1);
    assert_string_equal(d.message, "synthetic city: the sink says no");
    imp->close(in);
    /* An unknown kind: the generator's own refusal. */
    assert_int_equal(imp->open("forest", &o, &in, &d), -1);
    assert_null(in);
    assert_non_null(strstr(d.message, "forest"));
}

static void test_named_prefixes_and_cuts_at_the_message_size(void **state)
{
    (void)state;
    pk_diag d;
    snprintf(d.message, sizeof d.message, "why");
    assert_int_equal(pk_import_named(&d, "x.gltf"), -1);
    assert_string_equal(d.message, "x.gltf: why");
    char longer[600];
    memset(longer, 'p', sizeof longer - 1);
    longer[sizeof longer - 1] = '\0';
    assert_int_equal(pk_import_named(&d, longer), -1);
    assert_int_equal(strlen(d.message), sizeof d.message - 1);
}

static void test_plan_adds_what_a_scan_knows(void **state)
{
    (void)state;
    pk_limits_plan plan = {.what = "x"};
    pk_import_scan a = {.meshes = 2, .instances = 3, .name_bytes = 4, .importable = 9, .progress_bytes = 9};
    pk_import_scan b = {.meshes = 1, .input_bytes = 5};
    pk_limits_plan_add(&plan, &a);
    pk_limits_plan_add(&plan, &b);
    assert_int_equal(plan.meshes, 3);
    assert_int_equal(plan.instances, 3);
    assert_int_equal(plan.name_bytes, 4);
    assert_int_equal(plan.input_bytes, 5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_row_is_complete_and_named_once),
        cmocka_unit_test(test_an_input_picks_its_importer_by_its_bytes),
        cmocka_unit_test(test_gltf_scans_lists_its_buffers_and_names_a_sink_failure),
        cmocka_unit_test(test_usd_lists_its_layers_and_warns_once_over_a_reopen),
        cmocka_unit_test(test_synthetic_scans_its_target_and_names_a_sink_failure),
        cmocka_unit_test(test_named_prefixes_and_cuts_at_the_message_size),
        cmocka_unit_test(test_plan_adds_what_a_scan_knows),
    };
    return cmocka_run_group_tests(tests, make_folder, remove_folder);
}
