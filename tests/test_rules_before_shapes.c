/* An operation's rules are checked at prepare even where an input's shape
 * is left to the execution: for every operation outside the LSTM, detection
 * and control-flow families (their own tests cover them), and the
 * convolutions' and pools' shape relations (their parameters' rules:
 * test_op_rules), a valid single-operation model with its data input's first
 * dimension known or left to the execution (0) is accepted by the support
 * query and prepare (so is one whose optional operands an execution may omit,
 * where it may still run; so is one whose first dimension is left to the
 * execution and whose outputs are declared in full, as an execution giving
 * it would produce them), and
 *   - the same model with one constant parameter, or one relation between
 *     dimensions the model gives, broken as NNAPI's documentation (or this
 *     driver, kind 'D') forbids, is refused with INVALID_ARGUMENT by both,
 *     in both modes (the operations used to wait for the shape before
 *     reading the parameter, and refused it only at the first execution);
 *   - a declared output the known dimensions contradict is refused by both
 *     in both modes, for the families that check it before the shapes;
 *   - every required input given as omitted (NO_VALUE, same type) is
 *     refused with INVALID_ARGUMENT by both, in both modes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>

#include "support/model_builder.h"
#include "support/model_runner.h"

#include "vknn/extensions/fibonacci.h"
#include "vknn/extensions/transformer.h"
#include "vknn/vknn.h"

#define F32 VKNN_OPERAND_TENSOR_FLOAT32
#define I32 VKNN_OPERAND_TENSOR_INT32
#define Q8 VKNN_OPERAND_TENSOR_QUANT8_ASYMM
#define B8 VKNN_OPERAND_TENSOR_BOOL8
#define OP(name) VKNN_OPERATION_##name

#define TRANSFORMER_PREFIX ((uint16_t)0x21)
#define FIB_PREFIX ((uint16_t)0x23)

#define DIMS(...) ((const uint32_t[]){__VA_ARGS__}), \
                  ((uint32_t)(sizeof((uint32_t[]){__VA_ARGS__}) / sizeof(uint32_t)))
#define VALS(...) ((const int32_t[]){__VA_ARGS__}), \
                  ((uint32_t)(sizeof((int32_t[]){__VA_ARGS__}) / sizeof(int32_t)))

typedef struct pc {
  model_builder b;
  bool unknown;
  int32_t op_type;
  uint32_t in[16], in_count;
  uint32_t out[4], out_count;
  uint32_t optional; /* bit k: input k may be omitted (NNAPI's optional tensors) */
  vknn_extension_prefix names[2];
  uint32_t name_count;
} pc;

/* The data input's first dimension: n, or 0 (unknown) in the unknown mode. */
static uint32_t U(const pc *c, uint32_t n) { return c->unknown ? 0u : n; }

static uint32_t input(pc *c, int32_t type, const uint32_t *dims, uint32_t rank) {
  uint32_t i = mb_input(&c->b, type, dims, rank);
  if (type == Q8) c->b.operands[i].scale = 0.5f;
  return i;
}
static uint32_t output(pc *c, int32_t type, const uint32_t *dims, uint32_t rank) {
  uint32_t i = mb_output(&c->b, type, dims, rank);
  if (type == Q8) c->b.operands[i].scale = 0.5f;
  return i;
}
static uint32_t i32(pc *c, int32_t v) { return mb_const_i32(&c->b, v); }
static uint32_t f32(pc *c, float v) {
  return mb_const_tensor(&c->b, VKNN_OPERAND_FLOAT32, NULL, 0, &v, sizeof(v));
}
static uint32_t b8(pc *c, bool v) {
  uint8_t x = v;
  return mb_const_tensor(&c->b, VKNN_OPERAND_BOOL, NULL, 0, &x, 1);
}
static uint32_t vec(pc *c, const int32_t *v, uint32_t n) {
  return mb_const_tensor(&c->b, I32, &n, 1, v, n * sizeof(int32_t));
}
static uint32_t ctensor(pc *c, int32_t type, const uint32_t *dims, uint32_t rank, const void *data,
                        size_t size) {
  return mb_const_tensor(&c->b, type, dims, rank, data, size);
}
static uint32_t zeros(pc *c, int32_t type, const uint32_t *dims, uint32_t rank) {
  return mb_const_zeros(&c->b, type, dims, rank);
}
static uint32_t omitted(pc *c, int32_t type, const uint32_t *dims, uint32_t rank) {
  uint32_t i = mb_temporary(&c->b, type, dims, rank);
  c->b.operands[i].lifetime = VKNN_LIFETIME_NO_VALUE;
  return i;
}
static void set_dims(pc *c, uint32_t operand, const uint32_t *dims, uint32_t rank) {
  memcpy(c->b.dims[operand], dims, rank * sizeof(uint32_t));
  c->b.operands[operand].dimension_count = rank;
}
static void op(pc *c, int32_t type) { c->op_type = type; }
static void transformer(pc *c, uint32_t code) {
  c->names[c->name_count++] = (vknn_extension_prefix){VKNN_TRANSFORMER_EXTENSION_NAME, TRANSFORMER_PREFIX};
  c->op_type = VKNN_EXTENSION_TYPE(TRANSFORMER_PREFIX, code);
}
#define INS(...)                                                         \
  do {                                                                   \
    const uint32_t ins_[] = {__VA_ARGS__};                               \
    memcpy(c->in, ins_, sizeof(ins_));                                   \
    c->in_count = (uint32_t)(sizeof(ins_) / sizeof(uint32_t));           \
  } while (0)
#define OUTS(...)                                                        \
  do {                                                                   \
    const uint32_t outs_[] = {__VA_ARGS__};                              \
    memcpy(c->out, outs_, sizeof(outs_));                                \
    c->out_count = (uint32_t)(sizeof(outs_) / sizeof(uint32_t));        \
  } while (0)

/* ---- builders: valid models -------------------------------------------- */

static void bin_act(pc *c, int32_t t) {
  op(c, t);
  INS(input(c, F32, DIMS(U(c, 2), 3)), input(c, F32, DIMS(1, 3)), i32(c, 0));
  OUTS(output(c, F32, DIMS(U(c, 2), 3)));
}
static void b_add(pc *c) { bin_act(c, OP(ADD)); }
static void b_sub(pc *c) { bin_act(c, OP(SUB)); }
static void b_mul(pc *c) { bin_act(c, OP(MUL)); }
static void b_div(pc *c) { bin_act(c, OP(DIV)); }
static void bin2(pc *c, int32_t t, int32_t type, int32_t out_type) {
  op(c, t);
  INS(input(c, type, DIMS(U(c, 2), 3)), input(c, type, DIMS(1, 3)));
  OUTS(output(c, out_type, DIMS(U(c, 2), 3)));
}
static void b_maximum(pc *c) { bin2(c, OP(MAXIMUM), F32, F32); }
static void b_minimum(pc *c) { bin2(c, OP(MINIMUM), F32, F32); }
static void b_pow(pc *c) { bin2(c, OP(POW), F32, F32); }
static void b_prelu(pc *c) { bin2(c, OP(PRELU), F32, F32); }
static void b_equal(pc *c) { bin2(c, OP(EQUAL), F32, B8); }
static void b_not_equal(pc *c) { bin2(c, OP(NOT_EQUAL), F32, B8); }
static void b_less(pc *c) { bin2(c, OP(LESS), F32, B8); }
static void b_less_equal(pc *c) { bin2(c, OP(LESS_EQUAL), F32, B8); }
static void b_greater(pc *c) { bin2(c, OP(GREATER), F32, B8); }
static void b_greater_equal(pc *c) { bin2(c, OP(GREATER_EQUAL), F32, B8); }
static void b_logical_and(pc *c) { bin2(c, OP(LOGICAL_AND), B8, B8); }
static void b_logical_or(pc *c) { bin2(c, OP(LOGICAL_OR), B8, B8); }
static void unary(pc *c, int32_t t, int32_t type, int32_t out_type) {
  op(c, t);
  INS(input(c, type, DIMS(U(c, 2), 3)));
  OUTS(output(c, out_type, DIMS(U(c, 2), 3)));
}
static void b_logical_not(pc *c) { unary(c, OP(LOGICAL_NOT), B8, B8); }
static void b_relu(pc *c) { unary(c, OP(RELU), F32, F32); }
static void b_relu1(pc *c) { unary(c, OP(RELU1), F32, F32); }
static void b_relu6(pc *c) { unary(c, OP(RELU6), F32, F32); }
static void b_logistic(pc *c) { unary(c, OP(LOGISTIC), F32, F32); }
static void b_tanh(pc *c) { unary(c, OP(TANH), F32, F32); }
static void b_abs(pc *c) { unary(c, OP(ABS), F32, F32); }
static void b_exp(pc *c) { unary(c, OP(EXP), F32, F32); }
static void b_log(pc *c) { unary(c, OP(LOG), F32, F32); }
static void b_sin(pc *c) { unary(c, OP(SIN), F32, F32); }
static void b_sqrt(pc *c) { unary(c, OP(SQRT), F32, F32); }
static void b_rsqrt(pc *c) { unary(c, OP(RSQRT), F32, F32); }
static void b_neg(pc *c) { unary(c, OP(NEG), F32, F32); }
static void b_floor(pc *c) { unary(c, OP(FLOOR), F32, F32); }
static void b_hard_swish(pc *c) { unary(c, OP(HARD_SWISH), F32, F32); }
static void b_cast(pc *c) { unary(c, OP(CAST), F32, I32); }
static void b_quantize(pc *c) { unary(c, OP(QUANTIZE), F32, Q8); }
static void b_dequantize(pc *c) { unary(c, OP(DEQUANTIZE), Q8, F32); }
static void b_elu(pc *c) {
  op(c, OP(ELU));
  INS(input(c, F32, DIMS(U(c, 2), 3)), f32(c, 1.f));
  OUTS(output(c, F32, DIMS(U(c, 2), 3)));
}

static void b_fully_connected(pc *c) {
  op(c, OP(FULLY_CONNECTED));
  INS(input(c, F32, DIMS(U(c, 2), 4)), zeros(c, F32, DIMS(3, 4)), zeros(c, F32, DIMS(3)), i32(c, 0));
  OUTS(output(c, F32, DIMS(U(c, 2), 3)));
}
static void softmax_like(pc *c, int32_t t) {
  op(c, t);
  INS(input(c, F32, DIMS(U(c, 2), 5)), f32(c, 1.f), i32(c, -1));
  OUTS(output(c, F32, DIMS(U(c, 2), 5)));
}
static void b_softmax(pc *c) { softmax_like(c, OP(SOFTMAX)); }
static void b_log_softmax(pc *c) { softmax_like(c, OP(LOG_SOFTMAX)); }
static void b_l2_norm(pc *c) {
  op(c, OP(L2_NORMALIZATION));
  INS(input(c, F32, DIMS(U(c, 2), 4)), i32(c, -1));
  OUTS(output(c, F32, DIMS(U(c, 2), 4)));
}
static void b_lrn(pc *c) {
  op(c, OP(LOCAL_RESPONSE_NORMALIZATION));
  INS(input(c, F32, DIMS(U(c, 2), 2, 2, 4)), i32(c, 1), f32(c, 1.f), f32(c, 1.f), f32(c, 0.5f), i32(c, -1));
  OUTS(output(c, F32, DIMS(U(c, 2), 2, 2, 4)));
}
static void b_instance_norm(pc *c) {
  op(c, OP(INSTANCE_NORMALIZATION));
  INS(input(c, F32, DIMS(U(c, 2), 2, 2, 3)), f32(c, 1.f), f32(c, 0.f), f32(c, 1e-3f), b8(c, false));
  OUTS(output(c, F32, DIMS(U(c, 2), 2, 2, 3)));
}
static void b_concat(pc *c) {
  op(c, OP(CONCATENATION));
  INS(input(c, F32, DIMS(U(c, 2), 3)), input(c, F32, DIMS(U(c, 2), 3)), i32(c, 1));
  OUTS(output(c, F32, DIMS(U(c, 2), 6)));
}
static void b_reshape(pc *c) {
  op(c, OP(RESHAPE));
  INS(input(c, F32, DIMS(U(c, 2), 3)), vec(c, VALS(-1, 3)));
  OUTS(output(c, F32, DIMS(U(c, 2), 3)));
}
static void b_squeeze(pc *c) {
  op(c, OP(SQUEEZE));
  INS(input(c, F32, DIMS(U(c, 2), 1, 3)), vec(c, VALS(1)));
  OUTS(output(c, F32, DIMS(U(c, 2), 3)));
  c->optional = 1u << 1;
}
static void b_expand_dims(pc *c) {
  op(c, OP(EXPAND_DIMS));
  INS(input(c, F32, DIMS(U(c, 2), 3)), i32(c, 1));
  OUTS(output(c, F32, DIMS(U(c, 2), 1, 3)));
}
static void b_transpose(pc *c) {
  op(c, OP(TRANSPOSE));
  INS(input(c, F32, DIMS(U(c, 2), 3)), vec(c, VALS(1, 0)));
  OUTS(output(c, F32, DIMS(3, U(c, 2))));
  c->optional = 1u << 1;
}
/* perm omitted: the axes reversed. */
static void b_transpose_reversed(pc *c) {
  b_transpose(c);
  c->in[1] = omitted(c, I32, DIMS(2));
}
/* Axes omitted: every axis of size 1 dropped, the first too where an
 * execution gives it 1 (as the known mode does). */
static void b_squeeze_all(pc *c) {
  op(c, OP(SQUEEZE));
  INS(input(c, F32, DIMS(U(c, 1), 1, 3)), omitted(c, I32, DIMS(1)));
  OUTS(output(c, F32, DIMS(3)));
  c->optional = 1u << 1;
}
/* The inferred dimension (-1) the one the unknown first dimension decides. */
static void b_reshape_inferred_last(pc *c) {
  op(c, OP(RESHAPE));
  INS(input(c, F32, DIMS(U(c, 2), 3)), vec(c, VALS(3, -1)));
  OUTS(output(c, F32, DIMS(3, U(c, 2))));
}
/* A size given on the unknown axis: the output's dimension is known. */
static void b_slice_size_on_unknown(pc *c) {
  op(c, OP(SLICE));
  INS(input(c, F32, DIMS(U(c, 2), 3)), vec(c, VALS(0, 0)), vec(c, VALS(1, 2)));
  OUTS(output(c, F32, DIMS(1, 2)));
}
/* The unknown axis shrunk: an output of rank 1. */
static void b_strided_slice_shrink_unknown(pc *c) {
  op(c, OP(STRIDED_SLICE));
  INS(input(c, F32, DIMS(U(c, 2), 3)), vec(c, VALS(0, 0)), vec(c, VALS(1, 3)), vec(c, VALS(1, 1)),
      i32(c, 0), i32(c, 0), i32(c, 1));
  OUTS(output(c, F32, DIMS(3)));
}
/* The unknown axis padded. */
static void b_pad_unknown_axis(pc *c) {
  op(c, OP(PAD));
  INS(input(c, F32, DIMS(U(c, 3), 3)), ctensor(c, I32, DIMS(2, 2), (const int32_t[]){1, 1, 1, 1}, 16));
  OUTS(output(c, F32, DIMS(U(c, 5), 5)));
}
static void b_slice(pc *c) {
  op(c, OP(SLICE));
  INS(input(c, F32, DIMS(U(c, 2), 3)), vec(c, VALS(0, 0)), vec(c, VALS(-1, 2)));
  OUTS(output(c, F32, DIMS(U(c, 2), 2)));
}
static void b_strided_slice(pc *c) {
  op(c, OP(STRIDED_SLICE));
  INS(input(c, F32, DIMS(U(c, 2), 3)), vec(c, VALS(0, 0)), vec(c, VALS(0, 3)), vec(c, VALS(1, 1)),
      i32(c, 1), i32(c, 1), i32(c, 0));
  OUTS(output(c, F32, DIMS(U(c, 2), 3)));
}
static void b_pad(pc *c) {
  op(c, OP(PAD));
  INS(input(c, F32, DIMS(U(c, 2), 3)), ctensor(c, I32, DIMS(2, 2), (const int32_t[]){0, 0, 1, 1}, 16));
  OUTS(output(c, F32, DIMS(U(c, 2), 5)));
}
static void b_pad_v2(pc *c) {
  op(c, OP(PAD_V2));
  INS(input(c, F32, DIMS(U(c, 2), 3)), ctensor(c, I32, DIMS(2, 2), (const int32_t[]){0, 0, 1, 1}, 16),
      f32(c, 0.f));
  OUTS(output(c, F32, DIMS(U(c, 2), 5)));
}
static void b_tile(pc *c) {
  op(c, OP(TILE));
  INS(input(c, F32, DIMS(U(c, 2), 3)), vec(c, VALS(1, 2)));
  OUTS(output(c, F32, DIMS(U(c, 2), 6)));
}
static void b_split(pc *c) {
  op(c, OP(SPLIT));
  INS(input(c, F32, DIMS(U(c, 2), 4)), i32(c, 1), i32(c, 2));
  OUTS(output(c, F32, DIMS(U(c, 2), 2)), output(c, F32, DIMS(U(c, 2), 2)));
}
static void b_depth_to_space(pc *c) {
  op(c, OP(DEPTH_TO_SPACE));
  INS(input(c, F32, DIMS(U(c, 2), 2, 2, 4)), i32(c, 2), b8(c, false));
  OUTS(output(c, F32, DIMS(U(c, 2), 4, 4, 1)));
}
static void b_space_to_depth(pc *c) {
  op(c, OP(SPACE_TO_DEPTH));
  INS(input(c, F32, DIMS(U(c, 2), 4, 4, 1)), i32(c, 2), b8(c, false));
  OUTS(output(c, F32, DIMS(U(c, 2), 2, 2, 4)));
}
static void b_batch_to_space(pc *c) {
  op(c, OP(BATCH_TO_SPACE_ND));
  INS(input(c, F32, DIMS(U(c, 4), 2, 2, 1)), vec(c, VALS(2, 2)), b8(c, false));
  OUTS(output(c, F32, DIMS(U(c, 1), 4, 4, 1)));
}
static void b_space_to_batch(pc *c) {
  op(c, OP(SPACE_TO_BATCH_ND));
  INS(input(c, F32, DIMS(U(c, 1), 4, 4, 1)), vec(c, VALS(2, 2)), zeros(c, I32, DIMS(2, 2)), b8(c, false));
  OUTS(output(c, F32, DIMS(U(c, 4), 2, 2, 1)));
}
static void b_channel_shuffle(pc *c) {
  op(c, OP(CHANNEL_SHUFFLE));
  INS(input(c, F32, DIMS(U(c, 2), 4)), i32(c, 2), i32(c, 1));
  OUTS(output(c, F32, DIMS(U(c, 2), 4)));
}
static void b_gather(pc *c) {
  op(c, OP(GATHER));
  INS(input(c, F32, DIMS(U(c, 2), 3)), i32(c, 1), vec(c, VALS(0, 2)));
  OUTS(output(c, F32, DIMS(U(c, 2), 2)));
}
static void b_select(pc *c) {
  op(c, OP(SELECT));
  INS(input(c, B8, DIMS(U(c, 2), 3)), input(c, F32, DIMS(U(c, 2), 3)), input(c, F32, DIMS(U(c, 2), 3)));
  OUTS(output(c, F32, DIMS(U(c, 2), 3)));
}
static void b_fill(pc *c) {
  op(c, OP(FILL));
  INS(vec(c, VALS(2, 3)), f32(c, 1.f));
  OUTS(output(c, F32, DIMS(2, 3)));
}
static void b_rank(pc *c) {
  op(c, OP(RANK));
  INS(input(c, F32, DIMS(U(c, 2), 3)));
  OUTS(output(c, VKNN_OPERAND_INT32, NULL, 0));
}
static void resize(pc *c, int32_t t) {
  op(c, t);
  INS(input(c, F32, DIMS(U(c, 1), 4, 4, 1)), i32(c, 8), i32(c, 8), b8(c, false), b8(c, false), b8(c, false));
  OUTS(output(c, F32, DIMS(U(c, 1), 8, 8, 1)));
}
static void b_resize_bilinear(pc *c) { resize(c, OP(RESIZE_BILINEAR)); }
static void b_resize_nearest(pc *c) { resize(c, OP(RESIZE_NEAREST_NEIGHBOR)); }
static void b_topk(pc *c) {
  op(c, OP(TOPK_V2));
  INS(input(c, F32, DIMS(U(c, 2), 5)), i32(c, 2));
  OUTS(output(c, F32, DIMS(U(c, 2), 2)), output(c, I32, DIMS(U(c, 2), 2)));
}
static void b_mean(pc *c) {
  op(c, OP(MEAN));
  INS(input(c, F32, DIMS(U(c, 2), 3)), vec(c, VALS(1)), i32(c, 0));
  OUTS(output(c, F32, DIMS(U(c, 2))));
}
static void reduce(pc *c, int32_t t, int32_t type) {
  op(c, t);
  INS(input(c, type, DIMS(U(c, 2), 3)), vec(c, VALS(1)), b8(c, false));
  OUTS(output(c, type, DIMS(U(c, 2))));
}
static void b_reduce_sum(pc *c) { reduce(c, OP(REDUCE_SUM), F32); }
static void b_reduce_prod(pc *c) { reduce(c, OP(REDUCE_PROD), F32); }
static void b_reduce_max(pc *c) { reduce(c, OP(REDUCE_MAX), F32); }
static void b_reduce_min(pc *c) { reduce(c, OP(REDUCE_MIN), F32); }
static void b_reduce_any(pc *c) { reduce(c, OP(REDUCE_ANY), B8); }
static void b_reduce_all(pc *c) { reduce(c, OP(REDUCE_ALL), B8); }
static void argm(pc *c, int32_t t) {
  op(c, t);
  INS(input(c, F32, DIMS(U(c, 2), 3)), i32(c, 1));
  OUTS(output(c, I32, DIMS(U(c, 2))));
}
static void b_argmax(pc *c) { argm(c, OP(ARGMAX)); }
static void b_argmin(pc *c) { argm(c, OP(ARGMIN)); }
static const float roi_box[4] = {0.f, 0.f, 2.f, 2.f};
static void b_roi_align(pc *c) {
  op(c, OP(ROI_ALIGN));
  INS(input(c, F32, DIMS(U(c, 1), 4, 4, 1)), ctensor(c, F32, DIMS(1, 4), roi_box, 16), vec(c, VALS(0)),
      i32(c, 2), i32(c, 2), f32(c, 1.f), f32(c, 1.f), i32(c, 2), i32(c, 2), b8(c, false));
  OUTS(output(c, F32, DIMS(1, 2, 2, 1)));
}
static void b_roi_pooling(pc *c) {
  op(c, OP(ROI_POOLING));
  INS(input(c, F32, DIMS(U(c, 1), 4, 4, 1)), ctensor(c, F32, DIMS(1, 4), roi_box, 16), vec(c, VALS(0)),
      i32(c, 2), i32(c, 2), f32(c, 1.f), f32(c, 1.f), b8(c, false));
  OUTS(output(c, F32, DIMS(1, 2, 2, 1)));
}
static void b_heatmap(pc *c) {
  op(c, OP(HEATMAP_MAX_KEYPOINT));
  INS(input(c, F32, DIMS(U(c, 2), 4, 4, 2)), input(c, F32, DIMS(U(c, 2), 4)), b8(c, false));
  OUTS(output(c, F32, DIMS(U(c, 2), 2)), output(c, F32, DIMS(U(c, 2), 2, 2)));
}
static void b_bbox(pc *c) {
  op(c, OP(AXIS_ALIGNED_BBOX_TRANSFORM));
  const float image[2] = {8.f, 8.f};
  INS(input(c, F32, DIMS(U(c, 2), 4)), input(c, F32, DIMS(U(c, 2), 8)), input(c, I32, DIMS(U(c, 2))),
      ctensor(c, F32, DIMS(1, 2), image, 8));
  OUTS(output(c, F32, DIMS(U(c, 2), 8)));
}
static void b_embedding(pc *c) {
  op(c, OP(EMBEDDING_LOOKUP));
  INS(input(c, I32, DIMS(U(c, 2))), zeros(c, F32, DIMS(3, 2)));
  OUTS(output(c, F32, DIMS(U(c, 2), 2)));
}
static void b_hashtable(pc *c) {
  op(c, OP(HASHTABLE_LOOKUP));
  INS(input(c, I32, DIMS(U(c, 2))), vec(c, VALS(1, 2, 3)), zeros(c, F32, DIMS(3, 2)));
  uint32_t hits = output(c, Q8, DIMS(U(c, 2)));
  c->b.operands[hits].scale = 1.f;
  OUTS(output(c, F32, DIMS(U(c, 2), 2)), hits);
}
static void b_lsh(pc *c) {
  op(c, OP(LSH_PROJECTION));
  INS(zeros(c, F32, DIMS(4, 2)), input(c, F32, DIMS(U(c, 2), 3)), omitted(c, F32, DIMS(0)), i32(c, 3));
  OUTS(output(c, I32, DIMS(4)));
  c->optional = 1u << 2;
}
static void b_gelu(pc *c) {
  transformer(c, VKNN_TRANSFORMER_GELU);
  INS(input(c, F32, DIMS(U(c, 2), 3)), b8(c, false));
  OUTS(output(c, F32, DIMS(U(c, 2), 3)));
}
static void b_layer_norm(pc *c) {
  transformer(c, VKNN_TRANSFORMER_LAYER_NORMALIZATION);
  INS(input(c, F32, DIMS(U(c, 2), 3, 8)), zeros(c, F32, DIMS(8)), zeros(c, F32, DIMS(8)), i32(c, -1),
      f32(c, 1e-5f));
  OUTS(output(c, F32, DIMS(U(c, 2), 3, 8)));
  c->optional = (1u << 1) | (1u << 2);
}
static void b_batch_matmul(pc *c) {
  transformer(c, VKNN_TRANSFORMER_BATCH_MATMUL);
  INS(input(c, F32, DIMS(U(c, 2), 3, 4)), input(c, F32, DIMS(4, 5)), b8(c, false), b8(c, false));
  OUTS(output(c, F32, DIMS(U(c, 2), 3, 5)));
}
static void b_attention(pc *c) {
  transformer(c, VKNN_TRANSFORMER_ATTENTION);
  INS(input(c, F32, DIMS(U(c, 2), 3, 4)), input(c, F32, DIMS(U(c, 2), 5, 4)), input(c, F32, DIMS(U(c, 2), 5, 6)),
      zeros(c, F32, DIMS(3, 5)), f32(c, 0.5f));
  OUTS(output(c, F32, DIMS(U(c, 2), 3, 6)));
  c->optional = 1u << 3;
}
static void b_fibonacci(pc *c) {
  c->names[c->name_count++] = (vknn_extension_prefix){VKNN_FIBONACCI_EXTENSION_NAME, FIB_PREFIX};
  c->op_type = VKNN_EXTENSION_TYPE(FIB_PREFIX, VKNN_EXAMPLE_FIBONACCI);
  int64_t n = 5;
  INS(ctensor(c, VKNN_EXTENSION_TYPE(FIB_PREFIX, VKNN_EXAMPLE_INT64), NULL, 0, &n, sizeof(n)));
  OUTS(output(c, F32, DIMS(5)));
}

/* The recurrent cells: batch 2 (the dimension left unknown), input size 3,
 * 4 units (the backward cell 6), 5 steps; SVDF 4 filters of rank 2 (2
 * units), memory 5. */
static void b_rnn(pc *c) {
  op(c, OP(RNN));
  INS(input(c, F32, DIMS(U(c, 2), 3)), zeros(c, F32, DIMS(4, 3)), zeros(c, F32, DIMS(4, 4)),
      zeros(c, F32, DIMS(4)), input(c, F32, DIMS(U(c, 2), 4)), i32(c, 0));
  OUTS(output(c, F32, DIMS(U(c, 2), 4)), output(c, F32, DIMS(U(c, 2), 4)));
}
static void b_sequence_rnn(pc *c) {
  op(c, OP(UNIDIRECTIONAL_SEQUENCE_RNN));
  INS(input(c, F32, DIMS(U(c, 2), 5, 3)), zeros(c, F32, DIMS(4, 3)), zeros(c, F32, DIMS(4, 4)),
      zeros(c, F32, DIMS(4)), input(c, F32, DIMS(U(c, 2), 4)), i32(c, 0), i32(c, 0));
  OUTS(output(c, F32, DIMS(U(c, 2), 5, 4)), output(c, F32, DIMS(U(c, 2), 4)));
}
/* Inputs 9-11 (auxiliary input, forward and backward auxiliary weights) omitted. */
static void b_bidi_rnn(pc *c) {
  op(c, OP(BIDIRECTIONAL_SEQUENCE_RNN));
  INS(input(c, F32, DIMS(U(c, 2), 5, 3)), zeros(c, F32, DIMS(4, 3)), zeros(c, F32, DIMS(4, 4)),
      zeros(c, F32, DIMS(4)), input(c, F32, DIMS(U(c, 2), 4)), zeros(c, F32, DIMS(6, 3)),
      zeros(c, F32, DIMS(6, 6)), zeros(c, F32, DIMS(6)), input(c, F32, DIMS(U(c, 2), 6)),
      omitted(c, F32, DIMS(0)), omitted(c, F32, DIMS(0)), omitted(c, F32, DIMS(0)), i32(c, 0),
      b8(c, false), b8(c, false));
  OUTS(output(c, F32, DIMS(U(c, 2), 5, 4)), output(c, F32, DIMS(U(c, 2), 5, 6)));
  c->optional = 7u << 9;
}
/* Cross-linking: an auxiliary input of size 2, a model input an execution
 * may omit (which the given auxiliary weights forbid). */
static void bidi_cross(pc *c) {
  c->in[9] = input(c, F32, DIMS(U(c, 2), 5, 2));
  c->in[10] = zeros(c, F32, DIMS(4, 2));
  c->in[11] = zeros(c, F32, DIMS(6, 2));
}
static void b_bidi_rnn_cross(pc *c) {
  b_bidi_rnn(c);
  bidi_cross(c);
}
/* Parallel linking or none, as each execution gives the auxiliary input or
 * not: the backward weights fit the input and not the auxiliary input, a
 * model that runs where the execution omits it. */
static void b_bidi_rnn_maybe_parallel(pc *c) {
  b_bidi_rnn(c);
  c->in[9] = input(c, F32, DIMS(U(c, 2), 5, 2));
}
static void b_svdf(pc *c) {
  op(c, OP(SVDF));
  INS(input(c, F32, DIMS(U(c, 2), 3)), zeros(c, F32, DIMS(4, 3)), zeros(c, F32, DIMS(4, 5)),
      zeros(c, F32, DIMS(2)), input(c, F32, DIMS(U(c, 2), 20)), i32(c, 2), i32(c, 0));
  OUTS(output(c, F32, DIMS(U(c, 2), 20)), output(c, F32, DIMS(U(c, 2), 2)));
  c->optional = 1u << 3;
}
/* The bias a model input an execution may omit, of a length that does not
 * fit: the model runs where the execution omits it. */
static void b_svdf_bias_input(pc *c) {
  b_svdf(c);
  c->in[3] = input(c, F32, DIMS(3));
}

/* The convolutions: a 4x4 image of batch 2 (the dimension left unknown),
 * 2x2 windows, stride 1, VALID padding (3x3 outputs). CONV_2D: 2 to 3
 * channels; DEPTHWISE_CONV_2D: 2 channels, multiplier 2; GROUPED_CONV_2D: 4
 * to 4 channels in 2 groups. */
static void b_conv(pc *c) {
  op(c, OP(CONV_2D));
  INS(input(c, F32, DIMS(U(c, 2), 4, 4, 2)), zeros(c, F32, DIMS(3, 2, 2, 2)), zeros(c, F32, DIMS(3)),
      i32(c, 2), i32(c, 1), i32(c, 1), i32(c, 0));
  OUTS(output(c, F32, DIMS(U(c, 2), 3, 3, 3)));
}
static void b_depthwise(pc *c) {
  op(c, OP(DEPTHWISE_CONV_2D));
  INS(input(c, F32, DIMS(U(c, 2), 4, 4, 2)), zeros(c, F32, DIMS(1, 2, 2, 4)), zeros(c, F32, DIMS(4)),
      i32(c, 2), i32(c, 1), i32(c, 1), i32(c, 2), i32(c, 0));
  OUTS(output(c, F32, DIMS(U(c, 2), 3, 3, 4)));
}
static void b_grouped(pc *c) {
  op(c, OP(GROUPED_CONV_2D));
  INS(input(c, F32, DIMS(U(c, 2), 4, 4, 4)), zeros(c, F32, DIMS(4, 2, 2, 2)), zeros(c, F32, DIMS(4)),
      i32(c, 2), i32(c, 1), i32(c, 1), i32(c, 2), i32(c, 0), b8(c, false));
  OUTS(output(c, F32, DIMS(U(c, 2), 3, 3, 4)));
}
/* TRANSPOSE_CONV_2D: a 2x2 image of 2 channels to 4x4 of 3 (2x2 windows,
 * stride 2, SAME padding, the output shape a constant). */
static void b_transpose_conv(pc *c) {
  op(c, OP(TRANSPOSE_CONV_2D));
  INS(input(c, F32, DIMS(U(c, 2), 2, 2, 2)), zeros(c, F32, DIMS(3, 2, 2, 2)), zeros(c, F32, DIMS(3)),
      vec(c, VALS(2, 4, 4, 3)), i32(c, 1), i32(c, 2), i32(c, 2), i32(c, 0), b8(c, false));
  OUTS(output(c, F32, DIMS(U(c, 2), 4, 4, 3)));
}

/* The pools: 2x2 windows, stride 1, VALID padding on the same image. */
static void pool(pc *c, int32_t t) {
  op(c, t);
  INS(input(c, F32, DIMS(U(c, 2), 4, 4, 2)), i32(c, 2), i32(c, 1), i32(c, 1), i32(c, 2), i32(c, 2), i32(c, 0));
  OUTS(output(c, F32, DIMS(U(c, 2), 3, 3, 2)));
}
static void b_average_pool(pc *c) { pool(c, OP(AVERAGE_POOL_2D)); }
static void b_max_pool(pc *c) { pool(c, OP(MAX_POOL_2D)); }
static void b_l2_pool(pc *c) { pool(c, OP(L2_POOL_2D)); }

/* ---- mutations ----------------------------------------------------------- */

#define SET_I32(name, k, v) static void name(pc *c) { c->in[k] = i32(c, v); }
#define SET_F32(name, k, v) static void name(pc *c) { c->in[k] = f32(c, v); }
#define SET_VEC(name, k, ...) static void name(pc *c) { c->in[k] = vec(c, VALS(__VA_ARGS__)); }

SET_I32(act_7_2, 2, 7)
SET_I32(act_neg_2, 2, -1)
SET_I32(act_7_3, 3, 7)
SET_I32(act_neg_3, 3, -1)
SET_F32(beta_0, 1, 0.f)
SET_F32(beta_neg, 1, -1.f)
SET_I32(axis2_2, 2, 2)
SET_I32(axis2_m3, 2, -3)
SET_I32(axis1_2, 1, 2)
SET_I32(axis1_m3, 1, -3)
SET_I32(axis1_3, 1, 3)
SET_I32(axis1_m4, 1, -4)
SET_F32(lrn_bias_0, 2, 0.f)
SET_I32(lrn_axis_4, 5, 4)
SET_I32(lrn_axis_m5, 5, -5)
SET_I32(concat_axis_m1, 2, -1)
static void concat_off_axis(pc *c) {
  c->in[2] = i32(c, 0);
  c->in[1] = input(c, F32, DIMS(U(c, 2), 4));
  set_dims(c, c->out[0], DIMS(0, 0));
}
SET_VEC(reshape_two_unknown, 1, -1, -1)
SET_VEC(reshape_minus2, 1, -2, 3)
SET_VEC(squeeze_not_one, 1, 2)
SET_VEC(squeeze_out_of_range, 1, 3)
SET_VEC(perm_repeat, 1, 0, 0)
SET_VEC(perm_range, 1, 0, 2)
SET_VEC(perm_three, 1, 2, 1, 0)
SET_VEC(slice_begin_neg, 1, 0, -1)
SET_VEC(slice_past_end, 2, -1, 4)
SET_VEC(slice_begin_three, 1, 0, 0, 0)
SET_VEC(slice_size_zero_neg, 2, -1, -2)
SET_VEC(ss_stride_zero, 3, 1, 0)
static void ss_shrink_wide(pc *c) {
  c->in[6] = i32(c, 2);
  set_dims(c, c->out[0], DIMS(U(c, 2)));
}
SET_VEC(ss_begin_three, 1, 0, 0, 0)
static void pad_negative(pc *c) { c->in[1] = ctensor(c, I32, DIMS(2, 2), (const int32_t[]){0, 0, -1, 1}, 16); }
static void pad_shape(pc *c) { c->in[1] = zeros(c, I32, DIMS(3, 2)); }
SET_VEC(tile_zero, 1, 1, 0)
SET_VEC(tile_neg, 1, 1, -1)
SET_VEC(tile_three, 1, 1, 2, 3)
SET_I32(split_axis_2, 1, 2)
SET_I32(split_axis_m3, 1, -3)
SET_I32(split_num_3, 2, 3)
SET_I32(split_num_0, 2, 0)
SET_I32(block_0, 1, 0)
SET_I32(block_3, 1, 3)
SET_VEC(bs_block_zero, 1, 0, 2)
SET_VEC(bs_block_three, 1, 2, 2, 2)
static void s2b_pad_neg(pc *c) { c->in[2] = ctensor(c, I32, DIMS(2, 2), (const int32_t[]){-1, 0, 0, 0}, 16); }
static void s2b_pad_indivisible(pc *c) {
  c->in[2] = ctensor(c, I32, DIMS(2, 2), (const int32_t[]){1, 0, 0, 0}, 16);
}
SET_I32(cs_groups_0, 1, 0)
SET_I32(cs_groups_3, 1, 3)
SET_I32(cs_axis_2, 2, 2)
SET_I32(cs_axis_m3, 2, -3)
SET_VEC(gather_index_3, 2, 0, 3)
static void select_mismatch(pc *c) { c->in[2] = input(c, F32, DIMS(U(c, 2), 4)); }
SET_I32(resize_w_0, 1, 0)
SET_I32(resize_h_neg, 2, -1)
static void resize_both_corners(pc *c) {
  c->in[4] = b8(c, true);
  c->in[5] = b8(c, true);
}
static void resize_scale_0(pc *c) {
  c->in[1] = f32(c, 0.f);
  c->in[2] = f32(c, 0.f);
}
SET_I32(k_0, 1, 0)
SET_I32(k_6, 1, 6)
SET_I32(k_neg, 1, -1)
SET_VEC(axes_2, 1, 2)
SET_VEC(axes_m3, 1, -3)
SET_I32(roi_h_0, 3, 0)
SET_I32(roi_w_neg, 4, -1)
SET_F32(roi_hs_0, 5, 0.f)
SET_F32(roi_ws_neg, 6, -1.f)
SET_I32(roi_sampling_neg, 7, -1)
static void roi_boxes_5(pc *c) {
  const float box[5] = {0.f, 0.f, 2.f, 2.f, 0.f};
  c->in[1] = ctensor(c, F32, DIMS(1, 5), box, 20);
}
static void heat_not_square(pc *c) { c->in[0] = input(c, F32, DIMS(U(c, 2), 4, 5, 2)); }
static void heat_size_1(pc *c) { c->in[0] = input(c, F32, DIMS(U(c, 2), 1, 1, 2)); }
static void heat_boxes_5(pc *c) { c->in[1] = input(c, F32, DIMS(U(c, 2), 5)); }
static void bbox_deltas_6(pc *c) {
  c->in[1] = input(c, F32, DIMS(U(c, 2), 6));
  set_dims(c, c->out[0], DIMS(U(c, 2), 6));
}
static void bbox_boxes_5(pc *c) { c->in[0] = input(c, F32, DIMS(U(c, 2), 5)); }
static void bbox_images_3(pc *c) { c->in[3] = zeros(c, F32, DIMS(1, 3)); }
SET_VEC(hash_keys_descending, 1, 3, 2, 1)
SET_VEC(hash_keys_four, 1, 1, 2, 3, 4)
SET_I32(lsh_type_0, 3, 0)
SET_I32(lsh_type_4, 3, 4)
SET_I32(lsh_type_dense_no_weights, 3, 2)
static void lsh_bits_33(pc *c) { c->in[0] = zeros(c, F32, DIMS(4, 33)); }
SET_F32(ln_eps_0, 4, 0.f)
SET_F32(ln_eps_neg, 4, -1.f)
SET_I32(ln_axis_3, 3, 3)
static void ln_gamma_7(pc *c) { c->in[1] = zeros(c, F32, DIMS(7)); }
static void bm_k_mismatch(pc *c) { c->in[1] = input(c, F32, DIMS(5, 5)); }
SET_F32(att_scale_inf, 4, INFINITY)
SET_F32(att_scale_nan, 4, NAN)
static void att_key_d(pc *c) { c->in[1] = input(c, F32, DIMS(U(c, 2), 5, 3)); }
static void bin_broadcast(pc *c) { c->in[1] = input(c, F32, DIMS(1, 4)); }
static void fc_bias_4(pc *c) { c->in[2] = zeros(c, F32, DIMS(4)); }
static void fc_out_units_4(pc *c) { set_dims(c, c->out[0], DIMS(U(c, 2), 4)); }
static void att_mask_rows(pc *c) { c->in[3] = zeros(c, F32, DIMS(4, 5)); }

/* The cell's operands (inputs 1-4 of RNN and UNIDIRECTIONAL_SEQUENCE_RNN,
 * from 1 or 5 for the bidirectional cells): 4 units, input size 3. */
static void weights_rows_5(pc *c) { c->in[1] = zeros(c, F32, DIMS(5, 3)); }
static void weights_cols_2(pc *c) { c->in[1] = zeros(c, F32, DIMS(4, 2)); }
static void recurrent_4x5(pc *c) { c->in[2] = zeros(c, F32, DIMS(4, 5)); }
static void bias_5(pc *c) { c->in[3] = zeros(c, F32, DIMS(5)); }
static void state_units_5(pc *c) { c->in[4] = input(c, F32, DIMS(U(c, 2), 5)); }
/* The weights a model input of unknown rows: the units come from the others. */
static void weights_unknown_recurrent_5(pc *c) {
  c->in[1] = input(c, F32, DIMS(0, 3));
  c->in[2] = zeros(c, F32, DIMS(5, 5));
}
static void bw_recurrent_6x4(pc *c) { c->in[6] = zeros(c, F32, DIMS(6, 4)); }
static void bw_bias_4(pc *c) { c->in[7] = zeros(c, F32, DIMS(4)); }
static void bw_state_units_4(pc *c) { c->in[8] = input(c, F32, DIMS(U(c, 2), 4)); }
static void fw_aux_weights_cols_3(pc *c) {
  bidi_cross(c);
  c->in[10] = zeros(c, F32, DIMS(4, 3));
}
static void bw_aux_weights_rows_5(pc *c) {
  bidi_cross(c);
  c->in[11] = zeros(c, F32, DIMS(5, 2));
}
static void aux_steps_6(pc *c) {
  bidi_cross(c);
  c->in[9] = input(c, F32, DIMS(U(c, 2), 6, 2));
}
/* Parallel linking (a constant auxiliary input, its weights omitted): the
 * backward cell reads the auxiliary input, of size 2. */
static void parallel_bw_weights_cols_3(pc *c) { c->in[9] = zeros(c, F32, DIMS(2, 5, 2)); }
static void svdf_feature_rows_6(pc *c) { c->in[1] = zeros(c, F32, DIMS(6, 3)); }
static void svdf_feature_cols_2(pc *c) { c->in[1] = zeros(c, F32, DIMS(4, 2)); }
static void svdf_rank_3(pc *c) {
  c->in[5] = i32(c, 3);
  c->in[3] = omitted(c, F32, DIMS(0));
}
static void svdf_bias_4(pc *c) { c->in[3] = zeros(c, F32, DIMS(4)); }
static void svdf_state_16(pc *c) { c->in[4] = input(c, F32, DIMS(U(c, 2), 16)); }
/* The memory not known yet: the state's width a multiple of the 4 filters. */
static void svdf_memory_unknown_state_18(pc *c) {
  c->in[2] = input(c, F32, DIMS(4, 0));
  c->in[4] = input(c, F32, DIMS(U(c, 2), 18));
}

static void conv_filter_in_3(pc *c) { c->in[1] = zeros(c, F32, DIMS(3, 2, 2, 3)); }
static void conv_bias_4(pc *c) { c->in[2] = zeros(c, F32, DIMS(4)); }
static void conv_window_5(pc *c) { c->in[1] = zeros(c, F32, DIMS(3, 5, 5, 2)); }
static void conv_out_channels_4(pc *c) { set_dims(c, c->out[0], DIMS(U(c, 2), 3, 3, 4)); }
static void conv_out_height_2(pc *c) { set_dims(c, c->out[0], DIMS(U(c, 2), 2, 3, 3)); }
static void dw_channels_5(pc *c) {
  c->in[1] = zeros(c, F32, DIMS(1, 2, 2, 5));
  c->in[2] = zeros(c, F32, DIMS(5));
}
static void dw_out_width_4(pc *c) { set_dims(c, c->out[0], DIMS(U(c, 2), 3, 4, 4)); }
static void grouped_input_6(pc *c) { c->in[0] = input(c, F32, DIMS(U(c, 2), 4, 4, 6)); }
static void grouped_filters_3(pc *c) {
  c->in[1] = zeros(c, F32, DIMS(3, 2, 2, 2));
  c->in[2] = zeros(c, F32, DIMS(3));
}
static void pool_window_5(pc *c) {
  c->in[4] = i32(c, 5);
  c->in[5] = i32(c, 5);
}
static void pool_out_channels_3(pc *c) { set_dims(c, c->out[0], DIMS(U(c, 2), 3, 3, 3)); }
static void pool_out_width_2(pc *c) { set_dims(c, c->out[0], DIMS(U(c, 2), 3, 2, 2)); }
/* The declared output's second dimension made 7, which no base's operation
 * produces there (a vector output becomes [n, 7], of a rank it cannot have). */
static void output_dim_7(pc *c) {
  vknn_operand *o = &c->b.operands[c->out[0]];
  if (o->dimension_count == 1) o->dimension_count = 2;
  c->b.dims[c->out[0]][1] = 7;
}
/* Output 1's second dimension made 7 (operations of several outputs). */
static void output1_dim_7(pc *c) { c->b.dims[c->out[1]][1] = 7; }
/* TRANSPOSE of [.,3] by {1,0} (or reversed): an output [3,.], not [4,.]. */
static void transpose_output_4(pc *c) { set_dims(c, c->out[0], DIMS(4, U(c, 2))); }
/* SLICE of size 1 on the first axis, whatever its size: [1,2], not [2,2]. */
static void slice_size_1_output_2(pc *c) {
  c->in[2] = vec(c, VALS(1, 2));
  set_dims(c, c->out[0], DIMS(2, 2));
}
/* STRIDED_SLICE shrinking the first axis: [3], not [4]. */
static void ss_shrink_output_4(pc *c) {
  c->in[2] = vec(c, VALS(1, 3));
  c->in[6] = i32(c, 1);
  set_dims(c, c->out[0], DIMS(4));
}
/* RESHAPE of an input whose rank the model leaves unknown: the new shape
 * {-1,3} gives the output's second dimension. */
static void reshape_rank_unknown_output_7(pc *c) {
  c->in[0] = input(c, F32, NULL, 0);
  output_dim_7(c);
}
/* RESIZE by scales 2.0 on a 4x4 image: 8x8, not 7x8. */
static void resize_scales_output_7(pc *c) {
  c->in[1] = f32(c, 2.f);
  c->in[2] = f32(c, 2.f);
  set_dims(c, c->out[0], DIMS(U(c, 1), 7, 8, 1));
}
/* HASHTABLE_LOOKUP with 2 lookups (known) and values whose rows wait for an
 * execution: hits [2], not [5]. */
static void hash_values_unknown_hits_5(pc *c) {
  c->in[0] = input(c, I32, DIMS(2));
  c->in[2] = input(c, F32, DIMS(U(c, 3), 2));
  set_dims(c, c->out[0], DIMS(2, 2));
  set_dims(c, c->out[1], DIMS(5));
}
/* The reductions on an input [.,3,4] along axis 1: an output [.,4], not
 * [.,5]. */
static void reduce_output_5(pc *c) {
  c->in[0] = input(c, c->b.operands[c->in[0]].type, DIMS(U(c, 2), 3, 4));
  set_dims(c, c->out[0], DIMS(U(c, 2), 5));
}
/* Input 1 a constant [2,3] after an input whose batch may be unknown: the
 * output [5,3] agrees with the first and not the second. */
static void select_constant_batch_2_output_5(pc *c) {
  c->in[1] = zeros(c, F32, DIMS(2, 3));
  set_dims(c, c->out[0], DIMS(5, 3));
}
static void tconv_output_channels_5(pc *c) { set_dims(c, c->out[0], DIMS(U(c, 2), 4, 4, 5)); }

/* ---- the table ----------------------------------------------------------- */

typedef struct base {
  const char *op;
  void (*build)(pc *c);
} base;

static const base bases[] = {
    {"ADD", b_add}, {"SUB", b_sub}, {"MUL", b_mul}, {"DIV", b_div}, {"MAXIMUM", b_maximum},
    {"MINIMUM", b_minimum}, {"POW", b_pow}, {"PRELU", b_prelu}, {"EQUAL", b_equal},
    {"NOT_EQUAL", b_not_equal}, {"LESS", b_less}, {"LESS_EQUAL", b_less_equal}, {"GREATER", b_greater},
    {"GREATER_EQUAL", b_greater_equal}, {"LOGICAL_AND", b_logical_and}, {"LOGICAL_OR", b_logical_or},
    {"LOGICAL_NOT", b_logical_not}, {"FULLY_CONNECTED", b_fully_connected}, {"SOFTMAX", b_softmax},
    {"LOG_SOFTMAX", b_log_softmax}, {"L2_NORMALIZATION", b_l2_norm},
    {"LOCAL_RESPONSE_NORMALIZATION", b_lrn}, {"INSTANCE_NORMALIZATION", b_instance_norm},
    {"RELU", b_relu}, {"RELU1", b_relu1}, {"RELU6", b_relu6}, {"LOGISTIC", b_logistic}, {"TANH", b_tanh},
    {"ABS", b_abs}, {"EXP", b_exp}, {"LOG", b_log}, {"SIN", b_sin}, {"SQRT", b_sqrt}, {"RSQRT", b_rsqrt},
    {"NEG", b_neg}, {"FLOOR", b_floor}, {"ELU", b_elu}, {"HARD_SWISH", b_hard_swish},
    {"CONCATENATION", b_concat}, {"RESHAPE", b_reshape}, {"SQUEEZE", b_squeeze},
    {"EXPAND_DIMS", b_expand_dims}, {"TRANSPOSE", b_transpose}, {"SLICE", b_slice},
    {"STRIDED_SLICE", b_strided_slice}, {"PAD", b_pad}, {"PAD_V2", b_pad_v2}, {"TILE", b_tile},
    {"TRANSPOSE (perm omitted)", b_transpose_reversed}, {"SQUEEZE (axes omitted)", b_squeeze_all},
    {"RESHAPE (the inferred dimension last)", b_reshape_inferred_last},
    {"SLICE (a size on the unknown axis)", b_slice_size_on_unknown},
    {"STRIDED_SLICE (the unknown axis shrunk)", b_strided_slice_shrink_unknown},
    {"PAD (the unknown axis padded)", b_pad_unknown_axis},
    {"SPLIT", b_split}, {"DEPTH_TO_SPACE", b_depth_to_space}, {"SPACE_TO_DEPTH", b_space_to_depth},
    {"BATCH_TO_SPACE_ND", b_batch_to_space}, {"SPACE_TO_BATCH_ND", b_space_to_batch},
    {"CHANNEL_SHUFFLE", b_channel_shuffle}, {"CAST", b_cast}, {"QUANTIZE", b_quantize},
    {"DEQUANTIZE", b_dequantize}, {"GATHER", b_gather}, {"SELECT", b_select}, {"FILL", b_fill},
    {"RANK", b_rank}, {"RESIZE_BILINEAR", b_resize_bilinear},
    {"RESIZE_NEAREST_NEIGHBOR", b_resize_nearest}, {"TOPK_V2", b_topk}, {"MEAN", b_mean},
    {"REDUCE_SUM", b_reduce_sum}, {"REDUCE_PROD", b_reduce_prod}, {"REDUCE_MAX", b_reduce_max},
    {"REDUCE_MIN", b_reduce_min}, {"REDUCE_ANY", b_reduce_any}, {"REDUCE_ALL", b_reduce_all},
    {"ARGMAX", b_argmax}, {"ARGMIN", b_argmin}, {"ROI_ALIGN", b_roi_align}, {"ROI_POOLING", b_roi_pooling},
    {"HEATMAP_MAX_KEYPOINT", b_heatmap}, {"AXIS_ALIGNED_BBOX_TRANSFORM", b_bbox},
    {"EMBEDDING_LOOKUP", b_embedding}, {"HASHTABLE_LOOKUP", b_hashtable}, {"LSH_PROJECTION", b_lsh},
    {"TRANSFORMER_GELU", b_gelu}, {"TRANSFORMER_LAYER_NORMALIZATION", b_layer_norm},
    {"TRANSFORMER_BATCH_MATMUL", b_batch_matmul}, {"TRANSFORMER_ATTENTION", b_attention},
    {"EXAMPLE_FIBONACCI", b_fibonacci}, {"RNN", b_rnn},
    {"UNIDIRECTIONAL_SEQUENCE_RNN", b_sequence_rnn}, {"BIDIRECTIONAL_SEQUENCE_RNN", b_bidi_rnn},
    {"BIDIRECTIONAL_SEQUENCE_RNN (cross-linking)", b_bidi_rnn_cross},
    {"BIDIRECTIONAL_SEQUENCE_RNN (auxiliary input maybe omitted)", b_bidi_rnn_maybe_parallel},
    {"SVDF", b_svdf}, {"SVDF (bias maybe omitted)", b_svdf_bias_input}, {"CONV_2D", b_conv},
    {"DEPTHWISE_CONV_2D", b_depthwise}, {"GROUPED_CONV_2D", b_grouped}, {"TRANSPOSE_CONV_2D", b_transpose_conv},
    {"AVERAGE_POOL_2D", b_average_pool},
    {"MAX_POOL_2D", b_max_pool}, {"L2_POOL_2D", b_l2_pool},
};

/* Kinds: 'A' a parameter value, 'S' a shape relation of known
 * dimensions, 'D' a rule of this driver's rather than NNAPI's text. */
typedef struct mutation {
  const char *op;
  void (*build)(pc *c);
  void (*mutate)(pc *c);
  const char *what;
  char kind;
} mutation;

static const mutation mutations[] = {
    {"ADD", b_add, act_7_2, "activation 7", 'A'},
    {"ADD", b_add, act_neg_2, "activation -1", 'A'},
    {"SUB", b_sub, act_7_2, "activation 7", 'A'},
    {"MUL", b_mul, act_7_2, "activation 7", 'A'},
    {"DIV", b_div, act_7_2, "activation 7", 'A'},
    {"ADD", b_add, bin_broadcast, "input 1 [1,4] vs [.,3]", 'S'},
    {"PRELU", b_prelu, bin_broadcast, "alpha [1,4] vs [.,3]", 'S'},
    {"EQUAL", b_equal, bin_broadcast, "input 1 [1,4] vs [.,3]", 'S'},
    {"FULLY_CONNECTED", b_fully_connected, fc_bias_4, "bias [4], weights [3,4]", 'S'},
    {"FULLY_CONNECTED", b_fully_connected, fc_out_units_4, "output [.,4], weights [3,4]", 'S'},
    {"FULLY_CONNECTED", b_fully_connected, act_7_3, "activation 7", 'A'},
    {"FULLY_CONNECTED", b_fully_connected, act_neg_3, "activation -1", 'A'},
    {"SOFTMAX", b_softmax, beta_0, "beta 0", 'A'},
    {"SOFTMAX", b_softmax, beta_neg, "beta -1", 'A'},
    {"SOFTMAX", b_softmax, axis2_2, "axis 2 (rank 2)", 'A'},
    {"SOFTMAX", b_softmax, axis2_m3, "axis -3 (rank 2)", 'A'},
    {"LOG_SOFTMAX", b_log_softmax, beta_0, "beta 0", 'A'},
    {"LOG_SOFTMAX", b_log_softmax, axis2_2, "axis 2 (rank 2)", 'A'},
    {"LOG_SOFTMAX", b_log_softmax, axis2_m3, "axis -3 (rank 2)", 'A'},
    {"L2_NORMALIZATION", b_l2_norm, axis1_2, "axis 2 (rank 2)", 'A'},
    {"L2_NORMALIZATION", b_l2_norm, axis1_m3, "axis -3 (rank 2)", 'A'},
    {"LOCAL_RESPONSE_NORMALIZATION", b_lrn, lrn_bias_0, "bias 0", 'A'},
    {"LOCAL_RESPONSE_NORMALIZATION", b_lrn, lrn_axis_4, "axis 4 (rank 4)", 'A'},
    {"LOCAL_RESPONSE_NORMALIZATION", b_lrn, lrn_axis_m5, "axis -5 (rank 4)", 'A'},
    {"CONCATENATION", b_concat, axis2_2, "axis 2 (rank 2)", 'A'},
    {"CONCATENATION", b_concat, concat_axis_m1, "axis -1 (driver: [0, rank))", 'D'},
    {"CONCATENATION", b_concat, concat_off_axis, "axis 0, inputs [.,3] and [.,4]", 'S'},
    {"RESHAPE", b_reshape, reshape_two_unknown, "shape {-1,-1}", 'A'},
    {"RESHAPE", b_reshape, reshape_minus2, "shape {-2,3}", 'A'},
    {"SQUEEZE", b_squeeze, squeeze_not_one, "axes {2} (size 3)", 'A'},
    {"SQUEEZE", b_squeeze, squeeze_out_of_range, "axes {3} (rank 3)", 'A'},
    {"EXPAND_DIMS", b_expand_dims, axis1_3, "axis 3 (rank 2)", 'A'},
    {"EXPAND_DIMS", b_expand_dims, axis1_m4, "axis -4 (rank 2)", 'A'},
    {"TRANSPOSE", b_transpose, perm_repeat, "perm {0,0}", 'A'},
    {"TRANSPOSE", b_transpose, perm_range, "perm {0,2}", 'A'},
    {"TRANSPOSE", b_transpose, perm_three, "perm {2,1,0} (rank 2)", 'A'},
    {"SLICE", b_slice, slice_begin_neg, "begin {0,-1}", 'A'},
    {"SLICE", b_slice, slice_past_end, "size {-1,4} (axis 1 of 3)", 'A'},
    {"SLICE", b_slice, slice_begin_three, "begin of 3 entries (rank 2)", 'A'},
    {"SLICE", b_slice, slice_size_zero_neg, "size {-1,-2}", 'A'},
    {"STRIDED_SLICE", b_strided_slice, ss_stride_zero, "strides {1,0}", 'A'},
    {"STRIDED_SLICE", b_strided_slice, ss_shrink_wide, "shrink axis 1 selecting 3", 'A'},
    {"STRIDED_SLICE", b_strided_slice, ss_begin_three, "begin of 3 entries (rank 2)", 'A'},
    {"PAD", b_pad, pad_negative, "paddings {0,0,-1,1}", 'A'},
    {"PAD", b_pad, pad_shape, "paddings [3,2] (rank 2)", 'A'},
    {"PAD_V2", b_pad_v2, pad_negative, "paddings {0,0,-1,1}", 'A'},
    {"PAD_V2", b_pad_v2, pad_shape, "paddings [3,2] (rank 2)", 'A'},
    {"TILE", b_tile, tile_zero, "multiples {1,0}", 'A'},
    {"TILE", b_tile, tile_neg, "multiples {1,-1}", 'A'},
    {"TILE", b_tile, tile_three, "multiples of 3 entries (rank 2)", 'A'},
    {"SPLIT", b_split, split_axis_2, "axis 2 (rank 2)", 'A'},
    {"SPLIT", b_split, split_axis_m3, "axis -3 (rank 2)", 'A'},
    {"SPLIT", b_split, split_num_3, "num_splits 3 (2 outputs, axis of 4)", 'A'},
    {"SPLIT", b_split, split_num_0, "num_splits 0", 'A'},
    {"DEPTH_TO_SPACE", b_depth_to_space, block_0, "block_size 0", 'A'},
    {"DEPTH_TO_SPACE", b_depth_to_space, block_3, "block_size 3 (depth 4)", 'S'},
    {"SPACE_TO_DEPTH", b_space_to_depth, block_0, "block_size 0", 'A'},
    {"SPACE_TO_DEPTH", b_space_to_depth, block_3, "block_size 3 (4x4 image)", 'S'},
    {"BATCH_TO_SPACE_ND", b_batch_to_space, bs_block_zero, "block {0,2}", 'A'},
    {"BATCH_TO_SPACE_ND", b_batch_to_space, bs_block_three, "block of 3 entries", 'A'},
    {"SPACE_TO_BATCH_ND", b_space_to_batch, bs_block_zero, "block {0,2}", 'A'},
    {"SPACE_TO_BATCH_ND", b_space_to_batch, s2b_pad_neg, "paddings {-1,0,0,0}", 'A'},
    {"SPACE_TO_BATCH_ND", b_space_to_batch, s2b_pad_indivisible, "paddings {1,0,0,0} (5 rows, block 2)", 'S'},
    {"CHANNEL_SHUFFLE", b_channel_shuffle, cs_groups_0, "num_groups 0", 'A'},
    {"CHANNEL_SHUFFLE", b_channel_shuffle, cs_groups_3, "num_groups 3 (4 channels)", 'S'},
    {"CHANNEL_SHUFFLE", b_channel_shuffle, cs_axis_2, "axis 2 (rank 2)", 'A'},
    {"CHANNEL_SHUFFLE", b_channel_shuffle, cs_axis_m3, "axis -3 (rank 2)", 'A'},
    {"GATHER", b_gather, axis1_2, "axis 2 (rank 2)", 'A'},
    {"GATHER", b_gather, axis1_m3, "axis -3 (rank 2)", 'A'},
    {"GATHER", b_gather, gather_index_3, "constant index 3 (axis of 3)", 'S'},
    {"SELECT", b_select, select_mismatch, "input 2 [.,4], input 1 [.,3]", 'S'},
    {"RESIZE_BILINEAR", b_resize_bilinear, resize_w_0, "width 0", 'A'},
    {"RESIZE_BILINEAR", b_resize_bilinear, resize_h_neg, "height -1", 'A'},
    {"RESIZE_BILINEAR", b_resize_bilinear, resize_scale_0, "scales 0.0", 'A'},
    {"RESIZE_BILINEAR", b_resize_bilinear, resize_both_corners, "align_corners and half_pixel_centers", 'A'},
    {"RESIZE_NEAREST_NEIGHBOR", b_resize_nearest, resize_w_0, "width 0", 'A'},
    {"RESIZE_NEAREST_NEIGHBOR", b_resize_nearest, resize_scale_0, "scales 0.0", 'A'},
    {"RESIZE_NEAREST_NEIGHBOR", b_resize_nearest, resize_both_corners, "align_corners and half_pixel_centers", 'A'},
    {"TOPK_V2", b_topk, k_0, "k 0", 'A'},
    {"TOPK_V2", b_topk, k_neg, "k -1", 'A'},
    {"TOPK_V2", b_topk, k_6, "k 6 (last dimension 5)", 'S'},
    {"MEAN", b_mean, axes_2, "axes {2} (rank 2)", 'A'},
    {"MEAN", b_mean, axes_m3, "axes {-3} (rank 2)", 'A'},
    {"REDUCE_SUM", b_reduce_sum, axes_2, "axes {2} (rank 2)", 'A'},
    {"REDUCE_PROD", b_reduce_prod, axes_2, "axes {2} (rank 2)", 'A'},
    {"REDUCE_MAX", b_reduce_max, axes_2, "axes {2} (rank 2)", 'A'},
    {"REDUCE_MIN", b_reduce_min, axes_m3, "axes {-3} (rank 2)", 'A'},
    {"REDUCE_ANY", b_reduce_any, axes_2, "axes {2} (rank 2)", 'A'},
    {"REDUCE_ALL", b_reduce_all, axes_2, "axes {2} (rank 2)", 'A'},
    {"ARGMAX", b_argmax, axis1_2, "axis 2 (rank 2)", 'A'},
    {"ARGMAX", b_argmax, axis1_m3, "axis -3 (rank 2)", 'A'},
    {"ARGMIN", b_argmin, axis1_2, "axis 2 (rank 2)", 'A'},
    {"ROI_ALIGN", b_roi_align, roi_h_0, "output height 0", 'A'},
    {"ROI_ALIGN", b_roi_align, roi_w_neg, "output width -1", 'A'},
    {"ROI_ALIGN", b_roi_align, roi_hs_0, "height ratio 0.0", 'A'},
    {"ROI_ALIGN", b_roi_align, roi_ws_neg, "width ratio -1.0", 'A'},
    {"ROI_ALIGN", b_roi_align, roi_sampling_neg, "sampling ratio -1", 'A'},
    {"ROI_ALIGN", b_roi_align, roi_boxes_5, "rois [1,5]", 'S'},
    {"ROI_POOLING", b_roi_pooling, roi_h_0, "output height 0", 'A'},
    {"ROI_POOLING", b_roi_pooling, roi_hs_0, "height ratio 0.0", 'A'},
    {"ROI_POOLING", b_roi_pooling, roi_ws_neg, "width ratio -1.0", 'A'},
    {"ROI_POOLING", b_roi_pooling, roi_boxes_5, "rois [1,5]", 'S'},
    {"HEATMAP_MAX_KEYPOINT", b_heatmap, heat_not_square, "heatmap 4x5", 'S'},
    {"HEATMAP_MAX_KEYPOINT", b_heatmap, heat_size_1, "heatmap 1x1", 'S'},
    {"HEATMAP_MAX_KEYPOINT", b_heatmap, heat_boxes_5, "boxes [.,5]", 'S'},
    {"AXIS_ALIGNED_BBOX_TRANSFORM", b_bbox, bbox_deltas_6, "deltas [.,6]", 'S'},
    {"AXIS_ALIGNED_BBOX_TRANSFORM", b_bbox, bbox_boxes_5, "boxes [.,5]", 'S'},
    {"AXIS_ALIGNED_BBOX_TRANSFORM", b_bbox, bbox_images_3, "image sizes [1,3]", 'S'},
    {"HASHTABLE_LOOKUP", b_hashtable, hash_keys_descending, "constant keys {3,2,1}", 'A'},
    {"HASHTABLE_LOOKUP", b_hashtable, hash_keys_four, "keys [4], values [3,2]", 'S'},
    {"LSH_PROJECTION", b_lsh, lsh_type_0, "type 0", 'A'},
    {"LSH_PROJECTION", b_lsh, lsh_type_4, "type 4", 'A'},
    {"LSH_PROJECTION", b_lsh, lsh_bits_33, "hash [4,33] (> 32 bits)", 'S'},
    {"LSH_PROJECTION", b_lsh, lsh_type_dense_no_weights, "type 2 (dense) without weights", 'D'},
    {"TRANSFORMER_LAYER_NORMALIZATION", b_layer_norm, ln_eps_0, "epsilon 0", 'A'},
    {"TRANSFORMER_LAYER_NORMALIZATION", b_layer_norm, ln_eps_neg, "epsilon -1", 'A'},
    {"TRANSFORMER_LAYER_NORMALIZATION", b_layer_norm, ln_axis_3, "axis 3 (rank 3)", 'A'},
    {"TRANSFORMER_LAYER_NORMALIZATION", b_layer_norm, ln_gamma_7, "gamma [7] (axis of 8)", 'S'},
    {"TRANSFORMER_BATCH_MATMUL", b_batch_matmul, bm_k_mismatch, "y [5,5] (K 4)", 'S'},
    {"TRANSFORMER_ATTENTION", b_attention, att_scale_inf, "scale inf", 'A'},
    {"TRANSFORMER_ATTENTION", b_attention, att_scale_nan, "scale NaN", 'A'},
    {"TRANSFORMER_ATTENTION", b_attention, att_key_d, "key [.,5,3] (D 4)", 'S'},
    {"TRANSFORMER_ATTENTION", b_attention, att_mask_rows, "mask [4,5] (Sq 3)", 'S'},
    {"RNN", b_rnn, weights_rows_5, "weights [5,3], recurrent [4,4]", 'S'},
    {"RNN", b_rnn, weights_cols_2, "weights [4,2], input [.,3]", 'S'},
    {"RNN", b_rnn, recurrent_4x5, "recurrent [4,5]", 'S'},
    {"RNN", b_rnn, bias_5, "bias [5] (4 units)", 'S'},
    {"RNN", b_rnn, state_units_5, "hidden state [.,5] (4 units)", 'S'},
    {"RNN", b_rnn, weights_unknown_recurrent_5, "weights [?,3], recurrent [5,5], bias [4]", 'S'},
    {"UNIDIRECTIONAL_SEQUENCE_RNN", b_sequence_rnn, weights_rows_5, "weights [5,3], recurrent [4,4]", 'S'},
    {"UNIDIRECTIONAL_SEQUENCE_RNN", b_sequence_rnn, weights_cols_2, "weights [4,2], input [.,5,3]", 'S'},
    {"UNIDIRECTIONAL_SEQUENCE_RNN", b_sequence_rnn, recurrent_4x5, "recurrent [4,5]", 'S'},
    {"UNIDIRECTIONAL_SEQUENCE_RNN", b_sequence_rnn, bias_5, "bias [5] (4 units)", 'S'},
    {"UNIDIRECTIONAL_SEQUENCE_RNN", b_sequence_rnn, state_units_5, "hidden state [.,5] (4 units)", 'S'},
    {"UNIDIRECTIONAL_SEQUENCE_RNN", b_sequence_rnn, weights_unknown_recurrent_5,
     "weights [?,3], recurrent [5,5], bias [4]", 'S'},
    {"BIDIRECTIONAL_SEQUENCE_RNN", b_bidi_rnn, weights_rows_5, "forward weights [5,3], recurrent [4,4]", 'S'},
    {"BIDIRECTIONAL_SEQUENCE_RNN", b_bidi_rnn, weights_cols_2, "forward weights [4,2], input [.,5,3]", 'S'},
    {"BIDIRECTIONAL_SEQUENCE_RNN", b_bidi_rnn, bw_recurrent_6x4, "backward recurrent [6,4]", 'S'},
    {"BIDIRECTIONAL_SEQUENCE_RNN", b_bidi_rnn, bw_bias_4, "backward bias [4] (6 units)", 'S'},
    {"BIDIRECTIONAL_SEQUENCE_RNN", b_bidi_rnn, bw_state_units_4, "backward hidden state [.,4] (6 units)", 'S'},
    {"BIDIRECTIONAL_SEQUENCE_RNN", b_bidi_rnn, fw_aux_weights_cols_3,
     "forward auxiliary weights [4,3], auxiliary input [.,5,2]", 'S'},
    {"BIDIRECTIONAL_SEQUENCE_RNN", b_bidi_rnn, bw_aux_weights_rows_5,
     "backward auxiliary weights [5,2] (6 units)", 'S'},
    {"BIDIRECTIONAL_SEQUENCE_RNN", b_bidi_rnn, aux_steps_6, "auxiliary input [.,6,2] (5 steps)", 'S'},
    {"BIDIRECTIONAL_SEQUENCE_RNN", b_bidi_rnn, parallel_bw_weights_cols_3,
     "parallel linking: auxiliary input [2,5,2], backward weights [6,3]", 'S'},
    {"SVDF", b_svdf, svdf_feature_rows_6, "weights_feature [6,3], weights_time [4,5]", 'S'},
    {"SVDF", b_svdf, svdf_feature_cols_2, "weights_feature [4,2], input [.,3]", 'S'},
    {"SVDF", b_svdf, svdf_rank_3, "rank 3 (4 filters)", 'S'},
    {"SVDF", b_svdf, svdf_bias_4, "bias [4] (4 filters of rank 2)", 'S'},
    {"SVDF", b_svdf, svdf_state_16, "state [.,16] (memory 5 x 4 filters)", 'S'},
    {"SVDF", b_svdf, svdf_memory_unknown_state_18, "weights_time [4,?], state [.,18]", 'S'},
    {"CONV_2D", b_conv, conv_filter_in_3, "filter [3,2,2,3], input [.,4,4,2]", 'S'},
    {"CONV_2D", b_conv, conv_bias_4, "bias [4] (3 filters)", 'S'},
    {"CONV_2D", b_conv, conv_window_5, "a 5x5 window, VALID, on 4x4", 'S'},
    {"CONV_2D", b_conv, conv_out_channels_4, "output [.,3,3,4] (3 filters)", 'S'},
    {"CONV_2D", b_conv, conv_out_height_2, "output [.,2,3,3] (height 3)", 'S'},
    {"DEPTHWISE_CONV_2D", b_depthwise, dw_channels_5, "filter [1,2,2,5] (2 channels x 2)", 'S'},
    {"DEPTHWISE_CONV_2D", b_depthwise, dw_out_width_4, "output [.,3,4,4] (width 3)", 'S'},
    {"GROUPED_CONV_2D", b_grouped, grouped_input_6, "input [.,4,4,6] (2 groups of 2)", 'S'},
    {"GROUPED_CONV_2D", b_grouped, grouped_filters_3, "3 filters in 2 groups", 'S'},
    {"SELECT", b_select, select_constant_batch_2_output_5, "input 1 [2,3], output [5,3]", 'S'},
    {"TRANSPOSE_CONV_2D", b_transpose_conv, conv_filter_in_3, "filter [3,2,2,3], input [.,2,2,2]", 'S'},
    {"TRANSPOSE_CONV_2D", b_transpose_conv, conv_bias_4, "bias [4] (3 filters)", 'S'},
    {"TRANSPOSE_CONV_2D", b_transpose_conv, tconv_output_channels_5, "output [.,4,4,5] (3 filters)", 'S'},
    {"MEAN", b_mean, reduce_output_5, "input [.,3,4] on axis 1, output [.,5]", 'S'},
    {"REDUCE_SUM", b_reduce_sum, reduce_output_5, "input [.,3,4] on axis 1, output [.,5]", 'S'},
    {"REDUCE_ANY", b_reduce_any, reduce_output_5, "input [.,3,4] on axis 1, output [.,5]", 'S'},
    {"ARGMAX", b_argmax, reduce_output_5, "input [.,3,4] on axis 1, output [.,5]", 'S'},
    {"ARGMIN", b_argmin, reduce_output_5, "input [.,3,4] on axis 1, output [.,5]", 'S'},
    {"TRANSPOSE", b_transpose, transpose_output_4, "input [.,3], perm {1,0}, output [4,.]", 'S'},
    {"TRANSPOSE", b_transpose_reversed, transpose_output_4, "input [.,3], perm omitted, output [4,.]", 'S'},
    {"SLICE", b_slice, slice_size_1_output_2, "size {1,2}, output [2,2]", 'S'},
    {"STRIDED_SLICE", b_strided_slice, ss_shrink_output_4, "axis 0 shrunk, input [.,3], output [4]", 'S'},
    {"RESHAPE", b_reshape, reshape_rank_unknown_output_7, "input of unknown rank, shape {-1,3}, output [.,7]",
     'S'},
    {"SPLIT", b_split, output1_dim_7, "input [.,4] in 2 on axis 1, output 1 [.,7]", 'S'},
    {"TOPK_V2", b_topk, output1_dim_7, "k 2, indices (output 1) [.,7]", 'S'},
    {"RESIZE_BILINEAR", b_resize_bilinear, resize_scales_output_7, "scales 2.0 on 4x4, output [.,7,8,1]", 'S'},
    {"RESIZE_NEAREST_NEIGHBOR", b_resize_nearest, resize_scales_output_7, "scales 2.0 on 4x4, output [.,7,8,1]",
     'S'},
    {"HASHTABLE_LOOKUP", b_hashtable, hash_values_unknown_hits_5, "lookups [2], values [.,2], hits [5]", 'S'},
    {"AVERAGE_POOL_2D", b_average_pool, pool_window_5, "a 5x5 window, VALID, on 4x4", 'S'},
    {"AVERAGE_POOL_2D", b_average_pool, pool_out_channels_3, "output [.,3,3,3] (2 channels)", 'S'},
    {"MAX_POOL_2D", b_max_pool, pool_window_5, "a 5x5 window, VALID, on 4x4", 'S'},
    {"MAX_POOL_2D", b_max_pool, pool_out_width_2, "output [.,3,2,2] (width 3)", 'S'},
    {"L2_POOL_2D", b_l2_pool, pool_window_5, "a 5x5 window, VALID, on 4x4", 'S'},
};

/* The operations whose declared output is checked against the dimensions
 * their inputs give before an execution gives the rest (the elementwise,
 * conversion, row-normalizing, convolution, pooling, fully connected,
 * concatenation, data-movement, gathering, resizing, top-k and lookup
 * families; the rows of the reductions, of TRANSPOSE (whose base moves the
 * unknown dimension to 1) and of the operations' other outputs are in
 * mutations; the others decide it once every shape is known). */
static const char *const output_checked[] = {
    "ADD", "SUB", "MUL", "DIV", "MAXIMUM", "MINIMUM", "POW", "PRELU", "EQUAL", "NOT_EQUAL", "LESS",
    "LESS_EQUAL", "GREATER", "GREATER_EQUAL", "LOGICAL_AND", "LOGICAL_OR", "LOGICAL_NOT", "FULLY_CONNECTED",
    "SOFTMAX", "LOG_SOFTMAX", "L2_NORMALIZATION", "LOCAL_RESPONSE_NORMALIZATION", "INSTANCE_NORMALIZATION",
    "RELU", "RELU1", "RELU6", "LOGISTIC", "TANH", "ABS", "EXP", "LOG", "SIN", "SQRT", "RSQRT", "NEG", "FLOOR",
    "ELU", "HARD_SWISH", "CAST", "QUANTIZE", "DEQUANTIZE", "FILL", "TRANSFORMER_GELU",
    "TRANSFORMER_LAYER_NORMALIZATION", "CONV_2D", "DEPTHWISE_CONV_2D", "GROUPED_CONV_2D", "AVERAGE_POOL_2D",
    "MAX_POOL_2D", "L2_POOL_2D", "CONCATENATION", "SELECT", "SQUEEZE", "EXPAND_DIMS", "CHANNEL_SHUFFLE", "PAD",
    "PAD_V2", "TILE", "RESHAPE", "SLICE", "STRIDED_SLICE", "SPLIT", "DEPTH_TO_SPACE", "SPACE_TO_DEPTH",
    "BATCH_TO_SPACE_ND", "SPACE_TO_BATCH_ND", "GATHER", "RESIZE_BILINEAR", "RESIZE_NEAREST_NEIGHBOR", "TOPK_V2",
    "EMBEDDING_LOOKUP", "HASHTABLE_LOOKUP",
};

/* ---- running ------------------------------------------------------------- */

typedef runner_fixture fixture;

typedef struct outcome {
  vknn_status support, prepare;
  bool supported;
  char log[512];
} outcome;

static outcome run_model(fixture *f, pc *c) {
  mb_operation(&c->b, c->op_type, c->in, c->in_count, c->out, c->out_count);
  c->b.extension_names = c->name_count ? c->names : NULL;
  c->b.extension_name_count = c->name_count;
  const vknn_model *m = mb_finish(&c->b);
  outcome o = {0};
  f->log.last[0] = '\0';
  bool supported[1] = {false};
  o.support = vknn_device_get_supported_operations(f->device, m, supported, 1);
  o.supported = supported[0];
  f->log.last[0] = '\0';
  vknn_prepared_model *pm = NULL;
  o.prepare = vknn_device_prepare_model(f->device, m, VKNN_PREFER_SUSTAINED_SPEED, VKNN_PRIORITY_MEDIUM, NULL, &pm);
  if (pm != NULL) vknn_prepared_model_release(pm);
  snprintf(o.log, sizeof(o.log), "%s", f->log.last);
  return o;
}

/* Builds (mode: first dimension known or unknown), mutates, runs. */
static outcome probe(fixture *f, void (*build)(pc *), void (*mutate)(pc *), bool unknown, int omit) {
  pc *c = calloc(1, sizeof(*c));
  assert_non_null(c);
  mb_init(&c->b);
  c->unknown = unknown;
  build(c);
  if (mutate) mutate(c);
  if (omit >= 0) {
    const vknn_operand *o = &c->b.operands[c->in[omit]];
    float scale = o->scale;
    int32_t zero = o->zero_point;
    c->in[omit] = omitted(c, o->type, c->b.dims[c->in[omit]], o->dimension_count);
    c->b.operands[c->in[omit]].scale = scale;
    c->b.operands[c->in[omit]].zero_point = zero;
  }
  outcome r = run_model(f, c);
  free(c);
  return r;
}

static bool fully_accepted(const outcome *o) {
  return o->prepare == VKNN_STATUS_NONE && o->support == VKNN_STATUS_NONE && o->supported;
}
static bool rejected(const outcome *o) {
  return o->prepare == VKNN_STATUS_INVALID_ARGUMENT && o->support == VKNN_STATUS_INVALID_ARGUMENT;
}

static const char *mode_name(bool unknown) { return unknown ? "first dimension unknown" : "shapes known"; }

static void test_valid(void **state) {
  fixture *f = *state;
  for (size_t i = 0; i < sizeof(bases) / sizeof(bases[0]); ++i)
    for (int u = 0; u < 2; ++u) {
      outcome o = probe(f, bases[i].build, NULL, u, -1);
      if (!fully_accepted(&o))
        fail_msg("%s (%s): support %s (supported %d), prepare %s: %s", bases[i].op, mode_name(u),
                 vknn_status_name(o.support), o.supported, vknn_status_name(o.prepare), o.log);
    }
}

/* A base in the unknown mode with every output declared in full, as the
 * known mode declares it: what an execution giving the first dimension
 * produces, so no dimension known at prepare may contradict it. */
static outcome probe_outputs_declared(fixture *f, void (*build)(pc *)) {
  pc *known = calloc(1, sizeof(*known)), *c = calloc(1, sizeof(*c));
  assert_non_null(known);
  assert_non_null(c);
  mb_init(&known->b);
  mb_init(&c->b);
  build(known);
  c->unknown = true;
  build(c);
  for (uint32_t k = 0; k < c->out_count; ++k)
    set_dims(c, c->out[k], known->b.dims[known->out[k]], known->b.operands[known->out[k]].dimension_count);
  free(known);
  outcome r = run_model(f, c);
  free(c);
  return r;
}

static void test_valid_outputs_declared(void **state) {
  fixture *f = *state;
  for (size_t i = 0; i < sizeof(bases) / sizeof(bases[0]); ++i) {
    outcome o = probe_outputs_declared(f, bases[i].build);
    if (!fully_accepted(&o))
      fail_msg("%s (first dimension unknown, outputs declared in full): support %s (supported %d), prepare %s: %s",
               bases[i].op, vknn_status_name(o.support), o.supported, vknn_status_name(o.prepare), o.log);
  }
}

static void test_parameters_and_known_shapes(void **state) {
  fixture *f = *state;
  for (size_t i = 0; i < sizeof(mutations) / sizeof(mutations[0]); ++i) {
    const mutation *m = &mutations[i];
    for (int u = 0; u < 2; ++u) {
      outcome o = probe(f, m->build, m->mutate, u, -1);
      if (!rejected(&o))
        fail_msg("%s, %s (%s): support %s (supported %d), prepare %s: %s", m->op, m->what, mode_name(u),
                 vknn_status_name(o.support), o.supported, vknn_status_name(o.prepare), o.log);
    }
  }
}

static void test_declared_output(void **state) {
  fixture *f = *state;
  for (size_t k = 0; k < sizeof(output_checked) / sizeof(output_checked[0]); ++k) {
    const base *b = NULL;
    for (size_t i = 0; i < sizeof(bases) / sizeof(bases[0]) && b == NULL; ++i)
      if (strcmp(bases[i].op, output_checked[k]) == 0) b = &bases[i];
    assert_non_null(b);
    for (int u = 0; u < 2; ++u) {
      outcome o = probe(f, b->build, output_dim_7, u, -1);
      /* Every refusal of a declared output names it ("output dimension",
       * "output rank", "an output of N units"), not an earlier rule. */
      if (!rejected(&o) || strstr(o.log, "output") == NULL)
        fail_msg("%s, declared output dimension 7 (%s): support %s (supported %d), prepare %s: %s", b->op,
                 mode_name(u), vknn_status_name(o.support), o.supported, vknn_status_name(o.prepare), o.log);
    }
  }
}

static void test_omitted_required_inputs(void **state) {
  fixture *f = *state;
  for (size_t i = 0; i < sizeof(bases) / sizeof(bases[0]); ++i) {
    pc *c = calloc(1, sizeof(*c));
    assert_non_null(c);
    mb_init(&c->b);
    bases[i].build(c);
    uint32_t count = c->in_count, optional = c->optional;
    free(c);
    for (uint32_t k = 0; k < count; ++k) {
      if (optional & (1u << k)) continue;
      for (int u = 0; u < 2; ++u) {
        outcome o = probe(f, bases[i].build, NULL, u, (int)k);
        if (!rejected(&o))
          fail_msg("%s, input %u omitted (%s): support %s (supported %d), prepare %s: %s", bases[i].op, k,
                   mode_name(u), vknn_status_name(o.support), o.supported, vknn_status_name(o.prepare), o.log);
      }
    }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_valid),
      cmocka_unit_test(test_valid_outputs_declared),
      cmocka_unit_test(test_parameters_and_known_shapes),
      cmocka_unit_test(test_declared_output),
      cmocka_unit_test(test_omitted_required_inputs),
  };
  return cmocka_run_group_tests(tests, runner_fixture_setup, runner_fixture_teardown);
}
