/* SPDX-License-Identifier: MIT */
/* sluice pack: the USD importer behind the importer interface
 * (importer.h): usd_stage.h's stage, which pushes meshes and placements
 * through its own sink. */
#define _POSIX_C_SOURCE 200809L

#include <stdlib.h>
#include <string.h>

#include "importer.h"
#include "pack_writer.h"
#include "usd_layer.h"
#include "usd_stage.h"

typedef struct usd_input {
    usd_stage *stage;
    const pk_import_sink *sink; /* during run */
    void (*warn)(void *user, const char *message);
    void *user;
    int quiet_open; /* a reopen: composition's warnings were given at the first open */
    int importing;
    char *package; /* file's answer for a layer inside a usdz: the package */
    size_t package_cap;
} usd_input;

/* Text (#usda), crate (PXR-USDC) or a zip, by the file's first bytes. */
static int usd_accepts(const char *path, const unsigned char *head, size_t n)
{
    (void)path;
    return usd_detect_format(head, n) != USD_FORMAT_UNKNOWN;
}

/* Composition's warnings once per input; the import's always. */
static void usd_input_warn(void *user, const char *message)
{
    const usd_input *in = user;
    if (in->warn != NULL && (in->importing || !in->quiet_open)) {
        in->warn(in->user, message);
    }
}

static void usd_input_close(void *state)
{
    usd_input *in = state;
    if (in != NULL) {
        usd_stage_close(in->stage);
        free(in->package);
        free(in);
    }
}

static int usd_input_open(const char *path, const pk_import_options *opt, void **state, pk_diag *d)
{
    *state = NULL;
    usd_input *in = calloc(1, sizeof *in);
    if (in == NULL) {
        return pk_fail(d, "%s: out of memory", path);
    }
    in->warn = opt->warn;
    in->user = opt->user;
    in->quiet_open = opt->reopen;
    usd_stage_options uo = {opt->skip_unsupported, opt->allow_outside_paths, usd_input_warn, in,
                            opt->asset_root,       opt->max_placements};
    if (usd_stage_open(path, &uo, &in->stage, d) != 0) {
        usd_input_close(in);
        return -1;
    }
    in->importing = 1;
    *state = in;
    return 0;
}

static void usd_input_scan(const void *state, pk_import_scan *out)
{
    const usd_input *in = state;
    /* Left unknown for the limits planner: the import says what it places. */
    out->importable = usd_stage_mesh_count(in->stage);
}

/* The layers, the root first, then the texture files of the bound
 * materials; a layer or texture inside a usdz ("pkg.usdz[entry]") is read
 * from its package, which is what is named. */
static const char *usd_input_file(void *state, uint32_t i, char *label, size_t cap)
{
    usd_input *in = state;
    const uint32_t layers = usd_stage_layer_count(in->stage);
    const char *file = NULL;
    if (i < layers) {
        snprintf(label, cap, "layer");
        file = usd_stage_layer_file(in->stage, i);
    } else {
        snprintf(label, cap, "texture");
        file = usd_stage_texture_file(in->stage, i - layers);
        if (file == NULL) {
            return NULL;
        }
    }
    size_t n = strlen(file);
    const char *open = strchr(file, '[');
    if (n == 0 || file[n - 1] != ']' || open == NULL) {
        return file;
    }
    size_t len = (size_t)(open - file);
    if (len + 1 > in->package_cap) {
        char *p = realloc(in->package, len + 1);
        if (p == NULL) {
            return file; /* names the entry: a check of it finds no file */
        }
        in->package = p;
        in->package_cap = len + 1;
    }
    memcpy(in->package, file, len);
    in->package[len] = '\0';
    return in->package;
}

static int usd_sink_mesh(void *user, const pk_mesh *m, uint32_t *object, pk_diag *d)
{
    const pk_import_sink *sink = user;
    return sink->mesh(sink->user, (pk_mesh *)m, 0, object, d); /* owned 0: read only */
}

static int usd_sink_instance(void *user, const pk_instance *inst, pk_diag *d)
{
    const pk_import_sink *sink = user;
    return sink->instance(sink->user, inst, d);
}

static int usd_sink_texture(void *user, const pk_image *img, pk_mip_kind kind, pk_wrap wrap_s, pk_wrap wrap_t,
                            const char *name, uint32_t *id, pk_diag *d)
{
    const pk_import_sink *sink = user;
    return sink->texture(sink->user, img, kind, wrap_s, wrap_t, name, id, d);
}

static int usd_sink_material(void *user, const pk_material *m, uint32_t *id, pk_diag *d)
{
    const pk_import_sink *sink = user;
    return sink->material(sink->user, m, id, d);
}

static int usd_input_run(void *state, const pk_import_sink *sink, pk_diag *d)
{
    usd_input *in = state;
    const usd_stage_sink s = {usd_sink_mesh, usd_sink_instance, (void *)sink,
                              sink->texture != NULL ? usd_sink_texture : NULL,
                              sink->material != NULL ? usd_sink_material : NULL};
    return usd_stage_import(in->stage, &s, d);
}

/* The stage's figures: its layers and prims, then its phases. */
static void usd_input_report(const void *state, const char *path, FILE *f)
{
    const usd_input *in = state;
    usd_stage_stats st;
    usd_stage_get_stats(in->stage, &st);
    char l[32], m0[32], m1[32], m2[32];
    fprintf(f, "%s: %u layers (%s), %u prims, %u meshes, %u placements, %u prototypes reused %u times\n", path,
            st.layers, pk_human_bytes((double)st.layer_bytes, l, sizeof l), st.prims, st.meshes, st.instances,
            st.prototypes, st.prototype_hits);
    fprintf(f, "  usd phases   open %.4f s (peak %s), compose %.4f s (peak %s), import %.4f s (peak %s)\n",
            st.open_seconds, pk_human_bytes((double)st.open_peak_rss, m0, sizeof m0), st.compose_seconds,
            pk_human_bytes((double)st.compose_peak_rss, m1, sizeof m1), st.import_seconds,
            pk_human_bytes((double)st.import_peak_rss, m2, sizeof m2));
}

const pk_importer pk_importer_usd = {
    .name = "usd",
    .accepts = usd_accepts,
    .open = usd_input_open,
    .scan = usd_input_scan,
    .file = usd_input_file,
    .run = usd_input_run,
    .report = usd_input_report,
    .close = usd_input_close,
};
