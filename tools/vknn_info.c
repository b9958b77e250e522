/* vknn-info: what the driver reports about the device it opens. */
#include <stdio.h>

#include "vknn/vknn.h"

int main(void) {
  vknn_device *device = NULL;
  vknn_status status = vknn_device_open(NULL, &device);
  if (status != VKNN_STATUS_NONE) {
    fprintf(stderr, "vknn-info: no device (%s)\n", vknn_status_name(status));
    return 1;
  }
  const char *version = NULL;
  vknn_device_type type;
  uint32_t model_cache = 0, data_cache = 0;
  vknn_capabilities caps;
  vknn_device_get_version_string(device, &version);
  vknn_device_get_type(device, &type);
  vknn_device_get_number_of_cache_files_needed(device, &model_cache, &data_cache);
  vknn_device_get_capabilities(device, &caps);
  printf("version:          %s\n", version);
  printf("type:             %s\n", type == VKNN_DEVICE_TYPE_GPU           ? "GPU"
                                   : type == VKNN_DEVICE_TYPE_CPU         ? "CPU"
                                   : type == VKNN_DEVICE_TYPE_ACCELERATOR ? "accelerator"
                                                                          : "other");
  printf("cache files:      %u model, %u data\n", model_cache, data_cache);
  printf("relaxed fp32->16: tensor exec %.2f, power %.2f\n",
         caps.relaxed_float32_to_float16_performance_tensor.exec_time,
         caps.relaxed_float32_to_float16_performance_tensor.power_usage);
  printf("operand performance (exec time, power usage; lower is better):\n");
  for (uint32_t i = 0; i < caps.operand_performance_count; ++i) {
    const vknn_operand_performance *p = &caps.operand_performance[i];
    printf("  %-32s %.2f %.2f\n", vknn_operand_type_name(p->type), p->info.exec_time,
           p->info.power_usage);
  }
  vknn_device_close(device);
  return 0;
}
