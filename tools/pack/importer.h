/* SPDX-License-Identifier: MIT */
/* sluice pack: the importer interface. Every input format is one folder
 * under tools/pack (gltf/, usd/, synth/) that fills one pk_importer, and one
 * row of the table in importer_table.c; the pack command, the build graph emitter
 * (pack_ninja.c) and the limits planner (pack_limits.c) reach importers only
 * through this header, so adding a format touches nothing else.
 *
 * An importer's life: pk_importer_for_file (or pk_importer_for_kind, for a
 * scene made from a name rather than read from a file) picks the row; open
 * reads enough to find every error it can before anything is written; scan
 * and file describe the input (its sizes for the limits planner and the
 * progress bar, the files it reads for the build graph and the output
 * check); run pushes meshes and instances into a sink (the pack builder, or
 * a test); close frees it. One state is used by one thread at a time;
 * states share nothing.
 *
 * Materials and textures come through the same sink, as further callbacks
 * beside mesh and instance, before the meshes that name them: texture (a
 * decoded image with how it is filtered and wrapped) returns the id a
 * material's slot names, material the id a mesh names (pk_mesh.material =
 * id + 1). A sink that leaves texture NULL takes no texture (the importer
 * then decodes no image, and material slots are left empty); one that
 * leaves material NULL takes neither (meshes name none). */
#ifndef SLUICE_TOOLS_PACK_IMPORTER_H
#define SLUICE_TOOLS_PACK_IMPORTER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "material.h"
#include "mesh.h"

/* The placements (meshes placed, each time the flattened scene places one)
 * an input may have unless --max-placements N says otherwise: 2^22. The
 * pack holds an instance record for each. */
#define PK_DEFAULT_MAX_PLACEMENTS 4194304
#define PK_STRINGIFY_(x) #x
#define PK_STRINGIFY(x) PK_STRINGIFY_(x)

/* How an input is opened. A zero-initialised struct is valid (errors, no
 * warnings given). */
typedef struct pk_import_options {
    /* 0: an unsupported feature is an error. 1: a warning, and what cannot
     * be imported is skipped. */
    int skip_unsupported;
    /* 0: a file the input names outside the asset root (or by an absolute
     * path) is refused (asset.h). 1: read. */
    int allow_outside_paths;
    /* The asset root (--asset-root DIR); NULL: asset.h's rule. */
    const char *asset_root;
    /* USD: a stage that places more meshes than this is refused
     * (--max-placements N; 0: PK_DEFAULT_MAX_PLACEMENTS). */
    uint64_t max_placements;
    /* 1: this input was opened before with the same options, and the
     * warnings of that open were given then; an importer whose open
     * composes (USD) does not give them again. */
    int reopen;
    /* A generated scene (pk_importer.generated): the bytes to make and the
     * seed (--size, --seed), and 1 to give it textures (--textures). */
    uint64_t size, seed;
    int textures;
    /* Called for each warning (may be NULL). */
    void (*warn)(void *user, const char *message);
    void *user;
} pk_import_options;

/* Where run sends what it imports. */
typedef struct pk_import_sink {
    /* A mesh. owned = 1: the sink takes its arrays (*m is zeroed, or freed
     * on failure, whatever the result); 0: m is read only for the call. Sets *object to the index placements
     * name. Returns 0, or -1 with d->message (run then stops and returns -1,
     * the message prefixed as the importer names its input). */
    int (*mesh)(void *user, pk_mesh *m, int owned, uint32_t *object, pk_diag *d);
    /* A placement: inst->mesh is an index *object was given. Same return. */
    int (*instance)(void *user, const pk_instance *inst, pk_diag *d);
    /* How far run is: done of the input's scan.progress_bytes, and what it is
     * at ("mesh 3 of 40"). May be NULL. */
    void (*progress)(void *user, uint64_t done, const char *what);
    void *user;
    /* A texture: img (read only for the call), to be mipmapped as kind says
     * and tiled with the wrap modes, named name. Sets *id (PK_NONE: the sink
     * keeps no texture). May be NULL. Same return. */
    int (*texture)(void *user, const pk_image *img, pk_mip_kind kind, pk_wrap wrap_s, pk_wrap wrap_t, const char *name,
                   uint32_t *id, pk_diag *d);
    /* A material whose slots' image fields are texture ids (or PK_NONE).
     * Sets *id. May be NULL. Same return. */
    int (*material)(void *user, const pk_material *m, uint32_t *id, pk_diag *d);
} pk_import_sink;

/* What is known of an opened input before it is imported. Zero fields are
 * unknown (and not checked by the limits planner). */
typedef struct pk_import_scan {
    uint64_t meshes;         /* meshes: at most that many objects */
    uint64_t instances;      /* placements */
    uint64_t name_bytes;     /* string table bytes known up front (names with their NUL) */
    uint64_t input_bytes;    /* a generated scene's target, for the chunk estimate */
    uint64_t importable;     /* what run will import (primitives, meshes): 0 means nothing to pack */
    uint64_t progress_bytes; /* this input's share of the progress bar (its files' bytes, or the target) */
} pk_import_scan;

/* One input format. Every callback is required. */
typedef struct pk_importer {
    const char *name; /* "gltf", "usd", "synthetic": for messages and tests */
    /* 1: the input is a scene made from a kind name (--synthetic KIND), not
     * read from a file: accepts and open get the kind as path. */
    int generated;
    /* 1 when this importer reads path, whose first bytes are head[0..n)
     * (n 0 when the file cannot be read; NULL and 0 for a generated kind).
     * The table is asked in order; its last file row accepts anything. */
    int (*accepts)(const char *path, const unsigned char *head, size_t n);
    /* Opens path, checking everything the importer can check before anything
     * is written. Returns 0, or -1 with d->message naming the input and why;
     * *state is NULL on failure. Allocates. */
    int (*open)(const char *path, const pk_import_options *opt, void **state, pk_diag *d);
    /* Fills *out (zeroed first by the caller). */
    void (*scan)(const void *state, pk_import_scan *out);
    /* The files the input reads besides path itself, i from 0 until NULL:
     * each a path on disk, with label set to how messages name it ("buffer
     * 2", "layer"). For the build graph's implicit inputs and the check that
     * the output is none of them. The path may be path itself; it stays
     * valid until the next call on the state. */
    const char *(*file)(void *state, uint32_t i, char *label, size_t cap);
    /* Pushes every mesh and instance into sink. Returns 0, or -1 with
     * d->message. Call once per state. */
    int (*run)(void *state, const pk_import_sink *sink, pk_diag *d);
    /* After a run that returned 0: the importer's own figures, printed to f
     * under the pack's summary lines (nothing for most). */
    void (*report)(const void *state, const char *path, FILE *f);
    /* Frees the state; NULL is a no-op. */
    void (*close)(void *state);
} pk_importer;

/* The file importer that reads path: the first row of the table whose
 * accepts says so, after reading the file's first bytes. Never NULL (the
 * last file row accepts anything, and its open says why a file is not
 * one). Reads at most 16 bytes; O(rows). */
const pk_importer *pk_importer_for_file(const char *path);

/* The generated-scene importer for kind, or NULL when none makes it.
 * O(rows). */
const pk_importer *pk_importer_for_kind(const char *kind);

/* The table, for tests: row i below pk_importer_count, else NULL. */
uint32_t pk_importer_count(void);
const pk_importer *pk_importer_at(uint32_t i);

/* Names a failure after its input: d->message becomes "prefix: " and the
 * message it held (cut at the message's size). Returns -1, so an importer
 * writes `return pk_import_named(d, path);`. O(message). */
int pk_import_named(pk_diag *d, const char *prefix);

/* "12.3 MiB" and the like (B, KiB, MiB, GiB, TiB; bytes whole, the others
 * with one decimal) into buf; returns buf. For messages and progress. */
const char *pk_human_bytes(double bytes, char *buf, size_t cap);

#endif
