/* SPDX-License-Identifier: MIT */
/* sluice: the reference renderer (see sluice/render.h). Vertex pulling from
 * the page pool of the Vulkan backend: a compute pass culls cluster draws
 * and writes their indirect commands, a graphics pipeline without vertex
 * input decodes each vertex from its page. Every object is created at init. */
#include "render_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* SPIR-V, compiled by glslc at build time from platform/shaders. */
static const uint32_t cull_spv[] =
#include "render_cull.comp.inc"
    ;
static const uint32_t vert_spv[] =
#include "render.vert.inc"
    ;
static const uint32_t vert_drawid_spv[] =
#include "render_drawid.vert.inc"
    ;
/* The vertex shaders with UVs and the object for the materials' fragment
 * shader (SLC_MATERIALS). */
static const uint32_t vert_materials_spv[] =
#include "render_materials.vert.inc"
    ;
static const uint32_t vert_materials_drawid_spv[] =
#include "render_materials_drawid.vert.inc"
    ;
static const uint32_t frag_spv[] =
#include "render.frag.inc"
    ;
/* The same with the materials' shading and texture sampling, for a pack
 * with materials. */
static const uint32_t frag_materials_spv[] =
#include "render_materials.frag.inc"
    ;
/* And with the texture pool's atlas images sampled (SLC_TEXTURES). */
static const uint32_t frag_textured_spv[] =
#include "render_textured.frag.inc"
    ;

/* --- messages ------------------------------------------------------------ */

/* The name in parentheses: render_internal.h may define slc__rd_log as a
 * macro for the static analyzer. */
slc_status(slc__rd_log)(const slc_logger *log, slc_status status, const char *fmt, ...)
{
    if (log != NULL && log->fn != NULL) {
        char msg[512];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        log->fn(log->user, SLC_LOG_ERROR, status, msg);
    }
    return status;
}

/* A failed Vulkan call, explained as the backend explains its own (a
 * refusal of the driver heap or of its budget named as such), through the
 * desc's logger. The refusals are counted from the start of init: init
 * stops at its first failure. */
static slc_status vk_failed(const slc_render *r, const char *call, VkResult res)
{
    return slc__vk_fail_to(r->vk, &r->log, "render", call, res, r->refusals);
}

/* --- sizes ----------------------------------------------------------------- */

static size_t align_up(size_t x, size_t a)
{
    return (x + a - 1u) & ~(a - 1u);
}

typedef struct rd_dims {
    uint32_t width, height, max_draws, max_placements;
} rd_dims;

static bool resolve(const slc_render_desc *desc, rd_dims *out, const slc_logger *log)
{
    out->width = desc->width != 0 ? desc->width : SLC_RENDER_DEFAULT_WIDTH;
    out->height = desc->height != 0 ? desc->height : SLC_RENDER_DEFAULT_HEIGHT;
    out->max_draws = desc->max_draws != 0 ? desc->max_draws : SLC_RENDER_DEFAULT_MAX_DRAWS;
    out->max_placements = desc->max_placements != 0 ? desc->max_placements : SLC_RENDER_DEFAULT_MAX_PLACEMENTS;
    if (desc->flags != 0 || desc->reserved0 != 0 || desc->reserved1 != 0) {
        slc__rd_log(log, SLC_E_INVALID, "render: the desc's flags and reserved fields must be 0 (flags %u)",
                    desc->flags);
        return false;
    }
    if (out->width > SLC_RENDER_SIZE_MAX || out->height > SLC_RENDER_SIZE_MAX) {
        slc__rd_log(log, SLC_E_INVALID, "render: the target's %ux%u is above SLC_RENDER_SIZE_MAX (%u)", out->width,
                    out->height, SLC_RENDER_SIZE_MAX);
        return false;
    }
    /* Draws and placements: their lists' bytes fit 32-bit size_t with room. */
    if (out->max_draws > SLC_RENDER_LIST_MAX || out->max_placements > SLC_RENDER_LIST_MAX) {
        slc__rd_log(log, SLC_E_INVALID, "render: max_draws %u or max_placements %u is above SLC_RENDER_LIST_MAX (%u)",
                    out->max_draws, out->max_placements, SLC_RENDER_LIST_MAX);
        return false;
    }
    return true;
}

static size_t cpu_footprint(const slc_pack *pack)
{
    const slc_pack_header *h = slc_pack_get_header(pack);
    size_t n = align_up(sizeof(struct slc_render), SLC_RENDER_ALIGN);
    n += align_up(((size_t)h->object_count + 1u) * sizeof(uint32_t), 8u);
    n += align_up((size_t)h->instance_count * sizeof(uint32_t), 8u);
    n += 2u * align_up((size_t)slc_pack_texture_count(pack) * sizeof(uint32_t), 8u);
    return n;
}

size_t slc_render_footprint(const slc_render_desc *desc, const slc_pack *pack)
{
    SLC_ASSERT(desc != NULL && pack != NULL);
    rd_dims dims;
    if (!resolve(desc, &dims, NULL)) {
        return 0;
    }
    return cpu_footprint(pack);
}

/* --- buffers and images ---------------------------------------------------- */

static int find_type(const VkPhysicalDeviceMemoryProperties *mp, uint32_t bits, VkMemoryPropertyFlags required,
                     VkMemoryPropertyFlags preferred)
{
    int best = -1;
    for (uint32_t i = 0; i < mp->memoryTypeCount; i++) {
        VkMemoryPropertyFlags f = mp->memoryTypes[i].propertyFlags;
        if ((bits & (1u << i)) == 0 || (f & required) != required ||
            (f & (VK_MEMORY_PROPERTY_LAZILY_ALLOCATED_BIT | VK_MEMORY_PROPERTY_PROTECTED_BIT)) != 0) {
            continue;
        }
        if (best < 0 ||
            ((f & preferred) == preferred && (mp->memoryTypes[best].propertyFlags & preferred) != preferred)) {
            best = (int)i;
        }
    }
    return best;
}

static slc_status charge_gpu(slc_render *r, VkDeviceSize bytes, const char *what)
{
    if (r->budgets == NULL) {
        return SLC_OK;
    }
    slc_budget_refusal why;
    if (slc_budgets_reserve(r->budgets, r->gpu_id, bytes, &why) != SLC_OK) {
        slc_budget_stats b;
        slc_budgets_get(r->budgets, why.refused_by, &b);
        return slc__rd_log(&r->log, SLC_E_BUDGET_REFUSED,
                           "render: the %s budget refused the %s's %llu bytes (%llu in use of its limit %llu)", b.name,
                           what, (unsigned long long)bytes, (unsigned long long)why.current,
                           (unsigned long long)why.limit);
    }
    r->gpu_charged += bytes;
    return SLC_OK;
}

static slc_status allocate(slc_render *r, const VkMemoryRequirements *req, VkMemoryPropertyFlags required,
                           VkMemoryPropertyFlags preferred, const char *what, VkDeviceMemory *out)
{
    VkPhysicalDeviceMemoryProperties2 mp = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_PROPERTIES_2};
    r->vk->vki.GetPhysicalDeviceMemoryProperties2(r->vk->physical, &mp);
    int t = find_type(&mp.memoryProperties, req->memoryTypeBits, required, preferred);
    if (t < 0) {
        return slc__rd_log(&r->log, SLC_E_UNSUPPORTED, "render: no memory type for the %s (flags 0x%x required)", what,
                           (unsigned)required);
    }
    slc_status s = charge_gpu(r, req->size, what);
    if (s != SLC_OK) {
        return s;
    }
    VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    ai.allocationSize = req->size;
    ai.memoryTypeIndex = (uint32_t)t;
    VkResult res = r->d->vkAllocateMemory(r->device, &ai, r->cb, out);
    if (res != VK_SUCCESS) {
        *out = VK_NULL_HANDLE;
        slc_budgets_release(r->budgets, r->gpu_id, req->size);
        r->gpu_charged -= req->size;
        return vk_failed(r, "vkAllocateMemory", res);
    }
    return SLC_OK;
}

static slc_status make_buffer(slc_render *r, VkDeviceSize size, VkBufferUsageFlags usage, bool host, bool cached,
                              const char *what, rd_buffer *b, uint64_t *bytes_only)
{
    VkBufferCreateInfo bi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    bi.size = size;
    bi.usage = usage;
    bi.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    VkResult res = r->d->vkCreateBuffer(r->device, &bi, r->cb, &b->buffer);
    if (res != VK_SUCCESS) {
        b->buffer = VK_NULL_HANDLE;
        return vk_failed(r, "vkCreateBuffer", res);
    }
    b->size = size;
    VkMemoryRequirements req;
    r->d->vkGetBufferMemoryRequirements(r->device, b->buffer, &req);
    if (bytes_only != NULL) {
        *bytes_only += req.size;
        return SLC_OK;
    }
    VkMemoryPropertyFlags required = host ? VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT
                                          : 0u;
    VkMemoryPropertyFlags preferred = host ? (cached ? VK_MEMORY_PROPERTY_HOST_CACHED_BIT : 0u)
                                           : VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
    slc_status s = allocate(r, &req, required, preferred, what, &b->memory);
    if (s != SLC_OK) {
        return s;
    }
    b->alloc = req.size;
    res = r->d->vkBindBufferMemory(r->device, b->buffer, b->memory, 0);
    if (res != VK_SUCCESS) {
        return vk_failed(r, "vkBindBufferMemory", res);
    }
    if (host) {
        void *p;
        res = r->d->vkMapMemory(r->device, b->memory, 0, VK_WHOLE_SIZE, 0, &p);
        if (res != VK_SUCCESS) {
            return vk_failed(r, "vkMapMemory", res);
        }
        b->map = p;
        memset(p, 0, (size_t)size);
    }
    return SLC_OK;
}

static void free_buffer(slc_render *r, rd_buffer *b)
{
    if (b->buffer != VK_NULL_HANDLE) {
        r->d->vkDestroyBuffer(r->device, b->buffer, r->cb);
    }
    if (b->memory != VK_NULL_HANDLE) {
        r->d->vkFreeMemory(r->device, b->memory, r->cb);
    }
    memset(b, 0, sizeof *b);
}

static slc_status make_image(slc_render *r, VkFormat format, VkImageUsageFlags usage, VkImageAspectFlags aspect,
                             const char *what, rd_image *im, uint64_t *bytes_only)
{
    VkImageCreateInfo ii = {.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
    ii.imageType = VK_IMAGE_TYPE_2D;
    ii.format = format;
    ii.extent.width = r->width;
    ii.extent.height = r->height;
    ii.extent.depth = 1;
    ii.mipLevels = 1;
    ii.arrayLayers = 1;
    ii.samples = VK_SAMPLE_COUNT_1_BIT;
    ii.tiling = VK_IMAGE_TILING_OPTIMAL;
    ii.usage = usage;
    ii.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    ii.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    VkResult res = r->d->vkCreateImage(r->device, &ii, r->cb, &im->image);
    if (res != VK_SUCCESS) {
        im->image = VK_NULL_HANDLE;
        return vk_failed(r, "vkCreateImage", res);
    }
    VkMemoryRequirements req;
    r->d->vkGetImageMemoryRequirements(r->device, im->image, &req);
    if (bytes_only != NULL) {
        *bytes_only += req.size;
        return SLC_OK;
    }
    slc_status s = allocate(r, &req, 0u, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, what, &im->memory);
    if (s != SLC_OK) {
        return s;
    }
    im->alloc = req.size;
    res = r->d->vkBindImageMemory(r->device, im->image, im->memory, 0);
    if (res != VK_SUCCESS) {
        return vk_failed(r, "vkBindImageMemory", res);
    }
    VkImageViewCreateInfo vi = {.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
    vi.image = im->image;
    vi.viewType = VK_IMAGE_VIEW_TYPE_2D;
    vi.format = format;
    vi.subresourceRange.aspectMask = aspect;
    vi.subresourceRange.levelCount = 1;
    vi.subresourceRange.layerCount = 1;
    res = r->d->vkCreateImageView(r->device, &vi, r->cb, &im->view);
    if (res != VK_SUCCESS) {
        im->view = VK_NULL_HANDLE;
        return vk_failed(r, "vkCreateImageView", res);
    }
    slc__vk_name(r->vk, VK_OBJECT_TYPE_IMAGE, (uint64_t)im->image, "sluice render %s", what);
    return SLC_OK;
}

static void free_image(slc_render *r, rd_image *im)
{
    if (im->view != VK_NULL_HANDLE) {
        r->d->vkDestroyImageView(r->device, im->view, r->cb);
    }
    if (im->image != VK_NULL_HANDLE) {
        r->d->vkDestroyImage(r->device, im->image, r->cb);
    }
    if (im->memory != VK_NULL_HANDLE) {
        r->d->vkFreeMemory(r->device, im->memory, r->cb);
    }
    memset(im, 0, sizeof *im);
}

/* Every buffer and image, or (bytes_only) their requirements summed. */
static slc_status make_resources(slc_render *r, uint64_t *bytes_only)
{
    VkDeviceSize frame = align_up(sizeof(rd_frame), RD_SECTION_ALIGN);
    r->off_counters = frame;
    r->off_draws = r->off_counters + RD_SECTION_ALIGN;
    r->off_placements = r->off_draws + align_up((size_t)r->max_draws * sizeof(rd_draw), RD_SECTION_ALIGN);
    r->off_entries = r->off_placements + align_up((size_t)r->max_placements * 64u, RD_SECTION_ALIGN);
    VkDeviceSize host = r->off_entries + (VkDeviceSize)(r->tex_entries != 0 ? r->tex_entries : 1u) * 4u;
    VkDeviceSize tables = ((VkDeviceSize)r->material_count * RD_MATERIAL_WORDS +
                           (VkDeviceSize)r->texture_count * RD_TEXTURE_WORDS + 1u) *
                          4u;
    VkDeviceSize commands = (VkDeviceSize)r->max_draws * sizeof(VkDrawIndirectCommand);
    VkDeviceSize readback = (VkDeviceSize)r->width * r->height * 4u;
    uint32_t objects = r->object_count != 0 ? r->object_count : 1u;
    uint64_t before = bytes_only != NULL ? *bytes_only : 0;
    slc_status s = make_buffer(r, (VkDeviceSize)objects * sizeof(rd_object), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, true,
                               false, "object table", &r->objects, bytes_only);
    r->sizes.objects = bytes_only != NULL ? *bytes_only - before : r->objects.alloc;
    if (s == SLC_OK) {
        before = bytes_only != NULL ? *bytes_only : 0;
        s = make_buffer(r, tables, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, true, false, "material table", &r->tables,
                        bytes_only);
        r->sizes.materials = bytes_only != NULL ? *bytes_only - before : r->tables.alloc;
    }
    for (uint32_t i = 0; s == SLC_OK && i < r->frames; i++) {
        rd_slot *sl = &r->slots[i];
        uint64_t b0 = bytes_only != NULL ? *bytes_only : 0;
        s = make_buffer(r, host, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, true, true,
                        "frame lists", &sl->host, bytes_only);
        if (s == SLC_OK) {
            s = make_buffer(r, commands, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT,
                            false, false, "indirect commands", &sl->commands, bytes_only);
        }
        r->sizes.lists += bytes_only != NULL ? *bytes_only - b0 : sl->host.alloc + sl->commands.alloc;
        if (s == SLC_OK && r->own_target) {
            uint64_t b1 = bytes_only != NULL ? *bytes_only : 0;
            s = make_buffer(r, readback, VK_BUFFER_USAGE_TRANSFER_DST_BIT, true, true, "readback buffer", &sl->readback,
                            bytes_only);
            r->sizes.readback += bytes_only != NULL ? *bytes_only - b1 : sl->readback.alloc;
        }
    }
    if (s == SLC_OK && r->own_target) {
        uint64_t b0 = bytes_only != NULL ? *bytes_only : 0;
        s = make_image(r, VK_FORMAT_R8G8B8A8_UNORM,
                       VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT, VK_IMAGE_ASPECT_COLOR_BIT,
                       "colour target", &r->color, bytes_only);
        if (s == SLC_OK) {
            s = make_image(r, VK_FORMAT_D32_SFLOAT, VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT,
                           VK_IMAGE_ASPECT_DEPTH_BIT, "depth target", &r->depth, bytes_only);
        }
        r->sizes.target = bytes_only != NULL ? *bytes_only - b0 : r->color.alloc + r->depth.alloc;
    }
    return s;
}

static void free_resources(slc_render *r)
{
    free_buffer(r, &r->objects);
    free_buffer(r, &r->tables);
    for (uint32_t i = 0; i < SLC_FRAMES_IN_FLIGHT_MAX; i++) {
        free_buffer(r, &r->slots[i].host);
        free_buffer(r, &r->slots[i].commands);
        free_buffer(r, &r->slots[i].readback);
    }
    free_image(r, &r->color);
    free_image(r, &r->depth);
}

/* --- pipelines --------------------------------------------------------------- */

static slc_status make_module(slc_render *r, const uint32_t *code, size_t bytes, VkShaderModule *out)
{
    VkShaderModuleCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    ci.codeSize = bytes;
    ci.pCode = code;
    VkResult res = r->d->vkCreateShaderModule(r->device, &ci, r->cb, out);
    if (res != VK_SUCCESS) {
        *out = VK_NULL_HANDLE;
        return vk_failed(r, "vkCreateShaderModule", res);
    }
    return SLC_OK;
}

static slc_status make_layouts(slc_render *r)
{
    VkDescriptorSetLayoutBinding b[RD_BINDINGS];
    memset(b, 0, sizeof b);
    for (uint32_t i = 0; i < RD_BINDINGS; i++) {
        b[i].binding = i;
        b[i].descriptorCount = 1;
        b[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        b[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT | VK_SHADER_STAGE_VERTEX_BIT;
    }
    b[0].descriptorCount = r->segments;
    b[4].descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
    b[4].stageFlags |= VK_SHADER_STAGE_FRAGMENT_BIT;
    b[3].stageFlags |= VK_SHADER_STAGE_FRAGMENT_BIT; /* the object's material */
    b[5].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
    b[6].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
    /* The texture pool's atlas images (with none bound, a placeholder the
     * shaders do not read: the page pool's segments), the tables, the
     * frame's indirection. */
    VkSampler samplers[RD_SEGMENTS_MAX];
    b[7].descriptorCount = r->tex_segments;
    b[7].stageFlags = b[8].stageFlags = b[9].stageFlags = VK_SHADER_STAGE_FRAGMENT_BIT;
    if (r->tex_vk != NULL) {
        VkSamplerCreateInfo si = {.sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
        si.magFilter = si.minFilter = VK_FILTER_NEAREST;
        si.mipmapMode = VK_SAMPLER_MIPMAP_MODE_NEAREST;
        si.addressModeU = si.addressModeV = si.addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
        VkResult sr = r->d->vkCreateSampler(r->device, &si, r->cb, &r->tex_sampler);
        if (sr != VK_SUCCESS) {
            r->tex_sampler = VK_NULL_HANDLE;
            return vk_failed(r, "vkCreateSampler", sr);
        }
        for (uint32_t i = 0; i < r->tex_segments; i++) {
            samplers[i] = r->tex_sampler;
        }
        b[7].descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
        b[7].pImmutableSamplers = samplers;
    }
    VkDescriptorSetLayoutCreateInfo li = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    li.bindingCount = RD_BINDINGS;
    li.pBindings = b;
    VkResult res = r->d->vkCreateDescriptorSetLayout(r->device, &li, r->cb, &r->set_layout);
    if (res != VK_SUCCESS) {
        r->set_layout = VK_NULL_HANDLE;
        return vk_failed(r, "vkCreateDescriptorSetLayout", res);
    }
    VkPushConstantRange pc = {VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof(uint32_t)};
    VkPipelineLayoutCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    pi.setLayoutCount = 1;
    pi.pSetLayouts = &r->set_layout;
    pi.pushConstantRangeCount = 1;
    pi.pPushConstantRanges = &pc;
    res = r->d->vkCreatePipelineLayout(r->device, &pi, r->cb, &r->layout);
    if (res != VK_SUCCESS) {
        r->layout = VK_NULL_HANDLE;
        return vk_failed(r, "vkCreatePipelineLayout", res);
    }
    const uint32_t images = r->tex_vk != NULL ? r->tex_segments : 0u;
    VkDescriptorPoolSize sizes[3] = {
        {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, r->frames * (r->segments + (r->tex_segments - images) + 7u)},
        {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, r->frames},
        {VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, r->frames * images},
    };
    VkDescriptorPoolCreateInfo dp = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    dp.maxSets = r->frames;
    dp.poolSizeCount = images != 0 ? 3u : 2u;
    dp.pPoolSizes = sizes;
    res = r->d->vkCreateDescriptorPool(r->device, &dp, r->cb, &r->descriptors);
    if (res != VK_SUCCESS) {
        r->descriptors = VK_NULL_HANDLE;
        return vk_failed(r, "vkCreateDescriptorPool", res);
    }
    return SLC_OK;
}

static slc_status make_sets(slc_render *r)
{
    VkDescriptorSetLayout layouts[SLC_FRAMES_IN_FLIGHT_MAX];
    VkDescriptorSet sets[SLC_FRAMES_IN_FLIGHT_MAX];
    for (uint32_t i = 0; i < r->frames; i++) {
        layouts[i] = r->set_layout;
    }
    VkDescriptorSetAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    ai.descriptorPool = r->descriptors;
    ai.descriptorSetCount = r->frames;
    ai.pSetLayouts = layouts;
    VkResult res = r->d->vkAllocateDescriptorSets(r->device, &ai, sets);
    if (res != VK_SUCCESS) {
        return vk_failed(r, "vkAllocateDescriptorSets", res);
    }
    VkDescriptorBufferInfo segs[RD_SEGMENTS_MAX];
    for (uint32_t i = 0; i < r->segments; i++) {
        slc_vulkan_segment g;
        slc_vulkan_get_segment(r->vk, i, &g);
        segs[i].buffer = g.buffer;
        segs[i].offset = 0;
        segs[i].range = g.size;
    }
    VkDescriptorBufferInfo tsegs[RD_SEGMENTS_MAX];
    VkDescriptorImageInfo timages[RD_SEGMENTS_MAX];
    for (uint32_t i = 0; i < r->tex_segments; i++) {
        slc_vulkan_segment g;
        slc_vulkan_get_segment(r->tex_vk != NULL ? r->tex_vk : r->vk, i, &g);
        tsegs[i].buffer = g.buffer;
        tsegs[i].offset = 0;
        tsegs[i].range = g.size;
        timages[i].sampler = VK_NULL_HANDLE; /* immutable */
        timages[i].imageView = g.view;
        timages[i].imageLayout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
    }
    for (uint32_t f = 0; f < r->frames; f++) {
        rd_slot *sl = &r->slots[f];
        sl->set = sets[f];
        VkDescriptorBufferInfo info[RD_BINDINGS - 1u] = {
            {sl->host.buffer, r->off_draws, (VkDeviceSize)r->max_draws * sizeof(rd_draw)},
            {sl->host.buffer, r->off_placements, (VkDeviceSize)r->max_placements * 64u},
            {r->objects.buffer, 0, VK_WHOLE_SIZE},
            {sl->host.buffer, 0, sizeof(rd_frame)},
            {sl->commands.buffer, 0, VK_WHOLE_SIZE},
            {sl->host.buffer, r->off_counters, sizeof(rd_counters)},
            {VK_NULL_HANDLE, 0, 0}, /* the texture pool's segments: tsegs */
            {r->tables.buffer, 0, VK_WHOLE_SIZE},
            {sl->host.buffer, r->off_entries, (VkDeviceSize)(r->tex_entries != 0 ? r->tex_entries : 1u) * 4u},
        };
        VkWriteDescriptorSet w[RD_BINDINGS];
        memset(w, 0, sizeof w);
        for (uint32_t i = 0; i < RD_BINDINGS; i++) {
            w[i].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
            w[i].dstSet = sl->set;
            w[i].dstBinding = i;
            w[i].descriptorCount = 1;
            w[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
            w[i].pBufferInfo = i == 0 ? segs : &info[i - 1];
        }
        w[0].descriptorCount = r->segments;
        w[4].descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
        w[7].descriptorCount = r->tex_segments;
        if (r->tex_vk != NULL) {
            w[7].descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
            w[7].pBufferInfo = NULL;
            w[7].pImageInfo = timages;
        } else {
            w[7].pBufferInfo = tsegs;
        }
        r->d->vkUpdateDescriptorSets(r->device, RD_BINDINGS, w, 0, NULL);
    }
    return SLC_OK;
}

static slc_status make_pass(slc_render *r)
{
    VkAttachmentDescription at[2];
    memset(at, 0, sizeof at);
    at[0].format = VK_FORMAT_R8G8B8A8_UNORM;
    at[0].samples = VK_SAMPLE_COUNT_1_BIT;
    at[0].loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
    at[0].storeOp = VK_ATTACHMENT_STORE_OP_STORE;
    at[0].stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
    at[0].stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
    at[0].initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    at[0].finalLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
    at[1] = at[0];
    at[1].format = VK_FORMAT_D32_SFLOAT;
    at[1].storeOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
    at[1].finalLayout = VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL;
    VkAttachmentReference cref = {0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
    VkAttachmentReference dref = {1, VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL};
    VkSubpassDescription sp = {0};
    sp.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
    sp.colorAttachmentCount = 1;
    sp.pColorAttachments = &cref;
    sp.pDepthStencilAttachment = &dref;
    const VkPipelineStageFlags attach = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT |
                                        VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT |
                                        VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT;
    VkSubpassDependency dep[2];
    memset(dep, 0, sizeof dep);
    /* The previous frame's copy out of the colour image and its attachment
     * writes, before this frame's clear. */
    dep[0].srcSubpass = VK_SUBPASS_EXTERNAL;
    dep[0].dstSubpass = 0;
    dep[0].srcStageMask = attach | VK_PIPELINE_STAGE_TRANSFER_BIT;
    dep[0].dstStageMask = attach;
    dep[0].srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT;
    dep[0].dstAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_COLOR_ATTACHMENT_READ_BIT |
                           VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_READ_BIT;
    /* The colour, written, before the copy into the readback buffer. */
    dep[1].srcSubpass = 0;
    dep[1].dstSubpass = VK_SUBPASS_EXTERNAL;
    dep[1].srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
    dep[1].dstStageMask = VK_PIPELINE_STAGE_TRANSFER_BIT;
    dep[1].srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
    dep[1].dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
    VkRenderPassCreateInfo ri = {.sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO};
    ri.attachmentCount = 2;
    ri.pAttachments = at;
    ri.subpassCount = 1;
    ri.pSubpasses = &sp;
    ri.dependencyCount = 2;
    ri.pDependencies = dep;
    VkResult res = r->d->vkCreateRenderPass(r->device, &ri, r->cb, &r->pass);
    if (res != VK_SUCCESS) {
        r->pass = VK_NULL_HANDLE;
        return vk_failed(r, "vkCreateRenderPass", res);
    }
    VkImageView views[2] = {r->color.view, r->depth.view};
    VkFramebufferCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO};
    fi.renderPass = r->pass;
    fi.attachmentCount = 2;
    fi.pAttachments = views;
    fi.width = r->width;
    fi.height = r->height;
    fi.layers = 1;
    res = r->d->vkCreateFramebuffer(r->device, &fi, r->cb, &r->framebuffer);
    if (res != VK_SUCCESS) {
        r->framebuffer = VK_NULL_HANDLE;
        return vk_failed(r, "vkCreateFramebuffer", res);
    }
    return SLC_OK;
}

static slc_status make_pipelines(slc_render *r)
{
    VkShaderModule cull = VK_NULL_HANDLE, vert = VK_NULL_HANDLE, frag = VK_NULL_HANDLE;
    slc_status s = make_module(r, cull_spv, sizeof cull_spv, &cull);
    if (s == SLC_OK) {
        const bool m = r->material_count != 0;
        s = r->multi_draw ? (m ? make_module(r, vert_materials_drawid_spv, sizeof vert_materials_drawid_spv, &vert)
                               : make_module(r, vert_drawid_spv, sizeof vert_drawid_spv, &vert))
                          : (m ? make_module(r, vert_materials_spv, sizeof vert_materials_spv, &vert)
                               : make_module(r, vert_spv, sizeof vert_spv, &vert));
    }
    if (s == SLC_OK) {
        s = r->tex_vk != NULL        ? make_module(r, frag_textured_spv, sizeof frag_textured_spv, &frag)
            : r->material_count != 0 ? make_module(r, frag_materials_spv, sizeof frag_materials_spv, &frag)
                                     : make_module(r, frag_spv, sizeof frag_spv, &frag);
    }
    VkSpecializationMapEntry entry = {0, 0, sizeof(uint32_t)};
    VkSpecializationInfo spec = {1, &entry, sizeof(uint32_t), &r->segments};
    /* The materials' fragment shaders': the texture pool's atlas images, and
     * what it shades (render.frag's SHADE: 1 factors, 2 textures). */
    const uint32_t frag_values[2] = {r->tex_segments, r->tex_vk != NULL ? 2u : 1u};
    const VkSpecializationMapEntry frag_entries[2] = {{1, 0, sizeof(uint32_t)},
                                                      {2, sizeof(uint32_t), sizeof(uint32_t)}};
    VkSpecializationInfo tex_spec = {2, frag_entries, sizeof frag_values, frag_values};
    if (s == SLC_OK) {
        VkComputePipelineCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
        ci.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
        ci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
        ci.stage.module = cull;
        ci.stage.pName = "main";
        ci.stage.pSpecializationInfo = &spec;
        ci.layout = r->layout;
        VkResult res = r->d->vkCreateComputePipelines(r->device, VK_NULL_HANDLE, 1, &ci, r->cb, &r->cull);
        if (res != VK_SUCCESS) {
            r->cull = VK_NULL_HANDLE;
            s = vk_failed(r, "vkCreateComputePipelines", res);
        }
    }
    if (s == SLC_OK) {
        VkPipelineShaderStageCreateInfo st[2];
        memset(st, 0, sizeof st);
        st[0].sType = st[1].sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
        st[0].stage = VK_SHADER_STAGE_VERTEX_BIT;
        st[0].module = vert;
        st[0].pName = "main";
        st[0].pSpecializationInfo = &spec;
        st[1].stage = VK_SHADER_STAGE_FRAGMENT_BIT;
        st[1].module = frag;
        st[1].pName = "main";
        st[1].pSpecializationInfo = &tex_spec;
        VkPipelineVertexInputStateCreateInfo vi = {.sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
        VkPipelineInputAssemblyStateCreateInfo ia = {
            .sType = VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO};
        ia.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
        VkPipelineViewportStateCreateInfo vp = {.sType = VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO};
        vp.viewportCount = 1;
        vp.scissorCount = 1;
        VkPipelineRasterizationStateCreateInfo rs = {
            .sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO};
        rs.polygonMode = VK_POLYGON_MODE_FILL;
        rs.cullMode = VK_CULL_MODE_NONE;
        rs.frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE;
        rs.lineWidth = 1.0f;
        VkPipelineMultisampleStateCreateInfo ms = {.sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO};
        ms.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT;
        VkPipelineDepthStencilStateCreateInfo ds = {
            .sType = VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO};
        ds.depthTestEnable = VK_TRUE;
        ds.depthWriteEnable = VK_TRUE;
        ds.depthCompareOp = VK_COMPARE_OP_LESS;
        VkPipelineColorBlendAttachmentState ba = {0};
        ba.colorWriteMask = VK_COLOR_COMPONENT_R_BIT | VK_COLOR_COMPONENT_G_BIT | VK_COLOR_COMPONENT_B_BIT |
                            VK_COLOR_COMPONENT_A_BIT;
        VkPipelineColorBlendStateCreateInfo cb = {.sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO};
        cb.attachmentCount = 1;
        cb.pAttachments = &ba;
        VkDynamicState dyn[2] = {VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR};
        VkPipelineDynamicStateCreateInfo dy = {.sType = VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO};
        dy.dynamicStateCount = 2;
        dy.pDynamicStates = dyn;
        VkGraphicsPipelineCreateInfo gi = {.sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO};
        gi.stageCount = 2;
        gi.pStages = st;
        gi.pVertexInputState = &vi;
        gi.pInputAssemblyState = &ia;
        gi.pViewportState = &vp;
        gi.pRasterizationState = &rs;
        gi.pMultisampleState = &ms;
        gi.pDepthStencilState = &ds;
        gi.pColorBlendState = &cb;
        gi.pDynamicState = &dy;
        gi.layout = r->layout;
        gi.renderPass = r->own_target ? r->pass : r->app_pass;
        gi.subpass = r->own_target ? 0u : r->subpass;
        VkResult res = r->d->vkCreateGraphicsPipelines(r->device, VK_NULL_HANDLE, 1, &gi, r->cb, &r->draw);
        if (res != VK_SUCCESS) {
            r->draw = VK_NULL_HANDLE;
            s = vk_failed(r, "vkCreateGraphicsPipelines", res);
        }
    }
    if (cull != VK_NULL_HANDLE) {
        r->d->vkDestroyShaderModule(r->device, cull, r->cb);
    }
    if (vert != VK_NULL_HANDLE) {
        r->d->vkDestroyShaderModule(r->device, vert, r->cb);
    }
    if (frag != VK_NULL_HANDLE) {
        r->d->vkDestroyShaderModule(r->device, frag, r->cb);
    }
    return s;
}

static slc_status make_queries(slc_render *r)
{
    uint32_t n = 0;
    r->vk->vki.GetPhysicalDeviceQueueFamilyProperties(r->vk->physical, &n, NULL);
    VkQueueFamilyProperties fam[32];
    if (n > 32) {
        n = 32;
    }
    r->vk->vki.GetPhysicalDeviceQueueFamilyProperties(r->vk->physical, &n, fam);
    uint32_t bits = r->vk->family < n ? fam[r->vk->family].timestampValidBits : 0u;
    if (bits == 0) {
        return SLC_OK;
    }
    VkPhysicalDeviceProperties props;
    r->vk->vki.GetPhysicalDeviceProperties(r->vk->physical, &props);
    r->timestamp_period = (double)props.limits.timestampPeriod;
    r->timestamp_mask = bits >= 64 ? UINT64_MAX : (((uint64_t)1 << bits) - 1u);
    VkQueryPoolCreateInfo qi = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    qi.queryType = VK_QUERY_TYPE_TIMESTAMP;
    qi.queryCount = 2u * r->frames;
    VkResult res = r->d->vkCreateQueryPool(r->device, &qi, r->cb, &r->queries);
    if (res != VK_SUCCESS) {
        r->queries = VK_NULL_HANDLE;
        return vk_failed(r, "vkCreateQueryPool", res);
    }
    r->timestamps = true;
    return SLC_OK;
}

/* --- the pack's tables --------------------------------------------------- */

static slc_status check_objects(const slc_render *r)
{
    const uint32_t known = SLC_PACK_ATTR_NORMAL | SLC_PACK_ATTR_UV | SLC_PACK_ATTR_POS_U16 | SLC_PACK_ATTR_NORMAL_OCT8 |
                           SLC_PACK_ATTR_UV_U16;
    for (uint32_t o = 0; o < r->object_count; o++) {
        const slc_pack_object *ob = slc_pack_get_object(r->pack, (slc_object_id){o});
        uint32_t a = ob->attributes;
        uint32_t bad = a & ~known;
        if ((a & SLC_PACK_ATTR_NORMAL_OCT8) != 0 && (a & SLC_PACK_ATTR_NORMAL) == 0) {
            bad |= SLC_PACK_ATTR_NORMAL_OCT8;
        }
        if ((a & SLC_PACK_ATTR_UV_U16) != 0 && (a & SLC_PACK_ATTR_UV) == 0) {
            bad |= SLC_PACK_ATTR_UV_U16;
        }
        if (bad != 0 || ob->vertex_stride % 4u != 0 || ob->vertex_stride == 0) {
            const char *name = ob->name != SLC_PACK_NO_NAME ? slc_pack_get_string(r->pack, ob->name) : NULL;
            return slc__rd_log(
                &r->log, SLC_E_UNSUPPORTED,
                "render: object %u (%s) has attribute bits 0x%x the renderer cannot decode (0x%x of them; "
                "vertex stride %u)",
                o, name != NULL ? name : "unnamed", a, bad, ob->vertex_stride);
        }
    }
    return SLC_OK;
}

static void fill_objects(slc_render *r)
{
    rd_object *t = (rd_object *)(void *)r->objects.map;
    for (uint32_t o = 0; o < r->object_count; o++) {
        const slc_pack_object *ob = slc_pack_get_object(r->pack, (slc_object_id){o});
        rd_object *x = &t[o];
        memset(x, 0, sizeof *x);
        for (int i = 0; i < 3; i++) {
            x->pos_offset[i] = ob->pos_offset[i];
            x->pos_scale[i] = ob->pos_scale[i];
        }
        x->uv[0] = ob->uv_offset[0];
        x->uv[1] = ob->uv_offset[1];
        x->uv[2] = ob->uv_scale[0];
        x->uv[3] = ob->uv_scale[1];
        x->attributes = ob->attributes;
        x->stride_words = ob->vertex_stride / 4u;
        x->palette = rd_palette_index(o);
        x->material = r->material_count != 0 ? ob->material : 0u;
    }
}

static uint32_t f32_word(float f)
{
    uint32_t w;
    memcpy(&w, &f, sizeof w);
    return w;
}

/* The material and texture tables (RD_MATERIAL_WORDS, RD_TEXTURE_WORDS),
 * and each texture's chunks for slc_render_add_textures. Fails iff a
 * record's read fails (as slc_pack_read_material says). */
static slc_status fill_tables(slc_render *r)
{
    uint32_t *w = (uint32_t *)(void *)r->tables.map;
    for (uint32_t i = 0; i < r->material_count; i++, w += RD_MATERIAL_WORDS) {
        slc_pack_material m;
        slc_status s = slc_pack_read_material(r->pack, i, &m);
        if (s != SLC_OK) {
            return slc__rd_log(&r->log, s, "render: material %u cannot be read (%s)", i, slc_status_name(s));
        }
        w[0] = m.name;
        w[1] = m.flags;
        w[2] = f32_word(m.alpha_cutoff);
        w[3] = f32_word(m.metallic);
        w[4] = f32_word(m.roughness);
        for (int c = 0; c < 4; c++) {
            w[5 + c] = f32_word(m.base_color[c]);
        }
        for (int c = 0; c < 3; c++) {
            w[9 + c] = f32_word(m.emissive[c]);
        }
        for (uint32_t k = 0; k < SLC_PACK_SLOT_COUNT; k++) {
            const slc_pack_texture_slot *t = &m.slot[k];
            uint32_t *x = w + 12u + (size_t)8u * k;
            x[0] = t->texture;
            x[1] = (uint32_t)t->texcoord | (uint32_t)t->wrap << 8 | (uint32_t)t->filter << 16;
            x[2] = f32_word(t->scale);
            x[3] = f32_word(t->offset[0]);
            x[4] = f32_word(t->offset[1]);
            x[5] = f32_word(t->rotation);
            x[6] = f32_word(t->uv_scale[0]);
            x[7] = f32_word(t->uv_scale[1]);
        }
    }
    uint32_t entry = 0;
    for (uint32_t i = 0; i < r->texture_count; i++, w += RD_TEXTURE_WORDS) {
        slc_pack_texture t;
        slc_pack_texture_layout lay;
        slc_status s = slc_pack_read_texture(r->pack, i, &t);
        if (s != SLC_OK) {
            return slc__rd_log(&r->log, s, "render: texture %u cannot be read (%s)", i, slc_status_name(s));
        }
        if (r->tex_vk != NULL && t.format != r->tex_vk->image_texel) {
            return slc__rd_log(
                &r->log, SLC_E_UNSUPPORTED, "render: texture %u is %s, but the texture pool's atlas images are %s", i,
                slc_pack_texel_format_name(t.format), slc_pack_texel_format_name(r->tex_vk->image_texel));
        }
        /* Checked at open: the layout is one the format allows. */
        memset(&lay, 0, sizeof lay);
        const int laid = slc_pack_texture_layout_of(t.width, t.height, t.format, t.tile, t.border, &lay);
        SLC_ASSERT(laid == 0);
        (void)laid;
        memset(w, 0, RD_TEXTURE_WORDS * sizeof *w);
        w[0] = t.width;
        w[1] = t.height;
        w[2] = (uint32_t)t.format | (uint32_t)t.kind << 8 | lay.level_count << 16 | lay.tiled_levels << 24;
        w[3] = ((uint32_t)t.tile + 2u * t.border) | (uint32_t)t.border << 16;
        w[4] = t.tile;
        w[5] = t.wrap;
        w[6] = entry;
        w[7] = lay.chunk_count > lay.tiles ? entry + lay.tiles : RD_ENTRY_NONE;
        uint64_t tail = 0;
        for (uint32_t l = 0; l < lay.level_count; l++) {
            if (l < lay.tiled_levels) {
                w[8 + 2 * l] = entry + lay.first[l];
                w[9 + 2 * l] = lay.cols[l];
            } else {
                const uint32_t lw = t.width >> l != 0 ? t.width >> l : 1u;
                const uint32_t lh = t.height >> l != 0 ? t.height >> l : 1u;
                w[8 + 2 * l] = (uint32_t)(tail / 4u);
                tail += slc_pack_texel_bytes(t.format, lw, lh);
            }
        }
        r->tex_first_chunk[i] = t.first_chunk;
        r->tex_chunk_count[i] = lay.chunk_count;
        entry += lay.chunk_count;
    }
    SLC_ASSERT(entry == r->tex_entries);
    return SLC_OK;
}

/* Instances grouped by object, in instance order within each (a counting
 * sort, O(objects + instances), in place: first[o] counts, then ends, then,
 * filled from the last instance back, starts). */
static void group_instances(slc_render *r)
{
    const slc_pack_header *h = slc_pack_get_header(r->pack);
    uint32_t n = h->instance_count;
    r->identity = n == 0;
    memset(r->object_first, 0, ((size_t)r->object_count + 1u) * sizeof(uint32_t));
    for (uint32_t i = 0; i < n; i++) {
        r->object_first[slc_pack_get_instance(r->pack, i)->object]++;
    }
    for (uint32_t o = 1; o < r->object_count; o++) {
        r->object_first[o] += r->object_first[o - 1u];
    }
    r->object_first[r->object_count] = n;
    for (uint32_t i = n; i-- > 0;) {
        r->object_list[--r->object_first[slc_pack_get_instance(r->pack, i)->object]] = i;
    }
}

/* --- init and deinit ----------------------------------------------------- */

static void teardown(slc_render *r)
{
    if (r->queries != VK_NULL_HANDLE) {
        r->d->vkDestroyQueryPool(r->device, r->queries, r->cb);
    }
    if (r->draw != VK_NULL_HANDLE) {
        r->d->vkDestroyPipeline(r->device, r->draw, r->cb);
    }
    if (r->cull != VK_NULL_HANDLE) {
        r->d->vkDestroyPipeline(r->device, r->cull, r->cb);
    }
    if (r->framebuffer != VK_NULL_HANDLE) {
        r->d->vkDestroyFramebuffer(r->device, r->framebuffer, r->cb);
    }
    if (r->pass != VK_NULL_HANDLE) {
        r->d->vkDestroyRenderPass(r->device, r->pass, r->cb);
    }
    if (r->descriptors != VK_NULL_HANDLE) {
        r->d->vkDestroyDescriptorPool(r->device, r->descriptors, r->cb);
    }
    if (r->layout != VK_NULL_HANDLE) {
        r->d->vkDestroyPipelineLayout(r->device, r->layout, r->cb);
    }
    if (r->set_layout != VK_NULL_HANDLE) {
        r->d->vkDestroyDescriptorSetLayout(r->device, r->set_layout, r->cb);
    }
    if (r->tex_sampler != VK_NULL_HANDLE) {
        r->d->vkDestroySampler(r->device, r->tex_sampler, r->cb);
    }
    free_resources(r);
    if (r->budgets != NULL) {
        if (r->gpu_charged != 0) {
            slc_budgets_release(r->budgets, r->gpu_id, r->gpu_charged);
        }
        if (r->cpu_charged != 0) {
            slc_budgets_release(r->budgets, r->cpu_id, r->cpu_charged);
        }
    }
    r->gpu_charged = r->cpu_charged = 0;
}

/* What init and slc_render_device_bytes check before creating anything. */
static slc_status check_device(const slc_render_desc *desc, slc_vulkan *vk, const rd_dims *dims)
{
    VkPhysicalDeviceProperties props;
    vk->vki.GetPhysicalDeviceProperties(vk->physical, &props);
    const VkPhysicalDeviceLimits *l = &props.limits;
    if (desc->render_pass == VK_NULL_HANDLE) {
        if (dims->width > l->maxFramebufferWidth || dims->height > l->maxFramebufferHeight) {
            return slc__rd_log(&desc->log, SLC_E_UNSUPPORTED,
                               "render: the target's %ux%u is above the device's maxFramebufferWidth/Height %ux%u",
                               dims->width, dims->height, l->maxFramebufferWidth, l->maxFramebufferHeight);
        }
        if (dims->width > l->maxImageDimension2D || dims->height > l->maxImageDimension2D) {
            return slc__rd_log(&desc->log, SLC_E_UNSUPPORTED,
                               "render: the target's %ux%u is above the device's maxImageDimension2D %u", dims->width,
                               dims->height, l->maxImageDimension2D);
        }
    }
    if (vk->segment_count > RD_SEGMENTS_MAX) {
        return slc__rd_log(&desc->log, SLC_E_UNSUPPORTED,
                           "render: the pool has %u segments, the renderer binds at most %u", vk->segment_count,
                           RD_SEGMENTS_MAX);
    }
    if (vk->segment_count > 1 && !vk->storage_dynamic_indexing) {
        return slc__rd_log(
            &desc->log, SLC_E_UNSUPPORTED,
            "render: the pool has %u segments and shaderStorageBufferArrayDynamicIndexing is not enabled",
            vk->segment_count);
    }
    if (desc->textures != NULL) {
        const slc_vulkan *t = desc->textures;
        if (t->device != vk->device) {
            return slc__rd_log(&desc->log, SLC_E_INVALID,
                               "render: the texture pool's backend is on another device than the page pool's");
        }
        if (t->image_texel == 0) {
            return slc__rd_log(&desc->log, SLC_E_INVALID,
                               "render: the texture pool's backend holds storage buffers; the renderer samples atlas "
                               "images (slc_vulkan_desc.image_texel)");
        }
        if (t->segment_count > RD_SEGMENTS_MAX || (t->segment_count > 1 && !vk->sampled_dynamic_indexing) ||
            t->segment_count > l->maxPerStageDescriptorSampledImages) {
            return slc__rd_log(&desc->log, SLC_E_UNSUPPORTED,
                               "render: the texture pool has %u atlas images: the renderer binds at most %u, more than "
                               "one needs shaderSampledImageArrayDynamicIndexing (%s), and at most "
                               "maxPerStageDescriptorSampledImages %u",
                               t->segment_count, RD_SEGMENTS_MAX,
                               vk->sampled_dynamic_indexing ? "enabled" : "not enabled",
                               l->maxPerStageDescriptorSampledImages);
        }
    }
    if (vk->segment_count + 5u > l->maxPerStageDescriptorStorageBuffers) {
        return slc__rd_log(&desc->log, SLC_E_UNSUPPORTED,
                           "render: the pool's %u segments and 5 lists exceed maxPerStageDescriptorStorageBuffers %u",
                           vk->segment_count, l->maxPerStageDescriptorStorageBuffers);
    }
    return SLC_OK;
}

static void start(slc_render *r, const slc_render_desc *desc, slc_vulkan *vk, const slc_pack *pack, const rd_dims *dims)
{
    r->vk = vk;
    r->pack = pack;
    r->log = desc->log;
    r->d = &vk->vkd;
    r->device = vk->device;
    r->cb = slc_vulkan_get_allocator(vk);
    r->width = dims->width;
    r->height = dims->height;
    r->max_draws = dims->max_draws;
    r->max_placements = dims->max_placements;
    r->frames = vk->frames;
    r->segments = vk->segment_count;
    r->own_target = desc->render_pass == VK_NULL_HANDLE;
    r->app_pass = desc->render_pass;
    r->subpass = desc->subpass;
    r->multi_draw = vk->multi_draw_indirect && vk->draw_parameters;
    VkPhysicalDeviceProperties props;
    vk->vki.GetPhysicalDeviceProperties(vk->physical, &props);
    r->max_indirect = props.limits.maxDrawIndirectCount != 0 ? props.limits.maxDrawIndirectCount : 1u;
    r->object_count = slc_pack_get_header(pack)->object_count;
    r->refusals = slc__vk_refusals(vk);
    r->material_count = slc_pack_material_count(pack);
    r->texture_count = slc_pack_texture_count(pack);
    r->tex_entries = slc_pack_texture_chunk_count(pack);
    r->tex_vk = desc->textures;
    r->tex_segments = r->tex_vk != NULL ? r->tex_vk->segment_count : 1u;
}

uint64_t slc_render_device_bytes(const slc_render_desc *desc, const slc_pack *pack, slc_vulkan *vk)
{
    SLC_ASSERT(desc != NULL && pack != NULL && vk != NULL);
    rd_dims dims;
    if (!resolve(desc, &dims, NULL)) {
        return 0;
    }
    slc_render r;
    memset(&r, 0, sizeof r);
    start(&r, desc, vk, pack, &dims);
    r.log.fn = NULL;
    uint64_t bytes = 0;
    slc_status s = make_resources(&r, &bytes);
    free_resources(&r);
    return s == SLC_OK ? bytes : 0;
}

slc_status slc_render_init(void *mem, size_t size, const slc_render_desc *desc, slc_vulkan *vk, const slc_pack *pack,
                           slc_render **out)
{
    SLC_ASSERT(desc != NULL && vk != NULL && pack != NULL && out != NULL);
    *out = NULL;
    rd_dims dims;
    if (!resolve(desc, &dims, &desc->log)) {
        return SLC_E_INVALID;
    }
    size_t need = cpu_footprint(pack);
    if (mem == NULL) {
        return slc__rd_log(&desc->log, SLC_E_BLOCK_NULL, "render: the memory is NULL (%zu bytes needed)", need);
    }
    if (((uintptr_t)mem & (SLC_RENDER_ALIGN - 1u)) != 0) {
        return slc__rd_log(&desc->log, SLC_E_BLOCK_MISALIGNED, "render: the memory is not aligned to %u bytes",
                           SLC_RENDER_ALIGN);
    }
    if (size < need) {
        return slc__rd_log(&desc->log, SLC_E_BLOCK_TOO_SMALL, "render: the memory holds %zu bytes, %zu needed", size,
                           need);
    }
    slc_status s = check_device(desc, vk, &dims);
    if (s != SLC_OK) {
        return s;
    }
    slc_render *r = mem;
    memset(r, 0, sizeof *r);
    start(r, desc, vk, pack, &dims);
    unsigned char *p = (unsigned char *)mem + align_up(sizeof *r, SLC_RENDER_ALIGN);
    r->object_first = (uint32_t *)(void *)p;
    p += align_up(((size_t)r->object_count + 1u) * sizeof(uint32_t), 8u);
    r->object_list = (uint32_t *)(void *)p;
    p += align_up((size_t)slc_pack_get_header(pack)->instance_count * sizeof(uint32_t), 8u);
    r->tex_first_chunk = (uint32_t *)(void *)p;
    p += align_up((size_t)r->texture_count * sizeof(uint32_t), 8u);
    r->tex_chunk_count = (uint32_t *)(void *)p;

    if (desc->budgets != NULL) {
        const char *names[2] = {desc->cpu_budget != NULL ? desc->cpu_budget : "cpu/render",
                                desc->gpu_budget != NULL ? desc->gpu_budget : "gpu/render"};
        slc_budget_id *ids[2] = {&r->cpu_id, &r->gpu_id};
        for (int i = 0; i < 2; i++) {
            if (slc_budgets_scan(desc->budgets, names[i], ids[i]) != SLC_OK) {
                return slc__rd_log(&desc->log, SLC_E_NOT_FOUND, "render: no budget named %s", names[i]);
            }
        }
        slc_budget_refusal why;
        if (slc_budgets_reserve(desc->budgets, r->cpu_id, need, &why) != SLC_OK) {
            slc_budget_stats b;
            slc_budgets_get(desc->budgets, why.refused_by, &b);
            return slc__rd_log(&desc->log, SLC_E_BUDGET_REFUSED,
                               "render: the %s budget refused the renderer's %zu bytes (%llu in use of its limit %llu)",
                               b.name, need, (unsigned long long)why.current, (unsigned long long)why.limit);
        }
        r->budgets = desc->budgets;
        r->cpu_charged = need;
    }
    s = check_objects(r);
    if (s == SLC_OK) {
        group_instances(r);
        s = make_resources(r, NULL);
    }
    if (s == SLC_OK) {
        fill_objects(r);
        s = fill_tables(r);
    }
    if (s == SLC_OK) {
        s = make_layouts(r);
    }
    if (s == SLC_OK) {
        s = make_sets(r);
    }
    if (s == SLC_OK && r->own_target) {
        s = make_pass(r);
    }
    if (s == SLC_OK) {
        s = make_pipelines(r);
    }
    if (s == SLC_OK) {
        s = make_queries(r);
    }
    if (s != SLC_OK) {
        teardown(r);
        return s;
    }
    *out = r;
    return SLC_OK;
}

void slc_render_deinit(slc_render *r)
{
    if (r == NULL) {
        return;
    }
    r->d->vkDeviceWaitIdle(r->device);
    teardown(r);
}

void slc_render_get_sizes(const slc_render *r, slc_render_sizes *out)
{
    SLC_ASSERT(r != NULL && out != NULL);
    *out = r->sizes;
}
