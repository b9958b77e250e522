/* Two devices for tests that run the same models both ways: one opened
 * with the device's own choices, one with a device option changed. */
#pragma once
#include "support/test_model.h"
#include "vknn/vknn.h"

typedef struct device_pair {
  vknn_device *changed; /* opened with change() applied to its options */
  vknn_device *plain;   /* the device's own choices */
  test_log log;
} device_pair;

/* cmocka group setup: both devices with the validation layer on and kernel
 * tuning off (so that the options alone decide), *state a device_pair. */
int device_pair_setup(void **state, void (*change)(vknn_device_options *options));
/* Closes both; fails when the validation layer reported anything. */
int device_pair_teardown(void **state);
