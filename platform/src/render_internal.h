/* SPDX-License-Identifier: MIT */
/* sluice: what the renderer's files share (vulkan_render.c: init, the
 * tables, resources and pipelines; render_frames.c: the frames); not
 * installed. */
#ifndef SLUICE_RENDER_INTERNAL_H
#define SLUICE_RENDER_INTERNAL_H

#include "vulkan_internal.h"

#include "sluice/pack_format.h"
#include "sluice/render.h"

/* Segments one descriptor array binds (the pool has 2^24 pages at most, of
 * a segment of at least 2^27 bytes each: far fewer on any real profile). */
#define RD_SEGMENTS_MAX 64u
#define RD_SECTION_ALIGN 256u /* every Vulkan device's storage and uniform offset alignment is at most this */
#define RD_PALETTE 8u
#define RD_LOCAL_SIZE 64u
/* The descriptor set: 0 the page pool's segments, 1 draws, 2 placements,
 * 3 objects, 4 the frame's uniforms, 5 indirect commands, 6 counters,
 * 7 the texture pool's segments, 8 the material and texture tables, 9 the
 * frame's indirection table. */
#define RD_BINDINGS 10u

/* The GPU's records (std430/std140, as platform/shaders/render_pool.glsl
 * and render_frame.glsl declare them). A cluster draw as the host writes it;
 * the cull pass, which reads the cluster record from the page, overwrites
 * it with what the vertex shader reads (render_pool.glsl): so the vertex
 * shader reads a corner's draw in 4 words, plus the object for a quantized
 * position. */
typedef struct rd_draw {
    uint32_t segment, page_word, cluster, object;
    uint32_t placement, placement_count, info, reserved;
} rd_draw;
_Static_assert(sizeof(rd_draw) == 32, "rd_draw: 32 bytes");

/* A draw's info word: everything a corner needs of its object, level and
 * placements besides the offsets (render_frame.glsl decodes it). */
#define RD_INFO_ATTRIBUTES(a) ((uint32_t)(a)&31u)                   /* SLC_PACK_ATTR_*, 5 bits */
#define RD_INFO_PALETTE(p) (((uint32_t)(p)&7u) << 5)                /* the object's colour */
#define RD_INFO_LOD_COLOR(l) (((l) < 7u ? (uint32_t)(l) : 7u) << 8) /* the served level's colour */
#define RD_INFO_COARSER (1u << 11)                                  /* served coarser than requested */
#define RD_INFO_STRIDE(w) (((uint32_t)(w)&15u) << 12)               /* vertex stride in words, 1..8 */
#define RD_INFO_AFFINE (1u << 16)                                   /* every placement's last row 0 0 0 1 */
#define RD_INFO_SEGMENT(s) (((uint32_t)(s)&63u) << 17)              /* < RD_SEGMENTS_MAX */
_Static_assert(SLC_PACK_ATTR_UV_U16 < 32u, "the attribute bits fit RD_INFO_ATTRIBUTES");
_Static_assert(RD_SEGMENTS_MAX <= 64u && RD_PALETTE == 8u, "segments and colours fit the info word");

/* An object's colour in the palette. */
static inline uint32_t rd_palette_index(uint32_t object)
{
    return (object * 2654435761u) >> 29;
}

typedef struct rd_object {
    float pos_offset[4];
    float pos_scale[4];
    float uv[4];
    uint32_t attributes, stride_words, palette, material; /* material: 0 none, else 1 + its record */
} rd_object;
_Static_assert(sizeof(rd_object) == 64, "rd_object: 64 bytes");

typedef struct rd_frame {
    float view_proj[16];
    float eye[4];
    float light[4];
    float planes[6][4];
    uint32_t params[4];
    float lod_palette[RD_PALETTE][4];
    float object_palette[RD_PALETTE][4];
    uint32_t textures[4]; /* the first word of the texture records in the tables, texture pool pages an atlas
                           * image, blocks a page's row, the atlas's SLC_PACK_TEXEL_* (0: none bound) */
    uint32_t atlas[4];    /* pages a layer, a page's height in texels, the block's side in texels and words */
} rd_frame;
_Static_assert(sizeof(rd_frame) == 64 + 16 + 16 + 96 + 16 + 128 + 128 + 16 + 16, "rd_frame: std140 without padding");

/* The tables the fragment shader reads (render_texture.glsl), in 32-bit
 * words: each material as the pack's record (docs/pack-format.md, 52
 * words: flags, alpha cutoff, metallic, roughness, base colour, emissive,
 * then five 8-word slots), then each texture in RD_TEXTURE_WORDS: its
 * size, format, kind and levels, tile and border, wrap, its first entry
 * in the frame's indirection table and its tail's, then two words a
 * level (a tiled level: its first entry and its tiles across; a level of
 * the tail: its first word in the tail's page, 0). */
#define RD_MATERIAL_WORDS 52u
#define RD_TEXTURE_WORDS (8u + 2u * SLC_PACK_MAX_TEXTURE_LEVELS + 2u)
#define RD_ENTRY_NONE 0xFFFFFFFFu /* an indirection entry: the chunk is not bound */

typedef struct rd_counters {
    uint32_t kept, triangles_lo, triangles_hi, unused;
} rd_counters;

typedef struct rd_buffer {
    VkBuffer buffer;
    VkDeviceMemory memory;
    VkDeviceSize size;
    VkDeviceSize alloc; /* bytes charged: the allocation's requirements */
    unsigned char *map;
} rd_buffer;

typedef struct rd_image {
    VkImage image;
    VkDeviceMemory memory;
    VkImageView view;
    VkDeviceSize alloc;
} rd_image;

typedef struct rd_slot {
    rd_buffer host;     /* frame uniforms, counters, draws, placements: host-visible */
    rd_buffer commands; /* the indirect commands the cull pass writes */
    rd_buffer readback; /* own target: the colour image's copy */
    VkDescriptorSet set;
    uint64_t frame; /* begun in this slot; 0: none */
    bool recorded;
    bool timed;
    uint32_t draws, placements, placements_culled;
    uint32_t texture_chunks; /* entries bound by slc_render_add_textures */
} rd_slot;

struct slc_render {
    slc_vulkan *vk;
    const slc_pack *pack;
    slc_logger log;
    const struct VolkDeviceTable *d;
    VkDevice device;
    const VkAllocationCallbacks *cb;
    uint32_t width, height, max_draws, max_placements;
    uint32_t frames;
    uint32_t segments;
    bool own_target;
    bool multi_draw;       /* one vkCmdDrawIndirect a frame (per maxDrawIndirectCount draws), gl_DrawID */
    uint32_t max_indirect; /* maxDrawIndirectCount */
    VkRenderPass app_pass;
    uint32_t subpass;

    vk_refusals refusals; /* the driver heap's, when init began */
    slc_budgets *budgets;
    slc_budget_id cpu_id, gpu_id;
    uint64_t cpu_charged, gpu_charged;

    uint32_t object_count;
    uint32_t
        *object_first; /* object_count + 1: placements of object o are instances object_list[first[o]..first[o+1]) */
    uint32_t *object_list;
    bool identity; /* the pack has no instances: one identity placement per object */

    VkDescriptorSetLayout set_layout;
    VkPipelineLayout layout;
    VkPipeline cull;
    VkPipeline draw;
    VkRenderPass pass;
    VkFramebuffer framebuffer;
    VkDescriptorPool descriptors;
    VkQueryPool queries;
    bool timestamps;
    uint64_t timestamp_mask;
    double timestamp_period;
    rd_image color, depth;
    rd_buffer objects;
    VkDeviceSize off_counters, off_draws, off_placements, off_entries;

    /* Textures (desc.textures): the pool's backend, the segments bound (its
     * own, or 1: the page pool's first, never read), the tables, and each
     * texture's chunks (the indirection table has an entry for each chunk
     * of each texture, in texture order). */
    slc_vulkan *tex_vk;    /* the texture pool's atlas images, NULL: none bound */
    uint32_t tex_segments; /* the atlas images bound (1, a placeholder, without tex_vk) */
    VkSampler tex_sampler; /* immutable, nearest: the atlas images are read with texelFetch */
    uint32_t texture_count, material_count, tex_entries;
    uint32_t *tex_first_chunk, *tex_chunk_count;
    rd_buffer tables;
    rd_slot slots[SLC_FRAMES_IN_FLIGHT_MAX];
    slc_render_sizes sizes;

    /* The frame being built. */
    bool begun;
    bool culled;
    uint64_t frame;
    uint32_t slot;
    float planes[6][4];
    float clear[4];
    uint32_t draws, placements, placements_culled;
};

/* A message through log (may be NULL or have no fn); returns status. */
slc_status slc__rd_log(const slc_logger *log, slc_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
#ifdef __clang_analyzer__
/* As vulkan_internal.h does for slc__vk_log. */
static inline slc_status slc__rd_analyzer_status(slc_status status, slc_status logged)
{
    (void)logged;
    return status;
}
#define slc__rd_log(log, status, ...) slc__rd_analyzer_status((status), slc__rd_log((log), (status), __VA_ARGS__))
#endif

#endif
