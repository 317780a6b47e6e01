/* SPDX-License-Identifier: MIT */
/* sluice bench: the dispatcher. Each bench is one file in tools/bench/ and
 * one row of the table below: its word, its entry, its synopsis (what
 * `sluice bench` prints when the word is missing or unknown) and its lines
 * in `sluice help`. */
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "cli.h"

typedef struct bench_entry {
    const char *name;                  /* the word after "sluice bench" */
    int (*run)(int argc, char **argv); /* argv: the arguments after the word */
    const char *synopsis;              /* after "sluice bench ", continuation lines indented */
    const char *help;                  /* its lines in sluice help, the synopsis included */
} bench_entry;

static const bench_entry benches[] = {
    {"alloc", bench_alloc, "alloc [--quick] [--json]",
     "  bench alloc [--quick] [--json]    reserve/release, arena and block-pool costs\n"
     "                                    against glibc malloc/free in the same run\n"},
    {"load", bench_load, "load PACK [--quick] [--pread]",
     "  bench load PACK [--quick] [--pread]\n"
     "                                    chunk load (read, verify, decode) against plain\n"
     "                                    LZ4_decompress_safe of the same chunks\n"},
    {"pool", bench_pool, "pool [--quick]",
     "  bench pool [--quick]              page pool acquire, lookup and touch at 1k, 64k and 1M\n"
     "                                    pages (host backend) against an O(n) scan policy\n"},
    {"stream", bench_stream,
     "stream PACK [--profile FILE] [--workers N] [--reps N] [--pool-pages N]\n"
     "                           [--json]",
     "  bench stream PACK [--profile FILE] [--workers N] [--reps N] [--pool-pages N] [--json]\n"
     "                                    the stream scheduler end to end (host backend): GB/s\n"
     "                                    against plain LZ4 decode, ns a request on hits and\n"
     "                                    misses, peak RSS through a pool of pack/50 against\n"
     "                                    loading everything\n"},
    {"render", bench_render,
     "render [--synthetic KIND[:SIZE] | PACK [PACK]] [--size WxH] [--frames N]\n"
     "                           [--repeat R] [--profile FILE] [--breakdown] [--validate]",
     "  bench render [--synthetic KIND[:SIZE] | PACK [PACK]] [--size WxH] [--frames N] [--repeat R]\n"
     "                                    GPU ms a frame drawing the resident pages by vertex\n"
     "                                    pulling (Vulkan) against ordinary vertex and index\n"
     "                                    buffers, float and quantized\n"},
    {"codec", bench_codec,
     "codec INPUT.gltf|INPUT.glb... [--reps N] [--quick] [--json]\n"
     "                          [--gltfpack PROG] [--lz4 PROG]",
     "  bench codec INPUT.gltf|.glb... [--reps N] [--quick] [--json] [--gltfpack PROG] [--lz4 PROG]\n"
     "                                    pack bytes at LOD 0 per chunk codec against gltfpack -cc\n"
     "                                    + lz4 -9, and each codec's decode GB/s on one core\n"
     "                                    against memcpy\n"},
    {"evict", bench_evict, "evict PACK [--trace FILE | --camera PATH] [--profile FILE] [--json]",
     "  bench evict PACK [--trace FILE | --camera PATH] [--profile FILE] [--json]\n"
     "                                    chunk loads of each eviction policy against Belady's\n"
     "                                    optimum on one request sequence\n"},
    {"lod", bench_lod,
     "lod PACK|GLTF [--object N] [--size WxH] [--sse PX] [--check] [--coverage-tol F]\n"
     "                        [--sheet FILE] [--json] [--profile FILE] [--validate]",
     "  bench lod PACK|GLTF [--object N] [--size WxH] [--sse PX] [--check] [--coverage-tol F] [--sheet FILE]\n"
     "                    [--json] [--profile FILE] [--validate]\n"
     "                                    each level rendered against level 0 from 8 views (Vulkan):\n"
     "                                    coverage, PSNR, mask distance in pixels, and the level\n"
     "                                    the screen-space error rule serves checked against it\n"},
};

enum { BENCH_COUNT = sizeof benches / sizeof benches[0] };

void bench_print_usage(FILE *f)
{
    for (size_t i = 0; i < BENCH_COUNT; i++) {
        fprintf(f, "%s sluice bench %s\n", i == 0 ? "usage:" : "      ", benches[i].synopsis);
    }
    fputs("(sluice bench SUBCOMMAND --help: what it measures)\n", f);
}

void bench_print_help(FILE *f)
{
    for (size_t i = 0; i < BENCH_COUNT; i++) {
        fputs(benches[i].help, f);
    }
}

int cmd_bench(int argc, char **argv)
{
    for (size_t i = 0; argc >= 1 && i < BENCH_COUNT; i++) {
        if (strcmp(argv[0], benches[i].name) == 0) {
            int rc = benches[i].run(argc - 1, argv + 1);
            if (rc == BENCH_USAGE_ALL) {
                bench_print_usage(stderr);
                rc = CLI_USAGE;
            }
            return rc;
        }
    }
    int help = argc >= 1 && (strcmp(argv[0], "--help") == 0 || strcmp(argv[0], "-h") == 0);
    bench_print_usage(help ? stdout : stderr);
    return help ? CLI_OK : CLI_USAGE;
}
