/* SPDX-License-Identifier: MIT */
/* See a.h. */
#include "a.h"

int cycle_canary_a(int n)
{
    return n <= 0 ? 0 : cycle_canary_b(n - 1) + 1;
}
