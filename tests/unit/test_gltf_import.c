/* SPDX-License-Identifier: MIT */
/* The glTF importer of the packer: each feature on a small file this test
 * writes (.gltf + .bin, data: URI, .glb, interleaving, sparse, quantized
 * attributes, index types, strips and fans, the node hierarchy, GPU
 * instancing), each refusal with its exact message, skip_unsupported's
 * warnings, every prefix of a GLB and of a .gltf, and seeded one-byte
 * mutations of a GLB's JSON (no crash, no leak under ASan). */
#define _DEFAULT_SOURCE 1 /* realpath */
#define _POSIX_C_SOURCE 200809L

#include <limits.h>
#include <math.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_util.h"

#include <meshoptimizer.h>

#include "asset.h"
#include "gltf.h"
#include "gltf_writer.h" /* the files: folder, bytes, JSON, geometry buffer, GLB */

/* ---- opening and loading ---------------------------------------------- */

typedef struct warnings {
    char last[512];
    int count;
} warnings;

static void on_warn(void *user, const char *message)
{
    warnings *w = user;
    snprintf(w->last, sizeof w->last, "%s", message);
    w->count++;
}

static warnings warned;

static gltf_scene *open_ok(const char *name, int skip)
{
    gltf_options o = {skip, on_warn, &warned, 0, NULL};
    gltf_scene *s = NULL;
    pk_diag d;
    if (gltf_open(path_of(name), &o, &s, &d) != 0) {
        fail_msg("open %s: %s", name, d.message);
    }
    return s;
}

static void load_ok(gltf_scene *s, uint32_t i, pk_mesh *m)
{
    pk_diag d;
    if (gltf_load_mesh(s, i, m, &d) != 0) {
        fail_msg("load mesh %u: %s", i, d.message);
    }
    for (uint32_t k = 0; k < m->index_count; k++) {
        assert_true(m->indices[k] < m->vertex_count);
    }
    assert_int_equal(m->index_count % 3, 0);
}

/* Opens name (must succeed) and loads mesh 0 into m. */
static gltf_scene *open_load(const char *name, pk_mesh *m)
{
    gltf_scene *s = open_ok(name, 0);
    load_ok(s, 0, m);
    return s;
}

/* gltf_open fails with exactly "PATH: " + want. */
static void expect_open_error(const char *name, int skip, const char *want)
{
    gltf_options o = {skip, on_warn, &warned, 0, NULL};
    gltf_scene *s = (gltf_scene *)&s;
    pk_diag d;
    char full[640];
    snprintf(full, sizeof full, "%s: %s", path_of(name), want);
    if (gltf_open(path_of(name), &o, &s, &d) == 0) {
        gltf_close(s);
        fail_msg("open %s succeeded, want \"%s\"", name, full);
    }
    assert_null(s);
    if (strcmp(d.message, full) != 0) {
        fail_msg("got  \"%s\"\nwant \"%s\"", d.message, full);
    }
}

/* gltf_open succeeds and loading mesh 0 fails with exactly "PATH: " + want. */
static void expect_load_error(const char *name, const char *want)
{
    gltf_scene *s = open_ok(name, 0);
    pk_mesh m;
    pk_diag d;
    char full[640];
    snprintf(full, sizeof full, "%s: %s", path_of(name), want);
    memset(&m, 0x5a, sizeof m);
    if (gltf_load_mesh(s, 0, &m, &d) == 0) {
        pk_mesh_free(&m);
        gltf_close(s);
        fail_msg("load succeeded, want \"%s\"", full);
    }
    if (strcmp(d.message, full) != 0) {
        gltf_close(s);
        fail_msg("got  \"%s\"\nwant \"%s\"", d.message, full);
    }
    pk_mesh zero;
    memset(&zero, 0, sizeof zero);
    assert_memory_equal(&m, &zero, sizeof m); /* nothing half-done is left */
    gltf_close(s);
}

static void expect_floats(const float *got, const float *want, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (fabsf(got[i] - want[i]) > 1e-6f) {
            fail_msg("element %zu: got %.9g, want %.9g", i, got[i], want[i]);
        }
    }
}

static void expect_indices(const pk_mesh *m, const uint32_t *want, uint32_t n)
{
    assert_int_equal(m->index_count, n);
    for (uint32_t i = 0; i < n; i++) {
        if (m->indices[i] != want[i]) {
            fail_msg("index %u: got %u, want %u", i, m->indices[i], want[i]);
        }
    }
}

static const float identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};

/* ---- features ---------------------------------------------------------- */

static void test_gltf_with_bin_loads_positions_normals_uvs_indices(void **state)
{
    (void)state;
    write_gltf("tri.gltf", ONE_PRIM("{'attributes':{'POSITION':0,'NORMAL':1,'TEXCOORD_0':2},'indices':4}"));
    pk_mesh m;
    gltf_scene *s = open_load("tri.gltf", &m);
    assert_int_equal(gltf_mesh_count(s), 1);
    assert_string_equal(m.name, "m");
    assert_int_equal(m.vertex_count, 5);
    expect_floats(m.positions, pos5, 15);
    assert_non_null(m.normals);
    for (int i = 0; i < 5; i++) {
        const float n[3] = {0, 0, 1};
        expect_floats(m.normals + 3 * i, n, 3);
    }
    expect_floats(m.uvs, uv5, 10);
    const uint32_t want[6] = {0, 1, 2, 2, 1, 3};
    expect_indices(&m, want, 6);
    assert_int_equal(gltf_instance_count(s), 1);
    pk_instance in;
    gltf_get_instance(s, 0, &in);
    assert_int_equal(in.mesh, 0);
    expect_floats(in.matrix, identity, 16);
    pk_mesh_free(&m);
    gltf_close(s);
}

static void test_data_uri_buffer_loads(void **state)
{
    (void)state;
    bin b;
    build_geometry(&b);
    char uri[600];
    data_uri_member(b.b, b.n, uri, sizeof uri);
    char fmt[8192];
    snprintf(fmt, sizeof fmt, "%s%s", head, ONE_PRIM("{'attributes':{'POSITION':0,'TEXCOORD_0':2},'indices':5}"));
    write_json("data.gltf", fmt, uri);
    pk_mesh m;
    gltf_scene *s = open_load("data.gltf", &m);
    assert_int_equal(m.vertex_count, 5);
    expect_floats(m.positions, pos5, 15);
    assert_null(m.normals);
    expect_floats(m.uvs, uv5, 10);
    const uint32_t want[6] = {0, 1, 2, 2, 1, 3};
    expect_indices(&m, want, 6);
    pk_mesh_free(&m);
    gltf_close(s);
}

static unsigned char glb[16384];

static void test_glb_loads_from_its_bin_chunk(void **state)
{
    (void)state;
    size_t n = build_glb(glb, sizeof glb, ONE_PRIM("{'attributes':{'POSITION':0,'NORMAL':1},'indices':3}"));
    write_bytes("scene.glb", glb, n);
    pk_mesh m;
    gltf_scene *s = open_load("scene.glb", &m);
    assert_int_equal(m.vertex_count, 5);
    expect_floats(m.positions, pos5, 15);
    assert_non_null(m.normals);
    assert_null(m.uvs);
    const uint32_t want[6] = {0, 1, 2, 2, 1, 3};
    expect_indices(&m, want, 6);
    pk_mesh_free(&m);
    gltf_close(s);
}

static void test_interleaved_byte_stride_is_honoured(void **state)
{
    (void)state;
    write_interleaved("{'mesh':0}");
    pk_mesh m;
    gltf_scene *s = open_load("interleaved.gltf", &m);
    const float p[9] = {0, 10, 20, 1, 11, 21, 2, 12, 22};
    const float n[9] = {0, -1, 0.5f, 0, 0, 0.5f, 0, 1, 0.5f};
    const float t[6] = {0, 1, 0.25f, 0.75f, 0.5f, 0.5f};
    assert_int_equal(m.vertex_count, 3);
    expect_floats(m.positions, p, 9);
    expect_floats(m.normals, n, 9);
    expect_floats(m.uvs, t, 6);
    assert_string_equal(m.name, "");
    pk_mesh_free(&m);
    gltf_close(s);
}

static void test_sparse_accessor_overrides_its_base(void **state)
{
    (void)state;
    write_gltf("sparse.gltf", "'meshes':[{'name':'m','primitives':[{'attributes':{'POSITION':9},'indices':4},"
                              "{'attributes':{'POSITION':10},'mode':4}]}],'nodes':[{'mesh':0}]}");
    /* The second primitive: 4 vertices, not a multiple of 3. */
    expect_load_error("sparse.gltf", "mesh 'm' (0) primitive 1: TRIANGLES with 4 vertices, not a multiple of 3");
    write_gltf("sparse.gltf", "'meshes':[{'name':'m','primitives':[{'attributes':{'POSITION':9},'indices':4},"
                              "{'attributes':{'POSITION':10},'mode':5}]}],'nodes':[{'mesh':0}]}");
    pk_mesh m;
    gltf_scene *s = open_load("sparse.gltf", &m);
    assert_int_equal(m.vertex_count, 9);
    const float want[27] = {0, 0, 0, 5, 5, 5, 0, 1, 0, 7, 7, 7, 2, 0, 0, /* the base, 1 and 3 replaced */
                            0, 0, 0, 5, 5, 5, 0, 0, 0, 7, 7, 7};         /* zeros, 1 and 3 replaced */
    expect_floats(m.positions, want, 27);
    const uint32_t idx[12] = {0, 1, 2, 2, 1, 3, 5, 6, 7, 6, 8, 7};
    expect_indices(&m, idx, 12);
    pk_mesh_free(&m);
    gltf_close(s);
}

static void test_quantized_attributes_are_converted_per_spec(void **state)
{
    (void)state;
    write_gltf("quantized.gltf",
               "'extensionsUsed':['KHR_mesh_quantization'],'extensionsRequired':['KHR_mesh_quantization'],"
               "'meshes':[{'name':'q','primitives':[{'attributes':{'POSITION':11,'NORMAL':12,'TEXCOORD_0':13}},"
               "{'attributes':{'POSITION':15,'TEXCOORD_0':14}}]}],'nodes':[{'mesh':0,'scale':[0.5,0.5,0.5]}]}");
    pk_mesh m;
    gltf_scene *s = open_load("quantized.gltf", &m);
    assert_int_equal(m.vertex_count, 6);
    const float p[18] = {100, -200, 300,   0,
                         0,   0,    32767, -32768,
                         1, /* int16, not normalized */
                         1,   -1,   -1,    16384.0f / 32767.0f,
                         0,   0,    0,     0,
                         0}; /* int16 normalized: -32768 clamps */
    const float n[18] = {1,
                         0,
                         -1,
                         0,
                         -1,
                         64.0f / 127.0f,
                         -64.0f / 127.0f,
                         1,
                         0, /* int8 normalized */
                         0,
                         0,
                         0,
                         0,
                         0,
                         0,
                         0,
                         0,
                         0}; /* none in the second primitive */
    const float t[12] = {0, 1, 0.2f, 0.4f, 1,
                         0, /* uint8 normalized */
                         0, 1, 1,    0,    13107.0f / 65535.0f,
                         0}; /* uint16 normalized */
    expect_floats(m.positions, p, 18);
    expect_floats(m.normals, n, 18);
    expect_floats(m.uvs, t, 12);
    const uint32_t idx[6] = {0, 1, 2, 3, 4, 5};
    expect_indices(&m, idx, 6);
    pk_instance in;
    gltf_get_instance(s, 0, &in);
    assert_true(in.matrix[0] == 0.5f && in.matrix[5] == 0.5f && in.matrix[10] == 0.5f && in.matrix[15] == 1.0f);
    pk_mesh_free(&m);
    gltf_close(s);
}

static void test_uint8_uint16_uint32_indices_load_alike(void **state)
{
    (void)state;
    const uint32_t want[6] = {0, 1, 2, 2, 1, 3};
    for (int acc = 3; acc <= 5; acc++) {
        char tail[256];
        snprintf(tail, sizeof tail,
                 "'meshes':[{'primitives':[{'attributes':{'POSITION':0},'indices':%d}]}],'nodes':[{'mesh':0}]}", acc);
        write_gltf("indices.gltf", tail);
        pk_mesh m;
        gltf_scene *s = open_load("indices.gltf", &m);
        expect_indices(&m, want, 6);
        pk_mesh_free(&m);
        gltf_close(s);
    }
}

static void test_non_indexed_triangles_get_sequential_indices(void **state)
{
    (void)state;
    write_gltf("plain.gltf", ONE_PRIM("{'attributes':{'POSITION':7}}"));
    pk_mesh m;
    gltf_scene *s = open_load("plain.gltf", &m);
    const uint32_t want[3] = {0, 1, 2};
    assert_int_equal(m.vertex_count, 3);
    expect_indices(&m, want, 3);
    pk_mesh_free(&m);
    gltf_close(s);
}

static void test_triangle_strip_becomes_a_list(void **state)
{
    (void)state;
    /* Non-indexed 0..4, then indexed by 0 1 2 2 1 3. */
    write_gltf("strip.gltf", ONE_PRIM("{'attributes':{'POSITION':0},'mode':5},"
                                      "{'attributes':{'POSITION':0},'indices':3,'mode':5}"));
    pk_mesh m;
    gltf_scene *s = open_load("strip.gltf", &m);
    assert_int_equal(m.vertex_count, 10);
    const uint32_t want[21] = {0, 1, 2, 1, 3, 2, 2, 3, 4, /* (v[i], v[i+1+i%2], v[i+2-i%2]) */
                               5, 6, 7, 6, 7, 7, 7, 7, 6, 7, 8, 6};
    expect_indices(&m, want, 21);
    pk_mesh_free(&m);
    gltf_close(s);
}

static void test_triangle_fan_becomes_a_list(void **state)
{
    (void)state;
    write_gltf("fan.gltf", ONE_PRIM("{'attributes':{'POSITION':0},'mode':6},"
                                    "{'attributes':{'POSITION':7},'indices':6,'mode':6}"));
    /* The second primitive's indices are 0 1 5, and it has 3 vertices. */
    expect_load_error("fan.gltf",
                      "mesh 'm' (0) primitive 1: accessor 6 (indices): index 5 (at 2) is out of range: POSITION has 3 "
                      "vertices");
    write_gltf("fan.gltf", ONE_PRIM("{'attributes':{'POSITION':0},'mode':6},"
                                    "{'attributes':{'POSITION':0},'indices':3,'mode':6}"));
    pk_mesh m;
    gltf_scene *s = open_load("fan.gltf", &m);
    const uint32_t want[21] = {1, 2, 0, 2, 3, 0, 3, 4, 0, /* (v[i+1], v[i+2], v[0]) */
                               6, 7, 5, 7, 7, 5, 7, 6, 5, 6, 8, 5};
    expect_indices(&m, want, 21);
    pk_mesh_free(&m);
    gltf_close(s);
}

static void test_primitives_merge_and_missing_attributes_are_zero(void **state)
{
    (void)state;
    write_gltf("merge.gltf", ONE_PRIM("{'attributes':{'POSITION':7,'NORMAL':16,'COLOR_0':1,'JOINTS_0':1}},"
                                      "{'attributes':{'POSITION':0,'TEXCOORD_0':2},'indices':3,"
                                      "'targets':[{'POSITION':1}]}"));
    pk_mesh m;
    gltf_scene *s = open_load("merge.gltf", &m);
    assert_int_equal(m.vertex_count, 8);
    const float n[24] = {0, 0, 1, 0, 0, 1, 0, 0, 1};
    float t[16] = {0};
    memcpy(t + 6, uv5, sizeof uv5);
    expect_floats(m.normals, n, 24);
    expect_floats(m.uvs, t, 16);
    expect_floats(m.positions + 9, pos5, 15);
    const uint32_t want[9] = {0, 1, 2, 3, 4, 5, 5, 4, 6};
    expect_indices(&m, want, 9);
    pk_mesh_free(&m);
    gltf_close(s);
}

static void test_node_matrix_and_trs_compose_into_world_matrices(void **state)
{
    (void)state;
    write_gltf("nodes.gltf",
               "'meshes':[{'primitives':[{'attributes':{'POSITION':7}}]}],"
               "'nodes':[{'name':'parent','mesh':0,'children':[1],'matrix':[2,0,0,0,0,2,0,0,0,0,2,0,1,2,3,1]},"
               "{'name':'child','mesh':0,'translation':[1,0,0],'rotation':[0,0,0.70710678,0.70710678],"
               "'scale':[1,1,3]}],'scenes':[{'nodes':[0]}],'scene':0}");
    gltf_scene *s = open_ok("nodes.gltf", 0);
    assert_int_equal(gltf_instance_count(s), 2);
    pk_instance in;
    gltf_get_instance(s, 0, &in);
    assert_string_equal(in.name, "parent");
    const float parent[16] = {2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 2, 0, 1, 2, 3, 1};
    expect_floats(in.matrix, parent, 16);
    /* parent * T(1,0,0) * Rz(90) * S(1,1,3): x -> 2y, y -> -2x, z -> 6z, origin at (3,2,3). */
    gltf_get_instance(s, 1, &in);
    assert_string_equal(in.name, "child");
    assert_int_equal(in.mesh, 0);
    const float child[16] = {0, 2, 0, 0, -2, 0, 0, 0, 0, 0, 6, 0, 3, 2, 3, 1};
    for (int k = 0; k < 16; k++) {
        assert_true(fabsf(in.matrix[k] - child[k]) < 1e-5f);
    }
    gltf_close(s);
}

static void test_mesh_shared_by_two_nodes_gives_two_instances(void **state)
{
    (void)state;
    write_gltf("shared.gltf", "'meshes':[{'primitives':[{'attributes':{'POSITION':7}}]}],"
                              "'nodes':[{'name':'a','mesh':0},{'name':'b','mesh':0,'translation':[0,0,-4]}],"
                              "'scenes':[{'nodes':[0,1]}]}");
    gltf_scene *s = open_ok("shared.gltf", 0);
    assert_int_equal(gltf_mesh_count(s), 1);
    assert_int_equal(gltf_instance_count(s), 2);
    pk_instance a, b;
    gltf_get_instance(s, 0, &a);
    gltf_get_instance(s, 1, &b);
    assert_int_equal(a.mesh, 0);
    assert_int_equal(b.mesh, 0);
    assert_string_equal(a.name, "a");
    assert_string_equal(b.name, "b");
    expect_floats(a.matrix, identity, 16);
    assert_true(b.matrix[14] == -4.0f && b.matrix[15] == 1.0f);
    gltf_close(s);
}

static void test_default_scene_is_chosen_and_without_scenes_all_roots(void **state)
{
    (void)state;
    write_gltf("scenes.gltf", "'meshes':[{'primitives':[{'attributes':{'POSITION':7}}]}],"
                              "'nodes':[{'name':'a','mesh':0},{'name':'b','mesh':0,'children':[2]},"
                              "{'name':'c','mesh':0}],'scenes':[{'nodes':[0]},{'nodes':[1]}],'scene':1}");
    gltf_scene *s = open_ok("scenes.gltf", 0);
    pk_instance in;
    assert_int_equal(gltf_instance_count(s), 2);
    gltf_get_instance(s, 0, &in);
    assert_string_equal(in.name, "b");
    gltf_get_instance(s, 1, &in);
    assert_string_equal(in.name, "c");
    gltf_close(s);
    write_gltf("scenes.gltf", "'meshes':[{'primitives':[{'attributes':{'POSITION':7}}]}],"
                              "'nodes':[{'name':'a','children':[2]},{'name':'b','mesh':0},{'name':'c','mesh':0}]}");
    s = open_ok("scenes.gltf", 0);
    assert_int_equal(gltf_instance_count(s), 2);
    gltf_get_instance(s, 0, &in);
    assert_string_equal(in.name, "c"); /* a's child, walked first */
    gltf_get_instance(s, 1, &in);
    assert_string_equal(in.name, "b");
    gltf_close(s);
}

static void test_gpu_instancing_gives_one_instance_each(void **state)
{
    (void)state;
    write_gltf("instancing.gltf", "'extensionsUsed':['EXT_mesh_gpu_instancing'],"
                                  "'meshes':[{'primitives':[{'attributes':{'POSITION':7}}]}],"
                                  "'nodes':[{'name':'many','mesh':0,'translation':[0,0,5],'extensions':"
                                  "{'EXT_mesh_gpu_instancing':{'attributes':{'TRANSLATION':7}}}}]}");
    gltf_scene *s = open_ok("instancing.gltf", 0);
    assert_int_equal(gltf_instance_count(s), 3);
    for (uint32_t i = 0; i < 3; i++) {
        pk_instance in;
        gltf_get_instance(s, i, &in);
        const float want[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, pos5[3 * i], pos5[3 * i + 1], 5, 1};
        expect_floats(in.matrix, want, 16);
        assert_string_equal(in.name, "many");
    }
    gltf_close(s);
    /* Not float: a warning, and the node alone. */
    write_gltf("instancing.gltf", "'meshes':[{'primitives':[{'attributes':{'POSITION':7}}]}],"
                                  "'nodes':[{'name':'many','mesh':0,'extensions':"
                                  "{'EXT_mesh_gpu_instancing':{'attributes':{'TRANSLATION':11}}}}]}");
    warned.count = 0;
    s = open_ok("instancing.gltf", 0);
    assert_int_equal(gltf_instance_count(s), 1);
    assert_int_equal(warned.count, 1);
    char want[512];
    snprintf(want, sizeof want,
             "%s: node 'many' (0): EXT_mesh_gpu_instancing: TRANSLATION accessor 11 is VEC3 of componentType 5122, "
             "not float VEC3; the node is placed once, without its instances",
             path_of("instancing.gltf"));
    assert_string_equal(warned.last, want);
    gltf_close(s);
}

static void test_file_names_with_spaces_are_percent_decoded(void **state)
{
    (void)state;
    bin b;
    build_geometry(&b);
    write_bytes("Box With Spaces.bin", b.b, b.n);
    char fmt[8192];
    snprintf(fmt, sizeof fmt, "%s%s", head, ONE_PRIM("{'attributes':{'POSITION':0},'indices':3}"));
    write_json("Box With Spaces.gltf", fmt, "'uri':'Box%20With%20Spaces.bin',");
    pk_mesh m;
    gltf_scene *s = open_load("Box With Spaces.gltf", &m);
    assert_int_equal(m.vertex_count, 5);
    expect_floats(m.positions, pos5, 15);
    pk_mesh_free(&m);
    gltf_close(s);
}

static void test_draco_fallback_is_read_when_the_extension_is_only_used(void **state)
{
    (void)state;
    write_gltf("draco_used.gltf", "'extensionsUsed':['KHR_draco_mesh_compression'],"
                                  "'meshes':[{'name':'d','primitives':[{'attributes':{'POSITION':7},'extensions':"
                                  "{'KHR_draco_mesh_compression':{'bufferView':0,'attributes':{'POSITION':0}}}}]}]}");
    pk_mesh m;
    gltf_scene *s = open_load("draco_used.gltf", &m);
    assert_int_equal(m.vertex_count, 3);
    assert_int_equal(gltf_instance_count(s), 0);
    pk_mesh_free(&m);
    gltf_close(s);
}

/* ---- refusals ---------------------------------------------------------- */

#define DRACO_PRIM                                                                                           \
    "{'attributes':{'POSITION':18},'extensions':{'KHR_draco_mesh_compression':{'bufferView':0,'attributes':" \
    "{'POSITION':0}}}}"
#define DRACO_WHY                                                                                                \
    "extension KHR_draco_mesh_compression is not supported (compressed geometry cannot be read without a Draco " \
    "decoder)"

static void test_draco_is_refused_naming_the_extension(void **state)
{
    (void)state;
    write_gltf("draco.gltf", "'extensionsUsed':['KHR_draco_mesh_compression'],"
                             "'extensionsRequired':['KHR_draco_mesh_compression'],"
                             "'meshes':[{'name':'ball','primitives':[{'attributes':{'POSITION':7}}," DRACO_PRIM "]}],"
                             "'nodes':[{'mesh':0}]}");
    expect_open_error("draco.gltf", 0, "mesh 'ball' (0) primitive 1: " DRACO_WHY);
}

static void test_draco_with_skip_unsupported_warns_and_skips(void **state)
{
    (void)state;
    write_gltf("draco.gltf", "'extensionsRequired':['KHR_draco_mesh_compression'],"
                             "'meshes':[{'name':'ball','primitives':[{'attributes':{'POSITION':7}}," DRACO_PRIM "]},"
                             "{'primitives':[" DRACO_PRIM "]}],'nodes':[{'mesh':0},{'mesh':1}]}");
    warned.count = 0;
    gltf_scene *s = open_ok("draco.gltf", 1);
    assert_int_equal(warned.count, 0);
    pk_mesh m;
    load_ok(s, 0, &m);
    assert_int_equal(m.vertex_count, 3);
    assert_int_equal(m.index_count, 3);
    assert_int_equal(warned.count, 1);
    char want[512];
    snprintf(want, sizeof want, "%s: mesh 'ball' (0) primitive 1: " DRACO_WHY "; primitive skipped",
             path_of("draco.gltf"));
    assert_string_equal(warned.last, want);
    pk_mesh_free(&m);
    /* A mesh left with nothing loads empty. */
    load_ok(s, 1, &m);
    assert_int_equal(m.vertex_count, 0);
    assert_int_equal(m.index_count, 0);
    assert_null(m.positions);
    assert_null(m.indices);
    snprintf(want, sizeof want, "%s: mesh 1 primitive 0: " DRACO_WHY "; primitive skipped", path_of("draco.gltf"));
    assert_string_equal(warned.last, want);
    gltf_close(s);
}

static void test_meshopt_view_that_does_not_decode_is_refused(void **state)
{
    (void)state;
    /* View 14's compressed bytes are plain floats: no meshopt stream. */
    const char
        *want = "mesh 'm' (0) primitive 0: accessor 19 (POSITION): bufferView 14 (EXT_meshopt_compression): the 60 "
                "compressed bytes do not decode as 5 ATTRIBUTES of 12 bytes (meshoptimizer: -1)";
    write_gltf("meshopt.gltf", "'extensionsRequired':['EXT_meshopt_compression'],"
                               "'meshes':[{'name':'m','primitives':[{'attributes':{'POSITION':19},'indices':3}]}]}");
    expect_load_error("meshopt.gltf", want);
    write_gltf("meshopt.gltf", "'extensionsUsed':['EXT_meshopt_compression'],"
                               "'meshes':[{'name':'m','primitives':[{'attributes':{'POSITION':19},'indices':3}]}]}");
    expect_load_error("meshopt.gltf", want);
}

/* ---- EXT_meshopt_compression ------------------------------------------ */

/* mo.bin and name: two meshes whose every view is compressed (buffer 1 is
 * the fallback, never read). Views: 0 positions (ATTRIBUTES, 5 x 12),
 * 1 u16 indices (TRIANGLES, 6 x 2), 2 int8 normals (OCTAHEDRAL, 5 x 4), 3
 * float positions (EXPONENTIAL, 5 x 12), 4 int16 unit quaternions read as
 * uvs (QUATERNION, 5 x 8), 5 u32 indices (INDICES, 6 x 4). Mesh 0: 0, 1,
 * 2, 4; mesh 1: 3, 5. Then each (find, replace) pair of edits, n of them,
 * is applied once to the JSON (find must occur). */
static const float mo_normals[20] = {0, 0, 1, 0, 1, 0, 0, 0, 0, -1, 0, 0, 0.6f, 0.8f, 0, 0, 0, 0.6f, -0.8f, 0};
static const float mo_quats[20] = {0, 0, 0, 1, 1, 0, 0, 0, 0.6f, 0.8f, 0, 0, 0, 0, 0.8f, -0.6f, 0.5f, 0.5f, 0.5f, 0.5f};
static const float mo_far[15] = {1e-3f, 2e-3f, -4e-3f, 1000, 2000, -3000, 0.5f, 0.25f, 0.125f, -7, 11, 13, 0, 0, 1};
static const unsigned mo_tri[6] = {0, 1, 2, 2, 1, 3};

/* Where write_meshopt_gltf put each view's compressed bytes in mo.bin, and
 * its size; the extension it names (KHR_meshopt_compression has the same
 * fields). */
static size_t mo_off[6], mo_len[6], mo_size;
static const char *mo_ext = "EXT_meshopt_compression";

static void write_meshopt_gltf(const char *name, int n, const char *const *edits)
{
    unsigned char blob[2048], raw[64];
    size_t at = 0, *off = mo_off, *len = mo_len;
    off[0] = at, at += len[0] = meshopt_encodeVertexBuffer(blob + at, sizeof blob - at, pos5, 5, 12);
    off[1] = at, at += len[1] = meshopt_encodeIndexBuffer(blob + at, sizeof blob - at, mo_tri, 6);
    meshopt_encodeFilterOct(raw, 5, 4, 8, mo_normals);
    off[2] = at, at += len[2] = meshopt_encodeVertexBuffer(blob + at, sizeof blob - at, raw, 5, 4);
    meshopt_encodeFilterExp(raw, 5, 12, 24, mo_far);
    off[3] = at, at += len[3] = meshopt_encodeVertexBuffer(blob + at, sizeof blob - at, raw, 5, 12);
    meshopt_encodeFilterQuat(raw, 5, 8, 16, mo_quats);
    off[4] = at, at += len[4] = meshopt_encodeVertexBuffer(blob + at, sizeof blob - at, raw, 5, 8);
    off[5] = at, at += len[5] = meshopt_encodeIndexSequence(blob + at, sizeof blob - at, mo_tri, 6);
    for (int k = 0; k < 6; k++) {
        assert_true(len[k] > 0);
    }
    write_bytes("mo.bin", blob, at);
    mo_size = at;
    static const char *const views[6][5] = {
        {"0", "60", "'byteStride':12,", "12", "'mode':'ATTRIBUTES'"},
        {"60", "12", "", "2", "'mode':'TRIANGLES'"},
        {"72", "20", "'byteStride':4,", "4", "'mode':'ATTRIBUTES','filter':'OCTAHEDRAL'"},
        {"92", "60", "'byteStride':12,", "12", "'mode':'ATTRIBUTES','filter':'EXPONENTIAL'"},
        {"152", "40", "'byteStride':8,", "8", "'mode':'ATTRIBUTES','filter':'QUATERNION'"},
        {"192", "24", "", "4", "'mode':'INDICES'"}};
    static const unsigned counts[6] = {5, 6, 5, 5, 5, 6};
    char json[8192];
    int k = snprintf(json, sizeof json,
                     "{'asset':{'version':'2.0'},'extensionsUsed':['%s'],'extensionsRequired':['%s'],"
                     "'buffers':[{'uri':'mo.bin','byteLength':%zu},"
                     "{'byteLength':216,'extensions':{'%s':{'fallback':true}}}],'bufferViews':[",
                     mo_ext, mo_ext, at, mo_ext);
    for (int v = 0; v < 6; v++) {
        k += snprintf(json + k, sizeof json - (size_t)k,
                      "%s{'buffer':1,'byteOffset':%s,'byteLength':%s,%s'extensions':{'%s':"
                      "{'buffer':0,'byteOffset':%zu,'byteLength':%zu,'byteStride':%s,%s,'count':%u}}}",
                      v ? "," : "", views[v][0], views[v][1], views[v][2], mo_ext, off[v], len[v], views[v][3],
                      views[v][4], counts[v]);
    }
    snprintf(json + k, sizeof json - (size_t)k,
             "],'accessors':["
             "{'bufferView':0,'componentType':5126,'count':5,'type':'VEC3'},"
             "{'bufferView':1,'componentType':5123,'count':6,'type':'SCALAR'},"
             "{'bufferView':2,'componentType':5120,'normalized':true,'count':5,'type':'VEC3'},"
             "{'bufferView':3,'componentType':5126,'count':5,'type':'VEC3'},"
             "{'bufferView':4,'componentType':5122,'normalized':true,'count':5,'type':'VEC2'},"
             "{'bufferView':5,'componentType':5125,'count':6,'type':'SCALAR'}],"
             "'meshes':[{'name':'m','primitives':[{'attributes':{'POSITION':0,'NORMAL':2,'TEXCOORD_0':4},"
             "'indices':1}]},{'name':'e','primitives':[{'attributes':{'POSITION':3},'indices':5}]}],"
             "'nodes':[{'mesh':0},{'mesh':1}]}");
    for (int e = 0; e < n; e++) {
        char *hit = strstr(json, edits[2 * e]);
        if (hit == NULL) {
            fail_msg("edit %d: '%s' is not in the JSON", e, edits[2 * e]);
        }
        size_t fl = strlen(edits[2 * e]), rl = strlen(edits[2 * e + 1]);
        assert_true(strlen(json) - fl + rl < sizeof json);
        memmove(hit + rl, hit + fl, strlen(hit + fl) + 1);
        memcpy(hit, edits[2 * e + 1], rl);
    }
    write_json(name, "%s", json);
}

static void test_meshopt_views_decode_with_every_mode_and_filter(void **state)
{
    (void)state;
    write_meshopt_gltf("mo.gltf", 0, NULL);
    pk_mesh m;
    gltf_scene *s = open_load("mo.gltf", &m);
    expect_floats(m.positions, pos5, 15);
    expect_indices(&m, (const uint32_t[]){0, 1, 2, 2, 1, 3}, 6);
    assert_non_null(m.normals);
    for (int v = 0; v < 5; v++) { /* 8-bit octahedral: within 1/64 of the unit vector */
        for (int c = 0; c < 3; c++) {
            if (fabsf(m.normals[3 * v + c] - mo_normals[4 * v + c]) > 1.0f / 64) {
                fail_msg("normal %d.%d: got %f, want %f", v, c, m.normals[3 * v + c], mo_normals[4 * v + c]);
            }
        }
    }
    for (int v = 0; v < 5; v++) { /* 16-bit quaternions: x and y within 1e-3 (or the negated quaternion) */
        float sign = m.uvs[2 * v] * mo_quats[4 * v] + m.uvs[2 * v + 1] * mo_quats[4 * v + 1] < 0 ? -1.0f : 1.0f;
        for (int c = 0; c < 2; c++) {
            if (fabsf(sign * m.uvs[2 * v + c] - mo_quats[4 * v + c]) > 1e-3f) {
                fail_msg("quaternion %d.%d: got %f, want %f", v, c, m.uvs[2 * v + c], mo_quats[4 * v + c]);
            }
        }
    }
    pk_mesh_free(&m);
    load_ok(s, 1, &m);
    for (int c = 0; c < 15; c++) { /* 24-bit mantissas shared per vertex: relative to its largest component */
        float big = fmaxf(fmaxf(fabsf(mo_far[c / 3 * 3]), fabsf(mo_far[c / 3 * 3 + 1])), fabsf(mo_far[c / 3 * 3 + 2]));
        if (fabsf(m.positions[c] - mo_far[c]) > big * 1e-6f) {
            fail_msg("exponential %d: got %g, want %g", c, m.positions[c], mo_far[c]);
        }
    }
    expect_indices(&m, (const uint32_t[]){0, 1, 2, 2, 1, 3}, 6);
    pk_mesh_free(&m);
    gltf_close(s);
    /* KHR_meshopt_compression has the same fields. */
    mo_ext = "KHR_meshopt_compression";
    write_meshopt_gltf("mo.gltf", 0, NULL);
    mo_ext = "EXT_meshopt_compression";
    s = open_load("mo.gltf", &m);
    expect_floats(m.positions, pos5, 15);
    pk_mesh_free(&m);
    gltf_close(s);
}

static void test_meshopt_fallback_buffer_is_never_opened(void **state)
{
    (void)state;
    /* A fallback with a uri that names no file: still not needed. */
    static const char *const missing[] = {"{'byteLength':216,", "{'uri':'gone.bin','byteLength':216,"};
    write_meshopt_gltf("mo.gltf", 1, missing);
    pk_mesh m;
    gltf_scene *s = open_load("mo.gltf", &m);
    expect_floats(m.positions, pos5, 15);
    pk_mesh_free(&m);
    gltf_close(s);
    /* Compressed bytes in the fallback itself: nothing to read them from. */
    static const char *const from_fallback[] = {"{'buffer':0,'byteOffset':0,", "{'buffer':1,'byteOffset':0,"};
    write_meshopt_gltf("mo.gltf", 1, from_fallback);
    expect_open_error(
        "mo.gltf", 0,
        "mesh 'm' (0) primitive 0: accessor 0 (POSITION): bufferView 0.extensions.EXT_meshopt_compression: "
        "buffer 1 has no data (no uri, not a GLB's BIN chunk, or a meshopt fallback)");
}

/* mo.gltf with the edit (find, replace) fails to open with want, after
 * "PATH: bufferViews[N].extensions.EXT_meshopt_compression". */
static void expect_meshopt_refused(const char *find, const char *replace, const char *want)
{
    const char *const edit[2] = {find, replace};
    write_meshopt_gltf("mo.gltf", 1, edit);
    expect_open_error("mo.gltf", 0, want);
}

static void test_meshopt_bad_views_are_refused_naming_the_view_and_the_check(void **state)
{
    (void)state;
    expect_meshopt_refused("'byteStride':12,'mode':'ATTRIBUTES','count':5",
                           "'byteStride':6,'mode':'ATTRIBUTES','count':5",
                           "bufferViews[0].extensions.EXT_meshopt_compression.byteStride: 6 is not a multiple of 4 "
                           "in [4, 256] (mode ATTRIBUTES)");
    expect_meshopt_refused("'byteStride':2,'mode':'TRIANGLES'", "'byteStride':1,'mode':'TRIANGLES'",
                           "bufferViews[1].extensions.EXT_meshopt_compression.byteStride: 1 is not 2 or 4 (mode "
                           "TRIANGLES)");
    expect_meshopt_refused("'byteStride':4,'mode':'INDICES'", "'byteStride':3,'mode':'INDICES'",
                           "bufferViews[5].extensions.EXT_meshopt_compression.byteStride: 3 is not 2 or 4 (mode "
                           "INDICES)");
    expect_meshopt_refused("'mode':'TRIANGLES'", "'mode':'STRIPS'",
                           "bufferViews[1].extensions.EXT_meshopt_compression.mode: 'STRIPS' is not ATTRIBUTES, "
                           "TRIANGLES or INDICES");
    expect_meshopt_refused("'filter':'OCTAHEDRAL'", "'filter':'COLOR'",
                           "bufferViews[2].extensions.EXT_meshopt_compression.filter: 'COLOR' is not NONE, "
                           "OCTAHEDRAL, QUATERNION or EXPONENTIAL");
    expect_meshopt_refused("'mode':'TRIANGLES'", "'mode':'TRIANGLES','filter':'EXPONENTIAL'",
                           "bufferViews[1].extensions.EXT_meshopt_compression.filter: EXPONENTIAL applies to mode "
                           "ATTRIBUTES only, not TRIANGLES");
    expect_meshopt_refused("'filter':'EXPONENTIAL'", "'filter':'OCTAHEDRAL'",
                           "bufferViews[3].extensions.EXT_meshopt_compression.byteStride: 12 is not 4 or 8 (filter "
                           "OCTAHEDRAL)");
    expect_meshopt_refused("'filter':'OCTAHEDRAL'", "'filter':'QUATERNION'",
                           "bufferViews[2].extensions.EXT_meshopt_compression.byteStride: 4 is not 8 (filter "
                           "QUATERNION)");
    expect_meshopt_refused("'mode':'TRIANGLES','count':6", "'mode':'TRIANGLES','count':5",
                           "bufferViews[1].extensions.EXT_meshopt_compression.count: 5 is not a multiple of 3 (mode "
                           "TRIANGLES)");
    expect_meshopt_refused("'mode':'ATTRIBUTES','count':5", "'mode':'ATTRIBUTES','count':100000000",
                           "bufferViews[0].extensions.EXT_meshopt_compression.count x byteStride: 100000000 x 12 = "
                           "1200000000 bytes, more than the importer's limit of 1073741824");
    expect_meshopt_refused("'mode':'ATTRIBUTES','count':5", "'mode':'ATTRIBUTES','count':4",
                           "bufferViews[0].extensions.EXT_meshopt_compression.count x byteStride: 4 x 12 = 48 bytes, "
                           "but the bufferView's byteLength is 60");
    expect_meshopt_refused("'byteLength':60,'byteStride':12,'extensions'",
                           "'byteLength':60,'byteStride':20,'extensions'",
                           "bufferViews[0].extensions.EXT_meshopt_compression.byteStride: 12, but the bufferView's "
                           "byteStride is 20");
    expect_meshopt_refused("'mode':'INDICES',", "", "bufferViews[5].extensions.EXT_meshopt_compression.mode: missing");
    expect_meshopt_refused("'mode':'INDICES','count':6", "'mode':'INDICES','count':6.5",
                           "bufferViews[5].extensions.EXT_meshopt_compression.count: not a whole number in [0, "
                           "4294967295]");
    expect_meshopt_refused("'mode':'INDICES'", "'mode':3",
                           "bufferViews[5].extensions.EXT_meshopt_compression.mode: expected a string");
    expect_meshopt_refused("{'buffer':0,'byteOffset':0,", "{'buffer':7,'byteOffset':0,",
                           "bufferViews[0].extensions.EXT_meshopt_compression.buffer: index 7 out of range (2 "
                           "buffers)");
    expect_meshopt_refused("{'EXT_meshopt_compression':{'buffer':0", "{'EXT_meshopt_compression':7,'x':{'buffer':0",
                           "bufferViews[0].extensions.EXT_meshopt_compression: expected an object");
    /* Compressed bytes past the end of their buffer. */
    char want[256], find[64], repl[64];
    snprintf(find, sizeof find, "'byteOffset':%zu,'byteLength':%zu,", mo_off[5], mo_len[5]);
    snprintf(repl, sizeof repl, "'byteOffset':%zu,'byteLength':%zu,", mo_off[5], mo_len[5] + 1);
    snprintf(want, sizeof want,
             "bufferViews[5].extensions.EXT_meshopt_compression: compressed bytes [%zu, %zu) lie outside buffer 0 "
             "(%zu bytes)",
             mo_off[5], mo_off[5] + mo_len[5] + 1, mo_size);
    expect_meshopt_refused(find, repl, want);
}

/* Decoded views are kept up to PK_GLTF_MESHOPT_CACHE_BYTES, least recently
 * read freed first: meshes 0, 1 and 2 each read their own positions view of
 * big.bin (over half the bound), mesh 3 shares mesh 0's. */
static void test_meshopt_decoded_views_stay_within_the_bound(void **state)
{
    (void)state;
    const uint32_t n = 3000000; /* 36 MB of positions: two pass the 64 MiB bound */
    uint64_t view = (uint64_t)n * 12;
    assert_int_equal(PK_GLTF_MESHOPT_CACHE_BYTES, 64u << 20); /* as README.md says */
    assert_true(2 * view > PK_GLTF_MESHOPT_CACHE_BYTES && view < PK_GLTF_MESHOPT_CACHE_BYTES);
    float *zeros = calloc((size_t)n * 3, sizeof *zeros);
    size_t cap = meshopt_encodeVertexBufferBound(n, 12);
    unsigned char *enc = malloc(cap);
    assert_non_null(zeros);
    assert_non_null(enc);
    size_t len = meshopt_encodeVertexBuffer(enc, cap, zeros, n, 12);
    assert_true(len > 0);
    write_bytes("big.bin", enc, len);
    free(enc);
    free(zeros);
    char views[1024] = "", accessors[512] = "";
    for (int v = 0; v < 3; v++) {
        size_t k = strlen(views), j = strlen(accessors);
        snprintf(views + k, sizeof views - k,
                 "%s{'buffer':1,'byteLength':%llu,'byteStride':12,'extensions':{'EXT_meshopt_compression':"
                 "{'buffer':0,'byteLength':%zu,'byteStride':12,'mode':'ATTRIBUTES','count':%u}}}",
                 v ? "," : "", (unsigned long long)view, len, n);
        snprintf(accessors + j, sizeof accessors - j,
                 "%s{'bufferView':%d,'componentType':5126,'count':%u,'type':'VEC3'}", v ? "," : "", v, n);
    }
    write_json("big.gltf",
               "{'asset':{'version':'2.0'},'extensionsRequired':['EXT_meshopt_compression'],"
               "'buffers':[{'uri':'big.bin','byteLength':%zu},{'byteLength':%llu}],'bufferViews':[%s],"
               "'accessors':[%s],'meshes':[{'primitives':[{'attributes':{'POSITION':0}}]},"
               "{'primitives':[{'attributes':{'POSITION':1}}]},{'primitives':[{'attributes':{'POSITION':2}}]},"
               "{'primitives':[{'attributes':{'POSITION':0}}]}]}",
               len, (unsigned long long)view, views, accessors);
    gltf_scene *s = open_ok("big.gltf", 0);
    assert_int_equal(gltf_meshopt_held_bytes(s), 0);
    static const uint32_t order[4] = {0, 3, 1, 2};
    for (int k = 0; k < 4; k++) {
        pk_mesh m;
        load_ok(s, order[k], &m);
        assert_int_equal(m.vertex_count, n);
        pk_mesh_free(&m);
        /* One view held after each: mesh 3 reads the copy mesh 0 left, and
         * meshes 1 and 2 each free the one before. */
        assert_int_equal(gltf_meshopt_held_bytes(s), view);
    }
    gltf_close(s);
}

static void test_meshopt_truncated_stream_is_refused_at_load(void **state)
{
    (void)state;
    write_meshopt_gltf("mo.gltf", 0, NULL);
    char want[320], find[64], repl[64];
    snprintf(find, sizeof find, "'byteOffset':%zu,'byteLength':%zu,", mo_off[1], mo_len[1]);
    snprintf(repl, sizeof repl, "'byteOffset':%zu,'byteLength':%zu,", mo_off[1], mo_len[1] - 1);
    const char *const edit[2] = {find, repl};
    write_meshopt_gltf("mo.gltf", 1, edit);
    snprintf(want, sizeof want,
             "mesh 'm' (0) primitive 0: accessor 1 (indices): bufferView 1 (EXT_meshopt_compression): the %zu "
             "compressed bytes do not decode as 6 TRIANGLES of 2 bytes (meshoptimizer: -2)",
             mo_len[1] - 1);
    expect_load_error("mo.gltf", want);
}
static void test_points_and_lines_are_refused(void **state)
{
    (void)state;
    write_gltf("points.gltf", ONE_PRIM("{'attributes':{'POSITION':7},'mode':0}"));
    expect_open_error("points.gltf", 0,
                      "mesh 'm' (0) primitive 0: mode 0 (POINTS) is not supported: only triangles, triangle strips "
                      "and fans are imported");
    write_gltf("lines.gltf", ONE_PRIM("{'attributes':{'POSITION':7}},{'attributes':{'POSITION':7},'mode':3}"));
    expect_open_error("lines.gltf", 0,
                      "mesh 'm' (0) primitive 1: mode 3 (LINE_STRIP) is not supported: only triangles, triangle "
                      "strips and fans are imported");
}

static void test_points_with_skip_unsupported_warn_and_are_skipped(void **state)
{
    (void)state;
    write_gltf("points.gltf", ONE_PRIM("{'attributes':{'POSITION':0},'mode':0},{'attributes':{'POSITION':7}}"));
    warned.count = 0;
    gltf_scene *s = open_ok("points.gltf", 1);
    pk_mesh m;
    load_ok(s, 0, &m);
    assert_int_equal(m.vertex_count, 3);
    const uint32_t want[3] = {0, 1, 2};
    expect_indices(&m, want, 3);
    assert_int_equal(warned.count, 1);
    char w[512];
    snprintf(w, sizeof w,
             "%s: mesh 'm' (0) primitive 0: mode 0 (POINTS) is not supported: only triangles, triangle strips and "
             "fans are imported; primitive skipped",
             path_of("points.gltf"));
    assert_string_equal(warned.last, w);
    pk_mesh_free(&m);
    gltf_close(s);
}

static void test_missing_bin_is_refused_naming_file_and_uri(void **state)
{
    (void)state;
    char fmt[8192], want[512];
    snprintf(fmt, sizeof fmt, "%s%s", head, ONE_PRIM("{'attributes':{'POSITION':7}}"));
    write_json("missing.gltf", fmt, "'uri':'no%20such.bin',");
    snprintf(want, sizeof want, "buffer 0 'no%%20such.bin': cannot open %s: No such file or directory",
             path_of("no such.bin"));
    expect_open_error("missing.gltf", 0, want);
    /* Skipped: the open succeeds, the primitive is skipped with a warning. */
    warned.count = 0;
    gltf_scene *s = open_ok("missing.gltf", 1);
    pk_mesh m;
    load_ok(s, 0, &m);
    assert_int_equal(m.vertex_count, 0);
    snprintf(want, sizeof want,
             "%s: mesh 'm' (0) primitive 0: accessor 7 (POSITION): buffer 0 'no%%20such.bin' cannot be read (cannot "
             "open %s: No such file or directory); primitive skipped",
             path_of("missing.gltf"), path_of("no such.bin"));
    assert_int_equal(warned.count, 1);
    assert_string_equal(warned.last, want);
    gltf_close(s);
}

static void test_bad_glb_magic_is_refused(void **state)
{
    (void)state;
    size_t n = build_glb(glb, sizeof glb, ONE_PRIM("{'attributes':{'POSITION':7}}"));
    glb[0] = 'h';
    write_bytes("magic.glb", glb, n);
    expect_open_error("magic.glb", 0, "not a GLB file: the magic is 0x46546c68, expected 0x46546c67 ('glTF')");
    glb[0] = 'g';
    glb[4] = 1;
    write_bytes("magic.glb", glb, n);
    expect_open_error("magic.glb", 0, "GLB version 1 is not supported (only 2)");
}

static void test_every_truncation_of_a_glb_is_refused(void **state)
{
    (void)state;
    size_t n = build_glb(glb, sizeof glb, ONE_PRIM("{'attributes':{'POSITION':0},'indices':3}"));
    char want[128];
    for (size_t len = 0; len < n; len++) {
        write_bytes("cut.glb", glb, len);
        if (len < 12) {
            snprintf(want, sizeof want, "truncated GLB: %zu bytes, less than the 12-byte header", len);
        } else {
            snprintf(want, sizeof want, "truncated GLB: the header says %zu bytes but the file has %zu", n, len);
        }
        expect_open_error("cut.glb", 0, want);
    }
    /* A header that agrees with the cut file: chunk lengths are checked. */
    glb[8] = (unsigned char)(n - 4);
    glb[9] = (unsigned char)((n - 4) >> 8);
    write_bytes("cut.glb", glb, n - 4);
    snprintf(want, sizeof want, "GLB: the BIN chunk of 316 bytes runs past the end of the file (%zu bytes)", n - 4);
    expect_open_error("cut.glb", 0, want);
}

static void test_accessor_past_its_view_is_refused(void **state)
{
    (void)state;
    write_gltf("oob.gltf", ONE_PRIM("{'attributes':{'POSITION':8}}"));
    expect_load_error("oob.gltf", "mesh 'm' (0) primitive 0: accessor 8 (POSITION): 6 elements of 12 bytes (stride 12) "
                                  "from byte 0 end at byte 72, past the end of bufferView 0 (60 bytes)");
    /* A view past its buffer is refused at open. */
    write_json("oob.gltf", "{'asset':{'version':'2.0'},'buffers':[{'uri':'geometry.bin','byteLength':316}],"
                           "'bufferViews':[{'buffer':0,'byteOffset':300,'byteLength':20}]}");
    expect_open_error("oob.gltf", 0, "bufferViews[0]: bytes [300, 320) lie outside buffer 0 (316 bytes)");
    /* A byteLength past the file. */
    write_json("oob.gltf", "{'asset':{'version':'2.0'},'buffers':[{'uri':'geometry.bin','byteLength':400}]}");
    char want[256];
    snprintf(want, sizeof want, "buffer 0 'geometry.bin': %s has 316 bytes, fewer than its byteLength 400",
             path_of("geometry.bin"));
    expect_open_error("oob.gltf", 0, want);
}

static void test_index_out_of_range_is_refused(void **state)
{
    (void)state;
    write_gltf("range.gltf", ONE_PRIM("{'attributes':{'POSITION':0},'indices':6}"));
    expect_load_error("range.gltf", "mesh 'm' (0) primitive 0: accessor 6 (indices): index 5 (at 2) is out of range: "
                                    "POSITION has 5 vertices");
}

/* An index buffer holding its component type's maximum (a primitive
 * restart to a GPU) is refused, whatever the vertex count. */
static void test_primitive_restart_index_is_refused(void **state)
{
    (void)state;
    static const struct {
        unsigned ctype, bytes;
        const char *data, *max;
    } cases[] = {
        {5121, 3, "AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAAAAH/", "255"},
        {5123, 6, "AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAAAAABAP//", "65535"},
        {5125, 12, "AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAAAAAAAAEAAAD/////", "4294967295"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        write_json("restart.gltf",
                   "{'asset':{'version':'2.0'},'buffers':[{'uri':'data:application/octet-stream;base64,%s',"
                   "'byteLength':%u}],'bufferViews':[{'buffer':0,'byteLength':36},{'buffer':0,'byteOffset':36,"
                   "'byteLength':%u}],'accessors':[{'bufferView':0,'componentType':5126,'count':3,'type':'VEC3'},"
                   "{'bufferView':1,'componentType':%u,'count':3,'type':'SCALAR'}],"
                   "'meshes':[{'name':'m','primitives':[{'attributes':{'POSITION':0},'indices':1}]}],"
                   "'nodes':[{'mesh':0}]}",
                   cases[i].data, 36 + cases[i].bytes, cases[i].bytes, cases[i].ctype);
        char want[256];
        snprintf(want, sizeof want,
                 "mesh 'm' (0) primitive 0: accessor 1 (indices): index %s (at 2) is the maximum of its component "
                 "type (a primitive restart), which glTF forbids",
                 cases[i].max);
        expect_load_error("restart.gltf", want);
    }
}

/* The indices of what the importer does not read are checked as every
 * other index is: present means naming an element. */
static void test_unread_indices_are_checked(void **state)
{
    (void)state;
    static const struct {
        const char *json, *want;
    } cases[] = {
        {"'materials':[{}],'meshes':[{'primitives':[{'attributes':{'POSITION':0},'material':4294967295}]}]}",
         "meshes[0].primitives[0].material: index 4294967295 out of range (1 material)"},
        {"'meshes':[{'primitives':[{'attributes':{'POSITION':0},'material':0}]}]}",
         "meshes[0].primitives[0].material: index 0 out of range (0 materials)"},
        {"'meshes':[{'primitives':[{'attributes':{'POSITION':0},'targets':[{'POSITION':0},{'NORMAL':20}]}]}]}",
         "meshes[0].primitives[0].targets[1].NORMAL: index 20 out of range (20 accessors)"},
        {"'meshes':[],'nodes':[{'skin':1}],'skins':[{'joints':[0]}]}", "nodes[0].skin: index 1 out of range (1 skin)"},
        {"'meshes':[],'nodes':[{'camera':0}]}", "nodes[0].camera: index 0 out of range (0 cameras)"},
        {"'meshes':[],'nodes':[{}],'skins':[{'joints':[0,3]}]}", "skins[0].joints[1]: index 3 out of range (1 node)"},
        {"'meshes':[],'skins':[{'joints':[],'inverseBindMatrices':-1}]}",
         "skins[0].inverseBindMatrices: -1 is not an index into accessors"},
        {"'meshes':[],'textures':[{'source':2}],'images':[{'uri':'a.png'}]}",
         "textures[0].source: index 2 out of range (1 image)"},
        {"'meshes':[],'textures':[{'sampler':0}]}", "textures[0].sampler: index 0 out of range (0 samplers)"},
        {"'meshes':[],'images':[{'bufferView':99,'mimeType':'image/png'}]}",
         "images[0].bufferView: index 99 out of range (15 bufferViews)"},
        {"'meshes':[],'textures':[{}],'materials':[{'pbrMetallicRoughness':{'baseColorTexture':{'index':1}}}]}",
         "materials[0].pbrMetallicRoughness.baseColorTexture.index: index 1 out of range (1 texture)"},
        {"'meshes':[],'textures':[{'source':0}],'images':[{'uri':'a.png'}],"
         "'materials':[{'normalTexture':{'index':0}},{'emissiveTexture':{'index':5}}]}",
         "materials[1].emissiveTexture.index: index 5 out of range (1 texture)"},
        {"'meshes':[],'animations':[{'samplers':[{'input':0,'output':1}],'channels':[{'sampler':1,'target':{}}]}]}",
         "animations[0].channels[0].sampler: index 1 out of range (1 sampler)"},
        {"'meshes':[],'animations':[{'samplers':[],'channels':[{'target':{'node':0}}]}]}",
         "animations[0].channels[0].target.node: index 0 out of range (0 nodes)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        write_gltf("unread.gltf", cases[i].json);
        expect_open_error("unread.gltf", 0, cases[i].want);
    }
}

static void test_invalid_json_is_refused_with_its_place(void **state)
{
    (void)state;
    write_json("bad.gltf", "{'asset':{'version':'2.0'},\n  'meshes':[}");
    expect_open_error("bad.gltf", 0, "invalid JSON at line 2, column 13");
    write_json("bad.gltf", "[1,2]");
    expect_open_error("bad.gltf", 0, "the JSON is not an object");
    write_json("bad.gltf", "{'asset':{'version':'1.0'}}");
    expect_open_error("bad.gltf", 0, "asset.version is '1.0': only glTF 2.x is supported");
}

static void test_structural_errors_are_refused_at_open(void **state)
{
    (void)state;
    write_gltf("struct.gltf", ONE_PRIM("{'attributes':{'POSITION':99}}"));
    expect_open_error("struct.gltf", 0,
                      "meshes[0].primitives[0].attributes.POSITION: index 99 out of range (20 accessors)");
    write_gltf("struct.gltf", ONE_PRIM("{'attributes':{'POSITION':'0'}}"));
    expect_open_error("struct.gltf", 0,
                      "meshes[0].primitives[0].attributes.POSITION: expected an index into accessors");
    write_gltf("struct.gltf", ONE_PRIM("{'attributes':{'POSITION':7},'mode':9}"));
    expect_open_error("struct.gltf", 0, "meshes[0].primitives[0].mode: 9 is not a glTF primitive mode (0 to 6)");
    write_gltf("struct.gltf", "'extensionsRequired':['EXT_frobnicate'],'meshes':[]}");
    expect_open_error("struct.gltf", 0, "extension EXT_frobnicate is required but not supported");
    write_gltf("struct.gltf", "'meshes':[],'nodes':[{'children':[1]},{'children':[0]}]}");
    expect_open_error("struct.gltf", 0, "node 0 is part of a cycle in the node hierarchy");
    write_gltf("struct.gltf", "'meshes':[],'nodes':[{'children':[0]}]}");
    expect_open_error("struct.gltf", 0, "node 0 is part of a cycle in the node hierarchy");
    write_gltf("struct.gltf", "'meshes':[],'nodes':[{'children':[2]},{'children':[2]},{}]}");
    expect_open_error("struct.gltf", 0, "node 2 is the child of 2 nodes (the node hierarchy must be a set of trees)");
    write_gltf("struct.gltf", "'meshes':[],'nodes':[{'children':[5]},{}]}");
    expect_open_error("struct.gltf", 0, "nodes[0].children[0]: index 5 out of range (2 nodes)");
    write_gltf("struct.gltf", "'meshes':[],'nodes':[{}],'scenes':[{'nodes':[0,0]}]}");
    expect_open_error("struct.gltf", 0,
                      "scenes[0].nodes[1]: node 0 is already in the scene (listed twice, or not a root node)");
    write_gltf("struct.gltf", "'meshes':[],'nodes':[{}],'scenes':[{'nodes':[0]}],'scene':1}");
    expect_open_error("struct.gltf", 0, "glTF.scene: index 1 out of range (1 scene)");
    write_gltf("struct.gltf", "'meshes':[],'nodes':[{'matrix':[1,0,0]}]}");
    expect_open_error("struct.gltf", 0, "nodes[0].matrix: expected an array of 16 numbers");
}

/* ---- references and paths --------------------------------------------- */

/* A .gltf over geometry.bin without the shared head: one buffer, one view
 * of the 60 bytes of positions, one accessor of 5 positions; views,
 * accessors and rest ("'meshes':...}") replace the defaults when not NULL. */
static void write_small(const char *name, const char *views, const char *accessors, const char *rest)
{
    bin b;
    build_geometry(&b);
    write_bytes("geometry.bin", b.b, b.n);
    write_json(name,
               "{'asset':{'version':'2.0'},'buffers':[{'uri':'geometry.bin','byteLength':316}],"
               "'bufferViews':[%s],'accessors':[%s],%s",
               views != NULL ? views : "{'buffer':0,'byteLength':60}",
               accessors != NULL ? accessors : "{'bufferView':0,'componentType':5126,'count':3,'type':'VEC3'}",
               rest != NULL ? rest : ONE_PRIM("{'attributes':{'POSITION':0}}"));
}

/* bufferViews[i].buffer of 4294967295 was read as "absent" and then used as
 * an index: a crash, not a message. */
static void test_buffer_view_buffer_4294967295_is_refused(void **state)
{
    (void)state;
    write_small("ref.gltf", "{'buffer':4294967295,'byteLength':60}", NULL, NULL);
    expect_open_error("ref.gltf", 0, "bufferViews[0].buffer: index 4294967295 out of range (1 buffer)");
    write_small("ref.gltf", "{'buffer':0,'byteLength':60},{'buffer':1,'byteLength':60}", NULL, NULL);
    expect_open_error("ref.gltf", 0, "bufferViews[1].buffer: index 1 out of range (1 buffer)");
}

static void test_sparse_views_4294967295_are_refused(void **state)
{
    (void)state;
    write_small("ref.gltf", NULL,
                "{'componentType':5126,'count':3,'type':'VEC3','sparse':{'count':1,"
                "'indices':{'bufferView':4294967295,'componentType':5123},'values':{'bufferView':0}}}",
                NULL);
    expect_open_error("ref.gltf", 0,
                      "accessors[0].sparse.indices.bufferView: index 4294967295 out of range (1 bufferView)");
    write_small("ref.gltf", NULL,
                "{'componentType':5126,'count':3,'type':'VEC3','sparse':{'count':1,"
                "'indices':{'bufferView':0,'componentType':5123},'values':{'bufferView':4294967295}}}",
                NULL);
    expect_open_error("ref.gltf", 0,
                      "accessors[0].sparse.values.bufferView: index 4294967295 out of range (1 bufferView)");
}

/* Every other index the importer follows: 4294967295 (once read as absent),
 * one past the end, and numbers past 32 bits name their JSON path. */
static void test_every_present_index_past_its_array_is_refused_naming_its_path(void **state)
{
    (void)state;
    static const struct {
        const char *accessors, *rest, *want;
    } cases[] = {
        {"{'bufferView':4294967295,'componentType':5126,'count':3,'type':'VEC3'}", NULL,
         "accessors[0].bufferView: index 4294967295 out of range (1 bufferView)"},
        {NULL, ONE_PRIM("{'attributes':{'POSITION':4294967295}}"),
         "meshes[0].primitives[0].attributes.POSITION: index 4294967295 out of range (1 accessor)"},
        {NULL, ONE_PRIM("{'attributes':{'POSITION':0,'NORMAL':4294967295}}"),
         "meshes[0].primitives[0].attributes.NORMAL: index 4294967295 out of range (1 accessor)"},
        {NULL, ONE_PRIM("{'attributes':{'POSITION':0,'TEXCOORD_0':1}}"),
         "meshes[0].primitives[0].attributes.TEXCOORD_0: index 1 out of range (1 accessor)"},
        {NULL, ONE_PRIM("{'attributes':{'POSITION':0},'indices':4294967295}"),
         "meshes[0].primitives[0].indices: index 4294967295 out of range (1 accessor)"},
        {NULL, "'meshes':[{'primitives':[{'attributes':{'POSITION':0}}]}],'nodes':[{'mesh':4294967295}]}",
         "nodes[0].mesh: index 4294967295 out of range (1 mesh)"},
        {NULL, "'meshes':[{'primitives':[{'attributes':{'POSITION':0}}]}],'nodes':[{'mesh':4294967296}]}",
         "nodes[0].mesh: index 4294967296 out of range (1 mesh)"},
        {NULL, "'meshes':[{'primitives':[{'attributes':{'POSITION':0}}]}],'nodes':[{'mesh':1e300}]}",
         "nodes[0].mesh: index 1e+300 out of range (1 mesh)"},
        {NULL, "'meshes':[{'primitives':[{'attributes':{'POSITION':0}}]}],'nodes':[{'mesh':-1}]}",
         "nodes[0].mesh: -1 is not an index into meshes"},
        {NULL, "'meshes':[{'primitives':[{'attributes':{'POSITION':0}}]}],'nodes':[{'mesh':0.5}]}",
         "nodes[0].mesh: 0.5 is not an index into meshes"},
        {NULL, "'meshes':[{'primitives':[{'attributes':{'POSITION':0}}]}],'nodes':[{'mesh':'0'}]}",
         "nodes[0].mesh: expected an index into meshes"},
        {NULL, "'meshes':[{'primitives':[{'attributes':{'POSITION':0}}]}],'nodes':[{'children':[4294967295]}]}",
         "nodes[0].children[0]: index 4294967295 out of range (1 node)"},
        {NULL,
         "'meshes':[{'primitives':[{'attributes':{'POSITION':0}}]}],'nodes':[{'mesh':0}],"
         "'scenes':[{'nodes':[0]}],'scene':4294967295}",
         "glTF.scene: index 4294967295 out of range (1 scene)"},
        {NULL,
         "'meshes':[{'primitives':[{'attributes':{'POSITION':0}}]}],'nodes':[{'mesh':0}],"
         "'scenes':[{'nodes':[0]},{'nodes':[4294967295]}],'scene':1}",
         "scenes[1].nodes[0]: index 4294967295 out of range (1 node)"},
        {NULL,
         "'meshes':[{'primitives':[{'attributes':{'POSITION':0}}]}],'nodes':[{'mesh':0,'extensions':"
         "{'EXT_mesh_gpu_instancing':{'attributes':{'TRANSLATION':4294967295}}}}]}",
         "nodes[0].extensions.EXT_mesh_gpu_instancing.attributes.TRANSLATION: index 4294967295 out of range (1 "
         "accessor)"},
        {NULL, "'meshes':[{'primitives':[{'attributes':{'POSITION':0}}]},{'primitives':[]}],'nodes':[{'mesh':2}]}",
         "nodes[0].mesh: index 2 out of range (2 meshes)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        print_message("case %zu\n", i);
        write_small("ref.gltf", NULL, cases[i].accessors, cases[i].rest);
        expect_open_error("ref.gltf", 0, cases[i].want);
        expect_open_error("ref.gltf", 1, cases[i].want); /* bad data, not something to skip */
    }
    /* The same file with the references absent opens. */
    write_small("ref.gltf", NULL, NULL,
                "'meshes':[{'primitives':[{'attributes':{'POSITION':0}}]}],'nodes':[{'children':[1]},{'mesh':0}]}");
    gltf_scene *s = open_ok("ref.gltf", 0);
    assert_int_equal(gltf_instance_count(s), 1);
    gltf_close(s);
}

/* A buffer or image uri that leaves the glTF's folder (absolute, or a '..'
 * above it, percent-encoded or not) is refused unless allowed. */
static void test_uri_leaving_the_folder_is_refused_unless_allowed(void **state)
{
    (void)state;
    bin b;
    build_geometry(&b);
    write_bytes("geometry.bin", b.b, b.n);
    char sub[256];
    snprintf(sub, sizeof sub, "%s", path_of("sub"));
    assert_int_equal(mkdir(sub, 0700), 0);
    assert_int_equal(mkdir(path_of("sub/deeper"), 0700), 0);
    char abs_uri[300];
    snprintf(abs_uri, sizeof abs_uri, "%s", path_of("geometry.bin"));
    const char *outside[] = {"../geometry.bin",   "%2e%2e/geometry.bin",    "deeper/../../geometry.bin",
                             "..%2Fgeometry.bin", "../sub/../geometry.bin", abs_uri};
    /* each percent-decoded: the path the message names, after the glTF's folder */
    const char *decoded[] = {"../geometry.bin", "../geometry.bin",        "deeper/../../geometry.bin",
                             "../geometry.bin", "../sub/../geometry.bin", NULL};
    char real_sub[512], real_dir[512];
    assert_non_null(realpath(sub, real_sub));
    assert_non_null(realpath(path_of("."), real_dir));
    char fmt[8192], member[400], want[1024];
    snprintf(fmt, sizeof fmt, "%s%s", head, ONE_PRIM("{'attributes':{'POSITION':0},'indices':3}"));
    for (size_t i = 0; i < sizeof outside / sizeof outside[0]; i++) {
        print_message("uri %s\n", outside[i]);
        snprintf(member, sizeof member, "'uri':'%s',", outside[i]);
        write_json("sub/out.gltf", fmt, member);
        if (decoded[i] != NULL) {
            snprintf(want, sizeof want,
                     "buffers[0].uri '%s': '%s/%s' is outside the asset root %s (--asset-root DIR widens it; "
                     "--allow-outside-paths reads any path)",
                     outside[i], sub, decoded[i], real_sub);
        } else {
            snprintf(want, sizeof want,
                     "buffers[0].uri '%s': '%s' is an absolute path (--allow-outside-paths reads it)", outside[i],
                     outside[i]);
        }
        expect_open_error("sub/out.gltf", 0, want);
        expect_open_error("sub/out.gltf", 1, want);
        for (int how = 0; how < 2; how++) {
            /* --allow-outside-paths reads every one; --asset-root the
             * parent folder every relative one */
            if (how == 1 && decoded[i] == NULL) {
                continue;
            }
            gltf_options o = {0, on_warn, &warned, how == 0, how == 1 ? real_dir : NULL};
            gltf_scene *s = NULL;
            pk_diag d;
            if (gltf_open(path_of("sub/out.gltf"), &o, &s, &d) != 0) {
                fail_msg("allowed (%s): %s", how == 0 ? "--allow-outside-paths" : "--asset-root", d.message);
            }
            pk_mesh m;
            load_ok(s, 0, &m);
            expect_floats(m.positions, pos5, 15);
            pk_mesh_free(&m);
            gltf_close(s);
        }
    }
    /* The default asset root is the current directory when it holds the
     * glTF: from the test folder, sub/out.gltf may read ../geometry.bin. */
    write_json("sub/out.gltf", fmt, "'uri':'../geometry.bin',");
    char cwd[512];
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(real_dir), 0);
    gltf_options here = {0, on_warn, &warned, 0, NULL};
    gltf_scene *from_cwd = NULL;
    pk_diag dc;
    int rc_cwd = gltf_open("sub/out.gltf", &here, &from_cwd, &dc);
    assert_int_equal(chdir(cwd), 0);
    if (rc_cwd != 0) {
        fail_msg("from the folder above: %s", dc.message);
    }
    gltf_close(from_cwd);
    /* A path past PATH_MAX cannot be placed under the root: refused
     * (pk_asset_check, which every importer calls). */
    char long_path[PATH_MAX + 16];
    memset(long_path, 'd', sizeof long_path - 1);
    for (size_t k = 1; k + 1 < sizeof long_path; k += 2) {
        long_path[k] = '/';
    }
    long_path[sizeof long_path - 1] = '\0';
    pk_asset_root root;
    assert_int_equal(pk_asset_root_for(path_of("sub/out.gltf"), NULL, 0, &root, &dc), 0);
    assert_string_equal(root.dir, real_sub);
    char why[256];
    assert_int_equal(pk_asset_check(&root, long_path, long_path, why, sizeof why), -1);
    snprintf(want, sizeof want, "'%.48s...': the path is too long (%zu bytes; at most %d)", long_path,
             strlen(long_path), PATH_MAX - 1);
    assert_string_equal(why, want);
    /* Without a root (--allow-outside-paths), nothing is checked. */
    assert_int_equal(pk_asset_root_for(path_of("sub/out.gltf"), NULL, 1, &root, &dc), 0);
    assert_string_equal(root.dir, "");
    assert_int_equal(pk_asset_check(&root, "/etc/passwd", "/etc/passwd", why, sizeof why), 0);
    /* An --asset-root that is not a folder. */
    gltf_options bad_root = {0, on_warn, &warned, 0, "nowhere/at/all"};
    gltf_scene *none = NULL;
    assert_int_equal(gltf_open(path_of("sub/out.gltf"), &bad_root, &none, &dc), -1);
    assert_string_equal(dc.message, "--asset-root nowhere/at/all: No such file or directory");
    /* A '..' that stays inside is fine. */
    write_bytes("sub/geometry.bin", b.b, b.n);
    write_json("sub/out.gltf", fmt, "'uri':'deeper/./../geometry.bin',");
    gltf_scene *s = open_ok("sub/out.gltf", 0);
    gltf_close(s);
    /* Images are not read, but their uris are held to the same rule. */
    snprintf(fmt, sizeof fmt, "%s%s", head,
             "'images':[{'uri':'data:image/png;base64,AAAA'},{'uri':'../tex.png'}],"
             "'meshes':[{'primitives':[{'attributes':{'POSITION':0}}]}]}");
    write_json("sub/out.gltf", fmt, "'uri':'geometry.bin',");
    snprintf(want, sizeof want,
             "images[1].uri '../tex.png': '%s/../tex.png' is outside the asset root %s (--asset-root DIR widens it; "
             "--allow-outside-paths reads any path)",
             sub, real_sub);
    expect_open_error("sub/out.gltf", 0, want);
    unlink(path_of("sub/out.gltf"));
    unlink(path_of("sub/geometry.bin"));
    assert_int_equal(rmdir(path_of("sub/deeper")), 0);
    assert_int_equal(rmdir(sub), 0);
}

/* The files a scene reads besides itself, for a caller that must not
 * overwrite any of them. */
static void test_buffer_files_are_listed(void **state)
{
    (void)state;
    write_gltf("files.gltf", ONE_PRIM("{'attributes':{'POSITION':0},'indices':3}"));
    gltf_scene *s = open_ok("files.gltf", 0);
    assert_int_equal(gltf_buffer_count(s), 1);
    assert_string_equal(gltf_get_buffer_file(s, 0), path_of("geometry.bin"));
    gltf_close(s);
    size_t n = build_glb(glb, sizeof glb, ONE_PRIM("{'attributes':{'POSITION':0},'indices':3}"));
    write_bytes("files.glb", glb, n);
    s = open_ok("files.glb", 0);
    assert_int_equal(gltf_buffer_count(s), 1);
    assert_null(gltf_get_buffer_file(s, 0)); /* the GLB itself */
    gltf_close(s);
    char uri[600], fmt[8192];
    bin b;
    build_geometry(&b);
    data_uri_member(b.b, b.n, uri, sizeof uri);
    snprintf(fmt, sizeof fmt, "%s%s", head, ONE_PRIM("{'attributes':{'POSITION':0},'indices':3}"));
    write_json("files.gltf", fmt, uri);
    s = open_ok("files.gltf", 0);
    assert_null(gltf_get_buffer_file(s, 0)); /* a data: URI */
    gltf_close(s);
}

/* With skip_unsupported, what is left to import is known at open. */
static void test_importable_primitives_are_counted_at_open(void **state)
{
    (void)state;
    write_gltf("left.gltf", ONE_PRIM("{'attributes':{'POSITION':0},'mode':0},{'attributes':{'POSITION':7},'mode':1}"));
    gltf_scene *s = open_ok("left.gltf", 1);
    assert_int_equal(gltf_count_importable(s), 0);
    gltf_close(s);
    write_gltf("left.gltf", ONE_PRIM("{'attributes':{'POSITION':0},'mode':0},{'attributes':{'POSITION':7}}"));
    s = open_ok("left.gltf", 1);
    assert_int_equal(gltf_count_importable(s), 1);
    gltf_close(s);
}

/* Every prefix of a .gltf fails to open (never crashes, never leaks). */
static void test_every_prefix_of_a_gltf_is_refused(void **state)
{
    (void)state;
    write_gltf("whole.gltf", ONE_PRIM("{'attributes':{'POSITION':0},'indices':3}"));
    size_t n;
    FILE *f = fopen(path_of("whole.gltf"), "rb");
    assert_non_null(f);
    static char text[8192];
    n = fread(text, 1, sizeof text, f);
    fclose(f);
    gltf_options o = {0, NULL, NULL, 0, NULL};
    for (size_t len = 0; len < n; len++) {
        write_bytes("prefix.gltf", text, len);
        gltf_scene *s = NULL;
        pk_diag d;
        assert_int_equal(gltf_open(path_of("prefix.gltf"), &o, &s, &d), -1);
        assert_null(s);
        assert_true(strncmp(d.message, path_of("prefix.gltf"), strlen(path_of("prefix.gltf"))) == 0);
    }
}

/* One byte of a GLB's JSON replaced by each of a few characters: whatever
 * opens must load every mesh or fail with a message, nothing crashes. */
static void test_mutated_glb_json_never_crashes(void **state)
{
    (void)state;
    size_t n = build_glb(glb, sizeof glb,
                         "'meshes':[{'name':'m','primitives':[{'attributes':{'POSITION':9,'NORMAL':1,"
                         "'TEXCOORD_0':14},'indices':4,'mode':5},{'attributes':{'POSITION':15}}]}],"
                         "'nodes':[{'mesh':0,'children':[1]},{'mesh':0,'extensions':{'EXT_mesh_gpu_instancing':"
                         "{'attributes':{'TRANSLATION':7}}}}]}");
    static const char subst[] = "019-:\"}]e.";
    uint64_t seed = 0x5eed5eedu;
    print_message("seed %llu\n", (unsigned long long)seed);
    uint32_t json_len = glb[12] | (uint32_t)glb[13] << 8;
    int opened = 0, loaded = 0;
    static unsigned char copy[16384];
    gltf_options o = {1, NULL, NULL, 0, NULL};
    for (uint32_t at = 20; at < 20 + json_len; at++) {
        for (int tries = 0; tries < 2; tries++) {
            char c = subst[rng_next(&seed) % (sizeof subst - 1)];
            if (glb[at] == (unsigned char)c) {
                continue;
            }
            memcpy(copy, glb, n);
            copy[at] = (unsigned char)c;
            write_bytes("mutated.glb", copy, n);
            gltf_scene *s = NULL;
            pk_diag d;
            if (gltf_open(path_of("mutated.glb"), &o, &s, &d) != 0) {
                assert_true(d.message[0] != '\0');
                continue;
            }
            opened++;
            for (uint32_t i = 0; i < gltf_mesh_count(s); i++) {
                pk_mesh m;
                if (gltf_load_mesh(s, i, &m, &d) == 0) {
                    for (uint32_t k = 0; k < m.index_count; k++) {
                        assert_true(m.indices[k] < m.vertex_count);
                    }
                    loaded++;
                    pk_mesh_free(&m);
                } else {
                    assert_true(d.message[0] != '\0');
                }
            }
            for (uint32_t i = 0; i < gltf_instance_count(s); i++) {
                pk_instance in;
                gltf_get_instance(s, i, &in);
                assert_true(in.mesh < gltf_mesh_count(s));
            }
            gltf_close(s);
        }
    }
    assert_true(opened > 0 && loaded > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gltf_with_bin_loads_positions_normals_uvs_indices),
        cmocka_unit_test(test_data_uri_buffer_loads),
        cmocka_unit_test(test_glb_loads_from_its_bin_chunk),
        cmocka_unit_test(test_interleaved_byte_stride_is_honoured),
        cmocka_unit_test(test_sparse_accessor_overrides_its_base),
        cmocka_unit_test(test_quantized_attributes_are_converted_per_spec),
        cmocka_unit_test(test_uint8_uint16_uint32_indices_load_alike),
        cmocka_unit_test(test_non_indexed_triangles_get_sequential_indices),
        cmocka_unit_test(test_triangle_strip_becomes_a_list),
        cmocka_unit_test(test_triangle_fan_becomes_a_list),
        cmocka_unit_test(test_primitives_merge_and_missing_attributes_are_zero),
        cmocka_unit_test(test_node_matrix_and_trs_compose_into_world_matrices),
        cmocka_unit_test(test_mesh_shared_by_two_nodes_gives_two_instances),
        cmocka_unit_test(test_default_scene_is_chosen_and_without_scenes_all_roots),
        cmocka_unit_test(test_gpu_instancing_gives_one_instance_each),
        cmocka_unit_test(test_file_names_with_spaces_are_percent_decoded),
        cmocka_unit_test(test_draco_fallback_is_read_when_the_extension_is_only_used),
        cmocka_unit_test(test_draco_is_refused_naming_the_extension),
        cmocka_unit_test(test_draco_with_skip_unsupported_warns_and_skips),
        cmocka_unit_test(test_meshopt_view_that_does_not_decode_is_refused),
        cmocka_unit_test(test_meshopt_views_decode_with_every_mode_and_filter),
        cmocka_unit_test(test_meshopt_fallback_buffer_is_never_opened),
        cmocka_unit_test(test_meshopt_bad_views_are_refused_naming_the_view_and_the_check),
        cmocka_unit_test(test_meshopt_truncated_stream_is_refused_at_load),
        cmocka_unit_test(test_meshopt_decoded_views_stay_within_the_bound),
        cmocka_unit_test(test_points_and_lines_are_refused),
        cmocka_unit_test(test_points_with_skip_unsupported_warn_and_are_skipped),
        cmocka_unit_test(test_missing_bin_is_refused_naming_file_and_uri),
        cmocka_unit_test(test_bad_glb_magic_is_refused),
        cmocka_unit_test(test_every_truncation_of_a_glb_is_refused),
        cmocka_unit_test(test_accessor_past_its_view_is_refused),
        cmocka_unit_test(test_index_out_of_range_is_refused),
        cmocka_unit_test(test_primitive_restart_index_is_refused),
        cmocka_unit_test(test_unread_indices_are_checked),
        cmocka_unit_test(test_invalid_json_is_refused_with_its_place),
        cmocka_unit_test(test_structural_errors_are_refused_at_open),
        cmocka_unit_test(test_buffer_view_buffer_4294967295_is_refused),
        cmocka_unit_test(test_sparse_views_4294967295_are_refused),
        cmocka_unit_test(test_every_present_index_past_its_array_is_refused_naming_its_path),
        cmocka_unit_test(test_uri_leaving_the_folder_is_refused_unless_allowed),
        cmocka_unit_test(test_buffer_files_are_listed),
        cmocka_unit_test(test_importable_primitives_are_counted_at_open),
        cmocka_unit_test(test_every_prefix_of_a_gltf_is_refused),
        cmocka_unit_test(test_mutated_glb_json_never_crashes),
    };
    return cmocka_run_group_tests(tests, gltf_writer_setup, gltf_writer_teardown);
}
