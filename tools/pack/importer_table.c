/* SPDX-License-Identifier: MIT */
/* sluice pack: the table of importers and how an input picks its row
 * (importer.h). Adding an input format: its folder, and one row here. */
#include "importer.h"

#include <stdio.h>

/* Each defined in its folder (gltf/gltf_importer.c ...). */
extern const pk_importer pk_importer_gltf;
extern const pk_importer pk_importer_synth;
extern const pk_importer pk_importer_usd;

/* One row per input format. File formats are asked in order, so one that is
 * told by its bytes comes before the one that takes anything (glTF: its
 * open says why a file is not one). */
static const pk_importer *const importers[] = {
    &pk_importer_usd,
    &pk_importer_gltf,
    &pk_importer_synth,
};

#define IMPORTER_COUNT ((uint32_t)(sizeof importers / sizeof importers[0]))

const pk_importer *pk_importer_for_file(const char *path)
{
    unsigned char head[16] = {0};
    FILE *f = fopen(path, "rb");
    size_t n = f != NULL ? fread(head, 1, sizeof head, f) : 0;
    if (f != NULL) {
        (void)fclose(f); /* read only: nothing to lose */
    }
    const pk_importer *last = NULL;
    for (uint32_t i = 0; i < IMPORTER_COUNT; i++) {
        if (importers[i]->generated) {
            continue;
        }
        last = importers[i];
        if (importers[i]->accepts(path, head, n)) {
            return importers[i];
        }
    }
    return last;
}

const pk_importer *pk_importer_for_kind(const char *kind)
{
    for (uint32_t i = 0; i < IMPORTER_COUNT; i++) {
        if (importers[i]->generated && importers[i]->accepts(kind, NULL, 0)) {
            return importers[i];
        }
    }
    return NULL;
}

uint32_t pk_importer_count(void)
{
    return IMPORTER_COUNT;
}

const pk_importer *pk_importer_at(uint32_t i)
{
    return i < IMPORTER_COUNT ? importers[i] : NULL;
}
