/* SPDX-License-Identifier: MIT */
/* sluice pack: build a pack from input files or a synthetic scene, each read
 * by its importer (pack/importer.h). */
#define _GNU_SOURCE /* realpath */

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atomic_file.h"
#include "cli.h"
#include "builder.h"
#include "encode.h"
#include "importer.h"
#include "pack_limits.h"
#include "pack_ninja.h"
#include "pack_writer.h"
#include "progress.h"

static const char pack_usage_head[] =
    "usage: sluice pack [options] INPUT.gltf|INPUT.glb|INPUT.usd[a|c|z]... -o OUT.pack\n"
    "       sluice pack --synthetic city [--size SIZE] [--seed N] [options] -o OUT.pack\n"
    "       sluice pack ... --part K/N -o OUT.part   (then: sluice merge PART... -o OUT.pack)\n"
    "       sluice pack ... --emit-ninja FILE --parts N -o OUT.pack   (then: ninja -f FILE -j J)\n"
    "\n"
    "options:\n";

static const char pack_usage_tail[] =
    "SIZE: bytes, or a number with K, M, G, T (KiB, MiB, GiB, TiB) or kB, MB, GB\n"
    "The output is never one of the inputs (a glTF, a GLB, a file a glTF reads or a USD layer): that is refused.\n"
    "USD inputs are told by their bytes (#usda, PXR-USDC, a zip); anything else is read as glTF.\n"
    "--part K/N: every part reads every input; part K builds the bundles b with b % N == K - 1.\n"
    "The merged parts are byte for byte the pack one process writes; --jobs never changes the bytes.\n";

/* The usage: the head, every option of the table, the tail. */
static void pack_usage(FILE *f, const cli_args *spec)
{
    fputs(pack_usage_head, f);
    cli_args_print_options(f, spec);
    fputs(pack_usage_tail, f);
}

/* A texture's line of the summary: what the builder told of it
 * (pk_texture_built), its source's name copied (texture_source). */
#define TEXTURE_SOURCE_MAX 128u
typedef struct texture_line {
    uint32_t index, width, height, format;
    pk_mip_kind kind;
    double psnr, decode_seconds, encode_seconds;
    char source[TEXTURE_SOURCE_MAX];
} texture_line;

/* With more textures than this the summary lists the TEXTURE_LINES_WORST
 * of lowest PSNR and one line for the others. */
#define TEXTURE_LINES_ALL 16u
#define TEXTURE_LINES_WORST 8u

/* What the importers' callbacks reach: the builder once it is open, the
 * progress bar once it is started. */
typedef struct pack_ctx {
    int quiet;
    pk_builder *b;       /* NULL until the inputs are checked */
    progress *pg;        /* NULL until the bar is started */
    uint64_t base;       /* the bar's bytes before the input being imported */
    uint32_t added;      /* meshes that became objects */
    int textures;        /* the images are packed (--texture-format is not none) */
    texture_line *lines; /* the textures built, for the summary (none with --quiet) */
    uint32_t line_count, line_cap;
} pack_ctx;

/* An opened input: the importer and its state are both set (open) or both
 * NULL (closed); nothing is imported from a closed one. */
typedef struct pack_source {
    const char *path; /* as messages name it: the file, or the generated kind */
    const pk_importer *imp;
    void *state;
} pack_source;

static void source_close(pack_source *s)
{
    if (s->imp != NULL) {
        s->imp->close(s->state);
    }
    s->imp = NULL;
    s->state = NULL;
}

/* A warning of an importer, unless --quiet; a progress line is cleared
 * first. */
static void warn_stderr(void *user, const char *message)
{
    const pack_ctx *c = user;
    if (!c->quiet) {
        if (c->pg != NULL) {
            progress_end(c->pg);
        }
        fprintf(stderr, "sluice: warning: %s\n", message);
    }
}

/* name into dst (cap bytes) as the summary prints it: a control byte (C0,
 * DEL) as '?', the rest as it is; a name too long is cut at a character
 * boundary (UTF-8) and ends "..."; none is "-". */
static void texture_source(const char *name, char *dst, size_t cap)
{
    if (name[0] == '\0') {
        name = "-";
    }
    size_t n = strlen(name);
    if (n >= cap) {
        n = cap - 4u;
        while (n > 0 && ((unsigned char)name[n] & 0xc0u) == 0x80u) { /* a continuation byte */
            n--;
        }
    }
    for (size_t i = 0; i < n; i++) {
        const unsigned char ch = (unsigned char)name[i];
        dst[i] = name[i];
        if (ch < 0x20u || ch == 0x7fu) {
            dst[i] = '?';
        }
    }
    if (n < strlen(name)) {
        memcpy(dst + n, "...", 3);
        n += 3;
    }
    dst[n] = '\0';
}

/* The builder's listener (pk_builder_on_texture): the texture's line kept. */
static int note_texture(void *user, const pk_texture_built *t, pk_diag *d)
{
    pack_ctx *c = user;
    if (pk_grow((void **)&c->lines, &c->line_cap, (uint64_t)c->line_count + 1u, sizeof *c->lines) != 0) {
        return pk_fail(d, "%s: out of memory for the summary's texture lines", t->name);
    }
    texture_line *l = &c->lines[c->line_count++];
    l->index = t->index;
    l->width = t->width;
    l->height = t->height;
    l->format = t->format;
    l->kind = t->kind;
    l->psnr = t->psnr;
    l->decode_seconds = t->decode_seconds;
    l->encode_seconds = t->encode_seconds;
    texture_source(t->name, l->source, sizeof l->source);
    return 0;
}

static int by_index(const void *pa, const void *pb)
{
    const texture_line *a = pa, *b = pb;
    return (a->index > b->index) - (a->index < b->index);
}

static int by_psnr(const void *pa, const void *pb)
{
    const texture_line *a = pa, *b = pb;
    if (a->psnr != b->psnr) {
        return a->psnr < b->psnr ? -1 : 1;
    }
    return by_index(pa, pb);
}

/* A level-0 PSNR as the summary prints it: "exact" for identical texels. */
static const char *psnr_text(double psnr, char *buf, size_t cap)
{
    if (psnr >= PK_ENCODE_PSNR_IDENTICAL) {
        snprintf(buf, cap, "exact");
    } else {
        snprintf(buf, cap, "%.2f dB", psnr);
    }
    return buf;
}

#define TEXTURE_ROW "    %-6s %-11s %-7s %-8s %9s %8s %8s  %s\n"

static void texture_row(const texture_line *l)
{
    static const char *const kinds[] = {"colour", "data", "normal"};
    char index[16], size[32], psnr[32], decode[32], encode[32];
    snprintf(index, sizeof index, "%u", l->index);
    snprintf(size, sizeof size, "%ux%u", l->width, l->height);
    snprintf(decode, sizeof decode, "%.2f s", l->decode_seconds);
    snprintf(encode, sizeof encode, "%.2f s", l->encode_seconds);
    const char *kind = l->kind >= PK_MIP_COLOR && l->kind <= PK_MIP_NORMAL ? kinds[l->kind - PK_MIP_COLOR] : "?";
    const char *format = slc_pack_texel_format_name(l->format);
    printf(TEXTURE_ROW, index, size, kind, format != NULL ? format : "?", psnr_text(l->psnr, psnr, sizeof psnr), decode,
           encode, l->source);
}

/* The textures' times and a line per texture built (sorted by index; with
 * more than TEXTURE_LINES_ALL, the TEXTURE_LINES_WORST of lowest PSNR and
 * one line for the others). Sorts lines. Everything but the times is the
 * same for any --jobs. */
static void texture_summary(const pk_build_stats *s, texture_line *lines, uint32_t n)
{
    const int all = n <= TEXTURE_LINES_ALL;
    char what[96] = "";
    if (n > 0) {
        if (all) {
            snprintf(what, sizeof what, "; level-0 PSNR against the decoded image:");
        } else {
            snprintf(what, sizeof what,
                     "; the %u of %u with the lowest level-0 PSNR against the decoded image:", TEXTURE_LINES_WORST, n);
        }
    }
    printf("  textures     decode %.2f s, encode %.2f s%s\n", s->texture_decode_seconds, s->texture_encode_seconds,
           what);
    if (n == 0) {
        return;
    }
    qsort(lines, n, sizeof *lines, all ? by_index : by_psnr);
    printf(TEXTURE_ROW, "index", "size", "kind", "format", "PSNR", "decode", "encode", "source");
    const uint32_t shown = all ? n : TEXTURE_LINES_WORST;
    for (uint32_t i = 0; i < shown; i++) {
        texture_row(&lines[i]);
    }
    if (!all) {
        char lo[32], mid[32], hi[32];
        printf("    %u more; level-0 PSNR of all %u: min %s, median %s, max %s\n", n - shown, n,
               psnr_text(lines[0].psnr, lo, sizeof lo), psnr_text(lines[(n - 1u) / 2u].psnr, mid, sizeof mid),
               psnr_text(lines[n - 1u].psnr, hi, sizeof hi));
    }
}

static void summary(const char *out, const pk_build_stats *s, texture_line *lines, uint32_t line_count)
{
    char a[32], b[32], c[32], e[32];
    if (s->options.part_count > 0) {
        printf("%s: part %u of %u: %u of %u bundles built\n", out, s->options.part, s->options.part_count,
               s->bundles_built, s->bundles);
    }
    printf("%s: %u objects from %u meshes (%u identical to an earlier one), %u instances\n", out, s->objects,
           s->meshes + s->meshes_deduplicated, s->meshes_deduplicated, s->instances);
    printf("  triangles    %llu at level 0, %llu in all levels; %llu clusters\n", (unsigned long long)s->triangles_lod0,
           (unsigned long long)s->triangles_all, (unsigned long long)s->clusters);
    printf("  chunks       %u (%u deduplicated, %u stored raw), %s pages, %.1f%% full\n", s->chunks,
           s->chunks_deduplicated, s->chunks_stored_raw, pk_human_bytes(s->options.page_size, a, sizeof a),
           s->page_fill * 100.0);
    printf("  codecs       %u stored, %u lz4, %u meshopt, %u meshopt-lz4 (--codec %s)\n",
           s->chunks_codec[SLC_PACK_CODEC_STORED], s->chunks_codec[SLC_PACK_CODEC_LZ4],
           s->chunks_codec[SLC_PACK_CODEC_MESHOPT], s->chunks_codec[SLC_PACK_CODEC_MESHOPT_LZ4],
           pk_codec_names[s->options.codec]);
    uint32_t needs = 0;
    for (uint32_t k = 0; k < SLC_PACK_CODEC_COUNT; k++) {
        needs |= s->chunks_codec[k] > 0 ? slc_pack_codec_needs(k) : 0u;
    }
    if ((needs & SLC_PACK_BUILD_MESHOPT) != 0u) {
        char n[96];
        printf("  runtime      needs %s to read it (--target-runtime limits the codecs)\n",
               cli_codec_needs(needs, n, sizeof n));
    }
    if (s->options.texture_format == PK_TEXTURES_NONE && s->materials > 0) {
        printf("  materials    %u; textures not packed (--texture-format none)\n", s->materials);
    } else if (s->materials > 0 || s->textures > 0) {
        printf("  materials    %u; textures %u (for %u slots), %s, %.2f Mtexels in %s decoded, %s stored\n",
               s->materials, s->textures, s->textures_added, slc_pack_texel_format_name(s->options.texture_format),
               (double)s->texture_texels / 1e6, pk_human_bytes((double)s->texture_bytes, a, sizeof a),
               pk_human_bytes((double)s->texture_stored, b, sizeof b));
        if (s->textures_added > 0) {
            texture_summary(s, lines, line_count);
        }
    }
    printf("  bytes        %s decoded, %s stored, ratio %.3f; file %s\n",
           pk_human_bytes((double)s->bytes_raw, a, sizeof a), pk_human_bytes((double)s->bytes_stored, b, sizeof b),
           s->ratio, pk_human_bytes((double)s->file_size, c, sizeof c));
    printf("  input        %s of float vertices and indices in %.2f s: %.1f MB/s\n",
           pk_human_bytes((double)s->input_bytes, e, sizeof e), s->seconds,
           s->seconds > 0.0 ? (double)s->input_bytes / s->seconds / 1e6 : 0.0);
    printf("  peak memory  %s resident\n", pk_human_bytes((double)s->peak_rss, a, sizeof a));
    printf("  jobs         %u; at most %u meshes and %u pages in flight; %u bundles of %s\n", s->options.jobs,
           s->peak_meshes_in_flight, s->peak_pages_in_flight, s->bundles,
           pk_human_bytes((double)s->options.bundle_size, a, sizeof a));
}

/* --texture-format's names and the formats they stand for (index 0, the
 * default, first). */
static const char *const texture_format_names[] = {"rgba8",   "bc1",     "bc3",  "astc4x4",
                                                   "astc6x6", "astc8x8", "none", NULL};
static const uint32_t texture_format_values[] = {
    SLC_PACK_TEXEL_RGBA8,    SLC_PACK_TEXEL_BC1,      SLC_PACK_TEXEL_BC3, SLC_PACK_TEXEL_ASTC_4X4,
    SLC_PACK_TEXEL_ASTC_6X6, SLC_PACK_TEXEL_ASTC_8X8, PK_TEXTURES_NONE};
static const char *const texture_quality_names[] = {"medium", "fast", "thorough", NULL};

/* Opens a file input with the importer that reads it: CLI_OK with *src
 * open, CLI_IO (the file cannot be opened) or CLI_FAILED (the importer's
 * message), printed, *src closed. */
static int open_input(const char *path, const pk_import_options *o, pack_source *src)
{
    src->path = path;
    src->imp = NULL;
    src->state = NULL;
    FILE *probe = fopen(path, "rb");
    if (probe == NULL) {
        fprintf(stderr, "sluice: %s: cannot open: %s\n", path, strerror(errno));
        return CLI_IO;
    }
    (void)fclose(probe); /* read only: nothing to lose */
    const pk_importer *imp = pk_importer_for_file(path);
    pk_diag d;
    memset(&d, 0, sizeof d);
    if (imp->open(path, o, &src->state, &d) != 0) {
        fprintf(stderr, "sluice: %s\n", d.message);
        return CLI_FAILED;
    }
    src->imp = imp;
    return CLI_OK;
}

/* Refuses an output that is the same file (device and inode: a hard link
 * or a symbolic link counts) as one the input reads (a buffer, a layer),
 * so a pack never replaces what it is read from. The inputs themselves
 * are checked by the caller. */
static int check_output_not_read(const char *out, const pack_source *src)
{
    char label[64];
    const char *file;
    const char *in = src->path;
    for (uint32_t i = 0; (file = src->imp->file(src->state, i, label, sizeof label)) != NULL; i++) {
        if (atomic_file_same(out, file)) {
            fprintf(stderr, "sluice pack: output '%s' is an input (%s '%s' of '%s'); nothing written\n", out, label,
                    file, in);
            return CLI_USAGE;
        }
    }
    return CLI_OK;
}

static int sink_mesh(void *user, pk_mesh *m, int owned, uint32_t *object, pk_diag *d)
{
    pack_ctx *c = user;
    int rc = owned ? pk_builder_add_mesh_owned(c->b, m, object, d) : pk_builder_add_mesh(c->b, m, object, d);
    c->added += rc == 0;
    return rc;
}

static int sink_instance(void *user, const pk_instance *inst, pk_diag *d)
{
    const pack_ctx *c = user;
    return pk_builder_add_instance(c->b, inst, d);
}

static int sink_texture(void *user, const pk_image *img, pk_mip_kind kind, pk_wrap wrap_s, pk_wrap wrap_t,
                        const char *name, uint32_t *id, pk_diag *d)
{
    const pack_ctx *c = user;
    return pk_builder_add_texture(c->b, img, kind, wrap_s, wrap_t, name, id, d);
}

static int sink_material(void *user, const pk_material *m, uint32_t *id, pk_diag *d)
{
    const pack_ctx *c = user;
    return pk_builder_add_material(c->b, m, id, d);
}

static void sink_progress(void *user, uint64_t done, const char *what)
{
    const pack_ctx *c = user;
    progress_update(c->pg, c->base + done, what);
}

/* Imports an open input (imp, its state) into the builder, then prints the
 * importer's figures unless quiet; closes the input. */
static int pack_input(pack_ctx *c, pack_source *src, const pk_importer *imp)
{
    void *state = src->state;
    pk_import_scan scan;
    memset(&scan, 0, sizeof scan);
    imp->scan(state, &scan);
    c->base = c->pg->done;
    /* --texture-format none: materials without textures, no image decoded. */
    const pk_import_sink sink = {sink_mesh,    sink_instance, sink_progress, c, c->textures ? sink_texture : NULL,
                                 sink_material};
    pk_diag d;
    memset(&d, 0, sizeof d);
    int rc = CLI_OK;
    if (imp->run(state, &sink, &d) != 0) {
        progress_end(c->pg);
        fprintf(stderr, "sluice: %s\n", d.message);
        rc = pk_builder_write_failed(c->b) ? CLI_IO : CLI_FAILED;
    } else if (!c->quiet) {
        imp->report(state, src->path, stdout);
    }
    source_close(src);
    c->pg->done = c->base + scan.progress_bytes;
    return rc;
}

/* What the command line asks for. */
typedef struct pack_job {
    const char **inputs; /* argc entries */
    int input_count;
    const char *in, *out, *synthetic; /* in: the first input; NULL with --synthetic */
    const char *asset_root;           /* --asset-root DIR, or NULL (tools/pack/asset.h) */
    pack_source generated;            /* --synthetic's, opened from --size and --seed; else closed */
    int skip_unsupported, allow_outside_paths, quiet;
    uint64_t max_placements; /* --max-placements N, or 0 (the USD importer's default) */
    pk_build_options opt;
    pack_graph graph; /* --emit-ninja, --emit-make: a build graph instead of a pack */
} pack_job;

/* The importer options of the command line; reopen as for
 * pk_import_options. */
static pk_import_options import_options(const pack_job *job, pack_ctx *c, int reopen)
{
    pk_import_options o;
    memset(&o, 0, sizeof o);
    o.skip_unsupported = job->skip_unsupported;
    o.allow_outside_paths = job->allow_outside_paths;
    o.asset_root = job->asset_root;
    o.max_placements = job->max_placements;
    o.reopen = reopen;
    o.warn = warn_stderr;
    o.user = c;
    return o;
}

/* "K/N" of --part into opt->part and opt->part_count (printed if bad). */
static int pack_parse_part(const char *text, pk_build_options *opt)
{
    char k_text[16];
    const char *slash = strchr(text, '/');
    size_t k_len = slash != NULL ? (size_t)(slash - text) : 0;
    uint64_t k = 0, n = 0;
    if (slash != NULL && k_len < sizeof k_text) {
        memcpy(k_text, text, k_len);
        k_text[k_len] = '\0';
    }
    if (slash == NULL || k_len >= sizeof k_text || !cli_parse_u64(k_text, PK_MAX_PARTS, &k) ||
        !cli_parse_u64(slash + 1, PK_MAX_PARTS, &n) || k < 1 || k > n) {
        fprintf(stderr, "sluice pack: --part '%s' is not K/N with 1 <= K <= N <= %u\n", text, PK_MAX_PARTS);
        return CLI_USAGE;
    }
    opt->part = (uint32_t)k;
    opt->part_count = (uint32_t)n;
    return CLI_OK;
}

/* --target-runtime LIST, the codecs a runtime decodes ("stored,lz4"), into
 * opt->codecs_allowed; a forced --codec (pk_codec) outside it is refused
 * (both printed). */
static int pack_parse_target(const char *list, int codec, pk_build_options *opt)
{
    uint32_t allowed = 1u << SLC_PACK_CODEC_STORED; /* every runtime reads stored chunks */
    for (const char *at = list;;) {
        size_t len = strcspn(at, ",");
        uint32_t c = 0;
        while (slc_pack_codec_name(c) != NULL &&
               !(strlen(slc_pack_codec_name(c)) == len && strncmp(at, slc_pack_codec_name(c), len) == 0)) {
            c++;
        }
        if (slc_pack_codec_name(c) == NULL) {
            fprintf(stderr,
                    "sluice pack: --target-runtime '%s': '%.*s' is not a codec (a comma-separated list of stored, "
                    "lz4, meshopt and meshopt-lz4)\n",
                    list, (int)len, at);
            return CLI_USAGE;
        }
        allowed |= 1u << c;
        if (at[len] == '\0') {
            break;
        }
        at += len + 1;
    }
    opt->codecs_allowed = allowed;
    /* pk_codec lists auto, then the codecs in SLC_PACK_CODEC_* order */
    uint32_t forced = (uint32_t)(codec - PK_CODEC_STORED);
    if (codec != PK_CODEC_AUTO && !pk_codec_allowed(opt, forced)) {
        char needs[96];
        fprintf(stderr,
                "sluice pack: --codec %s is not in --target-runtime %s: that runtime cannot decode %s chunks "
                "(they need %s)\n",
                pk_codec_names[codec], list, slc_pack_codec_name(forced),
                cli_codec_needs(slc_pack_codec_needs(forced), needs, sizeof needs));
        return CLI_USAGE;
    }
    return CLI_OK;
}

/* The options and inputs, checked before anything is opened or written:
 * CLI_OK, CLI_USAGE (printed), CLI_ARGS_HELP (the help printed), or the
 * code of a --profile that cannot be read (CLI_IO) or parsed (CLI_FAILED). */
static int pack_parse(int argc, char **argv, pack_job *job)
{
    const char *out = NULL, *synthetic = NULL;
    uint64_t size = 64ull << 20, seed = 1, page_size = 0, lz4_level = 0, max_lods = 0, jobs = 0, bundle_size = 0;
    int texture_format = -1, texture_quality = 0; /* -1: not given */
    const char *part = NULL, *target = NULL, *profile_path = NULL;
    uint64_t parts = 0;
    int size_given = 0, seed_given = 0, quantize = 0, codec = PK_CODEC_AUTO, textures = 0;
    pk_build_options opt;
    memset(&opt, 0, sizeof opt);
    char lods_bad[64];
    snprintf(lods_bad, sizeof lods_bad, "{opt} '{value}' is not a count from 1 to %u", SLC_LODS_MAX);
    /* The level and the count are checked against the builder's own ranges
     * when the options are resolved (pk_build_options_resolve). */
    const cli_opt table[] = {
        {.name = "--output",
         .alias = "-o",
         .kind = CLI_OPT_STRING,
         .dest = &out,
         .arg = "FILE",
         .help = "the pack to write"},
        {.name = "--profile",
         .kind = CLI_OPT_STRING,
         .dest = &profile_path,
         .arg = "FILE",
         .help = "the budget profile the pack is for: its [pool] page_size,\n"
                 "[textures] format and [tables] max_lods are the defaults of\n"
                 "--page-size, --texture-format and --max-lods"},
        {.name = "--page-size",
         .kind = CLI_OPT_SIZE,
         .dest = &page_size,
         .min = 1,
         .max = UINT32_MAX,
         .bad = "{opt} '{value}' is not a size in bytes",
         .arg = "SIZE",
         .help = "bytes of a page, a power of two from 4 KiB to 64 MiB (64 KiB)"},
        {.name = "--codec",
         .kind = CLI_OPT_ENUM,
         .dest = &codec,
         .choices = pk_codec_names,
         .bad = "{opt} '{value}': expected auto, stored, lz4, meshopt or meshopt-lz4",
         .arg = "C",
         .help = "how chunks are stored: auto (default: per chunk the smallest\n"
                 "of the others, meshopt ones only when 5% smaller), stored,\n"
                 "lz4, meshopt (vertex and index codecs) or meshopt-lz4"},
        {.name = "--target-runtime",
         .kind = CLI_OPT_STRING,
         .dest = &target,
         .arg = "LIST",
         .help = "the codecs the runtime that reads the pack decodes, comma-\n"
                 "separated: stored, lz4 (SLUICE_CODEC_LZ4), meshopt\n"
                 "(SLUICE_CODEC_MESHOPT), meshopt-lz4 (both); stored is always\n"
                 "read. No chunk gets another codec; --codec outside it is\n"
                 "refused (default: every codec)"},
        {.name = "--lz4-level",
         .kind = CLI_OPT_U64,
         .dest = &lz4_level,
         .min = 1,
         .max = 1000,
         .bad = "{opt} '{value}' is not a level from 1 to 12",
         .arg = "N",
         .help = "LZ4 HC level 1..12 (9)"},
        {.name = "--quantize",
         .kind = CLI_OPT_FLAG,
         .dest = &quantize,
         .help = "16-bit positions and uvs, octahedral 8-bit normals"},
        {.name = "--max-lods",
         .kind = CLI_OPT_U64,
         .dest = &max_lods,
         .min = 1,
         .max = 1000,
         .bad = lods_bad,
         .arg = "N",
         .help = "most levels of detail per object, 1..16 (8)"},
        {.name = "--stored-ratio",
         .kind = CLI_OPT_DOUBLE,
         .dest = &opt.stored_ratio_threshold,
         .dmin = 1.0,
         .dmax = DBL_MAX,
         .bad = "{opt} '{value}' is not a number >= 1",
         .arg = "X",
         .help = "store a chunk raw unless LZ4 shrinks it X times (1.1)"},
        {.name = "--texture-format",
         .kind = CLI_OPT_ENUM,
         .dest = &texture_format,
         .choices = texture_format_names,
         .bad = "{opt} '{value}': expected rgba8, bc1, bc3, astc4x4, astc6x6, astc8x8 or none",
         .arg = "F",
         .help = "what texture tiles hold: rgba8 (default: what every\n"
                 "device samples), bc1, bc3 (what desktop GPUs sample),\n"
                 "astc4x4, astc6x6, astc8x8 (Mali, Adreno, Apple), or none:\n"
                 "materials without textures"},
        {.name = "--texture-quality",
         .kind = CLI_OPT_ENUM,
         .dest = &texture_quality,
         .choices = texture_quality_names,
         .bad = "{opt} '{value}': expected medium, fast or thorough",
         .arg = "Q",
         .help = "the block encoders' effort: medium (default), fast, thorough"},
        {.name = "--skip-unsupported",
         .kind = CLI_OPT_FLAG,
         .dest = &job->skip_unsupported,
         .help = "skip glTF primitives and USD prims or arcs that cannot be\n"
                 "imported, with a warning"},
        {.name = "--asset-root",
         .kind = CLI_OPT_STRING,
         .dest = &job->asset_root,
         .arg = "DIR",
         .help = "the folder whose files the inputs may name (buffers, images,\n"
                 "layers); default: the current directory when the input lies\n"
                 "within it, else the input's folder"},
        {.name = "--allow-outside-paths",
         .kind = CLI_OPT_FLAG,
         .dest = &job->allow_outside_paths,
         .help = "follow paths the inputs name outside the asset root,\n"
                 "and absolute ones, refused by default"},
        {.name = "--max-placements",
         .kind = CLI_OPT_U64,
         .dest = &job->max_placements,
         .min = 1,
         .max = UINT64_MAX,
         .bad = "{opt} '{value}' is not a count of placements above 0",
         .arg = "N",
         .help = "refuse a USD stage that places meshes more than N times\n"
                 "(default " PK_STRINGIFY(PK_DEFAULT_MAX_PLACEMENTS) ")"},
        {.name = "--synthetic",
         .kind = CLI_OPT_STRING,
         .dest = &synthetic,
         .arg = "city",
         .help = "generate a city instead of reading INPUT"},
        {.name = "--size",
         .kind = CLI_OPT_SIZE,
         .dest = &size,
         .min = 1,
         .max = UINT64_MAX,
         .bad = "{opt} '{value}' is not a size in bytes above 0",
         .seen = &size_given,
         .arg = "SIZE",
         .help = "synthetic: float vertex and index bytes to generate (64 MiB)"},
        {.name = "--textures",
         .kind = CLI_OPT_FLAG,
         .dest = &textures,
         .help = "synthetic: a facade material per building, with colour\n"
                 "and normal maps of 256 to 4096 texels a side"},
        {.name = "--seed",
         .kind = CLI_OPT_U64,
         .dest = &seed,
         .max = UINT64_MAX,
         .bad = "{opt} '{value}' is not an unsigned integer",
         .seen = &seed_given,
         .arg = "N",
         .help = "synthetic: the seed (1)"},
        {.name = "--jobs",
         .alias = "-j",
         .kind = CLI_OPT_U64,
         .dest = &jobs,
         .min = 1,
         .max = 256,
         .bad = "{opt} '{value}' is not a count from 1 to 256",
         .arg = "N",
         .help = "threads, this one included (the online cores);\n"
                 "1: no thread started. The output is the same for every N"},
        {.name = "--bundle-size",
         .kind = CLI_OPT_SIZE,
         .dest = &bundle_size,
         .min = 1,
         .max = UINT64_MAX,
         .bad = "{opt} '{value}' is not a size in bytes above 0",
         .arg = "SIZE",
         .help = "unique input bytes of a bundle, the unit of --part;\n"
                 "pages never span bundles (64 MiB)"},
        {.name = "--part",
         .kind = CLI_OPT_STRING,
         .dest = &part,
         .arg = "K/N",
         .help = "write part K of N (1 <= K <= N <= 1024): a partial\n"
                 "pack of the bundles b with b % N == K - 1, for sluice merge"},
        {.name = "--emit-ninja",
         .kind = CLI_OPT_STRING,
         .dest = &job->graph.ninja,
         .arg = "FILE",
         .help = "write a Ninja file that packs in --parts parts and merges\n"
                 "them, instead of packing (each part --jobs 1 unless given)"},
        {.name = "--emit-make",
         .kind = CLI_OPT_STRING,
         .dest = &job->graph.make,
         .arg = "FILE",
         .help = "the same as a Makefile"},
        {.name = "--parts",
         .kind = CLI_OPT_U64,
         .dest = &parts,
         .min = 1,
         .max = PK_MAX_PARTS,
         .bad = "{opt} '{value}' is not a count from {min} to {max}",
         .arg = "N",
         .help = "the parts of --emit-ninja and --emit-make"},
        {.name = "--quiet", .kind = CLI_OPT_FLAG, .dest = &job->quiet, .help = "print errors only"},
    };
    size_t count = 0;
    const cli_args spec = {.me = "sluice pack",
                           .opts = table,
                           .count = sizeof table / sizeof table[0],
                           .operands = job->inputs,
                           .max_operands = (size_t)argc,
                           .operand_count = &count,
                           .missing = "{opt} needs a value",
                           .unknown = "unknown option '{value}'",
                           .print_usage = pack_usage,
                           .usage_after = CLI_ARGS_UNKNOWN,
                           .help = 1,
                           .dash_operand = 1,
                           .help_column = 25};
    int parsed = cli_args_parse(&spec, argc, argv);
    if (parsed == CLI_ARGS_HELP) {
        pack_usage(stdout, &spec);
    }
    if (parsed != CLI_OK) {
        return parsed;
    }
    job->input_count = (int)count;
    const char *in = count > 0 ? job->inputs[0] : NULL;
    if (profile_path != NULL) {
        /* What the profile says of the device, where the options do not.
         * Its absolute path is what a graph's parts are given, so that the
         * graph builds from any folder. */
        job->graph.profile = realpath(profile_path, NULL);
        if (job->graph.profile == NULL) {
            fprintf(stderr, "sluice: %s: %s\n", profile_path, strerror(errno));
            return CLI_IO;
        }
        slc_profile prof;
        int rc = cli_load_profile(profile_path, &prof); /* prints the diagnostic */
        if (rc != CLI_OK) {
            return rc;
        }
        page_size = page_size != 0 ? page_size : prof.page_size;
        max_lods = max_lods != 0 ? max_lods : (prof.max_lods < PK_DEFAULT_MAX_LODS ? prof.max_lods : 0);
        if (texture_format < 0) {
            for (int i = 0; texture_format_names[i] != NULL; i++) {
                texture_format = texture_format_values[i] == prof.texture_format ? i : texture_format;
            }
        }
    }
    opt.quantize = quantize;
    opt.page_size = (uint32_t)page_size;
    opt.lz4_level = (int)lz4_level;
    opt.codec = (pk_codec)codec;
    opt.max_lods = (uint32_t)max_lods;
    opt.jobs = (uint32_t)jobs;
    opt.bundle_size = bundle_size;
    opt.texture_format = texture_format_values[texture_format < 0 ? 0 : texture_format];
    opt.texture_quality = (uint32_t)texture_quality;
    if (part != NULL && pack_parse_part(part, &opt) != CLI_OK) {
        return CLI_USAGE;
    }
    if (target != NULL && pack_parse_target(target, codec, &opt) != CLI_OK) {
        return CLI_USAGE;
    }
    if ((in == NULL) == (synthetic == NULL) || out == NULL) {
        fprintf(stderr, "%s",
                in != NULL && synthetic != NULL ? "sluice pack: INPUT and --synthetic exclude each other\n" : "");
        pack_usage(stderr, &spec);
        return CLI_USAGE;
    }
    if (synthetic == NULL && (size_given || seed_given || textures)) {
        fprintf(stderr, "sluice pack: --size, --seed and --textures go with --synthetic\n");
        return CLI_USAGE;
    }
    int emit = job->graph.ninja != NULL || job->graph.make != NULL;
    if (emit != (parts > 0) || (emit && part != NULL)) {
        fprintf(stderr, "sluice pack: %s\n",
                emit && part != NULL ? "--part is the graph's to give, not --emit-*'s"
                : emit               ? "--emit-ninja and --emit-make need --parts N"
                                     : "--parts N goes with --emit-ninja or --emit-make");
        return CLI_USAGE;
    }
    job->graph.parts = (uint32_t)parts;
    job->graph.out = out;
    job->graph.skip_unsupported = job->skip_unsupported;
    job->graph.allow_outside_paths = job->allow_outside_paths;
    job->graph.asset_root = job->asset_root;
    job->graph.max_placements = job->max_placements;
    if (emit && pack_graph_collect(&job->graph, table, sizeof table / sizeof table[0], argc, argv) != 0) {
        return CLI_FAILED;
    }
    pk_diag d;
    memset(&d, 0, sizeof d);
    pk_build_options resolved;
    if (pk_build_options_resolve(&opt, &resolved, &d) != 0) {
        fprintf(stderr, "sluice pack: %s\n", d.message);
        return CLI_USAGE;
    }
    if (synthetic != NULL) {
        pk_import_options o;
        memset(&o, 0, sizeof o);
        o.size = size;
        o.seed = seed;
        o.textures = textures;
        const pk_importer *imp = pk_importer_for_kind(synthetic);
        if (imp == NULL) {
            fprintf(stderr, "sluice pack: no importer makes a synthetic '%s'\n", synthetic);
            return CLI_USAGE;
        }
        if (imp->open(synthetic, &o, &job->generated.state, &d) != 0) {
            fprintf(stderr, "sluice pack: %s\n", d.message);
            return CLI_USAGE;
        }
        job->generated.imp = imp;
        job->generated.path = synthetic;
    }
    job->in = in;
    job->out = out;
    job->synthetic = synthetic;
    job->opt = opt;
    return CLI_OK;
}

/* What the generated scene, if any, tells the planner and the bar. */
static pk_import_scan generated_scan(const pack_job *job)
{
    pk_import_scan scan;
    memset(&scan, 0, sizeof scan);
    if (job->generated.imp != NULL) {
        job->generated.imp->scan(job->generated.state, &scan);
    }
    return scan;
}

/* Before anything is written: the output is none of the inputs nor a file
 * they read, every input opens, and something is left to pack. The first
 * input stays open (*first) for packing; the others are opened again when
 * their turn comes, so a long list does not hold every file open at once.
 * Adds each input to the plan and its bar's bytes to *progress_bytes. On
 * failure every input is closed. */
static int check_inputs(const pack_job *job, pack_ctx *c, pk_limits_plan *plan, uint64_t *progress_bytes,
                        pack_source *first)
{
    uint64_t importable = 0;
    const pk_import_options o = import_options(job, c, 0);
    for (int k = 0; k < job->input_count; k++) {
        pack_source src;
        int rc = open_input(job->inputs[k], &o, &src);
        if (rc == CLI_OK) {
            rc = check_output_not_read(job->out, &src);
            pk_import_scan scan;
            memset(&scan, 0, sizeof scan);
            src.imp->scan(src.state, &scan);
            importable += scan.importable;
            *progress_bytes += scan.progress_bytes;
            pk_limits_plan_add(plan, &scan);
        }
        if (k == 0 && rc == CLI_OK) {
            *first = src;
        } else {
            source_close(&src);
        }
        if (rc != CLI_OK) {
            source_close(first);
            return rc;
        }
    }
    if (job->in != NULL && importable == 0) {
        const char *inputs_word = job->input_count > 1 ? "inputs" : "input";
        if (job->skip_unsupported) {
            fprintf(stderr,
                    "sluice pack: nothing left to pack: every primitive of the %s was skipped as unsupported; nothing "
                    "written\n",
                    inputs_word);
        } else {
            fprintf(stderr, "sluice pack: nothing left to pack: no mesh primitive in the %s; nothing written\n",
                    inputs_word);
        }
        source_close(first);
        return CLI_FAILED;
    }
    return CLI_OK;
}

/* Imports every input into c->b: first (open: the generated scene or the
 * first input), then the other inputs, opened again. */
static int import_all(const pack_job *job, pack_ctx *c, pack_source *first)
{
    int rc = first->imp != NULL ? pack_input(c, first, first->imp) : CLI_OK;
    const pk_import_options o = import_options(job, c, 1);
    for (int k = 1; k < job->input_count && rc == CLI_OK; k++) {
        pack_source src;
        rc = open_input(job->inputs[k], &o, &src);
        if (rc == CLI_OK) {
            rc = pack_input(c, &src, src.imp);
        }
    }
    return rc;
}

/* Builds the pack the job describes; closes the generated scene. */
static int pack_main(pack_job *job)
{
    const char *in = job->in, *out = job->out, *synthetic = job->synthetic;
    pk_diag d;
    memset(&d, 0, sizeof d);
    pack_ctx c;
    memset(&c, 0, sizeof c);
    c.quiet = job->quiet;
    c.textures = job->opt.texture_format != PK_TEXTURES_NONE;
    int same = atomic_file_find_input(out, job->inputs, (size_t)job->input_count);
    if (same >= 0) {
        fprintf(stderr, "sluice pack: output '%s' is an input ('%s'); nothing written\n", out, job->inputs[same]);
        source_close(&job->generated);
        return CLI_USAGE;
    }
    pk_import_scan gen = generated_scan(job);
    pk_limits_plan plan = {.what = synthetic != NULL      ? "synthetic scene"
                                   : job->input_count > 1 ? "the inputs"
                                                          : in,
                           .page_size = job->opt.page_size};
    pk_limits_plan_add(&plan, &gen);
    uint64_t progress_bytes = gen.progress_bytes;
    pack_source first = {NULL, NULL, NULL};
    int rc = check_inputs(job, &c, &plan, &progress_bytes, &first);
    if (rc != CLI_OK) {
        return rc;
    }
    if (job->generated.imp != NULL) { /* --synthetic: the only input */
        first = job->generated;
        job->generated = (pack_source){NULL, NULL, NULL};
    }
    /* A scene past the format's limits is refused before it is packed. */
    if (pk_limits_check_plan(&plan, &d) != 0) {
        fprintf(stderr, "sluice pack: %s\n", d.message);
        rc = CLI_FAILED;
    } else if (pk_builder_open(out, &job->opt, &c.b, &d) != 0) {
        fprintf(stderr, "sluice: %s\n", d.message);
        rc = CLI_IO;
    }
    if (rc != CLI_OK) {
        source_close(&job->generated);
        source_close(&first);
        return rc;
    }
    if (!c.quiet) { /* the summary's texture lines */
        pk_builder_on_texture(c.b, note_texture, &c);
    }
    progress pg;
    progress_start(&pg, progress_bytes, "pack", c.quiet);
    c.pg = &pg;
    rc = import_all(job, &c, &first);
    if (rc == CLI_OK && synthetic == NULL && c.added == 0) {
        /* Importable primitives, but none with a triangle. */
        progress_end(&pg);
        fprintf(stderr, "sluice pack: nothing left to pack: no mesh of the %s has a triangle; nothing written\n",
                job->input_count > 1 ? "inputs" : "input");
        rc = CLI_FAILED;
    }
    if (rc != CLI_OK) {
        progress_end(&pg);
        pk_builder_abort(c.b);
        free(c.lines);
        return rc;
    }
    progress_update(&pg, pg.total, "writing tables");
    pk_build_stats st;
    rc = pk_builder_finish(c.b, &st, &d);
    progress_end(&pg);
    if (rc != 0) {
        fprintf(stderr, "sluice: %s\n", d.message);
        free(c.lines);
        return CLI_IO;
    }
    if (!c.quiet) {
        summary(out, &st, c.lines, c.line_count);
    }
    free(c.lines);
    return CLI_OK;
}

int cmd_pack(int argc, char **argv)
{
    /* Several inputs go into one pack: their objects share pages, so a set of
     * small assets fills pages as well as one large one does. */
    pack_job job;
    memset(&job, 0, sizeof job);
    job.inputs = calloc((size_t)argc + 1, sizeof *job.inputs);
    if (job.inputs == NULL) {
        fprintf(stderr, "sluice pack: out of memory\n");
        return CLI_FAILED;
    }
    int rc = pack_parse(argc, argv, &job);
    if (rc == CLI_OK && job.graph.args != NULL) { /* --emit-*: the graph, no packing */
        rc = pack_graph_emit(&job.graph, generated_scan(&job).input_bytes, job.opt.page_size, job.quiet);
        source_close(&job.generated);
    } else if (rc == CLI_OK) {
        rc = pack_main(&job);
    }
    source_close(&job.generated); /* on every path: pack_main's own may leave it */
    pack_graph_free(&job.graph);
    free(job.inputs);
    return rc == CLI_ARGS_HELP ? CLI_OK : rc;
}
