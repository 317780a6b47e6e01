/* SPDX-License-Identifier: MIT */
/* Layer canary: a tool including the runtime and the platform (allowed) and
 * a test's support file (reported). */
#include "../runtime/core.h"
#include "../platform/os.h"
#include "../tests/support.h"
#include <stdio.h>
