/* SPDX-License-Identifier: MIT */
/* Against a build without threads (-DSLUICE_THREADS=OFF): worker threads
 * are refused, naming the option, by slc_platform_workers_start and, through
 * the executor it fills, by slc_stream_create; the same pack then streams
 * with workers = 0, the caller loading, as README.md's embedding example
 * streams it with threads. */
#include <stdio.h>
#include <string.h>

#include <sluice/host_store.h>
#include <sluice/platform.h>
#include <sluice/sluice.h>
#include <sluice/workers.h>

#include "profile_default.h" /* sluice budget header budgets/default.profile --name default */

static _Alignas(SLC_PROFILE_DEFAULT_BLOCK_ALIGN) unsigned char block[SLC_PROFILE_DEFAULT_BLOCK_SIZE];

/* The last message logged, for the refusals' checks. */
static char last[256];

static void keep_log(void *user, slc_log_level level, slc_status status, const char *message)
{
    (void)user, (void)level, (void)status;
    snprintf(last, sizeof last, "%s", message);
}

static bool work(void *stream, uint32_t worker)
{
    return slc_stream_work(stream, worker);
}

static int fail(const char *what)
{
    fprintf(stderr, "nothreads: %s (last message: %s)\n", what, last);
    return 1;
}

int main(int argc, char **argv)
{
    slc_logger log = {keep_log, NULL};
    slc_platform_workers workers;
    if (argc != 2) {
        return fail("usage: nothreads PACK");
    }
    /* 1. No thread starts. */
    slc_status st = slc_platform_workers_start(&workers, 2, work, NULL, &log);
    if (st != SLC_E_UNSUPPORTED || strstr(last, "SLUICE_THREADS=OFF") == NULL) {
        return fail("slc_platform_workers_start(2) was not refused naming SLUICE_THREADS=OFF");
    }
    char refused_start[256];
    snprintf(refused_start, sizeof refused_start, "%s", last);
    slc_platform_workers_stop(&workers); /* a no-op, as on a start that failed */

    slc_profile p = slc_profile_default; /* workers = 2 */
    slc_memory *mem;
    slc_arena *meta;
    slc_platform_file file;
    slc_pack *pack;
    slc_platform_block page_block;
    slc_page_store store;
    slc_stream *s;
    if (p.workers == 0 || slc_memory_init(block, sizeof block, &p, &log, &mem) != SLC_OK ||
        slc_memory_scan_arena(mem, "cpu/meta", &meta) != SLC_OK ||
        slc_platform_file_open(argv[1], SLC_PLATFORM_FILE_DEFAULT, &log, &file) != SLC_OK ||
        slc_pack_open(&file.io, argv[1], &p, meta, &log, &pack) != SLC_OK) {
        return fail("cannot open the pack");
    }
    slc_pool_spec geometry;
    slc_pool_spec_from_profile(&p, SLC_POOL_GEOMETRY, &geometry);
    slc_host_store_desc hd;
    slc_host_store_desc_from_spec(&geometry, &hd);
    size_t bytes = slc_host_store_footprint(hd.page_count, hd.page_size);
    slc_budget_id gpu_pool;
    slc_budgets_scan(slc_memory_budgets(mem), "gpu/pool", &gpu_pool);
    if (slc_platform_block_map(bytes, 0, &log, &page_block) != SLC_OK ||
        slc_host_store_init_at(page_block.base, bytes, slc_memory_budgets(mem), gpu_pool, hd.page_count, hd.page_size,
                               &log, &store) != SLC_OK) {
        return fail("cannot set up the host store");
    }
    /* 2. A profile that asks for workers gets an executor with no
     * operations, which the stream refuses. */
    slc_stream_desc d = {.profile = &p,
                         .memory = mem,
                         .pack = pack,
                         .stores = {[SLC_POOL_GEOMETRY] = &store},
                         .now_ns = slc_platform_now_ns,
                         .log = &log};
    slc_platform_workers_executor(&workers, &d.executor);
    st = slc_stream_create(&d, &s);
    if (st != SLC_E_INVALID || strstr(last, "workers but the desc has no executor") == NULL) {
        return fail("slc_stream_create with workers = 2 was not refused");
    }
    /* 3. workers = 0: the caller loads. */
    p.workers = 0;
    if (slc_stream_create(&d, &s) != SLC_OK) {
        return fail("slc_stream_create with workers = 0 failed");
    }
    uint32_t objects = slc_pack_get_header(pack)->object_count, drawn = 0;
    for (uint32_t frame = 0; frame < 240; frame++) {
        if (slc_stream_begin_frame(s, NULL) != SLC_OK) {
            continue;
        }
        for (uint32_t i = 0; i < 32 && i < objects; i++) {
            slc_stream_object_request r = {{(frame + i) % objects}, 0, (uint8_t)(255 - i), {0}};
            slc_stream_request(s, &r);
        }
        slc_stream_end_frame(s);
        for (uint32_t i = 0; i < slc_stream_result_count(s); i++) {
            slc_stream_result r;
            slc_stream_span spans[256];
            if (slc_stream_resident(s, i, &r, spans, 256) == SLC_OK && r.lod != SLC_STREAM_LOD_NONE) {
                drawn += r.span_count;
            }
        }
    }
    slc_stream_stats stats;
    slc_stream_get_stats(s, &stats);
    printf("nothreads: start refused: %s\n", refused_start);
    printf(
        "nothreads: up to frame %llu, %llu loads (%llu on the caller, %llu by workers), %u spans drawn, %llu holes\n",
        (unsigned long long)stats.frame, (unsigned long long)stats.loads_completed,
        (unsigned long long)stats.caller_loads, (unsigned long long)stats.worker_loads, drawn,
        (unsigned long long)stats.holes);
    slc_stream_destroy(s);
    slc_host_store_deinit(&store);
    slc_platform_block_unmap(&page_block);
    slc_pack_close(pack);
    slc_platform_file_close(&file);
    slc_memory_deinit(mem);
    return stats.failures == 0 && stats.loads_completed > 0 ? 0 : 1;
}
