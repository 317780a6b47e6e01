/* SPDX-License-Identifier: MIT */
/* sluice pack: the appender (see pack_writer.h, docs/pack-format.md). */
#define _POSIX_C_SOURCE 200809L
#define _FILE_OFFSET_BITS 64

#include "pack_writer.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <lz4.h>
#define XXH_STATIC_LINKING_ONLY /* XXH3_state_t by value */
#include <xxhash.h>

#include "atomic_file.h"
#include "sluice/pack.h"

/* The records are written as they lie in memory (pack_format.h asserts
 * their layout; the format is little-endian). */
#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the pack writer writes records as they lie in memory: little-endian hosts only"
#endif

#define HEADER_BYTES ((uint32_t)sizeof(slc_pack_header))

struct pk_writer {
    char *path;      /* the target, for messages */
    atomic_file out; /* the temporary */
    int io_failed;
    uint32_t page_size;
    int quantize;
    uint64_t end;            /* bytes written: the next chunk goes at align8(end) */
    unsigned char *readback; /* LZ4_compressBound(page_size) bytes */
    size_t readback_cap;

    slc_pack_chunk *chunks;
    uint32_t chunk_count, chunk_cap; /* chunk_count: of finished bundles */
    unsigned char *chunk_set;        /* per chunk of the open bundle: appended */
    uint32_t chunk_set_cap;
    uint32_t open_chunks; /* highest local id of the open bundle + 1 */
    slc_pack_object *objects;
    uint32_t object_count, object_cap;
    pk_tables t; /* lods, spans, instances, strings */

    uint32_t *table; /* open addressing over unique chunks, keyed by xxh3 */
    uint32_t table_cap, table_used;
    slc_pack_material *materials; /* since 1.3: the sections' records */
    uint32_t material_count, material_cap;
    slc_pack_texture *textures;
    uint32_t texture_count, texture_cap;
    int uses_meshopt;
    pk_writer_stats stats;
};

/* --- helpers shared by the packer's modules ------------------------------ */

#undef pk_fail
int pk_fail(pk_diag *d, const char *fmt, ...)
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
#define pk_fail(...) (pk_fail(__VA_ARGS__), -1)
#endif

void pk_tables_free(pk_tables *t)
{
    free(t->lods);
    free(t->spans);
    free(t->instances);
    free(t->strings);
    memset(t, 0, sizeof *t);
}

double pk_seconds_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int pk_grow(void **p, uint32_t *cap, uint64_t need, size_t elem)
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

int pk_pwrite_all(int fd, const void *data, size_t size, uint64_t offset)
{
    const unsigned char *p = data;
    while (size > 0) {
        ssize_t w = pwrite(fd, p, size, (off_t)offset);
        if (w < 0 && errno == EINTR) {
            continue;
        }
        if (w <= 0) {
            if (w == 0) {
                errno = 0;
            }
            return -1;
        }
        p += w;
        size -= (size_t)w;
        offset += (uint64_t)w;
    }
    return 0;
}

int pk_pread_all(int fd, void *data, size_t size, uint64_t offset)
{
    unsigned char *p = data;
    while (size > 0) {
        ssize_t r = pread(fd, p, size, (off_t)offset);
        if (r < 0 && errno == EINTR) {
            continue;
        }
        if (r <= 0) {
            if (r == 0) {
                errno = 0;
            }
            return -1;
        }
        p += r;
        size -= (size_t)r;
        offset += (uint64_t)r;
    }
    return 0;
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
    return (v + a - 1) & ~(a - 1);
}

static int write_at(pk_writer *w, uint64_t offset, const void *data, size_t size, pk_diag *d)
{
    if (pk_pwrite_all(w->out.fd, data, size, offset) != 0) {
        w->io_failed = 1;
        return pk_fail(d, "%s: write of %zu bytes at offset %llu failed: %s", w->path, size, (unsigned long long)offset,
                       errno != 0 ? strerror(errno) : "no progress");
    }
    return 0;
}

/* Zero bytes from w->end up to offset (a multiple of SLC_PACK_ALIGN). */
static int pad_to(pk_writer *w, uint64_t offset, pk_diag *d)
{
    static const unsigned char zeros[SLC_PACK_ALIGN];
    if (offset > w->end && write_at(w, w->end, zeros, (size_t)(offset - w->end), d) != 0) {
        return -1;
    }
    w->end = offset;
    return 0;
}

/* --- open ---------------------------------------------------------------- */

static void release(pk_writer *w)
{
    atomic_file_abort(&w->out);
    free(w->path);
    free(w->readback);
    free(w->chunks);
    free(w->chunk_set);
    free(w->objects);
    pk_tables_free(&w->t);
    free(w->table);
    free(w->materials);
    free(w->textures);
    free(w);
}

int pk_writer_open(const char *path, uint32_t page_size, int quantize, pk_writer **out, pk_diag *d)
{
    *out = NULL;
    pk_writer *w = calloc(1, sizeof *w);
    if (w == NULL) {
        return pk_fail(d, "%s: out of memory", path);
    }
    w->out.fd = -1;
    w->out.slot = -1;
    w->page_size = page_size;
    w->quantize = quantize;
    w->readback_cap = (size_t)LZ4_compressBound((int)page_size);
    w->path = strdup(path);
    w->readback = malloc(w->readback_cap);
    w->t.strings = calloc(1, 1); /* offset 0: "" */
    w->t.string_cap = 1;
    w->t.string_size = 1;
    if (w->path == NULL || w->readback == NULL || w->t.strings == NULL) {
        release(w);
        return pk_fail(d, "%s: out of memory", path);
    }
    char err[sizeof d->message];
    if (atomic_file_open(&w->out, path, err, sizeof err) != 0) {
        release(w);
        return pk_fail(d, "%s", err);
    }
    /* The header is written last; zeros hold its place. */
    static const unsigned char zeros[sizeof(slc_pack_header)];
    if (write_at(w, 0, zeros, sizeof zeros, d) != 0) {
        release(w);
        return -1;
    }
    w->end = HEADER_BYTES;
    *out = w;
    return 0;
}

/* --- chunks -------------------------------------------------------------- */

/* An earlier unique chunk with the same stored bytes, or UINT32_MAX. */
static int find_duplicate(pk_writer *w, const slc_pack_chunk *c, const void *stored, uint32_t *found, pk_diag *d)
{
    *found = UINT32_MAX;
    if (w->table_cap == 0) {
        return 0;
    }
    uint32_t mask = w->table_cap - 1;
    for (uint32_t i = (uint32_t)c->xxh3 & mask;; i = (i + 1) & mask) {
        uint32_t e = w->table[i];
        if (e == UINT32_MAX) {
            return 0;
        }
        const slc_pack_chunk *o = &w->chunks[e];
        if (o->xxh3 == c->xxh3 && o->stored_size == c->stored_size && o->codec == c->codec &&
            o->decoded_size == c->decoded_size) {
            if (pk_pread_all(w->out.fd, w->readback, o->stored_size, o->offset) != 0) {
                w->io_failed = 1;
                return pk_fail(d, "%s: read back of %u bytes at offset %llu failed: %s", w->path, o->stored_size,
                               (unsigned long long)o->offset, errno != 0 ? strerror(errno) : "end of file");
            }
            if (memcmp(w->readback, stored, c->stored_size) == 0) {
                *found = e;
                return 0;
            }
        }
    }
}

static int remember_chunk(pk_writer *w, uint32_t chunk)
{
    if ((uint64_t)(w->table_used + 1) * 2 > w->table_cap) {
        uint32_t cap = w->table_cap ? w->table_cap * 2 : 1024;
        uint32_t *t = malloc((size_t)cap * sizeof *t);
        if (t == NULL) {
            return -1;
        }
        memset(t, 0xff, (size_t)cap * sizeof *t);
        for (uint32_t i = 0; i < w->table_cap; i++) {
            uint32_t e = w->table[i];
            if (e != UINT32_MAX) {
                uint32_t j = (uint32_t)w->chunks[e].xxh3 & (cap - 1);
                while (t[j] != UINT32_MAX) {
                    j = (j + 1) & (cap - 1);
                }
                t[j] = e;
            }
        }
        free(w->table);
        w->table = t;
        w->table_cap = cap;
    }
    uint32_t mask = w->table_cap - 1;
    uint32_t j = (uint32_t)w->chunks[chunk].xxh3 & mask;
    while (w->table[j] != UINT32_MAX) {
        j = (j + 1) & mask;
    }
    w->table[j] = chunk;
    w->table_used++;
    return 0;
}

int pk_writer_chunk(pk_writer *w, uint32_t local, const slc_pack_chunk *rec, const void *stored, pk_diag *d)
{
    uint64_t id = (uint64_t)w->chunk_count + local;
    if (id >= UINT32_MAX || pk_grow((void **)&w->chunks, &w->chunk_cap, id + 1, sizeof *w->chunks) != 0 ||
        pk_grow((void **)&w->chunk_set, &w->chunk_set_cap, (uint64_t)local + 1, 1) != 0) {
        return pk_fail(d, "%s: too many chunks or out of memory", w->path);
    }
    while (w->open_chunks <= local) {
        w->chunk_set[w->open_chunks++] = 0;
    }
    if (w->chunk_set[local]) {
        return pk_fail(d, "%s: chunk %u of the bundle given twice", w->path, local);
    }
    if (rec->stored_size > w->readback_cap || rec->decoded_size > w->page_size ||
        rec->codec > SLC_PACK_CODEC_MESHOPT_LZ4) {
        return pk_fail(d, "%s: chunk %u of the bundle: %u stored bytes, %u decoded or codec %u out of range", w->path,
                       local, rec->stored_size, rec->decoded_size, rec->codec);
    }
    slc_pack_chunk *c = &w->chunks[id];
    *c = *rec;
    uint32_t dup;
    if (find_duplicate(w, c, stored, &dup, d) != 0) {
        return -1;
    }
    if (dup != UINT32_MAX) {
        c->offset = w->chunks[dup].offset;
        w->stats.chunks_deduplicated++;
    } else {
        uint64_t at = align_up(w->end, SLC_PACK_ALIGN);
        if (pad_to(w, at, d) != 0 || write_at(w, at, stored, c->stored_size, d) != 0) {
            return -1;
        }
        c->offset = at;
        w->end = at + c->stored_size;
        w->stats.bytes_stored += c->stored_size;
        if (remember_chunk(w, (uint32_t)id) != 0) {
            return pk_fail(d, "%s: out of memory", w->path);
        }
    }
    w->chunk_set[local] = 1;
    w->stats.chunks_stored_raw += c->codec == SLC_PACK_CODEC_STORED;
    w->stats.chunks_codec[c->codec]++;
    w->stats.bytes_raw += c->decoded_size;
    w->uses_meshopt |= c->codec == SLC_PACK_CODEC_MESHOPT || c->codec == SLC_PACK_CODEC_MESHOPT_LZ4;
    return 0;
}

/* --- bundles ------------------------------------------------------------- */

static uint32_t rebase_name(uint32_t name, uint32_t base)
{
    return name == SLC_PACK_NO_NAME ? name : name + base;
}

int pk_writer_bundle(pk_writer *w, const pk_bundle_records *r, pk_diag *d)
{
    if (r->chunk_count != w->open_chunks) {
        return pk_fail(d, "%s: bundle of %u chunks, %u appended", w->path, r->chunk_count, w->open_chunks);
    }
    for (uint32_t i = 0; i < r->chunk_count; i++) {
        if (!w->chunk_set[i]) {
            return pk_fail(d, "%s: chunk %u of the bundle was never appended", w->path, i);
        }
    }
    /* Every reference stays inside the bundle. */
    for (uint32_t i = 0; i < r->object_count; i++) {
        const slc_pack_object *o = &r->objects[i];
        if ((uint64_t)o->first_lod + o->lod_count > r->lod_count ||
            (o->name != SLC_PACK_NO_NAME && o->name >= r->string_size)) {
            return pk_fail(d, "%s: object %u of the bundle names LODs or a string outside it", w->path, i);
        }
    }
    const uint64_t materials = (uint64_t)w->material_count + r->material_count,
                   textures = (uint64_t)w->texture_count + r->texture_count;
    for (uint32_t i = 0; i < r->object_count; i++) {
        if (r->objects[i].material > materials) {
            return pk_fail(d, "%s: object %u of the bundle names material %u of %llu", w->path, i,
                           r->objects[i].material - 1u, (unsigned long long)materials);
        }
    }
    for (uint32_t i = 0; i < r->material_count; i++) {
        const slc_pack_material *m = &r->materials[i];
        int bad = m->name != SLC_PACK_NO_NAME && m->name >= r->string_size;
        for (uint32_t k = 0; k < SLC_PACK_SLOT_COUNT; k++) {
            bad |= m->slot[k].texture > textures;
        }
        if (bad) {
            return pk_fail(d, "%s: material %u of the bundle names a texture or a string outside the pack", w->path, i);
        }
    }
    for (uint32_t i = 0; i < r->texture_count; i++) {
        const slc_pack_texture *t = &r->textures[i];
        if ((uint64_t)t->first_chunk + t->chunk_count > r->chunk_count ||
            (t->name != SLC_PACK_NO_NAME && t->name >= r->string_size)) {
            return pk_fail(d, "%s: texture %u of the bundle names chunks or a string outside it", w->path, i);
        }
    }
    for (uint32_t i = 0; i < r->lod_count; i++) {
        if ((uint64_t)r->lods[i].first_span + r->lods[i].span_count > r->span_count) {
            return pk_fail(d, "%s: LOD %u of the bundle names spans outside it", w->path, i);
        }
    }
    for (uint32_t i = 0; i < r->span_count; i++) {
        if (r->spans[i].chunk >= r->chunk_count) {
            return pk_fail(d, "%s: span %u of the bundle names chunk %u of %u", w->path, i, r->spans[i].chunk,
                           r->chunk_count);
        }
    }
    for (uint32_t i = 0; i < r->instance_count; i++) {
        const slc_pack_instance *in = &r->instances[i];
        if (in->object >= (uint64_t)w->object_count + r->object_count ||
            (in->name != SLC_PACK_NO_NAME && in->name >= r->string_size)) {
            return pk_fail(d, "%s: instance %u of the bundle names object %u or a string outside the pack", w->path, i,
                           in->object);
        }
    }
    uint64_t strings = (uint64_t)w->t.string_size + r->string_size;
    if (strings >= SLC_PACK_NO_NAME ||
        pk_grow((void **)&w->objects, &w->object_cap, (uint64_t)w->object_count + r->object_count,
                sizeof *w->objects) != 0 ||
        pk_grow((void **)&w->t.lods, &w->t.lod_cap, (uint64_t)w->t.lod_count + r->lod_count, sizeof *w->t.lods) != 0 ||
        pk_grow((void **)&w->t.spans, &w->t.span_cap, (uint64_t)w->t.span_count + r->span_count, sizeof *w->t.spans) !=
            0 ||
        pk_grow((void **)&w->t.instances, &w->t.instance_cap, (uint64_t)w->t.instance_count + r->instance_count,
                sizeof *w->t.instances) != 0 ||
        pk_grow((void **)&w->t.strings, &w->t.string_cap, strings, 1) != 0 || materials >= UINT32_MAX ||
        textures >= UINT32_MAX ||
        pk_grow((void **)&w->materials, &w->material_cap, materials, sizeof *w->materials) != 0 ||
        pk_grow((void **)&w->textures, &w->texture_cap, textures, sizeof *w->textures) != 0) {
        return pk_fail(d, "%s: more records than a pack holds, or out of memory", w->path);
    }
    uint32_t sbase = w->t.string_size;
    for (uint32_t i = 0; i < r->object_count; i++) {
        slc_pack_object o = r->objects[i];
        o.first_lod += w->t.lod_count;
        o.name = rebase_name(o.name, sbase);
        w->objects[w->object_count + i] = o;
    }
    for (uint32_t i = 0; i < r->lod_count; i++) {
        slc_pack_lod l = r->lods[i];
        l.first_span += w->t.span_count;
        w->t.lods[w->t.lod_count + i] = l;
    }
    for (uint32_t i = 0; i < r->span_count; i++) {
        slc_pack_span s = r->spans[i];
        s.chunk += w->chunk_count;
        w->t.spans[w->t.span_count + i] = s;
    }
    for (uint32_t i = 0; i < r->instance_count; i++) {
        slc_pack_instance in = r->instances[i];
        in.name = rebase_name(in.name, sbase);
        w->t.instances[w->t.instance_count + i] = in;
    }
    for (uint32_t i = 0; i < r->material_count; i++) {
        slc_pack_material m = r->materials[i];
        m.name = rebase_name(m.name, sbase);
        w->materials[w->material_count + i] = m;
    }
    for (uint32_t i = 0; i < r->texture_count; i++) {
        slc_pack_texture t = r->textures[i];
        t.name = rebase_name(t.name, sbase);
        t.first_chunk += w->chunk_count;
        w->textures[w->texture_count + i] = t;
    }
    w->material_count += r->material_count;
    w->texture_count += r->texture_count;
    if (r->string_size > 0) {
        memcpy(w->t.strings + sbase, r->strings, r->string_size);
    }
    w->t.string_size = (uint32_t)strings;
    w->object_count += r->object_count;
    w->t.lod_count += r->lod_count;
    w->t.span_count += r->span_count;
    w->t.instance_count += r->instance_count;
    w->chunk_count += r->chunk_count;
    w->open_chunks = 0;
    return 0;
}

uint32_t pk_writer_object_count(const pk_writer *w)
{
    return w->object_count;
}

int pk_writer_io_failed(const pk_writer *w)
{
    return w->io_failed;
}

void pk_writer_abort(pk_writer *w)
{
    if (w != NULL) {
        release(w);
    }
}

/* --- finish -------------------------------------------------------------- */

/* Writes a table at the next aligned offset. */
static int write_table(pk_writer *w, const void *data, size_t size, uint64_t *offset, pk_diag *d)
{
    uint64_t at = align_up(w->end, SLC_PACK_ALIGN);
    if (pad_to(w, at, d) != 0 || (size > 0 && write_at(w, at, data, size, d) != 0)) {
        return -1;
    }
    *offset = at;
    w->end = at + size;
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

/* The material and texture tables, then the section directory and its
 * checksum (docs/pack-format.md, "Sections"). */
static int write_sections(pk_writer *w, slc_pack_header *h, pk_diag *d)
{
    slc_pack_section dir[2];
    uint32_t n = 0;
    const struct {
        uint32_t kind, count;
        const void *data;
        size_t record;
    } kinds[] = {
        {SLC_PACK_SECTION_MATERIALS, w->material_count, w->materials, sizeof *w->materials},
        {SLC_PACK_SECTION_TEXTURES, w->texture_count, w->textures, sizeof *w->textures},
    };
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        if (kinds[k].count == 0) {
            continue;
        }
        slc_pack_section *sec = &dir[n++];
        memset(sec, 0, sizeof *sec);
        sec->kind = kinds[k].kind;
        sec->count = kinds[k].count;
        sec->size = (uint64_t)kinds[k].count * kinds[k].record;
        sec->xxh3 = XXH3_64bits(kinds[k].data, (size_t)sec->size);
        if (write_table(w, kinds[k].data, (size_t)sec->size, &sec->offset, d) != 0) {
            return -1;
        }
    }
    uint64_t sum = XXH3_64bits(dir, n * sizeof dir[0]);
    uint64_t at = 0;
    if (write_table(w, dir, n * sizeof dir[0], &h->section_offset, d) != 0 ||
        write_table(w, &sum, sizeof sum, &at, d) != 0) {
        return -1;
    }
    h->section_count = n;
    return 0;
}

int pk_writer_finish(pk_writer *w, pk_writer_stats *stats, pk_diag *d)
{
    if (w->open_chunks != 0) {
        pk_fail(d, "%s: %u chunks of an unfinished bundle", w->path, w->open_chunks);
        release(w);
        return -1;
    }
    slc_pack_header h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, SLC_PACK_MAGIC, SLC_PACK_MAGIC_SIZE);
    h.version_major = SLC_PACK_VERSION_MAJOR;
    int measured = 0; /* a level records its method or chain end: its 1.2 words mean something */
    for (uint32_t i = 0; i < w->t.lod_count && !measured; i++) {
        measured = w->t.lods[i].method != SLC_PACK_LOD_METHOD_NONE || w->t.lods[i].chain_end != SLC_PACK_LOD_END_NONE;
    }
    /* The oldest minor version whose readers understand the whole pack. */
    const int sections = w->material_count > 0 || w->texture_count > 0;
    h.version_minor = sections ? 3u : measured ? 2u : (w->uses_meshopt ? 1u : 0u);
    h.header_size = HEADER_BYTES;
    h.optional_features = w->quantize && w->object_count > 0 ? SLC_PACK_OPTIONAL_QUANTIZED : 0u;
    h.page_size = w->page_size;
    h.chunk_count = w->chunk_count;
    h.object_count = w->object_count;
    h.lod_count = w->t.lod_count;
    h.span_count = w->t.span_count;
    h.instance_count = w->t.instance_count;
    h.string_size = w->t.string_size;
    size_t chunk_bytes = (size_t)w->chunk_count * sizeof *w->chunks;
    size_t object_bytes = (size_t)w->object_count * sizeof *w->objects;
    size_t lod_bytes = (size_t)w->t.lod_count * sizeof *w->t.lods;
    size_t span_bytes = (size_t)w->t.span_count * sizeof *w->t.spans;
    size_t instance_bytes = (size_t)w->t.instance_count * sizeof *w->t.instances;
    if (write_table(w, w->chunks, chunk_bytes, &h.chunk_offset, d) != 0 ||
        write_table(w, w->objects, object_bytes, &h.object_offset, d) != 0 ||
        write_table(w, w->t.lods, lod_bytes, &h.lod_offset, d) != 0 ||
        write_table(w, w->t.spans, span_bytes, &h.span_offset, d) != 0 ||
        write_table(w, w->t.instances, instance_bytes, &h.instance_offset, d) != 0 ||
        write_table(w, w->t.strings, w->t.string_size, &h.string_offset, d) != 0 ||
        (sections && write_sections(w, &h, d) != 0)) {
        release(w);
        return -1;
    }
    h.file_size = w->end;
    h.chunk_xxh3 = XXH3_64bits(w->chunks, chunk_bytes);
    h.object_xxh3 = XXH3_64bits(w->objects, object_bytes);
    h.lod_xxh3 = xxh3_pair(w->t.lods, lod_bytes, w->t.spans, span_bytes);
    h.instance_xxh3 = xxh3_pair(w->t.instances, instance_bytes, w->t.strings, w->t.string_size);
    h.header_xxh3 = XXH3_64bits(&h, offsetof(slc_pack_header, header_xxh3));
    if (write_at(w, 0, &h, sizeof h, d) != 0) {
        release(w);
        return -1;
    }
    /* fsync, then rename over the target: only now is the old file replaced. */
    char err[sizeof d->message];
    if (atomic_file_commit(&w->out, err, sizeof err) != 0) {
        pk_fail(d, "%s", err);
        release(w);
        return -1;
    }
    w->stats.objects = w->object_count;
    w->stats.lods = w->t.lod_count;
    w->stats.spans = w->t.span_count;
    w->stats.instances = w->t.instance_count;
    w->stats.chunks = w->chunk_count;
    w->stats.file_size = h.file_size;
    if (stats != NULL) {
        *stats = w->stats;
    }
    release(w);
    return 0;
}
