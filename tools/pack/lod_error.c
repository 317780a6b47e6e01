/* SPDX-License-Identifier: MIT */
/* sluice pack: the Hausdorff distance between a mesh's levels (lod_error.h).
 *
 * The index is a binary tree of axis-aligned boxes over the triangles,
 * split at the median centroid of the longest axis down to leaves of at
 * most LEAF triangles. A query walks it nearer child first and skips every
 * box farther than the best distance found so far; a deviation query also
 * stops as soon as a triangle is nearer than the largest distance already
 * measured, since that sample cannot raise it. */
#include "lod_error.h"

#include "sluice/pack_format.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define LEAF 4u
#define NO_TRI UINT32_MAX /* no triangle */
#define STACK 128u

typedef struct node {
    double lo[3], hi[3];
    uint32_t first; /* leaf: first entry of order; inner: left child (right is first + 1) */
    uint32_t count; /* leaf: triangles; inner: 0 */
} node;

struct pk_surface_index {
    pk_surface s;
    node *nodes;
    uint32_t node_count;
    uint32_t *order; /* triangle numbers, leaf by leaf */
};

typedef struct entry {
    double c; /* centroid on the split axis */
    uint32_t t;
} entry;

static void corner(const pk_surface *s, size_t t, int k, double out[3])
{
    const float *v = s->positions + (size_t)s->indices[t * 3 + (size_t)k] * s->stride;
    out[0] = v[0];
    out[1] = v[1];
    out[2] = v[2];
}

static int cmp_entry(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    if (x->c != y->c) {
        return x->c < y->c ? -1 : 1;
    }
    return x->t < y->t ? -1 : (x->t > y->t);
}

static void swap_entry(entry *a, entry *b)
{
    entry t = *a;
    *a = *b;
    *b = t;
}

/* Reorders e[0, count) so that e[nth] is where a sort by cmp_entry puts it,
 * no entry before it greater and none after it smaller (quickselect with
 * the median of three as pivot: O(count) expected, and the same order for
 * the same input since cmp_entry is a total order). */
static void select_nth(entry *e, uint32_t count, uint32_t nth)
{
    uint32_t lo = 0, hi = count - 1;
    while (hi > lo) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (cmp_entry(&e[mid], &e[lo]) < 0) {
            swap_entry(&e[mid], &e[lo]);
        }
        if (cmp_entry(&e[hi], &e[lo]) < 0) {
            swap_entry(&e[hi], &e[lo]);
        }
        if (cmp_entry(&e[hi], &e[mid]) < 0) {
            swap_entry(&e[hi], &e[mid]);
        }
        entry pivot = e[mid];
        uint32_t i = lo, j = hi;
        for (;;) { /* Hoare partition: [lo, j] <= pivot <= [j + 1, hi] */
            while (cmp_entry(&e[i], &pivot) < 0) {
                i++;
            }
            while (cmp_entry(&e[j], &pivot) > 0) {
                j--;
            }
            if (i >= j) {
                break;
            }
            swap_entry(&e[i], &e[j]);
            i++;
            j--;
        }
        if (nth <= j) {
            hi = j;
        } else {
            lo = j + 1;
        }
    }
}

/* A triangle's box and centroid, computed once for the build. */
typedef struct tri_box {
    double lo[3], hi[3], c[3];
} tri_box;

/* Node n over order[first, first + count): its box, then its split. */
static void build_node(pk_surface_index *x, const tri_box *tb, entry *scratch, uint32_t n, uint32_t first,
                       uint32_t count)
{
    node *nd = &x->nodes[n];
    double clo[3] = {INFINITY, INFINITY, INFINITY}, chi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int k = 0; k < 3; k++) {
        nd->lo[k] = INFINITY;
        nd->hi[k] = -INFINITY;
    }
    for (uint32_t i = first; i < first + count; i++) {
        const tri_box *t = &tb[x->order[i]];
        for (int k = 0; k < 3; k++) {
            nd->lo[k] = t->lo[k] < nd->lo[k] ? t->lo[k] : nd->lo[k];
            nd->hi[k] = t->hi[k] > nd->hi[k] ? t->hi[k] : nd->hi[k];
            clo[k] = t->c[k] < clo[k] ? t->c[k] : clo[k];
            chi[k] = t->c[k] > chi[k] ? t->c[k] : chi[k];
        }
    }
    if (count <= LEAF) {
        nd->first = first;
        nd->count = count;
        return;
    }
    int axis = 0;
    for (int k = 1; k < 3; k++) {
        axis = chi[k] - clo[k] > chi[axis] - clo[axis] ? k : axis;
    }
    for (uint32_t i = 0; i < count; i++) {
        uint32_t t = x->order[first + i];
        scratch[i].c = tb[t].c[axis];
        scratch[i].t = t;
    }
    uint32_t half = count / 2;
    select_nth(scratch, count, half);
    for (uint32_t i = 0; i < count; i++) {
        x->order[first + i] = scratch[i].t;
    }
    uint32_t left = x->node_count;
    x->node_count += 2;
    nd->first = left;
    nd->count = 0;
    build_node(x, tb, scratch, left, first, half);
    build_node(x, tb, scratch, left + 1, first + half, count - half);
}

pk_surface_index *pk_surface_index_build(const pk_surface *s)
{
    if (s->triangle_count == 0 || s->triangle_count > UINT32_MAX / 2) {
        return NULL;
    }
    uint32_t n = (uint32_t)s->triangle_count;
    pk_surface_index *x = calloc(1, sizeof *x);
    entry *scratch = malloc((size_t)n * sizeof *scratch);
    tri_box *tb = malloc((size_t)n * sizeof *tb);
    if (x == NULL || scratch == NULL || tb == NULL) {
        free(x);
        free(scratch);
        free(tb);
        return NULL;
    }
    x->s = *s;
    x->nodes = malloc((size_t)2 * n * sizeof *x->nodes);
    x->order = malloc((size_t)n * sizeof *x->order);
    if (x->nodes == NULL || x->order == NULL) {
        free(scratch);
        free(tb);
        pk_surface_index_free(x);
        return NULL;
    }
    for (uint32_t i = 0; i < n; i++) {
        x->order[i] = i;
        for (int k = 0; k < 3; k++) {
            tb[i].lo[k] = INFINITY;
            tb[i].hi[k] = -INFINITY;
            tb[i].c[k] = 0.0;
        }
        for (int c = 0; c < 3; c++) {
            double p[3];
            corner(s, i, c, p);
            for (int k = 0; k < 3; k++) {
                tb[i].lo[k] = p[k] < tb[i].lo[k] ? p[k] : tb[i].lo[k];
                tb[i].hi[k] = p[k] > tb[i].hi[k] ? p[k] : tb[i].hi[k];
                tb[i].c[k] += p[k]; /* three times the centroid: only its order matters */
            }
        }
    }
    x->node_count = 1;
    build_node(x, tb, scratch, 0, 0, n);
    free(scratch);
    free(tb);
    return x;
}

void pk_surface_index_free(pk_surface_index *x)
{
    if (x != NULL) {
        free(x->nodes);
        free(x->order);
        free(x);
    }
}

static double dot(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void sub(const double a[3], const double b[3], double out[3])
{
    out[0] = a[0] - b[0];
    out[1] = a[1] - b[1];
    out[2] = a[2] - b[2];
}

static double dist_sq(const double a[3], const double b[3])
{
    double d[3];
    sub(a, b, d);
    return dot(d, d);
}

/* The squared distance from p to the segment ab. */
static double segment_sq(const double p[3], const double a[3], const double b[3])
{
    double ab[3], ap[3];
    sub(b, a, ab);
    sub(p, a, ap);
    double len = dot(ab, ab);
    double t = len > 0.0 ? dot(ap, ab) / len : 0.0;
    t = t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
    double q[3] = {a[0] + t * ab[0], a[1] + t * ab[1], a[2] + t * ab[2]};
    return dist_sq(p, q);
}

/* The squared distance from p to triangle abc. Its nearest point is found
 * by the Voronoi regions of the corners, edges and face in turn (as in
 * Ericson, Real-Time Collision Detection, 5.1.5), from six dot products
 * and no square root; a degenerate triangle (a point or a segment, where
 * the face's region is empty) is measured against its three edges. */
static double triangle_sq(const double p[3], const double a[3], const double b[3], const double c[3])
{
    double ab[3], ac[3], ap[3], bp[3], cp[3];
    sub(b, a, ab);
    sub(c, a, ac);
    sub(p, a, ap);
    double d1 = dot(ab, ap), d2 = dot(ac, ap);
    if (d1 <= 0.0 && d2 <= 0.0) {
        return dot(ap, ap); /* corner a */
    }
    sub(p, b, bp);
    double d3 = dot(ab, bp), d4 = dot(ac, bp);
    if (d3 >= 0.0 && d4 <= d3) {
        return dot(bp, bp); /* corner b */
    }
    sub(p, c, cp);
    double d5 = dot(ab, cp), d6 = dot(ac, cp);
    if (d6 >= 0.0 && d5 <= d6) {
        return dot(cp, cp); /* corner c */
    }
    double vc = d1 * d4 - d3 * d2, vb = d5 * d2 - d1 * d6, va = d3 * d6 - d5 * d4;
    double sum = va + vb + vc;
    if (!(sum > 0.0)) {
        double d = segment_sq(p, a, b), e = segment_sq(p, b, c), f = segment_sq(p, c, a);
        d = e < d ? e : d;
        return f < d ? f : d;
    }
    double q[3];
    if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) { /* edge ab */
        double v = d1 / (d1 - d3);
        for (int k = 0; k < 3; k++) {
            q[k] = a[k] + v * ab[k];
        }
    } else if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) { /* edge ac */
        double w = d2 / (d2 - d6);
        for (int k = 0; k < 3; k++) {
            q[k] = a[k] + w * ac[k];
        }
    } else if (va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0) { /* edge bc */
        double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        for (int k = 0; k < 3; k++) {
            q[k] = b[k] + w * (c[k] - b[k]);
        }
    } else { /* the face */
        double v = vb / sum, w = vc / sum;
        for (int k = 0; k < 3; k++) {
            q[k] = a[k] + v * ab[k] + w * ac[k];
        }
    }
    return dist_sq(p, q);
}

static double box_sq(const node *nd, const double p[3])
{
    double d = 0.0;
    for (int k = 0; k < 3; k++) {
        double e = p[k] < nd->lo[k] ? nd->lo[k] - p[k] : (p[k] > nd->hi[k] ? p[k] - nd->hi[k] : 0.0);
        d += e * e;
    }
    return d;
}

/* The squared distance from p to triangle t of s. */
static double triangle_of_sq(const pk_surface *s, uint32_t t, const double p[3])
{
    double a[3], b[3], c[3];
    corner(s, t, 0, a);
    corner(s, t, 1, b);
    corner(s, t, 2, c);
    return triangle_sq(p, a, b, c);
}

/* The squared distance from p to x's surface, or some squared distance no
 * greater than enough once one is found (the caller needs no better); the
 * triangle at that distance into *tri. A triangle already in *tri (not
 * NO_TRI), one that was near a point near p, is tried first: its distance
 * prunes the walk from the start. */
static double nearest_sq(const pk_surface_index *x, const double p[3], double enough, uint32_t *tri)
{
    double best = INFINITY;
    if (*tri != NO_TRI) {
        best = triangle_of_sq(&x->s, *tri, p);
        if (best <= enough) {
            return best;
        }
    }
    uint32_t stack[STACK];
    uint32_t top = 0;
    stack[top++] = 0;
    while (top > 0) {
        const node *nd = &x->nodes[stack[--top]];
        if (box_sq(nd, p) >= best) {
            continue;
        }
        if (nd->count > 0) {
            for (uint32_t i = nd->first; i < nd->first + nd->count; i++) {
                double d = triangle_of_sq(&x->s, x->order[i], p);
                if (d < best) {
                    best = d;
                    *tri = x->order[i];
                }
                if (best <= enough) {
                    return best;
                }
            }
            continue;
        }
        uint32_t l = nd->first, r = nd->first + 1;
        double dl = box_sq(&x->nodes[l], p), dr = box_sq(&x->nodes[r], p);
        uint32_t near = dl <= dr ? l : r, far = dl <= dr ? r : l;
        /* The tree is balanced (median splits): its depth is below 64. */
        stack[top++] = far;
        stack[top++] = near;
    }
    return best;
}

double pk_surface_distance(const pk_surface_index *x, const double p[3])
{
    uint32_t tri = NO_TRI;
    return sqrt(nearest_sq(x, p, 0.0, &tri));
}

/* R2 low-discrepancy sequence (the plastic number's powers): a fixed,
 * evenly spread point of the unit triangle for sample k. */
static void sample_point(const double a[3], const double b[3], const double c[3], uint64_t k, double out[3])
{
    double u = fmod(0.5 + 0.7548776662466927 * (double)k, 1.0);
    double v = fmod(0.5 + 0.5698402909980532 * (double)k, 1.0);
    if (u + v > 1.0) {
        u = 1.0 - u;
        v = 1.0 - v;
    }
    for (int j = 0; j < 3; j++) {
        out[j] = a[j] + u * (b[j] - a[j]) + v * (c[j] - a[j]);
    }
}

static double triangle_area(const double a[3], const double b[3], const double c[3])
{
    double ab[3], ac[3];
    sub(b, a, ab);
    sub(c, a, ac);
    double n[3] = {ab[1] * ac[2] - ab[2] * ac[1], ab[2] * ac[0] - ab[0] * ac[2], ab[0] * ac[1] - ab[1] * ac[0]};
    return 0.5 * sqrt(dot(n, n));
}

/* Triangle t's corners into a, b, c, and its area. */
static double corners_and_area(const pk_surface *s, size_t t, double a[3], double b[3], double c[3])
{
    corner(s, t, 0, a);
    corner(s, t, 1, b);
    corner(s, t, 2, c);
    return triangle_area(a, b, c);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : (x > y);
}

/* A piece of an edge: its ends, an upper bound on the distance from each
 * to `to`, the triangle of `to` each was found nearest (NO_TRI: none),
 * and how many halvings made it. */
typedef struct piece {
    double a[3], b[3];
    double da, db;
    uint32_t ta, tb;
    uint32_t depth;
} piece;

/* The bound over one piece, from the two facts the distance obeys: it is
 * 1-Lipschitz, so no point of the piece lies farther than (da + db +
 * length) / 2; and the distance to one triangle is convex along a line, so
 * none lies farther than the larger of its ends' distances to any one
 * triangle of `to` (that of either end's query). */
static double piece_bound(const pk_surface *to, const piece *pc)
{
    double bound = 0.5 * (pc->da + pc->db + sqrt(dist_sq(pc->a, pc->b)));
    const uint32_t tris[2] = {pc->ta, pc->tb};
    for (int k = 0; k < 2; k++) {
        if (tris[k] != NO_TRI && (k == 0 || tris[1] != tris[0])) {
            double ea = triangle_of_sq(to, tris[k], pc->a), eb = triangle_of_sq(to, tris[k], pc->b);
            double c = sqrt(ea > eb ? ea : eb);
            bound = c < bound ? c : bound;
        }
    }
    return bound;
}

/* The edge pass of pk_surface_deviation: a proven upper bound on the
 * distance from every point of every edge of `from` to `to`, given an
 * upper bound ub[v] at each vertex. Each edge is halved where its bound
 * exceeds the target (the largest sampled distance, *worst_sq, plus
 * EDGE_SLACK of it, or least where that is smaller), each halving
 * querying the midpoint (which may raise *worst_sq), down to
 * EDGE_MAX_DEPTH halvings; the bound is the largest of its pieces'.
 * Returns it (or the first above stop, as soon as one is found), or -1
 * when out of memory. */
#define EDGE_SLACK (1.0 / 32.0)
#define EDGE_MAX_DEPTH 16u
static double edge_bound(const pk_surface *from, const double *ub, const uint32_t *near,
                         const pk_surface_index *to_index, double least, double stop, double *worst_sq)
{
    size_t corners = from->triangle_count * 3, n = 0;
    uint64_t *edges = malloc((corners + 1) * sizeof *edges);
    if (edges == NULL) {
        return -1.0;
    }
    for (size_t t = 0; t < from->triangle_count; t++) {
        for (size_t k = 0; k < 3; k++) {
            uint64_t u = from->indices[t * 3 + k], v = from->indices[t * 3 + (k + 1) % 3];
            if (u != v) {
                edges[n++] = u < v ? u << 32 | v : v << 32 | u;
            }
        }
    }
    qsort(edges, n, sizeof *edges, cmp_u64);
    const pk_surface *to = &to_index->s;
    double result = 0.0;
    piece stack[EDGE_MAX_DEPTH + 2];
    for (size_t e = 0; e < n && result <= stop && *worst_sq <= stop * stop; e++) {
        if (e > 0 && edges[e] == edges[e - 1]) {
            continue;
        }
        uint32_t va = (uint32_t)(edges[e] >> 32), vb = (uint32_t)edges[e];
        const float *fa = from->positions + (size_t)va * from->stride,
                    *fb = from->positions + (size_t)vb * from->stride;
        size_t top = 0;
        stack[top++] = (piece){{fa[0], fa[1], fa[2]}, {fb[0], fb[1], fb[2]}, ub[va], ub[vb], near[va], near[vb], 0};
        while (top > 0) {
            piece pc = stack[--top];
            double target = sqrt(*worst_sq) * (1.0 + EDGE_SLACK);
            target = target > least ? target : least;
            double bound = piece_bound(to, &pc);
            if (bound <= target || pc.depth == EDGE_MAX_DEPTH) {
                result = bound > result ? bound : result;
                if (result > stop) {
                    break;
                }
                continue;
            }
            piece left = pc, right = pc;
            double m[3];
            for (int k = 0; k < 3; k++) {
                m[k] = 0.5 * (pc.a[k] + pc.b[k]);
            }
            uint32_t tm = pc.ta != NO_TRI ? pc.ta : pc.tb;
            double d = nearest_sq(to_index, m, 0.25 * *worst_sq, &tm);
            *worst_sq = d > *worst_sq ? d : *worst_sq;
            memcpy(left.b, m, sizeof m);
            memcpy(right.a, m, sizeof m);
            left.db = right.da = sqrt(d);
            left.tb = right.ta = tm;
            left.depth = right.depth = pc.depth + 1;
            stack[top++] = right;
            stack[top++] = left;
        }
    }
    free(edges);
    return result;
}

/* One side's samples: the vertices of `from` (an upper bound on each
 * vertex's distance into ub, 0 for those on `to`) and the area samples,
 * raising *worst_sq (squared) to the largest distance sampled, stopping
 * once it passes stop_sq; the least bound the edge pass aims at (2^-20 of from's
 * extent: float positions are exact to about 2^-24 of it, so a bound
 * below that is noise, not worth halving an edge for) into *least.
 * Returns 0, or -1 when out of memory. */
static int sample_side(const pk_surface *from, size_t vertex_count, const pk_surface_index *to_index, double stop_sq,
                       double *ub, uint32_t *near, double *worst_sq, double *least)
{
    /* A vertex of `to` lies on it: seen starts with them marked, so only
     * the other vertices of `from` are measured, each once. */
    unsigned char *seen = calloc(vertex_count / 8 + 1, 1);
    if (seen == NULL) {
        return -1;
    }
    const pk_surface *to = &to_index->s;
    int same = to->positions == from->positions && to->stride == from->stride;
    for (size_t i = 0; same && i < to->triangle_count * 3; i++) {
        unsigned int v = to->indices[i];
        seen[v / 8] |= (unsigned char)(1u << (v % 8));
    }
    size_t corners = from->triangle_count * 3;
    double worst = *worst_sq;
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    /* A vertex no farther from `to` than the largest distance yet cannot
     * raise it, and distance is 1-Lipschitz: a vertex within r of the
     * last one reached is within r + (that one's bound) of `to`. So a
     * vertex whose bound that way is within the largest distance is
     * passed over (it becomes the anchor, with its bound), and only the
     * others are queried. The result is the one every vertex would give. */
    double anchor[3] = {0.0, 0.0, 0.0}, anchor_bound = INFINITY;
    uint32_t anchor_tri = NO_TRI;
    for (size_t i = 0; i < corners && worst <= stop_sq; i++) {
        unsigned int v = from->indices[i];
        const float *f = from->positions + (size_t)v * from->stride;
        for (int k = 0; k < 3; k++) {
            lo[k] = f[k] < lo[k] ? f[k] : lo[k];
            hi[k] = f[k] > hi[k] ? f[k] : hi[k];
        }
        if (seen[v / 8] & (1u << (v % 8))) {
            continue;
        }
        seen[v / 8] |= (unsigned char)(1u << (v % 8));
        double p[3] = {f[0], f[1], f[2]};
        const double bound = anchor_bound + sqrt(dist_sq(p, anchor));
        memcpy(anchor, p, sizeof anchor);
        if (bound * bound <= worst) {
            anchor_bound = ub[v] = bound;
            near[v] = anchor_tri;
            continue;
        }
        double d = nearest_sq(to_index, p, worst, &anchor_tri); /* exact, or a distance to a triangle within worst */
        near[v] = anchor_tri;
        anchor_bound = ub[v] = sqrt(d);
        worst = d > worst ? d : worst;
    }
    free(seen);
    double extent = 0.0;
    for (int k = 0; k < 3; k++) {
        extent = hi[k] - lo[k] > extent ? hi[k] - lo[k] : extent;
    }
    *least = ldexp(extent, -20);

    double total = 0.0;
    for (size_t t = 0; t < from->triangle_count; t++) {
        double a[3], b[3], c[3];
        total += corners_and_area(from, t, a, b, c);
    }
    if (total > 0.0 && worst <= stop_sq) {
        double per = (double)PK_LOD_AREA_SAMPLES / total, owed = 0.0;
        uint64_t k = 0;
        uint32_t tri = NO_TRI; /* the last sample's: the next lies near it */
        for (size_t t = 0; t < from->triangle_count; t++) {
            double a[3], b[3], c[3];
            owed += corners_and_area(from, t, a, b, c) * per;
            while (owed >= 1.0 && worst <= stop_sq) {
                double p[3];
                sample_point(a, b, c, k++, p);
                double d = nearest_sq(to_index, p, worst, &tri);
                worst = d > worst ? d : worst;
                owed -= 1.0;
            }
        }
    }
    *worst_sq = worst;
    return 0;
}

double pk_surface_deviation(const pk_surface *from, size_t vertex_count, const pk_surface_index *to_index,
                            double stop_above)
{
    return pk_hausdorff(from, NULL, NULL, to_index, vertex_count, stop_above);
}

double pk_hausdorff(const pk_surface *a, const pk_surface_index *a_index, const pk_surface *b,
                    const pk_surface_index *b_index, size_t vertex_count, double stop_above)
{
    /* Both sides' samples first, then both sides' edges: the result is the
     * larger side's, so neither side's edges need halving below the
     * largest distance either side sampled. */
    const pk_surface *from[2] = {a, b};
    const pk_surface_index *to[2] = {b_index, a_index};
    int sides = b != NULL ? 2 : 1;
    double stop_sq = stop_above * stop_above, worst = 0.0, least[2] = {0.0, 0.0};
    double *ub[2] = {NULL, NULL};
    uint32_t *near[2] = {NULL, NULL};
    double result = -1.0;
    for (int i = 0; i < sides; i++) {
        ub[i] = calloc(vertex_count + 1, sizeof *ub[i]);
        near[i] = malloc((vertex_count + 1) * sizeof *near[i]);
        if (ub[i] == NULL || near[i] == NULL) {
            goto done;
        }
        memset(near[i], 0xff, (vertex_count + 1) * sizeof *near[i]); /* NO_TRI */
    }
    for (int i = 0; i < sides && worst <= stop_sq; i++) {
        if (sample_side(from[i], vertex_count, to[i], stop_sq, ub[i], near[i], &worst, &least[i]) != 0) {
            goto done;
        }
    }
    double edges = 0.0;
    for (int i = 0; i < sides && worst <= stop_sq && edges <= stop_above; i++) {
        double e = edge_bound(from[i], ub[i], near[i], to[i], least[i], stop_above, &worst);
        if (e < 0.0) {
            goto done;
        }
        edges = e > edges ? e : edges;
    }
    result = sqrt(worst);
    result = edges > result ? edges : result;
done:
    for (int i = 0; i < 2; i++) {
        free(ub[i]);
        free(near[i]);
    }
    return result;
}

const char *pk_lod_method_name(unsigned version_minor, uint32_t method)
{
    static const char *const names[SLC_PACK_LOD_METHOD_COUNT] = {"none", "simplify", "welded", "sloppy"};
    return version_minor >= 2 && method < SLC_PACK_LOD_METHOD_COUNT ? names[method] : "unknown";
}

const char *pk_lod_end_name(unsigned version_minor, uint32_t chain_end)
{
    static const char *const names[SLC_PACK_LOD_END_COUNT] = {"", "max-lods", "too-small", "error-cap"};
    return version_minor >= 2 && chain_end < SLC_PACK_LOD_END_COUNT ? names[chain_end] : "unknown";
}
