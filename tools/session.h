/* SPDX-License-Identifier: MIT */
/* The start-up every streaming tool shares (sluice run and render, budget
 * fit, bench stream, bench render, bench evict): the pack file, the memory block the
 * profile describes, the memory laid out in it and the pack opened in its
 * cpu/meta arena, the page store and the stream, and their one teardown.
 * The page store differs between the tools (host or Vulkan): the tool
 * builds it and hands it to the session with tool_session_set_store, which
 * closes it; the stream (tool_session_stream_desc fills what every stream
 * takes from the session, the tool adds its executor) starts with
 * tool_session_start_stream. */
#ifndef SLUICE_TOOLS_SESSION_H
#define SLUICE_TOOLS_SESSION_H

#include "sluice/memory.h"
#include "sluice/pack.h"
#include "sluice/platform.h"
#include "sluice/stream.h"

/* What to open. */
typedef struct tool_session_desc {
    const char *me;             /* the prefix of the messages printed here ("sluice run") */
    const slc_profile *profile; /* the memory's and the pack's; outlives the session */
    const char *pack_path;      /* the pack file, opened with file_flags; NULL: io */
    unsigned file_flags;        /* SLC_PLATFORM_FILE_* */
    const slc_io *io;           /* with pack_path NULL: a pack already open (outlives the session) */
    const char *pack_name;      /* the name the reader reports */
    int check_machine;          /* 1: refuse a block this machine cannot give before mapping it */
    const char *profile_path;   /* non-NULL: TOOL_SESSION_LAYOUT prints that this profile needs more
                                   * memory than the machine can address; NULL: the tool says why */
} tool_session_desc;

/* The step that failed, or TOOL_SESSION_OPEN. */
typedef enum tool_session_step {
    TOOL_SESSION_OPEN = 0,
    TOOL_SESSION_FILE,    /* the pack file cannot be opened (the platform logged why) */
    TOOL_SESSION_LAYOUT,  /* slc_memory_calculate_requirements refused the profile (printed with profile_path) */
    TOOL_SESSION_MACHINE, /* check_machine: the block exceeds this machine (printed) */
    TOOL_SESSION_BLOCK,   /* the block cannot be mapped (logged) */
    TOOL_SESSION_MEMORY,  /* slc_memory_init refused the block (logged) */
    TOOL_SESSION_META,    /* the profile has no cpu/meta arena (printed) */
    TOOL_SESSION_PACK     /* slc_pack_open refused the pack (logged) */
} tool_session_step;

/* An open session; every member is the tool's to read. */
typedef struct tool_session {
    slc_platform_file file;
    int file_open;
    slc_platform_block block;
    slc_memory *mem;
    slc_pack *pack;
    slc_status status;              /* of the step that failed */
    const slc_page_store *store;    /* tool_session_set_store's; NULL: none, or a store opened part-way */
    void (*store_close)(void *ctx); /* closes the tool's store; NULL: nothing to close */
    void *store_ctx;                /* store_close's argument */
    slc_stream *stream;             /* tool_session_start_stream's */
    /* The texture pool's store (tool_session_open_texture_store): tiles in
     * host memory mapped once, charged to gpu/textures; ops NULL: none. */
    slc_platform_block tex_block;
    slc_page_store tex_store;
    /* The texture pool's store when the tool opened it on the device (the
     * Vulkan backend's: tiles in device memory, which the renderer samples);
     * it takes the place of tex_store. NULL: tex_store. The tool closes it. */
    const slc_page_store *tex_device;
} tool_session;

/* Opens the pack file (or takes d->io), maps the block d->profile needs,
 * lays the memory out in it and opens the pack with its tables in cpu/meta,
 * logging to cli_stderr_logger. Returns TOOL_SESSION_OPEN, or the step
 * that failed (s->status its status; s is then still to be closed, in any
 * state). Fails iff one of those steps fails; prints only what the table
 * above says. Allocates nothing on the heap (the block is mapped). Not
 * thread-safe for one s. */
tool_session_step tool_session_open(const tool_session_desc *d, tool_session *s);

/* Hands the tool's page store to s: store (NULL when the tool opened it
 * only part-way) and close, which tool_session_close calls once with ctx,
 * after the stream and before the pack, to close what the tool opened of it
 * in any state (NULL: nothing to close). A second call replaces the first
 * (close is then called for the last one only). Cannot fail; allocates
 * nothing. Not thread-safe for one s. */
void tool_session_set_store(tool_session *s, const slc_page_store *store, void (*close)(void *ctx), void *ctx);

/* Creates s->stream from d (tool_session_stream_desc's, with the tool's
 * executor and telemetry), once: s has no stream yet. Returns SLC_OK, or slc_stream_create's refusal
 * (s->stream then NULL; s still to be closed). Fails iff slc_stream_create
 * fails; prints nothing (the stream logs to d->log). Allocates what
 * slc_stream_create does (in the session's memory). Not thread-safe for
 * one s. */
slc_status tool_session_start_stream(tool_session *s, const slc_stream_desc *d);

/* Closes, in any state s is in, the stream, then the store (its close), then
 * what tool_session_open opened (the pack, the file, the memory, the block),
 * and zeroes s. The tool stops the stream's workers first. */
void tool_session_close(tool_session *s);

/* The exit code of a tool whose session stopped at step: CLI_OK for
 * TOOL_SESSION_OPEN, CLI_IO for TOOL_SESSION_FILE (the pack file cannot be
 * read), CLI_FAILED for every other step (the input or the machine refused).
 * Cannot fail; prints nothing; O(1). Thread-safe. */
int tool_session_exit_code(tool_session_step step);

/* A host store for prof's pool of kind: its pages in host memory mapped
 * once (into blk), exactly their bytes charged to the spec's budget
 * (gpu/pool, gpu/textures; none for a host-only profile), as a GPU
 * backend's pool would be. Returns CLI_OK, or CLI_FAILED printed with me;
 * the caller deinits the store and unmaps blk. */
int tool_session_open_host_store(const tool_session *s, const slc_profile *prof, slc_pool_kind kind,
                                 slc_platform_block *blk, slc_page_store *out, const char *me);

/* When prof declares a texture pool ([textures] page_count), opens its
 * store: the pool's tiles in host memory (the host backend's; a tool on
 * the Vulkan backend opens the pool on the device instead and sets
 * tex_device), exactly their bytes charged to
 * the spec's budget, gpu/textures (none for a host-only profile), sampling
 * what `device` (the geometry store) samples and named as it is, so that
 * the stream checks the pack's formats against that device. Returns
 * CLI_OK (also when prof declares none), or CLI_FAILED, printed with me.
 * tool_session_close closes it. */
int tool_session_open_texture_store(tool_session *s, const slc_profile *prof, const slc_page_store *device,
                                    const char *me);

/* Marks in marks[] (a byte a chunk of pack; NULL: none) the chunk of every
 * texture's mip tail, the chunks slc_stream_create pins in the texture pool
 * (slc_pack_texture_tail; a texture whose record cannot be read, which the
 * stream would refuse, is passed over). Returns how many it marked that
 * were not marked before (every tail when marks is NULL: each texture's
 * chunks are its own, which slc_pack_open checks), and (bytes not NULL)
 * adds their decoded bytes to *bytes. O(textures): a record read each. */
uint32_t tool_mark_texture_tails(const slc_pack *pack, uint8_t *marks, uint64_t *bytes);

/* Whether a stream of pack under prof would be refused for want of a
 * texture pool: the pack has textures and prof declares no [textures]
 * page_count (slc_pool_kind_declared). With me, says so on stderr ("ME: the
 * pack has N textures, but profile 'P' declares no texture pool ..."), for
 * a tool that refuses before it streams. O(1). */
int tool_texture_pool_missing(const slc_pack *pack, const slc_profile *prof, const char *me);

/* What a pack's textures take, four ways (the run report's "texture
 * memory" line): the pages of every tile and tail resident at once (a
 * chunk a page), every level decoded to RGBA8, and the least the frame's
 * pixels can sample: the most textures one material samples (layers) at
 * one texel a pixel each, with a third more for the mips, in the pack's
 * texel format (bytes_per_texel; the first texture's format, as the
 * packer writes one format a pack). */
typedef struct tool_texture_memory {
    uint32_t textures;
    uint32_t format;        /* SLC_PACK_TEXEL_* */
    uint64_t chunk_pages;   /* tiles and tails */
    uint64_t rgba8_bytes;   /* every level, 4 bytes a texel */
    uint32_t layers;        /* textures a material samples, at most */
    double bytes_per_texel; /* of format */
} tool_texture_memory;

/* Fills *out from pack's texture and material records. Returns 0, or -1
 * when a record cannot be read (out zeroed). O(textures + materials). */
int tool_texture_memory_of(const slc_pack *pack, tool_texture_memory *out);

/* The least bytes width x height pixels sample of m: pixels x layers x
 * 4/3 x bytes_per_texel. O(1). */
double tool_texture_floor_bytes(const tool_texture_memory *m, uint32_t width, uint32_t height);

/* The pool of kind's partitions as slc_pool lays them out from prof (its
 * [partitions], or [texture_partitions] for SLC_POOL_TEXTURES): the named
 * ones in order, then "default" with the pages they leave, when any. Fills
 * names[k] (pointing into prof) and pages[k], at most SLC_PARTITION_MAX + 1
 * each; *pin the partition slc_stream_create pins in ("default", else the
 * first). Returns the count. O(partitions). */
uint32_t tool_pool_partitions(const slc_profile *prof, slc_pool_kind kind, const char **names, uint32_t *pages,
                              uint32_t *pin);

/* The index, in that layout, of the partition called name; -1 when the
 * pool has none of that name. O(partitions). */
int tool_pool_partition_index(const slc_profile *prof, slc_pool_kind kind, const char *name);

/* out: a stream description over the session's memory and pack with prof
 * (the session's profile, or the tool's copy of it) and store (and the
 * session's texture store, when it opened one), the
 * platform's clock, SLC_STREAM_DEFAULT_LOAD_FRAMES and log; the rest zero
 * (no executor: frames load on the caller's thread). */
void tool_session_stream_desc(const tool_session *s, const slc_profile *prof, const slc_page_store *store,
                              const slc_logger *log, slc_stream_desc *out);

#endif
