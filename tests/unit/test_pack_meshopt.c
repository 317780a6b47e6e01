/* SPDX-License-Identifier: MIT */
/* The meshopt chunk codecs (2: meshopt, 3: meshopt-lz4) in the reader: a
 * pack written by hand from docs/pack-format.md ("Meshopt stream") with
 * meshoptimizer's encoders, decoded to its bytes through memory and through
 * a read callback; every check of the stream driven, with its status and
 * message; the decoders allocate nothing. Built a second time against a
 * runtime without the codec (test_pack_meshopt_off): the refusal at open. */
#include <meshoptimizer.h>

#include "test_pack.h"

#ifndef SLC_CODEC_MESHOPT
#define SLC_CODEC_MESHOPT 0
#endif

#define MP_PAGE 4096u
#define MP_DECODED 2462u /* make_chunk's clusters end at 2462 */
#define MP_HEAD 80u      /* chunk header and two cluster records */
#define MP_SCRATCH (512u * 3u * 2u + 16u)

static _Alignas(64) unsigned char ameta[SLC_ARENA_FOOTPRINT(1 << 16)];
static slc_arena *meta;
static slc_profile limits;
static capture_log logged;
static slc_logger logger;
static unsigned char decoded[MP_DECODED]; /* what chunk 0 decodes to */
static unsigned char pack[1 << 14];
static size_t pack_size;

/* A stream as the writer makes it, its parts changeable by a test. */
typedef struct stream {
    unsigned char bytes[8192];
    size_t size;
    size_t prefix[2]; /* where each cluster's sizes sit */
} stream;

/* The meshopt stream of decoded[] with cluster 0's triangle given as tri0. */
static void make_stream(stream *s, const unsigned int tri0[3])
{
    memset(s, 0, sizeof *s);
    meshopt_encodeVertexVersion(0);
    meshopt_encodeIndexVersion(1);
    memcpy(s->bytes, decoded, MP_HEAD);
    size_t pos = MP_HEAD;
    for (int i = 0; i < 2; i++) {
        slc_pack_cluster cl;
        memcpy(&cl, decoded + 16 + 32 * i, sizeof cl);
        unsigned int idx[SLC_PACK_MESHOPT_MAX_TRIANGLES * 3];
        for (unsigned k = 0; k < cl.triangle_count * 3u; k++) {
            idx[k] = i == 0 && k < 3 && tri0 != NULL ? tri0[k] : decoded[cl.index_offset + k];
        }
        s->prefix[i] = pos;
        unsigned char *at = s->bytes + pos + 4;
        size_t vs = meshopt_encodeVertexBuffer(at, 3000, decoded + cl.vertex_offset, cl.vertex_count, 24);
        size_t is = meshopt_encodeIndexBuffer(at + vs, 1000, idx, cl.triangle_count * 3u);
        assert_true(vs > 0 && is > 0);
        slc_pack_meshopt_cluster mc = {(uint16_t)vs, (uint16_t)is};
        memcpy(s->bytes + pos, &mc, sizeof mc);
        pos += 4 + vs + is;
    }
    s->size = pos;
}

/* A pack of one object (normals, 24-byte vertices) and one chunk: the
 * stored bytes given, with codec and decoded size. */
static void make_pack(const void *stored, size_t stored_size, uint8_t codec, uint32_t decoded_size)
{
    memset(pack, 0, sizeof pack);
    slc_pack_header h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, SLC_PACK_MAGIC, SLC_PACK_MAGIC_SIZE);
    h.version_major = SLC_PACK_VERSION_MAJOR;
    h.version_minor = 1;
    h.header_size = sizeof h;
    h.page_size = MP_PAGE;
    size_t at = sizeof h;
    slc_pack_chunk c;
    memset(&c, 0, sizeof c);
    c.offset = at;
    c.stored_size = (uint32_t)stored_size;
    c.decoded_size = decoded_size;
    memcpy(pack + at, stored, stored_size);
    c.xxh3 = XXH3_64bits(pack + at, stored_size);
    c.codec = codec;
    c.cluster_count = 2;
    c.triangle_count = 90;
    c.vertex_count = 88;
    at = (size_t)slc__test_align(at + stored_size);
    slc_pack_object o;
    memset(&o, 0, sizeof o);
    o.lod_count = 1;
    o.attributes = SLC_PACK_ATTR_NORMAL;
    o.vertex_stride = 24;
    o.pos_scale[0] = o.pos_scale[1] = o.pos_scale[2] = 1.0f;
    o.uv_scale[0] = o.uv_scale[1] = 1.0f;
    o.name = SLC_PACK_NO_NAME;
    slc_pack_lod l;
    memset(&l, 0, sizeof l);
    l.span_count = 1;
    l.triangle_count = 90;
    l.vertex_count = 88;
    slc_pack_span sp = {0, 0, 2};
    static const char strings[1] = {0};
#define MP_PUT(field_offset, field_count, src, count, bytes) \
    do {                                                     \
        h.field_offset = at;                                 \
        h.field_count = (count);                             \
        memcpy(pack + at, (src), (bytes));                   \
        at = (size_t)slc__test_align(at + (bytes));          \
    } while (0)
    MP_PUT(chunk_offset, chunk_count, &c, 1, sizeof c);
    MP_PUT(object_offset, object_count, &o, 1, sizeof o);
    MP_PUT(lod_offset, lod_count, &l, 1, sizeof l);
    MP_PUT(span_offset, span_count, &sp, 1, sizeof sp);
    MP_PUT(instance_offset, instance_count, strings, 0, 0);
    MP_PUT(string_offset, string_size, strings, 1, 1);
#undef MP_PUT
    h.file_size = at;
    memcpy(pack, &h, sizeof h);
    pack_size = at;
    test_pack t = {.data = pack, .size = pack_size};
    tp_reseal(&t);
}

static void make_meshopt_pack(const stream *s)
{
    make_pack(s->bytes, s->size, SLC_PACK_CODEC_MESHOPT, MP_DECODED);
}

/* A read callback over the pack bytes: the reader's path without a mapping. */
static slc_status read_pack(void *user, uint64_t offset, void *dst, size_t size)
{
    (void)user;
    if (offset > pack_size || size > pack_size - offset) {
        return SLC_E_IO_SHORT;
    }
    memcpy(dst, pack + offset, size);
    return SLC_OK;
}

static slc_status open_pack(int mapped, slc_pack **out)
{
    slc_io io;
    slc_io_from_memory(pack, pack_size, &io);
    if (!mapped) {
        io.mapped = NULL;
        io.read = read_pack;
        io.user = NULL;
    }
    logger = capture_logger(&logged);
    return slc_pack_open(&io, "m.pack", &limits, meta, &logger, out);
}

/* A decoded chunk as the writer lays it out: two clusters of object 0 (40
 * and 48 vertices of 24 bytes: smooth values; 40 and 50 triangles, each
 * lowest index first), cluster 1 at the next multiple of 4. */
static void make_chunk(unsigned char *b)
{
    memset(b, 0, MP_DECODED);
    slc_pack_chunk_header ch = {SLC_PACK_CHUNK_MAGIC, 2, 0, 0};
    memcpy(b, &ch, sizeof ch);
    slc_pack_cluster cl[2] = {{0, 80, 1040, 40, 40, {0, 0, 0, 1}}, {0, 1160, 2312, 48, 50, {1, 0, 0, 1}}};
    memcpy(b + 16, cl, sizeof cl);
    for (int i = 0; i < 2; i++) {
        for (uint32_t v = 0; v < cl[i].vertex_count; v++) {
            float f[6] = {(float)v, (float)(v * 2), 0.5f, 0, 0, 1};
            memcpy(b + cl[i].vertex_offset + 24 * v, f, sizeof f);
        }
        for (uint32_t t = 0; t < cl[i].triangle_count; t++) {
            uint32_t k = t % (cl[i].vertex_count - 2u);
            unsigned char tri[3] = {(unsigned char)k, (unsigned char)(k + 1), (unsigned char)(k + 2)};
            memcpy(b + cl[i].index_offset + 3 * t, tri, 3);
        }
    }
}

static int setup(void **state)
{
    (void)state;
    if (slc_arena_init(ameta, sizeof ameta, NULL, (slc_budget_id){0}, &meta) != SLC_OK) {
        return -1;
    }
    memset(&limits, 0, sizeof limits);
    limits.page_size = MP_PAGE;
    limits.max_chunks = 16;
    limits.max_objects = 16;
    limits.max_lods = 8;
    limits.max_string_bytes = 1024;
    make_chunk(decoded);
    return 0;
}

#if SLC_CODEC_MESHOPT

static unsigned char page[MP_PAGE];
static unsigned char scratch[2 * MP_PAGE];

static slc_pack_meshopt_cluster prefix_of(const stream *s, int i)
{
    slc_pack_meshopt_cluster mc;
    memcpy(&mc, s->bytes + s->prefix[i], sizeof mc);
    return mc;
}

/* Opens the pack, loads chunk 0 and expects want with message (after the
 * "pack 'm.pack': chunk 0: " every message starts with). */
static void expect_load(int mapped, slc_status want, const char *message)
{
    slc_pack *p = NULL;
    slc_status s = open_pack(mapped, &p);
    if (s != SLC_OK) {
        fail_msg("open: %s \"%s\"", slc_status_name(s), logged.message);
    }
    memset(page, 0xee, sizeof page);
    s = slc_pack_load_chunk(p, (slc_chunk_id){0}, page, sizeof page, scratch, slc_pack_scratch_size(p));
    char full[512];
    snprintf(full, sizeof full, "pack 'm.pack': chunk 0: %s", message);
    if (s != want || (want != SLC_OK && strcmp(logged.message, full) != 0)) {
        fail_msg("got %s \"%s\"\nwant %s \"%s\"", slc_status_name(s), logged.message, slc_status_name(want), full);
    }
    for (size_t i = MP_DECODED; i < sizeof page; i++) { /* never a byte past the decoded size */
        assert_int_equal(page[i], 0xee);
    }
    slc_pack_close(p);
}

static void test_meshopt_chunk_decodes_to_its_bytes(void **state)
{
    (void)state;
    stream s;
    make_stream(&s, NULL);
    for (int mapped = 0; mapped < 2; mapped++) {
        make_meshopt_pack(&s);
        expect_load(mapped, SLC_OK, "");
        assert_memory_equal(page, decoded, MP_DECODED);
        slc_pack *p = NULL;
        assert_int_equal(open_pack(mapped, &p), SLC_OK);
        /* one cluster's indices; unmapped, the stored bytes too */
        assert_int_equal(slc_pack_scratch_size(p), (mapped ? 0 : (s.size + 15) / 16 * 16) + MP_SCRATCH);
        assert_int_equal(slc_pack_check_chunk(p, (slc_chunk_id){0}, page), SLC_OK);
        slc_pack_close(p);
    }
}

static void test_meshopt_lz4_chunk_decodes_to_its_bytes(void **state)
{
    (void)state;
    stream s;
    make_stream(&s, NULL);
    char lz[4096];
    int n = LZ4_compress_default((const char *)s.bytes, lz, (int)s.size, (int)sizeof lz);
    assert_true(n > 0);
    for (int mapped = 0; mapped < 2; mapped++) {
        make_pack(lz, (size_t)n, SLC_PACK_CODEC_MESHOPT_LZ4, MP_DECODED);
        expect_load(mapped, SLC_OK, "");
        assert_memory_equal(page, decoded, MP_DECODED);
        slc_pack *p = NULL;
        assert_int_equal(open_pack(mapped, &p), SLC_OK);
        /* the meshopt stream LZ4 gives (up to the decoded size) and one
         * cluster's indices; unmapped, the stored bytes first */
        assert_int_equal(slc_pack_scratch_size(p),
                         (mapped ? 0 : ((size_t)n + 15) / 16 * 16) + (MP_DECODED + 15) / 16 * 16 + MP_SCRATCH);
        slc_pack_close(p);
    }
}

/* The index codec may rotate triangles; the reader puts each lowest first. */
static void test_triangles_decode_lowest_index_first(void **state)
{
    (void)state;
    stream s;
    const unsigned int rotated[3] = {1, 2, 0};
    make_stream(&s, rotated);
    make_meshopt_pack(&s);
    expect_load(1, SLC_OK, "");
    assert_memory_equal(page, decoded, MP_DECODED); /* (1, 2, 0) decodes as (0, 1, 2) */
    /* and encoded as the writer does, it decodes unrotated: the stream is not what made it equal */
    make_stream(&s, NULL);
    make_meshopt_pack(&s);
    expect_load(1, SLC_OK, "");
    assert_memory_equal(page, decoded, MP_DECODED);
    unsigned char t[3];
    slc_pack_put_triangle(t, 2, 0, 0);
    assert_memory_equal(t, ((const unsigned char[]){0, 0, 2}), 3);
    slc_pack_put_triangle(t, 0, 2, 0);
    assert_memory_equal(t, ((const unsigned char[]){0, 0, 2}), 3);
    slc_pack_put_triangle(t, 7, 3, 5);
    assert_memory_equal(t, ((const unsigned char[]){3, 5, 7}), 3);
}

static void test_scratch_smaller_than_needed_is_refused(void **state)
{
    (void)state;
    stream s;
    make_stream(&s, NULL);
    make_meshopt_pack(&s);
    slc_pack *p = NULL;
    assert_int_equal(open_pack(1, &p), SLC_OK);
    assert_int_equal(slc_pack_load_chunk(p, (slc_chunk_id){0}, page, sizeof page, scratch, MP_SCRATCH - 1),
                     SLC_E_CAPACITY);
    assert_string_equal(logged.message,
                        "pack 'm.pack': chunk 0: its meshopt decode needs 3088 bytes of scratch, 3087 given");
    assert_int_equal(slc_pack_load_chunk(p, (slc_chunk_id){0}, page, sizeof page, NULL, 0), SLC_E_CAPACITY);
    assert_string_equal(logged.message,
                        "pack 'm.pack': chunk 0: its meshopt decode needs 3088 bytes of scratch, 0 given");
    slc_pack_close(p);
}

static void test_stored_size_is_checked_at_open(void **state)
{
    (void)state;
    stream s;
    make_stream(&s, NULL);
    make_pack(s.bytes, MP_HEAD - 1, SLC_PACK_CODEC_MESHOPT, MP_DECODED); /* not even the records */
    slc_pack *p = NULL;
    assert_int_equal(open_pack(1, &p), SLC_E_PACK_RECORD);
    assert_string_equal(
        logged.message,
        "pack 'm.pack': chunk 0: 79 stored bytes cannot hold 2462 decoded bytes with codec 2 (meshopt)");
    make_pack(s.bytes, MP_DECODED + 1, SLC_PACK_CODEC_MESHOPT, MP_DECODED); /* more than stored would take */
    assert_int_equal(open_pack(1, &p), SLC_E_PACK_RECORD);
    assert_string_equal(
        logged.message,
        "pack 'm.pack': chunk 0: 2463 stored bytes cannot hold 2462 decoded bytes with codec 2 (meshopt)");
    make_pack(s.bytes, (size_t)LZ4_COMPRESSBOUND(MP_DECODED) + 1, SLC_PACK_CODEC_MESHOPT_LZ4, MP_DECODED);
    assert_int_equal(open_pack(1, &p), SLC_E_PACK_RECORD);
    assert_string_equal(
        logged.message,
        "pack 'm.pack': chunk 0: 2488 stored bytes cannot hold 2462 decoded bytes with codec 3 (meshopt-lz4)");
}

static void test_truncated_streams_are_corrupt(void **state)
{
    (void)state;
    stream s;
    make_stream(&s, NULL);
    size_t full = s.size;
    s.size = MP_HEAD + 2; /* half of cluster 0's sizes */
    make_meshopt_pack(&s);
    expect_load(1, SLC_E_PACK_CORRUPT, "meshopt stream cluster 0: its sizes at 80 lie past the 82 stored bytes");
    s.size = full - 1; /* the last byte of cluster 1's indices */
    make_meshopt_pack(&s);
    slc_pack_meshopt_cluster m1 = prefix_of(&s, 1);
    char want[200];
    snprintf(want, sizeof want,
             "meshopt stream cluster 1: %u vertex and %u index bytes at %zu run past the %zu stored bytes",
             m1.vertex_bytes, m1.index_bytes, s.prefix[1] + 4, full - 1);
    expect_load(0, SLC_E_PACK_CORRUPT, want);
    s.size = full + 4; /* four bytes no cluster reads */
    make_meshopt_pack(&s);
    expect_load(1, SLC_E_PACK_CORRUPT, "meshopt stream: 4 more bytes after its last cluster");
}

static void test_a_size_past_the_stored_bytes_is_corrupt(void **state)
{
    (void)state;
    stream s;
    make_stream(&s, NULL);
    slc_pack_meshopt_cluster m0 = prefix_of(&s, 0);
    slc_pack_meshopt_cluster big = {60000, m0.index_bytes};
    memcpy(s.bytes + s.prefix[0], &big, sizeof big);
    make_meshopt_pack(&s);
    char want[200];
    snprintf(want, sizeof want,
             "meshopt stream cluster 0: 60000 vertex and %u index bytes at 84 run past the %zu stored bytes",
             m0.index_bytes, s.size);
    expect_load(1, SLC_E_PACK_CORRUPT, want);
}

/* Changes cluster i's record inside the stream (and what it decodes to). */
static void set_cluster(stream *s, int i, const slc_pack_cluster *cl)
{
    memcpy(s->bytes + 16 + 32 * i, cl, sizeof *cl);
}

static slc_pack_cluster cluster_of(const stream *s, int i)
{
    slc_pack_cluster cl;
    memcpy(&cl, s->bytes + 16 + 32 * i, sizeof cl);
    return cl;
}

static void test_cluster_records_are_checked_before_decoding(void **state)
{
    (void)state;
    stream s;
    make_stream(&s, NULL);
    slc_pack_chunk_header ch = {SLC_PACK_CHUNK_MAGIC, 3, 0, 0};
    memcpy(s.bytes, &ch, sizeof ch);
    make_meshopt_pack(&s);
    expect_load(1, SLC_E_PACK_CORRUPT,
                "meshopt stream: chunk header (magic 0x4b434c53) says 3 clusters, the chunk record 2");

    make_stream(&s, NULL);
    slc_pack_cluster cl = cluster_of(&s, 1);
    cl.object = 5;
    set_cluster(&s, 1, &cl);
    make_meshopt_pack(&s);
    expect_load(1, SLC_E_PACK_CORRUPT, "meshopt stream cluster 1: object 5 does not exist (1 objects)");

    make_stream(&s, NULL);
    cl = cluster_of(&s, 1);
    cl.triangle_count = 513;
    set_cluster(&s, 1, &cl);
    make_meshopt_pack(&s);
    expect_load(1, SLC_E_PACK_CORRUPT,
                "meshopt stream cluster 1: 48 vertices, 513 triangles (1 to 255 and at most 512)");

    make_stream(&s, NULL);
    cl = cluster_of(&s, 1);
    cl.vertex_offset = 1164;
    set_cluster(&s, 1, &cl);
    make_meshopt_pack(&s);
    expect_load(1, SLC_E_PACK_CORRUPT,
                "meshopt stream cluster 1: vertices at 1164, triangles at 2312; the layout puts them at 1160 and 2312");

    make_stream(&s, NULL);
    cl = cluster_of(&s, 1);
    cl.triangle_count = 51;
    set_cluster(&s, 1, &cl);
    make_meshopt_pack(&s);
    expect_load(1, SLC_E_PACK_CORRUPT, "meshopt stream cluster 1: ends at 2465, past the 2462 decoded bytes");
}

static void test_decoded_size_other_than_the_record_is_refused(void **state)
{
    (void)state;
    stream s;
    make_stream(&s, NULL);
    make_pack(s.bytes, s.size, SLC_PACK_CODEC_MESHOPT, MP_DECODED + 4);
    expect_load(1, SLC_E_PACK_DECODED_SIZE,
                "meshopt stream: its clusters end at 2462 bytes, the chunk table says 2466");
}

static void test_decoder_errors_are_corrupt(void **state)
{
    (void)state;
    stream s;
    make_stream(&s, NULL);
    slc_pack_meshopt_cluster m0 = prefix_of(&s, 0);
    s.bytes[s.prefix[0] + 4] = 0; /* the vertex buffer's header byte */
    make_meshopt_pack(&s);
    char want[200];
    snprintf(want, sizeof want, "meshopt stream cluster 0: the vertex decoder rejects its %u bytes (error -1)",
             m0.vertex_bytes);
    expect_load(1, SLC_E_PACK_CORRUPT, want);

    make_stream(&s, NULL);
    s.bytes[s.prefix[0] + 4 + m0.vertex_bytes] = 0; /* the index buffer's header byte */
    make_meshopt_pack(&s);
    snprintf(want, sizeof want, "meshopt stream cluster 0: the index decoder rejects its %u bytes (error -1)",
             m0.index_bytes);
    expect_load(1, SLC_E_PACK_CORRUPT, want);

    const unsigned int outside[3] = {0, 1, 45}; /* cluster 0 has 40 vertices */
    make_stream(&s, outside);
    make_meshopt_pack(&s);
    expect_load(1, SLC_E_PACK_CORRUPT, "meshopt stream cluster 0: triangle 0 uses vertex 45 of 40");
}

static void test_meshopt_lz4_errors(void **state)
{
    (void)state;
    char lz[64];
    int n = LZ4_compress_default((const char *)decoded, lz, 10, (int)sizeof lz); /* a 10-byte stream */
    make_pack(lz, (size_t)n, SLC_PACK_CODEC_MESHOPT_LZ4, MP_DECODED);
    expect_load(1, SLC_E_PACK_CORRUPT,
                "meshopt stream of 10 bytes is shorter than its chunk header and cluster records (80 bytes)");
    const unsigned char bad[4] = {0xff, 0xff, 0xff, 0xff};
    make_pack(bad, sizeof bad, SLC_PACK_CODEC_MESHOPT_LZ4, MP_DECODED);
    slc_pack *p = NULL;
    assert_int_equal(open_pack(1, &p), SLC_OK);
    assert_int_equal(slc_pack_load_chunk(p, (slc_chunk_id){0}, page, sizeof page, scratch, sizeof scratch),
                     SLC_E_PACK_CORRUPT);
    assert_non_null(strstr(logged.message, "pack 'm.pack': chunk 0: LZ4 rejects its 4 stored bytes"));
    slc_pack_close(p);
}

/* Every prefix of the stream, and every byte flipped: a status, never a
 * write past the decoded size (expect_load checks the page's tail). */
static void test_every_truncation_and_flip_is_caught_or_harmless(void **state)
{
    (void)state;
    stream s;
    make_stream(&s, NULL);
    stream t = s;
    for (size_t n = MP_HEAD; n < s.size; n++) {
        t.size = n;
        make_meshopt_pack(&t);
        slc_pack *p = NULL;
        assert_int_equal(open_pack(1, &p), SLC_OK);
        memset(page, 0xee, sizeof page);
        slc_status st = slc_pack_load_chunk(p, (slc_chunk_id){0}, page, sizeof page, scratch, sizeof scratch);
        assert_true(st == SLC_E_PACK_CORRUPT || st == SLC_E_PACK_DECODED_SIZE);
        for (size_t i = MP_DECODED; i < sizeof page; i++) {
            assert_int_equal(page[i], 0xee);
        }
        slc_pack_close(p);
    }
    for (size_t k = 0; k < s.size; k++) {
        for (int bit = 0; bit < 8; bit++) {
            t = s;
            t.bytes[k] ^= (unsigned char)(1u << bit);
            make_meshopt_pack(&t);
            slc_pack *p = NULL;
            assert_int_equal(open_pack(1, &p), SLC_OK);
            memset(page, 0xee, sizeof page);
            (void)slc_pack_load_chunk(p, (slc_chunk_id){0}, page, sizeof page, scratch, sizeof scratch);
            for (size_t i = MP_DECODED; i < sizeof page; i++) {
                assert_int_equal(page[i], 0xee);
            }
            slc_pack_close(p);
        }
    }
}

/* meshoptimizer's only heap use is through meshopt_setAllocator's
 * functions (the library imports operator new and delete only as the
 * default's pointers): with counting ones set, the decoders make no call,
 * where a function that allocates (meshopt_optimizeVertexCache) makes some. */
static int allocations;
static void *count_alloc(size_t n)
{
    allocations++;
    return malloc(n);
}
static void count_free(void *p)
{
    free(p);
}

static void test_decoders_allocate_nothing(void **state)
{
    (void)state;
    meshopt_setAllocator(count_alloc, count_free);
    stream s;
    make_stream(&s, NULL);
    make_meshopt_pack(&s);
    allocations = 0;
    expect_load(1, SLC_OK, "");
    char lz[4096];
    int n = LZ4_compress_default((const char *)s.bytes, lz, (int)s.size, (int)sizeof lz);
    make_pack(lz, (size_t)n, SLC_PACK_CODEC_MESHOPT_LZ4, MP_DECODED);
    expect_load(0, SLC_OK, "");
    assert_int_equal(allocations, 0);
    unsigned int idx[6] = {0, 1, 2, 0, 2, 3}, out[6];
    meshopt_optimizeVertexCache(out, idx, 6, 4);
    assert_true(allocations > 0);
}

#else /* a reader built with SLUICE_CODEC_MESHOPT=OFF */

static void test_reader_without_the_codec_refuses_at_open(void **state)
{
    (void)state;
    stream s;
    make_stream(&s, NULL);
    make_meshopt_pack(&s);
    slc_pack *p = (slc_pack *)1;
    assert_int_equal(open_pack(1, &p), SLC_E_PACK_VERSION);
    assert_null(p);
    assert_string_equal(
        logged.message,
        "pack 'm.pack': chunk 0: codec 2 (meshopt) is not built into this reader (SLUICE_CODEC_MESHOPT=OFF)");
    char lz[4096];
    int n = LZ4_compress_default((const char *)s.bytes, lz, (int)s.size, (int)sizeof lz);
    make_pack(lz, (size_t)n, SLC_PACK_CODEC_MESHOPT_LZ4, MP_DECODED);
    assert_int_equal(open_pack(0, &p), SLC_E_PACK_VERSION);
    assert_string_equal(
        logged.message,
        "pack 'm.pack': chunk 0: codec 3 (meshopt-lz4) is not built into this reader (SLUICE_CODEC_MESHOPT=OFF)");
    make_pack(decoded, MP_DECODED, SLC_PACK_CODEC_STORED, MP_DECODED); /* 1.0 codecs still read */
    assert_int_equal(open_pack(1, &p), SLC_OK);
    slc_pack_close(p);
}

#endif

int main(void)
{
    const struct CMUnitTest tests[] = {
#if SLC_CODEC_MESHOPT
        cmocka_unit_test(test_meshopt_chunk_decodes_to_its_bytes),
        cmocka_unit_test(test_meshopt_lz4_chunk_decodes_to_its_bytes),
        cmocka_unit_test(test_triangles_decode_lowest_index_first),
        cmocka_unit_test(test_scratch_smaller_than_needed_is_refused),
        cmocka_unit_test(test_stored_size_is_checked_at_open),
        cmocka_unit_test(test_truncated_streams_are_corrupt),
        cmocka_unit_test(test_a_size_past_the_stored_bytes_is_corrupt),
        cmocka_unit_test(test_cluster_records_are_checked_before_decoding),
        cmocka_unit_test(test_decoded_size_other_than_the_record_is_refused),
        cmocka_unit_test(test_decoder_errors_are_corrupt),
        cmocka_unit_test(test_meshopt_lz4_errors),
        cmocka_unit_test(test_every_truncation_and_flip_is_caught_or_harmless),
        cmocka_unit_test(test_decoders_allocate_nothing),
#else
        cmocka_unit_test(test_reader_without_the_codec_refuses_at_open),
#endif
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
