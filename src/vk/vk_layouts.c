/* Descriptor set and pipeline layouts of a device, by binding count and
 * which of the bindings are storage texel buffers (the others are storage
 * buffers). Every kernel's layout is one of these, so pipelines with the
 * same bindings share one. Created on first use, kept until the device
 * closes; entries never move, so the pointers handed out stay valid. */
#include "vk/vk_layouts.h"

#include <string.h>


static VkResult create_layout(VkDevice device, uint32_t binding_count, uint32_t texel_mask,
                              vknn_vk_layout *out) {
  VkDescriptorSetLayoutBinding bindings[VKNN_MAX_BINDINGS];
  for (uint32_t i = 0; i < binding_count; ++i) {
    bindings[i] = (VkDescriptorSetLayoutBinding){
        .binding = i,
        .descriptorType = texel_mask & (1u << i) ? VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER
                                                 : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
        .descriptorCount = 1,
        .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT};
  }
  VkDescriptorSetLayoutCreateInfo set = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                                         .bindingCount = binding_count,
                                         .pBindings = bindings};
  VkResult r = vkCreateDescriptorSetLayout(device, &set, NULL, &out->set);
  if (r != VK_SUCCESS) return r;
  VkPushConstantRange push = {.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
                              .size = VKNN_PUSH_CONSTANT_SIZE};
  VkPipelineLayoutCreateInfo layout = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                       .setLayoutCount = 1,
                                       .pSetLayouts = &out->set,
                                       .pushConstantRangeCount = 1,
                                       .pPushConstantRanges = &push};
  r = vkCreatePipelineLayout(device, &layout, NULL, &out->pipeline);
  if (r != VK_SUCCESS) vkDestroyDescriptorSetLayout(device, out->set, NULL);
  return r;
}

vknn_status vknn_vk_layout_get(vknn_vk_layout_table *t, VkDevice device, const vknn_logger *log,
                               uint32_t binding_count, uint32_t texel_mask,
                               const vknn_vk_layout **out) {
  if (binding_count == 0 || binding_count > VKNN_MAX_BINDINGS) return VKNN_STATUS_GENERAL_FAILURE;
  texel_mask &= (1u << binding_count) - 1;
  vknn_status status = VKNN_STATUS_NONE;
  pthread_mutex_lock(&t->lock);
  uint32_t i = 0;
  while (i < t->count && (t->items[i].binding_count != binding_count ||
                                  t->items[i].texel_mask != texel_mask))
    ++i;
  if (i == t->count) {
    if (i == VKNN_MAX_LAYOUTS) {
      VKNN_LOG_E(log, "vulkan", "more than %d distinct descriptor layouts", VKNN_MAX_LAYOUTS);
      status = VKNN_STATUS_GENERAL_FAILURE;
    } else {
      vknn_vk_layout *l = &t->items[i];
      *l = (vknn_vk_layout){.binding_count = binding_count, .texel_mask = texel_mask};
      VkResult r = create_layout(device, binding_count, texel_mask, l);
      if (r == VK_SUCCESS) t->count++;
        else VKNN_LOG_E(log, "vulkan", "creating a descriptor layout failed (%d)", r);
      status = r == VK_SUCCESS ? VKNN_STATUS_NONE
               : r == VK_ERROR_OUT_OF_HOST_MEMORY || r == VK_ERROR_OUT_OF_DEVICE_MEMORY
                   ? VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT
                   : VKNN_STATUS_GENERAL_FAILURE;
    }
  }
  if (status == VKNN_STATUS_NONE) *out = &t->items[i];
  pthread_mutex_unlock(&t->lock);
  return status;
}

void vknn_vk_layout_table_init(vknn_vk_layout_table *t) {
  memset(t, 0, sizeof(*t));
  pthread_mutex_init(&t->lock, NULL);
}

void vknn_vk_layout_table_destroy(vknn_vk_layout_table *t, VkDevice device) {
  for (uint32_t i = 0; i < t->count; ++i) {
    vkDestroyPipelineLayout(device, t->items[i].pipeline, NULL);
    vkDestroyDescriptorSetLayout(device, t->items[i].set, NULL);
  }
  t->count = 0;
}
