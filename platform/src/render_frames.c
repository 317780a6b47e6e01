/* SPDX-License-Identifier: MIT */
/* sluice: the reference renderer's frames (see sluice/render.h): begin,
 * the draw lists, recording, and reading back what a retired frame drew. */
#include "render_internal.h"

#include <math.h>
#include <string.h>

/* The LOD palette (slc_render_lod_color and the shader's table: the shader
 * gets it from here, through the frame's uniforms) and the objects' colours. */
static const uint8_t lod_palette[RD_PALETTE][3] = {
    {46, 204, 64},  {0, 116, 217},   {255, 220, 0},  {255, 133, 27},
    {240, 18, 190}, {127, 219, 255}, {177, 13, 201}, {255, 65, 54},
};
static const uint8_t object_palette[RD_PALETTE][3] = {
    {230, 159, 0}, {86, 180, 233}, {0, 158, 115},   {240, 228, 66},
    {0, 114, 178}, {213, 94, 0},   {204, 121, 167}, {200, 200, 200},
};
/* Towards the light on the camera's axes (right, down the image as Vulkan's
 * y, forward): from over the camera's right shoulder, above and behind it,
 * so the surfaces that face the camera are lit whatever the view; and the
 * ambient term. */
static const float light_view[3] = {0.3f, -0.5f, -0.8f};
#define RD_AMBIENT 0.15f

static float rd_dot(const float a[3], const float b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* v less its part along unit u. */
static void rd_reject(float v[3], const float u[3])
{
    const float d = rd_dot(v, u);
    for (int i = 0; i < 3; i++) {
        v[i] -= d * u[i];
    }
}

static bool rd_normalize(float v[3])
{
    const float l = sqrtf(rd_dot(v, v));
    if (!(l > 1e-20f)) {
        return false;
    }
    for (int i = 0; i < 3; i++) {
        v[i] /= l;
    }
    return true;
}

/* slc_render_light: light_view in the scene for view_proj, the camera's
 * axes read from its rows (x: right; y: down the image; w: forward, or z where w has no part
 * of the position, as in an orthographic projection), made orthonormal.
 * A matrix without three independent axes gives light_view as it is, in
 * scene axes. O(1). */
void slc_render_light(const float m[16], float out[3])
{
    SLC_ASSERT(m != NULL && out != NULL);
    float right[3], down[3], fwd[3];
    for (int i = 0; i < 3; i++) {
        right[i] = m[i * 4 + 0];
        down[i] = m[i * 4 + 1];
        fwd[i] = m[i * 4 + 3];
    }
    if (rd_dot(fwd, fwd) < 1e-20f) {
        for (int i = 0; i < 3; i++) {
            fwd[i] = m[i * 4 + 2];
        }
    }
    bool ok = rd_normalize(fwd);
    rd_reject(right, fwd);
    ok = ok && rd_normalize(right);
    rd_reject(down, fwd);
    rd_reject(down, right);
    ok = ok && rd_normalize(down);
    for (int i = 0; i < 3; i++) {
        out[i] = ok ? light_view[0] * right[i] + light_view[1] * down[i] + light_view[2] * fwd[i] : light_view[i];
    }
    (void)rd_normalize(out);
}

void slc_render_lod_color(uint32_t lod, uint8_t rgb[3])
{
    SLC_ASSERT(rgb != NULL);
    const uint8_t *c = lod_palette[lod < RD_PALETTE ? lod : RD_PALETTE - 1u];
    rgb[0] = c[0];
    rgb[1] = c[1];
    rgb[2] = c[2];
}

/* --- frames ---------------------------------------------------------------- */

static uint64_t retired(const slc_render *r)
{
    const slc_page_store *st = slc_vulkan_get_store(r->vk);
    return st->ops->retired(st->self);
}

/* Planes of view_proj's frustum (Vulkan clip space: -w <= x, y <= w,
 * 0 <= z <= w), normalised: dot(xyz, p) + w is the signed distance. */
static void frustum(const float m[16], float planes[6][4])
{
    float row[4][4];
    for (int i = 0; i < 4; i++) {
        for (int j = 0; j < 4; j++) {
            row[i][j] = m[j * 4 + i];
        }
    }
    for (int j = 0; j < 4; j++) {
        planes[0][j] = row[3][j] + row[0][j];
        planes[1][j] = row[3][j] - row[0][j];
        planes[2][j] = row[3][j] + row[1][j];
        planes[3][j] = row[3][j] - row[1][j];
        planes[4][j] = row[2][j];
        planes[5][j] = row[3][j] - row[2][j];
    }
    for (int i = 0; i < 6; i++) {
        float l = sqrtf(planes[i][0] * planes[i][0] + planes[i][1] * planes[i][1] + planes[i][2] * planes[i][2]);
        if (l > 0.0f) {
            for (int j = 0; j < 4; j++) {
                planes[i][j] /= l;
            }
        }
    }
}

slc_status slc_render_begin(slc_render *r, uint64_t frame, const slc_render_view *view)
{
    SLC_ASSERT(r != NULL && view != NULL);
    if (r->begun) {
        return slc__rd_log(&r->log, SLC_E_INVALID,
                           "render: frame %llu is begun and not recorded; frame %llu cannot begin",
                           (unsigned long long)r->frame, (unsigned long long)frame);
    }
    if (view->tint > SLC_RENDER_TINT_MIP) {
        return slc__rd_log(&r->log, SLC_E_INVALID, "render: frame %llu: tint %u is not an slc_render_tint",
                           (unsigned long long)frame, view->tint);
    }
    if ((view->flags & ~(uint32_t)SLC_RENDER_VIEW_TWO_SIDED) != 0) {
        return slc__rd_log(&r->log, SLC_E_INVALID, "render: frame %llu: view flags 0x%x hold an unknown bit",
                           (unsigned long long)frame, view->flags);
    }
    if (frame == 0) {
        return slc__rd_log(&r->log, SLC_E_INVALID, "render: frame 0 is not a stream frame");
    }
    uint32_t slot = (uint32_t)(frame % r->frames);
    rd_slot *sl = &r->slots[slot];
    uint64_t done = retired(r);
    if (sl->frame != 0 && sl->recorded && done < sl->frame) {
        return slc__rd_log(&r->log, SLC_E_FRAMES_IN_FLIGHT,
                           "render: frame %llu: its slot %u still holds frame %llu, not retired (retired: %llu)",
                           (unsigned long long)frame, slot, (unsigned long long)sl->frame, (unsigned long long)done);
    }
    r->begun = true;
    r->culled = false;
    r->frame = frame;
    r->slot = slot;
    r->draws = r->placements = r->placements_culled = 0;
    sl->frame = frame;
    sl->recorded = false;
    sl->timed = false;
    frustum(view->view_proj, r->planes);
    rd_frame *f = (rd_frame *)(void *)sl->host.map;
    memset(f, 0, sizeof *f);
    memcpy(f->view_proj, view->view_proj, sizeof f->view_proj);
    memcpy(f->eye, view->eye, sizeof view->eye);
    slc_render_light(view->view_proj, f->light);
    f->light[3] = RD_AMBIENT;
    memcpy(f->planes, r->planes, sizeof f->planes);
    f->params[0] = view->tint;
    f->params[2] = (view->flags & SLC_RENDER_VIEW_TWO_SIDED) != 0 ? 1u : 0u;
    for (uint32_t i = 0; i < RD_PALETTE; i++) {
        for (int c = 0; c < 3; c++) {
            f->lod_palette[i][c] = (float)lod_palette[i][c] / 255.0f;
            f->object_palette[i][c] = (float)object_palette[i][c] / 255.0f;
        }
        f->lod_palette[i][3] = f->object_palette[i][3] = 1.0f;
    }
    f->textures[0] = r->material_count * RD_MATERIAL_WORDS;
    const slc_vulkan *t = r->tex_vk; /* its atlas images' layout, or none bound */
    f->textures[1] = t != NULL ? t->pages_per_segment : 1u;
    f->textures[2] = t != NULL ? t->page_blocks : 0u;
    f->textures[3] = t != NULL ? t->image_texel : 0u;
    f->atlas[0] = t != NULL ? t->pages_per_layer : 1u;
    f->atlas[1] = t != NULL ? t->page_height : 0u;
    f->atlas[2] = t != NULL ? t->block_width : 1u; /* square blocks: rgba8 1, BC 4, ASTC 4, 6 or 8 */
    f->atlas[3] = t != NULL ? t->block_bytes / 4u : 1u;
    memset(sl->host.map + r->off_counters, 0, sizeof(rd_counters));
    memset(sl->host.map + r->off_entries, 0xFF, (size_t)r->tex_entries * 4u); /* RD_ENTRY_NONE */
    sl->texture_chunks = 0;
    memcpy(r->clear, view->clear, sizeof r->clear);
    return SLC_OK;
}

slc_status slc_render_add_textures(slc_render *r, const slc_stream *s)
{
    SLC_ASSERT(r != NULL && s != NULL);
    if (!r->begun || r->culled) {
        return slc__rd_log(&r->log, SLC_E_INVALID,
                           "render: textures added outside a frame (after slc_render_begin, before its cull pass)");
    }
    if (r->tex_vk == NULL) {
        return SLC_OK;
    }
    rd_slot *sl = &r->slots[r->slot];
    uint32_t *e = (uint32_t *)(void *)(sl->host.map + r->off_entries);
    uint32_t n = 0, bound = 0;
    for (uint32_t t = 0; t < r->texture_count; t++) {
        for (uint32_t k = 0; k < r->tex_chunk_count[t]; k++, n++) {
            slc_page_info pi;
            if (slc_stream_get_chunk_page(s, (slc_chunk_id){r->tex_first_chunk[t] + k}, &pi) == SLC_OK &&
                (pi.state == SLC_PAGE_PINNED || pi.last_used == r->frame)) {
                e[n] = pi.page.index;
                bound++;
            }
        }
    }
    sl->texture_chunks = bound;
    return SLC_OK;
}

static const float identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};

/* The sphere, under m (its centre transformed, its radius scaled by the
 * largest axis scale), against the frustum. */
static bool sphere_visible(const float *planes, const float m[16], const float sphere[4])
{
    float c[3];
    for (int i = 0; i < 3; i++) {
        c[i] = m[i] * sphere[0] + m[4 + i] * sphere[1] + m[8 + i] * sphere[2] + m[12 + i];
    }
    float scale = 0.0f;
    for (int col = 0; col < 3; col++) {
        const float *a = m + (size_t)col * 4u;
        float l = sqrtf(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
        scale = l > scale ? l : scale;
    }
    float radius = sphere[3] * scale;
    for (int k = 0; k < 6; k++) {
        const float *p = planes + (size_t)k * 4u;
        if (p[0] * c[0] + p[1] * c[1] + p[2] * c[2] + p[3] < -radius) {
            return false;
        }
    }
    return true;
}

static const float *placement_matrix(const slc_render *r, uint32_t object, uint32_t i)
{
    if (r->identity) {
        return identity;
    }
    return slc_pack_get_instance(r->pack, r->object_list[r->object_first[object] + i])->matrix;
}

slc_status slc_render_add(slc_render *r, const slc_stream_result *res, const slc_stream_span *spans)
{
    SLC_ASSERT(r != NULL && res != NULL);
    if (!r->begun || r->culled) {
        return slc__rd_log(&r->log, SLC_E_INVALID,
                           "render: slc_render_add with no frame begun (or after its cull pass)");
    }
    if (res->lod == SLC_STREAM_LOD_NONE || res->span_count == 0) {
        return SLC_OK;
    }
    SLC_ASSERT(spans != NULL && res->object.index < r->object_count);
    uint32_t o = res->object.index;
    const slc_pack_object *ob = slc_pack_get_object(r->pack, res->object);
    SLC_ASSERT(res->lod < ob->lod_count);
    const slc_pack_lod *lod = slc_pack_get_lod(r->pack, ob->first_lod + res->lod);
    uint32_t n = r->identity ? 1u : r->object_first[o + 1u] - r->object_first[o];
    uint32_t kept = 0;
    for (uint32_t i = 0; i < n; i++) {
        kept += sphere_visible(&r->planes[0][0], placement_matrix(r, o, i), lod->sphere) ? 1u : 0u;
    }
    uint32_t clusters = 0;
    for (uint32_t i = 0; i < res->span_count; i++) {
        clusters += spans[i].cluster_count;
    }
    if (kept == 0) {
        r->placements_culled += n;
        return SLC_OK;
    }
    if (clusters > r->max_draws - r->draws) {
        return slc__rd_log(
            &r->log, SLC_E_CAPACITY,
            "render: frame %llu: object %u's %u cluster draws do not fit the draw list (%u of max_draws %u "
            "used)",
            (unsigned long long)r->frame, o, clusters, r->draws, r->max_draws);
    }
    if (kept > r->max_placements - r->placements) {
        return slc__rd_log(&r->log, SLC_E_CAPACITY,
                           "render: frame %llu: object %u's %u placements do not fit the placement list (%u of "
                           "max_placements %u used)",
                           (unsigned long long)r->frame, o, kept, r->placements, r->max_placements);
    }
    rd_slot *sl = &r->slots[r->slot];
    float *pl = (float *)(void *)(sl->host.map + r->off_placements);
    uint32_t first = r->placements;
    bool affine = true;
    for (uint32_t i = 0; i < n; i++) {
        const float *m = placement_matrix(r, o, i);
        if (sphere_visible(&r->planes[0][0], m, lod->sphere)) {
            memcpy(&pl[(size_t)r->placements * 16u], m, 16u * sizeof(float));
            r->placements++;
            affine = affine && m[3] == 0.0f && m[7] == 0.0f && m[11] == 0.0f && m[15] == 1.0f;
        }
    }
    r->placements_culled += n - kept;
    uint32_t info = RD_INFO_ATTRIBUTES(ob->attributes) | RD_INFO_PALETTE(rd_palette_index(o)) |
                    RD_INFO_LOD_COLOR(res->lod) | (res->lod > res->requested_lod ? RD_INFO_COARSER : 0u) |
                    RD_INFO_STRIDE(ob->vertex_stride / 4u) | (affine ? RD_INFO_AFFINE : 0u);
    rd_draw *dr = (rd_draw *)(void *)(sl->host.map + r->off_draws);
    for (uint32_t i = 0; i < res->span_count; i++) {
        const slc_stream_span *sp = &spans[i];
        for (uint32_t c = 0; c < sp->cluster_count; c++) {
            rd_draw *d = &dr[r->draws++];
            d->segment = sp->location.segment;
            d->page_word = (uint32_t)(sp->location.offset / 4u);
            d->cluster = (uint32_t)sp->first_cluster + c;
            d->object = o;
            d->placement = first;
            d->placement_count = kept;
            d->info = info | RD_INFO_SEGMENT(sp->location.segment);
            d->reserved = 0;
        }
    }
    return SLC_OK;
}

slc_status slc_render_record_cull(slc_render *r, VkCommandBuffer cmd)
{
    SLC_ASSERT(r != NULL && cmd != VK_NULL_HANDLE);
    if (!r->begun || r->culled) {
        return slc__rd_log(&r->log, SLC_E_INVALID, "render: slc_render_record_cull with no frame begun (or twice)");
    }
    rd_slot *sl = &r->slots[r->slot];
    ((rd_frame *)(void *)sl->host.map)->params[1] = r->draws;
    sl->draws = r->draws;
    sl->placements = r->placements;
    sl->placements_culled = r->placements_culled;
    if (r->timestamps) {
        r->d->vkCmdResetQueryPool(cmd, r->queries, 2u * r->slot, 2u);
        r->d->vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, r->queries, 2u * r->slot);
        sl->timed = true;
    }
    /* The staging belt's copies into pages and the host's writes of the
     * lists, visible to the cull pass and the vertex shader; and the slot's
     * previous use (retired, but ordered here too, so that the device need
     * not know how the host learnt it): its cull pass's writes and indirect
     * reads before this one's writes, its vertex shader's reads of the
     * draw list before this cull pass rewrites it, its copy into the
     * readback buffer before this one's. */
    VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    mb.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_HOST_WRITE_BIT | VK_ACCESS_SHADER_WRITE_BIT;
    mb.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_UNIFORM_READ_BIT |
                       VK_ACCESS_TRANSFER_WRITE_BIT;
    r->d->vkCmdPipelineBarrier(cmd,
                               VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_HOST_BIT |
                                   VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT |
                                   VK_PIPELINE_STAGE_VERTEX_SHADER_BIT,
                               VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_VERTEX_SHADER_BIT |
                                   VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                               0, 1, &mb, 0, NULL, 0, NULL);
    if (r->draws != 0) {
        r->d->vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, r->cull);
        r->d->vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, r->layout, 0, 1, &sl->set, 0, NULL);
        r->d->vkCmdDispatch(cmd, (r->draws + RD_LOCAL_SIZE - 1u) / RD_LOCAL_SIZE, 1, 1);
    }
    /* The commands and counters written, before the indirect draws read
     * them and the host reads the counters. */
    VkMemoryBarrier after = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    after.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
    after.dstAccessMask = VK_ACCESS_INDIRECT_COMMAND_READ_BIT | VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_HOST_READ_BIT;
    r->d->vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                               VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT | VK_PIPELINE_STAGE_VERTEX_SHADER_BIT |
                                   VK_PIPELINE_STAGE_HOST_BIT,
                               0, 1, &after, 0, NULL, 0, NULL);
    r->culled = true;
    return SLC_OK;
}

static void draw_all(slc_render *r, VkCommandBuffer cmd)
{
    rd_slot *sl = &r->slots[r->slot];
    VkViewport vp = {0.0f, 0.0f, (float)r->width, (float)r->height, 0.0f, 1.0f};
    VkRect2D sc = {{0, 0}, {r->width, r->height}};
    r->d->vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, r->draw);
    r->d->vkCmdSetViewport(cmd, 0, 1, &vp);
    r->d->vkCmdSetScissor(cmd, 0, 1, &sc);
    r->d->vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, r->layout, 0, 1, &sl->set, 0, NULL);
    if (r->draws == 0) {
        return;
    }
    if (r->multi_draw) {
        for (uint32_t base = 0; base < r->draws; base += r->max_indirect) {
            uint32_t n = r->draws - base < r->max_indirect ? r->draws - base : r->max_indirect;
            r->d->vkCmdPushConstants(cmd, r->layout, VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof base, &base);
            r->d->vkCmdDrawIndirect(cmd, sl->commands.buffer, (VkDeviceSize)base * sizeof(VkDrawIndirectCommand), n,
                                    sizeof(VkDrawIndirectCommand));
        }
        return;
    }
    for (uint32_t i = 0; i < r->draws; i++) {
        r->d->vkCmdPushConstants(cmd, r->layout, VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof i, &i);
        r->d->vkCmdDrawIndirect(cmd, sl->commands.buffer, (VkDeviceSize)i * sizeof(VkDrawIndirectCommand), 1,
                                sizeof(VkDrawIndirectCommand));
    }
}

static void end_frame(slc_render *r, VkCommandBuffer cmd)
{
    if (r->timestamps) {
        r->d->vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, r->queries, 2u * r->slot + 1u);
    }
    r->slots[r->slot].recorded = true;
    r->begun = false;
    r->culled = false;
}

slc_status slc_render_record_draws(slc_render *r, VkCommandBuffer cmd)
{
    SLC_ASSERT(r != NULL && cmd != VK_NULL_HANDLE);
    if (r->own_target) {
        return slc__rd_log(
            &r->log, SLC_E_INVALID,
            "render: slc_render_record_draws is for the application's render pass; this renderer owns its "
            "target (slc_render_record)");
    }
    if (!r->begun || !r->culled) {
        return slc__rd_log(&r->log, SLC_E_INVALID, "render: slc_render_record_draws before slc_render_record_cull");
    }
    draw_all(r, cmd);
    end_frame(r, cmd);
    return SLC_OK;
}

slc_status slc_render_record(slc_render *r, VkCommandBuffer cmd)
{
    SLC_ASSERT(r != NULL && cmd != VK_NULL_HANDLE);
    if (!r->own_target) {
        return slc__rd_log(
            &r->log, SLC_E_INVALID,
            "render: slc_render_record needs the renderer's own target; with the application's render pass "
            "call slc_render_record_cull and slc_render_record_draws");
    }
    slc_status s = slc_render_record_cull(r, cmd);
    if (s != SLC_OK) {
        return s;
    }
    rd_slot *sl = &r->slots[r->slot];
    VkClearValue clear[2];
    memset(clear, 0, sizeof clear);
    memcpy(clear[0].color.float32, r->clear, sizeof r->clear);
    clear[1].depthStencil.depth = 1.0f;
    VkRenderPassBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO};
    bi.renderPass = r->pass;
    bi.framebuffer = r->framebuffer;
    bi.renderArea.extent.width = r->width;
    bi.renderArea.extent.height = r->height;
    bi.clearValueCount = 2;
    bi.pClearValues = clear;
    slc__vk_label_begin(r->vk, cmd, "sluice render frame");
    r->d->vkCmdBeginRenderPass(cmd, &bi, VK_SUBPASS_CONTENTS_INLINE);
    draw_all(r, cmd);
    r->d->vkCmdEndRenderPass(cmd);
    slc__vk_label_end(r->vk, cmd);
    VkBufferImageCopy copy = {0};
    copy.imageSubresource.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
    copy.imageSubresource.layerCount = 1;
    copy.imageExtent.width = r->width;
    copy.imageExtent.height = r->height;
    copy.imageExtent.depth = 1;
    r->d->vkCmdCopyImageToBuffer(cmd, r->color.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, sl->readback.buffer, 1,
                                 &copy);
    VkBufferMemoryBarrier bb = {.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER};
    bb.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    bb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    bb.srcQueueFamilyIndex = bb.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    bb.buffer = sl->readback.buffer;
    bb.size = VK_WHOLE_SIZE;
    r->d->vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 0, NULL, 1, &bb, 0,
                               NULL);
    end_frame(r, cmd);
    return SLC_OK;
}

static slc_status retired_slot(slc_render *r, uint64_t frame, rd_slot **out)
{
    rd_slot *sl = &r->slots[frame % r->frames];
    if (frame == 0 || sl->frame != frame || !sl->recorded) {
        return slc__rd_log(&r->log, SLC_E_NOT_FOUND,
                           "render: frame %llu was not recorded, or its slot %u holds frame %llu now",
                           (unsigned long long)frame, (unsigned)(frame % r->frames), (unsigned long long)sl->frame);
    }
    uint64_t done = retired(r);
    if (done < frame) {
        return slc__rd_log(&r->log, SLC_E_FRAMES_IN_FLIGHT, "render: frame %llu has not retired (retired: %llu)",
                           (unsigned long long)frame, (unsigned long long)done);
    }
    *out = sl;
    return SLC_OK;
}

slc_status slc_render_get_frame(slc_render *r, uint64_t frame, slc_render_frame *out)
{
    SLC_ASSERT(r != NULL && out != NULL);
    rd_slot *sl = NULL; /* set by retired_slot when it returns SLC_OK */
    slc_status s = retired_slot(r, frame, &sl);
    if (s != SLC_OK) {
        return s;
    }
    memset(out, 0, sizeof *out);
    rd_counters c;
    memcpy(&c, sl->host.map + r->off_counters, sizeof c);
    out->frame = frame;
    out->draws = sl->draws;
    out->placements = sl->placements;
    out->placements_culled = sl->placements_culled;
    out->clusters_drawn = c.kept;
    out->triangles = ((uint64_t)c.triangles_hi << 32) | c.triangles_lo;
    out->texture_chunks = sl->texture_chunks;
    if (sl->timed) {
        uint64_t t[2];
        uint32_t slot = (uint32_t)(frame % r->frames);
        VkResult res = r->d->vkGetQueryPoolResults(r->device, r->queries, 2u * slot, 2u, sizeof t, t, sizeof t[0],
                                                   VK_QUERY_RESULT_64_BIT);
        if (res == VK_SUCCESS) {
            uint64_t ticks = (t[1] - t[0]) & r->timestamp_mask;
            out->gpu_ns = (uint64_t)((double)ticks * r->timestamp_period + 0.5);
            out->timed = true;
        }
    }
    return SLC_OK;
}

slc_status slc_render_read(slc_render *r, uint64_t frame, slc_render_image *out)
{
    SLC_ASSERT(r != NULL && out != NULL);
    if (!r->own_target) {
        return slc__rd_log(&r->log, SLC_E_INVALID, "render: slc_render_read needs the renderer's own target");
    }
    rd_slot *sl = NULL; /* set by retired_slot when it returns SLC_OK */
    slc_status s = retired_slot(r, frame, &sl);
    if (s != SLC_OK) {
        return s;
    }
    out->width = r->width;
    out->height = r->height;
    out->stride = (size_t)r->width * 4u;
    out->rgba = sl->readback.map;
    return SLC_OK;
}
