/* The GPU form of one compiled plan (recorded_graph.c). */
#pragma once
#include "compiler.h"
#include "device_internal.h"
#include "vk_buffer.h"
#include "vknn/prepared_model.h"

/* A model input or output as one recorded graph holds it. */
typedef struct vknn_io_slot {
  uint32_t rank;
  uint32_t dims[VKNN_MAX_RANK];
  uint64_t byte_size; /* exact bytes of the value */
  uint64_t offset;    /* in the staging buffer */
  bool bound;         /* read or written by some dispatch */
} vknn_io_slot;

typedef struct vknn_recorded_graph {
  vknn_device *device;
  vknn_vk_buffer constants;
  vknn_vk_buffer arena;
  vknn_vk_buffer staging; /* host-visible: inputs, then outputs */
  VkDescriptorPool descriptor_pool;
  VkCommandPool command_pool;
  VkCommandBuffer command_buffer;
  VkFence fence;
  VkQueryPool timestamps;   /* VK_NULL_HANDLE when the queue has none */
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
} vknn_recorded_graph;

/* Allocates the buffers of a plan, uploads its constants and records its
 * command buffer. */
vknn_status vknn_recorded_graph_create(vknn_device *device, const vknn_plan *plan,
                                       vknn_recorded_graph **out);
void vknn_recorded_graph_destroy(vknn_recorded_graph *rg);

/* Reads the timestamps of the last submission: device time in microseconds
 * (UINT64_MAX when unavailable), and per-dispatch times when profiled. */
uint64_t vknn_recorded_graph_read_timestamps(vknn_recorded_graph *rg);
