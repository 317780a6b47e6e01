/* SPDX-License-Identifier: MIT */
/* The Vulkan backend of the benches that draw (bench render, bench lod): a
 * page pool on the Vulkan backend under a session's profile, made the
 * session's page store, and the session's stream over it. Vulkan builds
 * only (SLUICE_HAVE_VULKAN). */
#ifndef SLUICE_TOOLS_BENCH_VK_H
#define SLUICE_TOOLS_BENCH_VK_H

#include <volk.h>

#include "run.h"
#include "session.h"
#include "sluice/vulkan.h"

/* The backend, filled by bench_vk_open; every member is the bench's to read. */
typedef struct bench_vk {
    void *mem;      /* the backend's record (slc_vulkan_footprint bytes) */
    slc_vulkan *vk; /* NULL until open */
    slc_vulkan_info info;
    const struct VolkDeviceTable *t;
    const VkAllocationCallbacks *alloc;
} bench_vk;

/* Opens the Vulkan backend for ses (open, its memory laid out for prof),
 * its pool from prof's geometry pool spec and its budgets the session's,
 * logging to cli_stderr_logger, with the validation layer reporting into
 * validation when not NULL; hands it to ses as the page store (the session
 * closes it, so b must outlive the session's close) and starts ses's
 * stream over it with tool_session_stream_desc's defaults. Returns CLI_OK,
 * or CLI_FAILED with "ME: ..." printed (ses still to be closed, which
 * closes what was opened of b). Allocates the backend's record with
 * aligned_alloc. Not thread-safe for one ses. */
int bench_vk_open(bench_vk *b, tool_session *ses, const slc_profile *prof, run_validation *validation, const char *me);

#endif
