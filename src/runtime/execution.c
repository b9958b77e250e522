/* Execution: validate the request, take an instance of the recorded graph
 * (graph_instance.h), copy inputs into its staging buffer, submit the
 * command buffers recorded at prepare, wait, copy outputs. No recording and
 * no pipeline creation happen here; executions on different instances run
 * at once. The synchronous entry
 * point is here; asynchronous, fenced and burst executions (execution_async.c,
 * burst.c) run the same steps. */
#include <stdlib.h>
#include <string.h>

#include "runtime/buffer.h"
#include "runtime/buffer_arguments.h"
#include "runtime/control_flow.h"
#include "memory/memory_pool.h"
#include "runtime/graph_instance.h"
#include "runtime/prepared_model_internal.h"
#include "runtime/recorded_graph_pool.h"
#include "runtime/zero_copy.h"
#include "vknn/prepared_model.h"
#include "util/fault_injection.h"

#define TAG "execution"

typedef struct request_pools {
  vknn_mapped_pool *items;
  uint32_t count;
} request_pools;

static void unmap_pools(vknn_prepared_model *pm, request_pools *pools) {
  for (uint32_t i = 0; i < pools->count; ++i) {
    vknn_buffer_unref(pools->items[i].buffer);
    vknn_pool_mappings_put(&pm->pool_mappings, &pools->items[i]);
  }
  free(pools->items);
}

/* A token pool holds a reference to its driver buffer for the execution. */
static vknn_status map_token(vknn_device *device, uint32_t token, vknn_mapped_pool *out) {
  out->buffer = vknn_buffer_acquire(device, token);
  out->writable = true;
  if (out->buffer != NULL) return VKNN_STATUS_NONE;
  VKNN_LOG_E(&device->log, TAG, "token %u names no driver buffer", token);
  return VKNN_STATUS_INVALID_ARGUMENT;
}

static vknn_status map_pools(vknn_prepared_model *pm, const vknn_request *request,
                             request_pools *out) {
  vknn_device *device = pm->device;
  out->count = 0;
  out->items = vknn_calloc(request->pool_count ? request->pool_count : 1, sizeof(vknn_mapped_pool));
  if (out->items == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  for (uint32_t i = 0; i < request->pool_count; ++i) {
    const vknn_request_pool *pool = &request->pools[i];
    vknn_status s = pool->kind == VKNN_REQUEST_POOL_TOKEN
                        ? map_token(device, pool->token, &out->items[i])
                        : vknn_pool_mappings_get(&pm->pool_mappings, &device->log,
                                                 &pool->memory, &out->items[i]);
    out->count++;
    if (s != VKNN_STATUS_NONE) return s;
  }
  return VKNN_STATUS_NONE;
}

/* Bytes and first dimension of output i: rows[i] where the data decide its
 * rows and the run has told them (rows not NULL), the declared first
 * dimension before (0 when unknown). */
static uint64_t output_bytes(const vknn_io_slot *slot, const uint32_t *rows, uint32_t i,
                             uint32_t *out_first) {
  if (slot->count_slot == 0) {
    *out_first = slot->rank > 0 ? slot->dims[0] : 0;
    return slot->byte_size;
  }
  *out_first = rows != NULL ? rows[i] : slot->declared_rows;
  return *out_first * slot->row_bytes;
}

static void fill_shapes(const vknn_recorded_graph *rg, const vknn_request *request,
                        const uint32_t *rows, vknn_output_shape *shapes, uint32_t shape_count) {
  for (uint32_t i = 0; i < rg->output_count && i < shape_count; ++i) {
    const vknn_io_slot *slot = &rg->outputs[i];
    shapes[i].rank = slot->rank;
    memset(shapes[i].dimensions, 0, sizeof(shapes[i].dimensions));
    memcpy(shapes[i].dimensions, slot->dims, slot->rank * sizeof(uint32_t));
    uint64_t bytes = output_bytes(slot, rows, i, &shapes[i].dimensions[0]);
    const vknn_request_argument *arg = &request->outputs[i];
    shapes[i].is_sufficient = arg->has_no_value || arg->location.length >= bytes;
  }
}

/* Dimensions a request gives must be those of the values (0: any). */
static vknn_status check_dimensions(const vknn_logger *log, const char *what,
                                    const vknn_request_argument *args, const vknn_io_slot *slots,
                                    uint32_t count) {
  for (uint32_t i = 0; i < count; ++i) {
    const vknn_request_argument *arg = &args[i];
    if (arg->has_no_value || arg->dimension_count == 0) continue;
    bool ok = arg->dimension_count == slots[i].rank;
    for (uint32_t d = 0; ok && d < arg->dimension_count; ++d)
      ok = arg->dimensions[d] == 0 || arg->dimensions[d] == slots[i].dims[d] ||
           (d == 0 && slots[i].count_slot != 0); /* rows the data decide: checked after the run */
    if (!ok) {
      VKNN_LOG_E(log, TAG, "%s %u: the request's dimensions are not those of the value", what, i);
      return VKNN_STATUS_INVALID_ARGUMENT;
    }
  }
  return VKNN_STATUS_NONE;
}

/* Every output must fit its location, before any GPU work starts. */
static vknn_status check_output_sizes(const vknn_recorded_graph *rg, const vknn_request *request,
                                      const request_pools *pools, bool quiet) {
  const vknn_logger *log = &rg->device->log;
  vknn_status s = VKNN_STATUS_NONE;
  for (uint32_t i = 0; i < rg->output_count; ++i) {
    const vknn_request_argument *arg = &request->outputs[i];
    if (arg->has_no_value) continue;
    if (!pools->items[arg->location.pool_index].writable) {
      VKNN_LOG_E(log, TAG, "output %u lies in a read-only pool", i);
      return VKNN_STATUS_INVALID_ARGUMENT;
    }
    /* Rows the data decide: checked once the run has told them (read_rows). */
    if (rg->outputs[i].count_slot == 0 && arg->location.length < rg->outputs[i].byte_size) {
      if (!quiet)
        VKNN_LOG_E(log, TAG, "output %u needs %llu bytes, its location has %u", i,
                   (unsigned long long)rg->outputs[i].byte_size, arg->location.length);
      s = VKNN_STATUS_OUTPUT_INSUFFICIENT_SIZE;
    }
  }
  return s;
}

/* Every input the graph reads has a value of at least its size, before any
 * path (staged or in place) reads it. */
static vknn_status check_inputs(const vknn_recorded_graph *rg, const vknn_request *request) {
  for (uint32_t i = 0; i < rg->input_count; ++i) {
    const vknn_request_argument *arg = &request->inputs[i];
    const vknn_io_slot *slot = &rg->inputs[i];
    if (arg->has_no_value && slot->bound) {
      VKNN_LOG_E(&rg->device->log, TAG, "input %u has no value but the model reads it", i);
      return VKNN_STATUS_INVALID_ARGUMENT;
    }
    if (!arg->has_no_value && arg->location.length < slot->byte_size) {
      VKNN_LOG_E(&rg->device->log, TAG, "input %u has %u bytes, its value needs %llu", i,
                 arg->location.length, (unsigned long long)slot->byte_size);
      return VKNN_STATUS_INVALID_ARGUMENT;
    }
  }
  return VKNN_STATUS_NONE;
}

static vknn_status copy_inputs(vknn_graph_instance *inst, const vknn_request *request,
                               const request_pools *pools) {
  const vknn_recorded_graph *rg = inst->graph;
  uint8_t *staging = inst->staging.mapped;
  for (uint32_t i = 0; i < rg->input_count; ++i) {
    const vknn_request_argument *arg = &request->inputs[i];
    const vknn_io_slot *slot = &rg->inputs[i];
    if (arg->has_no_value) continue;
    const vknn_mapped_pool *pool = &pools->items[arg->location.pool_index];
    if (pool->buffer != NULL) {
      vknn_status s = vknn_buffer_read(pool->buffer, staging + slot->offset, slot->byte_size);
      if (s != VKNN_STATUS_NONE) return s;
    } else {
      memcpy(staging + slot->offset, pool->data + arg->location.offset, slot->byte_size);
    }
  }
  return VKNN_STATUS_NONE;
}

static vknn_status copy_outputs(vknn_graph_instance *inst, const vknn_request *request,
                                const request_pools *pools, const uint32_t *rows) {
  const vknn_recorded_graph *rg = inst->graph;
  const uint8_t *staging = inst->staging.mapped;
  for (uint32_t i = 0; i < rg->output_count; ++i) {
    const vknn_request_argument *arg = &request->outputs[i];
    if (arg->has_no_value) continue;
    const vknn_mapped_pool *pool = &pools->items[arg->location.pool_index];
    const vknn_io_slot *slot = &rg->outputs[i];
    uint32_t dims[VKNN_MAX_RANK];
    memcpy(dims, slot->dims, sizeof(dims));
    uint64_t bytes = output_bytes(slot, rows, i, &dims[0]);
    if (pool->buffer == NULL) {
      memcpy(pool->data + arg->location.offset, staging + slot->offset, bytes);
      continue;
    }
    vknn_status s = vknn_buffer_write(pool->buffer, staging + slot->offset, bytes, dims, slot->rank);
    if (s != VKNN_STATUS_NONE) return s;
  }
  return VKNN_STATUS_NONE;
}

/* After the fence: the first dimension of every output, read from the
 * status buffer where the data decide it (docs/architecture.md, "Outputs
 * whose size the data decide"). The real rows must be those the model
 * declares, when it declares them, and must fit the request's location:
 * OUTPUT_INSUFFICIENT_SIZE otherwise, with the shapes reported. */
static vknn_status read_rows(const vknn_graph_instance *inst, const vknn_request *request, uint32_t *rows) {
  const vknn_recorded_graph *rg = inst->graph;
  const vknn_logger *log = &rg->device->log;
  vknn_status s = VKNN_STATUS_NONE;
  for (uint32_t i = 0; i < rg->output_count; ++i) {
    const vknn_io_slot *slot = &rg->outputs[i];
    rows[i] = slot->rank > 0 ? slot->dims[0] : 0;
    if (slot->count_slot == 0) continue;
    uint64_t n = (uint64_t)vknn_graph_instance_read_count(inst, slot->count_slot) * slot->rows_per_count;
    if (n > rows[i]) {
      VKNN_LOG_E(log, TAG, "output %u: %llu rows reported, at most %u fit", i, (unsigned long long)n, rows[i]);
      return VKNN_STATUS_GENERAL_FAILURE;
    }
    rows[i] = (uint32_t)n;
    if (slot->declared_rows != 0 && n != slot->declared_rows) {
      VKNN_LOG_E(log, TAG, "output %u has %u rows, the model declares %u", i, rows[i], slot->declared_rows);
      return VKNN_STATUS_GENERAL_FAILURE;
    }
    const vknn_request_argument *arg = &request->outputs[i];
    if (!arg->has_no_value && arg->location.length < n * slot->row_bytes) {
      VKNN_LOG_E(log, TAG, "output %u needs %llu bytes, its location has %u", i,
                 (unsigned long long)(n * slot->row_bytes), arg->location.length);
      s = VKNN_STATUS_OUTPUT_INSUFFICIENT_SIZE;
    }
  }
  return s;
}

static bool timed(const vknn_execution_options *o) {
  return o->measure == VKNN_MEASURE_TIMING_YES;
}

/* Device time, read only when the execution measures it or the graph is
 * profiled (untimed executions write no timestamps). */
static uint64_t device_time(vknn_graph_instance *inst, const vknn_execution_options *o) {
  if (!timed(o) && !inst->graph->info.profiled) return UINT64_MAX;
  return vknn_graph_instance_read_timestamps(inst);
}

/* Submits and waits; while tracing, with the span of that and of each dispatch. */
static vknn_status submit(vknn_graph_instance *inst, const vknn_recording *rec,
                          const vknn_execution_options *o) {
  vknn_trace *trace = &inst->graph->device->trace;
  uint64_t begin = vknn_trace_begin(trace);
  vknn_status s = vknn_graph_instance_submit(inst, rec, &o->deadline, timed(o));
  vknn_trace_end(trace, "execution", "submit and wait", begin);
  return s;
}

/* The timestamps' device time; while tracing, each dispatch's span too. */
static uint64_t read_device_time(vknn_graph_instance *inst, const vknn_execution_options *o,
                                 uint64_t submit_ns) {
  uint64_t us = device_time(inst, o);
  if (submit_ns != 0 && us != UINT64_MAX) vknn_graph_instance_trace_dispatches(inst, submit_ns);
  return us;
}

/* The shaders read and write the request's memory: nothing to copy. */
static vknn_status run_in_place(vknn_graph_instance *inst, const vknn_recording *rec,
                                const vknn_execution_options *o, uint64_t *device_us) {
  uint64_t submit_ns = vknn_trace_begin(&inst->graph->device->trace);
  vknn_status s = submit(inst, rec, o);
  if (s == VKNN_STATUS_NONE) s = vknn_graph_instance_check_status(inst, o->origin);
  if (s == VKNN_STATUS_NONE) {
    *device_us = read_device_time(inst, o, submit_ns);
    atomic_fetch_add(&inst->graph->device->vk.counters.zero_copy_executions, 1);
  }
  return s;
}

static vknn_status run_staged(vknn_graph_instance *inst, const vknn_request *request,
                              const request_pools *view, const vknn_execution_options *o,
                              uint32_t *rows, uint64_t *device_us) {
  vknn_trace *trace = &inst->graph->device->trace;
  uint64_t begin = vknn_trace_begin(trace);
  vknn_status s = copy_inputs(inst, request, view);
  vknn_trace_end(trace, "execution", "copy inputs", begin);
  uint64_t submit_ns = vknn_trace_begin(trace);
  if (s == VKNN_STATUS_NONE) s = submit(inst, &inst->recording, o);
  if (s == VKNN_STATUS_NONE) s = vknn_graph_instance_check_status(inst, o->origin);
  if (s == VKNN_STATUS_NONE && rows != NULL) s = read_rows(inst, request, rows);
  if (s == VKNN_STATUS_NONE) *device_us = read_device_time(inst, o, submit_ns);
  begin = vknn_trace_begin(trace);
  if (s == VKNN_STATUS_NONE) s = copy_outputs(inst, request, view, rows);
  vknn_trace_end(trace, "execution", "copy outputs", begin);
  if (s == VKNN_STATUS_NONE)
    atomic_fetch_add(&inst->graph->device->vk.counters.staged_executions, 1);
  return s;
}

static vknn_status run_on_instance(vknn_recorded_graph *rg, const vknn_request *request,
                                   const request_pools *view, const vknn_execution_options *o,
                                   uint32_t *rows, uint64_t *device_us) {
  vknn_graph_instance *inst = NULL;
  vknn_status s = vknn_recorded_graph_acquire(rg, &inst);
  if (s != VKNN_STATUS_NONE) return s;
  const vknn_recording *in_place = NULL;
  /* Outputs whose rows the data decide are written at their largest size:
   * staged, never into the caller's memory. */
  if (rg->count_slots == 0) s = vknn_zero_copy_select(inst, request, &in_place);
  if (s == VKNN_STATUS_NONE && in_place != NULL) s = run_in_place(inst, in_place, o, device_us);
  else if (s == VKNN_STATUS_NONE) s = run_staged(inst, request, view, o, rows, device_us);
  vknn_recorded_graph_release(rg, inst);
  return s;
}

static vknn_status run_graph(vknn_recorded_graph *rg, const vknn_request *request,
                             const request_pools *view, vknn_output_shape *shapes,
                             uint32_t shape_count, const vknn_execution_options *o,
                             uint64_t *device_us) {
  const vknn_logger *log = &rg->device->log;
  vknn_status s = check_dimensions(log, "input", request->inputs, rg->inputs, rg->input_count);
  if (s == VKNN_STATUS_NONE) s = check_inputs(rg, request);
  if (s == VKNN_STATUS_NONE)
    s = check_dimensions(log, "output", request->outputs, rg->outputs, rg->output_count);
  if (s == VKNN_STATUS_NONE) s = check_output_sizes(rg, request, view, o->segment);
  if (shapes != NULL && (s == VKNN_STATUS_NONE || s == VKNN_STATUS_OUTPUT_INSUFFICIENT_SIZE))
    fill_shapes(rg, request, NULL, shapes, shape_count);
  if (s != VKNN_STATUS_NONE) return s;
  /* Rows the data decide: read after the run (none: nothing allocated). */
  uint32_t *rows = NULL;
  if (rg->count_slots > 0) {
    rows = vknn_calloc(rg->output_count ? rg->output_count : 1, sizeof(uint32_t));
    if (rows == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  }
  s = run_on_instance(rg, request, view, o, rows, device_us);
  /* The shapes the run told (rows the data decide). */
  if (shapes != NULL && rows != NULL &&
      (s == VKNN_STATUS_NONE || s == VKNN_STATUS_OUTPUT_INSUFFICIENT_SIZE))
    fill_shapes(rg, request, rows, shapes, shape_count);
  free(rows);
  return s;
}

/* The graph for this request, with a reference the caller drops: the
 * prepared model's lock is held only while choosing (and, the first time a
 * shape key occurs, compiling). */
static vknn_status select_graph(vknn_prepared_model *pm, const vknn_request *request,
                                const vknn_mapped_pool *pools, vknn_recorded_graph **out) {
  pthread_mutex_lock(&pm->lock);
  vknn_status s = vknn_prepared_model_select_graph(pm, request, pools, out);
  if (s == VKNN_STATUS_NONE) {
    pm->last = *out;
    vknn_recorded_graph_retain(*out);
  }
  pthread_mutex_unlock(&pm->lock);
  return s;
}

/* Arguments in driver buffers take the buffers' shapes and sizes first. */
static vknn_status run_resolved(vknn_prepared_model *pm, const vknn_request *request,
                                const vknn_mapped_pool *pools, vknn_output_shape *shapes,
                                uint32_t shape_count, const vknn_execution_options *o,
                                uint64_t *device_us) {
  vknn_resolved_request resolved;
  vknn_status s = vknn_resolve_buffer_arguments(&pm->device->log, request, pools, &resolved);
  vknn_recorded_graph *rg = NULL;
  if (s == VKNN_STATUS_NONE) s = select_graph(pm, &resolved.request, pools, &rg);
  if (s == VKNN_STATUS_NONE) {
    const request_pools view = {(vknn_mapped_pool *)pools, request->pool_count};
    s = run_graph(rg, &resolved.request, &view, shapes, shape_count, o, device_us);
    vknn_recorded_graph_unref(rg);
  }
  vknn_resolved_request_free(&resolved);
  return s;
}

vknn_execution_options vknn_execution_options_make(const vknn_prepared_model *pm,
                                                   vknn_measure_timing measure,
                                                   const vknn_deadline *deadline,
                                                   const vknn_duration *loop_timeout) {
  vknn_execution_options o = {.measure = measure,
                              .loop_timeout_ns = VKNN_LOOP_TIMEOUT_DEFAULT_NS,
                              .call_ns = vknn_now_boottime_ns()};
  if (deadline != NULL) o.deadline = *deadline;
  if (loop_timeout != NULL && loop_timeout->has_value) {
    o.loop_timeout_ns = loop_timeout->nanoseconds;
    if (o.loop_timeout_ns > VKNN_LOOP_TIMEOUT_MAXIMUM_NS) {
      if (pm != NULL)
        VKNN_LOG_V(&pm->device->log, TAG, "loop timeout %llu ns taken as the maximum, %llu ns",
                   (unsigned long long)o.loop_timeout_ns, VKNN_LOOP_TIMEOUT_MAXIMUM_NS);
      o.loop_timeout_ns = VKNN_LOOP_TIMEOUT_MAXIMUM_NS;
    }
  }
  return o;
}

vknn_status vknn_execution_validate(vknn_prepared_model *pm, const vknn_request *request,
                                    vknn_measure_timing measure, const vknn_output_shape *shapes,
                                    uint32_t shape_count) {
  if (pm == NULL) return VKNN_STATUS_INVALID_ARGUMENT;
  if (request == NULL) {
    VKNN_LOG_E(&pm->device->log, TAG, "no request");
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  if ((unsigned)measure > VKNN_MEASURE_TIMING_YES) {
    VKNN_LOG_E(&pm->device->log, TAG, "invalid timing request %d", (int)measure);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  if (shapes != NULL && shape_count < request->output_count) {
    VKNN_LOG_E(&pm->device->log, TAG, "room for %u output shapes, the request has %u outputs",
               shape_count, request->output_count);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  vknn_status s = vknn_validate_request(pm, request);
  if (s == VKNN_STATUS_NONE) s = vknn_device_check_lost(pm->device, TAG);
  return s;
}

/* A deadline passed before the work starts: PERSISTENT when the caller gave
 * one already past, TRANSIENT when it passed while the execution waited for
 * the driver (the executor's queue). */
static vknn_status check_deadline_at_start(vknn_prepared_model *pm,
                                           const vknn_execution_options *o) {
  vknn_status s = vknn_check_deadline(&pm->device->log, TAG, &o->deadline);
  if (s == VKNN_STATUS_MISSED_DEADLINE_PERSISTENT && o->queued)
    s = VKNN_STATUS_MISSED_DEADLINE_TRANSIENT;
  return s;
}

/* Driver time runs from the call to now (HAL Timing: it includes the time
 * on the device, so it is never less). */
static void stamp_driver_time(const vknn_execution_options *o, vknn_timing *timing) {
  if (timing == NULL || timing->time_in_driver == UINT64_MAX) return;
  uint64_t driver_us = (vknn_now_boottime_ns() - o->call_ns) / 1000;
  if (driver_us > timing->time_in_driver) timing->time_in_driver = driver_us;
}

/* After a failed execution, the driver buffers it had as outputs hold no
 * value (HAL IDevice::allocate: they return to the uninitialized state).
 * Looked up by token, so that a failure to map the pools (those after the
 * failing one left unmapped) forgets them too. */
static void forget_output_buffers(vknn_device *device, const vknn_request *request) {
  for (uint32_t i = 0; i < request->output_count; ++i) {
    const vknn_request_argument *arg = &request->outputs[i];
    const vknn_request_pool *pool = arg->has_no_value ? NULL : &request->pools[arg->location.pool_index];
    if (pool == NULL || pool->kind != VKNN_REQUEST_POOL_TOKEN) continue;
    vknn_buffer *buffer = vknn_buffer_acquire(device, pool->token);
    if (buffer != NULL) vknn_buffer_forget(buffer);
    vknn_buffer_unref(buffer);
  }
}

vknn_status vknn_execution_run(vknn_prepared_model *pm, const vknn_request *request,
                               const vknn_mapped_pool *pools, const vknn_execution_options *o,
                               vknn_output_shape *out_shapes, uint32_t shape_count,
                               vknn_timing *out_timing) {
  if (out_timing != NULL) *out_timing = (vknn_timing){UINT64_MAX, UINT64_MAX};
  /* Queued before the device was lost: fail without submitting. */
  vknn_status s = vknn_device_check_lost(pm->device, TAG);
  if (s == VKNN_STATUS_NONE) s = check_deadline_at_start(pm, o);
  uint64_t device_us = UINT64_MAX;
  if (s == VKNN_STATUS_NONE)
    s = pm->control_flow != NULL
            ? vknn_control_flow_run(pm->control_flow, request, pools, o, out_shapes, shape_count,
                                    &device_us)
            : run_resolved(pm, request, pools, out_shapes, shape_count, o, &device_us);
  /* Lost meanwhile (a timestamp read may report it): the results are not trusted. */
  if (s == VKNN_STATUS_NONE) s = vknn_device_check_lost(pm->device, TAG);
  if (s != VKNN_STATUS_NONE) forget_output_buffers(pm->device, request);
  if (s == VKNN_STATUS_NONE && o->measure == VKNN_MEASURE_TIMING_YES && out_timing != NULL) {
    out_timing->time_on_device = device_us;
    out_timing->time_in_driver = device_us != UINT64_MAX ? device_us : 0;
    stamp_driver_time(o, out_timing);
  }
  return s;
}

vknn_status vknn_execution_run_mapping(vknn_prepared_model *pm, const vknn_request *request,
                                       const vknn_execution_options *o,
                                       vknn_output_shape *out_shapes, uint32_t shape_count,
                                       vknn_timing *out_timing) {
  if (out_timing != NULL) *out_timing = (vknn_timing){UINT64_MAX, UINT64_MAX};
  vknn_trace *trace = &pm->device->trace;
  uint64_t begin = vknn_trace_begin(trace);
  request_pools pools;
  vknn_status s = map_pools(pm, request, &pools);
  vknn_trace_end(trace, "execution", "map request memory", begin);
  if (s == VKNN_STATUS_NONE)
    s = vknn_execution_run(pm, request, pools.items, o, out_shapes, shape_count, out_timing);
  else
    forget_output_buffers(pm->device, request);
  unmap_pools(pm, &pools);
  vknn_trace_end(trace, "execution", "execute", begin);
  stamp_driver_time(o, out_timing); /* the unmapping is the driver's time too */
  return s;
}

vknn_status vknn_prepared_model_execute(vknn_prepared_model *pm, const vknn_request *request,
                                        vknn_measure_timing measure,
                                        const vknn_deadline *deadline,
                                        const vknn_duration *loop_timeout,
                                        vknn_output_shape *out_shapes, uint32_t shape_count,
                                        vknn_timing *out_timing) {
  const vknn_execution_options o = vknn_execution_options_make(pm, measure, deadline, loop_timeout);
  if (out_timing != NULL) *out_timing = (vknn_timing){UINT64_MAX, UINT64_MAX};
  vknn_status s = vknn_execution_validate(pm, request, measure, out_shapes, shape_count);
  if (s != VKNN_STATUS_NONE) return s;
  return vknn_execution_run_mapping(pm, request, &o, out_shapes, shape_count, out_timing);
}
