/* SPDX-License-Identifier: MIT */
/* Layer canary (tests/static/check_layers.cmake): the runtime including the
 * platform, a layer above it, must be reported; core.h is its own layer. */
#include "core.h"
#include "../platform/os.h"
