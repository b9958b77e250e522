/* The prepared model object (see prepared_model.c). */
#pragma once
#include <pthread.h>

#include "device_internal.h"
#include "memory_pool.h"
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
  vknn_priority priority;
  pthread_mutex_t lock; /* one execution at a time uses the staging buffer */
  /* Executions queued or running on the executor; release waits for 0. */
  pthread_mutex_t pending_lock;
  pthread_cond_t pending_done;
  uint32_t pending;
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

/* The steps every execution path shares (execution.c). validate checks the
 * arguments and the request; run executes with the request's pools already
 * mapped (pools[i] for request->pools[i]); run_mapping maps them first. */
vknn_status vknn_execution_validate(vknn_prepared_model *pm, const vknn_request *request,
                                    vknn_measure_timing measure, const vknn_output_shape *shapes,
                                    uint32_t shape_count);
vknn_status vknn_execution_run(vknn_prepared_model *pm, const vknn_request *request,
                               const vknn_mapped_pool *pools, vknn_measure_timing measure,
                               const vknn_deadline *deadline, vknn_output_shape *out_shapes,
                               uint32_t shape_count, vknn_timing *out_timing);
vknn_status vknn_execution_run_mapping(vknn_prepared_model *pm, const vknn_request *request,
                                       vknn_measure_timing measure, const vknn_deadline *deadline,
                                       vknn_output_shape *out_shapes, uint32_t shape_count,
                                       vknn_timing *out_timing);

/* Counts an execution that outlives its call (execution_async.c). */
void vknn_prepared_model_retain_pending(vknn_prepared_model *pm);
void vknn_prepared_model_release_pending(vknn_prepared_model *pm);

/* Checks a request against the prepared model: argument counts, pools,
 * locations inside their pools, dimensions compatible with the model. */
vknn_status vknn_validate_request(const vknn_prepared_model *pm, const vknn_request *request);
