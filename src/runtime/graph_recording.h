/* Recording a compiled graph's dispatches into command buffers
 * (graph_recording.c). A recording is split into segments of a few
 * dispatches each: an execution without a deadline submits them all as one
 * batch; one with a deadline submits them one by one and stops between two
 * when the deadline has passed. */
#pragma once
#include "runtime/recorded_graph.h"

/* Dispatches per segment (command buffer). */
#define VKNN_SEGMENT_DISPATCHES 8

typedef struct vknn_recording {
  VkDescriptorPool descriptor_pool;
  VkBufferView *views; /* of the tensors kernels read as texels */
  uint32_t view_count;
  VkCommandBuffer *segments;
  uint32_t segment_count;
  /* [timing begin, segments..., timing end], the batch of an execution that
   * measures its device time: the ends are the instance's timing command
   * buffers (VK_NULL_HANDLE when it has none); segments points inside. */
  VkCommandBuffer *timed_batch;
  uint32_t barriers; /* compute-to-compute barriers recorded */
} vknn_recording;

/* What a recording binds and records with: the graph, and one graph
 * instance's own arena, staging buffer, status word, command pool and
 * timestamp queries. */
typedef struct vknn_recording_resources {
  const vknn_recorded_graph *graph;
  VkBuffer arena;
  VkBuffer staging;
  /* Device-local copies of the inputs and outputs, laid out as the staging
   * buffer, which the kernels bind instead of the request's memory: the
   * recording copies the inputs in first and the outputs out last.
   * VK_NULL_HANDLE when the kernels bind the request's memory. */
  VkBuffer io;
  /* The status word of the kernels that check run-time values (bound at
   * VKNN_STATUS_BINDING, zeroed at the start of the recording);
   * VK_NULL_HANDLE when no dispatch checks. */
  VkBuffer status;
  VkCommandPool command_pool;
  VkQueryPool timestamps; /* VK_NULL_HANDLE when the queue has none */
  /* The instance's begin and end timestamps, recorded apart so that only
   * executions measuring their time pay for them (writing a timestamp
   * flushes lavapipe's pipeline: ~75 us of a one-dispatch round trip);
   * NULL when the queue has no timestamps or every dispatch is profiled
   * (the timestamps are then inside the segments). */
  const VkCommandBuffer *timing;
} vknn_recording_resources;

/* Records the graph for one instance's arena and staging buffer. inputs and
 * outputs (both NULL, or one binding per model input / output) bind the
 * model's inputs and outputs elsewhere than the staging buffer (zero copy). */
vknn_status vknn_recording_create(const vknn_recording_resources *res,
                                  const vknn_io_binding *inputs, const vknn_io_binding *outputs,
                                  vknn_recording *out);
void vknn_recording_destroy(const vknn_recording_resources *res, vknn_recording *rec);
