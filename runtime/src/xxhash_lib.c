/* SPDX-License-Identifier: MIT */
/* sluice: xxhash's functions built into the runtime, for a target without
 * libxxhash (a freestanding build: bare metal). pack.c and pool.c call
 * XXH3_64bits and its seeded and streaming forms as they would call the
 * library's; the heap stays out (hash_xxh.h). Built only freestanding
 * (runtime/CMakeLists.txt). */
#define SLC__XXH_LIBRARY
#include "hash_xxh.h"
