/* SPDX-License-Identifier: MIT */
/* The pack reader: a valid pack through memory, mmap and pread; every
 * error class with its status and message; every truncation; every byte
 * flipped; a reader that stays usable after a bad chunk. */
#define _POSIX_C_SOURCE 200809L
#include <unistd.h>

#include "sluice/platform.h"
#include "test_pack.h"

static _Alignas(64) unsigned char bmem[SLC_BUDGETS_FOOTPRINT(2, 2)];
static _Alignas(64) unsigned char ameta[SLC_ARENA_FOOTPRINT(1 << 16)];
static slc_budgets *budgets;
static slc_arena *meta;
static slc_profile limits;
static test_pack tp;
static capture_log logged;
static slc_logger logger;
static unsigned char page[TP_PAGE];
static unsigned char scratch[TP_PAGE + 64];

static int setup(void **state)
{
    (void)state;
    const slc_budget_desc d[] = {{"cpu", 1 << 16, SLC_BUDGET_NONE_INDEX}, {"cpu/meta", 1 << 16, 0}};
    if (slc_budgets_init(bmem, sizeof bmem, d, 2, 2, NULL, &budgets) != SLC_OK ||
        slc_arena_init(ameta, sizeof ameta, budgets, (slc_budget_id){1}, &meta) != SLC_OK) {
        return -1;
    }
    tp_limits(&limits);
    logger = capture_logger(&logged);
    tp_build(&tp);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    free(tp.data);
    return 0;
}

static int fresh(void **state)
{
    (void)state;
    free(tp.data);
    tp_build(&tp);
    logger = capture_logger(&logged);
    return 0;
}

static slc_status open_bytes(const void *data, size_t size, slc_pack **out)
{
    slc_io io;
    slc_io_from_memory(data, size, &io);
    return slc_pack_open(&io, "t.pack", &limits, meta, &logger, out);
}

/* Opening fails with want and message; the arena is left as it was. */
static void expect_open_fails(slc_status want, const char *message)
{
    slc_arena_stats before, after;
    slc_arena_get_stats(meta, &before);
    slc_pack *p = (slc_pack *)1;
    slc_status s = open_bytes(tp.data, tp.size, &p);
    if (s != want || strcmp(logged.message, message) != 0) {
        fail_msg("got %s \"%s\"\nwant %s \"%s\"", slc_status_name(s), logged.message, slc_status_name(want), message);
    }
    assert_null(p);
    slc_arena_get_stats(meta, &after);
    assert_int_equal(after.used, before.used);
}

static void load_all_and_compare(slc_pack *p, void *scr, size_t scr_size)
{
    for (uint32_t c = 0; c < TP_CHUNKS; c++) {
        memset(page, 0xcd, sizeof page);
        assert_int_equal(slc_pack_load_chunk(p, (slc_chunk_id){c}, page, sizeof page, scr, scr_size), SLC_OK);
        assert_memory_equal(page, tp.decoded[c], tp.decoded_size[c]);
        if (tp.decoded_size[c] < TP_PAGE) {
            assert_int_equal(page[tp.decoded_size[c]], 0xcd); /* nothing written past the chunk */
        }
    }
}

static void test_opens_valid_pack_from_memory(void **state)
{
    (void)state;
    slc_pack *p;
    assert_int_equal(open_bytes(tp.data, tp.size, &p), SLC_OK);
    const slc_pack_header *h = slc_pack_get_header(p);
    assert_int_equal(h->chunk_count, TP_CHUNKS);
    assert_int_equal(h->object_count, TP_OBJECTS);
    assert_int_equal(h->instance_count, TP_INSTANCES);
    assert_int_equal(slc_pack_get_chunk(p, (slc_chunk_id){1})->codec, SLC_PACK_CODEC_LZ4);
    assert_string_equal(slc_pack_get_string(p, slc_pack_get_object(p, (slc_object_id){0})->name), "box");
    assert_string_equal(slc_pack_get_string(p, slc_pack_get_object(p, (slc_object_id){1})->name), "tree");
    assert_string_equal(slc_pack_get_string(p, slc_pack_get_instance(p, 0)->name), "door");
    assert_string_equal(slc_pack_get_string(p, slc_pack_get_instance(p, 2)->name), "");
    assert_int_equal(slc_pack_get_lod(p, 3)->first_span, 3);
    assert_int_equal(slc_pack_get_span(p, 3)->chunk, 2);
    assert_true(slc_pack_get_instance(p, 2)->matrix[12] == 2.0f);
    assert_int_equal(slc_pack_scratch_size(p), 0); /* in memory: no scratch needed */
    load_all_and_compare(p, NULL, 0);
    slc_arena_stats st;
    slc_arena_get_stats(meta, &st);
    assert_true(st.used > 0);
    slc_pack_close(p);
    slc_arena_get_stats(meta, &st);
    assert_int_equal(st.used, 0);
    expect_assert_failure(
        slc_pack_get_chunk(p, (slc_chunk_id){TP_CHUNKS})); /* p's memory is reused, but the index check holds */
}

static void test_opens_valid_pack_from_file_mapped_and_pread(void **state)
{
    (void)state;
    char path[] = "/tmp/sluice-pack-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, tp.data, tp.size), (ssize_t)tp.size);
    close(fd);
    for (unsigned flags = 0; flags <= SLC_PLATFORM_FILE_PREAD; flags++) {
        slc_platform_file f;
        assert_int_equal(slc_platform_file_open(path, flags, NULL, &f), SLC_OK);
        assert_int_equal(f.size, tp.size);
        assert_true((f.map != NULL) == (flags == SLC_PLATFORM_FILE_DEFAULT));
        slc_pack *p;
        assert_int_equal(slc_pack_open(&f.io, "file.pack", &limits, meta, &logger, &p), SLC_OK);
        size_t need = slc_pack_scratch_size(p);
        if (flags == SLC_PLATFORM_FILE_PREAD) {
            assert_int_equal(need, tp_chunk(&tp, 1)->stored_size > tp_chunk(&tp, 2)->stored_size
                                       ? tp_chunk(&tp, 1)->stored_size
                                       : tp_chunk(&tp, 2)->stored_size);
            /* Scratch too small for an LZ4 chunk: refused, named. */
            assert_int_equal(slc_pack_load_chunk(p, (slc_chunk_id){1}, page, sizeof page, scratch, 10), SLC_E_CAPACITY);
            char want[160];
            snprintf(want, sizeof want, "pack 'file.pack': chunk 1: %u stored bytes do not fit 10 bytes of scratch",
                     tp_chunk(&tp, 1)->stored_size);
            assert_string_equal(logged.message, want);
        }
        load_all_and_compare(p, scratch, need);
        slc_pack_close(p);
        slc_platform_file_close(&f);
    }
    unlink(path);
    slc_platform_file f;
    assert_int_equal(slc_platform_file_open(path, 0, &logger, &f), SLC_E_PLATFORM);
    char want[128];
    snprintf(want, sizeof want, "platform: %s: No such file or directory", path);
    assert_string_equal(logged.message, want);
}

static void test_rejects_bad_magic(void **state)
{
    (void)state;
    tp.data[0] = 'X';
    expect_open_fails(SLC_E_PACK_MAGIC,
                      "pack 't.pack': magic bytes 0x4b434150434c58 are not \"SLCPACK\\0\": not a pack");
}

static void test_rejects_unknown_version_and_features(void **state)
{
    (void)state;
    tp_header(&tp)->version_major = 2;
    tp_header(&tp)->version_minor = 0;
    tp_reseal(&tp);
    expect_open_fails(SLC_E_PACK_VERSION, "pack 't.pack': format version 2.0; this reader reads 1.x");
    tp_header(&tp)->version_major = 1;
    tp_header(&tp)->version_minor = 7; /* a newer minor version reads */
    tp_reseal(&tp);
    slc_pack *p;
    assert_int_equal(open_bytes(tp.data, tp.size, &p), SLC_OK);
    slc_pack_close(p);
    tp_header(&tp)->required_features = 4;
    tp_reseal(&tp);
    expect_open_fails(SLC_E_PACK_VERSION, "pack 't.pack': requires features 0x4 unknown to this reader");
    tp_header(&tp)->required_features = 0;
    tp_header(&tp)->optional_features = 0x80000000u; /* unknown optional bits are ignored */
    tp_reseal(&tp);
    assert_int_equal(open_bytes(tp.data, tp.size, &p), SLC_OK);
    slc_pack_close(p);
}

static void test_rejects_every_truncation(void **state)
{
    (void)state;
    for (size_t n = 0; n < tp.size; n++) {
        unsigned char *copy = malloc(n + 1); /* exactly n readable bytes, for ASan */
        memcpy(copy, tp.data, n);
        slc_pack *p = (slc_pack *)1;
        slc_status s = open_bytes(copy, n, &p);
        assert_int_equal(s, SLC_E_PACK_TRUNCATED);
        assert_null(p);
        char want[160];
        if (n < sizeof(slc_pack_header)) {
            snprintf(want, sizeof want, "pack 't.pack': the file has %zu bytes, fewer than the 160-byte header", n);
        } else {
            snprintf(want, sizeof want, "pack 't.pack': the file has %zu bytes; its header says %zu", n, tp.size);
        }
        assert_string_equal(logged.message, want);
        free(copy);
    }
}

static void test_rejects_bad_header(void **state)
{
    (void)state;
    tp.data[24] ^= 1; /* page_size, without resealing */
    char want[200];
    uint64_t sum = XXH3_64bits(tp.data, 152);
    snprintf(want, sizeof want, "pack 't.pack': header checksum: XXH3 of the header is 0x%llx, the header says 0x%llx",
             (unsigned long long)sum, (unsigned long long)tp_header(&tp)->header_xxh3);
    expect_open_fails(SLC_E_PACK_HEADER, want);
    fresh(NULL);
    tp_header(&tp)->page_size = 3000;
    tp_reseal(&tp);
    expect_open_fails(SLC_E_PACK_HEADER, "pack 't.pack': page size 3000 is not a power of two from 4096 to 67108864");
    fresh(NULL);
    tp_header(&tp)->header_size = 200;
    tp_reseal(&tp);
    expect_open_fails(SLC_E_PACK_HEADER, "pack 't.pack': header size 200; version 1.x headers are 160 bytes");
    fresh(NULL);
    /* Trailing bytes the header does not account for. */
    unsigned char *longer = calloc(1, tp.size + 8);
    memcpy(longer, tp.data, tp.size);
    slc_pack *p;
    assert_int_equal(open_bytes(longer, tp.size + 8, &p), SLC_E_PACK_HEADER);
    snprintf(want, sizeof want, "pack 't.pack': the file has %zu bytes; its header says %zu", tp.size + 8, tp.size);
    assert_string_equal(logged.message, want);
    free(longer);
}

static void test_rejects_tables_out_of_bounds(void **state)
{
    (void)state;
    char want[200];
    tp_header(&tp)->object_offset = tp.size; /* 2 objects of 96 bytes past the end */
    tp_reseal_header(&tp);
    snprintf(want, sizeof want, "pack 't.pack': object table of 192 bytes at offset %zu lies outside the %zu-byte file",
             tp.size, tp.size);
    expect_open_fails(SLC_E_PACK_BOUNDS, want);
    fresh(NULL);
    tp_header(&tp)->string_offset += 4;
    tp_reseal_header(&tp);
    snprintf(want, sizeof want, "pack 't.pack': string table at offset %llu is not 8-byte aligned",
             (unsigned long long)tp_header(&tp)->string_offset);
    expect_open_fails(SLC_E_PACK_BOUNDS, want);
    fresh(NULL);
    tp_header(&tp)->chunk_offset = 8; /* overlaps the header */
    tp_reseal_header(&tp);
    snprintf(want, sizeof want, "pack 't.pack': chunk table of 144 bytes at offset 8 lies outside the %zu-byte file",
             tp.size);
    expect_open_fails(SLC_E_PACK_BOUNDS, want);
    fresh(NULL);
    tp_header(&tp)->lod_count = 0xFFFFFFFFu; /* a count whose size overflows 32 bits */
    tp_reseal_header(&tp);
    snprintf(want, sizeof want,
             "pack 't.pack': LOD table of 206158430160 bytes at offset %llu lies outside the %zu-byte file",
             (unsigned long long)tp_header(&tp)->lod_offset, tp.size);
    expect_open_fails(SLC_E_PACK_BOUNDS, want);
    fresh(NULL);
    tp_chunk(&tp, 2)->offset = tp.size - 4;
    tp_reseal(&tp);
    snprintf(want, sizeof want, "pack 't.pack': chunk 2: %u bytes at offset %zu lie outside the %zu-byte file",
             tp_chunk(&tp, 2)->stored_size, tp.size - 4, tp.size);
    expect_open_fails(SLC_E_PACK_BOUNDS, want);
}

static void test_rejects_table_checksums(void **state)
{
    (void)state;
    const char *names[] = {"chunk table",
                           "object table",
                           "LOD and span tables",
                           "LOD and span tables",
                           "instance and string tables",
                           "instance and string tables"};
    for (int t = 0; t < 6; t++) {
        fresh(NULL);
        slc_pack_header *h = tp_header(&tp);
        uint64_t offsets[] = {h->chunk_offset, h->object_offset,   h->lod_offset,
                              h->span_offset,  h->instance_offset, h->string_offset};
        tp.data[offsets[t] + 1] ^= 0x10;
        slc_pack *p = (slc_pack *)1;
        assert_int_equal(open_bytes(tp.data, tp.size, &p), SLC_E_PACK_TABLE_CHECKSUM);
        char prefix[96];
        snprintf(prefix, sizeof prefix, "pack 't.pack': %s: XXH3 is 0x", names[t]);
        assert_true(strncmp(logged.message, prefix, strlen(prefix)) == 0);
        assert_null(p);
    }
}

static void test_rejects_inconsistent_records(void **state)
{
    (void)state;
    slc_pack_header *h = tp_header(&tp);
    ((slc_pack_span *)tp_at(&tp, h->span_offset))[1].chunk = 3;
    tp_reseal(&tp);
    expect_open_fails(SLC_E_PACK_RECORD, "pack 't.pack': span 1: chunk 3 does not exist (3 chunks)");
    fresh(NULL);
    h = tp_header(&tp);
    ((slc_pack_span *)tp_at(&tp, h->span_offset))[1].cluster_count = 3;
    tp_reseal(&tp);
    expect_open_fails(SLC_E_PACK_RECORD, "pack 't.pack': span 1: clusters 0+3 do not exist in chunk 1 (2 clusters)");
    fresh(NULL);
    h = tp_header(&tp);
    ((slc_pack_object *)tp_at(&tp, h->object_offset))[1].lod_count = 3;
    tp_reseal(&tp);
    expect_open_fails(SLC_E_PACK_RECORD, "pack 't.pack': object 1: LODs 2..2+3 do not exist (4 LODs)");
    fresh(NULL);
    h = tp_header(&tp);
    ((slc_pack_object *)tp_at(&tp, h->object_offset))[0].name = 15;
    tp_reseal(&tp);
    expect_open_fails(SLC_E_PACK_RECORD, "pack 't.pack': object 0: name at 15 lies outside the 15-byte string table");
    fresh(NULL);
    h = tp_header(&tp);
    ((slc_pack_object *)tp_at(&tp, h->object_offset))[0].vertex_stride = 20;
    tp_reseal(&tp);
    expect_open_fails(SLC_E_PACK_RECORD, "pack 't.pack': object 0: attributes 0x1 with a 20-byte vertex are not valid");
    fresh(NULL);
    h = tp_header(&tp);
    ((slc_pack_lod *)tp_at(&tp, h->lod_offset))[3].span_count = 2;
    tp_reseal(&tp);
    expect_open_fails(SLC_E_PACK_RECORD, "pack 't.pack': LOD 3: spans 3+2 do not exist (4 spans)");
    fresh(NULL);
    h = tp_header(&tp);
    ((slc_pack_instance *)tp_at(&tp, h->instance_offset))[2].object = 2;
    tp_reseal(&tp);
    expect_open_fails(SLC_E_PACK_RECORD, "pack 't.pack': instance 2: object 2 does not exist (2 objects)");
    fresh(NULL);
    tp_chunk(&tp, 1)->codec = 9;
    tp_reseal(&tp);
    expect_open_fails(SLC_E_PACK_RECORD, "pack 't.pack': chunk 1: codec 9 is unknown");
    fresh(NULL);
    tp_chunk(&tp, 0)->stored_size = 999;
    tp_reseal(&tp);
    expect_open_fails(SLC_E_PACK_RECORD,
                      "pack 't.pack': chunk 0: 999 stored bytes cannot hold 1000 decoded bytes with codec 0 (stored)");
    fresh(NULL);
    h = tp_header(&tp);
    tp.data[h->string_offset + h->string_size - 1] = 'x';
    tp_reseal(&tp);
    expect_open_fails(SLC_E_PACK_RECORD, "pack 't.pack': string table: the last of its 15 bytes is not a NUL");
}

static void test_rejects_what_exceeds_the_profile(void **state)
{
    (void)state;
    slc_profile saved = limits;
    limits.max_chunks = 2;
    expect_open_fails(SLC_E_PACK_CAPACITY, "pack 't.pack': 3 chunks; the profile allows 2 (max_chunks)");
    limits = saved;
    limits.max_objects = 1;
    expect_open_fails(SLC_E_PACK_CAPACITY, "pack 't.pack': 2 objects; the profile allows 1 (max_objects)");
    limits = saved;
    limits.max_string_bytes = 14;
    expect_open_fails(SLC_E_PACK_CAPACITY,
                      "pack 't.pack': 15 bytes of strings; the profile allows 14 (max_string_bytes)");
    limits = saved;
    limits.max_lods = 1;
    expect_open_fails(SLC_E_PACK_CAPACITY, "pack 't.pack': object 0: 2 LOD levels; the profile allows 1 (max_lods)");
    limits = saved;
    limits.page_size = 2048;
    expect_open_fails(SLC_E_PACK_CAPACITY,
                      "pack 't.pack': pages of 4096 bytes do not fit the profile's 2048-byte pages");
    limits = saved;
}

static void test_refuses_tables_larger_than_meta_with_both_numbers(void **state)
{
    (void)state;
    /* Fill meta so the tables cannot fit, then check the message. */
    void *filler;
    slc_arena_mark m = slc_arena_get_mark(meta);
    assert_int_equal(slc_arena_alloc(meta, (1 << 16) - 500, 1, &filler), SLC_OK);
    slc_pack *p = (slc_pack *)1;
    assert_int_equal(open_bytes(tp.data, tp.size, &p), SLC_E_CAPACITY);
    assert_null(p);
    size_t need = 0;
    /* struct + 3*48 + 2*96 + 4*48 + 4*8 + 3*80 + 15, each rounded to 16 */
    assert_true(sscanf(logged.message, "pack 't.pack': its tables need %zu bytes; the meta arena has 500 of 65536 left",
                       &need) == 1);
    assert_true(need > 144 + 192 + 192 + 32 + 240 + 16);
    slc_arena_stats st;
    slc_arena_get_stats(meta, &st);
    assert_int_equal(st.used, (1 << 16) - 500);
    slc_arena_reset(meta, m);
}

static void test_chunk_larger_than_a_page(void **state)
{
    (void)state;
    tp_chunk(&tp, 2)->decoded_size = TP_PAGE + 1;
    tp_reseal(&tp);
    expect_open_fails(SLC_E_PACK_CHUNK_SIZE,
                      "pack 't.pack': chunk 2: decodes to 4097 bytes, more than the 4096-byte page");
    fresh(NULL);
    slc_pack *p;
    assert_int_equal(open_bytes(tp.data, tp.size, &p), SLC_OK);
    assert_int_equal(slc_pack_load_chunk(p, (slc_chunk_id){1}, page, TP_PAGE - 1, NULL, 0), SLC_E_PACK_CHUNK_SIZE);
    assert_string_equal(logged.message, "pack 't.pack': chunk 1: decodes to 4096 bytes, more than the 4095-byte page");
    slc_pack_close(p);
}

static void test_chunk_checksum_corrupt_lz4_and_size_mismatch(void **state)
{
    (void)state;
    slc_pack *p;
    /* A flipped stored byte: the checksum catches it before the decoder. */
    tp.data[tp_chunk(&tp, 1)->offset + 3] ^= 0x40;
    assert_int_equal(open_bytes(tp.data, tp.size, &p), SLC_OK);
    assert_int_equal(slc_pack_load_chunk(p, (slc_chunk_id){1}, page, sizeof page, NULL, 0), SLC_E_PACK_CHUNK_CHECKSUM);
    char want[200];
    snprintf(want, sizeof want,
             "pack 't.pack': chunk 1: XXH3 of its %u stored bytes is 0x%llx, the chunk table says 0x%llx",
             tp_chunk(&tp, 1)->stored_size,
             (unsigned long long)XXH3_64bits(tp.data + tp_chunk(&tp, 1)->offset, tp_chunk(&tp, 1)->stored_size),
             (unsigned long long)tp_chunk(&tp, 1)->xxh3);
    assert_string_equal(logged.message, want);
    /* The reader stays usable: the other chunks load. */
    assert_int_equal(slc_pack_load_chunk(p, (slc_chunk_id){0}, page, sizeof page, NULL, 0), SLC_OK);
    assert_int_equal(slc_pack_load_chunk(p, (slc_chunk_id){2}, page, sizeof page, NULL, 0), SLC_OK);
    assert_memory_equal(page, tp.decoded[2], tp.decoded_size[2]);
    slc_pack_close(p);

    /* Bytes LZ4 cannot decode, with a checksum that matches them. */
    fresh(NULL);
    slc_pack_chunk *c = tp_chunk(&tp, 2);
    memset(tp.data + c->offset, 0xff, c->stored_size);
    c->xxh3 = XXH3_64bits(tp.data + c->offset, c->stored_size);
    tp_reseal(&tp);
    assert_int_equal(open_bytes(tp.data, tp.size, &p), SLC_OK);
    assert_int_equal(slc_pack_load_chunk(p, (slc_chunk_id){2}, page, sizeof page, NULL, 0), SLC_E_PACK_CORRUPT);
    assert_true(strncmp(logged.message, "pack 't.pack': chunk 2: LZ4 rejects its", 39) == 0);
    assert_non_null(strstr(logged.message, "corrupt, or longer than the 2500 bytes its record says"));
    assert_int_equal(slc_pack_load_chunk(p, (slc_chunk_id){1}, page, sizeof page, NULL, 0), SLC_OK);
    slc_pack_close(p);

    /* Valid LZ4 whose output is shorter than the record says. */
    fresh(NULL);
    tp_chunk(&tp, 2)->decoded_size = 2600;
    tp_reseal(&tp);
    assert_int_equal(open_bytes(tp.data, tp.size, &p), SLC_OK);
    assert_int_equal(slc_pack_load_chunk(p, (slc_chunk_id){2}, page, sizeof page, NULL, 0), SLC_E_PACK_DECODED_SIZE);
    assert_string_equal(logged.message, "pack 't.pack': chunk 2: decoded to 2500 bytes, the chunk table says 2600");
    slc_pack_close(p);
    /* ... or longer: the decoder stops at the record's size. */
    fresh(NULL);
    tp_chunk(&tp, 2)->decoded_size = 2400;
    tp_reseal(&tp);
    memset(page, 0xcd, sizeof page);
    assert_int_equal(open_bytes(tp.data, tp.size, &p), SLC_OK);
    assert_int_equal(slc_pack_load_chunk(p, (slc_chunk_id){2}, page, sizeof page, NULL, 0), SLC_E_PACK_CORRUPT);
    assert_non_null(strstr(logged.message, "longer than the 2400 bytes its record says"));
    assert_int_equal(page[2400], 0xcd);
    slc_pack_close(p);
}

/* An io whose reads fail at a chosen read. */
typedef struct failing_io {
    slc_io io;
    const unsigned char *data;
    int reads_left; /* the read after this many fails */
    slc_status failure;
} failing_io;

static slc_status failing_read(void *user, uint64_t offset, void *dst, size_t size)
{
    failing_io *f = user;
    if (f->reads_left-- == 0) {
        return f->failure;
    }
    memcpy(dst, f->data + offset, size);
    return SLC_OK;
}

static void test_read_errors_are_named(void **state)
{
    (void)state;
    for (int n = 0; n < 9; n++) { /* the header, six tables, then chunk reads */
        for (int kind = 0; kind < 2; kind++) {
            failing_io f = {{failing_read, NULL, tp.size, NULL, NULL}, tp.data, n, kind ? SLC_E_IO_SHORT : SLC_E_IO};
            f.io.user = &f;
            slc_pack *p = NULL;
            slc_status s = slc_pack_open(&f.io, "io.pack", &limits, meta, &logger, &p);
            if (n < 7) {
                assert_int_equal(s, f.failure);
                assert_null(p);
                assert_non_null(strstr(logged.message, "failed ("));
                continue;
            }
            assert_int_equal(s, SLC_OK);
            /* Chunk 1 is LZ4: its read goes to scratch. */
            f.reads_left = 0;
            assert_int_equal(slc_pack_load_chunk(p, (slc_chunk_id){1}, page, sizeof page, scratch, sizeof scratch),
                             f.failure);
            char want[200];
            snprintf(want, sizeof want, "pack 'io.pack': chunk 1: read of %u bytes at offset %llu failed (%s)",
                     tp_chunk(&tp, 1)->stored_size, (unsigned long long)tp_chunk(&tp, 1)->offset,
                     slc_status_describe(f.failure));
            assert_string_equal(logged.message, want);
            f.reads_left = 100;
            assert_int_equal(slc_pack_load_chunk(p, (slc_chunk_id){1}, page, sizeof page, scratch, sizeof scratch),
                             SLC_OK);
            slc_pack_close(p);
        }
    }
}

static void test_every_flipped_byte_is_caught_or_harmless(void **state)
{
    (void)state;
    unsigned char *copy = malloc(tp.size);
    size_t caught = 0;
    for (size_t i = 0; i < tp.size; i++) {
        memcpy(copy, tp.data, tp.size);
        copy[i] ^= 0x5a;
        slc_pack *p = NULL;
        slc_status s = open_bytes(copy, tp.size, &p);
        int bad = s != SLC_OK;
        if (s == SLC_OK) {
            for (uint32_t c = 0; c < TP_CHUNKS; c++) {
                if (slc_pack_load_chunk(p, (slc_chunk_id){c}, page, sizeof page, NULL, 0) != SLC_OK) {
                    bad = 1;
                } else if (memcmp(page, tp.decoded[c], tp.decoded_size[c]) != 0) {
                    fail_msg("byte %zu flipped: chunk %u decoded to other bytes without an error", i, c);
                }
            }
            slc_pack_close(p);
        }
        caught += (size_t)bad;
    }
    free(copy);
    /* Only padding between sections is not covered by a checksum. */
    print_message("%zu of %zu flipped bytes caught\n", caught, tp.size);
    assert_true(caught + 8 * (TP_CHUNKS + 6) >= tp.size);
}

/* Loads chunk c of a resealed copy of tp whose decoded chunk 0 was changed
 * by edit, and checks it. */
static void expect_content(void (*edit)(unsigned char *), slc_status want, const char *message)
{
    fresh(NULL);
    slc_pack_chunk *c = tp_chunk(&tp, 0); /* stored: its bytes are the decoded bytes */
    edit(tp.data + c->offset);
    c->xxh3 = XXH3_64bits(tp.data + c->offset, c->stored_size);
    tp_reseal(&tp);
    slc_pack *p;
    assert_int_equal(open_bytes(tp.data, tp.size, &p), SLC_OK);
    assert_int_equal(slc_pack_load_chunk(p, (slc_chunk_id){0}, page, sizeof page, NULL, 0), SLC_OK);
    slc_status s = slc_pack_check_chunk(p, (slc_chunk_id){0}, page);
    if (s != want || (message != NULL && strcmp(logged.message, message) != 0)) {
        fail_msg("got %s \"%s\", want %s \"%s\"", slc_status_name(s), logged.message, slc_status_name(want),
                 message ? message : "");
    }
    slc_pack_close(p);
}

static void edit_nothing(unsigned char *b)
{
    (void)b;
}
static void edit_magic(unsigned char *b)
{
    b[0] ^= 1;
}
static void edit_object(unsigned char *b)
{
    b[16 + 32] = 7;
} /* cluster 1's object */
static void edit_vertex_offset(unsigned char *b)
{
    b[16 + 4] = 82;
} /* cluster 0, misaligned */
static void edit_index_range(unsigned char *b)
{
    b[16 + 32 + 8] = 0xff;
    b[16 + 32 + 9] = 0x03;
} /* past 1000 */
static void edit_index_value(unsigned char *b)
{
    b[252 + 4] = 4;
} /* cluster 1 has 4 vertices */

/* Cluster 1 grown to 249 triangles (747 index bytes up to the chunk's end:
 * 46 blocks of 16 for the vectorised maximum and a tail of 11), every index
 * valid but the one at bad_at (none when past the end), set to bad_value. */
static size_t bad_at;
static unsigned char bad_value;
static void edit_long_cluster(unsigned char *b)
{
    slc_pack_cluster cl;
    memcpy(&cl, b + 16 + sizeof cl, sizeof cl);
    cl.triangle_count = 249;
    memcpy(b + 16 + sizeof cl, &cl, sizeof cl);
    for (size_t k = 0; k < 747; k++) {
        b[252 + k] = (unsigned char)(k % 4);
    }
    if (bad_at < 747) {
        b[252 + bad_at] = bad_value;
    }
}

/* An index past the cluster's vertices is found wherever it lies: first,
 * last and across the 16-byte blocks of the scan, in its tail, and at the
 * largest byte value. */
static void test_checks_every_index_of_a_long_cluster(void **state)
{
    (void)state;
    bad_at = SIZE_MAX;
    expect_content(edit_long_cluster, SLC_OK, NULL);
    static const size_t at[] = {0, 15, 16, 17, 300, 735, 736, 745, 746};
    char want[128];
    for (size_t i = 0; i < sizeof at / sizeof at[0]; i++) {
        bad_at = at[i];
        bad_value = 4;
        snprintf(want, sizeof want, "pack 't.pack': chunk 0 cluster 1: triangle %zu uses vertex 4 of 4", at[i] / 3);
        expect_content(edit_long_cluster, SLC_E_PACK_CHUNK_CONTENT, want);
    }
    bad_at = 500;
    bad_value = 255;
    expect_content(edit_long_cluster, SLC_E_PACK_CHUNK_CONTENT,
                   "pack 't.pack': chunk 0 cluster 1: triangle 166 uses vertex 255 of 4");
}

static void test_checks_decoded_chunk_contents(void **state)
{
    (void)state;
    expect_content(edit_nothing, SLC_OK, NULL);
    for (uint32_t c = 1; c < TP_CHUNKS; c++) { /* the LZ4 chunks too */
        slc_pack *p;
        assert_int_equal(open_bytes(tp.data, tp.size, &p), SLC_OK);
        assert_int_equal(slc_pack_load_chunk(p, (slc_chunk_id){c}, page, sizeof page, NULL, 0), SLC_OK);
        assert_int_equal(slc_pack_check_chunk(p, (slc_chunk_id){c}, page), SLC_OK);
        slc_pack_close(p);
    }
    expect_content(edit_magic, SLC_E_PACK_CHUNK_CONTENT,
                   "pack 't.pack': chunk 0: header (magic 0x4b434c52, 2 clusters, LOD 0) disagrees with its record "
                   "(2 clusters, LOD 0)");
    expect_content(edit_object, SLC_E_PACK_CHUNK_CONTENT, "pack 't.pack': chunk 0 cluster 1: object 7 does not exist");
    expect_content(edit_vertex_offset, SLC_E_PACK_CHUNK_CONTENT,
                   "pack 't.pack': chunk 0 cluster 0: 3 vertices at 82 or 1 triangles at 152 lie outside 1000 bytes");
    expect_content(edit_index_range, SLC_E_PACK_CHUNK_CONTENT,
                   "pack 't.pack': chunk 0 cluster 1: 4 vertices at 156 or 2 triangles at 1023 lie outside 1000 bytes");
    expect_content(edit_index_value, SLC_E_PACK_CHUNK_CONTENT,
                   "pack 't.pack': chunk 0 cluster 1: triangle 1 uses vertex 4 of 4");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_opens_valid_pack_from_memory, fresh),
        cmocka_unit_test_setup(test_opens_valid_pack_from_file_mapped_and_pread, fresh),
        cmocka_unit_test_setup(test_rejects_bad_magic, fresh),
        cmocka_unit_test_setup(test_rejects_unknown_version_and_features, fresh),
        cmocka_unit_test_setup(test_rejects_every_truncation, fresh),
        cmocka_unit_test_setup(test_rejects_bad_header, fresh),
        cmocka_unit_test_setup(test_rejects_tables_out_of_bounds, fresh),
        cmocka_unit_test_setup(test_rejects_table_checksums, fresh),
        cmocka_unit_test_setup(test_rejects_inconsistent_records, fresh),
        cmocka_unit_test_setup(test_rejects_what_exceeds_the_profile, fresh),
        cmocka_unit_test_setup(test_refuses_tables_larger_than_meta_with_both_numbers, fresh),
        cmocka_unit_test_setup(test_chunk_larger_than_a_page, fresh),
        cmocka_unit_test_setup(test_chunk_checksum_corrupt_lz4_and_size_mismatch, fresh),
        cmocka_unit_test_setup(test_read_errors_are_named, fresh),
        cmocka_unit_test_setup(test_every_flipped_byte_is_caught_or_harmless, fresh),
        cmocka_unit_test_setup(test_checks_decoded_chunk_contents, fresh),
        cmocka_unit_test_setup(test_checks_every_index_of_a_long_cluster, fresh),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
