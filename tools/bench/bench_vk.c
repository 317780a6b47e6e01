/* SPDX-License-Identifier: MIT */
/* The Vulkan backend of the benches that draw (bench_vk.h). */
#ifdef SLUICE_HAVE_VULKAN
#include "bench_vk.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* The session's close of the backend, in any state. */
static void close_backend(void *ctx)
{
    bench_vk *b = ctx;
    if (b->vk != NULL) {
        slc_vulkan_deinit(b->vk);
    }
    free(b->mem);
    memset(b, 0, sizeof *b);
}

int bench_vk_open(bench_vk *b, tool_session *ses, const slc_profile *prof, run_validation *validation, const char *me)
{
    memset(b, 0, sizeof *b);
    slc_vulkan_desc d;
    memset(&d, 0, sizeof d);
    slc_pool_spec spec;
    slc_pool_spec_from_profile(prof, SLC_POOL_GEOMETRY, &spec);
    slc_vulkan_desc_from_spec(&d, &spec, prof);
    d.budgets = slc_memory_budgets(ses->mem);
    d.log = cli_stderr_logger;
    if (validation != NULL) {
        run_validation_enable(&d, validation);
    }
    const size_t size = slc_vulkan_footprint(&d);
    if (size == 0) {
        fprintf(stderr, "%s: profile '%s' cannot be a Vulkan page pool\n", me, prof->name);
        return CLI_FAILED;
    }
    b->mem = aligned_alloc(SLC_VULKAN_ALIGN, (size + SLC_VULKAN_ALIGN - 1u) & ~(size_t)(SLC_VULKAN_ALIGN - 1u));
    tool_session_set_store(ses, NULL, close_backend, b);
    slc_status st = SLC_E_CAPACITY;
    if (b->mem == NULL || (st = slc_vulkan_init(b->mem, size, &d, &b->vk)) != SLC_OK) {
        b->vk = NULL;
        fprintf(stderr, "%s: no Vulkan backend (%s)\n", me, b->mem == NULL ? "out of memory" : slc_status_name(st));
        return CLI_FAILED;
    }
    slc_vulkan_get_info(b->vk, &b->info);
    b->t = slc_vulkan_get_device_table(b->vk);
    b->alloc = slc_vulkan_get_allocator(b->vk);
    tool_session_set_store(ses, slc_vulkan_get_store(b->vk), close_backend, b);
    if (tool_session_open_texture_store(ses, prof, ses->store, me) != CLI_OK) {
        return CLI_FAILED;
    }
    slc_stream_desc sd;
    tool_session_stream_desc(ses, prof, ses->store, &cli_stderr_logger, &sd);
    if ((st = tool_session_start_stream(ses, &sd)) != SLC_OK) {
        fprintf(stderr, "%s: could not create the stream (%s)\n", me, slc_status_name(st));
        return CLI_FAILED;
    }
    return CLI_OK;
}

#else
typedef int bench_vk_unused; /* ISO C: a translation unit is not empty */
#endif
