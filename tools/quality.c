/* SPDX-License-Identifier: MIT */
/* sluice render --reference: image quality under a budget (see quality.h). */
#include "quality.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "escape.h"
#include "run_outputs.h"
#include "sluice/limits.h"
#include "sluice/stream.h"

/* --- comparing two frames ------------------------------------------------------------- */

/* Rec. 709 luma weights in 1/10000: they sum to 10000, so a grey level v
 * has luma 10000 v exactly. */
#define LUMA_R 2126u
#define LUMA_G 7152u
#define LUMA_B 722u
#define LUMA_ONE 10000u

static int64_t luma(const uint8_t *p)
{
    return (int64_t)(LUMA_R * p[0] + LUMA_G * p[1] + LUMA_B * p[2]);
}

int quality_compare(const quality_image *a, const quality_image *b, uint32_t threshold, quality_frame *out)
{
    if (a->width != b->width || a->height != b->height || a->width == 0 || a->height == 0) {
        return -1;
    }
    const int64_t limit = (int64_t)threshold * LUMA_ONE;
    double sum = 0; /* of squared luma differences, in (1/10000)^2 */
    uint64_t over = 0;
    for (uint32_t y = 0; y < a->height; y++) {
        const uint8_t *pa = a->rgba + (size_t)y * a->stride, *pb = b->rgba + (size_t)y * b->stride;
        uint64_t row = 0; /* at most 16384 x 2550000^2 < 2^64: exact */
        for (uint32_t x = 0; x < a->width; x++, pa += 4, pb += 4) {
            int64_t d = luma(pa) - luma(pb);
            d = d < 0 ? -d : d;
            row += (uint64_t)d * (uint64_t)d;
            over += d > limit;
        }
        sum += (double)row;
    }
    const uint64_t pixels = (uint64_t)a->width * a->height;
    out->pixels = pixels;
    out->over = over;
    out->share = (double)over / (double)pixels;
    if (sum == 0) {
        out->psnr_db = INFINITY;
    } else {
        /* MSE in levels^2 is sum / pixels / 10000^2; PSNR = 10 log10(255^2 / MSE). */
        const double peak = 255.0 * LUMA_ONE;
        out->psnr_db = 10.0 * log10(peak * peak * (double)pixels / sum);
    }
    return 0;
}

/* --- the series ---------------------------------------------------------------------- */

void quality_series_init(quality_series *s)
{
    memset(s, 0, sizeof *s);
    s->min_db = INFINITY;
    s->span = 1;
}

void quality_series_add(quality_series *s, const quality_frame *f)
{
    if (s->frames == 0 || f->psnr_db < s->min_db) {
        s->min_db = f->psnr_db;
        s->min_frame = f->frame;
    }
    if (s->frames == 0 || f->share > s->max_share) {
        s->max_share = f->share;
        s->max_share_frame = f->frame;
    }
    if (isinf(f->psnr_db)) {
        s->inf_count++;
    } else {
        double v = f->psnr_db > 0 ? f->psnr_db : 0;
        uint32_t bin = v >= QUALITY_HIST_MAX_DB ? QUALITY_HIST_BINS - 1u : (uint32_t)(v * 100.0);
        s->bins[bin < QUALITY_HIST_BINS ? bin : QUALITY_HIST_BINS - 1u]++;
        s->top_db = f->psnr_db > s->top_db ? f->psnr_db : s->top_db;
    }
    if (s->frames / s->span >= QUALITY_SVG_POINTS) {
        /* Out of points: each point now spans twice the frames. */
        for (uint32_t i = 0; i < QUALITY_SVG_POINTS / 2u; i++) {
            double x = s->points[(size_t)2 * i], y = s->points[(size_t)2 * i + 1u];
            s->points[i] = x < y ? x : y;
        }
        s->span *= 2u;
    }
    const uint32_t k = s->frames / s->span;
    if (s->frames % s->span == 0 || f->psnr_db < s->points[k]) {
        s->points[k] = f->psnr_db;
    }
    s->frames++;
}

double quality_series_percentile(const quality_series *s, unsigned p)
{
    if (s->frames == 0) {
        return 0;
    }
    uint64_t rank = ((uint64_t)s->frames * p + 99u) / 100u;
    rank = rank == 0 ? 1 : rank;
    uint64_t seen = 0;
    for (uint32_t i = 0; i < QUALITY_HIST_BINS; i++) {
        seen += s->bins[i];
        if (seen >= rank) {
            double v = (double)i / 100.0;
            v = v < s->min_db ? s->min_db : v;
            return v > s->top_db ? s->top_db : v;
        }
    }
    return INFINITY;
}

void quality_series_summarise(const quality_series *s, quality_summary *out)
{
    memset(out, 0, sizeof *out);
    out->frames = s->frames;
    out->min_db = s->frames ? s->min_db : 0;
    out->worst_frame = s->min_frame;
    out->p5_db = quality_series_percentile(s, 5);
    out->median_db = quality_series_percentile(s, 50);
    out->max_share = s->max_share;
    out->max_share_frame = s->max_share_frame;
}

const char *quality_db(double db, char *buf, size_t cap)
{
    if (isinf(db)) {
        snprintf(buf, cap, "inf");
    } else {
        snprintf(buf, cap, "%.2f", db);
    }
    return buf;
}

void quality_format_summary(const quality_summary *q, char *buf, size_t cap)
{
    char a[32], b[32], c[32];
    snprintf(buf, cap,
             "quality: PSNR min %s dB (frame %" PRIu32 "), p5 %s dB, median %s dB; pixels over threshold: max %.2f%% "
             "(frame %" PRIu32 ")",
             quality_db(q->min_db, a, sizeof a), q->worst_frame, quality_db(q->p5_db, b, sizeof b),
             quality_db(q->median_db, c, sizeof c), q->max_share * 100.0, q->max_share_frame);
}

int quality_check_floor(const quality_summary *q, uint32_t min_psnr_mdb, const char *source, char *msg, size_t cap)
{
    if (min_psnr_mdb == 0 || q->frames == 0 || !(q->min_db < (double)min_psnr_mdb / 1000.0)) {
        return 0;
    }
    char a[32];
    snprintf(msg, cap, "quality: frame %" PRIu32 " has PSNR %s dB, below the floor of %g dB (%s)", q->worst_frame,
             quality_db(q->min_db, a, sizeof a), (double)min_psnr_mdb / 1000.0,
             source != NULL ? source : "the profile's [quality] min_psnr_db");
    return -1;
}

/* --- the reference profile ------------------------------------------------------------ */

void quality_pack_figures_get(const slc_pack *pack, const char *name, quality_pack_figures *out)
{
    const slc_pack_header *h = slc_pack_get_header(pack);
    memset(out, 0, sizeof *out);
    out->name = name;
    out->page_size = h->page_size;
    out->chunk_count = h->chunk_count;
    out->texture_chunks = slc_pack_texture_chunk_count(pack);
    out->object_count = h->object_count;
    out->string_size = h->string_size;
    for (uint32_t o = 0; o < h->object_count; o++) {
        const slc_pack_object *ob = slc_pack_get_object(pack, (slc_object_id){o});
        out->max_lods = ob->lod_count > out->max_lods ? ob->lod_count : out->max_lods;
        uint64_t most = 0;
        for (uint32_t l = 0; l < ob->lod_count; l++) {
            const slc_pack_lod *lod = slc_pack_get_lod(pack, ob->first_lod + l);
            uint64_t clusters = 0;
            for (uint32_t k = 0; k < lod->span_count; k++) {
                clusters += slc_pack_get_span(pack, lod->first_span + k)->cluster_count;
            }
            most = clusters > most ? clusters : most;
        }
        out->max_draws += most;
    }
    /* placements: each instance once; a pack without instances places each object once (sluice/render.h) */
    out->max_placements = h->instance_count ? h->instance_count : h->object_count;
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

/* Grows budget name's limit to at least v; 0 when base lacks it (the parser requires the six). */
static void grow(slc_profile *p, const char *name, uint64_t v)
{
    int i = slc_profile_scan_budget(p, name);
    if (i >= 0) {
        p->budgets[i].limit = max_u64(p->budgets[i].limit, v);
    }
}

static void add(slc_profile *p, const char *name, uint64_t v)
{
    int i = slc_profile_scan_budget(p, name);
    if (i >= 0) {
        p->budgets[i].limit += v;
    }
}

/* Grows every parent to the sum of its children: budgets are ordered by
 * depth, so walking back from the deepest settles each child before its
 * parent. Returns the deepest budget above SLC_PROFILE_SIZE_MAX, or NULL. */
static const char *settle(slc_profile *p)
{
    uint64_t sums[SLC_PROFILE_BUDGET_MAX] = {0};
    for (uint32_t i = p->budget_count; i-- > 0;) {
        p->budgets[i].limit = max_u64(p->budgets[i].limit, sums[i]);
        uint16_t parent = p->budgets[i].parent;
        if (parent != SLC_BUDGET_NONE_INDEX && parent < SLC_PROFILE_BUDGET_MAX) {
            sums[parent] += p->budgets[i].limit > SLC_PROFILE_SIZE_MAX ? SLC_PROFILE_SIZE_MAX + 1u
                                                                       : p->budgets[i].limit;
        }
    }
    for (uint32_t i = p->budget_count; i-- > 0;) { /* the deepest: where the excess starts */
        if (p->budgets[i].limit > SLC_PROFILE_SIZE_MAX) {
            return p->budgets[i].name;
        }
    }
    return NULL;
}

int quality_reference_profile_for(const slc_profile *base, const quality_pack_figures *pk, size_t scratch_size,
                                  uint32_t telemetry_frames, slc_profile *out, slc_render_profile *render, char *msg,
                                  size_t cap)
{
    *out = *base;
    if (pk->page_size < SLC_PAGE_SIZE_MIN || pk->page_size > SLC_PAGE_SIZE_MAX ||
        (pk->page_size & (pk->page_size - 1u)) != 0) {
        snprintf(msg, cap,
                 "reference profile of '%s' for pack '%s': the pack's page size %" PRIu32
                 " is not a power of two in %u..%u",
                 base->name, pk->name, pk->page_size, SLC_PAGE_SIZE_MIN, SLC_PAGE_SIZE_MAX);
        return -1;
    }
    if (pk->max_lods > SLC_LODS_MAX) {
        snprintf(msg, cap,
                 "reference profile of '%s' for pack '%s': an object has %" PRIu32 " levels; a profile pins at most %u",
                 base->name, pk->name, pk->max_lods, SLC_LODS_MAX);
        return -1;
    }
    uint64_t claimed = 0;
    for (uint32_t i = 0; i < base->partition_count && i < SLC_PARTITION_MAX; i++) {
        claimed += base->partitions[i].page_count;
    }
    const uint32_t geometry = pk->chunk_count - pk->texture_chunks;
    const uint64_t pages = (uint64_t)(geometry ? geometry : 1u) + claimed;
    uint64_t tex_claimed = 0;
    for (uint32_t i = 0; i < base->texture_partition_count && i < SLC_PARTITION_MAX; i++) {
        tex_claimed += base->texture_partitions[i].page_count;
    }
    const uint64_t tex_pages = pk->texture_chunks != 0 ? (uint64_t)pk->texture_chunks + tex_claimed : 0u;
    if (tex_pages > SLC_PAGE_COUNT_MAX) {
        snprintf(msg, cap,
                 "reference profile of '%s' for pack '%s': a texture pool of %" PRIu64 " pages (%" PRIu32
                 " tiles and mip tails and %" PRIu64 " in named partitions) exceeds the bound of %u "
                 "(SLC_PAGE_COUNT_MAX)",
                 base->name, pk->name, tex_pages, pk->texture_chunks, tex_claimed, SLC_PAGE_COUNT_MAX);
        return -1;
    }
    if (pages > SLC_PAGE_COUNT_MAX) {
        snprintf(msg, cap,
                 "reference profile of '%s' for pack '%s': %" PRIu64 " pages (%" PRIu32 " chunks and %" PRIu64
                 " in named partitions) exceed the pool's bound of %u (SLC_PAGE_COUNT_MAX)",
                 base->name, pk->name, pages, pk->chunk_count, claimed, SLC_PAGE_COUNT_MAX);
        return -1;
    }
    const uint64_t pool_bytes = pages * pk->page_size;
    const uint64_t queue = (uint64_t)pk->chunk_count + pk->object_count;

    char name[SLC_NAME_MAX];
    snprintf(name, sizeof name, "%.*s-reference", (int)(SLC_NAME_MAX - 1u - 10u), base->name);
    memcpy(out->name, name, sizeof out->name);
    out->page_size = pk->page_size;
    out->page_count = (uint32_t)pages;
    out->pin_coarsest = pk->max_lods;
    if (tex_pages != 0) {
        out->texture_page_count = (uint32_t)max_u64(base->texture_page_count, tex_pages);
        out->texture_pin_tiles = 1;
    }
    out->upload_cap = max_u64(base->upload_cap, pool_bytes);
    out->staging_size = base->staging_size == 0 ? 0 : max_u64(base->staging_size, pool_bytes);
    out->queue_capacity = (uint32_t)(queue > SLC_PROFILE_QUEUE_CAPACITY_MAX ? SLC_PROFILE_QUEUE_CAPACITY_MAX
                                                                            : max_u64(base->queue_capacity, queue));
    out->max_chunks = (uint32_t)max_u64(base->max_chunks, pk->chunk_count);
    out->max_objects = (uint32_t)max_u64(base->max_objects, pk->object_count);
    out->max_lods = (uint32_t)max_u64(base->max_lods, pk->max_lods);
    out->max_string_bytes = max_u64(base->max_string_bytes, pk->string_size ? pk->string_size : 1u);

    slc_stream_footprint fb, fr;
    if (slc_stream_calculate_footprint(base, scratch_size, telemetry_frames, &fb) != SLC_OK ||
        slc_stream_calculate_footprint(out, scratch_size, telemetry_frames, &fr) != SLC_OK) {
        snprintf(msg, cap,
                 "reference profile of '%s' for pack '%s': the stream's memory for %" PRIu64
                 " pages overflows this target's sizes",
                 base->name, pk->name, pages);
        *out = *base;
        return -1;
    }
    add(out, "cpu/meta", fr.meta > fb.meta ? fr.meta - fb.meta : 0);
    add(out, "cpu/queues", fr.queues > fb.queues ? fr.queues - fb.queues : 0);
    add(out, "cpu/decode", fr.decode > fb.decode ? fr.decode - fb.decode : 0);
    grow(out, "gpu/pool", pool_bytes);
    if (tex_pages != 0) {
        grow(out, "gpu/textures", (uint64_t)out->texture_page_count * pk->page_size);
    }
    grow(out, "gpu/staging", out->staging_size + out->texture_staging_size); /* the tiles' belt kept: pins flush it */
    const char *over = settle(out);
    if (over != NULL) {
        snprintf(msg, cap,
                 "reference profile of '%s' for pack '%s': budget %s would need more than a profile's "
                 "bound of %" PRIu64 " bytes",
                 base->name, pk->name, over, (uint64_t)SLC_PROFILE_SIZE_MAX);
        *out = *base;
        return -1;
    }
    if (render != NULL) {
        render->max_draws = (uint32_t)(pk->max_draws > SLC_RENDER_LIST_MAX ? SLC_RENDER_LIST_MAX
                                                                           : max_u64(render->max_draws, pk->max_draws));
        render->max_placements = (uint32_t)(pk->max_placements > SLC_RENDER_LIST_MAX
                                                ? SLC_RENDER_LIST_MAX
                                                : max_u64(render->max_placements, pk->max_placements));
    }
    return 0;
}

int quality_profile_add(slc_profile *p, const char *budget, uint64_t bytes, char *msg, size_t cap)
{
    slc_profile t = *p;
    int i = slc_profile_scan_budget(&t, budget);
    if (i < 0) {
        snprintf(msg, cap, "profile '%s' declares no %s budget", p->name, budget);
        return -1;
    }
    t.budgets[i].limit = bytes > SLC_PROFILE_SIZE_MAX ? SLC_PROFILE_SIZE_MAX + 1u : t.budgets[i].limit + bytes;
    const char *over = settle(&t);
    if (over != NULL) {
        snprintf(msg, cap, "profile '%s': budget %s would need more than a profile's bound of %" PRIu64 " bytes",
                 p->name, over, (uint64_t)SLC_PROFILE_SIZE_MAX);
        return -1;
    }
    *p = t;
    return 0;
}

int quality_reference_profile(const slc_profile *base, const slc_pack *pack, const char *pack_name, size_t scratch_size,
                              uint32_t telemetry_frames, slc_profile *out, slc_render_profile *render, char *msg,
                              size_t cap)
{
    quality_pack_figures fig;
    quality_pack_figures_get(pack, pack_name, &fig);
    return quality_reference_profile_for(base, &fig, scratch_size, telemetry_frames, out, render, msg, cap);
}

/* --- JSON ------------------------------------------------------------------------------ */

static void json_db(FILE *f, double db)
{
    if (isinf(db) || isnan(db)) {
        fputs("null", f);
    } else {
        fprintf(f, "%.4f", db);
    }
}

void quality_json_begin(quality_json *j, FILE *f, const quality_info *in)
{
    j->f = f;
    j->frames = 0;
    fputs("{\"pack\": ", f);
    esc_json(f, in->pack);
    fputs(", \"profile\": ", f);
    esc_json(f, in->profile);
    fputs(", \"reference\": ", f);
    esc_json(f, in->reference);
    fprintf(f, ", \"width\": %" PRIu32 ", \"height\": %" PRIu32 ", \"diff_threshold\": %" PRIu32 ", \"min_psnr_db\": ",
            in->width, in->height, in->threshold);
    if (in->min_psnr_mdb) {
        fprintf(f, "%.3f", (double)in->min_psnr_mdb / 1000.0);
    } else {
        fputs("null", f);
    }
    fputs(",\n \"frames\": [", f);
}

void quality_json_frame(quality_json *j, const quality_frame *fr)
{
    FILE *f = j->f;
    fprintf(f, "%s\n  {\"frame\": %" PRIu32 ", \"psnr_db\": ", j->frames++ == 0 ? "" : ",", fr->frame);
    json_db(f, fr->psnr_db);
    fprintf(f, ", \"over_share\": %.6f, \"over_pixels\": %" PRIu64 "}", fr->share, fr->over);
}

void quality_json_summary(FILE *f, const quality_summary *q)
{
    fprintf(f, "{\"frames\": %" PRIu32 ", \"min_psnr_db\": ", q->frames);
    json_db(f, q->min_db);
    fprintf(f, ", \"worst_frame\": %" PRIu32 ", \"p5_psnr_db\": ", q->worst_frame);
    json_db(f, q->p5_db);
    fputs(", \"median_psnr_db\": ", f);
    json_db(f, q->median_db);
    fprintf(f, ", \"max_over_share\": %.6f, \"max_over_frame\": %" PRIu32 "}", q->max_share, q->max_share_frame);
}

void quality_json_floor(FILE *f, const quality_summary *q, uint32_t min_psnr_mdb)
{
    char msg[320];
    if (quality_check_floor(q, min_psnr_mdb, NULL, msg, sizeof msg) == 0) {
        fputs("{\"holds\": true, \"frame\": null}", f);
    } else {
        fprintf(f, "{\"holds\": false, \"frame\": %" PRIu32 "}", q->worst_frame);
    }
}

int quality_json_end(quality_json *j, const quality_info *in, const quality_summary *q)
{
    FILE *f = j->f;
    fputs("],\n \"summary\": ", f);
    quality_json_summary(f, q);
    fputs(",\n \"floor\": ", f);
    quality_json_floor(f, q, in->min_psnr_mdb);
    fputs("}\n", f);
    return ferror(f) ? -1 : 0;
}

/* --- SVG -------------------------------------------------------------------------------- */

#define SVG_PAD 10.0
#define SVG_PLOT_W 720.0
#define SVG_PLOT_H 240.0
#define SVG_AXIS_W 60.0
#define SVG_TOP 64.0
#define SVG_INF_DY 10.0 /* identical frames: drawn this far above the plot */
#define SVG_FONT_PX 11.0
#define SVG_TITLE_PX 14.0
#define SVG_GLYPH_EM 0.62 /* a byte's width, never short of DejaVu Sans Mono's 0.602 em */

static void svg_text(FILE *f, double x, double y, const char *anchor, const char *cls, const char *s)
{
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\"%s%s%s class=\"%s\">", x, y, anchor ? " text-anchor=\"" : "",
            anchor ? anchor : "", anchor ? "\"" : "", cls);
    esc_xml(f, s);
    fputs("</text>\n", f);
}

int quality_write_svg(FILE *f, const quality_series *s, const quality_info *in)
{
    const double floor_db = (double)in->min_psnr_mdb / 1000.0;
    double top = s->top_db > floor_db ? s->top_db : floor_db;
    top = svg_nice_ceil(top < 10 ? 10 : top * 1.05);
    const uint32_t n = s->frames ? s->frames : 1u;
    const uint32_t npts = s->frames ? (s->frames - 1u) / s->span + 1u : 0u;
    const double x0 = SVG_PAD + SVG_AXIS_W, y0 = SVG_TOP;
    char title[96], v[160], a[32], b[32];
    snprintf(title, sizeof title, " \xe2\x80\x94 luminance PSNR, %" PRIu32 " frames%s", s->frames,
             s->span > 1 ? " (each point the lowest of its frames)" : "");
    const double title_w = (double)(strlen("sluice render: , profile  against ") + strlen(in->pack) +
                                    strlen(in->profile) + strlen(in->reference) + strlen(title)) *
                           SVG_TITLE_PX * SVG_GLYPH_EM;
    double W = x0 + SVG_PLOT_W + SVG_PAD;
    W = 2 * SVG_PAD + title_w > W ? 2 * SVG_PAD + title_w : W;
    const double H = y0 + SVG_PLOT_H + 3 * 14.0 + SVG_PAD;
    quality_summary q;
    quality_series_summarise(s, &q);

    fprintf(f,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
            "font-family=\"DejaVu Sans Mono, monospace\" font-size=\"%.0f\">\n",
            W, H, W, H, SVG_FONT_PX);
    fputs("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n", f);
    fprintf(f, "<text x=\"%.1f\" y=\"20\" font-size=\"%.0f\" class=\"title\">sluice render: ", SVG_PAD, SVG_TITLE_PX);
    esc_xml(f, in->pack);
    fputs(", profile ", f);
    esc_xml(f, in->profile);
    fputs(" against ", f);
    esc_xml(f, in->reference);
    esc_xml(f, title);
    fputs("</text>\n", f);
    snprintf(v, sizeof v, "min %s dB (frame %" PRIu32 "), median %s dB%s", quality_db(q.min_db, a, sizeof a),
             q.worst_frame, quality_db(q.median_db, b, sizeof b), in->min_psnr_mdb ? "; dashed: the floor" : "");
    svg_text(f, SVG_PAD, 36, NULL, "note", v);
    fprintf(f,
            "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#f6f6f6\" stroke=\"#ccc\" "
            "class=\"plot\"/>\n",
            x0, y0, SVG_PLOT_W, SVG_PLOT_H);
    static const double ticks_at[] = {0, 0.25, 0.5, 0.75, 1};
    for (int k = 0; k < 5; k++) {
        double y = y0 + SVG_PLOT_H - SVG_PLOT_H * ticks_at[k];
        snprintf(v, sizeof v, "%g dB", top * ticks_at[k]);
        svg_text(f, x0 - 4, y + 4, "end", "ytick", v);
        fprintf(f, "<path stroke=\"#e2e2e2\" d=\"M%.1f %.1fh%.1f\"/>\n", x0, y, SVG_PLOT_W);
    }
    svg_text(f, x0 - 4, y0 - SVG_INF_DY + 4, "end", "ytick", "inf");
    fprintf(f, "<polyline fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"1.5\" class=\"psnr\" points=\"");
    for (uint32_t k = 0; k < npts; k++) {
        uint32_t first = k * s->span, count = s->frames - first < s->span ? s->frames - first : s->span;
        double p = s->points[k];
        double y = isinf(p) ? y0 - SVG_INF_DY : y0 + SVG_PLOT_H - SVG_PLOT_H * (p > top ? top : p) / top;
        fprintf(f, "%.2f,%.2f ", x0 + SVG_PLOT_W * (first + 0.5 * count) / n, y);
    }
    fputs("\"/>\n", f);
    if (in->min_psnr_mdb) {
        double y = y0 + SVG_PLOT_H - SVG_PLOT_H * (floor_db > top ? top : floor_db) / top;
        fprintf(f,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#d62728\" stroke-dasharray=\"4 3\" "
                "class=\"floor\"/>\n",
                x0, y, x0 + SVG_PLOT_W, y);
        snprintf(v, sizeof v, "floor %g dB", floor_db);
        svg_text(f, x0 + SVG_PLOT_W - 2, y - 3, "end", "floor", v);
    }
    const uint64_t step = (uint64_t)svg_nice_ceil((double)n / 8.0);
    const double yx = y0 + SVG_PLOT_H + 14;
    for (uint64_t fr = 0; fr < n; fr += step) {
        snprintf(v, sizeof v, "%" PRIu64, fr);
        svg_text(f, x0 + SVG_PLOT_W * ((double)fr + 0.5) / n, yx, "middle", "xtick", v);
    }
    svg_text(f, x0 + SVG_PLOT_W / 2, yx + 14, "middle", "label", "frame");
    fputs("</svg>\n", f);
    return ferror(f) ? -1 : 0;
}

/* --- a session ------------------------------------------------------------------------- */

int quality_session_open(quality_session *q, const quality_info *info, const char *json_path, const char *svg_path,
                         const char *const *inputs, size_t ninputs, const char *me)
{
    memset(&q->json_file, 0, sizeof q->json_file);
    memset(&q->svg_file, 0, sizeof q->svg_file);
    q->info = *info;
    q->json_path = json_path;
    q->svg_path = svg_path;
    q->open = 0;
    quality_series_init(&q->series);
    const char *outs[2] = {json_path, svg_path};
    for (int k = 0; k < 2; k++) {
        if (outs[k] == NULL) {
            continue;
        }
        int i = atomic_file_find_input(outs[k], inputs, ninputs);
        if (i >= 0) {
            fprintf(stderr, "%s: %s: is an input (%s); refusing to overwrite it\n", me, outs[k], inputs[i]);
            return -1;
        }
        if (k == 1 && json_path != NULL && atomic_file_same(outs[1], outs[0])) {
            fprintf(stderr, "%s: %s: named by both --json and --svg\n", me, outs[1]);
            return -1;
        }
    }
    char err[512];
    if (json_path != NULL && atomic_file_open(&q->json_file, json_path, err, sizeof err) != 0) {
        fprintf(stderr, "%s: %s\n", me, err);
        return -1;
    }
    if (svg_path != NULL && atomic_file_open(&q->svg_file, svg_path, err, sizeof err) != 0) {
        fprintf(stderr, "%s: %s\n", me, err);
        quality_session_abort(q);
        return -1;
    }
    if (json_path != NULL) {
        quality_json_begin(&q->json, q->json_file.f, &q->info);
    }
    q->open = 1;
    return 0;
}

int quality_session_frame(quality_session *q, uint32_t f, const quality_image *a, const quality_image *ref,
                          quality_frame *fr, const char *me)
{
    quality_frame x;
    memset(&x, 0, sizeof x);
    if (quality_compare(a, ref, q->info.threshold, &x) != 0) {
        fprintf(stderr,
                "%s: frame %" PRIu32 ": the images differ in size (%" PRIu32 "x%" PRIu32 " against %" PRIu32 "x%" PRIu32
                ")\n",
                me, f, a->width, a->height, ref->width, ref->height);
        return -1;
    }
    x.frame = f;
    quality_series_add(&q->series, &x);
    if (q->json_path != NULL) {
        quality_json_frame(&q->json, &x);
    }
    if (fr != NULL) {
        *fr = x;
    }
    return 0;
}

int quality_session_finish(quality_session *q, FILE *report, quality_summary *out, const char *me)
{
    quality_summary s;
    quality_series_summarise(&q->series, &s);
    if (out != NULL) {
        *out = s;
    }
    if (report != NULL) {
        char line[320];
        quality_format_summary(&s, line, sizeof line);
        fprintf(report, "%s\n", line);
    }
    char msg[320];
    const int fails = quality_check_floor(&s, q->info.min_psnr_mdb, q->info.floor_source, msg, sizeof msg) != 0;
    if (fails) {
        fprintf(stderr, "%s: %s\n", me, msg);
    }
    char err[512];
    if (q->json_path != NULL) {
        (void)quality_json_end(&q->json, &q->info, &s); /* a write error fails the commit */
    }
    if (q->svg_path != NULL) {
        (void)quality_write_svg(q->svg_file.f, &q->series, &q->info);
    }
    if ((q->json_path != NULL && atomic_file_commit(&q->json_file, err, sizeof err) != 0) ||
        (q->svg_path != NULL && atomic_file_commit(&q->svg_file, err, sizeof err) != 0)) {
        fprintf(stderr, "%s: %s\n", me, err);
        quality_session_abort(q);
        return -1;
    }
    q->open = 0;
    return fails;
}

void quality_session_abort(quality_session *q)
{
    atomic_file_abort(&q->json_file);
    atomic_file_abort(&q->svg_file);
    q->open = 0;
}
