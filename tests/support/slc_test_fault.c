/* SPDX-License-Identifier: MIT */
/* Fault injection for the checked runtime (see slc_test_config.h): refuses
 * the nth budget reservation after slc_test_fault_arm(n). Atomic, so the
 * threaded tests that share the checked runtime stay race-free; disarmed it
 * costs one relaxed load per reservation. */
#include <stdatomic.h>

#include "slc_test_config.h"

static _Atomic uint64_t fail_at; /* 0: disarmed */
static _Atomic uint64_t seen;
static _Atomic bool fired;

void slc_test_fault_arm(uint64_t n)
{
    atomic_store(&fail_at, 0);
    atomic_store(&seen, 0);
    atomic_store(&fired, false);
    atomic_store(&fail_at, n);
}

uint64_t slc_test_fault_seen(void)
{
    return atomic_load(&seen);
}

bool slc_test_fault_fired(void)
{
    return atomic_load(&fired);
}

bool slc_test_fault_reserve(void)
{
    uint64_t n = atomic_load_explicit(&fail_at, memory_order_relaxed);
    if (n == 0) {
        return false;
    }
    if (atomic_fetch_add(&seen, 1) + 1 != n) {
        return false;
    }
    atomic_store(&fired, true);
    return true;
}
