/* SPDX-License-Identifier: MIT */
/* sluice pack: the USD importer's composition and traversal. A stage is a
 * root layer (.usda, .usdc or .usdz, told apart by its bytes) with every
 * layer its composition arcs reach; usd_stage_import walks the composed
 * prims depth-first and hands each mesh and each placement of it to a sink
 * (the pack builder, or a test), one top-level subtree at a time, so the
 * importer's memory follows the largest subtree, never the scene.
 *
 * Composition, per prim, strongest opinion first (LIVRPS):
 *   Local        the root layer stack: the root layer, then its subLayers
 *                (recursively, each in listed order, strongest first);
 *   Inherits     the opinions of each inherited path (classes), in the layer
 *                stack that names them;
 *   Variants     of each variant set in variantSets order, the selected
 *                variant (the strongest selection), or the first variant of
 *                the set when nothing selects one;
 *   References   internal </Path> or external @file@</Path>; without a prim
 *                path, the target layer's defaultPrim; the target's layer
 *                stack (its subLayers) composed in turn, recursively;
 *   Payloads     as references, always loaded;
 *   Specializes  as inherits, weakest of all.
 * A value (a property, a metadata field) comes from the strongest spec that
 * has an opinion on it; a prim's children are the union of its specs'
 * children, in the strongest spec's order first. Asset paths are resolved
 * relative to the layer that names them (inside a usdz: within the package).
 * Every layer is opened once per stage (a cache keyed by its resolved real
 * path).
 *
 * Traversal: the root prims in order (a defaultPrim does not narrow it: every
 * root prim that is not a class is walked); specifier class prims and their
 * subtrees are not imported (they are opinions for inherits); over-only
 * prims (no def anywhere) neither. A prim with active = false, visibility
 * invisible (inherited by its subtree) or purpose proxy/guide is skipped
 * with its subtree. Xform, Scope, untyped prims and other unknown types carry
 * the hierarchy: their xformOps concatenate (child-first: world = parent x
 * local), !resetXformStack! dropping the parent's. Mesh prims become meshes
 * (usd_geom: triangulation, normals and st primvars, leftHanded) placed with
 * world x the stage-to-pack matrix (upAxis Z turned to Y, metersPerUnit
 * scaled to metres). A subdivisionScheme other than none packs the control
 * cage, with one warning per prim. SkelRoot and Skeleton carry the hierarchy
 * and their meshes import in their rest pose, with one warning per SkelRoot
 * that skinning is ignored. PointInstancer: each instance of its prototypes
 * is placed (positions, orientations, scales, protoIndices; invisibleIds
 * honoured). The implicit gprims (Cube, Sphere, Cylinder, Cone, Capsule,
 * Plane, Cylinder_1, Capsule_1) are tessellated (usd_shape.h) and packed as
 * a Mesh's mesh is; a value that makes no shape is an error naming the
 * attribute and the value, or under skip_unsupported a warning and the prim
 * is left out. Curves (BasisCurves, NurbsCurves, HermiteCurves), Points,
 * NurbsPatch, TetMesh and Volume are refused naming the prim path and the
 * schema, or skipped with a warning under skip_unsupported.
 *
 * Materials (usd_shade.h): a gprim's material:binding (direct, all
 * purposes), else its nearest ancestor's, names a Material whose
 * UsdPreviewSurface network becomes a pk_material, read once per stage at
 * open (refusals found there) and handed to the sink with its textures
 * before the first mesh that names it. A Mesh's bound materialBind
 * GeomSubsets are objects of their own, each placed wherever the mesh is.
 *
 * Instancing: an instanceable prim's subtree is imported once per distinct
 * composition (a key over the resolved layer identities, spec paths and
 * variant selections of every site that composes it: XXH3), and every other
 * instance with the same key reuses its meshes; the key never uses the
 * prototype's path, so two subtrees whose prototypes share a path but differ
 * in content import both.
 *
 * Errors name the layer and the prim path: a cycle of arcs, a layer that
 * cannot be opened, a layer outside the asset root (unless
 * allow_outside_paths), a prim path an arc names that no layer holds; under
 * skip_unsupported each is a warning and the arc is skipped. Not
 * thread-safe on one stage; stages share nothing. */
#ifndef SLUICE_TOOLS_PACK_USD_STAGE_H
#define SLUICE_TOOLS_PACK_USD_STAGE_H

#include <stdint.h>

#include "importer.h"
#include "mesh.h"

typedef struct usd_stage usd_stage;

/* Arcs nested deeper than this (a reference of a reference of ...) are an
 * error: a cycle is found exactly, but a long legitimate chain is bounded
 * too, so a file cannot make composition recurse without limit. */
#define USD_STAGE_MAX_ARC_DEPTH 64u
/* Namespace deeper than this is an error (the traversal's stack). */
#define USD_STAGE_MAX_DEPTH 256u
/* The placements (meshes and implicit shapes, each time the flattened stage
 * places one) a stage may have unless usd_stage_options.max_placements
 * says otherwise (importer.h). Repeated subtrees are composed and imported
 * once, so the count costs little to find. */
#define USD_STAGE_DEFAULT_MAX_PLACEMENTS ((uint64_t)PK_DEFAULT_MAX_PLACEMENTS)

/* A zero-initialised struct is valid (errors, no warnings printed). */
typedef struct usd_stage_options {
    /* 0: an unsupported schema or a broken arc is an error. 1: a warning
     * naming the prim, and the prim (or the arc) is skipped. */
    int skip_unsupported;
    /* 0: a layer outside the asset root, or named by an absolute asset
     * path, is refused (tools/pack/asset.h). 1: it is opened. */
    int allow_outside_paths;
    /* Called for each warning (may be NULL). */
    void (*warn)(void *user, const char *message);
    void *user;
    /* The asset root (--asset-root DIR); NULL: the rule of asset.h (the
     * current directory when the root layer lies within it, else the root
     * layer's folder). */
    const char *asset_root;
    /* More placements than this refuse the stage, naming the count (0:
     * USD_STAGE_DEFAULT_MAX_PLACEMENTS): at open, once the composition has
     * counted them (PointInstancer instances are counted at import, which
     * stops at the first past the limit). */
    uint64_t max_placements;
} usd_stage_options;

/* Where usd_stage_import sends what it finds. */
typedef struct usd_stage_sink {
    /* A mesh, read only for the call: sets *object to the index its
     * placements name (pk_builder_add_mesh). Returns 0, or -1 with d->message
     * (the import stops and returns -1 with that message). */
    int (*mesh)(void *user, const pk_mesh *m, uint32_t *object, pk_diag *d);
    /* A placement: inst->mesh is an index *object was given. Same return. */
    int (*instance)(void *user, const pk_instance *inst, pk_diag *d);
    void *user;
    /* Textures and materials, as importer.h's sink takes them (given before
     * the first mesh that names them; pk_mesh.material is id + 1). texture
     * NULL: no image is decoded and slots stay empty; material NULL: no
     * material is given and meshes name none. */
    int (*texture)(void *user, const pk_image *img, pk_mip_kind kind, pk_wrap wrap_s, pk_wrap wrap_t, const char *name,
                   uint32_t *id, pk_diag *d);
    int (*material)(void *user, const pk_material *m, uint32_t *id, pk_diag *d);
} usd_stage_sink;

/* Figures of a stage, per phase. Times are wall-clock seconds; peak_rss is
 * the process's peak resident set (getrusage) at the end of the phase, so it
 * never decreases from one phase to the next. */
typedef struct usd_stage_stats {
    uint32_t layers;         /* distinct layers opened */
    uint64_t layer_bytes;    /* their file sizes */
    uint32_t prims;          /* composed prims walked (imported or not) */
    uint32_t meshes;         /* meshes handed to the sink */
    uint32_t instances;      /* placements handed to the sink */
    uint32_t prototypes;     /* subtrees composed and imported once (usd_stage.c: prototypes) */
    uint32_t prototype_hits; /* placements of one that reused it */
    uint64_t placements;     /* placements of the flattened stage, counted at open */
    uint32_t warnings;
    double open_seconds, compose_seconds, import_seconds;
    uint64_t open_peak_rss, compose_peak_rss, import_peak_rss;
} usd_stage_stats;

/* Opens path and composes the whole stage once without reading geometry,
 * so every error of composition (a missing or outside layer, a cycle, a
 * refused schema) is found before anything is written. Returns 0, or -1
 * with d->message "layer: </prim/path>: why" (or "path: why" when the root
 * layer does not open). opt may be NULL. Allocates; *out is NULL on
 * failure. */
int usd_stage_open(const char *path, const usd_stage_options *opt, usd_stage **out, pk_diag *d);

/* Meshes the import will hand to the sink (Mesh prims the traversal reaches,
 * each prototype counted once), known after open. O(1). */
uint32_t usd_stage_mesh_count(const usd_stage *s);

/* Walks the composed stage and hands every mesh and placement to sink, one
 * top-level subtree at a time (its composition freed before the next).
 * Returns 0, or -1 with d->message "layer: </prim/path>: why" (a property a
 * Mesh needs that cannot be read, bad indices, the sink's own message).
 * Call once per stage. */
int usd_stage_import(usd_stage *s, const usd_stage_sink *sink, pk_diag *d);

/* The layers the stage opened (the root first), as resolved file paths
 * (inside a usdz: "package.usdz[entry]"), so a caller can refuse to write
 * over one of them. i below usd_stage_layer_count (asserted). O(1). */
uint32_t usd_stage_layer_count(const usd_stage *s);
const char *usd_stage_layer_file(const usd_stage *s, uint32_t i);

/* The texture files the stage's bound materials read, i from 0 until NULL
 * (resolved: a path, or "package.usdz[entry]"), known after open.
 * O(materials). */
const char *usd_stage_texture_file(const usd_stage *s, uint32_t i);

void usd_stage_get_stats(const usd_stage *s, usd_stage_stats *out);

/* Frees the stage and closes its layers. s may be NULL. */
void usd_stage_close(usd_stage *s);

#endif
