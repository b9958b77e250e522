/* Prepare: compile the model, allocate its buffers, upload its constants and
 * record its command buffer once. Executions only copy request data through
 * the staging buffer and submit (execution.c). */
#include <stdlib.h>
#include <string.h>

#include "compiler.h"
#include "model_validate.h"
#include "prepared_model_internal.h"
#include "vknn/prepared_model.h"

#define TAG "compilation"

static VkDeviceSize at_least_one_word(uint64_t size) { return size ? size : 4; }

static vknn_status create_buffers(vknn_prepared_model *pm, const vknn_plan *plan) {
  vknn_vk *vk = &pm->device->vk;
  const uint64_t *size = plan->region_size;
  vknn_status s = vknn_vk_buffer_create(vk, at_least_one_word(size[VKNN_REGION_CONSTANT]),
                                        VKNN_BUFFER_DEVICE_LOCAL, &pm->constants);
  if (s == VKNN_STATUS_NONE)
    s = vknn_vk_buffer_create(vk, at_least_one_word(size[VKNN_REGION_ARENA]),
                              VKNN_BUFFER_DEVICE_LOCAL, &pm->arena);
  if (s == VKNN_STATUS_NONE)
    s = vknn_vk_buffer_create(vk, at_least_one_word(size[VKNN_REGION_INPUT] + size[VKNN_REGION_OUTPUT]),
                              VKNN_BUFFER_HOST_VISIBLE, &pm->staging);
  return s;
}

static vknn_status create_command_objects(vknn_prepared_model *pm) {
  vknn_vk *vk = &pm->device->vk;
  VkCommandPoolCreateInfo pool = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                  .queueFamilyIndex = vk->queue_family};
  VkResult r = vkCreateCommandPool(vk->device, &pool, NULL, &pm->command_pool);
  if (r == VK_SUCCESS) {
    VkCommandBufferAllocateInfo alloc = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                         .commandPool = pm->command_pool,
                                         .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                         .commandBufferCount = 1};
    r = vkAllocateCommandBuffers(vk->device, &alloc, &pm->command_buffer);
  }
  if (r == VK_SUCCESS) {
    VkFenceCreateInfo fence = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    r = vkCreateFence(vk->device, &fence, NULL, &pm->fence);
  }
  if (r == VK_SUCCESS && vk->timestamp_valid_bits > 0) {
    pm->info.profiled = pm->device->profile_dispatches;
    pm->timestamp_count = pm->info.profiled ? pm->info.dispatch_count + 1 : 2;
    VkQueryPoolCreateInfo info = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                  .queryType = VK_QUERY_TYPE_TIMESTAMP,
                                  .queryCount = pm->timestamp_count};
    r = vkCreateQueryPool(vk->device, &info, NULL, &pm->timestamps);
  }
  return vknn_vk_status(r);
}

/* Constants go through a host-visible staging buffer into device-local
 * memory, once. The barrier makes them visible to every later submission. */
static vknn_status upload_constants(vknn_prepared_model *pm, const vknn_plan *plan) {
  uint64_t size = plan->region_size[VKNN_REGION_CONSTANT];
  if (size == 0) return VKNN_STATUS_NONE;
  vknn_vk *vk = &pm->device->vk;
  vknn_vk_buffer upload;
  vknn_status s = vknn_vk_buffer_create(vk, size, VKNN_BUFFER_HOST_VISIBLE, &upload);
  if (s != VKNN_STATUS_NONE) return s;
  memset(upload.mapped, 0, size);
  for (uint32_t i = 0; i < plan->graph.tensor_count; ++i) {
    const vknn_tensor *t = &plan->graph.tensors[i];
    if (t->region == VKNN_REGION_CONSTANT)
      memcpy((uint8_t *)upload.mapped + t->offset, t->constant_data, vknn_tensor_byte_size(t));
  }
  VkCommandBufferAllocateInfo alloc = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                       .commandPool = pm->command_pool,
                                       .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                       .commandBufferCount = 1};
  VkCommandBuffer cmd;
  VkResult r = vkAllocateCommandBuffers(vk->device, &alloc, &cmd);
  if (r == VK_SUCCESS) {
    VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                      .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    vkBeginCommandBuffer(cmd, &begin);
    VkBufferCopy region = {.size = size};
    vkCmdCopyBuffer(cmd, upload.buffer, pm->constants.buffer, 1, &region);
    VkMemoryBarrier barrier = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                               .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                               .dstAccessMask = VK_ACCESS_SHADER_READ_BIT};
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT,
                         VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &barrier, 0, NULL, 0, NULL);
    r = vkEndCommandBuffer(cmd);
    atomic_fetch_add(&vk->counters.command_buffers_recorded, 1);
    s = r == VK_SUCCESS ? vknn_vk_submit_and_wait(vk, cmd, pm->fence) : vknn_vk_status(r);
    vkFreeCommandBuffers(vk->device, pm->command_pool, 1, &cmd);
  } else {
    s = vknn_vk_status(r);
  }
  vknn_vk_buffer_destroy(vk, &upload);
  return s;
}

static void tensor_buffer(const vknn_prepared_model *pm, const vknn_plan *plan,
                          const vknn_tensor *t, VkDescriptorBufferInfo *out) {
  switch (t->region) {
    case VKNN_REGION_CONSTANT: out->buffer = pm->constants.buffer; out->offset = t->offset; break;
    case VKNN_REGION_ARENA: out->buffer = pm->arena.buffer; out->offset = t->offset; break;
    case VKNN_REGION_INPUT: out->buffer = pm->staging.buffer; out->offset = t->offset; break;
    default:
      out->buffer = pm->staging.buffer;
      out->offset = plan->region_size[VKNN_REGION_INPUT] + t->offset;
      break;
  }
  out->range = t->byte_size;
}

static vknn_status create_descriptor_pool(vknn_prepared_model *pm, const vknn_plan *plan) {
  uint32_t sets = plan->dispatches.count ? plan->dispatches.count : 1;
  VkDescriptorPoolSize size = {.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                               .descriptorCount = sets * VKNN_MAX_BINDINGS};
  VkDescriptorPoolCreateInfo info = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                     .maxSets = sets,
                                     .poolSizeCount = 1,
                                     .pPoolSizes = &size};
  return vknn_vk_status(
      vkCreateDescriptorPool(pm->device->vk.device, &info, NULL, &pm->descriptor_pool));
}

static vknn_status write_descriptor_set(vknn_prepared_model *pm, const vknn_plan *plan,
                                        const vknn_dispatch *d, VkDescriptorSet *out_set) {
  vknn_vk *vk = &pm->device->vk;
  VkDescriptorSetAllocateInfo alloc = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                       .descriptorPool = pm->descriptor_pool,
                                       .descriptorSetCount = 1,
                                       .pSetLayouts = &vk->set_layouts[d->binding_count]};
  VkResult r = vkAllocateDescriptorSets(vk->device, &alloc, out_set);
  if (r != VK_SUCCESS) return vknn_vk_status(r);
  VkDescriptorBufferInfo infos[VKNN_MAX_BINDINGS];
  VkWriteDescriptorSet writes[VKNN_MAX_BINDINGS];
  for (uint32_t b = 0; b < d->binding_count; ++b) {
    tensor_buffer(pm, plan, &plan->graph.tensors[d->bindings[b].tensor], &infos[b]);
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

static bool needs_barrier(hazard_tracker *h, const vknn_plan *plan, const vknn_dispatch *d) {
  bool barrier = h->count + d->binding_count > 64;
  for (uint32_t b = 0; b < d->binding_count && !barrier; ++b) {
    const vknn_tensor *t = &plan->graph.tensors[d->bindings[b].tensor];
    barrier = conflicts(h, t->region, t->offset, t->offset + t->byte_size,
                        d->bindings[b].access & VKNN_ACCESS_WRITE);
  }
  if (barrier) h->count = 0;
  for (uint32_t b = 0; b < d->binding_count; ++b) {
    const vknn_tensor *t = &plan->graph.tensors[d->bindings[b].tensor];
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

static vknn_status record_dispatch(vknn_prepared_model *pm, const vknn_plan *plan,
                                   const vknn_dispatch *d) {
  vknn_vk *vk = &pm->device->vk;
  VkPipeline pipeline;
  VkDescriptorSet set;
  vknn_status s = vknn_vk_get_pipeline(vk, d->shader, d->binding_count, d->local_size, d->spec,
                                       d->spec_count, &pipeline);
  if (s == VKNN_STATUS_NONE) s = write_descriptor_set(pm, plan, d, &set);
  if (s != VKNN_STATUS_NONE) return s;
  VkCommandBuffer cmd = pm->command_buffer;
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
    VKNN_LOG_E(&pm->device->log, TAG, "a dispatch of %llu invocations is too large",
               (unsigned long long)d->invocations);
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  if (groups > 0) vkCmdDispatch(cmd, gx, gy, 1);
  return VKNN_STATUS_NONE;
}

static vknn_status record_commands(vknn_prepared_model *pm, const vknn_plan *plan) {
  VkCommandBuffer cmd = pm->command_buffer;
  VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  VkResult r = vkBeginCommandBuffer(cmd, &begin);
  if (r != VK_SUCCESS) return vknn_vk_status(r);
  hazard_tracker hazards = {.count = 0};
  vknn_status s = VKNN_STATUS_NONE;
  if (pm->timestamps != VK_NULL_HANDLE) {
    vkCmdResetQueryPool(cmd, pm->timestamps, 0, pm->timestamp_count);
    vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, pm->timestamps, 0);
  }
  for (uint32_t i = 0; i < plan->dispatches.count && s == VKNN_STATUS_NONE; ++i) {
    const vknn_dispatch *d = &plan->dispatches.items[i];
    pm->dispatch_kernels[i] = d->shader;
    if (needs_barrier(&hazards, plan, d)) {
      memory_barrier(cmd, VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_SHADER_READ_BIT,
                     VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT,
                     VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT);
      pm->info.barrier_count++;
    }
    s = record_dispatch(pm, plan, d);
    if (pm->info.profiled)
      vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, pm->timestamps, i + 1);
  }
  if (pm->timestamps != VK_NULL_HANDLE && !pm->info.profiled)
    vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, pm->timestamps, 1);
  /* Outputs are read by the host after the fence. */
  memory_barrier(cmd, VK_ACCESS_SHADER_WRITE_BIT, VK_ACCESS_HOST_READ_BIT,
                 VK_PIPELINE_STAGE_HOST_BIT);
  r = vkEndCommandBuffer(cmd);
  atomic_fetch_add(&pm->device->vk.counters.command_buffers_recorded, 1);
  return s != VKNN_STATUS_NONE ? s : vknn_vk_status(r);
}

static vknn_status describe_io(vknn_io_slot **out_slots, uint32_t count, const uint32_t *indexes,
                               const vknn_plan *plan, uint64_t base) {
  *out_slots = calloc(count ? count : 1, sizeof(vknn_io_slot));
  if (*out_slots == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  for (uint32_t i = 0; i < count; ++i) {
    const vknn_tensor *t = &plan->graph.tensors[indexes[i]];
    const vknn_operand *o = &plan->graph.sg->operands[indexes[i]];
    vknn_io_slot *slot = &(*out_slots)[i];
    slot->type = t->type;
    slot->rank = t->rank;
    memcpy(slot->dims, t->dims, sizeof(slot->dims));
    slot->declared_rank = o->dimension_count;
    if (o->dimension_count > 0)
      memcpy(slot->declared_dims, o->dimensions, o->dimension_count * sizeof(uint32_t));
    slot->byte_size = vknn_tensor_byte_size(t);
    slot->offset = base + t->offset;
    slot->bound = t->first_dispatch >= 0;
  }
  return VKNN_STATUS_NONE;
}

static vknn_status build(vknn_prepared_model *pm, const vknn_plan *plan) {
  const vknn_subgraph *sg = plan->graph.sg;
  pm->info.dispatch_count = plan->dispatches.count;
  pm->info.arena_bytes = plan->region_size[VKNN_REGION_ARENA];
  pm->info.constant_bytes = plan->region_size[VKNN_REGION_CONSTANT];
  uint32_t n = plan->dispatches.count ? plan->dispatches.count : 1;
  pm->dispatch_kernels = calloc(n, sizeof(vknn_shader_id));
  pm->dispatch_ms = calloc(n, sizeof(double));
  pm->ticks = calloc(n + 1, sizeof(uint64_t));
  if (pm->dispatch_kernels == NULL || pm->dispatch_ms == NULL || pm->ticks == NULL)
    return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  pm->input_count = sg->input_count;
  pm->output_count = sg->output_count;
  vknn_status s = describe_io(&pm->inputs, sg->input_count, sg->input_indexes, plan, 0);
  if (s == VKNN_STATUS_NONE)
    s = describe_io(&pm->outputs, sg->output_count, sg->output_indexes, plan,
                    plan->region_size[VKNN_REGION_INPUT]);
  if (s == VKNN_STATUS_NONE) s = create_buffers(pm, plan);
  if (s == VKNN_STATUS_NONE) s = create_command_objects(pm);
  if (s == VKNN_STATUS_NONE) s = upload_constants(pm, plan);
  if (s == VKNN_STATUS_NONE) s = create_descriptor_pool(pm, plan);
  if (s == VKNN_STATUS_NONE) s = record_commands(pm, plan);
  return s;
}

static vknn_status validate_prepare_arguments(const vknn_logger *log,
                                              vknn_execution_preference preference,
                                              vknn_priority priority) {
  if ((unsigned)preference > VKNN_PREFER_SUSTAINED_SPEED) {
    VKNN_LOG_E(log, TAG, "invalid execution preference %d", (int)preference);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  if ((unsigned)priority > VKNN_PRIORITY_HIGH) {
    VKNN_LOG_E(log, TAG, "invalid priority %d", (int)priority);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  return VKNN_STATUS_NONE;
}

vknn_status vknn_device_prepare_model(vknn_device *device, const vknn_model *model,
                                      vknn_execution_preference preference,
                                      vknn_priority priority, const vknn_deadline *deadline,
                                      vknn_prepared_model **out_prepared_model) {
  if (out_prepared_model != NULL) *out_prepared_model = NULL;
  if (device == NULL || model == NULL || out_prepared_model == NULL)
    return VKNN_STATUS_INVALID_ARGUMENT;
  vknn_status s = validate_prepare_arguments(&device->log, preference, priority);
  if (s == VKNN_STATUS_NONE) s = vknn_validate_model(&device->log, model);
  if (s == VKNN_STATUS_NONE) s = vknn_check_deadline(&device->log, TAG, deadline);
  if (s != VKNN_STATUS_NONE) return s;
  vknn_plan plan;
  s = vknn_compile(&device->log, model, device->vk.properties.limits.minStorageBufferOffsetAlignment,
                   &plan);
  if (s != VKNN_STATUS_NONE) return s;
  vknn_prepared_model *pm = calloc(1, sizeof(*pm));
  if (pm == NULL) {
    vknn_plan_release(&plan);
    return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  }
  pm->device = device;
  pm->priority = priority;
  pthread_mutex_init(&pm->lock, NULL);
  pthread_mutex_init(&pm->pending_lock, NULL);
  pthread_cond_init(&pm->pending_done, NULL);
  s = build(pm, &plan);
  vknn_plan_release(&plan);
  if (s != VKNN_STATUS_NONE) {
    vknn_prepared_model_release(pm);
    return s;
  }
  VKNN_LOG_V(&device->log, TAG, "prepared a model: %u dispatches, %u barriers",
             pm->info.dispatch_count, pm->info.barrier_count);
  *out_prepared_model = pm;
  return VKNN_STATUS_NONE;
}

vknn_status vknn_prepared_model_get_info(const vknn_prepared_model *pm,
                                         vknn_prepared_model_info *out_info) {
  if (pm == NULL || out_info == NULL) return VKNN_STATUS_INVALID_ARGUMENT;
  *out_info = pm->info;
  return VKNN_STATUS_NONE;
}

const char *vknn_prepared_model_get_dispatch_kernel(const vknn_prepared_model *pm, uint32_t i) {
  if (pm == NULL || i >= pm->info.dispatch_count) return NULL;
  return vknn_embedded_shaders[pm->dispatch_kernels[i]].name;
}

vknn_status vknn_prepared_model_get_dispatch_times(const vknn_prepared_model *pm, double *out_ms,
                                                   uint32_t count) {
  if (pm == NULL || out_ms == NULL || count < pm->info.dispatch_count)
    return VKNN_STATUS_INVALID_ARGUMENT;
  if (!pm->info.profiled || !pm->dispatch_ms_valid) return VKNN_STATUS_GENERAL_FAILURE;
  memcpy(out_ms, pm->dispatch_ms, pm->info.dispatch_count * sizeof(double));
  return VKNN_STATUS_NONE;
}

uint64_t vknn_prepared_model_read_timestamps(vknn_prepared_model *pm) {
  if (pm->timestamps == VK_NULL_HANDLE) return UINT64_MAX;
  vknn_vk *vk = &pm->device->vk;
  uint64_t *ticks = pm->ticks;
  VkResult r = vkGetQueryPoolResults(vk->device, pm->timestamps, 0, pm->timestamp_count,
                                     pm->timestamp_count * sizeof(uint64_t), ticks, sizeof(uint64_t),
                                     VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
  if (r != VK_SUCCESS) return UINT64_MAX;
  uint64_t mask = vk->timestamp_valid_bits >= 64 ? UINT64_MAX
                                                 : (1ull << vk->timestamp_valid_bits) - 1;
  double ns_per_tick = vk->properties.limits.timestampPeriod;
  for (uint32_t i = 0; pm->info.profiled && i < pm->info.dispatch_count; ++i)
    pm->dispatch_ms[i] = (double)((ticks[i + 1] - ticks[i]) & mask) * ns_per_tick * 1e-6;
  pm->dispatch_ms_valid = pm->info.profiled;
  uint64_t elapsed = (ticks[pm->timestamp_count - 1] - ticks[0]) & mask;
  return (uint64_t)((double)elapsed * ns_per_tick / 1000.0);
}

void vknn_prepared_model_retain_pending(vknn_prepared_model *pm) {
  pthread_mutex_lock(&pm->pending_lock);
  pm->pending++;
  pthread_mutex_unlock(&pm->pending_lock);
}

void vknn_prepared_model_release_pending(vknn_prepared_model *pm) {
  pthread_mutex_lock(&pm->pending_lock);
  if (--pm->pending == 0) pthread_cond_broadcast(&pm->pending_done);
  pthread_mutex_unlock(&pm->pending_lock);
}

void vknn_prepared_model_release(vknn_prepared_model *pm) {
  if (pm == NULL) return;
  pthread_mutex_lock(&pm->pending_lock);
  while (pm->pending > 0) pthread_cond_wait(&pm->pending_done, &pm->pending_lock);
  pthread_mutex_unlock(&pm->pending_lock);
  vknn_vk *vk = &pm->device->vk;
  if (pm->fence != VK_NULL_HANDLE) vkDestroyFence(vk->device, pm->fence, NULL);
  if (pm->timestamps != VK_NULL_HANDLE) vkDestroyQueryPool(vk->device, pm->timestamps, NULL);
  if (pm->command_pool != VK_NULL_HANDLE) vkDestroyCommandPool(vk->device, pm->command_pool, NULL);
  if (pm->descriptor_pool != VK_NULL_HANDLE)
    vkDestroyDescriptorPool(vk->device, pm->descriptor_pool, NULL);
  vknn_vk_buffer_destroy(vk, &pm->constants);
  vknn_vk_buffer_destroy(vk, &pm->arena);
  vknn_vk_buffer_destroy(vk, &pm->staging);
  pthread_mutex_destroy(&pm->lock);
  pthread_mutex_destroy(&pm->pending_lock);
  pthread_cond_destroy(&pm->pending_done);
  free(pm->inputs);
  free(pm->outputs);
  free(pm->dispatch_kernels);
  free(pm->dispatch_ms);
  free(pm->ticks);
  free(pm);
}
