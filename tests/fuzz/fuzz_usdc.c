/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the crate (.usdc) and package (.usdz) readers on any
 * bytes, opened from memory as the importer opens a file's mapping; then
 * every prim, variant and property walked and every value read (count,
 * numbers as double, float and int, tokens by index); then the input
 * imported as `sluice pack` imports a USD file (fuzz_usd_import.h): a stage
 * composed from it, every mesh walked and its material bindings, GeomSubsets
 * and UsdPreviewSurface networks resolved (usd_shade.c), texture files
 * outside a package refused with a message (they do not exist). A reader
 * or importer that fails must say why: an empty message aborts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_usd_import.h"
#include "usd_layer.h"

static void check_message(const pk_diag *d)
{
    if (d->message[0] == '\0') {
        abort();
    }
}

static void read_prop(const usd_prop *p)
{
    int which[3] = {USD_WHICH_AUTO, USD_WHICH_DEFAULT, 0};
    for (int k = 0; k < 3; k++) {
        if (!usd_prop_has_value(p, which[k])) {
            continue;
        }
        pk_diag d;
        d.message[0] = '\0';
        uint64_t count = 0;
        uint32_t comps = 0;
        if (usd_prop_value_count(p, which[k], &count, &comps, &d) != 0) {
            check_message(&d);
            continue;
        }
        uint64_t total = count * comps;
        if (total <= (1u << 20)) {
            double *v = malloc((size_t)(total ? total : 1) * sizeof *v);
            float *f = malloc((size_t)(total ? total : 1) * sizeof *f);
            int32_t *i = malloc((size_t)(total ? total : 1) * sizeof *i);
            if (v != NULL && f != NULL && i != NULL) {
                d.message[0] = '\0';
                if (usd_prop_read_f64(p, which[k], v, (size_t)total, NULL, &d) != 0) {
                    check_message(&d);
                }
                usd_prop_read_f32(p, which[k], f, (size_t)total, NULL, &d);
                usd_prop_read_i32(p, which[k], i, (size_t)total, NULL, &d);
            }
            free(v);
            free(f);
            free(i);
        }
        char tok[256];
        for (uint64_t j = 0; j < count && j < 8; j++) {
            usd_prop_read_token(p, which[k], (size_t)j, tok, sizeof tok, &d);
        }
        int b;
        usd_prop_read_bool(p, which[k], &b, &d);
    }
}

static void walk(const usd_prim *prim, unsigned depth)
{
    if (depth > 2 * USD_MAX_DEPTH) {
        abort(); /* the reader bounds nesting */
    }
    char path[USD_MAX_PATH];
    usd_prim_path(prim, path, sizeof path);
    for (uint32_t i = 0; i < prim->prop_count; i++) {
        read_prop(prim->props[i]);
    }
    for (uint32_t s = 0; s < prim->variant_set_count; s++) {
        for (uint32_t v = 0; v < prim->variant_sets[s].variant_count; v++) {
            walk(prim->variant_sets[s].variants[v], depth + 1);
        }
    }
    for (uint32_t i = 0; i < prim->child_count; i++) {
        walk(prim->children[i], depth + 1);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    usd_layer *L = NULL;
    pk_diag d;
    d.message[0] = '\0';
    if (usd_layer_open_memory("fuzz.usdc", data, size, NULL, &L, &d) != 0) {
        check_message(&d);
        return 0;
    }
    walk(usd_layer_get_root(L), 0);
    usd_layer_close(L);
    fuzz_usd_import("fuzz.usdc", data, size);
    return 0;
}
