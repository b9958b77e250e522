/* RNN, UNIDIRECTIONAL_SEQUENCE_RNN, BIDIRECTIONAL_SEQUENCE_RNN, SVDF and
 * RANDOM_MULTINOMIAL. Rules: one row per rule of the NNAPI documentation, a
 * valid model broken in one way, rejected with INVALID_ARGUMENT by the
 * support query and by prepare with a log line naming the problem (and
 * accepting rows showing each base model is valid). Values: the GPU's
 * results against a model of the operation computed here in double. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/cts_case.h"
#include "common/cts_multinomial.h"
#include "support/model_builder.h"
#include "support/model_runner.h"
#include "vknn/vknn.h"

#define F32 VKNN_OPERAND_TENSOR_FLOAT32
#define F16 VKNN_OPERAND_TENSOR_FLOAT16
#define I32 VKNN_OPERAND_TENSOR_INT32
#define OP(name) VKNN_OPERATION_##name

/* ---- building ------------------------------------------------------------ */

typedef struct ctx {
  model_builder b;
  uint32_t op_inputs[16], input_count;
  uint32_t op_outputs[4], output_count;
} ctx;

static vknn_operand *operand(ctx *c, uint32_t i) { return &c->b.operands[i]; }
static vknn_operand *in_k(ctx *c, uint32_t k) { return operand(c, c->op_inputs[k]); }
static vknn_operand *out_k(ctx *c, uint32_t k) { return operand(c, c->op_outputs[k]); }
static vknn_operation *the_op(ctx *c) { return &c->b.operations[c->b.operation_count - 1]; }

static uint32_t tensor_in(ctx *c, uint32_t d0, uint32_t d1, uint32_t d2) {
  const uint32_t dims[3] = {d0, d1, d2};
  return mb_input(&c->b, F32, dims, d1 == 0 ? 1 : d2 == 0 ? 2 : 3);
}

static uint32_t tensor_out(ctx *c, uint32_t d0, uint32_t d1, uint32_t d2) {
  const uint32_t dims[3] = {d0, d1, d2};
  return mb_output(&c->b, F32, dims, d2 == 0 ? 2 : 3);
}

/* A constant of zeros (inputs whose omission is known only at execution
 * defer the checks that need them: constants do not). */
static uint32_t tensor_const(ctx *c, uint32_t d0, uint32_t d1, uint32_t d2) {
  static const float zeros[256];
  const uint32_t dims[3] = {d0, d1, d2};
  uint32_t rank = d1 == 0 ? 1 : d2 == 0 ? 2 : 3;
  size_t count = (size_t)d0 * (d1 ? d1 : 1) * (d2 ? d2 : 1);
  return mb_const_tensor(&c->b, F32, dims, rank, zeros, count * sizeof(float));
}

static uint32_t omitted(ctx *c) {
  uint32_t i = mb_temporary(&c->b, F32, NULL, 0);
  operand(c, i)->lifetime = VKNN_LIFETIME_NO_VALUE;
  return i;
}

static uint32_t const_bool(ctx *c, bool value) {
  uint8_t v = value;
  return mb_const_tensor(&c->b, VKNN_OPERAND_BOOL, NULL, 0, &v, 1);
}

static void operation(ctx *c, int32_t type, const uint32_t *in, uint32_t n, const uint32_t *out,
                      uint32_t outs) {
  memcpy(c->op_inputs, in, n * sizeof(uint32_t));
  memcpy(c->op_outputs, out, outs * sizeof(uint32_t));
  c->input_count = n;
  c->output_count = outs;
  mb_operation(&c->b, type, in, n, out, outs);
}

/* Rewrites a constant INT32 or BOOL scalar input. */
static void set_param(ctx *c, uint32_t k, int32_t value) {
  const vknn_operand *o = in_k(c, k);
  if (o->type == VKNN_OPERAND_BOOL) c->b.values[o->location.offset] = (uint8_t)value;
  else memcpy(c->b.values + o->location.offset, &value, sizeof(value));
}

static void set_dims(ctx *c, vknn_operand *o, uint32_t d0, uint32_t d1) {
  uint32_t i = (uint32_t)(o - c->b.operands);
  c->b.dims[i][0] = d0;
  c->b.dims[i][1] = d1;
  o->dimension_count = d1 == 0 ? 1 : 2;
}

/* Operation input k becomes another operand. */
static void replace_input(ctx *c, uint32_t k, uint32_t new_operand) {
  in_k(c, k)->number_of_consumers--;
  operand(c, new_operand)->number_of_consumers++;
  c->op_inputs[k] = new_operand;
  ((uint32_t *)the_op(c)->inputs)[k] = new_operand;
}

/* RNN: batch 2, input 3, units 4. */
static void build_rnn(ctx *c) {
  const uint32_t in[6] = {tensor_in(c, 2, 3, 0), tensor_in(c, 4, 3, 0), tensor_in(c, 4, 4, 0),
                          tensor_in(c, 4, 0, 0), tensor_in(c, 2, 4, 0), mb_const_i32(&c->b, 1)};
  const uint32_t out[2] = {tensor_out(c, 2, 4, 0), tensor_out(c, 2, 4, 0)};
  operation(c, OP(RNN), in, 6, out, 2);
}

/* UNIDIRECTIONAL_SEQUENCE_RNN: batch 2, 5 steps (batch-major), input 3, units 4. */
static void build_uni(ctx *c) {
  const uint32_t in[7] = {tensor_in(c, 2, 5, 3), tensor_in(c, 4, 3, 0), tensor_in(c, 4, 4, 0),
                          tensor_in(c, 4, 0, 0), tensor_in(c, 2, 4, 0), mb_const_i32(&c->b, 0),
                          mb_const_i32(&c->b, 0)};
  const uint32_t out[2] = {tensor_out(c, 2, 5, 4), tensor_out(c, 2, 4, 0)};
  operation(c, OP(UNIDIRECTIONAL_SEQUENCE_RNN), in, 7, out, 2);
}

static void drop_last_output(ctx *c);
static void build_uni_one_output(ctx *c) {
  build_uni(c);
  drop_last_output(c);
}

/* BIDIRECTIONAL_SEQUENCE_RNN: 5 steps, batch 2 (time-major), input 3,
 * units 4 forward and 2 backward; outputs: count-dependent. */
static void build_bidi_outputs(ctx *c, bool merge, bool states, bool cross) {
  uint32_t in[15] = {tensor_in(c, 5, 2, 3), tensor_in(c, 4, 3, 0), tensor_in(c, 4, 4, 0),
                     tensor_in(c, 4, 0, 0), tensor_in(c, 2, 4, 0), tensor_in(c, 2, 3, 0),
                     tensor_in(c, 2, 2, 0), tensor_in(c, 2, 0, 0), tensor_in(c, 2, 2, 0),
                     omitted(c), omitted(c), omitted(c), mb_const_i32(&c->b, 0),
                     const_bool(c, true), const_bool(c, merge)};
  if (cross) {
    in[9] = tensor_const(c, 5, 2, 6);
    in[10] = tensor_const(c, 4, 6, 0);
    in[11] = tensor_const(c, 2, 6, 0);
  }
  uint32_t out[4], n = 0;
  out[n++] = tensor_out(c, 5, 2, merge ? 6 : 4);
  if (!merge) out[n++] = tensor_out(c, 5, 2, 2);
  if (states) out[n++] = tensor_out(c, 2, 4, 0), out[n++] = tensor_out(c, 2, 2, 0);
  operation(c, OP(BIDIRECTIONAL_SEQUENCE_RNN), in, 15, out, n);
}
static void build_bidi(ctx *c) { build_bidi_outputs(c, false, false, false); }
static void build_bidi_merged(ctx *c) { build_bidi_outputs(c, true, false, false); }
static void build_bidi_states(ctx *c) { build_bidi_outputs(c, false, true, false); }
static void build_bidi_merged_states(ctx *c) { build_bidi_outputs(c, true, true, false); }
static void build_bidi_cross(ctx *c) { build_bidi_outputs(c, false, false, true); }

/* SVDF: batch 2, input 3, rank 2, units 2 (4 filters), memory 5. */
static void build_svdf(ctx *c) {
  const uint32_t in[7] = {tensor_in(c, 2, 3, 0), tensor_in(c, 4, 3, 0), tensor_in(c, 4, 5, 0),
                          tensor_const(c, 2, 0, 0), tensor_in(c, 2, 20, 0), mb_const_i32(&c->b, 2),
                          mb_const_i32(&c->b, 0)};
  const uint32_t out[2] = {tensor_out(c, 2, 20, 0), tensor_out(c, 2, 2, 0)};
  operation(c, OP(SVDF), in, 7, out, 2);
}

static void build_svdf_no_bias(ctx *c) {
  build_svdf(c);
  replace_input(c, 3, omitted(c));
}

/* RANDOM_MULTINOMIAL: logits [2, 5], 8 samples. */
static void build_multinomial(ctx *c) {
  const int32_t seeds[2] = {1, 2};
  const uint32_t two = 2, out_dims[2] = {2, 8};
  const uint32_t in[3] = {tensor_in(c, 2, 5, 0), mb_const_i32(&c->b, 8),
                          mb_const_tensor(&c->b, I32, &two, 1, seeds, sizeof(seeds))};
  const uint32_t out = mb_output(&c->b, I32, out_dims, 2);
  operation(c, OP(RANDOM_MULTINOMIAL), in, 3, &out, 1);
}

/* ---- mutations ------------------------------------------------------------ */

static void drop_last_input(ctx *c) {
  the_op(c)->input_count--;
  in_k(c, c->input_count - 1)->number_of_consumers--;
}
/* The operation's last output, also the model's last, becomes a model input. */
static void drop_last_output(ctx *c) {
  uint32_t i = c->op_outputs[--c->output_count];
  the_op(c)->output_count--;
  c->b.output_count--;
  operand(c, i)->lifetime = VKNN_LIFETIME_SUBGRAPH_INPUT;
  c->b.inputs[c->b.input_count++] = i;
}
static void input0_int32(ctx *c) { in_k(c, 0)->type = I32; }
static void weights_f16(ctx *c) { in_k(c, 1)->type = F16; }
static void weights_rank1(ctx *c) { set_dims(c, in_k(c, 1), 12, 0); }
static void bias_rank2(ctx *c) { set_dims(c, in_k(c, 3), 1, 4); }
static void activation_float(ctx *c) { in_k(c, 5)->type = VKNN_OPERAND_FLOAT32; }
static void rnn_activation_7(ctx *c) { set_param(c, 5, 7); }
static void weights_5_inputs(ctx *c) { set_dims(c, in_k(c, 1), 4, 5); }
static void hidden_5_units(ctx *c) { set_dims(c, in_k(c, 4), 2, 5); }
/* The (forward) hidden state, or SVDF's state, of batch 3 where the input's is 2. */
static void hidden_batch_3(ctx *c) { c->b.dims[c->op_inputs[4]][0] = 3; }
static void bidi_bw_hidden_batch_3(ctx *c) { c->b.dims[c->op_inputs[8]][0] = 3; }
static void output1_f16(ctx *c) { out_k(c, 1)->type = F16; }
static void output1_dims(ctx *c) { set_dims(c, out_k(c, 1), 2, 5); }
static void recurrent_omitted(ctx *c) { replace_input(c, 2, omitted(c)); }
static void time_major_2(ctx *c) { set_param(c, 6, 2); }
static void time_major_bool(ctx *c) { replace_input(c, 6, const_bool(c, true)); }
static void input_rank2(ctx *c) { set_dims(c, in_k(c, 0), 2, 15); }
static void third_output(ctx *c) {
  const uint32_t dims[2] = {2, 4};
  uint32_t extra = mb_output(&c->b, F32, dims, 2);
  c->op_outputs[2] = extra;
  ((uint32_t *)the_op(c)->outputs)[2] = extra;
  the_op(c)->output_count = 3;
}
static void state_output_rank3(ctx *c) {
  uint32_t i = c->op_outputs[1];
  c->b.dims[i][2] = 1;
  operand(c, i)->dimension_count = 3;
}
static void uni_output_dims(ctx *c) { c->b.dims[c->op_outputs[0]][1] = 4; }
static void bidi_fw_aux_only(ctx *c) { replace_input(c, 10, tensor_in(c, 4, 3, 0)); }
static void bidi_aux_weights_no_input(ctx *c) {
  replace_input(c, 10, tensor_in(c, 4, 3, 0));
  replace_input(c, 11, tensor_in(c, 2, 3, 0));
}
static void bidi_merge_true(ctx *c) { set_param(c, 14, 1); }
static void bidi_time_major_int(ctx *c) { replace_input(c, 13, mb_const_i32(&c->b, 1)); }
static void bidi_merge_int(ctx *c) { replace_input(c, 14, mb_const_i32(&c->b, 0)); }
static void bidi_bw_bias_omitted(ctx *c) { replace_input(c, 7, omitted(c)); }
static void bidi_aux_batch(ctx *c) { replace_input(c, 9, tensor_const(c, 5, 3, 6)); }
static void bidi_bw_weights_inputs(ctx *c) { set_dims(c, in_k(c, 5), 2, 4); }
static void bidi_aux_f16(ctx *c) {
  const uint32_t dims[3] = {5, 2, 3};
  replace_input(c, 9, mb_input(&c->b, F16, dims, 3));
}
static void bidi_bw_output_units(ctx *c) { c->b.dims[c->op_outputs[1]][2] = 4; }
static void bidi_five_outputs(ctx *c) {
  const uint32_t dims[2] = {2, 2};
  ((uint32_t *)the_op(c)->outputs)[4] = mb_output(&c->b, F32, dims, 2);
  the_op(c)->output_count = 5;
}
static void bidi_activation_7(ctx *c) { set_param(c, 12, 7); }
static void svdf_rank_0(ctx *c) { set_param(c, 5, 0); }
static void svdf_rank_3(ctx *c) { set_param(c, 5, 3); }
static void svdf_state_size(ctx *c) { set_dims(c, in_k(c, 4), 2, 16); }
static void svdf_rank_float(ctx *c) { in_k(c, 5)->type = VKNN_OPERAND_FLOAT32; }
static void svdf_input_omitted(ctx *c) { replace_input(c, 0, omitted(c)); }
static void svdf_time_rank1(ctx *c) { set_dims(c, in_k(c, 2), 20, 0); }
static void svdf_bias_units(ctx *c) { replace_input(c, 3, tensor_const(c, 4, 0, 0)); }
static void svdf_feature_inputs(ctx *c) { set_dims(c, in_k(c, 1), 4, 2); }
static void svdf_activation_7(ctx *c) { set_param(c, 6, 7); }
static void svdf_state_out_f16(ctx *c) { out_k(c, 0)->type = F16; }
static void mn_samples_0(ctx *c) { set_param(c, 1, 0); }
static void mn_samples_negative(ctx *c) { set_param(c, 1, -1); }
static void mn_seeds_3(ctx *c) {
  const int32_t seeds[3] = {1, 2, 3};
  const uint32_t three = 3;
  replace_input(c, 2, mb_const_tensor(&c->b, I32, &three, 1, seeds, sizeof(seeds)));
}
static void mn_seeds_float(ctx *c) { in_k(c, 2)->type = F32; }
static void mn_output_float(ctx *c) { out_k(c, 0)->type = F32; }
static void mn_logits_rank3(ctx *c) {
  uint32_t i = c->op_inputs[0];
  c->b.dims[i][2] = 1;
  operand(c, i)->dimension_count = 3;
}
static void mn_samples_float(ctx *c) { in_k(c, 1)->type = VKNN_OPERAND_FLOAT32; }
/* Input 0's first dimension left to the execution: the operation waits for
 * it, and its scalar parameters are still checked at prepare. */
static void input_dim0_unknown(ctx *c) { c->b.dims[c->op_inputs[0]][0] = 0; }
static void unknown_rnn_activation_7(ctx *c) { input_dim0_unknown(c), rnn_activation_7(c); }
static void unknown_time_major_2(ctx *c) { input_dim0_unknown(c), time_major_2(c); }
static void unknown_bidi_activation_7(ctx *c) { input_dim0_unknown(c), bidi_activation_7(c); }
static void unknown_bidi_merge_true(ctx *c) { input_dim0_unknown(c), bidi_merge_true(c); }
static void unknown_svdf_rank_0(ctx *c) { input_dim0_unknown(c), svdf_rank_0(c); }
static void unknown_svdf_activation_7(ctx *c) { input_dim0_unknown(c), svdf_activation_7(c); }
static void unknown_mn_samples_negative(ctx *c) { input_dim0_unknown(c), mn_samples_negative(c); }

typedef struct row {
  const char *name;
  void (*build)(ctx *c);
  void (*mutate)(ctx *c);   /* NULL: the valid model, accepted */
  const char *expected_log; /* NULL: accepted */
} row;

static const row rows[] = {
    {"RNN accepted", build_rnn, NULL, NULL},
    {"RNN: 5 inputs", build_rnn, drop_last_input, "takes 6 inputs and 2 outputs"},
    {"RNN: 1 output", build_rnn, drop_last_output, "takes 6 inputs and 2 outputs"},
    {"RNN: int32 input", build_rnn, input0_int32, "the input of type TENSOR_INT32 is not allowed"},
    {"RNN: float16 weights", build_rnn, weights_f16, "the weights must be TENSOR_FLOAT32"},
    {"RNN: weights of rank 1", build_rnn, weights_rank1, "the weights must have rank 2"},
    {"RNN: bias of rank 2", build_rnn, bias_rank2, "the bias must have rank 1"},
    {"RNN: float activation", build_rnn, activation_float, "the activation must be INT32"},
    {"RNN: activation 7", build_rnn, rnn_activation_7, "activation 7 is not a fused activation"},
    {"RNN: weights of 5 inputs", build_rnn, weights_5_inputs, "do not agree"},
    {"RNN: hidden state of 5 units", build_rnn, hidden_5_units, "do not agree"},
    {"RNN: hidden state of batch 3", build_rnn, hidden_batch_3, "do not agree"},
    {"RNN: float16 output", build_rnn, output1_f16, "every output must be TENSOR_FLOAT32"},
    {"RNN: output dims", build_rnn, output1_dims, "output dimension 1 is 5, expected 4 (output 1 of 2)"},
    {"RNN: omitted recurrent weights", build_rnn, recurrent_omitted, "input 2 is omitted"},
    {"RNN accepted: input dimension 0 unknown", build_rnn, input_dim0_unknown, NULL},
    {"RNN: input dimension 0 unknown, activation 7", build_rnn, unknown_rnn_activation_7, "activation 7 is not a fused activation"},
    {"UNIDIRECTIONAL_SEQUENCE_RNN accepted", build_uni, NULL, NULL},
    {"UNIDIRECTIONAL_SEQUENCE_RNN accepted: no state output", build_uni_one_output, NULL, NULL},
    {"UNIDIRECTIONAL_SEQUENCE_RNN: timeMajor 2", build_uni, time_major_2, "timeMajor 2 is not 0 or 1"},
    {"UNIDIRECTIONAL_SEQUENCE_RNN: timeMajor BOOL", build_uni, time_major_bool, "timeMajor must be INT32"},
    {"UNIDIRECTIONAL_SEQUENCE_RNN: input of rank 2", build_uni, input_rank2, "the input must have rank 3"},
    {"UNIDIRECTIONAL_SEQUENCE_RNN: 3 outputs", build_uni, third_output, "takes 7 inputs"},
    {"UNIDIRECTIONAL_SEQUENCE_RNN: 6 inputs", build_uni, drop_last_input, "takes 7 inputs"},
    {"UNIDIRECTIONAL_SEQUENCE_RNN: state output of rank 3", build_uni, state_output_rank3, "the state output must have rank 2"},
    {"UNIDIRECTIONAL_SEQUENCE_RNN: output dims", build_uni, uni_output_dims, "output dimension 1 is 4, expected 5"},
    {"UNIDIRECTIONAL_SEQUENCE_RNN: float16 weights", build_uni, weights_f16, "the weights must be TENSOR_FLOAT32"},
    {"UNIDIRECTIONAL_SEQUENCE_RNN: hidden state of 5 units", build_uni, hidden_5_units, "do not agree"},
    {"UNIDIRECTIONAL_SEQUENCE_RNN: hidden state of batch 3", build_uni, hidden_batch_3, "do not agree"},
    {"UNIDIRECTIONAL_SEQUENCE_RNN accepted: input dimension 0 unknown", build_uni, input_dim0_unknown, NULL},
    {"UNIDIRECTIONAL_SEQUENCE_RNN: input dimension 0 unknown, activation 7", build_uni, unknown_rnn_activation_7, "activation 7 is not a fused activation"},
    {"UNIDIRECTIONAL_SEQUENCE_RNN: input dimension 0 unknown, timeMajor 2", build_uni, unknown_time_major_2, "timeMajor 2 is not 0 or 1"},
    {"BIDIRECTIONAL_SEQUENCE_RNN accepted", build_bidi, NULL, NULL},
    {"BIDIRECTIONAL_SEQUENCE_RNN accepted: merged", build_bidi_merged, NULL, NULL},
    {"BIDIRECTIONAL_SEQUENCE_RNN accepted: states", build_bidi_states, NULL, NULL},
    {"BIDIRECTIONAL_SEQUENCE_RNN accepted: merged, states", build_bidi_merged_states, NULL, NULL},
    {"BIDIRECTIONAL_SEQUENCE_RNN accepted: cross-linking", build_bidi_cross, NULL, NULL},
    {"BIDIRECTIONAL_SEQUENCE_RNN: forward auxiliary weights only", build_bidi, bidi_fw_aux_only, "auxiliary weights must be both given"},
    {"BIDIRECTIONAL_SEQUENCE_RNN: auxiliary weights without input", build_bidi, bidi_aux_weights_no_input, "auxiliary weights must be both given"},
    {"BIDIRECTIONAL_SEQUENCE_RNN: 2 outputs merged", build_bidi, bidi_merge_true, "2 outputs do not go with mergeOutputs true"},
    {"BIDIRECTIONAL_SEQUENCE_RNN: 1 output not merged", build_bidi, drop_last_output, "1 outputs do not go with mergeOutputs false"},
    {"BIDIRECTIONAL_SEQUENCE_RNN: 5 outputs", build_bidi_states, bidi_five_outputs, "15 inputs and 1 to 4 outputs"},
    {"BIDIRECTIONAL_SEQUENCE_RNN: 14 inputs", build_bidi, drop_last_input, "15 inputs and 1 to 4 outputs"},
    {"BIDIRECTIONAL_SEQUENCE_RNN: timeMajor INT32", build_bidi, bidi_time_major_int, "timeMajor must be BOOL"},
    {"BIDIRECTIONAL_SEQUENCE_RNN: mergeOutputs INT32", build_bidi, bidi_merge_int, "mergeOutputs must be BOOL"},
    {"BIDIRECTIONAL_SEQUENCE_RNN: activation 7", build_bidi, bidi_activation_7, "activation 7 is not a fused activation"},
    {"BIDIRECTIONAL_SEQUENCE_RNN: omitted backward bias", build_bidi, bidi_bw_bias_omitted, "input 7 is omitted but not optional"},
    {"BIDIRECTIONAL_SEQUENCE_RNN: auxiliary input's batch", build_bidi_cross, bidi_aux_batch, "auxiliary input's steps and batch differ"},
    {"BIDIRECTIONAL_SEQUENCE_RNN: float16 auxiliary input", build_bidi, bidi_aux_f16, "the auxiliary input must be TENSOR_FLOAT32"},
    {"BIDIRECTIONAL_SEQUENCE_RNN: backward weights of 4 inputs", build_bidi, bidi_bw_weights_inputs, "do not agree"},
    {"BIDIRECTIONAL_SEQUENCE_RNN: forward hidden state of batch 3", build_bidi, hidden_batch_3, "do not agree"},
    {"BIDIRECTIONAL_SEQUENCE_RNN: backward hidden state of batch 3", build_bidi, bidi_bw_hidden_batch_3, "do not agree"},
    {"BIDIRECTIONAL_SEQUENCE_RNN: backward output units", build_bidi, bidi_bw_output_units, "output dimension 2 is 4, expected 2"},
    {"BIDIRECTIONAL_SEQUENCE_RNN: int32 input", build_bidi, input0_int32, "the input of type TENSOR_INT32 is not allowed"},
    {"BIDIRECTIONAL_SEQUENCE_RNN accepted: input dimension 0 unknown", build_bidi, input_dim0_unknown, NULL},
    {"BIDIRECTIONAL_SEQUENCE_RNN: input dimension 0 unknown, activation 7", build_bidi, unknown_bidi_activation_7, "activation 7 is not a fused activation"},
    {"BIDIRECTIONAL_SEQUENCE_RNN: input dimension 0 unknown, 2 outputs merged", build_bidi, unknown_bidi_merge_true, "2 outputs do not go with mergeOutputs true"},
    {"SVDF accepted", build_svdf, NULL, NULL},
    {"SVDF accepted: no bias", build_svdf_no_bias, NULL, NULL},
    {"SVDF: rank 0", build_svdf, svdf_rank_0, "rank 0 must be above 0"},
    {"SVDF: 4 filters of rank 3", build_svdf, svdf_rank_3, "rank 3 and the shapes"},
    {"SVDF: state of 16", build_svdf, svdf_state_size, "do not agree"},
    {"SVDF: state of batch 3", build_svdf, hidden_batch_3, "do not agree"},
    {"SVDF: bias of 4 units", build_svdf, svdf_bias_units, "do not agree"},
    {"SVDF: weights_feature of 2 inputs", build_svdf, svdf_feature_inputs, "do not agree"},
    {"SVDF: activation 7", build_svdf, svdf_activation_7, "activation 7 is not a fused activation code"},
    {"SVDF: float rank", build_svdf, svdf_rank_float, "the rank must be INT32"},
    {"SVDF: omitted input", build_svdf, svdf_input_omitted, "input 0 is omitted but not optional"},
    {"SVDF: weights_time of rank 1", build_svdf, svdf_time_rank1, "weights_time must have rank 2"},
    {"SVDF: 6 inputs", build_svdf, drop_last_input, "SVDF takes 7 inputs and 2 outputs"},
    {"SVDF: int32 input", build_svdf, input0_int32, "the input of type TENSOR_INT32 is not allowed"},
    {"SVDF: float16 weights", build_svdf, weights_f16, "weights_feature must be TENSOR_FLOAT32"},
    {"SVDF: float16 state output", build_svdf, svdf_state_out_f16, "the state output must be TENSOR_FLOAT32"},
    {"SVDF accepted: input dimension 0 unknown", build_svdf, input_dim0_unknown, NULL},
    {"SVDF: input dimension 0 unknown, rank 0", build_svdf, unknown_svdf_rank_0, "rank 0 must be above 0"},
    {"SVDF: input dimension 0 unknown, activation 7", build_svdf, unknown_svdf_activation_7, "activation 7 is not a fused activation code"},
    {"RANDOM_MULTINOMIAL accepted", build_multinomial, NULL, NULL},
    {"RANDOM_MULTINOMIAL: int32 logits", build_multinomial, input0_int32, "logits of type TENSOR_INT32 are not allowed"},
    {"RANDOM_MULTINOMIAL: logits of rank 3", build_multinomial, mn_logits_rank3, "the logits must have rank 2"},
    {"RANDOM_MULTINOMIAL: -1 samples", build_multinomial, mn_samples_negative, "-1 samples (0 or more expected)"},
    {"RANDOM_MULTINOMIAL: float sample count", build_multinomial, mn_samples_float, "the sample count must be INT32"},
    {"RANDOM_MULTINOMIAL: 3 seeds", build_multinomial, mn_seeds_3, "3 seeds"},
    {"RANDOM_MULTINOMIAL: float seeds", build_multinomial, mn_seeds_float, "the seeds must be TENSOR_INT32"},
    {"RANDOM_MULTINOMIAL: float output", build_multinomial, mn_output_float, "the output must be TENSOR_INT32"},
    {"RANDOM_MULTINOMIAL: 2 inputs", build_multinomial, drop_last_input, "takes 3 inputs and 1 outputs"},
    {"RANDOM_MULTINOMIAL accepted: input dimension 0 unknown", build_multinomial, input_dim0_unknown, NULL},
    {"RANDOM_MULTINOMIAL: input dimension 0 unknown, -1 samples", build_multinomial, unknown_mn_samples_negative, "-1 samples (0 or more expected)"},
};

/* ---- running the rows ------------------------------------------------------ */

typedef struct log_lines {
  char text[8192];
  size_t used;
} log_lines;

typedef struct rules_fixture {
  vknn_device *device;
  log_lines log;
} rules_fixture;

static rules_fixture *rules;

static void collect_log(void *user_data, vknn_log_level level, const char *tag, const char *message) {
  (void)tag;
  log_lines *log = user_data;
  if (level != VKNN_LOG_ERROR) return;
  int n = snprintf(log->text + log->used, sizeof(log->text) - log->used, "%s\n", message);
  if (n > 0) log->used += (size_t)n < sizeof(log->text) - log->used ? (size_t)n : 0;
}

static int rules_setup(void **state) {
  (void)state;
  rules = calloc(1, sizeof(*rules));
  if (rules == NULL) return -1;
  vknn_device_options options = {.enable_validation = true, .log_callback = collect_log,
                                 .log_user_data = &rules->log};
  return vknn_device_open(&options, &rules->device) == VKNN_STATUS_NONE ? 0 : -1;
}

static int rules_teardown(void **state) {
  (void)state;
  uint64_t messages = vknn_device_get_validation_message_count(rules->device);
  vknn_device_close(rules->device);
  free(rules);
  return messages == 0 ? 0 : -1;
}

static void expect_result(const row *r, const char *step, vknn_status s) {
  vknn_status want = r->expected_log ? VKNN_STATUS_INVALID_ARGUMENT : VKNN_STATUS_NONE;
  if (s != want) fail_msg("%s: %s gave %s (log: %s)", r->name, step, vknn_status_name(s), rules->log.text);
  if (r->expected_log && strstr(rules->log.text, r->expected_log) == NULL)
    fail_msg("%s: %s logged \"%s\", not \"%s\"", r->name, step, rules->log.text, r->expected_log);
  rules->log.used = 0;
  rules->log.text[0] = '\0';
}

static void test_row(void **state) {
  const row *r = *state;
  ctx *c = calloc(1, sizeof(*c));
  assert_non_null(c);
  mb_init(&c->b);
  r->build(c);
  if (r->mutate) r->mutate(c);
  const vknn_model *model = mb_finish(&c->b);
  bool supported[MB_MAX_OPERATIONS] = {false};
  vknn_status s = vknn_device_get_supported_operations(rules->device, model, supported,
                                                       model->main.operation_count);
  if (r->expected_log == NULL && s == VKNN_STATUS_NONE && !supported[0])
    fail_msg("%s: not supported (log: %s)", r->name, rules->log.text);
  expect_result(r, "the support query", s);
  vknn_prepared_model *pm = NULL;
  s = vknn_device_prepare_model(rules->device, model, VKNN_PREFER_SUSTAINED_SPEED,
                                VKNN_PRIORITY_MEDIUM, NULL, &pm);
  if (pm != NULL) vknn_prepared_model_release(pm);
  free(c);
  expect_result(r, "prepare", s);
}

/* ---- values ---------------------------------------------------------------- */

/* Deterministic values in [-0.5, 0.5). */
static void fill(float *v, size_t n, uint32_t seed) {
  for (size_t i = 0; i < n; ++i) {
    seed = seed * 1664525u + 1013904223u;
    v[i] = (float)(seed >> 8) / 16777216.f - 0.5f;
  }
}

static uint32_t const_floats(model_builder *b, const float *v, uint32_t d0, uint32_t d1) {
  const uint32_t dims[2] = {d0, d1};
  return mb_const_tensor(b, F32, dims, d1 ? 2 : 1, v, (size_t)d0 * (d1 ? d1 : 1) * sizeof(float));
}

static void expect_close(const float *got, const double *want, size_t n, double tol, const char *what) {
  for (size_t i = 0; i < n; ++i)
    if (!(fabs(got[i] - want[i]) <= tol)) fail_msg("%s[%zu]: got %.7g, expected %.7g", what, i, got[i], want[i]);
}

/* One RNN cell over a sequence, in double: rows of input and output by
 * (step, batch) as the layout says; the auxiliary input optional. */
typedef struct ref_cell {
  const float *x, *w, *r, *bias, *h0, *aux, *aw;
  uint32_t in_size, aux_size, units;
} ref_cell;

typedef struct ref_seq {
  uint32_t batch, steps;
  bool time_major, reverse;
  double lo, hi;
  uint32_t out_width, out_col;
} ref_seq;

static double clamp_d(double v, double lo, double hi) { return v < lo ? lo : v > hi ? hi : v; }

static void ref_sequence(const ref_cell *c, const ref_seq *q, double *out, double *h_last) {
  double h[64], next[64];
  for (uint32_t i = 0; i < q->batch * c->units; ++i) h[i] = c->h0[i];
  for (uint32_t s = 0; s < q->steps; ++s) {
    uint32_t t = q->reverse ? q->steps - 1 - s : s;
    for (uint32_t b = 0; b < q->batch; ++b) {
      uint32_t row = q->time_major ? t * q->batch + b : b * q->steps + t;
      for (uint32_t u = 0; u < c->units; ++u) {
        double v = c->bias[u];
        for (uint32_t k = 0; k < c->in_size; ++k) v += (double)c->x[row * c->in_size + k] * c->w[u * c->in_size + k];
        for (uint32_t k = 0; c->aux && k < c->aux_size; ++k)
          v += (double)c->aux[row * c->aux_size + k] * c->aw[u * c->aux_size + k];
        for (uint32_t k = 0; k < c->units; ++k) v += h[b * c->units + k] * c->r[u * c->units + k];
        next[b * c->units + u] = clamp_d(v, q->lo, q->hi);
        out[row * q->out_width + q->out_col + u] = next[b * c->units + u];
      }
    }
    memcpy(h, next, sizeof(double) * q->batch * c->units);
  }
  memcpy(h_last, h, sizeof(double) * q->batch * c->units);
}

/* UNIDIRECTIONAL_SEQUENCE_RNN, batch 2, 5 steps, input 3, units 4, RELU1. */
static void run_unidirectional(void **state, bool time_major, bool layout_as_input) {
  runner_fixture *f = *state;
  enum { B = 2, T = 5, I = 3, U = 4 };
  float x[B * T * I], w[U * I], r[U * U], bias[U], h0[B * U], out[B * T * U], h_out[B * U];
  fill(x, B * T * I, 1), fill(w, U * I, 2), fill(r, U * U, 3), fill(bias, U, 4), fill(h0, B * U, 5);
  model_builder b;
  mb_init(&b);
  const uint32_t x_dims[3] = {time_major ? T : B, time_major ? B : T, I};
  const uint32_t o_dims[3] = {x_dims[0], x_dims[1], U}, h_dims[2] = {B, U};
  const uint32_t in[7] = {mb_input(&b, F32, x_dims, 3), const_floats(&b, w, U, I), const_floats(&b, r, U, U),
                          const_floats(&b, bias, U, 0), mb_input(&b, F32, h_dims, 2),
                          mb_const_i32(&b, 2),
                          layout_as_input ? mb_input(&b, VKNN_OPERAND_INT32, NULL, 0)
                                          : mb_const_i32(&b, time_major)};
  const uint32_t outs[2] = {mb_output(&b, F32, o_dims, 3), mb_output(&b, F32, h_dims, 2)};
  mb_operation(&b, OP(UNIDIRECTIONAL_SEQUENCE_RNN), in, 7, outs, 2);
  int32_t layout = time_major;
  buffer_arg inputs[3] = {{x, NULL, sizeof(x)}, {h0, NULL, sizeof(h0)}, {&layout, NULL, sizeof(layout)}};
  buffer_arg outputs[2] = {{NULL, out, sizeof(out)}, {NULL, h_out, sizeof(h_out)}};
  model_runner_run(f->device, &f->log, &b, inputs, outputs, NULL);
  double want[B * T * U], want_h[B * U];
  ref_cell cell = {x, w, r, bias, h0, NULL, NULL, I, 0, U};
  ref_seq seq = {B, T, time_major, false, -1, 1, U, 0};
  ref_sequence(&cell, &seq, want, want_h);
  expect_close(out, want, B * T * U, 1e-5, "output");
  expect_close(h_out, want_h, B * U, 1e-5, "state");
}

static void test_unidirectional_batch_major(void **state) { run_unidirectional(state, false, false); }
static void test_unidirectional_time_major(void **state) { run_unidirectional(state, true, false); }
/* timeMajor given by the execution: the model is compiled per value. */
static void test_unidirectional_layout_input(void **state) { run_unidirectional(state, true, true); }

/* BIDIRECTIONAL_SEQUENCE_RNN, cross-linking, merged outputs and the states:
 * 4 steps (batch-major), batch 2, input 3, auxiliary input 2, units 3 and 2. */
static void test_bidirectional_cross_merged(void **state) {
  runner_fixture *f = *state;
  enum { B = 2, T = 4, I = 3, A = 2, FU = 3, BU = 2, W = FU + BU };
  float x[B * T * I], aux[B * T * A], fw_h[B * FU], bw_h[B * BU];
  float fw_w[FU * I], fw_r[FU * FU], fw_b[FU], fw_a[FU * A], bw_w[BU * I], bw_r[BU * BU], bw_b[BU], bw_a[BU * A];
  fill(x, B * T * I, 11), fill(aux, B * T * A, 12), fill(fw_h, B * FU, 13), fill(bw_h, B * BU, 14);
  fill(fw_w, FU * I, 15), fill(fw_r, FU * FU, 16), fill(fw_b, FU, 17), fill(fw_a, FU * A, 18);
  fill(bw_w, BU * I, 19), fill(bw_r, BU * BU, 20), fill(bw_b, BU, 21), fill(bw_a, BU * A, 22);
  model_builder b;
  mb_init(&b);
  const uint32_t x_dims[3] = {B, T, I}, a_dims[3] = {B, T, A}, o_dims[3] = {B, T, W};
  const uint32_t fh_dims[2] = {B, FU}, bh_dims[2] = {B, BU};
  uint8_t t = 1, f0 = 0;
  const uint32_t in[15] = {
      mb_input(&b, F32, x_dims, 3), const_floats(&b, fw_w, FU, I), const_floats(&b, fw_r, FU, FU),
      const_floats(&b, fw_b, FU, 0), mb_input(&b, F32, fh_dims, 2), const_floats(&b, bw_w, BU, I),
      const_floats(&b, bw_r, BU, BU), const_floats(&b, bw_b, BU, 0), mb_input(&b, F32, bh_dims, 2),
      mb_input(&b, F32, a_dims, 3), const_floats(&b, fw_a, FU, A), const_floats(&b, bw_a, BU, A),
      mb_const_i32(&b, 0), mb_const_tensor(&b, VKNN_OPERAND_BOOL, NULL, 0, &f0, 1),
      mb_const_tensor(&b, VKNN_OPERAND_BOOL, NULL, 0, &t, 1)};
  const uint32_t outs[3] = {mb_output(&b, F32, o_dims, 3), mb_output(&b, F32, fh_dims, 2),
                            mb_output(&b, F32, bh_dims, 2)};
  mb_operation(&b, OP(BIDIRECTIONAL_SEQUENCE_RNN), in, 15, outs, 3);
  float out[B * T * W], fw_last[B * FU], bw_last[B * BU];
  buffer_arg inputs[4] = {{x, NULL, sizeof(x)}, {fw_h, NULL, sizeof(fw_h)}, {bw_h, NULL, sizeof(bw_h)},
                          {aux, NULL, sizeof(aux)}};
  buffer_arg outputs[3] = {{NULL, out, sizeof(out)}, {NULL, fw_last, sizeof(fw_last)},
                           {NULL, bw_last, sizeof(bw_last)}};
  model_runner_run(f->device, &f->log, &b, inputs, outputs, NULL);
  double want[B * T * W], want_fw[B * FU], want_bw[B * BU];
  ref_cell fw = {x, fw_w, fw_r, fw_b, fw_h, aux, fw_a, I, A, FU};
  ref_cell bw = {x, bw_w, bw_r, bw_b, bw_h, aux, bw_a, I, A, BU};
  ref_seq fq = {B, T, false, false, -INFINITY, INFINITY, W, 0};
  ref_seq bq = {B, T, false, true, -INFINITY, INFINITY, W, FU};
  ref_sequence(&fw, &fq, want, want_fw);
  ref_sequence(&bw, &bq, want, want_bw);
  expect_close(out, want, B * T * W, 1e-5, "merged output");
  expect_close(fw_last, want_fw, B * FU, 1e-5, "forward state");
  expect_close(bw_last, want_bw, B * BU, 1e-5, "backward state");
}

/* SVDF, batch 2, input 3, rank 2, units 2, memory 4, a state of earlier
 * frames, RELU. */
static void test_svdf_values(void **state) {
  runner_fixture *f = *state;
  enum { B = 2, I = 3, R = 2, U = 2, F = U * R, M = 4 };
  float x[B * I], wf[F * I], wt[F * M], bias[U], st[B * F * M], st_out[B * F * M], out[B * U];
  fill(x, B * I, 31), fill(wf, F * I, 32), fill(wt, F * M, 33), fill(bias, U, 34), fill(st, B * F * M, 35);
  for (uint32_t i = M - 1; i < B * F * M; i += M) st[i] = 0; /* the free slot */
  model_builder b;
  mb_init(&b);
  const uint32_t x_dims[2] = {B, I}, s_dims[2] = {B, F * M}, o_dims[2] = {B, U};
  const uint32_t in[7] = {mb_input(&b, F32, x_dims, 2), const_floats(&b, wf, F, I), const_floats(&b, wt, F, M),
                          const_floats(&b, bias, U, 0), mb_input(&b, F32, s_dims, 2),
                          mb_const_i32(&b, R), mb_const_i32(&b, 1)};
  const uint32_t outs[2] = {mb_output(&b, F32, s_dims, 2), mb_output(&b, F32, o_dims, 2)};
  mb_operation(&b, OP(SVDF), in, 7, outs, 2);
  buffer_arg inputs[2] = {{x, NULL, sizeof(x)}, {st, NULL, sizeof(st)}};
  buffer_arg outputs[2] = {{NULL, st_out, sizeof(st_out)}, {NULL, out, sizeof(out)}};
  model_runner_run(f->device, &f->log, &b, inputs, outputs, NULL);
  double want[B * U], want_state[B * F * M];
  for (uint32_t bt = 0; bt < B; ++bt) {
    for (uint32_t u = 0; u < U; ++u) {
      double v = bias[u];
      for (uint32_t rr = 0; rr < R; ++rr) {
        uint32_t fi = u * R + rr;
        double memory[M];
        for (uint32_t j = 0; j < M; ++j) memory[j] = st[(bt * F + fi) * M + j];
        memory[M - 1] = 0;
        for (uint32_t k = 0; k < I; ++k) memory[M - 1] += (double)x[bt * I + k] * wf[fi * I + k];
        for (uint32_t j = 0; j < M; ++j) v += memory[j] * wt[fi * M + j];
        for (uint32_t j = 0; j < M; ++j) want_state[(bt * F + fi) * M + j] = j + 1 < M ? memory[j + 1] : 0;
      }
      want[bt * U + u] = v > 0 ? v : 0;
    }
  }
  expect_close(out, want, B * U, 1e-5, "output");
  expect_close(st_out, want_state, B * F * M, 1e-6, "state");
}

/* RANDOM_MULTINOMIAL: 4096 samples of two rows follow their softmax (within
 * 0.03), every sample is a class; the same seeds draw the same samples,
 * other seeds others. */
enum { MN_SAMPLES = 4096 };

static void draw(runner_fixture *f, const float *logits, int32_t seed0, int32_t *out) {
  model_builder b;
  mb_init(&b);
  const int32_t seeds[2] = {seed0, 7};
  const uint32_t l_dims[2] = {2, 4}, two = 2, o_dims[2] = {2, MN_SAMPLES};
  const uint32_t in[3] = {mb_input(&b, F32, l_dims, 2), mb_const_i32(&b, MN_SAMPLES),
                          mb_const_tensor(&b, I32, &two, 1, seeds, sizeof(seeds))};
  const uint32_t o = mb_output(&b, I32, o_dims, 2);
  mb_operation(&b, OP(RANDOM_MULTINOMIAL), in, 3, &o, 1);
  buffer_arg inputs[1] = {{logits, NULL, 8 * sizeof(float)}};
  buffer_arg outputs[1] = {{NULL, out, 2 * MN_SAMPLES * sizeof(int32_t)}};
  model_runner_run(f->device, &f->log, &b, inputs, outputs, NULL);
}

static void test_multinomial_distribution(void **state) {
  runner_fixture *f = *state;
  const float logits[8] = {logf(0.1f), logf(0.2f), logf(0.3f), logf(0.4f), 2.f, 0.f, -30.f, 2.f};
  int32_t *a = calloc(2 * MN_SAMPLES, sizeof(int32_t)), *same = calloc(2 * MN_SAMPLES, sizeof(int32_t));
  int32_t *other = calloc(2 * MN_SAMPLES, sizeof(int32_t));
  assert_true(a && same && other);
  draw(f, logits, 3, a);
  draw(f, logits, 3, same);
  draw(f, logits, 4, other);
  for (uint32_t row = 0; row < 2; ++row) {
    double total = 0, counts[4] = {0};
    for (uint32_t k = 0; k < 4; ++k) total += exp(logits[row * 4 + k]);
    for (uint32_t s = 0; s < MN_SAMPLES; ++s) {
      int32_t c = a[row * MN_SAMPLES + s];
      if (c < 0 || c >= 4) fail_msg("row %u sample %u is class %d", row, s, c);
      counts[c] += 1;
    }
    for (uint32_t k = 0; k < 4; ++k) {
      double p = exp(logits[row * 4 + k]) / total, share = counts[k] / MN_SAMPLES;
      if (fabs(share - p) > 0.03) fail_msg("row %u class %u: drawn %.4f, probability %.4f", row, k, share, p);
    }
  }
  assert_memory_equal(a, same, 2 * MN_SAMPLES * sizeof(int32_t));
  assert_true(memcmp(a, other, 2 * MN_SAMPLES * sizeof(int32_t)) != 0);
  free(a), free(same), free(other);
}

/* lavapipe's loop limiter (docs/architecture.md, "Loop budget on
 * lavapipe"): an invocation walks its row of logits three times, so 20000
 * classes (60000 iterations) run and 20001 are refused with a log line. */
static void test_multinomial_loop_budget(void **state) {
  runner_fixture *f = *state;
  static const uint32_t kClasses[2] = {20000, 20001};
  static const char *const kLogged[2] = {
      NULL, "RANDOM_MULTINOMIAL: the walks over the classes take 60003 loop iterations an invocation"};
  for (uint32_t i = 0; i < 2; ++i) {
    model_builder b;
    mb_init(&b);
    const int32_t seeds[2] = {1, 2};
    const uint32_t l_dims[2] = {1, kClasses[i]}, two = 2, o_dims[2] = {1, 4};
    const uint32_t in[3] = {mb_input(&b, F32, l_dims, 2), mb_const_i32(&b, 4),
                            mb_const_tensor(&b, I32, &two, 1, seeds, sizeof(seeds))};
    const uint32_t o = mb_output(&b, I32, o_dims, 2);
    mb_operation(&b, OP(RANDOM_MULTINOMIAL), in, 3, &o, 1);
    model_runner_expect_support(f, mb_finish(&b), kLogged[i] ? "20001 classes" : "20000 classes", kLogged[i]);
  }
}

/* The conformance runner's distribution check: one row of two equally
 * likely classes, 10 samples, tolerance 0.05. */
static const char multinomial_case[] =
    "{\"name\": \"mn\", \"spec\": \"mn\", \"minSupportedVersion\": \"V1_2\", \"isRelaxed\": false,"
    " \"expectFailure\": false, \"expectedMultinomialDistributionTolerance\": 0.05, \"referenced\": [],"
    " \"main\": {\"operations\": [{\"type\": \"RANDOM_MULTINOMIAL\", \"inputs\": [0, 1, 2], \"outputs\": [3]}],"
    " \"inputIndexes\": [0], \"outputIndexes\": [3], \"operands\": ["
    "{\"name\": \"l\", \"type\": \"TENSOR_FLOAT32\", \"dimensions\": [1, 2], \"scale\": 0, \"zeroPoint\": 0,"
    " \"lifetime\": \"SUBGRAPH_INPUT\", \"numberOfConsumers\": 1, \"channelQuant\": null, \"isIgnored\": false, \"data\": [0.5, 0.5]},"
    "{\"name\": \"n\", \"type\": \"INT32\", \"dimensions\": [], \"scale\": 0, \"zeroPoint\": 0,"
    " \"lifetime\": \"CONSTANT_COPY\", \"numberOfConsumers\": 1, \"channelQuant\": null, \"isIgnored\": false, \"data\": [10]},"
    "{\"name\": \"s\", \"type\": \"TENSOR_INT32\", \"dimensions\": [2], \"scale\": 0, \"zeroPoint\": 0,"
    " \"lifetime\": \"CONSTANT_COPY\", \"numberOfConsumers\": 1, \"channelQuant\": null, \"isIgnored\": false, \"data\": [1, 2]},"
    "{\"name\": \"o\", \"type\": \"TENSOR_INT32\", \"dimensions\": [1, 10], \"scale\": 0, \"zeroPoint\": 0,"
    " \"lifetime\": \"SUBGRAPH_OUTPUT\", \"numberOfConsumers\": 0, \"channelQuant\": null, \"isIgnored\": false,"
    " \"data\": [0, 0, 0, 0, 0, 0, 0, 0, 0, 0]}]}}";

static int judge_samples(cts_case *c, const int32_t samples[10]) {
  char reason[256];
  memcpy(c->output_pool.data + c->outputs[0].location.offset, samples, 10 * sizeof(int32_t));
  return cts_check_multinomial(c, c->output_pool.data, 0, reason, sizeof(reason));
}

static void test_multinomial_judge(void **state) {
  (void)state;
  cJSON *json = cJSON_Parse(multinomial_case);
  assert_non_null(json);
  cts_case c;
  const char *error = NULL;
  if (cts_case_load(json, &c, &error) != 0) fail_msg("the case does not load: %s", error);
  static const int32_t even[10] = {0, 1, 0, 1, 1, 0, 0, 1, 1, 0}, one_sided[10] = {0};
  static const int32_t out_of_range[10] = {0, 1, 0, 1, 1, 0, 0, 1, 1, 2};
  static const int32_t six_four[10] = {0, 1, 0, 1, 1, 0, 0, 1, 0, 0};
  assert_int_equal(judge_samples(&c, even), 0);
  assert_int_equal(judge_samples(&c, one_sided), -1);
  assert_int_equal(judge_samples(&c, out_of_range), -1);
  assert_int_equal(judge_samples(&c, six_four), -1); /* 0.6 is 0.1 off 0.5 */
  cts_case_free(&c);
  cJSON_Delete(json);
}

/* No samples is valid (the reference takes it) but a tensor of no
 * elements: unsupported, and prepare fails, both logging why. */
static void test_multinomial_no_samples_unsupported(void **state) {
  runner_fixture *f = *state;
  ctx *c = calloc(1, sizeof(*c));
  assert_non_null(c);
  mb_init(&c->b);
  build_multinomial(c);
  mn_samples_0(c);
  const vknn_model *model = mb_finish(&c->b);
  bool supported[1] = {true};
  f->log.last[0] = '\0';
  assert_int_equal(vknn_device_get_supported_operations(f->device, model, supported, 1), VKNN_STATUS_NONE);
  assert_false(supported[0]);
  assert_non_null(strstr(f->log.last, "0 samples: zero-sized tensors are not supported"));
  vknn_prepared_model *pm = NULL;
  assert_int_equal(vknn_device_prepare_model(f->device, model, VKNN_PREFER_SUSTAINED_SPEED, VKNN_PRIORITY_MEDIUM,
                                             NULL, &pm),
                   VKNN_STATUS_GENERAL_FAILURE);
  assert_null(pm);
  free(c);
}

#define TEST(fn) cmocka_unit_test_setup_teardown(fn, runner_fixture_setup, runner_fixture_teardown)

int main(void) {
  enum { ROWS = sizeof(rows) / sizeof(rows[0]) };
  struct CMUnitTest tests[ROWS];
  for (size_t i = 0; i < ROWS; ++i) {
    tests[i] = (struct CMUnitTest)cmocka_unit_test_prestate(test_row, (void *)&rows[i]);
    tests[i].name = rows[i].name;
  }
  int failed = _cmocka_run_group_tests("recurrent_rules", tests, ROWS, rules_setup, rules_teardown);
  const struct CMUnitTest value_tests[] = {
      TEST(test_unidirectional_batch_major), TEST(test_unidirectional_time_major),
      TEST(test_unidirectional_layout_input),
      TEST(test_bidirectional_cross_merged), TEST(test_svdf_values),
      TEST(test_multinomial_distribution), TEST(test_multinomial_loop_budget), cmocka_unit_test(test_multinomial_judge),
      TEST(test_multinomial_no_samples_unsupported),
  };
  return failed + cmocka_run_group_tests_name("recurrent_values", value_tests, NULL, NULL);
}
