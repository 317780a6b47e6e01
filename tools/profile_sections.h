/* SPDX-License-Identifier: MIT */
/* sluice CLI: a profile as the tools read it.
 *
 * A profile file holds the runtime's sections and two that others own: the
 * reference renderer's [render] (sluice/render_profile.h) and the quality
 * check's [quality] (quality_profile.h). Every tool, and every test that
 * reads a profile written for the tools, parses through tool_profile_parse,
 * so each profile is read with the same sections, in the same order (the
 * order the unknown-section message lists them in). */
#ifndef SLUICE_TOOLS_PROFILE_SECTIONS_H
#define SLUICE_TOOLS_PROFILE_SECTIONS_H

#include <stddef.h>

#include "quality_profile.h"
#include "sluice/profile.h"
#include "sluice/render_profile.h"

/* The values of a profile's sections outside the runtime's. */
typedef struct tool_profile_sections {
    slc_render_profile render;
    quality_profile quality;
} tool_profile_sections;

/* slc_profile_parse_sections with [render] and [quality] attached: the same
 * contract, statuses and diagnostics. sections (may be NULL: parsed, checked
 * and dropped) receives their values; zeroed on failure, like *out. O(len +
 * budgets^2); never allocates. */
slc_status tool_profile_parse(const char *text, size_t len, const char *file_name, slc_profile *out,
                              tool_profile_sections *sections, slc_profile_diag *diag);

#endif
