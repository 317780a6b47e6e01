/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the USD layer model and its USDA text parser on any
 * bytes (an exact-size copy, so a read past the end is caught), then every
 * prim, list op and property walked and every value read through each
 * reader that fits its type; then the input imported as `sluice pack`
 * imports a USD file (fuzz_usd_import.h): a stage composed from it, every
 * mesh walked and its material bindings, GeomSubsets and UsdPreviewSurface
 * networks resolved (usd_shade.c), texture files refused with a message
 * (they do not exist). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_usd_import.h"
#include "usd_layer.h"

static void read_prop(const usd_prop *p)
{
    pk_diag d;
    int whichs[3] = {USD_WHICH_AUTO, USD_WHICH_DEFAULT, 0};
    for (int w = 0; w < 3; w++) {
        uint64_t count = 0;
        uint32_t comps = 0;
        int which = whichs[w];
        if (usd_prop_value_count(p, which, &count, &comps, &d) != 0)
            continue;
        uint64_t total = count * (comps ? comps : 1);
        if (total > (1u << 20))
            continue;
        size_t cap = (size_t)total;
        double *dv = malloc(cap * sizeof *dv + 8);
        float *fv = malloc(cap * sizeof *fv + 8);
        int32_t *iv = malloc(cap * sizeof *iv + 8);
        size_t n;
        if (dv && fv && iv) {
            usd_prop_read_f64(p, which, dv, cap, &n, &d);
            usd_prop_read_f32(p, which, fv, cap, &n, &d);
            usd_prop_read_i32(p, which, iv, cap, &n, &d);
            if (cap)
                usd_prop_read_f32(p, which, fv, cap - 1, &n, &d); /* too small */
        }
        free(dv);
        free(fv);
        free(iv);
        char buf[64];
        for (uint64_t i = 0; i < count && i < 4; i++)
            usd_prop_read_token(p, which, (size_t)i, buf, sizeof buf, &d);
        int b;
        usd_prop_read_bool(p, which, &b, &d);
    }
}

static void walk(const usd_layer *L, const usd_prim *prim)
{
    char path[USD_MAX_PATH];
    usd_prim_path(prim, path, sizeof path);
    (void)usd_layer_find_prim(L, path);
    for (int f = 0; f < USD_FIELD_COUNT; f++) {
        usd_listop_item out[8];
        usd_listop_apply(&prim->listops[f], NULL, 0, out, 8);
        const usd_listop *op = &prim->listops[f];
        for (uint32_t i = 0; i < op->count[USD_LISTOP_EXPLICIT] && i < 4; i++) {
            char res[USD_MAX_PATH];
            usd_layer_resolve(L, op->items[USD_LISTOP_EXPLICIT][i].asset, res, sizeof res);
        }
    }
    for (uint32_t i = 0; i < prim->prop_count; i++)
        read_prop(prim->props[i]);
    for (uint32_t i = 0; i < prim->child_count; i++)
        walk(L, prim->children[i]);
    for (uint32_t s = 0; s < prim->variant_set_count; s++)
        for (uint32_t v = 0; v < prim->variant_sets[s].variant_count; v++)
            walk(L, prim->variant_sets[s].variants[v]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *copy = malloc(size ? size : 1);
    if (!copy)
        return 0;
    memcpy(copy, data, size);
    usd_layer *L = NULL;
    pk_diag d;
    if (usd_layer_open_memory("fuzz.usda", copy, size, NULL, &L, &d) == 0) {
        walk(L, usd_layer_get_root(L));
        const usd_layer_info *in = usd_layer_get_info(L);
        for (uint32_t i = 0; i < in->sublayer_count; i++) {
            char res[USD_MAX_PATH];
            usd_layer_resolve(L, in->sublayers[i], res, sizeof res);
        }
        usd_layer_close(L);
        fuzz_usd_import("fuzz.usda", copy, size);
    }
    free(copy);
    return 0;
}
