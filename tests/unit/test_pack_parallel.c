/* SPDX-License-Identifier: MIT */
/* The pack builder's pipeline (pk_build_options.jobs), bundles and partial
 * packs: every jobs gives the same bytes, with one bundle or many; an error
 * of mesh k is reported as mesh k's whatever is in flight; abort with meshes
 * in flight leaves no temporary and no thread; the parts of a pack merged
 * through the appender give the pack's bytes. */
#define _POSIX_C_SOURCE 200809L
#define _FILE_OFFSET_BITS 64
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <lz4.h>
#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

#include "builder.h"
#include "pack_writer.h"
#include "part.h"
#include "sluice/pack_format.h"
#include "synth.h"

static char path_buf[8][96];
static const char *temp_path(int slot)
{
    snprintf(path_buf[slot], sizeof path_buf[slot], "/tmp/test_pack_parallel_%ld_%d.pack", (long)getpid(), slot);
    return path_buf[slot];
}

static unsigned char *read_all(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *size = (size_t)n;
    return buf;
}

static void assert_same_file(const char *a, const char *b)
{
    size_t na, nb;
    unsigned char *fa = read_all(a, &na), *fb = read_all(b, &nb);
    assert_int_equal(na, nb);
    assert_memory_equal(fa, fb, na);
    free(fa);
    free(fb);
}

/* Entries of /tmp that start with this process's prefix: temporaries. */
static int temporaries_left(void)
{
    char prefix[64];
    snprintf(prefix, sizeof prefix, ".test_pack_parallel_%ld_", (long)getpid());
    DIR *dir = opendir("/tmp");
    assert_non_null(dir);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    }
    closedir(dir);
    return n;
}

/* Threads of this process (Linux: /proc/self/task); -1 where unknown. */
static int thread_count(void)
{
    DIR *dir = opendir("/proc/self/task");
    if (dir == NULL) {
        return -1;
    }
    int n = 0;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        n += e->d_name[0] != '.';
    }
    closedir(dir);
    return n;
}

/* The thread count once it has settled at want: a joined thread can still
 * be listed for a moment after pthread_join returns (its kernel task ends
 * after the join's wake-up; under qemu-user the host thread ends later
 * still). Polls for up to 10 s and returns the last count seen, so a thread
 * that is really left running still fails the test. */
static int thread_count_settled(int want)
{
    int n = thread_count();
    for (int i = 0; i < 10000 && n != want; i++) {
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
        n = thread_count();
    }
    return n;
}

/* The thread count once it has stopped changing (the same for 20 reads
 * 2 ms apart, within 10 s): the baseline a test compares with, so a thread
 * of an earlier test still being torn down (qemu-user ends host threads
 * late) is not counted as this process's own. */
static int thread_count_stable(void)
{
    int n = thread_count(), same = 0;
    for (int i = 0; i < 5000 && same < 20; i++) {
        struct timespec ms = {0, 2000000};
        nanosleep(&ms, NULL);
        int m = thread_count();
        same = m == n ? same + 1 : 0;
        n = m;
    }
    return n;
}

/* RLIMIT_FSIZE as it was before a test lowered it: restored by the test's
 * teardown too, so a failed assertion leaves the next tests their limit. */
static struct rlimit saved_fsize;
static int saved_fsize_set;

static int restore_fsize(void **state)
{
    (void)state;
    if (saved_fsize_set) {
        saved_fsize_set = 0;
        return setrlimit(RLIMIT_FSIZE, &saved_fsize);
    }
    return 0;
}

/* An n x n heightfield, shifted by ox. */
static void make_grid(pk_mesh *m, uint32_t n, float ox, const char *name)
{
    memset(m, 0, sizeof *m);
    snprintf(m->name, sizeof m->name, "%s", name);
    uint32_t side = n + 1;
    m->vertex_count = side * side;
    m->positions = malloc((size_t)m->vertex_count * 3 * sizeof(float));
    m->normals = malloc((size_t)m->vertex_count * 3 * sizeof(float));
    m->index_count = n * n * 6;
    m->indices = malloc((size_t)m->index_count * sizeof(uint32_t));
    assert_non_null(m->positions);
    assert_non_null(m->normals);
    assert_non_null(m->indices);
    for (uint32_t z = 0; z < side; z++) {
        for (uint32_t x = 0; x < side; x++) {
            uint32_t i = z * side + x;
            float fx = (float)x, fz = (float)z;
            m->positions[i * 3 + 0] = fx + ox;
            m->positions[i * 3 + 1] = 2.0f * sinf(fx * 0.3f + ox) * cosf(fz * 0.2f);
            m->positions[i * 3 + 2] = fz;
            m->normals[i * 3 + 0] = 0.0f;
            m->normals[i * 3 + 1] = 1.0f;
            m->normals[i * 3 + 2] = 0.0f;
        }
    }
    uint32_t *t = m->indices;
    for (uint32_t z = 0; z < n; z++) {
        for (uint32_t x = 0; x < n; x++) {
            uint32_t a = z * side + x, b = a + 1, c = a + side, d = c + 1;
            *t++ = a, *t++ = c, *t++ = b;
            *t++ = b, *t++ = c, *t++ = d;
        }
    }
}

/* A synthetic city through a builder with opt (the CLI's order of calls). */
static void build_city(const char *path, uint64_t size, const pk_build_options *opt, pk_build_stats *st)
{
    pk_synth *s = NULL;
    pk_diag d;
    memset(&d, 0, sizeof d);
    assert_int_equal(pk_synth_open("city", size, 3, &s, &d), 0);
    pk_builder *b = NULL;
    assert_int_equal(pk_builder_open(path, opt, &b, &d), 0);
    pk_mesh m;
    pk_instance inst[PK_SYNTH_MAX_INSTANCES];
    uint32_t n;
    int got;
    while ((got = pk_synth_next(s, &m, inst, &n, &d)) == 1) {
        uint32_t obj;
        if (pk_builder_add_mesh_owned(b, &m, &obj, &d) != 0) {
            fail_msg("%s", d.message);
        }
        assert_null(m.positions); /* taken */
        for (uint32_t i = 0; i < n; i++) {
            inst[i].mesh = obj;
            assert_int_equal(pk_builder_add_instance(b, &inst[i], &d), 0);
        }
    }
    assert_int_equal(got, 0);
    pk_synth_close(s);
    if (pk_builder_finish(b, st, &d) != 0) {
        fail_msg("%s", d.message);
    }
}

/* Nine grids, three of them twice (grid k and grid k + 4 equal): with a
 * small bundle_size the duplicates fall in later bundles than their first
 * copies. One instance per mesh. */
static void build_grids(const char *path, const pk_build_options *opt, pk_build_stats *st)
{
    pk_builder *b = NULL;
    pk_diag d;
    memset(&d, 0, sizeof d);
    assert_int_equal(pk_builder_open(path, opt, &b, &d), 0);
    static const uint32_t size[] = {20, 31, 12, 40, 20, 31, 12, 25, 9};
    static const float shift[] = {0, 50, 90, 120, 0, 50, 90, 200, 300};
    for (int i = 0; i < 9; i++) {
        pk_mesh m;
        char name[16];
        snprintf(name, sizeof name, "grid%d", i);
        make_grid(&m, size[i], shift[i], name);
        uint32_t obj;
        if (pk_builder_add_mesh(b, &m, &obj, &d) != 0) {
            fail_msg("%s", d.message);
        }
        pk_mesh_free(&m); /* not owned: the builder keeps a copy when it needs one */
        pk_instance in;
        memset(&in, 0, sizeof in);
        in.mesh = obj;
        in.matrix[0] = in.matrix[5] = in.matrix[10] = in.matrix[15] = 1.0f;
        snprintf(in.name, sizeof in.name, "at%d", i);
        assert_int_equal(pk_builder_add_instance(b, &in, &d), 0);
    }
    if (pk_builder_finish(b, st, &d) != 0) {
        fail_msg("%s", d.message);
    }
}

static void test_every_jobs_gives_the_same_city(void **state)
{
    (void)state;
    for (int quantize = 0; quantize <= 1; quantize++) {
        static const uint32_t jobs[] = {1, 2, 3, 8};
        for (size_t j = 0; j < 4; j++) {
            pk_build_options o;
            memset(&o, 0, sizeof o);
            o.quantize = quantize;
            o.page_size = 16384;
            o.jobs = jobs[j];
            o.bundle_size = 1; /* a bundle per building */
            pk_build_stats st;
            build_city(temp_path(j == 0 ? 0 : 1), 1200u << 10, &o, &st);
            assert_int_equal(st.options.jobs, jobs[j]);
            assert_true(st.peak_meshes_in_flight >= 1 && st.peak_meshes_in_flight <= jobs[j]);
            assert_true(st.peak_pages_in_flight >= 1 && st.peak_pages_in_flight <= 2 * jobs[j] + 32);
            assert_true(st.bundles >= 2);
            assert_int_equal(st.bundles_built, st.bundles);
            if (j > 0) {
                assert_same_file(temp_path(0), temp_path(1));
            }
        }
    }
    unlink(temp_path(0));
    unlink(temp_path(1));
}

static void test_duplicates_across_bundles_same_for_every_jobs(void **state)
{
    (void)state;
    for (int bundled = 0; bundled <= 1; bundled++) {
        static const uint32_t jobs[] = {1, 2, 3, 8};
        for (size_t j = 0; j < 4; j++) {
            pk_build_options o;
            memset(&o, 0, sizeof o);
            o.page_size = 8192;
            o.jobs = jobs[j];
            o.bundle_size = bundled ? 1 : 0; /* every new mesh a bundle of its own, or one bundle */
            pk_build_stats st;
            build_grids(temp_path(j == 0 ? 0 : 1), &o, &st);
            assert_int_equal(st.objects, 6);
            assert_int_equal(st.meshes_deduplicated, 3);
            assert_int_equal(st.instances, 9);
            assert_int_equal(st.bundles, bundled ? 6 : 1);
            assert_true(st.peak_meshes_in_flight <= jobs[j]);
            if (!bundled && jobs[j] > 1) {
                assert_true(st.peak_meshes_in_flight >= 2); /* one bundle: meshes overlap */
            }
            if (j > 0) {
                assert_same_file(temp_path(0), temp_path(1));
            }
        }
    }
    unlink(temp_path(0));
    unlink(temp_path(1));
}

/* Bad mesh k (an index out of range) among good ones in flight: the same
 * message as with one job, naming mesh k; the builder stays usable (a bad
 * mesh is refused before it enters the pipeline) and the pack is the one
 * built without the bad mesh; aborted after the error, no file is left. */
static void test_bad_mesh_in_flight_is_named_as_with_one_job(void **state)
{
    (void)state;
    char message[3][512];
    unlink(temp_path(2));
    for (int j = 0; j < 3; j++) { /* jobs 1, jobs 4, jobs 4 aborted after the error */
        pk_build_options o;
        memset(&o, 0, sizeof o);
        o.jobs = j == 0 ? 1 : 4;
        pk_builder *b = NULL;
        pk_diag d;
        memset(&d, 0, sizeof d);
        assert_int_equal(pk_builder_open(temp_path(j), &o, &b, &d), 0);
        for (int i = 0; i < 6; i++) {
            pk_mesh m;
            make_grid(&m, 24, (float)i * 40.0f, i == 4 ? "broken" : "good");
            if (i == 4) {
                m.indices[7] = m.vertex_count + 3;
            }
            uint32_t obj;
            int rc = pk_builder_add_mesh(b, &m, &obj, &d);
            pk_mesh_free(&m);
            if (i == 4) {
                assert_int_equal(rc, -1);
                snprintf(message[j], sizeof message[j], "%s", d.message);
            } else {
                assert_int_equal(rc, 0);
            }
        }
        if (j < 2) {
            assert_int_equal(pk_builder_finish(b, NULL, &d), 0);
        } else {
            pk_builder_abort(b);
        }
    }
    assert_string_equal(message[0], message[1]);
    assert_string_equal(message[0], message[2]);
    struct stat st;
    assert_int_equal(stat(temp_path(2), &st), -1); /* aborted: no file */
    assert_int_equal(temporaries_left(), 0);
    assert_string_equal(message[1], "mesh 'broken' (4): index 628 at position 7 is out of range (625 vertices)");
    assert_same_file(temp_path(0), temp_path(1));
    unlink(temp_path(0));
    unlink(temp_path(1));
}

/* A write that fails (the file size limit, SIGXFSZ ignored: EFBIG as on a
 * full disk) while meshes are in flight: reported by a later call with the
 * file's message, the builder then refuses everything but abort, and abort
 * leaves no temporary, no thread and no target. */
static void test_failed_write_in_flight_reports_and_aborts_clean(void **state)
{
    (void)state;
    const char *path = temp_path(2);
    unlink(path);
    int threads0 = thread_count_stable();
    struct rlimit old;
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
    saved_fsize = old;
    saved_fsize_set = 1;
    void (*old_handler)(int) = signal(SIGXFSZ, SIG_IGN);
    struct rlimit small = old;
    small.rlim_cur = 64u << 10;
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
    pk_build_options o;
    memset(&o, 0, sizeof o);
    o.jobs = 4;
    o.page_size = 4096;
    pk_builder *b = NULL;
    pk_diag d;
    memset(&d, 0, sizeof d);
    assert_int_equal(pk_builder_open(path, &o, &b, &d), 0);
    if (threads0 > 0) {
        assert_int_equal(thread_count_settled(threads0 + 3), threads0 + 3);
    }
    int failed = 0;
    for (int i = 0; i < 60 && !failed; i++) {
        pk_mesh m;
        make_grid(&m, 30, (float)i * 40.0f, "g");
        uint32_t obj;
        failed = pk_builder_add_mesh(b, &m, &obj, &d) != 0;
        pk_mesh_free(&m);
    }
    assert_true(failed); /* 60 meshes take more than 64 KiB */
    assert_non_null(strstr(d.message, path));
    assert_non_null(strstr(d.message, "failed: File too large"));
    assert_int_equal(pk_builder_write_failed(b), 1);
    pk_mesh m;
    make_grid(&m, 4, 0.0f, "late");
    uint32_t obj;
    assert_int_equal(pk_builder_add_mesh(b, &m, &obj, &d), -1);
    assert_non_null(strstr(d.message, "an earlier error left the pack incomplete"));
    pk_mesh_free(&m);
    pk_builder_abort(b);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
    signal(SIGXFSZ, old_handler);
    assert_int_equal(temporaries_left(), 0);
    struct stat st;
    assert_int_equal(stat(path, &st), -1);
    if (threads0 > 0) {
        assert_int_equal(thread_count_settled(threads0), threads0);
    }
}

/* Abort with meshes in flight: no temporary, no thread, the old file kept. */
static void test_abort_with_meshes_in_flight_leaves_nothing(void **state)
{
    (void)state;
    const char *path = temp_path(3);
    static const char old[] = "an earlier pack";
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(old, 1, sizeof old, f), sizeof old);
    assert_int_equal(fclose(f), 0);
    int threads0 = thread_count_stable();
    pk_build_options o;
    memset(&o, 0, sizeof o);
    o.jobs = 8;
    pk_builder *b = NULL;
    pk_diag d;
    assert_int_equal(pk_builder_open(path, &o, &b, &d), 0);
    for (int i = 0; i < 12; i++) {
        pk_mesh m;
        make_grid(&m, 60, (float)i * 80.0f, "big");
        uint32_t obj;
        assert_int_equal(pk_builder_add_mesh_owned(b, &m, &obj, &d), 0);
    }
    pk_builder_abort(b);
    assert_int_equal(temporaries_left(), 0);
    if (threads0 > 0) {
        assert_int_equal(thread_count_settled(threads0), threads0);
    }
    size_t n;
    unsigned char *back = read_all(path, &n);
    assert_int_equal(n, sizeof old);
    assert_memory_equal(back, old, sizeof old);
    free(back);
    unlink(path);
}

/* Merges parts 1..n of a pack at paths[0..n) into out through the appender,
 * as sluice merge does. */
static void merge(const char *const *paths, uint32_t n, const char *out)
{
    pk_part_reader *r[8];
    pk_diag d;
    memset(&d, 0, sizeof d);
    for (uint32_t k = 0; k < n; k++) {
        if (pk_part_reader_open(paths[k], &r[k], &d) != 0) {
            fail_msg("%s", d.message);
        }
        assert_int_equal(pk_part_reader_header(r[k])->part, k + 1);
        assert_int_equal(pk_part_reader_header(r[k])->fingerprint, pk_part_reader_header(r[0])->fingerprint);
    }
    const pk_part_header *h = pk_part_reader_header(r[0]);
    pk_writer *w = NULL;
    assert_int_equal(pk_writer_open(out, h->page_size, (int)h->quantize, &w, &d), 0);
    size_t cap = (size_t)LZ4_compressBound((int)h->page_size);
    unsigned char *buf = malloc(cap);
    assert_non_null(buf);
    for (uint32_t bundle = 0; bundle < h->bundle_count; bundle++) {
        const pk_part_entry *e;
        pk_part_records rec;
        pk_part_reader *p = r[bundle % n];
        assert_int_equal(pk_part_load_bundle(p, bundle / n, &e, &rec, &d), 0);
        assert_int_equal(e->bundle, bundle);
        assert_int_equal(e->first_object, pk_writer_object_count(w));
        for (uint32_t i = 0; i < e->chunk_count; i++) {
            slc_pack_chunk c = rec.chunks[rec.order[i]];
            assert_int_equal(pk_part_read(p, c.offset, buf, c.stored_size, &d), 0);
            assert_int_equal(pk_writer_chunk(w, rec.order[i], &c, buf, &d), 0);
        }
        if (pk_writer_bundle(w, &rec.r, &d) != 0) {
            fail_msg("%s", d.message);
        }
    }
    assert_int_equal(pk_writer_finish(w, NULL, &d), 0);
    free(buf);
    for (uint32_t k = 0; k < n; k++) {
        pk_part_reader_close(r[k]);
    }
}

static void test_parts_merge_to_the_pack(void **state)
{
    (void)state;
    pk_build_options o;
    memset(&o, 0, sizeof o);
    o.bundle_size = 1;
    o.page_size = 8192;
    o.jobs = 2;
    pk_build_stats whole;
    build_grids(temp_path(0), &o, &whole);
    static const uint32_t counts[] = {1, 2, 5};
    for (size_t c = 0; c < 3; c++) {
        uint32_t n = counts[c];
        const char *paths[5];
        char names[5][128];
        for (uint32_t k = 1; k <= n; k++) {
            pk_build_options po = o;
            po.part = k;
            po.part_count = n;
            po.jobs = k; /* any jobs: the same bytes */
            snprintf(names[k - 1], sizeof names[k - 1], "%s.part%u", temp_path(1), k);
            paths[k - 1] = names[k - 1];
            pk_build_stats st;
            build_grids(paths[k - 1], &po, &st);
            assert_int_equal(st.bundles, 6);
            assert_int_equal(st.bundles_built, (6 - k) / n + 1);
            assert_int_equal(st.fingerprint, whole.fingerprint);
        }
        merge(paths, n, temp_path(2));
        assert_same_file(temp_path(0), temp_path(2));
        for (uint32_t k = 0; k < n; k++) {
            unlink(paths[k]);
        }
    }
    unlink(temp_path(0));
    unlink(temp_path(2));
}

/* The appender refuses a bundle that does not hold together, naming the
 * file and the record; abort leaves no temporary. */
static void test_writer_refuses_inconsistent_bundles(void **state)
{
    (void)state;
    const char *path = temp_path(4);
    pk_writer *w = NULL;
    pk_diag d;
    memset(&d, 0, sizeof d);
    assert_int_equal(pk_writer_open(path, 4096, 0, &w, &d), 0);
    unsigned char bytes[64];
    memset(bytes, 7, sizeof bytes);
    slc_pack_chunk c;
    memset(&c, 0, sizeof c);
    c.stored_size = sizeof bytes;
    c.decoded_size = sizeof bytes;
    assert_int_equal(pk_writer_chunk(w, 1, &c, bytes, &d), 0);
    assert_int_equal(pk_writer_chunk(w, 1, &c, bytes, &d), -1);
    char want[256];
    snprintf(want, sizeof want, "%s: chunk 1 of the bundle given twice", path);
    assert_string_equal(d.message, want);
    c.decoded_size = 8192;
    assert_int_equal(pk_writer_chunk(w, 0, &c, bytes, &d), -1);
    snprintf(want, sizeof want, "%s: chunk 0 of the bundle: 64 stored bytes, 8192 decoded or codec 0 out of range",
             path);
    assert_string_equal(d.message, want);
    pk_bundle_records r;
    memset(&r, 0, sizeof r);
    r.chunk_count = 2;
    assert_int_equal(pk_writer_bundle(w, &r, &d), -1);
    snprintf(want, sizeof want, "%s: chunk 0 of the bundle was never appended", path);
    assert_string_equal(d.message, want);
    r.chunk_count = 1;
    assert_int_equal(pk_writer_bundle(w, &r, &d), -1);
    snprintf(want, sizeof want, "%s: bundle of 1 chunks, 2 appended", path);
    assert_string_equal(d.message, want);
    c.decoded_size = sizeof bytes;
    assert_int_equal(pk_writer_chunk(w, 0, &c, bytes, &d), 0); /* a duplicate of chunk 1: stored once */
    slc_pack_span span = {5, 0, 1};
    r.chunk_count = 2;
    r.spans = &span;
    r.span_count = 1;
    assert_int_equal(pk_writer_bundle(w, &r, &d), -1);
    snprintf(want, sizeof want, "%s: span 0 of the bundle names chunk 5 of 2", path);
    assert_string_equal(d.message, want);
    slc_pack_instance in;
    memset(&in, 0, sizeof in);
    in.object = 3;
    in.name = SLC_PACK_NO_NAME;
    r.span_count = 0;
    r.instances = &in;
    r.instance_count = 1;
    assert_int_equal(pk_writer_bundle(w, &r, &d), -1);
    snprintf(want, sizeof want, "%s: instance 0 of the bundle names object 3 or a string outside the pack", path);
    assert_string_equal(d.message, want);
    /* Since 1.3: an object's material, a material's texture, a texture's
     * chunks and names inside what the pack holds. */
    r.instance_count = 0;
    slc_pack_object ob;
    memset(&ob, 0, sizeof ob);
    ob.name = SLC_PACK_NO_NAME;
    ob.material = 2;
    r.objects = &ob;
    r.object_count = 1;
    slc_pack_lod lod;
    memset(&lod, 0, sizeof lod);
    r.lods = &lod;
    r.lod_count = 1;
    ob.lod_count = 1;
    slc_pack_material mat;
    memset(&mat, 0, sizeof mat);
    mat.name = SLC_PACK_NO_NAME;
    r.materials = &mat;
    r.material_count = 1;
    assert_int_equal(pk_writer_bundle(w, &r, &d), -1);
    snprintf(want, sizeof want, "%s: object 0 of the bundle names material 1 of 1", path);
    assert_string_equal(d.message, want);
    ob.material = 1;
    mat.slot[2].texture = 1;
    assert_int_equal(pk_writer_bundle(w, &r, &d), -1);
    snprintf(want, sizeof want, "%s: material 0 of the bundle names a texture or a string outside the pack", path);
    assert_string_equal(d.message, want);
    slc_pack_texture tex;
    memset(&tex, 0, sizeof tex);
    tex.name = SLC_PACK_NO_NAME;
    tex.first_chunk = 1;
    tex.chunk_count = 2;
    r.textures = &tex;
    r.texture_count = 1;
    assert_int_equal(pk_writer_bundle(w, &r, &d), -1);
    snprintf(want, sizeof want, "%s: texture 0 of the bundle names chunks or a string outside it", path);
    assert_string_equal(d.message, want);
    assert_int_equal(pk_writer_finish(w, NULL, &d), -1); /* the bundle never ended */
    snprintf(want, sizeof want, "%s: 2 chunks of an unfinished bundle", path);
    assert_string_equal(d.message, want);
    assert_int_equal(temporaries_left(), 0);
    struct stat st;
    assert_int_equal(stat(path, &st), -1);
}

/* Rewrites the part at path with its directory entry 0 changed by edit,
 * the directory and header checksums made right again, so only the check
 * under test fails. */
static void edit_part_entry(const char *path, void (*edit)(pk_part_entry *))
{
    size_t n;
    unsigned char *f = read_all(path, &n);
    pk_part_header h;
    memcpy(&h, f, sizeof h);
    assert_true(h.bundles_here >= 1);
    pk_part_entry e;
    memcpy(&e, f + h.directory_offset, sizeof e);
    edit(&e);
    memcpy(f + h.directory_offset, &e, sizeof e);
    h.directory_xxh3 = XXH3_64bits(f + h.directory_offset, (size_t)h.bundles_here * sizeof e);
    h.header_xxh3 = XXH3_64bits(&h, offsetof(pk_part_header, header_xxh3));
    memcpy(f, &h, sizeof h);
    FILE *o = fopen(path, "wb");
    assert_non_null(o);
    assert_int_equal(fwrite(f, 1, n, o), n);
    assert_int_equal(fclose(o), 0);
    free(f);
}

static void wrong_bundle(pk_part_entry *e)
{
    e->bundle += 5;
}
static void wrong_records_size(pk_part_entry *e)
{
    e->records_size -= 8;
}
static void payload_outside(pk_part_entry *e)
{
    e->payload_size = UINT64_MAX / 2;
}

/* A part whose checksums hold but whose directory does not: each check
 * named. */
static void test_part_reader_checks_the_directory(void **state)
{
    (void)state;
    pk_build_options o;
    memset(&o, 0, sizeof o);
    o.bundle_size = 1;
    o.jobs = 1;
    o.part = 1;
    o.part_count = 2;
    const char *path = temp_path(5);
    static const struct {
        void (*edit)(pk_part_entry *);
        const char *message;
    } cases[] = {
        {wrong_bundle, "directory entry 0 is bundle 5, expected 0"},
        {wrong_records_size, "bundle 0: %llu record bytes, its counts make %llu"},
        {payload_outside, "bundle 0: payloads or records outside the file"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pk_build_stats st;
        build_grids(path, &o, &st);
        pk_part_reader *r = NULL;
        pk_diag d;
        memset(&d, 0, sizeof d);
        assert_int_equal(pk_part_reader_open(path, &r, &d), 0);
        const pk_part_entry *e;
        pk_part_records rec;
        assert_int_equal(pk_part_load_bundle(r, 0, &e, &rec, &d), 0);
        unsigned long long size = (unsigned long long)e->records_size;
        pk_part_reader_close(r);
        edit_part_entry(path, cases[i].edit);
        assert_int_equal(pk_part_reader_open(path, &r, &d), -1);
        char msg[256], want[400];
        snprintf(msg, sizeof msg, cases[i].message, size - 8, size);
        snprintf(want, sizeof want, "%s: %s", path, msg);
        assert_string_equal(d.message, want);
    }
    pk_part_reader *r = NULL;
    pk_diag d;
    assert_int_equal(pk_part_reader_open("/nonexistent/x.part", &r, &d), -2);
    assert_string_equal(d.message, "/nonexistent/x.part: cannot open: No such file or directory");
    unlink(path);
}

static void test_rejects_bad_jobs_and_parts(void **state)
{
    (void)state;
    pk_build_options o, r;
    pk_diag d;
    memset(&o, 0, sizeof o);
    assert_int_equal(pk_build_options_resolve(&o, &r, &d), 0);
    assert_int_equal(r.jobs, pk_default_jobs());
    assert_int_equal(r.bundle_size, 64u << 20);
    o.jobs = 257;
    assert_int_equal(pk_build_options_resolve(&o, &r, &d), -1);
    assert_string_equal(d.message, "jobs 257 is not from 1 to 256");
    o.jobs = 1;
    o.part = 3;
    o.part_count = 2;
    assert_int_equal(pk_build_options_resolve(&o, &r, &d), -1);
    assert_string_equal(d.message, "part 3 of 2 is not K of N with 1 <= K <= N <= 1024");
    o.part = 0;
    assert_int_equal(pk_build_options_resolve(&o, &r, &d), -1);
    o.part = 1;
    o.part_count = 1025;
    assert_int_equal(pk_build_options_resolve(&o, &r, &d), -1);
    assert_string_equal(d.message, "part 1 of 1025 is not K of N with 1 <= K <= N <= 1024");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_jobs_gives_the_same_city),
        cmocka_unit_test(test_duplicates_across_bundles_same_for_every_jobs),
        cmocka_unit_test(test_bad_mesh_in_flight_is_named_as_with_one_job),
        cmocka_unit_test_teardown(test_failed_write_in_flight_reports_and_aborts_clean, restore_fsize),
        cmocka_unit_test(test_abort_with_meshes_in_flight_leaves_nothing),
        cmocka_unit_test(test_parts_merge_to_the_pack),
        cmocka_unit_test(test_writer_refuses_inconsistent_bundles),
        cmocka_unit_test(test_part_reader_checks_the_directory),
        cmocka_unit_test(test_rejects_bad_jobs_and_parts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
