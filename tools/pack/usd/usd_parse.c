/* SPDX-License-Identifier: MIT */
/* sluice pack: a created layer handed to the parser of its format
 * (usd_layer_parse, usd_layer_internal.h). Its own file, shared by the file
 * opener (usd_open.c) and the package reader (usdz.c), so neither calls the
 * other back. */
#include "usd_layer_internal.h"

int usd_layer_parse(usd_layer *layer, usd_format format, usd_layer **out, pk_diag *d)
{
    int rc = format == USD_FORMAT_USDA ? usd_usda_parse(layer, d) : usd_usdc_parse(layer, d);
    if (rc != 0) {
        usd_layer_close(layer);
        return -1;
    }
    *out = layer;
    return 0;
}
