/* SPDX-License-Identifier: MIT */
/* sluice pack: the largest scene a pack holds (pack_limits.h). */
#define _POSIX_C_SOURCE 200809L

#include "pack_limits.h"

#include <stdio.h>

uint64_t pk_limits_chunk_estimate(uint64_t input_bytes, uint32_t page_size)
{
    if (page_size == 0) {
        page_size = SLC_DEFAULT_PAGE_SIZE;
    }
    /* ceil(input x k / page) without overflowing the product. */
    uint64_t whole = input_bytes / page_size, rest = input_bytes % page_size;
    if (whole > UINT64_MAX / PK_LIMITS_DECODED_PER_INPUT - 1) {
        return UINT64_MAX;
    }
    uint64_t rest_decoded = rest * PK_LIMITS_DECODED_PER_INPUT; /* < 2^32 x k */
    return whole * PK_LIMITS_DECODED_PER_INPUT + (rest_decoded + page_size - 1) / page_size;
}

uint64_t pk_limits_largest_geometry(uint32_t page_size)
{
    return PK_LIMIT_CHUNKS * (uint64_t)(page_size != 0 ? page_size : SLC_DEFAULT_PAGE_SIZE);
}

/* "HEAD; a pack holds at most LIMIT (WHY); nothing written". */
static int refuse(pk_diag *d, const char *head, uint64_t limit, const char *why)
{
    snprintf(d->message, sizeof d->message, "%s; a pack holds at most %llu (%s); nothing written", head,
             (unsigned long long)limit, why);
    return -1;
}

int pk_limits_check_plan(const pk_limits_plan *plan, pk_diag *d)
{
    const char *what = plan->what != NULL ? plan->what : "the scene";
    char head[256];
    if (plan->meshes > PK_LIMIT_OBJECTS) {
        snprintf(head, sizeof head, "%s: %llu meshes, so up to as many objects", what,
                 (unsigned long long)plan->meshes);
        return refuse(d, head, PK_LIMIT_OBJECTS, "objects: SLC_TABLE_COUNT_MAX, a profile's max_objects");
    }
    if (plan->instances > PK_LIMIT_INSTANCES) {
        snprintf(head, sizeof head, "%s: %llu instances", what, (unsigned long long)plan->instances);
        return refuse(d, head, PK_LIMIT_INSTANCES, "instances: the header's 32-bit instance_count");
    }
    if (plan->name_bytes > PK_LIMIT_STRING_BYTES) {
        snprintf(head, sizeof head, "%s: %llu bytes of names", what, (unsigned long long)plan->name_bytes);
        return refuse(d, head, PK_LIMIT_STRING_BYTES,
                      "string bytes: SLC_PROFILE_STRING_BYTES_MAX, a profile's max_string_bytes");
    }
    if (plan->input_bytes > 0) {
        uint32_t page = plan->page_size != 0 ? plan->page_size : SLC_DEFAULT_PAGE_SIZE;
        uint64_t chunks = pk_limits_chunk_estimate(plan->input_bytes, page);
        if (chunks > PK_LIMIT_CHUNKS) {
            snprintf(head, sizeof head, "%s: %llu input bytes at %u-byte pages make about %llu chunks", what,
                     (unsigned long long)plan->input_bytes, page, (unsigned long long)chunks);
            return refuse(d, head, PK_LIMIT_CHUNKS,
                          "chunks: SLC_TABLE_COUNT_MAX, a profile's max_chunks; a larger --page-size holds more");
        }
    }
    return 0;
}

void pk_limits_plan_add(pk_limits_plan *plan, const pk_import_scan *scan)
{
    plan->meshes += scan->meshes;
    plan->instances += scan->instances;
    plan->name_bytes += scan->name_bytes;
    plan->input_bytes += scan->input_bytes;
}
