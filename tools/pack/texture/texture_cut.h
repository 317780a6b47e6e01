/* SPDX-License-Identifier: MIT */
/* sluice pack: one image made into a pack texture (format 1.3): its full
 * mip chain (mip.h), cut into tiles with borders (tile.h), each tile and
 * the mip tail encoded in the pack's texel format (encode.h) and stored raw
 * or through LZ4, handed on as chunks in the order the texture record
 * gives them (sluice/pack_format.h: level 0's tiles row by row, then each
 * tiled level's, then the tail), with the record filled in.
 *
 * Memory: the image's RGBA8 copy when it is 16-bit, its mip chain (at most
 * 4/3 of level 0 plus 2 x max(w, h) texels, mip.h), and per thread a few
 * tiles' texels, encoded bytes and LZ4 bounds: the image's RGBA8 size and
 * its chain, whatever its tiles. Deterministic: the same image, kind, wrap,
 * format and quality give the same chunks, for any number of threads (each
 * tile's bytes depend on its texels alone). */
#ifndef SLUICE_TOOLS_PACK_TEXTURE_TEXTURE_CUT_H
#define SLUICE_TOOLS_PACK_TEXTURE_TEXTURE_CUT_H
#include <stddef.h>
#include <stdint.h>

#include "encode.h"
#include "image.h"
#include "mesh.h"
#include "mip.h"
#include "sluice/pack_format.h"
#include "tile.h"

/* The border every tile carries, in texels: enough for trilinear and 4x
 * anisotropic filtering at a tile's edge. */
#define PK_TEXTURE_BORDER 4u

/* The tile payload side for format at page_size: the largest physical side
 * (tile + 2 x PK_TEXTURE_BORDER) of at most 256 texels that is a whole
 * number of the format's blocks, not only a power of two, and whose encoded
 * tile takes at most half a page (so the mip tail, under 4/3 of a tile's
 * texels, fits one page too). Returns the payload side, or 0 when not even
 * a 16-texel tile fits (a page too small for the format). O(256 / block). */
uint32_t pk_texture_tile_size(uint32_t format, uint32_t page_size);

/* Where the chunks go: chunk k of the texture (0 .. record.chunk_count - 1
 * in the record's order), its record (all fields but offset set: codec,
 * sizes, xxh3, flags SLC_PACK_CHUNK_TEXTURE) and its stored bytes. Returns
 * 0, or -1 with d->message (which pk_texture_cut then returns). */
typedef int (*pk_texture_chunk_fn)(void *user, uint32_t k, const slc_pack_chunk *rec, const void *stored, pk_diag *d);

/* The most threads that encode one texture's tiles (each holds an encoder:
 * ASTC's is about 33 MiB of address space, a few MiB of it touched). */
#define PK_TEXTURE_MAX_THREADS 16u

typedef struct pk_texture_job {
    const pk_image *image; /* decoded, RGBA8 or RGBA16 */
    pk_mip_kind kind;      /* colour (sRGB), data or normal */
    pk_wrap wrap_s, wrap_t;
    const char *name; /* for messages */
    /* One encoder per thread, threads of them (1 to PK_TEXTURE_MAX_THREADS),
     * all of the pack's format, sRGB for colour kinds and linear for the
     * others: the tiles are encoded on threads - 1 threads started here and
     * the calling one, a few tiles each per batch, and handed on in order. */
    pk_encoder *const *encoders;
    uint32_t threads;
    uint32_t page_size;
    double stored_ratio; /* LZ4 is kept only when it is at least this many times smaller */
} pk_texture_job;

/* What a texture cost: for the packer's summary. */
typedef struct pk_texture_cut_stats {
    uint64_t texels;        /* of every level */
    uint64_t encoded_bytes; /* decoded chunk bytes */
    uint64_t stored_bytes;  /* stored chunk bytes */
    /* Level 0's PSNR (R, G, B): its tiles' payloads, or the tail's level 0
     * when it is smaller than a tile, decoded again against the texels
     * they were encoded from; PK_ENCODE_PSNR_IDENTICAL when equal. */
    double psnr;
} pk_texture_cut_stats;

/* Cuts job->image into chunks, handing each to fn, and fills *rec (name 0
 * and first_chunk 0: the caller's) and *stats (may be NULL). Returns 0, or
 * -1 with d->message naming job->name and the failed step (a size past the
 * format's limits, a page too small for one tile, out of memory, an encoder
 * error, a thread that cannot start is no error: its tiles are encoded by
 * the calling thread; or fn's own failure, called on the calling thread).
 * Allocates for the call only. Thread-safe for distinct encoders. */
int pk_texture_cut(const pk_texture_job *job, pk_texture_chunk_fn fn, void *user, slc_pack_texture *rec,
                   pk_texture_cut_stats *stats, pk_diag *d);

#endif
