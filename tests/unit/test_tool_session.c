/* SPDX-License-Identifier: MIT */
/* The streaming tools' shared start-up (tools/session.c): each step that
 * fails is named, with its status, and tool_session_close undoes any state
 * tool_session_open left; a pack the tool already holds (an io) opens
 * without a file; tool_session_stream_desc takes the session's memory and
 * pack; a stream started on the session and the store handed to it close
 * with it, the stream first, the store's close once, before the pack. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cli.h"
#include "sluice/host_store.h"
#include "session.h"
#include "test_pack.h" /* tp_build: a small pack written by hand */

static slc_profile default_profile(void)
{
    slc_profile p;
    assert_int_equal(cli_load_profile(SLUICE_SOURCE_DIR "/budgets/default.profile", &p), CLI_OK);
    return p;
}

/* Opens the file at path (under the source tree) as a pack with p. */
static tool_session_step open_file(const slc_profile *p, const char *path, tool_session *s)
{
    const tool_session_desc d = {.me = "test",
                                 .profile = p,
                                 .pack_path = path,
                                 .file_flags = SLC_PLATFORM_FILE_PREAD,
                                 .pack_name = strrchr(path, '/') + 1};
    return tool_session_open(&d, s);
}

static void assert_closed(const tool_session *s)
{
    assert_null(s->mem);
    assert_null(s->pack);
    assert_null(s->block.base);
    assert_int_equal(s->file_open, 0);
}

static void test_missing_file_is_the_file_step(void **state)
{
    (void)state;
    slc_profile p = default_profile();
    tool_session s;
    assert_int_equal(open_file(&p, SLUICE_SOURCE_DIR "/no/such.pack", &s), TOOL_SESSION_FILE);
    assert_int_not_equal(s.status, SLC_OK);
    assert_int_equal(s.file_open, 0);
    assert_null(s.mem);
    tool_session_close(&s);
    assert_closed(&s);
}

static void test_not_a_pack_is_the_pack_step(void **state)
{
    (void)state;
    slc_profile p = default_profile();
    tool_session s; /* a file that is not a pack: the profile itself */
    assert_int_equal(open_file(&p, SLUICE_SOURCE_DIR "/budgets/default.profile", &s), TOOL_SESSION_PACK);
    assert_int_not_equal(s.status, SLC_OK);
    assert_int_equal(s.file_open, 1);
    assert_non_null(s.mem); /* what came before stays open until the close */
    assert_non_null(s.block.base);
    assert_null(s.pack);

    slc_stream_desc sd;
    tool_session_stream_desc(&s, &p, NULL, NULL, &sd);
    assert_ptr_equal(sd.memory, s.mem);
    assert_ptr_equal(sd.profile, &p);
    assert_null(sd.pack);
    assert_int_equal(sd.load_frames, SLC_STREAM_DEFAULT_LOAD_FRAMES);
    assert_non_null(sd.now_ns);
    assert_null(sd.executor.ops);

    tool_session_close(&s);
    assert_closed(&s);
}

static slc_status mem_read(void *user, uint64_t offset, void *dst, size_t size)
{
    const test_pack *t = user;
    if (offset > t->size || size > t->size - offset) {
        return SLC_E_IO_SHORT;
    }
    memcpy(dst, t->data + offset, size);
    return SLC_OK;
}

static void test_a_pack_in_memory_opens(void **state)
{
    (void)state;
    slc_profile p = default_profile();
    static test_pack tp;
    tp_build(&tp);
    const slc_io io = {.read = mem_read, .user = &tp, .size = tp.size};
    const tool_session_desc d = {.me = "test", .profile = &p, .io = &io, .pack_name = "t.pack"};
    tool_session s;
    assert_int_equal(tool_session_open(&d, &s), TOOL_SESSION_OPEN);
    assert_int_equal(s.status, SLC_OK);
    assert_int_equal(s.file_open, 0); /* the tool's io: no file of its own */
    assert_non_null(s.mem);
    assert_non_null(s.pack);
    assert_int_equal(slc_pack_get_header(s.pack)->chunk_count, TP_CHUNKS);

    slc_stream_desc sd;
    tool_session_stream_desc(&s, &p, NULL, NULL, &sd);
    assert_ptr_equal(sd.pack, s.pack);
    assert_ptr_equal(sd.memory, s.mem);

    tool_session_close(&s);
    assert_closed(&s);
    free(tp.data);
}

/* The tool's side of a store handed to the session: its close counts the
 * calls and notes whether the pack was still open then. */
typedef struct store_rig {
    tool_session *s;
    slc_page_store store;
    void *mem;
    int closes;
    int pack_open_at_close;
} store_rig;

static void rig_store_close(void *ctx)
{
    store_rig *g = ctx;
    g->closes++;
    g->pack_open_at_close = g->s->pack != NULL;
    if (g->store.ops != NULL) {
        slc_host_store_deinit(&g->store);
    }
    free(g->mem);
    g->mem = NULL;
}

/* A host store for p's pool, uncharged, in g->mem. */
static void open_host_store(const slc_profile *p, store_rig *g)
{
    slc_pool_spec spec;
    slc_pool_spec_from_profile(p, SLC_POOL_GEOMETRY, &spec);
    slc_host_store_desc hd;
    slc_host_store_desc_from_spec(&spec, &hd);
    size_t fp = slc_host_store_footprint(hd.page_count, hd.page_size);
    assert_int_not_equal(fp, 0);
    fp = (fp + SLC_HOST_STORE_PAGE_ALIGN - 1u) & ~(size_t)(SLC_HOST_STORE_PAGE_ALIGN - 1u);
    g->mem = aligned_alloc(SLC_HOST_STORE_PAGE_ALIGN, fp);
    assert_non_null(g->mem);
    assert_int_equal(
        slc_host_store_init_at(g->mem, fp, NULL, SLC_BUDGET_NONE, hd.page_count, hd.page_size, NULL, &g->store),
        SLC_OK);
}

/* A session over the hand-made pack in memory (no workers), and the
 * tool's store rig on it. */
typedef struct memory_session {
    slc_profile p;
    test_pack tp;
    slc_io io;
    tool_session s;
    store_rig g;
} memory_session;

static void open_memory_session(memory_session *m)
{
    memset(m, 0, sizeof *m);
    m->p = default_profile();
    m->p.workers = 0;
    tp_build(&m->tp);
    m->io = (slc_io){.read = mem_read, .user = &m->tp, .size = m->tp.size};
    m->g.s = &m->s;
    const tool_session_desc d = {.me = "test", .profile = &m->p, .io = &m->io, .pack_name = "t.pack"};
    assert_int_equal(tool_session_open(&d, &m->s), TOOL_SESSION_OPEN);
}

/* Closes m's session: the store's close ran once, with the pack still open. */
static void close_memory_session(memory_session *m, int store_closes)
{
    tool_session_close(&m->s);
    assert_int_equal(m->g.closes, store_closes);
    assert_int_equal(m->g.pack_open_at_close, store_closes); /* the store closes before the pack */
    assert_null(m->s.stream);
    assert_null(m->s.store);
    assert_null(m->s.store_close);
    assert_closed(&m->s);
    tool_session_close(&m->s); /* closed: nothing more to close */
    assert_int_equal(m->g.closes, store_closes);
    free(m->tp.data);
}

static void test_a_stream_and_its_store_close_with_the_session(void **state)
{
    (void)state;
    static memory_session m;
    open_memory_session(&m);
    open_host_store(&m.p, &m.g);
    tool_session_set_store(&m.s, &m.g.store, rig_store_close, &m.g);
    assert_ptr_equal(m.s.store, &m.g.store);

    slc_stream_desc sd;
    tool_session_stream_desc(&m.s, &m.p, m.s.store, NULL, &sd);
    assert_ptr_equal(sd.stores[SLC_POOL_GEOMETRY], &m.g.store);
    assert_int_equal(tool_session_start_stream(&m.s, &sd), SLC_OK);
    slc_stream *st = m.s.stream;
    assert_non_null(st);
    assert_non_null(slc_stream_pool(st));
    assert_int_equal(slc_stream_begin_frame(st, NULL), SLC_OK);
    assert_int_equal(slc_stream_request_chunk(st, (slc_chunk_id){0}, 0, (slc_partition){0}), SLC_OK);
    assert_int_equal(slc_stream_end_frame(st), SLC_OK);

    close_memory_session(&m, 1);
    assert_null(m.g.store.ops); /* the tool's close deinited it */
}

static void test_a_refused_stream_still_closes_the_store(void **state)
{
    (void)state;
    static memory_session m;
    open_memory_session(&m);
    tool_session_set_store(&m.s, NULL, rig_store_close, &m.g); /* a store the tool opened part-way */

    slc_stream_desc sd;
    tool_session_stream_desc(&m.s, &m.p, m.s.store, NULL, &sd); /* no page store: slc_stream_create refuses it */
    assert_int_equal(tool_session_start_stream(&m.s, &sd), SLC_E_INVALID);
    assert_null(m.s.stream);

    close_memory_session(&m, 1);
}

static void test_a_store_closes_from_a_failed_open(void **state)
{
    (void)state;
    slc_profile p = default_profile();
    tool_session s;
    assert_int_equal(open_file(&p, SLUICE_SOURCE_DIR "/no/such.pack", &s), TOOL_SESSION_FILE);
    store_rig g = {.s = &s};
    tool_session_set_store(&s, NULL, rig_store_close, &g);
    store_rig h = {.s = &s};
    tool_session_set_store(&s, NULL, rig_store_close, &h); /* the second replaces the first */
    tool_session_close(&s);
    assert_int_equal(g.closes, 0);
    assert_int_equal(h.closes, 1);
    assert_int_equal(h.pack_open_at_close, 0);
    assert_closed(&s);
}

static void test_an_open_session_without_a_store_closes(void **state)
{
    (void)state;
    static memory_session m;
    open_memory_session(&m);
    assert_null(m.s.store_close);
    assert_null(m.s.stream);
    close_memory_session(&m, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_missing_file_is_the_file_step),
        cmocka_unit_test(test_not_a_pack_is_the_pack_step),
        cmocka_unit_test(test_a_pack_in_memory_opens),
        cmocka_unit_test(test_a_stream_and_its_store_close_with_the_session),
        cmocka_unit_test(test_a_refused_stream_still_closes_the_store),
        cmocka_unit_test(test_a_store_closes_from_a_failed_open),
        cmocka_unit_test(test_an_open_session_without_a_store_closes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
