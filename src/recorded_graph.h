/* The GPU form of one compiled plan (recorded_graph.c). */
#pragma once
#include "compiler.h"
#include "device_internal.h"
#include "host_import.h"
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

/* Where a tensor lives once planned (a copy of the compiler's placement). */
typedef struct vknn_tensor_place {
  vknn_region region;
  uint32_t io_index;
  uint32_t pool_index;
  uint64_t offset;
  uint64_t byte_size;
} vknn_tensor_place;

/* A model input or output bound to memory other than the staging buffer. */
typedef struct vknn_io_binding {
  VkBuffer buffer;
  VkDeviceSize offset;
} vknn_io_binding;

/* The graph recorded again with its inputs and outputs bound elsewhere. */
typedef struct vknn_bound_recording {
  VkDescriptorPool descriptor_pool;
  VkCommandBuffer command_buffer;
} vknn_bound_recording;

/* A model pool whose constants the dispatches read in place: imported, or
 * copied once into device memory at the same offsets when the import fails. */
typedef struct vknn_pool_binding {
  bool used;
  vknn_host_import import;
  vknn_vk_buffer copy;
} vknn_pool_binding;

typedef struct vknn_recorded_graph {
  vknn_device *device;
  vknn_vk_buffer constants;
  vknn_pool_binding *pools; /* one per model pool */
  uint32_t pool_count;
  vknn_vk_buffer arena;
  vknn_vk_buffer staging; /* host-visible: inputs, then outputs */
  VkDescriptorPool descriptor_pool;
  VkCommandPool command_pool;
  VkCommandBuffer command_buffer;
  VkFence fence;
  VkQueryPool timestamps;   /* VK_NULL_HANDLE when the queue has none */
  uint32_t timestamp_count; /* 2 (start, end), or dispatches + 1 when profiled */
  vknn_prepared_model_info info;
  uint64_t *ticks;     /* timestamp_count query results */
  double *dispatch_ms; /* last execution, when profiled */
  bool dispatch_ms_valid;
  vknn_io_slot *inputs;
  uint32_t input_count;
  vknn_io_slot *outputs;
  uint32_t output_count;
  /* Kept to record again with other input and output bindings. */
  vknn_tensor_place *places;
  vknn_dispatch_list dispatches;
  uint64_t input_region_size;
  struct vknn_zero_copy_cache *zero_copy; /* zero_copy.c; NULL until used */
} vknn_recorded_graph;

/* How plans for this device are laid out: constants stay in their model
 * pools where the device reads host memory as its own. */
vknn_plan_target vknn_recorded_graph_target(const vknn_device *device);

/* Allocates the buffers of a plan, uploads its constants and records its
 * command buffer. */
vknn_status vknn_recorded_graph_create(vknn_device *device, const vknn_plan *plan,
                                       vknn_recorded_graph **out);
void vknn_recorded_graph_destroy(vknn_recorded_graph *rg);

/* Records the graph's dispatches again with inputs[i] / outputs[i] bound in
 * place of the staging buffer (zero copy). */
vknn_status vknn_recorded_graph_record_bound(const vknn_recorded_graph *rg,
                                             const vknn_io_binding *inputs,
                                             const vknn_io_binding *outputs,
                                             vknn_bound_recording *out);
void vknn_bound_recording_destroy(const vknn_recorded_graph *rg, vknn_bound_recording *b);

/* Reads the timestamps of the last submission: device time in microseconds
 * (UINT64_MAX when unavailable), and per-dispatch times when profiled. */
uint64_t vknn_recorded_graph_read_timestamps(vknn_recorded_graph *rg);
