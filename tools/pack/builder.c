/* SPDX-License-Identifier: MIT */
/* sluice pack: the pack builder (see builder.h, docs/pack-format.md).
 *
 * How clusters become chunks. Every cluster of a chunk has the same LOD
 * level, and a chunk flagged SLC_PACK_CHUNK_COARSEST holds only clusters of
 * their objects' coarsest levels. So the builder keeps one open page per
 * (level, coarsest) pair: level l of an object that has finer or coarser
 * levels goes to the page of l, the last level of an object goes to the
 * coarsest page of l. Clusters of consecutive objects share those pages,
 * which is how pages fill to 90% and more; a page is finished as a chunk
 * when the next cluster does not fit. Pages are opened on first use, so at
 * most 2 x max_lods - 1 are open at once (level max_lods - 1 is always a
 * coarsest level). Every open page is finished at the end of a bundle
 * (pk_build_options.bundle_size), so no page holds clusters of two bundles.
 *
 * A chunk's index is given when its page is opened, so the spans of an LOD
 * can name the chunk before it is written; chunks reach the file in the
 * order they are finished, so the chunk table's offsets are not sorted.
 * Chunks, LODs, spans and strings are numbered within their bundle; the
 * appender (pack_writer.h) or the partial-pack writer (part.h) takes a
 * bundle when it ends.
 *
 * The pipeline (jobs > 1). The caller's thread runs the sequential stage in
 * pk_builder_add_mesh (checks, hash, deduplication, bundle) and then hands
 * the mesh to a ring of jobs slots; the per-mesh work (build_mesh: optimise,
 * bounds, levels, clusters, encoded vertices) runs on the pool's workers.
 * The ordered stage (place_mesh: clusters into pages, the LOD and object
 * records) runs on the caller's thread, taking results in mesh order;
 * finished pages go to a ring of page slots whose codec work (choose_codec)
 * runs on the workers, and their chunks are appended in finish order. A
 * thread that waits for a result runs queued work meanwhile, so jobs N
 * keeps N threads busy. A new bundle starts only once the previous one is
 * drained, so its records are complete when it is handed on. With jobs 1
 * the same functions run inline, in the same order, with no thread.
 *
 * Decoded chunk layout: slc_pack_chunk_header, cluster_count
 * slc_pack_cluster records, then per cluster its vertices (at a 4-byte
 * aligned vertex_offset) and right after them its triangles (index_offset,
 * 3 uint8 local indices each). Padding bytes are zero. */
#define _POSIX_C_SOURCE 200809L
#define _FILE_OFFSET_BITS 64

#include "builder.h"

#include <assert.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <lz4.h>
#include <lz4hc.h>
#include <meshoptimizer.h>
#define XXH_STATIC_LINKING_ONLY /* XXH3_state_t by value */
#include <xxhash.h>

#include "lod_error.h"
#include "meshopt_stream.h"
#include "pack_writer.h"
#include "part.h"
#include "sluice/pack.h"
#include "sluice/pack_format.h"
#include "sluice/profile.h"
#include "texture_cut.h"

#define CHUNK_HEADER_BYTES ((uint32_t)sizeof(slc_pack_chunk_header))
#define CLUSTER_BYTES ((uint32_t)sizeof(slc_pack_cluster))
#define WIDEST_VERTEX 32u              /* float position, normal and uv */
#define MAX_PAGE_CLUSTERS 65535u       /* span.first_cluster is a uint16 */
#define LOD_MIN_REDUCTION 0.95         /* a level must keep fewer than 95% of the triangles */
#define SIMPLIFY_TARGET_ERROR 1.0f     /* relative to the mesh extent: the triangle count decides */
#define MAX_SEAM_CANDIDATES 8u         /* vertices of one position tried per corner when mapping a welded level */
#define PAGE_SLOTS (2u * SLC_LODS_MAX) /* (level, coarsest) */
#define DEFAULT_BUNDLE_SIZE (64ull << 20)
#define MAX_JOBS 256u

/* One open page: its cluster records and, separately, their vertex and
 * triangle bytes (offsets relative to the data start until assembled). */
typedef struct page {
    int open;
    uint32_t chunk; /* bundle-local index given at open */
    uint32_t lod;
    int coarsest;
    uint32_t cluster_count;
    uint32_t cluster_cap;
    slc_pack_cluster *clusters;
    unsigned char *data; /* page_size bytes, allocated on first use */
    uint32_t data_size;
    uint32_t triangles;
    uint32_t vertices;
} page;

/* A texture added before: what makes two the same, and its index. */
typedef struct texture_key {
    uint64_t hash;
    uint32_t kind, wrap, id;
} texture_key;

/* An entry of the mesh deduplication table. */
typedef struct mesh_key {
    XXH128_hash_t hash;
    uint32_t object;
    uint32_t used;
} mesh_key;

enum { SLOT_FREE = 0, SLOT_QUEUED, SLOT_DONE };

/* A finished page on its way to the file: assembled by the ordered stage,
 * encoded by choose_codec (on a worker when jobs > 1), appended in order. */
typedef struct page_job {
    int state;
    uint32_t chunk; /* bundle-local index */
    uint32_t decoded, clusters;
    slc_pack_chunk rec;       /* all but offset once encoded */
    const void *stored;       /* rec.stored_size bytes: one of the buffers below */
    unsigned char *assembled; /* page_size bytes: the decoded chunk */
    char *compressed;         /* LZ4_compressBound(page_size) bytes */
    char *mcompressed;        /* the same: the meshopt stream through LZ4 */
    unsigned char *mstream;   /* the meshopt stream, mstream_cap bytes */
    size_t mstream_cap;
} page_job;

/* A cluster of a built mesh: its encoded vertices and canonical triangles
 * at bytes + at. */
typedef struct built_cluster {
    size_t at;
    uint32_t vertex_count, triangle_count;
    float sphere[4];
} built_cluster;

/* One mesh in the pipeline: the input (owned unless jobs is 1) and, once
 * built, what the ordered stage needs. */
typedef struct mesh_job {
    int state;
    pk_mesh mesh;
    int owns_mesh;
    char label[128];
    uint32_t object, name;
    uint32_t material; /* the object's: 0 or 1 + its index */
    int rc;
    char message[sizeof(((pk_diag *)0)->message)];
    slc_pack_object obj; /* bounds, decode parameters, attributes, stride */
    uint32_t stride, levels;
    float level_error[SLC_LODS_MAX];
    float level_measured[SLC_LODS_MAX];
    uint32_t level_method[SLC_LODS_MAX];
    uint32_t chain_end;
    float level_sphere[SLC_LODS_MAX][4];
    uint32_t level_first[SLC_LODS_MAX + 1]; /* clusters of level l: [level_first[l], level_first[l + 1]) */
    built_cluster *clusters;
    uint32_t cluster_count, cluster_cap;
    unsigned char *bytes;
    size_t byte_size, byte_cap;
} mesh_job;

/* A queued piece of work: a mesh to build or a page to encode. */
typedef struct task {
    mesh_job *mesh;
    page_job *page;
} task;

struct pk_builder {
    char *path;           /* the target, as the caller named it (for messages) */
    pk_writer *writer;    /* a pack, or ... */
    pk_part_writer *part; /* ... a partial pack */
    int failed;           /* a write failed or a mesh was left half-built: only abort is accepted */
    int io_failed;        /* ... and it was a write or read of the file */
    pk_build_options opt;
    struct timespec t0;
    XXH3_state_t fingerprint; /* options, mesh hashes and names, instances, in order */

    /* The sequential stage. */
    uint32_t object_count; /* objects of the whole input so far */
    uint32_t bundle;       /* the current bundle, once any_bundle */
    int any_bundle;
    int bundle_built; /* this process builds the current bundle (every one unless --part) */
    uint64_t bundle_bytes;

    /* The current bundle's records, bundle-local. */
    page pages[PAGE_SLOTS];
    slc_pack_chunk *chunks;
    uint32_t chunk_count, chunk_cap;
    slc_pack_object *objects;
    uint32_t object_first; /* the global index of objects[0] */
    uint32_t bundle_objects, objects_cap;
    pk_tables t; /* lods, spans, instances, strings */

    mesh_key *mesh_table;
    uint32_t mesh_table_cap, mesh_table_used;
    /* Materials and textures: the current bundle's records, the counts of
     * the whole input, the textures' keys for deduplication. */
    slc_pack_material *materials;
    uint32_t material_count, material_cap, material_total;
    slc_pack_texture *textures;
    uint32_t texture_count, texture_cap, texture_total;
    texture_key *texture_keys;
    uint32_t texture_key_count, texture_key_cap;
    pk_encoder **encoders;          /* [2 x texture_threads]: linear then sRGB, one per thread, made on first use */
    uint32_t texture_threads;       /* min(jobs, PK_TEXTURE_MAX_THREADS) */
    uint32_t texture_first_chunk;   /* the texture being cut: its first bundle-local chunk */
    pk_texture_built_fn on_texture; /* pk_builder_on_texture's listener, or NULL */
    void *on_texture_user;

    /* The pipeline: mesh_slots and page_slots rings, the pool. */
    uint32_t jobs;
    mesh_job *mesh_ring;
    uint32_t mesh_slots, mesh_head, mesh_count;
    page_job *page_ring;
    uint32_t page_slots, page_head, page_count;
    void *lz4_state; /* the calling thread's */
    pthread_mutex_t mu;
    pthread_cond_t work_cv, done_cv;
    task *queue;
    uint32_t queue_cap, queue_head, queue_count;
    int stop;
    pthread_t *threads;
    void **thread_lz4;
    uint32_t thread_count;
    int sync_ready;

    pk_build_stats stats;
};

/* --- small helpers ------------------------------------------------------- */

#define fail pk_fail

static uint64_t align_up(uint64_t v, uint64_t a)
{
    return (v + a - 1) & ~(a - 1);
}
#define grow pk_grow

static const char *mesh_label(const pk_mesh *m, uint32_t index, char *buf, size_t cap)
{
    size_t n = strnlen(m->name, sizeof m->name);
    if (n > 0) {
        snprintf(buf, cap, "mesh '%.*s' (%u)", (int)n, m->name, index);
    } else {
        snprintf(buf, cap, "mesh %u", index);
    }
    return buf;
}

/* Appends a NUL-terminated name to the bundle's strings; SLC_PACK_NO_NAME
 * for "". */
static int add_string(pk_builder *b, const char *name, size_t max, uint32_t *out)
{
    size_t n = strnlen(name, max);
    if (n == 0) {
        *out = SLC_PACK_NO_NAME;
        return 0;
    }
    uint64_t need = (uint64_t)b->t.string_size + n + 1;
    if (need >= SLC_PACK_NO_NAME || grow((void **)&b->t.strings, &b->t.string_cap, need, 1) != 0) {
        return -1;
    }
    *out = b->t.string_size;
    memcpy(b->t.strings + b->t.string_size, name, n);
    b->t.strings[b->t.string_size + n] = '\0';
    b->t.string_size = (uint32_t)need;
    return 0;
}

/* --- options ------------------------------------------------------------- */

uint32_t pk_default_jobs(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1) {
        return 1;
    }
    return n > (long)PK_DEFAULT_MAX_JOBS ? PK_DEFAULT_MAX_JOBS : (uint32_t)n;
}

int pk_build_options_resolve(const pk_build_options *in, pk_build_options *o, pk_diag *d)
{
    memset(o, 0, sizeof *o);
    if (in != NULL) {
        *o = *in;
    }
    if (o->page_size == 0) {
        o->page_size = SLC_DEFAULT_PAGE_SIZE;
    }
    if ((o->page_size & (o->page_size - 1)) != 0 || o->page_size < SLC_PAGE_SIZE_MIN ||
        o->page_size > SLC_PAGE_SIZE_MAX) {
        return fail(d, "page size %u is not a power of two from %u to %u bytes", o->page_size, SLC_PAGE_SIZE_MIN,
                    SLC_PAGE_SIZE_MAX);
    }
    if ((unsigned)o->codec >= PK_CODEC_COUNT) {
        return fail(d, "codec %d is not one of auto, stored, lz4, meshopt, meshopt-lz4", (int)o->codec);
    }
    if (o->lz4_level == 0) {
        o->lz4_level = PK_DEFAULT_LZ4_LEVEL;
    }
    if (o->lz4_level < 1 || o->lz4_level > LZ4HC_CLEVEL_MAX) {
        return fail(d, "LZ4 level %d is not from 1 to %d", o->lz4_level, LZ4HC_CLEVEL_MAX);
    }
    if (o->quantize != 0 && o->quantize != 1) {
        return fail(d, "quantize is %d, not 0 or 1", o->quantize);
    }
    if (o->max_lods == 0) {
        o->max_lods = PK_DEFAULT_MAX_LODS;
    }
    if (o->max_lods > SLC_LODS_MAX) {
        return fail(d, "max LODs %u is more than %u", o->max_lods, SLC_LODS_MAX);
    }
    if (o->stored_ratio_threshold == 0.0) {
        o->stored_ratio_threshold = PK_DEFAULT_STORED_RATIO;
    }
    if (!(o->stored_ratio_threshold >= 1.0) || !isfinite(o->stored_ratio_threshold)) {
        return fail(d, "stored ratio threshold %g is not a finite number >= 1", o->stored_ratio_threshold);
    }
    if (o->max_cluster_vertices == 0) {
        o->max_cluster_vertices = PK_DEFAULT_CLUSTER_VERTICES;
    }
    if (o->max_cluster_vertices < 3 || o->max_cluster_vertices > PK_MAX_CLUSTER_VERTICES) {
        return fail(d, "cluster vertex limit %u is not from 3 to %u", o->max_cluster_vertices, PK_MAX_CLUSTER_VERTICES);
    }
    if (o->max_cluster_triangles == 0) {
        o->max_cluster_triangles = PK_DEFAULT_CLUSTER_TRIANGLES;
    }
    if (o->max_cluster_triangles < 4 || o->max_cluster_triangles > PK_MAX_CLUSTER_TRIANGLES) {
        return fail(d, "cluster triangle limit %u is not from 4 to %u", o->max_cluster_triangles,
                    PK_MAX_CLUSTER_TRIANGLES);
    }
    if (o->jobs == 0) {
        o->jobs = pk_default_jobs();
    }
    if (o->jobs > MAX_JOBS) {
        return fail(d, "jobs %u is not from 1 to %u", o->jobs, MAX_JOBS);
    }
    if (o->bundle_size == 0) {
        o->bundle_size = DEFAULT_BUNDLE_SIZE;
    }
    if (o->part_count > PK_MAX_PARTS || o->part > o->part_count || (o->part_count > 0 && o->part == 0)) {
        return fail(d, "part %u of %u is not K of N with 1 <= K <= N <= %u", o->part, o->part_count, PK_MAX_PARTS);
    }
    if (o->texture_format == 0) {
        o->texture_format = PK_DEFAULT_TEXTURE_FORMAT;
    }
    if (o->texture_format != PK_TEXTURES_NONE && slc_pack_texel_format_name(o->texture_format) == NULL) {
        return fail(d, "texture format %u is not one of rgba8, bc1, bc3, astc4x4, astc6x6, astc8x8 or none",
                    o->texture_format);
    }
    if (o->texture_quality > (uint32_t)PK_ENCODE_THOROUGH) {
        return fail(d, "texture quality %u is not one of medium, fast, thorough", o->texture_quality);
    }
    if (o->texture_format != PK_TEXTURES_NONE && pk_texture_tile_size(o->texture_format, o->page_size) == 0) {
        return fail(d, "%u-byte pages cannot hold one %s texture tile", o->page_size,
                    slc_pack_texel_format_name(o->texture_format));
    }
    o->max_cluster_triangles &= ~3u;
    /* One cluster of the widest vertex must fit an empty page. */
    while (CHUNK_HEADER_BYTES + CLUSTER_BYTES + o->max_cluster_vertices * WIDEST_VERTEX +
               o->max_cluster_triangles * 3u >
           o->page_size) {
        o->max_cluster_vertices = o->max_cluster_vertices / 2 < 3 ? 3 : o->max_cluster_vertices / 2;
        o->max_cluster_triangles = (o->max_cluster_triangles / 2) & ~3u;
        if (o->max_cluster_triangles < 4) {
            o->max_cluster_triangles = 4;
        }
    }
    return 0;
}

/* The options that shape the output, in a fixed layout, for the
 * fingerprint of a partial pack: not jobs, part or part_count, so every
 * part and the whole pack have the same (part.h checks N on its own). */
static void hash_options(XXH3_state_t *st, const pk_build_options *o)
{
    uint64_t ratio_bits;
    memcpy(&ratio_bits, &o->stored_ratio_threshold, sizeof ratio_bits);
    uint64_t v[9] = {(uint64_t)o->codec, o->page_size, (uint64_t)(int64_t)o->lz4_level, (uint64_t)o->quantize,
                     o->max_lods,        ratio_bits,   o->max_cluster_vertices,         o->max_cluster_triangles,
                     o->bundle_size};
    XXH3_64bits_update(st, v, sizeof v);
    if (o->codecs_allowed != 0) { /* hashed only when set: the fingerprints of packs without it stay */
        uint64_t allowed = o->codecs_allowed;
        XXH3_64bits_update(st, &allowed, sizeof allowed);
    }
    if (o->texture_format != PK_DEFAULT_TEXTURE_FORMAT || o->texture_quality != 0) { /* likewise */
        uint64_t tex[2] = {o->texture_format, o->texture_quality};
        XXH3_64bits_update(st, tex, sizeof tex);
    }
}

int pk_codec_allowed(const pk_build_options *o, uint32_t codec)
{
    return codec == SLC_PACK_CODEC_STORED || o->codecs_allowed == 0 || (o->codecs_allowed & (1u << codec)) != 0;
}

/* --- chunks -------------------------------------------------------------- */

const char *const pk_codec_names[PK_CODEC_COUNT + 1] = {"auto", "stored", "lz4", "meshopt", "meshopt-lz4", NULL};

/* The chunk's meshopt stream (docs/pack-format.md, "Meshopt stream") in
 * p->mstream: the header and cluster records as they are, then per cluster
 * its sizes, its vertices through meshopt_encodeVertexBuffer (version 0) and
 * its triangles through meshopt_encodeIndexBuffer (version 1; both versions
 * are set by pk_builder_open, before any worker starts). Each cluster is
 * decoded again and compared, so a chunk the stream would not give back
 * byte for byte is never written so. Returns the stream's bytes; 0 when the
 * chunk cannot take the codec (a cluster over 512 triangles or an encoded
 * part over 65535 bytes) or memory ran out. */
static size_t meshopt_stream(page_job *p, const unsigned char *chunk, uint32_t n)
{
    size_t head = CHUNK_HEADER_BYTES + (size_t)n * CLUSTER_BYTES;
    size_t need = head;
    for (uint32_t i = 0; i < n; i++) {
        slc_pack_cluster cl;
        memcpy(&cl, chunk + CHUNK_HEADER_BYTES + (size_t)i * CLUSTER_BYTES, sizeof cl);
        if (cl.triangle_count > SLC_PACK_MESHOPT_MAX_TRIANGLES) {
            return 0;
        }
        uint32_t stride = (cl.index_offset - cl.vertex_offset) / cl.vertex_count;
        need += sizeof(slc_pack_meshopt_cluster) + meshopt_encodeVertexBufferBound(cl.vertex_count, stride) +
                meshopt_encodeIndexBufferBound((size_t)cl.triangle_count * 3u, cl.vertex_count);
    }
    if (need > p->mstream_cap) {
        unsigned char *m = realloc(p->mstream, need);
        if (m == NULL) {
            return 0;
        }
        p->mstream = m;
        p->mstream_cap = need;
    }
    memcpy(p->mstream, chunk, head);
    size_t pos = head;
    for (uint32_t i = 0; i < n; i++) {
        slc_pack_cluster cl;
        memcpy(&cl, chunk + CHUNK_HEADER_BYTES + (size_t)i * CLUSTER_BYTES, sizeof cl);
        uint32_t stride = (cl.index_offset - cl.vertex_offset) / cl.vertex_count;
        size_t count = (size_t)cl.triangle_count * 3u;
        unsigned int idx[SLC_PACK_MESHOPT_MAX_TRIANGLES * 3];
        for (size_t k = 0; k < count; k++) {
            idx[k] = chunk[cl.index_offset + k];
        }
        unsigned char *at = p->mstream + pos + sizeof(slc_pack_meshopt_cluster);
        size_t vs = meshopt_encodeVertexBuffer(at, need - pos - sizeof(slc_pack_meshopt_cluster),
                                               chunk + cl.vertex_offset, cl.vertex_count, stride);
        size_t is = vs == 0 ? 0
                            : meshopt_encodeIndexBuffer(at + vs, need - pos - sizeof(slc_pack_meshopt_cluster) - vs,
                                                        idx, count);
        if (vs == 0 || is == 0 || vs > UINT16_MAX || is > UINT16_MAX) {
            return 0;
        }
        /* Decoded again as the tools decode it: the vertices byte for
         * byte, the triangles in their canonical rotation. */
        slc_pack_meshopt_cluster mc = {(uint16_t)vs, (uint16_t)is};
        unsigned char vcheck[PK_MAX_CLUSTER_VERTICES * WIDEST_VERTEX];
        unsigned char tcheck[SLC_PACK_MESHOPT_MAX_TRIANGLES * 3];
        uint16_t icheck[PK_MESHOPT_INDICES];
        if (stride > WIDEST_VERTEX ||
            pk_meshopt_decode_cluster(at, mc, cl.vertex_count, stride, cl.triangle_count, vcheck, tcheck, icheck) !=
                0 ||
            memcmp(vcheck, chunk + cl.vertex_offset, (size_t)cl.vertex_count * stride) != 0 ||
            memcmp(tcheck, chunk + cl.index_offset, count) != 0) {
            return 0;
        }
        memcpy(p->mstream + pos, &mc, sizeof mc);
        pos += sizeof mc + vs + is;
    }
    return pos;
}

/* Fills p->rec's codec, stored_size and xxh3 with the encoding opt->codec
 * asks for (builder.h, pk_codec) and points p->stored at its bytes. Reads
 * only p and opt: runs on any thread, lz4_state being that thread's. */
static void choose_codec(const pk_build_options *opt, void *lz4_state, page_job *p)
{
    const unsigned char *chunk = p->assembled;
    uint32_t decoded = p->decoded;
    int cap = LZ4_compressBound((int)opt->page_size);
    pk_codec mode = opt->codec;
    uint32_t codec = SLC_PACK_CODEC_STORED;
    uint32_t size = decoded;
    const void *bytes = chunk;
    if ((mode == PK_CODEC_AUTO || mode == PK_CODEC_LZ4) && pk_codec_allowed(opt, SLC_PACK_CODEC_LZ4)) {
        int n = LZ4_compress_HC_extStateHC(lz4_state, (const char *)chunk, p->compressed, (int)decoded, cap,
                                           opt->lz4_level);
        if (n > 0 && (double)n * opt->stored_ratio_threshold < (double)decoded) {
            codec = SLC_PACK_CODEC_LZ4;
            size = (uint32_t)n;
            bytes = p->compressed;
        }
    }
    /* auto only picks what the runtime linked with this packer decodes (a
     * build with SLUICE_CODEC_MESHOPT=OFF packs what it can read back) */
    int meshopt_ok = mode != PK_CODEC_AUTO || slc_pack_codec_is_built(SLC_PACK_CODEC_MESHOPT);
    /* and never a codec the target runtime lacks (opt->codecs_allowed) */
    const int allow_m = pk_codec_allowed(opt, SLC_PACK_CODEC_MESHOPT);
    const int allow_ml = pk_codec_allowed(opt, SLC_PACK_CODEC_MESHOPT_LZ4);
    meshopt_ok = meshopt_ok && (allow_m || allow_ml);
    if (meshopt_ok && (mode == PK_CODEC_AUTO || mode == PK_CODEC_MESHOPT || mode == PK_CODEC_MESHOPT_LZ4)) {
        size_t m = meshopt_stream(p, chunk, p->clusters);
        /* Forced: wherever smaller than stored. Auto: the saving floor over
         * the cheaper pick. */
        double floor_m = mode == PK_CODEC_AUTO ? (double)size * (1.0 - PK_MESHOPT_MIN_SAVING) : (double)decoded - 0.5;
        if (allow_m && m > 0 && m < decoded && mode != PK_CODEC_MESHOPT_LZ4 && (double)m <= floor_m) {
            codec = SLC_PACK_CODEC_MESHOPT;
            size = (uint32_t)m;
            bytes = p->mstream;
        }
        if (allow_ml && m > 0 && m <= decoded && mode != PK_CODEC_MESHOPT) {
            int n = LZ4_compress_HC_extStateHC(lz4_state, (const char *)p->mstream, p->mcompressed, (int)m, cap,
                                               opt->lz4_level);
            double floor_l = mode == PK_CODEC_AUTO ? (double)size * (1.0 - PK_MESHOPT_MIN_SAVING)
                                                   : (double)decoded - 0.5;
            if (n > 0 && (double)n <= floor_l) {
                codec = SLC_PACK_CODEC_MESHOPT_LZ4;
                size = (uint32_t)n;
                bytes = p->mcompressed;
            }
        }
    }
    p->rec.codec = (uint8_t)codec;
    p->rec.stored_size = size;
    p->rec.xxh3 = XXH3_64bits(bytes, size);
    p->stored = bytes;
}

/* --- vertices ------------------------------------------------------------ */

/* What an object's vertices look like in the file, and how to get there. */
typedef struct vertex_format {
    uint32_t attributes;
    uint32_t stride;  /* bytes in the file */
    uint32_t fstride; /* floats in the working buffer */
    int has_normal, has_uv;
    float pos_min[3], pos_scale[3];
    float uv_min[2], uv_scale[2];
} vertex_format;

static uint16_t quantize_unorm16(float v, float offset, float scale)
{
    if (!(scale > 0.0f)) {
        return 0;
    }
    float t = (v - offset) / scale;
    t = t < 0.0f ? 0.0f : t > 1.0f ? 1.0f : t;
    return (uint16_t)(t * 65535.0f + 0.5f);
}

static int8_t snorm8(float v)
{
    v = v < -1.0f ? -1.0f : v > 1.0f ? 1.0f : v;
    return (int8_t)(v >= 0.0f ? (int)(v * 127.0f + 0.5f) : (int)(v * 127.0f - 0.5f));
}

/* Octahedral encoding of a direction (need not be unit length). */
static void encode_oct8(const float *n, int8_t out[2])
{
    float ax = fabsf(n[0]), ay = fabsf(n[1]), az = fabsf(n[2]);
    float l1 = ax + ay + az;
    if (!(l1 > 0.0f)) {
        out[0] = 0;
        out[1] = 0;
        return;
    }
    float x = n[0] / l1, y = n[1] / l1;
    if (n[2] < 0.0f) {
        float ox = (1.0f - fabsf(y)) * (x >= 0.0f ? 1.0f : -1.0f);
        float oy = (1.0f - fabsf(x)) * (y >= 0.0f ? 1.0f : -1.0f);
        x = ox;
        y = oy;
    }
    out[0] = snorm8(x);
    out[1] = snorm8(y);
}

/* Writes one vertex of the working buffer (fstride floats) in file form. */
static void encode_vertex(const vertex_format *f, const float *v, unsigned char *out)
{
    unsigned char *p = out;
    if (f->attributes & SLC_PACK_ATTR_POS_U16) {
        uint16_t q[4] = {0, 0, 0, 0};
        for (int k = 0; k < 3; k++) {
            q[k] = quantize_unorm16(v[k], f->pos_min[k], f->pos_scale[k]);
        }
        memcpy(p, q, 8);
        p += 8;
    } else {
        memcpy(p, v, 12);
        p += 12;
    }
    const float *a = v + 3;
    if (f->has_normal) {
        if (f->attributes & SLC_PACK_ATTR_NORMAL_OCT8) {
            int8_t o[4] = {0, 0, 0, 0};
            encode_oct8(a, o);
            memcpy(p, o, 4);
            p += 4;
        } else {
            memcpy(p, a, 12);
            p += 12;
        }
        a += 3;
    }
    if (f->has_uv) {
        if (f->attributes & SLC_PACK_ATTR_UV_U16) {
            uint16_t q[2];
            q[0] = quantize_unorm16(a[0], f->uv_min[0], f->uv_scale[0]);
            q[1] = quantize_unorm16(a[1], f->uv_min[1], f->uv_scale[1]);
            memcpy(p, q, 4);
        } else {
            memcpy(p, a, 8);
        }
    }
}

/* --- meshes -------------------------------------------------------------- */

/* Half the diagonal of one quantization step: what decoded positions may
 * stray from the float ones, so spheres grow by it. */
static float quantization_slack(const vertex_format *f)
{
    if (!(f->attributes & SLC_PACK_ATTR_POS_U16)) {
        return 0.0f;
    }
    float s = 0.0f;
    for (int k = 0; k < 3; k++) {
        float h = 0.5f * f->pos_scale[k] / 65535.0f;
        s += h * h;
    }
    return sqrtf(s);
}

/* Bounding sphere of the vertices a level uses: box center, farthest vertex. */
static void level_sphere(const float *verts, uint32_t fstride, const uint32_t *idx, size_t count, float slack,
                         float out[4])
{
    float lo[3] = {FLT_MAX, FLT_MAX, FLT_MAX}, hi[3] = {-FLT_MAX, -FLT_MAX, -FLT_MAX};
    for (size_t i = 0; i < count; i++) {
        const float *p = verts + (size_t)idx[i] * fstride;
        for (int k = 0; k < 3; k++) {
            lo[k] = p[k] < lo[k] ? p[k] : lo[k];
            hi[k] = p[k] > hi[k] ? p[k] : hi[k];
        }
    }
    float c[3];
    for (int k = 0; k < 3; k++) {
        c[k] = 0.5f * (lo[k] + hi[k]);
    }
    float r2 = 0.0f;
    for (size_t i = 0; i < count; i++) {
        const float *p = verts + (size_t)idx[i] * fstride;
        float dx = p[0] - c[0], dy = p[1] - c[1], dz = p[2] - c[2];
        float d2 = dx * dx + dy * dy + dz * dz;
        r2 = d2 > r2 ? d2 : r2;
    }
    out[0] = c[0];
    out[1] = c[1];
    out[2] = c[2];
    /* A hair over sqrt so rounding never leaves a vertex outside. */
    out[3] = count > 0 ? sqrtf(r2) * (1.0f + 1e-6f) + slack : 0.0f;
}
uint64_t pk_mesh_input_bytes(const pk_mesh *m)
{
    uint64_t per_vertex = 12u + (m->normals ? 12u : 0u) + (m->uvs ? 8u : 0u);
    return (uint64_t)m->vertex_count * per_vertex + (uint64_t)m->index_count * 4u;
}

static XXH128_hash_t mesh_hash(const pk_mesh *m)
{
    XXH3_state_t st;
    XXH3_128bits_reset(&st);
    uint32_t head[4] = {m->vertex_count, m->index_count, m->normals != NULL, m->uvs != NULL};
    XXH3_128bits_update(&st, head, sizeof head);
    XXH3_128bits_update(&st, m->positions, (size_t)m->vertex_count * 3 * sizeof(float));
    if (m->normals) {
        XXH3_128bits_update(&st, m->normals, (size_t)m->vertex_count * 3 * sizeof(float));
    }
    if (m->uvs) {
        XXH3_128bits_update(&st, m->uvs, (size_t)m->vertex_count * 2 * sizeof(float));
    }
    XXH3_128bits_update(&st, m->indices, (size_t)m->index_count * sizeof(uint32_t));
    if (m->material != 0) { /* hashed only when set: the hashes of meshes without one stay */
        XXH3_128bits_update(&st, &m->material, sizeof m->material);
    }
    return XXH3_128bits_digest(&st);
}

static mesh_key *find_mesh(pk_builder *b, XXH128_hash_t h)
{
    if (b->mesh_table_cap == 0) {
        return NULL;
    }
    uint32_t mask = b->mesh_table_cap - 1;
    for (uint32_t i = (uint32_t)h.low64 & mask;; i = (i + 1) & mask) {
        mesh_key *k = &b->mesh_table[i];
        if (!k->used) {
            return NULL;
        }
        if (XXH128_isEqual(k->hash, h)) {
            return k;
        }
    }
}

static int remember_mesh(pk_builder *b, XXH128_hash_t h, uint32_t object)
{
    if ((uint64_t)(b->mesh_table_used + 1) * 2 > b->mesh_table_cap) {
        uint32_t cap = b->mesh_table_cap ? b->mesh_table_cap * 2 : 256;
        mesh_key *t = calloc(cap, sizeof *t);
        if (t == NULL) {
            return -1;
        }
        for (uint32_t i = 0; i < b->mesh_table_cap; i++) {
            if (b->mesh_table[i].used) {
                uint32_t j = (uint32_t)b->mesh_table[i].hash.low64 & (cap - 1);
                while (t[j].used) {
                    j = (j + 1) & (cap - 1);
                }
                t[j] = b->mesh_table[i];
            }
        }
        free(b->mesh_table);
        b->mesh_table = t;
        b->mesh_table_cap = cap;
    }
    uint32_t mask = b->mesh_table_cap - 1;
    uint32_t j = (uint32_t)h.low64 & mask;
    while (b->mesh_table[j].used) {
        j = (j + 1) & mask;
    }
    b->mesh_table[j].hash = h;
    b->mesh_table[j].object = object;
    b->mesh_table[j].used = 1;
    b->mesh_table_used++;
    return 0;
}

static int check_mesh(const pk_mesh *m, const char *label, pk_diag *d)
{
    if (m->index_count == 0 || m->vertex_count == 0) {
        return pk_fail(d, "%s: no triangles", label);
    }
    if (m->index_count % 3 != 0) {
        return pk_fail(d, "%s: %u indices is not a multiple of 3", label, m->index_count);
    }
    if (m->positions == NULL || m->indices == NULL) {
        return pk_fail(d, "%s: no positions or no indices", label);
    }
    if ((uint64_t)m->vertex_count * WIDEST_VERTEX > SIZE_MAX / 2) {
        return pk_fail(d, "%s: %u vertices do not fit this machine's memory", label, m->vertex_count);
    }
    for (uint32_t i = 0; i < m->index_count; i++) {
        if (m->indices[i] >= m->vertex_count) {
            return pk_fail(d, "%s: index %u at position %u is out of range (%u vertices)", label, m->indices[i], i,
                           m->vertex_count);
        }
    }
    const struct {
        const float *p;
        uint32_t n;
        const char *what;
    } attrs[] = {{m->positions, 3, "position"}, {m->normals, 3, "normal"}, {m->uvs, 2, "uv"}};
    for (size_t a = 0; a < 3; a++) {
        if (attrs[a].p == NULL) {
            continue;
        }
        size_t n = (size_t)m->vertex_count * attrs[a].n;
        for (size_t i = 0; i < n; i++) {
            if (!isfinite(attrs[a].p[i])) {
                return pk_fail(d, "%s: %s of vertex %zu is not a finite number", label, attrs[a].what, i / attrs[a].n);
            }
        }
    }
    return 0;
}

/* The working data of one mesh, freed together. */
typedef struct work {
    float *verts;
    float *fetched;
    unsigned int *indices;
    unsigned int *levels[SLC_LODS_MAX];
    size_t level_count[SLC_LODS_MAX];
    float level_error[SLC_LODS_MAX];
    float level_measured[SLC_LODS_MAX];
    uint32_t level_method[SLC_LODS_MAX];
    uint32_t chain_end;
    struct meshopt_Meshlet *meshlets;
    unsigned int *meshlet_vertices;
    unsigned char *meshlet_triangles;
} work;

static void free_work(work *w)
{
    free(w->verts);
    free(w->fetched);
    free(w->indices);
    for (uint32_t i = 0; i < SLC_LODS_MAX; i++) {
        free(w->levels[i]);
    }
    free(w->meshlets);
    free(w->meshlet_vertices);
    free(w->meshlet_triangles);
}

/* The smallest float not below x: a recorded error never understates the
 * measured one. */
static float float_at_least(double x)
{
    float f = (float)x;
    return (double)f < x ? nextafterf(f, FLT_MAX) : f;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : (x > y);
}

static uint64_t edge_key(unsigned int a, unsigned int b)
{
    return a < b ? ((uint64_t)a << 32 | b) : ((uint64_t)b << 32 | a);
}

/* Maps the corners of a level simplified on welded positions back to
 * vertices of the level before it (prev, prev_count indices). Each output
 * corner names the first vertex of its position (shadow); the candidates are
 * the vertices of prev at that position. Per corner, the candidates whose
 * normals agree best with the triangle's face are kept (a hard edge's side);
 * among them, per triangle, the combination that keeps the most of its
 * edges as edges of prev (one side of a UV seam); ties go to the first
 * candidates. O(prev_count log
 * prev_count + out_count x MAX_SEAM_CANDIDATES^3); -1 when out of memory. */
static int map_welded(unsigned int *out, size_t out_count, const unsigned int *prev, size_t prev_count,
                      const unsigned int *shadow, const float *fetched, size_t vc, uint32_t fstride, int has_normal)
{
    unsigned int *first = malloc((vc + 1) * sizeof *first), *cand = malloc(prev_count * sizeof *cand);
    uint64_t *edges = malloc(prev_count * sizeof *edges);
    unsigned char *listed = calloc(vc, 1);
    if (first == NULL || cand == NULL || edges == NULL || listed == NULL) {
        free(first);
        free(cand);
        free(edges);
        free(listed);
        return -1;
    }
    /* Candidates grouped by representative: counting sort over shadow. */
    memset(first, 0, (vc + 1) * sizeof *first);
    for (size_t i = 0; i < prev_count; i++) {
        if (!listed[prev[i]]) {
            listed[prev[i]] = 1;
            first[shadow[i] + 1]++;
        }
    }
    for (size_t v = 0; v < vc; v++) {
        first[v + 1] += first[v];
    }
    memset(listed, 0, vc);
    unsigned int *fill = malloc(vc * sizeof *fill);
    if (fill == NULL) {
        free(first);
        free(cand);
        free(edges);
        free(listed);
        return -1;
    }
    memcpy(fill, first, vc * sizeof *fill);
    for (size_t i = 0; i < prev_count; i++) {
        if (!listed[prev[i]]) {
            listed[prev[i]] = 1;
            cand[fill[shadow[i]]++] = prev[i];
        }
    }
    free(fill);
    free(listed);
    for (size_t t = 0; t < prev_count / 3; t++) {
        for (int k = 0; k < 3; k++) {
            edges[t * 3 + (size_t)k] = edge_key(prev[t * 3 + (size_t)k], prev[t * 3 + (size_t)(k + 1) % 3]);
        }
    }
    qsort(edges, prev_count, sizeof *edges, cmp_u64);
    for (size_t t = 0; t < out_count / 3; t++) {
        unsigned int *tri = out + t * 3;
        const float *p[3];
        for (int k = 0; k < 3; k++) {
            p[k] = fetched + (size_t)tri[k] * fstride;
        }
        double e1[3], e2[3], face[3];
        for (int j = 0; j < 3; j++) {
            e1[j] = (double)p[1][j] - p[0][j];
            e2[j] = (double)p[2][j] - p[0][j];
        }
        face[0] = e1[1] * e2[2] - e1[2] * e2[1];
        face[1] = e1[2] * e2[0] - e1[0] * e2[2];
        face[2] = e1[0] * e2[1] - e1[1] * e2[0];
        double flen = sqrt(face[0] * face[0] + face[1] * face[1] + face[2] * face[2]);
        /* Per corner, the candidates whose normals agree best with the face
         * (all of them without normals): a hard edge decides alone. */
        unsigned int kept[3][MAX_SEAM_CANDIDATES], n[3], best[3];
        double align[3][MAX_SEAM_CANDIDATES];
        for (int k = 0; k < 3; k++) {
            unsigned int count = first[tri[k] + 1] - first[tri[k]];
            count = count > MAX_SEAM_CANDIDATES ? MAX_SEAM_CANDIDATES : count;
            double top = -INFINITY, score[MAX_SEAM_CANDIDATES];
            for (unsigned int c = 0; c < count; c++) {
                const float *vn = fetched + (size_t)cand[first[tri[k]] + c] * fstride + 3;
                score[c] = has_normal && flen > 0.0 ? (vn[0] * face[0] + vn[1] * face[1] + vn[2] * face[2]) / flen
                                                    : 0.0;
                top = score[c] > top ? score[c] : top;
            }
            n[k] = 0;
            for (unsigned int c = 0; c < count; c++) {
                if (score[c] >= top - 1e-3) {
                    align[k][n[k]] = score[c];
                    kept[k][n[k]++] = cand[first[tri[k]] + c];
                }
            }
            best[k] = tri[k];
        }
        /* Among those, the combination keeping the most edges of prev. */
        double best_score = -INFINITY;
        for (unsigned int a = 0; a < n[0]; a++) {
            for (unsigned int b = 0; b < n[1]; b++) {
                for (unsigned int c = 0; c < n[2]; c++) {
                    unsigned int v[3] = {kept[0][a], kept[1][b], kept[2][c]};
                    double score = align[0][a] + align[1][b] + align[2][c];
                    for (int k = 0; k < 3 && n[0] * n[1] * n[2] > 1; k++) {
                        uint64_t key = edge_key(v[k], v[(k + 1) % 3]);
                        score += bsearch(&key, edges, prev_count, sizeof *edges, cmp_u64) != NULL ? 4.0 : 0.0;
                    }
                    if (score > best_score) {
                        best_score = score;
                        memcpy(best, v, sizeof best);
                    }
                }
            }
        }
        memcpy(tri, best, sizeof best);
    }
    free(first);
    free(cand);
    free(edges);
    return 0;
}

/* One try at level n from level n - 1 (prev, prev_count indices) by method
 * into out (room for prev_count): the triangles' indices count, 0 when the
 * method gives nothing; -1 when out of memory. */
static long simplify_with(uint32_t method, unsigned int *out, const unsigned int *prev, size_t prev_count,
                          const float *fetched, size_t vc, uint32_t fstride, int has_normal)
{
    size_t target = prev_count / 6 * 3, stride = fstride * sizeof(float);
    float err = 0.0f;
    if (method == SLC_PACK_LOD_METHOD_SIMPLIFY) {
        return (long)meshopt_simplify(out, prev, prev_count, fetched, vc, stride, target, SIMPLIFY_TARGET_ERROR, 0,
                                      &err);
    }
    if (method == SLC_PACK_LOD_METHOD_SLOPPY) {
        return (long)meshopt_simplifySloppy(out, prev, prev_count, fetched, vc, stride, target, SIMPLIFY_TARGET_ERROR,
                                            &err);
    }
    unsigned int *shadow = malloc(prev_count * sizeof *shadow);
    if (shadow == NULL) {
        return -1;
    }
    meshopt_generateShadowIndexBuffer(shadow, prev, prev_count, fetched, vc, 3 * sizeof(float), stride);
    size_t got = meshopt_simplify(out, shadow, prev_count, fetched, vc, stride, target, SIMPLIFY_TARGET_ERROR, 0, &err);
    int rc = got > 0 ? map_welded(out, got, prev, prev_count, shadow, fetched, vc, fstride, has_normal) : 0;
    free(shadow);
    return rc != 0 ? -1 : (long)got;
}

/* The LOD chain: level 0 is the optimised mesh; each next level asks for
 * half of the previous level's triangles, from the first method that gives
 * at least 5% fewer and whose surface lies within the error cap of level 0's
 * (PK_LOD_ERROR_CAP x the bounding radius, measured: lod_error.h):
 * meshopt_simplify; the same on positions with attribute seams welded;
 * meshopt_simplifySloppy. Each level records the method, its measured
 * Hausdorff distance to level 0 (vertices and area samples, and a bound
 * over every edge: lod_error.h), and as its error the largest measured
 * distance of the chain so far (so errors never decrease and bound each
 * level's deviation). The chain ends at max_lods, or where no method gives
 * a smaller level (too small), or none within the cap (the cap): the last
 * level records which. */
static int build_levels(const pk_build_options *opt, work *w, size_t vertex_count, uint32_t fstride, int has_normal,
                        double radius, uint32_t *levels)
{
    double cap = PK_LOD_ERROR_CAP * radius;
    pk_surface s0 = {w->fetched, fstride, w->levels[0], w->level_count[0] / 3};
    pk_surface_index *x0 = NULL;
    uint32_t n = 1;
    w->chain_end = SLC_PACK_LOD_END_MAX_LODS;
    while (n < opt->max_lods) {
        size_t prev = w->level_count[n - 1];
        w->chain_end = SLC_PACK_LOD_END_TOO_SMALL;
        if (prev / 6 * 3 < 3) {
            break;
        }
        unsigned int *out = malloc(prev * sizeof *out);
        if (out == NULL) {
            pk_surface_index_free(x0);
            return -1;
        }
        uint32_t made = SLC_PACK_LOD_METHOD_NONE;
        double measured = 0.0;
        size_t got = 0;
        for (uint32_t m = SLC_PACK_LOD_METHOD_SIMPLIFY; m <= SLC_PACK_LOD_METHOD_SLOPPY && made == 0; m++) {
            long r = simplify_with(m, out, w->levels[n - 1], prev, w->fetched, vertex_count, fstride, has_normal);
            if (r < 0) {
                free(out);
                pk_surface_index_free(x0);
                return -1;
            }
            got = (size_t)r;
            if (got == 0 || (double)got > LOD_MIN_REDUCTION * (double)prev) {
                continue;
            }
            if (x0 == NULL && (x0 = pk_surface_index_build(&s0)) == NULL) {
                free(out);
                return -1;
            }
            pk_surface sn = {w->fetched, fstride, out, got / 3};
            pk_surface_index *xn = pk_surface_index_build(&sn);
            measured = xn != NULL ? pk_hausdorff(&sn, xn, &s0, x0, vertex_count, cap) : -1.0;
            pk_surface_index_free(xn);
            if (measured < 0.0) {
                free(out);
                pk_surface_index_free(x0);
                return -1;
            }
            if (measured <= cap) {
                made = m;
            } else {
                w->chain_end = SLC_PACK_LOD_END_ERROR_CAP;
            }
        }
        if (made == SLC_PACK_LOD_METHOD_NONE) {
            free(out);
            break;
        }
        w->levels[n] = out;
        w->level_count[n] = got;
        w->level_method[n] = made;
        w->level_measured[n] = float_at_least(measured);
        w->level_error[n] = w->level_measured[n] > w->level_error[n - 1] ? w->level_measured[n] : w->level_error[n - 1];
        n++;
        w->chain_end = SLC_PACK_LOD_END_MAX_LODS;
    }
    pk_surface_index_free(x0);
    *levels = n;
    return 0;
}

/* The vertex layout of a mesh: the attributes it carries, the stride of a
 * vertex as floats (what the optimiser and simplifier read) and as encoded
 * in a page. The decode ranges are set by mesh_bounds. */
static void mesh_format(const pk_build_options *opt, const pk_mesh *m, vertex_format *f)
{
    memset(f, 0, sizeof *f);
    f->has_normal = m->normals != NULL;
    f->has_uv = m->uvs != NULL;
    f->fstride = 3u + (f->has_normal ? 3u : 0u) + (f->has_uv ? 2u : 0u);
    f->attributes = (f->has_normal ? SLC_PACK_ATTR_NORMAL : 0u) | (f->has_uv ? SLC_PACK_ATTR_UV : 0u);
    if (opt->quantize) {
        f->attributes |= SLC_PACK_ATTR_POS_U16 | (f->has_normal ? SLC_PACK_ATTR_NORMAL_OCT8 : 0u) |
                         (f->has_uv ? SLC_PACK_ATTR_UV_U16 : 0u);
    }
    f->stride = (opt->quantize ? 8u : 12u) + (f->has_normal ? (opt->quantize ? 4u : 12u) : 0u) +
                (f->has_uv ? (opt->quantize ? 4u : 8u) : 0u);
}

/* Level 0: the mesh's attributes interleaved (w->verts), its triangles
 * ordered for the vertex cache (w->levels[0]) and its vertices for fetch
 * (w->fetched); *vertex_count is the number of vertices in use. On failure
 * the caller frees w. */
static int optimise_mesh(work *w, const pk_mesh *m, const vertex_format *f, size_t *vertex_count, const char *label,
                         pk_diag *d)
{
    size_t vc = m->vertex_count, ic = m->index_count;
    size_t vbytes = vc * f->fstride * sizeof(float);
    w->verts = malloc(vbytes);
    w->fetched = malloc(vbytes);
    w->indices = malloc(ic * sizeof *w->indices);
    w->levels[0] = malloc(ic * sizeof *w->levels[0]);
    if (w->verts == NULL || w->fetched == NULL || w->indices == NULL || w->levels[0] == NULL) {
        return pk_fail(d, "%s: out of memory for %zu vertices and %zu indices", label, vc, ic);
    }
    for (size_t i = 0; i < vc; i++) {
        float *v = w->verts + i * f->fstride;
        memcpy(v, m->positions + i * 3, 3 * sizeof(float));
        v += 3;
        if (f->has_normal) {
            memcpy(v, m->normals + i * 3, 3 * sizeof(float));
            v += 3;
        }
        if (f->has_uv) {
            memcpy(v, m->uvs + i * 2, 2 * sizeof(float));
        }
    }
    memcpy(w->indices, m->indices, ic * sizeof *w->indices);
    meshopt_optimizeVertexCache(w->levels[0], w->indices, ic, vc);
    *vertex_count = meshopt_optimizeVertexFetch(w->fetched, w->levels[0], ic, w->verts, vc, f->fstride * sizeof(float));
    w->level_count[0] = ic;
    return 0;
}

/* Bounds and decode parameters over the vertices in use: the object's
 * record (aabb, decode offsets and scales, attributes, stride) and the
 * ranges f encodes with. */
static void mesh_bounds(const work *w, size_t vc, vertex_format *f, slc_pack_object *obj)
{
    memset(obj, 0, sizeof *obj);
    float uv_lo[2] = {FLT_MAX, FLT_MAX}, uv_hi[2] = {-FLT_MAX, -FLT_MAX};
    for (int k3 = 0; k3 < 3; k3++) {
        obj->aabb_min[k3] = FLT_MAX;
        obj->aabb_max[k3] = -FLT_MAX;
    }
    for (size_t i = 0; i < vc; i++) {
        const float *v = w->fetched + i * f->fstride;
        for (int k3 = 0; k3 < 3; k3++) {
            obj->aabb_min[k3] = v[k3] < obj->aabb_min[k3] ? v[k3] : obj->aabb_min[k3];
            obj->aabb_max[k3] = v[k3] > obj->aabb_max[k3] ? v[k3] : obj->aabb_max[k3];
        }
        if (f->has_uv) {
            const float *uv = v + 3 + (f->has_normal ? 3 : 0);
            for (int k2 = 0; k2 < 2; k2++) {
                uv_lo[k2] = uv[k2] < uv_lo[k2] ? uv[k2] : uv_lo[k2];
                uv_hi[k2] = uv[k2] > uv_hi[k2] ? uv[k2] : uv_hi[k2];
            }
        }
    }
    for (int k3 = 0; k3 < 3; k3++) {
        obj->pos_scale[k3] = 1.0f;
        f->pos_min[k3] = obj->aabb_min[k3];
        f->pos_scale[k3] = obj->aabb_max[k3] - obj->aabb_min[k3];
        if (f->attributes & SLC_PACK_ATTR_POS_U16) {
            obj->pos_offset[k3] = f->pos_min[k3];
            obj->pos_scale[k3] = f->pos_scale[k3];
        }
    }
    for (int k2 = 0; k2 < 2; k2++) {
        obj->uv_scale[k2] = 1.0f;
        if (f->attributes & SLC_PACK_ATTR_UV_U16) {
            f->uv_min[k2] = uv_lo[k2];
            f->uv_scale[k2] = uv_hi[k2] - uv_lo[k2];
            obj->uv_offset[k2] = f->uv_min[k2];
            obj->uv_scale[k2] = f->uv_scale[k2];
        }
    }
    obj->attributes = f->attributes;
    obj->vertex_stride = f->stride;
    /* Texel density's half that the mesh gives (docs/pack-format.md,
     * uv_density): UV area over surface area, on level 0, in double. */
    if (f->has_uv) {
        double area = 0.0, uv_area = 0.0;
        const size_t uvo = 3u + (f->has_normal ? 3u : 0u);
        for (size_t t = 0; t + 2u < w->level_count[0]; t += 3u) {
            const float *a = w->fetched + (size_t)w->levels[0][t] * f->fstride;
            const float *b = w->fetched + (size_t)w->levels[0][t + 1u] * f->fstride;
            const float *c = w->fetched + (size_t)w->levels[0][t + 2u] * f->fstride;
            const double e1[3] = {(double)b[0] - a[0], (double)b[1] - a[1], (double)b[2] - a[2]};
            const double e2[3] = {(double)c[0] - a[0], (double)c[1] - a[1], (double)c[2] - a[2]};
            const double x = e1[1] * e2[2] - e1[2] * e2[1], y = e1[2] * e2[0] - e1[0] * e2[2],
                         z = e1[0] * e2[1] - e1[1] * e2[0];
            area += sqrt(x * x + y * y + z * z);
            const double u1 = (double)b[uvo] - a[uvo], v1 = (double)b[uvo + 1u] - a[uvo + 1u];
            const double u2 = (double)c[uvo] - a[uvo], v2 = (double)c[uvo + 1u] - a[uvo + 1u];
            uv_area += fabs(u1 * v2 - u2 * v1);
        }
        obj->uv_density = area > 0.0 ? (float)sqrt(uv_area / area) : 0.0f;
    }
}

/* --- per-mesh work (any thread) ------------------------------------------ */

static void free_job_mesh(mesh_job *j)
{
    if (j->owns_mesh) {
        pk_mesh_free(&j->mesh);
    }
    memset(&j->mesh, 0, sizeof j->mesh);
    j->owns_mesh = 0;
}

/* Room for one more cluster of vbytes + tbytes in j. */
static int reserve_cluster(mesh_job *j, size_t bytes)
{
    if (grow((void **)&j->clusters, &j->cluster_cap, (uint64_t)j->cluster_count + 1, sizeof *j->clusters) != 0) {
        return -1;
    }
    if (j->byte_size + bytes > j->byte_cap) {
        size_t cap = j->byte_cap ? j->byte_cap : 4096;
        while (cap < j->byte_size + bytes) {
            cap *= 2;
        }
        unsigned char *p = realloc(j->bytes, cap);
        if (p == NULL) {
            return -1;
        }
        j->bytes = p;
        j->byte_cap = cap;
    }
    return 0;
}

/* Level l: its sphere and error, its clusters (meshopt_buildMeshlets), each
 * with its bounds, vertices in file form and triangles in their canonical
 * rotation. */
static int cluster_level(const pk_build_options *opt, work *w, const vertex_format *f, size_t vc, uint32_t l,
                         float slack, mesh_job *j, pk_diag *d)
{
    size_t maxv = opt->max_cluster_vertices, maxt = opt->max_cluster_triangles;
    j->level_error[l] = w->level_error[l];
    j->level_measured[l] = w->level_measured[l];
    j->level_method[l] = w->level_method[l];
    level_sphere(w->fetched, f->fstride, w->levels[l], w->level_count[l], slack, j->level_sphere[l]);
    j->level_first[l] = j->cluster_count;

    size_t cap = meshopt_buildMeshletsBound(w->level_count[l], maxv, maxt);
    free(w->meshlets);
    free(w->meshlet_vertices);
    free(w->meshlet_triangles);
    w->meshlets = malloc((cap ? cap : 1) * sizeof *w->meshlets);
    w->meshlet_vertices = malloc((cap ? cap : 1) * maxv * sizeof *w->meshlet_vertices);
    w->meshlet_triangles = malloc((cap ? cap : 1) * maxt * 3);
    if (w->meshlets == NULL || w->meshlet_vertices == NULL || w->meshlet_triangles == NULL) {
        return fail(d, "%s: out of memory for clusters", j->label);
    }
    size_t count = meshopt_buildMeshlets(w->meshlets, w->meshlet_vertices, w->meshlet_triangles, w->levels[l],
                                         w->level_count[l], w->fetched, vc, f->fstride * sizeof(float), maxv, maxt,
                                         0.0f);
    for (size_t i = 0; i < count; i++) {
        const struct meshopt_Meshlet *ml = &w->meshlets[i];
        const unsigned int *cverts = w->meshlet_vertices + ml->vertex_offset;
        const unsigned char *ctris = w->meshlet_triangles + ml->triangle_offset;
        struct meshopt_Bounds bo = meshopt_computeMeshletBounds(cverts, ctris, ml->triangle_count, w->fetched, vc,
                                                                f->fstride * sizeof(float));
        size_t vbytes = (size_t)ml->vertex_count * f->stride, tbytes = (size_t)ml->triangle_count * 3u;
        if (reserve_cluster(j, vbytes + tbytes) != 0) {
            return fail(d, "%s: out of memory for clusters", j->label);
        }
        built_cluster *c = &j->clusters[j->cluster_count++];
        c->at = j->byte_size;
        c->vertex_count = ml->vertex_count;
        c->triangle_count = ml->triangle_count;
        c->sphere[0] = bo.center[0];
        c->sphere[1] = bo.center[1];
        c->sphere[2] = bo.center[2];
        c->sphere[3] = bo.radius * (1.0f + 1e-6f) + slack;
        unsigned char *out = j->bytes + j->byte_size;
        for (uint32_t v = 0; v < ml->vertex_count; v++) {
            encode_vertex(f, w->fetched + (size_t)cverts[v] * f->fstride, out + (size_t)v * f->stride);
        }
        for (uint32_t t = 0; t < ml->triangle_count; t++) { /* each triangle in its canonical rotation */
            const unsigned char *tr = ctris + (size_t)t * 3u;
            slc_pack_put_triangle(out + vbytes + (size_t)t * 3u, tr[0], tr[1], tr[2]);
        }
        j->byte_size += vbytes + tbytes;
    }
    return 0;
}

/* The per-mesh work: optimise, bounds, the LOD chain and every level's
 * clusters, into j (j->rc and j->message on failure). Reads opt and j only;
 * frees the mesh when the job owns it. */
static void build_mesh(const pk_build_options *opt, mesh_job *j)
{
    pk_diag d;
    d.message[0] = '\0';
    const pk_mesh *m = &j->mesh;
    j->cluster_count = 0;
    j->byte_size = 0;
    vertex_format f;
    mesh_format(opt, m, &f);
    work w;
    memset(&w, 0, sizeof w);
    size_t vc = 0;
    int rc = optimise_mesh(&w, m, &f, &vc, j->label, &d);
    free_job_mesh(j); /* the working copy holds all it needs */
    if (rc == 0) {
        mesh_bounds(&w, vc, &f, &j->obj);
        j->stride = f.stride;
        j->levels = 1;
        float *lo = j->obj.aabb_min, *hi = j->obj.aabb_max;
        double dx = (double)hi[0] - lo[0], dy = (double)hi[1] - lo[1], dz = (double)hi[2] - lo[2];
        double radius = 0.5 * sqrt(dx * dx + dy * dy + dz * dz);
        if (build_levels(opt, &w, vc, f.fstride, f.has_normal, radius, &j->levels) != 0) {
            rc = fail(&d, "%s: out of memory while simplifying", j->label);
        }
    }
    float slack = quantization_slack(&f);
    for (uint32_t l = 0; rc == 0 && l < j->levels; l++) {
        rc = cluster_level(opt, &w, &f, vc, l, slack, j, &d);
    }
    j->level_first[j->levels] = j->cluster_count;
    j->chain_end = w.chain_end;
    free_work(&w);
    j->rc = rc;
    if (rc != 0) {
        memcpy(j->message, d.message, sizeof j->message);
    }
}

/* --- the pool ------------------------------------------------------------ */

static void run_task(pk_builder *b, task t, void *lz4_state)
{
    if (t.mesh != NULL) {
        build_mesh(&b->opt, t.mesh);
    } else {
        choose_codec(&b->opt, lz4_state, t.page);
    }
}

/* Marks t done; called with b->mu held. */
static void task_done(pk_builder *b, task t)
{
    if (t.mesh != NULL) {
        t.mesh->state = SLOT_DONE;
    } else {
        t.page->state = SLOT_DONE;
    }
    pthread_cond_broadcast(&b->done_cv);
}

typedef struct worker_arg {
    pk_builder *b;
    void *lz4_state;
} worker_arg;

static void *worker_main(void *arg)
{
    pk_builder *b = ((worker_arg *)arg)->b;
    void *lz4_state = ((worker_arg *)arg)->lz4_state;
    pthread_mutex_lock(&b->mu);
    for (;;) {
        while (!b->stop && b->queue_count == 0) {
            pthread_cond_wait(&b->work_cv, &b->mu);
        }
        if (b->stop) {
            break;
        }
        task t = b->queue[b->queue_head];
        b->queue_head = (b->queue_head + 1) % b->queue_cap;
        b->queue_count--;
        pthread_mutex_unlock(&b->mu);
        run_task(b, t, lz4_state);
        pthread_mutex_lock(&b->mu);
        task_done(b, t);
    }
    pthread_mutex_unlock(&b->mu);
    return NULL;
}

/* Runs t inline (jobs 1) or queues it for the pool. */
static void submit(pk_builder *b, task t)
{
    if (b->thread_count == 0) {
        run_task(b, t, b->lz4_state);
        if (t.mesh != NULL) {
            t.mesh->state = SLOT_DONE;
        } else {
            t.page->state = SLOT_DONE;
        }
        return;
    }
    pthread_mutex_lock(&b->mu);
    /* queue_cap is mesh_slots + page_slots: never full */
    b->queue[(b->queue_head + b->queue_count) % b->queue_cap] = t;
    b->queue_count++;
    pthread_cond_signal(&b->work_cv);
    pthread_mutex_unlock(&b->mu);
}

/* Waits until *state is SLOT_DONE, running queued work meanwhile. */
static void wait_done(pk_builder *b, const int *state)
{
    if (b->thread_count == 0) {
        return; /* inline work is done when submit returns */
    }
    pthread_mutex_lock(&b->mu);
    while (*state != SLOT_DONE) {
        if (b->queue_count > 0) {
            task t = b->queue[b->queue_head];
            b->queue_head = (b->queue_head + 1) % b->queue_cap;
            b->queue_count--;
            pthread_mutex_unlock(&b->mu);
            run_task(b, t, b->lz4_state);
            pthread_mutex_lock(&b->mu);
            task_done(b, t);
        } else {
            pthread_cond_wait(&b->done_cv, &b->mu);
        }
    }
    pthread_mutex_unlock(&b->mu);
}

/* Whether *state is SLOT_DONE now. */
static int is_done(pk_builder *b, const int *state)
{
    if (b->thread_count == 0) {
        return *state == SLOT_DONE;
    }
    pthread_mutex_lock(&b->mu);
    int done = *state == SLOT_DONE;
    pthread_mutex_unlock(&b->mu);
    return done;
}

/* Stops the pool: queued work is dropped, running work finishes, every
 * worker is joined. */
static void stop_pool(pk_builder *b)
{
    if (b->thread_count == 0) {
        return;
    }
    pthread_mutex_lock(&b->mu);
    b->stop = 1;
    b->queue_count = 0;
    pthread_cond_broadcast(&b->work_cv);
    pthread_mutex_unlock(&b->mu);
    for (uint32_t i = 0; i < b->thread_count; i++) {
        pthread_join(b->threads[i], NULL);
    }
    b->thread_count = 0;
}

/* --- the ordered stage: pages -------------------------------------------- */

static void fail_builder(pk_builder *b, int io)
{
    b->failed = 1;
    b->io_failed |= io;
}

/* Hands the bundle's chunk `local` (rec, stored bytes) to the output. */
static int sink_chunk(pk_builder *b, uint32_t local, const void *stored, pk_diag *d)
{
    int rc = b->writer != NULL ? pk_writer_chunk(b->writer, local, &b->chunks[local], stored, d)
                               : pk_part_chunk(b->part, &b->chunks[local], local, stored, d);
    if (rc != 0) {
        fail_builder(b, b->writer != NULL ? pk_writer_io_failed(b->writer) : pk_part_io_failed(b->part));
    }
    return rc;
}

/* Appends the encoded pages at the head of the ring in order: all of them
 * when wait is set, else those done. */
static int append_pages(pk_builder *b, int wait, pk_diag *d)
{
    while (b->page_count > 0) {
        page_job *p = &b->page_ring[b->page_head];
        if (wait) {
            wait_done(b, &p->state);
        } else if (!is_done(b, &p->state)) {
            return 0;
        }
        uint32_t id = p->chunk;
        b->chunks[id] = p->rec;
        p->state = SLOT_FREE;
        b->page_head = (b->page_head + 1) % b->page_slots;
        b->page_count--;
        if (sink_chunk(b, id, p->stored, d) != 0) {
            return -1;
        }
    }
    return 0;
}

static int alloc_page_job(pk_builder *b, page_job *p)
{
    if (p->assembled != NULL) {
        return 0;
    }
    size_t bound = (size_t)LZ4_compressBound((int)b->opt.page_size);
    p->assembled = calloc(1, b->opt.page_size);
    p->compressed = malloc(bound);
    p->mcompressed = malloc(bound);
    return p->assembled == NULL || p->compressed == NULL || p->mcompressed == NULL ? -1 : 0;
}

/* Assembles an open page as its chunk and sends it to be encoded and
 * appended (in finish order). */
static int finish_page(pk_builder *b, page *pg, pk_diag *d)
{
    assert(b->page_slots > 0); /* pk_builder_open: 1, or 2 x jobs + PAGE_SLOTS */
    if (b->page_count == b->page_slots && append_pages(b, 1, d) != 0) {
        return -1;
    }
    page_job *p = &b->page_ring[(b->page_head + b->page_count) % b->page_slots];
    if (alloc_page_job(b, p) != 0) {
        fail_builder(b, 0);
        return fail(d, "%s: out of memory", b->path);
    }
    unsigned char *out = p->assembled;
    uint32_t head = CHUNK_HEADER_BYTES + pg->cluster_count * CLUSTER_BYTES;
    uint32_t decoded = head + pg->data_size;
    slc_pack_chunk_header ch;
    memset(&ch, 0, sizeof ch);
    ch.magic = SLC_PACK_CHUNK_MAGIC;
    ch.cluster_count = pg->cluster_count;
    ch.lod = pg->lod;
    memcpy(out, &ch, sizeof ch);
    for (uint32_t i = 0; i < pg->cluster_count; i++) {
        slc_pack_cluster c = pg->clusters[i];
        c.vertex_offset += head;
        c.index_offset += head;
        memcpy(out + CHUNK_HEADER_BYTES + (size_t)i * CLUSTER_BYTES, &c, sizeof c);
    }
    memcpy(out + head, pg->data, pg->data_size);

    slc_pack_chunk *c = &p->rec;
    memset(c, 0, sizeof *c);
    c->decoded_size = decoded;
    c->lod = (uint8_t)pg->lod;
    c->flags = pg->coarsest ? SLC_PACK_CHUNK_COARSEST : 0;
    c->cluster_count = pg->cluster_count;
    c->triangle_count = pg->triangles;
    c->vertex_count = pg->vertices;
    c->first_object = pg->clusters[0].object; /* objects only grow within a page */
    p->chunk = pg->chunk;
    p->decoded = decoded;
    p->clusters = pg->cluster_count;
    p->state = SLOT_QUEUED;
    b->page_count++;
    if (b->page_count > b->stats.peak_pages_in_flight) {
        b->stats.peak_pages_in_flight = b->page_count;
    }
    pg->open = 0;
    task t = {NULL, p};
    submit(b, t);
    return append_pages(b, 0, d);
}

static int open_page(pk_builder *b, page *pg, uint32_t lod, int coarsest, pk_diag *d)
{
    if (pg->data == NULL) {
        pg->data = calloc(1, b->opt.page_size);
        if (pg->data == NULL) {
            return fail(d, "%s: out of memory", b->path);
        }
    }
    if (b->chunk_count == UINT32_MAX ||
        grow((void **)&b->chunks, &b->chunk_cap, (uint64_t)b->chunk_count + 1, sizeof *b->chunks) != 0) {
        return fail(d, "%s: too many chunks or out of memory", b->path);
    }
    memset(&b->chunks[b->chunk_count], 0, sizeof *b->chunks);
    pg->open = 1;
    pg->chunk = b->chunk_count++;
    pg->lod = lod;
    pg->coarsest = coarsest;
    pg->cluster_count = 0;
    pg->data_size = 0;
    pg->triangles = 0;
    pg->vertices = 0;
    return 0;
}

/* Appends one built cluster to the open page of (level, coarsest),
 * finishing the page first when it does not fit, and extends the level's
 * spans. */
static int emit_cluster(pk_builder *b, const mesh_job *j, const built_cluster *bc, uint32_t level, int coarsest,
                        slc_pack_lod *lod, pk_diag *d)
{
    page *pg = &b->pages[coarsest ? SLC_LODS_MAX + level : level];
    uint32_t vcount = bc->vertex_count, tcount = bc->triangle_count;
    uint32_t vbytes = vcount * j->stride, tbytes = tcount * 3u;
    if (pg->open) {
        uint64_t need = CHUNK_HEADER_BYTES + (uint64_t)(pg->cluster_count + 1) * CLUSTER_BYTES +
                        align_up(pg->data_size, 4) + vbytes + tbytes;
        if ((need > b->opt.page_size || pg->cluster_count == MAX_PAGE_CLUSTERS) && finish_page(b, pg, d) != 0) {
            return -1;
        }
    }
    /* pk_build_options_resolve made one cluster fit an empty page. */
    if (!pg->open && open_page(b, pg, level, coarsest, d) != 0) {
        return -1;
    }
    if (grow((void **)&pg->clusters, &pg->cluster_cap, (uint64_t)pg->cluster_count + 1, sizeof *pg->clusters) != 0) {
        return fail(d, "%s: out of memory", b->path);
    }
    uint32_t at = (uint32_t)align_up(pg->data_size, 4);
    memset(pg->data + pg->data_size, 0, at - pg->data_size);
    memcpy(pg->data + at, j->bytes + bc->at, (size_t)vbytes + tbytes);

    slc_pack_cluster *c = &pg->clusters[pg->cluster_count];
    memset(c, 0, sizeof *c);
    c->object = j->object;
    c->vertex_offset = at; /* relative to the data until finish_page */
    c->index_offset = at + vbytes;
    c->vertex_count = (uint16_t)vcount;
    c->triangle_count = (uint16_t)tcount;
    memcpy(c->sphere, bc->sphere, sizeof c->sphere);

    /* The level's last span continues if it ends right here. */
    slc_pack_span *last = lod->span_count > 0 ? &b->t.spans[lod->first_span + lod->span_count - 1] : NULL;
    if (last != NULL && last->chunk == pg->chunk && last->first_cluster + last->cluster_count == pg->cluster_count &&
        last->cluster_count < UINT16_MAX) {
        last->cluster_count++;
    } else {
        if (b->t.span_count == UINT32_MAX ||
            grow((void **)&b->t.spans, &b->t.span_cap, (uint64_t)b->t.span_count + 1, sizeof *b->t.spans) != 0) {
            return fail(d, "%s: too many spans or out of memory", b->path);
        }
        slc_pack_span *s = &b->t.spans[b->t.span_count++];
        memset(s, 0, sizeof *s);
        s->chunk = pg->chunk;
        s->first_cluster = (uint16_t)pg->cluster_count;
        s->cluster_count = 1;
        lod->span_count++;
    }
    pg->cluster_count++;
    pg->data_size = at + vbytes + tbytes;
    pg->triangles += tcount;
    pg->vertices += vcount;
    lod->triangle_count += tcount;
    lod->vertex_count += vcount;
    b->stats.clusters++;
    return 0;
}

/* The ordered stage for one built mesh: its levels' clusters into pages,
 * its LOD records and its object record. */
static int place_mesh(pk_builder *b, mesh_job *j, pk_diag *d)
{
    if (j->rc != 0) {
        memcpy(d->message, j->message, sizeof d->message);
        fail_builder(b, 0);
        return -1;
    }
    uint32_t levels = j->levels;
    if (grow((void **)&b->t.lods, &b->t.lod_cap, (uint64_t)b->t.lod_count + levels, sizeof *b->t.lods) != 0 ||
        grow((void **)&b->objects, &b->objects_cap, (uint64_t)b->bundle_objects + 1, sizeof *b->objects) != 0) {
        fail_builder(b, 0);
        return fail(d, "%s: out of memory", j->label);
    }
    for (uint32_t l = 0; l < levels; l++) {
        slc_pack_lod *lod = &b->t.lods[b->t.lod_count + l];
        memset(lod, 0, sizeof *lod);
        lod->first_span = b->t.span_count;
        lod->error = j->level_error[l];
        lod->method = j->level_method[l];
        lod->measured_error = j->level_measured[l];
        lod->chain_end = l + 1 == levels ? j->chain_end : SLC_PACK_LOD_END_NONE;
        memcpy(lod->sphere, j->level_sphere[l], sizeof lod->sphere);
        for (uint32_t i = j->level_first[l]; i < j->level_first[l + 1]; i++) {
            if (emit_cluster(b, j, &j->clusters[i], l, l + 1 == levels, lod, d) != 0) {
                fail_builder(b, b->io_failed); /* spans may name half-built levels */
                return -1;
            }
        }
        b->stats.triangles_all += lod->triangle_count;
        if (l == 0) {
            b->stats.triangles_lod0 += lod->triangle_count;
        }
    }
    slc_pack_object obj = j->obj;
    obj.name = j->name;
    obj.material = j->material;
    /* Only a textured pack (1.3: an object with a material) records texel
     * density; an untextured one keeps the field 0, as before. */
    obj.uv_density = j->material != 0 ? obj.uv_density : 0.0f;
    obj.first_lod = b->t.lod_count;
    obj.lod_count = levels;
    b->t.lod_count += levels;
    b->objects[b->bundle_objects++] = obj;
    return 0;
}

/* Takes the mesh at the head of the ring into the ordered stage (waiting for
 * it when wait is set). 1 when one was taken, 0 when none is ready, -1 on
 * failure. */
static int take_mesh(pk_builder *b, int wait, pk_diag *d)
{
    if (b->mesh_count == 0) {
        return 0;
    }
    mesh_job *j = &b->mesh_ring[b->mesh_head];
    if (wait) {
        wait_done(b, &j->state);
    } else if (!is_done(b, &j->state)) {
        return 0;
    }
    int rc = place_mesh(b, j, d);
    j->state = SLOT_FREE;
    b->mesh_head = (b->mesh_head + 1) % b->mesh_slots;
    b->mesh_count--;
    if (rc != 0) {
        return -1;
    }
    return append_pages(b, 0, d) != 0 ? -1 : 1;
}

/* Takes every ready mesh and appends every ready page, without waiting. */
static int pump(pk_builder *b, pk_diag *d)
{
    int rc;
    while ((rc = take_mesh(b, 0, d)) == 1) {
    }
    return rc;
}

/* Ends the current bundle: every mesh placed, every open page finished (in
 * slot order), every chunk appended, the records handed on and reset. */
static int end_bundle(pk_builder *b, pk_diag *d)
{
    int rc;
    while ((rc = take_mesh(b, 1, d)) == 1) {
    }
    if (rc != 0) {
        return -1;
    }
    for (uint32_t i = 0; i < PAGE_SLOTS; i++) {
        if (b->pages[i].open && finish_page(b, &b->pages[i], d) != 0) {
            return -1;
        }
    }
    if (append_pages(b, 1, d) != 0) {
        return -1;
    }
    if (b->bundle_built) {
        pk_bundle_records r;
        memset(&r, 0, sizeof r);
        r.chunk_count = b->chunk_count;
        r.objects = b->objects;
        r.object_count = b->bundle_objects;
        r.lods = b->t.lods;
        r.lod_count = b->t.lod_count;
        r.spans = b->t.spans;
        r.span_count = b->t.span_count;
        r.instances = b->t.instances;
        r.instance_count = b->t.instance_count;
        r.materials = b->materials;
        r.material_count = b->material_count;
        r.textures = b->textures;
        r.texture_count = b->texture_count;
        r.strings = b->t.strings;
        r.string_size = b->t.string_size;
        b->stats.chunks += b->chunk_count;
        b->stats.objects += b->bundle_objects;
        b->stats.instances += b->t.instance_count;
        b->stats.materials += b->material_count;
        b->stats.textures += b->texture_count;
        int src = b->writer != NULL ? pk_writer_bundle(b->writer, &r, d)
                                    : pk_part_bundle(b->part, b->bundle, b->object_first, b->chunks, &r, d);
        if (src != 0) {
            fail_builder(b, b->writer != NULL ? pk_writer_io_failed(b->writer) : pk_part_io_failed(b->part));
            return -1;
        }
        b->stats.bundles_built++;
    }
    b->chunk_count = 0;
    b->bundle_objects = 0;
    b->t.lod_count = 0;
    b->t.span_count = 0;
    b->t.instance_count = 0;
    b->t.string_size = 0;
    b->material_count = 0;
    b->texture_count = 0;
    return 0;
}

/* --- open ---------------------------------------------------------------- */

static void release(pk_builder *b)
{
    stop_pool(b);
    if (b->sync_ready) {
        pthread_mutex_destroy(&b->mu);
        pthread_cond_destroy(&b->work_cv);
        pthread_cond_destroy(&b->done_cv);
    }
    pk_writer_abort(b->writer); /* removes the temporary, if still there */
    pk_part_abort(b->part);
    for (uint32_t i = 0; i < PAGE_SLOTS; i++) {
        free(b->pages[i].clusters);
        free(b->pages[i].data);
    }
    for (uint32_t i = 0; b->mesh_ring != NULL && i < b->mesh_slots; i++) {
        mesh_job *j = &b->mesh_ring[i];
        free_job_mesh(j);
        free(j->clusters);
        free(j->bytes);
    }
    for (uint32_t i = 0; b->page_ring != NULL && i < b->page_slots; i++) {
        page_job *p = &b->page_ring[i];
        free(p->assembled);
        free(p->compressed);
        free(p->mcompressed);
        free(p->mstream);
    }
    for (uint32_t i = 0; b->thread_lz4 != NULL && i < b->jobs; i++) {
        free(b->thread_lz4[i]);
    }
    free(b->thread_lz4);
    free(b->threads);
    free(b->queue);
    free(b->mesh_ring);
    free(b->page_ring);
    free(b->lz4_state);
    free(b->path);
    free(b->chunks);
    free(b->objects);
    pk_tables_free(&b->t);
    free(b->mesh_table);
    free(b->materials);
    free(b->textures);
    free(b->texture_keys);
    for (uint32_t i = 0; b->encoders != NULL && i < 2u * b->texture_threads; i++) {
        pk_encoder_destroy(b->encoders[i]);
    }
    free(b->encoders);
    free(b);
}

/* The pool's N - 1 workers, each with its LZ4 HC state. */
static int start_pool(pk_builder *b)
{
    uint32_t n = b->jobs - 1;
    if (pthread_mutex_init(&b->mu, NULL) != 0) {
        return -1;
    }
    if (pthread_cond_init(&b->work_cv, NULL) != 0) {
        pthread_mutex_destroy(&b->mu);
        return -1;
    }
    if (pthread_cond_init(&b->done_cv, NULL) != 0) {
        pthread_cond_destroy(&b->work_cv);
        pthread_mutex_destroy(&b->mu);
        return -1;
    }
    b->sync_ready = 1;
    b->threads = calloc(n, sizeof *b->threads);
    b->thread_lz4 = calloc(b->jobs, sizeof *b->thread_lz4);
    worker_arg *args = calloc(n, sizeof *args);
    if (b->threads == NULL || b->thread_lz4 == NULL || args == NULL) {
        free(args);
        return -1;
    }
    for (uint32_t i = 0; i < n; i++) {
        b->thread_lz4[i] = malloc((size_t)LZ4_sizeofStateHC());
        if (b->thread_lz4[i] == NULL) {
            free(args);
            return -1;
        }
    }
    /* The arguments live as long as the workers: keep them with the states. */
    b->thread_lz4[n] = args;
    /* Workers start with the signals atomic_file handles blocked (a new
     * thread inherits the creator's mask), so those signals always reach a
     * thread that can run the handler's cleanup, never a worker between the
     * temporary's creation and its registration. */
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGHUP);
    sigaddset(&block, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    int rc = 0;
    for (uint32_t i = 0; i < n && rc == 0; i++) {
        args[i].b = b;
        args[i].lz4_state = b->thread_lz4[i];
        if (pthread_create(&b->threads[i], NULL, worker_main, &args[i]) != 0) {
            rc = -1;
        } else {
            b->thread_count++;
        }
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc;
}

int pk_builder_open(const char *out_path, const pk_build_options *opt, pk_builder **out, pk_diag *d)
{
    *out = NULL;
    pk_build_options o;
    if (pk_build_options_resolve(opt, &o, d) != 0) {
        return -1;
    }
    pk_builder *b = calloc(1, sizeof *b);
    if (b == NULL) {
        return fail(d, "%s: out of memory", out_path);
    }
    b->opt = o;
    b->jobs = o.jobs;
    clock_gettime(CLOCK_MONOTONIC, &b->t0);
    XXH3_64bits_reset(&b->fingerprint);
    hash_options(&b->fingerprint, &o);
    /* The format's codec versions (0.18 decodes vertex version 0 only):
     * meshoptimizer keeps them in globals, so they are set here, before
     * any worker runs. */
    meshopt_encodeVertexVersion(0);
    meshopt_encodeIndexVersion(1);
    b->mesh_slots = o.jobs;
    b->page_slots = o.jobs > 1 ? 2u * o.jobs + PAGE_SLOTS : 1u;
    b->path = strdup(out_path);
    b->lz4_state = malloc((size_t)LZ4_sizeofStateHC());
    b->mesh_ring = calloc(b->mesh_slots, sizeof *b->mesh_ring);
    b->page_ring = calloc(b->page_slots, sizeof *b->page_ring);
    b->queue_cap = b->mesh_slots + b->page_slots;
    b->queue = calloc(b->queue_cap, sizeof *b->queue);
    if (b->path == NULL || b->lz4_state == NULL || b->mesh_ring == NULL || b->page_ring == NULL || b->queue == NULL ||
        (o.jobs > 1 && start_pool(b) != 0)) {
        release(b);
        return fail(d, "%s: out of memory or no threads for %u jobs", out_path, o.jobs);
    }
    /* A temporary beside the target: an existing pack stays as it is until
     * the new one is complete (pk_builder_finish renames it over). */
    int rc = o.part_count > 0 ? pk_part_open(out_path, &b->part, d)
                              : pk_writer_open(out_path, o.page_size, o.quantize, &b->writer, d);
    if (rc != 0) {
        release(b);
        return -1;
    }
    *out = b;
    return 0;
}

/* --- meshes -------------------------------------------------------------- */

/* The bundle what comes next (a mesh, a texture: input_bytes of input)
 * goes to: a new one when it would take the current one over bundle_size
 * (something larger than that has a bundle of its own). */
static int enter_bundle(pk_builder *b, uint64_t input_bytes, pk_diag *d)
{
    if (!b->any_bundle || (b->bundle_bytes > 0 && b->bundle_bytes + input_bytes > b->opt.bundle_size)) {
        if (b->any_bundle) {
            if (end_bundle(b, d) != 0) {
                return -1;
            }
            b->bundle++;
        }
        b->any_bundle = 1;
        b->bundle_bytes = 0;
        b->object_first = b->object_count;
        b->bundle_built = b->opt.part_count == 0 || b->bundle % b->opt.part_count == b->opt.part - 1;
    }
    b->bundle_bytes += input_bytes;
    return 0;
}

/* The sequential stage; takes the mesh's arrays when owned is set. */
static int add_mesh(pk_builder *b, pk_mesh *m, int owned, uint32_t *object_index, pk_diag *d)
{
    char label[128];
    mesh_label(m, b->stats.meshes + b->stats.meshes_deduplicated, label, sizeof label);
    if (b->failed) {
        return fail(d, "%s: an earlier error left the pack incomplete; it can only be aborted", b->path);
    }
    if (check_mesh(m, label, d) != 0) {
        return -1;
    }
    if (m->material > b->material_total) {
        return fail(d, "%s: material %u was never added (%u materials)", label, m->material - 1u, b->material_total);
    }
    uint64_t input_bytes = pk_mesh_input_bytes(m);
    XXH128_hash_t h = mesh_hash(m);
    mesh_key *k = find_mesh(b, h);
    if (k == NULL && b->object_count == UINT32_MAX - 1) {
        return fail(d, "%s: more objects than a pack holds", label);
    }
    XXH3_64bits_update(&b->fingerprint, &h, sizeof h);
    XXH3_64bits_update(&b->fingerprint, m->name, strnlen(m->name, sizeof m->name));
    if (k != NULL) {
        *object_index = k->object;
        b->stats.meshes_deduplicated++;
        b->stats.input_bytes += input_bytes;
        if (owned) {
            pk_mesh_free(m);
        }
        return pump(b, d) < 0 ? -1 : 0;
    }
    if (enter_bundle(b, input_bytes, d) != 0) {
        return -1;
    }
    uint32_t object = b->object_count;
    if (remember_mesh(b, h, object) != 0) {
        fail_builder(b, 0);
        return fail(d, "%s: out of memory", label);
    }
    b->object_count++;
    b->stats.meshes++;
    b->stats.input_bytes += input_bytes;
    *object_index = object;
    if (!b->bundle_built) {
        if (owned) {
            pk_mesh_free(m);
        }
        return 0;
    }
    /* A free slot: the oldest mesh goes through the ordered stage first. */
    if (b->mesh_count == b->mesh_slots && take_mesh(b, 1, d) < 0) {
        return -1;
    }
    mesh_job *j = &b->mesh_ring[(b->mesh_head + b->mesh_count) % b->mesh_slots];
    memcpy(j->label, label, sizeof j->label);
    j->object = object;
    j->material = m->material;
    j->rc = 0;
    if (add_string(b, m->name, sizeof m->name, &j->name) != 0) {
        fail_builder(b, 0);
        return fail(d, "%s: out of memory", label);
    }
    j->mesh = *m;
    j->owns_mesh = owned;
    if (owned) {
        memset(m, 0, sizeof *m);
    } else if (b->thread_count > 0) {
        /* The caller may free its mesh on return: the job works on a copy. */
        pk_mesh c;
        memset(&c, 0, sizeof c);
        memcpy(c.name, m->name, sizeof c.name);
        c.vertex_count = m->vertex_count;
        c.index_count = m->index_count;
        size_t vc = m->vertex_count;
        c.positions = malloc(vc * 3 * sizeof(float));
        c.normals = m->normals != NULL ? malloc(vc * 3 * sizeof(float)) : NULL;
        c.uvs = m->uvs != NULL ? malloc(vc * 2 * sizeof(float)) : NULL;
        c.indices = malloc((size_t)m->index_count * sizeof(uint32_t));
        j->mesh = c;
        j->owns_mesh = 1;
        if (c.positions == NULL || c.indices == NULL || (m->normals != NULL && c.normals == NULL) ||
            (m->uvs != NULL && c.uvs == NULL)) {
            free_job_mesh(j);
            fail_builder(b, 0);
            return fail(d, "%s: out of memory for a copy of %u vertices", label, m->vertex_count);
        }
        memcpy(c.positions, m->positions, vc * 3 * sizeof(float));
        if (c.normals != NULL) {
            memcpy(c.normals, m->normals, vc * 3 * sizeof(float));
        }
        if (c.uvs != NULL) {
            memcpy(c.uvs, m->uvs, vc * 2 * sizeof(float));
        }
        memcpy(c.indices, m->indices, (size_t)m->index_count * sizeof(uint32_t));
    }
    j->state = SLOT_QUEUED;
    b->mesh_count++;
    if (b->mesh_count > b->stats.peak_meshes_in_flight) {
        b->stats.peak_meshes_in_flight = b->mesh_count;
    }
    task t = {j, NULL};
    submit(b, t);
    return pump(b, d) < 0 ? -1 : 0;
}

int pk_builder_add_mesh(pk_builder *b, const pk_mesh *m, uint32_t *object_index, pk_diag *d)
{
    pk_mesh view = *m; /* read only: not owned */
    return add_mesh(b, &view, 0, object_index, d);
}

int pk_builder_add_mesh_owned(pk_builder *b, pk_mesh *m, uint32_t *object_index, pk_diag *d)
{
    int rc = add_mesh(b, m, 1, object_index, d);
    if (rc != 0) {
        pk_mesh_free(m);
    }
    return rc;
}

/* --- materials and textures ---------------------------------------------- */

/* Chunk k of the texture being cut: bundle-local chunk first + k (the
 * chunks come in order, and nothing else takes an id during the cut). */
static int texture_chunk(void *user, uint32_t k, const slc_pack_chunk *rec, const void *stored, pk_diag *d)
{
    pk_builder *b = user;
    uint64_t local = (uint64_t)b->texture_first_chunk + k;
    if (local >= UINT32_MAX || grow((void **)&b->chunks, &b->chunk_cap, local + 1, sizeof *b->chunks) != 0) {
        return fail(d, "%s: too many chunks or out of memory", b->path);
    }
    b->chunks[local] = *rec;
    b->chunk_count = (uint32_t)local + 1u;
    return sink_chunk(b, (uint32_t)local, stored, d);
}

/* Cuts the texture (index id in the pack) into the current bundle (which
 * this process builds): its chunks take the next bundle-local ids, in one
 * run. Tells the listener. */
static int build_texture(pk_builder *b, const pk_image *img, pk_mip_kind kind, pk_wrap wrap_s, pk_wrap wrap_t,
                         const char *name, uint32_t id, pk_diag *d)
{
    const int srgb = kind == PK_MIP_COLOR;
    if (b->encoders == NULL) {
        b->texture_threads = b->jobs < PK_TEXTURE_MAX_THREADS ? b->jobs : PK_TEXTURE_MAX_THREADS;
        if ((b->encoders = calloc((size_t)b->texture_threads * 2u, sizeof(pk_encoder *))) == NULL) {
            fail_builder(b, 0);
            return fail(d, "%s: out of memory", name);
        }
    }
    pk_encoder **enc = b->encoders + (size_t)srgb * b->texture_threads; /* this colour space's, one a thread */
    for (uint32_t k = 0; k < b->texture_threads; k++) {
        if (enc[k] == NULL && pk_encoder_create((pk_encode_format)b->opt.texture_format, srgb,
                                                (pk_encode_quality)b->opt.texture_quality, &enc[k], d) != 0) {
            fail_builder(b, 0);
            return -1;
        }
    }
    if (grow((void **)&b->textures, &b->texture_cap, (uint64_t)b->texture_count + 1, sizeof *b->textures) != 0) {
        fail_builder(b, 0);
        return fail(d, "%s: out of memory", name);
    }
    b->texture_first_chunk = b->chunk_count;
    pk_texture_job job;
    memset(&job, 0, sizeof job);
    job.image = img;
    job.kind = kind;
    job.wrap_s = wrap_s;
    job.wrap_t = wrap_t;
    job.name = name;
    job.encoders = enc;
    job.threads = b->texture_threads;
    job.page_size = b->opt.page_size;
    job.stored_ratio = b->opt.stored_ratio_threshold;
    slc_pack_texture rec;
    pk_texture_cut_stats ts;
    const double t0 = pk_seconds_now();
    if (pk_texture_cut(&job, texture_chunk, b, &rec, &ts, d) != 0) {
        fail_builder(b, b->io_failed);
        return -1;
    }
    const double seconds = pk_seconds_now() - t0;
    if (add_string(b, name, strlen(name) + 1, &rec.name) != 0) {
        fail_builder(b, 0);
        return fail(d, "%s: out of memory", name);
    }
    rec.first_chunk = b->texture_first_chunk;
    b->textures[b->texture_count++] = rec;
    b->stats.texture_texels += ts.texels;
    b->stats.texture_bytes += ts.encoded_bytes;
    b->stats.texture_chunks += rec.chunk_count;
    b->stats.texture_stored += ts.stored_bytes;
    b->stats.texture_encode_seconds += seconds;
    if (b->stats.texture_psnr_min == 0.0 || ts.psnr < b->stats.texture_psnr_min) {
        b->stats.texture_psnr_min = ts.psnr;
    }
    if (b->on_texture != NULL) {
        const pk_texture_built t = {
            id, name, img->width, img->height, kind, b->opt.texture_format, ts.psnr, img->decode_seconds, seconds};
        if (b->on_texture(b->on_texture_user, &t, d) != 0) {
            fail_builder(b, 0);
            return -1;
        }
    }
    return 0;
}

void pk_builder_on_texture(pk_builder *b, pk_texture_built_fn fn, void *user)
{
    b->on_texture = fn;
    b->on_texture_user = user;
}

int pk_builder_add_texture(pk_builder *b, const pk_image *img, pk_mip_kind kind, pk_wrap wrap_s, pk_wrap wrap_t,
                           const char *name, uint32_t *id, pk_diag *d)
{
    *id = PK_NONE;
    if (b->failed) {
        return fail(d, "%s: an earlier error left the pack incomplete; it can only be aborted", b->path);
    }
    if (b->opt.texture_format == PK_TEXTURES_NONE) {
        return 0;
    }
    b->stats.texture_decode_seconds += img->decode_seconds;
    if ((unsigned)wrap_s > PK_WRAP_MIRRORED_REPEAT || (unsigned)wrap_t > PK_WRAP_MIRRORED_REPEAT ||
        kind < PK_MIP_COLOR || kind > PK_MIP_NORMAL || img->texels == NULL) {
        return fail(d, "%s: kind %d, wrap modes %d and %d or the texels are not valid", name, (int)kind, (int)wrap_s,
                    (int)wrap_t);
    }
    texture_key key;
    memset(&key, 0, sizeof key); /* its padding is hashed into the fingerprint */
    key.hash = img->hash;
    key.kind = (uint32_t)kind;
    key.wrap = (uint32_t)wrap_s | (uint32_t)wrap_t << 2;
    for (uint32_t i = 0; i < b->texture_key_count; i++) {
        const texture_key *k = &b->texture_keys[i];
        if (k->hash == key.hash && k->kind == key.kind && k->wrap == key.wrap) {
            *id = k->id;
            b->stats.textures_added++;
            return 0;
        }
    }
    if (b->texture_total == UINT32_MAX - 1 || grow((void **)&b->texture_keys, &b->texture_key_cap,
                                                   (uint64_t)b->texture_key_count + 1, sizeof *b->texture_keys) != 0) {
        return fail(d, "%s: more textures than a pack holds, or out of memory", name);
    }
    /* Every mesh before is placed and every page finished before is
     * written, so the texture's chunk ids and payloads follow theirs
     * whatever the jobs. */
    int rc;
    while ((rc = take_mesh(b, 1, d)) == 1) {
    }
    if (rc != 0 || append_pages(b, 1, d) != 0 || enter_bundle(b, (uint64_t)img->width * img->height * 4u, d) != 0) {
        return -1;
    }
    if (b->bundle_built && build_texture(b, img, kind, wrap_s, wrap_t, name, b->texture_total, d) != 0) {
        return -1;
    }
    XXH3_64bits_update(&b->fingerprint, &key, sizeof key);
    texture_key *k = &b->texture_keys[b->texture_key_count++];
    *k = key;
    k->id = b->texture_total++;
    *id = k->id;
    b->stats.textures_added++;
    return 0;
}

int pk_builder_add_material(pk_builder *b, const pk_material *m, uint32_t *id, pk_diag *d)
{
    if (b->failed) {
        return fail(d, "%s: an earlier error left the pack incomplete; it can only be aborted", b->path);
    }
    for (int k = 0; k < PK_SLOT_COUNT; k++) {
        if (m->slot[k].image != PK_NONE && m->slot[k].image >= b->texture_total) {
            return fail(d, "material '%s': %s: texture %u was never added (%u textures)", m->name,
                        pk_material_slot_name((pk_material_slot)k), m->slot[k].image, b->texture_total);
        }
    }
    if (b->material_total == UINT32_MAX - 1 ||
        grow((void **)&b->materials, &b->material_cap, (uint64_t)b->material_count + 1, sizeof *b->materials) != 0) {
        return fail(d, "material '%s': more materials than a pack holds, or out of memory", m->name);
    }
    if (enter_bundle(b, 0, d) != 0) {
        return -1;
    }
    slc_pack_material rec;
    pk_material_record(m, &rec);
    XXH3_64bits_update(&b->fingerprint, &rec, sizeof rec);
    XXH3_64bits_update(&b->fingerprint, m->name, strnlen(m->name, sizeof m->name));
    if (b->bundle_built) {
        if (add_string(b, m->name, sizeof m->name, &rec.name) != 0) {
            fail_builder(b, 0);
            return fail(d, "material '%s': out of memory", m->name);
        }
        b->materials[b->material_count++] = rec;
    }
    *id = b->material_total++;
    return 0;
}

int pk_builder_add_instance(pk_builder *b, const pk_instance *inst, pk_diag *d)
{
    if (b->failed) {
        return fail(d, "%s: an earlier error left the pack incomplete; it can only be aborted", b->path);
    }
    if (inst->mesh >= b->object_count) {
        return fail(d, "instance %u: object %u does not exist (%u objects)", b->stats.instances_added, inst->mesh,
                    b->object_count);
    }
    slc_pack_instance r;
    memset(&r, 0, sizeof r);
    r.object = inst->mesh;
    memcpy(r.matrix, inst->matrix, sizeof r.matrix);
    if (b->stats.instances_added == UINT32_MAX) {
        return fail(d, "instance %u: too many instances or out of memory", b->stats.instances_added);
    }
    if (b->bundle_built) {
        if (add_string(b, inst->name, sizeof inst->name, &r.name) != 0 ||
            grow((void **)&b->t.instances, &b->t.instance_cap, (uint64_t)b->t.instance_count + 1,
                 sizeof *b->t.instances) != 0) {
            return fail(d, "instance %u: too many instances or out of memory", b->stats.instances_added);
        }
        b->t.instances[b->t.instance_count++] = r;
    }
    /* Only what was added goes into the fingerprint. */
    XXH3_64bits_update(&b->fingerprint, &r.object, sizeof r.object);
    XXH3_64bits_update(&b->fingerprint, r.matrix, sizeof r.matrix);
    XXH3_64bits_update(&b->fingerprint, inst->name, strnlen(inst->name, sizeof inst->name));
    b->stats.instances_added++;
    return 0;
}

/* --- finish -------------------------------------------------------------- */

int pk_builder_write_failed(const pk_builder *b)
{
    return b->io_failed;
}

void pk_builder_abort(pk_builder *b)
{
    if (b == NULL) {
        return;
    }
    release(b); /* the workers joined, the temporary gone; the target was never touched */
}

int pk_builder_finish(pk_builder *b, pk_build_stats *stats, pk_diag *d)
{
    if (b->failed) {
        fail(d, "%s: an earlier error left the pack incomplete", b->path);
        pk_builder_abort(b);
        return -1;
    }
    if (b->any_bundle && end_bundle(b, d) != 0) {
        pk_builder_abort(b);
        return -1;
    }
    stop_pool(b);
    pk_build_stats *s = &b->stats;
    s->bundles = b->any_bundle ? b->bundle + 1 : 0;
    s->fingerprint = XXH3_64bits_digest(&b->fingerprint);
    if (b->writer != NULL) {
        pk_writer_stats ws;
        pk_writer *w = b->writer;
        b->writer = NULL;
        if (pk_writer_finish(w, &ws, d) != 0) {
            b->io_failed = 1;
            pk_builder_abort(b);
            return -1;
        }
        s->chunks_deduplicated = ws.chunks_deduplicated;
        s->chunks_stored_raw = ws.chunks_stored_raw;
        memcpy(s->chunks_codec, ws.chunks_codec, sizeof s->chunks_codec);
        s->bytes_raw = ws.bytes_raw;
        s->bytes_stored = ws.bytes_stored;
        s->file_size = ws.file_size;
    } else {
        pk_part_info info;
        memset(&info, 0, sizeof info);
        info.part = b->opt.part;
        info.part_count = b->opt.part_count;
        info.bundle_count = s->bundles;
        info.page_size = b->opt.page_size;
        info.quantize = (uint32_t)b->opt.quantize;
        info.fingerprint = s->fingerprint;
        pk_part_stats ps;
        pk_part_writer *p = b->part;
        b->part = NULL;
        if (pk_part_finish(p, &info, &ps, d) != 0) {
            b->io_failed = 1;
            pk_builder_abort(b);
            return -1;
        }
        s->chunks_stored_raw = ps.chunks_stored_raw;
        memcpy(s->chunks_codec, ps.chunks_codec, sizeof s->chunks_codec);
        s->bytes_raw = ps.bytes_raw;
        s->bytes_stored = ps.bytes_stored;
        s->file_size = ps.file_size;
    }
    s->ratio = s->bytes_stored > 0 ? (double)s->bytes_raw / (double)s->bytes_stored : 0.0;
    /* Of the geometry pages: a texture chunk is one tile, at most half a page by design. */
    const uint32_t geometry_chunks = s->chunks - s->texture_chunks;
    s->page_fill = geometry_chunks > 0
                       ? (double)(s->bytes_raw - s->texture_bytes) / ((double)geometry_chunks * b->opt.page_size)
                       : 0.0;
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    s->seconds = (double)(t1.tv_sec - b->t0.tv_sec) + (double)(t1.tv_nsec - b->t0.tv_nsec) * 1e-9;
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) == 0) {
        s->peak_rss = (uint64_t)ru.ru_maxrss * 1024u; /* Linux: KiB */
    }
    s->options = b->opt;
    if (stats != NULL) {
        *stats = *s;
    }
    release(b);
    return 0;
}
