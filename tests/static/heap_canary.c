/* SPDX-License-Identifier: MIT */
/* A library that does call the heap: check_heap_symbols must reject it,
 * which proves the check can fail. */
#include <stdlib.h>

void *heap_canary(size_t n)
{
    return malloc(n);
}
