/* SPDX-License-Identifier: MIT */
/* sluice pack: the USD layer container (usd_layer.h): arena, interned
 * strings, the build calls the parsers use, lookups, list ops, value
 * readers (which value, type checks, then the parser's hook), format
 * detection and asset path resolution. Opening is usd_open.c. */
#define _POSIX_C_SOURCE 200809L
#define _FILE_OFFSET_BITS 64

#include "usd_layer_internal.h"

#include "asset.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- arena ------------------------------------------------------------ */

#define ARENA_CHUNK ((size_t)64 * 1024)

typedef struct arena_chunk {
    struct arena_chunk *next;
    size_t used, cap;
    /* data follows, 8-aligned */
} arena_chunk;

/* A prim as the builder keeps it: the public part first, so a usd_prim *
 * is a prim_x *. */
typedef struct prim_x {
    usd_prim pub;
    const char *set_name; /* a variant: the name of its variant set */
} prim_x;

struct usd_layer {
    usd_layer_info info;
    usd_layer_options opt;
    const void *data;
    size_t size;
    void (*release)(void *ctx, const void *data, size_t size);
    void *release_ctx;
    const void *release_data; /* what release gets: the whole mapping, of which data may be a slice */
    size_t release_size;
    const usd_value_hooks *hooks;
    const char *entry; /* inside a package: the entry path, else "" */
    arena_chunk *chunks;
    /* intern table: open addressing, power-of-two size */
    const char **strings;
    uint32_t *string_len;
    size_t string_cap, string_count;
    prim_x root;
    int finished;
    /* name lookups: (kind, owner, name, name2) -> value, open addressing */
    struct map_entry *map;
    size_t map_cap, map_count;
};

/* ---- the name map ----------------------------------------------------- */

/* Every name lookup the builders and the accessors make (a prim's child,
 * property, variant set, variant or selection by name) goes through one
 * hash map keyed by interned pointers, so a prim with a million children
 * or properties costs O(1) per lookup, not a scan. */
enum { MAP_CHILD = 1, MAP_PROP, MAP_VSET, MAP_VARIANT, MAP_SEL };

typedef struct map_entry {
    const void *owner;
    const char *a, *b;
    void *value;  /* children, properties, variants */
    size_t index; /* variant sets and selections: 1 + their index */
    uint32_t kind;
} map_entry;

static size_t map_hash(uint32_t kind, const void *owner, const char *a, const char *b)
{
    uint64_t h = (uint64_t)(uintptr_t)owner * 0x9E3779B97F4A7C15ull;
    h ^= (uint64_t)(uintptr_t)a * 0xC2B2AE3D27D4EB4Full + kind;
    h ^= (uint64_t)(uintptr_t)b * 0x165667B19E3779F9ull;
    h ^= h >> 29;
    return (size_t)h;
}

static map_entry *map_slot(map_entry *map, size_t cap, uint32_t kind, const void *owner, const char *a, const char *b)
{
    size_t j = map_hash(kind, owner, a, b) & (cap - 1u);
    while (map[j].kind && !(map[j].kind == kind && map[j].owner == owner && map[j].a == a && map[j].b == b))
        j = (j + 1u) & (cap - 1u);
    return &map[j];
}

static const map_entry *map_find(const usd_layer *L, uint32_t kind, const void *owner, const char *a, const char *b)
{
    if (!L->map_cap || !a)
        return NULL;
    const map_entry *e = map_slot(L->map, L->map_cap, kind, owner, a, b);
    return e->kind ? e : NULL;
}

static void *map_get(const usd_layer *L, uint32_t kind, const void *owner, const char *a, const char *b)
{
    const map_entry *e = map_find(L, kind, owner, a, b);
    return e ? e->value : NULL;
}

/* 1 + the index stored for the key, or 0 when absent. */
static size_t map_index(const usd_layer *L, uint32_t kind, const void *owner, const char *a)
{
    const map_entry *e = map_find(L, kind, owner, a, NULL);
    return e ? e->index : 0;
}

static int map_put(usd_layer *L, uint32_t kind, const void *owner, const char *a, const char *b, void *value,
                   size_t index)
{
    if ((L->map_count + 1u) * 2u > L->map_cap) {
        size_t ncap = L->map_cap ? L->map_cap * 2u : 256u;
        map_entry *n = calloc(ncap, sizeof *n);
        if (!n)
            return -1;
        for (size_t i = 0; i < L->map_cap; i++)
            if (L->map[i].kind)
                *map_slot(n, ncap, L->map[i].kind, L->map[i].owner, L->map[i].a, L->map[i].b) = L->map[i];
        free(L->map);
        L->map = n;
        L->map_cap = ncap;
    }
    map_entry *e = map_slot(L->map, L->map_cap, kind, owner, a, b);
    if (!e->kind)
        L->map_count++;
    e->kind = kind;
    e->owner = owner;
    e->a = a;
    e->b = b;
    e->value = value;
    e->index = index;
    return 0;
}

void *usd_layer_alloc(usd_layer *L, size_t size)
{
    if (size > SIZE_MAX / 2 - sizeof(arena_chunk) - 8)
        return NULL;
    size = (size + 7u) & ~(size_t)7u;
    arena_chunk *c = L->chunks;
    if (!c || c->cap - c->used < size) {
        size_t cap = size > ARENA_CHUNK / 4 ? size : ARENA_CHUNK;
        arena_chunk *n = malloc(sizeof(arena_chunk) + 8 + cap);
        if (!n)
            return NULL;
        n->used = 0;
        n->cap = cap;
        if (size > ARENA_CHUNK / 4 && c) {
            /* a large block: keep the current chunk current */
            n->next = c->next;
            c->next = n;
            n->used = size;
            void *p = (char *)(n + 1) + ((8u - sizeof(arena_chunk) % 8u) % 8u);
            memset(p, 0, size);
            return p;
        }
        n->next = c;
        L->chunks = n;
        c = n;
    }
    void *p = (char *)(c + 1) + ((8u - sizeof(arena_chunk) % 8u) % 8u) + c->used;
    c->used += size;
    memset(p, 0, size);
    return p;
}

/* Appends one element of elem bytes to the arena array *arr of *count
 * elements: the capacity is implicit (0, then 4, then doubling at each
 * power of two), so no field holds it. Returns the new element or NULL. */
static void *vec_push(usd_layer *L, void *arr_ptr, uint32_t *count, size_t elem)
{
    void **arr = (void **)arr_ptr;
    uint32_t c = *count;
    if (c == UINT32_MAX)
        return NULL;
    if (c == 0 || (c >= 4 && (c & (c - 1)) == 0)) {
        size_t ncap = c == 0 ? 4u : (size_t)c * 2u;
        if (ncap > SIZE_MAX / elem)
            return NULL;
        void *n = usd_layer_alloc(L, ncap * elem);
        if (!n)
            return NULL;
        if (c)
            memcpy(n, *arr, (size_t)c * elem);
        *arr = n;
    }
    *count = c + 1;
    return (char *)*arr + (size_t)c * elem;
}

/* ---- strings ---------------------------------------------------------- */

static uint64_t hash_bytes(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ull;
    }
    return h;
}

static int intern_grow(usd_layer *L)
{
    size_t ncap = L->string_cap ? L->string_cap * 2u : 256u;
    const char **ns = calloc(ncap, sizeof *ns);
    uint32_t *nl = calloc(ncap, sizeof *nl);
    if (!ns || !nl) {
        free(ns);
        free(nl);
        return -1;
    }
    for (size_t i = 0; i < L->string_cap; i++) {
        const char *s = L->strings[i];
        if (!s)
            continue;
        size_t j = (size_t)hash_bytes(s, L->string_len[i]) & (ncap - 1u);
        while (ns[j])
            j = (j + 1u) & (ncap - 1u);
        ns[j] = s;
        nl[j] = L->string_len[i];
    }
    free(L->strings);
    free(L->string_len);
    L->strings = ns;
    L->string_len = nl;
    L->string_cap = ncap;
    return 0;
}

const char *usd_layer_intern(usd_layer *L, const char *s, size_t n)
{
    if (!s) {
        s = "";
        n = 0;
    }
    if (n > UINT32_MAX - 1u)
        return NULL;
    if ((L->string_count + 1u) * 2u > L->string_cap && intern_grow(L) != 0)
        return NULL;
    size_t mask = L->string_cap - 1u;
    size_t j = (size_t)hash_bytes(s, n) & mask;
    while (L->strings[j]) {
        if (L->string_len[j] == n && memcmp(L->strings[j], s, n) == 0)
            return L->strings[j];
        j = (j + 1u) & mask;
    }
    char *copy = usd_layer_alloc(L, n + 1u);
    if (!copy)
        return NULL;
    if (n)
        memcpy(copy, s, n);
    copy[n] = '\0';
    L->strings[j] = copy;
    L->string_len[j] = (uint32_t)n;
    L->string_count++;
    return copy;
}

/* The interned copy of s[0..n), or NULL when the layer never interned it
 * (then no name of the layer equals it). Read-only. */
static const char *intern_find(const usd_layer *L, const char *s, size_t n)
{
    if (!L->string_cap)
        return NULL;
    size_t mask = L->string_cap - 1u;
    size_t j = (size_t)hash_bytes(s, n) & mask;
    while (L->strings[j]) {
        if (L->string_len[j] == n && memcmp(L->strings[j], s, n) == 0)
            return L->strings[j];
        j = (j + 1u) & mask;
    }
    return NULL;
}

/* ---- creation and build calls ---------------------------------------- */

usd_layer *usd_layer_create(const char *name, usd_format format, const void *data, size_t size,
                            const usd_layer_options *opt)
{
    usd_layer *L = calloc(1, sizeof *L);
    if (!L)
        return NULL;
    L->data = data;
    L->size = size;
    if (opt)
        L->opt = *opt;
    L->info.format = format;
    const char *empty = usd_layer_intern(L, "", 0);
    L->info.name = usd_layer_intern(L, name ? name : "", name ? strlen(name) : 0);
    if (!empty || !L->info.name) {
        usd_layer_close(L);
        return NULL;
    }
    L->info.default_prim = empty;
    L->info.up_axis = empty;
    L->info.package = empty;
    L->info.relocate_source = empty;
    L->info.relocate_target = empty;
    L->entry = empty;
    L->root.pub.layer = L;
    L->root.pub.name = empty;
    L->root.pub.type_name = empty;
    L->root.pub.kind = empty;
    L->root.pub.active = -1;
    L->root.pub.instanceable = -1;
    L->root.pub.hidden = -1;
    L->root.set_name = empty;
    return L;
}

void usd_layer_set_release(usd_layer *L, void (*release)(void *ctx, const void *data, size_t size), void *ctx)
{
    L->release = release;
    L->release_ctx = ctx;
    L->release_data = L->data;
    L->release_size = L->size;
}

void usd_layer_set_release_range(usd_layer *L, void (*release)(void *ctx, const void *data, size_t size), void *ctx,
                                 const void *data, size_t size)
{
    L->release = release;
    L->release_ctx = ctx;
    L->release_data = data;
    L->release_size = size;
}

const void *usd_layer_data(const usd_layer *L, size_t *size)
{
    if (size)
        *size = L->size;
    return L->data;
}

const usd_layer_options *usd_layer_get_options(const usd_layer *L)
{
    return &L->opt;
}

void usd_layer_set_hooks(usd_layer *L, const usd_value_hooks *hooks)
{
    L->hooks = hooks;
}

int usd_layer_set_package(usd_layer *L, const char *package, const char *entry)
{
    const char *p = usd_layer_intern(L, package, strlen(package));
    const char *e = usd_layer_intern(L, entry, strlen(entry));
    if (!p || !e)
        return -1;
    L->info.package = p;
    L->entry = e;
    return 0;
}

int usd_build_default_prim(usd_layer *L, const char *s, size_t n)
{
    const char *v = usd_layer_intern(L, s, n);
    if (!v)
        return -1;
    L->info.default_prim = v;
    return 0;
}

int usd_build_up_axis(usd_layer *L, const char *s, size_t n)
{
    const char *v = usd_layer_intern(L, s, n);
    if (!v)
        return -1;
    L->info.up_axis = v;
    return 0;
}

void usd_build_meters_per_unit(usd_layer *L, double mpu)
{
    L->info.meters_per_unit = mpu;
}

int usd_build_relocate(usd_layer *L, const char *source, size_t sn, const char *target, size_t tn)
{
    if (L->info.relocate_count++ > 0) {
        return 0;
    }
    const char *s = usd_layer_intern(L, source, sn), *t = usd_layer_intern(L, target, tn);
    if (!s || !t)
        return -1;
    L->info.relocate_source = s;
    L->info.relocate_target = t;
    return 0;
}

int usd_build_sublayer(usd_layer *L, const char *asset, size_t n)
{
    const char *v = usd_layer_intern(L, asset, n);
    if (!v)
        return -1;
    const char **slot = vec_push(L, &L->info.sublayers, &L->info.sublayer_count, sizeof *slot);
    if (!slot)
        return -1;
    *slot = v;
    return 0;
}

usd_prim *usd_build_root(usd_layer *L)
{
    return &L->root.pub;
}

static prim_x *new_prim(usd_layer *L, usd_prim *parent, const char *name, size_t name_len)
{
    prim_x *x = usd_layer_alloc(L, sizeof *x);
    const char *empty = usd_layer_intern(L, "", 0);
    if (!x || !empty)
        return NULL;
    x->pub.layer = L;
    x->pub.parent = parent;
    x->pub.name = usd_layer_intern(L, name, name_len);
    if (!x->pub.name)
        return NULL;
    x->pub.type_name = empty;
    x->pub.kind = empty;
    x->pub.active = -1;
    x->pub.instanceable = -1;
    x->pub.hidden = -1;
    x->set_name = empty;
    return x;
}

usd_prim *usd_build_prim(usd_layer *L, usd_prim *parent, const char *name, size_t name_len, usd_specifier spec,
                         const char *type, size_t type_len)
{
    prim_x *x = new_prim(L, parent, name, name_len);
    if (!x)
        return NULL;
    x->pub.specifier = spec;
    if (type && type_len) {
        x->pub.type_name = usd_layer_intern(L, type, type_len);
        if (!x->pub.type_name)
            return NULL;
    }
    const usd_prim **slot = vec_push(L, &parent->children, &parent->child_count,
                                     sizeof *slot); /* NOLINT(bugprone-sizeof-expression): an array of pointers */
    if (!slot || map_put(L, MAP_CHILD, parent, x->pub.name, NULL, x, 0) != 0)
        return NULL;
    *slot = &x->pub;
    return &x->pub;
}

static int name_eq(const char *a, const char *b, size_t bn)
{
    return strlen(a) == bn && memcmp(a, b, bn) == 0;
}

usd_prim *usd_build_find_child(usd_prim *parent, const char *name, size_t name_len)
{
    const usd_layer *L = parent->layer;
    return map_get(L, MAP_CHILD, parent, intern_find(L, name, name_len), NULL);
}

static usd_variant_set *find_set(usd_prim *prim, const char *set, size_t set_len)
{
    const usd_layer *L = prim->layer;
    size_t i = map_index(L, MAP_VSET, prim, intern_find(L, set, set_len));
    return i ? (usd_variant_set *)&prim->variant_sets[i - 1u] : NULL;
}

usd_prim *usd_build_find_variant(usd_prim *prim, const char *set, size_t set_len, const char *variant,
                                 size_t variant_len)
{
    const usd_layer *L = prim->layer;
    const char *s = intern_find(L, set, set_len);
    const char *v = intern_find(L, variant, variant_len);
    return s && v ? map_get(L, MAP_VARIANT, prim, s, v) : NULL;
}

int usd_build_variant_set(usd_layer *L, usd_prim *prim, const char *set, size_t set_len)
{
    if (find_set(prim, set, set_len))
        return 0;
    const char *name = usd_layer_intern(L, set, set_len);
    if (!name)
        return -1;
    usd_variant_set *vs = vec_push(L, &prim->variant_sets, &prim->variant_set_count, sizeof *vs);
    if (!vs || map_put(L, MAP_VSET, prim, name, NULL, NULL, prim->variant_set_count) != 0)
        return -1;
    vs->name = name;
    return 0;
}

usd_prim *usd_build_variant(usd_layer *L, usd_prim *prim, const char *set, size_t set_len, const char *variant,
                            size_t variant_len)
{
    if (usd_build_variant_set(L, prim, set, set_len) != 0)
        return NULL;
    usd_variant_set *vs = find_set(prim, set, set_len);
    usd_prim *old = usd_build_find_variant(prim, set, set_len, variant, variant_len);
    if (old)
        return old;
    prim_x *x = new_prim(L, prim, variant, variant_len);
    if (!x || map_put(L, MAP_VARIANT, prim, vs->name, x->pub.name, x, 0) != 0)
        return NULL;
    x->pub.is_variant = 1;
    x->set_name = vs->name;
    const usd_prim **slot = vec_push(L, &vs->variants, &vs->variant_count,
                                     sizeof *slot); /* NOLINT(bugprone-sizeof-expression): an array of pointers */
    if (!slot)
        return NULL;
    *slot = &x->pub;
    return &x->pub;
}

int usd_build_selection(usd_layer *L, usd_prim *prim, const char *set, size_t set_len, const char *variant,
                        size_t variant_len)
{
    const char *s = usd_layer_intern(L, set, set_len);
    const char *v = usd_layer_intern(L, variant, variant_len);
    if (!s || !v)
        return -1;
    size_t i = map_index(L, MAP_SEL, prim, s);
    if (i) {
        ((usd_variant_selection *)prim->selections)[i - 1u].variant = v;
        return 0;
    }
    usd_variant_selection *e = vec_push(L, &prim->selections, &prim->selection_count, sizeof *e);
    if (!e || map_put(L, MAP_SEL, prim, s, NULL, NULL, prim->selection_count) != 0)
        return -1;
    e->set = s;
    e->variant = v;
    return 0;
}

int usd_build_listop_item(usd_layer *L, usd_prim *prim, usd_field field, usd_listop_part part, const char *asset,
                          size_t asset_len, const char *path, size_t path_len, double offset, double scale)
{
    const char *a = usd_layer_intern(L, asset, asset ? asset_len : 0);
    const char *p = usd_layer_intern(L, path, path ? path_len : 0);
    if (!a || !p)
        return -1;
    usd_listop *op = &prim->listops[field];
    usd_listop_item *it = vec_push(L, &op->items[part], &op->count[part], sizeof *it);
    if (!it)
        return -1;
    it->asset = a;
    it->path = p;
    it->offset = offset;
    it->scale = scale;
    if (part == USD_LISTOP_EXPLICIT)
        op->explicit_set = 1;
    return 0;
}

void usd_build_listop_explicit(usd_prim *prim, usd_field field)
{
    prim->listops[field].explicit_set = 1;
}

usd_prop *usd_build_prop(usd_layer *L, usd_prim *prim, const char *name, size_t name_len, usd_prop_kind kind,
                         const char *type, size_t type_len)
{
    usd_prop *p = usd_layer_alloc(L, sizeof *p);
    const char *empty = usd_layer_intern(L, "", 0);
    if (!p || !empty)
        return NULL;
    p->owner = prim;
    p->kind = kind;
    p->name = usd_layer_intern(L, name, name_len);
    p->type_name = usd_layer_intern(L, type, type ? type_len : 0);
    if (!p->name || !p->type_name)
        return NULL;
    p->interpolation = empty;
    size_t tl = type ? type_len : 0;
    p->is_array = tl >= 2 && type[tl - 2] == '[' && type[tl - 1] == ']';
    const usd_prop **slot = vec_push(L, &prim->props, &prim->prop_count,
                                     sizeof *slot); /* NOLINT(bugprone-sizeof-expression): an array of pointers */
    if (!slot || map_put(L, MAP_PROP, prim, p->name, NULL, p, 0) != 0)
        return NULL;
    *slot = p;
    return p;
}

usd_prop *usd_build_find_prop(usd_prim *prim, const char *name, size_t name_len)
{
    const usd_layer *L = prim->layer;
    return map_get(L, MAP_PROP, prim, intern_find(L, name, name_len), NULL);
}

void usd_build_default(usd_prop *p, const usd_value_ref *v)
{
    p->has_default = 1;
    p->value = *v;
}

int usd_build_sample(usd_layer *L, usd_prop *p, double time, const usd_value_ref *v)
{
    usd_time_sample *s = vec_push(L, &p->samples, &p->sample_count, sizeof *s);
    if (!s)
        return -1;
    s->time = time;
    s->value = *v;
    return 0;
}

int usd_build_target(usd_layer *L, usd_prop *p, const char *path, size_t path_len)
{
    const char *v = usd_layer_intern(L, path, path_len);
    if (!v)
        return -1;
    const char **slot = vec_push(L, &p->targets, &p->target_count, sizeof *slot);
    if (!slot)
        return -1;
    *slot = v;
    return 0;
}

/* Stable merge sort of samples by time (nan last, as they compare
 * unordered), through a temporary of the same size. */
static int sort_samples(usd_time_sample *s, uint32_t n)
{
    int sorted = 1;
    for (uint32_t i = 1; i < n && sorted; i++)
        if (!(s[i - 1].time <= s[i].time))
            sorted = 0;
    if (sorted)
        return 0;
    usd_time_sample *tmp = malloc((size_t)n * sizeof *tmp);
    if (!tmp)
        return -1;
    for (uint32_t w = 1; w < n; w *= 2) {
        for (uint32_t lo = 0; lo < n; lo += 2 * w) {
            uint32_t mid = lo + w < n ? lo + w : n;
            uint32_t hi = lo + 2 * w < n ? lo + 2 * w : n;
            uint32_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) {
                /* take the right one only when strictly earlier */
                if (s[j].time < s[i].time || (s[i].time != s[i].time && s[j].time == s[j].time))
                    tmp[k++] = s[j++];
                else
                    tmp[k++] = s[i++];
            }
            while (i < mid)
                tmp[k++] = s[i++];
            while (j < hi)
                tmp[k++] = s[j++];
        }
        memcpy(s, tmp, (size_t)n * sizeof *s);
        if (w > UINT32_MAX / 2)
            break;
    }
    free(tmp);
    return 0;
}

static int finish_prim(const usd_prim *p, unsigned depth)
{
    for (uint32_t i = 0; i < p->prop_count; i++) {
        usd_prop *q = (usd_prop *)p->props[i];
        if (sort_samples((usd_time_sample *)q->samples, q->sample_count) != 0)
            return -1;
    }
    /* depth is bounded by the parsers (USD_MAX_DEPTH); the crate's tree is
     * checked acyclic by usdc.c. */
    for (uint32_t i = 0; i < p->child_count; i++)
        if (finish_prim(p->children[i], depth + 1) != 0)
            return -1;
    for (uint32_t s = 0; s < p->variant_set_count; s++)
        for (uint32_t v = 0; v < p->variant_sets[s].variant_count; v++)
            if (finish_prim(p->variant_sets[s].variants[v], depth + 1) != 0)
                return -1;
    return 0;
}

int usd_layer_finish(usd_layer *L, pk_diag *d)
{
    if (finish_prim(&L->root.pub, 0) != 0) {
        snprintf(d->message, sizeof d->message, "%s: out of memory", L->info.name);
        return -1;
    }
    L->finished = 1;
    return 0;
}

/* ---- close ------------------------------------------------------------ */

void usd_layer_close(usd_layer *L)
{
    if (!L)
        return;
    if (L->release)
        L->release(L->release_ctx, L->release_data, L->release_size);
    arena_chunk *c = L->chunks;
    while (c) {
        arena_chunk *n = c->next;
        free(c);
        c = n;
    }
    free(L->strings);
    free(L->string_len);
    free(L->map);
    free(L);
}

/* ---- lookups ---------------------------------------------------------- */

const usd_layer_info *usd_layer_get_info(const usd_layer *L)
{
    return &L->info;
}

const usd_prim *usd_layer_get_root(const usd_layer *L)
{
    return &L->root.pub;
}

static const usd_prim *child_n(const usd_prim *prim, const char *name, size_t n)
{
    return usd_build_find_child((usd_prim *)prim, name, n);
}

static const usd_prim *variant_n(const usd_prim *prim, const char *set, size_t sn, const char *var, size_t vn)
{
    return usd_build_find_variant((usd_prim *)prim, set, sn, var, vn);
}

const usd_prim *usd_layer_find_prim(const usd_layer *L, const char *path)
{
    if (!path || path[0] != '/')
        return NULL;
    const usd_prim *cur = &L->root.pub;
    const char *s = path + 1;
    while (*s) {
        if (*s == '/') {
            if (cur->is_variant || cur == &L->root.pub || s[1] == '/' || s[1] == '\0')
                return NULL; /* "//", "{v=x}/" or a trailing '/' */
            s++;
            continue;
        }
        if (*s == '{') {
            if (cur == &L->root.pub)
                return NULL;
            const char *eq = strchr(s, '=');
            const char *close = strchr(s, '}');
            if (!eq || !close || eq > close)
                return NULL;
            cur = variant_n(cur, s + 1, (size_t)(eq - s - 1), eq + 1, (size_t)(close - eq - 1));
            if (!cur)
                return NULL;
            s = close + 1;
            continue;
        }
        size_t n = strcspn(s, "/{}");
        if (n == 0)
            return NULL;
        if (cur != &L->root.pub && !cur->is_variant && s[-1] != '/')
            return NULL;
        cur = child_n(cur, s, n);
        if (!cur)
            return NULL;
        s += n;
    }
    return cur;
}

const usd_prim *usd_prim_find_child(const usd_prim *prim, const char *name)
{
    return child_n(prim, name, strlen(name));
}

const usd_prop *usd_prim_find_prop(const usd_prim *prim, const char *name)
{
    return usd_build_find_prop((usd_prim *)prim, name, strlen(name));
}

const usd_variant_set *usd_prim_find_variant_set(const usd_prim *prim, const char *name)
{
    return find_set((usd_prim *)prim, name, strlen(name));
}

const usd_prim *usd_variant_set_find(const usd_variant_set *set, const char *variant)
{
    if (!set->variant_count)
        return NULL;
    const usd_prim *owner = set->variants[0]->parent;
    return variant_n(owner, set->name, strlen(set->name), variant, strlen(variant));
}

const char *usd_prim_get_selection(const usd_prim *prim, const char *set)
{
    const usd_layer *L = prim->layer;
    size_t i = map_index(L, MAP_SEL, prim, intern_find(L, set, strlen(set)));
    return i ? prim->selections[i - 1u].variant : NULL;
}

/* Appends s to buf at *len (counting past cap as snprintf does). */
static void put(char *buf, size_t cap, size_t *len, const char *s)
{
    size_t n = strlen(s);
    if (*len < cap) {
        size_t room = cap - *len - 1u;
        memcpy(buf + *len, s, n < room ? n : room);
    }
    *len += n;
}

static void path_into(const usd_prim *p, char *buf, size_t cap, size_t *len)
{
    if (!p->parent)
        return;
    path_into(p->parent, buf, cap, len);
    if (p->is_variant) {
        put(buf, cap, len, "{");
        put(buf, cap, len, ((const prim_x *)p)->set_name);
        put(buf, cap, len, "=");
        put(buf, cap, len, p->name);
        put(buf, cap, len, "}");
        return;
    }
    if (!p->parent->is_variant)
        put(buf, cap, len, "/");
    put(buf, cap, len, p->name);
}

size_t usd_prim_path(const usd_prim *prim, char *buf, size_t cap)
{
    size_t len = 0;
    if (!prim->parent)
        put(buf, cap, &len, "/");
    else
        path_into(prim, buf, cap, &len);
    if (cap)
        buf[len < cap ? len : cap - 1u] = '\0';
    return len;
}

/* ---- list ops --------------------------------------------------------- */

static int item_eq(const usd_listop_item *a, const usd_listop_item *b)
{
    return strcmp(a->asset, b->asset) == 0 && strcmp(a->path, b->path) == 0;
}

/* 1 when it equals one of list[0 .. n). */
static int item_in(const usd_listop_item *list, uint32_t n, const usd_listop_item *it)
{
    for (uint32_t j = 0; j < n; j++)
        if (item_eq(&list[j], it))
            return 1;
    return 0;
}

/* Appends it to out while there is room; counts it either way. */
static void item_put(usd_listop_item *out, uint32_t cap, uint32_t *total, const usd_listop_item *it)
{
    if (*total < cap)
        out[*total] = *it;
    (*total)++;
}

/* Reverses out[a .. b). */
static void items_reverse(usd_listop_item *out, uint32_t a, uint32_t b)
{
    while (a + 1u < b) {
        usd_listop_item t = out[a];
        out[a++] = out[--b];
        out[b] = t;
    }
}

/* USD's reorder: the items before the first one the order names stay first;
 * then, for each item the order names (first mention), that item and the
 * items after it up to the next one the order names. In place, by rotations:
 * out[pos ..) is always whole chunks. */
static void items_reorder(usd_listop_item *out, uint32_t n, const usd_listop_item *ord, uint32_t nord)
{
    uint32_t pos = 0;
    while (pos < n && !item_in(ord, nord, &out[pos]))
        pos++;
    for (uint32_t k = 0; k < nord && pos < n; k++) {
        if (item_in(ord, k, &ord[k]))
            continue; /* named twice: its first mention placed it */
        uint32_t i = pos;
        while (i < n && !item_eq(&out[i], &ord[k]))
            i++;
        if (i == n)
            continue; /* not in the list */
        uint32_t e = i + 1u;
        while (e < n && !item_in(ord, nord, &out[e]))
            e++;
        /* rotate out[pos .. e) so that out[i .. e) comes first */
        items_reverse(out, pos, i);
        items_reverse(out, i, e);
        items_reverse(out, pos, e);
        pos += e - i;
    }
}

uint32_t usd_listop_apply(const usd_listop *op, const usd_listop_item *weaker, uint32_t weaker_count,
                          usd_listop_item *out, uint32_t cap)
{
    /* As USD applies a list op (SdfListOp::ApplyOperations): an explicit
     * list replaces; otherwise delete, add (at the end, when not present),
     * prepend (moved or put first), append (moved or put last), then
     * reorder. So: prepended (deduplicated), then the weaker list without
     * the deleted and prepended/appended ones, then added items not already
     * present, then appended, then the reorder. No allocation: membership
     * is tested against the inputs themselves. */
    uint32_t total = 0;
    if (op->explicit_set) {
        const usd_listop_item *e = op->items[USD_LISTOP_EXPLICIT];
        for (uint32_t i = 0; i < op->count[USD_LISTOP_EXPLICIT]; i++)
            if (!item_in(e, i, &e[i]))
                item_put(out, cap, &total, &e[i]);
        return total;
    }
    const usd_listop_item *pre = op->items[USD_LISTOP_PREPEND];
    uint32_t npre = op->count[USD_LISTOP_PREPEND];
    const usd_listop_item *del = op->items[USD_LISTOP_DELETE];
    uint32_t ndel = op->count[USD_LISTOP_DELETE];
    const usd_listop_item *app = op->items[USD_LISTOP_APPEND];
    uint32_t napp = op->count[USD_LISTOP_APPEND];
    const usd_listop_item *add = op->items[USD_LISTOP_ADD];
    uint32_t nadd = op->count[USD_LISTOP_ADD];

    for (uint32_t i = 0; i < npre; i++)
        if (!item_in(pre, i, &pre[i]))
            item_put(out, cap, &total, &pre[i]);
    for (uint32_t i = 0; i < weaker_count; i++) {
        const usd_listop_item *it = &weaker[i];
        if (!item_in(del, ndel, it) && !item_in(pre, npre, it) && !item_in(app, napp, it) && !item_in(weaker, i, it))
            item_put(out, cap, &total, it);
    }
    for (uint32_t i = 0; i < nadd; i++) {
        const usd_listop_item *it = &add[i];
        int present = item_in(pre, npre, it) || item_in(app, napp, it) || item_in(add, i, it);
        /* A weaker item counts as present unless the op deletes it. */
        for (uint32_t j = 0; j < weaker_count && !present; j++)
            present = !item_in(del, ndel, &weaker[j]) && item_eq(&weaker[j], it);
        if (!present)
            item_put(out, cap, &total, it);
    }
    /* Appended items go last, each once: a later duplicate wins (as USD
     * keeps the last of an appended list's duplicates). */
    for (uint32_t i = 0; i < napp; i++)
        if (!item_in(pre, npre, &app[i]) && !item_in(app + i + 1u, napp - i - 1u, &app[i]))
            item_put(out, cap, &total, &app[i]);
    if (op->count[USD_LISTOP_REORDER] > 0 && total <= cap)
        items_reorder(out, total, op->items[USD_LISTOP_REORDER], op->count[USD_LISTOP_REORDER]);
    return total;
}

int usd_listop_authors(const usd_listop *op, const usd_listop_item *item)
{
    static const usd_listop_part parts[] = {USD_LISTOP_EXPLICIT, USD_LISTOP_PREPEND, USD_LISTOP_APPEND, USD_LISTOP_ADD};
    for (size_t p = 0; p < sizeof parts / sizeof parts[0]; p++)
        if (item_in(op->items[parts[p]], op->count[parts[p]], item))
            return 1;
    return 0;
}

/* ---- types ------------------------------------------------------------ */

typedef struct type_row {
    const char *name;
    usd_scalar scalar;
    uint32_t components;
} type_row;

static const type_row k_types[] = {
    {"bool", USD_SCALAR_BOOL, 1},
    {"uchar", USD_SCALAR_UCHAR, 1},
    {"int", USD_SCALAR_INT, 1},
    {"uint", USD_SCALAR_UINT, 1},
    {"int64", USD_SCALAR_INT64, 1},
    {"uint64", USD_SCALAR_UINT64, 1},
    {"half", USD_SCALAR_HALF, 1},
    {"float", USD_SCALAR_FLOAT, 1},
    {"double", USD_SCALAR_DOUBLE, 1},
    {"timecode", USD_SCALAR_TIMECODE, 1},
    {"string", USD_SCALAR_STRING, 1},
    {"token", USD_SCALAR_TOKEN, 1},
    {"asset", USD_SCALAR_ASSET, 1},
    {"dictionary", USD_SCALAR_DICTIONARY, 1},
    {"matrix2d", USD_SCALAR_DOUBLE, 4},
    {"matrix3d", USD_SCALAR_DOUBLE, 9},
    {"matrix4d", USD_SCALAR_DOUBLE, 16},
    {"frame4d", USD_SCALAR_DOUBLE, 16},
    {"quath", USD_SCALAR_HALF, 4},
    {"quatf", USD_SCALAR_FLOAT, 4},
    {"quatd", USD_SCALAR_DOUBLE, 4},
    {"opaque", USD_SCALAR_OTHER, 1},
    {"pathExpression", USD_SCALAR_OTHER, 1},
    /* Legacy names Sdf still reads (older files, some exporters): each is
     * the modern type of the same values. */
    {"Vec2i", USD_SCALAR_INT, 2},
    {"Vec2h", USD_SCALAR_HALF, 2},
    {"Vec2f", USD_SCALAR_FLOAT, 2},
    {"Vec2d", USD_SCALAR_DOUBLE, 2},
    {"Vec3i", USD_SCALAR_INT, 3},
    {"Vec3h", USD_SCALAR_HALF, 3},
    {"Vec3f", USD_SCALAR_FLOAT, 3},
    {"Vec3d", USD_SCALAR_DOUBLE, 3},
    {"Vec4i", USD_SCALAR_INT, 4},
    {"Vec4h", USD_SCALAR_HALF, 4},
    {"Vec4f", USD_SCALAR_FLOAT, 4},
    {"Vec4d", USD_SCALAR_DOUBLE, 4},
    {"Point", USD_SCALAR_DOUBLE, 3},
    {"PointFloat", USD_SCALAR_FLOAT, 3},
    {"Normal", USD_SCALAR_DOUBLE, 3},
    {"NormalFloat", USD_SCALAR_FLOAT, 3},
    {"Vector", USD_SCALAR_DOUBLE, 3},
    {"VectorFloat", USD_SCALAR_FLOAT, 3},
    {"Color", USD_SCALAR_DOUBLE, 3},
    {"ColorFloat", USD_SCALAR_FLOAT, 3},
    {"Quath", USD_SCALAR_HALF, 4},
    {"Quatf", USD_SCALAR_FLOAT, 4},
    {"Quatd", USD_SCALAR_DOUBLE, 4},
    {"Matrix2d", USD_SCALAR_DOUBLE, 4},
    {"Matrix3d", USD_SCALAR_DOUBLE, 9},
    {"Matrix4d", USD_SCALAR_DOUBLE, 16},
    {"Frame", USD_SCALAR_DOUBLE, 16},
    {"Transform", USD_SCALAR_DOUBLE, 16},
    {"PointIndex", USD_SCALAR_INT, 1},
    {"EdgeIndex", USD_SCALAR_INT, 1},
    {"FaceIndex", USD_SCALAR_INT, 1},
    {"Schema", USD_SCALAR_TOKEN, 1},
};

/* Vector types: a base name, then the component count, then h/f/d/i. */
static const char *const k_roles[] = {"int",    "half",   "float", "double",  "point",
                                      "normal", "vector", "color", "texCoord"};

usd_scalar usd_type_scalar(const char *type_name, uint32_t *components, int *is_array)
{
    size_t n = strlen(type_name);
    int arr = n >= 2 && type_name[n - 2] == '[' && type_name[n - 1] == ']';
    if (arr)
        n -= 2;
    if (is_array)
        *is_array = arr;
    uint32_t dummy;
    if (!components)
        components = &dummy;
    *components = 0;
    for (size_t i = 0; i < sizeof k_types / sizeof k_types[0]; i++)
        if (name_eq(k_types[i].name, type_name, n)) {
            *components = k_types[i].components;
            return k_types[i].scalar;
        }
    for (size_t r = 0; r < sizeof k_roles / sizeof k_roles[0]; r++) {
        size_t rl = strlen(k_roles[r]);
        if (n < rl + 1 || memcmp(type_name, k_roles[r], rl) != 0)
            continue;
        char digit = type_name[rl];
        if (digit < '2' || digit > '4')
            continue;
        uint32_t c = (uint32_t)(digit - '0');
        usd_scalar sc;
        if (r <= 3) {
            /* int2, half3, float4, double2: no suffix */
            if (n != rl + 1)
                continue;
            sc = r == 0 ? USD_SCALAR_INT : r == 1 ? USD_SCALAR_HALF : r == 2 ? USD_SCALAR_FLOAT : USD_SCALAR_DOUBLE;
        } else {
            if (n != rl + 2)
                continue;
            char suf = type_name[rl + 1];
            if (suf == 'h')
                sc = USD_SCALAR_HALF;
            else if (suf == 'f')
                sc = USD_SCALAR_FLOAT;
            else if (suf == 'd')
                sc = USD_SCALAR_DOUBLE;
            else
                continue;
            /* point/normal/vector are 3 only; texCoord 2 or 3; color 3 or 4 */
            if (r <= 6 && c != 3)
                continue;
            if (r == 7 && c == 2)
                continue;
            if (r == 8 && c == 4)
                continue;
        }
        *components = c;
        return sc;
    }
    return USD_SCALAR_NONE;
}

float usd_half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h >> 15) << 31;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t man = h & 0x3ffu;
    uint32_t bits;
    if (exp == 0) {
        if (man == 0) {
            bits = sign;
        } else {
            /* subnormal: normalise */
            int e = -1;
            do {
                e++;
                man <<= 1;
            } while (!(man & 0x400u));
            bits = sign | ((uint32_t)(127 - 15 - e) << 23) | ((man & 0x3ffu) << 13);
        }
    } else if (exp == 31) {
        bits = sign | 0x7f800000u | (man << 13);
    } else {
        bits = sign | ((exp + 127u - 15u) << 23) | (man << 13);
    }
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* ---- value readers ---------------------------------------------------- */

int usd_value_fail(const usd_prop *p, uint32_t line, pk_diag *d, const char *fmt, ...)
{
    char what[384];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap); /* NOLINT(clang-analyzer-valist.Uninitialized): va_start is just above */
    va_end(ap);
    char path[256];
    usd_prim_path(p->owner, path, sizeof path);
    const char *file = p->owner->layer->info.name;
    /* formatted whole, then cut to the message's size */
    char full[1024];
    if (line)
        snprintf(full, sizeof full, "%s:%u: property '%s': %s (in prim <%s>)", file, line, p->name, what, path);
    else
        snprintf(full, sizeof full, "%s: property '%s': %s (in prim <%s>)", file, p->name, what, path);
    size_t n = strlen(full);
    if (n >= sizeof d->message)
        n = sizeof d->message - 1u;
    memcpy(d->message, full, n);
    d->message[n] = '\0';
    return -1;
}

static const usd_value_ref *pick(const usd_prop *p, int which)
{
    if (which == USD_WHICH_AUTO) {
        if (p->has_default && !(p->value.flags & USD_VALUE_NONE))
            return &p->value;
        if (p->sample_count && !(p->samples[0].value.flags & USD_VALUE_NONE))
            return &p->samples[0].value;
        return NULL;
    }
    if (which == USD_WHICH_DEFAULT)
        return p->has_default && !(p->value.flags & USD_VALUE_NONE) ? &p->value : NULL;
    if (which >= 0 && (uint32_t)which < p->sample_count && !(p->samples[which].value.flags & USD_VALUE_NONE))
        return &p->samples[which].value;
    return NULL;
}

static const char *which_name(int which, char *buf, size_t cap)
{
    if (which == USD_WHICH_AUTO)
        return "no default value and no time sample";
    if (which == USD_WHICH_DEFAULT)
        return "no default value";
    snprintf(buf, cap, "no time sample %d", which);
    return buf;
}

static uint32_t value_line(const usd_prop *p, const usd_value_ref *v)
{
    /* the text parser keeps a value's line in c; the crate keeps 0 lines */
    return p->owner->layer->info.format == USD_FORMAT_USDA && v ? v->c : p->line;
}

static const usd_value_ref *pick_or_fail(const usd_prop *p, int which, pk_diag *d)
{
    const usd_value_ref *v = pick(p, which);
    if (!v) {
        char buf[48];
        usd_value_fail(p, p->line, d, "%s", which_name(which, buf, sizeof buf));
        return NULL;
    }
    if (!p->owner->layer->hooks) {
        usd_value_fail(p, p->line, d, "values of this layer are not readable");
        return NULL;
    }
    return v;
}

int usd_prop_has_value(const usd_prop *p, int which)
{
    return pick(p, which) != NULL;
}

int usd_prop_value_count(const usd_prop *p, int which, uint64_t *count, uint32_t *components, pk_diag *d)
{
    const usd_value_ref *v = pick_or_fail(p, which, d);
    if (!v)
        return -1;
    uint64_t c = 0;
    uint32_t k = 0;
    if (p->owner->layer->hooks->count(p, v, &c, &k, d) != 0)
        return -1;
    if (count)
        *count = c;
    if (components)
        *components = k;
    return 0;
}

static int read_num(const usd_prop *p, int which, int dst, void *out, size_t cap, size_t *n, pk_diag *d)
{
    if (n)
        *n = 0;
    if (p->kind == USD_PROP_RELATIONSHIP)
        return usd_value_fail(p, p->line, d, "a relationship has no numeric value");
    usd_scalar sc = usd_type_scalar(p->type_name, NULL, NULL);
    if (sc < USD_SCALAR_BOOL || sc > USD_SCALAR_TIMECODE)
        return usd_value_fail(p, p->line, d, "type '%s' is not numeric", p->type_name);
    const usd_value_ref *v = pick_or_fail(p, which, d);
    if (!v)
        return -1;
    size_t got = 0;
    if (p->owner->layer->hooks->read_num(p, v, dst, out, cap, &got, d) != 0)
        return -1;
    if (n)
        *n = got;
    (void)value_line;
    return 0;
}

int usd_prop_read_f64(const usd_prop *p, int which, double *out, size_t cap, size_t *n, pk_diag *d)
{
    return read_num(p, which, USD_DST_F64, out, cap, n, d);
}

int usd_prop_read_f32(const usd_prop *p, int which, float *out, size_t cap, size_t *n, pk_diag *d)
{
    return read_num(p, which, USD_DST_F32, out, cap, n, d);
}

int usd_prop_read_i32(const usd_prop *p, int which, int32_t *out, size_t cap, size_t *n, pk_diag *d)
{
    if (p->kind == USD_PROP_ATTRIBUTE) {
        usd_scalar sc = usd_type_scalar(p->type_name, NULL, NULL);
        if (sc != USD_SCALAR_BOOL && sc != USD_SCALAR_UCHAR && sc != USD_SCALAR_INT && sc != USD_SCALAR_UINT &&
            sc != USD_SCALAR_INT64 && sc != USD_SCALAR_UINT64)
            return usd_value_fail(p, p->line, d, "type '%s' is not an integer type", p->type_name);
    }
    return read_num(p, which, USD_DST_I32, out, cap, n, d);
}

int usd_prop_read_token(const usd_prop *p, int which, size_t index, char *buf, size_t cap, pk_diag *d)
{
    if (cap)
        buf[0] = '\0';
    usd_scalar sc = usd_type_scalar(p->type_name, NULL, NULL);
    if (p->kind == USD_PROP_RELATIONSHIP ||
        (sc != USD_SCALAR_TOKEN && sc != USD_SCALAR_STRING && sc != USD_SCALAR_ASSET))
        return usd_value_fail(p, p->line, d, "type '%s' is not a token, string or asset", p->type_name);
    if (!p->is_array && index != 0)
        return usd_value_fail(p, p->line, d, "element %zu of a scalar", index);
    const usd_value_ref *v = pick_or_fail(p, which, d);
    if (!v)
        return -1;
    return p->owner->layer->hooks->read_token(p, v, index, buf, cap, d);
}

int usd_prop_read_bool(const usd_prop *p, int which, int *out, pk_diag *d)
{
    usd_scalar sc = usd_type_scalar(p->type_name, NULL, NULL);
    if (p->kind == USD_PROP_RELATIONSHIP || p->is_array ||
        (sc != USD_SCALAR_BOOL && sc != USD_SCALAR_INT && sc != USD_SCALAR_UINT && sc != USD_SCALAR_UCHAR &&
         sc != USD_SCALAR_INT64 && sc != USD_SCALAR_UINT64))
        return usd_value_fail(p, p->line, d, "type '%s' is not a bool", p->type_name);
    double v = 0;
    size_t n = 0;
    if (read_num(p, which, USD_DST_F64, &v, 1, &n, d) != 0)
        return -1;
    *out = v != 0;
    return 0;
}

/* ---- format and opening ----------------------------------------------- */

usd_format usd_detect_format(const void *data, size_t size)
{
    const unsigned char *b = data;
    if (size >= 8 && memcmp(b, "PXR-USDC", 8) == 0)
        return USD_FORMAT_USDC;
    if (size >= 4 && memcmp(b, "PK\3\4", 4) == 0)
        return USD_FORMAT_USDZ;
    if (size >= 6 && memcmp(b, "#usda", 5) == 0 && (b[5] == ' ' || b[5] == '\t'))
        return USD_FORMAT_USDA;
    return USD_FORMAT_UNKNOWN;
}

/* ---- asset paths ------------------------------------------------------ */

/* Joins dir (up to and including its last '/', or empty) and rel,
 * collapsing "./" and "x/../" components; a ".." above the start is kept. */
static size_t join_norm(const char *dir, size_t dir_len, const char *rel, char *out, size_t cap)
{
    char tmp[2 * USD_MAX_PATH + 2];
    size_t rl = strlen(rel);
    if (dir_len + rl + 1u > sizeof tmp)
        return (size_t)snprintf(out, cap, "%.*s%s", (int)dir_len, dir, rel);
    memcpy(tmp, dir, dir_len);
    memcpy(tmp + dir_len, rel, rl + 1u);
    /* normalise in place into res */
    char res[sizeof tmp];
    size_t len = 0;
    const char *s = tmp;
    int absolute = tmp[0] == '/';
    if (absolute) {
        res[len++] = '/';
        s++;
    }
    size_t keep = len; /* res[0..keep) cannot be climbed above */
    while (*s) {
        size_t n = strcspn(s, "/");
        if (n == 1 && s[0] == '.') {
            /* skip */
        } else if (n == 2 && s[0] == '.' && s[1] == '.') {
            if (len > keep) {
                /* drop the last component */
                size_t e = len - 1u; /* res[len-1] is '/' */
                while (e > keep && res[e - 1u] != '/')
                    e--;
                len = e;
            } else {
                memcpy(res + len, "../", 3);
                len += 3;
                keep = len;
            }
        } else if (n > 0) {
            memcpy(res + len, s, n);
            len += n;
            if (s[n] == '/')
                res[len++] = '/';
        }
        s += n;
        if (*s == '/')
            s++;
    }
    if (len > 1 && res[len - 1] == '/' && rel[rl ? rl - 1u : 0] != '/')
        len--;
    res[len] = '\0';
    return (size_t)snprintf(out, cap, "%s", res);
}

int usd_is_layer_asset(const char *asset)
{
    size_t n = strlen(asset);
    const char *start = asset;
    const char *open = strchr(asset, '[');
    if (open != NULL && n > 0 && asset[n - 1] == ']') {
        start = open + 1; /* the package entry's own name */
        n--;
    } else if (open != NULL) {
        n = (size_t)(open - asset);
    }
    const char *end = asset + n;
    const char *dot = NULL;
    for (const char *c = start; c < end; c++) {
        if (*c == '.') {
            dot = c;
        } else if (*c == '/') {
            dot = NULL;
        }
    }
    if (dot == NULL) {
        return 0;
    }
    static const char *const ext[] = {"usd", "usda", "usdc", "usdz"};
    size_t el = (size_t)(end - dot - 1);
    for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++) {
        size_t k = 0;
        while (k < el && ext[i][k] != '\0' && tolower((unsigned char)dot[1 + k]) == ext[i][k]) {
            k++;
        }
        if (k == el && ext[i][k] == '\0') {
            return 1;
        }
    }
    return 0;
}

size_t usd_path_anchor(const char *anchor, const char *path, char *out, size_t cap)
{
    return path[0] == '\0' ? 0 : pk_path_join(anchor, path, 1, out, cap);
}

size_t usd_layer_resolve(const usd_layer *L, const char *asset, char *out, size_t cap)
{
    if (cap)
        out[0] = '\0';
    if (!asset || !asset[0])
        return 0;
    if (L->info.package[0]) {
        if (asset[0] == '/')
            return (size_t)snprintf(out, cap, "%s", asset);
        const char *slash = strrchr(L->entry, '/');
        size_t dl = slash ? (size_t)(slash - L->entry) + 1u : 0;
        char inner[USD_MAX_PATH];
        join_norm(L->entry, dl, asset, inner, sizeof inner);
        return (size_t)snprintf(out, cap, "%s[%s]", L->info.package, inner);
    }
    if (asset[0] == '/')
        return (size_t)snprintf(out, cap, "%s", asset);
    const char *name = L->info.name;
    const char *slash = strrchr(name, '/');
    size_t dl = slash ? (size_t)(slash - name) + 1u : 0;
    return join_norm(name, dl, asset, out, cap);
}
