/* Records a compiled graph: per dispatch, the pipeline, a descriptor set of
 * the tensors it binds, push constants and the dispatch itself; a barrier
 * only where a dispatch touches bytes that an earlier one wrote (or writes
 * bytes one read). Barriers order commands across the segments too: they
 * cover every command submitted earlier on the queue. */
#include "runtime/graph_recording.h"

#include <stdlib.h>
#include <string.h>

#include "util/fault_injection.h"

#define TAG "compilation"

_Static_assert(VKNN_STATUS_BLOCK_BINDING == VKNN_STATUS_BINDING,
               "shaders/runtime_status.glsl and vk_context.h disagree on the status binding");

typedef struct recording_target {
  const vknn_recording_resources *inst;
  const vknn_io_binding *inputs; /* NULL: the staging buffer */
  const vknn_io_binding *outputs;
  vknn_recording *rec; /* its descriptor pool and texel-buffer views */
} recording_target;

/* Where model input or output i lies in the request (or the staging
 * buffer): the memory the execution reads it from or writes it to. */
static vknn_io_binding request_side(const recording_target *t, bool input, uint32_t i) {
  const vknn_recorded_graph *rg = t->inst->graph;
  const vknn_io_binding *bound = input ? t->inputs : t->outputs;
  if (bound != NULL) return bound[i];
  return (vknn_io_binding){t->inst->staging, input ? rg->inputs[i].offset : rg->outputs[i].offset};
}

static void tensor_buffer(const recording_target *t, const vknn_tensor_place *place,
                          VkDescriptorBufferInfo *out) {
  const vknn_recording_resources *inst = t->inst;
  const vknn_recorded_graph *rg = inst->graph;
  out->offset = place->offset;
  out->range = place->byte_size;
  if (inst->io != VK_NULL_HANDLE &&
      (place->region == VKNN_REGION_INPUT || place->region == VKNN_REGION_OUTPUT)) {
    /* The device-local copy, at the value's staging offset. */
    out->buffer = inst->io;
    if (place->region == VKNN_REGION_OUTPUT) out->offset += rg->input_region_size;
    return;
  }
  switch (place->region) {
    case VKNN_REGION_CONSTANT: out->buffer = rg->constants.buffer; break;
    case VKNN_REGION_ARENA: out->buffer = inst->arena; break;
    case VKNN_REGION_POOL: out->buffer = vknn_pool_binding_buffer(&rg->pools[place->pool_index]); break;
    case VKNN_REGION_INPUT: {
      vknn_io_binding b = request_side(t, true, place->io_index);
      out->buffer = b.buffer, out->offset = b.offset;
      break;
    }
    default: {
      vknn_io_binding b = request_side(t, false, place->io_index);
      out->buffer = b.buffer, out->offset = b.offset;
      break;
    }
  }
}

static uint32_t texel_binding_count(const vknn_recorded_graph *rg) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < rg->dispatches.count; ++i)
    for (uint32_t b = 0; b < rg->dispatches.items[i].binding_count; ++b)
      n += rg->dispatches.items[i].bindings[b].texel != VKNN_TEXEL_NONE;
  return n;
}

/* The pool of the recording's descriptor sets, and room for its views. */
static vknn_status create_descriptor_pool(const vknn_recorded_graph *rg, vknn_recording *rec) {
  uint32_t sets = rg->dispatches.count ? rg->dispatches.count : 1;
  uint32_t texels = texel_binding_count(rg);
  VkDescriptorPoolSize sizes[2] = {
      {.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .descriptorCount = sets * VKNN_MAX_BINDINGS},
      {.type = VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER, .descriptorCount = texels}};
  VkDescriptorPoolCreateInfo info = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                     .maxSets = sets,
                                     .poolSizeCount = texels > 0 ? 2 : 1,
                                     .pPoolSizes = sizes};
  if (texels > 0) {
    rec->views = vknn_calloc(texels, sizeof(VkBufferView));
    if (rec->views == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  }
  return vknn_vk_status(vkCreateDescriptorPool(rg->device->vk.device, &info, NULL,
                                               &rec->descriptor_pool));
}

static VkFormat texel_vk_format(vknn_texel_format format) {
  switch (format) {
    case VKNN_TEXEL_F32: return VK_FORMAT_R32_SFLOAT;
    case VKNN_TEXEL_F32X4: return VK_FORMAT_R32G32B32A32_SFLOAT;
    case VKNN_TEXEL_F16: return VK_FORMAT_R16_SFLOAT;
    case VKNN_TEXEL_F16X4: return VK_FORMAT_R16G16B16A16_SFLOAT;
    case VKNN_TEXEL_U8: return VK_FORMAT_R8_UINT;
    case VKNN_TEXEL_U8X4: return VK_FORMAT_R8G8B8A8_UINT;
    case VKNN_TEXEL_I8: return VK_FORMAT_R8_SINT;
    case VKNN_TEXEL_I8X4: return VK_FORMAT_R8G8B8A8_SINT;
    default: return VK_FORMAT_UNDEFINED;
  }
}

/* A view of a tensor read as texels, owned by the recording. The lowering
 * chose texel reads only for tensors that fill whole texels and fit the
 * device's limit, and the planner aligned their offsets; checked again here
 * since a view breaking those rules is invalid Vulkan usage. */
static vknn_status create_texel_view(const recording_target *t, const VkDescriptorBufferInfo *where,
                                     vknn_texel_format format, VkBufferView *out) {
  const vknn_vk *vk = &t->inst->graph->device->vk;
  uint32_t bytes = vknn_texel_bytes(format);
  const VkPhysicalDeviceLimits *limits = &vk->properties.limits;
  if (bytes == 0 || where->range % bytes != 0 ||
      where->range / bytes > limits->maxTexelBufferElements ||
      where->offset % limits->minTexelBufferOffsetAlignment != 0) {
    VKNN_LOG_E(&t->inst->graph->device->log, TAG,
               "a tensor of %llu bytes at offset %llu cannot be read as texels of %u bytes",
               (unsigned long long)where->range, (unsigned long long)where->offset, bytes);
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  VkBufferViewCreateInfo info = {.sType = VK_STRUCTURE_TYPE_BUFFER_VIEW_CREATE_INFO,
                                 .buffer = where->buffer,
                                 .format = texel_vk_format(format),
                                 .offset = where->offset,
                                 .range = where->range};
  VkResult r = vknn_vk_injected_fault();
  if (r == VK_SUCCESS) r = vkCreateBufferView(vk->device, &info, NULL, out);
  return vknn_vk_status(r);
}

static VkWriteDescriptorSet buffer_write(VkDescriptorSet set, uint32_t binding,
                                         const VkDescriptorBufferInfo *info) {
  return (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                .dstSet = set,
                                .dstBinding = binding,
                                .descriptorCount = 1,
                                .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                .pBufferInfo = info};
}

static VkWriteDescriptorSet texel_write(VkDescriptorSet set, uint32_t binding,
                                        const VkBufferView *view) {
  return (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                .dstSet = set,
                                .dstBinding = binding,
                                .descriptorCount = 1,
                                .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER,
                                .pTexelBufferView = view};
}

/* Writes binding b of a dispatch's set: a storage buffer, or a view of a
 * tensor read as texels. */
static vknn_status binding_write(const recording_target *t, const vknn_dispatch *d, uint32_t b,
                                 VkDescriptorSet set, VkDescriptorBufferInfo *info,
                                 VkWriteDescriptorSet *out) {
  const vknn_recorded_graph *rg = t->inst->graph;
  tensor_buffer(t, &rg->places[d->bindings[b].tensor], info);
  if (d->bindings[b].texel == VKNN_TEXEL_NONE) {
    *out = buffer_write(set, b, info);
    return VKNN_STATUS_NONE;
  }
  VkBufferView *view = &t->rec->views[t->rec->view_count];
  vknn_status s = create_texel_view(t, info, d->bindings[b].texel, view);
  if (s != VKNN_STATUS_NONE) return s;
  t->rec->view_count++;
  *out = texel_write(set, b, view);
  return VKNN_STATUS_NONE;
}

static vknn_status write_descriptor_set(const recording_target *t, const vknn_dispatch *d,
                                        const vknn_vk_layout *layout, VkDescriptorSet *out_set) {
  const vknn_recorded_graph *rg = t->inst->graph;
  vknn_vk *vk = &rg->device->vk;
  VkDescriptorSetAllocateInfo alloc = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                       .descriptorPool = t->rec->descriptor_pool,
                                       .descriptorSetCount = 1,
                                       .pSetLayouts = &layout->set};
  VkResult r = vknn_vk_injected_fault();
  if (r == VK_SUCCESS) r = vkAllocateDescriptorSets(vk->device, &alloc, out_set);
  if (r != VK_SUCCESS) return vknn_vk_status(r);
  VkDescriptorBufferInfo infos[VKNN_MAX_BINDINGS];
  VkWriteDescriptorSet writes[VKNN_MAX_BINDINGS];
  uint32_t count = d->binding_count;
  vknn_status s = VKNN_STATUS_NONE;
  for (uint32_t b = 0; b < d->binding_count && s == VKNN_STATUS_NONE; ++b)
    s = binding_write(t, d, b, *out_set, &infos[b], &writes[b]);
  if (s != VKNN_STATUS_NONE) return s;
  if (vknn_embedded_shaders[d->shader].reports_status) {
    infos[count] = (VkDescriptorBufferInfo){t->inst->status, 0, VK_WHOLE_SIZE};
    writes[count] = buffer_write(*out_set, VKNN_STATUS_BINDING, &infos[count]);
    count++;
  }
  vkUpdateDescriptorSets(vk->device, count, writes, 0, NULL);
  return VKNN_STATUS_NONE;
}

/* The lowering's texel formats must name exactly the bindings the kernel
 * declares as texel buffers. */
static vknn_status check_texel_bindings(const recording_target *t, const vknn_dispatch *d) {
  uint32_t declared = vknn_embedded_shaders[d->shader].texel_bindings;
  uint32_t given = 0;
  for (uint32_t b = 0; b < d->binding_count; ++b)
    given |= (d->bindings[b].texel != VKNN_TEXEL_NONE) << b;
  if (given == (declared & ((1u << vknn_dispatch_layout_bindings(d)) - 1))) return VKNN_STATUS_NONE;
  VKNN_LOG_E(&t->inst->graph->device->log, TAG,
             "%s reads bindings 0x%x as texels, its dispatch gives texel formats for 0x%x",
             vknn_embedded_shaders[d->shader].name, declared, given);
  return VKNN_STATUS_GENERAL_FAILURE;
}

/* A kernel that reports run-time errors needs the instance's status word and
 * the binding reserved for it. */
static vknn_status check_status_binding(const recording_target *t, const vknn_dispatch *d) {
  if (!vknn_embedded_shaders[d->shader].reports_status) return VKNN_STATUS_NONE;
  if (t->inst->status != VK_NULL_HANDLE && d->binding_count <= VKNN_STATUS_BINDING)
    return VKNN_STATUS_NONE;
  VKNN_LOG_E(&t->inst->graph->device->log, TAG,
             "%s reports run-time errors but %s", vknn_embedded_shaders[d->shader].name,
             t->inst->status == VK_NULL_HANDLE ? "the instance has no status word"
                                               : "its tensors take the status binding");
  return VKNN_STATUS_GENERAL_FAILURE;
}

/* Accesses since the last barrier. */
typedef struct hazard_tracker {
  struct {
    vknn_region region;
    uint64_t begin, end;
    uint32_t tensor;
    vknn_access access;
  } pending[64];
  uint32_t count;
} hazard_tracker;

/* Two accesses of overlapping bytes conflict when either writes, unless both
 * write disjoint slices of the same tensor. */
static bool conflicts(const hazard_tracker *h, vknn_region region, uint64_t begin, uint64_t end,
                      uint32_t tensor, vknn_access access) {
  const vknn_access disjoint_write = VKNN_ACCESS_WRITE | VKNN_ACCESS_DISJOINT;
  for (uint32_t i = 0; i < h->count; ++i) {
    if (h->pending[i].region != region || begin >= h->pending[i].end || h->pending[i].begin >= end)
      continue;
    if (!((access | h->pending[i].access) & VKNN_ACCESS_WRITE)) continue;
    bool both_disjoint = (access & disjoint_write) == disjoint_write &&
                         (h->pending[i].access & disjoint_write) == disjoint_write &&
                         !(access & VKNN_ACCESS_READ) && !(h->pending[i].access & VKNN_ACCESS_READ) &&
                         h->pending[i].tensor == tensor;
    if (!both_disjoint) return true;
  }
  return false;
}

static bool needs_barrier(hazard_tracker *h, const vknn_recorded_graph *rg, const vknn_dispatch *d) {
  bool barrier = h->count + d->binding_count > 64;
  for (uint32_t b = 0; b < d->binding_count && !barrier; ++b) {
    const vknn_tensor_place *t = &rg->places[d->bindings[b].tensor];
    barrier = conflicts(h, t->region, t->offset, t->offset + t->byte_size, d->bindings[b].tensor,
                        d->bindings[b].access);
  }
  if (barrier) h->count = 0;
  for (uint32_t b = 0; b < d->binding_count; ++b) {
    const vknn_tensor_place *t = &rg->places[d->bindings[b].tensor];
    h->pending[h->count].region = t->region;
    h->pending[h->count].begin = t->offset;
    h->pending[h->count].end = t->offset + t->byte_size;
    h->pending[h->count].tensor = d->bindings[b].tensor;
    h->pending[h->count].access = d->bindings[b].access;
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

static vknn_status record_dispatch(const recording_target *t, VkCommandBuffer cmd,
                                   const vknn_dispatch *d) {
  const vknn_recorded_graph *rg = t->inst->graph;
  vknn_vk *vk = &rg->device->vk;
  vknn_vk_pipeline pipeline;
  VkDescriptorSet set;
  vknn_status s = check_status_binding(t, d);
  if (s == VKNN_STATUS_NONE) s = check_texel_bindings(t, d);
  if (s == VKNN_STATUS_NONE)
    s = vknn_vk_get_pipeline(vk, d->shader, vknn_dispatch_layout_bindings(d), d->local_size, d->spec,
                             d->spec_count, &pipeline);
  if (s == VKNN_STATUS_NONE) s = write_descriptor_set(t, d, pipeline.layout, &set);
  if (s != VKNN_STATUS_NONE) return s;
  VkPipelineLayout layout = pipeline.layout->pipeline;
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.pipeline);
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

/* The status word starts every run at 0 (no violation), written by the GPU
 * before the first kernel: no host write between executions. */
static void reset_status(VkCommandBuffer cmd, VkBuffer status) {
  vkCmdFillBuffer(cmd, status, 0, VK_WHOLE_SIZE, 0);
  VkMemoryBarrier barrier = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                             .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                             .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT};
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0,
                       1, &barrier, 0, NULL, 0, NULL);
}

/* io_copies: the model inputs the dispatches read, copied from the request
 * into their device-local places before the first dispatch. */
static void copy_inputs(const recording_target *t, VkCommandBuffer cmd) {
  const vknn_recorded_graph *rg = t->inst->graph;
  for (uint32_t i = 0; i < rg->input_count; ++i) {
    const vknn_io_slot *slot = &rg->inputs[i];
    if (!slot->bound || slot->byte_size == 0) continue;
    vknn_io_binding from = request_side(t, true, i);
    VkBufferCopy region = {from.offset, slot->offset, slot->byte_size};
    vkCmdCopyBuffer(cmd, from.buffer, t->inst->io, 1, &region);
  }
  VkMemoryBarrier barrier = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                             .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                             .dstAccessMask = VK_ACCESS_SHADER_READ_BIT};
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0,
                       1, &barrier, 0, NULL, 0, NULL);
}

/* io_copies: the outputs, copied from their device-local places into the
 * request after the last dispatch (the host barrier follows). */
static void copy_outputs(const recording_target *t, VkCommandBuffer cmd) {
  const vknn_recorded_graph *rg = t->inst->graph;
  memory_barrier(cmd, VK_ACCESS_SHADER_WRITE_BIT, VK_ACCESS_TRANSFER_READ_BIT,
                 VK_PIPELINE_STAGE_TRANSFER_BIT);
  for (uint32_t i = 0; i < rg->output_count; ++i) {
    const vknn_io_slot *slot = &rg->outputs[i];
    if (!slot->bound || slot->byte_size == 0) continue;
    vknn_io_binding to = request_side(t, false, i);
    VkBufferCopy region = {slot->offset, to.offset, slot->byte_size};
    vkCmdCopyBuffer(cmd, t->inst->io, to.buffer, 1, &region);
  }
}

/* The outputs, the status word and the count words made visible to the
 * host: written by the kernels, and by the output copies (copied). */
static void host_barrier(VkCommandBuffer cmd, bool copied) {
  VkMemoryBarrier barrier = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                             .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT |
                                              (copied ? VK_ACCESS_TRANSFER_WRITE_BIT : 0),
                             .dstAccessMask = VK_ACCESS_HOST_READ_BIT};
  VkPipelineStageFlags src = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT |
                             (copied ? VK_PIPELINE_STAGE_TRANSFER_BIT : 0);
  vkCmdPipelineBarrier(cmd, src, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &barrier, 0, NULL, 0, NULL);
}

/* Dispatches [first, end) into one segment; the first segment resets the
 * status word, the last one makes the outputs (and the status word) visible
 * to the host. Profiled graphs write a timestamp after every dispatch, the
 * first segment starting them once the input copies are done (so that the
 * first dispatch's time is its own, not the upload's). */
static vknn_status record_segment(const recording_target *t, hazard_tracker *hazards,
                                  VkCommandBuffer cmd, uint32_t first, uint32_t end,
                                  uint32_t *barriers) {
  const vknn_recorded_graph *rg = t->inst->graph;
  VkQueryPool timestamps = t->inst->timestamps;
  VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  VkResult r = vkBeginCommandBuffer(cmd, &begin);
  if (r != VK_SUCCESS) return vknn_vk_status(r);
  bool last = end == rg->dispatches.count;
  if (first == 0 && rg->info.profiled) vkCmdResetQueryPool(cmd, timestamps, 0, rg->timestamp_count);
  if (first == 0 && t->inst->status != VK_NULL_HANDLE) reset_status(cmd, t->inst->status);
  if (first == 0 && t->inst->io != VK_NULL_HANDLE) copy_inputs(t, cmd);
  if (first == 0 && rg->info.profiled)
    vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, timestamps, 0);
  vknn_status s = VKNN_STATUS_NONE;
  for (uint32_t i = first; i < end && s == VKNN_STATUS_NONE; ++i) {
    const vknn_dispatch *d = &rg->dispatches.items[i];
    if (needs_barrier(hazards, rg, d)) {
      memory_barrier(cmd, VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_SHADER_READ_BIT,
                     VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT,
                     VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT);
      (*barriers)++;
    }
    s = record_dispatch(t, cmd, d);
    if (rg->info.profiled)
      vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, timestamps, i + 1);
  }
  if (last && t->inst->io != VK_NULL_HANDLE) copy_outputs(t, cmd);
  if (last) host_barrier(cmd, t->inst->io != VK_NULL_HANDLE);
  r = vkEndCommandBuffer(cmd);
  atomic_fetch_add(&rg->device->vk.counters.command_buffers_recorded, 1);
  return s != VKNN_STATUS_NONE ? s : vknn_vk_status(r);
}

static vknn_status allocate_segments(const vknn_recording_resources *inst, vknn_recording *rec) {
  const vknn_recorded_graph *rg = inst->graph;
  uint32_t n = rg->dispatches.count;
  rec->segment_count = n == 0 ? 1 : (n + VKNN_SEGMENT_DISPATCHES - 1) / VKNN_SEGMENT_DISPATCHES;
  rec->timed_batch = vknn_calloc(rec->segment_count + 2, sizeof(VkCommandBuffer));
  if (rec->timed_batch == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  rec->segments = rec->timed_batch + 1;
  if (inst->timing != NULL) {
    rec->timed_batch[0] = inst->timing[0];
    rec->timed_batch[rec->segment_count + 1] = inst->timing[1];
  }
  VkCommandBufferAllocateInfo alloc = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                       .commandPool = inst->command_pool,
                                       .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                       .commandBufferCount = rec->segment_count};
  VkResult r = vknn_vk_injected_fault();
  if (r == VK_SUCCESS) r = vkAllocateCommandBuffers(rg->device->vk.device, &alloc, rec->segments);
  if (r != VK_SUCCESS) memset(rec->segments, 0, rec->segment_count * sizeof(VkCommandBuffer));
  return vknn_vk_status(r);
}

vknn_status vknn_recording_create(const vknn_recording_resources *inst, const vknn_io_binding *inputs,
                                  const vknn_io_binding *outputs, vknn_recording *out) {
  memset(out, 0, sizeof(*out));
  const vknn_recorded_graph *rg = inst->graph;
  vknn_status s = create_descriptor_pool(rg, out);
  if (s == VKNN_STATUS_NONE) s = allocate_segments(inst, out);
  recording_target t = {inst, inputs, outputs, out};
  hazard_tracker hazards = {.count = 0};
  uint32_t n = rg->dispatches.count;
  for (uint32_t seg = 0; seg < out->segment_count && s == VKNN_STATUS_NONE; ++seg) {
    uint32_t first = seg * VKNN_SEGMENT_DISPATCHES;
    uint32_t end = first + VKNN_SEGMENT_DISPATCHES < n ? first + VKNN_SEGMENT_DISPATCHES : n;
    s = record_segment(&t, &hazards, out->segments[seg], first, end, &out->barriers);
  }
  return s;
}

void vknn_recording_destroy(const vknn_recording_resources *inst, vknn_recording *rec) {
  VkDevice device = inst->graph->device->vk.device;
  if (rec->segments != NULL && rec->segments[0] != VK_NULL_HANDLE)
    vkFreeCommandBuffers(device, inst->command_pool, rec->segment_count, rec->segments);
  free(rec->timed_batch);
  if (rec->descriptor_pool != VK_NULL_HANDLE)
    vkDestroyDescriptorPool(device, rec->descriptor_pool, NULL);
  for (uint32_t i = 0; i < rec->view_count; ++i) vkDestroyBufferView(device, rec->views[i], NULL);
  free(rec->views);
  memset(rec, 0, sizeof(*rec));
}
