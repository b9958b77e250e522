/* Zero copy of request memory (zero_copy.c): the recorded graph's dispatches
 * bound straight to the caller's shared memory, imported as Vulkan memory
 * with VK_EXT_external_memory_host. */
#pragma once
#include "memory/memory_pool.h"
#include "runtime/graph_instance.h"

/* The recording that runs this request on its own memory, recorded and
 * imported the first time a memory layout occurs (on this instance) and
 * reused after; NULL (no error) when the request must go through the staging
 * buffer: the device cannot import, a pool is a driver buffer or read-only,
 * an argument's offset misses the storage-buffer alignment, or an output
 * overlaps another argument. The caller holds the instance. */
vknn_status vknn_zero_copy_select(vknn_graph_instance *inst, const vknn_request *request,
                                  const vknn_recording **out_recording);
/* Frees the cached recordings and imports of an instance. */
void vknn_zero_copy_release(vknn_graph_instance *inst);
/* Frees the entries unused for idle_ns or more (their imports keep the
 * caller's memory mapped); returns how many. */
uint32_t vknn_zero_copy_trim(vknn_graph_instance *inst, uint64_t now_ns, uint64_t idle_ns);
