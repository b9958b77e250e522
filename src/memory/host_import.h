/* A pool of shared memory imported as Vulkan memory with
 * VK_EXT_external_memory_host (host_import.c): shaders bound to its buffer
 * read and write the pool's pages directly. */
#pragma once
#include "memory/memory_pool.h"
#include "vk/vk_context.h"

typedef struct vknn_host_import {
  vknn_mapped_pool mapping; /* ours: the import needs the pointer to stay valid */
  VkDeviceMemory memory;
  VkBuffer buffer; /* byte 0 is the first byte of the mapping's first page */
} vknn_host_import;

typedef enum vknn_import_mapping {
  VKNN_IMPORT_SHARED,  /* writes reach the caller (request pools) */
  VKNN_IMPORT_PRIVATE, /* read-only use of any pool, even a read-only one (constants) */
} vknn_import_mapping;

/* Maps the pool and imports the mapping; counts a host import on success. */
vknn_status vknn_host_import_create(vknn_vk *vk, const vknn_memory *memory,
                                    vknn_import_mapping mapping, vknn_host_import *out);
void vknn_host_import_destroy(vknn_vk *vk, vknn_host_import *import);

/* Where the pool's first byte lies in the import's buffer. */
static inline VkDeviceSize vknn_host_import_start(const vknn_host_import *import) {
  return (VkDeviceSize)(import->mapping.data - (uint8_t *)import->mapping.mapping);
}
