/* SPDX-License-Identifier: MIT */
/* sluice pack: partial packs (see part.h, docs/pack-format.md). */
#define _POSIX_C_SOURCE 200809L
#define _FILE_OFFSET_BITS 64

#include "part.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define XXH_STATIC_LINKING_ONLY /* XXH3_state_t by value */
#include <xxhash.h>

#include "atomic_file.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "partial packs are written as they lie in memory: little-endian hosts only"
#endif

#define PART_HEADER_BYTES ((uint32_t)sizeof(pk_part_header))
#define CHECK_BUFFER (1u << 20) /* bytes read at a time when checksums are verified */

static uint64_t align8(uint64_t v)
{
    return (v + 7u) & ~(uint64_t)7u;
}

/* The bytes of a bundle's records for these counts (part.h, the layout). */
static uint64_t records_bytes(const pk_part_entry *e)
{
    return align8((uint64_t)e->chunk_count * sizeof(slc_pack_chunk)) + align8((uint64_t)e->chunk_count * 4u) +
           align8((uint64_t)e->object_count * sizeof(slc_pack_object)) +
           align8((uint64_t)e->lod_count * sizeof(slc_pack_lod)) +
           align8((uint64_t)e->span_count * sizeof(slc_pack_span)) +
           align8((uint64_t)e->instance_count * sizeof(slc_pack_instance)) +
           align8((uint64_t)e->material_count * sizeof(slc_pack_material)) +
           align8((uint64_t)e->texture_count * sizeof(slc_pack_texture)) + e->string_size;
}

/* --- writing ------------------------------------------------------------- */

struct pk_part_writer {
    char *path;
    atomic_file out;
    int io_failed;
    uint64_t end;
    XXH3_state_t hash; /* of the open region (payloads or records) */
    int payload_open;  /* a bundle's payload region has started */
    uint64_t payload_offset;
    uint32_t *order;
    uint32_t order_count, order_cap;
    pk_part_entry *dir;
    uint32_t dir_count, dir_cap;
    pk_part_stats stats;
};

static int emit(pk_part_writer *w, const void *data, size_t size, pk_diag *d)
{
    if (size == 0) {
        return 0;
    }
    if (pk_pwrite_all(w->out.fd, data, size, w->end) != 0) {
        w->io_failed = 1;
        return pk_fail(d, "%s: write of %zu bytes at offset %llu failed: %s", w->path, size, (unsigned long long)w->end,
                       errno != 0 ? strerror(errno) : "no progress");
    }
    XXH3_64bits_update(&w->hash, data, size);
    w->end += size;
    return 0;
}

static int emit_pad(pk_part_writer *w, pk_diag *d)
{
    static const unsigned char zeros[8];
    return emit(w, zeros, (size_t)(align8(w->end) - w->end), d);
}

static void part_release(pk_part_writer *w)
{
    atomic_file_abort(&w->out);
    free(w->path);
    free(w->order);
    free(w->dir);
    free(w);
}

int pk_part_open(const char *path, pk_part_writer **out, pk_diag *d)
{
    *out = NULL;
    pk_part_writer *w = calloc(1, sizeof *w);
    if (w == NULL || (w->path = strdup(path)) == NULL) {
        free(w);
        return pk_fail(d, "%s: out of memory", path);
    }
    w->out.fd = -1;
    w->out.slot = -1;
    char err[sizeof d->message];
    if (atomic_file_open(&w->out, path, err, sizeof err) != 0) {
        part_release(w);
        return pk_fail(d, "%s", err);
    }
    static const unsigned char zeros[sizeof(pk_part_header)];
    XXH3_64bits_reset(&w->hash);
    if (emit(w, zeros, sizeof zeros, d) != 0) {
        part_release(w);
        return -1;
    }
    *out = w;
    return 0;
}

static int start_payload(pk_part_writer *w, pk_diag *d)
{
    if (w->payload_open) {
        return 0;
    }
    if (emit_pad(w, d) != 0) {
        return -1;
    }
    XXH3_64bits_reset(&w->hash);
    w->payload_offset = w->end;
    w->payload_open = 1;
    w->order_count = 0;
    return 0;
}

int pk_part_chunk(pk_part_writer *w, slc_pack_chunk *rec, uint32_t local, const void *stored, pk_diag *d)
{
    if (start_payload(w, d) != 0) {
        return -1;
    }
    if (pk_grow((void **)&w->order, &w->order_cap, (uint64_t)w->order_count + 1, sizeof *w->order) != 0) {
        return pk_fail(d, "%s: out of memory", w->path);
    }
    if (emit_pad(w, d) != 0) {
        return -1;
    }
    rec->offset = w->end;
    if (emit(w, stored, rec->stored_size, d) != 0) {
        return -1;
    }
    w->order[w->order_count++] = local;
    w->stats.chunks_stored_raw += rec->codec == SLC_PACK_CODEC_STORED;
    w->stats.chunks_codec[rec->codec & 3u]++;
    w->stats.bytes_raw += rec->decoded_size;
    w->stats.bytes_stored += rec->stored_size;
    return 0;
}

static int emit_section(pk_part_writer *w, const void *data, size_t size, int pad, pk_diag *d)
{
    if (emit(w, data, size, d) != 0) {
        return -1;
    }
    return pad ? emit_pad(w, d) : 0;
}

int pk_part_bundle(pk_part_writer *w, uint32_t bundle, uint32_t first_object, const slc_pack_chunk *chunks,
                   const pk_bundle_records *r, pk_diag *d)
{
    if (start_payload(w, d) != 0) {
        return -1;
    }
    if (w->order_count != r->chunk_count) {
        return pk_fail(d, "%s: bundle %u has %u chunks, %u appended", w->path, bundle, r->chunk_count, w->order_count);
    }
    if (pk_grow((void **)&w->dir, &w->dir_cap, (uint64_t)w->dir_count + 1, sizeof *w->dir) != 0) {
        return pk_fail(d, "%s: out of memory", w->path);
    }
    pk_part_entry e;
    memset(&e, 0, sizeof e);
    e.bundle = bundle;
    e.first_object = first_object;
    e.chunk_count = r->chunk_count;
    e.object_count = r->object_count;
    e.lod_count = r->lod_count;
    e.span_count = r->span_count;
    e.instance_count = r->instance_count;
    e.material_count = r->material_count;
    e.texture_count = r->texture_count;
    e.string_size = r->string_size;
    e.payload_offset = w->payload_offset;
    e.payload_size = w->end - w->payload_offset;
    e.payload_xxh3 = XXH3_64bits_digest(&w->hash);
    w->payload_open = 0;
    if (emit_pad(w, d) != 0) {
        return -1;
    }
    XXH3_64bits_reset(&w->hash);
    e.records_offset = w->end;
    if (emit_section(w, chunks, (size_t)r->chunk_count * sizeof *chunks, 1, d) != 0 ||
        emit_section(w, w->order, (size_t)r->chunk_count * sizeof *w->order, 1, d) != 0 ||
        emit_section(w, r->objects, (size_t)r->object_count * sizeof *r->objects, 1, d) != 0 ||
        emit_section(w, r->lods, (size_t)r->lod_count * sizeof *r->lods, 1, d) != 0 ||
        emit_section(w, r->spans, (size_t)r->span_count * sizeof *r->spans, 1, d) != 0 ||
        emit_section(w, r->instances, (size_t)r->instance_count * sizeof *r->instances, 1, d) != 0 ||
        emit_section(w, r->materials, (size_t)r->material_count * sizeof *r->materials, 1, d) != 0 ||
        emit_section(w, r->textures, (size_t)r->texture_count * sizeof *r->textures, 1, d) != 0 ||
        emit_section(w, r->strings, r->string_size, 0, d) != 0) {
        return -1;
    }
    e.records_size = w->end - e.records_offset;
    e.records_xxh3 = XXH3_64bits_digest(&w->hash);
    w->dir[w->dir_count++] = e;
    return 0;
}

int pk_part_finish(pk_part_writer *w, const pk_part_info *info, pk_part_stats *stats, pk_diag *d)
{
    pk_part_header h;
    memset(&h, 0, sizeof h);
    if (emit_pad(w, d) != 0) {
        part_release(w);
        return -1;
    }
    h.directory_offset = w->end;
    if (emit(w, w->dir, (size_t)w->dir_count * sizeof *w->dir, d) != 0) {
        part_release(w);
        return -1;
    }
    memcpy(h.magic, PK_PART_MAGIC, sizeof h.magic);
    h.version = PK_PART_VERSION;
    h.header_size = PART_HEADER_BYTES;
    h.part = info->part;
    h.part_count = info->part_count;
    h.bundle_count = info->bundle_count;
    h.bundles_here = w->dir_count;
    h.page_size = info->page_size;
    h.quantize = info->quantize;
    h.fingerprint = info->fingerprint;
    h.file_size = w->end;
    h.directory_xxh3 = XXH3_64bits(w->dir, (size_t)w->dir_count * sizeof *w->dir);
    h.header_xxh3 = XXH3_64bits(&h, offsetof(pk_part_header, header_xxh3));
    if (pk_pwrite_all(w->out.fd, &h, sizeof h, 0) != 0) {
        pk_fail(d, "%s: write of the header failed: %s", w->path, errno != 0 ? strerror(errno) : "no progress");
        part_release(w);
        return -1;
    }
    char err[sizeof d->message];
    if (atomic_file_commit(&w->out, err, sizeof err) != 0) {
        pk_fail(d, "%s", err);
        part_release(w);
        return -1;
    }
    w->stats.file_size = h.file_size;
    if (stats != NULL) {
        *stats = w->stats;
    }
    part_release(w);
    return 0;
}

int pk_part_io_failed(const pk_part_writer *w)
{
    return w->io_failed;
}

void pk_part_abort(pk_part_writer *w)
{
    if (w != NULL) {
        part_release(w);
    }
}

/* --- reading ------------------------------------------------------------- */

struct pk_part_reader {
    char *path;
    int fd;
    pk_part_header h;
    pk_part_entry *dir;
    unsigned char *records; /* the loaded bundle's */
    unsigned char *buf;     /* CHECK_BUFFER bytes */
};

int pk_part_read(pk_part_reader *r, uint64_t offset, void *buf, size_t size, pk_diag *d)
{
    if (pk_pread_all(r->fd, buf, size, offset) != 0) {
        return pk_fail(d, "%s: read of %zu bytes at offset %llu failed: %s", r->path, size, (unsigned long long)offset,
                       errno != 0 ? strerror(errno) : "end of file");
    }
    return 0;
}

/* XXH3 of size bytes at offset, through r->buf. */
static int hash_range(pk_part_reader *r, uint64_t offset, uint64_t size, uint64_t *out, pk_diag *d)
{
    XXH3_state_t st;
    XXH3_64bits_reset(&st);
    while (size > 0) {
        size_t n = size > CHECK_BUFFER ? CHECK_BUFFER : (size_t)size;
        if (pk_part_read(r, offset, r->buf, n, d) != 0) {
            return -1;
        }
        XXH3_64bits_update(&st, r->buf, n);
        offset += n;
        size -= n;
    }
    *out = XXH3_64bits_digest(&st);
    return 0;
}

void pk_part_reader_close(pk_part_reader *r)
{
    if (r == NULL) {
        return;
    }
    if (r->fd >= 0) {
        (void)close(r->fd); /* read only: nothing to lose */
    }
    free(r->path);
    free(r->dir);
    free(r->records);
    free(r->buf);
    free(r);
}

/* Bundles b < count with b % n == k - 1. */
static uint32_t bundles_of_part(uint32_t count, uint32_t k, uint32_t n)
{
    return count >= k ? (count - k) / n + 1 : 0;
}

static int check_entry(const pk_part_reader *r, uint32_t i, pk_diag *d)
{
    const pk_part_entry *e = &r->dir[i];
    const pk_part_header *h = &r->h;
    uint64_t want = (uint64_t)h->part - 1 + (uint64_t)i * h->part_count;
    if (e->bundle != want) {
        return pk_fail(d, "%s: directory entry %u is bundle %u, expected %llu", r->path, i, e->bundle,
                       (unsigned long long)want);
    }
    if (e->payload_offset > h->file_size || e->payload_size > h->file_size - e->payload_offset ||
        e->records_offset > h->file_size || e->records_size > h->file_size - e->records_offset ||
        e->records_offset < e->payload_offset + e->payload_size || e->payload_offset < PART_HEADER_BYTES) {
        return pk_fail(d, "%s: bundle %u: payloads or records outside the file", r->path, e->bundle);
    }
    if (e->records_size != records_bytes(e)) {
        return pk_fail(d, "%s: bundle %u: %llu record bytes, its counts make %llu", r->path, e->bundle,
                       (unsigned long long)e->records_size, (unsigned long long)records_bytes(e));
    }
    return 0;
}

int pk_part_reader_open(const char *path, pk_part_reader **out, pk_diag *d)
{
    *out = NULL;
    pk_part_reader *r = calloc(1, sizeof *r);
    if (r == NULL || (r->path = strdup(path)) == NULL || (r->buf = malloc(CHECK_BUFFER)) == NULL) {
        pk_part_reader_close(r);
        return pk_fail(d, "%s: out of memory", path);
    }
    r->fd = open(path, O_RDONLY);
    struct stat st;
    if (r->fd < 0 || fstat(r->fd, &st) != 0) {
        pk_fail(d, "%s: cannot open: %s", path, strerror(errno));
        pk_part_reader_close(r);
        return -2;
    }
    pk_part_header *h = &r->h;
    uint64_t size = (uint64_t)st.st_size;
    int rc = 0;
    if (size < PART_HEADER_BYTES) {
        rc = pk_fail(d, "%s: truncated: %llu bytes, less than the %u-byte header of a partial pack", path,
                     (unsigned long long)size, PART_HEADER_BYTES);
    } else if (pk_part_read(r, 0, h, sizeof *h, d) != 0) {
        rc = -1;
    } else if (memcmp(h->magic, PK_PART_MAGIC, sizeof h->magic) != 0) {
        rc = pk_fail(d, "%s: not a partial pack (bad magic)", path);
    } else if (h->version != PK_PART_VERSION) {
        rc = pk_fail(d, "%s: partial pack version %u, this sluice reads version %u", path, h->version, PK_PART_VERSION);
    } else if (h->header_xxh3 != XXH3_64bits(h, offsetof(pk_part_header, header_xxh3))) {
        rc = pk_fail(d, "%s: header checksum mismatch", path);
    } else if (h->header_size != PART_HEADER_BYTES) {
        rc = pk_fail(d, "%s: header size %u, expected %u", path, h->header_size, PART_HEADER_BYTES);
    } else if (h->file_size != size) {
        rc = pk_fail(d, "%s: truncated or extended: the header says %llu bytes, the file has %llu", path,
                     (unsigned long long)h->file_size, (unsigned long long)size);
    } else if (h->part_count < 1 || h->part_count > PK_PART_MAX_PARTS || h->part < 1 || h->part > h->part_count) {
        rc = pk_fail(d, "%s: part %u of %u is not K of N with 1 <= K <= N <= %u", path, h->part, h->part_count,
                     PK_PART_MAX_PARTS);
    } else if (h->bundles_here != bundles_of_part(h->bundle_count, h->part, h->part_count)) {
        rc = pk_fail(d, "%s: %u bundles in the directory, part %u of %u of %u bundles has %u", path, h->bundles_here,
                     h->part, h->part_count, h->bundle_count, bundles_of_part(h->bundle_count, h->part, h->part_count));
    } else if (h->directory_offset > size ||
               (uint64_t)h->bundles_here * sizeof(pk_part_entry) > size - h->directory_offset) {
        rc = pk_fail(d, "%s: the directory lies outside the file", path);
    }
    if (rc == 0) {
        size_t n = (size_t)h->bundles_here * sizeof(pk_part_entry);
        r->dir = malloc(n ? n : 1);
        if (r->dir == NULL) {
            rc = pk_fail(d, "%s: out of memory", path);
        } else if (pk_part_read(r, h->directory_offset, r->dir, n, d) != 0) {
            rc = -1;
        } else if (XXH3_64bits(r->dir, n) != h->directory_xxh3) {
            rc = pk_fail(d, "%s: directory checksum mismatch", path);
        }
    }
    for (uint32_t i = 0; rc == 0 && i < h->bundles_here; i++) {
        const pk_part_entry *e = &r->dir[i];
        uint64_t x = 0;
        uint64_t y = 0;
        if (check_entry(r, i, d) != 0 || hash_range(r, e->payload_offset, e->payload_size, &x, d) != 0 ||
            hash_range(r, e->records_offset, e->records_size, &y, d) != 0) {
            rc = -1;
        } else if (x != e->payload_xxh3) {
            rc = pk_fail(d, "%s: bundle %u: payload checksum mismatch", path, e->bundle);
        } else if (y != e->records_xxh3) {
            rc = pk_fail(d, "%s: bundle %u: records checksum mismatch", path, e->bundle);
        }
    }
    if (rc != 0) {
        pk_part_reader_close(r);
        return -1;
    }
    *out = r;
    return 0;
}

const pk_part_header *pk_part_reader_header(const pk_part_reader *r)
{
    return &r->h;
}

int pk_part_load_bundle(pk_part_reader *r, uint32_t i, const pk_part_entry **entry, pk_part_records *out, pk_diag *d)
{
    const pk_part_entry *e = &r->dir[i];
    *entry = e;
    free(r->records);
    r->records = malloc(e->records_size ? (size_t)e->records_size : 1);
    if (r->records == NULL) {
        return pk_fail(d, "%s: bundle %u: out of memory for %llu record bytes", r->path, e->bundle,
                       (unsigned long long)e->records_size);
    }
    if (pk_part_read(r, e->records_offset, r->records, (size_t)e->records_size, d) != 0) {
        return -1;
    }
    if (XXH3_64bits(r->records, (size_t)e->records_size) != e->records_xxh3) {
        return pk_fail(d, "%s: bundle %u: records checksum mismatch", r->path, e->bundle);
    }
    const unsigned char *p = r->records;
    memset(out, 0, sizeof *out);
    out->chunks = (const slc_pack_chunk *)(const void *)p;
    p += align8((uint64_t)e->chunk_count * sizeof(slc_pack_chunk));
    out->order = (const uint32_t *)(const void *)p;
    p += align8((uint64_t)e->chunk_count * 4u);
    out->r.chunk_count = e->chunk_count;
    out->r.objects = (const slc_pack_object *)(const void *)p;
    out->r.object_count = e->object_count;
    p += align8((uint64_t)e->object_count * sizeof(slc_pack_object));
    out->r.lods = (const slc_pack_lod *)(const void *)p;
    out->r.lod_count = e->lod_count;
    p += align8((uint64_t)e->lod_count * sizeof(slc_pack_lod));
    out->r.spans = (const slc_pack_span *)(const void *)p;
    out->r.span_count = e->span_count;
    p += align8((uint64_t)e->span_count * sizeof(slc_pack_span));
    out->r.instances = (const slc_pack_instance *)(const void *)p;
    out->r.instance_count = e->instance_count;
    p += align8((uint64_t)e->instance_count * sizeof(slc_pack_instance));
    out->r.materials = (const slc_pack_material *)(const void *)p;
    out->r.material_count = e->material_count;
    p += align8((uint64_t)e->material_count * sizeof(slc_pack_material));
    out->r.textures = (const slc_pack_texture *)(const void *)p;
    out->r.texture_count = e->texture_count;
    p += align8((uint64_t)e->texture_count * sizeof(slc_pack_texture));
    out->r.strings = (const char *)p;
    out->r.string_size = e->string_size;
    /* Every chunk once in the order, every payload inside the bundle's. */
    for (uint32_t k = 0; k < e->chunk_count; k++) {
        uint32_t c = out->order[k];
        if (c >= e->chunk_count) {
            return pk_fail(d, "%s: bundle %u: finish order names chunk %u of %u", r->path, e->bundle, c,
                           e->chunk_count);
        }
        const slc_pack_chunk *ch = &out->chunks[c];
        if (ch->offset < e->payload_offset || ch->stored_size > e->payload_size ||
            ch->offset - e->payload_offset > e->payload_size - ch->stored_size) {
            return pk_fail(d, "%s: bundle %u: chunk %u lies outside the bundle's payloads", r->path, e->bundle, c);
        }
    }
    return 0;
}
