#include "vk/vk_context.h"
#include "util/fault_injection.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VALIDATION_LAYER "VK_LAYER_KHRONOS_validation"

vknn_status vknn_vk_status(VkResult result) {
  switch (result) {
    case VK_SUCCESS: return VKNN_STATUS_NONE;
    case VK_ERROR_OUT_OF_HOST_MEMORY:
    case VK_ERROR_OUT_OF_DEVICE_MEMORY:
    case VK_ERROR_FRAGMENTED_POOL:
    case VK_ERROR_OUT_OF_POOL_MEMORY:
      return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
    case VK_ERROR_DEVICE_LOST: return VKNN_STATUS_DEVICE_UNAVAILABLE;
    default: return VKNN_STATUS_GENERAL_FAILURE;
  }
}

static VKAPI_ATTR VkBool32 VKAPI_CALL on_validation_message(
    VkDebugUtilsMessageSeverityFlagBitsEXT severity, VkDebugUtilsMessageTypeFlagsEXT types,
    const VkDebugUtilsMessengerCallbackDataEXT *data, void *user_data) {
  (void)severity;
  vknn_vk *vk = user_data;
  /* General messages are the driver reporting what it returns (Mesa logs
   * each VK_ERROR_OUT_OF_DEVICE_MEMORY), not misuse of the API. */
  if (!(types & (VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                 VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT))) {
    VKNN_LOG_E(vk->log, "vulkan", "%s", data->pMessage);
    return VK_FALSE;
  }
  atomic_fetch_add(&vk->validation_messages, 1);
  VKNN_LOG_E(vk->log, "validation-layer", "%s", data->pMessage);
  return VK_FALSE;
}

static bool layer_available(const char *name) {
  uint32_t count = 0;
  vkEnumerateInstanceLayerProperties(&count, NULL);
  VkLayerProperties *layers = vknn_calloc(count ? count : 1, sizeof(*layers));
  if (layers == NULL) return false;
  vkEnumerateInstanceLayerProperties(&count, layers);
  bool found = false;
  for (uint32_t i = 0; i < count && !found; ++i) found = strcmp(layers[i].layerName, name) == 0;
  free(layers);
  return found;
}

static vknn_status create_instance(vknn_vk *vk, bool enable_validation) {
  const char *layers[] = {VALIDATION_LAYER};
  const char *extensions[] = {VK_EXT_DEBUG_UTILS_EXTENSION_NAME};
  if (enable_validation && !layer_available(VALIDATION_LAYER)) {
    VKNN_LOG_E(vk->log, "vulkan", "validation requested but %s is not installed",
               VALIDATION_LAYER);
    return VKNN_STATUS_DEVICE_UNAVAILABLE;
  }
  VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                           .pApplicationName = "vknn",
                           .pEngineName = "vknn",
                           .apiVersion = VK_API_VERSION_1_1};
  VkInstanceCreateInfo info = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                               .pApplicationInfo = &app,
                               .enabledLayerCount = enable_validation ? 1 : 0,
                               .ppEnabledLayerNames = layers,
                               .enabledExtensionCount = enable_validation ? 1 : 0,
                               .ppEnabledExtensionNames = extensions};
  VkResult r = vkCreateInstance(&info, NULL, &vk->instance);
  if (r != VK_SUCCESS) {
    VKNN_LOG_E(vk->log, "vulkan", "vkCreateInstance failed (%d)", r);
    return VKNN_STATUS_DEVICE_UNAVAILABLE;
  }
  /* Device functions come from the instance too: the loader's trampolines
   * dispatch by handle, so several devices (with and without the validation
   * layer) can live in one process. volkLoadDevice would make the last
   * device's entry points global for every device. */
  volkLoadInstance(vk->instance);
  if (!enable_validation) return VKNN_STATUS_NONE;
  VkDebugUtilsMessengerCreateInfoEXT messenger = {
      .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
      .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                         VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
      .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                     VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                     VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
      .pfnUserCallback = on_validation_message,
      .pUserData = vk};
  PFN_vkCreateDebugUtilsMessengerEXT create_messenger =
      (PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(vk->instance,
                                                                "vkCreateDebugUtilsMessengerEXT");
  vk->destroy_messenger = (PFN_vkDestroyDebugUtilsMessengerEXT)vkGetInstanceProcAddr(
      vk->instance, "vkDestroyDebugUtilsMessengerEXT");
  r = create_messenger && vk->destroy_messenger
          ? create_messenger(vk->instance, &messenger, NULL, &vk->messenger)
          : VK_ERROR_EXTENSION_NOT_PRESENT;
  return r == VK_SUCCESS ? VKNN_STATUS_NONE : VKNN_STATUS_DEVICE_UNAVAILABLE;
}

static bool find_compute_queue(VkPhysicalDevice device, uint32_t *out_family) {
  uint32_t count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(device, &count, NULL);
  VkQueueFamilyProperties families[16];
  if (count > 16) count = 16;
  vkGetPhysicalDeviceQueueFamilyProperties(device, &count, families);
  for (uint32_t i = 0; i < count; ++i) {
    if (families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) {
      *out_family = i;
      return true;
    }
  }
  return false;
}

/* VKNN_DEVICE: an index, or a substring of the device name. Default: the
 * first discrete or integrated GPU, else the first device with compute. */
static int choose_physical_device(vknn_vk *vk, VkPhysicalDevice *devices, uint32_t count) {
  const char *wanted = getenv("VKNN_DEVICE");
  if (wanted != NULL && wanted[0] != '\0') {
    char *end = NULL;
    long index = strtol(wanted, &end, 10);
    if (*end == '\0') return index >= 0 && (uint32_t)index < count ? (int)index : -1;
    for (uint32_t i = 0; i < count; ++i) {
      VkPhysicalDeviceProperties p;
      vkGetPhysicalDeviceProperties(devices[i], &p);
      if (strstr(p.deviceName, wanted) != NULL) return (int)i;
    }
    VKNN_LOG_E(vk->log, "vulkan", "VKNN_DEVICE=%s matches no Vulkan device", wanted);
    return -1;
  }
  int fallback = -1;
  for (uint32_t i = 0; i < count; ++i) {
    VkPhysicalDeviceProperties p;
    uint32_t family;
    vkGetPhysicalDeviceProperties(devices[i], &p);
    if (!find_compute_queue(devices[i], &family)) continue;
    if (p.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU ||
        p.deviceType == VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU)
      return (int)i;
    if (fallback < 0) fallback = (int)i;
  }
  return fallback;
}

static vknn_status pick_physical_device(vknn_vk *vk) {
  uint32_t count = 0;
  vkEnumeratePhysicalDevices(vk->instance, &count, NULL);
  if (count == 0) {
    VKNN_LOG_E(vk->log, "vulkan", "no Vulkan physical device");
    return VKNN_STATUS_DEVICE_UNAVAILABLE;
  }
  VkPhysicalDevice devices[16];
  if (count > 16) count = 16;
  vkEnumeratePhysicalDevices(vk->instance, &count, devices);
  int chosen = choose_physical_device(vk, devices, count);
  if (chosen < 0 || !find_compute_queue(devices[chosen], &vk->queue_family)) {
    VKNN_LOG_E(vk->log, "vulkan", "no Vulkan device with a compute queue was chosen");
    return VKNN_STATUS_DEVICE_UNAVAILABLE;
  }
  vk->physical_device = devices[chosen];
  vkGetPhysicalDeviceProperties(vk->physical_device, &vk->properties);
  VkPhysicalDeviceSubgroupProperties subgroup = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
  VkPhysicalDeviceProperties2 properties2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
                                             .pNext = &subgroup};
  vkGetPhysicalDeviceProperties2(vk->physical_device, &properties2);
  vk->subgroup_size = subgroup.subgroupSize;
  vk->subgroup_shuffle = (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) &&
                         (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_SHUFFLE_BIT);
  vkGetPhysicalDeviceMemoryProperties(vk->physical_device, &vk->memory_properties);
  uint32_t qcount = 0;
  VkQueueFamilyProperties families[16];
  vkGetPhysicalDeviceQueueFamilyProperties(vk->physical_device, &qcount, NULL);
  if (qcount > 16) qcount = 16;
  vkGetPhysicalDeviceQueueFamilyProperties(vk->physical_device, &qcount, families);
  vk->timestamp_valid_bits = families[vk->queue_family].timestampValidBits;
  return VKNN_STATUS_NONE;
}

static bool has_device_extension(VkPhysicalDevice physical, const char *name) {
  uint32_t count = 0;
  if (vkEnumerateDeviceExtensionProperties(physical, NULL, &count, NULL) != VK_SUCCESS) return false;
  VkExtensionProperties *props = vknn_calloc(count ? count : 1, sizeof(*props));
  bool found = false;
  if (props != NULL && vkEnumerateDeviceExtensionProperties(physical, NULL, &count, props) == VK_SUCCESS)
    for (uint32_t i = 0; i < count && !found; ++i) found = strcmp(props[i].extensionName, name) == 0;
  free(props);
  return found;
}

/* Zero copy of request memory needs the import alignment and the query of
 * which memory types a host pointer can be imported into. */
static void enable_host_import(vknn_vk *vk) {
  VkPhysicalDeviceExternalMemoryHostPropertiesEXT host = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_MEMORY_HOST_PROPERTIES_EXT};
  VkPhysicalDeviceProperties2 props = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
                                       .pNext = &host};
  vkGetPhysicalDeviceProperties2(vk->physical_device, &props);
  vk->get_host_pointer_properties = (PFN_vkGetMemoryHostPointerPropertiesEXT)vkGetDeviceProcAddr(
      vk->device, "vkGetMemoryHostPointerPropertiesEXT");
  if (vk->get_host_pointer_properties != NULL)
    vk->host_import_alignment = host.minImportedHostPointerAlignment;
}

/* How many invocations the device keeps in flight at once, where it says
 * (properties that need no enabled extension):
 * - NVIDIA: multiprocessors x resident warps (VK_NV_shader_sm_builtins);
 * - AMD: shader engines x arrays x compute units x SIMDs x wavefronts a SIMD
 *   keeps (VK_AMD_shader_core_properties);
 * - ARM: shader cores x warps a core keeps (VK_ARM_shader_core_builtins);
 * each times the lanes of a warp or wavefront. 0 elsewhere (lavapipe among
 * them): the kernels then split no reduction for width, unless kernel
 * tuning measures that they should (runtime/kernel_tuning.c). */
/* Fills one extension's properties structure (next, its sType set). */
static void query_properties(const vknn_vk *vk, void *next) {
  VkPhysicalDeviceProperties2 props = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = next};
  vkGetPhysicalDeviceProperties2(vk->physical_device, &props);
}

static uint64_t query_nv_width(const vknn_vk *vk) {
  VkPhysicalDeviceShaderSMBuiltinsPropertiesNV sm = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SM_BUILTINS_PROPERTIES_NV};
  query_properties(vk, &sm);
  return (uint64_t)sm.shaderSMCount * sm.shaderWarpsPerSM * vk->subgroup_size;
}

static uint64_t query_amd_width(const vknn_vk *vk) {
  VkPhysicalDeviceShaderCorePropertiesAMD core = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CORE_PROPERTIES_AMD};
  query_properties(vk, &core);
  return (uint64_t)core.shaderEngineCount * core.shaderArraysPerEngineCount * core.computeUnitsPerShaderArray *
         core.simdPerComputeUnit * core.wavefrontsPerSimd * core.wavefrontSize;
}

static uint64_t query_arm_width(const vknn_vk *vk) {
  VkPhysicalDeviceShaderCoreBuiltinsPropertiesARM core = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CORE_BUILTINS_PROPERTIES_ARM};
  query_properties(vk, &core);
  return (uint64_t)core.shaderCoreCount * core.shaderWarpsPerCore * vk->subgroup_size;
}

static uint32_t query_parallel_invocations(const vknn_vk *vk) {
  uint64_t lanes = 0;
  if (has_device_extension(vk->physical_device, VK_NV_SHADER_SM_BUILTINS_EXTENSION_NAME))
    lanes = query_nv_width(vk);
  else if (has_device_extension(vk->physical_device, VK_AMD_SHADER_CORE_PROPERTIES_EXTENSION_NAME))
    lanes = query_amd_width(vk);
  else if (has_device_extension(vk->physical_device, VK_ARM_SHADER_CORE_BUILTINS_EXTENSION_NAME))
    lanes = query_arm_width(vk);
  return lanes > UINT32_MAX ? UINT32_MAX : (uint32_t)lanes;
}

/* Packed 8-bit dot products (VK_KHR_shader_integer_dot_product): the
 * feature, and which signedness the device accelerates. */
static bool query_integer_dot(vknn_vk *vk) {
  if (!has_device_extension(vk->physical_device, VK_KHR_SHADER_INTEGER_DOT_PRODUCT_EXTENSION_NAME))
    return false;
  VkPhysicalDeviceShaderIntegerDotProductFeaturesKHR feature = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_INTEGER_DOT_PRODUCT_FEATURES_KHR};
  VkPhysicalDeviceFeatures2 features = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
                                        .pNext = &feature};
  vkGetPhysicalDeviceFeatures2(vk->physical_device, &features);
  if (!feature.shaderIntegerDotProduct) return false;
  VkPhysicalDeviceShaderIntegerDotProductPropertiesKHR dot = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_INTEGER_DOT_PRODUCT_PROPERTIES_KHR};
  VkPhysicalDeviceProperties2 props = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
                                       .pNext = &dot};
  vkGetPhysicalDeviceProperties2(vk->physical_device, &props);
  vk->dot4x8_accelerated[0] = dot.integerDotProduct4x8BitPackedUnsignedAccelerated;
  vk->dot4x8_accelerated[1] = dot.integerDotProduct4x8BitPackedSignedAccelerated;
  vk->dot4x8_accelerated[2] = dot.integerDotProduct4x8BitPackedMixedSignednessAccelerated;
  return true;
}

/* The driver's kernels read and write 8- and 16-bit elements in storage buffers. */
static vknn_status create_logical_device(vknn_vk *vk) {
  VkPhysicalDevice16BitStorageFeatures storage16 = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES};
  VkPhysicalDeviceShaderFloat16Int8Features arithmetic = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES, .pNext = &storage16};
  VkPhysicalDevice8BitStorageFeatures storage8 = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES, .pNext = &arithmetic};
  VkPhysicalDeviceFeatures2 features = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
                                        .pNext = &storage8};
  vkGetPhysicalDeviceFeatures2(vk->physical_device, &features);
  if (!storage8.storageBuffer8BitAccess || !storage16.storageBuffer16BitAccess) {
    VKNN_LOG_E(vk->log, "vulkan", "%s lacks 8- or 16-bit storage buffer access",
               vk->properties.deviceName);
    return VKNN_STATUS_DEVICE_UNAVAILABLE;
  }
  /* Kernels with float16, int8 or 64-bit arithmetic (variants that name the
   * feature) run only where the device has it; the others use 16- and 8-bit
   * storage and 32-bit arithmetic. */
  bool integer_dot = query_integer_dot(vk);
  vk->shader_features = (arithmetic.shaderFloat16 ? VKNN_SHADER_NEEDS_SHADERFLOAT16 : 0) |
                        (arithmetic.shaderInt8 ? VKNN_SHADER_NEEDS_SHADERINT8 : 0) |
                        (features.features.shaderInt64 ? VKNN_SHADER_NEEDS_SHADERINT64 : 0) |
                        (features.features.shaderFloat64 ? VKNN_SHADER_NEEDS_SHADERFLOAT64 : 0) |
                        (integer_dot ? VKNN_SHADER_NEEDS_SHADERINTEGERDOTPRODUCT : 0) |
                        (vk->subgroup_shuffle ? VKNN_SHADER_NEEDS_SUBGROUPSHUFFLE : 0) |
                        (features.features.shaderStorageImageExtendedFormats
                             ? VKNN_SHADER_NEEDS_SHADERSTORAGEIMAGEEXTENDEDFORMATS
                             : 0);
  VkPhysicalDeviceFeatures want_core = {
      .shaderInt64 = features.features.shaderInt64,
      .shaderFloat64 = features.features.shaderFloat64,
      .shaderStorageImageExtendedFormats = features.features.shaderStorageImageExtendedFormats};
  VkPhysicalDeviceShaderFloat16Int8Features want_arithmetic = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES,
      .shaderFloat16 = arithmetic.shaderFloat16,
      .shaderInt8 = arithmetic.shaderInt8};
  VkPhysicalDeviceShaderIntegerDotProductFeaturesKHR want_dot = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_INTEGER_DOT_PRODUCT_FEATURES_KHR,
      .shaderIntegerDotProduct = VK_TRUE};
  if (arithmetic.shaderFloat16 || arithmetic.shaderInt8)
    want_arithmetic.pNext = integer_dot ? &want_dot : NULL;
  VkPhysicalDevice16BitStorageFeatures want16 = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES,
      .pNext = (arithmetic.shaderFloat16 || arithmetic.shaderInt8) ? (void *)&want_arithmetic
               : integer_dot                                       ? (void *)&want_dot
                                                                   : NULL,
      .storageBuffer16BitAccess = VK_TRUE};
  VkPhysicalDevice8BitStorageFeatures want8 = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES,
      .pNext = &want16,
      .storageBuffer8BitAccess = VK_TRUE};
  const char *extensions[3] = {VK_KHR_8BIT_STORAGE_EXTENSION_NAME};
  uint32_t extension_count = 1;
  if (integer_dot) extensions[extension_count++] = VK_KHR_SHADER_INTEGER_DOT_PRODUCT_EXTENSION_NAME;
  bool host_import = has_device_extension(vk->physical_device, VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME);
  if (host_import) extensions[extension_count++] = VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME;
  float priority = 1.0f;
  VkDeviceQueueCreateInfo queue = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                   .queueFamilyIndex = vk->queue_family,
                                   .queueCount = 1,
                                   .pQueuePriorities = &priority};
  VkDeviceCreateInfo info = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                             .pNext = &want8,
                             .queueCreateInfoCount = 1,
                             .pQueueCreateInfos = &queue,
                             .enabledExtensionCount = extension_count,
                             .ppEnabledExtensionNames = extensions,
                             .pEnabledFeatures = &want_core};
  VkResult r = vkCreateDevice(vk->physical_device, &info, NULL, &vk->device);
  if (r != VK_SUCCESS) {
    VKNN_LOG_E(vk->log, "vulkan", "vkCreateDevice failed (%d)", r);
    return VKNN_STATUS_DEVICE_UNAVAILABLE;
  }
  vkGetDeviceQueue(vk->device, vk->queue_family, 0, &vk->queue);
  if (host_import) enable_host_import(vk);
  vk->parallel_invocations = query_parallel_invocations(vk);
  return VKNN_STATUS_NONE;
}

/* Whether every format the kernels read through texel buffers can be, in
 * storage texel buffers declared with that format (the one-channel ones are
 * extended formats in SPIR-V), and a kernel may bind its two (input and
 * filter: they count as storage images). */
static bool texel_formats_readable(const vknn_vk *vk) {
  if (!(vk->shader_features & VKNN_SHADER_NEEDS_SHADERSTORAGEIMAGEEXTENDEDFORMATS)) return false;
  if (vk->properties.limits.maxPerStageDescriptorStorageImages < 2) return false;
  const VkFormat formats[] = {VK_FORMAT_R32_SFLOAT, VK_FORMAT_R32G32B32A32_SFLOAT,
                              VK_FORMAT_R16_SFLOAT, VK_FORMAT_R16G16B16A16_SFLOAT,
                              VK_FORMAT_R8_UINT,    VK_FORMAT_R8G8B8A8_UINT,
                              VK_FORMAT_R8_SINT,    VK_FORMAT_R8G8B8A8_SINT};
  for (uint32_t i = 0; i < sizeof(formats) / sizeof(formats[0]); ++i) {
    VkFormatProperties props;
    vkGetPhysicalDeviceFormatProperties(vk->physical_device, formats[i], &props);
    if (!(props.bufferFeatures & VK_FORMAT_FEATURE_STORAGE_TEXEL_BUFFER_BIT)) return false;
  }
  return true;
}

/* Devices measured faster reading operands through texel buffers
 * (docs/perf.md, "Operand reads"): lavapipe, where a storage-buffer load is
 * a loop over the lanes and a texel fetch one gather. Devices not listed
 * keep storage buffers: the NVIDIA H100 was measured with them. */
typedef struct device_kind {
  uint32_t vendor_id;
  VkPhysicalDeviceType type;
} device_kind;

static const device_kind texel_reads_faster[] = {
    {0x10005 /* VK_VENDOR_ID_MESA */, VK_PHYSICAL_DEVICE_TYPE_CPU}, /* lavapipe */
};

/* Devices whose Winograd rule was measured (src/ops/conv2d_winograd.c,
 * docs/perf.md "Winograd convolution"): lavapipe. Others keep the implicit
 * matrix product unless the device option asks for Winograd. */
static const device_kind winograd_measured[] = {
    {0x10005 /* VK_VENDOR_ID_MESA */, VK_PHYSICAL_DEVICE_TYPE_CPU}, /* lavapipe */
};

/* Devices whose shader compiler cuts long loops short (lavapipe's loop
 * limiter: docs/architecture.md, "Loop budget on lavapipe"). */
static const device_kind loop_limited[] = {
    {0x10005 /* VK_VENDOR_ID_MESA */, VK_PHYSICAL_DEVICE_TYPE_CPU}, /* lavapipe */
};

/* Devices where relaxed models ran slower with float16 tensors than in
 * float32 (docs/perf.md, "Relaxed models in float16"): lavapipe, whose
 * texel fetches convert every float16 element on the CPU. */
static const device_kind relaxed_float16_slower[] = {
    {0x10005 /* VK_VENDOR_ID_MESA */, VK_PHYSICAL_DEVICE_TYPE_CPU}, /* lavapipe */
};

/* Devices where the float16 kernels ran slower computing in float16 than
 * in float32 (docs/perf.md, "Float16 arithmetic"): lavapipe, whose LLVM
 * computes float16 by converting to float32 and back. */
static const device_kind float16_arithmetic_slower[] = {
    {0x10005 /* VK_VENDOR_ID_MESA */, VK_PHYSICAL_DEVICE_TYPE_CPU}, /* lavapipe */
};

/* Devices where conv2d_gemm ran faster sharing its filter loads across a
 * subgroup (docs/perf.md, "Filter loads shared across a subgroup"):
 * lavapipe, whose loads of one value for every lane still gather each
 * lane's copy, where a shuffle of a known lane is one permute. */
static const device_kind subgroup_filter_faster[] = {
    {0x10005 /* VK_VENDOR_ID_MESA */, VK_PHYSICAL_DEVICE_TYPE_CPU}, /* lavapipe */
};

static bool listed(const vknn_vk *vk, const device_kind *kinds, uint32_t count) {
  for (uint32_t i = 0; i < count; ++i)
    if (kinds[i].vendor_id == vk->properties.vendorID && kinds[i].type == vk->properties.deviceType)
      return true;
  return false;
}

bool vknn_vk_texel_reads_measured_faster(const vknn_vk *vk) {
  return listed(vk, texel_reads_faster, sizeof(texel_reads_faster) / sizeof(texel_reads_faster[0]));
}

bool vknn_vk_winograd_measured(const vknn_vk *vk) {
  return listed(vk, winograd_measured, sizeof(winograd_measured) / sizeof(winograd_measured[0]));
}

bool vknn_vk_relaxed_float16_measured_slower(const vknn_vk *vk) {
  return listed(vk, relaxed_float16_slower, sizeof(relaxed_float16_slower) / sizeof(relaxed_float16_slower[0]));
}

bool vknn_vk_float16_arithmetic_measured_slower(const vknn_vk *vk) {
  return listed(vk, float16_arithmetic_slower,
                sizeof(float16_arithmetic_slower) / sizeof(float16_arithmetic_slower[0]));
}

bool vknn_vk_subgroup_filter_measured_faster(const vknn_vk *vk) {
  return listed(vk, subgroup_filter_faster,
                sizeof(subgroup_filter_faster) / sizeof(subgroup_filter_faster[0]));
}

bool vknn_vk_kernel_rules_measured(const vknn_vk *vk) {
  return vknn_vk_winograd_measured(vk) && vknn_vk_texel_reads_measured_faster(vk);
}

bool vknn_vk_has_loop_limiter(const vknn_vk *vk) {
  return listed(vk, loop_limited, sizeof(loop_limited) / sizeof(loop_limited[0]));
}

VkDeviceSize vknn_vk_binding_alignment(const vknn_vk *vk) {
  VkDeviceSize storage = vk->properties.limits.minStorageBufferOffsetAlignment;
  VkDeviceSize texel = vk->properties.limits.minTexelBufferOffsetAlignment;
  if (!vk->texel_reads_possible || texel <= storage) return storage;
  return texel; /* both are powers of two */
}

static vknn_status create_shared_objects(vknn_vk *vk) {
  vk->texel_reads_possible = texel_formats_readable(vk);
  VkPipelineCacheCreateInfo cache = {.sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
  VkResult r = vkCreatePipelineCache(vk->device, &cache, NULL, &vk->pipeline_cache);
  for (uint32_t i = 0; i < VKNN_SHADER_COUNT && r == VK_SUCCESS; ++i) {
    /* A variant using a feature the device lacks is never created (its
     * SPIR-V declares a capability the device does not enable). */
    if (!vknn_vk_has_shader(vk, (vknn_shader_id)i)) continue;
    VkShaderModuleCreateInfo info = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
                                     .codeSize = vknn_embedded_shaders[i].size_bytes,
                                     .pCode = vknn_embedded_shaders[i].words};
    r = vkCreateShaderModule(vk->device, &info, NULL, &vk->shader_modules[i]);
  }
  if (r != VK_SUCCESS) VKNN_LOG_E(vk->log, "vulkan", "creating shared objects failed (%d)", r);
  return vknn_vk_status(r);
}

vknn_status vknn_vk_init(vknn_vk *vk, const vknn_logger *log, bool enable_validation) {
  memset(vk, 0, sizeof(*vk));
  vk->log = log;
  pthread_mutex_init(&vk->queue_lock, NULL);
  pthread_mutex_init(&vk->pipeline_lock, NULL);
  pthread_rwlock_init(&vk->pipeline_cache_lock, NULL);
  vknn_vk_layout_table_init(&vk->layouts);
  if (volkInitialize() != VK_SUCCESS) {
    VKNN_LOG_E(log, "vulkan", "no Vulkan loader found");
    return VKNN_STATUS_DEVICE_UNAVAILABLE;
  }
  vknn_status status = create_instance(vk, enable_validation);
  if (status == VKNN_STATUS_NONE) status = pick_physical_device(vk);
  if (status == VKNN_STATUS_NONE) status = create_logical_device(vk);
  if (status == VKNN_STATUS_NONE) status = create_shared_objects(vk);
  if (status != VKNN_STATUS_NONE) {
    vknn_vk_destroy(vk);
    return status;
  }
  VKNN_LOG_V(log, "driver", "opened %s, compute queue family %u", vk->properties.deviceName,
             vk->queue_family);
  return VKNN_STATUS_NONE;
}

uint32_t vknn_vk_find_memory_type(const vknn_vk *vk, uint32_t type_bits,
                                  VkMemoryPropertyFlags required,
                                  VkMemoryPropertyFlags preferred) {
  uint32_t fallback = UINT32_MAX;
  for (uint32_t i = 0; i < vk->memory_properties.memoryTypeCount; ++i) {
    VkMemoryPropertyFlags flags = vk->memory_properties.memoryTypes[i].propertyFlags;
    if (!(type_bits & (1u << i)) || (flags & required) != required) continue;
    if ((flags & preferred) == preferred) return i;
    if (fallback == UINT32_MAX) fallback = i;
  }
  return fallback;
}

void vknn_vk_destroy(vknn_vk *vk) {
  if (vk->device != VK_NULL_HANDLE) {
    vkDeviceWaitIdle(vk->device);
    vknn_vk_destroy_pipelines(vk);
    vknn_vk_layout_table_destroy(&vk->layouts, vk->device);
    for (uint32_t i = 0; i < VKNN_SHADER_COUNT; ++i)
      vkDestroyShaderModule(vk->device, vk->shader_modules[i], NULL);
    vkDestroyPipelineCache(vk->device, vk->pipeline_cache, NULL);
    vkDestroyDevice(vk->device, NULL);
  }
  if (vk->messenger != VK_NULL_HANDLE)
    vk->destroy_messenger(vk->instance, vk->messenger, NULL);
  if (vk->instance != VK_NULL_HANDLE) vkDestroyInstance(vk->instance, NULL);
  pthread_mutex_destroy(&vk->queue_lock);
  pthread_mutex_destroy(&vk->pipeline_lock);
  pthread_rwlock_destroy(&vk->pipeline_cache_lock);
  pthread_mutex_destroy(&vk->layouts.lock);
  vk->device = VK_NULL_HANDLE;
  vk->instance = VK_NULL_HANDLE;
}

vknn_status vknn_vk_submit_and_wait(vknn_vk *vk, const VkCommandBuffer *cmds, uint32_t count,
                                    VkFence fence) {
  VkSubmitInfo submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
                         .commandBufferCount = count,
                         .pCommandBuffers = cmds};
  pthread_mutex_lock(&vk->queue_lock);
  VkResult r = vknn_fault_next(VKNN_FAULT_QUEUE_SUBMIT) ? VK_ERROR_DEVICE_LOST
                                                        : vkQueueSubmit(vk->queue, 1, &submit, fence);
  pthread_mutex_unlock(&vk->queue_lock);
  atomic_fetch_add(&vk->counters.submissions, 1);
  if (r != VK_SUCCESS) {
    VKNN_LOG_E(vk->log, "vulkan", "submission failed (%d)", r);
    return vknn_vk_status(r);
  }
  r = vkWaitForFences(vk->device, 1, &fence, VK_TRUE, UINT64_MAX);
  if (r == VK_SUCCESS && vknn_fault_next(VKNN_FAULT_FENCE_WAIT)) r = VK_ERROR_DEVICE_LOST;
  if (r != VK_SUCCESS) {
    /* Whether the work ran, and when it stops touching its memory, is
     * unknown: the device cannot be trusted with more. */
    VKNN_LOG_E(vk->log, "vulkan", "waiting for a submission failed (%d)", r);
    return VKNN_STATUS_DEVICE_UNAVAILABLE;
  }
  r = vkResetFences(vk->device, 1, &fence);
  if (r != VK_SUCCESS) VKNN_LOG_E(vk->log, "vulkan", "resetting a fence failed (%d)", r);
  return vknn_vk_status(r);
}

VkResult vknn_vk_injected_fault(void) {
  return vknn_fault_next(VKNN_FAULT_VULKAN_ALLOCATION) ? VK_ERROR_OUT_OF_DEVICE_MEMORY : VK_SUCCESS;
}
