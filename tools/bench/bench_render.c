/* SPDX-License-Identifier: MIT */
/* sluice bench render: the reference renderer's vertex pulling from the page
 * pool (sluice/render.h) against a classic pipeline of ordinary vertex and
 * index buffers, on the Vulkan backend, timed on the GPU.
 *
 * Scenes. A synthetic scene (--synthetic city[:SIZE], the default) is built
 * twice, into temporary packs removed at exit: with float attributes and
 * quantized (16-bit positions, octahedral normals, 16-bit uvs). PACKs named
 * on the command line are measured as they are, labelled by their
 * attributes.
 *
 * Each pack is streamed through a stream on the Vulkan backend whose pool
 * holds every chunk (page_count = the pack's chunk count, at most the
 * profile's; no workers: every load runs on the caller's thread), asking
 * for every object's level 0 until all of them resolve to it. Then, from
 * one fixed view that sees the whole scene (camera_overview of the scene's
 * bounds, as `sluice render` views a trace), for N frames each:
 *
 *   pulling  slc_render: every object's level 0 added from the stream's
 *            resolved spans, drawn from the pool's storage buffers into the
 *            renderer's own target (cull pass and draws, timed by the
 *            renderer's timestamp queries);
 *   classic  the same clusters decoded on the CPU at init into one ordinary
 *            vertex buffer (float position and normal, 24 bytes a vertex)
 *            and one 32-bit index buffer, one vkCmdDrawIndexed an object,
 *            instanced over its placements (an instance-rate buffer of
 *            matrices), into a target of the same size and formats (RGBA8,
 *            D32), shaded as the renderer shades (classic.frag) and with no
 *            face culled, as the renderer; timed by timestamps around its
 *            render pass. No GPU culling in this path: every cluster is
 *            drawn. The renderer's cull pass keeps every cluster too, since
 *            the view holds the whole scene; the "kept" count says so, and
 *            its time is in pulling's figure.
 *
 * --breakdown adds the classic path changed one way at a time towards what
 * pulling does, to tell where pulling's time goes (see variant_names).
 *
 * Frames go round the variants one at a time (R rounds of N frames each), so
 * a noisy spell falls on all alike; each figure is the median over frames
 * and repeats of GPU time a frame. The two packs are measured one after the
 * other (each has its own backend and pool).
 * The validation layer is off (it distorts timing) unless --validate, which
 * also fails the run on any message from it.
 *
 * Memory: the classic path's buffers and images are allocated once at init,
 * on the backend's device and allocator (driver host allocations charged to
 * cpu/driver), their device memory charged to no budget: this is a
 * benchmark, not the runtime; the bytes are printed. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "camera.h"
#include "bench.h"
#include "cli.h"
#include "run.h"
#include "session.h"

#define USAGE                                                                                                     \
    "usage: sluice bench render [--synthetic KIND[:SIZE] | PACK [PACK]] [--size WxH] [--frames N] [--repeat R]\n" \
    "                           [--profile FILE] [--breakdown] [--validate]\n"
#define ME "sluice bench render"

#ifndef SLUICE_HAVE_VULKAN

int bench_render(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        fputs(USAGE "\nThis build has no Vulkan backend (SLUICE_VULKAN=OFF): the benchmark cannot run.\n", stdout);
        return CLI_OK;
    }
    fprintf(stderr, ME ": this build has no Vulkan backend (SLUICE_VULKAN=OFF)\n");
    return CLI_FAILED;
}

#else

#include <volk.h>

#include "bench_vk.h"
#include "builder.h"
#include "synth.h"
#include "sluice/stream.h"
#include "sluice/vulkan.h"
#include "sluice/render.h"

/* The format's decoding of a vertex (written from docs/pack-format.md, the
 * pack tests decode with it too): the classic path's CPU decode. */
#include "pack_decode.h"

static const uint32_t classic_vert_spv[] =
#include "classic.vert.inc"
    ;
static const uint32_t classic_frag_spv[] =
#include "classic.frag.inc"
    ;
static const uint32_t classic_pulled_vert_spv[] =
#include "classic_pulled.vert.inc"
    ;

/* The default scene: a few seconds a frame on lavapipe at 1280x720, so the
 * whole run takes minutes there. */
#define SCENE_BYTES_DEFAULT (4u << 20)

enum { PACKS_MAX = 2, REPEAT_MAX = 1000, FRAMES_MAX = 100000, SETTLE_FRAMES_MAX = 10000 };
/* The variants: pulling, classic, and with --breakdown the classic path
 * changed one way at a time towards what pulling does: a draw a cluster;
 * no index reuse (every triangle's corners shaded apart); both; the
 * unindexed corners fetched by the vertex shader from storage buffers
 * (classic_pulled.vert) rather than by the vertex input stage; and the
 * same with each corner's 32-bit index read from a storage buffer first;
 * and pulling again, drawn inside the classic path's render pass, its cull
 * pass and draws timed apart. */
enum {
    VAR_PULL = 0,
    VAR_CLASSIC = 1,
    VAR_CLUSTERS = 2,
    VAR_UNINDEXED = 3,
    VAR_UNINDEXED_CLUSTERS = 4,
    VAR_PULLED = 5,
    VAR_PULLED_INDEXED = 6,
    VAR_PULL_APP = 7,
    VARIANTS = 8
};
static const char *const variant_names[VARIANTS] = {"pulling",
                                                    "classic",
                                                    "classic, a draw a cluster",
                                                    "classic, unindexed",
                                                    "classic, unindexed, a draw a cluster",
                                                    "classic, pulled from storage buffers",
                                                    "classic, pulled from storage buffers, indexed",
                                                    "pulling in the classic render pass"};

#define WAIT_NS (30ull * 1000000000ull)

typedef struct opts {
    const char *packs[PACKS_MAX];
    size_t npacks;
    const char *synthetic; /* KIND[:SIZE] */
    const char *size;      /* WxH */
    const char *profile_path;
    slc_render_profile render; /* the profile's [render] */
    uint64_t frames, repeat;
    int validate;
    int breakdown; /* also the classic path's variants towards pulling */
    uint32_t width, height;
    char kind[32];
    uint64_t scene_bytes;
} opts;

/* --- temporary packs, removed at exit ----------------------------------------------- */

static char tmp_dir[4096];
static char tmp_packs[PACKS_MAX][4200];

static void remove_tmp(void)
{
    for (int i = 0; i < PACKS_MAX; i++) {
        if (tmp_packs[i][0] != '\0') {
            (void)unlink(tmp_packs[i]);
        }
    }
    if (tmp_dir[0] != '\0') {
        (void)rmdir(tmp_dir);
    }
}

/* Builds the synthetic scene into path, float or quantized. */
static int build_synthetic(const opts *o, int quantize, const char *path)
{
    pk_diag d;
    memset(&d, 0, sizeof d);
    pk_synth *s = NULL;
    if (pk_synth_open(o->kind, o->scene_bytes, 1, &s, &d) != 0) {
        fprintf(stderr, ME ": --synthetic %s: %s\n", o->synthetic, d.message);
        return CLI_USAGE;
    }
    pk_build_options opt;
    memset(&opt, 0, sizeof opt);
    opt.quantize = quantize;
    pk_builder *b = NULL;
    if (pk_builder_open(path, &opt, &b, &d) != 0) {
        pk_synth_close(s);
        fprintf(stderr, ME ": %s\n", d.message);
        return CLI_IO;
    }
    int rc = CLI_OK;
    for (;;) {
        pk_mesh m;
        pk_instance inst[PK_SYNTH_MAX_INSTANCES];
        uint32_t n = 0, object = 0;
        int got = pk_synth_next(s, &m, inst, &n, &d);
        if (got <= 0) {
            rc = got < 0 ? CLI_FAILED : CLI_OK;
            break;
        }
        int bad = pk_builder_add_mesh(b, &m, &object, &d) != 0;
        pk_mesh_free(&m);
        for (uint32_t i = 0; i < n && !bad; i++) {
            inst[i].mesh = object;
            bad = pk_builder_add_instance(b, &inst[i], &d) != 0;
        }
        if (bad) {
            rc = pk_builder_write_failed(b) ? CLI_IO : CLI_FAILED;
            break;
        }
    }
    pk_synth_close(s);
    if (rc != CLI_OK) {
        pk_builder_abort(b);
        fprintf(stderr, ME ": synthetic %s: %s\n", o->kind, d.message);
        return rc;
    }
    if (pk_builder_finish(b, NULL, &d) != 0) {
        fprintf(stderr, ME ": %s\n", d.message);
        return CLI_IO;
    }
    return CLI_OK;
}

/* --- the scene as the renderer places it --------------------------------------------- */

/* One placement of an object, as the classic path's instance-rate vertex
 * data (and classic_pulled.vert's storage buffer: 5 vec4): the pack's
 * instances of the object, or one identity placement an object when the
 * pack has none (as slc_render places them), and the object's colour. */
typedef struct placement {
    float matrix[16];
    float color[4];
} placement;

/* A colour an object, from its index (not the renderer's palette: the
 * pixels are not compared, only the work). */
static void object_color(uint32_t object, float rgba[4])
{
    uint32_t h = object * 2654435761u;
    rgba[0] = 0.35f + 0.6f * (float)(h >> 24 & 0xffu) / 255.0f;
    rgba[1] = 0.35f + 0.6f * (float)(h >> 16 & 0xffu) / 255.0f;
    rgba[2] = 0.35f + 0.6f * (float)(h >> 8 & 0xffu) / 255.0f;
    rgba[3] = 1.0f;
}

/* --- the rig: memory, Vulkan backend, pack, stream ------------------------------------- */

typedef struct rig {
    slc_profile prof;
    slc_render_profile render; /* the profile's [render] */
    tool_session ses;          /* the pack file, the memory block, the memory, the pack */
    slc_memory *mem;           /* ses.mem */
    slc_pack *pack;            /* ses.pack */
    bench_vk bvk;              /* the backend, closed by the session */
    slc_vulkan *vk;            /* bvk's */
    slc_vulkan_info info;
    const struct VolkDeviceTable *t;
    const VkAllocationCallbacks *alloc;
    slc_stream *s;
    slc_stream_span *spans;
    uint32_t span_cap;
    uint64_t frame; /* the stream's newest frame */
} rig;

static run_validation validation = {ME, 0}; /* --validate */

static void rig_close(rig *r)
{
    tool_session_close(&r->ses); /* the stream, the backend (bench_vk's), the pack, the memory */
    free(r->spans);
    memset(r, 0, sizeof *r);
}

/* Opens the memory, the pack and the backend for path, with a pool of one
 * page a chunk, and a stream over them. Prints why and returns an exit code
 * on failure (r closed). */
static int rig_open(rig *r, const opts *o, const slc_profile *base, const char *path)
{
    memset(r, 0, sizeof *r);
    r->prof = *base;
    r->prof.workers = 0;
    r->render = o->render;
    const tool_session_desc sesd = {.me = ME,
                                    .profile = &r->prof,
                                    .pack_path = path,
                                    .file_flags = SLC_PLATFORM_FILE_PREAD,
                                    .pack_name = strrchr(path, '/') != NULL ? strrchr(path, '/') + 1 : path};
    tool_session_step step = tool_session_open(&sesd, &r->ses);
    r->mem = r->ses.mem;
    r->pack = r->ses.pack;
    if (step == TOOL_SESSION_LAYOUT) {
        fprintf(stderr, ME ": profile '%s': its memory block cannot be laid out (%s)\n", r->prof.name,
                slc_status_name(r->ses.status));
    }
    if (step != TOOL_SESSION_OPEN) { /* else printed or logged */
        rig_close(r);
        return tool_session_exit_code(step);
    }
    /* A pool of one page a chunk: everything resident at once. */
    const slc_pack_header *h = slc_pack_get_header(r->pack);
    if (h->chunk_count > r->prof.page_count || h->page_size != r->prof.page_size) {
        fprintf(stderr,
                ME ": %s: %u chunks of pages of %u bytes; profile '%s' has a pool of %u pages of %u bytes, "
                   "which cannot hold every chunk\n",
                path, h->chunk_count, h->page_size, r->prof.name, r->prof.page_count, r->prof.page_size);
        rig_close(r);
        return CLI_FAILED;
    }
    uint32_t spans = 0;
    for (uint32_t i = 0; i < h->object_count; i++) {
        const slc_pack_object *ob = slc_pack_get_object(r->pack, (slc_object_id){i});
        uint32_t n = slc_pack_get_lod(r->pack, ob->first_lod)->span_count;
        spans += n;
        r->span_cap = n > r->span_cap ? n : r->span_cap;
    }
    if (h->object_count > r->prof.queue_capacity || spans > r->prof.queue_capacity) {
        fprintf(stderr,
                ME ": %s: %u objects whose level 0 has %u spans; profile '%s' takes %u requests and chunks a "
                   "frame (queue_capacity)\n",
                path, h->object_count, spans, r->prof.name, r->prof.queue_capacity);
        rig_close(r);
        return CLI_FAILED;
    }
    r->prof.page_count = h->chunk_count > 0 ? h->chunk_count : 1u;
    r->spans = calloc(r->span_cap > 0 ? r->span_cap : 1u, sizeof *r->spans);
    if (r->spans == NULL) {
        fprintf(stderr, ME ": out of memory\n");
        rig_close(r);
        return CLI_FAILED;
    }

    if (bench_vk_open(&r->bvk, &r->ses, &r->prof, o->validate ? &validation : NULL, ME) != CLI_OK) {
        rig_close(r);
        return CLI_FAILED;
    }
    r->vk = r->bvk.vk;
    r->info = r->bvk.info;
    r->t = r->bvk.t;
    r->alloc = r->bvk.alloc;
    r->s = r->ses.stream;
    return CLI_OK;
}

/* Begins a frame and asks for every object's level 0. */
static int request_all(rig *r)
{
    slc_status st;
    while ((st = slc_stream_begin_frame(r->s, &r->frame)) == SLC_E_FRAMES_IN_FLIGHT) {
        /* the newest frame is always waited for below; an older one may lag */
        if ((st = slc_vulkan_wait_frame(r->vk, r->frame, WAIT_NS)) != SLC_OK) {
            break;
        }
    }
    const uint32_t n = slc_pack_get_header(r->pack)->object_count;
    const slc_partition part = {0};
    for (uint32_t i = 0; i < n && st == SLC_OK; i++) {
        slc_stream_object_request q = {.object = {i}, .lod = 0, .priority = 0, .partition = part};
        st = slc_stream_request(r->s, &q);
    }
    if (st == SLC_OK) {
        st = slc_stream_end_frame(r->s);
    }
    if (st != SLC_OK) {
        fprintf(stderr, ME ": frame %llu: %s\n", (unsigned long long)r->frame, slc_status_name(st));
        return CLI_FAILED;
    }
    return CLI_OK;
}

/* Frames until every object resolves to its level 0. */
static int settle(rig *r)
{
    for (uint32_t f = 0; f < SETTLE_FRAMES_MAX; f++) {
        if (request_all(r) != CLI_OK) {
            return CLI_FAILED;
        }
        uint32_t n = slc_stream_result_count(r->s), exact = 0;
        for (uint32_t i = 0; i < n; i++) {
            slc_stream_result res;
            slc_status st = slc_stream_resident(r->s, i, &res, NULL, 0); /* CAPACITY: res filled, spans not */
            exact += (st == SLC_OK || st == SLC_E_CAPACITY) && res.lod == 0;
        }
        /* nothing of this frame's work is submitted: let it retire */
        if (slc_vulkan_end_frame(r->vk, r->frame) != SLC_OK ||
            slc_vulkan_wait_frame(r->vk, r->frame, WAIT_NS) != SLC_OK) {
            fprintf(stderr, ME ": frame %llu did not retire\n", (unsigned long long)r->frame);
            return CLI_FAILED;
        }
        slc_stream_stats ss;
        slc_stream_get_stats(r->s, &ss);
        if (ss.failures > 0) {
            fprintf(stderr, ME ": %llu chunk loads failed\n", (unsigned long long)ss.failures);
            return CLI_FAILED;
        }
        if (exact == n) {
            return CLI_OK;
        }
    }
    fprintf(stderr, ME ": the objects' level 0 did not become resident in %d frames\n", SETTLE_FRAMES_MAX);
    return CLI_FAILED;
}

/* --- the classic pipeline ---------------------------------------------------------------- */

typedef struct gpu_buffer {
    VkBuffer buffer;
    VkDeviceMemory memory;
    VkDeviceSize size;
} gpu_buffer;

typedef struct classic_draw {
    uint32_t first_index, index_count, first_instance, instance_count;
} classic_draw;

typedef struct classic {
    rig *r;
    uint32_t width, height;
    VkPhysicalDeviceMemoryProperties mp;
    float timestamp_period;  /* ns a tick */
    uint64_t timestamp_mask; /* the queue's valid bits */
    gpu_buffer vertices, indices, instances;
    gpu_buffer corners; /* --breakdown: every index's vertex, in index order (unindexed draws) */
    VkImage color, depth;
    VkDeviceMemory color_mem, depth_mem;
    VkImageView color_view, depth_view;
    VkRenderPass pass;
    VkFramebuffer fb;
    VkShaderModule vs, fs;
    VkPipelineLayout layout;
    VkPipeline pipeline;
    /* --breakdown: the storage-buffer pipelines (INDEXED 0 and 1) and their sets */
    VkShaderModule pulled_vs;
    VkDescriptorSetLayout set_layout;
    VkDescriptorPool set_pool;
    VkDescriptorSet sets[2];
    VkPipelineLayout pulled_layout;
    VkPipeline pulled[2];
    VkCommandPool cmd_pool;
    VkCommandBuffer cmd;
    VkFence fence;
    VkQueryPool queries;
    classic_draw *draws; /* an object each */
    uint32_t draw_count;
    classic_draw *cluster_draws; /* a cluster each */
    uint32_t cluster_count;
    uint64_t triangles; /* a frame: every draw's triangles times its placements */
    uint64_t vertex_count, index_count, instance_count;
    uint64_t device_bytes; /* device memory of the buffers and images */
} classic;

static int vk_fail(const char *what, VkResult res)
{
    fprintf(stderr, ME ": %s: %s\n", what, slc_vulkan_result_name(res));
    return CLI_FAILED;
}

static int find_memory(const classic *c, uint32_t bits, VkMemoryPropertyFlags want, uint32_t *out)
{
    for (uint32_t i = 0; i < c->mp.memoryTypeCount; i++) {
        if ((bits & (1u << i)) && (c->mp.memoryTypes[i].propertyFlags & want) == want) {
            *out = i;
            return 1;
        }
    }
    return 0;
}

static int alloc_memory(classic *c, VkMemoryRequirements mr, VkMemoryPropertyFlags want, VkDeviceMemory *out,
                        VkMemoryPropertyFlags *got)
{
    uint32_t type;
    if (!find_memory(c, mr.memoryTypeBits, want, &type)) {
        return 0;
    }
    VkMemoryAllocateInfo ai = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, NULL, mr.size, type};
    if (c->r->t->vkAllocateMemory(c->r->info.device, &ai, c->r->alloc, out) != VK_SUCCESS) {
        return 0;
    }
    c->device_bytes += mr.size;
    if (got != NULL) {
        *got = c->mp.memoryTypes[type].propertyFlags;
    }
    return 1;
}

static void one_time_begin(classic *c)
{
    VkCommandBufferBeginInfo bi = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO, NULL,
                                   VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT, NULL};
    c->r->t->vkResetCommandBuffer(c->cmd, 0);
    c->r->t->vkBeginCommandBuffer(c->cmd, &bi);
}

static int submit_wait(classic *c)
{
    const struct VolkDeviceTable *t = c->r->t;
    VkResult res = t->vkEndCommandBuffer(c->cmd);
    if (res != VK_SUCCESS) {
        return vk_fail("vkEndCommandBuffer", res);
    }
    VkSubmitInfo si = {VK_STRUCTURE_TYPE_SUBMIT_INFO, NULL, 0, NULL, NULL, 1, &c->cmd, 0, NULL};
    if ((res = t->vkResetFences(c->r->info.device, 1, &c->fence)) != VK_SUCCESS ||
        (res = t->vkQueueSubmit(c->r->info.queue, 1, &si, c->fence)) != VK_SUCCESS ||
        (res = t->vkWaitForFences(c->r->info.device, 1, &c->fence, VK_TRUE, WAIT_NS)) != VK_SUCCESS) {
        return vk_fail("submit", res);
    }
    return CLI_OK;
}

/* A buffer of usage holding bytes: device-local and mapped where the device
 * has such memory, else device-local filled through a staging copy. */
static int make_buffer(classic *c, gpu_buffer *b, VkBufferUsageFlags usage, const void *bytes, VkDeviceSize size)
{
    const struct VolkDeviceTable *t = c->r->t;
    VkDevice dev = c->r->info.device;
    VkBufferCreateInfo bi = {VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                             NULL,
                             0,
                             size,
                             usage | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                             VK_SHARING_MODE_EXCLUSIVE,
                             0,
                             NULL};
    VkResult res = t->vkCreateBuffer(dev, &bi, c->r->alloc, &b->buffer);
    if (res != VK_SUCCESS) {
        return vk_fail("vkCreateBuffer", res);
    }
    b->size = size;
    VkMemoryRequirements mr;
    t->vkGetBufferMemoryRequirements(dev, b->buffer, &mr);
    VkMemoryPropertyFlags got = 0;
    int mapped = alloc_memory(c, mr, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT | VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT,
                              &b->memory, &got);
    if (!mapped && !alloc_memory(c, mr, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &b->memory, NULL)) {
        fprintf(stderr, ME ": no device memory for a buffer of %llu bytes\n", (unsigned long long)size);
        return CLI_FAILED;
    }
    if ((res = t->vkBindBufferMemory(dev, b->buffer, b->memory, 0)) != VK_SUCCESS) {
        return vk_fail("vkBindBufferMemory", res);
    }
    if (mapped) {
        void *p = NULL;
        if ((res = t->vkMapMemory(dev, b->memory, 0, VK_WHOLE_SIZE, 0, &p)) != VK_SUCCESS) {
            return vk_fail("vkMapMemory", res);
        }
        memcpy(p, bytes, (size_t)size);
        if (!(got & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT)) {
            VkMappedMemoryRange range = {VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE, NULL, b->memory, 0, VK_WHOLE_SIZE};
            t->vkFlushMappedMemoryRanges(dev, 1, &range);
        }
        t->vkUnmapMemory(dev, b->memory);
        return CLI_OK;
    }
    /* through a staging buffer, freed once copied */
    gpu_buffer st = {0};
    bi.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
    if ((res = t->vkCreateBuffer(dev, &bi, c->r->alloc, &st.buffer)) != VK_SUCCESS) {
        return vk_fail("vkCreateBuffer", res);
    }
    t->vkGetBufferMemoryRequirements(dev, st.buffer, &mr);
    int rc = CLI_FAILED;
    void *p = NULL;
    if (alloc_memory(c, mr, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, &st.memory,
                     NULL) &&
        t->vkBindBufferMemory(dev, st.buffer, st.memory, 0) == VK_SUCCESS &&
        t->vkMapMemory(dev, st.memory, 0, VK_WHOLE_SIZE, 0, &p) == VK_SUCCESS) {
        c->device_bytes -= mr.size; /* not kept */
        memcpy(p, bytes, (size_t)size);
        t->vkUnmapMemory(dev, st.memory);
        one_time_begin(c);
        VkBufferCopy copy = {0, 0, size};
        t->vkCmdCopyBuffer(c->cmd, st.buffer, b->buffer, 1, &copy);
        rc = submit_wait(c);
    } else {
        fprintf(stderr, ME ": no staging memory for a buffer of %llu bytes\n", (unsigned long long)size);
    }
    t->vkDestroyBuffer(dev, st.buffer, c->r->alloc);
    if (st.memory != VK_NULL_HANDLE) {
        t->vkFreeMemory(dev, st.memory, c->r->alloc);
    }
    return rc;
}

static int make_image(classic *c, VkFormat format, VkImageUsageFlags usage, VkImageAspectFlags aspect, VkImage *image,
                      VkDeviceMemory *mem, VkImageView *view)
{
    const struct VolkDeviceTable *t = c->r->t;
    VkDevice dev = c->r->info.device;
    VkImageCreateInfo ii = {VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
                            NULL,
                            0,
                            VK_IMAGE_TYPE_2D,
                            format,
                            {c->width, c->height, 1},
                            1,
                            1,
                            VK_SAMPLE_COUNT_1_BIT,
                            VK_IMAGE_TILING_OPTIMAL,
                            usage,
                            VK_SHARING_MODE_EXCLUSIVE,
                            0,
                            NULL,
                            VK_IMAGE_LAYOUT_UNDEFINED};
    VkResult res = t->vkCreateImage(dev, &ii, c->r->alloc, image);
    if (res != VK_SUCCESS) {
        return vk_fail("vkCreateImage", res);
    }
    VkMemoryRequirements mr;
    t->vkGetImageMemoryRequirements(dev, *image, &mr);
    if (!alloc_memory(c, mr, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, mem, NULL) && !alloc_memory(c, mr, 0, mem, NULL)) {
        fprintf(stderr, ME ": no device memory for a %ux%u image\n", c->width, c->height);
        return CLI_FAILED;
    }
    if ((res = t->vkBindImageMemory(dev, *image, *mem, 0)) != VK_SUCCESS) {
        return vk_fail("vkBindImageMemory", res);
    }
    VkImageViewCreateInfo vi = {VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
                                NULL,
                                0,
                                *image,
                                VK_IMAGE_VIEW_TYPE_2D,
                                format,
                                {0},
                                {aspect, 0, 1, 0, 1}};
    if ((res = t->vkCreateImageView(dev, &vi, c->r->alloc, view)) != VK_SUCCESS) {
        return vk_fail("vkCreateImageView", res);
    }
    return CLI_OK;
}

/* The vertex and index data: every object's level 0 clusters, decoded from
 * the chunks as loaded on the CPU; the placements. */
static int classic_geometry(classic *c, float **vout, uint32_t **iout, placement **pout)
{
    const slc_pack *pack = c->r->pack;
    const slc_pack_header *h = slc_pack_get_header(pack);
    uint64_t verts = 0, tris = 0;
    for (uint32_t i = 0; i < h->object_count; i++) {
        const slc_pack_object *ob = slc_pack_get_object(pack, (slc_object_id){i});
        const slc_pack_lod *lod = slc_pack_get_lod(pack, ob->first_lod);
        verts += lod->vertex_count;
        tris += lod->triangle_count;
    }
    const uint64_t nplace = h->instance_count > 0 ? h->instance_count : h->object_count;
    if (verts > UINT32_MAX || tris * 3u > UINT32_MAX || verts * 24u > SIZE_MAX / 2) {
        fprintf(stderr, ME ": level 0 has %llu vertices and %llu triangles, beyond a 32-bit index buffer\n",
                (unsigned long long)verts, (unsigned long long)tris);
        return CLI_FAILED;
    }
    float *v = malloc((size_t)(verts > 0 ? verts : 1) * 6u * sizeof(float));
    uint32_t *idx = malloc((size_t)(tris > 0 ? tris : 1) * 3u * sizeof(uint32_t));
    placement *pl = malloc((size_t)(nplace > 0 ? nplace : 1) * sizeof(placement));
    size_t scratch_size = slc_pack_scratch_size(pack);
    unsigned char *page = malloc(h->page_size), *scratch = malloc(scratch_size > 0 ? scratch_size : 1u);
    c->draws = calloc(h->object_count > 0 ? h->object_count : 1u, sizeof *c->draws);
    uint64_t clusters = 0;
    for (uint32_t i = 0; i < h->object_count; i++) {
        const slc_pack_lod *lod = slc_pack_get_lod(pack, slc_pack_get_object(pack, (slc_object_id){i})->first_lod);
        for (uint32_t sp = 0; sp < lod->span_count; sp++) {
            clusters += slc_pack_get_span(pack, lod->first_span + sp)->cluster_count;
        }
    }
    c->cluster_draws = calloc((size_t)(clusters > 0 ? clusters : 1u), sizeof *c->cluster_draws);
    *vout = v;
    *iout = idx;
    *pout = pl;
    int rc = v != NULL && idx != NULL && pl != NULL && page != NULL && scratch != NULL && c->draws != NULL &&
                     c->cluster_draws != NULL
                 ? CLI_OK
                 : CLI_FAILED;
    if (rc != CLI_OK) {
        fprintf(stderr, ME ": out of memory for %llu vertices\n", (unsigned long long)verts);
    }
    /* placements, grouped by object (a counting sort of the instances) */
    static const float identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    uint32_t np = 0;
    for (uint32_t k = 0; k < h->instance_count && rc == CLI_OK; k++) {
        uint32_t ob = slc_pack_get_instance(pack, k)->object;
        c->draws[ob < h->object_count ? ob : 0].instance_count++; /* the reader checked ob */
    }
    for (uint32_t i = 0; i < h->object_count && rc == CLI_OK; i++) {
        c->draws[i].first_instance = np;
        np += h->instance_count > 0 ? c->draws[i].instance_count : 1u;
        c->draws[i].instance_count = 0;
    }
    for (uint32_t k = 0; k < (h->instance_count > 0 ? h->instance_count : h->object_count) && rc == CLI_OK; k++) {
        uint32_t ob = h->instance_count > 0 ? slc_pack_get_instance(pack, k)->object : k;
        classic_draw *d = &c->draws[ob];
        placement *p = &pl[d->first_instance + d->instance_count++];
        memcpy(p->matrix, h->instance_count > 0 ? slc_pack_get_instance(pack, k)->matrix : identity, sizeof p->matrix);
        object_color(ob, p->color);
    }
    c->instance_count = np;

    /* vertices and indices, object by object */
    uint32_t nv = 0, ni = 0;
    for (uint32_t i = 0; i < h->object_count && rc == CLI_OK; i++) {
        const slc_pack_object *ob = slc_pack_get_object(pack, (slc_object_id){i});
        const slc_pack_lod *lod = slc_pack_get_lod(pack, ob->first_lod);
        c->draws[i].first_index = ni;
        for (uint32_t sp = 0; sp < lod->span_count && rc == CLI_OK; sp++) {
            const slc_pack_span *span = slc_pack_get_span(pack, lod->first_span + sp);
            slc_status st = slc_pack_load_chunk(pack, (slc_chunk_id){span->chunk}, page, h->page_size, scratch,
                                                scratch_size);
            if (st == SLC_OK) { /* every cluster's offsets inside the page, every index below its count */
                st = slc_pack_check_chunk(pack, (slc_chunk_id){span->chunk}, page);
            }
            if (st != SLC_OK) {
                fprintf(stderr, ME ": chunk %u: %s\n", span->chunk, slc_status_name(st));
                rc = CLI_FAILED;
                break;
            }
            for (uint32_t k = 0; k < span->cluster_count; k++) {
                const slc_pack_cluster *cl = pack_cluster_at(page, span->first_cluster + k);
                const unsigned char *tri = page + cl->index_offset;
                if (nv + cl->vertex_count > verts || ni + 3u * cl->triangle_count > tris * 3u) {
                    fprintf(stderr, ME ": object %u: its clusters hold more than its level 0 counts\n", i);
                    rc = CLI_FAILED;
                    break;
                }
                if (c->cluster_count >= clusters) {
                    fprintf(stderr, ME ": object %u: more clusters than its spans count\n", i);
                    rc = CLI_FAILED;
                    break;
                }
                classic_draw *cd = &c->cluster_draws[c->cluster_count++];
                cd->first_index = ni;
                cd->index_count = 3u * cl->triangle_count;
                cd->first_instance = c->draws[i].first_instance;
                cd->instance_count = c->draws[i].instance_count;
                for (uint32_t t = 0; t < 3u * cl->triangle_count; t++) {
                    idx[ni++] = nv + tri[t];
                }
                for (uint32_t q = 0; q < cl->vertex_count; q++) {
                    float *o = &v[(size_t)(nv + q) * 6u], uv[2];
                    o[3] = o[4] = o[5] = 0.0f; /* no normals: the shader takes the face's */
                    decode_vertex(ob, page + cl->vertex_offset + (size_t)q * ob->vertex_stride, o, o + 3, uv);
                }
                nv += cl->vertex_count;
            }
        }
        c->draws[i].index_count = ni - c->draws[i].first_index;
        c->triangles += (uint64_t)c->draws[i].index_count / 3u * c->draws[i].instance_count;
    }
    c->draw_count = h->object_count;
    c->vertex_count = nv;
    c->index_count = ni;
    free(page);
    free(scratch);
    return rc;
}

static void classic_close(classic *c)
{
    if (c->r == NULL) {
        return;
    }
    const struct VolkDeviceTable *t = c->r->t;
    VkDevice dev = c->r->info.device;
    const VkAllocationCallbacks *a = c->r->alloc;
    t->vkDeviceWaitIdle(dev);
    gpu_buffer *bufs[] = {&c->vertices, &c->indices, &c->instances, &c->corners};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) {
        t->vkDestroyBuffer(dev, bufs[i]->buffer, a);
        t->vkFreeMemory(dev, bufs[i]->memory, a);
    }
    t->vkDestroyQueryPool(dev, c->queries, a);
    t->vkDestroyFence(dev, c->fence, a);
    t->vkDestroyCommandPool(dev, c->cmd_pool, a);
    t->vkDestroyPipeline(dev, c->pipeline, a);
    t->vkDestroyPipeline(dev, c->pulled[0], a);
    t->vkDestroyPipeline(dev, c->pulled[1], a);
    t->vkDestroyPipelineLayout(dev, c->pulled_layout, a);
    t->vkDestroyDescriptorPool(dev, c->set_pool, a);
    t->vkDestroyDescriptorSetLayout(dev, c->set_layout, a);
    t->vkDestroyShaderModule(dev, c->pulled_vs, a);
    t->vkDestroyPipelineLayout(dev, c->layout, a);
    t->vkDestroyShaderModule(dev, c->vs, a);
    t->vkDestroyShaderModule(dev, c->fs, a);
    t->vkDestroyFramebuffer(dev, c->fb, a);
    t->vkDestroyRenderPass(dev, c->pass, a);
    t->vkDestroyImageView(dev, c->color_view, a);
    t->vkDestroyImageView(dev, c->depth_view, a);
    t->vkDestroyImage(dev, c->color, a);
    t->vkDestroyImage(dev, c->depth, a);
    t->vkFreeMemory(dev, c->color_mem, a);
    t->vkFreeMemory(dev, c->depth_mem, a);
    free(c->draws);
    free(c->cluster_draws);
    memset(c, 0, sizeof *c);
}

static int classic_pipeline(classic *c, int breakdown)
{
    const struct VolkDeviceTable *t = c->r->t;
    VkDevice dev = c->r->info.device;
    const VkAllocationCallbacks *a = c->r->alloc;
    VkAttachmentDescription att[2] = {
        {0, VK_FORMAT_R8G8B8A8_UNORM, VK_SAMPLE_COUNT_1_BIT, VK_ATTACHMENT_LOAD_OP_CLEAR, VK_ATTACHMENT_STORE_OP_STORE,
         VK_ATTACHMENT_LOAD_OP_DONT_CARE, VK_ATTACHMENT_STORE_OP_DONT_CARE, VK_IMAGE_LAYOUT_UNDEFINED,
         VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL},
        {0, VK_FORMAT_D32_SFLOAT, VK_SAMPLE_COUNT_1_BIT, VK_ATTACHMENT_LOAD_OP_CLEAR, VK_ATTACHMENT_STORE_OP_DONT_CARE,
         VK_ATTACHMENT_LOAD_OP_DONT_CARE, VK_ATTACHMENT_STORE_OP_DONT_CARE, VK_IMAGE_LAYOUT_UNDEFINED,
         VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL}};
    VkAttachmentReference cref = {0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
    VkAttachmentReference dref = {1, VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL};
    VkSubpassDescription sub = {0, VK_PIPELINE_BIND_POINT_GRAPHICS, 0, NULL, 1, &cref, NULL, &dref, 0, NULL};
    /* the previous frame's writes to both attachments before this frame's clear */
    const VkPipelineStageFlags stages = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT |
                                        VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT |
                                        VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT;
    const VkAccessFlags access = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT |
                                 VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_READ_BIT;
    VkSubpassDependency dep = {VK_SUBPASS_EXTERNAL, 0, stages, stages, access, access, 0};
    VkRenderPassCreateInfo rpi = {VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO, NULL, 0, 2, att, 1, &sub, 1, &dep};
    VkResult res = t->vkCreateRenderPass(dev, &rpi, a, &c->pass);
    if (res != VK_SUCCESS) {
        return vk_fail("vkCreateRenderPass", res);
    }
    VkImageView views[2] = {c->color_view, c->depth_view};
    VkFramebufferCreateInfo fbi = {
        VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO, NULL, 0, c->pass, 2, views, c->width, c->height, 1};
    if ((res = t->vkCreateFramebuffer(dev, &fbi, a, &c->fb)) != VK_SUCCESS) {
        return vk_fail("vkCreateFramebuffer", res);
    }
    VkShaderModuleCreateInfo smi = {VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, NULL, 0, sizeof classic_vert_spv,
                                    classic_vert_spv};
    if ((res = t->vkCreateShaderModule(dev, &smi, a, &c->vs)) != VK_SUCCESS) {
        return vk_fail("vkCreateShaderModule", res);
    }
    smi.codeSize = sizeof classic_frag_spv;
    smi.pCode = classic_frag_spv;
    if ((res = t->vkCreateShaderModule(dev, &smi, a, &c->fs)) != VK_SUCCESS) {
        return vk_fail("vkCreateShaderModule", res);
    }
    /* view_proj, eye, towards the light (classic.frag) */
    VkPushConstantRange pc = {VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0, 96};
    VkPipelineLayoutCreateInfo pli = {VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, NULL, 0, 0, NULL, 1, &pc};
    if ((res = t->vkCreatePipelineLayout(dev, &pli, a, &c->layout)) != VK_SUCCESS) {
        return vk_fail("vkCreatePipelineLayout", res);
    }
    VkPipelineShaderStageCreateInfo st[2] = {
        {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, NULL, 0, VK_SHADER_STAGE_VERTEX_BIT, c->vs, "main", NULL},
        {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, NULL, 0, VK_SHADER_STAGE_FRAGMENT_BIT, c->fs, "main",
         NULL}};
    VkVertexInputBindingDescription bind[2] = {{0, 24, VK_VERTEX_INPUT_RATE_VERTEX},
                                               {1, (uint32_t)sizeof(placement), VK_VERTEX_INPUT_RATE_INSTANCE}};
    VkVertexInputAttributeDescription attr[7] = {
        {0, 0, VK_FORMAT_R32G32B32_SFLOAT, 0},     {1, 0, VK_FORMAT_R32G32B32_SFLOAT, 12},
        {2, 1, VK_FORMAT_R32G32B32A32_SFLOAT, 0},  {3, 1, VK_FORMAT_R32G32B32A32_SFLOAT, 16},
        {4, 1, VK_FORMAT_R32G32B32A32_SFLOAT, 32}, {5, 1, VK_FORMAT_R32G32B32A32_SFLOAT, 48},
        {6, 1, VK_FORMAT_R32G32B32A32_SFLOAT, 64}};
    VkPipelineVertexInputStateCreateInfo vin = {
        VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO, NULL, 0, 2, bind, 7, attr};
    VkPipelineInputAssemblyStateCreateInfo ia = {VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO, NULL, 0,
                                                 VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, VK_FALSE};
    VkViewport vp = {0.0f, 0.0f, (float)c->width, (float)c->height, 0.0f, 1.0f};
    VkRect2D sc = {{0, 0}, {c->width, c->height}};
    VkPipelineViewportStateCreateInfo vps = {
        VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO, NULL, 0, 1, &vp, 1, &sc};
    VkPipelineRasterizationStateCreateInfo rs = {VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO,
                                                 NULL,
                                                 0,
                                                 VK_FALSE,
                                                 VK_FALSE,
                                                 VK_POLYGON_MODE_FILL,
                                                 VK_CULL_MODE_NONE, /* as the renderer: two-sided */
                                                 VK_FRONT_FACE_COUNTER_CLOCKWISE,
                                                 VK_FALSE,
                                                 0.0f,
                                                 0.0f,
                                                 0.0f,
                                                 1.0f};
    VkPipelineMultisampleStateCreateInfo ms = {VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO,
                                               NULL,
                                               0,
                                               VK_SAMPLE_COUNT_1_BIT,
                                               VK_FALSE,
                                               0.0f,
                                               NULL,
                                               VK_FALSE,
                                               VK_FALSE};
    VkPipelineDepthStencilStateCreateInfo ds = {VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO,
                                                NULL,
                                                0,
                                                VK_TRUE,
                                                VK_TRUE,
                                                VK_COMPARE_OP_LESS,
                                                VK_FALSE,
                                                VK_FALSE,
                                                {0},
                                                {0},
                                                0.0f,
                                                1.0f};
    VkPipelineColorBlendAttachmentState cba = {0};
    cba.colorWriteMask = VK_COLOR_COMPONENT_R_BIT | VK_COLOR_COMPONENT_G_BIT | VK_COLOR_COMPONENT_B_BIT |
                         VK_COLOR_COMPONENT_A_BIT;
    VkPipelineColorBlendStateCreateInfo cb = {
        VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO, NULL, 0, VK_FALSE, VK_LOGIC_OP_COPY, 1, &cba, {0}};
    VkGraphicsPipelineCreateInfo gpi = {VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO,
                                        NULL,
                                        0,
                                        2,
                                        st,
                                        &vin,
                                        &ia,
                                        NULL,
                                        &vps,
                                        &rs,
                                        &ms,
                                        &ds,
                                        &cb,
                                        NULL,
                                        c->layout,
                                        c->pass,
                                        0,
                                        VK_NULL_HANDLE,
                                        -1};
    if ((res = t->vkCreateGraphicsPipelines(dev, VK_NULL_HANDLE, 1, &gpi, a, &c->pipeline)) != VK_SUCCESS) {
        return vk_fail("vkCreateGraphicsPipelines", res);
    }
    if (!breakdown) {
        return CLI_OK;
    }

    /* The storage-buffer pipelines: no vertex input, a set of three buffers. */
    smi.codeSize = sizeof classic_pulled_vert_spv;
    smi.pCode = classic_pulled_vert_spv;
    if ((res = t->vkCreateShaderModule(dev, &smi, a, &c->pulled_vs)) != VK_SUCCESS) {
        return vk_fail("vkCreateShaderModule", res);
    }
    VkDescriptorSetLayoutBinding sb[3];
    for (uint32_t i = 0; i < 3; i++) {
        sb[i] = (VkDescriptorSetLayoutBinding){i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_VERTEX_BIT,
                                               NULL};
    }
    VkDescriptorSetLayoutCreateInfo sli = {VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO, NULL, 0, 3, sb};
    if ((res = t->vkCreateDescriptorSetLayout(dev, &sli, a, &c->set_layout)) != VK_SUCCESS) {
        return vk_fail("vkCreateDescriptorSetLayout", res);
    }
    VkDescriptorPoolSize ps = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 6};
    VkDescriptorPoolCreateInfo dpi = {VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO, NULL, 0, 2, 1, &ps};
    if ((res = t->vkCreateDescriptorPool(dev, &dpi, a, &c->set_pool)) != VK_SUCCESS) {
        return vk_fail("vkCreateDescriptorPool", res);
    }
    VkDescriptorSetLayout layouts[2] = {c->set_layout, c->set_layout};
    VkDescriptorSetAllocateInfo dai = {VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO, NULL, c->set_pool, 2, layouts};
    if ((res = t->vkAllocateDescriptorSets(dev, &dai, c->sets)) != VK_SUCCESS) {
        return vk_fail("vkAllocateDescriptorSets", res);
    }
    for (uint32_t k = 0; k < 2; k++) {
        VkDescriptorBufferInfo bufs[3] = {{k ? c->vertices.buffer : c->corners.buffer, 0, VK_WHOLE_SIZE},
                                          {c->instances.buffer, 0, VK_WHOLE_SIZE},
                                          {c->indices.buffer, 0, VK_WHOLE_SIZE}};
        VkWriteDescriptorSet w = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, NULL, c->sets[k], 0,   0, 3,
                                  VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,      NULL, bufs,       NULL};
        t->vkUpdateDescriptorSets(dev, 1, &w, 0, NULL);
    }
    pli.setLayoutCount = 1;
    pli.pSetLayouts = &c->set_layout;
    if ((res = t->vkCreatePipelineLayout(dev, &pli, a, &c->pulled_layout)) != VK_SUCCESS) {
        return vk_fail("vkCreatePipelineLayout", res);
    }
    VkPipelineVertexInputStateCreateInfo none = {
        VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO, NULL, 0, 0, NULL, 0, NULL};
    VkSpecializationMapEntry entry = {0, 0, sizeof(uint32_t)};
    for (uint32_t k = 0; k < 2; k++) {
        VkSpecializationInfo spec = {1, &entry, sizeof k, &k};
        st[0].module = c->pulled_vs;
        st[0].pSpecializationInfo = &spec;
        gpi.pVertexInputState = &none;
        gpi.layout = c->pulled_layout;
        if ((res = t->vkCreateGraphicsPipelines(dev, VK_NULL_HANDLE, 1, &gpi, a, &c->pulled[k])) != VK_SUCCESS) {
            return vk_fail("vkCreateGraphicsPipelines", res);
        }
    }
    return CLI_OK;
}

/* Everything the classic path draws with, created once. */
static int classic_open(classic *c, rig *r, uint32_t width, uint32_t height, int breakdown)
{
    memset(c, 0, sizeof *c);
    c->r = r;
    c->width = width;
    c->height = height;
    const struct VolkDeviceTable *t = r->t;
    VkDevice dev = r->info.device;
    PFN_vkGetPhysicalDeviceMemoryProperties get_mp = (PFN_vkGetPhysicalDeviceMemoryProperties)vkGetInstanceProcAddr(
        r->info.instance, "vkGetPhysicalDeviceMemoryProperties");
    PFN_vkGetPhysicalDeviceProperties get_props = (PFN_vkGetPhysicalDeviceProperties)vkGetInstanceProcAddr(
        r->info.instance, "vkGetPhysicalDeviceProperties");
    PFN_vkGetPhysicalDeviceQueueFamilyProperties get_qf = (PFN_vkGetPhysicalDeviceQueueFamilyProperties)
        vkGetInstanceProcAddr(r->info.instance, "vkGetPhysicalDeviceQueueFamilyProperties");
    if (get_mp == NULL || get_props == NULL || get_qf == NULL) {
        fprintf(stderr, ME ": the Vulkan loader lacks the physical device queries\n");
        return CLI_FAILED;
    }
    get_mp(r->info.physical_device, &c->mp);
    VkPhysicalDeviceProperties props;
    get_props(r->info.physical_device, &props);
    uint32_t nq = 0;
    get_qf(r->info.physical_device, &nq, NULL);
    VkQueueFamilyProperties qf[16];
    nq = nq < 16u ? nq : 16u;
    get_qf(r->info.physical_device, &nq, qf);
    if (r->info.queue_family >= nq || qf[r->info.queue_family].timestampValidBits == 0 ||
        props.limits.timestampPeriod <= 0.0f) {
        fprintf(stderr, ME ": %s: its queue has no timestamps, so GPU time cannot be measured\n", r->info.device_name);
        return CLI_FAILED;
    }
    if (width > props.limits.maxFramebufferWidth || height > props.limits.maxFramebufferHeight) {
        fprintf(stderr, ME ": --size %ux%u exceeds %s's framebuffer limit of %ux%u\n", width, height,
                r->info.device_name, props.limits.maxFramebufferWidth, props.limits.maxFramebufferHeight);
        return CLI_FAILED;
    }
    c->timestamp_period = props.limits.timestampPeriod;
    const uint32_t bits = qf[r->info.queue_family].timestampValidBits;
    c->timestamp_mask = bits >= 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1u;

    VkCommandPoolCreateInfo cpi = {VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, NULL,
                                   VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT, r->info.queue_family};
    VkResult res = t->vkCreateCommandPool(dev, &cpi, r->alloc, &c->cmd_pool);
    if (res != VK_SUCCESS) {
        return vk_fail("vkCreateCommandPool", res);
    }
    VkCommandBufferAllocateInfo cai = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, NULL, c->cmd_pool,
                                       VK_COMMAND_BUFFER_LEVEL_PRIMARY, 1};
    if ((res = t->vkAllocateCommandBuffers(dev, &cai, &c->cmd)) != VK_SUCCESS) {
        return vk_fail("vkAllocateCommandBuffers", res);
    }
    VkFenceCreateInfo fi = {VK_STRUCTURE_TYPE_FENCE_CREATE_INFO, NULL, 0};
    if ((res = t->vkCreateFence(dev, &fi, r->alloc, &c->fence)) != VK_SUCCESS) {
        return vk_fail("vkCreateFence", res);
    }
    VkQueryPoolCreateInfo qi = {VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO, NULL, 0, VK_QUERY_TYPE_TIMESTAMP, 3, 0};
    if ((res = t->vkCreateQueryPool(dev, &qi, r->alloc, &c->queries)) != VK_SUCCESS) {
        return vk_fail("vkCreateQueryPool", res);
    }

    float *v = NULL;
    uint32_t *idx = NULL;
    placement *pl = NULL;
    int rc = classic_geometry(c, &v, &idx, &pl);
    if (rc == CLI_OK) {
        rc = make_buffer(c, &c->vertices, VK_BUFFER_USAGE_VERTEX_BUFFER_BIT | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, v,
                         (VkDeviceSize)(c->vertex_count > 0 ? c->vertex_count : 1u) * 24u);
    }
    if (rc == CLI_OK) {
        rc = make_buffer(c, &c->indices, VK_BUFFER_USAGE_INDEX_BUFFER_BIT | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, idx,
                         (VkDeviceSize)(c->index_count > 0 ? c->index_count : 1u) * 4u);
    }
    if (rc == CLI_OK) {
        rc = make_buffer(c, &c->instances, VK_BUFFER_USAGE_VERTEX_BUFFER_BIT | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, pl,
                         (VkDeviceSize)(c->instance_count > 0 ? c->instance_count : 1u) * sizeof(placement));
    }
    if (rc == CLI_OK && breakdown) {
        float *corners = malloc((size_t)(c->index_count > 0 ? c->index_count : 1u) * 24u);
        if (corners == NULL) {
            fprintf(stderr, ME ": out of memory for %llu corners\n", (unsigned long long)c->index_count);
            rc = CLI_FAILED;
        }
        for (uint64_t k = 0; k < c->index_count && rc == CLI_OK; k++) {
            memcpy(&corners[k * 6u], &v[(size_t)idx[k] * 6u], 24u);
        }
        if (rc == CLI_OK) {
            rc = make_buffer(c, &c->corners, VK_BUFFER_USAGE_VERTEX_BUFFER_BIT | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                             corners, (VkDeviceSize)(c->index_count > 0 ? c->index_count : 1u) * 24u);
        }
        free(corners);
    }
    free(v);
    free(idx);
    free(pl);
    if (rc == CLI_OK) {
        rc = make_image(c, VK_FORMAT_R8G8B8A8_UNORM,
                        VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                        VK_IMAGE_ASPECT_COLOR_BIT, &c->color, &c->color_mem, &c->color_view);
    }
    if (rc == CLI_OK) {
        rc = make_image(c, VK_FORMAT_D32_SFLOAT, VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT, VK_IMAGE_ASPECT_DEPTH_BIT,
                        &c->depth, &c->depth_mem, &c->depth_view);
    }
    if (rc == CLI_OK) {
        rc = classic_pipeline(c, breakdown);
    }
    return rc;
}

/* Begins c's render pass over its target, cleared, in c's command buffer. */
static void classic_begin_pass(classic *c)
{
    VkClearValue clear[2];
    memset(clear, 0, sizeof clear);
    clear[0].color.float32[0] = 0.05f;
    clear[0].color.float32[1] = 0.05f;
    clear[0].color.float32[2] = 0.08f;
    clear[0].color.float32[3] = 1.0f;
    clear[1].depthStencil.depth = 1.0f;
    VkRenderPassBeginInfo rbi = {VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO, NULL, c->pass, c->fb,
                                 {{0, 0}, {c->width, c->height}},          2,    clear};
    c->r->t->vkCmdBeginRenderPass(c->cmd, &rbi, VK_SUBPASS_CONTENTS_INLINE);
}

/* The first n timestamps of the retired frame, in ns from the first. */
static int classic_timestamps(classic *c, uint64_t *ns, uint32_t n)
{
    uint64_t ts[3];
    VkResult res = c->r->t->vkGetQueryPoolResults(c->r->info.device, c->queries, 0, n, sizeof ts, ts, sizeof ts[0],
                                                  VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
    if (res != VK_SUCCESS) {
        return vk_fail("vkGetQueryPoolResults", res);
    }
    for (uint32_t i = 0; i < n; i++) {
        ns[i] = (uint64_t)((double)((ts[i] - ts[0]) & c->timestamp_mask) * (double)c->timestamp_period + 0.5);
    }
    return CLI_OK;
}

/* One classic frame of variant var; *ns is its GPU time. */
static int classic_frame(classic *c, int var, const float view_proj[16], const float eye[3], uint64_t *ns)
{
    const struct VolkDeviceTable *t = c->r->t;
    one_time_begin(c);
    VkCommandBuffer cmd = c->cmd;
    t->vkCmdResetQueryPool(cmd, c->queries, 0, 2);
    t->vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, c->queries, 0);
    classic_begin_pass(c);
    const int pulled = var == VAR_PULLED || var == VAR_PULLED_INDEXED;
    const int unindexed = var == VAR_UNINDEXED || var == VAR_UNINDEXED_CLUSTERS || pulled;
    const int per_cluster = var == VAR_CLUSTERS || var == VAR_UNINDEXED_CLUSTERS;
    VkPipelineLayout layout = pulled ? c->pulled_layout : c->layout;
    if (pulled) {
        const uint32_t k = var == VAR_PULLED_INDEXED;
        t->vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, c->pulled[k]);
        t->vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, layout, 0, 1, &c->sets[k], 0, NULL);
    } else {
        t->vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, c->pipeline);
        VkBuffer vbs[2] = {unindexed ? c->corners.buffer : c->vertices.buffer, c->instances.buffer};
        VkDeviceSize offs[2] = {0, 0};
        t->vkCmdBindVertexBuffers(cmd, 0, 2, vbs, offs);
        if (!unindexed) {
            t->vkCmdBindIndexBuffer(cmd, c->indices.buffer, 0, VK_INDEX_TYPE_UINT32);
        }
    }
    float pc[24];
    memcpy(pc, view_proj, 16 * sizeof(float));
    pc[16] = eye[0], pc[17] = eye[1], pc[18] = eye[2], pc[19] = 1.0f;
    slc_render_light(view_proj, &pc[20]); /* the reference renderer's light */
    pc[23] = 0;
    t->vkCmdPushConstants(cmd, layout, VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0, sizeof pc, pc);
    const classic_draw *list = per_cluster ? c->cluster_draws : c->draws;
    const uint32_t n = per_cluster ? c->cluster_count : c->draw_count;
    for (uint32_t i = 0; i < n; i++) {
        const classic_draw *d = &list[i];
        if (d->index_count == 0 || d->instance_count == 0) {
            continue;
        }
        if (unindexed) {
            t->vkCmdDraw(cmd, d->index_count, d->instance_count, d->first_index, d->first_instance);
        } else {
            t->vkCmdDrawIndexed(cmd, d->index_count, d->instance_count, d->first_index, 0, d->first_instance);
        }
    }
    t->vkCmdEndRenderPass(cmd);
    t->vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, c->queries, 1);
    if (submit_wait(c) != CLI_OK) {
        return CLI_FAILED;
    }
    uint64_t ts[2];
    if (classic_timestamps(c, ts, 2) != CLI_OK) {
        return CLI_FAILED;
    }
    *ns = ts[1];
    return CLI_OK;
}

/* --- the pulling path ------------------------------------------------------------------------ */

typedef struct pulling {
    slc_render *r; /* its own target */
    void *mem;
    slc_render *app; /* --breakdown: drawing inside the classic path's render pass */
    void *app_mem;
    uint32_t draws, kept;
    uint64_t triangles; /* of the last frame */
    uint64_t cull_ns;   /* the app variant's last frame: the cull pass alone */
} pulling;

static void pulling_close(pulling *p)
{
    slc_render_deinit(p->app);
    free(p->app_mem);
    slc_render_deinit(p->r);
    free(p->mem);
    memset(p, 0, sizeof *p);
}

/* A renderer on r's backend: its own target (pass VK_NULL_HANDLE), charged
 * to cpu/render and gpu/render where the profile has them, or drawing in
 * pass, charged to nothing (the budgets are sized for one renderer). */
static int render_open(rig *r, uint32_t width, uint32_t height, VkRenderPass pass, void **mem, slc_render **out)
{
    slc_render_desc d;
    memset(&d, 0, sizeof d);
    slc_render_desc_from_profile(&d, &r->render);
    d.width = width;
    d.height = height;
    d.render_pass = pass;
    slc_budgets *b = slc_memory_budgets(r->mem);
    slc_budget_id id;
    if (pass == VK_NULL_HANDLE && slc_budgets_scan(b, "cpu/render", &id) == SLC_OK &&
        slc_budgets_scan(b, "gpu/render", &id) == SLC_OK) {
        d.budgets = b;
    }
    d.log = cli_stderr_logger;
    size_t size = slc_render_footprint(&d, r->pack);
    if (size == 0) {
        fprintf(stderr, ME ": the renderer refuses %ux%u\n", width, height);
        return CLI_FAILED;
    }
    *mem = aligned_alloc(SLC_RENDER_ALIGN, (size + SLC_RENDER_ALIGN - 1u) & ~(size_t)(SLC_RENDER_ALIGN - 1u));
    slc_status st = *mem != NULL ? slc_render_init(*mem, size, &d, r->vk, r->pack, out) : SLC_E_CAPACITY;
    if (st != SLC_OK) {
        fprintf(stderr, ME ": the renderer could not start (%s)\n", slc_status_name(st));
        return CLI_FAILED;
    }
    return CLI_OK;
}

static int pulling_open(pulling *p, rig *r, const classic *c, int breakdown)
{
    memset(p, 0, sizeof *p);
    int rc = render_open(r, c->width, c->height, VK_NULL_HANDLE, &p->mem, &p->r);
    if (rc == CLI_OK && breakdown) {
        rc = render_open(r, c->width, c->height, c->pass, &p->app_mem, &p->app);
    }
    return rc;
}

/* One pulling frame: a stream frame asking for every level 0, every
 * resolved request added, recorded into c's command buffer, submitted,
 * retired; *ns its GPU time (the renderer's cull pass and draws). With app,
 * the renderer that draws in c's render pass: the cull pass recorded
 * before it, the draws inside it, c's timestamps around each (p->cull_ns
 * the cull pass's). */
static int pulling_frame(pulling *p, rig *r, classic *c, int app, const float view_proj[16], const float eye[3],
                         uint64_t *ns)
{
    slc_render *rd = app ? p->app : p->r;
    if (request_all(r) != CLI_OK) {
        return CLI_FAILED;
    }
    slc_render_view v;
    memset(&v, 0, sizeof v);
    memcpy(v.view_proj, view_proj, sizeof v.view_proj);
    memcpy(v.eye, eye, sizeof v.eye);
    v.tint = SLC_RENDER_TINT_NONE;
    v.clear[0] = v.clear[1] = 0.05f, v.clear[2] = 0.08f, v.clear[3] = 1.0f;
    slc_status st = slc_render_begin(rd, r->frame, &v);
    const uint32_t n = slc_stream_result_count(r->s);
    for (uint32_t i = 0; i < n && st == SLC_OK; i++) {
        slc_stream_result res;
        st = slc_stream_resident(r->s, i, &res, r->spans, r->span_cap);
        if (st == SLC_OK) {
            st = slc_render_add(rd, &res, r->spans);
        }
    }
    if (st != SLC_OK) {
        fprintf(stderr, ME ": frame %llu: the renderer refused a request (%s%s)\n", (unsigned long long)r->frame,
                slc_status_name(st),
                st == SLC_E_CAPACITY ? ": the profile's [render] max_draws and max_placements bound a frame" : "");
        return CLI_FAILED;
    }
    one_time_begin(c);
    if (app) {
        const struct VolkDeviceTable *t = r->t;
        t->vkCmdResetQueryPool(c->cmd, c->queries, 0, 3);
        t->vkCmdWriteTimestamp(c->cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, c->queries, 0);
        st = slc_render_record_cull(rd, c->cmd);
        t->vkCmdWriteTimestamp(c->cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, c->queries, 1);
        classic_begin_pass(c);
        if (st == SLC_OK) {
            st = slc_render_record_draws(rd, c->cmd);
        }
        t->vkCmdEndRenderPass(c->cmd);
        t->vkCmdWriteTimestamp(c->cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, c->queries, 2);
    } else {
        st = slc_render_record(rd, c->cmd);
    }
    if (st != SLC_OK) {
        fprintf(stderr, ME ": recording the renderer's frame: %s\n", slc_status_name(st));
        return CLI_FAILED;
    }
    if (submit_wait(c) != CLI_OK) {
        return CLI_FAILED;
    }
    slc_render_frame fr;
    if ((st = slc_vulkan_end_frame(r->vk, r->frame)) != SLC_OK ||
        (st = slc_vulkan_wait_frame(r->vk, r->frame, WAIT_NS)) != SLC_OK ||
        (st = slc_render_get_frame(rd, r->frame, &fr)) != SLC_OK) {
        fprintf(stderr, ME ": frame %llu did not retire (%s)\n", (unsigned long long)r->frame, slc_status_name(st));
        return CLI_FAILED;
    }
    if (!fr.timed) {
        fprintf(stderr, ME ": the renderer did not time frame %llu\n", (unsigned long long)r->frame);
        return CLI_FAILED;
    }
    p->draws = fr.draws;
    p->kept = fr.clusters_drawn;
    p->triangles = fr.triangles;
    *ns = fr.gpu_ns;
    if (app) {
        uint64_t ts[3];
        if (classic_timestamps(c, ts, 3) != CLI_OK) {
            return CLI_FAILED;
        }
        p->cull_ns = ts[1] - ts[0];
        *ns = ts[2] - ts[0];
    }
    return CLI_OK;
}

/* --- the command -------------------------------------------------------------------------- */

static double median_ms(uint64_t *v, size_t n)
{
    qsort(v, n, sizeof v[0], cli_cmp_u64);
    const size_t mid = n / 2;
    return (double)v[mid] / 1e6;
}

/* "float", "quantized" (16-bit positions) or "mixed", over the pack's objects. */
static const char *pages_kind(const slc_pack *pack)
{
    const slc_pack_header *h = slc_pack_get_header(pack);
    uint32_t q = 0;
    for (uint32_t i = 0; i < h->object_count; i++) {
        q += (slc_pack_get_object(pack, (slc_object_id){i})->attributes & SLC_PACK_ATTR_POS_U16) != 0;
    }
    return q == 0 ? "float" : q == h->object_count ? "quantized" : "mixed";
}

/* One frame of variant var; *ns its GPU time. */
static int variant_frame(int var, pulling *p, rig *r, classic *c, const float view_proj[16], const float eye[3],
                         uint64_t *ns)
{
    if (var == VAR_PULL || var == VAR_PULL_APP) {
        return pulling_frame(p, r, c, var == VAR_PULL_APP, view_proj, eye, ns);
    }
    return classic_frame(c, var, view_proj, eye, ns);
}

/* Prints one pack's figures. */
static void print_pack(const rig *r, const classic *c, const pulling *p, const char *label, const double *ms,
                       int variants, double cull_ms, double draws_ms)
{
    const slc_pack_header *h = slc_pack_get_header(r->pack);
    char sz[32];
    printf("%s pages (%s: %u objects, %llu placements, %u chunks, %u clusters, %llu triangles a frame at level 0; "
           "classic buffers %s)\n",
           pages_kind(r->pack), label, h->object_count, (unsigned long long)c->instance_count, h->chunk_count,
           c->cluster_count, (unsigned long long)c->triangles, cli_size_approx(c->device_bytes, sz, sizeof sz));
    for (int v = 0; v < variants; v++) {
        const uint64_t tris = v == VAR_PULL || v == VAR_PULL_APP ? p->triangles : c->triangles;
        printf("  %s: median %.3f ms a frame, %.2f M triangles/s", variant_names[v], ms[v],
               ms[v] > 0.0 ? (double)tris / (ms[v] * 1e3) : 0.0);
        if (v == VAR_PULL) {
            printf(" (%u cluster draws, %u kept by the GPU cull, %llu triangles)\n", p->draws, p->kept,
                   (unsigned long long)p->triangles);
        } else if (v == VAR_PULL_APP) {
            printf(" (medians: cull pass %.3f ms, render pass with the draws %.3f ms)\n", cull_ms, draws_ms);
        } else {
            const int clusters = v == VAR_CLUSTERS || v == VAR_UNINDEXED_CLUSTERS;
            printf(" (%u %s draws, no GPU culling)\n", clusters ? c->cluster_count : c->draw_count,
                   v == VAR_CLASSIC || v == VAR_CLUSTERS ? "indexed" : "unindexed");
        }
    }
    printf("  pulling / classic: %.2fx\n", ms[VAR_CLASSIC] > 0.0 ? ms[VAR_PULL] / ms[VAR_CLASSIC] : 0.0);
    fflush(stdout);
}

/* Measures one pack: every variant, frames round them. */
static int bench_pack(const opts *o, const slc_profile *prof, const char *path, const char *label)
{
    static rig r;
    int rc = rig_open(&r, o, prof, path);
    if (rc != CLI_OK) {
        return rc;
    }
    classic c;
    pulling p;
    memset(&c, 0, sizeof c);
    memset(&p, 0, sizeof p);
    rc = settle(&r);
    if (rc == CLI_OK) {
        rc = classic_open(&c, &r, o->width, o->height, o->breakdown);
    }
    if (rc == CLI_OK) {
        rc = pulling_open(&p, &r, &c, o->breakdown);
    }
    /* the overview `sluice render` gives a trace: the whole scene in view */
    float lo[3] = {0}, hi[3] = {0};
    camera_view cv;
    if (rc == CLI_OK && camera_scene_bounds(r.pack, lo, hi) != 0) {
        fprintf(stderr, ME ": %s has no objects\n", path);
        rc = CLI_FAILED;
    }
    camera_overview(lo, hi, 0.0f, (float)o->width / (float)o->height, &cv);
    const float *view_proj = cv.view_proj, *eye = cv.eye;
    const int variants = o->breakdown ? VARIANTS : VAR_CLASSIC + 1;
    const size_t per = (size_t)(o->frames * o->repeat);
    uint64_t *ns[VARIANTS] = {NULL};
    for (int v = 0; v < variants && rc == CLI_OK; v++) {
        if ((ns[v] = calloc(per, sizeof(uint64_t))) == NULL) {
            fprintf(stderr, ME ": out of memory\n");
            rc = CLI_FAILED;
        }
    }
    uint64_t *cull = NULL, *draws = NULL; /* VAR_PULL_APP's parts */
    if (rc == CLI_OK && o->breakdown &&
        ((cull = calloc(per, sizeof(uint64_t))) == NULL || (draws = calloc(per, sizeof(uint64_t))) == NULL)) {
        fprintf(stderr, ME ": out of memory\n");
        rc = CLI_FAILED;
    }
    uint64_t warm = 0;
    for (int v = 0; v < variants && rc == CLI_OK; v++) { /* once each, untimed: the driver compiles on first use */
        rc = variant_frame(v, &p, &r, &c, view_proj, eye, &warm);
    }
    /* frame by frame round the variants: a slow drift in the machine's load
     * falls on every variant alike */
    for (size_t k = 0; k < per && rc == CLI_OK; k++) {
        for (int v = 0; v < variants && rc == CLI_OK; v++) {
            rc = variant_frame(v, &p, &r, &c, view_proj, eye, &ns[v][k]);
            if (v == VAR_PULL_APP) {
                cull[k] = p.cull_ns;
                draws[k] = ns[v][k] - p.cull_ns;
            }
        }
    }
    if (rc == CLI_OK) {
        double ms[VARIANTS];
        for (int v = 0; v < variants; v++) {
            ms[v] = median_ms(ns[v], per);
        }
        const double cull_ms = cull != NULL ? median_ms(cull, per) : 0.0;
        const double draws_ms = draws != NULL ? median_ms(draws, per) : 0.0;
        print_pack(&r, &c, &p, label, ms, variants, cull_ms, draws_ms);
    }
    for (int v = 0; v < VARIANTS; v++) {
        free(ns[v]);
    }
    free(cull);
    free(draws);
    pulling_close(&p);
    classic_close(&c);
    rig_close(&r);
    return rc;
}

static void render_help(const cli_args *spec)
{
    bench_help(spec, USAGE "\n"
                           "GPU time a frame drawing every object's level 0 from one fixed view: by vertex\n"
                           "pulling from the Vulkan page pool (the reference renderer) against a classic\n"
                           "pipeline of ordinary vertex and 32-bit index buffers decoded on the CPU, for\n"
                           "float and for quantized pages.\n\n");
}

/* "KIND[:SIZE]" into o->kind, o->scene_bytes. */
static int parse_synthetic(opts *o)
{
    const char *colon = strchr(o->synthetic, ':');
    size_t n = colon != NULL ? (size_t)(colon - o->synthetic) : strlen(o->synthetic);
    o->scene_bytes = SCENE_BYTES_DEFAULT;
    if (n == 0 || n >= sizeof o->kind || (colon != NULL && !cli_parse_size(colon + 1, &o->scene_bytes)) ||
        o->scene_bytes == 0) {
        return cli_usage_error(ME, USAGE, "--synthetic '%s': expected KIND[:SIZE], e.g. city:4MiB", o->synthetic);
    }
    memcpy(o->kind, o->synthetic, n);
    o->kind[n] = '\0';
    return CLI_OK;
}

int bench_render(int argc, char **argv)
{
    static opts o;
    memset(&o, 0, sizeof o);
    o.size = "1280x720";
    o.frames = 10;
    o.repeat = 3;
    o.profile_path = cli_default_profile();
    const cli_opt table[] = {
        {.name = "--synthetic",
         .kind = CLI_OPT_STRING,
         .dest = &o.synthetic,
         .bad = "{opt} needs KIND[:SIZE]",
         .arg = "KIND[:SIZE]",
         .help = "build the scene twice, float and quantized (default:\ncity:4MiB; SIZE as sluice pack --size)"},
        {.name = "--size",
         .kind = CLI_OPT_STRING,
         .dest = &o.size,
         .bad = "{opt} needs WxH",
         .arg = "WxH",
         .help = "the targets' size (default: 1280x720)"},
        {.name = "--frames",
         .kind = CLI_OPT_U64,
         .dest = &o.frames,
         .min = 1,
         .max = FRAMES_MAX,
         .bad = "{opt} needs a count in {min}..{max}",
         .arg = "N",
         .help = "timed frames a variant and repeat (10)"},
        {.name = "--repeat",
         .kind = CLI_OPT_U64,
         .dest = &o.repeat,
         .min = 1,
         .max = REPEAT_MAX,
         .bad = "{opt} needs a count in {min}..{max}",
         .arg = "R",
         .help = "rounds of both variants (3)"},
        {.name = "--profile",
         .kind = CLI_OPT_STRING,
         .dest = &o.profile_path,
         .bad = "{opt} needs a file",
         .arg = "FILE",
         .help = "budgets and pool (default: " CLI_DEFAULT_PROFILE_HELP ")"},
        {.name = "--breakdown",
         .kind = CLI_OPT_FLAG,
         .dest = &o.breakdown,
         .help =
             "also the classic path a draw a cluster, unindexed, both, and\nread by the vertex shader from storage buffers:\nwhere pulling's time goes"},
        {.name = "--validate",
         .kind = CLI_OPT_FLAG,
         .dest = &o.validate,
         .help = "the Khronos validation layer on; any message fails the run\n(distorts timing: for tests)"},
    };
    const cli_args spec = {.me = ME,
                           .opts = table,
                           .count = sizeof table / sizeof table[0],
                           .operands = o.packs,
                           .max_operands = PACKS_MAX,
                           .operand_count = &o.npacks,
                           .unknown = "unknown option or operand '{value}'",
                           .usage = USAGE,
                           .usage_after = CLI_ARGS_ALL,
                           .help = 1,
                           .help_column = 26};
    int rc = cli_args_parse(&spec, argc, argv);
    if (rc == CLI_ARGS_HELP) {
        render_help(&spec);
        return CLI_OK;
    }
    if (rc != CLI_OK) {
        return rc;
    }
    if (o.npacks > 0 && o.synthetic != NULL) {
        return cli_usage_error(ME, USAGE, "PACK and --synthetic exclude each other");
    }
    if (o.npacks == 0 && o.synthetic == NULL) {
        o.synthetic = "city:4MiB";
    }
    if ((rc = bench_parse_size(ME, USAGE, o.size, SLC_RENDER_SIZE_MAX, &o.width, &o.height)) != CLI_OK ||
        (o.synthetic != NULL && (rc = parse_synthetic(&o)) != CLI_OK)) {
        return rc;
    }
    slc_profile prof;
    tool_profile_sections sec;
    if ((rc = cli_load_profile_sections(o.profile_path, &prof, &sec)) != CLI_OK ||
        (rc = cli_refuse_host_only(ME, o.profile_path, &prof, "the Vulkan renderer")) != CLI_OK) {
        return rc;
    }
    o.render = sec.render;
    const char *paths[PACKS_MAX];
    const char *labels[PACKS_MAX];
    size_t n = o.npacks;
    for (size_t i = 0; i < n; i++) {
        paths[i] = labels[i] = o.packs[i];
    }
    if (o.synthetic != NULL) {
        if ((rc = bench_tmp_dir(ME, "sluice-bench-render", tmp_dir, sizeof tmp_dir, remove_tmp)) != CLI_OK) {
            return rc;
        }
        for (int q = 0; q < 2 && rc == CLI_OK; q++) {
            snprintf(tmp_packs[q], sizeof tmp_packs[q], "%s/%s.pack", tmp_dir, q ? "quantized" : "float");
            rc = build_synthetic(&o, q, tmp_packs[q]);
            paths[q] = tmp_packs[q];
            labels[q] = o.synthetic;
        }
        n = 2;
    }
    if (rc == CLI_OK) {
        printf("bench render: %ux%u, %llu frames x %llu repeats a variant, median GPU time a frame%s\n", o.width,
               o.height, (unsigned long long)o.frames, (unsigned long long)o.repeat,
               o.validate ? " (validation layer on: not a measurement)" : "");
    }
    for (size_t i = 0; i < n && rc == CLI_OK; i++) {
        rc = bench_pack(&o, &prof, paths[i], labels[i]);
    }
    if (rc == CLI_OK && validation.messages > 0) {
        fprintf(stderr, ME ": the validation layer reported %llu message%s\n", (unsigned long long)validation.messages,
                validation.messages == 1 ? "" : "s");
        rc = CLI_FAILED;
    }
    remove_tmp();
    tmp_dir[0] = '\0';
    memset(tmp_packs, 0, sizeof tmp_packs);
    return rc;
}

#endif
