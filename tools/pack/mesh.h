/* SPDX-License-Identifier: MIT */
/* sluice pack: the in-memory form of one mesh between an importer (glTF or
 * the synthetic generator) and the pack builder. The packer holds one mesh
 * at a time, so its memory does not grow with the number of meshes. */
#ifndef SLUICE_TOOLS_PACK_MESH_H
#define SLUICE_TOOLS_PACK_MESH_H

#include <stddef.h>
#include <stdint.h>

/* One mesh as an indexed triangle list, every attribute as float. */
typedef struct pk_mesh {
    char name[64]; /* "" when unnamed */
    uint32_t vertex_count;
    float *positions;     /* 3 per vertex, never NULL when vertex_count > 0 */
    float *normals;       /* 3 per vertex, or NULL */
    float *uvs;           /* 2 per vertex, or NULL */
    uint32_t index_count; /* a multiple of 3 */
    uint32_t *indices;    /* each < vertex_count */
    uint32_t material;    /* 0: none (the default material); else 1 + the sink's material id */
} pk_mesh;

/* A placement of a mesh in the scene: the node's world matrix. */
typedef struct pk_instance {
    uint32_t mesh;
    float matrix[16]; /* column-major, as glTF */
    char name[64];
} pk_instance;

/* Frees what a mesh owns and zeroes it. */
void pk_mesh_free(pk_mesh *m);

/* A diagnostic: "file: what: why", filled by the importers on failure. */
typedef struct pk_diag {
    char message[512];
} pk_diag;

#endif
