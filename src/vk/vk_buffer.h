/* A Vulkan buffer with its own memory, optionally host-mapped. */
#pragma once
#include "vk/vk_context.h"

typedef struct vknn_vk_buffer {
  VkBuffer buffer;
  VkDeviceMemory memory;
  VkDeviceSize size;
  void *mapped; /* non-NULL for host-visible buffers */
} vknn_vk_buffer;

typedef enum vknn_buffer_kind {
  VKNN_BUFFER_DEVICE_LOCAL, /* GPU-only storage: arena, constants */
  VKNN_BUFFER_HOST_VISIBLE, /* mapped, coherent: request staging, uploads */
  VKNN_BUFFER_MAPPED_DEVICE, /* mapped, coherent, device-local where the device has such
                                memory: driver-managed buffers (memory domains) */
} vknn_buffer_kind;

/* A buffer's size for a region that may be empty: Vulkan buffers hold at
 * least one word. */
static inline VkDeviceSize vknn_vk_buffer_size_for(uint64_t bytes) { return bytes ? bytes : 4; }

vknn_status vknn_vk_buffer_create(vknn_vk *vk, VkDeviceSize size, vknn_buffer_kind kind,
                                  vknn_vk_buffer *out_buffer);
void vknn_vk_buffer_destroy(vknn_vk *vk, vknn_vk_buffer *buffer);
