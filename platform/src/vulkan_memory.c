/* SPDX-License-Identifier: MIT */
/* sluice: the Vulkan backend's device memory — memory types, the heap
 * budget check, the pool's segments and the staging belt. Everything here
 * is allocated once, at init. */
#include "vulkan_internal.h"

#include <string.h>

#include "sluice/pack.h"

#define AVOID_ALWAYS (VK_MEMORY_PROPERTY_LAZILY_ALLOCATED_BIT | VK_MEMORY_PROPERTY_PROTECTED_BIT)

static int popcount32(uint32_t x)
{
    int n = 0;
    for (; x != 0; x &= x - 1u) {
        n++;
    }
    return n;
}

/* The memory type among bits with every required flag, the most preferred
 * flags and, at equal preference, none of the avoided ones; -1 if none. */
static int find_type(const VkPhysicalDeviceMemoryProperties *mp, uint32_t bits, VkMemoryPropertyFlags required,
                     VkMemoryPropertyFlags preferred, VkMemoryPropertyFlags avoided)
{
    int best = -1;
    int best_score = -1;
    for (uint32_t i = 0; i < mp->memoryTypeCount; i++) {
        VkMemoryPropertyFlags f = mp->memoryTypes[i].propertyFlags;
        if ((bits & (1u << i)) == 0 || (f & required) != required || (f & AVOID_ALWAYS) != 0) {
            continue;
        }
        int score = 2 * popcount32(f & preferred) + ((f & avoided) == 0 ? 1 : 0);
        if (score > best_score) {
            best = (int)i;
            best_score = score;
        }
    }
    return best;
}

static const char *heap_kind(const VkPhysicalDeviceMemoryProperties *mp, uint32_t heap)
{
    return (mp->memoryHeaps[heap].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) != 0 ? "DEVICE_LOCAL" : "host";
}

/* Bytes the process may still allocate from heap, and where that number
 * comes from. */
static uint64_t heap_available(slc_vulkan *vk, const VkPhysicalDeviceMemoryProperties *mp,
                               const VkPhysicalDeviceMemoryBudgetPropertiesEXT *bp, uint32_t heap, const char **source)
{
    if (vk->heap_budget_override != 0) {
        *source = "the desc's heap_budget";
        return vk->heap_budget_override;
    }
    if (vk->memory_budget_ext) {
        *source = "VK_EXT_memory_budget";
        vk->memory_budget_used = true;
        return bp->heapBudget[heap] > bp->heapUsage[heap] ? bp->heapBudget[heap] - bp->heapUsage[heap] : 0u;
    }
    *source = "the heap's size";
    return mp->memoryHeaps[heap].size;
}

static slc_status flush_all(slc_vulkan *vk, VkDeviceMemory memory)
{
    VkMappedMemoryRange range = {.sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE};
    range.memory = memory;
    range.offset = 0;
    range.size = VK_WHOLE_SIZE;
    vk_refusals before = slc__vk_refusals(vk);
    VkResult r = vk->vkd.vkFlushMappedMemoryRanges(vk->device, 1, &range);
    return r == VK_SUCCESS ? SLC_OK : slc__vk_fail(vk, "vkFlushMappedMemoryRanges", r, before);
}

/* Allocates, binds and (if map) maps and touches memory for buffer. */
static slc_status back_buffer(slc_vulkan *vk, VkBuffer buffer, VkDeviceSize size, uint32_t type, bool map,
                              bool coherent, VkDeviceMemory *memory, unsigned char **mapped)
{
    VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    ai.allocationSize = size;
    ai.memoryTypeIndex = type;
    vk_refusals before = slc__vk_refusals(vk);
    VkResult r = vk->vkd.vkAllocateMemory(vk->device, &ai, &vk->cb, memory);
    if (r != VK_SUCCESS) {
        *memory = VK_NULL_HANDLE;
        return slc__vk_fail(vk, "vkAllocateMemory", r, before);
    }
    before = slc__vk_refusals(vk);
    r = vk->vkd.vkBindBufferMemory(vk->device, buffer, *memory, 0);
    if (r != VK_SUCCESS) {
        return slc__vk_fail(vk, "vkBindBufferMemory", r, before);
    }
    if (!map) {
        return SLC_OK;
    }
    void *p;
    before = slc__vk_refusals(vk);
    r = vk->vkd.vkMapMemory(vk->device, *memory, 0, VK_WHOLE_SIZE, 0, &p);
    if (r != VK_SUCCESS) {
        return slc__vk_fail(vk, "vkMapMemory", r, before);
    }
    *mapped = p;
    if ((vk->flags & SLC_VULKAN_NO_TOUCH) == 0) {
        /* Every byte written once now: no page fault on the hot path, and a
         * fresh page reads as zeros. */
        memset(p, 0, (size_t)size);
        if (!coherent) {
            return flush_all(vk, *memory);
        }
    }
    return SLC_OK;
}

static slc_status create_buffer(slc_vulkan *vk, VkDeviceSize size, VkBufferUsageFlags usage, VkBuffer *out,
                                VkMemoryRequirements *req)
{
    VkBufferCreateInfo bi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    bi.size = size;
    bi.usage = usage;
    bi.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    vk_refusals before = slc__vk_refusals(vk);
    VkResult r = vk->vkd.vkCreateBuffer(vk->device, &bi, &vk->cb, out);
    if (r != VK_SUCCESS) {
        *out = VK_NULL_HANDLE;
        memset(req, 0, sizeof *req); /* every output is defined on failure too */
        return slc__vk_fail(vk, "vkCreateBuffer", r, before);
    }
    vk->vkd.vkGetBufferMemoryRequirements(vk->device, *out, req);
    return SLC_OK;
}

static slc_status charge(slc_vulkan *vk, slc_budget_id id, uint64_t bytes, const char *what)
{
    if (vk->budgets == NULL) {
        return SLC_OK;
    }
    slc_budget_refusal why;
    if (slc_budgets_reserve(vk->budgets, id, bytes, &why) != SLC_OK) {
        slc_budget_stats b;
        slc_budgets_get(vk->budgets, why.refused_by, &b);
        return slc__vk_log(vk, SLC_LOG_ERROR, SLC_E_BUDGET_REFUSED,
                           "vulkan: the %s budget refused the %s's %llu bytes (%llu in use of its limit %llu)", b.name,
                           what, (unsigned long long)bytes, (unsigned long long)why.current,
                           (unsigned long long)why.limit);
    }
    return SLC_OK;
}

static slc_status build_belt(slc_vulkan *vk, const VkPhysicalDeviceMemoryProperties *mp,
                             const VkPhysicalDeviceMemoryBudgetPropertiesEXT *bp, uint64_t pool_bytes)
{
    VkDeviceSize size = (VkDeviceSize)vk->slot_count * vk->page_size;
    VkMemoryRequirements req;
    slc_status s = create_buffer(vk, size, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, &vk->belt, &req);
    if (s != SLC_OK) {
        return s;
    }
    int t = find_type(mp, req.memoryTypeBits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                      VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    if (t < 0) {
        return slc__vk_log(vk, SLC_LOG_ERROR, SLC_E_UNSUPPORTED,
                           "vulkan: %s has no HOST_VISIBLE memory type for the staging belt", vk->device_name);
    }
    vk->belt_type = (uint32_t)t;
    uint32_t heap = mp->memoryTypes[t].heapIndex;
    const char *source;
    uint64_t avail = heap_available(vk, mp, bp, heap, &source);
    uint64_t before_belt = heap == vk->pool_heap ? pool_bytes : 0u;
    uint64_t left = avail > before_belt ? avail - before_belt : 0u;
    if (req.size > left) {
        return slc__vk_log(vk, SLC_LOG_ERROR, SLC_E_DEVICE_MEMORY,
                           "vulkan: the staging belt needs %llu bytes (%u pages of %u bytes) but memory heap %u (%s, "
                           "%llu bytes) has %llu bytes available after the page pool's %llu (%s)",
                           (unsigned long long)req.size, vk->slot_count, vk->page_size, heap, heap_kind(mp, heap),
                           (unsigned long long)mp->memoryHeaps[heap].size, (unsigned long long)left,
                           (unsigned long long)before_belt, source);
    }
    if (vk->budgets != NULL) {
        if (!vk->has_staging_budget) {
            return slc__vk_log(vk, SLC_LOG_ERROR, SLC_E_NOT_FOUND,
                               "vulkan: the staging belt is used but there is no budget named 'gpu/staging' to charge");
        }
        s = charge(vk, vk->staging_id, req.size, "staging belt");
        if (s != SLC_OK) {
            return s;
        }
        vk->staging_charged = req.size;
    }
    bool coherent = (mp->memoryTypes[t].propertyFlags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT) != 0 &&
                    (vk->flags & SLC_VULKAN_FLUSH_ALWAYS) == 0;
    vk->coherent = coherent;
    vk->belt_alloc_size = req.size;
    s = back_buffer(vk, vk->belt, req.size, (uint32_t)t, true, coherent, &vk->belt_memory, &vk->belt_map);
    if (s == SLC_OK) {
        slc__vk_name(vk, VK_OBJECT_TYPE_BUFFER, (uint64_t)vk->belt, "sluice staging belt");
        slc__vk_name(vk, VK_OBJECT_TYPE_DEVICE_MEMORY, (uint64_t)vk->belt_memory, "sluice staging belt memory");
    }
    return s;
}

/* Segment i of a pool split into segments of pps pages: its pages, their
 * bytes; segment_count counts it (teardown destroys what was made). */
static void place_segment(slc_vulkan *vk, uint32_t i, uint32_t pps)
{
    vk_segment *g = &vk->segments[i];
    g->first_page = i * pps;
    g->page_count = vk->page_count - g->first_page < pps ? vk->page_count - g->first_page : pps;
    g->size = (VkDeviceSize)g->page_count * vk->page_size;
    vk->segment_count = i + 1u;
}

/* The pool's total bytes (what: "the page pool needs", "the atlas images
 * need") against the heap of vk->pool_type, then charged to its budget. */
static slc_status reserve_pool(slc_vulkan *vk, const VkPhysicalDeviceMemoryProperties *mp,
                               const VkPhysicalDeviceMemoryBudgetPropertiesEXT *bp, uint64_t total, const char *needs,
                               const char *what)
{
    vk->pool_heap = mp->memoryTypes[vk->pool_type].heapIndex;
    const char *source;
    uint64_t avail = heap_available(vk, mp, bp, vk->pool_heap, &source);
    vk->heap_available = avail;
    if (total > avail) {
        return slc__vk_log(vk, SLC_LOG_ERROR, SLC_E_DEVICE_MEMORY,
                           "vulkan: %s %llu bytes (%u pages of %u bytes) but memory heap %u (%s, %llu bytes) has %llu "
                           "bytes available (%s)",
                           needs, (unsigned long long)total, vk->page_count, vk->page_size, vk->pool_heap,
                           heap_kind(mp, vk->pool_heap), (unsigned long long)mp->memoryHeaps[vk->pool_heap].size,
                           (unsigned long long)avail, source);
    }
    slc_status s = charge(vk, vk->pool_id, total, what);
    if (s == SLC_OK) {
        vk->pool_charged = vk->budgets != NULL ? total : 0u;
    }
    return s;
}

/* The layers' shape: page_size bytes of the format's blocks, as square
 * as a power of two allows (blocks a row the larger half). */
static void layer_shape(slc_vulkan *vk)
{
    uint32_t blocks = vk->page_size / vk->block_bytes; /* both powers of two */
    uint32_t shift = 0;
    while ((1u << shift) < blocks) {
        shift++;
    }
    vk->page_blocks = 1u << ((shift + 1u) / 2u);
    vk->page_width = vk->page_blocks * vk->block_width;
    vk->page_height = (blocks / vk->page_blocks) * vk->block_height;
}

/* The pool as atlas images: segments of whole layers, device-local, never
 * mapped; the belt carries every write. */
static slc_status build_images(slc_vulkan *vk, const VkPhysicalDeviceLimits *lim, uint64_t max_alloc,
                               const VkPhysicalDeviceMemoryProperties *mp,
                               const VkPhysicalDeviceMemoryBudgetPropertiesEXT *bp)
{
    (void)slc_pack_texel_block(vk->image_texel, &vk->block_width, &vk->block_height, &vk->block_bytes);
    layer_shape(vk);
    if ((vk->sampled_formats & (1u << vk->image_texel)) == 0) {
        return slc__vk_log(vk, SLC_LOG_ERROR, SLC_E_UNSUPPORTED,
                           "vulkan: %s does not sample %s (VkFormat %d) in optimal tiling, or its compression feature "
                           "is not enabled: no atlas image of it",
                           vk->device_name, slc_pack_texel_format_name(vk->image_texel), (int)vk->image_format);
    }
    if (vk->page_width > lim->maxImageDimension2D || vk->page_height > lim->maxImageDimension2D) {
        return slc__vk_log(vk, SLC_LOG_ERROR, SLC_E_UNSUPPORTED,
                           "vulkan: a page of %u bytes is a layer of %ux%u texels, above the device's "
                           "maxImageDimension2D %u",
                           vk->page_size, vk->page_width, vk->page_height, lim->maxImageDimension2D);
    }
    /* Pages a layer: as few as let one image hold every page, as many as
     * maxImageDimension2D allows. */
    const uint64_t layers = lim->maxImageArrayLayers != 0 ? lim->maxImageArrayLayers : 1u;
    uint64_t ppl = (vk->page_count + layers - 1u) / layers;
    const uint64_t tall = lim->maxImageDimension2D / vk->page_height;
    if (ppl > tall) {
        ppl = tall;
    }
    if (ppl == 0) {
        ppl = 1;
    }
    vk->pages_per_layer = (uint32_t)ppl;
    uint64_t pps = layers * ppl;
    const char *limit = "maxImageArrayLayers";
    if (max_alloc / vk->page_size < pps) {
        pps = max_alloc / vk->page_size;
        limit = "maxMemoryAllocationSize";
    }
    if (vk->max_segment_size != 0 && vk->max_segment_size / vk->page_size < pps) {
        pps = vk->max_segment_size / vk->page_size;
        limit = "the desc's max_segment_size";
    }
    pps -= pps % ppl; /* whole layers */
    if (pps > vk->page_count) {
        pps = vk->page_count;
    }
    if (pps == 0) {
        return slc__vk_log(vk, SLC_LOG_ERROR, SLC_E_UNSUPPORTED,
                           "vulkan: an atlas image may hold no layer of %llu pages of %u bytes (%s)",
                           (unsigned long long)ppl, vk->page_size, limit);
    }
    uint64_t count = (vk->page_count + pps - 1u) / pps;
    if (count > vk->segment_capacity) {
        return slc__vk_log(vk, SLC_LOG_ERROR, SLC_E_UNSUPPORTED,
                           "vulkan: the device's %s splits the pool into %llu atlas images; the footprint allows %u",
                           limit, (unsigned long long)count, vk->segment_capacity);
    }
    vk->pages_per_segment = (uint32_t)pps;
    vk->segment_size = (VkDeviceSize)pps * vk->page_size;

    uint32_t bits = ~0u;
    uint64_t total = 0;
    for (uint32_t i = 0; i < (uint32_t)count; i++) {
        place_segment(vk, i, (uint32_t)pps);
        vk_segment *g = &vk->segments[i];
        VkImageCreateInfo ii = {.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
        ii.imageType = VK_IMAGE_TYPE_2D;
        ii.format = vk->image_format;
        ii.extent.width = vk->page_width;
        ii.extent.height = vk->page_height * vk->pages_per_layer;
        ii.extent.depth = 1;
        ii.mipLevels = 1;
        ii.arrayLayers = slc__vk_segment_layers(vk, g);
        ii.samples = VK_SAMPLE_COUNT_1_BIT;
        ii.tiling = VK_IMAGE_TILING_OPTIMAL;
        ii.usage = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
        ii.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
        ii.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
        vk_refusals before = slc__vk_refusals(vk);
        VkResult r = vk->vkd.vkCreateImage(vk->device, &ii, &vk->cb, &g->image);
        if (r != VK_SUCCESS) {
            g->image = VK_NULL_HANDLE;
            return slc__vk_fail(vk, "vkCreateImage", r, before);
        }
        VkMemoryRequirements req;
        vk->vkd.vkGetImageMemoryRequirements(vk->device, g->image, &req);
        bits &= req.memoryTypeBits;
        g->alloc_size = req.size;
        total += req.size;
    }
    int t = find_type(mp, bits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT);
    if (t < 0) {
        t = find_type(mp, bits, 0, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0);
    }
    if (t < 0) {
        return slc__vk_log(vk, SLC_LOG_ERROR, SLC_E_UNSUPPORTED, "vulkan: %s has no memory type for the atlas images",
                           vk->device_name);
    }
    vk->unified = false;
    vk->pool_type = (uint32_t)t;
    slc_status s = reserve_pool(vk, mp, bp, total, "the atlas images need", "atlas images");
    if (s != SLC_OK) {
        return s;
    }
    for (uint32_t i = 0; i < vk->segment_count; i++) {
        vk_segment *g = &vk->segments[i];
        VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
        ai.allocationSize = g->alloc_size;
        ai.memoryTypeIndex = vk->pool_type;
        vk_refusals before = slc__vk_refusals(vk);
        VkResult r = vk->vkd.vkAllocateMemory(vk->device, &ai, &vk->cb, &g->memory);
        if (r != VK_SUCCESS) {
            g->memory = VK_NULL_HANDLE;
            return slc__vk_fail(vk, "vkAllocateMemory", r, before);
        }
        before = slc__vk_refusals(vk);
        r = vk->vkd.vkBindImageMemory(vk->device, g->image, g->memory, 0);
        if (r != VK_SUCCESS) {
            return slc__vk_fail(vk, "vkBindImageMemory", r, before);
        }
        VkImageViewCreateInfo vi = {.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
        vi.image = g->image;
        vi.viewType = VK_IMAGE_VIEW_TYPE_2D_ARRAY;
        vi.format = vk->image_format;
        vi.subresourceRange.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
        vi.subresourceRange.levelCount = 1;
        vi.subresourceRange.layerCount = slc__vk_segment_layers(vk, g);
        before = slc__vk_refusals(vk);
        r = vk->vkd.vkCreateImageView(vk->device, &vi, &vk->cb, &g->view);
        if (r != VK_SUCCESS) {
            g->view = VK_NULL_HANDLE;
            return slc__vk_fail(vk, "vkCreateImageView", r, before);
        }
        slc__vk_name(vk, VK_OBJECT_TYPE_IMAGE, (uint64_t)g->image, "sluice atlas image %u", i);
        slc__vk_name(vk, VK_OBJECT_TYPE_DEVICE_MEMORY, (uint64_t)g->memory, "sluice atlas image %u memory", i);
    }
    return build_belt(vk, mp, bp, total);
}

slc_status slc__vk_build_pool(slc_vulkan *vk)
{
    VkPhysicalDeviceMaintenance3Properties m3 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES};
    VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
    p2.pNext = &m3;
    vk->vki.GetPhysicalDeviceProperties2(vk->physical, &p2);
    const VkPhysicalDeviceLimits *lim = &p2.properties.limits;
    vk->atom = lim->nonCoherentAtomSize != 0 ? lim->nonCoherentAtomSize : 1u;

    VkPhysicalDeviceMemoryBudgetPropertiesEXT bp = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_BUDGET_PROPERTIES_EXT};
    VkPhysicalDeviceMemoryProperties2 mp2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_PROPERTIES_2};
    if (vk->memory_budget_ext) {
        mp2.pNext = &bp;
    }
    vk->vki.GetPhysicalDeviceMemoryProperties2(vk->physical, &mp2);
    const VkPhysicalDeviceMemoryProperties *mp = &mp2.memoryProperties;
    if (vk->image_texel != 0) {
        return build_images(vk, lim, m3.maxMemoryAllocationSize, mp, &bp);
    }

    /* Segments: as large as one allocation and one storage buffer range may
     * be (or the desc's override), in whole pages. */
    uint64_t seg = m3.maxMemoryAllocationSize;
    const char *limit = "maxMemoryAllocationSize";
    if (lim->maxStorageBufferRange < seg) {
        seg = lim->maxStorageBufferRange;
        limit = "maxStorageBufferRange";
    }
    if (vk->max_segment_size != 0 && vk->max_segment_size < seg) {
        seg = vk->max_segment_size;
        limit = "the desc's max_segment_size";
    }
    uint64_t pps = seg / vk->page_size;
    if (pps == 0) {
        return slc__vk_log(vk, SLC_LOG_ERROR, SLC_E_UNSUPPORTED,
                           "vulkan: a page of %u bytes is larger than a segment may be (%llu bytes, %s)", vk->page_size,
                           (unsigned long long)seg, limit);
    }
    if (pps > vk->page_count) {
        pps = vk->page_count;
    }
    uint64_t count = (vk->page_count + pps - 1u) / pps;
    if (count > vk->segment_capacity) {
        return slc__vk_log(vk, SLC_LOG_ERROR, SLC_E_UNSUPPORTED,
                           "vulkan: the device's %s (%llu bytes) splits the pool into %llu segments; the footprint "
                           "allows %u",
                           limit, (unsigned long long)seg, (unsigned long long)count, vk->segment_capacity);
    }
    vk->pages_per_segment = (uint32_t)pps;
    vk->segment_size = (VkDeviceSize)pps * vk->page_size;

    /* The buffers first: their requirements say which types and how many
     * bytes, so the heap can be checked before any memory is taken. */
    VkBufferUsageFlags usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                               VK_BUFFER_USAGE_TRANSFER_DST_BIT | vk->extra_usage;
    uint32_t bits = ~0u;
    uint64_t total = 0;
    for (uint32_t i = 0; i < (uint32_t)count; i++) {
        place_segment(vk, i, (uint32_t)pps);
        vk_segment *g = &vk->segments[i];
        VkMemoryRequirements req;
        slc_status s = create_buffer(vk, g->size, usage, &g->buffer, &req);
        if (s != SLC_OK) {
            return s;
        }
        bits &= req.memoryTypeBits;
        g->alloc_size = req.size;
        total += req.size;
    }

    int t = -1;
    if (vk->placement != SLC_VULKAN_PLACEMENT_STAGING) {
        t = find_type(mp, bits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT | VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT,
                      VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, 0);
        if (t < 0 && vk->placement == SLC_VULKAN_PLACEMENT_UNIFIED) {
            return slc__vk_log(vk, SLC_LOG_ERROR, SLC_E_UNSUPPORTED,
                               "vulkan: %s has no DEVICE_LOCAL and HOST_VISIBLE memory type for the pool, and the desc "
                               "requires unified memory",
                               vk->device_name);
        }
    }
    vk->unified = t >= 0;
    if (t < 0) {
        t = find_type(mp, bits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT);
    }
    if (t < 0) {
        t = find_type(mp, bits, 0, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0);
    }
    if (t < 0) {
        return slc__vk_log(vk, SLC_LOG_ERROR, SLC_E_UNSUPPORTED, "vulkan: %s has no memory type for the pool's buffers",
                           vk->device_name);
    }
    vk->pool_type = (uint32_t)t;
    bool coherent = (mp->memoryTypes[t].propertyFlags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT) != 0 &&
                    (vk->flags & SLC_VULKAN_FLUSH_ALWAYS) == 0;
    if (vk->unified) {
        vk->coherent = coherent;
    }

    slc_status s = reserve_pool(vk, mp, &bp, total, "the page pool needs", "page pool");
    if (s != SLC_OK) {
        return s;
    }

    for (uint32_t i = 0; i < vk->segment_count; i++) {
        vk_segment *g = &vk->segments[i];
        s = back_buffer(vk, g->buffer, g->alloc_size, vk->pool_type, vk->unified, coherent, &g->memory, &g->mapped);
        if (s != SLC_OK) {
            return s;
        }
        slc__vk_name(vk, VK_OBJECT_TYPE_BUFFER, (uint64_t)g->buffer, "sluice pool segment %u", i);
        slc__vk_name(vk, VK_OBJECT_TYPE_DEVICE_MEMORY, (uint64_t)g->memory, "sluice pool segment %u memory", i);
    }
    if (!vk->unified) {
        return build_belt(vk, mp, &bp, total);
    }
    return SLC_OK;
}

void slc__vk_destroy_pool(slc_vulkan *vk)
{
    for (uint32_t i = 0; i < vk->segment_count; i++) {
        vk_segment *g = &vk->segments[i];
        if (g->buffer != VK_NULL_HANDLE) {
            vk->vkd.vkDestroyBuffer(vk->device, g->buffer, &vk->cb);
        }
        if (g->view != VK_NULL_HANDLE) {
            vk->vkd.vkDestroyImageView(vk->device, g->view, &vk->cb);
        }
        if (g->image != VK_NULL_HANDLE) {
            vk->vkd.vkDestroyImage(vk->device, g->image, &vk->cb);
        }
        if (g->memory != VK_NULL_HANDLE) {
            vk->vkd.vkFreeMemory(vk->device, g->memory, &vk->cb); /* unmaps */
        }
        memset(g, 0, sizeof *g);
    }
    vk->segment_count = 0;
    if (vk->belt != VK_NULL_HANDLE) {
        vk->vkd.vkDestroyBuffer(vk->device, vk->belt, &vk->cb);
        vk->belt = VK_NULL_HANDLE;
    }
    if (vk->belt_memory != VK_NULL_HANDLE) {
        vk->vkd.vkFreeMemory(vk->device, vk->belt_memory, &vk->cb);
        vk->belt_memory = VK_NULL_HANDLE;
        vk->belt_map = NULL;
    }
    if (vk->budgets != NULL) {
        if (vk->pool_charged != 0) {
            slc_budgets_release(vk->budgets, vk->pool_id, vk->pool_charged);
        }
        if (vk->staging_charged != 0) {
            slc_budgets_release(vk->budgets, vk->staging_id, vk->staging_charged);
        }
    }
    vk->pool_charged = 0;
    vk->staging_charged = 0;
}
