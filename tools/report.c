/* SPDX-License-Identifier: MIT */
/* sluice CLI: shared helpers and the memory report's text and JSON forms. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "escape.h"
#include "sluice/pack.h"
#include "sluice/platform.h"

static void log_stderr(void *user, slc_log_level level, slc_status status, const char *message)
{
    static const char *const names[] = {"error", "warning", "info", "debug"};
    (void)user;
    fprintf(stderr, "sluice: %s: %s (%s)\n", names[level & 3], message, slc_status_name(status));
}

const slc_logger cli_stderr_logger = {log_stderr, NULL};

char *cli_read_file(const char *path, size_t max, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "sluice: %s: %s\n", path, strerror(errno));
        return NULL;
    }
    char *buf = malloc(max + 1);
    size_t n = buf ? fread(buf, 1, max + 1, f) : 0;
    int err = ferror(f);
    (void)fclose(f); /* read only: nothing to lose */
    if (buf == NULL || err) {
        fprintf(stderr, "sluice: %s: read failed\n", path);
        free(buf);
        return NULL;
    }
    if (n > max) {
        fprintf(stderr, "sluice: %s: larger than %zu bytes\n", path, max);
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

const char *cli_codec_needs(uint32_t needs, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = '\0';
    for (uint32_t bit = 1; bit != 0 && bit <= needs; bit <<= 1) {
        const char *name = (needs & bit) != 0 ? slc_pack_build_option_name(bit) : NULL;
        if (name != NULL && n < cap) {
            n += (size_t)snprintf(buf + n, cap - n, "%s%s=ON", n > 0 ? " and " : "", name);
        }
    }
    if (n == 0) {
        snprintf(buf, cap, "no codec option");
    }
    return buf;
}

int cli_refuse_host_only(const char *me, const char *path, const slc_profile *p, const char *what)
{
    if (!slc_profile_scan_host_only(p)) {
        return CLI_OK;
    }
    char why[320];
    slc_status s = slc_profile_refuse_host_only(p->name, what, why, sizeof why);
    fprintf(stderr, "%s: %s%s%s (%s)\n", me, path != NULL ? path : "", path != NULL ? ": " : "", why,
            slc_status_name(s));
    return CLI_FAILED;
}

int cli_load_profile(const char *path, slc_profile *out)
{
    return cli_load_profile_sections(path, out, NULL);
}

int cli_load_profile_sections(const char *path, slc_profile *out, tool_profile_sections *sections)
{
    size_t len = 0;
    char *text = cli_read_file(path, 1u << 20, &len);
    if (text == NULL) {
        return CLI_IO;
    }
    slc_profile_diag diag;
    slc_status s = tool_profile_parse(text, len, path, out, sections, &diag);
    free(text);
    if (s != SLC_OK) {
        fprintf(stderr, "%s (%s)\n", diag.message, slc_status_name(s));
        return CLI_FAILED;
    }
    return CLI_OK;
}

const char *cli_size(unsigned long long v, char *buf, size_t cap)
{
    static const char *const units[] = {"TiB", "GiB", "MiB", "KiB"};
    for (int i = 0; i < 4; i++) {
        unsigned long long scale = 1ull << (10 * (4 - i));
        if (v != 0 && v % scale == 0) {
            snprintf(buf, cap, "%llu %s", v / scale, units[i]);
            return buf;
        }
    }
    snprintf(buf, cap, "%llu B", v);
    return buf;
}

/* "23.4 GiB": one decimal in the largest unit, or cli_size's exact form. */
const char *cli_size_approx(uint64_t v, char *buf, size_t cap)
{
    static const char *const units[] = {"TiB", "GiB", "MiB", "KiB"};
    for (int i = 0; i < 4; i++) {
        uint64_t scale = 1ull << (10 * (4 - i));
        if (v >= scale && v % scale != 0) {
            snprintf(buf, cap, "%.1f %s", (double)v / (double)scale, units[i]);
            return buf;
        }
        if (v >= scale) {
            break;
        }
    }
    return cli_size(v, buf, cap);
}

/* "memory block of 64 MiB (...)", "host page pool of ...", or both. */
static void describe(const slc_profile *p, uint64_t block, uint64_t pool, char *what, size_t cap)
{
    char a[32], b[32], c[32], t[32], pages[96];
    snprintf(pages, sizeof pages, "%s: %" PRIu32 " pages of %s",
             slc_profile_scan_host_only(p) ? "[pool], host-only" : "gpu/pool", p->page_count,
             cli_size(p->page_size, c, sizeof c));
    if (pool == 0) {
        snprintf(what, cap, "memory block of %s (the cpu budgets' arenas) exceeds",
                 cli_size_approx(block, a, sizeof a));
    } else if (block == 0) {
        snprintf(what, cap, "host page pool of %s (%s) exceeds", cli_size_approx(pool, a, sizeof a), pages);
    } else {
        snprintf(what, cap, "memory block of %s and host page pool of %s (%s), %s together, exceed",
                 cli_size_approx(block, a, sizeof a), cli_size_approx(pool, b, sizeof b), pages,
                 cli_size_approx(block + pool, t, sizeof t));
    }
}

int cli_check_machine_memory(const slc_profile *p, uint64_t block, uint64_t pool, int block_mapped, char *msg,
                             size_t cap)
{
    slc_platform_memory_limits lim;
    slc_platform_query_memory_limits(&lim);
    char what[256], a[32], b[32], c[32];
    /* Both are host memory: together against the machine. */
    if (lim.physical != 0 && block + pool > lim.physical) {
        describe(p, block, pool, what, sizeof what);
        snprintf(msg, cap, "profile '%s': %s this machine's physical memory of %s", p->name, what,
                 cli_size_approx(lim.physical, a, sizeof a));
        return -1;
    }
    /* A block already mapped is in the address space in use. */
    uint64_t ask = block_mapped ? pool : block + pool;
    if (lim.address_space_limit != UINT64_MAX) {
        uint64_t left = lim.address_space_limit > lim.address_space_used
                            ? lim.address_space_limit - lim.address_space_used
                            : 0;
        if (ask > left) {
            describe(p, block_mapped ? 0 : block, pool, what, sizeof what);
            snprintf(msg, cap,
                     "profile '%s': %s the %s that the address-space limit (RLIMIT_AS, ulimit -v) of %s leaves this "
                     "process (%s in use)",
                     p->name, what, cli_size_approx(left, a, sizeof a),
                     cli_size_approx(lim.address_space_limit, b, sizeof b),
                     cli_size_approx(lim.address_space_used, c, sizeof c));
            return -1;
        }
    }
    return 0;
}

/* The profile's [render] and [quality] sections: what the reference
 * renderer is sized for ("default": not declared, the renderer's own) and the
 * floor its frames must keep against the unlimited reference. */
static void report_render_field(char *buf, size_t cap, uint32_t v)
{
    if (v) {
        snprintf(buf, cap, "%" PRIu32, v);
    } else {
        snprintf(buf, cap, "default");
    }
}

static void report_render_line(FILE *f, const tool_profile_sections *sec)
{
    char w[16], h[16], draws[16], places[16];
    const slc_render_profile *rp = &sec->render;
    const uint32_t floor = sec->quality.min_psnr_mdb;
    report_render_field(w, sizeof w, rp->width);
    report_render_field(h, sizeof h, rp->height);
    report_render_field(draws, sizeof draws, rp->max_draws);
    report_render_field(places, sizeof places, rp->max_placements);
    fprintf(f, "render: width %s, height %s, draws %s, placements %s a frame; ", w, h, draws, places);
    if (floor) {
        fprintf(f, "quality floor %" PRIu32 ".%03" PRIu32 " dB PSNR\n", floor / 1000u, floor % 1000u);
    } else {
        fprintf(f, "no quality floor\n");
    }
}

/* One line per named partition of a pool of page_count pages ("what NAME
 * N pages"), then the default's (the pages they leave), when any is named. */
static void report_partition_lines(FILE *f, const char *what, uint32_t count, const slc_profile_partition *parts,
                                   uint32_t page_count)
{
    uint32_t assigned = 0;
    for (uint32_t i = 0; i < count; i++) {
        fprintf(f, "%s %-16s %" PRIu32 " pages\n", what, parts[i].name, parts[i].page_count);
        assigned += parts[i].page_count;
    }
    if (count > 0) {
        fprintf(f, "%s %-16s %" PRIu32 " pages\n", what, "default", page_count - assigned);
    }
}

static void partitions_json(FILE *f, uint32_t count, const slc_profile_partition *parts)
{
    fputc('[', f);
    for (uint32_t i = 0; i < count; i++) {
        fprintf(f, "%s{\"name\": ", i ? ", " : "");
        esc_json(f, parts[i].name);
        fprintf(f, ", \"pages\": %" PRIu32 "}", parts[i].page_count);
    }
    fputc(']', f);
}

void report_memory_text(FILE *f, const slc_profile *p, const tool_profile_sections *sec,
                        const slc_memory_requirements *req, slc_memory *m)
{
    slc_budgets *b = slc_memory_budgets(m);
    slc_budget_stats st[SLC_BUDGET_MAX];
    size_t n = slc_budgets_walk_report(b, st, SLC_BUDGET_MAX);
    char l[32], a[32], c[32], pk[32];
    fprintf(f, "profile %s\n\n", p->name);
    fprintf(f, "%-24s %12s  %-7s %12s %12s %12s %8s\n", "budget", "limit", "memory", "arena", "current", "peak",
            "refused");
    /* Print the tree depth-first so children sit under their parent. */
    size_t order[SLC_BUDGET_MAX], stack[SLC_BUDGET_MAX], depth = 0, k = 0;
    for (size_t r = n; r-- > 0;) {
        if (st[r].parent.index == SLC_BUDGET_NONE_INDEX) {
            stack[depth++] = r;
        }
    }
    while (depth > 0) {
        size_t i = stack[--depth];
        order[k++] = i;
        for (size_t j = n; j-- > 0;) {
            if (st[j].parent.index == i) {
                stack[depth++] = j;
            }
        }
    }
    for (size_t o = 0; o < k; o++) {
        const slc_budget_stats *s = &st[order[o]];
        slc_arena *ar = slc_memory_arena(m, s->id);
        slc_arena_stats as = {0};
        if (ar != NULL) {
            slc_arena_get_stats(ar, &as);
        }
        char name[64];
        snprintf(name, sizeof name, "%*s%s", (int)(2 * s->depth), "", s->name);
        int host = strncmp(s->name, "cpu", 3) == 0;
        fprintf(f, "%-24s %12s  %-7s %12s %12s %12s %8" PRIu64 "\n", name, cli_size(s->limit, l, sizeof l),
                host ? "block" : "device", ar ? cli_size(as.capacity, a, sizeof a) : "-",
                cli_size(s->current, c, sizeof c), cli_size(s->peak, pk, sizeof pk), s->refused);
    }
    size_t phases = slc_budgets_phase_count(b);
    if (phases > 1) {
        fprintf(f, "\nphase peaks (start -> peak -> end):\n");
        for (size_t ph = 0; ph < phases; ph++) {
            for (size_t i = 0; i < n; i++) {
                slc_phase_stats ps;
                slc_budgets_get_phase(b, ph, st[i].id, &ps);
                if (ps.peak == 0 && ps.start == 0 && ps.end == 0) {
                    continue;
                }
                fprintf(f, "  %-10s %-20s %12" PRIu64 " %12" PRIu64 " %12" PRIu64 "%s\n", ps.phase, st[i].name,
                        ps.start, ps.peak, ps.end, ps.ended ? "" : " (current)");
            }
        }
    }
    fprintf(f, "\npool: %" PRIu32 " pages x %s = %s; staging %s; upload %s a frame\n", p->page_count,
            cli_size(p->page_size, l, sizeof l), cli_size((uint64_t)p->page_size * p->page_count, a, sizeof a),
            cli_size(p->staging_size, c, sizeof c), cli_size(p->upload_cap, pk, sizeof pk));
    fprintf(f, "eviction: %s\n", slc_profile_policy_name(p->eviction));
    if (p->texture_page_count > 0) {
        fprintf(
            f, "textures: %s; pool %" PRIu32 " pages x %s = %s, eviction %s%s",
            slc_pack_texel_format_name(p->texture_format), p->texture_page_count, cli_size(p->page_size, l, sizeof l),
            cli_size((uint64_t)p->page_size * p->texture_page_count, a, sizeof a),
            slc_profile_policy_name(p->texture_eviction), p->texture_pin_tiles ? "; every tile pinned at create" : "");
        uint32_t upload = 0, tiles = 0;
        if (p->texture_staging_size == 0) {
            fprintf(f, "; no staging belt (atlas images need one: the tiles stay in host memory)\n");
        } else if (slc_stream_get_upload_cap(p, SLC_STREAM_DEFAULT_LOAD_FRAMES, false, NULL, &upload) == SLC_OK &&
                   slc_stream_get_tile_cap(p, SLC_STREAM_DEFAULT_LOAD_FRAMES, upload, NULL, &tiles) == SLC_OK) {
            fprintf(f, "; staging %s into atlas images, %" PRIu32 " tile loads a frame\n",
                    cli_size(p->texture_staging_size, c, sizeof c), tiles);
        } else {
            fprintf(f, "; staging %s into atlas images, less than a page a frame: the stream refuses to start\n",
                    cli_size(p->texture_staging_size, c, sizeof c));
        }
    } else {
        fprintf(f, "textures: %s; no texture pool\n", slc_pack_texel_format_name(p->texture_format));
    }
    report_partition_lines(f, "partition", p->partition_count, p->partitions, p->page_count);
    report_partition_lines(f, "texture partition", p->texture_partition_count, p->texture_partitions,
                           p->texture_page_count);
    fprintf(f, "stream: %" PRIu32 " frames in flight, %" PRIu32 " workers, queues of %" PRIu32 "\n",
            p->frames_in_flight, p->workers, p->queue_capacity);
    fprintf(f, "tables: %" PRIu32 " objects, %" PRIu32 " chunks, %" PRIu32 " LODs, %s of strings\n", p->max_objects,
            p->max_chunks, p->max_lods, cli_size(p->max_string_bytes, l, sizeof l));
    report_render_line(f, sec);
    fprintf(f, "\nblock: %zu bytes, aligned to %zu (%zu in %" PRIu32 " arenas + %zu of bookkeeping)\n", req->block_size,
            req->block_align, req->arena_bytes, req->arena_count, req->overhead);
}

void report_memory_json(FILE *f, const slc_profile *p, const tool_profile_sections *sec,
                        const slc_memory_requirements *req, slc_memory *m)
{
    slc_budgets *b = slc_memory_budgets(m);
    slc_budget_stats st[SLC_BUDGET_MAX];
    size_t n = slc_budgets_walk_report(b, st, SLC_BUDGET_MAX);
    /* Every string through esc_json: names come from files. */
    fputs("{\n  \"profile\": ", f);
    esc_json(f, p->name);
    fprintf(f,
            ",\n  \"block\": {\"size\": %zu, \"align\": %zu, \"arena_bytes\": %zu, \"arenas\": %" PRIu32
            ", \"overhead\": %zu},\n",
            req->block_size, req->block_align, req->arena_bytes, req->arena_count, req->overhead);
    fprintf(f, "  \"budgets\": [\n");
    for (size_t i = 0; i < n; i++) {
        const slc_budget_stats *s = &st[i];
        slc_arena *ar = slc_memory_arena(m, s->id);
        slc_arena_stats as = {0};
        if (ar != NULL) {
            slc_arena_get_stats(ar, &as);
        }
        fputs("    {\"name\": ", f);
        esc_json(f, s->name);
        fputs(", \"parent\": ", f);
        esc_json(f, s->parent.index == SLC_BUDGET_NONE_INDEX ? NULL : st[s->parent.index].name);
        fprintf(f,
                ", \"limit\": %" PRIu64 ", \"arena\": %zu, \"current\": %" PRIu64 ", \"peak\": %" PRIu64
                ", \"reservations\": %" PRIu64 ", \"refused\": %" PRIu64 ", \"refused_here\": %" PRIu64 "}%s\n",
                s->limit, as.capacity, s->current, s->peak, s->reservations, s->refused, s->refused_here,
                i + 1 < n ? "," : "");
    }
    fprintf(f, "  ],\n  \"phases\": [\n");
    size_t phases = slc_budgets_phase_count(b);
    for (size_t ph = 0; ph < phases; ph++) {
        slc_phase_stats first;
        slc_budgets_get_phase(b, ph, st[0].id, &first);
        fprintf(f, "    {\"index\": %zu, \"name\": ", ph);
        esc_json(f, first.phase);
        fprintf(f, ", \"ended\": %s, \"peaks\": [", first.ended ? "true" : "false");
        for (size_t i = 0; i < n; i++) {
            slc_phase_stats ps;
            slc_budgets_get_phase(b, ph, st[i].id, &ps);
            fputs("{\"budget\": ", f);
            esc_json(f, st[i].name);
            fprintf(f, ", \"start\": %" PRIu64 ", \"peak\": %" PRIu64 ", \"end\": %" PRIu64 "}%s", ps.start, ps.peak,
                    ps.end, i + 1 < n ? ", " : "");
        }
        fprintf(f, "]}%s\n", ph + 1 < phases ? "," : "");
    }
    fprintf(f,
            "  ],\n  \"pool\": {\"page_size\": %" PRIu32 ", \"page_count\": %" PRIu32 ", \"eviction\": \"%s\"},\n"
            "  \"stream\": {\"frames_in_flight\": %" PRIu32 ", \"workers\": %" PRIu32 ", \"queue_capacity\": %" PRIu32
            ", \"staging_size\": %" PRIu64 ", \"upload_per_frame\": %" PRIu64 "},\n"
            "  \"tables\": {\"max_objects\": %" PRIu32 ", \"max_chunks\": %" PRIu32 ", \"max_lods\": %" PRIu32
            ", \"max_string_bytes\": %" PRIu64 "},\n"
            "  \"textures\": {\"format\": \"%s\", \"page_count\": %" PRIu32
            ", \"eviction\": \"%s\", \"pin_tiles\": %s, \"staging_size\": %" PRIu64 "},\n",
            p->page_size, p->page_count, slc_profile_policy_name(p->eviction), p->frames_in_flight, p->workers,
            p->queue_capacity, p->staging_size, p->upload_cap, p->max_objects, p->max_chunks, p->max_lods,
            p->max_string_bytes, slc_pack_texel_format_name(p->texture_format), p->texture_page_count,
            slc_profile_policy_name(p->texture_eviction), p->texture_pin_tiles ? "true" : "false",
            p->texture_staging_size);
    fprintf(f,
            "  \"render\": {\"width\": %" PRIu32 ", \"height\": %" PRIu32 ", \"max_draws\": %" PRIu32
            ", \"max_placements\": %" PRIu32 "},\n",
            sec->render.width, sec->render.height, sec->render.max_draws, sec->render.max_placements);
    if (sec->quality.min_psnr_mdb) {
        fprintf(f, "  \"quality\": {\"min_psnr_db\": %" PRIu32 ".%03" PRIu32 "},\n", sec->quality.min_psnr_mdb / 1000u,
                sec->quality.min_psnr_mdb % 1000u);
    } else {
        fprintf(f, "  \"quality\": {\"min_psnr_db\": null},\n");
    }
    fprintf(f, "  \"partitions\": ");
    partitions_json(f, p->partition_count, p->partitions);
    fprintf(f, ",\n  \"texture_partitions\": ");
    partitions_json(f, p->texture_partition_count, p->texture_partitions);
    fprintf(f, "\n}\n");
}

static size_t pack_meta_bytes(const slc_io *io)
{
    slc_pack_header h;
    memset(&h, 0, sizeof h);
    if (io->size >= sizeof h && io->read(io->user, 0, &h, sizeof h) != SLC_OK) {
        memset(&h, 0, sizeof h); /* slc_pack_open will say what is wrong */
    }
    /* The tables as slc_pack_open lays them out (each rounded to 16), the
     * reader's own record, and room to spare; a lying header is refused by
     * slc_pack_open before the arena matters. */
    uint64_t bytes = (uint64_t)h.chunk_count * sizeof(slc_pack_chunk) +
                     (uint64_t)h.object_count * sizeof(slc_pack_object) + (uint64_t)h.lod_count * sizeof(slc_pack_lod) +
                     (uint64_t)h.span_count * sizeof(slc_pack_span) +
                     (uint64_t)h.instance_count * sizeof(slc_pack_instance) + h.string_size + (uint64_t)7 * 16 + 4096;
    return bytes > io->size + 4096 ? (size_t)(io->size + 4096) : (size_t)bytes;
}

int cli_pack_open(const char *path, unsigned flags, const slc_logger *log, cli_pack *out)
{
    memset(out, 0, sizeof *out);
    if (slc_platform_file_open(path, flags, &cli_stderr_logger, &out->file) != SLC_OK) {
        return CLI_IO;
    }
    /* The tools size the table arena from the pack itself (a device sizes it
     * from its profile); the capacities are the format's own limits. */
    size_t size = SLC_ARENA_FOOTPRINT(pack_meta_bytes(&out->file.io));
    out->arena_mem = aligned_alloc(SLC_ARENA_ALIGN, (size + SLC_ARENA_ALIGN - 1) & ~(size_t)(SLC_ARENA_ALIGN - 1));
    slc_arena *meta = NULL;
    if (out->arena_mem == NULL || slc_arena_init(out->arena_mem, size, NULL, SLC_BUDGET_NONE, &meta) != SLC_OK) {
        fprintf(stderr, "sluice: %s: out of memory\n", path);
        cli_pack_close(out);
        return CLI_FAILED;
    }
    slc_profile limits;
    memset(&limits, 0, sizeof limits);
    limits.page_size = SLC_PAGE_SIZE_MAX;
    limits.max_chunks = UINT32_MAX;
    limits.max_objects = UINT32_MAX;
    limits.max_lods = UINT32_MAX;
    limits.max_string_bytes = UINT64_MAX;
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    if (slc_pack_open(&out->file.io, base, &limits, meta, log, &out->pack) != SLC_OK) {
        cli_pack_close(out);
        return CLI_FAILED;
    }
    return CLI_OK;
}

void cli_pack_close(cli_pack *p)
{
    if (p->pack != NULL) {
        slc_pack_close(p->pack);
    }
    free(p->arena_mem);
    slc_platform_file_close(&p->file);
    memset(p, 0, sizeof *p);
}
