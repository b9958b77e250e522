/* A PAD feeding a convolution becomes part of the convolution's padding
 * (src/compiler/fusion.c, vknn_fuse_pads): one dispatch instead of two, and
 * the same bits as the convolution given that padding itself. Checked for
 * CONV_2D (float, and quantized, where the padding is the zero point) and
 * DEPTHWISE_CONV_2D in NCHW; a PAD whose result another operation reads too
 * stays a PAD of its own and gives the same values. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "support/device_pool_fixture.h"
#include "support/model_builder.h"
#include "vknn/vknn.h"

#define F32 VKNN_OPERAND_TENSOR_FLOAT32
#define Q8 VKNN_OPERAND_TENSOR_QUANT8_ASYMM
#define POOL_BYTES (1u << 16)
#define OUT_OFFSET 32768u

typedef device_pool_fixture fixture;

static int setup(void **state) { return device_pool_fixture_setup(state, POOL_BYTES); }
static int teardown(void **state) { return device_pool_fixture_teardown(state); }

/* A 1x5x6x4 image (NCHW: 1x4x5x6) convolved by a 3x3 filter, stride 1. */
typedef struct pad_case {
  int32_t type;
  bool depthwise, nchw;
  int32_t paddings[8];  /* the PAD's, per dimension (before, after) */
  bool second_reader;   /* an ADD reads the PAD's result too */
} pad_case;

static const uint32_t image_nhwc[4] = {1, 5, 6, 4}, image_nchw[4] = {1, 4, 5, 6};

static uint32_t typed_tensor(model_builder *b, const pad_case *c, const uint32_t *dims, bool output) {
  uint32_t t = output ? mb_output(b, c->type, dims, 4) : mb_input(b, c->type, dims, 4);
  if (c->type == Q8) b->operands[t].scale = 0.5f, b->operands[t].zero_point = 100;
  return t;
}

/* The convolution's constant filter, bias and parameters after input 0;
 * pads: its own explicit padding (left, right, top, bottom). */
static uint32_t conv_inputs(model_builder *b, const pad_case *c, const uint32_t pads[4], uint32_t *inputs) {
  static uint8_t q_filter[3 * 3 * 4 * 4];
  static float f_filter[3 * 3 * 4 * 4];
  static int32_t q_bias[4] = {-40, 7, 300, 0};
  static float f_bias[4] = {0.25f, -1.f, 0.5f, 2.f};
  for (int i = 0; i < 144; ++i) q_filter[i] = (uint8_t)(i * 37 % 251), f_filter[i] = (float)(i % 13) / 8.f - 0.7f;
  uint32_t filter_dims[4] = {c->depthwise ? 1 : 4, 3, 3, 4}, bias_dims[1] = {4};
  bool q = c->type == Q8;
  uint32_t count = c->depthwise ? 36 : 144, n = 0;
  inputs[n++] = mb_const_tensor(b, c->type, filter_dims, 4, q ? (const void *)q_filter : f_filter,
                                count * (q ? 1u : 4u));
  if (q) b->operands[inputs[0]].scale = 0.02f, b->operands[inputs[0]].zero_point = 120;
  inputs[n++] = mb_const_tensor(b, q ? VKNN_OPERAND_TENSOR_INT32 : F32, bias_dims, 1,
                                q ? (const void *)q_bias : f_bias, 16);
  if (q) b->operands[inputs[1]].scale = 0.01f;
  for (int i = 0; i < 4; ++i) inputs[n++] = mb_const_i32(b, (int32_t)pads[i]);
  inputs[n++] = mb_const_i32(b, 1);
  inputs[n++] = mb_const_i32(b, 1);
  if (c->depthwise) inputs[n++] = mb_const_i32(b, 1);
  inputs[n++] = mb_const_i32(b, VKNN_FUSED_NONE);
  uint8_t layout = c->nchw;
  inputs[n++] = mb_const_tensor(b, VKNN_OPERAND_BOOL, NULL, 0, &layout, 1);
  return n;
}

/* The padded image's dimensions. */
static void padded_dims_of(const pad_case *c, uint32_t out[4]) {
  const uint32_t *in_dims = c->nchw ? image_nchw : image_nhwc;
  for (int d = 0; d < 4; ++d) out[d] = in_dims[d] + (uint32_t)(c->paddings[2 * d] + c->paddings[2 * d + 1]);
}

/* The convolution's output: the padded image less the 3x3 window's border. */
static void out_dims_of(const pad_case *c, uint32_t out[4]) {
  padded_dims_of(c, out);
  out[c->nchw ? 2 : 1] -= 2;
  out[c->nchw ? 3 : 2] -= 2;
}

/* PAD then the convolution (the model under test), or with with_pad false
 * the convolution given the PAD's height and width padding itself. */
static const vknn_model *build(model_builder *b, const pad_case *c, bool with_pad) {
  mb_init(b);
  const uint32_t *in_dims = c->nchw ? image_nchw : image_nhwc;
  uint32_t x = typed_tensor(b, c, in_dims, false), out_dims[4];
  out_dims_of(c, out_dims);
  uint32_t h = c->nchw ? 2 : 1, w = h + 1;
  uint32_t pads[4] = {(uint32_t)c->paddings[2 * w], (uint32_t)c->paddings[2 * w + 1],
                      (uint32_t)c->paddings[2 * h], (uint32_t)c->paddings[2 * h + 1]};
  uint32_t inputs[13], conv_in = x;
  if (with_pad) {
    uint32_t padded_dims[4];
    padded_dims_of(c, padded_dims);
    conv_in = mb_temporary(b, c->type, padded_dims, 4);
    b->operands[conv_in].scale = b->operands[x].scale;
    b->operands[conv_in].zero_point = b->operands[x].zero_point;
    uint32_t pad_dims[2] = {4, 2};
    uint32_t pad_inputs[2] = {x, mb_const_tensor(b, VKNN_OPERAND_TENSOR_INT32, pad_dims, 2, c->paddings, 32)};
    mb_operation(b, VKNN_OPERATION_PAD, pad_inputs, 2, &conv_in, 1);
    if (c->second_reader) {
      uint32_t sum = mb_output(b, c->type, padded_dims, 4);
      b->operands[sum].scale = b->operands[x].scale;
      b->operands[sum].zero_point = b->operands[x].zero_point;
      uint32_t add_inputs[3] = {conv_in, conv_in, mb_const_i32(b, 0)};
      mb_operation(b, VKNN_OPERATION_ADD, add_inputs, 3, &sum, 1);
    }
    memset(pads, 0, sizeof(pads));
  }
  inputs[0] = conv_in;
  uint32_t n = 1 + conv_inputs(b, c, pads, inputs + 1);
  uint32_t y = typed_tensor(b, c, out_dims, true);
  b->operands[y].scale = c->type == Q8 ? 0.75f : 0.f;
  mb_operation(b, c->depthwise ? VKNN_OPERATION_DEPTHWISE_CONV_2D : VKNN_OPERATION_CONV_2D, inputs, n, &y, 1);
  return mb_finish(b);
}

/* Runs the model; the convolution's output bytes go to out, the dispatch
 * count is returned. */
static uint32_t run(fixture *f, const pad_case *c, bool with_pad, uint8_t *out, uint32_t out_bytes) {
  model_builder *b = malloc(sizeof(*b));
  assert_non_null(b);
  vknn_prepared_model *pm = NULL;
  assert_int_equal(vknn_device_prepare_model(f->device, build(b, c, with_pad), VKNN_PREFER_SUSTAINED_SPEED,
                                             VKNN_PRIORITY_MEDIUM, NULL, &pm),
                   VKNN_STATUS_NONE);
  uint32_t elem = c->type == Q8 ? 1 : 4, in_bytes = 120 * elem;
  for (uint32_t i = 0; i < 120; ++i) {
    if (c->type == Q8) f->pool.data[i] = (uint8_t)(i * 53 % 256);
    else ((float *)f->pool.data)[i] = (float)(i % 17) / 4.f - 2.f;
  }
  memset(f->pool.data + OUT_OFFSET, 0xcd, out_bytes);
  bool second = with_pad && c->second_reader;
  vknn_request_argument args[3] = {{.location = {0, 0, in_bytes}}, {.location = {0, 4096, 8192}},
                                   {.location = {0, OUT_OFFSET, out_bytes}}};
  vknn_request_pool pools[1] = {{.kind = VKNN_REQUEST_POOL_MEMORY, .memory = f->pool.memory}};
  /* The model's outputs: the ADD's (when there) before the convolution's. */
  vknn_request request = {args, 1, second ? args + 1 : args + 2, second ? 2 : 1, pools, 1};
  uint32_t padded[4];
  padded_dims_of(c, padded);
  args[1].location.length = padded[0] * padded[1] * padded[2] * padded[3] * elem;
  vknn_status s = vknn_prepared_model_execute(pm, &request, VKNN_MEASURE_TIMING_NO, NULL, NULL, NULL, 0, NULL);
  assert_int_equal(s, VKNN_STATUS_NONE);
  memcpy(out, f->pool.data + OUT_OFFSET, out_bytes);
  vknn_prepared_model_info info;
  assert_int_equal(vknn_prepared_model_get_info(pm, &info), VKNN_STATUS_NONE);
  vknn_prepared_model_release(pm);
  free(b);
  return info.dispatch_count;
}

static void check(fixture *f, const pad_case *c, uint32_t want_dispatches) {
  uint32_t dims[4];
  out_dims_of(c, dims);
  uint32_t out_bytes = dims[0] * dims[1] * dims[2] * dims[3] * (c->type == Q8 ? 1 : 4);
  uint8_t padded[2048], own[2048];
  assert_true(out_bytes <= sizeof(padded));
  assert_int_equal(run(f, c, true, padded, out_bytes), want_dispatches);
  assert_int_equal(run(f, c, false, own, out_bytes), 1);
  assert_memory_equal(padded, own, out_bytes);
}

static void test_pad_fused_into_conv(void **state) {
  /* NHWC paddings: batch, height, width, channels. */
  static const pad_case f32 = {F32, false, false, {0, 0, 1, 2, 2, 0, 0, 0}, false};
  static const pad_case q8 = {Q8, false, false, {0, 0, 0, 1, 1, 1, 0, 0}, false};
  check(*state, &f32, 1);
  check(*state, &q8, 1);
}

static void test_pad_fused_into_depthwise_nchw(void **state) {
  /* NCHW paddings: batch, channels, height, width. */
  static const pad_case dw = {F32, true, true, {0, 0, 0, 0, 2, 1, 1, 1}, false};
  check(*state, &dw, 1);
}

/* A PAD whose result an ADD reads too runs on its own (PAD, ADD and the
 * convolution: three dispatches), with the same convolution results. */
static void test_pad_kept(void **state) {
  static const pad_case shared = {F32, false, false, {0, 0, 1, 1, 1, 1, 0, 0}, true};
  fixture *f = *state;
  uint8_t padded[2048], own[2048];
  uint32_t dims[4];
  out_dims_of(&shared, dims);
  uint32_t out_bytes = dims[0] * dims[1] * dims[2] * dims[3] * 4;
  assert_int_equal(run(f, &shared, true, padded, out_bytes), 3); /* PAD, ADD, CONV_2D */
  assert_int_equal(run(f, &shared, false, own, out_bytes), 1);
  assert_memory_equal(padded, own, out_bytes);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_pad_fused_into_conv),
      cmocka_unit_test(test_pad_fused_into_depthwise_nchw),
      cmocka_unit_test(test_pad_kept),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
