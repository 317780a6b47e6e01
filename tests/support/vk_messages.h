/* SPDX-License-Identifier: MIT */
/* The validation messages a Vulkan test counts (test_vulkan.c, test_stream_vulkan.c,
 * test_render.c): the debug messenger's callback, on_message, counts every
 * WARNING or ERROR message in messages (the current case; a case asserts it
 * stays 0) and messages_total (the run), and prints it. A refused host
 * allocation makes the loader and the layer say so (the layer reports every
 * VK_ERROR_OUT_OF_HOST_MEMORY it sees returned); while a case refuses
 * memory on purpose (oom_expected) those messages are expected and counted
 * apart, in expected_oom. Every other message fails the case. One copy per
 * test binary (static). */
#ifndef SLUICE_TEST_VK_MESSAGES_H
#define SLUICE_TEST_VK_MESSAGES_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <vulkan/vulkan.h>

static atomic_int messages;       /* in the current case */
static atomic_int messages_total; /* over the run */
static atomic_int expected_oom;   /* OOM diagnostics while a case refuses driver memory on purpose */
static atomic_bool oom_expected;

static bool is_oom_report(const char *m)
{
    return strstr(m, "OUT_OF_HOST_MEMORY") != NULL || strstr(m, "Out of memory") != NULL ||
           strstr(m, "Failed to allocate") != NULL;
}

static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                 VkDebugUtilsMessageTypeFlagsEXT types,
                                                 const VkDebugUtilsMessengerCallbackDataEXT *data, void *user)
{
    (void)types;
    (void)user;
    if (severity < VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT) {
        return VK_FALSE;
    }
    if (atomic_load(&oom_expected) && is_oom_report(data->pMessage)) {
        atomic_fetch_add(&expected_oom, 1);
        return VK_FALSE;
    }
    atomic_fetch_add(&messages, 1);
    atomic_fetch_add(&messages_total, 1);
    fprintf(stderr, "validation: %s\n", data->pMessage);
    return VK_FALSE;
}

#endif
