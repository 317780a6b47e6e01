/* SPDX-License-Identifier: MIT */
/* sluice run: a built-in camera that turns a pack into a workload trace.
 *
 * The camera moves through the scene the pack's instances place (each
 * object once at the origin when the pack has no instances) along a seeded
 * path, and each frame asks for every object it sees at the LOD that keeps
 * its screen-space error under a threshold, as 3D Tiles and Nanite choose:
 * for level l with geometric error e_l (object units, scaled by the
 * instance's largest axis scale) at distance d from the eye to the object's
 * bounding sphere, the error on screen is
 *
 *     sse_l = e_l * height_px / (2 * d * tan(fov / 2))
 *
 * and the level asked for is the coarsest l with sse_l <= sse_px (level 0
 * has error 0, so one always qualifies). An object seen through several
 * instances is asked for once, at the finest level any of them needs.
 * Requests are ordered by the projected size of the object, largest first;
 * priority falls from 255 along that order; the frame stops taking objects
 * once their spans would pass max_chunks or max_requests, so a frame never
 * asks for more than the stream's queues hold.
 *
 * Texture tiles (a pack with textures): after the objects, each requested
 * object asks for the tiles of the mip level each texture of its material
 * needs on screen (camera_texture_level: the texels a pixel covers at the
 * object's nearest placement, from its recorded uv_density), every tile of
 * that level, at half the object's priority (so the frame's geometry is
 * scheduled before the tiles of the same rank), each texture level once a
 * frame, while max_chunks and max_requests allow. The mip tails are pinned
 * by the stream and never asked for.
 *
 * Frames are made one at a time (camera_frame), the camera's state advanced
 * frame by frame: its memory is O(instances + objects) whatever the frame
 * count. */
#ifndef SLUICE_TOOLS_CAMERA_H
#define SLUICE_TOOLS_CAMERA_H

#include <stddef.h>
#include <stdint.h>

#include "sluice/pack.h"
#include "trace.h"

/* The paths are made from the scene's bounds, in one of two ways:
 *
 * - A compact scene (its height at least 3/4 of its wider horizontal side,
 *   as one model's bounds always are, being a sphere's box) is framed from
 *   outside: its bounding sphere (centre the middle of the bounds, radius
 *   reaching every placement's sphere) fills the vertical field of view at
 *   the frame distance D = radius / sin(fov / 2). Orbit circles at D, 25
 *   degrees above the centre, looking at it; fly sweeps round it between
 *   0.7 D and 1.3 D, rising and falling, looking a little ahead of the
 *   centre; teleport jumps to a random point of the fly path.
 * - A flat scene (a city, a terrain) is flown over: orbit circles at 0.35
 *   of its wider side, above the tallest object, looking at the ground's
 *   centre; fly is a figure-eight over 80% of it just above the tallest
 *   object, looking ahead and down; teleport jumps to a random place and
 *   heading, then goes straight on.
 *
 * Closeup is the same in both: it circles the scene's largest placement
 * (the one nearest the centre among equals) between 1.1 and 1.4 of its
 * radius from its centre, looking at it, so that the finest level of that
 * object is asked for. */
typedef enum camera_path {
    CAMERA_FLY = 0,      /* a fly-through, looking ahead */
    CAMERA_ORBIT = 1,    /* a circle around the scene's centre, looking at it */
    CAMERA_TELEPORT = 2, /* the fly path, jumping to a random place every teleport_every frames */
    CAMERA_CLOSEUP = 3   /* a circle close round the largest placement, looking at it */
} camera_path;

typedef struct camera_desc {
    camera_path path;
    uint64_t seed;
    uint32_t frames;
    float sse_px;            /* 0: 1 pixel */
    float fov_deg;           /* vertical; 0: 60 */
    uint32_t height_px;      /* 0: 1080 (16:9 viewport) */
    uint32_t max_requests;   /* object requests a frame; 0: no limit */
    uint32_t max_chunks;     /* spans of the chosen LODs a frame; 0: no limit */
    uint32_t teleport_every; /* 0: 60 */
} camera_desc;

/* The camera between frames: the scene's instances, the next frame's
 * number, the teleport path's generator; reqs holds the last frame made. */
typedef struct camera {
    const slc_pack *pack;
    camera_desc desc;
    struct camera_inst *in;
    struct camera_cand *cd;
    int32_t *slot;            /* object -> index in cd, or -1 */
    trace_req *reqs;          /* req_cap entries */
    uint32_t req_cap;         /* objects, plus the tiles a frame may ask for */
    struct camera_tex *tex;   /* tex_count textures' tiled levels */
    struct camera_mtex *mtex; /* each material's textures, from mat_first[m] to mat_first[m + 1] */
    uint32_t *mat_first;
    uint32_t tex_count;
    uint32_t n;    /* instances */
    uint32_t next; /* the next frame camera_frame makes */
    float sse, tan_half, height, cos_cone;
    float lo[3], hi[3], cx, cz, ex, ez, extent, eye_y;
    int framed;                       /* a compact scene, framed from outside (see camera_path) */
    float centre[3], radius, frame_d; /* the scene's bounding sphere and the distance that frames it */
    float focus[3], focus_r;          /* closeup: the largest placement's sphere */
    uint32_t every;
    uint64_t rng;
    float tp_x, tp_z, tp_dir; /* teleport over a flat scene: the leg's start and heading */
    float tp_u;               /* teleport round a framed scene: the leg's start on the fly path */
    float eye[3], dir[3];     /* the last frame's eye and (unit) view direction */
} camera;

/* Sets up the camera over pack (which must outlive it). Returns 0, or -1
 * with err (out of memory, an empty pack, no frames); camera_free either way. */
int camera_init(camera *c, const slc_pack *pack, const camera_desc *desc, char *err, size_t errcap);

/* Makes frame c->next (frames in order, below desc->frames) and returns its
 * requests, in the order they are asked for, in c->reqs. O(instances). */
uint32_t camera_frame(camera *c);

void camera_free(camera *c);

/* A frame's view for drawing: column-major matrices, y up in the scene,
 * Vulkan clip space (y down, depth 0 at near to 1 at far). */
typedef struct camera_view {
    float eye[3];
    float view[16];      /* scene to eye: right-handed, looking down -z */
    float proj[16];      /* eye to clip */
    float view_proj[16]; /* proj * view */
    float znear, zfar;
} camera_view;

/* The view of the last frame camera_frame made: its eye and direction,
 * the vertical field of view of the desc (fov_deg, 0: 60), aspect (width /
 * height of the image), near and far from the scene's extent (far reaches
 * the farthest corner of the scene's bounds, near is far / 10000). */
void camera_get_view(const camera *c, float aspect, camera_view *out);

/* The bounds of the scene the pack's instances place (each object once at
 * the origin when it has none): every placement's level-0 bounding sphere
 * in lo..hi. Returns 0, or -1 when the pack has no objects. */
int camera_scene_bounds(const slc_pack *pack, float lo[3], float hi[3]);

/* A fixed overview of bounds lo..hi (for a trace, which carries no
 * camera): the eye above and in front of the scene's centre (along +z,
 * looking down at 30 degrees), far enough back that the bounding sphere of
 * the box fills the vertical field of view fov_deg (0: 60) and the
 * horizontal one of aspect. */
void camera_overview(const float lo[3], const float hi[3], float fov_deg, float aspect, camera_view *out);

/* The screen-space error rule, the one the camera asks for levels by (and
 * `sluice bench lod` checks against the pixels): pixels a unit of object
 * space covers at distance (from the eye to the nearest point of the
 * object's bounding sphere, at least 1e-3) in an image height_px tall
 * whose vertical field of view has tangent tan_half at its half angle:
 * height_px / (2 * distance * tan_half). Pure; O(1). */
float camera_pixels_per_unit(float height_px, float distance, float tan_half);

/* The level the rule serves of object ob: the coarsest l whose recorded
 * error (slc_pack_lod.error) times scale (the placement's largest axis
 * scale) times px_per_unit is at most sse_px; 0 when no coarser level
 * qualifies (level 0's error is 0). Pure; O(ob->lod_count). */
uint32_t camera_choose_lod(const slc_pack *pack, const slc_pack_object *ob, float scale, float px_per_unit,
                           float sse_px);

/* A sphere holding every placement of object (the pack's instances of it,
 * or the object once at the origin when the pack has none) at its level 0
 * bounds: centre the middle of their bounding box, radius the farthest
 * placement sphere's reach from it; *scale the largest axis scale of the
 * placements. Returns 0, or -1 when nothing places the object (outputs
 * unspecified). O(placements of the pack). */
int camera_object_bounds(const slc_pack *pack, uint32_t object, float centre[3], float *radius, float *scale);

/* The view from eye along dir (need not be unit; y up, any right vector
 * when looking straight up or down), vertical field of view fov_deg (0:
 * 60), aspect, near and far planes, into Vulkan's clip space. */
void camera_look_along(const float eye[3], const float dir[3], float fov_deg, float aspect, float znear, float zfar,
                       camera_view *out);

/* Tile requests a frame may hold when the desc sets neither max_chunks nor
 * max_requests. */
#define CAMERA_TILE_REQUESTS 65536u

/* The mip level a texture needs on an object: with uv_density (the
 * object's, slc_pack_object), the slot's UV scale, the texture's larger
 * side in texels and the pixels a unit of object length covers
 * (camera_pixels_per_unit times the placement's scale), the texels a
 * pixel covers at level 0 are r = uv_density x uv_scale x side / px; the
 * level is floor(log2 r) when r >= 2, else 0 (a level never coarser than
 * a texel a pixel). Exact: the exponent frexpf gives. Pure; O(1). */
uint32_t camera_texture_level(float uv_density, float uv_scale, uint32_t side, float px_per_unit);

/* Each camera_path's name, indexed by it, then NULL: "fly", "orbit", "teleport", "closeup". */
extern const char *const camera_path_names[];

/* "fly" -> CAMERA_FLY...; -1 if unknown. */
int camera_path_parse(const char *name);
const char *camera_path_name(camera_path p);

#endif
