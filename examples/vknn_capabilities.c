/* A client of vknn's own C API (include/vknn, `pkg-config --static vknn`):
 * opens the device as the driver's HAL glue would and prints what the
 * driver reports of it, one operand type a line. Exits non-zero when no
 * device opens or a query fails. */
#include <stdio.h>

#include "vknn/vknn.h"

int main(void) {
  vknn_device *device = NULL;
  vknn_status s = vknn_device_open(NULL, &device);
  if (s != VKNN_STATUS_NONE) {
    fprintf(stderr, "vknn-capabilities: no device (%s)\n", vknn_status_name(s));
    return 1;
  }
  const char *version = NULL;
  vknn_capabilities caps;
  s = vknn_device_get_version_string(device, &version);
  if (s == VKNN_STATUS_NONE) s = vknn_device_get_capabilities(device, &caps);
  if (s == VKNN_STATUS_NONE) {
    printf("%s\n", version);
    for (uint32_t i = 0; i < caps.operand_performance_count; ++i)
      printf("%s: %.2f\n", vknn_operand_type_name(caps.operand_performance[i].type),
             caps.operand_performance[i].info.exec_time);
  }
  vknn_device_close(device);
  return s == VKNN_STATUS_NONE ? 0 : 1;
}
