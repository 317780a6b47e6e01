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

void pk_material_record(const pk_material *m, slc_pack_material *out)
{
    memset(out, 0, sizeof *out);
    out->name = SLC_PACK_NO_NAME;
    out->flags = (m->double_sided ? SLC_PACK_MATERIAL_DOUBLE_SIDED : 0u) | (uint32_t)m->alpha_mode
                                                                               << SLC_PACK_MATERIAL_ALPHA_SHIFT;
    out->alpha_cutoff = m->alpha_cutoff;
    out->metallic = m->metallic;
    out->roughness = m->roughness;
    memcpy(out->base_color, m->base_color, sizeof out->base_color);
    memcpy(out->emissive, m->emissive, sizeof out->emissive);
    for (int k = 0; k < PK_SLOT_COUNT; k++) {
        const pk_texture_ref *t = &m->slot[k];
        slc_pack_texture_slot *o = &out->slot[k];
        if (t->image == PK_NONE) {
            continue; /* an empty slot is all zero */
        }
        o->texture = t->image + 1u;
        o->texcoord = (uint8_t)(t->texcoord < 255u ? t->texcoord : 255u);
        o->wrap = (uint8_t)((uint32_t)t->wrap_s | (uint32_t)t->wrap_t << 2);
        o->filter = (uint8_t)((uint32_t)t->mag_filter | (uint32_t)t->min_filter << 2 | (uint32_t)t->mip_filter << 4);
        o->scale = t->scale;
        memcpy(o->offset, t->offset, sizeof o->offset);
        o->rotation = t->rotation;
        memcpy(o->uv_scale, t->uv_scale, sizeof o->uv_scale);
    }
}
