/* SPDX-License-Identifier: MIT */
/* sluice render: stream a workload exactly as `sluice run` does on the
 * Vulkan backend (run.h: the same run, the same eviction log) and draw
 * every frame with the reference renderer (sluice/render.h) into its own
 * target, headless; every K-th frame and the last are written as PNG
 * (png_write.h), and a contact sheet of them.
 *
 * A frame: after slc_stream_end_frame (run's frame hook), the frame's
 * resolved requests go to the renderer, which records into the command
 * buffer of the frame's slot (one a frame in flight, from a command pool
 * made with the backend's allocator and device table); it is submitted on
 * the backend's queue, then slc_vulkan_end_frame. A slot's frame is read
 * back (figures, and pixels when written) once it has retired: when the
 * slot comes round again (the stream's begin_frame has waited for it) or,
 * for the last frames, after slc_vulkan_wait_frame.
 *
 * The view: the built-in camera's (camera_get_view: its eye and direction,
 * aspect from --size), its requests measured against the frame drawn
 * (camera_desc.height_px: the frame's height unless --view-height); with
 * --trace, which carries no camera, a fixed overview of the scene's bounds
 * (camera_overview).
 *
 * Memory: the renderer's block is allocated before streaming starts and
 * charged by the renderer to `cpu/render`, its buffers to `gpu/render`; a
 * profile without either is refused. The contact sheet's cells are
 * allocated at the start for the frames to be written (a trace without a
 * frame count grows them). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "escape.h"
#include "png_write.h"
#include "quality.h"
#include "run.h"

#ifdef SLUICE_HAVE_RENDER
#include <volk.h>

#include "sluice/render.h"
#include "sluice/vulkan.h"
#endif

#define ME "sluice render"
#define RENDER_USAGE "usage: sluice render PACK -o DIR [options] (sluice render --help: every option)\n"
#define RENDER_EVERY_DEFAULT 30u
#define RENDER_SIZE_LIMIT 16384u /* SLC_RENDER_SIZE_MAX, in a build without the renderer too */
#define CONTACT_COLUMNS 4u
#define CONTACT_CELL_W 256u
#define PATH_BYTES 4096u

static const char usage_head[] =
    "usage: sluice render PACK -o DIR [options]\n"
    "\n"
    "Streams a workload through PACK as `sluice run` does, on the Vulkan backend, and draws\n"
    "every frame with the reference renderer (vertex pulling from the page pool) into its\n"
    "own target. Every K-th frame and the last are written to DIR as frame-NNNNN.png (NNNNN\n"
    "the frame, from 0), and DIR/contact.png shows them in order, 4 a row. The report is\n"
    "run's, plus the frames rendered and written, the GPU time a frame and what was drawn.\n"
    "\n"
    "options (render's own):\n"
    "  -o, --output DIR      the folder for the PNG files (created with its parents if missing)\n"
    "  --size WxH            the image (default: the profile's [render] width and height,\n"
    "                        else 1280x720; each side 1..16384 and the device's limit)\n"
    "  --every K             write every K-th frame (default 30; the last always)\n"
    "  --tint lod            colour each cluster by the LOD it was served at, striped\n"
    "                        where it was served coarser than asked (docs/rendering.md: the palette)\n"
    "  --tint mip            colour each textured surface by the mip level its base colour was\n"
    "                        sampled at, striped where coarser than its texel density asks\n"
    "  --reference           also render the workload under the profile's reference (a pool\n"
    "                        of every chunk, every level pinned) and compare each frame:\n"
    "                        luminance PSNR and pixels over --diff-threshold (-o optional)\n"
    "  --quality-json FILE   with --reference: PSNR and pixels over a frame, and the summary\n"
    "  --quality-svg FILE    with --reference: PSNR over the frames, the floor dashed\n"
    "  --diff-threshold N    a pixel's luminance differs when by more than N of 255 (default 8)\n"
    "  --psnr-threshold DB   the floor instead of the profile's [quality] min_psnr_db: a\n"
    "                        frame below it fails the command (exit 4)\n"
    "\n"
    "options (run's):\n";

static const char usage_tail[] =
    "  -h, --help            this text\n"
    "\n"
    "With --trace the view is a fixed overview of the scene's bounds (a trace has no\n"
    "camera); otherwise it is the built-in camera's. The renderer's memory is charged to the\n"
    "profile's cpu/render and gpu/render budgets, which it must declare. Each PNG is\n"
    "written through a temporary renamed over its target: a failed write leaves an\n"
    "existing file as it was.\n"
    "\n"
    "exit codes: as sluice run's (0 the verdict holds; 1 input judged bad or the run failed;\n"
    "2 bad command line; 3 a file not readable or writable; 4 the verdict failed)\n";

typedef struct render_opts {
    const char *out_dir;
    const char *size; /* "WxH", NULL: the profile's or the default */
    uint32_t width, height;
    uint64_t every;
    int tint; /* 0 none (not an option value), then tint_choices: 1 lod, 2 mip */
    /* --reference: the same workload under the profile's reference (quality.h), compared frame by frame */
    int reference;
    const char *quality_json, *quality_svg;
    uint64_t diff_threshold;
    double psnr_floor; /* --psnr-threshold in dB; 0: the profile's [quality] min_psnr_db */
} render_opts;

static const char *const tint_choices[] = {"lod", "mip", NULL};
static const char *const tint_said[] = {"", " tinted by LOD", " tinted by mip level"};

/* "WxH" with each side in 1..RENDER_SIZE_LIMIT. */
static int parse_size(const char *s, uint32_t *w, uint32_t *h)
{
    const char *x = strchr(s, 'x');
    if (x == NULL || x == s || x[1] == '\0' || strlen(s) > 32) {
        return 0;
    }
    char a[40];
    memcpy(a, s, (size_t)(x - s));
    a[x - s] = '\0';
    uint64_t wv, hv;
    if (!cli_parse_u64(a, UINT32_MAX, &wv) || !cli_parse_u64(x + 1, UINT32_MAX, &hv)) {
        return 0;
    }
    *w = (uint32_t)wv;
    *h = (uint32_t)hv;
    return 1;
}

/* Returns CLI_OK, CLI_USAGE (printed), or CLI_ARGS_HELP after the help. */
static int parse_args(int argc, char **argv, run_args *a, render_opts *ro)
{
    memset(ro, 0, sizeof *ro);
    cli_opt table[RUN_ARGS_MAX + 12];
    int tint = -1;
    ro->every = RENDER_EVERY_DEFAULT;
    size_t n = 0;
    table[n++] = (cli_opt){.name = "--output",
                           .alias = "-o",
                           .kind = CLI_OPT_STRING,
                           .dest = &ro->out_dir,
                           .arg = "DIR"};
    table[n++] = (cli_opt){.name = "--size", .kind = CLI_OPT_STRING, .dest = &ro->size, .arg = "WxH"};
    table[n++] = (cli_opt){.name = "--every",
                           .kind = CLI_OPT_U64,
                           .dest = &ro->every,
                           .min = 1,
                           .max = UINT32_MAX,
                           .bad = "{opt} '{value}': expected a count in 1..{max}",
                           .arg = "K"};
    table[n++] = (cli_opt){.name = "--tint",
                           .kind = CLI_OPT_ENUM,
                           .dest = &tint,
                           .choices = tint_choices,
                           .bad = "{opt} '{value}': expected lod",
                           .arg = "T"};
    ro->diff_threshold = QUALITY_DIFF_THRESHOLD_DEFAULT;
    table[n++] = (cli_opt){.name = "--reference", .kind = CLI_OPT_FLAG, .dest = &ro->reference};
    table[n++] = (cli_opt){.name = "--quality-json", .kind = CLI_OPT_STRING, .dest = &ro->quality_json, .arg = "FILE"};
    table[n++] = (cli_opt){.name = "--quality-svg", .kind = CLI_OPT_STRING, .dest = &ro->quality_svg, .arg = "FILE"};
    table[n++] = (cli_opt){.name = "--diff-threshold",
                           .kind = CLI_OPT_U64,
                           .dest = &ro->diff_threshold,
                           .max = 255,
                           .bad = "{opt} '{value}': expected levels in 0..{max}",
                           .arg = "N"};
    table[n++] = (cli_opt){.name = "--psnr-threshold",
                           .kind = CLI_OPT_DOUBLE,
                           .dest = &ro->psnr_floor,
                           .dmin = 0,
                           .open_min = 1,
                           .dmax = 1000,
                           .bad = "{opt} '{value}': expected dB above 0, at most 1000",
                           .arg = "DB"};
    n += run_args_table(a, table + n, RUN_ARGS_MAX);
    size_t operands = 0;
    const cli_args spec = {.me = ME,
                           .opts = table,
                           .count = n,
                           .operands = &a->o.pack_path,
                           .max_operands = 1,
                           .operand_count = &operands,
                           .missing = "{opt} needs a value",
                           .unknown = "unexpected argument '{value}'",
                           .usage = RENDER_USAGE,
                           .usage_after = CLI_ARGS_ALL,
                           .help = 1,
                           .help_column = 24};
    int rc = cli_args_parse(&spec, argc, argv);
    if (rc == CLI_ARGS_HELP) {
        fputs(usage_head, stdout);
        cli_args_print_options(stdout, &spec); /* run's: render's own have no help entry, they are above */
        fputs(usage_tail, stdout);
    }
    if (rc != CLI_OK) {
        return rc;
    }
    if ((rc = run_args_finish(a, ME, RENDER_USAGE)) != CLI_OK) {
        return rc;
    }
    ro->tint = tint + 1;
    if (!ro->reference && (ro->quality_json != NULL || ro->quality_svg != NULL || ro->psnr_floor > 0)) {
        return cli_usage_error(ME, RENDER_USAGE, "--quality-json, --quality-svg and --psnr-threshold need --reference");
    }
    if (ro->out_dir == NULL && !ro->reference) {
        return cli_usage_error(ME, RENDER_USAGE, "no -o DIR given (the folder for the frames)");
    }
    if (ro->size != NULL) {
        if (!parse_size(ro->size, &ro->width, &ro->height)) {
            return cli_usage_error(ME, RENDER_USAGE, "--size '%s': expected WIDTHxHEIGHT, as 1280x720", ro->size);
        }
        if (ro->width == 0 || ro->height == 0 || ro->width > RENDER_SIZE_LIMIT || ro->height > RENDER_SIZE_LIMIT) {
            return cli_usage_error(ME, RENDER_USAGE, "--size '%s': width and height must each be in 1..%u", ro->size,
                                   RENDER_SIZE_LIMIT);
        }
    }
    /* The camera's screen-space error and texel density, measured against
     * the frame drawn: the textures it asks for are the levels the shader
     * samples at that size, the geometry the levels that size needs. */
    if (!a->view_height_set) {
        if (ro->size != NULL) {
            a->o.cam.height_px = ro->height;
        } else {
            a->o.view_from_frame = 1;
        }
    }
    if (strcmp(a->o.backend, "host") == 0) {
        return cli_usage_error(ME, RENDER_USAGE,
                               "--backend host: the renderer draws from the Vulkan backend's page pool");
    }
    a->o.backend = "vulkan"; /* auto means Vulkan here: no fallback to the host backend */
    return CLI_OK;
}

/* mkdir -p: each missing folder of path, parents first. 0, or -1 with errno. */
static int make_dirs(const char *path)
{
    char buf[PATH_BYTES];
    size_t n = strlen(path);
    if (n >= sizeof buf) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(buf, path, n + 1u);
    for (size_t i = 1; i <= n; i++) {
        if (buf[i] != '/' && buf[i] != '\0') {
            continue;
        }
        const char c = buf[i];
        buf[i] = '\0';
        struct stat st;
        if (stat(buf, &st) != 0 && (errno != ENOENT || mkdir(buf, 0777) != 0) && errno != EEXIST) {
            return -1;
        }
        buf[i] = c;
    }
    return 0;
}

/* DIR exists as a folder (made if missing, with its parents) and a file can
 * be created in it: CLI_OK, or CLI_IO with the reason printed. */
static int prepare_dir(const char *dir)
{
    struct stat st;
    if (stat(dir, &st) != 0) {
        if (errno != ENOENT || make_dirs(dir) != 0) {
            fprintf(stderr, ME ": %s: cannot create the folder: %s\n", dir, strerror(errno));
            return CLI_IO;
        }
    } else if (!S_ISDIR(st.st_mode)) {
        fprintf(stderr, ME ": %s: not a folder\n", dir);
        return CLI_IO;
    }
    char probe[PATH_BYTES], err[PATH_BYTES + 200];
    snprintf(probe, sizeof probe, "%s/contact.png", dir);
    atomic_file a;
    if (atomic_file_open(&a, probe, err, sizeof err) != 0) {
        fprintf(stderr, ME ": %s\n", err);
        return CLI_IO;
    }
    atomic_file_abort(&a);
    return CLI_OK;
}

#ifdef SLUICE_HAVE_RENDER

/* A frame slot: the frame submitted in it, not read back yet. */
typedef struct render_slot {
    int used;
    int write;      /* its image goes to a PNG */
    uint32_t f;     /* the workload's frame */
    uint64_t frame; /* the stream's */
} render_slot;

typedef struct render_state {
    render_opts ro;
    slc_render_desc desc;
    uint32_t width, height;
    /* the device */
    slc_vulkan *vk;
    const struct VolkDeviceTable *dt;
    const VkAllocationCallbacks *alloc;
    VkDevice device;
    VkQueue queue;
    VkCommandPool pool;
    VkCommandBuffer cmd[SLC_FRAMES_IN_FLIGHT_MAX];
    uint32_t fif;
    /* the renderer */
    void *mem;
    slc_render *ren;
    slc_stream_span *spans;
    uint32_t span_cap;
    int overview; /* --trace: one fixed view */
    camera_view view;
    render_slot slot[SLC_FRAMES_IN_FLIGHT_MAX];
    /* what was drawn */
    uint32_t rendered, written, untimed, add_refused;
    uint32_t textures; /* the pack's */
    run_hist gpu_ns, triangles, clusters, texture_chunks;
    png_sheet sheet;
    char contact[PATH_BYTES];
    /* --reference: each frame read back at once (keep_image) and compared */
    int keep_image;
    slc_render_image last; /* the image collect read last, valid until its slot is reused */
    slc_profile ref_prof;
    tool_profile_sections ref_sections; /* the run's, the reference's lists grown to the pack's */
    quality_session *q;
    quality_summary qs;
    int quality_done, quality_fails;
    run_timeline *timeline; /* the run's: each frame's GPU time */
} render_state;

static int vk_failed(const char *call, VkResult res)
{
    fprintf(stderr, ME ": %s failed (%s)\n", call, slc_vulkan_result_name(res));
    return CLI_FAILED;
}

/* Hook: after the store and the stream are up, before streaming. */
static int render_start(void *user, run *r)
{
    render_state *rs = user;
    rs->vk = r->vk;
    rs->timeline = &r->timeline;
    slc_budgets *b = slc_memory_budgets(r->mem);
    static const char *const needed[] = {"cpu/render", "gpu/render"};
    for (size_t i = 0; i < 2; i++) {
        slc_budget_id id;
        if (slc_budgets_scan(b, needed[i], &id) != SLC_OK) {
            fprintf(stderr,
                    ME ": profile '%s' declares no %s budget (the renderer's memory is charged to cpu/render and "
                       "gpu/render)\n",
                    r->prof.name, needed[i]);
            return CLI_FAILED;
        }
    }
    memset(&rs->desc, 0, sizeof rs->desc);
    slc_render_desc_from_profile(&rs->desc, &r->sections.render);
    if (rs->ro.size != NULL) {
        rs->desc.width = rs->ro.width;
        rs->desc.height = rs->ro.height;
    }
    rs->width = rs->desc.width ? rs->desc.width : SLC_RENDER_DEFAULT_WIDTH;
    rs->height = rs->desc.height ? rs->desc.height : SLC_RENDER_DEFAULT_HEIGHT;
    /* The frame the report's texel floor is for: the one drawn (--size). */
    r->sections.render.width = rs->width;
    r->sections.render.height = rs->height;
    rs->desc.budgets = b;
    rs->desc.log = cli_stderr_logger;
    rs->desc.textures = r->tex_vk;
    rs->textures = slc_pack_texture_count(r->pack);
    size_t fp = slc_render_footprint(&rs->desc, r->pack);
    if (fp == 0) {
        fprintf(stderr, ME ": a target of %ux%u cannot be rendered (at most %u a side)\n", rs->width, rs->height,
                SLC_RENDER_SIZE_MAX);
        return CLI_FAILED;
    }
    rs->mem = aligned_alloc(SLC_RENDER_ALIGN, (fp + SLC_RENDER_ALIGN - 1u) & ~(size_t)(SLC_RENDER_ALIGN - 1u));
    const slc_pack_header *h = slc_pack_get_header(r->pack);
    rs->span_cap = h->span_count ? h->span_count : 1u;
    rs->spans = malloc(sizeof *rs->spans * rs->span_cap);
    if (rs->mem == NULL || rs->spans == NULL) {
        fprintf(stderr, ME ": out of memory for the renderer\n");
        return CLI_FAILED;
    }
    slc_status st = slc_render_init(rs->mem, fp, &rs->desc, rs->vk, r->pack, &rs->ren);
    if (st != SLC_OK) {
        fprintf(stderr, ME ": the renderer cannot start on profile '%s' at %ux%u (%s; see above)\n", r->prof.name,
                rs->width, rs->height, slc_status_name(st));
        rs->ren = NULL;
        return CLI_FAILED;
    }
    slc_vulkan_info info;
    slc_vulkan_get_info(rs->vk, &info);
    rs->device = info.device;
    rs->queue = info.queue;
    rs->fif = info.frames_in_flight;
    rs->dt = slc_vulkan_get_device_table(rs->vk);
    rs->alloc = slc_vulkan_get_allocator(rs->vk);
    const VkCommandPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                        .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                        .queueFamilyIndex = info.queue_family};
    VkResult res = rs->dt->vkCreateCommandPool(rs->device, &pi, rs->alloc, &rs->pool);
    if (res != VK_SUCCESS) {
        rs->pool = VK_NULL_HANDLE;
        return vk_failed("vkCreateCommandPool", res);
    }
    const VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                            .commandPool = rs->pool,
                                            .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                            .commandBufferCount = rs->fif};
    if ((res = rs->dt->vkAllocateCommandBuffers(rs->device, &ai, rs->cmd)) != VK_SUCCESS) {
        return vk_failed("vkAllocateCommandBuffers", res);
    }
    /* The frames to write, for the contact sheet's cells: known for the
     * camera and for a trace that declares its frames. */
    uint32_t frames = workload_frames(&r->wl);
    uint32_t expected = frames ? (uint32_t)((frames - 1u) / rs->ro.every + 2u) : 16u;
    uint32_t cell_h = (uint32_t)((uint64_t)CONTACT_CELL_W * rs->height / rs->width);
    if (png_sheet_init(&rs->sheet, CONTACT_CELL_W, cell_h ? cell_h : 1u, CONTACT_COLUMNS, expected) != 0) {
        fprintf(stderr, ME ": out of memory for the contact sheet\n");
        return CLI_FAILED;
    }
    if (rs->ro.out_dir != NULL) {
        snprintf(rs->contact, sizeof rs->contact, "%s/contact.png", rs->ro.out_dir);
    }
    rs->overview = r->o.trace_path != NULL;
    if (rs->overview) {
        float lo[3], hi[3];
        if (camera_scene_bounds(r->pack, lo, hi) != 0) {
            fprintf(stderr, ME ": pack '%s' has no objects to look at\n", r->pack_name);
            return CLI_FAILED;
        }
        camera_overview(lo, hi, r->o.cam.fov_deg, (float)rs->width / (float)rs->height, &rs->view);
    }
    return CLI_OK;
}

/* Reads back the slot's frame once it has retired (waiting for it): its figures, and
 * its image into a PNG and the contact sheet when it is one to write. */
static int collect(render_state *rs, render_slot *sl)
{
    slc_render_frame fr;
    const uint64_t wait_ns = (rs->keep_image ? 600ull : 10ull) *
                             1000000000ull;                            /* a reference frame draws every level */
    slc_status st = slc_vulkan_wait_frame(rs->vk, sl->frame, wait_ns); /* at once if retired */
    if (st != SLC_OK) {
        fprintf(stderr, ME ": frame %u: the GPU did not finish it (%s)\n", sl->f, slc_status_name(st));
        return CLI_FAILED;
    }
    if ((st = slc_render_get_frame(rs->ren, sl->frame, &fr)) != SLC_OK) {
        fprintf(stderr, ME ": frame %u: the renderer's figures cannot be read (%s)\n", sl->f, slc_status_name(st));
        return CLI_FAILED;
    }
    sl->used = 0;
    rs->rendered++;
    if (fr.timed) {
        run_hist_add(&rs->gpu_ns, fr.gpu_ns);
        run_timeline_set_gpu(rs->timeline, sl->f, fr.gpu_ns);
    } else {
        rs->untimed++;
    }
    run_hist_add(&rs->triangles, fr.triangles);
    run_hist_add(&rs->clusters, fr.clusters_drawn);
    run_hist_add(&rs->texture_chunks, fr.texture_chunks);
    if (!sl->write && !rs->keep_image) {
        return CLI_OK;
    }
    slc_render_image img;
    if ((st = slc_render_read(rs->ren, sl->frame, &img)) != SLC_OK) {
        fprintf(stderr, ME ": frame %u: the image cannot be read back (%s)\n", sl->f, slc_status_name(st));
        return CLI_FAILED;
    }
    rs->last = img;
    if (!sl->write) {
        return CLI_OK;
    }
    char path[PATH_BYTES], err[PATH_BYTES + 200];
    snprintf(path, sizeof path, "%s/frame-%05u.png", rs->ro.out_dir, sl->f);
    if (png_write_rgba(path, img.rgba, img.width, img.height, img.stride, err, sizeof err) != 0) {
        fprintf(stderr, ME ": %s\n", err);
        return CLI_IO;
    }
    if (png_sheet_add(&rs->sheet, img.rgba, img.width, img.height, img.stride) != 0) {
        fprintf(stderr, ME ": out of memory for the contact sheet\n");
        return CLI_FAILED;
    }
    rs->written++;
    return CLI_OK;
}

/* Hook: frame f ended on the stream. */
static int render_frame(void *user, run *r, uint32_t f, uint64_t frame)
{
    render_state *rs = user;
    render_slot *sl = &rs->slot[frame % rs->fif];
    int rc;
    if (sl->used && (rc = collect(rs, sl)) != CLI_OK) {
        return rc;
    }
    slc_render_view v;
    memset(&v, 0, sizeof v);
    if (!rs->overview) {
        camera_get_view(&r->wl.cam, (float)rs->width / (float)rs->height, &rs->view);
    }
    memcpy(v.view_proj, rs->view.view_proj, sizeof v.view_proj);
    memcpy(v.eye, rs->view.eye, sizeof v.eye);
    v.tint = rs->ro.tint == 1 ? SLC_RENDER_TINT_LOD : rs->ro.tint == 2 ? SLC_RENDER_TINT_MIP : SLC_RENDER_TINT_NONE;
    v.clear[0] = 0.08f;
    v.clear[1] = 0.09f;
    v.clear[2] = 0.11f;
    v.clear[3] = 1.0f;
    slc_status st = slc_render_begin(rs->ren, frame, &v);
    if (st != SLC_OK) {
        fprintf(stderr, ME ": frame %u: the renderer refused to begin it (%s)\n", f, slc_status_name(st));
        return CLI_FAILED;
    }
    const uint32_t results = slc_stream_result_count(r->s);
    for (uint32_t i = 0; i < results; i++) {
        slc_stream_result res;
        if (slc_stream_resident(r->s, i, &res, rs->spans, rs->span_cap) != SLC_OK) {
            continue; /* cannot happen: the buffer holds every span of the pack */
        }
        if (slc_render_add(rs->ren, &res, rs->spans) == SLC_E_CAPACITY) {
            rs->add_refused++; /* the frame's lists are full: what was added still draws */
        }
    }
    (void)slc_render_add_textures(rs->ren, r->s); /* fails only out of order: not here */
    VkCommandBuffer cmd = rs->cmd[frame % rs->fif];
    VkResult vr = rs->dt->vkResetCommandBuffer(cmd, 0);
    const VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                         .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    if (vr != VK_SUCCESS || (vr = rs->dt->vkBeginCommandBuffer(cmd, &bi)) != VK_SUCCESS) {
        return vk_failed("vkBeginCommandBuffer", vr);
    }
    if ((st = slc_render_record(rs->ren, cmd)) != SLC_OK) {
        (void)rs->dt->vkEndCommandBuffer(cmd);
        fprintf(stderr, ME ": frame %u: the renderer cannot record it (%s)\n", f, slc_status_name(st));
        return CLI_FAILED;
    }
    if ((vr = rs->dt->vkEndCommandBuffer(cmd)) != VK_SUCCESS) {
        return vk_failed("vkEndCommandBuffer", vr);
    }
    const VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cmd};
    if ((vr = rs->dt->vkQueueSubmit(rs->queue, 1, &si, VK_NULL_HANDLE)) != VK_SUCCESS) {
        return vk_failed("vkQueueSubmit", vr);
    }
    if ((st = slc_vulkan_end_frame(rs->vk, frame)) != SLC_OK ||
        (r->tex_vk != NULL && (st = slc_vulkan_end_frame(r->tex_vk, frame)) != SLC_OK)) {
        fprintf(stderr, ME ": frame %u: slc_vulkan_end_frame failed (%s)\n", f, slc_status_name(st));
        return CLI_FAILED;
    }
    *sl = (render_slot){1, rs->ro.out_dir != NULL && (f % rs->ro.every == 0 || !run_has_frame(r, f + 1u)), f, frame};
    return CLI_OK;
}

/* The frames still in flight after the last one, oldest first. */
static int collect_rest(render_state *rs)
{
    for (;;) {
        render_slot *oldest = NULL;
        for (uint32_t i = 0; i < rs->fif; i++) {
            if (rs->slot[i].used && (oldest == NULL || rs->slot[i].frame < oldest->frame)) {
                oldest = &rs->slot[i];
            }
        }
        if (oldest == NULL) {
            return CLI_OK;
        }
        int rc = collect(rs, oldest);
        if (rc != CLI_OK) {
            return rc;
        }
    }
}

/* The report's quality part (--reference): the summary and the floor. */
static void quality_report(FILE *f, int json, const render_state *rs)
{
    const quality_info *in = &rs->q->info;
    char msg[320];
    const int fails = quality_check_floor(&rs->qs, in->min_psnr_mdb, in->floor_source, msg, sizeof msg) != 0;
    if (json) {
        fprintf(f, "  \"quality\": {\"reference\": ");
        esc_json(f, in->reference);
        fprintf(f, ", \"diff_threshold\": %u, \"summary\": ", in->threshold);
        quality_json_summary(f, &rs->qs);
        fprintf(f, ",\n    \"min_psnr_db\": ");
        if (in->min_psnr_mdb) {
            fprintf(f, "%.3f", (double)in->min_psnr_mdb / 1000.0);
        } else {
            fprintf(f, "null");
        }
        fprintf(f, ", \"floor\": ");
        quality_json_floor(f, &rs->qs, in->min_psnr_mdb);
        fprintf(f, "},\n");
        return;
    }
    char line[320];
    quality_format_summary(&rs->qs, line, sizeof line);
    fprintf(f, "%s\n", line);
    if (fails) {
        fprintf(f, "quality floor: FAILED\n  %s\n", msg);
    } else if (in->min_psnr_mdb) {
        fprintf(f, "quality floor: holds (every frame at or above %g dB)\n", (double)in->min_psnr_mdb / 1000.0);
    }
}

/* The report's render part (run_report_in.extra). */
static void render_report(FILE *f, int json, void *user)
{
    const render_state *rs = user;
    if (rs->quality_done) {
        quality_report(f, json, rs);
    }
    const int timed = rs->untimed == 0 && rs->rendered > 0;
    const uint64_t p50 = run_hist_percentile(&rs->gpu_ns, 50), p95 = run_hist_percentile(&rs->gpu_ns, 95);
    const uint64_t tri = run_hist_percentile(&rs->triangles, 50), cl = run_hist_percentile(&rs->clusters, 50);
    const uint64_t tex = run_hist_percentile(&rs->texture_chunks, 50);
    if (json) {
        fprintf(f,
                "  \"render\": {\"frames_rendered\": %u, \"frames_written\": %u, \"width\": %u, \"height\": %u"
                ", \"every\": %" PRIu64 ", \"tint\": ",
                rs->rendered, rs->written, rs->width, rs->height, rs->ro.every);
        esc_json(f, rs->ro.tint > 0 ? tint_choices[rs->ro.tint - 1] : "none");
        fprintf(f, ",\n    \"gpu_ns\": ");
        if (timed) {
            fprintf(f, "{\"p50\": %" PRIu64 ", \"p95\": %" PRIu64 ", \"max\": %" PRIu64 "}", p50, p95, rs->gpu_ns.max);
        } else {
            fprintf(f, "null");
        }
        fprintf(f,
                ", \"triangles_p50\": %" PRIu64 ", \"clusters_p50\": %" PRIu64 ", \"texture_chunks_p50\": %" PRIu64
                ", \"requests_not_drawn\": %u,\n    \"output\": ",
                tri, cl, tex, rs->add_refused);
        esc_json(f, rs->ro.out_dir);
        fprintf(f, ", \"contact_sheet\": ");
        esc_json(f, rs->contact);
        fprintf(f, "},\n");
        return;
    }
    if (rs->ro.out_dir == NULL) {
        fprintf(f, "render: %u frames rendered at %ux%u%s, none written (no -o DIR)\n", rs->rendered, rs->width,
                rs->height, tint_said[rs->ro.tint]);
    } else {
        fprintf(f,
                "render: %u frames rendered at %ux%u%s, %u written (every %" PRIu64 " and the last) to %s, contact "
                "sheet %s\n",
                rs->rendered, rs->width, rs->height, tint_said[rs->ro.tint], rs->written, rs->ro.every, rs->ro.out_dir,
                rs->contact);
    }
    if (timed) {
        fprintf(f, "render GPU time a frame: p50 %.3f ms, p95 %.3f ms, max %.3f ms\n", (double)p50 / 1e6,
                (double)p95 / 1e6, (double)rs->gpu_ns.max / 1e6);
    } else {
        fprintf(f, "render GPU time a frame: not measured (the queue has no timestamps)\n");
    }
    fprintf(f, "render drawn a frame (median): %" PRIu64 " triangles, %" PRIu64 " clusters\n", tri, cl);
    if (rs->textures != 0) {
        fprintf(f, "render textures a frame (median): %" PRIu64 " tiles and mip tails bound (of %u textures)\n", tex,
                rs->textures);
    }
    if (rs->add_refused) {
        fprintf(f,
                "render: %u requests not drawn (the frame's draw or placement list was full: [render] max_draws, "
                "max_placements)\n",
                rs->add_refused);
    }
}

static void render_close(render_state *rs)
{
    if (rs->ren != NULL) {
        slc_render_deinit(rs->ren); /* waits for its frames */
        rs->ren = NULL;
    }
    if (rs->pool != VK_NULL_HANDLE) {
        if (rs->vk != NULL) {
            slc_vulkan_info info;
            slc_vulkan_get_info(rs->vk, &info);
            (void)rs->dt->vkQueueWaitIdle(info.queue);
        }
        rs->dt->vkDestroyCommandPool(rs->device, rs->pool, rs->alloc);
        rs->pool = VK_NULL_HANDLE;
    }
    free(rs->mem);
    rs->mem = NULL;
    free(rs->spans);
    rs->spans = NULL;
    png_sheet_free(&rs->sheet);
}

/* --reference: the reference run (quality_reference_profile of the run's
 * profile and pack: the same workload, its own memory, store, stream,
 * workers and renderer) opened beside r, and the comparison's files. */
static int reference_open(run *r, render_state *rs, const run_opts *o, run *ref, render_state *rrs)
{
    char msg[512];
    rs->ref_sections = r->sections;
    if (quality_reference_profile(&r->prof, r->pack, r->pack_name, slc_pack_scratch_size(r->pack), RUN_TELEMETRY_FRAMES,
                                  &rs->ref_prof, &rs->ref_sections.render, msg, sizeof msg) != 0) {
        fprintf(stderr, ME ": %s\n", msg);
        return CLI_FAILED;
    }
    /* The reference's draw and placement lists (every object at its
     * largest level): cpu/render and gpu/render grown by what they cost on
     * this device beyond the profile's. */
    slc_render_desc bd = rs->desc, rd = rs->desc;
    bd.budgets = rd.budgets = NULL;
    rd.max_draws = rs->ref_sections.render.max_draws;
    rd.max_placements = rs->ref_sections.render.max_placements;
    const size_t cb = slc_render_footprint(&bd, r->pack), cr = slc_render_footprint(&rd, r->pack);
    const uint64_t gb = slc_render_device_bytes(&bd, r->pack, r->vk), gr = slc_render_device_bytes(&rd, r->pack, r->vk);
    if (cr == 0 || gr == 0) {
        fprintf(stderr, ME ": the reference's lists (%u draws, %u placements a frame) are not a valid renderer\n",
                rd.max_draws, rd.max_placements);
        return CLI_FAILED;
    }
    if (quality_profile_add(&rs->ref_prof, "cpu/render", cr > cb ? cr - cb : 0, msg, sizeof msg) != 0 ||
        quality_profile_add(&rs->ref_prof, "gpu/render", gr > gb ? gr - gb : 0, msg, sizeof msg) != 0) {
        fprintf(stderr, ME ": the reference profile: %s\n", msg);
        return CLI_FAILED;
    }
    run_opts ro = *o;
    ro.profile = &rs->ref_prof;
    ro.sections = &rs->ref_sections;
    ro.svg = ro.chrome = ro.evict_log = ro.save_trace = NULL;
    ro.json = 0;
    rrs->ro = rs->ro;
    rrs->ro.out_dir = NULL; /* nothing written */
    rrs->keep_image = rs->keep_image = 1;
    const run_hooks hooks = {render_start, render_frame, rrs};
    int rc = run_open(ref, &ro, &hooks, ME " (reference)");
    if (rc != CLI_OK) {
        fprintf(stderr,
                ME ": the reference profile '%s' (%u pages of %u bytes: every chunk of pack '%s', every level "
                   "pinned) cannot run on this device (see above)\n",
                rs->ref_prof.name, rs->ref_prof.page_count, rs->ref_prof.page_size, r->pack_name);
        return rc;
    }
    const uint32_t floor = rs->ro.psnr_floor > 0 ? (uint32_t)(rs->ro.psnr_floor * 1000.0 + 0.5)
                                                 : r->sections.quality.min_psnr_mdb;
    const quality_info qi = {r->pack_name,
                             r->prof.name,
                             rs->ref_prof.name,
                             rs->width,
                             rs->height,
                             (uint32_t)rs->ro.diff_threshold,
                             floor,
                             rs->ro.psnr_floor > 0 ? "--psnr-threshold" : NULL};
    const char *inputs[] = {o->pack_path, o->profile_path, o->trace_path};
    rs->q = malloc(sizeof *rs->q);
    if (rs->q == NULL) {
        fprintf(stderr, ME ": out of memory\n");
        return CLI_FAILED;
    }
    if (quality_session_open(rs->q, &qi, rs->ro.quality_json, rs->ro.quality_svg, inputs, 3, ME) != 0) {
        free(rs->q);
        rs->q = NULL;
        return CLI_IO;
    }
    return CLI_OK;
}

/* Frame f, run on both: each read back at once and compared. */
static int reference_frame(run *r, render_state *rs, run *ref, render_state *rrs, uint32_t f)
{
    render_slot *a = &rs->slot[r->frame % rs->fif], *b = &rrs->slot[ref->frame % rrs->fif];
    int rc;
    if ((rc = collect(rs, a)) != CLI_OK || (rc = collect(rrs, b)) != CLI_OK) {
        return rc;
    }
    const quality_image ia = {rs->last.width, rs->last.height, rs->last.stride, rs->last.rgba};
    const quality_image ib = {rrs->last.width, rrs->last.height, rrs->last.stride, rrs->last.rgba};
    quality_frame fr;
    if (quality_session_frame(rs->q, f, &ia, &ib, &fr, ME) != 0) {
        return CLI_FAILED;
    }
    run_timeline_set_psnr(&r->timeline, f, fr.psnr_db);
    return CLI_OK;
}

static int render_main(run *r, render_state *rs, const run_opts *o)
{
    const run_hooks hooks = {render_start, render_frame, rs};
    run *ref = NULL;
    render_state *rrs = NULL;
    int rc = rs->ro.out_dir != NULL ? prepare_dir(rs->ro.out_dir) : CLI_OK;
    if (rc == CLI_OK) {
        rc = run_open(r, o, &hooks, ME);
    }
    if (rc == CLI_OK && rs->ro.reference) {
        ref = calloc(1, sizeof *ref);
        rrs = calloc(1, sizeof *rrs);
        rc = ref != NULL && rrs != NULL ? reference_open(r, rs, o, ref, rrs) : CLI_FAILED;
    }
    for (uint32_t f = 0; rc == CLI_OK && run_has_frame(r, f); f++) {
        rc = run_frame(r, f);
        if (rc == CLI_OK && ref != NULL) {
            rc = run_frame(ref, f);
        }
        if (rc == CLI_OK && ref != NULL) {
            rc = reference_frame(r, rs, ref, rrs, f);
        }
    }
    if (rc == CLI_OK) {
        rc = collect_rest(rs);
    }
    if (rc == CLI_OK && ref != NULL && rrs->add_refused > 0) {
        fprintf(stderr,
                ME ": the reference renderer could not draw %u requests (its lists were full); it is not a "
                   "reference\n",
                rrs->add_refused);
        rc = CLI_FAILED;
    }
    if (rc == CLI_OK && ref != NULL && (ref->agg.coarser > 0 || ref->agg.none > 0)) {
        /* the reference profile pins every level: this cannot happen unless it is wrong */
        fprintf(stderr,
                ME ": the reference profile '%s' served %" PRIu64 " requests coarser than asked and %" PRIu64
                   " with nothing visible; it is not a reference\n",
                rs->ref_prof.name, ref->agg.coarser, ref->agg.none);
        rc = CLI_FAILED;
    }
    if (rc == CLI_OK && rs->ro.out_dir != NULL) {
        char err[PATH_BYTES + 200];
        if (png_sheet_write(&rs->sheet, rs->contact, err, sizeof err) != 0) {
            fprintf(stderr, ME ": %s\n", err);
            rc = CLI_IO;
        }
    }
    if (rc == CLI_OK && rs->q != NULL) {
        int q = quality_session_finish(rs->q, NULL, &rs->qs, ME);
        rs->quality_done = q >= 0;
        rs->quality_fails = q > 0;
        rc = q < 0 ? CLI_IO : CLI_OK;
    }
    if (rc == CLI_OK) {
        /* A frame below the floor fails the verdict, named with its reasons. */
        char floor_msg[320];
        const int below = rs->quality_fails && rs->q != NULL &&
                          quality_check_floor(&rs->qs, rs->q->info.min_psnr_mdb, rs->q->info.floor_source, floor_msg,
                                              sizeof floor_msg) != 0;
        rc = run_finish(r, render_report, rs, below ? floor_msg : NULL);
    }
    if (rs->q != NULL) {
        quality_session_abort(rs->q); /* a command that failed: the old files stay */
        free(rs->q);
        rs->q = NULL;
    }
    if (rrs != NULL) {
        render_close(rrs);
    }
    if (ref != NULL) {
        run_close(ref);
    }
    free(ref);
    free(rrs);
    return rc;
}

int cmd_render(int argc, char **argv)
{
    run_args a;
    render_state *rs = calloc(1, sizeof *rs);
    if (rs == NULL) {
        fprintf(stderr, ME ": out of memory\n");
        return CLI_FAILED;
    }
    int rc = parse_args(argc, argv, &a, &rs->ro);
    if (rc != CLI_OK) {
        free(rs);
        return rc == CLI_ARGS_HELP ? CLI_OK : rc;
    }
    run *r = calloc(1, sizeof *r);
    if (r == NULL) {
        free(rs);
        fprintf(stderr, ME ": out of memory\n");
        return CLI_FAILED;
    }
    rc = render_main(r, rs, &a.o);
    render_close(rs);
    run_close(r);
    free(r);
    free(rs);
    return rc;
}

#else /* no renderer in this build */

int cmd_render(int argc, char **argv)
{
    run_args a;
    render_opts ro;
    int rc = parse_args(argc, argv, &a, &ro);
    if (rc != CLI_OK) {
        return rc == CLI_ARGS_HELP ? CLI_OK : rc;
    }
    if (ro.out_dir != NULL && (rc = prepare_dir(ro.out_dir)) != CLI_OK) {
        return rc;
    }
    fprintf(stderr, ME ": this build has no renderer (it needs the Vulkan backend: SLUICE_VULKAN=ON)\n");
    return CLI_FAILED;
}

#endif
