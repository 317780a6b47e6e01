/* SPDX-License-Identifier: MIT */
/* sluice bench codec: pack bytes at LOD 0 per chunk codec against the
 * anchor, gltfpack -cc followed by lz4 -9 (both run as child processes), and
 * the decode speed of each codec through slc_pack_load_chunk against plain
 * memcpy of the same bytes, in one run.
 *
 * Each model is imported once and every mesh is given to one builder per
 * codec (quantized, --max-lods 1), so the packs differ only in how their
 * chunks are stored. A model the packer refuses is skipped and named, with
 * the importer's reason. The packs, gltfpack's output and the lz4 files live
 * in a temporary folder under $TMPDIR (or /tmp), removed when the command
 * ends, however it ends short of SIGKILL. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp, posix_spawnp, clock_gettime, nftw-free cleanup */

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "cli.h"
#include "escape.h"
#include "pack/builder.h"
#include "gltf.h"
#include "gltf_meshopt.h"

extern char **environ;

#define ME "sluice bench codec"
#define USAGE                                                                                             \
    "usage: sluice bench codec INPUT.gltf|INPUT.glb... [--reps N] [--quick] [--json] [--gltfpack PROG]\n" \
    "                          [--lz4 PROG]\n"
#define MODELS_MAX 64u

/* The chunk codecs measured, in the order of the columns: each the
 * packer's --codec of that name (pk_codec_names). */
enum { C_STORED, C_LZ4, C_MESHOPT, C_MESHOPT_LZ4, C_AUTO, CODECS };
static const pk_codec codec_of[CODECS] = {PK_CODEC_STORED, PK_CODEC_LZ4, PK_CODEC_MESHOPT, PK_CODEC_MESHOPT_LZ4,
                                          PK_CODEC_AUTO};
#define codec_name(c) pk_codec_names[codec_of[c]]

/* Sets o to build every chunk with codec c; returns 0, or -1 when this
 * build's packer has no such codec (the options do not resolve). */
static int codec_options(pk_build_options *o, int c)
{
    o->codec = codec_of[c];
    pk_build_options resolved;
    pk_diag d;
    return pk_build_options_resolve(o, &resolved, &d);
}

static int codec_built(int c)
{
    pk_build_options o;
    memset(&o, 0, sizeof o);
    return codec_options(&o, c) == 0;
}

/* The two anchors: gltfpack's defaults, and its bits raised to sluice's. */
enum { A_DEFAULT, A_BITS16, ANCHORS };
static const char *const anchor_flags[ANCHORS][6] = {{"-cc", NULL}, {"-cc", "-vp", "16", "-vt", "16", NULL}};
static const char *const anchor_labels[ANCHORS] = {"gltfpack -cc", "gltfpack -cc -vp 16 -vt 16"};

typedef struct anchor {
    int ok;
    uint64_t geometry;    /* bytes of the POSITION, NORMAL, TEXCOORD_0 and index views as stored */
    uint64_t lz4;         /* those bytes after lz4 -9 (a frame, as the lz4 tool writes it) */
    uint64_t file;        /* the .gltf and the .bin */
    uint64_t other;       /* bytes of the .bin's other views (animations, skins, morph targets, images) */
    uint64_t triangles;   /* of every primitive of its meshes, each mesh once */
    int morph_shared;     /* a counted view also holds a morph target's accessor (gltfpack packs them together) */
    int reps;             /* in: timed samples of the decode below */
    uint64_t target;      /* in: bytes a sample decodes at least (0: one pass) */
    double decode_gbps;   /* meshoptimizer's decoders over the compressed geometry views, one core; 0: none */
    uint64_t decoded;     /* bytes those views decode to */
    char decode_why[160]; /* decode_gbps 0: why */
    char why[256];        /* !ok: what failed */
} anchor;

typedef struct codec_result {
    int ok;
    uint64_t payload, file, decoded;
    uint32_t chunks;
    uint32_t by_codec[4]; /* chunk records by SLC_PACK_CODEC_* */
    int same;             /* 1: every chunk decodes to the bytes the baseline's pack decodes to */
    double gbps;
    char why[256];
    char path[1100];
    slc_logger log; /* the reader's messages, into why (the pack keeps a pointer to it) */
} codec_result;

typedef struct model {
    const char *input;
    char name[256];
    int skipped;
    char why[512];
    uint64_t triangles, vertices;
    uint32_t meshes_deduplicated; /* meshes identical to an earlier one, stored once by the packer */
    codec_result codec[CODECS];
    double memcpy_gbps;
    anchor anchors[ANCHORS];
} model;

/* The temporary folder and every file that may be in it (fixed names, one
 * level), made once by tmp_init, so the signal handler and atexit only call
 * unlink and rmdir, which are async-signal-safe. */
enum { TMP_GLTF, TMP_BIN, TMP_GEOM, TMP_GEOM_LZ4, TMP_LOG, TMP_PACK0, TMP_FILES = TMP_PACK0 + CODECS };
static const char *const tmp_names[TMP_PACK0] = {"out.gltf", "out.bin", "geom.bin", "geom.bin.lz4", "child.log"};
static char tmp_dir[1024];
static char tmp_files[TMP_FILES][1100];
static volatile sig_atomic_t tmp_live;

static void tmp_init(void)
{
    for (int i = 0; i < TMP_FILES; i++) {
        if (i < TMP_PACK0) {
            snprintf(tmp_files[i], sizeof tmp_files[i], "%s/%s", tmp_dir, tmp_names[i]);
        } else {
            snprintf(tmp_files[i], sizeof tmp_files[i], "%s/%s.pack", tmp_dir, codec_name(i - TMP_PACK0));
        }
    }
    tmp_live = 1;
}

static void remove_tmp(void)
{
    if (!tmp_live) {
        return;
    }
    tmp_live = 0;
    for (int i = 0; i < TMP_FILES; i++) {
        (void)unlink(tmp_files[i]);
    }
    (void)rmdir(tmp_dir);
}

/* The signals that end the command: the handler found installed before
 * ours (atomic_file's, which removes the packs' temporaries in the folder)
 * runs first, then the folder goes. */
static const int tmp_sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
#define TMP_SIGS (sizeof tmp_sigs / sizeof tmp_sigs[0])
static struct sigaction tmp_prev[TMP_SIGS];

static void on_signal(int sig)
{
    for (size_t i = 0; i < TMP_SIGS; i++) {
        if (tmp_sigs[i] == sig && tmp_prev[i].sa_handler != SIG_DFL && tmp_prev[i].sa_handler != SIG_IGN) {
            tmp_prev[i].sa_handler(sig); /* resets the action and raises: pending until we return */
        }
    }
    remove_tmp();
    (void)signal(sig, SIG_DFL);
    (void)raise(sig);
}

/* Puts on_signal in front of each signal's handler, keeping the one it
 * replaces; again after the first pack opens, whose atomic_file installs
 * its own over ours. A signal the caller ignores stays ignored. */
static void guard_signals(void)
{
    for (size_t i = 0; i < TMP_SIGS; i++) {
        struct sigaction cur;
        if (sigaction(tmp_sigs[i], NULL, &cur) != 0 || cur.sa_handler == on_signal || cur.sa_handler == SIG_IGN) {
            continue;
        }
        tmp_prev[i] = cur;
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        (void)sigaction(tmp_sigs[i], &sa, NULL);
    }
}

static uint64_t thread_cpu_ns(void)
{
    struct timespec t;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t) != 0) {
        return 0;
    }
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static uint64_t file_bytes(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
}

/* ---- the packs ---------------------------------------------------------- */

/* The model's name: the input's file name without its folder and extension. */
static void model_name(const char *input, char *out, size_t cap)
{
    const char *base = strrchr(input, '/');
    base = base != NULL ? base + 1 : input;
    snprintf(out, cap, "%s", base);
    char *dot = strrchr(out, '.');
    if (dot != NULL && dot != out) {
        *dot = '\0';
    }
}

/* Imports m->input once and builds one pack per codec; a refusal of the
 * importer or the builder skips the model with its reason. Returns CLI_OK
 * (built or skipped) or CLI_IO (a pack could not be written). */
static int build_packs(model *m)
{
    gltf_options go;
    memset(&go, 0, sizeof go);
    pk_diag d;
    memset(&d, 0, sizeof d);
    gltf_scene *scene = NULL;
    if (gltf_open(m->input, &go, &scene, &d) != 0) {
        m->skipped = 1;
        snprintf(m->why, sizeof m->why, "%s", d.message);
        return CLI_OK;
    }
    pk_builder *b[CODECS] = {0};
    int rc = CLI_OK;
    for (int c = 0; c < CODECS && rc == CLI_OK; c++) {
        pk_build_options opt;
        memset(&opt, 0, sizeof opt);
        opt.quantize = 1;
        opt.max_lods = 1;
        codec_result *r = &m->codec[c];
        if (codec_options(&opt, c) != 0) {
            snprintf(r->why, sizeof r->why, "codec %s: not in this build's packer", codec_name(c));
            continue;
        }
        snprintf(r->path, sizeof r->path, "%s", tmp_files[TMP_PACK0 + c]);
        if (pk_builder_open(r->path, &opt, &b[c], &d) != 0) {
            fprintf(stderr, ME ": %s\n", d.message);
            rc = CLI_IO;
        }
        guard_signals();
    }
    uint32_t meshes = gltf_mesh_count(scene);
    uint32_t *objects = calloc((size_t)meshes * CODECS + 1, sizeof *objects);
    cli_need(ME, objects != NULL, "out of memory");
    uint32_t next_object = 0;
    for (uint32_t i = 0; i < meshes && rc == CLI_OK && !m->skipped; i++) {
        pk_mesh mesh;
        memset(&mesh, 0, sizeof mesh);
        if (gltf_load_mesh(scene, i, &mesh, &d) != 0) {
            m->skipped = 1;
            snprintf(m->why, sizeof m->why, "%s", d.message);
            break;
        }
        for (int c = 0; c < CODECS && !m->skipped; c++) {
            if (b[c] == NULL) {
                continue;
            }
            uint32_t *obj = &objects[(size_t)i * CODECS + (size_t)c];
            if (pk_builder_add_mesh(b[c], &mesh, obj, &d) != 0) {
                if (pk_builder_write_failed(b[c])) {
                    fprintf(stderr, ME ": %s\n", d.message);
                    rc = CLI_IO;
                }
                m->skipped = 1;
                snprintf(m->why, sizeof m->why, "%s", d.message);
            } else if (c == C_AUTO && *obj == next_object) { /* a new object, not a duplicate */
                next_object++;
                m->vertices += mesh.vertex_count;
            }
        }
        pk_mesh_free(&mesh);
    }
    uint32_t instances = gltf_instance_count(scene);
    for (uint32_t i = 0; i < instances && rc == CLI_OK && !m->skipped; i++) {
        pk_instance inst;
        gltf_get_instance(scene, i, &inst);
        uint32_t mesh = inst.mesh;
        for (int c = 0; c < CODECS && !m->skipped; c++) {
            if (b[c] == NULL) {
                continue;
            }
            inst.mesh = objects[(size_t)mesh * CODECS + (size_t)c];
            if (pk_builder_add_instance(b[c], &inst, &d) != 0) {
                m->skipped = 1;
                snprintf(m->why, sizeof m->why, "%s", d.message);
            }
        }
    }
    free(objects);
    gltf_close(scene);
    for (int c = 0; c < CODECS; c++) {
        if (b[c] == NULL) {
            continue;
        }
        if (rc != CLI_OK || m->skipped) {
            pk_builder_abort(b[c]);
            continue;
        }
        pk_build_stats st;
        if (pk_builder_finish(b[c], &st, &d) != 0) {
            fprintf(stderr, ME ": %s\n", d.message);
            rc = CLI_IO;
            continue;
        }
        codec_result *r = &m->codec[c];
        r->ok = 1;
        r->payload = st.bytes_stored;
        r->file = st.file_size;
        r->decoded = st.bytes_raw;
        r->chunks = st.chunks;
        memcpy(r->by_codec, st.chunks_codec, sizeof r->by_codec);
        m->triangles = st.triangles_lod0;
        m->meshes_deduplicated = st.meshes_deduplicated;
    }
    return rc;
}

/* ---- the anchor: gltfpack and lz4 as child processes ---------------------- */

/* Whether prog names an executable file: as a path when it holds a '/',
 * else in one of PATH's folders (an empty entry is the current folder).
 * Looked up before spawning because a spawn that cannot exec is not always
 * told apart from a child that exits 127 (under qemu-user it is not). */
static int program_found(const char *prog)
{
    if (strchr(prog, '/') != NULL) {
        return access(prog, X_OK) == 0;
    }
    const char *path = getenv("PATH");
    if (path == NULL || prog[0] == '\0') {
        return 0;
    }
    for (const char *at = path;;) {
        size_t n = strcspn(at, ":");
        char full[4096];
        if (n + strlen(prog) + 2 <= sizeof full) {
            snprintf(full, sizeof full, "%.*s%s%s", (int)n, at, n ? "/" : "", prog);
            if (access(full, X_OK) == 0) {
                return 1;
            }
        }
        if (at[n] == '\0') {
            return 0;
        }
        at += n + 1;
    }
}

/* Runs argv (argv[0] searched in PATH) with stdin from /dev/null and stdout
 * and stderr into the folder's child.log. Returns 0 when it exited 0, else
 * -1 with why: "not found", "exit N: <its first line>", "killed by signal N". */
static int run_child(char *const argv[], char *why, size_t cap)
{
    const char *log = tmp_files[TMP_LOG];
    if (!program_found(argv[0])) {
        snprintf(why, cap, "%s: not found", argv[0]);
        return -1;
    }
    posix_spawn_file_actions_t fa;
    if (posix_spawn_file_actions_init(&fa) != 0) {
        snprintf(why, cap, "%s: cannot start: out of memory", argv[0]);
        return -1;
    }
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    pid_t pid;
    int err = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (err != 0) {
        snprintf(why, cap, "%s: %s", argv[0], err == ENOENT ? "not found" : strerror(err));
        return -1;
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            snprintf(why, cap, "%s: waitpid: %s", argv[0], strerror(errno));
            return -1;
        }
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        return 0;
    }
    char first[160] = "";
    FILE *f = fopen(log, "r");
    if (f != NULL) {
        if (fgets(first, sizeof first, f) == NULL) {
            first[0] = '\0';
        }
        first[strcspn(first, "\r\n")] = '\0';
        (void)fclose(f);
    }
    if (WIFEXITED(status)) {
        snprintf(why, cap, "%s: exit %d%s%s", argv[0], WEXITSTATUS(status), first[0] ? ": " : "", first);
    } else {
        snprintf(why, cap, "%s: killed by signal %d", argv[0], WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    }
    return -1;
}

/* A non-negative integer member of obj, or dflt when absent; -1 when present
 * but not a whole number in range. */
static double js_count(const cJSON *obj, const char *key, double dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (v == NULL) {
        return dflt;
    }
    if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > 9007199254740992.0 ||
        floor(v->valuedouble) != v->valuedouble) {
        return -1;
    }
    return v->valuedouble;
}

/* used[] of anchor_geometry: a view a mesh's geometry reads, and one whose
 * bytes were then found inside out.bin. */
enum { VIEW_USED = 1, VIEW_IN_BIN = 3 };

/* Marks the bufferView accessor index v names (a member of a primitive). */
static int mark_view(const cJSON *accessors, const cJSON *v, unsigned char *used, int views, const char *what,
                     char *why, size_t cap)
{
    if (v == NULL) {
        return 0;
    }
    int n = cJSON_GetArraySize(accessors);
    if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble >= n) {
        snprintf(why, cap, "out.gltf: %s: not an accessor index below %d", what, n);
        return -1;
    }
    const cJSON *acc = cJSON_GetArrayItem(accessors, (int)v->valuedouble);
    double view = js_count(acc, "bufferView", -2);
    if (view == -2) {
        return 0; /* no view: zeros, no bytes */
    }
    if (view < 0 || view >= views) {
        snprintf(why, cap, "out.gltf: accessors[%d].bufferView: not a view index below %d", (int)v->valuedouble, views);
        return -1;
    }
    used[(int)view] = VIEW_USED;
    return 0;
}

/* A view's EXT_meshopt_compression object when the view lies inside
 * out.bin (used is its VIEW_* mark), else NULL: the views the anchor's
 * decode covers. */
static const cJSON *anchor_view_ext(const cJSON *view, unsigned char used)
{
    if (used != VIEW_IN_BIN) {
        return NULL;
    }
    return cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(view, "extensions"),
                                            "EXT_meshopt_compression");
}

/* One pass of meshoptimizer's decoders (and gltfpack's filters) over the n
 * views of mo (gltf_meshopt_decode, the importer's); returns the decoded
 * bytes, or 0 with why when the library refuses a view. */
static uint64_t anchor_decode_pass(const gltf_meshopt *mo, const int *vi, int n, const unsigned char *bin,
                                   unsigned char *dst, char *why, size_t cap)
{
    uint64_t bytes = 0;
    for (int k = 0; k < n; k++) {
        char what[160];
        if (gltf_meshopt_decode(&mo[k], bin + mo[k].offset, dst, what, sizeof what) != 0) {
            snprintf(why, cap, "out.gltf: bufferViews[%d]: %.120s", vi[k], what);
            return 0;
        }
        bytes += mo[k].size;
    }
    return bytes;
}

/* The anchor's decode on one core, as slc_pack_load_chunk's is measured:
 * decoded bytes over thread CPU time, the median of a->reps samples. Views
 * marked VIEW_IN_BIN lie inside out.bin; each one's extension object is
 * read and checked as the importer does (gltf_meshopt_parse, which bounds
 * its decoded size) before any is decoded. */
static void anchor_decode(anchor *a, const cJSON *views, int nbuffers, const unsigned char *used,
                          const unsigned char *bin)
{
    int nviews = cJSON_GetArraySize(views), n = 0;
    gltf_meshopt *mo = calloc((size_t)nviews + 1, sizeof *mo);
    int *vis = calloc((size_t)nviews + 1, sizeof *vis);
    cli_need(ME, mo != NULL && vis != NULL, "out of memory");
    size_t biggest = 0;
    int vi = 0;
    for (const cJSON *v = views->child; v != NULL; v = v->next, vi++) {
        const cJSON *ext = anchor_view_ext(v, used[vi]);
        if (ext == NULL) {
            continue;
        }
        char what[192];
        double stride = js_count(v, "byteStride", 0), length = js_count(v, "byteLength", 0);
        if (stride < 0 || stride > 255 || length < 0 ||
            gltf_meshopt_parse(ext, (uint32_t)nbuffers, (uint32_t)stride, (uint64_t)length, &mo[n], what,
                               sizeof what) != 0) {
            snprintf(a->decode_why, sizeof a->decode_why, "out.gltf: bufferViews[%d]: %.120s", vi,
                     stride < 0 || stride > 255 || length < 0 ? "byteStride or byteLength not a count" : what);
            free(mo);
            free(vis);
            return;
        }
        biggest = (size_t)mo[n].size > biggest ? (size_t)mo[n].size : biggest;
        vis[n++] = vi;
    }
    unsigned char *dst = malloc(biggest + 16);
    double *gbps = calloc((size_t)a->reps, sizeof *gbps);
    cli_need(ME, dst != NULL && gbps != NULL, "out of memory");
    a->decoded = anchor_decode_pass(mo, vis, n, bin, dst, a->decode_why, sizeof a->decode_why);
    if (a->decoded > 0) {
        int passes = a->target > a->decoded ? (int)((a->target + a->decoded - 1) / a->decoded) : 1;
        for (int k = 0; k < a->reps; k++) {
            uint64_t bytes = 0, t0 = thread_cpu_ns();
            for (int p = 0; p < passes; p++) {
                bytes += anchor_decode_pass(mo, vis, n, bin, dst, a->decode_why, sizeof a->decode_why);
            }
            uint64_t t1 = thread_cpu_ns();
            gbps[k] = (double)bytes / (double)(t1 > t0 ? t1 - t0 : 1);
        }
        qsort(gbps, (size_t)a->reps, sizeof *gbps, cli_cmp_double);
        a->decode_gbps = gbps[a->reps / 2];
    } else if (a->decode_why[0] == '\0') {
        snprintf(a->decode_why, sizeof a->decode_why, "no view compressed with EXT_meshopt_compression");
    }
    free(gbps);
    free(dst);
    free(mo);
    free(vis);
}

/* Marks in used every view a mesh primitive's POSITION, NORMAL, TEXCOORD_0
 * or indices reads, and counts the triangles in a. Returns 0, or -1 with
 * why naming the record and the check. */
static int mark_primitives(anchor *a, const cJSON *meshes, const cJSON *accessors, unsigned char *used, int nviews,
                           char *why, size_t cap)
{
    static const char *const roles[3] = {"POSITION", "NORMAL", "TEXCOORD_0"};
    int mi = 0;
    for (const cJSON *mesh = meshes->child; mesh != NULL; mesh = mesh->next, mi++) {
        const cJSON *prims = cJSON_GetObjectItemCaseSensitive(mesh, "primitives");
        int pi = 0;
        for (const cJSON *p = cJSON_IsArray(prims) ? prims->child : NULL; p != NULL; p = p->next, pi++) {
            char what[96];
            const cJSON *attrs = cJSON_GetObjectItemCaseSensitive(p, "attributes");
            for (int r = 0; r < 3; r++) {
                snprintf(what, sizeof what, "meshes[%d].primitives[%d].attributes.%s", mi, pi, roles[r]);
                if (mark_view(accessors, cJSON_GetObjectItemCaseSensitive(attrs, roles[r]), used, nviews, what, why,
                              cap) != 0) {
                    return -1;
                }
            }
            snprintf(what, sizeof what, "meshes[%d].primitives[%d].indices", mi, pi);
            const cJSON *ind = cJSON_GetObjectItemCaseSensitive(p, "indices");
            if (mark_view(accessors, ind, used, nviews, what, why, cap) != 0) {
                return -1;
            }
            if (ind != NULL) { /* mark_view checked it names an accessor */
                int ai = (int)ind->valuedouble;
                double count = js_count(cJSON_GetArrayItem(accessors, ai), "count", 0);
                if (count < 0) {
                    snprintf(why, cap, "out.gltf: accessors[%d].count: not a count", ai);
                    return -1;
                }
                a->triangles += (uint64_t)count / 3;
            }
        }
    }
    return 0;
}

/* Morph targets' views (2 marks a view that only they read): sets
 * a->morph_shared when one of them is a view mark_primitives marked.
 * Returns 0, or -1 with why. */
static int mark_targets(anchor *a, const cJSON *meshes, const cJSON *accessors, const unsigned char *used, int nviews,
                        char *why, size_t cap)
{
    int mi = 0;
    for (const cJSON *mesh = meshes->child; mesh != NULL; mesh = mesh->next, mi++) {
        const cJSON *prims = cJSON_GetObjectItemCaseSensitive(mesh, "primitives");
        int pi = 0;
        for (const cJSON *p = cJSON_IsArray(prims) ? prims->child : NULL; p != NULL; p = p->next, pi++) {
            const cJSON *targets = cJSON_GetObjectItemCaseSensitive(p, "targets");
            int ti = 0;
            for (const cJSON *t = cJSON_IsArray(targets) ? targets->child : NULL; t != NULL; t = t->next, ti++) {
                for (const cJSON *v = t->child; v != NULL; v = v->next) {
                    unsigned char *seen = calloc((size_t)nviews + 1, 1);
                    cli_need(ME, seen != NULL, "out of memory");
                    char what[128];
                    snprintf(what, sizeof what, "meshes[%d].primitives[%d].targets[%d].%s", mi, pi, ti,
                             v->string != NULL ? v->string : "?");
                    int bad = mark_view(accessors, v, seen, nviews, what, why, cap);
                    for (int k = 0; k < nviews && bad == 0; k++) {
                        a->morph_shared |= seen[k] && used[k] == VIEW_USED;
                    }
                    free(seen);
                    if (bad != 0) {
                        return -1;
                    }
                }
            }
        }
    }
    return 0;
}

/* Writes the bytes of every used view in out.bin to geom (marking it
 * VIEW_IN_BIN) and counts them in a->geometry, the .bin's other bytes in
 * a->other. Returns 0, or -1 with why. */
static int write_geometry(anchor *a, const cJSON *views, const cJSON *buffers, unsigned char *used,
                          const unsigned char *bin, size_t bin_len, FILE *geom, char *why, size_t cap)
{
    a->geometry = 0;
    uint64_t in_bin = 0;
    int vi = 0;
    for (const cJSON *v = views->child; v != NULL; v = v->next, vi++) {
        const cJSON *ext = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(v, "extensions"),
                                                            "EXT_meshopt_compression");
        const cJSON *src = ext != NULL ? ext : v; /* compressed: the bytes the extension names */
        double buf = js_count(src, "buffer", -1), off = js_count(src, "byteOffset", 0),
               len = js_count(src, "byteLength", -1);
        if (buf < 0 || off < 0 || len < 0 || buf >= cJSON_GetArraySize(buffers)) {
            snprintf(why, cap, "out.gltf: bufferViews[%d]%s: buffer, byteOffset or byteLength missing or out of range",
                     vi, ext != NULL ? ".extensions.EXT_meshopt_compression" : "");
            return -1;
        }
        const cJSON *uri = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(buffers, (int)buf), "uri");
        if (!cJSON_IsString(uri) || strcmp(uri->valuestring, "out.bin") != 0) {
            continue; /* a fallback buffer with no bytes in the file */
        }
        if (off + len > (double)bin_len) {
            snprintf(why, cap, "out.gltf: bufferViews[%d]: bytes %.0f..%.0f outside out.bin (%zu bytes)", vi, off,
                     off + len, bin_len);
            return -1;
        }
        in_bin += (uint64_t)len;
        if (used[vi]) {
            used[vi] = VIEW_IN_BIN;
            if (fwrite(bin + (size_t)off, 1, (size_t)len, geom) != (size_t)len) {
                snprintf(why, cap, "geom.bin: write failed");
                return -1;
            }
            a->geometry += (uint64_t)len;
        }
    }
    a->other = in_bin - a->geometry;
    return 0;
}

/* Reads gltfpack's out.gltf and out.bin in the folder, writes the bytes of
 * every view a mesh primitive's POSITION, NORMAL, TEXCOORD_0 or indices
 * reads (compressed, as EXT_meshopt_compression stores them) to geom.bin,
 * and counts them and the .bin's other bytes. Returns 0, or -1 with why
 * naming the file, the record and the check. */
static int anchor_geometry(anchor *a, char *why, size_t cap)
{
    const char *gltf_path = tmp_files[TMP_GLTF], *bin_path = tmp_files[TMP_BIN], *geom_path = tmp_files[TMP_GEOM];
    size_t json_len = 0, bin_len = 0;
    char *json = cli_read_file(gltf_path, (size_t)64 << 20, &json_len);
    if (json == NULL) {
        snprintf(why, cap, "gltfpack wrote no readable out.gltf");
        return -1;
    }
    unsigned char *bin = (unsigned char *)cli_read_file(bin_path, (size_t)1 << 30, &bin_len);
    if (bin == NULL) {
        free(json);
        snprintf(why, cap, "gltfpack wrote no readable out.bin");
        return -1;
    }
    int rc = -1;
    cJSON *root = cJSON_ParseWithLength(json, json_len);
    const cJSON *views = cJSON_GetObjectItemCaseSensitive(root, "bufferViews");
    const cJSON *accessors = cJSON_GetObjectItemCaseSensitive(root, "accessors");
    const cJSON *meshes = cJSON_GetObjectItemCaseSensitive(root, "meshes");
    const cJSON *buffers = cJSON_GetObjectItemCaseSensitive(root, "buffers");
    int nviews = cJSON_GetArraySize(views);
    unsigned char *used = calloc((size_t)nviews + 1, 1);
    FILE *geom = NULL;
    if (root == NULL) {
        snprintf(why, cap, "out.gltf: not JSON");
        goto out;
    }
    if (!cJSON_IsArray(views) || !cJSON_IsArray(accessors) || !cJSON_IsArray(meshes) || !cJSON_IsArray(buffers)) {
        snprintf(why, cap, "out.gltf: no bufferViews, accessors, meshes or buffers array");
        goto out;
    }
    cli_need(ME, used != NULL, "out of memory");
    if (mark_primitives(a, meshes, accessors, used, nviews, why, cap) != 0 ||
        mark_targets(a, meshes, accessors, used, nviews, why, cap) != 0) {
        goto out;
    }
    geom = fopen(geom_path, "wb");
    if (geom == NULL) {
        snprintf(why, cap, "geom.bin: %s", strerror(errno));
        goto out;
    }
    if (write_geometry(a, views, buffers, used, bin, bin_len, geom, why, cap) != 0) {
        goto out;
    }
    if (fclose(geom) != 0) {
        geom = NULL;
        snprintf(why, cap, "geom.bin: write failed");
        goto out;
    }
    geom = NULL;
    if (a->reps > 0) {
        anchor_decode(a, views, cJSON_GetArraySize(buffers), used, bin);
    }
    a->file = json_len + bin_len;
    rc = 0;
out:
    if (geom != NULL) {
        (void)fclose(geom);
    }
    free(used);
    cJSON_Delete(root);
    free(bin);
    free(json);
    return rc;
}

/* gltfpack with flags over the model, then lz4 -9 over its geometry bytes. */
static void measure_anchor(const model *m, int which, const char *gltfpack, const char *lz4, anchor *a)
{
    char *out_path = tmp_files[TMP_GLTF], *geom_path = tmp_files[TMP_GEOM], *lz4_path = tmp_files[TMP_GEOM_LZ4];
    char *argv[16];
    int n = 0;
    argv[n++] = (char *)gltfpack;
    argv[n++] = (char *)"-i";
    argv[n++] = (char *)m->input;
    argv[n++] = (char *)"-o";
    argv[n++] = out_path;
    for (int i = 0; anchor_flags[which][i] != NULL; i++) {
        argv[n++] = (char *)anchor_flags[which][i];
    }
    argv[n] = NULL;
    for (int i = TMP_GLTF; i < TMP_PACK0; i++) { /* nothing of the last model's read as this one's */
        (void)unlink(tmp_files[i]);
    }
    if (run_child(argv, a->why, sizeof a->why) != 0 || anchor_geometry(a, a->why, sizeof a->why) != 0) {
        return;
    }
    char *lz[] = {(char *)lz4, (char *)"-9", (char *)"-q", (char *)"-f", geom_path, lz4_path, NULL};
    if (run_child(lz, a->why, sizeof a->why) != 0) {
        return;
    }
    a->lz4 = file_bytes(lz4_path);
    a->ok = a->lz4 > 0;
    if (!a->ok) {
        snprintf(a->why, sizeof a->why, "%s wrote no geom.bin.lz4", lz4);
    }
}

/* ---- decode speed ---------------------------------------------------------- */

/* A logger keeping the reader's first error in the codec's result: a pack
 * this build's reader refuses (a codec it was built without) is said in
 * that codec's row, not on stderr. */
static void log_to_result(void *user, slc_log_level level, slc_status status, const char *message)
{
    codec_result *r = user;
    if (level == SLC_LOG_ERROR && r->why[0] == '\0') {
        snprintf(r->why, sizeof r->why, "%s (%s)", message, slc_status_name(status));
    }
}

typedef struct decode_ctx {
    cli_pack pack;
    int open;
    void *scratch;
    size_t scratch_size;
} decode_ctx;

/* One pass over every chunk of p into the ring of pages: the load path, or
 * (copy != NULL) memcpy of the same decoded bytes. Returns the decoded
 * bytes, 0 on a failed load. */
static uint64_t decode_pass(const decode_ctx *dc, const unsigned char *copy, unsigned char *ring, size_t page,
                            size_t ring_pages)
{
    const slc_pack *p = dc->pack.pack;
    const slc_pack_header *h = slc_pack_get_header(p);
    uint64_t bytes = 0;
    for (uint32_t i = 0; i < h->chunk_count; i++) {
        const slc_pack_chunk *c = slc_pack_get_chunk(p, (slc_chunk_id){i});
        unsigned char *dst = ring + (i % ring_pages) * page;
        if (copy != NULL) {
            memcpy(dst, copy + bytes, c->decoded_size);
        } else if (slc_pack_load_chunk(p, (slc_chunk_id){i}, dst, page, dc->scratch, dc->scratch_size) != SLC_OK) {
            return 0;
        }
        bytes += c->decoded_size;
    }
    return bytes;
}

/* Times every codec's pack and the memcpy baseline, interleaved, reps times
 * each; a sample is as many passes as make target bytes. */
static void measure_decode(model *m, int reps, uint64_t target)
{
    decode_ctx dc[CODECS];
    memset(dc, 0, sizeof dc);
    size_t page = 0, total = 0;
    int base = -1;
    for (int c = 0; c < CODECS; c++) {
        codec_result *r = &m->codec[c];
        if (!r->ok) {
            continue;
        }
        r->log = (slc_logger){log_to_result, r};
        if (cli_pack_open(r->path, 0, &r->log, &dc[c].pack) != CLI_OK) {
            r->ok = 0;
            if (r->why[0] == '\0') {
                snprintf(r->why, sizeof r->why, "the pack does not open");
            }
            continue;
        }
        dc[c].open = 1;
        dc[c].scratch_size = slc_pack_scratch_size(dc[c].pack.pack);
        dc[c].scratch = malloc(dc[c].scratch_size + 1);
        cli_need(ME, dc[c].scratch != NULL, "out of memory");
        page = slc_pack_get_header(dc[c].pack.pack)->page_size;
        if (base < 0) { /* the memcpy baseline copies this pack's decoded bytes */
            base = c;
            total = (size_t)r->decoded;
        }
    }
    if (base < 0) {
        return;
    }
    const size_t ring_pages = 64;
    unsigned char *ring = aligned_alloc(64, page * ring_pages);
    unsigned char *copy = malloc(total + 1);
    cli_need(ME, ring != NULL && copy != NULL, "out of memory");
    memset(ring, 0, page * ring_pages); /* touched: no page fault in the timing */
    /* The baseline's source: the first codec's decoded chunks, end to end. */
    const slc_pack_header *bh = slc_pack_get_header(dc[base].pack.pack);
    size_t at = 0;
    for (uint32_t i = 0; i < bh->chunk_count; i++) {
        const slc_pack_chunk *c = slc_pack_get_chunk(dc[base].pack.pack, (slc_chunk_id){i});
        if (slc_pack_load_chunk(dc[base].pack.pack, (slc_chunk_id){i}, copy + at, c->decoded_size, dc[base].scratch,
                                dc[base].scratch_size) != SLC_OK) {
            cli_fail(ME, "a chunk of a pack just written failed to load");
        }
        at += c->decoded_size;
    }
    int passes = total > 0 && target > total ? (int)((target + total - 1) / total) : 1;
    double *gbps = calloc((size_t)(CODECS + 1) * (size_t)reps, sizeof *gbps);
    cli_need(ME, gbps != NULL, "out of memory");
    for (int c = 0; c < CODECS; c++) { /* warm: the code, the mapping's pages; and the bytes compared */
        if (dc[c].open && m->codec[c].decoded == total) {
            const slc_pack *p = dc[c].pack.pack;
            uint32_t count = slc_pack_get_header(p)->chunk_count;
            size_t off = 0;
            m->codec[c].same = 1;
            for (uint32_t i = 0; i < count && m->codec[c].same; i++) {
                const slc_pack_chunk *k = slc_pack_get_chunk(p, (slc_chunk_id){i});
                m->codec[c].same = slc_pack_load_chunk(p, (slc_chunk_id){i}, ring, page, dc[c].scratch,
                                                       dc[c].scratch_size) == SLC_OK &&
                                   off + k->decoded_size <= total && memcmp(ring, copy + off, k->decoded_size) == 0;
                off += k->decoded_size;
            }
        }
        if (dc[c].open && decode_pass(&dc[c], NULL, ring, page, ring_pages) == 0) {
            m->codec[c].ok = 0;
            if (m->codec[c].why[0] == '\0') {
                snprintf(m->codec[c].why, sizeof m->codec[c].why, "a chunk failed to load");
            }
        }
    }
    for (int k = 0; k < reps; k++) {
        for (int c = 0; c <= CODECS; c++) { /* CODECS: the memcpy baseline */
            const decode_ctx *d = c < CODECS ? &dc[c] : &dc[base];
            if (c < CODECS && !m->codec[c].ok) {
                continue;
            }
            uint64_t bytes = 0, t0 = thread_cpu_ns();
            for (int p = 0; p < passes; p++) {
                bytes += decode_pass(d, c < CODECS ? NULL : copy, ring, page, ring_pages);
            }
            uint64_t t1 = thread_cpu_ns();
            gbps[(size_t)c * (size_t)reps + (size_t)k] = (double)bytes / (double)(t1 > t0 ? t1 - t0 : 1);
        }
    }
    for (int c = 0; c <= CODECS; c++) {
        if (c < CODECS && !m->codec[c].ok) {
            continue;
        }
        double *v = gbps + (size_t)c * (size_t)reps;
        qsort(v, (size_t)reps, sizeof *v, cli_cmp_double);
        if (c < CODECS) {
            m->codec[c].gbps = v[reps / 2];
        } else {
            m->memcpy_gbps = v[reps / 2];
        }
    }
    free(gbps);
    free(copy);
    free(ring);
    for (int c = 0; c < CODECS; c++) {
        if (dc[c].open) {
            cli_pack_close(&dc[c].pack);
        }
        free(dc[c].scratch);
    }
}

/* ---- output ---------------------------------------------------------------- */

static const char *num(int ok, uint64_t v, char *buf, size_t cap)
{
    if (!ok) {
        return "-";
    }
    snprintf(buf, cap, "%llu", (unsigned long long)v);
    return buf;
}

static double ratio_to_anchor(const model *m, int which)
{
    const anchor *a = &m->anchors[which];
    return m->codec[C_AUTO].ok && a->ok ? (double)m->codec[C_AUTO].payload / (double)a->lz4 : 0.0;
}

/* A model's row of the bytes table: its pack's payload per codec, the
 * anchors' and the ratios. */
static void print_bytes_row(const model *m)
{
    char b[CODECS + 4][32];
    printf("%-20s %9llu %9llu", m->name, (unsigned long long)m->triangles, (unsigned long long)m->vertices);
    for (int c = 0; c < CODECS; c++) {
        printf(" %*s", c == C_MESHOPT_LZ4 ? 11 : 10, num(m->codec[c].ok, m->codec[c].payload, b[c], sizeof b[c]));
    }
    const anchor *a = &m->anchors[A_DEFAULT], *a16 = &m->anchors[A_BITS16];
    char r0[32] = "-", r1[32] = "-";
    if (ratio_to_anchor(m, A_DEFAULT) > 0) {
        snprintf(r0, sizeof r0, "%.2fx", ratio_to_anchor(m, A_DEFAULT));
    }
    if (ratio_to_anchor(m, A_BITS16) > 0) {
        snprintf(r1, sizeof r1, "%.2fx", ratio_to_anchor(m, A_BITS16));
    }
    printf(" %10s %10s %10s %11s %8s\n", num(a->ok, a->geometry, b[CODECS], sizeof b[0]),
           num(a->ok, a->lz4, b[CODECS + 1], sizeof b[0]), num(a16->ok, a16->lz4, b[CODECS + 2], sizeof b[0]), r0, r1);
}

/* What the table leaves out about anchor w of m (measured, not skipped):
 * why it failed, the triangles it keeps apart from the pack's, morph
 * targets in its views. */
static void print_anchor_notes(const model *m, int w)
{
    const anchor *a = &m->anchors[w];
    if (!a->ok) {
        printf("%s %s: %s\n", m->name, w == A_DEFAULT ? "anchor" : "anchor16", a->why);
    } else if (w == A_DEFAULT && a->triangles != m->triangles) {
        printf("%s anchor: gltfpack keeps %llu triangles, the pack %llu", m->name, (unsigned long long)a->triangles,
               (unsigned long long)m->triangles);
        if (m->meshes_deduplicated > 0) {
            printf(" (%u meshes identical to an\n  earlier one, which the packer stores once)", m->meshes_deduplicated);
        }
        printf("\n");
    }
    if (a->ok && a->morph_shared) {
        printf("%s %s: its geometry views also hold the morph targets (gltfpack stores a target's\n"
               "  attribute in its base attribute's view): the anchor's bytes include them\n",
               m->name, w == A_DEFAULT ? "anchor" : "anchor16");
    }
}

/* What the table leaves out about m: codecs that failed, the anchors'
 * notes, or why it was skipped. */
static void print_model_notes(const model *m, int anchors_on)
{
    for (int c = 0; c < CODECS && !m->skipped; c++) {
        if (!m->codec[c].ok && codec_built(c)) {
            printf("%s %s: %s\n", m->name, codec_name(c), m->codec[c].why);
        }
    }
    for (int w = 0; w < ANCHORS && !m->skipped && anchors_on; w++) {
        print_anchor_notes(m, w);
    }
    if (m->skipped) {
        printf("skipped %s: the packer refuses it: %s\n", m->name, m->why);
    }
}

static void print_text(const model *ms, size_t n, int reps, int anchors_on)
{
    printf(ME ": LOD 0 (--max-lods 1), quantized (--quantize): positions 3 x 16-bit over each object's box\n"
              "  (a scale per axis), normals octahedral 2 x 8-bit, uvs 2 x 16-bit over the object's uv range\n");
    printf("anchor: %s, then lz4 -9 of its geometry: the bytes of the views its meshes' POSITION, NORMAL,\n"
           "  TEXCOORD_0 and indices read, as stored (no textures, animations, skins or morph targets; no JSON);\n"
           "  gltfpack's defaults: positions 14-bit integers over one cube for the scene (a uniform scale, so\n"
           "  4x coarser than sluice's on the longest axis and more on the others), uvs 12-bit, normals 8-bit\n"
           "  (octahedral filter, 4 bytes as sluice's). anchor16: %s, positions and uvs at 16 bits\n",
           anchor_labels[A_DEFAULT], anchor_labels[A_BITS16]);
    printf("bytes: each pack's chunk payload (stored bytes of every chunk, shared ones once: cluster headers,\n"
           "  vertices, indices); auto/anchor = auto payload / (anchor + lz4 -9), neither side's tables or JSON\n\n");
    printf("%-20s %9s %9s %10s %10s %10s %11s %10s %10s %10s %10s %11s %8s\n", "model", "triangles", "vertices",
           "stored", "lz4", "meshopt", "meshopt-lz4", "auto", "gltfpack", "+lz4 -9", "anchor16", "auto/anchor",
           "/anchor16");
    char b[CODECS + 4][32];
    for (size_t i = 0; i < n; i++) {
        if (!ms[i].skipped) {
            print_bytes_row(&ms[i]);
        }
    }
    for (size_t i = 0; i < n; i++) {
        print_model_notes(&ms[i], anchors_on);
    }
    for (int c = 0; c < CODECS; c++) {
        if (!codec_built(c)) {
            printf("%s: not in this build's packer\n", codec_name(c));
        }
    }
    if (!anchors_on) {
        printf("anchor: not measured (--gltfpack none)\n");
    }
    printf("\nwhole files, bytes: the pack per codec (header and tables too); gltfpack's .gltf + .bin (its .bin\n"
           "  also holds what sluice does not pack: the 'other' column)\n");
    printf("%-20s %10s %10s %10s %11s %10s %10s %10s\n", "model", "stored", "lz4", "meshopt", "meshopt-lz4", "auto",
           "gltfpack", "other");
    for (size_t i = 0; i < n; i++) {
        const model *m = &ms[i];
        if (m->skipped) {
            continue;
        }
        printf("%-20s", m->name);
        for (int c = 0; c < CODECS; c++) {
            printf(" %*s", c == C_MESHOPT_LZ4 ? 11 : 10, num(m->codec[c].ok, m->codec[c].file, b[c], sizeof b[c]));
        }
        const anchor *a = &m->anchors[A_DEFAULT];
        printf(" %10s %10s\n", num(a->ok, a->file, b[CODECS], sizeof b[0]),
               num(a->ok, a->other, b[CODECS + 1], sizeof b[0]));
    }
    printf("\ndecode, one core: slc_pack_load_chunk of every chunk from the mapped pack (XXH3 of the stored bytes,\n"
           "  decode into a page of a 64-page ring), decoded bytes / thread CPU time, median of %d; memcpy: the\n"
           "  same decoded bytes copied chunk by chunk into the same pages, in the same run; = stored: every\n"
           "  chunk decodes to the stored pack's bytes\n",
           reps);
    printf("%-20s %-12s %7s %12s %9s %10s  %s\n", "model", "codec", "chunks", "decoded", "GB/s", "vs memcpy",
           "= stored");
    for (size_t i = 0; i < n; i++) {
        const model *m = &ms[i];
        if (m->skipped) {
            continue;
        }
        for (int c = 0; c < CODECS; c++) {
            const codec_result *r = &m->codec[c];
            if (r->ok) {
                printf("%-20s %-12s %7u %12llu %9.2f %9.2fx  %s\n", m->name, codec_name(c), r->chunks,
                       (unsigned long long)r->decoded, r->gbps, m->memcpy_gbps > 0 ? r->gbps / m->memcpy_gbps : 0.0,
                       r->same ? "yes" : "no");
            }
        }
        printf("%-20s %-12s %7s %12s %9.2f %9.2fx\n", m->name, "memcpy", "", "", m->memcpy_gbps, 1.0);
        const anchor *g = &m->anchors[A_DEFAULT];
        if (g->ok && g->decode_gbps > 0) {
            printf("%-20s %-12s %7s %12llu %9.2f %9.2fx  (meshoptimizer's decoders over gltfpack -cc's views)\n",
                   m->name, "gltfpack", "", (unsigned long long)g->decoded, g->decode_gbps,
                   m->memcpy_gbps > 0 ? g->decode_gbps / m->memcpy_gbps : 0.0);
        } else if (g->ok) {
            printf("%-20s gltfpack: no decode: %s\n", m->name, g->decode_why);
        }
        const codec_result *a = &m->codec[C_AUTO];
        if (a->ok) {
            printf("%-20s auto's chunks: %u stored, %u lz4, %u meshopt, %u meshopt-lz4\n", m->name,
                   a->by_codec[SLC_PACK_CODEC_STORED], a->by_codec[SLC_PACK_CODEC_LZ4],
                   a->by_codec[SLC_PACK_CODEC_MESHOPT], a->by_codec[SLC_PACK_CODEC_MESHOPT_LZ4]);
        }
    }
}

static void json_u64_or_null(const char *key, int ok, uint64_t v, const char *sep)
{
    if (ok) {
        printf("\"%s\": %llu%s", key, (unsigned long long)v, sep);
    } else {
        printf("\"%s\": null%s", key, sep);
    }
}

static void print_json(const model *ms, size_t n, int reps, int anchors_on)
{
    printf("{\"lod\": 0, \"quantized\": true, \"repeats\": %d, \"decode\": \"slc_pack_load_chunk, mapped, one core\",\n"
           " \"ratio\": \"auto payload bytes / gltfpack geometry bytes after lz4 -9\", \"models\": [\n",
           reps);
    for (size_t i = 0; i < n; i++) {
        const model *m = &ms[i];
        printf("  {\"name\": ");
        esc_json(stdout, m->name);
        printf(", \"input\": ");
        esc_json(stdout, m->input);
        if (m->skipped) {
            printf(", \"skipped\": ");
            esc_json(stdout, m->why);
            printf("}%s\n", i + 1 < n ? "," : "");
            continue;
        }
        printf(", \"skipped\": null, \"triangles\": %llu, \"vertices\": %llu, \"memcpy_gbps\": %.3f, \"codecs\": [\n",
               (unsigned long long)m->triangles, (unsigned long long)m->vertices, m->memcpy_gbps);
        for (int c = 0; c < CODECS; c++) {
            const codec_result *r = &m->codec[c];
            printf("    {\"codec\": \"%s\", ", codec_name(c));
            if (r->ok) {
                printf("\"payload_bytes\": %llu, \"file_bytes\": %llu, \"chunks\": %u, \"chunks_by_codec\": "
                       "{\"stored\": %u, \"lz4\": %u, \"meshopt\": %u, \"meshopt-lz4\": %u}, \"decoded_bytes\": %llu, "
                       "\"decode_gbps\": %.3f, \"vs_memcpy\": %.3f, \"decodes_as_stored\": %s, \"error\": null}",
                       (unsigned long long)r->payload, (unsigned long long)r->file, r->chunks,
                       r->by_codec[SLC_PACK_CODEC_STORED], r->by_codec[SLC_PACK_CODEC_LZ4],
                       r->by_codec[SLC_PACK_CODEC_MESHOPT], r->by_codec[SLC_PACK_CODEC_MESHOPT_LZ4],
                       (unsigned long long)r->decoded, r->gbps, m->memcpy_gbps > 0 ? r->gbps / m->memcpy_gbps : 0.0,
                       r->same ? "true" : "false");
            } else {
                printf("\"error\": ");
                esc_json(stdout, r->why);
                printf("}");
            }
            printf("%s\n", c + 1 < CODECS ? "," : "");
        }
        printf("   ], \"anchors\": [\n");
        for (int w = 0; w < ANCHORS; w++) {
            const anchor *a = &m->anchors[w];
            printf("    {\"command\": ");
            esc_json(stdout, anchor_labels[w]);
            printf(", ");
            json_u64_or_null("geometry_bytes", a->ok, a->geometry, ", ");
            json_u64_or_null("lz4_bytes", a->ok, a->lz4, ", ");
            json_u64_or_null("file_bytes", a->ok, a->file, ", ");
            json_u64_or_null("other_bytes", a->ok, a->other, ", ");
            json_u64_or_null("triangles", a->ok, a->triangles, ", ");
            if (a->ok && a->decode_gbps > 0) {
                printf("\"decoded_bytes\": %llu, \"decode_gbps\": %.3f, ", (unsigned long long)a->decoded,
                       a->decode_gbps);
            } else {
                printf("\"decoded_bytes\": null, \"decode_gbps\": null, ");
            }
            printf("\"includes_morph_targets\": %s, ", a->ok && a->morph_shared ? "true" : "false");
            if (a->ok) {
                printf("\"auto_vs_anchor\": %.4f, \"error\": null}", ratio_to_anchor(m, w));
            } else {
                printf("\"auto_vs_anchor\": null, \"error\": ");
                esc_json(stdout, anchors_on ? a->why : "not measured (--gltfpack none)");
                printf("}");
            }
            printf("%s\n", w + 1 < ANCHORS ? "," : "");
        }
        printf("   ]}%s\n", i + 1 < n ? "," : "");
    }
    printf(" ]}\n");
}

static void codec_help(const cli_args *spec)
{
    fputs(USAGE "\n"
                "Per model: pack bytes at LOD 0 (quantized, --max-lods 1) per chunk codec (stored, lz4, meshopt,\n"
                "meshopt-lz4, auto) against gltfpack -cc followed by lz4 -9 over gltfpack's geometry bytes, and\n"
                "each codec's decode speed through slc_pack_load_chunk on one core against memcpy of the same\n"
                "bytes. A model the packer refuses is skipped and named. gltfpack and lz4 run as child\n"
                "processes; without them the anchor's columns say why.\n\n",
          stdout);
    cli_args_print_options(stdout, spec);
    fputs("  -h, --help         this text\n", stdout);
}

int bench_codec(int argc, char **argv)
{
    const char *inputs[MODELS_MAX];
    size_t n = 0;
    int quick = 0, json = 0;
    uint64_t reps = 0;
    const char *gltfpack = "gltfpack", *lz4 = "lz4";
    const cli_opt table[] = {
        {.name = "--reps",
         .kind = CLI_OPT_U64,
         .dest = &reps,
         .min = 1,
         .max = 1000,
         .arg = "N",
         .bad = "--reps needs a count in {min}..{max}",
         .help = "timed samples per codec (9; --quick: 3)"},
        {.name = "--quick",
         .kind = CLI_OPT_FLAG,
         .dest = &quick,
         .help = "one pass a sample (a smoke run, not a measurement)"},
        {.name = "--json", .kind = CLI_OPT_FLAG, .dest = &json, .help = "the figures as JSON on stdout"},
        {.name = "--gltfpack",
         .kind = CLI_OPT_STRING,
         .dest = &gltfpack,
         .arg = "PROG",
         .bad = "--gltfpack needs a program",
         .help = "the anchor's gltfpack (gltfpack; none: no anchor)"},
        {.name = "--lz4",
         .kind = CLI_OPT_STRING,
         .dest = &lz4,
         .arg = "PROG",
         .bad = "--lz4 needs a program",
         .help = "the lz4 tool (lz4)"},
    };
    const cli_args spec = {.me = ME,
                           .opts = table,
                           .count = sizeof table / sizeof table[0],
                           .operands = inputs,
                           .max_operands = MODELS_MAX,
                           .operand_count = &n,
                           .unknown = "unknown option or operand '{value}'",
                           .usage = USAGE,
                           .usage_after = CLI_ARGS_ALL,
                           .help = 1,
                           .help_column = 19};
    int rc = cli_args_parse(&spec, argc, argv);
    if (rc == CLI_ARGS_HELP) {
        codec_help(&spec);
        return CLI_OK;
    }
    if (rc != CLI_OK) {
        return rc;
    }
    if (n == 0) {
        return cli_usage_error(ME, USAGE, "no model: give one or more glTF or GLB files");
    }
    int nreps = reps > 0 ? (int)reps : quick ? 3 : 9;
    uint64_t target = quick ? 0 : (uint64_t)16 << 20;
    int anchors_on = strcmp(gltfpack, "none") != 0;
    const char *tmp = getenv("TMPDIR");
    snprintf(tmp_dir, sizeof tmp_dir, "%s/sluice-bench-codec-XXXXXX", tmp != NULL && tmp[0] ? tmp : "/tmp");
    if (mkdtemp(tmp_dir) == NULL) {
        fprintf(stderr, ME ": %s: cannot create a temporary folder: %s\n", tmp_dir, strerror(errno));
        tmp_dir[0] = '\0';
        return CLI_IO;
    }
    tmp_init();
    if (atexit(remove_tmp) != 0) {
        remove_tmp();
        fprintf(stderr, ME ": atexit refused the temporary folder's removal\n");
        return CLI_FAILED;
    }
    guard_signals();
    model *ms = calloc(n, sizeof *ms);
    cli_need(ME, ms != NULL, "out of memory");
    size_t measured = 0;
    for (size_t i = 0; i < n && rc == CLI_OK; i++) {
        model *m = &ms[i];
        m->input = inputs[i];
        model_name(inputs[i], m->name, sizeof m->name);
        rc = build_packs(m);
        if (rc != CLI_OK || m->skipped) {
            continue;
        }
        for (int w = 0; w < ANCHORS && anchors_on; w++) {
            m->anchors[w].reps = w == A_DEFAULT ? nreps : 0; /* the decode of gltfpack's defaults only */
            m->anchors[w].target = target;
            measure_anchor(m, w, gltfpack, lz4, &m->anchors[w]);
        }
        measure_decode(m, nreps, target);
        for (int c = 0; c < CODECS; c++) { /* the next model's packs take the same names */
            if (m->codec[c].path[0] != '\0') {
                (void)unlink(m->codec[c].path);
            }
        }
        measured++;
    }
    if (rc == CLI_OK) {
        if (json) {
            print_json(ms, n, nreps, anchors_on);
        } else {
            print_text(ms, n, nreps, anchors_on);
        }
        if (measured == 0) {
            fprintf(stderr, ME ": nothing measured: the packer refused every model\n");
            rc = CLI_FAILED;
        }
    }
    free(ms);
    remove_tmp();
    return rc;
}
