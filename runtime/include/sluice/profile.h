/* SPDX-License-Identifier: MIT */
/* sluice: budget profiles.
 *
 * A profile declares, for one target class, every budget and the sizes of
 * everything the runtime will ever hold: the GPU page size and count, the
 * staging size, the per-frame upload cap, frames in flight, worker threads
 * and table capacities. Its text format is documented in budgets/README.md.
 *
 * Host-only profiles. The budgets under gpu (gpu, gpu/pool, gpu/staging and
 * any others) are a group: a profile that declares none of them is
 * host-only, for the host backend (slc_host_store, `sluice run --backend
 * host`, bare-metal firmware). Its [pool] page_size x page_count sizes the
 * host store's pages, which no budget charges, and its staging_size must be
 * 0. A profile that declares any budget under gpu must declare gpu/pool and
 * gpu/staging too (SLC_E_PROFILE_MISSING, listing every missing budget).
 * Whatever needs GPU memory (slc_vulkan_init, `sluice run --backend
 * vulkan`, `sluice render`, the benches that draw) refuses a host-only
 * profile with slc_profile_refuse_host_only's message.
 *
 * slc_profile is plain data. The parser reads a memory buffer, never
 * allocates, and rejects malformed input with "file:line: [section] key:
 * rule" in its diagnostic. `sluice budget header` turns a profile into a C
 * header holding the same slc_profile as static data, for firmware that
 * cannot read files.
 *
 * A profile file may also hold sections for code outside the runtime (the
 * reference renderer's [render], the tools' [quality]): their owners parse
 * them, through slc_profile_section handlers passed to
 * slc_profile_parse_sections. The runtime knows none of their names or
 * keys; it splits their lines, keeps its own rules for the file (syntax,
 * duplicate sections, line numbers) and reports their handlers' refusals as
 * its own. */
#ifndef SLUICE_PROFILE_H
#define SLUICE_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "budget.h"
#include "config.h"
#include "limits.h"
#include "pool.h" /* slc_eviction_policy */
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Most budgets a profile declares; longest line the parser accepts (bytes,
 * without the line break). */
#define SLC_PROFILE_BUDGET_MAX 32u
#define SLC_PROFILE_LINE_MAX 256u

/* The ranges the parser enforces; a value outside is "absurd". page_size,
 * page_count, frames_in_flight, max_objects, max_chunks and the partitions
 * take the bounds of sluice/limits.h (SLC_PAGE_SIZE_MIN/MAX,
 * SLC_PAGE_COUNT_MAX, SLC_FRAMES_IN_FLIGHT_MAX, SLC_TABLE_COUNT_MAX,
 * SLC_PARTITION_MAX), so every profile it accepts fits the pool and the
 * stores. */
#define SLC_PROFILE_SIZE_MAX ((uint64_t)1 << 40) /* 1 TiB, for any size or limit */
#define SLC_PROFILE_WORKERS_MAX 64u
#define SLC_PROFILE_QUEUE_CAPACITY_MAX (1u << 20)
#define SLC_PROFILE_STRING_BYTES_MAX (64u << 20)
#define SLC_PROFILE_PHASES_MIN 2u
#define SLC_PROFILE_PHASES_MAX 64u
#define SLC_PROFILE_PHASES_DEFAULT 8u /* [report] max_phases: the default when absent */
/* Most sections one parse takes from its caller (slc_profile_section), and
 * most digits after the point slc_profile_read_decimal reads. */
#define SLC_PROFILE_SECTIONS_MAX 8u
#define SLC_PROFILE_DECIMAL_DIGITS_MAX 3u

/* The partition of the pages no named partition claims ([partitions] names
 * at most SLC_PARTITION_MAX others). */
#define SLC_PROFILE_PARTITION_DEFAULT_NAME "default"

typedef struct slc_profile_budget {
    char name[SLC_NAME_MAX]; /* full path, "cpu/meta" */
    uint64_t limit;          /* bytes */
    uint16_t parent;         /* index into budgets, or SLC_BUDGET_NONE_INDEX */
} slc_profile_budget;

/* One named partition of the page pool: page_count pages (at least 1) that
 * only requests in this partition can fill or evict. */
typedef struct slc_profile_partition {
    char name[SLC_NAME_MAX];
    uint32_t page_count;
} slc_profile_partition;

/* A parsed profile. Budgets are ordered by depth, then by their order in the
 * file, so every parent precedes its children. Partitions keep their order in
 * the file; the "default" partition of the pages they leave is implied, not
 * listed. Unused name bytes are zero, so two equal profiles are equal byte
 * for byte in their names. */
typedef struct slc_profile {
    char name[SLC_NAME_MAX];
    uint32_t budget_count;
    slc_profile_budget budgets[SLC_PROFILE_BUDGET_MAX];
    /* [pool] */
    uint32_t page_size; /* bytes, a power of two from SLC_PAGE_SIZE_MIN to SLC_PAGE_SIZE_MAX */
    uint32_t page_count;
    /* [stream] */
    uint32_t frames_in_flight;
    uint32_t workers;
    uint32_t queue_capacity;
    uint64_t staging_size;
    uint64_t upload_cap;
    /* [tables] */
    uint32_t max_objects;
    uint32_t max_chunks;
    uint32_t max_lods;
    uint64_t max_string_bytes;
    /* [report] */
    uint32_t max_phases;
    /* [pool] eviction: an slc_eviction_policy value (a fixed-width field, so
     * the layout is the same with every compiler) */
    uint32_t eviction;
    /* [partitions]: partition_count named partitions, at most
     * SLC_PARTITION_MAX, whose page counts sum to at most page_count */
    uint32_t partition_count;
    slc_profile_partition partitions[SLC_PARTITION_MAX];
    /* [stream] pin_coarsest: how many of every object's coarsest levels the
     * stream pins at create (0: none; optional, default 0) */
    uint32_t pin_coarsest;
    /* [textures] format: the SLC_PACK_TEXEL_* value the device's textures
     * are packed in (`sluice pack --profile` takes it as its
     * --texture-format; optional, default SLC_PACK_TEXEL_RGBA8, which every
     * Vulkan device samples). The stream checks a pack's formats against
     * the device itself (slc_page_store's sampled_formats). */
    uint32_t texture_format;
    /* [textures] page_count: pages of the texture tile pool, each [pool]
     * page_size bytes (a tile is one page-sized chunk); 0, the default,
     * declares no texture pool, and a stream of a pack with textures is then
     * refused. Charged to gpu/textures, which a profile with gpu budgets
     * declares when this is not 0. */
    uint32_t texture_page_count;
    /* [textures] eviction: the texture pool's slc_eviction_policy (default
     * LRU) */
    uint32_t texture_eviction;
    /* [texture_partitions]: the texture pool's named partitions, as
     * [partitions] are the page pool's: at most SLC_PARTITION_MAX, their
     * page counts summing to less than texture_page_count (the default
     * partition keeps at least a page: every texture's mip tail is pinned
     * there); none without a texture pool */
    uint32_t texture_partition_count;
    slc_profile_partition texture_partitions[SLC_PARTITION_MAX];
    /* [textures] pin_tiles: 1 pins every tile of every level of every
     * texture at create, with the mip tails (every texel resident from the
     * first frame: the reference `sluice render --reference` compares
     * against); 0, the default, pins the tails only. Needs a texture pool */
    uint32_t texture_pin_tiles;
    uint32_t reserved_texture0; /* 0 */
    /* [textures] staging_size: bytes of the texture pool's own staging
     * belt (whole pages), charged to gpu/staging with [stream]
     * staging_size; 0, the default, declares none. On the Vulkan backend
     * the tiles live in atlas images, written through this belt, where
     * the renderer samples them; with 0 they stay in host memory (the
     * renderer draws the materials' factors). On every backend alike it
     * bounds the tile loads a frame may start
     * (slc_stream_get_tile_cap), so the decisions are the same wherever
     * the tiles live. Needs a texture pool */
    uint64_t texture_staging_size;
} slc_profile;

/* Where and why parsing failed. message holds the whole diagnostic,
 * "file:line: [section] key: rule". line is 1-based (0 when no line
 * applies). */
typedef struct slc_profile_diag {
    uint32_t line;
    char message[320];
} slc_profile_diag;

/* Parses len bytes of profile text. file_name names the source in messages
 * (may be NULL: "<profile>"). On failure *out is left zeroed, diag (may be
 * NULL) says why, and the status says which class of rule broke:
 * SLC_E_PROFILE_SYNTAX, _UNKNOWN, _DUPLICATE, _VALUE, _MISSING, _RANGE,
 * _TREE or _BINARY. O(len + budgets^2); never allocates. */
slc_status slc_profile_parse(const char *text, size_t len, const char *file_name, slc_profile *out,
                             slc_profile_diag *diag);

/* A section of the profile file that the caller owns, with its handlers.
 *
 * line is called for each `key = value` line of [name], in file order, with
 * the key and the value trimmed and NUL-terminated (both non-empty: the
 * parser refuses an empty value itself, as "[name] key: value is empty"),
 * and the line's 1-based number. It returns SLC_OK to take the line, or one
 * of the SLC_E_PROFILE_* statuses with why (cap bytes) holding
 * "[name] key: rule"; the parser then fails with that status and the
 * diagnostic "file:line: " + why, as it does for its own keys. The
 * slc_profile_read_* helpers below write the runtime's own wording.
 *
 * end (may be NULL) is called once per successful parse, after the
 * runtime's own whole-file checks, for every passed section in the order
 * passed, present or not: section_line is the line of its [name] header, 0
 * when the file has none. It fills defaults and checks required keys or
 * keys that go together; a refusal is reported like line's, on
 * section_line, or on the file's last line when the section is absent (the
 * runtime's rule for its own missing keys).
 *
 * The parser never calls a handler after one refused, and calls none of a
 * section's handlers when an earlier line failed. ctx is the handlers' own;
 * the parser only passes it on. */
typedef struct slc_profile_section {
    const char *name; /* without brackets; not one of the runtime's sections */
    slc_status (*line)(void *ctx, const char *key, const char *value, uint32_t line, char *why, size_t cap);
    slc_status (*end)(void *ctx, uint32_t section_line, char *why, size_t cap);
    void *ctx;
} slc_profile_section;

/* slc_profile_parse, with count more sections (at most
 * SLC_PROFILE_SECTIONS_MAX, names distinct from the runtime's and from each
 * other: checked by SLC_ASSERT) parsed by their handlers. A section that
 * neither the runtime nor one of these owns is refused (SLC_E_PROFILE_UNKNOWN,
 * the message listing the runtime's sections then these, in order). Fails
 * iff slc_profile_parse would on the runtime's sections, or a handler
 * refuses; on failure *out is zeroed and the contexts hold whatever their
 * handlers left (a caller discards them). O(len + budgets^2) plus the
 * handlers' costs; never allocates; sections may be NULL when count is 0. */
slc_status slc_profile_parse_sections(const char *text, size_t len, const char *file_name,
                                      const slc_profile_section *sections, size_t count, slc_profile *out,
                                      slc_profile_diag *diag);

/* Helpers for a section's line handler, in the runtime's own words. Each
 * writes "[section] key: rule" into why (cap bytes) on failure, eliding a key
 * or value longer than 60 bytes as the parser does.
 *
 * slc_profile_read_count: value is a plain decimal integer in min..max;
 * *out is set iff SLC_OK. Fails iff it is not one (SLC_E_PROFILE_VALUE) or
 * is outside the range (SLC_E_PROFILE_RANGE). O(value).
 *
 * slc_profile_read_decimal: value is digits, optionally a '.' and 1 to
 * digits (at most SLC_PROFILE_DECIMAL_DIGITS_MAX) more, read in thousandths
 * (30.5 is 30500) and in min..max thousandths; *out is set iff SLC_OK. Fails
 * iff it is not such a decimal or has more digits after the point
 * (SLC_E_PROFILE_VALUE) or is outside the range (SLC_E_PROFILE_RANGE).
 * O(value); integers only.
 *
 * slc_profile_refuse_key: the refusal of a key the section does not know
 * (first_line 0: SLC_E_PROFILE_UNKNOWN, "unknown key") or that it already
 * read on first_line (SLC_E_PROFILE_DUPLICATE, "duplicate key (first on
 * line N)"). Always fails; O(1). */
slc_status slc_profile_read_count(const char *section, const char *key, const char *value, uint64_t min, uint64_t max,
                                  uint64_t *out, char *why, size_t cap);
slc_status slc_profile_read_decimal(const char *section, const char *key, const char *value, uint32_t digits,
                                    uint64_t min, uint64_t max, uint64_t *out, char *why, size_t cap);
slc_status slc_profile_refuse_key(const char *section, const char *key, uint32_t first_line, char *why, size_t cap);

/* Fills cap budget declarations (pointing into p's names) for
 * slc_budgets_init and returns p->budget_count. O(budgets). */
size_t slc_profile_budget_descs(const slc_profile *p, slc_budget_desc *out, size_t cap);

/* True iff a and b declare the same configuration, field by field. */
bool slc_profile_equal(const slc_profile *a, const slc_profile *b);

/* Index of the budget with that full name, or -1. O(budgets). */
int slc_profile_scan_budget(const slc_profile *p, const char *name);

/* True iff p is host-only: it declares no budget under gpu (see the top of
 * this header). O(budgets); never allocates; thread-safe (reads p only). */
bool slc_profile_scan_host_only(const slc_profile *p);

/* Writes into why (cap bytes, truncated, NUL-terminated) the refusal of a
 * host-only profile named profile (NULL: "?") by what ("the Vulkan
 * backend"): "profile 'NAME' is host-only (it declares no gpu budget): WHAT
 * needs gpu, gpu/pool, gpu/staging", the budgets a profile must declare to
 * use GPU memory. Always returns SLC_E_PROFILE_MISSING. O(1); never
 * allocates; thread-safe. */
slc_status slc_profile_refuse_host_only(const char *profile, const char *what, char *why, size_t cap);

/* Index into p->partitions of the partition with that name, or -1 (also for
 * "default", which is not listed). O(partitions). */
int slc_profile_scan_partition(const slc_profile *p, const char *name);

/* The [pool] eviction keyword of an slc_eviction_policy value ("lru",
 * "priority", "predict"), or "?" for a value that is none. O(1). */
const char *slc_profile_policy_name(uint32_t eviction);

#ifdef __cplusplus
}
#endif

#endif
