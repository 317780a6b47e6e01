/* Test configuration of the runtime: SLC_ASSERT goes to cmocka, so a test
 * can expect a contract violation with expect_assert_failure(). */
#ifndef SLC_TEST_CONFIG_H
#define SLC_TEST_CONFIG_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#define SLC_ASSERT(x) mock_assert((int)(x), #x, __FILE__, __LINE__)
#define SLC_HEAVY_CHECKS 1

#endif
