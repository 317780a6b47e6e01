/* SPDX-License-Identifier: MIT */
/* Layer canary: a test header including a tool's file, which is allowed. */
#include "../tools/tool.h"
