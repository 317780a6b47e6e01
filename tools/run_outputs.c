/* SPDX-License-Identifier: MIT */
/* sluice run: aggregated per-frame figures and the files made from them (see run_outputs.h). */
#include "run_outputs.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "cli.h"
#include "escape.h"

static unsigned hist_index(uint64_t v)
{
    if (v < RUN_HIST_SUB) {
        return (unsigned)v;
    }
    unsigned e = 63u - (unsigned)__builtin_clzll(v); /* >= 6 */
    unsigned sub = (unsigned)(v >> (e - 6u)) & (RUN_HIST_SUB - 1u);
    return (e - 5u) * RUN_HIST_SUB + sub;
}

/* The middle of bucket i. */
static uint64_t hist_value(unsigned i)
{
    if (i < RUN_HIST_SUB) {
        return i;
    }
    unsigned e = i / RUN_HIST_SUB + 5u, sub = i % RUN_HIST_SUB;
    uint64_t lo = (uint64_t)(RUN_HIST_SUB + sub) << (e - 6u);
    return lo + (((uint64_t)1 << (e - 6u)) >> 1);
}

void run_hist_add(run_hist *h, uint64_t v)
{
    h->b[hist_index(v)]++;
    h->count++;
    h->max = v > h->max ? v : h->max;
}

uint64_t run_hist_percentile(const run_hist *h, unsigned p)
{
    if (h->count == 0) {
        return 0;
    }
    uint64_t rank = (h->count * p + 99u) / 100u;
    rank = rank == 0 ? 1 : rank;
    uint64_t seen = 0;
    for (unsigned i = 0; i < RUN_HIST_BUCKETS; i++) {
        seen += h->b[i];
        if (seen >= rank) {
            uint64_t v = hist_value(i);
            return v > h->max ? h->max : v;
        }
    }
    return h->max;
}

void run_timeline_init(run_timeline *t)
{
    memset(t, 0, sizeof *t);
    t->span = 1;
}

static void point_max(run_point *a, const run_point *b)
{
    for (uint32_t i = 0; i < SLC_PROFILE_BUDGET_MAX; i++) {
        a->budgets[i] = b->budgets[i] > a->budgets[i] ? b->budgets[i] : a->budgets[i];
    }
    a->uploaded = b->uploaded > a->uploaded ? b->uploaded : a->uploaded;
    a->caller_ns = b->caller_ns > a->caller_ns ? b->caller_ns : a->caller_ns;
    a->pool_used = b->pool_used > a->pool_used ? b->pool_used : a->pool_used;
    a->misses = b->misses > a->misses ? b->misses : a->misses;
    if (b->psnr_set && (!a->psnr_set || b->psnr_db < a->psnr_db)) {
        a->psnr_db = b->psnr_db; /* the lowest: the worst frame of the point */
        a->psnr_set = 1;
    }
    if (b->gpu_set) {
        a->gpu_ns = b->gpu_ns > a->gpu_ns ? b->gpu_ns : a->gpu_ns;
        a->gpu_set = 1;
    }
    a->tex_used = b->tex_used > a->tex_used ? b->tex_used : a->tex_used;
    a->tile_misses = b->tile_misses > a->tile_misses ? b->tile_misses : a->tile_misses;
}

void run_timeline_add(run_timeline *t, const slc_stream_frame_stats *fs, uint32_t pool_used)
{
    if (t->frames / t->span >= RUN_TIMELINE_POINTS) {
        /* Out of points: each point now spans twice the frames. */
        for (size_t i = 0; i < RUN_TIMELINE_POINTS / 2u; i++) {
            run_point m = t->p[2u * i];
            point_max(&m, &t->p[2u * i + 1u]);
            t->p[i] = m;
        }
        memset(&t->p[RUN_TIMELINE_POINTS / 2u], 0, sizeof t->p[0] * (RUN_TIMELINE_POINTS / 2u));
        t->span *= 2u;
    }
    run_point v;
    memset(&v, 0, sizeof v);
    for (uint32_t i = 0; i < fs->budget_count && i < SLC_PROFILE_BUDGET_MAX; i++) {
        v.budgets[i] = fs->budgets[i];
    }
    for (uint32_t i = 0; i < SLC_PROFILE_BUDGET_MAX; i++) {
        if (t->frames == 0) {
            t->first[i] = v.budgets[i];
        } else if (v.budgets[i] != t->first[i]) {
            t->varied[i] = 1;
        }
    }
    v.uploaded = fs->bytes_uploaded;
    v.caller_ns = fs->caller_ns;
    v.pool_used = pool_used;
    v.misses = fs->misses;
    point_max(&t->p[t->frames / t->span], &v);
    t->frames++;
}

void run_timeline_set_psnr(run_timeline *t, uint32_t frame, double psnr_db)
{
    if (frame >= t->frames) {
        return;
    }
    const run_point v = {.psnr_db = psnr_db, .psnr_set = 1};
    point_max(&t->p[frame / t->span], &v);
}

void run_timeline_set_textures(run_timeline *t, uint32_t frame, uint32_t used, uint32_t tile_misses)
{
    if (frame >= t->frames) {
        return;
    }
    const run_point v = {.tex_used = used, .tile_misses = tile_misses};
    point_max(&t->p[frame / t->span], &v);
}

void run_timeline_set_gpu(run_timeline *t, uint32_t frame, uint64_t gpu_ns)
{
    if (frame >= t->frames) {
        return;
    }
    const run_point v = {.gpu_ns = gpu_ns, .gpu_set = 1};
    point_max(&t->p[frame / t->span], &v);
}

/* The SVG timeline. Every coordinate comes from the input and the fixed
 * layout below, so the same run gives the same bytes. */

enum svg_unit { SVG_COUNT, SVG_BYTES, SVG_US, SVG_DB };
enum svg_series {
    SVG_CALLER,
    SVG_GPU,
    SVG_BUDGET,
    SVG_POOL,
    SVG_TEX_POOL,
    SVG_UPLOAD,
    SVG_MISSES,
    SVG_TILE_MISSES,
    SVG_PSNR
};

typedef struct svg_row {
    char name[SLC_NAME_MAX + 48], detail[128];
    enum svg_series series;
    enum svg_unit unit;
    uint32_t budget; /* SVG_BUDGET: the index into the frame records' budgets */
    double maxv;     /* the top of the scale */
    double limit;    /* the dashed line; < 0 for none */
    const char *color;
} svg_row;

#define SVG_PAD 10.0
#define SVG_PLOT_W 720.0
#define SVG_ROW_H 64.0
#define SVG_ROW_GAP 20.0
#define SVG_LINE_H 14.0
#define SVG_TOP 44.0

/* The estimated width of s at px (RUN_SVG_GLYPH_EM a byte, see run_outputs.h). */
static double svg_text_w(const char *s, double px)
{
    return (double)strlen(s) * px * RUN_SVG_GLYPH_EM;
}

/* A text at (x, y) anchored at its start, or at its "middle" or "end"; the
 * table's head in bold (DejaVu Sans Mono Bold has the same advance). */
static void svg_text(FILE *f, double x, double y, const char *anchor, const char *cls, const char *s)
{
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\"%s%s%s%s class=\"%s\">", x, y, anchor ? " text-anchor=\"" : "",
            anchor ? anchor : "", anchor ? "\"" : "", strcmp(cls, "cell head") == 0 ? " font-weight=\"bold\"" : "",
            cls);
    esc_xml(f, s);
    fprintf(f, "</text>\n");
}

double svg_nice_ceil(double v)
{
    double p = 1;
    while (p * 10 <= v) {
        p *= 10;
    }
    for (;;) {
        if (v <= p) {
            return p;
        }
        if (v <= 2 * p) {
            return 2 * p;
        }
        if (v <= 5 * p) {
            return 5 * p;
        }
        p *= 10;
    }
}

static const char *svg_value(double v, enum svg_unit u, char *buf, size_t cap)
{
    if (u == SVG_BYTES) {
        return cli_size_approx((uint64_t)(v + 0.5), buf, cap);
    }
    snprintf(buf, cap, u == SVG_US ? "%.0f \xc2\xb5s" : u == SVG_DB ? "%.0f dB" : "%.0f", v);
    return buf;
}

static double svg_point(const run_timeline *t, uint32_t k, const svg_row *r)
{
    const run_point *p = &t->p[k];
    switch (r->series) {
    case SVG_CALLER:
        return (double)p->caller_ns / 1e3;
    case SVG_GPU:
        return (double)p->gpu_ns / 1e3;
    case SVG_BUDGET:
        return (double)p->budgets[r->budget];
    case SVG_POOL:
        return (double)p->pool_used;
    case SVG_TEX_POOL:
        return (double)p->tex_used;
    case SVG_UPLOAD:
        return (double)p->uploaded;
    case SVG_MISSES:
        return (double)p->misses;
    case SVG_TILE_MISSES:
        return (double)p->tile_misses;
    case SVG_PSNR:
        return p->psnr_db; /* +INFINITY (identical) is drawn at the top */
    }
    return 0;
}

/* The largest value of a series over the points. */
static double svg_top(const run_timeline *t, uint32_t npts, enum svg_series series)
{
    const svg_row probe = {.series = series};
    double top = 0;
    for (uint32_t k = 0; k < npts; k++) {
        double v = svg_point(t, k, &probe);
        top = v > top ? v : top;
    }
    return top;
}

/* The next row, zeroed but for its series, unit and colour. */
static svg_row *svg_row_add(svg_row *rows, size_t *n, enum svg_series series, enum svg_unit unit, const char *color)
{
    svg_row *r = &rows[(*n)++];
    memset(r, 0, sizeof *r);
    r->series = series;
    r->unit = unit;
    r->color = color;
    return r;
}

/* A pool's row: pages used, scaled to and limited by its pages. */
static void svg_pages_row(svg_row *rows, size_t *n, enum svg_series series, const char *color, const char *name,
                          uint32_t pages)
{
    svg_row *r = svg_row_add(rows, n, series, SVG_COUNT, color);
    r->limit = (double)pages;
    r->maxv = r->limit;
    snprintf(r->name, sizeof r->name, "%s", name);
    snprintf(r->detail, sizeof r->detail, "of %u", pages);
}

/* The rows to plot, and in fold[] the budgets that held their peak over every frame. */
static size_t svg_rows(const run_timeline *t, const run_svg_info *in, uint32_t npts, svg_row *rows, size_t *fold,
                       size_t *nfold)
{
    size_t n = 0;
    char a[32], b[32];
    double top = svg_top(t, npts, SVG_CALLER);
    svg_row *r = svg_row_add(rows, &n, SVG_CALLER, SVG_US, "#9467bd");
    r->limit = in->frame_budget_ns ? (double)in->frame_budget_ns / 1e3 : -1;
    r->maxv = svg_nice_ceil(top > r->limit ? top : r->limit);
    snprintf(r->name, sizeof r->name, "caller's time a frame");
    if (in->frame_budget_ns) {
        snprintf(r->detail, sizeof r->detail, "max %.0f \xc2\xb5s, budget %.0f \xc2\xb5s", top, r->limit);
    } else {
        snprintf(r->detail, sizeof r->detail, "max %.0f \xc2\xb5s", top);
    }
    /* The GPU's time a frame, when frames were rendered and timed. */
    int timed = 0;
    for (uint32_t k = 0; k < npts && !timed; k++) {
        timed = t->p[k].gpu_set != 0;
    }
    if (timed) {
        top = svg_top(t, npts, SVG_GPU);
        r = svg_row_add(rows, &n, SVG_GPU, SVG_US, "#17becf");
        r->limit = -1;
        r->maxv = svg_nice_ceil(top);
        snprintf(r->name, sizeof r->name, "GPU time a frame");
        snprintf(r->detail, sizeof r->detail, "max %.0f \xc2\xb5s", top);
    }
    *nfold = 0;
    for (size_t i = 0; i < in->nb && i < SLC_BUDGET_MAX; i++) {
        const slc_budget_stats *bs = &in->b[i];
        if (bs->limit == 0 || bs->peak == 0 || bs->id.index >= SLC_PROFILE_BUDGET_MAX) {
            continue; /* unused, or not in the frame records */
        }
        if (t->frames > 0 && !t->varied[bs->id.index] && t->first[bs->id.index] == bs->peak) {
            fold[(*nfold)++] = i;
            continue;
        }
        r = svg_row_add(rows, &n, SVG_BUDGET, SVG_BYTES, "#1f77b4");
        r->budget = bs->id.index;
        r->limit = (double)bs->limit;
        r->maxv = r->limit;
        snprintf(r->name, sizeof r->name, "%s", bs->name);
        snprintf(r->detail, sizeof r->detail, "limit %s, peak %s", cli_size_approx(bs->limit, a, sizeof a),
                 cli_size_approx(bs->peak, b, sizeof b));
    }
    svg_pages_row(rows, &n, SVG_POOL, "#2ca02c", "pool pages used", in->page_count);
    if (in->texture_page_count > 0) {
        svg_pages_row(rows, &n, SVG_TEX_POOL, "#bcbd22", "texture pool pages used", in->texture_page_count);
    }
    top = svg_top(t, npts, SVG_UPLOAD);
    r = svg_row_add(rows, &n, SVG_UPLOAD, SVG_BYTES, "#ff7f0e");
    r->limit = (double)in->upload_cap;
    r->maxv = top > r->limit ? top : r->limit;
    snprintf(r->name, sizeof r->name, "bytes uploaded a frame");
    snprintf(r->detail, sizeof r->detail, "cap %s, max %s", cli_size_approx(in->upload_cap, a, sizeof a),
             cli_size_approx((uint64_t)top, b, sizeof b));
    top = svg_top(t, npts, SVG_MISSES);
    r = svg_row_add(rows, &n, SVG_MISSES, SVG_COUNT, "#d62728");
    r->limit = -1;
    r->maxv = svg_nice_ceil(top);
    snprintf(r->name, sizeof r->name, "misses a frame");
    snprintf(r->detail, sizeof r->detail, "max %.0f", top);
    if (in->texture_page_count > 0) {
        top = svg_top(t, npts, SVG_TILE_MISSES);
        r = svg_row_add(rows, &n, SVG_TILE_MISSES, SVG_COUNT, "#e377c2");
        r->limit = -1;
        r->maxv = svg_nice_ceil(top);
        snprintf(r->name, sizeof r->name, "tiles not resident when asked");
        snprintf(r->detail, sizeof r->detail, "max %.0f a frame", top);
    }
    /* PSNR against the reference, when frames were compared: the scale to
     * the largest finite value or the floor. */
    double low = INFINITY, high = 10; /* dB: the scale's least top */
    int compared = 0;
    for (uint32_t k = 0; k < npts; k++) {
        const run_point *p = &t->p[k];
        if (p->psnr_set) {
            compared = 1;
            low = p->psnr_db < low ? p->psnr_db : low;
            high = isfinite(p->psnr_db) && p->psnr_db > high ? p->psnr_db : high;
        }
    }
    if (compared) {
        r = svg_row_add(rows, &n, SVG_PSNR, SVG_DB, "#8c564b");
        r->limit = in->min_psnr_mdb ? (double)in->min_psnr_mdb / 1000.0 : -1;
        r->maxv = svg_nice_ceil(high > r->limit ? high : r->limit);
        snprintf(r->name, sizeof r->name, "PSNR against the reference");
        if (isinf(low)) {
            snprintf(r->detail, sizeof r->detail, "every frame identical");
        } else if (in->min_psnr_mdb) {
            snprintf(r->detail, sizeof r->detail, "min %.2f dB, floor %g dB", low, r->limit);
        } else {
            snprintf(r->detail, sizeof r->detail, "min %.2f dB", low);
        }
    }
    for (size_t i = 0; i < n; i++) {
        rows[i].maxv = rows[i].maxv > 0 ? rows[i].maxv : 1;
    }
    return n;
}

static void svg_plot(FILE *f, const run_timeline *t, const svg_row *r, uint32_t npts, double x0, double y0)
{
    const double pw = SVG_PLOT_W, ph = SVG_ROW_H;
    const uint32_t n = t->frames ? t->frames : 1u;
    if (r->series == SVG_UPLOAD || r->series == SVG_MISSES) {
        fprintf(f, "<path fill=\"%s\" d=\"", r->color);
        for (uint32_t k = 0; k < npts; k++) {
            double v = svg_point(t, k, r);
            if (v <= 0) {
                continue;
            }
            uint32_t first = k * t->span, count = t->frames - first < t->span ? t->frames - first : t->span;
            double x = x0 + pw * first / n, w = pw * count / n, hh = ph * (v > r->maxv ? r->maxv : v) / r->maxv;
            w = w > 0.5 ? w * 0.9 : 0.5;
            fprintf(f, "M%.2f %.2fh%.2fv%.2fh%.2fz", x, y0 + ph - hh, w, hh, -w);
        }
        fprintf(f, "\"/>\n");
    } else {
        fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"", r->color);
        for (uint32_t k = 0; k < npts; k++) {
            if ((r->series == SVG_PSNR && !t->p[k].psnr_set) || (r->series == SVG_GPU && !t->p[k].gpu_set)) {
                continue; /* no frame of the point compared, or timed */
            }
            double v = svg_point(t, k, r);
            uint32_t first = k * t->span, count = t->frames - first < t->span ? t->frames - first : t->span;
            fprintf(f, "%.2f,%.2f ", x0 + pw * (first + 0.5 * count) / n,
                    y0 + ph - ph * (v > r->maxv ? r->maxv : v) / r->maxv);
        }
        fprintf(f, "\"/>\n");
    }
    if (r->limit >= 0) {
        double y = y0 + ph - ph * (r->limit > r->maxv ? r->maxv : r->limit) / r->maxv;
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#000\" stroke-dasharray=\"4 3\"/>\n",
                x0, y, x0 + pw, y);
    }
}

int run_timeline_write_svg(FILE *f, const run_timeline *t, const run_svg_info *in)
{
    static const double ticks_at[] = {0, 0.5, 1}; /* of the scale: the y axis's values */
    svg_row rows[SLC_BUDGET_MAX + 8]; /* caller, GPU, the budgets, pools, upload, misses, tile misses, PSNR */
    size_t fold[SLC_BUDGET_MAX], nfold = 0;
    const uint32_t npts = t->frames ? (t->frames - 1u) / t->span + 1u : 0u;
    const uint32_t n = t->frames ? t->frames : 1u;
    const size_t nrows = svg_rows(t, in, npts, rows, fold, &nfold);
    char title[96], v[48], a[32], b[32];
    snprintf(title, sizeof title, ", %u frames%s \xe2\x80\x94 verdict %s", t->frames,
             t->span > 1 ? " (each point the maximum of its frames)" : "", in->ok ? "ok" : "FAILED");
    const char *fold_title = "budgets held at their peak";
    const char *fold_detail = "in every frame (set at init)";

    /* The label column: the longest label line; the axis column: the longest tick value. */
    double lw = svg_text_w("frame", RUN_SVG_FONT_PX), aw = 0;
    for (size_t i = 0; i < nrows; i++) {
        double w1 = svg_text_w(rows[i].name, RUN_SVG_FONT_PX), w2 = svg_text_w(rows[i].detail, RUN_SVG_FONT_PX);
        lw = w1 > lw ? w1 : lw;
        lw = w2 > lw ? w2 : lw;
        for (int k = 0; k < 3; k++) {
            double w = svg_text_w(svg_value(rows[i].maxv * ticks_at[k], rows[i].unit, v, sizeof v), RUN_SVG_FONT_PX);
            aw = w > aw ? w : aw;
        }
    }
    /* The table's columns: name, limit, peak. */
    double cw[3] = {svg_text_w("budget", RUN_SVG_FONT_PX), svg_text_w("limit", RUN_SVG_FONT_PX),
                    svg_text_w("peak", RUN_SVG_FONT_PX)};
    if (nfold > 0) {
        double w1 = svg_text_w(fold_title, RUN_SVG_FONT_PX), w2 = svg_text_w(fold_detail, RUN_SVG_FONT_PX);
        lw = w1 > lw ? w1 : lw;
        lw = w2 > lw ? w2 : lw;
    }
    for (size_t i = 0; i < nfold; i++) {
        const slc_budget_stats *bs = &in->b[fold[i]];
        double w[3] = {svg_text_w(bs->name, RUN_SVG_FONT_PX),
                       svg_text_w(cli_size_approx(bs->limit, a, sizeof a), RUN_SVG_FONT_PX),
                       svg_text_w(cli_size_approx(bs->peak, b, sizeof b), RUN_SVG_FONT_PX)};
        for (int c = 0; c < 3; c++) {
            cw[c] = w[c] > cw[c] ? w[c] : cw[c];
        }
    }
    const double x_label = SVG_PAD, x_axis = x_label + lw + SVG_PAD + aw, x_plot = x_axis + 4;
    const double title_w = SVG_PAD + svg_text_w(in->pack, RUN_SVG_TITLE_PX) +
                           svg_text_w(in->profile, RUN_SVG_TITLE_PX) + svg_text_w(in->backend, RUN_SVG_TITLE_PX) +
                           svg_text_w("sluice run: , profile , ", RUN_SVG_TITLE_PX) +
                           svg_text_w(title, RUN_SVG_TITLE_PX) + SVG_PAD;
    const double table_w = x_plot + cw[0] + cw[1] + cw[2] + 4 * SVG_PAD;
    double W = x_plot + SVG_PLOT_W + SVG_PAD;
    W = title_w > W ? title_w : W;
    W = table_w > W ? table_w : W;
    const double y_axis = SVG_TOP + (double)nrows * (SVG_ROW_H + SVG_ROW_GAP) - SVG_ROW_GAP;
    const double y_table = y_axis + 2 * SVG_LINE_H + SVG_ROW_GAP;
    const double H = (nfold > 0 ? y_table + (double)(nfold + 1) * SVG_LINE_H : y_axis + 2 * SVG_LINE_H) + SVG_PAD;

    fprintf(f,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
            "font-family=\"DejaVu Sans Mono, monospace\" font-size=\"%.0f\">\n",
            W, H, W, H, RUN_SVG_FONT_PX);
    fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
    fprintf(f, "<text x=\"%.1f\" y=\"22\" font-size=\"%.0f\" class=\"title\">sluice run: ", SVG_PAD, RUN_SVG_TITLE_PX);
    esc_xml(f, in->pack);
    fprintf(f, ", profile ");
    esc_xml(f, in->profile);
    fprintf(f, ", ");
    esc_xml(f, in->backend);
    esc_xml(f, title);
    fprintf(f, "</text>\n");
    svg_text(f, SVG_PAD, 36, NULL, "note", "dashed: the limit; y from 0 to the value at the top of each row");

    /* The x axis's frame numbers: about 8, a round step apart. */
    const uint64_t step = (uint64_t)svg_nice_ceil((double)n / 8.0);
    for (size_t i = 0; i < nrows; i++) {
        const svg_row *r = &rows[i];
        const double y0 = SVG_TOP + (double)i * (SVG_ROW_H + SVG_ROW_GAP);
        svg_text(f, x_label, y0 + 11, NULL, "label", r->name);
        svg_text(f, x_label, y0 + 11 + SVG_LINE_H, NULL, "label", r->detail);
        fprintf(f,
                "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#f6f6f6\" stroke=\"#ccc\" "
                "class=\"plot\"/>\n",
                x_plot, y0, SVG_PLOT_W, SVG_ROW_H);
        fprintf(f, "<path stroke=\"#e2e2e2\" d=\"M%.1f %.1fh%.1f", x_plot, y0 + SVG_ROW_H / 2, SVG_PLOT_W);
        for (uint64_t fr = step; fr < n; fr += step) {
            fprintf(f, "M%.1f %.1fv%.1f", x_plot + SVG_PLOT_W * ((double)fr + 0.5) / n, y0, SVG_ROW_H);
        }
        fprintf(f, "\"/>\n");
        for (int k = 0; k < 3; k++) {
            double y = y0 + SVG_ROW_H - SVG_ROW_H * ticks_at[k] + 4;
            svg_text(f, x_axis, y, "end", "ytick", svg_value(r->maxv * ticks_at[k], r->unit, v, sizeof v));
        }
        svg_plot(f, t, r, npts, x_plot, y0);
    }
    svg_text(f, x_label, y_axis + SVG_LINE_H, NULL, "label", "frame");
    for (uint64_t fr = 0; fr < n; fr += step) {
        snprintf(v, sizeof v, "%" PRIu64, fr);
        svg_text(f, x_plot + SVG_PLOT_W * ((double)fr + 0.5) / n, y_axis + SVG_LINE_H, "middle", "xtick", v);
    }
    if (nfold > 0) {
        const double c[3] = {x_plot, x_plot + cw[0] + 2 * SVG_PAD, x_plot + cw[0] + cw[1] + 4 * SVG_PAD};
        svg_text(f, x_label, y_table, NULL, "label", fold_title);
        svg_text(f, x_label, y_table + SVG_LINE_H, NULL, "label", fold_detail);
        svg_text(f, c[0], y_table, NULL, "cell head", "budget");
        svg_text(f, c[1], y_table, NULL, "cell head", "limit");
        svg_text(f, c[2], y_table, NULL, "cell head", "peak");
        for (size_t i = 0; i < nfold; i++) {
            const slc_budget_stats *bs = &in->b[fold[i]];
            const double y = y_table + (double)(i + 1) * SVG_LINE_H;
            svg_text(f, c[0], y, NULL, "cell", bs->name);
            svg_text(f, c[1], y, NULL, "cell", cli_size_approx(bs->limit, a, sizeof a));
            svg_text(f, c[2], y, NULL, "cell", cli_size_approx(bs->peak, b, sizeof b));
        }
    }
    fprintf(f, "</svg>\n");
    return ferror(f) ? -1 : 0;
}

void run_chrome_begin(run_chrome *c, FILE *f, uint32_t workers, const slc_budget_stats *budgets, size_t budget_count)
{
    memset(c, 0, sizeof *c);
    c->f = f;
    c->budgets = budgets;
    c->budget_count = budget_count < SLC_PROFILE_BUDGET_MAX ? budget_count : SLC_PROFILE_BUDGET_MAX;
    memset(c->last, 0xff, sizeof c->last);
    fprintf(f, "{\"displayTimeUnit\": \"ms\", \"traceEvents\": [\n");
    fprintf(
        f,
        "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": 0, \"args\": {\"name\": \"sluice run\"}},\n");
    fprintf(f, "{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": 0, \"args\": {\"name\": \"caller\"}}");
    for (uint32_t w = 0; w < workers; w++) {
        fprintf(
            f,
            ",\n{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": %u, \"args\": {\"name\": \"worker %u\"}}",
            w + 1, w);
    }
}

void run_chrome_frame(run_chrome *c, uint32_t k, uint64_t start_ns, uint64_t end_ns, const slc_stream_frame_stats *fs,
                      uint32_t pool_used, uint64_t caller_loads)
{
    if (c->frames_written >= RUN_CHROME_FRAMES_MAX) {
        c->frames_left_out++;
        return;
    }
    c->frames_written++;
    FILE *f = c->f;
    fprintf(
        f,
        ",\n{\"name\": \"frame\", \"cat\": \"frame\", \"ph\": \"X\", \"pid\": 1, \"tid\": 0, \"ts\": %.3f, "
        "\"dur\": %.3f, \"args\": {\"frame\": %u, \"requests\": %u, \"hits\": %u, \"misses\": %u, \"loads_started\": %u, "
        "\"evictions\": %u, \"deferred\": %u, \"failures\": %u, \"caller_ns\": %" PRIu64 ", \"wait_ns\": %" PRIu64 "}}",
        (double)start_ns / 1e3, (double)(end_ns - start_ns) / 1e3, k, fs->requests, fs->hits, fs->misses,
        fs->loads_started, fs->evictions, fs->deferred, fs->failures, fs->caller_ns, fs->wait_ns);
    fprintf(f,
            ",\n{\"name\": \"pool\", \"ph\": \"C\", \"pid\": 1, \"ts\": %.3f, \"args\": {\"pages used\": %u}}"
            ",\n{\"name\": \"upload\", \"ph\": \"C\", \"pid\": 1, \"ts\": %.3f, \"args\": {\"bytes\": %" PRIu64 "}}",
            (double)end_ns / 1e3, pool_used, (double)end_ns / 1e3, fs->bytes_uploaded);
    fprintf(f,
            ",\n{\"name\": \"misses\", \"ph\": \"C\", \"pid\": 1, \"ts\": %.3f, \"args\": {\"misses\": %u}}"
            ",\n{\"name\": \"caller loads\", \"ph\": \"C\", \"pid\": 1, \"ts\": %.3f, \"args\": {\"loads\": %" PRIu64
            "}}",
            (double)end_ns / 1e3, fs->misses, (double)end_ns / 1e3, caller_loads);
    for (size_t i = 0; i < c->budget_count && i < fs->budget_count; i++) {
        if (fs->budgets[i] == c->last[i]) {
            continue;
        }
        c->last[i] = fs->budgets[i];
        char name[SLC_NAME_MAX + 8];
        snprintf(name, sizeof name, "budget %s", c->budgets[i].name);
        fprintf(f, ",\n{\"name\": ");
        esc_json(f, name);
        fprintf(f, ", \"ph\": \"C\", \"pid\": 1, \"ts\": %.3f, \"args\": {\"bytes\": %" PRIu64 "}}",
                (double)end_ns / 1e3, fs->budgets[i]);
    }
}

void run_chrome_textures(run_chrome *c, uint64_t end_ns, uint32_t used, uint32_t tile_misses)
{
    if (c->frames_left_out > 0) {
        return; /* its frame was left out */
    }
    fprintf(c->f,
            ",\n{\"name\": \"texture pool\", \"ph\": \"C\", \"pid\": 1, \"ts\": %.3f, \"args\": {\"pages used\": %u, "
            "\"tile misses\": %u}}",
            (double)end_ns / 1e3, used, tile_misses);
}

void run_chrome_load(run_chrome *c, uint32_t w, uint64_t t0, uint64_t t1)
{
    if (c->frames_left_out > 0) {
        c->loads_left_out++;
        return;
    }
    fprintf(c->f,
            ",\n{\"name\": \"load\", \"cat\": \"load\", \"ph\": \"X\", \"pid\": 1, \"tid\": %u, \"ts\": %.3f, "
            "\"dur\": %.3f}",
            w + 1, (double)t0 / 1e3, (double)(t1 - t0) / 1e3);
}

int run_chrome_end(run_chrome *c, uint64_t loads_dropped)
{
    if (c->frames_left_out > 0 || loads_dropped > 0) {
        fprintf(c->f,
                ",\n{\"name\": \"not recorded: %" PRIu64 " frames after the first %u, %" PRIu64
                " loads\", \"ph\": \"i\", \"s\": \"g\", \"pid\": 1, \"tid\": 0, \"ts\": 0}",
                c->frames_left_out, RUN_CHROME_FRAMES_MAX, c->loads_left_out + loads_dropped);
    }
    fprintf(c->f, "\n]}\n");
    return ferror(c->f) ? -1 : 0;
}
