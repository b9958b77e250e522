/* A deep copy of a request, for executions that outlive the call that
 * started them. The memory handles (file descriptors) are not duplicated:
 * the HAL keeps them valid until the execution completes. */
#pragma once
#include "vknn/types.h"

typedef struct vknn_request_copy {
  vknn_request request;
  void *storage; /* one allocation holding every array */
} vknn_request_copy;

vknn_status vknn_request_copy_make(const vknn_request *request, vknn_request_copy *out);
void vknn_request_copy_free(vknn_request_copy *copy);
