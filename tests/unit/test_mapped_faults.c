/* SPDX-License-Identifier: MIT */
/* A mapped pack whose file shrinks under the reader: a generated pack
 * written to a temporary file, opened with slc_platform_file_open (mapped),
 * streamed on the host backend inline and with 2 workers, and cut
 * (ftruncate) between two frames. The chunks whose bytes are gone fail
 * their loads with SLC_E_IO and a message naming the pack and the chunk
 * (the SIGBUS of the mapping becomes a status through io.guard); the chunks
 * before the cut load and hold their bytes; the process lives; nothing is
 * published for a failed load; slc_stream_check holds; and once the file is
 * whole again the failed chunks load on their retry. A SIGBUS that is not
 * the guarded reader's (outside the mapping the guard names, or with no
 * guard armed) still kills the process (forked children, WTERMSIG). */
#define _GNU_SOURCE 1 /* ftruncate, pwrite, mkstemp */
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "stream_file_fixture.h"

/* A sanitizer installs its own SIGBUS handler before main: a SIGBUS that is
 * not the reader's is chained to it, and it reports and exits instead of
 * dying of the signal. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZER_OWNS_SIGBUS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SANITIZER_OWNS_SIGBUS 1
#endif
#endif
#ifndef SANITIZER_OWNS_SIGBUS
#define SANITIZER_OWNS_SIGBUS 0
#endif

/* 16 objects of 4 + 2 + 1 chunks: object o's chunks are 7o..7o+6, its
 * coarsest (pinned) 7o + 6, offsets rising with the chunk id. */
static const sp_params pack_params = {4096, 16, 3, {4, 2, 1}, 99};

static void fx_open(sff_fixture *f, const disk *d, uint32_t workers)
{
    const sff_desc desc = {
        .name = "mapped-faults",
        .pack_name = "map.pack",
        .pages = 120,
        .upload_kib = 64,
        .workers = workers,
        .access = SFF_MAPPED,
    };
    sff_open(f, d, &desc); /* pins load here, from the whole file */
}

static int pinned(uint32_t chunk)
{
    return chunk % 7u == 6u;
}

/* One frame asking for the chunks [first, end) that are not pinned. */
static void frame(sff_fixture *f, uint32_t first, uint32_t end)
{
    assert_int_equal(slc_stream_begin_frame(f->s, NULL), SLC_OK);
    for (uint32_t c = first; c < end; c++) {
        if (!pinned(c)) {
            assert_int_equal(slc_stream_request_chunk(f->s, (slc_chunk_id){c}, 10, (slc_partition){0}), SLC_OK);
        }
    }
    assert_int_equal(slc_stream_end_frame(f->s), SLC_OK);
    assert_true(slc_stream_check(f->s));
}

static void assert_holds(sff_fixture *f, const disk *d, uint32_t chunk)
{
    slc_page_info info;
    if (slc_stream_get_chunk_page(f->s, (slc_chunk_id){chunk}, &info) != SLC_OK) {
        slc_stream_chunk_info ci;
        slc_stream_get_chunk(f->s, (slc_chunk_id){chunk}, &ci);
        fail_msg("chunk %u is not visible (state %d, %s)", chunk, (int)ci.state, slc_status_name(ci.status));
    }
    sp_assert_page_holds(&d->pack, info.location.host, chunk);
}

/* Streams the first chunks, cuts the file at a page boundary in the middle,
 * streams the rest (the chunks past the cut fail), restores the file and
 * streams until every failed chunk has loaded on its retry. */
static void truncation_run(disk *d, uint32_t workers)
{
    sff_fixture f;
    fx_open(&f, d, workers);
    const uint32_t n = d->pack.chunk_count;
    long ps = sysconf(_SC_PAGESIZE);
    assert_true(ps > 0);
    /* a page boundary at or before chunk n/2: every byte past it is gone */
    uint64_t cut = slc_pack_get_chunk(f.pk, (slc_chunk_id){n / 2u})->offset / (uint64_t)ps * (uint64_t)ps;
    assert_true(cut > slc_pack_get_chunk(f.pk, (slc_chunk_id){8})->offset +
                          slc_pack_get_chunk(f.pk, (slc_chunk_id){8})->stored_size);

    /* before the cut: the first 8 chunks */
    frame(&f, 0, 8);
    frame(&f, 0, 8);
    for (uint32_t c = 0; c < 8; c++) {
        assert_holds(&f, d, c);
    }
    assert_int_equal(ftruncate(d->fd, (off_t)cut), 0);
    /* the rest, 8 chunk ids a frame, each asked for once */
    for (uint32_t c = 8; c < n; c += 8u) {
        frame(&f, c, c + 8u < n ? c + 8u : n);
    }
    frame(&f, 0, 0); /* applies the last frame's loads */
    uint32_t gone = 0, loaded = 0;
    for (uint32_t c = 8; c < n; c++) {
        if (pinned(c)) {
            assert_holds(&f, d, c); /* loaded at create, from the whole file */
            continue;
        }
        slc_stream_chunk_info ci;
        slc_stream_get_chunk(f.s, (slc_chunk_id){c}, &ci);
        const slc_pack_chunk *rec = slc_pack_get_chunk(f.pk, (slc_chunk_id){c});
        if (rec->offset + rec->stored_size > cut) {
            if (ci.state != SLC_STREAM_CHUNK_FAILED || ci.status != SLC_E_IO || ci.attempts != 1) {
                fail_msg("%u workers: chunk %u past the cut: state %d, %s, %u attempts", workers, c, (int)ci.state,
                         slc_status_name(ci.status), ci.attempts);
            }
            slc_page_info info;
            assert_int_equal(slc_stream_get_chunk_page(f.s, (slc_chunk_id){c}, &info),
                             SLC_E_NOT_FOUND); /* nothing published */
            gone++;
        } else {
            assert_holds(&f, d, c);
            loaded++;
        }
    }
    assert_true(gone >= 10u && loaded >= 10u);
    slc_stream_stats st;
    slc_stream_get_stats(f.s, &st);
    assert_int_equal(st.failures, gone);
    assert_int_equal(st.failure_records, SLC_STREAM_FAILURE_RECORDS);
    assert_int_equal(st.first_failures[0].status, SLC_E_IO);
    assert_int_equal(st.bytes_decoded, st.bytes_uploaded);
    pthread_mutex_lock(&f.pack_log.mu);
    assert_int_equal(f.pack_log.status, SLC_E_IO);
    const char *want = "pack 'map.pack': chunk ";
    if (strncmp(f.pack_log.message, want, strlen(want)) != 0 ||
        strstr(f.pack_log.message, "mapped bytes at offset") == NULL ||
        strstr(f.pack_log.message, "the file shrank under the mapping") == NULL) {
        fail_msg("message '%s'", f.pack_log.message);
    }
    pthread_mutex_unlock(&f.pack_log.mu);

    /* The stream goes on: whole again, every failed chunk loads on its
     * retry (16 loads a frame). */
    disk_restore(d);
    for (uint32_t t = 0; t < 2u + gone / 16u + 1u; t++) {
        frame(&f, 8, n);
    }
    for (uint32_t c = 0; c < n; c++) {
        assert_holds(&f, d, c);
    }
    printf("%u workers: cut at %" PRIu64 " of %zu bytes: %u chunk loads failed with SLC_E_IO, %u loaded\n", workers,
           cut, d->pack.size, gone, loaded);
    sff_close(&f);
}

/* --- the faults no guard owns ----------------------------------------------------- */

typedef struct touch {
    const volatile unsigned char *at;
} touch;

static slc_status touch_fn(void *ctx)
{
    const touch *t = ctx;
    return t->at[0] == 0x5Au ? SLC_E_INVALID : SLC_OK;
}

/* What a child returns: its own check passed, its setup failed, or it lived
 * through a fault that should have killed it. (A sanitizer that ends a
 * child exits 1, or 66 for TSan.) */
enum { CHILD_OK = 0, CHILD_SETUP = 2, CHILD_SURVIVED = 3, CHILD_NO_FAULT = 4 };

/* The reader's own SIGBUS, in a child: CHILD_OK when the guard turned it
 * into SLC_E_IO. */
static int child_guarded_fault(const disk *d)
{
    slc_platform_file file;
    if (slc_platform_file_open(d->path, SLC_PLATFORM_FILE_DEFAULT, NULL, &file) != SLC_OK || file.map == NULL ||
        file.io.guard == NULL || ftruncate(d->fd, 0) != 0) {
        return CHILD_SETUP;
    }
    touch t = {(const unsigned char *)file.map + d->pack.size - 1u};
    return file.io.guard(file.io.user, touch_fn, &t) == SLC_E_IO ? CHILD_OK : CHILD_NO_FAULT;
}

/* A SIGBUS outside the mapping the guard names, with the guard armed. */
static int child_fault_elsewhere(const disk *d)
{
    slc_platform_file file;
    if (slc_platform_file_open(d->path, SLC_PLATFORM_FILE_DEFAULT, NULL, &file) != SLC_OK || file.io.guard == NULL) {
        return CHILD_SETUP;
    }
    /* another file, mapped and emptied */
    char path[sizeof d->path + 8];
    snprintf(path, sizeof path, "%s.other", d->path);
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    long ps = sysconf(_SC_PAGESIZE);
    if (fd < 0 || ftruncate(fd, 2 * ps) != 0) {
        return CHILD_SETUP;
    }
    unsigned char *m = mmap(NULL, (size_t)(2 * ps), PROT_READ, MAP_SHARED, fd, 0);
    unlink(path);
    if (m == MAP_FAILED || ftruncate(fd, 0) != 0) {
        return CHILD_SETUP;
    }
    touch t = {m + ps};
    (void)file.io.guard(file.io.user, touch_fn, &t);
    return CHILD_SURVIVED;
}

/* The pack's own mapping, touched with no guard armed. */
static int child_fault_unguarded(const disk *d)
{
    slc_platform_file file;
    if (slc_platform_file_open(d->path, SLC_PLATFORM_FILE_DEFAULT, NULL, &file) != SLC_OK || file.map == NULL ||
        ftruncate(d->fd, 0) != 0) {
        return CHILD_SETUP;
    }
    touch t = {(const unsigned char *)file.map + d->pack.size - 1u};
    (void)touch_fn(&t);
    return CHILD_SURVIVED;
}

/* Runs fn in a forked child; the child's wait status. The child is not a
 * cmocka test: its SIGBUS starts at the default action, as in a process
 * without a test harness, so the handler the platform installs there (at
 * the child's first mapped open) chains to the default. That is why the
 * parent must not have opened a mapped file yet (the installation is once
 * per process, and a child inherits it): checked here. */
static int in_child(disk *d, int (*fn)(const disk *))
{
    struct sigaction now;
    assert_int_equal(sigaction(SIGBUS, NULL, &now), 0);
    if ((now.sa_flags & SA_SIGINFO) != 0) {
        fail_msg("the platform's SIGBUS handler is already installed here: run these tests first");
    }
    fflush(stdout);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        (void)signal(SIGBUS, SIG_DFL); /* not cmocka's */
        _exit(fn(d));
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    disk_restore(d);
    return status;
}

static bool emulated(void)
{
#ifdef SLUICE_TEST_EMULATED
    return true;
#else
    return false;
#endif
}

/* Under qemu-user a truncated mapping's SIGBUS may not reach the guest as
 * one with the faulting address: probe it in a child and say so. Natively
 * the probe must succeed. */
static bool sigbus_recoverable(disk *d)
{
    int status = in_child(d, child_guarded_fault);
    bool ok = WIFEXITED(status) && WEXITSTATUS(status) == CHILD_OK;
    if (!ok && emulated()) {
        printf("SKIP: under emulation the truncated mapping's SIGBUS was not recoverable (child status 0x%x): "
               "the emulator does not deliver it with its address\n",
               (unsigned)status);
        return false;
    }
    if (!ok) {
        fail_msg("the guarded read of a truncated mapping did not fail with SLC_E_IO (child status 0x%x)",
                 (unsigned)status);
    }
    return true;
}

static void expect_killed_by_sigbus(int status, const char *what)
{
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGBUS) {
        return;
    }
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (SANITIZER_OWNS_SIGBUS && code > 0 && code != CHILD_SETUP && code != CHILD_SURVIVED) {
        printf("%s: the sanitizer's own SIGBUS handler ended the child (exit %d)\n", what, code);
        return;
    }
    fail_msg("%s: the child was not killed by SIGBUS (status 0x%x)", what, (unsigned)status);
}

static void test_sigbus_not_the_readers_still_kills(void **state)
{
    (void)state;
    disk d;
    disk_create(&d, &pack_params, "map");
    if (sigbus_recoverable(&d)) {
        expect_killed_by_sigbus(in_child(&d, child_fault_elsewhere), "outside the guarded mapping");
        expect_killed_by_sigbus(in_child(&d, child_fault_unguarded), "inside the mapping, no guard armed");
    }
    disk_remove(&d);
}

static void test_truncated_mapping_fails_the_loads_past_the_cut(void **state)
{
    (void)state;
    disk d;
    disk_create(&d, &pack_params, "map");
    if (sigbus_recoverable(&d)) {
        truncation_run(&d, 0);
        disk_restore(&d);
        truncation_run(&d, 2);
    }
    disk_remove(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sigbus_not_the_readers_still_kills),
        cmocka_unit_test(test_truncated_mapping_fails_the_loads_past_the_cut),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
