/* sluice pack: build a pack from a glTF file or a synthetic scene. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "atomic_file.h"
#include "cli.h"
#include "pack/builder.h"
#include "pack/gltf.h"
#include "pack/synth.h"

static void pack_usage(FILE *f)
{
    fprintf(f,
            "usage: sluice pack [options] INPUT.gltf|INPUT.glb... -o OUT.pack\n"
            "       sluice pack --synthetic city [--size SIZE] [--seed N] [options] -o OUT.pack\n"
            "\n"
            "options:\n"
            "  -o, --output FILE      the pack to write\n"
            "  --page-size SIZE       bytes of a page, a power of two from 4 KiB to 64 MiB (64 KiB)\n"
            "  --lz4-level N          LZ4 HC level 1..12 (9)\n"
            "  --quantize             16-bit positions and uvs, octahedral 8-bit normals\n"
            "  --max-lods N           most levels of detail per object, 1..16 (8)\n"
            "  --stored-ratio X       store a chunk raw unless LZ4 shrinks it X times (1.1)\n"
            "  --skip-unsupported     skip glTF primitives that cannot be imported, with a warning\n"
            "  --allow-outside-paths  follow buffer and image uris that leave the glTF's folder\n"
            "                         (an absolute path or '..' above it), refused by default\n"
            "  --synthetic city       generate a city instead of reading INPUT\n"
            "  --size SIZE            synthetic: float vertex and index bytes to generate (64 MiB)\n"
            "  --seed N               synthetic: the seed (1)\n"
            "  --quiet                print errors only\n"
            "SIZE: bytes, or a number with K, M, G, T (KiB, MiB, GiB, TiB) or kB, MB, GB\n"
            "The output is never one of the inputs (a glTF, a GLB or a file a glTF reads): that is refused.\n");
}

/* "64MiB", "64 M", "1.5GiB", "65536". */
static int parse_size(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno != 0 || !(v >= 0.0)) {
        return -1;
    }
    while (*end == ' ') {
        end++;
    }
    static const struct {
        const char *suffix;
        double mult;
    } units[] = {
        {"", 1.0},          {"B", 1.0},          {"K", 1024.0},  {"KiB", 1024.0}, {"k", 1024.0},
        {"M", 1048576.0},   {"MiB", 1048576.0},  {"G", 1073741824.0}, {"GiB", 1073741824.0},
        {"T", 1099511627776.0}, {"TiB", 1099511627776.0}, {"kB", 1e3},  {"KB", 1e3},
        {"MB", 1e6},        {"GB", 1e9},         {"TB", 1e12},
    };
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (strcmp(end, units[i].suffix) == 0) {
            double bytes = v * units[i].mult;
            if (bytes >= 18446744073709551615.0 || bytes != floor(bytes)) {
                return -1;
            }
            *out = (uint64_t)bytes;
            return 0;
        }
    }
    return -1;
}

static int parse_uint(const char *s, unsigned long long max, unsigned long long *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s || *end != '\0' || errno != 0 || v > max || s[0] == '-') {
        return -1;
    }
    *out = v;
    return 0;
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

/* A progress bar on stderr, redrawn when its text changes, at most ten
 * times a second. */
typedef struct progress {
    int on;
    double last;
    int last_permille;
} progress;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void progress_show(progress *p, double fraction, const char *what)
{
    if (!p->on) {
        return;
    }
    fraction = fraction < 0.0 ? 0.0 : fraction > 1.0 ? 1.0 : fraction;
    int permille = (int)(fraction * 1000.0);
    double t = now();
    if (permille == p->last_permille || (t - p->last < 0.1 && permille < 1000)) {
        return;
    }
    p->last = t;
    p->last_permille = permille;
    char bar[41];
    int fill = (int)(fraction * 40.0);
    for (int i = 0; i < 40; i++) {
        bar[i] = i < fill ? '#' : '.';
    }
    bar[40] = '\0';
    fprintf(stderr, "\r[%s] %5.1f%% %s\033[K", bar, fraction * 100.0, what);
    fflush(stderr);
}

static void progress_end(progress *p)
{
    if (p->on) {
        fprintf(stderr, "\r\033[K");
        fflush(stderr);
    }
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
    printf("%s: %u objects from %u meshes (%u identical to an earlier one), %u instances\n", out,
           s->objects, s->meshes + s->meshes_deduplicated, s->meshes_deduplicated, s->instances);
    printf("  triangles    %llu at level 0, %llu in all levels; %llu clusters\n",
           (unsigned long long)s->triangles_lod0, (unsigned long long)s->triangles_all,
           (unsigned long long)s->clusters);
    printf("  chunks       %u (%u deduplicated, %u stored raw), %s pages, %.1f%% full\n", s->chunks,
           s->chunks_deduplicated, s->chunks_stored_raw, human(s->options.page_size, a, sizeof a),
           s->page_fill * 100.0);
    printf("  bytes        %s decoded, %s stored, ratio %.3f; file %s\n", human((double)s->bytes_raw, a, sizeof a),
           human((double)s->bytes_stored, b, sizeof b), s->ratio, human((double)s->file_size, c, sizeof c));
    printf("  input        %s of float vertices and indices in %.2f s: %.1f MB/s\n",
           human((double)s->input_bytes, e, sizeof e), s->seconds,
           s->seconds > 0.0 ? (double)s->input_bytes / s->seconds / 1e6 : 0.0);
    printf("  peak memory  %s resident\n", human((double)s->peak_rss, a, sizeof a));
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
    for (uint32_t i = 0; i < meshes && rc == CLI_OK; i++) {
        snprintf(what, sizeof what, "mesh %u of %u", i + 1, meshes);
        progress_show(pg, (double)i / (double)meshes, what);
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
        } else if (pk_builder_add_mesh(b, &m, &objects[i], &d) != 0) {
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
        if (pk_builder_add_mesh(b, &m, &object, &d) != 0) {
            pk_mesh_free(&m);
            progress_end(pg);
            fprintf(stderr, "sluice: synthetic %s: %s\n", kind, d.message);
            rc = pk_builder_write_failed(b) ? CLI_IO : CLI_FAILED;
            break;
        }
        pk_mesh_free(&m);
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
        progress_show(pg, (double)pk_synth_bytes_done(s) / (double)pk_synth_bytes_target(s), what);
    }
    pk_synth_close(s);
    return rc;
}

static int takes_value(const char *a)
{
    static const char *const with_value[] = {"-o",          "--output",    "--synthetic", "--size",      "--seed",
                                             "--page-size", "--lz4-level", "--max-lods",  "--stored-ratio"};
    for (size_t i = 0; i < sizeof with_value / sizeof with_value[0]; i++) {
        if (strcmp(a, with_value[i]) == 0) {
            return 1;
        }
    }
    return 0;
}

static int pack_main(int argc, char **argv, const char **inputs, int *input_count, const char **out_path,
                     const char **synthetic_kind);

int cmd_pack(int argc, char **argv)
{
    const char *out = NULL, *synthetic = NULL;
    /* Several inputs go into one pack: their objects share pages, so a set of
     * small assets fills pages as well as one large one does. */
    const char **inputs = calloc((size_t)argc + 1, sizeof *inputs);
    int input_count = 0;
    if (inputs == NULL) {
        fprintf(stderr, "sluice pack: out of memory\n");
        return CLI_FAILED;
    }
    int rc = pack_main(argc, argv, inputs, &input_count, &out, &synthetic);
    free(inputs);
    return rc;
}

static int pack_main(int argc, char **argv, const char **inputs, int *input_count, const char **out_path,
                     const char **synthetic_kind)
{
    const char *in = NULL, *out = NULL, *synthetic = NULL;
    uint64_t size = 64ull << 20, seed = 1;
    int size_given = 0, seed_given = 0, skip_unsupported = 0, allow_outside_paths = 0, quiet = 0;
    pk_build_options opt;
    memset(&opt, 0, sizeof opt);
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : ""; /* never NULL: a missing value is refused below */
        unsigned long long n;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            pack_usage(stdout);
            return CLI_OK;
        } else if (strcmp(a, "--quantize") == 0) {
            opt.quantize = 1;
        } else if (strcmp(a, "--skip-unsupported") == 0) {
            skip_unsupported = 1;
        } else if (strcmp(a, "--allow-outside-paths") == 0) {
            allow_outside_paths = 1;
        } else if (strcmp(a, "--quiet") == 0) {
            quiet = 1;
        } else if (takes_value(a) && i + 1 >= argc) {
            fprintf(stderr, "sluice pack: %s needs a value\n", a);
            return CLI_USAGE;
        } else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
            out = v;
            i++;
        } else if (strcmp(a, "--synthetic") == 0) {
            synthetic = v;
            i++;
        } else if (strcmp(a, "--size") == 0) {
            if (parse_size(v, &size) != 0 || size == 0) {
                fprintf(stderr, "sluice pack: --size '%s' is not a size in bytes above 0\n", v);
                return CLI_USAGE;
            }
            size_given = 1;
            i++;
        } else if (strcmp(a, "--seed") == 0) {
            if (parse_uint(v, UINT64_MAX, &n) != 0) {
                fprintf(stderr, "sluice pack: --seed '%s' is not an unsigned integer\n", v);
                return CLI_USAGE;
            }
            seed = n;
            seed_given = 1;
            i++;
        } else if (strcmp(a, "--page-size") == 0) {
            uint64_t ps;
            if (parse_size(v, &ps) != 0 || ps == 0 || ps > UINT32_MAX) {
                fprintf(stderr, "sluice pack: --page-size '%s' is not a size in bytes\n", v);
                return CLI_USAGE;
            }
            opt.page_size = (uint32_t)ps;
            i++;
        } else if (strcmp(a, "--lz4-level") == 0) {
            if (parse_uint(v, 1000, &n) != 0 || n == 0) {
                fprintf(stderr, "sluice pack: --lz4-level '%s' is not a level from 1 to 12\n", v);
                return CLI_USAGE;
            }
            opt.lz4_level = (int)n;
            i++;
        } else if (strcmp(a, "--max-lods") == 0) {
            if (parse_uint(v, 1000, &n) != 0 || n == 0) {
                fprintf(stderr, "sluice pack: --max-lods '%s' is not a count from 1 to %u\n", v, PK_MAX_LODS);
                return CLI_USAGE;
            }
            opt.max_lods = (uint32_t)n;
            i++;
        } else if (strcmp(a, "--stored-ratio") == 0) {
            char *end;
            double x = strtod(v, &end);
            if (end == v || *end != '\0' || !(x >= 1.0) || !isfinite(x)) {
                fprintf(stderr, "sluice pack: --stored-ratio '%s' is not a number >= 1\n", v);
                return CLI_USAGE;
            }
            opt.stored_ratio_threshold = x;
            i++;
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "sluice pack: unknown option '%s'\n", a);
            pack_usage(stderr);
            return CLI_USAGE;
        } else {
            inputs[(*input_count)++] = a;
            in = in != NULL ? in : a;
        }
    }
    *out_path = out;
    *synthetic_kind = synthetic;
    if ((in == NULL) == (synthetic == NULL) || out == NULL) {
        fprintf(stderr, "%s", in != NULL && synthetic != NULL ? "sluice pack: INPUT and --synthetic exclude each other\n"
                                                              : "");
        pack_usage(stderr);
        return CLI_USAGE;
    }
    if (synthetic == NULL && (size_given || seed_given)) {
        fprintf(stderr, "sluice pack: --size and --seed go with --synthetic\n");
        return CLI_USAGE;
    }
    pk_diag d;
    memset(&d, 0, sizeof d);
    pk_build_options resolved;
    if (pk_build_options_resolve(&opt, &resolved, &d) != 0) {
        fprintf(stderr, "sluice pack: %s\n", d.message);
        return CLI_USAGE;
    }
    pk_synth *synth = NULL;
    if (synthetic != NULL && pk_synth_open(synthetic, size, seed, &synth, &d) != 0) {
        fprintf(stderr, "sluice pack: %s\n", d.message);
        return CLI_USAGE;
    }
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
    uint64_t importable = 0;
    for (int k = 0; k < *input_count; k++) {
        gltf_scene *sc = NULL;
        int rc = open_gltf(inputs[k], skip_unsupported, allow_outside_paths, &quiet, &sc);
        if (rc == CLI_OK) {
            rc = check_output_not_buffer(out, inputs[k], sc);
            importable += gltf_count_importable(sc);
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
    memset(&pg, 0, sizeof pg);
    pg.on = !quiet && isatty(STDERR_FILENO);
    pg.last_permille = -1;
    uint32_t added = 0;
    int rc = synthetic != NULL ? pack_synthetic(synth, synthetic, b, &pg)
                               : pack_gltf(in, scene, b, &quiet, &pg, &added);
    for (int k = 1; k < *input_count && rc == CLI_OK; k++) {
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
    progress_show(&pg, 1.0, "writing tables");
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
