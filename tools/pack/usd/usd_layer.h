/* SPDX-License-Identifier: MIT */
/* sluice pack: one USD layer as the importer reads it (.usda text, .usdc
 * crate, or the root layer of a .usdz package), before any composition.
 *
 * A layer is parsed once, at open, into a tree of prim specs with their
 * metadata, list ops, variant sets and properties; after open it is
 * immutable. Property VALUES are lazy: the layer keeps where each value is
 * (a text span for .usda, a ValueRep for .usdc, into the mapped file or a
 * caller's memory block) and converts it only when a reader below is
 * called, so a layer costs memory in proportion to its structure (prims,
 * properties, names), not to its arrays.
 *
 * Every string the layer hands out (names, type names, paths, tokens) is
 * interned in the layer, NUL-terminated, and lives until usd_layer_close.
 * Every struct below is read-only for callers (the parsers fill them
 * through usd_layer_internal.h). A layer is not thread-safe; independent
 * layers are independent. */
#ifndef SLUICE_TOOLS_PACK_USD_LAYER_H
#define SLUICE_TOOLS_PACK_USD_LAYER_H

#include <stddef.h>
#include <stdint.h>

#include "mesh.h"

typedef struct usd_layer usd_layer;
typedef struct usd_prim usd_prim;
typedef struct usd_prop usd_prop;

/* The nesting limit of the text parser: prims, variant sets, dictionaries,
 * tuples and arrays inside each other may be at most this deep, together;
 * deeper input fails with "nesting too deep". It bounds the parser's
 * recursion, so no file can exhaust the stack. */
#define USD_MAX_DEPTH 64u

/* An identifier (prim, property, variant or namespace name) may be at most
 * this many bytes; a longer one fails with "identifier too long". */
#define USD_MAX_IDENTIFIER 1024u

/* A path or asset path written in a layer, and a path built by
 * usd_prim_path, may be at most this many bytes. */
#define USD_MAX_PATH 4096u

typedef enum usd_format {
    USD_FORMAT_UNKNOWN = 0,
    USD_FORMAT_USDA,
    USD_FORMAT_USDC,
    USD_FORMAT_USDZ,
} usd_format;

typedef enum usd_specifier {
    USD_SPECIFIER_DEF = 0,
    USD_SPECIFIER_OVER,
    USD_SPECIFIER_CLASS,
} usd_specifier;

/* The list-op fields of a prim spec. API_SCHEMAS and VARIANT_SET_NAMES
 * hold tokens: each item's path is the token, its asset is "". */
typedef enum usd_field {
    USD_FIELD_REFERENCES = 0,
    USD_FIELD_PAYLOAD,
    USD_FIELD_INHERITS,
    USD_FIELD_SPECIALIZES,
    USD_FIELD_API_SCHEMAS,
    USD_FIELD_VARIANT_SET_NAMES,
    USD_FIELD_COUNT
} usd_field;

/* The parts of a list op, kept apart as written ("add" is the legacy
 * "added" items; "reorder" is parsed and kept but never changes a result,
 * as in USD's own composition of one layer's list). */
typedef enum usd_listop_part {
    USD_LISTOP_EXPLICIT = 0,
    USD_LISTOP_PREPEND,
    USD_LISTOP_APPEND,
    USD_LISTOP_DELETE,
    USD_LISTOP_ADD,
    USD_LISTOP_REORDER,
    USD_LISTOP_PART_COUNT
} usd_listop_part;

/* One list-op item. For references and payloads: asset is the asset path
 * as written ("" for an internal reference) and path the prim path (""
 * means the target layer's defaultPrim); offset/scale are the layer offset
 * (0 and 1 when absent). For inherits and specializes: asset is "" and
 * path the class path. For tokens (apiSchemas, variantSets): path is the
 * token. Never NULL strings. */
typedef struct usd_listop_item {
    const char *asset;
    const char *path;
    double offset;
    double scale;
} usd_listop_item;

/* One list op: each part's items in file order. explicit_set says the
 * field was written without a qualifier ("references = [...]", possibly
 * an empty list or None, which makes the explicit list empty and set). */
typedef struct usd_listop {
    uint8_t explicit_set;
    uint32_t count[USD_LISTOP_PART_COUNT];
    const usd_listop_item *items[USD_LISTOP_PART_COUNT];
} usd_listop;

/* One variant set of a prim: its name and its variants, in file order;
 * each variant is a prim-like node (usd_prim with is_variant = 1, name =
 * the variant name, parent = the prim that owns the set) holding its own
 * metadata, list ops, properties, children and nested variant sets. */
typedef struct usd_variant_set {
    const char *name;
    uint32_t variant_count;
    const usd_prim *const *variants;
} usd_variant_set;

/* One entry of a prim's "variants" selection dictionary. */
typedef struct usd_variant_selection {
    const char *set;
    const char *variant;
} usd_variant_selection;

/* A prim spec (or the pseudo-root, or a variant). Tri-state metadata is -1
 * when not authored, else 0 or 1. */
struct usd_prim {
    const usd_layer *layer;
    const usd_prim *parent;  /* NULL for the pseudo-root */
    const char *name;        /* "" for the pseudo-root */
    const char *type_name;   /* "" when untyped */
    const char *kind;        /* "" when not authored */
    usd_specifier specifier; /* the pseudo-root and variants: DEF */
    uint8_t is_variant;      /* 1: a variant of a variant set of parent */
    int8_t active;
    int8_t instanceable;
    int8_t hidden;
    usd_listop listops[USD_FIELD_COUNT];
    uint32_t child_count;
    const usd_prim *const *children; /* in file order */
    uint32_t prop_count;
    const usd_prop *const *props; /* in file order */
    uint32_t variant_set_count;
    const usd_variant_set *variant_sets; /* in file order */
    uint32_t selection_count;
    const usd_variant_selection *selections;
    uint32_t line; /* usda: the line of its specifier; usdc: 0 */
};

typedef enum usd_prop_kind {
    USD_PROP_ATTRIBUTE = 0,
    USD_PROP_RELATIONSHIP,
} usd_prop_kind;

/* Where one value lives: meaningful only to the parser that made it. */
typedef struct usd_value_ref {
    uint64_t a;
    uint64_t b;
    uint32_t c;
    uint32_t flags; /* USD_VALUE_* below, the rest the parser's own */
} usd_value_ref;

/* The value is None (a blocked value): it reads as "no value". */
#define USD_VALUE_NONE 1u

typedef struct usd_time_sample {
    double time;
    usd_value_ref value;
} usd_time_sample;

/* A property spec. The default value, when has_default, and the time
 * samples (sorted by time, ties in file order) are kept as references. */
struct usd_prop {
    const usd_prim *owner;
    const char *name;      /* with namespaces: "primvars:st:indices" */
    const char *type_name; /* "point3f[]", "matrix4d", "token"; "" for relationships */
    usd_prop_kind kind;
    uint8_t is_array;          /* type_name ends with "[]" */
    uint8_t uniform;           /* declared "uniform" */
    uint8_t custom;            /* declared "custom" */
    uint8_t has_default;       /* a default value is written (None included) */
    const char *interpolation; /* "" when not authored */
    uint32_t element_size;     /* 0 when not authored */
    uint32_t sample_count;
    const usd_time_sample *samples;
    /* Connections (attribute ".connect") or relationship targets, in file
     * order (the explicit or appended/prepended items together). */
    uint32_t target_count;
    const char *const *targets;
    uint32_t line;       /* usda: the line of its declaration; usdc: 0 */
    usd_value_ref value; /* the default value (when has_default) */
};

/* Layer metadata. */
typedef struct usd_layer_info {
    usd_format format;
    const char *name;         /* the path or name the layer was opened with */
    const char *default_prim; /* "" when not authored */
    const char *up_axis;      /* "" when not authored, else "Y" / "Z" as written */
    double meters_per_unit;   /* 0 when not authored */
    uint32_t sublayer_count;
    const char *const *sublayers; /* asset paths in order (layer offsets ignored) */
    /* The .usdz file the layer was read from, or "" for a plain file. */
    const char *package;
    /* layerRelocates (USDA `relocates` in the layer's metadata, crate
     * 0.11.0's `layerRelocates`): how many, and the first source and
     * target path ("" when there is none). */
    uint32_t relocate_count;
    const char *relocate_source, *relocate_target;
} usd_layer_info;

typedef struct usd_layer_options {
    /* Called for each warning (may be NULL): an ignored construct the
     * importer cannot honour. */
    void (*warn)(void *user, const char *message);
    void *user;
} usd_layer_options;

/* ---- opening ---------------------------------------------------------- */

/* Detects the format from the first bytes: "#usda 1.0" on the first line:
 * text; "PXR-USDC": crate; "PK\3\4": a usdz package whose first .usda /
 * .usdc / .usd entry is the root layer (stored entries only; a deflated
 * one is refused naming it). O(1); no allocation. */
usd_format usd_detect_format(const void *data, size_t size);

/* Opens path: maps the file and parses its structure. A path of the form
 * "pkg.usdz[inner/layer.usdc]" opens that entry of the package. Returns 0,
 * or -1 with d->message "FILE:LINE:COL: what (in prim </path>)" (usda),
 * "FILE: offset N: what" (usdc), or "FILE: why" (unreadable, not a USD
 * file). opt may be NULL. On failure *out is NULL. Allocates in
 * proportion to the layer's structure; the mapping lives until
 * usd_layer_close. */
int usd_layer_open(const char *path, const usd_layer_options *opt, usd_layer **out, pk_diag *d);

/* As usd_layer_open, from memory the caller keeps valid and unchanged
 * until usd_layer_close (not copied). name is used in messages and to
 * resolve relative asset paths. */
int usd_layer_open_memory(const char *name, const void *data, size_t size, const usd_layer_options *opt,
                          usd_layer **out, pk_diag *d);

/* Frees everything the layer owns and unmaps its file. NULL is a no-op. */
void usd_layer_close(usd_layer *layer);

/* ---- structure -------------------------------------------------------- */

/* O(1). */
const usd_layer_info *usd_layer_get_info(const usd_layer *layer);

/* The pseudo-root: its children are the root prims. O(1). */
const usd_prim *usd_layer_get_root(const usd_layer *layer);

/* Finds a prim by absolute path "/A/B", with optional variant selections
 * "/A{v=x}B" (the prim B inside variant x of set v of A) and "/A{v=x}" (the
 * variant node itself). "/" is the pseudo-root. NULL when absent or
 * malformed. O(path length) expected. */
const usd_prim *usd_layer_find_prim(const usd_layer *layer, const char *path);

/* Child / property / variant set by name, NULL when absent. O(name length)
 * expected: the layer keeps a hash map of every name lookup. */
const usd_prim *usd_prim_find_child(const usd_prim *prim, const char *name);
const usd_prop *usd_prim_find_prop(const usd_prim *prim, const char *name);
const usd_variant_set *usd_prim_find_variant_set(const usd_prim *prim, const char *name);
const usd_prim *usd_variant_set_find(const usd_variant_set *set, const char *variant);
/* The variant selected for set in prim's "variants" dictionary, or NULL. */
const char *usd_prim_get_selection(const usd_prim *prim, const char *set);

/* Writes prim's path ("/A/B", "/A{v=x}B", "/" for the pseudo-root) into
 * buf, NUL-terminated, truncated to cap. Returns the full length (as
 * snprintf). O(depth). */
size_t usd_prim_path(const usd_prim *prim, char *buf, size_t cap);

/* ---- list ops --------------------------------------------------------- */

/* The effective list of one list op applied over a weaker list (weaker may
 * be NULL when weaker_count is 0), as USD applies list ops
 * (SdfListOp::ApplyOperations): an explicit list replaces everything;
 * otherwise deleted items are removed from the weaker list, added items not
 * yet present go after it, prepended items first and appended items last
 * (each moved from where it was), then the reorder: the items before the
 * first one it names stay first, then each item it names with the items
 * that followed it up to the next one it names. Items compare by asset and
 * path. Writes at most cap items to out and returns the full count (so a
 * caller can size out and call again; the reorder is applied when cap
 * holds them all). O((weaker + items)^2); no allocation. */
uint32_t usd_listop_apply(const usd_listop *op, const usd_listop_item *weaker, uint32_t weaker_count,
                          usd_listop_item *out, uint32_t cap);

/* Whether op authors item (in its explicit, prepended, appended or added
 * items; compared as usd_listop_apply compares). O(items); no allocation. */
int usd_listop_authors(const usd_listop *op, const usd_listop_item *item);

/* ---- values ----------------------------------------------------------- */

/* Which value a reader takes: USD_WHICH_AUTO applies the one rule "the
 * default value, else the earliest time sample" (a default of None counts
 * as no default); USD_WHICH_DEFAULT only the default; an index >= 0 the
 * time sample of that index (sorted by time). */
#define USD_WHICH_AUTO (-1)
#define USD_WHICH_DEFAULT (-2)

/* Scalar kinds of the value types. */
typedef enum usd_scalar {
    USD_SCALAR_NONE = 0, /* unknown type name, or a relationship */
    USD_SCALAR_BOOL,
    USD_SCALAR_UCHAR,
    USD_SCALAR_INT,
    USD_SCALAR_UINT,
    USD_SCALAR_INT64,
    USD_SCALAR_UINT64,
    USD_SCALAR_HALF,
    USD_SCALAR_FLOAT,
    USD_SCALAR_DOUBLE,
    USD_SCALAR_TIMECODE,
    USD_SCALAR_TOKEN,
    USD_SCALAR_STRING,
    USD_SCALAR_ASSET,
    USD_SCALAR_DICTIONARY,
    USD_SCALAR_OTHER, /* a known type the readers cannot convert (opaque, pathExpression ...) */
} usd_scalar;

/* The element type of a type name ("point3f[]" -> FLOAT, 3; "matrix4d" ->
 * DOUBLE, 16; "quath" -> HALF, 4, read as real, i, j, k: the order text
 * layers write, to which the crate reader turns its stored i, j, k, real;
 * "texCoord2f" -> FLOAT, 2; "token[]" -> TOKEN, 1). Role names (point,
 * normal, vector, color, texCoord, frame) map to their base type.
 * *is_array (may be NULL) is set for a trailing "[]". Returns the scalar
 * kind, USD_SCALAR_NONE for an unknown name (*components then 0). O(name). */
usd_scalar usd_type_scalar(const char *type_name, uint32_t *components, int *is_array);

/* Whether the prop has a value under which (no value: no default and no
 * sample, a None default under USD_WHICH_DEFAULT, an index past the
 * samples). O(1). */
int usd_prop_has_value(const usd_prop *p, int which);

/* The number of elements of the value and the scalar components of each
 * (a scalar float3: 1 and 3; point3f[] of N points: N and 3; matrix4d[]:
 * N and 16). Returns 0, or -1 with d->message naming the file, the prim
 * path, the property and the line (usda) or byte offset (usdc): no value,
 * malformed value, a count the bytes cannot hold. usda: scans the value's
 * text, O(value bytes); usdc: O(1) for most values. No allocation. */
int usd_prop_value_count(const usd_prop *p, int which, uint64_t *count, uint32_t *components, pk_diag *d);

/* Reads a numeric value (bool, integers, half, float, double, timecode,
 * scalars, vectors, quaternions, matrices, or arrays of them) flattened and
 * converted, into out[0 .. cap). *n (may be NULL) receives the number of
 * scalars written (count * components). Fails (-1, d->message as above)
 * when there is no value, it is not numeric, it is malformed, or cap is
 * below count * components (nothing is then promised about out). usda
 * parses the text straight into out, no intermediate copy; O(value
 * bytes). No allocation beyond what the crate's compressed arrays need. */
int usd_prop_read_f64(const usd_prop *p, int which, double *out, size_t cap, size_t *n, pk_diag *d);
int usd_prop_read_f32(const usd_prop *p, int which, float *out, size_t cap, size_t *n, pk_diag *d);

/* As read_f64 for int, uint, int64, uchar (and bool) values and arrays, as
 * int32: a value outside int32 fails naming it. */
int usd_prop_read_i32(const usd_prop *p, int which, int32_t *out, size_t cap, size_t *n, pk_diag *d);

/* A token, string or asset scalar (index must be 0), or element index of
 * a token/string/asset array, into buf (NUL-terminated; the asset path
 * without its @ delimiters, a string with escapes decoded). Fails (-1) on
 * no value, another type, index out of range, or a value longer than cap
 * - 1 bytes (named with its length). O(value bytes). No allocation. */
int usd_prop_read_token(const usd_prop *p, int which, size_t index, char *buf, size_t cap, pk_diag *d);

/* A bool scalar (also an int scalar: non-zero is true) into *out (0/1). */
int usd_prop_read_bool(const usd_prop *p, int which, int *out, pk_diag *d);

/* ---- asset paths ------------------------------------------------------ */

/* Resolves an asset path written in layer to the path usd_layer_open
 * takes: relative paths ("./x.usd", "x.usd", "../x.usd") against the
 * layer's folder; absolute paths unchanged; inside a usdz package, a
 * relative path names an entry of that package: "pkg.usdz[dir/x.usdc]".
 * Returns the full length (truncated to cap as snprintf), 0 for an empty
 * asset path. O(length); no allocation. */
size_t usd_layer_resolve(const usd_layer *layer, const char *asset_path, char *out, size_t cap);

/* 1 when asset_path names a USD layer by its extension (.usd, .usda, .usdc
 * or .usdz, in any case; for a package entry "pkg.usdz[dir/x.usdc]", the
 * entry's), else 0: a MaterialX document, an image, a file with no
 * extension. The extension is what USD picks a file format by. O(length). */
int usd_is_layer_asset(const char *asset_path);

/* An asset a layer names that is not a layer (a texture), mapped read
 * only: bytes/size the asset's, map/map_size the whole file's. */
typedef struct usd_asset {
    const void *bytes;
    size_t size;
    const void *map;
    size_t map_size;
} usd_asset;

/* Maps the file at resolved (usd_layer_resolve's form), or for
 * "pkg.usdz[entry]" the package, whose stored entry is then the asset.
 * Returns 0, or -1 with d->message naming the file (and the entry) and why:
 * it cannot be opened or mapped, is not a package, or the entry is not
 * there or not stored (usdz.c's refusals). *out is zeroed on failure.
 * O(entries); maps the file. Free with usd_asset_unmap. */
int usd_asset_map(const char *resolved, usd_asset *out, pk_diag *d);
void usd_asset_unmap(usd_asset *a);

/* A prim path as USD anchors a relative one (a relationship's target
 * "<Protos/Box>" or "<../Src>", relative to the prim that owns it): an
 * absolute path ("/A/B") is copied; a relative one is appended to anchor
 * (an absolute prim path), "." naming the anchor and ".." its parent.
 * Returns the length written to out (NUL-terminated), or 0 when the path
 * climbs above the root, is empty, or does not fit in cap. O(length). */
size_t usd_path_anchor(const char *anchor, const char *path, char *out, size_t cap);

#endif
