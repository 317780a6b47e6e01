/* SPDX-License-Identifier: MIT */
/* sluice: the limits and defaults the modules share.
 *
 * The profile parser, the page pool, the stream and the page stores (host
 * and Vulkan) all size the same things: pages, pages in a pool, table
 * entries, frames in flight, partitions. Each bound and each default is
 * defined here once, so a profile the parser accepts is always one the pool
 * and every store accept, and two zero-filled descs (the pool's and a
 * store's) describe the same pool. Limits that only one module has (the
 * parser's line length, the pool's log ring, the Vulkan staging belt) stay in
 * that module's header.
 *
 * Plain macros, no includes, usable in #if and in static array sizes. */
#ifndef SLUICE_LIMITS_H
#define SLUICE_LIMITS_H

/* Bytes of a page: a power of two from SLC_PAGE_SIZE_MIN to
 * SLC_PAGE_SIZE_MAX. 4 KiB is the smallest page an OS maps; 64 MiB keeps a
 * page size in 32 bits (slc_profile, slc_page_store and the pack header hold
 * it as uint32_t) and a page within the 2^27 bytes of storage buffer range
 * every Vulkan device allows. */
#define SLC_PAGE_SIZE_MIN 4096u
#define SLC_PAGE_SIZE_MAX (64u << 20)

/* Pages of one pool. Page indices stay below SLC_PAGE_NONE, and the largest
 * pool's bookkeeping fits a 32-bit size_t (slc_pool_footprint). */
#define SLC_PAGE_COUNT_MAX (1u << 24)

/* Entries of a table: a profile's max_objects and max_chunks, and so the
 * chunk ids a pool accepts. Ids stay below SLC_CHUNK_NONE_INDEX (sluice/ids.h),
 * and a table of that many 4-byte records fits a 32-bit size_t. */
#define SLC_TABLE_COUNT_MAX (1u << 24)

/* Frames submitted and not yet retired. A store tracks each with a fence or
 * a timeline value, and a page stays unevictable for that many frames after
 * its last use (sluice/pool.h, "the safe frame"), so more only adds latency. */
#define SLC_FRAMES_IN_FLIGHT_MAX 8u

/* Partitions a profile names in [partitions] and a pool desc lists. The
 * pages none of them claims form one more, "default", so a pool has at most
 * SLC_PARTITION_MAX + 1 (SLC_POOL_PARTITION_MAX), whose records fill the
 * pool's fixed header. */
#define SLC_PARTITION_MAX 15u

/* Levels of detail of one object: a profile's max_lods and pin_coarsest,
 * and the most the packer cuts (--max-lods). 16 halvings take any mesh a
 * page holds down to a handful of triangles. */
#define SLC_LODS_MAX 16u

/* The defaults a zero field of a pool or store desc takes: those of
 * budgets/default.profile (4096 pages of 64 KiB, two frames in flight). The
 * pool refuses a store whose page count differs from its own, so the pool's
 * and the stores' defaults are the same numbers. */
#define SLC_DEFAULT_PAGE_SIZE 65536u
#define SLC_DEFAULT_PAGE_COUNT 4096u
#define SLC_DEFAULT_FRAMES_IN_FLIGHT 2u

#endif
