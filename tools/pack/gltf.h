/* sluice pack: the glTF 2.0 importer (.gltf with .bin files or data: URIs,
 * and .glb). It reads the JSON and keeps the buffers as open files, then
 * loads one mesh at a time on request, so the packer's memory stays bounded
 * by the largest mesh, not the scene. */
#ifndef SLUICE_TOOLS_PACK_GLTF_H
#define SLUICE_TOOLS_PACK_GLTF_H

#include <stdint.h>

#include "mesh.h"

typedef struct gltf_scene gltf_scene;

typedef struct gltf_options {
    /* 0: an unsupported feature (KHR_draco_mesh_compression,
     * EXT_meshopt_compression, points, lines, a missing buffer ...) is an
     * error. 1: it is a warning naming the file, the mesh/primitive or the
     * extension, and the primitive is skipped. */
    int skip_unsupported;
    /* Called for each warning (may be NULL). */
    void (*warn)(void *user, const char *message);
    void *user;
} gltf_options;

/* Opens path. Returns 0, or -1 with d->message naming the file and why
 * (unreadable file, bad JSON, bad GLB container, a required extension that
 * cannot be imported without skip_unsupported). */
int gltf_open(const char *path, const gltf_options *opt, gltf_scene **out, pk_diag *d);

uint32_t gltf_mesh_count(const gltf_scene *s);

/* Loads mesh i: every supported primitive merged into one indexed triangle
 * list (strips and fans converted, non-indexed geometry indexed, sparse
 * accessors applied, normalized and quantized integer attributes turned to
 * float, any byteStride honoured). Returns 0, or -1 with d->message of the
 * form "file: mesh 'name' (3) primitive 1: why". With skip_unsupported an
 * unsupported primitive is skipped with a warning; a mesh left with no
 * triangles then loads with vertex_count 0. */
int gltf_load_mesh(gltf_scene *s, uint32_t i, pk_mesh *out, pk_diag *d);

/* The instances of the default scene (or scene 0, or every root node when
 * there is no scene): one per node that has a mesh, with its world matrix
 * from the node hierarchy (matrix or TRS). */
uint32_t gltf_instance_count(const gltf_scene *s);
void gltf_get_instance(const gltf_scene *s, uint32_t i, pk_instance *out);

void gltf_close(gltf_scene *s);

#endif
