/* SPDX-License-Identifier: MIT */
/* The reference renderer (platform/src/vulkan_render.c) on lavapipe with
 * VK_LAYER_KHRONOS_validation: any warning or error fails the test. One
 * instance and device for every case (the application's, adopted by a
 * backend per case, as a viewer would), packs written in memory with known
 * geometry (axis-aligned quads facing an orthographic camera whose scene
 * units are pixels), streamed through slc_stream over the backend's pool,
 * drawn and read back; pixels are asserted exactly in TINT_LOD mode, where
 * colours are flat. */
#define _POSIX_C_SOURCE 200809L
#define VK_NO_PROTOTYPES
#include <volk.h>

#include <dlfcn.h>
#include <math.h>

#include "stream_fixture.h"
#include "test_pack.h"

#include "sluice/render.h"
#include "sluice/vulkan.h"

#ifdef SLUICE_RENDER_NOHEAP
#include "noheap_wrap.h"
#endif

#define SECOND 1000000000ull
/* How long a frame may take to retire before the test gives up: long, as a
 * guard against a hang only (under qemu-aarch64 lavapipe's first JIT of a
 * pipeline takes more than 10 s). */
#define WAIT (120u * SECOND)
#define W 64u
#define H 48u
#define FRAMES 2u

/* --- validation messages ---------------------------------------------------- */

#include "vk_messages.h" /* messages, oom_expected, expected_oom, on_message */

/* --- the shared device -------------------------------------------------------- */

#include "vk_test_device.h" /* the shared instance and device */

static VkPhysicalDeviceFeatures t_features;
static VkBool32 t_draw_parameters;

/* The shared device, with what the renderer uses where the device has it:
 * multi-draw indirect, dynamic indexing of storage buffer arrays, shader
 * draw parameters. */
static int create_test_device(void)
{
    if (vk_test_instance_open("test_render") != 0) {
        return -1;
    }
    VkPhysicalDeviceShaderDrawParametersFeatures dp = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_DRAW_PARAMETERS_FEATURES};
    VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    f2.pNext = &dp;
    vkGetPhysicalDeviceFeatures2(t_physical, &f2);
    VkPhysicalDeviceFeatures2 want = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    want.features.multiDrawIndirect = f2.features.multiDrawIndirect;
    want.features.shaderStorageBufferArrayDynamicIndexing = f2.features.shaderStorageBufferArrayDynamicIndexing;
    t_features = want.features;
    VkPhysicalDeviceShaderDrawParametersFeatures dpw = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_DRAW_PARAMETERS_FEATURES};
    dpw.shaderDrawParameters = dp.shaderDrawParameters;
    t_draw_parameters = dp.shaderDrawParameters;
    want.pNext = &dpw;
    return vk_test_device_open(&want);
}

/* --- packs written in memory ------------------------------------------------ */

#define PW_VERTS 96u
#define PW_TRIS 128u
#define PW_CLUSTERS 32u
#define PW_LODS 3u
#define PW_OBJECTS 8u
#define PW_INSTANCES 8u

typedef struct pw_vertex {
    float p[3], n[3], uv[2];
} pw_vertex;

typedef struct pw_cluster {
    pw_vertex v[PW_VERTS];
    uint32_t nv;
    uint8_t tri[PW_TRIS][3];
    uint32_t nt;
} pw_cluster;

typedef struct pw_level {
    pw_cluster c[PW_CLUSTERS];
    uint32_t nc;
} pw_level;

typedef struct pw_object {
    uint32_t attributes;
    uint32_t lods;
    pw_level lvl[PW_LODS];
} pw_object;

typedef struct pw_scene {
    pw_object ob[PW_OBJECTS];
    uint32_t objects;
    float inst[PW_INSTANCES][16];
    uint32_t inst_object[PW_INSTANCES];
    uint32_t instances;
    uint32_t page_size;
} pw_scene;

/* An axis-aligned quad [x0, x1) x [y0, y1) at depth z, its normal facing
 * the camera (-z), as one cluster of 4 vertices and 2 triangles. */
static void pw_quad(pw_level *l, float x0, float y0, float x1, float y1, float z)
{
    pw_cluster *c = &l->c[l->nc++];
    memset(c, 0, sizeof *c);
    const float xs[4] = {x0, x1, x1, x0}, ys[4] = {y0, y0, y1, y1};
    for (int i = 0; i < 4; i++) {
        pw_vertex *v = &c->v[i];
        v->p[0] = xs[i];
        v->p[1] = ys[i];
        v->p[2] = z;
        v->n[2] = -1.0f;
        v->uv[0] = (float)(i == 1 || i == 2);
        v->uv[1] = (float)(i >= 2);
    }
    c->nv = 4;
    const uint8_t t[2][3] = {{0, 1, 2}, {0, 2, 3}};
    memcpy(c->tri, t, sizeof t);
    c->nt = 2;
}

static void sphere_of(const pw_vertex *v, uint32_t n, float out[4])
{
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t i = 0; i < n; i++) {
        for (int k = 0; k < 3; k++) {
            lo[k] = fminf(lo[k], v[i].p[k]);
            hi[k] = fmaxf(hi[k], v[i].p[k]);
        }
    }
    float r = 0;
    for (int k = 0; k < 3; k++) {
        out[k] = (lo[k] + hi[k]) * 0.5f;
    }
    for (uint32_t i = 0; i < n; i++) {
        float d = 0;
        for (int k = 0; k < 3; k++) {
            d += (v[i].p[k] - out[k]) * (v[i].p[k] - out[k]);
        }
        r = fmaxf(r, sqrtf(d));
    }
    out[3] = r * 1.0001f + 1e-4f;
}

static uint16_t quant16(float x, float off, float scale)
{
    if (scale <= 0.0f) {
        return 0;
    }
    float q = roundf((x - off) / scale * 65535.0f);
    return (uint16_t)(q < 0 ? 0 : q > 65535 ? 65535 : q);
}

static int8_t snorm8(float v)
{
    return (int8_t)lroundf(fmaxf(-1.0f, fminf(1.0f, v)) * 127.0f);
}

static size_t encode_vertex(const slc_pack_object *o, const pw_vertex *v, unsigned char *out)
{
    size_t at = 0;
    if (o->attributes & SLC_PACK_ATTR_POS_U16) {
        uint16_t q[4] = {0};
        for (int k = 0; k < 3; k++) {
            q[k] = quant16(v->p[k], o->pos_offset[k], o->pos_scale[k]);
        }
        memcpy(out, q, 8);
        at = 8;
    } else {
        memcpy(out, v->p, 12);
        at = 12;
    }
    if (o->attributes & SLC_PACK_ATTR_NORMAL) {
        if (o->attributes & SLC_PACK_ATTR_NORMAL_OCT8) {
            float s = fabsf(v->n[0]) + fabsf(v->n[1]) + fabsf(v->n[2]);
            float x = v->n[0] / s, y = v->n[1] / s;
            if (v->n[2] < 0) {
                float ox = (1.0f - fabsf(y)) * (x >= 0 ? 1.0f : -1.0f);
                float oy = (1.0f - fabsf(x)) * (y >= 0 ? 1.0f : -1.0f);
                x = ox;
                y = oy;
            }
            int8_t q[4] = {snorm8(x), snorm8(y), 0, 0};
            memcpy(out + at, q, 4);
            at += 4;
        } else {
            memcpy(out + at, v->n, 12);
            at += 12;
        }
    }
    if (o->attributes & SLC_PACK_ATTR_UV) {
        if (o->attributes & SLC_PACK_ATTR_UV_U16) {
            uint16_t q[2] = {quant16(v->uv[0], o->uv_offset[0], o->uv_scale[0]),
                             quant16(v->uv[1], o->uv_offset[1], o->uv_scale[1])};
            memcpy(out + at, q, 4);
            at += 4;
        } else {
            memcpy(out + at, v->uv, 8);
            at += 8;
        }
    }
    return at;
}

static size_t align8(size_t x)
{
    return (x + 7u) & ~(size_t)7u;
}

/* The scene as a pack: one chunk per level of each object (stored, not
 * compressed), one span per level; returns malloc'd bytes. */
static unsigned char *pw_write(const pw_scene *sc, size_t *size)
{
    uint32_t chunks = 0, lods = 0;
    for (uint32_t o = 0; o < sc->objects; o++) {
        chunks += sc->ob[o].lods;
        lods += sc->ob[o].lods;
    }
    size_t cap = 160 + (size_t)chunks * (sc->page_size + 8) + 65536;
    unsigned char *b = calloc(1, cap);
    assert_non_null(b);
    slc_pack_object objs[PW_OBJECTS];
    slc_pack_chunk ch[PW_OBJECTS * PW_LODS];
    slc_pack_lod lv[PW_OBJECTS * PW_LODS];
    slc_pack_span sp[PW_OBJECTS * PW_LODS];
    memset(objs, 0, sizeof objs);
    memset(ch, 0, sizeof ch);
    memset(lv, 0, sizeof lv);
    memset(sp, 0, sizeof sp);
    size_t at = 160;
    uint32_t ci = 0;
    for (uint32_t o = 0; o < sc->objects; o++) {
        const pw_object *ob = &sc->ob[o];
        slc_pack_object *po = &objs[o];
        po->name = SLC_PACK_NO_NAME;
        po->first_lod = ci;
        po->lod_count = ob->lods;
        po->attributes = ob->attributes;
        po->vertex_stride = slc_pack_vertex_stride(ob->attributes);
        float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        float ulo[2] = {INFINITY, INFINITY}, uhi[2] = {-INFINITY, -INFINITY};
        for (uint32_t l = 0; l < ob->lods; l++) {
            for (uint32_t c = 0; c < ob->lvl[l].nc; c++) {
                for (uint32_t v = 0; v < ob->lvl[l].c[c].nv; v++) {
                    const pw_vertex *x = &ob->lvl[l].c[c].v[v];
                    for (int k = 0; k < 3; k++) {
                        lo[k] = fminf(lo[k], x->p[k]);
                        hi[k] = fmaxf(hi[k], x->p[k]);
                    }
                    for (int k = 0; k < 2; k++) {
                        ulo[k] = fminf(ulo[k], x->uv[k]);
                        uhi[k] = fmaxf(uhi[k], x->uv[k]);
                    }
                }
            }
        }
        for (int k = 0; k < 3; k++) {
            po->aabb_min[k] = lo[k];
            po->aabb_max[k] = hi[k];
            po->pos_offset[k] = (ob->attributes & SLC_PACK_ATTR_POS_U16) ? lo[k] : 0.0f;
            po->pos_scale[k] = (ob->attributes & SLC_PACK_ATTR_POS_U16) ? hi[k] - lo[k] : 1.0f;
        }
        for (int k = 0; k < 2; k++) {
            po->uv_offset[k] = (ob->attributes & SLC_PACK_ATTR_UV_U16) ? ulo[k] : 0.0f;
            po->uv_scale[k] = (ob->attributes & SLC_PACK_ATTR_UV_U16) ? uhi[k] - ulo[k] : 1.0f;
        }
        for (uint32_t l = 0; l < ob->lods; l++, ci++) {
            const pw_level *lev = &ob->lvl[l];
            unsigned char *page = b + at;
            slc_pack_chunk_header hd = {SLC_PACK_CHUNK_MAGIC, lev->nc, l, 0};
            memcpy(page, &hd, sizeof hd);
            size_t p = 16 + 32u * lev->nc;
            uint32_t tris = 0, verts = 0;
            pw_vertex all[PW_VERTS * PW_CLUSTERS];
            uint32_t nall = 0;
            for (uint32_t c = 0; c < lev->nc; c++) {
                const pw_cluster *cl = &lev->c[c];
                p = (p + 3u) & ~(size_t)3u;
                slc_pack_cluster rec;
                memset(&rec, 0, sizeof rec);
                rec.object = o;
                rec.vertex_offset = (uint32_t)p;
                rec.vertex_count = (uint16_t)cl->nv;
                rec.triangle_count = (uint16_t)cl->nt;
                sphere_of(cl->v, cl->nv, rec.sphere);
                for (uint32_t v = 0; v < cl->nv; v++) {
                    p += encode_vertex(po, &cl->v[v], page + p);
                    all[nall++] = cl->v[v];
                }
                rec.index_offset = (uint32_t)p;
                memcpy(page + p, cl->tri, 3u * cl->nt);
                p += 3u * cl->nt;
                memcpy(page + 16 + 32u * c, &rec, sizeof rec);
                tris += cl->nt;
                verts += cl->nv;
            }
            assert_true(p <= sc->page_size);
            slc_pack_chunk *k = &ch[ci];
            k->offset = at;
            k->stored_size = k->decoded_size = (uint32_t)p;
            k->xxh3 = XXH3_64bits(page, p);
            k->codec = SLC_PACK_CODEC_STORED;
            k->lod = (uint8_t)l;
            k->flags = l + 1u == ob->lods ? SLC_PACK_CHUNK_COARSEST : 0u;
            k->cluster_count = lev->nc;
            k->triangle_count = tris;
            k->vertex_count = verts;
            k->first_object = o;
            slc_pack_lod *pl = &lv[ci];
            pl->first_span = ci;
            pl->span_count = 1;
            pl->triangle_count = tris;
            pl->vertex_count = verts;
            pl->error = (float)l;
            sphere_of(all, nall, pl->sphere);
            sp[ci].chunk = ci;
            sp[ci].first_cluster = 0;
            sp[ci].cluster_count = (uint16_t)lev->nc;
            at = align8(at + p);
        }
    }
    slc_pack_header h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, SLC_PACK_MAGIC, SLC_PACK_MAGIC_SIZE);
    h.version_major = SLC_PACK_VERSION_MAJOR;
    h.version_minor = SLC_PACK_VERSION_MINOR;
    h.header_size = 160;
    h.page_size = sc->page_size;
    h.chunk_count = chunks;
    h.object_count = sc->objects;
    h.lod_count = lods;
    h.span_count = lods;
    h.instance_count = sc->instances;
    h.string_size = 1;
#define PW_TABLE(field, src, bytes) \
    h.field = at;                   \
    memcpy(b + at, (src), (bytes)); \
    at = align8(at + (bytes));
    PW_TABLE(chunk_offset, ch, chunks * sizeof(slc_pack_chunk));
    PW_TABLE(object_offset, objs, sc->objects * sizeof(slc_pack_object));
    PW_TABLE(lod_offset, lv, lods * sizeof(slc_pack_lod));
    PW_TABLE(span_offset, sp, lods * sizeof(slc_pack_span));
    slc_pack_instance in[PW_INSTANCES];
    memset(in, 0, sizeof in);
    for (uint32_t i = 0; i < sc->instances; i++) {
        in[i].object = sc->inst_object[i];
        in[i].name = SLC_PACK_NO_NAME;
        memcpy(in[i].matrix, sc->inst[i], sizeof in[i].matrix);
    }
    PW_TABLE(instance_offset, in, sc->instances * sizeof(slc_pack_instance));
    h.string_offset = at;
    b[at] = 0;
    at = align8(at + 1);
#undef PW_TABLE
    h.file_size = at;
    memcpy(b, &h, sizeof h);
    test_pack t = {.data = b, .size = at};
    tp_reseal(&t);
    *size = at;
    return b;
}

static void pw_translate(float m[16], float x, float y, float z)
{
    memset(m, 0, 16 * sizeof(float));
    m[0] = m[5] = m[10] = m[15] = 1.0f;
    m[12] = x;
    m[13] = y;
    m[14] = z;
}

/* --- a stream over an adopted backend, and the renderer ---------------------- */

typedef struct fixture {
    unsigned char *bytes;
    size_t size;
    slc_io io;
    slc_profile profile;
    slc_platform_block block;
    slc_memory *mem;
    void *vk_mem;
    slc_vulkan *vk;
    capture_log vklog;
    slc_pack *pk;
    slc_stream *s;
    slc_platform_workers workers;
    uint32_t worker_count;
    capture_log log;
    slc_logger logger;
    capture_log rlog;
    void *r_mem;
    slc_render *r;
    VkCommandPool pool;
    VkCommandBuffer cmd;
    uint64_t frame;
} fixture;

static void profile_text(char *buf, size_t cap, uint32_t page_size, uint32_t workers, uint32_t pin,
                         const char *render_limits)
{
    snprintf(buf, cap,
             "[profile]\nname = render-test\n"
             "[budgets]\ncpu = 8 MiB\ncpu/meta = 1 MiB\ncpu/decode = 1 MiB\ncpu/queues = 1 MiB\ncpu/driver = 2 MiB\n%s"
             "gpu = 64 MiB\ngpu/pool = 8 MiB\ngpu/staging = 1 MiB\n%s"
             "[pool]\npage_size = %u\npage_count = 32\neviction = lru\n"
             "[stream]\nframes_in_flight = %u\nworkers = %u\nqueue_capacity = 64\nstaging_size = 256 KiB\n"
             "upload_per_frame = 1 MiB\npin_coarsest = %u\n"
             "[tables]\nmax_objects = 64\nmax_chunks = 256\nmax_lods = 4\nmax_string_bytes = 4 KiB\n",
             render_limits != NULL ? render_limits : "cpu/render = 256 KiB\n",
             render_limits != NULL ? "gpu/render = 4 KiB\n" : "gpu/render = 16 MiB\n", page_size, FRAMES, workers, pin);
}

/* How the next fixture's backend is made (reset by every case's setup). */
typedef struct fx_backend {
    uint32_t placement;        /* slc_vulkan_placement */
    uint64_t max_segment_size; /* 0: the device's */
    bool no_multi_draw;        /* the application says multiDrawIndirect is not enabled */
    bool charge_driver;        /* the backend charges the driver's host memory to cpu/driver */
} fx_backend;
static fx_backend next_backend;

static void fx_open_with(fixture *f, const pw_scene *sc, uint32_t workers, uint32_t pin, const char *render_limits)
{
    memset(f, 0, sizeof *f);
    atomic_store(&messages, 0);
    f->bytes = pw_write(sc, &f->size);
    slc_io_from_memory(f->bytes, f->size, &f->io);
    char text[2048];
    profile_text(text, sizeof text, sc->page_size, workers, pin, render_limits);
    sfx_profile_parse(text, "render-test.profile", &f->profile);
    sff_memory_map(&f->profile, &f->block, &f->mem);
    slc_vulkan_desc d;
    memset(&d, 0, sizeof d);
    slc_pool_spec spec;
    slc_pool_spec_from_profile(&f->profile, SLC_POOL_GEOMETRY, &spec);
    slc_vulkan_desc_from_spec(&d, &spec, &f->profile);
    d.log = capture_logger(&f->vklog);
    d.placement = next_backend.placement;
    d.max_segment_size = next_backend.max_segment_size;
    if (next_backend.charge_driver) {
        d.budgets = slc_memory_budgets(f->mem);
    }
    size_t size = slc_vulkan_footprint(&d);
    f->vk_mem = aligned_alloc(SLC_VULKAN_ALIGN, (size + 63u) & ~(size_t)63u);
    assert_non_null(f->vk_mem);
    slc_vulkan_device_info dev = vk_test_device_info();
    dev.multi_draw_indirect = next_backend.no_multi_draw ? VK_FALSE : t_features.multiDrawIndirect;
    dev.storage_buffer_array_dynamic_indexing = t_features.shaderStorageBufferArrayDynamicIndexing;
    dev.shader_draw_parameters = t_draw_parameters;
    dev.get_instance_proc_addr = vkGetInstanceProcAddr;
    slc_status st = slc_vulkan_adopt(f->vk_mem, size, &d, &dev, &f->vk);
    if (st != SLC_OK) {
        fail_msg("adopt: %s: %s", slc_status_name(st), f->vklog.message);
    }
    f->logger = capture_logger(&f->log);
    sfx_pack_open(f->mem, &f->io, &f->profile, &f->logger, &f->pk);
    slc_stream_desc sd;
    memset(&sd, 0, sizeof sd);
    sd.profile = &f->profile;
    sd.memory = f->mem;
    sd.pack = f->pk;
    sd.stores[SLC_POOL_GEOMETRY] = slc_vulkan_get_store(f->vk);
    sd.log = &f->logger;
    f->worker_count = workers;
    sfx_stream_start(&sd, workers, &f->workers, &f->log, &f->s);
    VkCommandPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pi.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    pi.queueFamilyIndex = t_family;
    assert_int_equal(t_table.vkCreateCommandPool(t_device, &pi, NULL, &f->pool), VK_SUCCESS);
    VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    ai.commandPool = f->pool;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    assert_int_equal(t_table.vkAllocateCommandBuffers(t_device, &ai, &f->cmd), VK_SUCCESS);
}

static slc_render_desc render_desc(fixture *f)
{
    slc_render_desc d;
    memset(&d, 0, sizeof d);
    d.width = W;
    d.height = H;
    d.max_draws = 64;
    d.max_placements = 16;
    d.budgets = slc_memory_budgets(f->mem);
    d.log = capture_logger(&f->rlog);
    return d;
}

static slc_status fx_render_init(fixture *f, const slc_render_desc *d)
{
    size_t size = slc_render_footprint(d, f->pk);
    assert_true(size > 0);
    f->r_mem = aligned_alloc(SLC_RENDER_ALIGN, (size + 63u) & ~(size_t)63u);
    assert_non_null(f->r_mem);
    slc_status s = slc_render_init(f->r_mem, size, d, f->vk, f->pk, &f->r);
    if (s != SLC_OK) {
        free(f->r_mem);
        f->r_mem = NULL;
    }
    return s;
}

static void fx_open(fixture *f, const pw_scene *sc, uint32_t workers, uint32_t pin)
{
    fx_open_with(f, sc, workers, pin, NULL);
    slc_render_desc d = render_desc(f);
    slc_status s = fx_render_init(f, &d);
    if (s != SLC_OK) {
        fail_msg("render init: %s: %s", slc_status_name(s), f->rlog.message);
    }
}

static slc_budget_stats budget_named(fixture *f, const char *name)
{
    slc_budget_id id;
    slc_budget_stats bs;
    assert_int_equal(slc_budgets_scan(slc_memory_budgets(f->mem), name, &id), SLC_OK);
    slc_budgets_get(slc_memory_budgets(f->mem), id, &bs);
    return bs;
}

static void fx_close(fixture *f)
{
    slc_render_deinit(f->r);
    free(f->r_mem);
    t_table.vkDestroyCommandPool(t_device, f->pool, NULL);
    if (f->worker_count > 0) {
        slc_platform_workers_stop(&f->workers);
    }
    slc_stream_destroy(f->s);
    slc_pack_close(f->pk);
    slc_vulkan_deinit(f->vk);
    free(f->vk_mem);
    assert_int_equal(budget_named(f, "cpu/render").current, 0);
    assert_int_equal(budget_named(f, "gpu/render").current, 0);
    slc_memory_deinit(f->mem);
    slc_platform_block_unmap(&f->block);
    free(f->bytes);
    assert_int_equal(atomic_load(&messages), 0);
}

/* Scene units are pixels: x right, y down, depth z in [0, 1]. */
static slc_render_view ortho_view(uint32_t tint)
{
    slc_render_view v;
    memset(&v, 0, sizeof v);
    v.view_proj[0] = 2.0f / (float)W;
    v.view_proj[5] = 2.0f / (float)H;
    v.view_proj[10] = 1.0f;
    v.view_proj[12] = -1.0f;
    v.view_proj[13] = -1.0f;
    v.view_proj[15] = 1.0f;
    /* An orthographic camera's eye: far along the view direction. */
    v.eye[0] = (float)W / 2.0f;
    v.eye[1] = (float)H / 2.0f;
    v.eye[2] = -1000.0f;
    v.tint = tint;
    v.clear[0] = 0.0f;
    v.clear[1] = 0.0f;
    v.clear[2] = 0.0f;
    v.clear[3] = 1.0f;
    return v;
}

typedef struct fx_request {
    uint32_t object;
    uint8_t lod;
} fx_request;

/* One stream frame with the requests, begun and drawn; submitted unless
 * hold (then the caller submits f->cmd). Returns the frame. */
static uint64_t fx_frame_record(fixture *f, const slc_render_view *view, const fx_request *req, uint32_t n)
{
    uint64_t frame;
    slc_status st;
    while ((st = slc_stream_begin_frame(f->s, &frame)) == SLC_E_FRAMES_IN_FLIGHT) {
        assert_int_equal(slc_vulkan_wait_frame(f->vk, f->frame, WAIT), SLC_OK);
    }
    assert_int_equal(st, SLC_OK);
    for (uint32_t i = 0; i < n; i++) {
        slc_stream_object_request r = {{req[i].object}, req[i].lod, 1, {0}};
        r.partition = (slc_partition){(uint16_t)f->profile.partition_count};
        assert_int_equal(slc_stream_request(f->s, &r), SLC_OK);
    }
    assert_int_equal(slc_stream_end_frame(f->s), SLC_OK);
    st = slc_render_begin(f->r, frame, view);
    if (st != SLC_OK) {
        fail_msg("begin: %s: %s", slc_status_name(st), f->rlog.message);
    }
    for (uint32_t i = 0; i < slc_stream_result_count(f->s); i++) {
        slc_stream_result res;
        slc_stream_span spans[8];
        assert_int_equal(slc_stream_resident(f->s, i, &res, spans, 8), SLC_OK);
        assert_int_equal(slc_render_add(f->r, &res, spans), SLC_OK);
    }
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    assert_int_equal(t_table.vkResetCommandBuffer(f->cmd, 0), VK_SUCCESS);
    assert_int_equal(t_table.vkBeginCommandBuffer(f->cmd, &bi), VK_SUCCESS);
    return frame;
}

static void fx_submit(fixture *f, uint64_t frame, const VkSemaphore *wait, uint64_t wait_value)
{
    assert_int_equal(t_table.vkEndCommandBuffer(f->cmd), VK_SUCCESS);
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO};
    VkTimelineSemaphoreSubmitInfo ts = {.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
    VkPipelineStageFlags stage = VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT;
    if (wait != NULL) {
        ts.waitSemaphoreValueCount = 1;
        ts.pWaitSemaphoreValues = &wait_value;
        si.pNext = &ts;
        si.waitSemaphoreCount = 1;
        si.pWaitSemaphores = wait;
        si.pWaitDstStageMask = &stage;
    }
    si.commandBufferCount = 1;
    si.pCommandBuffers = &f->cmd;
    assert_int_equal(t_table.vkQueueSubmit(t_queue, 1, &si, VK_NULL_HANDLE), VK_SUCCESS);
    assert_int_equal(slc_vulkan_end_frame(f->vk, frame), SLC_OK);
    f->frame = frame;
}

/* A whole frame through the own target; waits for it and reads it. */
static uint64_t fx_frame(fixture *f, const slc_render_view *view, const fx_request *req, uint32_t n,
                         slc_render_image *img, slc_render_frame *stats)
{
    uint64_t frame = fx_frame_record(f, view, req, n);
    slc_status st = slc_render_record(f->r, f->cmd);
    if (st != SLC_OK) {
        fail_msg("record: %s: %s", slc_status_name(st), f->rlog.message);
    }
    fx_submit(f, frame, NULL, 0);
    assert_int_equal(slc_vulkan_wait_frame(f->vk, frame, WAIT), SLC_OK);
    if (img != NULL) {
        assert_int_equal(slc_render_read(f->r, frame, img), SLC_OK);
        assert_int_equal(img->width, W);
        assert_int_equal(img->height, H);
        assert_int_equal(img->stride, W * 4u);
    }
    if (stats != NULL) {
        assert_int_equal(slc_render_get_frame(f->r, frame, stats), SLC_OK);
        assert_int_equal(stats->frame, frame);
    }
    return frame;
}

/* Frames until every request is served at what it asks (the loads of the
 * first frame become visible in the next). */
static uint64_t fx_settle(fixture *f, const slc_render_view *view, const fx_request *req, uint32_t n,
                          slc_render_image *img, slc_render_frame *stats)
{
    for (int tries = 0; tries < 4; tries++) {
        uint64_t frame = fx_frame(f, view, req, n, img, stats);
        bool served = true;
        for (uint32_t i = 0; i < slc_stream_result_count(f->s); i++) {
            slc_stream_result res;
            (void)slc_stream_resident(f->s, i, &res, NULL, 0); /* SLC_E_CAPACITY: res filled, no spans asked */
            served = served && res.lod == res.requested_lod;
        }
        if (served) {
            return frame;
        }
    }
    fail_msg("the requests were not served at their levels in 4 frames");
    return 0;
}

static void expect_pixel(const slc_render_image *img, uint32_t x, uint32_t y, const uint8_t rgb[3])
{
    const uint8_t *p = img->rgba + (size_t)y * img->stride + (size_t)x * 4u;
    if (p[0] != rgb[0] || p[1] != rgb[1] || p[2] != rgb[2] || p[3] != 255) {
        fail_msg("pixel (%u, %u) is %u %u %u %u, expected %u %u %u 255", x, y, p[0], p[1], p[2], p[3], rgb[0], rgb[1],
                 rgb[2]);
    }
}

static const uint8_t black[3] = {0, 0, 0};

static void lod_rgb(uint32_t lod, uint8_t rgb[3])
{
    slc_render_lod_color(lod, rgb);
}

/* Object o: the same quad at every one of its lods levels. */
static void scene_quad(pw_scene *sc, uint32_t lods, float x0, float y0, float x1, float y1, float z)
{
    pw_object *ob = &sc->ob[sc->objects++];
    memset(ob, 0, sizeof *ob);
    ob->attributes = SLC_PACK_ATTR_NORMAL | SLC_PACK_ATTR_UV;
    ob->lods = lods;
    for (uint32_t l = 0; l < lods; l++) {
        pw_quad(&ob->lvl[l], x0, y0, x1, y1, z);
    }
}

static pw_scene *scene_new(void)
{
    pw_scene *sc = calloc(1, sizeof *sc);
    assert_non_null(sc);
    sc->page_size = 4096;
    return sc;
}

/* --- cases ---------------------------------------------------------------------- */

/* Two quads, the nearer requested first so the depth test (not the draw
 * order) decides: inside each its level's colour, the nearer where they
 * overlap, the clear colour outside. */
static void test_quads_give_exact_pixels(void **state)
{
    (void)state;
    pw_scene *sc = scene_new();
    scene_quad(sc, 2, 8, 8, 40, 30, 0.5f);    /* object 0, far, drawn at lod 0 */
    scene_quad(sc, 2, 24, 16, 56, 40, 0.25f); /* object 1, near, drawn at lod 1 */
    fixture f;
    fx_open(&f, sc, 0, 0);
    slc_render_view v = ortho_view(SLC_RENDER_TINT_LOD);
    fx_request req[2] = {{1, 1}, {0, 0}};
    slc_render_image img;
    slc_render_frame st;
    fx_settle(&f, &v, req, 2, &img, &st);
    uint8_t c0[3], c1[3];
    lod_rgb(0, c0);
    lod_rgb(1, c1);
    for (uint32_t y = 0; y < H; y++) {
        for (uint32_t x = 0; x < W; x++) {
            bool in0 = x >= 8 && x < 40 && y >= 8 && y < 30;
            bool in1 = x >= 24 && x < 56 && y >= 16 && y < 40;
            expect_pixel(&img, x, y, in1 ? c1 : in0 ? c0 : black);
        }
    }
    assert_int_equal(st.draws, 2);
    assert_int_equal(st.placements, 2);
    assert_int_equal(st.placements_culled, 0);
    assert_int_equal(st.clusters_drawn, 2);
    assert_int_equal(st.triangles, 4);
    if (st.timed) {
        assert_true(st.gpu_ns > 0);
    }
    printf("two quads at %ux%u: gpu %llu ns (timed %d)\n", W, H, (unsigned long long)st.gpu_ns, st.timed);
    slc_render_sizes sz;
    slc_render_get_sizes(f.r, &sz);
    assert_true(sz.target >= (uint64_t)W * H * 8u);
    assert_true(sz.readback >= (uint64_t)W * H * 4u * FRAMES);
    assert_true(sz.lists > 0 && sz.objects > 0 && sz.materials > 0);
    slc_render_desc d = render_desc(&f);
    uint64_t bytes = slc_render_device_bytes(&d, f.pk, f.vk);
    assert_int_equal(budget_named(&f, "gpu/render").current, bytes);
    assert_int_equal(bytes, sz.target + sz.readback + sz.lists + sz.objects + sz.materials);
    assert_int_equal(budget_named(&f, "cpu/render").current, slc_render_footprint(&d, f.pk));
    fx_close(&f);
    free(sc);
}

static void scene_surface(pw_scene *sc, uint32_t attributes);

/* The two quads of test_quads_give_exact_pixels and a shaded surface,
 * drawn on a backend made as next_backend says; the image. */
static void draw_reference_scene(uint8_t *out, slc_vulkan_info *info)
{
    pw_scene *sc = scene_new();
    sc->page_size = 16384;
    scene_surface(sc, SLC_PACK_ATTR_NORMAL | SLC_PACK_ATTR_POS_U16 | SLC_PACK_ATTR_NORMAL_OCT8);
    scene_quad(sc, 2, 8, 8, 40, 30, 0.25f);
    scene_quad(sc, 2, 24, 16, 56, 40, 0.125f);
    fixture f;
    fx_open(&f, sc, 0, 0);
    slc_vulkan_get_info(f.vk, info);
    slc_render_view v = ortho_view(SLC_RENDER_TINT_NONE);
    fx_request req[3] = {{0, 0}, {2, 1}, {1, 0}};
    slc_render_image img;
    slc_render_frame st;
    fx_settle(&f, &v, req, 3, &img, &st);
    assert_int_equal(st.draws, 18);
    assert_int_equal(st.clusters_drawn, 18);
    memcpy(out, img.rgba, (size_t)W * H * 4u);
    fx_close(&f);
    free(sc);
}

/* The same image whichever way the pages and draws reach the GPU: pages
 * written through the staging belt (copies ahead of the frame, made
 * visible by the renderer's first barrier), a pool of two pages a segment
 * (one descriptor each, picked per draw: the three chunks' pages span two
 * segments), and one draw call a cluster
 * (no multiDrawIndirect: the draw's index in a push constant). */
static void test_belt_segments_and_single_draws_give_the_same_image(void **state)
{
    (void)state;
    static uint8_t ref[W * H * 4], img[W * H * 4];
    slc_vulkan_info info;
    draw_reference_scene(ref, &info);
    assert_true(info.unified);
    assert_int_equal(info.segment_count, 1);
    assert_true(info.multi_draw_indirect);
    next_backend.placement = SLC_VULKAN_PLACEMENT_STAGING;
    draw_reference_scene(img, &info);
    assert_false(info.unified);
    assert_memory_equal(ref, img, sizeof ref);
    memset(&next_backend, 0, sizeof next_backend);
    next_backend.max_segment_size = 2u * 16384u; /* two pages a segment: the three chunks in two segments */
    draw_reference_scene(img, &info);
    assert_int_equal(info.segment_count, 16);
    assert_memory_equal(ref, img, sizeof ref);
    memset(&next_backend, 0, sizeof next_backend);
    next_backend.no_multi_draw = true;
    draw_reference_scene(img, &info);
    assert_false(info.multi_draw_indirect);
    assert_memory_equal(ref, img, sizeof ref);
}

/* The stripes: an object asked for at lod 0 while only its pinned lod 1 is
 * resident is drawn at lod 1 with black where ((x + y) / 4) % 2 == 0; the
 * next frame, lod 0 loaded, without. */
static void test_coarser_lod_is_striped(void **state)
{
    (void)state;
    pw_scene *sc = scene_new();
    scene_quad(sc, 2, 4, 4, 60, 44, 0.5f);
    fixture f;
    fx_open(&f, sc, 0, 1);
    slc_render_view v = ortho_view(SLC_RENDER_TINT_LOD);
    fx_request req = {0, 0};
    slc_render_image img;
    fx_frame(&f, &v, &req, 1, &img, NULL);
    slc_stream_result res;
    assert_int_equal(slc_stream_resident(f.s, 0, &res, NULL, 0), SLC_E_CAPACITY);
    assert_int_equal(res.lod, 1);
    assert_int_equal(res.requested_lod, 0);
    uint8_t c0[3], c1[3];
    lod_rgb(0, c0);
    lod_rgb(1, c1);
    for (uint32_t y = 0; y < H; y++) {
        for (uint32_t x = 0; x < W; x++) {
            bool in = x >= 4 && x < 60 && y >= 4 && y < 44;
            expect_pixel(&img, x, y, !in ? black : ((x + y) / 4u) % 2u == 0 ? black : c1);
        }
    }
    fx_frame(&f, &v, &req, 1, &img, NULL);
    assert_int_equal(slc_stream_resident(f.s, 0, &res, NULL, 0), SLC_E_CAPACITY);
    assert_int_equal(res.lod, 0);
    for (uint32_t y = 0; y < H; y++) {
        for (uint32_t x = 0; x < W; x++) {
            bool in = x >= 4 && x < 60 && y >= 4 && y < 44;
            expect_pixel(&img, x, y, in ? c0 : black);
        }
    }
    fx_close(&f);
    free(sc);
}

/* Instancing: one object, two placements, two quads; a third placement
 * outside the frustum is dropped on the CPU. */
static void test_placements_instance_and_cull_on_the_cpu(void **state)
{
    (void)state;
    pw_scene *sc = scene_new();
    scene_quad(sc, 1, 0, 0, 10, 10, 0.5f);
    pw_translate(sc->inst[0], 4, 4, 0);
    pw_translate(sc->inst[1], 40, 30, 0);
    pw_translate(sc->inst[2], 400, 30, 0);
    sc->instances = 3;
    fixture f;
    fx_open(&f, sc, 0, 0);
    slc_render_view v = ortho_view(SLC_RENDER_TINT_LOD);
    fx_request req = {0, 0};
    slc_render_image img;
    slc_render_frame st;
    fx_settle(&f, &v, &req, 1, &img, &st);
    uint8_t c0[3];
    lod_rgb(0, c0);
    for (uint32_t y = 0; y < H; y++) {
        for (uint32_t x = 0; x < W; x++) {
            bool in = (x >= 4 && x < 14 && y >= 4 && y < 14) || (x >= 40 && x < 50 && y >= 30 && y < 40);
            expect_pixel(&img, x, y, in ? c0 : black);
        }
    }
    assert_int_equal(st.draws, 1);
    assert_int_equal(st.placements, 2);
    assert_int_equal(st.placements_culled, 1);
    assert_int_equal(st.clusters_drawn, 1);
    assert_int_equal(st.triangles, 4);
    fx_close(&f);
    free(sc);
}

/* A placement whose last row is not 0 0 0 1 is used whole: a translation
 * with every entry doubled (w = 2) draws where the translation draws, while
 * an affine one beside it is read as three rows. */
static void test_projective_placements_are_used_whole(void **state)
{
    (void)state;
    pw_scene *sc = scene_new();
    scene_quad(sc, 1, 0, 0, 10, 10, 0.5f);
    pw_translate(sc->inst[0], 4, 4, 0);
    pw_translate(sc->inst[1], 20, 16, 0);
    for (int i = 0; i < 16; i++) {
        sc->inst[1][i] *= 2.0f;
    }
    sc->instances = 2;
    fixture f;
    fx_open(&f, sc, 0, 0);
    slc_render_view v = ortho_view(SLC_RENDER_TINT_LOD);
    fx_request req = {0, 0};
    slc_render_image img;
    slc_render_frame st;
    fx_settle(&f, &v, &req, 1, &img, &st);
    uint8_t c0[3];
    lod_rgb(0, c0);
    for (uint32_t y = 0; y < H; y++) {
        for (uint32_t x = 0; x < W; x++) {
            bool in = (x >= 4 && x < 14 && y >= 4 && y < 14) || (x >= 20 && x < 30 && y >= 16 && y < 26);
            expect_pixel(&img, x, y, in ? c0 : black);
        }
    }
    assert_int_equal(st.placements, 2);
    assert_int_equal(st.clusters_drawn, 1);
    fx_close(&f);
    free(sc);
}

/* The GPU's cluster test: an object of two clusters, one inside the
 * frustum and one far outside (its LOD sphere spans both, so the CPU keeps
 * the placement): two draws, one kept. */
static void test_clusters_outside_are_culled_on_the_gpu(void **state)
{
    (void)state;
    pw_scene *sc = scene_new();
    pw_object *ob = &sc->ob[sc->objects++];
    ob->attributes = 0;
    ob->lods = 1;
    pw_quad(&ob->lvl[0], 10, 10, 20, 20, 0.5f);
    pw_quad(&ob->lvl[0], 300, 10, 310, 20, 0.5f);
    fixture f;
    fx_open(&f, sc, 0, 0);
    slc_render_view v = ortho_view(SLC_RENDER_TINT_LOD);
    fx_request req = {0, 0};
    slc_render_image img;
    slc_render_frame st;
    fx_settle(&f, &v, &req, 1, &img, &st);
    assert_int_equal(st.draws, 2);
    assert_int_equal(st.placements, 1);
    assert_int_equal(st.clusters_drawn, 1);
    assert_int_equal(st.triangles, 2);
    uint8_t c0[3];
    lod_rgb(0, c0);
    expect_pixel(&img, 15, 15, c0);
    expect_pixel(&img, 25, 15, black);
    fx_close(&f);
    free(sc);
}

/* A shaded scene: a wavy surface of 16 clusters with normals. */
static void scene_surface(pw_scene *sc, uint32_t attributes)
{
    pw_object *ob = &sc->ob[sc->objects++];
    memset(ob, 0, sizeof *ob);
    ob->attributes = attributes;
    ob->lods = 1;
    const uint32_t n = 4; /* 4 x 4 quads a cluster, 4 x 4 clusters */
    for (uint32_t cy = 0; cy < 4; cy++) {
        for (uint32_t cx = 0; cx < 4; cx++) {
            pw_cluster *c = &ob->lvl[0].c[ob->lvl[0].nc++];
            for (uint32_t j = 0; j <= n; j++) {
                for (uint32_t i = 0; i <= n; i++) {
                    pw_vertex *v = &c->v[c->nv++];
                    float x = (float)(cx * n + i) * (float)W / 16.0f, y = (float)(cy * n + j) * (float)H / 16.0f;
                    float a = x * 0.15f, b = y * 0.2f;
                    v->p[0] = x;
                    v->p[1] = y;
                    v->p[2] = 0.5f + 0.05f * sinf(a) * cosf(b);
                    float nx = -0.05f * 0.15f * cosf(a) * cosf(b) * 40.0f,
                          ny = 0.05f * 0.2f * sinf(a) * sinf(b) * 40.0f;
                    float l = sqrtf(nx * nx + ny * ny + 1.0f);
                    v->n[0] = nx / l;
                    v->n[1] = ny / l;
                    v->n[2] = -1.0f / l;
                    v->uv[0] = x / (float)W;
                    v->uv[1] = y / (float)H;
                }
            }
            for (uint32_t j = 0; j < n; j++) {
                for (uint32_t i = 0; i < n; i++) {
                    uint8_t a = (uint8_t)(j * (n + 1) + i);
                    uint8_t t[2][3] = {{a, (uint8_t)(a + 1), (uint8_t)(a + n + 2)},
                                       {a, (uint8_t)(a + n + 2), (uint8_t)(a + n + 1)}};
                    memcpy(c->tri[c->nt++], t[0], 3);
                    memcpy(c->tri[c->nt++], t[1], 3);
                }
            }
        }
    }
}

static double luma(const uint8_t *p)
{
    return 0.2126 * p[0] + 0.7152 * p[1] + 0.0722 * p[2];
}

static void shade(uint32_t attributes, uint8_t *out)
{
    pw_scene *sc = scene_new();
    sc->page_size = 16384;
    scene_surface(sc, attributes);
    fixture f;
    fx_open(&f, sc, 0, 0);
    slc_render_view v = ortho_view(SLC_RENDER_TINT_NONE);
    fx_request req = {0, 0};
    slc_render_image img;
    slc_render_frame st;
    fx_settle(&f, &v, &req, 1, &img, &st);
    assert_int_equal(st.clusters_drawn, 16);
    assert_int_equal(st.triangles, 16u * 32u);
    memcpy(out, img.rgba, (size_t)W * H * 4u);
    fx_close(&f);
    free(sc);
}

/* Float against quantized pages (POS_U16 + NORMAL_OCT8 + UV_U16) of one
 * shaded scene: within a PSNR of luminance. Measured on lavapipe (x86-64):
 * 58.4 dB (the octahedral normals' 8 bits make nearly all of the
 * difference); the floor, 55 dB, is a little below. Also: the scene shaded
 * from its face normals (no normal attribute) lights every pixel. */
static void test_quantized_pages_match_float_pages(void **state)
{
    (void)state;
    static uint8_t a[W * H * 4], b[W * H * 4], c[W * H * 4];
    shade(SLC_PACK_ATTR_NORMAL | SLC_PACK_ATTR_UV, a);
    shade(SLC_PACK_ATTR_NORMAL | SLC_PACK_ATTR_UV | SLC_PACK_ATTR_POS_U16 | SLC_PACK_ATTR_NORMAL_OCT8 |
              SLC_PACK_ATTR_UV_U16,
          b);
    shade(0, c);
    double se = 0;
    uint32_t lit = 0;
    for (size_t i = 0; i < (size_t)W * H; i++) {
        double d = luma(&a[i * 4]) - luma(&b[i * 4]);
        se += d * d;
        lit += luma(&c[i * 4]) > 0 ? 1u : 0u;
    }
    double mse = se / (double)(W * H);
    double psnr = mse == 0 ? 99.0 : 10.0 * log10(255.0 * 255.0 / mse);
    printf("float vs quantized pages, luminance PSNR: %.2f dB\n", psnr);
    assert_true(psnr >= 55.0);
    assert_int_equal(lit, W * H);
    /* the shading varies: not one flat colour */
    assert_true(luma(&a[0]) != luma(&a[(size_t)(W * H / 2 + W / 3) * 4]));
}

/* 0, 1 and 2 worker threads give the same bytes. */
static void test_workers_give_the_same_image(void **state)
{
    (void)state;
    static uint8_t img[3][W * H * 4];
    for (uint32_t w = 0; w < 3; w++) {
        pw_scene *sc = scene_new();
        sc->page_size = 16384;
        scene_surface(sc, SLC_PACK_ATTR_NORMAL);
        scene_quad(sc, 2, 8, 8, 40, 30, 0.25f);
        fixture f;
        fx_open(&f, sc, w, 0);
        slc_render_view v = ortho_view(SLC_RENDER_TINT_NONE);
        fx_request req[2] = {{0, 0}, {1, 1}};
        slc_render_image im;
        fx_settle(&f, &v, req, 2, &im, NULL);
        memcpy(img[w], im.rgba, sizeof img[w]);
        fx_close(&f);
        free(sc);
    }
    assert_memory_equal(img[0], img[1], sizeof img[0]);
    assert_memory_equal(img[0], img[2], sizeof img[0]);
}

/* The application's render pass: the renderer records its cull pass before
 * the pass and its draws inside; the test's own target holds the quad. */
static void test_draws_inside_the_application_render_pass(void **state)
{
    (void)state;
    pw_scene *sc = scene_new();
    scene_quad(sc, 1, 8, 8, 40, 30, 0.5f);
    fixture f;
    fx_open_with(&f, sc, 0, 0, NULL);
    /* The application's target: colour and depth images, a pass, a framebuffer. */
    VkPhysicalDeviceMemoryProperties mp;
    vkGetPhysicalDeviceMemoryProperties(t_physical, &mp);
    VkImage images[2];
    VkDeviceMemory mems[3];
    VkImageView views[2];
    const VkFormat formats[2] = {VK_FORMAT_R8G8B8A8_UNORM, VK_FORMAT_D32_SFLOAT};
    for (int i = 0; i < 2; i++) {
        VkImageCreateInfo ii = {.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
        ii.imageType = VK_IMAGE_TYPE_2D;
        ii.format = formats[i];
        ii.extent = (VkExtent3D){W, H, 1};
        ii.mipLevels = ii.arrayLayers = 1;
        ii.samples = VK_SAMPLE_COUNT_1_BIT;
        ii.usage = i == 0 ? VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT
                          : VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT;
        assert_int_equal(t_table.vkCreateImage(t_device, &ii, NULL, &images[i]), VK_SUCCESS);
        VkMemoryRequirements req;
        t_table.vkGetImageMemoryRequirements(t_device, images[i], &req);
        VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
        ai.allocationSize = req.size;
        for (uint32_t t = 0; t < mp.memoryTypeCount; t++) {
            if (req.memoryTypeBits & (1u << t)) {
                ai.memoryTypeIndex = t;
                break;
            }
        }
        assert_int_equal(t_table.vkAllocateMemory(t_device, &ai, NULL, &mems[i]), VK_SUCCESS);
        assert_int_equal(t_table.vkBindImageMemory(t_device, images[i], mems[i], 0), VK_SUCCESS);
        VkImageViewCreateInfo vi = {.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
        vi.image = images[i];
        vi.viewType = VK_IMAGE_VIEW_TYPE_2D;
        vi.format = formats[i];
        vi.subresourceRange.aspectMask = i == 0 ? VK_IMAGE_ASPECT_COLOR_BIT : VK_IMAGE_ASPECT_DEPTH_BIT;
        vi.subresourceRange.levelCount = vi.subresourceRange.layerCount = 1;
        assert_int_equal(t_table.vkCreateImageView(t_device, &vi, NULL, &views[i]), VK_SUCCESS);
    }
    VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    bci.size = (VkDeviceSize)W * H * 4u;
    bci.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    VkBuffer readback;
    assert_int_equal(t_table.vkCreateBuffer(t_device, &bci, NULL, &readback), VK_SUCCESS);
    VkMemoryRequirements breq;
    t_table.vkGetBufferMemoryRequirements(t_device, readback, &breq);
    VkMemoryAllocateInfo bai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    bai.allocationSize = breq.size;
    for (uint32_t t = 0; t < mp.memoryTypeCount; t++) {
        VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
        if ((breq.memoryTypeBits & (1u << t)) && (mp.memoryTypes[t].propertyFlags & want) == want) {
            bai.memoryTypeIndex = t;
            break;
        }
    }
    assert_int_equal(t_table.vkAllocateMemory(t_device, &bai, NULL, &mems[2]), VK_SUCCESS);
    assert_int_equal(t_table.vkBindBufferMemory(t_device, readback, mems[2], 0), VK_SUCCESS);
    void *map;
    assert_int_equal(t_table.vkMapMemory(t_device, mems[2], 0, VK_WHOLE_SIZE, 0, &map), VK_SUCCESS);
    VkAttachmentDescription at[2] = {0};
    for (int i = 0; i < 2; i++) {
        at[i].format = formats[i];
        at[i].samples = VK_SAMPLE_COUNT_1_BIT;
        at[i].loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
        at[i].storeOp = i == 0 ? VK_ATTACHMENT_STORE_OP_STORE : VK_ATTACHMENT_STORE_OP_DONT_CARE;
        at[i].stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
        at[i].stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
        at[i].initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
        at[i].finalLayout = i == 0 ? VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL
                                   : VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL;
    }
    VkAttachmentReference cref = {0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
    VkAttachmentReference dref = {1, VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL};
    VkSubpassDescription sp = {0};
    sp.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
    sp.colorAttachmentCount = 1;
    sp.pColorAttachments = &cref;
    sp.pDepthStencilAttachment = &dref;
    /* The previous frame's copy out of the colour image before this
     * frame's clear; the colour written before this frame's copy. */
    VkSubpassDependency deps[2] = {{0}};
    deps[0].srcSubpass = VK_SUBPASS_EXTERNAL;
    deps[0].dstSubpass = 0;
    deps[0].srcStageMask = VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT |
                           VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT;
    deps[0].dstStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT | VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT |
                           VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT;
    deps[0].srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT;
    deps[0].dstAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT |
                            VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_READ_BIT;
    deps[1].srcSubpass = 0;
    deps[1].dstSubpass = VK_SUBPASS_EXTERNAL;
    deps[1].srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
    deps[1].dstStageMask = VK_PIPELINE_STAGE_TRANSFER_BIT;
    deps[1].srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
    deps[1].dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    VkRenderPassCreateInfo ri = {.sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO};
    ri.attachmentCount = 2;
    ri.pAttachments = at;
    ri.subpassCount = 1;
    ri.pSubpasses = &sp;
    ri.dependencyCount = 2;
    ri.pDependencies = deps;
    VkRenderPass pass;
    assert_int_equal(t_table.vkCreateRenderPass(t_device, &ri, NULL, &pass), VK_SUCCESS);
    VkFramebufferCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO};
    fi.renderPass = pass;
    fi.attachmentCount = 2;
    fi.pAttachments = views;
    fi.width = W;
    fi.height = H;
    fi.layers = 1;
    VkFramebuffer fb;
    assert_int_equal(t_table.vkCreateFramebuffer(t_device, &fi, NULL, &fb), VK_SUCCESS);

    slc_render_desc d = render_desc(&f);
    d.render_pass = pass;
    assert_int_equal(fx_render_init(&f, &d), SLC_OK);
    slc_render_view v = ortho_view(SLC_RENDER_TINT_LOD);
    fx_request req = {0, 0};
    for (int frame_no = 0; frame_no < 2; frame_no++) {
        uint64_t frame = fx_frame_record(&f, &v, &req, 1);
        assert_int_equal(slc_render_record(f.r, f.cmd), SLC_E_INVALID);
        assert_non_null(strstr(f.rlog.message, "slc_render_record_cull and slc_render_record_draws"));
        assert_int_equal(slc_render_record_draws(f.r, f.cmd), SLC_E_INVALID);
        assert_non_null(strstr(f.rlog.message, "before slc_render_record_cull"));
        assert_int_equal(slc_render_record_cull(f.r, f.cmd), SLC_OK);
        VkClearValue clear[2] = {0};
        clear[0].color.float32[3] = 1.0f;
        clear[1].depthStencil.depth = 1.0f;
        VkRenderPassBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO};
        bi.renderPass = pass;
        bi.framebuffer = fb;
        bi.renderArea.extent = (VkExtent2D){W, H};
        bi.clearValueCount = 2;
        bi.pClearValues = clear;
        t_table.vkCmdBeginRenderPass(f.cmd, &bi, VK_SUBPASS_CONTENTS_INLINE);
        assert_int_equal(slc_render_record_draws(f.r, f.cmd), SLC_OK);
        t_table.vkCmdEndRenderPass(f.cmd);
        VkBufferImageCopy copy = {0};
        copy.imageSubresource.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
        copy.imageSubresource.layerCount = 1;
        copy.imageExtent = (VkExtent3D){W, H, 1};
        /* the previous frame's copy into the same buffer, before this one */
        VkMemoryBarrier waw = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER};
        waw.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
        waw.dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
        t_table.vkCmdPipelineBarrier(f.cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &waw,
                                     0, NULL, 0, NULL);
        t_table.vkCmdCopyImageToBuffer(f.cmd, images[0], VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, readback, 1, &copy);
        VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER};
        mb.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
        mb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
        t_table.vkCmdPipelineBarrier(f.cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0,
                                     NULL, 0, NULL);
        fx_submit(&f, frame, NULL, 0);
        assert_int_equal(slc_vulkan_wait_frame(f.vk, frame, WAIT), SLC_OK);
        slc_render_image img;
        assert_int_equal(slc_render_read(f.r, frame, &img), SLC_E_INVALID);
        slc_render_frame st;
        assert_int_equal(slc_render_get_frame(f.r, frame, &st), SLC_OK);
    }
    slc_render_image img = {W, H, W * 4u, map};
    uint8_t c0[3];
    lod_rgb(0, c0);
    for (uint32_t y = 0; y < H; y++) {
        for (uint32_t x = 0; x < W; x++) {
            bool in = x >= 8 && x < 40 && y >= 8 && y < 30;
            expect_pixel(&img, x, y, in ? c0 : black);
        }
    }
    t_table.vkDeviceWaitIdle(t_device);
    t_table.vkDestroyFramebuffer(t_device, fb, NULL);
    t_table.vkDestroyRenderPass(t_device, pass, NULL);
    t_table.vkDestroyBuffer(t_device, readback, NULL);
    for (int i = 0; i < 2; i++) {
        t_table.vkDestroyImageView(t_device, views[i], NULL);
        t_table.vkDestroyImage(t_device, images[i], NULL);
    }
    for (int i = 0; i < 3; i++) {
        t_table.vkFreeMemory(t_device, mems[i], NULL);
    }
    fx_close(&f);
    free(sc);
}

/* --- error paths --------------------------------------------------------------- */

static void expect_init_fails(fixture *f, const slc_render_desc *d, slc_status want, const char *message)
{
    f->rlog.message[0] = 0;
    slc_status s = fx_render_init(f, d);
    assert_int_equal(s, want);
    assert_null(f->r);
    if (strstr(f->rlog.message, message) == NULL) {
        fail_msg("message \"%s\" lacks \"%s\"", f->rlog.message, message);
    }
    assert_int_equal(budget_named(f, "cpu/render").current, 0);
    assert_int_equal(budget_named(f, "gpu/render").current, 0);
}

static void test_init_refuses_bad_descs_and_memory(void **state)
{
    (void)state;
    pw_scene *sc = scene_new();
    scene_quad(sc, 1, 8, 8, 40, 30, 0.5f);
    fixture f;
    fx_open_with(&f, sc, 0, 0, NULL);
    slc_render_desc d = render_desc(&f);
    d.width = SLC_RENDER_SIZE_MAX + 1u;
    assert_int_equal(slc_render_footprint(&d, f.pk), 0);
    assert_int_equal(slc_render_device_bytes(&d, f.pk, f.vk), 0);
    size_t size = 4096;
    void *mem = aligned_alloc(64, 8192);
    assert_int_equal(slc_render_init(mem, size, &d, f.vk, f.pk, &f.r), SLC_E_INVALID);
    assert_non_null(strstr(f.rlog.message, "render: the target's 16385x48 is above SLC_RENDER_SIZE_MAX (16384)"));
    d = render_desc(&f);
    d.reserved0 = 1;
    assert_int_equal(slc_render_init(mem, size, &d, f.vk, f.pk, &f.r), SLC_E_INVALID);
    assert_non_null(strstr(f.rlog.message, "reserved fields must be 0"));
    d = render_desc(&f);
    d.max_draws = SLC_RENDER_LIST_MAX + 1u;
    assert_int_equal(slc_render_init(mem, size, &d, f.vk, f.pk, &f.r), SLC_E_INVALID);
    assert_non_null(
        strstr(f.rlog.message, "max_draws 16777217 or max_placements 16 is above SLC_RENDER_LIST_MAX (16777216)"));
    d = render_desc(&f);
    size_t need = slc_render_footprint(&d, f.pk);
    assert_int_equal(slc_render_init(NULL, need, &d, f.vk, f.pk, &f.r), SLC_E_BLOCK_NULL);
    assert_non_null(strstr(f.rlog.message, "the memory is NULL"));
    assert_int_equal(slc_render_init((unsigned char *)mem + 8, need, &d, f.vk, f.pk, &f.r), SLC_E_BLOCK_MISALIGNED);
    assert_non_null(strstr(f.rlog.message, "not aligned to 64 bytes"));
    char expect[128];
    snprintf(expect, sizeof expect, "holds %zu bytes, %zu needed", need - 1, need);
    assert_int_equal(slc_render_init(mem, need - 1, &d, f.vk, f.pk, &f.r), SLC_E_BLOCK_TOO_SMALL);
    assert_non_null(strstr(f.rlog.message, expect));
    assert_null(f.r);
    free(mem);
    d.cpu_budget = "cpu/nothing";
    expect_init_fails(&f, &d, SLC_E_NOT_FOUND, "render: no budget named cpu/nothing");
    d = render_desc(&f);
    d.gpu_budget = "gpu/nothing";
    expect_init_fails(&f, &d, SLC_E_NOT_FOUND, "render: no budget named gpu/nothing");
    fx_close(&f);
    free(sc);
}

static void test_init_refuses_over_budget(void **state)
{
    (void)state;
    pw_scene *sc = scene_new();
    scene_quad(sc, 1, 8, 8, 40, 30, 0.5f);
    fixture f;
    /* cpu/render 1 KiB: below the record; gpu/render 4 KiB: below any buffer */
    fx_open_with(&f, sc, 0, 0, "cpu/render = 1 KiB\n");
    slc_render_desc d = render_desc(&f);
    expect_init_fails(&f, &d, SLC_E_BUDGET_REFUSED, "render: the cpu/render budget refused the renderer's");
    d.cpu_budget = "cpu";
    expect_init_fails(&f, &d, SLC_E_BUDGET_REFUSED, "render: the gpu/render budget refused the");
    assert_non_null(strstr(f.rlog.message, "of its limit 4096"));
    fx_close(&f);
    free(sc);
}

/* The driver's host memory refused: with every byte of cpu/driver but
 * `room` taken, init fails at the first Vulkan call the refusal breaks,
 * names the call and the budget (as the backend explains its own), and
 * leaves every budget as it was; with room enough it succeeds. */
static void test_init_reports_the_driver_budget(void **state)
{
    (void)state;
    pw_scene *sc = scene_new();
    scene_quad(sc, 1, 8, 8, 40, 30, 0.5f);
    next_backend.charge_driver = true;
    fixture f;
    fx_open_with(&f, sc, 0, 0, NULL);
    slc_budgets *b = slc_memory_budgets(f.mem);
    slc_budget_id driver;
    assert_int_equal(slc_budgets_scan(b, "cpu/driver", &driver), SLC_OK);
    slc_render_desc d = render_desc(&f);
    uint32_t refusals = 0;
    bool done = false;
    for (uint64_t room = 0; !done && room <= 1024u * 1024u; room = room == 0 ? 256u : room * 2u) {
        slc_budget_stats bs;
        slc_budgets_get(b, driver, &bs);
        uint64_t taken = bs.limit - bs.current - room;
        assert_int_equal(slc_budgets_reserve(b, driver, taken, NULL), SLC_OK);
        atomic_store(&oom_expected, true);
        f.rlog.message[0] = 0;
        slc_status s = fx_render_init(&f, &d);
        atomic_store(&oom_expected, false);
        if (s == SLC_OK) {
            done = true;
        } else {
            assert_int_equal(s, SLC_E_BUDGET_REFUSED);
            assert_null(f.r);
            if (strstr(f.rlog.message, "failed (VK_ERROR_OUT_OF_HOST_MEMORY): the cpu/driver budget refused") == NULL ||
                strncmp(f.rlog.message, "render: vk", 10) != 0) {
                fail_msg("room %llu: \"%s\"", (unsigned long long)room, f.rlog.message);
            }
            assert_int_equal(budget_named(&f, "cpu/render").current, 0);
            assert_int_equal(budget_named(&f, "gpu/render").current, 0);
            refusals++;
        }
        slc_budgets_release(b, driver, taken);
        slc_budgets_get(b, driver, &bs);
        if (!done) {
            assert_int_equal(bs.current + room + taken, bs.limit); /* the driver gave back what it held */
        }
    }
    assert_true(done);
    assert_true(refusals >= 1);
    printf("driver memory refused at %u sizes of room before init succeeded (%d layer reports)\n", refusals,
           atomic_load(&expected_oom));
    fx_close(&f);
    free(sc);
}

/* A pool of more segments than a stage may bind storage buffers for (32 on
 * lavapipe: 32 segments and the renderer's 5 lists). */
static void test_init_refuses_too_many_segments(void **state)
{
    (void)state;
    pw_scene *sc = scene_new();
    scene_quad(sc, 1, 8, 8, 40, 30, 0.5f);
    next_backend.max_segment_size = 4096u; /* a segment a page: 32 */
    fixture f;
    fx_open_with(&f, sc, 0, 0, NULL);
    VkPhysicalDeviceProperties props;
    vkGetPhysicalDeviceProperties(t_physical, &props);
    slc_render_desc d = render_desc(&f);
    if (props.limits.maxPerStageDescriptorStorageBuffers >= 37u) {
        printf("skipped: this device binds %u storage buffers a stage\n",
               props.limits.maxPerStageDescriptorStorageBuffers);
    } else {
        char expect[128];
        snprintf(expect, sizeof expect,
                 "render: the pool's 32 segments and 5 lists exceed maxPerStageDescriptorStorageBuffers %u",
                 props.limits.maxPerStageDescriptorStorageBuffers);
        expect_init_fails(&f, &d, SLC_E_UNSUPPORTED, expect);
    }
    fx_close(&f);
    free(sc);
}

/* The texture pool's backend must share the page pool's device and hold
 * atlas images; textures are bound between begin and the cull pass only,
 * and without a texture backend the call binds nothing (texture_chunks
 * 0). */
static void test_textures_on_another_device_or_out_of_order(void **state)
{
    (void)state;
    pw_scene *sc = scene_new();
    scene_quad(sc, 1, 8, 8, 40, 30, 0.5f);
    fixture f;
    fx_open_with(&f, sc, 0, 0, NULL);
    slc_vulkan_desc od;
    memset(&od, 0, sizeof od);
    od.page_size = 4096u;
    od.page_count = 4u;
    size_t osize = slc_vulkan_footprint(&od);
    void *omem = aligned_alloc(SLC_VULKAN_ALIGN, (osize + 63u) & ~(size_t)63u);
    assert_non_null(omem);
    slc_vulkan *other = NULL;
    assert_int_equal(slc_vulkan_init(omem, osize, &od, &other), SLC_OK);
    slc_render_desc d = render_desc(&f);
    d.textures = other;
    expect_init_fails(&f, &d, SLC_E_INVALID, "render: the texture pool's backend is on another device");
    slc_vulkan_deinit(other);
    free(omem);

    /* On the same device, but storage buffers: the renderer samples atlas
     * images only. */
    slc_vulkan_info gi;
    slc_vulkan_get_info(f.vk, &gi);
    slc_vulkan_device_info dev;
    slc_vulkan_get_device_info(f.vk, &dev);
    assert_true(dev.device == gi.device && dev.queue == gi.queue && dev.queue_family == gi.queue_family);
    assert_true(dev.transfer_queue == VK_NULL_HANDLE && dev.get_instance_proc_addr == NULL);
    osize = slc_vulkan_footprint(&od);
    omem = aligned_alloc(SLC_VULKAN_ALIGN, (osize + 63u) & ~(size_t)63u);
    assert_non_null(omem);
    assert_int_equal(slc_vulkan_adopt(omem, osize, &od, &dev, &other), SLC_OK);
    d.textures = other;
    expect_init_fails(&f, &d, SLC_E_INVALID,
                      "render: the texture pool's backend holds storage buffers; the renderer samples atlas images "
                      "(slc_vulkan_desc.image_texel)");
    slc_vulkan_deinit(other);
    free(omem);

    d.textures = NULL;
    assert_int_equal(fx_render_init(&f, &d), SLC_OK);
    f.rlog.message[0] = 0;
    assert_int_equal(slc_render_add_textures(f.r, f.s), SLC_E_INVALID);
    assert_string_equal(f.rlog.message,
                        "render: textures added outside a frame (after slc_render_begin, before its cull pass)");
    slc_render_view v = ortho_view(SLC_RENDER_TINT_NONE);
    fx_request q = {0, 0};
    uint64_t frame = fx_frame_record(&f, &v, &q, 1);
    assert_int_equal(slc_render_add_textures(f.r, f.s), SLC_OK);
    assert_int_equal(slc_render_record(f.r, f.cmd), SLC_OK);
    fx_submit(&f, frame, NULL, 0);
    assert_int_equal(slc_vulkan_wait_frame(f.vk, frame, WAIT), SLC_OK);
    slc_render_frame st;
    assert_int_equal(slc_render_get_frame(f.r, frame, &st), SLC_OK);
    assert_int_equal(st.texture_chunks, 0);
    fx_close(&f);
    free(sc);
}

static void test_init_refuses_attributes_it_cannot_decode(void **state)
{
    (void)state;
    pw_scene *sc = scene_new();
    scene_quad(sc, 1, 8, 8, 40, 30, 0.5f);
    scene_quad(sc, 1, 8, 8, 40, 30, 0.5f);
    sc->ob[1].attributes = SLC_PACK_ATTR_NORMAL_OCT8; /* octahedral normals without normals: valid in the pack */
    fixture f;
    fx_open_with(&f, sc, 0, 0, NULL);
    slc_render_desc d = render_desc(&f);
    expect_init_fails(&f, &d, SLC_E_UNSUPPORTED,
                      "render: object 1 (unnamed) has attribute bits 0x8 the renderer cannot decode (0x8 of them");
    fx_close(&f);
    free(sc);
}

/* Draw and placement lists full: the request adds nothing, the frame
 * draws what was added before. */
static void test_add_refuses_full_lists(void **state)
{
    (void)state;
    pw_scene *sc = scene_new();
    scene_quad(sc, 1, 0, 0, 10, 10, 0.5f);
    pw_object *ob = &sc->ob[sc->objects++];
    ob->lods = 1;
    pw_quad(&ob->lvl[0], 20, 20, 30, 30, 0.5f);
    pw_quad(&ob->lvl[0], 30, 20, 40, 30, 0.5f);
    pw_translate(sc->inst[0], 0, 0, 0);
    sc->inst_object[0] = 0;
    pw_translate(sc->inst[1], 0, 0, 0);
    sc->inst_object[1] = 1;
    pw_translate(sc->inst[2], 2, 2, 0);
    sc->inst_object[2] = 1;
    sc->instances = 3;
    fixture f;
    fx_open_with(&f, sc, 0, 0, NULL);
    slc_render_desc d = render_desc(&f);
    d.max_draws = 2;
    d.max_placements = 2;
    assert_int_equal(fx_render_init(&f, &d), SLC_OK);
    slc_render_view v = ortho_view(SLC_RENDER_TINT_LOD);
    fx_request req[2] = {{0, 0}, {1, 0}};
    uint64_t frame = fx_frame_record(&f, &v, req, 0); /* nothing added: added by hand below */
    (void)frame;
    assert_int_equal(slc_render_record(f.r, f.cmd), SLC_OK);
    fx_submit(&f, frame, NULL, 0);
    assert_int_equal(slc_vulkan_wait_frame(f.vk, frame, WAIT), SLC_OK);
    /* Settle the loads, then add by hand. */
    uint64_t fr;
    for (int i = 0; i < 2; i++) {
        assert_int_equal(slc_stream_begin_frame(f.s, &fr), SLC_OK);
        for (int k = 0; k < 2; k++) {
            slc_stream_object_request r = {{req[k].object}, 0, 1, {(uint16_t)f.profile.partition_count}};
            assert_int_equal(slc_stream_request(f.s, &r), SLC_OK);
        }
        assert_int_equal(slc_stream_end_frame(f.s), SLC_OK);
        assert_int_equal(slc_vulkan_end_frame(f.vk, fr), SLC_OK);
        assert_int_equal(slc_vulkan_wait_frame(f.vk, fr, WAIT), SLC_OK);
    }
    slc_stream_result res[2];
    slc_stream_span spans[2][4];
    for (uint32_t k = 0; k < 2; k++) {
        assert_int_equal(slc_stream_resident(f.s, k, &res[k], spans[k], 4), SLC_OK);
        assert_int_equal(res[k].lod, 0);
    }
    assert_int_equal(slc_render_add(f.r, &res[0], spans[0]), SLC_E_INVALID);
    assert_non_null(strstr(f.rlog.message, "slc_render_add with no frame begun"));
    assert_int_equal(slc_render_begin(f.r, fr, &v), SLC_OK);
    assert_int_equal(slc_render_begin(f.r, fr, &v), SLC_E_INVALID);
    char expect[128];
    snprintf(expect, sizeof expect, "render: frame %llu is begun and not recorded", (unsigned long long)fr);
    assert_non_null(strstr(f.rlog.message, expect));
    assert_int_equal(slc_render_add(f.r, &res[0], spans[0]), SLC_OK);         /* 1 draw, 1 placement */
    assert_int_equal(slc_render_add(f.r, &res[1], spans[1]), SLC_E_CAPACITY); /* 2 draws: 1 left */
    assert_non_null(
        strstr(f.rlog.message, "object 1's 2 cluster draws do not fit the draw list (1 of max_draws 2 used)"));
    fx_close(&f);
    free(sc);
}

/* Placements full, and a slot still in flight: frame f held on the GPU by
 * a semaphore the host signals; frame f + 2 (the same slot) is refused,
 * and f cannot be read, until it retires. */
static void test_begin_refuses_a_slot_in_flight(void **state)
{
    (void)state;
    pw_scene *sc = scene_new();
    scene_quad(sc, 1, 0, 0, 10, 10, 0.5f);
    pw_translate(sc->inst[0], 0, 0, 0);
    pw_translate(sc->inst[1], 20, 0, 0);
    pw_translate(sc->inst[2], 40, 0, 0);
    sc->instances = 3;
    fixture f;
    fx_open_with(&f, sc, 0, 0, NULL);
    slc_render_desc d = render_desc(&f);
    d.max_placements = 2;
    assert_int_equal(fx_render_init(&f, &d), SLC_OK);
    slc_render_view v = ortho_view(SLC_RENDER_TINT_LOD);
    /* Frames of the stream alone, until the object is resident. */
    for (int i = 0; i < 3; i++) {
        uint64_t fr;
        assert_int_equal(slc_stream_begin_frame(f.s, &fr), SLC_OK);
        slc_stream_object_request q = {{0}, 0, 1, {(uint16_t)f.profile.partition_count}};
        assert_int_equal(slc_stream_request(f.s, &q), SLC_OK);
        assert_int_equal(slc_stream_end_frame(f.s), SLC_OK);
        assert_int_equal(slc_vulkan_end_frame(f.vk, fr), SLC_OK);
        assert_int_equal(slc_vulkan_wait_frame(f.vk, fr, WAIT), SLC_OK);
    }
    VkSemaphoreTypeCreateInfo ti = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
    ti.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
    VkSemaphoreCreateInfo si = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
    si.pNext = &ti;
    VkSemaphore blocker;
    assert_int_equal(t_table.vkCreateSemaphore(t_device, &si, NULL, &blocker), VK_SUCCESS);
    /* The object's three placements do not fit two. */
    uint64_t held;
    assert_int_equal(slc_stream_begin_frame(f.s, &held), SLC_OK);
    slc_stream_object_request r = {{0}, 0, 1, {(uint16_t)f.profile.partition_count}};
    assert_int_equal(slc_stream_request(f.s, &r), SLC_OK);
    assert_int_equal(slc_stream_end_frame(f.s), SLC_OK);
    assert_int_equal(slc_render_begin(f.r, held, &v), SLC_OK);
    slc_stream_result res;
    slc_stream_span spans[4];
    assert_int_equal(slc_stream_resident(f.s, 0, &res, spans, 4), SLC_OK);
    assert_int_equal(res.lod, 0);
    assert_int_equal(slc_render_add(f.r, &res, spans), SLC_E_CAPACITY);
    assert_non_null(
        strstr(f.rlog.message, "object 0's 3 placements do not fit the placement list (0 of max_placements 2 used)"));
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    assert_int_equal(t_table.vkResetCommandBuffer(f.cmd, 0), VK_SUCCESS);
    assert_int_equal(t_table.vkBeginCommandBuffer(f.cmd, &bi), VK_SUCCESS);
    assert_int_equal(slc_render_record(f.r, f.cmd), SLC_OK);
    fx_submit(&f, held, &blocker, 1);
    slc_render_image img;
    assert_int_equal(slc_render_read(f.r, held, &img), SLC_E_FRAMES_IN_FLIGHT);
    assert_non_null(strstr(f.rlog.message, "has not retired"));
    assert_int_equal(slc_render_begin(f.r, held + FRAMES, &v), SLC_E_FRAMES_IN_FLIGHT);
    char expect[160];
    snprintf(expect, sizeof expect, "render: frame %llu: its slot %u still holds frame %llu, not retired",
             (unsigned long long)(held + FRAMES), (unsigned)(held % FRAMES), (unsigned long long)held);
    if (strstr(f.rlog.message, expect) == NULL) {
        fail_msg("message \"%s\" lacks \"%s\"", f.rlog.message, expect);
    }
    assert_int_equal(slc_render_read(f.r, held - FRAMES, &img), SLC_E_NOT_FOUND);
    assert_non_null(strstr(f.rlog.message, "was not recorded, or its slot"));
    VkSemaphoreSignalInfo sig = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO};
    sig.semaphore = blocker;
    sig.value = 1;
    assert_int_equal(t_table.vkSignalSemaphore(t_device, &sig), VK_SUCCESS);
    assert_int_equal(slc_vulkan_wait_frame(f.vk, held, WAIT), SLC_OK);
    assert_int_equal(slc_render_read(f.r, held, &img), SLC_OK);
    t_table.vkDestroySemaphore(t_device, blocker, NULL);
    slc_render_view bad = v;
    bad.tint = SLC_RENDER_TINT_MIP + 1u;
    assert_int_equal(slc_render_begin(f.r, held + FRAMES, &bad), SLC_E_INVALID);
    assert_non_null(strstr(f.rlog.message, "tint 3 is not an slc_render_tint"));
    bad = v;
    bad.flags = SLC_RENDER_VIEW_TWO_SIDED | 4u;
    assert_int_equal(slc_render_begin(f.r, held + FRAMES, &bad), SLC_E_INVALID);
    assert_non_null(strstr(f.rlog.message, "view flags 0x5 hold an unknown bit"));
    fx_close(&f);
    free(sc);
}

/* Nothing is allocated after init: over frames that begin, add, record,
 * retire and read back, the driver makes no host allocation through the
 * backend's callbacks (every renderer object passes them, so a buffer,
 * image, view, pipeline or descriptor made per frame would show here); in
 * the build with malloc & co. wrapped (test_render_noheap, the product
 * libraries), not one heap or mapping call is made by sluice's code either. */
static void test_frames_allocate_nothing(void **state)
{
    (void)state;
    pw_scene *sc = scene_new();
    sc->page_size = 16384;
    scene_surface(sc, SLC_PACK_ATTR_NORMAL);
    scene_quad(sc, 2, 8, 8, 40, 30, 0.25f);
    fixture f;
    fx_open(&f, sc, 0, 0);
    slc_render_view v = ortho_view(SLC_RENDER_TINT_NONE);
    fx_request req[2] = {{0, 0}, {1, 1}};
    slc_render_image img;
    slc_render_frame st;
    fx_settle(&f, &v, req, 2, &img, &st);
    slc_vulkan_stats before, after;
    slc_vulkan_get_stats(f.vk, &before);
#ifdef SLUICE_RENDER_NOHEAP
    noheap_calls = 0;
    noheap_counting = 1;
#endif
    for (int i = 0; i < 4; i++) {
        fx_frame(&f, &v, req, 2, &img, &st);
    }
#ifdef SLUICE_RENDER_NOHEAP
    noheap_counting = 0;
    assert_int_equal(noheap_calls, 0);
#endif
    slc_vulkan_get_stats(f.vk, &after);
    assert_int_equal(after.driver_allocs, before.driver_allocs);
    assert_int_equal(after.driver_used, before.driver_used);
    assert_int_equal(st.clusters_drawn, 17);
    fx_close(&f);
    free(sc);
}

/* The desc takes the profile's [render] section; a profile without one
 * leaves zeros, the renderer's defaults. */
static void test_desc_from_profile(void **state)
{
    (void)state;
    const char *text = "[profile]\nname = r\n[budgets]\ncpu = 4 MiB\ncpu/meta = 1 MiB\ncpu/decode = 1 MiB\n"
                       "cpu/queues = 1 MiB\ncpu/driver = 1 MiB\ngpu = 8 MiB\ngpu/pool = 4 MiB\ngpu/staging = 1 MiB\n"
                       "[pool]\npage_size = 4 KiB\npage_count = 32\n"
                       "[stream]\nframes_in_flight = 2\nworkers = 0\nqueue_capacity = 64\nstaging_size = 64 KiB\n"
                       "upload_per_frame = 64 KiB\n"
                       "[tables]\nmax_objects = 64\nmax_chunks = 256\nmax_lods = 4\nmax_string_bytes = 4 KiB\n";
    char buf[1024];
    snprintf(buf, sizeof buf, "%s[render]\nwidth = 320\nheight = 200\nmax_draws = 1000\nmax_placements = 77\n", text);
    slc_profile p;
    slc_render_profile rp;
    slc_profile_section sec = slc_render_profile_section(&rp);
    slc_profile_diag diag;
    assert_int_equal(slc_profile_parse_sections(buf, strlen(buf), "r.profile", &sec, 1, &p, &diag), SLC_OK);
    assert_int_equal(rp.lines[0], 27); /* width, the line after the [render] header */
    slc_render_desc d;
    memset(&d, 0, sizeof d);
    d.subpass = 3;
    slc_render_desc_from_profile(&d, &rp);
    assert_int_equal(d.width, 320);
    assert_int_equal(d.height, 200);
    assert_int_equal(d.max_draws, 1000);
    assert_int_equal(d.max_placements, 77);
    assert_int_equal(d.subpass, 3); /* the rest as it was */
    sec = slc_render_profile_section(&rp);
    assert_int_equal(slc_profile_parse_sections(text, strlen(text), "r.profile", &sec, 1, &p, &diag), SLC_OK);
    slc_render_desc_from_profile(&d, &rp);
    assert_int_equal(d.width, 0);
    assert_int_equal(d.height, 0);
    assert_int_equal(d.max_draws, 0);
    assert_int_equal(d.max_placements, 0);
}

static void test_lod_palette_repeats_its_last_colour(void **state)
{
    (void)state;
    uint8_t a[3], b[3], c[3];
    slc_render_lod_color(7, a);
    slc_render_lod_color(8, b);
    slc_render_lod_color(200, c);
    assert_memory_equal(a, b, 3);
    assert_memory_equal(a, c, 3);
    slc_render_lod_color(0, a);
    slc_render_lod_color(1, b);
    assert_memory_not_equal(a, b, 3);
}

static int reset(void **state)
{
    (void)state;
    atomic_store(&messages, 0);
    memset(&next_backend, 0, sizeof next_backend);
    return 0;
}

int main(void)
{
    /* Mesa's device-select layer: see test_vulkan.c. */
    setenv("NODEVICE_SELECT", "1", 0);
    /* The validation layer stays loaded for the whole run (ThreadSanitizer's
     * called_from_lib suppression for it, tsan-vulkan.supp, needs that). */
    (void)dlopen("libVkLayer_khronos_validation.so", RTLD_NOW | RTLD_NODELETE);
    if (create_test_device() != 0) {
        vk_test_device_close();
        return 1;
    }
#ifdef SLUICE_RENDER_NOHEAP
    /* the counter counts */
    noheap_calls = 0;
    noheap_counting = 1;
    void *volatile probe = malloc(16);
    free(probe);
    noheap_counting = 0;
    if (noheap_calls != 2) {
        fprintf(stderr, "the heap wrappers are not linked in\n");
        return 1;
    }
#endif
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_frames_allocate_nothing, reset),
        cmocka_unit_test(test_lod_palette_repeats_its_last_colour),
        cmocka_unit_test(test_desc_from_profile),
        cmocka_unit_test_setup(test_quads_give_exact_pixels, reset),
        cmocka_unit_test_setup(test_coarser_lod_is_striped, reset),
        cmocka_unit_test_setup(test_placements_instance_and_cull_on_the_cpu, reset),
        cmocka_unit_test_setup(test_projective_placements_are_used_whole, reset),
        cmocka_unit_test_setup(test_clusters_outside_are_culled_on_the_gpu, reset),
        cmocka_unit_test_setup(test_quantized_pages_match_float_pages, reset),
        cmocka_unit_test_setup(test_workers_give_the_same_image, reset),
        cmocka_unit_test_setup(test_belt_segments_and_single_draws_give_the_same_image, reset),
        cmocka_unit_test_setup(test_draws_inside_the_application_render_pass, reset),
        cmocka_unit_test_setup(test_init_refuses_bad_descs_and_memory, reset),
        cmocka_unit_test_setup(test_init_refuses_over_budget, reset),
        cmocka_unit_test_setup(test_init_refuses_attributes_it_cannot_decode, reset),
        cmocka_unit_test_setup(test_init_refuses_too_many_segments, reset),
        cmocka_unit_test_setup(test_textures_on_another_device_or_out_of_order, reset),
        cmocka_unit_test_setup(test_init_reports_the_driver_budget, reset),
        cmocka_unit_test_setup(test_add_refuses_full_lists, reset),
        cmocka_unit_test_setup(test_begin_refuses_a_slot_in_flight, reset),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    vk_test_device_close();
    if (atomic_load(&messages) != 0) {
        return 1;
    }
    return failed;
}
