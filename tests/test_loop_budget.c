/* lavapipe's loop limiter (docs/architecture.md, "Loop budget on lavapipe"):
 * kernels whose invocations would loop past the device's budget of 60000
 * iterations are refused at the support query with a log line, one size
 * over the bound, and run one size under it; elsewhere both run
 * (model_runner_expect_support); the largest float matrix product also
 * runs against its exact result. RANDOM_MULTINOMIAL's case is in
 * test_recurrent.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "support/model_builder.h"
#include "runtime/device_internal.h"
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

/* A float FULLY_CONNECTED of two rows of 4 x quarters inputs to one output:
 * the tiled matrix product (conv2d_gemm), 2 + quarters loop iterations
 * (one window row, one tap, a step per four inputs). */
static const vknn_model *float_fully_connected(model_builder *b, uint32_t quarters) {
  mb_init(b);
  const uint32_t in_dims[2] = {2, 4 * quarters}, w_dims[2] = {1, 4 * quarters}, one = 1;
  const uint32_t out_dims[2] = {2, 1};
  uint32_t in = mb_input(b, F32, in_dims, 2), w = mb_input(b, F32, w_dims, 2);
  const uint32_t inputs[4] = {in, w, mb_const_zeros(b, F32, &one, 1), mb_const_i32(b, VKNN_FUSED_NONE)};
  const uint32_t out = mb_output(b, F32, out_dims, 2);
  mb_operation(b, VKNN_OPERATION_FULLY_CONNECTED, inputs, 4, &out, 1);
  return mb_finish(b);
}

/* 59998 steps: 60000 iterations; 59999: 60001. */
static void test_matrix_product_row(void **state) {
  expect_bound(*state, float_fully_connected, 59998,
               "conv2d_gemm: the filter's rows, columns and input channels take 60001 loop iterations");
}

/* The largest reduction the bound allows runs to the end: with inputs 1 and
 * weights 0.5 each output is 0.5 x 239992 = 119996, exact in float32 (every
 * partial sum is a multiple of 0.5 below 2^23). A loop the limiter cut short,
 * or register-block loops left rolled (each step would then count about 45
 * iterations), would give less. */
static void test_matrix_product_largest_runs(void **state) {
  runner_fixture *f = *state;
  const uint32_t quarters = 59998, count = 4 * quarters;
  model_builder *b = calloc(1, sizeof(*b));
  float *x = malloc(2 * count * sizeof(float)), *w = malloc(count * sizeof(float));
  assert_true(b != NULL && x != NULL && w != NULL);
  for (uint32_t i = 0; i < 2 * count; ++i) x[i] = 1.f;
  for (uint32_t i = 0; i < count; ++i) w[i] = 0.5f;
  float_fully_connected(b, quarters);
  float y[2] = {0, 0};
  const buffer_arg in[2] = {{x, NULL, 2 * count * sizeof(float)}, {w, NULL, count * sizeof(float)}};
  buffer_arg out[1] = {{NULL, y, sizeof(y)}};
  model_runner_run(f->device, &f->log, b, in, out, NULL);
  assert_true(y[0] == 119996.f && y[1] == 119996.f);
  free(x);
  free(w);
  free(b);
}

/* The same bound holds where the kernel moves short sums into longer ones
 * (FLUSH in conv2d_gemm.comp: its loops over the register block must be
 * unrolled too): two rows of 4 x quarters inputs, uint8 (codes 1, scales 1,
 * zero points 0; float32 sums moved into int32 every 64 steps: 239992 is
 * requantized by 1 / 2399.92 to 100) or float16 computed in float16 (1 x
 * 0.0625, moved into float32 every 8 steps: 14999.5, stored as 15000). */
static const vknn_model *typed_fully_connected(model_builder *b, uint32_t quarters, int32_t type) {
  mb_init(b);
  const uint32_t in_dims[2] = {2, 4 * quarters}, w_dims[2] = {1, 4 * quarters}, one = 1;
  const uint32_t out_dims[2] = {2, 1};
  bool quant = type == Q8;
  uint32_t in = mb_input(b, type, in_dims, 2), w = mb_input(b, type, w_dims, 2);
  uint32_t bias = mb_const_zeros(b, quant ? VKNN_OPERAND_TENSOR_INT32 : type, &one, 1);
  const uint32_t inputs[4] = {in, w, bias, mb_const_i32(b, VKNN_FUSED_NONE)};
  const uint32_t out = mb_output(b, type, out_dims, 2);
  if (quant) {
    mb_set_quant(b, in, 1.f, 0);
    mb_set_quant(b, w, 1.f, 0);
    mb_set_quant(b, bias, 1.f, 0);
    mb_set_quant(b, out, 2399.92f, 0);
  }
  mb_operation(b, VKNN_OPERATION_FULLY_CONNECTED, inputs, 4, &out, 1);
  return mb_finish(b);
}

static void run_largest_typed(vknn_device *device, const test_log *log, int32_t type) {
  const uint32_t quarters = 59998, count = 4 * quarters;
  bool quant = type == Q8;
  size_t elem = quant ? 1 : 2;
  model_builder *b = calloc(1, sizeof(*b));
  uint8_t *x = malloc(2 * count * elem), *w = malloc(count * elem);
  assert_true(b != NULL && x != NULL && w != NULL);
  for (uint32_t i = 0; i < 2 * count; ++i) {
    if (quant) x[i] = 1;
    else memcpy(x + 2 * i, &(uint16_t){0x3c00 /* 1 */}, 2);
  }
  for (uint32_t i = 0; i < count; ++i) {
    if (quant) w[i] = 1;
    else memcpy(w + 2 * i, &(uint16_t){0x2c00 /* 0.0625 */}, 2);
  }
  typed_fully_connected(b, quarters, type);
  uint16_t y[2] = {0, 0};
  const buffer_arg in[2] = {{x, NULL, 2 * count * elem}, {w, NULL, count * elem}};
  buffer_arg out[1] = {{NULL, y, 2 * elem}};
  model_runner_run(device, log, b, in, out, NULL);
  if (quant) assert_true(((uint8_t *)y)[0] == 100 && ((uint8_t *)y)[1] == 100);
  else assert_true(y[0] == 0x7353 /* 15000 */ && y[1] == 0x7353);
  free(x);
  free(w);
  free(b);
}

static void test_flushed_sums_largest_runs(void **state) {
  runner_fixture *f = *state;
  run_largest_typed(f->device, &f->log, Q8);
  vknn_device_options options = {.log_callback = test_log_callback, .log_user_data = &f->log,
                                 .enable_validation = true,
                                 .float16_arithmetic = VKNN_FLOAT16_ARITHMETIC_ON};
  vknn_device *half = NULL;
  assert_int_equal(vknn_device_open(&options, &half), VKNN_STATUS_NONE);
  run_largest_typed(half, &f->log, VKNN_OPERAND_TENSOR_FLOAT16);
  assert_int_equal(vknn_device_get_validation_message_count(half), 0);
  vknn_device_close(half);
}

/* DEPTHWISE_CONV_2D of one side x side window over a side x side image of
 * 4 channels (VALID, stride 1: row blocks of 8 outputs, 7 + side columns):
 * side x (1 + side + (7 + side) x (1 + side)) loop iterations. */
static const vknn_model *depthwise(model_builder *b, uint32_t side) {
  mb_init(b);
  const uint32_t dims[4] = {1, side, side, 4}, w_dims[4] = {1, side, side, 4}, four = 4;
  const uint32_t out_dims[4] = {1, 1, 1, 4};
  uint32_t in = mb_input(b, F32, dims, 4), w = mb_input(b, F32, w_dims, 4);
  const uint32_t inputs[8] = {in, w, mb_const_zeros(b, F32, &four, 1), mb_const_i32(b, 2),
                              mb_const_i32(b, 1), mb_const_i32(b, 1), mb_const_i32(b, 1),
                              mb_const_i32(b, VKNN_FUSED_NONE)};
  const uint32_t out = mb_output(b, F32, out_dims, 4);
  mb_operation(b, VKNN_OPERATION_DEPTHWISE_CONV_2D, inputs, 8, &out, 1);
  return mb_finish(b);
}

/* 36 x 36: 58608 iterations, the depthwise kernel; 37 x 37: 63270, which
 * on the direct kernel (a loop over each tap once) is 2775: it runs there
 * on a device with the limiter. */
static void test_depthwise_window(void **state) {
  runner_fixture *f = *state;
  model_builder *b = calloc(1, sizeof(*b));
  assert_non_null(b);
  bool limited = vknn_vk_has_loop_limiter(&f->device->vk);
  for (uint32_t side = 36; side <= 37; ++side) {
    depthwise(b, side);
    vknn_prepared_model *pm = model_runner_prepare(f->device, &f->log, b);
    const char *kernel = vknn_prepared_model_get_dispatch_kernel(pm, 0);
    bool direct = limited && side == 37;
    if (strncmp(kernel, direct ? "conv2d_f32" : "conv2d_depthwise_f32", direct ? 10 : 20) != 0)
      fail_msg("%u x %u window: kernel %s", side, side, kernel);
    vknn_prepared_model_release(pm);
  }
  free(b);
}

/* ROI_ALIGN (sampling ratio `ratio`, 0: adaptive) or ROI_POOLING of one
 * 1x1 bin over a side x side feature map, the boxes a model input: a bin may
 * span the whole map, (side + 2) x (side + 3) loop iterations at most; with
 * a ratio, ratio x (ratio + 1). */
static const vknn_model *roi(model_builder *b, int32_t type, uint32_t side, int32_t ratio) {
  mb_init(b);
  const uint32_t dims[4] = {1, side, side, 1}, box_dims[2] = {1, 4}, one = 1, out_dims[4] = {1, 1, 1, 1};
  const float stride = 1.f;
  const bool nchw = false;
  uint32_t in[10] = {mb_input(b, F32, dims, 4),
                     mb_input(b, F32, box_dims, 2),
                     mb_input(b, VKNN_OPERAND_TENSOR_INT32, &one, 1),
                     mb_const_i32(b, 1),
                     mb_const_i32(b, 1),
                     mb_const_tensor(b, VKNN_OPERAND_FLOAT32, NULL, 0, &stride, sizeof(stride)),
                     mb_const_tensor(b, VKNN_OPERAND_FLOAT32, NULL, 0, &stride, sizeof(stride))};
  bool align = type == VKNN_OPERATION_ROI_ALIGN;
  if (align) {
    in[7] = mb_const_i32(b, ratio);
    in[8] = mb_const_i32(b, ratio);
  }
  in[align ? 9 : 7] = mb_const_tensor(b, VKNN_OPERAND_BOOL, NULL, 0, &nchw, sizeof(nchw));
  const uint32_t out = mb_output(b, F32, out_dims, 4);
  mb_operation(b, type, in, align ? 10 : 8, &out, 1);
  return mb_finish(b);
}

static const vknn_model *roi_align_adaptive(model_builder *b, uint32_t side) {
  return roi(b, VKNN_OPERATION_ROI_ALIGN, side, 0);
}

static const vknn_model *roi_align_ratio(model_builder *b, uint32_t ratio) {
  return roi(b, VKNN_OPERATION_ROI_ALIGN, 8, (int32_t)ratio);
}

static const vknn_model *roi_pooling(model_builder *b, uint32_t side) {
  return roi(b, VKNN_OPERATION_ROI_POOLING, side, 0);
}

/* 242 x 242: 59780 iterations; 243 x 243: 60270. A ratio of 244: 59780; 245: 60270. */
static void test_roi_bins(void **state) {
  const char *refused = "a bin's rows and columns take 60270 loop iterations";
  char log[128];
  snprintf(log, sizeof(log), "ROI_ALIGN: %s", refused);
  expect_bound(*state, roi_align_adaptive, 242, log);
  expect_bound(*state, roi_align_ratio, 244, log);
  snprintf(log, sizeof(log), "ROI_POOLING: %s", refused);
  expect_bound(*state, roi_pooling, 242, log);
}

#define TEST(fn) cmocka_unit_test_setup_teardown(fn, runner_fixture_setup, runner_fixture_teardown)

int main(void) {
  const struct CMUnitTest tests[] = {TEST(test_pool_window), TEST(test_direct_convolution_row),
                                     TEST(test_matrix_product_row), TEST(test_matrix_product_largest_runs),
                                     TEST(test_flushed_sums_largest_runs),
                                     TEST(test_depthwise_window), TEST(test_roi_bins)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
