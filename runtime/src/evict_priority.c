/* SPDX-License-Identifier: MIT */
/* sluice: the page pool's SLC_EVICTION_PRIORITY policy (see "Eviction" in
 * sluice/pool.h): bucket tables per partition, one circular list per
 * (priority, lod), the victim the head of the lowest non-empty bucket of the
 * safe table. Behind the contract of pool_internal.h. */
#include <string.h>

#include "pool_internal.h"

static uint32_t bucket_of(const page_rec *p)
{
    return (uint32_t)p->priority * SLC_LODS_MAX + p->lod;
}

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

/* --- the contract ---------------------------------------------------------- */

static size_t priority_footprint(const config *c)
{
    return (size_t)SLC_POOL_BUCKET_TABLE_SIZE * c->partition_count * (c->frames_in_flight + 1u);
}

static void priority_init(slc_pool *pool, unsigned char *mem, const config *c)
{
    pool->buckets = (bucket_table *)(void *)mem;
    for (uint32_t ti = 0; ti < c->partition_count * (c->frames_in_flight + 1u); ti++) {
        bucket_table *t = &pool->buckets[ti];
        memset(t, 0, sizeof *t);
        memset(t->head, 0xFF, sizeof t->head);
    }
}

static void priority_add(slc_pool *pool, partition_rec *part, uint32_t i)
{
    bucket_append(pool, part, i);
}

static void priority_remove(slc_pool *pool, partition_rec *part, uint32_t i)
{
    bucket_unlink(pool, part, i);
}

/* The priority policy always moves the page (O(1) either way). */
static bool priority_is_newest(const slc_pool *pool, const partition_rec *part, uint32_t i)
{
    (void)pool;
    (void)part;
    (void)i;
    return false;
}

static uint32_t priority_victim(slc_pool *pool, partition_rec *part)
{
    return bucket_first(pool, (uint32_t)(part - pool->parts));
}

static void priority_safe_advanced(slc_pool *pool, uint64_t before, uint64_t after)
{
    for (uint64_t f = before + 1u; f <= after; f++) {
        buckets_frame_safe(pool, f);
    }
}

static bool priority_check_pool(const slc_pool *pool)
{
    return pool->buckets != NULL && pool->heap == NULL && pool->hist == NULL;
}

static bool priority_check_partition(const slc_pool *pool, uint32_t pi, uint32_t listed, uint32_t bucketed)
{
    /* The bucket tables: each bucket a circular list linked both ways of
     * bucketed pages of its (priority, lod) in the table their last use
     * names, ordered by last use, its bits set iff it is not empty; bucketed
     * pages in all, and none in the recency list. */
    if (pool->buckets == NULL) {
        return false;
    }
    const partition_rec *part = &pool->parts[pi];
    const uint32_t end = part->first + part->count;
    uint32_t n = 0;
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

const slc__evict_policy slc__evict_priority = {
    .name = "priority",
    .footprint = priority_footprint,
    .init = priority_init,
    .add = priority_add,
    .remove = priority_remove,
    .is_newest = priority_is_newest,
    .victim = priority_victim,
    .safe_advanced = priority_safe_advanced,
    .check_pool = priority_check_pool,
    .check_partition = priority_check_partition,
};
