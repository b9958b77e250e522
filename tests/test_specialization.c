/* Models whose shapes depend on the execution: compiled and recorded per
 * distinct input shapes (and shape-deciding input values), then reused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "support/add_fixture.h"
#include "support/model_builder.h"
#include "support/model_runner.h"
#include "vknn/vknn.h"

typedef add_fixture fixture;

/* ADD with inputs [0, 3] (batch unknown) and an output of unknown shape. */
static int setup(void **state) { return add_fixture_setup(state, add_fixture_batch_unknown); }
static int teardown(void **state) { return add_fixture_teardown(state); }

static vknn_status execute(fixture *f) {
  return vknn_prepared_model_execute(f->pm, &f->r.request, VKNN_MEASURE_TIMING_NO, NULL, NULL,
                                     f->shapes, 1, NULL);
}

static uint64_t recorded(const fixture *f) {
  vknn_device_statistics stats;
  assert_int_equal(vknn_device_get_statistics(f->device, &stats), VKNN_STATUS_NONE);
  return stats.command_buffers_recorded;
}

static void test_records_once_per_shape(void **state) {
  fixture *f = *state;
  vknn_prepared_model_info info;
  assert_int_equal(vknn_prepared_model_get_info(f->pm, &info), VKNN_STATUS_NONE);
  assert_int_equal(info.dispatch_count, 0); /* nothing recorded at prepare */
  add_fixture_set_batch(f, 2);
  uint64_t before = recorded(f);
  assert_int_equal(execute(f), VKNN_STATUS_NONE);
  assert_true(recorded(f) > before);
  assert_int_equal(f->shapes[0].rank, 2);
  assert_int_equal(f->shapes[0].dimensions[0], 2);
  assert_int_equal(f->shapes[0].dimensions[1], 3);
  const float *out = (const float *)(f->r.pool.data + 48);
  for (int i = 0; i < 6; ++i) assert_float_equal(out[i], 11.f * (float)i, 0.f);
  uint64_t after_first = recorded(f);
  assert_int_equal(execute(f), VKNN_STATUS_NONE);
  assert_int_equal(recorded(f), after_first); /* same shapes: reused */
  add_fixture_set_batch(f, 1);
  f->r.inputs[1].location.offset = 12; /* in1 = 3, 4, 5 */
  memset(f->r.pool.data + 48, 0, 24);
  assert_int_equal(execute(f), VKNN_STATUS_NONE);
  assert_true(recorded(f) > after_first);
  assert_int_equal(f->shapes[0].dimensions[0], 1);
  for (int i = 0; i < 3; ++i) assert_float_equal(out[i], (float)(2 * i + 3), 0.f);
  assert_float_equal(out[3], 0.f, 0.f); /* only one row written */
  assert_int_equal(vknn_prepared_model_get_info(f->pm, &info), VKNN_STATUS_NONE);
  assert_int_equal(info.dispatch_count, 1);
}

static void test_output_too_small_reports_shape(void **state) {
  fixture *f = *state;
  add_fixture_set_batch(f, 2);
  f->r.outputs[0].location.length = 12;
  assert_int_equal(execute(f), VKNN_STATUS_OUTPUT_INSUFFICIENT_SIZE);
  assert_false(f->shapes[0].is_sufficient);
  assert_int_equal(f->shapes[0].dimensions[0], 2);
  assert_int_equal(f->shapes[0].dimensions[1], 3);
}

static void test_unknown_input_shape_fails(void **state) {
  fixture *f = *state;
  assert_int_equal(execute(f), VKNN_STATUS_INVALID_ARGUMENT); /* no dimensions given */
  assert_non_null(strstr(f->log.last, "dimension 0 unknown"));
}

/* The request's dimensions must agree with the model's declaration. */
static void test_conflicting_dimensions(void **state) {
  fixture *f = *state;
  add_fixture_set_batch(f, 2);
  f->request_dims[0][1] = 4;
  assert_int_equal(execute(f), VKNN_STATUS_INVALID_ARGUMENT);
}

/* The prepared model keeps its own copy of a model it compiles later. */
static void test_model_not_kept(void **state) {
  fixture *f = *state;
  test_model *copy = malloc(sizeof(*copy));
  *copy = f->model;
  copy->model.main.operands = copy->operands;
  for (int i = 0; i < 4; ++i) copy->operands[i].dimensions = copy->dims[i];
  copy->model.main.operations = &copy->operation;
  copy->operation.inputs = copy->op_inputs;
  copy->operation.outputs = copy->op_outputs;
  copy->model.main.input_indexes = copy->inputs;
  copy->model.main.output_indexes = copy->outputs;
  copy->activation = VKNN_FUSED_RELU6;
  copy->model.operand_values = (const uint8_t *)&copy->activation;
  vknn_prepared_model *pm = NULL;
  assert_int_equal(vknn_device_prepare_model(f->device, &copy->model, VKNN_PREFER_LOW_POWER,
                                             VKNN_PRIORITY_HIGH, NULL, &pm),
                   VKNN_STATUS_NONE);
  memset(copy, 0xff, sizeof(*copy));
  free(copy);
  add_fixture_set_batch(f, 2);
  assert_int_equal(vknn_prepared_model_execute(pm, &f->r.request, 0, NULL, NULL, NULL, 0, NULL),
                   VKNN_STATUS_NONE);
  assert_float_equal(((const float *)(f->r.pool.data + 48))[5], 6.f, 0.f); /* relu6(55) */
  vknn_prepared_model_release(pm);
}

/* A required input the request omits (a model compiled per execution) is
 * the request's error: INVALID_ARGUMENT, naming the input. ADD [2] + [2]
 * whose activation (input 1 of the model) or second tensor (of unknown
 * shape) is a model input. */
static void check_omitted(fixture *f, bool activation_omitted) {
  model_builder *b = calloc(1, sizeof(*b));
  assert_non_null(b);
  mb_init(b);
  const uint32_t two[1] = {2};
  uint32_t inputs[3] = {mb_input(b, VKNN_OPERAND_TENSOR_FLOAT32, two, 1), 0, 0};
  if (activation_omitted) {
    inputs[1] = mb_const_zeros(b, VKNN_OPERAND_TENSOR_FLOAT32, two, 1);
    inputs[2] = mb_input(b, VKNN_OPERAND_INT32, NULL, 0);
  } else {
    inputs[1] = mb_input(b, VKNN_OPERAND_TENSOR_FLOAT32, NULL, 0);
    inputs[2] = mb_const_i32(b, VKNN_FUSED_NONE);
  }
  uint32_t out = mb_output(b, VKNN_OPERAND_TENSOR_FLOAT32, two, 1);
  mb_operation(b, VKNN_OPERATION_ADD, inputs, 3, &out, 1);
  vknn_prepared_model *pm = model_runner_prepare(f->device, &f->log, b);
  const float x[2] = {1, 2};
  float y[2];
  buffer_arg given[2] = {{x, NULL, sizeof(x)}, {NULL, NULL, 0}};
  buffer_arg outputs[1] = {{NULL, y, sizeof(y)}};
  assert_int_equal(model_runner_execute(pm, b, given, outputs, NULL), VKNN_STATUS_INVALID_ARGUMENT);
  if (strstr(f->log.last, "omitted") == NULL) fail_msg("log \"%s\" does not say omitted", f->log.last);
  vknn_prepared_model_release(pm);
  free(b);
}

/* LSH_PROJECTION (sparse) whose optional weight is a model input, so that
 * the model is compiled per execution with the inputs' presence known: the
 * weight may be omitted (sparse: it must be); the lookup values, required,
 * may not (an omitted one reached the recording, which bound another
 * tensor's memory for it). */
static void check_omitted_lookup_values(fixture *f) {
  model_builder *b = calloc(1, sizeof(*b));
  assert_non_null(b);
  mb_init(b);
  static const float hash[8] = {0.123f, 0.456f, -0.321f, -0.654f, 1.234f, 5.678f, -4.321f, -8.765f};
  const uint32_t hash_dims[2] = {4, 2}, value_dims[2] = {3, 2}, weight_dims[1] = {3}, out_dims[1] = {4};
  uint32_t inputs[4] = {mb_const_tensor(b, VKNN_OPERAND_TENSOR_FLOAT32, hash_dims, 2, hash, sizeof(hash)),
                        mb_input(b, VKNN_OPERAND_TENSOR_INT32, value_dims, 2),
                        mb_input(b, VKNN_OPERAND_TENSOR_FLOAT32, weight_dims, 1), mb_const_i32(b, 1)};
  uint32_t out = mb_output(b, VKNN_OPERAND_TENSOR_INT32, out_dims, 1);
  mb_operation(b, VKNN_OPERATION_LSH_PROJECTION, inputs, 4, &out, 1);
  vknn_prepared_model *pm = model_runner_prepare(f->device, &f->log, b);
  static const int32_t values[6] = {12345, 54321, 67890, 9876, -12345678, -87654321};
  int32_t y[4];
  buffer_arg outputs[1] = {{NULL, y, sizeof(y)}};
  buffer_arg no_weight[2] = {{values, NULL, sizeof(values)}, {NULL, NULL, 0}};
  assert_int_equal(model_runner_execute(pm, b, no_weight, outputs, NULL), VKNN_STATUS_NONE);
  buffer_arg none[2] = {{NULL, NULL, 0}, {NULL, NULL, 0}};
  assert_int_equal(model_runner_execute(pm, b, none, outputs, NULL), VKNN_STATUS_INVALID_ARGUMENT);
  if (strstr(f->log.last, "input 1 is omitted") == NULL) fail_msg("log \"%s\" does not name input 1", f->log.last);
  vknn_prepared_model_release(pm);
  free(b);
}

static void test_required_input_omitted(void **state) {
  check_omitted(*state, true);
  check_omitted(*state, false);
  check_omitted_lookup_values(*state);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_required_input_omitted, setup, teardown),
      cmocka_unit_test_setup_teardown(test_records_once_per_shape, setup, teardown),
      cmocka_unit_test_setup_teardown(test_output_too_small_reports_shape, setup, teardown),
      cmocka_unit_test_setup_teardown(test_unknown_input_shape_fails, setup, teardown),
      cmocka_unit_test_setup_teardown(test_conflicting_dimensions, setup, teardown),
      cmocka_unit_test_setup_teardown(test_model_not_kept, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
