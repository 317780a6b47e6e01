/* SPDX-License-Identifier: MIT */
/* sluice: status codes and the injected logger.
 *
 * Every fallible call returns an slc_status. Codes, names and one-line
 * descriptions come from the one list below, so they cannot drift apart. */
#ifndef SLUICE_STATUS_H
#define SLUICE_STATUS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* X(name, description). SLC_OK is 0; every other code is an error. */
#define SLC_STATUS_LIST(X)                                                                     \
    X(OK, "success")                                                                           \
    X(E_INVALID, "an argument breaks the function's documented contract")                     \
    X(E_BUDGET_REFUSED, "a reservation would exceed the limit of a budget on its path")        \
    X(E_BLOCK_NULL, "the memory block is NULL")                                                \
    X(E_BLOCK_TOO_SMALL, "the memory block is smaller than the profile requires")              \
    X(E_BLOCK_MISALIGNED, "the memory block is not aligned as required")                       \
    X(E_CAPACITY, "a fixed capacity declared at init is exhausted")                           \
    X(E_NOT_FOUND, "no item has that name")                                                    \
    X(E_PROFILE_SYNTAX, "a profile line is not a section, a key = value pair or a comment")    \
    X(E_PROFILE_UNKNOWN, "a profile names a section or key that does not exist")              \
    X(E_PROFILE_DUPLICATE, "a profile declares the same section, key or budget twice")                           \
    X(E_PROFILE_VALUE, "a profile value is not a valid number, size or name")                 \
    X(E_PROFILE_MISSING, "a profile lacks a required key")                                     \
    X(E_PROFILE_RANGE, "a profile value is out of range, not a power of two, or inconsistent with another")         \
    X(E_PROFILE_TREE, "a profile's budget tree is inconsistent")                               \
    X(E_PROFILE_BINARY, "a profile contains bytes that are not text")                          \
    X(E_PLATFORM, "the operating system refused a request")                                    \
    X(E_IO, "a read from storage failed")                                                      \
    X(E_IO_SHORT, "a read returned fewer bytes than asked: the file is shorter than expected") \
    X(E_PACK_MAGIC, "not a pack: the magic bytes are wrong")                                   \
    X(E_PACK_VERSION, "the pack's major version or a required feature is unknown to this reader") \
    X(E_PACK_TRUNCATED, "the pack is shorter than its header says")                            \
    X(E_PACK_HEADER, "the pack header's checksum or fields are invalid")                       \
    X(E_PACK_BOUNDS, "a pack table or chunk lies outside the file")                            \
    X(E_PACK_TABLE_CHECKSUM, "a pack table does not match its checksum")                       \
    X(E_PACK_RECORD, "a pack record refers to something that does not exist")                  \
    X(E_PACK_CAPACITY, "the pack needs more than the profile's capacities allow")              \
    X(E_PACK_CHUNK_SIZE, "a chunk decodes to more than a page")                                \
    X(E_PACK_CHUNK_CHECKSUM, "a chunk's stored bytes do not match their checksum")             \
    X(E_PACK_CORRUPT, "a chunk's compressed bytes cannot be decoded")                          \
    X(E_PACK_DECODED_SIZE, "a chunk decoded to a size other than its record says")               \
    X(E_PACK_CHUNK_CONTENT, "a decoded chunk's clusters are inconsistent")                      \
    X(E_POOL_BUSY, "no page can be given: every candidate is pinned, loading or used by a frame in flight") \
    X(E_STALE, "a handle refers to a page or chunk that has been evicted or recycled since")      \
    X(E_FRAMES_IN_FLIGHT, "as many frames as the profile allows are already in flight")          \
    X(E_DEVICE, "the GPU device or its driver refused a request")                                  \
    X(E_DEVICE_MEMORY, "the GPU heap cannot hold what the profile declares")                       \
    X(E_UNSUPPORTED, "the device lacks something sluice requires")

typedef enum slc_status {
#define SLC_STATUS_ENUM_(name, desc) SLC_##name,
    SLC_STATUS_LIST(SLC_STATUS_ENUM_)
#undef SLC_STATUS_ENUM_
        SLC_STATUS_COUNT_
} slc_status;

/* "SLC_E_BUDGET_REFUSED" for SLC_E_BUDGET_REFUSED; "SLC_UNKNOWN" for a value
 * outside the list. O(1), thread-safe, never NULL. */
const char *slc_status_name(slc_status s);

/* The one-line description from SLC_STATUS_LIST. O(1), thread-safe, never NULL. */
const char *slc_status_describe(slc_status s);

typedef enum slc_log_level {
    SLC_LOG_ERROR = 0,
    SLC_LOG_WARN = 1,
    SLC_LOG_INFO = 2,
    SLC_LOG_DEBUG = 3
} slc_log_level;

/* Where the runtime reports what went wrong, injected per instance: the
 * runtime never prints. fn may be NULL (messages are dropped). fn receives a
 * NUL-terminated message without a trailing newline; it may be called from
 * any thread that calls into the instance, so it must be thread-safe if the
 * instance is used from several threads. */
typedef struct slc_logger {
    void (*fn)(void *user, slc_log_level level, slc_status status, const char *message);
    void *user;
} slc_logger;

#ifdef __cplusplus
}
#endif

#endif
