/* An ADD whose one input a float convolution alone writes becomes part of
 * that convolution (src/compiler/fusion.c, vknn_fuse_residual_adds): the
 * convolution's kernel adds the other input, the residual, to its result
 * and writes the ADD's output, one dispatch instead of two. The reference
 * is the same model with the convolution's result also a model output,
 * which keeps the ADD a dispatch of its own: float32 gives the same bits,
 * float16 the same values within the rounding of the intermediate the
 * fused kernel no longer stores. Where the fusion must not happen (the
 * residual written after the convolution, broadcast, a second reader of
 * the convolution's result) the ADD stays, with the same results. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "support/model_builder.h"
#include "support/model_runner.h"
#include "vknn/vknn.h"

#define F32 VKNN_OPERAND_TENSOR_FLOAT32
#define F16 VKNN_OPERAND_TENSOR_FLOAT16
#define IN_C 8
#define MAX_OUT_C 16
#define PIXELS 20 /* a 4x5 image */

/* Where the ADD's other input comes from. */
typedef enum residual_source {
  RESIDUAL_INPUT,     /* a model input of the output's shape */
  RESIDUAL_LATE,      /* an ADD of that input to itself, placed after the convolution */
  RESIDUAL_LATE_OUTPUT, /* the same ADD writing a model output */
  RESIDUAL_BROADCAST, /* a model input of one value per channel, broadcast */
  RESIDUAL_SHARED,    /* a model input, and the convolution's result read by a second ADD */
} residual_source;

typedef struct residual_case {
  int32_t type;     /* F32 or F16 */
  uint32_t out_c;   /* a multiple of 4 (stored 4 at a time) or not */
  uint32_t k;       /* filter size, SAME padding */
  bool conv_second; /* ADD(residual, convolution) rather than ADD(convolution, residual) */
  int32_t conv_act, add_act;
  residual_source source;
} residual_case;

static const uint32_t image[4] = {1, 4, 5, IN_C};

static uint32_t elem_bytes(int32_t type) { return type == F16 ? 2u : 4u; }

/* value i of a tensor, as type's bytes, exact in float16 */
static void put(int32_t type, void *data, uint32_t i, float v) {
  if (type == F16) ((uint16_t *)data)[i] = runner_half(v);
  else ((float *)data)[i] = v;
}

static float get(int32_t type, const void *data, uint32_t i) {
  return type == F16 ? runner_float(((const uint16_t *)data)[i]) : ((const float *)data)[i];
}

/* The convolution's filter and bias as constants; returns the input count. */
static uint32_t conv_inputs(model_builder *b, const residual_case *c, uint32_t x, uint32_t *inputs) {
  static uint8_t filter[MAX_OUT_C * 3 * 3 * IN_C * 4], bias[MAX_OUT_C * 4];
  uint32_t count = c->out_c * c->k * c->k * IN_C;
  for (uint32_t i = 0; i < count; ++i) put(c->type, filter, i, (float)(i * 7 % 23) / 16.f - 0.75f);
  for (uint32_t i = 0; i < c->out_c; ++i) put(c->type, bias, i, (float)(i % 5) / 4.f - 0.5f);
  uint32_t filter_dims[4] = {c->out_c, c->k, c->k, IN_C}, bias_dims[1] = {c->out_c};
  inputs[0] = x;
  inputs[1] = mb_const_tensor(b, c->type, filter_dims, 4, filter, count * elem_bytes(c->type));
  inputs[2] = mb_const_tensor(b, c->type, bias_dims, 1, bias, c->out_c * elem_bytes(c->type));
  inputs[3] = mb_const_i32(b, 1); /* padding scheme SAME */
  inputs[4] = mb_const_i32(b, 1);
  inputs[5] = mb_const_i32(b, 1);
  inputs[6] = mb_const_i32(b, c->conv_act);
  return 7;
}

static void add(model_builder *b, uint32_t a, uint32_t other, int32_t act, uint32_t out) {
  uint32_t inputs[3] = {a, other, mb_const_i32(b, act)};
  mb_operation(b, VKNN_OPERATION_ADD, inputs, 3, &out, 1);
}

/* Inputs x and r; outputs y (the ADD's), then, with show_conv, the
 * convolution's result (which keeps the ADD apart), then a late residual
 * that is a model output, or with a second reader that reader's sum. */
static void build(model_builder *b, const residual_case *c, bool show_conv) {
  mb_init(b);
  uint32_t x = mb_input(b, c->type, image, 4);
  uint32_t result[4] = {1, 4, 5, c->out_c}, r_dims[1] = {c->out_c};
  bool broadcast = c->source == RESIDUAL_BROADCAST;
  uint32_t r_in = broadcast ? mb_input(b, c->type, r_dims, 1) : mb_input(b, c->type, result, 4);
  uint32_t y = mb_output(b, c->type, result, 4);
  uint32_t conv = show_conv ? mb_output(b, c->type, result, 4) : mb_temporary(b, c->type, result, 4);
  uint32_t inputs[7];
  uint32_t n = conv_inputs(b, c, x, inputs);
  mb_operation(b, VKNN_OPERATION_CONV_2D, inputs, n, &conv, 1);
  uint32_t r = r_in;
  if (c->source == RESIDUAL_LATE || c->source == RESIDUAL_LATE_OUTPUT) {
    r = c->source == RESIDUAL_LATE ? mb_temporary(b, c->type, result, 4) : mb_output(b, c->type, result, 4);
    add(b, r_in, r_in, VKNN_FUSED_NONE, r);
  }
  if (c->source == RESIDUAL_SHARED && !show_conv) {
    uint32_t twice = mb_output(b, c->type, result, 4);
    add(b, conv, conv, VKNN_FUSED_NONE, twice);
  }
  add(b, c->conv_second ? r : conv, c->conv_second ? conv : r, c->add_act, y);
}

/* Runs the model: y into out, the plan's dispatch count returned. */
static uint32_t run(runner_fixture *f, const residual_case *c, bool show_conv, uint8_t *out) {
  static uint8_t x[PIXELS * IN_C * 4], r[PIXELS * MAX_OUT_C * 4], second[PIXELS * MAX_OUT_C * 4],
      third[PIXELS * MAX_OUT_C * 4];
  uint32_t elem = elem_bytes(c->type), outputs_count = PIXELS * c->out_c;
  uint32_t r_count = c->source == RESIDUAL_BROADCAST ? c->out_c : outputs_count;
  for (uint32_t i = 0; i < PIXELS * IN_C; ++i) put(c->type, x, i, (float)(i % 17) / 4.f - 2.f);
  for (uint32_t i = 0; i < r_count; ++i) put(c->type, r, i, (float)(i * 5 % 29) / 8.f - 1.75f);
  model_builder *b = malloc(sizeof(*b));
  assert_non_null(b);
  build(b, c, show_conv);
  vknn_prepared_model *pm = model_runner_prepare(f->device, &f->log, b);
  buffer_arg inputs[2] = {{x, NULL, PIXELS * IN_C * elem}, {r, NULL, r_count * elem}};
  buffer_arg outputs[3] = {{NULL, out, outputs_count * elem}, {NULL, second, outputs_count * elem},
                           {NULL, third, outputs_count * elem}};
  assert_int_equal(model_runner_execute(pm, b, inputs, outputs, NULL), VKNN_STATUS_NONE);
  vknn_prepared_model_info info;
  assert_int_equal(vknn_prepared_model_get_info(pm, &info), VKNN_STATUS_NONE);
  vknn_prepared_model_release(pm);
  free(b);
  return info.dispatch_count;
}

/* The case's dispatches (want) and its y against the reference's. */
static void check(runner_fixture *f, const residual_case *c, uint32_t want, uint32_t want_reference) {
  static uint8_t fused[PIXELS * MAX_OUT_C * 4], reference[PIXELS * MAX_OUT_C * 4];
  uint32_t bytes = PIXELS * c->out_c * elem_bytes(c->type);
  memset(fused, 0xcd, sizeof(fused));
  assert_int_equal(run(f, c, false, fused), want);
  assert_int_equal(run(f, c, true, reference), want_reference);
  if (c->type == F32) {
    assert_memory_equal(fused, reference, bytes);
    return;
  }
  /* The unfused convolution rounds its result to float16 before the ADD. */
  for (uint32_t i = 0; i < PIXELS * c->out_c; ++i)
    assert_true(fabsf(get(c->type, fused, i) - get(c->type, reference, i)) <= 1.f / 64.f);
}

static void test_pointwise_fused(void **state) {
  static const residual_case c = {F32, 16, 1, false, VKNN_FUSED_NONE, VKNN_FUSED_NONE, RESIDUAL_INPUT};
  /* 6 channels: the kernel stores one at a time. */
  static const residual_case six = {F32, 6, 1, false, VKNN_FUSED_NONE, VKNN_FUSED_NONE, RESIDUAL_INPUT};
  check(*state, &c, 1, 2);
  check(*state, &six, 1, 2);
}

/* The residual as the ADD's first input; both activations apply, the
 * convolution's before the sum, the ADD's after it. */
static void test_window_fused_with_activations(void **state) {
  static const residual_case relu6 = {F32, 16, 3, true, VKNN_FUSED_RELU6, VKNN_FUSED_RELU, RESIDUAL_INPUT};
  static const residual_case relu1 = {F32, 6, 3, false, VKNN_FUSED_NONE, VKNN_FUSED_RELU1, RESIDUAL_INPUT};
  check(*state, &relu6, 1, 2);
  check(*state, &relu1, 1, 2);
}

static void test_float16_fused(void **state) {
  static const residual_case c = {F16, 16, 1, false, VKNN_FUSED_RELU, VKNN_FUSED_NONE, RESIDUAL_INPUT};
  check(*state, &c, 1, 2);
}

/* A residual an operation after the convolution writes: the convolution
 * would read it before it exists, so the ADD stays (three dispatches). */
static void test_late_residual_kept(void **state) {
  static const residual_case c = {F32, 16, 1, false, VKNN_FUSED_NONE, VKNN_FUSED_NONE, RESIDUAL_LATE};
  check(*state, &c, 3, 3);
}

/* The same with the late residual a model output. */
static void test_late_output_residual_kept(void **state) {
  static const residual_case c = {F32, 16, 1, false, VKNN_FUSED_NONE, VKNN_FUSED_NONE, RESIDUAL_LATE_OUTPUT};
  check(*state, &c, 3, 3);
}

static void test_broadcast_kept(void **state) {
  static const residual_case c = {F32, 16, 1, false, VKNN_FUSED_NONE, VKNN_FUSED_NONE, RESIDUAL_BROADCAST};
  check(*state, &c, 2, 2);
}

/* The convolution's result read by a second ADD too: both ADDs stay. */
static void test_second_reader_kept(void **state) {
  static const residual_case c = {F32, 16, 1, false, VKNN_FUSED_NONE, VKNN_FUSED_NONE, RESIDUAL_SHARED};
  check(*state, &c, 3, 2);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_pointwise_fused),
      cmocka_unit_test(test_window_fused_with_activations),
      cmocka_unit_test(test_float16_fused),
      cmocka_unit_test(test_late_residual_kept),
      cmocka_unit_test(test_late_output_residual_kept),
      cmocka_unit_test(test_broadcast_kept),
      cmocka_unit_test(test_second_reader_kept),
  };
  return cmocka_run_group_tests(tests, runner_fixture_setup, runner_fixture_teardown);
}
