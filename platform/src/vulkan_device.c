/* SPDX-License-Identifier: MIT */
/* sluice: the Vulkan backend — instance and device, adoption, the memory
 * layout, init and deinit (see sluice/vulkan.h). */
#include "vulkan_internal.h"

#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sluice/pack.h"
#include "sluice/pack_format.h"
#include "sluice/version.h"

/* --- loader and function tables ------------------------------------------ */

static slc__once loader_once = SLC__ONCE_INIT;
static PFN_vkGetInstanceProcAddr loader_gipa;

static void open_loader(void)
{
    if (volkInitialize() == VK_SUCCESS) {
        loader_gipa = vkGetInstanceProcAddr; /* volk's, set once here */
    }
}

/* The loader's vkGetInstanceProcAddr, or NULL when there is no loader. */
static PFN_vkGetInstanceProcAddr find_loader(void)
{
    slc__once_run(&loader_once, open_loader);
    return loader_gipa;
}

#define LOAD_I(vk, gipa, name) (vk)->vki.name = (PFN_vk##name)(gipa)((vk)->instance, "vk" #name)

static void load_instance_table(slc_vulkan *vk, PFN_vkGetInstanceProcAddr gipa)
{
    vk->vki.GetInstanceProcAddr = gipa;
    LOAD_I(vk, gipa, DestroyInstance);
    LOAD_I(vk, gipa, EnumeratePhysicalDevices);
    LOAD_I(vk, gipa, GetPhysicalDeviceProperties);
    LOAD_I(vk, gipa, GetPhysicalDeviceProperties2);
    LOAD_I(vk, gipa, GetPhysicalDeviceFeatures2);
    LOAD_I(vk, gipa, GetPhysicalDeviceFormatProperties);
    LOAD_I(vk, gipa, GetPhysicalDeviceQueueFamilyProperties);
    LOAD_I(vk, gipa, GetPhysicalDeviceMemoryProperties2);
    LOAD_I(vk, gipa, EnumerateDeviceExtensionProperties);
    LOAD_I(vk, gipa, CreateDevice);
    LOAD_I(vk, gipa, GetDeviceProcAddr);
    LOAD_I(vk, gipa, CreateDebugUtilsMessengerEXT);
    LOAD_I(vk, gipa, DestroyDebugUtilsMessengerEXT);
    if (vk->debug_utils) {
        LOAD_I(vk, gipa, SetDebugUtilsObjectNameEXT);
        LOAD_I(vk, gipa, CmdBeginDebugUtilsLabelEXT);
        LOAD_I(vk, gipa, CmdEndDebugUtilsLabelEXT);
    }
}

/* volkLoadDeviceTable resolves names through volk's global
 * vkGetDeviceProcAddr, which only volkLoadInstance sets. The backend points
 * that global at its own instance's function for the duration of the call
 * and puts back what was there, under a lock, so that each table comes from
 * its own instance and two backends can load at once. (An application that
 * uses volk's globals from another thread while a backend initialises could
 * see the swap: initialise sluice before, or from the same thread.) */
static slc__mutex volk_global_lock = SLC__MUTEX_INIT;

static void load_device_table(slc_vulkan *vk)
{
    slc__mutex_lock(&volk_global_lock);
    PFN_vkGetDeviceProcAddr saved = vkGetDeviceProcAddr;
    vkGetDeviceProcAddr = vk->vki.GetDeviceProcAddr;
    volkLoadDeviceTable(&vk->vkd, vk->device);
    vkGetDeviceProcAddr = saved;
    slc__mutex_unlock(&volk_global_lock);
}

/* --- the desc and the memory layout -------------------------------------- */

typedef struct vk_config {
    uint32_t page_size;
    uint32_t page_count;
    uint32_t frames;
    uint32_t placement;
    uint32_t flags;
    uint32_t slots;
    uint64_t driver_heap;
    uint64_t max_segment_size;
    uint32_t image_texel;
} vk_config;

typedef struct vk_layout {
    size_t segments, markers, recent, copy_cmds, acquire_cmds, copy_done;
    size_t slot_state, page_slot, page_copy, copies, regions, image_regions, image_barriers, barriers, heap, total;
    uint32_t segment_capacity, marker_count;
} vk_layout;

static const char *check_desc(const slc_vulkan_desc *d, vk_config *c)
{
    c->page_size = d->page_size != 0 ? d->page_size : SLC_DEFAULT_PAGE_SIZE;
    c->page_count = d->page_count != 0 ? d->page_count : SLC_DEFAULT_PAGE_COUNT;
    c->frames = d->frames_in_flight != 0 ? d->frames_in_flight : SLC_DEFAULT_FRAMES_IN_FLIGHT;
    c->placement = d->placement;
    c->flags = d->flags;
    c->driver_heap = d->driver_heap_size != 0 ? d->driver_heap_size : SLC_VULKAN_DEFAULT_DRIVER_HEAP;
    c->max_segment_size = d->max_segment_size;
    if ((c->page_size & (c->page_size - 1u)) != 0 || c->page_size < SLC_PAGE_SIZE_MIN ||
        c->page_size > SLC_PAGE_SIZE_MAX) {
        return "page_size is not a power of two between 4 KiB and 64 MiB";
    }
    if (c->page_count > SLC_PAGE_COUNT_MAX) {
        return "page_count is above SLC_PAGE_COUNT_MAX";
    }
    if (c->frames > SLC_FRAMES_IN_FLIGHT_MAX) {
        return "frames_in_flight is above SLC_FRAMES_IN_FLIGHT_MAX";
    }
    if (c->placement > SLC_VULKAN_PLACEMENT_UNIFIED) {
        return "placement is not an slc_vulkan_placement";
    }
    if ((c->flags & ~(uint32_t)(SLC_VULKAN_NO_TIMELINE | SLC_VULKAN_FLUSH_ALWAYS | SLC_VULKAN_NO_TOUCH)) != 0) {
        return "flags holds an unknown bit";
    }
    if (d->reserved0 != 0 || d->reserved2 != 0) {
        return "a reserved field is not zero";
    }
    c->image_texel = d->image_texel;
    uint32_t bw, bh, bb;
    if (c->image_texel != 0 && slc_pack_texel_block(c->image_texel, &bw, &bh, &bb) != 0) {
        return "image_texel is not an SLC_PACK_TEXEL_* format";
    }
    if (c->image_texel != 0 && c->placement == SLC_VULKAN_PLACEMENT_UNIFIED) {
        return "image_texel is set with placement UNIFIED, but atlas images are written through the staging belt";
    }
    if (d->layer_count != 0 && d->layers == NULL) {
        return "layer_count is set but layers is NULL";
    }
    uint64_t staging = d->staging_size != 0 ? d->staging_size
                                            : (uint64_t)SLC_VULKAN_DEFAULT_STAGING_PAGES * c->page_size;
    if (staging < c->page_size) {
        return "staging_size is smaller than a page";
    }
    uint64_t slots = staging / c->page_size;
    if (slots > SLC_PAGE_COUNT_MAX) {
        return "staging_size holds more than SLC_PAGE_COUNT_MAX pages";
    }
    c->slots = c->placement == SLC_VULKAN_PLACEMENT_UNIFIED ? 0u : (uint32_t)slots;
    if (c->image_texel != 0) {
        c->placement = SLC_VULKAN_PLACEMENT_STAGING;
    }
    if (c->driver_heap < SLC_HEAP_FOOTPRINT(4096u) || c->driver_heap > SIZE_MAX / 2u) {
        return "driver_heap_size is below SLC_HEAP_FOOTPRINT(4096) or above half the address space";
    }
    return NULL;
}

/* Reserves count items of size bytes at the next multiple of align; sets
 * *overflow instead of wrapping (32-bit targets). */
static size_t place(size_t *at, uint64_t count, size_t size, size_t align, bool *overflow)
{
    uint64_t here = ((uint64_t)*at + align - 1u) & ~(uint64_t)(align - 1u);
    uint64_t end = here + count * size; /* count <= 2^24 and size <= 2^40 or so: no 64-bit wrap */
    if (end > SIZE_MAX) {
        *overflow = true;
        return 0;
    }
    *at = (size_t)end;
    return (size_t)here;
}

/* Fails iff the layout does not fit the address space. */
static bool layout(const vk_config *c, vk_layout *l)
{
    /* The fewest pages a segment may hold: the spec's smallest storage
     * buffer range, or the desc's override if smaller. */
    uint64_t seg_min = SLC_VULKAN_SEGMENT_MIN;
    if (c->max_segment_size != 0 && c->max_segment_size < seg_min) {
        seg_min = c->max_segment_size;
    }
    uint64_t pps = seg_min / c->page_size;
    if (pps == 0) {
        pps = 1;
    }
    if (c->image_texel != 0 && pps > SLC_VULKAN_IMAGE_LAYERS_MIN) {
        pps = SLC_VULKAN_IMAGE_LAYERS_MIN; /* the fewest layers an image may have */
    }
    l->segment_capacity = (uint32_t)((c->page_count + pps - 1u) / pps);
    l->marker_count = 2u * (c->frames + 1u) + 2u;
    uint32_t cmds = c->frames + 1u;
    bool over = false;
    size_t at = sizeof(struct slc_vulkan);
    l->segments = place(&at, l->segment_capacity, sizeof(vk_segment), 16, &over);
    l->markers = place(&at, l->marker_count, sizeof(vk_marker), 16, &over);
    l->recent = place(&at, c->frames, sizeof(uint64_t), 16, &over);
    l->copy_cmds = place(&at, cmds, sizeof(VkCommandBuffer), 16, &over);
    l->acquire_cmds = place(&at, cmds, sizeof(VkCommandBuffer), 16, &over);
    l->copy_done = place(&at, cmds, sizeof(VkSemaphore), 16, &over);
    uint32_t pages = c->slots != 0 ? c->page_count : 0u;
    l->slot_state = place(&at, c->slots, sizeof(uint64_t), 16, &over);
    l->page_slot = place(&at, pages, sizeof(uint32_t), 16, &over);
    l->page_copy = place(&at, pages, sizeof(uint32_t), 16, &over);
    l->copies = place(&at, c->slots, sizeof(vk_copy), 16, &over);
    l->regions = place(&at, c->slots, sizeof(VkBufferCopy), 16, &over);
    l->image_regions = place(&at, c->image_texel != 0 ? c->slots : 0u, sizeof(VkBufferImageCopy), 16, &over);
    l->image_barriers = place(&at, c->image_texel != 0 ? c->slots : 0u, sizeof(VkImageMemoryBarrier), 16, &over);
    l->barriers = place(&at, c->slots, sizeof(VkBufferMemoryBarrier), 16, &over);
    l->heap = place(&at, 1, (size_t)c->driver_heap, SLC_HEAP_ALIGN, &over);
    l->total = at;
    return !over;
}

size_t slc_vulkan_footprint(const slc_vulkan_desc *desc)
{
    slc_vulkan_desc zero;
    if (desc == NULL) {
        memset(&zero, 0, sizeof zero);
        desc = &zero;
    }
    vk_config c;
    if (check_desc(desc, &c) != NULL) {
        return 0;
    }
    vk_layout l;
    return layout(&c, &l) ? l.total : 0u;
}

void slc_vulkan_desc_from_spec(slc_vulkan_desc *desc, const slc_pool_spec *spec, const slc_profile *p)
{
    SLC_ASSERT(desc != NULL && spec != NULL && p != NULL);
    desc->page_size = spec->page_size;
    desc->page_count = spec->pool.page_count;
    desc->frames_in_flight = spec->pool.frames_in_flight;
    desc->staging_size = spec->staging_size;
    desc->pool_budget = spec->budget;
    desc->profile_name = p->name;
    int driver = slc_profile_scan_budget(p, "cpu/driver");
    if (driver >= 0) {
        desc->driver_heap_size = p->budgets[driver].limit;
    }
}

/* --- common init and teardown -------------------------------------------- */

static void teardown(slc_vulkan *vk)
{
    if (vk->device != VK_NULL_HANDLE && vk->vkd.vkDestroyDevice != NULL) {
        if (vk->lock_ready) {
            slc__vk_wait_all(vk, UINT64_C(10) * 1000u * 1000u * 1000u); /* 10 s (in 32 bits it wrapped to 1.4 s) */
        }
        slc__vk_destroy_frames(vk);
        slc__vk_destroy_pool(vk);
        if (vk->own_device) {
            vk->vkd.vkDestroyDevice(vk->device, &vk->cb);
        }
    }
    vk->device = VK_NULL_HANDLE;
    if (vk->messenger != VK_NULL_HANDLE) {
        vk->vki.DestroyDebugUtilsMessengerEXT(vk->instance, vk->messenger, &vk->cb);
        vk->messenger = VK_NULL_HANDLE;
    }
    if (vk->own_instance && vk->instance != VK_NULL_HANDLE) {
        vk->vki.DestroyInstance(vk->instance, &vk->cb);
    }
    vk->instance = VK_NULL_HANDLE;
    if (vk->heap != NULL) {
        slc_heap_stats s;
        slc_heap_get_stats(vk->heap, &s);
        if (s.live != 0) {
            /* The driver kept host memory past the destruction of every
             * object that could own it. The heap goes away with the backend,
             * so its bytes are returned to the budget; the leak is reported. */
            slc__vk_log(vk, SLC_LOG_WARN, SLC_OK,
                        "vulkan: the driver kept %zu bytes in %zu host allocations after its objects were destroyed",
                        s.used, s.live);
            if (vk->budgets != NULL) {
                slc_budgets_release(vk->budgets, vk->driver_id, s.used);
            }
        }
        vk->heap = NULL;
    }
    if (vk->lock_ready) {
        slc__mutex_destroy(&vk->lock);
        vk->lock_ready = false;
    }
}

static slc_status find_budget(slc_vulkan *vk, const char *name, const char *fallback, slc_budget_id *out, bool required)
{
    const char *n = name != NULL ? name : fallback;
    if (slc_budgets_scan(vk->budgets, n, out) != SLC_OK) {
        if (!required) {
            return SLC_E_NOT_FOUND;
        }
        return slc__vk_log(vk, SLC_LOG_ERROR, SLC_E_NOT_FOUND, "vulkan: no budget named '%s' to charge", n);
    }
    return SLC_OK;
}

/* Checks the memory and the desc, carves the memory, builds the heap. */
static slc_status begin(void *mem, size_t size, const slc_vulkan_desc *desc, slc_vulkan **out, slc_vulkan **vk_out)
{
    SLC_ASSERT(out != NULL);
    *out = NULL;
    *vk_out = NULL;
    slc_vulkan_desc zero;
    if (desc == NULL) {
        memset(&zero, 0, sizeof zero);
        desc = &zero;
    }
    vk_config c;
    vk_layout l;
    const char *why = check_desc(desc, &c);
    if (why == NULL && !layout(&c, &l)) {
        why = "the pool's tables and the driver heap do not fit the address space";
    }
    if (why != NULL) {
        if (desc->log.fn != NULL) {
            char msg[160];
            snprintf(msg, sizeof msg, "vulkan: invalid desc: %s", why);
            desc->log.fn(desc->log.user, SLC_LOG_ERROR, SLC_E_INVALID, msg);
        }
        return SLC_E_INVALID;
    }
    if (mem == NULL) {
        return SLC_E_BLOCK_NULL;
    }
    if (((uintptr_t)mem % SLC_VULKAN_ALIGN) != 0) {
        return SLC_E_BLOCK_MISALIGNED;
    }
    if (size < l.total) {
        if (desc->log.fn != NULL) {
            char msg[160];
            snprintf(msg, sizeof msg, "vulkan: the memory given has %zu bytes, the desc needs %zu", size, l.total);
            desc->log.fn(desc->log.user, SLC_LOG_ERROR, SLC_E_BLOCK_TOO_SMALL, msg);
        }
        return SLC_E_BLOCK_TOO_SMALL;
    }
    unsigned char *base = mem;
    memset(base, 0, l.heap);
    slc_vulkan *vk = mem;
    vk->log = desc->log;
    vk->page_size = c.page_size;
    vk->page_count = c.page_count;
    vk->frames = c.frames;
    vk->placement = c.placement;
    vk->flags = c.flags;
    vk->extra_usage = desc->extra_usage;
    vk->image_texel = c.image_texel;
    vk->image_format = c.image_texel != 0 ? slc_vulkan_texel_format(c.image_texel, false) : VK_FORMAT_UNDEFINED;
    vk->max_segment_size = c.max_segment_size;
    vk->heap_budget_override = desc->heap_budget;
    vk->segments = (vk_segment *)(void *)(base + l.segments);
    vk->segment_capacity = l.segment_capacity;
    vk->markers = (vk_marker *)(void *)(base + l.markers);
    vk->marker_count = l.marker_count;
    vk->recent_frames = (uint64_t *)(void *)(base + l.recent);
    vk->copy_cmds = (VkCommandBuffer *)(void *)(base + l.copy_cmds);
    vk->acquire_cmds = (VkCommandBuffer *)(void *)(base + l.acquire_cmds);
    vk->copy_done = (VkSemaphore *)(void *)(base + l.copy_done);
    vk->slot_count = c.slots;
    vk->slot_state = (uint64_t *)(void *)(base + l.slot_state);
    vk->page_slot = (uint32_t *)(void *)(base + l.page_slot);
    vk->page_copy = (uint32_t *)(void *)(base + l.page_copy);
    vk->copies = (vk_copy *)(void *)(base + l.copies);
    vk->regions = (VkBufferCopy *)(void *)(base + l.regions);
    vk->image_regions = (VkBufferImageCopy *)(void *)(base + l.image_regions);
    vk->image_barriers = (VkImageMemoryBarrier *)(void *)(base + l.image_barriers);
    vk->barriers = (VkBufferMemoryBarrier *)(void *)(base + l.barriers);
    vk->driver_id = SLC_BUDGET_NONE;
    vk->pool_id = SLC_BUDGET_NONE;
    vk->staging_id = SLC_BUDGET_NONE;
    vk->budgets = desc->budgets;
    slc_budget_id gpu_root;
    if (vk->budgets != NULL && desc->pool_budget == NULL && slc_budgets_scan(vk->budgets, "gpu", &gpu_root) != SLC_OK) {
        char refusal[320];
        (void)slc_profile_refuse_host_only(desc->profile_name, "the Vulkan backend", refusal, sizeof refusal);
        return slc__vk_log(vk, SLC_LOG_ERROR, SLC_E_PROFILE_MISSING, "vulkan: %s", refusal); /* its status */
    }
    if (vk->budgets != NULL) {
        slc_status s = find_budget(vk, desc->driver_budget, "cpu/driver", &vk->driver_id, true);
        if (s == SLC_OK) {
            s = find_budget(vk, desc->pool_budget, "gpu/pool", &vk->pool_id, true);
        }
        if (s != SLC_OK) {
            return s;
        }
        if (find_budget(vk, desc->staging_budget, "gpu/staging", &vk->staging_id, false) == SLC_OK) {
            vk->has_staging_budget = true;
        } else if (desc->staging_budget != NULL) {
            return slc__vk_log(vk, SLC_LOG_ERROR, SLC_E_NOT_FOUND, "vulkan: no budget named '%s' to charge",
                               desc->staging_budget);
        }
    }
    slc_status s = slc_heap_init(base + l.heap, (size_t)c.driver_heap, vk->budgets, vk->driver_id, &vk->heap);
    if (s != SLC_OK) {
        return s;
    }
    slc__vk_init_callbacks(vk);
    if (slc__mutex_init(&vk->lock) != 0) {
        return slc__vk_log(vk, SLC_LOG_ERROR, SLC_E_PLATFORM, "vulkan: cannot initialise the backend's lock");
    }
    vk->lock_ready = true;
    *vk_out = vk;
    return SLC_OK;
}

VkFormat slc_vulkan_texel_format(uint32_t texel, bool srgb)
{
    switch (texel) {
    case SLC_PACK_TEXEL_RGBA8:
        return srgb ? VK_FORMAT_R8G8B8A8_SRGB : VK_FORMAT_R8G8B8A8_UNORM;
    case SLC_PACK_TEXEL_BC1:
        return srgb ? VK_FORMAT_BC1_RGBA_SRGB_BLOCK : VK_FORMAT_BC1_RGBA_UNORM_BLOCK;
    case SLC_PACK_TEXEL_BC3:
        return srgb ? VK_FORMAT_BC3_SRGB_BLOCK : VK_FORMAT_BC3_UNORM_BLOCK;
    case SLC_PACK_TEXEL_ASTC_4X4:
        return srgb ? VK_FORMAT_ASTC_4x4_SRGB_BLOCK : VK_FORMAT_ASTC_4x4_UNORM_BLOCK;
    case SLC_PACK_TEXEL_ASTC_6X6:
        return srgb ? VK_FORMAT_ASTC_6x6_SRGB_BLOCK : VK_FORMAT_ASTC_6x6_UNORM_BLOCK;
    case SLC_PACK_TEXEL_ASTC_8X8:
        return srgb ? VK_FORMAT_ASTC_8x8_SRGB_BLOCK : VK_FORMAT_ASTC_8x8_UNORM_BLOCK;
    default:
        return VK_FORMAT_UNDEFINED;
    }
}

/* The texel formats the device samples: a colour texture is sampled as
 * sRGB and a data texture as UNORM, so both forms need sampling with
 * linear filtering in optimal tiling, and a block format its compression
 * feature enabled on the device. */
static uint32_t sampled_formats(const slc_vulkan *vk)
{
    const VkFormatFeatureFlags need = VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT |
                                      VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT |
                                      VK_FORMAT_FEATURE_TRANSFER_DST_BIT;
    uint32_t mask = 0;
    for (uint32_t f = 1; f < SLC_PACK_TEXEL_COUNT; f++) {
        bool bc = f == SLC_PACK_TEXEL_BC1 || f == SLC_PACK_TEXEL_BC3;
        bool astc = f >= SLC_PACK_TEXEL_ASTC_4X4 && f <= SLC_PACK_TEXEL_ASTC_8X8;
        if ((bc && !vk->texture_bc) || (astc && !vk->texture_astc)) {
            continue;
        }
        bool ok = true;
        for (int srgb = 0; srgb < 2 && ok; srgb++) {
            VkFormatProperties fp;
            memset(&fp, 0, sizeof fp);
            vk->vki.GetPhysicalDeviceFormatProperties(vk->physical, slc_vulkan_texel_format(f, srgb != 0), &fp);
            ok = (fp.optimalTilingFeatures & need) == need;
        }
        mask |= ok ? 1u << f : 0u;
    }
    return mask;
}

/* Reads what the backend needs of the physical device, loads the device
 * table, then builds the pool and the frame objects. */
static slc_status finish(slc_vulkan *vk)
{
    VkPhysicalDeviceProperties props;
    vk->vki.GetPhysicalDeviceProperties(vk->physical, &props);
    memcpy(vk->device_name, props.deviceName, sizeof vk->device_name);
    vk->device_name[sizeof vk->device_name - 1] = '\0';
    if (props.apiVersion < vk->api_version) {
        vk->api_version = props.apiVersion;
    }
    if (VK_API_VERSION_MAJOR(vk->api_version) == 1 && VK_API_VERSION_MINOR(vk->api_version) < 1) {
        return slc__vk_log(vk, SLC_LOG_ERROR, SLC_E_UNSUPPORTED, "vulkan: %s offers Vulkan %u.%u; sluice needs 1.1",
                           vk->device_name, VK_API_VERSION_MAJOR(vk->api_version),
                           VK_API_VERSION_MINOR(vk->api_version));
    }
    if (vk->vkd.vkDestroyDevice == NULL) {
        load_device_table(vk);
    }
    if (vk->vkd.vkDestroyDevice == NULL || vk->vkd.vkCreateBuffer == NULL) {
        return slc__vk_log(vk, SLC_LOG_ERROR, SLC_E_DEVICE, "vulkan: the device's functions could not be loaded");
    }
    vk->sampled_formats = sampled_formats(vk);
    if (!vk->split_copies) {
        vk->copy_queue = vk->queue;
        vk->copy_family = vk->family;
    }
    slc_status s = slc__vk_build_pool(vk);
    if (s == SLC_OK) {
        s = slc__vk_build_frames(vk);
    }
    if (s == SLC_OK) {
        slc__vk_init_store(vk);
    }
    return s;
}

/* --- slc_vulkan_init: a headless instance and device ---------------------- */

/* Whether the loader, a driver or an implicit layer offers
 * VK_EXT_debug_utils. Reads at most 64 extension records; a longer list is
 * read 64 at a time. */
static bool instance_has_debug_utils(PFN_vkGetInstanceProcAddr gipa)
{
    PFN_vkEnumerateInstanceExtensionProperties enum_fn = (PFN_vkEnumerateInstanceExtensionProperties)gipa(
        VK_NULL_HANDLE, "vkEnumerateInstanceExtensionProperties");
    uint32_t total = 0;
    if (enum_fn == NULL || enum_fn(NULL, &total, NULL) != VK_SUCCESS) {
        return false;
    }
    VkExtensionProperties props[64];
    uint32_t n = total < 64u ? total : 64u;
    VkResult r = enum_fn(NULL, &n, props);
    if (r != VK_SUCCESS && r != VK_INCOMPLETE) {
        return false;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (strcmp(props[i].extensionName, VK_EXT_DEBUG_UTILS_EXTENSION_NAME) == 0) {
            return true;
        }
    }
    return false;
}

static slc_status create_instance(slc_vulkan *vk, const slc_vulkan_desc *d)
{
    PFN_vkGetInstanceProcAddr gipa = find_loader();
    if (gipa == NULL) {
        return slc__vk_log(vk, SLC_LOG_ERROR, SLC_E_UNSUPPORTED,
                           "vulkan: no Vulkan loader (libvulkan.so.1) could be opened");
    }
    PFN_vkEnumerateInstanceVersion version_fn = (PFN_vkEnumerateInstanceVersion)gipa(VK_NULL_HANDLE,
                                                                                     "vkEnumerateInstanceVersion");
    PFN_vkCreateInstance create_fn = (PFN_vkCreateInstance)gipa(VK_NULL_HANDLE, "vkCreateInstance");
    uint32_t loader_version = VK_API_VERSION_1_0;
    if (version_fn != NULL && version_fn(&loader_version) != VK_SUCCESS) {
        loader_version = VK_API_VERSION_1_0;
    }
    if (create_fn == NULL || loader_version < VK_API_VERSION_1_1) {
        return slc__vk_log(vk, SLC_LOG_ERROR, SLC_E_UNSUPPORTED,
                           "vulkan: the Vulkan loader offers %u.%u; sluice needs 1.1",
                           VK_API_VERSION_MAJOR(loader_version), VK_API_VERSION_MINOR(loader_version));
    }
    /* The newest version this code knows; the device may offer less. */
    vk->api_version = loader_version < VK_API_VERSION_1_3 ? loader_version : VK_API_VERSION_1_3;

    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.pApplicationName = "sluice";
    app.applicationVersion = VK_MAKE_API_VERSION(0, SLC_VERSION_MAJOR, SLC_VERSION_MINOR, SLC_VERSION_PATCH);
    app.pEngineName = "sluice";
    app.engineVersion = app.applicationVersion;
    app.apiVersion = vk->api_version;
    const char *exts[1];
    uint32_t ext_count = 0;
    VkDebugUtilsMessengerCreateInfoEXT mi = {.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
    mi.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                         VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    mi.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                     VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
    mi.pfnUserCallback = d->debug_callback;
    mi.pUserData = d->debug_user;
    mi.pNext = d->instance_next;
    VkInstanceCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    ci.pNext = d->instance_next;
    /* With a debug callback the extension is required; without one it is
     * enabled where the instance offers it, for object names and labels. */
    vk->debug_utils = d->debug_callback != NULL || instance_has_debug_utils(gipa);
    if (vk->debug_utils) {
        exts[ext_count++] = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
    }
    if (d->debug_callback != NULL) {
        ci.pNext = &mi;
    }
    ci.pApplicationInfo = &app;
    ci.enabledLayerCount = d->layer_count;
    ci.ppEnabledLayerNames = d->layers;
    ci.enabledExtensionCount = ext_count;
    ci.ppEnabledExtensionNames = ext_count != 0 ? exts : NULL;
    vk_refusals before = slc__vk_refusals(vk);
    VkResult r = create_fn(&ci, &vk->cb, &vk->instance);
    if (r != VK_SUCCESS) {
        vk->instance = VK_NULL_HANDLE;
        if (r == VK_ERROR_LAYER_NOT_PRESENT) {
            return slc__vk_log(vk, SLC_LOG_ERROR, SLC_E_UNSUPPORTED,
                               "vulkan: vkCreateInstance: a layer asked for is not installed (first: %s)",
                               d->layer_count != 0 ? d->layers[0] : "?");
        }
        if (r == VK_ERROR_EXTENSION_NOT_PRESENT) {
            return slc__vk_log(vk, SLC_LOG_ERROR, SLC_E_UNSUPPORTED, "vulkan: vkCreateInstance: %s is not available",
                               VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
        }
        if (r == VK_ERROR_INCOMPATIBLE_DRIVER) {
            return slc__vk_log(vk, SLC_LOG_ERROR, SLC_E_UNSUPPORTED,
                               "vulkan: vkCreateInstance: no Vulkan driver is installed");
        }
        return slc__vk_fail(vk, "vkCreateInstance", r, before);
    }
    vk->own_instance = true;
    load_instance_table(vk, gipa);
    if (d->debug_callback != NULL) {
        mi.pNext = NULL;
        before = slc__vk_refusals(vk);
        r = vk->vki.CreateDebugUtilsMessengerEXT(vk->instance, &mi, &vk->cb, &vk->messenger);
        if (r != VK_SUCCESS) {
            vk->messenger = VK_NULL_HANDLE;
            return slc__vk_fail(vk, "vkCreateDebugUtilsMessengerEXT", r, before);
        }
    }
    return SLC_OK;
}

static int type_rank(VkPhysicalDeviceType t)
{
    switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
        return 4; /* unified memory: what sluice is built for */
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
        return 3;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
        return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
        return 1;
    default:
        return 0;
    }
}

#define MAX_DEVICES 16u
#define MAX_FAMILIES 16u

/* The family for frames and copies (graphics and compute preferred), and a
 * transfer-only family (UINT32_MAX: none). False if none can do either. */
static bool pick_families(slc_vulkan *vk, VkPhysicalDevice pd, uint32_t *main_family, uint32_t *transfer_family)
{
    VkQueueFamilyProperties fam[MAX_FAMILIES];
    uint32_t n = MAX_FAMILIES;
    vk->vki.GetPhysicalDeviceQueueFamilyProperties(pd, &n, fam);
    int best = -1;
    int best_score = 0;
    *transfer_family = UINT32_MAX;
    for (uint32_t i = 0; i < n; i++) {
        VkQueueFlags f = fam[i].queueFlags;
        int score = ((f & VK_QUEUE_GRAPHICS_BIT) ? 2 : 0) + ((f & VK_QUEUE_COMPUTE_BIT) ? 1 : 0);
        if (fam[i].queueCount > 0 && score > best_score) {
            best = (int)i;
            best_score = score;
        }
        if (fam[i].queueCount > 0 && (f & VK_QUEUE_TRANSFER_BIT) &&
            !(f & (VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT)) && *transfer_family == UINT32_MAX) {
            *transfer_family = i;
        }
    }
    *main_family = (uint32_t)best;
    return best >= 0;
}

static slc_status pick_physical_device(slc_vulkan *vk)
{
    VkPhysicalDevice devs[MAX_DEVICES];
    uint32_t n = MAX_DEVICES;
    vk_refusals before = slc__vk_refusals(vk);
    VkResult r = vk->vki.EnumeratePhysicalDevices(vk->instance, &n, devs);
    if (r != VK_SUCCESS && r != VK_INCOMPLETE) {
        return slc__vk_fail(vk, "vkEnumeratePhysicalDevices", r, before);
    }
    int best = -1;
    int best_rank = -1;
    for (uint32_t i = 0; i < n; i++) {
        VkPhysicalDeviceProperties p;
        vk->vki.GetPhysicalDeviceProperties(devs[i], &p);
        uint32_t fam, tf;
        if (p.apiVersion < VK_API_VERSION_1_1 || !pick_families(vk, devs[i], &fam, &tf)) {
            continue;
        }
        if (type_rank(p.deviceType) > best_rank) {
            best = (int)i;
            best_rank = type_rank(p.deviceType);
        }
    }
    if (best < 0) {
        return slc__vk_log(vk, SLC_LOG_ERROR, SLC_E_UNSUPPORTED,
                           "vulkan: none of the %u Vulkan devices offers Vulkan 1.1 and a graphics or compute queue",
                           n);
    }
    vk->physical = devs[best];
    return SLC_OK;
}

/* Whether the device offers each extension, from a list enumerated into
 * driver-heap scratch (returned before this function returns). */
static slc_status scan_device_extensions(slc_vulkan *vk, bool *memory_budget, bool *timeline_ext)
{
    *memory_budget = false;
    *timeline_ext = false;
    uint32_t n = 0;
    vk_refusals before = slc__vk_refusals(vk);
    VkResult r = vk->vki.EnumerateDeviceExtensionProperties(vk->physical, NULL, &n, NULL);
    if (r != VK_SUCCESS) {
        return slc__vk_fail(vk, "vkEnumerateDeviceExtensionProperties", r, before);
    }
    if (n == 0) {
        return SLC_OK;
    }
    void *scratch;
    slc_status s = slc_heap_alloc(vk->heap, sizeof(VkExtensionProperties) * n, 8, &scratch);
    if (s != SLC_OK) {
        return slc__vk_fail(vk, "vkEnumerateDeviceExtensionProperties (scratch for the list)",
                            VK_ERROR_OUT_OF_HOST_MEMORY, before);
    }
    VkExtensionProperties *ext = scratch;
    r = vk->vki.EnumerateDeviceExtensionProperties(vk->physical, NULL, &n, ext);
    if (r == VK_SUCCESS || r == VK_INCOMPLETE) {
        for (uint32_t i = 0; i < n; i++) {
            if (strcmp(ext[i].extensionName, VK_EXT_MEMORY_BUDGET_EXTENSION_NAME) == 0) {
                *memory_budget = true;
            } else if (strcmp(ext[i].extensionName, VK_KHR_TIMELINE_SEMAPHORE_EXTENSION_NAME) == 0) {
                *timeline_ext = true;
            }
        }
    }
    slc_heap_free(vk->heap, scratch);
    return r == VK_SUCCESS || r == VK_INCOMPLETE ? SLC_OK
                                                 : slc__vk_fail(vk, "vkEnumerateDeviceExtensionProperties", r, before);
}

static bool has_unified_type(slc_vulkan *vk)
{
    VkPhysicalDeviceMemoryProperties2 mp = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_PROPERTIES_2};
    vk->vki.GetPhysicalDeviceMemoryProperties2(vk->physical, &mp);
    const VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT | VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT;
    for (uint32_t i = 0; i < mp.memoryProperties.memoryTypeCount; i++) {
        if ((mp.memoryProperties.memoryTypes[i].propertyFlags & want) == want) {
            return true;
        }
    }
    return false;
}

static slc_status create_device(slc_vulkan *vk)
{
    VkPhysicalDeviceProperties props;
    vk->vki.GetPhysicalDeviceProperties(vk->physical, &props);
    uint32_t api = props.apiVersion < vk->api_version ? props.apiVersion : vk->api_version;
    uint32_t transfer_family;
    pick_families(vk, vk->physical, &vk->family, &transfer_family);
    bool memory_budget, timeline_ext;
    slc_status s = scan_device_extensions(vk, &memory_budget, &timeline_ext);
    if (s != SLC_OK) {
        return s;
    }
    bool timeline = false;
    if (api >= VK_API_VERSION_1_2 || timeline_ext) {
        VkPhysicalDeviceTimelineSemaphoreFeatures tf = {
            .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES};
        VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
        f2.pNext = &tf;
        vk->vki.GetPhysicalDeviceFeatures2(vk->physical, &f2);
        timeline = tf.timelineSemaphore == VK_TRUE && (vk->flags & SLC_VULKAN_NO_TIMELINE) == 0;
    }
    /* A transfer-only family runs the staging copies, when the belt will be
     * used: forced, or no unified memory type. */
    bool belt = vk->placement == SLC_VULKAN_PLACEMENT_STAGING ||
                (vk->placement == SLC_VULKAN_PLACEMENT_AUTO && !has_unified_type(vk));
    bool use_transfer = belt && transfer_family != UINT32_MAX && vk->image_texel == 0; /* images: frame queue */

    float priority = 1.0f;
    VkDeviceQueueCreateInfo qci[2];
    memset(qci, 0, sizeof qci);
    for (int i = 0; i < 2; i++) {
        qci[i].sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
        qci[i].queueCount = 1;
        qci[i].pQueuePriorities = &priority;
    }
    qci[0].queueFamilyIndex = vk->family;
    qci[1].queueFamilyIndex = transfer_family;
    const char *exts[2];
    uint32_t ext_count = 0;
    if (memory_budget) {
        exts[ext_count++] = VK_EXT_MEMORY_BUDGET_EXTENSION_NAME;
    }
    if (timeline && api < VK_API_VERSION_1_2) {
        exts[ext_count++] = VK_KHR_TIMELINE_SEMAPHORE_EXTENSION_NAME;
    }
    VkPhysicalDeviceTimelineSemaphoreFeatures tf = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES};
    tf.timelineSemaphore = VK_TRUE;
    /* What the renderer (vulkan_render.c) uses, where the device has it. */
    VkPhysicalDeviceShaderDrawParametersFeatures dpf = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_DRAW_PARAMETERS_FEATURES};
    VkPhysicalDeviceFeatures2 have = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    have.pNext = &dpf;
    vk->vki.GetPhysicalDeviceFeatures2(vk->physical, &have);
    VkPhysicalDeviceFeatures2 want = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    want.features.multiDrawIndirect = have.features.multiDrawIndirect;
    want.features.shaderStorageBufferArrayDynamicIndexing = have.features.shaderStorageBufferArrayDynamicIndexing;
    want.features.shaderSampledImageArrayDynamicIndexing = have.features.shaderSampledImageArrayDynamicIndexing;
    /* The block formats a pack's textures may be in (slc_vulkan_texel_format). */
    want.features.textureCompressionBC = have.features.textureCompressionBC;
    want.features.textureCompressionASTC_LDR = have.features.textureCompressionASTC_LDR;
    VkPhysicalDeviceShaderDrawParametersFeatures dpw = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_DRAW_PARAMETERS_FEATURES};
    dpw.shaderDrawParameters = dpf.shaderDrawParameters;
    want.pNext = &dpw;
    dpw.pNext = timeline ? &tf : NULL;
    VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    dci.pNext = &want;
    dci.queueCreateInfoCount = use_transfer ? 2u : 1u;
    dci.pQueueCreateInfos = qci;
    dci.enabledExtensionCount = ext_count;
    dci.ppEnabledExtensionNames = ext_count != 0 ? exts : NULL;
    vk_refusals before = slc__vk_refusals(vk);
    VkResult r = vk->vki.CreateDevice(vk->physical, &dci, &vk->cb, &vk->device);
    if (r != VK_SUCCESS) {
        vk->device = VK_NULL_HANDLE;
        return slc__vk_fail(vk, "vkCreateDevice", r, before);
    }
    vk->own_device = true;
    vk->api_version = api;
    vk->timeline_available = timeline;
    vk->memory_budget_ext = memory_budget;
    vk->multi_draw_indirect = want.features.multiDrawIndirect == VK_TRUE;
    vk->storage_dynamic_indexing = want.features.shaderStorageBufferArrayDynamicIndexing == VK_TRUE;
    vk->sampled_dynamic_indexing = want.features.shaderSampledImageArrayDynamicIndexing == VK_TRUE;
    vk->draw_parameters = dpw.shaderDrawParameters == VK_TRUE;
    vk->texture_bc = want.features.textureCompressionBC == VK_TRUE;
    vk->texture_astc = want.features.textureCompressionASTC_LDR == VK_TRUE;
    load_device_table(vk);
    vk->vkd.vkGetDeviceQueue(vk->device, vk->family, 0, &vk->queue);
    if (use_transfer) {
        vk->vkd.vkGetDeviceQueue(vk->device, transfer_family, 0, &vk->copy_queue);
        vk->copy_family = transfer_family;
        vk->split_copies = true;
    }
    return SLC_OK;
}

slc_status slc_vulkan_init(void *mem, size_t size, const slc_vulkan_desc *desc, slc_vulkan **out)
{
    slc_vulkan *vk;
    slc_status s = begin(mem, size, desc, out, &vk);
    if (s != SLC_OK) {
        return s;
    }
    slc_vulkan_desc zero;
    if (desc == NULL) {
        memset(&zero, 0, sizeof zero);
        desc = &zero;
    }
    s = create_instance(vk, desc);
    if (s == SLC_OK) {
        s = pick_physical_device(vk);
    }
    if (s == SLC_OK) {
        s = create_device(vk);
    }
    if (s == SLC_OK) {
        s = finish(vk);
    }
    if (s != SLC_OK) {
        teardown(vk);
        return s;
    }
    *out = vk;
    return SLC_OK;
}

slc_status slc_vulkan_adopt(void *mem, size_t size, const slc_vulkan_desc *desc, const slc_vulkan_device_info *dev,
                            slc_vulkan **out)
{
    SLC_ASSERT(dev != NULL);
    SLC_ASSERT(dev->instance != VK_NULL_HANDLE && dev->physical_device != VK_NULL_HANDLE &&
               dev->device != VK_NULL_HANDLE && dev->queue != VK_NULL_HANDLE);
    slc_vulkan *vk;
    slc_status s = begin(mem, size, desc, out, &vk);
    if (s != SLC_OK) {
        return s;
    }
    PFN_vkGetInstanceProcAddr gipa = dev->get_instance_proc_addr != NULL ? dev->get_instance_proc_addr : find_loader();
    if (gipa == NULL) {
        s = slc__vk_log(
            vk, SLC_LOG_ERROR, SLC_E_UNSUPPORTED,
            "vulkan: no Vulkan loader (libvulkan.so.1) could be opened, and no vkGetInstanceProcAddr was given");
        teardown(vk);
        return s;
    }
    vk->instance = dev->instance;
    vk->physical = dev->physical_device;
    vk->device = dev->device;
    vk->queue = dev->queue;
    vk->family = dev->queue_family;
    vk->api_version = dev->api_version != 0 ? dev->api_version : VK_API_VERSION_1_1;
    vk->timeline_available = dev->timeline_semaphore == VK_TRUE && (vk->flags & SLC_VULKAN_NO_TIMELINE) == 0;
    vk->memory_budget_ext = dev->memory_budget == VK_TRUE;
    vk->multi_draw_indirect = dev->multi_draw_indirect == VK_TRUE;
    vk->storage_dynamic_indexing = dev->storage_buffer_array_dynamic_indexing == VK_TRUE;
    vk->sampled_dynamic_indexing = dev->sampled_image_array_dynamic_indexing == VK_TRUE;
    vk->draw_parameters = dev->shader_draw_parameters == VK_TRUE;
    vk->texture_bc = dev->texture_compression_bc == VK_TRUE;
    vk->texture_astc = dev->texture_compression_astc_ldr == VK_TRUE;
    if (dev->transfer_queue != VK_NULL_HANDLE && vk->image_texel == 0) { /* images: copies on the frame queue */
        vk->copy_queue = dev->transfer_queue;
        vk->copy_family = dev->transfer_family;
        vk->split_copies = true;
    }
    load_instance_table(vk, gipa);
    s = finish(vk);
    if (s != SLC_OK) {
        teardown(vk);
        return s;
    }
    *out = vk;
    return SLC_OK;
}

void slc_vulkan_deinit(slc_vulkan *vk)
{
    if (vk != NULL) {
        teardown(vk);
    }
}

slc_page_store *slc_vulkan_get_store(slc_vulkan *vk)
{
    SLC_ASSERT(vk != NULL);
    return &vk->store;
}

void slc_vulkan_get_segment(const slc_vulkan *vk, uint32_t index, slc_vulkan_segment *out)
{
    SLC_ASSERT(vk != NULL && out != NULL && index < vk->segment_count);
    const vk_segment *g = &vk->segments[index];
    out->buffer = g->buffer;
    out->image = g->image;
    out->view = g->view;
    out->memory = g->memory;
    out->size = g->size;
    out->first_page = g->first_page;
    out->page_count = g->page_count;
    out->mapped = g->mapped;
}

void slc_vulkan_get_device_info(const slc_vulkan *vk, slc_vulkan_device_info *out)
{
    SLC_ASSERT(vk != NULL && out != NULL);
    memset(out, 0, sizeof *out);
    out->instance = vk->instance;
    out->physical_device = vk->physical;
    out->device = vk->device;
    out->queue = vk->queue;
    out->queue_family = vk->family;
    out->api_version = vk->api_version;
    out->timeline_semaphore = vk->timeline ? VK_TRUE : VK_FALSE;
    out->memory_budget = vk->memory_budget_used ? VK_TRUE : VK_FALSE;
    out->multi_draw_indirect = vk->multi_draw_indirect ? VK_TRUE : VK_FALSE;
    out->storage_buffer_array_dynamic_indexing = vk->storage_dynamic_indexing ? VK_TRUE : VK_FALSE;
    out->shader_draw_parameters = vk->draw_parameters ? VK_TRUE : VK_FALSE;
    out->sampled_image_array_dynamic_indexing = vk->sampled_dynamic_indexing ? VK_TRUE : VK_FALSE;
    out->texture_compression_bc = vk->texture_bc ? VK_TRUE : VK_FALSE;
    out->texture_compression_astc_ldr = vk->texture_astc ? VK_TRUE : VK_FALSE;
}

void slc_vulkan_get_info(const slc_vulkan *vk, slc_vulkan_info *out)
{
    SLC_ASSERT(vk != NULL && out != NULL);
    memset(out, 0, sizeof *out);
    out->instance = vk->instance;
    out->physical_device = vk->physical;
    out->device = vk->device;
    out->queue = vk->queue;
    out->queue_family = vk->family;
    out->copy_family = vk->copy_family;
    out->api_version = vk->api_version;
    memcpy(out->device_name, vk->device_name, sizeof out->device_name);
    out->created = vk->own_device;
    out->unified = vk->unified;
    out->coherent = vk->coherent;
    out->timeline = vk->timeline;
    out->memory_budget = vk->memory_budget_used;
    out->split_copies = vk->split_copies;
    out->multi_draw_indirect = vk->multi_draw_indirect;
    out->storage_dynamic_indexing = vk->storage_dynamic_indexing;
    out->sampled_dynamic_indexing = vk->sampled_dynamic_indexing;
    out->draw_parameters = vk->draw_parameters;
    out->texture_compression_bc = vk->texture_bc;
    out->texture_compression_astc_ldr = vk->texture_astc;
    out->sampled_formats = vk->sampled_formats;
    out->pool_memory_type = vk->pool_type;
    out->pool_heap = vk->pool_heap;
    out->heap_available = vk->heap_available;
    out->non_coherent_atom = vk->atom;
    out->segment_size = vk->segment_size;
    out->pages_per_segment = vk->pages_per_segment;
    out->segment_count = vk->segment_count;
    out->page_size = vk->page_size;
    out->page_count = vk->page_count;
    out->image_texel = vk->image_texel;
    out->image_format = vk->image_format;
    out->page_width = vk->page_width;
    out->page_height = vk->page_height;
    out->page_blocks = vk->page_blocks;
    out->pages_per_layer = vk->pages_per_layer;
    out->frames_in_flight = vk->frames;
    out->belt_slots = vk->unified ? 0u : vk->slot_count;
}

void slc_vulkan_get_stats(slc_vulkan *vk, slc_vulkan_stats *out)
{
    SLC_ASSERT(vk != NULL && out != NULL);
    memset(out, 0, sizeof *out);
    slc_heap_stats h;
    slc_heap_get_stats(vk->heap, &h);
    out->driver_used = h.used;
    out->driver_peak = h.high_water;
    out->driver_live = h.live;
    out->driver_allocs = h.allocs;
    out->driver_refused = h.refused_budget + h.refused_capacity;
    out->driver_internal = atomic_load_explicit(&vk->internal_bytes, memory_order_relaxed);
    slc__mutex_lock(&vk->lock);
    out->frames_submitted = vk->frames_submitted;
    out->copies = vk->copies_submitted;
    out->bytes_copied = vk->bytes_copied;
    out->belt_full = vk->belt_full;
    out->early_flushes = vk->early_flushes;
    out->debug_names = vk->debug_names;
    out->debug_labels = vk->debug_labels;
    slc__mutex_unlock(&vk->lock);
    out->bytes_flushed = atomic_load_explicit(&vk->bytes_flushed, memory_order_relaxed);
}

const VkAllocationCallbacks *slc_vulkan_get_allocator(const slc_vulkan *vk)
{
    SLC_ASSERT(vk != NULL);
    return &vk->cb;
}

const struct VolkDeviceTable *slc_vulkan_get_device_table(const slc_vulkan *vk)
{
    SLC_ASSERT(vk != NULL);
    return &vk->vkd;
}
