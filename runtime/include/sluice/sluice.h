/* SPDX-License-Identifier: MIT */
/* sluice: streams 3D content into a GPU under fixed, declared memory budgets.
 * This header includes every public header of the runtime. */
#ifndef SLUICE_SLUICE_H
#define SLUICE_SLUICE_H

#include "arena.h"
#include "budget.h"
#include "config.h"
#include "heap.h"
#include "host_store.h"
#include "ids.h"
#include "memory.h"
#include "pack.h"
#include "pack_format.h"
#include "page_store.h"
#include "pool.h"
#include "pool_spec.h"
#include "profile.h"
#include "status.h"
#include "stream.h"
#include "version.h"

#endif
