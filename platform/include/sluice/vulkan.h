/* SPDX-License-Identifier: MIT */
/* sluice: the Vulkan backend of the page store.
 *
 * The page pool lives in device memory allocated once at init: page_count
 * pages of page_size bytes, in one or more segments (one VkDeviceMemory and
 * one VkBuffer each), never reallocated. Two ways in:
 *
 * - slc_vulkan_init creates its own headless instance and device (tools,
 *   tests, a firmware image that owns the GPU);
 * - slc_vulkan_adopt uses the application's VkInstance, VkPhysicalDevice,
 *   VkDevice and queue (a viewer that embeds sluice).
 *
 * Requires Vulkan 1.1. Uses timeline semaphores and VK_EXT_memory_budget
 * where the device has them (with slc_vulkan_adopt: where the application
 * enabled them and says so).
 *
 * Memory placement. Where a memory type is both DEVICE_LOCAL and
 * HOST_VISIBLE (unified memory on ARM SoCs, and lavapipe), the pool is
 * mapped and a chunk is decoded straight into its page; a non-coherent range
 * is flushed, aligned to nonCoherentAtomSize, when the write ends. Elsewhere
 * (or with SLC_VULKAN_PLACEMENT_STAGING) writes land in a staging belt: a
 * fixed ring of host-visible slots of one page each, reused frame after frame
 * once the copies out of them have executed; the copies are recorded in a
 * command buffer of their own and submitted ahead of the frame's work, with a
 * queue family ownership transfer when they run on a transfer queue of
 * another family.
 *
 * Frames. The store's submit(frame) submits the frame's copies and signals
 * a marker that covers everything submitted to the queue before it, so the
 * application's work for frame N - 1 (submitted after submit(N - 1)) is known
 * finished once submit(N)'s marker has signalled. To learn sooner, the
 * application calls slc_vulkan_end_frame after submitting its frame's work,
 * or (timeline semaphores only) signals the semaphore that
 * slc_vulkan_frame_signal gives in its own submission. retired() reports the
 * newest frame known finished, without blocking: a timeline semaphore's value
 * where the device has them, else a ring of fences. At most frames_in_flight
 * frames are submitted and not retired; submit refuses one more
 * (SLC_E_FRAMES_IN_FLIGHT).
 *
 * Memory. Everything the backend holds on the CPU lives in the memory given
 * to init (slc_vulkan_footprint bytes): its record, its tables and the heap
 * (sluice/heap.h) behind the VkAllocationCallbacks that every Vulkan object
 * it creates (the instance and device too, when it creates them) passes.
 * Those host allocations of the driver are charged to the `cpu/driver`
 * budget, so the budget report shows the driver's peak; a refusal makes the
 * callback return NULL, the driver fail with VK_ERROR_OUT_OF_HOST_MEMORY and
 * sluice report the budget that refused. Device memory is charged to
 * `gpu/pool` and `gpu/staging`. After init the backend never allocates
 * (beyond what the driver does through the callbacks).
 *
 * Atlas images (desc.image_texel, the texture tile pool). The pool is one
 * or more 2D array images of the texel format's UNORM VkFormat (a
 * segment each). A page is a page_width x page_height texel region,
 * exactly page_size bytes of the format's blocks; the bytes of a write
 * land in it block by block, row after row (a chunk's k-th block at block
 * column k % page_blocks, block row k / page_blocks), so a tile with its
 * border or a mip tail keeps the pack's byte layout and the shader reads
 * each texel with texelFetch, decoded by the device. A layer holds
 * pages_per_layer pages one above the other (page i of a segment: layer
 * i / pages_per_layer, rows from (i % pages_per_layer) * page_height), as
 * few as let one image hold the pool within maxImageArrayLayers and
 * maxImageDimension2D, since a shader may index an array of images only
 * with shaderSampledImageArrayDynamicIndexing; each image as large as that
 * and one allocation allow. The images are device-local, never mapped:
 * every write goes through the staging belt (vkCmdCopyBufferToImage, whole
 * block rows), charged to the staging budget, with the copies on the frame
 * queue. From the first submit on (that submission carries the transition)
 * every layer is in VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL between
 * submissions: a copy takes its layer to TRANSFER_DST_OPTIMAL and back,
 * with the barriers that order it after the work before it (which may
 * still sample the layer's other pages) and before the work after it. The
 * format must be sampled by the device (slc_vulkan_info.sampled_formats),
 * else init fails with SLC_E_UNSUPPORTED.
 *
 * Function pointers come from volk, per instance and per device (a
 * VolkDeviceTable in the backend's record), never from volk's global
 * function pointers, so several backends, on one device or several, coexist.
 * This header includes <vulkan/vulkan.h>: an application that uses volk or
 * its own loader defines VK_NO_PROTOTYPES before including it, as volk asks.
 *
 * Writes. write_begin gives the mapped page, or a free belt slot (or
 * SLC_E_CAPACITY while every slot holds a copy not yet executed: the caller
 * defers the load; before the first submit, as a stream's pins at create,
 * a belt full of queued copies is emptied instead: they are submitted on
 * the frame queue and waited for, unless copies run on a queue of their
 * own). write_end(page, bytes) flushes or queues a copy of the
 * first `bytes` only: the rest of the page keeps what it held (zeros after
 * init; atlas images take whole block rows, the rest of the last row
 * zeros, and are undefined before their first write). write_end with 0 bytes abandons the write. A page written twice
 * before a submit gets both writes in order.
 *
 * Thread-safety: locate, write_begin and write_end may be called from
 * several threads at once (decode workers); submit, retired and the frame
 * calls from any one thread at a time. The backend's queue submissions use
 * the queue it was given: Vulkan requires the application not to use that
 * queue at the same time (hold the same lock around both, or call submit,
 * slc_vulkan_end_frame and slc_vulkan_wait_frame from the thread that
 * submits the frames). */
#ifndef SLUICE_VULKAN_H
#define SLUICE_VULKAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <vulkan/vulkan.h>

#include "sluice/budget.h"
#include "sluice/limits.h"
#include "sluice/page_store.h"
#include "sluice/pool_spec.h"
#include "sluice/profile.h"
#include "sluice/status.h"

#ifdef __cplusplus
extern "C" {
#endif

struct VolkDeviceTable; /* volk.h */

/* Alignment slc_vulkan_init and slc_vulkan_adopt require of their memory. */
#define SLC_VULKAN_ALIGN 64u

/* Defaults of a zeroed desc, and limits: the page size, page count and
 * frames in flight take those of sluice/limits.h (SLC_DEFAULT_PAGE_SIZE,
 * SLC_DEFAULT_PAGE_COUNT and SLC_DEFAULT_FRAMES_IN_FLIGHT; at most
 * SLC_PAGE_SIZE_MAX, SLC_PAGE_COUNT_MAX and SLC_FRAMES_IN_FLIGHT_MAX), the
 * same as the pool's, so zeroed pool and store descs fit each other. */
#define SLC_VULKAN_DEFAULT_STAGING_PAGES 16u /* staging_size 0: this many pages */
#define SLC_VULKAN_DEFAULT_DRIVER_HEAP (16u << 20)

/* Every device must allow a storage buffer range of at least 2^27 bytes, so
 * a segment holds at least this much (less only when the desc forces it). */
#define SLC_VULKAN_SEGMENT_MIN ((uint64_t)1 << 27)

/* Every device must allow 2D images of at least 256 layers, so an atlas
 * image holds at least this many pages. */
#define SLC_VULKAN_IMAGE_LAYERS_MIN 256u

typedef enum slc_vulkan_placement {
    /* Unified memory (DEVICE_LOCAL | HOST_VISIBLE) where the device has it,
     * else the staging belt. */
    SLC_VULKAN_PLACEMENT_AUTO = 0,
    /* The staging belt even where unified memory exists: tests the path on
     * unified devices, or keeps the pool out of a small host-visible heap. */
    SLC_VULKAN_PLACEMENT_STAGING = 1,
    /* Unified memory or nothing: init fails with SLC_E_UNSUPPORTED without it. */
    SLC_VULKAN_PLACEMENT_UNIFIED = 2
} slc_vulkan_placement;

typedef enum slc_vulkan_flags {
    /* Track frames with a ring of fences even where timeline semaphores exist. */
    SLC_VULKAN_NO_TIMELINE = 1u << 0,
    /* Flush mapped writes as if the memory were not HOST_COHERENT. */
    SLC_VULKAN_FLUSH_ALWAYS = 1u << 1,
    /* Do not touch (zero) the mapped pool at init. By default every mapped
     * byte is written once at init, so no page fault lands on the hot path
     * and a fresh page reads as zeros. */
    SLC_VULKAN_NO_TOUCH = 1u << 2
} slc_vulkan_flags;

/* How a backend is built. A zeroed desc is valid: 4096 pages of 64 KiB, two
 * frames in flight, unified memory where present, a 16 MiB driver heap,
 * nothing charged to budgets, no logger; slc_vulkan_init then creates a
 * headless instance and device without layers. */
typedef struct slc_vulkan_desc {
    uint32_t page_size;        /* 0: SLC_DEFAULT_PAGE_SIZE; a power of two in [4 KiB, 64 MiB] */
    uint32_t page_count;       /* 0: SLC_DEFAULT_PAGE_COUNT; at most SLC_PAGE_COUNT_MAX */
    uint32_t frames_in_flight; /* 0: SLC_DEFAULT_FRAMES_IN_FLIGHT; at most SLC_FRAMES_IN_FLIGHT_MAX */
    uint32_t placement;        /* slc_vulkan_placement */
    uint32_t flags;            /* slc_vulkan_flags */
    uint32_t reserved0;        /* must be zero */
    uint64_t staging_size;     /* bytes of the staging belt (whole pages); 0: 16 pages */
    uint64_t driver_heap_size; /* bytes of memory for the driver's host allocations, heap record included; 0: 16 MiB */
    VkBufferUsageFlags
        extra_usage; /* usage the pool's buffers get beyond STORAGE_BUFFER | TRANSFER_SRC | TRANSFER_DST */
    /* 0: the pool is storage buffers. Else an SLC_PACK_TEXEL_* format: the
     * pool is atlas images of it (texture tiles; see "Atlas images" above),
     * written through the staging belt whatever the memory. */
    uint32_t image_texel;

    /* Budgets to charge (NULL: none). Each name NULL means its default:
     * "cpu/driver", "gpu/pool" and "gpu/staging" (the last only when the belt
     * is used). With budgets set, each must exist. */
    slc_budgets *budgets;
    const char *driver_budget;
    const char *pool_budget;
    const char *staging_budget;

    slc_logger log; /* where failures are explained; fn NULL: dropped */

    /* slc_vulkan_init only: the instance it creates. Layers to enable (for
     * example "VK_LAYER_KHRONOS_validation"); a debug messenger with this
     * callback for WARNING and ERROR messages of every type (enables
     * VK_EXT_debug_utils; also chained into instance creation so that
     * vkCreateInstance and vkDestroyInstance are covered); a pNext chain for
     * VkInstanceCreateInfo (for example VkValidationFeaturesEXT). */
    const char *const *layers;
    uint32_t layer_count;
    uint32_t reserved2; /* must be zero */
    PFN_vkDebugUtilsMessengerCallbackEXT debug_callback;
    void *debug_user;
    const void *instance_next;

    /* Overrides, for tests and for devices that misreport. */
    uint64_t max_segment_size; /* 0: the device's limits; else at most this many bytes a segment */
    uint64_t heap_budget;      /* 0: VK_EXT_memory_budget, or the heap size; else the bytes the pool's heap may give */

    /* The name of the profile the desc comes from, for messages
     * (slc_vulkan_desc_from_spec sets it); NULL: "?". */
    const char *profile_name;
} slc_vulkan_desc;

/* What slc_vulkan_adopt needs to know of the application's objects. */
typedef struct slc_vulkan_device_info {
    VkInstance instance;
    VkPhysicalDevice physical_device;
    VkDevice device;
    VkQueue queue; /* where copies (unless transfer_queue is set) and frame markers are submitted */
    uint32_t queue_family;
    uint32_t api_version;   /* VkApplicationInfo::apiVersion of the instance; 0: 1.1 */
    VkQueue transfer_queue; /* optional: the staging copies run here; VK_NULL_HANDLE: on queue */
    uint32_t transfer_family;
    VkBool32 timeline_semaphore; /* the device was created with timelineSemaphore enabled */
    VkBool32 memory_budget;      /* the device was created with VK_EXT_memory_budget enabled */
    /* Features the application enabled that the renderer (sluice/render.h)
     * uses where present; VK_FALSE (zero): not enabled. */
    VkBool32 multi_draw_indirect; /* multiDrawIndirect: one indirect call a frame */
    VkBool32
        storage_buffer_array_dynamic_indexing; /* shaderStorageBufferArrayDynamicIndexing: pools of several segments */
    VkBool32 shader_draw_parameters;           /* shaderDrawParameters: gl_DrawID */
    VkBool32
        sampled_image_array_dynamic_indexing; /* shaderSampledImageArrayDynamicIndexing: texture pools of several atlas images */
    /* The block formats of a pack's textures: a pack in BC (ASTC) is
     * refused unless the application enabled textureCompressionBC
     * (textureCompressionASTC_LDR). */
    VkBool32 texture_compression_bc;
    VkBool32 texture_compression_astc_ldr;
    /* Where function pointers come from; NULL: the Vulkan loader volk finds. */
    PFN_vkGetInstanceProcAddr get_instance_proc_addr;
} slc_vulkan_device_info;

/* One segment of the pool: pages [first_page, first_page + page_count) at
 * offsets (page - first_page) * page_size of buffer. mapped is the CPU
 * address of the buffer's first byte (unified memory), or NULL. */
typedef struct slc_vulkan_segment {
    VkBuffer buffer;  /* VK_NULL_HANDLE for atlas images */
    VkImage image;    /* atlas images: the segment's image (its layers the pages), else VK_NULL_HANDLE */
    VkImageView view; /* atlas images: a 2D array view of every layer */
    VkDeviceMemory memory;
    VkDeviceSize size; /* bytes of the buffer: page_count * page_size */
    uint32_t first_page;
    uint32_t page_count;
    void *mapped;
} slc_vulkan_segment;

/* What a backend chose, by value. */
typedef struct slc_vulkan_info {
    VkInstance instance;
    VkPhysicalDevice physical_device;
    VkDevice device;
    VkQueue queue;
    uint32_t queue_family;
    uint32_t copy_family; /* where the staging copies run (queue_family unless a transfer queue is used) */
    uint32_t api_version; /* the version the backend uses the device at */
    char device_name[VK_MAX_PHYSICAL_DEVICE_NAME_SIZE];
    bool created;                  /* true: slc_vulkan_init made the instance and device */
    bool unified;                  /* pages are mapped; false: written through the staging belt */
    bool coherent;                 /* the pool's (or belt's) memory is HOST_COHERENT */
    bool timeline;                 /* frames are tracked with a timeline semaphore */
    bool memory_budget;            /* VK_EXT_memory_budget was used for the heap check */
    bool split_copies;             /* staging copies are submitted on their own queue */
    bool multi_draw_indirect;      /* features enabled on the device (adopted: as the application said) */
    bool storage_dynamic_indexing; /* shaderStorageBufferArrayDynamicIndexing */
    bool sampled_dynamic_indexing; /* shaderSampledImageArrayDynamicIndexing: a texture pool of several atlas images */
    bool draw_parameters;          /* shaderDrawParameters */
    bool texture_compression_bc;   /* textureCompressionBC */
    bool texture_compression_astc_ldr; /* textureCompressionASTC_LDR */
    /* The texel formats the device samples (bit f: SLC_PACK_TEXEL_* f),
     * as the store tells slc_stream_create: both the sRGB and the UNORM
     * form sampled with linear filtering, and a block format's feature
     * enabled. Vulkan requires RGBA8 of every device. */
    uint32_t sampled_formats;
    uint32_t pool_memory_type;
    uint32_t pool_heap;
    uint64_t heap_available; /* bytes the pool's heap could give at init (budget, heap size or override) */
    uint64_t non_coherent_atom;
    uint64_t segment_size; /* bytes of a full segment */
    uint32_t pages_per_segment;
    uint32_t segment_count;
    uint32_t page_size;
    uint32_t page_count;
    uint32_t frames_in_flight;
    uint32_t belt_slots; /* pages the staging belt holds (0: no belt) */
    /* Atlas images (image_texel not 0): the format and a page's region. */
    uint32_t image_texel;     /* SLC_PACK_TEXEL_*, 0: storage buffers */
    VkFormat image_format;    /* the UNORM VkFormat */
    uint32_t page_width;      /* texels */
    uint32_t page_height;     /* texels */
    uint32_t page_blocks;     /* blocks a row */
    uint32_t pages_per_layer; /* pages one above the other in a layer */
} slc_vulkan_info;

/* Counters, by value; all but driver_used and driver_live never decrease. */
typedef struct slc_vulkan_stats {
    uint64_t driver_used; /* bytes the driver holds through the callbacks now */
    uint64_t driver_peak; /* most it ever held */
    uint64_t driver_live; /* its allocations not yet freed */
    uint64_t driver_allocs;
    uint64_t driver_refused;  /* callback requests refused (budget or heap room) */
    uint64_t driver_internal; /* bytes the driver reported allocating by itself (pfnInternalAllocation), now */
    uint64_t frames_submitted;
    uint64_t copies; /* belt-to-page copies submitted */
    uint64_t bytes_copied;
    uint64_t bytes_flushed; /* mapped bytes flushed (non-coherent memory) */
    uint64_t belt_full;     /* write_begin refusals: no free belt slot */
    uint64_t early_flushes; /* full belts emptied before the first submit (see Writes) */
    /* Through VK_EXT_debug_utils, where the instance sluice created offers
     * it (an adopted device's instance is the application's: none): the
     * objects named ("sluice pool segment N", "sluice staging belt", their
     * memory) and the command regions labelled ("sluice upload"), so that
     * RenderDoc and Android GPU Inspector captures read. */
    uint64_t debug_names;
    uint64_t debug_labels;
} slc_vulkan_stats;

typedef struct slc_vulkan slc_vulkan;

/* Bytes of memory init or adopt needs for desc (NULL: a zeroed desc). It
 * covers the worst case the desc allows (segments at the smallest size a
 * device may impose, the belt even if unified memory makes it unused).
 * Returns 0 iff the desc is invalid (see slc_vulkan_init) or its tables
 * would not fit the address space. O(1). */
size_t slc_vulkan_footprint(const slc_vulkan_desc *desc);

/* Fills the pool and frame fields of desc from a pool's spec
 * (slc_pool_spec_from_profile, the numbers the pool is built from): page
 * size and count, frames in flight, staging size, the budget its pages are
 * charged to (spec->budget, "gpu/pool" for geometry); and the driver heap as
 * large as profile's `cpu/driver` budget (if it declares one; the profile
 * is read for nothing else) and profile_name (pointing into profile, which
 * must then outlive the init). Other fields are left as they are.
 * O(budgets). */
void slc_vulkan_desc_from_spec(slc_vulkan_desc *desc, const slc_pool_spec *spec, const slc_profile *profile);

/* Creates a headless instance (Vulkan 1.1 or newer, with desc's layers and
 * messenger), picks a physical device (integrated first, then discrete,
 * virtual, CPU), creates a device with one queue that can do graphics or
 * compute (and a queue of a transfer-only family, used for the staging
 * copies, when the device has one and the belt is used), then builds the
 * pool as slc_vulkan_adopt does. The instance and device are destroyed by
 * slc_vulkan_deinit.
 *
 * Fails iff mem is NULL (SLC_E_BLOCK_NULL), misaligned to SLC_VULKAN_ALIGN
 * (SLC_E_BLOCK_MISALIGNED) or below the footprint (SLC_E_BLOCK_TOO_SMALL);
 * the desc is invalid (SLC_E_INVALID: a page size, count or frame count out
 * of range, a staging size below a page, a reserved field set, an
 * image_texel that is no format or with placement UNIFIED); a named
 * budget does not exist (SLC_E_NOT_FOUND), or budgets are set, declare no
 * budget under gpu and pool_budget is NULL: a host-only profile
 * (SLC_E_PROFILE_MISSING, the message naming profile_name and the gpu
 * budgets it lacks, see slc_profile_refuse_host_only); there is no Vulkan loader, no
 * device with Vulkan 1.1, a layer or extension is missing, or unified memory
 * was required and is absent (SLC_E_UNSUPPORTED); the pool (or belt) does
 * not fit the heap's budget (SLC_E_DEVICE_MEMORY: the message names the heap
 * and both numbers); a budget refused the device memory or a driver host
 * allocation (SLC_E_BUDGET_REFUSED: the message names the budget and both
 * numbers); the driver heap is too small (SLC_E_CAPACITY); or the driver
 * refused (SLC_E_DEVICE, with the call and VkResult). On failure everything
 * created is destroyed, every budget is back where it was and *out is NULL.
 * Slow (instance and device creation: about 0.3 s on lavapipe); allocates
 * only through the driver heap. */
slc_status slc_vulkan_init(void *mem, size_t size, const slc_vulkan_desc *desc, slc_vulkan **out);

/* Builds the pool on the application's device. The application's objects
 * must outlive the backend; the backend destroys only what it created. desc
 * fields for instance creation are ignored. Fails as slc_vulkan_init does
 * (but creates no instance or device). Allocates only through the driver
 * heap. */
slc_status slc_vulkan_adopt(void *mem, size_t size, const slc_vulkan_desc *desc, const slc_vulkan_device_info *device,
                            slc_vulkan **out);

/* Waits (up to 10 s) for the backend's own submissions, destroys every object
 * it created (the device and instance too, after slc_vulkan_init), releases
 * its budgets, and reports through the logger any host memory the driver did
 * not give back. The memory may be reused afterwards. NULL does nothing. */
void slc_vulkan_deinit(slc_vulkan *vk);

/* The page store (backend "vulkan"); valid until deinit. O(1). */
slc_page_store *slc_vulkan_get_store(slc_vulkan *vk);

/* The application has submitted its work for frame (the newest submitted
 * with the store's submit) on the queue: a marker now tracks it, so it
 * retires as soon as that work is done rather than at the next submit.
 * Calling it twice for a frame does nothing more. Fails iff the queue
 * submission fails (SLC_E_DEVICE) or a fence of the ring is still in flight
 * (SLC_E_FRAMES_IN_FLIGHT). O(1). */
slc_status slc_vulkan_end_frame(slc_vulkan *vk, uint64_t frame);

/* Timeline semaphores only: the semaphore and value the application adds to
 * the signal operations of its own submission of frame's work (the newest
 * frame submitted with the store's submit, not yet ended), in place of
 * slc_vulkan_end_frame. Fails iff frames are tracked with fences
 * (SLC_E_UNSUPPORTED). O(1). */
slc_status slc_vulkan_frame_signal(slc_vulkan *vk, uint64_t frame, VkSemaphore *semaphore, uint64_t *value);

/* Blocks until frame has retired (ending it first if it is the newest and was
 * not ended), for shutdown and tests. frame must have been submitted.
 * Fails iff timeout_ns passes first (SLC_E_FRAMES_IN_FLIGHT) or the device
 * is lost (SLC_E_DEVICE). Holds the store's lock while it waits. */
slc_status slc_vulkan_wait_frame(slc_vulkan *vk, uint64_t frame, uint64_t timeout_ns);

/* The segments of the pool, to bind pages: segment i of
 * slc_vulkan_get_info().segment_count. O(1). */
void slc_vulkan_get_segment(const slc_vulkan *vk, uint32_t index, slc_vulkan_segment *out);

void slc_vulkan_get_info(const slc_vulkan *vk, slc_vulkan_info *out);

/* What slc_vulkan_adopt needs to build another backend on vk's device (a
 * texture pool beside the page pool): its instance, physical device,
 * device and frame queue, the API version, and the features enabled on
 * the device as vk knows them; no transfer queue, and the Vulkan loader
 * volk finds. O(1). */
void slc_vulkan_get_device_info(const slc_vulkan *vk, slc_vulkan_device_info *out);
void slc_vulkan_get_stats(slc_vulkan *vk, slc_vulkan_stats *out);

/* The VkAllocationCallbacks the backend passes (charging `cpu/driver`), for
 * an application that wants its own objects on the device charged too. */
const VkAllocationCallbacks *slc_vulkan_get_allocator(const slc_vulkan *vk);

/* The device function table the backend loaded, for the application's or a
 * test's own calls on the same device (struct VolkDeviceTable from volk.h). */
const struct VolkDeviceTable *slc_vulkan_get_device_table(const slc_vulkan *vk);

/* "VK_ERROR_OUT_OF_HOST_MEMORY" for VK_ERROR_OUT_OF_HOST_MEMORY; never NULL. */
const char *slc_vulkan_result_name(VkResult result);

/* The VkFormat a texture in SLC_PACK_TEXEL_* texel is sampled as: the
 * sRGB form for a colour texture (srgb), the UNORM form for a data or
 * normal texture; VK_FORMAT_UNDEFINED for a value that is no format. The
 * one map from the pack's formats to Vulkan's. O(1); thread-safe. */
VkFormat slc_vulkan_texel_format(uint32_t texel, bool srgb);

#ifdef __cplusplus
}
#endif

#endif
