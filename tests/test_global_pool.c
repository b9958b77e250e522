/* AVERAGE_POOL_2D, MAX_POOL_2D and L2_POOL_2D whose window covers the whole
 * image (a global pooling, lowered in src/ops/pool2d.c as a workgroup
 * reduction on shaders/reduce.comp) against references computed here as
 * the NNAPI reference defines the pools: float32 and float16 (float sums),
 * 8-bit codes (integer sums, the average's halves away from zero), NHWC and
 * NCHW, channels in fours and not, images long enough that their rows are
 * split across workgroups (partials combined in a second pass), several
 * batches, padding that adds no pixel, fused activations (in code space for
 * 8-bit tensors), and a pool whose window does not cover the image, which
 * stays on pool2d.comp. The same cases run on a device left to its rules
 * (the option AUTO, kernel tuning off): pool2d.comp, the same references. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <math.h>

#include "common/cts_values.h"
#include "support/device_pair.h"
#include "support/model_builder.h"
#include "support/model_runner.h"
#include "vknn/vknn.h"

#define F32 VKNN_OPERAND_TENSOR_FLOAT32
#define F16 VKNN_OPERAND_TENSOR_FLOAT16
#define Q8 VKNN_OPERAND_TENSOR_QUANT8_ASYMM
#define Q8S VKNN_OPERAND_TENSOR_QUANT8_ASYMM_SIGNED
#define OP(name) VKNN_OPERATION_##name

enum { AVERAGE, MAX, L2 };

typedef struct pool_case {
  const char *kernel; /* the first dispatch's where global poolings reduce */
  int kind;
  int32_t type;
  bool nchw;
  uint32_t batches, height, width, channels;
  uint32_t window, pad; /* square; explicit padding on every side */
  int32_t activation;
  uint32_t dispatches;
} pool_case;

/* Two devices: global poolings as reductions (the option ON), and the
 * device's rules. */
typedef device_pair fixture;

static void reduce_global_pools(vknn_device_options *options) { options->global_pool_reduction = VKNN_GLOBAL_POOL_REDUCTION_ON; }

static int setup(void **state) { return device_pair_setup(state, reduce_global_pools); }

/* 8-bit tensors: one encoding for input and output, as NNAPI requires. */
static const float kScale = 0.5f;
static int32_t zero_point(int32_t type) { return type == Q8 ? 100 : -10; }

static uint32_t element_size(int32_t type) { return type == F32 ? 4 : type == F16 ? 2 : 1; }

static uint32_t next_random(uint32_t *state) {
  *state = *state * 1664525u + 1013904223u;
  return *state >> 8; /* 24 bits */
}

/* Element i written into bytes; returns the value as stored (codes for
 * 8-bit tensors). */
static double put_value(int32_t type, uint8_t *bytes, size_t i, uint32_t r) {
  switch (type) {
    case F32: {
      float x = (float)(r / 8388608.0 - 1.0);
      memcpy(bytes + 4 * i, &x, 4);
      return x;
    }
    case F16: {
      uint16_t h = cts_float_to_half((float)(r / 8388608.0 - 1.0));
      memcpy(bytes + 2 * i, &h, 2);
      return cts_half_to_float(h);
    }
    case Q8S: bytes[i] = (uint8_t)(int8_t)((int32_t)(r % 256) - 128); return (int8_t)bytes[i];
    default: bytes[i] = (uint8_t)(r % 256); return bytes[i];
  }
}

/* The fused activation's bounds: floats, or codes as the NNAPI reference
 * quantizes them (clamped to the type's range). */
static void activation_bounds(const pool_case *c, double *lo, double *hi) {
  static const double kLo[4] = {-INFINITY, 0.0, -1.0, 0.0}, kHi[4] = {INFINITY, INFINITY, 1.0, 6.0};
  *lo = kLo[c->activation];
  *hi = kHi[c->activation];
  if (c->type != Q8 && c->type != Q8S) return;
  double qmin = c->type == Q8 ? 0 : -128, qmax = c->type == Q8 ? 255 : 127, z = zero_point(c->type);
  *lo = isinf(*lo) ? qmin : fmax(qmin, z + round(*lo / kScale));
  *hi = isinf(*hi) ? qmax : fmin(qmax, z + round(*hi / kScale));
}

/* The pooling of one image's channel over all its pixels. */
static double reference(const pool_case *c, const double *in, uint32_t n, uint32_t ch) {
  uint32_t pixels = c->height * c->width;
  double acc = c->kind == MAX ? -INFINITY : 0.0;
  for (uint32_t p = 0; p < pixels; ++p) {
    size_t i = c->nchw ? ((size_t)n * c->channels + ch) * pixels + p
                       : ((size_t)n * pixels + p) * c->channels + ch;
    acc = c->kind == MAX ? fmax(acc, in[i]) : c->kind == L2 ? acc + in[i] * in[i] : acc + in[i];
  }
  bool quant = c->type == Q8 || c->type == Q8S;
  if (c->kind == AVERAGE && quant) {
    /* Integer division, halves away from zero. */
    int64_t sum = (int64_t)acc, count = pixels;
    acc = (double)(sum >= 0 ? (sum + count / 2) / count : -((count / 2 - sum) / count));
  } else if (c->kind == AVERAGE) {
    acc /= pixels;
  } else if (c->kind == L2) {
    acc = sqrt(acc / pixels);
  }
  double lo, hi;
  activation_bounds(c, &lo, &hi);
  return fmin(fmax(acc, lo), hi);
}

static double read_value(int32_t type, const uint8_t *bytes, size_t i) {
  switch (type) {
    case F32: {
      float x;
      memcpy(&x, bytes + 4 * i, 4);
      return x;
    }
    case F16: {
      uint16_t h;
      memcpy(&h, bytes + 2 * i, 2);
      return cts_half_to_float(h);
    }
    case Q8S: return (int8_t)bytes[i];
    default: return bytes[i];
  }
}

static void build(model_builder *b, const pool_case *c) {
  mb_init(b);
  const uint32_t in_dims[4] = {c->batches, c->nchw ? c->channels : c->height, c->nchw ? c->height : c->width,
                               c->nchw ? c->width : c->channels};
  const uint32_t out_dims[4] = {c->batches, c->nchw ? c->channels : 1, 1, c->nchw ? 1 : c->channels};
  uint32_t in = mb_input(b, c->type, in_dims, 4);
  uint32_t out = mb_output(b, c->type, out_dims, 4);
  if (c->type == Q8 || c->type == Q8S) {
    mb_set_quant(b, in, kScale, zero_point(c->type));
    mb_set_quant(b, out, kScale, zero_point(c->type));
  }
  uint32_t pad = mb_const_i32(b, (int32_t)c->pad), one = mb_const_i32(b, 1),
           window = mb_const_i32(b, (int32_t)c->window);
  const uint8_t nchw = c->nchw;
  uint32_t inputs[11] = {in, pad, pad, pad, pad, one, one, window, window, mb_const_i32(b, c->activation),
                         mb_const_tensor(b, VKNN_OPERAND_BOOL, NULL, 0, &nchw, 1)};
  static const int32_t ops[3] = {OP(AVERAGE_POOL_2D), OP(MAX_POOL_2D), OP(L2_POOL_2D)};
  mb_operation(b, ops[c->kind], inputs, 11, &out, 1);
  mb_finish(b);
}

/* The case on the device; `reducing`: the device takes global poolings as
 * reductions. */
static void run_case(fixture *f, const pool_case *c, bool reducing) {
  model_builder *b = malloc(sizeof(*b));
  assert_non_null(b);
  build(b, c);
  size_t elements = (size_t)c->batches * c->height * c->width * c->channels;
  size_t outputs = (size_t)c->batches * c->channels;
  uint8_t *in = malloc(elements * element_size(c->type));
  uint8_t *out = malloc(outputs * element_size(c->type));
  double *values = malloc(elements * sizeof(double));
  assert_true(in != NULL && out != NULL && values != NULL);
  uint32_t state = c->height * 131u + c->channels;
  for (size_t i = 0; i < elements; ++i) values[i] = put_value(c->type, in, i, next_random(&state));

  vknn_prepared_model *pm = model_runner_prepare(reducing ? f->changed : f->plain, &f->log, b);
  vknn_prepared_model_info info;
  assert_int_equal(vknn_prepared_model_get_info(pm, &info), VKNN_STATUS_NONE);
  static const char *const per_output[] = {"pool2d_f32", "pool2d_f16", "pool2d_q8", "pool2d_q8s"};
  int variant = c->type == F32 ? 0 : c->type == F16 ? 1 : c->type == Q8 ? 2 : 3;
  const char *kernel = reducing ? c->kernel : per_output[variant];
  uint32_t dispatches = reducing ? c->dispatches : 1;
  assert_string_equal(vknn_prepared_model_get_dispatch_kernel(pm, 0), kernel);
  if (info.dispatch_count != dispatches)
    fail_msg("%ux%ux%u: %u dispatches, not %u", c->height, c->width, c->channels, info.dispatch_count,
             dispatches);
  const buffer_arg inputs[1] = {{in, NULL, elements * element_size(c->type)}};
  buffer_arg results[1] = {{NULL, out, outputs * element_size(c->type)}};
  assert_int_equal(model_runner_execute(pm, b, inputs, results, NULL), VKNN_STATUS_NONE);
  vknn_prepared_model_release(pm);

  bool quant = c->type == Q8 || c->type == Q8S;
  double tolerance = quant || c->kind == MAX ? 0.0 : c->type == F16 ? 2e-3 : 1e-5;
  for (uint32_t n = 0; n < c->batches; ++n) {
    for (uint32_t ch = 0; ch < c->channels; ++ch) {
      double want = reference(c, values, n, ch), got = read_value(c->type, out, (size_t)n * c->channels + ch);
      if (fabs(got - want) > tolerance * fmax(1.0, fabs(want)))
        fail_msg("%s: image %u channel %u: %.9g, want %.9g", kernel, n, ch, got, want);
    }
  }
  free(values);
  free(out);
  free(in);
  free(b);
}

static const pool_case kCases[] = {
    /* MobileNet v1's last pool, two images: 4 channels a lane, one pass. */
    {"reduce_f32", AVERAGE, F32, false, 2, 7, 7, 1024, 7, 0, VKNN_FUSED_NONE, 1},
    /* 3136 pixels: rows split across workgroups, then their partials. */
    {"reduce_f16", MAX, F16, false, 1, 56, 56, 12, 56, 0, VKNN_FUSED_RELU6, 2},
    {"reduce_f32", L2, F32, true, 2, 9, 9, 5, 9, 0, VKNN_FUSED_RELU1, 1},
    {"reduce_f32", AVERAGE, F32, true, 1, 64, 64, 3, 64, 0, VKNN_FUSED_RELU, 2},
    {"reduce_q8", AVERAGE, Q8, false, 1, 112, 112, 8, 112, 0, VKNN_FUSED_RELU, 2},
    {"reduce_q8s", AVERAGE, Q8S, false, 3, 5, 5, 3, 5, 0, VKNN_FUSED_RELU1, 1},
    {"reduce_q8", MAX, Q8, true, 1, 16, 16, 4, 16, 0, VKNN_FUSED_RELU6, 1},
    {"reduce_q8s", MAX, Q8S, false, 2, 4, 4, 7, 4, 0, VKNN_FUSED_NONE, 1},
    {"reduce_f16", L2, F16, false, 1, 14, 14, 64, 14, 0, VKNN_FUSED_NONE, 2},
    /* A 9x9 window padded by one on 7x7: the padding adds no pixel. */
    {"reduce_f32", AVERAGE, F32, false, 1, 7, 7, 6, 9, 1, VKNN_FUSED_NONE, 1},
};
#define CASE_COUNT (sizeof(kCases) / sizeof(kCases[0]))

static void test_global_pools_reduced(void **state) {
  for (size_t i = 0; i < CASE_COUNT; ++i) run_case(*state, &kCases[i], true);
}

static void test_global_pools_per_output(void **state) {
  for (size_t i = 0; i < CASE_COUNT; ++i) run_case(*state, &kCases[i], false);
}

/* A float16 image of -inf max-pools to -inf both ways (the pooling starts
 * from float32's lowest value, which float16 rounds to -inf, as the
 * reference's float32 pooling does). */
static void test_float16_max_of_minus_infinity(void **state) {
  fixture *f = *state;
  static const pool_case c = {"reduce_f16", MAX, F16, false, 1, 3, 3, 4, 3, 0, VKNN_FUSED_NONE, 1};
  uint16_t in[36], out[4];
  for (int i = 0; i < 36; ++i) in[i] = 0xfc00; /* -inf */
  for (int reducing = 0; reducing < 2; ++reducing) {
    model_builder *b = malloc(sizeof(*b));
    assert_non_null(b);
    build(b, &c);
    vknn_prepared_model *pm = model_runner_prepare(reducing ? f->changed : f->plain, &f->log, b);
    assert_string_equal(vknn_prepared_model_get_dispatch_kernel(pm, 0), reducing ? "reduce_f16" : "pool2d_f16");
    const buffer_arg inputs[1] = {{in, NULL, sizeof(in)}};
    buffer_arg results[1] = {{NULL, out, sizeof(out)}};
    assert_int_equal(model_runner_execute(pm, b, inputs, results, NULL), VKNN_STATUS_NONE);
    for (int i = 0; i < 4; ++i) assert_int_equal(out[i], 0xfc00);
    vknn_prepared_model_release(pm);
    free(b);
  }
}

/* One output whose window leaves the last row and column out (a 6x6 window
 * of stride 2 on a 7x7 image) is no global pooling: it keeps pool2d.comp. */
static void test_window_short_of_the_image(void **state) {
  fixture *f = *state;
  model_builder *b = malloc(sizeof(*b));
  assert_non_null(b);
  mb_init(b);
  const uint32_t in_dims[4] = {1, 7, 7, 4}, out_dims[4] = {1, 1, 1, 4};
  uint32_t in = mb_input(b, F32, in_dims, 4), out = mb_output(b, F32, out_dims, 4);
  uint32_t zero = mb_const_i32(b, 0), two = mb_const_i32(b, 2), six = mb_const_i32(b, 6);
  uint32_t inputs[10] = {in, zero, zero, zero, zero, two, two, six, six, mb_const_i32(b, VKNN_FUSED_NONE)};
  mb_operation(b, OP(AVERAGE_POOL_2D), inputs, 10, &out, 1);
  mb_finish(b);
  vknn_prepared_model *pm = model_runner_prepare(f->changed, &f->log, b);
  assert_string_equal(vknn_prepared_model_get_dispatch_kernel(pm, 0), "pool2d_f32");
  vknn_prepared_model_release(pm);
  free(b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_global_pools_reduced),
      cmocka_unit_test(test_global_pools_per_output),
      cmocka_unit_test(test_float16_max_of_minus_infinity),
      cmocka_unit_test(test_window_short_of_the_image),
  };
  return cmocka_run_group_tests(tests, setup, device_pair_teardown);
}
