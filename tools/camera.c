/* SPDX-License-Identifier: MIT */
/* sluice run: the built-in camera (see camera.h). */
#include "camera.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct camera_inst {
    uint32_t object;
    float c[3]; /* world bounding sphere of level 0 */
    float r;
    float scale; /* largest axis scale of the placement */
} inst;

typedef struct camera_cand {
    uint32_t object;
    uint8_t lod;
    float size; /* projected radius in pixels: the order */
    float px;   /* pixels a unit of object length covers at its nearest placement (scale included) */
} cand;

/* A texture's tiled levels: where each level's tiles start and how many. */
typedef struct camera_tex {
    uint32_t first_chunk;
    uint32_t side; /* max(width, height) of level 0 */
    uint32_t tiled_levels;
    uint32_t first[SLC_PACK_MAX_TEXTURE_LEVELS];
    uint32_t tiles[SLC_PACK_MAX_TEXTURE_LEVELS];
    uint16_t asked; /* bit l: level l's tiles are in this frame's requests */
} camera_tex;

/* One texture a material samples, with the largest UV scale its slots
 * give it (KHR_texture_transform, UsdTransform2d). */
typedef struct camera_mtex {
    uint32_t texture;
    float uv_scale;
} camera_mtex;

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* The vertical field of view in radians: fov_deg, 0 meaning 60. */
static float fov_rad(float fov_deg)
{
    return (fov_deg > 0 ? fov_deg : 60.0f) * 3.14159265f / 180.0f;
}

static float rnd01(uint64_t *x)
{
    return (float)(splitmix64(x) >> 40) / (float)(1u << 24);
}

const char *const camera_path_names[] = {"fly", "orbit", "teleport", "closeup", NULL};

int camera_path_parse(const char *name)
{
    for (int i = 0; camera_path_names[i] != NULL; i++) {
        if (strcmp(name, camera_path_names[i]) == 0) {
            return i;
        }
    }
    return -1;
}

const char *camera_path_name(camera_path p)
{
    return p == CAMERA_ORBIT || p == CAMERA_TELEPORT || p == CAMERA_CLOSEUP ? camera_path_names[p]
                                                                            : camera_path_names[CAMERA_FLY];
}

static int cmp_cand(const void *a, const void *b)
{
    const cand *x = a, *y = b;
    if (x->size != y->size) {
        return x->size > y->size ? -1 : 1;
    }
    return (x->object > y->object) - (x->object < y->object);
}

/* Placement i's level-0 bounding sphere in the scene (instance i, or
 * object i at the origin when the pack has no instances). */
static void inst_sphere(const slc_pack *pack, uint32_t i, inst *out)
{
    static const float identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    const slc_pack_header *h = slc_pack_get_header(pack);
    const float *m = identity;
    uint32_t o = i;
    if (h->instance_count) {
        const slc_pack_instance *pi = slc_pack_get_instance(pack, i);
        m = pi->matrix;
        o = pi->object;
    }
    const slc_pack_object *ob = slc_pack_get_object(pack, (slc_object_id){o});
    const slc_pack_lod *l0 = slc_pack_get_lod(pack, ob->first_lod);
    const float *sp = l0->sphere;
    out->object = o;
    for (int k = 0; k < 3; k++) {
        out->c[k] = m[k] * sp[0] + m[4 + k] * sp[1] + m[8 + k] * sp[2] + m[12 + k];
    }
    float sc = 0;
    for (size_t col = 0; col < 3; col++) {
        const float *cm = m + 4 * col;
        float v = sqrtf(cm[0] * cm[0] + cm[1] * cm[1] + cm[2] * cm[2]);
        sc = v > sc ? v : sc;
    }
    out->scale = sc > 0 ? sc : 1.0f;
    out->r = sp[3] * out->scale;
}

static void grow_bounds(const inst *in, float lo[3], float hi[3])
{
    for (int k = 0; k < 3; k++) {
        lo[k] = fminf(lo[k], in->c[k] - in->r);
        hi[k] = fmaxf(hi[k], in->c[k] + in->r);
    }
}

int camera_scene_bounds(const slc_pack *pack, float lo[3], float hi[3])
{
    const slc_pack_header *h = slc_pack_get_header(pack);
    uint32_t n = h->instance_count ? h->instance_count : h->object_count;
    if (h->object_count == 0) {
        return -1;
    }
    for (int k = 0; k < 3; k++) {
        lo[k] = INFINITY;
        hi[k] = -INFINITY;
    }
    for (uint32_t i = 0; i < n; i++) {
        inst one;
        inst_sphere(pack, i, &one);
        grow_bounds(&one, lo, hi);
    }
    return 0;
}

float camera_pixels_per_unit(float height_px, float distance, float tan_half)
{
    return height_px / (2.0f * fmaxf(distance, 1e-3f) * tan_half);
}

uint32_t camera_choose_lod(const slc_pack *pack, const slc_pack_object *ob, float scale, float px_per_unit,
                           float sse_px)
{
    for (uint32_t l = ob->lod_count; l-- > 1;) {
        if (slc_pack_get_lod(pack, ob->first_lod + l)->error * scale * px_per_unit <= sse_px) {
            return l;
        }
    }
    return 0;
}

int camera_object_bounds(const slc_pack *pack, uint32_t object, float centre[3], float *radius, float *scale)
{
    const slc_pack_header *h = slc_pack_get_header(pack);
    const uint32_t n = h->instance_count ? h->instance_count : h->object_count;
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    uint32_t found = 0;
    *scale = 0;
    for (uint32_t pass = 0; pass < 2; pass++) {
        float r = 0;
        for (uint32_t i = 0; i < n; i++) {
            inst one;
            inst_sphere(pack, i, &one);
            if (one.object != object) {
                continue;
            }
            if (pass == 0) {
                grow_bounds(&one, lo, hi);
                *scale = fmaxf(*scale, one.scale);
                found++;
            } else {
                const float v[3] = {one.c[0] - centre[0], one.c[1] - centre[1], one.c[2] - centre[2]};
                r = fmaxf(r, sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) + one.r);
            }
        }
        if (found == 0) {
            return -1;
        }
        if (pass == 0) {
            for (int k = 0; k < 3; k++) {
                centre[k] = 0.5f * (lo[k] + hi[k]);
            }
        } else {
            *radius = r;
        }
    }
    return 0;
}

static void set_err(char *err, size_t cap, const char *msg)
{
    if (err != NULL && cap > 0) {
        snprintf(err, cap, "%s", msg);
    }
}

void camera_free(camera *c)
{
    free(c->in);
    free(c->cd);
    free(c->slot);
    free(c->reqs);
    free(c->tex);
    free(c->mtex);
    free(c->mat_first);
    memset(c, 0, sizeof *c);
}

/* The textures of the pack and, per material, the ones it samples: what
 * the requests by texel density need (camera.h). 0, or -1 with err. */
static int read_textures(camera *c, char *err, size_t errcap)
{
    const slc_pack *pack = c->pack;
    const uint32_t nt = slc_pack_texture_count(pack), nm = slc_pack_material_count(pack);
    if (nt == 0) {
        return 0;
    }
    c->tex = calloc(nt, sizeof *c->tex);
    c->mtex = calloc((size_t)nm * SLC_PACK_SLOT_COUNT, sizeof *c->mtex);
    c->mat_first = calloc((size_t)nm + 1u, sizeof *c->mat_first);
    if (c->tex == NULL || c->mtex == NULL || c->mat_first == NULL) {
        snprintf(err, errcap, "out of memory");
        return -1;
    }
    c->tex_count = nt;
    for (uint32_t i = 0; i < nt; i++) {
        slc_pack_texture t;
        slc_pack_texture_layout lay;
        if (slc_pack_read_texture(pack, i, &t) != SLC_OK ||
            slc_pack_texture_layout_of(t.width, t.height, t.format, t.tile, t.border, &lay) != 0) {
            snprintf(err, errcap, "texture %u cannot be read", i);
            return -1;
        }
        camera_tex *x = &c->tex[i];
        x->first_chunk = t.first_chunk;
        x->side = t.width > t.height ? t.width : t.height;
        x->tiled_levels = lay.tiled_levels;
        for (uint32_t l = 0; l < lay.tiled_levels; l++) {
            x->first[l] = lay.first[l];
            x->tiles[l] = lay.cols[l] * lay.rows[l];
        }
    }
    uint32_t n = 0;
    for (uint32_t m = 0; m < nm; m++) {
        slc_pack_material mr;
        if (slc_pack_read_material(pack, m, &mr) != SLC_OK) {
            snprintf(err, errcap, "material %u cannot be read", m);
            return -1;
        }
        c->mat_first[m] = n;
        for (uint32_t k = 0; k < SLC_PACK_SLOT_COUNT; k++) {
            const slc_pack_texture_slot *sl = &mr.slot[k];
            if (sl->texture == 0) {
                continue;
            }
            float s = fmaxf(fabsf(sl->uv_scale[0]), fabsf(sl->uv_scale[1]));
            s = s > 0 ? s : 1.0f;
            uint32_t j = c->mat_first[m];
            while (j < n && c->mtex[j].texture != sl->texture - 1u) {
                j++;
            }
            if (j == n) {
                c->mtex[n].texture = sl->texture - 1u;
                c->mtex[n].uv_scale = s;
                n++;
            } else if (s > c->mtex[j].uv_scale) {
                c->mtex[j].uv_scale = s;
            }
        }
    }
    c->mat_first[nm] = n;
    return 0;
}

uint32_t camera_texture_level(float uv_density, float uv_scale, uint32_t side, float px_per_unit)
{
    if (!(px_per_unit > 0)) {
        return 0;
    }
    const float ratio = uv_density * uv_scale * (float)side / px_per_unit; /* texels a pixel, at level 0 */
    if (!(ratio >= 2.0f)) {
        return 0;
    }
    int e = 0;
    (void)frexpf(ratio, &e); /* ratio = m x 2^e, m in [0.5, 1): floor(log2 ratio) = e - 1, exactly */
    return (uint32_t)(e - 1);
}

/* The scene's bounding sphere (centre the middle of lo..hi, radius reaching
 * every placement's sphere) and closeup's focus: the largest placement,
 * the one nearest the centre among equals, the first among those. O(n). */
static void scene_sphere(camera *c)
{
    float r = 0, best_r = -1, best_d = 0;
    for (int k = 0; k < 3; k++) {
        c->centre[k] = 0.5f * (c->lo[k] + c->hi[k]);
    }
    for (uint32_t i = 0; i < c->n; i++) {
        const inst *p = &c->in[i];
        const float v[3] = {p->c[0] - c->centre[0], p->c[1] - c->centre[1], p->c[2] - c->centre[2]};
        const float d = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        r = fmaxf(r, d + p->r);
        if (p->r > best_r || (p->r == best_r && d < best_d)) {
            best_r = p->r;
            best_d = d;
            memcpy(c->focus, p->c, sizeof c->focus);
        }
    }
    c->radius = fmaxf(r, 1e-6f);
    c->focus_r = fmaxf(best_r, 1e-6f);
}

int camera_init(camera *c, const slc_pack *pack, const camera_desc *desc, char *err, size_t errcap)
{
    memset(c, 0, sizeof *c);
    const slc_pack_header *h = slc_pack_get_header(pack);
    if (h->object_count == 0 || desc->frames == 0) {
        set_err(err, errcap, "the pack has no objects to look at");
        return -1;
    }
    c->pack = pack;
    c->desc = *desc;
    c->sse = desc->sse_px > 0 ? desc->sse_px : 1.0f;
    const float fov = fov_rad(desc->fov_deg);
    c->height = (float)(desc->height_px ? desc->height_px : 1080u);
    c->tan_half = tanf(fov * 0.5f);
    const float aspect = 16.0f / 9.0f;
    /* A cone around the view direction that holds the whole 16:9 frustum. */
    c->cos_cone = cosf(atanf(c->tan_half * sqrtf(1.0f + aspect * aspect)));
    c->every = desc->teleport_every ? desc->teleport_every : 60u;

    uint32_t n = h->instance_count ? h->instance_count : h->object_count;
    c->n = n;
    c->in = calloc(n, sizeof *c->in);
    c->cd = calloc(h->object_count, sizeof *c->cd);
    c->slot = malloc(sizeof(int32_t) * h->object_count);
    /* Room for each object once and, with textures, the tiles the frame's
     * limits let through (CAMERA_TILE_REQUESTS without limits). */
    const uint32_t tile_cap = slc_pack_texture_count(pack) == 0 ? 0u
                              : desc->max_requests              ? desc->max_requests
                              : desc->max_chunks                ? desc->max_chunks
                                                                : CAMERA_TILE_REQUESTS;
    c->req_cap = h->object_count + tile_cap;
    c->reqs = calloc(c->req_cap, sizeof *c->reqs);
    if (c->in == NULL || c->cd == NULL || c->slot == NULL || c->reqs == NULL) {
        camera_free(c);
        set_err(err, errcap, "out of memory");
        return -1;
    }
    if (read_textures(c, err, errcap) != 0) {
        camera_free(c);
        return -1;
    }
    inst *in = c->in;
    float *lo = c->lo, *hi = c->hi;
    for (int k = 0; k < 3; k++) {
        lo[k] = INFINITY;
        hi[k] = -INFINITY;
    }
    for (uint32_t i = 0; i < n; i++) {
        inst_sphere(pack, i, &in[i]);
        grow_bounds(&in[i], lo, hi);
    }
    c->cx = 0.5f * (lo[0] + hi[0]);
    c->cz = 0.5f * (lo[2] + hi[2]);
    /* A floor that only keeps a scene of zero width (a placement of radius
     * 0) from dividing by zero: scale-free, so a model a few centimetres
     * across is framed as a city of kilometres is. */
    c->ex = fmaxf(hi[0] - lo[0], 1e-6f);
    c->ez = fmaxf(hi[2] - lo[2], 1e-6f);
    c->extent = fmaxf(c->ex, c->ez);
    c->eye_y = hi[1] + 0.02f * c->extent; /* just above the tallest object */
    c->framed = hi[1] - lo[1] >= 0.75f * c->extent;
    scene_sphere(c);
    c->frame_d = c->radius / sinf(0.5f * fov);
    c->rng = desc->seed ^ 0x5eedc0ffee123457ull;
    c->tp_x = c->cx; /* teleport: where the current leg started */
    c->tp_z = c->cz;
    c->tp_dir = 0;
    c->tp_u = 0;
    return 0;
}

#define TWO_PI 6.28318531f

/* The point at azimuth az and elevation el (radians), distance d from centre. */
static void around(const float centre[3], float az, float el, float d, float eye[3])
{
    eye[0] = centre[0] + d * cosf(el) * cosf(az);
    eye[1] = centre[1] + d * sinf(el);
    eye[2] = centre[2] + d * cosf(el) * sinf(az);
}

/* Framed fly at phase u (a turn a unit): round the scene between 0.7 and
 * 1.3 of the frame distance, twice in and out a turn, between 6 and 34
 * degrees above the centre, looking at a point a quarter radius ahead of
 * the centre along the way it goes. */
static void framed_fly(const camera *c, float u, float eye[3], float dir[3])
{
    const float a = TWO_PI * u;
    around(c->centre, a, 0.35f + 0.25f * sinf(a), c->frame_d * (1.0f + 0.3f * sinf(2 * a)), eye);
    const float ahead[3] = {c->centre[0] - 0.25f * c->radius * sinf(a), c->centre[1],
                            c->centre[2] + 0.25f * c->radius * cosf(a)};
    for (int k = 0; k < 3; k++) {
        dir[k] = ahead[k] - eye[k];
    }
}

/* Frame f's eye and (not unit) view direction on c's path (camera_path). */
static void place_eye(camera *c, uint32_t f, float eye[3], float dir[3])
{
    const camera_desc *desc = &c->desc;
    const float u = (float)f / (float)desc->frames;
    if (desc->path == CAMERA_CLOSEUP) {
        const float a = TWO_PI * u;
        around(c->focus, a, 0.45f, c->focus_r * (1.1f + 0.15f * (1.0f - cosf(2 * a))), eye);
        for (int k = 0; k < 3; k++) {
            dir[k] = c->focus[k] - eye[k];
        }
        return;
    }
    if (c->framed) {
        if (desc->path == CAMERA_ORBIT) {
            around(c->centre, TWO_PI * u, 0.436332f /* 25 degrees */, c->frame_d, eye);
            for (int k = 0; k < 3; k++) {
                dir[k] = c->centre[k] - eye[k];
            }
        } else if (desc->path == CAMERA_TELEPORT) {
            if (f % c->every == 0) {
                c->tp_u = rnd01(&c->rng);
            }
            framed_fly(c, c->tp_u + (float)(f % c->every) / (float)desc->frames, eye, dir);
        } else {
            framed_fly(c, u, eye, dir);
        }
        return;
    }
    const float cx = c->cx, cz = c->cz, ex = c->ex, ez = c->ez, extent = c->extent, eye_y = c->eye_y;
    const float *lo = c->lo;
    const uint32_t every = c->every;
    if (desc->path == CAMERA_ORBIT) {
        float a = TWO_PI * u, rad = 0.35f * extent;
        eye[0] = cx + rad * cosf(a);
        eye[1] = eye_y + 0.1f * extent;
        eye[2] = cz + rad * sinf(a);
        dir[0] = cx - eye[0];
        dir[1] = lo[1] - eye[1];
        dir[2] = cz - eye[2];
    } else if (desc->path == CAMERA_TELEPORT) {
        if (f % every == 0) {
            c->tp_x = lo[0] + rnd01(&c->rng) * ex;
            c->tp_z = lo[2] + rnd01(&c->rng) * ez;
            c->tp_dir = rnd01(&c->rng) * TWO_PI;
        }
        float step = (float)(f % every) * 0.002f * extent;
        eye[0] = c->tp_x + step * cosf(c->tp_dir);
        eye[1] = eye_y;
        eye[2] = c->tp_z + step * sinf(c->tp_dir);
        dir[0] = cosf(c->tp_dir);
        dir[1] = -0.15f;
        dir[2] = sinf(c->tp_dir);
    } else {
        /* A figure-eight over 80% of the scene, looking along the path. */
        float a = TWO_PI * u;
        eye[0] = cx + 0.4f * ex * sinf(a);
        eye[1] = eye_y;
        eye[2] = cz + 0.4f * ez * sinf(2 * a);
        dir[0] = 0.4f * ex * cosf(a);
        dir[1] = -0.15f * sqrtf(ex * ex + ez * ez) * 0.4f;
        dir[2] = 0.8f * ez * cosf(2 * a);
    }
}

/* After the frame's `objects` object requests (spans `chunks`): for each,
 * in their order, the tiles of the mip level each of its textures needs
 * (camera_texture_level), at half the object's priority, each level of a
 * texture once, while the frame's limits and the request room allow. A
 * level past the texture's tiled levels is its mip tail, which the stream
 * pins: nothing to ask. Returns the frame's request count. */
static uint32_t request_tiles(camera *c, uint32_t f, uint32_t objects, uint64_t chunks)
{
    const slc_pack *pack = c->pack;
    const camera_desc *desc = &c->desc;
    if (c->tex_count == 0) {
        return objects;
    }
    for (uint32_t t = 0; t < c->tex_count; t++) {
        c->tex[t].asked = 0;
    }
    uint32_t taken = objects;
    for (uint32_t i = 0; i < objects; i++) {
        const trace_req obj = c->reqs[i];
        const slc_pack_object *ob = slc_pack_get_object(pack, (slc_object_id){obj.id});
        const cand *cc = &c->cd[i];
        if (ob->material == 0 || !(ob->uv_density > 0)) {
            continue;
        }
        for (uint32_t j = c->mat_first[ob->material - 1u]; j < c->mat_first[ob->material]; j++) {
            camera_tex *x = &c->tex[c->mtex[j].texture];
            const uint32_t want = camera_texture_level(ob->uv_density, c->mtex[j].uv_scale, x->side, cc->px);
            /* The level and the next coarser one: the trilinear blend's
             * other level, and the one the pixels farther than the object's
             * nearest point (or seen at a slant) sample. */
            for (uint32_t level = want; level <= want + 1u && level < x->tiled_levels; level++) {
                if ((x->asked & (1u << level)) != 0) {
                    continue;
                }
                x->asked = (uint16_t)(x->asked | (1u << level));
                for (uint32_t k = 0; k < x->tiles[level]; k++) {
                    if ((desc->max_chunks && chunks + 1u > desc->max_chunks) ||
                        (desc->max_requests && taken >= desc->max_requests) || taken >= c->req_cap) {
                        return taken;
                    }
                    chunks++;
                    trace_req *r = &c->reqs[taken++];
                    memset(r, 0, sizeof *r);
                    r->frame = f;
                    r->id = x->first_chunk + x->first[level] + k;
                    r->kind = TRACE_CHUNK;
                    r->priority = (uint8_t)(obj.priority / 2u);
                    r->partition = TRACE_PARTITION_DEFAULT;
                }
            }
        }
    }
    return taken;
}

uint32_t camera_frame(camera *c)
{
    const slc_pack *pack = c->pack;
    const camera_desc *desc = &c->desc;
    const slc_pack_header *h = slc_pack_get_header(pack);
    const uint32_t f = c->next++;
    const uint32_t n = c->n;
    inst *in = c->in;
    cand *cd = c->cd;
    int32_t *slot = c->slot;

    float eye[3], dir[3];
    place_eye(c, f, eye, dir);
    float dl = sqrtf(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]);
    for (int k = 0; k < 3; k++) {
        dir[k] = dl > 0 ? dir[k] / dl : (k == 2 ? 1.0f : 0.0f);
        c->eye[k] = eye[k];
        c->dir[k] = dir[k];
    }
    for (uint32_t o = 0; o < h->object_count; o++) {
        slot[o] = -1;
    }
    uint32_t nc = 0;
    for (uint32_t i = 0; i < n; i++) {
        float v[3] = {in[i].c[0] - eye[0], in[i].c[1] - eye[1], in[i].c[2] - eye[2]};
        float dist = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        float d = dist - in[i].r;
        if (d > 0) {
            /* Outside the sphere: visible iff the sphere meets the cone. */
            float along = (v[0] * dir[0] + v[1] * dir[1] + v[2] * dir[2]) / dist;
            float sin_r = in[i].r / dist, cos_r = sqrtf(fmaxf(0.0f, 1.0f - sin_r * sin_r));
            float sin_a = sqrtf(fmaxf(0.0f, 1.0f - along * along));
            /* The centre within the sphere's angular radius of the view
             * direction (along >= cos_r: seen whatever the cone), else
             * cos(angle - r_angle) >= cos_cone. */
            if (along < cos_r && along * cos_r + sin_a * sin_r < c->cos_cone) {
                continue;
            }
        }
        const float k = camera_pixels_per_unit(c->height, d, c->tan_half);
        const slc_pack_object *ob = slc_pack_get_object(pack, (slc_object_id){in[i].object});
        const uint32_t lod = camera_choose_lod(pack, ob, in[i].scale, k, c->sse);
        float size = in[i].r * k;
        int32_t s = slot[in[i].object];
        if (s < 0) {
            slot[in[i].object] = (int32_t)nc;
            cd[nc].object = in[i].object;
            cd[nc].lod = (uint8_t)(lod > 254 ? 254 : lod);
            cd[nc].size = size;
            cd[nc].px = k * in[i].scale;
            nc++;
        } else {
            if (lod < cd[s].lod) {
                cd[s].lod = (uint8_t)lod;
            }
            if (size > cd[s].size) {
                cd[s].size = size;
            }
            if (k * in[i].scale > cd[s].px) {
                cd[s].px = k * in[i].scale;
            }
        }
    }
    qsort(cd, nc, sizeof *cd, cmp_cand);
    uint64_t chunks = 0;
    uint32_t taken = 0;
    for (uint32_t i = 0; i < nc; i++) {
        const slc_pack_object *ob = slc_pack_get_object(pack, (slc_object_id){cd[i].object});
        uint32_t spans = slc_pack_get_lod(pack, ob->first_lod + cd[i].lod)->span_count;
        if ((desc->max_chunks && chunks + spans > desc->max_chunks) ||
            (desc->max_requests && taken >= desc->max_requests)) {
            break;
        }
        chunks += spans;
        trace_req *r = &c->reqs[taken];
        memset(r, 0, sizeof *r);
        r->frame = f;
        r->id = cd[i].object;
        r->kind = TRACE_OBJECT;
        r->lod = cd[i].lod;
        r->priority = (uint8_t)(255u - (uint32_t)((uint64_t)taken * 255u / (nc ? nc : 1u)));
        r->partition = TRACE_PARTITION_DEFAULT;
        taken++;
    }
    return request_tiles(c, f, taken, chunks);
}

/* --- views for drawing ------------------------------------------------------------------- */

static void cross3(const float a[3], const float b[3], float out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

static float dot3(const float a[3], const float b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void normalize3(float v[3])
{
    float l = sqrtf(dot3(v, v));
    if (l > 0) {
        v[0] /= l;
        v[1] /= l;
        v[2] /= l;
    }
}

/* The look-along view from eye in unit direction dir (y up), a perspective
 * of vertical fov (radians) and aspect into Vulkan's clip space, and their
 * product. */
static void make_view(const float eye[3], const float dir[3], float fov, float aspect, float zn, float zf,
                      camera_view *out)
{
    memset(out, 0, sizeof *out);
    float f[3] = {dir[0], dir[1], dir[2]}, up[3] = {0, 1, 0}, sd[3], u[3];
    normalize3(f);
    cross3(f, up, sd);
    if (dot3(sd, sd) < 1e-12f) { /* looking straight up or down: any right vector */
        const float z[3] = {0, 0, 1};
        cross3(f, z, sd);
    }
    normalize3(sd);
    cross3(sd, f, u);
    float *v = out->view; /* column-major: v[col * 4 + row] */
    for (int k = 0; k < 3; k++) {
        v[k * 4 + 0] = sd[k];
        v[k * 4 + 1] = u[k];
        v[k * 4 + 2] = -f[k];
        out->eye[k] = eye[k];
    }
    v[12] = -dot3(sd, eye);
    v[13] = -dot3(u, eye);
    v[14] = dot3(f, eye);
    v[15] = 1.0f;
    const float t = tanf(fov * 0.5f);
    float *p = out->proj;
    p[0] = 1.0f / (aspect * t);
    p[5] = -1.0f / t; /* Vulkan's y points down */
    p[10] = zf / (zn - zf);
    p[11] = -1.0f;
    p[14] = zn * zf / (zn - zf);
    for (int col = 0; col < 4; col++) {
        for (int row = 0; row < 4; row++) {
            float acc = 0;
            for (int k = 0; k < 4; k++) {
                acc += p[k * 4 + row] * v[col * 4 + k];
            }
            out->view_proj[col * 4 + row] = acc;
        }
    }
    out->znear = zn;
    out->zfar = zf;
}

void camera_look_along(const float eye[3], const float dir[3], float fov_deg, float aspect, float znear, float zfar,
                       camera_view *out)
{
    make_view(eye, dir, fov_rad(fov_deg), aspect, znear, zfar, out);
}

void camera_get_view(const camera *c, float aspect, camera_view *out)
{
    float zf = 0;
    for (int corner = 0; corner < 8; corner++) {
        float p[3] = {corner & 1 ? c->hi[0] : c->lo[0], corner & 2 ? c->hi[1] : c->lo[1],
                      corner & 4 ? c->hi[2] : c->lo[2]};
        float d[3] = {p[0] - c->eye[0], p[1] - c->eye[1], p[2] - c->eye[2]};
        zf = fmaxf(zf, sqrtf(dot3(d, d)));
    }
    zf = fmaxf(zf * 1.01f, 1e-3f);
    make_view(c->eye, c->dir, fov_rad(c->desc.fov_deg), aspect, zf / 10000.0f, zf, out);
}

void camera_overview(const float lo[3], const float hi[3], float fov_deg, float aspect, camera_view *out)
{
    const float centre[3] = {0.5f * (lo[0] + hi[0]), 0.5f * (lo[1] + hi[1]), 0.5f * (lo[2] + hi[2])};
    const float half[3] = {0.5f * (hi[0] - lo[0]), 0.5f * (hi[1] - lo[1]), 0.5f * (hi[2] - lo[2])};
    const float radius = fmaxf(sqrtf(dot3(half, half)), 1e-3f);
    const float fov = fov_rad(fov_deg);
    const float fov_h = 2.0f * atanf(tanf(fov * 0.5f) * aspect);
    const float dist = radius / sinf(0.5f * fminf(fov, fov_h));
    const float pitch = 30.0f * 3.14159265f / 180.0f;
    const float dir[3] = {0.0f, -sinf(pitch), -cosf(pitch)};
    const float eye[3] = {centre[0] - dir[0] * dist, centre[1] - dir[1] * dist, centre[2] - dir[2] * dist};
    const float zf = (dist + radius) * 1.01f;
    make_view(eye, dir, fov, aspect, fmaxf(zf / 10000.0f, 0.5f * (dist - radius)), zf, out);
}
