/* SPDX-License-Identifier: MIT */
/* What every tool shares (tools/common): files written through a temporary
 * and a rename (atomic_file), and the JSON and XML escaping of every string
 * in machine-readable output (escape). */
#define _POSIX_C_SOURCE 200809L
#define _FILE_OFFSET_BITS 64 /* 32-bit readdir fails (EOVERFLOW) on 64-bit inode numbers without it */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "atomic_file.h"
#include "escape.h"

/* --- a scratch directory of its own per test ----------------------------- */

static char dir[128];

static int setup_dir(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/test_tool_common_%ld", (long)getpid());
    mkdir(dir, 0777);
    return 0;
}

static const char *in_dir(const char *name)
{
    static char buf[4][512];
    static int next;
    char *b = buf[next++ & 3];
    snprintf(b, sizeof buf[0], "%s/%s", dir, name);
    return b;
}

/* Files in the directory whose name starts with '.' (the temporaries). */
static int count_temporaries(void)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    errno = 0;
    while ((e = readdir(d)) != NULL) {
        n += e->d_name[0] == '.' && strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    }
    assert_int_equal(errno, 0); /* the end of the directory, not a failed read */
    closedir(d);
    return n;
}

static int teardown_dir(void **state)
{
    (void)state;
    DIR *d = opendir(dir);
    if (d != NULL) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
                unlink(in_dir(e->d_name));
            }
        }
        closedir(d);
    }
    rmdir(dir);
    return 0;
}

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fputs(text, f) >= 0, 1);
    assert_int_equal(fclose(f), 0);
}

/* The whole file as a string (at most 255 bytes). */
static const char *get(const char *path)
{
    static char buf[256];
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        return "(missing)";
    }
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

/* --- atomic_file ---------------------------------------------------------- */

static void test_commit_replaces_the_target(void **state)
{
    (void)state;
    const char *t = in_dir("out.txt");
    put(t, "old");
    atomic_file a;
    char err[512];
    assert_int_equal(atomic_file_open(&a, t, err, sizeof err), 0);
    assert_non_null(a.tmp);
    assert_int_equal(count_temporaries(), 1);
    fputs("new contents", a.f);
    assert_string_equal(get(t), "old"); /* nothing visible before the commit */
    assert_int_equal(atomic_file_commit(&a, err, sizeof err), 0);
    assert_string_equal(get(t), "new contents");
    assert_int_equal(count_temporaries(), 0);
    assert_null(a.f);
    assert_int_equal(a.fd, -1);
}

static void test_commit_creates_a_missing_target_with_the_umask_mode(void **state)
{
    (void)state;
    const char *t = in_dir("fresh.txt");
    mode_t old_mask = umask(027);
    atomic_file a;
    char err[512];
    assert_int_equal(atomic_file_open(&a, t, err, sizeof err), 0);
    assert_int_equal(access(t, F_OK), -1); /* only the temporary exists */
    fputs("x", a.f);
    assert_int_equal(atomic_file_commit(&a, err, sizeof err), 0);
    umask(old_mask);
    struct stat st;
    assert_int_equal(stat(t, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0640);
    assert_string_equal(get(t), "x");
}

static void test_commit_keeps_the_mode_of_the_target(void **state)
{
    (void)state;
    const char *t = in_dir("mode.txt");
    put(t, "old");
    assert_int_equal(chmod(t, 0604), 0);
    atomic_file a;
    char err[512];
    assert_int_equal(atomic_file_open(&a, t, err, sizeof err), 0);
    fputs("new", a.f);
    assert_int_equal(atomic_file_commit(&a, err, sizeof err), 0);
    struct stat st;
    assert_int_equal(stat(t, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0604);
}

static void test_abort_keeps_the_target_and_removes_the_temporary(void **state)
{
    (void)state;
    const char *t = in_dir("kept.txt");
    put(t, "old");
    atomic_file a;
    char err[512];
    assert_int_equal(atomic_file_open(&a, t, err, sizeof err), 0);
    fputs("half", a.f);
    atomic_file_abort(&a);
    assert_string_equal(get(t), "old");
    assert_int_equal(count_temporaries(), 0);
    atomic_file_abort(&a); /* already closed: nothing happens */
    atomic_file_abort(NULL);
    /* A target that did not exist is not created. */
    const char *n = in_dir("never.txt");
    assert_int_equal(atomic_file_open(&a, n, err, sizeof err), 0);
    atomic_file_abort(&a);
    assert_int_equal(access(n, F_OK), -1);
    assert_int_equal(count_temporaries(), 0);
}

static void test_abort_of_a_zeroed_struct_closes_nothing(void **state)
{
    (void)state;
    /* fd 0 open on something, so closing it would show. */
    int saved = dup(0);
    int fd = open("/dev/null", O_RDONLY);
    assert_true(fd >= 0);
    assert_int_equal(dup2(fd, 0), 0);
    atomic_file a;
    memset(&a, 0, sizeof a);
    atomic_file_abort(&a);
    assert_true(fcntl(0, F_GETFD) != -1);
    close(fd);
    if (saved >= 0) {
        dup2(saved, 0);
        close(saved);
    }
}

static void test_failed_write_keeps_the_target(void **state)
{
    (void)state;
    const char *t = in_dir("full.txt");
    put(t, "old");
    /* A file size limit makes the flush fail with EFBIG, as a full disk
     * fails with ENOSPC; the soft limit is raised back afterwards. */
    struct rlimit saved, low;
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &saved), 0);
    low = saved;
    low.rlim_cur = 4096;
    struct sigaction ign, old_sa;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigemptyset(&ign.sa_mask);
    sigaction(SIGXFSZ, &ign, &old_sa);
    atomic_file a;
    char err[512];
    assert_int_equal(atomic_file_open(&a, t, err, sizeof err), 0);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &low), 0);
    static char big[16384];
    memset(big, 'y', sizeof big);
    fwrite(big, 1, sizeof big, a.f);
    int rc = atomic_file_commit(&a, err, sizeof err);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &saved), 0);
    sigaction(SIGXFSZ, &old_sa, NULL);
    assert_int_equal(rc, -1);
    char want[512];
    snprintf(want, sizeof want, "%s: cannot write: %s", t, strerror(EFBIG));
    assert_string_equal(err, want);
    assert_string_equal(get(t), "old");
    assert_int_equal(count_temporaries(), 0);
}

static void test_commit_that_cannot_rename_fails_and_removes_the_temporary(void **state)
{
    (void)state;
    const char *t = in_dir("became_a_dir");
    atomic_file a;
    char err[512], want[512];
    assert_int_equal(atomic_file_open(&a, t, err, sizeof err), 0);
    fputs("x", a.f);
    assert_int_equal(mkdir(t, 0700), 0); /* a file cannot be renamed over a directory */
    assert_int_equal(atomic_file_commit(&a, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s: cannot write: %s", t, strerror(EISDIR));
    assert_string_equal(err, want);
    assert_int_equal(count_temporaries(), 0);
    assert_int_equal(rmdir(t), 0);
    /* A commit of a closed a fails and says so. */
    assert_int_equal(atomic_file_commit(&a, err, sizeof err), -1);
    snprintf(want, sizeof want, "(closed): cannot write: %s", strerror(EBADF));
    assert_string_equal(err, want);
}

static void test_open_fails_with_a_message_and_creates_nothing(void **state)
{
    (void)state;
    atomic_file a;
    char err[512], want[512];
    assert_int_equal(atomic_file_open(&a, dir, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s: cannot create: %s", dir, strerror(EISDIR));
    assert_string_equal(err, want);
    const char *t = in_dir("no-such-dir/x.json");
    assert_int_equal(atomic_file_open(&a, t, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s: cannot create temporary '%s/no-such-dir/.x.json.XXXXXX': %s", t, dir,
             strerror(ENOENT));
    assert_string_equal(err, want);
    assert_null(a.f);
    assert_null(a.tmp);
    assert_int_equal(count_temporaries(), 0);
}

static void test_symlink_target_is_replaced_and_the_link_kept(void **state)
{
    (void)state;
    const char *t = in_dir("real.txt"), *l = in_dir("link.txt");
    put(t, "old");
    assert_int_equal(symlink(t, l), 0);
    atomic_file a;
    char err[512];
    assert_int_equal(atomic_file_open(&a, l, err, sizeof err), 0);
    fputs("through the link", a.f);
    assert_int_equal(atomic_file_commit(&a, err, sizeof err), 0);
    struct stat st;
    assert_int_equal(lstat(l, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    assert_string_equal(get(t), "through the link");
    assert_string_equal(get(l), "through the link");
    assert_int_equal(count_temporaries(), 0);
}

static void test_non_regular_target_is_written_in_place(void **state)
{
    (void)state;
    atomic_file a;
    char err[512];
    assert_int_equal(atomic_file_open(&a, "/dev/null", err, sizeof err), 0);
    assert_null(a.tmp); /* nothing to rename over */
    fputs("discarded", a.f);
    assert_int_equal(atomic_file_commit(&a, err, sizeof err), 0);
    struct stat st;
    assert_int_equal(stat("/dev/null", &st), 0);
    assert_true(S_ISCHR(st.st_mode));
    /* A FIFO: the reader sees the bytes, no file appears beside it. */
    const char *fifo = in_dir("fifo");
    assert_int_equal(mkfifo(fifo, 0600), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        FILE *r = fopen(fifo, "rb");
        char buf[16] = {0};
        size_t n = r != NULL ? fread(buf, 1, sizeof buf - 1, r) : 0;
        _exit(n == 4 && memcmp(buf, "pipe", 4) == 0 ? 0 : 1);
    }
    assert_int_equal(atomic_file_open(&a, fifo, err, sizeof err), 0);
    assert_null(a.tmp);
    fputs("pipe", a.f);
    assert_int_equal(atomic_file_commit(&a, err, sizeof err), 0);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_int_equal(count_temporaries(), 0);
}

/* A child opens a temporary over target, writes, then ends as how says. */
static void child_ends(const char *target, int how)
{
    atomic_file a;
    char err[512];
    if (atomic_file_open(&a, target, err, sizeof err) != 0) {
        _exit(90);
    }
    fputs("never seen", a.f);
    fflush(a.f);
    if (how == 0) {
        exit(0); /* exit without commit: atexit removes the temporary */
    }
    raise(how);
    _exit(91);
}

static void test_signal_or_exit_removes_the_temporary(void **state)
{
    (void)state;
    const char *t = in_dir("signalled.txt");
    put(t, "old");
    const int hows[] = {0, SIGINT, SIGTERM, SIGHUP, SIGPIPE};
    for (size_t i = 0; i < sizeof hows / sizeof hows[0]; i++) {
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            child_ends(t, hows[i]);
        }
        int status = 0;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        if (hows[i] == 0) {
            assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        } else {
            /* The handler removes the temporary, then dies by the signal. */
            assert_true(WIFSIGNALED(status));
            assert_int_equal(WTERMSIG(status), hows[i]);
        }
        assert_string_equal(get(t), "old");
        assert_int_equal(count_temporaries(), 0);
    }
}

static void test_same_and_find_input_compare_device_and_inode(void **state)
{
    (void)state;
    const char *a = in_dir("a.bin"), *b = in_dir("b.bin"), *h = in_dir("hard.bin");
    put(a, "a");
    put(b, "a");
    assert_int_equal(link(a, h), 0);
    assert_int_equal(atomic_file_same(a, a), 1);
    assert_int_equal(atomic_file_same(h, a), 1);
    assert_int_equal(atomic_file_same(a, b), 0); /* same bytes, other file */
    assert_int_equal(atomic_file_same(in_dir("none"), a), 0);
    assert_int_equal(atomic_file_same(NULL, a), 0);
    char dotted[300];
    snprintf(dotted, sizeof dotted, "%s/./a.bin", dir);
    const char *inputs[] = {b, NULL, dotted};
    assert_int_equal(atomic_file_find_input(h, inputs, 3), 2);
    assert_int_equal(atomic_file_find_input(b, inputs, 1), 0);
    assert_int_equal(atomic_file_find_input(in_dir("none"), inputs, 3), -1);
    assert_int_equal(atomic_file_find_input(a, inputs, 2), -1);
}

/* --- escape --------------------------------------------------------------- */

typedef void (*esc_fn)(FILE *, const char *);

static const char *escaped(esc_fn fn, const char *s)
{
    static char buf[512];
    FILE *f = tmpfile();
    assert_non_null(f);
    fn(f, s);
    rewind(f);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

static void test_json_escapes_quotes_backslashes_and_controls(void **state)
{
    (void)state;
    assert_string_equal(escaped(esc_json, NULL), "null");
    assert_string_equal(escaped(esc_json, ""), "\"\"");
    assert_string_equal(escaped(esc_json, "plain.pack"), "\"plain.pack\"");
    assert_string_equal(escaped(esc_json, "a\"b\\c"), "\"a\\\"b\\\\c\"");
    assert_string_equal(escaped(esc_json, "\b\f\n\r\t"), "\"\\b\\f\\n\\r\\t\"");
    assert_string_equal(escaped(esc_json, "\x01\x1f\x7f"), "\"\\u0001\\u001f\\u007f\"");
    /* Markup characters need nothing in JSON. */
    assert_string_equal(escaped(esc_json, "<&>'/"), "\"<&>'/\"");
}

static void test_json_keeps_valid_utf8_and_replaces_invalid_bytes(void **state)
{
    (void)state;
    /* Valid sequences of 2, 3 and 4 bytes, up to U+10FFFF, are kept. */
    assert_string_equal(escaped(esc_json, "\xC3\xA9\xE2\x82\xAC\xF0\x9D\x84\x9E\xF4\x8F\xBF\xBF"),
                        "\"\xC3\xA9\xE2\x82\xAC\xF0\x9D\x84\x9E\xF4\x8F\xBF\xBF\"");
    assert_string_equal(escaped(esc_json, "\xEF\xBF\xBD\xED\x9F\xBF"), "\"\xEF\xBF\xBD\xED\x9F\xBF\"");
    /* Every byte that is not part of a well-formed sequence is one U+FFFD. */
    static const struct {
        const char *in, *out;
    } bad[] = {
        {"\xC0\xAF", "\"\\ufffd\\ufffd\""},                       /* overlong '/' */
        {"\xC1\xBF", "\"\\ufffd\\ufffd\""},                       /* overlong */
        {"\xE0\x80\xAF", "\"\\ufffd\\ufffd\\ufffd\""},            /* overlong, 3 bytes */
        {"\xF0\x80\x80\xAF", "\"\\ufffd\\ufffd\\ufffd\\ufffd\""}, /* overlong, 4 bytes */
        {"\xED\xA0\x80", "\"\\ufffd\\ufffd\\ufffd\""},            /* surrogate U+D800 */
        {"\xED\xBF\xBF", "\"\\ufffd\\ufffd\\ufffd\""},            /* surrogate U+DFFF */
        {"a\xE2\x82", "\"a\\ufffd\\ufffd\""},                     /* truncated at the end */
        {"\xE2\x82z", "\"\\ufffd\\ufffdz\""},                     /* truncated mid-string */
        {"\xF0\x9D\x84", "\"\\ufffd\\ufffd\\ufffd\""},            /* truncated 4-byte */
        {"\xF4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\""}, /* U+110000 */
        {"\xF5\x80\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\""}, /* no such lead byte */
        {"\xFF\xFE", "\"\\ufffd\\ufffd\""},
        {"\x80x", "\"\\ufffdx\""}, /* a lone continuation byte */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_string_equal(escaped(esc_json, bad[i].in), bad[i].out);
    }
}

static void test_xml_escapes_markup_controls_and_invalid_utf8(void **state)
{
    (void)state;
    assert_string_equal(escaped(esc_xml, NULL), "");
    assert_string_equal(escaped(esc_xml, "a&b<c>d\"e'f"), "a&amp;b&lt;c&gt;d&quot;e&apos;f");
    assert_string_equal(escaped(esc_xml, "\t\n\r"), "&#9;&#10;&#13;");
    /* Control characters XML 1.0 does not allow, even as references. */
    assert_string_equal(escaped(esc_xml, "\x01\x1f\x7f"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
    assert_string_equal(escaped(esc_xml, "\\ \xC3\xA9\xF0\x9D\x84\x9E"), "\\ \xC3\xA9\xF0\x9D\x84\x9E");
    assert_string_equal(escaped(esc_xml, "\xC0\xAF\xED\xA0\x80\xF4\x90\x80\x80"),
                        "\xEF\xBF\xBD\xEF\xBF\xBD"
                        "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"
                        "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
    assert_string_equal(escaped(esc_xml, "x\xE2\x82"), "x\xEF\xBF\xBD\xEF\xBF\xBD");
}

static void test_utf8_len_of_each_sequence_class(void **state)
{
    (void)state;
    assert_int_equal(esc_utf8_len((const unsigned char *)"a"), 1);
    assert_int_equal(esc_utf8_len((const unsigned char *)"\xC2\x80"), 2);
    assert_int_equal(esc_utf8_len((const unsigned char *)"\xE0\xA0\x80"), 3);
    assert_int_equal(esc_utf8_len((const unsigned char *)"\xF0\x90\x80\x80"), 4);
    assert_int_equal(esc_utf8_len((const unsigned char *)"\xC1\x80"), 0);
    assert_int_equal(esc_utf8_len((const unsigned char *)"\xE0\x9F\x80"), 0);
    assert_int_equal(esc_utf8_len((const unsigned char *)"\xED\xA0\x80"), 0);
    assert_int_equal(esc_utf8_len((const unsigned char *)"\xF4\x90\x80\x80"), 0);
    assert_int_equal(esc_utf8_len((const unsigned char *)"\xE2\x82"), 0); /* stops at the NUL */
}

int main(void)
{
    /* atomic_file keeps a signal the process ignores ignored: start from the
     * defaults, whatever the test runner left. */
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        signal(sigs[i], SIG_DFL);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_commit_replaces_the_target, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_commit_creates_a_missing_target_with_the_umask_mode, setup_dir,
                                        teardown_dir),
        cmocka_unit_test_setup_teardown(test_commit_keeps_the_mode_of_the_target, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_abort_keeps_the_target_and_removes_the_temporary, setup_dir, teardown_dir),
        cmocka_unit_test(test_abort_of_a_zeroed_struct_closes_nothing),
        cmocka_unit_test_setup_teardown(test_failed_write_keeps_the_target, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_commit_that_cannot_rename_fails_and_removes_the_temporary, setup_dir,
                                        teardown_dir),
        cmocka_unit_test_setup_teardown(test_open_fails_with_a_message_and_creates_nothing, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_symlink_target_is_replaced_and_the_link_kept, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_non_regular_target_is_written_in_place, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_signal_or_exit_removes_the_temporary, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_same_and_find_input_compare_device_and_inode, setup_dir, teardown_dir),
        cmocka_unit_test(test_json_escapes_quotes_backslashes_and_controls),
        cmocka_unit_test(test_json_keeps_valid_utf8_and_replaces_invalid_bytes),
        cmocka_unit_test(test_xml_escapes_markup_controls_and_invalid_utf8),
        cmocka_unit_test(test_utf8_len_of_each_sequence_class),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
