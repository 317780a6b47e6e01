/* SPDX-License-Identifier: MIT */
/* sluice pack: USD materials (UsdShade) as the pack's materials. A Material
 * prim whose outputs:surface connects to a UsdPreviewSurface shader becomes
 * a pk_material (material.h, glTF's metallic-roughness model), its
 * UsdUVTexture inputs texture slots; the images are decoded and handed to
 * the sink when a mesh first names the material.
 *
 * What is read (docs/usd-import.md says the same for users):
 *   UsdPreviewSurface  diffuseColor -> base colour RGB; opacity -> base
 *                      colour alpha; emissiveColor; metallic; roughness;
 *                      normal; occlusion; opacityThreshold (> 0: alpha MASK
 *                      with that cutoff; else opacity < 1 or textured: BLEND).
 *                      Unauthored inputs take UsdPreviewSurface's fallbacks
 *                      (diffuse 0.18 grey, metallic 0, roughness 0.5, opacity
 *                      1, no emission). Its other inputs (specular workflow,
 *                      clearcoat, ior, displacement) have no place in the
 *                      pack's model and are not read.
 *   UsdUVTexture       inputs:file (resolved against the layer that wrote it,
 *                      checked against the asset root, a usdz entry read from
 *                      its package), wrapS/wrapT (repeat, clamp, mirror;
 *                      black and useMetadata, USD's fallback, as clamp:
 *                      PNG and JPEG carry no wrap metadata and the pack has no
 *                      border colour), scale (folded into the slot's factor),
 *                      bias (only 0), sourceColorSpace (a mismatch with the
 *                      slot is a warning), outputs rgb, r, g, b, a.
 *   UsdPrimvarReader_float2  inputs:varname: the UV primvar, which must be
 *                      the mesh's (checked per mesh).
 * A connection to a Material's or NodeGraph's interface input is followed
 * to its value or further connection.
 *
 * The pack's slots read fixed channels (base colour RGBA, metallic B and
 * roughness G, occlusion R, normal and emissive RGB). A slot whose inputs
 * read other channels, or two files, gets an RGBA8 image built by copying
 * each channel from its source (usd_shade_slot). */
#ifndef SLUICE_TOOLS_PACK_USD_SHADE_H
#define SLUICE_TOOLS_PACK_USD_SHADE_H

#include <stdint.h>

#include "asset.h"
#include "material.h"
#include "image.h"
#include "usd_layer.h"

/* A composed prim, as the stage gives it. */
typedef struct usd_shade_prim usd_shade_prim;

/* What the material reader needs of the stage. */
typedef struct usd_shade_stage {
    void *user;
    /* Composes the prim at an absolute composed path: 0 and *out (released
     * with release), 1 when no prim is there, -1 with d->message. */
    int (*compose)(void *user, const char *path, usd_shade_prim **out, pk_diag *d);
    void (*release)(void *user, usd_shade_prim *p);
    /* The strongest property named name (usd_stage's rule), or NULL. */
    const usd_prop *(*prop)(const usd_shade_prim *p, const char *name);
    /* The composed type name ("" untyped). */
    const char *(*type)(const usd_shade_prim *p);
    /* The name of the layer of the prim's strongest spec (for messages). */
    const char *(*layer)(const usd_shade_prim *p);
    /* 0: what cannot be read is an error; 1: a warning, and it is left out. */
    int skip_unsupported;
    void (*warn)(void *user, const char *message);
    const pk_asset_root *root; /* texture files are checked against it */
} usd_shade_stage;

/* A slot's destination channel reads no file: its fill value. */
#define USD_SHADE_FILL 0xffu
/* Texture files one material may read (two per slot at most). */
#define USD_SHADE_MAX_FILES 8u

/* Where a slot's texels come from. */
typedef struct usd_shade_slot {
    uint8_t file[4];    /* per destination channel R, G, B, A: a file index, or USD_SHADE_FILL */
    uint8_t channel[4]; /* the file's channel it copies */
    uint8_t fill[4];    /* the value of a channel that reads no file */
    uint8_t reads;      /* bit c: the slot's shader reads channel c */
    char *texture;      /* the composed path of its (first) UsdUVTexture, for messages */
    const char *layer;  /* that prim's layer, for messages */
    char *primvar;      /* the UV primvar its textures read */
} usd_shade_slot;

typedef struct usd_shade_file {
    char *resolved; /* usd_layer_resolve's form: a path, or "pkg.usdz[entry]" */
    char *written;  /* as the layer wrote it */
} usd_shade_file;

/* One Material, read. m.slot[s].image is s for a slot with a texture
 * (slot[s] says where its texels come from), PK_NONE otherwise. */
typedef struct usd_shade_material {
    char *path; /* the Material's composed path */
    pk_material m;
    usd_shade_slot slot[PK_SLOT_COUNT];
    usd_shade_file file[USD_SHADE_MAX_FILES];
    uint32_t file_count;
} usd_shade_material;

/* The materials of a stage, each read once. */
typedef struct usd_shade_table usd_shade_table;

usd_shade_table *usd_shade_table_create(void);
void usd_shade_table_free(usd_shade_table *t);

/* The entry of the Material at composed path `path`, which a prim's
 * material:binding names: read (composed, its network followed) the first
 * time. who is "LAYER: <prim>: material:binding <target>", the start of
 * the binding's messages. Returns 0 and *entry (-1 when the material was
 * left out under skip_unsupported, with a warning), or -1 with d->message
 * (no such prim, not a Material, no surface, a shader or connection not
 * understood, a texture refused: each names the prim and input). A
 * texture's own refusal under skip_unsupported warns and leaves its input
 * at the fallback. O(network); allocates. */
int usd_shade_table_get(usd_shade_table *t, const usd_shade_stage *st, const char *path, const char *who,
                        int32_t *entry, pk_diag *d);

/* The material of entry (from usd_shade_table_get). O(1). */
const usd_shade_material *usd_shade_table_at(const usd_shade_table *t, int32_t entry);

/* Texture files of every material read so far, i from 0 until NULL. */
const char *usd_shade_table_file(const usd_shade_table *t, uint32_t i);

/* Where the materials go (importer.h's texture and material callbacks;
 * texture may be NULL: no image is decoded and slots stay empty). */
typedef struct usd_shade_sink {
    int (*texture)(void *user, const pk_image *img, pk_mip_kind kind, pk_wrap wrap_s, pk_wrap wrap_t, const char *name,
                   uint32_t *id, pk_diag *d);
    int (*material)(void *user, const pk_material *m, uint32_t *id, pk_diag *d);
    void *user;
} usd_shade_sink;

/* The sink's id for entry's material, double-sided as the mesh says, with
 * the slots in bit mask `dropped` left empty: given (its textures decoded,
 * each distinct slot image once per table) the first time. An image that
 * cannot be read or decoded is an error naming the texture prim and the
 * file, or under skip_unsupported a warning and an empty slot. Returns 0,
 * or -1 with d->message. */
int usd_shade_table_give(usd_shade_table *t, const usd_shade_stage *st, int32_t entry, int double_sided,
                         uint32_t dropped, const usd_shade_sink *sink, uint32_t *id, pk_diag *d);

/* The image of one slot of sm: a file's image as decoded when each
 * channel the slot reads is that file's same channel, else a new RGBA8
 * image (the first source's size; every source must have it) whose
 * channels are copied from their sources (the high byte of a 16-bit one)
 * or filled. Returns 0, or -1 with d->message naming the file. Allocates
 * out's texels (pk_image_free). */
int usd_shade_slot_image(const usd_shade_material *sm, pk_material_slot slot, pk_image *out, pk_diag *d);

/* A relationship target or connection source path written on a spec
 * (owner), as the composed prim at composed_path sees it: a relative path
 * is anchored at composed_path; an absolute one is mapped through the arcs
 * that brought owner there (the prefix owner's path and composed_path do
 * not share is replaced), so a binding authored in a referenced asset names
 * the material where the reference put it. 0 when it does not fit. */
size_t usd_shade_map_path(const char *composed_path, const usd_prim *owner, const char *target, char *out, size_t cap);

#endif
