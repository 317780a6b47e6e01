/* sluice run: the built-in camera (see camera.h). */
#include "camera.h"

#include <math.h>
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
} cand;

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static float rnd01(uint64_t *x) { return (float)(splitmix64(x) >> 40) / (float)(1u << 24); }

const char *const camera_path_names[] = {"fly", "orbit", "teleport", NULL};

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
    return p == CAMERA_ORBIT || p == CAMERA_TELEPORT ? camera_path_names[p] : camera_path_names[CAMERA_FLY];
}

static int cmp_cand(const void *a, const void *b)
{
    const cand *x = a, *y = b;
    if (x->size != y->size) {
        return x->size > y->size ? -1 : 1;
    }
    return (x->object > y->object) - (x->object < y->object);
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
    memset(c, 0, sizeof *c);
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
    const float fov = (desc->fov_deg > 0 ? desc->fov_deg : 60.0f) * 3.14159265f / 180.0f;
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
    c->reqs = calloc(h->object_count, sizeof *c->reqs);
    if (c->in == NULL || c->cd == NULL || c->slot == NULL || c->reqs == NULL) {
        camera_free(c);
        set_err(err, errcap, "out of memory");
        return -1;
    }
    inst *in = c->in;
    float *lo = c->lo, *hi = c->hi;
    for (int k = 0; k < 3; k++) {
        lo[k] = INFINITY;
        hi[k] = -INFINITY;
    }
    for (uint32_t i = 0; i < n; i++) {
        static const float identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
        const float *m = identity;
        uint32_t o = i;
        if (h->instance_count) {
            const slc_pack_instance *pi = slc_pack_get_instance(pack, i);
            m = pi->matrix;
            o = pi->object;
        }
        const slc_pack_object *ob = slc_pack_get_object(pack, (slc_object_id){o});
        const slc_pack_lod *l0 = slc_pack_get_lod(pack, ob->first_lod);
        const float *s = l0->sphere;
        in[i].object = o;
        for (int k = 0; k < 3; k++) {
            in[i].c[k] = m[k] * s[0] + m[4 + k] * s[1] + m[8 + k] * s[2] + m[12 + k];
        }
        float sc = 0;
        for (size_t col = 0; col < 3; col++) {
            const float *cm = m + 4 * col;
            float v = sqrtf(cm[0] * cm[0] + cm[1] * cm[1] + cm[2] * cm[2]);
            sc = v > sc ? v : sc;
        }
        in[i].scale = sc > 0 ? sc : 1.0f;
        in[i].r = s[3] * in[i].scale;
        for (int k = 0; k < 3; k++) {
            lo[k] = fminf(lo[k], in[i].c[k] - in[i].r);
            hi[k] = fmaxf(hi[k], in[i].c[k] + in[i].r);
        }
    }
    c->cx = 0.5f * (lo[0] + hi[0]);
    c->cz = 0.5f * (lo[2] + hi[2]);
    c->ex = fmaxf(hi[0] - lo[0], 1.0f);
    c->ez = fmaxf(hi[2] - lo[2], 1.0f);
    c->extent = fmaxf(c->ex, c->ez);
    c->eye_y = hi[1] + 0.02f * c->extent; /* just above the tallest object */
    c->rng = desc->seed ^ 0x5eedc0ffee123457ull;
    c->tp_x = c->cx; /* teleport: where the current leg started */
    c->tp_z = c->cz;
    c->tp_dir = 0;
    return 0;
}

uint32_t camera_frame(camera *c)
{
    const slc_pack *pack = c->pack;
    const camera_desc *desc = &c->desc;
    const slc_pack_header *h = slc_pack_get_header(pack);
    const uint32_t f = c->next++;
    const float cx = c->cx, cz = c->cz, ex = c->ex, ez = c->ez, extent = c->extent, eye_y = c->eye_y;
    const float *lo = c->lo;
    const uint32_t every = c->every;
    const uint32_t n = c->n;
    inst *in = c->in;
    cand *cd = c->cd;
    int32_t *slot = c->slot;

    const float u = (float)f / (float)desc->frames;
    const float two_pi = 6.28318531f;
    float eye[3], dir[3];
    if (desc->path == CAMERA_ORBIT) {
        float a = two_pi * u, rad = 0.35f * extent;
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
            c->tp_dir = rnd01(&c->rng) * two_pi;
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
        float a = two_pi * u;
        eye[0] = cx + 0.4f * ex * sinf(a);
        eye[1] = eye_y;
        eye[2] = cz + 0.4f * ez * sinf(2 * a);
        dir[0] = 0.4f * ex * cosf(a);
        dir[1] = -0.15f * sqrtf(ex * ex + ez * ez) * 0.4f;
        dir[2] = 0.8f * ez * cosf(2 * a);
    }
    float dl = sqrtf(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]);
    for (int k = 0; k < 3; k++) {
        dir[k] = dl > 0 ? dir[k] / dl : (k == 2 ? 1.0f : 0.0f);
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
            /* cos(angle - r_angle) >= cos_cone */
            if (along * cos_r + sin_a * sin_r < c->cos_cone) {
                continue;
            }
        }
        d = fmaxf(d, 1e-3f);
        const float k = c->height / (2.0f * d * c->tan_half);
        const slc_pack_object *ob = slc_pack_get_object(pack, (slc_object_id){in[i].object});
        uint32_t lod = 0;
        for (uint32_t l = ob->lod_count; l-- > 1;) {
            if (slc_pack_get_lod(pack, ob->first_lod + l)->error * in[i].scale * k <= c->sse) {
                lod = l;
                break;
            }
        }
        float size = in[i].r * k;
        int32_t s = slot[in[i].object];
        if (s < 0) {
            slot[in[i].object] = (int32_t)nc;
            cd[nc].object = in[i].object;
            cd[nc].lod = (uint8_t)(lod > 254 ? 254 : lod);
            cd[nc].size = size;
            nc++;
        } else {
            if (lod < cd[s].lod) {
                cd[s].lod = (uint8_t)lod;
            }
            if (size > cd[s].size) {
                cd[s].size = size;
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
    return taken;
}
