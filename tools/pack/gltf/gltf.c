/* SPDX-License-Identifier: MIT */
/* sluice pack: the glTF 2.0 importer.
 *
 * gltf_open reads the JSON (from a .gltf, or a GLB's JSON chunk), checks
 * every field and index the later calls follow, decodes data: URIs, opens
 * the external buffer files and walks the node hierarchy into instances;
 * the JSON tree is freed before it returns. gltf_load_mesh then reads only
 * the byte ranges its accessors name, through one fixed scratch buffer, and
 * allocates only the mesh it returns (plus, for a strip or a fan, the raw
 * index list it converts). No buffer is ever read whole; a view compressed
 * with EXT_/KHR_meshopt_compression is read and decoded whole
 * (gltf_meshopt.c) when first read, and kept within a bound (view_bytes).
 *
 * Two kinds of failure: corrupt or inconsistent data is always an error;
 * what the importer cannot read (Draco, points and lines, a buffer
 * file that cannot be opened) is an error too, or with skip_unsupported a
 * warning and the primitive is skipped. */
#define _POSIX_C_SOURCE 200809L
#define _FILE_OFFSET_BITS 64

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include <cjson/cJSON.h>

#include "asset.h"
#include "gltf.h"
#include "gltf_meshopt.h"
#include "image.h"
#include "material.h"

#define GL_NONE UINT32_MAX
#define GL_SCRATCH_BYTES (64u * 1024u)
#define GL_SPARSE_CHUNK 256u
#define GL_MAX_SAFE_INT 9007199254740992.0 /* 2^53: a JSON number is a double */

enum { CT_I8 = 5120, CT_U8 = 5121, CT_I16 = 5122, CT_U16 = 5123, CT_U32 = 5125, CT_F32 = 5126 };
enum { T_SCALAR = 1, T_VEC2, T_VEC3, T_VEC4, T_MAT2, T_MAT3, T_MAT4 };
static const char *const type_names[] = {"?", "SCALAR", "VEC2", "VEC3", "VEC4", "MAT2", "MAT3", "MAT4"};

#define GLB_MAGIC 0x46546C67u /* "glTF" */
#define GLB_JSON 0x4E4F534Au  /* "JSON" */
#define GLB_BIN 0x004E4942u   /* "BIN\0" */

#define EXT_DRACO "KHR_draco_mesh_compression"
#define EXT_MESHOPT "EXT_meshopt_compression"
#define KHR_MESHOPT "KHR_meshopt_compression"
#define EXT_INSTANCING "EXT_mesh_gpu_instancing"

enum buf_state { BUF_FILE, BUF_DATA, BUF_MISSING, BUF_NODATA };

typedef struct gl_buffer {
    char *uri;           /* as written, for messages ("" when absent) */
    char *path;          /* BUF_FILE: the file */
    FILE *file;          /* BUF_FILE: open, or NULL until needed again */
    uint64_t base;       /* where the buffer starts in the file (a GLB's BIN chunk) */
    uint64_t length;     /* byteLength, no more than the file or the data holds */
    unsigned char *data; /* BUF_DATA: the decoded data: URI */
    enum buf_state state;
    char why[256]; /* BUF_MISSING: why it cannot be read */
} gl_buffer;

typedef struct gl_view {
    uint32_t buffer;
    uint32_t stride;         /* 0: tightly packed */
    uint64_t offset, length; /* inside the buffer, checked at open */
    const char *compression; /* EXT_MESHOPT or KHR_MESHOPT when present */
    gltf_meshopt mo;         /* compression != NULL: its extension object */
    unsigned char *decoded;  /* compression != NULL: its mo.size decoded bytes, or NULL */
    uint64_t last_use;       /* decoded: when it was last read (the scene's use_clock) */
} gl_view;

typedef struct gl_accessor {
    uint32_t view; /* GL_NONE: zeros (then the sparse values) */
    uint32_t count;
    uint64_t offset;
    uint16_t ctype;
    uint8_t type;
    uint8_t normalized;
    uint32_t sparse_count; /* 0: not sparse */
    uint32_t sparse_index_view, sparse_value_view;
    uint64_t sparse_index_offset, sparse_value_offset;
    uint16_t sparse_index_ctype;
} gl_accessor;

typedef struct gl_prim {
    uint32_t position, normal, texcoord, indices; /* accessors, or GL_NONE */
    uint32_t material;                            /* or GL_NONE */
    uint8_t mode;
    uint8_t draco;
} gl_prim;

/* Where an image's bytes are: a file, a decoded data: URI, or a
 * bufferView (at most one is set; none for an image with no data). */
typedef struct gl_image {
    char name[64];       /* its name, else its file's name, else "" */
    char *path;          /* the file its uri names, or NULL */
    unsigned char *data; /* a data: URI's decoded bytes, or NULL */
    size_t data_size;
    uint32_t view; /* GL_NONE, or its bufferView */
} gl_image;

typedef struct gl_mesh {
    char name[64];
    uint32_t first_prim, prim_count;
} gl_mesh;

struct gltf_scene {
    char *path;
    char *dir; /* the folder of path, with its '/', or "" */
    gltf_options opt;
    pk_asset_root root; /* what its uris may name (tools/pack/asset.h) */
    pk_diag *diag;      /* where the current call writes its error */
    int draco_required;

    gl_buffer *buffers;
    uint32_t buffer_count;
    char **image_files; /* the files images[] name by uri (image_file_of: which image) */
    uint32_t *image_file_of;
    uint32_t image_file_count;
    gl_image *images; /* images[], as gltf_load_image reads them */
    uint32_t image_count;
    pk_material *materials; /* materials[], resolved through textures[] and samplers[] */
    uint32_t material_count;
    gl_view *views;
    uint32_t view_count;
    gl_accessor *accessors;
    uint32_t accessor_count;
    gl_prim *prims;
    uint32_t prim_count;
    gl_mesh *meshes;
    uint32_t mesh_count;
    pk_instance *instances;
    uint32_t instance_count, instance_cap;

    uint32_t open_files, next_victim;
    unsigned char *scratch; /* GL_SCRATCH_BYTES */
    uint64_t decoded_bytes; /* held by the views' decoded copies */
    uint64_t use_clock;
};

/* ---- messages ---------------------------------------------------------- */

#if defined(__GNUC__)
#define GL_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define GL_PRINTF(f, a)
#endif

static int fail(gltf_scene *s, const char *fmt, ...) GL_PRINTF(2, 3);
static int fail(gltf_scene *s, const char *fmt, ...)
{
    char what[480];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(s->diag->message, sizeof s->diag->message, "%s: %s", s->path, what);
    return -1;
}

#ifdef __clang_analyzer__
/* For clang's static analyzer only (scripts/static.sh): it never inlines a
 * variadic function, so it cannot see that fail() returns -1 and explores
 * callers as if a failure had succeeded. The build never sees this. */
#define fail(...) (fail(__VA_ARGS__), -1)
#endif

static void warn(gltf_scene *s, const char *fmt, ...) GL_PRINTF(2, 3);
static void warn(gltf_scene *s, const char *fmt, ...)
{
    if (s->opt.warn == NULL) {
        return;
    }
    char what[480], message[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(message, sizeof message, "%s: %s", s->path, what);
    s->opt.warn(s->opt.user, message);
}

/* "mesh 'name' (3) primitive 1", or "mesh 3 primitive 1" when unnamed. */
static void prim_where(const gltf_scene *s, uint32_t m, uint32_t j, char *out, size_t n)
{
    if (s->meshes[m].name[0] != '\0') {
        snprintf(out, n, "mesh '%s' (%u) primitive %u", s->meshes[m].name, m, j);
    } else {
        snprintf(out, n, "mesh %u primitive %u", m, j);
    }
}

/* ---- JSON fields ------------------------------------------------------- */

/* obj[key] as an integer in [0, max]; absent: dflt, or an error if required. */
static int js_uint(gltf_scene *s, const cJSON *obj, const char *what, const char *key, double max, int required,
                   uint64_t dflt, uint64_t *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (v == NULL) {
        if (required) {
            return fail(s, "%s: '%s' is missing", what, key);
        }
        *out = dflt;
        return 0;
    }
    if (!cJSON_IsNumber(v)) {
        return fail(s, "%s.%s: expected a number", what, key);
    }
    double x = v->valuedouble;
    if (!(x >= 0.0 && x <= max) || x != floor(x)) {
        return fail(s, "%s.%s: %g is not an integer in [0, %.0f]", what, key, x, max);
    }
    *out = (uint64_t)x;
    return 0;
}

static int js_u32(gltf_scene *s, const cJSON *obj, const char *what, const char *key, int required, uint32_t dflt,
                  uint32_t *out)
{
    uint64_t v = 0;
    if (js_uint(s, obj, what, key, (double)UINT32_MAX, required, dflt, &v) != 0) {
        return -1;
    }
    *out = (uint32_t)v;
    return 0;
}

/* v as an index into the array the file calls array ("buffers",
 * "meshes" ...) of count elements; path names it in messages
 * ("bufferViews[2].buffer"). Every present index must name an element:
 * GL_NONE means "absent" to the importer, so a present 4294967295 (or
 * anything past count) is refused here, never stored. */
static int index_value(gltf_scene *s, const cJSON *v, const char *path, uint32_t count, const char *array,
                       uint32_t *out)
{
    if (!cJSON_IsNumber(v)) {
        return fail(s, "%s: expected an index into %s", path, array);
    }
    double x = v->valuedouble;
    if (!(x >= 0.0) || x != floor(x)) {
        return fail(s, "%s: %g is not an index into %s", path, x, array);
    }
    if (x >= (double)count || x >= (double)GL_NONE) {
        /* "(2 meshes)", and for one the singular: "(1 mesh)", "(1 scene)". */
        size_t n = strlen(array);
        if (count == 1) {
            n -= n > 3 && strcmp(array + n - 3, "hes") == 0 ? 2 : 1;
        }
        char num[32];
        if (x < GL_MAX_SAFE_INT) {
            snprintf(num, sizeof num, "%.0f", x);
        } else {
            snprintf(num, sizeof num, "%g", x);
        }
        return fail(s, "%s: index %s out of range (%u %.*s)", path, num, count, (int)n, array);
    }
    *out = (uint32_t)x;
    return 0;
}

/* obj[key] as an index below count (see index_value); absent: GL_NONE, or
 * an error if required. */
static int js_index(gltf_scene *s, const cJSON *obj, const char *what, const char *key, uint32_t count,
                    const char *array, int required, uint32_t *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (v == NULL) {
        if (required) {
            return fail(s, "%s: '%s' is missing", what, key);
        }
        *out = GL_NONE;
        return 0;
    }
    char path[160];
    snprintf(path, sizeof path, "%s.%s", what, key);
    return index_value(s, v, path, count, array, out);
}

/* An element of an index array (scene.nodes, node.children). */
static int js_index_item(gltf_scene *s, const cJSON *v, const char *what, uint32_t k, uint32_t count, const char *array,
                         uint32_t *out)
{
    char path[160];
    snprintf(path, sizeof path, "%s[%u]", what, k);
    return index_value(s, v, path, count, array, out);
}

/* obj[key] as an array (NULL when absent), or an error. */
static int js_array(gltf_scene *s, const cJSON *obj, const char *what, const char *key, const cJSON **out)
{
    *out = NULL;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (v != NULL && !cJSON_IsArray(v)) {
        return fail(s, "%s%s%s: expected an array", what, what[0] ? "." : "", key);
    }
    *out = v;
    return 0;
}

/* obj[key] as a string (NULL when absent), or an error. */
static int js_string(gltf_scene *s, const cJSON *obj, const char *what, const char *key, const char **out)
{
    *out = NULL;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (v != NULL && !cJSON_IsString(v)) {
        return fail(s, "%s%s%s: expected a string", what, what[0] ? "." : "", key);
    }
    *out = v != NULL ? v->valuestring : NULL;
    return 0;
}

/* obj[key] as an object (NULL when absent), or an error. */
static int js_object(gltf_scene *s, const cJSON *obj, const char *what, const char *key, const cJSON **out)
{
    *out = NULL;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (v != NULL && !cJSON_IsObject(v)) {
        return fail(s, "%s%s%s: expected an object", what, what[0] ? "." : "", key);
    }
    *out = v;
    return 0;
}

/* obj[key] as exactly n finite numbers; absent: out untouched. */
static int js_numbers(gltf_scene *s, const cJSON *obj, const char *what, const char *key, int n, double *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (v == NULL) {
        return 0;
    }
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != n) {
        return fail(s, "%s.%s: expected an array of %d numbers", what, key, n);
    }
    int k = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, v)
    {
        if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble)) {
            return fail(s, "%s.%s[%d]: expected a finite number", what, key, k);
        }
        out[k++] = e->valuedouble;
    }
    return 0;
}

static uint32_t array_count(const cJSON *a)
{
    uint32_t n = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, a)
    {
        n++;
    }
    return n;
}

/* ---- matrices (column-major, as glTF) --------------------------------- */

/* r = a * b; r must not alias a or b. */
static void mat_mul(double r[16], const double a[16], const double b[16])
{
    for (int c = 0; c < 4; c++) {
        for (int row = 0; row < 4; row++) {
            double sum = 0.0;
            for (int k = 0; k < 4; k++) {
                sum += a[k * 4 + row] * b[c * 4 + k];
            }
            r[c * 4 + row] = sum;
        }
    }
}

/* T * R * S, with the quaternion (x, y, z, w) normalized (identity when 0). */
static void mat_trs(double m[16], const double t[3], const double q[4], const double sc[3])
{
    double x = q[0], y = q[1], z = q[2], w = q[3];
    double len = sqrt(x * x + y * y + z * z + w * w);
    if (len > 0.0) {
        x /= len, y /= len, z /= len, w /= len;
    } else {
        x = y = z = 0.0, w = 1.0;
    }
    m[0] = (1.0 - 2.0 * (y * y + z * z)) * sc[0];
    m[1] = (2.0 * (x * y + z * w)) * sc[0];
    m[2] = (2.0 * (x * z - y * w)) * sc[0];
    m[3] = 0.0;
    m[4] = (2.0 * (x * y - z * w)) * sc[1];
    m[5] = (1.0 - 2.0 * (x * x + z * z)) * sc[1];
    m[6] = (2.0 * (y * z + x * w)) * sc[1];
    m[7] = 0.0;
    m[8] = (2.0 * (x * z + y * w)) * sc[2];
    m[9] = (2.0 * (y * z - x * w)) * sc[2];
    m[10] = (1.0 - 2.0 * (x * x + y * y)) * sc[2];
    m[11] = 0.0;
    m[12] = t[0];
    m[13] = t[1];
    m[14] = t[2];
    m[15] = 1.0;
}

/* ---- buffers ----------------------------------------------------------- */

static uint32_t comp_size(uint32_t ctype)
{
    switch (ctype) {
    case CT_I8:
    case CT_U8:
        return 1;
    case CT_I16:
    case CT_U16:
        return 2;
    default:
        return 4;
    }
}

static int b64_value(int c)
{
    if (c >= 'A' && c <= 'Z') {
        return c - 'A';
    }
    if (c >= 'a' && c <= 'z') {
        return c - 'a' + 26;
    }
    if (c >= '0' && c <= '9') {
        return c - '0' + 52;
    }
    if (c == '+' || c == '-') {
        return 62;
    }
    if (c == '/' || c == '_') {
        return 63;
    }
    return -1;
}

/* Decodes base64 text (padding optional) into a malloc'd buffer. */
static int b64_decode(const char *text, unsigned char **out, size_t *out_len)
{
    size_t n = strlen(text);
    unsigned char *p = malloc(n / 4 * 3 + 3);
    if (p == NULL) {
        return -1;
    }
    size_t len = 0;
    uint32_t acc = 0;
    int bits = 0;
    size_t i = 0;
    for (; i < n && text[i] != '='; i++) {
        int v = b64_value((unsigned char)text[i]);
        if (v < 0) {
            free(p);
            return -2;
        }
        acc = (acc << 6) | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            p[len++] = (unsigned char)(acc >> bits);
        }
    }
    for (; i < n; i++) {
        if (text[i] != '=') {
            free(p);
            return -2;
        }
    }
    *out = p;
    *out_len = len;
    return 0;
}

static int hex_value(int c)
{
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    return -1;
}

/* dir + the percent-decoded uri, malloc'd (an absolute path without dir);
 * NULL with *why on failure. *rel is where the decoded uri starts in it. */
static char *uri_to_path(const char *dir, const char *uri, size_t *rel, const char **why)
{
    /* A scheme ("http:", "file:") is letters, digits, + - . before a ':'. */
    const char *c = uri;
    while ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '+' || *c == '-' ||
           *c == '.') {
        c++;
    }
    if (*c == ':' && c != uri) {
        *why = "is neither a relative path nor a data: URI";
        return NULL;
    }
    size_t dl = strlen(dir);
    char *p = malloc(dl + strlen(uri) + 1);
    if (p == NULL) {
        *why = "out of memory";
        return NULL;
    }
    /* NOLINTNEXTLINE(bugprone-not-null-terminated-result): the URI follows; the NUL after it */
    memcpy(p, dir, dl);
    char *o = p + dl;
    for (const char *u = uri; *u != '\0'; u++) {
        int hi, lo;
        if (*u == '%' && (hi = hex_value((unsigned char)u[1])) >= 0 && (lo = hex_value((unsigned char)u[2])) >= 0) {
            if (hi == 0 && lo == 0) {
                free(p);
                *why = "contains %00";
                return NULL;
            }
            *o++ = (char)(hi * 16 + lo);
            u += 2;
        } else {
            *o++ = *u;
        }
    }
    *o = '\0';
    *rel = dl;
    if (p[dl] == '/') { /* absolute: the folder does not apply */
        memmove(p, p + dl, (size_t)(o - p) - dl + 1);
        *rel = 0;
    }
    return p;
}

/* Fails when path, the file the uri of what ("buffers[0]", "images[2]")
 * names (rel: where its percent-decoded uri starts in path), is outside the
 * asset root or written as an absolute path, and allow_outside_paths is off
 * (pk_asset_check: the rule every importer keeps). */
static int check_inside(gltf_scene *s, const char *what, const char *uri, const char *path, size_t rel)
{
    char why[PATH_MAX + 256];
    if (pk_asset_check(&s->root, path + rel, path, why, sizeof why) == 0) {
        return 0;
    }
    return fail(s, "%s.uri '%s': %s", what, uri, why);
}

/* A data: URI's base64 payload, decoded into a malloc'd *out. */
static int data_uri_decode(gltf_scene *s, const char *what, const char *uri, unsigned char **out, size_t *len)
{
    const char *comma = strchr(uri, ',');
    if (comma == NULL || comma - uri < 12 || strncmp(comma - 7, ";base64", 7) != 0) {
        return fail(s, "%s: the data: URI is not base64", what);
    }
    int rc = b64_decode(comma + 1, out, len);
    if (rc == -1) {
        return fail(s, "out of memory");
    }
    if (rc != 0) {
        return fail(s, "%s: the data: URI holds a character that is not base64", what);
    }
    return 0;
}

/* images[]: where each one's bytes are (gl_image), read by
 * gltf_load_image. A uri that leaves the glTF's folder is refused like a
 * buffer's: the file names what the tool may touch. Each file an image
 * names is kept (gltf_get_image_file), so that no output replaces it. Its
 * bufferView is checked against bufferViews[] by check_unread_indices. */
static int parse_images(gltf_scene *s, const cJSON *root)
{
    const cJSON *arr, *item;
    if (js_array(s, root, "", "images", &arr) != 0) {
        return -1;
    }
    uint32_t n = array_count(arr);
    if (n == 0) {
        return 0;
    }
    s->images = calloc(n, sizeof *s->images);
    if (s->images == NULL) {
        return fail(s, "out of memory");
    }
    s->image_count = n;
    uint32_t i = 0;
    cJSON_ArrayForEach(item, arr)
    {
        char what[48];
        const char *uri = NULL;
        gl_image *img = &s->images[i];
        snprintf(what, sizeof what, "images[%u]", i++);
        img->view = GL_NONE;
        if (!cJSON_IsObject(item)) {
            return fail(s, "%s: expected an object", what);
        }
        const char *name = NULL;
        if (js_string(s, item, what, "uri", &uri) != 0 || js_string(s, item, what, "name", &name) != 0) {
            return -1;
        }
        snprintf(img->name, sizeof img->name, "%s", name != NULL ? name : "");
        if (uri != NULL && cJSON_HasObjectItem(item, "bufferView")) {
            return fail(s, "%s: has both 'uri' and 'bufferView' (glTF allows one)", what);
        }
        if (uri == NULL) {
            const cJSON *v = cJSON_GetObjectItemCaseSensitive(item, "bufferView");
            if (v != NULL && cJSON_IsNumber(v) && v->valuedouble >= 0.0 && v->valuedouble < (double)GL_NONE) {
                img->view = (uint32_t)v->valuedouble; /* its range: check_unread_indices */
            }
            continue;
        }
        if (strncmp(uri, "data:", 5) == 0) {
            if (data_uri_decode(s, what, uri, &img->data, &img->data_size) != 0) {
                return -1;
            }
            continue;
        }
        const char *why = NULL;
        size_t rel = 0;
        char *path = uri_to_path(s->dir, uri, &rel, &why);
        if (path == NULL) {
            continue; /* another scheme (http:), or unusable: nothing this tool would open */
        }
        if (check_inside(s, what, uri, path, rel) != 0) {
            free(path);
            return -1;
        }
        char **files = realloc(s->image_files, (s->image_file_count + 1u) * sizeof *files);
        uint32_t *of = files != NULL ? realloc(s->image_file_of, (s->image_file_count + 1u) * sizeof *of) : NULL;
        if (files != NULL) {
            s->image_files = files;
        }
        if (of == NULL) {
            free(path);
            return fail(s, "%s: out of memory", what);
        }
        s->image_file_of = of;
        s->image_files[s->image_file_count] = path;
        s->image_file_of[s->image_file_count++] = i - 1u;
        img->path = path; /* owned by image_files */
        if (img->name[0] == '\0') {
            const char *base = strrchr(path, '/');
            snprintf(img->name, sizeof img->name, "%s", base != NULL ? base + 1 : path);
        }
    }
    return 0;
}

/* The length of root's top-level array key (0 when absent or not an array). */
static uint32_t array_length(const cJSON *root, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, key);
    return cJSON_IsArray(v) ? (uint32_t)cJSON_GetArraySize(v) : 0u;
}

/* obj[key] when obj is an object, else NULL. */
static const cJSON *member(const cJSON *obj, const char *key)
{
    return cJSON_IsObject(obj) ? cJSON_GetObjectItemCaseSensitive(obj, key) : NULL;
}

/* obj[key], when present, as an index into the array the file calls array
 * (count elements); what.key names it in the message. */
static int ref_check(gltf_scene *s, const cJSON *obj, const char *what, const char *key, uint32_t count,
                     const char *array)
{
    const cJSON *v = member(obj, key);
    if (v == NULL) {
        return 0;
    }
    char path[320];
    snprintf(path, sizeof path, "%s.%s", what, key);
    uint32_t out;
    return index_value(s, v, path, count, array, &out);
}

/* Each element of root[array] whose key is present must index
 * root[target]. */
static int check_member_refs(gltf_scene *s, const cJSON *root, const char *array, const char *key, const char *target)
{
    const uint32_t count = array_length(root, target);
    const cJSON *item;
    uint32_t i = 0;
    cJSON_ArrayForEach(item, cJSON_GetObjectItemCaseSensitive(root, array))
    {
        char what[64];
        snprintf(what, sizeof what, "%s[%u]", array, i++);
        if (ref_check(s, item, what, key, count, target) != 0) {
            return -1;
        }
    }
    return 0;
}

/* The indices of what the importer does not read: textures' images and
 * samplers and images' buffer views (of every texture, used by a material
 * or not), skins, morph targets, cameras, animations. Each present index must name
 * an element, as every index the importer reads must: a file that lies
 * there is refused naming the JSON path, not packed. */
static int check_unread_indices(gltf_scene *s, const cJSON *root)
{
    /* array[i].key indexes target */
    static const char *const refs[][3] = {
        {"nodes", "skin", "skins"},
        {"nodes", "camera", "cameras"},
        {"skins", "inverseBindMatrices", "accessors"},
        {"skins", "skeleton", "nodes"},
        {"textures", "source", "images"},
        {"textures", "sampler", "samplers"},
        {"images", "bufferView", "bufferViews"},
    };
    for (size_t r = 0; r < sizeof refs / sizeof refs[0]; r++) {
        if (check_member_refs(s, root, refs[r][0], refs[r][1], refs[r][2]) != 0) {
            return -1;
        }
    }
    const uint32_t accessors = array_length(root, "accessors"), nodes = array_length(root, "nodes");
    char what[160], part[224];
    const cJSON *item, *sub, *leaf;
    uint32_t i = 0, j, k;
    cJSON_ArrayForEach(item, cJSON_GetObjectItemCaseSensitive(root, "meshes"))
    {
        j = 0;
        cJSON_ArrayForEach(sub, cJSON_GetObjectItemCaseSensitive(item, "primitives"))
        {
            snprintf(what, sizeof what, "meshes[%u].primitives[%u]", i, j++);
            k = 0;
            cJSON_ArrayForEach(leaf, member(sub, "targets"))
            {
                snprintf(part, sizeof part, "%s.targets[%u]", what, k++);
                const cJSON *attr, *attrs = cJSON_IsObject(leaf) ? leaf : NULL;
                cJSON_ArrayForEach(attr, attrs)
                {
                    if (attr->string != NULL && ref_check(s, leaf, part, attr->string, accessors, "accessors") != 0) {
                        return -1;
                    }
                }
            }
        }
        i++;
    }
    i = 0;
    cJSON_ArrayForEach(item, cJSON_GetObjectItemCaseSensitive(root, "skins"))
    {
        snprintf(what, sizeof what, "skins[%u]", i++);
        j = 0;
        cJSON_ArrayForEach(leaf, member(item, "joints"))
        {
            snprintf(part, sizeof part, "%s.joints[%u]", what, j++);
            uint32_t out;
            if (index_value(s, leaf, part, nodes, "nodes", &out) != 0) {
                return -1;
            }
        }
    }
    i = 0;
    cJSON_ArrayForEach(item, cJSON_GetObjectItemCaseSensitive(root, "animations"))
    {
        const cJSON *smp = member(item, "samplers");
        const uint32_t nsmp = cJSON_IsArray(smp) ? (uint32_t)cJSON_GetArraySize(smp) : 0u;
        j = 0;
        cJSON_ArrayForEach(sub, smp)
        {
            snprintf(what, sizeof what, "animations[%u].samplers[%u]", i, j++);
            if (ref_check(s, sub, what, "input", accessors, "accessors") != 0 ||
                ref_check(s, sub, what, "output", accessors, "accessors") != 0) {
                return -1;
            }
        }
        j = 0;
        cJSON_ArrayForEach(sub, member(item, "channels"))
        {
            snprintf(what, sizeof what, "animations[%u].channels[%u]", i, j);
            snprintf(part, sizeof part, "animations[%u].channels[%u].target", i, j++);
            if (ref_check(s, sub, what, "sampler", nsmp, "samplers") != 0 ||
                ref_check(s, member(sub, "target"), part, "node", nodes, "nodes") != 0) {
                return -1;
            }
        }
        i++;
    }
    return 0;
}

static int file_size(FILE *f, uint64_t *size)
{
    if (fseeko(f, 0, SEEK_END) != 0) {
        return -1;
    }
    off_t n = ftello(f);
    if (n < 0) {
        return -1;
    }
    *size = (uint64_t)n;
    return 0;
}

/* Keeps at most PK_GLTF_MAX_OPEN_FILES buffer files open: beyond that, one
 * is closed (round robin) and reopened when read again. */
static void note_open_file(gltf_scene *s)
{
    if (s->open_files >= PK_GLTF_MAX_OPEN_FILES) {
        for (uint32_t k = 0; k < s->buffer_count; k++) {
            gl_buffer *b = &s->buffers[(s->next_victim + k) % s->buffer_count];
            if (b->file != NULL) {
                (void)fclose(b->file); /* read only: nothing to lose */
                b->file = NULL;
                s->open_files--;
                s->next_victim = (s->next_victim + k + 1) % s->buffer_count;
                break;
            }
        }
    }
    s->open_files++;
}

/* Whether buffer item is marked a meshopt fallback (its
 * extensions.EXT_meshopt_compression, or KHR_, has "fallback": true): only
 * compressed views name it, and their data comes from elsewhere, so it is
 * never opened, whatever its uri says. */
static int meshopt_fallback(const cJSON *item)
{
    const cJSON *ext = cJSON_GetObjectItemCaseSensitive(item, "extensions");
    const char *const names[2] = {EXT_MESHOPT, KHR_MESHOPT};
    for (int k = 0; k < 2; k++) {
        const cJSON *mo = cJSON_GetObjectItemCaseSensitive(ext, names[k]);
        if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(mo, "fallback"))) {
            return 1;
        }
    }
    return 0;
}

static int parse_buffers(gltf_scene *s, const cJSON *root, int is_glb, FILE **glb, uint64_t bin_offset,
                         uint64_t bin_length)
{
    const cJSON *arr;
    if (js_array(s, root, "", "buffers", &arr) != 0) {
        return -1;
    }
    uint32_t n = array_count(arr);
    if (n == 0) {
        return 0;
    }
    s->buffers = calloc(n, sizeof *s->buffers);
    if (s->buffers == NULL) {
        return fail(s, "out of memory");
    }
    s->buffer_count = n;
    uint32_t i = 0;
    const cJSON *item;
    cJSON_ArrayForEach(item, arr)
    {
        char what[48];
        snprintf(what, sizeof what, "buffers[%u]", i);
        gl_buffer *b = &s->buffers[i];
        const char *uri;
        if (!cJSON_IsObject(item)) {
            return fail(s, "%s: expected an object", what);
        }
        if (js_uint(s, item, what, "byteLength", GL_MAX_SAFE_INT, 1, 0, &b->length) != 0 ||
            js_string(s, item, what, "uri", &uri) != 0) {
            return -1;
        }
        b->uri = strdup(uri != NULL ? uri : "");
        if (b->uri == NULL) {
            return fail(s, "out of memory");
        }
        if (uri == NULL) {
            if (is_glb && i == 0 && *glb != NULL) {
                if (b->length > bin_length) {
                    return fail(s, "%s.byteLength is %llu but the GLB BIN chunk holds %llu bytes", what,
                                (unsigned long long)b->length, (unsigned long long)bin_length);
                }
                b->path = strdup(s->path);
                if (b->path == NULL) {
                    return fail(s, "out of memory");
                }
                b->state = BUF_FILE;
                b->base = bin_offset;
                note_open_file(s);
                b->file = *glb; /* the scene owns it from here */
                *glb = NULL;
            } else {
                /* A meshopt fallback buffer, or a broken file: read it and
                 * the primitive is refused. */
                b->state = BUF_NODATA;
            }
        } else if (meshopt_fallback(item)) {
            b->state = BUF_NODATA; /* never read: its views are decoded from elsewhere */
        } else if (strncmp(uri, "data:", 5) == 0) {
            size_t len;
            if (data_uri_decode(s, what, uri, &b->data, &len) != 0) {
                return -1;
            }
            if (len < b->length) {
                return fail(s, "%s: the data: URI decodes to %zu bytes, fewer than its byteLength %llu", what, len,
                            (unsigned long long)b->length);
            }
            b->state = BUF_DATA;
        } else {
            const char *why = NULL;
            size_t rel = 0;
            b->path = uri_to_path(s->dir, uri, &rel, &why);
            if (b->path == NULL) {
                return fail(s, "buffer %u '%s': the uri %s", i, uri, why);
            }
            if (check_inside(s, what, uri, b->path, rel) != 0) {
                return -1;
            }
            b->state = BUF_FILE;
            FILE *f = fopen(b->path, "rb");
            uint64_t size = 0;
            if (f == NULL || file_size(f, &size) != 0) {
                int e = errno;
                if (f != NULL) {
                    (void)fclose(f); /* read only: nothing to lose */
                }
                if (!s->opt.skip_unsupported) {
                    return fail(s, "buffer %u '%s': cannot open %s: %s", i, uri, b->path, strerror(e));
                }
                snprintf(b->why, sizeof b->why, "cannot open %s: %s", b->path, strerror(e));
                b->state = BUF_MISSING;
            } else if (size < b->length) {
                (void)fclose(f); /* read only: nothing to lose */
                return fail(s, "buffer %u '%s': %s has %llu bytes, fewer than its byteLength %llu", i, uri, b->path,
                            (unsigned long long)size, (unsigned long long)b->length);
            } else {
                note_open_file(s);
                b->file = f;
            }
        }
        i++;
    }
    return 0;
}

/* Reads n bytes at pos of buffer bi; pos + n <= its length (the caller checked). */
static int buffer_read(gltf_scene *s, uint32_t bi, uint64_t pos, void *dst, size_t n, const char **why)
{
    gl_buffer *b = &s->buffers[bi];
    if (b->state == BUF_DATA) {
        memcpy(dst, b->data + pos, n);
        return 0;
    }
    if (b->state != BUF_FILE) {
        *why = b->state == BUF_MISSING ? b->why : "the buffer has no data";
        return -1;
    }
    if (b->file == NULL) {
        FILE *f = fopen(b->path, "rb");
        if (f == NULL) {
            *why = "cannot reopen its file";
            return -1;
        }
        note_open_file(s);
        b->file = f;
    }
    if (fseeko(b->file, (off_t)(b->base + pos), SEEK_SET) != 0 || fread(dst, 1, n, b->file) != n) {
        *why = "the read failed (was the file changed since it was opened?)";
        return -1;
    }
    return 0;
}

/* ---- accessors --------------------------------------------------------- */

typedef struct rd_ctx {
    gltf_scene *s;
    const char *where; /* "mesh 'x' (0) primitive 1" */
    uint32_t accessor;
    const char *role; /* "POSITION", "indices" ... */
} rd_ctx;

static int rd_fail(const rd_ctx *c, const char *fmt, ...) GL_PRINTF(2, 3);
static int rd_fail(const rd_ctx *c, const char *fmt, ...)
{
    char what[320];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return fail(c->s, "%s: accessor %u (%s): %s", c->where, c->accessor, c->role, what);
}

#ifdef __clang_analyzer__
/* For clang's static analyzer only (scripts/static.sh): it never inlines a
 * variadic function, so it cannot see that rd_fail() returns -1 and explores
 * callers as if a failure had succeeded. The build never sees this. */
#define rd_fail(...) (rd_fail(__VA_ARGS__), -1)
#endif

/* Whether a view can be read; if not, why. */
static int view_unreadable(const gltf_scene *s, uint32_t vi, char *why, size_t n)
{
    const gl_view *v = &s->views[vi];
    uint32_t bi = v->compression != NULL ? v->mo.buffer : v->buffer; /* compressed: where its bytes lie */
    const gl_buffer *b = &s->buffers[bi];
    if (b->state == BUF_MISSING) {
        snprintf(why, n, "buffer %u '%s' cannot be read (%s)", bi, b->uri, b->why);
        return 1;
    }
    if (b->state == BUF_NODATA) {
        snprintf(why, n,
                 "bufferView %u%s%s: buffer %u has no data (no uri, not a GLB's BIN chunk, or a meshopt fallback)", vi,
                 v->compression != NULL ? ".extensions." : "", v->compression != NULL ? v->compression : "", bi);
        return 1;
    }
    return 0;
}

static int accessor_unreadable(const gltf_scene *s, uint32_t ai, char *why, size_t n)
{
    const gl_accessor *a = &s->accessors[ai];
    return (a->view != GL_NONE && view_unreadable(s, a->view, why, n)) ||
           (a->sparse_count > 0 &&
            (view_unreadable(s, a->sparse_index_view, why, n) || view_unreadable(s, a->sparse_value_view, why, n)));
}

/* Checks that count elements of esz bytes, stride apart (0: esz), from
 * offset lie inside view vi. */
static int range_check(const rd_ctx *c, uint32_t vi, uint64_t offset, uint32_t count, uint32_t esz, uint32_t stride,
                       const char *part)
{
    const gl_view *v = &c->s->views[vi];
    uint32_t st = stride != 0 ? stride : esz;
    if (stride != 0 && stride < esz) {
        return rd_fail(c, "%sbufferView %u has byteStride %u, less than the %u-byte element", part, vi, stride, esz);
    }
    if (count == 0) {
        return 0;
    }
    uint64_t end = offset + (uint64_t)(count - 1) * st + esz; /* offset <= 2^53: no overflow */
    if (end > v->length) {
        return rd_fail(c,
                       "%s%u elements of %u bytes (stride %u) from byte %llu end at byte %llu, past the end of "
                       "bufferView %u (%llu bytes)",
                       part, count, esz, st, (unsigned long long)offset, (unsigned long long)end, vi,
                       (unsigned long long)v->length);
    }
    return 0;
}

/* Checks accessor c->accessor before anything is allocated for it: its type
 * is want (T_SCALAR ...), every byte it reads lies inside its views, and
 * without a view its count is within the limit. */
static int accessor_check(const rd_ctx *c, uint8_t want)
{
    const gl_accessor *a = &c->s->accessors[c->accessor];
    if (a->type != want) {
        return rd_fail(c, "type is %s, expected %s", type_names[a->type], type_names[want]);
    }
    uint32_t esz = comp_size(a->ctype) * a->type;
    if (a->view != GL_NONE) {
        if (range_check(c, a->view, a->offset, a->count, esz, c->s->views[a->view].stride, "") != 0) {
            return -1;
        }
    } else if (a->count > PK_GLTF_MAX_IMPLICIT_COUNT) {
        return rd_fail(c, "%u elements without a bufferView, more than the importer's limit of %u", a->count,
                       PK_GLTF_MAX_IMPLICIT_COUNT);
    }
    if (a->sparse_count > 0) {
        if (range_check(c, a->sparse_index_view, a->sparse_index_offset, a->sparse_count,
                        comp_size(a->sparse_index_ctype), 0, "sparse indices: ") != 0 ||
            range_check(c, a->sparse_value_view, a->sparse_value_offset, a->sparse_count, esz, 0, "sparse values: ") !=
                0) {
            return -1;
        }
    }
    return 0;
}

static float decode_float(uint32_t ctype, int normalized, const unsigned char *p)
{
    switch (ctype) {
    case CT_I8: {
        int v = p[0] < 128 ? p[0] : p[0] - 256;
        return normalized ? fmaxf((float)v / 127.0f, -1.0f) : (float)v;
    }
    case CT_U8:
        return normalized ? (float)p[0] / 255.0f : (float)p[0];
    case CT_I16: {
        int u = p[0] | (p[1] << 8);
        int v = u < 32768 ? u : u - 65536;
        return normalized ? fmaxf((float)v / 32767.0f, -1.0f) : (float)v;
    }
    case CT_U16: {
        int u = p[0] | (p[1] << 8);
        return normalized ? (float)u / 65535.0f : (float)u;
    }
    case CT_U32: {
        uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
        return normalized ? (float)((double)u / 4294967295.0) : (float)u;
    }
    default: {
        uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
        float f;
        memcpy(&f, &u, sizeof f);
        return f;
    }
    }
}

static uint32_t decode_uint(uint32_t ctype, const unsigned char *p)
{
    switch (ctype) {
    case CT_U8:
        return p[0];
    case CT_U16:
        return (uint32_t)p[0] | (uint32_t)p[1] << 8;
    default:
        return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    }
}

/* Frees the decoded copy of view vi, if any. */
static void view_drop(gltf_scene *s, gl_view *v)
{
    if (v->decoded != NULL) {
        free(v->decoded);
        v->decoded = NULL;
        s->decoded_bytes -= v->mo.size;
    }
}

/* The decoded bytes of compressed view vi (v->mo.size of them), decoded
 * now unless held from an earlier read. Before decoding, the least recently
 * read copies are freed until the new one fits in
 * PK_GLTF_MESHOPT_CACHE_BYTES (or none is left), so the copies held never
 * pass that bound, or the one view being read when it alone is larger.
 * The pointer is valid until the next call. Returns NULL with why when the
 * compressed bytes cannot be read or do not decode, or memory runs out. */
static const unsigned char *view_bytes(gltf_scene *s, uint32_t vi, char *why, size_t cap)
{
    gl_view *v = &s->views[vi];
    v->last_use = ++s->use_clock;
    if (v->decoded != NULL) {
        return v->decoded;
    }
    while (s->decoded_bytes > 0 && s->decoded_bytes + v->mo.size > PK_GLTF_MESHOPT_CACHE_BYTES) {
        gl_view *oldest = NULL;
        for (uint32_t k = 0; k < s->view_count; k++) {
            gl_view *w = &s->views[k];
            if (w->decoded != NULL && (oldest == NULL || w->last_use < oldest->last_use)) {
                oldest = w;
            }
        }
        if (oldest == NULL) {
            break; /* decoded_bytes counts only held copies: not reached */
        }
        view_drop(s, oldest);
    }
    unsigned char *src = malloc(v->mo.length > 0 ? (size_t)v->mo.length : 1);
    unsigned char *dst = malloc((size_t)v->mo.size);
    if (src == NULL || dst == NULL) {
        free(src);
        free(dst);
        snprintf(why, cap, "out of memory for %llu decoded bytes", (unsigned long long)v->mo.size);
        return NULL;
    }
    const char *rwhy = NULL;
    if (buffer_read(s, v->mo.buffer, v->mo.offset, src, (size_t)v->mo.length, &rwhy) != 0) {
        snprintf(why, cap, "buffer %u '%s': %s", v->mo.buffer, s->buffers[v->mo.buffer].uri, rwhy);
        free(src);
        free(dst);
        return NULL;
    }
    int rc = gltf_meshopt_decode(&v->mo, src, dst, why, cap);
    free(src);
    if (rc != 0) {
        free(dst);
        return NULL;
    }
    v->decoded = dst;
    s->decoded_bytes += v->mo.size;
    return dst;
}

/* Reads count elements of ncomp components from view vi, stride apart (0:
 * packed), into fout (floats, normalized as asked) or uout (integers). */
static int read_span(const rd_ctx *c, uint32_t vi, uint64_t offset, uint32_t count, uint32_t stride, uint32_t ctype,
                     uint32_t ncomp, int normalized, float *fout, uint32_t *uout, const char *part)
{
    assert((fout != NULL) != (uout != NULL)); /* floats or integers, one of them */
    gltf_scene *s = c->s;
    const gl_view *v = &s->views[vi];
    uint32_t csz = comp_size(ctype), esz = csz * ncomp;
    uint32_t st = stride != 0 ? stride : esz;
    if (range_check(c, vi, offset, count, esz, stride, part) != 0) {
        return -1;
    }
    const unsigned char *decoded = NULL;
    if (v->compression != NULL) {
        char why[320];
        decoded = view_bytes(s, vi, why, sizeof why);
        if (decoded == NULL) {
            return rd_fail(c, "%sbufferView %u (%s): %s", part, vi, v->compression, why);
        }
    }
    uint32_t per = (GL_SCRATCH_BYTES - esz) / st + 1;
    for (uint32_t k = 0; k < count;) {
        uint32_t n = count - k < per ? count - k : per;
        const unsigned char *at = s->scratch;
        if (decoded != NULL) {
            at = decoded + offset + (uint64_t)k * st;
        } else {
            uint64_t pos = v->offset + offset + (uint64_t)k * st;
            size_t bytes = (size_t)(n - 1) * st + esz;
            const char *why = NULL;
            if (buffer_read(s, v->buffer, pos, s->scratch, bytes, &why) != 0) {
                const gl_buffer *b = &s->buffers[v->buffer];
                return rd_fail(c, "%sbuffer %u '%s': %s", part, v->buffer, b->uri, why);
            }
        }
        for (uint32_t e = 0; e < n; e++) {
            const unsigned char *p = at + (size_t)e * st;
            if (fout != NULL) {
                float *o = fout + (size_t)(k + e) * ncomp;
                for (uint32_t j = 0; j < ncomp; j++) {
                    o[j] = decode_float(ctype, normalized, p + (size_t)j * csz);
                }
            } else {
                uout[k + e] = decode_uint(ctype, p);
            }
        }
        k += n;
    }
    return 0;
}

/* Reads the whole accessor (after accessor_check) into fout (count * ncomp
 * floats) or uout (count integers): its view or zeros, then the sparse
 * values over them. */
static int read_accessor(const rd_ctx *c, float *fout, uint32_t *uout)
{
    assert((fout != NULL) != (uout != NULL)); /* floats or integers, one of them */
    gltf_scene *s = c->s;
    const gl_accessor *a = &s->accessors[c->accessor];
    uint32_t ncomp = a->type;
    if (a->view != GL_NONE) {
        if (read_span(c, a->view, a->offset, a->count, s->views[a->view].stride, a->ctype, ncomp, a->normalized, fout,
                      uout, "") != 0) {
            return -1;
        }
    } else if (fout != NULL) {
        memset(fout, 0, (size_t)a->count * ncomp * sizeof *fout);
    } else {
        memset(uout, 0, (size_t)a->count * sizeof *uout);
    }
    uint32_t idx[GL_SPARSE_CHUNK];
    float fval[GL_SPARSE_CHUNK * 4];
    uint32_t uval[GL_SPARSE_CHUNK];
    uint32_t esz = comp_size(a->ctype) * ncomp;
    uint32_t isz = comp_size(a->sparse_index_ctype);
    for (uint32_t k = 0; k < a->sparse_count;) {
        uint32_t n = a->sparse_count - k < GL_SPARSE_CHUNK ? a->sparse_count - k : GL_SPARSE_CHUNK;
        if (read_span(c, a->sparse_index_view, a->sparse_index_offset + (uint64_t)k * isz, n, 0, a->sparse_index_ctype,
                      1, 0, NULL, idx, "sparse indices: ") != 0 ||
            read_span(c, a->sparse_value_view, a->sparse_value_offset + (uint64_t)k * esz, n, 0, a->ctype, ncomp,
                      a->normalized, fout != NULL ? fval : NULL, fout != NULL ? NULL : uval, "sparse values: ") != 0) {
            return -1;
        }
        for (uint32_t e = 0; e < n; e++) {
            if (idx[e] >= a->count) {
                return rd_fail(c, "sparse index %u (entry %u) is out of range (%u elements)", idx[e], k + e, a->count);
            }
            if (fout != NULL) {
                memcpy(fout + (size_t)idx[e] * ncomp, fval + (size_t)e * ncomp, ncomp * sizeof *fout);
            } else {
                uout[idx[e]] = uval[e];
            }
        }
        k += n;
    }
    return 0;
}

/* Reads and checks view vi's meshopt extension object ext (v->compression
 * set): its fields (gltf_meshopt_parse) and its compressed bytes inside
 * their buffer. */
static int parse_meshopt(gltf_scene *s, uint32_t vi, const cJSON *ext)
{
    gl_view *v = &s->views[vi];
    char why[256];
    if (!cJSON_IsObject(ext)) {
        return fail(s, "bufferViews[%u].extensions.%s: expected an object", vi, v->compression);
    }
    if (gltf_meshopt_parse(ext, s->buffer_count, v->stride, v->length, &v->mo, why, sizeof why) != 0) {
        return fail(s, "bufferViews[%u].extensions.%s.%s", vi, v->compression, why);
    }
    const gl_buffer *b = &s->buffers[v->mo.buffer];
    if (v->mo.offset + v->mo.length > b->length) { /* each <= 2^53: no overflow */
        return fail(s,
                    "bufferViews[%u].extensions.%s: compressed bytes [%llu, %llu) lie outside buffer %u (%llu bytes)",
                    vi, v->compression, (unsigned long long)v->mo.offset,
                    (unsigned long long)(v->mo.offset + v->mo.length), v->mo.buffer, (unsigned long long)b->length);
    }
    return 0;
}

static int parse_views(gltf_scene *s, const cJSON *root)
{
    const cJSON *arr;
    if (js_array(s, root, "", "bufferViews", &arr) != 0) {
        return -1;
    }
    uint32_t n = array_count(arr);
    if (n == 0) {
        return 0;
    }
    s->views = calloc(n, sizeof *s->views);
    if (s->views == NULL) {
        return fail(s, "out of memory");
    }
    s->view_count = n;
    uint32_t i = 0;
    const cJSON *item;
    cJSON_ArrayForEach(item, arr)
    {
        char what[48];
        snprintf(what, sizeof what, "bufferViews[%u]", i);
        gl_view *v = &s->views[i];
        uint32_t stride;
        const cJSON *ext;
        if (!cJSON_IsObject(item)) {
            return fail(s, "%s: expected an object", what);
        }
        if (js_index(s, item, what, "buffer", s->buffer_count, "buffers", 1, &v->buffer) != 0 ||
            js_uint(s, item, what, "byteOffset", GL_MAX_SAFE_INT, 0, 0, &v->offset) != 0 ||
            js_uint(s, item, what, "byteLength", GL_MAX_SAFE_INT, 1, 0, &v->length) != 0 ||
            js_u32(s, item, what, "byteStride", 0, 0, &stride) != 0 ||
            js_object(s, item, what, "extensions", &ext) != 0) {
            return -1;
        }
        if (cJSON_HasObjectItem(item, "byteStride") && (stride < 1 || stride > 252)) {
            return fail(s, "%s.byteStride: %u is not in [1, 252]", what, stride);
        }
        v->stride = stride;
        const gl_buffer *b = &s->buffers[v->buffer];
        if (v->offset + v->length > b->length) {
            return fail(s, "%s: bytes [%llu, %llu) lie outside buffer %u (%llu bytes)", what,
                        (unsigned long long)v->offset, (unsigned long long)v->offset + v->length, v->buffer,
                        (unsigned long long)b->length);
        }
        if (ext != NULL && cJSON_HasObjectItem(ext, EXT_MESHOPT)) {
            v->compression = EXT_MESHOPT;
        } else if (ext != NULL && cJSON_HasObjectItem(ext, KHR_MESHOPT)) {
            v->compression = KHR_MESHOPT;
        }
        if (v->compression != NULL && parse_meshopt(s, i, cJSON_GetObjectItemCaseSensitive(ext, v->compression)) != 0) {
            return -1;
        }
        i++;
    }
    return 0;
}

static int component_type(gltf_scene *s, const cJSON *obj, const char *what, int index_only, uint16_t *out)
{
    uint32_t ct;
    if (js_u32(s, obj, what, "componentType", 1, 0, &ct) != 0) {
        return -1;
    }
    int ok = index_only ? (ct == CT_U8 || ct == CT_U16 || ct == CT_U32)
                        : (ct == CT_I8 || ct == CT_U8 || ct == CT_I16 || ct == CT_U16 || ct == CT_U32 || ct == CT_F32);
    if (!ok) {
        return fail(s, "%s.componentType: %u is not %s", what, ct,
                    index_only ? "5121, 5123 or 5125" : "5120, 5121, 5122, 5123, 5125 or 5126");
    }
    *out = (uint16_t)ct;
    return 0;
}

static int parse_accessors(gltf_scene *s, const cJSON *root)
{
    const cJSON *arr;
    if (js_array(s, root, "", "accessors", &arr) != 0) {
        return -1;
    }
    uint32_t n = array_count(arr);
    if (n == 0) {
        return 0;
    }
    s->accessors = calloc(n, sizeof *s->accessors);
    if (s->accessors == NULL) {
        return fail(s, "out of memory");
    }
    s->accessor_count = n;
    uint32_t i = 0;
    const cJSON *item;
    cJSON_ArrayForEach(item, arr)
    {
        char what[48], part[80];
        snprintf(what, sizeof what, "accessors[%u]", i);
        gl_accessor *a = &s->accessors[i];
        const char *type;
        const cJSON *sparse, *norm;
        if (!cJSON_IsObject(item)) {
            return fail(s, "%s: expected an object", what);
        }
        if (js_index(s, item, what, "bufferView", s->view_count, "bufferViews", 0, &a->view) != 0 ||
            js_uint(s, item, what, "byteOffset", GL_MAX_SAFE_INT, 0, 0, &a->offset) != 0 ||
            component_type(s, item, what, 0, &a->ctype) != 0 || js_u32(s, item, what, "count", 1, 0, &a->count) != 0 ||
            js_string(s, item, what, "type", &type) != 0 || js_object(s, item, what, "sparse", &sparse) != 0) {
            return -1;
        }
        norm = cJSON_GetObjectItemCaseSensitive(item, "normalized");
        if (norm != NULL && !cJSON_IsBool(norm)) {
            return fail(s, "%s.normalized: expected true or false", what);
        }
        a->normalized = cJSON_IsTrue(norm) ? 1 : 0;
        if (type == NULL) {
            return fail(s, "%s: 'type' is missing", what);
        }
        for (unsigned t = T_SCALAR; t <= T_MAT4; t++) {
            if (strcmp(type, type_names[t]) == 0) {
                a->type = (uint8_t)t;
            }
        }
        if (a->type == 0) {
            return fail(s, "%s.type: '%s' is not SCALAR, VEC2, VEC3, VEC4, MAT2, MAT3 or MAT4", what, type);
        }
        if (sparse != NULL) {
            const cJSON *ind, *val;
            snprintf(part, sizeof part, "%s.sparse", what);
            if (js_u32(s, sparse, part, "count", 1, 0, &a->sparse_count) != 0) {
                return -1;
            }
            if (a->sparse_count > a->count) {
                return fail(s, "%s.sparse.count: %u is more than the accessor's count %u", what, a->sparse_count,
                            a->count);
            }
            if (js_object(s, sparse, part, "indices", &ind) != 0 || js_object(s, sparse, part, "values", &val) != 0) {
                return -1;
            }
            if (ind == NULL || val == NULL) {
                return fail(s, "%s: 'indices' and 'values' are required", part);
            }
            snprintf(part, sizeof part, "%s.sparse.indices", what);
            if (js_index(s, ind, part, "bufferView", s->view_count, "bufferViews", 1, &a->sparse_index_view) != 0 ||
                js_uint(s, ind, part, "byteOffset", GL_MAX_SAFE_INT, 0, 0, &a->sparse_index_offset) != 0 ||
                component_type(s, ind, part, 1, &a->sparse_index_ctype) != 0) {
                return -1;
            }
            snprintf(part, sizeof part, "%s.sparse.values", what);
            if (js_index(s, val, part, "bufferView", s->view_count, "bufferViews", 1, &a->sparse_value_view) != 0 ||
                js_uint(s, val, part, "byteOffset", GL_MAX_SAFE_INT, 0, 0, &a->sparse_value_offset) != 0) {
                return -1;
            }
        }
        i++;
    }
    return 0;
}

/* ---- meshes ------------------------------------------------------------ */

static int parse_meshes(gltf_scene *s, const cJSON *root)
{
    const cJSON *arr;
    if (js_array(s, root, "", "meshes", &arr) != 0) {
        return -1;
    }
    uint32_t n = array_count(arr);
    if (n == 0) {
        return 0;
    }
    s->meshes = calloc(n, sizeof *s->meshes);
    if (s->meshes == NULL) {
        return fail(s, "out of memory");
    }
    s->mesh_count = n;
    /* First the primitive count, so one array holds them all. */
    uint64_t total = 0;
    uint32_t i = 0;
    const cJSON *item;
    cJSON_ArrayForEach(item, arr)
    {
        char what[48];
        snprintf(what, sizeof what, "meshes[%u]", i);
        const cJSON *prims;
        const char *name;
        if (!cJSON_IsObject(item)) {
            return fail(s, "%s: expected an object", what);
        }
        if (js_array(s, item, what, "primitives", &prims) != 0 || js_string(s, item, what, "name", &name) != 0) {
            return -1;
        }
        if (prims == NULL) {
            return fail(s, "%s: 'primitives' is missing", what);
        }
        snprintf(s->meshes[i].name, sizeof s->meshes[i].name, "%s", name != NULL ? name : "");
        s->meshes[i].first_prim = (uint32_t)total;
        s->meshes[i].prim_count = array_count(prims);
        total += s->meshes[i].prim_count;
        if (total >= UINT32_MAX) {
            return fail(s, "too many primitives");
        }
        i++;
    }
    s->prims = calloc(total > 0 ? total : 1, sizeof *s->prims);
    if (s->prims == NULL) {
        return fail(s, "out of memory");
    }
    s->prim_count = (uint32_t)total;
    i = 0;
    cJSON_ArrayForEach(item, arr)
    {
        const cJSON *prims = cJSON_GetObjectItemCaseSensitive(item, "primitives");
        const cJSON *pj;
        uint32_t j = 0;
        cJSON_ArrayForEach(pj, prims)
        {
            char what[64];
            snprintf(what, sizeof what, "meshes[%u].primitives[%u]", i, j);
            gl_prim *p = &s->prims[s->meshes[i].first_prim + j];
            const cJSON *attrs, *ext;
            uint32_t mode;
            if (!cJSON_IsObject(pj)) {
                return fail(s, "%s: expected an object", what);
            }
            if (js_object(s, pj, what, "attributes", &attrs) != 0 || js_object(s, pj, what, "extensions", &ext) != 0 ||
                js_u32(s, pj, what, "mode", 0, 4, &mode) != 0 ||
                js_index(s, pj, what, "indices", s->accessor_count, "accessors", 0, &p->indices) != 0 ||
                js_index(s, pj, what, "material", array_length(root, "materials"), "materials", 0, &p->material) != 0) {
                return -1;
            }
            if (attrs == NULL) {
                return fail(s, "%s: 'attributes' is missing", what);
            }
            if (mode > 6) {
                return fail(s, "%s.mode: %u is not a glTF primitive mode (0 to 6)", what, mode);
            }
            p->mode = (uint8_t)mode;
            char awhat[80];
            snprintf(awhat, sizeof awhat, "%s.attributes", what);
            if (js_index(s, attrs, awhat, "POSITION", s->accessor_count, "accessors", 0, &p->position) != 0 ||
                js_index(s, attrs, awhat, "NORMAL", s->accessor_count, "accessors", 0, &p->normal) != 0 ||
                js_index(s, attrs, awhat, "TEXCOORD_0", s->accessor_count, "accessors", 0, &p->texcoord) != 0) {
                return -1;
            }
            p->draco = ext != NULL && cJSON_HasObjectItem(ext, EXT_DRACO);
            j++;
        }
        i++;
    }
    return 0;
}

/* ---- materials --------------------------------------------------------- */

/* obj[key] as a number in [lo, hi] into *out; absent: *out untouched. */
static int js_unit(gltf_scene *s, const cJSON *obj, const char *what, const char *key, double lo, double hi, float *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (v == NULL) {
        return 0;
    }
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble)) {
        return fail(s, "%s.%s: expected a finite number", what, key);
    }
    if (!(v->valuedouble >= lo && v->valuedouble <= hi)) {
        if (hi == HUGE_VAL) {
            return fail(s, "%s.%s: %g is below %g", what, key, v->valuedouble, lo);
        }
        return fail(s, "%s.%s: %g is outside [%g, %g]", what, key, v->valuedouble, lo, hi);
    }
    *out = (float)v->valuedouble;
    return 0;
}

/* obj[key] as n numbers each in [0, 1] into out; absent: out untouched. */
static int js_unit_vector(gltf_scene *s, const cJSON *obj, const char *what, const char *key, int n, float *out)
{
    double v[4] = {0.0, 0.0, 0.0, 0.0};
    if (!cJSON_HasObjectItem(obj, key)) {
        return 0;
    }
    if (js_numbers(s, obj, what, key, n, v) != 0) {
        return -1;
    }
    for (int c = 0; c < n; c++) {
        if (!(v[c] >= 0.0 && v[c] <= 1.0)) {
            return fail(s, "%s.%s[%d]: %g is outside [0, 1]", what, key, c, v[c]);
        }
        out[c] = (float)v[c];
    }
    return 0;
}

/* A sampler's field: absent leaves *out; else one of n values. */
static int sampler_field(gltf_scene *s, const cJSON *smp, const char *what, const char *key, const uint32_t *values,
                         int n, const char *names, int *out)
{
    uint32_t v;
    if (!cJSON_HasObjectItem(smp, key)) {
        return 0;
    }
    if (js_u32(s, smp, what, key, 0, 0, &v) != 0) {
        return -1;
    }
    for (int k = 0; k < n; k++) {
        if (values[k] == v) {
            *out = k;
            return 0;
        }
    }
    return fail(s, "%s.%s: %u is not one of %s", what, key, v, names);
}

/* samplers[i]'s wrap modes and filters into t. */
static int apply_sampler(gltf_scene *s, const cJSON *root, uint32_t i, pk_texture_ref *t)
{
    static const uint32_t wraps[] = {10497, 33071, 33648}; /* REPEAT, CLAMP_TO_EDGE, MIRRORED_REPEAT */
    static const pk_wrap wrap_of[] = {PK_WRAP_REPEAT, PK_WRAP_CLAMP_TO_EDGE, PK_WRAP_MIRRORED_REPEAT};
    static const uint32_t mags[] = {9728, 9729};
    static const uint32_t mins[] = {9728, 9729, 9984, 9985, 9986, 9987};
    /* minFilter: within a level, then between levels (UNSET: no mips). */
    static const pk_filter min_of[6][2] = {
        {PK_FILTER_NEAREST, PK_FILTER_UNSET},   {PK_FILTER_LINEAR, PK_FILTER_UNSET},
        {PK_FILTER_NEAREST, PK_FILTER_NEAREST}, {PK_FILTER_LINEAR, PK_FILTER_NEAREST},
        {PK_FILTER_NEAREST, PK_FILTER_LINEAR},  {PK_FILTER_LINEAR, PK_FILTER_LINEAR},
    };
    const cJSON *smp = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root, "samplers"), (int)i);
    char what[48];
    snprintf(what, sizeof what, "samplers[%u]", i);
    if (!cJSON_IsObject(smp)) {
        return fail(s, "%s: expected an object", what);
    }
    int ws = 0, wt = 0, mag = -1, min = -1;
    if (sampler_field(s, smp, what, "wrapS", wraps, 3, "10497, 33071, 33648", &ws) != 0 ||
        sampler_field(s, smp, what, "wrapT", wraps, 3, "10497, 33071, 33648", &wt) != 0 ||
        sampler_field(s, smp, what, "magFilter", mags, 2, "9728, 9729", &mag) != 0 ||
        sampler_field(s, smp, what, "minFilter", mins, 6, "9728, 9729, 9984, 9985, 9986, 9987", &min) != 0) {
        return -1;
    }
    t->wrap_s = wrap_of[ws];
    t->wrap_t = wrap_of[wt];
    t->mag_filter = mag < 0 ? PK_FILTER_UNSET : mag == 0 ? PK_FILTER_NEAREST : PK_FILTER_LINEAR;
    if (min >= 0) {
        t->min_filter = min_of[min][0];
        t->mip_filter = min_of[min][1];
    }
    return 0;
}

/* A slot the importer cannot read: an error, or with skip_unsupported a
 * warning and the slot left empty (returns 1). */
static int slot_unsupported(gltf_scene *s, const char *what, const char *why)
{
    if (!s->opt.skip_unsupported) {
        return fail(s, "%s: %s (--skip-unsupported packs the material without this texture)", what, why);
    }
    warn(s, "%s: %s; the material is packed without this texture", what, why);
    return 1;
}

/* A textureInfo (info, at JSON path what) into slot t: its texture's
 * image and sampler, texCoord, scale (scale_key: "scale", "strength" or
 * NULL) and KHR_texture_transform (whose texCoord, when present, replaces
 * the textureInfo's). */
static int parse_texture_info(gltf_scene *s, const cJSON *root, const cJSON *info, const char *what,
                              const char *scale_key, pk_texture_ref *t)
{
    const cJSON *ext;
    uint32_t tex, texcoord;
    if (!cJSON_IsObject(info)) {
        return fail(s, "%s: expected an object", what);
    }
    if (js_index(s, info, what, "index", array_length(root, "textures"), "textures", 1, &tex) != 0 ||
        js_u32(s, info, what, "texCoord", 0, 0, &texcoord) != 0 || js_object(s, info, what, "extensions", &ext) != 0) {
        return -1;
    }
    if (scale_key != NULL && js_unit(s, info, what, scale_key, strcmp(scale_key, "strength") == 0 ? 0.0 : -HUGE_VAL,
                                     strcmp(scale_key, "strength") == 0 ? 1.0 : HUGE_VAL, &t->scale) != 0) {
        return -1;
    }
    char part[224];
    const cJSON *xf = ext != NULL ? cJSON_GetObjectItemCaseSensitive(ext, "KHR_texture_transform") : NULL;
    if (xf != NULL) {
        double off[2] = {0.0, 0.0}, sc[2] = {1.0, 1.0};
        snprintf(part, sizeof part, "%s.extensions.KHR_texture_transform", what);
        if (!cJSON_IsObject(xf)) {
            return fail(s, "%s: expected an object", part);
        }
        if (js_numbers(s, xf, part, "offset", 2, off) != 0 || js_numbers(s, xf, part, "scale", 2, sc) != 0 ||
            js_unit(s, xf, part, "rotation", -HUGE_VAL, HUGE_VAL, &t->rotation) != 0 ||
            js_u32(s, xf, part, "texCoord", 0, texcoord, &texcoord) != 0) {
            return -1;
        }
        for (int c = 0; c < 2; c++) {
            t->offset[c] = (float)off[c];
            t->uv_scale[c] = (float)sc[c];
        }
    }
    const cJSON *texture = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root, "textures"), (int)tex);
    char twhat[48];
    snprintf(twhat, sizeof twhat, "textures[%u]", tex);
    if (!cJSON_IsObject(texture)) {
        return fail(s, "%s: expected an object", twhat);
    }
    const cJSON *source = cJSON_GetObjectItemCaseSensitive(texture, "source");
    if (source == NULL) {
        const cJSON *text = cJSON_GetObjectItemCaseSensitive(texture, "extensions");
        const char *via = cJSON_IsObject(text) && text->child != NULL ? text->child->string : NULL;
        snprintf(part, sizeof part, "%s (%s)", what, twhat);
        char why[160];
        if (via != NULL) {
            snprintf(why, sizeof why, "the texture has no PNG or JPEG 'source', only %s", via);
        } else {
            snprintf(why, sizeof why, "the texture has no 'source'");
        }
        int rc = slot_unsupported(s, part, why);
        return rc < 0 ? -1 : 0;
    }
    uint32_t sampler;
    if (js_index(s, texture, twhat, "source", s->image_count, "images", 1, &t->image) != 0 ||
        js_index(s, texture, twhat, "sampler", array_length(root, "samplers"), "samplers", 0, &sampler) != 0) {
        return -1;
    }
    t->texcoord = texcoord;
    if (sampler != GL_NONE && apply_sampler(s, root, sampler, t) != 0) {
        return -1;
    }
    return 0;
}

/* materials[]: every field of glTF 2.0's core material, each checked
 * against the range the specification gives, textures resolved to their
 * image and sampler. */
static int parse_materials(gltf_scene *s, const cJSON *root)
{
    const cJSON *arr, *item;
    if (js_array(s, root, "", "materials", &arr) != 0) {
        return -1;
    }
    uint32_t n = array_count(arr);
    if (n == 0) {
        return 0;
    }
    s->materials = calloc(n, sizeof *s->materials);
    if (s->materials == NULL) {
        return fail(s, "out of memory");
    }
    s->material_count = n;
    uint32_t i = 0;
    cJSON_ArrayForEach(item, arr)
    {
        char what[48], pwhat[80], twhat[128];
        pk_material *m = &s->materials[i];
        snprintf(what, sizeof what, "materials[%u]", i++);
        snprintf(pwhat, sizeof pwhat, "%s.pbrMetallicRoughness", what);
        pk_material_default(m);
        const cJSON *pbr, *sided;
        const char *name, *alpha;
        if (!cJSON_IsObject(item)) {
            return fail(s, "%s: expected an object", what);
        }
        if (js_string(s, item, what, "name", &name) != 0 || js_string(s, item, what, "alphaMode", &alpha) != 0 ||
            js_object(s, item, what, "pbrMetallicRoughness", &pbr) != 0 ||
            js_unit_vector(s, item, what, "emissiveFactor", 3, m->emissive) != 0 ||
            js_unit(s, item, what, "alphaCutoff", 0.0, HUGE_VAL, &m->alpha_cutoff) != 0) {
            return -1;
        }
        snprintf(m->name, sizeof m->name, "%s", name != NULL ? name : "");
        if (alpha != NULL) {
            static const char *const modes[] = {"OPAQUE", "MASK", "BLEND"};
            int k = 0;
            while (k < 3 && strcmp(alpha, modes[k]) != 0) {
                k++;
            }
            if (k == 3) {
                return fail(s, "%s.alphaMode: '%s' is not OPAQUE, MASK or BLEND", what, alpha);
            }
            m->alpha_mode = (pk_alpha_mode)k;
        }
        sided = cJSON_GetObjectItemCaseSensitive(item, "doubleSided");
        if (sided != NULL && !cJSON_IsBool(sided)) {
            return fail(s, "%s.doubleSided: expected true or false", what);
        }
        m->double_sided = cJSON_IsTrue(sided);
        if (pbr != NULL && (js_unit_vector(s, pbr, pwhat, "baseColorFactor", 4, m->base_color) != 0 ||
                            js_unit(s, pbr, pwhat, "metallicFactor", 0.0, 1.0, &m->metallic) != 0 ||
                            js_unit(s, pbr, pwhat, "roughnessFactor", 0.0, 1.0, &m->roughness) != 0)) {
            return -1;
        }
        for (int t = 0; t < PK_SLOT_COUNT; t++) {
            const int in_pbr = t == PK_SLOT_BASE_COLOR || t == PK_SLOT_METALLIC_ROUGHNESS;
            const char *key = pk_material_slot_name((pk_material_slot)t);
            const cJSON *info = cJSON_GetObjectItemCaseSensitive(in_pbr ? pbr : item, key);
            if (info == NULL) {
                continue;
            }
            snprintf(twhat, sizeof twhat, "%s.%s", in_pbr ? pwhat : what, key);
            const char *scale_key = t == PK_SLOT_NORMAL ? "scale" : t == PK_SLOT_OCCLUSION ? "strength" : NULL;
            if (parse_texture_info(s, root, info, twhat, scale_key, &m->slot[t]) != 0) {
                return -1;
            }
        }
    }
    return 0;
}

static const char *mode_name(uint32_t mode)
{
    static const char *const names[] = {"POINTS",    "LINES",          "LINE_LOOP",   "LINE_STRIP",
                                        "TRIANGLES", "TRIANGLE_STRIP", "TRIANGLE_FAN"};
    return mode < 7 ? names[mode] : "?";
}

/* Whether primitive j of mesh m is something the importer cannot read
 * (skipped with skip_unsupported); if so, why. */
static int prim_unsupported(const gltf_scene *s, uint32_t m, uint32_t j, char *why, size_t n)
{
    const gl_prim *p = &s->prims[s->meshes[m].first_prim + j];
    if (p->draco) {
        /* Without the extension required, the accessors hold uncompressed
         * fallback data: use it when every accessor read has some. */
        const uint32_t used[4] = {p->position, p->normal, p->texcoord, p->indices};
        int fallback = !s->draco_required && p->position != GL_NONE;
        for (int k = 0; k < 4 && fallback; k++) {
            const gl_accessor *a = used[k] != GL_NONE ? &s->accessors[used[k]] : NULL;
            fallback = a == NULL || a->view != GL_NONE || a->sparse_count > 0;
        }
        if (!fallback) {
            snprintf(why, n,
                     "extension " EXT_DRACO " is not supported (compressed geometry cannot be read without a Draco "
                     "decoder)");
            return 1;
        }
    }
    if (p->mode < 4) {
        snprintf(why, n, "mode %u (%s) is not supported: only triangles, triangle strips and fans are imported",
                 p->mode, mode_name(p->mode));
        return 1;
    }
    if (p->position == GL_NONE) {
        snprintf(why, n, "no POSITION attribute");
        return 1;
    }
    const uint32_t acc[4] = {p->position, p->normal, p->texcoord, p->indices};
    static const char *const roles[4] = {"POSITION", "NORMAL", "TEXCOORD_0", "indices"};
    for (int k = 0; k < 4; k++) {
        char inner[400];
        if (acc[k] != GL_NONE && accessor_unreadable(s, acc[k], inner, sizeof inner)) {
            snprintf(why, n, "accessor %u (%s): %s", acc[k], roles[k], inner);
            return 1;
        }
    }
    return 0;
}

/* ---- nodes and instances ----------------------------------------------- */

typedef struct gl_node {
    double local[16];
    uint32_t mesh;
    uint32_t first_child, child_count;
    uint32_t parent_count;
    const char *name;        /* in the JSON tree, or NULL */
    const cJSON *instancing; /* EXT_mesh_gpu_instancing.attributes, or NULL */
} gl_node;

typedef struct gl_nodes {
    gl_node *node;
    uint32_t count;
    uint32_t *children;
    uint32_t child_total, child_cap;
} gl_nodes;

static int push_instance(gltf_scene *s, uint32_t mesh, const double m[16], const char *name)
{
    if (s->instance_count == s->instance_cap) {
        if (s->instance_cap >= UINT32_MAX / 2) {
            return fail(s, "too many instances");
        }
        uint32_t cap = s->instance_cap ? s->instance_cap * 2 : 16;
        pk_instance *p = realloc(s->instances, (size_t)cap * sizeof *p);
        if (p == NULL) {
            return fail(s, "out of memory");
        }
        s->instances = p;
        s->instance_cap = cap;
    }
    pk_instance *in = &s->instances[s->instance_count++];
    memset(in, 0, sizeof *in);
    in->mesh = mesh;
    for (int k = 0; k < 16; k++) {
        in->matrix[k] = (float)m[k];
    }
    snprintf(in->name, sizeof in->name, "%s", name != NULL ? name : "");
    return 0;
}

/* Appends the children of node ND (WHAT names it in messages) to the child list, counting each child's
 * parents. 0, or -1 with a message. */
static int parse_node_children(gltf_scene *s, gl_nodes *g, gl_node *nd, const char *what, const cJSON *children)
{
    nd->first_child = g->child_total;
    uint32_t k = 0;
    const cJSON *c;
    char cwhat[64];
    snprintf(cwhat, sizeof cwhat, "%s.children", what);
    cJSON_ArrayForEach(c, children)
    {
        uint32_t child = 0;
        if (js_index_item(s, c, cwhat, k, g->count, "nodes", &child) != 0) {
            return -1;
        }
        if (g->child_total == g->child_cap) {
            uint32_t cap = g->child_cap ? g->child_cap * 2 : 64;
            uint32_t *p = cap > g->child_cap ? realloc(g->children, (size_t)cap * sizeof *p) : NULL;
            if (p == NULL) {
                return fail(s, "out of memory");
            }
            g->children = p;
            g->child_cap = cap;
        }
        g->children[g->child_total++] = child;
        g->node[child].parent_count++;
        k++;
    }
    nd->child_count = k;
    return 0;
}

/* The node hierarchy must be a set of trees: no node with two parents, none on a cycle. 0, or -1 with a
 * message. */
static int check_node_trees(gltf_scene *s, const gl_nodes *g)
{
    for (uint32_t i = 0; i < g->count; i++) {
        if (g->node[i].parent_count > 1) {
            return fail(s, "node %u is the child of %u nodes (the node hierarchy must be a set of trees)", i,
                        g->node[i].parent_count);
        }
    }
    /* Each node has at most one parent: whatever a walk from the parentless
     * nodes does not reach lies on a cycle. */
    uint8_t *seen = calloc(g->count > 0 ? g->count : 1, 1);
    uint32_t *stack = malloc((g->count > 0 ? g->count : 1) * sizeof *stack);
    if (seen == NULL || stack == NULL) {
        free(seen);
        free(stack);
        return fail(s, "out of memory");
    }
    for (uint32_t i = 0; i < g->count; i++) {
        if (g->node[i].parent_count != 0) {
            continue;
        }
        uint32_t sp = 0;
        stack[sp++] = i;
        seen[i] = 1;
        while (sp > 0) {
            const gl_node *nd = &g->node[stack[--sp]];
            for (uint32_t k = 0; k < nd->child_count; k++) {
                uint32_t c = g->children[nd->first_child + k];
                seen[c] = 1;
                stack[sp++] = c;
            }
        }
    }
    int rc = 0;
    for (uint32_t i = 0; i < g->count; i++) {
        if (!seen[i]) {
            rc = fail(s, "node %u is part of a cycle in the node hierarchy", i);
            break;
        }
    }
    free(seen);
    free(stack);
    return rc;
}

static int parse_nodes(gltf_scene *s, const cJSON *root, gl_nodes *g)
{
    const cJSON *arr;
    if (js_array(s, root, "", "nodes", &arr) != 0) {
        return -1;
    }
    g->count = array_count(arr);
    g->node = calloc(g->count > 0 ? g->count : 1, sizeof *g->node);
    if (g->node == NULL) {
        return fail(s, "out of memory");
    }
    uint32_t i = 0;
    const cJSON *item;
    cJSON_ArrayForEach(item, arr)
    {
        char what[48];
        snprintf(what, sizeof what, "nodes[%u]", i);
        gl_node *nd = &g->node[i];
        const cJSON *children, *ext, *inst = NULL;
        if (!cJSON_IsObject(item)) {
            return fail(s, "%s: expected an object", what);
        }
        if (js_string(s, item, what, "name", &nd->name) != 0 ||
            js_index(s, item, what, "mesh", s->mesh_count, "meshes", 0, &nd->mesh) != 0 ||
            js_array(s, item, what, "children", &children) != 0 || js_object(s, item, what, "extensions", &ext) != 0 ||
            (ext != NULL && js_object(s, ext, what, EXT_INSTANCING, &inst) != 0)) {
            return -1;
        }
        if (inst != NULL) {
            char iwhat[96];
            snprintf(iwhat, sizeof iwhat, "%s.extensions." EXT_INSTANCING, what);
            if (js_object(s, inst, iwhat, "attributes", &nd->instancing) != 0) {
                return -1;
            }
        }
        if (cJSON_HasObjectItem(item, "matrix")) {
            if (js_numbers(s, item, what, "matrix", 16, nd->local) != 0) {
                return -1;
            }
        } else {
            double t[3] = {0, 0, 0}, r[4] = {0, 0, 0, 1}, sc[3] = {1, 1, 1};
            if (js_numbers(s, item, what, "translation", 3, t) != 0 ||
                js_numbers(s, item, what, "rotation", 4, r) != 0 || js_numbers(s, item, what, "scale", 3, sc) != 0) {
                return -1;
            }
            mat_trs(nd->local, t, r, sc);
        }
        if (parse_node_children(s, g, nd, what, children) != 0) {
            return -1;
        }
        i++;
    }
    return check_node_trees(s, g);
}

/* The instances of node v (which has a mesh) under EXT_mesh_gpu_instancing:
 * world * T * R * S for each, or the node alone (with a warning) when the
 * attributes are not float or cannot be read. */
static int expand_instancing(gltf_scene *s, uint32_t v, const gl_node *nd, const double world[16])
{
    static const char *const names[3] = {"TRANSLATION", "ROTATION", "SCALE"};
    static const uint8_t want[3] = {T_VEC3, T_VEC4, T_VEC3};
    char what[96], where[128], problem[400] = "";
    snprintf(what, sizeof what, "nodes[%u].extensions." EXT_INSTANCING ".attributes", v);
    if (nd->name != NULL) {
        snprintf(where, sizeof where, "node '%.60s' (%u): " EXT_INSTANCING, nd->name, v);
    } else {
        snprintf(where, sizeof where, "node %u: " EXT_INSTANCING, v);
    }
    uint32_t acc[3];
    uint32_t count = GL_NONE;
    for (int k = 0; k < 3; k++) {
        if (js_index(s, nd->instancing, what, names[k], s->accessor_count, "accessors", 0, &acc[k]) != 0) {
            return -1;
        }
    }
    for (int k = 0; k < 3 && problem[0] == '\0'; k++) {
        if (acc[k] == GL_NONE) {
            continue;
        }
        const gl_accessor *a = &s->accessors[acc[k]];
        char why[300];
        if (a->ctype != CT_F32 || a->type != want[k]) {
            snprintf(problem, sizeof problem, "%s accessor %u is %s of componentType %u, not float %s", names[k],
                     acc[k], type_names[a->type], a->ctype, type_names[want[k]]);
        } else if (count != GL_NONE && a->count != count) {
            snprintf(problem, sizeof problem, "the attributes' counts differ (%u and %u)", count, a->count);
        } else if (accessor_unreadable(s, acc[k], why, sizeof why)) {
            if (!s->opt.skip_unsupported) {
                return fail(s, "%s: %s accessor %u: %s", where, names[k], acc[k], why);
            }
            snprintf(problem, sizeof problem, "%s accessor %u: %s", names[k], acc[k], why);
        }
        count = a->count;
    }
    if (problem[0] == '\0' && count == GL_NONE) {
        snprintf(problem, sizeof problem, "no TRANSLATION, ROTATION or SCALE attribute");
    }
    if (problem[0] != '\0') {
        warn(s, "%s: %s; the node is placed once, without its instances", where, problem);
        return push_instance(s, nd->mesh, world, nd->name);
    }
    float *data[3] = {NULL, NULL, NULL};
    int rc = 0;
    for (int k = 0; k < 3 && rc == 0; k++) {
        if (acc[k] == GL_NONE) {
            continue;
        }
        rd_ctx c = {s, where, acc[k], names[k]};
        if (accessor_check(&c, want[k]) != 0) {
            rc = -1;
            break;
        }
        size_t n = (size_t)count * want[k];
        data[k] = malloc(n > 0 ? n * sizeof(float) : 1);
        if (data[k] == NULL) {
            rc = fail(s, "out of memory");
        } else {
            rc = read_accessor(&c, data[k], NULL);
        }
    }
    for (uint32_t i = 0; i < count && rc == 0; i++) {
        double t[3] = {0, 0, 0}, r[4] = {0, 0, 0, 1}, sc[3] = {1, 1, 1}, local[16], m[16];
        for (size_t j = 0; j < 3; j++) {
            if (data[0] != NULL) {
                t[j] = data[0][(size_t)i * 3 + j];
            }
            if (data[2] != NULL) {
                sc[j] = data[2][(size_t)i * 3 + j];
            }
        }
        for (size_t j = 0; j < 4 && data[1] != NULL; j++) {
            r[j] = data[1][(size_t)i * 4 + j];
        }
        mat_trs(local, t, r, sc);
        mat_mul(m, world, local);
        rc = push_instance(s, nd->mesh, m, nd->name);
    }
    for (int k = 0; k < 3; k++) {
        free(data[k]);
    }
    return rc;
}

/* Walks the default scene depth-first into instances. */
static int walk_scene(gltf_scene *s, const cJSON *root, const gl_nodes *g)
{
    const cJSON *scenes, *roots = NULL;
    uint32_t scene = GL_NONE;
    if (js_array(s, root, "", "scenes", &scenes) != 0) {
        return -1;
    }
    uint32_t scene_count = array_count(scenes);
    if (js_index(s, root, "glTF", "scene", scene_count, "scenes", 0, &scene) != 0) {
        return -1;
    }
    uint32_t i = 0;
    const cJSON *item;
    cJSON_ArrayForEach(item, scenes)
    {
        char what[48];
        snprintf(what, sizeof what, "scenes[%u]", i);
        const cJSON *nodes;
        if (!cJSON_IsObject(item)) {
            return fail(s, "%s: expected an object", what);
        }
        if (js_array(s, item, what, "nodes", &nodes) != 0) {
            return -1;
        }
        if (i == (scene != GL_NONE ? scene : 0)) {
            roots = nodes;
        }
        i++;
    }
    if (scene == GL_NONE) {
        scene = 0;
    }
    int rc = 0;
    uint8_t *seen = calloc(g->count > 0 ? g->count : 1, 1);
    uint32_t *stack = malloc((g->count > 0 ? g->count : 1) * sizeof *stack);
    double *world = malloc((size_t)(g->count > 0 ? g->count : 1) * 16 * sizeof *world);
    if (seen == NULL || stack == NULL || world == NULL) {
        rc = fail(s, "out of memory");
    }
    /* The roots: the scene's nodes, or with no scene every parentless node. */
    const cJSON *r = roots != NULL ? roots->child : NULL;
    uint32_t next_parentless = 0, k = 0;
    char what[48];
    snprintf(what, sizeof what, "scenes[%u].nodes", scene);
    while (rc == 0) {
        uint32_t top = GL_NONE;
        if (scene_count > 0) {
            if (r == NULL) {
                break;
            }
            if (js_index_item(s, r, what, k, g->count, "nodes", &top) != 0) {
                rc = -1;
                break;
            }
            r = r->next;
        } else {
            while (next_parentless < g->count && g->node[next_parentless].parent_count != 0) {
                next_parentless++;
            }
            if (next_parentless == g->count) {
                break;
            }
            top = next_parentless++;
        }
        if (seen[top]) {
            rc = fail(s, "%s[%u]: node %u is already in the scene (listed twice, or not a root node)", what, k, top);
            break;
        }
        k++;
        uint32_t sp = 0;
        stack[sp++] = top;
        seen[top] = 1;
        memcpy(world + (size_t)top * 16, g->node[top].local, 16 * sizeof *world);
        while (sp > 0 && rc == 0) {
            uint32_t v = stack[--sp];
            const gl_node *nd = &g->node[v];
            const double *w = world + (size_t)v * 16;
            if (nd->mesh != GL_NONE) {
                rc = nd->instancing != NULL ? expand_instancing(s, v, nd, w) : push_instance(s, nd->mesh, w, nd->name);
            }
            /* Pushed in reverse so the first child is walked first. */
            for (uint32_t c = nd->child_count; c-- > 0 && rc == 0;) {
                uint32_t child = g->children[nd->first_child + c];
                if (seen[child]) {
                    rc = fail(s, "%s: node %u is reached twice (listed in the scene although it has a parent)", what,
                              child);
                    break;
                }
                seen[child] = 1;
                mat_mul(world + (size_t)child * 16, w, g->node[child].local);
                stack[sp++] = child;
            }
        }
    }
    free(seen);
    free(stack);
    free(world);
    return rc;
}

/* ---- open -------------------------------------------------------------- */

static int extension_supported(const char *name)
{
    static const char *const prefixes[] = {"KHR_materials_", "KHR_texture_", "EXT_texture_",
                                           "MSFT_texture_",  "KHR_lights_",  "EXT_lights_"};
    static const char *const names[] = {"KHR_mesh_quantization", EXT_INSTANCING, "KHR_xmp_json_ld", "KHR_xmp",
                                        "KHR_animation_pointer"};
    for (size_t k = 0; k < sizeof prefixes / sizeof prefixes[0]; k++) {
        if (strncmp(name, prefixes[k], strlen(prefixes[k])) == 0) {
            return 1;
        }
    }
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        if (strcmp(name, names[k]) == 0) {
            return 1;
        }
    }
    return 0;
}

static int check_asset_and_extensions(gltf_scene *s, const cJSON *root)
{
    const cJSON *asset, *req;
    const char *version, *min_version;
    if (js_object(s, root, "", "asset", &asset) != 0) {
        return -1;
    }
    if (asset == NULL) {
        return fail(s, "'asset' is missing: not a glTF 2.0 file");
    }
    if (js_string(s, asset, "asset", "version", &version) != 0 ||
        js_string(s, asset, "asset", "minVersion", &min_version) != 0) {
        return -1;
    }
    if (version == NULL) {
        return fail(s, "asset.version is missing: not a glTF 2.0 file");
    }
    if (strncmp(version, "2.", 2) != 0) {
        return fail(s, "asset.version is '%s': only glTF 2.x is supported", version);
    }
    if (min_version != NULL && strcmp(min_version, "2.0") != 0) {
        return fail(s, "asset.minVersion is '%s': only glTF 2.0 is supported", min_version);
    }
    if (js_array(s, root, "", "extensionsRequired", &req) != 0) {
        return -1;
    }
    uint32_t k = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, req)
    {
        if (!cJSON_IsString(e)) {
            return fail(s, "extensionsRequired[%u]: expected a string", k);
        }
        const char *name = e->valuestring;
        if (strcmp(name, EXT_DRACO) == 0) {
            s->draco_required = 1; /* refused per primitive, naming it */
        } else if (strcmp(name, EXT_MESHOPT) == 0 || strcmp(name, KHR_MESHOPT) == 0) {
            /* decoded per view (view_bytes) */
        } else if (!extension_supported(name)) {
            if (!s->opt.skip_unsupported) {
                return fail(s, "extension %s is required but not supported", name);
            }
            warn(s, "extension %s is required but not supported; importing the geometry without it", name);
        }
        k++;
    }
    return 0;
}

/* Reads a .glb's container: the JSON chunk into *json, and where the BIN
 * chunk lies. f stays open for buffer 0. */
static int read_glb(gltf_scene *s, FILE *f, char **json, size_t *json_len, uint64_t *bin_offset, uint64_t *bin_length,
                    int *has_bin)
{
    uint64_t size;
    unsigned char h[12];
    if (file_size(f, &size) != 0 || fseeko(f, 0, SEEK_SET) != 0) {
        return fail(s, "cannot read: %s", strerror(errno));
    }
    if (size < 12 || fread(h, 1, 12, f) != 12) {
        return fail(s, "truncated GLB: %llu bytes, less than the 12-byte header", (unsigned long long)size);
    }
    uint32_t magic = decode_uint(CT_U32, h), version = decode_uint(CT_U32, h + 4), length = decode_uint(CT_U32, h + 8);
    if (magic != GLB_MAGIC) {
        return fail(s, "not a GLB file: the magic is 0x%08x, expected 0x%08x ('glTF')", magic, GLB_MAGIC);
    }
    if (version != 2) {
        return fail(s, "GLB version %u is not supported (only 2)", version);
    }
    if (length > size) {
        return fail(s, "truncated GLB: the header says %u bytes but the file has %llu", length,
                    (unsigned long long)size);
    }
    if (length < 20 || fread(h, 1, 8, f) != 8) {
        return fail(s, "GLB has no JSON chunk (length %u)", length);
    }
    uint32_t jlen = decode_uint(CT_U32, h), jtype = decode_uint(CT_U32, h + 4);
    if (jtype != GLB_JSON) {
        return fail(s, "GLB: the first chunk is of type 0x%08x, not JSON", jtype);
    }
    if ((uint64_t)jlen > (uint64_t)length - 20) {
        return fail(s, "GLB: the JSON chunk of %u bytes runs past the end of the file (%u bytes)", jlen, length);
    }
    *json = malloc((size_t)jlen + 1);
    if (*json == NULL) {
        return fail(s, "out of memory");
    }
    if (fread(*json, 1, jlen, f) != jlen) {
        return fail(s, "cannot read the GLB JSON chunk");
    }
    (*json)[jlen] = '\0';
    *json_len = jlen;
    uint64_t next = 20 + (uint64_t)jlen;
    *has_bin = 0;
    if (next < length) {
        if (length - next < 8) {
            return fail(s, "GLB: %llu bytes after the JSON chunk are too few for a chunk header",
                        (unsigned long long)(length - next));
        }
        if (fseeko(f, (off_t)next, SEEK_SET) != 0 || fread(h, 1, 8, f) != 8) {
            return fail(s, "cannot read the GLB chunk at byte %llu", (unsigned long long)next);
        }
        uint32_t blen = decode_uint(CT_U32, h), btype = decode_uint(CT_U32, h + 4);
        if (btype == GLB_BIN) {
            if ((uint64_t)blen > length - next - 8) {
                return fail(s, "GLB: the BIN chunk of %u bytes runs past the end of the file (%u bytes)", blen, length);
            }
            *has_bin = 1;
            *bin_offset = next + 8;
            *bin_length = blen;
        }
    }
    return 0;
}

static int has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    if (n < k) {
        return 0;
    }
    for (size_t i = 0; i < k; i++) {
        char c = s[n - k + i];
        if (c >= 'A' && c <= 'Z') {
            c = (char)(c - 'A' + 'a');
        }
        if (c != suffix[i]) {
            return 0;
        }
    }
    return 1;
}

/* Reads the whole of a .gltf file F (its JSON text) into *TEXT (NUL-terminated, the caller frees it) and *LEN.
 * 0, or -1 with a message. */
static int read_gltf_text(gltf_scene *s, FILE *f, char **text, size_t *len)
{
    uint64_t size = 0;
    int rc = file_size(f, &size) != 0 || fseeko(f, 0, SEEK_SET) != 0 ? fail(s, "cannot read: %s", strerror(errno)) : 0;
    if (rc == 0 && size >= SIZE_MAX) {
        rc = fail(s, "too large");
    }
    if (rc == 0 && (*text = malloc((size_t)size + 1)) == NULL) {
        rc = fail(s, "out of memory");
    }
    if (rc == 0 && fread(*text, 1, (size_t)size, f) != (size_t)size) {
        rc = fail(s, "cannot read: %s", strerror(errno));
    }
    if (rc == 0) {
        (*text)[size] = '\0';
        *len = (size_t)size;
    }
    return rc;
}

/* Without skip_unsupported, what cannot be imported fails now, before the caller has done any work on the
 * other meshes. 0, or -1 with a message naming the first primitive that cannot be imported. */
static int refuse_unsupported(gltf_scene *s)
{
    int rc = 0;
    for (uint32_t m = 0; rc == 0 && !s->opt.skip_unsupported && m < s->mesh_count; m++) {
        for (uint32_t j = 0; j < s->meshes[m].prim_count; j++) {
            char why[440], where[128];
            if (prim_unsupported(s, m, j, why, sizeof why)) {
                prim_where(s, m, j, where, sizeof where);
                rc = fail(s, "%s: %s", where, why);
                break;
            }
        }
    }
    return rc;
}

static int open_scene(gltf_scene *s)
{
    FILE *f = fopen(s->path, "rb");
    if (f == NULL) {
        return fail(s, "cannot open: %s", strerror(errno));
    }
    unsigned char magic[4] = {0, 0, 0, 0};
    size_t got = fread(magic, 1, 4, f);
    int is_glb = has_suffix(s->path, ".glb") || (got == 4 && decode_uint(CT_U32, magic) == GLB_MAGIC);
    char *text = NULL;
    size_t len = 0;
    uint64_t bin_offset = 0, bin_length = 0;
    int has_bin = 0, rc;
    if (is_glb) {
        rc = read_glb(s, f, &text, &len, &bin_offset, &bin_length, &has_bin);
        if (!has_bin) {
            (void)fclose(f); /* read only: nothing to lose */
            f = NULL;
        }
    } else {
        rc = read_gltf_text(s, f, &text, &len);
        (void)fclose(f); /* read only: nothing to lose */
        f = NULL;
    }
    if (rc != 0) {
        free(text);
        if (f != NULL) {
            (void)fclose(f); /* read only: nothing to lose */
        }
        return -1;
    }
    const char *start = text;
    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) { /* a UTF-8 BOM, tolerated */
        start += 3;
        len -= 3;
    }
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(start, len, &end, 0);
    if (root == NULL) {
        unsigned line = 1, col = 1;
        for (const char *p = start; end != NULL && p < end && p < start + len; p++) {
            if (*p == '\n') {
                line++, col = 1;
            } else {
                col++;
            }
        }
        free(text);
        if (f != NULL) {
            (void)fclose(f); /* read only: nothing to lose */
        }
        return fail(s, "invalid JSON at line %u, column %u", line, col);
    }
    free(text);
    if (!cJSON_IsObject(root)) {
        rc = fail(s, "the JSON is not an object");
    }
    gl_nodes g = {0};
    if (rc == 0) {
        rc = check_asset_and_extensions(s, root);
    }
    if (rc == 0) {
        rc = parse_images(s, root);
    }
    if (rc == 0) {
        rc = check_unread_indices(s, root);
    }
    if (rc == 0) {
        rc = parse_buffers(s, root, is_glb, &f, bin_offset, bin_length);
    }
    if (f != NULL) {
        (void)fclose(f); /* read only; a BIN chunk no buffer uses */
    }
    if (rc == 0) {
        rc = parse_views(s, root);
    }
    if (rc == 0) {
        rc = parse_accessors(s, root);
    }
    if (rc == 0) {
        rc = parse_meshes(s, root);
    }
    if (rc == 0) {
        rc = parse_materials(s, root);
    }
    if (rc == 0) {
        rc = parse_nodes(s, root, &g);
    }
    if (rc == 0) {
        rc = walk_scene(s, root, &g);
    }
    free(g.node);
    free(g.children);
    cJSON_Delete(root);
    if (rc == 0) {
        rc = refuse_unsupported(s);
    }
    return rc;
}

int gltf_open(const char *path, const gltf_options *opt, gltf_scene **out, pk_diag *d)
{
    assert(path != NULL && out != NULL && d != NULL);
    *out = NULL;
    d->message[0] = '\0';
    gltf_scene *s = calloc(1, sizeof *s);
    if (s == NULL) {
        snprintf(d->message, sizeof d->message, "%s: out of memory", path);
        return -1;
    }
    s->diag = d;
    if (opt != NULL) {
        s->opt = *opt;
    }
    s->path = strdup(path);
    s->scratch = malloc((size_t)GL_SCRATCH_BYTES);
    const char *slash = strrchr(path, '/');
    s->dir = s->path != NULL ? strndup(path, slash != NULL ? (size_t)(slash - path + 1) : 0) : NULL;
    if (s->path == NULL || s->scratch == NULL || s->dir == NULL) {
        snprintf(d->message, sizeof d->message, "%s: out of memory", path);
        gltf_close(s);
        return -1;
    }
    if (pk_asset_root_for(path, s->opt.asset_root, s->opt.allow_outside_paths, &s->root, d) != 0) {
        gltf_close(s);
        return -1;
    }
    if (open_scene(s) != 0) {
        gltf_close(s);
        return -1;
    }
    s->diag = NULL;
    *out = s;
    return 0;
}

uint32_t gltf_mesh_count(const gltf_scene *s)
{
    return s->mesh_count;
}

uint32_t gltf_instance_count(const gltf_scene *s)
{
    return s->instance_count;
}

void gltf_get_instance(const gltf_scene *s, uint32_t i, pk_instance *out)
{
    assert(i < s->instance_count);
    *out = s->instances[i];
}

uint32_t gltf_buffer_count(const gltf_scene *s)
{
    return s->buffer_count;
}

uint32_t gltf_image_file_count(const gltf_scene *s)
{
    return s->image_file_count;
}

const char *gltf_get_image_file(const gltf_scene *s, uint32_t i, uint32_t *image)
{
    assert(i < s->image_file_count);
    *image = s->image_file_of[i];
    return s->image_files[i];
}

uint32_t gltf_image_count(const gltf_scene *s)
{
    return s->image_count;
}

/* Decodes image i's bytes from its bufferView. */
static int load_view_image(gltf_scene *s, const gl_image *img, const char *name, pk_image *out, pk_diag *d)
{
    gl_view *v = &s->views[img->view];
    const uint64_t length = v->compression != NULL ? v->mo.size : v->length;
    if (length > PK_IMAGE_MAX_FILE_BYTES) {
        return fail(s, "%s: bufferView %u holds %llu bytes, more than an image may (%llu)", name + strlen(s->path) + 2,
                    img->view, (unsigned long long)length, (unsigned long long)PK_IMAGE_MAX_FILE_BYTES);
    }
    char why[256];
    if (v->compression != NULL) {
        const unsigned char *bytes = view_bytes(s, img->view, why, sizeof why);
        if (bytes == NULL) {
            return fail(s, "%s: bufferView %u (%s): %s", name + strlen(s->path) + 2, img->view, v->compression, why);
        }
        return pk_image_decode(bytes, (size_t)length, name, out, d);
    }
    unsigned char *buf = malloc(length > 0 ? (size_t)length : 1u);
    if (buf == NULL) {
        return fail(s, "%s: out of memory for %llu bytes", name + strlen(s->path) + 2, (unsigned long long)length);
    }
    const char *rwhy = NULL;
    if (buffer_read(s, v->buffer, v->offset, buf, (size_t)length, &rwhy) != 0) {
        free(buf);
        return fail(s, "%s: bufferView %u: buffer %u '%s': %s", name + strlen(s->path) + 2, img->view, v->buffer,
                    s->buffers[v->buffer].uri, rwhy);
    }
    int rc = pk_image_decode(buf, (size_t)length, name, out, d);
    free(buf);
    return rc;
}

int gltf_load_image(gltf_scene *s, uint32_t i, pk_image *out, pk_diag *d)
{
    assert(s != NULL && out != NULL && d != NULL);
    memset(out, 0, sizeof *out);
    s->diag = d;
    char name[PATH_MAX + 64];
    snprintf(name, sizeof name, "%s: images[%u]", s->path, i);
    int rc;
    if (i >= s->image_count) {
        rc = fail(s, "images[%u]: no such image (%u images)", i, s->image_count);
    } else if (s->images[i].path != NULL) {
        rc = pk_image_load(s->images[i].path, out, d);
        if (rc != 0) {
            char why[sizeof d->message];
            memcpy(why, d->message, sizeof why);
            rc = fail(s, "images[%u]: %s", i, why);
        }
    } else if (s->images[i].data != NULL) {
        rc = pk_image_decode(s->images[i].data, s->images[i].data_size, name, out, d);
    } else if (s->images[i].view != GL_NONE) {
        rc = load_view_image(s, &s->images[i], name, out, d);
    } else {
        rc = fail(s, "images[%u]: has no file, data: URI or bufferView the packer reads", i);
    }
    s->diag = NULL;
    return rc;
}

const char *gltf_image_name(const gltf_scene *s, uint32_t i)
{
    assert(i < s->image_count);
    return s->images[i].name;
}

uint32_t gltf_material_count(const gltf_scene *s)
{
    return s->material_count;
}

const pk_material *gltf_get_material(const gltf_scene *s, uint32_t i)
{
    assert(i < s->material_count);
    return &s->materials[i];
}

uint32_t gltf_primitive_count(const gltf_scene *s, uint32_t mesh)
{
    assert(mesh < s->mesh_count);
    return s->meshes[mesh].prim_count;
}

uint32_t gltf_primitive_material(const gltf_scene *s, uint32_t mesh, uint32_t prim)
{
    assert(mesh < s->mesh_count && prim < s->meshes[mesh].prim_count);
    uint32_t m = s->prims[s->meshes[mesh].first_prim + prim].material;
    return m == GL_NONE ? PK_NONE : m;
}

const char *gltf_get_buffer_file(const gltf_scene *s, uint32_t i)
{
    assert(i < s->buffer_count);
    const gl_buffer *b = &s->buffers[i];
    if ((b->state != BUF_FILE && b->state != BUF_MISSING) || b->uri[0] == '\0') {
        return NULL; /* data: URI, no data, or (no uri) the GLB's own BIN chunk */
    }
    return b->path;
}

uint32_t gltf_count_importable(const gltf_scene *s)
{
    uint32_t n = 0;
    for (uint32_t m = 0; m < s->mesh_count; m++) {
        for (uint32_t j = 0; j < s->meshes[m].prim_count; j++) {
            char why[440];
            n += !prim_unsupported(s, m, j, why, sizeof why);
        }
    }
    return n;
}

uint64_t gltf_meshopt_held_bytes(const gltf_scene *s)
{
    return s->decoded_bytes;
}

void gltf_close(gltf_scene *s)
{
    if (s == NULL) {
        return;
    }
    for (uint32_t i = 0; i < s->buffer_count; i++) {
        gl_buffer *b = &s->buffers[i];
        if (b->file != NULL) {
            (void)fclose(b->file); /* read only: nothing to lose */
        }
        free(b->uri);
        free(b->path);
        free(b->data);
    }
    free(s->buffers);
    for (uint32_t i = 0; i < s->image_file_count; i++) {
        free(s->image_files[i]);
    }
    free(s->image_files);
    free(s->image_file_of);
    for (uint32_t i = 0; i < s->image_count; i++) {
        free(s->images[i].data);
    }
    free(s->images);
    free(s->materials);
    for (uint32_t i = 0; i < s->view_count; i++) {
        view_drop(s, &s->views[i]);
    }
    free(s->views);
    free(s->accessors);
    free(s->prims);
    free(s->meshes);
    free(s->instances);
    free(s->scratch);
    free(s->dir);
    free(s->path);
    free(s);
}

/* ---- load -------------------------------------------------------------- */

/* Indices a primitive of mode (4, 5 or 6) with n vertex references yields. */
static uint64_t triangle_indices(uint32_t mode, uint32_t n)
{
    if (mode == 4) {
        return n;
    }
    return n >= 3 ? 3 * ((uint64_t)n - 2) : 0;
}

static int load_primitive(gltf_scene *s, const gl_prim *p, const char *where, pk_mesh *out, uint32_t vbase,
                          uint32_t ibase)
{
    rd_ctx c = {s, where, p->position, "POSITION"};
    uint32_t nv = s->accessors[p->position].count;
    uint32_t n = p->indices != GL_NONE ? s->accessors[p->indices].count : nv;
    if (nv == 0) { /* out->positions may be NULL; any index is out of range */
        if (n == 0) {
            return 0;
        }
        rd_ctx ci = {s, where, p->indices, "indices"};
        return rd_fail(&ci, "%u indices, but POSITION has no vertices", n);
    }
    if (read_accessor(&c, out->positions + (size_t)vbase * 3, NULL) != 0) {
        return -1;
    }
    if (p->normal != GL_NONE) {
        rd_ctx cn = {s, where, p->normal, "NORMAL"};
        if (read_accessor(&cn, out->normals + (size_t)vbase * 3, NULL) != 0) {
            return -1;
        }
    }
    if (p->texcoord != GL_NONE) {
        rd_ctx cu = {s, where, p->texcoord, "TEXCOORD_0"};
        if (read_accessor(&cu, out->uvs + (size_t)vbase * 2, NULL) != 0) {
            return -1;
        }
    }
    if (triangle_indices(p->mode, n) == 0) {
        return 0; /* out->indices may be NULL */
    }
    uint32_t *dst = out->indices + ibase;
    uint32_t *raw = dst;
    if (p->mode != 4) {
        raw = malloc((size_t)n * sizeof *raw);
        if (raw == NULL) {
            return fail(s, "%s: out of memory", where);
        }
    }
    int rc = 0;
    if (p->indices != GL_NONE) {
        rd_ctx ci = {s, where, p->indices, "indices"};
        rc = read_accessor(&ci, NULL, raw);
        const uint16_t ct = s->accessors[p->indices].ctype;
        const uint32_t restart = ct == 5121 ? 0xffu : ct == 5123 ? 0xffffu : 0xffffffffu;
        for (uint32_t k = 0; rc == 0 && k < n; k++) {
            if (raw[k] == restart) {
                /* glTF 2.0: "indices MUST NOT contain the maximum possible
                 * value for the component type", which a GPU may read as a
                 * primitive restart. */
                rc = rd_fail(&ci,
                             "index %u (at %u) is the maximum of its component type (a primitive restart), which "
                             "glTF forbids",
                             raw[k], k);
            } else if (raw[k] >= nv) {
                rc = rd_fail(&ci, "index %u (at %u) is out of range: POSITION has %u vertices", raw[k], k, nv);
            }
        }
    } else {
        for (uint32_t k = 0; k < n; k++) {
            raw[k] = k;
        }
    }
    if (rc == 0 && p->mode == 5) {
        /* glTF: triangle i is (v[i], v[i + 1 + i % 2], v[i + 2 - i % 2]). */
        for (uint32_t i = 0; i + 2 < n; i++) {
            dst[3 * (size_t)i] = raw[i];
            dst[3 * (size_t)i + 1] = raw[i + 1 + i % 2];
            dst[3 * (size_t)i + 2] = raw[i + 2 - i % 2];
        }
    } else if (rc == 0 && p->mode == 6) {
        /* glTF: triangle i is (v[i + 1], v[i + 2], v[0]). */
        for (uint32_t i = 0; i + 2 < n; i++) {
            dst[3 * (size_t)i] = raw[i + 1];
            dst[3 * (size_t)i + 1] = raw[i + 2];
            dst[3 * (size_t)i + 2] = raw[0];
        }
    }
    if (raw != dst) {
        free(raw);
    }
    uint64_t produced = triangle_indices(p->mode, n);
    for (uint64_t k = 0; rc == 0 && k < produced; k++) {
        dst[k] += vbase;
    }
    return rc;
}

static int alloc_floats(gltf_scene *s, float **p, uint64_t count, int zero)
{
    if (count == 0) {
        return 0;
    }
    if (count > SIZE_MAX / sizeof(float)) {
        return fail(s, "the mesh is too large for this machine");
    }
    *p = zero ? calloc((size_t)count, sizeof(float)) : malloc((size_t)count * sizeof(float));
    return *p != NULL ? 0 : fail(s, "out of memory for %llu floats", (unsigned long long)count);
}

/* Pass 1 of gltf_load_mesh for primitive J of mesh I: what it brings, checked before anything is allocated for
 * it, so a lying count cannot make us allocate. *COUNT receives its vertices, *N its indices (its vertices when
 * it has none). 1: unsupported and skipped (with a warning), 0: checked, -1 with a message. */
static int measure_primitive(gltf_scene *s, uint32_t i, uint32_t j, uint32_t *count_out, uint32_t *n_out)
{
    const gl_mesh *m = &s->meshes[i];
    const gl_prim *p = &s->prims[m->first_prim + j];
    char where[128], why[440];
    prim_where(s, i, j, where, sizeof where);
    if (prim_unsupported(s, i, j, why, sizeof why)) {
        if (!s->opt.skip_unsupported) {
            return fail(s, "%s: %s", where, why);
        }
        warn(s, "%s: %s; primitive skipped", where, why);
        return 1;
    }
    rd_ctx c = {s, where, p->position, "POSITION"};
    if (accessor_check(&c, T_VEC3) != 0) {
        return -1;
    }
    int rc = 0;
    uint32_t count = s->accessors[p->position].count;
    const uint32_t att[2] = {p->normal, p->texcoord};
    static const char *const roles[2] = {"NORMAL", "TEXCOORD_0"};
    static const uint8_t types[2] = {T_VEC3, T_VEC2};
    for (int k = 0; k < 2 && rc == 0; k++) {
        if (att[k] == GL_NONE) {
            continue;
        }
        rd_ctx ca = {s, where, att[k], roles[k]};
        rc = accessor_check(&ca, types[k]);
        if (rc == 0 && s->accessors[att[k]].count != count) {
            rc = rd_fail(&ca, "%u elements, but POSITION has %u", s->accessors[att[k]].count, count);
        }
    }
    uint32_t n = count;
    if (rc == 0 && p->indices != GL_NONE) {
        rd_ctx ci = {s, where, p->indices, "indices"};
        const gl_accessor *a = &s->accessors[p->indices];
        rc = accessor_check(&ci, T_SCALAR);
        if (rc == 0 && a->ctype != CT_U8 && a->ctype != CT_U16 && a->ctype != CT_U32) {
            rc = rd_fail(&ci, "componentType %u is not an index type (5121, 5123 or 5125)", a->ctype);
        }
        n = a->count;
    }
    if (rc == 0 && p->mode == 4 && n % 3 != 0) {
        rc = fail(s, "%s: TRIANGLES with %u %s, not a multiple of 3", where, n,
                  p->indices != GL_NONE ? "indices" : "vertices");
    }
    *count_out = count;
    *n_out = n;
    return rc != 0 ? -1 : 0;
}

/* Allocates OUT's arrays for NV vertices (normals and uvs zeroed, when any primitive has them) and NI indices.
 * 0, or -1 with a message. */
static int alloc_mesh_arrays(gltf_scene *s, pk_mesh *out, uint64_t nv, uint64_t ni, int has_normals, int has_uvs)
{
    int rc = 0;
    if (nv > 0) {
        rc = alloc_floats(s, &out->positions, nv * 3, 0);
        if (rc == 0 && has_normals) {
            rc = alloc_floats(s, &out->normals, nv * 3, 1);
        }
        if (rc == 0 && has_uvs) {
            rc = alloc_floats(s, &out->uvs, nv * 2, 1);
        }
    }
    if (rc == 0 && ni > 0) {
        out->indices = ni <= SIZE_MAX / sizeof(uint32_t) ? malloc((size_t)ni * sizeof(uint32_t)) : NULL;
        if (out->indices == NULL) {
            rc = fail(s, "out of memory for %llu indices", (unsigned long long)ni);
        }
    }
    return rc;
}

/* Every primitive, whatever its material (load_mesh's material filter). */
#define GL_ANY_MATERIAL (GL_NONE - 1u)

static int load_mesh(gltf_scene *s, uint32_t i, uint32_t material, pk_mesh *out, pk_diag *d);

int gltf_load_mesh(gltf_scene *s, uint32_t i, pk_mesh *out, pk_diag *d)
{
    return load_mesh(s, i, GL_ANY_MATERIAL, out, d);
}

int gltf_load_mesh_part(gltf_scene *s, uint32_t i, uint32_t material, pk_mesh *out, pk_diag *d)
{
    return load_mesh(s, i, material == PK_NONE ? GL_NONE : material, out, d);
}

uint32_t gltf_mesh_materials(const gltf_scene *s, uint32_t mesh, uint32_t *out, uint32_t cap)
{
    assert(mesh < s->mesh_count);
    const gl_mesh *m = &s->meshes[mesh];
    uint32_t n = 0;
    for (uint32_t j = 0; j < m->prim_count; j++) {
        uint32_t mat = s->prims[m->first_prim + j].material;
        int seen = 0;
        for (uint32_t k = 0; k < n && k < cap && !seen; k++) {
            seen = out[k] == mat;
        }
        if (!seen) {
            if (n < cap) {
                out[n] = mat; /* GL_NONE is PK_NONE */
            }
            n++;
        }
    }
    return n;
}

static int load_mesh(gltf_scene *s, uint32_t i, uint32_t material, pk_mesh *out, pk_diag *d)
{
    assert(s != NULL && out != NULL && d != NULL);
    memset(out, 0, sizeof *out);
    d->message[0] = '\0';
    s->diag = d;
    if (i >= s->mesh_count) {
        fail(s, "mesh %u does not exist (the file has %u)", i, s->mesh_count);
        s->diag = NULL;
        return -1;
    }
    const gl_mesh *m = &s->meshes[i];
    snprintf(out->name, sizeof out->name, "%s", m->name);
    uint8_t *skip = calloc(m->prim_count > 0 ? m->prim_count : 1, 1);
    if (skip == NULL) {
        fail(s, "out of memory");
        s->diag = NULL;
        return -1;
    }
    /* Pass 1: what each primitive brings, checked before anything is
     * allocated for it, so a lying count cannot make us allocate. */
    uint64_t nv = 0, ni = 0;
    int has_normals = 0, has_uvs = 0, rc = 0;
    for (uint32_t j = 0; rc == 0 && j < m->prim_count; j++) {
        const gl_prim *p = &s->prims[m->first_prim + j];
        uint32_t count = 0, n = 0;
        if (material != GL_ANY_MATERIAL && p->material != material) {
            skip[j] = 1; /* another part of the mesh */
            continue;
        }
        int got = measure_primitive(s, i, j, &count, &n);
        if (got < 0) {
            rc = -1;
            break;
        }
        if (got > 0) {
            skip[j] = 1;
            continue;
        }
        nv += count;
        ni += triangle_indices(p->mode, n);
        has_normals |= p->normal != GL_NONE;
        has_uvs |= p->texcoord != GL_NONE;
    }
    if (rc == 0 && (nv > UINT32_MAX || ni > UINT32_MAX)) {
        rc = fail(s, "mesh %u: %llu vertices and %llu indices, more than 32-bit indices can hold", i,
                  (unsigned long long)nv, (unsigned long long)ni);
    }
    if (rc == 0) {
        rc = alloc_mesh_arrays(s, out, nv, ni, has_normals, has_uvs);
    }
    /* Pass 2: read. */
    uint32_t vbase = 0, ibase = 0;
    for (uint32_t j = 0; rc == 0 && j < m->prim_count; j++) {
        if (skip[j]) {
            continue;
        }
        const gl_prim *p = &s->prims[m->first_prim + j];
        char where[128];
        prim_where(s, i, j, where, sizeof where);
        rc = load_primitive(s, p, where, out, vbase, ibase);
        uint32_t n = p->indices != GL_NONE ? s->accessors[p->indices].count : s->accessors[p->position].count;
        vbase += s->accessors[p->position].count;
        ibase += (uint32_t)triangle_indices(p->mode, n);
    }
    free(skip);
    s->diag = NULL;
    if (rc != 0) {
        pk_mesh_free(out);
        return -1;
    }
    out->vertex_count = (uint32_t)nv;
    out->index_count = (uint32_t)ni;
    return 0;
}
