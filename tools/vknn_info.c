/* vknn-info: what the driver reports about the device it opens, the Vulkan
 * features behind it, and the kernel variants the driver chose for it. */
#include <stdio.h>

#include "runtime/device_internal.h"
#include "vknn/vknn.h"
#include "vknn_info_vulkan.h"

static void print_driver(vknn_device *device) {
  const char *version = NULL;
  vknn_device_type type;
  uint32_t model_cache = 0, data_cache = 0;
  vknn_device_get_version_string(device, &version);
  vknn_device_get_type(device, &type);
  vknn_device_get_number_of_cache_files_needed(device, &model_cache, &data_cache);
  printf("version:          %s\n", version);
  printf("type:             %s\n", type == VKNN_DEVICE_TYPE_GPU           ? "GPU"
                                   : type == VKNN_DEVICE_TYPE_CPU         ? "CPU"
                                   : type == VKNN_DEVICE_TYPE_ACCELERATOR ? "accelerator"
                                                                          : "other");
  printf("cache files:      %u model, %u data\n", model_cache, data_cache);
  const vknn_extension *extensions = NULL;
  uint32_t extension_count = 0;
  vknn_device_get_supported_extensions(device, &extensions, &extension_count);
  printf("extensions:       %u\n", extension_count);
  for (uint32_t i = 0; i < extension_count; ++i) {
    printf("  %s", extensions[i].name);
    for (uint32_t t = 0; t < extensions[i].operand_type_count; ++t) {
      const vknn_extension_operand_type *o = &extensions[i].operand_types[t];
      printf("%s type %u (%s, %u bytes)", t ? "," : ":", o->type, o->is_tensor ? "tensor" : "scalar",
             o->byte_size);
    }
    printf("\n");
  }
}

static void print_capabilities(vknn_device *device) {
  vknn_capabilities caps;
  vknn_device_get_capabilities(device, &caps);
  printf("relaxed fp32->16: tensor exec %.2f, power %.2f\n",
         caps.relaxed_float32_to_float16_performance_tensor.exec_time,
         caps.relaxed_float32_to_float16_performance_tensor.power_usage);
  printf("IF / WHILE:       %.2f / %.2f\n", caps.if_performance.exec_time,
         caps.while_performance.exec_time);
  printf("operand performance (exec time, power usage; lower is better):\n");
  for (uint32_t i = 0; i < caps.operand_performance_count; ++i) {
    const vknn_operand_performance *p = &caps.operand_performance[i];
    printf("  %-32s %.2f %.2f\n", vknn_operand_type_name(p->type), p->info.exec_time,
           p->info.power_usage);
  }
}

/* The choices the device made when it opened (device.c) and the kernels
 * its features leave out. */
static void print_kernel_choices(const vknn_vk *vk) {
  static const struct { uint32_t bit; const char *name; } needs[] = {
      {VKNN_SHADER_NEEDS_SHADERFLOAT16, "shaderFloat16"},
      {VKNN_SHADER_NEEDS_SHADERFLOAT64, "shaderFloat64"},
      {VKNN_SHADER_NEEDS_SHADERINT64, "shaderInt64"},
      {VKNN_SHADER_NEEDS_SHADERINT8, "shaderInt8"},
      {VKNN_SHADER_NEEDS_SHADERINTEGERDOTPRODUCT, "shaderIntegerDotProduct"},
  };
  printf("kernel variants:\n");
  printf("  operand reads      %s (texel buffers %s on this device)\n",
         vk->texel_reads ? "texel" : "storage", vk->texel_reads_possible ? "usable" : "unusable");
  printf("  integer dot        %s\n", vk->integer_dot ? "on (packed 8-bit dot products)"
                                                      : "off (multiply-adds)");
  printf("  relaxed models     %s\n", vk->relaxed_float16 ? "float16 tensors and weights"
                                                         : "float32 (measured faster here)");
  printf("  float16 kernels    %s\n",
         vk->float16_arithmetic ? "float16 arithmetic"
         : vknn_vk_has_shader(vk, VKNN_SHADER_CONV2D_GEMM_F16_ARITH)
             ? "float32 arithmetic (measured faster here)"
             : "float32 arithmetic (no shaderFloat16)");
  printf("  kernel tuning      %s\n",
         vk->kernel_tuning == VKNN_KERNEL_TUNING_ON    ? "every model (measured at prepare)"
         : vk->kernel_tuning == VKNN_KERNEL_TUNING_OFF ? "off (the device's rules)"
         : vknn_vk_kernel_rules_measured(vk)           ? "off (rules measured for this device)"
                                                       : "models prepared for sustained speed");
  printf("  features enabled  ");
  for (size_t i = 0; i < sizeof(needs) / sizeof(needs[0]); ++i)
    printf(" %s%s", (vk->shader_features & needs[i].bit) ? "" : "!", needs[i].name);
  uint32_t usable = 0;
  for (uint32_t s = 0; s < VKNN_SHADER_COUNT; ++s) usable += vknn_vk_has_shader(vk, s);
  printf("\n  kernels usable     %u of %u\n", usable, (unsigned)VKNN_SHADER_COUNT);
}

int main(void) {
  vknn_device *device = NULL;
  vknn_status status = vknn_device_open(NULL, &device);
  if (status != VKNN_STATUS_NONE) {
    fprintf(stderr, "vknn-info: no device (%s)\n", vknn_status_name(status));
    return 1;
  }
  print_driver(device);
  print_capabilities(device);
  vknn_info_print_vulkan(&device->vk);
  print_kernel_choices(&device->vk);
  vknn_device_close(device);
  return 0;
}
