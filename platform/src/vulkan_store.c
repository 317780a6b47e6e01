/* SPDX-License-Identifier: MIT */
/* sluice: the Vulkan backend's page store — writes into mapped pages or the
 * staging belt, copies, frame markers and retirement. */
#include "vulkan_internal.h"

#include <string.h>

#define WHOLE_STAGES VK_PIPELINE_STAGE_ALL_COMMANDS_BIT
#define READS_AND_WRITES (VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT)

static uint64_t retired_frame(const slc_vulkan *vk)
{
    return vk->completed_value == 0 ? 0u : (vk->completed_value - 1u) / 2u;
}

/* --- sync objects ----------------------------------------------------------- */

slc_status slc__vk_build_frames(slc_vulkan *vk)
{
    vk_refusals before;
    VkResult r;
    vk->timeline = vk->timeline_available;
    if (vk->timeline) {
        bool core = vk->api_version >= VK_API_VERSION_1_2;
        vk->get_counter = core ? vk->vkd.vkGetSemaphoreCounterValue : vk->vkd.vkGetSemaphoreCounterValueKHR;
        vk->wait_semaphores = core ? vk->vkd.vkWaitSemaphores : vk->vkd.vkWaitSemaphoresKHR;
        if (vk->get_counter == NULL || vk->wait_semaphores == NULL) {
            vk->timeline = false; /* said to be enabled, but not loadable: fences */
        }
    }
    if (vk->timeline) {
        VkSemaphoreTypeCreateInfo ti = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
        ti.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
        ti.initialValue = 0;
        VkSemaphoreCreateInfo si = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
        si.pNext = &ti;
        before = slc__vk_refusals(vk);
        r = vk->vkd.vkCreateSemaphore(vk->device, &si, &vk->cb, &vk->timeline_sem);
        if (r != VK_SUCCESS) {
            vk->timeline_sem = VK_NULL_HANDLE;
            return slc__vk_fail(vk, "vkCreateSemaphore (timeline)", r, before);
        }
    } else {
        VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
        for (uint32_t i = 0; i < vk->marker_count; i++) {
            before = slc__vk_refusals(vk);
            r = vk->vkd.vkCreateFence(vk->device, &fi, &vk->cb, &vk->markers[i].fence);
            if (r != VK_SUCCESS) {
                vk->markers[i].fence = VK_NULL_HANDLE;
                return slc__vk_fail(vk, "vkCreateFence", r, before);
            }
        }
    }
    if (vk->unified) {
        return SLC_OK; /* no copies, ever */
    }
    uint32_t cmds = vk->frames + 1u;
    VkCommandPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pi.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT | VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
    pi.queueFamilyIndex = vk->copy_family;
    before = slc__vk_refusals(vk);
    r = vk->vkd.vkCreateCommandPool(vk->device, &pi, &vk->cb, &vk->copy_pool);
    if (r != VK_SUCCESS) {
        vk->copy_pool = VK_NULL_HANDLE;
        return slc__vk_fail(vk, "vkCreateCommandPool", r, before);
    }
    VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    ai.commandPool = vk->copy_pool;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = cmds;
    before = slc__vk_refusals(vk);
    r = vk->vkd.vkAllocateCommandBuffers(vk->device, &ai, vk->copy_cmds);
    if (r != VK_SUCCESS) {
        memset(vk->copy_cmds, 0, sizeof(VkCommandBuffer) * cmds);
        return slc__vk_fail(vk, "vkAllocateCommandBuffers", r, before);
    }
    if (!vk->split_copies) {
        return SLC_OK;
    }
    VkSemaphoreCreateInfo si = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
    for (uint32_t i = 0; i < cmds; i++) {
        before = slc__vk_refusals(vk);
        r = vk->vkd.vkCreateSemaphore(vk->device, &si, &vk->cb, &vk->copy_done[i]);
        if (r != VK_SUCCESS) {
            vk->copy_done[i] = VK_NULL_HANDLE;
            return slc__vk_fail(vk, "vkCreateSemaphore", r, before);
        }
    }
    if (vk->copy_family == vk->family) {
        return SLC_OK;
    }
    pi.queueFamilyIndex = vk->family;
    before = slc__vk_refusals(vk);
    r = vk->vkd.vkCreateCommandPool(vk->device, &pi, &vk->cb, &vk->acquire_pool);
    if (r != VK_SUCCESS) {
        vk->acquire_pool = VK_NULL_HANDLE;
        return slc__vk_fail(vk, "vkCreateCommandPool", r, before);
    }
    ai.commandPool = vk->acquire_pool;
    before = slc__vk_refusals(vk);
    r = vk->vkd.vkAllocateCommandBuffers(vk->device, &ai, vk->acquire_cmds);
    if (r != VK_SUCCESS) {
        memset(vk->acquire_cmds, 0, sizeof(VkCommandBuffer) * cmds);
        return slc__vk_fail(vk, "vkAllocateCommandBuffers", r, before);
    }
    return SLC_OK;
}

void slc__vk_destroy_frames(slc_vulkan *vk)
{
    uint32_t cmds = vk->frames + 1u;
    if (vk->copy_pool != VK_NULL_HANDLE) {
        vk->vkd.vkDestroyCommandPool(vk->device, vk->copy_pool, &vk->cb); /* frees its buffers */
        vk->copy_pool = VK_NULL_HANDLE;
    }
    if (vk->acquire_pool != VK_NULL_HANDLE) {
        vk->vkd.vkDestroyCommandPool(vk->device, vk->acquire_pool, &vk->cb);
        vk->acquire_pool = VK_NULL_HANDLE;
    }
    for (uint32_t i = 0; i < cmds; i++) {
        vk->copy_cmds[i] = VK_NULL_HANDLE;
        vk->acquire_cmds[i] = VK_NULL_HANDLE;
        if (vk->copy_done[i] != VK_NULL_HANDLE) {
            vk->vkd.vkDestroySemaphore(vk->device, vk->copy_done[i], &vk->cb);
            vk->copy_done[i] = VK_NULL_HANDLE;
        }
    }
    if (vk->timeline_sem != VK_NULL_HANDLE) {
        vk->vkd.vkDestroySemaphore(vk->device, vk->timeline_sem, &vk->cb);
        vk->timeline_sem = VK_NULL_HANDLE;
    }
    for (uint32_t i = 0; i < vk->marker_count; i++) {
        if (vk->markers[i].fence != VK_NULL_HANDLE) {
            vk->vkd.vkDestroyFence(vk->device, vk->markers[i].fence, &vk->cb);
        }
        memset(&vk->markers[i], 0, sizeof vk->markers[i]);
    }
}

/* --- markers ----------------------------------------------------------------- */

/* Learns which markers have signalled (never blocks) and frees the belt
 * slots whose copies they cover. Under the lock. */
static slc_status poll_locked(slc_vulkan *vk)
{
    if (vk->timeline) {
        uint64_t v = 0;
        VkResult r = vk->get_counter(vk->device, vk->timeline_sem, &v);
        if (r != VK_SUCCESS) {
            return slc__vk_fail(vk, "vkGetSemaphoreCounterValue", r, slc__vk_refusals(vk));
        }
        if (v > vk->completed_value) {
            vk->completed_value = v;
        }
    } else {
        for (uint32_t i = 0; i < vk->marker_count; i++) {
            vk_marker *m = &vk->markers[i];
            if (!m->pending) {
                continue;
            }
            VkResult r = vk->vkd.vkGetFenceStatus(vk->device, m->fence);
            if (r == VK_SUCCESS) {
                m->pending = false;
                if (m->value > vk->completed_value) {
                    vk->completed_value = m->value;
                }
            } else if (r != VK_NOT_READY) {
                return slc__vk_fail(vk, "vkGetFenceStatus", r, slc__vk_refusals(vk));
            }
        }
    }
    while (vk->slots_used > 0 && vk->slot_state[vk->slot_tail] <= vk->completed_value) {
        vk->slot_tail = (vk->slot_tail + 1u) % vk->slot_count;
        vk->slots_used--;
    }
    return SLC_OK;
}

/* One submission on the frame queue that signals marker value (the
 * timeline, or the next fence of the ring), after cmds and after waiting
 * for wait (a binary semaphore, or VK_NULL_HANDLE). Under the lock. */
static slc_status submit_marker_locked(slc_vulkan *vk, const VkCommandBuffer *cmds, uint32_t cmd_count,
                                       VkSemaphore wait, uint64_t value)
{
    VkPipelineStageFlags wait_stage = WHOLE_STAGES;
    uint64_t wait_value = 0;
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.commandBufferCount = cmd_count;
    si.pCommandBuffers = cmd_count != 0 ? cmds : NULL;
    if (wait != VK_NULL_HANDLE) {
        si.waitSemaphoreCount = 1;
        si.pWaitSemaphores = &wait;
        si.pWaitDstStageMask = &wait_stage;
    }
    VkTimelineSemaphoreSubmitInfo ti = {.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
    VkFence fence = VK_NULL_HANDLE;
    vk_marker *m = NULL;
    if (vk->timeline) {
        ti.signalSemaphoreValueCount = 1;
        ti.pSignalSemaphoreValues = &value;
        if (wait != VK_NULL_HANDLE) {
            ti.waitSemaphoreValueCount = 1;
            ti.pWaitSemaphoreValues = &wait_value; /* ignored for a binary semaphore */
        }
        si.pNext = &ti;
        si.signalSemaphoreCount = 1;
        si.pSignalSemaphores = &vk->timeline_sem;
    } else {
        m = &vk->markers[vk->marker_next];
        if (m->pending) {
            VkResult r = vk->vkd.vkGetFenceStatus(vk->device, m->fence);
            if (r == VK_NOT_READY) {
                return SLC_E_FRAMES_IN_FLIGHT;
            }
            if (r != VK_SUCCESS) {
                return slc__vk_fail(vk, "vkGetFenceStatus", r, slc__vk_refusals(vk));
            }
            m->pending = false;
            if (m->value > vk->completed_value) {
                vk->completed_value = m->value;
            }
        }
        if (m->value != 0) {
            VkResult r = vk->vkd.vkResetFences(vk->device, 1, &m->fence);
            if (r != VK_SUCCESS) {
                return slc__vk_fail(vk, "vkResetFences", r, slc__vk_refusals(vk));
            }
        }
        fence = m->fence;
    }
    vk_refusals before = slc__vk_refusals(vk);
    VkResult r = vk->vkd.vkQueueSubmit(vk->queue, 1, &si, fence);
    if (r != VK_SUCCESS) {
        if (m != NULL) {
            m->value = 0; /* reset above, never submitted */
        }
        return slc__vk_fail(vk, "vkQueueSubmit", r, before);
    }
    if (m != NULL) {
        m->value = value;
        m->pending = true;
    } else {
        vk->markers[vk->marker_next].value = value; /* the ring only remembers values */
    }
    vk->marker_next = (vk->marker_next + 1u) % vk->marker_count;
    vk->submitted_value = value;
    return SLC_OK;
}

/* Blocks until marker value target has signalled, or timeout. Under the lock. */
static slc_status wait_value_locked(slc_vulkan *vk, uint64_t target, uint64_t timeout_ns)
{
    slc_status s = poll_locked(vk);
    if (s != SLC_OK || vk->completed_value >= target) {
        return s;
    }
    VkResult r;
    if (vk->timeline) {
        /* Wait for a value some submission signals exactly (the smallest
         * at or above target), not for target itself: the same wait, but
         * the validation layer of SDK 1.3.239 reports a false
         * UNASSIGNED-VkSemaphore-state-timeout when a wait's value is
         * reached only by a larger signal. */
        uint64_t exact = vk->submitted_value;
        for (uint32_t i = 0; i < vk->marker_count; i++) {
            uint64_t v = vk->markers[i].value;
            if (v >= target && v < exact) {
                exact = v;
            }
        }
        VkSemaphoreWaitInfo wi = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
        wi.semaphoreCount = 1;
        wi.pSemaphores = &vk->timeline_sem;
        wi.pValues = &exact;
        r = vk->wait_semaphores(vk->device, &wi, timeout_ns);
    } else {
        /* The oldest fence whose value reaches target. */
        vk_marker *best = NULL;
        for (uint32_t i = 0; i < vk->marker_count; i++) {
            vk_marker *m = &vk->markers[i];
            if (m->pending && m->value >= target && (best == NULL || m->value < best->value)) {
                best = m;
            }
        }
        if (best == NULL) {
            return slc__vk_log(vk, SLC_LOG_ERROR, SLC_E_INVALID, "vulkan: no submission will signal marker %llu",
                               (unsigned long long)target);
        }
        r = vk->vkd.vkWaitForFences(vk->device, 1, &best->fence, VK_TRUE, timeout_ns);
    }
    if (r == VK_TIMEOUT) {
        return SLC_E_FRAMES_IN_FLIGHT;
    }
    if (r != VK_SUCCESS) {
        return slc__vk_fail(vk, vk->timeline ? "vkWaitSemaphores" : "vkWaitForFences", r, slc__vk_refusals(vk));
    }
    return poll_locked(vk);
}

slc_status slc__vk_wait_all(slc_vulkan *vk, uint64_t timeout_ns)
{
    slc__mutex_lock(&vk->lock);
    slc_status s = SLC_OK;
    if (vk->submitted_value != 0 && (vk->timeline_sem != VK_NULL_HANDLE || vk->markers[0].fence != VK_NULL_HANDLE)) {
        s = wait_value_locked(vk, vk->submitted_value, timeout_ns);
    }
    slc__mutex_unlock(&vk->lock);
    return s;
}

/* --- the page store --------------------------------------------------------- */

static void op_locate(void *self, uint32_t page, slc_page_location *out)
{
    slc_vulkan *vk = self;
    SLC_ASSERT(page < vk->page_count && out != NULL);
    uint32_t seg = page / vk->pages_per_segment;
    uint64_t offset = (uint64_t)(page % vk->pages_per_segment) * vk->page_size;
    out->segment = seg;
    out->reserved = 0;
    out->offset = offset;
    out->host = vk->segments[seg].mapped != NULL ? vk->segments[seg].mapped + offset : NULL;
}

/* Flushes [offset, offset + bytes) of mapped memory, widened to whole atoms
 * and clamped to the allocation, as VkMappedMemoryRange requires. */
static slc_status flush_range(slc_vulkan *vk, VkDeviceMemory memory, VkDeviceSize alloc_size, VkDeviceSize offset,
                              VkDeviceSize bytes)
{
    VkDeviceSize a = vk->atom;
    VkDeviceSize start = offset - offset % a;
    VkDeviceSize end = (offset + bytes + a - 1u) / a * a;
    if (end > alloc_size) {
        end = alloc_size;
    }
    VkMappedMemoryRange range = {.sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE};
    range.memory = memory;
    range.offset = start;
    range.size = end - start;
    vk_refusals before = slc__vk_refusals(vk);
    VkResult r = vk->vkd.vkFlushMappedMemoryRanges(vk->device, 1, &range);
    if (r != VK_SUCCESS) {
        return slc__vk_fail(vk, "vkFlushMappedMemoryRanges", r, before);
    }
    atomic_fetch_add_explicit(&vk->bytes_flushed, (unsigned long long)(end - start), memory_order_relaxed);
    return SLC_OK;
}

static void record_copies(slc_vulkan *vk, VkCommandBuffer cmd, bool release);
static slc_status begin_cmd(slc_vulkan *vk, VkCommandBuffer cmd);
static slc_status end_cmd(slc_vulkan *vk, VkCommandBuffer cmd);

/* The queued copies are submitted, behind marker value (0: already
 * executed): their slots are freed once it completes, their pages take new
 * copies, the images are laid out. Under the lock. */
static void copies_submitted_locked(slc_vulkan *vk, uint64_t value)
{
    for (uint32_t i = 0; i < vk->copy_count; i++) {
        const vk_copy *c = &vk->copies[i];
        vk->slot_state[c->slot] = value;
        vk->page_copy[c->page] = 0;
        vk->bytes_copied += c->size;
    }
    vk->copies_submitted += vk->copy_count;
    vk->copy_count = 0;
    vk->images_laid_out = true;
}

/* Before the first submit (the pins a stream loads at create, which may be
 * more than the belt holds), a full belt is emptied there and then: its
 * queued copies are submitted on the frame queue and waited for, and
 * their slots freed. Copies on a queue of their own wait for the frames'
 * submissions instead. Under the lock. */
static slc_status flush_before_first_submit_locked(slc_vulkan *vk)
{
    VkCommandBuffer cmd = vk->copy_cmds[0]; /* the first submit's, re-recorded then */
    slc_status s = begin_cmd(vk, cmd);
    if (s != SLC_OK) {
        return s;
    }
    record_copies(vk, cmd, false);
    s = end_cmd(vk, cmd);
    if (s != SLC_OK) {
        return s;
    }
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.commandBufferCount = 1;
    si.pCommandBuffers = &cmd;
    vk_refusals before = slc__vk_refusals(vk);
    VkResult r = vk->vkd.vkQueueSubmit(vk->queue, 1, &si, VK_NULL_HANDLE);
    if (r != VK_SUCCESS) {
        return slc__vk_fail(vk, "vkQueueSubmit (copies before the first frame)", r, before);
    }
    before = slc__vk_refusals(vk);
    r = vk->vkd.vkQueueWaitIdle(vk->queue);
    if (r != VK_SUCCESS) {
        return slc__vk_fail(vk, "vkQueueWaitIdle (copies before the first frame)", r, before);
    }
    copies_submitted_locked(vk, 0); /* done: free as the ring reaches them */
    vk->early_flushes++;
    return poll_locked(vk);
}

static slc_status op_write_begin(void *self, uint32_t page, void **dst)
{
    slc_vulkan *vk = self;
    SLC_ASSERT(page < vk->page_count && dst != NULL);
    *dst = NULL;
    if (vk->unified) {
        uint32_t seg = page / vk->pages_per_segment;
        *dst = vk->segments[seg].mapped + (size_t)(page % vk->pages_per_segment) * vk->page_size;
        return SLC_OK;
    }
    slc__mutex_lock(&vk->lock);
    bool open = vk->page_slot[page] != 0;
    if (open) {
        slc__mutex_unlock(&vk->lock);
        SLC_ASSERT(!open && "write_begin: the page already has a write in progress");
        return SLC_E_INVALID;
    }
    if (vk->slots_used == vk->slot_count) {
        slc_status s = poll_locked(vk);
        if (s != SLC_OK) {
            slc__mutex_unlock(&vk->lock);
            return s;
        }
    }
    if (vk->slots_used == vk->slot_count && vk->submissions == 0 && !vk->split_copies && vk->copy_count != 0) {
        slc_status s = flush_before_first_submit_locked(vk);
        if (s != SLC_OK) {
            slc__mutex_unlock(&vk->lock);
            return s;
        }
    }
    if (vk->slots_used == vk->slot_count) {
        vk->belt_full++;
        slc__mutex_unlock(&vk->lock);
        return SLC_E_CAPACITY;
    }
    uint32_t slot = vk->slot_head;
    vk->slot_head = (slot + 1u) % vk->slot_count;
    vk->slots_used++;
    vk->slot_state[slot] = SLOT_OPEN;
    vk->page_slot[page] = slot + 1u;
    *dst = vk->belt_map + (size_t)slot * vk->page_size;
    slc__mutex_unlock(&vk->lock);
    return SLC_OK;
}

static slc_status op_write_end(void *self, uint32_t page, size_t bytes)
{
    slc_vulkan *vk = self;
    SLC_ASSERT(page < vk->page_count && bytes <= vk->page_size);
    if (vk->unified) {
        if (vk->coherent || bytes == 0) {
            return SLC_OK;
        }
        uint32_t seg = page / vk->pages_per_segment;
        VkDeviceSize offset = (VkDeviceSize)(page % vk->pages_per_segment) * vk->page_size;
        return flush_range(vk, vk->segments[seg].memory, vk->segments[seg].alloc_size, offset, bytes);
    }
    slc__mutex_lock(&vk->lock);
    uint32_t slot1 = vk->page_slot[page];
    if (slot1 == 0) {
        slc__mutex_unlock(&vk->lock);
        SLC_ASSERT(slot1 != 0 && "write_end: the page has no write in progress");
        return SLC_E_INVALID;
    }
    uint32_t slot = slot1 - 1u;
    vk->page_slot[page] = 0;
    if (bytes == 0) {
        vk->slot_state[slot] = 0; /* abandoned: free as soon as the ring reaches it */
        slc__mutex_unlock(&vk->lock);
        return SLC_OK;
    }
    /* Atlas images take whole block rows: past the write's bytes, the rest
     * of its last row is zeros (or, written again before a submit, the
     * older write's), never what the slot held before. */
    size_t copy = bytes;
    if (vk->image_texel != 0) {
        const size_t row = (size_t)vk->page_blocks * vk->block_bytes;
        copy = (bytes + row - 1u) / row * row;
    }
    uint32_t into = slot; /* the slot whose copy will carry these bytes */
    vk_copy *c;
    if (vk->page_copy[page] != 0) {
        /* The page was written again before a submit. Two copies into one
         * page in one vkCmdCopyBuffer would land in no defined order, so the
         * newer bytes go over the older slot's (its tail, past the newer
         * write, stays as it was written) and the newer slot is freed. */
        c = &vk->copies[vk->page_copy[page] - 1u];
        into = c->slot;
        unsigned char *to = vk->belt_map + (size_t)into * vk->page_size;
        memcpy(to, vk->belt_map + (size_t)slot * vk->page_size, bytes);
        vk->slot_state[slot] = 0;
        size_t kept = bytes > c->size ? bytes : (size_t)c->size;
        if (copy > kept) {
            memset(to + kept, 0, copy - kept);
        }
        if (copy > c->size) {
            c->size = copy;
        }
    } else {
        memset(vk->belt_map + (size_t)slot * vk->page_size + bytes, 0, copy - bytes);
        c = &vk->copies[vk->copy_count];
        vk->page_copy[page] = ++vk->copy_count;
        c->segment = page / vk->pages_per_segment;
        c->slot = slot;
        c->page = page;
        c->reserved = 0;
        c->dst = (VkDeviceSize)(page % vk->pages_per_segment) * vk->page_size;
        c->size = copy;
    }
    if (!vk->coherent) {
        slc_status s = flush_range(vk, vk->belt_memory, vk->belt_alloc_size, (VkDeviceSize)into * vk->page_size, copy);
        if (s != SLC_OK) {
            slc__mutex_unlock(&vk->lock);
            return s;
        }
    }
    vk->slot_state[into] = SLOT_QUEUED;
    slc__mutex_unlock(&vk->lock);
    return SLC_OK;
}

/* A layout transition of count layers from layer. */
static void layer_barrier(VkImageMemoryBarrier *ib, VkImage image, uint32_t layer, uint32_t count, VkImageLayout from,
                          VkImageLayout to, VkAccessFlags src, VkAccessFlags dst)
{
    memset(ib, 0, sizeof *ib);
    ib->sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER;
    ib->srcAccessMask = src;
    ib->dstAccessMask = dst;
    ib->oldLayout = from;
    ib->newLayout = to;
    ib->srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    ib->dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    ib->image = image;
    ib->subresourceRange.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
    ib->subresourceRange.levelCount = 1;
    ib->subresourceRange.baseArrayLayer = layer;
    ib->subresourceRange.layerCount = count;
}

/* Atlas images. Between copies every layer is SHADER_READ_ONLY_OPTIMAL
 * (the renderer's descriptors say so); the first submission takes the
 * images there from UNDEFINED. The layer of each queued copy goes to
 * TRANSFER_DST_OPTIMAL after the work before it on the queue (which may
 * still sample the page's old tile, or the layer's other pages), the copy
 * takes the whole block rows that hold its bytes, at its page's place in
 * the layer, and the layer comes back to SHADER_READ_ONLY_OPTIMAL, visible
 * to the work after it. The copies run on the frame queue. */
static void record_image_copies(slc_vulkan *vk, VkCommandBuffer cmd)
{
    const VkImageLayout read = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
    const VkImageLayout dst = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
    VkImageMemoryBarrier *ib = vk->image_barriers;
    if (!vk->images_laid_out) {
        for (uint32_t seg = 0; seg < vk->segment_count; seg++) {
            layer_barrier(&ib[0], vk->segments[seg].image, 0, slc__vk_segment_layers(vk, &vk->segments[seg]),
                          VK_IMAGE_LAYOUT_UNDEFINED, read, 0, VK_ACCESS_SHADER_READ_BIT);
            vk->vkd.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, WHOLE_STAGES, 0, 0, NULL, 0, NULL, 1,
                                         ib);
        }
    }
    if (vk->copy_count == 0) {
        return;
    }
    /* The layers the copies write, each once (a layer holds pages_per_layer
     * pages; O(copies^2), the copies of a submit being at most the belt's
     * slots). */
    const uint32_t ppl = vk->pages_per_layer;
    uint32_t n_layers = 0;
    for (uint32_t i = 0; i < vk->copy_count; i++) {
        const vk_copy *c = &vk->copies[i];
        const VkImage image = vk->segments[c->segment].image;
        const uint32_t layer = (c->page - vk->segments[c->segment].first_page) / ppl;
        bool seen = false;
        for (uint32_t j = 0; j < n_layers && !seen; j++) {
            seen = ib[j].image == image && ib[j].subresourceRange.baseArrayLayer == layer;
        }
        if (!seen) {
            layer_barrier(&ib[n_layers++], image, layer, 1, read, dst, 0, VK_ACCESS_TRANSFER_WRITE_BIT);
        }
    }
    vk->vkd.vkCmdPipelineBarrier(cmd, WHOLE_STAGES, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, NULL, 0, NULL, n_layers, ib);
    const uint64_t row_bytes = (uint64_t)vk->page_blocks * vk->block_bytes;
    for (uint32_t seg = 0; seg < vk->segment_count; seg++) {
        uint32_t n = 0;
        for (uint32_t i = 0; i < vk->copy_count; i++) {
            const vk_copy *c = &vk->copies[i];
            if (c->segment != seg) {
                continue;
            }
            const uint32_t at = c->page - vk->segments[seg].first_page;
            VkBufferImageCopy *region = &vk->image_regions[n++];
            memset(region, 0, sizeof *region);
            region->bufferOffset = (VkDeviceSize)c->slot * vk->page_size;
            region->bufferRowLength = vk->page_width;
            region->imageSubresource.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
            region->imageSubresource.baseArrayLayer = at / ppl;
            region->imageSubresource.layerCount = 1;
            region->imageOffset.y = (int32_t)((at % ppl) * vk->page_height);
            region->imageExtent.width = vk->page_width;
            region->imageExtent.height = (uint32_t)((c->size + row_bytes - 1u) / row_bytes) * vk->block_height;
            region->imageExtent.depth = 1;
        }
        if (n != 0) {
            vk->vkd.vkCmdCopyBufferToImage(cmd, vk->belt, vk->segments[seg].image, dst, n, vk->image_regions);
        }
    }
    for (uint32_t j = 0; j < n_layers; j++) {
        ib[j].oldLayout = dst;
        ib[j].newLayout = read;
        ib[j].srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
        ib[j].dstAccessMask = VK_ACCESS_SHADER_READ_BIT;
    }
    vk->vkd.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, WHOLE_STAGES, 0, 0, NULL, 0, NULL, n_layers, ib);
}

/* Records the queued copies into cmd, grouped by segment (one
 * vkCmdCopyBuffer each), then either a barrier that makes them visible to
 * everything later on the queue, or, for copies on a queue of another
 * family, the release half of each page's ownership transfer. */
static void record_copies(slc_vulkan *vk, VkCommandBuffer cmd, bool release)
{
    if (vk->image_texel != 0) {
        record_image_copies(vk, cmd);
        return;
    }
    uint32_t n_barriers = 0;
    for (uint32_t seg = 0; seg < vk->segment_count; seg++) {
        uint32_t n = 0;
        for (uint32_t i = 0; i < vk->copy_count; i++) {
            const vk_copy *c = &vk->copies[i];
            if (c->segment != seg) {
                continue;
            }
            VkBufferCopy *region = &vk->regions[n++];
            region->srcOffset = (VkDeviceSize)c->slot * vk->page_size;
            region->dstOffset = c->dst;
            region->size = c->size;
            if (release) {
                VkBufferMemoryBarrier *b = &vk->barriers[n_barriers++];
                memset(b, 0, sizeof *b);
                b->sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER;
                b->srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
                b->dstAccessMask = 0;
                b->srcQueueFamilyIndex = vk->copy_family;
                b->dstQueueFamilyIndex = vk->family;
                b->buffer = vk->segments[seg].buffer;
                b->offset = c->dst;
                b->size = c->size;
            }
        }
        if (n != 0) {
            vk->vkd.vkCmdCopyBuffer(cmd, vk->belt, vk->segments[seg].buffer, n, vk->regions);
        }
    }
    if (release) {
        vk->vkd.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0, 0,
                                     NULL, n_barriers, vk->barriers, 0, NULL);
    } else if (!vk->split_copies) {
        VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER};
        mb.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
        mb.dstAccessMask = READS_AND_WRITES;
        vk->vkd.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, WHOLE_STAGES, 0, 1, &mb, 0, NULL, 0, NULL);
    }
    /* Split copies on a queue of the same family need no barrier: the
     * semaphore the frame queue waits on orders and makes them visible. */
}

/* The acquire half of each page's ownership transfer, on the frame queue. */
static void record_acquire(slc_vulkan *vk, VkCommandBuffer cmd)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < vk->copy_count; i++) {
        const vk_copy *c = &vk->copies[i];
        VkBufferMemoryBarrier *b = &vk->barriers[n++];
        memset(b, 0, sizeof *b);
        b->sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER;
        b->srcAccessMask = 0;
        b->dstAccessMask = READS_AND_WRITES;
        b->srcQueueFamilyIndex = vk->copy_family;
        b->dstQueueFamilyIndex = vk->family;
        b->buffer = vk->segments[c->segment].buffer;
        b->offset = c->dst;
        b->size = c->size;
    }
    vk->vkd.vkCmdPipelineBarrier(cmd, WHOLE_STAGES, WHOLE_STAGES, 0, 0, NULL, n, vk->barriers, 0, NULL);
}

static slc_status begin_cmd(slc_vulkan *vk, VkCommandBuffer cmd)
{
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    vk_refusals before = slc__vk_refusals(vk);
    VkResult r = vk->vkd.vkBeginCommandBuffer(cmd, &bi);
    return r == VK_SUCCESS ? SLC_OK : slc__vk_fail(vk, "vkBeginCommandBuffer", r, before);
}

static slc_status end_cmd(slc_vulkan *vk, VkCommandBuffer cmd)
{
    vk_refusals before = slc__vk_refusals(vk);
    VkResult r = vk->vkd.vkEndCommandBuffer(cmd);
    return r == VK_SUCCESS ? SLC_OK : slc__vk_fail(vk, "vkEndCommandBuffer", r, before);
}

/* Submits the queued copies and marker value. Under the lock. */
static slc_status submit_copies_locked(slc_vulkan *vk, uint32_t ring, uint64_t value)
{
    VkCommandBuffer cmd = vk->copy_cmds[ring];
    bool other_family = vk->split_copies && vk->copy_family != vk->family;
    slc_status s = begin_cmd(vk, cmd);
    if (s != SLC_OK) {
        return s;
    }
    slc__vk_label_begin(vk, cmd, "sluice upload");
    record_copies(vk, cmd, other_family);
    slc__vk_label_end(vk, cmd);
    s = end_cmd(vk, cmd);
    if (s != SLC_OK) {
        return s;
    }
    if (!vk->split_copies) {
        return submit_marker_locked(vk, &cmd, 1, VK_NULL_HANDLE, value);
    }
    /* Copies on their own queue, signalling a semaphore the frame queue's
     * marker submission waits on (with the acquire barriers first when the
     * families differ): the copies still go ahead of the frame's work. */
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.commandBufferCount = 1;
    si.pCommandBuffers = &cmd;
    si.signalSemaphoreCount = 1;
    si.pSignalSemaphores = &vk->copy_done[ring];
    vk_refusals before = slc__vk_refusals(vk);
    VkResult r = vk->vkd.vkQueueSubmit(vk->copy_queue, 1, &si, VK_NULL_HANDLE);
    if (r != VK_SUCCESS) {
        return slc__vk_fail(vk, "vkQueueSubmit (copies)", r, before);
    }
    if (!other_family) {
        return submit_marker_locked(vk, NULL, 0, vk->copy_done[ring], value);
    }
    VkCommandBuffer acquire = vk->acquire_cmds[ring];
    s = begin_cmd(vk, acquire);
    if (s == SLC_OK) {
        record_acquire(vk, acquire);
        s = end_cmd(vk, acquire);
    }
    return s == SLC_OK ? submit_marker_locked(vk, &acquire, 1, vk->copy_done[ring], value) : s;
}

static slc_status op_submit(void *self, uint64_t frame)
{
    slc_vulkan *vk = self;
    SLC_ASSERT(frame > vk->last_frame);
    slc__mutex_lock(&vk->lock);
    slc_status s = poll_locked(vk);
    if (s != SLC_OK) {
        slc__mutex_unlock(&vk->lock);
        return s;
    }
    /* The frame submitted `frames` submissions ago must have retired. */
    uint64_t oldest = vk->submissions >= vk->frames ? vk->recent_frames[vk->submissions % vk->frames] : 0u;
    if (oldest > retired_frame(vk)) {
        slc__mutex_unlock(&vk->lock);
        return SLC_E_FRAMES_IN_FLIGHT;
    }
    /* The fence the marker will use must be free before anything is
     * submitted (split copies would otherwise signal a semaphore nothing
     * waits on). The frames-in-flight bound above keeps it free; this only
     * makes the refusal clean if a fence lags. */
    if (!vk->timeline && vk->markers[vk->marker_next].pending &&
        vk->vkd.vkGetFenceStatus(vk->device, vk->markers[vk->marker_next].fence) == VK_NOT_READY) {
        slc__mutex_unlock(&vk->lock);
        return SLC_E_FRAMES_IN_FLIGHT;
    }
    uint64_t value = MARK_SUBMIT(frame);
    if (vk->copy_count != 0 || (vk->image_texel != 0 && !vk->images_laid_out)) {
        s = submit_copies_locked(vk, (uint32_t)(vk->submissions % (vk->frames + 1u)), value);
        if (s == SLC_OK) {
            copies_submitted_locked(vk, value);
        }
    } else {
        s = submit_marker_locked(vk, NULL, 0, VK_NULL_HANDLE, value);
    }
    if (s == SLC_OK) {
        vk->recent_frames[vk->submissions % vk->frames] = frame;
        vk->submissions++;
        vk->last_frame = frame;
        vk->frame_ended = false;
        vk->frames_submitted++;
    }
    slc__mutex_unlock(&vk->lock);
    return s;
}

static uint64_t op_retired(void *self)
{
    slc_vulkan *vk = self;
    slc__mutex_lock(&vk->lock);
    poll_locked(vk); /* a failure (device lost) leaves the last known value */
    uint64_t r = retired_frame(vk);
    slc__mutex_unlock(&vk->lock);
    return r;
}

static const slc_page_store_ops vulkan_ops = {op_locate, op_write_begin, op_write_end, op_submit, op_retired};

void slc__vk_init_store(slc_vulkan *vk)
{
    vk->store.ops = &vulkan_ops;
    vk->store.self = vk;
    vk->store.backend = "vulkan";
    vk->store.page_count = vk->page_count;
    vk->store.page_size = vk->page_size;
    vk->store.sampled_formats = vk->sampled_formats;
    vk->store.device = vk->device_name;
}

/* --- frame calls ---------------------------------------------------------------- */

static slc_status end_frame_locked(slc_vulkan *vk, uint64_t frame)
{
    if (vk->frame_ended || frame != vk->last_frame) {
        return SLC_OK;
    }
    slc_status s = submit_marker_locked(vk, NULL, 0, VK_NULL_HANDLE, MARK_END(frame));
    if (s == SLC_OK) {
        vk->frame_ended = true;
    }
    return s;
}

slc_status slc_vulkan_end_frame(slc_vulkan *vk, uint64_t frame)
{
    SLC_ASSERT(vk != NULL);
    SLC_ASSERT(frame != 0 && frame <= vk->last_frame);
    slc__mutex_lock(&vk->lock);
    slc_status s = end_frame_locked(vk, frame);
    slc__mutex_unlock(&vk->lock);
    return s;
}

slc_status slc_vulkan_frame_signal(slc_vulkan *vk, uint64_t frame, VkSemaphore *semaphore, uint64_t *value)
{
    SLC_ASSERT(vk != NULL && semaphore != NULL && value != NULL);
    SLC_ASSERT(frame != 0 && frame == vk->last_frame);
    *semaphore = VK_NULL_HANDLE;
    *value = 0;
    if (!vk->timeline) {
        return slc__vk_log(vk, SLC_LOG_ERROR, SLC_E_UNSUPPORTED,
                           "vulkan: frames are tracked with fences (no timeline semaphore): use slc_vulkan_end_frame");
    }
    slc__mutex_lock(&vk->lock);
    bool ended = vk->frame_ended;
    if (!ended) {
        vk->frame_ended = true;
        vk->submitted_value = MARK_END(frame);
        vk->markers[vk->marker_next].value = MARK_END(frame);
        vk->marker_next = (vk->marker_next + 1u) % vk->marker_count;
    }
    slc__mutex_unlock(&vk->lock);
    SLC_ASSERT(!ended && "slc_vulkan_frame_signal: the frame was already ended");
    *semaphore = vk->timeline_sem;
    *value = MARK_END(frame);
    return SLC_OK;
}

slc_status slc_vulkan_wait_frame(slc_vulkan *vk, uint64_t frame, uint64_t timeout_ns)
{
    SLC_ASSERT(vk != NULL);
    SLC_ASSERT(frame != 0 && frame <= vk->last_frame);
    slc__mutex_lock(&vk->lock);
    slc_status s = end_frame_locked(vk, frame);
    if (s == SLC_OK) {
        s = wait_value_locked(vk, MARK_END(frame), timeout_ns);
    }
    slc__mutex_unlock(&vk->lock);
    return s;
}
