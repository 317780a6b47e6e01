/* SPDX-License-Identifier: MIT */
/* sluice pack: the glTF importer behind the importer interface
 * (importer.h): gltf.h's scene, pulled mesh by mesh into the sink. */
#define _POSIX_C_SOURCE 200809L

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gltf.h"
#include "importer.h"
#include "pack_writer.h"

typedef struct gltf_input {
    gltf_scene *scene;
    char *path;
    void (*warn)(void *user, const char *message);
    void *user;
} gltf_input;

/* Anything: glTF is the last file row, and its open says why a file is not
 * one. */
static int gltf_accepts(const char *path, const unsigned char *head, size_t n)
{
    (void)path;
    (void)head;
    (void)n;
    return 1;
}

static void gltf_input_close(void *state)
{
    gltf_input *in = state;
    if (in != NULL) {
        gltf_close(in->scene);
        free(in->path);
        free(in);
    }
}

static int gltf_input_open(const char *path, const pk_import_options *opt, void **state, pk_diag *d)
{
    *state = NULL;
    gltf_input *in = calloc(1, sizeof *in);
    if (in == NULL || (in->path = strdup(path)) == NULL) {
        free(in);
        return pk_fail(d, "%s: out of memory", path);
    }
    gltf_options go;
    memset(&go, 0, sizeof go);
    go.skip_unsupported = opt->skip_unsupported;
    go.allow_outside_paths = opt->allow_outside_paths;
    go.asset_root = opt->asset_root;
    go.warn = opt->warn;
    go.user = opt->user;
    in->warn = opt->warn;
    in->user = opt->user;
    if (gltf_open(path, &go, &in->scene, d) != 0) {
        gltf_input_close(in);
        return -1;
    }
    *state = in;
    return 0;
}

/* Bytes of the input's files (itself and the buffer files it reads); a file
 * that cannot be stat'ed counts 0. */
static uint64_t file_bytes(const gltf_input *in)
{
    struct stat st;
    uint64_t n = stat(in->path, &st) == 0 ? (uint64_t)st.st_size : 0;
    for (uint32_t i = 0; i < gltf_buffer_count(in->scene); i++) {
        const char *file = gltf_get_buffer_file(in->scene, i);
        n += file != NULL && stat(file, &st) == 0 ? (uint64_t)st.st_size : 0;
    }
    return n;
}

static void gltf_input_scan(const void *state, pk_import_scan *out)
{
    const gltf_input *in = state;
    uint32_t n = gltf_instance_count(in->scene);
    out->meshes = gltf_mesh_count(in->scene);
    out->instances = n;
    for (uint32_t i = 0; i < n; i++) {
        pk_instance inst;
        gltf_get_instance(in->scene, i, &inst);
        size_t len = strnlen(inst.name, sizeof inst.name);
        out->name_bytes += len > 0 ? len + 1 : 0; /* as the builder stores it: unnamed takes none */
    }
    /* The mesh names are only known once each mesh is loaded, so they are
     * not counted: the check then never refuses a scene that fits. */
    out->importable = gltf_count_importable(in->scene);
    out->progress_bytes = file_bytes(in);
}

/* The buffer files, skipping buffers read from no file, then the image
 * files. */
static const char *gltf_input_file(void *state, uint32_t i, char *label, size_t cap)
{
    const gltf_input *in = state;
    uint32_t seen = 0;
    for (uint32_t k = 0; k < gltf_buffer_count(in->scene); k++) {
        const char *file = gltf_get_buffer_file(in->scene, k);
        if (file != NULL && seen++ == i) {
            snprintf(label, cap, "buffer %u", k);
            return file;
        }
    }
    if (i - seen < gltf_image_file_count(in->scene)) {
        uint32_t image = 0;
        const char *file = gltf_get_image_file(in->scene, i - seen, &image);
        snprintf(label, cap, "image %u", image);
        return file;
    }
    return NULL;
}

/* Every mesh (through objects[mesh] = the sink's index, UINT32_MAX for a
 * mesh left empty), then every instance of a mesh that became an object. */
static int gltf_input_run(void *state, const pk_import_sink *sink, pk_diag *d)
{
    gltf_input *in = state;
    uint32_t meshes = gltf_mesh_count(in->scene);
    uint32_t *objects = malloc(((size_t)meshes + 1) * sizeof *objects);
    if (objects == NULL) {
        return pk_fail(d, "%s: out of memory", in->path);
    }
    int rc = 0;
    char what[64];
    uint64_t bytes = file_bytes(in); /* the input's share of the bar, spread over its meshes */
    for (uint32_t i = 0; i < meshes && rc == 0; i++) {
        snprintf(what, sizeof what, "mesh %u of %u", i + 1, meshes);
        if (sink->progress != NULL) {
            sink->progress(sink->user, (uint64_t)((double)bytes * i / meshes), what);
        }
        pk_mesh m;
        memset(&m, 0, sizeof m);
        objects[i] = UINT32_MAX;
        if (gltf_load_mesh(in->scene, i, &m, d) != 0) {
            rc = -1;
        } else if (m.index_count == 0) {
            if (in->warn != NULL) { /* every primitive was skipped: the importer said why */
                char message[sizeof d->message];
                snprintf(message, sizeof message, "%s: mesh %u has no triangles left; its instances are left out",
                         in->path, i);
                in->warn(in->user, message);
            }
        } else if (sink->mesh(sink->user, &m, 1, &objects[i], d) != 0) {
            rc = pk_import_named(d, in->path);
        }
        pk_mesh_free(&m);
    }
    uint32_t count = rc == 0 ? gltf_instance_count(in->scene) : 0;
    for (uint32_t i = 0; i < count && rc == 0; i++) {
        pk_instance inst;
        memset(&inst, 0, sizeof inst);
        gltf_get_instance(in->scene, i, &inst);
        if (inst.mesh >= meshes || objects[inst.mesh] == UINT32_MAX) {
            continue;
        }
        inst.mesh = objects[inst.mesh];
        if (sink->instance(sink->user, &inst, d) != 0) {
            rc = pk_import_named(d, in->path);
        }
    }
    free(objects);
    return rc;
}

static void gltf_input_report(const void *state, const char *path, FILE *f)
{
    (void)state;
    (void)path;
    (void)f;
}

const pk_importer pk_importer_gltf = {
    .name = "gltf",
    .accepts = gltf_accepts,
    .open = gltf_input_open,
    .scan = gltf_input_scan,
    .file = gltf_input_file,
    .run = gltf_input_run,
    .report = gltf_input_report,
    .close = gltf_input_close,
};
