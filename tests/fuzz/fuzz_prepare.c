/* libFuzzer target: model bytes -> validation, support query and prepare. */
#include <stdlib.h>

#include "fuzz_device.h"
#include "fuzz_model_bytes.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_model *m = malloc(sizeof(*m));
  if (m == NULL) return 0;
  if (fuzz_model_decode(data, size, m) == 0) {
    vknn_device *device = fuzz_device();
    uint32_t count = m->model.main.operation_count;
    bool supported[FUZZ_MAX_OPERATIONS + 1];
    vknn_device_get_supported_operations(device, &m->model, supported, count);
    vknn_prepared_model *pm = NULL;
    if (vknn_device_prepare_model(device, &m->model, VKNN_PREFER_FAST_SINGLE_ANSWER,
                                  VKNN_PRIORITY_MEDIUM, NULL, &pm) == VKNN_STATUS_NONE)
      vknn_prepared_model_release(pm);
  }
  fuzz_model_free(m);
  free(m);
  return 0;
}
