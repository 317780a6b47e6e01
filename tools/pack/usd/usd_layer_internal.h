/* SPDX-License-Identifier: MIT */
/* sluice pack: how the USD parsers (usda.c, usdc.c, usdz.c) fill a layer
 * (usd_layer.h). Not for the layer's users.
 *
 * A parser creates an empty layer, adds prims, properties, list-op items
 * and samples in file order through the usd_build_* calls, sets the value
 * hooks that convert its own value references, and calls
 * usd_layer_finish, which sorts the time samples. The arrays usd_layer.h
 * shows are valid at every step (they live in the layer's arena, 64 KiB
 * chunks never moved, and grow by doubling into a new block, the old one
 * left until close: at most twice the final size); after finish nothing
 * may be added. Every build call is O(1) amortised (names are found
 * through the layer's hash map) and fails (-1 / NULL) only when out of
 * memory (the caller then says "out of memory" and closes the
 * layer). String arguments are (pointer, length), need not be
 * NUL-terminated, and are interned. */
#ifndef SLUICE_TOOLS_PACK_USD_LAYER_INTERNAL_H
#define SLUICE_TOOLS_PACK_USD_LAYER_INTERNAL_H

#include "usd_layer.h"

/* How a parser's values convert. Each hook gets the property (for
 * messages: usd_value_fail below), the value reference the parser stored,
 * and the caller's buffer; it fails with -1 and d->message set. The
 * default/time-sample choice, the None check and the type lookup are done
 * by usd_layer.c before a hook runs: a hook sees one present value.
 * count: elements and components per element. read_num: numbers
 * flattened into out as double (dst_kind 0), float (1) or int32 (2),
 * writing at most cap and *n scalars; must fail when cap is too small.
 * read_token: element index (0 for a scalar) into buf. */
typedef struct usd_value_hooks {
    int (*count)(const usd_prop *p, const usd_value_ref *v, uint64_t *count, uint32_t *components, pk_diag *d);
    int (*read_num)(const usd_prop *p, const usd_value_ref *v, int dst_kind, void *out, size_t cap, size_t *n,
                    pk_diag *d);
    int (*read_token)(const usd_prop *p, const usd_value_ref *v, size_t index, char *buf, size_t cap, pk_diag *d);
} usd_value_hooks;

#define USD_DST_F64 0
#define USD_DST_F32 1
#define USD_DST_I32 2

/* Creates an empty layer (a pseudo-root, no metadata) over data/size,
 * which the layer does not own unless usd_layer_set_release says so.
 * name is copied. NULL when out of memory. */
usd_layer *usd_layer_create(const char *name, usd_format format, const void *data, size_t size,
                            const usd_layer_options *opt);

/* At close, release(ctx, data, size) runs (e.g. munmap), with the layer's
 * own data and size. usd_layer_open maps the file and sets this itself
 * (usd_layer_set_release_range: the whole mapping when the layer is a
 * usdz entry, a slice of it). */
void usd_layer_set_release(usd_layer *layer, void (*release)(void *ctx, const void *data, size_t size), void *ctx);

/* As usd_layer_set_release, but release gets data/size (e.g. the whole
 * mapping of a package, of which the layer reads a slice). */
void usd_layer_set_release_range(usd_layer *layer, void (*release)(void *ctx, const void *data, size_t size), void *ctx,
                                 const void *data, size_t size);

/* The bytes the layer was created over. */
const void *usd_layer_data(const usd_layer *layer, size_t *size);

/* The options given at open (never NULL: zeroed when none were). */
const usd_layer_options *usd_layer_get_options(const usd_layer *layer);

void usd_layer_set_hooks(usd_layer *layer, const usd_value_hooks *hooks);

/* Marks the layer as read from package (a .usdz path) as entry (the path
 * inside it), so usd_layer_resolve names entries of the package. */
int usd_layer_set_package(usd_layer *layer, const char *package, const char *entry);

/* Interns s[0..n): the same bytes give the same pointer. NULL when out of
 * memory. O(n) expected (hash table). */
const char *usd_layer_intern(usd_layer *layer, const char *s, size_t n);

/* Arena memory for a parser's own records, aligned to 8, zeroed, freed at
 * close. NULL when out of memory or size is absurd. */
void *usd_layer_alloc(usd_layer *layer, size_t size);

/* Layer metadata. */
int usd_build_default_prim(usd_layer *layer, const char *s, size_t n);
int usd_build_up_axis(usd_layer *layer, const char *s, size_t n);
void usd_build_meters_per_unit(usd_layer *layer, double mpu);
/* One relocate of the layer's metadata (counted; the first kept). */
int usd_build_relocate(usd_layer *layer, const char *source, size_t sn, const char *target, size_t tn);
int usd_build_sublayer(usd_layer *layer, const char *asset, size_t n);

/* The pseudo-root, to add root prims to. */
usd_prim *usd_build_root(usd_layer *layer);

/* Adds a child prim to parent (a prim or a variant node) at the end of
 * its children. type may be NULL or empty. NULL when out of memory. The
 * caller may set the tri-state fields, kind (interned) and line directly. */
usd_prim *usd_build_prim(usd_layer *layer, usd_prim *parent, const char *name, size_t name_len, usd_specifier spec,
                         const char *type, size_t type_len);

/* Finds a child of parent already added, by name (O(1) expected: every
 * name lookup goes through one hash map of the layer); NULL when absent.
 * Lets a parser refuse or merge a repeated prim. */
usd_prim *usd_build_find_child(usd_prim *parent, const char *name, size_t name_len);

/* Adds variant `variant` to set `set` of prim (the set is created on its
 * first variant, in order) and returns the variant node; a variant already
 * added is returned as it is. */
usd_prim *usd_build_variant(usd_layer *layer, usd_prim *prim, const char *set, size_t set_len, const char *variant,
                            size_t variant_len);

/* The variant `variant` of set `set` of prim already added, or NULL. O(1)
 * expected. */
usd_prim *usd_build_find_variant(usd_prim *prim, const char *set, size_t set_len, const char *variant,
                                 size_t variant_len);

/* Declares a variant set with no variants yet (a crate's variant set spec
 * before its variants; a text "variantSet" block being opened). */
int usd_build_variant_set(usd_layer *layer, usd_prim *prim, const char *set, size_t set_len);

/* Adds an entry to prim's "variants" selection dictionary (a later entry
 * for the same set replaces the earlier one). */
int usd_build_selection(usd_layer *layer, usd_prim *prim, const char *set, size_t set_len, const char *variant,
                        size_t variant_len);

/* Appends an item to part of field of prim. asset/path may be NULL (""). */
int usd_build_listop_item(usd_layer *layer, usd_prim *prim, usd_field field, usd_listop_part part, const char *asset,
                          size_t asset_len, const char *path, size_t path_len, double offset, double scale);

/* Marks the explicit part of field as set (possibly empty). */
void usd_build_listop_explicit(usd_prim *prim, usd_field field);

/* Adds a property at the end of prim's properties; type may be NULL (a
 * relationship). is_array is derived from the type name. The caller sets
 * uniform, custom, element_size, line directly, interpolation through
 * usd_layer_intern. NULL when out of memory. */
usd_prop *usd_build_prop(usd_layer *layer, usd_prim *prim, const char *name, size_t name_len, usd_prop_kind kind,
                         const char *type, size_t type_len);

/* Finds a property already added to prim (O(1) expected); NULL when absent. */
usd_prop *usd_build_find_prop(usd_prim *prim, const char *name, size_t name_len);

/* Sets the default value (has_default = 1). */
void usd_build_default(usd_prop *p, const usd_value_ref *v);

/* Appends a time sample (sorted at finish, ties kept in order). */
int usd_build_sample(usd_layer *layer, usd_prop *p, double time, const usd_value_ref *v);

/* Appends a connection / relationship target path. */
int usd_build_target(usd_layer *layer, usd_prop *p, const char *path, size_t path_len);

/* Sorts every property's samples by time (stable). Returns 0, -1 (out of
 * memory, d->message set). It walks the tree recursively: a parser must
 * have bounded the tree's depth (usda: USD_MAX_DEPTH; a crate: its own
 * checked bound), as usd_prim_path recurses the same way. O(structure +
 * samples log samples). */
int usd_layer_finish(usd_layer *layer, pk_diag *d);

/* Writes "FILE: prim </path> property 'name': " followed by fmt into
 * d->message (the prefix usdc uses; usda adds its line itself: pass
 * line > 0 to get "FILE:LINE: ...") and returns -1, so hooks can
 * `return usd_value_fail(...)`. */
int usd_value_fail(const usd_prop *p, uint32_t line, pk_diag *d, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* IEEE half to float (all values: subnormals, inf, nan). */
float usd_half_to_float(uint16_t h);

/* ---- the parsers ------------------------------------------------------ */

/* Parses text data of layer (created with USD_FORMAT_USDA) and finishes
 * it. Defined in usda.c. */
int usd_usda_parse(usd_layer *layer, pk_diag *d);

/* Parses crate data of layer (created with USD_FORMAT_USDC) and finishes
 * it. Defined in usdc.c. */
int usd_usdc_parse(usd_layer *layer, pk_diag *d);

/* Parses layer (created with format, USD_FORMAT_USDA or USD_FORMAT_USDC)
 * with the parser of its format and hands it to *out. Returns 0, or -1 with
 * the parser's d->message, the layer closed. Defined in usd_parse.c. */
int usd_layer_parse(usd_layer *layer, usd_format format, usd_layer **out, pk_diag *d);

/* Finds entry `entry` (NULL: the first entry, which must be a .usda, .usdc
 * or .usd layer: the root layer) of the usdz package data/size: *bytes and
 * *n its stored bytes (a slice of data), name its name. Returns 0, or -1
 * with d->message naming the package, the offset and the entry (a
 * compressed, encrypted or zip64 entry, a broken directory, no such
 * entry). O(entries); no allocation. Defined in usdz.c. */
int usd_usdz_find(const char *package_path, const void *data, size_t size, const char *entry, const uint8_t **bytes,
                  size_t *n, char name[USD_MAX_PATH], pk_diag *d);

/* Opens entry `entry` (NULL: the first .usda/.usdc/.usd entry, the root
 * layer) of the usdz package data/size, read from package_path (used in
 * messages and for resolution). On success *out owns nothing of data:
 * the caller hands release over with usd_layer_set_release when the
 * mapping must live as long as the layer. Defined in usdz.c. */
int usd_usdz_open(const char *package_path, const void *data, size_t size, const char *entry,
                  const usd_layer_options *opt, usd_layer **out, pk_diag *d);

#endif
