/* Prepare and execute through the public API, and every request rule. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/shared_memory.h"
#include "support/add_fixture.h"
#include "vknn/vknn.h"

typedef add_fixture fixture;

static int setup(void **state) { return add_fixture_setup(state, NULL); }
static int teardown(void **state) { return add_fixture_teardown(state); }

static vknn_status execute(fixture *f, vknn_measure_timing measure) {
  return vknn_prepared_model_execute(f->pm, &f->r.request, measure, NULL, NULL, f->shapes, 1,
                                     &f->timing);
}

static void expect_invalid(fixture *f, const char *log_substring) {
  assert_int_equal(execute(f, VKNN_MEASURE_TIMING_YES), VKNN_STATUS_INVALID_ARGUMENT);
  if (strstr(f->log.last, log_substring) == NULL)
    fail_msg("log \"%s\" lacks \"%s\"", f->log.last, log_substring);
  assert_true(f->timing.time_in_driver == UINT64_MAX && f->timing.time_on_device == UINT64_MAX);
}

static void test_add_computes_on_gpu(void **state) {
  fixture *f = *state;
  assert_int_equal(execute(f, VKNN_MEASURE_TIMING_NO), VKNN_STATUS_NONE);
  const float *out = (const float *)(f->r.pool.data + 48);
  for (int i = 0; i < 6; ++i) assert_float_equal(out[i], 11.f * (float)i, 0.f);
  assert_int_equal(f->shapes[0].rank, 2);
  assert_int_equal(f->shapes[0].dimensions[0], 2);
  assert_int_equal(f->shapes[0].dimensions[1], 3);
  assert_true(f->shapes[0].is_sufficient);
  assert_true(f->timing.time_in_driver == UINT64_MAX && f->timing.time_on_device == UINT64_MAX);
  assert_int_equal(execute(f, VKNN_MEASURE_TIMING_YES), VKNN_STATUS_NONE);
  assert_true(f->timing.time_in_driver != UINT64_MAX);
  assert_true(f->timing.time_on_device == UINT64_MAX ||
              f->timing.time_in_driver >= f->timing.time_on_device);
}

static void test_request_counts(void **state) {
  fixture *f = *state;
  f->r.request.input_count = 1;
  expect_invalid(f, "request has 1 inputs");
}

static void test_request_pool_index(void **state) {
  fixture *f = *state;
  f->r.inputs[1].location.pool_index = 1;
  expect_invalid(f, "pool 1 of 1");
}

static void test_request_location_outside_pool(void **state) {
  fixture *f = *state;
  f->r.outputs[0].location.offset = 60;
  expect_invalid(f, "lies outside its pool");
}

static void test_request_dimensions(void **state) {
  fixture *f = *state;
  const uint32_t wrong_rank[] = {6};
  const uint32_t wrong_value[] = {3, 2};
  f->r.inputs[0].dimension_count = 1;
  f->r.inputs[0].dimensions = wrong_rank;
  expect_invalid(f, "rank 1");
  f->r.inputs[0].dimension_count = 2;
  f->r.inputs[0].dimensions = wrong_value;
  expect_invalid(f, "dimension 0 is 3");
}

static void test_request_input_too_short(void **state) {
  fixture *f = *state;
  f->r.inputs[0].location.length = 20;
  expect_invalid(f, "has 20 bytes");
}

static void test_request_missing_input(void **state) {
  fixture *f = *state;
  f->r.inputs[0] = (vknn_request_argument){.has_no_value = true};
  expect_invalid(f, "has no value");
}

static void test_request_no_value_with_location(void **state) {
  fixture *f = *state;
  static const uint32_t dims[] = {2, 3};
  f->r.inputs[1].has_no_value = true; /* its location stays */
  expect_invalid(f, "input 1 has no value but a location or dimensions");
  f->r.inputs[1] = (vknn_request_argument){.has_no_value = true, .dimension_count = 2, .dimensions = dims};
  expect_invalid(f, "input 1 has no value but a location or dimensions");
  f->r.inputs[1] = (vknn_request_argument){.location = {0, 24, 24}};
  f->r.outputs[0].has_no_value = true;
  expect_invalid(f, "output 0 has no value but a location or dimensions");
}

static void test_request_token_pool(void **state) {
  fixture *f = *state;
  f->r.pools[0] = (vknn_request_pool){.kind = VKNN_REQUEST_POOL_TOKEN, .token = 7};
  expect_invalid(f, "token 7");
}

static void test_request_unknown_memory_kind(void **state) {
  fixture *f = *state;
  f->r.pools[0].memory.name = "gralloc";
  expect_invalid(f, "is invalid");
}

static void test_request_hardware_buffer_unavailable(void **state) {
  fixture *f = *state;
  f->r.pools[0].memory.name = "hardware_buffer_blob";
  assert_int_equal(execute(f, VKNN_MEASURE_TIMING_NO), VKNN_STATUS_GENERAL_FAILURE);
  assert_non_null(strstr(f->log.last, "AHardwareBuffer"));
}

/* A memory's descriptor and integer arrays are there when their counts say
 * so, and no longer than a handle holds (1024 each), whatever its kind: an
 * asynchronous execution copies them all. */
static void test_request_memory_arrays(void **state) {
  fixture *f = *state;
  const vknn_memory valid = f->r.pools[0].memory;
  f->r.pools[0].memory.int_count = 2; /* ints NULL */
  expect_invalid(f, "request pool 0 is invalid");
  f->r.pools[0].memory = valid;
  f->r.pools[0].memory.name = "hardware_buffer_blob";
  f->r.pools[0].memory.fds = NULL;
  expect_invalid(f, "request pool 0 is invalid");
  static int many_fds[1025];
  for (int i = 0; i < 1025; ++i) many_fds[i] = valid.fds[0];
  f->r.pools[0].memory = valid;
  f->r.pools[0].memory.fds = many_fds;
  f->r.pools[0].memory.fd_count = 1025;
  expect_invalid(f, "request pool 0 is invalid");
  f->r.pools[0].memory.fd_count = 1024;
  assert_int_equal(execute(f, VKNN_MEASURE_TIMING_NO), VKNN_STATUS_NONE);
}

static void test_output_insufficient_size(void **state) {
  fixture *f = *state;
  f->r.outputs[0].location.length = 12;
  assert_int_equal(execute(f, VKNN_MEASURE_TIMING_YES), VKNN_STATUS_OUTPUT_INSUFFICIENT_SIZE);
  assert_false(f->shapes[0].is_sufficient);
  assert_int_equal(f->shapes[0].rank, 2);
  assert_int_equal(f->shapes[0].dimensions[1], 3);
  /* Retry with room: succeeds. */
  f->r.outputs[0].location.length = 24;
  assert_int_equal(execute(f, VKNN_MEASURE_TIMING_NO), VKNN_STATUS_NONE);
}

static void test_execute_arguments(void **state) {
  fixture *f = *state;
  assert_int_equal(vknn_prepared_model_execute(NULL, &f->r.request, 0, NULL, NULL, NULL, 0, NULL),
                   VKNN_STATUS_INVALID_ARGUMENT);
  assert_int_equal(vknn_prepared_model_execute(f->pm, NULL, 0, NULL, NULL, NULL, 0, NULL),
                   VKNN_STATUS_INVALID_ARGUMENT);
  assert_non_null(strstr(f->log.last, "no request"));
  assert_int_equal(vknn_prepared_model_execute(f->pm, &f->r.request, (vknn_measure_timing)5, NULL,
                                               NULL, NULL, 0, NULL),
                   VKNN_STATUS_INVALID_ARGUMENT);
  assert_int_equal(vknn_prepared_model_execute(f->pm, &f->r.request, 0, NULL, NULL, f->shapes, 0,
                                               NULL),
                   VKNN_STATUS_INVALID_ARGUMENT);
  vknn_deadline past = {.has_value = true, .nanoseconds_since_boot = 1};
  assert_int_equal(vknn_prepared_model_execute(f->pm, &f->r.request, 0, &past, NULL, NULL, 0, NULL),
                   VKNN_STATUS_MISSED_DEADLINE_PERSISTENT);
  /* Shapes and timing are optional. */
  assert_int_equal(vknn_prepared_model_execute(f->pm, &f->r.request, 0, NULL, NULL, NULL, 0, NULL),
                   VKNN_STATUS_NONE);
}

/* An mmap_fd pool with an offset: the same file, seen from byte 4096. */
static void test_mmap_fd_pool(void **state) {
  fixture *f = *state;
  shared_memory file;
  assert_int_equal(shared_memory_create(&file, 4096 + 72), 0);
  memcpy(file.data + 4096, f->r.pool.data, 48);
  const int32_t ints[] = {PROT_READ | PROT_WRITE, 4096, 0};
  f->r.pools[0].memory = (vknn_memory){.name = "mmap_fd", .fds = &file.fd, .fd_count = 1,
                                     .ints = ints, .int_count = 3, .size = 72};
  assert_int_equal(execute(f, VKNN_MEASURE_TIMING_NO), VKNN_STATUS_NONE);
  assert_float_equal(((const float *)(file.data + 4096 + 48))[5], 55.f, 0.f);
  const int32_t read_only[] = {PROT_READ, 4096, 0};
  f->r.pools[0].memory.ints = read_only;
  expect_invalid(f, "read-only");
  shared_memory_destroy(&file);
}

/* A pool of a file without a size (a device such as /dev/zero) is bounded by
 * what can be mapped: a size that wraps the mapping's length past the
 * address space is refused, not mapped short (arguments past the short
 * mapping's page would then read unmapped memory). */
static void test_mmap_fd_size_wraps(void **state) {
  fixture *f = *state;
  int fd = open("/dev/zero", O_RDWR | O_CLOEXEC);
  assert_true(fd >= 0);
  const int32_t ints[] = {PROT_READ | PROT_WRITE, 100, 0};
  f->r.pools[0].memory = (vknn_memory){.name = "mmap_fd", .fds = &fd, .fd_count = 1,
                                     .ints = ints, .int_count = 3, .size = UINT64_MAX - 50};
  expect_invalid(f, "cannot be mapped");
  const int32_t far[] = {PROT_READ | PROT_WRITE, 0, INT32_MIN}; /* offset 2^63 */
  f->r.pools[0].memory.ints = far;
  f->r.pools[0].memory.size = 4096;
  expect_invalid(f, "cannot be mapped");
  close(fd);
}

static void test_prepare_arguments(void **state) {
  fixture *f = *state;
  vknn_prepared_model *pm = NULL;
  assert_int_equal(vknn_device_prepare_model(f->device, &f->model.model, (vknn_execution_preference)3,
                                             VKNN_PRIORITY_LOW, NULL, &pm),
                   VKNN_STATUS_INVALID_ARGUMENT);
  assert_int_equal(vknn_device_prepare_model(f->device, &f->model.model, VKNN_PREFER_LOW_POWER,
                                             (vknn_priority)9, NULL, &pm),
                   VKNN_STATUS_INVALID_ARGUMENT);
  vknn_deadline past = {.has_value = true, .nanoseconds_since_boot = 1};
  assert_int_equal(vknn_device_prepare_model(f->device, &f->model.model, VKNN_PREFER_LOW_POWER,
                                             VKNN_PRIORITY_LOW, &past, &pm),
                   VKNN_STATUS_MISSED_DEADLINE_PERSISTENT);
  assert_null(pm);
}

/* The caller may free its model right after prepare. */
static void test_model_not_kept(void **state) {
  fixture *f = *state;
  test_model *copy = malloc(sizeof(*copy));
  test_model_init_add(copy, VKNN_OPERAND_TENSOR_FLOAT32);
  copy->activation = VKNN_FUSED_RELU6;
  vknn_prepared_model *pm = NULL;
  assert_int_equal(vknn_device_prepare_model(f->device, &copy->model, VKNN_PREFER_LOW_POWER,
                                             VKNN_PRIORITY_HIGH, NULL, &pm),
                   VKNN_STATUS_NONE);
  memset(copy, 0xff, sizeof(*copy));
  free(copy);
  assert_int_equal(vknn_prepared_model_execute(pm, &f->r.request, 0, NULL, NULL, NULL, 0, NULL),
                   VKNN_STATUS_NONE);
  assert_float_equal(((const float *)(f->r.pool.data + 48))[5], 6.f, 0.f); /* relu6(55) */
  vknn_prepared_model_release(pm);
}

static void test_supported_operations(void **state) {
  fixture *f = *state;
  bool supported = false;
  assert_int_equal(vknn_device_get_supported_operations(f->device, &f->model.model, &supported, 1),
                   VKNN_STATUS_NONE);
  assert_true(supported);
  assert_int_equal(vknn_device_get_supported_operations(f->device, &f->model.model, &supported, 2),
                   VKNN_STATUS_INVALID_ARGUMENT);
  /* A valid model of an operation the driver has no kernel for (a vendor
   * extension it does not know): false, and prepare refuses it. */
  test_model m;
  test_model_init_add(&m, VKNN_OPERAND_TENSOR_FLOAT32);
  const vknn_extension_prefix extension = {"com.example.unknown", 7};
  m.model.extension_name_to_prefix = &extension;
  m.model.extension_name_to_prefix_count = 1;
  m.operation.type = (7 << 16) | 1;
  supported = true;
  assert_int_equal(vknn_device_get_supported_operations(f->device, &m.model, &supported, 1),
                   VKNN_STATUS_NONE);
  assert_false(supported);
  vknn_prepared_model *pm = NULL;
  assert_int_equal(vknn_device_prepare_model(f->device, &m.model, VKNN_PREFER_LOW_POWER,
                                             VKNN_PRIORITY_LOW, NULL, &pm),
                   VKNN_STATUS_GENERAL_FAILURE);
  assert_non_null(strstr(f->log.last, "extension"));
}

/* An activation given as a model input is read per execution (the model is
 * compiled with its value: test_op_rules test_add_activation_at_execution). */
static void test_runtime_activation_supported(void **state) {
  fixture *f = *state;
  test_model m;
  test_model_init_add(&m, VKNN_OPERAND_TENSOR_FLOAT32);
  m.operands[2].lifetime = VKNN_LIFETIME_SUBGRAPH_INPUT;
  m.operands[2].location = (vknn_data_location){0, 0, 0};
  uint32_t inputs[3] = {0, 1, 2};
  m.model.main.input_indexes = inputs;
  m.model.main.input_count = 3;
  bool supported = true;
  assert_int_equal(vknn_device_get_supported_operations(f->device, &m.model, &supported, 1),
                   VKNN_STATUS_NONE);
  assert_true(supported);
}

static void test_quant8_broadcast(void **state) {
  fixture *f = *state;
  test_model m;
  test_model_init_add(&m, VKNN_OPERAND_TENSOR_QUANT8_ASYMM);
  m.dims[1][0] = 3; /* in1: [3], broadcast over rows */
  m.operands[1].dimension_count = 1;
  m.operands[0].zero_point = 10;
  m.operands[3].scale = 1.0f;
  m.operands[3].zero_point = 5;
  vknn_prepared_model *pm = NULL;
  assert_int_equal(vknn_device_prepare_model(f->device, &m.model, VKNN_PREFER_LOW_POWER,
                                             VKNN_PRIORITY_LOW, NULL, &pm),
                   VKNN_STATUS_NONE);
  uint8_t *bytes = f->r.pool.data;
  const uint8_t a[6] = {10, 12, 14, 16, 18, 250}, b[3] = {2, 4, 6};
  memcpy(bytes, a, 6);
  memcpy(bytes + 8, b, 3);
  vknn_request_argument inputs[2] = {{.location = {0, 0, 6}}, {.location = {0, 8, 3}}};
  vknn_request_argument outputs[1] = {{.location = {0, 16, 6}}};
  vknn_request request = {inputs, 2, outputs, 1, f->r.pools, 1};
  assert_int_equal(vknn_prepared_model_execute(pm, &request, 0, NULL, NULL, NULL, 0, NULL),
                   VKNN_STATUS_NONE);
  /* real = 0.5*(a-10) + 0.5*b; q = real/1 + 5, rounded half away from zero. */
  const uint8_t expected[6] = {6, 8, 10, 9, 11, 128};
  assert_memory_equal(bytes + 16, expected, 6);
  vknn_prepared_model_release(pm);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_add_computes_on_gpu, setup, teardown),
      cmocka_unit_test_setup_teardown(test_request_counts, setup, teardown),
      cmocka_unit_test_setup_teardown(test_request_pool_index, setup, teardown),
      cmocka_unit_test_setup_teardown(test_request_location_outside_pool, setup, teardown),
      cmocka_unit_test_setup_teardown(test_request_dimensions, setup, teardown),
      cmocka_unit_test_setup_teardown(test_request_input_too_short, setup, teardown),
      cmocka_unit_test_setup_teardown(test_request_missing_input, setup, teardown),
      cmocka_unit_test_setup_teardown(test_request_no_value_with_location, setup, teardown),
      cmocka_unit_test_setup_teardown(test_request_token_pool, setup, teardown),
      cmocka_unit_test_setup_teardown(test_request_unknown_memory_kind, setup, teardown),
      cmocka_unit_test_setup_teardown(test_request_hardware_buffer_unavailable, setup, teardown),
      cmocka_unit_test_setup_teardown(test_request_memory_arrays, setup, teardown),
      cmocka_unit_test_setup_teardown(test_output_insufficient_size, setup, teardown),
      cmocka_unit_test_setup_teardown(test_execute_arguments, setup, teardown),
      cmocka_unit_test_setup_teardown(test_mmap_fd_pool, setup, teardown),
      cmocka_unit_test_setup_teardown(test_mmap_fd_size_wraps, setup, teardown),
      cmocka_unit_test_setup_teardown(test_prepare_arguments, setup, teardown),
      cmocka_unit_test_setup_teardown(test_model_not_kept, setup, teardown),
      cmocka_unit_test_setup_teardown(test_supported_operations, setup, teardown),
      cmocka_unit_test_setup_teardown(test_runtime_activation_supported, setup, teardown),
      cmocka_unit_test_setup_teardown(test_quant8_broadcast, setup, teardown),
  };
  return cmocka_run_group_tests_name("execution", tests, NULL, NULL);
}
