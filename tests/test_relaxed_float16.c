/* Relaxed models kept in float16 (src/compiler/relaxed_float16.c): the
 * copy a relaxed model is compiled as (its float16 operations, the CASTs
 * at the boundaries, the weights converted), and its results against the
 * same model in float32. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "compiler/relaxed_float16.h"
#include "graph/runtime_check.h"
#include "support/model_builder.h"
#include "support/model_runner.h"
#include "util/float16.h"
#include "vknn/vknn.h"

#define F32 VKNN_OPERAND_TENSOR_FLOAT32
#define F16 VKNN_OPERAND_TENSOR_FLOAT16
#define IN_C 8
#define OUT_C 8
#define PIXELS 20 /* a 4x5 image */

static const uint32_t kImage[4] = {1, 4, 5, IN_C}, kResult[4] = {1, 4, 5, OUT_C};
static float filter[OUT_C * 3 * 3 * IN_C], bias[OUT_C];

/* input -> CONV_2D (3x3, SAME, RELU) -> [SOFTMAX ->] output; returns the
 * filter's operand. */
static uint32_t build(model_builder *b, bool relaxed, bool softmax) {
  for (uint32_t i = 0; i < OUT_C * 9 * IN_C; ++i) filter[i] = (float)(i * 7 % 23) / 16.f - 0.7f;
  for (uint32_t i = 0; i < OUT_C; ++i) bias[i] = (float)(i % 5) / 4.f - 0.5f;
  mb_init(b);
  b->relaxed = relaxed;
  const uint32_t filter_dims[4] = {OUT_C, 3, 3, IN_C}, bias_dims[1] = {OUT_C};
  uint32_t x = mb_input(b, F32, kImage, 4);
  uint32_t w = mb_const_tensor(b, F32, filter_dims, 4, filter, sizeof(filter));
  uint32_t in[7] = {x, w, mb_const_tensor(b, F32, bias_dims, 1, bias, sizeof(bias)), mb_const_i32(b, 1),
                    mb_const_i32(b, 1), mb_const_i32(b, 1), mb_const_i32(b, VKNN_FUSED_RELU)};
  uint32_t conv = softmax ? mb_temporary(b, F32, kResult, 4) : mb_output(b, F32, kResult, 4);
  mb_operation(b, VKNN_OPERATION_CONV_2D, in, 7, &conv, 1);
  if (softmax) {
    float beta = 1.f;
    uint32_t s_in[2] = {conv, mb_const_tensor(b, VKNN_OPERAND_FLOAT32, NULL, 0, &beta, sizeof(beta))};
    uint32_t out = mb_output(b, F32, kResult, 4);
    mb_operation(b, VKNN_OPERATION_SOFTMAX, s_in, 2, &out, 1);
  }
  return w;
}

static void quiet(void *user_data, vknn_log_level level, const char *tag, const char *message) {
  (void)user_data, (void)level, (void)tag, (void)message;
}

static const vknn_operand *operand(const vknn_model *m, uint32_t i) { return &m->main.operands[i]; }

static void check_cast(const vknn_model *m, uint32_t k, int32_t from, int32_t to) {
  const vknn_operation *op = &m->main.operations[k];
  assert_int_equal(op->type, VKNN_OPERATION_CAST);
  assert_int_equal(operand(m, op->inputs[0])->type, from);
  assert_int_equal(operand(m, op->outputs[0])->type, to);
}

static model_builder builder;

/* The float16 copy of the relaxed model build() makes, its first operation
 * the CAST of the model's input; returns the model. */
static const vknn_model *make_copy(bool softmax, vknn_model_copy *copy, uint32_t *filter_operand) {
  *filter_operand = build(&builder, true, softmax);
  const vknn_model *model = mb_finish(&builder);
  assert_true(vknn_relaxed_float16_applies(model));
  vknn_logger log;
  vknn_logger_init(&log, quiet, NULL);
  assert_int_equal(vknn_relaxed_float16_make(&log, model, copy), VKNN_STATUS_NONE);
  assert_false(copy->model.relax_computation_float32_to_float16);
  check_cast(&copy->model, 0, F32, F16);
  assert_int_equal(copy->model.main.operations[0].inputs[0], model->main.input_indexes[0]);
  return model;
}

/* The convolution runs in float16 between CASTs: its input converted, its
 * weights converted to the bit, its result converted back for SOFTMAX
 * (which stays float32, its beta too). */
static void test_copy_of_conv_then_softmax(void **state) {
  (void)state;
  vknn_model_copy copy;
  uint32_t w;
  const vknn_model *model = make_copy(true, &copy, &w);
  const vknn_model *m = &copy.model;
  assert_int_equal(m->main.operation_count, 4);
  const vknn_operation *conv = &m->main.operations[1];
  assert_int_equal(conv->type, VKNN_OPERATION_CONV_2D);
  assert_int_equal(conv->inputs[0], m->main.operations[0].outputs[0]);
  const vknn_operand *w16 = operand(m, conv->inputs[1]);
  assert_int_equal(w16->type, F16);
  assert_int_equal(operand(m, conv->inputs[2])->type, F16);
  assert_int_equal(operand(m, conv->outputs[0])->type, F16);
  assert_int_not_equal(conv->inputs[1], w);
  const uint16_t *half = (const uint16_t *)(m->operand_values + w16->location.offset);
  for (uint32_t i = 0; i < OUT_C * 9 * IN_C; ++i) assert_int_equal(half[i], vknn_float16_bits(filter[i]));
  check_cast(m, 2, F16, F32);
  const vknn_operation *softmax = &m->main.operations[3];
  assert_int_equal(softmax->inputs[0], m->main.operations[2].outputs[0]);
  assert_int_equal(operand(m, softmax->inputs[1])->type, VKNN_OPERAND_FLOAT32);
  assert_int_equal(softmax->outputs[0], model->main.output_indexes[0]);
  vknn_model_copy_free(&copy);
}

/* A convolution writing a model output writes a float16 temporary that a
 * CAST converts into the output, which keeps its float32 type. */
static void test_copy_of_conv_writing_output(void **state) {
  (void)state;
  vknn_model_copy copy;
  uint32_t w;
  const vknn_model *model = make_copy(false, &copy, &w);
  const vknn_model *m = &copy.model;
  assert_int_equal(m->main.operation_count, 3);
  check_cast(m, 2, F16, F32);
  assert_int_equal(m->main.operations[2].inputs[0], m->main.operations[1].outputs[0]);
  assert_int_equal(m->main.operations[2].outputs[0], model->main.output_indexes[0]);
  assert_int_equal(operand(m, model->main.output_indexes[0])->type, F32);
  vknn_model_copy_free(&copy);
}

/* Not relaxed, or nothing of the float16 list in it: the model compiles as it is. */
static void test_applies_only_where_it_can(void **state) {
  (void)state;
  model_builder *b = calloc(1, sizeof(*b));
  assert_non_null(b);
  build(b, false, true);
  assert_false(vknn_relaxed_float16_applies(mb_finish(b)));
  mb_init(b);
  b->relaxed = true;
  float beta = 1.f;
  uint32_t in[2] = {mb_input(b, F32, kResult, 4), mb_const_tensor(b, VKNN_OPERAND_FLOAT32, NULL, 0, &beta, 4)};
  uint32_t out = mb_output(b, F32, kResult, 4);
  mb_operation(b, VKNN_OPERATION_SOFTMAX, in, 2, &out, 1);
  assert_false(vknn_relaxed_float16_applies(mb_finish(b)));
  free(b);
}

/* The model's output for the input x, relaxed or not, on the device. */
static void run(runner_fixture *f, bool relaxed, const float *x, float *out) {
  model_builder *b = calloc(1, sizeof(*b));
  assert_non_null(b);
  build(b, relaxed, true);
  const buffer_arg in[1] = {{x, NULL, PIXELS * IN_C * sizeof(float)}};
  buffer_arg outs[1] = {{NULL, out, PIXELS * OUT_C * sizeof(float)}};
  model_runner_run(f->device, &f->log, b, in, outs, NULL);
  free(b);
}

static void input(float *x) {
  for (uint32_t i = 0; i < PIXELS * IN_C; ++i) x[i] = (float)(i * 13 % 29) / 8.f - 1.5f;
}

/* With the device option on, the relaxed model's results against the
 * float32 model's: within what float16 inputs and weights allow (relative
 * 2^-11 of each term of a sum of 72, RELU, then SOFTMAX), and not the same
 * bits (the float16 path ran). */
static void test_results_match_float32(void **state) {
  runner_fixture *f = *state;
  float x[PIXELS * IN_C], want[PIXELS * OUT_C], got[PIXELS * OUT_C];
  input(x);
  run(f, false, x, want);
  run(f, true, x, got);
  for (uint32_t i = 0; i < PIXELS * OUT_C; ++i)
    if (fabsf(got[i] - want[i]) > 5e-3f + 5e-3f * fabsf(want[i]))
      fail_msg("element %u: relaxed %g, float32 %g", i, got[i], want[i]);
  assert_true(memcmp(got, want, sizeof(got)) != 0);
}

/* With the option off, a relaxed model computes in float32: the same bits. */
static void test_option_off_keeps_float32(void **state) {
  runner_fixture *f = *state;
  float x[PIXELS * IN_C], want[PIXELS * OUT_C], got[PIXELS * OUT_C];
  input(x);
  run(f, false, x, want);
  run(f, true, x, got);
  assert_memory_equal(got, want, sizeof(got));
}

/* A run-time check names the operation by its index in the model, not in
 * the float16 copy (which adds CASTs before it): CONV_2D (the copy's
 * operation 1, after its input's CAST) -> GATHER (the copy's 3, after the
 * CAST back to float32; the model's 1) with an index out of range. */
static void test_check_names_the_model_operation(void **state) {
  runner_fixture *f = *state;
  model_builder *b = calloc(1, sizeof(*b));
  assert_non_null(b);
  build(b, true, false);
  /* The convolution's output becomes a temporary that GATHER reads. */
  uint32_t conv_out = b->outputs[0];
  b->operands[conv_out].lifetime = VKNN_LIFETIME_TEMPORARY_VARIABLE;
  b->output_count = 0;
  const uint32_t index_dims[1] = {2}, gathered[4] = {1, 4, 5, 2};
  uint32_t in[3] = {conv_out, mb_const_i32(b, 3), mb_input(b, VKNN_OPERAND_TENSOR_INT32, index_dims, 1)};
  uint32_t out = mb_output(b, F32, gathered, 4);
  mb_operation(b, VKNN_OPERATION_GATHER, in, 3, &out, 1);
  float x[PIXELS * IN_C], y[PIXELS * 2];
  input(x);
  const int32_t indexes[2] = {0, 9}; /* 9: past the 8 channels */
  const buffer_arg inputs[2] = {{x, NULL, sizeof(x)}, {indexes, NULL, sizeof(indexes)}};
  buffer_arg outputs[1] = {{NULL, y, sizeof(y)}};
  f->log.last[0] = '\0';
  assert_int_equal(model_runner_try(f->device, &f->log, b, inputs, outputs, NULL), VKNN_STATUS_INVALID_ARGUMENT);
  if (strstr(f->log.last, "operation 1 (GATHER)") == NULL ||
      !test_log_names_rule(&f->log, "GATHER", VKNN_RUNTIME_RULE_INDEX_OUT_OF_RANGE))
    fail_msg("logged \"%s\"", f->log.last);
  free(b);
}

/* A runner fixture whose device has the relaxed_float16 option `choice`
 * and the float16_arithmetic option `arithmetic`. */
static int open_with(void **state, vknn_relaxed_float16 choice, vknn_float16_arithmetic arithmetic) {
  runner_fixture *f = calloc(1, sizeof(*f));
  if (f == NULL) return -1;
  *state = f;
  vknn_device_options options = {.log_callback = test_log_callback,
                                 .log_user_data = &f->log,
                                 .enable_validation = true,
                                 .relaxed_float16 = choice,
                                 .float16_arithmetic = arithmetic};
  return vknn_device_open(&options, &f->device) == VKNN_STATUS_NONE ? 0 : -1;
}

static int open_on(void **state) {
  return open_with(state, VKNN_RELAXED_FLOAT16_ON, VKNN_FLOAT16_ARITHMETIC_OFF);
}
static int open_off(void **state) {
  return open_with(state, VKNN_RELAXED_FLOAT16_OFF, VKNN_FLOAT16_ARITHMETIC_OFF);
}
/* The float16 copy computing in float16 where the device can. */
static int open_on_arithmetic(void **state) {
  return open_with(state, VKNN_RELAXED_FLOAT16_ON, VKNN_FLOAT16_ARITHMETIC_ON);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_copy_of_conv_then_softmax),
      cmocka_unit_test(test_copy_of_conv_writing_output),
      cmocka_unit_test(test_applies_only_where_it_can),
      cmocka_unit_test_setup_teardown(test_results_match_float32, open_on, runner_fixture_teardown),
      cmocka_unit_test_setup_teardown(test_results_match_float32, open_on_arithmetic, runner_fixture_teardown),
      cmocka_unit_test_setup_teardown(test_check_names_the_model_operation, open_on, runner_fixture_teardown),
      cmocka_unit_test_setup_teardown(test_option_off_keeps_float32, open_off, runner_fixture_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
