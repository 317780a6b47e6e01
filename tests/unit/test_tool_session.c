/* SPDX-License-Identifier: MIT */
/* The streaming tools' shared start-up (tools/session.c): each step that
 * fails is named, with its status and its message (a profile whose memory
 * cannot be laid out, a block larger than this machine, a block the kernel
 * refuses, a memory that refuses its profile, no cpu/meta arena, a file that
 * is missing or not a pack), and tool_session_close undoes any state
 * tool_session_open left; each step maps to its exit code; a pack the tool already holds (an io) opens
 * without a file; tool_session_stream_desc takes the session's memory and
 * pack; a stream started on the session and the store handed to it close
 * with it, the stream first, the store's close once, before the pack. */
#define _POSIX_C_SOURCE 200809L /* fileno, dup (stderr_capture.h) */
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
#include "stderr_capture.h"
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
    capture_begin();
    assert_int_equal(open_file(&p, SLUICE_SOURCE_DIR "/no/such.pack", &s), TOOL_SESSION_FILE);
    assert_non_null(strstr(capture_end(), "/no/such.pack: No such file or directory"));
    assert_int_not_equal(s.status, SLC_OK);
    assert_int_equal(tool_session_exit_code(TOOL_SESSION_FILE), CLI_IO);
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
    capture_begin();
    assert_int_equal(open_file(&p, SLUICE_SOURCE_DIR "/budgets/default.profile", &s), TOOL_SESSION_PACK);
    assert_non_null(strstr(capture_end(), "pack 'default.profile': magic bytes "));
    assert_int_not_equal(s.status, SLC_OK);
    assert_int_equal(tool_session_exit_code(TOOL_SESSION_PACK), CLI_FAILED);
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

/* The index of p's budget called name (it is there). */
static size_t budget_index(const slc_profile *p, const char *name)
{
    for (size_t i = 0; i < p->budget_count; i++) {
        if (strcmp(p->budgets[i].name, name) == 0) {
            return i;
        }
    }
    fail_msg("budget '%s' is not in profile '%s'", name, p->name);
    return 0;
}

/* Opens p over the repository's README (any readable file: these steps all
 * fail before the pack is read), checking the machine, with a profile path
 * for the layout's message; the step, with stderr in *said. */
static tool_session_step open_said(const slc_profile *p, tool_session *s, const char **said)
{
    const tool_session_desc d = {.me = "test",
                                 .profile = p,
                                 .pack_path = SLUICE_SOURCE_DIR "/README.md",
                                 .file_flags = SLC_PLATFORM_FILE_PREAD,
                                 .pack_name = "README.md",
                                 .check_machine = 1,
                                 .profile_path = "big.profile"};
    capture_begin();
    tool_session_step step = tool_session_open(&d, s);
    *said = capture_end();
    return step;
}

/* s refused at a step past the file with status st: a failed input, and
 * the close undoes what came before. */
static void close_refused(tool_session *s, tool_session_step step, slc_status st)
{
    assert_int_equal(s->status, st);
    assert_int_equal(tool_session_exit_code(step), CLI_FAILED);
    tool_session_close(s);
    assert_closed(s);
}

static void test_a_profile_past_the_address_space_is_the_layout_step(void **state)
{
    (void)state;
    slc_profile p = default_profile();
    p.budgets[budget_index(&p, "cpu")].limit = SLC_PROFILE_SIZE_MAX * 2; /* the cpu arena alone over 1 TiB */
    tool_session s;
    const char *said;
    assert_int_equal(open_said(&p, &s, &said), TOOL_SESSION_LAYOUT);
    assert_string_equal(said, "test: big.profile: the profile needs more memory than this machine can address\n");
    assert_int_equal(s.file_open, 1);
    assert_null(s.block.base); /* refused before mapping */
    close_refused(&s, TOOL_SESSION_LAYOUT, SLC_E_INVALID);

    /* Without a profile path the tool says why: the session prints nothing. */
    const tool_session_desc d = {.me = "test", .profile = &p, .pack_path = SLUICE_SOURCE_DIR "/README.md"};
    capture_begin();
    assert_int_equal(tool_session_open(&d, &s), TOOL_SESSION_LAYOUT);
    assert_string_equal(capture_end(), "");
    tool_session_close(&s);

    p = default_profile();
    p.max_phases = 0; /* an inconsistent profile is refused by the same step */
    assert_int_equal(open_said(&p, &s, &said), TOOL_SESSION_LAYOUT);
    close_refused(&s, TOOL_SESSION_LAYOUT, SLC_E_INVALID);
}

/* slc_platform_query_memory_limits, wrapped (tests/CMakeLists.txt): with
 * fake_limits set, the machine that answers is *fake_limits. */
static const slc_platform_memory_limits *fake_limits;
void __real_slc_platform_query_memory_limits(slc_platform_memory_limits *out);
void __wrap_slc_platform_query_memory_limits(slc_platform_memory_limits *out);
void __wrap_slc_platform_query_memory_limits(slc_platform_memory_limits *out)
{
    if (fake_limits != NULL) {
        *out = *fake_limits;
    } else {
        __real_slc_platform_query_memory_limits(out);
    }
}

/* Opens the default profile (a block of 52 MiB and a little: 50 MiB of cpu
 * arenas and the budgets' headers) on a machine with lim. */
static tool_session_step open_on(const slc_platform_memory_limits *lim, tool_session *s, const char **said)
{
    slc_profile p = default_profile();
    fake_limits = lim;
    tool_session_step step = open_said(&p, s, said);
    fake_limits = NULL;
    return step;
}

static void test_a_block_past_this_machine_is_the_machine_step(void **state)
{
    (void)state;
    const slc_platform_memory_limits small = {.physical = (uint64_t)48 << 20, .address_space_limit = UINT64_MAX};
    tool_session s;
    const char *said;
    assert_int_equal(open_on(&small, &s, &said), TOOL_SESSION_MACHINE);
    assert_string_equal(said, "test: profile 'default': memory block of 50.0 MiB (the cpu budgets' arenas) exceeds "
                              "this machine's physical memory of 48 MiB\n");
    assert_null(s.block.base); /* refused before mapping */
    assert_null(s.mem);
    close_refused(&s, TOOL_SESSION_MACHINE, SLC_E_CAPACITY);

    /* The same step for what the address-space limit leaves this process. */
    const slc_platform_memory_limits limited = {.physical = (uint64_t)1 << 40,
                                                .address_space_limit = (uint64_t)64 << 20,
                                                .address_space_used = (uint64_t)16 << 20};
    assert_int_equal(open_on(&limited, &s, &said), TOOL_SESSION_MACHINE);
    assert_string_equal(said, "test: profile 'default': memory block of 50.0 MiB (the cpu budgets' arenas) exceeds "
                              "the 48 MiB that the address-space limit (RLIMIT_AS, ulimit -v) of 64 MiB leaves this "
                              "process (16 MiB in use)\n");
    assert_null(s.block.base);
    tool_session_close(&s);

    /* A machine large enough: the block is mapped and the session opens to
     * the pack (README.md is not one). */
    const slc_platform_memory_limits large = {.physical = (uint64_t)1 << 40, .address_space_limit = UINT64_MAX};
    assert_int_equal(open_on(&large, &s, &said), TOOL_SESSION_PACK);
    assert_non_null(s.block.base);
    tool_session_close(&s);
}

/* slc_platform_block_map, wrapped (tests/CMakeLists.txt): armed, it asks the
 * kernel for a block no address space holds, so the real call fails and logs. */
static int refuse_block;
static size_t asked_block;
slc_status __real_slc_platform_block_map(size_t size, unsigned flags, const slc_logger *log, slc_platform_block *out);
slc_status __wrap_slc_platform_block_map(size_t size, unsigned flags, const slc_logger *log, slc_platform_block *out);
slc_status __wrap_slc_platform_block_map(size_t size, unsigned flags, const slc_logger *log, slc_platform_block *out)
{
    asked_block = size;
    return __real_slc_platform_block_map(refuse_block ? SIZE_MAX & ~(size_t)0xfffff : size, flags, log, out);
}

static void test_a_block_the_kernel_refuses_is_the_block_step(void **state)
{
    (void)state;
    slc_profile p = default_profile();
    slc_memory_requirements req;
    assert_int_equal(slc_memory_calculate_requirements(&p, &req), SLC_OK);
    tool_session s;
    const char *said;
    refuse_block = 1;
    tool_session_step step = open_said(&p, &s, &said);
    refuse_block = 0;
    assert_int_equal(step, TOOL_SESSION_BLOCK);
    assert_int_equal(asked_block, req.block_size); /* the profile's block, after the machine check */
    char want[96];
    snprintf(want, sizeof want, "platform: mmap of %zu bytes failed: ", SIZE_MAX & ~(size_t)0xfffff);
    assert_non_null(strstr(said, want));
    assert_null(s.block.base);
    assert_null(s.mem);
    close_refused(&s, TOOL_SESSION_BLOCK, SLC_E_PLATFORM);
}

/* open_said with the default profile's budget from renamed to to. */
static tool_session_step open_renamed(const char *from, const char *to, tool_session *s, const char **said)
{
    slc_profile p = default_profile();
    char *name = p.budgets[budget_index(&p, from)].name;
    assert_true(strlen(to) < sizeof p.budgets[0].name);
    strcpy(name, to);
    return open_said(&p, s, said);
}

static void test_a_profile_the_memory_refuses_is_the_memory_step(void **state)
{
    (void)state;
    tool_session s;
    const char *said;
    /* laid out (sizes only) but refused by the budgets it declares */
    assert_int_equal(open_renamed("cpu/decode", "cpu/meta", &s, &said), TOOL_SESSION_MEMORY);
    assert_non_null(strstr(said, "budgets: budget 'cpu/meta' is declared twice"));
    assert_non_null(s.block.base);
    assert_null(s.mem);
    close_refused(&s, TOOL_SESSION_MEMORY, SLC_E_INVALID);
}

static void test_a_profile_without_cpu_meta_is_the_meta_step(void **state)
{
    (void)state;
    tool_session s;
    const char *said;
    assert_int_equal(open_renamed("cpu/meta", "cpu/tables", &s, &said), TOOL_SESSION_META);
    assert_string_equal(said, "test: profile 'default' has no cpu/meta arena for the pack's tables\n");
    assert_non_null(s.mem);
    assert_null(s.pack);
    close_refused(&s, TOOL_SESSION_META, SLC_E_NOT_FOUND);
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
    assert_int_equal(tool_session_exit_code(TOOL_SESSION_OPEN), CLI_OK);
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
        cmocka_unit_test(test_a_profile_past_the_address_space_is_the_layout_step),
        cmocka_unit_test(test_a_block_past_this_machine_is_the_machine_step),
        cmocka_unit_test(test_a_block_the_kernel_refuses_is_the_block_step),
        cmocka_unit_test(test_a_profile_the_memory_refuses_is_the_memory_step),
        cmocka_unit_test(test_a_profile_without_cpu_meta_is_the_meta_step),
        cmocka_unit_test(test_a_stream_and_its_store_close_with_the_session),
        cmocka_unit_test(test_a_refused_stream_still_closes_the_store),
        cmocka_unit_test(test_a_store_closes_from_a_failed_open),
        cmocka_unit_test(test_an_open_session_without_a_store_closes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
