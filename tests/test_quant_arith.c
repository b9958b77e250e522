/* Quantized arithmetic on the GPU reproduces the NNAPI reference bit for bit
 * (support/quant_reference.c is the oracle), over every pair of stored
 * values and a spread of scales and zero points; and
 * TENSOR_QUANT8_ASYMM_SIGNED gives the unsigned results shifted by 128
 * wherever the reference's own arithmetic is shift-invariant. */
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

#include "common/shared_memory.h"
#include "support/model_builder.h"
#include "support/quant_reference.h"
#include "vknn/vknn.h"

#define PAIRS 65536 /* every (a, b) pair of 8-bit values */

typedef struct encodings {
  ref_encoding a, b, out;
} encodings;

/* Unsigned encodings; the signed runs move every zero point by -128. Ratios
 * below and above 1, ties (scale 10 after scale 1), a 127-step zero point
 * spread, and multipliers that shift left. */
static const encodings cases[] = {
    {{0.5f, 127}, {0.25f, 100}, {0.75f, 128}},
    {{0.1f, 3}, {0.07f, 250}, {0.3f, 60}},
    {{1.f, 128}, {1.f, 128}, {10.f, 120}},
    {{0.0078125f, 128}, {0.02f, 0}, {0.05f, 10}},
    {{2.f, 200}, {0.001f, 17}, {0.01f, 90}},
    {{0.003f, 77}, {0.9f, 140}, {0.004f, 255}},
};
#define CASE_COUNT (sizeof(cases) / sizeof(cases[0]))

typedef enum op_kind { OP_ADD, OP_SUB, OP_MUL, OP_PRELU, OP_MAXIMUM, OP_MINIMUM, OP_HARD_SWISH } op_kind;

static const int32_t op_types[] = {VKNN_OPERATION_ADD, VKNN_OPERATION_SUB, VKNN_OPERATION_MUL,
                                   VKNN_OPERATION_PRELU, VKNN_OPERATION_MAXIMUM,
                                   VKNN_OPERATION_MINIMUM, VKNN_OPERATION_HARD_SWISH};

typedef struct fixture {
  vknn_device *device;
  shared_memory pool; /* a, b, out: PAIRS bytes each */
} fixture;

static int setup(void **state) {
  fixture *f = calloc(1, sizeof(*f));
  vknn_device_options options = {.enable_validation = true};
  if (f == NULL || vknn_device_open(&options, &f->device) != VKNN_STATUS_NONE) return -1;
  if (shared_memory_create(&f->pool, 3 * PAIRS) != 0) return -1;
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fixture *f = *state;
  uint64_t messages = vknn_device_get_validation_message_count(f->device);
  shared_memory_destroy(&f->pool);
  vknn_device_close(f->device);
  free(f);
  return messages == 0 ? 0 : -1;
}

static bool is_binary(op_kind op) { return op != OP_HARD_SWISH; }
static bool has_activation(op_kind op) { return op <= OP_MUL; }

static uint32_t quant_operand(model_builder *b, uint32_t index, ref_encoding e) {
  b->operands[index].scale = e.scale;
  b->operands[index].zero_point = e.zero_point;
  return index;
}

static const vknn_model *build(model_builder *b, op_kind op, int32_t type, encodings e,
                               int32_t activation) {
  static const uint32_t dims[1] = {PAIRS};
  mb_init(b);
  uint32_t inputs[3], count = 0;
  inputs[count++] = quant_operand(b, mb_input(b, type, dims, 1), e.a);
  if (is_binary(op)) inputs[count++] = quant_operand(b, mb_input(b, type, dims, 1), e.b);
  if (has_activation(op)) inputs[count++] = mb_const_i32(b, activation);
  uint32_t out = quant_operand(b, mb_output(b, type, dims, 1), e.out);
  mb_operation(b, op_types[op], inputs, count, &out, 1);
  return mb_finish(b);
}

/* Prepares and executes a model whose inputs lie at 0 and PAIRS in the
 * pool (in_bytes each) and whose output lands at 2 * PAIRS. */
static void execute_model(fixture *f, const vknn_model *model, uint32_t inputs, uint32_t in_bytes,
                          uint32_t out_bytes) {
  vknn_prepared_model *pm = NULL;
  assert_int_equal(vknn_device_prepare_model(f->device, model, VKNN_PREFER_SUSTAINED_SPEED,
                                             VKNN_PRIORITY_MEDIUM, NULL, &pm),
                   VKNN_STATUS_NONE);
  vknn_request_argument args[3];
  for (uint32_t i = 0; i < inputs; ++i) args[i] = (vknn_request_argument){.location = {0, i * PAIRS, in_bytes}};
  args[inputs] = (vknn_request_argument){.location = {0, 2 * PAIRS, out_bytes}};
  vknn_request_pool pools[1] = {{.kind = VKNN_REQUEST_POOL_MEMORY, .memory = f->pool.memory}};
  vknn_request request = {args, inputs, args + inputs, 1, pools, 1};
  assert_int_equal(vknn_prepared_model_execute(pm, &request, VKNN_MEASURE_TIMING_NO, NULL, NULL,
                                               NULL, 0, NULL),
                   VKNN_STATUS_NONE);
  vknn_prepared_model_release(pm);
}

/* Runs the operation over the pool's a and b; the result lands in out. */
static void run(fixture *f, op_kind op, int32_t type, encodings e, int32_t activation) {
  model_builder *b = malloc(sizeof(*b));
  assert_non_null(b);
  execute_model(f, build(b, op, type, e, activation), is_binary(op) ? 2 : 1, PAIRS, PAIRS);
  free(b);
}

/* a takes every value, b every value for each a. */
static void fill_inputs(fixture *f, bool is_signed) {
  for (uint32_t i = 0; i < PAIRS; ++i) {
    f->pool.data[i] = (uint8_t)((i & 255) - (is_signed ? 128 : 0));
    f->pool.data[PAIRS + i] = (uint8_t)((i >> 8) - (is_signed ? 128 : 0));
  }
}

static int32_t stored(const uint8_t *bytes, uint32_t i, bool is_signed) {
  return is_signed ? (int32_t)(int8_t)bytes[i] : (int32_t)bytes[i];
}

/* The reference's clamp for a fused activation. */
static void activation_range(int32_t activation, ref_encoding out, bool is_signed, int32_t *lo,
                             int32_t *hi) {
  *lo = is_signed ? -128 : 0;
  *hi = is_signed ? 127 : 255;
  if (activation == VKNN_FUSED_NONE) return;
  int32_t zero = out.zero_point, six = out.zero_point + (int32_t)roundf(6.f / out.scale);
  if (zero > *lo) *lo = zero;
  if (activation == VKNN_FUSED_RELU6 && six < *hi) *hi = six;
}

static int32_t expected(op_kind op, int32_t a, int32_t b, encodings e, int32_t lo, int32_t hi) {
  switch (op) {
    case OP_ADD: return ref_add(a, b, e.a, e.b, e.out, false, lo, hi);
    case OP_SUB: return ref_add(a, b, e.a, e.b, e.out, true, lo, hi);
    case OP_MUL: return ref_mul(a, b, e.a, e.b, e.out, lo, hi);
    case OP_PRELU: return ref_prelu(a, b, e.a, e.b, e.out, lo, hi);
    case OP_MAXIMUM: return ref_maximum(a, b, e.a, e.b, e.out, false, lo, hi);
    case OP_MINIMUM: return ref_maximum(a, b, e.a, e.b, e.out, true, lo, hi);
    default: return ref_hard_swish(a, e.a, e.out, lo, hi);
  }
}

static encodings signed_encodings(encodings e) {
  e.a.zero_point -= 128;
  e.b.zero_point -= 128;
  e.out.zero_point -= 128;
  return e;
}

/* Runs op over every pair in one encoding; checks each output against the
 * reference and returns the number of mismatches (printing the first). */
static uint32_t check_against_reference(fixture *f, op_kind op, bool is_signed, encodings e,
                                        int32_t activation) {
  int32_t type = is_signed ? VKNN_OPERAND_TENSOR_QUANT8_ASYMM_SIGNED : VKNN_OPERAND_TENSOR_QUANT8_ASYMM;
  fill_inputs(f, is_signed);
  run(f, op, type, e, activation);
  int32_t lo, hi;
  activation_range(activation, e.out, is_signed, &lo, &hi);
  uint32_t mismatches = 0;
  for (uint32_t i = 0; i < PAIRS; ++i) {
    int32_t a = stored(f->pool.data, i, is_signed), b = stored(f->pool.data + PAIRS, i, is_signed);
    int32_t want = expected(op, a, b, e, lo, hi), got = stored(f->pool.data + 2 * PAIRS, i, is_signed);
    if (got != want && mismatches++ == 0)
      print_error("operation %d (%s): a=%d b=%d: got %d, the reference gives %d\n", op_types[op],
                  is_signed ? "signed" : "unsigned", a, b, got, want);
  }
  return mismatches;
}

/* The reference refuses HARD_SWISH when input scale / 128 >= output scale
 * (and so does the driver, at prepare). */
static bool reference_accepts(op_kind op, encodings e) {
  return op != OP_HARD_SWISH || e.a.scale / 128.f < e.out.scale;
}

static void check_op(fixture *f, op_kind op, int32_t activation) {
  for (size_t c = 0; c < CASE_COUNT; ++c) {
    if (!reference_accepts(op, cases[c])) continue;
    assert_int_equal(check_against_reference(f, op, false, cases[c], activation), 0);
    assert_int_equal(check_against_reference(f, op, true, signed_encodings(cases[c]), activation), 0);
  }
}

static void test_add(void **state) { check_op(*state, OP_ADD, VKNN_FUSED_NONE); }
static void test_add_relu6(void **state) { check_op(*state, OP_ADD, VKNN_FUSED_RELU6); }
static void test_sub(void **state) { check_op(*state, OP_SUB, VKNN_FUSED_NONE); }
static void test_mul(void **state) { check_op(*state, OP_MUL, VKNN_FUSED_NONE); }
static void test_mul_relu(void **state) { check_op(*state, OP_MUL, VKNN_FUSED_RELU); }
static void test_prelu(void **state) { check_op(*state, OP_PRELU, VKNN_FUSED_NONE); }
static void test_maximum(void **state) { check_op(*state, OP_MAXIMUM, VKNN_FUSED_NONE); }
static void test_minimum(void **state) { check_op(*state, OP_MINIMUM, VKNN_FUSED_NONE); }
static void test_hard_swish(void **state) { check_op(*state, OP_HARD_SWISH, VKNN_FUSED_NONE); }

/* Fixed-point arithmetic subtracts the zero points first and adds the
 * output's last, so moving every zero point and value by -128 moves the
 * results by -128 exactly. (MAXIMUM and MINIMUM are left out: the reference
 * rounds after adding the output's zero point, so its halves fall on
 * different sides.) */
static void test_signed_is_unsigned_shifted(void **state) {
  fixture *f = *state;
  static const op_kind ops[] = {OP_ADD, OP_SUB, OP_MUL, OP_PRELU, OP_HARD_SWISH};
  uint8_t *unsigned_out = malloc(PAIRS);
  assert_non_null(unsigned_out);
  for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); ++k)
    for (size_t c = 0; c < CASE_COUNT; ++c) {
      if (!reference_accepts(ops[k], cases[c])) continue;
      fill_inputs(f, false);
      run(f, ops[k], VKNN_OPERAND_TENSOR_QUANT8_ASYMM, cases[c], VKNN_FUSED_RELU1);
      memcpy(unsigned_out, f->pool.data + 2 * PAIRS, PAIRS);
      fill_inputs(f, true);
      run(f, ops[k], VKNN_OPERAND_TENSOR_QUANT8_ASYMM_SIGNED, signed_encodings(cases[c]),
          VKNN_FUSED_RELU1);
      for (uint32_t i = 0; i < PAIRS; ++i)
        assert_int_equal((int32_t)(int8_t)f->pool.data[2 * PAIRS + i], (int32_t)unsigned_out[i] - 128);
    }
  free(unsigned_out);
}

/* FULLY_CONNECTED (the convolution kernel): int32 accumulation, then the
 * reference's fixed-point requantization, for each encoding. */
#define FC_BATCH 16
#define FC_IN 64
#define FC_OUT 16

static const vknn_model *build_fc(model_builder *b, encodings e, const uint8_t *weights,
                                  const int32_t *bias) {
  static const uint32_t in_dims[2] = {FC_BATCH, FC_IN}, w_dims[2] = {FC_OUT, FC_IN},
                        b_dims[1] = {FC_OUT}, out_dims[2] = {FC_BATCH, FC_OUT};
  const int32_t type = VKNN_OPERAND_TENSOR_QUANT8_ASYMM;
  mb_init(b);
  uint32_t in = quant_operand(b, mb_input(b, type, in_dims, 2), e.a);
  uint32_t w = quant_operand(b, mb_const_tensor(b, type, w_dims, 2, weights, FC_OUT * FC_IN), e.b);
  ref_encoding bias_encoding = {e.a.scale * e.b.scale, 0};
  uint32_t bi = quant_operand(b, mb_const_tensor(b, VKNN_OPERAND_TENSOR_INT32, b_dims, 1, bias,
                                                 FC_OUT * sizeof(int32_t)),
                              bias_encoding);
  uint32_t out = quant_operand(b, mb_output(b, type, out_dims, 2), e.out);
  const uint32_t inputs[4] = {in, w, bi, mb_const_i32(b, VKNN_FUSED_NONE)};
  mb_operation(b, VKNN_OPERATION_FULLY_CONNECTED, inputs, 4, &out, 1);
  return mb_finish(b);
}

static int32_t fc_expected(const uint8_t *x, const uint8_t *w, const int32_t *bias, encodings e,
                           uint32_t n, uint32_t o) {
  int32_t acc = bias[o];
  for (uint32_t k = 0; k < FC_IN; ++k)
    acc += (x[n * FC_IN + k] - e.a.zero_point) * (w[o * FC_IN + k] - e.b.zero_point);
  float product = e.a.scale * e.b.scale;
  int32_t y = ref_multiply(acc, ref_quantize_multiplier(product / (double)e.out.scale));
  y += e.out.zero_point;
  return y < 0 ? 0 : y > 255 ? 255 : y;
}

static void test_fully_connected(void **state) {
  fixture *f = *state;
  static uint8_t weights[FC_OUT * FC_IN];
  static int32_t bias[FC_OUT];
  for (uint32_t i = 0; i < FC_OUT * FC_IN; ++i) weights[i] = (uint8_t)(i * 37 + 11);
  for (uint32_t o = 0; o < FC_OUT; ++o) bias[o] = (int32_t)(o * 977) - 7000;
  model_builder *b = malloc(sizeof(*b));
  assert_non_null(b);
  for (size_t c = 0; c < CASE_COUNT; ++c) {
    encodings e = cases[c];
    for (uint32_t i = 0; i < FC_BATCH * FC_IN; ++i) f->pool.data[i] = (uint8_t)(i * 101 + c);
    execute_model(f, build_fc(b, e, weights, bias), 1, FC_BATCH * FC_IN, FC_BATCH * FC_OUT);
    for (uint32_t n = 0; n < FC_BATCH; ++n)
      for (uint32_t o = 0; o < FC_OUT; ++o)
        assert_int_equal(f->pool.data[2 * PAIRS + n * FC_OUT + o],
                         fc_expected(f->pool.data, weights, bias, e, n, o));
  }
  free(b);
}

/* QUANTIZE divides in single precision as a CPU does (correctly rounded),
 * then rounds half away from zero: inputs a few units in the last place
 * around every half-way point. */
#define QUANTIZE_COUNT (281 * 9)

static void test_quantize_rounds_as_the_reference(void **state) {
  fixture *f = *state;
  static const float scales[] = {0.1f, 0.3f, 0.0234375f, 1.7f, 0.05f, 0.7f};
  const int32_t zero_point = 120;
  static const uint32_t dims[1] = {QUANTIZE_COUNT};
  model_builder *b = malloc(sizeof(*b));
  assert_non_null(b);
  float *x = (float *)f->pool.data;
  for (size_t c = 0; c < sizeof(scales) / sizeof(scales[0]); ++c) {
    float s = scales[c];
    uint32_t n = 0;
    for (int k = -140; k <= 140; ++k) {
      float tie = ((float)k + 0.5f) * s;
      for (int ulps = -4; ulps <= 4; ++ulps) {
        float v = tie;
        for (int u = 0; u < abs(ulps); ++u) v = nextafterf(v, ulps < 0 ? -INFINITY : INFINITY);
        x[n++] = v;
      }
    }
    mb_init(b);
    uint32_t in = mb_input(b, VKNN_OPERAND_TENSOR_FLOAT32, dims, 1);
    uint32_t out = quant_operand(b, mb_output(b, VKNN_OPERAND_TENSOR_QUANT8_ASYMM, dims, 1),
                                 (ref_encoding){s, zero_point});
    mb_operation(b, VKNN_OPERATION_QUANTIZE, &in, 1, &out, 1);
    execute_model(f, mb_finish(b), 1, QUANTIZE_COUNT * sizeof(float), QUANTIZE_COUNT);
    for (uint32_t i = 0; i < QUANTIZE_COUNT; ++i) {
      float q = (float)zero_point + roundf(x[i] / s);
      int32_t want = q < 0.f ? 0 : q > 255.f ? 255 : (int32_t)q;
      uint8_t got = f->pool.data[2 * PAIRS + i];
      if (got != want) print_error("QUANTIZE %.9g / %.9g: got %d, the reference gives %d\n", x[i], s, got, want);
      assert_int_equal(got, want);
    }
  }
  free(b);
}

/* Scales the reference refuses are reported unsupported, not failed later. */
static void test_hard_swish_refused_scales_unsupported(void **state) {
  fixture *f = *state;
  encodings refused = cases[4];
  assert_false(reference_accepts(OP_HARD_SWISH, refused));
  model_builder *b = malloc(sizeof(*b));
  assert_non_null(b);
  bool supported = true;
  assert_int_equal(vknn_device_get_supported_operations(
                       f->device, build(b, OP_HARD_SWISH, VKNN_OPERAND_TENSOR_QUANT8_ASYMM, refused,
                                        VKNN_FUSED_NONE),
                       &supported, 1),
                   VKNN_STATUS_NONE);
  assert_false(supported);
  free(b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_add, setup, teardown),
      cmocka_unit_test_setup_teardown(test_add_relu6, setup, teardown),
      cmocka_unit_test_setup_teardown(test_sub, setup, teardown),
      cmocka_unit_test_setup_teardown(test_mul, setup, teardown),
      cmocka_unit_test_setup_teardown(test_mul_relu, setup, teardown),
      cmocka_unit_test_setup_teardown(test_prelu, setup, teardown),
      cmocka_unit_test_setup_teardown(test_maximum, setup, teardown),
      cmocka_unit_test_setup_teardown(test_minimum, setup, teardown),
      cmocka_unit_test_setup_teardown(test_hard_swish, setup, teardown),
      cmocka_unit_test_setup_teardown(test_signed_is_unsigned_shifted, setup, teardown),
      cmocka_unit_test_setup_teardown(test_fully_connected, setup, teardown),
      cmocka_unit_test_setup_teardown(test_quantize_rounds_as_the_reference, setup, teardown),
      cmocka_unit_test_setup_teardown(test_hard_swish_refused_scales_unsupported, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
