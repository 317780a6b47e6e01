/* SPDX-License-Identifier: MIT */
/* sluice pack: the glTF 2.0 importer (.gltf with .bin files or data: URIs,
 * and .glb). It reads the JSON and keeps the buffers as open files, then
 * loads one mesh at a time on request, so the packer's memory stays bounded
 * by the largest mesh, not the scene. */
#ifndef SLUICE_TOOLS_PACK_GLTF_H
#define SLUICE_TOOLS_PACK_GLTF_H

#include <stdint.h>

#include "image.h"
#include "material.h"
#include "mesh.h"

typedef struct gltf_scene gltf_scene;

/* At most this many buffer files are open at once; past it one is closed
 * and reopened when read again, so a file with thousands of .bin files
 * does not run out of descriptors. */
#define PK_GLTF_MAX_OPEN_FILES 16u

/* An accessor without a bufferView (all zeros, then its sparse values) may
 * have at most this many elements: its count is the only size the file
 * gives, and nothing in the file bounds it, so a lying count must not make
 * the importer allocate gigabytes. */
#define PK_GLTF_MAX_IMPLICIT_COUNT (1u << 24)

/* The decoded copies of EXT_/KHR_meshopt_compression views the scene keeps
 * between reads: a view is decoded whole when an accessor first reads it,
 * and the least recently read copies are freed before a new one would pass
 * this many bytes (one view larger than it alone is still decoded, up to
 * GLTF_MESHOPT_MAX_VIEW_BYTES). So the memory does not grow with the
 * meshes in the file, while meshes that share a view (as gltfpack writes
 * them) do not decode it once each. */
#define PK_GLTF_MESHOPT_CACHE_BYTES ((uint64_t)64 << 20)

typedef struct gltf_options {
    /* 0: an unsupported feature (KHR_draco_mesh_compression, points,
     * lines, a missing buffer ...) is an
     * error. 1: it is a warning naming the file, the mesh/primitive or the
     * extension, and the primitive is skipped. */
    int skip_unsupported;
    /* Called for each warning (may be NULL). */
    void (*warn)(void *user, const char *message);
    void *user;
    /* 0: a buffer or image uri that leaves the glTF file's folder (an
     * absolute path, or a ".." component that climbs above it, after
     * percent-decoding) fails the open, naming its JSON path; the file
     * decides what the packer reads, and a downloaded asset must not make it
     * read (or list) /etc or a sibling project. 1: such paths are followed. */
    int allow_outside_paths;
    /* The asset root uris may reach into (--asset-root DIR); NULL: the
     * rule of tools/pack/asset.h (the current directory when the glTF lies
     * within it, else the glTF's folder). */
    const char *asset_root;
} gltf_options;

/* Opens path. Returns 0, or -1 with d->message naming the file and why
 * (unreadable file, bad JSON, bad GLB container, a required extension that
 * cannot be imported without skip_unsupported).
 *
 * More exactly: a .glb (by name, or by its "glTF" magic) has its header
 * and chunks checked against the file size; a .gltf's buffers are data:
 * URIs (base64, decoded here and kept: they are small by nature) or paths
 * relative to the .gltf's folder, percent-decoded, opened here and kept
 * open (see PK_GLTF_MAX_OPEN_FILES), never read whole. Every field and
 * index the later calls follow is checked here (types, ranges, views
 * inside their buffers, the node hierarchy a set of trees), so nothing a
 * file holds can make a later call crash; the JSON tree is freed before
 * return. Instances are built here (EXT_mesh_gpu_instancing expanded).
 * Without skip_unsupported, a primitive the importer cannot read fails the
 * open with the message gltf_load_mesh would give, so a packer fails
 * before doing any work; also a buffer file that cannot be opened ("file:
 * buffer 0 'x.bin': cannot open DIR/x.bin: why"), and an extension in
 * extensionsRequired that changes how geometry is read (anything except
 * KHR_mesh_quantization, EXT_/KHR_meshopt_compression, EXT_mesh_gpu_instancing, KHR_materials_*,
 * KHR_texture_*, EXT_texture_*, MSFT_texture_*, KHR_lights_*, EXT_lights_*,
 * KHR_xmp(_json_ld), KHR_animation_pointer). Every present index (into
 * buffers, bufferViews, accessors, meshes, nodes, scenes) must name an
 * element; anything else, 4294967295 included, fails naming its JSON path:
 * "x.gltf: bufferViews[2].buffer: index 4294967295 out of range (3
 * buffers)". A uri leaving the glTF's folder fails unless
 * opt->allow_outside_paths. KHR_draco_mesh_compression is refused per
 * primitive, naming the extension; when only used, not required, its
 * uncompressed fallback data is read instead. A bufferView with
 * EXT_meshopt_compression (or KHR_meshopt_compression, the same fields) is
 * read from its compressed bytes, whether the extension is required or
 * only used; its extension object is checked here (gltf_meshopt_parse: the
 * mode, filter, byteStride and count rules of the specification, the
 * compressed bytes inside their buffer), failing with "x.gltf:
 * bufferViews[1].extensions.EXT_meshopt_compression.byteStride: 1 is not 2
 * or 4 (mode TRIANGLES)". A buffer marked "fallback": true in either
 * extension is never opened, nor is one without a uri. opt may be NULL (all
 * zero). Allocates; not
 * thread-safe on one scene, independent scenes are independent. */
int gltf_open(const char *path, const gltf_options *opt, gltf_scene **out, pk_diag *d);

uint32_t gltf_mesh_count(const gltf_scene *s);

/* Loads mesh i: every supported primitive merged into one indexed triangle
 * list (strips and fans converted, non-indexed geometry indexed, sparse
 * accessors applied, normalized and quantized integer attributes turned to
 * float, any byteStride honoured). Returns 0, or -1 with d->message of the
 * form "file: mesh 'name' (3) primitive 1: why". With skip_unsupported an
 * unsupported primitive is skipped with a warning; a mesh left with no
 * triangles then loads with vertex_count 0. An unnamed mesh is "mesh 3
 * primitive 1" in messages. i >= gltf_mesh_count is an error too.
 *
 * Reads only the byte ranges the mesh's accessors name, through a fixed
 * 64 KiB scratch buffer; allocates only the returned arrays (and, for a
 * strip or fan, its raw index list while converting). A meshopt-compressed
 * view is read whole and decoded when an accessor first reads it, and kept
 * within PK_GLTF_MESHOPT_CACHE_BYTES; compressed bytes meshoptimizer
 * refuses fail the load: "x.gltf: mesh 'm' (0) primitive 0: accessor 1
 * (indices): bufferView 1 (EXT_meshopt_compression): the N compressed bytes
 * do not decode as 6 TRIANGLES of 2 bytes (meshoptimizer: -2)". Attributes missing
 * from some primitives (NORMAL, TEXCOORD_0) are zero for those vertices;
 * COLOR, JOINTS, WEIGHTS, TANGENT and morph targets are ignored. Strips:
 * triangle i is (v[i], v[i+1+i%2], v[i+2-i%2]); fans: (v[i+1], v[i+2],
 * v[0]), as the glTF spec defines them. Every read is bounded by its
 * bufferView; an index >= the primitive's vertex count is an error. On
 * failure *out is left zeroed. */
int gltf_load_mesh(gltf_scene *s, uint32_t i, pk_mesh *out, pk_diag *d);

/* gltf_load_mesh of the primitives of mesh i whose material is material
 * (PK_NONE: those without one) only: the part of a mesh one material
 * covers, each part an object of its own in the pack. Fails as
 * gltf_load_mesh does; a part whose primitives were all skipped loads with
 * vertex_count 0. */
int gltf_load_mesh_part(gltf_scene *s, uint32_t i, uint32_t material, pk_mesh *out, pk_diag *d);
/* The distinct materials of mesh's primitives (PK_NONE for those without
 * one), in the order they first appear: the first cap written to out, the
 * count returned. O(primitives x materials). */
uint32_t gltf_mesh_materials(const gltf_scene *s, uint32_t mesh, uint32_t *out, uint32_t cap);
/* The instances of the default scene (or scene 0, or every root node when
 * there is no scene): one per node that has a mesh, with its world matrix
 * from the node hierarchy (matrix or TRS). */
uint32_t gltf_instance_count(const gltf_scene *s);
/* Instances come in depth-first pre-order, children in their listed
 * order; a node with EXT_mesh_gpu_instancing gives one instance per
 * element (world * T * R * S), all named after the node. O(1); i must be
 * below gltf_instance_count (asserted). */
void gltf_get_instance(const gltf_scene *s, uint32_t i, pk_instance *out);

/* The buffers of the file (the glTF "buffers" array). O(1). */
uint32_t gltf_buffer_count(const gltf_scene *s);

/* The file buffer i is read from, as the importer opens it (the glTF's
 * folder joined with the percent-decoded uri), or NULL when the buffer is a
 * data: URI, a GLB's own BIN chunk or has no data. With the file itself
 * these are every file the scene reads, so a caller can refuse to write
 * over one of them. i must be below gltf_buffer_count (asserted). O(1). */
const char *gltf_get_buffer_file(const gltf_scene *s, uint32_t i);

/* The files the scene's images name by uri (not data: URIs, not buffer
 * views), each as the importer would open it (the glTF's folder joined
 * with the percent-decoded uri), and in *image which image names it. The
 * images are inputs as the buffers are: no output may replace one. i below
 * gltf_image_file_count (asserted). O(1). */
uint32_t gltf_image_file_count(const gltf_scene *s);
const char *gltf_get_image_file(const gltf_scene *s, uint32_t i, uint32_t *image);

/* The images of the file (the glTF "images" array). O(1). */
uint32_t gltf_image_count(const gltf_scene *s);
/* Decodes image i (image.h: PNG or JPEG; any other container refused
 * naming it) from where the file keeps it: the file its uri names (read
 * whole, at most PK_IMAGE_MAX_FILE_BYTES), a data: URI (decoded at open),
 * or a bufferView (its bytes read, or decoded when meshopt-compressed).
 * Returns 0, or -1 with d->message naming the glTF, the image and the
 * failed check ("x.gltf: images[2]: DIR/a.png: ..."); *out is zeroed on
 * failure. i >= gltf_image_count fails too. Allocates the texels and, for
 * a bufferView, its bytes for the call. */
int gltf_load_image(gltf_scene *s, uint32_t i, pk_image *out, pk_diag *d);
/* Image i's name: its "name", else the name of the file its uri names,
 * else "" (a data: URI or bufferView without a name); at most 63 bytes.
 * O(1); i below gltf_image_count (asserted). */
const char *gltf_image_name(const gltf_scene *s, uint32_t i);
/* The materials of the file, in the order of its "materials" array, every
 * field checked at open against the range glTF 2.0 gives (factors in
 * [0, 1], alphaCutoff >= 0, occlusion strength in [0, 1], alphaMode one of
 * OPAQUE, MASK, BLEND, doubleSided a boolean, sampler enums among glTF's),
 * failing the open naming the JSON path ("x.gltf:
 * materials[0].pbrMetallicRoughness.metallicFactor: 2 is outside [0,
 * 1]"); each textureInfo resolved to its texture's image (slot image:
 * the index gltf_load_image takes), sampler, texCoord and
 * KHR_texture_transform (offset, rotation, scale; its texCoord replaces
 * the textureInfo's). A slot's texCoord is recorded as the file gives it
 * (gltf_load_mesh imports TEXCOORD_0 alone). A texture with no PNG or JPEG
 * 'source' (one only through KHR_texture_basisu, EXT_texture_webp, ...)
 * fails the open naming the slot's JSON path and the extension, or with
 * skip_unsupported leaves the slot empty with a warning. Other material
 * extensions (KHR_materials_*) are
 * ignored. O(1); i below gltf_material_count (asserted). */
uint32_t gltf_material_count(const gltf_scene *s);
const pk_material *gltf_get_material(const gltf_scene *s, uint32_t i);
/* Mesh mesh's primitives, and the material primitive prim names
 * (PK_NONE: none, glTF's default material). O(1); asserted in range. */
uint32_t gltf_primitive_count(const gltf_scene *s, uint32_t mesh);
uint32_t gltf_primitive_material(const gltf_scene *s, uint32_t mesh, uint32_t prim);
/* The primitives gltf_load_mesh will import (not skipped as unsupported),
 * over every mesh: with skip_unsupported, 0 means there is nothing to pack,
 * known before any mesh is read. Walks every primitive; O(primitives). */
uint32_t gltf_count_importable(const gltf_scene *s);

/* The bytes the scene now holds in decoded copies of meshopt-compressed
 * views (see PK_GLTF_MESHOPT_CACHE_BYTES): for tests and diagnostics. O(1). */
uint64_t gltf_meshopt_held_bytes(const gltf_scene *s);

void gltf_close(gltf_scene *s);

#endif
