/* SPDX-License-Identifier: MIT */
/* sluice: the renderer's desc from a profile's [render] section (see
 * sluice/render.h). */
#include "sluice/render.h"

#include "sluice/config.h"

void slc_render_desc_from_profile(slc_render_desc *desc, const slc_render_profile *profile)
{
    SLC_ASSERT(desc != NULL && profile != NULL);
    desc->width = profile->width;
    desc->height = profile->height;
    desc->max_draws = profile->max_draws;
    desc->max_placements = profile->max_placements;
}
