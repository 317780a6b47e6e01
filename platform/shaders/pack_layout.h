/* SPDX-License-Identifier: MIT */
// sluice renderer: the decoded chunk's layout (runtime/include/sluice/
// pack_format.h, slc_pack_chunk_header and slc_pack_cluster) as the shaders
// read it, in 32-bit words. This file is both GLSL and C: only #defines of
// integer literals. platform/src/render_layout.c includes it beside
// pack_format.h and asserts each value against sizeof and offsetof there, so
// a change to the one without the other fails the build.
#ifndef SLC_PACK_LAYOUT_GLSL_H
#define SLC_PACK_LAYOUT_GLSL_H

// Words of the chunk header, before the first cluster record.
#define SLC_GPU_CHUNK_HEADER_WORDS 4u
// Words of one cluster record.
#define SLC_GPU_CLUSTER_WORDS 8u
// Word of a cluster record's fields: its object, the vertex and index
// offsets (bytes from the start of the chunk), the 16-bit vertex and
// triangle counts in one word, and the sphere's four floats.
#define SLC_GPU_CLUSTER_OBJECT 0u
#define SLC_GPU_CLUSTER_VERTEX_OFFSET 1u
#define SLC_GPU_CLUSTER_INDEX_OFFSET 2u
#define SLC_GPU_CLUSTER_COUNTS 3u
#define SLC_GPU_CLUSTER_SPHERE 4u
// Shift of the triangle count in the counts word (the vertex count is its
// low half; the word is read little-endian, as the pool holds it). A
// signed literal, as the shader's shift had it before this file.
#define SLC_GPU_CLUSTER_TRIANGLES_SHIFT 16

#endif
