/* SPDX-License-Identifier: MIT */
/* sluice CLI: the [quality] section's parser (see quality_profile.h). */
#include "quality_profile.h"

#include <string.h>

static slc_status quality_line(void *ctx, const char *key, const char *value, uint32_t line, char *why, size_t cap)
{
    quality_profile *q = ctx;
    if (strcmp(key, "min_psnr_db") != 0 || q->line != 0) {
        return slc_profile_refuse_key("quality", key, strcmp(key, "min_psnr_db") == 0 ? q->line : 0, why, cap);
    }
    uint64_t mdb = 0;
    slc_status s = slc_profile_read_decimal("quality", key, value, QUALITY_PSNR_DIGITS, 1, QUALITY_PSNR_MAX_MDB, &mdb,
                                            why, cap);
    if (s != SLC_OK) {
        return s;
    }
    q->min_psnr_mdb = (uint32_t)mdb; /* at most QUALITY_PSNR_MAX_MDB */
    q->line = line;
    return SLC_OK;
}

slc_profile_section quality_profile_section(quality_profile *out)
{
    memset(out, 0, sizeof *out);
    slc_profile_section s = {"quality", quality_line, NULL, out};
    return s;
}
