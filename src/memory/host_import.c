#include "memory/host_import.h"

#include <string.h>

static vknn_status map_pool(const vknn_logger *log, const vknn_memory *memory,
                            vknn_import_mapping mapping, vknn_mapped_pool *out) {
  return mapping == VKNN_IMPORT_PRIVATE ? vknn_memory_map_private(log, memory, out)
                                        : vknn_memory_map(log, memory, out);
}

/* The buffer over the whole mapping, in a memory type the host pointer can
 * be imported into. */
static vknn_status create_buffer(vknn_vk *vk, vknn_host_import *out, VkDeviceSize size,
                                 uint32_t *out_type) {
  VkMemoryHostPointerPropertiesEXT props = {
      .sType = VK_STRUCTURE_TYPE_MEMORY_HOST_POINTER_PROPERTIES_EXT};
  VkResult r = vk->get_host_pointer_properties(
      vk->device, VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT, out->mapping.mapping,
      &props);
  VkExternalMemoryBufferCreateInfo external = {
      .sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO,
      .handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT};
  VkBufferCreateInfo info = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                             .pNext = &external,
                             .size = size,
                             /* Kernels bind it, or (io_copies) copies read
                              * and write it. */
                             .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                      VK_BUFFER_USAGE_STORAGE_TEXEL_BUFFER_BIT |
                                      VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                      VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                             .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
  if (r == VK_SUCCESS) r = vkCreateBuffer(vk->device, &info, NULL, &out->buffer);
  if (r != VK_SUCCESS) return vknn_vk_status(r);
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(vk->device, out->buffer, &req);
  *out_type = vknn_vk_find_memory_type(vk, req.memoryTypeBits & props.memoryTypeBits,
                                       VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, 0);
  return *out_type == UINT32_MAX ? VKNN_STATUS_GENERAL_FAILURE : VKNN_STATUS_NONE;
}

vknn_status vknn_host_import_create(vknn_vk *vk, const vknn_memory *memory,
                                    vknn_import_mapping mapping, vknn_host_import *out) {
  memset(out, 0, sizeof(*out));
  if (vk->host_import_alignment == 0) return VKNN_STATUS_GENERAL_FAILURE;
  vknn_status s = map_pool(vk->log, memory, mapping, &out->mapping);
  if (s != VKNN_STATUS_NONE) return s;
  VkDeviceSize align = vk->host_import_alignment;
  VkDeviceSize size = (out->mapping.mapping_size + align - 1) / align * align;
  uint32_t type = UINT32_MAX;
  s = create_buffer(vk, out, size, &type);
  if (s != VKNN_STATUS_NONE) return s;
  VkImportMemoryHostPointerInfoEXT import = {
      .sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT,
      .handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT,
      .pHostPointer = out->mapping.mapping};
  VkMemoryAllocateInfo alloc = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                                .pNext = &import,
                                .allocationSize = size,
                                .memoryTypeIndex = type};
  VkResult r = vknn_vk_injected_fault();
  if (r == VK_SUCCESS) r = vkAllocateMemory(vk->device, &alloc, NULL, &out->memory);
  if (r == VK_SUCCESS) r = vkBindBufferMemory(vk->device, out->buffer, out->memory, 0);
  if (r == VK_SUCCESS) atomic_fetch_add(&vk->counters.host_imports, 1);
  return vknn_vk_status(r);
}

void vknn_host_import_destroy(vknn_vk *vk, vknn_host_import *import) {
  if (import->buffer != VK_NULL_HANDLE) vkDestroyBuffer(vk->device, import->buffer, NULL);
  if (import->memory != VK_NULL_HANDLE) vkFreeMemory(vk->device, import->memory, NULL);
  vknn_memory_unmap(&import->mapping);
  memset(import, 0, sizeof(*import));
}
