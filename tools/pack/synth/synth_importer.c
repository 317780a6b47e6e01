/* SPDX-License-Identifier: MIT */
/* sluice pack: the synthetic scenes behind the importer interface
 * (importer.h): synth.h's generator, iterated mesh by mesh into the sink. */
#include <stdlib.h>
#include <string.h>

#include "importer.h"
#include "pack_writer.h"
#include "synth.h"

typedef struct synth_input {
    pk_synth *synth;
    char name[48]; /* "synthetic KIND", naming it in messages */
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
