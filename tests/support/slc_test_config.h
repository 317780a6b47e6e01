/* SPDX-License-Identifier: MIT */
/* Test configuration of the runtime: SLC_ASSERT goes to cmocka, so a test
 * can expect a contract violation with expect_assert_failure(); and budget
 * reservations can be refused on purpose (SLC_FAULT_RESERVE, config.h). */
#ifndef SLC_TEST_CONFIG_H
#define SLC_TEST_CONFIG_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#define SLC_ASSERT(x) mock_assert((int)(x), #x, __FILE__, __LINE__)
#define SLC_HEAVY_CHECKS 1

/* Fault injection (tests/support/slc_test_fault.c, compiled into the
 * checked runtime). After slc_test_fault_arm(n), the nth reservation of a
 * non-zero size from then on (counting from 1, on any budget and thread) is
 * refused as if its budget were full; every other one goes through.
 * slc_test_fault_seen() counts the reservations since arming,
 * slc_test_fault_fired() says whether the nth has come. n = 0 disarms (the
 * state every test starts in): then reservations are not even counted. */
void slc_test_fault_arm(uint64_t n);
uint64_t slc_test_fault_seen(void);
bool slc_test_fault_fired(void);
bool slc_test_fault_reserve(void);
#define SLC_FAULT_RESERVE(budgets, budget, bytes) slc_test_fault_reserve()

#endif
