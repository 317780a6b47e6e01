/* SPDX-License-Identifier: MIT */
/* sluice: the reference renderer. Draws what the stream reports resident,
 * straight from the page pool of the Vulkan backend (sluice/vulkan.h).
 *
 *     slc_render_begin(r, frame, &view);          // after slc_stream_end_frame
 *     for each request i: slc_stream_resident(s, i, &res, spans, cap);
 *                         slc_render_add(r, &res, spans);
 *     slc_render_record(r, cmd);                  // into the application's command buffer
 *     ... submit cmd on the backend's queue, slc_vulkan_end_frame(vk, frame) ...
 *     slc_render_read(r, frame, &image);          // once the frame has retired (own target only)
 *
 * Vertex pulling. Nothing is copied out of the pages: the vertex shader
 * reads a cluster's triangle (three uint8 indices at the cluster's
 * index_offset) and its vertices (at vertex_offset, the object's stride)
 * from the pool's storage buffers, one binding per segment, and decodes
 * every layout docs/pack-format.md defines: float or 16-bit positions
 * (pos_offset + q / 65535 * pos_scale), float or octahedral snorm8 normals,
 * float or 16-bit UVs. An object's decode parameters come from a table
 * built from the pack at init.
 *
 * Draws. slc_render_add turns one resolved request into one draw per
 * cluster of its spans, instanced over the object's placements in the pack
 * (its instances, or one identity placement when the pack has none).
 * Placements whose transformed LOD sphere lies outside the frustum are
 * dropped on the CPU (cheap: one sphere per instance, and it bounds the
 * draw list). Clusters are culled per cluster on the GPU: a compute pass
 * reads each cluster's bounding sphere from its page (the CPU cannot: on a
 * staging belt the pages have no host address) and writes the indirect
 * draw, with an instance count of zero where no placement sees the
 * cluster. Draw order, and so every pixel, is a pure function of the
 * calls: the same requests give the same image with any worker count.
 * Where the device has multiDrawIndirect and shaderDrawParameters (enabled
 * by slc_vulkan_init, or said enabled by the application to
 * slc_vulkan_adopt) the frame is one vkCmdDrawIndirect of every draw and the
 * vertex shader finds its draw record by gl_DrawID; elsewhere one
 * vkCmdDrawIndirect a draw, its index in a push constant. firstInstance is
 * always 0 (no drawIndirectFirstInstance needed): gl_InstanceIndex is the
 * placement within the draw. A pool of more than one segment needs
 * shaderStorageBufferArrayDynamicIndexing (init fails without it).
 * Shaders read 32-bit words only (no 8- or 16-bit storage features).
 *
 * Textures. With desc.textures (the texture pool's backend, adopted on
 * the same device) the fragment shader samples the pack's textures from
 * that pool's storage buffers: a material and texture table built at init
 * (gpu/render), and a per-frame indirection table, one entry per tile and
 * mip tail of the pack, filled by slc_render_add_textures with the page of
 * each chunk the stream holds pinned or used this frame. A pixel samples
 * the finest bound level at or above the one its texel density asks for,
 * bilinearly within the tile (its border holds the neighbours' texels),
 * trilinearly with the next level where both are bound. rgba8, bc1 and bc3
 * are decoded in the shader; another format samples as white. Surfaces
 * with a material are shaded with it (base colour, alpha mask,
 * metallic-roughness, normal map, occlusion, emissive; GGX), the others
 * with their palette colour.
 *
 * Memory. The renderer's record, its tables and draw lists live in the
 * memory given to init (slc_render_footprint bytes), charged to the
 * `cpu/render` budget; every Vulkan buffer and image it creates (object
 * table, per-frame draw lists, placement and uniform buffers, indirect
 * commands, the render target, its readback buffer, the timestamp query
 * pool) is allocated once at init and charged to `gpu/render`. Host
 * allocations of the driver go through the backend's allocator
 * (`cpu/driver`). Nothing is allocated after init. Per-frame resources
 * are kept frames_in_flight times (the backend's count): frame f uses
 * slot f % frames_in_flight, and slc_render_begin refuses a frame whose
 * slot is still in flight (SLC_E_FRAMES_IN_FLIGHT).
 *
 * Target. With desc.render_pass VK_NULL_HANDLE the renderer owns its target:
 * a colour image (VK_FORMAT_R8G8B8A8_UNORM) and a depth image
 * (VK_FORMAT_D32_SFLOAT) of width x height, cleared every frame, copied
 * into a host-visible readback buffer per frame slot that slc_render_read
 * returns. Otherwise it draws inside the application's render pass
 * (subpass desc.subpass, which must have one colour and one depth
 * attachment, its colour R8G8B8A8_UNORM-compatible and its depth test
 * LESS against a depth cleared to 1): slc_render_record_cull goes before
 * vkCmdBeginRenderPass and slc_render_record_draws inside it; the viewport
 * and scissor are width x height at (0, 0).
 *
 * Synchronisation. The recorded work starts with a barrier making transfer
 * writes (the staging belt's copies into pages, submitted ahead by the
 * store) and host writes visible to the cull pass and the vertex and
 * fragment shaders; a second barrier after the cull pass makes its
 * indirect commands, counters and draw records (it leaves in each what the
 * vertex shader reads of the cluster) visible to the indirect draws, the
 * vertex shader and the host.
 *
 * Timing. Where the queue has timestamps, the frame's GPU time (cull pass
 * and draws) is measured with a query pool and given by slc_render_read /
 * slc_render_get_frame once the frame has retired.
 *
 * Thread-safety: one thread at a time, the one that calls the stream. */
#ifndef SLUICE_RENDER_H
#define SLUICE_RENDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sluice/budget.h"
#include "sluice/pack.h"
#include "sluice/profile.h"
#include "sluice/render_profile.h"
#include "sluice/status.h"
#include "sluice/stream.h"
#include "sluice/vulkan.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SLC_RENDER_ALIGN 64u

#define SLC_RENDER_DEFAULT_MAX_DRAWS 65536u      /* cluster draws a frame */
#define SLC_RENDER_DEFAULT_MAX_PLACEMENTS 65536u /* instance placements a frame, over all draws' objects */
/* Width and height (the device's limits may be lower), and max_draws and
 * max_placements: SLC_RENDER_SIZE_MAX and SLC_RENDER_LIST_MAX, the bounds of
 * a profile's [render] (sluice/render_profile.h), so every [render] its
 * parser accepts gives a desc init accepts. */

typedef enum slc_render_tint {
    /* Shaded: one directional light from over the camera's shoulder
     * (above, behind and right of the eye, on the view's axes), so the
     * surfaces facing the camera are lit, plus an ambient term; on the
     * normals (the face's normal where the object has none), one colour
     * per object. */
    SLC_RENDER_TINT_NONE = 0,
    /* Each cluster coloured by the LOD it was served at (a fixed palette,
     * slc_render_lod_color); a cluster served coarser than requested is
     * drawn with diagonal stripes of black over that colour. */
    SLC_RENDER_TINT_LOD = 1,
    /* Textured surfaces coloured by the mip level their base colour was
     * sampled at (the LOD palette, level 0 its first colour), with black
     * diagonal stripes where that level is coarser than the one the
     * pixel's texel density asks for (its tile not bound this frame);
     * surfaces without a base colour texture as SLC_RENDER_TINT_LOD. */
    SLC_RENDER_TINT_MIP = 2
} slc_render_tint;

/* slc_render_view.flags. */
typedef enum slc_render_view_flags {
    /* Every surface on both sides: no back face removed for a material
     * that is not double-sided (silhouettes of the geometry, as `sluice
     * bench lod` compares its levels by). */
    SLC_RENDER_VIEW_TWO_SIDED = 1u << 0
} slc_render_view_flags;

typedef struct slc_render_desc {
    uint32_t width;          /* own target only; 0: SLC_RENDER_DEFAULT_WIDTH */
    uint32_t height;         /* 0: SLC_RENDER_DEFAULT_HEIGHT */
    uint32_t max_draws;      /* 0: SLC_RENDER_DEFAULT_MAX_DRAWS */
    uint32_t max_placements; /* 0: SLC_RENDER_DEFAULT_MAX_PLACEMENTS */
    uint32_t flags;          /* none defined: 0 */
    uint32_t reserved0;      /* 0 */

    /* VK_NULL_HANDLE: the renderer's own target. Else the application's
     * render pass and subpass the pipeline is made for. */
    VkRenderPass render_pass;
    uint32_t subpass;
    uint32_t reserved1; /* 0 */

    /* Budgets to charge (NULL: none). Names NULL mean "cpu/render" and
     * "gpu/render"; with budgets set, both must exist. */
    slc_budgets *budgets;
    const char *cpu_budget;
    const char *gpu_budget;

    slc_logger log;

    /* The texture pool's backend (the stream's stores[SLC_POOL_TEXTURES]
     * store, on vk's device: slc_vulkan_adopt), whose tiles the fragment
     * shader samples; NULL: no texture is sampled (materials drawn with
     * their factors). */
    slc_vulkan *textures;
} slc_render_desc;

/* A frame's view. Matrices are column-major; clip space is Vulkan's (y
 * down, depth 0 near to 1 far). */
typedef struct slc_render_view {
    float view_proj[16]; /* scene to clip */
    float eye[3];        /* the camera's position in the scene: shading is two-sided, each normal turned towards it
                          * (an orthographic camera: a point far along the view direction) */
    uint32_t tint;       /* slc_render_tint */
    float clear[4];      /* own target: the colour it is cleared to (RGBA 0..1) */
    uint32_t flags;      /* slc_render_view_flags */
} slc_render_view;

/* What a frame drew, filled once it has retired. */
typedef struct slc_render_frame {
    uint64_t frame;
    uint32_t draws;             /* cluster draws recorded (before GPU culling) */
    uint32_t placements;        /* instance placements kept by the CPU test */
    uint32_t placements_culled; /* dropped by it */
    uint32_t clusters_drawn;    /* cluster draws the GPU kept (instance count > 0) */
    uint64_t triangles;         /* triangles of the draws kept, times their placements */
    uint32_t texture_chunks;    /* tiles and mip tails the frame's indirection bound (slc_render_add_textures) */
    uint64_t gpu_ns;            /* cull pass and draws; 0 without timestamps */
    bool timed;
} slc_render_frame;

/* The own target's pixels of a retired frame: RGBA8, rows top first,
 * stride bytes apart. Valid until the slot is reused (frames_in_flight
 * frames later). */
typedef struct slc_render_image {
    uint32_t width, height;
    size_t stride;
    const uint8_t *rgba;
} slc_render_image;

typedef struct slc_render slc_render;

/* Bytes of memory init needs for desc and pack (the object table and
 * per-object placement lists scale with the pack). 0 iff the desc is
 * invalid. */
size_t slc_render_footprint(const slc_render_desc *desc, const slc_pack *pack);

/* Fills width, height, max_draws and max_placements from a profile's
 * [render] section as slc_render_profile_section read it (0, the defaults,
 * for keys it does not declare). O(1). */
void slc_render_desc_from_profile(slc_render_desc *desc, const slc_render_profile *profile);

/* Bytes of device memory init will charge to `gpu/render` for desc on vk
 * (exact: the sizes the driver reports), so a tool can check a profile
 * before init. It makes the buffers and images on vk's device to ask their
 * sizes and destroys them at once. 0 iff the desc is invalid. */
uint64_t slc_render_device_bytes(const slc_render_desc *desc, const slc_pack *pack, slc_vulkan *vk);

/* Builds the pipelines (SPIR-V embedded at build time), the object table
 * and every buffer. pack (opened, outliving the renderer) is the one the
 * stream reads; vk the backend whose pool holds its pages.
 *
 * Fails iff mem is NULL, misaligned or too small (SLC_E_BLOCK_*); the desc
 * is invalid (SLC_E_INVALID: a width or height above SLC_RENDER_SIZE_MAX,
 * max_draws or max_placements above SLC_RENDER_LIST_MAX, flags or a
 * reserved field set; 0 is never invalid, it means the default); the own
 * target's size exceeds the device's maxFramebufferWidth/Height or
 * maxImageDimension2D (SLC_E_UNSUPPORTED, naming the limit and both
 * numbers), or the pool has more segments than the renderer binds or the
 * device's indexing features allow (SLC_E_UNSUPPORTED); a named budget does
 * not exist (SLC_E_NOT_FOUND); an object's attribute bits are ones the
 * renderer cannot decode (SLC_E_UNSUPPORTED, naming the object, its bits and
 * the offending ones: bits beyond the five defined, NORMAL_OCT8 without
 * NORMAL, UV_U16 without UV, or a stride not a multiple of 4); a budget refuses
 * (SLC_E_BUDGET_REFUSED, naming the budget and both numbers); or the driver
 * fails (SLC_E_DEVICE, SLC_E_DEVICE_MEMORY; a driver host allocation that
 * the backend's `cpu/driver` budget or its driver heap refused is
 * SLC_E_BUDGET_REFUSED or SLC_E_CAPACITY, the message naming the call and
 * the budget or heap, as the backend's own are). On failure everything
 * created is destroyed and every budget is back where it was. Slow (the
 * driver compiles three shaders); allocates only through the backend's
 * driver heap. */
slc_status slc_render_init(void *mem, size_t size, const slc_render_desc *desc, slc_vulkan *vk, const slc_pack *pack,
                           slc_render **out);

/* Waits for the device to be idle (vkDeviceWaitIdle: the application must
 * not be submitting on it meanwhile), destroys what the renderer created
 * and releases its budgets. NULL does nothing. */
void slc_render_deinit(slc_render *r);

/* Starts frame (the stream's frame number, as slc_stream_begin_frame gave
 * it) with view: writes the frame's uniforms into its slot. Fails iff the
 * frame's slot still holds a recorded frame that has not retired
 * (SLC_E_FRAMES_IN_FLIGHT), a frame is already begun and not recorded, frame
 * is 0 or view's tint is not an slc_render_tint (SLC_E_INVALID). O(1). */
slc_status slc_render_begin(slc_render *r, uint64_t frame, const slc_render_view *view);

/* Adds the draws of one resolved request (spans: res->span_count of them,
 * as slc_stream_resident gave them): the placements of the object whose
 * served level's sphere (slc_pack_lod, under the placement's matrix, its
 * radius scaled by the matrix's largest axis scale) meets the frustum, and
 * one draw per cluster of the spans over those placements. A result with
 * SLC_STREAM_LOD_NONE, or whose placements are all outside, adds nothing
 * (those placements counted in placements_culled). Fails iff the draw or
 * placement list is full (SLC_E_CAPACITY: nothing of this request is added,
 * the frame still draws what was), or no frame is begun or its cull pass is
 * recorded (SLC_E_INVALID). O(placements of the object + clusters). */
slc_status slc_render_add(slc_render *r, const slc_stream_result *res, const slc_stream_span *spans);

/* Binds the frame's texture tiles: each texture chunk of the pack (its
 * tiles and its mip tail) that s holds in the texture pool pinned (the
 * tails) or used in this frame (requested this frame: a page the pool
 * will not overwrite before the frame retires) gets its page in the
 * frame's indirection table; every other chunk is unbound, and the
 * fragment shader samples the finest bound level above it. Without the
 * call (or without desc.textures) a frame binds none: textured surfaces
 * show their material's factors. Call it after slc_render_begin, before
 * the cull pass is recorded. Fails iff no frame is begun or its cull pass
 * is recorded (SLC_E_INVALID). O(texture chunks of the pack). */
slc_status slc_render_add_textures(slc_render *r, const slc_stream *s);

/* Own target: records the whole frame into cmd (the cull pass, the render
 * pass over the target, the copy into the slot's readback buffer,
 * timestamps). Application's render pass: slc_render_record_cull before the
 * pass, slc_render_record_draws inside it; slc_render_record is then
 * refused (SLC_E_INVALID). cmd is recording, on the backend's queue family.
 * Each fails iff no frame is begun, record_cull comes twice or
 * record_draws before it, or the call is the other mode's (SLC_E_INVALID,
 * with a message). slc_render_record and slc_render_record_draws end the
 * frame: the next slc_render_begin may follow. O(1) with multi-draw, else
 * O(draws) (a call each). */
slc_status slc_render_record(slc_render *r, VkCommandBuffer cmd);
slc_status slc_render_record_cull(slc_render *r, VkCommandBuffer cmd);
slc_status slc_render_record_draws(slc_render *r, VkCommandBuffer cmd);

/* What frame drew (the GPU's counts and timestamps read back). Fails iff
 * it has not retired on the backend (the store's retired())
 * (SLC_E_FRAMES_IN_FLIGHT) or it was never recorded or its slot has been
 * reused since (SLC_E_NOT_FOUND). O(1). */
slc_status slc_render_get_frame(slc_render *r, uint64_t frame, slc_render_frame *out);

/* Own target: the pixels of frame, as slc_render_get_frame fails (and
 * SLC_E_INVALID with the application's render pass). O(1): the slot's
 * readback buffer, mapped. */
slc_status slc_render_read(slc_render *r, uint64_t frame, slc_render_image *out);

/* The colour SLC_RENDER_TINT_LOD gives level lod (RGB 0..255); levels past
 * the palette repeat its last colour. */
void slc_render_lod_color(uint32_t lod, uint8_t rgb[3]);

/* The direction towards SLC_RENDER_TINT_NONE's light (unit, in the scene)
 * for the view view_proj, as slc_render_begin puts it in a frame's
 * uniforms: from over the camera's right shoulder, the camera's axes read
 * from view_proj; a matrix without three independent axes gives a fixed
 * direction. Pure; O(1). */
void slc_render_light(const float view_proj[16], float towards[3]);

/* Bytes of the own target's colour image, depth image and readback
 * buffers, and of the per-frame lists, for a profile's justification. */
typedef struct slc_render_sizes {
    uint64_t target;    /* colour + depth */
    uint64_t readback;  /* all slots */
    uint64_t lists;     /* draws, indirect commands, placements, uniforms: all slots */
    uint64_t objects;   /* the object table */
    uint64_t materials; /* the material and texture tables the fragment shader reads */
} slc_render_sizes;
void slc_render_get_sizes(const slc_render *r, slc_render_sizes *out);

#ifdef __cplusplus
}
#endif

#endif
