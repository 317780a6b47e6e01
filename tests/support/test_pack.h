/* SPDX-License-Identifier: MIT */
/* A small pack written by hand, byte by byte from sluice/pack_format.h, for
 * the reader's tests: the runtime's tests do not depend on the packer. */
#ifndef SLUICE_TEST_PACK_H
#define SLUICE_TEST_PACK_H

#define XXH_STATIC_LINKING_ONLY
#include <lz4.h>
#include <xxhash.h>

#include "test_util.h"

#define TP_PAGE 4096u
#define TP_CHUNKS 3u
#define TP_OBJECTS 2u
#define TP_LODS 4u
#define TP_SPANS 4u
#define TP_INSTANCES 3u

static inline uint64_t slc__test_align(uint64_t x)
{
    return (x + 7) & ~(uint64_t)7;
}

typedef struct test_pack {
    unsigned char *data;
    size_t size;
    unsigned char decoded[TP_CHUNKS][TP_PAGE]; /* what each chunk decodes to */
    uint32_t decoded_size[TP_CHUNKS];
} test_pack;

static inline slc_pack_header *tp_header(test_pack *t)
{
    return (slc_pack_header *)(void *)t->data;
}

static inline void *tp_at(test_pack *t, uint64_t offset)
{
    return t->data + offset;
}

/* Reader limits that take a test pack: TP_PAGE pages, room for every table. */
static inline void tp_limits(slc_profile *limits)
{
    memset(limits, 0, sizeof *limits);
    limits->page_size = TP_PAGE;
    limits->max_chunks = 100;
    limits->max_objects = 100;
    limits->max_lods = 8;
    limits->max_string_bytes = 1024;
}

/* Recomputes every table checksum and the header checksum, so a test can
 * change a record and reach the checks behind the checksums. */
static inline void tp_reseal(test_pack *t)
{
    slc_pack_header *h = tp_header(t);
    XXH3_state_t st;
    h->chunk_xxh3 = XXH3_64bits(tp_at(t, h->chunk_offset), (size_t)h->chunk_count * sizeof(slc_pack_chunk));
    h->object_xxh3 = XXH3_64bits(tp_at(t, h->object_offset), (size_t)h->object_count * sizeof(slc_pack_object));
    XXH3_64bits_reset(&st);
    XXH3_64bits_update(&st, tp_at(t, h->lod_offset), (size_t)h->lod_count * sizeof(slc_pack_lod));
    XXH3_64bits_update(&st, tp_at(t, h->span_offset), (size_t)h->span_count * sizeof(slc_pack_span));
    h->lod_xxh3 = XXH3_64bits_digest(&st);
    XXH3_64bits_reset(&st);
    XXH3_64bits_update(&st, tp_at(t, h->instance_offset), (size_t)h->instance_count * sizeof(slc_pack_instance));
    XXH3_64bits_update(&st, tp_at(t, h->string_offset), h->string_size);
    h->instance_xxh3 = XXH3_64bits_digest(&st);
    h->header_xxh3 = XXH3_64bits(h, offsetof(slc_pack_header, header_xxh3));
}

/* Recomputes only the header checksum (for changes the reader must catch
 * before it reads the tables). */
static inline void tp_reseal_header(test_pack *t)
{
    slc_pack_header *h = tp_header(t);
    h->header_xxh3 = XXH3_64bits(h, offsetof(slc_pack_header, header_xxh3));
}

static inline slc_pack_chunk *tp_chunk(test_pack *t, uint32_t i)
{
    return (slc_pack_chunk *)tp_at(t, tp_header(t)->chunk_offset) + i;
}

/* A valid decoded chunk: header, two clusters of object `object` (3 and 4
 * vertices of 24 bytes, 1 and 2 triangles), then structured filler. */
static inline void tp_fill_chunk(unsigned char *b, uint32_t lod, uint32_t object)
{
    slc_pack_chunk_header ch = {SLC_PACK_CHUNK_MAGIC, 2, lod, 0};
    memcpy(b, &ch, sizeof ch);
    slc_pack_cluster cl[2] = {{object, 80, 152, 3, 1, {0, 0, 0, 1}}, {object, 156, 252, 4, 2, {1, 0, 0, 1}}};
    memcpy(b + 16, cl, sizeof cl);
    for (int v = 0; v < 7; v++) {
        float f[6] = {(float)v, (float)(v * 2), 0.5f, 0, 0, 1};
        memcpy(b + (v < 3 ? 80 + 24 * v : 156 + 24 * (v - 3)), f, sizeof f);
    }
    const unsigned char tri[9] = {0, 1, 2, 0, 1, 2, 0, 2, 3};
    memcpy(b + 152, tri, 3);
    memcpy(b + 252, tri + 3, 6);
}

/* Chunk 0 stored raw, chunks 1 and 2 LZ4; object "box" with 2 LODs, object
 * "tree" with 2 LODs; 3 instances. */
static inline void tp_build(test_pack *t)
{
    memset(t, 0, sizeof *t);
    const uint32_t sizes[TP_CHUNKS] = {1000, TP_PAGE, 2500};
    for (uint32_t c = 0; c < TP_CHUNKS; c++) {
        t->decoded_size[c] = sizes[c];
        for (uint32_t i = 0; i < sizes[c]; i++) {
            /* Structured, compressible, different per chunk. */
            t->decoded[c][i] = (unsigned char)((i / 7) * (c + 3) + (i % 5 == 0 ? c : 0));
        }
        tp_fill_chunk(t->decoded[c], c == 0 ? 0 : 1, c == 2 ? 1 : 0);
    }
    size_t cap = 1 << 16;
    t->data = calloc(1, cap);
    slc_pack_header h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, SLC_PACK_MAGIC, SLC_PACK_MAGIC_SIZE);
    h.version_major = SLC_PACK_VERSION_MAJOR;
    h.version_minor = SLC_PACK_VERSION_MINOR;
    h.header_size = sizeof h;
    h.page_size = TP_PAGE;
    size_t at = sizeof h;
    slc_pack_chunk chunks[TP_CHUNKS];
    memset(chunks, 0, sizeof chunks);
    for (uint32_t c = 0; c < TP_CHUNKS; c++) {
        slc_pack_chunk *r = &chunks[c];
        r->offset = at;
        r->decoded_size = sizes[c];
        if (c == 0) {
            r->codec = SLC_PACK_CODEC_STORED;
            memcpy(t->data + at, t->decoded[c], sizes[c]);
            r->stored_size = sizes[c];
        } else {
            r->codec = SLC_PACK_CODEC_LZ4;
            int n = LZ4_compress_default((const char *)t->decoded[c], (char *)t->data + at, (int)sizes[c],
                                         (int)(cap - at));
            assert_true(n > 0);
            r->stored_size = (uint32_t)n;
        }
        r->xxh3 = XXH3_64bits(t->data + at, r->stored_size);
        r->lod = (uint8_t)(c == 0 ? 0 : 1);
        r->flags = c == 0 ? 0 : SLC_PACK_CHUNK_COARSEST;
        r->cluster_count = 2;
        r->triangle_count = 10 * (c + 1);
        r->vertex_count = 12 * (c + 1);
        r->first_object = c == 2 ? 1 : 0;
        at = (size_t)slc__test_align(at + r->stored_size);
    }
    slc_pack_object objects[TP_OBJECTS];
    memset(objects, 0, sizeof objects);
    for (uint32_t o = 0; o < TP_OBJECTS; o++) {
        objects[o].name = o == 0 ? 1 : 5; /* "box", "tree" */
        objects[o].first_lod = 2 * o;
        objects[o].lod_count = 2;
        objects[o].attributes = SLC_PACK_ATTR_NORMAL;
        objects[o].vertex_stride = 24;
        objects[o].pos_scale[0] = objects[o].pos_scale[1] = objects[o].pos_scale[2] = 1.0f;
        objects[o].aabb_max[0] = (float)(o + 1);
    }
    slc_pack_lod lods[TP_LODS];
    memset(lods, 0, sizeof lods);
    for (uint32_t l = 0; l < TP_LODS; l++) {
        lods[l].first_span = l;
        lods[l].span_count = 1;
        lods[l].triangle_count = 10;
        lods[l].error = (float)(l % 2);
    }
    const slc_pack_span spans[TP_SPANS] = {{0, 0, 1}, {1, 0, 2}, {0, 1, 1}, {2, 0, 2}};
    slc_pack_instance inst[TP_INSTANCES];
    memset(inst, 0, sizeof inst);
    for (uint32_t i = 0; i < TP_INSTANCES; i++) {
        inst[i].object = i % 2;
        inst[i].name = i == 2 ? SLC_PACK_NO_NAME : 10; /* "door" */
        inst[i].matrix[0] = inst[i].matrix[5] = inst[i].matrix[10] = inst[i].matrix[15] = 1.0f;
        inst[i].matrix[12] = (float)i;
    }
    static const char strings[] = "\0box\0tree\0door"; /* 15 bytes with the final NUL */
#define TP_PUT(field_offset, field_count, src, bytes)           \
    do {                                                        \
        h.field_offset = at;                                    \
        h.field_count = (uint32_t)((bytes) / sizeof((src)[0])); \
        memcpy(t->data + at, (src), (bytes));                   \
        at = (size_t)slc__test_align(at + (bytes));             \
    } while (0)
    TP_PUT(chunk_offset, chunk_count, chunks, sizeof chunks);
    TP_PUT(object_offset, object_count, objects, sizeof objects);
    TP_PUT(lod_offset, lod_count, lods, sizeof lods);
    TP_PUT(span_offset, span_count, spans, sizeof spans);
    TP_PUT(instance_offset, instance_count, inst, sizeof inst);
    TP_PUT(string_offset, string_size, strings, sizeof strings);
#undef TP_PUT
    h.file_size = at;
    memcpy(t->data, &h, sizeof h);
    t->size = at;
    tp_reseal(t);
}

#endif
