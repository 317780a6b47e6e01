/* SPDX-License-Identifier: MIT */
/* sluice: the TLSF heap (see sluice/heap.h).
 *
 * Blocks tile the memory after the control record, each starting with a
 * header { previous physical block, size | FREE }; an end marker (a used
 * block of header size) stops the walk to the right. A free block also holds
 * its list links in its first payload bytes. Free blocks are kept in
 * FL_COUNT x SL_COUNT segregated lists: the first level is the power of two
 * of the size, the second splits each power into SL_COUNT equal classes; two
 * bitmaps say which lists are non-empty, so finding a block is two bit scans. */
#include "sluice/heap.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "internal.h"

#define SL_LOG2 4u
#define SL_COUNT (1u << SL_LOG2)
#define G_LOG2 4u
#define FL_SHIFT (SL_LOG2 + G_LOG2) /* sizes below 2^8 all map to first level 0 */
#define SMALL_SIZE ((size_t)1 << FL_SHIFT)
#define FL_COUNT 32u
#define HDR ((size_t)SLC_HEAP_BLOCK_OVERHEAD)
#define GRAN ((size_t)SLC_HEAP_GRANULE)
#define MIN_BLOCK ((size_t)SLC_HEAP_MIN_BLOCK)
#define FREE_BIT ((size_t)1)

/* The largest area the lists can index: first level FL_COUNT - 1 holds
 * sizes below 2^(FL_COUNT + FL_SHIFT - 1), and a search rounds a size up by
 * less than 1/SL_COUNT of it. On 32-bit targets, half the address space, so
 * that size + alignment + MIN_BLOCK cannot wrap. */
#if SIZE_MAX > 0xFFFFFFFFu
#define AREA_MAX ((size_t)1 << 38)
#else
#define AREA_MAX ((size_t)1 << 31)
#endif

typedef struct block {
    struct block *prev_phys; /* NULL for the first block */
    size_t size;             /* bytes, header included; FREE_BIT in bit 0 */
    /* Free blocks only: the list links, at the start of the payload on
     * every architecture. */
    _Alignas(SLC_HEAP_GRANULE) struct block *next_free;
    struct block *prev_free;
} block;

_Static_assert(2 * sizeof(void *) <= SLC_HEAP_BLOCK_OVERHEAD, "the header holds a pointer and a size");
_Static_assert(offsetof(block, next_free) == SLC_HEAP_BLOCK_OVERHEAD, "the links start the payload");
_Static_assert(sizeof(block) <= SLC_HEAP_MIN_BLOCK, "a free block holds its list links");
_Static_assert((SLC_HEAP_GRANULE & (SLC_HEAP_GRANULE - 1)) == 0 && SLC_HEAP_GRANULE == (1u << G_LOG2),
               "the granule is 2^G_LOG2");
_Static_assert(SLC_HEAP_BLOCK_OVERHEAD % SLC_HEAP_GRANULE == 0, "payloads stay on the granule");
_Static_assert(SLC_HEAP_MIN_BLOCK % SLC_HEAP_GRANULE == 0, "the smallest block is whole granules");
_Static_assert((SLC_HEAP_MAX_ALIGN & (SLC_HEAP_MAX_ALIGN - 1)) == 0, "max alignment is a power of two");
_Static_assert(SLC_HEAP_ALIGN % SLC_HEAP_GRANULE == 0 && SLC_HEAP_HEADER_SIZE % SLC_HEAP_GRANULE == 0,
               "the first block starts on the granule");

struct slc_heap {
    atomic_flag lock;
    unsigned char *area; /* the first block */
    block *end;          /* the end marker */
    size_t capacity;     /* bytes from the first block to the end marker */
    slc_budgets *budgets;
    slc_budget_id budget;
    size_t used;
    size_t high_water;
    size_t live;
    size_t free_blocks;
    uint64_t allocs;
    uint64_t frees;
    uint64_t reallocs;
    uint64_t refused_capacity;
    uint64_t refused_budget;
    size_t last_refused;
    slc_budget_refusal last_budget_refusal;
    uint32_t fl_bitmap;
    uint16_t sl_bitmap[FL_COUNT];
    block *heads[FL_COUNT][SL_COUNT];
};

typedef union heap_slot {
    struct slc_heap h;
    unsigned char pad[SLC_HEAP_HEADER_SIZE];
} heap_slot;

_Static_assert(sizeof(heap_slot) == SLC_HEAP_HEADER_SIZE, "the control record size is part of the footprint");

/* --- small helpers ------------------------------------------------------ */

static void heap_lock(slc_heap *h)
{
    while (atomic_flag_test_and_set_explicit(&h->lock, memory_order_acquire)) {
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
        __builtin_ia32_pause();
#elif defined(__GNUC__) && (defined(__aarch64__) || defined(__arm__))
        __asm__ __volatile__("yield");
#endif
    }
}

static void heap_unlock(slc_heap *h)
{
    atomic_flag_clear_explicit(&h->lock, memory_order_release);
}

static unsigned msb(size_t x) /* x > 0 */
{
#if defined(__GNUC__)
    return 63u - (unsigned)__builtin_clzll((unsigned long long)x);
#else
    unsigned n = 0;
    while (x >>= 1) {
        n++;
    }
    return n;
#endif
}

static unsigned ctz32(uint32_t x) /* x > 0 */
{
#if defined(__GNUC__)
    return (unsigned)__builtin_ctz(x);
#else
    unsigned n = 0;
    while ((x & 1u) == 0) {
        x >>= 1;
        n++;
    }
    return n;
#endif
}

static size_t bsize(const block *b)
{
    return b->size & ~FREE_BIT;
}
static int is_free(const block *b)
{
    return (b->size & FREE_BIT) != 0;
}
static block *at(void *base, size_t offset)
{
    return (block *)(void *)((unsigned char *)base + offset);
}
static block *next_phys(block *b)
{
    return at(b, bsize(b));
}
static void *payload(block *b)
{
    return (unsigned char *)b + HDR;
}
/* The block of payload p, which lies in h's area: derived from the area's
 * own pointer, so no const is cast away and no integer becomes a pointer. */
static block *from_payload(const slc_heap *h, const void *p)
{
    return at(h->area, (size_t)((const unsigned char *)p - h->area) - HDR);
}

static void mapping_insert(size_t size, unsigned *fl, unsigned *sl)
{
    if (size < SMALL_SIZE) {
        *fl = 0;
        *sl = (unsigned)(size >> G_LOG2);
    } else {
        unsigned m = msb(size);
        *sl = (unsigned)(size >> (m - SL_LOG2)) ^ SL_COUNT;
        *fl = m - FL_SHIFT + 1u;
    }
}

/* The class to search from: rounded up to the next class boundary, so any
 * block found there is large enough (good fit, no list walk). */
static void mapping_search(size_t size, unsigned *fl, unsigned *sl)
{
    if (size >= SMALL_SIZE) {
        size += ((size_t)1 << (msb(size) - SL_LOG2)) - 1u;
    }
    mapping_insert(size, fl, sl);
}

static block *find_suitable(slc_heap *h, unsigned fl, unsigned sl)
{
    if (fl >= FL_COUNT) {
        return NULL;
    }
    uint32_t sl_map = (uint32_t)h->sl_bitmap[fl] & (~0u << sl);
    if (sl_map == 0) {
        if (fl + 1u >= FL_COUNT) {
            return NULL;
        }
        uint32_t fl_map = h->fl_bitmap & (~0u << (fl + 1u));
        if (fl_map == 0) {
            return NULL;
        }
        fl = ctz32(fl_map);
        sl_map = h->sl_bitmap[fl];
    }
    return h->heads[fl][ctz32(sl_map)];
}

static void insert_free(slc_heap *h, block *b)
{
    unsigned fl, sl;
    mapping_insert(bsize(b), &fl, &sl);
    block *head = h->heads[fl][sl];
    b->size |= FREE_BIT;
    b->prev_free = NULL;
    b->next_free = head;
    if (head != NULL) {
        head->prev_free = b;
    }
    h->heads[fl][sl] = b;
    h->sl_bitmap[fl] = (uint16_t)(h->sl_bitmap[fl] | (1u << sl));
    h->fl_bitmap |= 1u << fl;
    h->free_blocks++;
}

static void remove_free(slc_heap *h, block *b)
{
    unsigned fl, sl;
    mapping_insert(bsize(b), &fl, &sl);
    if (b->prev_free != NULL) {
        b->prev_free->next_free = b->next_free;
    } else {
        h->heads[fl][sl] = b->next_free;
        if (b->next_free == NULL) {
            h->sl_bitmap[fl] = (uint16_t)(h->sl_bitmap[fl] & ~(1u << sl));
            if (h->sl_bitmap[fl] == 0) {
                h->fl_bitmap &= ~(1u << fl);
            }
        }
    }
    if (b->next_free != NULL) {
        b->next_free->prev_free = b->prev_free;
    }
    b->size &= ~FREE_BIT;
    h->free_blocks--;
}

/* Bytes of block a request of size bytes needs; false if it can never fit. */
static int request_block(size_t size, size_t *out)
{
    if (size > AREA_MAX) {
        return 0;
    }
    size_t n = (size + HDR + GRAN - 1u) & ~(GRAN - 1u);
    *out = n < MIN_BLOCK ? MIN_BLOCK : n;
    return 1;
}

static void note_capacity_refusal(slc_heap *h, size_t size)
{
    h->refused_capacity++;
    h->last_refused = size;
}

static void note_use(slc_heap *h, size_t grow)
{
    h->used += grow;
    if (h->used > h->high_water) {
        h->high_water = h->used;
    }
}

static slc_status charge(slc_heap *h, size_t bytes, size_t asked)
{
    if (h->budgets == NULL) {
        return SLC_OK;
    }
    slc_budget_refusal why;
    if (slc_budgets_reserve(h->budgets, h->budget, bytes, &why) != SLC_OK) {
        h->refused_budget++;
        h->last_refused = asked;
        h->last_budget_refusal = why;
        return SLC_E_BUDGET_REFUSED;
    }
    return SLC_OK;
}

static void uncharge(slc_heap *h, size_t bytes)
{
    if (h->budgets != NULL && bytes > 0) {
        slc_budgets_release(h->budgets, h->budget, bytes);
    }
}

/* The block of a live allocation, or NULL if ptr is not one (the caller
 * then releases the lock and asserts). Called under the lock. */
static block *live_block(slc_heap *h, const void *ptr)
{
    const unsigned char *p = ptr;
    if (p < h->area + HDR || p >= (const unsigned char *)h->end || ((uintptr_t)p & (GRAN - 1u)) != 0) {
        return NULL;
    }
    block *b = from_payload(h, ptr);
    size_t s = bsize(b);
    if (is_free(b) || s < MIN_BLOCK || (s & (GRAN - 1u)) != 0 ||
        s > (size_t)((unsigned char *)h->end - (unsigned char *)b) || next_phys(b)->prev_phys != b) {
        return NULL;
    }
    return b;
}

/* --- the API -------------------------------------------------------------- */

slc_status slc_heap_init(void *mem, size_t size, slc_budgets *b, slc_budget_id budget, slc_heap **out)
{
    SLC_ASSERT(out != NULL);
    SLC_ASSERT(b == NULL || budget.index < slc_budgets_count(b));
    *out = NULL;
    if (mem == NULL) {
        return SLC_E_BLOCK_NULL;
    }
    if (((uintptr_t)mem % SLC_HEAP_ALIGN) != 0) {
        return SLC_E_BLOCK_MISALIGNED;
    }
    if (size < SLC_HEAP_FOOTPRINT(SLC_HEAP_MIN_BLOCK)) {
        return SLC_E_BLOCK_TOO_SMALL;
    }
    memset(mem, 0, SLC_HEAP_HEADER_SIZE);
    slc_heap *h = &((heap_slot *)mem)->h;
    atomic_flag_clear(&h->lock);
    size_t avail = (size - SLC_HEAP_HEADER_SIZE - HDR) & ~(GRAN - 1u);
    if (avail > AREA_MAX) {
        avail = AREA_MAX;
    }
    h->area = (unsigned char *)mem + SLC_HEAP_HEADER_SIZE;
    h->capacity = avail;
    h->budgets = b;
    h->budget = b != NULL ? budget : SLC_BUDGET_NONE;
    block *first = at(h->area, 0);
    first->prev_phys = NULL;
    first->size = avail;
    h->end = at(h->area, avail);
    h->end->prev_phys = first;
    h->end->size = HDR; /* used, never merged */
    insert_free(h, first);
    *out = h;
    return SLC_OK;
}

/* Allocates under the lock. */
static slc_status alloc_locked(slc_heap *h, size_t size, size_t align, void **out)
{
    size_t need;
    if (!request_block(size, &need)) {
        note_capacity_refusal(h, size);
        return SLC_E_CAPACITY;
    }
    /* An over-aligned request searches for room to slide its start forward
     * to the alignment, leaving a gap of at least MIN_BLOCK that becomes a
     * free block of its own. */
    size_t search = align > GRAN ? need + align + MIN_BLOCK : need;
    if (search > h->capacity) {
        note_capacity_refusal(h, size);
        return SLC_E_CAPACITY;
    }
    unsigned fl, sl;
    mapping_search(search, &fl, &sl);
    block *b = find_suitable(h, fl, sl);
    if (b == NULL) {
        note_capacity_refusal(h, size);
        return SLC_E_CAPACITY;
    }
    unsigned char *start = (unsigned char *)b;
    size_t bs = bsize(b);
    size_t gap = 0;
    if (align > GRAN) {
        uintptr_t pay = (uintptr_t)(start + HDR);
        uintptr_t aligned = (pay + align - 1u) & ~(uintptr_t)(align - 1u);
        gap = (size_t)(aligned - pay);
        if (gap != 0 && gap < MIN_BLOCK) {
            gap += align;
        }
    }
    SLC_ASSERT(gap + need <= bs);
    size_t rest = bs - gap - need;
    size_t take = rest >= MIN_BLOCK ? need : bs - gap;
    slc_status s = charge(h, take, size);
    if (s != SLC_OK) {
        return s;
    }
    block *next = at(start, bs);
    remove_free(h, b);
    block *a = b;
    if (gap != 0) {
        b->size = gap;
        insert_free(h, b);
        a = at(start, gap);
        a->prev_phys = b;
    }
    a->size = take;
    if (rest >= MIN_BLOCK) {
        block *r = at(a, take);
        r->prev_phys = a;
        r->size = rest;
        next->prev_phys = r;
        insert_free(h, r);
    } else {
        next->prev_phys = a;
    }
    note_use(h, take);
    h->live++;
    h->allocs++;
    *out = payload(a);
    return SLC_OK;
}

static void free_locked(slc_heap *h, block *b)
{
    size_t s = bsize(b);
    uncharge(h, s);
    h->used -= s;
    h->live--;
    h->frees++;
    block *prev = b->prev_phys;
    block *next = at(b, s);
    if (prev != NULL && is_free(prev)) {
        remove_free(h, prev);
        prev->size = bsize(prev) + s;
        b = prev;
    }
    if (is_free(next)) {
        remove_free(h, next);
        b->size = bsize(b) + bsize(next);
    }
    next_phys(b)->prev_phys = b;
    insert_free(h, b);
}

slc_status slc_heap_alloc(slc_heap *h, size_t size, size_t align, void **out)
{
    SLC_ASSERT(h != NULL && out != NULL);
    SLC_ASSERT(slc__is_pow2(align) && align <= SLC_HEAP_MAX_ALIGN);
    *out = NULL;
    heap_lock(h);
    slc_status s = alloc_locked(h, size, align, out);
    heap_unlock(h);
    return s;
}

void slc_heap_free(slc_heap *h, void *ptr)
{
    SLC_ASSERT(h != NULL);
    if (ptr == NULL) {
        return;
    }
    heap_lock(h);
    block *b = live_block(h, ptr);
    if (b == NULL) {
        heap_unlock(h);
        SLC_ASSERT(b != NULL && "slc_heap_free: not a live allocation of this heap");
        return;
    }
    free_locked(h, b);
    heap_unlock(h);
}

slc_status slc_heap_realloc(slc_heap *h, void *ptr, size_t size, size_t align, void **out)
{
    SLC_ASSERT(h != NULL && out != NULL);
    SLC_ASSERT(slc__is_pow2(align) && align <= SLC_HEAP_MAX_ALIGN);
    *out = NULL;
    if (ptr == NULL) {
        return slc_heap_alloc(h, size, align, out);
    }
    SLC_ASSERT(((uintptr_t)ptr & (align - 1u)) == 0);
    if (size == 0) {
        slc_heap_free(h, ptr);
        return SLC_OK;
    }
    heap_lock(h);
    block *b = live_block(h, ptr);
    if (b == NULL) {
        heap_unlock(h);
        SLC_ASSERT(b != NULL && "slc_heap_realloc: not a live allocation of this heap");
        return SLC_E_INVALID;
    }
    size_t need;
    if (!request_block(size, &need)) {
        note_capacity_refusal(h, size);
        heap_unlock(h);
        return SLC_E_CAPACITY;
    }
    size_t cur = bsize(b);
    block *next = at(b, cur);
    if (need <= cur) {
        /* Shrink in place; the tail joins a free right neighbour. */
        size_t rest = cur - need;
        if (rest >= MIN_BLOCK) {
            block *after = next;
            if (is_free(next)) {
                after = next_phys(next);
                remove_free(h, next);
                rest += bsize(next);
            }
            b->size = need;
            block *t = at(b, need);
            t->prev_phys = b;
            t->size = rest;
            after->prev_phys = t;
            insert_free(h, t);
            uncharge(h, cur - need);
            h->used -= cur - need;
        }
        h->reallocs++;
        heap_unlock(h);
        *out = ptr;
        return SLC_OK;
    }
    if (is_free(next) && cur + bsize(next) >= need) {
        /* Grow in place into the free right neighbour. */
        size_t total = cur + bsize(next);
        size_t rest = total - need;
        size_t grown = rest >= MIN_BLOCK ? need : total;
        slc_status s = charge(h, grown - cur, size);
        if (s != SLC_OK) {
            heap_unlock(h);
            return s;
        }
        block *after = next_phys(next);
        remove_free(h, next);
        b->size = grown;
        if (rest >= MIN_BLOCK) {
            block *t = at(b, need);
            t->prev_phys = b;
            t->size = rest;
            after->prev_phys = t;
            insert_free(h, t);
        } else {
            after->prev_phys = b;
        }
        note_use(h, grown - cur);
        h->reallocs++;
        heap_unlock(h);
        *out = ptr;
        return SLC_OK;
    }
    /* Move: a new block, the copy outside the lock, then the old block back. */
    void *moved;
    slc_status s = alloc_locked(h, size, align, &moved);
    heap_unlock(h);
    if (s != SLC_OK) {
        return s;
    }
    memcpy(moved, ptr, cur - HDR < size ? cur - HDR : size);
    heap_lock(h);
    free_locked(h, b);
    h->reallocs++;
    heap_unlock(h);
    *out = moved;
    return SLC_OK;
}

size_t slc_heap_get_usable_size(slc_heap *h, const void *ptr)
{
    SLC_ASSERT(h != NULL && ptr != NULL);
    heap_lock(h);
    block *b = live_block(h, ptr);
    size_t n = b != NULL ? bsize(b) - HDR : 0;
    heap_unlock(h);
    SLC_ASSERT(b != NULL && "slc_heap_get_usable_size: not a live allocation of this heap");
    return n;
}

void slc_heap_get_stats(slc_heap *h, slc_heap_stats *out)
{
    SLC_ASSERT(h != NULL && out != NULL);
    heap_lock(h);
    out->capacity = h->capacity;
    out->used = h->used;
    out->high_water = h->high_water;
    out->live = h->live;
    out->free_blocks = h->free_blocks;
    out->allocs = h->allocs;
    out->frees = h->frees;
    out->reallocs = h->reallocs;
    out->refused_capacity = h->refused_capacity;
    out->refused_budget = h->refused_budget;
    out->last_refused = h->last_refused;
    out->last_budget_refusal = h->last_budget_refusal;
    heap_unlock(h);
}

static bool check_locked(slc_heap *h)
{
    unsigned char *end = (unsigned char *)h->end;
    size_t used = 0, live = 0, free_count = 0;
    block *prev = NULL;
    int prev_free = 0;
    block *b = at(h->area, 0);
    while ((unsigned char *)b != end) {
        size_t s = bsize(b);
        if ((unsigned char *)b > end || s < MIN_BLOCK || (s & (GRAN - 1u)) != 0 ||
            s > (size_t)(end - (unsigned char *)b) || b->prev_phys != prev) {
            return false;
        }
        if (is_free(b)) {
            if (prev_free) {
                return false; /* two free neighbours were not merged */
            }
            free_count++;
        } else {
            used += s;
            live++;
        }
        prev_free = is_free(b);
        prev = b;
        b = at(b, s);
    }
    if (h->end->prev_phys != prev || h->end->size != HDR) {
        return false;
    }
    /* Every list holds free blocks of its own class, doubly linked, and the
     * bitmaps mark exactly the non-empty lists; the lists hold as many
     * blocks as the walk found free, so every free block is on one. */
    size_t listed = 0;
    for (unsigned fl = 0; fl < FL_COUNT; fl++) {
        bool fl_bit = ((h->fl_bitmap >> fl) & 1u) != 0;
        if (fl_bit != (h->sl_bitmap[fl] != 0)) {
            return false;
        }
        for (unsigned sl = 0; sl < SL_COUNT; sl++) {
            block *x = h->heads[fl][sl];
            bool sl_bit = (((unsigned)h->sl_bitmap[fl] >> sl) & 1u) != 0;
            if (sl_bit != (x != NULL)) {
                return false;
            }
            block *xp = NULL;
            while (x != NULL) {
                unsigned xf, xs;
                unsigned char *xa = (unsigned char *)x;
                if (xa < h->area || xa >= end || ((uintptr_t)xa & (GRAN - 1u)) != 0 || !is_free(x) ||
                    x->prev_free != xp || ++listed > free_count) {
                    return false;
                }
                mapping_insert(bsize(x), &xf, &xs);
                if (xf != fl || xs != sl) {
                    return false;
                }
                xp = x;
                x = x->next_free;
            }
        }
    }
    return listed == free_count && free_count == h->free_blocks && used == h->used && live == h->live &&
           h->used <= h->high_water && h->high_water <= h->capacity;
}

bool slc_heap_check(slc_heap *h)
{
    SLC_ASSERT(h != NULL);
    heap_lock(h);
    bool ok = check_locked(h);
    heap_unlock(h);
    return ok;
}
