/* The public device entry points (HAL IDevice). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compiler/compiler.h"
#include "runtime/compilation_cache.h"
#include "runtime/cache_key.h"
#include "compiler/control_flow_split.h"
#include "runtime/device_internal.h"
#include "runtime/recorded_graph.h"
#include "compiler/operation_registry.h"
#include "model/extension.h"
#include "util/fault_injection.h"

static bool uses_texel_reads(const vknn_vk *vk, vknn_operand_reads reads) {
  if (!vk->texel_reads_possible) return false;
  if (reads == VKNN_OPERAND_READS_AUTO) return vknn_vk_texel_reads_measured_faster(vk);
  return reads == VKNN_OPERAND_READS_TEXEL;
}

/* Packed dot products of the signedness pairs the quantized kernels use:
 * uint8 x uint8, int8 x int8, int8 filter x uint8 input. */
static bool uses_integer_dot(const vknn_vk *vk, vknn_integer_dot choice) {
  if (!vknn_vk_has_shader(vk, VKNN_SHADER_CONV2D_GEMM_Q8_IDOT) || choice == VKNN_INTEGER_DOT_OFF)
    return false;
  if (choice == VKNN_INTEGER_DOT_ON) return true;
  return vk->dot4x8_accelerated[0] && vk->dot4x8_accelerated[1] && vk->dot4x8_accelerated[2];
}

/* Relaxed models in float16 except where that was measured slower. */
static bool uses_relaxed_float16(const vknn_vk *vk, vknn_relaxed_float16 choice) {
  if (choice == VKNN_RELAXED_FLOAT16_AUTO) return !vknn_vk_relaxed_float16_measured_slower(vk);
  return choice == VKNN_RELAXED_FLOAT16_ON;
}

/* The float16 arithmetic variants exist only where shaderFloat16 does. */
static bool uses_float16_arithmetic(const vknn_vk *vk, vknn_float16_arithmetic choice) {
  if (!vknn_vk_has_shader(vk, VKNN_SHADER_CONV2D_GEMM_F16_ARITH) || choice == VKNN_FLOAT16_ARITHMETIC_OFF)
    return false;
  if (choice == VKNN_FLOAT16_ARITHMETIC_ON) return true;
  return !vknn_vk_float16_arithmetic_measured_slower(vk);
}

/* Shared filter loads need the variants (subgroup shuffles) and 8-lane
 * groups lying inside one subgroup. */
static bool subgroup_filter_possible(const vknn_vk *vk) {
  return vknn_vk_has_shader(vk, VKNN_SHADER_CONV2D_GEMM_F32_SUBGROUP) && vk->subgroup_size != 0 &&
         vk->subgroup_size % 8 == 0;
}

static bool uses_subgroup_filter(const vknn_vk *vk, vknn_subgroup_filter choice) {
  if (!vk->subgroup_filter_possible || choice == VKNN_SUBGROUP_FILTER_OFF) return false;
  if (choice == VKNN_SUBGROUP_FILTER_ON) return true;
  return vknn_vk_subgroup_filter_measured_faster(vk);
}

/* Kernels reading host memory cross the bus on a discrete GPU: there the
 * inputs and outputs are copied into device memory by default. */
static bool uses_io_copies(const vknn_vk *vk, vknn_io_copies choice) {
  if (choice == VKNN_IO_COPIES_AUTO) return vk->properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU;
  return choice == VKNN_IO_COPIES_ON;
}

/* VKNN_GRAPH_DUMP's folder, kept only when it is a folder the driver can
 * write in (checked once here; a failed write later is logged too). */
static void configure_graph_dump(vknn_device *device) {
  const char *dir = getenv("VKNN_GRAPH_DUMP");
  if (dir == NULL || dir[0] == '\0') return;
  struct stat st;
  if (strlen(dir) >= sizeof(device->graph_dump_dir) || stat(dir, &st) != 0 ||
      !S_ISDIR(st.st_mode) || access(dir, W_OK) != 0) {
    VKNN_LOG_E(&device->log, "driver", "VKNN_GRAPH_DUMP=%s is not a folder the driver can write; "
               "no graph dumps", dir);
    return;
  }
  snprintf(device->graph_dump_dir, sizeof(device->graph_dump_dir), "%s", dir);
}

/* Tracing and graph dumps (VKNN_TRACE, VKNN_GRAPH_DUMP). A trace needs the
 * timestamps after every dispatch for the GPU spans. */
static void open_debugging(vknn_device *device, const vknn_device_options *options) {
  const char *trace_path = options && options->trace_path ? options->trace_path
                                                          : getenv("VKNN_TRACE");
  vknn_trace_open(&device->trace, &device->log, trace_path);
  if (vknn_trace_on(&device->trace)) device->profile_dispatches = true;
  configure_graph_dump(device);
}

vknn_status vknn_device_open(const vknn_device_options *options, vknn_device **out_device) {
  if (out_device == NULL) return VKNN_STATUS_INVALID_ARGUMENT;
  *out_device = NULL;
  if (options && ((unsigned)options->operand_reads > VKNN_OPERAND_READS_TEXEL ||
                  (unsigned)options->integer_dot > VKNN_INTEGER_DOT_ON ||
                  (unsigned)options->io_copies > VKNN_IO_COPIES_ON ||
                  (unsigned)options->winograd > VKNN_WINOGRAD_F4X3 ||
                  (unsigned)options->relaxed_float16 > VKNN_RELAXED_FLOAT16_ON ||
                  (unsigned)options->float16_arithmetic > VKNN_FLOAT16_ARITHMETIC_ON ||
                  (unsigned)options->kernel_tuning > VKNN_KERNEL_TUNING_ON ||
                  (unsigned)options->subgroup_filter > VKNN_SUBGROUP_FILTER_ON ||
                  (unsigned)options->gemm_shared_tiles > VKNN_GEMM_SHARED_TILES_ON ||
                  (unsigned)options->global_pool_reduction > VKNN_GLOBAL_POOL_REDUCTION_ON ||
                  (unsigned)options->packed_layout > VKNN_PACKED_LAYOUT_ON))
    return VKNN_STATUS_INVALID_ARGUMENT;
  vknn_device *device = vknn_calloc(1, sizeof(*device));
  if (device == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  vknn_logger_init(&device->log, options ? options->log_callback : NULL,
                   options ? options->log_user_data : NULL);
  const char *env = getenv("VKNN_VALIDATION");
  bool validation = (options && options->enable_validation) || (env && strcmp(env, "1") == 0);
  device->profile_dispatches = options && options->profile_dispatches;
  open_debugging(device, options);
  if (vknn_cache_key_choose(&device->log, options ? options->cache_key : NULL,
                            options ? options->cache_key_file : NULL, device->cache_key) != VKNN_STATUS_NONE) {
    vknn_trace_close(&device->trace);
    free(device);
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  vknn_status status = vknn_fence_waiter_init(&device->fence_waiter);
  if (status == VKNN_STATUS_NONE) status = vknn_vk_init(&device->vk, &device->log, validation);
  if (status != VKNN_STATUS_NONE) {
    vknn_fence_waiter_destroy(&device->fence_waiter);
    vknn_trace_close(&device->trace);
    free(device);
    return status;
  }
  device->vk.texel_reads = uses_texel_reads(&device->vk, options ? options->operand_reads : 0);
  device->vk.integer_dot = uses_integer_dot(&device->vk, options ? options->integer_dot : 0);
  device->vk.io_copies = uses_io_copies(&device->vk, options ? options->io_copies : 0);
  device->vk.relaxed_float16 = uses_relaxed_float16(&device->vk, options ? options->relaxed_float16 : 0);
  device->vk.float16_arithmetic =
      uses_float16_arithmetic(&device->vk, options ? options->float16_arithmetic : 0);
  device->vk.subgroup_filter_possible = subgroup_filter_possible(&device->vk);
  device->vk.subgroup_filter_option = options ? options->subgroup_filter : VKNN_SUBGROUP_FILTER_AUTO;
  device->vk.subgroup_filter = uses_subgroup_filter(&device->vk, device->vk.subgroup_filter_option);
  device->vk.gemm_shared_tiles_option = options ? options->gemm_shared_tiles : VKNN_GEMM_SHARED_TILES_AUTO;
  device->vk.gemm_shared_tiles = device->vk.gemm_shared_tiles_option == VKNN_GEMM_SHARED_TILES_ON;
  device->vk.global_pool_reduction_option =
      options ? options->global_pool_reduction : VKNN_GLOBAL_POOL_REDUCTION_AUTO;
  device->vk.global_pool_reduction =
      device->vk.global_pool_reduction_option == VKNN_GLOBAL_POOL_REDUCTION_ON;
  device->vk.packed_layout_option = options ? options->packed_layout : VKNN_PACKED_LAYOUT_AUTO;
  device->vk.packed_layout = device->vk.packed_layout_option == VKNN_PACKED_LAYOUT_ON;
  device->vk.operand_reads_option = options ? options->operand_reads : VKNN_OPERAND_READS_AUTO;
  device->vk.float16_arithmetic_option = options ? options->float16_arithmetic : VKNN_FLOAT16_ARITHMETIC_AUTO;
  device->vk.kernel_tuning = options ? options->kernel_tuning : VKNN_KERNEL_TUNING_AUTO;
  /* AUTO applies the measured rule only where it was measured. */
  device->vk.winograd = device->vk.winograd_option = options ? options->winograd : VKNN_WINOGRAD_AUTO;
  if (device->vk.winograd == VKNN_WINOGRAD_AUTO && !vknn_vk_winograd_measured(&device->vk))
    device->vk.winograd = VKNN_WINOGRAD_OFF;
  snprintf(device->version, sizeof(device->version), "vknn-%s (%s)", VKNN_VERSION,
           device->vk.properties.deviceName);
  vknn_executor_init(&device->executor, options ? options->executor_threads : 0);
  uint64_t idle_ms = options && options->idle_release_ms ? options->idle_release_ms
                                                         : VKNN_DEFAULT_IDLE_RELEASE_MS;
  vknn_watchdog_init(&device->watchdog, idle_ms * 1000000ull);
  vknn_buffer_table_init(&device->buffers);
  vknn_tuning_table_init(&device->tuning);
  *out_device = device;
  return VKNN_STATUS_NONE;
}

void vknn_device_close(vknn_device *device) {
  if (device == NULL) return;
  vknn_fence_waiter_destroy(&device->fence_waiter); /* it hands work to the executor */
  vknn_executor_destroy(&device->executor);
  vknn_watchdog_destroy(&device->watchdog);
  vknn_buffer_table_destroy(&device->buffers);
  vknn_tuning_table_destroy(&device->tuning);
  vknn_vk_destroy(&device->vk);
  vknn_trace_close(&device->trace);
  free(device);
}

/* The HAL's DeviceType from the Vulkan device's: a CPU implementation
 * (lavapipe, SwiftShader) is a CPU, every kind of GPU a GPU. */
static vknn_device_type hal_device_type(VkPhysicalDeviceType type) {
  switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return VKNN_DEVICE_TYPE_CPU;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return VKNN_DEVICE_TYPE_GPU;
    default: return VKNN_DEVICE_TYPE_OTHER;
  }
}

vknn_status vknn_device_get_type(const vknn_device *device, vknn_device_type *out_type) {
  if (device == NULL || out_type == NULL) return VKNN_STATUS_INVALID_ARGUMENT;
  *out_type = hal_device_type(device->vk.properties.deviceType);
  return VKNN_STATUS_NONE;
}

vknn_status vknn_device_get_version_string(const vknn_device *device, const char **out_version) {
  if (device == NULL || out_version == NULL) return VKNN_STATUS_INVALID_ARGUMENT;
  *out_version = device->version;
  return VKNN_STATUS_NONE;
}

vknn_status vknn_device_get_name(const vknn_device *device, const char **out_name) {
  if (device == NULL || out_name == NULL) return VKNN_STATUS_INVALID_ARGUMENT;
  *out_name = device->vk.properties.deviceName;
  return VKNN_STATUS_NONE;
}

vknn_status vknn_device_get_supported_extensions(const vknn_device *device,
                                                 const vknn_extension **out_extensions,
                                                 uint32_t *out_count) {
  if (device == NULL || out_extensions == NULL || out_count == NULL)
    return VKNN_STATUS_INVALID_ARGUMENT;
  *out_extensions = vknn_ext_supported(vknn_recorded_graph_target(device).kernels.int64_float64,
                                       out_count);
  return VKNN_STATUS_NONE;
}

vknn_status vknn_device_get_number_of_cache_files_needed(const vknn_device *device,
                                                         uint32_t *out_model_cache,
                                                         uint32_t *out_data_cache) {
  if (device == NULL || out_model_cache == NULL || out_data_cache == NULL)
    return VKNN_STATUS_INVALID_ARGUMENT;
  *out_model_cache = VKNN_CACHE_MODEL_FILES;
  *out_data_cache = VKNN_CACHE_DATA_FILES;
  return VKNN_STATUS_NONE;
}

vknn_status vknn_device_get_statistics(const vknn_device *device,
                                       vknn_device_statistics *out_statistics) {
  if (device == NULL || out_statistics == NULL) return VKNN_STATUS_INVALID_ARGUMENT;
  const vknn_vk_counters *c = &device->vk.counters;
  out_statistics->command_buffers_recorded = atomic_load(&c->command_buffers_recorded);
  out_statistics->pipelines_created = atomic_load(&c->pipelines_created);
  out_statistics->memory_allocations = atomic_load(&c->memory_allocations);
  out_statistics->submissions = atomic_load(&c->submissions);
  out_statistics->host_imports = atomic_load(&c->host_imports);
  out_statistics->zero_copy_executions = atomic_load(&c->zero_copy_executions);
  out_statistics->staged_executions = atomic_load(&c->staged_executions);
  out_statistics->graph_instances = atomic_load(&c->graph_instances);
  out_statistics->idle_releases = atomic_load(&c->idle_releases);
  out_statistics->deadline_cancellations = atomic_load(&c->deadline_cancellations);
  out_statistics->kernel_tunings = atomic_load(&c->kernel_tunings);
  out_statistics->kernel_tunings_reused = atomic_load(&c->kernel_tunings_reused);
  return VKNN_STATUS_NONE;
}

uint64_t vknn_device_get_validation_message_count(const vknn_device *device) {
  return device ? atomic_load(&device->vk.validation_messages) : 0;
}

vknn_status vknn_device_validate_model(vknn_device *device, const vknn_model *model) {
  if (device == NULL || model == NULL) return VKNN_STATUS_INVALID_ARGUMENT;
  return vknn_compiler_validate_model(&device->log, model);
}

vknn_status vknn_device_get_supported_operations(vknn_device *device, const vknn_model *model,
                                                 bool *out_supported, uint32_t supported_count) {
  if (device == NULL || model == NULL || out_supported == NULL) return VKNN_STATUS_INVALID_ARGUMENT;
  vknn_status status = vknn_compiler_validate_model(&device->log, model);
  if (status != VKNN_STATUS_NONE) return status;
  /* HAL: DEVICE_UNAVAILABLE when the driver is offline (nothing runs). */
  if (vknn_device_check_lost(device, "driver") != VKNN_STATUS_NONE) return VKNN_STATUS_DEVICE_UNAVAILABLE;
  if (supported_count != model->main.operation_count) {
    VKNN_LOG_E(&device->log, "driver", "supported_count %u, the model has %u operations",
               supported_count, model->main.operation_count);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  vknn_plan_target target = vknn_recorded_graph_target(device);
  if (vknn_subgraph_has_control_flow(&model->main))
    return vknn_control_flow_query(&device->log, model, &target, out_supported);
  return vknn_compile_query(&device->log, model, &target, out_supported);
}
