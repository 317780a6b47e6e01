/* SPDX-License-Identifier: MIT */
/* A stream over a pack in a real file, for the tests of the platform's file
 * reader under faults (test_io_faults.c, test_mapped_faults.c): the
 * generated pack written to a temporary file (disk), a logger the workers
 * may call at once (locked_log), and the fixture (sff_fixture): a profile,
 * its memory block, a host store charged to gpu/pool, the file opened
 * mapped or through pread, the pack and the stream, inline or with
 * workers. The memory and the host store are also set up alone
 * (test_stream.c, test_stream_vulkan.c, test_stream_rules.c, test_soak.c),
 * and the check that teardown released every budget is shared.
 *
 * Uses ftruncate, pwrite and mkstemp: the including file defines
 * _POSIX_C_SOURCE 200809L (or _GNU_SOURCE) before its first include. */
#ifndef SLUICE_STREAM_FILE_FIXTURE_H
#define SLUICE_STREAM_FILE_FIXTURE_H

#include <fcntl.h>
#include <inttypes.h>
#include <unistd.h>

#include "stream_pack.h"

#include "sluice/host_store.h"
#include "sluice/platform.h"
#include "sluice/workers.h"

/* --- the pack on disk ------------------------------------------------------- */

typedef struct disk {
    sp_pack pack;
    char path[64];
    int fd; /* read-write: for cutting, rewriting and restoring under the reader */
} disk;

/* Writes the whole pack back over a cut or rewritten file. The file is set
 * to the pack's size first, never emptied, so that a mapping of it stays
 * valid throughout. */
static inline void disk_restore(disk *d)
{
    assert_int_equal(ftruncate(d->fd, (off_t)d->pack.size), 0);
    assert_int_equal(pwrite(d->fd, d->pack.data, d->pack.size, 0), (ssize_t)d->pack.size);
}

/* Builds the pack of prm and writes it to a new file
 * $TMPDIR/sluice-<tag>-XXXXXX (/tmp when TMPDIR is unset or too long). */
static inline void disk_create(disk *d, const sp_params *prm, const char *tag)
{
    memset(d, 0, sizeof *d);
    sp_build(&d->pack, prm);
    const char *dir = getenv("TMPDIR");
    snprintf(d->path, sizeof d->path, "%s/sluice-%s-XXXXXX", dir != NULL && strlen(dir) < 40 ? dir : "/tmp", tag);
    d->fd = mkstemp(d->path);
    assert_true(d->fd >= 0);
    disk_restore(d);
}

static inline void disk_remove(disk *d)
{
    close(d->fd);
    unlink(d->path);
    sp_free(&d->pack);
}

/* --- a logger the workers may call at once ------------------------------------ */

/* The last message and its status, and the count; read under mu. */
typedef struct locked_log {
    pthread_mutex_t mu;
    char message[512];
    slc_status status;
    uint32_t calls;
} locked_log;

static inline void locked_fn(void *user, slc_log_level level, slc_status status, const char *message)
{
    locked_log *l = user;
    (void)level;
    pthread_mutex_lock(&l->mu);
    snprintf(l->message, sizeof l->message, "%s", message);
    l->status = status;
    l->calls++;
    pthread_mutex_unlock(&l->mu);
}

/* --- the memory and the host store ------------------------------------------------ */

/* Maps the block the profile asks for and initialises the memory in it. */
static inline void sff_memory_map(const slc_profile *profile, slc_platform_block *block, slc_memory **mem)
{
    slc_memory_requirements req;
    assert_int_equal(slc_memory_calculate_requirements(profile, &req), SLC_OK);
    assert_int_equal(slc_platform_block_map(req.block_size, 0, NULL, block), SLC_OK);
    assert_int_equal(slc_memory_init(block->base, block->size, profile, NULL, mem), SLC_OK);
}

/* A host store of `pages` pages of page_size bytes in an arena of its own,
 * charged to gpu/pool; the arena's memory comes from aligned_alloc into
 * *store_mem (the caller frees it). Returns the arena's mark from before
 * the store, to release the store's pages by. */
static inline slc_arena_mark sff_host_store_init(slc_memory *mem, uint32_t pages, uint32_t page_size,
                                                 unsigned char **store_mem, slc_arena **arena, slc_page_store *store)
{
    slc_budget_id gpu_pool;
    assert_int_equal(slc_budgets_scan(slc_memory_budgets(mem), "gpu/pool", &gpu_pool), SLC_OK);
    size_t amem = SLC_ARENA_FOOTPRINT(slc_host_store_footprint(pages, page_size));
    *store_mem = aligned_alloc(64, (amem + 63u) & ~(size_t)63u);
    assert_non_null(*store_mem);
    assert_int_equal(slc_arena_init(*store_mem, amem, slc_memory_budgets(mem), gpu_pool, arena), SLC_OK);
    slc_arena_mark mark = slc_arena_get_mark(*arena);
    assert_int_equal(slc_host_store_init(*arena, pages, page_size, NULL, store), SLC_OK);
    return mark;
}

/* After teardown: nothing leaked, every budget of mem back to 0. */
static inline void sff_assert_budgets_released(slc_memory *mem)
{
    slc_budget_stats st[SLC_BUDGET_MAX];
    size_t n = slc_budgets_walk_report(slc_memory_budgets(mem), st, SLC_BUDGET_MAX);
    for (size_t i = 0; i < n; i++) {
        if (st[i].current != 0) {
            fail_msg("budget %s: %" PRIu64 " bytes still in use after teardown", st[i].name, st[i].current);
        }
    }
}

/* --- the stream over the file ------------------------------------------------------- */

typedef enum sff_access {
    SFF_MAPPED, /* SLC_PLATFORM_FILE_DEFAULT: mapped, with its guard; chunks read from the mapping */
    SFF_PREAD   /* SLC_PLATFORM_FILE_PREAD: read through pread, with the fault hook */
} sff_access;

/* Where the fixtures of the two tests differ. */
typedef struct sff_desc {
    const char *name;      /* the profile's name; its file name is "<name>.profile" */
    const char *pack_name; /* the pack's name in its messages */
    uint32_t pages;        /* the pool's page count (4 KiB pages), and the host store's */
    uint32_t upload_kib;   /* upload_per_frame */
    uint32_t workers;      /* worker threads; 0: inline */
    sff_access access;
    slc_platform_file_fault_fn hook; /* SFF_PREAD: the fault hook, NULL for none */
    void *hook_user;
    uint64_t (*now_ns)(void); /* the stream's clock, or NULL */
    bool check_teardown;      /* sff_close: the store's pages released, then every budget at 0 */
} sff_desc;

typedef struct sff_fixture {
    uint32_t workers;
    bool check_teardown;
    slc_profile profile;
    slc_platform_block block;
    slc_memory *mem;
    unsigned char *store_mem;
    slc_arena *store_arena;
    slc_arena_mark store_mark;
    slc_page_store store;
    slc_platform_file file;
    slc_pack *pk;
    slc_platform_workers pool_workers;
    slc_stream *s;
    locked_log pack_log;
    slc_logger pack_logger;
} sff_fixture;

static inline bool sff_work(void *ctx, uint32_t worker)
{
    return slc_stream_work(ctx, worker);
}

/* The stream over d's file; its pinned chunks load here, from the file as
 * it is now. */
static inline void sff_open(sff_fixture *f, const disk *d, const sff_desc *desc)
{
    memset(f, 0, sizeof *f);
    f->workers = desc->workers;
    f->check_teardown = desc->check_teardown;
    char text[1024];
    snprintf(
        text, sizeof text,
        "[profile]\nname = %s\n"
        "[budgets]\ncpu = 1 MiB\ncpu/meta = 256 KiB\ncpu/decode = 64 KiB\ncpu/queues = 256 KiB\ncpu/driver = 64 KiB\n"
        "gpu = 1 MiB\ngpu/pool = 512 KiB\ngpu/staging = 64 KiB\n"
        "[pool]\npage_size = 4 KiB\npage_count = %u\neviction = lru\n"
        "[stream]\nframes_in_flight = 2\nworkers = %u\nqueue_capacity = 256\nstaging_size = 0 B\n"
        "upload_per_frame = %u KiB\npin_coarsest = 1\n"
        "[tables]\nmax_objects = 64\nmax_chunks = 512\nmax_lods = 4\nmax_string_bytes = 4 KiB\n",
        desc->name, desc->pages, desc->workers, desc->upload_kib);
    char profile_file[64];
    snprintf(profile_file, sizeof profile_file, "%s.profile", desc->name);
    slc_profile_diag diag;
    if (slc_profile_parse(text, strlen(text), profile_file, &f->profile, &diag) != SLC_OK) {
        fail_msg("%s", diag.message);
    }
    sff_memory_map(&f->profile, &f->block, &f->mem);
    f->store_mark = sff_host_store_init(f->mem, desc->pages, 4096, &f->store_mem, &f->store_arena, &f->store);
    if (desc->access == SFF_MAPPED) {
        assert_int_equal(slc_platform_file_open(d->path, SLC_PLATFORM_FILE_DEFAULT, NULL, &f->file), SLC_OK);
        assert_non_null(f->file.map);
        assert_non_null(f->file.io.guard); /* a mapped file comes with its recovery point */
    } else {
        assert_int_equal(slc_platform_file_open(d->path, SLC_PLATFORM_FILE_PREAD, NULL, &f->file), SLC_OK);
        assert_null(f->file.map);
        slc_platform_file_set_fault_hook(&f->file, desc->hook, desc->hook_user);
    }
    pthread_mutex_init(&f->pack_log.mu, NULL);
    f->pack_logger = (slc_logger){locked_fn, &f->pack_log};
    slc_arena *meta;
    assert_int_equal(slc_memory_scan_arena(f->mem, "cpu/meta", &meta), SLC_OK);
    assert_int_equal(slc_pack_open(&f->file.io, desc->pack_name, &f->profile, meta, &f->pack_logger, &f->pk), SLC_OK);
    if (desc->access == SFF_MAPPED) {
        assert_int_equal(slc_pack_scratch_size(f->pk), 0); /* every chunk read straight from the mapping */
    }
    slc_stream_desc sd;
    memset(&sd, 0, sizeof sd);
    sd.profile = &f->profile;
    sd.memory = f->mem;
    sd.pack = f->pk;
    sd.stores[SLC_POOL_GEOMETRY] = &f->store;
    sd.now_ns = desc->now_ns;
    if (desc->workers > 0) {
        slc_platform_workers_executor(&f->pool_workers, &sd.executor);
    }
    assert_int_equal(slc_stream_create(&sd, &f->s), SLC_OK);
    if (desc->workers > 0) {
        assert_int_equal(slc_platform_workers_start(&f->pool_workers, desc->workers, sff_work, f->s, NULL), SLC_OK);
    }
}

static inline void sff_close(sff_fixture *f)
{
    if (f->workers > 0) {
        slc_platform_workers_stop(&f->pool_workers);
    }
    slc_stream_destroy(f->s);
    slc_pack_close(f->pk);
    slc_platform_file_close(&f->file);
    if (f->check_teardown) {
        slc_arena_reset(f->store_arena, f->store_mark);
        sff_assert_budgets_released(f->mem);
    }
    slc_memory_deinit(f->mem);
    slc_platform_block_unmap(&f->block);
    free(f->store_mem);
    pthread_mutex_destroy(&f->pack_log.mu);
}

#endif
