/* SPDX-License-Identifier: MIT */
/* sluice bench load: chunk load (read + verify + decode into the page)
 * against plain LZ4_decompress_safe of the same chunks, in one run. */
#include <lz4.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cli.h"
#include "sluice/platform.h"

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
        const slc_pack_chunk *c = slc_pack_get_chunk(r->pack, (slc_chunk_id){i});
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
        } else if (slc_pack_load_chunk(r->pack, (slc_chunk_id){i}, page, r->page_size, r->scratch, r->scratch_size) !=
                   SLC_OK) {
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
    int quick = 0;
    const cli_opt table[] = {
        {.name = "--quick",
         .kind = CLI_OPT_FLAG,
         .dest = &quick,
         .help = "fewer repeats (a smoke run, not a measurement)"},
        {.name = "--pread", .kind = CLI_OPT_FLAG, .dest = &use_pread, .help = "also measure loads through pread"},
    };
    size_t operands = 0;
    const cli_args spec = {.me = "sluice bench load",
                           .opts = table,
                           .count = sizeof table / sizeof table[0],
                           .operands = &path,
                           .max_operands = 1,
                           .operand_count = &operands,
                           .help_column = 14};
    if (cli_wants_help(argc, argv)) {
        return bench_help(&spec, "usage: sluice bench load PACK [--quick] [--pread]\n\n"
                                 "Chunk load (read, verify, decode) through the pack reader against plain\n"
                                 "LZ4_decompress_safe of the same chunks, mapped and through pread.\n\n");
    }
    if (cli_args_parse(&spec, argc, argv) != CLI_OK) {
        path = NULL; /* any error: the usage below */
    }
    repeats = quick ? 3 : repeats;
    if (path == NULL) {
        fprintf(stderr, "usage: sluice bench load PACK [--quick] [--pread]\n");
        return CLI_USAGE;
    }
    cli_pack mapped, direct;
    int rc = cli_pack_open(path, 0, &cli_stderr_logger, &mapped);
    if (rc != CLI_OK) {
        return rc;
    }
    if (mapped.file.map == NULL) {
        fprintf(stderr, "sluice bench load: %s could not be mapped\n", path);
        cli_pack_close(&mapped);
        return CLI_FAILED;
    }
    if (use_pread && (rc = cli_pack_open(path, SLC_PLATFORM_FILE_PREAD, &cli_stderr_logger, &direct)) != CLI_OK) {
        cli_pack_close(&mapped);
        return rc;
    }
    const slc_pack *pack = mapped.pack, *pread_pack = use_pread ? direct.pack : NULL;
    const slc_pack_header *h = slc_pack_get_header(pack);
    run_ctx r = {pack, mapped.file.map, NULL, h->page_size, 64, NULL, 0};
    r.pages = aligned_alloc(64, r.page_size * r.ring);
    memset(r.pages, 0, r.page_size * r.ring); /* touched: no page fault in the timing */
    /* A mapped pack needs scratch too where it has meshopt chunks (their
     * LZ4 block and one cluster's indices); 0 bytes for LZ4 and stored. */
    r.scratch_size = slc_pack_scratch_size(pack);
    r.scratch = malloc(r.scratch_size + 1);
    run_ctx rp = r;
    rp.scratch = NULL;
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
    rc = CLI_OK;
    for (int k = 0; k < repeats && rc == CLI_OK; k++) {
        for (int m = 0; m < modes; m++) { /* interleaved, so noise falls on every mode alike */
            uint64_t t0 = slc_platform_now_ns();
            decoded = pass(m == 2 ? &rp : &r, m == 2 ? MODE_LOAD : m);
            uint64_t t1 = slc_platform_now_ns();
            if (decoded == 0) {
                fprintf(stderr, "sluice bench load: a chunk failed to load\n");
                rc = CLI_FAILED;
                break;
            }
            gbps[m][k] = (double)decoded / (double)(t1 - t0);
        }
    }
    if (rc == CLI_OK) {
        printf("sluice bench load %s: %u chunks, %llu decoded bytes a pass, median of %d passes\n\n", path,
               h->chunk_count, (unsigned long long)decoded, repeats);
        printf("%-32s %10s %10s\n", "path", "GB/s", "vs raw");
        double base = 0;
        for (int m = 0; m < modes; m++) {
            qsort(gbps[m], (size_t)repeats, sizeof gbps[m][0], cli_cmp_double);
            double med = gbps[m][repeats / 2];
            if (m == 0) {
                base = med;
            }
            printf("%-32s %10.2f %9.2fx\n", labels[m], med, med / base);
        }
        printf("\nGB/s of decoded bytes; the load path adds the XXH3 of the stored bytes (and, for pread, the read)\n");
        uint32_t meshopt = 0;
        for (uint32_t i = 0; i < h->chunk_count; i++) {
            meshopt += slc_pack_get_chunk(pack, (slc_chunk_id){i})->codec > SLC_PACK_CODEC_LZ4;
        }
        if (meshopt > 0) {
            printf("%u meshopt chunks: the plain row copies their stored bytes, it does not decode them\n", meshopt);
        }
    }
    free(rp.scratch);
    free(r.scratch);
    free(r.pages);
    if (use_pread) {
        cli_pack_close(&direct);
    }
    cli_pack_close(&mapped);
    return rc;
}
