/* SPDX-License-Identifier: MIT */
/* sluice: the on-disk layout of a pack, version 1.3.
 *
 * docs/pack-format.md is the specification; this header states the same
 * layout as C structs for the reader (runtime/src/pack.c) and the writer
 * (tools/). Every integer is little-endian, every float is IEEE-754 binary32
 * little-endian. The structs have no padding (their sizes and field offsets
 * are asserted at the end of this header, so every reader and writer that
 * includes it checks them), so on a little-endian machine a record can be
 * copied straight from the file; a big-endian reader must swap fields. */
#ifndef SLUICE_PACK_FORMAT_H
#define SLUICE_PACK_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* "SLCPACK" followed by a NUL. */
#define SLC_PACK_MAGIC "SLCPACK"
#define SLC_PACK_MAGIC_SIZE 8u

/* A reader refuses a major version it does not know; a newer minor version
 * only adds meaning to reserved fields and optional feature bits, so a
 * reader of the same major version reads it. */
#define SLC_PACK_VERSION_MAJOR 1u
#define SLC_PACK_VERSION_MINOR 3u
/* 1.1 adds the meshopt codecs; 1.2 gives the LOD record's method, measured
 * error and chain end (their words are 0 in older packs); 1.3 adds the
 * section directory (header words reserved0 and reserved1: section_count
 * and section_offset) with the material and texture tables, the object's
 * material, and texture tile chunks (SLC_PACK_CHUNK_TEXTURE). The
 * reference writer writes the oldest minor version whose readers
 * understand the pack: 1.3 when it has a section, else 1.2 when a level
 * records its method or chain end, else 1.1 when a chunk uses a meshopt
 * codec, else 1.0. Older readers read a 1.3 pack's geometry (they ignore
 * the words 1.3 defines; no span names a texture chunk). */

/* Every section (tables and chunk payloads) starts on this boundary. */
#define SLC_PACK_ALIGN 8u

/* Bits of slc_pack_header.required_features: a reader refuses a pack with a
 * bit it does not know. Version 1.0 defines none. */
#define SLC_PACK_REQUIRED_KNOWN 0u

/* Bits of slc_pack_header.optional_features: a reader ignores bits it does
 * not know. */
#define SLC_PACK_OPTIONAL_QUANTIZED 1u /* some object has quantized attributes */

/* Codecs of a chunk's stored bytes. */
#define SLC_PACK_CODEC_STORED 0u /* the stored bytes are the decoded bytes */
#define SLC_PACK_CODEC_LZ4 1u    /* one LZ4 block (LZ4_decompress_safe) */
/* Since 1.1: a meshopt stream (below): the chunk header and cluster records
 * as decoded, then per cluster its vertices through meshoptimizer's vertex
 * codec and its triangles through its index codec. */
#define SLC_PACK_CODEC_MESHOPT 2u
/* Since 1.1: one LZ4 block that decodes to a meshopt stream of at most
 * decoded_size bytes. */
#define SLC_PACK_CODEC_MESHOPT_LZ4 3u
#define SLC_PACK_CODEC_COUNT 4u

/* The meshopt stream (docs/pack-format.md, "Meshopt stream"): after the
 * chunk header and its cluster_count cluster records, copied as they are,
 * each cluster in order has this 4-byte prefix, then vertex_bytes of
 * meshopt_encodeVertexBuffer output (format version 0) for its vertices at
 * the object's stride, then index_bytes of meshopt_encodeIndexBuffer output
 * (format version 1) for its triangle_count x 3 indices. */
typedef struct slc_pack_meshopt_cluster {
    uint16_t vertex_bytes; /* 0 */
    uint16_t index_bytes;  /* 2 */
} slc_pack_meshopt_cluster;

/* The most triangles of one cluster in a meshopt chunk (meshoptimizer's
 * meshlet limit): the reader narrows a cluster's 16-bit indices in a scratch
 * of this many triangles. */
#define SLC_PACK_MESHOPT_MAX_TRIANGLES 512u

/* Bits of slc_pack_chunk.flags. */
#define SLC_PACK_CHUNK_COARSEST 1u /* holds only clusters of objects' coarsest LODs */
/* Since 1.3: a texture's tile or mip tail (slc_pack_texture), no clusters:
 * lod, cluster_count, triangle_count, vertex_count and first_object are 0. */
#define SLC_PACK_CHUNK_TEXTURE 2u

/* Bits of slc_pack_object.attributes: which vertex attributes the object's
 * clusters carry, and how each is encoded (see docs/pack-format.md). */
#define SLC_PACK_ATTR_NORMAL 1u      /* normals present */
#define SLC_PACK_ATTR_UV 2u          /* one set of texture coordinates present */
#define SLC_PACK_ATTR_POS_U16 4u     /* positions: 3 x uint16, offset + q / 65535 * scale */
#define SLC_PACK_ATTR_NORMAL_OCT8 8u /* normals: octahedral 2 x snorm8, 2 bytes padding */
#define SLC_PACK_ATTR_UV_U16 16u     /* uvs: 2 x uint16, uv_offset + q / 65535 * uv_scale */

/* No name: the string offset of an unnamed object or instance. */
#define SLC_PACK_NO_NAME 0xFFFFFFFFu

/* The header, at offset 0: 160 bytes. */
typedef struct slc_pack_header {
    char magic[8];              /*   0: SLC_PACK_MAGIC with its NUL */
    uint16_t version_major;     /*   8 */
    uint16_t version_minor;     /*  10 */
    uint32_t header_size;       /*  12: 160 */
    uint32_t required_features; /*  16 */
    uint32_t optional_features; /*  20 */
    uint32_t page_size;         /*  24: a power of two; no chunk decodes to more */
    uint32_t section_count;     /*  28: since 1.3, records in the section directory; 0 before */
    uint64_t file_size;         /*  32: bytes of the whole pack */
    uint32_t chunk_count;       /*  40 */
    uint32_t object_count;      /*  44 */
    uint32_t lod_count;         /*  48 */
    uint32_t span_count;        /*  52 */
    uint32_t instance_count;    /*  56 */
    uint32_t string_size;       /*  60: bytes of the string table */
    uint64_t chunk_offset;      /*  64: chunk table, chunk_count x 48 bytes */
    uint64_t object_offset;     /*  72: object table, object_count x 96 bytes */
    uint64_t lod_offset;        /*  80: LOD table, lod_count x 48 bytes */
    uint64_t span_offset;       /*  88: span table, span_count x 8 bytes */
    uint64_t instance_offset;   /*  96: instance table, instance_count x 80 bytes */
    uint64_t string_offset;     /* 104: string table, string_size bytes */
    uint64_t chunk_xxh3;        /* 112: XXH3-64 (seed 0) of the chunk table */
    uint64_t object_xxh3;       /* 120: ... of the object table */
    uint64_t lod_xxh3;          /* 128: ... of the LOD table followed by the span table */
    uint64_t instance_xxh3;     /* 136: ... of the instance table followed by the string table */
    uint64_t section_offset;    /* 144: since 1.3, the section directory (8-aligned); 0 when section_count is 0 */
    uint64_t header_xxh3;       /* 152: XXH3-64 (seed 0) of bytes 0..151 */
} slc_pack_header;

/* A chunk: at most one page of clusters, stored once. 48 bytes. */
typedef struct slc_pack_chunk {
    uint64_t offset;         /*  0: of the stored bytes, from the start of the file */
    uint32_t stored_size;    /*  8 */
    uint32_t decoded_size;   /* 12: <= page_size */
    uint64_t xxh3;           /* 16: XXH3-64 (seed 0) of the stored bytes */
    uint8_t codec;           /* 24: SLC_PACK_CODEC_* */
    uint8_t lod;             /* 25: the LOD level of every cluster in it */
    uint8_t flags;           /* 26: SLC_PACK_CHUNK_* */
    uint8_t reserved0;       /* 27: 0 */
    uint32_t cluster_count;  /* 28 */
    uint32_t triangle_count; /* 32 */
    uint32_t vertex_count;   /* 36 */
    uint32_t first_object;   /* 40: the lowest object with clusters in it */
    uint32_t reserved1;      /* 44: 0 */
} slc_pack_chunk;

/* An object: one mesh, its LOD chain and the decode parameters of its
 * vertices. 96 bytes. */
typedef struct slc_pack_object {
    uint32_t name;          /*  0: string table offset, or SLC_PACK_NO_NAME */
    uint32_t first_lod;     /*  4: index into the LOD table */
    uint32_t lod_count;     /*  8: >= 1; level 0 is the finest */
    uint32_t attributes;    /* 12: SLC_PACK_ATTR_* */
    float aabb_min[3];      /* 16 */
    float aabb_max[3];      /* 28 */
    float pos_offset[3];    /* 40: quantized position decode: offset + q / 65535 * scale */
    float pos_scale[3];     /* 52 */
    float uv_offset[2];     /* 64: quantized uv decode */
    float uv_scale[2];      /* 72 */
    uint32_t vertex_stride; /* 80: bytes of one vertex in this object's clusters */
    uint32_t material;      /* 84: since 1.3, 0: none (the default material), else 1 + its material record */
    float uv_density;       /* 88: since 1.3, UV units a unit of object length spans over level 0,
                             *     sqrt(UV area / surface area); 0: no UVs (or no area), and in older packs */
    uint32_t reserved;      /* 92: 0 */
} slc_pack_object;

/* One level of an object's LOD chain. 48 bytes. */
typedef struct slc_pack_lod {
    uint32_t first_span;     /*  0: index into the span table */
    uint32_t span_count;     /*  4 */
    uint32_t triangle_count; /*  8 */
    uint32_t vertex_count;   /* 12 */
    float error;             /* 16: geometric error in object units; 0 at level 0 */
    float sphere[4];         /* 20: bounding sphere, center xyz and radius */
    uint32_t method;         /* 36: since 1.2, SLC_PACK_LOD_METHOD_*: how the level was made; 0 before */
    float measured_error;    /* 40: since 1.2, the level's measured Hausdorff distance to level 0 (<= error) */
    uint32_t chain_end;      /* 44: since 1.2, on an object's last level, SLC_PACK_LOD_END_*: why no level follows */
} slc_pack_lod;

/* slc_pack_lod.method: what made a level from the one before it. */
enum {
    SLC_PACK_LOD_METHOD_NONE = 0,     /* level 0 (or a pack older than 1.2) */
    SLC_PACK_LOD_METHOD_SIMPLIFY = 1, /* edge collapse keeping attribute seams and borders */
    SLC_PACK_LOD_METHOD_WELDED = 2,   /* edge collapse on positions, attribute seams welded for the decision */
    SLC_PACK_LOD_METHOD_SLOPPY = 3,   /* vertex clustering, accepted only within the error cap */
    SLC_PACK_LOD_METHOD_COUNT = 4
};

/* slc_pack_lod.chain_end, on an object's last level (0 on the others and
 * before 1.2). */
enum {
    SLC_PACK_LOD_END_NONE = 0,
    SLC_PACK_LOD_END_MAX_LODS = 1,  /* the chain has the most levels the packer was asked for */
    SLC_PACK_LOD_END_TOO_SMALL = 2, /* no method makes a level at least 5% smaller */
    SLC_PACK_LOD_END_ERROR_CAP = 3, /* every smaller level lies farther from level 0 than the error cap */
    SLC_PACK_LOD_END_COUNT = 4
};

/* Where some of an LOD's clusters lie: a run of clusters in one chunk. 8 bytes. */
typedef struct slc_pack_span {
    uint32_t chunk;         /* 0 */
    uint16_t first_cluster; /* 4 */
    uint16_t cluster_count; /* 6: >= 1 */
} slc_pack_span;

/* A placement of an object in the scene. 80 bytes. */
typedef struct slc_pack_instance {
    uint32_t object;      /*  0 */
    uint32_t name;        /*  4: string table offset, or SLC_PACK_NO_NAME */
    float matrix[16];     /*  8: object to scene, column-major */
    uint32_t reserved[2]; /* 72: 0 */
} slc_pack_instance;

/* Since 1.3: the section directory, at header.section_offset:
 * section_count records, then the XXH3-64 (seed 0) of those records. A
 * section is a table the header has no field for; a reader skips a kind it
 * does not know (a kind a reader must understand comes with a
 * required_features bit). Each kind appears at most once. 32 bytes. */
typedef struct slc_pack_section {
    uint32_t kind;   /*  0: SLC_PACK_SECTION_* */
    uint32_t count;  /*  4: records in the section */
    uint64_t offset; /*  8: 8-aligned, inside the file */
    uint64_t size;   /* 16: bytes: count x the kind's record size */
    uint64_t xxh3;   /* 24: XXH3-64 (seed 0) of the section's bytes */
} slc_pack_section;

#define SLC_PACK_SECTION_MATERIALS 1u /* slc_pack_material records */
#define SLC_PACK_SECTION_TEXTURES 2u  /* slc_pack_texture records */
/* The most sections a 1.x reader takes (the directory is read whole). */
#define SLC_PACK_MAX_SECTIONS 16u

/* A texture slot of a material. 32 bytes. */
typedef struct slc_pack_texture_slot {
    uint32_t texture;  /*  0: 0: empty, else 1 + its texture record */
    uint8_t texcoord;  /*  4: the UV set that reads it */
    uint8_t wrap;      /*  5: bits 0-1 across U, 2-3 across V: SLC_PACK_WRAP_* */
    uint8_t filter;    /*  6: bits 0-1 magnification, 2-3 minification, 4-5 between levels: SLC_PACK_FILTER_* */
    uint8_t reserved;  /*  7: 0 */
    float scale;       /*  8: normal: scale; occlusion: strength; else 1 */
    float offset[2];   /* 12: UV transform: uv' = offset + R(rotation) x (uv_scale * uv) */
    float rotation;    /* 20: radians, counter-clockwise in UV space */
    float uv_scale[2]; /* 24 */
} slc_pack_texture_slot;

#define SLC_PACK_WRAP_REPEAT 0u
#define SLC_PACK_WRAP_CLAMP_TO_EDGE 1u
#define SLC_PACK_WRAP_MIRRORED_REPEAT 2u
#define SLC_PACK_FILTER_UNSET 0u /* the sampler leaves it to the renderer; between levels also: no mips asked */
#define SLC_PACK_FILTER_NEAREST 1u
#define SLC_PACK_FILTER_LINEAR 2u

/* The slots of a material, in this order. */
enum {
    SLC_PACK_SLOT_BASE_COLOR = 0,         /* RGB sRGB colour times base_color, A alpha */
    SLC_PACK_SLOT_METALLIC_ROUGHNESS = 1, /* B metallic, G roughness */
    SLC_PACK_SLOT_NORMAL = 2,             /* tangent-space normal */
    SLC_PACK_SLOT_OCCLUSION = 3,          /* R occlusion */
    SLC_PACK_SLOT_EMISSIVE = 4,           /* RGB sRGB colour times emissive */
    SLC_PACK_SLOT_COUNT = 5
};

/* Bits of slc_pack_material.flags. */
#define SLC_PACK_MATERIAL_DOUBLE_SIDED 1u
#define SLC_PACK_MATERIAL_ALPHA_SHIFT 1u /* bits 1-2: SLC_PACK_ALPHA_* */
#define SLC_PACK_MATERIAL_ALPHA_MASK 6u
#define SLC_PACK_ALPHA_OPAQUE 0u
#define SLC_PACK_ALPHA_MASK 1u /* drawn where alpha >= alpha_cutoff */
#define SLC_PACK_ALPHA_BLEND 2u

/* A material, glTF 2.0's metallic-roughness model. 208 bytes. */
typedef struct slc_pack_material {
    uint32_t name;                                   /*  0: string table offset, or SLC_PACK_NO_NAME */
    uint32_t flags;                                  /*  4: SLC_PACK_MATERIAL_* */
    float alpha_cutoff;                              /*  8: >= 0 */
    float metallic;                                  /* 12: [0, 1] */
    float roughness;                                 /* 16: [0, 1] */
    float base_color[4];                             /* 20: linear RGBA, each [0, 1] */
    float emissive[3];                               /* 36: linear RGB, each [0, 1] */
    slc_pack_texture_slot slot[SLC_PACK_SLOT_COUNT]; /* 48 */
} slc_pack_material;

/* Texel formats of a texture's chunks: uncompressed or GPU blocks. */
enum {
    SLC_PACK_TEXEL_RGBA8 = 1,    /* 4 bytes a texel */
    SLC_PACK_TEXEL_BC1 = 2,      /* 8 bytes a 4 x 4 block */
    SLC_PACK_TEXEL_BC3 = 3,      /* 16 bytes a 4 x 4 block */
    SLC_PACK_TEXEL_ASTC_4X4 = 4, /* 16 bytes a block, ASTC LDR */
    SLC_PACK_TEXEL_ASTC_6X6 = 5,
    SLC_PACK_TEXEL_ASTC_8X8 = 6,
    SLC_PACK_TEXEL_COUNT = 7
};

/* What a texture holds: how it was filtered into mips and how a sampler
 * reads it. */
enum {
    SLC_PACK_TEXTURE_COLOR = 1,  /* sRGB colour, mips in linear light */
    SLC_PACK_TEXTURE_DATA = 2,   /* linear data */
    SLC_PACK_TEXTURE_NORMAL = 3, /* tangent-space normal map, mips renormalised */
    SLC_PACK_TEXTURE_KIND_COUNT = 4
};

/* A texture: one image with its full mip chain, in tiles. Levels 0 ..
 * tiled_levels - 1 (those with a side of at least tile texels) are cut into
 * ceil(w / tile) x ceil(h / tile) tiles each, row by row; a tile chunk holds
 * (tile + 2 border)^2 texels in the texture's format, its border texels
 * from the neighbouring tiles or the wrap modes. The rest of the levels (the
 * mip tail) are one chunk, each level after the other in the format. The
 * texture's chunks are first_chunk .. first_chunk + chunk_count - 1: level
 * 0's tiles, level 1's, ..., then the tail (when there is one). 48 bytes. */
typedef struct slc_pack_texture {
    uint32_t name;         /*  0: string table offset, or SLC_PACK_NO_NAME */
    uint32_t width;        /*  4: level 0, 1 to 16384 */
    uint32_t height;       /*  8 */
    uint8_t format;        /* 12: SLC_PACK_TEXEL_* */
    uint8_t kind;          /* 13: SLC_PACK_TEXTURE_* */
    uint8_t level_count;   /* 14: the full chain: floor(log2(max(width, height))) + 1 */
    uint8_t tiled_levels;  /* 15 */
    uint16_t tile;         /* 16: payload side in texels */
    uint16_t border;       /* 18: texels on each side, <= tile */
    uint8_t wrap;          /* 20: as slc_pack_texture_slot.wrap: how the border and the tail resolve the edges */
    uint8_t reserved0[3];  /* 21: 0 */
    uint32_t first_chunk;  /* 24 */
    uint32_t chunk_count;  /* 28 */
    uint64_t content_hash; /* 32: XXH3-64 of the decoded source (width, height, texel format, texels) */
    uint64_t reserved1;    /* 40: 0 */
} slc_pack_texture;

/* Inside a decoded chunk: a 16-byte header, cluster_count 32-byte cluster
 * records, then each cluster's vertices and its triangles (3 uint8 local
 * indices each), every cluster's vertex data aligned to 4 bytes. */
typedef struct slc_pack_chunk_header {
    uint32_t magic;         /*  0: SLC_PACK_CHUNK_MAGIC */
    uint32_t cluster_count; /*  4 */
    uint32_t lod;           /*  8 */
    uint32_t reserved;      /* 12: 0 */
} slc_pack_chunk_header;

#define SLC_PACK_CHUNK_MAGIC 0x4b434c53u /* "SLCK" */

typedef struct slc_pack_cluster {
    uint32_t object;         /*  0 */
    uint32_t vertex_offset;  /*  4: from the start of the chunk, a multiple of 4 */
    uint32_t index_offset;   /*  8: from the start of the chunk */
    uint16_t vertex_count;   /* 12: <= 255 */
    uint16_t triangle_count; /* 14 */
    float sphere[4];         /* 16: bounding sphere, center xyz and radius */
} slc_pack_cluster;

/* A triangle's canonical order, since 1.1: the rotation of (a, b, c) that
 * is smallest as a tuple (the lowest index first, winding kept). The
 * reference writer stores every triangle so (whatever the codec), and the
 * meshopt codecs decode to it: meshoptimizer's index codec may rotate a
 * triangle, so this is how a meshopt chunk decodes to the same bytes as
 * the stored one. a, b, c < 256. */
static inline void slc_pack_put_triangle(unsigned char dst[3], uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t k0 = a << 16 | b << 8 | c;
    uint32_t k1 = b << 16 | c << 8 | a;
    uint32_t k2 = c << 16 | a << 8 | b;
    uint32_t k = k0 < k1 ? k0 : k1;
    k = k < k2 ? k : k2;
    dst[0] = (unsigned char)(k >> 16);
    dst[1] = (unsigned char)(k >> 8);
    dst[2] = (unsigned char)k;
}

/* The layout is the format: sizes and offsets are asserted, so a change to
 * a struct that would change the file cannot compile, in the reader or in
 * the writer. */
#ifdef __cplusplus
#define SLC_PACK_LAYOUT_ASSERT_(cond, what) static_assert(cond, what)
#else
#define SLC_PACK_LAYOUT_ASSERT_(cond, what) _Static_assert(cond, what)
#endif
SLC_PACK_LAYOUT_ASSERT_(sizeof(slc_pack_header) == 160, "header is 160 bytes");
SLC_PACK_LAYOUT_ASSERT_(offsetof(slc_pack_header, page_size) == 24, "header layout");
SLC_PACK_LAYOUT_ASSERT_(offsetof(slc_pack_header, file_size) == 32, "header layout");
SLC_PACK_LAYOUT_ASSERT_(offsetof(slc_pack_header, chunk_offset) == 64, "header layout");
SLC_PACK_LAYOUT_ASSERT_(offsetof(slc_pack_header, string_offset) == 104, "header layout");
SLC_PACK_LAYOUT_ASSERT_(offsetof(slc_pack_header, chunk_xxh3) == 112, "header layout");
SLC_PACK_LAYOUT_ASSERT_(offsetof(slc_pack_header, header_xxh3) == 152, "header layout");
SLC_PACK_LAYOUT_ASSERT_(sizeof(slc_pack_chunk) == 48, "chunk record is 48 bytes");
SLC_PACK_LAYOUT_ASSERT_(offsetof(slc_pack_chunk, xxh3) == 16, "chunk layout");
SLC_PACK_LAYOUT_ASSERT_(offsetof(slc_pack_chunk, codec) == 24, "chunk layout");
SLC_PACK_LAYOUT_ASSERT_(offsetof(slc_pack_chunk, cluster_count) == 28, "chunk layout");
SLC_PACK_LAYOUT_ASSERT_(offsetof(slc_pack_chunk, first_object) == 40, "chunk layout");
SLC_PACK_LAYOUT_ASSERT_(sizeof(slc_pack_object) == 96, "object record is 96 bytes");
SLC_PACK_LAYOUT_ASSERT_(offsetof(slc_pack_object, aabb_min) == 16, "object layout");
SLC_PACK_LAYOUT_ASSERT_(offsetof(slc_pack_object, pos_offset) == 40, "object layout");
SLC_PACK_LAYOUT_ASSERT_(offsetof(slc_pack_object, uv_offset) == 64, "object layout");
SLC_PACK_LAYOUT_ASSERT_(offsetof(slc_pack_object, vertex_stride) == 80, "object layout");
SLC_PACK_LAYOUT_ASSERT_(sizeof(slc_pack_lod) == 48, "LOD record is 48 bytes");
SLC_PACK_LAYOUT_ASSERT_(offsetof(slc_pack_lod, error) == 16, "LOD layout");
SLC_PACK_LAYOUT_ASSERT_(offsetof(slc_pack_lod, sphere) == 20, "LOD layout");
SLC_PACK_LAYOUT_ASSERT_(offsetof(slc_pack_lod, measured_error) == 40, "LOD layout");
SLC_PACK_LAYOUT_ASSERT_(sizeof(slc_pack_span) == 8, "span record is 8 bytes");
SLC_PACK_LAYOUT_ASSERT_(sizeof(slc_pack_instance) == 80, "instance record is 80 bytes");
SLC_PACK_LAYOUT_ASSERT_(offsetof(slc_pack_instance, matrix) == 8, "instance layout");
SLC_PACK_LAYOUT_ASSERT_(sizeof(slc_pack_chunk_header) == 16, "chunk header is 16 bytes");
SLC_PACK_LAYOUT_ASSERT_(sizeof(slc_pack_cluster) == 32, "cluster record is 32 bytes");
SLC_PACK_LAYOUT_ASSERT_(offsetof(slc_pack_cluster, sphere) == 16, "cluster layout");
SLC_PACK_LAYOUT_ASSERT_(sizeof(slc_pack_meshopt_cluster) == 4, "meshopt cluster prefix is 4 bytes");
SLC_PACK_LAYOUT_ASSERT_(offsetof(slc_pack_header, section_count) == 28, "header layout");
SLC_PACK_LAYOUT_ASSERT_(offsetof(slc_pack_header, section_offset) == 144, "header layout");
SLC_PACK_LAYOUT_ASSERT_(offsetof(slc_pack_object, material) == 84, "object layout");
SLC_PACK_LAYOUT_ASSERT_(sizeof(slc_pack_section) == 32, "section record is 32 bytes");
SLC_PACK_LAYOUT_ASSERT_(sizeof(slc_pack_texture_slot) == 32, "texture slot is 32 bytes");
SLC_PACK_LAYOUT_ASSERT_(sizeof(slc_pack_material) == 208, "material record is 208 bytes");
SLC_PACK_LAYOUT_ASSERT_(offsetof(slc_pack_material, slot) == 48, "material layout");
SLC_PACK_LAYOUT_ASSERT_(sizeof(slc_pack_texture) == 48, "texture record is 48 bytes");
SLC_PACK_LAYOUT_ASSERT_(offsetof(slc_pack_texture, first_chunk) == 24, "texture layout");
SLC_PACK_LAYOUT_ASSERT_(offsetof(slc_pack_texture, content_hash) == 32, "texture layout");
SLC_PACK_LAYOUT_ASSERT_((SLC_PACK_ALIGN & (SLC_PACK_ALIGN - 1)) == 0, "alignment is a power of two");
#undef SLC_PACK_LAYOUT_ASSERT_

#ifdef __cplusplus
}
#endif

#endif
