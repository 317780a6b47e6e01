/* SPDX-License-Identifier: MIT */
/* sluice: the GPU page pool.
 *
 * A fixed number of fixed-size pages, allocated once by a backend (an
 * slc_page_store: Vulkan device memory, or the host backend's arena), and
 * the bookkeeping that decides which chunk lives in which page: residency
 * state, frames in flight, pinning, partitions and the eviction policy. The
 * pool knows pages only by index and reaches their memory only through the
 * store, so it is the same code on every backend and includes no GPU header.
 *
 * States. A page is FREE (no chunk), LOADING (given to a chunk by
 * slc_pool_acquire, its bytes being written), RESIDENT (written, usable by a
 * frame, evictable) or PINNED (resident and held by slc_pool_pin: never
 * evicted). A page pinned while loading becomes PINNED when its write ends.
 *
 *     FREE --acquire--> LOADING --write_end--> RESIDENT <--pin/unpin--> PINNED
 *       ^                  |                      |
 *       +----release-------+------evict/release---+
 *
 * Frames. slc_pool_begin_frame opens frame f (1, 2, ...), slc_pool_touch
 * marks the pages frame f uses, slc_pool_end_frame submits it to the store.
 * begin_frame refuses (SLC_E_FRAMES_IN_FLIGHT) while frames_in_flight
 * submitted frames have not retired, so while frame f is the newest begun
 * frame every frame up to f - frames_in_flight has retired. That number is
 * the pool's safe frame, and a page is evictable only when its last-used
 * frame is at most the safe frame: a page a frame in flight may read is
 * never overwritten (invariant 4).
 *
 * Why the safe frame and not the store's retired() at the moment of the
 * acquire: retired() moves with GPU timing, and the pool's decisions must
 * be a pure function of the calls made and the profile (invariant 3). The
 * safe frame moves only with begin_frame, and begin_frame's gate guarantees
 * retired() >= safe frame, so the rule is both safe and deterministic. It
 * costs at most frames_in_flight frames of delay before a page that is no
 * longer used may be evicted.
 *
 * Last use. A page's last-used frame is set to the newest begun frame (0
 * before the first) whenever the page goes to the most-recently-used end
 * of its partition's recency list: when its write ends, when a frame
 * touches it, when its last pin is released. So the recency list is always
 * ordered by last-used frame, oldest first.
 *
 * Eviction (deterministic: a pure function of the sequence of successful
 * calls and the desc; no two pages tie). slc_pool_acquire in
 * partition P takes, in this order:
 *   1. P's most recently freed page; before any page of P was freed, P's
 *      pages in ascending index order (a LIFO stack filled in index order);
 *   2. else P's eviction victim, among P's pages that are RESIDENT (not
 *      pinned, not loading) and whose last-used frame is at most the safe
 *      frame:
 *      - SLC_EVICTION_LRU: the least recently used: the head of P's recency
 *        list. Every page moves to the list's tail when it is written,
 *        touched or unpinned, so the list is ordered by that last move and
 *        by last-used frame at once; if the head's last use is not yet
 *        safe, no page's is. O(1) worst case. Two pages never tie (a list
 *        is a total order).
 *      - SLC_EVICTION_PRIORITY: the lowest requested priority first; then
 *        the finest level (LOD 0 first, since the coarser levels are what a
 *        renderer falls back to); then the least recently used, in the
 *        recency order LRU uses: the page whose last write, touch or unpin
 *        came first (so the older last-used frame first, and within one
 *        frame the earlier call). Two pages never tie. Each partition keeps
 *        frames_in_flight + 1 bucket tables: one list per (priority, LOD)
 *        bucket, in recency order, and a two-level bitmap of the buckets
 *        that are not empty. The safe table holds the pages that are safe to
 *        evict, so the victim is the head of its lowest set bucket: two
 *        count-trailing-zeros. A page whose last use (frame f) is not yet
 *        safe goes straight to the tail of its bucket in frame f's own table
 *        (one of the other frames_in_flight, reused every frames_in_flight
 *        frames); when begin_frame makes f safe, each list of f's table is
 *        spliced whole onto the tail of the same bucket of the safe table.
 *        Every page of f was used after every page already there, so the
 *        safe table stays in recency order without visiting a page. acquire,
 *        touch, pin, unpin, write_end and release are O(1) worst case;
 *        begin_frame costs a splice per bucket that frame f's pages left
 *        non-empty (at most 256 x SLC_LODS_MAX a partition; as many as the
 *        (priority, LOD) pairs f used, in practice a handful). (Within one
 *        frame the order is that of the calls, not of the chunk ids: keeping
 *        the pages of one bucket and one frame sorted by chunk id would cost
 *        a search per touch, since nothing makes the calls of a frame come
 *        in chunk id order.)
 *      - SLC_EVICTION_PREDICT: the page whose chunk is predicted back
 *        latest; of two predicted back at the same frame, the less recently
 *        used, in the recency order LRU uses. A run of consecutive frames
 *        in which a chunk is used (acquired or touched) counts as one
 *        reference, since a camera uses every visible chunk every frame;
 *        the pool keeps per chunk id, past its page, the last-used frame
 *        at which it lost its page and its gap: the frames from the end of
 *        its previous run to the start of its latest (a use more than one
 *        frame after the last one sets it; frames compared modulo 2^32).
 *        The prediction is last-used frame + gap, or + SLC_POOL_PREDICT_HORIZON
 *        while the chunk has no gap or once it is overdue (away more than
 *        twice its gap: a gap that no longer says anything). For a loop
 *        larger than the pool (a camera path that comes back) this keeps
 *        what returns soonest where LRU keeps what left last. Pages whose
 *        last use is not yet safe wait in the recency list, as with LRU;
 *        each partition keeps a 4-ary heap of the pages safe to evict
 *        keyed by the prediction, which acquire feeds from the list's head
 *        as the safe frame passes pages (in list order, so in recency
 *        order), and a second one of those still predicted from their
 *        gap, keyed by the frame they become overdue, from which acquire
 *        moves them to the horizon's prediction: acquire is
 *        O((k + 1) log n) for the k pages that became safe or overdue
 *        since the partition's previous acquire (each page at most twice
 *        per write, touch or unpin: O(log n) amortised), touch, pin and
 *        release O(log n). Integer arithmetic only: the same victims on
 *        every architecture.
 *   3. else nothing: SLC_E_POOL_BUSY, counted, and nothing changes. The pool
 *      never blocks and never takes a page of another partition.
 *
 * Partitions (freedom from interference). The pages are split into
 * partitions with guaranteed page counts, in desc order, contiguous by
 * index, then "default" with the pages no partition claims. A request names
 * its partition and is served only from that partition's pages, so one
 * client's requests can never evict another partition's pages, and a
 * partition asked for more than its share evicts its own pages or gets
 * SLC_E_POOL_BUSY, alone. There is no borrowing of another partition's idle
 * pages: what a partition does depends on its own requests only.
 *
 * Handles. An slc_page carries the page's generation, which changes every
 * time the page loses its chunk (eviction or release). Every call that takes
 * an slc_page refuses one whose generation is not current, or whose page is
 * free, with SLC_E_STALE (counted, no message: a handle going stale is
 * normal, the caller looks the chunk up again): a stale handle is detected,
 * never aliased (unless its page changed chunk exactly 2^32 - 1 times in
 * between). A generation that wraps skips 0, so {0, 0} is never valid. A
 * handle whose index is not a page of the pool is a mistake: SLC_E_INVALID
 * with a message.
 *
 * Messages. Refusals that mean the caller broke the contract
 * (SLC_E_INVALID, SLC_E_CAPACITY) are logged with the page, chunk and
 * numbers involved. Refusals that are flow control (SLC_E_POOL_BUSY,
 * SLC_E_STALE, SLC_E_FRAMES_IN_FLIGHT, a lookup's SLC_E_NOT_FOUND) are not
 * logged; the first three are counted in slc_pool_stats.
 *
 * Eviction log. Every change of a page's chunk is logged: (frame, chunk
 * evicted, page, chunk loaded, partition), with SLC_CHUNK_NONE for "none".
 * An acquire of a free page logs (f, NONE, page, chunk, P); an acquire that
 * evicts logs (f, victim, page, chunk, P); a release logs (f, chunk, page,
 * NONE, P). The newest log_capacity entries are kept in a ring; a running
 * hash covers every entry ever logged:
 *     hash_0 = 0, hash_n = XXH3_64bits_withSeed(entry_n, 24, hash_{n-1})
 * where entry_n is serialised little-endian as frame (8 bytes), evicted,
 * page, loaded, partition (4 bytes each). XXH3 and the serialisation are the
 * same on every architecture, so equal hashes prove equal decisions.
 *
 * Memory and cost. The pool lives in memory the caller provides
 * (slc_pool_footprint bytes, aligned to SLC_POOL_ALIGN) and never
 * allocates. Every call is O(1) (begin_frame bounded as stated); only init
 * and slc_pool_check walk the pages. Not thread-safe: one thread makes every
 * call (decisions are made on the calling thread, invariant 3); lookups and
 * the get functions only read and may run concurrently with each other. */
#ifndef SLUICE_POOL_H
#define SLUICE_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "ids.h"
#include "limits.h"
#include "page_store.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How the pool picks the page to evict ("Eviction" above documents both
 * orders exactly; a profile names one in [pool] eviction). 0, LRU, is the
 * default. */
typedef enum slc_eviction_policy {
    SLC_EVICTION_LRU = 0,      /* least recently used first */
    SLC_EVICTION_PRIORITY = 1, /* lowest requested priority, then finest LOD, then least recently used */
    SLC_EVICTION_PREDICT = 2   /* the chunk predicted back last: last use + its last gap between runs of use */
} slc_eviction_policy;

/* SLC_EVICTION_PREDICT: the gap, in frames, assumed for a chunk used in one
 * run of frames so far. */
#define SLC_POOL_PREDICT_HORIZON 256u

/* "No page" in log entries ("no chunk" is SLC_CHUNK_NONE, sluice/ids.h). */
#define SLC_PAGE_NONE 0xFFFFFFFFu

/* Limits the pool accepts beyond those of sluice/limits.h (page_count up
 * to SLC_PAGE_COUNT_MAX, chunk ids below SLC_TABLE_COUNT_MAX, frames in
 * flight up to SLC_FRAMES_IN_FLIGHT_MAX, SLC_PARTITION_MAX named
 * partitions), and the defaults a zero field of the desc takes (those of
 * budgets/default.profile; the page count and frames in flight are
 * SLC_DEFAULT_PAGE_COUNT and SLC_DEFAULT_FRAMES_IN_FLIGHT). */
#define SLC_POOL_LOG_CAPACITY_MAX (1u << 24)
#define SLC_POOL_PARTITION_MAX (SLC_PARTITION_MAX + 1u) /* named ones and "default" */
#define SLC_POOL_DEFAULT_MAX_CHUNKS 65536u
#define SLC_POOL_DEFAULT_LOG_CAPACITY 256u

/* The footprint is the same on every architecture (records are padded to
 * these sizes and their layout is asserted), so a host tool can size a
 * firmware image's static array for any target. */
#define SLC_POOL_ALIGN 64u
#define SLC_POOL_HEADER_SIZE 2560u /* the pool record and SLC_POOL_PARTITION_MAX partition records */
#define SLC_POOL_PAGE_RECORD_SIZE 32u
#define SLC_POOL_CHUNK_RECORD_SIZE 4u
#define SLC_POOL_BUCKET_TABLE_SIZE \
    16960u                              /* SLC_EVICTION_PRIORITY only, frames_in_flight + 1 per partition:
                                             256 x SLC_LODS_MAX bucket heads and their bitmaps */
#define SLC_POOL_HEAP_RECORD_SIZE 32u   /* SLC_EVICTION_PREDICT only, per page: its entries in two heaps */
#define SLC_POOL_HISTORY_RECORD_SIZE 8u /* SLC_EVICTION_PREDICT only, per chunk id */
#define SLC_POOL_LOG_RECORD_SIZE 24u
#define SLC_POOL_ALIGN_UP_(x) (((size_t)(x) + (SLC_POOL_ALIGN - 1u)) & ~(size_t)(SLC_POOL_ALIGN - 1u))
/* Bytes of a pool of pages pages, chunk ids below max_chunks, a log ring of
 * log_capacity entries, the given eviction policy, partitions partitions
 * ("default" included: the desc's partition_count, plus 1 when the named
 * ones leave pages over; SLC_POOL_PARTITION_MAX bounds every desc) and
 * frames_in_flight; no field may be 0 (the defaults are resolved by
 * slc_pool_footprint, not here). */
#define SLC_POOL_FOOTPRINT(pages, max_chunks, log_capacity, policy, partitions, frames_in_flight)                    \
    ((size_t)SLC_POOL_HEADER_SIZE + SLC_POOL_ALIGN_UP_((size_t)SLC_POOL_PAGE_RECORD_SIZE * (pages)) +                \
     SLC_POOL_ALIGN_UP_((size_t)SLC_POOL_CHUNK_RECORD_SIZE * (max_chunks)) +                                         \
     ((policy) == SLC_EVICTION_PRIORITY                                                                              \
          ? (size_t)SLC_POOL_BUCKET_TABLE_SIZE * (partitions) * ((size_t)(frames_in_flight) + 1u)                    \
          : (size_t)0) +                                                                                             \
     ((policy) == SLC_EVICTION_PREDICT ? SLC_POOL_ALIGN_UP_((size_t)SLC_POOL_HEAP_RECORD_SIZE * (pages)) +           \
                                             SLC_POOL_ALIGN_UP_((size_t)SLC_POOL_HISTORY_RECORD_SIZE * (max_chunks)) \
                                       : (size_t)0) +                                                                \
     SLC_POOL_ALIGN_UP_((size_t)SLC_POOL_LOG_RECORD_SIZE * (log_capacity)))

typedef struct slc_pool slc_pool;

typedef enum slc_page_state {
    SLC_PAGE_FREE = 0,
    SLC_PAGE_LOADING = 1,
    SLC_PAGE_RESIDENT = 2,
    SLC_PAGE_PINNED = 3
} slc_page_state;

/* A page, as acquire and lookup hand it out: index and generation. */
typedef struct slc_page {
    uint32_t index;
    uint32_t generation;
} slc_page;

/* A partition, by index in the order of the desc ("default" last). */
typedef struct slc_partition {
    uint16_t index;
} slc_partition;

typedef struct slc_pool_partition_desc {
    const char *name;    /* 1 to SLC_NAME_MAX - 1 bytes, unique, not "default"; copied at init */
    uint32_t page_count; /* at least 1 */
} slc_pool_partition_desc;

/* A zeroed desc is valid: 4096 pages, chunk ids below 65536, 2 frames in
 * flight, a 256-entry log, LRU, one "default" partition of every page. */
typedef struct slc_pool_desc {
    uint32_t page_count;       /* 0: SLC_DEFAULT_PAGE_COUNT; must equal the store's */
    uint32_t max_chunks;       /* chunk ids are below this; 0: SLC_POOL_DEFAULT_MAX_CHUNKS */
    uint32_t frames_in_flight; /* 0: SLC_DEFAULT_FRAMES_IN_FLIGHT; at most SLC_FRAMES_IN_FLIGHT_MAX */
    uint32_t log_capacity;     /* entries kept in the log ring; 0: SLC_POOL_DEFAULT_LOG_CAPACITY */
    slc_eviction_policy eviction;
    uint32_t partition_count; /* named partitions, at most SLC_PARTITION_MAX */
    slc_pool_partition_desc partitions[SLC_PARTITION_MAX];
    uint32_t reserved[4]; /* must be zero */
} slc_pool_desc;

/* What a request asks for. */
typedef struct slc_pool_request {
    slc_chunk_id chunk;      /* below max_chunks */
    slc_partition partition; /* where the page comes from */
    uint8_t lod;             /* the chunk's level of detail, 0 the finest; below SLC_LODS_MAX */
    uint8_t priority;        /* higher is more important; ignored by SLC_EVICTION_LRU */
} slc_pool_request;

/* One page, by value. */
typedef struct slc_page_info {
    slc_page page;
    slc_page_state state;
    slc_chunk_id chunk; /* SLC_CHUNK_NONE when free */
    slc_partition partition;
    uint16_t pins;
    uint8_t lod;
    uint8_t priority;
    uint64_t last_used;         /* frame; see "Last use" above */
    slc_page_location location; /* segment, offset and host address, from the store */
} slc_page_info;

/* One entry of the eviction log; seq counts from 0 over the pool's life. */
typedef struct slc_pool_log_entry {
    uint64_t seq;
    uint64_t frame;       /* the newest begun frame when the change happened (0 before the first) */
    slc_chunk_id evicted; /* the chunk the page held, or SLC_CHUNK_NONE */
    uint32_t page;
    slc_chunk_id loaded; /* the chunk the page now holds, or SLC_CHUNK_NONE (release) */
    uint32_t partition;
} slc_pool_log_entry;

/* Counters, by value. Counts of pages are "now"; every other field never
 * decreases. resident excludes pinned pages. */
typedef struct slc_pool_stats {
    uint32_t page_count;
    uint32_t free, loading, resident, pinned;
    uint32_t peak_used;       /* most pages not free at once */
    uint32_t partition_count; /* "default" included */
    uint64_t frame;           /* newest begun frame, 0 before the first */
    uint64_t submitted;       /* newest ended frame */
    uint64_t safe_frame;      /* frames up to this one have retired: frame - frames_in_flight, or 0 */
    uint64_t acquires;        /* successful acquires */
    uint64_t evictions;       /* acquires that evicted a chunk */
    uint64_t releases;
    uint64_t busy;           /* acquires and releases refused with SLC_E_POOL_BUSY */
    uint64_t stale;          /* calls refused with SLC_E_STALE */
    uint64_t frames_refused; /* begin_frame refused with SLC_E_FRAMES_IN_FLIGHT */
    uint64_t log_count;      /* entries ever logged */
    uint64_t log_hash;       /* the running hash over all of them */
} slc_pool_stats;

typedef struct slc_pool_partition_stats {
    char name[SLC_NAME_MAX];
    slc_partition id;
    uint32_t first_page; /* the partition holds pages [first_page, first_page + page_count) */
    uint32_t page_count;
    uint32_t free, loading, resident, pinned;
    uint32_t peak_used;
    uint64_t acquires, evictions, releases, busy;
} slc_pool_partition_stats;

/* Bytes slc_pool_init needs for desc (NULL: a zeroed desc), defaults
 * resolved: SLC_POOL_FOOTPRINT. Returns 0 iff the desc is invalid (the
 * reasons slc_pool_init gives SLC_E_INVALID for). O(partitions). */
size_t slc_pool_footprint(const slc_pool_desc *desc);

/* Builds a pool in mem over store (whose ops, self and page count are
 * copied: the store must outlive the pool). All pages start free. log (may
 * be NULL) receives the reason of a failure and of each later refusal that
 * has a message.
 *
 * Fails iff mem is NULL (SLC_E_BLOCK_NULL), misaligned to SLC_POOL_ALIGN
 * (SLC_E_BLOCK_MISALIGNED), smaller than slc_pool_footprint(desc)
 * (SLC_E_BLOCK_TOO_SMALL), or the desc is invalid or does not match the
 * store (SLC_E_INVALID): a count above its limit, an unknown eviction policy,
 * a non-zero reserved field, a partition with no pages, no name, a name of
 * SLC_NAME_MAX bytes or more, a duplicate name or the name "default",
 * partitions claiming more pages than the pool has, a store whose page count
 * differs from the desc's, or a store without ops. Every message names the
 * field and the numbers. On failure *out is NULL. O(pages + max_chunks +
 * log_capacity): every record is written once, so no page fault lands
 * later; never allocates. */
slc_status slc_pool_init(void *mem, size_t size, const slc_pool_desc *desc, const slc_page_store *store,
                         const slc_logger *log, slc_pool **out);

/* Gives a page to req->chunk, from req->partition only (see "Eviction" above
 * for which page). The page is LOADING, its last-used frame the newest begun
 * frame; write it with slc_pool_write_begin / slc_pool_write_end. An
 * eviction or the use of a free page is logged. *out is the new handle.
 *
 * Fails, changing nothing but a counter, iff req->chunk is not below
 * max_chunks, req->lod is not below SLC_LODS_MAX, req->partition does not
 * exist, or the chunk already has a page
 * (SLC_E_INVALID, with a message), or no page of the partition is free or
 * evictable (SLC_E_POOL_BUSY, counted, no message: it is flow control, the
 * caller retries in a later frame). O(1) worst case with SLC_EVICTION_LRU
 * and SLC_EVICTION_PRIORITY; O(log n) amortised with SLC_EVICTION_PREDICT
 * (O((k + 1) log n) for the k pages whose last use became safe, or that
 * became overdue, since the partition's previous acquire). */
slc_status slc_pool_acquire(slc_pool *pool, const slc_pool_request *req, slc_page *out);

/* Where the bytes of a LOADING page are to be written (the store's
 * write_begin: the page itself, or a staging slot). Fails iff the handle is
 * stale (SLC_E_STALE), the page is not loading or a write is already open
 * (SLC_E_INVALID), or the store has no room this frame (its status,
 * SLC_E_CAPACITY for a full staging belt: retry in a later frame, or
 * release the page). *dst is NULL on failure. O(1). */
slc_status slc_pool_write_begin(slc_pool *pool, slc_page page, void **dst);

/* The bytes written since write_begin are complete: the store flushes or
 * queues them, and the page becomes RESIDENT (PINNED if it was pinned while
 * loading) at the most-recently-used end. Fails iff the handle is stale
 * (SLC_E_STALE), no write is open or bytes is above the page size
 * (SLC_E_INVALID), or the store fails (its status; the write stays open).
 * O(1). */
slc_status slc_pool_write_end(slc_pool *pool, slc_page page, size_t bytes);

/* Gives a page's chunk up: a LOADING page (a load that failed or is no
 * longer wanted) or a RESIDENT page whose last use is safe becomes FREE; the
 * release is logged. A write left open on a LOADING page is abandoned: the
 * store's write_end is called with 0 bytes, so it frees the staging slot
 * write_begin took and copies nothing. Fails iff the handle is stale (SLC_E_STALE), the page
 * is pinned (SLC_E_INVALID), or a frame in flight may still read it
 * (SLC_E_POOL_BUSY, counted: retry after later frames). O(1). */
slc_status slc_pool_release(slc_pool *pool, slc_page page);

/* Finds the page of a chunk: its handle, state and location (through the
 * store's locate). A LOADING page is found too: check the state before a
 * frame uses it. Fails iff chunk is not below max_chunks (SLC_E_INVALID,
 * with a message) or has no page (SLC_E_NOT_FOUND, no message: a miss).
 * O(1); changes nothing. */
slc_status slc_pool_lookup(const slc_pool *pool, slc_chunk_id chunk, slc_page_info *out);

/* The open frame uses page: its last-used frame becomes this frame, its
 * requested priority becomes priority, and an unpinned page moves to the
 * most-recently-used end. Fails iff the handle is stale (SLC_E_STALE), no
 * frame is open or the page is still loading (SLC_E_INVALID). O(1). */
slc_status slc_pool_touch(slc_pool *pool, slc_page page, uint8_t priority);

/* Pins a LOADING, RESIDENT or PINNED page: it is never evicted until as many
 * unpins. Fails iff the handle is stale (SLC_E_STALE) or the page already
 * holds 65535 pins (SLC_E_CAPACITY). O(1). */
slc_status slc_pool_pin(slc_pool *pool, slc_page page);

/* Releases one pin. The last pin of a resident page counts as a use in the
 * newest begun frame: the page goes to the most-recently-used end. Fails iff
 * the handle is stale (SLC_E_STALE) or the page holds no pin
 * (SLC_E_INVALID). O(1). */
slc_status slc_pool_unpin(slc_pool *pool, slc_page page);

/* Opens frame (newest begun frame + 1) and returns its number in *frame
 * (may be NULL). Fails iff a frame is open (SLC_E_INVALID) or as many frames
 * as frames_in_flight are submitted and not retired by the store
 * (SLC_E_FRAMES_IN_FLIGHT, counted, no message: retry once the device has
 * finished one). O(1) plus the store's retired() with SLC_EVICTION_LRU;
 * with SLC_EVICTION_PRIORITY also a splice per partition and per bucket the
 * frame that becomes safe left non-empty (see "Eviction"), each touching
 * four page records at most. */
slc_status slc_pool_begin_frame(slc_pool *pool, uint64_t *frame);

/* Ends the open frame and submits it to the store (its submit). Fails iff no
 * frame is open (SLC_E_INVALID) or the store fails (its status; the frame
 * stays open). O(1) plus the store's submit(). */
slc_status slc_pool_end_frame(slc_pool *pool);

/* Looks a partition up by name ("default" for the pages no named partition
 * claims; there is none when the named ones take every page). Fails iff no
 * partition has that name (SLC_E_NOT_FOUND). O(partitions). */
slc_status slc_pool_scan_partition(const slc_pool *pool, const char *name, slc_partition *out);

/* One page by index (below page_count: SLC_ASSERT), whatever its state.
 * O(1). */
void slc_pool_get_page(const slc_pool *pool, uint32_t index, slc_page_info *out);

/* The pool's counters, its page counts summed over the partitions.
 * O(partitions). */
void slc_pool_get_stats(const slc_pool *pool, slc_pool_stats *out);

/* One partition's counters (partition must exist: SLC_ASSERT). O(1). */
void slc_pool_get_partition_stats(const slc_pool *pool, slc_partition partition, slc_pool_partition_stats *out);

/* Copies the logged entries with seq >= first that the ring still holds,
 * oldest first, at most cap of them; returns how many it copied. With
 * first = stats.log_count - capacity (or 0) it copies the whole ring.
 * O(copied). */
size_t slc_pool_walk_log(const slc_pool *pool, uint64_t first, slc_pool_log_entry *out, size_t cap);

/* Walks every record and returns false on any broken invariant: a page in
 * the wrong partition, state, list or bucket; a recency list or bucket out
 * of last-used order or with broken links; a bucket in another table than
 * its pages' last use names (the safe table iff the use is safe, else that
 * frame's), or whose bitmap bits disagree with it; a chunk map that
 * disagrees with the pages; counts that disagree with the walk; a free page
 * with a chunk; a generation of 0; frame counters out of step.
 * O(pages + max_chunks + partitions x (frames_in_flight + 1) x buckets). */
bool slc_pool_check(const slc_pool *pool);

#ifdef __cplusplus
}
#endif

#endif
