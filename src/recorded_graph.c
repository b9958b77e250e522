/* A recorded graph: the GPU objects of one compiled plan (buffers, uploaded
 * constants, descriptor sets, one command buffer recorded once). A prepared
 * model owns one, or several when shapes are known only at execution time
 * (prepared_model.c). */
#include "recorded_graph.h"

#include <stdlib.h>
#include <string.h>

#include "zero_copy.h"
#include "fault_injection.h"

#define TAG "compilation"

static VkDeviceSize at_least_one_word(uint64_t size) { return size ? size : 4; }

static vknn_status create_buffers(vknn_recorded_graph *rg, const vknn_plan *plan) {
  vknn_vk *vk = &rg->device->vk;
  const uint64_t *size = plan->region_size;
  vknn_status s = vknn_vk_buffer_create(vk, at_least_one_word(size[VKNN_REGION_CONSTANT]),
                                        VKNN_BUFFER_DEVICE_LOCAL, &rg->constants);
  if (s == VKNN_STATUS_NONE)
    s = vknn_vk_buffer_create(vk, at_least_one_word(size[VKNN_REGION_ARENA]),
                              VKNN_BUFFER_DEVICE_LOCAL, &rg->arena);
  if (s == VKNN_STATUS_NONE)
    s = vknn_vk_buffer_create(vk, at_least_one_word(size[VKNN_REGION_INPUT] + size[VKNN_REGION_OUTPUT]),
                              VKNN_BUFFER_HOST_VISIBLE, &rg->staging);
  return s;
}

static vknn_status create_command_objects(vknn_recorded_graph *rg) {
  vknn_vk *vk = &rg->device->vk;
  VkCommandPoolCreateInfo pool = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                  .queueFamilyIndex = vk->queue_family};
  VkResult r = vkCreateCommandPool(vk->device, &pool, NULL, &rg->command_pool);
  if (r == VK_SUCCESS) {
    VkCommandBufferAllocateInfo alloc = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                         .commandPool = rg->command_pool,
                                         .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                         .commandBufferCount = 1};
    r = vknn_vk_injected_fault();
    if (r == VK_SUCCESS) r = vkAllocateCommandBuffers(vk->device, &alloc, &rg->command_buffer);
  }
  if (r == VK_SUCCESS) {
    VkFenceCreateInfo fence = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    r = vkCreateFence(vk->device, &fence, NULL, &rg->fence);
  }
  if (r == VK_SUCCESS && vk->timestamp_valid_bits > 0) {
    rg->info.profiled = rg->device->profile_dispatches;
    rg->timestamp_count = rg->info.profiled ? rg->info.dispatch_count + 1 : 2;
    VkQueryPoolCreateInfo info = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                  .queryType = VK_QUERY_TYPE_TIMESTAMP,
                                  .queryCount = rg->timestamp_count};
    r = vkCreateQueryPool(vk->device, &info, NULL, &rg->timestamps);
  }
  return vknn_vk_status(r);
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
  VkCommandBufferAllocateInfo alloc = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                       .commandPool = rg->command_pool,
                                       .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                       .commandBufferCount = 1};
  VkCommandBuffer cmd;
  VkResult r = vknn_vk_injected_fault();
  if (r == VK_SUCCESS) r = vkAllocateCommandBuffers(vk->device, &alloc, &cmd);
  if (r == VK_SUCCESS) {
    VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                      .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    vkBeginCommandBuffer(cmd, &begin);
    VkBufferCopy region = {.size = size};
    vkCmdCopyBuffer(cmd, staging.buffer, dst, 1, &region);
    VkMemoryBarrier barrier = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                               .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                               .dstAccessMask = VK_ACCESS_SHADER_READ_BIT};
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT,
                         VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &barrier, 0, NULL, 0, NULL);
    r = vkEndCommandBuffer(cmd);
    atomic_fetch_add(&vk->counters.command_buffers_recorded, 1);
    s = r == VK_SUCCESS ? vknn_vk_submit_and_wait(vk, cmd, rg->fence) : vknn_vk_status(r);
    vkFreeCommandBuffers(vk->device, rg->command_pool, 1, &cmd);
  } else {
    s = vknn_vk_status(r);
  }
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

static VkBuffer pool_buffer(const vknn_pool_binding *pool) {
  return pool->import.buffer != VK_NULL_HANDLE ? pool->import.buffer : pool->copy.buffer;
}

/* One recording of the graph's dispatches: into the default command buffer
 * (inputs and outputs in the staging buffer) or into one whose inputs and
 * outputs are bound to imported request memory (zero copy). */
typedef struct recording {
  VkCommandBuffer cmd;
  VkDescriptorPool pool;
  const vknn_io_binding *inputs; /* NULL: the staging buffer */
  const vknn_io_binding *outputs;
  uint32_t barriers;
} recording;

static void tensor_buffer(const vknn_recorded_graph *rg, const recording *rec,
                          const vknn_tensor_place *t, VkDescriptorBufferInfo *out) {
  switch (t->region) {
    case VKNN_REGION_CONSTANT: out->buffer = rg->constants.buffer; out->offset = t->offset; break;
    case VKNN_REGION_ARENA: out->buffer = rg->arena.buffer; out->offset = t->offset; break;
    case VKNN_REGION_POOL:
      out->buffer = pool_buffer(&rg->pools[t->pool_index]);
      out->offset = t->offset;
      break;
    case VKNN_REGION_INPUT:
      out->buffer = rec->inputs ? rec->inputs[t->io_index].buffer : rg->staging.buffer;
      out->offset = rec->inputs ? rec->inputs[t->io_index].offset : t->offset;
      break;
    default:
      out->buffer = rec->outputs ? rec->outputs[t->io_index].buffer : rg->staging.buffer;
      out->offset = rec->outputs ? rec->outputs[t->io_index].offset
                                 : rg->input_region_size + t->offset;
      break;
  }
  out->range = t->byte_size;
}

static vknn_status create_descriptor_pool(const vknn_recorded_graph *rg, VkDescriptorPool *out) {
  uint32_t sets = rg->dispatches.count ? rg->dispatches.count : 1;
  VkDescriptorPoolSize size = {.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                               .descriptorCount = sets * VKNN_MAX_BINDINGS};
  VkDescriptorPoolCreateInfo info = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                     .maxSets = sets,
                                     .poolSizeCount = 1,
                                     .pPoolSizes = &size};
  return vknn_vk_status(vkCreateDescriptorPool(rg->device->vk.device, &info, NULL, out));
}

static vknn_status write_descriptor_set(const vknn_recorded_graph *rg, const recording *rec,
                                        const vknn_dispatch *d, VkDescriptorSet *out_set) {
  vknn_vk *vk = &rg->device->vk;
  VkDescriptorSetAllocateInfo alloc = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                       .descriptorPool = rec->pool,
                                       .descriptorSetCount = 1,
                                       .pSetLayouts = &vk->set_layouts[d->binding_count]};
  VkResult r = vknn_vk_injected_fault();
  if (r == VK_SUCCESS) r = vkAllocateDescriptorSets(vk->device, &alloc, out_set);
  if (r != VK_SUCCESS) return vknn_vk_status(r);
  VkDescriptorBufferInfo infos[VKNN_MAX_BINDINGS];
  VkWriteDescriptorSet writes[VKNN_MAX_BINDINGS];
  for (uint32_t b = 0; b < d->binding_count; ++b) {
    tensor_buffer(rg, rec, &rg->places[d->bindings[b].tensor], &infos[b]);
    writes[b] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                       .dstSet = *out_set,
                                       .dstBinding = b,
                                       .descriptorCount = 1,
                                       .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                       .pBufferInfo = &infos[b]};
  }
  vkUpdateDescriptorSets(vk->device, d->binding_count, writes, 0, NULL);
  return VKNN_STATUS_NONE;
}

/* Accesses since the last barrier, to place barriers only where a dispatch
 * touches bytes an earlier one wrote (or writes bytes one read). */
typedef struct hazard_tracker {
  struct {
    vknn_region region;
    uint64_t begin, end;
    bool write;
  } pending[64];
  uint32_t count;
} hazard_tracker;

static bool conflicts(const hazard_tracker *h, vknn_region region, uint64_t begin, uint64_t end,
                      bool write) {
  for (uint32_t i = 0; i < h->count; ++i)
    if (h->pending[i].region == region && begin < h->pending[i].end &&
        h->pending[i].begin < end && (write || h->pending[i].write))
      return true;
  return false;
}

static bool needs_barrier(hazard_tracker *h, const vknn_recorded_graph *rg, const vknn_dispatch *d) {
  bool barrier = h->count + d->binding_count > 64;
  for (uint32_t b = 0; b < d->binding_count && !barrier; ++b) {
    const vknn_tensor_place *t = &rg->places[d->bindings[b].tensor];
    barrier = conflicts(h, t->region, t->offset, t->offset + t->byte_size,
                        d->bindings[b].access & VKNN_ACCESS_WRITE);
  }
  if (barrier) h->count = 0;
  for (uint32_t b = 0; b < d->binding_count; ++b) {
    const vknn_tensor_place *t = &rg->places[d->bindings[b].tensor];
    h->pending[h->count].region = t->region;
    h->pending[h->count].begin = t->offset;
    h->pending[h->count].end = t->offset + t->byte_size;
    h->pending[h->count].write = d->bindings[b].access & VKNN_ACCESS_WRITE;
    h->count++;
  }
  return barrier;
}

static void memory_barrier(VkCommandBuffer cmd, VkAccessFlags src, VkAccessFlags dst,
                           VkPipelineStageFlags dst_stage) {
  VkMemoryBarrier barrier = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                             .srcAccessMask = src,
                             .dstAccessMask = dst};
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, dst_stage, 0, 1, &barrier, 0,
                       NULL, 0, NULL);
}

static vknn_status record_dispatch(const vknn_recorded_graph *rg, const recording *rec,
                                   const vknn_dispatch *d) {
  vknn_vk *vk = &rg->device->vk;
  VkPipeline pipeline;
  VkDescriptorSet set;
  vknn_status s = vknn_vk_get_pipeline(vk, d->shader, d->binding_count, d->local_size, d->spec,
                                       d->spec_count, &pipeline);
  if (s == VKNN_STATUS_NONE) s = write_descriptor_set(rg, rec, d, &set);
  if (s != VKNN_STATUS_NONE) return s;
  VkCommandBuffer cmd = rec->cmd;
  VkPipelineLayout layout = vk->pipeline_layouts[d->binding_count];
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
  vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &set, 0, NULL);
  if (d->push_size > 0)
    vkCmdPushConstants(cmd, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, d->push_size, d->push);
  /* A 2-D grid of workgroups: one dimension is limited to 65535 groups. */
  uint64_t groups = (d->invocations + d->local_size - 1) / d->local_size;
  uint32_t max_x = vk->properties.limits.maxComputeWorkGroupCount[0];
  uint32_t gx = (uint32_t)(groups < max_x ? groups : max_x);
  uint32_t gy = (uint32_t)((groups + gx - 1) / gx);
  if (gy > vk->properties.limits.maxComputeWorkGroupCount[1]) {
    VKNN_LOG_E(&rg->device->log, TAG, "a dispatch of %llu invocations is too large",
               (unsigned long long)d->invocations);
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  if (groups > 0) vkCmdDispatch(cmd, gx, gy, 1);
  return VKNN_STATUS_NONE;
}

static vknn_status record_commands(const vknn_recorded_graph *rg, recording *rec) {
  VkCommandBuffer cmd = rec->cmd;
  VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  VkResult r = vkBeginCommandBuffer(cmd, &begin);
  if (r != VK_SUCCESS) return vknn_vk_status(r);
  hazard_tracker hazards = {.count = 0};
  vknn_status s = VKNN_STATUS_NONE;
  if (rg->timestamps != VK_NULL_HANDLE) {
    vkCmdResetQueryPool(cmd, rg->timestamps, 0, rg->timestamp_count);
    vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, rg->timestamps, 0);
  }
  for (uint32_t i = 0; i < rg->dispatches.count && s == VKNN_STATUS_NONE; ++i) {
    const vknn_dispatch *d = &rg->dispatches.items[i];
    if (needs_barrier(&hazards, rg, d)) {
      memory_barrier(cmd, VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_SHADER_READ_BIT,
                     VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT,
                     VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT);
      rec->barriers++;
    }
    s = record_dispatch(rg, rec, d);
    if (rg->info.profiled)
      vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, rg->timestamps, i + 1);
  }
  if (rg->timestamps != VK_NULL_HANDLE && !rg->info.profiled)
    vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, rg->timestamps, 1);
  /* Outputs are read by the host after the fence. */
  memory_barrier(cmd, VK_ACCESS_SHADER_WRITE_BIT, VK_ACCESS_HOST_READ_BIT,
                 VK_PIPELINE_STAGE_HOST_BIT);
  r = vkEndCommandBuffer(cmd);
  atomic_fetch_add(&rg->device->vk.counters.command_buffers_recorded, 1);
  return s != VKNN_STATUS_NONE ? s : vknn_vk_status(r);
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
  }
  return VKNN_STATUS_NONE;
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

static vknn_status build(vknn_recorded_graph *rg, const vknn_plan *plan) {
  const vknn_subgraph *sg = plan->graph.sg;
  rg->info.dispatch_count = plan->dispatches.count;
  rg->info.arena_bytes = plan->region_size[VKNN_REGION_ARENA];
  rg->info.constant_bytes = plan->region_size[VKNN_REGION_CONSTANT];
  uint32_t n = plan->dispatches.count ? plan->dispatches.count : 1;
  rg->dispatch_ms = vknn_calloc(n, sizeof(double));
  rg->ticks = vknn_calloc(n + 1, sizeof(uint64_t));
  if (rg->dispatch_ms == NULL || rg->ticks == NULL)
    return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  rg->input_count = sg->input_count;
  rg->output_count = sg->output_count;
  vknn_status s = describe_io(&rg->inputs, sg->input_count, sg->input_indexes, plan, 0);
  if (s == VKNN_STATUS_NONE)
    s = describe_io(&rg->outputs, sg->output_count, sg->output_indexes, plan,
                    plan->region_size[VKNN_REGION_INPUT]);
  if (s == VKNN_STATUS_NONE) s = create_buffers(rg, plan);
  if (s == VKNN_STATUS_NONE) s = create_command_objects(rg);
  if (s == VKNN_STATUS_NONE) s = upload_constants(rg, plan);
  if (s == VKNN_STATUS_NONE) s = bind_pools(rg, plan);
  if (s == VKNN_STATUS_NONE) s = keep_layout(rg, plan);
  if (s == VKNN_STATUS_NONE) s = create_descriptor_pool(rg, &rg->descriptor_pool);
  if (s == VKNN_STATUS_NONE) {
    recording rec = {.cmd = rg->command_buffer, .pool = rg->descriptor_pool};
    s = record_commands(rg, &rec);
    rg->info.barrier_count = rec.barriers;
  }
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
  return (vknn_plan_target){.alignment = vk->properties.limits.minStorageBufferOffsetAlignment,
                            .import_pools = shared && vk->host_import_alignment != 0};
}

uint64_t vknn_recorded_graph_read_timestamps(vknn_recorded_graph *rg) {
  if (rg->timestamps == VK_NULL_HANDLE) return UINT64_MAX;
  vknn_vk *vk = &rg->device->vk;
  uint64_t *ticks = rg->ticks;
  VkResult r = vkGetQueryPoolResults(vk->device, rg->timestamps, 0, rg->timestamp_count,
                                     rg->timestamp_count * sizeof(uint64_t), ticks, sizeof(uint64_t),
                                     VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
  if (r != VK_SUCCESS) return UINT64_MAX;
  uint64_t mask = vk->timestamp_valid_bits >= 64 ? UINT64_MAX
                                                 : (1ull << vk->timestamp_valid_bits) - 1;
  double ns_per_tick = vk->properties.limits.timestampPeriod;
  for (uint32_t i = 0; rg->info.profiled && i < rg->info.dispatch_count; ++i)
    rg->dispatch_ms[i] = (double)((ticks[i + 1] - ticks[i]) & mask) * ns_per_tick * 1e-6;
  rg->dispatch_ms_valid = rg->info.profiled;
  uint64_t elapsed = (ticks[rg->timestamp_count - 1] - ticks[0]) & mask;
  return (uint64_t)((double)elapsed * ns_per_tick / 1000.0);
}

vknn_status vknn_recorded_graph_create(vknn_device *device, const vknn_plan *plan,
                                       vknn_recorded_graph **out) {
  *out = NULL;
  vknn_recorded_graph *rg = vknn_calloc(1, sizeof(*rg));
  if (rg == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  rg->device = device;
  vknn_status s = build(rg, plan);
  if (s != VKNN_STATUS_NONE) {
    vknn_recorded_graph_destroy(rg);
    return s;
  }
  VKNN_LOG_V(&device->log, TAG, "recorded a graph: %u dispatches, %u barriers",
             rg->info.dispatch_count, rg->info.barrier_count);
  *out = rg;
  return VKNN_STATUS_NONE;
}

void vknn_recorded_graph_destroy(vknn_recorded_graph *rg) {
  if (rg == NULL) return;
  vknn_vk *vk = &rg->device->vk;
  vknn_zero_copy_release(rg); /* its command buffers come from rg's pool */
  if (rg->fence != VK_NULL_HANDLE) vkDestroyFence(vk->device, rg->fence, NULL);
  if (rg->timestamps != VK_NULL_HANDLE) vkDestroyQueryPool(vk->device, rg->timestamps, NULL);
  if (rg->command_pool != VK_NULL_HANDLE) vkDestroyCommandPool(vk->device, rg->command_pool, NULL);
  if (rg->descriptor_pool != VK_NULL_HANDLE)
    vkDestroyDescriptorPool(vk->device, rg->descriptor_pool, NULL);
  vknn_vk_buffer_destroy(vk, &rg->constants);
  for (uint32_t i = 0; i < rg->pool_count; ++i) {
    vknn_host_import_destroy(vk, &rg->pools[i].import);
    vknn_vk_buffer_destroy(vk, &rg->pools[i].copy);
  }
  free(rg->pools);
  vknn_vk_buffer_destroy(vk, &rg->arena);
  vknn_vk_buffer_destroy(vk, &rg->staging);
  free(rg->inputs);
  free(rg->outputs);
  free(rg->dispatch_ms);
  free(rg->ticks);
  free(rg->places);
  vknn_dispatch_list_release(&rg->dispatches);
  free(rg);
}

vknn_status vknn_recorded_graph_record_bound(const vknn_recorded_graph *rg,
                                             const vknn_io_binding *inputs,
                                             const vknn_io_binding *outputs,
                                             vknn_bound_recording *out) {
  vknn_vk *vk = &rg->device->vk;
  memset(out, 0, sizeof(*out));
  vknn_status s = create_descriptor_pool(rg, &out->descriptor_pool);
  if (s != VKNN_STATUS_NONE) return s;
  VkCommandBufferAllocateInfo alloc = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                       .commandPool = rg->command_pool,
                                       .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                       .commandBufferCount = 1};
  VkResult r = vknn_vk_injected_fault();
  if (r == VK_SUCCESS) r = vkAllocateCommandBuffers(vk->device, &alloc, &out->command_buffer);
  s = vknn_vk_status(r);
  if (s != VKNN_STATUS_NONE) return s;
  recording rec = {.cmd = out->command_buffer, .pool = out->descriptor_pool,
                   .inputs = inputs, .outputs = outputs};
  return record_commands(rg, &rec);
}

void vknn_bound_recording_destroy(const vknn_recorded_graph *rg, vknn_bound_recording *b) {
  vknn_vk *vk = &rg->device->vk;
  if (b->command_buffer != VK_NULL_HANDLE)
    vkFreeCommandBuffers(vk->device, rg->command_pool, 1, &b->command_buffer);
  if (b->descriptor_pool != VK_NULL_HANDLE)
    vkDestroyDescriptorPool(vk->device, b->descriptor_pool, NULL);
  memset(b, 0, sizeof(*b));
}
