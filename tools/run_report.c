/* SPDX-License-Identifier: MIT */
/* sluice run: the report's text and JSON forms (see run_report.h). */
#include "run_report.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "escape.h"

/* The first failed loads the stream recorded (at most RUN_FAILED_NAMED_MAX). */
uint32_t run_failures_named(const slc_stream_stats *st)
{
    uint32_t n = st->failure_records < SLC_STREAM_FAILURE_RECORDS ? st->failure_records : SLC_STREAM_FAILURE_RECORDS;
    return n < RUN_FAILED_NAMED_MAX ? n : RUN_FAILED_NAMED_MAX;
}

void run_chunk_place_of(const slc_pack *pack, slc_chunk_id c, run_chunk_place *w)
{
    memset(w, 0, sizeof *w);
    w->texture = -1;
    for (uint32_t i = 0; i < slc_pack_texture_count(pack); i++) {
        slc_pack_texture t;
        slc_pack_texture_layout lay;
        if (slc_pack_read_texture(pack, i, &t) != SLC_OK || c.index < t.first_chunk ||
            c.index - t.first_chunk >= t.chunk_count ||
            slc_pack_texture_layout_of(t.width, t.height, t.format, t.tile, t.border, &lay) != 0) {
            continue;
        }
        const uint32_t at = c.index - t.first_chunk;
        w->texture = (int)i;
        w->name = t.name != SLC_PACK_NO_NAME ? slc_pack_get_string(pack, t.name) : NULL;
        w->tail = at >= lay.tiles;
        for (uint32_t l = 0; !w->tail && l < lay.tiled_levels; l++) {
            if (at >= lay.first[l]) {
                w->level = l;
                w->tile = at - lay.first[l];
            }
        }
        return;
    }
}

/* " (texture 0 'brick', level 1, tile 2)", or "" for geometry. */
static void place_text(const run_chunk_place *w, char *buf, size_t cap)
{
    char where[48];
    buf[0] = '\0';
    if (w->texture < 0) {
        return;
    }
    if (w->tail) {
        snprintf(where, sizeof where, "mip tail");
    } else {
        snprintf(where, sizeof where, "level %u, tile %u", w->level, w->tile);
    }
    snprintf(buf, cap, " (texture %d%s%.64s%s, %s)", w->texture, w->name ? " '" : "", w->name ? w->name : "",
             w->name ? "'" : "", where);
}

void run_describe_chunk_place(const slc_pack *pack, slc_chunk_id c, char *buf, size_t cap)
{
    run_chunk_place w;
    run_chunk_place_of(pack, c, &w);
    place_text(&w, buf, cap);
}

/* "first: chunk 3 SLC_E_PACK_CHUNK_CHECKSUM (frame 2), ..." */
void run_describe_failures(const slc_pack *pack, const slc_stream_stats *st, char *buf, size_t cap)
{
    uint32_t n = run_failures_named(st);
    size_t k = (size_t)snprintf(buf, cap, "%s", n ? "first:" : "no chunk named");
    for (uint32_t i = 0; i < n && k < cap; i++) {
        const slc_stream_failure *e = &st->first_failures[i];
        char place[128];
        run_describe_chunk_place(pack, e->chunk, place, sizeof place);
        k += (size_t)snprintf(buf + k, cap - k, "%s chunk %u%s %s (frame %" PRIu64 ")", i ? "," : "", e->chunk.index,
                              place, slc_status_name(e->status), e->frame);
    }
}

/* Inserts h into top[0 .. *n) by share, largest first, ties by object. */
static void holders_insert(run_holder *top, uint32_t *n, const run_holder *h)
{
    uint32_t at = *n;
    while (at > 0 &&
           (top[at - 1].pages < h->pages || (top[at - 1].pages == h->pages && top[at - 1].object > h->object))) {
        at--;
    }
    if (at >= RUN_HOLDERS_MAX) {
        return;
    }
    uint32_t last = *n < RUN_HOLDERS_MAX ? *n : RUN_HOLDERS_MAX - 1u;
    for (uint32_t i = last; i > at; i--) {
        top[i] = top[i - 1];
    }
    top[at] = *h;
    if (*n < RUN_HOLDERS_MAX) {
        (*n)++;
    }
}

void run_pool_holders(const slc_pack *pack, const slc_pool *pool, run_holder top[RUN_HOLDERS_MAX], uint32_t *named,
                      uint32_t *holders, uint32_t *pages)
{
    const slc_pack_header *h = slc_pack_get_header(pack);
    *named = 0;
    *holders = 0;
    *pages = 0;
    for (uint32_t c = 0; c < h->chunk_count; c++) {
        slc_page_info info;
        if (slc_pool_lookup(pool, (slc_chunk_id){c}, &info) == SLC_OK && info.state >= SLC_PAGE_RESIDENT) {
            (*pages)++;
        }
    }
    for (uint32_t o = 0; o < h->object_count; o++) {
        const slc_pack_object *ob = slc_pack_get_object(pack, (slc_object_id){o});
        double share = 0.0;
        for (uint32_t l = 0; l < ob->lod_count; l++) {
            const slc_pack_lod *lod = slc_pack_get_lod(pack, ob->first_lod + l);
            for (uint32_t k = 0; k < lod->span_count; k++) {
                const slc_pack_span *sp = slc_pack_get_span(pack, lod->first_span + k);
                slc_page_info info;
                if (slc_pool_lookup(pool, (slc_chunk_id){sp->chunk}, &info) != SLC_OK ||
                    info.state < SLC_PAGE_RESIDENT) {
                    continue;
                }
                const slc_pack_chunk *ch = slc_pack_get_chunk(pack, (slc_chunk_id){sp->chunk});
                share += (double)sp->cluster_count / (double)ch->cluster_count;
            }
        }
        if (share > 0.0) {
            (*holders)++;
            const run_holder r = {o, ob->name == SLC_PACK_NO_NAME ? NULL : slc_pack_get_string(pack, ob->name), share};
            holders_insert(top, named, &r);
        }
    }
}

uint64_t run_loads_unapplied(const slc_stream_stats *st)
{
    uint64_t run = st->worker_loads + st->caller_loads;
    uint64_t done = st->loads_completed + st->failures + st->loads_cancelled;
    return run > done ? run - done : 0;
}

static double pct(uint64_t a, uint64_t b)
{
    return b ? 100.0 * (double)a / (double)b : 0.0;
}

/* "1.52 MiB": sizes for people (exact bytes are in --json). */
static const char *hsize(uint64_t v, char *buf, size_t cap)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double d = (double)v;
    int u = 0;
    while (d >= 1024.0 && u < 4) {
        d /= 1024.0;
        u++;
    }
    if (u == 0) {
        snprintf(buf, cap, "%" PRIu64 " B", v);
    } else {
        snprintf(buf, cap, d >= 100 || d == (double)(uint64_t)d ? "%.0f %s" : "%.2f %s", d, units[u]);
    }
    return buf;
}

/* "rgba8, 4 B a texel", "astc6x6, 0.444 B a texel" (three digits). */
static const char *texel_size(const tool_texture_memory *m, char *buf, size_t cap)
{
    const char *name = slc_pack_texel_format_name(m->format);
    snprintf(buf, cap, "%s, %.3g B a texel", name != NULL ? name : "?", m->bytes_per_texel);
    return buf;
}

void run_report_text(const run_report_in *in, const run_summary *s)
{
    char a[32], b[32], c[32];
    const slc_pack_header *h = slc_pack_get_header(in->pack);
    printf("sluice run: pack %s (%u objects, %u chunks), profile %s\n", in->pack_name, h->object_count, h->chunk_count,
           in->prof->name);
    printf("backend: %s (init %.1f ms)\n", in->backend_detail, in->store_init_ms);
    printf("workload: %s, %u frames, %zu requests\n", in->workload, in->frames, in->requests);
    printf("stream: %u workers, %u pages of %s, upload cap %s a frame, %u frames in flight\n", s->st.workers,
           in->prof->page_count, hsize(in->prof->page_size, a, sizeof a), hsize(in->prof->upload_cap, b, sizeof b),
           in->prof->frames_in_flight);
    printf("\n%-22s %12s %12s %8s\n", "budget", "limit", "peak", "refused");
    for (size_t i = 0; i < s->nb; i++) {
        char name[64];
        snprintf(name, sizeof name, "%*s%s", (int)(2 * s->b[i].depth), "", s->b[i].name);
        printf("%-22s %12s %12s %8" PRIu64 "\n", name, hsize(s->b[i].limit, a, sizeof a),
               hsize(s->b[i].peak, b, sizeof b), s->b[i].refused);
    }
    slc_budgets *bud = slc_memory_budgets(in->memory);
    size_t phases = slc_budgets_phase_count(bud);
    printf("\nphase peaks:\n");
    for (size_t ph = 0; ph < phases; ph++) {
        for (size_t i = 0; i < s->nb; i++) {
            slc_phase_stats ps;
            slc_budgets_get_phase(bud, ph, s->b[i].id, &ps);
            if (ps.peak == 0 || s->b[i].depth == 0) {
                continue;
            }
            printf("  %-8s %-16s %12s\n", ps.phase, s->b[i].name, hsize(ps.peak, a, sizeof a));
        }
    }
    const slc_stream_stats *t = &s->st;
    printf("\nchunks: %" PRIu64 " hits, %" PRIu64 " misses, %" PRIu64 " loads applied, %" PRIu64 " failed, %" PRIu64
           " cancelled, %" PRIu64 " run but not yet applied at the end (%" PRIu64 " run: %" PRIu64
           " by workers, %" PRIu64 " on the caller), %" PRIu64 " evictions, %" PRIu64 " deferred, %" PRIu64
           " dropped\n",
           t->hits, t->misses, t->loads_completed, t->failures, t->loads_cancelled, run_loads_unapplied(t),
           t->worker_loads + t->caller_loads, t->worker_loads, t->caller_loads, t->evictions, t->deferred, t->dropped);
    printf("requests: %" PRIu64 " accepted, %" PRIu64 " refused\n", t->requests, t->refused);
    printf("bytes: %s read, %s decoded, %s uploaded\n", hsize(t->bytes_read, a, sizeof a),
           hsize(t->bytes_decoded, b, sizeof b), hsize(t->bytes_uploaded, c, sizeof c));
    printf("pool: peak %u of %u pages used, %u pinned\n", s->ps.peak_used, s->ps.page_count, s->ps.pinned);
    if (s->has_tps) {
        const int pin_all = in->prof->texture_pin_tiles != 0; /* [textures] pin_tiles: every tile pinned too */
        printf("texture pool: peak %u of %u pages used, %u pinned (%s), %u tiles resident and %u loading at "
               "the end; %" PRIu64 " tile loads started, %" PRIu64 " evictions; eviction log %" PRIu64
               " entries, hash 0x%016" PRIx64 "\n",
               s->tps.peak_used, s->tps.page_count, s->tps.pinned, pin_all ? "every tile and mip tail" : "mip tails",
               s->tps.resident, s->tps.loading, s->tps.acquires - s->tps.pinned, s->tps.evictions, s->tps.log_count,
               s->tps.log_hash);
        if (pin_all) {
            printf("texture bytes: tiles %s read, %s uploaded; every tile and mip tail in %u pages, pinned at "
                   "create\n",
                   hsize(t->tile_bytes_read, a, sizeof a), hsize(t->tile_bytes_uploaded, b, sizeof b), s->tps.pinned);
        } else {
            printf("texture bytes: tiles %s read, %s uploaded; mip tails %s in %u pages, pinned at create\n",
                   hsize(t->tile_bytes_read, a, sizeof a), hsize(t->tile_bytes_uploaded, b, sizeof b),
                   hsize(s->tail_bytes, c, sizeof c), s->tps.pinned);
        }
        printf("served: %" PRIu64 " tile requests: %" PRIu64 " resident when asked (%.1f%%); every texture's mip "
               "tail stays resident\n",
               s->tiles, s->tiles_resident, pct(s->tiles_resident, s->tiles));
        /* Streaming against every level resident and decoded, and the floor. */
        const tool_texture_memory *m = &s->tmem;
        char d[32], e[32];
        const uint64_t pool = (uint64_t)s->tps.page_count * s->page_size, all = m->chunk_pages * s->page_size;
        printf("texture memory: pool %s; every tile and tail of %u textures resident %s (%" PRIu64
               " pages: the pool %.1f%% of it); every level decoded to RGBA8 %s; a %ux%u frame samples at least %s "
               "(%u layers, 4/3 for the mips, %s)\n",
               hsize(pool, a, sizeof a), m->textures, hsize(all, b, sizeof b), m->chunk_pages, pct(pool, all),
               hsize(m->rgba8_bytes, c, sizeof c), s->frame_w, s->frame_h,
               hsize((uint64_t)tool_texture_floor_bytes(m, s->frame_w, s->frame_h), d, sizeof d), m->layers,
               texel_size(m, e, sizeof e));
    }
    if (s->holders_named > 0) {
        printf("pool at the end: %u pages resident, held by %u objects; most by", s->holders_pages, s->holders_count);
        for (uint32_t i = 0; i < s->holders_named; i++) {
            const run_holder *hd = &s->holders[i];
            printf("%s object %u", i ? "," : "", hd->object);
            if (hd->name != NULL) {
                printf(" '%s'", hd->name);
            }
            printf(" %.1f pages (%.1f%%)", hd->pages,
                   s->holders_pages ? 100.0 * hd->pages / (double)s->holders_pages : 0.0);
        }
        printf("\n");
    }
    printf("served: %" PRIu64 " object requests: %" PRIu64 " at the requested LOD (%.1f%%), %" PRIu64
           " coarser (%.1f%%), %" PRIu64 " nothing visible (%.1f%%)\n",
           s->objects, s->exact, pct(s->exact, s->objects), s->coarser, pct(s->coarser, s->objects), s->none,
           pct(s->none, s->objects));
    printf("caller time a frame: p50 %.1f us, p99 %.1f us, max %.1f us (waiting for loads: max %.1f us); run %.1f ms"
           ", %.0f frames/s\n",
           (double)s->p50 / 1e3, (double)s->p99 / 1e3, (double)s->max / 1e3, (double)s->wait_max / 1e3,
           (double)in->wall_ns / 1e6, in->wall_ns ? (double)in->frames * 1e9 / (double)in->wall_ns : 0.0);
    if (s->stalls) {
        printf("frames in flight: begin_frame waited for the GPU %" PRIu64 " times\n", s->stalls);
    }
    printf("frames over limits: %u over a budget, %u over the upload cap, %u over the time budget%s\n", s->over_budget,
           s->over_upload, s->over_time, in->frame_budget_ns ? "" : " (none set)");
    printf("allocations after init: %" PRIu64 " budget reservations while streaming (cpu/driver aside)\n",
           s->reservations_while_streaming);
    printf("eviction log: %" PRIu64 " entries, hash 0x%016" PRIx64 "\n", s->ps.log_count, s->ps.log_hash);
    if (t->failures > 0) {
        printf("load failures: %" PRIu64 " (%s)%s\n", t->failures, s->failed,
               in->allow_load_failures ? "; allowed by --allow-load-failures: the run degraded and continued" : "");
    }
    if (in->extra != NULL) {
        in->extra(stdout, 0, in->extra_user);
    }
    if (s->nreasons == 0) {
        printf("verdict: ok (every budget held, no frame over its limits)\n");
    } else {
        printf("verdict: FAILED\n");
        for (uint32_t i = 0; i < s->nreasons; i++) {
            printf("  - %s\n", s->reasons[i]);
        }
    }
}

void run_report_json(const run_report_in *in, const run_summary *s)
{
    FILE *f = stdout;
    const slc_pack_header *h = slc_pack_get_header(in->pack);
    const slc_stream_stats *t = &s->st;
    /* RUN_REPORT_SCHEMA: raised whenever a member changes meaning or goes
     * away (a new member does not raise it). */
    fprintf(f, "{\n  \"schema_version\": %d,\n  \"pack\": ", RUN_REPORT_SCHEMA);
    esc_json(f, in->pack_name);
    fprintf(f, ", \"objects\": %u, \"chunks\": %u,\n  \"profile\": ", h->object_count, h->chunk_count);
    esc_json(f, in->prof->name);
    fprintf(f, ",\n  \"backend\": ");
    esc_json(f, in->backend);
    fprintf(f, ", \"backend_detail\": ");
    esc_json(f, in->backend_detail);
    fprintf(f, ", \"backend_init_ms\": %.3f,\n  \"workload\": ", in->store_init_ms);
    esc_json(f, in->workload);
    fprintf(f, ", \"frames\": %u, \"trace_requests\": %zu, \"workers\": %u,\n", in->frames, in->requests, t->workers);
    fprintf(f, "  \"budgets\": [\n");
    for (size_t i = 0; i < s->nb; i++) {
        fprintf(f, "    {\"name\": ");
        esc_json(f, s->b[i].name);
        fprintf(f, ", \"limit\": %" PRIu64 ", \"peak\": %" PRIu64 ", \"refused\": %" PRIu64 "}%s\n", s->b[i].limit,
                s->b[i].peak, s->b[i].refused, i + 1 < s->nb ? "," : "");
    }
    fprintf(f, "  ],\n  \"phases\": [");
    slc_budgets *bud = slc_memory_budgets(in->memory);
    size_t phases = slc_budgets_phase_count(bud);
    for (size_t ph = 0; ph < phases; ph++) {
        slc_phase_stats ps;
        slc_budgets_get_phase(bud, ph, s->b[0].id, &ps);
        fprintf(f, "%s{\"name\": ", ph ? ", " : "");
        esc_json(f, ps.phase);
        fprintf(f, ", \"peaks\": {");
        for (size_t i = 0; i < s->nb; i++) {
            slc_budgets_get_phase(bud, ph, s->b[i].id, &ps);
            fprintf(f, "%s", i ? ", " : "");
            esc_json(f, s->b[i].name);
            fprintf(f, ": %" PRIu64, ps.peak);
        }
        fprintf(f, "}}");
    }
    fprintf(f, "],\n");
    fprintf(f,
            "  \"stream\": {\"requests\": %" PRIu64 ", \"refused\": %" PRIu64 ", \"hits\": %" PRIu64
            ", \"misses\": %" PRIu64 ", \"loads\": %" PRIu64 ", \"worker_loads\": %" PRIu64
            ", \"caller_loads\": %" PRIu64 ", \"unapplied_loads\": %" PRIu64 ", \"evictions\": %" PRIu64
            ", \"deferred\": %" PRIu64 ", \"dropped\": %" PRIu64 ", \"cancelled\": %" PRIu64 ", \"failures\": %" PRIu64
            ", \"bytes_read\": %" PRIu64 ", \"bytes_decoded\": %" PRIu64 ", \"bytes_uploaded\": %" PRIu64 "},\n",
            t->requests, t->refused, t->hits, t->misses, t->loads_completed, t->worker_loads, t->caller_loads,
            run_loads_unapplied(t), t->evictions, t->deferred, t->dropped, t->loads_cancelled, t->failures,
            t->bytes_read, t->bytes_decoded, t->bytes_uploaded);
    fprintf(f, "  \"pool\": {\"pages\": %u, \"peak_used\": %u, \"pinned\": %u},\n", s->ps.page_count, s->ps.peak_used,
            s->ps.pinned);
    if (s->has_tps) {
        fprintf(f,
                "  \"texture_pool\": {\"pages\": %u, \"peak_used\": %u, \"pinned\": %u, \"resident\": %u, "
                "\"loading\": %u, \"tile_loads_started\": %" PRIu64 ", \"evictions\": %" PRIu64
                ", \"eviction_log\": {\"entries\": %" PRIu64 ", \"hash\": \"0x%016" PRIx64
                "\"}, \"tile_requests\": %" PRIu64 ", \"tiles_resident_when_asked\": %" PRIu64
                ", \"tile_bytes_read\": %" PRIu64 ", \"tile_bytes_uploaded\": %" PRIu64 ", \"tail_bytes\": %" PRIu64
                "},\n",
                s->tps.page_count, s->tps.peak_used, s->tps.pinned, s->tps.resident, s->tps.loading,
                s->tps.acquires - s->tps.pinned, s->tps.evictions, s->tps.log_count, s->tps.log_hash, s->tiles,
                s->tiles_resident, t->tile_bytes_read, t->tile_bytes_uploaded, s->tail_bytes);
        const tool_texture_memory *m = &s->tmem;
        fprintf(f,
                "  \"texture_memory\": {\"pool_bytes\": %" PRIu64 ", \"all_resident_pages\": %" PRIu64
                ", \"all_resident_bytes\": %" PRIu64 ", \"rgba8_bytes\": %" PRIu64
                ", \"layers\": %u, \"format\": \"%s\", \"bytes_per_texel\": %.4f, \"frame\": [%u, %u], "
                "\"floor_bytes\": %.0f},\n",
                (uint64_t)s->tps.page_count * s->page_size, m->chunk_pages, m->chunk_pages * s->page_size,
                m->rgba8_bytes, m->layers,
                slc_pack_texel_format_name(m->format) ? slc_pack_texel_format_name(m->format) : "?", m->bytes_per_texel,
                s->frame_w, s->frame_h, tool_texture_floor_bytes(m, s->frame_w, s->frame_h));
    }
    fprintf(f, "  \"pool_holders\": {\"resident_pages\": %u, \"objects\": %u, \"most\": [", s->holders_pages,
            s->holders_count);
    for (uint32_t i = 0; i < s->holders_named; i++) {
        fprintf(f, "%s{\"object\": %u, \"name\": ", i ? ", " : "", s->holders[i].object);
        if (s->holders[i].name != NULL) {
            esc_json(f, s->holders[i].name);
        } else {
            fprintf(f, "null");
        }
        fprintf(f, ", \"pages\": %.3f}", s->holders[i].pages);
    }
    fprintf(f, "]},\n");
    fprintf(f,
            "  \"served\": {\"object_requests\": %" PRIu64 ", \"exact\": %" PRIu64 ", \"coarser\": %" PRIu64
            ", \"none\": %" PRIu64 ", \"exact_fraction\": %.6f},\n",
            s->objects, s->exact, s->coarser, s->none, s->objects ? (double)s->exact / (double)s->objects : 0.0);
    fprintf(f,
            "  \"caller_ns\": {\"p50\": %" PRIu64 ", \"p99\": %" PRIu64 ", \"max\": %" PRIu64 ", \"wait_max\": %" PRIu64
            "}, \"run_ns\": %" PRIu64 ",\n",
            s->p50, s->p99, s->max, s->wait_max, in->wall_ns);
    fprintf(
        f, "  \"frames_over\": {\"budget\": %u, \"upload_cap\": %u, \"time\": %u, \"frame_budget_ns\": %" PRIu64 "},\n",
        s->over_budget, s->over_upload, s->over_time, in->frame_budget_ns);
    fprintf(f, "  \"reservations_while_streaming\": %" PRIu64 ",\n", s->reservations_while_streaming);
    fprintf(f, "  \"eviction_log\": {\"entries\": %" PRIu64 ", \"hash\": \"0x%016" PRIx64 "\"},\n", s->ps.log_count,
            s->ps.log_hash);
    fprintf(f, "  \"load_failures\": {\"count\": %" PRIu64 ", \"allowed\": %s, \"first\": [", t->failures,
            in->allow_load_failures ? "true" : "false");
    for (uint32_t i = 0; i < run_failures_named(t); i++) {
        const slc_stream_failure *e = &t->first_failures[i];
        run_chunk_place w;
        run_chunk_place_of(in->pack, e->chunk, &w);
        fprintf(f, "%s{\"chunk\": %u, ", i ? ", " : "", e->chunk.index);
        if (w.texture >= 0) {
            fprintf(f, "\"texture\": {\"index\": %d, \"name\": ", w.texture);
            if (w.name != NULL) {
                esc_json(f, w.name);
            } else {
                fprintf(f, "null");
            }
            fprintf(f, ", \"tail\": %s, \"level\": %u, \"tile\": %u}, ", w.tail ? "true" : "false", w.level, w.tile);
        }
        fprintf(f, "\"status\": ");
        esc_json(f, slc_status_name(e->status));
        fprintf(f, ", \"frame\": %" PRIu64 "}", e->frame);
    }
    fprintf(f, "]},\n");
    if (in->extra != NULL) {
        in->extra(f, 1, in->extra_user);
    }
    fprintf(f, "  \"verdict\": {\"ok\": %s, \"reasons\": [", s->nreasons ? "false" : "true");
    for (uint32_t i = 0; i < s->nreasons; i++) {
        fprintf(f, "%s", i ? ", " : "");
        esc_json(f, s->reasons[i]);
    }
    fprintf(f, "]}\n}\n");
}

/* --- the command ----------------------------------------------------------------------------- */
