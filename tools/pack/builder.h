/* SPDX-License-Identifier: MIT */
/* sluice pack: the pack builder. It takes meshes one at a time, turns each
 * into an LOD chain of clusters (meshoptimizer), fills page-sized chunks with
 * the clusters, compresses them (LZ4 HC, meshoptimizer's codecs) and writes the pack as it goes, in
 * the layout of sluice/pack_format.h and docs/pack-format.md.
 *
 * Memory: the builder holds one mesh's working data, the open pages (at most
 * 2 x max_lods pages, see builder.c) and the table records; never the scene.
 * The pack file is written as chunks are finished; the tables and, last, the
 * header at offset 0 are written by pk_builder_finish.
 *
 * Nothing is destroyed by a build that does not complete: the bytes go to a
 * temporary beside the target (tools/common/atomic_file.h), which
 * pk_builder_finish flushes (fsync) and renames over the target once the
 * header is written. A failed write (a full disk), pk_builder_abort, SIGINT
 * or SIGTERM removes the temporary and leaves an existing file at the target
 * as it was; SIGKILL may leave the temporary, never a half-written target.
 *
 * Deterministic: the same options and the same sequence of calls give a
 * byte-identical file (no timestamps, no address-dependent order, every
 * padding byte zero).
 *
 * Parallel (pk_build_options.jobs): the per-mesh work (optimise, simplify,
 * cluster, encode vertices) and the per-page work (the codecs) run on a pool
 * of jobs - 1 worker threads and the calling thread; clusters are placed in
 * pages in mesh order and chunks written in the order their pages were
 * finished, so the file is byte-identical for every jobs. At most jobs
 * meshes and 2 x jobs + 32 pages are in flight: pk_builder_add_mesh blocks
 * while the pipeline is full. The importers (glTF, synthetic) are read
 * sequentially by the caller, one mesh at a time; reading is a few percent
 * of the time. Every thread is joined by pk_builder_finish and
 * pk_builder_abort.
 *
 * Partitioned (pk_build_options.part, part_count): every process reads,
 * checks, hashes and deduplicates every mesh, so bundle and object numbering
 * are the same everywhere, but builds only the meshes of bundles b with
 * b % part_count == part - 1, and writes a partial pack (part.h,
 * docs/pack-format.md "Partial packs") that `sluice merge` joins.
 *
 * Not thread-safe: one builder is used by one thread at a time. Builders
 * share nothing, so several may run in parallel on different files. */
#ifndef SLUICE_TOOLS_PACK_BUILDER_H
#define SLUICE_TOOLS_PACK_BUILDER_H

#include <stdint.h>

#include "material.h"
#include "mesh.h"
#include "part.h"
#include "sluice/limits.h"

/* Defaults of the options a zero field stands for. */
#define PK_DEFAULT_LZ4_LEVEL 9
#define PK_DEFAULT_MAX_LODS 8u
/* The error cap of a level: a coarser level is made only when its measured
 * Hausdorff distance to level 0 (lod_error.h) is at most this fraction of
 * the mesh's bounding radius (half its bounding box's diagonal); where no
 * method gets within it, the object's chain stops there (its last LOD record
 * says SLC_PACK_LOD_END_ERROR_CAP). */
#define PK_LOD_ERROR_CAP 0.05
#define PK_DEFAULT_STORED_RATIO 1.1
#define PK_DEFAULT_CLUSTER_VERTICES 64u
#define PK_DEFAULT_CLUSTER_TRIANGLES 124u
#define PK_MAX_CLUSTER_VERTICES 255u  /* local indices are uint8 */
#define PK_MAX_CLUSTER_TRIANGLES 512u /* meshoptimizer's limit */
#define PK_DEFAULT_MAX_JOBS 64u       /* jobs 0 takes the online cores, at most this many */
#define PK_MAX_PARTS PK_PART_MAX_PARTS
/* pk_build_options.texture_format: materials packed, their texture slots
 * empty, no image decoded. */
#define PK_TEXTURES_NONE 255u
#define PK_DEFAULT_TEXTURE_FORMAT SLC_PACK_TEXEL_RGBA8

/* How chunks are stored (pk_build_options.codec). */
typedef enum pk_codec {
    /* Per chunk, the smallest of stored, LZ4, meshopt and meshopt-LZ4 under
     * the decode-speed floor: candidates in order of decode cost (stored,
     * LZ4, meshopt, meshopt-LZ4), each taken over the cheaper pick only
     * when it is smaller by the pick's margin (LZ4: stored_ratio_threshold;
     * meshopt and meshopt-LZ4: PK_MESHOPT_MIN_SAVING). The meshopt codecs
     * only when the linked runtime decodes them (slc_pack_codec_is_built). */
    PK_CODEC_AUTO = 0,
    PK_CODEC_STORED,      /* every chunk stored */
    PK_CODEC_LZ4,         /* LZ4 where it beats stored_ratio_threshold, stored otherwise */
    PK_CODEC_MESHOPT,     /* meshopt where smaller than stored, stored otherwise */
    PK_CODEC_MESHOPT_LZ4, /* meshopt then LZ4 where smaller than stored, stored otherwise */
    PK_CODEC_COUNT
} pk_codec;

/* The codecs' names in pk_codec order ("auto", "stored", "lz4", "meshopt",
 * "meshopt-lz4"), NULL-terminated (the CLI's --codec choices). */
extern const char *const pk_codec_names[PK_CODEC_COUNT + 1];

/* Under --codec auto, a meshopt codec replaces the cheaper pick only when it
 * saves at least this share of the pick's bytes: its decode costs more (a
 * second pass over the page for meshopt-LZ4). */
#define PK_MESHOPT_MIN_SAVING 0.05

/* A zero-initialised struct is valid: every zero field means its default. */
typedef struct pk_build_options {
    /* How chunks are stored. 0: auto. */
    pk_codec codec;
    /* Bytes of a page: a power of two from 4 KiB to 64 MiB (the range the
     * runtime's profiles accept). No chunk decodes to more. 0: 64 KiB. */
    uint32_t page_size;
    /* LZ4 HC level, 1..12. 0: 9. */
    int lz4_level;
    /* 1: positions 16-bit over the object's bounding box, normals octahedral
     * snorm8, uvs 16-bit over the object's uv range. 0: all float. */
    int quantize;
    /* Most levels in an object's LOD chain, 1..16. 0: 8. */
    uint32_t max_lods;
    /* A chunk is stored raw unless LZ4 makes it at least this many times
     * smaller (compressed < decoded / ratio). >= 1.0. 0: 1.1, where DESIGN.md
     * measured raw copies beating LZ4 decode of barely-compressible data. */
    double stored_ratio_threshold;
    /* Cluster limits, 3..255 vertices and 4..512 triangles (rounded down to
     * a multiple of 4, as meshoptimizer requires). Both are halved until one
     * cluster of the widest vertex (32 bytes) fits a page. 0: 64 and 124. */
    uint32_t max_cluster_vertices;
    uint32_t max_cluster_triangles;
    /* Threads, the caller's included, 1..256; 1: none is started. The output
     * does not depend on it. 0: the online cores (pk_default_jobs). */
    uint32_t jobs;
    /* Bytes of unique input (pk_mesh_input_bytes) per bundle: a new mesh
     * starts a new bundle when the current one holds some and the mesh would
     * take it over this. Every open page is finished at the end of a bundle.
     * 0: 64 MiB, so a pack of less unique input is one bundle. */
    uint64_t bundle_size;
    /* A partial pack: part K (1..part_count) of part_count (1..1024).
     * 0 and 0: the whole pack. */
    uint32_t part;
    uint32_t part_count;
    /* The codecs the target runtime decodes: bit 1u << SLC_PACK_CODEC_* for
     * each (`sluice pack --target-runtime`). No chunk gets a codec outside
     * it (stored is always allowed); a forced codec outside it is the
     * caller's to refuse. 0: every codec. */
    uint32_t codecs_allowed;
    /* What texture chunks hold (`sluice pack --texture-format`): a
     * SLC_PACK_TEXEL_* format, or PK_TEXTURES_NONE to pack materials without
     * their textures. 0: PK_DEFAULT_TEXTURE_FORMAT. */
    uint32_t texture_format;
    /* The block encoders' effort (encode.h: pk_encode_quality). 0: medium. */
    uint32_t texture_quality;
} pk_build_options;

/* 1 when o lets a chunk use codec (SLC_PACK_CODEC_*): stored always, any
 * codec when o->codecs_allowed is 0, else the codecs it names. O(1). */
int pk_codec_allowed(const pk_build_options *o, uint32_t codec);

/* What a finished build did. Counts of the whole pack. */
typedef struct pk_build_stats {
    uint32_t objects;               /* object records written */
    uint32_t meshes;                /* pk_builder_add_mesh calls that succeeded */
    uint32_t meshes_deduplicated;   /* meshes identical to an earlier one: no new object */
    uint32_t instances;             /* instance records written */
    uint32_t instances_added;       /* pk_builder_add_instance calls that succeeded */
    uint32_t bundles;               /* of the whole input */
    uint32_t bundles_built;         /* in this file (all of them but for a partial pack) */
    uint32_t peak_meshes_in_flight; /* most meshes handed to the pipeline and not yet placed */
    uint32_t peak_pages_in_flight;  /* most finished pages not yet written */
    uint64_t fingerprint;           /* XXH3 of the options, mesh hashes and names, instances, in order */
    uint64_t triangles_lod0;        /* triangles of every object's level 0 */
    uint64_t triangles_all;         /* triangles of every level of every object */
    uint64_t clusters;
    uint32_t chunks;               /* chunk records */
    uint32_t chunks_deduplicated;  /* chunk records pointing at an earlier chunk's bytes */
    uint32_t chunks_stored_raw;    /* chunks with codec STORED */
    uint32_t chunks_codec[4];      /* chunk records by codec (SLC_PACK_CODEC_*) */
    uint64_t input_bytes;          /* float vertex (pos, normal, uv present) + uint32 index bytes given */
    uint32_t materials;            /* material records written */
    uint32_t textures;             /* texture records written (identical ones once) */
    uint32_t textures_added;       /* pk_builder_add_texture calls that succeeded */
    uint64_t texture_texels;       /* of every level of every texture built here */
    uint32_t texture_chunks;       /* chunk records of textures built here */
    uint64_t texture_bytes;        /* decoded bytes of their chunks */
    uint64_t texture_stored;       /* stored bytes of their chunks */
    double texture_decode_seconds; /* making the images given (pk_image.decode_seconds), identical ones included */
    double texture_encode_seconds; /* mip chains, tiles and encoding of the textures built here */
    double texture_psnr_min;       /* the lowest level-0 PSNR of a texture built here (dB; 0: none) */
    uint64_t bytes_raw;            /* decoded bytes of every chunk record */
    uint64_t bytes_stored;         /* stored chunk bytes in the file (duplicates once) */
    uint64_t file_size;
    double ratio;      /* bytes_raw / bytes_stored */
    double page_fill;  /* of the geometry chunks: their decoded bytes / (their count x page_size) */
    double seconds;    /* wall clock from open to the end of finish */
    uint64_t peak_rss; /* bytes: the process's peak resident set (getrusage) */
    /* The options in force, defaults and cluster shrinking applied. */
    pk_build_options options;
} pk_build_stats;

typedef struct pk_builder pk_builder;

/* A texture this process built, as pk_builder_add_texture hands it to the
 * listener of pk_builder_on_texture: the packer's per-texture summary. */
typedef struct pk_texture_built {
    uint32_t index;   /* in the pack's texture table: the id a material's slot names */
    const char *name; /* as pk_builder_add_texture was given it; valid for the call only */
    uint32_t width, height;
    pk_mip_kind kind;
    uint32_t format; /* SLC_PACK_TEXEL_* */
    /* Level 0's PSNR (dB, R, G and B): its tiles (or, when it is smaller
     * than a tile, the mip tail's level 0) decoded again against the
     * texels they were encoded from (the image, 16-bit rounded to 8);
     * PK_ENCODE_PSNR_IDENTICAL when they are equal (rgba8 always). */
    double psnr;
    double decode_seconds; /* the image's pk_image.decode_seconds */
    double encode_seconds; /* its mip chain, tiles, encoding and the check above */
} pk_texture_built;

/* Returns 0, or -1 with d->message (pk_builder_add_texture then fails with
 * it and the builder accepts only pk_builder_abort). */
typedef int (*pk_texture_built_fn)(void *user, const pk_texture_built *t, pk_diag *d);

/* Checks opt (NULL: all defaults) and fills out with the options a builder
 * would use: defaults for zero fields, cluster limits shrunk to fit a page.
 * Returns 0, or -1 with d->message naming the option and its value. */
int pk_build_options_resolve(const pk_build_options *opt, pk_build_options *out, pk_diag *d);

/* Creates a builder writing to a temporary beside out_path (an existing
 * out_path is untouched until pk_builder_finish succeeds). opt may be NULL
 * (all defaults). Returns 0, or -1 with d->message saying why (an option
 * out of range, naming it and its value; the temporary cannot be created,
 * naming out_path and the OS reason). Allocates. */
int pk_builder_open(const char *out_path, const pk_build_options *opt, pk_builder **out, pk_diag *d);

/* Adds one mesh as an object: optimises it for the vertex cache and vertex
 * fetch, builds its LOD chain (meshopt_simplify, halving the triangle count
 * per level until a level saves less than 5% or max_lods is reached), splits
 * every level into clusters, appends them to the open pages and writes the
 * pages that fill up. The mesh is only read; the builder keeps no pointer
 * into it, so the caller may free it on return.
 *
 * A mesh identical to an earlier one (same vertices, attributes and indices,
 * by XXH3-128 of its contents; the name is not compared) adds no object:
 * *object_index is the earlier object's index. Otherwise it is the new
 * object's index, objects numbered from 0 in the order they are added.
 *
 * Returns 0, or -1 with d->message naming the mesh and why: no triangles, an
 * index count that is not a multiple of 3, an index out of range, a position
 * that is not finite, more objects than the format holds, out of memory, a
 * failed write. A failure past the checks of the mesh (memory, a write)
 * leaves the builder accepting only pk_builder_abort. Time is
 * O(n log n) in the mesh's triangles; allocates its working data.
 *
 * With jobs > 1 the mesh is copied and built on the pool; a failure of its
 * build (out of memory) or of a write is returned, with its message naming
 * the mesh or the file, by a later call (add_mesh or finish). */
int pk_builder_add_mesh(pk_builder *b, const pk_mesh *mesh, uint32_t *object_index, pk_diag *d);

/* pk_builder_add_mesh taking ownership of the mesh's arrays (no copy): *mesh
 * is zeroed (or freed on failure) whatever the result. */
int pk_builder_add_mesh_owned(pk_builder *b, pk_mesh *mesh, uint32_t *object_index, pk_diag *d);

/* Adds a texture made from img (decoded; RGBA8 or RGBA16), to be filtered
 * as kind says (mip.h) and tiled with its sampler's wrap modes, named name
 * (a file name, "" for none) in the texture table: its full mip chain cut
 * into tiles in the options' texture format (texture_cut.h), appended as
 * chunks. Every mesh added before is placed first, so the chunk numbering
 * does not depend on the jobs. An image identical to an earlier one (its
 * content hash) with the same kind and wrap modes adds nothing: *id is the
 * earlier texture's. Otherwise *id is the next texture index (0, 1, ...),
 * the index a material's slot names. With texture_format PK_TEXTURES_NONE
 * nothing is added and *id is PK_NONE. Returns 0, or -1 with d->message
 * naming the texture and why (too large for the format or the page, out of
 * memory, an encoder or write failure: the builder then accepts only
 * pk_builder_abort). The encoding runs on the calling thread. */
int pk_builder_add_texture(pk_builder *b, const pk_image *img, pk_mip_kind kind, pk_wrap wrap_s, pk_wrap wrap_t,
                           const char *name, uint32_t *id, pk_diag *d);
/* Calls fn(user, ...) for each texture this process builds from then on,
 * on the thread of pk_builder_add_texture, before it returns: in texture
 * index order, whatever the jobs. A deduplicated texture or one of a bundle
 * another part builds is not reported. fn NULL: none (the default). The
 * builder keeps nothing per texture for it. O(1). */
void pk_builder_on_texture(pk_builder *b, pk_texture_built_fn fn, void *user);
/* Adds a material (its slots' image fields are texture ids from
 * pk_builder_add_texture, or PK_NONE); *id is its index (0, 1, ...), the
 * one a mesh's material field names as id + 1. Returns 0, or -1 with
 * d->message (a slot naming a texture not added, out of memory). */
int pk_builder_add_material(pk_builder *b, const pk_material *m, uint32_t *id, pk_diag *d);
/* The default of pk_build_options.jobs: the online cores (sysconf), 1 to
 * PK_DEFAULT_MAX_JOBS. */
uint32_t pk_default_jobs(void);

/* Adds a placement of an object: inst->mesh is an object index returned by
 * pk_builder_add_mesh. Returns 0, or -1 with d->message if that object does
 * not exist. O(1) amortised; allocates. */
int pk_builder_add_instance(pk_builder *b, const pk_instance *inst, pk_diag *d);

/* Writes the open pages, the tables and the header, flushes the temporary
 * to storage and renames it over the target, and frees the builder (b is
 * invalid afterwards, whatever the result). stats may be NULL. Returns 0, or
 * -1 with d->message naming the target and the reason (a failed write,
 * fsync or rename; the temporary is then removed and the target is as it
 * was). */
int pk_builder_finish(pk_builder *b, pk_build_stats *stats, pk_diag *d);

/* 1 when a write or read of the pack file failed (the error was the
 * file's, not the mesh's). Any failure of pk_builder_add_mesh after its
 * checks of the mesh leaves the builder accepting only pk_builder_abort. */
int pk_builder_write_failed(const pk_builder *b);

/* Closes and removes the temporary (the target is as it was) and frees the
 * builder. b may be NULL. */
void pk_builder_abort(pk_builder *b);

/* The input bytes a mesh stands for in pk_build_stats.input_bytes: its
 * vertices as float attributes and its indices as uint32. */
uint64_t pk_mesh_input_bytes(const pk_mesh *m);

#endif
