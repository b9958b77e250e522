/* Device bring-up and the device queries (validation layer on). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "device_internal.h"
#include "vk_buffer.h"
#include "vknn/vknn.h"

static vknn_device *open_device(void) {
  vknn_device_options options = {.enable_validation = true};
  vknn_device *device = NULL;
  assert_int_equal(vknn_device_open(&options, &device), VKNN_STATUS_NONE);
  assert_non_null(device);
  return device;
}

static void close_device(vknn_device *device) {
  assert_int_equal(vknn_device_get_validation_message_count(device), 0);
  vknn_device_close(device);
}

/* More than any heap holds can never succeed: PERSISTENT. An allocation
 * that fits a heap but fails now may succeed later: TRANSIENT. */
static void test_memory_exhaustion_kinds(void **state) {
  (void)state;
  vknn_device *device = open_device();
  vknn_vk_buffer buffer;
  assert_int_equal(vknn_vk_buffer_create(&device->vk, (VkDeviceSize)1 << 52,
                                         VKNN_BUFFER_DEVICE_LOCAL, &buffer),
                   VKNN_STATUS_RESOURCE_EXHAUSTED_PERSISTENT);
  assert_null(buffer.buffer);
  assert_int_equal(vknn_vk_status(VK_ERROR_OUT_OF_DEVICE_MEMORY),
                   VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT);
  assert_int_equal(vknn_vk_status(VK_ERROR_OUT_OF_HOST_MEMORY),
                   VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT);
  close_device(device);
}

static void test_open_and_query(void **state) {
  (void)state;
  vknn_device *device = open_device();
  vknn_device_type type;
  const char *version = NULL;
  uint32_t model_cache = 9, data_cache = 9;
  assert_int_equal(vknn_device_get_type(device, &type), VKNN_STATUS_NONE);
  assert_int_equal(type, VKNN_DEVICE_TYPE_GPU);
  assert_int_equal(vknn_device_get_version_string(device, &version), VKNN_STATUS_NONE);
  assert_non_null(strstr(version, "vknn-"));
  assert_int_equal(vknn_device_get_number_of_cache_files_needed(device, &model_cache, &data_cache),
                   VKNN_STATUS_NONE);
  assert_int_equal(model_cache, 0);
  assert_int_equal(data_cache, 0);
  close_device(device);
}

/* Capabilities list every non-extension type but SUBGRAPH, sorted, and are
 * the same on every open. */
static void test_capabilities_stable_and_sorted(void **state) {
  (void)state;
  vknn_capabilities first, second;
  vknn_device *device = open_device();
  assert_int_equal(vknn_device_get_capabilities(device, &first), VKNN_STATUS_NONE);
  close_device(device);
  device = open_device();
  assert_int_equal(vknn_device_get_capabilities(device, &second), VKNN_STATUS_NONE);
  close_device(device);
  assert_memory_equal(&first, &second, sizeof(first));
  assert_int_equal(first.operand_performance_count, VKNN_OPERAND_SUBGRAPH);
  for (uint32_t i = 0; i < first.operand_performance_count; ++i) {
    assert_int_equal(first.operand_performance[i].type, (int32_t)i);
    assert_true(first.operand_performance[i].info.exec_time > 0.f);
  }
}

static void test_device_choice_by_environment(void **state) {
  (void)state;
  vknn_device *device = open_device();
  const char *name = NULL;
  assert_int_equal(vknn_device_get_name(device, &name), VKNN_STATUS_NONE);
  char prefix[8] = {0};
  strncpy(prefix, name, 4);
  close_device(device);

  setenv("VKNN_DEVICE", prefix, 1); /* a name substring */
  device = open_device();
  close_device(device);
  setenv("VKNN_DEVICE", "0", 1); /* an index */
  device = open_device();
  close_device(device);
  setenv("VKNN_DEVICE", "no-such-device", 1);
  assert_int_equal(vknn_device_open(NULL, &device), VKNN_STATUS_DEVICE_UNAVAILABLE);
  assert_null(device);
  setenv("VKNN_DEVICE", "99", 1);
  assert_int_equal(vknn_device_open(NULL, &device), VKNN_STATUS_DEVICE_UNAVAILABLE);
  unsetenv("VKNN_DEVICE");
}

static void test_null_arguments(void **state) {
  (void)state;
  vknn_device *device = open_device();
  vknn_capabilities caps;
  vknn_device_type type;
  const char *text;
  uint32_t a, b;
  bool supported;
  vknn_prepared_model *pm;
  assert_int_equal(vknn_device_open(NULL, NULL), VKNN_STATUS_INVALID_ARGUMENT);
  assert_int_equal(vknn_device_get_capabilities(NULL, &caps), VKNN_STATUS_INVALID_ARGUMENT);
  assert_int_equal(vknn_device_get_capabilities(device, NULL), VKNN_STATUS_INVALID_ARGUMENT);
  assert_int_equal(vknn_device_get_type(NULL, &type), VKNN_STATUS_INVALID_ARGUMENT);
  assert_int_equal(vknn_device_get_type(device, NULL), VKNN_STATUS_INVALID_ARGUMENT);
  assert_int_equal(vknn_device_get_version_string(device, NULL), VKNN_STATUS_INVALID_ARGUMENT);
  assert_int_equal(vknn_device_get_version_string(NULL, &text), VKNN_STATUS_INVALID_ARGUMENT);
  assert_int_equal(vknn_device_get_number_of_cache_files_needed(device, NULL, &b),
                   VKNN_STATUS_INVALID_ARGUMENT);
  assert_int_equal(vknn_device_get_number_of_cache_files_needed(NULL, &a, &b),
                   VKNN_STATUS_INVALID_ARGUMENT);
  assert_int_equal(vknn_device_get_supported_operations(device, NULL, &supported, 1),
                   VKNN_STATUS_INVALID_ARGUMENT);
  assert_int_equal(vknn_device_prepare_model(device, NULL, VKNN_PREFER_LOW_POWER,
                                             VKNN_PRIORITY_LOW, NULL, &pm),
                   VKNN_STATUS_INVALID_ARGUMENT);
  vknn_device_close(NULL);
  vknn_prepared_model_release(NULL);
  close_device(device);
}

static void test_names(void **state) {
  (void)state;
  assert_string_equal(vknn_operation_type_name(VKNN_OPERATION_RANK), "RANK");
  assert_string_equal(vknn_operation_type_name(VKNN_OPERATION_ADD), "ADD");
  assert_null(vknn_operation_type_name(102));
  assert_string_equal(vknn_operand_type_name(VKNN_OPERAND_TENSOR_QUANT8_ASYMM_SIGNED),
                      "TENSOR_QUANT8_ASYMM_SIGNED");
  assert_string_equal(vknn_status_name(VKNN_STATUS_OUTPUT_INSUFFICIENT_SIZE),
                      "OUTPUT_INSUFFICIENT_SIZE");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_open_and_query),
      cmocka_unit_test(test_capabilities_stable_and_sorted),
      cmocka_unit_test(test_device_choice_by_environment),
      cmocka_unit_test(test_null_arguments),
      cmocka_unit_test(test_names),
      cmocka_unit_test(test_memory_exhaustion_kinds),
  };
  return cmocka_run_group_tests_name("device", tests, NULL, NULL);
}
