/* SPDX-License-Identifier: MIT */
/* sluice: the ids of a pack's chunks and objects.
 *
 * A chunk and an object are each named by their index into the pack's
 * chunk or object table (sluice/pack_format.h). Each id is a struct of one
 * field, as slc_budget_id (sluice/budget.h) and slc_page (sluice/pool.h)
 * are, so that a chunk id, an object id, a page index and a count cannot be
 * passed for one another: mixing them is a compile error, not a silent
 * wrong answer. The pack's on-disk records keep plain uint32_t indices
 * (they are the file format); the public calls take and return these.
 * One conversion C still allows: an aggregate initialiser that elides an
 * id's braces ({5, ...} for {{5}, ...}). clang's -Wall warns of it
 * (-Wmissing-braces), an error in runtime/ and platform/ (-Werror).
 *
 * Plain types, no functions: O(1), thread-safe, nothing allocated. */
#ifndef SLUICE_IDS_H
#define SLUICE_IDS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A chunk, by index into the pack's chunk table (below its chunk_count, and
 * so below the pool's max_chunks). */
typedef struct slc_chunk_id {
    uint32_t index;
} slc_chunk_id;

/* An object, by index into the pack's object table (below its
 * object_count). */
typedef struct slc_object_id {
    uint32_t index;
} slc_object_id;

/* "No chunk": a free page's chunk and an eviction log entry's evicted or
 * loaded chunk when there is none. No pack has this many chunks
 * (SLC_TABLE_COUNT_MAX, sluice/limits.h, is far below it). */
#define SLC_CHUNK_NONE_INDEX 0xFFFFFFFFu
#ifdef __cplusplus
#define SLC_CHUNK_NONE (slc_chunk_id{SLC_CHUNK_NONE_INDEX})
#else
#define SLC_CHUNK_NONE ((slc_chunk_id){SLC_CHUNK_NONE_INDEX})
#endif

#ifdef __cplusplus
}
#endif

#endif
