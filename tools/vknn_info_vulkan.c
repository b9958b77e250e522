#include "vknn_info_vulkan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool has_extension(VkPhysicalDevice device, const char *name) {
  uint32_t count = 0;
  vkEnumerateDeviceExtensionProperties(device, NULL, &count, NULL);
  VkExtensionProperties *list = calloc(count ? count : 1, sizeof(*list));
  if (list == NULL) return false;
  vkEnumerateDeviceExtensionProperties(device, NULL, &count, list);
  bool found = false;
  for (uint32_t i = 0; i < count && !found; ++i) found = strcmp(list[i].extensionName, name) == 0;
  free(list);
  return found;
}

static const char *yes(VkBool32 value) { return value ? "yes" : "no"; }

static void print_subgroups(const vknn_vk *vk) {
  VkPhysicalDeviceSubgroupProperties subgroup = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
  VkPhysicalDeviceProperties2 properties = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
                                            .pNext = &subgroup};
  vkGetPhysicalDeviceProperties2(vk->physical_device, &properties);
  static const struct { VkSubgroupFeatureFlagBits bit; const char *name; } ops[] = {
      {VK_SUBGROUP_FEATURE_BASIC_BIT, "basic"},       {VK_SUBGROUP_FEATURE_VOTE_BIT, "vote"},
      {VK_SUBGROUP_FEATURE_ARITHMETIC_BIT, "arithmetic"}, {VK_SUBGROUP_FEATURE_BALLOT_BIT, "ballot"},
      {VK_SUBGROUP_FEATURE_SHUFFLE_BIT, "shuffle"},   {VK_SUBGROUP_FEATURE_SHUFFLE_RELATIVE_BIT, "shuffle_relative"},
      {VK_SUBGROUP_FEATURE_CLUSTERED_BIT, "clustered"}, {VK_SUBGROUP_FEATURE_QUAD_BIT, "quad"},
  };
  printf("subgroup size:    %u (compute: %s)\nsubgroup ops:    ", subgroup.subgroupSize,
         yes((subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) != 0));
  for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); ++i)
    if (subgroup.supportedOperations & ops[i].bit) printf(" %s", ops[i].name);
  printf("\n");
}

/* Arithmetic and storage widths; each structure chained only where its
 * extension (or Vulkan 1.1) provides it. */
static void print_widths(const vknn_vk *vk) {
  VkPhysicalDevice pd = vk->physical_device;
  VkPhysicalDevice16BitStorageFeatures storage16 = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES};
  VkPhysicalDevice8BitStorageFeatures storage8 = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES};
  VkPhysicalDeviceShaderFloat16Int8Features arithmetic = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES};
  VkPhysicalDeviceFeatures2 features = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
                                        .pNext = &storage16};
  void **tail = &storage16.pNext;
  if (has_extension(pd, VK_KHR_8BIT_STORAGE_EXTENSION_NAME)) *tail = &storage8, tail = &storage8.pNext;
  if (has_extension(pd, VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME)) *tail = &arithmetic;
  vkGetPhysicalDeviceFeatures2(pd, &features);
  printf("float16 arith:    %s\nint8 arith:       %s\nint16 / int64:    %s / %s\n",
         yes(arithmetic.shaderFloat16), yes(arithmetic.shaderInt8),
         yes(features.features.shaderInt16), yes(features.features.shaderInt64));
  printf("float64 arith:    %s\n", yes(features.features.shaderFloat64));
  printf("16-bit storage:   %s (push constants %s)\n8-bit storage:    %s (push constants %s)\n",
         yes(storage16.storageBuffer16BitAccess), yes(storage16.storagePushConstant16),
         yes(storage8.storageBuffer8BitAccess), yes(storage8.storagePushConstant8));
}

static void print_integer_dot(const vknn_vk *vk) {
  bool present = has_extension(vk->physical_device, VK_KHR_SHADER_INTEGER_DOT_PRODUCT_EXTENSION_NAME);
  printf("integer dot:      %s", present ? "VK_KHR_shader_integer_dot_product" : "no");
  if (present)
    printf(", 4x8-bit packed accelerated: unsigned %s, signed %s, mixed %s",
           yes(vk->dot4x8_accelerated[0]), yes(vk->dot4x8_accelerated[1]),
           yes(vk->dot4x8_accelerated[2]));
  printf("\n");
}

static void print_external(const vknn_vk *vk) {
  static const struct { VkExternalMemoryHandleTypeFlagBits type; const char *name; } memory[] = {
      {VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT, "opaque_fd"},
      {VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT, "dma_buf"},
      {VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT, "host_allocation"},
  };
  printf("external memory: ");
  for (size_t i = 0; i < sizeof(memory) / sizeof(memory[0]); ++i) {
    VkPhysicalDeviceExternalBufferInfo info = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_BUFFER_INFO,
        .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, .handleType = memory[i].type};
    VkExternalBufferProperties props = {.sType = VK_STRUCTURE_TYPE_EXTERNAL_BUFFER_PROPERTIES};
    vkGetPhysicalDeviceExternalBufferProperties(vk->physical_device, &info, &props);
    if (props.externalMemoryProperties.externalMemoryFeatures & VK_EXTERNAL_MEMORY_FEATURE_IMPORTABLE_BIT)
      printf(" %s", memory[i].name);
  }
  printf(" (importable)\nexternal fences: ");
  int exportable = 0;
  static const struct { VkExternalFenceHandleTypeFlagBits type; const char *name; } fences[] = {
      {VK_EXTERNAL_FENCE_HANDLE_TYPE_OPAQUE_FD_BIT, "opaque_fd"},
      {VK_EXTERNAL_FENCE_HANDLE_TYPE_SYNC_FD_BIT, "sync_fd"},
  };
  for (size_t i = 0; i < sizeof(fences) / sizeof(fences[0]); ++i) {
    VkPhysicalDeviceExternalFenceInfo info = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_FENCE_INFO, .handleType = fences[i].type};
    VkExternalFenceProperties props = {.sType = VK_STRUCTURE_TYPE_EXTERNAL_FENCE_PROPERTIES};
    vkGetPhysicalDeviceExternalFenceProperties(vk->physical_device, &info, &props);
    if (props.externalFenceFeatures & VK_EXTERNAL_FENCE_FEATURE_EXPORTABLE_BIT)
      exportable += printf(" %s", fences[i].name);
  }
  printf("%s (exportable)\nhost import:      %s\n", exportable ? "" : " none",
         vk->host_import_alignment ? "VK_EXT_external_memory_host" : "no");
}

static void print_limits(const vknn_vk *vk) {
  const VkPhysicalDeviceLimits *l = &vk->properties.limits;
  printf("limits:\n");
  printf("  workgroup count    %u x %u x %u\n", l->maxComputeWorkGroupCount[0],
         l->maxComputeWorkGroupCount[1], l->maxComputeWorkGroupCount[2]);
  printf("  workgroup size     %u x %u x %u, %u invocations\n", l->maxComputeWorkGroupSize[0],
         l->maxComputeWorkGroupSize[1], l->maxComputeWorkGroupSize[2],
         l->maxComputeWorkGroupInvocations);
  printf("  shared memory      %u bytes\n", l->maxComputeSharedMemorySize);
  printf("  storage binding    %u bytes, offset alignment %llu\n", l->maxStorageBufferRange,
         (unsigned long long)l->minStorageBufferOffsetAlignment);
  printf("  texel buffer       %u elements, offset alignment %llu\n", l->maxTexelBufferElements,
         (unsigned long long)l->minTexelBufferOffsetAlignment);
  printf("  push constants     %u bytes\n", l->maxPushConstantsSize);
  printf("  timestamps         %u valid bits on the compute queue, %.3f ns per tick\n",
         vk->timestamp_valid_bits, (double)l->timestampPeriod);
}

void vknn_info_print_vulkan(const vknn_vk *vk) {
  const VkPhysicalDeviceProperties *p = &vk->properties;
  printf("vulkan device:    %s, vendor 0x%04x device 0x%04x, Vulkan %u.%u.%u\n", p->deviceName,
         p->vendorID, p->deviceID, VK_API_VERSION_MAJOR(p->apiVersion),
         VK_API_VERSION_MINOR(p->apiVersion), VK_API_VERSION_PATCH(p->apiVersion));
  print_subgroups(vk);
  if (vk->parallel_invocations != 0)
    printf("in flight:        %u invocations at once (multiprocessors x resident warps)\n",
           vk->parallel_invocations);
  else
    printf("in flight:        unknown (matrix products split no reduction for width)\n");
  print_widths(vk);
  print_integer_dot(vk);
  print_external(vk);
  print_limits(vk);
}
