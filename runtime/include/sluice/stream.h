/* SPDX-License-Identifier: MIT */
/* sluice: the streaming scheduler.
 *
 * The stream joins a pack (sluice/pack.h) and a page pool (sluice/pool.h)
 * into the runtime's frame loop:
 *
 *     slc_stream_begin_frame(s, &frame);      // loads due now become visible
 *     slc_stream_request(s, &req);            // once per object the frame wants
 *     slc_stream_end_frame(s);                // schedule: touch, evict, load
 *     slc_stream_resident(s, i, &r, spans, n) // what to draw for request i
 *     ... record and submit the frame's GPU work ...
 *
 * slc_stream_end_frame submits the frame to the store (the pool's frame,
 * the store's marker) before it returns: the copies a staging belt makes
 * for the frame's pages go ahead of the application's work for the frame,
 * and the store counts the work submitted after it as that frame's, so a
 * page the frame reads is not overwritten until that work is done
 * (invariant 4). A Vulkan application that calls slc_vulkan_end_frame after
 * submitting its frame's work lets the frame retire sooner.
 *
 * Requests. A request names an object, the LOD it wants (0 the finest), a
 * priority (higher is more important) and a partition of the pool; it
 * stands for the chunks of that LOD (the LOD's spans). slc_stream_request_chunk
 * asks for one chunk directly. Within a frame requests are de-duplicated by
 * chunk (a chunk asked for twice keeps the higher priority). At most
 * queue_capacity requests of each kind and queue_capacity distinct chunks
 * are accepted a frame; past that a request is refused with SLC_E_CAPACITY
 * and counted (refused), and none of its chunks is added (all or nothing;
 * slc_stream_admit is the rule).
 *
 * Scheduling (slc_stream_end_frame, on the caller's thread; a pure function
 * of the calls made, the profile and the pack):
 *   1. Resolution. For every object request, in request order, the best
 *      visible LOD at or coarser than the one asked for: the finest level l
 *      >= lod whose every chunk is resident. Its pages are touched (used by
 *      this frame), so no frame in flight loses them.
 *   2. Order. The frame's chunks (requested, plus the chunks deferred by the
 *      previous frame) are sorted by priority, highest first, then by chunk
 *      id, lowest first.
 *   3. In that order: a resident chunk is a hit (touched, at its priority);
 *      a chunk already loading is in flight (nothing to do); a failed chunk
 *      waiting out its retry delay is skipped (failed_skips); anything else
 *      is a miss and is loaded if the frame still has room: fewer than
 *      queue_capacity loads in flight, and fewer loads started this frame
 *      than the upload cap in whole pages (upload_per_frame / page_size: a
 *      load may fill a page, a staging slot is a page, and counting pages
 *      rather than bytes keeps the decisions the same on every backend;
 *      slc_stream_get_upload_cap is the rule); the pool then gives it a
 *      page of its partition, evicting by the profile's policy. A miss without room, or
 *      whose partition has no evictable page (SLC_E_POOL_BUSY), is deferred:
 *      carried into the next frame's scheduling at its priority and counted.
 *      Once the upload cap or the load slots are exhausted every later miss
 *      of the frame is deferred. A chunk that was only carried (not asked
 *      for again) and is deferred once more is dropped (counted).
 *   4. In-flight loads of chunks that the frame did not ask for (nor carry)
 *      are cancelled: the page is released (logged) and the load's
 *      generation changes, so a worker that has not started it skips it and
 *      one that has started finishes into a page it no longer owns, which
 *      no new load of that page overwrites before it ends and whose bytes
 *      nobody reads. (With load_frames = 1 nothing is in flight at
 *      end_frame; see below.)
 *   5. The loads are published to the workers (or, with no workers, run
 *      right there on the caller's thread).
 *
 * Visibility. A load published by slc_stream_end_frame in frame f is
 * applied by slc_stream_begin_frame of frame f + load_frames, before that
 * frame begins (so a staged page's copy goes with that frame's submission,
 * ahead of the work that reads the page): the caller waits
 * there for it if a worker has not finished it (the wait is timed in the
 * telemetry; with loads sized by the upload cap it is normally zero), then,
 * in publication order, a load that succeeded makes its page resident (its
 * last use the previous frame) and one that failed releases its page and
 * marks the chunk failed. So
 * which pages are evicted, and what is resident in each frame, never
 * depends on worker count or I/O timing (invariant 3); only the wait does.
 *
 * Faults and the retry policy. Every load is read, verified, decoded and
 * then checked (slc_pack_check_chunk: the chunk header, every cluster's
 * offsets and sizes inside the page, every index below its cluster's vertex
 * count) on the thread that runs it, before its page can become visible, so
 * a GPU never reads a page whose indices point outside its clusters. A
 * load that fails (SLC_E_IO, SLC_E_IO_SHORT, SLC_E_PACK_CHUNK_CHECKSUM,
 * SLC_E_PACK_CORRUPT, SLC_E_PACK_DECODED_SIZE, SLC_E_PACK_CHUNK_SIZE or
 * SLC_E_PACK_CHUNK_CONTENT; SLC_E_IO also when a mapped pack's bytes are
 * gone, see sluice/platform.h) releases its page unpublished, is counted in
 * the frame's failures (the first SLC_STREAM_FAILURE_RECORDS of the
 * stream's life are kept by chunk and status in slc_stream_stats), its
 * status kept with the chunk (slc_stream_get_chunk), and the pack's logger
 * gets the pack's message naming the chunk and the check. The object falls back to
 * its best visible coarser LOD. A chunk that failed for the k-th time in a
 * row (k = 1, 2) is loaded again, if still requested, no earlier than
 * 2^(k-1) frames after the frame its failure was applied in; after
 * SLC_STREAM_MAX_ATTEMPTS failures in a row it is not loaded again until
 * slc_stream_retry_failed. A success resets the count.
 *
 * Pinning. With the profile's [stream] pin_coarsest = n > 0, slc_stream_create
 * loads (on the caller's thread, in chunk-id order) and pins the chunks of
 * every object's n coarsest levels (slc_stream_pin_iter walks them) in the
 * pin partition, so resolution always finds a level: an over-budget scene
 * degrades to coarser detail, never to a hole (invariant 5). Pinned chunks that do not fit the
 * partition, or fail to load, fail the create. They are written in a frame
 * of their own, frame 1, which the first slc_stream_begin_frame submits (so
 * on a staging belt their copies run before any work reads them): with
 * pinning the application's first frame is 2. On a staging belt the pinned
 * chunks must fit the belt at once (a full belt fails the create).
 *
 * Texture tiles. A chunk goes to the pool of its kind
 * (slc_pool_kind_of_chunk_flags): texture tiles and mip tails to the
 * texture pool, which the profile's [textures] page_count declares, with
 * its own budget (gpu/textures), eviction policy and store; everything
 * else (requests, deferral, the upload cap, the frame's counters) is
 * shared, one schedule over both. Every texture's mip tail (with
 * [textures] pin_tiles, every tile as well) is pinned in it
 * at create (in frame 1, as above), whatever pin_coarsest says, in its
 * "default" partition (the profile's [texture_partitions] name the others;
 * a pool whose every page is named pins in its first), so a texture is
 * never absent; a pack with textures and a profile with no
 * texture pool is refused (SLC_E_UNSUPPORTED). A tile is requested by its
 * chunk id (slc_stream_request_chunk); a tile request without a texture
 * pool is refused (SLC_E_INVALID).
 *
 * Workers. With the profile's workers = 0 every load runs inline, in
 * slc_stream_end_frame. With workers > 0 the application supplies an
 * executor (platform/ has one on threads: sluice/workers.h) whose threads
 * call slc_stream_work; a worker reads the chunk through the pack's slc_io,
 * verifies its XXH3 and LZ4-decodes it straight into the page (or the
 * staging slot the store gives), in its own `cpu/decode` scratch. The
 * caller's thread runs unclaimed loads itself while it waits at a deadline.
 *
 * Memory. Everything is taken at create from the memory's arenas:
 * `cpu/meta` holds the pool and one 16-byte record per chunk id and one byte per page, `cpu/queues`
 * the request lists, the load slots and the telemetry ring, `cpu/decode`
 * one chunk's worth of read scratch per worker and one for the caller
 * (none when the pack is mapped). slc_stream_calculate_footprint gives the
 * bytes per arena from a profile. Nothing is allocated between create and
 * destroy.
 *
 * Staging. Where the store writes through a staging belt (its pages have
 * no host address), the upload cap in pages is also held to what the belt
 * holds for the frames a slot stays taken: staging_size / page_size /
 * (frames_in_flight + load_frames + 1) (slc_stream_get_upload_cap). A belt
 * at least that large gives the same eviction log as mapped pages. Texture
 * tiles share the upload cap: a frame starts at most
 * slc_stream_get_tile_cap tile loads (the texture pool's own belt, [textures]
 * staging_size, on every backend), deferring the tile misses past it while
 * geometry loads go on; with no tile belt declared the tiles and the
 * geometry take the cap in priority order alike.
 *
 * Threads. Every call but slc_stream_work is made by one thread, the
 * caller's; slc_stream_work is called by workers (and is what the caller
 * runs while it waits). The pack's slc_io and logger must be thread-safe
 * when there are workers. */
#ifndef SLUICE_STREAM_H
#define SLUICE_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "ids.h"
#include "memory.h"
#include "pack.h"
#include "page_store.h"
#include "pool.h"
#include "pool_spec.h"
#include "profile.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Failed loads slc_stream_stats names one by one: the first of the stream's life. */
#define SLC_STREAM_FAILURE_RECORDS 8u
/* Failures in a row after which a chunk is not retried. */
#define SLC_STREAM_MAX_ATTEMPTS 3u
/* "No LOD is visible" in slc_stream_result.lod. */
#define SLC_STREAM_LOD_NONE 0xFFu
/* Most frames load_frames may ask for, the load_frames a desc's 0 means (the
 * one `sluice run`, `bench stream` and `budget fit` use), and the default
 * telemetry ring. */
#define SLC_STREAM_LOAD_FRAMES_MAX 8u
#define SLC_STREAM_DEFAULT_LOAD_FRAMES 1u
#define SLC_STREAM_DEFAULT_TELEMETRY_FRAMES 64u
#define SLC_STREAM_TELEMETRY_FRAMES_MAX 65536u
/* Bytes of the fixed records (the same on every architecture). */
#define SLC_STREAM_HEADER_SIZE 1280u
#define SLC_STREAM_CHUNK_RECORD_SIZE 16u
#define SLC_STREAM_SLOT_RECORD_SIZE 64u
#define SLC_STREAM_REQUEST_RECORD_SIZE 8u
#define SLC_STREAM_FRAME_RECORD_SIZE 392u

typedef struct slc_stream slc_stream;

/* How loads reach worker threads. notify is called on the caller's thread
 * after jobs loads were published: make that many workers call
 * slc_stream_work (extra calls find nothing and return false). completed is
 * called on a worker's thread after each load it finished. wait is called on
 * the caller's thread when it needs a load that another thread is running:
 * it blocks until completed has been called since wait last returned, and
 * returns at once if it has. */
typedef struct slc_stream_executor_ops {
    void (*notify)(void *self, uint32_t jobs);
    void (*completed)(void *self);
    void (*wait)(void *self);
} slc_stream_executor_ops;

typedef struct slc_stream_executor {
    const slc_stream_executor_ops *ops; /* NULL: no workers (the profile's workers must be 0) */
    void *self;
} slc_stream_executor;

typedef struct slc_stream_desc {
    const slc_profile *profile; /* pool, stream and table sizes; read at create only */
    slc_memory *memory;         /* the arenas `cpu/meta`, `cpu/queues`, `cpu/decode` */
    const slc_pack *pack;       /* opened with the same profile; outlives the stream */
    /* One store per kind of pool (slc_pool_kind), each built from the spec
     * slc_pool_spec_from_profile makes of this profile (so its page count is
     * the pool's: slc_pool_init refuses another); each outlives the stream.
     * stores[SLC_POOL_GEOMETRY] holds the geometry pages;
     * stores[SLC_POOL_TEXTURES] the texture tiles when the profile declares
     * a texture pool ([textures] page_count), and is NULL when it does not. */
    const slc_page_store *stores[SLC_POOL_KIND_COUNT];
    slc_stream_executor executor;
    uint64_t (*now_ns)(void);  /* a monotonic clock for the telemetry's times, or NULL (times are 0) */
    uint32_t load_frames;      /* frames from publication to visibility, 1..SLC_STREAM_LOAD_FRAMES_MAX;
                                  * 0: SLC_STREAM_DEFAULT_LOAD_FRAMES */
    uint32_t telemetry_frames; /* frames the telemetry ring keeps; 0: SLC_STREAM_DEFAULT_TELEMETRY_FRAMES */
    const char *pin_partition; /* where pinned chunks go; NULL: "default", or the first partition if none */
    const slc_logger *log;     /* the reason of a failed create and of contract violations; may be NULL */
} slc_stream_desc;

/* A request for an object's level of detail. */
typedef struct slc_stream_object_request {
    slc_object_id object;
    uint8_t lod;      /* 0 the finest; below the object's lod_count */
    uint8_t priority; /* higher first */
    slc_partition partition;
} slc_stream_object_request;

/* Where one span of a resolved LOD lies: its chunk's page and the clusters
 * of the span inside the decoded chunk (docs/pack-format.md). */
typedef struct slc_stream_span {
    slc_chunk_id chunk;
    uint16_t first_cluster;
    uint16_t cluster_count;
    slc_page page;
    slc_page_location location;
} slc_stream_span;

/* What object request index resolved to this frame. */
typedef struct slc_stream_result {
    slc_object_id object;
    uint8_t requested_lod;
    uint8_t lod; /* the visible LOD drawn, or SLC_STREAM_LOD_NONE */
    uint8_t priority;
    uint8_t reserved;
    uint32_t span_count; /* spans of lod (0 with SLC_STREAM_LOD_NONE) */
} slc_stream_result;

typedef enum slc_stream_chunk_state {
    SLC_STREAM_CHUNK_ABSENT = 0,   /* no page, nothing pending */
    SLC_STREAM_CHUNK_LOADING = 1,  /* a load is in flight */
    SLC_STREAM_CHUNK_RESIDENT = 2, /* visible (pinned or not) */
    SLC_STREAM_CHUNK_FAILED = 3    /* its last load failed: see status and attempts */
} slc_stream_chunk_state;

typedef struct slc_stream_chunk_info {
    slc_stream_chunk_state state;
    slc_status status;    /* of the last failed load, SLC_OK if none */
    uint32_t attempts;    /* failures in a row */
    uint64_t retry_frame; /* FAILED: the first frame it may be loaded again (UINT64_MAX: never, until retry_failed) */
} slc_stream_chunk_info;

/* One frame of telemetry. Counts are of that frame; budgets is every
 * budget's current use when the frame ended (index as in the profile). */
typedef struct slc_stream_frame_stats {
    uint64_t frame;
    uint32_t requests;  /* object and chunk requests accepted */
    uint32_t refused;   /* requests refused: capacity or an invalid object, LOD, chunk or partition */
    uint32_t chunks;    /* distinct chunks scheduled (requested and carried) */
    uint32_t hits;      /* chunks resident when scheduled */
    uint32_t misses;    /* chunks neither resident nor loading */
    uint32_t in_flight; /* chunks already loading */
    uint32_t loads_started;
    uint32_t loads_completed; /* applied this frame, successful */
    uint32_t loads_cancelled;
    uint32_t failures;     /* applied this frame, failed (any stage: read, checksum, decode, content) */
    uint32_t failed_skips; /* requests of a failed chunk waiting out its retry delay */
    uint32_t evictions;
    uint32_t deferred;
    uint32_t dropped;
    uint32_t fallbacks; /* object requests resolved to a coarser LOD than asked */
    uint32_t holes;     /* object requests with no visible LOD at all */
    uint32_t budget_count;
    uint64_t bytes_read;     /* stored bytes read by the loads applied this frame (a load whose read
                               * failed, or that never read, counts none; one that failed its checksum,
                               * decode or content check counts its stored bytes) */
    uint64_t bytes_decoded;  /* decoded bytes of the loads applied this frame that decoded and passed
                               * the content check (failed loads count none) */
    uint64_t bytes_uploaded; /* decoded bytes made resident (successful loads) */
    uint64_t tile_bytes_read, tile_bytes_uploaded; /* of bytes_read and bytes_uploaded, the texture pool's
                                                     * tiles (the mip tails, pinned by slc_stream_create,
                                                     * count in neither) */
    uint64_t caller_ns; /* time in begin_frame and end_frame on the caller's thread (requests are
                          * not timed: a clock read would cost more than a request) */
    uint64_t wait_ns;   /* of which waiting at begin_frame for loads due */
    uint64_t budgets[SLC_PROFILE_BUDGET_MAX];
} slc_stream_frame_stats;

/* One failed load: the chunk, what its load returned, the frame that applied it. */
typedef struct slc_stream_failure {
    uint64_t frame;
    slc_chunk_id chunk;
    slc_status status;
} slc_stream_failure;

/* Totals over the stream's life (never decrease) and the current state.
 * The counters mean what slc_stream_frame_stats says, summed over frames. */
typedef struct slc_stream_stats {
    uint64_t frame; /* newest begun frame */
    uint64_t requests, refused, hits, misses, loads_started, loads_completed, loads_cancelled;
    uint64_t failures, failed_skips, evictions, deferred, dropped, fallbacks, holes;
    uint64_t bytes_read, bytes_decoded, bytes_uploaded;
    uint64_t tile_bytes_read, tile_bytes_uploaded; /* of which the texture pool's, as in slc_stream_frame_stats */
    uint64_t wait_ns;
    uint64_t worker_loads;  /* loads run by slc_stream_work on a worker's thread */
    uint64_t caller_loads;  /* loads run on the caller's thread */
    uint64_t skipped_loads; /* cancelled loads a worker never started */
    uint32_t in_flight;     /* loads published and not yet applied */
    uint32_t pinned_chunks;
    uint32_t upload_cap_pages; /* the per-frame upload cap in whole pages, as the stream applies it */
    uint32_t tile_cap_pages;   /* of which texture tiles may take at most this many (slc_stream_get_tile_cap) */
    uint32_t workers;
    /* The first failed loads of the stream's life, in the order they were
     * applied: first_failures[0 .. failure_records) with failure_records =
     * min(failures, SLC_STREAM_FAILURE_RECORDS). A chunk that fails again
     * appears again. What a report needs to say "3 chunk loads failed:
     * chunk 17 (SLC_E_PACK_CHUNK_CHECKSUM), ..." without a log. */
    uint32_t failure_records;
    slc_stream_failure first_failures[SLC_STREAM_FAILURE_RECORDS];
} slc_stream_stats;

/* Bytes a stream for profile p takes from each arena, a pack read through
 * read() needing scratch_size bytes of scratch (slc_pack_scratch_size; 0 for
 * a mapped pack) and the given telemetry_frames (0: the default). Returns
 * SLC_E_INVALID iff the sizes overflow. O(1). */
typedef struct slc_stream_footprint {
    size_t meta;
    size_t queues;
    size_t decode;
} slc_stream_footprint;
slc_status slc_stream_calculate_footprint(const slc_profile *p, size_t scratch_size, uint32_t telemetry_frames,
                                          slc_stream_footprint *out);

/* --- the scheduler's rules, as pure functions ---------------------------------
 *
 * slc_stream_create, slc_stream_request and slc_stream_end_frame decide by
 * these, and so does the offline fit check (`sluice budget fit`), so the
 * proof and the scheduler cannot disagree. None of them touches a stream:
 * each is a function of its arguments, allocates nothing and may be called
 * from any thread. */

/* The per-frame upload cap in whole pages: upload_per_frame / page_size,
 * and, where the store writes through a staging belt (staged: its pages
 * have no host address), at most what the belt holds for each of the
 * frames a slot stays taken: staging_size / (frames_in_flight +
 * load_frames + 1) / page_size. load_frames 0 means 1, as in the desc.
 * Fails iff load_frames is above SLC_STREAM_LOAD_FRAMES_MAX or the cap is
 * below one page (SLC_E_INVALID, with the message slc_stream_create gives
 * through log, which may be NULL); *out_pages is then 0. O(1). */
slc_status slc_stream_get_upload_cap(const slc_profile *p, uint32_t load_frames, bool staged, const slc_logger *log,
                                     uint32_t *out_pages);

/* The per-frame cap on texture tile loads in whole pages, within the
 * upload cap they share with geometry: with [textures] staging_size
 * declared, what that belt holds for each of the frames a slot stays
 * taken, staging_size / (frames_in_flight + load_frames + 1) / page_size,
 * at most upload_cap_pages; with none declared, upload_cap_pages. The same
 * on every backend (the host store has no belt, yet caps the tiles
 * alike), so the decisions are too. Fails iff the declared belt holds
 * less than a page a frame (SLC_E_INVALID, with the message
 * slc_stream_create gives through log, which may be NULL); *out_pages is
 * then 0. O(1). */
slc_status slc_stream_get_tile_cap(const slc_profile *p, uint32_t load_frames, uint32_t upload_cap_pages,
                                   const slc_logger *log, uint32_t *out_pages);

/* Which of a frame's lists a request does not fit (slc_stream_admit). */
typedef enum slc_stream_admission {
    SLC_STREAM_ADMITTED = 0,
    SLC_STREAM_OBJECTS_FULL = 1, /* the frame has accepted queue_capacity object requests already */
    SLC_STREAM_CHUNKS_FULL = 2   /* the request's chunks not yet in the frame do not fit its queue_capacity */
} slc_stream_admission;

/* Whether a frame that has accepted object_requests object requests and
 * holds chunks distinct chunks (each at most queue_capacity: SLC_ASSERT)
 * accepts one more request, an object request or not, that adds
 * new_chunks chunks the frame does not hold yet. All or nothing: a request
 * refused adds none of its chunks. O(1). */
slc_stream_admission slc_stream_admit(uint32_t queue_capacity, uint32_t object_requests, uint32_t chunks,
                                      bool object_request, uint32_t new_chunks);

/* A walk over the chunks pinning loads: every span's chunk of every
 * object's `levels` coarsest levels (all of them when an object has fewer),
 * object by object, each object's levels finest first. A chunk that two
 * levels or objects share comes once for each; the pinned set is the
 * distinct chunks, which slc_stream_create loads in chunk-id order. */
typedef struct slc_stream_pin_iter {
    const slc_pack *pack;
    uint32_t levels;
    slc_object_id object; /* the object being walked */
    uint32_t lod;         /* its level being walked */
    uint32_t span;        /* the next span of that level */
    bool started;         /* object's first level found */
} slc_stream_pin_iter;

/* Starts the walk over pack's (opened, outliving the walk) chunks for
 * pin_coarsest = levels; levels 0 walks nothing. O(1). */
void slc_stream_pin_iter_init(slc_stream_pin_iter *it, const slc_pack *pack, uint32_t levels);

/* The next chunk of the walk into *chunk; false at its end (*chunk
 * unchanged). O(1) amortised: the whole walk is O(objects + pinned spans). */
bool slc_stream_pin_iter_next(slc_stream_pin_iter *it, slc_chunk_id *chunk);

/* Creates a stream: takes its memory from the arenas, builds the pool over
 * the store, pins the coarsest levels the profile asks for. Fails iff the
 * desc is incomplete or inconsistent (SLC_E_INVALID, with a message naming
 * the field and the numbers: no profile, memory, pack or store; a store
 * whose page count is not its pool spec's (slc_pool_init's message; the
 * pool is built from slc_pool_spec_from_profile(profile), the store should
 * be too); workers > 0 without
 * an executor; an upload cap below one page; load_frames or
 * telemetry_frames out of range; an unknown pin partition), the pack
 * has a texture in a format the store's device does not sample
 * (SLC_E_UNSUPPORTED: "stream: the pack's textures are astc6x6, which
 * the vulkan device NAME cannot sample (it samples rgba8, bc1 and bc3)";
 * see slc_page_store's sampled_formats), an arena
 * refuses (its status, with the budget's message), the pinned chunks do not
 * fit (SLC_E_POOL_BUSY, naming the pages needed and the partition's) or one
 * fails to load (its status). On failure every arena is as it was and *out
 * is NULL. O(max_chunks + pages + pinned chunk bytes). */
slc_status slc_stream_create(const slc_stream_desc *desc, slc_stream **out);

/* Waits for every load a thread is running, skips the rest and gives the
 * arenas back. Stop the executor's threads first (they must not call
 * slc_stream_work any more). O(in-flight loads). */
void slc_stream_destroy(slc_stream *s);

/* Applies every load due in the next frame, submits a frame still open (the
 * pinned chunks' frame 1, or one whose submission the store refused at
 * end_frame), and begins the next frame. Fails iff a frame is already
 * begun and not ended (SLC_E_INVALID), frames_in_flight frames are not yet
 * retired (SLC_E_FRAMES_IN_FLIGHT: call again; the loads are not applied
 * twice), or the store fails (its status). *frame (may be NULL) is the
 * frame's number. */
slc_status slc_stream_begin_frame(slc_stream *s, uint64_t *frame);

/* Asks for an object's LOD this frame. Fails, counted in refused, iff no
 * frame is begun or it is already ended, the object, LOD or partition does
 * not exist (SLC_E_INVALID, with a message naming them and the pack), or the
 * frame's request list or chunk list is full (SLC_E_CAPACITY). O(spans of
 * the LOD). */
slc_status slc_stream_request(slc_stream *s, const slc_stream_object_request *req);

/* Asks for one chunk this frame (no resolution: see slc_stream_get_chunk_page).
 * Fails as slc_stream_request does, for a chunk id outside the pack. O(1). */
slc_status slc_stream_request_chunk(slc_stream *s, slc_chunk_id chunk, uint8_t priority, slc_partition partition);

/* Ends the frame's requests, schedules them (see the top of this file) and
 * submits the frame to the store. Fails iff no frame is begun or it is
 * already ended (SLC_E_INVALID).
 * O(r log r + loads) for r scheduled chunks, plus the inline loads. */
slc_status slc_stream_end_frame(slc_stream *s);

/* Object requests of the ended frame, in request order. */
uint32_t slc_stream_result_count(const slc_stream *s);

/* What object request index (below slc_stream_result_count) resolved to,
 * and its spans (at most cap into spans, which may be NULL with cap 0).
 * Fails iff the frame is not ended or index is out of range (SLC_E_INVALID),
 * or cap is below out->span_count (SLC_E_CAPACITY: out is filled, spans
 * not). O(spans). */
slc_status slc_stream_resident(const slc_stream *s, uint32_t index, slc_stream_result *out, slc_stream_span *spans,
                               uint32_t cap);

/* The page of a visible chunk (resident or pinned). Fails iff chunk is not
 * in the pack (SLC_E_INVALID) or not visible (SLC_E_NOT_FOUND). O(1). */
slc_status slc_stream_get_chunk_page(const slc_stream *s, slc_chunk_id chunk, slc_page_info *out);

/* A chunk's streaming state (chunk in the pack: SLC_ASSERT). O(1). */
void slc_stream_get_chunk(const slc_stream *s, slc_chunk_id chunk, slc_stream_chunk_info *out);

/* Makes every chunk that failed SLC_STREAM_MAX_ATTEMPTS times loadable
 * again; returns how many. O(max_chunks). */
uint32_t slc_stream_retry_failed(slc_stream *s);

/* Runs one published load, on the calling thread (a worker's, or the
 * caller's while it waits). Returns false iff no load was waiting. worker is
 * below the profile's workers (each worker its own index and scratch). */
bool slc_stream_work(slc_stream *s, uint32_t worker);

void slc_stream_get_stats(const slc_stream *s, slc_stream_stats *out);

/* Copies the telemetry of the newest frames the ring holds, oldest first,
 * at most cap; returns how many. Frame records appear once their frame has
 * ended. O(copied). */
size_t slc_stream_walk_telemetry(const slc_stream *s, slc_stream_frame_stats *out, size_t cap);

/* The geometry pool (SLC_POOL_GEOMETRY) the stream built, for its stats,
 * log and check. O(1). */
const slc_pool *slc_stream_pool(const slc_stream *s);

/* The stream's pool of kind, or NULL when its profile declares none of that
 * kind (a texture pool needs [textures] page_count). O(1). */
const slc_pool *slc_stream_pool_of_kind(const slc_stream *s, slc_pool_kind kind);

/* Walks the stream's and the pool's records; false on a broken invariant.
 * O(max_chunks + pages + in-flight loads). */
bool slc_stream_check(const slc_stream *s);

#ifdef __cplusplus
}
#endif

#endif
