/* SPDX-License-Identifier: MIT */
/* The streaming tools' shared start-up (session.h). */
#include "session.h"

#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "sluice/host_store.h"
#include "sluice/pool_spec.h"

static tool_session_step fail(tool_session *s, tool_session_step step, slc_status st)
{
    s->status = st;
    return step;
}

tool_session_step tool_session_open(const tool_session_desc *d, tool_session *s)
{
    memset(s, 0, sizeof *s);
    const slc_io *io = d->io;
    slc_status st;
    if (d->pack_path != NULL) {
        if ((st = slc_platform_file_open(d->pack_path, d->file_flags, &cli_stderr_logger, &s->file)) != SLC_OK) {
            return fail(s, TOOL_SESSION_FILE, st);
        }
        s->file_open = 1;
        io = &s->file.io;
    }
    slc_memory_requirements req;
    if ((st = slc_memory_calculate_requirements(d->profile, &req)) != SLC_OK) {
        if (d->profile_path != NULL) {
            fprintf(stderr, "%s: %s: the profile needs more memory than this machine can address\n", d->me,
                    d->profile_path);
        }
        return fail(s, TOOL_SESSION_LAYOUT, st);
    }
    char why[512]; /* before mapping: memory this machine cannot give is refused, not populated */
    if (d->check_machine && cli_check_machine_memory(d->profile, req.block_size, 0, 0, why, sizeof why) != 0) {
        fprintf(stderr, "%s: %s\n", d->me, why);
        return fail(s, TOOL_SESSION_MACHINE, SLC_E_CAPACITY);
    }
    if ((st = slc_platform_block_map(req.block_size, SLC_PLATFORM_BLOCK_DEFAULT, &cli_stderr_logger, &s->block)) !=
        SLC_OK) {
        return fail(s, TOOL_SESSION_BLOCK, st);
    }
    if ((st = slc_memory_init(s->block.base, s->block.size, d->profile, &cli_stderr_logger, &s->mem)) != SLC_OK) {
        return fail(s, TOOL_SESSION_MEMORY, st);
    }
    slc_arena *meta = NULL;
    if ((st = slc_memory_scan_arena(s->mem, "cpu/meta", &meta)) != SLC_OK) {
        fprintf(stderr, "%s: profile '%s' has no cpu/meta arena for the pack's tables\n", d->me, d->profile->name);
        return fail(s, TOOL_SESSION_META, st);
    }
    if ((st = slc_pack_open(io, d->pack_name, d->profile, meta, &cli_stderr_logger, &s->pack)) != SLC_OK) {
        return fail(s, TOOL_SESSION_PACK, st);
    }
    return TOOL_SESSION_OPEN;
}

void tool_session_set_store(tool_session *s, const slc_page_store *store, void (*close)(void *ctx), void *ctx)
{
    s->store = store;
    s->store_close = close;
    s->store_ctx = ctx;
}

slc_status tool_session_start_stream(tool_session *s, const slc_stream_desc *d)
{
    return slc_stream_create(d, &s->stream);
}

int tool_session_open_host_store(const tool_session *s, const slc_profile *prof, slc_pool_kind kind,
                                 slc_platform_block *blk, slc_page_store *out, const char *me)
{
    slc_host_store_desc hd;
    slc_pool_spec spec;
    slc_pool_spec_from_profile(prof, kind, &spec);
    slc_host_store_desc_from_spec(&spec, &hd);
    const uint32_t pages = hd.page_count, page_size = hd.page_size;
    size_t fp = slc_host_store_footprint(pages, page_size);
    if (fp == 0) {
        fprintf(stderr, "%s: profile '%s': %u pages of %u bytes do not fit this machine\n", me, prof->name, pages,
                page_size);
        return CLI_FAILED;
    }
    slc_budgets *b = spec.budget != NULL ? slc_memory_budgets(s->mem) : NULL;
    slc_budget_id id = SLC_BUDGET_NONE;
    if (b != NULL && slc_budgets_scan(b, spec.budget, &id) != SLC_OK) {
        fprintf(stderr, "%s: profile '%s' declares no %s budget to charge the host store's pages to\n", me, prof->name,
                spec.budget);
        return CLI_FAILED;
    }
    char why[512];
    if (cli_check_machine_memory(prof, s->block.size, fp, 1, why, sizeof why) != 0) {
        fprintf(stderr, "%s: %s\n", me, why);
        return CLI_FAILED;
    }
    if (slc_platform_block_map(fp, SLC_PLATFORM_BLOCK_DEFAULT, &cli_stderr_logger, blk) != SLC_OK) {
        fprintf(stderr, "%s: profile '%s': the host store of %u pages of %u bytes cannot be mapped (see above)\n", me,
                prof->name, pages, page_size);
        return CLI_FAILED;
    }
    slc_status hs = slc_host_store_init_at(blk->base, fp, b, id, pages, page_size, &cli_stderr_logger, out);
    if (hs != SLC_OK) {
        fprintf(stderr, "%s: the host store of %u pages of %u bytes %s%s%s of profile '%s' (%s)\n", me, pages,
                page_size, hs == SLC_E_BUDGET_REFUSED ? "does not fit the " : "cannot be set up in the block",
                hs == SLC_E_BUDGET_REFUSED ? spec.budget : "", hs == SLC_E_BUDGET_REFUSED ? " budget" : "", prof->name,
                slc_status_name(hs));
        return CLI_FAILED;
    }
    return CLI_OK;
}

uint32_t tool_mark_texture_tails(const slc_pack *pack, uint8_t *marks, uint64_t *bytes)
{
    uint32_t marked = 0;
    for (uint32_t i = 0; i < slc_pack_texture_count(pack); i++) {
        slc_chunk_id tail;
        if (slc_pack_texture_tail(pack, i, &tail) == SLC_OK && (marks == NULL || !marks[tail.index])) {
            if (marks != NULL) {
                marks[tail.index] = 1;
            }
            marked++;
            if (bytes != NULL) {
                *bytes += slc_pack_get_chunk(pack, tail)->decoded_size;
            }
        }
    }
    return marked;
}

int tool_texture_pool_missing(const slc_pack *pack, const slc_profile *prof, const char *me)
{
    const uint32_t textures = slc_pack_texture_count(pack);
    if (textures == 0 || slc_pool_kind_declared(prof, SLC_POOL_TEXTURES)) {
        return 0;
    }
    if (me != NULL) {
        fprintf(stderr,
                "%s: the pack has %u textures, but profile '%s' declares no texture pool ([textures] page_count) to "
                "stream them in\n",
                me, textures, prof->name);
    }
    return 1;
}

int tool_texture_memory_of(const slc_pack *pack, tool_texture_memory *out)
{
    memset(out, 0, sizeof *out);
    out->textures = slc_pack_texture_count(pack);
    for (uint32_t i = 0; i < out->textures; i++) {
        slc_pack_texture t;
        if (slc_pack_read_texture(pack, i, &t) != SLC_OK) {
            memset(out, 0, sizeof *out);
            return -1;
        }
        if (i == 0) {
            uint32_t bw = 1, bh = 1, bytes = 4;
            (void)slc_pack_texel_block(t.format, &bw, &bh, &bytes);
            out->format = t.format;
            out->bytes_per_texel = (double)bytes / ((double)bw * bh);
        }
        out->chunk_pages += t.chunk_count;
        for (uint32_t l = 0; l < t.level_count; l++) {
            uint64_t w = t.width >> l, h = t.height >> l;
            out->rgba8_bytes += (w ? w : 1u) * (h ? h : 1u) * 4u;
        }
    }
    for (uint32_t i = 0; i < slc_pack_material_count(pack); i++) {
        slc_pack_material m;
        if (slc_pack_read_material(pack, i, &m) != SLC_OK) {
            memset(out, 0, sizeof *out);
            return -1;
        }
        uint32_t n = 0;
        for (uint32_t k = 0; k < SLC_PACK_SLOT_COUNT; k++) {
            n += m.slot[k].texture != 0;
        }
        out->layers = n > out->layers ? n : out->layers;
    }
    return 0;
}

double tool_texture_floor_bytes(const tool_texture_memory *m, uint32_t width, uint32_t height)
{
    return (double)width * height * m->layers * (4.0 / 3.0) * m->bytes_per_texel;
}

uint32_t tool_pool_partitions(const slc_profile *prof, slc_pool_kind kind, const char **names, uint32_t *pages,
                              uint32_t *pin)
{
    const int tex = kind == SLC_POOL_TEXTURES;
    const uint32_t count = tex ? prof->texture_partition_count : prof->partition_count;
    const slc_profile_partition *parts = tex ? prof->texture_partitions : prof->partitions;
    const uint32_t page_count = tex ? prof->texture_page_count : prof->page_count;
    uint64_t claimed = 0;
    uint32_t n = 0;
    for (uint32_t i = 0; i < count && i < SLC_PARTITION_MAX; i++) {
        names[n] = parts[i].name;
        pages[n++] = parts[i].page_count;
        claimed += parts[i].page_count;
    }
    *pin = 0; /* every page named: the first takes the pins (slc_stream_create) */
    if (claimed < page_count) {
        names[n] = SLC_PROFILE_PARTITION_DEFAULT_NAME;
        pages[n] = page_count - (uint32_t)claimed;
        *pin = n++;
    }
    return n;
}

int tool_pool_partition_index(const slc_profile *prof, slc_pool_kind kind, const char *name)
{
    const char *names[SLC_PARTITION_MAX + 1];
    uint32_t pages[SLC_PARTITION_MAX + 1], pin;
    uint32_t n = tool_pool_partitions(prof, kind, names, pages, &pin);
    for (uint32_t k = 0; k < n; k++) {
        if (strcmp(names[k], name) == 0) {
            return (int)k;
        }
    }
    return -1;
}

int tool_session_open_texture_store(tool_session *s, const slc_profile *prof, const slc_page_store *device,
                                    const char *me)
{
    if (!slc_pool_kind_declared(prof, SLC_POOL_TEXTURES)) {
        return CLI_OK;
    }
    if (tool_session_open_host_store(s, prof, SLC_POOL_TEXTURES, &s->tex_block, &s->tex_store, me) != CLI_OK) {
        return CLI_FAILED;
    }
    s->tex_store.backend = device->backend;
    s->tex_store.device = device->device;
    s->tex_store.sampled_formats = device->sampled_formats;
    return CLI_OK;
}

void tool_session_close(tool_session *s)
{
    if (s->stream != NULL) {
        slc_stream_destroy(s->stream);
    }
    if (s->store_close != NULL) {
        s->store_close(s->store_ctx);
    }
    if (s->tex_store.ops != NULL) {
        slc_host_store_deinit(&s->tex_store);
    }
    if (s->tex_block.base != NULL) {
        slc_platform_block_unmap(&s->tex_block);
    }
    if (s->pack != NULL) {
        slc_pack_close(s->pack);
    }
    if (s->file_open) {
        slc_platform_file_close(&s->file);
    }
    if (s->mem != NULL) {
        slc_memory_deinit(s->mem);
    }
    if (s->block.base != NULL) {
        slc_platform_block_unmap(&s->block);
    }
    memset(s, 0, sizeof *s);
}

int tool_session_exit_code(tool_session_step step)
{
    return step == TOOL_SESSION_OPEN ? CLI_OK : step == TOOL_SESSION_FILE ? CLI_IO : CLI_FAILED;
}

void tool_session_stream_desc(const tool_session *s, const slc_profile *prof, const slc_page_store *store,
                              const slc_logger *log, slc_stream_desc *out)
{
    memset(out, 0, sizeof *out);
    out->profile = prof;
    out->memory = s->mem;
    out->pack = s->pack;
    out->stores[SLC_POOL_GEOMETRY] = store;
    out->stores[SLC_POOL_TEXTURES] = s->tex_device != NULL      ? s->tex_device
                                     : s->tex_store.ops != NULL ? &s->tex_store
                                                                : NULL;
    out->now_ns = slc_platform_now_ns;
    out->load_frames = SLC_STREAM_DEFAULT_LOAD_FRAMES;
    out->log = log;
}
