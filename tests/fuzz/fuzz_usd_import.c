/* SPDX-License-Identifier: MIT */
/* The fuzz targets' import step: fuzz_usd_import.h. */
#define _POSIX_C_SOURCE 200809L
#include "fuzz_usd_import.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "usd_stage.h"

typedef struct counts {
    uint32_t objects, materials, textures;
} counts;

static void on_warn(void *user, const char *message)
{
    (void)user;
    if (message == NULL || message[0] == '\0') {
        abort(); /* a warning says what it is about */
    }
}

static int on_mesh(void *user, const pk_mesh *m, uint32_t *object, pk_diag *d)
{
    (void)m;
    (void)d;
    counts *c = user;
    *object = c->objects++;
    return 0;
}

static int on_instance(void *user, const pk_instance *inst, pk_diag *d)
{
    (void)d;
    const counts *c = user;
    if (inst->mesh >= c->objects) {
        abort(); /* a placement names a mesh the sink was given */
    }
    return 0;
}

static int on_texture(void *user, const pk_image *img, pk_mip_kind kind, pk_wrap wrap_s, pk_wrap wrap_t,
                      const char *name, uint32_t *id, pk_diag *d)
{
    (void)img;
    (void)kind;
    (void)wrap_s;
    (void)wrap_t;
    (void)name;
    (void)d;
    counts *c = user;
    *id = c->textures++;
    return 0;
}

static int on_material(void *user, const pk_material *m, uint32_t *id, pk_diag *d)
{
    (void)m;
    (void)d;
    counts *c = user;
    *id = c->materials++;
    return 0;
}

static void check_message(const pk_diag *d)
{
    if (d->message[0] == '\0') {
        abort(); /* a refusal says why */
    }
}

/* Returns 0 when the stage opened and imported, else -1 (with a message). */
static int import_once(const char *path, const char *root, int skip_unsupported)
{
    usd_stage_options o = {skip_unsupported, 0, on_warn, NULL, root, 0};
    usd_stage *s = NULL;
    pk_diag d;
    d.message[0] = '\0';
    if (usd_stage_open(path, &o, &s, &d) != 0) {
        check_message(&d);
        return -1;
    }
    for (uint32_t i = 0; usd_stage_texture_file(s, i) != NULL; i++) {
    }
    counts c = {0, 0, 0};
    usd_stage_sink sink = {on_mesh, on_instance, &c, on_texture, on_material};
    d.message[0] = '\0';
    int rc = usd_stage_import(s, &sink, &d);
    if (rc != 0) {
        check_message(&d);
    }
    usd_stage_close(s);
    return rc;
}

void fuzz_usd_import(const char *name, const uint8_t *data, size_t size)
{
    const char *tmp = getenv("TMPDIR");
    char dir[512], path[600];
    if (snprintf(dir, sizeof dir, "%s/sluice-fuzz-XXXXXX", tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp") >=
            (int)sizeof dir ||
        mkdtemp(dir) == NULL) {
        return;
    }
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (f != NULL) {
        int ok = fwrite(data, 1, size, f) == size;
        ok = fclose(f) == 0 && ok;
        if (ok && import_once(path, dir, 0) != 0) {
            (void)import_once(path, dir, 1);
        }
        (void)unlink(path);
    }
    (void)rmdir(dir);
}
