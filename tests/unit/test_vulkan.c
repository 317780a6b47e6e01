/* SPDX-License-Identifier: MIT */
/* The Vulkan backend of the page store, on lavapipe with
 * VK_LAYER_KHRONOS_validation on (synchronization validation too): a debug
 * messenger counts every warning and error, and each test ends by checking
 * that it counted none. One instance and device, made by the test, are shared
 * by the binary's cases through slc_vulkan_adopt (instance creation is slow);
 * the headless cases create their own.
 *
 * What the GPU sees is checked by a compute shader (tests/shaders/
 * page_checksum.comp, compiled by glslc at build time) that hashes every
 * page of every segment into an output buffer; the test hashes what it wrote
 * and compares.
 *
 * `test_vulkan --provoke-validation` runs one case that makes a call the
 * validation layer reports (a buffer with no usage flags): it must fail,
 * which proves the messenger catches and fails (ctest checks the exit code
 * and the VUID). */
#define _POSIX_C_SOURCE 200809L
#define VK_NO_PROTOTYPES
#include <volk.h>

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "profile_sections.h"
#include "sluice/host_store.h"
#include "sluice/pack_format.h"
#include "sluice/pool.h"
#include "sluice/vulkan.h"
#include "test_util.h"

static const uint32_t checksum_spv[] =
#include "page_checksum.comp.inc"
    ;

#define SECOND 1000000000ull
#define MAX_PAGES 256u
#define PAGE (64u * 1024u)
#define MiB (1024u * 1024u)

/* SLUICE_TEST_FENCES=1: every backend tracks frames with fences, and the
 * cases that hold the queue with a host-signalled timeline semaphore are
 * skipped. ctest runs the binary so a second time with the validation
 * layer's submit-time synchronization validation on, which in SDK 1.3.239
 * does not follow timeline semaphore waits (it reports false hazards
 * between frames that a host wait on a timeline separates) but does follow
 * fences: that pass checks the barriers between the backend's copies and
 * the work that reads the pages. */
static bool fence_mode;

/* SLUICE_TEST_CPU_READBACK=1 (armhf under qemu-arm, where lavapipe crashes
 * running its JIT-compiled compute shaders): pages are read back by mapping
 * the pool's memory after the frame, in place of the compute shader. The
 * copies, markers and waits are the same; only the reader differs. */
static bool cpu_readback;

static void skip_in_fence_mode(void)
{
    if (fence_mode) {
        skip();
    }
}

/* --- validation messages ---------------------------------------------------- */

#include "vk_messages.h" /* messages, oom_expected, expected_oom, on_message */

static void expect_no_validation_messages(void)
{
    assert_int_equal(atomic_load(&messages), 0);
}

static int reset_messages(void **state)
{
    (void)state;
    atomic_store(&messages, 0);
    atomic_store(&oom_expected, false);
    return 0;
}

/* --- what sluice logs ---------------------------------------------------------- */

#include "vk_test_device.h" /* the shared instance and device */
#include "vk_test_log.h"    /* vk_test_log: what the backend logs */

/* --- budgets ---------------------------------------------------------------------- */

enum { B_CPU, B_DRIVER, B_GPU, B_POOL, B_STAGING, B_COUNT };
static _Alignas(64) unsigned char budget_mem[SLC_BUDGETS_FOOTPRINT(B_COUNT, 2)];

static slc_budgets *budgets(uint64_t driver, uint64_t pool, uint64_t staging)
{
    slc_budget_desc tree[B_COUNT] = {
        {"cpu", 1024ull * MiB, SLC_BUDGET_NONE_INDEX},
        {"cpu/driver", driver, B_CPU},
        {"gpu", 2048ull * MiB, SLC_BUDGET_NONE_INDEX},
        {"gpu/pool", pool, B_GPU},
        {"gpu/staging", staging, B_GPU},
    };
    slc_budgets *b;
    assert_int_equal(slc_budgets_init(budget_mem, sizeof budget_mem, tree, B_COUNT, 2, NULL, &b), SLC_OK);
    return b;
}

static slc_budget_stats budget(slc_budgets *b, uint16_t i)
{
    slc_budget_stats s;
    slc_budgets_get(b, (slc_budget_id){i}, &s);
    return s;
}

static void expect_budgets_back_to_zero(slc_budgets *b)
{
    for (uint16_t i = 0; i < B_COUNT; i++) {
        slc_budget_stats s = budget(b, i);
        if (s.current != 0) {
            fail_msg("budget %s still holds %llu bytes", s.name, (unsigned long long)s.current);
        }
    }
}

static double ms_since(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) * 1e3 + (double)(t1.tv_nsec - t0->tv_nsec) / 1e6;
}

/* --- the test's own instance and device ------------------------------------ */

/* textureCompressionBC, enabled on the test's device where it has it (the
 * atlas image cases in BC1 and BC3). */
static bool t_bc;

static int create_test_device(void)
{
    if (vk_test_instance_open("test_vulkan") != 0) {
        return -1;
    }
    VkPhysicalDeviceFeatures have;
    vkGetPhysicalDeviceFeatures(t_physical, &have);
    VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    f2.features.textureCompressionBC = have.textureCompressionBC;
    t_bc = have.textureCompressionBC == VK_TRUE;
    return vk_test_device_open(&f2);
}

/* --- the compute shader that reads pages back ------------------------------ */

typedef struct gpu {
    VkPhysicalDevice physical;
    VkDevice device;
    VkQueue queue;
    const struct VolkDeviceTable *d;
    VkShaderModule module;
    VkDescriptorSetLayout set_layout;
    VkPipelineLayout layout;
    VkPipeline pipeline;
    VkDescriptorPool descriptors;
    VkCommandPool commands;
    VkCommandBuffer cmd;
    VkBuffer out;
    VkDeviceMemory out_memory;
    uint32_t *sums;
    VkSemaphore blocker; /* a timeline the test signals from the host */
    uint64_t blocker_value;
} gpu;

static gpu t_gpu;

/* blocker: also create the host-signalled timeline (the device must have
 * timelineSemaphore enabled). */
static void gpu_init(gpu *g, VkPhysicalDevice physical, VkDevice device, VkQueue queue, uint32_t family,
                     const struct VolkDeviceTable *d, bool blocker)
{
    memset(g, 0, sizeof *g);
    g->physical = physical;
    g->device = device;
    g->queue = queue;
    g->d = d;
    VkShaderModuleCreateInfo smi = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    smi.codeSize = sizeof checksum_spv;
    smi.pCode = checksum_spv;
    assert_int_equal(d->vkCreateShaderModule(device, &smi, NULL, &g->module), VK_SUCCESS);
    VkDescriptorSetLayoutBinding bind[2] = {{0}};
    for (uint32_t i = 0; i < 2; i++) {
        bind[i].binding = i;
        bind[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        bind[i].descriptorCount = 1;
        bind[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
    }
    VkDescriptorSetLayoutCreateInfo dsl = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    dsl.bindingCount = 2;
    dsl.pBindings = bind;
    assert_int_equal(d->vkCreateDescriptorSetLayout(device, &dsl, NULL, &g->set_layout), VK_SUCCESS);
    VkPushConstantRange push = {VK_SHADER_STAGE_COMPUTE_BIT, 0, 12};
    VkPipelineLayoutCreateInfo pli = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    pli.setLayoutCount = 1;
    pli.pSetLayouts = &g->set_layout;
    pli.pushConstantRangeCount = 1;
    pli.pPushConstantRanges = &push;
    assert_int_equal(d->vkCreatePipelineLayout(device, &pli, NULL, &g->layout), VK_SUCCESS);
    VkComputePipelineCreateInfo cpi = {.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
    cpi.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    cpi.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    cpi.stage.module = g->module;
    cpi.stage.pName = "main";
    cpi.layout = g->layout;
    assert_int_equal(d->vkCreateComputePipelines(device, VK_NULL_HANDLE, 1, &cpi, NULL, &g->pipeline), VK_SUCCESS);
    VkDescriptorPoolSize ps = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2 * 64};
    VkDescriptorPoolCreateInfo dpi = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    dpi.maxSets = 64;
    dpi.poolSizeCount = 1;
    dpi.pPoolSizes = &ps;
    assert_int_equal(d->vkCreateDescriptorPool(device, &dpi, NULL, &g->descriptors), VK_SUCCESS);
    VkCommandPoolCreateInfo cp = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    cp.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    cp.queueFamilyIndex = family;
    assert_int_equal(d->vkCreateCommandPool(device, &cp, NULL, &g->commands), VK_SUCCESS);
    VkCommandBufferAllocateInfo ca = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    ca.commandPool = g->commands;
    ca.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ca.commandBufferCount = 1;
    assert_int_equal(d->vkAllocateCommandBuffers(device, &ca, &g->cmd), VK_SUCCESS);
    VkBufferCreateInfo bi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    bi.size = MAX_PAGES * sizeof(uint32_t);
    bi.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    assert_int_equal(d->vkCreateBuffer(device, &bi, NULL, &g->out), VK_SUCCESS);
    VkMemoryRequirements req;
    d->vkGetBufferMemoryRequirements(device, g->out, &req);
    VkPhysicalDeviceMemoryProperties mp;
    vkGetPhysicalDeviceMemoryProperties(physical, &mp);
    const VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    uint32_t type = UINT32_MAX;
    for (uint32_t i = 0; i < mp.memoryTypeCount && type == UINT32_MAX; i++) {
        if ((req.memoryTypeBits & (1u << i)) && (mp.memoryTypes[i].propertyFlags & want) == want) {
            type = i;
        }
    }
    assert_int_not_equal(type, UINT32_MAX);
    VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    ai.allocationSize = req.size;
    ai.memoryTypeIndex = type;
    assert_int_equal(d->vkAllocateMemory(device, &ai, NULL, &g->out_memory), VK_SUCCESS);
    assert_int_equal(d->vkBindBufferMemory(device, g->out, g->out_memory, 0), VK_SUCCESS);
    void *map;
    assert_int_equal(d->vkMapMemory(device, g->out_memory, 0, VK_WHOLE_SIZE, 0, &map), VK_SUCCESS);
    g->sums = map;
    if (!blocker) {
        return;
    }
    VkSemaphoreTypeCreateInfo sti = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
    sti.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
    VkSemaphoreCreateInfo si = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
    si.pNext = &sti;
    assert_int_equal(d->vkCreateSemaphore(device, &si, NULL, &g->blocker), VK_SUCCESS);
}

static void gpu_deinit(gpu *g)
{
    const struct VolkDeviceTable *d = g->d;
    d->vkDeviceWaitIdle(g->device);
    if (g->blocker != VK_NULL_HANDLE) {
        d->vkDestroySemaphore(g->device, g->blocker, NULL);
    }
    d->vkDestroyBuffer(g->device, g->out, NULL);
    d->vkFreeMemory(g->device, g->out_memory, NULL);
    d->vkFreeCommandBuffers(g->device, g->commands, 1, &g->cmd);
    d->vkDestroyCommandPool(g->device, g->commands, NULL);
    d->vkDestroyDescriptorPool(g->device, g->descriptors, NULL);
    d->vkDestroyPipeline(g->device, g->pipeline, NULL);
    d->vkDestroyPipelineLayout(g->device, g->layout, NULL);
    d->vkDestroyDescriptorSetLayout(g->device, g->set_layout, NULL);
    d->vkDestroyShaderModule(g->device, g->module, NULL);
    memset(g, 0, sizeof *g);
}

/* Records and submits the checksum of every page of every segment (the
 * frame's "work"); the caller then waits for the frame. */
static void gpu_submit_checksums(gpu *g, slc_vulkan *vk)
{
    const struct VolkDeviceTable *d = g->d;
    slc_vulkan_info info;
    slc_vulkan_get_info(vk, &info);
    assert_true(info.page_count <= MAX_PAGES);
    memset(g->sums, 0, MAX_PAGES * sizeof(uint32_t));
    assert_int_equal(d->vkResetDescriptorPool(g->device, g->descriptors, 0), VK_SUCCESS);
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    assert_int_equal(d->vkBeginCommandBuffer(g->cmd, &bi), VK_SUCCESS);
    d->vkCmdBindPipeline(g->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, g->pipeline);
    for (uint32_t s = 0; s < info.segment_count; s++) {
        slc_vulkan_segment seg;
        slc_vulkan_get_segment(vk, s, &seg);
        VkDescriptorSetAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
        ai.descriptorPool = g->descriptors;
        ai.descriptorSetCount = 1;
        ai.pSetLayouts = &g->set_layout;
        VkDescriptorSet set;
        assert_int_equal(d->vkAllocateDescriptorSets(g->device, &ai, &set), VK_SUCCESS);
        VkDescriptorBufferInfo buffers[2] = {{seg.buffer, 0, seg.size}, {g->out, 0, VK_WHOLE_SIZE}};
        VkWriteDescriptorSet w[2];
        for (uint32_t i = 0; i < 2; i++) {
            memset(&w[i], 0, sizeof w[i]);
            w[i].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
            w[i].dstSet = set;
            w[i].dstBinding = i;
            w[i].descriptorCount = 1;
            w[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
            w[i].pBufferInfo = &buffers[i];
        }
        d->vkUpdateDescriptorSets(g->device, 2, w, 0, NULL);
        d->vkCmdBindDescriptorSets(g->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, g->layout, 0, 1, &set, 0, NULL);
        uint32_t push[3] = {seg.first_page, seg.page_count, info.page_size / 4u};
        d->vkCmdPushConstants(g->cmd, g->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, push);
        d->vkCmdDispatch(g->cmd, (seg.page_count + 63u) / 64u, 1, 1);
    }
    VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
    mb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    d->vkCmdPipelineBarrier(g->cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0,
                            NULL, 0, NULL);
    assert_int_equal(d->vkEndCommandBuffer(g->cmd), VK_SUCCESS);
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.commandBufferCount = 1;
    si.pCommandBuffers = &g->cmd;
    assert_int_equal(d->vkQueueSubmit(g->queue, 1, &si, VK_NULL_HANDLE), VK_SUCCESS);
}

/* Queues a batch that waits for the host to signal the blocker: everything
 * submitted to the queue after it waits too. */
static void gpu_block(gpu *g)
{
    uint64_t wait = g->blocker_value + 1u;
    VkTimelineSemaphoreSubmitInfo ti = {.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
    ti.waitSemaphoreValueCount = 1;
    ti.pWaitSemaphoreValues = &wait;
    VkPipelineStageFlags stage = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.pNext = &ti;
    si.waitSemaphoreCount = 1;
    si.pWaitSemaphores = &g->blocker;
    si.pWaitDstStageMask = &stage;
    assert_int_equal(g->d->vkQueueSubmit(g->queue, 1, &si, VK_NULL_HANDLE), VK_SUCCESS);
}

static void gpu_unblock(gpu *g)
{
    VkSemaphoreSignalInfo s = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO};
    s.semaphore = g->blocker;
    s.value = ++g->blocker_value;
    assert_int_equal(g->d->vkSignalSemaphore(g->device, &s), VK_SUCCESS);
}

/* --- pages ------------------------------------------------------------------------- */

static uint32_t fnv_words(const unsigned char *p, uint32_t size)
{
    uint32_t h = 2166136261u;
    for (uint32_t i = 0; i < size; i += 4) {
        uint32_t w = (uint32_t)p[i] | (uint32_t)p[i + 1] << 8 | (uint32_t)p[i + 2] << 16 | (uint32_t)p[i + 3] << 24;
        h = (h ^ w) * 16777619u;
    }
    return h;
}

/* The bytes each page should hold, as the test wrote them. */
typedef struct expected {
    unsigned char *bytes;
    uint32_t page_size;
    uint32_t page_count;
} expected;

static expected expect_new(slc_vulkan *vk)
{
    slc_vulkan_info info;
    slc_vulkan_get_info(vk, &info);
    expected e = {calloc(info.page_count, info.page_size), info.page_size, info.page_count};
    assert_non_null(e.bytes);
    return e;
}

/* Writes bytes (the first `bytes` of the page) of a seeded pattern into
 * page through the store, and into the expectation. */
static void write_page(slc_vulkan *vk, expected *e, uint32_t page, size_t bytes, uint64_t *seed)
{
    slc_page_store *st = slc_vulkan_get_store(vk);
    void *dst;
    assert_int_equal(st->ops->write_begin(st->self, page, &dst), SLC_OK);
    unsigned char *want = e->bytes + (size_t)page * e->page_size;
    for (size_t i = 0; i < bytes; i += 8) {
        uint64_t r = rng_next(seed);
        memcpy(want + i, &r, bytes - i < 8 ? bytes - i : 8);
    }
    memcpy(dst, want, bytes);
    assert_int_equal(st->ops->write_end(st->self, page, bytes), SLC_OK);
}

/* What the device holds in each page, read on the CPU: the mapping (unified
 * memory) or a mapping the test makes of the pool's memory (lavapipe's only
 * memory type is HOST_VISIBLE), hashed as the shader does. */
static void cpu_checksums(slc_vulkan *vk, uint32_t *sums)
{
    slc_vulkan_info info;
    slc_vulkan_get_info(vk, &info);
    const struct VolkDeviceTable *d = slc_vulkan_get_device_table(vk);
    for (uint32_t s = 0; s < info.segment_count; s++) {
        slc_vulkan_segment seg;
        slc_vulkan_get_segment(vk, s, &seg);
        void *map = seg.mapped;
        if (map == NULL) {
            assert_int_equal(d->vkMapMemory(info.device, seg.memory, 0, VK_WHOLE_SIZE, 0, &map), VK_SUCCESS);
        }
        for (uint32_t p = 0; p < seg.page_count; p++) {
            sums[seg.first_page + p] = fnv_words((const unsigned char *)map + (size_t)p * info.page_size,
                                                 info.page_size);
        }
        if (seg.mapped == NULL) {
            d->vkUnmapMemory(info.device, seg.memory);
        }
    }
}

/* Submits frame, runs the checksum shader, waits, and compares every page. */
static void expect_gpu_sees(gpu *g, slc_vulkan *vk, uint64_t frame, const expected *e)
{
    slc_page_store *st = slc_vulkan_get_store(vk);
    assert_int_equal(st->ops->submit(st->self, frame), SLC_OK);
    if (!cpu_readback) {
        gpu_submit_checksums(g, vk);
    }
    assert_int_equal(slc_vulkan_wait_frame(vk, frame, 10 * SECOND), SLC_OK);
    assert_true(st->ops->retired(st->self) >= frame);
    if (cpu_readback) {
        cpu_checksums(vk, g->sums);
    }
    for (uint32_t p = 0; p < e->page_count; p++) {
        uint32_t want = fnv_words(e->bytes + (size_t)p * e->page_size, e->page_size);
        if (g->sums[p] != want) {
            fail_msg("page %u: the GPU read checksum %08x, the CPU wrote %08x", p, g->sums[p], want);
        }
    }
}

static void *backend_memory(const slc_vulkan_desc *d, size_t *size)
{
    *size = slc_vulkan_footprint(d);
    assert_true(*size > 0);
    void *mem = aligned_alloc(SLC_VULKAN_ALIGN, (*size + 63u) & ~(size_t)63u);
    assert_non_null(mem);
    return mem;
}

/* Adopts the test's device, as dev describes it, with desc; the memory is
 * returned in *mem. */
static slc_vulkan *adopt_with(slc_vulkan_desc *d, const slc_vulkan_device_info *dev, void **mem)
{
    if (fence_mode) {
        d->flags |= SLC_VULKAN_NO_TIMELINE;
    }
    size_t size;
    *mem = backend_memory(d, &size);
    slc_vulkan *vk;
    slc_status s = slc_vulkan_adopt(*mem, size, d, dev, &vk);
    if (s != SLC_OK) {
        fail_msg("slc_vulkan_adopt: %s", slc_status_name(s));
    }
    return vk;
}

/* The same, the device described as vk_test_device_info does. */
static slc_vulkan *adopt(slc_vulkan_desc *d, void **mem)
{
    const slc_vulkan_device_info dev = vk_test_device_info();
    return adopt_with(d, &dev, mem);
}

static void release(slc_vulkan *vk, void *mem)
{
    slc_vulkan_deinit(vk);
    free(mem);
}

/* --- the cases ------------------------------------------------------------------------ */

/* The texel formats the backend says the device samples, derived here
 * from the device itself: a format whose sRGB and UNORM forms both sample
 * with linear filtering and take transfers in optimal tiling, a block
 * format only with its compression feature enabled (features_on: what the
 * device was created with; adopted, what the application said). Every
 * Vulkan device samples RGBA8. The store tells the stream the same. */
static void expect_sampled_formats(slc_vulkan *vk, bool bc_on, bool astc_on)
{
    slc_vulkan_info info;
    slc_vulkan_get_info(vk, &info);
    const VkFormatFeatureFlags need = VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT |
                                      VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT |
                                      VK_FORMAT_FEATURE_TRANSFER_DST_BIT;
    static const VkFormat forms[SLC_PACK_TEXEL_COUNT][2] = {
        [SLC_PACK_TEXEL_RGBA8] = {VK_FORMAT_R8G8B8A8_SRGB, VK_FORMAT_R8G8B8A8_UNORM},
        [SLC_PACK_TEXEL_BC1] = {VK_FORMAT_BC1_RGBA_SRGB_BLOCK, VK_FORMAT_BC1_RGBA_UNORM_BLOCK},
        [SLC_PACK_TEXEL_BC3] = {VK_FORMAT_BC3_SRGB_BLOCK, VK_FORMAT_BC3_UNORM_BLOCK},
        [SLC_PACK_TEXEL_ASTC_4X4] = {VK_FORMAT_ASTC_4x4_SRGB_BLOCK, VK_FORMAT_ASTC_4x4_UNORM_BLOCK},
        [SLC_PACK_TEXEL_ASTC_6X6] = {VK_FORMAT_ASTC_6x6_SRGB_BLOCK, VK_FORMAT_ASTC_6x6_UNORM_BLOCK},
        [SLC_PACK_TEXEL_ASTC_8X8] = {VK_FORMAT_ASTC_8x8_SRGB_BLOCK, VK_FORMAT_ASTC_8x8_UNORM_BLOCK},
    };
    uint32_t want = 0;
    for (uint32_t f = 1; f < SLC_PACK_TEXEL_COUNT; f++) {
        assert_int_equal(slc_vulkan_texel_format(f, true), forms[f][0]);
        assert_int_equal(slc_vulkan_texel_format(f, false), forms[f][1]);
        bool bc = f == SLC_PACK_TEXEL_BC1 || f == SLC_PACK_TEXEL_BC3;
        bool astc = f >= SLC_PACK_TEXEL_ASTC_4X4;
        if ((bc && !bc_on) || (astc && !astc_on)) {
            continue;
        }
        VkFormatProperties a, b;
        vkGetPhysicalDeviceFormatProperties(t_physical, forms[f][0], &a);
        vkGetPhysicalDeviceFormatProperties(t_physical, forms[f][1], &b);
        if ((a.optimalTilingFeatures & need) == need && (b.optimalTilingFeatures & need) == need) {
            want |= 1u << f;
        }
    }
    assert_int_equal(slc_vulkan_texel_format(0, true), VK_FORMAT_UNDEFINED);
    assert_int_equal(slc_vulkan_texel_format(SLC_PACK_TEXEL_COUNT, false), VK_FORMAT_UNDEFINED);
    assert_int_equal(info.sampled_formats, want);
    assert_true((info.sampled_formats & (1u << SLC_PACK_TEXEL_RGBA8)) != 0);
    assert_int_equal(info.texture_compression_bc, bc_on);
    assert_int_equal(info.texture_compression_astc_ldr, astc_on);
    slc_page_store *st = slc_vulkan_get_store(vk);
    assert_int_equal(st->sampled_formats, want);
    assert_string_equal(st->device, info.device_name);
}

static uint64_t headless_driver_peak;

static void test_headless_creates_its_own_device(void **state)
{
    (void)state;
    vk_test_log tl;
    slc_budgets *b = budgets(64 * MiB, 512 * MiB, 64 * MiB);
    slc_vulkan_desc d = {0};
    d.page_count = 16;
    d.budgets = b;
    d.log = vk_test_logger(&tl);
    d.layers = validation_layer;
    d.layer_count = 1;
    d.debug_callback = on_message;
    d.flags = fence_mode ? SLC_VULKAN_NO_TIMELINE : 0u;
    size_t size;
    void *mem = backend_memory(&d, &size);
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    slc_vulkan *vk;
    assert_int_equal(slc_vulkan_init(mem, size, &d, &vk), SLC_OK);
    printf("timing: headless slc_vulkan_init (instance, validation layer, device, pool): %.1f ms\n", ms_since(&t0));
    slc_vulkan_info info;
    slc_vulkan_get_info(vk, &info);
    assert_true(info.created);
    assert_true(info.unified); /* lavapipe: one DEVICE_LOCAL | HOST_VISIBLE type */
    assert_true(info.coherent);
    assert_int_equal(info.timeline, !fence_mode);
    assert_false(info.memory_budget); /* lavapipe lacks VK_EXT_memory_budget: the heap size was used */
    assert_true(info.api_version >= VK_API_VERSION_1_1);
    assert_non_null(strstr(info.device_name, "llvmpipe"));
    assert_int_equal(info.segment_count, 1);
    assert_int_equal(info.page_size, SLC_DEFAULT_PAGE_SIZE);
    assert_int_equal(info.frames_in_flight, SLC_DEFAULT_FRAMES_IN_FLIGHT);
    slc_page_store *st = slc_vulkan_get_store(vk);
    assert_string_equal(st->backend, "vulkan");
    assert_int_equal(st->page_count, 16);
    assert_int_equal(st->page_size, PAGE);
    /* Created here: the compression features enabled where the device has them. */
    VkPhysicalDeviceFeatures feat;
    vkGetPhysicalDeviceFeatures(t_physical, &feat);
    expect_sampled_formats(vk, feat.textureCompressionBC == VK_TRUE, feat.textureCompressionASTC_LDR == VK_TRUE);

    /* The instance, the device and every object were charged to cpu/driver. */
    slc_vulkan_stats vs;
    slc_vulkan_get_stats(vk, &vs);
    assert_true(vs.driver_peak > 0);
    assert_true(vs.driver_live > 0);
    assert_int_equal(budget(b, B_DRIVER).current, vs.driver_used);
    assert_int_equal(budget(b, B_DRIVER).peak, vs.driver_peak);
    assert_int_equal(budget(b, B_POOL).current, 16 * PAGE);
    assert_int_equal(vs.debug_names, 2); /* VK_EXT_debug_utils: the one segment's buffer and memory */
    headless_driver_peak = vs.driver_peak;
    printf("driver host memory: %llu bytes now, peak %llu, in %llu allocations\n", (unsigned long long)vs.driver_used,
           (unsigned long long)vs.driver_peak, (unsigned long long)vs.driver_allocs);

    /* Pages written through the mapping reach this device's GPU. */
    gpu g;
    gpu_init(&g, info.physical_device, info.device, info.queue, info.queue_family, slc_vulkan_get_device_table(vk),
             false);
    expected e = expect_new(vk);
    uint64_t seed = 11;
    for (uint32_t p = 0; p < 16; p++) {
        write_page(vk, &e, p, PAGE, &seed);
    }
    expect_gpu_sees(&g, vk, 1, &e);
    gpu_deinit(&g);
    free(e.bytes);

    clock_gettime(CLOCK_MONOTONIC, &t0);
    release(vk, mem);
    printf("timing: headless slc_vulkan_deinit: %.1f ms\n", ms_since(&t0));
    expect_budgets_back_to_zero(b);
    assert_int_equal(budget(b, B_DRIVER).peak, headless_driver_peak);
    assert_int_equal(tl.errors, 0);
    assert_int_equal(tl.leaks, 0);
    expect_no_validation_messages();
}

static void test_adopted_unified_pages_reach_the_gpu(void **state)
{
    (void)state;
    vk_test_log tl;
    slc_budgets *b = budgets(64 * MiB, 512 * MiB, 64 * MiB);
    slc_vulkan_desc d = {0};
    d.page_count = 64;
    d.budgets = b;
    d.log = vk_test_logger(&tl);
    void *mem;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    slc_vulkan *vk = adopt(&d, &mem);
    printf("timing: slc_vulkan_adopt, 64 pages unified: %.1f ms\n", ms_since(&t0));
    slc_vulkan_info info;
    slc_vulkan_get_info(vk, &info);
    assert_false(info.created);
    assert_true(info.unified);
    assert_int_equal(info.belt_slots, 0);
    assert_ptr_equal(info.device, t_device);
    expect_sampled_formats(vk, false, false); /* the application enabled no compression feature */

    slc_page_store *st = slc_vulkan_get_store(vk);
    slc_page_location loc;
    st->ops->locate(st->self, 5, &loc);
    assert_int_equal(loc.segment, 0);
    assert_int_equal(loc.offset, 5u * PAGE);
    slc_vulkan_segment seg;
    slc_vulkan_get_segment(vk, 0, &seg);
    assert_ptr_equal(loc.host, (unsigned char *)seg.mapped + 5u * PAGE);

    /* Full pages, then partial ones: the rest of a page keeps what it held
     * (zeros: the pool is touched at init). */
    expected e = expect_new(vk);
    uint64_t seed = 22;
    for (uint32_t p = 0; p < 64; p++) {
        write_page(vk, &e, p, p % 4 == 3 ? PAGE / 2 + 12 : PAGE, &seed);
    }
    clock_gettime(CLOCK_MONOTONIC, &t0);
    expect_gpu_sees(&t_gpu, vk, 1, &e);
    printf("timing: submit + checksum of 64 pages (4 MiB) + wait: %.1f ms\n", ms_since(&t0));
    for (uint32_t p = 0; p < 64; p += 2) {
        write_page(vk, &e, p, PAGE, &seed);
    }
    expect_gpu_sees(&t_gpu, vk, 2, &e);

    slc_vulkan_stats vs;
    slc_vulkan_get_stats(vk, &vs);
    assert_int_equal(vs.frames_submitted, 2);
    assert_int_equal(vs.bytes_flushed, 0); /* coherent */
    assert_int_equal(vs.copies, 0);
    assert_true(vs.driver_peak > 0); /* buffers, memory, semaphores: charged */
    assert_int_equal(budget(b, B_DRIVER).peak, vs.driver_peak);
    release(vk, mem);
    free(e.bytes);
    expect_budgets_back_to_zero(b);
    assert_int_equal(tl.errors, 0);
    assert_int_equal(tl.leaks, 0);
    expect_no_validation_messages();
}

/* Non-coherent memory is flushed in whole atoms; the validation layer checks
 * every VkMappedMemoryRange against nonCoherentAtomSize. */
static void test_flushes_are_atom_aligned(void **state)
{
    (void)state;
    slc_vulkan_desc d = {0};
    d.page_count = 8;
    d.flags = SLC_VULKAN_FLUSH_ALWAYS;
    void *mem;
    slc_vulkan *vk = adopt(&d, &mem);
    slc_vulkan_info info;
    slc_vulkan_get_info(vk, &info);
    assert_false(info.coherent);
    assert_true(info.non_coherent_atom >= 1);
    expected e = expect_new(vk);
    uint64_t seed = 33;
    size_t sizes[8] = {PAGE, 1, 3, 65, PAGE - 1, 4096, 777, PAGE};
    for (uint32_t p = 0; p < 8; p++) {
        write_page(vk, &e, p, sizes[p], &seed);
    }
    expect_gpu_sees(&t_gpu, vk, 1, &e);
    slc_vulkan_stats vs;
    slc_vulkan_get_stats(vk, &vs);
    uint64_t atom = info.non_coherent_atom, want = 0;
    for (uint32_t p = 0; p < 8; p++) {
        want += (sizes[p] + atom - 1) / atom * atom;
    }
    assert_int_equal(vs.bytes_flushed, want);
    release(vk, mem);
    free(e.bytes);
    expect_no_validation_messages();
}

static void test_staging_pages_reach_the_gpu(void **state)
{
    (void)state;
    vk_test_log tl;
    slc_budgets *b = budgets(64 * MiB, 512 * MiB, 64 * MiB);
    slc_vulkan_desc d = {0};
    d.page_count = 32;
    d.placement = SLC_VULKAN_PLACEMENT_STAGING;
    d.staging_size = 8u * PAGE;
    d.budgets = b;
    d.log = vk_test_logger(&tl);
    void *mem;
    slc_vulkan *vk = adopt(&d, &mem);
    slc_vulkan_info info;
    slc_vulkan_get_info(vk, &info);
    assert_false(info.unified);
    assert_int_equal(info.belt_slots, 8);
    assert_false(info.split_copies);
    assert_int_equal(budget(b, B_STAGING).current, 8u * PAGE);
    assert_int_equal(budget(b, B_POOL).current, 32u * PAGE);
    slc_page_store *st = slc_vulkan_get_store(vk);
    slc_page_location loc;
    st->ops->locate(st->self, 31, &loc);
    assert_null(loc.host); /* not mapped: device memory */

    /* Eight pages a frame through an eight-slot belt, frames retiring as
     * the next ones are submitted. */
    expected e = expect_new(vk);
    uint64_t seed = 44;
    uint64_t frame = 0;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (uint32_t p = 0; p < 32; p++) {
        write_page(vk, &e, p, PAGE, &seed);
        if (p % 8 == 7) {
            assert_int_equal(st->ops->submit(st->self, ++frame), SLC_OK);
            assert_int_equal(slc_vulkan_wait_frame(vk, frame, 10 * SECOND), SLC_OK);
        }
    }
    /* A partial write copies only its bytes: the rest keeps the old page. */
    write_page(vk, &e, 3, 1000, &seed);
    write_page(vk, &e, 20, 4, &seed);
    /* A page written twice before a submit: the second write wins. */
    write_page(vk, &e, 9, PAGE, &seed);
    write_page(vk, &e, 9, 2000, &seed);
    expect_gpu_sees(&t_gpu, vk, ++frame, &e);
    printf("timing: 36 pages through the staging belt in 5 frames, with checksums: %.1f ms\n", ms_since(&t0));
    slc_vulkan_stats vs;
    slc_vulkan_get_stats(vk, &vs);
    assert_int_equal(vs.copies, 35);
    assert_int_equal(vs.debug_names, 0); /* an adopted device: the instance is the application's */
    assert_int_equal(vs.debug_labels, 0);
    assert_int_equal(vs.bytes_copied, 33ull * PAGE + 1000 + 4); /* page 9: one copy of its whole page */
    release(vk, mem);
    free(e.bytes);
    expect_budgets_back_to_zero(b);
    assert_int_equal(tl.errors, 0);
    expect_no_validation_messages();
}

/* The belt is full until the copies out of it have executed, then reused
 * (once a frame has been submitted: before, see the next case). */
static void test_staging_belt_full_until_the_fence(void **state)
{
    (void)state;
    skip_in_fence_mode();
    slc_vulkan_desc d = {0};
    d.page_count = 16;
    d.placement = SLC_VULKAN_PLACEMENT_STAGING;
    d.staging_size = 4u * PAGE;
    void *mem;
    slc_vulkan *vk = adopt(&d, &mem);
    slc_page_store *st = slc_vulkan_get_store(vk);
    assert_int_equal(st->ops->submit(st->self, 1), SLC_OK);
    assert_int_equal(slc_vulkan_wait_frame(vk, 1, 10 * SECOND), SLC_OK);
    expected e = expect_new(vk);
    uint64_t seed = 55;
    for (uint32_t p = 0; p < 4; p++) {
        write_page(vk, &e, p, PAGE, &seed);
    }
    void *dst = (void *)1;
    assert_int_equal(st->ops->write_begin(st->self, 4, &dst), SLC_E_CAPACITY);
    assert_null(dst);

    /* The copies are submitted behind a batch the host holds: still full. */
    gpu_block(&t_gpu);
    assert_int_equal(st->ops->submit(st->self, 2), SLC_OK);
    assert_int_equal(slc_vulkan_end_frame(vk, 2), SLC_OK);
    struct timespec pause = {0, 20 * 1000 * 1000};
    nanosleep(&pause, NULL);
    assert_int_equal(st->ops->write_begin(st->self, 4, &dst), SLC_E_CAPACITY);
    assert_int_equal(st->ops->retired(st->self), 1);
    assert_int_equal(slc_vulkan_wait_frame(vk, 2, 1000 * 1000), SLC_E_FRAMES_IN_FLIGHT); /* 1 ms timeout */

    /* Released: the fence signals, the slots come back in ring order. */
    gpu_unblock(&t_gpu);
    assert_int_equal(slc_vulkan_wait_frame(vk, 2, 10 * SECOND), SLC_OK);
    assert_int_equal(st->ops->retired(st->self), 2);
    for (uint32_t p = 4; p < 16; p++) {
        write_page(vk, &e, p, PAGE, &seed);
        if (p % 4 == 3) {
            assert_int_equal(st->ops->submit(st->self, p / 4 + 2), SLC_OK);
            assert_int_equal(slc_vulkan_wait_frame(vk, p / 4 + 2, 10 * SECOND), SLC_OK);
        }
    }
    expect_gpu_sees(&t_gpu, vk, 6, &e);
    slc_vulkan_stats vs;
    slc_vulkan_get_stats(vk, &vs);
    assert_int_equal(vs.belt_full, 2);
    assert_int_equal(vs.early_flushes, 0);
    assert_int_equal(vs.copies, 16);
    release(vk, mem);
    free(e.bytes);
    expect_no_validation_messages();
}

/* Before the first submit (a stream pinning more chunks at create than
 * the belt holds), a full belt is emptied in place: its copies are
 * submitted and waited for, and every write goes through; the pages hold
 * what was written. */
static void test_belt_emptied_before_the_first_submit(void **state)
{
    (void)state;
    slc_vulkan_desc d = {0};
    d.page_count = 16;
    d.placement = SLC_VULKAN_PLACEMENT_STAGING;
    d.staging_size = 4u * PAGE;
    void *mem;
    slc_vulkan *vk = adopt(&d, &mem);
    expected e = expect_new(vk);
    uint64_t seed = 56;
    for (uint32_t p = 0; p < 16; p++) {
        write_page(vk, &e, p, PAGE, &seed);
    }
    slc_vulkan_stats vs;
    slc_vulkan_get_stats(vk, &vs);
    assert_int_equal(vs.early_flushes, 3); /* at pages 4, 8 and 12 */
    assert_int_equal(vs.copies, 12);
    assert_int_equal(vs.belt_full, 0);
    expect_gpu_sees(&t_gpu, vk, 1, &e);
    slc_vulkan_get_stats(vk, &vs);
    assert_int_equal(vs.copies, 16);
    assert_int_equal(vs.bytes_copied, 16ull * PAGE);
    release(vk, mem);
    free(e.bytes);
    expect_no_validation_messages();
}

/* The copies run on a queue of their own (here the same queue, standing in
 * for a transfer queue: lavapipe has one family), signalling a semaphore the
 * frame's marker submission waits on. */
static void test_staging_split_copies(void **state)
{
    (void)state;
    slc_vulkan_desc d = {0};
    d.page_count = 12;
    d.placement = SLC_VULKAN_PLACEMENT_STAGING;
    d.staging_size = 12u * PAGE;
    size_t size;
    void *mem = backend_memory(&d, &size);
    d.flags = fence_mode ? SLC_VULKAN_NO_TIMELINE : 0u;
    slc_vulkan_device_info dev = vk_test_device_info();
    dev.transfer_queue = t_queue;
    dev.transfer_family = t_family;
    slc_vulkan *vk;
    assert_int_equal(slc_vulkan_adopt(mem, size, &d, &dev, &vk), SLC_OK);
    slc_vulkan_info info;
    slc_vulkan_get_info(vk, &info);
    assert_true(info.split_copies);
    expected e = expect_new(vk);
    uint64_t seed = 66;
    for (uint32_t p = 0; p < 12; p++) {
        write_page(vk, &e, p, PAGE, &seed);
    }
    expect_gpu_sees(&t_gpu, vk, 1, &e);
    for (uint32_t p = 0; p < 12; p += 3) {
        write_page(vk, &e, p, 300, &seed);
    }
    expect_gpu_sees(&t_gpu, vk, 2, &e);
    release(vk, mem);
    free(e.bytes);
    expect_no_validation_messages();
}

/* Decode workers write pages from several threads at once: each thread
 * fills its own pages through write_begin/write_end, mapped and through the
 * belt (run under TSan by the tsan preset). */
#define WRITERS 4

typedef struct writer {
    pthread_t thread;
    slc_vulkan *vk;
    expected *e;
    uint32_t first;
    uint32_t count;
    uint64_t seed;
    slc_status status;
} writer;

static void *write_pages_thread(void *arg)
{
    writer *w = arg;
    slc_page_store *st = slc_vulkan_get_store(w->vk);
    w->status = SLC_OK;
    for (uint32_t i = 0; i < w->count && w->status == SLC_OK; i++) {
        uint32_t page = w->first + i * WRITERS; /* interleaved: neighbours belong to other threads */
        void *dst;
        w->status = st->ops->write_begin(st->self, page, &dst);
        if (w->status != SLC_OK) {
            break;
        }
        unsigned char *want = w->e->bytes + (size_t)page * w->e->page_size;
        for (size_t k = 0; k < w->e->page_size; k += 8) {
            uint64_t r = rng_next(&w->seed);
            memcpy(want + k, &r, 8);
        }
        memcpy(dst, want, w->e->page_size);
        w->status = st->ops->write_end(st->self, page, w->e->page_size);
    }
    return NULL;
}

static void check_concurrent_writes(uint32_t placement)
{
    slc_vulkan_desc d = {0};
    d.page_count = 64;
    d.placement = placement;
    d.staging_size = 64u * PAGE;
    void *mem;
    slc_vulkan *vk = adopt(&d, &mem);
    expected e = expect_new(vk);
    writer w[WRITERS];
    for (uint32_t t = 0; t < WRITERS; t++) {
        w[t] = (writer){.vk = vk, .e = &e, .first = t, .count = 64 / WRITERS, .seed = 1000 + t};
        assert_int_equal(pthread_create(&w[t].thread, NULL, write_pages_thread, &w[t]), 0);
    }
    for (uint32_t t = 0; t < WRITERS; t++) {
        assert_int_equal(pthread_join(w[t].thread, NULL), 0);
        assert_int_equal(w[t].status, SLC_OK);
    }
    expect_gpu_sees(&t_gpu, vk, 1, &e);
    release(vk, mem);
    free(e.bytes);
}

static void test_pages_written_from_several_threads(void **state)
{
    (void)state;
    check_concurrent_writes(SLC_VULKAN_PLACEMENT_UNIFIED);
    check_concurrent_writes(SLC_VULKAN_PLACEMENT_STAGING);
    expect_no_validation_messages();
}

/* A pool larger than a segment may be is split; pages on every side of every
 * boundary read back right, mapped and through the belt. */
static void check_segments(uint32_t placement)
{
    slc_vulkan_desc d = {0};
    d.page_count = 18;
    d.placement = placement;
    d.staging_size = 18u * PAGE;
    d.max_segment_size = 4u * PAGE + 1000; /* 4 pages a segment */
    void *mem;
    slc_vulkan *vk = adopt(&d, &mem);
    slc_vulkan_info info;
    slc_vulkan_get_info(vk, &info);
    assert_int_equal(info.pages_per_segment, 4);
    assert_int_equal(info.segment_count, 5);
    assert_int_equal(info.segment_size, 4u * PAGE);
    for (uint32_t s = 0; s < 5; s++) {
        slc_vulkan_segment seg;
        slc_vulkan_get_segment(vk, s, &seg);
        assert_int_equal(seg.first_page, 4 * s);
        assert_int_equal(seg.page_count, s < 4 ? 4 : 2);
        assert_int_equal(seg.size, (uint64_t)seg.page_count * PAGE);
        assert_true(seg.buffer != VK_NULL_HANDLE);
    }
    slc_page_store *st = slc_vulkan_get_store(vk);
    slc_page_location loc;
    st->ops->locate(st->self, 3, &loc);
    assert_int_equal(loc.segment, 0);
    assert_int_equal(loc.offset, 3u * PAGE);
    st->ops->locate(st->self, 4, &loc);
    assert_int_equal(loc.segment, 1);
    assert_int_equal(loc.offset, 0);
    st->ops->locate(st->self, 17, &loc);
    assert_int_equal(loc.segment, 4);
    assert_int_equal(loc.offset, PAGE);
    expected e = expect_new(vk);
    uint64_t seed = 77 + placement;
    for (uint32_t p = 0; p < 18; p++) {
        write_page(vk, &e, p, PAGE, &seed);
    }
    expect_gpu_sees(&t_gpu, vk, 1, &e);
    release(vk, mem);
    free(e.bytes);
    expect_no_validation_messages();
}

static void test_segments_split_a_large_pool(void **state)
{
    (void)state;
    check_segments(SLC_VULKAN_PLACEMENT_UNIFIED);
    check_segments(SLC_VULKAN_PLACEMENT_STAGING);
    /* A page larger than a segment may be cannot be placed. */
    vk_test_log tl;
    slc_vulkan_desc d = {0};
    d.max_segment_size = PAGE - 1;
    d.log = vk_test_logger(&tl);
    size_t size;
    void *mem = backend_memory(&d, &size);
    slc_vulkan_device_info dev = vk_test_device_info();
    slc_vulkan *vk = (slc_vulkan *)1;
    assert_int_equal(slc_vulkan_adopt(mem, size, &d, &dev, &vk), SLC_E_UNSUPPORTED);
    assert_null(vk);
    assert_string_equal(tl.last_error,
                        "vulkan: a page of 65536 bytes is larger than a segment may be (65535 bytes, the desc's "
                        "max_segment_size)");
    free(mem);
    expect_no_validation_messages();
}

/* retired() advances only once the frame's fence (or timeline value) has
 * signalled, and at most frames_in_flight frames are in flight. */
static void check_retirement(uint32_t flags)
{
    slc_vulkan_desc d = {0};
    d.page_count = 4;
    d.flags = flags;
    d.frames_in_flight = 2;
    void *mem;
    slc_vulkan *vk = adopt(&d, &mem);
    slc_vulkan_info info;
    slc_vulkan_get_info(vk, &info);
    assert_int_equal(info.timeline, (flags & SLC_VULKAN_NO_TIMELINE) == 0);
    slc_page_store *st = slc_vulkan_get_store(vk);
    struct timespec pause = {0, 10 * 1000 * 1000};

    gpu_block(&t_gpu);
    assert_int_equal(st->ops->submit(st->self, 1), SLC_OK);
    assert_int_equal(slc_vulkan_end_frame(vk, 1), SLC_OK);
    assert_int_equal(slc_vulkan_end_frame(vk, 1), SLC_OK); /* twice: nothing more */
    assert_int_equal(st->ops->submit(st->self, 2), SLC_OK);
    nanosleep(&pause, NULL);
    assert_int_equal(st->ops->retired(st->self), 0);
    /* Two frames in flight: a third is refused until the first retires. */
    assert_int_equal(st->ops->submit(st->self, 3), SLC_E_FRAMES_IN_FLIGHT);
    assert_int_equal(st->ops->retired(st->self), 0);

    gpu_unblock(&t_gpu);
    assert_int_equal(slc_vulkan_wait_frame(vk, 1, 10 * SECOND), SLC_OK);
    assert_true(st->ops->retired(st->self) >= 1);
    assert_int_equal(st->ops->submit(st->self, 3), SLC_OK);
    assert_int_equal(slc_vulkan_wait_frame(vk, 3, 10 * SECOND), SLC_OK);
    assert_int_equal(st->ops->retired(st->self), 3);

    /* A frame whose end is not marked retires with the next submit. */
    gpu_block(&t_gpu);
    assert_int_equal(st->ops->submit(st->self, 4), SLC_OK);
    gpu_unblock(&t_gpu);
    assert_int_equal(st->ops->submit(st->self, 5), SLC_OK);
    assert_int_equal(slc_vulkan_wait_frame(vk, 4, 10 * SECOND), SLC_OK);
    assert_true(st->ops->retired(st->self) >= 4);
    assert_int_equal(slc_vulkan_wait_frame(vk, 5, 10 * SECOND), SLC_OK);
    assert_int_equal(st->ops->retired(st->self), 5);

    if ((flags & SLC_VULKAN_NO_TIMELINE) == 0) {
        /* The application signals the frame's end in its own submission. */
        assert_int_equal(st->ops->submit(st->self, 6), SLC_OK);
        VkSemaphore sem;
        uint64_t value;
        assert_int_equal(slc_vulkan_frame_signal(vk, 6, &sem, &value), SLC_OK);
        gpu_block(&t_gpu);
        VkTimelineSemaphoreSubmitInfo ti = {.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
        ti.signalSemaphoreValueCount = 1;
        ti.pSignalSemaphoreValues = &value;
        VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO};
        si.pNext = &ti;
        si.signalSemaphoreCount = 1;
        si.pSignalSemaphores = &sem;
        assert_int_equal(t_table.vkQueueSubmit(t_queue, 1, &si, VK_NULL_HANDLE), VK_SUCCESS);
        nanosleep(&pause, NULL);
        assert_int_equal(st->ops->retired(st->self), 5);
        gpu_unblock(&t_gpu);
        assert_int_equal(slc_vulkan_wait_frame(vk, 6, 10 * SECOND), SLC_OK);
        assert_int_equal(st->ops->retired(st->self), 6);
    } else {
        VkSemaphore sem;
        uint64_t value;
        assert_int_equal(slc_vulkan_frame_signal(vk, 5, &sem, &value), SLC_E_UNSUPPORTED);
    }
    release(vk, mem);
    expect_no_validation_messages();
}

static void test_retired_waits_for_the_timeline(void **state)
{
    (void)state;
    skip_in_fence_mode();
    check_retirement(0);
}

static void test_retired_waits_for_the_fences(void **state)
{
    (void)state;
    skip_in_fence_mode();
    check_retirement(SLC_VULKAN_NO_TIMELINE);
}

/* A pool the heap cannot hold is refused at init, before any memory is
 * taken, with the heap and both numbers named. */
static void test_pool_larger_than_the_heap_budget_is_refused(void **state)
{
    (void)state;
    VkPhysicalDeviceMemoryProperties mp;
    vkGetPhysicalDeviceMemoryProperties(t_physical, &mp);
    unsigned long long heap0 = (unsigned long long)mp.memoryHeaps[0].size;
    vk_test_log tl;
    slc_budgets *b = budgets(64 * MiB, 512 * MiB, 64 * MiB);
    slc_vulkan_desc d = {0};
    d.page_count = 64;
    d.heap_budget = 1 * MiB;
    d.budgets = b;
    d.log = vk_test_logger(&tl);
    size_t size;
    void *mem = backend_memory(&d, &size);
    slc_vulkan_device_info dev = vk_test_device_info();
    slc_vulkan *vk = (slc_vulkan *)1;
    assert_int_equal(slc_vulkan_adopt(mem, size, &d, &dev, &vk), SLC_E_DEVICE_MEMORY);
    assert_null(vk);
    char want[512];
    snprintf(want, sizeof want,
             "vulkan: the page pool needs 4194304 bytes (64 pages of 65536 bytes) but memory heap 0 (DEVICE_LOCAL, "
             "%llu bytes) has 1048576 bytes available (the desc's heap_budget)",
             heap0);
    assert_string_equal(tl.last_error, want);
    assert_int_equal(tl.last_status, SLC_E_DEVICE_MEMORY);
    expect_budgets_back_to_zero(b);
    assert_int_equal(budget(b, B_POOL).peak, 0); /* refused before anything was charged */

    /* The pool fits, the staging belt after it does not. */
    d.placement = SLC_VULKAN_PLACEMENT_STAGING;
    d.staging_size = 16u * PAGE;
    d.heap_budget = 64u * PAGE + 8u * PAGE;
    d.log = vk_test_logger(&tl);
    assert_int_equal(slc_vulkan_adopt(mem, size, &d, &dev, &vk), SLC_E_DEVICE_MEMORY);
    snprintf(want, sizeof want,
             "vulkan: the staging belt needs 1048576 bytes (16 pages of 65536 bytes) but memory heap 0 (DEVICE_LOCAL, "
             "%llu bytes) has 524288 bytes available after the page pool's 4194304 (the desc's heap_budget)",
             heap0);
    assert_string_equal(tl.last_error, want);
    expect_budgets_back_to_zero(b);

    /* Without an override, the heap's size is the limit. */
    d.heap_budget = 0;
    d.placement = 0;
    d.staging_size = 0;
    d.page_size = SLC_PAGE_SIZE_MAX;
    d.page_count = (uint32_t)(heap0 / SLC_PAGE_SIZE_MAX) + 1;
    free(mem);
    mem = backend_memory(&d, &size);
    d.log = vk_test_logger(&tl);
    assert_int_equal(slc_vulkan_adopt(mem, size, &d, &dev, &vk), SLC_E_DEVICE_MEMORY);
    assert_non_null(strstr(tl.last_error, "available (the heap's size)"));
    free(mem);
    expect_budgets_back_to_zero(b);
    expect_no_validation_messages();
}

static void test_gpu_budgets_refuse_the_pool_and_belt(void **state)
{
    (void)state;
    vk_test_log tl;
    slc_budgets *b = budgets(64 * MiB, 2 * MiB, 64 * MiB);
    slc_vulkan_desc d = {0};
    d.page_count = 64;
    d.budgets = b;
    d.log = vk_test_logger(&tl);
    size_t size;
    void *mem = backend_memory(&d, &size);
    slc_vulkan_device_info dev = vk_test_device_info();
    slc_vulkan *vk;
    assert_int_equal(slc_vulkan_adopt(mem, size, &d, &dev, &vk), SLC_E_BUDGET_REFUSED);
    assert_string_equal(
        tl.last_error,
        "vulkan: the gpu/pool budget refused the page pool's 4194304 bytes (0 in use of its limit 2097152)");
    expect_budgets_back_to_zero(b);
    b = budgets(64 * MiB, 8 * MiB, 128 * 1024);
    d.budgets = b;
    d.placement = SLC_VULKAN_PLACEMENT_STAGING;
    assert_int_equal(slc_vulkan_adopt(mem, size, &d, &dev, &vk), SLC_E_BUDGET_REFUSED);
    assert_string_equal(tl.last_error, "vulkan: the gpu/staging budget refused the staging belt's 1048576 bytes (0 in "
                                       "use of its limit 131072)");
    expect_budgets_back_to_zero(b);
    /* A budget name that does not exist. */
    d.pool_budget = "gpu/nope";
    assert_int_equal(slc_vulkan_adopt(mem, size, &d, &dev, &vk), SLC_E_NOT_FOUND);
    assert_string_equal(tl.last_error, "vulkan: no budget named 'gpu/nope' to charge");
    free(mem);
    expect_no_validation_messages();
}

/* A host-only profile (no gpu budget) has no budget for the pool: init and
 * adopt refuse it before touching the device, naming the profile and the
 * gpu budgets it lacks; nothing is charged. */
static void test_host_only_profile_is_refused(void **state)
{
    (void)state;
    static const char text[] = "[profile]\nname = fw-host\n[budgets]\ncpu = 4 MiB\ncpu/meta = 1 MiB\n"
                               "cpu/decode = 1 MiB\ncpu/queues = 1 MiB\ncpu/driver = 1 MiB\n"
                               "[pool]\npage_size = 64 KiB\npage_count = 8\n"
                               "[stream]\nframes_in_flight = 2\nworkers = 0\nqueue_capacity = 16\n"
                               "staging_size = 0\nupload_per_frame = 64 KiB\n"
                               "[tables]\nmax_objects = 1\nmax_chunks = 8\nmax_lods = 1\nmax_string_bytes = 1 KiB\n";
    slc_profile p;
    assert_int_equal(slc_profile_parse(text, sizeof text - 1, "fw.profile", &p, NULL), SLC_OK);
    slc_budget_desc descs[SLC_PROFILE_BUDGET_MAX];
    size_t n = slc_profile_budget_descs(&p, descs, SLC_PROFILE_BUDGET_MAX);
    assert_int_equal(n, B_COUNT);
    slc_budgets *b;
    assert_int_equal(slc_budgets_init(budget_mem, sizeof budget_mem, descs, n, 2, NULL, &b), SLC_OK);
    slc_pool_spec spec;
    slc_pool_spec_from_profile(&p, SLC_POOL_GEOMETRY, &spec);
    slc_vulkan_desc d = {0};
    slc_vulkan_desc_from_spec(&d, &spec, &p);
    assert_null(d.pool_budget);
    assert_string_equal(d.profile_name, "fw-host");
    d.budgets = b;
    vk_test_log tl = {0};
    d.log = vk_test_logger(&tl);
    size_t size;
    void *mem = backend_memory(&d, &size);
    static const char want[] = "vulkan: profile 'fw-host' is host-only (it declares no gpu budget): the Vulkan "
                               "backend needs gpu, gpu/pool, gpu/staging";
    slc_vulkan *vk = (slc_vulkan *)mem;
    assert_int_equal(slc_vulkan_init(mem, size, &d, &vk), SLC_E_PROFILE_MISSING);
    assert_null(vk);
    assert_string_equal(tl.last_error, want);
    memset(tl.last_error, 0, sizeof tl.last_error);
    slc_vulkan_device_info dev = vk_test_device_info();
    assert_int_equal(slc_vulkan_adopt(mem, size, &d, &dev, &vk), SLC_E_PROFILE_MISSING);
    assert_string_equal(tl.last_error, want);
    for (uint16_t i = 0; i < n; i++) {
        assert_int_equal(budget(b, i).current, 0);
    }
    free(mem);
}

/* Every cpu/driver limit below the peak adopt takes with d refuses it,
 * naming the budget, leaking nothing and leaving every budget at zero;
 * the peak itself is enough. Returns the refusals. */
static int sweep_driver_budget(slc_vulkan_desc d, const char *what)
{
    slc_budgets *b = budgets(64 * MiB, 512 * MiB, 64 * MiB);
    d.budgets = b;
    void *mem;
    slc_vulkan *vk = adopt(&d, &mem);
    slc_vulkan_stats vs;
    slc_vulkan_get_stats(vk, &vs);
    uint64_t peak = vs.driver_peak;
    release(vk, mem);
    assert_true(peak > 0);
    printf("adopt (%s) takes %llu bytes of driver host memory at its peak\n", what, (unsigned long long)peak);
    size_t size;
    mem = backend_memory(&d, &size);
    slc_vulkan_device_info dev = vk_test_device_info();
    int refused = 0;
    atomic_store(&oom_expected, true);
    for (uint64_t limit = 0; limit < peak; limit += 16) {
        vk_test_log tl;
        b = budgets(limit, 512 * MiB, 64 * MiB);
        d.budgets = b;
        d.log = vk_test_logger(&tl);
        tl.quiet = true;
        slc_status s = slc_vulkan_adopt(mem, size, &d, &dev, &vk);
        if (s == SLC_OK) {
            fail_msg("adopt (%s) succeeded with cpu/driver at %llu bytes, below its peak of %llu", what,
                     (unsigned long long)limit, (unsigned long long)peak);
        }
        assert_int_equal(s, SLC_E_BUDGET_REFUSED);
        assert_non_null(strstr(tl.last_error, "the cpu/driver budget refused"));
        assert_int_equal(tl.leaks, 0);
        expect_budgets_back_to_zero(b);
        refused++;
    }
    atomic_store(&oom_expected, false);
    b = budgets(peak, 512 * MiB, 64 * MiB);
    d.budgets = b;
    d.log = (slc_logger){0};
    assert_int_equal(slc_vulkan_adopt(mem, size, &d, &dev, &vk), SLC_OK);
    slc_vulkan_deinit(vk);
    expect_budgets_back_to_zero(b);
    free(mem);
    return refused;
}

/* Every refusal point of the driver budget, on the adopted device: each init
 * either succeeds or fails with the budget named, and nothing stays charged;
 * for staging buffers and atlas images alike (their images, views and
 * memory refused in turn). */
static void test_driver_budget_refusals_leave_nothing(void **state)
{
    (void)state;
    slc_vulkan_desc d = {0};
    d.page_count = 8;
    d.placement = SLC_VULKAN_PLACEMENT_STAGING;
    d.staging_size = 4u * PAGE;
    int refused = sweep_driver_budget(d, "staging");
    d.placement = SLC_VULKAN_PLACEMENT_AUTO;
    d.image_texel = SLC_PACK_TEXEL_RGBA8;
    d.max_segment_size = 4u * PAGE; /* two atlas images */
    refused += sweep_driver_budget(d, "atlas images");
    printf("driver budget: %d refused adoptions, every one clean\n", refused);
    expect_no_validation_messages();
}

/* The same for a headless init: a cpu/driver budget too small for the
 * instance, for the device, for the pool's objects. The loader's and the
 * driver's own allocations differ a little from one instance to the next
 * (the first one in a process does more), so a limit near the peak may
 * pass; every refusal must be clean and name the budget. */
static void test_driver_budget_too_small_for_headless_init(void **state)
{
    (void)state;
    assert_true(headless_driver_peak > 0); /* from test_headless_creates_its_own_device */
    uint64_t limits[] = {0, 256, headless_driver_peak / 8, headless_driver_peak / 2, headless_driver_peak * 7 / 8};
    int refused = 0;
    atomic_store(&oom_expected, true);
    for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++) {
        vk_test_log tl;
        slc_budgets *b = budgets(limits[i], 512 * MiB, 64 * MiB);
        slc_vulkan_desc d = {0};
        d.page_count = 16;
        d.budgets = b;
        d.log = vk_test_logger(&tl);
        d.layers = validation_layer;
        d.layer_count = 1;
        d.debug_callback = on_message;
        size_t size;
        void *mem = backend_memory(&d, &size);
        slc_vulkan *vk = (slc_vulkan *)1;
        struct timespec t0;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        slc_status s = slc_vulkan_init(mem, size, &d, &vk);
        printf("cpu/driver limit %llu: %s in %.1f ms%s%s\n", (unsigned long long)limits[i], slc_status_name(s),
               ms_since(&t0), s != SLC_OK ? ": " : "", tl.last_error);
        if (s == SLC_OK) {
            assert_true(i >= 3);
            slc_vulkan_deinit(vk);
        } else {
            assert_int_equal(s, SLC_E_BUDGET_REFUSED);
            assert_null(vk);
            assert_non_null(strstr(tl.last_error, "the cpu/driver budget refused"));
            assert_true(budget(b, B_DRIVER).refused > 0);
            refused++;
        }
        assert_int_equal(tl.leaks, 0);
        expect_budgets_back_to_zero(b);
        free(mem);
    }
    atomic_store(&oom_expected, false);
    assert_true(refused >= 3);
    expect_no_validation_messages();
}

/* Reads page `at` of atlas image `seg_index` back into out (page_size
 * bytes): its region's blocks row after row, as the backend laid the
 * page's bytes, at its place in its layer. */
static void read_page(gpu *g, slc_vulkan *vk, uint32_t seg_index, uint32_t at, unsigned char *out)
{
    slc_vulkan_info info;
    slc_vulkan_get_info(vk, &info);
    slc_vulkan_segment seg;
    slc_vulkan_get_segment(vk, seg_index, &seg);
    const struct VolkDeviceTable *d = g->d;
    VkBufferCreateInfo bi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    bi.size = info.page_size;
    bi.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    VkBuffer buf;
    assert_int_equal(d->vkCreateBuffer(g->device, &bi, NULL, &buf), VK_SUCCESS);
    VkMemoryRequirements req;
    d->vkGetBufferMemoryRequirements(g->device, buf, &req);
    VkPhysicalDeviceMemoryProperties mp;
    vkGetPhysicalDeviceMemoryProperties(g->physical, &mp);
    uint32_t type = UINT32_MAX;
    for (uint32_t i = 0; i < mp.memoryTypeCount && type == UINT32_MAX; i++) {
        const VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
        if ((req.memoryTypeBits & (1u << i)) != 0 && (mp.memoryTypes[i].propertyFlags & want) == want) {
            type = i;
        }
    }
    assert_int_not_equal(type, UINT32_MAX);
    VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    ai.allocationSize = req.size;
    ai.memoryTypeIndex = type;
    VkDeviceMemory mem;
    assert_int_equal(d->vkAllocateMemory(g->device, &ai, NULL, &mem), VK_SUCCESS);
    assert_int_equal(d->vkBindBufferMemory(g->device, buf, mem, 0), VK_SUCCESS);
    VkCommandBufferBeginInfo cbi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    cbi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    assert_int_equal(d->vkResetCommandBuffer(g->cmd, 0), VK_SUCCESS);
    assert_int_equal(d->vkBeginCommandBuffer(g->cmd, &cbi), VK_SUCCESS);
    const uint32_t layer = at / info.pages_per_layer;
    VkBufferImageCopy r = {0};
    r.bufferRowLength = info.page_width;
    r.imageSubresource.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
    r.imageSubresource.baseArrayLayer = layer;
    r.imageOffset.y = (int32_t)((at % info.pages_per_layer) * info.page_height);
    r.imageSubresource.layerCount = 1;
    r.imageExtent.width = info.page_width;
    r.imageExtent.height = info.page_height;
    r.imageExtent.depth = 1;
    /* The layer from the layout the backend leaves it in to the copy's, and back. */
    VkImageMemoryBarrier ib = {.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
    ib.srcAccessMask = VK_ACCESS_SHADER_READ_BIT;
    ib.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
    ib.oldLayout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
    ib.newLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
    ib.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    ib.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    ib.image = seg.image;
    ib.subresourceRange.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
    ib.subresourceRange.levelCount = 1;
    ib.subresourceRange.baseArrayLayer = layer;
    ib.subresourceRange.layerCount = 1;
    d->vkCmdPipelineBarrier(g->cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, NULL, 0,
                            NULL, 1, &ib);
    d->vkCmdCopyImageToBuffer(g->cmd, seg.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, buf, 1, &r);
    ib.srcAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
    ib.dstAccessMask = VK_ACCESS_SHADER_READ_BIT;
    ib.oldLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
    ib.newLayout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
    VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    mb.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    mb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    d->vkCmdPipelineBarrier(g->cmd, VK_PIPELINE_STAGE_TRANSFER_BIT,
                            VK_PIPELINE_STAGE_HOST_BIT | VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 1, &mb, 0, NULL, 1,
                            &ib);
    assert_int_equal(d->vkEndCommandBuffer(g->cmd), VK_SUCCESS);
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.commandBufferCount = 1;
    si.pCommandBuffers = &g->cmd;
    assert_int_equal(d->vkQueueSubmit(g->queue, 1, &si, VK_NULL_HANDLE), VK_SUCCESS);
    assert_int_equal(d->vkQueueWaitIdle(g->queue), VK_SUCCESS);
    void *map;
    assert_int_equal(d->vkMapMemory(g->device, mem, 0, VK_WHOLE_SIZE, 0, &map), VK_SUCCESS);
    memcpy(out, map, info.page_size);
    d->vkUnmapMemory(g->device, mem);
    d->vkDestroyBuffer(g->device, buf, NULL);
    d->vkFreeMemory(g->device, mem, NULL);
}

/* Atlas images (the texture tile pool): a layer a page, in segments of
 * whole layers, written through the belt in whole block rows; the bytes
 * read back from a layer are the bytes written, the rest of the last row
 * zeros; the images are charged to the pool's budget, the belt to
 * staging's. */
static void test_atlas_images_take_pages_through_the_belt(void **state)
{
    (void)state;
    if (cpu_readback) {
        skip(); /* the images are never mapped: read back with a copy, which is not the CPU path */
    }
    vk_test_log tl;
    slc_budgets *b = budgets(64 * MiB, 512 * MiB, 64 * MiB);
    static const struct {
        uint32_t texel, layer_w, layer_h, page_blocks;
    } cases[] = {
        {SLC_PACK_TEXEL_RGBA8, 128, 128, 128},
        {SLC_PACK_TEXEL_BC1, 512, 256, 128},
        {SLC_PACK_TEXEL_BC3, 256, 256, 64},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        if (cases[k].texel != SLC_PACK_TEXEL_RGBA8 && !t_bc) {
            printf("atlas images in %s: skipped, the device has no textureCompressionBC\n",
                   slc_pack_texel_format_name(cases[k].texel));
            continue;
        }
        slc_vulkan_desc d = {0};
        d.page_count = 20;
        d.staging_size = 4u * PAGE;
        d.image_texel = cases[k].texel;
        d.max_segment_size = 8u * PAGE; /* three images: 8, 8 and 4 layers */
        d.budgets = b;
        d.log = vk_test_logger(&tl);
        slc_vulkan_device_info dev = vk_test_device_info();
        dev.texture_compression_bc = t_bc ? VK_TRUE : VK_FALSE; /* the application enabled it */
        void *mem;
        slc_vulkan *vk = adopt_with(&d, &dev, &mem);
        slc_vulkan_info info;
        slc_vulkan_get_info(vk, &info);
        assert_false(info.unified);
        assert_int_equal(info.image_texel, cases[k].texel);
        assert_int_equal(info.image_format, slc_vulkan_texel_format(cases[k].texel, false));
        assert_int_equal(info.page_width, cases[k].layer_w);
        assert_int_equal(info.page_height, cases[k].layer_h);
        assert_int_equal(info.page_blocks, cases[k].page_blocks);
        assert_int_equal(info.pages_per_layer, 1);
        assert_int_equal(info.segment_count, 3);
        assert_int_equal(info.pages_per_segment, 8);
        assert_int_equal(info.belt_slots, 4);
        assert_true(budget(b, B_POOL).current >= 20u * PAGE);
        assert_int_equal(budget(b, B_STAGING).current, 4u * PAGE);
        slc_vulkan_segment seg;
        slc_vulkan_get_segment(vk, 2, &seg);
        assert_int_equal(seg.buffer, VK_NULL_HANDLE);
        assert_int_not_equal(seg.image, VK_NULL_HANDLE);
        assert_int_not_equal(seg.view, VK_NULL_HANDLE);
        assert_int_equal(seg.first_page, 16);
        assert_int_equal(seg.page_count, 4);

        /* Page 0 whole; page 17 (image 2, layer 1) 1000 bytes, over bytes
         * the slot held before; page 9 twice before a submit. */
        slc_page_store *st = slc_vulkan_get_store(vk);
        expected e = expect_new(vk);
        uint64_t seed = 90 + k;
        write_page(vk, &e, 0, PAGE, &seed);
        write_page(vk, &e, 1, PAGE, &seed);
        write_page(vk, &e, 9, PAGE, &seed);
        assert_int_equal(st->ops->submit(st->self, 1), SLC_OK);
        assert_int_equal(slc_vulkan_wait_frame(vk, 1, 10 * SECOND), SLC_OK);
        write_page(vk, &e, 17, 1000, &seed);
        write_page(vk, &e, 9, PAGE, &seed);
        write_page(vk, &e, 9, 3000, &seed);
        assert_int_equal(st->ops->submit(st->self, 2), SLC_OK);
        assert_int_equal(slc_vulkan_wait_frame(vk, 2, 10 * SECOND), SLC_OK);
        unsigned char *got = malloc(PAGE);
        assert_non_null(got);
        const uint32_t pages[] = {0, 1, 9, 17};
        const uint32_t bytes[] = {PAGE, PAGE, PAGE, 1000};
        const size_t row = (size_t)info.page_blocks * (cases[k].texel == SLC_PACK_TEXEL_RGBA8 ? 4u
                                                       : cases[k].texel == SLC_PACK_TEXEL_BC1 ? 8u
                                                                                              : 16u);
        for (size_t i = 0; i < 4; i++) {
            read_page(&t_gpu, vk, pages[i] / 8u, pages[i] % 8u, got);
            assert_memory_equal(got, e.bytes + (size_t)pages[i] * PAGE, bytes[i]);
            if (bytes[i] != PAGE) {
                size_t whole = (bytes[i] + row - 1u) / row * row;
                for (size_t j = bytes[i]; j < whole; j++) {
                    if (got[j] != 0) {
                        fail_msg("texel %u: page %u byte %zu of its last row is %u, not 0", cases[k].texel, pages[i], j,
                                 got[j]);
                    }
                }
            }
        }
        free(got);
        slc_vulkan_stats vs;
        slc_vulkan_get_stats(vk, &vs);
        assert_int_equal(vs.copies, 5); /* page 9 once a frame */
        release(vk, mem);
        free(e.bytes);
        expect_budgets_back_to_zero(b);
    }
    assert_int_equal(tl.errors, 0);
    expect_no_validation_messages();
}

/* A pool of more pages than an image may have layers: pages_per_layer
 * pages one above the other in a layer, one image for them all (a shader
 * may index an array of images only with a feature lavapipe lacks). */
static void test_atlas_pages_share_a_layer(void **state)
{
    (void)state;
    if (cpu_readback) {
        skip();
    }
    VkPhysicalDeviceProperties props;
    vkGetPhysicalDeviceProperties(t_physical, &props);
    const uint32_t layers = props.limits.maxImageArrayLayers;
    const uint32_t page = 4096u;
    slc_vulkan_desc d = {0};
    d.page_size = page;
    d.page_count = 2u * layers + 5u; /* three pages a layer */
    d.staging_size = 8u * page;
    d.image_texel = SLC_PACK_TEXEL_RGBA8;
    void *mem;
    slc_vulkan *vk = adopt(&d, &mem);
    slc_vulkan_info info;
    slc_vulkan_get_info(vk, &info);
    assert_int_equal(info.page_width, 32);
    assert_int_equal(info.page_height, 32);
    assert_int_equal(info.pages_per_layer, 3);
    assert_int_equal(info.segment_count, 1);
    expected e = expect_new(vk);
    uint64_t seed = 7;
    const uint32_t pages[] = {0, 1, 2, 3, d.page_count - 1u};
    for (size_t i = 0; i < 5; i++) {
        write_page(vk, &e, pages[i], page, &seed);
    }
    slc_page_store *st = slc_vulkan_get_store(vk);
    assert_int_equal(st->ops->submit(st->self, 1), SLC_OK);
    assert_int_equal(slc_vulkan_wait_frame(vk, 1, 10 * SECOND), SLC_OK);
    unsigned char got[4096];
    for (size_t i = 0; i < 5; i++) {
        read_page(&t_gpu, vk, 0, pages[i], got);
        assert_memory_equal(got, e.bytes + (size_t)pages[i] * page, page);
    }
    release(vk, mem);
    free(e.bytes);
    expect_no_validation_messages();
}

/* What an atlas image pool refuses: a value that is no format, unified
 * placement (the images are written through the belt), and a format the
 * device does not sample (ASTC where textureCompressionASTC_LDR is off). */
static void test_atlas_images_refusals(void **state)
{
    (void)state;
    vk_test_log tl;
    slc_budgets *b = budgets(64 * MiB, 512 * MiB, 64 * MiB);
    slc_vulkan_desc d = {0};
    d.page_count = 8;
    d.budgets = b;
    d.log = vk_test_logger(&tl);
    d.image_texel = SLC_PACK_TEXEL_COUNT;
    assert_int_equal(slc_vulkan_footprint(&d), 0);
    size_t size = slc_vulkan_footprint(NULL) + (1u << 20);
    void *mem = aligned_alloc(SLC_VULKAN_ALIGN, size);
    assert_non_null(mem);
    slc_vulkan_device_info dev = vk_test_device_info();
    slc_vulkan *vk = (slc_vulkan *)1;
    assert_int_equal(slc_vulkan_adopt(mem, size, &d, &dev, &vk), SLC_E_INVALID);
    assert_null(vk);
    assert_string_equal(tl.last_error, "vulkan: invalid desc: image_texel is not an SLC_PACK_TEXEL_* format");
    d.image_texel = SLC_PACK_TEXEL_RGBA8;
    d.placement = SLC_VULKAN_PLACEMENT_UNIFIED;
    assert_int_equal(slc_vulkan_adopt(mem, size, &d, &dev, &vk), SLC_E_INVALID);
    assert_string_equal(tl.last_error, "vulkan: invalid desc: image_texel is set with placement UNIFIED, but atlas "
                                       "images are written through the staging belt");
    d.placement = SLC_VULKAN_PLACEMENT_AUTO;
    d.max_segment_size = PAGE - 1u; /* not one page an image */
    assert_int_equal(slc_vulkan_adopt(mem, size, &d, &dev, &vk), SLC_E_UNSUPPORTED);
    assert_null(vk);
    assert_string_equal(tl.last_error, "vulkan: an atlas image may hold no layer of 1 pages of 65536 bytes (the desc's "
                                       "max_segment_size)");
    d.max_segment_size = 0;
    d.image_texel = SLC_PACK_TEXEL_BC3;
    dev.texture_compression_bc = VK_FALSE; /* the device has it, the application did not say it enabled it */
    assert_int_equal(slc_vulkan_adopt(mem, size, &d, &dev, &vk), SLC_E_UNSUPPORTED);
    assert_null(vk);
    assert_non_null(strstr(tl.last_error, "does not sample bc3 (VkFormat 137) in optimal tiling"));
    d.image_texel = SLC_PACK_TEXEL_ASTC_4X4;
    dev.texture_compression_astc_ldr = VK_FALSE;
    assert_int_equal(slc_vulkan_adopt(mem, size, &d, &dev, &vk), SLC_E_UNSUPPORTED);
    assert_null(vk);
    assert_non_null(strstr(tl.last_error, "does not sample astc4x4 (VkFormat 157) in optimal tiling"));
    free(mem);
    expect_budgets_back_to_zero(b);
    expect_no_validation_messages();
}

static void test_bad_desc_and_memory_are_refused(void **state)
{
    (void)state;
    vk_test_log tl;
    slc_vulkan_desc d = {0};
    d.log = vk_test_logger(&tl);
    size_t size = slc_vulkan_footprint(&d);
    assert_true(size > SLC_VULKAN_DEFAULT_DRIVER_HEAP);
    assert_int_equal(slc_vulkan_footprint(NULL), size);
    slc_vulkan_device_info dev = vk_test_device_info();
    slc_vulkan *vk = (slc_vulkan *)1;
    assert_int_equal(slc_vulkan_adopt(NULL, size, &d, &dev, &vk), SLC_E_BLOCK_NULL);
    assert_null(vk);
    void *mem = aligned_alloc(64, size + 64);
    assert_int_equal(slc_vulkan_adopt((unsigned char *)mem + 8, size, &d, &dev, &vk), SLC_E_BLOCK_MISALIGNED);
    assert_int_equal(slc_vulkan_adopt(mem, size - 1, &d, &dev, &vk), SLC_E_BLOCK_TOO_SMALL);
    d.page_size = 3000;
    assert_int_equal(slc_vulkan_footprint(&d), 0);
    assert_int_equal(slc_vulkan_adopt(mem, size, &d, &dev, &vk), SLC_E_INVALID);
    assert_string_equal(tl.last_error,
                        "vulkan: invalid desc: page_size is not a power of two between 4 KiB and 64 MiB");
    d.page_size = 0;
    d.frames_in_flight = SLC_FRAMES_IN_FLIGHT_MAX + 1;
    assert_int_equal(slc_vulkan_adopt(mem, size, &d, &dev, &vk), SLC_E_INVALID);
    d.frames_in_flight = 0;
    d.staging_size = 100;
    assert_int_equal(slc_vulkan_adopt(mem, size, &d, &dev, &vk), SLC_E_INVALID);
    d.staging_size = 0;
    d.reserved0 = 1;
    assert_int_equal(slc_vulkan_adopt(mem, size, &d, &dev, &vk), SLC_E_INVALID);
    free(mem);
    expect_no_validation_messages();
}

static void test_profile_fills_the_desc(void **state)
{
    (void)state;
    size_t len;
    char *text = read_source_file("budgets/default.profile", &len);
    slc_profile p;
    assert_int_equal(tool_profile_parse(text, len, "default.profile", &p, NULL, NULL), SLC_OK);
    free(text);
    slc_vulkan_desc d = {0};
    slc_pool_spec spec;
    slc_pool_spec_from_profile(&p, SLC_POOL_GEOMETRY, &spec);
    slc_vulkan_desc_from_spec(&d, &spec, &p);
    assert_int_equal(d.page_size, p.page_size);
    assert_int_equal(d.page_count, p.page_count);
    assert_int_equal(d.frames_in_flight, p.frames_in_flight);
    assert_int_equal(d.staging_size, p.staging_size);
    assert_string_equal(d.pool_budget, "gpu/pool");
    assert_int_equal(d.driver_heap_size, p.budgets[slc_profile_scan_budget(&p, "cpu/driver")].limit);
    assert_true(slc_vulkan_footprint(&d) > d.driver_heap_size);
}

static void test_contract_violations_assert(void **state)
{
    (void)state;
    slc_vulkan_desc d = {0};
    d.page_count = 4;
    d.placement = SLC_VULKAN_PLACEMENT_STAGING;
    d.staging_size = 4u * PAGE;
    void *mem;
    slc_vulkan *vk = adopt(&d, &mem);
    slc_page_store *st = slc_vulkan_get_store(vk);
    void *dst;
    expect_assert_failure(st->ops->write_end(st->self, 1, 10));     /* no write_begin */
    expect_assert_failure(st->ops->write_begin(st->self, 4, &dst)); /* past the pool */
    assert_int_equal(st->ops->write_begin(st->self, 1, &dst), SLC_OK);
    expect_assert_failure(st->ops->write_begin(st->self, 1, &dst)); /* twice */
    expect_assert_failure(st->ops->write_end(st->self, 1, PAGE + 1));
    assert_int_equal(st->ops->write_end(st->self, 1, 0), SLC_OK); /* abandoned */
    assert_int_equal(st->ops->submit(st->self, 2), SLC_OK);
    expect_assert_failure(st->ops->submit(st->self, 2));         /* frames only increase */
    expect_assert_failure(slc_vulkan_wait_frame(vk, 3, SECOND)); /* never submitted */
    assert_int_equal(slc_vulkan_wait_frame(vk, 2, 10 * SECOND), SLC_OK);
    release(vk, mem);
    expect_no_validation_messages();
}

/* Run only with --provoke-validation: a call the layer reports must fail. */
static void test_validation_messenger_fails_on_a_bad_call(void **state)
{
    (void)state;
    VkBufferCreateInfo bi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    bi.size = 256;
    bi.usage = 0; /* VUID-VkBufferCreateInfo-usage-requiredbitmask: benign for the driver */
    VkBuffer buf = VK_NULL_HANDLE;
    t_table.vkCreateBuffer(t_device, &bi, NULL, &buf);
    if (buf != VK_NULL_HANDLE) {
        t_table.vkDestroyBuffer(t_device, buf, NULL);
    }
    expect_no_validation_messages();
}

/* --- the group ----------------------------------------------------------------------- */

/* --- the pool over both backends: the same decisions -------------------------------- */

enum { TRACE_PAGES = 32, TRACE_PAGE = 4096, TRACE_FRAMES = 150, TRACE_REQUESTS = 12 };

typedef struct trace_result {
    uint64_t log_hash, log_count, evictions, busy;
    uint32_t resident_checked;
} trace_result;

static void fill_page(unsigned char *dst, uint32_t chunk)
{
    for (uint32_t i = 0; i < TRACE_PAGE; i++) {
        dst[i] = (unsigned char)(chunk * 31u + i / 16u);
    }
}

/* A camera-like request stream: a window of chunk ids that drifts, plus
 * jumps. The pool runs over store; vk (NULL for the host backend) is told of
 * each frame's end and waited on when the pool says too many are in flight,
 * so GPU timing decides only when a frame may begin, never which page goes. */
static trace_result run_trace(const slc_page_store *store, slc_vulkan *vk, slc_eviction_policy policy)
{
    slc_pool_desc pd;
    memset(&pd, 0, sizeof pd);
    pd.page_count = TRACE_PAGES;
    pd.max_chunks = 1024;
    pd.frames_in_flight = 2;
    pd.eviction = policy;
    pd.partition_count = 1;
    pd.partitions[0].name = "near";
    pd.partitions[0].page_count = 8;
    size_t size = slc_pool_footprint(&pd);
    void *mem = aligned_alloc(SLC_POOL_ALIGN, (size + SLC_POOL_ALIGN - 1) & ~(size_t)(SLC_POOL_ALIGN - 1));
    slc_pool *pool;
    assert_int_equal(slc_pool_init(mem, size, &pd, store, NULL, &pool), SLC_OK);
    slc_partition near_part, far_part;
    assert_int_equal(slc_pool_scan_partition(pool, "near", &near_part), SLC_OK);
    assert_int_equal(slc_pool_scan_partition(pool, "default", &far_part), SLC_OK);
    uint64_t seed = 0x5eed5eedull;
    for (uint32_t f = 0; f < TRACE_FRAMES; f++) {
        uint64_t frame;
        slc_status s;
        while ((s = slc_pool_begin_frame(pool, &frame)) == SLC_E_FRAMES_IN_FLIGHT) {
            slc_pool_stats st;
            slc_pool_get_stats(pool, &st);
            assert_non_null(vk); /* the host backend retires at submit */
            assert_int_equal(slc_vulkan_wait_frame(vk, st.submitted - 1, 5000000000ull), SLC_OK);
        }
        assert_int_equal(s, SLC_OK);
        for (uint32_t r = 0; r < TRACE_REQUESTS; r++) {
            uint64_t x = rng_next(&seed);
            uint32_t chunk = (f / 3 + (uint32_t)(x % 24) + ((x >> 8) % 16 == 0 ? 300 : 0)) % 1024;
            slc_page_info info;
            if (slc_pool_lookup(pool, (slc_chunk_id){chunk}, &info) == SLC_OK) {
                assert_int_equal(slc_pool_touch(pool, info.page, (uint8_t)(x >> 16)), SLC_OK);
                continue;
            }
            slc_pool_request req = {{chunk},
                                    (chunk & 3) == 0 ? near_part : far_part,
                                    (uint8_t)(chunk % 4),
                                    (uint8_t)(x >> 24)};
            slc_page page;
            s = slc_pool_acquire(pool, &req, &page);
            if (s == SLC_E_POOL_BUSY) {
                continue;
            }
            assert_int_equal(s, SLC_OK);
            void *dst;
            assert_int_equal(slc_pool_write_begin(pool, page, &dst), SLC_OK);
            fill_page(dst, chunk);
            assert_int_equal(slc_pool_write_end(pool, page, TRACE_PAGE), SLC_OK);
        }
        assert_int_equal(slc_pool_end_frame(pool), SLC_OK);
        if (vk != NULL) {
            assert_int_equal(slc_vulkan_end_frame(vk, frame), SLC_OK);
        }
        assert_true(slc_pool_check(pool));
    }
    trace_result out = {0};
    if (vk != NULL) {
        slc_pool_stats st;
        slc_pool_get_stats(pool, &st);
        assert_int_equal(slc_vulkan_wait_frame(vk, st.submitted, 5000000000ull), SLC_OK);
    }
    /* Every resident page holds its chunk's bytes where the CPU can see them. */
    for (uint32_t i = 0; i < TRACE_PAGES; i++) {
        slc_page_info info;
        slc_pool_get_page(pool, i, &info);
        if (info.state == SLC_PAGE_RESIDENT && info.location.host != NULL) {
            unsigned char want[TRACE_PAGE];
            fill_page(want, info.chunk.index);
            assert_memory_equal(info.location.host, want, TRACE_PAGE);
            out.resident_checked++;
        }
    }
    slc_pool_stats st;
    slc_pool_get_stats(pool, &st);
    out.log_hash = st.log_hash;
    out.log_count = st.log_count;
    out.evictions = st.evictions;
    out.busy = st.busy;
    free(mem);
    return out;
}

static void test_pool_decides_the_same_on_host_and_vulkan(void **state)
{
    (void)state;
    for (int policy = 0; policy < 2; policy++) {
        slc_eviction_policy ev = policy ? SLC_EVICTION_PRIORITY : SLC_EVICTION_LRU;
        /* The host backend. */
        size_t amem_size = SLC_ARENA_FOOTPRINT(slc_host_store_footprint(TRACE_PAGES, TRACE_PAGE));
        void *amem = aligned_alloc(SLC_ARENA_ALIGN, (amem_size + 63u) & ~(size_t)63u);
        slc_arena *arena;
        assert_int_equal(slc_arena_init(amem, amem_size, NULL, SLC_BUDGET_NONE, &arena), SLC_OK);
        slc_page_store host;
        assert_int_equal(slc_host_store_init(arena, TRACE_PAGES, TRACE_PAGE, NULL, &host), SLC_OK);
        assert_string_equal(host.backend, "host");
        trace_result h = run_trace(&host, NULL, ev);
        free(amem);
        assert_true(h.evictions > 50); /* the trace does push the pool */
        /* The same on every architecture: x86-64 computed these, the aarch64
         * and armhf builds check them under qemu. */
        assert_int_equal(h.log_hash, policy ? 0xef27c3ca81646b40ull : 0x2d00546f3f9f5e6dull);
        /* The Vulkan backend, unified and through the staging belt. */
        for (int staging = 0; staging < 2; staging++) {
            slc_vulkan_desc d = {0};
            d.page_size = TRACE_PAGE;
            d.page_count = TRACE_PAGES;
            d.frames_in_flight = 2;
            d.placement = staging ? SLC_VULKAN_PLACEMENT_STAGING : SLC_VULKAN_PLACEMENT_UNIFIED;
            d.staging_size = 64u * TRACE_PAGE; /* two frames of misses fit */
            d.flags = fence_mode ? SLC_VULKAN_NO_TIMELINE : 0u;
            d.layers = validation_layer;
            d.layer_count = 1;
            d.debug_callback = on_message;
            size_t size;
            void *mem = backend_memory(&d, &size);
            slc_vulkan *vk;
            assert_int_equal(slc_vulkan_init(mem, size, &d, &vk), SLC_OK);
            slc_page_store *store = slc_vulkan_get_store(vk);
            assert_string_equal(store->backend, "vulkan");
            trace_result v = run_trace(store, vk, ev);
            print_message("%s, %s: %llu log entries, %llu evictions, %llu busy, hash 0x%llx (host 0x%llx)\n",
                          policy ? "priority" : "lru", staging ? "staging" : "unified", (unsigned long long)v.log_count,
                          (unsigned long long)v.evictions, (unsigned long long)v.busy, (unsigned long long)v.log_hash,
                          (unsigned long long)h.log_hash);
            assert_int_equal(v.log_hash, h.log_hash);
            assert_int_equal(v.log_count, h.log_count);
            assert_int_equal(v.evictions, h.evictions);
            assert_int_equal(v.busy, h.busy);
            if (!staging) {
                assert_int_equal(v.resident_checked, h.resident_checked);
            }
            slc_vulkan_deinit(vk);
            free(mem);
        }
    }
    expect_no_validation_messages();
}

static int group_setup(void **state)
{
    (void)state;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (create_test_device() != 0) {
        return -1;
    }
    printf("timing: test instance + device with the validation layer: %.1f ms\n", ms_since(&t0));
    gpu_init(&t_gpu, t_physical, t_device, t_queue, t_family, &t_table, true);
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    if (t_gpu.device != VK_NULL_HANDLE) {
        gpu_deinit(&t_gpu);
    }
    vk_test_device_close();
    printf("validation messages over the whole run: %d (and %d expected reports of refused host memory)\n",
           atomic_load(&messages_total), atomic_load(&expected_oom));
    return 0;
}

int main(int argc, char **argv)
{
    /* Lavapipe only (the aarch64 ICD files would make the x86-64 loader
     * complain), and synchronization validation on; ctest sets these too. */
    setenv("VK_DRIVER_FILES", SLUICE_LVP_ICD, 0);
    /* Mesa 22.3's implicit VK_LAYER_MESA_device_select calls calloc with an
     * uninitialised size when vkCreateInstance runs out of host memory
     * (glibc returns NULL, ThreadSanitizer's allocator aborts): the driver
     * budget sweeps reach that path, and one device needs no selecting. */
    setenv("NODEVICE_SELECT", "1", 0);
    /* The validation layer stays loaded for the whole run (ThreadSanitizer's
     * called_from_lib suppression for it, tsan-vulkan.supp, needs that). */
    (void)dlopen("libVkLayer_khronos_validation.so", RTLD_NOW | RTLD_NODELETE);
    setenv("VK_LAYER_ENABLES", "VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT", 0);
    const char *filter = getenv("SLUICE_TEST_FILTER"); /* a cmocka pattern: run only matching cases */
    if (filter != NULL) {
        cmocka_set_test_filter(filter);
    }
    const char *fences = getenv("SLUICE_TEST_FENCES");
    fence_mode = fences != NULL && strcmp(fences, "1") == 0;
    const char *readback = getenv("SLUICE_TEST_CPU_READBACK");
    cpu_readback = readback != NULL && strcmp(readback, "1") == 0;
    if (argc > 1 && strcmp(argv[1], "--provoke-validation") == 0) {
        const struct CMUnitTest provoke[] = {
            cmocka_unit_test_setup(test_validation_messenger_fails_on_a_bad_call, reset_messages)};
        return cmocka_run_group_tests(provoke, group_setup, group_teardown);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_headless_creates_its_own_device, reset_messages),
        cmocka_unit_test_setup(test_pool_decides_the_same_on_host_and_vulkan, reset_messages),
        cmocka_unit_test_setup(test_adopted_unified_pages_reach_the_gpu, reset_messages),
        cmocka_unit_test_setup(test_flushes_are_atom_aligned, reset_messages),
        cmocka_unit_test_setup(test_staging_pages_reach_the_gpu, reset_messages),
        cmocka_unit_test_setup(test_staging_belt_full_until_the_fence, reset_messages),
        cmocka_unit_test_setup(test_belt_emptied_before_the_first_submit, reset_messages),
        cmocka_unit_test_setup(test_staging_split_copies, reset_messages),
        cmocka_unit_test_setup(test_pages_written_from_several_threads, reset_messages),
        cmocka_unit_test_setup(test_segments_split_a_large_pool, reset_messages),
        cmocka_unit_test_setup(test_retired_waits_for_the_timeline, reset_messages),
        cmocka_unit_test_setup(test_retired_waits_for_the_fences, reset_messages),
        cmocka_unit_test_setup(test_pool_larger_than_the_heap_budget_is_refused, reset_messages),
        cmocka_unit_test_setup(test_gpu_budgets_refuse_the_pool_and_belt, reset_messages),
        cmocka_unit_test_setup(test_host_only_profile_is_refused, reset_messages),
        cmocka_unit_test_setup(test_driver_budget_refusals_leave_nothing, reset_messages),
        cmocka_unit_test_setup(test_driver_budget_too_small_for_headless_init, reset_messages),
        cmocka_unit_test_setup(test_atlas_images_take_pages_through_the_belt, reset_messages),
        cmocka_unit_test_setup(test_atlas_pages_share_a_layer, reset_messages),
        cmocka_unit_test_setup(test_atlas_images_refusals, reset_messages),
        cmocka_unit_test_setup(test_bad_desc_and_memory_are_refused, reset_messages),
        cmocka_unit_test_setup(test_profile_fills_the_desc, reset_messages),
        cmocka_unit_test_setup(test_contract_violations_assert, reset_messages),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
