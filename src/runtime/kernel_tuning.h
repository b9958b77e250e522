/* Kernel tuning (the device option kernel_tuning; docs/architecture.md,
 * "Kernel tuning"): prepare times the variants a float convolution's
 * lowering can take, on the device with the layer's own shapes, and
 * compiles each layer on its fastest. A device keeps what it measured by
 * layer shape, so a shape is measured once per device. */
#pragma once
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "compiler/compiler.h"
#include "vknn/device.h"

/* The variant one layer shape was measured fastest with. */
typedef struct vknn_tuning_entry {
  uint8_t *signature; /* the layer's shapes and parameters (kernel_tuning.c) */
  uint32_t signature_size;
  bool texel_reads;
  vknn_winograd winograd;
  bool float16_arithmetic;
} vknn_tuning_entry;

/* What a device has measured, shared by its prepares. */
typedef struct vknn_tuning_table {
  pthread_mutex_t lock;
  vknn_tuning_entry *entries;
  uint32_t count, capacity;
} vknn_tuning_table;

void vknn_tuning_table_init(vknn_tuning_table *table);
void vknn_tuning_table_destroy(vknn_tuning_table *table);

/* Whether a prepare with this preference tunes (the device option; AUTO:
 * sustained speed, on devices whose kernel rules were not measured). */
bool vknn_kernel_tuning_wanted(const vknn_device *device, vknn_execution_preference preference);

/* One kernel target per operation of model, for vknn_plan_target.op_kernels
 * (the caller frees it): the tuned layers' measured variants, the device's
 * target elsewhere. NULL where nothing was tuned: no float convolution with
 * known shapes, or the model does not compile. A layer whose measurement
 * fails keeps the device's rules (logged). */
vknn_kernel_target *vknn_kernel_tuning_choose(vknn_device *device, const vknn_model *model,
                                              const vknn_plan_target *target);
