/* The device's lost state. A device whose submission reports
 * VK_ERROR_DEVICE_LOST, or whose wait for submitted work fails, can no
 * longer be trusted with work: from then on every execution, prepare and
 * allocation fails at once with DEVICE_UNAVAILABLE (the HAL's status for a
 * driver that is offline), while releasing objects and closing the device
 * still work. */
#include "runtime/device_internal.h"

void vknn_device_mark_lost(vknn_device *device) {
  if (!atomic_exchange(&device->lost, true))
    VKNN_LOG_E(&device->log, "driver", "device lost: every later execution fails");
}

vknn_status vknn_device_check_lost(vknn_device *device, const char *tag) {
  if (!atomic_load(&device->lost)) return VKNN_STATUS_NONE;
  VKNN_LOG_V(&device->log, tag, "device lost: refused");
  return VKNN_STATUS_DEVICE_UNAVAILABLE;
}

vknn_status vknn_device_submit_and_wait(vknn_device *device, const VkCommandBuffer *cmds,
                                        uint32_t count, VkFence fence) {
  vknn_status s = vknn_vk_submit_and_wait(&device->vk, cmds, count, fence);
  if (s == VKNN_STATUS_DEVICE_UNAVAILABLE) vknn_device_mark_lost(device);
  return s;
}
