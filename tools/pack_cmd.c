/* sluice pack: build a pack from a glTF file or a synthetic scene. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic_file.h"
#include "cli.h"
#include "pack/builder.h"
#include "gltf.h"
#include "pack/pack_limits.h"
#include "synth.h"
#include "pack_ninja.h"
#include "progress.h"
#include "usd_layer.h"
#include "usd_stage.h"

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

/* "12.3 MiB" and the like, for the summary. */
static const char *human(double bytes, char *buf, size_t cap)
{
    static const char *u[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int i = 0;
    while (bytes >= 1024.0 && i < 4) {
        bytes /= 1024.0;
        i++;
    }
    snprintf(buf, cap, i == 0 ? "%.0f %s" : "%.1f %s", bytes, u[i]);
    return buf;
}

static void warn_stderr(void *user, const char *message)
{
    const int *quiet = user;
    if (!*quiet) {
        fprintf(stderr, "sluice: warning: %s\n", message);
    }
}

static void summary(const char *out, const pk_build_stats *s)
{
    char a[32], b[32], c[32], e[32];
    if (s->options.part_count > 0) {
        printf("%s: part %u of %u: %u of %u bundles built\n", out, s->options.part, s->options.part_count,
               s->bundles_built, s->bundles);
    }
    printf("%s: %u objects from %u meshes (%u identical to an earlier one), %u instances\n", out,
           s->objects, s->meshes + s->meshes_deduplicated, s->meshes_deduplicated, s->instances);
    printf("  triangles    %llu at level 0, %llu in all levels; %llu clusters\n",
           (unsigned long long)s->triangles_lod0, (unsigned long long)s->triangles_all,
           (unsigned long long)s->clusters);
    printf("  chunks       %u (%u deduplicated, %u stored raw), %s pages, %.1f%% full\n", s->chunks,
           s->chunks_deduplicated, s->chunks_stored_raw, human(s->options.page_size, a, sizeof a),
           s->page_fill * 100.0);
    printf("  codecs       %u stored, %u lz4, %u meshopt, %u meshopt-lz4 (--codec %s)\n",
           s->chunks_codec[SLC_PACK_CODEC_STORED], s->chunks_codec[SLC_PACK_CODEC_LZ4],
           s->chunks_codec[SLC_PACK_CODEC_MESHOPT], s->chunks_codec[SLC_PACK_CODEC_MESHOPT_LZ4],
           pk_codec_names[s->options.codec]);
    printf("  bytes        %s decoded, %s stored, ratio %.3f; file %s\n", human((double)s->bytes_raw, a, sizeof a),
           human((double)s->bytes_stored, b, sizeof b), s->ratio, human((double)s->file_size, c, sizeof c));
    printf("  input        %s of float vertices and indices in %.2f s: %.1f MB/s\n",
           human((double)s->input_bytes, e, sizeof e), s->seconds,
           s->seconds > 0.0 ? (double)s->input_bytes / s->seconds / 1e6 : 0.0);
    printf("  peak memory  %s resident\n", human((double)s->peak_rss, a, sizeof a));
    printf("  jobs         %u; at most %u meshes and %u pages in flight; %u bundles of %s\n", s->options.jobs,
           s->peak_meshes_in_flight, s->peak_pages_in_flight, s->bundles,
           human((double)s->options.bundle_size, a, sizeof a));
}

/* Opens a glTF file before anything is written, so a bad input leaves no
 * output behind. */
static int open_gltf(const char *in, int skip_unsupported, int allow_outside_paths, int *quiet, gltf_scene **scene)
{
    FILE *probe = fopen(in, "rb");
    if (probe == NULL) {
        fprintf(stderr, "sluice: %s: cannot open: %s\n", in, strerror(errno));
        return CLI_IO;
    }
    (void)fclose(probe); /* read only: nothing to lose */
    gltf_options go;
    memset(&go, 0, sizeof go);
    go.skip_unsupported = skip_unsupported;
    go.allow_outside_paths = allow_outside_paths;
    go.warn = warn_stderr;
    go.user = quiet;
    pk_diag d;
    memset(&d, 0, sizeof d);
    if (gltf_open(in, &go, scene, &d) != 0) {
        fprintf(stderr, "sluice: %s\n", d.message);
        return CLI_FAILED;
    }
    return CLI_OK;
}

/* Refuses an output that is the same file (device and inode: a hard link
 * or a symbolic link counts) as scene's buffer files, so a pack never
 * replaces what it is read from. The inputs themselves are checked by the
 * caller. */
static int check_output_not_buffer(const char *out, const char *in, const gltf_scene *scene)
{
    for (uint32_t i = 0; i < gltf_buffer_count(scene); i++) {
        const char *file = gltf_get_buffer_file(scene, i);
        if (file != NULL && atomic_file_same(out, file)) {
            fprintf(stderr, "sluice pack: output '%s' is an input (buffer %u '%s' of '%s'); nothing written\n", out,
                    i, file, in);
            return CLI_USAGE;
        }
    }
    return CLI_OK;
}

/* Bytes of a glTF input's files (itself and the buffer files it reads), for
 * the progress bar; a file that cannot be stat'ed counts 0. */
static uint64_t scene_file_bytes(const char *in, const gltf_scene *scene)
{
    struct stat st;
    uint64_t n = stat(in, &st) == 0 ? (uint64_t)st.st_size : 0;
    for (uint32_t i = 0; i < gltf_buffer_count(scene); i++) {
        const char *file = gltf_get_buffer_file(scene, i);
        n += file != NULL && stat(file, &st) == 0 ? (uint64_t)st.st_size : 0;
    }
    return n;
}

/* Feeds every mesh and instance of a glTF scene to the builder, counting
 * in *added the meshes that became objects; closes the scene. */
static int pack_gltf(const char *in, gltf_scene *scene, pk_builder *b, int *quiet, progress *pg, uint32_t *added)
{
    pk_diag d;
    memset(&d, 0, sizeof d);
    uint32_t meshes = gltf_mesh_count(scene);
    uint32_t *objects = malloc(((size_t)meshes + 1) * sizeof *objects);
    if (objects == NULL) {
        gltf_close(scene);
        fprintf(stderr, "sluice: %s: out of memory\n", in);
        return CLI_FAILED;
    }
    int rc = CLI_OK;
    char what[64];
    /* The input's share of the bar: its files' bytes, spread over its meshes. */
    uint64_t base = pg->done, bytes = scene_file_bytes(in, scene);
    for (uint32_t i = 0; i < meshes && rc == CLI_OK; i++) {
        snprintf(what, sizeof what, "mesh %u of %u", i + 1, meshes);
        progress_update(pg, base + (uint64_t)((double)bytes * i / meshes), what);
        pk_mesh m;
        memset(&m, 0, sizeof m);
        objects[i] = UINT32_MAX;
        if (gltf_load_mesh(scene, i, &m, &d) != 0) {
            progress_end(pg);
            fprintf(stderr, "sluice: %s\n", d.message);
            rc = CLI_FAILED;
        } else if (m.index_count == 0) {
            if (!*quiet) { /* every primitive was skipped: the importer said why */
                progress_end(pg);
                fprintf(stderr, "sluice: warning: %s: mesh %u has no triangles left; its instances are left out\n", in,
                        i);
            }
        } else if (pk_builder_add_mesh_owned(b, &m, &objects[i], &d) != 0) {
            progress_end(pg);
            fprintf(stderr, "sluice: %s: %s\n", in, d.message);
            rc = pk_builder_write_failed(b) ? CLI_IO : CLI_FAILED;
        } else {
            (*added)++;
        }
        pk_mesh_free(&m);
    }
    uint32_t count = rc == CLI_OK ? gltf_instance_count(scene) : 0;
    for (uint32_t i = 0; i < count && rc == CLI_OK; i++) {
        pk_instance inst;
        memset(&inst, 0, sizeof inst);
        gltf_get_instance(scene, i, &inst);
        if (inst.mesh >= meshes || objects[inst.mesh] == UINT32_MAX) {
            continue;
        }
        inst.mesh = objects[inst.mesh];
        if (pk_builder_add_instance(b, &inst, &d) != 0) {
            fprintf(stderr, "sluice: %s: %s\n", in, d.message);
            rc = CLI_FAILED;
        }
    }
    free(objects);
    gltf_close(scene);
    pg->done = base + bytes;
    return rc;
}

/* 1 when the file's first bytes are a USD layer's (text, crate or zip). */
static int input_is_usd(const char *in)
{
    unsigned char head[16] = {0};
    FILE *f = fopen(in, "rb");
    size_t n = f != NULL ? fread(head, 1, sizeof head, f) : 0;
    if (f != NULL) {
        (void)fclose(f); /* read only: nothing to lose */
    }
    return usd_detect_format(head, n) != USD_FORMAT_UNKNOWN;
}

/* Warnings of a USD input: composition's are given while its inputs are
 * checked; when it is opened again to be packed, only the import's. */
typedef struct usd_warn_state {
    int *quiet;
    int importing;
    int composed_before;
} usd_warn_state;

static void usd_warn(void *user, const char *message)
{
    const usd_warn_state *w = user;
    if (w->importing || !w->composed_before) {
        warn_stderr(w->quiet, message);
    }
}

static int usd_sink_mesh(void *user, const pk_mesh *m, uint32_t *object, pk_diag *d)
{
    return pk_builder_add_mesh(user, m, object, d);
}

static int usd_sink_instance(void *user, const pk_instance *inst, pk_diag *d)
{
    return pk_builder_add_instance(user, inst, d);
}

/* A USD input: with b NULL, opens and composes it (every error found before
 * anything is written), refuses an output that is one of its layers and
 * adds its meshes to *importable; with b, imports it into b, counting in
 * *added the meshes given, and prints its phases unless quiet. */
static int pack_usd(const char *in, const char *out, int skip_unsupported, int allow_outside_paths, int *quiet,
                    pk_builder *b, uint64_t *importable, uint32_t *added)
{
    usd_warn_state ws = {quiet, 0, b != NULL};
    usd_stage_options uo = {skip_unsupported, allow_outside_paths, usd_warn, &ws};
    usd_stage *stage = NULL;
    pk_diag d;
    memset(&d, 0, sizeof d);
    if (usd_stage_open(in, &uo, &stage, &d) != 0) {
        fprintf(stderr, "sluice: %s\n", d.message);
        return CLI_FAILED;
    }
    ws.importing = 1;
    int rc = CLI_OK;
    if (b == NULL) {
        for (uint32_t i = 0; i < usd_stage_layer_count(stage) && rc == CLI_OK; i++) {
            const char *file = usd_stage_layer_file(stage, i);
            if (atomic_file_same(out, file)) {
                fprintf(stderr, "sluice pack: output '%s' is an input (layer '%s' of '%s'); nothing written\n",
                        out, file, in);
                rc = CLI_USAGE;
            }
        }
        *importable += usd_stage_mesh_count(stage);
        usd_stage_close(stage);
        return rc;
    }
    const usd_stage_sink sink = {usd_sink_mesh, usd_sink_instance, b};
    if (usd_stage_import(stage, &sink, &d) != 0) {
        fprintf(stderr, "sluice: %s\n", d.message);
        rc = pk_builder_write_failed(b) ? CLI_IO : CLI_FAILED;
    }
    usd_stage_stats st;
    usd_stage_get_stats(stage, &st);
    *added += st.meshes;
    if (rc == CLI_OK && !*quiet) {
        char l[32], m0[32], m1[32], m2[32];
        printf("%s: %u layers (%s), %u prims, %u meshes, %u placements, %u prototypes reused %u times\n", in,
               st.layers, human((double)st.layer_bytes, l, sizeof l), st.prims, st.meshes, st.instances,
               st.prototypes, st.prototype_hits);
        printf("  usd phases   open %.4f s (peak %s), compose %.4f s (peak %s), import %.4f s (peak %s)\n",
               st.open_seconds, human((double)st.open_peak_rss, m0, sizeof m0), st.compose_seconds,
               human((double)st.compose_peak_rss, m1, sizeof m1), st.import_seconds,
               human((double)st.import_peak_rss, m2, sizeof m2));
    }
    usd_stage_close(stage);
    return rc;
}

/* Feeds every building of a synthetic scene to the builder; closes s. */
static int pack_synthetic(pk_synth *s, const char *kind, pk_builder *b, progress *pg)
{
    pk_diag d;
    memset(&d, 0, sizeof d);
    int rc = CLI_OK;
    char what[96];
    for (;;) {
        pk_mesh m;
        pk_instance inst[PK_SYNTH_MAX_INSTANCES];
        uint32_t n = 0;
        int got = pk_synth_next(s, &m, inst, &n, &d);
        if (got <= 0) {
            if (got < 0) {
                progress_end(pg);
                fprintf(stderr, "sluice: %s\n", d.message);
                rc = CLI_FAILED;
            }
            break;
        }
        uint32_t object;
        if (pk_builder_add_mesh_owned(b, &m, &object, &d) != 0) {
            progress_end(pg);
            fprintf(stderr, "sluice: synthetic %s: %s\n", kind, d.message);
            rc = pk_builder_write_failed(b) ? CLI_IO : CLI_FAILED;
            break;
        }
        for (uint32_t i = 0; i < n && rc == CLI_OK; i++) {
            inst[i].mesh = object;
            if (pk_builder_add_instance(b, &inst[i], &d) != 0) {
                fprintf(stderr, "sluice: synthetic %s: %s\n", kind, d.message);
                rc = CLI_FAILED;
            }
        }
        if (rc != CLI_OK) {
            break;
        }
        char x[32], y[32];
        snprintf(what, sizeof what, "%s of %s", human((double)pk_synth_bytes_done(s), x, sizeof x),
                 human((double)pk_synth_bytes_target(s), y, sizeof y));
        progress_update(pg, pk_synth_bytes_done(s), what);
    }
    pk_synth_close(s);
    return rc;
}

/* What the command line asks for. */
typedef struct pack_job {
    const char **inputs; /* argc entries */
    int input_count;
    const char *in, *out, *synthetic; /* in: the first input; NULL with --synthetic */
    pk_synth *synth;                  /* opened from --synthetic, --size and --seed */
    int skip_unsupported, allow_outside_paths, quiet;
    pk_build_options opt;
    pack_graph graph; /* --emit-ninja, --emit-make: a build graph instead of a pack */
} pack_job;

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

/* The options and inputs, checked before anything is opened or written:
 * CLI_OK, CLI_USAGE (printed) or CLI_ARGS_HELP (the help printed). */
static int pack_parse(int argc, char **argv, pack_job *job)
{
    const char *out = NULL, *synthetic = NULL;
    uint64_t size = 64ull << 20, seed = 1, page_size = 0, lz4_level = 0, max_lods = 0, jobs = 0, bundle_size = 0;
    const char *part = NULL;
    uint64_t parts = 0;
    int size_given = 0, seed_given = 0, quantize = 0, codec = PK_CODEC_AUTO;
    pk_build_options opt;
    memset(&opt, 0, sizeof opt);
    char lods_bad[64];
    snprintf(lods_bad, sizeof lods_bad, "{opt} '{value}' is not a count from 1 to %u", SLC_LODS_MAX);
    /* The level and the count are checked against the builder's own ranges
     * when the options are resolved (pk_build_options_resolve). */
    const cli_opt table[] = {
        {.name = "--output", .alias = "-o", .kind = CLI_OPT_STRING, .dest = &out, .arg = "FILE",
         .help = "the pack to write"},
        {.name = "--page-size", .kind = CLI_OPT_SIZE, .dest = &page_size, .min = 1, .max = UINT32_MAX,
         .bad = "{opt} '{value}' is not a size in bytes", .arg = "SIZE",
         .help = "bytes of a page, a power of two from 4 KiB to 64 MiB (64 KiB)"},
        {.name = "--codec", .kind = CLI_OPT_ENUM, .dest = &codec, .choices = pk_codec_names,
         .bad = "{opt} '{value}': expected auto, stored, lz4, meshopt or meshopt-lz4", .arg = "C",
         .help = "how chunks are stored: auto (default: per chunk the smallest\n"
                 "of the others, meshopt ones only when 5% smaller), stored,\n"
                 "lz4, meshopt (vertex and index codecs) or meshopt-lz4"},
        {.name = "--lz4-level", .kind = CLI_OPT_U64, .dest = &lz4_level, .min = 1, .max = 1000,
         .bad = "{opt} '{value}' is not a level from 1 to 12", .arg = "N", .help = "LZ4 HC level 1..12 (9)"},
        {.name = "--quantize", .kind = CLI_OPT_FLAG, .dest = &quantize,
         .help = "16-bit positions and uvs, octahedral 8-bit normals"},
        {.name = "--max-lods", .kind = CLI_OPT_U64, .dest = &max_lods, .min = 1, .max = 1000, .bad = lods_bad,
         .arg = "N", .help = "most levels of detail per object, 1..16 (8)"},
        {.name = "--stored-ratio", .kind = CLI_OPT_DOUBLE, .dest = &opt.stored_ratio_threshold, .dmin = 1.0,
         .dmax = DBL_MAX, .bad = "{opt} '{value}' is not a number >= 1", .arg = "X",
         .help = "store a chunk raw unless LZ4 shrinks it X times (1.1)"},
        {.name = "--skip-unsupported", .kind = CLI_OPT_FLAG, .dest = &job->skip_unsupported,
         .help = "skip glTF primitives and USD prims or arcs that cannot be\n"
                 "imported, with a warning"},
        {.name = "--allow-outside-paths", .kind = CLI_OPT_FLAG, .dest = &job->allow_outside_paths,
         .help = "follow buffer and image uris that leave the glTF's folder\n"
                 "and USD layers outside the root layer's folder\n"
                 "(an absolute path or '..' above it), refused by default"},
        {.name = "--synthetic", .kind = CLI_OPT_STRING, .dest = &synthetic, .arg = "city",
         .help = "generate a city instead of reading INPUT"},
        {.name = "--size", .kind = CLI_OPT_SIZE, .dest = &size, .min = 1, .max = UINT64_MAX,
         .bad = "{opt} '{value}' is not a size in bytes above 0", .seen = &size_given, .arg = "SIZE",
         .help = "synthetic: float vertex and index bytes to generate (64 MiB)"},
        {.name = "--seed", .kind = CLI_OPT_U64, .dest = &seed, .max = UINT64_MAX,
         .bad = "{opt} '{value}' is not an unsigned integer", .seen = &seed_given, .arg = "N",
         .help = "synthetic: the seed (1)"},
        {.name = "--jobs", .alias = "-j", .kind = CLI_OPT_U64, .dest = &jobs, .min = 1, .max = 256,
         .bad = "{opt} '{value}' is not a count from 1 to 256", .arg = "N",
         .help = "threads, this one included (the online cores);\n"
                 "1: no thread started. The output is the same for every N"},
        {.name = "--bundle-size", .kind = CLI_OPT_SIZE, .dest = &bundle_size, .min = 1, .max = UINT64_MAX,
         .bad = "{opt} '{value}' is not a size in bytes above 0", .arg = "SIZE",
         .help = "unique input bytes of a bundle, the unit of --part;\n"
                 "pages never span bundles (64 MiB)"},
        {.name = "--part", .kind = CLI_OPT_STRING, .dest = &part, .arg = "K/N",
         .help = "write part K of N (1 <= K <= N <= 1024): a partial\n"
                 "pack of the bundles b with b % N == K - 1, for sluice merge"},
        {.name = "--emit-ninja", .kind = CLI_OPT_STRING, .dest = &job->graph.ninja, .arg = "FILE",
         .help = "write a Ninja file that packs in --parts parts and merges\n"
                 "them, instead of packing (each part --jobs 1 unless given)"},
        {.name = "--emit-make", .kind = CLI_OPT_STRING, .dest = &job->graph.make, .arg = "FILE",
         .help = "the same as a Makefile"},
        {.name = "--parts", .kind = CLI_OPT_U64, .dest = &parts, .min = 1, .max = PK_MAX_PARTS,
         .bad = "{opt} '{value}' is not a count from {min} to {max}", .arg = "N",
         .help = "the parts of --emit-ninja and --emit-make"},
        {.name = "--quiet", .kind = CLI_OPT_FLAG, .dest = &job->quiet, .help = "print errors only"},
    };
    size_t count = 0;
    const cli_args spec = {.me = "sluice pack", .opts = table, .count = sizeof table / sizeof table[0],
                           .operands = job->inputs, .max_operands = (size_t)argc, .operand_count = &count,
                           .missing = "{opt} needs a value", .unknown = "unknown option '{value}'",
                           .print_usage = pack_usage, .usage_after = CLI_ARGS_UNKNOWN, .help = 1, .dash_operand = 1,
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
    opt.quantize = quantize;
    opt.page_size = (uint32_t)page_size;
    opt.lz4_level = (int)lz4_level;
    opt.codec = (pk_codec)codec;
    opt.max_lods = (uint32_t)max_lods;
    opt.jobs = (uint32_t)jobs;
    opt.bundle_size = bundle_size;
    if (part != NULL && pack_parse_part(part, &opt) != CLI_OK) {
        return CLI_USAGE;
    }
    if ((in == NULL) == (synthetic == NULL) || out == NULL) {
        fprintf(stderr, "%s", in != NULL && synthetic != NULL ? "sluice pack: INPUT and --synthetic exclude each other\n"
                                                              : "");
        pack_usage(stderr, &spec);
        return CLI_USAGE;
    }
    if (synthetic == NULL && (size_given || seed_given)) {
        fprintf(stderr, "sluice pack: --size and --seed go with --synthetic\n");
        return CLI_USAGE;
    }
    int emit = job->graph.ninja != NULL || job->graph.make != NULL;
    if (emit != (parts > 0) || (emit && part != NULL)) {
        fprintf(stderr, "sluice pack: %s\n", emit && part != NULL ? "--part is the graph's to give, not --emit-*'s"
                                             : emit              ? "--emit-ninja and --emit-make need --parts N"
                                                                 : "--parts N goes with --emit-ninja or --emit-make");
        return CLI_USAGE;
    }
    job->graph.parts = (uint32_t)parts;
    job->graph.out = out;
    job->graph.skip_unsupported = job->skip_unsupported;
    job->graph.allow_outside_paths = job->allow_outside_paths;
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
    if (synthetic != NULL && pk_synth_open(synthetic, size, seed, &job->synth, &d) != 0) {
        fprintf(stderr, "sluice pack: %s\n", d.message);
        return CLI_USAGE;
    }
    job->in = in;
    job->out = out;
    job->synthetic = synthetic;
    job->opt = opt;
    return CLI_OK;
}

/* Builds the pack the job describes; closes job->synth. */
static int pack_main(pack_job *job)
{
    const char *in = job->in, *out = job->out, *synthetic = job->synthetic;
    const char **inputs = job->inputs;
    int *input_count = &job->input_count;
    int skip_unsupported = job->skip_unsupported, allow_outside_paths = job->allow_outside_paths;
    int quiet = job->quiet;
    pk_synth *synth = job->synth;
    pk_build_options opt = job->opt;
    pk_diag d;
    memset(&d, 0, sizeof d);
    /* Before anything is written: the output is none of the inputs, every
     * input opens, and something is left to pack. The first scene stays
     * open for packing; the others are opened again when their turn comes,
     * so a long list does not hold every buffer file open at once. */
    int same = atomic_file_find_input(out, inputs, (size_t)*input_count);
    if (same >= 0) {
        fprintf(stderr, "sluice pack: output '%s' is an input ('%s'); nothing written\n", out, inputs[same]);
        pk_synth_close(synth);
        return CLI_USAGE;
    }
    gltf_scene *scene = NULL;
    uint64_t importable = 0, gltf_bytes = 0;
    pk_limits_plan plan = {.what = synthetic != NULL ? "synthetic scene" : *input_count > 1 ? "the inputs" : in,
                           .input_bytes = synthetic != NULL ? pk_synth_bytes_target(synth) : 0,
                           .page_size = opt.page_size};
    for (int k = 0; k < *input_count; k++) {
        if (input_is_usd(inputs[k])) {
            int rc = pack_usd(inputs[k], out, skip_unsupported, allow_outside_paths, &quiet, NULL, &importable, NULL);
            if (rc != CLI_OK) {
                gltf_close(scene);
                return rc;
            }
            continue;
        }
        gltf_scene *sc = NULL;
        int rc = open_gltf(inputs[k], skip_unsupported, allow_outside_paths, &quiet, &sc);
        if (rc == CLI_OK) {
            rc = check_output_not_buffer(out, inputs[k], sc);
            importable += gltf_count_importable(sc);
            gltf_bytes += scene_file_bytes(inputs[k], sc);
            pk_limits_plan_add_gltf(&plan, sc);
        }
        if (k == 0 && rc == CLI_OK) {
            scene = sc;
        } else {
            gltf_close(sc);
        }
        if (rc != CLI_OK) {
            gltf_close(scene);
            return rc;
        }
    }
    if (in != NULL && importable == 0) {
        const char *inputs_word = *input_count > 1 ? "inputs" : "input";
        if (skip_unsupported) {
            fprintf(stderr,
                    "sluice pack: nothing left to pack: every primitive of the %s was skipped as unsupported; nothing "
                    "written\n",
                    inputs_word);
        } else {
            fprintf(stderr, "sluice pack: nothing left to pack: no mesh primitive in the %s; nothing written\n",
                    inputs_word);
        }
        gltf_close(scene);
        return CLI_FAILED;
    }
    /* A scene past the format's limits is refused before it is packed. */
    if (pk_limits_check_plan(&plan, &d) != 0) {
        fprintf(stderr, "sluice pack: %s\n", d.message);
        pk_synth_close(synth);
        gltf_close(scene);
        return CLI_FAILED;
    }
    pk_builder *b = NULL;
    if (pk_builder_open(out, &opt, &b, &d) != 0) {
        pk_synth_close(synth);
        if (scene != NULL) {
            gltf_close(scene);
        }
        fprintf(stderr, "sluice: %s\n", d.message);
        return CLI_IO;
    }
    progress pg;
    progress_start(&pg, synthetic != NULL ? pk_synth_bytes_target(synth) : gltf_bytes, "pack", quiet);
    uint32_t added = 0;
    int rc = synthetic != NULL ? pack_synthetic(synth, synthetic, b, &pg)
             : scene != NULL   ? pack_gltf(in, scene, b, &quiet, &pg, &added)
                               : pack_usd(in, out, skip_unsupported, allow_outside_paths, &quiet, b, NULL, &added);
    for (int k = 1; k < *input_count && rc == CLI_OK; k++) {
        if (input_is_usd(inputs[k])) {
            rc = pack_usd(inputs[k], out, skip_unsupported, allow_outside_paths, &quiet, b, NULL, &added);
            continue;
        }
        rc = open_gltf(inputs[k], skip_unsupported, allow_outside_paths, &quiet, &scene);
        if (rc == CLI_OK) {
            rc = pack_gltf(inputs[k], scene, b, &quiet, &pg, &added);
        }
    }
    if (rc == CLI_OK && synthetic == NULL && added == 0) {
        /* Importable primitives, but none with a triangle. */
        progress_end(&pg);
        fprintf(stderr, "sluice pack: nothing left to pack: no mesh of the %s has a triangle; nothing written\n",
                *input_count > 1 ? "inputs" : "input");
        rc = CLI_FAILED;
    }
    if (rc != CLI_OK) {
        progress_end(&pg);
        pk_builder_abort(b);
        return rc;
    }
    progress_update(&pg, pg.total, "writing tables");
    pk_build_stats st;
    rc = pk_builder_finish(b, &st, &d);
    progress_end(&pg);
    if (rc != 0) {
        fprintf(stderr, "sluice: %s\n", d.message);
        return CLI_IO;
    }
    if (!quiet) {
        summary(out, &st);
    }
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
        rc = pack_graph_emit(&job.graph, job.synth != NULL ? pk_synth_bytes_target(job.synth) : 0, job.opt.page_size,
                             job.quiet);
        pk_synth_close(job.synth);
    } else if (rc == CLI_OK) {
        rc = pack_main(&job);
    }
    pack_graph_free(&job.graph);
    free(job.inputs);
    return rc == CLI_ARGS_HELP ? CLI_OK : rc;
}
