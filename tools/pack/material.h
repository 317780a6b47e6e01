/* SPDX-License-Identifier: MIT */
/* sluice pack: a material as the importers give it to the packer, in the
 * terms of glTF 2.0's metallic-roughness model (which UsdPreviewSurface's
 * inputs map onto): factors, alpha, sidedness, and up to five textures,
 * each an image of the importer's with the UV set and sampler that read it.
 *
 * How a slot's texels are to be treated follows from the slot
 * (pk_material_slot_kind): base colour and emissive are colour (sRGB),
 * the normal map a tangent-space normal map, metallic-roughness and
 * occlusion data (linear), as glTF 2.0 says. */
#ifndef SLUICE_TOOLS_PACK_MATERIAL_H
#define SLUICE_TOOLS_PACK_MATERIAL_H
#include <stdint.h>
#include "mip.h"
#include "sluice/pack_format.h"
#include "tile.h"

/* An empty texture slot's image, and a mesh without a material. */
#define PK_NONE UINT32_MAX

typedef enum pk_material_slot {
    PK_SLOT_BASE_COLOR = 0,         /* RGB colour (sRGB) times base_color; A is alpha */
    PK_SLOT_METALLIC_ROUGHNESS = 1, /* B metallic, G roughness (linear) */
    PK_SLOT_NORMAL = 2,             /* tangent-space normal, scaled in X and Y by scale */
    PK_SLOT_OCCLUSION = 3,          /* R occlusion, applied with strength scale */
    PK_SLOT_EMISSIVE = 4,           /* RGB colour (sRGB) times emissive */
    PK_SLOT_COUNT = 5,
} pk_material_slot;

typedef enum pk_alpha_mode {
    PK_ALPHA_OPAQUE = 0,
    PK_ALPHA_MASK = 1, /* drawn where alpha >= alpha_cutoff */
    PK_ALPHA_BLEND = 2,
} pk_alpha_mode;

/* Texture filters, as a sampler states them (0: the sampler leaves it to
 * the renderer). */
typedef enum pk_filter {
    PK_FILTER_UNSET = 0,
    PK_FILTER_NEAREST = 1,
    PK_FILTER_LINEAR = 2,
} pk_filter;

typedef struct pk_texture_ref {
    uint32_t image;       /* the importer's image index, or PK_NONE: the slot is empty */
    uint32_t texcoord;    /* the UV set that reads it */
    pk_wrap wrap_s;       /* across U */
    pk_wrap wrap_t;       /* across V */
    pk_filter mag_filter; /* magnification */
    pk_filter min_filter; /* minification, within a level */
    pk_filter mip_filter; /* between levels; PK_FILTER_UNSET also where the sampler asks for no mips */
    float scale;          /* normal: scale; occlusion: strength; other slots 1 */
    /* The UV transform (glTF's KHR_texture_transform; identity without it):
     * uv' = T(offset) x R(rotation) x S(uv_scale) x uv, rotation in radians
     * counter-clockwise in UV space, as the extension defines it. */
    float offset[2];
    float rotation;
    float uv_scale[2];
} pk_texture_ref;

typedef struct pk_material {
    char name[64];       /* "" when unnamed */
    float base_color[4]; /* linear RGBA factor */
    float emissive[3];   /* linear RGB factor */
    float metallic;      /* [0, 1] */
    float roughness;     /* [0, 1] */
    float alpha_cutoff;  /* PK_ALPHA_MASK's threshold */
    pk_alpha_mode alpha_mode;
    int double_sided; /* 1: back faces drawn, lit with the flipped normal */
    pk_texture_ref slot[PK_SLOT_COUNT];
} pk_material;

/* glTF 2.0's defaults: base colour and metallic and roughness 1, no
 * emission, opaque with cutoff 0.5, single-sided, every slot empty (wrap
 * REPEAT, filters unset, scale 1, identity UV transform). O(1). */
void pk_material_default(pk_material *m);

/* How a slot's texels are filtered into mips (mip.h): colour for base
 * colour and emissive, a normal map for the normal slot, data otherwise.
 * O(1). */
pk_mip_kind pk_material_slot_kind(pk_material_slot slot);

/* The pack's record of m (pack format 1.3, sluice/pack_format.h): its
 * factors and flags, each slot's texture as image + 1 (0 when empty; the
 * caller has made the image fields texture indices), UV set, wrap modes,
 * filters, scale and transform. The name is the caller's (out->name is
 * SLC_PACK_NO_NAME). O(1). */
void pk_material_record(const pk_material *m, slc_pack_material *out);

/* The slot's name as glTF spells it ("baseColorTexture", ...). O(1). */
const char *pk_material_slot_name(pk_material_slot slot);

#endif
