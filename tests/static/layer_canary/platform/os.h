/* SPDX-License-Identifier: MIT */
/* Layer canary: the platform including the runtime, which is allowed. */
#include "../runtime/core.h"
