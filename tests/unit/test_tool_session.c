/* The streaming tools' shared start-up (tools/session.c): each step that
 * fails is named, with its status, and tool_session_close undoes any state
 * tool_session_open left; a pack the tool already holds (an io) opens
 * without a file; tool_session_stream_desc takes the session's memory and
 * pack. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cli.h"
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_missing_file_is_the_file_step),
        cmocka_unit_test(test_not_a_pack_is_the_pack_step),
        cmocka_unit_test(test_a_pack_in_memory_opens),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
