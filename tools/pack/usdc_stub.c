/* sluice pack: the crate (.usdc) and package (.usdz) entry points of
 * usd_layer_internal.h until their readers exist: they fail, saying so. */
#include <stdio.h>

#include "usd_layer_internal.h"

int usd_usdc_parse(usd_layer *layer, pk_diag *d)
{
    snprintf(d->message, sizeof d->message, "%s: crate files are not readable yet", usd_layer_get_info(layer)->name);
    return -1;
}

int usd_usdz_open(const char *package_path, const void *data, size_t size, const char *entry,
                  const usd_layer_options *opt, usd_layer **out, pk_diag *d)
{
    (void)data;
    (void)size;
    (void)entry;
    (void)opt;
    *out = NULL;
    snprintf(d->message, sizeof d->message, "%s: crate files are not readable yet", package_path);
    return -1;
}
