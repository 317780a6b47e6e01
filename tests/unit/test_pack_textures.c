/* SPDX-License-Identifier: MIT */
/* Materials and textures in a pack (format 1.3): the builder's records and
 * tiles read back through the runtime's reader, every tile and the mip tail
 * equal to the tiles cut here from an independently built mip chain, each
 * block format decoding within its PSNR floor, identical images stored
 * once, --texture-format none, the same bytes for any jobs, what the
 * builder tells its listener of each texture it builds; and every
 * check the reader makes on the sections, driven by an edited pack with its
 * checksums made right again. Built again as test_pack_textures_noheap
 * (SLUICE_TEXTURES_NOHEAP, the heap and mappings wrapped: noheap_wrap.h),
 * it runs the texture pool's test alone and proves that its frames, which
 * load, evict and touch tiles, make no heap or mapping call. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <setjmp.h>
#include <cmocka.h>
#include <xxhash.h>

#ifdef SLUICE_TEXTURES_NOHEAP
#include "noheap_wrap.h"
#endif

#include "builder.h"
#include "encode.h"
#include "pack_writer.h"
#include "sluice/arena.h"
#include "sluice/host_store.h"
#include "sluice/limits.h"
#include "sluice/memory.h"
#include "sluice/pack.h"
#include "sluice/page_store.h"
#include "sluice/profile.h"
#include "sluice/stream.h"
#include "synth_texture.h"
#include "texture_cut.h"

#define PAGE 16384u     /* rgba8 tiles of 37 + 2 x 4 texels */
#define TRIP_PAGE 8192u /* rgba8 tiles of 24 + 2 x 4 texels: three tiled levels of a 100 x 60 image */

static char pack_path[64];

/* A w x h RGBA8 image of smooth gradients with a sharp edge. */
static pk_image make_image(uint32_t w, uint32_t h, uint32_t seed)
{
    pk_image img = {w, h, PK_TEXEL_RGBA8, malloc((size_t)w * h * 4u), 0, 0.0};
    assert_non_null(img.texels);
    for (uint32_t y = 0; y < h; y++) {
        for (uint32_t x = 0; x < w; x++) {
            uint8_t *t = img.texels + ((size_t)y * w + x) * 4u;
            t[0] = (uint8_t)(x * 255u / w + seed);
            t[1] = (uint8_t)(y * 255u / h);
            t[2] = (uint8_t)(x < w / 2 ? 40u : 200u);
            t[3] = (uint8_t)(255u - (x + y) % 64u);
        }
    }
    img.hash = pk_image_hash(&img);
    return img;
}

/* A quad with uvs naming material (0: none). */
static void make_quad(pk_mesh *m, uint32_t material)
{
    static const float pos[12] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0};
    static const float uv[8] = {0, 0, 1, 0, 1, 1, 0, 1};
    static const uint32_t idx[6] = {0, 1, 2, 0, 2, 3};
    memset(m, 0, sizeof *m);
    snprintf(m->name, sizeof m->name, "quad");
    m->vertex_count = 4;
    m->positions = malloc(sizeof pos);
    m->uvs = malloc(sizeof uv);
    m->indices = malloc(sizeof idx);
    assert_true(m->positions != NULL && m->uvs != NULL && m->indices != NULL);
    memcpy(m->positions, pos, sizeof pos);
    memcpy(m->uvs, uv, sizeof uv);
    memcpy(m->indices, idx, sizeof idx);
    m->index_count = 6;
    m->material = material;
}

static unsigned char *read_all(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    long n = ftell(f);
    assert_true(n > 0);
    rewind(f);
    unsigned char *b = malloc((size_t)n);
    assert_non_null(b);
    assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *size = (size_t)n;
    return b;
}

/* Builds the test pack: one texture of img (colour, wrap REPEAT across,
 * CLAMP down) on a material's base colour slot, a quad naming it. */
static void build(const char *path, const pk_image *img, uint32_t format, uint32_t jobs, uint32_t page)
{
    pk_build_options o;
    memset(&o, 0, sizeof o);
    o.page_size = page;
    o.jobs = jobs;
    o.texture_format = format;
    pk_builder *b = NULL;
    pk_diag d;
    if (pk_builder_open(path, &o, &b, &d) != 0) {
        fail_msg("%s", d.message);
    }
    uint32_t tex = 0, mat = 0, obj = 0;
    if (pk_builder_add_texture(b, img, PK_MIP_COLOR, PK_WRAP_REPEAT, PK_WRAP_CLAMP_TO_EDGE, "grad.png", &tex, &d) !=
        0) {
        fail_msg("%s", d.message);
    }
    pk_material m;
    pk_material_default(&m);
    snprintf(m.name, sizeof m.name, "paint");
    m.base_color[1] = 0.5f;
    m.roughness = 0.25f;
    m.alpha_mode = PK_ALPHA_MASK;
    m.alpha_cutoff = 0.3f;
    m.double_sided = 1;
    m.slot[PK_SLOT_BASE_COLOR].image = tex;
    m.slot[PK_SLOT_BASE_COLOR].wrap_t = PK_WRAP_CLAMP_TO_EDGE;
    m.slot[PK_SLOT_BASE_COLOR].mag_filter = PK_FILTER_LINEAR;
    m.slot[PK_SLOT_BASE_COLOR].uv_scale[0] = 3.0f;
    assert_int_equal(pk_builder_add_material(b, &m, &mat, &d), 0);
    pk_mesh q;
    make_quad(&q, mat + 1u);
    assert_int_equal(pk_builder_add_mesh_owned(b, &q, &obj, &d), 0);
    pk_instance in;
    memset(&in, 0, sizeof in);
    in.mesh = obj;
    in.matrix[0] = in.matrix[5] = in.matrix[10] = in.matrix[15] = 1.0f;
    assert_int_equal(pk_builder_add_instance(b, &in, &d), 0);
    if (pk_builder_finish(b, NULL, &d) != 0) {
        fail_msg("%s", d.message);
    }
}

/* ---- the runtime's view ----------------------------------------------- */

static char logged[512];
static void log_fn(void *user, slc_log_level level, slc_status status, const char *message)
{
    (void)user;
    (void)level;
    (void)status;
    snprintf(logged, sizeof logged, "%s", message);
}

static _Alignas(64) unsigned char meta_mem[1u << 20];

static slc_status open_pack(const unsigned char *data, size_t size, slc_pack **out)
{
    slc_profile limits;
    memset(&limits, 0, sizeof limits);
    limits.page_size = SLC_PAGE_SIZE_MAX;
    limits.max_chunks = limits.max_objects = SLC_TABLE_COUNT_MAX;
    limits.max_lods = SLC_LODS_MAX;
    limits.max_string_bytes = SLC_PROFILE_STRING_BYTES_MAX;
    slc_arena *meta = NULL;
    assert_int_equal(slc_arena_init(meta_mem, sizeof meta_mem, NULL, SLC_BUDGET_NONE, &meta), SLC_OK);
    slc_io io;
    slc_io_from_memory(data, size, &io);
    const slc_logger log = {log_fn, NULL};
    logged[0] = '\0';
    return slc_pack_open(&io, "t.pack", &limits, meta, &log, out);
}

/* ---- the device must sample the pack's formats ------------------------- */

/* The list a message names formats by. */
static void test_texel_format_list(void **state)
{
    (void)state;
    char b[96];
    assert_int_equal(slc_pack_texel_format_list(0, b, sizeof b), strlen("no texel format"));
    assert_string_equal(b, "no texel format");
    slc_pack_texel_format_list(1u << SLC_PACK_TEXEL_ASTC_6X6, b, sizeof b);
    assert_string_equal(b, "astc6x6");
    slc_pack_texel_format_list((1u << SLC_PACK_TEXEL_RGBA8) | (1u << SLC_PACK_TEXEL_BC3), b, sizeof b);
    assert_string_equal(b, "rgba8 and bc3");
    slc_pack_texel_format_list(SLC_PAGE_STORE_ALL_TEXELS, b, sizeof b);
    assert_string_equal(b, "rgba8, bc1, bc3, astc4x4, astc6x6 and astc8x8");
    slc_pack_texel_format_list(1u | (1u << SLC_PACK_TEXEL_COUNT) | (1u << SLC_PACK_TEXEL_BC1), b, sizeof b);
    assert_string_equal(b, "bc1"); /* bits that are no format are ignored */
    char small[8];
    slc_pack_texel_format_list(SLC_PAGE_STORE_ALL_TEXELS, small, sizeof small);
    assert_string_equal(small, "rgba8, "); /* cut at the buffer, terminated */
}

/* A host store of the profile's pool of kind, charged to its budget. */
typedef struct kind_store {
    void *mem;
    slc_arena *arena;
    slc_page_store store;
} kind_store;

static void open_kind_store(slc_memory *mem, const slc_profile *prof, slc_pool_kind kind, kind_store *k)
{
    slc_pool_spec spec;
    slc_pool_spec_from_profile(prof, kind, &spec);
    slc_budget_id id;
    assert_int_equal(slc_budgets_scan(slc_memory_budgets(mem), spec.budget, &id), SLC_OK);
    size_t amem = SLC_ARENA_FOOTPRINT(slc_host_store_footprint(spec.pool.page_count, spec.page_size));
    k->mem = aligned_alloc(64, (amem + 63u) & ~(size_t)63u);
    assert_non_null(k->mem);
    assert_int_equal(slc_arena_init(k->mem, amem, slc_memory_budgets(mem), id, &k->arena), SLC_OK);
    assert_int_equal(slc_host_store_init(k->arena, spec.pool.page_count, spec.page_size, NULL, &k->store), SLC_OK);
}

static void close_kind_store(kind_store *k)
{
    slc_host_store_deinit(&k->store);
    free(k->mem);
}

/* The memory of profile text (named name), in *block: parsed into *prof
 * and laid out, or the test fails with the parser's message. */
static slc_memory *memory_for(const char *text, const char *name, slc_profile *prof, void **block)
{
    slc_profile_diag diag;
    if (slc_profile_parse(text, strlen(text), name, prof, &diag) != SLC_OK) {
        fail_msg("%s", diag.message);
    }
    slc_memory_requirements req;
    assert_int_equal(slc_memory_calculate_requirements(prof, &req), SLC_OK);
    *block = aligned_alloc(req.block_align, (req.block_size + req.block_align - 1u) & ~(req.block_align - 1u));
    assert_non_null(*block);
    slc_memory *mem = NULL;
    assert_int_equal(slc_memory_init(*block, req.block_size, prof, NULL, &mem), SLC_OK);
    return mem;
}

/* slc_stream_create refuses a pack whose textures' format the store's
 * device does not sample, naming both sides, and takes nothing; the same
 * pack streams once the store samples it. */
static void test_stream_refuses_a_format_the_device_cannot_sample(void **state)
{
    (void)state;
    pk_image img = make_image(96, 80, 5);
    build(pack_path, &img, SLC_PACK_TEXEL_BC1, 1, PAGE);
    free(img.texels);
    size_t size = 0;
    unsigned char *data = read_all(pack_path, &size);
    static const char text[] =
        "[profile]\nname = formats\n"
        "[budgets]\ncpu = 2 MiB\ncpu/meta = 1 MiB\ncpu/decode = 256 KiB\ncpu/queues = 256 KiB\ncpu/driver = 64 KiB\n"
        "gpu = 2 MiB\ngpu/pool = 1 MiB\ngpu/staging = 64 KiB\n"
        "[pool]\npage_size = 16 KiB\npage_count = 32\neviction = lru\n"
        "[stream]\nframes_in_flight = 2\nworkers = 0\nqueue_capacity = 64\nstaging_size = 0 B\n"
        "upload_per_frame = 64 KiB\npin_coarsest = 1\n"
        "[tables]\nmax_objects = 64\nmax_chunks = 512\nmax_lods = 8\nmax_string_bytes = 4 KiB\n";
    slc_profile prof;
    void *block = NULL;
    slc_memory *mem = memory_for(text, "formats.profile", &prof, &block);
    kind_store geo;
    open_kind_store(mem, &prof, SLC_POOL_GEOMETRY, &geo);
    slc_page_store *store = &geo.store;
    assert_int_equal(store->sampled_formats, SLC_PAGE_STORE_ALL_TEXELS); /* the host backend takes any format */
    assert_null(store->device);
    slc_arena *meta = NULL;
    assert_int_equal(slc_memory_scan_arena(mem, "cpu/meta", &meta), SLC_OK);
    slc_io io;
    slc_io_from_memory(data, size, &io);
    slc_pack *pk = NULL;
    assert_int_equal(slc_pack_open(&io, "formats.pack", &prof, meta, NULL, &pk), SLC_OK);
    assert_int_equal(slc_pack_texel_formats(pk), 1u << SLC_PACK_TEXEL_BC1);
    const slc_logger log = {log_fn, NULL};
    slc_stream_desc d;
    memset(&d, 0, sizeof d);
    d.profile = &prof;
    d.memory = mem;
    d.pack = pk;
    d.stores[SLC_POOL_GEOMETRY] = store;
    d.log = &log;
    static const struct {
        uint32_t samples;
        const char *device;
        const char *message;
    } refusals[] = {
        {1u << SLC_PACK_TEXEL_RGBA8, NULL,
         "stream: the pack's textures are bc1, which the host device cannot sample (it samples rgba8)"},
        {(1u << SLC_PACK_TEXEL_RGBA8) | (1u << SLC_PACK_TEXEL_ASTC_4X4) | (1u << SLC_PACK_TEXEL_ASTC_6X6), "Mali-G52",
         "stream: the pack's textures are bc1, which the host device Mali-G52 cannot sample (it samples rgba8, "
         "astc4x4 and astc6x6)"},
        {0, NULL,
         "stream: the pack's textures are bc1, which the host device cannot sample (it samples no texel "
         "format)"},
    };
    slc_arena_stats before, after;
    slc_arena_get_stats(meta, &before);
    for (size_t i = 0; i < sizeof refusals / sizeof refusals[0]; i++) {
        store->sampled_formats = refusals[i].samples;
        store->device = refusals[i].device;
        slc_stream *s = (slc_stream *)&d; /* overwritten with NULL on failure */
        logged[0] = '\0';
        assert_int_equal(slc_stream_create(&d, &s), SLC_E_UNSUPPORTED);
        assert_null(s);
        assert_string_equal(logged, refusals[i].message);
        slc_arena_get_stats(meta, &after);
        assert_int_equal(after.used, before.used); /* nothing taken */
    }
    /* Sampled, but this profile declares no texture pool to pin the tails in. */
    store->sampled_formats = (1u << SLC_PACK_TEXEL_BC1) | (1u << SLC_PACK_TEXEL_BC3);
    store->device = NULL;
    slc_stream *s = (slc_stream *)&d;
    assert_int_equal(slc_stream_create(&d, &s), SLC_E_UNSUPPORTED);
    assert_null(s);
    assert_string_equal(logged, "stream: the pack has 1 textures, but profile 'formats' declares no texture pool "
                                "([textures] page_count) to pin their mip tails in");
    /* A texture store without a texture pool in the profile is refused too. */
    d.stores[SLC_POOL_TEXTURES] = store;
    assert_int_equal(slc_stream_create(&d, &s), SLC_E_INVALID);
    assert_string_equal(logged,
                        "stream: the desc has a textures store but profile 'formats' declares no textures pool");
    slc_arena_get_stats(meta, &after);
    assert_int_equal(after.used, before.used);
    slc_pack_close(pk);
    close_kind_store(&geo);
    slc_memory_deinit(mem);
    free(block);
    free(data);
    unlink(pack_path);
}

/* A pack read through read() (no mapping) that fails every read once told to. */
typedef struct flaky_io {
    const unsigned char *data;
    size_t size;
    int fail;
} flaky_io;

static slc_status flaky_read(void *user, uint64_t offset, void *dst, size_t size)
{
    const flaky_io *f = user;
    if (f->fail) {
        return SLC_E_IO;
    }
    if (offset > f->size || size > f->size - offset) {
        return SLC_E_IO_SHORT;
    }
    memcpy(dst, f->data + offset, size);
    return SLC_OK;
}

/* frames frames, each asking for chunk at priority 200; the stream's
 * invariants hold after each. */
static void ask_frames(slc_stream *s, slc_chunk_id chunk, uint32_t frames, uint64_t *f)
{
    for (uint32_t frame = 0; frame < frames; frame++) {
        assert_int_equal(slc_stream_begin_frame(s, f), SLC_OK);
        assert_int_equal(slc_stream_request_chunk(s, chunk, 200, (slc_partition){0}), SLC_OK);
        assert_int_equal(slc_stream_end_frame(s), SLC_OK);
        assert_true(slc_stream_check(s));
    }
}

/* The texture pool ([textures] page_count, gpu/textures): every
 * texture's mip tail pinned in it at create, tiles requested by chunk id
 * loaded into it and evicted by its own policy, never into or out of the
 * geometry pool; the refusals of a pack whose tails cannot be pinned. */
/* The texture pool tests' memory and stores: a profile (named name) of
 * 32 geometry pages of 8 KiB and tex_pages texture pages, then more (more
 * sections, or ""), its memory in *block and both host stores on it, and
 * its cpu/meta arena in *meta. tiles_close undoes it. */
static slc_memory *tiles_open(const char *name, uint32_t tex_pages, const char *more, slc_profile *prof, void **block,
                              kind_store *geo, kind_store *tex, slc_arena **meta)
{
    char text[1024];
    snprintf(text, sizeof text,
             "[profile]\nname = %s\n"
             "[budgets]\ncpu = 2 MiB\ncpu/meta = 1 MiB\ncpu/decode = 256 KiB\ncpu/queues = 256 KiB\n"
             "cpu/driver = 64 KiB\ngpu = 2 MiB\ngpu/pool = 512 KiB\ngpu/staging = 64 KiB\n"
             "gpu/textures = 256 KiB\n"
             "[pool]\npage_size = 8 KiB\npage_count = 32\neviction = lru\n"
             "[stream]\nframes_in_flight = 2\nworkers = 0\nqueue_capacity = 64\nstaging_size = 0 B\n"
             "upload_per_frame = 64 KiB\npin_coarsest = 1\n"
             "[tables]\nmax_objects = 64\nmax_chunks = 512\nmax_lods = 8\nmax_string_bytes = 4 KiB\n"
             "[textures]\nformat = rgba8\npage_count = %u\n%s",
             name, tex_pages, more);
    char file[64];
    snprintf(file, sizeof file, "%s.profile", name);
    slc_memory *mem = memory_for(text, file, prof, block);
    open_kind_store(mem, prof, SLC_POOL_GEOMETRY, geo);
    open_kind_store(mem, prof, SLC_POOL_TEXTURES, tex);
    assert_int_equal(slc_memory_scan_arena(mem, "cpu/meta", meta), SLC_OK);
    return mem;
}

static void tiles_close(slc_memory *mem, void *block, kind_store *geo, kind_store *tex)
{
    close_kind_store(tex);
    close_kind_store(geo);
    slc_memory_deinit(mem);
    free(block);
}

/* The texture pool tests' pack, at pack_path, read into memory (*size
 * bytes): two textures, 100 x 60 (three tiled levels of 24-texel tiles and
 * a tail) and 40 x 40 (one tiled level and a tail), the base colour and
 * emissive of a quad's material. */
static unsigned char *two_texture_pack(size_t *size)
{
    pk_image a = make_image(100, 60, 0), b = make_image(40, 40, 9);
    pk_build_options o;
    memset(&o, 0, sizeof o);
    o.page_size = TRIP_PAGE;
    o.jobs = 1;
    o.texture_format = SLC_PACK_TEXEL_RGBA8;
    pk_builder *bl = NULL;
    pk_diag dg;
    assert_int_equal(pk_builder_open(pack_path, &o, &bl, &dg), 0);
    uint32_t ta = 0, tb = 0, mat = 0, obj = 0;
    assert_int_equal(pk_builder_add_texture(bl, &a, PK_MIP_COLOR, PK_WRAP_REPEAT, PK_WRAP_REPEAT, "a", &ta, &dg), 0);
    assert_int_equal(pk_builder_add_texture(bl, &b, PK_MIP_COLOR, PK_WRAP_REPEAT, PK_WRAP_REPEAT, "b", &tb, &dg), 0);
    pk_material m;
    pk_material_default(&m);
    m.slot[PK_SLOT_BASE_COLOR].image = ta;
    m.slot[PK_SLOT_EMISSIVE].image = tb;
    assert_int_equal(pk_builder_add_material(bl, &m, &mat, &dg), 0);
    pk_mesh q;
    make_quad(&q, mat + 1u);
    assert_int_equal(pk_builder_add_mesh_owned(bl, &q, &obj, &dg), 0);
    if (pk_builder_finish(bl, NULL, &dg) != 0) {
        fail_msg("%s", dg.message);
    }
    free(a.texels);
    free(b.texels);
    return read_all(pack_path, size);
}

static void test_texture_pool_pins_tails_and_streams_tiles(void **state)
{
    (void)state;
    size_t size = 0;
    unsigned char *data = two_texture_pack(&size);
    for (uint32_t tex_pages = 1; tex_pages <= 4; tex_pages += 3) {
        slc_profile prof;
        void *block = NULL;
        kind_store geo, tex;
        slc_arena *meta = NULL;
        slc_memory *mem = tiles_open("tiles", tex_pages, "", &prof, &block, &geo, &tex, &meta);
        flaky_io fl = {data, size, 0};
        slc_io io;
        memset(&io, 0, sizeof io);
        io.read = flaky_read;
        io.user = &fl;
        io.size = size;
        slc_pack *pk = NULL;
        assert_int_equal(slc_pack_open(&io, "tiles.pack", &prof, meta, NULL, &pk), SLC_OK);
        assert_int_equal(slc_pack_texture_count(pk), 2);
        slc_pack_texture ra, rb;
        assert_int_equal(slc_pack_read_texture(pk, 0, &ra), SLC_OK);
        assert_int_equal(slc_pack_read_texture(pk, 1, &rb), SLC_OK);
        slc_chunk_id tail_a, tail_b;
        assert_int_equal(slc_pack_texture_tail(pk, 0, &tail_a), SLC_OK);
        assert_int_equal(slc_pack_texture_tail(pk, 1, &tail_b), SLC_OK);
        assert_int_equal(tail_a.index, ra.first_chunk + ra.chunk_count - 1u);
        assert_int_equal(tail_b.index, rb.first_chunk + rb.chunk_count - 1u);
        assert_true(ra.chunk_count >= 4u); /* tiles to stream besides the tail */

        const slc_logger log = {log_fn, NULL};
        slc_stream_desc d;
        memset(&d, 0, sizeof d);
        d.profile = &prof;
        d.memory = mem;
        d.pack = pk;
        d.stores[SLC_POOL_GEOMETRY] = &geo.store;
        d.log = &log;
        slc_arena_stats before, after;
        slc_arena_get_stats(meta, &before);
        slc_stream *s = (slc_stream *)&d;
        /* Declared, but the desc brings no texture store. */
        logged[0] = '\0';
        assert_int_equal(slc_stream_create(&d, &s), SLC_E_UNSUPPORTED);
        assert_null(s);
        assert_string_equal(logged, "stream: the pack has 2 textures, but the desc has no texture store "
                                    "(stores[SLC_POOL_TEXTURES]) to pin their mip tails in");
        d.stores[SLC_POOL_TEXTURES] = &tex.store;
        if (tex_pages == 1) {
            /* Two tails, one page: refused, nothing kept. */
            assert_int_equal(slc_stream_create(&d, &s), SLC_E_POOL_BUSY);
            assert_null(s);
            assert_string_equal(logged, "stream: pinning the mip tails of 2 textures needs 2 pages; the texture "
                                        "pool's partition 'default' has 1");
            slc_arena_get_stats(meta, &after);
            assert_int_equal(after.used, before.used);
        } else {
            assert_int_equal(slc_stream_create(&d, &s), SLC_OK);
            const slc_pool *tp = slc_stream_pool_of_kind(s, SLC_POOL_TEXTURES);
            const slc_pool *gp = slc_stream_pool_of_kind(s, SLC_POOL_GEOMETRY);
            assert_non_null(tp);
            assert_ptr_equal(gp, slc_stream_pool(s));
            slc_pool_stats ts, gs;
            slc_pool_get_stats(tp, &ts);
            assert_int_equal(ts.pinned, 2); /* the two tails */
            slc_page_info info;
            assert_int_equal(slc_stream_get_chunk_page(s, tail_a, &info), SLC_OK);
            assert_int_equal(info.state, SLC_PAGE_PINNED);
            assert_int_equal(slc_pool_lookup(tp, tail_b, &info), SLC_OK);
            assert_int_equal(info.state, SLC_PAGE_PINNED);
            assert_int_equal(slc_pool_lookup(gp, tail_a, &info), SLC_E_NOT_FOUND); /* never in the geometry pool */
            slc_pool_get_stats(gp, &gs);
            const uint32_t geometry_pinned = gs.pinned;
            /* Tiles 0 and 1 of texture a asked for until they land (in
             * the pool's two free pages), then tiles 2 and 3: LRU evicts
             * the first two, the tails stay. */
            uint64_t f = 0;
#ifdef SLUICE_TEXTURES_NOHEAP
            noheap_calls = 0;
            noheap_counting = 1;
#endif
            for (uint32_t frame = 0; frame < 8; frame++) {
                assert_int_equal(slc_stream_begin_frame(s, &f), SLC_OK);
                for (uint32_t t = 0; t < 2; t++) {
                    slc_chunk_id tile = {ra.first_chunk + (frame < 4 ? 0u : 2u) + t};
                    assert_int_equal(slc_stream_request_chunk(s, tile, 200, (slc_partition){0}), SLC_OK);
                }
                assert_int_equal(slc_stream_end_frame(s), SLC_OK);
                assert_true(slc_stream_check(s));
                if (frame == 3) {
                    for (uint32_t t = 0; t < 2; t++) {
                        assert_int_equal(slc_stream_get_chunk_page(s, (slc_chunk_id){ra.first_chunk + t}, &info),
                                         SLC_OK);
                        assert_int_equal(info.state, SLC_PAGE_RESIDENT);
                    }
                }
            }
            assert_int_equal(slc_stream_begin_frame(s, &f), SLC_OK);
#ifdef SLUICE_TEXTURES_NOHEAP
            noheap_counting = 0;
            assert_int_equal(noheap_calls, 0); /* 8 frames of tiles loaded and evicted, and a ninth begun */
#endif
            slc_pool_get_stats(tp, &ts);
            assert_int_equal(ts.pinned, 2);
            assert_int_equal(ts.resident, 2);
            assert_int_equal(ts.evictions, 2);
            /* The texture pool's eviction log: the same decisions on every
             * target (the cross builds run this test under qemu). */
            printf("texture pool log: %" PRIu64 " entries, hash 0x%016" PRIx64 "\n", ts.log_count, ts.log_hash);
            assert_int_equal(ts.log_count, 6);
            assert_int_equal(ts.log_hash, 0x31866c739f5888daull);
            /* The four tiles' bytes, read and uploaded, are the stream's
             * texture bytes (no geometry was asked for; the tails, loaded
             * at create, count in neither). */
            slc_stream_stats bst;
            slc_stream_get_stats(s, &bst);
            uint64_t stored = 0, decoded = 0;
            for (uint32_t t = 0; t < 4; t++) {
                const slc_pack_chunk *c = slc_pack_get_chunk(pk, (slc_chunk_id){ra.first_chunk + t});
                stored += c->stored_size;
                decoded += c->decoded_size;
            }
            assert_int_equal(bst.tile_bytes_read, stored);
            assert_int_equal(bst.tile_bytes_uploaded, decoded);
            assert_int_equal(bst.bytes_read, stored);
            assert_int_equal(bst.bytes_uploaded, decoded);
            for (uint32_t t = 0; t < 4; t++) {
                assert_int_equal(slc_stream_get_chunk_page(s, (slc_chunk_id){ra.first_chunk + t}, &info),
                                 t < 2 ? SLC_E_NOT_FOUND : SLC_OK);
            }
            slc_pool_get_stats(gp, &gs);
            assert_int_equal(gs.pinned, geometry_pinned);
            assert_int_equal(gs.evictions, 0);
            const slc_chunk_id last = {ra.first_chunk + 3u};
            /* A tile's partition must exist in the texture pool. */
            assert_int_equal(slc_stream_request_chunk(s, last, 1, (slc_partition){1}), SLC_E_INVALID);
            char want[160];
            snprintf(want, sizeof want,
                     "stream: request for chunk %u: partition 1 does not exist (the textures pool has 1)", last.index);
            assert_string_equal(logged, want);
            assert_int_equal(slc_stream_end_frame(s), SLC_OK);
            /* A tile whose read fails: the load fails with SLC_E_IO, its
             * page goes back to the texture pool unpublished, the chunk is
             * FAILED and not resident, the tails stay; once reads work it
             * loads again after its retry delay. */
            const slc_chunk_id first = {ra.first_chunk};
            slc_stream_stats sst;
            slc_stream_get_stats(s, &sst);
            const uint64_t failures = sst.failures;
            fl.fail = 1;
            ask_frames(s, first, 2, &f);
            slc_stream_chunk_info ci;
            slc_stream_get_chunk(s, first, &ci);
            assert_int_equal(ci.state, SLC_STREAM_CHUNK_FAILED);
            assert_int_equal(ci.status, SLC_E_IO);
            assert_int_equal(ci.attempts, 1);
            slc_stream_get_stats(s, &sst);
            assert_int_equal(sst.failures, failures + 1u);
            assert_int_equal(sst.first_failures[sst.failure_records - 1u].chunk.index, first.index);
            slc_pool_get_stats(tp, &ts);
            assert_int_equal(ts.pinned, 2);
            assert_int_equal(ts.loading, 0);
            assert_int_equal(ts.pinned + ts.resident + ts.free, ts.page_count); /* its page released */
            assert_int_equal(slc_pool_lookup(tp, first, &info), SLC_E_NOT_FOUND);
            fl.fail = 0;
            ask_frames(s, first, 4, &f);
            slc_stream_get_chunk(s, first, &ci);
            assert_int_equal(ci.state, SLC_STREAM_CHUNK_RESIDENT);
            assert_int_equal(ci.attempts, 0);
            slc_stream_destroy(s);
            slc_arena_get_stats(meta, &before);
            /* A texture store whose pages are smaller than the pack's. */
            void *small_mem = aligned_alloc(64, 64u * 1024u);
            assert_non_null(small_mem);
            slc_arena *small_arena = NULL;
            assert_int_equal(slc_arena_init(small_mem, 64u * 1024u, NULL, SLC_BUDGET_NONE, &small_arena), SLC_OK);
            slc_page_store small;
            assert_int_equal(slc_host_store_init(small_arena, tex_pages, TRIP_PAGE / 2u, NULL, &small), SLC_OK);
            d.stores[SLC_POOL_TEXTURES] = &small;
            assert_int_equal(slc_stream_create(&d, &s), SLC_E_INVALID);
            assert_string_equal(logged, "stream: the pack's pages of 8192 bytes do not fit the texture store's pages "
                                        "of 4096 bytes");
            slc_host_store_deinit(&small);
            free(small_mem);
            d.stores[SLC_POOL_TEXTURES] = &tex.store;
            /* A texture record that cannot be read when the tails are
             * pinned (the geometry pins off, so it is the first read). */
            slc_profile nopin = prof;
            nopin.pin_coarsest = 0;
            d.profile = &nopin;
            fl.fail = 1;
            assert_int_equal(slc_stream_create(&d, &s), SLC_E_IO);
            assert_null(s);
            assert_string_equal(logged, "stream: texture 0's record could not be read: SLC_E_IO");
            fl.fail = 0;
            /* A mip tail whose stored bytes fail their checksum: the
             * stream does not start, naming the chunk as a tail. */
            const slc_pack_chunk *tc = slc_pack_get_chunk(pk, tail_b);
            data[tc->offset] ^= 0x01u;
            assert_int_equal(slc_stream_create(&d, &s), SLC_E_PACK_CHUNK_CHECKSUM);
            assert_null(s);
            snprintf(want, sizeof want,
                     "stream: pinned chunk %u (a texture's mip tail) could not be loaded: SLC_E_PACK_CHUNK_CHECKSUM",
                     tail_b.index);
            assert_string_equal(logged, want);
            data[tc->offset] ^= 0x01u;
            slc_arena_get_stats(meta, &after);
            assert_int_equal(after.used, before.used); /* nothing kept from any */
            d.profile = &prof;
        }
        slc_pack_close(pk);
        tiles_close(mem, block, &geo, &tex);
    }
    free(data);
    unlink(pack_path);
}

/* [texture_partitions]: the mip tails are pinned in the texture pool's
 * "default" partition, not its first named one; a tile asked for in a
 * partition loads into that partition's pages and evicts only there. */
static void test_texture_partitions_keep_tiles_apart(void **state)
{
    (void)state;
    size_t size = 0;
    unsigned char *data = two_texture_pack(&size);
    slc_profile prof;
    void *block = NULL;
    kind_store geo, tex;
    slc_arena *meta = NULL;
    slc_memory *mem = tiles_open("parts", 5, "[texture_partitions]\nsigns = 1\n", &prof, &block, &geo, &tex, &meta);
    slc_io io;
    slc_io_from_memory(data, size, &io);
    slc_pack *pk = NULL;
    assert_int_equal(slc_pack_open(&io, "parts.pack", &prof, meta, NULL, &pk), SLC_OK);
    slc_pack_texture ra;
    assert_int_equal(slc_pack_read_texture(pk, 0, &ra), SLC_OK);
    slc_stream_desc d;
    memset(&d, 0, sizeof d);
    d.profile = &prof;
    d.memory = mem;
    d.pack = pk;
    d.stores[SLC_POOL_GEOMETRY] = &geo.store;
    d.stores[SLC_POOL_TEXTURES] = &tex.store;
    slc_stream *s = NULL;
    assert_int_equal(slc_stream_create(&d, &s), SLC_OK);
    const slc_pool *tp = slc_stream_pool_of_kind(s, SLC_POOL_TEXTURES);
    slc_partition signs = {0}, def = {0};
    assert_int_equal(slc_pool_scan_partition(tp, "signs", &signs), SLC_OK);
    assert_int_equal(slc_pool_scan_partition(tp, "default", &def), SLC_OK);
    assert_int_equal(signs.index, 0);
    assert_int_equal(def.index, 1);
    slc_pool_partition_stats ps, pd;
    slc_pool_get_partition_stats(tp, signs, &ps);
    slc_pool_get_partition_stats(tp, def, &pd);
    assert_int_equal(ps.page_count, 1);
    assert_int_equal(pd.page_count, 4);
    assert_int_equal(ps.pinned, 0);
    assert_int_equal(pd.pinned, 2); /* the two tails, in "default" */
    /* Tiles 0 and 1 in 'signs' (one page: the second evicts the first),
     * tiles 2 and 3 in 'default' (its two free pages). */
    uint64_t f = 0;
    for (uint32_t frame = 0; frame < 8; frame++) {
        assert_int_equal(slc_stream_begin_frame(s, &f), SLC_OK);
        const slc_chunk_id tile = {ra.first_chunk + (frame < 4 ? 0u : 1u)};
        assert_int_equal(slc_stream_request_chunk(s, tile, 200, signs), SLC_OK);
        for (uint32_t t = 2; t < 4; t++) {
            assert_int_equal(slc_stream_request_chunk(s, (slc_chunk_id){ra.first_chunk + t}, 200, def), SLC_OK);
        }
        assert_int_equal(slc_stream_end_frame(s), SLC_OK);
        assert_true(slc_stream_check(s));
    }
    slc_pool_get_partition_stats(tp, signs, &ps);
    slc_pool_get_partition_stats(tp, def, &pd);
    assert_int_equal(ps.resident, 1);
    assert_int_equal(ps.evictions, 1);
    assert_int_equal(pd.pinned, 2);
    assert_int_equal(pd.resident, 2);
    assert_int_equal(pd.evictions, 0);
    slc_page_info info;
    assert_int_equal(slc_stream_get_chunk_page(s, (slc_chunk_id){ra.first_chunk + 1u}, &info), SLC_OK);
    assert_int_equal(info.partition.index, signs.index);
    assert_int_equal(slc_stream_get_chunk_page(s, (slc_chunk_id){ra.first_chunk}, &info), SLC_E_NOT_FOUND);
    slc_stream_destroy(s);
    slc_pack_close(pk);
    tiles_close(mem, block, &geo, &tex);
    free(data);
    unlink(pack_path);
}

/* [textures] pin_tiles: every tile and tail of both textures pinned at
 * create (a pool one page short is refused, naming both counts), so every
 * tile is visible from the first frame without a request. */
static void test_pin_tiles_pins_every_texture_chunk(void **state)
{
    (void)state;
    size_t size = 0;
    unsigned char *data = two_texture_pack(&size);
    slc_io io;
    slc_io_from_memory(data, size, &io);
    uint32_t total = 0;
    for (int pass = 0; pass < 3; pass++) {
        slc_profile prof;
        void *block = NULL;
        kind_store geo, tex;
        slc_arena *meta = NULL;
        const uint32_t pages = pass == 0 ? 16u : pass == 1 ? total - 1u : total;
        slc_memory *mem = tiles_open("pinall", pages, "pin_tiles = 1\n", &prof, &block, &geo, &tex, &meta);
        assert_int_equal(prof.texture_pin_tiles, 1);
        slc_pack *pk = NULL;
        assert_int_equal(slc_pack_open(&io, "pinall.pack", &prof, meta, NULL, &pk), SLC_OK);
        slc_pack_texture ra, rb;
        assert_int_equal(slc_pack_read_texture(pk, 0, &ra), SLC_OK);
        assert_int_equal(slc_pack_read_texture(pk, 1, &rb), SLC_OK);
        total = ra.chunk_count + rb.chunk_count;
        assert_int_equal(slc_pack_texture_chunk_count(pk), total);
        const slc_logger log = {log_fn, NULL};
        slc_stream_desc d;
        memset(&d, 0, sizeof d);
        d.profile = &prof;
        d.memory = mem;
        d.pack = pk;
        d.stores[SLC_POOL_GEOMETRY] = &geo.store;
        d.stores[SLC_POOL_TEXTURES] = &tex.store;
        d.log = &log;
        slc_stream *s = NULL;
        logged[0] = '\0';
        if (pass < 2) { /* the first pass learns the count: 16 pages hold fewer */
            assert_true(total > 16u);
            assert_int_equal(slc_stream_create(&d, &s), SLC_E_POOL_BUSY);
            assert_null(s);
            char want[160];
            snprintf(want, sizeof want,
                     "stream: pinning every tile and mip tail of 2 textures needs %u pages; the texture pool's "
                     "partition 'default' has %u",
                     total, pages);
            assert_string_equal(logged, want);
        } else {
            assert_int_equal(slc_stream_create(&d, &s), SLC_OK);
            slc_pool_stats ts;
            slc_pool_get_stats(slc_stream_pool_of_kind(s, SLC_POOL_TEXTURES), &ts);
            assert_int_equal(ts.pinned, total);
            uint64_t f = 0;
            assert_int_equal(slc_stream_begin_frame(s, &f), SLC_OK);
            assert_int_equal(slc_stream_end_frame(s), SLC_OK);
            for (uint32_t c = 0; c < total; c++) {
                const uint32_t id = c < ra.chunk_count ? ra.first_chunk + c : rb.first_chunk + c - ra.chunk_count;
                slc_page_info info;
                assert_int_equal(slc_stream_get_chunk_page(s, (slc_chunk_id){id}, &info), SLC_OK);
                assert_int_equal(info.state, SLC_PAGE_PINNED);
            }
            slc_stream_destroy(s);
        }
        slc_pack_close(pk);
        tiles_close(mem, block, &geo, &tex);
    }
    free(data);
    unlink(pack_path);
}

/* Every tile and the tail, loaded through the reader, equal the ones cut
 * here from the image's own chain; the records say what was built. */
static void test_round_trip_through_the_reader(void **state)
{
    (void)state;
    pk_image img = make_image(100, 60, 0);
    build(pack_path, &img, SLC_PACK_TEXEL_RGBA8, 1, TRIP_PAGE);
    size_t size;
    unsigned char *file = read_all(pack_path, &size);
    slc_pack *p = NULL;
    if (open_pack(file, size, &p) != SLC_OK) {
        fail_msg("%s", logged);
    }
    const slc_pack_header *h = slc_pack_get_header(p);
    assert_int_equal(h->version_minor, 3);
    assert_int_equal(h->section_count, 2);
    assert_int_equal(slc_pack_material_count(p), 1);
    assert_int_equal(slc_pack_texture_count(p), 1);
    assert_int_equal(slc_pack_get_object(p, (slc_object_id){0})->material, 1);

    slc_pack_material m;
    assert_int_equal(slc_pack_read_material(p, 0, &m), SLC_OK);
    assert_string_equal(slc_pack_get_string(p, m.name), "paint");
    assert_int_equal(m.flags, SLC_PACK_MATERIAL_DOUBLE_SIDED | SLC_PACK_ALPHA_MASK << SLC_PACK_MATERIAL_ALPHA_SHIFT);
    assert_true(m.alpha_cutoff == 0.3f && m.roughness == 0.25f && m.metallic == 1.0f && m.base_color[1] == 0.5f);
    assert_int_equal(m.slot[0].texture, 1);
    assert_int_equal(m.slot[0].wrap, SLC_PACK_WRAP_REPEAT | SLC_PACK_WRAP_CLAMP_TO_EDGE << 2);
    assert_int_equal(m.slot[0].filter, SLC_PACK_FILTER_LINEAR);
    assert_true(m.slot[0].uv_scale[0] == 3.0f && m.slot[0].uv_scale[1] == 1.0f && m.slot[0].scale == 1.0f);
    for (int k = 1; k < SLC_PACK_SLOT_COUNT; k++) {
        const slc_pack_texture_slot zero = {0};
        assert_memory_equal(&m.slot[k], &zero, sizeof zero);
    }

    slc_pack_texture t;
    assert_int_equal(slc_pack_read_texture(p, 0, &t), SLC_OK);
    assert_string_equal(slc_pack_get_string(p, t.name), "grad.png");
    assert_int_equal(t.width, 100);
    assert_int_equal(t.height, 60);
    assert_int_equal(t.format, SLC_PACK_TEXEL_RGBA8);
    assert_int_equal(t.kind, SLC_PACK_TEXTURE_COLOR);
    assert_int_equal(t.level_count, 7); /* 100x60 .. 1x1 */
    assert_int_equal(t.tile, 24);       /* 32-texel tiles: 2 x 4 KiB <= 8 KiB, 33 would not fit */
    assert_int_equal(t.border, 4);
    assert_int_equal(t.tiled_levels, 3); /* 100x60, 50x30, 25x15 */
    assert_int_equal(t.chunk_count, 5 * 3 + 3 * 2 + 2 * 1 + 1);
    assert_int_equal(t.wrap, SLC_PACK_WRAP_REPEAT | SLC_PACK_WRAP_CLAMP_TO_EDGE << 2);
    assert_int_equal(t.content_hash, img.hash);

    pk_mip_chain chain;
    pk_tile_grid grid;
    pk_diag d;
    assert_int_equal(pk_mip_build(&img, PK_MIP_COLOR, "grad", &chain, &d), 0);
    assert_int_equal(pk_tile_grid_make(&chain, 24, 4, "grad", &grid, &d), 0);
    assert_int_equal(grid.tiled_levels, 3);
    unsigned char page[PAGE], want[PAGE];
    size_t scratch_size = slc_pack_scratch_size(p);
    void *scratch = malloc(scratch_size + PAGE);
    uint32_t k = t.first_chunk;
    for (uint32_t l = 0; l < grid.tiled_levels; l++) {
        for (uint32_t y = 0; y < grid.rows[l]; y++) {
            for (uint32_t x = 0; x < grid.cols[l]; x++, k++) {
                const slc_pack_chunk *c = slc_pack_get_chunk(p, (slc_chunk_id){k});
                assert_int_equal(c->flags, SLC_PACK_CHUNK_TEXTURE);
                assert_int_equal(c->decoded_size, 32 * 32 * 4);
                assert_int_equal(slc_pack_load_chunk(p, (slc_chunk_id){k}, page, PAGE, scratch, scratch_size + PAGE),
                                 SLC_OK);
                assert_int_equal(slc_pack_check_chunk(p, (slc_chunk_id){k}, page), SLC_OK);
                assert_int_equal(
                    pk_tile_write(&chain, &grid, l, x, y, PK_WRAP_REPEAT, PK_WRAP_CLAMP_TO_EDGE, want, sizeof want), 0);
                assert_memory_equal(page, want, grid.tile_bytes);
            }
        }
    }
    assert_int_equal(k + 1, t.first_chunk + t.chunk_count);
    assert_int_equal(slc_pack_get_chunk(p, (slc_chunk_id){k})->decoded_size, grid.tail_bytes);
    assert_int_equal(slc_pack_load_chunk(p, (slc_chunk_id){k}, page, PAGE, scratch, scratch_size + PAGE), SLC_OK);
    assert_memory_equal(page, chain.texels + grid.tail_offset, grid.tail_bytes);
    /* The geometry's own chunk holds the quad's one cluster. */
    uint32_t geometry = 0;
    for (uint32_t c = 0; c < h->chunk_count; c++) {
        geometry += (slc_pack_get_chunk(p, (slc_chunk_id){c})->flags & SLC_PACK_CHUNK_TEXTURE) == 0;
    }
    assert_int_equal(geometry + t.chunk_count, h->chunk_count);
    free(scratch);
    pk_mip_free(&chain);
    free(file);
    free(img.texels);
    unlink(pack_path);
}

/* Each block format: tile geometry whole blocks, at most half a page, and
 * level 0's first tile decoding within the format's floor. */
static void test_block_formats_decode_within_their_floor(void **state)
{
    (void)state;
    static const struct {
        uint32_t format;
        double floor; /* dB, RGB, this smooth image */
    } formats[] = {{SLC_PACK_TEXEL_BC1, 30.0},      {SLC_PACK_TEXEL_BC3, 30.0},      {SLC_PACK_TEXEL_ASTC_4X4, 34.0},
                   {SLC_PACK_TEXEL_ASTC_6X6, 30.0}, {SLC_PACK_TEXEL_ASTC_8X8, 28.0}, {SLC_PACK_TEXEL_RGBA8, 200.0}};
    pk_image img = make_image(300, 200, 17);
    for (size_t f = 0; f < sizeof formats / sizeof formats[0]; f++) {
        build(pack_path, &img, formats[f].format, 2, 65536);
        size_t size;
        unsigned char *file = read_all(pack_path, &size);
        slc_pack *p = NULL;
        if (open_pack(file, size, &p) != SLC_OK) {
            fail_msg("%s", logged);
        }
        slc_pack_texture t;
        assert_int_equal(slc_pack_read_texture(p, 0, &t), SLC_OK);
        uint32_t bw, bh, bb;
        assert_int_equal(slc_pack_texel_block(formats[f].format, &bw, &bh, &bb), 0);
        const uint32_t side = t.tile + 2u * t.border;
        assert_int_equal(t.tile, pk_texture_tile_size(formats[f].format, 65536));
        assert_true(side % bw == 0 && side % bh == 0 && side <= 256);
        assert_true(2 * slc_pack_texel_bytes(t.format, side, side) <= 65536);
        unsigned char *page = malloc(65536), *back = malloc((size_t)side * side * 4u), *want = malloc(side * side * 4u);
        size_t scratch_size = slc_pack_scratch_size(p) + 65536;
        void *scratch = malloc(scratch_size);
        assert_int_equal(slc_pack_load_chunk(p, (slc_chunk_id){t.first_chunk}, page, 65536, scratch, scratch_size),
                         SLC_OK);
        pk_encoder *enc = NULL;
        pk_diag d;
        assert_int_equal(pk_encoder_create((pk_encode_format)formats[f].format, 1, PK_ENCODE_MEDIUM, &enc, &d), 0);
        assert_int_equal(pk_encoder_decode(enc, page,
                                           slc_pack_get_chunk(p, (slc_chunk_id){t.first_chunk})->decoded_size, side,
                                           side, "tile", back, (size_t)side * side * 4u, &d),
                         0);
        pk_mip_chain chain;
        pk_tile_grid grid;
        assert_int_equal(pk_mip_build(&img, PK_MIP_COLOR, "grad", &chain, &d), 0);
        assert_int_equal(pk_tile_grid_make(&chain, t.tile, t.border, "grad", &grid, &d), 0);
        assert_int_equal(pk_tile_write(&chain, &grid, 0, 0, 0, PK_WRAP_REPEAT, PK_WRAP_CLAMP_TO_EDGE, want,
                                       (size_t)side * side * 4u),
                         0);
        double psnr = pk_encode_psnr(want, back, side, side, 3);
        if (psnr < formats[f].floor) {
            fail_msg("%s: %.2f dB, floor %.1f", slc_pack_texel_format_name(formats[f].format), psnr, formats[f].floor);
        }
        pk_mip_free(&chain);
        pk_encoder_destroy(enc);
        free(page);
        free(back);
        free(want);
        free(scratch);
        free(file);
    }
    free(img.texels);
    unlink(pack_path);
}

/* The tile sides docs/pack-format.md quotes for 64 KiB pages, and a page
 * too small for any tile. */
static void test_tile_sizes_the_format_doc_quotes(void **state)
{
    (void)state;
    static const uint32_t want[][2] = {{SLC_PACK_TEXEL_RGBA8, 82},     {SLC_PACK_TEXEL_BC1, 248},
                                       {SLC_PACK_TEXEL_BC3, 172},      {SLC_PACK_TEXEL_ASTC_4X4, 172},
                                       {SLC_PACK_TEXEL_ASTC_6X6, 244}, {SLC_PACK_TEXEL_ASTC_8X8, 248}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        assert_int_equal(pk_texture_tile_size(want[i][0], 65536), want[i][1]);
    }
    assert_int_equal(pk_texture_tile_size(SLC_PACK_TEXEL_RGBA8, 4096), 14); /* 22 texels: not only powers of two */
    assert_int_equal(pk_texture_tile_size(SLC_PACK_TEXEL_RGBA8, 1024), 0);
    assert_int_equal(pk_texture_tile_size(99, 65536), 0);
    slc_pack_texture_layout lay;
    assert_int_equal(slc_pack_texture_layout_of(0, 4, SLC_PACK_TEXEL_RGBA8, 24, 4, &lay), -1);
    assert_int_equal(slc_pack_texture_layout_of(16385, 4, SLC_PACK_TEXEL_RGBA8, 24, 4, &lay), -1);
    assert_int_equal(slc_pack_texture_layout_of(64, 64, SLC_PACK_TEXEL_ASTC_6X6, 120, 4, &lay), -1);
    assert_int_equal(slc_pack_texture_layout_of(64, 64, SLC_PACK_TEXEL_RGBA8, 4, 5, &lay), -1);
    assert_int_equal(slc_pack_texture_layout_of(1, 1, SLC_PACK_TEXEL_ASTC_8X8, 248, 4, &lay), 0);
    assert_int_equal(lay.level_count, 1);
    assert_int_equal(lay.tiles, 0);
    assert_int_equal(lay.chunk_count, 1);
    assert_int_equal(lay.tail_bytes, 16);
    assert_int_equal(slc_pack_texel_bytes(SLC_PACK_TEXEL_ASTC_6X6, 13, 7), 3 * 2 * 16);
    assert_string_equal(slc_pack_texel_format_name(SLC_PACK_TEXEL_ASTC_6X6), "astc6x6");
    assert_null(slc_pack_texel_format_name(0));
}

/* The same image with the same kind and wrap is one texture; another kind
 * or wrap is another. */
static void test_identical_images_are_stored_once(void **state)
{
    (void)state;
    pk_image a = make_image(40, 40, 3), b = make_image(40, 40, 3), c = make_image(40, 40, 4);
    pk_build_options o;
    memset(&o, 0, sizeof o);
    o.page_size = PAGE;
    o.jobs = 1;
    pk_builder *bl = NULL;
    pk_diag d;
    assert_int_equal(pk_builder_open(pack_path, &o, &bl, &d), 0);
    uint32_t id[5];
    assert_int_equal(pk_builder_add_texture(bl, &a, PK_MIP_COLOR, PK_WRAP_REPEAT, PK_WRAP_REPEAT, "a", &id[0], &d), 0);
    assert_int_equal(pk_builder_add_texture(bl, &b, PK_MIP_COLOR, PK_WRAP_REPEAT, PK_WRAP_REPEAT, "b", &id[1], &d), 0);
    assert_int_equal(pk_builder_add_texture(bl, &a, PK_MIP_DATA, PK_WRAP_REPEAT, PK_WRAP_REPEAT, "a", &id[2], &d), 0);
    assert_int_equal(
        pk_builder_add_texture(bl, &a, PK_MIP_COLOR, PK_WRAP_MIRRORED_REPEAT, PK_WRAP_REPEAT, "a", &id[3], &d), 0);
    assert_int_equal(pk_builder_add_texture(bl, &c, PK_MIP_COLOR, PK_WRAP_REPEAT, PK_WRAP_REPEAT, "c", &id[4], &d), 0);
    assert_int_equal(id[0], 0);
    assert_int_equal(id[1], 0);
    assert_int_equal(id[2], 1);
    assert_int_equal(id[3], 2);
    assert_int_equal(id[4], 3);
    /* Refusals: a bad kind, a slot naming a texture never added, a mesh
     * naming a material never added. */
    uint32_t bad;
    assert_int_equal(pk_builder_add_texture(bl, &a, (pk_mip_kind)9, PK_WRAP_REPEAT, PK_WRAP_REPEAT, "x", &bad, &d), -1);
    assert_string_equal(d.message, "x: kind 9, wrap modes 0 and 0 or the texels are not valid");
    pk_material m;
    pk_material_default(&m);
    snprintf(m.name, sizeof m.name, "m");
    m.slot[PK_SLOT_NORMAL].image = 7;
    assert_int_equal(pk_builder_add_material(bl, &m, &bad, &d), -1);
    assert_string_equal(d.message, "material 'm': normalTexture: texture 7 was never added (4 textures)");
    pk_mesh q;
    make_quad(&q, 1);
    assert_int_equal(pk_builder_add_mesh_owned(bl, &q, &bad, &d), -1);
    assert_string_equal(d.message, "mesh 'quad' (0): material 0 was never added (0 materials)");
    pk_build_stats st;
    assert_int_equal(pk_builder_finish(bl, &st, &d), 0);
    assert_int_equal(st.textures, 4);
    assert_int_equal(st.textures_added, 5);
    free(a.texels);
    free(b.texels);
    free(c.texels);
    unlink(pack_path);
}

/* --texture-format none: the material, no texture, no image work. */
static void test_texture_format_none_keeps_materials_only(void **state)
{
    (void)state;
    pk_image img = make_image(64, 64, 0);
    build(pack_path, &img, PK_TEXTURES_NONE, 1, PAGE);
    size_t size;
    unsigned char *file = read_all(pack_path, &size);
    slc_pack *p = NULL;
    if (open_pack(file, size, &p) != SLC_OK) {
        fail_msg("%s", logged);
    }
    assert_int_equal(slc_pack_get_header(p)->section_count, 1);
    assert_int_equal(slc_pack_material_count(p), 1);
    assert_int_equal(slc_pack_texture_count(p), 0);
    slc_pack_material m;
    assert_int_equal(slc_pack_read_material(p, 0, &m), SLC_OK);
    assert_int_equal(m.slot[0].texture, 0);
    assert_int_equal(slc_pack_get_header(p)->chunk_count, 1);
    free(file);
    free(img.texels);
    unlink(pack_path);
}

/* jobs 1 and 3 write the same bytes. */
static void test_the_same_bytes_for_any_jobs(void **state)
{
    (void)state;
    pk_image img = make_image(90, 70, 5);
    build(pack_path, &img, SLC_PACK_TEXEL_BC1, 1, PAGE);
    size_t n1, n3;
    unsigned char *one = read_all(pack_path, &n1);
    build(pack_path, &img, SLC_PACK_TEXEL_BC1, 3, PAGE);
    unsigned char *three = read_all(pack_path, &n3);
    assert_int_equal(n1, n3);
    assert_memory_equal(one, three, n1);
    free(one);
    free(three);
    free(img.texels);
    unlink(pack_path);
}

/* What the listener of pk_builder_on_texture heard. */
typedef struct heard {
    pk_texture_built t[4];
    char name[4][16];
    uint32_t count;
    int refuse; /* 1: the listener fails */
} heard;

static int hear(void *user, const pk_texture_built *t, pk_diag *d)
{
    heard *h = user;
    if (h->refuse) {
        return pk_fail(d, "%s: not heard", t->name);
    }
    assert_true(h->count < 4);
    h->t[h->count] = *t;
    snprintf(h->name[h->count], sizeof h->name[h->count], "%s", t->name);
    h->t[h->count].name = h->name[h->count];
    h->count++;
    return 0;
}

/* Builds a, b (identical to a) and c in format with jobs, the listener set
 * (at 16 KiB pages a is smaller than a bc1 tile, in the mip tail; c is not):
 * the stats in *st. */
static void build_heard(uint32_t format, uint32_t jobs, heard *h, pk_build_stats *st)
{
    pk_image a = make_image(40, 40, 3), b = make_image(40, 40, 3), c = make_image(200, 24, 4);
    a.decode_seconds = 0.25;
    b.decode_seconds = 0.5;
    c.decode_seconds = 0.125;
    pk_build_options o;
    memset(&o, 0, sizeof o);
    o.page_size = PAGE;
    o.jobs = jobs;
    o.texture_format = format;
    pk_builder *bl = NULL;
    pk_diag d;
    assert_int_equal(pk_builder_open(pack_path, &o, &bl, &d), 0);
    pk_builder_on_texture(bl, hear, h);
    uint32_t id;
    assert_int_equal(pk_builder_add_texture(bl, &a, PK_MIP_COLOR, PK_WRAP_REPEAT, PK_WRAP_REPEAT, "a", &id, &d), 0);
    assert_int_equal(pk_builder_add_texture(bl, &b, PK_MIP_COLOR, PK_WRAP_REPEAT, PK_WRAP_REPEAT, "b", &id, &d), 0);
    assert_int_equal(pk_builder_add_texture(bl, &c, PK_MIP_NORMAL, PK_WRAP_REPEAT, PK_WRAP_REPEAT, "c\x01d", &id, &d),
                     0);
    assert_int_equal(id, 1);
    assert_int_equal(pk_builder_finish(bl, st, &d), 0);
    free(a.texels);
    free(b.texels);
    free(c.texels);
    unlink(pack_path);
}

/* pk_builder_on_texture: each texture built is told once, in index order,
 * with its name as given, size, kind, format, level-0 PSNR (identical for
 * rgba8, the same for any jobs) and times; a deduplicated one is not, but
 * its decoding counts in the stats; a listener's failure fails the add. */
static void test_the_listener_hears_each_texture_built(void **state)
{
    (void)state;
    heard one, three, exact;
    memset(&one, 0, sizeof one);
    memset(&three, 0, sizeof three);
    memset(&exact, 0, sizeof exact);
    pk_build_stats st;
    build_heard(SLC_PACK_TEXEL_BC1, 1, &one, &st);
    assert_int_equal(one.count, 2);
    assert_int_equal(one.t[0].index, 0);
    assert_string_equal(one.t[0].name, "a");
    assert_int_equal(one.t[0].width, 40);
    assert_int_equal(one.t[0].height, 40);
    assert_int_equal(one.t[0].kind, PK_MIP_COLOR);
    assert_int_equal(one.t[0].format, SLC_PACK_TEXEL_BC1);
    assert_true(one.t[0].decode_seconds == 0.25);
    assert_int_equal(one.t[1].index, 1);
    assert_string_equal(one.t[1].name, "c\x01d"); /* as given: the summary makes it printable */
    assert_int_equal(one.t[1].width, 200);
    assert_int_equal(one.t[1].height, 24);
    assert_int_equal(one.t[1].kind, PK_MIP_NORMAL);
    assert_true(one.t[1].decode_seconds == 0.125);
    for (uint32_t i = 0; i < 2; i++) {
        assert_true(one.t[i].psnr > 20.0 && one.t[i].psnr < PK_ENCODE_PSNR_IDENTICAL);
        assert_true(one.t[i].encode_seconds >= 0.0);
    }
    assert_true(st.texture_psnr_min == (one.t[0].psnr < one.t[1].psnr ? one.t[0].psnr : one.t[1].psnr));
    assert_true(st.texture_decode_seconds == 0.875); /* b's included */
    assert_true(st.texture_encode_seconds >= one.t[0].encode_seconds + one.t[1].encode_seconds - 1e-9);

    build_heard(SLC_PACK_TEXEL_BC1, 3, &three, &st);
    assert_int_equal(three.count, 2);
    assert_true(three.t[0].psnr == one.t[0].psnr && three.t[1].psnr == one.t[1].psnr);

    build_heard(SLC_PACK_TEXEL_RGBA8, 1, &exact, &st);
    assert_int_equal(exact.count, 2);
    assert_true(exact.t[0].psnr == PK_ENCODE_PSNR_IDENTICAL && exact.t[1].psnr == PK_ENCODE_PSNR_IDENTICAL);

    pk_image a = make_image(40, 40, 3);
    pk_build_options o;
    memset(&o, 0, sizeof o);
    o.page_size = PAGE;
    o.jobs = 1;
    pk_builder *bl = NULL;
    pk_diag d;
    assert_int_equal(pk_builder_open(pack_path, &o, &bl, &d), 0);
    heard no;
    memset(&no, 0, sizeof no);
    no.refuse = 1;
    pk_builder_on_texture(bl, hear, &no);
    uint32_t id;
    assert_int_equal(pk_builder_add_texture(bl, &a, PK_MIP_COLOR, PK_WRAP_REPEAT, PK_WRAP_REPEAT, "a", &id, &d), -1);
    assert_string_equal(d.message, "a: not heard");
    pk_builder_abort(bl);
    free(a.texels);
    assert_int_equal(access(pack_path, F_OK), -1);
}

/* ---- the reader's checks on edited packs ------------------------------ */

static unsigned char *base;
static size_t base_size;

/* Every checksum of a pack made right again after an edit. */
static void refix(unsigned char *b)
{
    slc_pack_header h;
    memcpy(&h, b, sizeof h);
    slc_pack_section dir[SLC_PACK_MAX_SECTIONS];
    const uint32_t n = h.section_count < SLC_PACK_MAX_SECTIONS ? h.section_count : SLC_PACK_MAX_SECTIONS;
    assert_true(h.section_offset + n * sizeof dir[0] + 8u <= base_size);
    memcpy(dir, b + h.section_offset, n * sizeof dir[0]);
    for (uint32_t i = 0; i < n; i++) {
        if (dir[i].offset + dir[i].size <= base_size) {
            dir[i].xxh3 = XXH3_64bits(b + dir[i].offset, (size_t)dir[i].size);
        }
    }
    memcpy(b + h.section_offset, dir, n * sizeof dir[0]);
    uint64_t sum = XXH3_64bits(dir, n * sizeof dir[0]);
    memcpy(b + h.section_offset + n * sizeof dir[0], &sum, sizeof sum);
    h.chunk_xxh3 = XXH3_64bits(b + h.chunk_offset, (size_t)h.chunk_count * sizeof(slc_pack_chunk));
    h.object_xxh3 = XXH3_64bits(b + h.object_offset, (size_t)h.object_count * sizeof(slc_pack_object));
    h.header_xxh3 = XXH3_64bits(&h, offsetof(slc_pack_header, header_xxh3));
    memcpy(b, &h, sizeof h);
}

static slc_pack_header header_of(const unsigned char *b)
{
    slc_pack_header h;
    memcpy(&h, b, sizeof h);
    return h;
}

static slc_pack_section section(const unsigned char *b, uint32_t kind)
{
    slc_pack_header h = header_of(b);
    for (uint32_t i = 0; i < h.section_count; i++) {
        slc_pack_section s;
        memcpy(&s, b + h.section_offset + i * sizeof s, sizeof s);
        if (s.kind == kind) {
            return s;
        }
    }
    fail_msg("no section of kind %u", kind);
    return (slc_pack_section){0};
}

static slc_pack_material *material0(unsigned char *b)
{
    return (slc_pack_material *)(void *)(b + section(b, SLC_PACK_SECTION_MATERIALS).offset);
}

static slc_pack_texture *texture0(unsigned char *b)
{
    return (slc_pack_texture *)(void *)(b + section(b, SLC_PACK_SECTION_TEXTURES).offset);
}

static void e_flags(unsigned char *b)
{
    material0(b)->flags = 0x10;
}
static void e_alpha(unsigned char *b)
{
    material0(b)->flags = 3u << 1;
}
static void e_metallic(unsigned char *b)
{
    material0(b)->metallic = 2.0f;
}
static void e_emissive_nan(unsigned char *b)
{
    material0(b)->emissive[2] = NAN;
}
static void e_slot_texture(unsigned char *b)
{
    material0(b)->slot[3].texture = 5;
}
static void e_slot_wrap(unsigned char *b)
{
    material0(b)->slot[0].wrap = 3;
}
static void e_slot_filter(unsigned char *b)
{
    material0(b)->slot[0].filter = 0x40;
}
static void e_slot_rotation(unsigned char *b)
{
    material0(b)->slot[0].rotation = INFINITY;
}
static void e_levels(unsigned char *b)
{
    texture0(b)->level_count = 6;
}
static void e_kind(unsigned char *b)
{
    texture0(b)->kind = 4;
}
static void e_format(unsigned char *b)
{
    texture0(b)->format = 9;
}
static void e_tile(unsigned char *b)
{
    texture0(b)->tile = 25; /* with its border, 33: not a whole block of bc1 */
}
static void e_first_chunk(unsigned char *b)
{
    texture0(b)->first_chunk += 1;
}
static void e_name(unsigned char *b)
{
    texture0(b)->name = 1u << 30;
}
static void e_object_material(unsigned char *b)
{
    slc_pack_header h = header_of(b);
    slc_pack_object *o = (slc_pack_object *)(void *)(b + h.object_offset);
    o->material = 2;
}
static void e_object_uv_density(unsigned char *b)
{
    slc_pack_header h = header_of(b);
    slc_pack_object *o = (slc_pack_object *)(void *)(b + h.object_offset);
    o->uv_density = -0.5f;
}
static void e_object_uv_density_nan(unsigned char *b)
{
    slc_pack_header h = header_of(b);
    slc_pack_object *o = (slc_pack_object *)(void *)(b + h.object_offset);
    o->uv_density = NAN;
}
static void e_geometry_chunk_flag(unsigned char *b)
{
    slc_pack_header h = header_of(b);
    slc_pack_chunk *c = (slc_pack_chunk *)(void *)(b + h.chunk_offset);
    for (uint32_t i = 0; i < h.chunk_count; i++) {
        if (!(c[i].flags & SLC_PACK_CHUNK_TEXTURE)) {
            c[i].flags |= SLC_PACK_CHUNK_TEXTURE;
            return;
        }
    }
}
static void e_extra_texture_chunk(unsigned char *b)
{
    texture0(b)->chunk_count -= 1; /* its last chunk, the tail, is then nobody's */
    texture0(b)->level_count = 2;  /* and the layout? no: the count check comes first */
}
static void e_section_kind(unsigned char *b)
{
    slc_pack_header h = header_of(b);
    for (uint32_t i = 0; i < h.section_count; i++) {
        slc_pack_section *s = (slc_pack_section *)(void *)(b + h.section_offset + i * sizeof *s);
        if (s->kind == SLC_PACK_SECTION_TEXTURES) {
            s->kind = 9; /* a later kind: skipped, and the tiles are then nobody's */
        }
    }
}
static void e_section_size(unsigned char *b)
{
    slc_pack_header h = header_of(b);
    slc_pack_section *s = (slc_pack_section *)(void *)(b + h.section_offset);
    s->size += 8;
}
static void e_section_twice(unsigned char *b)
{
    slc_pack_header h = header_of(b);
    slc_pack_section *s = (slc_pack_section *)(void *)(b + h.section_offset);
    s[1] = s[0];
}
static void e_section_outside(unsigned char *b)
{
    slc_pack_header h = header_of(b);
    slc_pack_section *s = (slc_pack_section *)(void *)(b + h.section_offset);
    s->offset = base_size;
}
static int skip_refix;
static void e_section_count(unsigned char *b)
{
    slc_pack_header h = header_of(b);
    h.section_count = SLC_PACK_MAX_SECTIONS + 1;
    h.header_xxh3 = XXH3_64bits(&h, offsetof(slc_pack_header, header_xxh3));
    memcpy(b, &h, sizeof h);
    skip_refix = 1;
}
static void e_directory_checksum(unsigned char *b)
{
    slc_pack_header h = header_of(b);
    b[h.section_offset + h.section_count * sizeof(slc_pack_section)] ^= 1;
    skip_refix = 1;
}
static void e_section_checksum(unsigned char *b)
{
    material0(b)->roughness = 0.5f; /* a valid record, its checksum left stale */
    slc_pack_header h = header_of(b);
    uint64_t sum = XXH3_64bits(b + h.section_offset, h.section_count * sizeof(slc_pack_section));
    memcpy(b + h.section_offset + h.section_count * sizeof(slc_pack_section), &sum, sizeof sum);
    h.header_xxh3 = XXH3_64bits(&h, offsetof(slc_pack_header, header_xxh3));
    memcpy(b, &h, sizeof h);
    skip_refix = 1;
}

static void test_reader_checks_every_section_field(void **state)
{
    (void)state;
    static const struct {
        void (*edit)(unsigned char *);
        slc_status status;
        const char *message; /* its start */
    } cases[] = {
        {e_flags, SLC_E_PACK_RECORD, "material 0: flags 0x10 are not valid"},
        {e_alpha, SLC_E_PACK_RECORD, "material 0: flags 0x6 are not valid"},
        {e_metallic, SLC_E_PACK_RECORD, "material 0: a factor is outside its range"},
        {e_emissive_nan, SLC_E_PACK_RECORD, "material 0: a factor is outside its range"},
        {e_slot_texture, SLC_E_PACK_RECORD, "material 0 slot 3: texture 4 does not exist (1 textures)"},
        {e_slot_wrap, SLC_E_PACK_RECORD, "material 0 slot 0: wrap 0x3, filter 0x2 or a transform value is not valid"},
        {e_slot_filter, SLC_E_PACK_RECORD, "material 0 slot 0: wrap 0x4, filter 0x40 or a transform value is not"},
        {e_slot_rotation, SLC_E_PACK_RECORD, "material 0 slot 0: wrap 0x4, filter 0x2 or a transform value is not"},
        {e_levels, SLC_E_PACK_RECORD, "texture 0: 6 levels, 1 tiled, in 5 chunks; its size and tiles make 7, 1 and 5"},
        {e_kind, SLC_E_PACK_RECORD, "texture 0: kind 4 or wrap 0x4 is not valid"},
        {e_format, SLC_E_PACK_RECORD, "texture 0: 100 x 60 texels of format 9 in "},
        {e_tile, SLC_E_PACK_RECORD, "texture 0: 100 x 60 texels of format 2 in 25-texel tiles with 4-texel borders"},
        {e_first_chunk, SLC_E_PACK_RECORD,
         "texture 0: chunk 4 is not a texture chunk of 2048 bytes (flags 0x2, 1136 bytes)"},
        {e_name, SLC_E_PACK_RECORD, "texture 0: name at 1073741824 lies outside the"},
        {e_object_material, SLC_E_PACK_RECORD, "object 0: material 1 does not exist (1 materials)"},
        {e_object_uv_density, SLC_E_PACK_RECORD, "object 0: uv_density is not a finite number of at least 0"},
        {e_object_uv_density_nan, SLC_E_PACK_RECORD, "object 0: uv_density is not a finite number of at least 0"},
        {e_geometry_chunk_flag, SLC_E_PACK_RECORD, "chunk 5: a texture chunk with clusters, LOD or objects"},
        {e_extra_texture_chunk, SLC_E_PACK_RECORD, "texture 0: 2 levels, 1 tiled, in 4 chunks"},
        {e_section_kind, SLC_E_PACK_RECORD, "5 texture chunks; the texture table owns 0"},
        {e_section_size, SLC_E_PACK_RECORD, "section 0 (kind 1): 1 records in 216 bytes, or a second one"},
        {e_section_twice, SLC_E_PACK_RECORD, "section 1 (kind 1): 1 records in 208 bytes, or a second one"},
        {e_section_outside, SLC_E_PACK_BOUNDS, "section 0 (kind 1): 208 bytes at offset"},
        {e_section_count, SLC_E_PACK_HEADER, "17 sections; a 1.x reader takes at most 16"},
        {e_directory_checksum, SLC_E_PACK_TABLE_CHECKSUM, "section directory: XXH3 is 0x"},
        {e_section_checksum, SLC_E_PACK_TABLE_CHECKSUM, "material table: XXH3 is 0x"},
    };
    /* bc1 at 4 KiB pages: 56-texel tiles, level 0 in 2 x 2 of them, then the tail */
    pk_image img = make_image(100, 60, 9);
    build(pack_path, &img, SLC_PACK_TEXEL_BC1, 1, 4096);
    base = read_all(pack_path, &base_size);
    slc_pack *p = NULL;
    if (open_pack(base, base_size, &p) != SLC_OK) {
        fail_msg("the unedited pack: %s", logged);
    }
    unsigned char *b = malloc(base_size);
    assert_non_null(b);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        memcpy(b, base, base_size);
        skip_refix = 0;
        cases[i].edit(b);
        if (!skip_refix) {
            refix(b);
        }
        p = (slc_pack *)1;
        slc_status s = open_pack(b, base_size, &p);
        static const char prefix[] = "pack 't.pack': ";
        if (s != cases[i].status || strncmp(logged, prefix, sizeof prefix - 1) != 0 ||
            strncmp(logged + sizeof prefix - 1, cases[i].message, strlen(cases[i].message)) != 0) {
            fail_msg("case %zu: got %s \"%s\"\nwant %s \"%s...\"", i, slc_status_name(s), logged,
                     slc_status_name(cases[i].status), cases[i].message);
        }
        assert_null(p);
    }
    free(b);
    free(base);
    free(img.texels);
    unlink(pack_path);
}

/* The synthetic city's textures: integer arithmetic only, so these hashes
 * hold on every target (the cross builds run this test under qemu); the
 * sides drawn for the first 20 buildings; unit normals; opaque colour. */
static void test_synthetic_city_textures_are_the_same_everywhere(void **state)
{
    (void)state;
    static const uint64_t want[2][2] = {{0xd8c38126f4fbfe79ull, 0x81560eeef8a7e057ull},
                                        {0x0f9085b685f8b950ull, 0xa37a79e8930000c7ull}};
    static const uint32_t sides[20] = {256, 512, 1024, 256, 512, 256,  512, 256,  1024, 256,
                                       256, 512, 512,  256, 256, 2048, 256, 1024, 256,  512};
    pk_diag d;
    for (uint32_t b = 0; b < 2; b++) {
        for (int n = 0; n < 2; n++) {
            pk_image img;
            assert_int_equal(pk_synth_texture(1, b, n, &img, &d), 0);
            if (img.hash != want[b][n]) {
                fail_msg("building %u %s: hash 0x%016llx", b, n ? "normal" : "colour", (unsigned long long)img.hash);
            }
            for (size_t i = 0; i < (size_t)img.width * img.height; i += 997) {
                const uint8_t *t = img.texels + i * 4u;
                assert_int_equal(t[3], 255);
                if (n) {
                    double x = (t[0] - 128) / 127.0, y = (t[1] - 128) / 127.0, z = (t[2] - 128) / 127.0;
                    double len = sqrt(x * x + y * y + z * z);
                    assert_true(len > 0.97 && len < 1.02 && z > 0.0);
                }
            }
            pk_image_free(&img);
        }
    }
    for (uint32_t b = 0; b < 20; b++) {
        if (pk_synth_texture_side(1, b) != sides[b]) {
            char got[256];
            size_t at = 0;
            for (uint32_t k = 0; k < 20; k++) {
                at += (size_t)snprintf(got + at, sizeof got - at, "%u, ", pk_synth_texture_side(1, k));
            }
            fail_msg("sides: %s", got);
        }
    }
}

int main(void)
{
    snprintf(pack_path, sizeof pack_path, "/tmp/sluice_textures_%ld.pack", (long)getpid());
#ifdef SLUICE_TEXTURES_NOHEAP
    const struct CMUnitTest pool_test[] = {cmocka_unit_test(test_texture_pool_pins_tails_and_streams_tiles)};
    return cmocka_run_group_tests(pool_test, NULL, NULL);
#endif
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_through_the_reader),
        cmocka_unit_test(test_texel_format_list),
        cmocka_unit_test(test_stream_refuses_a_format_the_device_cannot_sample),
        cmocka_unit_test(test_texture_pool_pins_tails_and_streams_tiles),
        cmocka_unit_test(test_texture_partitions_keep_tiles_apart),
        cmocka_unit_test(test_pin_tiles_pins_every_texture_chunk),
        cmocka_unit_test(test_block_formats_decode_within_their_floor),
        cmocka_unit_test(test_tile_sizes_the_format_doc_quotes),
        cmocka_unit_test(test_identical_images_are_stored_once),
        cmocka_unit_test(test_texture_format_none_keeps_materials_only),
        cmocka_unit_test(test_the_same_bytes_for_any_jobs),
        cmocka_unit_test(test_the_listener_hears_each_texture_built),
        cmocka_unit_test(test_reader_checks_every_section_field),
        cmocka_unit_test(test_synthetic_city_textures_are_the_same_everywhere),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
