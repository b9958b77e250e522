/* Zero copy of request memory (zero_copy.c): the recorded graph's dispatches
 * bound straight to the caller's shared memory, imported as Vulkan memory
 * with VK_EXT_external_memory_host. */
#pragma once
#include "memory_pool.h"
#include "recorded_graph.h"

/* The command buffer that runs this request on its own memory, recorded and
 * imported the first time a memory layout occurs and reused after; NULL (no
 * error) when the request must go through the staging buffer: the device
 * cannot import, a pool is a driver buffer or read-only, an argument's offset
 * misses the storage-buffer alignment, or an output overlaps another
 * argument. The caller holds the prepared model's lock. */
vknn_status vknn_zero_copy_select(vknn_recorded_graph *rg, const vknn_request *request,
                                  VkCommandBuffer *out_cmd);
/* Frees the cached recordings and imports of a recorded graph. */
void vknn_zero_copy_release(vknn_recorded_graph *rg);
