/* SPDX-License-Identifier: MIT */
/* The pack builder (tools/pack): packs built from meshes made here are read
 * back byte by byte with sluice/pack_format.h alone (header, layout,
 * checksums, every chunk decoded and walked, every LOD's spans), level 0 is
 * compared with the input, and the reference reader (runtime/src/pack.c)
 * must accept every pack and every chunk as well. */
#define _POSIX_C_SOURCE 200809L
#define _FILE_OFFSET_BITS 64 /* 32-bit readdir fails (EOVERFLOW) on 64-bit inode numbers without it */
#include <math.h>
#include <unistd.h>
#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>

#include <lz4.h>
#include <meshoptimizer.h>
#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

#include "builder.h"
#include "pack_decode.h" /* stride_of, decode_vertex: the format's vertex decoding */
#include "synth.h"
#include "test_util.h"

/* --- test meshes --------------------------------------------------------- */

/* An n x n cell heightfield over integer x and z (shifted by ox, oz): every
 * vertex has its own (x, z), so a decoded vertex names its input vertex. */
static void make_grid(pk_mesh *m, uint32_t n, int normals, int uvs, float ox, float oz, const char *name)
{
    memset(m, 0, sizeof *m);
    snprintf(m->name, sizeof m->name, "%s", name);
    uint32_t side = n + 1;
    m->vertex_count = side * side;
    m->positions = malloc((size_t)m->vertex_count * 3 * sizeof(float));
    m->normals = normals ? malloc((size_t)m->vertex_count * 3 * sizeof(float)) : NULL;
    m->uvs = uvs ? malloc((size_t)m->vertex_count * 2 * sizeof(float)) : NULL;
    m->index_count = n * n * 6;
    m->indices = malloc((size_t)m->index_count * sizeof(uint32_t));
    assert_non_null(m->positions);
    assert_non_null(m->indices);
    for (uint32_t z = 0; z < side; z++) {
        for (uint32_t x = 0; x < side; x++) {
            uint32_t i = z * side + x;
            float fx = (float)x, fz = (float)z;
            float h = 2.0f * sinf(fx * 0.3f) * cosf(fz * 0.2f);
            m->positions[i * 3 + 0] = fx + ox;
            m->positions[i * 3 + 1] = h;
            m->positions[i * 3 + 2] = fz + oz;
            if (normals) {
                float dx = 0.6f * cosf(fx * 0.3f) * cosf(fz * 0.2f), dz = -0.4f * sinf(fx * 0.3f) * sinf(fz * 0.2f);
                float l = sqrtf(dx * dx + 1.0f + dz * dz);
                m->normals[i * 3 + 0] = -dx / l;
                m->normals[i * 3 + 1] = 1.0f / l;
                m->normals[i * 3 + 2] = -dz / l;
            }
            if (uvs) {
                m->uvs[i * 2 + 0] = fx / (float)n;
                m->uvs[i * 2 + 1] = 1.0f - fz / (float)n;
            }
        }
    }
    uint32_t *t = m->indices;
    for (uint32_t z = 0; z < n; z++) {
        for (uint32_t x = 0; x < n; x++) {
            uint32_t a = z * side + x, b = a + 1, c = a + side, d = c + 1;
            *t++ = a, *t++ = c, *t++ = b; /* counter-clockwise seen from +y */
            *t++ = b, *t++ = c, *t++ = d;
        }
    }
}

/* copies of one small patch, all in the same place (k x (6 x 6 vertices)). */
static void make_coincident_patches(pk_mesh *m, uint32_t copies)
{
    pk_mesh g;
    make_grid(&g, 5, 0, 0, 0.0f, 0.0f, "patch");
    memset(m, 0, sizeof *m);
    snprintf(m->name, sizeof m->name, "patches");
    m->vertex_count = g.vertex_count * copies;
    m->index_count = g.index_count * copies;
    m->positions = malloc((size_t)m->vertex_count * 3 * sizeof(float));
    m->indices = malloc((size_t)m->index_count * sizeof(uint32_t));
    for (uint32_t c = 0; c < copies; c++) {
        memcpy(m->positions + (size_t)c * g.vertex_count * 3, g.positions, (size_t)g.vertex_count * 3 * sizeof(float));
        for (uint32_t i = 0; i < g.index_count; i++) {
            m->indices[c * g.index_count + i] = g.indices[i] + c * g.vertex_count;
        }
    }
    pk_mesh_free(&g);
}

static char path_buf[8][256];
static const char *temp_path(int slot)
{
    snprintf(path_buf[slot], sizeof path_buf[slot], "/tmp/test_pack_builder_%ld_%d.pack", (long)getpid(), slot);
    return path_buf[slot];
}

/* --- reading a pack with pack_format.h alone ------------------------------ */

typedef struct parsed {
    unsigned char *file;
    size_t size;
    slc_pack_header h;
    const slc_pack_chunk *chunks;
    const slc_pack_object *objects;
    const slc_pack_lod *lods;
    const slc_pack_span *spans;
    const slc_pack_instance *instances;
    const char *strings;
    unsigned char **decoded; /* per chunk */
} parsed;

static void parsed_free(parsed *p)
{
    for (uint32_t i = 0; p->decoded != NULL && i < p->h.chunk_count; i++) {
        free(p->decoded[i]);
    }
    free(p->decoded);
    free(p->file);
    memset(p, 0, sizeof *p);
}

static unsigned char *read_all(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *size = (size_t)n;
    return buf;
}

static uint64_t xxh3_pair(const void *a, size_t an, const void *b, size_t bn)
{
    XXH3_state_t st;
    XXH3_64bits_reset(&st);
    XXH3_64bits_update(&st, a, an);
    XXH3_64bits_update(&st, b, bn);
    return XXH3_64bits_digest(&st);
}

static int all_zero(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (p[i] != 0) {
            return 0;
        }
    }
    return 1;
}

static const slc_pack_cluster *cluster_at(const parsed *p, uint32_t chunk, uint32_t i)
{
    return pack_cluster_at(p->decoded[chunk], i);
}

/* The reference reader opens the pack and loads and checks every chunk. */
static void reference_reader_accepts(const parsed *p)
{
    slc_profile limits;
    memset(&limits, 0, sizeof limits);
    limits.page_size = p->h.page_size;
    limits.max_chunks = p->h.chunk_count;
    limits.max_objects = p->h.object_count;
    limits.max_lods = SLC_LODS_MAX;
    limits.max_string_bytes = p->h.string_size;
    size_t cap = SLC_ARENA_FOOTPRINT(p->size + 4096);
    cap = (cap + SLC_ARENA_ALIGN - 1) / SLC_ARENA_ALIGN * SLC_ARENA_ALIGN;
    void *mem = aligned_alloc(SLC_ARENA_ALIGN, cap);
    assert_non_null(mem);
    slc_arena *meta = NULL;
    assert_int_equal(slc_arena_init(mem, cap, NULL, (slc_budget_id){0}, &meta), SLC_OK);
    capture_log logged;
    slc_logger log = capture_logger(&logged);
    slc_io io;
    slc_io_from_memory(p->file, p->size, &io);
    slc_pack *pk = NULL;
    slc_status s = slc_pack_open(&io, "built.pack", &limits, meta, &log, &pk);
    int unbuilt = 0; /* a forced meshopt codec under SLUICE_CODEC_MESHOPT=OFF */
    for (uint32_t c = 0; c < p->h.chunk_count; c++) {
        unbuilt |= !slc_pack_codec_is_built(p->chunks[c].codec);
    }
    if (unbuilt) {
        assert_int_equal(s, SLC_E_PACK_VERSION);
        assert_non_null(strstr(logged.message, "is not built into this reader (SLUICE_CODEC_MESHOPT=OFF)"));
        free(mem);
        return;
    }
    if (s != SLC_OK) {
        fail_msg("reference reader: %s: %s", slc_status_name(s), logged.message);
    }
    unsigned char *page = malloc(p->h.page_size);
    assert_non_null(page);
    size_t scratch_size = slc_pack_scratch_size(pk); /* the meshopt codecs' */
    unsigned char *scratch = malloc(scratch_size + 1);
    assert_non_null(scratch);
    for (uint32_t c = 0; c < p->h.chunk_count; c++) {
        s = slc_pack_load_chunk(pk, (slc_chunk_id){c}, page, p->h.page_size, scratch, scratch_size);
        if (s == SLC_OK) {
            s = slc_pack_check_chunk(pk, (slc_chunk_id){c}, page);
        }
        if (s != SLC_OK) {
            fail_msg("reference reader, chunk %u: %s: %s", c, slc_status_name(s), logged.message);
        }
        /* the runtime's decode is the specification's, whatever the codec */
        assert_memory_equal(page, p->decoded[c], p->chunks[c].decoded_size);
    }
    free(scratch);
    free(page);
    slc_pack_close(pk);
    free(mem);
}

/* Reads path and checks everything the format and the builder promise. */
/* A meshopt stream decoded as docs/pack-format.md says, independently of
 * the runtime's decoder: the header and records as they are, then per
 * cluster its two sizes, its vertices and its triangles (canonical
 * rotation); every padding byte zero. */
static void spec_meshopt_decode(const parsed *p, const unsigned char *m, size_t size, unsigned char *dec,
                                uint32_t decoded)
{
    slc_pack_chunk_header ch;
    assert_true(size >= sizeof ch);
    memcpy(&ch, m, sizeof ch);
    size_t head = sizeof ch + (size_t)ch.cluster_count * sizeof(slc_pack_cluster);
    assert_true(head <= size && head <= decoded);
    memset(dec, 0, decoded);
    memcpy(dec, m, head);
    size_t pos = head;
    for (uint32_t i = 0; i < ch.cluster_count; i++) {
        slc_pack_cluster cl;
        memcpy(&cl, m + sizeof ch + (size_t)i * sizeof cl, sizeof cl);
        uint32_t stride = p->objects[cl.object].vertex_stride;
        assert_true(cl.index_offset == cl.vertex_offset + cl.vertex_count * stride);
        assert_true(cl.index_offset + cl.triangle_count * 3u <= decoded);
        slc_pack_meshopt_cluster mc;
        assert_true(pos + sizeof mc <= size);
        memcpy(&mc, m + pos, sizeof mc);
        pos += sizeof mc;
        assert_true(pos + mc.vertex_bytes + mc.index_bytes <= size);
        assert_int_equal(
            meshopt_decodeVertexBuffer(dec + cl.vertex_offset, cl.vertex_count, stride, m + pos, mc.vertex_bytes), 0);
        pos += mc.vertex_bytes;
        unsigned short idx[SLC_PACK_MESHOPT_MAX_TRIANGLES * 3];
        assert_true(cl.triangle_count <= SLC_PACK_MESHOPT_MAX_TRIANGLES);
        assert_int_equal(meshopt_decodeIndexBuffer(idx, cl.triangle_count * 3u, 2, m + pos, mc.index_bytes), 0);
        pos += mc.index_bytes;
        for (uint32_t t = 0; t < cl.triangle_count; t++) {
            /* the rotation smallest as a tuple: lowest first, winding kept */
            unsigned r[3][3] = {{idx[3 * t], idx[3 * t + 1], idx[3 * t + 2]},
                                {idx[3 * t + 1], idx[3 * t + 2], idx[3 * t]},
                                {idx[3 * t + 2], idx[3 * t], idx[3 * t + 1]}};
            int best = 0;
            for (int k = 1; k < 3; k++) {
                int less = r[k][0] != r[best][0]   ? r[k][0] < r[best][0]
                           : r[k][1] != r[best][1] ? r[k][1] < r[best][1]
                                                   : r[k][2] < r[best][2];
                best = less ? k : best;
            }
            unsigned a = r[best][0], b = r[best][1], c = r[best][2];
            dec[cl.index_offset + 3 * t] = (unsigned char)a;
            dec[cl.index_offset + 3 * t + 1] = (unsigned char)b;
            dec[cl.index_offset + 3 * t + 2] = (unsigned char)c;
        }
    }
    assert_int_equal(pos, size);
}

static void check_pack(const char *path, parsed *p)
{
    memset(p, 0, sizeof *p);
    p->file = read_all(path, &p->size);
    assert_true(p->size >= sizeof(slc_pack_header));
    memcpy(&p->h, p->file, sizeof p->h);
    const slc_pack_header *h = &p->h;

    /* Header. */
    assert_memory_equal(h->magic, SLC_PACK_MAGIC, SLC_PACK_MAGIC_SIZE);
    assert_int_equal(h->version_major, SLC_PACK_VERSION_MAJOR);
    /* 1.2: every object's last level says why its chain ends (the meshopt
     * codecs of 1.1 are checked per chunk below) */
    assert_int_equal(h->version_minor, 2);
    assert_int_equal(h->header_size, 160);
    assert_int_equal(h->required_features, 0);
    assert_int_equal(h->section_count, 0);
    assert_int_equal(h->section_offset, 0);
    assert_true(h->page_size >= 4096 && h->page_size <= (64u << 20) && (h->page_size & (h->page_size - 1)) == 0);
    assert_int_equal(h->file_size, p->size);
    assert_int_equal(h->header_xxh3, XXH3_64bits(p->file, 152));

    /* Layout: payloads, then the tables in order, 8-aligned, zero padding. */
    const struct {
        uint64_t offset, bytes;
    } t[6] = {
        {h->chunk_offset, (uint64_t)h->chunk_count * sizeof(slc_pack_chunk)},
        {h->object_offset, (uint64_t)h->object_count * sizeof(slc_pack_object)},
        {h->lod_offset, (uint64_t)h->lod_count * sizeof(slc_pack_lod)},
        {h->span_offset, (uint64_t)h->span_count * sizeof(slc_pack_span)},
        {h->instance_offset, (uint64_t)h->instance_count * sizeof(slc_pack_instance)},
        {h->string_offset, h->string_size},
    };
    assert_true(h->chunk_offset >= 160);
    for (int i = 0; i < 6; i++) {
        assert_int_equal(t[i].offset % 8, 0);
        uint64_t end = t[i].offset + t[i].bytes;
        uint64_t next = i < 5 ? t[i + 1].offset : h->file_size;
        assert_true(end <= next && next - end < 8);
        assert_true(all_zero(p->file + end, (size_t)(next - end)));
    }
    p->chunks = (const slc_pack_chunk *)(const void *)(p->file + h->chunk_offset);
    p->objects = (const slc_pack_object *)(const void *)(p->file + h->object_offset);
    p->lods = (const slc_pack_lod *)(const void *)(p->file + h->lod_offset);
    p->spans = (const slc_pack_span *)(const void *)(p->file + h->span_offset);
    p->instances = (const slc_pack_instance *)(const void *)(p->file + h->instance_offset);
    p->strings = (const char *)(p->file + h->string_offset);

    /* Checksums. */
    assert_int_equal(h->chunk_xxh3, XXH3_64bits(p->chunks, (size_t)t[0].bytes));
    assert_int_equal(h->object_xxh3, XXH3_64bits(p->objects, (size_t)t[1].bytes));
    assert_int_equal(h->lod_xxh3, xxh3_pair(p->lods, (size_t)t[2].bytes, p->spans, (size_t)t[3].bytes));
    assert_int_equal(h->instance_xxh3, xxh3_pair(p->instances, (size_t)t[4].bytes, p->strings, (size_t)t[5].bytes));

    /* Strings: "" at 0, NUL at the end. */
    assert_true(h->string_size >= 1);
    assert_int_equal(p->strings[0], '\0');
    assert_int_equal(p->strings[h->string_size - 1], '\0');

    /* Objects: their LODs partition the LOD table, strides match. */
    uint32_t next_lod = 0;
    for (uint32_t o = 0; o < h->object_count; o++) {
        const slc_pack_object *ob = &p->objects[o];
        assert_true(ob->name == SLC_PACK_NO_NAME || ob->name < h->string_size);
        assert_int_equal(ob->first_lod, next_lod);
        assert_true(ob->lod_count >= 1 && ob->lod_count <= SLC_LODS_MAX);
        next_lod += ob->lod_count;
        assert_int_equal(ob->vertex_stride, stride_of(ob->attributes));
        assert_int_equal(ob->reserved, 0);
        assert_true(ob->material != 0 || ob->uv_density == 0.0f); /* density only in a textured pack */
        for (int k = 0; k < 3; k++) {
            assert_true(ob->aabb_min[k] <= ob->aabb_max[k]);
        }
        if (!(ob->attributes & SLC_PACK_ATTR_POS_U16)) {
            for (int k = 0; k < 3; k++) {
                assert_true(ob->pos_offset[k] == 0.0f && ob->pos_scale[k] == 1.0f);
            }
        }
        if (!(ob->attributes & SLC_PACK_ATTR_UV_U16)) {
            for (int k = 0; k < 2; k++) {
                assert_true(ob->uv_offset[k] == 0.0f && ob->uv_scale[k] == 1.0f);
            }
        }
        if (ob->attributes & SLC_PACK_ATTR_POS_U16) {
            assert_true(h->optional_features & SLC_PACK_OPTIONAL_QUANTIZED);
        }
    }
    assert_int_equal(next_lod, h->lod_count);

    /* Chunks: each payload in place, checksummed, decoded, walked. */
    p->decoded = calloc(h->chunk_count + 1u, sizeof *p->decoded);
    unsigned char *covered = calloc(h->chunk_offset, 1); /* bytes of [0, chunk_offset) some payload holds */
    assert_non_null(covered);
    memset(covered, 1, 160);
    uint64_t cluster_total = 0;
    for (uint32_t c = 0; c < h->chunk_count; c++) {
        const slc_pack_chunk *ch = &p->chunks[c];
        assert_int_equal(ch->offset % 8, 0);
        assert_true(ch->offset >= 160 && ch->offset + ch->stored_size <= h->chunk_offset);
        assert_int_equal(ch->xxh3, XXH3_64bits(p->file + ch->offset, ch->stored_size));
        assert_true(ch->decoded_size >= 1 && ch->decoded_size <= h->page_size);
        assert_int_equal(ch->reserved0, 0);
        assert_int_equal(ch->reserved1, 0);
        memset(covered + ch->offset, 1, ch->stored_size);
        unsigned char *dec = malloc(ch->decoded_size);
        assert_non_null(dec);
        p->decoded[c] = dec;
        if (ch->codec == SLC_PACK_CODEC_STORED) {
            assert_int_equal(ch->stored_size, ch->decoded_size);
            memcpy(dec, p->file + ch->offset, ch->stored_size);
        } else if (ch->codec == SLC_PACK_CODEC_LZ4) {
            assert_true(ch->stored_size < ch->decoded_size);
            int got = LZ4_decompress_safe((const char *)p->file + ch->offset, (char *)dec, (int)ch->stored_size,
                                          (int)ch->decoded_size);
            assert_int_equal(got, (int)ch->decoded_size);
        } else if (ch->codec == SLC_PACK_CODEC_MESHOPT) {
            assert_true(h->version_minor >= 1);
            assert_true(ch->stored_size < ch->decoded_size);
            spec_meshopt_decode(p, p->file + ch->offset, ch->stored_size, dec, ch->decoded_size);
        } else {
            assert_int_equal(ch->codec, SLC_PACK_CODEC_MESHOPT_LZ4);
            assert_true(h->version_minor >= 1);
            assert_true(ch->stored_size < ch->decoded_size);
            unsigned char *m = malloc(ch->decoded_size);
            assert_non_null(m);
            int got = LZ4_decompress_safe((const char *)p->file + ch->offset, (char *)m, (int)ch->stored_size,
                                          (int)ch->decoded_size);
            assert_true(got > 0);
            spec_meshopt_decode(p, m, (size_t)got, dec, ch->decoded_size);
            free(m);
        }
        slc_pack_chunk_header chh;
        memcpy(&chh, dec, sizeof chh);
        assert_int_equal(chh.magic, SLC_PACK_CHUNK_MAGIC);
        assert_int_equal(chh.cluster_count, ch->cluster_count);
        assert_int_equal(chh.lod, ch->lod);
        assert_int_equal(chh.reserved, 0);
        assert_true(ch->cluster_count >= 1);
        uint32_t head = (uint32_t)(sizeof chh + ch->cluster_count * sizeof(slc_pack_cluster));
        assert_true(head <= ch->decoded_size);
        uint32_t tris = 0, verts = 0, min_object = UINT32_MAX, end = head;
        for (uint32_t i = 0; i < ch->cluster_count; i++) {
            const slc_pack_cluster *cl = cluster_at(p, c, i);
            assert_true(cl->object < h->object_count);
            const slc_pack_object *ob = &p->objects[cl->object];
            assert_true(ch->lod < ob->lod_count);
            /* COARSEST chunks hold exactly the coarsest levels. */
            assert_int_equal(!!(ch->flags & SLC_PACK_CHUNK_COARSEST), ch->lod + 1u == ob->lod_count);
            assert_true(cl->vertex_count >= 1 && cl->vertex_count <= 255 && cl->triangle_count >= 1);
            assert_int_equal(cl->vertex_offset % 4, 0);
            assert_true(cl->vertex_offset >= end && cl->vertex_offset - end < 4);
            assert_true(all_zero(dec + end, cl->vertex_offset - end));
            assert_int_equal(cl->index_offset, cl->vertex_offset + cl->vertex_count * ob->vertex_stride);
            end = cl->index_offset + cl->triangle_count * 3u;
            assert_true(end <= ch->decoded_size);
            for (uint32_t k = 0; k < cl->triangle_count * 3u; k++) {
                assert_true(dec[cl->index_offset + k] < cl->vertex_count);
            }
            for (uint32_t v = 0; v < cl->vertex_count; v++) { /* padding inside quantized vertices */
                const unsigned char *vx = dec + cl->vertex_offset + v * ob->vertex_stride;
                if (ob->attributes & SLC_PACK_ATTR_POS_U16) {
                    assert_true(vx[6] == 0 && vx[7] == 0);
                }
                if ((ob->attributes & SLC_PACK_ATTR_NORMAL) && (ob->attributes & SLC_PACK_ATTR_NORMAL_OCT8)) {
                    assert_true(vx[8 + 2] == 0 && vx[8 + 3] == 0);
                }
            }
            /* Every vertex inside the object's box, the cluster's sphere and its level's sphere. */
            const slc_pack_lod *lod = &p->lods[ob->first_lod + ch->lod];
            for (uint32_t v = 0; v < cl->vertex_count; v++) {
                float pos[3], nrm[3], uv[2];
                decode_vertex(ob, dec + cl->vertex_offset + v * ob->vertex_stride, pos, nrm, uv);
                float dc = 0.0f, dl = 0.0f;
                for (int k = 0; k < 3; k++) {
                    float eps = 1e-4f * (1.0f + fabsf(ob->aabb_min[k]) + fabsf(ob->aabb_max[k]));
                    assert_true(pos[k] >= ob->aabb_min[k] - eps && pos[k] <= ob->aabb_max[k] + eps);
                    dc += (pos[k] - cl->sphere[k]) * (pos[k] - cl->sphere[k]);
                    dl += (pos[k] - lod->sphere[k]) * (pos[k] - lod->sphere[k]);
                }
                assert_true(sqrtf(dc) <= cl->sphere[3] * 1.0001f + 1e-4f);
                assert_true(sqrtf(dl) <= lod->sphere[3] * 1.0001f + 1e-4f);
            }
            tris += cl->triangle_count;
            verts += cl->vertex_count;
            min_object = cl->object < min_object ? cl->object : min_object;
        }
        assert_int_equal(end, ch->decoded_size);
        assert_int_equal(tris, ch->triangle_count);
        assert_int_equal(verts, ch->vertex_count);
        assert_int_equal(min_object, ch->first_object);
        cluster_total += ch->cluster_count;
    }
    /* Between payloads nothing but zero padding to the next 8-byte boundary. */
    uint64_t run = 0;
    for (uint64_t i = 160; i < h->chunk_offset; i++) {
        run = covered[i] ? 0 : run + 1;
        if (!covered[i]) {
            assert_int_equal(p->file[i], 0);
            assert_true(run < 8);
        }
    }
    free(covered);

    /* LODs and spans: each level's spans select exactly its clusters, each
     * cluster of the pack is selected once. */
    uint8_t **seen = calloc(h->chunk_count + 1u, sizeof *seen);
    for (uint32_t c = 0; c < h->chunk_count; c++) {
        seen[c] = calloc(p->chunks[c].cluster_count, 1);
    }
    uint32_t next_span = 0;
    uint64_t selected = 0;
    for (uint32_t o = 0; o < h->object_count; o++) {
        const slc_pack_object *ob = &p->objects[o];
        float prev_error = 0.0f;
        for (uint32_t l = 0; l < ob->lod_count; l++) {
            const slc_pack_lod *lod = &p->lods[ob->first_lod + l];
            assert_int_equal(lod->first_span, next_span);
            assert_true(lod->span_count >= 1);
            next_span += lod->span_count;
            assert_true(lod->measured_error <= lod->error);
            assert_true(lod->method < SLC_PACK_LOD_METHOD_COUNT && (lod->method == 0) == (l == 0));
            assert_true(lod->chain_end < SLC_PACK_LOD_END_COUNT && (lod->chain_end != 0) == (l + 1 == ob->lod_count));
            if (l == 0) {
                assert_true(lod->error == 0.0f);
            } else {
                assert_true(lod->error >= prev_error);
                assert_true(lod->triangle_count < p->lods[ob->first_lod + l - 1].triangle_count);
            }
            prev_error = lod->error;
            uint32_t tris = 0, verts = 0;
            for (uint32_t s = 0; s < lod->span_count; s++) {
                const slc_pack_span *sp = &p->spans[lod->first_span + s];
                assert_true(sp->chunk < h->chunk_count);
                const slc_pack_chunk *ch = &p->chunks[sp->chunk];
                assert_int_equal(ch->lod, l);
                assert_true(sp->cluster_count >= 1 &&
                            (uint32_t)sp->first_cluster + sp->cluster_count <= ch->cluster_count);
                for (uint32_t i = sp->first_cluster; i < (uint32_t)sp->first_cluster + sp->cluster_count; i++) {
                    const slc_pack_cluster *cl = cluster_at(p, sp->chunk, i);
                    assert_int_equal(cl->object, o);
                    assert_int_equal(seen[sp->chunk][i], 0);
                    seen[sp->chunk][i] = 1;
                    tris += cl->triangle_count;
                    verts += cl->vertex_count;
                    selected++;
                    /* The level's sphere holds the cluster's. */
                    float dx = cl->sphere[0] - lod->sphere[0], dy = cl->sphere[1] - lod->sphere[1];
                    float dz = cl->sphere[2] - lod->sphere[2];
                    assert_true(sqrtf(dx * dx + dy * dy + dz * dz) <= lod->sphere[3] + cl->sphere[3] + 1e-3f);
                }
            }
            assert_int_equal(tris, lod->triangle_count);
            assert_int_equal(verts, lod->vertex_count);
        }
    }
    assert_int_equal(next_span, h->span_count);
    assert_int_equal(selected, cluster_total);
    for (uint32_t c = 0; c < h->chunk_count; c++) {
        free(seen[c]);
    }
    free(seen);

    for (uint32_t i = 0; i < h->instance_count; i++) {
        const slc_pack_instance *in = &p->instances[i];
        assert_true(in->object < h->object_count);
        assert_true(in->name == SLC_PACK_NO_NAME || in->name < h->string_size);
        assert_true(in->reserved[0] == 0 && in->reserved[1] == 0);
    }
    reference_reader_accepts(p);
}

/* --- level 0 against the input ------------------------------------------- */

typedef struct tri3 {
    uint32_t v[3];
} tri3;

/* Rotated so the smallest index comes first: winding kept. */
static tri3 canonical(uint32_t a, uint32_t b, uint32_t c)
{
    tri3 t;
    if (a <= b && a <= c) {
        t.v[0] = a, t.v[1] = b, t.v[2] = c;
    } else if (b <= a && b <= c) {
        t.v[0] = b, t.v[1] = c, t.v[2] = a;
    } else {
        t.v[0] = c, t.v[1] = a, t.v[2] = b;
    }
    return t;
}

static int tri_cmp(const void *x, const void *y)
{
    const tri3 *a = x, *b = y;
    for (int k = 0; k < 3; k++) {
        if (a->v[k] != b->v[k]) {
            return a->v[k] < b->v[k] ? -1 : 1;
        }
    }
    return 0;
}

/* Level 0 of object o holds exactly the grid's triangles, same winding, every
 * vertex within tol of its input (normal: dot >= ndot). */
static void expect_level0_is_grid(const parsed *p, uint32_t o, const pk_mesh *m, uint32_t n, float ox, float oz,
                                  float pos_tol, float ndot, float uv_tol)
{
    const slc_pack_object *ob = &p->objects[o];
    const slc_pack_lod *lod = &p->lods[ob->first_lod];
    assert_int_equal(lod->triangle_count, m->index_count / 3);
    tri3 *got = malloc(sizeof(tri3) * lod->triangle_count);
    tri3 *want = malloc(sizeof(tri3) * lod->triangle_count);
    uint32_t count = 0;
    for (uint32_t s = 0; s < lod->span_count; s++) {
        const slc_pack_span *sp = &p->spans[lod->first_span + s];
        for (uint32_t i = sp->first_cluster; i < (uint32_t)sp->first_cluster + sp->cluster_count; i++) {
            const slc_pack_cluster *cl = cluster_at(p, sp->chunk, i);
            const unsigned char *dec = p->decoded[sp->chunk];
            uint32_t ids[255];
            for (uint32_t v = 0; v < cl->vertex_count; v++) {
                float pos[3], nrm[3] = {0, 0, 0}, uv[2] = {0, 0};
                decode_vertex(ob, dec + cl->vertex_offset + v * ob->vertex_stride, pos, nrm, uv);
                long ix = lrintf(pos[0] - ox), iz = lrintf(pos[2] - oz);
                assert_true(ix >= 0 && ix <= (long)n && iz >= 0 && iz <= (long)n);
                uint32_t id = (uint32_t)iz * (n + 1) + (uint32_t)ix;
                ids[v] = id;
                for (uint32_t k = 0; k < 3; k++) {
                    if (fabsf(pos[k] - m->positions[id * 3 + k]) > pos_tol) {
                        fail_msg("object %u vertex %u: position[%u] %.7g, input %.7g (tolerance %g)", o, id, k,
                                 (double)pos[k], (double)m->positions[id * 3 + k], (double)pos_tol);
                    }
                }
                if (m->normals) {
                    float d = nrm[0] * m->normals[id * 3] + nrm[1] * m->normals[id * 3 + 1] +
                              nrm[2] * m->normals[id * 3 + 2];
                    assert_true(d >= ndot);
                }
                if (m->uvs) {
                    assert_true(fabsf(uv[0] - m->uvs[id * 2]) <= uv_tol);
                    assert_true(fabsf(uv[1] - m->uvs[id * 2 + 1]) <= uv_tol);
                }
            }
            const unsigned char *ix = dec + cl->index_offset;
            for (uint32_t t = 0; t < cl->triangle_count; t++) {
                got[count++] = canonical(ids[ix[t * 3]], ids[ix[t * 3 + 1]], ids[ix[t * 3 + 2]]);
            }
        }
    }
    assert_int_equal(count, lod->triangle_count);
    for (uint32_t t = 0; t < count; t++) {
        want[t] = canonical(m->indices[t * 3], m->indices[t * 3 + 1], m->indices[t * 3 + 2]);
    }
    qsort(got, count, sizeof *got, tri_cmp);
    qsort(want, count, sizeof *want, tri_cmp);
    assert_memory_equal(got, want, count * sizeof *got);
    free(got);
    free(want);
}

/* --- building ------------------------------------------------------------ */

static void build(const char *path, const pk_build_options *opt, pk_mesh *meshes, uint32_t count, uint32_t *objects,
                  pk_build_stats *st)
{
    pk_builder *b = NULL;
    pk_diag d;
    memset(&d, 0, sizeof d);
    if (pk_builder_open(path, opt, &b, &d) != 0) {
        fail_msg("open: %s", d.message);
    }
    for (uint32_t i = 0; i < count; i++) {
        if (pk_builder_add_mesh(b, &meshes[i], &objects[i], &d) != 0) {
            fail_msg("add_mesh %u: %s", i, d.message);
        }
        pk_instance in;
        memset(&in, 0, sizeof in);
        in.mesh = objects[i];
        for (int k = 0; k < 16; k++) {
            in.matrix[k] = k % 5 == 0 ? 1.0f : 0.0f;
        }
        in.matrix[12] = (float)i * 100.0f;
        snprintf(in.name, sizeof in.name, "placed_%u", i);
        assert_int_equal(pk_builder_add_instance(b, &in, &d), 0);
    }
    if (pk_builder_finish(b, st, &d) != 0) {
        fail_msg("finish: %s", d.message);
    }
}

static void test_float_mesh_round_trips_exactly(void **state)
{
    (void)state;
    pk_mesh m;
    make_grid(&m, 64, 1, 1, 10.0f, -20.0f, "terrain");
    uint32_t obj;
    pk_build_stats st;
    const char *path = temp_path(0);
    build(path, NULL, &m, 1, &obj, &st);
    parsed p;
    check_pack(path, &p);
    assert_int_equal(obj, 0);
    assert_int_equal(p.h.object_count, 1);
    assert_int_equal(p.h.instance_count, 1);
    assert_int_equal(p.h.page_size, 65536);
    assert_int_equal(p.h.optional_features, 0);
    const slc_pack_object *ob = &p.objects[0];
    assert_string_equal(p.strings + ob->name, "terrain");
    assert_string_equal(p.strings + p.instances[0].name, "placed_0");
    assert_int_equal(ob->attributes, SLC_PACK_ATTR_NORMAL | SLC_PACK_ATTR_UV);
    assert_int_equal(ob->vertex_stride, 32);
    assert_true(ob->aabb_min[0] == 10.0f && ob->aabb_max[0] == 74.0f);
    assert_true(ob->lod_count >= 4); /* 8192 triangles halve for a while */
    assert_true(p.lods[ob->first_lod + ob->lod_count - 1].error > 0.0f);
    expect_level0_is_grid(&p, 0, &m, 64, 10.0f, -20.0f, 0.0f, 0.99999f, 0.0f);
    assert_int_equal(st.objects, 1);
    assert_int_equal(st.chunks, p.h.chunk_count);
    assert_int_equal(st.triangles_lod0, 8192);
    assert_int_equal(st.file_size, p.size);
    assert_int_equal(st.input_bytes, 65u * 65u * 32u + 8192u * 12u);
    parsed_free(&p);
    pk_mesh_free(&m);
    unlink(path);
}

static void test_quantized_mesh_within_quantization_error(void **state)
{
    (void)state;
    pk_mesh m;
    make_grid(&m, 64, 1, 1, -5.0f, 3.0f, "q");
    pk_build_options o;
    memset(&o, 0, sizeof o);
    o.quantize = 1;
    uint32_t obj;
    pk_build_stats st;
    const char *path = temp_path(0);
    build(path, &o, &m, 1, &obj, &st);
    parsed p;
    check_pack(path, &p);
    assert_int_equal(p.h.optional_features, SLC_PACK_OPTIONAL_QUANTIZED);
    const slc_pack_object *ob = &p.objects[0];
    assert_int_equal(ob->attributes, SLC_PACK_ATTR_NORMAL | SLC_PACK_ATTR_UV | SLC_PACK_ATTR_POS_U16 |
                                         SLC_PACK_ATTR_NORMAL_OCT8 | SLC_PACK_ATTR_UV_U16);
    assert_int_equal(ob->vertex_stride, 16);
    assert_true(ob->pos_offset[0] == -5.0f && ob->pos_scale[0] == 64.0f);
    assert_true(ob->uv_offset[0] == 0.0f && ob->uv_scale[0] == 1.0f);
    /* Half a step of 64 units over 65535, with float slack; octahedral
     * snorm8 keeps normals within about a degree. */
    expect_level0_is_grid(&p, 0, &m, 64, -5.0f, 3.0f, 64.0f / 65535.0f * 0.5f + 1e-5f, 0.9995f,
                          0.5f / 65535.0f + 1e-6f);
    parsed_free(&p);
    pk_mesh_free(&m);
    unlink(path);
}

static void test_small_pages_split_levels_over_chunks(void **state)
{
    (void)state;
    pk_mesh m[3];
    make_grid(&m[0], 40, 0, 0, 0.0f, 0.0f, "a");
    make_grid(&m[1], 30, 1, 0, 100.0f, 0.0f, "");
    make_grid(&m[2], 20, 0, 1, 200.0f, 0.0f, "c");
    pk_build_options o;
    memset(&o, 0, sizeof o);
    o.page_size = 4096;
    o.max_lods = 3;
    o.lz4_level = 1;
    uint32_t obj[3];
    pk_build_stats st;
    const char *path = temp_path(0);
    build(path, &o, m, 3, obj, &st);
    parsed p;
    check_pack(path, &p);
    assert_int_equal(p.h.page_size, 4096);
    assert_int_equal(p.h.object_count, 3);
    assert_int_equal(p.objects[1].name, SLC_PACK_NO_NAME);
    assert_int_equal(p.objects[1].attributes, SLC_PACK_ATTR_NORMAL);
    assert_int_equal(p.objects[2].attributes, SLC_PACK_ATTR_UV);
    for (uint32_t i = 0; i < 3; i++) {
        assert_int_equal(obj[i], i);
        assert_true(p.objects[i].lod_count >= 2 && p.objects[i].lod_count <= 3);
    }
    assert_true(p.lods[0].span_count > 1); /* level 0 of "a" spans several chunks */
    assert_true(p.h.chunk_count > 10);
    expect_level0_is_grid(&p, 0, &m[0], 40, 0.0f, 0.0f, 0.0f, 1.0f, 0.0f);
    expect_level0_is_grid(&p, 1, &m[1], 30, 100.0f, 0.0f, 0.0f, 0.99999f, 0.0f);
    expect_level0_is_grid(&p, 2, &m[2], 20, 200.0f, 0.0f, 0.0f, 1.0f, 0.0f);
    parsed_free(&p);
    for (int i = 0; i < 3; i++) {
        pk_mesh_free(&m[i]);
    }
    unlink(path);
}

static void test_identical_meshes_are_stored_once(void **state)
{
    (void)state;
    pk_mesh m[3];
    make_grid(&m[0], 48, 1, 1, 0.0f, 0.0f, "first");
    make_grid(&m[1], 48, 1, 1, 0.0f, 0.0f, "second, same data");
    make_grid(&m[2], 48, 1, 1, 0.5f, 0.0f, "moved");
    uint32_t obj[3];
    pk_build_stats st;
    const char *path = temp_path(0);
    build(path, NULL, m, 3, obj, &st);
    parsed p;
    check_pack(path, &p);
    assert_int_equal(obj[0], 0);
    assert_int_equal(obj[1], 0); /* the same object */
    assert_int_equal(obj[2], 1);
    assert_int_equal(p.h.object_count, 2);
    assert_int_equal(p.h.instance_count, 3);
    assert_int_equal(p.instances[1].object, 0);
    assert_int_equal(st.meshes, 2);
    assert_int_equal(st.meshes_deduplicated, 1);
    assert_int_equal(st.triangles_lod0, 2u * 48u * 48u * 2u);

    /* The same pack without the duplicate has the same chunks. */
    pk_build_stats one;
    uint32_t obj1[2];
    pk_mesh pair[2] = {m[0], m[2]};
    const char *path1 = temp_path(1);
    build(path1, NULL, pair, 2, obj1, &one);
    assert_int_equal(one.chunks, st.chunks);
    assert_int_equal(one.bytes_stored, st.bytes_stored);
    parsed_free(&p);
    for (int i = 0; i < 3; i++) {
        pk_mesh_free(&m[i]);
    }
    unlink(path);
    unlink(path1);
}

static void test_identical_chunks_are_stored_once(void **state)
{
    (void)state;
    /* Sixty coincident copies of one 36-vertex patch: with clusters of 36
     * vertices each copy is one cluster, so full pages repeat byte for byte. */
    pk_mesh m;
    make_coincident_patches(&m, 60);
    pk_build_options o;
    memset(&o, 0, sizeof o);
    o.page_size = 4096;
    o.max_lods = 1;
    o.max_cluster_vertices = 36;
    uint32_t obj;
    pk_build_stats st;
    const char *path = temp_path(0);
    build(path, &o, &m, 1, &obj, &st);
    parsed p;
    check_pack(path, &p);
    assert_true(st.chunks_deduplicated >= 1);
    uint32_t shared = 0;
    for (uint32_t a = 0; a < p.h.chunk_count; a++) {
        for (uint32_t b = a + 1; b < p.h.chunk_count; b++) {
            if (p.chunks[a].offset == p.chunks[b].offset) {
                assert_int_equal(p.chunks[a].xxh3, p.chunks[b].xxh3);
                assert_memory_equal(p.decoded[a], p.decoded[b], p.chunks[a].decoded_size);
                shared++;
            }
        }
    }
    assert_true(shared >= st.chunks_deduplicated);
    /* Stored bytes count each payload once. */
    uint64_t unique = 0;
    for (uint32_t a = 0; a < p.h.chunk_count; a++) {
        int first = 1;
        for (uint32_t b = 0; b < a; b++) {
            first &= p.chunks[b].offset != p.chunks[a].offset;
        }
        unique += first ? p.chunks[a].stored_size : 0;
    }
    assert_int_equal(unique, st.bytes_stored);
    parsed_free(&p);
    pk_mesh_free(&m);
    unlink(path);
}

static void test_packing_twice_gives_identical_bytes(void **state)
{
    (void)state;
    pk_mesh m[2];
    make_grid(&m[0], 50, 1, 1, 0.0f, 0.0f, "a");
    make_grid(&m[1], 33, 1, 0, 7.0f, 0.0f, "b");
    pk_build_options o;
    memset(&o, 0, sizeof o);
    o.quantize = 1;
    o.page_size = 16384;
    uint32_t obj[2];
    pk_build_stats st;
    const char *a = temp_path(0), *b = temp_path(1);
    build(a, &o, m, 2, obj, &st);
    build(b, &o, m, 2, obj, &st);
    size_t na, nb;
    unsigned char *fa = read_all(a, &na), *fb = read_all(b, &nb);
    assert_int_equal(na, nb);
    assert_memory_equal(fa, fb, na);
    free(fa);
    free(fb);
    for (int i = 0; i < 2; i++) {
        pk_mesh_free(&m[i]);
    }
    unlink(a);
    unlink(b);
}

/* A synthetic city of about 8 MiB, one building at a time as the CLI does. */
static void build_city_with(const char *path, uint64_t size, uint64_t seed, const pk_build_options *opt,
                            pk_build_stats *st);
static void build_city(const char *path, uint64_t size, uint64_t seed, pk_build_stats *st)
{
    build_city_with(path, size, seed, NULL, st);
}

static void build_city_with(const char *path, uint64_t size, uint64_t seed, const pk_build_options *opt,
                            pk_build_stats *st)
{
    pk_synth *s = NULL;
    pk_diag d;
    memset(&d, 0, sizeof d);
    assert_int_equal(pk_synth_open("city", size, seed, &s, &d), 0);
    pk_builder *b = NULL;
    assert_int_equal(pk_builder_open(path, opt, &b, &d), 0);
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
        assert_true(n >= 1 && n <= PK_SYNTH_MAX_INSTANCES);
        for (uint32_t i = 0; i < n; i++) {
            inst[i].mesh = obj;
            assert_int_equal(pk_builder_add_instance(b, &inst[i], &d), 0);
        }
    }
    assert_int_equal(got, 0);
    assert_true(pk_synth_bytes_done(s) >= size);
    pk_synth_close(s);
    assert_int_equal(pk_builder_finish(b, st, &d), 0);
}

/* Each --codec on the same city (float and quantized): the chunks and their
 * decoded bytes are those of the stored pack (check_pack decodes by the
 * specification and through the runtime, and compares the two), each
 * forced codec is used where it is smaller, auto is no larger than lz4 and
 * a second build with auto (every codec tried) is byte-identical. */
static void test_every_codec_decodes_to_the_stored_bytes(void **state)
{
    (void)state;
    for (int quantize = 0; quantize < 2; quantize++) {
        parsed base;
        pk_build_stats st;
        pk_build_options o;
        uint64_t bytes[PK_CODEC_COUNT];
        memset(&o, 0, sizeof o);
        o.quantize = quantize;
        o.codec = PK_CODEC_STORED;
        build_city_with(temp_path(0), 1u << 19, 3, &o, &st);
        check_pack(temp_path(0), &base);
        assert_int_equal(base.h.version_minor, 2);
        assert_int_equal(st.chunks_codec[SLC_PACK_CODEC_STORED], st.chunks);
        bytes[PK_CODEC_STORED] = st.bytes_stored;
        for (int c = PK_CODEC_LZ4; c <= PK_CODEC_MESHOPT_LZ4 + 1; c++) {
            o.codec = c == PK_CODEC_MESHOPT_LZ4 + 1 ? PK_CODEC_AUTO : (pk_codec)c;
            parsed p;
            build_city_with(temp_path(1), 1u << 19, 3, &o, &st);
            check_pack(temp_path(1), &p);
            assert_int_equal(p.h.chunk_count, base.h.chunk_count);
            for (uint32_t k = 0; k < p.h.chunk_count; k++) {
                assert_int_equal(p.chunks[k].decoded_size, base.chunks[k].decoded_size);
                assert_memory_equal(p.decoded[k], base.decoded[k], base.chunks[k].decoded_size);
            }
            bytes[o.codec] = st.bytes_stored;
            uint32_t forced = o.codec == PK_CODEC_LZ4           ? SLC_PACK_CODEC_LZ4
                              : o.codec == PK_CODEC_MESHOPT     ? SLC_PACK_CODEC_MESHOPT
                              : o.codec == PK_CODEC_MESHOPT_LZ4 ? SLC_PACK_CODEC_MESHOPT_LZ4
                                                                : UINT32_MAX;
            if (forced != UINT32_MAX) {
                assert_int_equal(st.chunks_codec[forced] + st.chunks_codec[SLC_PACK_CODEC_STORED], st.chunks);
                assert_true(st.chunks_codec[forced] > 0);
            }
            assert_int_equal(p.h.version_minor, 2);
            if (o.codec == PK_CODEC_AUTO) { /* auto tries every codec on each page: built twice, the same bytes */
                size_t n1, n2;
                unsigned char *f1 = read_all(temp_path(1), &n1);
                build_city_with(temp_path(2), 1u << 19, 3, &o, &st);
                unsigned char *f2 = read_all(temp_path(2), &n2);
                assert_int_equal(n1, n2);
                assert_memory_equal(f1, f2, n1);
                free(f1);
                free(f2);
            }
            parsed_free(&p);
        }
        print_message("city 512 KiB%s: stored %llu, lz4 %llu, meshopt %llu, meshopt-lz4 %llu, auto %llu bytes\n",
                      quantize ? " quantized" : "", (unsigned long long)bytes[PK_CODEC_STORED],
                      (unsigned long long)bytes[PK_CODEC_LZ4], (unsigned long long)bytes[PK_CODEC_MESHOPT],
                      (unsigned long long)bytes[PK_CODEC_MESHOPT_LZ4], (unsigned long long)bytes[PK_CODEC_AUTO]);
        assert_true(bytes[PK_CODEC_AUTO] <= bytes[PK_CODEC_LZ4]);
        parsed_free(&base);
    }
    unlink(temp_path(0));
    unlink(temp_path(1));
    unlink(temp_path(2));
}

static void test_city_pages_are_well_filled(void **state)
{
    (void)state;
    const char *path = temp_path(0);
    pk_build_stats st;
    build_city(path, 8u << 20, 1, &st);
    parsed p;
    check_pack(path, &p);
    printf("city 8 MiB, seed 1: %u objects, %u instances, %u chunks, fill %.3f, ratio %.3f\n", st.objects, st.instances,
           st.chunks, st.page_fill, st.ratio);
    assert_true(st.page_fill >= 0.9);
    assert_true(st.ratio > 1.1); /* structured float data: compressible, not trivially */
    assert_true(st.instances > st.objects);
    assert_true(st.input_bytes >= 8u << 20);
    uint64_t raw = 0, tris = 0;
    for (uint32_t c = 0; c < p.h.chunk_count; c++) {
        raw += p.chunks[c].decoded_size;
        tris += p.chunks[c].triangle_count;
    }
    assert_int_equal(raw, st.bytes_raw);
    assert_int_equal(tris, st.triangles_all);
    /* Buildings give simplification work: a coarser level each, most of
     * them several (a chain ends where no level lies within the error cap,
     * as two of these do after their first). */
    uint32_t several = 0;
    for (uint32_t o = 0; o < p.h.object_count; o++) {
        assert_true(p.objects[o].lod_count >= 2);
        several += p.objects[o].lod_count >= 3;
        assert_true(p.lods[p.objects[o].first_lod].triangle_count >= 1000);
    }
    assert_true(several * 4 >= p.h.object_count * 3);
    parsed_free(&p);

    /* Another seed gives another city (the same seed the same file:
     * test_every_codec_decodes_to_the_stored_bytes builds a city twice). */
    const char *again = temp_path(1);
    pk_build_stats st2;
    build_city(again, 2u << 20, 2, &st2);
    size_t na, nb;
    unsigned char *fa = read_all(path, &na), *fb = read_all(again, &nb);
    assert_true(nb != na || memcmp(fa, fb, na) != 0);
    free(fa);
    free(fb);
    unlink(path);
    unlink(again);
}

static void test_rejects_bad_options(void **state)
{
    (void)state;
    const struct {
        pk_build_options o;
        const char *message;
    } cases[] = {
        {{.page_size = 12288}, "page size 12288 is not a power of two from 4096 to 67108864 bytes"},
        {{.page_size = 2048}, "page size 2048 is not a power of two from 4096 to 67108864 bytes"},
        {{.lz4_level = 13}, "LZ4 level 13 is not from 1 to 12"},
        {{.max_lods = 17}, "max LODs 17 is more than 16"},
        {{.quantize = 2}, "quantize is 2, not 0 or 1"},
        {{.stored_ratio_threshold = 0.5}, "stored ratio threshold 0.5 is not a finite number >= 1"},
        {{.max_cluster_vertices = 256}, "cluster vertex limit 256 is not from 3 to 255"},
        {{.max_cluster_triangles = 513}, "cluster triangle limit 513 is not from 4 to 512"},
        {{.codec = PK_CODEC_COUNT}, "codec 5 is not one of auto, stored, lz4, meshopt, meshopt-lz4"},
    };
    const char *path = temp_path(0);
    unlink(path);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pk_builder *b = (pk_builder *)1;
        pk_diag d;
        memset(&d, 0, sizeof d);
        assert_int_equal(pk_builder_open(path, &cases[i].o, &b, &d), -1);
        assert_null(b);
        assert_string_equal(d.message, cases[i].message);
        assert_int_equal(access(path, F_OK), -1); /* nothing created */
    }
    /* Big clusters shrink until one fits a small page. */
    pk_build_options o = {.page_size = 4096, .max_cluster_vertices = 255, .max_cluster_triangles = 512}, r;
    pk_diag d;
    assert_int_equal(pk_build_options_resolve(&o, &r, &d), 0);
    assert_true(16 + 32 + r.max_cluster_vertices * 32 + r.max_cluster_triangles * 3 <= 4096);
    assert_int_equal(r.max_cluster_triangles % 4, 0);
    assert_int_equal(pk_build_options_resolve(NULL, &r, &d), 0);
    assert_int_equal(r.page_size, 65536);
    assert_int_equal(r.lz4_level, 9);
    assert_int_equal(r.max_lods, 8);
    assert_true(r.stored_ratio_threshold == 1.1);
    assert_int_equal(r.max_cluster_vertices, 64);
    assert_int_equal(r.max_cluster_triangles, 124);
    /* A file that cannot be created. */
    pk_builder *b = NULL;
    assert_int_equal(pk_builder_open("/no-such-dir/x.pack", NULL, &b, &d), -1);
    assert_string_equal(d.message, "/no-such-dir/x.pack: cannot create temporary '/no-such-dir/.x.pack.XXXXXX': "
                                   "No such file or directory");
}

/* How the tests below end: the pack at path is valid and holds one
 * object; then m is freed and the pack removed. */
static void check_one_object_and_remove(const char *path, pk_mesh *m)
{
    parsed p;
    check_pack(path, &p);
    assert_int_equal(p.h.object_count, 1);
    parsed_free(&p);
    pk_mesh_free(m);
    unlink(path);
}

static void test_rejects_bad_meshes_and_stays_usable(void **state)
{
    (void)state;
    const char *path = temp_path(0);
    pk_builder *b = NULL;
    pk_diag d;
    assert_int_equal(pk_builder_open(path, NULL, &b, &d), 0);
    pk_mesh m;
    make_grid(&m, 4, 0, 0, 0.0f, 0.0f, "bad");
    uint32_t obj = 77;
    m.indices[7] = m.vertex_count;
    assert_int_equal(pk_builder_add_mesh(b, &m, &obj, &d), -1);
    assert_string_equal(d.message, "mesh 'bad' (0): index 25 at position 7 is out of range (25 vertices)");
    m.indices[7] = 0;
    m.index_count -= 1;
    assert_int_equal(pk_builder_add_mesh(b, &m, &obj, &d), -1);
    assert_string_equal(d.message, "mesh 'bad' (0): 95 indices is not a multiple of 3");
    m.index_count += 1;
    m.positions[3 * 5 + 1] = NAN;
    assert_int_equal(pk_builder_add_mesh(b, &m, &obj, &d), -1);
    assert_string_equal(d.message, "mesh 'bad' (0): position of vertex 5 is not a finite number");
    m.positions[3 * 5 + 1] = 0.0f;
    uint32_t ic = m.index_count;
    m.index_count = 0;
    m.name[0] = '\0';
    assert_int_equal(pk_builder_add_mesh(b, &m, &obj, &d), -1);
    assert_string_equal(d.message, "mesh 0: no triangles");
    m.index_count = ic;
    assert_int_equal(obj, 77);
    pk_instance in;
    memset(&in, 0, sizeof in);
    in.mesh = 0;
    assert_int_equal(pk_builder_add_instance(b, &in, &d), -1);
    assert_string_equal(d.message, "instance 0: object 0 does not exist (0 objects)");
    /* Still usable: a good mesh goes in and the pack is valid. */
    assert_int_equal(pk_builder_add_mesh(b, &m, &obj, &d), 0);
    assert_int_equal(obj, 0);
    assert_int_equal(pk_builder_add_instance(b, &in, &d), 0);
    pk_build_stats st;
    assert_int_equal(pk_builder_finish(b, &st, &d), 0);
    check_one_object_and_remove(path, &m);
}

/* The build goes to a temporary beside the target: an existing file stays
 * byte for byte as it was until finish renames the new pack over it, and
 * abort removes only the temporary. */
static void test_abort_removes_the_temporary_and_keeps_the_old_file(void **state)
{
    (void)state;
    const char *path = temp_path(0);
    static const char old[] = "an earlier pack";
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(old, 1, sizeof old, f), sizeof old);
    assert_int_equal(fclose(f), 0);
    pk_builder *b = NULL;
    pk_diag d;
    assert_int_equal(pk_builder_open(path, NULL, &b, &d), 0);
    pk_mesh m;
    make_grid(&m, 80, 1, 1, 0.0f, 0.0f, "big");
    uint32_t obj;
    assert_int_equal(pk_builder_add_mesh(b, &m, &obj, &d), 0);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_size, sizeof old); /* chunks went elsewhere */
    pk_builder_abort(b);
    char back[64];
    f = fopen(path, "rb");
    assert_non_null(f);
    assert_int_equal(fread(back, 1, sizeof back, f), sizeof old);
    assert_int_equal(fclose(f), 0);
    assert_memory_equal(back, old, sizeof old);
    pk_builder_abort(NULL);
    /* Finish replaces it. */
    assert_int_equal(pk_builder_open(path, NULL, &b, &d), 0);
    assert_int_equal(pk_builder_add_mesh(b, &m, &obj, &d), 0);
    assert_int_equal(pk_builder_finish(b, NULL, &d), 0);
    check_one_object_and_remove(path, &m);
}

/* The rename at the end of finish fails (the target became a directory
 * meanwhile): finish fails naming the target and the reason, and no
 * temporary is left. */
static void test_finish_that_cannot_rename_fails_and_leaves_no_temporary(void **state)
{
    (void)state;
    const char *path = temp_path(0);
    pk_builder *b = NULL;
    pk_diag d;
    assert_int_equal(pk_builder_open(path, NULL, &b, &d), 0);
    pk_mesh m;
    make_grid(&m, 8, 0, 0, 0.0f, 0.0f, "small");
    uint32_t obj;
    assert_int_equal(pk_builder_add_mesh(b, &m, &obj, &d), 0);
    assert_int_equal(mkdir(path, 0700), 0);
    assert_int_equal(pk_builder_finish(b, NULL, &d), -1);
    char want[512];
    snprintf(want, sizeof want, "%s: cannot write: %s", path, strerror(EISDIR));
    assert_string_equal(d.message, want);
    assert_int_equal(rmdir(path), 0);
    /* No ".test_pack_builder_PID_0.pack.XXXXXX" beside it. */
    char tmp_glob[300];
    snprintf(tmp_glob, sizeof tmp_glob, "/tmp/.test_pack_builder_%ld_0.pack.", (long)getpid());
    DIR *dir = opendir("/tmp");
    assert_non_null(dir);
    struct dirent *e;
    errno = 0;
    while ((e = readdir(dir)) != NULL) {
        assert_true(strncmp(e->d_name, tmp_glob + 5, strlen(tmp_glob + 5)) != 0);
    }
    assert_int_equal(errno, 0); /* the whole directory was read */
    closedir(dir);
    pk_mesh_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_float_mesh_round_trips_exactly),
        cmocka_unit_test(test_quantized_mesh_within_quantization_error),
        cmocka_unit_test(test_small_pages_split_levels_over_chunks),
        cmocka_unit_test(test_identical_meshes_are_stored_once),
        cmocka_unit_test(test_identical_chunks_are_stored_once),
        cmocka_unit_test(test_packing_twice_gives_identical_bytes),
        cmocka_unit_test(test_city_pages_are_well_filled),
        cmocka_unit_test(test_every_codec_decodes_to_the_stored_bytes),
        cmocka_unit_test(test_rejects_bad_options),
        cmocka_unit_test(test_rejects_bad_meshes_and_stays_usable),
        cmocka_unit_test(test_abort_removes_the_temporary_and_keeps_the_old_file),
        cmocka_unit_test(test_finish_that_cannot_rename_fails_and_leaves_no_temporary),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
