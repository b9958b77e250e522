/* Request arguments that name driver-managed buffers (buffer_arguments.c). */
#pragma once
#include "memory/memory_pool.h"

/* A request whose arguments in driver buffers carry what the buffers hold:
 * inputs their value's shape and size, outputs the room they offer. */
typedef struct vknn_resolved_request {
  vknn_request request;
  vknn_request_argument *arguments; /* owned: inputs, then outputs; NULL when unchanged */
  uint32_t (*dimensions)[VKNN_MAX_RANK];
} vknn_resolved_request;

/* pools[i] maps request->pools[i]. GENERAL_FAILURE when an input's buffer was
 * never written. */
vknn_status vknn_resolve_buffer_arguments(const vknn_logger *log, const vknn_request *request,
                                          const vknn_mapped_pool *pools,
                                          vknn_resolved_request *out);
void vknn_resolved_request_free(vknn_resolved_request *resolved);
