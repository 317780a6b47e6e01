/* SPDX-License-Identifier: MIT */
/* sluice CLI: a profile as the tools read it (see profile_sections.h). */
#include "profile_sections.h"

#include <string.h>

slc_status tool_profile_parse(const char *text, size_t len, const char *file_name, slc_profile *out,
                              tool_profile_sections *sections, slc_profile_diag *diag)
{
    tool_profile_sections scratch;
    memset(&scratch, 0, sizeof scratch); /* the handlers' own set-up zeroes it too */
    tool_profile_sections *v = sections != NULL ? sections : &scratch;
    const slc_profile_section owned[] = {slc_render_profile_section(&v->render), quality_profile_section(&v->quality)};
    slc_status s = slc_profile_parse_sections(text, len, file_name, owned, sizeof owned / sizeof owned[0], out, diag);
    if (s != SLC_OK) {
        memset(v, 0, sizeof *v);
    }
    return s;
}
