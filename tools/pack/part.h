/* SPDX-License-Identifier: MIT */
/* sluice pack: partial packs (`sluice pack --part K/N`, `sluice merge`).
 *
 * A partial pack holds, for each bundle b of the input with b % N == K - 1,
 * the bundle's records (bundle-local, as pack_writer.h takes them), the
 * order its chunks were finished in, and its chunk payloads in that order;
 * a header names K, N, the bundle count of the whole input and a
 * fingerprint of the options and of the input sequence, so parts of one
 * pack are recognised. docs/pack-format.md ("Partial packs") is the layout.
 * Written through a temporary and a rename (atomic_file.h), as a pack is.
 *
 * Not thread-safe: one thread at a time per writer or reader. */
#ifndef SLUICE_TOOLS_PACK_PART_H
#define SLUICE_TOOLS_PACK_PART_H

#include <stddef.h>
#include <stdint.h>

#include "mesh.h"
#include "pack_writer.h"
#include "sluice/pack_format.h"

#define PK_PART_MAGIC "SLCPART\0"
#define PK_PART_VERSION 2u      /* 2: bundles carry materials and textures (pack format 1.3) */
#define PK_PART_MAX_PARTS 1024u /* the most parts of a pack (builder.h: PK_MAX_PARTS) */

/* At offset 0, 96 bytes. */
typedef struct pk_part_header {
    char magic[8];             /*  0: PK_PART_MAGIC */
    uint32_t version;          /*  8: PK_PART_VERSION */
    uint32_t header_size;      /* 12: 96 */
    uint32_t part;             /* 16: K, 1..part_count */
    uint32_t part_count;       /* 20: N, 1..1024 */
    uint32_t bundle_count;     /* 24: bundles of the whole input */
    uint32_t bundles_here;     /* 28: directory entries */
    uint32_t page_size;        /* 32 */
    uint32_t quantize;         /* 36: 0 or 1 */
    uint64_t fingerprint;      /* 40: pk_build_stats.fingerprint */
    uint64_t directory_offset; /* 48: bundles_here pk_part_entry records */
    uint64_t file_size;        /* 56 */
    uint64_t directory_xxh3;   /* 64: of the directory */
    uint64_t reserved[2];      /* 72: 0 */
    uint64_t header_xxh3;      /* 88: of bytes 0..88 */
} pk_part_header;

/* A directory entry: one bundle, 96 bytes. */
typedef struct pk_part_entry {
    uint32_t bundle;         /*  0: K - 1 + i x N for entry i */
    uint32_t first_object;   /*  4: global index of its first object */
    uint32_t chunk_count;    /*  8 */
    uint32_t object_count;   /* 12 */
    uint32_t lod_count;      /* 16 */
    uint32_t span_count;     /* 20 */
    uint32_t instance_count; /* 24 */
    uint32_t string_size;    /* 28 */
    uint64_t payload_offset; /* 32: where its first payload starts */
    uint64_t payload_size;   /* 40: bytes up to the end of its last payload */
    uint64_t records_offset; /* 48: after the payloads */
    uint64_t records_size;   /* 56 */
    uint64_t payload_xxh3;   /* 64: of the payload bytes, padding included */
    uint64_t records_xxh3;   /* 72: of the record bytes, padding included */
    uint32_t material_count; /* 80 */
    uint32_t texture_count;  /* 84 */
    uint64_t reserved;       /* 88: 0 */
} pk_part_entry;

_Static_assert(sizeof(pk_part_header) == 96, "part header layout");
_Static_assert(offsetof(pk_part_header, fingerprint) == 40, "part header layout");
_Static_assert(offsetof(pk_part_header, header_xxh3) == 88, "part header layout");
_Static_assert(sizeof(pk_part_entry) == 96, "part bundle layout");
_Static_assert(offsetof(pk_part_entry, payload_offset) == 32, "part bundle layout");
_Static_assert(offsetof(pk_part_entry, records_xxh3) == 72, "part bundle layout");

/* --- writing (the builder) ------------------------------------------------ */

typedef struct pk_part_writer pk_part_writer;

/* What pk_part_finish writes into the header. */
typedef struct pk_part_info {
    uint32_t part, part_count, bundle_count, page_size, quantize;
    uint64_t fingerprint;
} pk_part_info;

typedef struct pk_part_stats {
    uint32_t chunks_stored_raw;
    uint32_t chunks_codec[4];
    uint64_t bytes_raw, bytes_stored, file_size;
} pk_part_stats;

/* Opens a temporary beside path. 0, or -1 with d->message. Allocates. */
int pk_part_open(const char *path, pk_part_writer **out, pk_diag *d);

/* Appends the open bundle's chunk `local` (rec: all fields but offset;
 * rec->offset is set to where its payload went). 0, or -1 with d->message. */
int pk_part_chunk(pk_part_writer *w, slc_pack_chunk *rec, uint32_t local, const void *stored, pk_diag *d);

/* Ends the open bundle: its records (chunks[0..r->chunk_count), each
 * appended) and its directory entry. 0, or -1 with d->message. */
int pk_part_bundle(pk_part_writer *w, uint32_t bundle, uint32_t first_object, const slc_pack_chunk *chunks,
                   const pk_bundle_records *r, pk_diag *d);

/* Writes the directory and the header, flushes, renames over the target,
 * frees w. 0, or -1 with d->message (the target as it was). */
int pk_part_finish(pk_part_writer *w, const pk_part_info *info, pk_part_stats *stats, pk_diag *d);

int pk_part_io_failed(const pk_part_writer *w);

/* Removes the temporary and frees w; w may be NULL. */
void pk_part_abort(pk_part_writer *w);

/* --- reading (sluice merge) ---------------------------------------------- */

typedef struct pk_part_reader pk_part_reader;

/* One bundle's records as read, owned by the reader until the next load. */
typedef struct pk_part_records {
    const slc_pack_chunk *chunks; /* offsets: of the payloads in the part */
    const uint32_t *order;        /* chunk ids in finish order */
    pk_bundle_records r;
} pk_part_records;

/* Opens a part and checks all of it before anything is merged: the magic,
 * version, header checksum and size, the file's size, the directory's
 * checksum and entries (bundle numbers, ranges inside the file), and the
 * records and payloads of every bundle against their checksums (read
 * through a fixed buffer). 0, or -1 with d->message naming path and the
 * failed check (-2 when the file cannot be read at all). Allocates. */
int pk_part_reader_open(const char *path, pk_part_reader **out, pk_diag *d);

const pk_part_header *pk_part_reader_header(const pk_part_reader *r);

/* Loads directory entry i's records (checked again against their checksum
 * and their ranges). 0, or -1 with d->message. */
int pk_part_load_bundle(pk_part_reader *r, uint32_t i, const pk_part_entry **entry, pk_part_records *out, pk_diag *d);

/* Reads size bytes at offset of the part into buf. 0, or -1 with d->message. */
int pk_part_read(pk_part_reader *r, uint64_t offset, void *buf, size_t size, pk_diag *d);

void pk_part_reader_close(pk_part_reader *r);

#endif
