/* vknn-info's look at the Vulkan device the driver opens: the features and
 * limits that decide what the driver can run and how. */
#pragma once
#include "vk/vk_context.h"

/* Prints the device's subgroups, arithmetic and storage widths, packed
 * integer dot products, external memory and fence handle types, and limits. */
void vknn_info_print_vulkan(const vknn_vk *vk);
