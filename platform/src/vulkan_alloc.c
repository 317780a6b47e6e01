/* SPDX-License-Identifier: MIT */
/* sluice: the VkAllocationCallbacks of the Vulkan backend.
 *
 * Every Vulkan object the backend creates passes these callbacks, so the
 * driver's host memory for them comes from the backend's heap (in the memory
 * given to init) and is charged to the `cpu/driver` budget. A refusal
 * returns NULL; the driver then fails the call with
 * VK_ERROR_OUT_OF_HOST_MEMORY and the backend names the budget that refused
 * (slc__vk_fail). The driver may call these from any thread: the heap is
 * thread-safe. */
#include "vulkan_internal.h"

static int align_ok(size_t align)
{
    return align != 0 && (align & (align - 1)) == 0 && align <= SLC_HEAP_MAX_ALIGN;
}

static void *VKAPI_PTR cb_allocation(void *user, size_t size, size_t align, VkSystemAllocationScope scope)
{
    (void)scope;
    slc_vulkan *vk = user;
    void *p = NULL;
    if (!align_ok(align) || slc_heap_alloc(vk->heap, size, align, &p) != SLC_OK) {
        return NULL;
    }
    return p;
}

static void *VKAPI_PTR cb_reallocation(void *user, void *original, size_t size, size_t align,
                                       VkSystemAllocationScope scope)
{
    (void)scope;
    slc_vulkan *vk = user;
    if (original == NULL) {
        return cb_allocation(user, size, align, scope);
    }
    if (size == 0) {
        slc_heap_free(vk->heap, original);
        return NULL;
    }
    void *p = NULL;
    if (!align_ok(align) || slc_heap_realloc(vk->heap, original, size, align, &p) != SLC_OK) {
        return NULL; /* the original stays valid, as Vulkan requires */
    }
    return p;
}

static void VKAPI_PTR cb_free(void *user, void *memory)
{
    slc_vulkan *vk = user;
    slc_heap_free(vk->heap, memory);
}

/* Memory the driver took by itself and only reports: counted, not charged
 * (it is not in sluice's memory). */
static void VKAPI_PTR cb_internal_allocation(void *user, size_t size, VkInternalAllocationType type,
                                             VkSystemAllocationScope scope)
{
    (void)type;
    (void)scope;
    slc_vulkan *vk = user;
    atomic_fetch_add_explicit(&vk->internal_bytes, (unsigned long long)size, memory_order_relaxed);
}

static void VKAPI_PTR cb_internal_free(void *user, size_t size, VkInternalAllocationType type,
                                       VkSystemAllocationScope scope)
{
    (void)type;
    (void)scope;
    slc_vulkan *vk = user;
    atomic_fetch_sub_explicit(&vk->internal_bytes, (unsigned long long)size, memory_order_relaxed);
}

void slc__vk_init_callbacks(slc_vulkan *vk)
{
    vk->cb.pUserData = vk;
    vk->cb.pfnAllocation = cb_allocation;
    vk->cb.pfnReallocation = cb_reallocation;
    vk->cb.pfnFree = cb_free;
    vk->cb.pfnInternalAllocation = cb_internal_allocation;
    vk->cb.pfnInternalFree = cb_internal_free;
    atomic_init(&vk->internal_bytes, 0);
}
