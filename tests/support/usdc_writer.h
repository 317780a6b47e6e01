/* SPDX-License-Identifier: MIT */
/* A minimal USD crate (.usdc) writer for tests: tokens, strings, fields,
 * field sets, the compressed path tree, specs, inlined values, uncompressed
 * and compressed int/float arrays, vectors, list ops (connections and
 * relationship targets among them), time samples. Tests build the
 * files they read with it; it checks nothing and is not part of the packer.
 *
 * Usage: usdcw_create, add paths (usdcw_child), values (usdcw_* returning a
 * ValueRep), specs and their fields in order (usdcw_spec then usdcw_field),
 * then usdcw_finish for the bytes. Everything is freed by usdcw_free. */
#ifndef SLUICE_TESTS_USDC_WRITER_H
#define SLUICE_TESTS_USDC_WRITER_H

#include <stddef.h>
#include <stdint.h>

typedef struct usdc_writer usdc_writer;

/* Crate value types (CrateDataTypes) the tests use. */
enum {
    USDCW_BOOL = 1,
    USDCW_UCHAR = 2,
    USDCW_INT = 3,
    USDCW_UINT = 4,
    USDCW_INT64 = 5,
    USDCW_UINT64 = 6,
    USDCW_HALF = 7,
    USDCW_FLOAT = 8,
    USDCW_DOUBLE = 9,
    USDCW_STRING = 10,
    USDCW_TOKEN = 11,
    USDCW_ASSET = 12,
    USDCW_MATRIX2D = 13,
    USDCW_MATRIX3D = 14,
    USDCW_MATRIX4D = 15,
    USDCW_QUATD = 16,
    USDCW_QUATF = 17,
    USDCW_QUATH = 18,
    USDCW_VEC2F = 20,
    USDCW_VEC3D = 23,
    USDCW_VEC3F = 24,
    USDCW_VEC3H = 25,
    USDCW_VEC3I = 26,
    USDCW_VEC4F = 28,
    USDCW_DICTIONARY = 31,
    USDCW_TOKEN_LISTOP = 32,
    USDCW_STRING_LISTOP = 33,
    USDCW_PATH_LISTOP = 34,
    USDCW_REFERENCE_LISTOP = 35,
    USDCW_PATH_VECTOR = 40,
    USDCW_TOKEN_VECTOR = 41,
    USDCW_SPECIFIER = 42,
    USDCW_VARIABILITY = 44,
    USDCW_VARIANT_SELECTION_MAP = 45,
    USDCW_TIME_SAMPLES = 46,
    USDCW_PAYLOAD = 47,
    USDCW_DOUBLE_VECTOR = 48,
    USDCW_STRING_VECTOR = 50,
    USDCW_VALUE_BLOCK = 51,
    USDCW_PAYLOAD_LISTOP = 55,
    USDCW_RELOCATES = 58, /* 0.11.0 */
};

/* SdfSpecType. */
enum {
    USDCW_SPEC_ATTRIBUTE = 1,
    USDCW_SPEC_PRIM = 6,
    USDCW_SPEC_PSEUDO_ROOT = 7,
    USDCW_SPEC_RELATIONSHIP = 8,
    USDCW_SPEC_VARIANT = 10,
    USDCW_SPEC_VARIANT_SET = 11,
};

/* List-op parts (the header bits). */
enum {
    USDCW_LIST_EXPLICIT = 2,
    USDCW_LIST_ADDED = 4,
    USDCW_LIST_DELETED = 8,
    USDCW_LIST_ORDERED = 16,
    USDCW_LIST_PREPENDED = 32,
    USDCW_LIST_APPENDED = 64,
};

#define USDCW_ROOT 0u

usdc_writer *usdcw_create(uint8_t major, uint8_t minor, uint8_t patch);
void usdcw_free(usdc_writer *w);

uint32_t usdcw_token(usdc_writer *w, const char *s);
uint32_t usdcw_string(usdc_writer *w, const char *s);

/* A path: parent's index, the element ("B", "{v=x}", or a property name
 * with is_prop). The root "/" is USDCW_ROOT. */
uint32_t usdcw_child(usdc_writer *w, uint32_t parent, const char *elem, int is_prop);

/* Value reps. */
uint64_t usdcw_rep(unsigned type, int array, int inlined, int compressed, uint64_t payload);
uint64_t usdcw_token_rep(usdc_writer *w, const char *s);  /* inlined token */
uint64_t usdcw_string_rep(usdc_writer *w, const char *s); /* inlined string */
uint64_t usdcw_asset_rep(usdc_writer *w, const char *s);  /* inlined asset path */
uint64_t usdcw_double_rep(usdc_writer *w, double v);      /* written out (not inlined) */
uint64_t usdcw_float_rep(float v);                        /* inlined */
/* A vector of n floats (USDCW_VEC2F, VEC3F, VEC4F: a colour, a scale),
 * written out (not inlined). */
uint64_t usdcw_vec_rep(usdc_writer *w, unsigned type, const float *v, size_t n);

/* Raw bytes at the current end of the value area (8-aligned); returns the
 * offset. */
uint64_t usdcw_bytes(usdc_writer *w, const void *data, size_t n);

/* An array of n elements of type (raw element bytes, elem_size each):
 * count then the bytes, uncompressed. */
uint64_t usdcw_array(usdc_writer *w, unsigned type, const void *elems, uint64_t n, size_t elem_size);
/* An int32 array; compressed when n >= 16 and compress. */
uint64_t usdcw_int_array(usdc_writer *w, const int32_t *v, uint64_t n, int compress);
/* A float array: mode 0 uncompressed, 'i' as compressed integers, 't' as a
 * lookup table (the values must allow it; n >= 16 for 'i'/'t'). */
uint64_t usdcw_float_array(usdc_writer *w, const float *v, uint64_t n, int mode);
/* A token array (xformOpOrder). */
uint64_t usdcw_token_array(usdc_writer *w, const char *const *v, uint64_t n);
/* TokenVector / StringVector (primChildren, subLayers). */
uint64_t usdcw_token_vector(usdc_writer *w, const char *const *v, uint64_t n);
uint64_t usdcw_string_vector(usdc_writer *w, const char *const *v, uint64_t n);

/* A list op. For path/token/string list ops items[i] is a path index /
 * token string / string; for references and payloads refs[i] (asset,
 * prim path index, offset, scale). Each part is given by its bit: parts
 * lists (bit, first item, count) triples ending with bit 0. */
typedef struct usdcw_ref {
    const char *asset;
    uint32_t path;
    double offset;
    double scale;
} usdcw_ref;
typedef struct usdcw_part {
    unsigned bit;
    uint32_t first;
    uint32_t count;
} usdcw_part;
uint64_t usdcw_listop(usdc_writer *w, unsigned type, int is_explicit, const usdcw_part *parts, const uint32_t *paths,
                      const char *const *strs, const usdcw_ref *refs);
/* An explicit path list op of one path: an attribute's connectionPaths
 * (`.connect = <path>`), a relationship's targetPaths (`rel r = <path>`). */
uint64_t usdcw_path_rep(usdc_writer *w, uint32_t path);
/* A single payload (the pre-list-op form). */
uint64_t usdcw_payload(usdc_writer *w, const usdcw_ref *ref);

uint64_t usdcw_selection_map(usdc_writer *w, const char *const *pairs, uint64_t n);
uint64_t usdcw_time_samples(usdc_writer *w, const double *times, const uint64_t *reps, uint64_t n);

/* In the open prim spec of path: its "primChildren" and "properties"
 * fields (each when not empty), the names of the prims and properties
 * under path so far in the order they were added, as USD writes them. */
void usdcw_child_fields(usdc_writer *w, uint32_t path);

/* Starts a spec; following usdcw_field calls belong to it. */
void usdcw_spec(usdc_writer *w, uint32_t path, unsigned spec_type);
void usdcw_field(usdc_writer *w, const char *name, uint64_t rep);

/* Replaces a section's generated bytes by data (for tests of lying files). */
void usdcw_override_section(usdc_writer *w, const char *name, const void *data, size_t n);

/* The integer coding the crate uses, then LZ4 with the chunk prefix,
 * preceded by the u64 compressed size: writes to out (cap bytes) and
 * returns the bytes written. */
size_t usdcw_compress_ints(const uint32_t *v, size_t n, uint8_t *out, size_t cap);

/* Lays out the sections and the table of contents. *out is owned by the
 * writer. Returns 0, -1 when out of memory. */
int usdcw_finish(usdc_writer *w, const uint8_t **out, size_t *size);

/* After finish: where section name lies (0 when absent). */
int usdcw_section(const usdc_writer *w, const char *name, uint64_t *start, uint64_t *size);

#endif
