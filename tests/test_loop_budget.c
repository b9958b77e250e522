/* lavapipe's loop limiter (docs/architecture.md, "Loop budget on lavapipe"):
 * kernels whose invocations would loop past the device's budget of 60000
 * iterations are refused at the support query with a log line, one size
 * over the bound, and run one size under it; elsewhere both run
 * (model_runner_expect_support). RANDOM_MULTINOMIAL's case is in
 * test_recurrent.c. */
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
#define Q8 VKNN_OPERAND_TENSOR_QUANT8_ASYMM

/* AVERAGE_POOL_2D of one side x side window over a side x side image
 * (padding VALID): side rows plus side x side columns of loop iterations. */
static const vknn_model *average_pool(model_builder *b, uint32_t side) {
  mb_init(b);
  const uint32_t dims[4] = {1, side, side, 1}, out_dims[4] = {1, 1, 1, 1};
  const uint32_t in[7] = {mb_input(b, F32, dims, 4),    mb_const_i32(b, 2),    mb_const_i32(b, 1),
                          mb_const_i32(b, 1),          mb_const_i32(b, (int32_t)side),
                          mb_const_i32(b, (int32_t)side), mb_const_i32(b, VKNN_FUSED_NONE)};
  const uint32_t out = mb_output(b, F32, out_dims, 4);
  mb_operation(b, VKNN_OPERATION_AVERAGE_POOL_2D, in, 7, &out, 1);
  return mb_finish(b);
}

/* build(size) runs at size `largest` and is refused, logging refused_log,
 * at one more. */
static void expect_bound(runner_fixture *f, const vknn_model *(*build)(model_builder *, uint32_t),
                         uint32_t largest, const char *refused_log) {
  model_builder *b = calloc(1, sizeof(*b));
  assert_non_null(b);
  model_runner_expect_support(f, build(b, largest), "the largest size", NULL);
  model_runner_expect_support(f, build(b, largest + 1), "one past it", refused_log);
  free(b);
}

/* 244 x 244: 59780 iterations; 245 x 245: 60270. */
static void test_pool_window(void **state) {
  expect_bound(*state, average_pool, 244,
               "AVERAGE_POOL_2D: the window's rows and columns take 60270 loop iterations");
}

/* A quantized FULLY_CONNECTED of one row of k inputs to one output: the
 * direct convolution kernel, 2 + k loop iterations. */
static const vknn_model *quant_fully_connected(model_builder *b, uint32_t k) {
  mb_init(b);
  const uint32_t in_dims[2] = {1, k}, w_dims[2] = {1, k}, one = 1, out_dims[2] = {1, 1};
  /* The weights an input: k of them outgrow the builder's constant space. */
  uint32_t in = mb_input(b, Q8, in_dims, 2), w = mb_input(b, Q8, w_dims, 2);
  uint32_t bias = mb_const_zeros(b, VKNN_OPERAND_TENSOR_INT32, &one, 1);
  mb_set_quant(b, in, 0.5f, 0);
  mb_set_quant(b, w, 0.5f, 0);
  mb_set_quant(b, bias, 0.25f, 0);
  const uint32_t inputs[4] = {in, w, bias, mb_const_i32(b, VKNN_FUSED_NONE)};
  const uint32_t out = mb_output(b, Q8, out_dims, 2);
  mb_set_quant(b, out, 1.f, 0);
  mb_operation(b, VKNN_OPERATION_FULLY_CONNECTED, inputs, 4, &out, 1);
  return mb_finish(b);
}

/* 59998 inputs: 60000 iterations; 59999: 60001. */
static void test_direct_convolution_row(void **state) {
  expect_bound(*state, quant_fully_connected, 59998,
               "direct convolution: the filter's rows, columns and input channels take 60001 loop iterations");
}

#define TEST(fn) cmocka_unit_test_setup_teardown(fn, runner_fixture_setup, runner_fixture_teardown)

int main(void) {
  const struct CMUnitTest tests[] = {TEST(test_pool_window), TEST(test_direct_convolution_row)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
