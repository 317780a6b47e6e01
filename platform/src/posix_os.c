/* sluice: the POSIX side of platform/ (Linux, and any POSIX firmware OS). */
#define _GNU_SOURCE 1

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "sluice/config.h"
#include "sluice/platform.h"

static slc_status os_error(const slc_logger *log, const char *what, size_t size, int err)
{
    if (log != NULL && log->fn != NULL) {
        char msg[192];
        snprintf(msg, sizeof msg, "platform: %s of %zu bytes failed: %s", what, size, strerror(err));
        log->fn(log->user, SLC_LOG_ERROR, SLC_E_PLATFORM, msg);
    }
    return SLC_E_PLATFORM;
}

slc_status slc_platform_block_map(size_t size, unsigned flags, const slc_logger *log, slc_platform_block *out)
{
    SLC_ASSERT(out != NULL);
    memset(out, 0, sizeof *out);
    if (size == 0) {
        return SLC_E_INVALID;
    }
    int mflags = MAP_PRIVATE | MAP_ANONYMOUS;
#ifdef MAP_POPULATE
    mflags |= MAP_POPULATE;
#endif
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, mflags, -1, 0);
    if (p == MAP_FAILED) {
        return os_error(log, "mmap", size, errno);
    }
#ifndef MAP_POPULATE
    memset(p, 0, size); /* touch every page now */
#endif
    out->base = p;
    out->size = size;
    if ((flags & SLC_PLATFORM_BLOCK_LOCK) != 0 && mlock(p, size) == 0) {
        out->locked = 1;
    }
    return SLC_OK;
}

void slc_platform_block_unmap(slc_platform_block *block)
{
    SLC_ASSERT(block != NULL);
    if (block->base != NULL) {
        if (block->locked) {
            munlock(block->base, block->size);
        }
        munmap(block->base, block->size);
    }
    memset(block, 0, sizeof *block);
}

uint64_t slc_platform_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
