/* sluice pack: the USDA text parser (usd_layer_internal.h). */
#include <stdio.h>

#include "usd_layer_internal.h"

int usd_usda_parse(usd_layer *layer, pk_diag *d)
{
    snprintf(d->message, sizeof d->message, "%s: text layers are not readable yet", usd_layer_get_info(layer)->name);
    return -1;
}
