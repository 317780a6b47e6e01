/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the pack reader, open, every chunk load and (1.3) every
 * material and texture record, on any bytes.
 * Built by the `fuzz` preset (clang, ASan+UBSan); run by the test command for
 * a bounded time, and longer by hand (see docs/building.md). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

#include "sluice/sluice.h"

static _Alignas(64) unsigned char arena_mem[SLC_ARENA_FOOTPRINT(1 << 20)];
static unsigned char page[1 << 16];
static unsigned char scratch[1 << 18]; /* meshopt-lz4 read through read(): stored + decoded + indices */

/* The read() path over the same bytes, as pread would serve them. */
static const uint8_t *input;
static size_t input_size;

static slc_status read_input(void *user, uint64_t offset, void *dst, size_t size)
{
    (void)user;
    if (offset > input_size || size > input_size - offset) {
        return SLC_E_IO_SHORT;
    }
    memcpy(dst, input + offset, size);
    return SLC_OK;
}

/* Checksums stop almost every mutation at the header. A second pass runs
 * on a copy whose chunk, table, section and header checksums are recomputed, so the
 * fuzzer also reaches the record checks and the decoder. */
static uint8_t sealed[1 << 20];

static int in_file(uint64_t offset, uint64_t bytes, size_t size)
{
    return offset <= size && bytes <= size - offset;
}

static void reseal(uint8_t *d, size_t size)
{
    slc_pack_header h;
    memcpy(&h, d, sizeof h);
    uint64_t chunk_bytes = (uint64_t)h.chunk_count * sizeof(slc_pack_chunk);
    if (in_file(h.chunk_offset, chunk_bytes, size)) {
        for (uint32_t i = 0; i < h.chunk_count; i++) {
            slc_pack_chunk c;
            memcpy(&c, d + h.chunk_offset + (size_t)i * sizeof c, sizeof c);
            if (in_file(c.offset, c.stored_size, size)) {
                c.xxh3 = XXH3_64bits(d + c.offset, c.stored_size);
                memcpy(d + h.chunk_offset + (size_t)i * sizeof c, &c, sizeof c);
            }
        }
        h.chunk_xxh3 = XXH3_64bits(d + h.chunk_offset, (size_t)chunk_bytes);
    }
    uint64_t object_bytes = (uint64_t)h.object_count * sizeof(slc_pack_object);
    if (in_file(h.object_offset, object_bytes, size)) {
        h.object_xxh3 = XXH3_64bits(d + h.object_offset, (size_t)object_bytes);
    }
    uint64_t lod_bytes = (uint64_t)h.lod_count * sizeof(slc_pack_lod);
    uint64_t span_bytes = (uint64_t)h.span_count * sizeof(slc_pack_span);
    uint64_t inst_bytes = (uint64_t)h.instance_count * sizeof(slc_pack_instance);
    XXH3_state_t st;
    if (in_file(h.lod_offset, lod_bytes, size) && in_file(h.span_offset, span_bytes, size)) {
        XXH3_64bits_reset(&st);
        XXH3_64bits_update(&st, d + h.lod_offset, (size_t)lod_bytes);
        XXH3_64bits_update(&st, d + h.span_offset, (size_t)span_bytes);
        h.lod_xxh3 = XXH3_64bits_digest(&st);
    }
    if (in_file(h.instance_offset, inst_bytes, size) && in_file(h.string_offset, h.string_size, size)) {
        XXH3_64bits_reset(&st);
        XXH3_64bits_update(&st, d + h.instance_offset, (size_t)inst_bytes);
        XXH3_64bits_update(&st, d + h.string_offset, h.string_size);
        h.instance_xxh3 = XXH3_64bits_digest(&st);
    }
    /* 1.3's sections and their directory. */
    uint64_t dir_bytes = (uint64_t)h.section_count * sizeof(slc_pack_section);
    if (h.section_count <= SLC_PACK_MAX_SECTIONS && in_file(h.section_offset, dir_bytes + 8u, size)) {
        for (uint32_t i = 0; i < h.section_count; i++) {
            slc_pack_section sec;
            memcpy(&sec, d + h.section_offset + i * sizeof sec, sizeof sec);
            if (in_file(sec.offset, sec.size, size)) {
                sec.xxh3 = XXH3_64bits(d + sec.offset, (size_t)sec.size);
                memcpy(d + h.section_offset + i * sizeof sec, &sec, sizeof sec);
            }
        }
        uint64_t sum = XXH3_64bits(d + h.section_offset, (size_t)dir_bytes);
        memcpy(d + h.section_offset + dir_bytes, &sum, sizeof sum);
    }
    h.file_size = size;
    h.header_xxh3 = XXH3_64bits(&h, offsetof(slc_pack_header, header_xxh3));
    memcpy(d, &h, sizeof h);
}

static void run(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    run(data, size);
    if (size >= sizeof(slc_pack_header) && size <= sizeof sealed) {
        memcpy(sealed, data, size);
        reseal(sealed, size);
        run(sealed, size);
    }
    return 0;
}

static void run(const uint8_t *data, size_t size)
{
    slc_arena *meta;
    if (slc_arena_init(arena_mem, sizeof arena_mem, NULL, SLC_BUDGET_NONE, &meta) != SLC_OK) {
        return;
    }
    slc_profile limits;
    memset(&limits, 0, sizeof limits);
    limits.page_size = sizeof page;
    limits.max_chunks = 4096;
    limits.max_objects = 4096;
    limits.max_lods = 16;
    limits.max_string_bytes = 1 << 16;
    /* Both paths: the pack in memory (mapped) and read through read(). */
    for (int mapped = 0; mapped < 2; mapped++) {
        slc_io io = {read_input, NULL, size, NULL, NULL}; /* reads go through io.read, into scratch */
        input = data;
        input_size = size;
        if (mapped) {
            slc_io_from_memory(data, size, &io);
        }
        slc_pack *p;
        if (slc_pack_open(&io, "fuzz", &limits, meta, NULL, &p) != SLC_OK) {
            continue;
        }
        const slc_pack_header *h = slc_pack_get_header(p);
        for (uint32_t c = 0; c < h->chunk_count && c < 64; c++) {
            if (slc_pack_load_chunk(p, (slc_chunk_id){c}, page, sizeof page, scratch, sizeof scratch) == SLC_OK) {
                (void)slc_pack_check_chunk(p, (slc_chunk_id){c}, page);
            }
        }
        for (uint32_t o = 0; o < h->object_count && o < 64; o++) {
            (void)slc_pack_get_string(p, slc_pack_get_object(p, (slc_object_id){o})->name);
        }
        for (uint32_t i = 0; i < slc_pack_material_count(p) && i < 64; i++) {
            slc_pack_material m;
            if (slc_pack_read_material(p, i, &m) == SLC_OK) {
                (void)slc_pack_get_string(p, m.name);
            }
        }
        for (uint32_t i = 0; i < slc_pack_texture_count(p) && i < 64; i++) {
            slc_pack_texture t;
            slc_pack_texture_layout lay;
            if (slc_pack_read_texture(p, i, &t) == SLC_OK) {
                (void)slc_pack_get_string(p, t.name);
                (void)slc_pack_texture_layout_of(t.width, t.height, t.format, t.tile, t.border, &lay);
            }
        }
        slc_pack_close(p);
    }
}
