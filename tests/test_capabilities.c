/* getCapabilities comes from the stored table (src/api/capabilities.c): the
 * row of the Vulkan device's vendor and device id, the documented default
 * (1.0 everywhere) for devices without one, each operand type mapped to its
 * workload, and the opened device reporting its own row. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "api/capabilities.h"
#include "runtime/device_internal.h"

#define LAVAPIPE_VENDOR 0x10005u

static float exec_time(const vknn_capabilities *c, int32_t type) {
  for (uint32_t i = 0; i < c->operand_performance_count; ++i)
    if (c->operand_performance[i].type == type) return c->operand_performance[i].info.exec_time;
  fail_msg("type %d missing", type);
  return 0.f;
}

static void test_default_for_unknown_devices(void **state) {
  (void)state;
  vknn_capabilities c;
  vknn_capabilities_for(0xdead, 0xbeef, &c);
  assert_int_equal(c.operand_performance_count, VKNN_OPERAND_SUBGRAPH);
  for (uint32_t i = 0; i < c.operand_performance_count; ++i) {
    assert_true(c.operand_performance[i].info.exec_time == 1.f);
    assert_true(c.operand_performance[i].info.power_usage == 1.f);
  }
  assert_true(c.if_performance.exec_time == 1.f && c.while_performance.exec_time == 1.f);
  assert_true(c.relaxed_float32_to_float16_performance_tensor.exec_time == 1.f);
}

/* lavapipe has a measured row: not the default, and its types grouped by
 * the workload that stands for them. */
static void test_lavapipe_row(void **state) {
  (void)state;
  vknn_capabilities c, unknown;
  vknn_capabilities_for(LAVAPIPE_VENDOR, 0, &c);
  vknn_capabilities_for(LAVAPIPE_VENDOR, 1, &unknown); /* another device of the vendor */
  assert_memory_not_equal(&c, &unknown, sizeof(c));
  assert_true(exec_time(&c, VKNN_OPERAND_TENSOR_FLOAT32) != 1.f);
  assert_true(exec_time(&c, VKNN_OPERAND_FLOAT32) == exec_time(&c, VKNN_OPERAND_TENSOR_FLOAT32));
  assert_true(exec_time(&c, VKNN_OPERAND_TENSOR_FLOAT16) ==
              c.relaxed_float32_to_float16_performance_tensor.exec_time);
  float q8 = exec_time(&c, VKNN_OPERAND_TENSOR_QUANT8_ASYMM);
  assert_true(exec_time(&c, VKNN_OPERAND_TENSOR_QUANT8_ASYMM_SIGNED) == q8);
  assert_true(exec_time(&c, VKNN_OPERAND_TENSOR_QUANT8_SYMM_PER_CHANNEL) == q8);
  assert_true(exec_time(&c, VKNN_OPERAND_INT32) == exec_time(&c, VKNN_OPERAND_TENSOR_INT32));
  assert_true(exec_time(&c, VKNN_OPERAND_BOOL) == exec_time(&c, VKNN_OPERAND_TENSOR_BOOL8));
  assert_true(c.if_performance.exec_time > 0.f && c.while_performance.exec_time > 0.f);
}

/* The opened device reports the row of its own ids. */
static void test_device_reports_its_row(void **state) {
  (void)state;
  vknn_device *device = NULL;
  assert_int_equal(vknn_device_open(NULL, &device), VKNN_STATUS_NONE);
  vknn_capabilities reported, stored;
  assert_int_equal(vknn_device_get_capabilities(device, &reported), VKNN_STATUS_NONE);
  vknn_capabilities_for(device->vk.properties.vendorID, device->vk.properties.deviceID, &stored);
  assert_memory_equal(&reported, &stored, sizeof(reported));
  assert_int_equal(vknn_device_get_validation_message_count(device), 0);
  vknn_device_close(device);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_default_for_unknown_devices),
      cmocka_unit_test(test_lavapipe_row),
      cmocka_unit_test(test_device_reports_its_row),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
