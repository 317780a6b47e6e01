/* SPDX-License-Identifier: MIT */
/* sluice: the reference renderer's profile section, [render].
 *
 * A profile may declare the renderer's own target (width, height, in pixels)
 * and its per-frame lists (max_draws cluster draws, max_placements instance
 * placements); budgets/README.md documents the keys. The renderer owns the
 * section: the runtime's parser hands its lines to the handler this file
 * gives (slc_profile_parse_sections), and slc_render_desc_from_profile
 * (sluice/render.h) turns the values into a desc.
 *
 *     slc_render_profile rp;
 *     slc_profile_section s = slc_render_profile_section(&rp);
 *     slc_profile_parse_sections(text, len, "a.profile", &s, 1, &profile, &diag);
 *
 * Plain data, no heap; needs no GPU (a build without the Vulkan backend
 * still reads, and checks, every profile's [render]). */
#ifndef SLUICE_RENDER_PROFILE_H
#define SLUICE_RENDER_PROFILE_H

#include <stdint.h>

#include "sluice/profile.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The ranges of [render]: width and height 1 to SLC_RENDER_SIZE_MAX (the
 * renderer's bound on a target's side; the device's limits may be lower),
 * max_draws and max_placements 1 to SLC_RENDER_LIST_MAX. */
#define SLC_RENDER_SIZE_MAX 16384u
#define SLC_RENDER_LIST_MAX (1u << 24)

/* The target a profile without [render] width and height gets. */
#define SLC_RENDER_DEFAULT_WIDTH 1280u
#define SLC_RENDER_DEFAULT_HEIGHT 720u

/* A profile's [render] values. Each is optional: 0 means not declared, and
 * the renderer takes its default (slc_render_desc_from_profile). */
typedef struct slc_render_profile {
    uint32_t width, height, max_draws, max_placements;
    uint32_t lines[4]; /* the line each of the four was read on; 0: absent */
} slc_render_profile;

/* Zeroes *out and returns the [render] section whose handler fills it, for
 * slc_profile_parse_sections. The handler refuses, in the runtime's words
 * (slc_profile_read_count), a key other than the four, a repeated key and a
 * value that is not a count in its range. out must outlive the parse. O(1);
 * thread-safe for distinct out. */
slc_profile_section slc_render_profile_section(slc_render_profile *out);

#ifdef __cplusplus
}
#endif

#endif
