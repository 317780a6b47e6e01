/* SPDX-License-Identifier: MIT */
/* sluice pack: the synthetic scenes behind the importer interface
 * (importer.h): synth.h's generator, iterated mesh by mesh into the sink. */
#include <stdlib.h>
#include <string.h>

#include "importer.h"
#include "pack_writer.h"
#include "synth.h"
#include "synth_texture.h"

typedef struct synth_input {
    pk_synth *synth;
    char name[48]; /* "synthetic KIND", naming it in messages */
    uint64_t seed;
    int textures;      /* --textures: each building its colour and normal maps */
    uint32_t building; /* meshes made so far */
} synth_input;

/* Every kind: the generator's open refuses one it does not make. */
static int synth_accepts(const char *kind, const unsigned char *head, size_t n)
{
    (void)kind;
    (void)head;
    (void)n;
    return 1;
}

static void synth_input_close(void *state)
{
    synth_input *in = state;
    if (in != NULL) {
        pk_synth_close(in->synth);
        free(in);
    }
}

static int synth_input_open(const char *kind, const pk_import_options *opt, void **state, pk_diag *d)
{
    *state = NULL;
    synth_input *in = calloc(1, sizeof *in);
    if (in == NULL) {
        return pk_fail(d, "synthetic %s: out of memory", kind);
    }
    snprintf(in->name, sizeof in->name, "synthetic %s", kind);
    in->seed = opt->seed;
    in->textures = opt->textures;
    if (pk_synth_open(kind, opt->size, opt->seed, &in->synth, d) != 0) {
        free(in);
        return -1;
    }
    *state = in;
    return 0;
}

static void synth_input_scan(const void *state, pk_import_scan *out)
{
    const synth_input *in = state;
    out->input_bytes = pk_synth_bytes_target(in->synth);
    out->importable = 1; /* a generator always makes a mesh */
    out->progress_bytes = pk_synth_bytes_target(in->synth);
}

static const char *synth_input_file(void *state, uint32_t i, char *label, size_t cap)
{
    (void)state;
    (void)i;
    (void)label;
    (void)cap;
    return NULL; /* reads no file */
}

/* The building's material: a brick facade (its colour and normal maps when
 * the sink takes textures), named after the building; m names it. */
static int give_material(synth_input *in, const pk_import_sink *sink, pk_mesh *m, pk_diag *d)
{
    pk_material mat;
    pk_material_default(&mat);
    snprintf(mat.name, sizeof mat.name, "facade %u", in->building);
    mat.metallic = 0.0f;
    mat.roughness = 0.85f;
    for (int normal = 0; normal < 2 && sink->texture != NULL; normal++) {
        pk_image img;
        const double t0 = pk_seconds_now();
        if (pk_synth_texture(in->seed, in->building, normal, &img, d) != 0) {
            return -1;
        }
        img.decode_seconds = pk_seconds_now() - t0;
        char name[48];
        snprintf(name, sizeof name, "facade %u %s", in->building, normal ? "normal" : "colour");
        pk_texture_ref *slot = &mat.slot[normal ? PK_SLOT_NORMAL : PK_SLOT_BASE_COLOR];
        int rc = sink->texture(sink->user, &img, normal ? PK_MIP_NORMAL : PK_MIP_COLOR, PK_WRAP_REPEAT, PK_WRAP_REPEAT,
                               name, &slot->image, d);
        pk_image_free(&img);
        if (rc != 0) {
            return -1;
        }
        /* The facades' uvs are in metres: a texture covers 8 windows, 16 m. */
        slot->uv_scale[0] = slot->uv_scale[1] = 1.0f / 16.0f;
    }
    uint32_t id;
    if (sink->material(sink->user, &mat, &id, d) != 0) {
        return -1;
    }
    m->material = id + 1u;
    return 0;
}

static int synth_input_run(void *state, const pk_import_sink *sink, pk_diag *d)
{
    synth_input *in = state;
    char what[96];
    for (;;) {
        pk_mesh m;
        pk_instance inst[PK_SYNTH_MAX_INSTANCES];
        uint32_t n = 0;
        int got = pk_synth_next(in->synth, &m, inst, &n, d);
        if (got <= 0) {
            return got;
        }
        if (in->textures && sink->material != NULL && give_material(in, sink, &m, d) != 0) {
            pk_mesh_free(&m);
            return pk_import_named(d, in->name);
        }
        in->building++;
        uint32_t object;
        if (sink->mesh(sink->user, &m, 1, &object, d) != 0) {
            pk_mesh_free(&m);
            return pk_import_named(d, in->name);
        }
        for (uint32_t i = 0; i < n; i++) {
            inst[i].mesh = object;
            if (sink->instance(sink->user, &inst[i], d) != 0) {
                return pk_import_named(d, in->name);
            }
        }
        if (sink->progress != NULL) {
            char x[32], y[32];
            snprintf(what, sizeof what, "%s of %s", pk_human_bytes((double)pk_synth_bytes_done(in->synth), x, sizeof x),
                     pk_human_bytes((double)pk_synth_bytes_target(in->synth), y, sizeof y));
            sink->progress(sink->user, pk_synth_bytes_done(in->synth), what);
        }
    }
}

static void synth_input_report(const void *state, const char *path, FILE *f)
{
    (void)state;
    (void)path;
    (void)f;
}

const pk_importer pk_importer_synth = {
    .name = "synthetic",
    .generated = 1,
    .accepts = synth_accepts,
    .open = synth_input_open,
    .scan = synth_input_scan,
    .file = synth_input_file,
    .run = synth_input_run,
    .report = synth_input_report,
    .close = synth_input_close,
};
