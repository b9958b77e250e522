#include "fuzz_device.h"

#include <stdio.h>
#include <stdlib.h>

static void quiet(void *user_data, vknn_log_level level, const char *tag, const char *message) {
  (void)user_data, (void)level, (void)tag, (void)message;
}

static vknn_device *device;

/* At exit, so that LeakSanitizer sees what the device still held released. */
static void close_device(void) { vknn_device_close(device); }

vknn_device *fuzz_device(void) {
  if (device == NULL) {
    vknn_device_options options = {.log_callback = quiet};
    if (vknn_device_open(&options, &device) != VKNN_STATUS_NONE) {
      fprintf(stderr, "fuzz: no Vulkan device\n");
      abort();
    }
    atexit(close_device);
  }
  return device;
}
