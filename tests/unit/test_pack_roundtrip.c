/* SPDX-License-Identifier: MIT */
/* glTF -> pack -> runtime reader, one glTF feature a test: each test writes
 * a small glTF file (gltf_writer.h), packs it as the CLI does (importer,
 * then builder; one float pack and one quantized pack), opens the pack with
 * the runtime reader through a file (mapped and pread), loads and checks
 * every chunk, decodes every object's levels through their spans
 * (pack_decode.h) and compares level 0 with the geometry the test wrote:
 * the triangle count exactly, the triangles as a multiset (a triangle's
 * corners may be rotated, never reflected: winding is kept) with every
 * attribute within the pack's quantization error, the object's bounds, the
 * names, every instance's object and world matrix. Coarser levels: fewer
 * or as many triangles, no smaller error, every vertex inside the level's
 * bounding sphere and the object's box.
 *
 * The expected geometry is written out here from the glTF specification
 * (strip and fan orders, normalized integers, the node hierarchy), not
 * taken from the importer, so an importer bug cannot hide behind itself. */
#define _POSIX_C_SOURCE 200809L

#include <float.h>
#include <math.h>
#include <unistd.h>

#include "test_util.h"

#include "builder.h"
#include "gltf.h"
#include "gltf_writer.h"
#include "pack_decode.h"
#include "sluice/platform.h"

/* ---- the source geometry a test wrote --------------------------------- */

/* One glTF mesh as the specification reads it: every primitive merged,
 * attributes missing from a primitive zero, triangles as vertex triples. */
typedef struct src_mesh {
    const char *name;
    uint32_t vertex_count;
    const float *pos; /* 3 per vertex */
    const float *nrm; /* 3 per vertex, or NULL when no primitive has NORMAL */
    const float *uv;  /* 2 per vertex, or NULL when no primitive has TEXCOORD_0 */
    uint32_t triangle_count;
    const uint32_t *tri; /* 3 per triangle, in the file's winding */
} src_mesh;

/* A node with a mesh: the mesh's index, its world matrix, its name. */
typedef struct src_instance {
    uint32_t mesh;
    double matrix[16]; /* column-major */
    const char *name;
} src_instance;

typedef struct src_scene {
    const char *file; /* the glTF file, in the writer's folder */
    uint32_t mesh_count;
    const src_mesh *meshes;
    uint32_t object_count;     /* objects the pack holds */
    const uint32_t *object_of; /* per mesh, its object; NULL: mesh i is object i */
    uint32_t instance_count;
    const src_instance *instances; /* in the importer's order: depth-first pre-order */
} src_scene;

static uint32_t object_of(const src_scene *sc, uint32_t mesh)
{
    return sc->object_of != NULL ? sc->object_of[mesh] : mesh;
}

#define IDENTITY                                       \
    {                                                  \
        1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1 \
    }

/* The shared buffer's attributes (build_geometry in gltf_writer.h). */
static const float nrm5_z[15] = {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1};
static const uint32_t tri_quad[6] = {0, 1, 2, 2, 1, 3}; /* accessors 3, 4 and 5 */

/* ---- packing as the CLI does ------------------------------------------- */

static int warning_count;
static char warning_last[512];

static void on_warning(void *user, const char *message)
{
    (void)user;
    snprintf(warning_last, sizeof warning_last, "%s", message);
    warning_count++;
}

/* tools/pack_cmd.c's pack_gltf: every mesh loaded and added in order (a
 * mesh left without triangles adds nothing), then every instance with its
 * mesh mapped to the object the builder returned. */
static void pack_like_cli(const char *gltf_name, const pk_build_options *opt, const char *pack_name, pk_build_stats *st)
{
    gltf_options go = {0, on_warning, NULL, 0, NULL};
    gltf_scene *s = NULL;
    pk_diag d;
    memset(&d, 0, sizeof d);
    warning_count = 0;
    if (gltf_open(path_of(gltf_name), &go, &s, &d) != 0) {
        fail_msg("gltf_open %s: %s", gltf_name, d.message);
    }
    pk_builder *b = NULL;
    if (pk_builder_open(tracked_path(pack_name), opt, &b, &d) != 0) {
        fail_msg("pk_builder_open %s: %s", pack_name, d.message);
    }
    uint32_t meshes = gltf_mesh_count(s);
    uint32_t *objects = malloc(((size_t)meshes + 1) * sizeof *objects);
    assert_non_null(objects);
    for (uint32_t i = 0; i < meshes; i++) {
        pk_mesh m;
        memset(&m, 0, sizeof m);
        objects[i] = UINT32_MAX;
        if (gltf_load_mesh(s, i, &m, &d) != 0) {
            fail_msg("gltf_load_mesh %s %u: %s", gltf_name, i, d.message);
        }
        if (m.index_count > 0 && pk_builder_add_mesh(b, &m, &objects[i], &d) != 0) {
            fail_msg("pk_builder_add_mesh %s %u: %s", gltf_name, i, d.message);
        }
        pk_mesh_free(&m);
    }
    for (uint32_t i = 0; i < gltf_instance_count(s); i++) {
        pk_instance in;
        memset(&in, 0, sizeof in);
        gltf_get_instance(s, i, &in);
        if (in.mesh >= meshes || objects[in.mesh] == UINT32_MAX) {
            continue;
        }
        in.mesh = objects[in.mesh];
        if (pk_builder_add_instance(b, &in, &d) != 0) {
            fail_msg("pk_builder_add_instance %s %u: %s", gltf_name, i, d.message);
        }
    }
    free(objects);
    gltf_close(s);
    if (pk_builder_finish(b, st, &d) != 0) {
        fail_msg("pk_builder_finish %s: %s", pack_name, d.message);
    }
    if (warning_count != 0) {
        fail_msg("%s: %d warnings, the last: %s", gltf_name, warning_count, warning_last);
    }
}

/* ---- reading the pack back with the runtime ---------------------------- */

#define RT_META_BYTES (1u << 20)

typedef struct reader {
    slc_platform_file file; /* must not move while open: file.io refers to it */
    void *meta_mem;
    slc_arena *meta;
    slc_pack *pack;
    const slc_pack_header *h;
    unsigned char *pages; /* chunk c decoded at pages + c * page_size */
    capture_log logged;
    slc_logger log;
    const char *what; /* "float pack, mapped" ..., for messages */
} reader;

static const unsigned char *page_of(const reader *r, uint32_t chunk)
{
    return r->pages + (size_t)chunk * r->h->page_size;
}

/* Opens path through the platform's file (mapped or pread) with the capacities
 * of a modest profile, then loads and checks every chunk. */
static void reader_open(reader *r, const char *path, unsigned flags, const char *what)
{
    memset(r, 0, sizeof *r);
    r->what = what;
    r->log = capture_logger(&r->logged);
    if (slc_platform_file_open(path, flags, &r->log, &r->file) != SLC_OK) {
        fail_msg("%s: %s", what, r->logged.message);
    }
    assert_true((r->file.map == NULL) == (flags == SLC_PLATFORM_FILE_PREAD));
    size_t cap = SLC_ARENA_FOOTPRINT(RT_META_BYTES);
    cap = (cap + SLC_ARENA_ALIGN - 1) / SLC_ARENA_ALIGN * SLC_ARENA_ALIGN;
    r->meta_mem = aligned_alloc(SLC_ARENA_ALIGN, cap);
    assert_non_null(r->meta_mem);
    assert_int_equal(slc_arena_init(r->meta_mem, cap, NULL, (slc_budget_id){0}, &r->meta), SLC_OK);
    slc_profile limits;
    memset(&limits, 0, sizeof limits);
    limits.page_size = 65536;
    limits.max_chunks = 4096;
    limits.max_objects = 64;
    limits.max_lods = SLC_LODS_MAX;
    limits.max_string_bytes = 4096;
    slc_status s = slc_pack_open(&r->file.io, path, &limits, r->meta, &r->log, &r->pack);
    if (s != SLC_OK) {
        fail_msg("%s: slc_pack_open: %s: %s", what, slc_status_name(s), r->logged.message);
    }
    r->h = slc_pack_get_header(r->pack);
    size_t scratch_size = slc_pack_scratch_size(r->pack);
    if (flags != SLC_PLATFORM_FILE_PREAD && r->h->version_minor == 0) {
        assert_int_equal(scratch_size, 0); /* 1.0 codecs decode from the mapping with none */
    }
    unsigned char *scratch = malloc(scratch_size + 1);
    assert_non_null(scratch);
    r->pages = malloc((size_t)r->h->chunk_count * r->h->page_size + 1);
    assert_non_null(r->pages);
    for (uint32_t c = 0; c < r->h->chunk_count; c++) {
        unsigned char *page = r->pages + (size_t)c * r->h->page_size;
        s = slc_pack_load_chunk(r->pack, (slc_chunk_id){c}, page, r->h->page_size, scratch, scratch_size);
        if (s == SLC_OK) {
            s = slc_pack_check_chunk(r->pack, (slc_chunk_id){c}, page);
        }
        if (s != SLC_OK) {
            fail_msg("%s: chunk %u: %s: %s", what, c, slc_status_name(s), r->logged.message);
        }
    }
    free(scratch);
}

static void reader_close(reader *r)
{
    slc_pack_close(r->pack);
    slc_platform_file_close(&r->file);
    free(r->pages);
    free(r->meta_mem);
    memset(r, 0, sizeof *r);
}

/* ---- tolerances -------------------------------------------------------- */

/* The importer turns the file's numbers into floats on its own terms (a
 * normalized integer divided in float or double): 1e-6 of the value. */
static float float_tol(float want)
{
    return 1e-6f * fmaxf(1.0f, fabsf(want));
}

/* Half a step of a 16-bit quantization over [offset, offset + scale], plus
 * the float rounding of encoding and decoding (a few ulps of the range's
 * magnitude). */
static float step_tol(float offset, float scale)
{
    return 0.5f * scale / 65535.0f + 4.0f * FLT_EPSILON * (fabsf(offset) + fabsf(scale));
}

static float pos_tol(const slc_pack_object *ob, int k, float want)
{
    float t = float_tol(want);
    return (ob->attributes & SLC_PACK_ATTR_POS_U16) ? t + step_tol(ob->pos_offset[k], ob->pos_scale[k]) : t;
}

static float uv_tol(const slc_pack_object *ob, int k, float want)
{
    float t = float_tol(want);
    return (ob->attributes & SLC_PACK_ATTR_UV_U16) ? t + step_tol(ob->uv_offset[k], ob->uv_scale[k]) : t;
}

/* Octahedral snorm8: half a step of 1/127 in each coordinate moves a unit
 * normal by at most about 0.01 in any component; 0.02 leaves room. */
#define OCT8_TOL 0.02f

/* ---- triangles as corners ---------------------------------------------- */

typedef struct corner {
    float p[3], n[3], uv[2];
} corner;

typedef struct triangle {
    corner c[3];
    float key; /* centroid x, to find candidates */
    int used;
} triangle;

static int corner_matches(const slc_pack_object *ob, const corner *want, const corner *got)
{
    for (int k = 0; k < 3; k++) {
        if (!(fabsf(got->p[k] - want->p[k]) <= pos_tol(ob, k, want->p[k]))) {
            return 0;
        }
    }
    if (ob->attributes & SLC_PACK_ATTR_NORMAL) {
        if (ob->attributes & SLC_PACK_ATTR_NORMAL_OCT8) {
            /* The pack keeps a direction: compare with the unit source
             * normal. A zero normal has none; its decoded one is only
             * checked to be unit length (decode_level). */
            float l = sqrtf(want->n[0] * want->n[0] + want->n[1] * want->n[1] + want->n[2] * want->n[2]);
            for (int k = 0; k < 3 && l > 0.0f; k++) {
                if (!(fabsf(got->n[k] - want->n[k] / l) <= OCT8_TOL)) {
                    return 0;
                }
            }
        } else {
            for (int k = 0; k < 3; k++) {
                if (!(fabsf(got->n[k] - want->n[k]) <= float_tol(want->n[k]))) {
                    return 0;
                }
            }
        }
    }
    if (ob->attributes & SLC_PACK_ATTR_UV) {
        for (int k = 0; k < 2; k++) {
            if (!(fabsf(got->uv[k] - want->uv[k]) <= uv_tol(ob, k, want->uv[k]))) {
                return 0;
            }
        }
    }
    return 1;
}

/* got is want with its corners rotated by 0, 1 or 2 (winding kept). */
static int tri_matches(const slc_pack_object *ob, const triangle *want, const triangle *got)
{
    for (int r = 0; r < 3; r++) {
        if (corner_matches(ob, &want->c[0], &got->c[r]) && corner_matches(ob, &want->c[1], &got->c[(r + 1) % 3]) &&
            corner_matches(ob, &want->c[2], &got->c[(r + 2) % 3])) {
            return 1;
        }
    }
    return 0;
}

static void set_key(triangle *t)
{
    t->key = (t->c[0].p[0] + t->c[1].p[0] + t->c[2].p[0]) / 3.0f;
    t->used = 0;
}

static int tri_key_cmp(const void *x, const void *y)
{
    const triangle *a = x, *b = y;
    return a->key < b->key ? -1 : a->key > b->key ? 1 : 0;
}

static void print_tri(const char *label, const triangle *t)
{
    print_message("%s (%.9g %.9g %.9g) (%.9g %.9g %.9g) (%.9g %.9g %.9g)\n", label, (double)t->c[0].p[0],
                  (double)t->c[0].p[1], (double)t->c[0].p[2], (double)t->c[1].p[0], (double)t->c[1].p[1],
                  (double)t->c[1].p[2], (double)t->c[2].p[0], (double)t->c[2].p[1], (double)t->c[2].p[2]);
}

/* The source mesh's triangles as corners. */
static triangle *source_triangles(const src_mesh *m)
{
    triangle *t = calloc((size_t)m->triangle_count + 1, sizeof *t);
    assert_non_null(t);
    for (uint32_t i = 0; i < m->triangle_count; i++) {
        for (int c = 0; c < 3; c++) {
            uint32_t v = m->tri[i * 3 + (uint32_t)c];
            assert_true(v < m->vertex_count);
            memcpy(t[i].c[c].p, m->pos + (size_t)v * 3, sizeof t[i].c[c].p);
            if (m->nrm != NULL) {
                memcpy(t[i].c[c].n, m->nrm + (size_t)v * 3, sizeof t[i].c[c].n);
            }
            if (m->uv != NULL) {
                memcpy(t[i].c[c].uv, m->uv + (size_t)v * 2, sizeof t[i].c[c].uv);
            }
        }
        set_key(&t[i]);
    }
    return t;
}

/* Level l of object o, every cluster its spans select, decoded to corners
 * (*count triangles, the caller frees). Checks on the way: each cluster is
 * the object's and in a chunk of level l; the counts add up to the LOD
 * record's; every vertex lies inside the level's sphere and the object's
 * box (both within the quantization error); octahedral normals decode to
 * unit length. */
static triangle *decode_level(const reader *r, uint32_t o, uint32_t l, uint32_t *count)
{
    const slc_pack_object *ob = slc_pack_get_object(r->pack, (slc_object_id){o});
    const slc_pack_lod *lod = slc_pack_get_lod(r->pack, ob->first_lod + l);
    triangle *out = calloc((size_t)lod->triangle_count + 1, sizeof *out);
    assert_non_null(out);
    uint32_t n = 0, verts = 0;
    for (uint32_t s = 0; s < lod->span_count; s++) {
        const slc_pack_span *sp = slc_pack_get_span(r->pack, lod->first_span + s);
        const slc_pack_chunk *ch = slc_pack_get_chunk(r->pack, (slc_chunk_id){sp->chunk});
        assert_int_equal(ch->lod, l);
        const unsigned char *page = page_of(r, sp->chunk);
        for (uint32_t i = sp->first_cluster; i < (uint32_t)sp->first_cluster + sp->cluster_count; i++) {
            const slc_pack_cluster *cl = pack_cluster_at(page, i);
            assert_int_equal(cl->object, o);
            corner vx[255];
            assert_true(cl->vertex_count <= 255);
            for (uint32_t v = 0; v < cl->vertex_count; v++) {
                corner *c = &vx[v];
                memset(c, 0, sizeof *c);
                decode_vertex(ob, page + cl->vertex_offset + (size_t)v * ob->vertex_stride, c->p, c->n, c->uv);
                float d2 = 0.0f, span = fabsf(lod->sphere[3]);
                for (int k = 0; k < 3; k++) {
                    float tol = pos_tol(ob, k, c->p[k]);
                    if (!(c->p[k] >= ob->aabb_min[k] - tol && c->p[k] <= ob->aabb_max[k] + tol)) {
                        fail_msg("%s: object %u level %u: vertex %u of cluster %u: [%d] = %.9g outside the box "
                                 "[%.9g, %.9g]",
                                 r->what, o, l, v, i, k, (double)c->p[k], (double)ob->aabb_min[k],
                                 (double)ob->aabb_max[k]);
                    }
                    float dk = c->p[k] - lod->sphere[k];
                    d2 += dk * dk;
                    span = fmaxf(span, fabsf(lod->sphere[k]));
                }
                if (!(sqrtf(d2) <= lod->sphere[3] + 8.0f * FLT_EPSILON * (1.0f + span))) {
                    fail_msg("%s: object %u level %u: vertex %u of cluster %u is %.9g from the level's center, "
                             "radius %.9g",
                             r->what, o, l, v, i, (double)sqrtf(d2), (double)lod->sphere[3]);
                }
                if ((ob->attributes & SLC_PACK_ATTR_NORMAL_OCT8) != 0) {
                    float len = sqrtf(c->n[0] * c->n[0] + c->n[1] * c->n[1] + c->n[2] * c->n[2]);
                    assert_true(fabsf(len - 1.0f) <= 1e-5f);
                }
            }
            const unsigned char *ix = page + cl->index_offset;
            for (uint32_t t = 0; t < cl->triangle_count; t++) {
                assert_true(n < lod->triangle_count);
                for (int c = 0; c < 3; c++) {
                    assert_true(ix[t * 3 + (uint32_t)c] < cl->vertex_count);
                    out[n].c[c] = vx[ix[t * 3 + (uint32_t)c]];
                }
                set_key(&out[n]);
                n++;
            }
            verts += cl->vertex_count;
        }
    }
    assert_int_equal(n, lod->triangle_count);
    assert_int_equal(verts, lod->vertex_count);
    *count = n;
    return out;
}

/* Every source triangle has its own decoded triangle (greedy: the
 * triangles of these meshes are far apart compared with the tolerance, or
 * identical). With equal counts, that is a bijection: the multisets are
 * equal. */
static void expect_same_triangles(const reader *r, uint32_t o, const src_mesh *m, triangle *got, uint32_t count)
{
    const slc_pack_object *ob = slc_pack_get_object(r->pack, (slc_object_id){o});
    if (count != m->triangle_count) {
        fail_msg("%s: object %u '%s': %u triangles at level 0, the source has %u", r->what, o, m->name, count,
                 m->triangle_count);
    }
    triangle *want = source_triangles(m);
    qsort(got, count, sizeof *got, tri_key_cmp);
    /* Candidates: centroids within the x tolerance, bounded over the box. */
    float big = fmaxf(fabsf(ob->aabb_min[0]), fabsf(ob->aabb_max[0]));
    float window = 1.5f * pos_tol(ob, 0, big) + 8.0f * FLT_EPSILON * fmaxf(1.0f, big);
    for (uint32_t i = 0; i < m->triangle_count; i++) {
        uint32_t lo = 0, hi = count;
        while (lo < hi) { /* the first candidate with key >= want's - window */
            uint32_t mid = lo + (hi - lo) / 2;
            if (got[mid].key < want[i].key - window) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        int found = 0;
        for (uint32_t j = lo; j < count && got[j].key <= want[i].key + window && !found; j++) {
            if (!got[j].used && tri_matches(ob, &want[i], &got[j])) {
                got[j].used = 1;
                found = 1;
            }
        }
        if (!found) {
            print_tri("source:", &want[i]);
            if (lo < count) {
                print_tri("nearest decoded:", &got[lo]);
            }
            fail_msg("%s: object %u '%s': source triangle %u has no decoded twin at level 0", r->what, o, m->name, i);
        }
    }
    free(want);
}

/* ---- the whole comparison ---------------------------------------------- */

static void expect_name(const reader *r, uint32_t offset, const char *want, const char *what, uint32_t i)
{
    const char *got = slc_pack_get_string(r->pack, offset);
    if (strcmp(got, want) != 0) {
        fail_msg("%s: %s %u is named '%s', the source '%s'", r->what, what, i, got, want);
    }
    if (want[0] == '\0') {
        assert_int_equal(offset, SLC_PACK_NO_NAME);
    }
}

static void expect_object(const reader *r, uint32_t o, const src_mesh *m, int quantized)
{
    const slc_pack_object *ob = slc_pack_get_object(r->pack, (slc_object_id){o});
    expect_name(r, ob->name, m->name, "object", o);

    uint32_t attr = (m->nrm != NULL ? SLC_PACK_ATTR_NORMAL : 0u) | (m->uv != NULL ? SLC_PACK_ATTR_UV : 0u);
    if (quantized) {
        attr |= SLC_PACK_ATTR_POS_U16 | (m->nrm != NULL ? SLC_PACK_ATTR_NORMAL_OCT8 : 0u) |
                (m->uv != NULL ? SLC_PACK_ATTR_UV_U16 : 0u);
    }
    assert_int_equal(ob->attributes, attr);
    assert_int_equal(ob->vertex_stride, stride_of(attr));

    /* Bounds: the box of the vertices the triangles use. */
    float lo[3] = {FLT_MAX, FLT_MAX, FLT_MAX}, hi[3] = {-FLT_MAX, -FLT_MAX, -FLT_MAX};
    for (uint32_t i = 0; i < m->triangle_count * 3; i++) {
        const float *p = m->pos + (size_t)m->tri[i] * 3;
        for (int k = 0; k < 3; k++) {
            lo[k] = fminf(lo[k], p[k]);
            hi[k] = fmaxf(hi[k], p[k]);
        }
    }
    for (int k = 0; k < 3; k++) {
        if (!(fabsf(ob->aabb_min[k] - lo[k]) <= float_tol(lo[k]) &&
              fabsf(ob->aabb_max[k] - hi[k]) <= float_tol(hi[k]))) {
            fail_msg("%s: object %u: bounds[%d] [%.9g, %.9g], the source's [%.9g, %.9g]", r->what, o, k,
                     (double)ob->aabb_min[k], (double)ob->aabb_max[k], (double)lo[k], (double)hi[k]);
        }
    }

    /* The chain: error 0 first, then never fewer triangles nor less error. */
    assert_true(ob->lod_count >= 1);
    const slc_pack_lod *first = slc_pack_get_lod(r->pack, ob->first_lod);
    assert_true(first->error == 0.0f);
    assert_int_equal(first->triangle_count, m->triangle_count);
    for (uint32_t l = 1; l < ob->lod_count; l++) {
        const slc_pack_lod *prev = slc_pack_get_lod(r->pack, ob->first_lod + l - 1);
        const slc_pack_lod *lod = slc_pack_get_lod(r->pack, ob->first_lod + l);
        if (!(lod->triangle_count <= prev->triangle_count && lod->error >= prev->error)) {
            fail_msg("%s: object %u: level %u has %u triangles and error %.9g after %u and %.9g", r->what, o, l,
                     lod->triangle_count, (double)lod->error, prev->triangle_count, (double)prev->error);
        }
    }
    for (uint32_t l = 0; l < ob->lod_count; l++) {
        uint32_t count;
        triangle *got = decode_level(r, o, l, &count);
        if (l == 0) {
            expect_same_triangles(r, o, m, got, count);
        }
        free(got);
    }
}

static void expect_matrix(const reader *r, uint32_t i, const float *got, const double *want)
{
    for (int k = 0; k < 16; k++) {
        if (!(fabs((double)got[k] - want[k]) <= 1e-6 * fmax(1.0, fabs(want[k])))) {
            fail_msg("%s: instance %u: matrix[%d] = %.9g, the world matrix has %.9g", r->what, i, k, (double)got[k],
                     want[k]);
        }
    }
}

static void expect_pack_is_scene(const reader *r, const src_scene *sc, int quantized)
{
    const slc_pack_header *h = r->h;
    assert_int_equal(h->object_count, sc->object_count);
    assert_int_equal(h->instance_count, sc->instance_count);
    assert_int_equal(h->optional_features, quantized ? SLC_PACK_OPTIONAL_QUANTIZED : 0u);
    for (uint32_t o = 0; o < sc->object_count; o++) {
        uint32_t mesh = UINT32_MAX;
        for (uint32_t i = sc->mesh_count; i-- > 0;) {
            mesh = object_of(sc, i) == o ? i : mesh; /* the first mesh that is this object */
        }
        assert_true(mesh < sc->mesh_count);
        expect_object(r, o, &sc->meshes[mesh], quantized);
    }
    for (uint32_t i = 0; i < sc->instance_count; i++) {
        const slc_pack_instance *in = slc_pack_get_instance(r->pack, i);
        const src_instance *want = &sc->instances[i];
        if (in->object != object_of(sc, want->mesh)) {
            fail_msg("%s: instance %u '%s' places object %u, the source mesh %u is object %u", r->what, i, want->name,
                     in->object, want->mesh, object_of(sc, want->mesh));
        }
        expect_matrix(r, i, in->matrix, want->matrix);
        expect_name(r, in->name, want->name, "instance", i);
    }
}

/* Packs sc->file twice (float with the default options, quantized with 4
 * KiB pages so larger meshes spread over chunks) and reads each pack back
 * mapped and through pread. */
static void round_trip(const src_scene *sc)
{
    for (int quantized = 0; quantized <= 1; quantized++) {
        pk_build_options o;
        memset(&o, 0, sizeof o);
        o.quantize = quantized;
        o.page_size = quantized ? 4096u : 0u;
        const char *pack_name = quantized ? "roundtrip-quantized.pack" : "roundtrip-float.pack";
        pk_build_stats st;
        pack_like_cli(sc->file, &o, pack_name, &st);
        uint64_t triangles = 0;
        for (uint32_t ob = 0; ob < sc->object_count; ob++) {
            for (uint32_t m = 0; m < sc->mesh_count; m++) {
                if (object_of(sc, m) == ob) {
                    triangles += sc->meshes[m].triangle_count;
                    break;
                }
            }
        }
        assert_int_equal(st.objects, sc->object_count);
        assert_int_equal(st.instances, sc->instance_count);
        assert_int_equal(st.triangles_lod0, triangles);
        for (unsigned flags = SLC_PLATFORM_FILE_DEFAULT; flags <= SLC_PLATFORM_FILE_PREAD; flags++) {
            char what[160];
            snprintf(what, sizeof what, "%s: %s pack, %s", sc->file, quantized ? "quantized" : "float",
                     flags == SLC_PLATFORM_FILE_PREAD ? "pread" : "mapped");
            reader r;
            reader_open(&r, tracked_path(pack_name), flags, what);
            expect_pack_is_scene(&r, sc, quantized);
            reader_close(&r);
        }
    }
}

/* ---- features ---------------------------------------------------------- */

static void test_gltf_with_bin_round_trips_positions_normals_uvs(void **state)
{
    (void)state;
    write_gltf("tri.gltf", ONE_PRIM("{'attributes':{'POSITION':0,'NORMAL':1,'TEXCOORD_0':2},'indices':4}"));
    const src_mesh m = {"m", 5, pos5, nrm5_z, uv5, 2, tri_quad};
    const src_instance in = {0, IDENTITY, ""};
    const src_scene sc = {"tri.gltf", 1, &m, 1, NULL, 1, &in};
    round_trip(&sc);
}

static void test_data_uri_buffer_round_trips(void **state)
{
    (void)state;
    bin b;
    build_geometry(&b);
    char uri[600], fmt[8192];
    data_uri_member(b.b, b.n, uri, sizeof uri);
    snprintf(fmt, sizeof fmt, "%s%s", head, ONE_PRIM("{'attributes':{'POSITION':0,'TEXCOORD_0':2},'indices':5}"));
    write_json("data.gltf", fmt, uri);
    const src_mesh m = {"m", 5, pos5, NULL, uv5, 2, tri_quad};
    const src_instance in = {0, IDENTITY, ""};
    const src_scene sc = {"data.gltf", 1, &m, 1, NULL, 1, &in};
    round_trip(&sc);
}

static void test_glb_round_trips(void **state)
{
    (void)state;
    static unsigned char glb[16384];
    size_t n = build_glb(glb, sizeof glb, ONE_PRIM("{'attributes':{'POSITION':0,'NORMAL':1},'indices':3}"));
    write_bytes("scene.glb", glb, n);
    const src_mesh m = {"m", 5, pos5, nrm5_z, NULL, 2, tri_quad};
    const src_instance in = {0, IDENTITY, ""};
    const src_scene sc = {"scene.glb", 1, &m, 1, NULL, 1, &in};
    round_trip(&sc);
}

static void test_interleaved_byte_stride_round_trips(void **state)
{
    (void)state;
    write_interleaved("{'mesh':0,'name':'stride'}");
    static const float p[9] = {0, 10, 20, 1, 11, 21, 2, 12, 22};
    static const float n[9] = {0, -1, 0.5f, 0, 0, 0.5f, 0, 1, 0.5f};
    static const float t[6] = {0, 1, 0.25f, 0.75f, 0.5f, 0.5f};
    static const uint32_t tri[3] = {0, 1, 2};
    const src_mesh m = {"", 3, p, n, t, 1, tri}; /* unnamed: no name in the pack */
    const src_instance in = {0, IDENTITY, "stride"};
    const src_scene sc = {"interleaved.gltf", 1, &m, 1, NULL, 1, &in};
    round_trip(&sc);
}

static void test_sparse_accessors_round_trip(void **state)
{
    (void)state;
    /* Accessor 9: pos5 with elements 1 and 3 replaced by (5,5,5) and
     * (7,7,7); accessor 10: four zeros with the same replacements, as a
     * strip: (v0 v1 v2), (v1 v3 v2). */
    write_gltf("sparse.gltf", "'meshes':[{'name':'m','primitives':[{'attributes':{'POSITION':9},'indices':4},"
                              "{'attributes':{'POSITION':10},'mode':5}]}],'nodes':[{'mesh':0}]}");
    static const float p[27] = {0, 0, 0, 5, 5, 5, 0, 1, 0, 7, 7, 7, 2, 0, 0, 0, 0, 0, 5, 5, 5, 0, 0, 0, 7, 7, 7};
    static const uint32_t tri[12] = {0, 1, 2, 2, 1, 3, 5, 6, 7, 6, 8, 7};
    const src_mesh m = {"m", 9, p, NULL, NULL, 4, tri};
    const src_instance in = {0, IDENTITY, ""};
    const src_scene sc = {"sparse.gltf", 1, &m, 1, NULL, 1, &in};
    round_trip(&sc);
}

static void test_khr_mesh_quantization_normalized_ints_round_trip(void **state)
{
    (void)state;
    write_gltf("quantized.gltf",
               "'extensionsUsed':['KHR_mesh_quantization'],'extensionsRequired':['KHR_mesh_quantization'],"
               "'meshes':[{'name':'q','primitives':[{'attributes':{'POSITION':11,'NORMAL':12,'TEXCOORD_0':13}},"
               "{'attributes':{'POSITION':15,'TEXCOORD_0':14}}]}],'nodes':[{'mesh':0,'scale':[0.5,0.5,0.5]}]}");
    /* int16 positions as they are; normalized: c / 32767 (int16), c / 127
     * (int8), clamped at -1; c / 255 (uint8), c / 65535 (uint16). The
     * second primitive has no NORMAL: zero. */
    static const float p[18] = {100, -200, 300, 0, 0, 0, 32767, -32768, 1, 1, -1, -1, 16384.0f / 32767.0f,
                                0,   0,    0,   0, 0};
    static const float n[18] = {1, 0, -1, 0, -1, 64.0f / 127.0f, -64.0f / 127.0f, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    static const float t[12] = {0, 1, 51.0f / 255.0f, 102.0f / 255.0f, 1, 0, 0, 1, 1, 0, 13107.0f / 65535.0f, 0};
    static const uint32_t tri[6] = {0, 1, 2, 3, 4, 5};
    const src_mesh m = {"q", 6, p, n, t, 2, tri};
    const src_instance in = {0, {0.5, 0, 0, 0, 0, 0.5, 0, 0, 0, 0, 0.5, 0, 0, 0, 0, 1}, ""};
    const src_scene sc = {"quantized.gltf", 1, &m, 1, NULL, 1, &in};
    round_trip(&sc);
}

static void test_uint8_uint16_uint32_indices_round_trip_alike(void **state)
{
    (void)state;
    static const char *const files[3] = {"indices_u8.gltf", "indices_u16.gltf", "indices_u32.gltf"};
    for (int i = 0; i < 3; i++) {
        char tail[256];
        snprintf(tail, sizeof tail,
                 "'meshes':[{'name':'idx','primitives':[{'attributes':{'POSITION':0},'indices':%d}]}],"
                 "'nodes':[{'mesh':0}]}",
                 3 + i);
        write_gltf(files[i], tail);
        const src_mesh m = {"idx", 5, pos5, NULL, NULL, 2, tri_quad};
        const src_instance in = {0, IDENTITY, ""};
        const src_scene sc = {files[i], 1, &m, 1, NULL, 1, &in};
        round_trip(&sc);
    }
}

static void test_non_indexed_triangles_round_trip(void **state)
{
    (void)state;
    write_gltf("plain.gltf", ONE_PRIM("{'attributes':{'POSITION':7}}"));
    static const uint32_t tri[3] = {0, 1, 2};
    const src_mesh m = {"m", 3, pos5, NULL, NULL, 1, tri};
    const src_instance in = {0, IDENTITY, ""};
    const src_scene sc = {"plain.gltf", 1, &m, 1, NULL, 1, &in};
    round_trip(&sc);
}

static void test_triangle_strips_round_trip(void **state)
{
    (void)state;
    /* Strip triangle i is (v[i], v[i+1+i%2], v[i+2-i%2]): 0..4 unindexed,
     * then 0 1 2 2 1 3 through indices (two of its triangles degenerate). */
    write_gltf("strip.gltf", ONE_PRIM("{'attributes':{'POSITION':0},'mode':5},"
                                      "{'attributes':{'POSITION':0},'indices':3,'mode':5}"));
    float p[30];
    memcpy(p, pos5, sizeof pos5);
    memcpy(p + 15, pos5, sizeof pos5);
    static const uint32_t tri[21] = {0, 1, 2, 1, 3, 2, 2, 3, 4, 5, 6, 7, 6, 7, 7, 7, 7, 6, 7, 8, 6};
    const src_mesh m = {"m", 10, p, NULL, NULL, 7, tri};
    const src_instance in = {0, IDENTITY, ""};
    const src_scene sc = {"strip.gltf", 1, &m, 1, NULL, 1, &in};
    round_trip(&sc);
}

static void test_triangle_fans_round_trip(void **state)
{
    (void)state;
    /* Fan triangle i is (v[i+1], v[i+2], v[0]). */
    write_gltf("fan.gltf", ONE_PRIM("{'attributes':{'POSITION':0},'mode':6},"
                                    "{'attributes':{'POSITION':0},'indices':3,'mode':6}"));
    float p[30];
    memcpy(p, pos5, sizeof pos5);
    memcpy(p + 15, pos5, sizeof pos5);
    static const uint32_t tri[21] = {1, 2, 0, 2, 3, 0, 3, 4, 0, 6, 7, 5, 7, 7, 5, 7, 6, 5, 6, 8, 5};
    const src_mesh m = {"m", 10, p, NULL, NULL, 7, tri};
    const src_instance in = {0, IDENTITY, ""};
    const src_scene sc = {"fan.gltf", 1, &m, 1, NULL, 1, &in};
    round_trip(&sc);
}

/* Column-major products and the glTF TRS matrix, in double: the test's own
 * reading of the specification. */
static void mat_mul(const double a[16], const double b[16], double out[16])
{
    double r[16];
    for (int c = 0; c < 4; c++) {
        for (int row = 0; row < 4; row++) {
            double s = 0.0;
            for (int k = 0; k < 4; k++) {
                s += a[k * 4 + row] * b[c * 4 + k];
            }
            r[c * 4 + row] = s;
        }
    }
    memcpy(out, r, sizeof r);
}

static void mat_trs(const double t[3], const double q[4], const double s[3], double out[16])
{
    double l = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    double x = q[0] / l, y = q[1] / l, z = q[2] / l, w = q[3] / l;
    const double rot[3][3] = {
        {1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)},
        {2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)},
        {2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)},
    };
    memset(out, 0, 16 * sizeof *out);
    for (int c = 0; c < 3; c++) {
        for (int row = 0; row < 3; row++) {
            out[c * 4 + row] = rot[row][c] * s[c];
        }
        out[12 + c] = t[c];
    }
    out[15] = 1.0;
}

static void test_node_matrix_and_trs_hierarchy_round_trips(void **state)
{
    (void)state;
    /* parent (matrix: Rz(90), scale 2, translation) > child (TRS, an
     * oblique rotation, non-uniform scale) > group (no mesh, TRS) > leaf
     * (translation only). */
    static const double parent[16] = {0, 2, 0, 0, -2, 0, 0, 0, 0, 0, 2, 0, 1, 2, 3, 1};
    static const double ct[3] = {1, -2, 0.5},
                        cq[4] = {0.18257418583505536, 0.36514837167011072, 0.54772255750516607, 0.73029674334022143},
                        cs[3] = {1, 2, 3};
    static const double gt[3] = {0, 0, -4}, gq[4] = {0, 0, 0, 1}, gs[3] = {0.5, 0.5, 0.5};
    static const double lt[3] = {3, 0, 0}, lq[4] = {0, 0, 0, 1}, ls[3] = {1, 1, 1};
    char tail[2048], m16[512];
    int n = 0;
    for (int k = 0; k < 16; k++) {
        n += snprintf(m16 + n, sizeof m16 - (size_t)n, "%s%.17g", k ? "," : "", parent[k]);
    }
    snprintf(tail, sizeof tail,
             "'meshes':[{'name':'tri','primitives':[{'attributes':{'POSITION':7}}]}],"
             "'nodes':[{'name':'parent','mesh':0,'children':[1],'matrix':[%s]},"
             "{'name':'child','mesh':0,'children':[2],'translation':[%.17g,%.17g,%.17g],"
             "'rotation':[%.17g,%.17g,%.17g,%.17g],'scale':[%.17g,%.17g,%.17g]},"
             "{'name':'group','children':[3],'translation':[%.17g,%.17g,%.17g],'scale':[%.17g,%.17g,%.17g]},"
             "{'name':'leaf','mesh':0,'translation':[%.17g,%.17g,%.17g]}],'scenes':[{'nodes':[0]}],'scene':0}",
             m16, ct[0], ct[1], ct[2], cq[0], cq[1], cq[2], cq[3], cs[0], cs[1], cs[2], gt[0], gt[1], gt[2], gs[0],
             gs[1], gs[2], lt[0], lt[1], lt[2]);
    write_gltf("nodes.gltf", tail);
    src_instance in[3] = {{0, {0}, "parent"}, {0, {0}, "child"}, {0, {0}, "leaf"}};
    double local[16];
    memcpy(in[0].matrix, parent, sizeof parent);
    mat_trs(ct, cq, cs, local);
    mat_mul(in[0].matrix, local, in[1].matrix);
    double group[16];
    mat_trs(gt, gq, gs, local);
    mat_mul(in[1].matrix, local, group);
    mat_trs(lt, lq, ls, local);
    mat_mul(group, local, in[2].matrix);
    static const uint32_t tri[3] = {0, 1, 2};
    const src_mesh m = {"tri", 3, pos5, NULL, NULL, 1, tri};
    const src_scene sc = {"nodes.gltf", 1, &m, 1, NULL, 3, in};
    round_trip(&sc);
}

static void test_mesh_shared_by_two_nodes_is_one_object(void **state)
{
    (void)state;
    write_gltf("shared.gltf", "'meshes':[{'name':'tri','primitives':[{'attributes':{'POSITION':7}}]},"
                              "{'name':'quad','primitives':[{'attributes':{'POSITION':0},'indices':3}]}],"
                              "'nodes':[{'name':'a','mesh':0},{'name':'b','mesh':1,'translation':[0,0,-4]},"
                              "{'name':'c','mesh':0,'translation':[5,6,7]}],'scenes':[{'nodes':[0,1,2]}]}");
    static const uint32_t tri[3] = {0, 1, 2};
    const src_mesh m[2] = {{"tri", 3, pos5, NULL, NULL, 1, tri}, {"quad", 5, pos5, NULL, NULL, 2, tri_quad}};
    const src_instance in[3] = {{0, IDENTITY, "a"},
                                {1, {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, -4, 1}, "b"},
                                {0, {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 5, 6, 7, 1}, "c"}};
    const src_scene sc = {"shared.gltf", 2, m, 2, NULL, 3, in};
    round_trip(&sc);
}

static void test_names_with_spaces_are_preserved(void **state)
{
    (void)state;
    bin b;
    build_geometry(&b);
    write_bytes("Box With Spaces.bin", b.b, b.n);
    char fmt[8192];
    snprintf(fmt, sizeof fmt, "%s%s", head,
             "'meshes':[{'name':'my box mesh','primitives':[{'attributes':{'POSITION':0,'TEXCOORD_0':2},"
             "'indices':3}]}],'nodes':[{'name':'the box, placed','mesh':0}]}");
    write_json("Box With Spaces.gltf", fmt, "'uri':'Box%20With%20Spaces.bin',");
    const src_mesh m = {"my box mesh", 5, pos5, NULL, uv5, 2, tri_quad};
    const src_instance in = {0, IDENTITY, "the box, placed"};
    const src_scene sc = {"Box With Spaces.gltf", 1, &m, 1, NULL, 1, &in};
    round_trip(&sc);
}

static void test_gpu_instancing_round_trips_one_instance_each(void **state)
{
    (void)state;
    write_gltf("instancing.gltf", "'extensionsUsed':['EXT_mesh_gpu_instancing'],"
                                  "'meshes':[{'name':'m','primitives':[{'attributes':{'POSITION':7}}]}],"
                                  "'nodes':[{'name':'many','mesh':0,'translation':[0,0,5],'extensions':"
                                  "{'EXT_mesh_gpu_instancing':{'attributes':{'TRANSLATION':7}}}}]}");
    static const uint32_t tri[3] = {0, 1, 2};
    const src_mesh m = {"m", 3, pos5, NULL, NULL, 1, tri};
    src_instance in[3];
    for (uint32_t i = 0; i < 3; i++) { /* world * T(element i): pos5's first three */
        const src_instance one = {0, {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, pos5[3 * i], pos5[3 * i + 1], 5, 1}, "many"};
        in[i] = one;
    }
    const src_scene sc = {"instancing.gltf", 1, &m, 1, NULL, 3, in};
    round_trip(&sc);
}

/* A seeded random heightfield big enough for an LOD chain and, in 4 KiB
 * pages, for levels spread over many chunks: a GLB with normals, uvs and
 * uint32 indices. */
static void test_random_heightfield_glb_round_trips_with_its_lod_chain(void **state)
{
    (void)state;
    uint64_t seed = 0x9e3779b97f4a7c15u;
    print_message("seed %llu\n", (unsigned long long)seed);
    enum { N = 32, SIDE = N + 1, VERTS = SIDE * SIDE, TRIS = N * N * 2 };
    static float p[VERTS * 3], nrm[VERTS * 3], uv[VERTS * 2];
    static uint32_t tri[TRIS * 3];
    double r1 = (double)(rng_next(&seed) % 1000) / 1000.0, r2 = (double)(rng_next(&seed) % 1000) / 1000.0;
    float ox = (float)(rng_next(&seed) % 2001) / 100.0f - 10.0f, oz = (float)(rng_next(&seed) % 2001) / 100.0f - 10.0f;
    for (uint32_t z = 0; z < SIDE; z++) {
        for (uint32_t x = 0; x < SIDE; x++) {
            uint32_t i = z * SIDE + x;
            double noise = (double)(rng_next(&seed) % 1001) / 1000.0 - 0.5;
            p[i * 3 + 0] = (float)x * 0.5f + ox;
            p[i * 3 + 1] = (float)(3.0 * sin(x * 0.21 + 6.0 * r1) * cos(z * 0.17 + 6.0 * r2) + 0.01 * noise);
            p[i * 3 + 2] = (float)z * 0.5f + oz;
            double nx = (double)(rng_next(&seed) % 1001) / 2000.0 - 0.25;
            double nz = (double)(rng_next(&seed) % 1001) / 2000.0 - 0.25;
            double l = sqrt(nx * nx + 1.0 + nz * nz);
            nrm[i * 3 + 0] = (float)(nx / l), nrm[i * 3 + 1] = (float)(1.0 / l), nrm[i * 3 + 2] = (float)(nz / l);
            uv[i * 2 + 0] = (float)x / (float)N;
            uv[i * 2 + 1] = 2.0f - 3.0f * (float)z / (float)N;
        }
    }
    uint32_t *t = tri;
    for (uint32_t z = 0; z < N; z++) {
        for (uint32_t x = 0; x < N; x++) {
            uint32_t a = z * SIDE + x, b = a + 1, c = a + SIDE, d = c + 1;
            *t++ = a, *t++ = c, *t++ = b;
            *t++ = b, *t++ = c, *t++ = d;
        }
    }
    /* The BIN chunk: positions, normals, uvs, indices, each little-endian. */
    size_t bin_n = sizeof p + sizeof nrm + sizeof uv + sizeof tri;
    unsigned char *bytes = malloc(bin_n);
    assert_non_null(bytes);
    size_t at = 0;
    const struct {
        const void *data;
        size_t words;
    } parts[4] = {{p, VERTS * 3}, {nrm, VERTS * 3}, {uv, VERTS * 2}, {tri, TRIS * 3}};
    for (int k = 0; k < 4; k++) {
        for (size_t w = 0; w < parts[k].words; w++) {
            uint32_t u;
            memcpy(&u, (const unsigned char *)parts[k].data + w * 4, 4);
            for (int byte = 0; byte < 4; byte++) {
                bytes[at++] = (unsigned char)(u >> (8 * byte));
            }
        }
    }
    assert_int_equal(at, bin_n);
    char json[2048];
    snprintf(json, sizeof json,
             "{'asset':{'version':'2.0'},'buffers':[{'byteLength':%zu}],'bufferViews':["
             "{'buffer':0,'byteOffset':0,'byteLength':%zu},{'buffer':0,'byteOffset':%zu,'byteLength':%zu},"
             "{'buffer':0,'byteOffset':%zu,'byteLength':%zu},{'buffer':0,'byteOffset':%zu,'byteLength':%zu}],"
             "'accessors':[{'bufferView':0,'componentType':5126,'count':%d,'type':'VEC3'},"
             "{'bufferView':1,'componentType':5126,'count':%d,'type':'VEC3'},"
             "{'bufferView':2,'componentType':5126,'count':%d,'type':'VEC2'},"
             "{'bufferView':3,'componentType':5125,'count':%d,'type':'SCALAR'}],"
             "'meshes':[{'name':'terrain','primitives':[{'attributes':{'POSITION':0,'NORMAL':1,'TEXCOORD_0':2},"
             "'indices':3}]}],'nodes':[{'name':'ground','mesh':0,'translation':[0,-1,0]}]}",
             bin_n, sizeof p, sizeof p, sizeof nrm, sizeof p + sizeof nrm, sizeof uv, sizeof p + sizeof nrm + sizeof uv,
             sizeof tri, VERTS, VERTS, VERTS, TRIS * 3);
    size_t cap = bin_n + sizeof json + 64;
    unsigned char *glb = malloc(cap);
    assert_non_null(glb);
    size_t n = glb_assemble(glb, cap, json, bytes, bin_n);
    write_bytes("terrain.glb", glb, n);
    free(glb);
    free(bytes);

    const src_mesh m = {"terrain", VERTS, p, nrm, uv, TRIS, tri};
    const src_instance in = {0, {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -1, 0, 1}, "ground"};
    const src_scene sc = {"terrain.glb", 1, &m, 1, NULL, 1, &in};
    round_trip(&sc);

    /* The chain and the chunks the checks above went through. */
    for (int quantized = 0; quantized <= 1; quantized++) {
        reader r;
        reader_open(&r, tracked_path(quantized ? "roundtrip-quantized.pack" : "roundtrip-float.pack"),
                    SLC_PLATFORM_FILE_DEFAULT, "terrain.glb");
        const slc_pack_object *ob = slc_pack_get_object(r.pack, (slc_object_id){0});
        print_message("%s pack: %u levels, %u chunks, level 0 in %u spans, coarsest %u triangles\n",
                      quantized ? "quantized" : "float", ob->lod_count, r.h->chunk_count,
                      slc_pack_get_lod(r.pack, ob->first_lod)->span_count,
                      slc_pack_get_lod(r.pack, ob->first_lod + ob->lod_count - 1)->triangle_count);
        assert_true(ob->lod_count >= 3);
        assert_true(slc_pack_get_lod(r.pack, ob->first_lod + ob->lod_count - 1)->error > 0.0f);
        if (quantized) {
            assert_true(slc_pack_get_lod(r.pack, ob->first_lod)->span_count > 1);
        }
        reader_close(&r);
    }
}

static void test_runtime_vertex_stride_matches_the_specification(void **state)
{
    (void)state;
    for (uint32_t a = 0; a < 32; a++) {
        assert_int_equal(slc_pack_vertex_stride(a), stride_of(a));
    }
    assert_int_equal(slc_pack_vertex_stride(SLC_PACK_ATTR_NORMAL | SLC_PACK_ATTR_UV), 32);
    assert_int_equal(slc_pack_vertex_stride(SLC_PACK_ATTR_NORMAL | SLC_PACK_ATTR_UV | SLC_PACK_ATTR_POS_U16 |
                                            SLC_PACK_ATTR_NORMAL_OCT8 | SLC_PACK_ATTR_UV_U16),
                     16);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_runtime_vertex_stride_matches_the_specification),
        cmocka_unit_test(test_gltf_with_bin_round_trips_positions_normals_uvs),
        cmocka_unit_test(test_data_uri_buffer_round_trips),
        cmocka_unit_test(test_glb_round_trips),
        cmocka_unit_test(test_interleaved_byte_stride_round_trips),
        cmocka_unit_test(test_sparse_accessors_round_trip),
        cmocka_unit_test(test_khr_mesh_quantization_normalized_ints_round_trip),
        cmocka_unit_test(test_uint8_uint16_uint32_indices_round_trip_alike),
        cmocka_unit_test(test_non_indexed_triangles_round_trip),
        cmocka_unit_test(test_triangle_strips_round_trip),
        cmocka_unit_test(test_triangle_fans_round_trip),
        cmocka_unit_test(test_node_matrix_and_trs_hierarchy_round_trips),
        cmocka_unit_test(test_mesh_shared_by_two_nodes_is_one_object),
        cmocka_unit_test(test_names_with_spaces_are_preserved),
        cmocka_unit_test(test_gpu_instancing_round_trips_one_instance_each),
        cmocka_unit_test(test_random_heightfield_glb_round_trips_with_its_lod_chain),
    };
    return cmocka_run_group_tests(tests, gltf_writer_setup, gltf_writer_teardown);
}
