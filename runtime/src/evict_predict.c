/* SPDX-License-Identifier: MIT */
/* sluice: the page pool's SLC_EVICTION_PREDICT policy (see "Eviction" in
 * sluice/pool.h): pages enter from the recency list into two heaps per
 * partition once safe, keyed by the frame their chunk is predicted back at,
 * from a history of each chunk's gaps between runs of use. Behind the
 * contract of pool_internal.h. */
#include <string.h>

#include "pool_internal.h"

#define HEAP_ARITY 4u /* children of a heap entry */

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
    p->flags &= (uint8_t) ~(PAGE_IN_HEAP | PAGE_DUE);
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
        slc__pool_list_unlink(pool, part, i);
        heap_push(pool, part, i);
    }
    heap_age(pool, part);
}

/* --- the contract ---------------------------------------------------------- */

static size_t predict_footprint(const config *c)
{
    return SLC_POOL_ALIGN_UP_((size_t)SLC_POOL_HEAP_RECORD_SIZE * c->page_count) +
           SLC_POOL_ALIGN_UP_((size_t)SLC_POOL_HISTORY_RECORD_SIZE * c->max_chunks);
}

static void predict_init(slc_pool *pool, unsigned char *mem, const config *c)
{
    pool->heap = (heap_rec *)(void *)mem;
    pool->hist = (chunk_hist *)(void *)(mem + SLC_POOL_ALIGN_UP_((size_t)SLC_POOL_HEAP_RECORD_SIZE * c->page_count));
    memset(pool->heap, 0, (size_t)SLC_POOL_HEAP_RECORD_SIZE * c->page_count);
    memset(pool->hist, 0, (size_t)SLC_POOL_HISTORY_RECORD_SIZE * c->max_chunks);
}

static void predict_add(slc_pool *pool, partition_rec *part, uint32_t i)
{
    slc__pool_list_append(pool, part, i);
}

static void predict_remove(slc_pool *pool, partition_rec *part, uint32_t i)
{
    if (pool->pages[i].flags & PAGE_IN_HEAP) {
        heap_remove(pool, part, i);
    } else {
        slc__pool_list_unlink(pool, part, i);
    }
}

/* The recency list's tail is already the newest. */
static bool predict_is_newest(const slc_pool *pool, const partition_rec *part, uint32_t i)
{
    (void)pool;
    return part->tail == i;
}

static uint32_t predict_victim(slc_pool *pool, partition_rec *part)
{
    predict_advance(pool, part);
    return part->bucketed > 0 ? HEAP_PAGE(pool->heap[part->first]) : NONE;
}

static void predict_dropped(slc_pool *pool, const page_rec *p)
{
    pool->hist[p->chunk].last = (uint32_t)p->last_used;
}

static void predict_acquired(slc_pool *pool, uint32_t chunk)
{
    predict_use(pool, chunk, pool->hist[chunk].last);
}

static void predict_touched(slc_pool *pool, const page_rec *p)
{
    predict_use(pool, p->chunk, (uint32_t)p->last_used);
}

static bool predict_check_pool(const slc_pool *pool)
{
    return pool->buckets == NULL && pool->heap != NULL && pool->hist != NULL;
}

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
            !(pool->pages[HEAP_PAGE(d[at])].flags & PAGE_DUE) ||
            (at > 0 && heap_before(DUE, &d[at], &d[(at - 1) / HEAP_ARITY]))) {
            return false;
        }
    }
    return part->due <= part->bucketed;
}

static bool predict_check_partition(const slc_pool *pool, uint32_t pi, uint32_t listed, uint32_t bucketed)
{
    (void)listed;
    (void)bucketed;
    return check_heap(pool, &pool->parts[pi]);
}

const slc__evict_policy slc__evict_predict = {
    .name = "predict",
    .footprint = predict_footprint,
    .init = predict_init,
    .add = predict_add,
    .remove = predict_remove,
    .is_newest = predict_is_newest,
    .victim = predict_victim,
    .dropped = predict_dropped,
    .acquired = predict_acquired,
    .touched = predict_touched,
    .check_pool = predict_check_pool,
    .check_partition = predict_check_partition,
};
