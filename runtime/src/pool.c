/* SPDX-License-Identifier: MIT */
/* sluice: the GPU page pool (see sluice/pool.h, which documents the policy). */
#include "sluice/pool.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The library, not XXH_INLINE_ALL (see pack.c): only the one-shot seeded
 * hash is used, no state. */
#include <xxhash.h>

#include "internal.h"
#include "pool_internal.h"
#include "sluice/profile.h"

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

/* The policies behind the contract of pool_internal.h, indexed by
 * slc_eviction_policy: one row a policy. */
static const slc__evict_policy *const policies[] = {
    [SLC_EVICTION_LRU] = &slc__evict_lru,
    [SLC_EVICTION_PRIORITY] = &slc__evict_priority,
    [SLC_EVICTION_PREDICT] = &slc__evict_predict,
};
#define POLICY_COUNT (sizeof policies / sizeof policies[0])

const char *slc__evict_policy_name(uint32_t eviction)
{
    return eviction < POLICY_COUNT ? policies[eviction]->name : NULL;
}

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
        return slc__log(log, SLC_LOG_ERROR, SLC_E_INVALID, "pool: frames_in_flight %u is above %u", c->frames_in_flight,
                        SLC_FRAMES_IN_FLIGHT_MAX);
    }
    if (c->log_capacity > SLC_POOL_LOG_CAPACITY_MAX) {
        return slc__log(log, SLC_LOG_ERROR, SLC_E_INVALID, "pool: log_capacity %u is above %u", c->log_capacity,
                        SLC_POOL_LOG_CAPACITY_MAX);
    }
    if (c->eviction >= POLICY_COUNT) {
        char names[64]; /* "0 lru, 1 priority, 2 predict" */
        size_t n = 0;
        for (uint32_t i = 0; i < POLICY_COUNT; i++) {
            n += slc__fmt(names + n, sizeof names - n, "%s%u %s", i > 0 ? ", " : "", i, policies[i]->name);
        }
        return slc__log(log, SLC_LOG_ERROR, SLC_E_INVALID, "pool: eviction %u is not a policy (%s)", c->eviction,
                        names);
    }
    for (size_t i = 0; i < sizeof d->reserved / sizeof d->reserved[0]; i++) {
        if (d->reserved[i] != 0) {
            return slc__log(log, SLC_LOG_ERROR, SLC_E_INVALID, "pool: reserved[%zu] is %u; reserved fields must be 0",
                            i, d->reserved[i]);
        }
    }
    if (d->partition_count > SLC_PARTITION_MAX) {
        return slc__log(log, SLC_LOG_ERROR, SLC_E_INVALID, "pool: %u partitions named; at most %u", d->partition_count,
                        SLC_PARTITION_MAX);
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
                return slc__log(log, SLC_LOG_ERROR, SLC_E_INVALID, "pool: partition %u: '%s' is also partition %u", i,
                                pd->name, j);
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
    size_t pages, chunks, policy, log, total;
} layout;

static layout layout_of(const config *c)
{
    layout l;
    l.pages = SLC_POOL_HEADER_SIZE;
    l.chunks = l.pages + SLC_POOL_ALIGN_UP_((size_t)SLC_POOL_PAGE_RECORD_SIZE * c->page_count);
    l.policy = l.chunks + SLC_POOL_ALIGN_UP_((size_t)SLC_POOL_CHUNK_RECORD_SIZE * c->max_chunks);
    l.log = l.policy + policies[c->eviction]->footprint(c);
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
    pool->policy = policies[c.eviction];

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
    pool->policy->init(pool, l.log > l.policy ? base + l.policy : NULL, &c);
    memset(pool->log, 0, (size_t)SLC_POOL_LOG_RECORD_SIZE * c.log_capacity);
    *out = pool;
    return SLC_OK;
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
        return slc__log(&pool->logger, SLC_LOG_ERROR, SLC_E_INVALID,
                        "pool: partition %u does not exist (%u partitions)", (unsigned)req->partition.index,
                        pool->partition_count);
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
        i = pool->policy->victim(pool, part);
        if (i == NONE) {
            part->busy++;
            pool->busy++;
            return SLC_E_POOL_BUSY;
        }
        pool->policy->remove(pool, part, i);
        evicted = pool->pages[i].chunk;
        pool->chunk_map[evicted] = NONE;
        if (pool->policy->dropped != NULL) {
            pool->policy->dropped(pool, &pool->pages[i]);
        }
        bump_generation(&pool->pages[i]);
        part->evictions++;
        pool->evictions++;
    }
    if (pool->policy->acquired != NULL) {
        pool->policy->acquired(pool, chunk);
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
        return slc__log(&pool->logger, SLC_LOG_ERROR, SLC_E_INVALID,
                        "pool: page %u (chunk %u): a write is already open", page.index, p->chunk);
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
        pool->policy->add(pool, part, page.index);
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
        pool->policy->remove(pool, part, page.index);
    }
    log_change(pool, p->chunk, page.index, NONE, p->partition);
    pool->chunk_map[p->chunk] = NONE;
    if (pool->policy->dropped != NULL) {
        pool->policy->dropped(pool, p);
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
    if (pool->policy->touched != NULL) {
        pool->policy->touched(pool, p);
    }
    partition_rec *part = &pool->parts[p->partition];
    if (p->pins > 0 || pool->policy->is_newest(pool, part, page.index)) {
        p->last_used = pool->frame;
        p->priority = priority;
        return SLC_OK;
    }
    pool->policy->remove(pool, part, page.index); /* before the use changes: it names the bucket and table */
    p->last_used = pool->frame;
    p->priority = priority;
    pool->policy->add(pool, part, page.index);
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
        pool->policy->remove(pool, part, page.index);
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
        return slc__log(&pool->logger, SLC_LOG_ERROR, SLC_E_INVALID, "pool: page %u (chunk %u) holds no pin",
                        page.index, p->chunk);
    }
    p->pins--;
    if (p->pins == 0 && p->state == SLC_PAGE_RESIDENT) {
        partition_rec *part = &pool->parts[p->partition];
        part->pinned--;
        p->last_used = pool->frame;
        pool->policy->add(pool, part, page.index);
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
    if (pool->policy->safe_advanced != NULL) {
        pool->policy->safe_advanced(pool, before, pool->safe);
    }
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
        return slc__log(&pool->logger, SLC_LOG_ERROR, s,
                        "pool: the %s store could not submit frame %llu; it stays open",
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

/* The free stack: only free pages of this partition, free_n of them. */
static bool check_free_stack(const slc_pool *pool, const partition_rec *part, uint32_t free_n)
{
    const uint32_t end = part->first + part->count;
    uint32_t n = 0;
    for (uint32_t i = part->free_head; i != NONE; i = pool->pages[i].next) {
        if (i < part->first || i >= end || pool->pages[i].state != SLC_PAGE_FREE || ++n > free_n) {
            return false;
        }
    }
    return n == free_n;
}

/* The recency list: linked both ways, listed unpinned resident pages
 * outside the buckets, ordered by last use. */
static bool check_recency_list(const slc_pool *pool, const partition_rec *part, uint32_t listed)
{
    const uint32_t end = part->first + part->count;
    uint32_t n = 0;
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
    return n == listed && part->tail == prev;
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
            (pool->buckets == NULL && (p->flags & PAGE_IN_BUCKET)) ||
            (pool->heap == NULL && (p->flags & PAGE_IN_HEAP))) {
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
    return check_free_stack(pool, part, free_n) && check_recency_list(pool, part, listed) &&
           pool->policy->check_partition(pool, pi, listed, bucketed);
}

bool slc_pool_check(const slc_pool *pool)
{
    SLC_ASSERT(pool != NULL);
    if (pool->partition_count == 0 || pool->partition_count > SLC_POOL_PARTITION_MAX ||
        pool->log_next >= pool->log_capacity || pool->submitted + (pool->frame_open ? 1u : 0u) != pool->frame ||
        pool->safe > pool->frame || pool->eviction >= POLICY_COUNT || pool->policy != policies[pool->eviction] ||
        !pool->policy->check_pool(pool)) {
        return false;
    }
    uint32_t first = 0, mapped = 0, free_total = 0;
    for (uint32_t pi = 0; pi < pool->partition_count; pi++) {
        const partition_rec *part = &pool->parts[pi];
        if (part->first != first || part->count == 0 || part->name[0] == '\0' || part->name[SLC_NAME_MAX - 1] != '\0' ||
            !check_partition(pool, pi, &mapped)) {
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
