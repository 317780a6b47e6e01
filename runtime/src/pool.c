/* sluice: the GPU page pool (see sluice/pool.h, which documents the policy). */
#include "sluice/pool.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The library, not XXH_INLINE_ALL (see pack.c): only the one-shot seeded
 * hash is used, no state. */
#include <xxhash.h>

#include "internal.h"
#include "sluice/profile.h"

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
#define HEAP_ARITY 4u

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
    uint32_t due; /* pages in the DUE heap (SLC_EVICTION_PREDICT) */
    uint32_t reserved_[3]; /* pads the record to PARTITION_RECORD_SIZE: an array of them is indexed */
    uint64_t acquires;
    uint64_t evictions;
    uint64_t releases;
    uint64_t busy;
} partition_rec;

struct slc_pool {
    page_rec *pages;
    uint32_t *chunk_map; /* chunk id -> page index, or NONE */
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
    uint32_t used; /* pages not free */
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

#define POOL_RECORD_SIZE 512u
#define PARTITION_RECORD_SIZE 128u

typedef union pool_slot {
    struct slc_pool p;
    unsigned char pad[POOL_RECORD_SIZE];
} pool_slot;

_Static_assert(sizeof(pool_slot) == POOL_RECORD_SIZE, "the pool record is part of the footprint");
_Static_assert(sizeof(partition_rec) == PARTITION_RECORD_SIZE, "partition records are part of the footprint");
_Static_assert(POOL_RECORD_SIZE + PARTITION_RECORD_SIZE * SLC_POOL_PARTITION_MAX == SLC_POOL_HEADER_SIZE,
               "header = pool record + partition records");
_Static_assert(sizeof(page_rec) == SLC_POOL_PAGE_RECORD_SIZE, "page record size is part of the footprint");
_Static_assert(offsetof(page_rec, chunk) == 8 && offsetof(page_rec, next) == 20 &&
                   offsetof(page_rec, partition) == 24 && offsetof(page_rec, state) == 28,
               "page record layout is the same on every architecture");
_Static_assert(sizeof(bucket_table) == SLC_POOL_BUCKET_TABLE_SIZE && offsetof(bucket_table, head) % 64 == 0,
               "bucket table size is part of the footprint");
_Static_assert(BUCKET_WORDS <= 64u && BUCKETS % 64u == 0, "a one-word summary covers every bucket word");
_Static_assert(2u * sizeof(heap_rec) == SLC_POOL_HEAP_RECORD_SIZE && sizeof(chunk_hist) == SLC_POOL_HISTORY_RECORD_SIZE,
               "heap and history record sizes are part of the footprint");
_Static_assert(sizeof(log_rec) == SLC_POOL_LOG_RECORD_SIZE, "log record size is part of the footprint");
_Static_assert(sizeof(uint32_t) == SLC_POOL_CHUNK_RECORD_SIZE, "chunk record size is part of the footprint");
_Static_assert((SLC_POOL_ALIGN & (SLC_POOL_ALIGN - 1)) == 0, "pool alignment is a power of two");
_Static_assert(SLC_PAGE_COUNT_MAX < NONE && SLC_TABLE_COUNT_MAX < NONE, "indices never reach NONE");
_Static_assert(SLC_CHUNK_NONE_INDEX == NONE && SLC_PAGE_NONE == NONE, "a record's NONE is the public one");
_Static_assert(SLC_POOL_PARTITION_MAX <= 0xFFFFu, "partition indices fit 16 bits");
_Static_assert(SLC_PAGE_COUNT_MAX <= (1u << HEAP_PAGE_BITS), "a heap entry's page index fits its bits");

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

static const slc_pool_desc zero_desc;

static slc_status resolve_desc(const slc_pool_desc *d, const slc_logger *log, config *c)
{
    if (d == NULL) {
        d = &zero_desc;
    }
    c->page_count = d->page_count != 0 ? d->page_count : SLC_DEFAULT_PAGE_COUNT;
    c->max_chunks = d->max_chunks != 0 ? d->max_chunks : SLC_POOL_DEFAULT_MAX_CHUNKS;
    c->frames_in_flight = d->frames_in_flight != 0 ? d->frames_in_flight : SLC_DEFAULT_FRAMES_IN_FLIGHT;
    c->log_capacity = d->log_capacity != 0 ? d->log_capacity : SLC_POOL_DEFAULT_LOG_CAPACITY;
    c->eviction = (uint32_t)d->eviction;
    if (c->page_count > SLC_PAGE_COUNT_MAX) {
        return slc__log(log, SLC_LOG_ERROR, SLC_E_INVALID, "pool: page_count %u is above %u", c->page_count,
                        SLC_PAGE_COUNT_MAX);
    }
    if (c->max_chunks > SLC_TABLE_COUNT_MAX) {
        return slc__log(log, SLC_LOG_ERROR, SLC_E_INVALID, "pool: max_chunks %u is above %u", c->max_chunks,
                        SLC_TABLE_COUNT_MAX);
    }
    if (c->frames_in_flight > SLC_FRAMES_IN_FLIGHT_MAX) {
        return slc__log(log, SLC_LOG_ERROR, SLC_E_INVALID, "pool: frames_in_flight %u is above %u",
                        c->frames_in_flight, SLC_FRAMES_IN_FLIGHT_MAX);
    }
    if (c->log_capacity > SLC_POOL_LOG_CAPACITY_MAX) {
        return slc__log(log, SLC_LOG_ERROR, SLC_E_INVALID, "pool: log_capacity %u is above %u", c->log_capacity,
                        SLC_POOL_LOG_CAPACITY_MAX);
    }
    if (c->eviction > (uint32_t)SLC_EVICTION_PREDICT) {
        return slc__log(log, SLC_LOG_ERROR, SLC_E_INVALID,
                        "pool: eviction %u is not a policy (0 lru, 1 priority, 2 predict)", c->eviction);
    }
    for (size_t i = 0; i < sizeof d->reserved / sizeof d->reserved[0]; i++) {
        if (d->reserved[i] != 0) {
            return slc__log(log, SLC_LOG_ERROR, SLC_E_INVALID, "pool: reserved[%zu] is %u; reserved fields must be 0",
                            i, d->reserved[i]);
        }
    }
    if (d->partition_count > SLC_PARTITION_MAX) {
        return slc__log(log, SLC_LOG_ERROR, SLC_E_INVALID, "pool: %u partitions named; at most %u",
                        d->partition_count, SLC_PARTITION_MAX);
    }
    uint64_t claimed = 0;
    for (uint32_t i = 0; i < d->partition_count; i++) {
        const slc_pool_partition_desc *pd = &d->partitions[i];
        if (pd->name == NULL || pd->name[0] == '\0') {
            return slc__log(log, SLC_LOG_ERROR, SLC_E_INVALID, "pool: partition %u has no name", i);
        }
        if (slc__strnlen(pd->name, SLC_NAME_MAX) == SLC_NAME_MAX) {
            return slc__log(log, SLC_LOG_ERROR, SLC_E_INVALID, "pool: partition %u: name is longer than %u bytes", i,
                            SLC_NAME_MAX - 1);
        }
        if (strcmp(pd->name, SLC_PROFILE_PARTITION_DEFAULT_NAME) == 0) {
            return slc__log(log, SLC_LOG_ERROR, SLC_E_INVALID,
                            "pool: partition %u: 'default' is reserved for the pages no partition claims", i);
        }
        for (uint32_t j = 0; j < i; j++) {
            if (strcmp(pd->name, d->partitions[j].name) == 0) {
                return slc__log(log, SLC_LOG_ERROR, SLC_E_INVALID, "pool: partition %u: '%s' is also partition %u",
                                i, pd->name, j);
            }
        }
        if (pd->page_count == 0) {
            return slc__log(log, SLC_LOG_ERROR, SLC_E_INVALID, "pool: partition '%s' has no pages", pd->name);
        }
        claimed += pd->page_count;
    }
    if (claimed > c->page_count) {
        return slc__log(log, SLC_LOG_ERROR, SLC_E_INVALID, "pool: partitions claim %llu pages; the pool has %u",
                        (unsigned long long)claimed, c->page_count);
    }
    c->default_pages = c->page_count - (uint32_t)claimed;
    c->partition_count = d->partition_count + (c->default_pages > 0 ? 1u : 0u);
    return SLC_OK;
}

/* Byte offsets of the regions after the header. */
typedef struct layout {
    size_t pages, chunks, buckets, heap, hist, log, total;
} layout;

static layout layout_of(const config *c)
{
    layout l;
    l.pages = SLC_POOL_HEADER_SIZE;
    l.chunks = l.pages + SLC_POOL_ALIGN_UP_((size_t)SLC_POOL_PAGE_RECORD_SIZE * c->page_count);
    l.buckets = l.chunks + SLC_POOL_ALIGN_UP_((size_t)SLC_POOL_CHUNK_RECORD_SIZE * c->max_chunks);
    l.heap = l.buckets + (c->eviction == SLC_EVICTION_PRIORITY
                              ? (size_t)SLC_POOL_BUCKET_TABLE_SIZE * c->partition_count * (c->frames_in_flight + 1u)
                              : (size_t)0);
    const int predict = c->eviction == SLC_EVICTION_PREDICT;
    l.hist = l.heap + (predict ? SLC_POOL_ALIGN_UP_((size_t)SLC_POOL_HEAP_RECORD_SIZE * c->page_count) : (size_t)0);
    l.log = l.hist + (predict ? SLC_POOL_ALIGN_UP_((size_t)SLC_POOL_HISTORY_RECORD_SIZE * c->max_chunks) : (size_t)0);
    l.total = l.log + SLC_POOL_ALIGN_UP_((size_t)SLC_POOL_LOG_RECORD_SIZE * c->log_capacity);
    return l;
}

size_t slc_pool_footprint(const slc_pool_desc *desc)
{
    config c;
    if (resolve_desc(desc, NULL, &c) != SLC_OK) {
        return 0;
    }
    return layout_of(&c).total;
}

slc_status slc_pool_init(void *mem, size_t size, const slc_pool_desc *desc, const slc_page_store *store,
                         const slc_logger *log, slc_pool **out)
{
    SLC_ASSERT(out != NULL && store != NULL);
    *out = NULL;
    if (mem == NULL) {
        return slc__log(log, SLC_LOG_ERROR, SLC_E_BLOCK_NULL, "pool: memory is NULL");
    }
    if (((uintptr_t)mem % SLC_POOL_ALIGN) != 0) {
        return slc__log(log, SLC_LOG_ERROR, SLC_E_BLOCK_MISALIGNED, "pool: memory at 0x%llx is not aligned to %u bytes",
                        (unsigned long long)(uintptr_t)mem, SLC_POOL_ALIGN);
    }
    config c;
    slc_status s = resolve_desc(desc, log, &c);
    if (s != SLC_OK) {
        return s;
    }
    if (store->ops == NULL || store->ops->locate == NULL || store->ops->write_begin == NULL ||
        store->ops->write_end == NULL || store->ops->submit == NULL || store->ops->retired == NULL) {
        return slc__log(log, SLC_LOG_ERROR, SLC_E_INVALID, "pool: the page store lacks an operation");
    }
    if (store->page_count != c.page_count) {
        return slc__log(log, SLC_LOG_ERROR, SLC_E_INVALID, "pool: page_count %u differs from the %s store's %u pages",
                        c.page_count, store->backend != NULL ? store->backend : "page", store->page_count);
    }
    layout l = layout_of(&c);
    if (size < l.total) {
        return slc__log(log, SLC_LOG_ERROR, SLC_E_BLOCK_TOO_SMALL,
                        "pool: memory of %zu bytes is smaller than the %zu bytes required", size, l.total);
    }
    unsigned char *base = mem;
    memset(base, 0, SLC_POOL_HEADER_SIZE);
    slc_pool *pool = &((pool_slot *)mem)->p;
    pool->parts = (partition_rec *)(void *)(base + POOL_RECORD_SIZE);
    pool->pages = (page_rec *)(void *)(base + l.pages);
    pool->chunk_map = (uint32_t *)(void *)(base + l.chunks);
    pool->buckets = c.eviction == SLC_EVICTION_PRIORITY ? (bucket_table *)(void *)(base + l.buckets) : NULL;
    pool->heap = c.eviction == SLC_EVICTION_PREDICT ? (heap_rec *)(void *)(base + l.heap) : NULL;
    pool->hist = c.eviction == SLC_EVICTION_PREDICT ? (chunk_hist *)(void *)(base + l.hist) : NULL;
    pool->log = (log_rec *)(void *)(base + l.log);
    pool->store = *store;
    if (log != NULL) {
        pool->logger = *log;
    }
    pool->page_count = c.page_count;
    pool->max_chunks = c.max_chunks;
    pool->frames_in_flight = c.frames_in_flight;
    pool->log_capacity = c.log_capacity;
    pool->partition_count = c.partition_count;
    pool->eviction = c.eviction;

    uint32_t first = 0;
    for (uint32_t pi = 0; pi < c.partition_count; pi++) {
        partition_rec *part = &pool->parts[pi];
        const char *name = SLC_PROFILE_PARTITION_DEFAULT_NAME;
        uint32_t count = c.default_pages;
        if (desc != NULL && pi < desc->partition_count) {
            name = desc->partitions[pi].name;
            count = desc->partitions[pi].page_count;
        }
        memcpy(part->name, name, slc__strnlen(name, SLC_NAME_MAX - 1));
        part->first = first;
        part->count = count;
        part->free_head = first;
        part->free_count = count;
        part->head = NONE;
        part->tail = NONE;
        for (uint32_t i = first; i < first + count; i++) {
            page_rec *p = &pool->pages[i];
            memset(p, 0, sizeof *p);
            p->chunk = NONE;
            p->generation = 1;
            p->prev = NONE;
            p->next = i + 1 < first + count ? i + 1 : NONE;
            p->partition = (uint16_t)pi;
            p->state = SLC_PAGE_FREE;
        }
        first += count;
    }
    memset(pool->chunk_map, 0xFF, (size_t)SLC_POOL_CHUNK_RECORD_SIZE * c.max_chunks);
    if (pool->buckets != NULL) {
        for (uint32_t ti = 0; ti < c.partition_count * (c.frames_in_flight + 1u); ti++) {
            bucket_table *t = &pool->buckets[ti];
            memset(t, 0, sizeof *t);
            memset(t->head, 0xFF, sizeof t->head);
        }
    }
    if (pool->heap != NULL) {
        memset(pool->heap, 0, (size_t)SLC_POOL_HEAP_RECORD_SIZE * c.page_count);
        memset(pool->hist, 0, (size_t)SLC_POOL_HISTORY_RECORD_SIZE * c.max_chunks);
    }
    memset(pool->log, 0, (size_t)SLC_POOL_LOG_RECORD_SIZE * c.log_capacity);
    *out = pool;
    return SLC_OK;
}

/* --- the recency list, the free stack and the buckets --------------------- */

static void list_unlink(slc_pool *pool, partition_rec *part, uint32_t i)
{
    page_rec *p = &pool->pages[i];
    if (p->prev != NONE) {
        pool->pages[p->prev].next = p->next;
    } else {
        part->head = p->next;
    }
    if (p->next != NONE) {
        pool->pages[p->next].prev = p->prev;
    } else {
        part->tail = p->prev;
    }
    p->prev = NONE;
    p->next = NONE;
    part->list_count--;
}

static void list_append(slc_pool *pool, partition_rec *part, uint32_t i)
{
    page_rec *p = &pool->pages[i];
    p->prev = part->tail;
    p->next = NONE;
    if (part->tail != NONE) {
        pool->pages[part->tail].next = i;
    } else {
        part->head = i;
    }
    part->tail = i;
    part->list_count++;
}

static uint32_t bucket_of(const page_rec *p) { return (uint32_t)p->priority * SLC_LODS_MAX + p->lod; }

/* The index of the lowest set bit of x, which is not 0. The same answer on
 * every architecture; the builtin is one instruction where the target has
 * one (and a libgcc call where it has not). */
static uint32_t lowest_bit(uint64_t x)
{
#if defined(__GNUC__) || defined(__clang__)
    return (uint32_t)__builtin_ctzll(x);
#else
    uint32_t n = 0;
    while ((x & 1u) == 0) { /* at most 63 steps */
        x >>= 1;
        n++;
    }
    return n;
#endif
}

/* The table that holds page i of partition pi while it is bucketed: table
 * 0 if its last use is safe, else that of its last-used frame. */
static bucket_table *table_of(const slc_pool *pool, const page_rec *p)
{
    uint32_t slot = p->last_used <= pool->safe ? 0u : 1u + (uint32_t)(p->last_used % pool->frames_in_flight);
    return &pool->buckets[(size_t)p->partition * (pool->frames_in_flight + 1u) + slot];
}

static void bucket_mark(bucket_table *t, uint32_t b)
{
    t->words[b / 64u] |= (uint64_t)1 << (b % 64u);
    t->summary |= (uint64_t)1 << (b / 64u);
}

/* Appends page i at the most recently used end of its bucket, in the table
 * its last use names. */
static void bucket_append(slc_pool *pool, partition_rec *part, uint32_t i)
{
    page_rec *p = &pool->pages[i];
    bucket_table *t = table_of(pool, p);
    uint32_t b = bucket_of(p);
    uint32_t h = t->head[b];
    if (h == NONE) {
        t->head[b] = i;
        p->prev = i;
        p->next = i;
        bucket_mark(t, b);
    } else {
        uint32_t tail = pool->pages[h].prev;
        p->prev = tail;
        p->next = h;
        pool->pages[tail].next = i;
        pool->pages[h].prev = i;
    }
    p->flags |= PAGE_IN_BUCKET;
    part->bucketed++;
}

/* Takes page i out of its bucket; its priority, lod and last use must be
 * those it was appended with (they name the bucket and the table). */
static void bucket_unlink(slc_pool *pool, partition_rec *part, uint32_t i)
{
    page_rec *p = &pool->pages[i];
    bucket_table *t = table_of(pool, p);
    uint32_t b = bucket_of(p);
    if (p->next == i) {
        t->head[b] = NONE;
        t->words[b / 64u] &= ~((uint64_t)1 << (b % 64u));
        if (t->words[b / 64u] == 0) {
            t->summary &= ~((uint64_t)1 << (b / 64u));
        }
    } else {
        pool->pages[p->prev].next = p->next;
        pool->pages[p->next].prev = p->prev;
        if (t->head[b] == i) {
            t->head[b] = p->next;
        }
    }
    p->prev = NONE;
    p->next = NONE;
    p->flags &= (uint8_t)~PAGE_IN_BUCKET;
    part->bucketed--;
}

/* The head of the lowest non-empty bucket of partition pi's safe table, or
 * NONE. O(1). */
static uint32_t bucket_first(const slc_pool *pool, uint32_t pi)
{
    const bucket_table *t = &pool->buckets[(size_t)pi * (pool->frames_in_flight + 1u)];
    if (t->summary == 0) {
        return NONE;
    }
    uint32_t w = lowest_bit(t->summary);
    return t->head[w * 64u + lowest_bit(t->words[w])];
}

/* The safe frame has just become frame: every list of that frame's table
 * goes onto the tail of the same bucket of the safe table, and the frame's
 * table is left empty for frame + frames_in_flight. O(partitions + the
 * buckets those lists are in); no page but a list's two ends is touched. */
static void buckets_frame_safe(slc_pool *pool, uint64_t frame)
{
    const uint32_t per = pool->frames_in_flight + 1u;
    const uint32_t slot = 1u + (uint32_t)(frame % pool->frames_in_flight);
    for (uint32_t pi = 0; pi < pool->partition_count; pi++) {
        bucket_table *safe = &pool->buckets[(size_t)pi * per];
        bucket_table *from = &pool->buckets[(size_t)pi * per + slot];
        uint64_t summary = from->summary;
        while (summary != 0) {
            uint32_t w = lowest_bit(summary);
            summary &= summary - 1u;
            uint64_t word = from->words[w];
            from->words[w] = 0;
            while (word != 0) {
                uint32_t b = w * 64u + lowest_bit(word);
                word &= word - 1u;
                uint32_t h = from->head[b];
                uint32_t sh = safe->head[b];
                from->head[b] = NONE;
                if (sh == NONE) {
                    safe->head[b] = h;
                    bucket_mark(safe, b);
                } else {
                    /* Two circles become one: safe's tail -> h ... from's tail -> sh. */
                    uint32_t st = pool->pages[sh].prev;
                    uint32_t ft = pool->pages[h].prev;
                    pool->pages[st].next = h;
                    pool->pages[h].prev = st;
                    pool->pages[ft].next = sh;
                    pool->pages[sh].prev = ft;
                }
            }
        }
        from->summary = 0;
    }
}

/* --- SLC_EVICTION_PREDICT: the heap and the chunk history ---------------- */

/* The frame page p's chunk is predicted back at, in the current frame: its
 * last use plus the chunk's last gap between runs of use, or plus
 * SLC_POOL_PREDICT_HORIZON when it has no gap yet or has been away longer
 * than twice its gap (overdue: the gap no longer says anything). */
static uint64_t predict_key(const slc_pool *pool, const page_rec *p)
{
    uint64_t gap = pool->hist[p->chunk].gap;
    if (gap == 0 || pool->frame - p->last_used > 2u * gap) {
        gap = SLC_POOL_PREDICT_HORIZON;
    }
    return p->last_used + gap;
}

/* Two heaps per partition over the pages safe to evict: VICTIMS, keyed by
 * the prediction, the better victim (predicted back later, then the
 * less recently used) on top, its place in page.prev; DUE, the pages of VICTIMS whose
 * prediction still comes from their gap, keyed by the first frame at which
 * they are overdue, earliest on top, its place in page.next. */
enum { VICTIMS, DUE };

static int heap_before(int which, const heap_rec *a, const heap_rec *b)
{
    if (a->key != b->key) {
        return which == VICTIMS ? a->key > b->key : a->key < b->key;
    }
    return a->order < b->order;
}

static heap_rec *heap_of(slc_pool *pool, partition_rec *part, int which, uint32_t **count)
{
    *count = which == VICTIMS ? &part->bucketed : &part->due;
    return pool->heap + (which == VICTIMS ? 0u : pool->page_count) + part->first;
}

static void heap_place(slc_pool *pool, int which, heap_rec *h, uint32_t at, heap_rec r)
{
    h[at] = r;
    if (which == VICTIMS) {
        pool->pages[HEAP_PAGE(r)].prev = at;
    } else {
        pool->pages[HEAP_PAGE(r)].next = at;
    }
}

static void heap_sift_up(slc_pool *pool, int which, heap_rec *h, uint32_t at)
{
    heap_rec r = h[at];
    while (at > 0) {
        uint32_t up = (at - 1) / HEAP_ARITY;
        if (!heap_before(which, &r, &h[up])) {
            break;
        }
        heap_place(pool, which, h, at, h[up]);
        at = up;
    }
    heap_place(pool, which, h, at, r);
}

static void heap_sift_down(slc_pool *pool, int which, heap_rec *h, uint32_t n, uint32_t at)
{
    heap_rec r = h[at];
    for (;;) {
        uint32_t first = HEAP_ARITY * at + 1; /* n <= 2^24: no overflow */
        if (first >= n) {
            break;
        }
        uint32_t child = first;
        uint32_t last = first + HEAP_ARITY < n ? first + HEAP_ARITY : n;
        for (uint32_t c = first + 1; c < last; c++) {
            if (heap_before(which, &h[c], &h[child])) {
                child = c;
            }
        }
        if (!heap_before(which, &h[child], &r)) {
            break;
        }
        heap_place(pool, which, h, at, h[child]);
        at = child;
    }
    heap_place(pool, which, h, at, r);
}

static void heap_insert(slc_pool *pool, partition_rec *part, int which, heap_rec r)
{
    uint32_t *n;
    heap_rec *h = heap_of(pool, part, which, &n);
    uint32_t at = (*n)++;
    h[at] = r;
    heap_sift_up(pool, which, h, at);
}

static void heap_delete(slc_pool *pool, partition_rec *part, int which, uint32_t at)
{
    uint32_t *n;
    heap_rec *h = heap_of(pool, part, which, &n);
    uint32_t last = --*n;
    if (at == last) {
        return;
    }
    heap_place(pool, which, h, at, h[last]);
    if (at > 0 && heap_before(which, &h[at], &h[(at - 1) / HEAP_ARITY])) {
        heap_sift_up(pool, which, h, at);
    } else {
        heap_sift_down(pool, which, h, last, at);
    }
}

/* Page i, safe to evict, into VICTIMS, and into DUE while its gap holds. */
static void heap_push(slc_pool *pool, partition_rec *part, uint32_t i)
{
    page_rec *p = &pool->pages[i];
    const uint64_t key = predict_key(pool, p), gap = pool->hist[p->chunk].gap;
    const uint64_t order = (pool->heap_entered++ << HEAP_PAGE_BITS) | i; /* the count's top 24 bits drop */
    p->flags |= PAGE_IN_HEAP;
    p->next = NONE;
    heap_insert(pool, part, VICTIMS, (heap_rec){key, order});
    if (gap != 0 && pool->frame - p->last_used <= 2u * gap) {
        p->flags |= PAGE_DUE;
        heap_insert(pool, part, DUE, (heap_rec){p->last_used + 2u * gap + 1u, order});
    }
}

static void heap_remove(slc_pool *pool, partition_rec *part, uint32_t i)
{
    page_rec *p = &pool->pages[i];
    if (p->flags & PAGE_DUE) {
        heap_delete(pool, part, DUE, p->next);
    }
    heap_delete(pool, part, VICTIMS, p->prev);
    p->prev = NONE;
    p->next = NONE;
    p->flags &= (uint8_t)~(PAGE_IN_HEAP | PAGE_DUE);
}

/* The pages of part that became overdue by the current frame take the
 * horizon's prediction: each leaves DUE and moves in VICTIMS. */
static void heap_age(slc_pool *pool, partition_rec *part)
{
    const heap_rec *due = pool->heap + pool->page_count + part->first;
    while (part->due > 0 && due[0].key <= pool->frame) {
        const heap_rec r = due[0];
        page_rec *p = &pool->pages[HEAP_PAGE(r)];
        heap_delete(pool, part, DUE, 0);
        p->flags &= (uint8_t)~PAGE_DUE;
        p->next = NONE;
        heap_delete(pool, part, VICTIMS, p->prev);
        heap_insert(pool, part, VICTIMS, (heap_rec){p->last_used + SLC_POOL_PREDICT_HORIZON, r.order});
    }
}

/* A use of chunk in the current frame, last used at frame last (0: never):
 * a use after a frame without one starts a new run, and the frames since
 * the last use are the chunk's gap. Frames count modulo 2^32 here. */
static void predict_use(slc_pool *pool, uint32_t chunk, uint32_t last)
{
    uint32_t d = (uint32_t)pool->frame - last;
    if (last != 0 && d > 1u) {
        pool->hist[chunk].gap = d;
    }
}

/* Pages whose last use became safe since they were listed move from the
 * head of the recency list (ordered by last use) into the heaps, in list
 * order; then those overdue by now take the horizon's prediction. Called
 * by acquire before it asks for a victim. */
static void predict_advance(slc_pool *pool, partition_rec *part)
{
    while (part->head != NONE && pool->pages[part->head].last_used <= pool->safe) {
        uint32_t i = part->head;
        list_unlink(pool, part, i);
        heap_push(pool, part, i);
    }
    heap_age(pool, part);
}

/* --- the policies ---------------------------------------------------------- */

/* Each policy keeps the unpinned resident pages of a partition in its own
 * structure, and answers four calls: add (the page became an unpinned
 * resident page at the most recently used end, its last use the newest
 * begun frame), remove (before the page's priority or last use changes), the
 * victim, and the safe frame's advance. */

/* Page i becomes evictable once its last use is safe (see "Eviction" in
 * pool.h); p->last_used and p->priority are already its new ones. */
static void evictable_add(slc_pool *pool, partition_rec *part, uint32_t i)
{
    switch (pool->eviction) {
    case SLC_EVICTION_PRIORITY:
        bucket_append(pool, part, i);
        break;
    default:
        list_append(pool, part, i);
        break;
    }
}

/* Takes an unpinned resident page out of its policy's structure. */
static void evictable_remove(slc_pool *pool, partition_rec *part, uint32_t i)
{
    switch (pool->eviction) {
    case SLC_EVICTION_PREDICT:
        if (pool->pages[i].flags & PAGE_IN_HEAP) {
            heap_remove(pool, part, i);
        } else {
            list_unlink(pool, part, i);
        }
        break;
    case SLC_EVICTION_PRIORITY:
        bucket_unlink(pool, part, i);
        break;
    default:
        list_unlink(pool, part, i);
        break;
    }
}

/* Whether a use of page i now with this priority would leave every order as
 * it is, so touch need not move it: LRU's tail is already the newest. The
 * priority policy always moves the page (O(1) either way). */
static bool evictable_is_newest(const slc_pool *pool, const partition_rec *part, uint32_t i)
{
    switch (pool->eviction) {
    case SLC_EVICTION_PRIORITY:
        return false;
    default:
        return part->tail == i;
    }
}

/* The page to evict in part, or NONE (see "Eviction" in pool.h). */
static uint32_t victim(const slc_pool *pool, const partition_rec *part)
{
    switch (pool->eviction) {
    case SLC_EVICTION_PRIORITY:
        return bucket_first(pool, (uint32_t)(part - pool->parts));
    case SLC_EVICTION_PREDICT: /* after predict_advance */
        return pool->heap != NULL && part->bucketed > 0 ? HEAP_PAGE(pool->heap[part->first]) : NONE;
    default: {
        uint32_t head = part->head;
        return head != NONE && pool->pages[head].last_used <= pool->safe ? head : NONE;
    }
    }
}

/* begin_frame moved the safe frame from before to after (after = before + 1,
 * or equal). */
static void evictable_safe_advanced(slc_pool *pool, uint64_t before, uint64_t after)
{
    switch (pool->eviction) {
    case SLC_EVICTION_PRIORITY:
        for (uint64_t f = before + 1u; f <= after; f++) {
            buckets_frame_safe(pool, f);
        }
        break;
    default:
        break; /* LRU's list is ordered by last use: its head is the first to become safe */
    }
}

static void bump_generation(page_rec *p)
{
    p->generation++;
    if (p->generation == 0) {
        p->generation = 1; /* {index, 0} is never valid */
    }
}

static void put_le32(unsigned char *b, uint32_t v)
{
    b[0] = (unsigned char)v;
    b[1] = (unsigned char)(v >> 8);
    b[2] = (unsigned char)(v >> 16);
    b[3] = (unsigned char)(v >> 24);
}

static void log_change(slc_pool *pool, uint32_t evicted, uint32_t page, uint32_t loaded, uint32_t partition)
{
    log_rec *r = &pool->log[pool->log_next];
    r->frame = pool->frame;
    r->evicted = evicted;
    r->page = page;
    r->loaded = loaded;
    r->partition = partition;
    pool->log_next = pool->log_next + 1 == pool->log_capacity ? 0 : pool->log_next + 1;
    unsigned char b[SLC_POOL_LOG_RECORD_SIZE];
    put_le32(b, (uint32_t)pool->frame);
    put_le32(b + 4, (uint32_t)(pool->frame >> 32));
    put_le32(b + 8, evicted);
    put_le32(b + 12, page);
    put_le32(b + 16, loaded);
    put_le32(b + 20, partition);
    pool->log_hash = XXH3_64bits_withSeed(b, sizeof b, pool->log_hash);
    pool->log_count++;
}

/* --- the calls ------------------------------------------------------------ */

/* The page a handle names, if the handle is current. */
static slc_status resolve(slc_pool *pool, slc_page page, page_rec **out)
{
    if (page.index >= pool->page_count) {
        return slc__log(&pool->logger, SLC_LOG_ERROR, SLC_E_INVALID, "pool: page %u does not exist (%u pages)",
                        page.index, pool->page_count);
    }
    page_rec *p = &pool->pages[page.index];
    if (p->generation != page.generation || p->state == SLC_PAGE_FREE) {
        pool->stale++;
        return SLC_E_STALE;
    }
    *out = p;
    return SLC_OK;
}

slc_status slc_pool_acquire(slc_pool *pool, const slc_pool_request *req, slc_page *out)
{
    SLC_ASSERT(pool != NULL && req != NULL && out != NULL);
    out->index = NONE;
    out->generation = 0;
    const uint32_t chunk = req->chunk.index;
    if (chunk >= pool->max_chunks) {
        return slc__log(&pool->logger, SLC_LOG_ERROR, SLC_E_INVALID, "pool: chunk %u is out of range (max_chunks %u)",
                        chunk, pool->max_chunks);
    }
    if (req->partition.index >= pool->partition_count) {
        return slc__log(&pool->logger, SLC_LOG_ERROR, SLC_E_INVALID, "pool: partition %u does not exist (%u partitions)",
                        (unsigned)req->partition.index, pool->partition_count);
    }
    if (req->lod >= SLC_LODS_MAX) {
        return slc__log(&pool->logger, SLC_LOG_ERROR, SLC_E_INVALID, "pool: chunk %u: lod %u is not below %u", chunk,
                        (unsigned)req->lod, SLC_LODS_MAX);
    }
    if (pool->chunk_map[chunk] != NONE) {
        return slc__log(&pool->logger, SLC_LOG_ERROR, SLC_E_INVALID, "pool: chunk %u already has page %u", chunk,
                        pool->chunk_map[chunk]);
    }
    partition_rec *part = &pool->parts[req->partition.index];
    uint32_t i, evicted = NONE;
    if (part->free_head != NONE) {
        i = part->free_head;
        part->free_head = pool->pages[i].next;
        pool->pages[i].next = NONE;
        part->free_count--;
        uint32_t used = part->count - part->free_count;
        if (used > part->peak_used) {
            part->peak_used = used;
        }
        if (++pool->used > pool->peak_used) {
            pool->peak_used = pool->used;
        }
    } else {
        if (pool->heap != NULL) {
            predict_advance(pool, part);
        }
        i = victim(pool, part);
        if (i == NONE) {
            part->busy++;
            pool->busy++;
            return SLC_E_POOL_BUSY;
        }
        evictable_remove(pool, part, i);
        evicted = pool->pages[i].chunk;
        pool->chunk_map[evicted] = NONE;
        if (pool->hist != NULL) {
            pool->hist[evicted].last = (uint32_t)pool->pages[i].last_used;
        }
        bump_generation(&pool->pages[i]);
        part->evictions++;
        pool->evictions++;
    }
    if (pool->hist != NULL) {
        predict_use(pool, chunk, pool->hist[chunk].last);
    }
    page_rec *p = &pool->pages[i];
    p->state = SLC_PAGE_LOADING;
    p->chunk = chunk;
    p->lod = req->lod;
    p->priority = req->priority;
    p->last_used = pool->frame;
    p->pins = 0;
    p->flags = 0;
    pool->chunk_map[chunk] = i;
    part->loading++;
    part->acquires++;
    pool->acquires++;
    log_change(pool, evicted, i, chunk, req->partition.index);
    out->index = i;
    out->generation = p->generation;
    return SLC_OK;
}

slc_status slc_pool_write_begin(slc_pool *pool, slc_page page, void **dst)
{
    SLC_ASSERT(pool != NULL && dst != NULL);
    *dst = NULL;
    page_rec *p = NULL;
    slc_status s = resolve(pool, page, &p);
    if (s != SLC_OK) {
        return s;
    }
    if (p->state != SLC_PAGE_LOADING) {
        return slc__log(&pool->logger, SLC_LOG_ERROR, SLC_E_INVALID,
                        "pool: page %u (chunk %u) is resident: only a loading page is written", page.index, p->chunk);
    }
    if (p->flags & PAGE_WRITING) {
        return slc__log(&pool->logger, SLC_LOG_ERROR, SLC_E_INVALID, "pool: page %u (chunk %u): a write is already open",
                        page.index, p->chunk);
    }
    s = pool->store.ops->write_begin(pool->store.self, page.index, dst);
    if (s != SLC_OK) {
        *dst = NULL;
        return s;
    }
    p->flags |= PAGE_WRITING;
    return SLC_OK;
}

slc_status slc_pool_write_end(slc_pool *pool, slc_page page, size_t bytes)
{
    SLC_ASSERT(pool != NULL);
    page_rec *p = NULL;
    slc_status s = resolve(pool, page, &p);
    if (s != SLC_OK) {
        return s;
    }
    if (p->state != SLC_PAGE_LOADING || !(p->flags & PAGE_WRITING)) {
        return slc__log(&pool->logger, SLC_LOG_ERROR, SLC_E_INVALID,
                        "pool: page %u (chunk %u): no write is open (write_begin first)", page.index, p->chunk);
    }
    if (bytes > pool->store.page_size) {
        return slc__log(&pool->logger, SLC_LOG_ERROR, SLC_E_INVALID,
                        "pool: page %u (chunk %u): %zu bytes written; a page holds %u", page.index, p->chunk, bytes,
                        pool->store.page_size);
    }
    s = pool->store.ops->write_end(pool->store.self, page.index, bytes);
    if (s != SLC_OK) {
        return s;
    }
    partition_rec *part = &pool->parts[p->partition];
    p->flags = 0;
    p->state = SLC_PAGE_RESIDENT;
    p->last_used = pool->frame;
    part->loading--;
    if (p->pins > 0) {
        part->pinned++;
    } else {
        evictable_add(pool, part, page.index);
    }
    return SLC_OK;
}

slc_status slc_pool_release(slc_pool *pool, slc_page page)
{
    SLC_ASSERT(pool != NULL);
    page_rec *p = NULL;
    slc_status s = resolve(pool, page, &p);
    if (s != SLC_OK) {
        return s;
    }
    partition_rec *part = &pool->parts[p->partition];
    if (p->pins > 0) {
        return slc__log(&pool->logger, SLC_LOG_ERROR, SLC_E_INVALID,
                        "pool: page %u (chunk %u) is pinned: unpin it before releasing it", page.index, p->chunk);
    }
    if (p->state == SLC_PAGE_LOADING) {
        if (p->flags & PAGE_WRITING) {
            /* An open write is abandoned: the store frees what write_begin
             * took (a staging slot) without copying anything. Its status is
             * not the caller's concern: the page's bytes no longer matter. */
            (void)pool->store.ops->write_end(pool->store.self, page.index, 0);
        }
        part->loading--;
    } else {
        if (p->last_used > pool->safe) {
            part->busy++;
            pool->busy++;
            return SLC_E_POOL_BUSY;
        }
        evictable_remove(pool, part, page.index);
    }
    log_change(pool, p->chunk, page.index, NONE, p->partition);
    pool->chunk_map[p->chunk] = NONE;
    if (pool->hist != NULL) {
        pool->hist[p->chunk].last = (uint32_t)p->last_used;
    }
    bump_generation(p);
    p->state = SLC_PAGE_FREE;
    p->chunk = NONE;
    p->flags = 0;
    p->prev = NONE;
    p->next = part->free_head;
    part->free_head = page.index;
    part->free_count++;
    pool->used--;
    part->releases++;
    pool->releases++;
    return SLC_OK;
}

static void fill_info(const slc_pool *pool, uint32_t i, slc_page_info *out)
{
    const page_rec *p = &pool->pages[i];
    out->page.index = i;
    out->page.generation = p->generation;
    out->state = p->state == SLC_PAGE_RESIDENT && p->pins > 0 ? SLC_PAGE_PINNED : (slc_page_state)p->state;
    out->chunk.index = p->chunk;
    out->partition.index = p->partition;
    out->pins = p->pins;
    out->lod = p->lod;
    out->priority = p->priority;
    out->last_used = p->last_used;
    pool->store.ops->locate(pool->store.self, i, &out->location);
}

slc_status slc_pool_lookup(const slc_pool *pool, slc_chunk_id id, slc_page_info *out)
{
    SLC_ASSERT(pool != NULL && out != NULL);
    const uint32_t chunk = id.index;
    if (chunk >= pool->max_chunks) {
        out->page.index = NONE;
        out->page.generation = 0;
        out->state = SLC_PAGE_FREE;
        return slc__log(&pool->logger, SLC_LOG_ERROR, SLC_E_INVALID, "pool: chunk %u is out of range (max_chunks %u)",
                        chunk, pool->max_chunks);
    }
    uint32_t i = pool->chunk_map[chunk];
    if (i == NONE) {
        out->page.index = NONE;
        out->page.generation = 0;
        out->state = SLC_PAGE_FREE;
        return SLC_E_NOT_FOUND;
    }
    fill_info(pool, i, out);
    return SLC_OK;
}

slc_status slc_pool_touch(slc_pool *pool, slc_page page, uint8_t priority)
{
    SLC_ASSERT(pool != NULL);
    page_rec *p = NULL;
    slc_status s = resolve(pool, page, &p);
    if (s != SLC_OK) {
        return s;
    }
    if (!pool->frame_open) {
        return slc__log(&pool->logger, SLC_LOG_ERROR, SLC_E_INVALID,
                        "pool: page %u (chunk %u) touched outside a frame: begin one first", page.index, p->chunk);
    }
    if (p->state == SLC_PAGE_LOADING) {
        return slc__log(&pool->logger, SLC_LOG_ERROR, SLC_E_INVALID,
                        "pool: page %u (chunk %u) is still loading: a frame cannot use it", page.index, p->chunk);
    }
    if (pool->hist != NULL) {
        predict_use(pool, p->chunk, (uint32_t)p->last_used);
    }
    partition_rec *part = &pool->parts[p->partition];
    if (p->pins > 0 || evictable_is_newest(pool, part, page.index)) {
        p->last_used = pool->frame;
        p->priority = priority;
        return SLC_OK;
    }
    evictable_remove(pool, part, page.index); /* before the use changes: it names the bucket and table */
    p->last_used = pool->frame;
    p->priority = priority;
    evictable_add(pool, part, page.index);
    return SLC_OK;
}

slc_status slc_pool_pin(slc_pool *pool, slc_page page)
{
    SLC_ASSERT(pool != NULL);
    page_rec *p = NULL;
    slc_status s = resolve(pool, page, &p);
    if (s != SLC_OK) {
        return s;
    }
    if (p->pins == UINT16_MAX) {
        return slc__log(&pool->logger, SLC_LOG_ERROR, SLC_E_CAPACITY, "pool: page %u (chunk %u) already holds %u pins",
                        page.index, p->chunk, (unsigned)UINT16_MAX);
    }
    if (p->state == SLC_PAGE_RESIDENT && p->pins == 0) {
        partition_rec *part = &pool->parts[p->partition];
        evictable_remove(pool, part, page.index);
        part->pinned++;
    }
    p->pins++;
    return SLC_OK;
}

slc_status slc_pool_unpin(slc_pool *pool, slc_page page)
{
    SLC_ASSERT(pool != NULL);
    page_rec *p = NULL;
    slc_status s = resolve(pool, page, &p);
    if (s != SLC_OK) {
        return s;
    }
    if (p->pins == 0) {
        return slc__log(&pool->logger, SLC_LOG_ERROR, SLC_E_INVALID, "pool: page %u (chunk %u) holds no pin", page.index,
                        p->chunk);
    }
    p->pins--;
    if (p->pins == 0 && p->state == SLC_PAGE_RESIDENT) {
        partition_rec *part = &pool->parts[p->partition];
        part->pinned--;
        p->last_used = pool->frame;
        evictable_add(pool, part, page.index);
    }
    return SLC_OK;
}

slc_status slc_pool_begin_frame(slc_pool *pool, uint64_t *frame)
{
    SLC_ASSERT(pool != NULL);
    if (pool->frame_open) {
        return slc__log(&pool->logger, SLC_LOG_ERROR, SLC_E_INVALID,
                        "pool: frame %llu is open: end it before beginning another", (unsigned long long)pool->frame);
    }
    uint64_t retired = pool->store.ops->retired(pool->store.self);
    if (retired > pool->submitted) {
        retired = pool->submitted; /* a store cannot retire what was never submitted */
    }
    if (pool->submitted - retired >= pool->frames_in_flight) {
        pool->frames_refused++;
        return SLC_E_FRAMES_IN_FLIGHT;
    }
    pool->frame++;
    pool->frame_open = 1;
    /* The gate above guarantees retired >= frame - frames_in_flight. */
    uint64_t before = pool->safe;
    pool->safe = pool->frame >= pool->frames_in_flight ? pool->frame - pool->frames_in_flight : 0;
    evictable_safe_advanced(pool, before, pool->safe);
    if (frame != NULL) {
        *frame = pool->frame;
    }
    return SLC_OK;
}

slc_status slc_pool_end_frame(slc_pool *pool)
{
    SLC_ASSERT(pool != NULL);
    if (!pool->frame_open) {
        return slc__log(&pool->logger, SLC_LOG_ERROR, SLC_E_INVALID, "pool: no frame is open");
    }
    slc_status s = pool->store.ops->submit(pool->store.self, pool->frame);
    if (s != SLC_OK) {
        return slc__log(&pool->logger, SLC_LOG_ERROR, s, "pool: the %s store could not submit frame %llu; it stays open",
                        pool->store.backend != NULL ? pool->store.backend : "page", (unsigned long long)pool->frame);
    }
    pool->frame_open = 0;
    pool->submitted = pool->frame;
    return SLC_OK;
}

slc_status slc_pool_scan_partition(const slc_pool *pool, const char *name, slc_partition *out)
{
    SLC_ASSERT(pool != NULL && name != NULL && out != NULL);
    for (uint32_t i = 0; i < pool->partition_count; i++) {
        if (strncmp(pool->parts[i].name, name, SLC_NAME_MAX) == 0) {
            out->index = (uint16_t)i;
            return SLC_OK;
        }
    }
    out->index = 0xFFFFu;
    return SLC_E_NOT_FOUND;
}

void slc_pool_get_page(const slc_pool *pool, uint32_t index, slc_page_info *out)
{
    SLC_ASSERT(pool != NULL && out != NULL);
    SLC_ASSERT(index < pool->page_count);
    fill_info(pool, index, out);
}

void slc_pool_get_partition_stats(const slc_pool *pool, slc_partition partition, slc_pool_partition_stats *out)
{
    SLC_ASSERT(pool != NULL && out != NULL);
    SLC_ASSERT(partition.index < pool->partition_count);
    const partition_rec *part = &pool->parts[partition.index];
    memset(out, 0, sizeof *out);
    memcpy(out->name, part->name, SLC_NAME_MAX);
    out->id = partition;
    out->first_page = part->first;
    out->page_count = part->count;
    out->free = part->free_count;
    out->loading = part->loading;
    out->resident = part->list_count + part->bucketed;
    out->pinned = part->pinned;
    out->peak_used = part->peak_used;
    out->acquires = part->acquires;
    out->evictions = part->evictions;
    out->releases = part->releases;
    out->busy = part->busy;
}

void slc_pool_get_stats(const slc_pool *pool, slc_pool_stats *out)
{
    SLC_ASSERT(pool != NULL && out != NULL);
    memset(out, 0, sizeof *out);
    out->page_count = pool->page_count;
    for (uint32_t i = 0; i < pool->partition_count; i++) {
        const partition_rec *part = &pool->parts[i];
        out->free += part->free_count;
        out->loading += part->loading;
        out->resident += part->list_count + part->bucketed;
        out->pinned += part->pinned;
    }
    out->peak_used = pool->peak_used;
    out->partition_count = pool->partition_count;
    out->frame = pool->frame;
    out->submitted = pool->submitted;
    out->safe_frame = pool->safe;
    out->acquires = pool->acquires;
    out->evictions = pool->evictions;
    out->releases = pool->releases;
    out->busy = pool->busy;
    out->stale = pool->stale;
    out->frames_refused = pool->frames_refused;
    out->log_count = pool->log_count;
    out->log_hash = pool->log_hash;
}

size_t slc_pool_walk_log(const slc_pool *pool, uint64_t first, slc_pool_log_entry *out, size_t cap)
{
    SLC_ASSERT(pool != NULL && (out != NULL || cap == 0));
    uint64_t held = pool->log_count < pool->log_capacity ? pool->log_count : pool->log_capacity;
    uint64_t seq = pool->log_count - held;
    if (first > seq) {
        seq = first;
    }
    size_t n = 0;
    for (; seq < pool->log_count && n < cap; seq++, n++) {
        /* The slot of entry seq, counted back from the next slot to write. */
        uint64_t back = pool->log_count - seq; /* 1 .. held <= log_capacity */
        uint32_t slot = (uint32_t)((pool->log_next + pool->log_capacity - back) % pool->log_capacity);
        const log_rec *r = &pool->log[slot];
        out[n].seq = seq;
        out[n].frame = r->frame;
        out[n].evicted.index = r->evicted;
        out[n].page = r->page;
        out[n].loaded.index = r->loaded;
        out[n].partition = r->partition;
    }
    return n;
}

/* --- the invariant checker ------------------------------------------------ */

/* A partition's heap: bucketed entries, each naming a page of the partition
 * in the heap at that place, keyed as predict_key says, no entry a better
 * victim than its parent. */
static bool check_heap(const slc_pool *pool, const partition_rec *part)
{
    if (pool->heap == NULL || pool->hist == NULL) {
        return false;
    }
    const heap_rec *h = pool->heap + part->first, *d = pool->heap + pool->page_count + part->first;
    for (uint32_t at = 0; at < part->bucketed; at++) {
        const uint32_t i = HEAP_PAGE(h[at]);
        if (i < part->first || i >= part->first + part->count) {
            return false;
        }
        const page_rec *p = &pool->pages[i];
        const uint64_t gap = pool->hist[p->chunk].gap;
        const int due = (p->flags & PAGE_DUE) != 0;
        if (!(p->flags & PAGE_IN_HEAP) || p->prev != at || p->last_used > pool->safe ||
            h[at].key != p->last_used + (due ? gap : SLC_POOL_PREDICT_HORIZON) ||
            (at > 0 && heap_before(VICTIMS, &h[at], &h[(at - 1) / HEAP_ARITY]))) {
            return false;
        }
        if (due && (gap == 0 || p->next >= part->due || d[p->next].order != h[at].order ||
                    d[p->next].key != p->last_used + 2u * gap + 1u)) {
            return false;
        }
    }
    for (uint32_t at = 0; at < part->due; at++) {
        if (HEAP_PAGE(d[at]) < part->first || HEAP_PAGE(d[at]) >= part->first + part->count ||
            !(pool->pages[HEAP_PAGE(d[at])].flags & PAGE_DUE) || (at > 0 && heap_before(DUE, &d[at], &d[(at - 1) / HEAP_ARITY]))) {
            return false;
        }
    }
    return part->due <= part->bucketed;
}

static bool check_partition(const slc_pool *pool, uint32_t pi, uint32_t *mapped)
{
    const partition_rec *part = &pool->parts[pi];
    uint32_t end = part->first + part->count;
    uint32_t free_n = 0, loading = 0, pinned = 0, listed = 0, bucketed = 0;
    for (uint32_t i = part->first; i < end; i++) {
        const page_rec *p = &pool->pages[i];
        bool in_bucket = (p->flags & (PAGE_IN_BUCKET | PAGE_IN_HEAP)) != 0; /* counted alike */
        if (p->partition != pi || p->generation == 0 || p->last_used > pool->frame ||
            (p->flags & ~(PAGE_WRITING | PAGE_IN_BUCKET | PAGE_IN_HEAP | PAGE_DUE)) != 0 ||
            (pool->buckets == NULL && (p->flags & PAGE_IN_BUCKET)) || (pool->heap == NULL && (p->flags & PAGE_IN_HEAP))) {
            return false;
        }
        if (p->state == SLC_PAGE_FREE) {
            if (p->chunk != NONE || p->pins != 0 || p->flags != 0) {
                return false;
            }
            free_n++;
            continue;
        }
        if (p->chunk >= pool->max_chunks || pool->chunk_map[p->chunk] != i) {
            return false;
        }
        (*mapped)++;
        if (p->state == SLC_PAGE_LOADING) {
            if (in_bucket) {
                return false;
            }
            loading++;
        } else if (p->state == SLC_PAGE_RESIDENT) {
            if (p->flags & PAGE_WRITING) {
                return false;
            }
            if (p->pins > 0) {
                if (in_bucket) {
                    return false;
                }
                pinned++;
            } else if (in_bucket) {
                bucketed++;
            } else {
                listed++;
            }
        } else {
            return false;
        }
    }
    if (free_n != part->free_count || loading != part->loading || pinned != part->pinned ||
        listed != part->list_count || bucketed != part->bucketed || part->count - free_n > part->peak_used) {
        return false;
    }
    /* The free stack: only free pages of this partition, free_count of them. */
    uint32_t n = 0;
    for (uint32_t i = part->free_head; i != NONE; i = pool->pages[i].next) {
        if (i < part->first || i >= end || pool->pages[i].state != SLC_PAGE_FREE || ++n > free_n) {
            return false;
        }
    }
    if (n != free_n) {
        return false;
    }
    /* The recency list: linked both ways, unpinned resident pages outside the
     * buckets, ordered by last use. */
    n = 0;
    uint32_t prev = NONE;
    for (uint32_t i = part->head; i != NONE; i = pool->pages[i].next) {
        const page_rec *p = &pool->pages[i];
        if (i < part->first || i >= end || p->state != SLC_PAGE_RESIDENT || p->pins != 0 ||
            (p->flags & (PAGE_IN_BUCKET | PAGE_IN_HEAP)) != 0 || p->prev != prev || ++n > listed) {
            return false;
        }
        if (prev != NONE && pool->pages[prev].last_used > p->last_used) {
            return false;
        }
        prev = i;
    }
    if (n != listed || part->tail != prev) {
        return false;
    }
    if (pool->eviction == SLC_EVICTION_LRU) {
        return bucketed == 0;
    }
    if (pool->eviction == SLC_EVICTION_PREDICT) {
        return check_heap(pool, part);
    }
    /* The bucket tables: each bucket a circular list linked both ways of
     * bucketed pages of its (priority, lod) in the table their last use
     * names, ordered by last use, its bits set iff it is not empty; bucketed
     * pages in all, and none in the recency list. */
    if (pool->buckets == NULL) {
        return false;
    }
    n = 0;
    for (uint32_t ti = 0; ti <= pool->frames_in_flight; ti++) {
        const bucket_table *t = &pool->buckets[(size_t)pi * (pool->frames_in_flight + 1u) + ti];
        for (uint32_t w = 0; w < 64u; w++) {
            if (((t->summary >> w) & 1u) != (w < BUCKET_WORDS && t->words[w] != 0 ? 1u : 0u)) {
                return false;
            }
        }
        for (uint32_t b = 0; b < BUCKETS; b++) {
            uint32_t h = t->head[b];
            if (((t->words[b / 64u] >> (b % 64u)) & 1u) != (h != NONE ? 1u : 0u)) {
                return false;
            }
            if (h == NONE) {
                continue;
            }
            uint32_t i = h;
            do {
                if (i < part->first || i >= end) {
                    return false;
                }
                const page_rec *p = &pool->pages[i];
                if (!(p->flags & PAGE_IN_BUCKET) || bucket_of(p) != b || table_of(pool, p) != t ||
                    p->next >= pool->page_count || pool->pages[p->next].prev != i || ++n > bucketed) {
                    return false;
                }
                if (p->next != h && pool->pages[p->next].last_used < p->last_used) {
                    return false;
                }
                i = p->next;
            } while (i != h);
        }
    }
    return n == bucketed && listed == 0;
}

bool slc_pool_check(const slc_pool *pool)
{
    SLC_ASSERT(pool != NULL);
    if (pool->partition_count == 0 || pool->partition_count > SLC_POOL_PARTITION_MAX ||
        pool->log_next >= pool->log_capacity || pool->submitted + (pool->frame_open ? 1u : 0u) != pool->frame ||
        pool->safe > pool->frame || (pool->buckets == NULL) != (pool->eviction != SLC_EVICTION_PRIORITY) ||
        (pool->heap == NULL) != (pool->eviction != SLC_EVICTION_PREDICT) || (pool->hist == NULL) != (pool->heap == NULL)) {
        return false;
    }
    uint32_t first = 0, mapped = 0, free_total = 0;
    for (uint32_t pi = 0; pi < pool->partition_count; pi++) {
        const partition_rec *part = &pool->parts[pi];
        if (part->first != first || part->count == 0 || part->name[0] == '\0' ||
            part->name[SLC_NAME_MAX - 1] != '\0' || !check_partition(pool, pi, &mapped)) {
            return false;
        }
        first += part->count;
        free_total += part->free_count;
    }
    if (first != pool->page_count || pool->used != pool->page_count - free_total || pool->used > pool->peak_used) {
        return false;
    }
    /* Every mapped chunk was matched by its page above; now no other. */
    uint32_t in_map = 0;
    for (uint32_t c = 0; c < pool->max_chunks; c++) {
        if (pool->chunk_map[c] != NONE) {
            if (pool->chunk_map[c] >= pool->page_count) {
                return false;
            }
            in_map++;
        }
    }
    return in_map == mapped;
}
