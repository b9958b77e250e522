/* One set of the per-execution resources of a recorded graph
 * (graph_instance.c): its own arena of intermediate tensors, staging buffer,
 * recorded command buffers, fence and timestamps. An execution holds one
 * instance for its whole run, so executions of one prepared model on
 * different instances run at once. The recorded graph keeps them in a pool
 * (recorded_graph.c). */
#pragma once
#include "runtime/graph_recording.h"
#include "runtime/recorded_graph.h"

struct vknn_graph_instance {
  vknn_recorded_graph *graph;
  vknn_vk_buffer arena;
  vknn_vk_buffer staging; /* host-visible: inputs, then outputs */
  /* Device-local, laid out as the staging buffer: the inputs and outputs
   * the kernels use when the device copies them (vknn_vk.io_copies). */
  vknn_vk_buffer io;
  /* Host-visible status word of the kernels that check run-time values
   * (docs/architecture.md, "Run-time checks"); none when no dispatch checks. */
  vknn_vk_buffer status;
  VkCommandPool command_pool;
  VkFence fence;
  VkQueryPool timestamps; /* VK_NULL_HANDLE when the queue has none */
  uint64_t *ticks;        /* the graph's timestamp_count query results */
  /* Begin and end timestamps around a timed execution's segments (see
   * vknn_recording_resources.timing); VK_NULL_HANDLE when not used. */
  VkCommandBuffer timing[2];
  vknn_recording recording; /* inputs and outputs in the staging buffer */
  struct vknn_zero_copy_cache *zero_copy; /* zero_copy.c; NULL until used */
  /* A submission failed: the fence may be pending or signaled. The pool
   * discards the instance instead of taking it back. */
  bool unusable;
  /* The pool's bookkeeping, under the graph's instance_lock. */
  bool busy;
  uint64_t idle_since_ns;
  vknn_graph_instance *next;
};

/* Allocates the buffers and command objects and records the graph. */
vknn_status vknn_graph_instance_create(vknn_recorded_graph *rg, vknn_graph_instance **out);
void vknn_graph_instance_destroy(vknn_graph_instance *inst);

/* The instance's resources, as recordings take them. */
vknn_recording_resources vknn_graph_instance_resources(const vknn_graph_instance *inst);

/* Runs a recording of this instance and waits for it; timed: with the
 * begin and end timestamps around it (vknn_graph_instance_read_timestamps).
 * With a deadline the segments go one at a time, and none starts once the
 * deadline has passed: MISSED_DEADLINE_TRANSIENT. A failed submission or
 * wait marks the instance unusable (and, when the device is lost, the device
 * lost). */
vknn_status vknn_graph_instance_submit(vknn_graph_instance *inst, const vknn_recording *rec,
                                       const vknn_deadline *deadline, bool timed);

/* After a submission's fence: INVALID_ARGUMENT when a kernel found a value
 * given at run time out of range, the status word being non-zero, logged
 * naming the operation (its index, in its subgraph where origin, the
 * segment's, is not NULL; and its type) and the rule it broke; NONE
 * otherwise. */
vknn_status vknn_graph_instance_check_status(const vknn_graph_instance *inst,
                                             const vknn_segment_origin *origin);

/* After a submission's fence: the rows a kernel wrote into count word slot
 * (1.., vknn_io_slot.count_slot) of the status buffer; 0 without one. */
uint32_t vknn_graph_instance_read_count(const vknn_graph_instance *inst, uint32_t slot);

/* Device time of the last submission in microseconds, when it was timed or
 * the graph is profiled (UINT64_MAX otherwise, or when unavailable);
 * per-dispatch times go to the graph when profiled. */
/* VKNN_TRACE: the spans of the dispatches whose timestamps were read last,
 * placed from submit_ns (host time of the submission). */
void vknn_graph_instance_trace_dispatches(const vknn_graph_instance *inst, uint64_t submit_ns);
uint64_t vknn_graph_instance_read_timestamps(vknn_graph_instance *inst);
