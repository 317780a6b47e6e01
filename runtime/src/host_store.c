/* SPDX-License-Identifier: MIT */
/* sluice: the host backend of the page pool (see sluice/host_store.h). No OS
 * header, no heap: the pages come from the caller's arena or memory. */
#include "sluice/host_store.h"

#include <stdint.h>
#include <string.h>

#include "sluice/config.h"

typedef struct host_store {
    unsigned char *pages;
    size_t stride;
    uint32_t page_count;
    uint32_t page_size;
    uint64_t writes;
    uint64_t bytes_written;
    uint64_t submitted;
    slc_budgets *budgets; /* what slc_host_store_init_at charged the pages to, or NULL */
    slc_budget_id budget;
} host_store;

/* The record is padded to the page alignment so the first page follows it
 * aligned. */
#define HOST_RECORD_SIZE 64u
_Static_assert(sizeof(host_store) <= HOST_RECORD_SIZE, "the host store record fits its slot");
_Static_assert((SLC_HOST_STORE_PAGE_ALIGN & (SLC_HOST_STORE_PAGE_ALIGN - 1)) == 0, "page alignment is a power of two");

static void host_locate(void *self, uint32_t page, slc_page_location *out)
{
    host_store *h = self;
    SLC_ASSERT(page < h->page_count);
    out->segment = 0;
    out->reserved = 0;
    out->offset = (uint64_t)page * h->stride;
    out->host = h->pages + (size_t)page * h->stride;
}

static slc_status host_write_begin(void *self, uint32_t page, void **dst)
{
    host_store *h = self;
    SLC_ASSERT(page < h->page_count && dst != NULL);
    *dst = h->pages + (size_t)page * h->stride; /* straight into the page: no staging belt */
    return SLC_OK;
}

static slc_status host_write_end(void *self, uint32_t page, size_t bytes)
{
    host_store *h = self;
    SLC_ASSERT(page < h->page_count && bytes <= h->page_size);
    (void)page;
    h->writes++;
    h->bytes_written += bytes; /* host memory is coherent: nothing to flush */
    return SLC_OK;
}

static slc_status host_submit(void *self, uint64_t frame)
{
    host_store *h = self;
    SLC_ASSERT(frame > h->submitted);
    h->submitted = frame;
    return SLC_OK;
}

static uint64_t host_retired(void *self)
{
    const host_store *h = self;
    return h->submitted; /* no device reads host memory: a submitted frame is finished */
}

static const slc_page_store_ops host_ops = {host_locate, host_write_begin, host_write_end, host_submit, host_retired};

static size_t stride_of(uint32_t page_size)
{
    return ((size_t)page_size + (SLC_HOST_STORE_PAGE_ALIGN - 1)) & ~(size_t)(SLC_HOST_STORE_PAGE_ALIGN - 1);
}

/* The one allocation: record + pages, without the padding. 0 when a count
 * is 0 or the footprint (this plus the padding) does not fit size_t. */
static size_t bytes_of(uint32_t page_count, uint32_t page_size)
{
    if (page_count == 0 || page_size == 0) {
        return 0;
    }
    uint64_t stride = ((uint64_t)page_size + (SLC_HOST_STORE_PAGE_ALIGN - 1)) &
                      ~(uint64_t)(SLC_HOST_STORE_PAGE_ALIGN - 1);
    uint64_t total = HOST_RECORD_SIZE + stride * page_count; /* stride <= 2^32, page_count < 2^32: no overflow */
    uint64_t padded = total + (SLC_HOST_STORE_PAGE_ALIGN - 1);
    if (padded != (uint64_t)(size_t)padded) {
        return 0;
    }
    return (size_t)total;
}

size_t slc_host_store_footprint(uint32_t page_count, uint32_t page_size)
{
    size_t n = bytes_of(page_count, page_size);
    return n == 0 ? 0 : n + (SLC_HOST_STORE_PAGE_ALIGN - 1); /* the most an aligned allocation pads */
}

static slc_status store_fail(const slc_logger *log, slc_status s, const char *message)
{
    if (log != NULL && log->fn != NULL) {
        log->fn(log->user, SLC_LOG_ERROR, s, message);
    }
    return s;
}

static slc_status counts_fail(const slc_logger *log)
{
    return store_fail(log, SLC_E_INVALID,
                      "host store: page_count and page_size must be non-zero and their product fit this target");
}

void slc_host_store_desc_from_spec(const slc_pool_spec *spec, slc_host_store_desc *out)
{
    SLC_ASSERT(spec != NULL && out != NULL);
    memset(out, 0, sizeof *out);
    out->page_count = spec->pool.page_count;
    out->page_size = spec->page_size;
}

/* The store in the arena is the store over caller memory with the arena as
 * the caller: the allocation is charged to the arena's budget as it is
 * made, so nothing more is reserved. */
slc_status slc_host_store_init(slc_arena *arena, uint32_t page_count, uint32_t page_size, const slc_logger *log,
                               slc_page_store *out)
{
    SLC_ASSERT(arena != NULL && out != NULL);
    memset(out, 0, sizeof *out);
    size_t bytes = bytes_of(page_count, page_size);
    if (bytes == 0) {
        return counts_fail(log);
    }
    void *mem;
    slc_status s = slc_arena_alloc(arena, bytes, SLC_HOST_STORE_PAGE_ALIGN, &mem);
    if (s != SLC_OK) {
        return store_fail(log, s,
                          s == SLC_E_CAPACITY
                              ? "host store: the arena has no room for the pages (slc_host_store_footprint)"
                              : "host store: the arena's budget refused the pages");
    }
    /* Aligned, bytes long and nothing to reserve: cannot fail. */
    return slc_host_store_init_at(mem, bytes, NULL, SLC_BUDGET_NONE, page_count, page_size, log, out);
}

slc_status slc_host_store_init_at(void *mem, size_t size, slc_budgets *b, slc_budget_id budget, uint32_t page_count,
                                  uint32_t page_size, const slc_logger *log, slc_page_store *out)
{
    SLC_ASSERT(mem != NULL && out != NULL);
    memset(out, 0, sizeof *out);
    size_t bytes = bytes_of(page_count, page_size);
    if (bytes == 0) {
        return counts_fail(log);
    }
    if (((uintptr_t)mem % SLC_HOST_STORE_PAGE_ALIGN) != 0 || size < bytes) {
        return store_fail(log, SLC_E_INVALID,
                          "host store: the memory is misaligned or smaller than slc_host_store_footprint");
    }
    if (b != NULL) {
        slc_status s = slc_budgets_reserve(b, budget, (uint64_t)page_count * page_size, NULL);
        if (s != SLC_OK) {
            return store_fail(log, s, "host store: the budget refused the pages");
        }
    }
    host_store *h = mem;
    memset(h, 0, HOST_RECORD_SIZE);
    h->pages = (unsigned char *)mem + HOST_RECORD_SIZE;
    h->stride = stride_of(page_size);
    h->page_count = page_count;
    h->page_size = page_size;
    h->budgets = b;
    h->budget = budget;
    out->ops = &host_ops;
    out->self = h;
    out->backend = SLC_HOST_STORE_BACKEND;
    out->page_count = page_count;
    out->page_size = page_size;
    out->sampled_formats = SLC_PAGE_STORE_ALL_TEXELS;
    out->device = NULL;
    return SLC_OK;
}

void slc_host_store_deinit(slc_page_store *store)
{
    SLC_ASSERT(store != NULL && store->ops == &host_ops);
    host_store *h = store->self;
    if (h->budgets != NULL) {
        slc_budgets_release(h->budgets, h->budget, (uint64_t)h->page_count * h->page_size);
        h->budgets = NULL;
    }
    memset(store, 0, sizeof *store);
}

void slc_host_store_get_stats(const slc_page_store *store, slc_host_store_stats *out)
{
    SLC_ASSERT(store != NULL && out != NULL && store->ops == &host_ops);
    const host_store *h = store->self;
    out->page_count = h->page_count;
    out->page_size = h->page_size;
    out->stride = h->stride;
    out->writes = h->writes;
    out->bytes_written = h->bytes_written;
    out->submitted = h->submitted;
}
