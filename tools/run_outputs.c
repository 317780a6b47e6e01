/* sluice run: aggregated per-frame figures and the files made from them (see run_outputs.h). */
#include "run_outputs.h"

#include <inttypes.h>
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
    a->pool_used = b->pool_used > a->pool_used ? b->pool_used : a->pool_used;
    a->misses = b->misses > a->misses ? b->misses : a->misses;
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
    v.uploaded = fs->bytes_uploaded;
    v.pool_used = pool_used;
    v.misses = fs->misses;
    point_max(&t->p[t->frames / t->span], &v);
    t->frames++;
}

int run_timeline_write_svg(FILE *f, const run_timeline *t, const run_svg_info *in)
{
    /* Panels: each budget below a root that the run used, pool pages, upload bytes, misses. */
    size_t idx[SLC_BUDGET_MAX], nbp = 0;
    for (size_t i = 0; i < in->nb && i < SLC_BUDGET_MAX; i++) {
        if (in->b[i].limit > 0 && in->b[i].peak > 0 && in->b[i].id.index < SLC_PROFILE_BUDGET_MAX) {
            idx[nbp++] = i;
        }
    }
    const double W = 960, left = 20, right = 20, ph = 70, gap = 24, top = 48; /* each label above its panel */
    const double pw = W - left - right;
    const size_t panels = nbp + 3;
    const double H = top + (double)panels * (ph + gap) + 20;
    const uint32_t n = t->frames ? t->frames : 1u;
    const uint32_t npts = t->frames ? (t->frames - 1u) / t->span + 1u : 0u;
    fprintf(f,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
            "font-family=\"sans-serif\" font-size=\"11\">\n",
            W, H, W, H);
    fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
    fprintf(f, "<text x=\"10\" y=\"20\" font-size=\"14\">sluice run: ");
    esc_xml(f, in->pack);
    fprintf(f, ", profile ");
    esc_xml(f, in->profile);
    fprintf(f, ", ");
    esc_xml(f, in->backend);
    fprintf(f, ", %u frames%s — verdict %s</text>\n", t->frames, t->span > 1 ? " (each point the maximum of its frames)" : "",
            in->ok ? "ok" : "FAILED");
    for (size_t p = 0; p < panels; p++) {
        const double y0 = top + (double)p * (ph + gap);
        char label[160], sz[32], sz2[32];
        double maxv = 1, limit = -1;
        int bars = 0;
        const char *color = "#1f77b4";
        if (p < nbp) {
            const slc_budget_stats *b = &in->b[idx[p]];
            limit = (double)b->limit;
            maxv = limit;
            snprintf(label, sizeof label, "%s (limit %s, peak %s)", b->name, cli_size(b->limit, sz, sizeof sz),
                     cli_size(b->peak, sz2, sizeof sz2));
        } else if (p == nbp) {
            maxv = (double)in->page_count;
            limit = maxv;
            color = "#2ca02c";
            snprintf(label, sizeof label, "pool pages used (of %u)", in->page_count);
        } else if (p == nbp + 1) {
            limit = (double)in->upload_cap;
            maxv = limit;
            for (uint32_t k = 0; k < npts; k++) {
                maxv = (double)t->p[k].uploaded > maxv ? (double)t->p[k].uploaded : maxv;
            }
            bars = 1;
            color = "#ff7f0e";
            snprintf(label, sizeof label, "bytes uploaded a frame (cap %s)", cli_size(in->upload_cap, sz, sizeof sz));
        } else {
            for (uint32_t k = 0; k < npts; k++) {
                maxv = (double)t->p[k].misses > maxv ? (double)t->p[k].misses : maxv;
            }
            bars = 1;
            color = "#d62728";
            snprintf(label, sizeof label, "misses a frame (max %.0f)", maxv);
        }
        if (maxv <= 0) {
            maxv = 1;
        }
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">", left, y0 - 6);
        esc_xml(f, label);
        fprintf(f, "</text>\n<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#f6f6f6\" "
                   "stroke=\"#ccc\"/>\n",
                left, y0, pw, ph);
        if (bars) {
            fprintf(f, "<path fill=\"%s\" d=\"", color);
            for (uint32_t k = 0; k < npts; k++) {
                double v = p == nbp + 1 ? (double)t->p[k].uploaded : (double)t->p[k].misses;
                if (v <= 0) {
                    continue;
                }
                uint32_t first = k * t->span, count = t->frames - first < t->span ? t->frames - first : t->span;
                double x = left + pw * first / n, w = pw * count / n, hh = ph * v / maxv;
                fprintf(f, "M%.2f %.2fh%.2fv%.2fh%.2fz", x, y0 + ph - hh, w > 0.5 ? w * 0.9 : 0.5, hh,
                        -(w > 0.5 ? w * 0.9 : 0.5));
            }
            fprintf(f, "\"/>\n");
        } else {
            fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"", color);
            for (uint32_t k = 0; k < npts; k++) {
                double v = p < nbp ? (double)t->p[k].budgets[in->b[idx[p]].id.index] : (double)t->p[k].pool_used;
                uint32_t first = k * t->span, count = t->frames - first < t->span ? t->frames - first : t->span;
                fprintf(f, "%.2f,%.2f ", left + pw * (first + 0.5 * count) / n,
                        y0 + ph - ph * (v > maxv ? maxv : v) / maxv);
            }
            fprintf(f, "\"/>\n");
        }
        if (limit >= 0) {
            double y = y0 + ph - ph * (limit > maxv ? maxv : limit) / maxv;
            fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#000\" stroke-dasharray=\"4 3\"/>\n",
                    left, y, left + pw, y);
        }
    }
    const double yb = top + (double)panels * (ph + gap) - gap + 14;
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">frame 0</text><text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">frame %u</text>\n",
            left, yb, left + pw, yb, n - 1);
    fprintf(f, "</svg>\n");
    return ferror(f) ? -1 : 0;
}

void run_chrome_begin(run_chrome *c, FILE *f, uint32_t workers)
{
    memset(c, 0, sizeof *c);
    c->f = f;
    fprintf(f, "{\"displayTimeUnit\": \"ms\", \"traceEvents\": [\n");
    fprintf(f, "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": 0, \"args\": {\"name\": \"sluice run\"}},\n");
    fprintf(f, "{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": 0, \"args\": {\"name\": \"caller\"}}");
    for (uint32_t w = 0; w < workers; w++) {
        fprintf(f, ",\n{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": %u, \"args\": {\"name\": \"worker %u\"}}",
                w + 1, w);
    }
}

void run_chrome_frame(run_chrome *c, uint32_t k, uint64_t start_ns, uint64_t end_ns, const slc_stream_frame_stats *fs,
                      uint32_t pool_used)
{
    if (c->frames_written >= RUN_CHROME_FRAMES_MAX) {
        c->frames_left_out++;
        return;
    }
    c->frames_written++;
    FILE *f = c->f;
    fprintf(f,
            ",\n{\"name\": \"frame %u\", \"cat\": \"frame\", \"ph\": \"X\", \"pid\": 1, \"tid\": 0, \"ts\": %.3f, "
            "\"dur\": %.3f, \"args\": {\"requests\": %u, \"hits\": %u, \"misses\": %u, \"loads_started\": %u, "
            "\"evictions\": %u, \"deferred\": %u, \"failures\": %u, \"caller_ns\": %" PRIu64 ", \"wait_ns\": %" PRIu64
            "}}",
            k, (double)start_ns / 1e3, (double)(end_ns - start_ns) / 1e3, fs->requests, fs->hits, fs->misses,
            fs->loads_started, fs->evictions, fs->deferred, fs->failures, fs->caller_ns, fs->wait_ns);
    fprintf(f,
            ",\n{\"name\": \"pool\", \"ph\": \"C\", \"pid\": 1, \"ts\": %.3f, \"args\": {\"pages used\": %u}}"
            ",\n{\"name\": \"upload\", \"ph\": \"C\", \"pid\": 1, \"ts\": %.3f, \"args\": {\"bytes\": %" PRIu64 "}}",
            (double)end_ns / 1e3, pool_used, (double)end_ns / 1e3, fs->bytes_uploaded);
}

void run_chrome_load(run_chrome *c, uint32_t w, uint64_t t0, uint64_t t1)
{
    if (c->frames_left_out > 0) {
        c->loads_left_out++;
        return;
    }
    fprintf(c->f, ",\n{\"name\": \"load\", \"cat\": \"load\", \"ph\": \"X\", \"pid\": 1, \"tid\": %u, \"ts\": %.3f, "
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
