/* The Support Library entry point: the feature-level-5 driver table over this
 * library's functions, and the SL_ device queries it adds (cache files,
 * performance figures, vendor extensions). */
#include "ndk.h"

int64_t ANeuralNetworks_getRuntimeFeatureLevel(void) { return ANEURALNETWORKS_FEATURE_LEVEL_5; }

static int device_vk(const ANeuralNetworksDevice *device, vknn_device **out, const char *function) {
  *out = vknn_ndk_device(device);
  NDK_REQUIRE_IN(function, device != NULL, ANEURALNETWORKS_UNEXPECTED_NULL, "device is NULL");
  NDK_REQUIRE_IN(function, *out != NULL, ANEURALNETWORKS_BAD_DATA, "not a device of this library");
  return ANEURALNETWORKS_NO_ERROR;
}

static int sl_set_caching_from_fds(ANeuralNetworksCompilation *compilation, const int *model_fds,
                                   const uint32_t model_count, const int *data_fds, const uint32_t data_count,
                                   const uint8_t *token) {
  return ndk_compilation_set_caching_from_fds(compilation, model_fds, model_count, data_fds, data_count, token);
}

static int sl_cache_files_needed(const ANeuralNetworksDevice *device, uint32_t *model_files, uint32_t *data_files) {
  NDK_NOT_NULL(model_files);
  NDK_NOT_NULL(data_files);
  *model_files = *data_files = 0;
  vknn_device *vk;
  int r = device_vk(device, &vk, __func__);
  if (r != ANEURALNETWORKS_NO_ERROR) return r;
  return ndk_result_of(vknn_device_get_number_of_cache_files_needed(vk, model_files, data_files));
}

static int capabilities(const ANeuralNetworksDevice *device, vknn_capabilities *out, const char *function) {
  vknn_device *vk;
  int r = device_vk(device, &vk, function);
  return r != ANEURALNETWORKS_NO_ERROR ? r : ndk_result_of(vknn_device_get_capabilities(vk, out));
}

static int sl_performance_info(const ANeuralNetworksDevice *device, int32_t kind,
                               SL_ANeuralNetworksPerformanceInfo *info) {
  NDK_NOT_NULL(info);
  vknn_capabilities caps;
  int r = capabilities(device, &caps, __func__);
  if (r != ANEURALNETWORKS_NO_ERROR) return r;
  const vknn_performance_info *p = NULL;
  switch (kind) {
    case SL_ANEURALNETWORKS_CAPABILITIES_PERFORMANCE_RELAXED_SCALAR:
      p = &caps.relaxed_float32_to_float16_performance_scalar;
      break;
    case SL_ANEURALNETWORKS_CAPABILITIES_PERFORMANCE_RELAXED_TENSOR:
      p = &caps.relaxed_float32_to_float16_performance_tensor;
      break;
    case SL_ANEURALNETWORKS_CAPABILITIES_PERFORMANCE_IF: p = &caps.if_performance; break;
    case SL_ANEURALNETWORKS_CAPABILITIES_PERFORMANCE_WHILE: p = &caps.while_performance; break;
    default: NDK_REQUIRE(false, ANEURALNETWORKS_BAD_DATA, "unknown performance kind %d", kind);
  }
  *info = (SL_ANeuralNetworksPerformanceInfo){p->exec_time, p->power_usage};
  return ANEURALNETWORKS_NO_ERROR;
}

static int sl_for_each_operand_performance(const ANeuralNetworksDevice *device, void *context,
                                           void (*callback)(SL_ANeuralNetworksOperandPerformanceInfo, void *)) {
  NDK_NOT_NULL(callback);
  vknn_capabilities caps;
  int r = capabilities(device, &caps, __func__);
  if (r != ANEURALNETWORKS_NO_ERROR) return r;
  for (uint32_t i = 0; i < caps.operand_performance_count; ++i) {
    const vknn_operand_performance *o = &caps.operand_performance[i];
    callback((SL_ANeuralNetworksOperandPerformanceInfo){o->type, {o->info.exec_time, o->info.power_usage}}, context);
  }
  return ANEURALNETWORKS_NO_ERROR;
}

static int sl_extension_count(const ANeuralNetworksDevice *device, uint32_t *count) {
  NDK_NOT_NULL(count);
  vknn_device *vk;
  int r = device_vk(device, &vk, __func__);
  *count = r == ANEURALNETWORKS_NO_ERROR ? device->extension_count : 0;
  return r;
}

/* The device's extension index; BAD_DATA (logged) when it has none. */
static int sl_extension(const ANeuralNetworksDevice *device, uint32_t index, const char *function,
                        const vknn_extension **out) {
  vknn_device *vk;
  int r = device_vk(device, &vk, function);
  if (r != ANEURALNETWORKS_NO_ERROR) return r;
  NDK_REQUIRE_IN(function, index < device->extension_count, ANEURALNETWORKS_BAD_DATA,
                 "no extension %u (the device has %u)", index, device->extension_count);
  *out = &device->extensions[index];
  return ANEURALNETWORKS_NO_ERROR;
}

static int sl_extension_name(const ANeuralNetworksDevice *device, uint32_t index, const char **name) {
  NDK_NOT_NULL(name);
  const vknn_extension *e;
  int r = sl_extension(device, index, __func__, &e);
  if (r == ANEURALNETWORKS_NO_ERROR) *name = e->name;
  return r;
}

static int sl_for_each_extension_operand_type(const ANeuralNetworksDevice *device, uint32_t index, void *context,
                                              void (*callback)(SL_ANeuralNetworksExtensionOperandTypeInformation,
                                                               void *)) {
  NDK_NOT_NULL(callback);
  const vknn_extension *e;
  int r = sl_extension(device, index, __func__, &e);
  for (uint32_t i = 0; r == ANEURALNETWORKS_NO_ERROR && i < e->operand_type_count; ++i) {
    const vknn_extension_operand_type *t = &e->operand_types[i];
    callback((SL_ANeuralNetworksExtensionOperandTypeInformation){t->byte_size, t->type, t->is_tensor},
             context);
  }
  return r;
}

#define NDK_FN(name) .name = name

static NnApiSLDriverImplFL5 driver_table = {
    .base = {ANEURALNETWORKS_FEATURE_LEVEL_5},
    NDK_FN(ANeuralNetworksBurst_create),
    NDK_FN(ANeuralNetworksBurst_free),
    NDK_FN(ANeuralNetworksCompilation_createForDevices),
    NDK_FN(ANeuralNetworksCompilation_finish),
    NDK_FN(ANeuralNetworksCompilation_free),
    NDK_FN(ANeuralNetworksCompilation_getPreferredMemoryAlignmentForInput),
    NDK_FN(ANeuralNetworksCompilation_getPreferredMemoryAlignmentForOutput),
    NDK_FN(ANeuralNetworksCompilation_getPreferredMemoryPaddingForInput),
    NDK_FN(ANeuralNetworksCompilation_getPreferredMemoryPaddingForOutput),
    NDK_FN(ANeuralNetworksCompilation_setCaching),
    NDK_FN(ANeuralNetworksCompilation_setPreference),
    NDK_FN(ANeuralNetworksCompilation_setPriority),
    NDK_FN(ANeuralNetworksCompilation_setTimeout),
    NDK_FN(ANeuralNetworksDevice_getExtensionSupport),
    NDK_FN(ANeuralNetworksDevice_getFeatureLevel),
    NDK_FN(ANeuralNetworksDevice_getName),
    NDK_FN(ANeuralNetworksDevice_getType),
    NDK_FN(ANeuralNetworksDevice_getVersion),
    NDK_FN(ANeuralNetworksDevice_wait),
    NDK_FN(ANeuralNetworksEvent_createFromSyncFenceFd),
    NDK_FN(ANeuralNetworksEvent_free),
    NDK_FN(ANeuralNetworksEvent_getSyncFenceFd),
    NDK_FN(ANeuralNetworksEvent_wait),
    NDK_FN(ANeuralNetworksExecution_burstCompute),
    NDK_FN(ANeuralNetworksExecution_compute),
    NDK_FN(ANeuralNetworksExecution_create),
    NDK_FN(ANeuralNetworksExecution_enableInputAndOutputPadding),
    NDK_FN(ANeuralNetworksExecution_free),
    NDK_FN(ANeuralNetworksExecution_getDuration),
    NDK_FN(ANeuralNetworksExecution_getOutputOperandDimensions),
    NDK_FN(ANeuralNetworksExecution_getOutputOperandRank),
    NDK_FN(ANeuralNetworksExecution_setInput),
    NDK_FN(ANeuralNetworksExecution_setInputFromMemory),
    NDK_FN(ANeuralNetworksExecution_setLoopTimeout),
    NDK_FN(ANeuralNetworksExecution_setMeasureTiming),
    NDK_FN(ANeuralNetworksExecution_setOutput),
    NDK_FN(ANeuralNetworksExecution_setOutputFromMemory),
    NDK_FN(ANeuralNetworksExecution_setReusable),
    NDK_FN(ANeuralNetworksExecution_setTimeout),
    NDK_FN(ANeuralNetworksExecution_startComputeWithDependencies),
    NDK_FN(ANeuralNetworksMemoryDesc_addInputRole),
    NDK_FN(ANeuralNetworksMemoryDesc_addOutputRole),
    NDK_FN(ANeuralNetworksMemoryDesc_create),
    NDK_FN(ANeuralNetworksMemoryDesc_finish),
    NDK_FN(ANeuralNetworksMemoryDesc_free),
    NDK_FN(ANeuralNetworksMemoryDesc_setDimensions),
    NDK_FN(ANeuralNetworksMemory_copy),
    NDK_FN(ANeuralNetworksMemory_createFromAHardwareBuffer),
    NDK_FN(ANeuralNetworksMemory_createFromDesc),
    NDK_FN(ANeuralNetworksMemory_createFromFd),
    NDK_FN(ANeuralNetworksMemory_free),
    NDK_FN(ANeuralNetworksModel_addOperand),
    NDK_FN(ANeuralNetworksModel_addOperation),
    NDK_FN(ANeuralNetworksModel_create),
    NDK_FN(ANeuralNetworksModel_finish),
    NDK_FN(ANeuralNetworksModel_free),
    NDK_FN(ANeuralNetworksModel_getExtensionOperandType),
    NDK_FN(ANeuralNetworksModel_getExtensionOperationType),
    NDK_FN(ANeuralNetworksModel_getSupportedOperationsForDevices),
    NDK_FN(ANeuralNetworksModel_identifyInputsAndOutputs),
    NDK_FN(ANeuralNetworksModel_relaxComputationFloat32toFloat16),
    NDK_FN(ANeuralNetworksModel_setOperandExtensionData),
    NDK_FN(ANeuralNetworksModel_setOperandSymmPerChannelQuantParams),
    NDK_FN(ANeuralNetworksModel_setOperandValue),
    NDK_FN(ANeuralNetworksModel_setOperandValueFromMemory),
    NDK_FN(ANeuralNetworksModel_setOperandValueFromModel),
    NDK_FN(ANeuralNetworks_getDefaultLoopTimeout),
    NDK_FN(ANeuralNetworks_getDevice),
    NDK_FN(ANeuralNetworks_getDeviceCount),
    NDK_FN(ANeuralNetworks_getMaximumLoopTimeout),
    NDK_FN(ANeuralNetworks_getRuntimeFeatureLevel),
    .SL_ANeuralNetworksCompilation_setCachingFromFds = sl_set_caching_from_fds,
    .SL_ANeuralNetworksDevice_getNumberOfCacheFilesNeeded = sl_cache_files_needed,
    .SL_ANeuralNetworksDevice_getPerformanceInfo = sl_performance_info,
    .SL_ANeuralNetworksDevice_forEachOperandPerformanceInfo = sl_for_each_operand_performance,
    .SL_ANeuralNetworksDevice_getVendorExtensionCount = sl_extension_count,
    .SL_ANeuralNetworksDevice_getVendorExtensionName = sl_extension_name,
    .SL_ANeuralNetworksDevice_forEachVendorExtensionOperandTypeInformation = sl_for_each_extension_operand_type,
};

NnApiSLDriverImpl *ANeuralNetworks_getSLDriverImpl(void) { return &driver_table.base; }
