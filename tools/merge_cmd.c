/* SPDX-License-Identifier: MIT */
/* sluice merge: join the partial packs of `sluice pack --part K/N` into the
 * pack one process would have written (tools/pack/part.h, pack_writer.h). */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include <lz4.h>

#include "atomic_file.h"
#include "cli.h"
#include "pack/builder.h"
#include "pack/pack_writer.h"
#include "pack/part.h"
#include "progress.h"

static const char merge_usage_head[] =
    "usage: sluice merge PART... -o OUT.pack [--quiet]\n"
    "\n"
    "Joins the parts written by `sluice pack ... --part K/N` (every K from 1 to N,\n"
    "in any order) into OUT.pack, byte for byte the pack `sluice pack` writes from\n"
    "the same inputs and options. Every part is checked before anything is written.\n"
    "\n"
    "options:\n";

static void merge_usage(FILE *f, const cli_args *spec)
{
    fputs(merge_usage_head, f);
    cli_args_print_options(f, spec);
}

static double seconds_since(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) * 1e-9;
}

static void merge_summary(const char *out, uint32_t parts, uint32_t bundles, uint64_t read_bytes,
                          const pk_writer_stats *s, uint32_t page_size, double secs)
{
    char a[32], b[32], c[32];
    uint64_t rss = 0;
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) == 0) {
        rss = (uint64_t)ru.ru_maxrss * 1024u; /* Linux: KiB */
    }
    printf("%s: %u objects, %u instances from %u parts (%u bundles)\n", out, s->objects, s->instances, parts, bundles);
    printf("  chunks       %u (%u deduplicated, %u stored raw), %s pages, %.1f%% full\n", s->chunks,
           s->chunks_deduplicated, s->chunks_stored_raw, cli_size_approx(page_size, a, sizeof a),
           s->chunks > 0 ? (double)s->bytes_raw * 100.0 / ((double)s->chunks * page_size) : 0.0);
    printf("  codecs       %u stored, %u lz4, %u meshopt, %u meshopt-lz4\n", s->chunks_codec[SLC_PACK_CODEC_STORED],
           s->chunks_codec[SLC_PACK_CODEC_LZ4], s->chunks_codec[SLC_PACK_CODEC_MESHOPT],
           s->chunks_codec[SLC_PACK_CODEC_MESHOPT_LZ4]);
    printf("  bytes        %s decoded, %s stored, ratio %.3f; file %s\n", cli_size_approx(s->bytes_raw, a, sizeof a),
           cli_size_approx(s->bytes_stored, b, sizeof b),
           s->bytes_stored > 0 ? (double)s->bytes_raw / (double)s->bytes_stored : 0.0,
           cli_size_approx(s->file_size, c, sizeof c));
    printf("  parts        %s read in %.2f s: %.1f MB/s\n", cli_size_approx(read_bytes, a, sizeof a), secs,
           secs > 0.0 ? (double)read_bytes / secs / 1e6 : 0.0);
    printf("  peak memory  %s resident\n", cli_size_approx(rss, a, sizeof a));
}

/* A part given on the command line. */
typedef struct part_slot {
    pk_part_reader *reader;
    const char *path;
} part_slot;

/* Opens and checks every part, then that they are the N parts of one pack:
 * the same N, fingerprint, bundle count, page size and quantization, each
 * K once. by_k[K - 1] receives part K. CLI_OK, or the printed refusal. */
static int open_parts(const char **paths, size_t count, part_slot *given, part_slot *by_k)
{
    pk_diag d;
    memset(&d, 0, sizeof d);
    for (size_t i = 0; i < count; i++) {
        given[i].path = paths[i];
        int rc = pk_part_reader_open(paths[i], &given[i].reader, &d);
        if (rc != 0) {
            fprintf(stderr, "sluice merge: %s; nothing written\n", d.message);
            return rc == -2 ? CLI_IO : CLI_FAILED;
        }
    }
    const pk_part_header *h0 = pk_part_reader_header(given[0].reader);
    if (count > h0->part_count) {
        fprintf(stderr, "sluice merge: %zu parts given, '%s' is one of %u; nothing written\n", count, paths[0],
                h0->part_count);
        return CLI_FAILED;
    }
    for (size_t i = 0; i < count; i++) {
        const pk_part_header *h = pk_part_reader_header(given[i].reader);
        if (h->part_count != h0->part_count) {
            fprintf(stderr, "sluice merge: %s: part %u of %u, but '%s' is part %u of %u; nothing written\n", paths[i],
                    h->part, h->part_count, paths[0], h0->part, h0->part_count);
            return CLI_FAILED;
        }
        if (h->fingerprint != h0->fingerprint || h->bundle_count != h0->bundle_count || h->page_size != h0->page_size ||
            h->quantize != h0->quantize) {
            fprintf(stderr,
                    "sluice merge: %s: not a part of the same pack as '%s' (fingerprint %016llx, not %016llx: other "
                    "inputs or options); nothing written\n",
                    paths[i], paths[0], (unsigned long long)h->fingerprint, (unsigned long long)h0->fingerprint);
            return CLI_FAILED;
        }
        if (by_k[h->part - 1].reader != NULL) {
            fprintf(stderr, "sluice merge: %s: part %u of %u given twice (also '%s'); nothing written\n", paths[i],
                    h->part, h->part_count, by_k[h->part - 1].path);
            return CLI_FAILED;
        }
        by_k[h->part - 1] = given[i];
    }
    for (uint32_t k = 0; k < h0->part_count; k++) {
        if (by_k[k].reader == NULL) {
            fprintf(stderr, "sluice merge: part %u of %u is missing (%zu of %u given); nothing written\n", k + 1,
                    h0->part_count, count, h0->part_count);
            return CLI_FAILED;
        }
    }
    if (h0->page_size < SLC_PAGE_SIZE_MIN || h0->page_size > SLC_PAGE_SIZE_MAX ||
        (h0->page_size & (h0->page_size - 1)) != 0) {
        fprintf(stderr, "sluice merge: %s: page size %u is not a power of two from %u to %u; nothing written\n",
                paths[0], h0->page_size, SLC_PAGE_SIZE_MIN, SLC_PAGE_SIZE_MAX);
        return CLI_FAILED;
    }
    return CLI_OK;
}

/* Appends bundle b from its part: records, then payloads through buf. */
static int merge_bundle(pk_writer *w, pk_part_reader *r, uint32_t b, uint32_t n, unsigned char *buf, size_t cap,
                        uint64_t *read_bytes, pk_diag *d)
{
    const pk_part_entry *e = NULL;
    pk_part_records rec;
    if (pk_part_load_bundle(r, b / n, &e, &rec, d) != 0) {
        return -1;
    }
    if (e->first_object != pk_writer_object_count(w)) {
        return pk_fail(d, "bundle %u starts at object %u, the bundles before it end at %u", b, e->first_object,
                       pk_writer_object_count(w));
    }
    *read_bytes += e->records_size;
    for (uint32_t i = 0; i < e->chunk_count; i++) {
        uint32_t id = rec.order[i];
        slc_pack_chunk c = rec.chunks[id];
        if (c.stored_size > cap) {
            return pk_fail(d, "bundle %u: chunk %u stores %u bytes, more than a page's bound %zu", b, id, c.stored_size,
                           cap);
        }
        if (pk_part_read(r, c.offset, buf, c.stored_size, d) != 0 || pk_writer_chunk(w, id, &c, buf, d) != 0) {
            return -1;
        }
        *read_bytes += c.stored_size;
    }
    return pk_writer_bundle(w, &rec.r, d);
}

/* The checked parts (by_k: part K at K - 1) appended into out, bundle by
 * bundle. CLI_OK, or the printed failure (the target as it was). */
static int merge_parts(const part_slot *by_k, const char *out, uint32_t parts_given, int quiet,
                       const struct timespec *t0)
{
    const pk_part_header *h = pk_part_reader_header(by_k[0].reader);
    size_t cap = (size_t)LZ4_compressBound((int)h->page_size);
    unsigned char *buf = malloc(cap);
    if (buf == NULL) {
        fprintf(stderr, "sluice merge: out of memory\n");
        return CLI_FAILED;
    }
    pk_diag d;
    memset(&d, 0, sizeof d);
    pk_writer *w = NULL;
    if (pk_writer_open(out, h->page_size, (int)h->quantize, &w, &d) != 0) {
        free(buf);
        fprintf(stderr, "sluice merge: %s\n", d.message);
        return CLI_IO;
    }
    uint64_t read_bytes = 0, total = 0;
    for (uint32_t k = 0; k < parts_given; k++) { /* every part, each once: checked by the caller */
        struct stat sb;
        total += stat(by_k[k].path, &sb) == 0 ? (uint64_t)sb.st_size : 0u;
    }
    progress pg;
    progress_start(&pg, total, "merge", quiet);
    char what[64];
    for (uint32_t b = 0; b < h->bundle_count; b++) {
        const part_slot *p = &by_k[b % h->part_count];
        snprintf(what, sizeof what, "bundle %u of %u", b + 1, h->bundle_count);
        progress_update(&pg, read_bytes, what);
        if (merge_bundle(w, p->reader, b, h->part_count, buf, cap, &read_bytes, &d) != 0) {
            progress_end(&pg);
            fprintf(stderr, "sluice merge: %s: %s; nothing written\n", p->path, d.message);
            int rc = pk_writer_io_failed(w) ? CLI_IO : CLI_FAILED;
            pk_writer_abort(w);
            free(buf);
            return rc;
        }
    }
    free(buf);
    progress_update(&pg, total, "writing tables");
    pk_writer_stats st;
    memset(&st, 0, sizeof st);
    int finished = pk_writer_finish(w, &st, &d);
    progress_end(&pg);
    if (finished != 0) {
        fprintf(stderr, "sluice merge: %s\n", d.message);
        return CLI_IO;
    }
    if (!quiet) {
        merge_summary(out, parts_given, h->bundle_count, read_bytes, &st, h->page_size, seconds_since(t0));
    }
    return CLI_OK;
}

static int merge_main(const char **paths, size_t count, const char *out, int quiet)
{
    int same = atomic_file_find_input(out, paths, count);
    if (same >= 0) {
        fprintf(stderr, "sluice merge: output '%s' is a part ('%s'); nothing written\n", out, paths[same]);
        return CLI_USAGE;
    }
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    part_slot *given = calloc(count, sizeof *given);
    part_slot *by_k = calloc(PK_PART_MAX_PARTS, sizeof *by_k);
    int rc;
    if (given == NULL || by_k == NULL) {
        fprintf(stderr, "sluice merge: out of memory\n");
        rc = CLI_FAILED;
    } else {
        rc = open_parts(paths, count, given, by_k);
        if (rc == CLI_OK) {
            rc = merge_parts(by_k, out, (uint32_t)count, quiet, &t0);
        }
    }
    for (size_t i = 0; given != NULL && i < count; i++) {
        pk_part_reader_close(given[i].reader);
    }
    free(given);
    free(by_k);
    return rc;
}

int cmd_merge(int argc, char **argv)
{
    const char **parts = calloc((size_t)argc + 1, sizeof *parts);
    if (parts == NULL) {
        fprintf(stderr, "sluice merge: out of memory\n");
        return CLI_FAILED;
    }
    const char *out = NULL;
    int quiet = 0;
    const cli_opt table[] = {
        {.name = "--output",
         .alias = "-o",
         .kind = CLI_OPT_STRING,
         .dest = &out,
         .arg = "FILE",
         .help = "the pack to write"},
        {.name = "--quiet", .kind = CLI_OPT_FLAG, .dest = &quiet, .help = "print errors only"},
    };
    size_t count = 0;
    const cli_args spec = {.me = "sluice merge",
                           .opts = table,
                           .count = sizeof table / sizeof table[0],
                           .operands = parts,
                           .max_operands = (size_t)argc,
                           .operand_count = &count,
                           .missing = "{opt} needs a value",
                           .unknown = "unknown option '{value}'",
                           .print_usage = merge_usage,
                           .usage_after = CLI_ARGS_UNKNOWN,
                           .help = 1,
                           .help_column = 25};
    int rc = cli_args_parse(&spec, argc, argv);
    if (rc == CLI_ARGS_HELP) {
        merge_usage(stdout, &spec);
        rc = CLI_OK;
    } else if (rc == CLI_OK && (count == 0 || out == NULL)) {
        fprintf(stderr, "sluice merge: %s\n", count == 0 ? "no PART given" : "no -o OUT.pack given");
        merge_usage(stderr, &spec);
        rc = CLI_USAGE;
    } else if (rc == CLI_OK) {
        rc = merge_main(parts, count, out, quiet);
    }
    free(parts);
    return rc;
}
