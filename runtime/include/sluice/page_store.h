/* SPDX-License-Identifier: MIT */
/* sluice: the memory behind the page pool, as a backend provides it.
 *
 * The page pool (sluice/pool.h) decides which chunk lives in which page; it
 * knows pages only by index. A page store is the backend that owns the
 * memory of those pages: page_count pages of page_size bytes, allocated once
 * at init and never again. Two backends implement it: the Vulkan backend
 * (platform/, device memory, possibly in several segments, written through
 * a mapping or a staging belt) and the host backend (pages in host memory
 * from an arena, for targets without a GPU and for tests; always named
 * "host"). The runtime calls a store only through these operations, so it
 * includes no GPU header. */
#ifndef SLUICE_PAGE_STORE_H
#define SLUICE_PAGE_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where a page lives: a segment (one allocation, one buffer) and the offset
 * of the page in it; host is the page's CPU address when the page is mapped
 * (unified memory, or the host backend), NULL otherwise. */
typedef struct slc_page_location {
    uint32_t segment;
    uint32_t reserved;
    uint64_t offset;
    void *host;
} slc_page_location;

typedef struct slc_page_store_ops {
    /* Where page lives. O(1). */
    void (*locate)(void *self, uint32_t page, slc_page_location *out);
    /* Where the bytes for page are to be written: the mapped page itself, or
     * a slot of the staging belt. Fails iff the belt has no room this frame
     * (SLC_E_CAPACITY): the caller defers the load. */
    slc_status (*write_begin)(void *self, uint32_t page, void **dst);
    /* The bytes written at dst are complete: flush a non-coherent range, or
     * queue the copy from the belt into the page. */
    slc_status (*write_end)(void *self, uint32_t page, size_t bytes);
    /* Frame `frame` is submitted: queued copies go ahead of the frame's work
     * and the frame's completion is tracked (a fence). */
    slc_status (*submit)(void *self, uint64_t frame);
    /* The newest frame whose work the device has finished (0: none yet).
     * Pages used by frames up to it may be overwritten. Does not block. */
    uint64_t (*retired)(void *self);
} slc_page_store_ops;

typedef struct slc_page_store {
    const slc_page_store_ops *ops;
    void *self;
    const char *backend; /* "vulkan" or "host" */
    uint32_t page_count;
    uint32_t page_size;
    /* The texel formats the device behind the store samples: bit f for
     * SLC_PACK_TEXEL_* f (sluice/pack_format.h). slc_stream_create refuses
     * a pack with a texture in a format outside it. The Vulkan backend
     * sets the formats whose sRGB and UNORM forms the device samples with
     * linear filtering (and whose compression feature is enabled); the
     * host backend, which hands pages to the CPU and samples nothing,
     * sets every format (SLC_PAGE_STORE_ALL_TEXELS). 0: none, so a store
     * that does not set it takes only packs without textures. */
    uint32_t sampled_formats;
    /* The device's name for messages (NULL: the backend's name). */
    const char *device;
} slc_page_store;

/* Every texel format, for a store that takes any (the host backend). */
#define SLC_PAGE_STORE_ALL_TEXELS 0xfffffffeu

#ifdef __cplusplus
}
#endif

#endif
