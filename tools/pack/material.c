/* SPDX-License-Identifier: MIT */
/* sluice pack: materials (material.h). */
#include <string.h>

#include "material.h"

void pk_material_default(pk_material *m)
{
    memset(m, 0, sizeof *m);
    for (int c = 0; c < 4; c++) {
        m->base_color[c] = 1.0f;
    }
    m->metallic = 1.0f;
    m->roughness = 1.0f;
    m->alpha_cutoff = 0.5f;
    m->alpha_mode = PK_ALPHA_OPAQUE;
    for (int t = 0; t < PK_SLOT_COUNT; t++) {
        m->slot[t].image = PK_NONE;
        m->slot[t].wrap_s = PK_WRAP_REPEAT;
        m->slot[t].wrap_t = PK_WRAP_REPEAT;
        m->slot[t].scale = 1.0f;
        m->slot[t].uv_scale[0] = 1.0f;
        m->slot[t].uv_scale[1] = 1.0f;
    }
}

pk_mip_kind pk_material_slot_kind(pk_material_slot slot)
{
    switch (slot) {
    case PK_SLOT_BASE_COLOR:
    case PK_SLOT_EMISSIVE:
        return PK_MIP_COLOR;
    case PK_SLOT_NORMAL:
        return PK_MIP_NORMAL;
    default:
        return PK_MIP_DATA;
    }
}

const char *pk_material_slot_name(pk_material_slot slot)
{
    static const char *const names[PK_SLOT_COUNT] = {"baseColorTexture", "metallicRoughnessTexture", "normalTexture",
                                                     "occlusionTexture", "emissiveTexture"};
    return (unsigned)slot < PK_SLOT_COUNT ? names[slot] : "?";
}
