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

/* The most objects one glTF mesh becomes: one per material of its
 * primitives; a mesh with more materials is one object (its first
 * primitive's material). */
#define GLTF_MAX_PARTS 16u

typedef struct gltf_input {
    gltf_scene *scene;
    char *path;
    int skip_unsupported;
    uint32_t images_decoded; /* for the report: images decoded by run, their texels and seconds */
    uint64_t texels_decoded;
    double decode_seconds;
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
    in->skip_unsupported = opt->skip_unsupported;
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

static uint32_t mesh_parts(const gltf_input *in, uint32_t i, int with_materials, uint32_t parts[GLTF_MAX_PARTS]);

/* Objects and placements as the run makes them with materials: one per
 * material of a mesh's primitives. */
static void gltf_input_scan(const void *state, pk_import_scan *out)
{
    const gltf_input *in = state;
    uint32_t n = gltf_instance_count(in->scene), parts[GLTF_MAX_PARTS];
    for (uint32_t i = 0; i < gltf_mesh_count(in->scene); i++) {
        out->meshes += mesh_parts(in, i, 1, parts);
    }
    for (uint32_t i = 0; i < n; i++) {
        pk_instance inst;
        gltf_get_instance(in->scene, i, &inst);
        uint32_t k = inst.mesh < gltf_mesh_count(in->scene) ? mesh_parts(in, inst.mesh, 1, parts) : 1u;
        size_t len = strnlen(inst.name, sizeof inst.name);
        out->instances += k;
        out->name_bytes += (len > 0 ? len + 1 : 0) * k; /* as the builder stores it: unnamed takes none */
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

/* A texture the sink was given: an image as one slot kind and sampler
 * read it. */
typedef struct given_texture {
    uint32_t image, kind, wrap, id;
} given_texture;

/* The sink's texture for slot t of a material (decoding its image the first
 * time this image, kind and wrap are asked for). */
static int texture_of(gltf_input *in, const pk_import_sink *sink, const pk_texture_ref *t, pk_mip_kind kind,
                      given_texture **given, uint32_t *given_count, uint32_t *id, pk_diag *d)
{
    const uint32_t wrap = (uint32_t)t->wrap_s | (uint32_t)t->wrap_t << 2;
    for (uint32_t k = 0; k < *given_count; k++) {
        const given_texture *g = &(*given)[k];
        if (g->image == t->image && g->kind == (uint32_t)kind && g->wrap == wrap) {
            *id = g->id;
            return 0;
        }
    }
    given_texture *grown = realloc(*given, ((size_t)*given_count + 1) * sizeof *grown);
    if (grown == NULL) {
        return pk_fail(d, "%s: out of memory", in->path);
    }
    *given = grown;
    pk_image img;
    const double t0 = pk_seconds_now();
    int loaded = gltf_load_image(in->scene, t->image, &img, d);
    const double seconds = pk_seconds_now() - t0;
    in->decode_seconds += seconds;
    if (loaded == 0) {
        img.decode_seconds = seconds;
        in->images_decoded++;
        in->texels_decoded += (uint64_t)img.width * img.height;
    }
    if (loaded != 0) {
        if (!in->skip_unsupported) {
            return -1;
        }
        if (in->warn != NULL) { /* the slots that read it are left empty */
            char message[sizeof d->message + 64];
            snprintf(message, sizeof message, "%s; the materials that use it are packed without it", d->message);
            in->warn(in->user, message);
        }
        grown[(*given_count)++] = (given_texture){t->image, (uint32_t)kind, wrap, PK_NONE};
        *id = PK_NONE;
        return 0;
    }
    char name[96];
    const char *image_name = gltf_image_name(in->scene, t->image);
    if (image_name[0] != '\0') {
        snprintf(name, sizeof name, "%s", image_name);
    } else {
        snprintf(name, sizeof name, "images[%u]", t->image);
    }
    int rc = sink->texture(sink->user, &img, kind, t->wrap_s, t->wrap_t, name, id, d);
    pk_image_free(&img);
    if (rc != 0) {
        return pk_import_named(d, in->path);
    }
    grown[(*given_count)++] = (given_texture){t->image, (uint32_t)kind, wrap, *id};
    return 0;
}

/* Every material into the sink (with its textures when the sink takes
 * them), materials[i] the sink's id of the file's material i. */
static int give_materials(gltf_input *in, const pk_import_sink *sink, uint32_t *materials, pk_diag *d)
{
    given_texture *given = NULL;
    uint32_t given_count = 0;
    int rc = 0;
    for (uint32_t i = 0; i < gltf_material_count(in->scene) && rc == 0; i++) {
        pk_material m = *gltf_get_material(in->scene, i);
        for (int t = 0; t < PK_SLOT_COUNT && rc == 0; t++) {
            pk_texture_ref *ref = &m.slot[t];
            if (ref->image == PK_NONE) {
                continue;
            }
            uint32_t id = PK_NONE;
            if (sink->texture != NULL) {
                rc = texture_of(in, sink, ref, pk_material_slot_kind((pk_material_slot)t), &given, &given_count, &id,
                                d);
            }
            ref->image = id;
        }
        if (rc == 0 && sink->material(sink->user, &m, &materials[i], d) != 0) {
            rc = pk_import_named(d, in->path);
        }
    }
    free(given);
    return rc;
}

/* The objects mesh i becomes: 1 without materials, else one per material
 * its primitives use (parts: those materials in the order they first
 * appear), at most GLTF_MAX_PARTS. */
static uint32_t mesh_parts(const gltf_input *in, uint32_t i, int with_materials, uint32_t parts[GLTF_MAX_PARTS])
{
    uint32_t n = with_materials ? gltf_mesh_materials(in->scene, i, parts, GLTF_MAX_PARTS) : 1u;
    return n > GLTF_MAX_PARTS || n == 0 ? 1u : n;
}

/* The objects of mesh i (objects[k], UINT32_MAX for a part left empty).
 * Returns 0, or -1. */
static int give_mesh(gltf_input *in, const pk_import_sink *sink, uint32_t i, const uint32_t *materials,
                     uint32_t *objects, pk_diag *d)
{
    uint32_t parts[GLTF_MAX_PARTS];
    const uint32_t n = mesh_parts(in, i, materials != NULL, parts);
    for (uint32_t k = 0; k < n; k++) {
        pk_mesh m;
        memset(&m, 0, sizeof m);
        objects[k] = UINT32_MAX;
        int rc = n > 1 ? gltf_load_mesh_part(in->scene, i, parts[k], &m, d) : gltf_load_mesh(in->scene, i, &m, d);
        if (rc != 0) {
            return -1;
        }
        if (materials != NULL) {
            uint32_t mat = n > 1                                    ? parts[k]
                           : gltf_primitive_count(in->scene, i) > 0 ? gltf_primitive_material(in->scene, i, 0)
                                                                    : PK_NONE;
            m.material = mat == PK_NONE ? 0u : materials[mat] + 1u;
        }
        if (m.index_count == 0) {
            if (in->warn != NULL) { /* every primitive was skipped: the importer said why */
                char message[sizeof d->message];
                snprintf(message, sizeof message, "%s: mesh %u has no triangles left; its instances are left out",
                         in->path, i);
                in->warn(in->user, message);
            }
        } else if (sink->mesh(sink->user, &m, 1, &objects[k], d) != 0) {
            pk_mesh_free(&m);
            return pk_import_named(d, in->path);
        }
        pk_mesh_free(&m);
    }
    return 0;
}

/* Every material (when the sink takes them), every mesh (the object
 * indices of mesh i's parts at objects[first[i] .. first[i + 1]),
 * UINT32_MAX for one left empty), then every instance of a mesh that
 * became objects: one placement per part. */
static int gltf_input_run(void *state, const pk_import_sink *sink, pk_diag *d)
{
    gltf_input *in = state;
    uint32_t meshes = gltf_mesh_count(in->scene), mats = gltf_material_count(in->scene);
    uint32_t *first = malloc(((size_t)meshes + 1) * sizeof *first);
    uint32_t *materials = sink->material != NULL ? malloc(((size_t)mats + 1) * sizeof *materials) : NULL;
    uint32_t *objects = NULL;
    if (first != NULL) {
        uint64_t total = 0;
        uint32_t parts[GLTF_MAX_PARTS];
        for (uint32_t i = 0; i < meshes; i++) {
            first[i] = (uint32_t)total;
            total += mesh_parts(in, i, sink->material != NULL, parts);
        }
        first[meshes] = (uint32_t)total; /* at most 16 x 2^32 / 8 meshes of a file that fits memory */
        objects = malloc(((size_t)total + 1) * sizeof *objects);
    }
    if (first == NULL || objects == NULL || (sink->material != NULL && materials == NULL)) {
        free(first);
        free(objects);
        free(materials);
        return pk_fail(d, "%s: out of memory", in->path);
    }
    int rc = materials != NULL ? give_materials(in, sink, materials, d) : 0;
    char what[64];
    uint64_t bytes = file_bytes(in); /* the input's share of the bar, spread over its meshes */
    for (uint32_t i = 0; i < meshes && rc == 0; i++) {
        snprintf(what, sizeof what, "mesh %u of %u", i + 1, meshes);
        if (sink->progress != NULL) {
            sink->progress(sink->user, (uint64_t)((double)bytes * i / meshes), what);
        }
        rc = give_mesh(in, sink, i, materials, objects + first[i], d);
    }
    uint32_t count = rc == 0 ? gltf_instance_count(in->scene) : 0;
    for (uint32_t i = 0; i < count && rc == 0; i++) {
        pk_instance inst;
        memset(&inst, 0, sizeof inst);
        gltf_get_instance(in->scene, i, &inst);
        if (inst.mesh >= meshes) {
            continue;
        }
        for (uint32_t k = first[inst.mesh]; k < first[inst.mesh + 1] && rc == 0; k++) {
            if (objects[k] == UINT32_MAX) {
                continue;
            }
            pk_instance part = inst;
            part.mesh = objects[k];
            if (sink->instance(sink->user, &part, d) != 0) {
                rc = pk_import_named(d, in->path);
            }
        }
    }
    free(first);
    free(objects);
    free(materials);
    return rc;
}

static void gltf_input_report(const void *state, const char *path, FILE *f)
{
    const gltf_input *in = state;
    if (in->images_decoded > 0) {
        fprintf(f, "  images       %u of %s decoded (%.2f Mtexels) in %.2f s\n", in->images_decoded, path,
                (double)in->texels_decoded / 1e6, in->decode_seconds);
    }
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
