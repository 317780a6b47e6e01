/* SPDX-License-Identifier: MIT */
/* sluice CLI: the quality check's profile section, [quality].
 *
 * min_psnr_db is the lowest luminance PSNR a frame rendered under the
 * profile may have against the unlimited reference (quality.h); absent, the
 * profile declares no floor. The quality check owns the section: the
 * runtime's parser hands its lines to the handler this file gives
 * (slc_profile_parse_sections; tools parse through tool_profile_parse,
 * profile_sections.h). */
#ifndef SLUICE_TOOLS_QUALITY_PROFILE_H
#define SLUICE_TOOLS_QUALITY_PROFILE_H

#include <stdint.h>

#include "sluice/profile.h"

/* min_psnr_db: a decimal of at most QUALITY_PSNR_DIGITS fractional digits,
 * above 0 and at most 200 dB, held in milli-dB (1 to QUALITY_PSNR_MAX_MDB). */
#define QUALITY_PSNR_DIGITS 3u
#define QUALITY_PSNR_MAX_MDB 200000u

/* A profile's [quality] values. */
typedef struct quality_profile {
    uint32_t min_psnr_mdb; /* 30.5 dB is 30500; 0: no floor declared */
    uint32_t line;         /* the line min_psnr_db was read on; 0: absent */
} quality_profile;

/* Zeroes *out and returns the [quality] section whose handler fills it. The
 * handler refuses, in the runtime's words (slc_profile_read_decimal), a key
 * other than min_psnr_db, a repeated one and a value that is not a decimal
 * in range. out must outlive the parse. O(1). */
slc_profile_section quality_profile_section(quality_profile *out);

#endif
