/* SPDX-License-Identifier: MIT */
/* sluice: what differs per operating system, behind one narrow interface.
 *
 * This header declares the OS side used by the runtime and the tools: the
 * one-time mapping of the memory block and a monotonic clock. The GPU
 * backends live beside it in platform/. Only platform/ contains OS #ifs. */
#ifndef SLUICE_PLATFORM_H
#define SLUICE_PLATFORM_H

#include <stddef.h>
#include <stdint.h>

#include "sluice/pack.h"
#include "sluice/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A block of memory mapped once at init. */
typedef struct slc_platform_block {
    void *base; /* aligned to at least SLC_BLOCK_ALIGN */
    size_t size;
    int locked; /* 1 when the pages are locked in RAM */
} slc_platform_block;

typedef enum slc_platform_block_flags {
    SLC_PLATFORM_BLOCK_DEFAULT = 0,
    /* Lock the pages in RAM (mlock) so they are never paged out; failing to
     * lock is not an error, it leaves locked at 0. */
    SLC_PLATFORM_BLOCK_LOCK = 1
} slc_platform_block_flags;

/* Maps size bytes of zeroed memory, every page touched (populated) so no
 * page fault lands after init. This is the runtime's one mapping call; it
 * belongs to the init path. Fails iff size is 0 (SLC_E_INVALID) or the OS
 * refuses (SLC_E_PLATFORM; the logger, which may be NULL, gets the reason). */
slc_status slc_platform_block_map(size_t size, unsigned flags, const slc_logger *log, slc_platform_block *out);

/* Unmaps a block from slc_platform_block_map; the struct is zeroed. */
void slc_platform_block_unmap(slc_platform_block *block);

/* What this machine can give a mapping, for a check made before mapping:
 * slc_platform_block_map populates every page, so a block larger than the
 * machine's memory would run until the kernel refuses or the OOM killer
 * steps in, instead of failing at once with a reason. */
typedef struct slc_platform_memory_limits {
    /* Bytes of physical memory (sysconf(_SC_PHYS_PAGES) x the page size):
     * the machine's fixed ceiling, not what happens to be free now (that
     * changes from one moment to the next, and a check that depends on it
     * would not give the same answer twice). 0 when unknown. */
    uint64_t physical;
    /* The address-space limit (RLIMIT_AS soft limit, `ulimit -v`) in
     * bytes; UINT64_MAX when unlimited or unknown. */
    uint64_t address_space_limit;
    /* Bytes of address space the process already uses (Linux:
     * /proc/self/statm); 0 when unknown. */
    uint64_t address_space_used;
} slc_platform_memory_limits;

/* Fills *out (every field, 0 or UINT64_MAX where unknown). A few system
 * calls; no allocation; thread-safe. */
void slc_platform_query_memory_limits(slc_platform_memory_limits *out);

/* A fault-injection hook for tests (slc_platform_file_set_fault_hook),
 * called before each pread system call of the file's io.read, on the
 * reading thread (a worker's, when there are workers: it must be
 * thread-safe). offset is where the call reads, *size how many bytes it
 * asks for. Returns 0 to let the real pread run with at most *size bytes
 * (lower *size for a partial read, which the reader continues; 0 makes
 * pread return 0, end of file: SLC_E_IO_SHORT), or an errno value that
 * pread then fails with, without reading (EIO: SLC_E_IO; EINTR: the reader
 * retries the call). So every injected fault goes through the reader's own
 * handling of what pread returns, on a real file. */
typedef int (*slc_platform_file_fault_fn)(void *user, uint64_t offset, size_t *size);

/* A file opened for reading through an slc_io (for slc_pack_open). */
typedef struct slc_platform_file {
    slc_io io; /* read-at-offset, size, and the mapping when mapped */
    int fd;
    void *map; /* the mapping, or NULL when read through pread */
    uint64_t size;
    slc_platform_file_fault_fn fault; /* NULL unless a test set one */
    void *fault_user;
} slc_platform_file;

/* Faults and the choice of mode. Through pread every fault of the storage
 * is a returned status: an error is SLC_E_IO, a file that ends early
 * (truncated while open) SLC_E_IO_SHORT, bytes changed under the pack
 * SLC_E_PACK_CHUNK_CHECKSUM; the stream then falls back and retries
 * (sluice/stream.h). Through a mapping, touching a page past the end of a
 * file truncated while mapped raises SIGBUS, and so does an I/O error while
 * paging in. A mapped file's io.guard turns that into a status: the reader
 * touches the mapping only inside it (the hash and the decode of a chunk,
 * the copies of the tables), with a recovery point armed for the calling
 * thread (sigsetjmp); a SIGBUS handler, installed once (pthread_once) at
 * the first mapped open, jumps back to it only when the faulting address
 * lies inside the mapping that thread's guard names, and the read fails
 * with SLC_E_IO (the stream counts a failed load). Any other SIGBUS goes
 * to the handler installed before, or kills the process as it would have.
 * Bytes changed under a mapping are still caught by the checksum. An
 * application that installs its own SIGBUS handler after the first mapped
 * open replaces this one (chain to it, or open with SLC_PLATFORM_FILE_PREAD).
 * pread remains the mode for storage that may change: a fault there costs a
 * status, never a signal. `sluice run` reads through pread by default (its
 * RSS is then the runtime's own: the page cache of a mapped pack counts in
 * it) and maps with --mmap. */
typedef enum slc_platform_file_flags {
    /* Map the whole file read-only where the OS can (the default): chunk
     * loads then read straight from the page cache, no copy. */
    SLC_PLATFORM_FILE_DEFAULT = 0,
    /* Read with pread into the caller's scratch instead of mapping: for
     * storage that cannot be mapped or may change while open (see above),
     * and to test that path. */
    SLC_PLATFORM_FILE_PREAD = 1
} slc_platform_file_flags;

/* Opens path for reading; out->io reads it. This belongs to the init path
 * (it may map). Fails iff the file cannot be opened or its size read
 * (SLC_E_PLATFORM; the logger, which may be NULL, gets the path and the
 * reason). A mapping that fails falls back to pread. The file must stay
 * open while a pack reads through it. */
slc_status slc_platform_file_open(const char *path, unsigned flags, const slc_logger *log, slc_platform_file *out);
/* (out must not move while open: out->io refers to it.) */

/* Unmaps and closes; the struct is zeroed. */
void slc_platform_file_close(slc_platform_file *file);

/* For tests: calls fn (NULL: none) before each pread of file's io.read (see
 * slc_platform_file_fault_fn), so I/O errors, interrupted, partial and
 * short reads are injected through the real read path on a real file; a
 * truncated or rewritten file needs no hook. Only reads through io.read
 * see it: a pack read through the mapping (io.mapped) never calls it, so
 * open with SLC_PLATFORM_FILE_PREAD. Set it while no read is running (the
 * pointer is read without synchronisation); fn's own state must be
 * thread-safe. Without a hook a read costs one predictable branch per
 * pread call, nothing else. O(1), no allocation. */
void slc_platform_file_set_fault_hook(slc_platform_file *file, slc_platform_file_fault_fn fn, void *user);

/* Monotonic nanoseconds from an arbitrary origin. O(1), thread-safe. */
uint64_t slc_platform_now_ns(void);

#ifdef __cplusplus
}
#endif

#endif
