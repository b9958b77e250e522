/* The GPU form of one compiled plan (recorded_graph.c). */
#pragma once
#include "compiler/compiler.h"
#include "runtime/device_internal.h"
#include "memory/host_import.h"
#include "vk/vk_buffer.h"
#include "vknn/prepared_model.h"

/* A model input or output as one recorded graph holds it. */
typedef struct vknn_io_slot {
  uint32_t rank;
  uint32_t dims[VKNN_MAX_RANK];
  uint64_t byte_size; /* exact bytes of the value */
  uint64_t offset;    /* in the staging buffer */
  bool bound;         /* read or written by some dispatch */
  /* An output whose rows the data decide: its count word in the status
   * buffer (0: none), the model's first dimension (0: unknown) and the bytes
   * of one row; dims and byte_size are then the most it can be. */
  uint32_t count_slot;
  uint32_t declared_rows;
  uint32_t rows_per_count; /* rows per unit of the count word */
  uint64_t row_bytes;
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

/* A model pool whose constants the dispatches read in place: imported, or
 * copied once into device memory at the same offsets when the import fails. */
typedef struct vknn_pool_binding {
  bool used;
  vknn_host_import import;
  vknn_vk_buffer copy;
} vknn_pool_binding;

/* An operation as the log of a violation found at run time names it
 * (graph/runtime_check.h): its index in the model the caller gave, and its
 * name (static: vknn_model_operation_name). */
typedef struct vknn_op_label {
  uint32_t operation;
  const char *name;
} vknn_op_label;

/* Where the operations of a control-flow segment (runtime/control_flow.c)
 * stand in the caller's model: in order, runs of operations of subgraphs
 * (0: the main one, i + 1: referenced subgraph i); a segment is one run, a
 * loop segment two (the body's, then the condition's). */
typedef struct vknn_op_run {
  uint32_t subgraph;
  uint32_t first; /* the run's first operation in its subgraph */
  uint32_t count;
} vknn_op_run;

typedef struct vknn_segment_origin {
  vknn_op_run runs[2];
  uint32_t run_count;
} vknn_segment_origin;

typedef struct vknn_graph_instance vknn_graph_instance;

/* What every execution of one compiled plan shares (constants, the layout of
 * tensors, the dispatches), and a pool of instances (graph_instance.h): the
 * per-execution resources. Counted references: its owner's (the prepared
 * model or its specialization cache) and each running execution's. */
typedef struct vknn_recorded_graph {
  vknn_device *device;
  atomic_uint references;
  vknn_vk_buffer constants;
  vknn_pool_binding *pools; /* one per model pool */
  uint32_t pool_count;
  vknn_prepared_model_info info;
  vknn_io_slot *inputs;
  uint32_t input_count;
  vknn_io_slot *outputs;
  uint32_t output_count;
  uint32_t count_slots; /* words after the status word (vknn_io_slot.count_slot) */
  vknn_tensor_place *places;
  vknn_dispatch_list dispatches;
  uint64_t staging_size;
  uint64_t input_region_size;
  uint32_t timestamp_count; /* 0 (none), 2 (start, end), or dispatches + 1 when profiled */
  /* Every operation of the plan, kept where some kernel checks values at
   * run time (NULL otherwise): the status word names one by its index. */
  vknn_op_label *op_labels;
  uint32_t op_label_count;
  /* Per-dispatch times of the last profiled execution. */
  double *dispatch_ms;
  bool dispatch_ms_valid;
  /* The instance pool; the lock also guards dispatch_ms. */
  pthread_mutex_t instance_lock;
  pthread_cond_t instance_free;
  vknn_graph_instance *instances;
  uint32_t instance_count;
  uint32_t instances_creating;
} vknn_recorded_graph;

/* How plans for this device are laid out: constants stay in their model
 * pools where the device reads host memory as its own. */
vknn_plan_target vknn_recorded_graph_target(const vknn_device *device);

/* The shared parts of a plan's graph: constants uploaded, pools bound, the
 * layout kept; no instance yet (recorded_graph_pool.c adds them). One
 * reference. free releases what alloc made, instances must be gone. */
vknn_status vknn_recorded_graph_alloc(vknn_device *device, const vknn_plan *plan,
                                      vknn_recorded_graph **out);
void vknn_recorded_graph_free(vknn_recorded_graph *rg);

/* The name of the operation of index `operation` in the caller's model (as
 * a status word gives it), or NULL when the graph holds no such operation. */
const char *vknn_recorded_graph_operation_name(const vknn_recorded_graph *rg, uint32_t operation);

/* Stores the per-dispatch times of a profiled execution. */
void vknn_recorded_graph_set_dispatch_times(vknn_recorded_graph *rg, const uint64_t *ticks,
                                            uint64_t mask, double ns_per_tick);
/* Copies them out; false when no profiled execution has run. */
bool vknn_recorded_graph_get_dispatch_times(vknn_recorded_graph *rg, double *out_ms);

static inline VkBuffer vknn_pool_binding_buffer(const vknn_pool_binding *pool) {
  return pool->import.buffer != VK_NULL_HANDLE ? pool->import.buffer : pool->copy.buffer;
}
