/* SPDX-License-Identifier: MIT */
/* The built-in camera's paths (tools/camera.c), made from the scene's
 * bounds: over a small model (a few centimetres, as ToyCar and Avocado are,
 * and the same model a thousand times larger), orbit, fly and teleport keep
 * the model's bounding sphere over most of the frame's height at every
 * frame and ask for it every frame; closeup asks for its level 0 at every
 * frame; a flat scene (the synthetic city) is still flown over, above its
 * tallest object; the same desc gives the same requests. With pack paths
 * as arguments (../shared/gltf's samples), each pack is checked the same
 * way as the small model. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "builder.h"
#include "camera.h"
#include "sluice/arena.h"
#include "sluice/limits.h"
#include "sluice/pack.h"
#include "sluice/profile.h"
#include "synth.h"
#include "test_util.h"

#define FRAMES 96u
#define META_BYTES ((size_t)64 << 20)

/* A pack in memory, opened. */
typedef struct opened {
    unsigned char *data;
    void *meta_mem;
    slc_pack *pack;
} opened;

static void open_pack(const char *path, opened *o)
{
    memset(o, 0, sizeof *o);
    FILE *f = fopen(path, "rb");
    long size = -1;
    if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fail_msg("%s: cannot read", path);
    }
    o->data = malloc((size_t)size + 1);
    assert_non_null(o->data);
    assert_int_equal(fread(o->data, 1, (size_t)size, f), (size_t)size);
    (void)fclose(f); /* read only */
    o->meta_mem = aligned_alloc(SLC_ARENA_ALIGN, META_BYTES);
    assert_non_null(o->meta_mem);
    slc_arena *meta = NULL;
    assert_int_equal(slc_arena_init(o->meta_mem, META_BYTES, NULL, SLC_BUDGET_NONE, &meta), SLC_OK);
    slc_profile limits;
    memset(&limits, 0, sizeof limits);
    limits.page_size = SLC_PAGE_SIZE_MAX;
    limits.max_chunks = limits.max_objects = SLC_TABLE_COUNT_MAX;
    limits.max_lods = SLC_LODS_MAX;
    limits.max_string_bytes = SLC_PROFILE_STRING_BYTES_MAX;
    slc_io io;
    slc_io_from_memory(o->data, (size_t)size, &io);
    assert_int_equal(slc_pack_open(&io, path, &limits, meta, NULL, &o->pack), SLC_OK);
}

static void close_pack(opened *o)
{
    slc_pack_close(o->pack);
    free(o->meta_mem);
    free(o->data);
    memset(o, 0, sizeof *o);
}

static char path_buf[2][128];

static const char *temp_path(int slot)
{
    snprintf(path_buf[slot], sizeof path_buf[slot], "/tmp/test_camera_%ld_%d.pack", (long)getpid(), slot);
    return path_buf[slot];
}

/* A toy car's shape: an ellipsoid half-axes ax, ay, az (a lat-long grid of
 * 48 x 96 cells, normals), so the packer makes several levels of it. */
static void make_ellipsoid(pk_mesh *m, float ax, float ay, float az)
{
    const uint32_t rows = 48, cols = 96;
    memset(m, 0, sizeof *m);
    snprintf(m->name, sizeof m->name, "toy");
    m->vertex_count = (rows + 1) * (cols + 1);
    m->positions = malloc((size_t)m->vertex_count * 3 * sizeof(float));
    m->normals = malloc((size_t)m->vertex_count * 3 * sizeof(float));
    m->index_count = rows * cols * 6;
    m->indices = malloc((size_t)m->index_count * sizeof(uint32_t));
    assert_true(m->positions != NULL && m->normals != NULL && m->indices != NULL);
    for (uint32_t r = 0; r <= rows; r++) {
        for (uint32_t c = 0; c <= cols; c++) {
            const float th = 3.14159265f * (float)r / (float)rows, ph = 6.28318531f * (float)c / (float)cols;
            const float n[3] = {sinf(th) * cosf(ph), cosf(th), sinf(th) * sinf(ph)};
            const uint32_t i = r * (cols + 1) + c;
            m->positions[i * 3 + 0] = ax * n[0];
            m->positions[i * 3 + 1] = ay * n[1] + ay; /* standing on y = 0 */
            m->positions[i * 3 + 2] = az * n[2];
            memcpy(&m->normals[(size_t)i * 3], n, sizeof n);
        }
    }
    uint32_t k = 0;
    for (uint32_t r = 0; r < rows; r++) {
        for (uint32_t c = 0; c < cols; c++) {
            const uint32_t a = r * (cols + 1) + c, b = a + cols + 1;
            const uint32_t q[6] = {a, b, a + 1, a + 1, b, b + 1};
            memcpy(&m->indices[k], q, sizeof q);
            k += 6;
        }
    }
}

/* The toy (4.5 x 1.5 x 2 cm) placed once, scaled by scale. */
static void build_toy(const char *path, float scale)
{
    pk_mesh m;
    make_ellipsoid(&m, 0.045f, 0.015f, 0.02f);
    pk_builder *b = NULL;
    pk_diag d;
    memset(&d, 0, sizeof d);
    if (pk_builder_open(path, NULL, &b, &d) != 0) {
        fail_msg("open: %s", d.message);
    }
    uint32_t obj;
    if (pk_builder_add_mesh(b, &m, &obj, &d) != 0) {
        fail_msg("add_mesh: %s", d.message);
    }
    pk_instance in;
    memset(&in, 0, sizeof in);
    in.mesh = obj;
    in.matrix[0] = in.matrix[5] = in.matrix[10] = scale;
    in.matrix[15] = 1.0f;
    in.matrix[12] = 3.0f * scale; /* away from the origin */
    snprintf(in.name, sizeof in.name, "toy");
    assert_int_equal(pk_builder_add_instance(b, &in, &d), 0);
    pk_build_stats st;
    if (pk_builder_finish(b, &st, &d) != 0) {
        fail_msg("finish: %s", d.message);
    }
    pk_mesh_free(&m);
}

static void build_city(const char *path, uint64_t size, uint64_t seed)
{
    pk_synth *s = NULL;
    pk_diag d;
    memset(&d, 0, sizeof d);
    assert_int_equal(pk_synth_open("city", size, seed, &s, &d), 0);
    pk_builder *b = NULL;
    assert_int_equal(pk_builder_open(path, NULL, &b, &d), 0);
    pk_mesh m;
    pk_instance inst[PK_SYNTH_MAX_INSTANCES];
    uint32_t n;
    int got;
    while ((got = pk_synth_next(s, &m, inst, &n, &d)) == 1) {
        uint32_t obj;
        if (pk_builder_add_mesh(b, &m, &obj, &d) != 0) {
            fail_msg("%s", d.message);
        }
        pk_mesh_free(&m);
        for (uint32_t i = 0; i < n; i++) {
            inst[i].mesh = obj;
            assert_int_equal(pk_builder_add_instance(b, &inst[i], &d), 0);
        }
    }
    assert_int_equal(got, 0);
    pk_synth_close(s);
    pk_build_stats st;
    assert_int_equal(pk_builder_finish(b, &st, &d), 0);
}

/* The sphere holding every object's placements (camera_object_bounds). */
static void scene_sphere(const slc_pack *pack, float centre[3], float *radius)
{
    float lo[3], hi[3];
    assert_int_equal(camera_scene_bounds(pack, lo, hi), 0);
    for (int k = 0; k < 3; k++) {
        centre[k] = 0.5f * (lo[k] + hi[k]);
    }
    *radius = 0;
    for (uint32_t o = 0; o < slc_pack_get_header(pack)->object_count; o++) {
        float c[3], r, s;
        if (camera_object_bounds(pack, o, c, &r, &s) != 0) {
            continue;
        }
        const float v[3] = {c[0] - centre[0], c[1] - centre[1], c[2] - centre[2]};
        *radius = fmaxf(*radius, sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) + r);
    }
}

/* The part of the frame's height (0..1) the sphere covers in view v: points
 * of its surface projected, those inside the frame's width, their heights
 * clamped to the frame; 1 when the eye is inside the sphere. */
static double height_covered(const camera_view *v, const float c[3], float r)
{
    const float d[3] = {v->eye[0] - c[0], v->eye[1] - c[1], v->eye[2] - c[2]};
    if (d[0] * d[0] + d[1] * d[1] + d[2] * d[2] <= r * r) {
        return 1.0;
    }
    double lo = 1, hi = -1;
    for (int i = 0; i <= 64; i++) {
        for (int j = 0; j < 128; j++) {
            const double th = 3.14159265358979 * i / 64, ph = 6.28318530717959 * j / 128;
            const double p[3] = {c[0] + r * sin(th) * cos(ph), c[1] + r * cos(th), c[2] + r * sin(th) * sin(ph)};
            const float *m = v->view_proj;
            const double x = m[0] * p[0] + m[4] * p[1] + m[8] * p[2] + m[12];
            const double y = m[1] * p[0] + m[5] * p[1] + m[9] * p[2] + m[13];
            const double w = m[3] * p[0] + m[7] * p[1] + m[11] * p[2] + m[15];
            if (w <= 0 || fabs(x / w) > 1) {
                continue;
            }
            const double ny = fmin(fmax(y / w, -1.0), 1.0);
            lo = fmin(lo, ny);
            hi = fmax(hi, ny);
        }
    }
    return hi > lo ? (hi - lo) / 2 : 0;
}

/* Orbit, fly and teleport over the pack at path: every frame asks for
 * something, and the scene's sphere covers at least min_height of the
 * frame's height (16:9); returns the least seen. */
static double check_framed(const char *path, double min_height)
{
    opened o;
    open_pack(path, &o);
    float centre[3], radius;
    scene_sphere(o.pack, centre, &radius);
    double least = 1;
    const camera_path paths[] = {CAMERA_ORBIT, CAMERA_FLY, CAMERA_TELEPORT};
    for (size_t p = 0; p < sizeof paths / sizeof paths[0]; p++) {
        camera c;
        camera_desc d = {.path = paths[p], .seed = 3, .frames = FRAMES, .teleport_every = 10};
        char err[128];
        assert_int_equal(camera_init(&c, o.pack, &d, err, sizeof err), 0);
        assert_true(c.framed);
        for (uint32_t f = 0; f < FRAMES; f++) {
            const uint32_t n = camera_frame(&c);
            camera_view v;
            camera_get_view(&c, 16.0f / 9.0f, &v);
            const double h = height_covered(&v, centre, radius);
            if (n == 0 || h < min_height) {
                fail_msg("%s: %s frame %u: %u requests, the scene covers %.1f%% of the height (want %.0f%%)", path,
                         camera_path_name(paths[p]), f, n, 100 * h, 100 * min_height);
            }
            least = fmin(least, h);
        }
        camera_free(&c);
    }
    close_pack(&o);
    return least;
}

/* Closeup over the pack at path asks for the largest placement's object at
 * level 0 at every frame (1080 rows, 1 px), and that object has coarser
 * levels to choose from. */
static void check_closeup(const char *path)
{
    opened o;
    open_pack(path, &o);
    camera c;
    camera_desc d = {.path = CAMERA_CLOSEUP, .seed = 1, .frames = FRAMES};
    char err[128];
    assert_int_equal(camera_init(&c, o.pack, &d, err, sizeof err), 0);
    /* The largest placement's sphere (level 0's, under its matrix, radius
     * times its largest axis scale), the first among equals (the camera
     * prefers the one nearest the centre: the radius is checked). */
    const slc_pack_header *h = slc_pack_get_header(o.pack);
    static const float identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    uint32_t focus = UINT32_MAX;
    float best = -1;
    for (uint32_t i = 0; i < c.n; i++) {
        const float *m = h->instance_count ? slc_pack_get_instance(o.pack, i)->matrix : identity;
        const uint32_t ob = h->instance_count ? slc_pack_get_instance(o.pack, i)->object : i;
        const slc_pack_object *po = slc_pack_get_object(o.pack, (slc_object_id){ob});
        float scale = 0;
        for (int col = 0; col < 3; col++) {
            const float *v = m + 4 * col;
            scale = fmaxf(scale, sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]));
        }
        const float r = slc_pack_get_lod(o.pack, po->first_lod)->sphere[3] * scale;
        if (r > best) {
            best = r;
            focus = ob;
        }
    }
    assert_true(fabsf(c.focus_r - best) <= 1e-6f * best);
    assert_true(slc_pack_get_object(o.pack, (slc_object_id){focus})->lod_count > 1);
    for (uint32_t f = 0; f < FRAMES; f++) {
        const uint32_t n = camera_frame(&c);
        int level0 = 0;
        for (uint32_t k = 0; k < n; k++) {
            level0 |= c.reqs[k].kind == TRACE_OBJECT && c.reqs[k].id == focus && c.reqs[k].lod == 0;
        }
        if (!level0) {
            fail_msg("%s: closeup frame %u does not ask for object %u at level 0", path, f, focus);
        }
    }
    camera_free(&c);
    close_pack(&o);
}

static void test_orbit_and_fly_frame_a_small_model(void **state)
{
    (void)state;
    const float scales[] = {1.0f, 1000.0f};
    for (size_t i = 0; i < sizeof scales / sizeof scales[0]; i++) {
        build_toy(temp_path(0), scales[i]);
        const double least = check_framed(temp_path(0), 0.6);
        print_message("toy at scale %g: its sphere covers at least %.1f%% of the frame's height\n", (double)scales[i],
                      100 * least);
        unlink(temp_path(0));
    }
}

/* camera_texture_level: floor(log2 of the texels a pixel covers at level
 * 0), 0 below 2, exact at the powers of two. */
static void test_texture_level_rule(void **state)
{
    (void)state;
    assert_int_equal(camera_texture_level(1.0f, 1.0f, 256, 256.0f), 0);   /* a texel a pixel */
    assert_int_equal(camera_texture_level(1.0f, 1.0f, 256, 130.0f), 0);   /* 1.97 */
    assert_int_equal(camera_texture_level(1.0f, 1.0f, 256, 128.0f), 1);   /* 2 */
    assert_int_equal(camera_texture_level(1.0f, 1.0f, 256, 64.1f), 1);    /* 3.99 */
    assert_int_equal(camera_texture_level(1.0f, 1.0f, 256, 64.0f), 2);    /* 4 */
    assert_int_equal(camera_texture_level(0.5f, 4.0f, 1024, 1.0f), 11);   /* 2048 */
    assert_int_equal(camera_texture_level(2.0f, 1.0f, 1000, 1000.0f), 1); /* density counts */
    assert_int_equal(camera_texture_level(0.0f, 1.0f, 256, 1.0f), 0);     /* no UVs */
    assert_int_equal(camera_texture_level(1.0f, 1.0f, 256, 0.0f), 0);     /* nothing on screen */
}

/* The toy with UVs (u round, v down) and a material whose base colour and
 * emissive slots read one 256 x 256 texture: its recorded uv_density is
 * sqrt(UV area / surface area) of level 0; each frame asks for the object,
 * then every tile of exactly one tiled level of that texture (once, though
 * two slots read it), at half the object's priority; the limits hold. */
static void test_tiles_by_texel_density(void **state)
{
    (void)state;
    pk_mesh m;
    make_ellipsoid(&m, 0.045f, 0.015f, 0.02f);
    const uint32_t rows = 48, cols = 96;
    m.uvs = malloc((size_t)m.vertex_count * 2 * sizeof(float));
    assert_non_null(m.uvs);
    for (uint32_t r = 0; r <= rows; r++) {
        for (uint32_t c = 0; c <= cols; c++) {
            m.uvs[(r * (cols + 1) + c) * 2 + 0] = (float)c / (float)cols;
            m.uvs[(r * (cols + 1) + c) * 2 + 1] = (float)r / (float)rows;
        }
    }
    double area = 0, uv_area = 0;
    for (uint32_t t = 0; t < m.index_count; t += 3) {
        const float *a = &m.positions[m.indices[t] * 3], *b = &m.positions[m.indices[t + 1] * 3],
                    *c = &m.positions[m.indices[t + 2] * 3];
        const double e1[3] = {(double)b[0] - a[0], (double)b[1] - a[1], (double)b[2] - a[2]};
        const double e2[3] = {(double)c[0] - a[0], (double)c[1] - a[1], (double)c[2] - a[2]};
        const double x = e1[1] * e2[2] - e1[2] * e2[1], y = e1[2] * e2[0] - e1[0] * e2[2],
                     z = e1[0] * e2[1] - e1[1] * e2[0];
        area += sqrt(x * x + y * y + z * z);
        const float *ua = &m.uvs[m.indices[t] * 2], *ub = &m.uvs[m.indices[t + 1] * 2],
                    *uc = &m.uvs[m.indices[t + 2] * 2];
        uv_area += fabs(((double)ub[0] - ua[0]) * ((double)uc[1] - ua[1]) -
                        ((double)uc[0] - ua[0]) * ((double)ub[1] - ua[1]));
    }
    const double want_density = sqrt(uv_area / area);
    pk_build_options bo;
    memset(&bo, 0, sizeof bo);
    bo.page_size = 16384;
    bo.jobs = 1;
    bo.texture_format = SLC_PACK_TEXEL_RGBA8;
    pk_builder *b = NULL;
    pk_diag d;
    memset(&d, 0, sizeof d);
    if (pk_builder_open(temp_path(0), &bo, &b, &d) != 0) {
        fail_msg("open: %s", d.message);
    }
    pk_image img = {256, 256, PK_TEXEL_RGBA8, calloc(256u * 256u, 4), 0, 0.0};
    assert_non_null(img.texels);
    for (uint32_t i = 0; i < 256u * 256u * 4u; i++) {
        ((unsigned char *)img.texels)[i] = (unsigned char)(i * 7u);
    }
    uint32_t tex = 0, mat = 0, obj = 0;
    assert_int_equal(pk_builder_add_texture(b, &img, PK_MIP_COLOR, PK_WRAP_REPEAT, PK_WRAP_REPEAT, "t", &tex, &d), 0);
    pk_material mt;
    pk_material_default(&mt);
    mt.slot[PK_SLOT_BASE_COLOR].image = tex;
    mt.slot[PK_SLOT_EMISSIVE].image = tex;
    assert_int_equal(pk_builder_add_material(b, &mt, &mat, &d), 0);
    m.material = mat + 1u;
    assert_int_equal(pk_builder_add_mesh(b, &m, &obj, &d), 0);
    if (pk_builder_finish(b, NULL, &d) != 0) {
        fail_msg("finish: %s", d.message);
    }
    pk_mesh_free(&m);
    free(img.texels);
    opened o;
    open_pack(temp_path(0), &o);
    const slc_pack_object *po = slc_pack_get_object(o.pack, (slc_object_id){0});
    assert_true(fabs((double)po->uv_density - want_density) <= 1e-5 * want_density);
    slc_pack_texture t;
    slc_pack_texture_layout lay;
    assert_int_equal(slc_pack_read_texture(o.pack, 0, &t), SLC_OK);
    assert_int_equal(slc_pack_texture_layout_of(t.width, t.height, t.format, t.tile, t.border, &lay), 0);
    assert_true(lay.tiled_levels >= 2);
    uint32_t finest[2] = {UINT32_MAX, UINT32_MAX};
    static const camera_path paths[2] = {CAMERA_ORBIT, CAMERA_CLOSEUP};
    /* The tile requests of both paths (chunk and priority), hashed (FNV-1a):
     * the same on every target (the cross builds run this test under qemu;
     * the object requests' levels may differ there with the simplifier's
     * rounding, the tiles may not). */
    uint64_t tiles_hash = 0xcbf29ce484222325ull;
    uint32_t tiles_asked = 0;
    for (int p = 0; p < 2; p++) {
        camera c;
        camera_desc cd = {.path = paths[p], .seed = 1, .frames = 24};
        char err[128];
        assert_int_equal(camera_init(&c, o.pack, &cd, err, sizeof err), 0);
        for (uint32_t f = 0; f < cd.frames; f++) {
            const uint32_t n = camera_frame(&c);
            assert_true(n >= 1);
            assert_int_equal(c.reqs[0].kind, TRACE_OBJECT);
            if (n == 1) {
                continue; /* served by the pinned tail */
            }
            /* The level the density asks for and the next coarser one
             * (when it is tiled), every tile of each once, in order. */
            uint32_t level = UINT32_MAX;
            for (uint32_t l = 0; l < lay.tiled_levels; l++) {
                if (c.reqs[1].id == t.first_chunk + lay.first[l]) {
                    level = l;
                }
            }
            assert_true(level < lay.tiled_levels);
            const uint32_t here = lay.cols[level] * lay.rows[level];
            const uint32_t next = level + 1u < lay.tiled_levels ? lay.cols[level + 1u] * lay.rows[level + 1u] : 0u;
            assert_int_equal(n, 1u + here + next);
            for (uint32_t k = 1; k < n; k++) {
                const uint32_t words[2] = {c.reqs[k].id, c.reqs[k].priority};
                for (uint32_t i = 0; i < 8; i++) { /* little-endian bytes, whatever the target */
                    tiles_hash = (tiles_hash ^ ((words[i / 4] >> (8 * (i % 4))) & 0xffu)) * 0x100000001b3ull;
                }
                tiles_asked++;
                assert_int_equal(c.reqs[k].kind, TRACE_CHUNK);
                assert_int_equal(c.reqs[k].id, k - 1u < here ? t.first_chunk + lay.first[level] + k - 1u
                                                             : t.first_chunk + lay.first[level + 1u] + (k - 1u - here));
                assert_int_equal(c.reqs[k].priority, c.reqs[0].priority / 2u);
            }
            finest[p] = level < finest[p] ? level : finest[p];
        }
        camera_free(&c);
    }
    printf("tile requests: %u, hash 0x%016llx\n", tiles_asked, (unsigned long long)tiles_hash);
    assert_int_equal(tiles_asked, 3120);
    assert_int_equal(tiles_hash, 0x55d6d4923acc6025ull);
    assert_true(finest[1] <= finest[0]); /* closer: no coarser */
    assert_int_equal(finest[1], 0);      /* the close-up needs the finest mip */
    /* The frame's limits count the tiles: 3 requests, the object and two. */
    camera c;
    camera_desc lim = {.path = CAMERA_CLOSEUP, .seed = 1, .frames = 2, .max_requests = 3};
    char err[128];
    assert_int_equal(camera_init(&c, o.pack, &lim, err, sizeof err), 0);
    assert_int_equal(c.req_cap, 1u + 3u);
    assert_int_equal(camera_frame(&c), 3);
    assert_int_equal(c.reqs[2].kind, TRACE_CHUNK);
    camera_free(&c);
    close_pack(&o);
    unlink(temp_path(0));
}

static void test_closeup_asks_for_level_0(void **state)
{
    (void)state;
    build_toy(temp_path(0), 1.0f);
    check_closeup(temp_path(0));
    unlink(temp_path(0));
}

/* The city (flat: lower than 3/4 of its width) is flown over as before:
 * orbit above its tallest object at 0.35 of its width from its centre, fly
 * just above it; closeup asks for its largest building at level 0. */
static void test_flat_scene_is_flown_over(void **state)
{
    (void)state;
    build_city(temp_path(1), (uint64_t)2 << 20, 5);
    opened o;
    open_pack(temp_path(1), &o);
    const camera_path paths[] = {CAMERA_ORBIT, CAMERA_FLY};
    for (size_t p = 0; p < 2; p++) {
        camera c;
        camera_desc d = {.path = paths[p], .seed = 1, .frames = FRAMES};
        char err[128];
        assert_int_equal(camera_init(&c, o.pack, &d, err, sizeof err), 0);
        assert_false(c.framed);
        for (uint32_t f = 0; f < FRAMES; f++) {
            (void)camera_frame(&c);
            assert_true(c.eye[1] > c.hi[1]);
            assert_true(c.dir[1] < 0);
            if (paths[p] == CAMERA_ORBIT) {
                const float dx = c.eye[0] - c.cx, dz = c.eye[2] - c.cz;
                assert_true(fabsf(sqrtf(dx * dx + dz * dz) - 0.35f * c.extent) <= 1e-3f * c.extent);
            }
        }
        camera_free(&c);
    }
    close_pack(&o);
    check_closeup(temp_path(1));
    unlink(temp_path(1));
}

static void test_same_desc_same_requests(void **state)
{
    (void)state;
    build_toy(temp_path(0), 1.0f);
    opened o;
    open_pack(temp_path(0), &o);
    for (int p = CAMERA_FLY; p <= CAMERA_CLOSEUP; p++) {
        camera a, b;
        camera_desc d = {.path = (camera_path)p, .seed = 9, .frames = 40, .teleport_every = 7};
        char err[128];
        assert_int_equal(camera_init(&a, o.pack, &d, err, sizeof err), 0);
        assert_int_equal(camera_init(&b, o.pack, &d, err, sizeof err), 0);
        for (uint32_t f = 0; f < d.frames; f++) {
            const uint32_t n = camera_frame(&a);
            assert_int_equal(camera_frame(&b), n);
            assert_memory_equal(a.reqs, b.reqs, n * sizeof *a.reqs);
            assert_memory_equal(a.eye, b.eye, sizeof a.eye);
        }
        camera_free(&a);
        camera_free(&b);
    }
    close_pack(&o);
    unlink(temp_path(0));
}

static void test_path_names(void **state)
{
    (void)state;
    assert_int_equal(camera_path_parse("closeup"), CAMERA_CLOSEUP);
    assert_string_equal(camera_path_name(CAMERA_CLOSEUP), "closeup");
    for (int p = CAMERA_FLY; p <= CAMERA_CLOSEUP; p++) {
        assert_int_equal(camera_path_parse(camera_path_name((camera_path)p)), p);
    }
    assert_null(camera_path_names[CAMERA_CLOSEUP + 1]);
    assert_int_equal(camera_path_parse("drone"), -1);
}

static const char *const *sample_packs;
static int sample_count;

static void test_samples_are_framed(void **state)
{
    (void)state;
    for (int i = 0; i < sample_count; i++) {
        const double least = check_framed(sample_packs[i], 0.6);
        print_message("%s: its sphere covers at least %.1f%% of the frame's height\n", sample_packs[i], 100 * least);
        check_closeup(sample_packs[i]);
    }
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        sample_packs = (const char *const *)(argv + 1);
        sample_count = argc - 1;
        const struct CMUnitTest samples[] = {cmocka_unit_test(test_samples_are_framed)};
        return cmocka_run_group_tests(samples, NULL, NULL);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_orbit_and_fly_frame_a_small_model),
        cmocka_unit_test(test_closeup_asks_for_level_0),
        cmocka_unit_test(test_texture_level_rule),
        cmocka_unit_test(test_tiles_by_texel_density),
        cmocka_unit_test(test_flat_scene_is_flown_over),
        cmocka_unit_test(test_same_desc_same_requests),
        cmocka_unit_test(test_path_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
