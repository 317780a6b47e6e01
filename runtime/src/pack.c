/* SPDX-License-Identifier: MIT */
/* sluice: the pack reader (see sluice/pack.h, docs/pack-format.md). */
#include "sluice/pack.h"

#include <float.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The library, not XXH_INLINE_ALL: xxhash 0.8.1 inlined brings its malloc-based
 * state functions into the runtime. XXH_STATIC_LINKING_ONLY gives XXH3_state_t
 * for a state on the stack. */
#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

#include "codec_lz4.h"
#include "codec_meshopt.h"
#include "hash.h"
#include "internal.h"

#define HEADER_SIZE ((uint32_t)sizeof(slc_pack_header))
#define ATTR_KNOWN \
    (SLC_PACK_ATTR_NORMAL | SLC_PACK_ATTR_UV | SLC_PACK_ATTR_POS_U16 | SLC_PACK_ATTR_NORMAL_OCT8 | SLC_PACK_ATTR_UV_U16)

struct slc_pack {
    char name[SLC_NAME_MAX];
    slc_io io;
    slc_logger log;
    slc_arena *meta;
    slc_arena_mark mark; /* meta before open */
    slc_arena_mark end;  /* meta after open */
    slc_pack_header header;
    slc_pack_chunk *chunks;
    slc_pack_object *objects;
    slc_pack_lod *lods;
    slc_pack_span *spans;
    slc_pack_instance *instances;
    char *strings;
    size_t scratch_size;
    uint32_t material_count, texture_count; /* since 1.3: the sections' records */
    uint32_t texel_formats;                 /* bit f: a texture is in SLC_PACK_TEXEL_* f */
    uint32_t texture_chunks;                /* chunks flagged SLC_PACK_CHUNK_TEXTURE: every texture's tiles and tail */
    uint64_t material_offset, texture_offset;
};

/* A copy out of a mapping, run inside io->guard. */
typedef struct mapped_copy {
    void *dst;
    const unsigned char *src;
    size_t size;
} mapped_copy;

static slc_status copy_mapped(void *ctx)
{
    const mapped_copy *m = ctx;
    memcpy(m->dst, m->src, m->size);
    return SLC_OK;
}

/* fn(ctx), inside io->guard when the io has one (only mapped files do):
 * every read of io->mapped goes through here. */
static slc_status run_guarded(const slc_io *io, slc_status (*fn)(void *ctx), void *ctx)
{
    return io->guard != NULL ? io->guard(io->user, fn, ctx) : fn(ctx);
}

static slc_status memory_read_io(const slc_io *io, uint64_t offset, void *dst, size_t size)
{
    if (offset > io->size || size > io->size - offset) {
        return SLC_E_IO_SHORT;
    }
    mapped_copy m = {dst, io->mapped + offset, size};
    return run_guarded(io, copy_mapped, &m);
}

static slc_status memory_read(void *user, uint64_t offset, void *dst, size_t size)
{
    return memory_read_io(user, offset, dst, size);
}

void slc_io_from_memory(const void *data, size_t size, slc_io *out)
{
    SLC_ASSERT(out != NULL);
    SLC_ASSERT(data != NULL || size == 0);
    out->read = memory_read;
    out->user = out;
    out->size = size;
    out->mapped = data;
    out->guard = NULL; /* memory the caller owns cannot shrink */
}

/* Logs "pack 'name': " + the message and returns status. */
static slc_status pack_fail(const slc_pack *p, slc_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static slc_status pack_fail(const slc_pack *p, slc_status status, const char *fmt, ...)
{
    if (p->log.fn != NULL) {
        char msg[320];
        size_t n = slc__fmt(msg, sizeof msg, "pack '%s': ", p->name);
        va_list ap;
        va_start(ap, fmt);
        slc__vfmt(msg + n, sizeof msg - n, fmt, ap);
        va_end(ap);
        p->log.fn(p->log.user, SLC_LOG_ERROR, status, msg);
    }
    return status;
}

static slc_status read_at(const slc_pack *p, uint64_t offset, void *dst, size_t size, const char *what)
{
    slc_status s = p->io.mapped != NULL ? memory_read_io(&p->io, offset, dst, size)
                                        : p->io.read(p->io.user, offset, dst, size);
    if (s != SLC_OK) {
        return pack_fail(p, s, "%s: read of %zu bytes at offset %llu failed (%s)", what, size,
                         (unsigned long long)offset, slc_status_describe(s));
    }
    return SLC_OK;
}

typedef struct table {
    const char *what;
    uint64_t offset;
    uint64_t count;
    uint64_t record;
} table;

static slc_status check_header(slc_pack *p, const slc_profile *limits)
{
    const slc_pack_header *h = &p->header;
    if (memcmp(h->magic, SLC_PACK_MAGIC, SLC_PACK_MAGIC_SIZE) != 0) {
        uint64_t m;
        memcpy(&m, h->magic, sizeof m);
        return pack_fail(p, SLC_E_PACK_MAGIC, "magic bytes 0x%llx are not \"SLCPACK\\0\": not a pack",
                         (unsigned long long)m);
    }
    if (h->version_major != SLC_PACK_VERSION_MAJOR) {
        return pack_fail(p, SLC_E_PACK_VERSION, "format version %u.%u; this reader reads %u.x", h->version_major,
                         h->version_minor, SLC_PACK_VERSION_MAJOR);
    }
    uint64_t sum = XXH3_64bits(h, offsetof(slc_pack_header, header_xxh3));
    if (sum != h->header_xxh3) {
        return pack_fail(p, SLC_E_PACK_HEADER, "header checksum: XXH3 of the header is 0x%llx, the header says 0x%llx",
                         (unsigned long long)sum, (unsigned long long)h->header_xxh3);
    }
    if ((h->required_features & ~(uint32_t)SLC_PACK_REQUIRED_KNOWN) != 0) {
        return pack_fail(p, SLC_E_PACK_VERSION, "requires features 0x%llx unknown to this reader",
                         (unsigned long long)(h->required_features & ~(uint32_t)SLC_PACK_REQUIRED_KNOWN));
    }
    if (h->header_size != HEADER_SIZE) {
        return pack_fail(p, SLC_E_PACK_HEADER, "header size %u; version %u.x headers are %u bytes", h->header_size,
                         SLC_PACK_VERSION_MAJOR, HEADER_SIZE);
    }
    if (!slc__is_pow2(h->page_size) || h->page_size < SLC_PAGE_SIZE_MIN || h->page_size > SLC_PAGE_SIZE_MAX) {
        return pack_fail(p, SLC_E_PACK_HEADER, "page size %u is not a power of two from %u to %u", h->page_size,
                         SLC_PAGE_SIZE_MIN, SLC_PAGE_SIZE_MAX);
    }
    if (h->file_size > p->io.size) {
        return pack_fail(p, SLC_E_PACK_TRUNCATED, "the file has %llu bytes; its header says %llu",
                         (unsigned long long)p->io.size, (unsigned long long)h->file_size);
    }
    if (h->file_size < p->io.size) {
        return pack_fail(p, SLC_E_PACK_HEADER, "the file has %llu bytes; its header says %llu",
                         (unsigned long long)p->io.size, (unsigned long long)h->file_size);
    }
    if (h->page_size > limits->page_size) {
        return pack_fail(p, SLC_E_PACK_CAPACITY, "pages of %u bytes do not fit the profile's %llu-byte pages",
                         h->page_size, (unsigned long long)limits->page_size);
    }
    if (h->chunk_count > limits->max_chunks) {
        return pack_fail(p, SLC_E_PACK_CAPACITY, "%u chunks; the profile allows %u (max_chunks)", h->chunk_count,
                         limits->max_chunks);
    }
    if (h->object_count > limits->max_objects) {
        return pack_fail(p, SLC_E_PACK_CAPACITY, "%u objects; the profile allows %u (max_objects)", h->object_count,
                         limits->max_objects);
    }
    if (h->string_size > limits->max_string_bytes) {
        return pack_fail(p, SLC_E_PACK_CAPACITY, "%u bytes of strings; the profile allows %llu (max_string_bytes)",
                         h->string_size, (unsigned long long)limits->max_string_bytes);
    }
    if (h->section_count > SLC_PACK_MAX_SECTIONS) {
        return pack_fail(p, SLC_E_PACK_HEADER, "%u sections; a %u.x reader takes at most %u", h->section_count,
                         SLC_PACK_VERSION_MAJOR, SLC_PACK_MAX_SECTIONS);
    }
    const table tables[] = {
        {"section directory", h->section_count > 0 ? h->section_offset : HEADER_SIZE, h->section_count,
         sizeof(slc_pack_section)},
        {"chunk table", h->chunk_offset, h->chunk_count, sizeof(slc_pack_chunk)},
        {"object table", h->object_offset, h->object_count, sizeof(slc_pack_object)},
        {"LOD table", h->lod_offset, h->lod_count, sizeof(slc_pack_lod)},
        {"span table", h->span_offset, h->span_count, sizeof(slc_pack_span)},
        {"instance table", h->instance_offset, h->instance_count, sizeof(slc_pack_instance)},
        {"string table", h->string_offset, h->string_size, 1},
    };
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) {
        const table *t = &tables[i];
        uint64_t bytes = t->count * t->record; /* below 2^32 * 96: no overflow */
        if (t->offset % SLC_PACK_ALIGN != 0) {
            return pack_fail(p, SLC_E_PACK_BOUNDS, "%s at offset %llu is not %u-byte aligned", t->what,
                             (unsigned long long)t->offset, SLC_PACK_ALIGN);
        }
        if (t->offset < HEADER_SIZE || t->offset > h->file_size || bytes > h->file_size - t->offset) {
            return pack_fail(p, SLC_E_PACK_BOUNDS, "%s of %llu bytes at offset %llu lies outside the %llu-byte file",
                             t->what, (unsigned long long)bytes, (unsigned long long)t->offset,
                             (unsigned long long)h->file_size);
        }
    }
    return SLC_OK;
}

/* Every codec: its name and the build options its decoder needs. The one
 * table of both (sluice/pack.h: slc_pack_codec_name, slc_pack_codec_needs). */
static const struct {
    const char *name;
    uint32_t needs; /* SLC_PACK_BUILD_* */
} codecs[SLC_PACK_CODEC_COUNT] = {
    [SLC_PACK_CODEC_STORED] = {"stored", 0u},
    [SLC_PACK_CODEC_LZ4] = {"lz4", SLC_PACK_BUILD_LZ4},
    [SLC_PACK_CODEC_MESHOPT] = {"meshopt", SLC_PACK_BUILD_MESHOPT},
    [SLC_PACK_CODEC_MESHOPT_LZ4] = {"meshopt-lz4", SLC_PACK_BUILD_LZ4 | SLC_PACK_BUILD_MESHOPT},
};

/* The build options of this runtime's decoders. */
#define BUILT ((SLC_CODEC_LZ4 ? SLC_PACK_BUILD_LZ4 : 0u) | (SLC_CODEC_MESHOPT ? SLC_PACK_BUILD_MESHOPT : 0u))

const char *slc_pack_codec_name(uint32_t codec)
{
    return codec < SLC_PACK_CODEC_COUNT ? codecs[codec].name : NULL;
}

uint32_t slc_pack_codec_needs(uint32_t codec)
{
    return codec < SLC_PACK_CODEC_COUNT ? codecs[codec].needs : 0u;
}

const char *slc_pack_build_option_name(uint32_t option)
{
    return option == SLC_PACK_BUILD_LZ4       ? "SLUICE_CODEC_LZ4"
           : option == SLC_PACK_BUILD_MESHOPT ? "SLUICE_CODEC_MESHOPT"
                                              : NULL;
}

int slc_pack_codec_is_built(uint32_t codec)
{
    return codec < SLC_PACK_CODEC_COUNT && (codecs[codec].needs & ~BUILT) == 0u;
}

static int is_meshopt(uint32_t codec)
{
    return (slc_pack_codec_needs(codec) & SLC_PACK_BUILD_MESHOPT) != 0u;
}

/* The build option that leaves a known codec out of this reader (meshopt
 * first when a codec needs two that are both off). */
static const char *codec_option_off(uint32_t codec)
{
    uint32_t off = slc_pack_codec_needs(codec) & ~BUILT;
    const char *name = slc_pack_build_option_name((off & SLC_PACK_BUILD_MESHOPT) != 0u ? SLC_PACK_BUILD_MESHOPT : off);
    return name != NULL ? name : "its codec"; /* only a left-out codec is not built: always named */
}

/* Scratch a chunk's load needs: its stored bytes when they are read (not
 * mapped) and need decoding; for meshopt-lz4 the meshopt stream LZ4 gives
 * (at most decoded_size bytes); for both meshopt codecs one cluster's
 * 16-bit indices. */
static size_t chunk_scratch(const slc_pack_chunk *c, int mapped)
{
    size_t need = 0;
    if (c->codec != SLC_PACK_CODEC_STORED && !mapped) {
        need = c->codec == SLC_PACK_CODEC_LZ4 ? c->stored_size : (size_t)slc__align_up(c->stored_size, 16);
    }
    if (c->codec == SLC_PACK_CODEC_MESHOPT_LZ4) {
        need += (size_t)slc__align_up(c->decoded_size, 16);
    }
    if (is_meshopt(c->codec)) {
        need += SLC__MESHOPT_SCRATCH;
    }
    return need;
}

/* Whether stored_size bytes can hold the chunk under its codec
 * (docs/pack-format.md, chunk table). */
static int stored_size_ok(const slc_pack_chunk *c)
{
    switch (c->codec) {
    case SLC_PACK_CODEC_STORED:
        return c->stored_size == c->decoded_size;
    case SLC_PACK_CODEC_MESHOPT:
        return c->stored_size <= c->decoded_size &&
               c->stored_size >= sizeof(slc_pack_chunk_header) + (uint64_t)c->cluster_count * sizeof(slc_pack_cluster);
    default: /* one LZ4 block */
        return c->stored_size != 0 && c->stored_size <= SLC__LZ4_BOUND(c->decoded_size);
    }
}

static int name_ok(const slc_pack *p, uint32_t name)
{
    return name == SLC_PACK_NO_NAME || name < p->header.string_size;
}

uint32_t slc_pack_vertex_stride(uint32_t attributes)
{
    uint32_t stride = (attributes & SLC_PACK_ATTR_POS_U16) ? 8u : 12u;
    if (attributes & SLC_PACK_ATTR_NORMAL) {
        stride += (attributes & SLC_PACK_ATTR_NORMAL_OCT8) ? 4u : 12u;
    }
    if (attributes & SLC_PACK_ATTR_UV) {
        stride += (attributes & SLC_PACK_ATTR_UV_U16) ? 4u : 8u;
    }
    return stride;
}

static slc_status check_records(slc_pack *p, const slc_profile *limits)
{
    const slc_pack_header *h = &p->header;
    if (h->string_size > 0 && p->strings[h->string_size - 1] != '\0') {
        return pack_fail(p, SLC_E_PACK_RECORD, "string table: the last of its %u bytes is not a NUL", h->string_size);
    }
    size_t scratch = 0;
    for (uint32_t i = 0; i < h->chunk_count; i++) {
        const slc_pack_chunk *c = &p->chunks[i];
        if (c->codec >= SLC_PACK_CODEC_COUNT) {
            return pack_fail(p, SLC_E_PACK_RECORD, "chunk %u: codec %u is unknown", i, c->codec);
        }
        if (!slc_pack_codec_is_built(c->codec)) {
            return pack_fail(p, SLC_E_PACK_VERSION, "chunk %u: codec %u (%s) is not built into this reader (%s=OFF)", i,
                             c->codec, slc_pack_codec_name(c->codec), codec_option_off(c->codec));
        }
        if (c->decoded_size > h->page_size) {
            return pack_fail(p, SLC_E_PACK_CHUNK_SIZE, "chunk %u: decodes to %u bytes, more than the %u-byte page", i,
                             c->decoded_size, h->page_size);
        }
        if (c->decoded_size == 0) {
            return pack_fail(p, SLC_E_PACK_RECORD, "chunk %u: decodes to 0 bytes", i);
        }
        if (!stored_size_ok(c)) {
            return pack_fail(p, SLC_E_PACK_RECORD,
                             "chunk %u: %u stored bytes cannot hold %u decoded bytes with codec %u (%s)", i,
                             c->stored_size, c->decoded_size, c->codec, slc_pack_codec_name(c->codec));
        }
        if (c->offset < HEADER_SIZE || c->offset > h->file_size || c->stored_size > h->file_size - c->offset) {
            return pack_fail(p, SLC_E_PACK_BOUNDS, "chunk %u: %u bytes at offset %llu lie outside the %llu-byte file",
                             i, c->stored_size, (unsigned long long)c->offset, (unsigned long long)h->file_size);
        }
        if (c->flags & SLC_PACK_CHUNK_TEXTURE) {
            if (c->cluster_count != 0 || c->triangle_count != 0 || c->vertex_count != 0 || c->first_object != 0 ||
                c->lod != 0 || (c->flags & SLC_PACK_CHUNK_COARSEST)) {
                return pack_fail(p, SLC_E_PACK_RECORD, "chunk %u: a texture chunk with clusters, LOD or objects", i);
            }
        } else if (c->first_object >= h->object_count) {
            return pack_fail(p, SLC_E_PACK_RECORD, "chunk %u: first object %u does not exist (%u objects)", i,
                             c->first_object, h->object_count);
        }
        size_t need = chunk_scratch(c, p->io.mapped != NULL);
        scratch = need > scratch ? need : scratch;
    }
    p->scratch_size = scratch;
    for (uint32_t i = 0; i < h->object_count; i++) {
        const slc_pack_object *o = &p->objects[i];
        if (!name_ok(p, o->name)) {
            return pack_fail(p, SLC_E_PACK_RECORD, "object %u: name at %u lies outside the %u-byte string table", i,
                             o->name, h->string_size);
        }
        if (o->lod_count == 0 || o->first_lod > h->lod_count || o->lod_count > h->lod_count - o->first_lod) {
            return pack_fail(p, SLC_E_PACK_RECORD, "object %u: LODs %u..%u+%u do not exist (%u LODs)", i, o->first_lod,
                             o->first_lod, o->lod_count, h->lod_count);
        }
        if (o->lod_count > limits->max_lods) {
            return pack_fail(p, SLC_E_PACK_CAPACITY, "object %u: %u LOD levels; the profile allows %u (max_lods)", i,
                             o->lod_count, limits->max_lods);
        }
        if ((o->attributes & ~(uint32_t)ATTR_KNOWN) != 0 || o->vertex_stride != slc_pack_vertex_stride(o->attributes)) {
            return pack_fail(p, SLC_E_PACK_RECORD, "object %u: attributes 0x%llx with a %u-byte vertex are not valid",
                             i, (unsigned long long)o->attributes, o->vertex_stride);
        }
    }
    for (uint32_t i = 0; i < h->lod_count; i++) {
        const slc_pack_lod *l = &p->lods[i];
        if (l->first_span > h->span_count || l->span_count > h->span_count - l->first_span) {
            return pack_fail(p, SLC_E_PACK_RECORD, "LOD %u: spans %u+%u do not exist (%u spans)", i, l->first_span,
                             l->span_count, h->span_count);
        }
    }
    for (uint32_t i = 0; i < h->span_count; i++) {
        const slc_pack_span *s = &p->spans[i];
        if (s->chunk >= h->chunk_count) {
            return pack_fail(p, SLC_E_PACK_RECORD, "span %u: chunk %u does not exist (%u chunks)", i, s->chunk,
                             h->chunk_count);
        }
        uint32_t clusters = p->chunks[s->chunk].cluster_count;
        if (s->cluster_count == 0 || (uint32_t)s->first_cluster + s->cluster_count > clusters) {
            return pack_fail(p, SLC_E_PACK_RECORD, "span %u: clusters %u+%u do not exist in chunk %u (%u clusters)", i,
                             s->first_cluster, s->cluster_count, s->chunk, clusters);
        }
    }
    for (uint32_t i = 0; i < h->instance_count; i++) {
        const slc_pack_instance *in = &p->instances[i];
        if (in->object >= h->object_count) {
            return pack_fail(p, SLC_E_PACK_RECORD, "instance %u: object %u does not exist (%u objects)", i, in->object,
                             h->object_count);
        }
        if (!name_ok(p, in->name)) {
            return pack_fail(p, SLC_E_PACK_RECORD, "instance %u: name at %u lies outside the %u-byte string table", i,
                             in->name, h->string_size);
        }
    }
    return SLC_OK;
}

/* XXH3 of one or two consecutive tables, the second may be empty. */
static uint64_t tables_xxh3(const void *a, size_t a_size, const void *b, size_t b_size)
{
    XXH3_state_t state;
    XXH3_64bits_reset(&state);
    XXH3_64bits_update(&state, a, a_size);
    XXH3_64bits_update(&state, b, b_size);
    return XXH3_64bits_digest(&state);
}

/* ---- sections (1.3): the material and texture tables ------------------- */

static int finite_in(float v, float lo, float hi)
{
    return v >= lo && v <= hi; /* false for NaN */
}

static int finite(float v)
{
    return v - v == 0.0f; /* false for NaN and the infinities */
}

/* Streams a section through XXH3 (the records are checked one by one
 * afterwards: nothing of a section is held). */
static slc_status section_xxh3(const slc_pack *p, const slc_pack_section *sec, const char *what, uint64_t *sum)
{
    XXH3_state_t st;
    XXH3_64bits_reset(&st);
    unsigned char buf[256];
    for (uint64_t at = 0; at < sec->size;) {
        size_t n = sec->size - at < sizeof buf ? (size_t)(sec->size - at) : sizeof buf;
        slc_status s = read_at(p, sec->offset + at, buf, n, what);
        if (s != SLC_OK) {
            return s;
        }
        XXH3_64bits_update(&st, buf, n);
        at += n;
    }
    *sum = XXH3_64bits_digest(&st);
    return SLC_OK;
}

static slc_status check_material(const slc_pack *p, uint32_t i, const slc_pack_material *m)
{
    if (!name_ok(p, m->name)) {
        return pack_fail(p, SLC_E_PACK_RECORD, "material %u: name at %u lies outside the %u-byte string table", i,
                         m->name, p->header.string_size);
    }
    uint32_t alpha = (m->flags & SLC_PACK_MATERIAL_ALPHA_MASK) >> SLC_PACK_MATERIAL_ALPHA_SHIFT;
    if ((m->flags & ~(SLC_PACK_MATERIAL_DOUBLE_SIDED | SLC_PACK_MATERIAL_ALPHA_MASK)) != 0 ||
        alpha > SLC_PACK_ALPHA_BLEND) {
        return pack_fail(p, SLC_E_PACK_RECORD, "material %u: flags 0x%llx are not valid", i,
                         (unsigned long long)m->flags);
    }
    int ok = finite_in(m->alpha_cutoff, 0.0f, 3.4e38f) && finite_in(m->metallic, 0.0f, 1.0f) &&
             finite_in(m->roughness, 0.0f, 1.0f);
    for (int c = 0; c < 4; c++) {
        ok &= finite_in(m->base_color[c], 0.0f, 1.0f);
    }
    for (int c = 0; c < 3; c++) {
        ok &= finite_in(m->emissive[c], 0.0f, 1.0f);
    }
    if (!ok) {
        return pack_fail(p, SLC_E_PACK_RECORD, "material %u: a factor is outside its range", i);
    }
    for (uint32_t k = 0; k < SLC_PACK_SLOT_COUNT; k++) {
        const slc_pack_texture_slot *t = &m->slot[k];
        if (t->texture > p->texture_count) {
            return pack_fail(p, SLC_E_PACK_RECORD, "material %u slot %u: texture %u does not exist (%u textures)", i, k,
                             t->texture - 1u, p->texture_count);
        }
        int bad = (t->wrap & 3u) > 2u || (t->wrap >> 2 & 3u) > 2u || (t->wrap >> 4) != 0;
        bad |= (t->filter & 3u) > 2u || (t->filter >> 2 & 3u) > 2u || (t->filter >> 4 & 3u) > 2u || (t->filter >> 6);
        bad |= !finite(t->scale) || !finite(t->offset[0]) || !finite(t->offset[1]) || !finite(t->rotation) ||
               !finite(t->uv_scale[0]) || !finite(t->uv_scale[1]);
        if (bad) {
            return pack_fail(p, SLC_E_PACK_RECORD,
                             "material %u slot %u: wrap 0x%llx, filter 0x%llx or a transform value is not valid", i, k,
                             (unsigned long long)t->wrap, (unsigned long long)t->filter);
        }
    }
    return SLC_OK;
}

/* A texture record against the tiling rule and its chunks; *next is where
 * the next texture's chunks may start (textures' chunks in table order,
 * disjoint). */
static slc_status check_texture(const slc_pack *p, uint32_t i, const slc_pack_texture *t, uint32_t *next)
{
    const slc_pack_header *h = &p->header;
    slc_pack_texture_layout lay;
    if (!name_ok(p, t->name)) {
        return pack_fail(p, SLC_E_PACK_RECORD, "texture %u: name at %u lies outside the %u-byte string table", i,
                         t->name, h->string_size);
    }
    if (t->kind == 0 || t->kind >= SLC_PACK_TEXTURE_KIND_COUNT || (t->wrap & 3u) > 2u || (t->wrap >> 2 & 3u) > 2u ||
        (t->wrap >> 4) != 0) {
        return pack_fail(p, SLC_E_PACK_RECORD, "texture %u: kind %u or wrap 0x%llx is not valid", i, t->kind,
                         (unsigned long long)t->wrap);
    }
    if (slc_pack_texture_layout_of(t->width, t->height, t->format, t->tile, t->border, &lay) != 0) {
        return pack_fail(p, SLC_E_PACK_RECORD,
                         "texture %u: %u x %u texels of format %u in %u-texel tiles with %u-texel borders are not a "
                         "valid layout",
                         i, t->width, t->height, t->format, t->tile, t->border);
    }
    if (t->level_count != lay.level_count || t->tiled_levels != lay.tiled_levels || t->chunk_count != lay.chunk_count) {
        return pack_fail(p, SLC_E_PACK_RECORD,
                         "texture %u: %u levels, %u tiled, in %u chunks; its size and tiles make %u, %u and %u", i,
                         t->level_count, t->tiled_levels, t->chunk_count, lay.level_count, lay.tiled_levels,
                         lay.chunk_count);
    }
    if (lay.tile_bytes > h->page_size || lay.tail_bytes > h->page_size) {
        return pack_fail(p, SLC_E_PACK_CHUNK_SIZE,
                         "texture %u: a %llu-byte tile or %llu-byte tail exceeds the %u-byte page", i,
                         (unsigned long long)lay.tile_bytes, (unsigned long long)lay.tail_bytes, h->page_size);
    }
    if (t->first_chunk < *next || t->first_chunk > h->chunk_count || t->chunk_count > h->chunk_count - t->first_chunk) {
        return pack_fail(p, SLC_E_PACK_RECORD,
                         "texture %u: chunks %u+%u do not exist or overlap another texture's (%u chunks)", i,
                         t->first_chunk, t->chunk_count, h->chunk_count);
    }
    for (uint32_t k = 0; k < t->chunk_count; k++) {
        const slc_pack_chunk *c = &p->chunks[t->first_chunk + k];
        uint64_t want = k < lay.tiles ? lay.tile_bytes : lay.tail_bytes;
        if (!(c->flags & SLC_PACK_CHUNK_TEXTURE) || c->decoded_size != want) {
            return pack_fail(p, SLC_E_PACK_RECORD,
                             "texture %u: chunk %u is not a texture chunk of %llu bytes (flags 0x%llx, %u bytes)", i,
                             t->first_chunk + k, (unsigned long long)want, (unsigned long long)c->flags,
                             c->decoded_size);
        }
    }
    *next = t->first_chunk + t->chunk_count;
    return SLC_OK;
}

/* The section directory, its known sections and their records; then every
 * texture chunk owned and every object's material in range. */
static slc_status read_sections(slc_pack *p)
{
    const slc_pack_header *h = &p->header;
    slc_pack_section dir[SLC_PACK_MAX_SECTIONS];
    memset(dir, 0, sizeof dir); /* filled by the reads below (the analyzer cannot see through io) */
    uint64_t want = 0;
    uint32_t n = h->section_count;
    if (n > 0) {
        slc_status s = read_at(p, h->section_offset, dir, (size_t)n * sizeof dir[0], "section directory");
        if (s == SLC_OK && h->section_offset + (uint64_t)n * sizeof dir[0] + sizeof want > h->file_size) {
            return pack_fail(p, SLC_E_PACK_BOUNDS, "section directory: its checksum lies outside the %llu-byte file",
                             (unsigned long long)h->file_size);
        }
        if (s == SLC_OK) {
            s = read_at(p, h->section_offset + (uint64_t)n * sizeof dir[0], &want, sizeof want, "section directory");
        }
        if (s != SLC_OK) {
            return s;
        }
        uint64_t sum = XXH3_64bits(dir, (size_t)n * sizeof dir[0]);
        if (sum != want) {
            return pack_fail(p, SLC_E_PACK_TABLE_CHECKSUM,
                             "section directory: XXH3 is 0x%llx, the directory says 0x%llx", (unsigned long long)sum,
                             (unsigned long long)want);
        }
    }
    const slc_pack_section *known[3] = {NULL, NULL, NULL};
    for (uint32_t i = 0; i < n; i++) {
        const slc_pack_section *sec = &dir[i];
        if (sec->offset % SLC_PACK_ALIGN != 0 || sec->offset < HEADER_SIZE || sec->offset > h->file_size ||
            sec->size > h->file_size - sec->offset) {
            return pack_fail(p, SLC_E_PACK_BOUNDS,
                             "section %u (kind %u): %llu bytes at offset %llu lie outside the "
                             "%llu-byte file or are not aligned",
                             i, sec->kind, (unsigned long long)sec->size, (unsigned long long)sec->offset,
                             (unsigned long long)h->file_size);
        }
        if (sec->kind != SLC_PACK_SECTION_MATERIALS && sec->kind != SLC_PACK_SECTION_TEXTURES) {
            continue; /* a later minor version's: skipped */
        }
        uint64_t record = sec->kind == SLC_PACK_SECTION_MATERIALS ? sizeof(slc_pack_material)
                                                                  : sizeof(slc_pack_texture);
        if (known[sec->kind] != NULL || sec->size != (uint64_t)sec->count * record) {
            return pack_fail(p, SLC_E_PACK_RECORD, "section %u (kind %u): %u records in %llu bytes, or a second one", i,
                             sec->kind, sec->count, (unsigned long long)sec->size);
        }
        const char *what = sec->kind == SLC_PACK_SECTION_MATERIALS ? "material table" : "texture table";
        uint64_t sum = 0;
        slc_status s = section_xxh3(p, sec, what, &sum);
        if (s != SLC_OK) {
            return s;
        }
        if (sum != sec->xxh3) {
            return pack_fail(p, SLC_E_PACK_TABLE_CHECKSUM, "%s: XXH3 is 0x%llx, the directory says 0x%llx", what,
                             (unsigned long long)sum, (unsigned long long)sec->xxh3);
        }
        known[sec->kind] = sec;
    }
    if (known[SLC_PACK_SECTION_TEXTURES] != NULL) {
        p->texture_count = known[SLC_PACK_SECTION_TEXTURES]->count;
        p->texture_offset = known[SLC_PACK_SECTION_TEXTURES]->offset;
    }
    if (known[SLC_PACK_SECTION_MATERIALS] != NULL) {
        p->material_count = known[SLC_PACK_SECTION_MATERIALS]->count;
        p->material_offset = known[SLC_PACK_SECTION_MATERIALS]->offset;
    }
    uint32_t next = 0, owned = 0;
    for (uint32_t i = 0; i < p->texture_count; i++) {
        slc_pack_texture t;
        memset(&t, 0, sizeof t);
        slc_status s = slc_pack_read_texture(p, i, &t);
        if (s == SLC_OK) {
            s = check_texture(p, i, &t, &next);
        }
        if (s != SLC_OK) {
            return s;
        }
        owned += t.chunk_count;
        p->texel_formats |= 1u << t.format; /* a known format: check_texture passed */
    }
    uint32_t texture_chunks = 0;
    for (uint32_t i = 0; i < h->chunk_count; i++) {
        texture_chunks += (p->chunks[i].flags & SLC_PACK_CHUNK_TEXTURE) != 0;
    }
    if (texture_chunks != owned) {
        return pack_fail(p, SLC_E_PACK_RECORD, "%u texture chunks; the texture table owns %u", texture_chunks, owned);
    }
    p->texture_chunks = texture_chunks;
    for (uint32_t i = 0; i < p->material_count; i++) {
        slc_pack_material m;
        memset(&m, 0, sizeof m);
        slc_status s = slc_pack_read_material(p, i, &m);
        if (s == SLC_OK) {
            s = check_material(p, i, &m);
        }
        if (s != SLC_OK) {
            return s;
        }
    }
    for (uint32_t i = 0; i < h->object_count; i++) {
        if (p->objects[i].material > p->material_count) {
            return pack_fail(p, SLC_E_PACK_RECORD, "object %u: material %u does not exist (%u materials)", i,
                             p->objects[i].material - 1u, p->material_count);
        }
        const float density = p->objects[i].uv_density;
        if (!(density >= 0.0f && density <= FLT_MAX)) {
            return pack_fail(p, SLC_E_PACK_RECORD, "object %u: uv_density is not a finite number of at least 0", i);
        }
    }
    return SLC_OK;
}

uint32_t slc_pack_material_count(const slc_pack *p)
{
    SLC_ASSERT(p != NULL);
    return p->material_count;
}

uint32_t slc_pack_texture_count(const slc_pack *p)
{
    SLC_ASSERT(p != NULL);
    return p->texture_count;
}

uint32_t slc_pack_texel_formats(const slc_pack *p)
{
    SLC_ASSERT(p != NULL);
    return p->texel_formats;
}

uint32_t slc_pack_texture_chunk_count(const slc_pack *p)
{
    SLC_ASSERT(p != NULL);
    return p->texture_chunks;
}

slc_status slc_pack_read_material(const slc_pack *p, uint32_t i, slc_pack_material *out)
{
    SLC_ASSERT(p != NULL && out != NULL && i < p->material_count);
    return read_at(p, p->material_offset + (uint64_t)i * sizeof *out, out, sizeof *out, "material table");
}

slc_status slc_pack_read_texture(const slc_pack *p, uint32_t i, slc_pack_texture *out)
{
    SLC_ASSERT(p != NULL && out != NULL && i < p->texture_count);
    return read_at(p, p->texture_offset + (uint64_t)i * sizeof *out, out, sizeof *out, "texture table");
}

static slc_status read_tables(slc_pack *p)
{
    const slc_pack_header *h = &p->header;
    struct {
        const char *what;
        uint64_t offset;
        void *dst;
        size_t size;
    } reads[] = {
        {"chunk table", h->chunk_offset, p->chunks, (size_t)h->chunk_count * sizeof(slc_pack_chunk)},
        {"object table", h->object_offset, p->objects, (size_t)h->object_count * sizeof(slc_pack_object)},
        {"LOD table", h->lod_offset, p->lods, (size_t)h->lod_count * sizeof(slc_pack_lod)},
        {"span table", h->span_offset, p->spans, (size_t)h->span_count * sizeof(slc_pack_span)},
        {"instance table", h->instance_offset, p->instances, (size_t)h->instance_count * sizeof(slc_pack_instance)},
        {"string table", h->string_offset, p->strings, h->string_size},
    };
    for (size_t i = 0; i < sizeof reads / sizeof reads[0]; i++) {
        if (reads[i].size > 0) {
            slc_status s = read_at(p, reads[i].offset, reads[i].dst, reads[i].size, reads[i].what);
            if (s != SLC_OK) {
                return s;
            }
        }
    }
    struct {
        const char *what;
        uint64_t sum;
        uint64_t want;
    } sums[] = {
        {"chunk table", tables_xxh3(reads[0].dst, reads[0].size, NULL, 0), h->chunk_xxh3},
        {"object table", tables_xxh3(reads[1].dst, reads[1].size, NULL, 0), h->object_xxh3},
        {"LOD and span tables", tables_xxh3(reads[2].dst, reads[2].size, reads[3].dst, reads[3].size), h->lod_xxh3},
        {"instance and string tables", tables_xxh3(reads[4].dst, reads[4].size, reads[5].dst, reads[5].size),
         h->instance_xxh3},
    };
    for (size_t i = 0; i < sizeof sums / sizeof sums[0]; i++) {
        if (sums[i].sum != sums[i].want) {
            return pack_fail(p, SLC_E_PACK_TABLE_CHECKSUM, "%s: XXH3 is 0x%llx, the header says 0x%llx", sums[i].what,
                             (unsigned long long)sums[i].sum, (unsigned long long)sums[i].want);
        }
    }
    return SLC_OK;
}

static size_t aligned(uint64_t bytes)
{
    return (size_t)slc__align_up(bytes, 16);
}

slc_status slc_pack_open(const slc_io *io, const char *name, const slc_profile *limits, slc_arena *meta,
                         const slc_logger *log, slc_pack **out)
{
    SLC_ASSERT(io != NULL && limits != NULL && meta != NULL && out != NULL);
    SLC_ASSERT(io->read != NULL || io->mapped != NULL);
    *out = NULL;
    /* Until the tables are placed, the pack lives on the stack. */
    slc_pack tmp;
    memset(&tmp, 0, sizeof tmp);
    slc_pack *p = &tmp;
    const char *n = name != NULL ? name : "<pack>";
    memcpy(p->name, n, slc__strnlen(n, SLC_NAME_MAX - 1));
    p->io = *io;
    if (log != NULL) {
        p->log = *log;
    }
    p->meta = meta;
    p->mark = slc_arena_get_mark(meta);
    if (io->size < HEADER_SIZE) {
        return pack_fail(p, SLC_E_PACK_TRUNCATED, "the file has %llu bytes, fewer than the %u-byte header",
                         (unsigned long long)io->size, HEADER_SIZE);
    }
    slc_status s = read_at(p, 0, &p->header, HEADER_SIZE, "header");
    if (s == SLC_OK) {
        s = check_header(p, limits);
    }
    if (s != SLC_OK) {
        return s;
    }
    const slc_pack_header *h = &p->header;
    size_t sizes[] = {
        aligned(sizeof(slc_pack)),
        aligned((uint64_t)h->chunk_count * sizeof(slc_pack_chunk)),
        aligned((uint64_t)h->object_count * sizeof(slc_pack_object)),
        aligned((uint64_t)h->lod_count * sizeof(slc_pack_lod)),
        aligned((uint64_t)h->span_count * sizeof(slc_pack_span)),
        aligned((uint64_t)h->instance_count * sizeof(slc_pack_instance)),
        aligned(h->string_size),
    };
    uint64_t need = 0;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        need += sizes[i]; /* each below 2^39: no overflow */
    }
    void *mem = NULL;
    slc_arena_stats st;
    slc_arena_get_stats(meta, &st);
    s = need > SIZE_MAX ? SLC_E_CAPACITY : slc_arena_alloc(meta, (size_t)need, 16, &mem);
    if (s != SLC_OK) {
        return pack_fail(p, s, "its tables need %llu bytes; the meta arena has %zu of %zu left",
                         (unsigned long long)need, st.capacity - st.used, st.capacity);
    }
    unsigned char *at = mem;
    p = (slc_pack *)(void *)at;
    *p = tmp;
    at += sizes[0];
    p->chunks = (slc_pack_chunk *)(void *)at;
    at += sizes[1];
    p->objects = (slc_pack_object *)(void *)at;
    at += sizes[2];
    p->lods = (slc_pack_lod *)(void *)at;
    at += sizes[3];
    p->spans = (slc_pack_span *)(void *)at;
    at += sizes[4];
    p->instances = (slc_pack_instance *)(void *)at;
    at += sizes[5];
    p->strings = (char *)at;
    s = read_tables(p);
    if (s == SLC_OK) {
        s = check_records(p, limits);
    }
    if (s == SLC_OK) {
        s = read_sections(p);
    }
    if (s != SLC_OK) {
        slc_arena_reset(meta, p->mark); /* nothing half-done is left */
        return s;
    }
    p->end = slc_arena_get_mark(meta);
    *out = p;
    return SLC_OK;
}

void slc_pack_close(slc_pack *p)
{
    SLC_ASSERT(p != NULL);
    SLC_ASSERT(slc_arena_get_mark(p->meta).offset == p->end.offset); /* LIFO: nothing allocated since open */
    slc_arena_reset(p->meta, p->mark);
}

const slc_pack_header *slc_pack_get_header(const slc_pack *p)
{
    SLC_ASSERT(p != NULL);
    return &p->header;
}

const slc_pack_chunk *slc_pack_get_chunk(const slc_pack *p, slc_chunk_id chunk)
{
    SLC_ASSERT(p != NULL && chunk.index < p->header.chunk_count);
    return &p->chunks[chunk.index];
}

const slc_pack_object *slc_pack_get_object(const slc_pack *p, slc_object_id object)
{
    SLC_ASSERT(p != NULL && object.index < p->header.object_count);
    return &p->objects[object.index];
}

const slc_pack_lod *slc_pack_get_lod(const slc_pack *p, uint32_t lod)
{
    SLC_ASSERT(p != NULL && lod < p->header.lod_count);
    return &p->lods[lod];
}

const slc_pack_span *slc_pack_get_span(const slc_pack *p, uint32_t span)
{
    SLC_ASSERT(p != NULL && span < p->header.span_count);
    return &p->spans[span];
}

const slc_pack_instance *slc_pack_get_instance(const slc_pack *p, uint32_t instance)
{
    SLC_ASSERT(p != NULL && instance < p->header.instance_count);
    return &p->instances[instance];
}

const char *slc_pack_get_string(const slc_pack *p, uint32_t offset)
{
    SLC_ASSERT(p != NULL);
    if (offset == SLC_PACK_NO_NAME) {
        return "";
    }
    SLC_ASSERT(offset < p->header.string_size);
    return p->strings + offset;
}

size_t slc_pack_scratch_size(const slc_pack *p)
{
    SLC_ASSERT(p != NULL);
    return p->scratch_size;
}

/* The part of a chunk load that reads the stored bytes: the hash, then
 * the copy or the decode. From a mapping it runs inside io->guard, so it
 * logs nothing and takes no lock; the caller words the result. */
typedef struct chunk_decode {
    const slc_pack_chunk *c;
    const unsigned char *src;
    void *page;
    uint64_t sum;
    int got;
    const slc_pack *p;
    unsigned char *work;     /* scratch past the stored bytes: the meshopt codecs' */
    slc__meshopt_error merr; /* what a meshopt stream failed */
} chunk_decode;

/* The meshopt codecs: codec 3's LZ4 block into scratch first, then the
 * meshopt stream into the page (codec_meshopt.c). */
static slc_status decode_meshopt(chunk_decode *d)
{
#if SLC_CODEC_MESHOPT
    const slc_pack_chunk *c = d->c;
    const unsigned char *stream = d->src;
    size_t size = c->stored_size;
    unsigned char *work = d->work;
    if (c->codec == SLC_PACK_CODEC_MESHOPT_LZ4) {
        d->got = slc__lz4_decode(d->src, work, c->stored_size, c->decoded_size);
        if (d->got < 0) {
            return SLC_E_PACK_CORRUPT;
        }
        stream = work;
        size = (size_t)d->got;
        work += slc__align_up(c->decoded_size, 16);
    }
    return slc__meshopt_decode(stream, size, d->page, c, d->p->objects, d->p->header.object_count, work, &d->merr);
#else
    (void)d;
    return SLC_E_PACK_VERSION; /* refused at open */
#endif
}

static slc_status decode_chunk(void *ctx)
{
    chunk_decode *d = ctx;
    d->sum = slc__xxh3_64(d->src, d->c->stored_size);
    if (d->sum != d->c->xxh3) {
        return SLC_E_PACK_CHUNK_CHECKSUM;
    }
    if (d->c->codec == SLC_PACK_CODEC_STORED) {
        if (d->src != d->page) {
            memcpy(d->page, d->src, d->c->stored_size);
        }
        return SLC_OK;
    }
    if (is_meshopt(d->c->codec)) {
        return decode_meshopt(d);
    }
    /* The decoder may use all of its capacity as working room, so the
     * capacity is the record's decoded size: nothing past it is touched, and
     * a block that would decode to more is refused. */
    d->got = slc__lz4_decode(d->src, d->page, d->c->stored_size, d->c->decoded_size);
    return SLC_OK;
}

slc_status slc_pack_load_chunk(const slc_pack *p, slc_chunk_id id, void *page, size_t page_size, void *scratch,
                               size_t scratch_size)
{
    SLC_ASSERT(p != NULL && page != NULL);
    uint32_t chunk = id.index;
    SLC_ASSERT(chunk < p->header.chunk_count);
    const slc_pack_chunk *c = &p->chunks[chunk];
    if (c->decoded_size > page_size) {
        return pack_fail(p, SLC_E_PACK_CHUNK_SIZE, "chunk %u: decodes to %u bytes, more than the %zu-byte page", chunk,
                         c->decoded_size, page_size);
    }
    const unsigned char *src;
    unsigned char *work = scratch;
    char what[32];
    slc__fmt(what, sizeof what, "chunk %u", chunk);
    size_t need = chunk_scratch(c, p->io.mapped != NULL);
    if (is_meshopt(c->codec) && (scratch == NULL || scratch_size < need)) {
        return pack_fail(p, SLC_E_CAPACITY, "chunk %u: its %s decode needs %zu bytes of scratch, %zu given", chunk,
                         slc_pack_codec_name(c->codec), need, scratch == NULL ? (size_t)0 : scratch_size);
    }
    if (p->io.mapped != NULL) {
        src = p->io.mapped + c->offset;
    } else if (c->codec == SLC_PACK_CODEC_STORED) {
        slc_status s = read_at(p, c->offset, page, c->stored_size, what);
        if (s != SLC_OK) {
            return s;
        }
        src = page;
    } else {
        if (scratch == NULL || scratch_size < c->stored_size) {
            return pack_fail(p, SLC_E_CAPACITY, "chunk %u: %u stored bytes do not fit %zu bytes of scratch", chunk,
                             c->stored_size, scratch_size);
        }
        slc_status s = read_at(p, c->offset, scratch, c->stored_size, what);
        if (s != SLC_OK) {
            return s;
        }
        src = scratch;
        work += slc__align_up(c->stored_size, 16);
    }
    chunk_decode d = {c, src, page, 0, 0, p, work, {0}};
    slc_status ds = run_guarded(&p->io, decode_chunk, &d);
    if (ds == SLC_E_IO) {
        return pack_fail(p, SLC_E_IO,
                         "chunk %u: its %u mapped bytes at offset %llu could not be read (the file shrank under the "
                         "mapping, or storage failed)",
                         chunk, c->stored_size, (unsigned long long)c->offset);
    }
    if (ds == SLC_E_PACK_CHUNK_CHECKSUM) {
        return pack_fail(p, SLC_E_PACK_CHUNK_CHECKSUM,
                         "chunk %u: XXH3 of its %u stored bytes is 0x%llx, the chunk table says 0x%llx", chunk,
                         c->stored_size, (unsigned long long)d.sum, (unsigned long long)c->xxh3);
    }
    if (c->codec == SLC_PACK_CODEC_STORED) {
        return SLC_OK;
    }
    int got = d.got;
    if (got < 0) {
        return pack_fail(p, SLC_E_PACK_CORRUPT,
                         "chunk %u: LZ4 rejects its %u stored bytes (error %d): corrupt, or longer than the %u bytes "
                         "its record says",
                         chunk, c->stored_size, got, c->decoded_size);
    }
#if SLC_CODEC_MESHOPT
    if (is_meshopt(c->codec)) {
        if (ds != SLC_OK) {
            char why[200];
            slc__meshopt_describe(&d.merr, why, sizeof why);
            return pack_fail(p, ds, "chunk %u: %s", chunk, why);
        }
        return SLC_OK;
    }
#endif
    if ((uint32_t)got != c->decoded_size) {
        return pack_fail(p, SLC_E_PACK_DECODED_SIZE, "chunk %u: decoded to %d bytes, the chunk table says %u", chunk,
                         got, c->decoded_size);
    }
    return SLC_OK;
}

slc_status slc_pack_check_chunk(const slc_pack *p, slc_chunk_id id, const void *page)
{
    SLC_ASSERT(p != NULL && page != NULL);
    uint32_t chunk = id.index;
    SLC_ASSERT(chunk < p->header.chunk_count);
    const slc_pack_chunk *c = &p->chunks[chunk];
    if (c->flags & SLC_PACK_CHUNK_TEXTURE) {
        return SLC_OK; /* texels: every value is one */
    }
    const unsigned char *bytes = page;
    uint64_t size = c->decoded_size;
    slc_pack_chunk_header ch;
    if (size < sizeof ch) {
        return pack_fail(p, SLC_E_PACK_CHUNK_CONTENT, "chunk %u: %u decoded bytes cannot hold the chunk header", chunk,
                         c->decoded_size);
    }
    memcpy(&ch, bytes, sizeof ch);
    if (ch.magic != SLC_PACK_CHUNK_MAGIC || ch.cluster_count != c->cluster_count || ch.lod != c->lod) {
        return pack_fail(
            p, SLC_E_PACK_CHUNK_CONTENT,
            "chunk %u: header (magic 0x%llx, %u clusters, LOD %u) disagrees with its record (%u clusters, LOD %u)",
            chunk, (unsigned long long)ch.magic, ch.cluster_count, ch.lod, c->cluster_count, c->lod);
    }
    if ((uint64_t)ch.cluster_count * sizeof(slc_pack_cluster) > size - sizeof ch) {
        return pack_fail(p, SLC_E_PACK_CHUNK_CONTENT, "chunk %u: %u cluster records do not fit %u decoded bytes", chunk,
                         ch.cluster_count, c->decoded_size);
    }
    for (uint32_t i = 0; i < ch.cluster_count; i++) {
        slc_pack_cluster cl;
        memcpy(&cl, bytes + sizeof ch + (size_t)i * sizeof cl, sizeof cl);
        if (cl.object >= p->header.object_count) {
            return pack_fail(p, SLC_E_PACK_CHUNK_CONTENT, "chunk %u cluster %u: object %u does not exist", chunk, i,
                             cl.object);
        }
        uint64_t vbytes = (uint64_t)cl.vertex_count * p->objects[cl.object].vertex_stride;
        uint64_t ibytes = (uint64_t)cl.triangle_count * 3u;
        if (cl.vertex_count == 0 || cl.vertex_offset % 4 != 0 || cl.vertex_offset > size ||
            vbytes > size - cl.vertex_offset || cl.index_offset > size || ibytes > size - cl.index_offset) {
            return pack_fail(p, SLC_E_PACK_CHUNK_CONTENT,
                             "chunk %u cluster %u: %u vertices at %u or %u triangles at %u lie outside %u bytes", chunk,
                             i, cl.vertex_count, cl.vertex_offset, cl.triangle_count, cl.index_offset, c->decoded_size);
        }
        /* On the stream's hot path: the largest index in one branch-free
         * pass, the culprit searched for only when there is one. 16 lanes
         * of maxima, so the compiler vectorises it at -O2 (a plain running
         * maximum stayed a byte a step, the check costing a sixth of an
         * LZ4 decode). */
        const unsigned char *idx = bytes + cl.index_offset;
        unsigned char lanes[16] = {0}, top = 0;
        size_t at = 0;
        for (; at + 16u <= (size_t)ibytes; at += 16u) {
            for (size_t j = 0; j < 16u; j++) {
                lanes[j] = (unsigned char)(idx[at + j] > lanes[j] ? idx[at + j] : lanes[j]);
            }
        }
        for (size_t j = 0; j < 16u; j++) {
            top = (unsigned char)(lanes[j] > top ? lanes[j] : top);
        }
        for (; at < (size_t)ibytes; at++) {
            top = (unsigned char)(idx[at] > top ? idx[at] : top);
        }
        if (top >= cl.vertex_count) {
            size_t k = 0;
            while (idx[k] < cl.vertex_count) {
                k++;
            }
            return pack_fail(p, SLC_E_PACK_CHUNK_CONTENT, "chunk %u cluster %u: triangle %llu uses vertex %u of %u",
                             chunk, i, (unsigned long long)(k / 3u), idx[k], cl.vertex_count);
        }
    }
    return SLC_OK;
}

slc_status slc_pack_texture_tail(const slc_pack *p, uint32_t i, slc_chunk_id *out)
{
    SLC_ASSERT(p != NULL && out != NULL);
    slc_pack_texture t;
    memset(&t, 0, sizeof t);
    slc_status st = slc_pack_read_texture(p, i, &t);
    if (st != SLC_OK) {
        return st;
    }
    if (t.tiled_levels >= t.level_count || t.chunk_count == 0) {
        return SLC_E_NOT_FOUND;
    }
    out->index = t.first_chunk + t.chunk_count - 1u;
    return SLC_OK;
}
