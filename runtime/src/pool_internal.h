/* SPDX-License-Identifier: MIT */
/* sluice: the page pool's records, shared by pool.c (the pages, the
 * partitions, the frame, the log) and the eviction policies behind the
 * contract below (evict_lru.c, evict_priority.c, evict_predict.c). Not a
 * public header: the records are the pool's footprint (sluice/pool.h sizes
 * it), asserted in pool.c. */
#ifndef SLC_POOL_INTERNAL_H
#define SLC_POOL_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "internal.h"
#include "sluice/pool.h"

typedef struct slc__evict_policy slc__evict_policy;

#define NONE 0xFFFFFFFFu
#define BUCKETS (256u * SLC_LODS_MAX) /* one per (priority, lod): bucket priority * SLC_LODS_MAX + lod */
#define BUCKET_WORDS (BUCKETS / 64u)

/* A page: 32 bytes, two to a cache line. state is FREE, LOADING or
 * RESIDENT; PINNED is RESIDENT with pins > 0. Where an unpinned resident
 * page sits depends on the policy: with SLC_EVICTION_LRU in its partition's
 * recency list; with SLC_EVICTION_PRIORITY in the bucket of its (priority,
 * lod) in one of its partition's bucket tables (PAGE_IN_BUCKET set). Both
 * are linked through prev and next, so a page needs no other record. A free
 * page sits in its partition's free stack, linked through next. */
typedef struct page_rec {
    uint64_t last_used;
    uint32_t chunk;
    uint32_t generation;
    uint32_t prev;
    uint32_t next;
    uint16_t partition;
    uint16_t pins;
    uint8_t state;
    uint8_t flags; /* PAGE_WRITING, PAGE_IN_BUCKET */
    uint8_t lod;
    uint8_t priority;
} page_rec;

#define PAGE_WRITING 1u /* between write_begin and write_end */
#define PAGE_IN_BUCKET 2u
#define PAGE_IN_HEAP 4u /* SLC_EVICTION_PREDICT: in its partition's heaps (see heap_push) */
#define PAGE_DUE 8u

/* An entry of a partition's heap (SLC_EVICTION_PREDICT): the key, then
 * order: the page index in the low HEAP_PAGE_BITS bits, above them the
 * pool's count of pages entered into the heaps when it entered (modulo
 * 2^40), which breaks ties by recency: pages enter from the head of the
 * recency list, so in the order of their last use. */
typedef struct heap_rec {
    uint64_t key;
    uint64_t order;
} heap_rec;
#define HEAP_PAGE_BITS 24u
#define HEAP_PAGE(r) ((uint32_t)((r).order & ((1u << HEAP_PAGE_BITS) - 1u)))

/* What the pool remembers of a chunk between its pages (SLC_EVICTION_PREDICT):
 * the frame (its low 32 bits) of its last use when it lost its page, 0 if
 * it never had one, and the frames between its last two runs of use. */
typedef struct chunk_hist {
    uint32_t last;
    uint32_t gap;
} chunk_hist;

/* A bucket table (SLC_EVICTION_PRIORITY): one circular list per (priority,
 * lod), least recently used first (head[b], whose prev is the tail), and a
 * two-level bitmap of the buckets that are not empty: bit b of words[] is set
 * iff head[b] is a page, bit w of summary iff words[w] is not 0.
 *
 * Each partition has frames_in_flight + 1 of them (table_of below): table 0
 * holds the unpinned resident pages whose last use is safe, and its lowest
 * set bit is the bucket of the victim: two count-trailing-zeros, whatever the
 * number of pages. Table 1 + f % frames_in_flight holds those last used in
 * frame f while f is above the safe frame (the frames above it are
 * frames_in_flight consecutive numbers at most, so no two share a table).
 * When begin_frame moves the safe frame onto f, each non-empty list of f's
 * table goes whole onto the tail of the same bucket of table 0: its pages
 * were all used after every page there, so table 0 stays in recency order,
 * and no page is visited. */
typedef struct bucket_table {
    uint64_t words[BUCKET_WORDS];
    uint64_t summary;
    uint32_t reserved_[14]; /* pads words and summary to whole cache lines */
    uint32_t head[BUCKETS];
} bucket_table;

typedef struct log_rec {
    uint64_t frame;
    uint32_t evicted;
    uint32_t page;
    uint32_t loaded;
    uint32_t partition;
} log_rec;

typedef struct partition_rec {
    char name[SLC_NAME_MAX];
    uint32_t first;
    uint32_t count;
    uint32_t free_head;
    uint32_t free_count;
    uint32_t head; /* least recently used end of the recency list */
    uint32_t tail; /* most recently used end */
    uint32_t list_count;
    uint32_t bucketed; /* pages in the buckets, or in the heap (SLC_EVICTION_PREDICT) */
    uint32_t loading;
    uint32_t pinned; /* resident pages with pins (loading ones count as loading) */
    uint32_t peak_used;
    uint32_t due;          /* pages in the DUE heap (SLC_EVICTION_PREDICT) */
    uint32_t reserved_[3]; /* pads the record to PARTITION_RECORD_SIZE: an array of them is indexed */
    uint64_t acquires;
    uint64_t evictions;
    uint64_t releases;
    uint64_t busy;
} partition_rec;

struct slc_pool {
    page_rec *pages;
    uint32_t *chunk_map;   /* chunk id -> page index, or NONE */
    bucket_table *buckets; /* frames_in_flight + 1 per partition; SLC_EVICTION_PRIORITY only, else NULL */
    heap_rec *heap;        /* SLC_EVICTION_PREDICT only: partition P's is heap[P.first .. P.first + P.bucketed) */
    chunk_hist *hist;      /* SLC_EVICTION_PREDICT only: one per chunk id */
    log_rec *log;
    partition_rec *parts;
    slc_page_store store;
    slc_logger logger;
    uint32_t page_count;
    uint32_t max_chunks;
    uint32_t frames_in_flight;
    uint32_t log_capacity;
    uint32_t log_next; /* ring slot of the next entry */
    uint32_t partition_count;
    uint32_t eviction;
    const slc__evict_policy *policy; /* slc__evict_policies[eviction] */
    uint32_t used;                   /* pages not free */
    uint32_t peak_used;
    int frame_open;
    uint64_t frame;
    uint64_t submitted;
    uint64_t safe;
    uint64_t acquires;
    uint64_t evictions;
    uint64_t releases;
    uint64_t busy;
    uint64_t stale;
    uint64_t frames_refused;
    uint64_t log_count;
    uint64_t log_hash;
    uint64_t heap_entered; /* SLC_EVICTION_PREDICT: pages entered into the heaps */
};

/* A desc with its defaults resolved and its partitions laid out. */
typedef struct config {
    uint32_t page_count;
    uint32_t max_chunks;
    uint32_t frames_in_flight;
    uint32_t log_capacity;
    uint32_t eviction;
    uint32_t partition_count; /* "default" included */
    uint32_t default_pages;   /* pages of "default", 0 when the named ones take every page */
} config;

/* --- the policy contract ----------------------------------------------------
 *
 * Each policy keeps the unpinned resident pages of a partition in its own
 * structure (LRU: the recency list; PRIORITY: bucket tables; PREDICT: the
 * recency list, then two heaps), and answers four calls: add (the page
 * became an unpinned resident page at the most recently used end, its last
 * use the newest begun frame), remove (before the page's priority or last
 * use changes), the victim, and the safe frame's advance. A policy that
 * keeps state of its own gets a region of the pool's memory (footprint,
 * init), may follow chunks across their pages (the three history hooks,
 * NULL where it does not), and checks its structure in slc_pool_check.
 *
 * Costs: every call but victim and safe_advanced is O(1) (PREDICT's add
 * and remove: O(log pages), its heaps); victim O(1) (PREDICT: amortised
 * O(log pages) a page entering its heaps); safe_advanced O(partitions +
 * non-empty buckets). None allocates; all run under the pool's contract
 * (one thread at a time).
 *
 * Adding a policy: a file evict_NAME.c (listed in runtime/CMakeLists.txt)
 * defining one slc__evict_policy, declared below; its row in policies[]
 * (pool.c); the enum value in sluice/pool.h. Its name is the profile's
 * keyword: profile.c reads the keywords from policies[]
 * (slc__evict_policy_name). */
struct slc__evict_policy {
    /* The profile's keyword for it ([pool] eviction), in the profile's and
     * the pool's messages. */
    const char *name;
    /* Bytes of the policy's region (after the chunk map), a multiple of
     * SLC_POOL_ALIGN; 0 if it needs none. */
    size_t (*footprint)(const config *c);
    /* Lays out and clears the region at mem (footprint(c) bytes, NULL when
     * 0), setting the pool's pointers to it. The partitions are laid out. */
    void (*init)(slc_pool *pool, unsigned char *mem, const config *c);
    /* Page i becomes evictable once its last use is safe (see "Eviction" in
     * pool.h); its last_used and priority are already its new ones. */
    void (*add)(slc_pool *pool, partition_rec *part, uint32_t i);
    /* Takes an unpinned resident page out of the policy's structure. */
    void (*remove)(slc_pool *pool, partition_rec *part, uint32_t i);
    /* Whether a use of page i now would leave every order as it is, so touch
     * need not move it. */
    bool (*is_newest)(const slc_pool *pool, const partition_rec *part, uint32_t i);
    /* The page to evict in part, or NONE (see "Eviction" in pool.h); may
     * first bring the structure up to the current safe frame. */
    uint32_t (*victim)(slc_pool *pool, partition_rec *part);
    /* begin_frame moved the safe frame from before to after (after = before
     * + 1, or equal). NULL: nothing to do. */
    void (*safe_advanced)(slc_pool *pool, uint64_t before, uint64_t after);
    /* History hooks, NULL where the policy keeps none: page p is about to
     * lose its chunk (evicted or released); chunk gets a page in the current
     * frame; page p's chunk is used again in the current frame (p->last_used
     * is still its previous use). */
    void (*dropped)(slc_pool *pool, const page_rec *p);
    void (*acquired)(slc_pool *pool, uint32_t chunk);
    void (*touched)(slc_pool *pool, const page_rec *p);
    /* slc_pool_check's part: whether the pool's pointers are the policy's
     * (pool), and partition pi's structure holds, given the counts the
     * shared walk found: listed pages in the recency list, bucketed outside
     * it (PAGE_IN_BUCKET or PAGE_IN_HEAP). */
    bool (*check_pool)(const slc_pool *pool);
    bool (*check_partition)(const slc_pool *pool, uint32_t pi, uint32_t listed, uint32_t bucketed);
};

/* The policies (pool.c's policies[] indexes them by slc_eviction_policy). */
extern const slc__evict_policy slc__evict_lru;
extern const slc__evict_policy slc__evict_priority;
extern const slc__evict_policy slc__evict_predict;

/* The partition's recency list (evict_lru.c; PREDICT keeps pages in it
 * too): unlink page i, or append it at the most recently used end. O(1). */
void slc__pool_list_unlink(slc_pool *pool, partition_rec *part, uint32_t i);
void slc__pool_list_append(slc_pool *pool, partition_rec *part, uint32_t i);

#endif
