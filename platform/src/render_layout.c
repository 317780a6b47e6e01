/* SPDX-License-Identifier: MIT */
/* sluice: the shaders' view of a decoded chunk (platform/shaders/
 * pack_layout.h, GLSL and C) checked against the format's one definition
 * (sluice/pack_format.h). Nothing here runs: a layout change that only one
 * side makes stops the build at one of these assertions. The build test
 * check_pack_layout compiles this file against altered copies of either
 * header to show it. */
#include <stddef.h>
#include <stdint.h>

#include "sluice/pack_format.h"

#include "pack_layout.h"

#define RD_WORD sizeof(uint32_t) /* bytes of a word the shaders read */

_Static_assert(sizeof(slc_pack_chunk_header) == SLC_GPU_CHUNK_HEADER_WORDS * RD_WORD,
               "pack_layout.h: SLC_GPU_CHUNK_HEADER_WORDS is not slc_pack_chunk_header's size");
_Static_assert(sizeof(slc_pack_cluster) == SLC_GPU_CLUSTER_WORDS * RD_WORD,
               "pack_layout.h: SLC_GPU_CLUSTER_WORDS is not slc_pack_cluster's size");
_Static_assert(offsetof(slc_pack_cluster, object) == SLC_GPU_CLUSTER_OBJECT * RD_WORD,
               "pack_layout.h: SLC_GPU_CLUSTER_OBJECT is not slc_pack_cluster.object");
_Static_assert(offsetof(slc_pack_cluster, vertex_offset) == SLC_GPU_CLUSTER_VERTEX_OFFSET * RD_WORD,
               "pack_layout.h: SLC_GPU_CLUSTER_VERTEX_OFFSET is not slc_pack_cluster.vertex_offset");
_Static_assert(offsetof(slc_pack_cluster, index_offset) == SLC_GPU_CLUSTER_INDEX_OFFSET * RD_WORD,
               "pack_layout.h: SLC_GPU_CLUSTER_INDEX_OFFSET is not slc_pack_cluster.index_offset");
_Static_assert(offsetof(slc_pack_cluster, vertex_count) == SLC_GPU_CLUSTER_COUNTS * RD_WORD,
               "pack_layout.h: SLC_GPU_CLUSTER_COUNTS is not slc_pack_cluster.vertex_count's word");
_Static_assert(offsetof(slc_pack_cluster, triangle_count) ==
                   SLC_GPU_CLUSTER_COUNTS * RD_WORD + SLC_GPU_CLUSTER_TRIANGLES_SHIFT / 8u,
               "pack_layout.h: SLC_GPU_CLUSTER_TRIANGLES_SHIFT is not slc_pack_cluster.triangle_count's place");
_Static_assert(sizeof(((slc_pack_cluster *)0)->triangle_count) * 8u == 32u - SLC_GPU_CLUSTER_TRIANGLES_SHIFT,
               "pack_layout.h: the triangle count is not the counts word's high half");
_Static_assert(offsetof(slc_pack_cluster, sphere) == SLC_GPU_CLUSTER_SPHERE * RD_WORD,
               "pack_layout.h: SLC_GPU_CLUSTER_SPHERE is not slc_pack_cluster.sphere");
_Static_assert(sizeof(((slc_pack_cluster *)0)->sphere) == 4u * RD_WORD, "pack_layout.h: the sphere is not four words");
