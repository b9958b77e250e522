/* The packed arena layout (device option packed_layout, src/compiler/
 * packed_layout.c): chains of convolutions, depthwise convolutions, fused
 * pads and fused residual ADDs run on a device storing their intermediate
 * tensors packed and on one storing them NHWC. The kernels compute the
 * same sums in the same order either way, so the outputs must be the same
 * bytes; the packed device must have packed exactly the tensors whose
 * kernels all take the layout (a tensor any other kernel reads stays NHWC,
 * and so does every tensor sharing a fused kernel's output bit with it). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "runtime/device_internal.h"
#include "support/device_pair.h"
#include "support/model_builder.h"
#include "support/model_runner.h"
#include "vknn/vknn.h"

#define F32 VKNN_OPERAND_TENSOR_FLOAT32
#define F16 VKNN_OPERAND_TENSOR_FLOAT16
#define Q8 VKNN_OPERAND_TENSOR_QUANT8_ASYMM
#define OP(name) VKNN_OPERATION_##name

typedef device_pair fixture;

static void pack_tensors(vknn_device_options *options) { options->packed_layout = VKNN_PACKED_LAYOUT_ON; }

static int setup(void **state) { return device_pair_setup(state, pack_tensors); }

/* ---- building the chains ----------------------------------------------------- */

typedef struct net {
  model_builder b;
  int32_t type;
  uint32_t seed;
} net;

static uint32_t next_random(uint32_t *state) {
  *state = *state * 1664525u + 1013904223u;
  return *state >> 8; /* 24 bits */
}

/* A value in [-scale, scale) as the net's float type stores it. */
static void put_random(net *n, uint8_t *bytes, size_t i, float scale) {
  float v = (float)(next_random(&n->seed) / 8388608.0 - 1.0) * scale;
  if (n->type == F16) {
    /* Values of float16 precision, so that runner_half takes them exactly. */
    uint16_t h = runner_half((float)((int)(v * 256.0f)) / 256.0f);
    memcpy(bytes + 2 * i, &h, 2);
  } else {
    memcpy(bytes + 4 * i, &v, 4);
  }
}

static uint32_t element_size(int32_t type) { return type == F16 ? 2 : type == Q8 ? 1 : 4; }

/* A constant of random values (weights scaled by fan-in). */
static uint32_t random_const(net *n, const uint32_t *dims, uint32_t rank, float scale) {
  size_t count = 1;
  for (uint32_t i = 0; i < rank; ++i) count *= dims[i];
  uint8_t *bytes = malloc(count * element_size(n->type));
  assert_non_null(bytes);
  for (size_t i = 0; i < count; ++i) put_random(n, bytes, i, scale);
  uint32_t c = mb_const_tensor(&n->b, n->type, dims, rank, bytes, count * element_size(n->type));
  free(bytes);
  return c;
}

static uint32_t tensor4(net *n, uint32_t batches, uint32_t h, uint32_t w, uint32_t c) {
  const uint32_t dims[4] = {batches, h, w, c};
  return mb_temporary(&n->b, n->type, dims, 4);
}

/* CONV_2D (k x k, stride s, explicit padding pad on every side) of in
 * (in_c channels) into out (out_c channels). */
static void conv(net *n, uint32_t in, uint32_t in_c, uint32_t out, uint32_t out_c, uint32_t k, uint32_t s,
                 uint32_t pad, int32_t activation) {
  const uint32_t filter_dims[4] = {out_c, k, k, in_c}, bias_dims[1] = {out_c};
  uint32_t filter = random_const(n, filter_dims, 4, 1.0f / (float)(k * k * in_c));
  uint32_t bias = random_const(n, bias_dims, 1, 0.5f);
  uint32_t p = mb_const_i32(&n->b, (int32_t)pad), st = mb_const_i32(&n->b, (int32_t)s);
  uint32_t inputs[10] = {in, filter, bias, p, p, p, p, st, st, mb_const_i32(&n->b, activation)};
  mb_operation(&n->b, OP(CONV_2D), inputs, 10, &out, 1);
}

/* DEPTHWISE_CONV_2D 3x3, multiplier 1, stride s, padding 1 on every side. */
static void depthwise(net *n, uint32_t in, uint32_t channels, uint32_t out, uint32_t s) {
  const uint32_t filter_dims[4] = {1, 3, 3, channels}, bias_dims[1] = {channels};
  uint32_t filter = random_const(n, filter_dims, 4, 1.0f / 9.0f);
  uint32_t bias = random_const(n, bias_dims, 1, 0.5f);
  uint32_t one = mb_const_i32(&n->b, 1), st = mb_const_i32(&n->b, (int32_t)s);
  uint32_t inputs[11] = {in, filter, bias, one, one, one, one, st, st, one,
                         mb_const_i32(&n->b, VKNN_FUSED_RELU6)};
  mb_operation(&n->b, OP(DEPTHWISE_CONV_2D), inputs, 11, &out, 1);
}

static void add(net *n, uint32_t a, uint32_t b, uint32_t out) {
  uint32_t inputs[3] = {a, b, mb_const_i32(&n->b, VKNN_FUSED_NONE)};
  mb_operation(&n->b, OP(ADD), inputs, 3, &out, 1);
}

/* AVERAGE_POOL_2D 2x2, stride 2, no padding. */
static void pool(net *n, uint32_t in, uint32_t out) {
  uint32_t zero = mb_const_i32(&n->b, 0), two = mb_const_i32(&n->b, 2);
  uint32_t inputs[10] = {in, zero, zero, zero, zero, two, two, two, two, mb_const_i32(&n->b, VKNN_FUSED_NONE)};
  mb_operation(&n->b, OP(AVERAGE_POOL_2D), inputs, 10, &out, 1);
}

/* PAD of height and width by one on every side. */
static void pad(net *n, uint32_t in, uint32_t out) {
  static const int32_t paddings[8] = {0, 0, 1, 1, 1, 1, 0, 0};
  const uint32_t dims[2] = {4, 2};
  uint32_t p = mb_const_tensor(&n->b, VKNN_OPERAND_TENSOR_INT32, dims, 2, paddings, sizeof(paddings));
  uint32_t inputs[2] = {in, p};
  mb_operation(&n->b, OP(PAD), inputs, 2, &out, 1);
}

static void net_init(net *n, int32_t type, uint32_t seed) {
  mb_init(&n->b);
  n->type = type;
  n->seed = seed;
}

/* ---- the chains -------------------------------------------------------------- */

/* MobileNet's pattern over two images: a strided 3x3 convolution of the
 * 3-channel input, depthwise and pointwise layers at strides 1 and 2, and a
 * PAD fused into a 3x3 convolution. Every intermediate tensor is packed. */
static uint32_t build_mobilenet_like(net *n, uint32_t *input_bytes, uint32_t *output_bytes) {
  const uint32_t in_dims[4] = {2, 13, 11, 3}, out_dims[4] = {2, 4, 3, 16};
  uint32_t x = mb_input(&n->b, n->type, in_dims, 4);
  uint32_t t1 = tensor4(n, 2, 7, 6, 8), t2 = tensor4(n, 2, 7, 6, 8), t3 = tensor4(n, 2, 9, 8, 8);
  uint32_t t4 = tensor4(n, 2, 7, 6, 8), t5 = tensor4(n, 2, 7, 6, 24), t6 = tensor4(n, 2, 4, 3, 24);
  uint32_t y = mb_output(&n->b, n->type, out_dims, 4);
  conv(n, x, 3, t1, 8, 3, 2, 1, VKNN_FUSED_RELU6);
  depthwise(n, t1, 8, t2, 1);
  pad(n, t2, t3);
  conv(n, t3, 8, t4, 8, 3, 1, 0, VKNN_FUSED_RELU);
  conv(n, t4, 8, t5, 24, 1, 1, 0, VKNN_FUSED_RELU6);
  depthwise(n, t5, 24, t6, 2);
  conv(n, t6, 24, y, 16, 1, 1, 0, VKNN_FUSED_NONE);
  mb_finish(&n->b);
  *input_bytes = 2 * 13 * 11 * 3 * element_size(n->type);
  *output_bytes = 2 * 4 * 3 * 16 * element_size(n->type);
  /* t1, t2, t4, t5, t6: t3 (the PAD's output) is fused away. */
  return 5;
}

/* MobileNet v2's shortcut over two images: an ADD fused into the pointwise
 * convolution before it, whose residual (t1) and output (t4) share the
 * kernel's output bit; both are packed. */
static uint32_t build_residual(net *n, uint32_t *input_bytes, uint32_t *output_bytes) {
  const uint32_t in_dims[4] = {2, 6, 5, 8}, out_dims[4] = {2, 6, 5, 12};
  uint32_t x = mb_input(&n->b, n->type, in_dims, 4);
  uint32_t t1 = tensor4(n, 2, 6, 5, 16), t2 = tensor4(n, 2, 6, 5, 16), t3 = tensor4(n, 2, 6, 5, 16);
  uint32_t t4 = tensor4(n, 2, 6, 5, 16), y = mb_output(&n->b, n->type, out_dims, 4);
  conv(n, x, 8, t1, 16, 1, 1, 0, VKNN_FUSED_RELU6);
  depthwise(n, t1, 16, t2, 1);
  conv(n, t2, 16, t3, 16, 1, 1, 0, VKNN_FUSED_NONE);
  add(n, t3, t1, t4);
  conv(n, t4, 16, y, 12, 1, 1, 0, VKNN_FUSED_NONE);
  mb_finish(&n->b);
  *input_bytes = 2 * 6 * 5 * 8 * element_size(n->type);
  *output_bytes = 2 * 6 * 5 * 12 * element_size(n->type);
  /* t1, t2, t4 (t3 is the fused ADD's operand, never written). */
  return 3;
}

/* Wider layers over two images: 32 channels, enough for a split reduction
 * where the device is wide, and a strided 3x3 convolution reading a packed
 * input. t1, t2 and t3 are packed. */
static uint32_t build_wide(net *n, uint32_t *input_bytes, uint32_t *output_bytes) {
  const uint32_t in_dims[4] = {2, 5, 5, 4}, out_dims[4] = {2, 3, 3, 4};
  uint32_t x = mb_input(&n->b, n->type, in_dims, 4);
  uint32_t t1 = tensor4(n, 2, 5, 5, 32), t2 = tensor4(n, 2, 5, 5, 32), t3 = tensor4(n, 2, 5, 5, 32);
  uint32_t y = mb_output(&n->b, n->type, out_dims, 4);
  conv(n, x, 4, t1, 32, 1, 1, 0, VKNN_FUSED_RELU);
  depthwise(n, t1, 32, t2, 1);
  conv(n, t2, 32, t3, 32, 1, 1, 0, VKNN_FUSED_NONE);
  conv(n, t3, 32, y, 4, 3, 2, 1, VKNN_FUSED_NONE);
  mb_finish(&n->b);
  *input_bytes = 2 * 5 * 5 * 4 * element_size(n->type);
  *output_bytes = 2 * 3 * 3 * 4 * element_size(n->type);
  return 3;
}

/* The same shortcut with t1 also read by a pooling, whose kernel reads
 * NHWC only: t1 stays NHWC, and so must t4, written under the same bit of
 * the fused kernel as t1 is read; t2 (between depthwise and pointwise) is
 * still packed. A convolution output of 6 channels (t0) is never packed. */
static uint32_t build_shared_bit(net *n, uint32_t *input_bytes, uint32_t *output_bytes) {
  const uint32_t in_dims[4] = {1, 6, 4, 4}, out_dims[4] = {1, 6, 4, 8}, pooled_dims[4] = {1, 3, 2, 8};
  uint32_t x = mb_input(&n->b, n->type, in_dims, 4);
  uint32_t t0 = tensor4(n, 1, 6, 4, 6), t1 = tensor4(n, 1, 6, 4, 8), t2 = tensor4(n, 1, 6, 4, 8);
  uint32_t t3 = tensor4(n, 1, 6, 4, 8), t4 = tensor4(n, 1, 6, 4, 8);
  uint32_t y = mb_output(&n->b, n->type, out_dims, 4), pooled = mb_output(&n->b, n->type, pooled_dims, 4);
  conv(n, x, 4, t0, 6, 1, 1, 0, VKNN_FUSED_NONE);
  conv(n, t0, 6, t1, 8, 1, 1, 0, VKNN_FUSED_RELU);
  depthwise(n, t1, 8, t2, 1);
  conv(n, t2, 8, t3, 8, 1, 1, 0, VKNN_FUSED_NONE);
  add(n, t3, t1, t4);
  conv(n, t4, 8, y, 8, 1, 1, 0, VKNN_FUSED_NONE);
  pool(n, t1, pooled);
  mb_finish(&n->b);
  *input_bytes = 6 * 4 * 4 * element_size(n->type);
  *output_bytes = 6 * 4 * 8 * element_size(n->type);
  return 1;
}

typedef uint32_t (*build_fn)(net *n, uint32_t *input_bytes, uint32_t *output_bytes);

/* The chain on a device: its outputs (the first output, and a second one
 * where the model has it) and how many tensors it packed. */
static void run_on(fixture *f, vknn_device *device, net *n, uint32_t input_bytes, uint32_t output_bytes,
                   uint8_t *outputs[2], uint32_t *packed) {
  uint8_t *in = malloc(input_bytes);
  assert_non_null(in);
  uint32_t seed = n->seed;
  n->seed = 7;
  for (uint32_t i = 0; i < input_bytes / element_size(n->type); ++i) put_random(n, in, i, 2.0f);
  n->seed = seed;
  vknn_prepared_model *pm = model_runner_prepare(device, &f->log, &n->b);
  const buffer_arg inputs[1] = {{in, NULL, input_bytes}};
  /* A second output holds at most output_bytes. */
  buffer_arg results[2] = {{NULL, outputs[0], output_bytes}, {NULL, outputs[1], 0}};
  if (n->b.output_count > 1) {
    const vknn_operand *o = &n->b.operands[n->b.outputs[1]];
    size_t bytes = element_size(n->type);
    for (uint32_t d = 0; d < o->dimension_count; ++d) bytes *= o->dimensions[d];
    results[1].bytes = bytes;
  }
  assert_int_equal(model_runner_execute(pm, &n->b, inputs, results, NULL), VKNN_STATUS_NONE);
  vknn_prepared_model_info info;
  assert_int_equal(vknn_prepared_model_get_info(pm, &info), VKNN_STATUS_NONE);
  *packed = info.packed_tensors;
  vknn_prepared_model_release(pm);
  free(in);
}

static void check_chain(fixture *f, build_fn build, int32_t type, const char *name) {
  net *n = malloc(sizeof(*n));
  assert_non_null(n);
  net_init(n, type, 12345);
  uint32_t input_bytes, output_bytes;
  uint32_t want_packed = build(n, &input_bytes, &output_bytes);
  uint8_t *out[2][2];
  for (int d = 0; d < 2; ++d)
    for (int o = 0; o < 2; ++o) {
      out[d][o] = calloc(1, output_bytes);
      assert_non_null(out[d][o]);
    }
  uint32_t packed[2];
  run_on(f, f->changed, n, input_bytes, output_bytes, out[0], &packed[0]);
  run_on(f, f->plain, n, input_bytes, output_bytes, out[1], &packed[1]);
  if (packed[0] != want_packed || packed[1] != 0)
    fail_msg("%s: %u and %u tensors packed, want %u and 0", name, packed[0], packed[1], want_packed);
  for (int o = 0; o < 2; ++o)
    if (memcmp(out[0][o], out[1][o], output_bytes) != 0) fail_msg("%s: output %d differs packed", name, o);
  /* Not all zero: the chain computed something. */
  bool nonzero = false;
  for (uint32_t i = 0; i < output_bytes; ++i) nonzero |= out[0][0][i] != 0;
  assert_true(nonzero);
  for (int d = 0; d < 2; ++d)
    for (int o = 0; o < 2; ++o) free(out[d][o]);
  free(n);
}

static void test_mobilenet_like_f32(void **state) {
  check_chain(*state, build_mobilenet_like, F32, "mobilenet-like f32");
}

static void test_mobilenet_like_f16(void **state) {
  check_chain(*state, build_mobilenet_like, F16, "mobilenet-like f16");
}

static void test_residual(void **state) {
  check_chain(*state, build_residual, F32, "residual f32");
  check_chain(*state, build_residual, F16, "residual f16");
}

static void test_shared_bit(void **state) { check_chain(*state, build_shared_bit, F32, "shared bit f32"); }

static void test_wide(void **state) { check_chain(*state, build_wide, F32, "wide f32"); }

/* On a device that says it runs many invocations at once, the 32-channel
 * layers split their reductions across a workgroup (K_SPLIT): the slices
 * read their channels from other planes. (A split reduction shares no
 * filter loads: its pointwise layer runs no _subgroup variant.) */
static void test_split_reductions(void **state) {
  fixture *f = *state;
  f->changed->vk.parallel_invocations = f->plain->vk.parallel_invocations = 1u << 20;
  check_chain(f, build_wide, F32, "wide f32, split");
  net *n = malloc(sizeof(*n));
  assert_non_null(n);
  net_init(n, F32, 1);
  uint32_t input_bytes, output_bytes;
  build_wide(n, &input_bytes, &output_bytes);
  vknn_prepared_model *pm = model_runner_prepare(f->changed, &f->log, &n->b);
  const char *pointwise = vknn_prepared_model_get_dispatch_kernel(pm, 2);
  assert_non_null(pointwise);
  if (strstr(pointwise, "subgroup") != NULL) fail_msg("the 32-channel layer runs %s", pointwise);
  vknn_prepared_model_release(pm);
  free(n);
  f->changed->vk.parallel_invocations = f->plain->vk.parallel_invocations = 0;
}

/* 8-bit chains keep NHWC: the quantized kernels take no packed layout. */
static void test_quantized_stays_nhwc(void **state) {
  fixture *f = *state;
  model_builder *b = malloc(sizeof(*b));
  assert_non_null(b);
  mb_init(b);
  const uint32_t dims[4] = {1, 4, 4, 8}, filter_dims[4] = {8, 1, 1, 8}, bias_dims[1] = {8};
  uint32_t x = mb_input(b, Q8, dims, 4), t = mb_temporary(b, Q8, dims, 4), y = mb_output(b, Q8, dims, 4);
  uint32_t ops[2][2] = {{x, t}, {t, y}};
  for (int k = 0; k < 2; ++k) {
    uint32_t filter = mb_const_zeros(b, Q8, filter_dims, 4);
    uint32_t bias = mb_const_zeros(b, VKNN_OPERAND_TENSOR_INT32, bias_dims, 1);
    mb_set_quant(b, filter, 0.5f, 0);
    mb_set_quant(b, bias, 0.25f, 0);
    uint32_t zero = mb_const_i32(b, 0), one = mb_const_i32(b, 1);
    uint32_t inputs[10] = {ops[k][0], filter, bias, zero, zero, zero, zero, one, one, zero};
    mb_operation(b, OP(CONV_2D), inputs, 10, &ops[k][1], 1);
  }
  mb_set_quant(b, x, 0.5f, 0);
  mb_set_quant(b, t, 0.5f, 0);
  mb_set_quant(b, y, 0.5f, 0);
  mb_finish(b);
  vknn_prepared_model *pm = model_runner_prepare(f->changed, &f->log, b);
  vknn_prepared_model_info info;
  assert_int_equal(vknn_prepared_model_get_info(pm, &info), VKNN_STATUS_NONE);
  assert_int_equal(info.packed_tensors, 0);
  vknn_prepared_model_release(pm);
  free(b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_mobilenet_like_f32), cmocka_unit_test(test_mobilenet_like_f16),
      cmocka_unit_test(test_residual),           cmocka_unit_test(test_shared_bit),
      cmocka_unit_test(test_wide),               cmocka_unit_test(test_split_reductions),
      cmocka_unit_test(test_quantized_stays_nhwc),
  };
  return cmocka_run_group_tests(tests, setup, device_pair_teardown);
}
