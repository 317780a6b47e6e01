/* SPDX-License-Identifier: MIT */
/* A pack for the stream's tests, generated in memory from a seed: objects
 * laid out on a line, each with a chain of LODs whose finer levels span more
 * chunks, every chunk a valid decoded chunk (sluice/pack_format.h) padded
 * with structured, pseudo-random filler, LZ4-compressed or stored. The same
 * parameters give the same bytes on every architecture (a private xorshift,
 * LZ4's output is deterministic), so eviction logs can be compared across
 * machines. Also: an slc_io over the pack that injects delays and faults. */
#ifndef SLUICE_STREAM_PACK_H
#define SLUICE_STREAM_PACK_H

#include <errno.h>
#include <lz4.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <xxhash.h>

#include "test_pack.h"

#define SP_MAX_LODS 4u

typedef struct sp_params {
    uint32_t page_size; /* the pack's page size */
    uint32_t objects;
    uint32_t lods;                /* per object, at most SP_MAX_LODS */
    uint32_t chunks[SP_MAX_LODS]; /* chunks of each level, finest first */
    uint64_t seed;
} sp_params;

typedef struct sp_pack {
    unsigned char *data;
    size_t size;
    uint32_t chunk_count;
    uint64_t *decoded_xxh3; /* XXH3 of each chunk's decoded bytes */
    uint32_t *decoded_size;
} sp_pack;

static inline uint64_t sp_next(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    *s = x;
    return x;
}

/* Chunks of object o's level l are numbered consecutively, object by object,
 * finest level first. */
static inline void sp_build(sp_pack *out, const sp_params *prm)
{
    memset(out, 0, sizeof *out);
    uint32_t per_object = 0;
    for (uint32_t l = 0; l < prm->lods; l++) {
        per_object += prm->chunks[l];
    }
    uint32_t nchunks = per_object * prm->objects;
    uint32_t nlods = prm->lods * prm->objects;
    size_t cap = sizeof(slc_pack_header) + (size_t)nchunks * ((size_t)LZ4_compressBound((int)prm->page_size) + 8u) +
                 (size_t)nchunks * (sizeof(slc_pack_chunk) + sizeof(slc_pack_span)) +
                 (size_t)prm->objects * sizeof(slc_pack_object) + (size_t)nlods * sizeof(slc_pack_lod) + 64u;
    unsigned char *data = calloc(1, cap);
    slc_pack_chunk *chunks = calloc(nchunks, sizeof *chunks);
    slc_pack_span *spans = calloc(nchunks, sizeof *spans);
    slc_pack_object *objects = calloc(prm->objects, sizeof *objects);
    slc_pack_lod *lods = calloc(nlods, sizeof *lods);
    unsigned char *page = malloc(prm->page_size);
    out->decoded_xxh3 = calloc(nchunks, sizeof(uint64_t));
    out->decoded_size = calloc(nchunks, sizeof(uint32_t));
    assert_non_null(data);
    assert_non_null(chunks);
    assert_non_null(spans);
    assert_non_null(objects);
    assert_non_null(lods);
    assert_non_null(page);
    uint64_t rng = prm->seed | 1u;
    size_t at = sizeof(slc_pack_header);
    uint32_t c = 0;
    for (uint32_t o = 0; o < prm->objects; o++) {
        objects[o].name = SLC_PACK_NO_NAME;
        objects[o].first_lod = o * prm->lods;
        objects[o].lod_count = prm->lods;
        objects[o].attributes = SLC_PACK_ATTR_NORMAL;
        objects[o].vertex_stride = 24;
        objects[o].pos_scale[0] = objects[o].pos_scale[1] = objects[o].pos_scale[2] = 1.0f;
        objects[o].aabb_min[0] = (float)o * 10.0f;
        objects[o].aabb_max[0] = (float)o * 10.0f + 8.0f;
        objects[o].aabb_max[1] = objects[o].aabb_max[2] = 8.0f;
        for (uint32_t l = 0; l < prm->lods; l++) {
            slc_pack_lod *lr = &lods[o * prm->lods + l];
            lr->first_span = c;
            lr->span_count = prm->chunks[l];
            lr->triangle_count = 3u * prm->chunks[l];
            lr->vertex_count = 7u * prm->chunks[l];
            lr->error = (float)l;
            lr->sphere[0] = (float)o * 10.0f + 4.0f;
            lr->sphere[3] = 7.0f;
            for (uint32_t k = 0; k < prm->chunks[l]; k++, c++) {
                /* half a page to a whole page, structured filler after the clusters */
                uint32_t size = prm->page_size / 2u + (uint32_t)(sp_next(&rng) % (prm->page_size / 2u + 1u));
                uint32_t step = 1u + (uint32_t)(sp_next(&rng) % 13u);
                for (uint32_t i = 0; i < size; i++) {
                    page[i] = (unsigned char)((i / step) * (c + 5u) + ((sp_next(&rng) & 15u) == 0 ? sp_next(&rng) : 0));
                }
                tp_fill_chunk(page, l, o);
                slc_pack_chunk *r = &chunks[c];
                r->offset = at;
                r->decoded_size = size;
                if (c % 5u == 4u) {
                    r->codec = SLC_PACK_CODEC_STORED;
                    memcpy(data + at, page, size);
                    r->stored_size = size;
                } else {
                    r->codec = SLC_PACK_CODEC_LZ4;
                    int n = LZ4_compress_default((const char *)page, (char *)data + at, (int)size, (int)(cap - at));
                    assert_true(n > 0);
                    r->stored_size = (uint32_t)n;
                }
                r->xxh3 = XXH3_64bits(data + at, r->stored_size);
                r->lod = (uint8_t)l;
                r->flags = l + 1u == prm->lods ? SLC_PACK_CHUNK_COARSEST : 0;
                r->cluster_count = 2;
                r->triangle_count = 3;
                r->vertex_count = 7;
                r->first_object = o;
                spans[c].chunk = c;
                spans[c].first_cluster = 0;
                spans[c].cluster_count = 2;
                out->decoded_xxh3[c] = XXH3_64bits(page, size);
                out->decoded_size[c] = size;
                at = (size_t)slc__test_align(at + r->stored_size);
            }
        }
    }
    slc_pack_header h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, SLC_PACK_MAGIC, SLC_PACK_MAGIC_SIZE);
    h.version_major = SLC_PACK_VERSION_MAJOR;
    h.version_minor = SLC_PACK_VERSION_MINOR;
    h.header_size = sizeof h;
    h.page_size = prm->page_size;
    static const char strings[] = "";
#define SP_PUT(field_offset, field_count, src, count)                          \
    do {                                                                       \
        h.field_offset = at;                                                   \
        h.field_count = (uint32_t)(count);                                     \
        memcpy(data + at, (src), (size_t)(count) * sizeof((src)[0]));          \
        at = (size_t)slc__test_align(at + (size_t)(count) * sizeof((src)[0])); \
    } while (0)
    SP_PUT(chunk_offset, chunk_count, chunks, nchunks);
    SP_PUT(object_offset, object_count, objects, prm->objects);
    SP_PUT(lod_offset, lod_count, lods, nlods);
    SP_PUT(span_offset, span_count, spans, nchunks);
    h.instance_offset = at;
    h.instance_count = 0;
    SP_PUT(string_offset, string_size, strings, 1u);
#undef SP_PUT
    assert_true(at <= cap);
    h.file_size = at;
    memcpy(data, &h, sizeof h);
    out->data = data;
    out->size = at;
    out->chunk_count = nchunks;
    test_pack t = {.data = data, .size = at};
    tp_reseal(&t);
    free(chunks);
    free(spans);
    free(objects);
    free(lods);
    free(page);
}

static inline void sp_free(sp_pack *p)
{
    free(p->data);
    free(p->decoded_xxh3);
    free(p->decoded_size);
    memset(p, 0, sizeof *p);
}

/* The page at host (a visible chunk's page, as the test's store maps it)
 * holds chunk's decoded bytes: host is not NULL and the bytes' XXH3 is the
 * chunk's. */
static inline void sp_assert_page_holds(const sp_pack *p, const void *host, uint32_t chunk)
{
    assert_non_null(host);
    if (XXH3_64bits(host, p->decoded_size[chunk]) != p->decoded_xxh3[chunk]) {
        fail_msg("chunk %u: its page holds other bytes", chunk);
    }
}

/* An slc_io over an sp_pack (never mapped, so every load goes through
 * read()), with faults chosen per chunk and attempt, and random delays. */
#define SP_FAULT_MAX 16u
typedef struct sp_fault {
    uint32_t chunk;
    slc_status status; /* SLC_E_IO or SLC_E_IO_SHORT: returned by read(); SLC_OK: the bytes read are corrupted */
    uint32_t attempts; /* how many reads of the chunk fail (UINT32_MAX: all) */
} sp_fault;

typedef struct sp_io {
    slc_io io;
    const sp_pack *pack;
    const slc_pack_chunk *table; /* the pack's chunk table, for offsets */
    uint32_t fault_count;
    sp_fault faults[SP_FAULT_MAX];
    _Atomic uint32_t reads[SP_FAULT_MAX]; /* reads of each faulty chunk so far */
    uint32_t max_delay_us;                /* each read sleeps 0..max_delay_us */
    _Atomic uint64_t rng;
    /* A gate: reads of gate_chunk block until gate_open is set. */
    uint32_t gate_chunk;
    _Atomic int gate_open;
    _Atomic int gate_entered;
    _Atomic uint64_t read_count;
} sp_io;

static inline void sp_sleep_us(uint32_t us)
{
    struct timespec ts = {0, (long)us * 1000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

static inline slc_status sp_io_read(void *user, uint64_t offset, void *dst, size_t size)
{
    sp_io *io = user;
    atomic_fetch_add(&io->read_count, 1);
    if (offset > io->pack->size || size > io->pack->size - offset) {
        return SLC_E_IO_SHORT;
    }
    if (io->max_delay_us != 0) {
        uint64_t r = atomic_fetch_add(&io->rng, 0x9E3779B97F4A7C15ull) * 0xBF58476D1CE4E5B9ull;
        sp_sleep_us((uint32_t)((r >> 33) % (io->max_delay_us + 1u)));
    }
    /* which chunk: the table is sorted by offset */
    uint32_t chunk = UINT32_MAX;
    const slc_pack_header *h = (const slc_pack_header *)(const void *)io->pack->data;
    for (uint32_t lo = 0, hi = h->chunk_count; lo < hi;) {
        uint32_t mid = lo + (hi - lo) / 2u;
        if (io->table[mid].offset == offset) {
            chunk = mid;
            break;
        }
        if (io->table[mid].offset < offset) {
            lo = mid + 1u;
        } else {
            hi = mid;
        }
    }
    if (chunk != UINT32_MAX && chunk == io->gate_chunk) {
        atomic_store(&io->gate_entered, 1);
        while (!atomic_load(&io->gate_open)) {
            sp_sleep_us(100);
        }
    }
    memcpy(dst, io->pack->data + offset, size);
    for (uint32_t i = 0; i < io->fault_count; i++) {
        if (io->faults[i].chunk != chunk) {
            continue;
        }
        uint32_t n = atomic_fetch_add(&io->reads[i], 1);
        if (n >= io->faults[i].attempts) {
            break;
        }
        if (io->faults[i].status == SLC_OK) {
            ((unsigned char *)dst)[size / 2u] ^= 0x5Au; /* the checksum catches it */
            break;
        }
        return io->faults[i].status;
    }
    return SLC_OK;
}

static inline void sp_io_init(sp_io *io, const sp_pack *p)
{
    memset(io, 0, sizeof *io);
    io->pack = p;
    const slc_pack_header *h = (const slc_pack_header *)(const void *)p->data;
    io->table = (const slc_pack_chunk *)(const void *)(p->data + h->chunk_offset);
    io->io.read = sp_io_read;
    io->io.user = io;
    io->io.size = p->size;
    io->io.mapped = NULL;
    io->gate_chunk = UINT32_MAX;
    atomic_init(&io->rng, 0x1234567ull);
}

static inline void sp_io_fault(sp_io *io, uint32_t chunk, slc_status status, uint32_t attempts)
{
    assert_true(io->fault_count < SP_FAULT_MAX);
    io->faults[io->fault_count].chunk = chunk;
    io->faults[io->fault_count].status = status;
    io->faults[io->fault_count].attempts = attempts;
    io->fault_count++;
}

#endif
