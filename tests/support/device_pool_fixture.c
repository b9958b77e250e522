#include "support/device_pool_fixture.h"

#include <stdlib.h>

int device_pool_fixture_setup(void **state, size_t pool_bytes) {
  device_pool_fixture *f = calloc(1, sizeof(*f));
  if (f == NULL) return -1;
  /* The device's rules only: tests name the kernels a layer runs on. */
  vknn_device_options options = {.enable_validation = true, .kernel_tuning = VKNN_KERNEL_TUNING_OFF};
  if (vknn_device_open(&options, &f->device) != VKNN_STATUS_NONE) return -1;
  if (shared_memory_create(&f->pool, pool_bytes) != 0) return -1;
  *state = f;
  return 0;
}

int device_pool_fixture_teardown(void **state) {
  device_pool_fixture *f = *state;
  uint64_t messages = vknn_device_get_validation_message_count(f->device);
  vknn_device_close(f->device);
  shared_memory_destroy(&f->pool);
  free(f);
  return messages == 0 ? 0 : -1;
}
