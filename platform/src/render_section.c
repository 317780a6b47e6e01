/* SPDX-License-Identifier: MIT */
/* sluice: the [render] section's parser (see sluice/render_profile.h). */
#include "sluice/render_profile.h"

#include <string.h>

#include "sluice/config.h"

typedef struct render_key {
    const char *key;
    uint32_t max;
} render_key;

/* In the order of slc_render_profile's fields. */
static const render_key keys[] = {
    {"width", SLC_RENDER_SIZE_MAX},
    {"height", SLC_RENDER_SIZE_MAX},
    {"max_draws", SLC_RENDER_LIST_MAX},
    {"max_placements", SLC_RENDER_LIST_MAX},
};
#define KEY_COUNT (sizeof keys / sizeof keys[0])

static slc_status render_line(void *ctx, const char *key, const char *value, uint32_t line, char *why, size_t cap)
{
    slc_render_profile *rp = ctx;
    uint32_t *fields[KEY_COUNT] = {&rp->width, &rp->height, &rp->max_draws, &rp->max_placements};
    size_t k = 0;
    while (k < KEY_COUNT && strcmp(key, keys[k].key) != 0) {
        k++;
    }
    if (k == KEY_COUNT || rp->lines[k] != 0) {
        return slc_profile_refuse_key("render", key, k == KEY_COUNT ? 0 : rp->lines[k], why, cap);
    }
    uint64_t x = 0;
    slc_status s = slc_profile_read_count("render", key, value, 1, keys[k].max, &x, why, cap);
    if (s != SLC_OK) {
        return s;
    }
    *fields[k] = (uint32_t)x; /* at most SLC_RENDER_LIST_MAX */
    rp->lines[k] = line;
    return SLC_OK;
}

slc_profile_section slc_render_profile_section(slc_render_profile *out)
{
    SLC_ASSERT(out != NULL);
    memset(out, 0, sizeof *out);
    slc_profile_section s = {"render", render_line, NULL, out};
    return s;
}
