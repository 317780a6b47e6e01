/* SPDX-License-Identifier: MIT */
/* The fuzz targets' import step (fuzz_usda.c, fuzz_usdc.c): the input as the
 * root layer of a stage, composed and imported as `sluice pack` imports a
 * USD file (usd_stage.h), so every mesh, its material:binding and its
 * UsdPreviewSurface network (usd_shade.c) are read. */
#ifndef SLUICE_TESTS_FUZZ_USD_IMPORT_H
#define SLUICE_TESTS_FUZZ_USD_IMPORT_H

#include <stddef.h>
#include <stdint.h>

/* Writes data to NAME in a fresh private folder under $TMPDIR (or /tmp),
 * which is also the stage's asset root, so no other file can be reached;
 * opens and imports the stage, and again under skip_unsupported when that
 * fails; removes the file and the folder. A texture the input names does
 * not exist there (unless it is the input itself, or inside it when it is a
 * usdz) and must be refused with a message. Aborts when a refusal has no
 * message. Frees everything it allocates. */
void fuzz_usd_import(const char *name, const uint8_t *data, size_t size);

#endif
