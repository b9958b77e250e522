/* Performance figures reported by getCapabilities.
 *
 * The HAL requires the same figures on every start, so they are a stored
 * table keyed by the Vulkan vendor and device id, not a timer reading at
 * start-up. Each row was measured with `vknn-bench capabilities` (a fixed
 * reference workload per operand type, and IF and WHILE, timed on the device
 * and in plain single-threaded C on the host: device / host, lower is
 * better); docs/capabilities.md records the runs and how each operand type
 * maps to a workload. Devices without a row get the default row. */
#include <string.h>

#include "api/capabilities.h"
#include "runtime/device_internal.h"
#include "model/operand_type.h"

/* One device's ratios, one per workload of vknn-bench capabilities. */
typedef struct vknn_measured {
  uint32_t vendor_id, device_id;
  float float32; /* CONV_2D 3x3, float32 */
  float relaxed; /* the same, relaxed to float16 */
  float quant8;  /* the same, QUANT8_ASYMM */
  float int32;   /* ADD of TENSOR_INT32 */
  float bool8;   /* LOGICAL_AND of TENSOR_BOOL8 */
  float if_;     /* IF taking the float32 convolution's branch */
  float while_;  /* WHILE of 4 float32 convolutions */
} vknn_measured;

static const vknn_measured kMeasured[] = {
    /* lavapipe (Mesa 22.3, LLVM 15, 256-bit) on a loaded 2-core virtual
     * EPYC: docs/capabilities.md, medians of 6 runs of 11 rounds. */
    {0x10005, 0x0000, 0.37f, 0.32f, 0.45f, 102.f, 15.1f, 0.34f, 0.31f},
    /* The NVIDIA H100 (0x10de) has no row yet: it could not be measured. */
};

/* Unknown devices: as fast as the CPU reference everywhere (docs/capabilities.md). */
static const vknn_measured kDefault = {0, 0, 1.f, 1.f, 1.f, 1.f, 1.f, 1.f, 1.f};

static const vknn_measured *measured_for(uint32_t vendor_id, uint32_t device_id) {
  for (size_t i = 0; i < sizeof(kMeasured) / sizeof(kMeasured[0]); ++i)
    if (kMeasured[i].vendor_id == vendor_id && kMeasured[i].device_id == device_id)
      return &kMeasured[i];
  return &kDefault;
}

/* The workload that stands for each operand type (docs/capabilities.md):
 * scalars take their tensor type's; types without a workload of their own
 * take the nearest measured one. */
static float exec_time_for(const vknn_measured *m, int32_t type) {
  switch (type) {
    case VKNN_OPERAND_FLOAT32:
    case VKNN_OPERAND_TENSOR_FLOAT32:
      return m->float32;
    case VKNN_OPERAND_FLOAT16:
    case VKNN_OPERAND_TENSOR_FLOAT16:
      return m->relaxed;
    case VKNN_OPERAND_TENSOR_QUANT8_ASYMM:
    case VKNN_OPERAND_TENSOR_QUANT8_ASYMM_SIGNED:
    case VKNN_OPERAND_TENSOR_QUANT8_SYMM:
    case VKNN_OPERAND_TENSOR_QUANT8_SYMM_PER_CHANNEL:
      return m->quant8;
    case VKNN_OPERAND_BOOL:
    case VKNN_OPERAND_TENSOR_BOOL8:
      return m->bool8;
    default: /* INT32, UINT32, TENSOR_INT32, TENSOR_QUANT16_SYMM, TENSOR_QUANT16_ASYMM */
      return m->int32;
  }
}

/* Power is not measured: each power figure repeats the time figure. */
static vknn_performance_info info(float ratio) { return (vknn_performance_info){ratio, ratio}; }

void vknn_capabilities_for(uint32_t vendor_id, uint32_t device_id,
                           vknn_capabilities *out_capabilities) {
  const vknn_measured *m = measured_for(vendor_id, device_id);
  memset(out_capabilities, 0, sizeof(*out_capabilities));
  out_capabilities->relaxed_float32_to_float16_performance_scalar = info(m->relaxed);
  out_capabilities->relaxed_float32_to_float16_performance_tensor = info(m->relaxed);
  out_capabilities->if_performance = info(m->if_);
  out_capabilities->while_performance = info(m->while_);
  /* Every non-extension type but SUBGRAPH, sorted by type (HAL rule). */
  for (int32_t type = VKNN_OPERAND_FLOAT32; type < VKNN_OPERAND_SUBGRAPH; ++type)
    out_capabilities->operand_performance[out_capabilities->operand_performance_count++] =
        (vknn_operand_performance){type, info(exec_time_for(m, type))};
}

vknn_status vknn_device_get_capabilities(const vknn_device *device,
                                         vknn_capabilities *out_capabilities) {
  if (device == NULL || out_capabilities == NULL) return VKNN_STATUS_INVALID_ARGUMENT;
  vknn_capabilities_for(device->vk.properties.vendorID, device->vk.properties.deviceID,
                        out_capabilities);
  return VKNN_STATUS_NONE;
}
