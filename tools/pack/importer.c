/* SPDX-License-Identifier: MIT */
/* sluice pack: what the importers share (importer.h): a failure named
 * after its input, sizes for messages. The table is importer_table.c, so
 * the importers call this file and the table calls them, never in a loop. */
#define _POSIX_C_SOURCE 200809L /* strnlen */

#include "importer.h"

#include <string.h>

int pk_import_named(pk_diag *d, const char *prefix)
{
    char message[sizeof d->message];
    memcpy(message, d->message, sizeof message);
    size_t cap = sizeof d->message - 1, n = strnlen(prefix, cap);
    memcpy(d->message, prefix, n);
    for (const char *c = ": "; *c != '\0' && n < cap; c++) {
        d->message[n++] = *c;
    }
    size_t m = strnlen(message, cap - n);
    memcpy(d->message + n, message, m);
    d->message[n + m] = '\0';
    return -1;
}

const char *pk_human_bytes(double bytes, char *buf, size_t cap)
{
    static const char *u[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int i = 0;
    while (bytes >= 1024.0 && i < 4) {
        bytes /= 1024.0;
        i++;
    }
    snprintf(buf, cap, i == 0 ? "%.0f %s" : "%.1f %s", bytes, u[i]);
    return buf;
}
