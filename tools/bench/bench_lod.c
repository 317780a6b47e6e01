/* SPDX-License-Identifier: MIT */
/* sluice bench lod: what each level of detail looks like against level 0,
 * rendered, and whether the level the stream would serve is as close to
 * level 0 on screen as the screen-space error promises.
 *
 * Input. A pack, or a glTF file (.gltf or .glb), packed first into a
 * temporary pack (removed at exit) by `sluice pack` itself (cmd_pack, its
 * default options, --quiet), so the levels are the ones a user's pack has.
 *
 * Drawing. Each level is drawn alone by the reference renderer
 * (sluice/render.h) into its own target, offscreen, on the Vulkan backend,
 * from the page pool of a stream: the stream runs under the reference
 * profile of --profile for the pack (quality_reference_profile: a pool of
 * every chunk, every level pinned), so a request for (object, level) is
 * served at exactly that level, and each image is what `sluice render`
 * draws for it (the same shaders, vertex pulling, no face culled). That is
 * the renderer the levels are served to, and it needs no drawing code
 * here; a frame is one request, drawn once it resolves to the level asked
 * for, read back and waited for before the next (no workers: loads run on
 * the caller's thread).
 *
 * Views. VIEWS fixed views around the sphere that holds every placement of
 * the object (camera_object_bounds): from the eight corner directions
 * (+-1, +-1, +-1) / sqrt(3), each looking at the sphere's centre, at the
 * distance where the sphere just fills the narrower field of view (60
 * degrees vertical), shaded as `sluice render` shades, on a black
 * background (a shaded pixel is never black: the light has an ambient
 * term). A pixel is covered when it is not the background.
 *
 * Figures, per level: triangles and the recorded error (slc_pack_lod);
 * coverage, the pixels covered over all views as a ratio to level 0's;
 * PSNR, the luminance PSNR (quality_compare) of the views stacked into one
 * image against level 0's (+inf: identical); mask px, the largest over the
 * views of the two-sided Hausdorff distance in pixels between the level's
 * coverage mask and level 0's (each covered pixel's distance to the nearest
 * covered pixel of the other mask, by exact Euclidean distance transforms;
 * inf when one mask is empty and the other is not; a pixel covered alone,
 * a feature thinner than a pixel, is no source of it: mask_distance.h).
 *
 * The screen-space error check, per view: the level the stream would ask
 * for at --sse pixels, by the rule of tools/camera.c (camera_choose_lod:
 * recorded error * the placements' largest scale * pixels a unit at the
 * distance from the eye to the bounding sphere <= sse), and its mask
 * distance to level 0 against --sse. --check fails the command (exit 1,
 * each failure named on stderr) when a chosen level's mask distance exceeds
 * --sse, or when the coarsest level's coverage differs from level 0's by
 * more than --coverage-tol (default 0.05: 5% of level 0's pixels).
 *
 * Deterministic: the same input gives the same output (the images too).
 * --sheet writes a contact sheet (png_write.h, through a temporary renamed
 * over the file): one row per object and view, its levels from 0 left to
 * right, a grey cell where an object has fewer levels than the row has
 * columns. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "bench.h"
#include "camera.h"
#include "cli.h"
#include "escape.h"
#include "mask_distance.h"
#include "png_write.h"
#include "quality.h"
#include "run.h"
#include "session.h"

#define USAGE                                                                                               \
    "usage: sluice bench lod PACK|GLTF [--object N] [--size WxH] [--sse PX] [--check] [--coverage-tol F]\n" \
    "                        [--sheet FILE] [--json] [--profile FILE] [--validate]\n"
#define ME "sluice bench lod"

#ifndef SLUICE_HAVE_RENDER

int bench_lod(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        fputs(USAGE "\nThis build has no renderer (SLUICE_VULKAN=OFF): the benchmark cannot run.\n", stdout);
        return CLI_OK;
    }
    fprintf(stderr, ME ": this build has no renderer (it needs the Vulkan backend: SLUICE_VULKAN=ON)\n");
    return CLI_FAILED;
}

#else

#include "bench_vk.h"
#include "sluice/render.h"
#include "sluice/stream.h"
#include "sluice/vulkan.h"

#define VIEWS 8u /* the corner directions */
enum { SIZE_MAX_SIDE = 4096, SETTLE_FRAMES_MAX = 10000 };
#define FOV_DEG 60.0f
#define COVERAGE_TOL_DEFAULT 0.05
#define WAIT_NS (60ull * 1000000000ull)

static const char *const view_names[VIEWS] = {"-x-y-z", "+x-y-z", "-x+y-z", "+x+y-z",
                                              "-x-y+z", "+x-y+z", "-x+y+z", "+x+y+z"};

typedef struct opts {
    const char *input;
    const char *size;
    const char *sheet;
    const char *profile_path;
    uint64_t object;
    int object_set;
    double sse, coverage_tol;
    int check, json, validate;
    uint32_t width, height;
} opts;

/* --- the temporary pack of a glTF input, removed at exit ------------------------------ */

static char tmp_dir[4096];
static char tmp_pack[4200];

static void remove_tmp(void)
{
    if (tmp_pack[0] != '\0') {
        (void)unlink(tmp_pack);
    }
    if (tmp_dir[0] != '\0') {
        (void)rmdir(tmp_dir);
    }
    tmp_pack[0] = tmp_dir[0] = '\0';
}

/* 1 when path names a glTF file (.gltf or .glb, any case). */
static int is_gltf(const char *path)
{
    size_t n = strlen(path);
    return (n >= 5 && strcasecmp(path + n - 5, ".gltf") == 0) || (n >= 4 && strcasecmp(path + n - 4, ".glb") == 0);
}

/* Packs the glTF at in as `sluice pack IN -o TMP --quiet` does; *out the pack. */
static int pack_gltf(const char *in, const char **out)
{
    int rc = bench_tmp_dir(ME, "sluice-bench-lod", tmp_dir, sizeof tmp_dir, remove_tmp);
    if (rc != CLI_OK) {
        return rc;
    }
    snprintf(tmp_pack, sizeof tmp_pack, "%s/input.pack", tmp_dir);
    char *args[] = {(char *)"--quiet", (char *)in, (char *)"-o", tmp_pack, NULL};
    rc = cmd_pack(4, args);
    if (rc != CLI_OK) {
        fprintf(stderr, ME ": %s: could not be packed (see above)\n", in);
        return rc;
    }
    *out = tmp_pack;
    return CLI_OK;
}

/* --- the rig: reference profile, Vulkan backend, stream, renderer ------------------------ */

typedef struct rig {
    slc_profile prof;          /* the reference profile of the base one */
    slc_render_profile render; /* its renderer's lists (quality_reference_profile) */
    tool_session ses;
    bench_vk bvk; /* the backend, closed by the session */
    slc_stream *s;
    slc_stream_span *spans;
    uint32_t span_cap;
    void *ren_mem;
    slc_render *ren;
    VkCommandPool pool;
    VkCommandBuffer cmd;
    uint64_t frame;
    uint32_t width, height;
} rig;

static run_validation validation = {ME, 0}; /* --validate */

static void rig_close(rig *r)
{
    if (r->ren != NULL) {
        slc_render_deinit(r->ren); /* waits for the device */
    }
    free(r->ren_mem);
    if (r->pool != VK_NULL_HANDLE) {
        (void)r->bvk.t->vkQueueWaitIdle(r->bvk.info.queue);
        r->bvk.t->vkDestroyCommandPool(r->bvk.info.device, r->pool, r->bvk.alloc);
    }
    tool_session_close(&r->ses); /* the stream, the backend (bench_vk's), the pack, the memory */
    free(r->spans);
    memset(r, 0, sizeof *r);
}

/* Prints why session step failed (what the session does not print itself). */
static int session_failed(const rig *r, tool_session_step step, const slc_profile *p)
{
    if (step == TOOL_SESSION_LAYOUT) {
        fprintf(stderr, ME ": profile '%s': its memory block cannot be laid out (%s)\n", p->name,
                slc_status_name(r->ses.status));
    }
    return step == TOOL_SESSION_FILE ? CLI_IO : CLI_FAILED;
}

/* The reference profile of base for the pack at path (opened once under
 * base to read its figures), into r->prof. */
static int reference_profile(rig *r, const slc_profile *base, const tool_session_desc *sesd, const opts *o)
{
    tool_session_step step = tool_session_open(sesd, &r->ses);
    if (step != TOOL_SESSION_OPEN) {
        int rc = session_failed(r, step, base);
        tool_session_close(&r->ses);
        return rc;
    }
    const uint32_t objects = slc_pack_get_header(r->ses.pack)->object_count;
    int rc = CLI_OK;
    char msg[512];
    if (o->object_set && o->object >= objects) {
        fprintf(stderr, ME ": %s: --object %llu: the pack has %u object%s (0..%u)\n", o->input,
                (unsigned long long)o->object, objects, objects == 1 ? "" : "s", objects ? objects - 1u : 0u);
        rc = CLI_USAGE;
    } else if (quality_reference_profile(base, r->ses.pack, sesd->pack_name, slc_pack_scratch_size(r->ses.pack), 0,
                                         &r->prof, &r->render, msg, sizeof msg) != 0) {
        fprintf(stderr, ME ": %s\n", msg);
        rc = CLI_FAILED;
    }
    tool_session_close(&r->ses);
    return rc;
}

static int vk_fail(const char *what, VkResult res)
{
    fprintf(stderr, ME ": %s: %s\n", what, slc_vulkan_result_name(res));
    return CLI_FAILED;
}

/* Opens everything for the pack at path. Prints why and returns an exit
 * code on failure (r to be closed either way). */
static int rig_open(rig *r, const opts *o, const slc_profile *base, const char *path)
{
    memset(r, 0, sizeof *r);
    r->width = o->width;
    r->height = o->height;
    const char *slash = strrchr(path, '/');
    tool_session_desc sesd = {.me = ME,
                              .profile = base,
                              .pack_path = path,
                              .file_flags = SLC_PLATFORM_FILE_PREAD,
                              .pack_name = slash != NULL ? slash + 1 : path};
    int rc = reference_profile(r, base, &sesd, o);
    if (rc != CLI_OK) {
        return rc;
    }
    r->prof.workers = 0;
    sesd.profile = &r->prof;
    tool_session_step step = tool_session_open(&sesd, &r->ses);
    if (step != TOOL_SESSION_OPEN) {
        return session_failed(r, step, &r->prof);
    }
    const slc_pack_header *h = slc_pack_get_header(r->ses.pack);
    r->span_cap = h->span_count ? h->span_count : 1u;
    r->spans = calloc(r->span_cap, sizeof *r->spans);
    if (r->spans == NULL) {
        fprintf(stderr, ME ": out of memory\n");
        return CLI_FAILED;
    }
    if (bench_vk_open(&r->bvk, &r->ses, &r->prof, o->validate ? &validation : NULL, ME) != CLI_OK) {
        return CLI_FAILED;
    }
    slc_status st;
    r->s = r->ses.stream;

    /* The renderer: lists for any one object at its largest level (the
     * reference profile's), charged to no budget (a benchmark). */
    slc_render_desc rd;
    memset(&rd, 0, sizeof rd);
    slc_render_desc_from_profile(&rd, &r->render);
    rd.width = r->width;
    rd.height = r->height;
    rd.log = cli_stderr_logger;
    const size_t fp = slc_render_footprint(&rd, r->ses.pack);
    if (fp == 0) {
        fprintf(stderr, ME ": the renderer refuses %ux%u\n", r->width, r->height);
        return CLI_FAILED;
    }
    r->ren_mem = aligned_alloc(SLC_RENDER_ALIGN, (fp + SLC_RENDER_ALIGN - 1u) & ~(size_t)(SLC_RENDER_ALIGN - 1u));
    st = r->ren_mem != NULL ? slc_render_init(r->ren_mem, fp, &rd, r->bvk.vk, r->ses.pack, &r->ren) : SLC_E_CAPACITY;
    if (st != SLC_OK) {
        r->ren = NULL;
        fprintf(stderr, ME ": the renderer cannot start at %ux%u (%s; see above)\n", r->width, r->height,
                slc_status_name(st));
        return CLI_FAILED;
    }
    const VkCommandPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                        .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                        .queueFamilyIndex = r->bvk.info.queue_family};
    VkResult res = r->bvk.t->vkCreateCommandPool(r->bvk.info.device, &pi, r->bvk.alloc, &r->pool);
    if (res != VK_SUCCESS) {
        r->pool = VK_NULL_HANDLE;
        return vk_fail("vkCreateCommandPool", res);
    }
    const VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                            .commandPool = r->pool,
                                            .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                            .commandBufferCount = 1};
    if ((res = r->bvk.t->vkAllocateCommandBuffers(r->bvk.info.device, &ai, &r->cmd)) != VK_SUCCESS) {
        return vk_fail("vkAllocateCommandBuffers", res);
    }
    return CLI_OK;
}

/* Ends the begun frame with nothing drawn, waiting for it to retire. */
static int retire(rig *r)
{
    if (slc_vulkan_end_frame(r->bvk.vk, r->frame) != SLC_OK ||
        slc_vulkan_wait_frame(r->bvk.vk, r->frame, WAIT_NS) != SLC_OK) {
        fprintf(stderr, ME ": frame %llu did not retire\n", (unsigned long long)r->frame);
        return CLI_FAILED;
    }
    slc_stream_stats ss;
    slc_stream_get_stats(r->s, &ss);
    if (ss.failures > 0) {
        fprintf(stderr, ME ": %llu chunk loads failed\n", (unsigned long long)ss.failures);
        return CLI_FAILED;
    }
    return CLI_OK;
}

/* Draws the view's frame of the request's result (spans in r->spans) and
 * copies its pixels into out (width * height * 4 bytes, rows top first). */
static int draw(rig *r, const slc_stream_result *res, const camera_view *view, uint8_t *out)
{
    slc_render_view v;
    memset(&v, 0, sizeof v);
    memcpy(v.view_proj, view->view_proj, sizeof v.view_proj);
    memcpy(v.eye, view->eye, sizeof v.eye);
    v.tint = SLC_RENDER_TINT_NONE;
    v.flags = SLC_RENDER_VIEW_TWO_SIDED; /* silhouettes: a single-sided surface seen from behind is geometry too */
    v.clear[3] = 1.0f;                   /* black: never a shaded pixel's colour */
    slc_status st = slc_render_begin(r->ren, r->frame, &v);
    if (st == SLC_OK) {
        st = slc_render_add(r->ren, res, r->spans);
    }
    if (st != SLC_OK) {
        fprintf(stderr, ME ": object %u level %u: the renderer refused it (%s)\n", res->object.index, res->lod,
                slc_status_name(st));
        return CLI_FAILED;
    }
    const struct VolkDeviceTable *t = r->bvk.t;
    const VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                         .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    VkResult vr = t->vkResetCommandBuffer(r->cmd, 0);
    if (vr != VK_SUCCESS || (vr = t->vkBeginCommandBuffer(r->cmd, &bi)) != VK_SUCCESS) {
        return vk_fail("vkBeginCommandBuffer", vr);
    }
    if ((st = slc_render_record(r->ren, r->cmd)) != SLC_OK) {
        (void)t->vkEndCommandBuffer(r->cmd);
        fprintf(stderr, ME ": the renderer cannot record a frame (%s)\n", slc_status_name(st));
        return CLI_FAILED;
    }
    if ((vr = t->vkEndCommandBuffer(r->cmd)) != VK_SUCCESS) {
        return vk_fail("vkEndCommandBuffer", vr);
    }
    const VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
                             .commandBufferCount = 1,
                             .pCommandBuffers = &r->cmd};
    if ((vr = t->vkQueueSubmit(r->bvk.info.queue, 1, &si, VK_NULL_HANDLE)) != VK_SUCCESS) {
        return vk_fail("vkQueueSubmit", vr);
    }
    if (retire(r) != CLI_OK) {
        return CLI_FAILED;
    }
    slc_render_image img;
    if ((st = slc_render_read(r->ren, r->frame, &img)) != SLC_OK || img.width != r->width || img.height != r->height) {
        fprintf(stderr, ME ": the image cannot be read back (%s)\n", slc_status_name(st));
        return CLI_FAILED;
    }
    for (uint32_t y = 0; y < r->height; y++) {
        memcpy(out + (size_t)y * r->width * 4u, img.rgba + (size_t)y * img.stride, (size_t)r->width * 4u);
    }
    return CLI_OK;
}

/* One frame asking for (object, level), repeated until the stream serves
 * exactly that level, then drawn from view into out. */
static int render_level(rig *r, uint32_t object, uint32_t level, const camera_view *view, uint8_t *out)
{
    for (uint32_t f = 0; f < SETTLE_FRAMES_MAX; f++) {
        slc_status st = slc_stream_begin_frame(r->s, &r->frame);
        const slc_stream_object_request q = {.object = {object}, .lod = (uint8_t)level, .priority = 255};
        if (st == SLC_OK) {
            st = slc_stream_request(r->s, &q);
        }
        if (st == SLC_OK) {
            st = slc_stream_end_frame(r->s);
        }
        slc_stream_result res;
        if (st == SLC_OK) {
            st = slc_stream_resident(r->s, 0, &res, r->spans, r->span_cap);
        }
        if (st != SLC_OK) {
            fprintf(stderr, ME ": object %u level %u: frame %llu: %s\n", object, level, (unsigned long long)r->frame,
                    slc_status_name(st));
            return CLI_FAILED;
        }
        if (res.lod == level) {
            return draw(r, &res, view, out);
        }
        if (retire(r) != CLI_OK) {
            return CLI_FAILED;
        }
    }
    fprintf(stderr, ME ": object %u level %u did not become resident in %d frames\n", object, level, SETTLE_FRAMES_MAX);
    return CLI_FAILED;
}

/* --- measuring an object ---------------------------------------------------------------- */

typedef struct level_fig {
    uint32_t triangles;
    float error;
    uint64_t covered;
    double coverage; /* covered / level 0's; 1 when neither covers a pixel */
    double psnr_db;  /* +INFINITY: identical */
    double mask_px;  /* largest over the views */
} level_fig;

typedef struct view_fig {
    uint32_t level;    /* the level the rule chooses */
    double sse_px;     /* its recorded error on screen */
    double mask_px;    /* its mask distance to level 0 */
    double coarse_cov; /* the coarsest level's coverage of this view against level 0's */
} view_fig;

typedef struct object_fig {
    uint32_t object;
    const char *name; /* NULL: unnamed */
    float radius, distance, scale;
    uint32_t levels;
    level_fig *lv;       /* levels */
    view_fig vw[VIEWS];  /* the check */
    int coverage_holds;  /* the coarsest level's coverage within the tolerance */
    uint32_t views_fail; /* views whose chosen level is over the threshold */
} object_fig;

typedef struct work {
    uint32_t w, h;
    size_t view_bytes;     /* w * h * 4 */
    size_t view_pixels;    /* w * h */
    uint8_t **img;         /* per level: VIEWS views, stacked */
    uint32_t img_levels;   /* levels img holds */
    uint8_t *mask0, *mask; /* VIEWS masks each */
    double *dt0, *dt;      /* VIEWS transforms, one */
    mask_scratch s;
} work;

static void work_free(work *k)
{
    for (uint32_t l = 0; l < k->img_levels; l++) {
        free(k->img[l]);
    }
    free(k->img);
    free(k->mask0);
    free(k->mask);
    free(k->dt0);
    free(k->dt);
    free(k->s.f);
    free(k->s.d);
    free(k->s.z);
    free(k->s.v);
    memset(k, 0, sizeof *k);
}

static int work_init(work *k, uint32_t w, uint32_t h, uint32_t max_levels)
{
    memset(k, 0, sizeof *k);
    k->w = w;
    k->h = h;
    k->view_pixels = (size_t)w * h;
    k->view_bytes = k->view_pixels * 4u;
    const size_t line = (w > h ? w : h) + 1u;
    k->img = calloc(max_levels, sizeof *k->img);
    k->mask0 = malloc(k->view_pixels * VIEWS);
    k->mask = malloc(k->view_pixels * VIEWS);
    k->dt0 = malloc(sizeof(double) * k->view_pixels * VIEWS);
    k->dt = malloc(sizeof(double) * k->view_pixels);
    k->s.f = malloc(sizeof(double) * line);
    k->s.d = malloc(sizeof(double) * line);
    k->s.z = malloc(sizeof(double) * (line + 1u));
    k->s.v = malloc(sizeof(uint32_t) * line);
    int ok = k->img != NULL && k->mask0 != NULL && k->mask != NULL && k->dt0 != NULL && k->dt != NULL &&
             k->s.f != NULL && k->s.d != NULL && k->s.z != NULL && k->s.v != NULL;
    for (uint32_t l = 0; ok && l < max_levels; l++) {
        k->img[l] = malloc(k->view_bytes * VIEWS);
        ok = k->img[l] != NULL;
        k->img_levels += ok;
    }
    if (!ok) {
        work_free(k);
        fprintf(stderr, ME ": out of memory for %u levels of %u images of %ux%u\n", max_levels, VIEWS, w, h);
        return CLI_FAILED;
    }
    return CLI_OK;
}

/* Covered pixels of an image (not the black background) into mask; their count. */
static uint64_t cover(const uint8_t *rgba, size_t pixels, uint8_t *mask)
{
    uint64_t n = 0;
    for (size_t i = 0; i < pixels; i++) {
        mask[i] = (rgba[i * 4u] | rgba[i * 4u + 1u] | rgba[i * 4u + 2u]) != 0;
        n += mask[i];
    }
    return n;
}

/* The views of an object: eye on each corner direction at dist from c,
 * looking at c. */
static void object_view(const float c[3], float radius, float dist, uint32_t i, float aspect, camera_view *out)
{
    const float u = 0.57735027f; /* 1 / sqrt(3) */
    const float dir[3] = {(i & 1u) ? u : -u, (i & 2u) ? u : -u, (i & 4u) ? u : -u};
    const float eye[3] = {c[0] + dir[0] * dist, c[1] + dir[1] * dist, c[2] + dir[2] * dist};
    const float look[3] = {-dir[0], -dir[1], -dir[2]};
    camera_look_along(eye, look, FOV_DEG, aspect, 0.5f * (dist - radius), (dist + radius) * 1.01f, out);
}

static double ratio(uint64_t a, uint64_t b)
{
    return b > 0 ? (double)a / (double)b : (a > 0 ? INFINITY : 1.0);
}

/* Renders and measures every level of object o into fig. */
static int measure_object(rig *r, const opts *o, work *k, uint32_t object, object_fig *fig)
{
    const slc_pack *pack = r->ses.pack;
    const slc_pack_object *ob = slc_pack_get_object(pack, (slc_object_id){object});
    fig->object = object;
    fig->name = ob->name != SLC_PACK_NO_NAME ? slc_pack_get_string(pack, ob->name) : NULL;
    fig->levels = ob->lod_count;
    float c[3];
    if (camera_object_bounds(pack, object, c, &fig->radius, &fig->scale) != 0) {
        fig->levels = 0; /* placed nowhere: nothing to draw */
        return CLI_OK;
    }
    fig->radius = fmaxf(fig->radius, 1e-6f);
    const float aspect = (float)k->w / (float)k->h;
    const float fov = FOV_DEG * 3.14159265f / 180.0f;
    const float tan_half = tanf(0.5f * fov);
    const float fov_h = 2.0f * atanf(tan_half * aspect);
    const float dist = fig->radius / sinf(0.5f * fminf(fov, fov_h));
    fig->distance = dist;
    camera_view views[VIEWS];
    for (uint32_t v = 0; v < VIEWS; v++) {
        object_view(c, fig->radius, dist, v, aspect, &views[v]);
    }
    for (uint32_t l = 0; l < fig->levels; l++) {
        const slc_pack_lod *lod = slc_pack_get_lod(pack, ob->first_lod + l);
        level_fig *f = &fig->lv[l];
        f->triangles = lod->triangle_count;
        f->error = lod->error;
        uint8_t *img = k->img[l];
        for (uint32_t v = 0; v < VIEWS; v++) {
            int rc = render_level(r, object, l, &views[v], img + k->view_bytes * v);
            if (rc != CLI_OK) {
                return rc;
            }
        }
        uint8_t *mask = l == 0 ? k->mask0 : k->mask;
        f->covered = cover(img, k->view_pixels * VIEWS, mask);
        f->coverage = ratio(f->covered, fig->lv[0].covered);
        const quality_image a = {k->w, k->h * VIEWS, k->view_bytes / k->h, img};
        const quality_image b = {k->w, k->h * VIEWS, k->view_bytes / k->h, k->img[0]};
        quality_frame qf;
        (void)quality_compare(&a, &b, QUALITY_DIFF_THRESHOLD_DEFAULT, &qf); /* the sizes match */
        f->psnr_db = qf.psnr_db;
        f->mask_px = 0;
        for (uint32_t v = 0; v < VIEWS; v++) {
            const size_t at = k->view_pixels * v;
            double *dt = l == 0 ? k->dt0 + at : k->dt;
            mask_transform(mask + at, k->w, k->h, dt, &k->s);
            const double d = fmax(mask_directed(k->mask0 + at, k->w, k->h, dt),
                                  mask_directed(mask + at, k->w, k->h, k->dt0 + at));
            f->mask_px = fmax(f->mask_px, d);
            if (l + 1u == fig->levels) {
                uint64_t c0 = 0, cl = 0;
                for (size_t i = 0; i < k->view_pixels; i++) {
                    c0 += k->mask0[at + i];
                    cl += mask[at + i];
                }
                fig->vw[v].coarse_cov = ratio(cl, c0);
            }
            /* The level the rule serves from this view: distance from the
             * eye to the bounding sphere is dist - radius. */
            const float ppu = camera_pixels_per_unit((float)k->h, dist - fig->radius, tan_half);
            const uint32_t chosen = camera_choose_lod(pack, ob, fig->scale, ppu, (float)o->sse);
            if (chosen == l) {
                fig->vw[v].level = l;
                fig->vw[v].sse_px = (double)lod->error * fig->scale * ppu;
                fig->vw[v].mask_px = d;
                fig->views_fail += d > o->sse;
            }
        }
    }
    fig->coverage_holds = fig->levels == 0 || fabs(fig->lv[fig->levels - 1u].coverage - 1.0) <= o->coverage_tol;
    return CLI_OK;
}

/* --- output --------------------------------------------------------------------------------- */

static const char *num(double v, const char *fmt, char *buf, size_t cap)
{
    if (isinf(v)) {
        return "inf";
    }
    snprintf(buf, cap, fmt, v);
    return buf;
}

static void json_num(FILE *f, double v, const char *fmt)
{
    if (isinf(v) || isnan(v)) {
        fputs("null", f);
    } else {
        fprintf(f, fmt, v);
    }
}

static void print_object(const object_fig *g, const opts *o)
{
    char a[32], b[32], c[32];
    printf("object %u '%s': %u level%s, bounding sphere radius %.6g, views at distance %.6g, scale %.6g\n", g->object,
           g->name != NULL ? g->name : "", g->levels, g->levels == 1 ? "" : "s", (double)g->radius, (double)g->distance,
           (double)g->scale);
    if (g->levels == 0) {
        printf("  placed nowhere: nothing drawn\n");
        return;
    }
    printf("  level  triangles         error  coverage   PSNR dB   mask px\n");
    for (uint32_t l = 0; l < g->levels; l++) {
        const level_fig *f = &g->lv[l];
        printf("  %5u  %9u  %12.6g  %8s  %8s  %8s\n", l, f->triangles, (double)f->error,
               num(f->coverage, "%.4f", a, sizeof a), num(f->psnr_db, "%.2f", b, sizeof b),
               num(f->mask_px, "%.2f", c, sizeof c));
    }
    printf("  view  direction  level    sse px   mask px  (threshold %.6g px)\n", o->sse);
    for (uint32_t v = 0; v < VIEWS; v++) {
        const view_fig *w = &g->vw[v];
        printf("  %4u  %-9s  %5u  %8.4f  %8s  %s\n", v, view_names[v], w->level, w->sse_px,
               num(w->mask_px, "%.2f", a, sizeof a), w->mask_px <= o->sse ? "ok" : "over");
    }
    printf("  coarsest level's coverage %s of level 0's: %s (tolerance %.6g)\n",
           num(g->lv[g->levels - 1u].coverage, "%.4f", a, sizeof a), g->coverage_holds ? "ok" : "off", o->coverage_tol);
}

static void json_object(FILE *f, const object_fig *g, const opts *o, int first)
{
    fprintf(f, "%s\n    {\"object\": %u, \"name\": ", first ? "" : ",", g->object);
    esc_json(f, g->name);
    fprintf(f, ", \"radius\": %.9g, \"distance\": %.9g, \"scale\": %.9g, \"levels\": [", (double)g->radius,
            (double)g->distance, (double)g->scale);
    for (uint32_t l = 0; l < g->levels; l++) {
        const level_fig *v = &g->lv[l];
        fprintf(f, "%s{\"level\": %u, \"triangles\": %u, \"error\": %.9g, \"covered_pixels\": %llu, \"coverage\": ",
                l ? ", " : "", l, v->triangles, (double)v->error, (unsigned long long)v->covered);
        json_num(f, v->coverage, "%.6f");
        fputs(", \"psnr_db\": ", f);
        json_num(f, v->psnr_db, "%.4f");
        fputs(", \"mask_px\": ", f);
        json_num(f, v->mask_px, "%.4f");
        fputc('}', f);
    }
    fputs("],\n     \"views\": [", f);
    for (uint32_t v = 0; g->levels > 0 && v < VIEWS; v++) {
        const view_fig *w = &g->vw[v];
        fprintf(f, "%s{\"view\": %u, \"direction\": ", v ? ", " : "", v);
        esc_json(f, view_names[v]);
        fprintf(f, ", \"level\": %u, \"sse_px\": %.6f, \"mask_px\": ", w->level, w->sse_px);
        json_num(f, w->mask_px, "%.4f");
        fprintf(f, ", \"holds\": %s, \"coarsest_coverage\": ", w->mask_px <= o->sse ? "true" : "false");
        json_num(f, w->coarse_cov, "%.6f");
        fputc('}', f);
    }
    fprintf(f, "],\n     \"coverage_holds\": %s}", g->levels == 0 || g->coverage_holds ? "true" : "false");
}

/* Names each failure of g's check on stderr; their count. */
static uint32_t report_failures(const object_fig *g, const opts *o)
{
    uint32_t n = 0;
    char a[32], b[32];
    const char *name = g->name != NULL ? g->name : "";
    for (uint32_t v = 0; g->levels > 0 && v < VIEWS; v++) {
        const view_fig *w = &g->vw[v];
        if (w->mask_px > o->sse) {
            fprintf(stderr,
                    ME ": check: object %u '%s', view %u (%s): level %u (screen-space error %.4f px) differs from "
                       "level 0 by %s px, over the threshold of %.6g px\n",
                    g->object, name, v, view_names[v], w->level, w->sse_px, num(w->mask_px, "%.2f", a, sizeof a),
                    o->sse);
            n++;
        }
    }
    if (g->levels > 0 && !g->coverage_holds) {
        fprintf(stderr,
                ME ": check: object %u '%s': coarsest level %u covers %s of level 0's pixels (%s), off by more than "
                   "the tolerance of %.6g\n",
                g->object, name, g->levels - 1u, num(g->lv[g->levels - 1u].coverage, "%.4f", a, sizeof a),
                num((double)g->lv[g->levels - 1u].covered, "%.0f", b, sizeof b), o->coverage_tol);
        n++;
    }
    return n;
}

/* Adds g's rows to the sheet: a row a view, its levels left to right, grey
 * past the last. */
static int sheet_rows(png_sheet *sh, const work *k, const object_fig *g, uint8_t *grey)
{
    for (uint32_t v = 0; g->levels > 0 && v < VIEWS; v++) {
        for (uint32_t l = 0; l < sh->columns; l++) {
            const uint8_t *px = l < g->levels ? k->img[l] + k->view_bytes * v : grey;
            if (png_sheet_add(sh, px, k->w, k->h, (size_t)k->w * 4u) != 0) {
                fprintf(stderr, ME ": out of memory for the contact sheet\n");
                return CLI_FAILED;
            }
        }
    }
    return CLI_OK;
}

/* Measures the chosen objects of the pack at path and reports them. */
static int bench_pack(const opts *o, const slc_profile *base, const char *path)
{
    static rig r;
    int rc = rig_open(&r, o, base, path);
    const slc_pack *pack = r.ses.pack;
    const uint32_t objects = rc == CLI_OK ? slc_pack_get_header(pack)->object_count : 0;
    const uint32_t first = o->object_set ? (uint32_t)o->object : 0u;
    const uint32_t end = o->object_set ? first + 1u : objects;
    uint32_t max_levels = 1;
    for (uint32_t i = first; rc == CLI_OK && i < end; i++) {
        const uint32_t n = slc_pack_get_object(pack, (slc_object_id){i})->lod_count;
        max_levels = n > max_levels ? n : max_levels;
    }
    work k;
    memset(&k, 0, sizeof k);
    png_sheet sh;
    memset(&sh, 0, sizeof sh);
    uint8_t *grey = NULL;
    level_fig *lv = NULL;
    if (rc == CLI_OK) {
        rc = work_init(&k, o->width, o->height, max_levels);
    }
    if (rc == CLI_OK) {
        lv = calloc(max_levels, sizeof *lv);
        grey = malloc(k.view_bytes);
        if (lv == NULL || grey == NULL ||
            (o->sheet != NULL && png_sheet_init(&sh, o->width, o->height, max_levels, (end - first) * VIEWS) != 0)) {
            fprintf(stderr, ME ": out of memory\n");
            rc = CLI_FAILED;
        } else {
            memset(grey, 64, k.view_bytes);
        }
    }
    if (rc == CLI_OK) {
        if (o->json) {
            printf("{\"bench\": \"lod\", \"input\": ");
            esc_json(stdout, o->input);
            printf(", \"width\": %u, \"height\": %u, \"views\": %u, \"fov_deg\": %.6g, \"sse_px\": %.6g, "
                   "\"coverage_tol\": %.6g, \"validation\": %s,\n \"objects\": [",
                   o->width, o->height, VIEWS, (double)FOV_DEG, o->sse, o->coverage_tol,
                   o->validate ? "true" : "false");
        } else {
            printf("bench lod: %s: %u object%s, %u views at %ux%u (fov %.0f degrees), sse %.6g px, coverage "
                   "tolerance %.6g\n",
                   o->input, end - first, end - first == 1 ? "" : "s", VIEWS, o->width, o->height, (double)FOV_DEG,
                   o->sse, o->coverage_tol);
        }
    }
    uint32_t failures = 0;
    for (uint32_t i = first; rc == CLI_OK && i < end; i++) {
        object_fig g;
        memset(&g, 0, sizeof g);
        memset(lv, 0, sizeof *lv * max_levels);
        g.lv = lv;
        rc = measure_object(&r, o, &k, i, &g);
        if (rc != CLI_OK) {
            break;
        }
        if (o->json) {
            json_object(stdout, &g, o, i == first);
        } else {
            print_object(&g, o);
        }
        if (o->check) {
            failures += report_failures(&g, o);
        }
        if (o->sheet != NULL) {
            rc = sheet_rows(&sh, &k, &g, grey);
        }
    }
    if (rc == CLI_OK && o->json) {
        printf("\n ],\n \"check\": ");
        if (o->check) {
            printf("{\"holds\": %s, \"failures\": %u}}\n", failures == 0 ? "true" : "false", failures);
        } else {
            printf("null}\n");
        }
    } else if (rc == CLI_OK && o->check) {
        printf("check: %s (%u failure%s)\n", failures == 0 ? "holds" : "fails", failures, failures == 1 ? "" : "s");
    }
    if (rc == CLI_OK && o->sheet != NULL) {
        char err[4400];
        if (png_sheet_write(&sh, o->sheet, err, sizeof err) != 0) {
            fprintf(stderr, ME ": %s\n", err);
            rc = CLI_IO;
        }
    }
    if (rc == CLI_OK && failures > 0) {
        rc = CLI_FAILED;
    }
    png_sheet_free(&sh);
    free(grey);
    free(lv);
    work_free(&k);
    rig_close(&r);
    return rc;
}

int bench_lod(int argc, char **argv)
{
    static opts o;
    memset(&o, 0, sizeof o);
    o.size = "128x128";
    o.sse = 1.0;
    o.coverage_tol = COVERAGE_TOL_DEFAULT;
    o.profile_path = cli_default_profile();
    const cli_opt table[] = {
        {.name = "--object",
         .kind = CLI_OPT_U64,
         .dest = &o.object,
         .max = UINT32_MAX - 1u,
         .seen = &o.object_set,
         .bad = "{opt} needs an object index in 0..{max}",
         .arg = "N",
         .help = "only object N (default: every object)"},
        {.name = "--size",
         .kind = CLI_OPT_STRING,
         .dest = &o.size,
         .bad = "{opt} needs WxH",
         .arg = "WxH",
         .help = "each view's image (default: 128x128)"},
        {.name = "--sse",
         .kind = CLI_OPT_DOUBLE,
         .dest = &o.sse,
         .dmin = 0,
         .open_min = 1,
         .dmax = 1000,
         .bad = "{opt} '{value}': expected pixels above 0, at most 1000",
         .arg = "PX",
         .help = "the screen-space error threshold levels are chosen by\n(default: 1, as sluice run --sse)"},
        {.name = "--check",
         .kind = CLI_OPT_FLAG,
         .dest = &o.check,
         .help = "fail (exit 1) when a chosen level's mask differs from\nlevel 0's by more than --sse pixels, or "
                 "the coarsest\nlevel's coverage is off by more than --coverage-tol"},
        {.name = "--coverage-tol",
         .kind = CLI_OPT_DOUBLE,
         .dest = &o.coverage_tol,
         .dmin = 0,
         .dmax = 1,
         .bad = "{opt} '{value}': expected a share in 0..1",
         .arg = "F",
         .help = "the coarsest level's coverage may differ from level 0's\nby this share (default: 0.05)"},
        {.name = "--sheet",
         .kind = CLI_OPT_STRING,
         .dest = &o.sheet,
         .bad = "{opt} needs a file",
         .arg = "FILE",
         .help = "a contact sheet PNG: a row per object and view, its\nlevels left to right"},
        {.name = "--json", .kind = CLI_OPT_FLAG, .dest = &o.json, .help = "the figures as JSON"},
        {.name = "--profile",
         .kind = CLI_OPT_STRING,
         .dest = &o.profile_path,
         .bad = "{opt} needs a file",
         .arg = "FILE",
         .help = "whose reference profile streams the pack (default:\n" CLI_DEFAULT_PROFILE_HELP ")"},
        {.name = "--validate",
         .kind = CLI_OPT_FLAG,
         .dest = &o.validate,
         .help = "the Khronos validation layer on; any message fails the run"},
    };
    size_t operands = 0;
    const cli_args spec = {.me = ME,
                           .opts = table,
                           .count = sizeof table / sizeof table[0],
                           .operands = &o.input,
                           .max_operands = 1,
                           .operand_count = &operands,
                           .unknown = "unknown option or operand '{value}'",
                           .usage = USAGE,
                           .usage_after = CLI_ARGS_ALL,
                           .help = 1,
                           .help_column = 26};
    int rc = cli_args_parse(&spec, argc, argv);
    if (rc == CLI_ARGS_HELP) {
        bench_help(&spec, USAGE "\n"
                                "Each level of each object drawn alone by the reference renderer from 8 fixed\n"
                                "views around its bounding sphere (the corner directions), offscreen on the\n"
                                "Vulkan backend: triangles, recorded error, coverage and PSNR against level 0,\n"
                                "the mask distance in pixels to level 0, and per view the level the stream's\n"
                                "screen-space error rule serves at --sse against its mask distance. A glTF\n"
                                "input is packed first as sluice pack packs it (default options).\n\n");
        return CLI_OK;
    }
    if (rc != CLI_OK) {
        return rc;
    }
    if (o.input == NULL) {
        return cli_usage_error(ME, USAGE, "no PACK or GLTF given");
    }
    if ((rc = bench_parse_size(ME, USAGE, o.size, SIZE_MAX_SIDE, &o.width, &o.height)) != CLI_OK) {
        return rc;
    }
    FILE *probe = fopen(o.input, "rb");
    if (probe == NULL) {
        fprintf(stderr, ME ": %s: cannot open: %s\n", o.input, strerror(errno));
        return CLI_IO;
    }
    (void)fclose(probe); /* read only: nothing to lose */
    slc_profile prof;
    if ((rc = cli_load_profile(o.profile_path, &prof)) != CLI_OK ||
        (rc = cli_refuse_host_only(ME, o.profile_path, &prof, "the Vulkan renderer")) != CLI_OK) {
        return rc;
    }
    const char *path = o.input;
    if (is_gltf(o.input) && (rc = pack_gltf(o.input, &path)) != CLI_OK) {
        remove_tmp();
        return rc;
    }
    rc = bench_pack(&o, &prof, path);
    if (rc != CLI_USAGE && validation.messages > 0) {
        fprintf(stderr, ME ": the validation layer reported %llu message%s\n", (unsigned long long)validation.messages,
                validation.messages == 1 ? "" : "s");
        rc = CLI_FAILED;
    }
    remove_tmp();
    return rc;
}

#endif
