/* SPDX-License-Identifier: MIT */
/* sluice: the pack reader.
 *
 * A pack (docs/pack-format.md, sluice/pack_format.h) is read through an
 * slc_io: a read-at-offset function, the pack's size and, when the whole
 * pack is in memory (a buffer, or a file platform/ mapped), its address.
 * slc_pack_open verifies the header and every table against its checksum,
 * checks every offset, size, count and index against the file and against
 * the profile's capacities, and copies the tables into the caller's
 * `cpu/meta` arena. slc_pack_load_chunk reads a chunk, verifies the XXH3 of
 * its stored bytes before anything decodes them, and decodes it with
 * LZ4_decompress_safe straight into the caller's page.
 *
 * Every failure returns its own status and logs a message naming the pack,
 * the record and the check that failed; the pack stays usable after a
 * failed chunk load. Nothing here allocates: the tables live in the arena,
 * the compressed bytes of a chunk read through pread in the caller's
 * scratch. */
#ifndef SLUICE_PACK_H
#define SLUICE_PACK_H

#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "config.h"
#include "ids.h"
#include "pack_format.h"
#include "profile.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How the reader reaches the bytes of a pack. */
typedef struct slc_io {
    /* Reads exactly size bytes at offset into dst. Returns SLC_OK,
     * SLC_E_IO_SHORT when the file ends first, or SLC_E_IO. Must be
     * thread-safe if chunks are loaded from several threads. */
    slc_status (*read)(void *user, uint64_t offset, void *dst, size_t size);
    void *user;
    uint64_t size;               /* bytes of the pack as storage reports it */
    const unsigned char *mapped; /* the whole pack, or NULL: then every read goes through read() */
    /* With mapped: NULL, or a recovery point around the reader's use of
     * the mapping. guard(user, fn, ctx) returns fn(ctx), or SLC_E_IO when
     * a read of `mapped` inside fn faulted (the file shrank under the
     * mapping, or storage failed while paging it in): fn is then abandoned
     * where it faulted, so the reader calls it only on work that takes no
     * lock and owns nothing (hashing, decoding, copying). Must be
     * thread-safe; platform/ gives one with every mapped file. Without
     * one, such a fault is the OS's (SIGBUS: a crash). */
    slc_status (*guard)(void *user, slc_status (*fn)(void *ctx), void *ctx);
} slc_io;

/* An slc_io over size bytes at data (which must outlive the pack opened
 * through it). Its read() refers to *out, so out must not move while read()
 * may be called; the reader itself reads such a pack through `mapped`. O(1). */
void slc_io_from_memory(const void *data, size_t size, slc_io *out);

typedef struct slc_pack slc_pack;

/* Opens the pack behind io. name (copied, at most SLC_NAME_MAX - 1 bytes
 * kept) names it in messages. The profile gives the capacities the pack
 * must fit: page_size (the pack's page size may not exceed it), max_chunks,
 * max_objects, max_lods (levels per object), max_string_bytes. The tables
 * are copied into meta (normally the `cpu/meta` arena); nothing else is
 * allocated.
 *
 * Fails iff the pack is bad (SLC_E_PACK_MAGIC, _VERSION, _TRUNCATED,
 * _HEADER, _BOUNDS, _TABLE_CHECKSUM, _RECORD, _CHUNK_SIZE), exceeds the
 * profile (SLC_E_PACK_CAPACITY), its tables do not fit meta
 * (SLC_E_BUDGET_REFUSED or SLC_E_CAPACITY; the message gives the bytes
 * needed and the bytes left), or a read fails (SLC_E_IO, SLC_E_IO_SHORT).
 * On failure meta is as it was and *out is NULL.
 * O(file's table bytes): every record is checked once. */
slc_status slc_pack_open(const slc_io *io, const char *name, const slc_profile *limits, slc_arena *meta,
                         const slc_logger *log, slc_pack **out);

/* Releases the tables: resets meta to where it was before open. Nothing may
 * have been allocated from meta since (SLC_ASSERT). O(depth of the budget). */
void slc_pack_close(slc_pack *p);

/* The verified header and tables. Indices must be in range (SLC_ASSERT).
 * O(1). The returned records live until slc_pack_close. */
const slc_pack_header *slc_pack_get_header(const slc_pack *p);
const slc_pack_chunk *slc_pack_get_chunk(const slc_pack *p, slc_chunk_id chunk);
const slc_pack_object *slc_pack_get_object(const slc_pack *p, slc_object_id object);
const slc_pack_lod *slc_pack_get_lod(const slc_pack *p, uint32_t lod);
const slc_pack_span *slc_pack_get_span(const slc_pack *p, uint32_t span);
const slc_pack_instance *slc_pack_get_instance(const slc_pack *p, uint32_t instance);

/* The NUL-terminated string at offset in the string table ("" for
 * SLC_PACK_NO_NAME). Offsets in verified records are always valid; another
 * offset is a contract violation (SLC_ASSERT). O(1). */
const char *slc_pack_get_string(const slc_pack *p, uint32_t offset);

/* The runtime build options a codec's decoder needs, as bits: the CMake
 * options SLUICE_CODEC_LZ4 (liblz4) and SLUICE_CODEC_MESHOPT
 * (libmeshoptimizer). A runtime built with one OFF refuses a pack holding a
 * chunk whose codec needs it. */
#define SLC_PACK_BUILD_LZ4 1u
#define SLC_PACK_BUILD_MESHOPT 2u

/* The codec's name: "stored", "lz4", "meshopt" or "meshopt-lz4"; NULL for
 * a value that is no codec. O(1); thread-safe. */
const char *slc_pack_codec_name(uint32_t codec);

/* The SLC_PACK_BUILD_* bits codec needs: 0 for stored (and for a value that
 * is no codec), SLC_PACK_BUILD_LZ4 for lz4, SLC_PACK_BUILD_MESHOPT for
 * meshopt, both for meshopt-lz4. The one mapping from codec to build
 * option: the reader, the packer (--target-runtime) and inspect use it.
 * O(1); thread-safe. */
uint32_t slc_pack_codec_needs(uint32_t codec);

/* The CMake option of one SLC_PACK_BUILD_* bit ("SLUICE_CODEC_LZ4",
 * "SLUICE_CODEC_MESHOPT"), or NULL for any other value. O(1); thread-safe. */
const char *slc_pack_build_option_name(uint32_t option);

/* 1 when this runtime decodes chunks of codec (SLC_PACK_CODEC_*): stored
 * always, LZ4 when built with SLUICE_CODEC_LZ4 (the default), the meshopt
 * codecs when built with SLUICE_CODEC_MESHOPT, meshopt-lz4 with both (a
 * pack with a codec not built in is refused at open, SLC_E_PACK_VERSION,
 * naming the option); 0 otherwise. O(1); thread-safe. */
int slc_pack_codec_is_built(uint32_t codec);

/* Bytes of scratch slc_pack_load_chunk needs, the most of any chunk: read
 * through read(), a compressed chunk's stored bytes (16-byte aligned for
 * the meshopt codecs); for meshopt-LZ4 (codec 3) the meshopt stream LZ4
 * gives, up to its decoded size rounded up to 16; for both meshopt codecs
 * 3088 bytes for one cluster's 16-bit indices. 0 for a mapped pack of the
 * 1.0 codecs. Computed at open; O(1). */
size_t slc_pack_scratch_size(const slc_pack *p);

/* Loads chunk into page (page_size bytes, at least the chunk's decoded
 * size): reads its stored bytes (from the mapping, or through read() into
 * scratch for compressed chunks, or straight into the page for stored
 * ones), verifies their XXH3, then decodes with LZ4_decompress_safe and
 * checks the decoded size exactly; a meshopt chunk (codecs 2 and 3,
 * docs/pack-format.md) is checked whole before its clusters are decoded into
 * the page, with the scratch for codec 3's LZ4 output and the indices.
 * Stack: meshoptimizer 0.18's vertex decoder takes about 8.5 KiB of the
 * caller's (an 8 KiB block buffer; objdump of its block decoder), so a
 * thread that loads meshopt chunks needs some 12 KiB of stack. Bytes of the page past the decoded size are left as
 * they were. From a mapping, the hash and the decode (which read the
 * mapping) run inside io->guard when there is one.
 *
 * Fails iff the page is smaller than the chunk decodes to
 * (SLC_E_PACK_CHUNK_SIZE), scratch is smaller than slc_pack_scratch_size
 * needs for this chunk (SLC_E_CAPACITY), the read fails (SLC_E_IO,
 * SLC_E_IO_SHORT; SLC_E_IO also when io->guard reports a fault of the
 * mapping), the checksum differs (SLC_E_PACK_CHUNK_CHECKSUM), LZ4
 * rejects the bytes or a meshopt stream fails a check (SLC_E_PACK_CORRUPT,
 * naming the cluster and the check) or they decode to another size
 * (SLC_E_PACK_DECODED_SIZE). After a failure the page's contents are
 * unspecified and the pack is as usable as before. Thread-safe for distinct
 * pages if io->read is. O(stored + decoded bytes). */
slc_status slc_pack_load_chunk(const slc_pack *p, slc_chunk_id chunk, void *page, size_t page_size, void *scratch,
                               size_t scratch_size);

/* Bytes of one vertex with the given SLC_PACK_ATTR_* bits, per
 * docs/pack-format.md (what an object's vertex_stride must be). O(1). */
uint32_t slc_pack_vertex_stride(uint32_t attributes);

/* Since 1.3: the material and texture tables (docs/pack-format.md,
 * "Sections"). slc_pack_open checks the section directory (its checksum,
 * each section inside the file, aligned, of its kind's size, each known
 * kind once), each known section's checksum and every record: a material's
 * flags, factors in their ranges, slots naming a texture that exists, wrap
 * and filter values; a texture's size, format, kind, levels, tile geometry
 * (tile + 2 border a whole number of blocks, one tile at most a page) and
 * chunks (a run of SLC_PACK_CHUNK_TEXTURE chunks, disjoint from every other
 * texture's, each decoding to its tile's or tail's bytes); every texture
 * chunk belongs to one texture; an object's material exists. The records
 * stay in the file (nothing is added to meta): the readers below read one.
 * 0 in a pack without them. O(1). */
uint32_t slc_pack_material_count(const slc_pack *p);
uint32_t slc_pack_texture_count(const slc_pack *p);

/* Reads material (texture) record i, checked at open, into *out.
 * i must be below the count (SLC_ASSERT). Fails iff the read fails
 * (SLC_E_IO, SLC_E_IO_SHORT). O(1): one read of the record. */
slc_status slc_pack_read_material(const slc_pack *p, uint32_t i, slc_pack_material *out);
slc_status slc_pack_read_texture(const slc_pack *p, uint32_t i, slc_pack_texture *out);

/* The chunk of texture i's mip tail (its levels smaller than a tile, the
 * last of its chunks), which the stream pins at create so that no texture
 * is ever absent. i must be below slc_pack_texture_count (SLC_ASSERT).
 * Fails iff the record's read fails (SLC_E_IO, SLC_E_IO_SHORT), or the
 * texture has no tail (SLC_E_NOT_FOUND; never in a pack the packer wrote:
 * its 1x1 level is smaller than any tile). O(1): one read. */
slc_status slc_pack_texture_tail(const slc_pack *p, uint32_t i, slc_chunk_id *out);

/* A texel format's block: width x height texels in bytes (1 x 1 in 4 for
 * SLC_PACK_TEXEL_RGBA8). Returns 0, or -1 for a value that is no format.
 * The one table of formats: the reader, the packer and inspect use it.
 * O(1); thread-safe. */
int slc_pack_texel_block(uint32_t format, uint32_t *width, uint32_t *height, uint32_t *bytes);

/* The format's name ("rgba8", "bc1", "bc3", "astc4x4", "astc6x6",
 * "astc8x8"), or NULL for a value that is no format. O(1). */
const char *slc_pack_texel_format_name(uint32_t format);

/* The formats of mask (bit f: SLC_PACK_TEXEL_* value f; other bits
 * ignored) as a list for a message: "rgba8, bc1 and bc3", "astc6x6", or
 * "no texel format". Writes at most cap bytes, NUL-terminated (cap > 0),
 * and returns the length written. O(formats); thread-safe. */
size_t slc_pack_texel_format_list(uint32_t mask, char *buf, size_t cap);

/* Bit f set for each texel format f some texture of the pack holds (0 in
 * a pack without textures): what a device must sample to show it, checked
 * by slc_stream_create against its page store's sampled_formats. Gathered
 * at open. O(1). */
uint32_t slc_pack_texel_formats(const slc_pack *p);

/* The texture chunks of the pack (every texture's tiles and mip tail, the
 * chunks flagged SLC_PACK_CHUNK_TEXTURE: slc_pack_open checks that the
 * texture table owns exactly these); 0 in a pack without textures. O(1). */
uint32_t slc_pack_texture_chunk_count(const slc_pack *p);

/* Bytes of a width x height level in format: whole blocks, the partial
 * ones at the right and bottom edges counted whole. 0 for an unknown
 * format or a zero side. O(1). */
uint64_t slc_pack_texel_bytes(uint32_t format, uint32_t width, uint32_t height);

/* A texture's layout, from its width, height, tile and border: the one
 * place the format's tiling rule lives (docs/pack-format.md, "Texture
 * table"). Level i is max(1, w >> i) x max(1, h >> i); it is tiled iff a
 * side is at least tile texels. */
#define SLC_PACK_MAX_TEXTURE_SIDE 16384u
#define SLC_PACK_MAX_TEXTURE_LEVELS 15u
typedef struct slc_pack_texture_layout {
    uint32_t level_count;                       /* floor(log2(max(w, h))) + 1 */
    uint32_t tiled_levels;                      /* levels cut into tiles */
    uint32_t cols[SLC_PACK_MAX_TEXTURE_LEVELS]; /* tiles across each tiled level */
    uint32_t rows[SLC_PACK_MAX_TEXTURE_LEVELS]; /* tiles down */
    uint32_t
        first[SLC_PACK_MAX_TEXTURE_LEVELS]; /* each tiled level's first tile, counted from the texture's first chunk */
    uint32_t tiles;                         /* tiles of every tiled level */
    uint32_t chunk_count;                   /* tiles, plus 1 for the tail when there is one */
    uint64_t tile_bytes;                    /* decoded bytes of one tile: (tile + 2 border)^2 texels */
    uint64_t tail_bytes;                    /* decoded bytes of the tail (0: none) */
} slc_pack_texture_layout;

/* Fills *out for a width x height texture in format cut into tile-texel
 * tiles with border-texel borders. Returns 0, or -1 iff a side is 0 or more
 * than SLC_PACK_MAX_TEXTURE_SIDE, the format is unknown, tile is 0, border
 * is more than tile, or tile + 2 border is not a whole number of the
 * format's blocks on either axis. O(levels); thread-safe. */
int slc_pack_texture_layout_of(uint32_t width, uint32_t height, uint32_t format, uint32_t tile, uint32_t border,
                               slc_pack_texture_layout *out);

/* Checks a decoded chunk's contents against docs/pack-format.md: the chunk
 * header (magic, cluster count and LOD as the chunk record says), every
 * cluster's object, offsets and sizes inside the decoded bytes (with its
 * object's vertex stride), and every triangle index below the cluster's
 * vertex count. page holds the chunk as slc_pack_load_chunk left it.
 * Fails iff something is inconsistent (SLC_E_PACK_CHUNK_CONTENT, the message
 * names the chunk, the cluster and the check). A texture chunk
 * (SLC_PACK_CHUNK_TEXTURE) holds texels, whose every value is valid: SLC_OK
 * (its size was checked at open and its checksum by the load). O(decoded
 * bytes). */
slc_status slc_pack_check_chunk(const slc_pack *p, slc_chunk_id chunk, const void *page);

#ifdef __cplusplus
}
#endif

#endif
