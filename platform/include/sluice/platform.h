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

/* A file opened for reading through an slc_io (for slc_pack_open). */
typedef struct slc_platform_file {
    slc_io io;  /* read-at-offset, size, and the mapping when mapped */
    int fd;
    void *map;  /* the mapping, or NULL when read through pread */
    uint64_t size;
} slc_platform_file;

typedef enum slc_platform_file_flags {
    /* Map the whole file read-only where the OS can (the default): chunk
     * loads then read straight from the page cache, no copy. */
    SLC_PLATFORM_FILE_DEFAULT = 0,
    /* Read with pread into the caller's scratch instead of mapping: for
     * storage that cannot be mapped, and to test that path. */
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

/* Monotonic nanoseconds from an arbitrary origin. O(1), thread-safe. */
uint64_t slc_platform_now_ns(void);

#ifdef __cplusplus
}
#endif

#endif
