/* SPDX-License-Identifier: MIT */
/* sluice pack: USD composition and traversal (usd_stage.h).
 *
 * A composed prim is its list of sites: (prim spec, layer, layer stack)
 * in strength order, built on the fly while walking. A root prim's sites
 * start with its specs in the root layer stack; a child's start with the
 * children of that name of its parent's sites (namespace mapping: what a
 * referenced prim holds comes along with it); then every arc of those
 * sites is followed, depth first, in LIVRPS order (compose_arcs). Only the
 * site lists of the prims on the current path are alive, so composition
 * costs memory in proportion to depth times arcs, never to the scene. */
#define _GNU_SOURCE /* realpath */

#include "usd_stage.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#define XXH_STATIC_LINKING_ONLY /* XXH3_state_t by value */
#include <xxhash.h>

#include "asset.h"
#include "pack_writer.h"
#include "usd_geom.h"
#include "usd_layer.h"
#include "usd_shade.h"
#include "usd_shape.h"

typedef struct stage_layer {
    usd_layer *layer;
    char *key;       /* realpath, or realpath(package) + "[entry]" */
    char *file;      /* the file on disk: the package for an entry */
    uint32_t *stack; /* this layer then its sublayers', strongest first */
    uint32_t stack_count;
    int stack_state; /* 0: not built, 1: being built, 2: built */
} stage_layer;

typedef struct site {
    const usd_prim *spec;
    uint32_t layer; /* index in usd_stage.layers */
    uint32_t stack; /* the layer whose stack arc paths resolve in */
    uint8_t local;  /* namespace-mapped from the root layer stack */
    /* Strength among the prim's sites (child_sites orders by it): the type
     * of the arc of the root layer stack this site comes through (ARC_*;
     * ARC_LOCAL for a local site), and the namespace depth of the prim that
     * arc was authored on. */
    uint8_t arc;
    uint16_t ns_depth;
} site;

/* The arc types in strength order (LIVRPS). */
enum { ARC_LOCAL, ARC_INHERIT, ARC_VARIANT, ARC_REFERENCE, ARC_PAYLOAD, ARC_SPECIALIZE };

typedef struct site_list {
    site *v;
    uint32_t n, cap;
    uint32_t mapped; /* the first sites, mapped from the parent's; the rest its own arcs brought */
} site_list;

/* One placement a prototype makes: of an object, or of another prototype
 * (recorded once, so a stage that repeats a subtree within a subtree costs
 * the sum of its distinct subtrees, not their product). */
typedef struct proto_place {
    uint32_t object; /* the sink's object (proto UINT32_MAX) */
    uint32_t proto;  /* or a prototype's index in usd_stage.protos */
    double m[16];    /* relative to the prototype's frame */
    char name[64];
} proto_place;

typedef struct recorder {
    proto_place *v;
    uint32_t n, cap;
} recorder;

typedef struct proto_entry {
    XXH128_hash_t key;
    recorder places;
    uint64_t placements; /* flattened: its objects, and each nested prototype's (saturating) */
} proto_entry;

struct usd_stage {
    usd_stage_options opt;
    pk_asset_root root; /* what the layers may name (tools/pack/asset.h) */
    stage_layer *layers;
    uint32_t layer_count, layer_cap;
    double stage_matrix[16];
    proto_entry *protos;
    uint32_t proto_count, proto_cap;
    uint32_t *proto_slots;  /* open addressing over protos by key: index + 1, 0 empty */
    uint32_t slot_count;    /* a power of two, at least twice proto_count; 0 before the first */
    uint64_t placed;        /* placements of the pass so far (saturating) */
    usd_shade_table *shade; /* the materials bound so far, each read once (usd_shade.h) */
    uint32_t mesh_count;
    int imported;
    usd_stage_stats stats;
};

/* One walk over the stage: the compose pass (importing 0) or the import. */
typedef struct walk {
    usd_stage *s;
    int importing;
    const usd_stage_sink *sink;
    pk_diag *d;
    recorder *rec;               /* the innermost prototype being recorded, or NULL */
    const site_list *proto_root; /* the prim a PROTO_PRIM prototype is about to walk */
    uint32_t ns_depth;           /* the namespace depth of the prim child_sites composes */
    int32_t material;            /* the bound material the prim inherits (usd_shade_table entry), -1 none */
    /* The arcs being followed (cycle detection): stack layer and path. */
    uint32_t chain_stack[USD_STAGE_MAX_ARC_DEPTH];
    const char *chain_path[USD_STAGE_MAX_ARC_DEPTH];
    uint32_t chain_n;
    const struct open_instancer *instancers; /* the PointInstancers whose prototypes are being walked */
    char path[USD_MAX_PATH];                 /* the composed prim's path */
} walk;

/* A PointInstancer whose prototypes are being walked, innermost first. */
typedef struct open_instancer {
    const char *path;
    const struct open_instancer *up;
} open_instancer;

/* 1 when the prim at path a is the prim at b or one of its ancestors. */
static int path_holds(const char *a, const char *b)
{
    size_t n = strlen(a);
    if (n == 1 && a[0] == '/') {
        return 1;
    }
    return strncmp(a, b, n) == 0 && (b[n] == '\0' || b[n] == '/');
}

static int fail(pk_diag *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->message, sizeof d->message, fmt, ap);
    va_end(ap);
    return -1;
}

/* The walk recurses once per prim level (walk_prim, walk_children,
 * child_sites, compose_arcs) and once per arc (follow_arc); the functions
 * that hold path-sized buffers but do not recurse are kept out of those
 * frames, whatever the optimiser would inline, so that the deepest stage
 * the limits allow (USD_STAGE_MAX_DEPTH prims, USD_STAGE_MAX_ARC_DEPTH
 * arcs) needs a small, bounded stack. */
#define USD_OUT_OF_LINE __attribute__((noinline))

USD_OUT_OF_LINE __attribute__((format(printf, 2, 3))) static void stage_warn(usd_stage *s, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    s->stats.warnings++;
    if (s->opt.warn != NULL) {
        s->opt.warn(s->opt.user, msg);
    }
}

static uint64_t peak_rss(void)
{
    struct rusage u;
    if (getrusage(RUSAGE_SELF, &u) != 0) {
        return 0;
    }
    return (uint64_t)u.ru_maxrss * 1024u; /* KiB on Linux */
}

static const char *layer_name(const usd_stage *s, uint32_t li)
{
    return usd_layer_get_info(s->layers[li].layer)->name;
}

static int grow(void **v, uint32_t *cap, uint32_t need, size_t elem)
{
    if (need <= *cap) {
        return 0;
    }
    uint32_t c = *cap < 8u ? 8u : *cap;
    while (c < need) {
        if (c > UINT32_MAX / 2u) {
            return -1;
        }
        c *= 2u;
    }
    void *p = realloc(*v, (size_t)c * elem);
    if (p == NULL) {
        return -1;
    }
    *v = p;
    *cap = c;
    return 0;
}

static char *dup_str(const char *a)
{
    size_t n = strlen(a);
    char *p = malloc(n + 1);
    if (p != NULL) {
        memcpy(p, a, n + 1);
    }
    return p;
}

/* ---- layers -------------------------------------------------------------- */

/* resolved: a file path or "pkg.usdz[entry]". Splits off the package. */
static size_t package_part(const char *resolved)
{
    size_t n = strlen(resolved);
    if (n > 0 && resolved[n - 1] == ']') {
        const char *b = strchr(resolved, '[');
        if (b != NULL) {
            return (size_t)(b - resolved);
        }
    }
    return n;
}

/* Finds or opens the layer at resolved (usd_layer_resolve's form) that a
 * layer names as written (NULL for the root layer): a file outside the
 * asset root, or written as an absolute path, is refused unless
 * allow_outside_paths (pk_asset_check). Fails with d->message saying why
 * (no prefix). */
USD_OUT_OF_LINE static int layer_get(usd_stage *s, const char *resolved, const char *written, uint32_t *out, pk_diag *d)
{
    size_t pn = package_part(resolved);
    char file[PATH_MAX];
    if (pn >= sizeof file) {
        return fail(d, "layer path '%s' is too long", resolved);
    }
    memcpy(file, resolved, pn);
    file[pn] = '\0';
    char why[PATH_MAX + 256];
    if (written != NULL && pk_asset_check(&s->root, written, file, why, sizeof why) != 0) {
        return fail(d, "layer %s", why);
    }
    char real[PATH_MAX];
    if (realpath(file, real) == NULL) {
        return fail(d, "cannot open layer '%s': %s", file, strerror(errno));
    }
    char key[PATH_MAX + USD_MAX_PATH];
    snprintf(key, sizeof key, "%s%s", real, resolved + pn);
    for (uint32_t i = 0; i < s->layer_count; i++) {
        if (strcmp(s->layers[i].key, key) == 0) {
            *out = i;
            return 0;
        }
    }
    if (grow((void **)&s->layers, &s->layer_cap, s->layer_count + 1u, sizeof *s->layers) != 0) {
        return fail(d, "out of memory");
    }
    stage_layer *l = &s->layers[s->layer_count];
    memset(l, 0, sizeof *l);
    usd_layer_options lo = {s->opt.warn, s->opt.user};
    if (usd_layer_open(resolved, &lo, &l->layer, d) != 0) {
        return -1;
    }
    /* Relocates move prims in namespace (and so under other transforms):
     * composed without them, the geometry would be wrong. */
    const usd_layer_info *info = usd_layer_get_info(l->layer);
    if (info->relocate_count > 0) {
        if (!s->opt.skip_unsupported) {
            fail(d,
                 "%s: layer relocates are not supported (%u, the first <%s> to <%s>; --skip-unsupported packs the "
                 "prims where they are authored)",
                 resolved, info->relocate_count, info->relocate_source, info->relocate_target);
            usd_layer_close(l->layer); /* after the message: info is the layer's */
            return -1;
        }
        stage_warn(
            s, "%s: %u layer relocates ignored (the first <%s> to <%s>): the prims are packed where they are authored",
            resolved, info->relocate_count, info->relocate_source, info->relocate_target);
    }
    l->key = dup_str(key);
    l->file = dup_str(file);
    if (l->key == NULL || l->file == NULL) {
        usd_layer_close(l->layer);
        free(l->key);
        free(l->file);
        return fail(d, "out of memory");
    }
    struct stat st;
    s->stats.layer_bytes += stat(file, &st) == 0 ? (uint64_t)st.st_size : 0u;
    *out = s->layer_count++;
    s->stats.layers = s->layer_count;
    return 0;
}

/* Builds layer li's stack: itself, then each subLayer's stack in order.
 * A subLayer cycle or a subLayer that does not open fails, naming li. */
USD_OUT_OF_LINE static int layer_stack(usd_stage *s, uint32_t li, pk_diag *d)
{
    if (s->layers == NULL || li >= s->layer_count) {
        return fail(d, "layer %u is not open", li);
    }
    if (s->layers[li].stack_state == 2) {
        return 0;
    }
    if (s->layers[li].stack_state == 1) {
        return fail(d, "%s: subLayers form a cycle", layer_name(s, li));
    }
    s->layers[li].stack_state = 1;
    uint32_t *stack = NULL, n = 0, cap = 0;
    if (grow((void **)&stack, &cap, 1, sizeof *stack) != 0) {
        return fail(d, "out of memory");
    }
    stack[n++] = li;
    const usd_layer_info *info = usd_layer_get_info(s->layers[li].layer);
    for (uint32_t k = 0; k < info->sublayer_count; k++) {
        char resolved[USD_MAX_PATH + PATH_MAX];
        size_t rn = usd_layer_resolve(s->layers[li].layer, info->sublayers[k], resolved, sizeof resolved);
        uint32_t sub = 0;
        pk_diag sd = {{0}};
        int rc = rn == 0 || rn >= sizeof resolved ? fail(&sd, "subLayer '%s' cannot be resolved", info->sublayers[k])
                                                  : layer_get(s, resolved, info->sublayers[k], &sub, &sd);
        if (rc == 0) {
            rc = layer_stack(s, sub, &sd);
        }
        if (rc != 0) {
            if (!s->opt.skip_unsupported) {
                free(stack);
                s->layers[li].stack_state = 0;
                return fail(d, "%s: subLayers[%u] '%s': %s", layer_name(s, li), k, info->sublayers[k], sd.message);
            }
            stage_warn(s, "%s: subLayers[%u] '%s': %s; skipped", layer_name(s, li), k, info->sublayers[k], sd.message);
            continue;
        }
        for (uint32_t j = 0; j < s->layers[sub].stack_count; j++) {
            uint32_t x = s->layers[sub].stack[j], seen = 0;
            for (uint32_t q = 0; q < n && !seen; q++) {
                seen = stack[q] == x;
            }
            if (!seen) {
                if (grow((void **)&stack, &cap, n + 1u, sizeof *stack) != 0) {
                    free(stack);
                    return fail(d, "out of memory");
                }
                stack[n++] = x;
            }
        }
    }
    s->layers[li].stack = stack;
    s->layers[li].stack_count = n;
    s->layers[li].stack_state = 2;
    return 0;
}

/* ---- sites ---------------------------------------------------------------- */

static uint32_t layer_index(const usd_stage *s, const usd_layer *l)
{
    for (uint32_t i = 0; i < s->layer_count; i++) {
        if (s->layers[i].layer == l) {
            return i;
        }
    }
    return 0; /* every spec comes from a stage layer */
}

/* Appends a site unless its spec is already there. */
static int sites_add(site_list *l, const usd_prim *spec, uint32_t layer, uint32_t stack, int local)
{
    for (uint32_t i = 0; i < l->n; i++) {
        if (l->v[i].spec == spec) {
            return 0;
        }
    }
    if (grow((void **)&l->v, &l->cap, l->n + 1u, sizeof *l->v) != 0) {
        return -1;
    }
    site x = {spec, layer, stack, (uint8_t)local, ARC_LOCAL, 0};
    l->v[l->n++] = x;
    return 0;
}

/* Tags the sites l->v[from ..] that an arc of type `type` of site x brought:
 * an arc authored in the root layer stack (x local) is of that type, at
 * the namespace depth of the prim being composed; one authored in an arc's
 * site belongs to that arc. */
static void sites_tag(walk *w, site_list *l, uint32_t from, const site *x, uint8_t type)
{
    for (uint32_t i = from; i < l->n; i++) {
        l->v[i].arc = x->local ? type : x->arc;
        l->v[i].ns_depth = x->local ? (uint16_t)w->ns_depth : x->ns_depth;
    }
}

/* The specs at path in every layer of stack's layer stack. Returns how many
 * were added, or -1 when out of memory. */
static int sites_at_path(usd_stage *s, site_list *l, uint32_t stack, const char *path)
{
    int added = 0;
    for (uint32_t k = 0; k < s->layers[stack].stack_count; k++) {
        uint32_t li = s->layers[stack].stack[k];
        const usd_prim *p = usd_layer_find_prim(s->layers[li].layer, path);
        if (p != NULL) {
            if (sites_add(l, p, li, stack, 0) != 0) {
                return -1;
            }
            added++; /* found, whether new or already there */
        }
    }
    return added;
}

/* The strongest selection for set among the sites so far. */
static const char *selection_of(const site_list *l, const char *set)
{
    for (uint32_t i = 0; i < l->n; i++) {
        const char *v = usd_prim_get_selection(l->v[i].spec, set);
        if (v != NULL && v[0] != '\0') {
            return v;
        }
    }
    return NULL;
}

/* An arc that cannot be followed: an error, or a warning under
 * skip_unsupported (returns 0: the arc is skipped). */
static int arc_refuse(walk *w, uint32_t li, const char *what)
{
    if (!w->s->opt.skip_unsupported) {
        return fail(w->d, "%s: <%s>: %s", layer_name(w->s, li), w->path, what);
    }
    if (!w->importing) {
        stage_warn(w->s, "%s: <%s>: %s; arc skipped", layer_name(w->s, li), w->path, what);
    }
    return 0;
}

/* arc_refuse with the refusal formatted here, out of follow_arc's frame. */
USD_OUT_OF_LINE __attribute__((format(printf, 3, 4))) static int arc_refusef(walk *w, uint32_t li, const char *fmt, ...)
{
    char what[USD_MAX_PATH * 2 + 600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return arc_refuse(w, li, what);
}

/* Opens the layer (and its layer stack) that ASSET, written in site x's
 * layer, names, into *stack. 1 when it opened; otherwise what arc_refuse
 * says (0: skipped, -1: refused). */
USD_OUT_OF_LINE static int arc_layer(walk *w, const site *x, const char *asset, const char *arc, uint32_t *stack)
{
    usd_stage *s = w->s;
    char resolved[USD_MAX_PATH + PATH_MAX];
    size_t rn = usd_layer_resolve(s->layers[x->layer].layer, asset, resolved, sizeof resolved);
    pk_diag ld = {{0}};
    int rc = rn == 0 || rn >= sizeof resolved ? fail(&ld, "cannot be resolved")
                                              : layer_get(s, resolved, asset, stack, &ld);
    if (rc == 0) {
        rc = layer_stack(s, *stack, &ld);
    }
    if (rc != 0) {
        return arc_refusef(w, x->layer, "%s @%s@: %s", arc, asset, ld.message);
    }
    return 1;
}

static int compose_arcs(walk *w, site_list *l, uint32_t first, uint32_t depth);
static int variant_arcs(walk *w, site_list *l, const site *xp, uint32_t depth);
static int group_arcs(walk *w, site_list *l, uint32_t i, uint32_t j, usd_field f, const char *arc, uint8_t type,
                      uint32_t depth);

/* Follows one reference or payload item of site x (or an inherit or
 * specialize path: asset ""). optional: a path no layer holds adds nothing
 * and is no error (the implied class arcs of the root layer stack). */
static int follow_arc(walk *w, site_list *l, const site *x, const char *asset, const char *path, const char *arc,
                      uint8_t type, int optional, uint32_t depth)
{
    usd_stage *s = w->s;
    uint32_t stack = x->stack;
    if (asset[0] != '\0' && !usd_is_layer_asset(asset)) {
        /* A MaterialX document, an image: not a layer, nothing to compose
         * here (the rest of the prim composes and packs). */
        if (!w->importing) {
            stage_warn(s, "%s: <%s>: %s @%s@: not a USD layer (not .usd, .usda, .usdc or .usdz); arc skipped",
                       layer_name(s, x->layer), w->path, arc, asset);
        }
        return 0;
    }
    if (asset[0] != '\0') {
        int rc = arc_layer(w, x, asset, arc, &stack);
        if (rc != 1) {
            return rc; /* refused (-1), or skipped (0) */
        }
    }
    char target[USD_MAX_PATH + 2];
    if (path[0] == '\0') {
        const char *dp = usd_layer_get_info(s->layers[stack].layer)->default_prim;
        if (dp == NULL || dp[0] == '\0') {
            return arc_refusef(w, x->layer, "%s @%s@ names no prim and %s has no defaultPrim", arc, asset,
                               layer_name(s, stack));
        }
        snprintf(target, sizeof target, "%s%s", dp[0] == '/' ? "" : "/", dp);
    } else {
        snprintf(target, sizeof target, "%s", path);
    }
    const char *at = asset[0] != '\0' ? "@" : "";
    for (uint32_t i = 0; i < w->chain_n; i++) {
        if (w->chain_stack[i] == stack && strcmp(w->chain_path[i], target) == 0) {
            return arc_refusef(w, x->layer, "%s %s%s%s<%s> forms a cycle", arc, at, asset, at, target);
        }
    }
    if (w->chain_n >= USD_STAGE_MAX_ARC_DEPTH || depth >= USD_STAGE_MAX_ARC_DEPTH) {
        return fail(w->d, "%s: <%s>: arcs nested deeper than %u", layer_name(s, x->layer), w->path,
                    USD_STAGE_MAX_ARC_DEPTH);
    }
    uint32_t first = l->n;
    int found = sites_at_path(s, l, stack, target);
    if (found < 0) {
        return fail(w->d, "out of memory");
    }
    if (found == 0) {
        if (optional) {
            return 0;
        }
        if (asset[0] == '\0' && (strcmp(arc, "inherits") == 0 || strcmp(arc, "specializes") == 0)) {
            /* A class that is not there contributes nothing: USD composes
             * the prim without it (and reports only unresolved references
             * and payloads). */
            if (!w->importing) {
                stage_warn(s, "%s: <%s>: %s <%s>: no such prim in %s; ignored", layer_name(s, x->layer), w->path, arc,
                           target, layer_name(s, stack));
            }
            return 0;
        }
        return arc_refusef(w, x->layer, "%s %s%s%s<%s>: no such prim in %s", arc, at, asset, at, target,
                           layer_name(s, stack));
    }
    sites_tag(w, l, first, x, type);
    w->chain_stack[w->chain_n] = stack;
    w->chain_path[w->chain_n] = target;
    w->chain_n++;
    int rc = l->n > first ? compose_arcs(w, l, first, depth + 1u) : 0;
    w->chain_n--;
    return rc;
}

/* Whether a and b are specs at the same path (in different layers). */
static int same_path(const usd_prim *a, const usd_prim *b)
{
    while (a != NULL && b != NULL) {
        if (a->is_variant != b->is_variant || strcmp(a->name, b->name) != 0) {
            return 0;
        }
        a = a->parent;
        b = b->parent;
    }
    return a == NULL && b == NULL;
}

/* Follows the arcs of the sites l->v[first .. n at entry), in LIVRPS order,
 * appending what they bring (each target with its own arcs, depth first).
 * The specs of one layer stack at one path (consecutive sites) compose
 * their list ops together, weakest first, as USD composes a field across a
 * layer stack. */
static int compose_arcs(walk *w, site_list *l, uint32_t first, uint32_t depth)
{
    static const usd_field order[] = {USD_FIELD_INHERITS, USD_FIELD_VARIANT_SET_NAMES, USD_FIELD_REFERENCES,
                                      USD_FIELD_PAYLOAD, USD_FIELD_SPECIALIZES};
    static const char *const arc_name[] = {"inherits", "variant", "reference", "payload", "specializes"};
    static const uint8_t arc_type[] = {ARC_INHERIT, ARC_VARIANT, ARC_REFERENCE, ARC_PAYLOAD, ARC_SPECIALIZE};
    uint32_t end = l->n;
    /* At the prim itself, each initial site is on the chain while its arcs
     * are followed, so an arc back to it is found as a cycle. */
    char *self = NULL;
    if (depth == 0 && w->chain_n < USD_STAGE_MAX_ARC_DEPTH) {
        self = malloc(USD_MAX_PATH);
        if (self == NULL) {
            return fail(w->d, "out of memory");
        }
    }
    int rc = 0;
    for (size_t t = 0; t < sizeof order / sizeof order[0] && rc == 0; t++) {
        for (uint32_t i = first, j; i < end && rc == 0; i = j) {
            site x = l->v[i];
            j = i + 1u;
            while (order[t] != USD_FIELD_VARIANT_SET_NAMES && j < end && l->v[j].stack == x.stack &&
                   l->v[j].local == x.local && same_path(l->v[j].spec, x.spec)) {
                j++;
            }
            if (self != NULL) {
                (void)usd_prim_path(x.spec, self, USD_MAX_PATH);
                w->chain_stack[w->chain_n] = x.stack;
                w->chain_path[w->chain_n] = self;
                w->chain_n++;
            }
            rc = order[t] == USD_FIELD_VARIANT_SET_NAMES
                     ? variant_arcs(w, l, &x, depth)
                     : group_arcs(w, l, i, j, order[t], arc_name[t], arc_type[t], depth);
            if (self != NULL) {
                w->chain_n--;
            }
        }
    }
    free(self);
    return rc;
}

/* The variant arcs of one site: the selected variant of each of its sets. */
static int variant_arcs(walk *w, site_list *l, const site *xp, uint32_t depth)
{
    site x = *xp;
    for (uint32_t k = 0; k < x.spec->variant_set_count; k++) {
        const usd_variant_set *vs = &x.spec->variant_sets[k];
        const char *sel = selection_of(l, vs->name);
        const usd_prim *v = sel != NULL             ? usd_variant_set_find(vs, sel)
                            : vs->variant_count > 0 ? vs->variants[0]
                                                    : NULL;
        if (v == NULL) {
            continue; /* selecting a variant no layer defines selects nothing */
        }
        uint32_t at = l->n;
        if (sites_add(l, v, x.layer, x.stack, 0) != 0) {
            return fail(w->d, "out of memory");
        }
        sites_tag(w, l, at, &x, ARC_VARIANT);
        if (l->n > at && compose_arcs(w, l, at, depth + 1u) != 0) {
            return -1;
        }
    }
    return 0;
}

/* The arcs of one type of the sites l->v[i .. j) (one layer stack's specs
 * at one path, strongest first): their list ops applied weakest first, each
 * item followed from the strongest spec that authors it (its layer anchors
 * the asset path). */
static int group_arcs(walk *w, site_list *l, uint32_t i, uint32_t j, usd_field f, const char *arc, uint8_t type,
                      uint32_t depth)
{
    usd_listop_item *items = NULL;
    uint32_t n = 0;
    for (uint32_t k = j; k-- > i;) {
        const usd_listop *op = &l->v[k].spec->listops[f];
        uint32_t m = usd_listop_apply(op, items, n, NULL, 0);
        usd_listop_item *next = m > 0 ? malloc((size_t)m * sizeof *next) : NULL;
        if (m > 0 && next == NULL) {
            free(items);
            return fail(w->d, "out of memory");
        }
        (void)usd_listop_apply(op, items, n, next, m);
        free(items);
        items = next;
        n = m;
    }
    int rc = 0;
    const int class_arc = f == USD_FIELD_INHERITS || f == USD_FIELD_SPECIALIZES;
    for (uint32_t k = 0; k < n && rc == 0; k++) {
        uint32_t by = i;
        while (by + 1u < j && !usd_listop_authors(&l->v[by].spec->listops[f], &items[k])) {
            by++;
        }
        site x = l->v[by];
        if (class_arc && x.stack != 0) {
            /* Implied: the root layer stack may hold opinions on
             * the class too, stronger than the asset's own. */
            site y = x;
            y.stack = 0;
            rc = follow_arc(w, l, &y, "", items[k].path, arc, type, 1, depth);
            if (rc != 0) {
                break;
            }
        }
        rc = follow_arc(w, l, &x, class_arc ? "" : items[k].asset, items[k].path, arc, type, 0, depth);
    }
    free(items);
    return rc;
}

/* ---- composed values ------------------------------------------------------ */

/* The strongest property named name: the first site whose spec has it with
 * a value (or as a relationship), else the first that has it at all. */
static const usd_prop *find_prop(const site_list *l, const char *name)
{
    const usd_prop *any = NULL;
    for (uint32_t i = 0; i < l->n; i++) {
        const usd_prop *p = usd_prim_find_prop(l->v[i].spec, name);
        if (p == NULL) {
            continue;
        }
        if (p->kind == USD_PROP_RELATIONSHIP || usd_prop_has_value(p, USD_WHICH_AUTO)) {
            return p;
        }
        if (any == NULL) {
            any = p;
        }
    }
    return any;
}

/* The strongest interpolation metadata of name, or "". */
static const char *find_interp(const site_list *l, const char *name)
{
    for (uint32_t i = 0; i < l->n; i++) {
        const usd_prop *p = usd_prim_find_prop(l->v[i].spec, name);
        if (p != NULL && p->interpolation != NULL && p->interpolation[0] != '\0') {
            return p->interpolation;
        }
    }
    return "";
}

/* A token attribute: 1 and buf filled, 0 when no site has a value, -1 on a
 * read error. */
static int read_token(const site_list *l, const char *name, char *buf, size_t cap, pk_diag *d)
{
    const usd_prop *p = find_prop(l, name);
    if (p == NULL || p->kind != USD_PROP_ATTRIBUTE || !usd_prop_has_value(p, USD_WHICH_AUTO)) {
        return 0;
    }
    return usd_prop_read_token(p, USD_WHICH_AUTO, 0, buf, cap, d) == 0 ? 1 : -1;
}

static const char *composed_type(const site_list *l)
{
    for (uint32_t i = 0; i < l->n; i++) {
        if (l->v[i].spec->type_name != NULL && l->v[i].spec->type_name[0] != '\0') {
            return l->v[i].spec->type_name;
        }
    }
    return "";
}

/* Tri-state metadata: the strongest authored value, else dflt. */
#define COMPOSED_FLAG(l, field, dflt) composed_flag_((l), offsetof(usd_prim, field), (dflt))

static int composed_flag_(const site_list *l, size_t offset, int dflt)
{
    for (uint32_t i = 0; i < l->n; i++) {
        int8_t v;
        memcpy(&v, (const char *)l->v[i].spec + offset, 1);
        if (v >= 0) {
            return v;
        }
    }
    return dflt;
}

/* Reads a numeric array property of `components` per element into a new
 * buffer (floats, or int32 when ints), checking its element size. */
static int read_array(walk *w, const usd_prop *p, uint32_t want_components, int ints, void **out, uint32_t *count)
{
    uint64_t n = 0;
    uint32_t c = 0;
    *out = NULL;
    *count = 0;
    if (usd_prop_value_count(p, USD_WHICH_AUTO, &n, &c, w->d) != 0) {
        return -1;
    }
    if (n == 0) {
        return 0;
    }
    if (c != want_components) {
        return fail(w->d, "%s: <%s>: %s: %u components per element, expected %u",
                    layer_name(w->s, layer_index(w->s, p->owner->layer)), w->path, p->name, c, want_components);
    }
    if (n > UINT32_MAX / want_components || n * want_components > SIZE_MAX / 8u) {
        return fail(w->d, "%s: <%s>: %s: %llu elements is too many",
                    layer_name(w->s, layer_index(w->s, p->owner->layer)), w->path, p->name, (unsigned long long)n);
    }
    size_t total = (size_t)n * want_components;
    void *buf = malloc(total * (ints ? sizeof(int32_t) : sizeof(float)));
    if (buf == NULL) {
        return fail(w->d, "%s: <%s>: %s: out of memory", layer_name(w->s, layer_index(w->s, p->owner->layer)), w->path,
                    p->name);
    }
    size_t got = 0;
    int rc = ints ? usd_prop_read_i32(p, USD_WHICH_AUTO, buf, total, &got, w->d)
                  : usd_prop_read_f32(p, USD_WHICH_AUTO, buf, total, &got, w->d);
    if (rc != 0) {
        free(buf);
        return -1;
    }
    *out = buf;
    *count = (uint32_t)(got / want_components);
    return 0;
}

/* The prim's local matrix from xformOpOrder and its ops. */
USD_OUT_OF_LINE static int prim_xform(walk *w, const site_list *l, double out[16], int *resets)
{
    usd_geom_matrix_identity(out);
    *resets = 0;
    const usd_prop *order = find_prop(l, "xformOpOrder");
    if (order == NULL || order->kind != USD_PROP_ATTRIBUTE || !usd_prop_has_value(order, USD_WHICH_AUTO)) {
        return 0;
    }
    uint64_t n = 0;
    uint32_t c = 0;
    if (usd_prop_value_count(order, USD_WHICH_AUTO, &n, &c, w->d) != 0) {
        return -1;
    }
    if (n == 0) {
        return 0;
    }
    if (n > 4096u) {
        return fail(w->d, "%s: <%s>: xformOpOrder: %llu ops is more than 4096", layer_name(w->s, l->v[0].layer),
                    w->path, (unsigned long long)n);
    }
    enum { NAME_CAP = USD_MAX_IDENTIFIER + 64 };
    usd_xform_op *ops = calloc((size_t)n, sizeof *ops);
    char *names = malloc((size_t)n * NAME_CAP);
    if (ops == NULL || names == NULL) {
        free(ops);
        free(names);
        return fail(w->d, "out of memory");
    }
    char where[USD_MAX_PATH + 600];
    snprintf(where, sizeof where, "%s: <%s>", layer_name(w->s, l->v[0].layer), w->path);
    usd_geom_ctx ctx = {where, NULL, NULL};
    int rc = 0;
    for (uint32_t i = 0; i < (uint32_t)n && rc == 0; i++) {
        char *name = names + (size_t)i * NAME_CAP;
        rc = usd_prop_read_token(order, USD_WHICH_AUTO, i, name, NAME_CAP, w->d);
        if (rc == 0) {
            rc = usd_xform_op_parse(name, i, &ops[i], &ctx, w->d);
        }
        if (rc != 0 || ops[i].kind == USD_XFORM_RESET_STACK) {
            continue;
        }
        const usd_prop *p = find_prop(l, ops[i].attr);
        if (p == NULL || !usd_prop_has_value(p, USD_WHICH_AUTO)) {
            rc = fail(w->d, "%s: xformOpOrder[%u] names %s, which has no value", where, i, ops[i].attr);
            break;
        }
        size_t got = 0;
        rc = usd_prop_read_f64(p, USD_WHICH_AUTO, ops[i].value, 16, &got, w->d);
        ops[i].value_count = (uint32_t)got;
    }
    if (rc == 0) {
        rc = usd_xform_compose(ops, (uint32_t)n, &ctx, out, resets, w->d);
    }
    free(ops);
    free(names);
    return rc;
}

/* ---- placements and prototypes --------------------------------------------- */

static uint64_t max_placements(const usd_stage *s)
{
    return s->opt.max_placements != 0 ? s->opt.max_placements : USD_STAGE_DEFAULT_MAX_PLACEMENTS;
}

/* Counts n placements of the pass. At import the count may not pass the
 * limit (the instancers' instances, which open does not count); at open
 * it is checked once the stage is composed, so that the refusal names the
 * whole count. */
static int count_placements(walk *w, uint64_t n)
{
    usd_stage *s = w->s;
    s->placed = n > UINT64_MAX - s->placed ? UINT64_MAX : s->placed + n;
    if (w->importing && s->placed > max_placements(s)) {
        return fail(w->d, "%s: more than %llu placements (the limit; --max-placements N raises it)", layer_name(s, 0),
                    (unsigned long long)max_placements(s));
    }
    return 0;
}

/* Appends a placement to the prototype being recorded. */
static int record(walk *w, uint32_t object, uint32_t proto, const double m[16], const char *name)
{
    recorder *r = w->rec;
    if (grow((void **)&r->v, &r->cap, r->n + 1u, sizeof *r->v) != 0) {
        return fail(w->d, "out of memory");
    }
    proto_place *p = &r->v[r->n++];
    p->object = object;
    p->proto = proto;
    memcpy(p->m, m, sizeof p->m);
    snprintf(p->name, sizeof p->name, "%.63s", name);
    return 0;
}

/* Places object at m: recorded into the prototype being recorded, else
 * counted, and at import handed to the sink. */
static int place(walk *w, uint32_t object, const double m[16], const char *name)
{
    if (w->rec != NULL) {
        return record(w, object, UINT32_MAX, m, name);
    }
    if (count_placements(w, 1) != 0) {
        return -1;
    }
    if (!w->importing) {
        return 0;
    }
    double full[16];
    usd_geom_matrix_mul(w->s->stage_matrix, m, full);
    pk_instance inst;
    memset(&inst, 0, sizeof inst);
    inst.mesh = object;
    usd_geom_matrix_to_float(full, inst.matrix);
    snprintf(inst.name, sizeof inst.name, "%.63s", name);
    if (w->sink->instance(w->sink->user, &inst, w->d) != 0) {
        return -1;
    }
    w->s->stats.instances++;
    return 0;
}

/* Hands each placement of prototype proto, at m, to place (nested
 * prototypes expanded in turn: each was recorded before the one that
 * names it, so this ends). */
static int expand(walk *w, uint32_t proto, const double m[16])
{
    const recorder *r = &w->s->protos[proto].places;
    for (uint32_t i = 0; i < r->n; i++) {
        double x[16];
        usd_geom_matrix_mul(m, r->v[i].m, x);
        int rc = r->v[i].proto == UINT32_MAX ? place(w, r->v[i].object, x, r->v[i].name) : expand(w, r->v[i].proto, x);
        if (rc != 0) {
            return -1;
        }
    }
    return 0;
}

/* Places prototype proto at m: one record in the prototype being recorded;
 * else its flattened count at open, its placements at import. */
static int place_proto(walk *w, uint32_t proto, const double m[16])
{
    if (w->rec != NULL) {
        return record(w, UINT32_MAX, proto, m, "");
    }
    if (!w->importing) {
        return count_placements(w, w->s->protos[proto].placements);
    }
    return expand(w, proto, m);
}

/* Hashes the sites of l (without the local ones when skip_local; with
 * each one's local flag when flags): the layers and spec paths that
 * determine everything composed at and below them. */
USD_OUT_OF_LINE static void key_sites(XXH3_state_t *st, const usd_stage *s, const site_list *l, int skip_local,
                                      int flags)
{
    char path[USD_MAX_PATH];
    for (uint32_t i = 0; i < l->n; i++) {
        if (skip_local && l->v[i].local) {
            continue;
        }
        const char *k = s->layers[l->v[i].layer].key;
        XXH3_128bits_update(st, k, strlen(k) + 1);
        if (flags) {
            XXH3_128bits_update(st, &l->v[i].local, 1);
        }
        size_t n = usd_prim_path(l->v[i].spec, path, sizeof path);
        XXH3_128bits_update(st, path, (n < sizeof path ? n : sizeof path - 1) + 1);
    }
}

/* The slot of key in s->proto_slots: its entry's, or the empty one it
 * would take. s->slot_count must be nonzero. */
static uint32_t proto_slot(const usd_stage *s, XXH128_hash_t key)
{
    uint32_t mask = s->slot_count - 1u, i = (uint32_t)key.low64 & mask;
    while (s->proto_slots[i] != 0 && !XXH128_isEqual(s->protos[s->proto_slots[i] - 1u].key, key)) {
        i = (i + 1u) & mask;
    }
    return i;
}

static proto_entry *proto_find(usd_stage *s, XXH128_hash_t key)
{
    if (s->slot_count == 0) {
        return NULL;
    }
    uint32_t k = s->proto_slots[proto_slot(s, key)];
    return k != 0 ? &s->protos[k - 1u] : NULL;
}

/* Adds an entry for key (not in the table) owning places; 0, or -1 out of
 * memory (places then still the caller's). */
static int proto_add(usd_stage *s, XXH128_hash_t key, recorder places)
{
    if (grow((void **)&s->protos, &s->proto_cap, s->proto_count + 1u, sizeof *s->protos) != 0) {
        return -1;
    }
    if ((s->proto_count + 1u) * 2u > s->slot_count) {
        uint32_t n = s->slot_count ? s->slot_count * 2u : 64u;
        uint32_t *slots = n > s->slot_count ? calloc(n, sizeof *slots) : NULL;
        if (slots == NULL) {
            return -1;
        }
        free(s->proto_slots);
        s->proto_slots = slots;
        s->slot_count = n;
        for (uint32_t i = 0; i < s->proto_count; i++) {
            s->proto_slots[proto_slot(s, s->protos[i].key)] = i + 1u;
        }
    }
    proto_entry *e = &s->protos[s->proto_count];
    e->key = key;
    e->places = places;
    e->placements = 0;
    for (uint32_t i = 0; i < places.n; i++) {
        uint64_t n = places.v[i].proto == UINT32_MAX ? 1u : s->protos[places.v[i].proto].placements;
        e->placements = n > UINT64_MAX - e->placements ? UINT64_MAX : e->placements + n;
    }
    s->proto_slots[proto_slot(s, key)] = ++s->proto_count;
    return 0;
}

static int walk_prim(walk *w, site_list *l, const double parent[16], uint32_t depth);
static int walk_children(walk *w, const site_list *l, const double world[16], uint32_t depth, int skip_local);

/* What a prototype walks: a prim (a PointInstancer's prototype, or a prim
 * whose own arcs bring sites), or an instanceable prim's children without
 * the local opinions (instance proxies). */
typedef enum proto_walk { PROTO_PRIM, PROTO_INSTANCE_CHILDREN } proto_walk;

/* Records (once per key) what `what` walks under an identity frame, then
 * places it at m. Sites that are the same layers and spec paths compose
 * the same subtree, so it is composed and its meshes imported once, however
 * many times the stage reaches it. */
USD_OUT_OF_LINE static int prototype(walk *w, XXH128_hash_t key, site_list *l, proto_walk what, const double m[16],
                                     uint32_t depth)
{
    usd_stage *s = w->s;
    if (w->material >= 0) {
        /* The material its ancestors bind is part of what it imports. */
        XXH3_state_t st;
        XXH3_128bits_reset(&st);
        XXH3_128bits_update(&st, &key, sizeof key);
        XXH3_128bits_update(&st, &w->material, sizeof w->material);
        key = XXH3_128bits_digest(&st);
    }
    proto_entry *e = proto_find(s, key);
    if (e == NULL) {
        recorder r = {NULL, 0, 0};
        recorder *saved = w->rec;
        w->rec = &r;
        double id[16];
        usd_geom_matrix_identity(id);
        w->proto_root = l;
        int rc = what == PROTO_PRIM ? walk_prim(w, l, id, depth) : walk_children(w, l, id, depth, 1);
        w->rec = saved;
        if (rc != 0 || proto_add(s, key, r) != 0) {
            free(r.v);
            return rc != 0 ? -1 : fail(w->d, "out of memory");
        }
        e = &s->protos[s->proto_count - 1u];
        s->stats.prototypes++;
    } else {
        s->stats.prototype_hits++;
    }
    return place_proto(w, (uint32_t)(e - s->protos), m);
}

/* ---- materials ---------------------------------------------------------------- */

static int compose_path(walk *w, const char *path, site_list *out);
static int child_sites(walk *w, const site_list *parent, const char *name, int skip_local, uint32_t ns_depth,
                       site_list *out);
static size_t path_push(walk *w, const char *name);
static int mesh_prop_names(walk *w, const site_list *l, const char ***names, const char ***types, uint32_t *nn);

/* A prim usd_shade.c reads: composed at its path from the root. */
struct usd_shade_prim {
    const usd_stage *s;
    site_list l;
};

/* usd_shade_stage.compose: quietly (the walk warns of the arcs of the
 * prims it reaches; a material's are refused or skipped alike). */
USD_OUT_OF_LINE static int shade_compose(void *user, const char *path, usd_shade_prim **out, pk_diag *d)
{
    walk *w = user;
    *out = NULL;
    usd_shade_prim *p = calloc(1, sizeof *p);
    char *saved = malloc(sizeof w->path);
    if (p == NULL || saved == NULL) {
        free(p);
        free(saved);
        return fail(d, "out of memory");
    }
    memcpy(saved, w->path, sizeof w->path);
    pk_diag *saved_d = w->d;
    const int importing = w->importing;
    const uint32_t ns_depth = w->ns_depth;
    w->d = d;
    w->importing = 1;
    snprintf(w->path, sizeof w->path, "%s", path);
    int rc = compose_path(w, path, &p->l);
    w->d = saved_d;
    w->importing = importing;
    w->ns_depth = ns_depth;
    memcpy(w->path, saved, sizeof w->path);
    free(saved);
    if (rc != 0) {
        free(p);
        return rc;
    }
    p->s = w->s;
    *out = p;
    return 0;
}

static void shade_release(void *user, usd_shade_prim *p)
{
    (void)user;
    if (p != NULL) {
        free(p->l.v);
        free(p);
    }
}

static const usd_prop *shade_prop(const usd_shade_prim *p, const char *name)
{
    return find_prop(&p->l, name);
}

static const char *shade_type(const usd_shade_prim *p)
{
    return composed_type(&p->l);
}

static const char *shade_layer(const usd_shade_prim *p)
{
    return p->l.n > 0 ? layer_name(p->s, p->l.v[0].layer) : layer_name(p->s, 0);
}

static void shade_warn(void *user, const char *message)
{
    walk *w = user;
    stage_warn(w->s, "%s", message);
}

static void shade_stage(walk *w, usd_shade_stage *out)
{
    memset(out, 0, sizeof *out);
    out->user = w;
    out->compose = shade_compose;
    out->release = shade_release;
    out->prop = shade_prop;
    out->type = shade_type;
    out->layer = shade_layer;
    out->skip_unsupported = w->s->opt.skip_unsupported;
    out->warn = shade_warn;
    out->root = &w->s->root;
}

/* The bindings of l that are not read (another purpose, a collection), one
 * warning each, on the compose pass. */
USD_OUT_OF_LINE static void other_bindings(walk *w, const site_list *l)
{
    for (uint32_t i = 0; i < l->n; i++) {
        const usd_prim *spec = l->v[i].spec;
        for (uint32_t k = 0; k < spec->prop_count; k++) {
            const char *name = spec->props[k]->name;
            if (strncmp(name, "material:binding:", 17) != 0) {
                continue;
            }
            int seen = 0;
            for (uint32_t j = 0; j <= i && !seen; j++) {
                const usd_prim *o = l->v[j].spec;
                for (uint32_t q = 0; q < (j == i ? k : o->prop_count) && !seen; q++) {
                    seen = strcmp(o->props[q]->name, name) == 0;
                }
            }
            if (!seen) {
                stage_warn(w->s, "%s: <%s>: %s is not read (only the direct, all-purpose material:binding is); ignored",
                           layer_name(w->s, l->v[i].layer), w->path, name);
            }
        }
    }
}

/* The material prim l (at w->path) binds with material:binding: *has 1
 * and *entry its usd_shade_table entry (-1 when left out under
 * skip_unsupported), or *has 0. 0, or -1 with a message. */
USD_OUT_OF_LINE static int prim_binding(walk *w, const site_list *l, int warn_others, int *has, int32_t *entry)
{
    usd_stage *s = w->s;
    *has = 0;
    *entry = -1;
    if (warn_others && !w->importing) {
        other_bindings(w, l);
    }
    const usd_prop *p = find_prop(l, "material:binding");
    if (p == NULL || p->kind != USD_PROP_RELATIONSHIP || p->target_count == 0) {
        return 0;
    }
    *has = 1;
    const char *lname = layer_name(s, layer_index(s, p->owner->layer));
    char target[USD_MAX_PATH];
    if (usd_shade_map_path(w->path, p->owner, p->targets[0], target, sizeof target) == 0) {
        if (!s->opt.skip_unsupported) {
            return fail(w->d, "%s: <%s>: material:binding <%s> is not a prim path from <%s>", lname, w->path,
                        p->targets[0], w->path);
        }
        if (!w->importing) {
            stage_warn(s, "%s: <%s>: material:binding <%s> is not a prim path from <%s>; the material is ignored",
                       lname, w->path, p->targets[0], w->path);
        }
        return 0;
    }
    char who[USD_MAX_PATH * 2 + 600];
    snprintf(who, sizeof who, "%s: <%s>: material:binding <%s>", lname, w->path, target);
    usd_shade_stage st;
    shade_stage(w, &st);
    return usd_shade_table_get(s->shade, &st, target, who, entry, w->d);
}

/* The UV primvar a Mesh's mesh takes its texture coordinates from
 * (usd_geom_pick_texcoords), without "primvars:", into uv: 1, 0 when it
 * has none, -1 with a message. */
static int mesh_uv_name(walk *w, const site_list *l, char *uv, size_t cap)
{
    const char **names = NULL, **types = NULL;
    uint32_t nn = 0;
    int rc = mesh_prop_names(w, l, &names, &types, &nn);
    int32_t at = rc == 0 && names != NULL ? usd_geom_pick_texcoords(names, types, nn) : -1;
    if (rc == 0 && at >= 0) {
        snprintf(uv, cap, "%s", names[at] + (strncmp(names[at], "primvars:", 9) == 0 ? 9 : 0));
        rc = 1;
    }
    free(names);
    free(types);
    return rc;
}

/* The pk_mesh.material of a mesh (or a GeomSubset's part: l, at w->path)
 * bound to entry: each texture that reads another UV primvar than the
 * mesh's (uv; NULL when it has none) is refused, or under skip_unsupported
 * left out for this mesh with a warning on the compose pass; an implicit
 * shape (shape 1) has the texture coordinates of its tessellation
 * (usd_shape.h), which every texture reads, whatever primvar it names. At import the
 * material is given to the sink (once per entry, sidedness and slots left
 * out: doubleSided is the gprim's in USD, the material's in the pack) and
 * *id is its id + 1; 0 without one. 0, or -1 with a message. */
USD_OUT_OF_LINE static int mesh_material(walk *w, const site_list *l, int32_t entry, const char *uv, int shape,
                                         uint32_t *id)
{
    usd_stage *s = w->s;
    *id = 0;
    const usd_shade_material *sm = entry >= 0 ? usd_shade_table_at(s->shade, entry) : NULL;
    if (sm == NULL) {
        return 0;
    }
    uint32_t dropped = 0;
    for (uint32_t k = 0; k < PK_SLOT_COUNT; k++) {
        const usd_shade_slot *sl = &sm->slot[k];
        if (sm->m.slot[k].image == PK_NONE || shape || (uv != NULL && strcmp(uv, sl->primvar) == 0)) {
            continue;
        }
        char msg[USD_MAX_PATH * 2 + 1200];
        int n = snprintf(msg, sizeof msg, "%s: <%s>: texture <%s> reads primvar '%s', but ",
                         layer_name(s, l->v[0].layer), w->path, sl->texture, sl->primvar);
        snprintf(msg + n, sizeof msg - (size_t)n,
                 uv != NULL ? "the mesh's texture coordinates are primvars:%s"
                            : "the mesh has no texture coordinates%s",
                 uv != NULL ? uv : "");
        if (!s->opt.skip_unsupported) {
            return fail(w->d, "%s", msg);
        }
        if (!w->importing) {
            stage_warn(s, "%s; the texture is ignored for this mesh", msg);
        }
        dropped |= 1u << k;
    }
    if (!w->importing || w->sink->material == NULL) {
        return 0;
    }
    int ds = 0;
    const usd_prop *p = find_prop(l, "doubleSided");
    if (p != NULL && p->kind == USD_PROP_ATTRIBUTE && usd_prop_has_value(p, USD_WHICH_AUTO) &&
        usd_prop_read_bool(p, USD_WHICH_AUTO, &ds, w->d) != 0) {
        return -1;
    }
    usd_shade_stage st;
    shade_stage(w, &st);
    const usd_shade_sink sink = {w->sink->texture, w->sink->material, w->sink->user};
    uint32_t mid = 0;
    if (usd_shade_table_give(s->shade, &st, entry, ds, dropped, &sink, &mid, w->d) != 0) {
        return -1;
    }
    *id = mid + 1u;
    return 0;
}

/* One GeomSubset of family materialBind bound to a material: its own part. */
typedef struct subset {
    int32_t entry;
    int32_t *faces; /* at import: its indices */
    uint32_t face_count;
} subset;

static void subsets_free(subset *v, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        free(v[i].faces);
    }
    free(v);
}

/* One child of a Mesh: a subset when it is a GeomSubset of family
 * materialBind, of faces, bound to a material (its indices read at
 * import). 1 added, 0 not one, -1 with a message. */
static int mesh_subset(walk *w, const site_list *c, const char *uv, subset **v, uint32_t *n, uint32_t *cap)
{
    usd_stage *s = w->s;
    if (strcmp(composed_type(c), "GeomSubset") != 0) {
        return 0;
    }
    char tok[64];
    int has = read_token(c, "familyName", tok, sizeof tok, w->d);
    if (has < 0) {
        return -1;
    }
    if (has == 0 || strcmp(tok, "materialBind") != 0) {
        const usd_prop *b = find_prop(c, "material:binding");
        if (!w->importing && b != NULL && b->kind == USD_PROP_RELATIONSHIP && b->target_count > 0) {
            char target[USD_MAX_PATH];
            if (usd_shade_map_path(w->path, b->owner, b->targets[0], target, sizeof target) == 0) {
                snprintf(target, sizeof target, "%s", b->targets[0]);
            }
            stage_warn(s,
                       "%s: <%s>: GeomSubset binds <%s> but its familyName is not materialBind, so USD does not apply "
                       "the binding; ignored",
                       layer_name(s, layer_index(s, b->owner->layer)), w->path, target);
        }
        return 0;
    }
    has = read_token(c, "elementType", tok, sizeof tok, w->d);
    if (has < 0) {
        return -1;
    }
    if (has > 0 && strcmp(tok, "face") != 0) {
        if (!w->importing) {
            stage_warn(s, "%s: <%s>: a materialBind GeomSubset of elementType '%s', not face; ignored",
                       layer_name(s, c->v[0].layer), w->path, tok);
        }
        return 0;
    }
    int32_t entry = -1;
    if (prim_binding(w, c, 0, &has, &entry) != 0) {
        return -1;
    }
    uint32_t id = 0;
    if (entry < 0) {
        return 0; /* no material, or left out: its faces keep the mesh's */
    }
    if (!w->importing && mesh_material(w, c, entry, uv, 0, &id) != 0) {
        return -1; /* the check of its textures' primvar, on the compose pass (at import the mesh gives it) */
    }
    if (grow((void **)v, cap, *n + 1u, sizeof **v) != 0) {
        return fail(w->d, "out of memory");
    }
    subset *x = &(*v)[(*n)++];
    memset(x, 0, sizeof *x);
    x->entry = entry;
    const usd_prop *p = find_prop(c, "indices");
    if (w->importing && p != NULL && usd_prop_has_value(p, USD_WHICH_AUTO)) {
        return read_array(w, p, 1, 1, (void **)&x->faces, &x->face_count) == 0 ? 1 : -1;
    }
    return 1;
}

/* The materialBind GeomSubsets of the Mesh l (at w->path, namespace depth
 * depth) that bind a material, in child order. 0, or -1 with a message. */
USD_OUT_OF_LINE static int mesh_subsets(walk *w, const site_list *l, uint32_t depth, const char *uv, subset **out,
                                        uint32_t *count)
{
    *out = NULL;
    *count = 0;
    uint32_t cap = 0;
    site_list child = {NULL, 0, 0, 0};
    int rc = 0;
    for (uint32_t i = 0; i < l->n && rc == 0; i++) {
        const usd_prim *spec = l->v[i].spec;
        for (uint32_t k = 0; k < spec->child_count && rc == 0; k++) {
            const char *name = spec->children[k]->name;
            int seen = 0;
            for (uint32_t j = 0; j <= i && !seen; j++) {
                const usd_prim *o = l->v[j].spec;
                for (uint32_t q = 0; q < (j == i ? k : o->child_count) && !seen; q++) {
                    seen = strcmp(o->children[q]->name, name) == 0;
                }
            }
            if (seen) {
                continue;
            }
            size_t old = path_push(w, name);
            rc = child_sites(w, l, name, 0, depth + 1u, &child);
            if (rc == 0 && child.n > 0) {
                rc = mesh_subset(w, &child, uv, out, count, &cap) < 0 ? -1 : 0;
            }
            w->path[old] = '\0';
        }
    }
    free(child.v);
    if (rc != 0) {
        subsets_free(*out, *count);
        *out = NULL;
        *count = 0;
    }
    return rc;
}

/* ---- prims ------------------------------------------------------------------ */

static const char *const refused_types[] = {
    "BasisCurves", "NurbsCurves", "HermiteCurves", "Points", "NurbsPatch", "TetMesh", "Volume",
};

/* The arrays mesh_prim reads, freed together: the topology, then normals and texture coordinates with their
 * indices. */
typedef struct mesh_arrays {
    void *pts, *counts, *idx, *holes, *nv, *ni, *uv, *ui;
} mesh_arrays;

static void mesh_arrays_free(mesh_arrays *a)
{
    free(a->pts);
    free(a->counts);
    free(a->idx);
    free(a->holes);
    free(a->nv);
    free(a->ni);
    free(a->uv);
    free(a->ui);
}

/* An optional attribute whose type is not the one its schema gives (an
 * int normals, a float[] holeIndices): 1 when its type name has that
 * scalar family and component count, else 0 and a warning naming the prim,
 * the attribute and its type; the attribute is then read as unauthored,
 * as USD reads it. family: USD_SCALAR_FLOAT for any of half, float or
 * double; USD_SCALAR_INT for int; USD_SCALAR_TOKEN for token. */
static int optional_type_ok(walk *w, const char *where, const usd_prop *p, usd_scalar family, uint32_t components,
                            const char *expected)
{
    uint32_t c = 0;
    int arr = 0;
    usd_scalar sc = p->kind == USD_PROP_ATTRIBUTE ? usd_type_scalar(p->type_name, &c, &arr) : USD_SCALAR_NONE;
    int ok = c == components &&
             (family == USD_SCALAR_FLOAT ? sc == USD_SCALAR_HALF || sc == USD_SCALAR_FLOAT || sc == USD_SCALAR_DOUBLE
                                         : sc == family);
    ok = ok && (family == USD_SCALAR_TOKEN ? arr == 0 : arr == 1);
    if (!ok) {
        stage_warn(w->s, "%s: %s: type '%s', not %s; ignored", where, p->name,
                   p->kind == USD_PROP_ATTRIBUTE ? p->type_name : "relationship", expected);
    }
    return ok;
}

/* Reads a Mesh's topology (points, face vertex counts and indices are required; holes and orientation are
 * not) into IN, its arrays into A. 0; 1 when the Mesh is incomplete (a required attribute unauthored or
 * empty: a placeholder), with a warning, and the prim is left out; or -1 with a message. */
static int mesh_topology(walk *w, const site_list *l, const char *where, usd_mesh_input *in, mesh_arrays *a)
{
    int rc = 0;
    const usd_prop *p;
    static const char *const required[] = {"points", "faceVertexCounts", "faceVertexIndices"};
    for (int k = 0; k < 3; k++) {
        p = find_prop(l, required[k]);
        uint64_t n = 0;
        uint32_t c = 0;
        if (p == NULL || !usd_prop_has_value(p, USD_WHICH_AUTO) ||
            (usd_prop_value_count(p, USD_WHICH_AUTO, &n, &c, w->d) == 0 && n == 0)) {
            stage_warn(w->s, "%s: Mesh has no %s; left out", where, required[k]);
            return 1;
        }
    }
    if (rc == 0) {
        rc = read_array(w, find_prop(l, "points"), 3, 0, &a->pts, &in->topology.point_count);
    }
    if (rc == 0) {
        rc = read_array(w, find_prop(l, "faceVertexCounts"), 1, 1, &a->counts, &in->topology.face_count);
    }
    if (rc == 0) {
        rc = read_array(w, find_prop(l, "faceVertexIndices"), 1, 1, &a->idx, &in->topology.index_count);
    }
    if (rc == 0 && (p = find_prop(l, "holeIndices")) != NULL && usd_prop_has_value(p, USD_WHICH_AUTO) &&
        optional_type_ok(w, where, p, USD_SCALAR_INT, 1, "int[]")) {
        rc = read_array(w, p, 1, 1, &a->holes, &in->topology.hole_count);
    }
    if (rc == 0 && ((p = find_prop(l, "orientation")) == NULL || !usd_prop_has_value(p, USD_WHICH_AUTO) ||
                    optional_type_ok(w, where, p, USD_SCALAR_TOKEN, 1, "token"))) {
        char tok[64];
        int has = read_token(l, "orientation", tok, sizeof tok, w->d);
        rc = has < 0 ? -1 : 0;
        in->topology.left_handed = has > 0 && strcmp(tok, "leftHanded") == 0;
    }
    in->topology.points = a->pts;
    in->topology.face_vertex_counts = a->counts;
    in->topology.face_vertex_indices = a->idx;
    in->topology.hole_indices = a->holes;
    return rc;
}

/* The property names (and type names) over every site of L, each once in first-seen order, for picking
 * normals and st; the caller frees both lists. 0, or -1 with a message. */
static int mesh_prop_names(walk *w, const site_list *l, const char ***names, const char ***types, uint32_t *nn)
{
    uint32_t ncap = 0, tcap = 0;
    for (uint32_t i = 0; i < l->n; i++) {
        const usd_prim *spec = l->v[i].spec;
        for (uint32_t k = 0; k < spec->prop_count; k++) {
            const usd_prop *q = spec->props[k];
            uint32_t j = 0;
            while (j < *nn && strcmp((*names)[j], q->name) != 0) {
                j++;
            }
            if (j < *nn) {
                continue;
            }
            if (grow((void **)names, &ncap, *nn + 1u, sizeof **names) != 0 ||
                grow((void **)types, &tcap, *nn + 1u, sizeof **types) != 0) {
                return fail(w->d, "out of memory");
            }
            (*names)[*nn] = q->name;
            (*types)[*nn] = q->type_name;
            (*nn)++;
        }
    }
    return 0;
}

/* Reads the primvar NAME (COMPS numbers an element) of a Mesh into PV: values, interpolation (normals default
 * to vertex, others to constant) and NAME:indices if authored; VALS and INDS receive the arrays. 1 read, 0 no
 * value authored, -1 with a message. */
static int mesh_primvar(walk *w, const site_list *l, const char *where, const char *name, uint32_t comps,
                        usd_primvar *pv, void **vals, void **inds)
{
    const usd_prop *p = find_prop(l, name);
    if (p == NULL || !usd_prop_has_value(p, USD_WHICH_AUTO)) {
        return 0;
    }
    if (!optional_type_ok(w, where, p, USD_SCALAR_FLOAT, comps,
                          comps == 3u ? "an array of 3 numbers an element (normal3f[])"
                                      : "an array of 2 numbers an element (texCoord2f[])")) {
        return 0;
    }
    if (read_array(w, p, comps, 0, vals, &pv->value_count) != 0) {
        return -1;
    }
    pv->name = name;
    pv->values = *vals;
    pv->element_size = p->element_size;
    usd_interp dflt = strcmp(name, "normals") == 0 ? USD_INTERP_VERTEX : USD_INTERP_CONSTANT;
    const char *it = find_interp(l, name);
    if (usd_interp_parse(it, dflt, &pv->interp) != 0) {
        return fail(w->d, "%s: %s: interpolation '%s' is not one of constant, uniform, vertex, varying, faceVarying",
                    where, name, it);
    }
    char iname[USD_MAX_IDENTIFIER + 16];
    snprintf(iname, sizeof iname, "%s:indices", name);
    const usd_prop *ip = find_prop(l, iname);
    if (ip != NULL && usd_prop_has_value(ip, USD_WHICH_AUTO)) {
        int rc = read_array(w, ip, 1, 1, inds, &pv->index_count);
        pv->indices = *inds;
        if (rc != 0) {
            return -1;
        }
    }
    return 1;
}

/* Names M after the prim, hands it to the sink, frees it and places the object at WORLD: what a Mesh prim and an
 * implicit shape share once their triangles are built. 0, or -1 with the sink's message. */
static int emit_mesh(walk *w, pk_mesh *m, uint32_t material, const double world[16])
{
    m->material = material;
    const char *leaf = strrchr(w->path, '/');
    const char *name = leaf != NULL ? leaf + 1 : w->path;
    snprintf(m->name, sizeof m->name, "%.63s", name);
    uint32_t object = 0;
    int rc = w->sink->mesh(w->sink->user, m, &object, w->d);
    pk_mesh_free(m);
    if (rc != 0) {
        return -1;
    }
    w->s->stats.meshes++;
    return place(w, object, world, name);
}

/* The faces not in part k (0: the faces no bound subset claims; k > 0:
 * subset k - 1's), with the mesh's holes, as a holeIndices list: a part is
 * its mesh with every other face a hole. part[f] is face f's part. */
static int part_holes(walk *w, const char *where, const usd_mesh_topology *t, const uint32_t *part, uint32_t k,
                      int32_t **out, uint32_t *count)
{
    uint32_t n = 0;
    int32_t *h = malloc(((size_t)t->face_count + 1u) * sizeof *h);
    uint8_t *hole = calloc((size_t)t->face_count + 1u, 1);
    if (h == NULL || hole == NULL) {
        free(h);
        free(hole);
        return fail(w->d, "out of memory");
    }
    for (uint32_t i = 0; i < t->hole_count; i++) {
        int32_t f = t->hole_indices[i];
        if (f < 0 || (uint32_t)f >= t->face_count) {
            free(h);
            free(hole);
            return fail(w->d, "%s: holeIndices[%u]: index %d out of range (%u faces)", where, i, f, t->face_count);
        }
        hole[f] = 1;
    }
    for (uint32_t f = 0; f < t->face_count; f++) {
        if (hole[f] || part[f] != k) {
            h[n++] = (int32_t)f;
        }
    }
    free(hole);
    *out = h;
    *count = n;
    return 0;
}

/* The part of each face: 0, or k + 1 for the first subset k that names it
 * (a face index out of range is refused, or skipped with a warning under
 * skip_unsupported). */
static int face_parts(walk *w, const char *where, uint32_t faces, const subset *sub, uint32_t nsub, uint32_t **out)
{
    uint32_t *part = calloc((size_t)faces + 1u, sizeof *part);
    if (part == NULL) {
        return fail(w->d, "out of memory");
    }
    for (uint32_t k = 0; k < nsub; k++) {
        for (uint32_t i = 0; i < sub[k].face_count; i++) {
            int32_t f = sub[k].faces[i];
            if (f < 0 || (uint32_t)f >= faces) {
                if (!w->s->opt.skip_unsupported) {
                    free(part);
                    return fail(w->d, "%s: GeomSubset %u: indices[%u]: face %d out of range (%u faces)", where, k, i, f,
                                faces);
                }
                stage_warn(w->s, "%s: GeomSubset %u: indices[%u]: face %d out of range (%u faces); ignored", where, k,
                           i, f, faces);
                continue;
            }
            if (part[f] == 0) {
                part[f] = k + 1u;
            }
        }
    }
    *out = part;
    return 0;
}

/* Builds and hands over each part of a Mesh: the whole mesh without
 * subsets; else the faces no subset claims (with the mesh's material) and
 * each subset's faces (with its own), a part with no triangles left out. */
static int mesh_parts(walk *w, const char *where, usd_mesh_input *in, const usd_geom_ctx *ctx, const subset *sub,
                      uint32_t nsub, const uint32_t *materials, const double world[16])
{
    uint32_t *part = NULL;
    if (nsub > 0 && face_parts(w, where, in->topology.face_count, sub, nsub, &part) != 0) {
        return -1;
    }
    const usd_mesh_topology whole = in->topology;
    int rc = 0, emitted = 0;
    for (uint32_t k = 0; k <= nsub && rc == 0; k++) {
        int32_t *holes = NULL;
        if (nsub > 0) {
            rc = part_holes(w, where, &whole, part, k, &holes, &in->topology.hole_count);
            in->topology.hole_indices = holes;
        }
        pk_mesh m;
        memset(&m, 0, sizeof m);
        if (rc == 0) {
            rc = usd_geom_build_mesh(in, ctx, &m, w->d);
        }
        free(holes);
        in->topology = whole;
        if (rc == 0 && m.index_count == 0) {
            pk_mesh_free(&m);
            continue;
        }
        if (rc == 0) {
            emitted = 1;
            rc = emit_mesh(w, &m, materials[k], world);
        }
    }
    free(part);
    if (rc == 0 && !emitted) {
        stage_warn(w->s, "%s: Mesh has no triangles; left out", where);
    }
    return rc;
}

/* A Mesh prim: its material (w->material) and its bound materialBind
 * subsets, each a part of its own (counted on the compose pass; built and
 * handed over at import). */
USD_OUT_OF_LINE static int mesh_prim(walk *w, const site_list *l, const double world[16], uint32_t depth)
{
    usd_stage *s = w->s;
    const char *lname = layer_name(s, l->v[0].layer);
    char tok[64];
    int has = read_token(l, "subdivisionScheme", tok, sizeof tok, w->d);
    if (has < 0) {
        return -1;
    }
    char uv[USD_MAX_IDENTIFIER + 1];
    int has_uv = mesh_uv_name(w, l, uv, sizeof uv);
    subset *sub = NULL;
    uint32_t nsub = 0;
    uint32_t *materials = NULL;
    if (has_uv < 0 || mesh_subsets(w, l, depth, has_uv > 0 ? uv : NULL, &sub, &nsub) != 0) {
        return -1;
    }
    materials = calloc((size_t)nsub + 1u, sizeof *materials);
    if (materials == NULL) {
        subsets_free(sub, nsub);
        return fail(w->d, "out of memory");
    }
    int rc = mesh_material(w, l, w->material, has_uv > 0 ? uv : NULL, 0, &materials[0]);
    for (uint32_t k = 0; k < nsub && rc == 0 && w->importing; k++) {
        rc = mesh_material(w, l, sub[k].entry, has_uv > 0 ? uv : NULL, 0, &materials[k + 1u]);
    }
    if (rc != 0 || !w->importing) {
        if (rc == 0 && has > 0 && strcmp(tok, "none") != 0) {
            stage_warn(s, "%s: <%s>: subdivisionScheme '%s' is not applied: the control cage is packed", lname, w->path,
                       tok);
        }
        for (uint32_t k = 0; k <= nsub && rc == 0; k++) {
            s->mesh_count++;
            rc = place(w, UINT32_MAX, world, ""); /* counted: at most one object per part */
        }
        subsets_free(sub, nsub);
        free(materials);
        return rc;
    }
    char where[USD_MAX_PATH + 600];
    snprintf(where, sizeof where, "%s: <%s>", lname, w->path);
    usd_geom_ctx ctx = {where, s->opt.warn, s->opt.user};
    usd_mesh_input in;
    memset(&in, 0, sizeof in);
    mesh_arrays a = {NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    rc = mesh_topology(w, l, where, &in, &a);
    if (rc == 1) {
        mesh_arrays_free(&a);
        subsets_free(sub, nsub);
        free(materials);
        return 0; /* incomplete: warned, left out */
    }
    const char **names = NULL, **types = NULL;
    uint32_t nn = 0;
    if (rc == 0) {
        rc = mesh_prop_names(w, l, &names, &types, &nn);
    }
    usd_primvar normals, uvs;
    memset(&normals, 0, sizeof normals);
    memset(&uvs, 0, sizeof uvs);
    int32_t ni_idx = rc == 0 ? usd_geom_pick_normals(names, nn) : -1;
    int32_t uv_idx = rc == 0 ? usd_geom_pick_texcoords(names, types, nn) : -1;
    for (int which = 0; which < 2 && rc == 0; which++) {
        int32_t at = which == 0 ? ni_idx : uv_idx;
        if (at < 0 || (uint32_t)at >= nn || names == NULL) {
            continue;
        }
        usd_primvar *pv = which == 0 ? &normals : &uvs;
        int got = which == 0 ? mesh_primvar(w, l, where, names[at], 3u, pv, &a.nv, &a.ni)
                             : mesh_primvar(w, l, where, names[at], 2u, pv, &a.uv, &a.ui);
        if (got < 0) {
            rc = -1;
        } else if (got > 0 && which == 0) {
            in.normals = pv;
        } else if (got > 0) {
            in.uvs = pv;
        }
    }
    free(names);
    free(types);
    if (rc == 0) {
        in.drop_bad_primvars = s->opt.skip_unsupported;
        rc = mesh_parts(w, where, &in, &ctx, sub, nsub, materials, world);
    }
    mesh_arrays_free(&a);
    subsets_free(sub, nsub);
    free(materials);
    return rc;
}

/* Reads an implicit gprim's attributes (the schema's fallbacks where none is authored; the default value, else
 * the earliest time sample, as for a Mesh's points) into SH and checks them. 0, or -1 with a message naming the
 * attribute and its value. */
static int shape_read(const site_list *l, usd_shape_kind kind, const usd_geom_ctx *ctx, usd_shape *sh, pk_diag *d)
{
    usd_shape_init(kind, sh);
    const char *const *names = usd_shape_attributes(kind);
    for (size_t k = 0; names[k] != NULL; k++) {
        const usd_prop *p = find_prop(l, names[k]);
        if (p == NULL || p->kind != USD_PROP_ATTRIBUTE || !usd_prop_has_value(p, USD_WHICH_AUTO)) {
            continue;
        }
        double v = 0.0;
        if (usd_prop_read_f64(p, USD_WHICH_AUTO, &v, 1, NULL, d) != 0 || usd_shape_set(sh, names[k], v, ctx, d) != 0) {
            return -1;
        }
    }
    char tok[64];
    int has = kind == USD_SHAPE_CUBE || kind == USD_SHAPE_SPHERE ? 0 : read_token(l, "axis", tok, sizeof tok, d);
    if (has < 0 || (has > 0 && usd_shape_set_axis(sh, tok, ctx, d) != 0)) {
        return -1;
    }
    has = read_token(l, "orientation", tok, sizeof tok, d);
    if (has < 0) {
        return -1;
    }
    sh->left_handed = has > 0 && strcmp(tok, "leftHanded") == 0;
    const usd_prop *p = kind == USD_SHAPE_PLANE ? find_prop(l, "doubleSided") : NULL;
    if (p != NULL && p->kind == USD_PROP_ATTRIBUTE && usd_prop_has_value(p, USD_WHICH_AUTO) &&
        usd_prop_read_bool(p, USD_WHICH_AUTO, &sh->double_sided, d) != 0) {
        return -1;
    }
    return usd_shape_check(sh, ctx, d);
}

/* An implicit gprim (Cube, Sphere, Cylinder, Cone, Capsule, Plane): tessellated (usd_shape.h), then packed as a
 * Mesh prim's mesh is. A value that makes no shape is an error, or under skip_unsupported a warning (given once,
 * on the compose pass) and the prim is left out. */
USD_OUT_OF_LINE static int shape_prim(walk *w, const site_list *l, usd_shape_kind kind, const double world[16])
{
    usd_stage *s = w->s;
    char where[USD_MAX_PATH + 600];
    snprintf(where, sizeof where, "%s: <%s>", layer_name(s, l->v[0].layer), w->path);
    usd_geom_ctx ctx = {where, NULL, NULL};
    usd_shape sh;
    pk_mesh m;
    memset(&m, 0, sizeof m);
    pk_diag sd = {{0}};
    int rc = shape_read(l, kind, &ctx, &sh, &sd);
    if (rc == 0 && w->importing) {
        rc = usd_shape_tessellate(&sh, &ctx, &m, &sd);
    }
    if (rc != 0) {
        if (!s->opt.skip_unsupported) {
            *w->d = sd;
            return -1;
        }
        if (!w->importing) {
            stage_warn(s, "%s; skipped", sd.message);
        }
        return 0;
    }
    uint32_t material = 0;
    if (mesh_material(w, l, w->material, NULL, 1, &material) != 0) {
        pk_mesh_free(&m);
        return -1;
    }
    if (!w->importing) {
        s->mesh_count++;
        return place(w, UINT32_MAX, world, ""); /* counted */
    }
    return emit_mesh(w, &m, material, world);
}

/* Orders l's sites by strength: local first, then by arc type (LIVRPS);
 * among arcs of one type, the one authored on the deeper prim first (a
 * child's own reference is stronger than its ancestor's); otherwise as
 * composed. Stable (each arc's sites stay together, in order). */
static void sites_order(site_list *l)
{
    for (uint32_t i = 1; i < l->n; i++) {
        site x = l->v[i];
        uint32_t k = i;
        while (k > 0 && (l->v[k - 1].arc > x.arc || (l->v[k - 1].arc == x.arc && l->v[k - 1].ns_depth < x.ns_depth))) {
            l->v[k] = l->v[k - 1];
            k--;
        }
        l->v[k] = x;
    }
}

/* The child named name of every site of parent (namespace mapping), then
 * their arcs, ordered by strength; ns_depth is the child's namespace depth. */
static int child_sites(walk *w, const site_list *parent, const char *name, int skip_local, uint32_t ns_depth,
                       site_list *out)
{
    out->n = 0;
    for (uint32_t i = 0; i < parent->n; i++) {
        const site *x = &parent->v[i];
        if (skip_local && x->local) {
            continue;
        }
        const usd_prim *c = usd_prim_find_child(x->spec, name);
        uint32_t at = out->n;
        if (c != NULL && sites_add(out, c, x->layer, x->stack, x->local) != 0) {
            return fail(w->d, "out of memory");
        }
        for (uint32_t k = at; k < out->n; k++) {
            out->v[k].arc = x->arc;
            out->v[k].ns_depth = x->ns_depth;
        }
    }
    out->mapped = out->n;
    w->ns_depth = ns_depth;
    if (compose_arcs(w, out, 0, 0) != 0) {
        return -1;
    }
    sites_order(out);
    return 0;
}

/* Sets w->path to parent's path + "/" + name; returns the old length. */
static size_t path_push(walk *w, const char *name)
{
    size_t n = strlen(w->path);
    snprintf(w->path + n, sizeof w->path - n, "%s%s", n == 1 ? "" : "/", name);
    return n;
}

static int walk_children(walk *w, const site_list *l, const double world[16], uint32_t depth, int skip_local)
{
    if (depth >= USD_STAGE_MAX_DEPTH) {
        /* The path itself is cut: it is at least USD_STAGE_MAX_DEPTH names long. */
        return fail(w->d, "%s: <%.160s...>: namespace deeper than %u prims", layer_name(w->s, l->v[0].layer), w->path,
                    USD_STAGE_MAX_DEPTH);
    }
    const char **names = NULL;
    uint32_t n = 0, cap = 0;
    int rc = 0;
    for (uint32_t i = 0; i < l->n && rc == 0; i++) {
        const usd_prim *spec = l->v[i].spec;
        if (skip_local && l->v[i].local) {
            continue;
        }
        for (uint32_t k = 0; k < spec->child_count; k++) {
            const char *c = spec->children[k]->name;
            uint32_t j = 0;
            while (j < n && strcmp(names[j], c) != 0) {
                j++;
            }
            if (j < n) {
                continue;
            }
            if (grow((void **)&names, &cap, n + 1u, sizeof *names) != 0) {
                rc = fail(w->d, "out of memory");
                break;
            }
            names[n++] = c;
        }
    }
    site_list child = {NULL, 0, 0, 0};
    for (uint32_t k = 0; k < n && rc == 0; k++) {
        size_t old = path_push(w, names[k]);
        rc = child_sites(w, l, names[k], skip_local, depth + 1u, &child);
        if (rc == 0) {
            rc = walk_prim(w, &child, world, depth + 1u);
        }
        w->path[old] = '\0';
    }
    free(child.v);
    free(names);
    return rc;
}

/* Composes the prim at an absolute composed path (a PointInstancer's
 * prototype) from the root. 0 and *out filled, 1 when no prim is there. */
static int compose_path(walk *w, const char *path, site_list *out)
{
    usd_stage *s = w->s;
    site_list cur = {NULL, 0, 0, 0};
    for (uint32_t k = 0; k < s->layers[0].stack_count; k++) {
        uint32_t li = s->layers[0].stack[k];
        if (sites_add(&cur, usd_layer_get_root(s->layers[li].layer), li, 0, 1) != 0) {
            free(cur.v);
            return fail(w->d, "out of memory");
        }
    }
    const char *p = path;
    while (*p == '/') {
        p++;
    }
    char name[USD_MAX_IDENTIFIER + 1];
    uint32_t steps = 0;
    while (*p != '\0') {
        size_t n = strcspn(p, "/");
        if (n == 0 || n > USD_MAX_IDENTIFIER) {
            free(cur.v);
            return 1;
        }
        memcpy(name, p, n);
        name[n] = '\0';
        p += n;
        while (*p == '/') {
            p++;
        }
        site_list next = {NULL, 0, 0, 0};
        if (child_sites(w, &cur, name, 0, ++steps, &next) != 0) {
            free(cur.v);
            free(next.v);
            return -1;
        }
        free(cur.v);
        cur = next;
        if (cur.n == 0) {
            free(cur.v);
            return 1;
        }
    }
    *out = cur;
    return 0;
}

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* Walks each prototype a PointInstancer's relationship REL names (their own walk places nothing) and writes
 * its entry in the stage's prototype table to ENTRY[j]. 0, or -1 with a message (a target that is no prim). */
USD_OUT_OF_LINE static int instancer_prototypes(walk *w, const usd_prop *rel, const char *lname, uint32_t depth,
                                                uint32_t *entry)
{
    usd_stage *s = w->s;
    uint32_t np = rel->target_count;
    char saved[USD_MAX_PATH];
    snprintf(saved, sizeof saved, "%s", w->path);
    int rc = 0;
    double id[16];
    usd_geom_matrix_identity(id);
    const open_instancer self = {saved, w->instancers};
    for (uint32_t j = 0; j < np && rc == 0; j++) {
        site_list pl = {NULL, 0, 0, 0};
        char target[USD_MAX_PATH];
        if (usd_path_anchor(saved, rel->targets[j], target, sizeof target) == 0) {
            rc = fail(w->d, "%s: <%s>: prototypes[%u] <%s>: not a prim path from <%s>", lname, saved, j,
                      rel->targets[j], saved);
            break;
        }
        /* A prototype that holds an instancer being expanded (this one
         * included) would instance itself without end; a chain of distinct
         * prototypes is bounded as namespace is. */
        char why[64] = "";
        for (const open_instancer *o = &self; o != NULL && why[0] == '\0'; o = o->up) {
            if (path_holds(target, o->path)) {
                snprintf(why, sizeof why, "the prototype holds this instancer");
            }
        }
        if (why[0] == '\0' && depth + 1u >= USD_STAGE_MAX_DEPTH) {
            snprintf(why, sizeof why, "prototypes nested deeper than %u prims", USD_STAGE_MAX_DEPTH);
        }
        if (why[0] != '\0') {
            rc = strcmp(target, rel->targets[j]) == 0
                     ? fail(w->d, "%s: <%s>: prototypes[%u] <%s>: %s", lname, saved, j, target, why)
                     : fail(w->d, "%s: <%s>: prototypes[%u] <%s> (<%s>): %s", lname, saved, j, rel->targets[j], target,
                            why);
            break;
        }
        int found = compose_path(w, target, &pl);
        if (found != 0) {
            rc = found < 0 ? -1
                 : strcmp(target, rel->targets[j]) == 0
                     ? fail(w->d, "%s: <%s>: prototypes[%u] <%s>: no such prim", lname, saved, j, target)
                     : fail(w->d, "%s: <%s>: prototypes[%u] <%s> (<%s>): no such prim", lname, saved, j,
                            rel->targets[j], target);
            break;
        }
        XXH3_state_t st;
        XXH3_128bits_reset(&st);
        XXH3_128bits_update(&st, "PointInstancer", 15);
        key_sites(&st, s, &pl, 0, 0);
        XXH128_hash_t key = XXH3_128bits_digest(&st);
        snprintf(w->path, sizeof w->path, "%s", target);
        recorder *outer = w->rec;
        recorder none = {NULL, 0, 0};
        w->rec = &none; /* the prototype's own walk places nothing */
        w->instancers = &self;
        rc = prototype(w, key, &pl, PROTO_PRIM, id, depth + 1u);
        w->instancers = self.up;
        w->rec = outer;
        free(none.v);
        snprintf(w->path, sizeof w->path, "%s", saved);
        free(pl.v);
        proto_entry *e = rc == 0 ? proto_find(s, key) : NULL;
        entry[j] = e != NULL ? (uint32_t)(e - s->protos) : 0u;
    }
    return rc;
}

/* A PointInstancer's per-instance arrays: n protoIndices, with positions, optional scales, invisible ids
 * (sorted) and orientations (quaternions, nor of them). */
typedef struct instancer_arrays {
    void *pi, *pos, *sc, *inv;
    double *orient;
    uint32_t n, npos, nsc, ninv, nor;
} instancer_arrays;

/* Reads the orientations P holds into A: n quaternions. 0, or -1 with a message. */
static int instancer_orientations(walk *w, const usd_prop *p, const char *lname, instancer_arrays *a)
{
    uint64_t cnt = 0;
    uint32_t comp = 0;
    uint32_t n = a->n;
    int rc = usd_prop_value_count(p, USD_WHICH_AUTO, &cnt, &comp, w->d);
    if (rc == 0 && (comp != 4 || cnt != n)) {
        rc = fail(w->d, "%s: <%s>: orientations: %llu elements of %u, expected %u of 4", lname, w->path,
                  (unsigned long long)cnt, comp, n);
    }
    if (rc == 0) {
        a->orient = malloc((size_t)n * 4 * sizeof *a->orient);
        size_t got = 0;
        rc = a->orient == NULL ? fail(w->d, "out of memory")
                               : usd_prop_read_f64(p, USD_WHICH_AUTO, a->orient, (size_t)n * 4, &got, w->d);
        a->nor = n;
    }
    return rc;
}

/* Reads the per-instance arrays of the PointInstancer whose sites are L into A (the caller frees them, also on
 * failure); positions are required when there are protoIndices and must match them in count, as must scales.
 * 0, or -1 with a message. */
static int instancer_read_arrays(walk *w, const site_list *l, const char *lname, instancer_arrays *a)
{
    int rc = 0;
    const usd_prop *p = find_prop(l, "protoIndices");
    if (p != NULL && usd_prop_has_value(p, USD_WHICH_AUTO)) {
        rc = read_array(w, p, 1, 1, &a->pi, &a->n);
    }
    uint32_t n = a->n;
    if (rc == 0 && n > 0) {
        p = find_prop(l, "positions");
        if (p == NULL || !usd_prop_has_value(p, USD_WHICH_AUTO)) {
            rc = fail(w->d, "%s: <%s>: PointInstancer has protoIndices but no positions", lname, w->path);
        } else {
            rc = read_array(w, p, 3, 0, &a->pos, &a->npos);
        }
    }
    if (rc == 0 && n > 0 && (p = find_prop(l, "scales")) != NULL && usd_prop_has_value(p, USD_WHICH_AUTO)) {
        rc = read_array(w, p, 3, 0, &a->sc, &a->nsc);
    }
    if (rc == 0 && n > 0 && (p = find_prop(l, "invisibleIds")) != NULL && usd_prop_has_value(p, USD_WHICH_AUTO)) {
        rc = read_array(w, p, 1, 1, &a->inv, &a->ninv);
        if (rc == 0 && a->ninv > 0) {
            qsort(a->inv, a->ninv, sizeof(int32_t), cmp_i32);
        }
    }
    if (rc == 0 && n > 0 && (p = find_prop(l, "orientations")) != NULL && usd_prop_has_value(p, USD_WHICH_AUTO)) {
        rc = instancer_orientations(w, p, lname, a);
    }
    if (rc == 0 && n > 0 && (a->npos != n || (a->nsc != 0 && a->nsc != n))) {
        rc = fail(w->d, "%s: <%s>: %u protoIndices but %u positions and %u scales", lname, w->path, n, a->npos, a->nsc);
    }
    return rc;
}

/* The local matrix of instance I: its position, orientation (identity without) and scale (1 without),
 * composed as translate, orient, scale. 0, or -1 with a message. */
static int instance_local(walk *w, const instancer_arrays *a, uint32_t i, const usd_geom_ctx *ctx, double local[16])
{
    usd_xform_op ops[3];
    memset(ops, 0, sizeof ops);
    ops[0].kind = USD_XFORM_TRANSLATE;
    ops[0].value_count = 3;
    ops[1].kind = USD_XFORM_ORIENT;
    ops[1].value_count = 4;
    ops[2].kind = USD_XFORM_SCALE;
    ops[2].value_count = 3;
    for (int k = 0; k < 3; k++) {
        ops[0].value[k] = ((const float *)a->pos)[(size_t)i * 3 + (size_t)k];
        ops[2].value[k] = a->sc != NULL && a->nsc != 0 ? ((const float *)a->sc)[(size_t)i * 3 + (size_t)k] : 1.0;
    }
    for (int k = 0; k < 4; k++) {
        ops[1].value[k] = a->orient != NULL && a->nor != 0 ? a->orient[(size_t)i * 4 + (size_t)k]
                                                           : (k == 0 ? 1.0 : 0.0);
    }
    return usd_xform_compose(ops, 3, ctx, local, NULL, w->d);
}

USD_OUT_OF_LINE static int instancer_prim(walk *w, const site_list *l, const double world[16], uint32_t depth)
{
    usd_stage *s = w->s;
    const char *lname = layer_name(s, l->v[0].layer);
    const usd_prop *rel = find_prop(l, "prototypes");
    if (rel == NULL || rel->target_count == 0) {
        return 0;
    }
    uint32_t np = rel->target_count;
    uint32_t *entry = calloc(np, sizeof *entry);
    if (entry == NULL) {
        return fail(w->d, "out of memory");
    }
    int rc = instancer_prototypes(w, rel, lname, depth, entry);
    if (rc != 0 || !w->importing) {
        free(entry);
        return rc;
    }
    instancer_arrays a = {NULL, NULL, NULL, NULL, NULL, 0, 0, 0, 0, 0};
    rc = instancer_read_arrays(w, l, lname, &a);
    char where[USD_MAX_PATH + 600];
    snprintf(where, sizeof where, "%s: <%s>", lname, w->path);
    usd_geom_ctx ctx = {where, NULL, NULL};
    for (uint32_t i = 0; i < a.n && rc == 0; i++) {
        int32_t id32 = (int32_t)i;
        if (a.ninv > 0 && bsearch(&id32, a.inv, a.ninv, sizeof(int32_t), cmp_i32) != NULL) {
            continue;
        }
        int32_t j = ((const int32_t *)a.pi)[i];
        if (j < 0 || (uint32_t)j >= np) {
            rc = fail(w->d, "%s: protoIndices[%u]: index %d out of range (%u prototypes)", where, i, j, np);
            break;
        }
        double local[16], m[16];
        rc = instance_local(w, &a, i, &ctx, local);
        if (rc == 0) {
            usd_geom_matrix_mul(world, local, m);
            rc = place_proto(w, entry[(uint32_t)j], m);
        }
    }
    free(a.pi);
    free(a.pos);
    free(a.sc);
    free(a.inv);
    free(a.orient);
    free(entry);
    return rc;
}

static int walk_typed(walk *w, site_list *l, const char *type, const double world[16], uint32_t depth);

static int walk_prim(walk *w, site_list *l, const double parent[16], uint32_t depth)
{
    usd_stage *s = w->s;
    if (l->n == 0) {
        return 0;
    }
    const int root = w->proto_root == l;
    w->proto_root = NULL;
    if (!root && l->n > l->mapped && !COMPOSED_FLAG(l, instanceable, 0)) {
        /* A prim whose own arcs bring sites: the same sites compose the
         * same prim and subtree, so each distinct set is composed and its
         * meshes imported once, however many times the stage reaches it
         * (instanceable or not; an instance's children are keyed without
         * the local opinions below). */
        XXH3_state_t st;
        XXH3_128bits_reset(&st);
        XXH3_128bits_update(&st, "prim", 5);
        key_sites(&st, s, l, 0, 1);
        return prototype(w, XXH3_128bits_digest(&st), l, PROTO_PRIM, parent, depth);
    }
    usd_specifier spec = USD_SPECIFIER_OVER;
    for (uint32_t i = 0; i < l->n && spec == USD_SPECIFIER_OVER; i++) {
        spec = l->v[i].spec->specifier;
    }
    if (spec != USD_SPECIFIER_DEF) {
        return 0; /* over only, or a class: opinions, not prims to import */
    }
    if (!COMPOSED_FLAG(l, active, 1)) {
        return 0;
    }
    char tok[64];
    int has = read_token(l, "visibility", tok, sizeof tok, w->d);
    if (has < 0) {
        return -1;
    }
    if (has > 0 && strcmp(tok, "invisible") == 0) {
        return 0;
    }
    has = read_token(l, "purpose", tok, sizeof tok, w->d);
    if (has < 0) {
        return -1;
    }
    if (has > 0 && (strcmp(tok, "proxy") == 0 || strcmp(tok, "guide") == 0)) {
        return 0;
    }
    if (!w->importing) {
        s->stats.prims++;
    }
    const char *type = composed_type(l);
    const char *lname = layer_name(s, l->v[0].layer);
    for (size_t k = 0; k < sizeof refused_types / sizeof refused_types[0]; k++) {
        if (strcmp(type, refused_types[k]) == 0) {
            if (!s->opt.skip_unsupported) {
                return fail(w->d, "%s: <%s>: %s prims are not supported (--skip-unsupported skips them)", lname,
                            w->path, type);
            }
            if (!w->importing) {
                stage_warn(s, "%s: <%s>: %s prims are not supported; skipped", lname, w->path, type);
            }
            return 0;
        }
    }
    double local[16], world[16];
    int resets = 0;
    if (prim_xform(w, l, local, &resets) != 0) {
        return -1;
    }
    if (resets) {
        memcpy(world, local, sizeof world);
    } else {
        usd_geom_matrix_mul(parent, local, world);
    }
    const int32_t inherited = w->material;
    int32_t entry = -1;
    int bound = 0;
    /* A GeomSubset's binding is its Mesh's business (mesh_subsets). */
    if (strcmp(type, "GeomSubset") != 0 && prim_binding(w, l, 1, &bound, &entry) != 0) {
        return -1;
    }
    if (bound) {
        w->material = entry;
    }
    int rc = walk_typed(w, l, type, world, depth);
    w->material = inherited;
    return rc;
}

/* What a prim of this type imports, then its children. */
static int walk_typed(walk *w, site_list *l, const char *type, const double world[16], uint32_t depth)
{
    usd_stage *s = w->s;
    const char *lname = layer_name(s, l->v[0].layer);
    if (strcmp(type, "SkelRoot") == 0 && !w->importing) {
        stage_warn(s, "%s: <%s>: skinning is ignored: the meshes under this SkelRoot are packed in their rest pose",
                   lname, w->path);
    }
    if (strcmp(type, "Mesh") == 0 && mesh_prim(w, l, world, depth) != 0) {
        return -1;
    }
    usd_shape_kind shape_kind;
    if (usd_shape_kind_parse(type, &shape_kind) == 0 && shape_prim(w, l, shape_kind, world) != 0) {
        return -1;
    }
    if (strcmp(type, "PointInstancer") == 0) {
        return instancer_prim(w, l, world, depth); /* its children are its prototypes */
    }
    if (COMPOSED_FLAG(l, instanceable, 0)) {
        uint32_t arcs = 0;
        for (uint32_t i = 0; i < l->n; i++) {
            arcs += l->v[i].local ? 0u : 1u;
        }
        if (arcs > 0) {
            XXH3_state_t st;
            XXH3_128bits_reset(&st);
            key_sites(&st, s, l, 1, 0);
            return prototype(w, XXH3_128bits_digest(&st), l, PROTO_INSTANCE_CHILDREN, world, depth);
        }
    }
    return walk_children(w, l, world, depth, 0);
}

/* ---- the stage ---------------------------------------------------------------- */

static int walk_stage(walk *w)
{
    usd_stage *s = w->s;
    site_list roots = {NULL, 0, 0, 0};
    for (uint32_t k = 0; k < s->layers[0].stack_count; k++) {
        uint32_t li = s->layers[0].stack[k];
        if (sites_add(&roots, usd_layer_get_root(s->layers[li].layer), li, 0, 1) != 0) {
            free(roots.v);
            return fail(w->d, "out of memory");
        }
    }
    snprintf(w->path, sizeof w->path, "/");
    double id[16];
    usd_geom_matrix_identity(id);
    /* One top-level subtree at a time: its sites are freed before the next. */
    int rc = walk_children(w, &roots, id, 0, 0);
    free(roots.v);
    return rc;
}

static void protos_clear(usd_stage *s)
{
    for (uint32_t i = 0; i < s->proto_count; i++) {
        free(s->protos[i].places.v);
    }
    s->proto_count = 0;
    if (s->slot_count != 0) {
        memset(s->proto_slots, 0, s->slot_count * sizeof *s->proto_slots);
    }
}

int usd_stage_open(const char *path, const usd_stage_options *opt, usd_stage **out, pk_diag *d)
{
    *out = NULL;
    double t0 = pk_seconds_now();
    usd_stage *s = calloc(1, sizeof *s);
    if (s == NULL) {
        return fail(d, "%s: out of memory", path);
    }
    if (opt != NULL) {
        s->opt = *opt;
    }
    if (pk_asset_root_for(path, s->opt.asset_root, s->opt.allow_outside_paths, &s->root, d) != 0) {
        usd_stage_close(s);
        return -1;
    }
    uint32_t root = 0;
    pk_diag ld = {{0}};
    if (layer_get(s, path, NULL, &root, &ld) != 0) {
        /* The layer's own messages name the file already. */
        if (strncmp(ld.message, "cannot open layer", 17) == 0) {
            fail(d, "%s: %s", path, ld.message);
        } else {
            *d = ld;
        }
        usd_stage_close(s);
        return -1;
    }
    if (layer_stack(s, root, d) != 0 || s->layers == NULL) {
        usd_stage_close(s);
        return -1;
    }
    const usd_layer_info *info = usd_layer_get_info(s->layers[0].layer);
    usd_up_axis up = USD_UP_Y;
    char where[PATH_MAX + 32];
    snprintf(where, sizeof where, "%s", info->name);
    usd_geom_ctx ctx = {where, NULL, NULL};
    if (usd_up_axis_parse(info->up_axis, &up) != 0) {
        fail(d, "%s: upAxis '%s' is neither Y nor Z", info->name, info->up_axis);
        usd_stage_close(s);
        return -1;
    }
    double mpu = info->meters_per_unit > 0.0 ? info->meters_per_unit : 0.01;
    if (usd_geom_stage_matrix(up, mpu, &ctx, s->stage_matrix, d) != 0) {
        usd_stage_close(s);
        return -1;
    }
    double t1 = pk_seconds_now();
    s->stats.open_seconds = t1 - t0;
    s->stats.open_peak_rss = peak_rss();
    s->shade = usd_shade_table_create();
    if (s->shade == NULL) {
        fail(d, "%s: out of memory", path);
        usd_stage_close(s);
        return -1;
    }
    walk w;
    memset(&w, 0, sizeof w);
    w.s = s;
    w.d = d;
    w.material = -1;
    if (walk_stage(&w) != 0) {
        usd_stage_close(s);
        return -1;
    }
    s->stats.placements = s->placed;
    if (s->placed > max_placements(s)) {
        fail(d, "%s: %llu placements, more than the limit of %llu (--max-placements N raises it)", layer_name(s, 0),
             (unsigned long long)s->placed, (unsigned long long)max_placements(s));
        usd_stage_close(s);
        return -1;
    }
    s->placed = 0;
    protos_clear(s);
    s->stats.prototypes = 0;
    s->stats.prototype_hits = 0;
    s->stats.compose_seconds = pk_seconds_now() - t1;
    s->stats.compose_peak_rss = peak_rss();
    *out = s;
    return 0;
}

uint32_t usd_stage_mesh_count(const usd_stage *s)
{
    return s->mesh_count;
}

int usd_stage_import(usd_stage *s, const usd_stage_sink *sink, pk_diag *d)
{
    if (s->imported) {
        return fail(d, "%s: the stage was imported already", layer_name(s, 0));
    }
    s->imported = 1;
    double t0 = pk_seconds_now();
    walk w;
    memset(&w, 0, sizeof w);
    w.s = s;
    w.d = d;
    w.importing = 1;
    w.sink = sink;
    w.material = -1;
    int rc = walk_stage(&w);
    protos_clear(s);
    s->stats.import_seconds = pk_seconds_now() - t0;
    s->stats.import_peak_rss = peak_rss();
    return rc;
}

uint32_t usd_stage_layer_count(const usd_stage *s)
{
    return s->layer_count;
}

const char *usd_stage_layer_file(const usd_stage *s, uint32_t i)
{
    return s->layers[i].file;
}

const char *usd_stage_texture_file(const usd_stage *s, uint32_t i)
{
    return usd_shade_table_file(s->shade, i);
}

void usd_stage_get_stats(const usd_stage *s, usd_stage_stats *out)
{
    *out = s->stats;
}

void usd_stage_close(usd_stage *s)
{
    if (s == NULL) {
        return;
    }
    for (uint32_t i = 0; i < s->layer_count; i++) {
        usd_layer_close(s->layers[i].layer);
        free(s->layers[i].key);
        free(s->layers[i].file);
        free(s->layers[i].stack);
    }
    free(s->layers);
    protos_clear(s);
    free(s->protos);
    free(s->proto_slots);
    usd_shade_table_free(s->shade);
    free(s);
}
