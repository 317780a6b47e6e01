/* SPDX-License-Identifier: MIT */
/* The one instance and device a Vulkan test binary (test_vulkan.c,
 * test_render.c) makes for its cases, with VK_LAYER_KHRONOS_validation and a
 * debug messenger calling vk_messages.h's on_message. Include after volk.h
 * (VK_NO_PROTOTYPES) and vk_messages.h. One copy per test binary (static). */
#ifndef SLUICE_TEST_VK_TEST_DEVICE_H
#define SLUICE_TEST_VK_TEST_DEVICE_H

#include <stdio.h>

#include "sluice/vulkan.h"

static VkInstance t_instance;
static VkDebugUtilsMessengerEXT t_messenger;
static VkPhysicalDevice t_physical;
static VkDevice t_device;
static VkQueue t_queue;
static uint32_t t_family;
static struct VolkDeviceTable t_table;
static const char *const validation_layer[] = {"VK_LAYER_KHRONOS_validation"};

/* The loader, an instance named app_name with the validation layer and the
 * messenger (t_instance, t_messenger), and the first physical device
 * (t_physical, queue family 0 in t_family: lavapipe has one family for
 * graphics, compute and transfer). 0, or -1 with the reason printed. */
static int vk_test_instance_open(const char *app_name)
{
    if (volkInitialize() != VK_SUCCESS) {
        fprintf(stderr, "no Vulkan loader\n");
        return -1;
    }
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.pApplicationName = app_name;
    app.apiVersion = VK_API_VERSION_1_3;
    const char *exts[] = {VK_EXT_DEBUG_UTILS_EXTENSION_NAME};
    VkDebugUtilsMessengerCreateInfoEXT mi = {.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
    mi.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                         VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    mi.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                     VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
    mi.pfnUserCallback = on_message;
    VkInstanceCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    ci.pNext = &mi;
    ci.pApplicationInfo = &app;
    ci.enabledLayerCount = 1;
    ci.ppEnabledLayerNames = validation_layer;
    ci.enabledExtensionCount = 1;
    ci.ppEnabledExtensionNames = exts;
    VkResult r = vkCreateInstance(&ci, NULL, &t_instance);
    if (r != VK_SUCCESS) {
        fprintf(stderr, "vkCreateInstance with the validation layer: %d\n", (int)r);
        return -1;
    }
    volkLoadInstanceOnly(t_instance);
    if (vkCreateDebugUtilsMessengerEXT(t_instance, &mi, NULL, &t_messenger) != VK_SUCCESS) {
        return -1;
    }
    uint32_t n = 1;
    r = vkEnumeratePhysicalDevices(t_instance, &n, &t_physical);
    if ((r != VK_SUCCESS && r != VK_INCOMPLETE) || n == 0) {
        fprintf(stderr, "no Vulkan device (is VK_DRIVER_FILES set to lavapipe?)\n");
        return -1;
    }
    t_family = 0;
    return 0;
}

/* The device on t_physical with one queue of t_family (t_device, t_table,
 * t_queue), timeline semaphores on, and the feature structures chained from
 * features (NULL: none) enabled too. 0, or -1. */
static int vk_test_device_open(void *features)
{
    VkPhysicalDeviceTimelineSemaphoreFeatures tf = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES};
    tf.timelineSemaphore = VK_TRUE;
    tf.pNext = features;
    float prio = 1.0f;
    VkDeviceQueueCreateInfo qci = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    qci.queueFamilyIndex = t_family;
    qci.queueCount = 1;
    qci.pQueuePriorities = &prio;
    VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    dci.pNext = &tf;
    dci.queueCreateInfoCount = 1;
    dci.pQueueCreateInfos = &qci;
    if (vkCreateDevice(t_physical, &dci, NULL, &t_device) != VK_SUCCESS) {
        return -1;
    }
    volkLoadDeviceTable(&t_table, t_device);
    t_table.vkGetDeviceQueue(t_device, t_family, 0, &t_queue);
    return 0;
}

/* The shared device as slc_vulkan_adopt takes it: Vulkan 1.3, timeline
 * semaphores; the optional features off (the caller sets what it enabled). */
static inline slc_vulkan_device_info vk_test_device_info(void)
{
    slc_vulkan_device_info d = {0};
    d.instance = t_instance;
    d.physical_device = t_physical;
    d.device = t_device;
    d.queue = t_queue;
    d.queue_family = t_family;
    d.api_version = VK_API_VERSION_1_3;
    d.timeline_semaphore = VK_TRUE;
    return d;
}

/* Destroys what vk_test_instance_open and vk_test_device_open made (any
 * part of it; the device after it is idle). */
static void vk_test_device_close(void)
{
    if (t_device != VK_NULL_HANDLE) {
        t_table.vkDeviceWaitIdle(t_device);
        t_table.vkDestroyDevice(t_device, NULL);
    }
    if (t_messenger != VK_NULL_HANDLE) {
        vkDestroyDebugUtilsMessengerEXT(t_instance, t_messenger, NULL);
    }
    if (t_instance != VK_NULL_HANDLE) {
        vkDestroyInstance(t_instance, NULL);
    }
}

#endif
