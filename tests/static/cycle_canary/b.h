/* SPDX-License-Identifier: MIT */
/* See a.h. */
#ifndef CYCLE_CANARY_B_H
#define CYCLE_CANARY_B_H
#include "a.h"
int cycle_canary_b(int n);
#endif
