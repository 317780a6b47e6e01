/* SPDX-License-Identifier: MIT */
/* sluice: the page pool's SLC_EVICTION_LRU policy (see "Eviction" in
 * sluice/pool.h): each partition's recency list, the victim its head once
 * that page's last use is safe. Behind the contract of pool_internal.h. */
#include "pool_internal.h"

/* --- the recency list (pool_internal.h), which PREDICT keeps too ---------- */

void slc__pool_list_unlink(slc_pool *pool, partition_rec *part, uint32_t i)
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

void slc__pool_list_append(slc_pool *pool, partition_rec *part, uint32_t i)
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

/* --- the contract ---------------------------------------------------------- */

static size_t lru_footprint(const config *c)
{
    (void)c;
    return 0;
}

static void lru_init(slc_pool *pool, unsigned char *mem, const config *c)
{
    (void)pool;
    (void)mem;
    (void)c;
}

/* The tail is already the newest. */
static bool lru_is_newest(const slc_pool *pool, const partition_rec *part, uint32_t i)
{
    (void)pool;
    return part->tail == i;
}

static uint32_t lru_victim(slc_pool *pool, partition_rec *part)
{
    uint32_t head = part->head;
    return head != NONE && pool->pages[head].last_used <= pool->safe ? head : NONE;
}

/* The list is ordered by last use: its head is the first to become safe,
 * so the safe frame's advance needs no call (safe_advanced is NULL). */

static bool lru_check_pool(const slc_pool *pool)
{
    return pool->buckets == NULL && pool->heap == NULL && pool->hist == NULL;
}

static bool lru_check_partition(const slc_pool *pool, uint32_t pi, uint32_t listed, uint32_t bucketed)
{
    (void)pool;
    (void)pi;
    (void)listed;
    return bucketed == 0;
}

const slc__evict_policy slc__evict_lru = {
    .name = "lru",
    .footprint = lru_footprint,
    .init = lru_init,
    .add = slc__pool_list_append,
    .remove = slc__pool_list_unlink,
    .is_newest = lru_is_newest,
    .victim = lru_victim,
    .check_pool = lru_check_pool,
    .check_partition = lru_check_partition,
};
