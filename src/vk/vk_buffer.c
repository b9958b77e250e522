#include "vk/vk_buffer.h"

#include <string.h>

/* A size no heap of the device can ever hold: retrying cannot help. */
static bool beyond_every_heap(const vknn_vk *vk, VkDeviceSize size) {
  for (uint32_t i = 0; i < vk->memory_properties.memoryHeapCount; ++i)
    if (size <= vk->memory_properties.memoryHeaps[i].size) return false;
  return true;
}

vknn_status vknn_vk_buffer_create(vknn_vk *vk, VkDeviceSize size, vknn_buffer_kind kind,
                                  vknn_vk_buffer *out_buffer) {
  memset(out_buffer, 0, sizeof(*out_buffer));
  if (beyond_every_heap(vk, size)) {
    VKNN_LOG_E(vk->log, "vulkan", "a buffer of %llu bytes exceeds every memory heap",
               (unsigned long long)size);
    return VKNN_STATUS_RESOURCE_EXHAUSTED_PERSISTENT;
  }
  out_buffer->size = size;
  VkBufferCreateInfo info = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                             .size = size,
                             .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                      VK_BUFFER_USAGE_STORAGE_TEXEL_BUFFER_BIT |
                                      VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                      VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                             .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
  VkResult r = vkCreateBuffer(vk->device, &info, NULL, &out_buffer->buffer);
  if (r != VK_SUCCESS) return vknn_vk_status(r);
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(vk->device, out_buffer->buffer, &req);
  bool mapped = kind != VKNN_BUFFER_DEVICE_LOCAL;
  VkMemoryPropertyFlags required =
      mapped ? VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT : 0;
  VkMemoryPropertyFlags preferred = kind == VKNN_BUFFER_HOST_VISIBLE
                                        ? VK_MEMORY_PROPERTY_HOST_CACHED_BIT
                                        : VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
  uint32_t type = vknn_vk_find_memory_type(vk, req.memoryTypeBits, required, preferred);
  if (type == UINT32_MAX) {
    VKNN_LOG_E(vk->log, "vulkan", "no memory type for a %s buffer",
               mapped ? "host-visible" : "device-local");
    vknn_vk_buffer_destroy(vk, out_buffer);
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  VkMemoryAllocateInfo alloc = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                                .allocationSize = req.size,
                                .memoryTypeIndex = type};
  atomic_fetch_add(&vk->counters.memory_allocations, 1);
  r = vknn_vk_injected_fault();
  if (r == VK_SUCCESS) r = vkAllocateMemory(vk->device, &alloc, NULL, &out_buffer->memory);
  if (r == VK_SUCCESS) r = vkBindBufferMemory(vk->device, out_buffer->buffer, out_buffer->memory, 0);
  if (r == VK_SUCCESS && mapped)
    r = vkMapMemory(vk->device, out_buffer->memory, 0, VK_WHOLE_SIZE, 0, &out_buffer->mapped);
  if (r != VK_SUCCESS) {
    VKNN_LOG_E(vk->log, "vulkan", "allocating %llu bytes failed (%d)",
               (unsigned long long)size, r);
    vknn_vk_buffer_destroy(vk, out_buffer);
    return vknn_vk_status(r);
  }
  return VKNN_STATUS_NONE;
}

void vknn_vk_buffer_destroy(vknn_vk *vk, vknn_vk_buffer *buffer) {
  if (buffer->buffer != VK_NULL_HANDLE) vkDestroyBuffer(vk->device, buffer->buffer, NULL);
  if (buffer->memory != VK_NULL_HANDLE) vkFreeMemory(vk->device, buffer->memory, NULL);
  memset(buffer, 0, sizeof(*buffer));
}
