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
 * coarsest level).
 *
 * A chunk's index is given when its page is opened, so the spans of an LOD
 * can name the chunk before it is written; chunks reach the file in the
 * order they are finished, so the chunk table's offsets are not sorted.
 *
 * Decoded chunk layout: slc_pack_chunk_header, cluster_count
 * slc_pack_cluster records, then per cluster its vertices (at a 4-byte
 * aligned vertex_offset) and right after them its triangles (index_offset,
 * 3 uint8 local indices each). Padding bytes are zero. */
#define _POSIX_C_SOURCE 200809L
#define _FILE_OFFSET_BITS 64

#include "builder.h"

#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <lz4.h>
#include <lz4hc.h>
#include <meshoptimizer.h>
#define XXH_STATIC_LINKING_ONLY /* XXH3_state_t by value */
#include <xxhash.h>

#include "atomic_file.h"
#include "meshopt_stream.h"
#include "sluice/pack.h"
#include "sluice/pack_format.h"
#include "sluice/profile.h"

/* The records are written as they lie in memory: the format is
 * little-endian and the structs have no padding (sluice/pack_format.h
 * asserts their layout). */
#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the pack builder writes records as they lie in memory: little-endian hosts only"
#endif

#define HEADER_BYTES ((uint32_t)sizeof(slc_pack_header))
#define CHUNK_HEADER_BYTES ((uint32_t)sizeof(slc_pack_chunk_header))
#define CLUSTER_BYTES ((uint32_t)sizeof(slc_pack_cluster))
#define WIDEST_VERTEX 32u              /* float position, normal and uv */
#define MAX_PAGE_CLUSTERS 65535u       /* span.first_cluster is a uint16 */
#define LOD_MIN_REDUCTION 0.95         /* a level must keep fewer than 95% of the triangles */
#define SIMPLIFY_TARGET_ERROR 1.0f     /* relative to the mesh extent: the triangle count decides */
#define PAGE_SLOTS (2u * SLC_LODS_MAX)  /* (level, coarsest) */

/* One open page: its cluster records and, separately, their vertex and
 * triangle bytes (offsets relative to the data start until assembled). */
typedef struct page {
    int open;
    uint32_t chunk; /* index given at open */
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

/* An entry of the mesh deduplication table. */
typedef struct mesh_key {
    XXH128_hash_t hash;
    uint32_t object;
    uint32_t used;
} mesh_key;

struct pk_builder {
    char *path;      /* the target, as the caller named it (for messages) */
    atomic_file out; /* the temporary (out.fd, -1 once closed), renamed over path by finish */
    int failed;    /* a write failed or a mesh was left half-built: only abort is accepted */
    int io_failed; /* ... and it was a write or read of the file */
    pk_build_options opt;
    uint64_t end; /* bytes written so far: the next chunk goes at align8(end) */
    struct timespec t0;

    page pages[PAGE_SLOTS];
    unsigned char *assembled; /* page_size bytes: the decoded chunk */
    char *compressed;         /* LZ4_compressBound(page_size) bytes */
    int compressed_cap;
    unsigned char *readback; /* LZ4_compressBound(page_size) bytes: an earlier chunk, for dedup */
    void *lz4_state;
    unsigned char *mstream;   /* the open chunk's meshopt stream, mstream_cap bytes */
    size_t mstream_cap;
    char *mcompressed;        /* LZ4_compressBound(page_size) bytes: the meshopt stream through LZ4 */
    int uses_meshopt;         /* a chunk has a meshopt codec: the pack is 1.1 */

    slc_pack_chunk *chunks;
    uint32_t chunk_count, chunk_cap;
    slc_pack_object *objects;
    uint32_t object_count, object_cap;
    slc_pack_lod *lods;
    uint32_t lod_count, lod_cap;
    slc_pack_span *spans;
    uint32_t span_count, span_cap;
    slc_pack_instance *instances;
    uint32_t instance_count, instance_cap;
    char *strings;
    uint32_t string_size, string_cap;

    uint32_t *chunk_table; /* open addressing over unique chunks, keyed by xxh3 */
    uint32_t chunk_table_cap, chunk_table_used;
    mesh_key *mesh_table;
    uint32_t mesh_table_cap, mesh_table_used;

    pk_build_stats stats;
};

/* --- small helpers ------------------------------------------------------- */

static int fail(pk_diag *d, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static int fail(pk_diag *d, const char *fmt, ...)
{
    if (d != NULL) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(d->message, sizeof d->message, fmt, ap);
        va_end(ap);
    }
    return -1;
}

#ifdef __clang_analyzer__
/* For clang's static analyzer only (scripts/static.sh): it never inlines a
 * variadic function, so it cannot see that fail() returns -1 and explores
 * callers as if a failure had succeeded. The build never sees this. */
#define fail(...) (fail(__VA_ARGS__), -1)
#endif

static uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) & ~(a - 1); }

/* Grows *p to hold at least need elements of elem bytes (doubling). */
static int grow(void **p, uint32_t *cap, uint64_t need, size_t elem)
{
    if (need <= *cap) {
        return 0;
    }
    if (need > UINT32_MAX) {
        return -1;
    }
    uint64_t n = *cap ? *cap : 16;
    while (n < need) {
        n *= 2;
    }
    if (n > UINT32_MAX) {
        n = UINT32_MAX;
    }
    if (n > SIZE_MAX / elem) {
        return -1;
    }
    void *q = realloc(*p, (size_t)n * elem);
    if (q == NULL) {
        return -1;
    }
    *p = q;
    *cap = (uint32_t)n;
    return 0;
}

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

static int write_at(pk_builder *b, uint64_t offset, const void *data, size_t size, pk_diag *d)
{
    const unsigned char *p = data;
    while (size > 0) {
        ssize_t w = pwrite(b->out.fd, p, size, (off_t)offset);
        if (w < 0 && errno == EINTR) {
            continue;
        }
        if (w <= 0) {
            b->failed = 1;
            b->io_failed = 1;
            return fail(d, "%s: write of %zu bytes at offset %llu failed: %s", b->path, size,
                        (unsigned long long)offset, w < 0 ? strerror(errno) : "no progress");
        }
        p += w;
        size -= (size_t)w;
        offset += (uint64_t)w;
    }
    return 0;
}

static int read_at(pk_builder *b, uint64_t offset, void *data, size_t size, pk_diag *d)
{
    unsigned char *p = data;
    while (size > 0) {
        ssize_t r = pread(b->out.fd, p, size, (off_t)offset);
        if (r < 0 && errno == EINTR) {
            continue;
        }
        if (r <= 0) {
            b->failed = 1;
            b->io_failed = 1;
            return fail(d, "%s: read back of %zu bytes at offset %llu failed: %s", b->path, size,
                        (unsigned long long)offset, r < 0 ? strerror(errno) : "end of file");
        }
        p += r;
        size -= (size_t)r;
        offset += (uint64_t)r;
    }
    return 0;
}

/* Zero bytes from b->end up to offset (a multiple of SLC_PACK_ALIGN). */
static int pad_to(pk_builder *b, uint64_t offset, pk_diag *d)
{
    static const unsigned char zeros[SLC_PACK_ALIGN];
    if (offset > b->end && write_at(b, b->end, zeros, (size_t)(offset - b->end), d) != 0) {
        return -1;
    }
    b->end = offset;
    return 0;
}

/* Appends a NUL-terminated name; SLC_PACK_NO_NAME for "". */
static int add_string(pk_builder *b, const char *name, size_t max, uint32_t *out)
{
    size_t n = strnlen(name, max);
    if (n == 0) {
        *out = SLC_PACK_NO_NAME;
        return 0;
    }
    uint64_t need = (uint64_t)b->string_size + n + 1;
    if (need >= SLC_PACK_NO_NAME || grow((void **)&b->strings, &b->string_cap, need, 1) != 0) {
        return -1;
    }
    *out = b->string_size;
    memcpy(b->strings + b->string_size, name, n);
    b->strings[b->string_size + n] = '\0';
    b->string_size = (uint32_t)need;
    return 0;
}

/* --- open ---------------------------------------------------------------- */

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
        return fail(d, "page size %u is not a power of two from %u to %u bytes", o->page_size,
                    SLC_PAGE_SIZE_MIN, SLC_PAGE_SIZE_MAX);
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
        return fail(d, "cluster vertex limit %u is not from 3 to %u", o->max_cluster_vertices,
                    PK_MAX_CLUSTER_VERTICES);
    }
    if (o->max_cluster_triangles == 0) {
        o->max_cluster_triangles = PK_DEFAULT_CLUSTER_TRIANGLES;
    }
    if (o->max_cluster_triangles < 4 || o->max_cluster_triangles > PK_MAX_CLUSTER_TRIANGLES) {
        return fail(d, "cluster triangle limit %u is not from 4 to %u", o->max_cluster_triangles,
                    PK_MAX_CLUSTER_TRIANGLES);
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
    b->out.fd = -1;
    b->out.slot = -1;
    b->opt = o;
    clock_gettime(CLOCK_MONOTONIC, &b->t0);
    size_t bound = (size_t)LZ4_compressBound((int)o.page_size);
    b->path = strdup(out_path);
    b->assembled = calloc(1, o.page_size);
    b->compressed_cap = (int)bound;
    b->compressed = calloc(1, bound);
    b->readback = malloc(bound);
    b->lz4_state = malloc((size_t)LZ4_sizeofStateHC());
    b->mcompressed = malloc(bound);
    b->strings = calloc(1, 1); /* offset 0: "" */
    b->string_cap = 1;
    b->string_size = 1;
    if (b->path == NULL || b->assembled == NULL || b->compressed == NULL || b->readback == NULL ||
        b->lz4_state == NULL || b->mcompressed == NULL || b->strings == NULL) {
        pk_builder_abort(b);
        return fail(d, "%s: out of memory", out_path);
    }
    /* A temporary beside the target: an existing pack stays as it is until
     * the new one is complete (pk_builder_finish renames it over). */
    char err[sizeof d->message];
    if (atomic_file_open(&b->out, out_path, err, sizeof err) != 0) {
        pk_builder_abort(b);
        return fail(d, "%s", err);
    }
    /* The header is written last; zeros hold its place. */
    static const unsigned char zeros[sizeof(slc_pack_header)];
    if (write_at(b, 0, zeros, sizeof zeros, d) != 0) {
        pk_builder_abort(b);
        return -1;
    }
    b->end = HEADER_BYTES;
    *out = b;
    return 0;
}

/* --- chunks -------------------------------------------------------------- */

/* An earlier unique chunk with the same stored bytes, or UINT32_MAX. */
static int find_duplicate(pk_builder *b, const slc_pack_chunk *c, const void *stored, uint32_t *found, pk_diag *d)
{
    *found = UINT32_MAX;
    if (b->chunk_table_cap == 0) {
        return 0;
    }
    uint32_t mask = b->chunk_table_cap - 1;
    for (uint32_t i = (uint32_t)c->xxh3 & mask;; i = (i + 1) & mask) {
        uint32_t e = b->chunk_table[i];
        if (e == UINT32_MAX) {
            return 0;
        }
        const slc_pack_chunk *o = &b->chunks[e];
        if (o->xxh3 == c->xxh3 && o->stored_size == c->stored_size && o->codec == c->codec &&
            o->decoded_size == c->decoded_size) {
            if (read_at(b, o->offset, b->readback, o->stored_size, d) != 0) {
                return -1;
            }
            if (memcmp(b->readback, stored, c->stored_size) == 0) {
                *found = e;
                return 0;
            }
        }
    }
}

static int remember_chunk(pk_builder *b, uint32_t chunk)
{
    if ((uint64_t)(b->chunk_table_used + 1) * 2 > b->chunk_table_cap) {
        uint32_t cap = b->chunk_table_cap ? b->chunk_table_cap * 2 : 1024;
        uint32_t *t = malloc((size_t)cap * sizeof *t);
        if (t == NULL) {
            return -1;
        }
        memset(t, 0xff, (size_t)cap * sizeof *t);
        for (uint32_t i = 0; i < b->chunk_table_cap; i++) {
            uint32_t e = b->chunk_table[i];
            if (e != UINT32_MAX) {
                uint32_t j = (uint32_t)b->chunks[e].xxh3 & (cap - 1);
                while (t[j] != UINT32_MAX) {
                    j = (j + 1) & (cap - 1);
                }
                t[j] = e;
            }
        }
        free(b->chunk_table);
        b->chunk_table = t;
        b->chunk_table_cap = cap;
    }
    uint32_t mask = b->chunk_table_cap - 1;
    uint32_t j = (uint32_t)b->chunks[chunk].xxh3 & mask;
    while (b->chunk_table[j] != UINT32_MAX) {
        j = (j + 1) & mask;
    }
    b->chunk_table[j] = chunk;
    b->chunk_table_used++;
    return 0;
}

const char *const pk_codec_names[PK_CODEC_COUNT + 1] = {"auto", "stored", "lz4", "meshopt", "meshopt-lz4", NULL};

/* The chunk's meshopt stream (docs/pack-format.md, "Meshopt stream") in
 * b->mstream: the header and cluster records as they are, then per cluster
 * its sizes, its vertices through meshopt_encodeVertexBuffer (version 0) and
 * its triangles through meshopt_encodeIndexBuffer (version 1). Each cluster
 * is decoded again and compared, so a chunk the stream would not give back
 * byte for byte is never written so. Returns the stream's bytes; 0 when the
 * chunk cannot take the codec (a cluster over 512 triangles or an encoded
 * part over 65535 bytes) or memory ran out. */
static size_t meshopt_stream(pk_builder *b, const unsigned char *chunk, uint32_t n)
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
    if (need > b->mstream_cap) {
        unsigned char *m = realloc(b->mstream, need);
        if (m == NULL) {
            return 0;
        }
        b->mstream = m;
        b->mstream_cap = need;
    }
    meshopt_encodeVertexVersion(0); /* the format's versions (0.18 decodes vertex version 0 only) */
    meshopt_encodeIndexVersion(1);
    memcpy(b->mstream, chunk, head);
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
        unsigned char *at = b->mstream + pos + sizeof(slc_pack_meshopt_cluster);
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
            pk_meshopt_decode_cluster(at, mc, cl.vertex_count, stride, cl.triangle_count, vcheck, tcheck, icheck) != 0 ||
            memcmp(vcheck, chunk + cl.vertex_offset, (size_t)cl.vertex_count * stride) != 0 ||
            memcmp(tcheck, chunk + cl.index_offset, count) != 0) {
            return 0;
        }
        memcpy(b->mstream + pos, &mc, sizeof mc);
        pos += sizeof mc + vs + is;
    }
    return pos;
}

/* Fills c's codec and stored_size with the encoding opt.codec asks for
 * (builder.h, pk_codec) and points *stored at its bytes. */
static void choose_codec(pk_builder *b, const unsigned char *chunk, uint32_t decoded, uint32_t clusters,
                         slc_pack_chunk *c, const void **stored)
{
    pk_codec mode = b->opt.codec;
    uint32_t codec = SLC_PACK_CODEC_STORED;
    uint32_t size = decoded;
    const void *bytes = chunk;
    if (mode == PK_CODEC_AUTO || mode == PK_CODEC_LZ4) {
        int n = LZ4_compress_HC_extStateHC(b->lz4_state, (const char *)chunk, b->compressed, (int)decoded,
                                           b->compressed_cap, b->opt.lz4_level);
        if (n > 0 && (double)n * b->opt.stored_ratio_threshold < (double)decoded) {
            codec = SLC_PACK_CODEC_LZ4;
            size = (uint32_t)n;
            bytes = b->compressed;
        }
    }
    /* auto only picks what the runtime linked with this packer decodes (a
     * build with SLUICE_CODEC_MESHOPT=OFF packs what it can read back) */
    int meshopt_ok = mode != PK_CODEC_AUTO || slc_pack_codec_is_built(SLC_PACK_CODEC_MESHOPT);
    if (meshopt_ok && (mode == PK_CODEC_AUTO || mode == PK_CODEC_MESHOPT || mode == PK_CODEC_MESHOPT_LZ4)) {
        size_t m = meshopt_stream(b, chunk, clusters);
        /* Forced: wherever smaller than stored. Auto: the saving floor over
         * the cheaper pick. */
        double floor_m = mode == PK_CODEC_AUTO ? (double)size * (1.0 - PK_MESHOPT_MIN_SAVING) : (double)decoded - 0.5;
        if (m > 0 && m < decoded && mode != PK_CODEC_MESHOPT_LZ4 && (double)m <= floor_m) {
            codec = SLC_PACK_CODEC_MESHOPT;
            size = (uint32_t)m;
            bytes = b->mstream;
        }
        if (m > 0 && m <= decoded && mode != PK_CODEC_MESHOPT) {
            int n = LZ4_compress_HC_extStateHC(b->lz4_state, (const char *)b->mstream, b->mcompressed, (int)m,
                                               b->compressed_cap, b->opt.lz4_level);
            double floor_l = mode == PK_CODEC_AUTO ? (double)size * (1.0 - PK_MESHOPT_MIN_SAVING) : (double)decoded - 0.5;
            if (n > 0 && (double)n <= floor_l) {
                codec = SLC_PACK_CODEC_MESHOPT_LZ4;
                size = (uint32_t)n;
                bytes = b->mcompressed;
            }
        }
    }
    c->codec = (uint8_t)codec;
    c->stored_size = size;
    *stored = bytes;
}

/* Assembles, compresses, deduplicates and writes an open page as its chunk. */
static int finish_page(pk_builder *b, page *pg, pk_diag *d)
{
    unsigned char *out = b->assembled;
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

    slc_pack_chunk *c = &b->chunks[pg->chunk];
    memset(c, 0, sizeof *c);
    const void *stored;
    choose_codec(b, out, decoded, pg->cluster_count, c, &stored);
    b->stats.chunks_stored_raw += c->codec == SLC_PACK_CODEC_STORED;
    b->stats.chunks_codec[c->codec]++;
    b->uses_meshopt |= c->codec == SLC_PACK_CODEC_MESHOPT || c->codec == SLC_PACK_CODEC_MESHOPT_LZ4;
    c->decoded_size = decoded;
    c->xxh3 = XXH3_64bits(stored, c->stored_size);
    c->lod = (uint8_t)pg->lod;
    c->flags = pg->coarsest ? SLC_PACK_CHUNK_COARSEST : 0;
    c->cluster_count = pg->cluster_count;
    c->triangle_count = pg->triangles;
    c->vertex_count = pg->vertices;
    c->first_object = pg->clusters[0].object; /* objects only grow within a page */

    uint32_t dup;
    if (find_duplicate(b, c, stored, &dup, d) != 0) {
        return -1;
    }
    if (dup != UINT32_MAX) {
        c->offset = b->chunks[dup].offset;
        b->stats.chunks_deduplicated++;
    } else {
        uint64_t at = align_up(b->end, SLC_PACK_ALIGN);
        if (pad_to(b, at, d) != 0 || write_at(b, at, stored, c->stored_size, d) != 0) {
            return -1;
        }
        c->offset = at;
        b->end = at + c->stored_size;
        b->stats.bytes_stored += c->stored_size;
        if (remember_chunk(b, pg->chunk) != 0) {
            return fail(d, "%s: out of memory", b->path);
        }
    }
    b->stats.bytes_raw += decoded;
    pg->open = 0;
    return 0;
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

/* --- vertices ------------------------------------------------------------ */

/* What an object's vertices look like in the file, and how to get there. */
typedef struct vertex_format {
    uint32_t attributes;
    uint32_t stride;      /* bytes in the file */
    uint32_t fstride;     /* floats in the working buffer */
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

/* Appends one cluster to the open page of (level, coarsest), finishing the
 * page first when it does not fit, and extends the level's spans. */
static int emit_cluster(pk_builder *b, const vertex_format *f, uint32_t object, uint32_t level, int coarsest,
                        slc_pack_lod *lod, const float *verts, const unsigned int *cverts, uint32_t vcount,
                        const unsigned char *ctris, uint32_t tcount, const float sphere[4], pk_diag *d)
{
    page *pg = &b->pages[coarsest ? SLC_LODS_MAX + level : level];
    uint32_t vbytes = vcount * f->stride, tbytes = tcount * 3u;
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
    for (uint32_t i = 0; i < vcount; i++) {
        encode_vertex(f, verts + (size_t)cverts[i] * f->fstride, pg->data + at + (size_t)i * f->stride);
    }
    for (uint32_t i = 0; i < tcount; i++) { /* each triangle in its canonical rotation */
        const unsigned char *t = ctris + (size_t)i * 3u;
        slc_pack_put_triangle(pg->data + at + vbytes + (size_t)i * 3u, t[0], t[1], t[2]);
    }

    slc_pack_cluster *c = &pg->clusters[pg->cluster_count];
    memset(c, 0, sizeof *c);
    c->object = object;
    c->vertex_offset = at; /* relative to the data until finish_page */
    c->index_offset = at + vbytes;
    c->vertex_count = (uint16_t)vcount;
    c->triangle_count = (uint16_t)tcount;
    memcpy(c->sphere, sphere, sizeof c->sphere);

    /* The level's last span continues if it ends right here. */
    slc_pack_span *last = lod->span_count > 0 ? &b->spans[lod->first_span + lod->span_count - 1] : NULL;
    if (last != NULL && last->chunk == pg->chunk && last->first_cluster + last->cluster_count == pg->cluster_count &&
        last->cluster_count < UINT16_MAX) {
        last->cluster_count++;
    } else {
        if (b->span_count == UINT32_MAX ||
            grow((void **)&b->spans, &b->span_cap, (uint64_t)b->span_count + 1, sizeof *b->spans) != 0) {
            return fail(d, "%s: too many spans or out of memory", b->path);
        }
        slc_pack_span *s = &b->spans[b->span_count++];
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
        return fail(d, "%s: no triangles", label);
    }
    if (m->index_count % 3 != 0) {
        return fail(d, "%s: %u indices is not a multiple of 3", label, m->index_count);
    }
    if (m->positions == NULL || m->indices == NULL) {
        return fail(d, "%s: no positions or no indices", label);
    }
    if ((uint64_t)m->vertex_count * WIDEST_VERTEX > SIZE_MAX / 2) {
        return fail(d, "%s: %u vertices do not fit this machine's memory", label, m->vertex_count);
    }
    for (uint32_t i = 0; i < m->index_count; i++) {
        if (m->indices[i] >= m->vertex_count) {
            return fail(d, "%s: index %u at position %u is out of range (%u vertices)", label, m->indices[i], i,
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
                return fail(d, "%s: %s of vertex %zu is not a finite number", label, attrs[a].what, i / attrs[a].n);
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

/* The LOD chain: level 0 is the optimised mesh; each next level asks the
 * simplifier for half of the previous level's triangles (meshopt_simplify,
 * or meshopt_simplifySloppy where that one cannot shrink the level by 5%),
 * and errors add up (each simplification is measured against its input), so
 * they only grow. The chain ends at max_lods or at the first level neither
 * shrinks by 5%. */
static int build_levels(pk_builder *b, work *w, size_t vertex_count, uint32_t fstride, uint32_t *levels)
{
    float scale = meshopt_simplifyScale(w->fetched, vertex_count, fstride * sizeof(float));
    uint32_t n = 1;
    while (n < b->opt.max_lods) {
        size_t prev = w->level_count[n - 1];
        size_t target = prev / 6 * 3;
        if (target < 3) {
            break;
        }
        unsigned int *out = malloc(prev * sizeof *out);
        if (out == NULL) {
            return -1;
        }
        float err = 0.0f;
        size_t got = meshopt_simplify(out, w->levels[n - 1], prev, w->fetched, vertex_count, fstride * sizeof(float),
                                      target, SIMPLIFY_TARGET_ERROR, 0, &err);
        if (got == 0 || (double)got > LOD_MIN_REDUCTION * (double)prev) {
            /* The topology-preserving simplifier is stuck (many separate
             * parts, attribute seams locking corners: typical of modelled
             * buildings). The sloppy one merges across parts: coarse levels
             * must be small, since the coarsest level of everything stays
             * resident. */
            got = meshopt_simplifySloppy(out, w->levels[n - 1], prev, w->fetched, vertex_count,
                                         fstride * sizeof(float), target, SIMPLIFY_TARGET_ERROR, &err);
        }
        if (got == 0 || (double)got > LOD_MIN_REDUCTION * (double)prev) {
            free(out);
            break;
        }
        w->levels[n] = out;
        w->level_count[n] = got;
        w->level_error[n] = w->level_error[n - 1] + err * scale;
        n++;
    }
    *levels = n;
    return 0;
}

/* The vertex layout of a mesh: the attributes it carries, the stride of a
 * vertex as floats (what the optimiser and simplifier read) and as encoded
 * in a page. The decode ranges are set by mesh_bounds. */
static void mesh_format(const pk_builder *b, const pk_mesh *m, vertex_format *f)
{
    memset(f, 0, sizeof *f);
    f->has_normal = m->normals != NULL;
    f->has_uv = m->uvs != NULL;
    f->fstride = 3u + (f->has_normal ? 3u : 0u) + (f->has_uv ? 2u : 0u);
    f->attributes = (f->has_normal ? SLC_PACK_ATTR_NORMAL : 0u) | (f->has_uv ? SLC_PACK_ATTR_UV : 0u);
    if (b->opt.quantize) {
        f->attributes |= SLC_PACK_ATTR_POS_U16 | (f->has_normal ? SLC_PACK_ATTR_NORMAL_OCT8 : 0u) |
                         (f->has_uv ? SLC_PACK_ATTR_UV_U16 : 0u);
    }
    f->stride = (b->opt.quantize ? 8u : 12u) + (f->has_normal ? (b->opt.quantize ? 4u : 12u) : 0u) +
                (f->has_uv ? (b->opt.quantize ? 4u : 8u) : 0u);
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
        return fail(d, "%s: out of memory for %zu vertices and %zu indices", label, vc, ic);
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
}

/* Level l of the object (levels in all): its LOD record at
 * b->lods[b->lod_count + l] (reserved by the caller), its clusters
 * (meshopt_buildMeshlets) and each cluster placed in pages by
 * emit_cluster. Nonzero on failure, with d set. */
static int cluster_level(pk_builder *b, work *w, const vertex_format *f, size_t vc, uint32_t object, uint32_t l,
                         uint32_t levels, float slack, const char *label, pk_diag *d)
{
    size_t maxv = b->opt.max_cluster_vertices, maxt = b->opt.max_cluster_triangles;
    slc_pack_lod *lod = &b->lods[b->lod_count + l];
    memset(lod, 0, sizeof *lod);
    lod->first_span = b->span_count;
    lod->error = w->level_error[l];
    level_sphere(w->fetched, f->fstride, w->levels[l], w->level_count[l], slack, lod->sphere);

    size_t cap = meshopt_buildMeshletsBound(w->level_count[l], maxv, maxt);
    free(w->meshlets);
    free(w->meshlet_vertices);
    free(w->meshlet_triangles);
    w->meshlets = malloc((cap ? cap : 1) * sizeof *w->meshlets);
    w->meshlet_vertices = malloc((cap ? cap : 1) * maxv * sizeof *w->meshlet_vertices);
    w->meshlet_triangles = malloc((cap ? cap : 1) * maxt * 3);
    if (w->meshlets == NULL || w->meshlet_vertices == NULL || w->meshlet_triangles == NULL) {
        return fail(d, "%s: out of memory for clusters", label);
    }
    size_t count = meshopt_buildMeshlets(w->meshlets, w->meshlet_vertices, w->meshlet_triangles, w->levels[l],
                                         w->level_count[l], w->fetched, vc, f->fstride * sizeof(float), maxv, maxt,
                                         0.0f);
    int rc = 0;
    for (size_t i = 0; i < count && rc == 0; i++) {
        const struct meshopt_Meshlet *ml = &w->meshlets[i];
        struct meshopt_Bounds bo =
            meshopt_computeMeshletBounds(w->meshlet_vertices + ml->vertex_offset,
                                         w->meshlet_triangles + ml->triangle_offset, ml->triangle_count,
                                         w->fetched, vc, f->fstride * sizeof(float));
        float sphere[4] = {bo.center[0], bo.center[1], bo.center[2], bo.radius * (1.0f + 1e-6f) + slack};
        rc = emit_cluster(b, f, object, l, l + 1 == levels, lod, w->fetched, w->meshlet_vertices + ml->vertex_offset,
                          ml->vertex_count, w->meshlet_triangles + ml->triangle_offset, ml->triangle_count, sphere,
                          d);
    }
    b->stats.triangles_all += lod->triangle_count;
    if (l == 0) {
        b->stats.triangles_lod0 += lod->triangle_count;
    }
    return rc;
}

/* The finished object appended (its levels, reserved at b->lod_count,
 * become the pack's) and its mesh remembered under hash h for
 * deduplication. */
static int record_object(pk_builder *b, XXH128_hash_t h, const slc_pack_object *obj, uint64_t input_bytes,
                         uint32_t *object_index, const char *label, pk_diag *d)
{
    uint32_t object = b->object_count;
    if (grow((void **)&b->objects, &b->object_cap, (uint64_t)b->object_count + 1, sizeof *b->objects) != 0 ||
        remember_mesh(b, h, object) != 0) {
        b->failed = 1;
        return fail(d, "%s: out of memory", label);
    }
    b->lod_count += obj->lod_count;
    b->objects[b->object_count++] = *obj;
    b->stats.meshes++;
    b->stats.input_bytes += input_bytes;
    *object_index = object;
    return 0;
}

int pk_builder_add_mesh(pk_builder *b, const pk_mesh *m, uint32_t *object_index, pk_diag *d)
{
    char label[128];
    mesh_label(m, b->stats.meshes + b->stats.meshes_deduplicated, label, sizeof label);
    if (b->failed) {
        return fail(d, "%s: an earlier error left the pack incomplete; it can only be aborted", b->path);
    }
    if (check_mesh(m, label, d) != 0) {
        return -1;
    }
    uint64_t input_bytes = pk_mesh_input_bytes(m);
    XXH128_hash_t h = mesh_hash(m);
    mesh_key *k = find_mesh(b, h);
    if (k != NULL) {
        *object_index = k->object;
        b->stats.meshes_deduplicated++;
        b->stats.input_bytes += input_bytes;
        return 0;
    }
    if (b->object_count == UINT32_MAX - 1) {
        return fail(d, "%s: more objects than a pack holds", label);
    }

    vertex_format f;
    mesh_format(b, m, &f);
    work w;
    memset(&w, 0, sizeof w);
    size_t vc = 0;
    if (optimise_mesh(&w, m, &f, &vc, label, d) != 0) {
        free_work(&w);
        return -1;
    }
    slc_pack_object obj;
    mesh_bounds(&w, vc, &f, &obj);

    uint32_t levels = 1;
    if (build_levels(b, &w, vc, f.fstride, &levels) != 0) {
        free_work(&w);
        return fail(d, "%s: out of memory while simplifying", label);
    }

    if (add_string(b, m->name, sizeof m->name, &obj.name) != 0 ||
        grow((void **)&b->lods, &b->lod_cap, (uint64_t)b->lod_count + levels, sizeof *b->lods) != 0) {
        free_work(&w);
        return fail(d, "%s: out of memory", label);
    }
    uint32_t object = b->object_count;
    obj.first_lod = b->lod_count;
    obj.lod_count = levels;
    float slack = quantization_slack(&f);
    int rc = 0;
    for (uint32_t l = 0; l < levels && rc == 0; l++) {
        rc = cluster_level(b, &w, &f, vc, object, l, levels, slack, label, d);
    }
    free_work(&w);
    if (rc != 0) {
        b->failed = 1; /* spans may name half-built levels */
        return -1;
    }
    return record_object(b, h, &obj, input_bytes, object_index, label, d);
}

int pk_builder_add_instance(pk_builder *b, const pk_instance *inst, pk_diag *d)
{
    if (b->failed) {
        return fail(d, "%s: an earlier error left the pack incomplete; it can only be aborted", b->path);
    }
    if (inst->mesh >= b->object_count) {
        return fail(d, "instance %u: object %u does not exist (%u objects)", b->instance_count, inst->mesh,
                    b->object_count);
    }
    slc_pack_instance r;
    memset(&r, 0, sizeof r);
    r.object = inst->mesh;
    memcpy(r.matrix, inst->matrix, sizeof r.matrix);
    if (b->instance_count == UINT32_MAX || add_string(b, inst->name, sizeof inst->name, &r.name) != 0 ||
        grow((void **)&b->instances, &b->instance_cap, (uint64_t)b->instance_count + 1, sizeof *b->instances) != 0) {
        return fail(d, "instance %u: too many instances or out of memory", b->instance_count);
    }
    b->instances[b->instance_count++] = r;
    return 0;
}

/* --- finish -------------------------------------------------------------- */

static void release(pk_builder *b)
{
    atomic_file_abort(&b->out); /* removes the temporary, if still there */
    for (uint32_t i = 0; i < PAGE_SLOTS; i++) {
        free(b->pages[i].clusters);
        free(b->pages[i].data);
    }
    free(b->path);
    free(b->assembled);
    free(b->compressed);
    free(b->readback);
    free(b->lz4_state);
    free(b->mstream);
    free(b->mcompressed);
    free(b->chunks);
    free(b->objects);
    free(b->lods);
    free(b->spans);
    free(b->instances);
    free(b->strings);
    free(b->chunk_table);
    free(b->mesh_table);
    free(b);
}

int pk_builder_write_failed(const pk_builder *b) { return b->io_failed; }

void pk_builder_abort(pk_builder *b)
{
    if (b == NULL) {
        return;
    }
    release(b); /* the temporary goes; the target was never touched */
}

/* Writes a table at the next aligned offset. */
static int write_table(pk_builder *b, const void *data, size_t size, uint64_t *offset, pk_diag *d)
{
    uint64_t at = align_up(b->end, SLC_PACK_ALIGN);
    if (pad_to(b, at, d) != 0 || (size > 0 && write_at(b, at, data, size, d) != 0)) {
        return -1;
    }
    *offset = at;
    b->end = at + size;
    return 0;
}

static uint64_t xxh3_pair(const void *a, size_t an, const void *c, size_t cn)
{
    XXH3_state_t st;
    XXH3_64bits_reset(&st);
    XXH3_64bits_update(&st, a, an);
    XXH3_64bits_update(&st, c, cn);
    return XXH3_64bits_digest(&st);
}

int pk_builder_finish(pk_builder *b, pk_build_stats *stats, pk_diag *d)
{
    if (b->failed) {
        fail(d, "%s: an earlier error left the pack incomplete", b->path);
        pk_builder_abort(b);
        return -1;
    }
    for (uint32_t i = 0; i < PAGE_SLOTS; i++) {
        if (b->pages[i].open && finish_page(b, &b->pages[i], d) != 0) {
            pk_builder_abort(b);
            return -1;
        }
    }
    slc_pack_header h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, SLC_PACK_MAGIC, SLC_PACK_MAGIC_SIZE);
    h.version_major = SLC_PACK_VERSION_MAJOR;
    h.version_minor = b->uses_meshopt ? SLC_PACK_VERSION_MINOR : 0u; /* 1.0 readers read the rest */
    h.header_size = HEADER_BYTES;
    h.optional_features = b->opt.quantize && b->object_count > 0 ? SLC_PACK_OPTIONAL_QUANTIZED : 0u;
    h.page_size = b->opt.page_size;
    h.chunk_count = b->chunk_count;
    h.object_count = b->object_count;
    h.lod_count = b->lod_count;
    h.span_count = b->span_count;
    h.instance_count = b->instance_count;
    h.string_size = b->string_size;
    size_t chunk_bytes = (size_t)b->chunk_count * sizeof *b->chunks;
    size_t object_bytes = (size_t)b->object_count * sizeof *b->objects;
    size_t lod_bytes = (size_t)b->lod_count * sizeof *b->lods;
    size_t span_bytes = (size_t)b->span_count * sizeof *b->spans;
    size_t instance_bytes = (size_t)b->instance_count * sizeof *b->instances;
    if (write_table(b, b->chunks, chunk_bytes, &h.chunk_offset, d) != 0 ||
        write_table(b, b->objects, object_bytes, &h.object_offset, d) != 0 ||
        write_table(b, b->lods, lod_bytes, &h.lod_offset, d) != 0 ||
        write_table(b, b->spans, span_bytes, &h.span_offset, d) != 0 ||
        write_table(b, b->instances, instance_bytes, &h.instance_offset, d) != 0 ||
        write_table(b, b->strings, b->string_size, &h.string_offset, d) != 0) {
        pk_builder_abort(b);
        return -1;
    }
    h.file_size = b->end;
    h.chunk_xxh3 = XXH3_64bits(b->chunks, chunk_bytes);
    h.object_xxh3 = XXH3_64bits(b->objects, object_bytes);
    h.lod_xxh3 = xxh3_pair(b->lods, lod_bytes, b->spans, span_bytes);
    h.instance_xxh3 = xxh3_pair(b->instances, instance_bytes, b->strings, b->string_size);
    h.header_xxh3 = XXH3_64bits(&h, offsetof(slc_pack_header, header_xxh3));
    if (write_at(b, 0, &h, sizeof h, d) != 0) {
        pk_builder_abort(b);
        return -1;
    }
    /* fsync, then rename over the target: only now is the old file replaced. */
    char err[sizeof d->message];
    if (atomic_file_commit(&b->out, err, sizeof err) != 0) {
        fail(d, "%s", err);
        pk_builder_abort(b);
        return -1;
    }

    pk_build_stats *s = &b->stats;
    s->objects = b->object_count;
    s->instances = b->instance_count;
    s->chunks = b->chunk_count;
    s->file_size = h.file_size;
    s->ratio = s->bytes_stored > 0 ? (double)s->bytes_raw / (double)s->bytes_stored : 0.0;
    s->page_fill = s->chunks > 0 ? (double)s->bytes_raw / ((double)s->chunks * b->opt.page_size) : 0.0;
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
