/* SPDX-License-Identifier: MIT */
/* sluice: the Vulkan backend's messages — result names, the logger, and the
 * explanation of a failed Vulkan call (see vulkan_internal.h). Every other
 * file of the backend calls into this one; it calls none of them. */
#include "vulkan_internal.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

const char *slc_vulkan_result_name(VkResult r)
{
    switch (r) {
#define R_(x) \
    case x:   \
        return #x;
        R_(VK_SUCCESS)
        R_(VK_NOT_READY)
        R_(VK_TIMEOUT)
        R_(VK_EVENT_SET)
        R_(VK_EVENT_RESET)
        R_(VK_INCOMPLETE)
        R_(VK_ERROR_OUT_OF_HOST_MEMORY)
        R_(VK_ERROR_OUT_OF_DEVICE_MEMORY)
        R_(VK_ERROR_INITIALIZATION_FAILED)
        R_(VK_ERROR_DEVICE_LOST)
        R_(VK_ERROR_MEMORY_MAP_FAILED)
        R_(VK_ERROR_LAYER_NOT_PRESENT)
        R_(VK_ERROR_EXTENSION_NOT_PRESENT)
        R_(VK_ERROR_FEATURE_NOT_PRESENT)
        R_(VK_ERROR_INCOMPATIBLE_DRIVER)
        R_(VK_ERROR_TOO_MANY_OBJECTS)
        R_(VK_ERROR_FORMAT_NOT_SUPPORTED)
        R_(VK_ERROR_FRAGMENTED_POOL)
        R_(VK_ERROR_UNKNOWN)
        R_(VK_ERROR_OUT_OF_POOL_MEMORY)
        R_(VK_ERROR_INVALID_EXTERNAL_HANDLE)
        R_(VK_ERROR_FRAGMENTATION)
        R_(VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS)
        R_(VK_ERROR_VALIDATION_FAILED_EXT)
#undef R_
    default:
        return "VkResult (unknown)";
    }
}

/* The name in parentheses: vulkan_internal.h may define slc__vk_log as a
 * macro for the static analyzer. */
static slc_status vlog_to(const slc_logger *log, slc_log_level level, slc_status status, const char *fmt, va_list ap)
{
    if (log->fn != NULL) {
        char msg[512];
        vsnprintf(msg, sizeof msg, fmt, ap);
        log->fn(log->user, level, status, msg);
    }
    return status;
}

static slc_status log_to(const slc_logger *log, slc_log_level level, slc_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static slc_status log_to(const slc_logger *log, slc_log_level level, slc_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    slc_status s = vlog_to(log, level, status, fmt, ap);
    va_end(ap);
    return s;
}

slc_status(slc__vk_log)(const slc_vulkan *vk, slc_log_level level, slc_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    slc_status s = vlog_to(&vk->log, level, status, fmt, ap);
    va_end(ap);
    return s;
}

vk_refusals slc__vk_refusals(slc_vulkan *vk)
{
    slc_heap_stats s;
    slc_heap_get_stats(vk->heap, &s);
    vk_refusals r = {s.refused_budget, s.refused_capacity};
    return r;
}

/* The explanation, through log, each message starting with who ("vulkan",
 * "render"). */
slc_status slc__vk_fail_to(slc_vulkan *vk, const slc_logger *log, const char *who, const char *call, VkResult r,
                           vk_refusals before)
{
    const char *rn = slc_vulkan_result_name(r);
    if (r == VK_ERROR_OUT_OF_HOST_MEMORY) {
        slc_heap_stats s;
        slc_heap_get_stats(vk->heap, &s);
        if (s.refused_budget > before.budget && vk->budgets != NULL) {
            slc_budget_stats b;
            slc_budgets_get(vk->budgets, s.last_budget_refusal.refused_by, &b);
            return log_to(log, SLC_LOG_ERROR, SLC_E_BUDGET_REFUSED,
                          "%s: %s failed (%s): the %s budget refused %llu bytes of driver host memory "
                          "(%llu in use of its limit %llu)",
                          who, call, rn, b.name, (unsigned long long)s.last_budget_refusal.requested,
                          (unsigned long long)s.last_budget_refusal.current,
                          (unsigned long long)s.last_budget_refusal.limit);
        }
        if (s.refused_capacity > before.capacity) {
            return log_to(log, SLC_LOG_ERROR, SLC_E_CAPACITY,
                          "%s: %s failed (%s): the driver heap of %zu bytes has no room for %zu more "
                          "(%zu in use)",
                          who, call, rn, s.capacity, s.last_refused, s.used);
        }
    }
    if (r == VK_ERROR_OUT_OF_DEVICE_MEMORY) {
        return log_to(log, SLC_LOG_ERROR, SLC_E_DEVICE_MEMORY, "%s: %s failed (%s)", who, call, rn);
    }
    return log_to(log, SLC_LOG_ERROR, SLC_E_DEVICE, "%s: %s failed (%s)", who, call, rn);
}

slc_status slc__vk_fail(slc_vulkan *vk, const char *call, VkResult r, vk_refusals before)
{
    return slc__vk_fail_to(vk, &vk->log, "vulkan", call, r, before);
}

/* --- VK_EXT_debug_utils: names and labels (vulkan_internal.h) ------------- */

void slc__vk_name(slc_vulkan *vk, VkObjectType type, uint64_t handle, const char *fmt, ...)
{
    if (!vk->debug_utils || vk->vki.SetDebugUtilsObjectNameEXT == NULL || handle == 0) {
        return;
    }
    char name[64];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name, sizeof name, fmt, ap); /* NOLINT(clang-analyzer-valist.Uninitialized): va_start is just above */
    va_end(ap);
    VkDebugUtilsObjectNameInfoEXT ni = {.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT};
    ni.objectType = type;
    ni.objectHandle = handle;
    ni.pObjectName = name;
    if (vk->vki.SetDebugUtilsObjectNameEXT(vk->device, &ni) == VK_SUCCESS) {
        vk->debug_names++;
    }
}

void slc__vk_label_begin(slc_vulkan *vk, VkCommandBuffer cmd, const char *name)
{
    if (!vk->debug_utils || vk->vki.CmdBeginDebugUtilsLabelEXT == NULL) {
        return;
    }
    VkDebugUtilsLabelEXT label = {.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_LABEL_EXT};
    label.pLabelName = name;
    vk->vki.CmdBeginDebugUtilsLabelEXT(cmd, &label);
    vk->debug_labels++;
}

void slc__vk_label_end(slc_vulkan *vk, VkCommandBuffer cmd)
{
    if (vk->debug_utils && vk->vki.CmdEndDebugUtilsLabelEXT != NULL) {
        vk->vki.CmdEndDebugUtilsLabelEXT(cmd);
    }
}
