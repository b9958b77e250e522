/* A graph instance: what one execution of a recorded graph needs for
 * itself. Created with the graph at prepare; more only when executions of
 * one prepared model overlap (recorded_graph.c). */
#include "runtime/graph_instance.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/runtime_check.h"
#include "runtime/device_internal.h"
#include "util/fault_injection.h"

#define TAG "execution"

/* Whether some dispatch's kernel checks values read at run time. */
static bool graph_reports_status(const vknn_recorded_graph *rg) {
  if (rg->count_slots > 0) return true;
  for (uint32_t i = 0; i < rg->dispatches.count; ++i)
    if (vknn_embedded_shaders[rg->dispatches.items[i].shader].reports_status) return true;
  return false;
}

static vknn_status create_buffers(vknn_graph_instance *inst) {
  const vknn_recorded_graph *rg = inst->graph;
  vknn_vk *vk = &rg->device->vk;
  vknn_status s = vknn_vk_buffer_create(vk, vknn_vk_buffer_size_for(rg->info.arena_bytes),
                                        VKNN_BUFFER_DEVICE_LOCAL, &inst->arena);
  if (s == VKNN_STATUS_NONE)
    s = vknn_vk_buffer_create(vk, vknn_vk_buffer_size_for(rg->staging_size), VKNN_BUFFER_HOST_VISIBLE,
                              &inst->staging);
  if (s == VKNN_STATUS_NONE && vk->io_copies && rg->info.io_copy_bytes > 0)
    s = vknn_vk_buffer_create(vk, vknn_vk_buffer_size_for(rg->staging_size), VKNN_BUFFER_DEVICE_LOCAL,
                              &inst->io);
  if (s == VKNN_STATUS_NONE && graph_reports_status(rg))
    s = vknn_vk_buffer_create(vk, sizeof(uint32_t) * (1 + (uint64_t)rg->count_slots), VKNN_BUFFER_HOST_VISIBLE,
                              &inst->status);
  return s;
}

static VkResult record_timestamp(VkCommandBuffer cmd, VkQueryPool pool, uint32_t query) {
  VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  VkResult r = vkBeginCommandBuffer(cmd, &begin);
  if (r != VK_SUCCESS) return r;
  if (query == 0) vkCmdResetQueryPool(cmd, pool, 0, 2);
  vkCmdWriteTimestamp(cmd, query == 0 ? VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT
                                      : VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT,
                      pool, query);
  return vkEndCommandBuffer(cmd);
}

/* The begin and end timestamps of timed executions, recorded once. */
static VkResult record_timing(vknn_graph_instance *inst) {
  VkCommandBufferAllocateInfo alloc = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                       .commandPool = inst->command_pool,
                                       .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                       .commandBufferCount = 2};
  VkDevice device = inst->graph->device->vk.device;
  VkResult r = vknn_vk_injected_fault();
  if (r == VK_SUCCESS) r = vkAllocateCommandBuffers(device, &alloc, inst->timing);
  if (r != VK_SUCCESS) {
    inst->timing[0] = inst->timing[1] = VK_NULL_HANDLE;
    return r;
  }
  for (uint32_t i = 0; i < 2 && r == VK_SUCCESS; ++i)
    r = record_timestamp(inst->timing[i], inst->timestamps, i);
  return r;
}

static vknn_status create_command_objects(vknn_graph_instance *inst) {
  const vknn_recorded_graph *rg = inst->graph;
  vknn_vk *vk = &rg->device->vk;
  VkCommandPoolCreateInfo pool = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                  .queueFamilyIndex = vk->queue_family};
  VkResult r = vkCreateCommandPool(vk->device, &pool, NULL, &inst->command_pool);
  if (r == VK_SUCCESS) {
    VkFenceCreateInfo fence = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    r = vkCreateFence(vk->device, &fence, NULL, &inst->fence);
  }
  if (r == VK_SUCCESS && rg->timestamp_count > 0) {
    VkQueryPoolCreateInfo info = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                  .queryType = VK_QUERY_TYPE_TIMESTAMP,
                                  .queryCount = rg->timestamp_count};
    r = vkCreateQueryPool(vk->device, &info, NULL, &inst->timestamps);
  }
  if (r == VK_SUCCESS && inst->timestamps != VK_NULL_HANDLE && !rg->info.profiled)
    r = record_timing(inst);
  return vknn_vk_status(r);
}

vknn_status vknn_graph_instance_create(vknn_recorded_graph *rg, vknn_graph_instance **out) {
  *out = NULL;
  vknn_graph_instance *inst = vknn_calloc(1, sizeof(*inst));
  if (inst == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  inst->graph = rg;
  inst->ticks = vknn_calloc(rg->timestamp_count ? rg->timestamp_count : 1, sizeof(uint64_t));
  vknn_status s = inst->ticks ? VKNN_STATUS_NONE : VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  if (s == VKNN_STATUS_NONE) s = create_buffers(inst);
  if (s == VKNN_STATUS_NONE) s = create_command_objects(inst);
  if (s == VKNN_STATUS_NONE) {
    vknn_recording_resources res = vknn_graph_instance_resources(inst);
    s = vknn_recording_create(&res, NULL, NULL, &inst->recording);
  }
  if (s != VKNN_STATUS_NONE) {
    vknn_graph_instance_destroy(inst);
    return s;
  }
  *out = inst;
  return VKNN_STATUS_NONE;
}

void vknn_graph_instance_destroy(vknn_graph_instance *inst) {
  if (inst == NULL) return;
  vknn_vk *vk = &inst->graph->device->vk;
  vknn_recording_resources res = vknn_graph_instance_resources(inst);
  vknn_recording_destroy(&res, &inst->recording);
  if (inst->fence != VK_NULL_HANDLE) vkDestroyFence(vk->device, inst->fence, NULL);
  if (inst->timestamps != VK_NULL_HANDLE) vkDestroyQueryPool(vk->device, inst->timestamps, NULL);
  if (inst->command_pool != VK_NULL_HANDLE)
    vkDestroyCommandPool(vk->device, inst->command_pool, NULL);
  vknn_vk_buffer_destroy(vk, &inst->arena);
  vknn_vk_buffer_destroy(vk, &inst->staging);
  vknn_vk_buffer_destroy(vk, &inst->io);
  vknn_vk_buffer_destroy(vk, &inst->status);
  free(inst->ticks);
  free(inst);
}

static bool deadline_passed(const vknn_deadline *deadline) {
  return vknn_now_boottime_ns() >= deadline->nanoseconds_since_boot;
}

/* One batch; a failure leaves the fence in an unknown state. */
static vknn_status submit_batch(vknn_graph_instance *inst, const VkCommandBuffer *cmds,
                                uint32_t count) {
  vknn_status s = vknn_device_submit_and_wait(inst->graph->device, cmds, count, inst->fence);
  if (s != VKNN_STATUS_NONE) inst->unusable = true;
  return s;
}

vknn_status vknn_graph_instance_submit(vknn_graph_instance *inst, const vknn_recording *rec,
                                       const vknn_deadline *deadline, bool timed) {
  vknn_device *device = inst->graph->device;
  vknn_vk *vk = &device->vk;
  /* The timing command buffers sit on either side of the segments. */
  uint32_t ends = timed && rec->timed_batch[0] != VK_NULL_HANDLE ? 1 : 0;
  uint32_t n = rec->segment_count;
  if (deadline == NULL || !deadline->has_value)
    return submit_batch(inst, rec->segments - ends, n + 2 * ends);
  for (uint32_t i = 0; i < n; ++i) {
    if (deadline_passed(deadline)) {
      atomic_fetch_add(&vk->counters.deadline_cancellations, 1);
      VKNN_LOG_E(&device->log, TAG, "the deadline passed after %u of %u segments; cancelled", i, n);
      return VKNN_STATUS_MISSED_DEADLINE_TRANSIENT;
    }
    uint32_t before = i == 0 ? ends : 0, after = i == n - 1 ? ends : 0;
    vknn_status s = submit_batch(inst, &rec->segments[i] - before, 1 + before + after);
    if (s != VKNN_STATUS_NONE) return s;
  }
  return VKNN_STATUS_NONE;
}

uint32_t vknn_graph_instance_read_count(const vknn_graph_instance *inst, uint32_t slot) {
  if (inst->status.mapped == NULL || slot == 0 || slot > inst->graph->count_slots) return 0;
  return ((const volatile uint32_t *)inst->status.mapped)[slot]; /* coherent memory */
}

/* "N", or "N of subgraph S" for an operation of a control-flow segment
 * (operation op of the segment's model) that stands in a referenced
 * subgraph. */
static void describe_position(uint32_t op, const vknn_segment_origin *origin, char *out,
                              size_t size) {
  uint32_t k = op; /* within the run being looked at */
  for (uint32_t i = 0; origin != NULL && i < origin->run_count; ++i) {
    const vknn_op_run *run = &origin->runs[i];
    if (k >= run->count) {
      k -= run->count;
      continue;
    }
    if (run->subgraph == 0) snprintf(out, size, "%u", run->first + k);
    else snprintf(out, size, "%u of subgraph %u", run->first + k, run->subgraph);
    return;
  }
  snprintf(out, size, "%u", op);
}

vknn_status vknn_graph_instance_check_status(const vknn_graph_instance *inst,
                                             const vknn_segment_origin *origin) {
  if (inst->status.mapped == NULL) return VKNN_STATUS_NONE;
  uint32_t code = *(const volatile uint32_t *)inst->status.mapped; /* coherent memory */
  if (code == 0) return VKNN_STATUS_NONE;
  uint32_t op = vknn_runtime_check_operation(code);
  const char *name = op != UINT32_MAX ? vknn_recorded_graph_operation_name(inst->graph, op) : NULL;
  char position[48] = "?";
  if (name != NULL) describe_position(op, origin, position, sizeof(position));
  VKNN_LOG_E(&inst->graph->device->log, TAG,
             "operation %s (%s): %s (a value given at run time; the kernel wrote nothing outside "
             "its tensors)",
             position, name != NULL ? name : "unknown",
             vknn_runtime_rule_text(vknn_runtime_check_rule(code)));
  return VKNN_STATUS_INVALID_ARGUMENT;
}

uint64_t vknn_graph_instance_read_timestamps(vknn_graph_instance *inst) {
  if (inst->timestamps == VK_NULL_HANDLE) return UINT64_MAX;
  vknn_recorded_graph *rg = inst->graph;
  vknn_vk *vk = &rg->device->vk;
  uint64_t *ticks = inst->ticks;
  uint32_t n = rg->timestamp_count;
  VkResult r = vkGetQueryPoolResults(vk->device, inst->timestamps, 0, n, n * sizeof(uint64_t),
                                     ticks, sizeof(uint64_t),
                                     VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
  if (r == VK_ERROR_DEVICE_LOST) vknn_device_mark_lost(rg->device);
  if (r != VK_SUCCESS) return UINT64_MAX;
  uint64_t mask = vk->timestamp_valid_bits >= 64 ? UINT64_MAX
                                                 : (1ull << vk->timestamp_valid_bits) - 1;
  double ns_per_tick = vk->properties.limits.timestampPeriod;
  if (rg->info.profiled) vknn_recorded_graph_set_dispatch_times(rg, ticks, mask, ns_per_tick);
  uint64_t elapsed = (ticks[n - 1] - ticks[0]) & mask;
  return (uint64_t)((double)elapsed * ns_per_tick / 1000.0);
}

/* Each dispatch's GPU span from the timestamps read last (one after every
 * dispatch: the graph is profiled while tracing). The GPU's clock is not the
 * host's: the spans are placed from the host time of the submission. */
void vknn_graph_instance_trace_dispatches(const vknn_graph_instance *inst, uint64_t submit_ns) {
  const vknn_recorded_graph *rg = inst->graph;
  vknn_device *device = rg->device;
  if (!vknn_trace_on(&device->trace) || !rg->info.profiled) return;
  const vknn_vk *vk = &device->vk;
  uint64_t mask = vk->timestamp_valid_bits >= 64 ? UINT64_MAX
                                                 : (1ull << vk->timestamp_valid_bits) - 1;
  double ns_per_tick = vk->properties.limits.timestampPeriod;
  for (uint32_t i = 0; i < rg->info.dispatch_count; ++i) {
    const vknn_dispatch *d = &rg->dispatches.items[i];
    const char *op = vknn_operation_type_name(d->operation_type);
    char name[128];
    snprintf(name, sizeof(name), "%s %s", op != NULL ? op : "extension",
             vknn_embedded_shaders[d->shader].name);
    uint64_t start = (uint64_t)((double)((inst->ticks[i] - inst->ticks[0]) & mask) * ns_per_tick);
    uint64_t length = (uint64_t)((double)((inst->ticks[i + 1] - inst->ticks[i]) & mask) * ns_per_tick);
    vknn_trace_span(&device->trace, "gpu", name, VKNN_TRACE_GPU_TRACK, submit_ns + start, length);
  }
}

vknn_recording_resources vknn_graph_instance_resources(const vknn_graph_instance *inst) {
  return (vknn_recording_resources){.graph = inst->graph,
                                    .arena = inst->arena.buffer,
                                    .staging = inst->staging.buffer,
                                    .io = inst->io.buffer,
                                    .status = inst->status.buffer,
                                    .command_pool = inst->command_pool,
                                    .timestamps = inst->timestamps,
                                    .timing = inst->timing[0] != VK_NULL_HANDLE ? inst->timing : NULL};
}
