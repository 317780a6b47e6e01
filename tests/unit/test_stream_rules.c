/* SPDX-License-Identifier: MIT */
/* The scheduler's rules as pure functions (sluice/stream.h): the upload cap
 * in pages, the acceptance of a frame's requests and the walk over the
 * chunks pinning loads, at their edges and with their messages; and a real
 * stream on the host backend, mapped and through a staging belt, with
 * load_frames 1, 2 and 8, applying exactly what the functions (the ones
 * `sluice budget fit` calls) say. */
#define _POSIX_C_SOURCE 200809L
#include "stream_fixture.h"

#include "sluice/stream.h"

/* --- the profile ------------------------------------------------------------------ */

typedef struct rules_params {
    uint32_t pages;
    uint32_t queue;
    uint32_t upload_kib;
    uint32_t pin;
} rules_params;

static slc_profile parse_profile(const rules_params *p)
{
    char text[1024];
    snprintf(text, sizeof text,
             "[profile]\nname = rules\n"
             "[budgets]\ncpu = 8 MiB\ncpu/meta = 2 MiB\ncpu/decode = 1 MiB\ncpu/queues = 1 MiB\ncpu/driver = 1 MiB\n"
             "gpu = 8 MiB\ngpu/pool = 4 MiB\ngpu/staging = 1 MiB\n"
             "[pool]\npage_size = 4 KiB\npage_count = %u\neviction = lru\n"
             "[stream]\nframes_in_flight = 2\nworkers = 0\nqueue_capacity = %u\nstaging_size = 0 B\n"
             "upload_per_frame = %u KiB\npin_coarsest = %u\n"
             "[tables]\nmax_objects = 64\nmax_chunks = 1024\nmax_lods = 4\nmax_string_bytes = 4 KiB\n",
             p->pages, p->queue, p->upload_kib, p->pin);
    slc_profile prof;
    sfx_profile_parse(text, "rules.profile", &prof);
    return prof;
}

static const rules_params base = {64, 64, 64, 0};

/* --- the upload cap ------------------------------------------------------------------ */

static void test_upload_cap_mapped_is_whole_pages_of_upload_per_frame(void **state)
{
    (void)state;
    slc_profile p = parse_profile(&base);
    capture_log c;
    slc_logger log = capture_logger(&c);
    uint32_t pages = 99;
    assert_int_equal(slc_stream_get_upload_cap(&p, 1, false, &log, &pages), SLC_OK);
    assert_int_equal(pages, 16); /* 64 KiB of 4 KiB pages */
    p.upload_cap = 4096;         /* exactly one page */
    assert_int_equal(slc_stream_get_upload_cap(&p, 1, false, &log, &pages), SLC_OK);
    assert_int_equal(pages, 1);
    p.upload_cap = 2u * 4096u - 1u; /* whole pages only */
    assert_int_equal(slc_stream_get_upload_cap(&p, 1, false, &log, &pages), SLC_OK);
    assert_int_equal(pages, 1);
    /* mapped pages: load_frames and the staging size change nothing */
    p.staging_size = 0;
    assert_int_equal(slc_stream_get_upload_cap(&p, 8, false, &log, &pages), SLC_OK);
    assert_int_equal(pages, 1);
    assert_int_equal(c.calls, 0);
}

static void test_upload_cap_below_one_page_is_refused(void **state)
{
    (void)state;
    slc_profile p = parse_profile(&base);
    p.upload_cap = 4095;
    capture_log c;
    slc_logger log = capture_logger(&c);
    uint32_t pages = 99;
    assert_int_equal(slc_stream_get_upload_cap(&p, 1, false, &log, &pages), SLC_E_INVALID);
    assert_int_equal(pages, 0);
    assert_int_equal(c.status, SLC_E_INVALID);
    assert_string_equal(c.message,
                        "stream: upload_per_frame 4095 is below the page size 4096: no page could be loaded");
    /* staged or not, the same check first; a NULL logger is allowed */
    pages = 99;
    assert_int_equal(slc_stream_get_upload_cap(&p, 1, true, NULL, &pages), SLC_E_INVALID);
    assert_int_equal(pages, 0);
}

static void test_upload_cap_load_frames_out_of_range_is_refused(void **state)
{
    (void)state;
    slc_profile p = parse_profile(&base);
    capture_log c;
    slc_logger log = capture_logger(&c);
    uint32_t pages = 99;
    assert_int_equal(slc_stream_get_upload_cap(&p, SLC_STREAM_LOAD_FRAMES_MAX + 1u, false, &log, &pages),
                     SLC_E_INVALID);
    assert_int_equal(pages, 0);
    assert_string_equal(c.message, "stream: load_frames 9 is above 8");
    assert_int_equal(slc_stream_get_upload_cap(&p, SLC_STREAM_LOAD_FRAMES_MAX, true, &log, &pages), SLC_E_INVALID);
    /* the message is the belt's, not the range's: 8 is in range */
    assert_string_equal(c.message, "stream: staging_size 0 holds less than one 4096-byte page for each of 11 frames "
                                   "(frames_in_flight + load_frames + 1)");
}

static void test_upload_cap_staged_is_the_belts_share(void **state)
{
    (void)state;
    slc_profile p = parse_profile(&base);
    p.staging_size = 12u * 4096u; /* 12 pages */
    uint32_t pages = 0;
    /* frames_in_flight 2: a slot stays taken for 2 + load_frames + 1 frames */
    assert_int_equal(slc_stream_get_upload_cap(&p, 1, true, NULL, &pages), SLC_OK);
    assert_int_equal(pages, 3); /* 12 pages / 4 frames */
    assert_int_equal(slc_stream_get_upload_cap(&p, 0, true, NULL, &pages), SLC_OK);
    assert_int_equal(pages, 3); /* 0 is 1, as in the desc */
    assert_int_equal(slc_stream_get_upload_cap(&p, 2, true, NULL, &pages), SLC_OK);
    assert_int_equal(pages, 2); /* 12 / 5, whole pages */
    assert_int_equal(slc_stream_get_upload_cap(&p, 8, true, NULL, &pages), SLC_OK);
    assert_int_equal(pages, 1); /* 12 / 11 */
    /* a belt larger than upload_per_frame needs: the upload cap holds */
    p.staging_size = 1024u * 4096u;
    assert_int_equal(slc_stream_get_upload_cap(&p, 1, true, NULL, &pages), SLC_OK);
    assert_int_equal(pages, 16);
}

static void test_upload_cap_belt_below_one_page_a_frame_is_refused(void **state)
{
    (void)state;
    slc_profile p = parse_profile(&base);
    p.staging_size = 4u * 4096u; /* exactly one page for each of 4 frames */
    uint32_t pages = 0;
    assert_int_equal(slc_stream_get_upload_cap(&p, 1, true, NULL, &pages), SLC_OK);
    assert_int_equal(pages, 1);
    p.staging_size = 4u * 4096u - 1u;
    capture_log c;
    slc_logger log = capture_logger(&c);
    assert_int_equal(slc_stream_get_upload_cap(&p, 1, true, &log, &pages), SLC_E_INVALID);
    assert_int_equal(pages, 0);
    assert_int_equal(c.status, SLC_E_INVALID);
    assert_string_equal(c.message, "stream: staging_size 16383 holds less than one 4096-byte page for each of 4 frames "
                                   "(frames_in_flight + load_frames + 1)");
    /* the same belt holds a page a frame for load_frames 1 but not 2 */
    p.staging_size = 4u * 4096u;
    assert_int_equal(slc_stream_get_upload_cap(&p, 2, true, &log, &pages), SLC_E_INVALID);
    assert_string_equal(c.message, "stream: staging_size 16384 holds less than one 4096-byte page for each of 5 frames "
                                   "(frames_in_flight + load_frames + 1)");
}

/* --- acceptance ------------------------------------------------------------------------ */

static void test_admit_at_the_edges_of_queue_capacity(void **state)
{
    (void)state;
    /* an object request filling the chunk list exactly, and one chunk more */
    assert_int_equal(slc_stream_admit(4, 0, 0, true, 4), SLC_STREAM_ADMITTED);
    assert_int_equal(slc_stream_admit(4, 0, 0, true, 5), SLC_STREAM_CHUNKS_FULL);
    assert_int_equal(slc_stream_admit(4, 1, 3, true, 1), SLC_STREAM_ADMITTED);
    assert_int_equal(slc_stream_admit(4, 1, 3, true, 2), SLC_STREAM_CHUNKS_FULL);
    /* object requests full: refused even with no new chunk, and before the chunks are looked at */
    assert_int_equal(slc_stream_admit(4, 4, 0, true, 0), SLC_STREAM_OBJECTS_FULL);
    assert_int_equal(slc_stream_admit(4, 4, 4, true, 1), SLC_STREAM_OBJECTS_FULL);
    assert_int_equal(slc_stream_admit(4, 3, 0, true, 0), SLC_STREAM_ADMITTED);
    /* a chunk request is not an object request: only the chunk list counts */
    assert_int_equal(slc_stream_admit(4, 4, 0, false, 1), SLC_STREAM_ADMITTED);
    assert_int_equal(slc_stream_admit(4, 0, 4, false, 0), SLC_STREAM_ADMITTED); /* a chunk the frame holds */
    assert_int_equal(slc_stream_admit(4, 0, 4, false, 1), SLC_STREAM_CHUNKS_FULL);
    /* a request of no chunks (a LOD without spans) fits a full chunk list */
    assert_int_equal(slc_stream_admit(4, 0, 4, true, 0), SLC_STREAM_ADMITTED);
}

static void test_admit_counts_above_capacity_violate_the_contract(void **state)
{
    (void)state;
    expect_assert_failure(slc_stream_admit(4, 5, 0, true, 0));
    expect_assert_failure(slc_stream_admit(4, 0, 5, false, 0));
}

/* --- the pinned chunks ------------------------------------------------------------------ */

/* 3 objects of 3 levels of 6, 2 and 1 chunks: object o's chunks are
 * o * 9 + 0..5 (LOD 0), + 6..7 (LOD 1), + 8 (LOD 2). */
static const sp_params small_pack = {4096, 3, 3, {6, 2, 1}, 7};

typedef struct pack_fixture {
    sp_pack pack;
    sp_io io;
    slc_profile profile;
    slc_platform_block block;
    slc_memory *mem;
    slc_pack *pk;
} pack_fixture;

static void pack_open(pack_fixture *f, const rules_params *rp, const sp_params *pp)
{
    memset(f, 0, sizeof *f);
    sp_build(&f->pack, pp);
    sp_io_init(&f->io, &f->pack);
    f->profile = parse_profile(rp);
    sff_memory_map(&f->profile, &f->block, &f->mem);
    slc_arena *meta;
    assert_int_equal(slc_memory_scan_arena(f->mem, "cpu/meta", &meta), SLC_OK);
    assert_int_equal(slc_pack_open(&f->io.io, "rules.pack", &f->profile, meta, NULL, &f->pk), SLC_OK);
}

static void pack_close(pack_fixture *f)
{
    slc_pack_close(f->pk);
    slc_memory_deinit(f->mem);
    slc_platform_block_unmap(&f->block);
    sp_free(&f->pack);
}

/* Walks levels and checks the chunks against want[0 .. n). */
static void expect_walk(const slc_pack *pk, uint32_t levels, const uint32_t *want, uint32_t n)
{
    slc_stream_pin_iter it;
    slc_stream_pin_iter_init(&it, pk, levels);
    uint32_t got = 0;
    slc_chunk_id chunk = {0};
    while (slc_stream_pin_iter_next(&it, &chunk)) {
        assert_true(got < n);
        assert_int_equal(chunk.index, want[got]);
        got++;
    }
    assert_int_equal(got, n);
    /* the end stays the end, and leaves *chunk alone */
    chunk.index = 12345;
    assert_false(slc_stream_pin_iter_next(&it, &chunk));
    assert_int_equal(chunk.index, 12345);
}

static void test_pin_iter_walks_each_objects_coarsest_levels(void **state)
{
    (void)state;
    pack_fixture f;
    pack_open(&f, &base, &small_pack);
    expect_walk(f.pk, 0, NULL, 0); /* pin_coarsest 0 pins nothing */
    static const uint32_t one[] = {8, 17, 26};
    expect_walk(f.pk, 1, one, 3);
    static const uint32_t two[] = {6, 7, 8, 15, 16, 17, 24, 25, 26};
    expect_walk(f.pk, 2, two, 9);
    uint32_t all[27];
    for (uint32_t i = 0; i < 27; i++) {
        all[i] = i;
    }
    expect_walk(f.pk, 3, all, 27);
    expect_walk(f.pk, 4, all, 27); /* more levels than an object has: all of them */
    expect_walk(f.pk, UINT32_MAX, all, 27);
    pack_close(&f);
}

/* --- a real stream agrees ------------------------------------------------------------------ */

/* The host store, and the same store without host addresses standing for
 * a staging belt (sfx_belt_wrap). */
typedef struct stream_fixture {
    pack_fixture pf;
    unsigned char *store_mem;
    slc_arena *store_arena;
    slc_page_store store, belt;
    slc_stream *s;
    capture_log log;
    slc_logger logger;
} stream_fixture;

static void stream_open(stream_fixture *f, const rules_params *rp, const sp_params *pp, uint64_t staging_size,
                        uint32_t load_frames, bool staged)
{
    memset(f, 0, sizeof *f);
    pack_open(&f->pf, rp, pp);
    f->pf.profile.staging_size = staging_size;
    (void)sff_host_store_init(f->pf.mem, rp->pages, 4096, &f->store_mem, &f->store_arena, &f->store);
    sfx_belt_wrap(&f->store, &f->belt);
    f->logger = capture_logger(&f->log);
    slc_stream_desc d;
    memset(&d, 0, sizeof d);
    d.profile = &f->pf.profile;
    d.memory = f->pf.mem;
    d.pack = f->pf.pk;
    d.stores[SLC_POOL_GEOMETRY] = staged ? &f->belt : &f->store;
    d.load_frames = load_frames;
    d.log = &f->logger;
    sfx_stream_start(&d, 0, NULL, &f->log, &f->s);
}

static void stream_close(stream_fixture *f)
{
    slc_stream_destroy(f->s);
    pack_close(&f->pf);
    free(f->store_mem); /* the store's arena lived in it */
}

static slc_stream_frame_stats last_frame(const slc_stream *s)
{
    slc_stream_frame_stats fs[64];
    size_t n = slc_stream_walk_telemetry(s, fs, 64);
    assert_true(n > 0);
    return fs[n - 1];
}

/* 8 objects of 6, 2 and 1 chunks: 72 chunks, 24 of them in the two coarsest levels. */
static const sp_params agree_pack = {4096, 8, 3, {6, 2, 1}, 11};

static void test_stream_applies_the_rules_for_every_load_frames(void **state)
{
    (void)state;
    const rules_params rp = {64, 64, 64, 2}; /* 64 pages, 16 a frame mapped, pin 2 levels */
    const uint32_t load_frames[] = {1, 2, 8};
    for (uint32_t li = 0; li < 3; li++) {
        for (int staged = 0; staged < 2; staged++) {
            const uint32_t lf = load_frames[li];
            stream_fixture f;
            stream_open(&f, &rp, &agree_pack, 12u * 4096u, lf, staged != 0);
            /* the cap: what slc_stream_get_upload_cap says, which is what fit reports */
            uint32_t want_cap = 0;
            assert_int_equal(slc_stream_get_upload_cap(&f.pf.profile, lf, staged != 0, NULL, &want_cap), SLC_OK);
            slc_stream_stats st;
            slc_stream_get_stats(f.s, &st);
            assert_int_equal(st.upload_cap_pages, want_cap);
            const uint32_t expect_cap = staged ? (lf == 1 ? 3u : lf == 2 ? 2u : 1u) : 16u;
            assert_int_equal(want_cap, expect_cap);
            /* the pinned set: the walk's distinct chunks, every one pinned */
            slc_stream_pin_iter it;
            slc_stream_pin_iter_init(&it, f.pf.pk, f.pf.profile.pin_coarsest);
            slc_chunk_id chunk = {0};
            uint32_t walked = 0;
            while (slc_stream_pin_iter_next(&it, &chunk)) {
                slc_page_info info;
                assert_int_equal(slc_stream_get_chunk_page(f.s, chunk, &info), SLC_OK);
                assert_int_equal(info.state, SLC_PAGE_PINNED);
                walked++;
            }
            assert_int_equal(walked, 24);
            assert_int_equal(st.pinned_chunks, walked);
            /* a frame of 20 misses starts exactly the cap's loads and defers the rest */
            uint64_t fr = 0;
            assert_int_equal(slc_stream_begin_frame(f.s, &fr), SLC_OK);
            for (uint32_t o = 0; o < 4; o++) {
                for (uint32_t k = 0; k < 5; k++) {
                    const slc_chunk_id c = {o * 9u + k};
                    assert_int_equal(slc_stream_request_chunk(f.s, c, 1, (slc_partition){0}), SLC_OK);
                }
            }
            assert_int_equal(slc_stream_end_frame(f.s), SLC_OK);
            slc_stream_frame_stats fs = last_frame(f.s);
            assert_int_equal(fs.misses, 20);
            assert_int_equal(fs.loads_started, want_cap);
            assert_int_equal(fs.deferred, 20u - want_cap);
            assert_true(slc_stream_check(f.s));
            stream_close(&f);
        }
    }
}

/* The stream refuses exactly the requests slc_stream_admit refuses. */
static void test_stream_accepts_what_admit_accepts(void **state)
{
    (void)state;
    const rules_params rp = {64, 8, 64, 0}; /* queue_capacity 8 */
    stream_fixture f;
    stream_open(&f, &rp, &agree_pack, 0, 1, false);
    uint64_t fr = 0;
    assert_int_equal(slc_stream_begin_frame(f.s, &fr), SLC_OK);
    /* object o's LOD l: its chunks o * 9 + (LOD 0: 0..5, LOD 1: 6..7, LOD 2: 8) */
    typedef struct step {
        bool object;
        uint32_t id;
        uint8_t lod;
        uint32_t fresh; /* chunks the frame does not hold yet */
    } step;
    static const step steps[] = {
        {true, 0, 0, 6},  /* 6 chunks */
        {true, 1, 0, 6},  /* 6 more do not fit 8 */
        {true, 0, 1, 2},  /* 8: full */
        {false, 3, 0, 0}, /* a chunk the frame holds */
        {false, 9, 0, 1}, /* one more: refused */
        {true, 0, 0, 0},  /* the same LOD again: no new chunk */
        {true, 0, 2, 1},  /* refused: a new chunk */
        {true, 0, 1, 0},  {true, 0, 0, 0}, {true, 0, 1, 0},
        {true, 0, 0, 0},  {true, 0, 1, 0}, /* the 8th object request accepted */
        {true, 0, 0, 0},                   /* the 9th: object requests full */
    };
    uint32_t objects = 0, chunks = 0, refused = 0;
    for (uint32_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        const step *q = &steps[i];
        slc_stream_admission want = slc_stream_admit(8, objects, chunks, q->object, q->fresh);
        slc_status got;
        if (q->object) {
            slc_stream_object_request r = {{q->id}, q->lod, 1, {0}};
            got = slc_stream_request(f.s, &r);
        } else {
            got = slc_stream_request_chunk(f.s, (slc_chunk_id){q->id}, 1, (slc_partition){0});
        }
        assert_int_equal(got, want == SLC_STREAM_ADMITTED ? SLC_OK : SLC_E_CAPACITY);
        if (want == SLC_STREAM_ADMITTED) {
            objects += q->object;
            chunks += q->fresh;
        } else {
            refused++;
        }
    }
    assert_int_equal(objects, 8);
    assert_int_equal(chunks, 8);
    assert_int_equal(refused, 4);
    assert_int_equal(slc_stream_end_frame(f.s), SLC_OK);
    slc_stream_frame_stats fs = last_frame(f.s);
    assert_int_equal(fs.requests, 9); /* 8 object requests and 1 chunk request */
    assert_int_equal(fs.refused, 4);
    assert_int_equal(fs.chunks, 8);
    stream_close(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_upload_cap_mapped_is_whole_pages_of_upload_per_frame),
        cmocka_unit_test(test_upload_cap_below_one_page_is_refused),
        cmocka_unit_test(test_upload_cap_load_frames_out_of_range_is_refused),
        cmocka_unit_test(test_upload_cap_staged_is_the_belts_share),
        cmocka_unit_test(test_upload_cap_belt_below_one_page_a_frame_is_refused),
        cmocka_unit_test(test_admit_at_the_edges_of_queue_capacity),
        cmocka_unit_test(test_admit_counts_above_capacity_violate_the_contract),
        cmocka_unit_test(test_pin_iter_walks_each_objects_coarsest_levels),
        cmocka_unit_test(test_stream_applies_the_rules_for_every_load_frames),
        cmocka_unit_test(test_stream_accepts_what_admit_accepts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
