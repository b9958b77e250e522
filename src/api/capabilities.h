/* The stored capability figures (capabilities.c), by Vulkan vendor and
 * device id: the measured row of that device, or the default row. */
#pragma once
#include "vknn/types.h"

void vknn_capabilities_for(uint32_t vendor_id, uint32_t device_id,
                           vknn_capabilities *out_capabilities);
