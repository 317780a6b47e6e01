/* SPDX-License-Identifier: MIT */
/* sluice: the renderer's desc from a profile's [render] section (see
 * sluice/render.h). */
#include "sluice/render.h"

#include "sluice/config.h"

void slc_render_desc_from_profile(slc_render_desc *desc, const slc_profile *profile)
{
    SLC_ASSERT(desc != NULL && profile != NULL);
    desc->width = profile->render_width;
    desc->height = profile->render_height;
    desc->max_draws = profile->render_max_draws;
    desc->max_placements = profile->render_max_placements;
}
