/* SPDX-License-Identifier: MIT */
/* sluice: version of the library and of the formats it reads. */
#ifndef SLUICE_VERSION_H
#define SLUICE_VERSION_H

#include <stdint.h>

#define SLC_VERSION_MAJOR 0
#define SLC_VERSION_MINOR 1
#define SLC_VERSION_PATCH 0

/* One integer that orders versions: major * 10000 + minor * 100 + patch. */
#define SLC_VERSION_NUMBER (SLC_VERSION_MAJOR * 10000 + SLC_VERSION_MINOR * 100 + SLC_VERSION_PATCH)

#ifdef __cplusplus
extern "C" {
#endif

/* Returns SLC_VERSION_NUMBER of the library actually linked, which may differ
 * from the header the caller compiled against. O(1), thread-safe. */
uint32_t slc_version(void);

#ifdef __cplusplus
}
#endif

#endif
