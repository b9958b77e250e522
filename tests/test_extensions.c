/* Vendor extensions (docs/extensions.md): getSupportedExtensions, the
 * decoding of a model's extension types through its extensionNameToPrefix
 * table, and every rule the driver checks for the extensions it implements.
 * Rule rows follow tests/test_lstm.c: a valid single-operation model broken
 * in one way, rejected with INVALID_ARGUMENT by the support query and by
 * prepare with a log line naming the problem; accepting rows show that each
 * base model passes. The numbers are checked by the conformance cases in
 * tests/data (vknn-cts tests/data). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <cmocka.h>

#include "common/shared_memory.h"
#include "model/extension.h"
#include "support/model_builder.h"
#include "support/model_runner.h"
#include "support/model_runner.h"
#include "vknn/extensions/fibonacci.h"
#include "vknn/extensions/transformer.h"
#include "vknn/vknn.h"

#define F32 VKNN_OPERAND_TENSOR_FLOAT32
#define F16 VKNN_OPERAND_TENSOR_FLOAT16

/* Prefixes the test models give the extensions. The fibonacci one is the
 * driver's own canonical prefix of another extension, so that a mix-up of
 * a model's types and the driver's would show. */
#define FIB_PREFIX ((uint16_t)(VKNN_EXT_PREFIX_BASE + VKNN_EXT_TRANSFORMER))
#define TRANSFORMER_PREFIX ((uint16_t)0x21)
#define OTHER_PREFIX ((uint16_t)0x22)

#define INT64_TYPE VKNN_EXTENSION_TYPE(FIB_PREFIX, VKNN_EXAMPLE_INT64)
#define QUANT64_TYPE VKNN_EXTENSION_TYPE(FIB_PREFIX, VKNN_EXAMPLE_TENSOR_QUANT64_ASYMM)
#define FIB_OP VKNN_EXTENSION_TYPE(FIB_PREFIX, VKNN_EXAMPLE_FIBONACCI)
#define TRANSFORMER_OP(code) VKNN_EXTENSION_TYPE(TRANSFORMER_PREFIX, VKNN_TRANSFORMER_##code)

/* The model under test: its operation's inputs and outputs, its table. */
typedef struct ctx {
  model_builder b;
  int32_t op_type;
  uint32_t in[8], in_count;
  uint32_t out[2], out_count;
  vknn_extension_prefix names[4];
  uint32_t name_count;
  vknn_example_quant64_asymm_params quant;
  uint8_t blob[32];
} ctx;

typedef struct row {
  const char *name;
  void (*build)(ctx *c);
  void (*mutate)(ctx *c);   /* NULL: the base model */
  const char *expected_log; /* NULL: accepted */
} row;

/* ---- operands ------------------------------------------------------------ */

static uint32_t zeros(ctx *c, int32_t type, const uint32_t *dims, uint32_t rank) {
  return mb_const_zeros(&c->b, type, dims, rank);
}

static uint32_t scalar_bool(ctx *c, uint8_t v) {
  return mb_const_tensor(&c->b, VKNN_OPERAND_BOOL, NULL, 0, &v, 1);
}

static uint32_t scalar_f32(ctx *c, float v) {
  return mb_const_tensor(&c->b, VKNN_OPERAND_FLOAT32, NULL, 0, &v, sizeof(v));
}

static uint32_t no_value(ctx *c, int32_t type) {
  uint32_t i = mb_temporary(&c->b, type, NULL, 0);
  c->b.operands[i].lifetime = VKNN_LIFETIME_NO_VALUE;
  return i;
}

static void name_extension(ctx *c, const char *name, uint16_t prefix) {
  c->names[c->name_count++] = (vknn_extension_prefix){name, prefix};
}

/* The operation added, the model finished with its table. */
static const vknn_model *finish(ctx *c) {
  mb_operation(&c->b, c->op_type, c->in, c->in_count, c->out, c->out_count);
  c->b.extension_names = c->names;
  c->b.extension_name_count = c->name_count;
  return mb_finish(&c->b);
}

/* ---- com.example.fibonacci ---------------------------------------------- */

static void attach_quant(ctx *c, uint32_t operand) {
  memcpy(c->blob, &c->quant, sizeof(c->quant));
  c->b.operands[operand].extra_params.kind = VKNN_EXTRA_PARAMS_EXTENSION;
  c->b.operands[operand].extra_params.extension.data = c->blob;
  c->b.operands[operand].extra_params.extension.size = sizeof(c->quant);
}

/* n = 10 (EXAMPLE_INT64 constant) -> [10] EXAMPLE_TENSOR_QUANT64_ASYMM. */
static void build_fibonacci(ctx *c) {
  name_extension(c, VKNN_FIBONACCI_EXTENSION_NAME, FIB_PREFIX);
  c->op_type = FIB_OP;
  int64_t n = 10;
  const uint32_t dims[1] = {10};
  c->in[0] = mb_const_tensor(&c->b, INT64_TYPE, NULL, 0, &n, sizeof(n));
  c->in_count = 1;
  c->out[0] = mb_output(&c->b, QUANT64_TYPE, dims, 1);
  c->out_count = 1;
  c->quant = (vknn_example_quant64_asymm_params){0.5, 3};
  attach_quant(c, c->out[0]);
}

static vknn_operand *fib_out(ctx *c) { return &c->b.operands[c->out[0]]; }
static void fib_float_output(ctx *c) {
  fib_out(c)->type = F32;
  fib_out(c)->extra_params.kind = VKNN_EXTRA_PARAMS_NONE;
}
static void fib_float_input(ctx *c) {
  const uint32_t one[1] = {1};
  const float n = 10.f;
  c->in[0] = mb_const_tensor(&c->b, F32, one, 1, &n, sizeof(n));
}
static void fib_no_blob(ctx *c) { fib_out(c)->extra_params.kind = VKNN_EXTRA_PARAMS_NONE; }
static void fib_short_blob(ctx *c) { fib_out(c)->extra_params.extension.size = 12; }
static void fib_zero_scale(ctx *c) { c->quant.scale = 0.0, attach_quant(c, c->out[0]); }
static void fib_nan_scale(ctx *c) { c->quant.scale = NAN, attach_quant(c, c->out[0]); }
static void fib_operand_scale(ctx *c) { fib_out(c)->scale = 0.5f; }
static void fib_int64_blob(ctx *c) { attach_quant(c, c->in[0]); }
static void fib_int64_dims(ctx *c) {
  c->b.operands[c->in[0]].dimension_count = 1;
  c->b.dims[c->in[0]][0] = 1;
}
static void fib_unknown_operand(ctx *c) {
  c->b.operands[c->in[0]].type = VKNN_EXTENSION_TYPE(FIB_PREFIX, 7);
}
static void fib_unknown_operation(ctx *c) { c->op_type = VKNN_EXTENSION_TYPE(FIB_PREFIX, 3); }
static void fib_no_prefix(ctx *c) { c->names[0].prefix = OTHER_PREFIX; }
static void fib_prefix_twice(ctx *c) { name_extension(c, "com.example.other", FIB_PREFIX); }
static void fib_name_twice(ctx *c) { name_extension(c, VKNN_FIBONACCI_EXTENSION_NAME, OTHER_PREFIX); }
static void fib_prefix_zero(ctx *c) { name_extension(c, "com.example.other", 0); }
static void fib_empty_name(ctx *c) { name_extension(c, "", OTHER_PREFIX); }
static void fib_int32_input(ctx *c) { c->in[0] = mb_const_i32(&c->b, 10); }
static void fib_float_input_two(ctx *c) {
  const uint32_t two[1] = {2};
  const float n[2] = {10.f, 1.f};
  c->in[0] = mb_const_tensor(&c->b, F32, two, 1, n, sizeof(n));
}
static void fib_int32_output(ctx *c) {
  fib_float_output(c);
  fib_out(c)->type = VKNN_OPERAND_TENSOR_INT32;
}
static void fib_output_rank_2(ctx *c) {
  fib_out(c)->dimension_count = 2;
  c->b.dims[c->out[0]][1] = 1;
}
static void fib_two_inputs(ctx *c) { c->in[c->in_count++] = c->in[0]; }
static void fib_n_value(ctx *c, int64_t n) {
  c->in[0] = mb_const_tensor(&c->b, INT64_TYPE, NULL, 0, &n, sizeof(n));
}
static void fib_n_zero(ctx *c) { fib_n_value(c, 0); }
static void fib_n_93(ctx *c) { fib_n_value(c, 93); }
static void fib_n_fraction(ctx *c) {
  const uint32_t one[1] = {1};
  const float n = 2.5f;
  c->in[0] = mb_const_tensor(&c->b, F32, one, 1, &n, sizeof(n));
}
static void fib_output_dims(ctx *c) { c->b.dims[c->out[0]][0] = 11; }

/* ---- org.vknn.transformer ------------------------------------------------ */

static void transformer(ctx *c, uint32_t code) {
  name_extension(c, VKNN_TRANSFORMER_EXTENSION_NAME, TRANSFORMER_PREFIX);
  c->op_type = VKNN_EXTENSION_TYPE(TRANSFORMER_PREFIX, code);
}

/* [2, 3, 4] x [4, 5] -> [2, 3, 5]. */
static void build_batch_matmul(ctx *c) {
  transformer(c, VKNN_TRANSFORMER_BATCH_MATMUL);
  const uint32_t x[3] = {2, 3, 4}, y[2] = {4, 5}, out[3] = {2, 3, 5};
  c->in[0] = mb_input(&c->b, F32, x, 3);
  c->in[1] = mb_input(&c->b, F32, y, 2);
  c->in[2] = scalar_bool(c, 0);
  c->in[3] = scalar_bool(c, 0);
  c->in_count = 4;
  c->out[0] = mb_output(&c->b, F32, out, 3);
  c->out_count = 1;
}

static void bm_three_inputs(ctx *c) { c->in_count = 3; }
static void bm_int32(ctx *c) {
  c->b.operands[c->in[0]].type = VKNN_OPERAND_TENSOR_INT32;
  c->b.operands[c->in[1]].type = VKNN_OPERAND_TENSOR_INT32;
  c->b.operands[c->out[0]].type = VKNN_OPERAND_TENSOR_INT32;
}
static void bm_mixed_types(ctx *c) { c->b.operands[c->in[1]].type = F16; }
static void bm_rank_1(ctx *c) { c->b.operands[c->in[1]].dimension_count = 1; }
static void bm_rank_5(ctx *c) {
  const uint32_t x[5] = {1, 1, 2, 3, 4};
  c->in[0] = mb_input(&c->b, F32, x, 5);
}
static void bm_adj_int(ctx *c) { c->in[2] = mb_const_i32(&c->b, 0); }
static void bm_output_f16(ctx *c) { c->b.operands[c->out[0]].type = F16; }
static void bm_k_mismatch(ctx *c) { c->b.dims[c->in[1]][0] = 5; }
static void bm_adj_y(ctx *c) {
  const uint32_t y[2] = {5, 4};
  c->in[1] = mb_input(&c->b, F32, y, 2);
  c->in[3] = scalar_bool(c, 1);
}
static void bm_batch_mismatch(ctx *c) {
  const uint32_t y[3] = {3, 4, 5};
  c->in[1] = mb_input(&c->b, F32, y, 3);
}
static void set_dims(ctx *c, uint32_t operand, const uint32_t *dims, uint32_t rank) {
  memcpy(c->b.dims[operand], dims, rank * sizeof(uint32_t));
  c->b.operands[operand].dimension_count = rank;
}
static void bm_broadcast(ctx *c) {
  const uint32_t y[4] = {3, 1, 4, 5}, out[4] = {3, 2, 3, 5};
  set_dims(c, c->in[1], y, 4);
  set_dims(c, c->out[0], out, 4);
}
static void bm_output_dims(ctx *c) { c->b.dims[c->out[0]][2] = 6; }

/* [2, 3, 8] along the last axis, gamma and beta [8]. */
static void build_layer_norm(ctx *c) {
  transformer(c, VKNN_TRANSFORMER_LAYER_NORMALIZATION);
  const uint32_t x[3] = {2, 3, 8}, v[1] = {8};
  c->in[0] = mb_input(&c->b, F32, x, 3);
  c->in[1] = zeros(c, F32, v, 1);
  c->in[2] = zeros(c, F32, v, 1);
  c->in[3] = mb_const_i32(&c->b, -1);
  c->in[4] = scalar_f32(c, 1e-5f);
  c->in_count = 5;
  c->out[0] = mb_output(&c->b, F32, x, 3);
  c->out_count = 1;
}

static void ln_no_affine(ctx *c) { c->in[1] = c->in[2] = no_value(c, F32); }
static void ln_omit_x(ctx *c) { c->in[0] = no_value(c, F32); }
static void ln_omit_axis(ctx *c) { c->in[3] = no_value(c, VKNN_OPERAND_INT32); }
static void ln_four_inputs(ctx *c) { c->in_count = 4; }
static void ln_int32(ctx *c) { c->b.operands[c->in[0]].type = VKNN_OPERAND_TENSOR_INT32; }
static void ln_rank_5(ctx *c) {
  const uint32_t x[5] = {1, 1, 2, 3, 8};
  c->in[0] = mb_input(&c->b, F32, x, 5);
}
static void ln_gamma_f16(ctx *c) {
  const uint32_t v[1] = {8};
  c->in[1] = zeros(c, F16, v, 1);
}
static void ln_gamma_rank_2(ctx *c) {
  const uint32_t v[2] = {1, 8};
  c->in[1] = zeros(c, F32, v, 2);
}
static void ln_gamma_length(ctx *c) {
  const uint32_t v[1] = {7};
  c->in[1] = zeros(c, F32, v, 1);
}
static void ln_axis_float(ctx *c) { c->in[3] = scalar_f32(c, 1.f); }
static void ln_axis_range(ctx *c) { c->in[3] = mb_const_i32(&c->b, 3); }
static void ln_epsilon_f16(ctx *c) {
  const uint16_t one = 0x3c00;
  c->in[4] = mb_const_tensor(&c->b, VKNN_OPERAND_FLOAT16, NULL, 0, &one, 2);
}
static void ln_epsilon_zero(ctx *c) { c->in[4] = scalar_f32(c, 0.f); }
static void ln_output_f16(ctx *c) { c->b.operands[c->out[0]].type = F16; }

/* [4, 6], the exact form. */
static void build_gelu(ctx *c) {
  transformer(c, VKNN_TRANSFORMER_GELU);
  const uint32_t x[2] = {4, 6};
  c->in[0] = mb_input(&c->b, F32, x, 2);
  c->in[1] = scalar_bool(c, 0);
  c->in_count = 2;
  c->out[0] = mb_output(&c->b, F32, x, 2);
  c->out_count = 1;
}

static void gelu_tanh(ctx *c) { c->in[1] = scalar_bool(c, 1); }
static void gelu_one_input(ctx *c) { c->in_count = 1; }
static void gelu_quant(ctx *c) {
  c->b.operands[c->in[0]].type = VKNN_OPERAND_TENSOR_QUANT8_ASYMM;
  c->b.operands[c->in[0]].scale = 0.5f;
  c->b.operands[c->out[0]].type = VKNN_OPERAND_TENSOR_QUANT8_ASYMM;
  c->b.operands[c->out[0]].scale = 0.5f;
}
static void gelu_int_form(ctx *c) { c->in[1] = mb_const_i32(&c->b, 0); }
static void gelu_output_f16(ctx *c) { c->b.operands[c->out[0]].type = F16; }

/* query [2, 3, 4], key [2, 5, 4], value [2, 5, 6], mask [3, 5]. */
static void build_attention(ctx *c) {
  transformer(c, VKNN_TRANSFORMER_ATTENTION);
  const uint32_t q[3] = {2, 3, 4}, k[3] = {2, 5, 4}, v[3] = {2, 5, 6}, mask[2] = {3, 5},
                 out[3] = {2, 3, 6};
  c->in[0] = mb_input(&c->b, F32, q, 3);
  c->in[1] = mb_input(&c->b, F32, k, 3);
  c->in[2] = mb_input(&c->b, F32, v, 3);
  c->in[3] = zeros(c, F32, mask, 2);
  c->in[4] = scalar_f32(c, 0.5f);
  c->in_count = 5;
  c->out[0] = mb_output(&c->b, F32, out, 3);
  c->out_count = 1;
}

static void att_no_mask(ctx *c) { c->in[3] = no_value(c, F32); }
static void att_mask_broadcast(ctx *c) {
  const uint32_t mask[3] = {2, 1, 5};
  c->in[3] = zeros(c, F32, mask, 3);
}
static void att_omit_value(ctx *c) { c->in[2] = no_value(c, F32); }
static void att_four_inputs(ctx *c) { c->in_count = 4; }
static void att_int32(ctx *c) { c->b.operands[c->in[0]].type = VKNN_OPERAND_TENSOR_INT32; }
static void att_key_f16(ctx *c) { c->b.operands[c->in[1]].type = F16; }
static void att_key_rank_1(ctx *c) { c->b.operands[c->in[1]].dimension_count = 1; }
static void att_mask_f16(ctx *c) {
  const uint32_t mask[2] = {3, 5};
  c->in[3] = zeros(c, F16, mask, 2);
}
static void att_scale_int(ctx *c) { c->in[4] = mb_const_i32(&c->b, 1); }
static void att_scale_inf(ctx *c) { c->in[4] = scalar_f32(c, INFINITY); }
static void att_output_f16(ctx *c) { c->b.operands[c->out[0]].type = F16; }
static void att_key_depth(ctx *c) { c->b.dims[c->in[1]][2] = 3; }
static void att_value_keys(ctx *c) { c->b.dims[c->in[2]][1] = 4; }
static void att_batch(ctx *c) { c->b.dims[c->in[1]][0] = 3, c->b.dims[c->in[2]][0] = 3; }
static void att_rank_mismatch(ctx *c) {
  const uint32_t k[2] = {5, 4};
  c->in[1] = mb_input(&c->b, F32, k, 2);
}
static void att_mask_shape(ctx *c) {
  const uint32_t mask[2] = {3, 4};
  c->in[3] = zeros(c, F32, mask, 2);
}
static void att_mask_batch(ctx *c) {
  const uint32_t mask[3] = {3, 3, 5};
  c->in[3] = zeros(c, F32, mask, 3);
}
static void att_mask_rank(ctx *c) {
  const uint32_t mask[4] = {1, 2, 3, 5};
  c->in[3] = zeros(c, F32, mask, 4);
}
static void att_output_dims(ctx *c) { c->b.dims[c->out[0]][2] = 5; }

static const row rows[] = {
    {"EXAMPLE_FIBONACCI accepted (EXAMPLE_INT64 -> QUANT64)", build_fibonacci, NULL, NULL},
    {"EXAMPLE_FIBONACCI accepted (float32 output)", build_fibonacci, fib_float_output, NULL},
    {"EXAMPLE_FIBONACCI accepted (float32 n)", build_fibonacci, fib_float_input, NULL},
    {"QUANT64 without extension data", build_fibonacci, fib_no_blob, "needs its extension data"},
    {"QUANT64 extension data of 12 bytes", build_fibonacci, fib_short_blob, "extension data of 12 bytes, not 16"},
    {"QUANT64 scale 0", build_fibonacci, fib_zero_scale, "must be finite and > 0"},
    {"QUANT64 scale NaN", build_fibonacci, fib_nan_scale, "must be finite and > 0"},
    {"QUANT64 operand scale", build_fibonacci, fib_operand_scale, "scale and zeroPoint must be 0"},
    {"EXAMPLE_INT64 with extension data", build_fibonacci, fib_int64_blob, "takes no extension data"},
    {"EXAMPLE_INT64 with dimensions", build_fibonacci, fib_int64_dims, "a scalar has no dimensions"},
    {"unknown operand type in a known extension", build_fibonacci, fib_unknown_operand, "the extension has no operand type 7"},
    {"unknown operation in a known extension", build_fibonacci, fib_unknown_operation, "the extension has no operation 3"},
    {"prefix not in the table", build_fibonacci, fib_no_prefix, "has no prefix in extensionNameToPrefix"},
    {"table not one-to-one (prefix twice)", build_fibonacci, fib_prefix_twice, "prefix 32513 is used twice"},
    {"table not one-to-one (name twice)", build_fibonacci, fib_name_twice, "is listed twice"},
    {"table prefix 0", build_fibonacci, fib_prefix_zero, "has prefix 0"},
    {"table name empty", build_fibonacci, fib_empty_name, "has no name"},
    {"EXAMPLE_FIBONACCI: INT32 n", build_fibonacci, fib_int32_input, "n must be EXAMPLE_INT64 or TENSOR_FLOAT32"},
    {"EXAMPLE_FIBONACCI: float32 n of 2 elements", build_fibonacci, fib_float_input_two, "must hold exactly one element"},
    {"EXAMPLE_FIBONACCI: INT32 output", build_fibonacci, fib_int32_output, "the output must be TENSOR_FLOAT32 or"},
    {"EXAMPLE_FIBONACCI: output of rank 2", build_fibonacci, fib_output_rank_2, "the output has rank 2, not 1"},
    {"EXAMPLE_FIBONACCI: 2 inputs", build_fibonacci, fib_two_inputs, "takes 1 inputs and 1 outputs"},
    {"EXAMPLE_FIBONACCI: n = 0", build_fibonacci, fib_n_zero, "n = 0 is not an integer in [1, 92]"},
    {"EXAMPLE_FIBONACCI: n = 93", build_fibonacci, fib_n_93, "n = 93 is not an integer in [1, 92]"},
    {"EXAMPLE_FIBONACCI: n = 2.5", build_fibonacci, fib_n_fraction, "n = 2.5 is not an integer"},
    {"EXAMPLE_FIBONACCI: output dims", build_fibonacci, fib_output_dims,
     "com.example.fibonacci:EXAMPLE_FIBONACCI: output dimension 0 is 11, expected 10"},
    {"BATCH_MATMUL accepted", build_batch_matmul, NULL, NULL},
    {"BATCH_MATMUL accepted (adj_y)", build_batch_matmul, bm_adj_y, NULL},
    {"BATCH_MATMUL accepted (broadcast)", build_batch_matmul, bm_broadcast, NULL},
    {"BATCH_MATMUL: 3 inputs", build_batch_matmul, bm_three_inputs, "takes 4 inputs and 1 outputs"},
    {"BATCH_MATMUL: int32", build_batch_matmul, bm_int32, "TENSOR_INT32 operands of rank 3 and 2 are not allowed"},
    {"BATCH_MATMUL: mixed types", build_batch_matmul, bm_mixed_types, "y must be TENSOR_FLOAT32"},
    {"BATCH_MATMUL: rank 1", build_batch_matmul, bm_rank_1, "of rank 3 and 1 are not allowed"},
    {"BATCH_MATMUL: rank 5", build_batch_matmul, bm_rank_5, "of rank 5 and 2 are not allowed"},
    {"BATCH_MATMUL: INT32 adj_x", build_batch_matmul, bm_adj_int, "adj_x must be BOOL"},
    {"BATCH_MATMUL: float16 output", build_batch_matmul, bm_output_f16, "the output must be TENSOR_FLOAT32"},
    {"BATCH_MATMUL: K mismatch", build_batch_matmul, bm_k_mismatch, "K 4 and 5"},
    {"BATCH_MATMUL: batch mismatch", build_batch_matmul, bm_batch_mismatch, "batches that do not broadcast"},
    {"BATCH_MATMUL: output dims", build_batch_matmul, bm_output_dims,
     "org.vknn.transformer:BATCH_MATMUL: output dimension 2 is 6, expected 5"},
    {"LAYER_NORMALIZATION accepted", build_layer_norm, NULL, NULL},
    {"LAYER_NORMALIZATION accepted (no gamma, beta)", build_layer_norm, ln_no_affine, NULL},
    {"LAYER_NORMALIZATION: x omitted", build_layer_norm, ln_omit_x, "input 0 is omitted but not optional"},
    {"LAYER_NORMALIZATION: axis omitted", build_layer_norm, ln_omit_axis, "input 3 is omitted but not optional"},
    {"LAYER_NORMALIZATION: 4 inputs", build_layer_norm, ln_four_inputs, "takes 5 inputs and 1 outputs"},
    {"LAYER_NORMALIZATION: int32", build_layer_norm, ln_int32, "TENSOR_INT32 of rank 3 is not allowed"},
    {"LAYER_NORMALIZATION: rank 5", build_layer_norm, ln_rank_5, "of rank 5 is not allowed"},
    {"LAYER_NORMALIZATION: float16 gamma", build_layer_norm, ln_gamma_f16, "gamma must be TENSOR_FLOAT32"},
    {"LAYER_NORMALIZATION: gamma of rank 2", build_layer_norm, ln_gamma_rank_2, "gamma must have rank 1"},
    {"LAYER_NORMALIZATION: gamma of 7", build_layer_norm, ln_gamma_length, "gamma has 7 values, the axis 8"},
    {"LAYER_NORMALIZATION: FLOAT32 axis", build_layer_norm, ln_axis_float, "axis must be INT32"},
    {"LAYER_NORMALIZATION: axis 3", build_layer_norm, ln_axis_range,
     "org.vknn.transformer:LAYER_NORMALIZATION: axis 3 is not in [-3, 3)"},
    {"LAYER_NORMALIZATION: FLOAT16 epsilon", build_layer_norm, ln_epsilon_f16, "epsilon must be FLOAT32"},
    {"LAYER_NORMALIZATION: epsilon 0", build_layer_norm, ln_epsilon_zero, "epsilon 0 is not finite and > 0"},
    {"LAYER_NORMALIZATION: float16 output", build_layer_norm, ln_output_f16, "the output must be TENSOR_FLOAT32"},
    {"GELU accepted (exact)", build_gelu, NULL, NULL},
    {"GELU accepted (tanh)", build_gelu, gelu_tanh, NULL},
    {"GELU: 1 input", build_gelu, gelu_one_input, "takes 2 inputs and 1 outputs"},
    {"GELU: quant8", build_gelu, gelu_quant, "GELU: TENSOR_QUANT8_ASYMM of rank 2 is not allowed"},
    {"GELU: INT32 approximate", build_gelu, gelu_int_form, "approximate must be BOOL"},
    {"GELU: float16 output", build_gelu, gelu_output_f16, "is not allowed"},
    {"ATTENTION accepted", build_attention, NULL, NULL},
    {"ATTENTION accepted (no mask)", build_attention, att_no_mask, NULL},
    {"ATTENTION accepted (mask broadcast)", build_attention, att_mask_broadcast, NULL},
    {"ATTENTION: value omitted", build_attention, att_omit_value, "input 2 is omitted but not optional"},
    {"ATTENTION: 4 inputs", build_attention, att_four_inputs, "takes 5 inputs and 1 outputs"},
    {"ATTENTION: int32", build_attention, att_int32, "TENSOR_INT32 is not allowed"},
    {"ATTENTION: float16 key", build_attention, att_key_f16, "key must be TENSOR_FLOAT32"},
    {"ATTENTION: key of rank 1", build_attention, att_key_rank_1, "key has rank 1"},
    {"ATTENTION: float16 mask", build_attention, att_mask_f16, "mask must be TENSOR_FLOAT32"},
    {"ATTENTION: INT32 scale", build_attention, att_scale_int, "scale must be FLOAT32"},
    {"ATTENTION: infinite scale", build_attention, att_scale_inf, "the scale is not finite"},
    {"ATTENTION: float16 output", build_attention, att_output_f16, "the output must be TENSOR_FLOAT32"},
    {"ATTENTION: key depth", build_attention, att_key_depth, "key must be [..., Sk, D]"},
    {"ATTENTION: value keys", build_attention, att_value_keys, "value [..., Sk, Dv]"},
    {"ATTENTION: batch", build_attention, att_batch, "the same batch dimensions"},
    {"ATTENTION: ranks", build_attention, att_rank_mismatch, "must have one rank"},
    {"ATTENTION: mask shape", build_attention, att_mask_shape, "the mask is not [..., Sq, Sk]"},
    {"ATTENTION: mask batch", build_attention, att_mask_batch, "does not broadcast to the query's"},
    {"ATTENTION: mask rank", build_attention, att_mask_rank, "the mask's rank is not 2 to the query's"},
    {"ATTENTION: output dims", build_attention, att_output_dims,
     "org.vknn.transformer:ATTENTION: output dimension 2 is 5, expected 6"},
};

/* ---- running -------------------------------------------------------------- */

static ctx *build_row(const row *r) {
  ctx *c = calloc(1, sizeof(*c));
  assert_non_null(c);
  mb_init(&c->b);
  r->build(c);
  if (r->mutate) r->mutate(c);
  return c;
}

static void test_row(void **state) {
  const row *r = *state;
  ctx *c = build_row(r);
  model_runner_expect_rule(runner_group_fixture, finish(c), r->name, r->expected_log);
  free(c);
}

/* Valid, reported unsupported, refused by prepare with GENERAL_FAILURE. */
static void expect_unsupported(const char *name, const vknn_model *model) {
  runner_fixture *f = runner_group_fixture;
  bool supported[1] = {true};
  vknn_status s = vknn_device_get_supported_operations(f->device, model, supported, 1);
  if (s != VKNN_STATUS_NONE) fail_msg("%s: support query %s (%s)", name, vknn_status_name(s), f->log.last);
  if (supported[0]) fail_msg("%s: supported", name);
  vknn_prepared_model *pm = NULL;
  s = vknn_device_prepare_model(f->device, model, VKNN_PREFER_SUSTAINED_SPEED,
                                VKNN_PRIORITY_MEDIUM, NULL, &pm);
  if (pm != NULL) vknn_prepared_model_release(pm);
  if (s != VKNN_STATUS_GENERAL_FAILURE) fail_msg("%s: prepare gave %s", name, vknn_status_name(s));
}

/* An extension the driver does not know: its types and operations are
 * valid (the driver cannot judge them) and unsupported. Its operand, a
 * model input, has a type whose code the driver's extensions know. */
static void test_unknown_extension(void **state) {
  (void)state;
  ctx *c = calloc(1, sizeof(*c));
  assert_non_null(c);
  mb_init(&c->b);
  name_extension(c, "com.example.unknown", OTHER_PREFIX);
  const uint32_t dims[1] = {4};
  c->op_type = VKNN_EXTENSION_TYPE(OTHER_PREFIX, 0);
  c->in[0] = mb_input(&c->b, VKNN_EXTENSION_TYPE(OTHER_PREFIX, 1), dims, 1);
  c->in_count = 1;
  c->out[0] = mb_output(&c->b, F32, dims, 1);
  c->out_count = 1;
  expect_unsupported("an unknown extension", finish(c));
  free(c);
}

static void test_supported_extensions(void **state) {
  (void)state;
  const vknn_extension *e = NULL;
  uint32_t count = 0;
  assert_int_equal(vknn_device_get_supported_extensions(NULL, &e, &count), VKNN_STATUS_INVALID_ARGUMENT);
  assert_int_equal(vknn_device_get_supported_extensions(runner_group_fixture->device, NULL, &count),
                   VKNN_STATUS_INVALID_ARGUMENT);
  assert_int_equal(vknn_device_get_supported_extensions(runner_group_fixture->device, &e, &count),
                   VKNN_STATUS_NONE);
  /* lavapipe has 64-bit integers and floats: both extensions. */
  assert_int_equal(count, 2);
  assert_string_equal(e[0].name, VKNN_FIBONACCI_EXTENSION_NAME);
  assert_int_equal(e[0].operand_type_count, 2);
  assert_int_equal(e[0].operand_types[0].type, VKNN_EXAMPLE_INT64);
  assert_false(e[0].operand_types[0].is_tensor);
  assert_int_equal(e[0].operand_types[0].byte_size, 8);
  assert_int_equal(e[0].operand_types[1].type, VKNN_EXAMPLE_TENSOR_QUANT64_ASYMM);
  assert_true(e[0].operand_types[1].is_tensor);
  assert_int_equal(e[0].operand_types[1].byte_size, 8);
  assert_string_equal(e[1].name, VKNN_TRANSFORMER_EXTENSION_NAME);
  assert_int_equal(e[1].operand_type_count, 0);
  /* Without 64-bit arithmetic, the fibonacci extension is not offered. */
  const vknn_extension *rest = vknn_ext_supported(false, &count);
  assert_int_equal(count, 1);
  assert_string_equal(rest[0].name, VKNN_TRANSFORMER_EXTENSION_NAME);
}

/* Decoding through the table: the same extension under two prefixes gives
 * the same driver type; what is not in the table, not known, or not a type
 * of a known extension is told apart. */
static void test_decoding(void **state) {
  (void)state;
  const vknn_extension_prefix names[3] = {{VKNN_FIBONACCI_EXTENSION_NAME, 5},
                                          {VKNN_TRANSFORMER_EXTENSION_NAME, 9},
                                          {"com.example.unknown", 7}};
  const vknn_extension_prefix other[1] = {{VKNN_FIBONACCI_EXTENSION_NAME, 0x7f00}};
  vknn_model a = {.extension_name_to_prefix = names, .extension_name_to_prefix_count = 3};
  vknn_model b = {.extension_name_to_prefix = other, .extension_name_to_prefix_count = 1};
  int32_t t = -1, u = -1;
  assert_int_equal(vknn_ext_decode_operand(&a, VKNN_EXTENSION_TYPE(5, 1), &t), VKNN_EXT_DECODED);
  assert_int_equal(vknn_ext_decode_operand(&b, VKNN_EXTENSION_TYPE(0x7f00, 1), &u), VKNN_EXT_DECODED);
  assert_int_equal(t, VKNN_OPERAND_EXAMPLE_TENSOR_QUANT64_ASYMM);
  assert_int_equal(u, t);
  assert_int_equal(vknn_ext_decode_operation(&a, VKNN_EXTENSION_TYPE(9, 3), &t), VKNN_EXT_DECODED);
  assert_int_equal(t, VKNN_OPERATION_TRANSFORMER_ATTENTION);
  assert_int_equal(vknn_ext_decode_operand(&a, VKNN_EXTENSION_TYPE(9, 0), &t), VKNN_EXT_UNKNOWN_CODE);
  assert_int_equal(vknn_ext_decode_operation(&a, VKNN_EXTENSION_TYPE(5, 1), &t), VKNN_EXT_UNKNOWN_CODE);
  assert_int_equal(vknn_ext_decode_operand(&a, VKNN_EXTENSION_TYPE(6, 0), &t), VKNN_EXT_NO_PREFIX);
  assert_int_equal(vknn_ext_decode_operand(&a, VKNN_EXTENSION_TYPE(7, 1), &t), VKNN_EXT_FOREIGN);
  assert_int_equal(VKNN_EXTENSION_PREFIX(t), VKNN_EXT_PREFIX_FOREIGN);
  assert_int_equal(vknn_ext_decode_operand(&a, VKNN_OPERAND_TENSOR_FLOAT32, &t), VKNN_EXT_NOT_EXTENSION);
  assert_int_equal(t, VKNN_OPERAND_TENSOR_FLOAT32);
  /* A model's type that equals a driver type is decoded by its own table:
   * here the prefix of EXAMPLE_INT64 names the transformer extension, which
   * has no operand types. */
  const vknn_extension_prefix swapped[1] = {{VKNN_TRANSFORMER_EXTENSION_NAME,
                                             (uint16_t)VKNN_EXTENSION_PREFIX(VKNN_OPERAND_EXAMPLE_INT64)}};
  vknn_model s = {.extension_name_to_prefix = swapped, .extension_name_to_prefix_count = 1};
  assert_int_equal(vknn_ext_decode_operand(&s, VKNN_OPERAND_EXAMPLE_INT64, &t), VKNN_EXT_UNKNOWN_CODE);
}

/* n given per execution: each value compiles once; an n out of range fails
 * that execution with INVALID_ARGUMENT, and the next good one runs. */
static void test_fibonacci_n_input(void **state) {
  (void)state;
  runner_fixture *f = runner_group_fixture;
  ctx *c = calloc(1, sizeof(*c));
  assert_non_null(c);
  mb_init(&c->b);
  name_extension(c, VKNN_FIBONACCI_EXTENSION_NAME, FIB_PREFIX);
  c->op_type = FIB_OP;
  const uint32_t unknown[1] = {0};
  c->in[0] = mb_input(&c->b, INT64_TYPE, NULL, 0);
  c->in_count = 1;
  c->out[0] = mb_output(&c->b, F32, unknown, 1);
  c->out_count = 1;
  finish(c);
  vknn_prepared_model *pm = model_runner_prepare(f->device, &f->log, &c->b);
  float result[92] = {0};
  vknn_output_shape shape[1];
  for (int64_t n = 1; n <= 92; n += 13) {
    buffer_arg in = {&n, NULL, sizeof(n)}, out = {NULL, result, n * sizeof(float)};
    assert_int_equal(model_runner_execute(pm, &c->b, &in, &out, shape), VKNN_STATUS_NONE);
    assert_int_equal(shape[0].dimensions[0], (uint32_t)n);
    double a = 1, b = 1;
    for (int64_t i = 0; i < n; ++i, b = a + b, a = b - a)
      assert_true(fabs(result[i] - a) <= a * 1e-7);
  }
  const int64_t bad[3] = {0, 93, -4};
  for (int i = 0; i < 3; ++i) {
    buffer_arg in = {&bad[i], NULL, sizeof(bad[i])}, out = {NULL, result, sizeof(result)};
    assert_int_equal(model_runner_execute(pm, &c->b, &in, &out, shape), VKNN_STATUS_INVALID_ARGUMENT);
  }
  vknn_prepared_model_release(pm);
  free(c);
}

/* GELU inside the branches of an IF: the segments the control flow is cut
 * into decode the extension through the model's table (exact form in the
 * then branch, tanh form in the else branch). */
static void test_gelu_in_if(void **state) {
  (void)state;
  runner_fixture *f = runner_group_fixture;
  model_builder *b = calloc(3, sizeof(model_builder));
  assert_non_null(b);
  const uint32_t one[1] = {1}, four[1] = {4};
  for (int i = 0; i < 3; ++i) mb_init(&b[i]);
  uint32_t c = mb_input(&b[0], VKNN_OPERAND_TENSOR_BOOL8, one, 1), x = mb_input(&b[0], F32, four, 1);
  uint32_t out = mb_output(&b[0], F32, four, 1);
  mb_operation(&b[0], VKNN_OPERATION_IF,
               (uint32_t[]){c, mb_subgraph(&b[0], 0), mb_subgraph(&b[0], 1), x}, 4, &out, 1);
  for (uint8_t s = 0; s < 2; ++s) {
    model_builder *branch = &b[1 + s];
    branch->values_owner = &b[0];
    uint32_t bx = mb_input(branch, F32, four, 1), bo = mb_output(branch, F32, four, 1);
    uint32_t form = mb_const_tensor(branch, VKNN_OPERAND_BOOL, NULL, 0, &s, 1);
    mb_operation(branch, TRANSFORMER_OP(GELU), (uint32_t[]){bx, form}, 2, &bo, 1);
  }
  const vknn_extension_prefix names[1] = {{VKNN_TRANSFORMER_EXTENSION_NAME, TRANSFORMER_PREFIX}};
  b[0].extension_names = names;
  b[0].extension_name_count = 1;
  vknn_subgraph referenced[2];
  const vknn_model *model = mb_finish_referencing(&b[0], &b[1], 2, referenced);
  vknn_prepared_model *pm = NULL;
  assert_int_equal(vknn_device_prepare_model(f->device, model, VKNN_PREFER_FAST_SINGLE_ANSWER,
                                             VKNN_PRIORITY_MEDIUM, NULL, &pm), VKNN_STATUS_NONE);
  shared_memory pool;
  assert_int_equal(shared_memory_create(&pool, 256), 0);
  const float xs[4] = {-3.f, -0.5f, 0.25f, 2.f};
  memcpy(pool.data + 64, xs, sizeof(xs));
  vknn_request_argument in[2] = {{.location = {0, 0, 1}}, {.location = {0, 64, 16}}};
  vknn_request_argument res[1] = {{.location = {0, 128, 16}}};
  vknn_request_pool pools[1] = {{.kind = VKNN_REQUEST_POOL_MEMORY, .memory = pool.memory}};
  vknn_request request = {in, 2, res, 1, pools, 1};
  for (uint8_t exact = 0; exact < 2; ++exact) {
    pool.data[0] = exact;
    vknn_output_shape shape[1];
    assert_int_equal(vknn_prepared_model_execute(pm, &request, VKNN_MEASURE_TIMING_NO, NULL, NULL,
                                                 shape, 1, NULL), VKNN_STATUS_NONE);
    const float *y = (const float *)(pool.data + 128);
    for (int i = 0; i < 4; ++i) {
      double v = xs[i];
      double want = exact ? 0.5 * v * erfc(-v / sqrt(2.0))
                          : 0.5 * v * (1.0 + tanh(sqrt(2.0 / M_PI) * (v + 0.044715 * v * v * v)));
      if (fabs(y[i] - want) > 1e-5 + 1e-5 * fabs(want))
        fail_msg("GELU (%s) of %g: %.9g, expected %.9g", exact ? "exact" : "tanh", v, y[i], want);
    }
  }
  shared_memory_destroy(&pool);
  vknn_prepared_model_release(pm);
  free(b);
}

int main(void) {
  enum { ROWS = sizeof(rows) / sizeof(rows[0]) };
  struct CMUnitTest tests[ROWS + 5];
  for (size_t i = 0; i < ROWS; ++i)
    tests[i] = (struct CMUnitTest){rows[i].name, test_row, NULL, NULL, (void *)&rows[i]};
  tests[ROWS] = (struct CMUnitTest)cmocka_unit_test(test_unknown_extension);
  tests[ROWS + 1] = (struct CMUnitTest)cmocka_unit_test(test_supported_extensions);
  tests[ROWS + 2] = (struct CMUnitTest)cmocka_unit_test(test_decoding);
  tests[ROWS + 3] = (struct CMUnitTest)cmocka_unit_test(test_fibonacci_n_input);
  tests[ROWS + 4] = (struct CMUnitTest)cmocka_unit_test(test_gelu_in_if);
  return _cmocka_run_group_tests("extensions", tests, ROWS + 5, runner_group_setup, runner_group_teardown);
}
