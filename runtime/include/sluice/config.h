/* SPDX-License-Identifier: MIT */
/* sluice: compile-time configuration and the overridable check macros.
 *
 * A build may define SLC_CONFIG_HEADER as the name of a header (in quotes or
 * angle brackets) to include before the defaults below, and define
 * SLC_ASSERT / SLC_HEAVY_ASSERT there. Tests map SLC_ASSERT to cmocka's
 * mock_assert so contract violations are themselves tested.
 *
 * SLC_ASSERT checks a caller's contract (a NULL where none is allowed, an
 * index out of range): it is a programming error, never bad data. Bad data
 * (a corrupt file, a refused reservation) is a returned slc_status.
 * SLC_HEAVY_ASSERT guards O(n) invariant walks; it is off unless
 * SLC_HEAVY_CHECKS is defined. */
#ifndef SLUICE_CONFIG_H
#define SLUICE_CONFIG_H

#ifdef SLC_CONFIG_HEADER
#include SLC_CONFIG_HEADER
#endif

#ifndef SLC_ASSERT
#include <assert.h>
#define SLC_ASSERT(x) assert(x)
#endif

#ifndef SLC_HEAVY_ASSERT
#ifdef SLC_HEAVY_CHECKS
#define SLC_HEAVY_ASSERT(x) SLC_ASSERT(x)
#else
#define SLC_HEAVY_ASSERT(x) ((void)0)
#endif
#endif

/* SLC_FAULT_RESERVE(budgets, budget, bytes): fault injection, for tests
 * only. slc_budgets_reserve evaluates it once per reservation of a non-zero
 * size; when it is true, the reservation is refused exactly as if the budget
 * itself had no room (SLC_E_BUDGET_REFUSED, counted in refused and
 * refused_here, explained in the refusal), so a test can refuse the Nth
 * reservation of an init path and check that the path unwinds
 * (tests/unit/test_fault_sweep.c). By default it is 0 and compiles away: a
 * release build pays nothing. tests/support/slc_test_config.h defines it. */
#ifndef SLC_FAULT_RESERVE
#define SLC_FAULT_RESERVE(budgets, budget, bytes) 0
#endif

/* Longest budget, phase or profile name, including the terminating NUL. */
#define SLC_NAME_MAX 32

/* Alignment of the block handed to slc_memory_init and of every arena carved
 * from it: a cache line on every supported core. */
#define SLC_BLOCK_ALIGN 64u

#endif
