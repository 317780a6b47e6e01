/* SPDX-License-Identifier: MIT */
/* sluice: what the Vulkan backend's files share; not installed. */
#ifndef SLUICE_VULKAN_INTERNAL_H
#define SLUICE_VULKAN_INTERNAL_H

#include <volk.h> /* before sluice/vulkan.h: defines VK_NO_PROTOTYPES */

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sluice/config.h"
#include "sluice/heap.h"
#include "sluice/vulkan.h"

#include "os_sync.h"

/* Instance-level functions, loaded per instance (volk keeps these only as
 * globals, so the backend keeps its own). */
typedef struct vk_instance_table {
    PFN_vkGetInstanceProcAddr GetInstanceProcAddr;
    PFN_vkDestroyInstance DestroyInstance;
    PFN_vkEnumeratePhysicalDevices EnumeratePhysicalDevices;
    PFN_vkGetPhysicalDeviceProperties GetPhysicalDeviceProperties;
    PFN_vkGetPhysicalDeviceProperties2 GetPhysicalDeviceProperties2;
    PFN_vkGetPhysicalDeviceFeatures2 GetPhysicalDeviceFeatures2;
    PFN_vkGetPhysicalDeviceFormatProperties GetPhysicalDeviceFormatProperties;
    PFN_vkGetPhysicalDeviceQueueFamilyProperties GetPhysicalDeviceQueueFamilyProperties;
    PFN_vkGetPhysicalDeviceMemoryProperties2 GetPhysicalDeviceMemoryProperties2;
    PFN_vkEnumerateDeviceExtensionProperties EnumerateDeviceExtensionProperties;
    PFN_vkCreateDevice CreateDevice;
    PFN_vkGetDeviceProcAddr GetDeviceProcAddr;
    PFN_vkCreateDebugUtilsMessengerEXT CreateDebugUtilsMessengerEXT;
    PFN_vkDestroyDebugUtilsMessengerEXT DestroyDebugUtilsMessengerEXT;
    /* VK_EXT_debug_utils' names and labels, NULL when the instance lacks it. */
    PFN_vkSetDebugUtilsObjectNameEXT SetDebugUtilsObjectNameEXT;
    PFN_vkCmdBeginDebugUtilsLabelEXT CmdBeginDebugUtilsLabelEXT;
    PFN_vkCmdEndDebugUtilsLabelEXT CmdEndDebugUtilsLabelEXT;
} vk_instance_table;

typedef struct vk_segment {
    VkBuffer buffer; /* storage buffers */
    VkImage image;   /* atlas images */
    VkImageView view;
    VkDeviceMemory memory;
    VkDeviceSize size;       /* bytes of the buffer */
    VkDeviceSize alloc_size; /* bytes of the allocation (its requirements) */
    unsigned char *mapped;   /* NULL unless unified */
    uint32_t first_page;
    uint32_t page_count;
} vk_segment;

/* A frame marker tracked by a fence (no timeline semaphore). */
typedef struct vk_marker {
    uint64_t value; /* 0: slot unused */
    VkFence fence;
    bool pending;
} vk_marker;

/* A belt-to-page copy waiting for the next submit. */
typedef struct vk_copy {
    uint32_t segment;
    uint32_t slot;
    uint32_t page;
    uint32_t reserved;
    VkDeviceSize dst;
    VkDeviceSize size;
} vk_copy;

/* Slot states other than "copy submitted with marker value v". */
#define SLOT_OPEN UINT64_MAX          /* write_begin given, write_end not yet */
#define SLOT_QUEUED (UINT64_MAX - 1u) /* copy queued, not submitted */

/* Marker values: submit(N) signals 2N, the end of frame N 2N + 1, so a value
 * v means frames up to (v - 1) / 2 have finished. */
#define MARK_SUBMIT(frame) (2u * (uint64_t)(frame))
#define MARK_END(frame) (2u * (uint64_t)(frame) + 1u)

struct slc_vulkan {
    slc_page_store store;
    slc_logger log;
    uint32_t page_size;
    uint32_t page_count;
    uint32_t frames; /* frames in flight */
    uint32_t placement;
    uint32_t flags;
    VkBufferUsageFlags extra_usage;
    /* Atlas images (image_texel not 0): the layers' format and shape. */
    uint32_t image_texel;
    VkFormat image_format;
    uint32_t page_width, page_height; /* texels */
    uint32_t page_blocks;             /* blocks a row */
    uint32_t pages_per_layer;         /* pages one above the other in a layer */
    uint32_t block_width, block_height, block_bytes;
    bool images_laid_out; /* the transition to GENERAL has been submitted */
    uint64_t max_segment_size;
    uint64_t heap_budget_override;

    /* The driver's host memory. */
    slc_heap *heap;
    VkAllocationCallbacks cb;
    atomic_ullong internal_bytes;

    /* Budgets (budgets NULL: nothing charged). */
    slc_budgets *budgets;
    slc_budget_id driver_id;
    slc_budget_id pool_id;
    slc_budget_id staging_id;
    bool has_staging_budget;
    uint64_t pool_charged;
    uint64_t staging_charged;

    /* Objects. */
    bool own_instance;
    bool own_device;
    VkInstance instance;
    VkDebugUtilsMessengerEXT messenger;
    VkPhysicalDevice physical;
    VkDevice device;
    VkQueue queue;
    uint32_t family;
    VkQueue copy_queue;
    uint32_t copy_family;
    bool split_copies;
    vk_instance_table vki;
    struct VolkDeviceTable vkd;

    /* What the device offers. */
    uint32_t api_version;
    char device_name[VK_MAX_PHYSICAL_DEVICE_NAME_SIZE];
    bool timeline_available; /* enabled on the device */
    bool memory_budget_ext;  /* enabled on the device */
    /* Features enabled on the device (created: where it has them; adopted:
     * where the application says it enabled them), for the renderer. */
    bool multi_draw_indirect;
    bool storage_dynamic_indexing; /* shaderStorageBufferArrayDynamicIndexing */
    bool sampled_dynamic_indexing; /* shaderSampledImageArrayDynamicIndexing */
    bool draw_parameters;          /* shaderDrawParameters */
    bool texture_bc;               /* textureCompressionBC */
    bool texture_astc;             /* textureCompressionASTC_LDR */
    uint32_t sampled_formats;      /* bit f: SLC_PACK_TEXEL_* f is sampled (slc__vk_sampled_formats) */
    bool unified;
    bool coherent; /* pool memory (unified) or belt memory (staging) */
    bool timeline; /* frames tracked with the timeline semaphore */
    bool memory_budget_used;
    VkDeviceSize atom; /* nonCoherentAtomSize */
    uint32_t pool_type;
    uint32_t pool_heap;
    uint32_t belt_type;
    uint64_t heap_available;

    /* The pool. */
    vk_segment *segments;
    uint32_t segment_count;
    uint32_t segment_capacity;
    uint32_t pages_per_segment;
    VkDeviceSize segment_size;

    /* Frames. */
    slc__mutex lock;
    bool lock_ready;
    VkSemaphore timeline_sem;
    vk_marker *markers;
    uint32_t marker_count;
    uint32_t marker_next;
    uint64_t submitted_value; /* newest marker value submitted */
    uint64_t completed_value; /* newest marker value known complete */
    uint64_t last_frame;      /* newest frame submitted */
    bool frame_ended;         /* the newest frame has its end marker */
    uint64_t *recent_frames;  /* the last `frames` frames submitted, by submission count */
    uint64_t submissions;
    VkCommandPool copy_pool;
    VkCommandPool acquire_pool;
    VkCommandBuffer *copy_cmds;    /* frames + 1 */
    VkCommandBuffer *acquire_cmds; /* frames + 1, when families differ */
    VkSemaphore *copy_done;        /* frames + 1, when copies are split */

    /* The staging belt. */
    VkBuffer belt;
    VkDeviceMemory belt_memory;
    unsigned char *belt_map;
    VkDeviceSize belt_alloc_size;
    uint32_t slot_count;
    uint32_t slot_head; /* next slot to give */
    uint32_t slot_tail; /* oldest slot in use */
    uint32_t slots_used;
    uint64_t *slot_state; /* SLOT_OPEN, SLOT_QUEUED or the marker value of its copy */
    uint32_t *page_slot;  /* page -> open slot + 1, 0: none */
    uint32_t *page_copy;  /* page -> queued copy + 1, 0: none */
    vk_copy *copies;
    uint32_t copy_count;
    VkBufferCopy *regions;
    VkBufferImageCopy *image_regions;
    VkImageMemoryBarrier *image_barriers;
    VkBufferMemoryBarrier *barriers;

    /* Counters. */
    uint64_t frames_submitted;
    uint64_t copies_submitted;
    uint64_t bytes_copied;
    atomic_ullong bytes_flushed;
    uint64_t belt_full;
    uint64_t early_flushes; /* belts emptied before the first submit */
    uint64_t debug_names;   /* objects named through VK_EXT_debug_utils */
    uint64_t debug_labels;  /* command regions labelled */
    bool debug_utils;       /* VK_EXT_debug_utils is enabled on the instance sluice created */

    /* Timeline semaphore functions (core 1.2 or VK_KHR_timeline_semaphore). */
    PFN_vkGetSemaphoreCounterValue get_counter;
    PFN_vkWaitSemaphores wait_semaphores;
};

/* Array layers of atlas image segment g: pages_per_layer pages each. */
static inline uint32_t slc__vk_segment_layers(const slc_vulkan *vk, const vk_segment *g)
{
    return (g->page_count + vk->pages_per_layer - 1u) / vk->pages_per_layer;
}

/* vulkan_log.c: names an object for debuggers and capture tools
 * (RenderDoc, Android GPU Inspector) through VK_EXT_debug_utils, and opens
 * and closes a labelled region of a command buffer; each does nothing when
 * the instance has no VK_EXT_debug_utils. name is printf-formatted, at most
 * 63 bytes kept. */
void slc__vk_name(slc_vulkan *vk, VkObjectType type, uint64_t handle, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
void slc__vk_label_begin(slc_vulkan *vk, VkCommandBuffer cmd, const char *name);
void slc__vk_label_end(slc_vulkan *vk, VkCommandBuffer cmd);

/* vulkan_alloc.c: the VkAllocationCallbacks over vk->heap. */
void slc__vk_init_callbacks(slc_vulkan *vk);

/* vulkan_log.c: messages; calls no other file of the backend. */
slc_status slc__vk_log(const slc_vulkan *vk, slc_log_level level, slc_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
#ifdef __clang_analyzer__
/* For clang's static analyzer only: it never inlines a variadic function, so
 * it cannot see that slc__vk_log returns its status argument (see
 * runtime/src/internal.h). The build itself never sees this. */
static inline slc_status slc__vk_analyzer_status(slc_status status, slc_status logged)
{
    (void)logged;
    return status;
}
#define slc__vk_log(vk, level, status, ...) \
    slc__vk_analyzer_status((status), slc__vk_log((vk), (level), (status), __VA_ARGS__))
#endif
/* The driver heap's refusal counts, taken before a Vulkan call so that a
 * failure can be traced to a refusal during it. */
typedef struct vk_refusals {
    uint64_t budget;
    uint64_t capacity;
} vk_refusals;
vk_refusals slc__vk_refusals(slc_vulkan *vk);
/* Explains a failed Vulkan call through the logger and returns its status:
 * a budget refusal (SLC_E_BUDGET_REFUSED) or a full driver heap
 * (SLC_E_CAPACITY) behind VK_ERROR_OUT_OF_HOST_MEMORY is named as such,
 * VK_ERROR_OUT_OF_DEVICE_MEMORY is SLC_E_DEVICE_MEMORY, anything else
 * SLC_E_DEVICE. */
slc_status slc__vk_fail(slc_vulkan *vk, const char *call, VkResult r, vk_refusals before);
/* The same explanation through another logger, its message starting with
 * who instead of "vulkan" (the renderer's, through its desc's logger). */
slc_status slc__vk_fail_to(slc_vulkan *vk, const slc_logger *log, const char *who, const char *call, VkResult r,
                           vk_refusals before);

/* vulkan_memory.c: segments, belt, the heap budget check. */
slc_status slc__vk_build_pool(slc_vulkan *vk);
void slc__vk_destroy_pool(slc_vulkan *vk);

/* vulkan_store.c: the page store, frames, sync objects. */
slc_status slc__vk_build_frames(slc_vulkan *vk);
void slc__vk_destroy_frames(slc_vulkan *vk);
void slc__vk_init_store(slc_vulkan *vk);
/* Waits for every marker submitted, up to timeout_ns. */
slc_status slc__vk_wait_all(slc_vulkan *vk, uint64_t timeout_ns);

#endif
