/* sluice bench load: chunk load (read + verify + decode into the page)
 * against plain LZ4_decompress_safe of the same chunks, in one run. */
#include <lz4.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "sluice/platform.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef struct run_ctx {
    const slc_pack *pack;
    const unsigned char *mapped;
    unsigned char *pages; /* a ring of pages, so the decoder writes to memory that is not hot in cache */
    size_t page_size, ring;
    void *scratch;
    size_t scratch_size;
} run_ctx;

enum { MODE_RAW_LZ4, MODE_LOAD, MODE_COUNT };

/* One pass over every chunk; returns decoded bytes. */
static uint64_t pass(const run_ctx *r, int mode)
{
    const slc_pack_header *h = slc_pack_get_header(r->pack);
    uint64_t bytes = 0;
    for (uint32_t i = 0; i < h->chunk_count; i++) {
        const slc_pack_chunk *c = slc_pack_get_chunk(r->pack, i);
        unsigned char *page = r->pages + (i % r->ring) * r->page_size;
        if (mode == MODE_RAW_LZ4) {
            const char *src = (const char *)r->mapped + c->offset;
            if (c->codec == SLC_PACK_CODEC_LZ4) {
                if (LZ4_decompress_safe(src, (char *)page, (int)c->stored_size, (int)c->decoded_size) < 0) {
                    return 0;
                }
            } else {
                memcpy(page, src, c->stored_size);
            }
        } else if (slc_pack_load_chunk(r->pack, i, page, r->page_size, r->scratch, r->scratch_size) != SLC_OK) {
            return 0;
        }
        bytes += c->decoded_size;
    }
    return bytes;
}

int bench_load(int argc, char **argv)
{
    const char *path = NULL;
    int repeats = 9, use_pread = 0;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            repeats = 3;
        } else if (strcmp(argv[i], "--pread") == 0) {
            use_pread = 1;
        } else if (argv[i][0] != '-' && path == NULL) {
            path = argv[i];
        } else {
            path = NULL;
            break;
        }
    }
    if (path == NULL) {
        fprintf(stderr, "usage: sluice bench load PACK [--quick] [--pread]\n");
        return CLI_USAGE;
    }
    slc_platform_file file;
    if (slc_platform_file_open(path, 0, &cli_stderr_logger, &file) != SLC_OK) {
        return CLI_IO;
    }
    if (file.map == NULL) {
        fprintf(stderr, "sluice bench load: %s could not be mapped\n", path);
        slc_platform_file_close(&file);
        return CLI_FAILED;
    }
    slc_platform_file pread_file;
    int have_pread = use_pread && slc_platform_file_open(path, SLC_PLATFORM_FILE_PREAD, &cli_stderr_logger,
                                                         &pread_file) == SLC_OK;
    size_t arena_size = SLC_ARENA_FOOTPRINT(2 * cli_pack_meta_bytes(&file.io)); /* mapped and pread */
    void *arena_mem = aligned_alloc(SLC_ARENA_ALIGN, (arena_size + 63) & ~(size_t)63);
    slc_arena *meta;
    slc_profile limits;
    memset(&limits, 0, sizeof limits);
    limits.page_size = SLC_PROFILE_PAGE_SIZE_MAX;
    limits.max_chunks = limits.max_objects = limits.max_lods = UINT32_MAX;
    limits.max_string_bytes = UINT64_MAX;
    slc_pack *pack = NULL, *pread_pack = NULL;
    if (arena_mem == NULL || slc_arena_init(arena_mem, arena_size, NULL, SLC_BUDGET_NONE, &meta) != SLC_OK ||
        slc_pack_open(&file.io, path, &limits, meta, &cli_stderr_logger, &pack) != SLC_OK ||
        (have_pread && slc_pack_open(&pread_file.io, path, &limits, meta, &cli_stderr_logger, &pread_pack) != SLC_OK)) {
        free(arena_mem);
        slc_platform_file_close(&file);
        return CLI_FAILED;
    }
    const slc_pack_header *h = slc_pack_get_header(pack);
    run_ctx r = {pack, file.map, NULL, h->page_size, 64, NULL, 0};
    r.pages = aligned_alloc(64, r.page_size * r.ring);
    memset(r.pages, 0, r.page_size * r.ring); /* touched: no page fault in the timing */
    run_ctx rp = r;
    if (pread_pack != NULL) {
        rp.pack = pread_pack;
        rp.scratch_size = slc_pack_scratch_size(pread_pack);
        rp.scratch = malloc(rp.scratch_size + 1);
    }
    const char *labels[] = {"plain LZ4_decompress_safe", "slc_pack_load_chunk (mapped)", "slc_pack_load_chunk (pread)"};
    int modes = pread_pack ? 3 : 2;
    double gbps[3][32];
    uint64_t decoded = 0;
    for (int m = 0; m < modes; m++) {
        pass(m == 2 ? &rp : &r, m == 2 ? MODE_LOAD : m); /* warm the page cache and the code */
    }
    for (int k = 0; k < repeats; k++) {
        for (int m = 0; m < modes; m++) { /* interleaved, so noise falls on every mode alike */
            uint64_t t0 = slc_platform_now_ns();
            decoded = pass(m == 2 ? &rp : &r, m == 2 ? MODE_LOAD : m);
            uint64_t t1 = slc_platform_now_ns();
            if (decoded == 0) {
                fprintf(stderr, "sluice bench load: a chunk failed to load\n");
                return CLI_FAILED;
            }
            gbps[m][k] = (double)decoded / (double)(t1 - t0);
        }
    }
    printf("sluice bench load %s: %u chunks, %llu decoded bytes a pass, median of %d passes\n\n", path,
           h->chunk_count, (unsigned long long)decoded, repeats);
    printf("%-32s %10s %10s\n", "path", "GB/s", "vs raw");
    double base = 0;
    for (int m = 0; m < modes; m++) {
        qsort(gbps[m], (size_t)repeats, sizeof gbps[m][0], cmp_double);
        double med = gbps[m][repeats / 2];
        if (m == 0) {
            base = med;
        }
        printf("%-32s %10.2f %9.2fx\n", labels[m], med, med / base);
    }
    printf("\nGB/s of decoded bytes; the load path adds the XXH3 of the stored bytes (and, for pread, the read)\n");
    free(rp.scratch);
    free(r.pages);
    if (pread_pack) {
        slc_pack_close(pread_pack);
        slc_platform_file_close(&pread_file);
    }
    slc_pack_close(pack);
    free(arena_mem);
    slc_platform_file_close(&file);
    return CLI_OK;
}
