/* SPDX-License-Identifier: MIT */
/* sluice: the POSIX side of platform/ (Linux, and any POSIX firmware OS). */
#define _GNU_SOURCE 1

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <time.h>

#include "sluice/config.h"
#include "sluice/platform.h"

#include "os_sync.h"

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

void slc_platform_query_memory_limits(slc_platform_memory_limits *out)
{
    SLC_ASSERT(out != NULL);
    out->physical = 0;
    out->address_space_limit = UINT64_MAX;
    out->address_space_used = 0;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0) {
        out->physical = (uint64_t)pages * (uint64_t)page;
    }
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
        out->address_space_limit = (uint64_t)rl.rlim_cur;
    }
#ifdef __linux__
    /* The first field of statm: the process's virtual size in pages. */
    int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        char buf[128];
        ssize_t n = read(fd, buf, sizeof buf - 1);
        close(fd);
        uint64_t v = 0;
        for (ssize_t i = 0; i < n && buf[i] >= '0' && buf[i] <= '9'; i++) {
            v = v * 10u + (uint64_t)(buf[i] - '0');
        }
        if (page > 0) {
            out->address_space_used = v * (uint64_t)page;
        }
    }
#endif
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

/* pread until size bytes arrive, EOF (short) or an error. */
static slc_status file_read(void *user, uint64_t offset, void *dst, size_t size)
{
    const slc_platform_file *f = user;
    unsigned char *out = dst;
    while (size > 0) {
        if (offset > (uint64_t)INT64_MAX) {
            return SLC_E_IO_SHORT;
        }
        size_t ask = size;
        ssize_t got;
        int injected = f->fault != NULL ? f->fault(f->fault_user, offset, &ask) : 0;
        if (injected != 0) {
            errno = injected;
            got = -1;
        } else {
            got = pread(f->fd, out, ask < size ? ask : size, (off_t)offset);
        }
        if (got < 0) {
            if (errno == EINTR) {
                continue;
            }
            return SLC_E_IO;
        }
        if (got == 0) {
            return SLC_E_IO_SHORT;
        }
        out += got;
        size -= (size_t)got;
        offset += (uint64_t)got;
    }
    return SLC_OK;
}

/* --- faults of a mapped file ----------------------------------------------------
 *
 * Touching a page of a mapping past the end of a file truncated since it
 * was mapped (or one the storage fails to page in) raises SIGBUS on the
 * thread that touched it. The reader touches a mapped pack only inside
 * file_guard, which arms a recovery point for the calling thread naming the
 * mapping; the handler returns to it (the guarded read then fails with
 * SLC_E_IO) only when the faulting address lies inside that mapping. Any
 * other SIGBUS goes to the handler that was there before, or, if that was
 * the default, kills the process as it would have. */

typedef struct recovery {
    sigjmp_buf env;
    const unsigned char *base; /* the mapping the guarded work reads */
    size_t size;
} recovery;

static _Thread_local recovery *volatile armed; /* this thread's recovery point, or NULL */
static struct sigaction bus_previous;
static slc__once bus_once = SLC__ONCE_INIT;
static int bus_installed;

static void bus_handler(int sig, siginfo_t *info, void *uctx)
{
    recovery *r = armed;
    const unsigned char *at = info != NULL ? (const unsigned char *)info->si_addr : NULL;
    if (r != NULL && at != NULL && at >= r->base && (size_t)(at - r->base) < r->size) {
        armed = NULL;
        siglongjmp(r->env, 1);
    }
    if ((bus_previous.sa_flags & SA_SIGINFO) != 0 && bus_previous.sa_sigaction != NULL) {
        bus_previous.sa_sigaction(sig, info, uctx);
        return;
    }
    if (bus_previous.sa_handler != SIG_DFL && bus_previous.sa_handler != SIG_IGN) {
        bus_previous.sa_handler(sig);
        return;
    }
    /* The default action: restored, the signal unblocked (the handler runs
     * with it blocked) and raised again, so the process dies of SIGBUS
     * here, as it would have without this handler. */
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    (void)sigaction(sig, &dfl, NULL);
    sigset_t bus;
    sigemptyset(&bus);
    sigaddset(&bus, sig);
    (void)slc__signal_mask(SIG_UNBLOCK, &bus, NULL);
    (void)raise(sig);
}

static void bus_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = bus_handler;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    bus_installed = sigaction(SIGBUS, &sa, &bus_previous) == 0;
}

/* slc_io.guard of a mapped file: fn(ctx) with this thread's recovery point
 * armed for the file's mapping. sigsetjmp does not save the signal mask
 * (that would be a system call on every chunk): only after a recovery is
 * SIGBUS, which the handler ran with blocked, unblocked again. */
static slc_status file_guard(void *user, slc_status (*fn)(void *ctx), void *ctx)
{
    const slc_platform_file *f = user;
    recovery rec;
    rec.base = f->map;
    rec.size = (size_t)f->size;
    recovery *outer = armed;
    if (sigsetjmp(rec.env, 0) != 0) {
        armed = outer;
        sigset_t bus;
        sigemptyset(&bus);
        sigaddset(&bus, SIGBUS);
        (void)slc__signal_mask(SIG_UNBLOCK, &bus, NULL);
        return SLC_E_IO;
    }
    armed = &rec;
    slc_status st = fn(ctx);
    armed = outer;
    return st;
}

slc_status slc_platform_file_open(const char *path, unsigned flags, const slc_logger *log, slc_platform_file *out)
{
    SLC_ASSERT(path != NULL && out != NULL);
    memset(out, 0, sizeof *out);
    out->fd = -1;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        int err = errno;
        if (fd >= 0) {
            close(fd);
        }
        if (log != NULL && log->fn != NULL) {
            char msg[320];
            snprintf(msg, sizeof msg, "platform: %s: %s", path, strerror(err));
            log->fn(log->user, SLC_LOG_ERROR, SLC_E_PLATFORM, msg);
        }
        return SLC_E_PLATFORM;
    }
    out->fd = fd;
    out->size = (uint64_t)st.st_size;
    if ((flags & SLC_PLATFORM_FILE_PREAD) == 0 && st.st_size > 0 && (uint64_t)st.st_size <= SIZE_MAX) {
        void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        out->map = m == MAP_FAILED ? NULL : m;
    }
    if (out->map != NULL) {
        slc__once_run(&bus_once, bus_install);
    }
    out->io.read = file_read;
    out->io.user = out;
    out->io.size = out->size;
    out->io.mapped = out->map;
    out->io.guard = out->map != NULL && bus_installed ? file_guard : NULL;
    return SLC_OK;
}

void slc_platform_file_close(slc_platform_file *file)
{
    SLC_ASSERT(file != NULL);
    if (file->map != NULL) {
        munmap(file->map, (size_t)file->size);
    }
    if (file->fd >= 0) {
        close(file->fd);
    }
    memset(file, 0, sizeof *file);
    file->fd = -1;
}

void slc_platform_file_set_fault_hook(slc_platform_file *file, slc_platform_file_fault_fn fn, void *user)
{
    SLC_ASSERT(file != NULL);
    file->fault = fn;
    file->fault_user = user;
}

uint64_t slc_platform_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
