/* Kernel tuning (the device option kernel_tuning; docs/architecture.md,
 * "Kernel tuning"): prepare times the variants a float convolution's or
 * pooling's lowering can take, on the device with the layer's own shapes, and
 * compiles each layer on its fastest. A device keeps what it measured by
 * layer shape, so a shape is measured once per device. */
#pragma once
#include <stdbool.h>
#include <stdint.h>

#include "compiler/compiler.h"
#include "vknn/device.h"

/* Whether a prepare with this preference tunes (the device option; AUTO:
 * sustained speed, on devices whose kernel rules were not measured). */
bool vknn_kernel_tuning_wanted(const vknn_device *device, vknn_execution_preference preference);

/* One kernel target per operation of model, for vknn_plan_target.op_kernels
 * (the caller frees it): the tuned layers' measured variants, the device's
 * target elsewhere. NULL where nothing was tuned: no float convolution or
 * pooling with known shapes, or the model does not compile. A layer whose measurement
 * fails keeps the device's rules (logged). */
vknn_kernel_target *vknn_kernel_tuning_choose(vknn_device *device, const vknn_model *model,
                                              const vknn_plan_target *target);

/* What a device's tuning choices depend on besides the device and the
 * layer: the options that leave variants open (operand reads, Winograd,
 * float16 arithmetic, shared-memory tiles), whether texel reads are
 * possible, filter loads shared, and whether the device says its width. Choices saved in
 * a compilation cache are used only by a device of the same context. */
uint32_t vknn_kernel_tuning_context(const vknn_device *device);
