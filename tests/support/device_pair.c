#include "support/device_pair.h"

#include <stdlib.h>

int device_pair_setup(void **state, void (*change)(vknn_device_options *options)) {
  device_pair *f = calloc(1, sizeof(*f));
  if (f == NULL) return -1;
  *state = f;
  vknn_device_options options = {.log_callback = test_log_callback, .log_user_data = &f->log,
                                 .enable_validation = true, .kernel_tuning = VKNN_KERNEL_TUNING_OFF};
  if (vknn_device_open(&options, &f->plain) != VKNN_STATUS_NONE) return -1;
  change(&options);
  return vknn_device_open(&options, &f->changed) == VKNN_STATUS_NONE ? 0 : -1;
}

int device_pair_teardown(void **state) {
  device_pair *f = *state;
  uint64_t messages = 0;
  vknn_device *devices[2] = {f->changed, f->plain};
  for (int i = 0; i < 2; ++i) {
    if (devices[i] == NULL) continue;
    messages += vknn_device_get_validation_message_count(devices[i]);
    vknn_device_close(devices[i]);
  }
  free(f);
  return messages == 0 ? 0 : -1;
}
