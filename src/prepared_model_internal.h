/* The prepared model object (see prepared_model.c). */
#pragma once
#include <pthread.h>

#include "device_internal.h"
#include "vk_buffer.h"
#include "vknn/prepared_model.h"

/* A model input or output as the request sees it. */
typedef struct vknn_io_slot {
  int32_t type;
  uint32_t rank;
  uint32_t dims[VKNN_MAX_RANK];  /* as inferred at prepare */
  uint32_t declared_rank;        /* as the model declared it */
  uint32_t declared_dims[VKNN_MAX_RANK];
  uint64_t byte_size;            /* exact bytes of the value */
  uint64_t offset;               /* in the staging buffer */
  bool bound;                    /* read or written by some dispatch */
} vknn_io_slot;

struct vknn_prepared_model {
  vknn_device *device;
  pthread_mutex_t lock; /* one execution at a time uses the staging buffer */
  vknn_vk_buffer constants;
  vknn_vk_buffer arena;
  vknn_vk_buffer staging; /* host-visible: inputs, then outputs */
  VkDescriptorPool descriptor_pool;
  VkCommandPool command_pool;
  VkCommandBuffer command_buffer;
  VkFence fence;
  VkQueryPool timestamps; /* VK_NULL_HANDLE when the queue has none */
  uint32_t timestamp_count; /* 2 (start, end), or dispatches + 1 when profiled */
  vknn_prepared_model_info info;
  vknn_shader_id *dispatch_kernels;
  uint64_t *ticks;     /* timestamp_count query results */
  double *dispatch_ms; /* last execution, when profiled */
  bool dispatch_ms_valid;
  vknn_io_slot *inputs;
  uint32_t input_count;
  vknn_io_slot *outputs;
  uint32_t output_count;
};

/* Reads the timestamps of the last submission: device time in microseconds
 * (UINT64_MAX when unavailable), and per-dispatch times when profiled. */
uint64_t vknn_prepared_model_read_timestamps(vknn_prepared_model *pm);

/* Checks a request against the prepared model: argument counts, pools,
 * locations inside their pools, dimensions compatible with the model. */
vknn_status vknn_validate_request(const vknn_prepared_model *pm, const vknn_request *request);
