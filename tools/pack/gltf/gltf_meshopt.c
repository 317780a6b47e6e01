/* SPDX-License-Identifier: MIT */
/* sluice pack: EXT_/KHR_meshopt_compression views, read and decoded (see
 * gltf_meshopt.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <meshoptimizer.h>

#include "gltf_meshopt.h"

#define MO_MAX_SAFE_INT 9007199254740992.0 /* 2^53: a JSON number is a double */

static const char *const mode_names[] = {"ATTRIBUTES", "TRIANGLES", "INDICES"};
static const char *const filter_names[] = {"NONE", "OCTAHEDRAL", "QUATERNION", "EXPONENTIAL"};

const char *gltf_meshopt_mode_name(gltf_meshopt_mode mode)
{
    return mode_names[mode];
}

/* Member key of ext as a whole number in [0, max]: dflt when absent and not
 * required. Returns 0, or -1 with why. */
static int mo_number(const cJSON *ext, const char *key, int required, double dflt, double max, double *out, char *why,
                     size_t cap)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(ext, key);
    if (v == NULL) {
        if (required) {
            snprintf(why, cap, "%s: missing", key);
            return -1;
        }
        *out = dflt;
        return 0;
    }
    if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > max || floor(v->valuedouble) != v->valuedouble) {
        snprintf(why, cap, "%s: not a whole number in [0, %.0f]", key, max);
        return -1;
    }
    *out = v->valuedouble;
    return 0;
}

/* Member key of ext, one of the n names (dflt when absent and not
 * required). Returns its index, or -1 with why. */
static int mo_enum(const cJSON *ext, const char *key, int required, int dflt, const char *const *names, int n,
                   char *why, size_t cap)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(ext, key);
    if (v == NULL) {
        if (required) {
            snprintf(why, cap, "%s: missing", key);
            return -1;
        }
        return dflt;
    }
    if (!cJSON_IsString(v)) {
        snprintf(why, cap, "%s: expected a string", key);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        if (strcmp(v->valuestring, names[i]) == 0) {
            return i;
        }
    }
    char list[96] = "";
    for (int i = 0; i < n; i++) {
        size_t at = strlen(list);
        snprintf(list + at, sizeof list - at, "%s%s", i == 0 ? "" : i == n - 1 ? " or " : ", ", names[i]);
    }
    snprintf(why, cap, "%s: '%.64s' is not %s", key, v->valuestring, list);
    return -1;
}

/* The byteStride rules of the mode and the filter; 0, or -1 with why. */
static int mo_check_stride(const gltf_meshopt *m, char *why, size_t cap)
{
    uint32_t st = m->stride;
    const char *mode = mode_names[m->mode];
    if (m->mode == GLTF_MESHOPT_ATTRIBUTES && (st == 0 || st % 4 != 0 || st > 256)) {
        snprintf(why, cap, "byteStride: %u is not a multiple of 4 in [4, 256] (mode %s)", st, mode);
        return -1;
    }
    if (m->mode != GLTF_MESHOPT_ATTRIBUTES && st != 2 && st != 4) {
        snprintf(why, cap, "byteStride: %u is not 2 or 4 (mode %s)", st, mode);
        return -1;
    }
    if (m->filter != GLTF_MESHOPT_NONE && m->mode != GLTF_MESHOPT_ATTRIBUTES) {
        snprintf(why, cap, "filter: %s applies to mode ATTRIBUTES only, not %s", filter_names[m->filter], mode);
        return -1;
    }
    if ((m->filter == GLTF_MESHOPT_OCTAHEDRAL && st != 4 && st != 8) ||
        (m->filter == GLTF_MESHOPT_QUATERNION && st != 8)) {
        snprintf(why, cap, "byteStride: %u is not %s (filter %s)", st,
                 m->filter == GLTF_MESHOPT_OCTAHEDRAL ? "4 or 8" : "8", filter_names[m->filter]);
        return -1;
    }
    if (m->mode == GLTF_MESHOPT_TRIANGLES && m->count % 3 != 0) {
        snprintf(why, cap, "count: %u is not a multiple of 3 (mode TRIANGLES)", m->count);
        return -1;
    }
    return 0;
}

int gltf_meshopt_parse(const cJSON *ext, uint32_t buffer_count, uint32_t view_stride, uint64_t view_length,
                       gltf_meshopt *out, char *why, size_t cap)
{
    memset(out, 0, sizeof *out);
    if (!cJSON_IsObject(ext)) {
        snprintf(why, cap, "expected an object");
        return -1;
    }
    double buffer, offset, length, stride, count;
    if (mo_number(ext, "buffer", 1, 0, 4294967295.0, &buffer, why, cap) != 0 ||
        mo_number(ext, "byteOffset", 0, 0, MO_MAX_SAFE_INT, &offset, why, cap) != 0 ||
        mo_number(ext, "byteLength", 1, 0, MO_MAX_SAFE_INT, &length, why, cap) != 0 ||
        mo_number(ext, "byteStride", 1, 0, 4294967295.0, &stride, why, cap) != 0 ||
        mo_number(ext, "count", 1, 0, 4294967295.0, &count, why, cap) != 0) {
        return -1;
    }
    if (buffer >= buffer_count) {
        snprintf(why, cap, "buffer: index %.0f out of range (%u buffers)", buffer, buffer_count);
        return -1;
    }
    int mode = mo_enum(ext, "mode", 1, 0, mode_names, 3, why, cap);
    if (mode < 0) {
        return -1;
    }
    int filter = mo_enum(ext, "filter", 0, GLTF_MESHOPT_NONE, filter_names, 4, why, cap);
    if (filter < 0) {
        return -1;
    }
    out->buffer = (uint32_t)buffer;
    out->offset = (uint64_t)offset;
    out->length = (uint64_t)length;
    out->stride = (uint32_t)stride;
    out->count = (uint32_t)count;
    out->mode = (gltf_meshopt_mode)mode;
    out->filter = (gltf_meshopt_filter)filter;
    if (mo_check_stride(out, why, cap) != 0) {
        return -1;
    }
    /* stride <= 256 and count < 2^32: the product fits in 64 bits */
    uint64_t size = (uint64_t)out->count * out->stride;
    if (size > GLTF_MESHOPT_MAX_VIEW_BYTES) {
        snprintf(why, cap, "count x byteStride: %u x %u = %llu bytes, more than the importer's limit of %llu",
                 out->count, out->stride, (unsigned long long)size, (unsigned long long)GLTF_MESHOPT_MAX_VIEW_BYTES);
        return -1;
    }
    if (size != view_length) {
        snprintf(why, cap, "count x byteStride: %u x %u = %llu bytes, but the bufferView's byteLength is %llu",
                 out->count, out->stride, (unsigned long long)size, (unsigned long long)view_length);
        return -1;
    }
    if (view_stride != 0 && view_stride != out->stride) {
        snprintf(why, cap, "byteStride: %u, but the bufferView's byteStride is %u", out->stride, view_stride);
        return -1;
    }
    out->size = size;
    return 0;
}

int gltf_meshopt_decode(const gltf_meshopt *m, const unsigned char *src, unsigned char *dst, char *why, size_t cap)
{
    int r;
    switch (m->mode) {
    case GLTF_MESHOPT_ATTRIBUTES:
        r = meshopt_decodeVertexBuffer(dst, m->count, m->stride, src, (size_t)m->length);
        break;
    case GLTF_MESHOPT_TRIANGLES:
        r = meshopt_decodeIndexBuffer(dst, m->count, m->stride, src, (size_t)m->length);
        break;
    default:
        r = meshopt_decodeIndexSequence(dst, m->count, m->stride, src, (size_t)m->length);
        break;
    }
    if (r != 0) {
        snprintf(why, cap, "the %llu compressed bytes do not decode as %u %s of %u bytes (meshoptimizer: %d)",
                 (unsigned long long)m->length, m->count, mode_names[m->mode], m->stride, r);
        return -1;
    }
    switch (m->filter) {
    case GLTF_MESHOPT_OCTAHEDRAL:
        meshopt_decodeFilterOct(dst, m->count, m->stride);
        break;
    case GLTF_MESHOPT_QUATERNION:
        meshopt_decodeFilterQuat(dst, m->count, m->stride);
        break;
    case GLTF_MESHOPT_EXPONENTIAL:
        meshopt_decodeFilterExp(dst, m->count, m->stride);
        break;
    default:
        break;
    }
    return 0;
}
