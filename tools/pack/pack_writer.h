/* SPDX-License-Identifier: MIT */
/* sluice pack: the appender. The one place a pack file is laid out: the
 * single-process builder (builder.c) and `sluice merge` (merge_cmd.c) both
 * append finished bundles through it, so their output is the same by
 * construction.
 *
 * A bundle is a run of consecutive objects whose pages were filled and
 * finished together (builder.h, pk_build_options.bundle_size). Its records
 * number chunks, LODs, spans and string offsets from 0 (bundle-local); object
 * indices (in cluster records, chunk.first_object and instance.object) are
 * already those of the whole pack. The appender writes each chunk's stored
 * bytes as they come, deduplicating them against every chunk written so far
 * (XXH3, sizes and codec equal, then the bytes read back from the file and
 * compared), rebases the bundle's records when the bundle ends and, at the
 * end, writes the tables, the header and the checksums.
 *
 * The file is written through a temporary beside the target
 * (tools/common/atomic_file.h): an existing target is replaced only by a
 * successful pk_writer_finish. Memory: the table records of the whole pack,
 * one chunk's read-back buffer and the deduplication table; never the chunk
 * payloads. Not thread-safe: one thread at a time. */
#ifndef SLUICE_TOOLS_PACK_PACK_WRITER_H
#define SLUICE_TOOLS_PACK_PACK_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "mesh.h"
#include "sluice/pack_format.h"

/* One bundle's records, bundle-local as said above. */
typedef struct pk_bundle_records {
    uint32_t chunk_count;
    const slc_pack_object *objects;
    uint32_t object_count;
    const slc_pack_lod *lods;
    uint32_t lod_count;
    const slc_pack_span *spans;
    uint32_t span_count;
    const slc_pack_instance *instances;
    uint32_t instance_count;
    /* Since 1.3: materials and textures, numbered after those of the
     * bundles before, as objects are; a texture's first_chunk and name are
     * bundle-local, a material's slots name textures by global index + 1,
     * an object its material by global index + 1. */
    const slc_pack_material *materials;
    uint32_t material_count;
    const slc_pack_texture *textures;
    uint32_t texture_count;
    const char *strings; /* string_size bytes, names NUL-terminated */
    uint32_t string_size;
} pk_bundle_records;

/* The record tables a pack grows while it is built, each an array with its
 * count and capacity (pk_grow): the builder holds one bundle's, the appender
 * the whole pack's. A zeroed struct is empty. */
typedef struct pk_tables {
    slc_pack_lod *lods;
    uint32_t lod_count, lod_cap;
    slc_pack_span *spans;
    uint32_t span_count, span_cap;
    slc_pack_instance *instances;
    uint32_t instance_count, instance_cap;
    char *strings; /* string_size bytes, names NUL-terminated */
    uint32_t string_size, string_cap;
} pk_tables;

/* Frees the tables' arrays and zeroes t. O(1). */
void pk_tables_free(pk_tables *t);

/* What the appender wrote. */
typedef struct pk_writer_stats {
    uint32_t objects, lods, spans, instances;
    uint32_t chunks;              /* chunk records */
    uint32_t chunks_deduplicated; /* records pointing at an earlier chunk's bytes */
    uint32_t chunks_stored_raw;
    uint32_t chunks_codec[4]; /* by SLC_PACK_CODEC_* */
    uint64_t bytes_raw;       /* decoded bytes of every chunk record */
    uint64_t bytes_stored;    /* stored bytes in the file, duplicates once */
    uint64_t file_size;
} pk_writer_stats;

typedef struct pk_writer pk_writer;

/* Opens a temporary beside path for a pack of page_size pages (quantize: the
 * objects are quantized, for the header's optional features). Returns 0, or
 * -1 with d->message naming path and the reason. Allocates. */
int pk_writer_open(const char *path, uint32_t page_size, int quantize, pk_writer **out, pk_diag *d);

/* Appends the stored bytes of the open bundle's chunk `local` (its record
 * rec: every field but offset set; stored_size bytes at stored). Chunks come
 * in the order their pages were finished; each local id once. Returns 0, or
 * -1 with d->message naming the file (a failed write or read back, out of
 * memory, a local id given twice). */
int pk_writer_chunk(pk_writer *w, uint32_t local, const slc_pack_chunk *rec, const void *stored, pk_diag *d);

/* Ends the open bundle: every chunk 0..r->chunk_count-1 must have been
 * appended; the records are rebased and appended. Returns 0, or -1 with
 * d->message (a chunk missing, a record naming a chunk, LOD, span or string
 * outside the bundle, more records than the format holds, out of memory). */
int pk_writer_bundle(pk_writer *w, const pk_bundle_records *r, pk_diag *d);

/* Objects appended so far: the global index of the next bundle's first. */
uint32_t pk_writer_object_count(const pk_writer *w);

/* Writes the tables and the header, flushes and renames the temporary over
 * the target, and frees w (invalid afterwards, whatever the result). stats
 * may be NULL. Returns 0, or -1 with d->message (a chunk of an unfinished
 * bundle, a failed write, fsync or rename; the target is then as it was). */
int pk_writer_finish(pk_writer *w, pk_writer_stats *stats, pk_diag *d);

/* 1 when a write or read of the file failed. */
int pk_writer_io_failed(const pk_writer *w);

/* Removes the temporary and frees w. w may be NULL. */
void pk_writer_abort(pk_writer *w);

/* Helpers of the packer's modules (builder.c, part.c, pack_writer.c). */

/* Formats d->message (d may be NULL); returns -1. */
int pk_fail(pk_diag *d, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
#ifdef __clang_analyzer__
/* clang's analyzer never inlines a variadic function: tell it the result. */
#define pk_fail(...) (pk_fail(__VA_ARGS__), -1)
#endif

/* The monotonic clock in seconds, for the packer's timings (differences of
 * two calls). O(1); thread-safe. */
double pk_seconds_now(void);

/* Grows *p to hold at least need elements of elem bytes (doubling, at most
 * UINT32_MAX elements). Returns 0, or -1 (too many, out of memory; *p kept). */
int pk_grow(void **p, uint32_t *cap, uint64_t need, size_t elem);

/* Whole writes and reads at an offset, retried on EINTR. 0, or -1 with
 * errno set (0 for no progress or end of file). */
int pk_pwrite_all(int fd, const void *data, size_t size, uint64_t offset);
int pk_pread_all(int fd, void *data, size_t size, uint64_t offset);

#endif
