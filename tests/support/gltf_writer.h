/* SPDX-License-Identifier: MIT */
/* Small glTF files written by the tests themselves, shared by the importer's
 * test (test_gltf_import.c) and the round trip (test_pack_roundtrip.c): a
 * temporary folder, raw bytes, JSON with ' for ", one shared geometry
 * buffer (build_geometry) with the JSON head describing its views and
 * accessors, .gltf + .bin, GLB and data: URI forms.
 *
 * Everything is static (inline): include it in one test file each. The
 * including file defines _POSIX_C_SOURCE 200809L (mkdtemp) and includes
 * test_util.h first. */
#ifndef SLUICE_TEST_GLTF_WRITER_H
#define SLUICE_TEST_GLTF_WRITER_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_util.h"

/* ---- files ------------------------------------------------------------- */

/* The folder the files go to (made by gltf_writer_setup) and the names
 * written there (removed by gltf_writer_teardown). */
static char gw_dir[64];
static char gw_names[64][96];
static int gw_name_count;

/* gw_dir/name, in one of four rotating buffers (so a call may take two). */
static inline const char *path_of(const char *name)
{
    static char p[4][256];
    static int k;
    k = (k + 1) % 4;
    int n = snprintf(p[k], sizeof p[k], "%s/%s", gw_dir, name);
    assert_true(n > 0 && (size_t)n < sizeof p[k]);
    return p[k];
}

/* path_of(name), and name is removed by gltf_writer_teardown: for files
 * that something else (a pack builder) writes there. */
static inline const char *tracked_path(const char *name)
{
    int known = 0;
    for (int i = 0; i < gw_name_count; i++) {
        known |= strcmp(gw_names[i], name) == 0;
    }
    if (!known) {
        assert_true(gw_name_count < 64);
        snprintf(gw_names[gw_name_count++], sizeof gw_names[0], "%s", name);
    }
    return path_of(name);
}

static inline void write_bytes(const char *name, const void *data, size_t n)
{
    FILE *f = fopen(tracked_path(name), "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

/* Writes printf-formatted JSON, with ' turned into " so the literals below
 * stay readable. */
static inline void write_json(const char *name, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *t = malloc((size_t)n + 1);
    assert_non_null(t);
    va_start(ap, fmt);
    vsnprintf(t, (size_t)n + 1, fmt, ap);
    va_end(ap);
    for (char *c = t; *c; c++) {
        if (*c == '\'') {
            *c = '"';
        }
    }
    write_bytes(name, t, (size_t)n);
    free(t);
}

/* cmocka group setup and teardown: a fresh folder under /tmp, removed with
 * every file written into it. */
static inline int gltf_writer_setup(void **state)
{
    (void)state;
    snprintf(gw_dir, sizeof gw_dir, "/tmp/sluice_gltf_XXXXXX");
    return mkdtemp(gw_dir) != NULL ? 0 : -1;
}

static inline int gltf_writer_teardown(void **state)
{
    (void)state;
    for (int i = 0; i < gw_name_count; i++) {
        unlink(path_of(gw_names[i]));
    }
    return rmdir(gw_dir);
}

/* ---- the shared geometry buffer --------------------------------------- */

typedef struct bin {
    unsigned char b[1024];
    size_t n;
} bin;

static inline void put(bin *b, const void *p, size_t n)
{
    assert_true(b->n + n <= sizeof b->b);
    memcpy(b->b + b->n, p, n);
    b->n += n;
}
static inline void f32(bin *b, float v)
{
    uint32_t u;
    memcpy(&u, &v, 4);
    unsigned char p[4] = {(unsigned char)u, (unsigned char)(u >> 8), (unsigned char)(u >> 16),
                          (unsigned char)(u >> 24)};
    put(b, p, 4);
}
static inline void u8(bin *b, unsigned v)
{
    unsigned char p = (unsigned char)v;
    put(b, &p, 1);
}
static inline void u16(bin *b, unsigned v)
{
    u8(b, v & 0xff);
    u8(b, (v >> 8) & 0xff);
}
static inline void u32(bin *b, uint32_t v)
{
    u16(b, v & 0xffff);
    u16(b, v >> 16);
}
static inline void i16(bin *b, int v)
{
    u16(b, (unsigned)(v & 0xffff));
}
static inline void pad4(bin *b)
{
    while (b->n % 4 != 0) {
        u8(b, 0);
    }
}
static inline void f32s(bin *b, int n, const float *v)
{
    for (int i = 0; i < n; i++) {
        f32(b, v[i]);
    }
}

static const float pos5[15] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 2, 0, 0};
static const float uv5[10] = {0, 0, 1, 0, 0, 1, 1, 1, 2, 0};

/* The layout the JSON head below describes; its offsets are checked. */
static inline void build_geometry(bin *b)
{
    memset(b, 0, sizeof *b);
    f32s(b, 15, pos5);            /* 0: view 0, positions */
    for (int i = 0; i < 5; i++) { /* 60: view 1, normals */
        f32(b, 0), f32(b, 0), f32(b, 1);
    }
    f32s(b, 10, uv5); /* 120: view 2, uvs */
    assert_int_equal(b->n, 160);
    static const unsigned tri2[6] = {0, 1, 2, 2, 1, 3};
    for (int i = 0; i < 6; i++) { /* 160: view 3, u8 indices */
        u8(b, tri2[i]);
    }
    pad4(b);
    for (int i = 0; i < 6; i++) { /* 168: view 4, u16 indices */
        u16(b, tri2[i]);
    }
    for (int i = 0; i < 6; i++) { /* 180: view 5, u32 indices */
        u32(b, tri2[i]);
    }
    u8(b, 0), u8(b, 1), u8(b, 5); /* 204: view 6, an index out of range */
    pad4(b);
    assert_int_equal(b->n, 208);
    u16(b, 1), u16(b, 3);                                             /* 208: view 7, sparse indices */
    f32(b, 5), f32(b, 5), f32(b, 5), f32(b, 7), f32(b, 7), f32(b, 7); /* 212: view 8, sparse values */
    assert_int_equal(b->n, 236);
    static const int sp[9] = {100, -200, 300, 0, 0, 0, 32767, -32768, 1};
    for (int i = 0; i < 3; i++) { /* 236: view 9, int16 positions, stride 8 */
        i16(b, sp[3 * i]), i16(b, sp[3 * i + 1]), i16(b, sp[3 * i + 2]), i16(b, 0);
    }
    static const int sn[9] = {127, 0, -128, 0, -127, 64, -64, 127, 0};
    for (int i = 0; i < 3; i++) { /* 260: view 10, int8 normals, stride 4 */
        u8(b, (unsigned)(sn[3 * i] & 0xff)), u8(b, (unsigned)(sn[3 * i + 1] & 0xff)),
            u8(b, (unsigned)(sn[3 * i + 2] & 0xff)), u8(b, 0);
    }
    u8(b, 0), u8(b, 255), u8(b, 51), u8(b, 102), u8(b, 255), u8(b, 0); /* 272: view 11, uint8 uvs */
    pad4(b);
    u16(b, 0), u16(b, 65535), u16(b, 65535), u16(b, 0), u16(b, 13107), u16(b, 0); /* 280: view 12, uint16 uvs */
    static const int sq[9] = {32767, -32768, -32767, 16384, 0, 0, 0, 0, 0};
    for (int i = 0; i < 3; i++) { /* 292: view 13, int16 normalized positions, stride 8 */
        i16(b, sq[3 * i]), i16(b, sq[3 * i + 1]), i16(b, sq[3 * i + 2]), i16(b, 0);
    }
    assert_int_equal(b->n, 316);
}

/* buffers, bufferViews and accessors over build_geometry; "%s" is the
 * buffer's uri member (or nothing, in a GLB). The tests append meshes,
 * nodes and scenes. Accessors: 0 positions (5), 1 normals (5), 2 uvs (5),
 * 3/4/5 indices u8/u16/u32 (6), 6 a bad u8 index list, 7 positions (3),
 * 8 positions (6, past its view), 9 positions with a sparse override, 10
 * zeros with the same override, 11 int16 positions, 12 int8 normalized
 * normals, 13 uint8 normalized uvs, 14 uint16 normalized uvs, 15 int16
 * normalized positions, 16 normals (3), 17 uvs (3), 18 positions without a
 * view (Draco's), 19 positions through a meshopt view. */
static const char head[] =
    "{'asset':{'version':'2.0'},"
    "'buffers':[{%s'byteLength':316}],"
    "'bufferViews':["
    "{'buffer':0,'byteOffset':0,'byteLength':60},"
    "{'buffer':0,'byteOffset':60,'byteLength':60},"
    "{'buffer':0,'byteOffset':120,'byteLength':40},"
    "{'buffer':0,'byteOffset':160,'byteLength':6},"
    "{'buffer':0,'byteOffset':168,'byteLength':12},"
    "{'buffer':0,'byteOffset':180,'byteLength':24},"
    "{'buffer':0,'byteOffset':204,'byteLength':3},"
    "{'buffer':0,'byteOffset':208,'byteLength':4},"
    "{'buffer':0,'byteOffset':212,'byteLength':24},"
    "{'buffer':0,'byteOffset':236,'byteLength':24,'byteStride':8},"
    "{'buffer':0,'byteOffset':260,'byteLength':12,'byteStride':4},"
    "{'buffer':0,'byteOffset':272,'byteLength':6},"
    "{'buffer':0,'byteOffset':280,'byteLength':12},"
    "{'buffer':0,'byteOffset':292,'byteLength':24,'byteStride':8},"
    "{'buffer':0,'byteOffset':0,'byteLength':60,'extensions':{'EXT_meshopt_compression':"
    "{'buffer':0,'byteOffset':0,'byteLength':60,'byteStride':12,'mode':'ATTRIBUTES','count':5}}}],"
    "'accessors':["
    "{'bufferView':0,'componentType':5126,'count':5,'type':'VEC3'},"
    "{'bufferView':1,'componentType':5126,'count':5,'type':'VEC3'},"
    "{'bufferView':2,'componentType':5126,'count':5,'type':'VEC2'},"
    "{'bufferView':3,'componentType':5121,'count':6,'type':'SCALAR'},"
    "{'bufferView':4,'componentType':5123,'count':6,'type':'SCALAR'},"
    "{'bufferView':5,'componentType':5125,'count':6,'type':'SCALAR'},"
    "{'bufferView':6,'componentType':5121,'count':3,'type':'SCALAR'},"
    "{'bufferView':0,'componentType':5126,'count':3,'type':'VEC3'},"
    "{'bufferView':0,'componentType':5126,'count':6,'type':'VEC3'},"
    "{'bufferView':0,'componentType':5126,'count':5,'type':'VEC3','sparse':{'count':2,"
    "'indices':{'bufferView':7,'componentType':5123},'values':{'bufferView':8}}},"
    "{'componentType':5126,'count':4,'type':'VEC3','sparse':{'count':2,"
    "'indices':{'bufferView':7,'componentType':5123},'values':{'bufferView':8}}},"
    "{'bufferView':9,'componentType':5122,'count':3,'type':'VEC3'},"
    "{'bufferView':10,'componentType':5120,'normalized':true,'count':3,'type':'VEC3'},"
    "{'bufferView':11,'componentType':5121,'normalized':true,'count':3,'type':'VEC2'},"
    "{'bufferView':12,'componentType':5123,'normalized':true,'count':3,'type':'VEC2'},"
    "{'bufferView':13,'componentType':5122,'normalized':true,'count':3,'type':'VEC3'},"
    "{'bufferView':1,'componentType':5126,'count':3,'type':'VEC3'},"
    "{'bufferView':2,'componentType':5126,'count':3,'type':'VEC2'},"
    "{'componentType':5126,'count':3,'type':'VEC3'},"
    "{'bufferView':14,'componentType':5126,'count':5,'type':'VEC3'}],";

/* A mesh 'm' with one primitive, and one node using it. */
#define ONE_PRIM(prim) "'meshes':[{'name':'m','primitives':[" prim "]}],'nodes':[{'mesh':0}]}"

/* Writes geometry.bin and name (a .gltf) made of head and tail. */
static inline void write_gltf(const char *name, const char *tail)
{
    bin b;
    build_geometry(&b);
    write_bytes("geometry.bin", b.b, b.n);
    char fmt[8192];
    snprintf(fmt, sizeof fmt, "%s%s", head, tail);
    write_json(name, fmt, "'uri':'geometry.bin',");
}

/* A GLB of the JSON text json (with ' for ", padded with spaces) and bin_n
 * bytes of BIN chunk, into out. Returns the GLB's size. */
static inline size_t glb_assemble(unsigned char *out, size_t cap, const char *json, const void *bin_data, size_t bin_n)
{
    size_t jn = strlen(json);
    size_t jpad = (jn + 3) / 4 * 4, bpad = (bin_n + 3) / 4 * 4;
    size_t total = 12 + 8 + jpad + 8 + bpad;
    assert_true(total <= cap && total <= UINT32_MAX);
    bin h = {.n = 0};
    u32(&h, 0x46546C67u), u32(&h, 2), u32(&h, (uint32_t)total);
    u32(&h, (uint32_t)jpad), u32(&h, 0x4E4F534Au);
    memcpy(out, h.b, 20);
    for (size_t i = 0; i < jpad; i++) {
        out[20 + i] = (unsigned char)(i >= jn ? ' ' : json[i] == '\'' ? '"' : json[i]);
    }
    h.n = 0;
    u32(&h, (uint32_t)bpad), u32(&h, 0x004E4942u);
    memcpy(out + 20 + jpad, h.b, 8);
    memcpy(out + 28 + jpad, bin_data, bin_n);
    memset(out + 28 + jpad + bin_n, 0, bpad - bin_n);
    return total;
}

/* A GLB of head + tail with build_geometry as its BIN chunk, into out. */
static inline size_t build_glb(unsigned char *out, size_t cap, const char *tail)
{
    char fmt[8192], json[8192];
    snprintf(fmt, sizeof fmt, "%s%s", head, tail);
    snprintf(json, sizeof json, fmt, "");
    bin b;
    build_geometry(&b);
    return glb_assemble(out, cap, json, b.b, b.n);
}

/* "'uri':'data:application/octet-stream;base64,...'," for n bytes at data,
 * the buffer member head's "%s" takes, into out. */
static inline void data_uri_member(const unsigned char *data, size_t n, char *out, size_t cap)
{
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    int k = snprintf(out, cap, "'uri':'data:application/octet-stream;base64,");
    assert_true(k > 0 && (size_t)k + (n + 2) / 3 * 4 + 3 <= cap);
    size_t at = (size_t)k;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)data[i] << 16 | (i + 1 < n ? (uint32_t)data[i + 1] << 8 : 0) |
                     (i + 2 < n ? data[i + 2] : 0);
        out[at++] = b64[v >> 18 & 63];
        out[at++] = b64[v >> 12 & 63];
        out[at++] = i + 1 < n ? b64[v >> 6 & 63] : '=';
        out[at++] = i + 2 < n ? b64[v & 63] : '=';
    }
    snprintf(out + at, cap - at, "',");
}

/* interleaved.bin and interleaved.gltf: 8 bytes of junk, then 3 vertices of
 * position, normal and uv interleaved with a 32-byte stride; node is the
 * JSON of the one node ("{'mesh':0}"). */
static inline void write_interleaved(const char *node)
{
    bin b = {.n = 0};
    f32(&b, 99), f32(&b, 99);
    for (int i = 0; i < 3; i++) {
        f32(&b, (float)i), f32(&b, (float)(10 + i)), f32(&b, (float)(20 + i));
        f32(&b, 0), f32(&b, (float)(i - 1)), f32(&b, 0.5f);
        f32(&b, 0.25f * (float)i), f32(&b, 1.0f - 0.25f * (float)i);
    }
    assert_int_equal(b.n, 104);
    write_bytes("interleaved.bin", b.b, b.n);
    write_json("interleaved.gltf",
               "{'asset':{'version':'2.0'},'buffers':[{'uri':'interleaved.bin','byteLength':104}],"
               "'bufferViews':[{'buffer':0,'byteOffset':8,'byteLength':96,'byteStride':32}],"
               "'accessors':[{'bufferView':0,'byteOffset':0,'componentType':5126,'count':3,'type':'VEC3'},"
               "{'bufferView':0,'byteOffset':12,'componentType':5126,'count':3,'type':'VEC3'},"
               "{'bufferView':0,'byteOffset':24,'componentType':5126,'count':3,'type':'VEC2'}],"
               "'meshes':[{'primitives':[{'attributes':{'POSITION':0,'NORMAL':1,'TEXCOORD_0':2}}]}],"
               "'nodes':[%s]}",
               node);
}

#endif
