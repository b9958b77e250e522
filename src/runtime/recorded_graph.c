/* A recorded graph: the GPU objects of one compiled plan that its instances
 * share: constants uploaded once, model pools bound, where every tensor
 * lives, the dispatches. Its instances (graph_instance.c) and their pool
 * (recorded_graph_pool.c) sit above it. A prepared model owns one graph, or
 * several when shapes are known only at execution time (prepared_model.c). */
#include "runtime/recorded_graph.h"

#include <stdlib.h>
#include <string.h>

#include "model/extension.h"
#include "util/fault_injection.h"

#define TAG "compilation"

/* A command pool and fence of its own: uploads run at prepare only. */
typedef struct upload_commands {
  VkCommandPool pool;
  VkCommandBuffer cmd;
  VkFence fence;
} upload_commands;

static vknn_status begin_upload(vknn_vk *vk, upload_commands *u) {
  VkCommandPoolCreateInfo pool = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                  .flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT,
                                  .queueFamilyIndex = vk->queue_family};
  VkResult r = vkCreateCommandPool(vk->device, &pool, NULL, &u->pool);
  if (r == VK_SUCCESS) {
    VkFenceCreateInfo fence = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    r = vkCreateFence(vk->device, &fence, NULL, &u->fence);
  }
  if (r == VK_SUCCESS) r = vknn_vk_injected_fault();
  if (r == VK_SUCCESS) {
    VkCommandBufferAllocateInfo alloc = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                         .commandPool = u->pool,
                                         .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                         .commandBufferCount = 1};
    r = vkAllocateCommandBuffers(vk->device, &alloc, &u->cmd);
  }
  if (r == VK_SUCCESS) {
    VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                      .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    r = vkBeginCommandBuffer(u->cmd, &begin);
  }
  return vknn_vk_status(r);
}

static void end_upload(vknn_vk *vk, upload_commands *u) {
  if (u->fence != VK_NULL_HANDLE) vkDestroyFence(vk->device, u->fence, NULL);
  if (u->pool != VK_NULL_HANDLE) vkDestroyCommandPool(vk->device, u->pool, NULL);
}

typedef void (*fill_fn)(void *dst, const void *context);

/* Fills a host-visible staging buffer and copies it into dst, once. The
 * barrier makes the bytes visible to every later submission. */
static vknn_status upload(vknn_recorded_graph *rg, VkBuffer dst, uint64_t size, fill_fn fill,
                          const void *context) {
  vknn_vk *vk = &rg->device->vk;
  vknn_vk_buffer staging;
  vknn_status s = vknn_vk_buffer_create(vk, size, VKNN_BUFFER_HOST_VISIBLE, &staging);
  if (s != VKNN_STATUS_NONE) return s;
  fill(staging.mapped, context);
  upload_commands u = {VK_NULL_HANDLE, VK_NULL_HANDLE, VK_NULL_HANDLE};
  s = begin_upload(vk, &u);
  if (s == VKNN_STATUS_NONE) {
    VkBufferCopy region = {.size = size};
    vkCmdCopyBuffer(u.cmd, staging.buffer, dst, 1, &region);
    VkMemoryBarrier barrier = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                               .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                               .dstAccessMask = VK_ACCESS_SHADER_READ_BIT};
    vkCmdPipelineBarrier(u.cmd, VK_PIPELINE_STAGE_TRANSFER_BIT,
                         VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &barrier, 0, NULL, 0, NULL);
    VkResult r = vkEndCommandBuffer(u.cmd);
    atomic_fetch_add(&vk->counters.command_buffers_recorded, 1);
    s = r == VK_SUCCESS ? vknn_device_submit_and_wait(rg->device, &u.cmd, 1, u.fence) : vknn_vk_status(r);
  }
  end_upload(vk, &u);
  vknn_vk_buffer_destroy(vk, &staging);
  return s;
}

static void fill_constants(void *dst, const void *context) {
  const vknn_plan *plan = context;
  memset(dst, 0, plan->region_size[VKNN_REGION_CONSTANT]);
  for (uint32_t i = 0; i < plan->graph.tensor_count; ++i) {
    const vknn_tensor *t = &plan->graph.tensors[i];
    if (t->region == VKNN_REGION_CONSTANT)
      memcpy((uint8_t *)dst + t->offset, t->constant_data, vknn_tensor_byte_size(t));
  }
}

static vknn_status upload_constants(vknn_recorded_graph *rg, const vknn_plan *plan) {
  uint64_t size = plan->region_size[VKNN_REGION_CONSTANT];
  if (size == 0) return VKNN_STATUS_NONE;
  return upload(rg, rg->constants.buffer, size, fill_constants, plan);
}

static VkDeviceSize pool_buffer_size(const vknn_vk *vk, const vknn_mapped_pool *mapping) {
  VkDeviceSize page = vk->host_import_alignment ? vk->host_import_alignment : 4096;
  return (mapping->mapping_size + page - 1) / page * page;
}

static void fill_pool(void *dst, const void *context) {
  const vknn_mapped_pool *mapping = context;
  memcpy(dst, mapping->mapping, mapping->mapping_size);
}

/* A pool the plan reads in place: imported, else copied whole into device
 * memory so that the planned offsets still hold. */
static vknn_status bind_pool(vknn_recorded_graph *rg, const vknn_plan *plan, uint32_t index) {
  vknn_vk *vk = &rg->device->vk;
  vknn_pool_binding *pool = &rg->pools[index];
  vknn_status s = vknn_host_import_create(vk, &plan->graph.model->pools[index],
                                          VKNN_IMPORT_PRIVATE, &pool->import);
  if (s == VKNN_STATUS_NONE) return s;
  vknn_host_import_destroy(vk, &pool->import);
  VKNN_LOG_V(&rg->device->log, TAG, "model pool %u not imported (%s); copied instead", index,
             vknn_status_name(s));
  const vknn_mapped_pool *mapping = &plan->graph.pools[index];
  VkDeviceSize size = pool_buffer_size(vk, mapping);
  s = vknn_vk_buffer_create(vk, size, VKNN_BUFFER_DEVICE_LOCAL, &pool->copy);
  return s == VKNN_STATUS_NONE ? upload(rg, pool->copy.buffer, mapping->mapping_size, fill_pool,
                                        mapping)
                               : s;
}

static vknn_status bind_pools(vknn_recorded_graph *rg, const vknn_plan *plan) {
  const vknn_graph *g = &plan->graph;
  rg->pools = vknn_calloc(g->pool_count ? g->pool_count : 1, sizeof(vknn_pool_binding));
  if (rg->pools == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  rg->pool_count = g->pool_count;
  for (uint32_t i = 0; i < g->tensor_count; ++i)
    if (g->tensors[i].region == VKNN_REGION_POOL) rg->pools[g->tensors[i].pool_index].used = true;
  vknn_status s = VKNN_STATUS_NONE;
  for (uint32_t p = 0; p < rg->pool_count && s == VKNN_STATUS_NONE; ++p)
    if (rg->pools[p].used) s = bind_pool(rg, plan, p);
  for (uint32_t i = 0; i < g->tensor_count && s == VKNN_STATUS_NONE; ++i) {
    const vknn_tensor *t = &g->tensors[i];
    if (t->region == VKNN_REGION_POOL && rg->pools[t->pool_index].import.buffer != VK_NULL_HANDLE)
      rg->info.constant_bytes_in_place += vknn_tensor_byte_size(t);
  }
  return s;
}

static vknn_status describe_io(vknn_io_slot **out_slots, uint32_t count, const uint32_t *indexes,
                               const vknn_plan *plan, uint64_t base) {
  *out_slots = vknn_calloc(count ? count : 1, sizeof(vknn_io_slot));
  if (*out_slots == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  for (uint32_t i = 0; i < count; ++i) {
    const vknn_tensor *t = &plan->graph.tensors[indexes[i]];
    vknn_io_slot *slot = &(*out_slots)[i];
    slot->rank = t->rank;
    memcpy(slot->dims, t->dims, sizeof(slot->dims));
    slot->byte_size = vknn_tensor_byte_size(t);
    slot->offset = base + t->offset;
    slot->bound = t->first_dispatch >= 0;
    slot->count_slot = t->count_slot;
    slot->declared_rows = t->declared_rows;
    slot->rows_per_count = t->rows_per_count;
    slot->row_bytes = t->rank > 0 && t->dims[0] > 0 ? slot->byte_size / t->dims[0] : 0;
  }
  return VKNN_STATUS_NONE;
}

/* Bytes an execution copies with io_copies: every input and output a
 * dispatch binds, whole (graph_recording.c, copy_inputs / copy_outputs). */
static uint64_t io_copy_bytes(const vknn_recorded_graph *rg) {
  uint64_t bytes = 0;
  for (uint32_t i = 0; i < rg->input_count; ++i)
    if (rg->inputs[i].bound) bytes += rg->inputs[i].byte_size;
  for (uint32_t i = 0; i < rg->output_count; ++i)
    if (rg->outputs[i].bound) bytes += rg->outputs[i].byte_size;
  return bytes;
}

/* What recording needs again for other bindings: where every tensor lives,
 * and the dispatches. */
static vknn_status keep_layout(vknn_recorded_graph *rg, const vknn_plan *plan) {
  const vknn_graph *g = &plan->graph;
  rg->places = vknn_calloc(g->tensor_count ? g->tensor_count : 1, sizeof(vknn_tensor_place));
  uint32_t n = plan->dispatches.count;
  rg->dispatches.items = vknn_calloc(n ? n : 1, sizeof(vknn_dispatch));
  if (rg->places == NULL || rg->dispatches.items == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  for (uint32_t i = 0; i < g->tensor_count; ++i)
    rg->places[i] = (vknn_tensor_place){g->tensors[i].region, g->tensors[i].io_index,
                                        g->tensors[i].pool_index, g->tensors[i].offset,
                                        g->tensors[i].byte_size};
  if (n > 0) memcpy(rg->dispatches.items, plan->dispatches.items, n * sizeof(vknn_dispatch));
  rg->dispatches.count = rg->dispatches.capacity = n;
  rg->input_region_size = plan->region_size[VKNN_REGION_INPUT];
  return VKNN_STATUS_NONE;
}

/* Timestamps: start and end, or one after every dispatch when profiled;
 * none where the compute queue has none. */
static void plan_timestamps(vknn_recorded_graph *rg) {
  if (rg->device->vk.timestamp_valid_bits == 0) return;
  rg->info.profiled = rg->device->profile_dispatches;
  rg->timestamp_count = rg->info.profiled ? rg->info.dispatch_count + 1 : 2;
}

/* Every pipeline the plan's dispatches need, created several at once before
 * recording asks for them one by one. */
static void create_pipelines(vknn_recorded_graph *rg, const vknn_plan *plan) {
  uint32_t n = plan->dispatches.count;
  vknn_pipeline_key *keys = vknn_calloc(n ? n : 1, sizeof(*keys));
  if (keys == NULL) return; /* recording creates them then */
  for (uint32_t i = 0; i < n; ++i) {
    const vknn_dispatch *d = &plan->dispatches.items[i];
    keys[i] = (vknn_pipeline_key){d->shader, vknn_dispatch_layout_bindings(d), d->local_size,
                                  d->spec, d->spec_count};
  }
  vknn_vk_create_pipelines(&rg->device->vk, keys, n);
  free(keys);
}

static bool plan_checks_values(const vknn_plan *plan) {
  for (uint32_t i = 0; i < plan->dispatches.count; ++i)
    if (vknn_embedded_shaders[plan->dispatches.items[i].shader].reports_status) return true;
  return false;
}

/* Every operation rather than those whose dispatches check: lowering may
 * put an operation's checks into a dispatch another operation owns (fusion). */
static vknn_status keep_op_labels(vknn_recorded_graph *rg, const vknn_plan *plan) {
  if (!plan_checks_values(plan)) return VKNN_STATUS_NONE;
  const vknn_graph *graph = &plan->graph;
  uint32_t n = graph->sg->operation_count;
  rg->op_labels = vknn_calloc(n ? n : 1, sizeof(*rg->op_labels));
  if (rg->op_labels == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  for (uint32_t k = 0; k < n; ++k) {
    uint32_t source = vknn_graph_op_source(graph, k);
    if (source == UINT32_MAX) continue; /* added by the compiler: checks nothing */
    rg->op_labels[rg->op_label_count++] = (vknn_op_label){
        source, vknn_model_operation_name(graph->model, graph->sg->operations[k].type)};
  }
  return VKNN_STATUS_NONE;
}

const char *vknn_recorded_graph_operation_name(const vknn_recorded_graph *rg, uint32_t operation) {
  for (uint32_t i = 0; i < rg->op_label_count; ++i)
    if (rg->op_labels[i].operation == operation) return rg->op_labels[i].name;
  return NULL;
}

static vknn_status build(vknn_recorded_graph *rg, const vknn_plan *plan) {
  const vknn_subgraph *sg = plan->graph.sg;
  rg->info.dispatch_count = plan->dispatches.count;
  rg->count_slots = plan->graph.count_slots;
  rg->info.arena_bytes = plan->region_size[VKNN_REGION_ARENA];
  rg->info.packed_tensors = plan->packed_tensors;
  rg->info.constant_bytes = plan->region_size[VKNN_REGION_CONSTANT];
  rg->staging_size = plan->region_size[VKNN_REGION_INPUT] + plan->region_size[VKNN_REGION_OUTPUT];
  plan_timestamps(rg);
  rg->dispatch_ms = vknn_calloc(plan->dispatches.count ? plan->dispatches.count : 1, sizeof(double));
  if (rg->dispatch_ms == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  rg->input_count = sg->input_count;
  rg->output_count = sg->output_count;
  vknn_status s = describe_io(&rg->inputs, sg->input_count, sg->input_indexes, plan, 0);
  if (s == VKNN_STATUS_NONE)
    s = describe_io(&rg->outputs, sg->output_count, sg->output_indexes, plan,
                    plan->region_size[VKNN_REGION_INPUT]);
  if (s == VKNN_STATUS_NONE && rg->device->vk.io_copies) rg->info.io_copy_bytes = io_copy_bytes(rg);
  if (s == VKNN_STATUS_NONE)
    s = vknn_vk_buffer_create(&rg->device->vk, vknn_vk_buffer_size_for(rg->info.constant_bytes),
                              VKNN_BUFFER_DEVICE_LOCAL, &rg->constants);
  if (s == VKNN_STATUS_NONE) s = upload_constants(rg, plan);
  if (s == VKNN_STATUS_NONE) s = bind_pools(rg, plan);
  if (s == VKNN_STATUS_NONE) s = keep_layout(rg, plan);
  if (s == VKNN_STATUS_NONE) s = keep_op_labels(rg, plan);
  if (s == VKNN_STATUS_NONE) create_pipelines(rg, plan);
  return s;
}

/* Imported host memory is the device's own memory only where the device
 * shares the host's (integrated GPUs, CPU devices); a discrete GPU would
 * read such constants across the bus on every execution. */
vknn_plan_target vknn_recorded_graph_target(const vknn_device *device) {
  const vknn_vk *vk = &device->vk;
  VkPhysicalDeviceType type = vk->properties.deviceType;
  bool shared = type == VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU ||
                type == VK_PHYSICAL_DEVICE_TYPE_CPU;
  return (vknn_plan_target){.alignment = vknn_vk_binding_alignment(vk),
                            .max_binding_bytes = vk->properties.limits.maxStorageBufferRange,
                            .max_workgroups =
                                (uint64_t)vk->properties.limits.maxComputeWorkGroupCount[0] *
                                vk->properties.limits.maxComputeWorkGroupCount[1],
                            .import_pools = shared && vk->host_import_alignment != 0,
                            .kernels = {.texel_reads = vk->texel_reads,
                                        .integer_dot = vk->integer_dot,
                                        .float16_arithmetic = vk->float16_arithmetic,
                                        .int64_float64 =
                                            (vk->shader_features &
                                             (VKNN_SHADER_NEEDS_SHADERINT64 |
                                              VKNN_SHADER_NEEDS_SHADERFLOAT64)) ==
                                            (VKNN_SHADER_NEEDS_SHADERINT64 |
                                             VKNN_SHADER_NEEDS_SHADERFLOAT64),
                                        .max_texel_elements =
                                            vk->properties.limits.maxTexelBufferElements,
                                        .subgroup_size = vk->subgroup_size,
                                        .subgroup_filter = vk->subgroup_filter,
                                        .gemm_shared_tiles = vk->gemm_shared_tiles,
                                        .global_pool_reduction = vk->global_pool_reduction,
                                        .packed_layout = vk->packed_layout,
                                        .parallel_invocations = vk->parallel_invocations,
                                        .winograd = vk->winograd,
                                        .loop_budget = vknn_vk_has_loop_limiter(vk)
                                                           ? VKNN_LOOP_LIMITER_BUDGET
                                                           : 0}};
}

void vknn_recorded_graph_set_dispatch_times(vknn_recorded_graph *rg, const uint64_t *ticks,
                                            uint64_t mask, double ns_per_tick) {
  pthread_mutex_lock(&rg->instance_lock);
  for (uint32_t i = 0; i < rg->info.dispatch_count; ++i)
    rg->dispatch_ms[i] = (double)((ticks[i + 1] - ticks[i]) & mask) * ns_per_tick * 1e-6;
  rg->dispatch_ms_valid = true;
  pthread_mutex_unlock(&rg->instance_lock);
}

bool vknn_recorded_graph_get_dispatch_times(vknn_recorded_graph *rg, double *out_ms) {
  pthread_mutex_lock(&rg->instance_lock);
  bool valid = rg->dispatch_ms_valid;
  if (valid) memcpy(out_ms, rg->dispatch_ms, rg->info.dispatch_count * sizeof(double));
  pthread_mutex_unlock(&rg->instance_lock);
  return valid;
}

void vknn_recorded_graph_free(vknn_recorded_graph *rg) {
  vknn_vk *vk = &rg->device->vk;
  vknn_vk_buffer_destroy(vk, &rg->constants);
  for (uint32_t i = 0; i < rg->pool_count; ++i) {
    vknn_host_import_destroy(vk, &rg->pools[i].import);
    vknn_vk_buffer_destroy(vk, &rg->pools[i].copy);
  }
  free(rg->pools);
  free(rg->inputs);
  free(rg->outputs);
  free(rg->dispatch_ms);
  free(rg->places);
  free(rg->op_labels);
  vknn_dispatch_list_release(&rg->dispatches);
  pthread_cond_destroy(&rg->instance_free);
  pthread_mutex_destroy(&rg->instance_lock);
  free(rg);
}

vknn_status vknn_recorded_graph_alloc(vknn_device *device, const vknn_plan *plan,
                                      vknn_recorded_graph **out) {
  *out = NULL;
  vknn_recorded_graph *rg = vknn_calloc(1, sizeof(*rg));
  if (rg == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  rg->device = device;
  atomic_init(&rg->references, 1);
  pthread_mutex_init(&rg->instance_lock, NULL);
  pthread_cond_init(&rg->instance_free, NULL);
  vknn_status s = build(rg, plan);
  if (s != VKNN_STATUS_NONE) {
    vknn_recorded_graph_free(rg);
    return s;
  }
  *out = rg;
  return VKNN_STATUS_NONE;
}
