/* SPDX-License-Identifier: MIT */
/* A loop for check_cycles.cmake to find: a.h and b.h include each other,
 * and a.c and b.c call each other. */
#ifndef CYCLE_CANARY_A_H
#define CYCLE_CANARY_A_H
#include "b.h"
int cycle_canary_a(int n);
#endif
