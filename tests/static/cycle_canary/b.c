/* SPDX-License-Identifier: MIT */
/* See a.h. */
#include "b.h"

int cycle_canary_b(int n)
{
    return n <= 0 ? 0 : cycle_canary_a(n - 1) + 1;
}
