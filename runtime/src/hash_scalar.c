/* SPDX-License-Identifier: MIT */
/* sluice: XXH3 without vector instructions (see hash.h): the reference the
 * tests hold every vector variant to. Nothing on the load path calls it. */
#include "hash.h"

#define XXH_VECTOR XXH_SCALAR
#include "hash_xxh.h"

uint64_t slc__xxh3_64_scalar(const void *data, size_t size)
{
    return XXH3_64bits(data, size);
}
