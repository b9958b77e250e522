/* Performance figures reported by getCapabilities.
 *
 * The HAL requires the same figures on every start, so they are a stored
 * table, not a timer reading at start-up. Values are relative to the CPU
 * reference (lower is better); docs/capabilities.md records how they are
 * chosen. */
#include <string.h>

#include "runtime/device_internal.h"
#include "model/operand_type.h"

static float exec_time_for(int32_t type) {
  switch (type) {
    case VKNN_OPERAND_TENSOR_FLOAT32:
    case VKNN_OPERAND_TENSOR_FLOAT16:
      return 0.8f;
    case VKNN_OPERAND_TENSOR_QUANT8_ASYMM:
    case VKNN_OPERAND_TENSOR_QUANT8_ASYMM_SIGNED:
      return 0.9f;
    default:
      return 1.0f;
  }
}

vknn_status vknn_device_get_capabilities(const vknn_device *device,
                                         vknn_capabilities *out_capabilities) {
  if (device == NULL || out_capabilities == NULL) return VKNN_STATUS_INVALID_ARGUMENT;
  memset(out_capabilities, 0, sizeof(*out_capabilities));
  vknn_performance_info tensor = {0.8f, 0.8f};
  out_capabilities->relaxed_float32_to_float16_performance_scalar = (vknn_performance_info){1.f, 1.f};
  out_capabilities->relaxed_float32_to_float16_performance_tensor = tensor;
  /* The float tensor figure times the measured cost ratio (docs/perf.md,
   * Control flow): an IF costs one execution of its branch, a WHILE
   * iteration 1.8 back-to-back executions of a one-operation model. */
  out_capabilities->if_performance = (vknn_performance_info){0.8f, 0.8f};
  out_capabilities->while_performance = (vknn_performance_info){1.4f, 1.4f};
  /* Every non-extension type but SUBGRAPH, sorted by type (HAL rule). */
  for (int32_t type = VKNN_OPERAND_FLOAT32; type < VKNN_OPERAND_SUBGRAPH; ++type) {
    float t = exec_time_for(type);
    out_capabilities->operand_performance[out_capabilities->operand_performance_count++] =
        (vknn_operand_performance){type, {t, t}};
  }
  return VKNN_STATUS_NONE;
}
