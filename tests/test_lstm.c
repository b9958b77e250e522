/* The signature rules of LSTM, UNIDIRECTIONAL_SEQUENCE_LSTM and
 * BIDIRECTIONAL_SEQUENCE_LSTM: one row per rule, a valid single-operation
 * model broken in one way, rejected with INVALID_ARGUMENT by the support
 * query and by prepare with a log line naming the problem. Accepting rows
 * show that each base model (and each optional form: CIFG, no layer
 * normalization, auxiliary inputs, merged outputs, state outputs) passes,
 * so that a rejection cannot come from a wrong base model. The numbers are
 * checked by the conformance cases (vknn-cts --filter '*lstm*'). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <cmocka.h>

#include "support/model_builder.h"
#include "support/model_runner.h"
#include "vknn/vknn.h"

#define F32 VKNN_OPERAND_TENSOR_FLOAT32
#define F16 VKNN_OPERAND_TENSOR_FLOAT16
#define OP(name) VKNN_OPERATION_##name

enum { BATCHES = 2, INPUT = 3, UNITS = 4, STEPS = 3, AUX = 2 };

/* The model under test: the operation's inputs and outputs by position,
 * built into the builder by finish(). */
typedef struct ctx {
  model_builder b;
  int32_t op_type;
  uint32_t in[61], in_count;
  uint32_t out[6], out_count;
  uint32_t omitted; /* a NO_VALUE operand */
  /* Made when the model is finished (a mutation may change them): the data
   * input (input 0) and the outputs. */
  int32_t x_type, out_type[6];
  uint32_t x_dims[3], x_rank, out_dims[6][3], out_rank[6];
  bool x_omitted; /* input 0 given as NO_VALUE */
} ctx;

typedef struct row {
  const char *name;
  void (*build)(ctx *c);
  void (*mutate)(ctx *c);   /* NULL: the base model */
  const char *expected_log; /* NULL: accepted */
} row;

/* ---- operands ------------------------------------------------------------ */

static uint32_t zeros_tensor(ctx *c, int32_t type, const uint32_t *dims, uint32_t rank) {
  return mb_const_zeros(&c->b, type, dims, rank);
}

static uint32_t matrix(ctx *c, uint32_t rows, uint32_t cols) {
  const uint32_t dims[2] = {rows, cols};
  return zeros_tensor(c, F32, dims, 2);
}

static uint32_t vec(ctx *c, uint32_t n) { return zeros_tensor(c, F32, &n, 1); }

static uint32_t scalar_f32(ctx *c, float v) {
  return mb_const_tensor(&c->b, VKNN_OPERAND_FLOAT32, NULL, 0, &v, sizeof(v));
}

static uint32_t scalar_bool(ctx *c, uint8_t v) {
  return mb_const_tensor(&c->b, VKNN_OPERAND_BOOL, NULL, 0, &v, 1);
}

static uint32_t no_value(ctx *c) {
  uint32_t i = mb_temporary(&c->b, F32, NULL, 0);
  c->b.operands[i].lifetime = VKNN_LIFETIME_NO_VALUE;
  return i;
}

/* One cell's operands from input position first (the layout of LSTM's
 * 1-17): weights, peepholes, biases, a projection to as many outputs. */
static void cell_operands(ctx *c, uint32_t first, uint32_t input_size) {
  uint32_t w = matrix(c, UNITS, input_size), r = matrix(c, UNITS, UNITS), v = vec(c, UNITS);
  for (uint32_t g = 0; g < 4; ++g) {
    c->in[first + g] = w;
    c->in[first + 4 + g] = r;
    c->in[first + 11 + g] = v;
  }
  for (uint32_t k = 0; k < 3; ++k) c->in[first + 8 + k] = v; /* peepholes */
  c->in[first + 15] = matrix(c, UNITS, UNITS);              /* projection */
  c->in[first + 16] = v;
}

static void scalars(ctx *c, uint32_t first) {
  c->in[first] = mb_const_i32(&c->b, 4);
  c->in[first + 1] = scalar_f32(c, 0.f);
  c->in[first + 2] = scalar_f32(c, 0.f);
}

static void set_output(ctx *c, uint32_t i, const uint32_t *dims, uint32_t rank) {
  c->out_type[i] = F32;
  c->out_rank[i] = rank;
  memcpy(c->out_dims[i], dims, rank * sizeof(uint32_t));
}

static void set_x(ctx *c, const uint32_t *dims, uint32_t rank) {
  c->x_type = F32;
  c->x_rank = rank;
  memcpy(c->x_dims, dims, rank * sizeof(uint32_t));
}

/* The data input and the outputs, then the operation. */
static void finish(ctx *c) {
  c->in[0] = c->x_omitted ? c->omitted : mb_input(&c->b, c->x_type, c->x_dims, c->x_rank);
  for (uint32_t i = 0; i < c->out_count; ++i)
    c->out[i] = mb_output(&c->b, c->out_type[i], c->out_dims[i], c->out_rank[i]);
  mb_operation(&c->b, c->op_type, c->in, c->in_count, c->out, c->out_count);
}

/* ---- LSTM: [2, 3] input, 4 units, projection to 4, layer normalization -- */

static void build_lstm(ctx *c) {
  const uint32_t x[2] = {BATCHES, INPUT}, state[2] = {BATCHES, UNITS},
                 scratch[2] = {BATCHES, 4 * UNITS};
  c->op_type = OP(LSTM);
  c->omitted = no_value(c);
  set_x(c, x, 2);
  cell_operands(c, 1, INPUT);
  c->in[18] = mb_input(&c->b, F32, state, 2);
  c->in[19] = mb_input(&c->b, F32, state, 2);
  scalars(c, 20);
  for (uint32_t k = 23; k < 27; ++k) c->in[k] = vec(c, UNITS);
  c->in_count = 27;
  set_output(c, 0, scratch, 2);
  for (uint32_t k = 1; k < 4; ++k) set_output(c, k, state, 2);
  c->out_count = 4;
}

static void omit(ctx *c, uint32_t k) { c->in[k] = c->omitted; }

static void lstm_23_inputs(ctx *c) { c->in_count = 23; }
static void lstm_cifg(ctx *c) {
  const uint32_t scratch[2] = {BATCHES, 3 * UNITS};
  omit(c, 1), omit(c, 5), omit(c, 12), omit(c, 9), omit(c, 23);
  set_output(c, 0, scratch, 2);
}
static void lstm_no_optional(ctx *c) {
  lstm_cifg(c);
  omit(c, 10), omit(c, 11), omit(c, 16), omit(c, 17);
  for (uint32_t k = 24; k < 27; ++k) omit(c, k);
}
static void lstm_22_inputs(ctx *c) { c->in_count = 22; }
static void lstm_3_outputs(ctx *c) { c->out_count = 3; }
/* Input 0 given as omitted (NO_VALUE). */
static void omit_input_0(ctx *c) { c->x_omitted = true; }
static void input_int32(ctx *c) { c->x_type = VKNN_OPERAND_TENSOR_INT32; }
static void input_rank_3(ctx *c) {
  const uint32_t x[3] = {1, BATCHES, INPUT};
  set_x(c, x, 3);
}
static void weights_f16(ctx *c) {
  const uint32_t dims[2] = {UNITS, INPUT};
  c->in[2] = zeros_tensor(c, F16, dims, 2);
}
static void weights_rank_1(ctx *c) { c->in[3] = vec(c, UNITS); }
static void omit_forget_weights(ctx *c) { omit(c, 2); }
static void cifg_partial(ctx *c) { omit(c, 1); }
static void peephole_partial(ctx *c) { omit(c, 10); }
static void cifg_with_cell_to_input(ctx *c) {
  omit(c, 1), omit(c, 5), omit(c, 12), omit(c, 23);
}
static void peephole_without_cell_to_input(ctx *c) { omit(c, 9); }
static void projection_bias_alone(ctx *c) { omit(c, 16); }
static void layer_norm_partial(ctx *c) { omit(c, 24); }
static void cifg_with_input_layer_norm(ctx *c) { omit(c, 1), omit(c, 5), omit(c, 12), omit(c, 9); }
static void layer_norm_without_input(ctx *c) { omit(c, 23); }
static void activation_float(ctx *c) { c->in[20] = scalar_f32(c, 4.f); }
static void activation_2(ctx *c) { c->in[20] = mb_const_i32(&c->b, 2); }
static void cell_clip_negative(ctx *c) { c->in[21] = scalar_f32(c, -1.f); }
static void cell_clip_int(ctx *c) { c->in[21] = mb_const_i32(&c->b, 0); }
static void output_f16(ctx *c) { c->out_type[3] = F16; }
static void forget_weights_shape(ctx *c) { c->in[2] = matrix(c, UNITS, INPUT + 1); }
static void output_dims(ctx *c) { c->out_dims[3][1] = UNITS + 1; }
static void state_shape(ctx *c) { c->b.dims[c->in[19]][0] = BATCHES + 1; }

/* ---- UNIDIRECTIONAL_SEQUENCE_LSTM: [3, 2, 3] time-major ----------------- */

static void build_unidirectional(ctx *c) {
  build_lstm(c);
  const uint32_t x[3] = {STEPS, BATCHES, INPUT}, seq[3] = {STEPS, BATCHES, UNITS};
  c->op_type = OP(UNIDIRECTIONAL_SEQUENCE_LSTM);
  set_x(c, x, 3);
  for (uint32_t k = 27; k > 23; --k) c->in[k] = c->in[k - 1];
  c->in[23] = scalar_bool(c, 1);
  c->in_count = 28;
  set_output(c, 0, seq, 3);
  c->out_count = 1;
}

static void uni_state_outputs(ctx *c) {
  const uint32_t state[2] = {BATCHES, UNITS};
  set_output(c, 1, state, 2);
  set_output(c, 2, state, 2);
  c->out_count = 3;
}
static void uni_batch_major(ctx *c) {
  const uint32_t x[3] = {BATCHES, STEPS, INPUT};
  set_x(c, x, 3);
  c->in[23] = scalar_bool(c, 0);
  c->out_dims[0][0] = BATCHES;
  c->out_dims[0][1] = STEPS;
}
static void uni_27_inputs(ctx *c) { c->in_count = 27; }
static void uni_2_outputs(ctx *c) {
  uni_state_outputs(c);
  c->out_count = 2;
}
static void uni_input_rank_2(ctx *c) {
  const uint32_t x[2] = {BATCHES, INPUT};
  set_x(c, x, 2);
}
static void uni_time_major_int(ctx *c) { c->in[23] = mb_const_i32(&c->b, 1); }
static void uni_state_rank_3(ctx *c) {
  uni_state_outputs(c);
  const uint32_t dims[3] = {1, BATCHES, UNITS};
  set_output(c, 2, dims, 3);
}
static void uni_output_dims(ctx *c) { c->out_dims[0][0] = STEPS + 1; }

/* ---- BIDIRECTIONAL_SEQUENCE_LSTM: [3, 2, 3] time-major, 4 units each ----- */

static void build_bidirectional(ctx *c) {
  const uint32_t x[3] = {STEPS, BATCHES, INPUT}, seq[3] = {STEPS, BATCHES, UNITS},
                 state[2] = {BATCHES, UNITS};
  c->op_type = OP(BIDIRECTIONAL_SEQUENCE_LSTM);
  c->omitted = no_value(c);
  set_x(c, x, 3);
  cell_operands(c, 1, INPUT);
  for (uint32_t k = 1; k <= 17; ++k) c->in[k + 17] = c->in[k];
  uint32_t h = mb_input(&c->b, F32, state, 2);
  for (uint32_t k = 35; k < 39; ++k) c->in[k] = h;
  for (uint32_t k = 39; k < 48; ++k) omit(c, k); /* no auxiliary input */
  scalars(c, 48);
  c->in[51] = scalar_bool(c, 0);
  c->in[52] = scalar_bool(c, 1);
  for (uint32_t k = 53; k < 61; ++k) c->in[k] = c->in[13];
  c->in_count = 61;
  set_output(c, 0, seq, 3);
  set_output(c, 1, seq, 3);
  c->out_count = 2;
}

static void bidi_merged(ctx *c) {
  c->in[51] = scalar_bool(c, 1);
  c->out_dims[0][2] = 2 * UNITS;
  c->out_count = 1;
}
static void bidi_states(ctx *c) {
  const uint32_t state[2] = {BATCHES, UNITS};
  for (uint32_t k = 2; k < 6; ++k) set_output(c, k, state, 2);
  c->out_count = 6;
}
static void bidi_aux_input(ctx *c) {
  const uint32_t aux[3] = {STEPS, BATCHES, AUX};
  c->in[39] = mb_input(&c->b, F32, aux, 3);
}
static void bidi_cross_linked(ctx *c) {
  bidi_aux_input(c);
  uint32_t w = matrix(c, UNITS, AUX);
  for (uint32_t k = 40; k < 48; ++k) c->in[k] = w;
}
static void bidi_parallel(ctx *c) {
  /* The backward cell reads the auxiliary input: its weights take its size. */
  bidi_aux_input(c);
  uint32_t w = matrix(c, UNITS, AUX);
  for (uint32_t k = 18; k < 22; ++k) c->in[k] = w;
}
static void bidi_60_inputs(ctx *c) { c->in_count = 60; }
static void bidi_3_outputs(ctx *c) {
  bidi_states(c);
  c->out_count = 3;
}
static void bidi_merged_2_outputs(ctx *c) { c->in[51] = scalar_bool(c, 1); }
static void bidi_aux_weights_alone(ctx *c) {
  uint32_t w = matrix(c, UNITS, AUX);
  for (uint32_t k = 40; k < 48; ++k) c->in[k] = w;
}
static void bidi_aux_weights_partial(ctx *c) {
  bidi_cross_linked(c);
  omit(c, 42);
}
static void bidi_aux_forward_only(ctx *c) {
  bidi_cross_linked(c);
  for (uint32_t k = 44; k < 48; ++k) omit(c, k);
}
static void bidi_aux_cifg_with_input_weights(ctx *c) {
  bidi_cross_linked(c);
  omit(c, 1), omit(c, 5), omit(c, 12), omit(c, 9), omit(c, 53); /* forward CIFG */
}
static void bidi_aux_without_input_weights(ctx *c) {
  bidi_cross_linked(c);
  omit(c, 44);
}
static void bidi_merge_int(ctx *c) { c->in[51] = mb_const_i32(&c->b, 0); }
static void bidi_backward_cifg_partial(ctx *c) { omit(c, 18); }
static void bidi_aux_rank_2(ctx *c) {
  const uint32_t aux[2] = {STEPS * BATCHES, AUX};
  c->in[39] = mb_input(&c->b, F32, aux, 2);
}
static void bidi_backward_output_dims(ctx *c) { c->out_dims[1][2] = UNITS + 1; }

/* Required scalars given as omitted operands of their type (NO_VALUE). */
static uint32_t no_value_of(ctx *c, int32_t type) {
  uint32_t i = mb_temporary(&c->b, type, NULL, 0);
  c->b.operands[i].lifetime = VKNN_LIFETIME_NO_VALUE;
  return i;
}
static void omit_activation(ctx *c) { c->in[20] = no_value_of(c, VKNN_OPERAND_INT32); }
static void omit_cell_clip(ctx *c) { c->in[21] = no_value_of(c, VKNN_OPERAND_FLOAT32); }
static void omit_proj_clip(ctx *c) { c->in[22] = no_value_of(c, VKNN_OPERAND_FLOAT32); }
static void uni_omit_time_major(ctx *c) { c->in[23] = no_value_of(c, VKNN_OPERAND_BOOL); }
static void bidi_omit_activation(ctx *c) { c->in[48] = no_value_of(c, VKNN_OPERAND_INT32); }
static void bidi_omit_proj_clip(ctx *c) { c->in[50] = no_value_of(c, VKNN_OPERAND_FLOAT32); }
static void bidi_omit_merge(ctx *c) { c->in[51] = no_value_of(c, VKNN_OPERAND_BOOL); }
static void bidi_omit_time_major(ctx *c) { c->in[52] = no_value_of(c, VKNN_OPERAND_BOOL); }

/* The input's first dimension left to the execution: the operation waits for
 * it, and its parameters and the shapes known already are still checked at
 * prepare. */
static void input_dim0_unknown(ctx *c) { c->x_dims[0] = 0; }
static void unknown_activation_2(ctx *c) { input_dim0_unknown(c), activation_2(c); }
static void unknown_cell_clip_negative(ctx *c) { input_dim0_unknown(c), cell_clip_negative(c); }
static void unknown_forget_weights_shape(ctx *c) { input_dim0_unknown(c), forget_weights_shape(c); }
static void bidi_unknown_merged_2_outputs(ctx *c) { input_dim0_unknown(c), bidi_merged_2_outputs(c); }
static void bidi_unknown_backward_forget_shape(ctx *c) {
  input_dim0_unknown(c);
  c->in[19] = matrix(c, UNITS, INPUT + 1);
}
/* The recurrent-to-forget weights a model input whose shape an execution
 * gives: the units come from the other operands, which still agree. */
static void forget_recurrent_unknown(ctx *c) {
  const uint32_t unknown[2] = {0, 0};
  c->in[6] = mb_input(&c->b, F32, unknown, 2);
}
static void forget_recurrent_unknown_bias_5(ctx *c) {
  forget_recurrent_unknown(c);
  c->in[13] = vec(c, UNITS + 1);
}
static void bidi_unknown_activation_2(ctx *c) { input_dim0_unknown(c), c->in[48] = mb_const_i32(&c->b, 2); }

static const row rows[] = {
    {"LSTM accepted (27 inputs)", build_lstm, NULL, NULL},
    {"LSTM accepted (23 inputs)", build_lstm, lstm_23_inputs, NULL},
    {"LSTM accepted (CIFG)", build_lstm, lstm_cifg, NULL},
    {"LSTM accepted (no optional inputs)", build_lstm, lstm_no_optional, NULL},
    {"LSTM: 22 inputs", build_lstm, lstm_22_inputs, "takes 23 or 27 inputs and 4 outputs"},
    {"LSTM: 3 outputs", build_lstm, lstm_3_outputs, "takes 23 or 27 inputs and 4 outputs"},
    {"LSTM: input omitted", build_lstm, omit_input_0, "LSTM: input 0 is omitted but not optional"},
    {"LSTM: int32 input", build_lstm, input_int32, "input must be TENSOR_FLOAT32 or TENSOR_FLOAT16"},
    {"LSTM: input of rank 3", build_lstm, input_rank_3, "input must have rank 2"},
    {"LSTM: float16 weights", build_lstm, weights_f16, "input 2 must be TENSOR_FLOAT32"},
    {"LSTM: weights of rank 1", build_lstm, weights_rank_1, "input 3 must have rank 2"},
    {"LSTM: input-to-forget omitted", build_lstm, omit_forget_weights, "input 2 is omitted but not optional"},
    {"LSTM: CIFG partial", build_lstm, cifg_partial, "input gate bias must be all given or all omitted"},
    {"LSTM: peephole partial", build_lstm, peephole_partial, "cell-to-forget and cell-to-output weights must be both"},
    {"LSTM: CIFG with cell-to-input", build_lstm, cifg_with_cell_to_input, "cell-to-input weights must be omitted with CIFG"},
    {"LSTM: peephole without cell-to-input", build_lstm, peephole_without_cell_to_input, "cell-to-input weights must be given"},
    {"LSTM: projection bias alone", build_lstm, projection_bias_alone, "a projection bias needs projection weights"},
    {"LSTM: layer normalization partial", build_lstm, layer_norm_partial, "layer normalization weights must be all given"},
    {"LSTM: CIFG with input layer normalization", build_lstm, cifg_with_input_layer_norm, "input layer normalization weights must be omitted with CIFG"},
    {"LSTM: layer normalization without input", build_lstm, layer_norm_without_input, "input layer normalization weights must be given"},
    {"LSTM: float activation", build_lstm, activation_float, "activation must be INT32"},
    {"LSTM: activation 2", build_lstm, activation_2, "activation 2 is not one of 0, 1, 3, 4, 6"},
    {"LSTM: negative cell clip", build_lstm, cell_clip_negative, "must be >= 0"},
    {"LSTM: int32 cell clip", build_lstm, cell_clip_int, "cell clip must be FLOAT32"},
    {"LSTM: float16 output", build_lstm, output_f16, "output must be TENSOR_FLOAT32"},
    {"LSTM: input-to-forget shape", build_lstm, forget_weights_shape, "do not agree"},
    {"LSTM: cell state shape", build_lstm, state_shape, "do not agree"},
    {"LSTM: output dims", build_lstm, output_dims, "output dimension 1 is 5, expected 4"},
    {"LSTM: activation omitted", build_lstm, omit_activation, "LSTM: input 20 is omitted but not optional"},
    {"LSTM: cell clip omitted", build_lstm, omit_cell_clip, "LSTM: input 21 is omitted but not optional"},
    {"LSTM: projection clip omitted", build_lstm, omit_proj_clip, "LSTM: input 22 is omitted but not optional"},
    {"LSTM accepted (input dimension 0 unknown)", build_lstm, input_dim0_unknown, NULL},
    {"LSTM: input dimension 0 unknown, activation 2", build_lstm, unknown_activation_2, "activation 2 is not one of 0, 1, 3, 4, 6"},
    {"LSTM: input dimension 0 unknown, negative cell clip", build_lstm, unknown_cell_clip_negative, "must be >= 0"},
    {"LSTM: input dimension 0 unknown, input-to-forget shape", build_lstm, unknown_forget_weights_shape, "do not agree"},
    {"LSTM accepted (recurrent-to-forget shape unknown)", build_lstm, forget_recurrent_unknown, NULL},
    {"LSTM: recurrent-to-forget shape unknown, forget bias [5]", build_lstm, forget_recurrent_unknown_bias_5, "do not agree"},
    {"UNIDIRECTIONAL_SEQUENCE_LSTM accepted", build_unidirectional, NULL, NULL},
    {"UNIDIRECTIONAL_SEQUENCE_LSTM accepted (state outputs)", build_unidirectional, uni_state_outputs, NULL},
    {"UNIDIRECTIONAL_SEQUENCE_LSTM accepted (batch-major)", build_unidirectional, uni_batch_major, NULL},
    {"UNIDIRECTIONAL_SEQUENCE_LSTM: 27 inputs", build_unidirectional, uni_27_inputs, "takes 28 inputs and 1 or 3 outputs"},
    {"UNIDIRECTIONAL_SEQUENCE_LSTM: 2 outputs", build_unidirectional, uni_2_outputs, "takes 28 inputs and 1 or 3 outputs"},
    {"UNIDIRECTIONAL_SEQUENCE_LSTM: input omitted", build_unidirectional, omit_input_0, "input 0 is omitted but not optional"},
    {"UNIDIRECTIONAL_SEQUENCE_LSTM: input of rank 2", build_unidirectional, uni_input_rank_2, "input must have rank 3"},
    {"UNIDIRECTIONAL_SEQUENCE_LSTM: int32 time_major", build_unidirectional, uni_time_major_int, "time_major must be BOOL"},
    {"UNIDIRECTIONAL_SEQUENCE_LSTM: state output of rank 3", build_unidirectional, uni_state_rank_3, "state output must have rank 2"},
    {"UNIDIRECTIONAL_SEQUENCE_LSTM: output dims", build_unidirectional, uni_output_dims, "output dimension 0 is 4, expected 3"},
    {"UNIDIRECTIONAL_SEQUENCE_LSTM: CIFG partial", build_unidirectional, cifg_partial, "input gate bias must be all given or all omitted"},
    {"UNIDIRECTIONAL_SEQUENCE_LSTM: activation omitted", build_unidirectional, omit_activation, "input 20 is omitted but not optional"},
    {"UNIDIRECTIONAL_SEQUENCE_LSTM: time_major omitted", build_unidirectional, uni_omit_time_major, "input 23 is omitted but not optional"},
    {"UNIDIRECTIONAL_SEQUENCE_LSTM accepted (input dimension 0 unknown)", build_unidirectional, input_dim0_unknown, NULL},
    {"UNIDIRECTIONAL_SEQUENCE_LSTM: input dimension 0 unknown, activation 2", build_unidirectional, unknown_activation_2, "activation 2 is not one of 0, 1, 3, 4, 6"},
    {"UNIDIRECTIONAL_SEQUENCE_LSTM: input dimension 0 unknown, input-to-forget shape", build_unidirectional, unknown_forget_weights_shape, "do not agree"},
    {"BIDIRECTIONAL_SEQUENCE_LSTM accepted", build_bidirectional, NULL, NULL},
    {"BIDIRECTIONAL_SEQUENCE_LSTM accepted (merged)", build_bidirectional, bidi_merged, NULL},
    {"BIDIRECTIONAL_SEQUENCE_LSTM accepted (state outputs)", build_bidirectional, bidi_states, NULL},
    {"BIDIRECTIONAL_SEQUENCE_LSTM accepted (cross-linked auxiliary input)", build_bidirectional, bidi_cross_linked, NULL},
    {"BIDIRECTIONAL_SEQUENCE_LSTM accepted (parallel auxiliary input)", build_bidirectional, bidi_parallel, NULL},
    {"BIDIRECTIONAL_SEQUENCE_LSTM: input omitted", build_bidirectional, omit_input_0, "BIDIRECTIONAL_SEQUENCE_LSTM: input 0 is omitted"},
    {"BIDIRECTIONAL_SEQUENCE_LSTM: 60 inputs", build_bidirectional, bidi_60_inputs, "takes 61 inputs"},
    {"BIDIRECTIONAL_SEQUENCE_LSTM: 3 outputs", build_bidirectional, bidi_3_outputs, "takes 1, 2, 5 or 6 outputs"},
    {"BIDIRECTIONAL_SEQUENCE_LSTM: merged with 2 outputs", build_bidirectional, bidi_merged_2_outputs, "2 outputs do not fit merge_outputs = 1"},
    {"BIDIRECTIONAL_SEQUENCE_LSTM: auxiliary weights alone", build_bidirectional, bidi_aux_weights_alone, "without an auxiliary input"},
    {"BIDIRECTIONAL_SEQUENCE_LSTM: auxiliary weights partial", build_bidirectional, bidi_aux_weights_partial, "auxiliary forget, cell and output weights must be all"},
    {"BIDIRECTIONAL_SEQUENCE_LSTM: auxiliary weights forward only", build_bidirectional, bidi_aux_forward_only, "forward and backward auxiliary weights must be both"},
    {"BIDIRECTIONAL_SEQUENCE_LSTM: CIFG with auxiliary input-to-input weights", build_bidirectional, bidi_aux_cifg_with_input_weights, "forward auxiliary input-to-input weights must be omitted with CIFG"},
    {"BIDIRECTIONAL_SEQUENCE_LSTM: auxiliary input-to-input weights omitted", build_bidirectional, bidi_aux_without_input_weights, "backward auxiliary input-to-input weights must be given"},
    {"BIDIRECTIONAL_SEQUENCE_LSTM: int32 merge_outputs", build_bidirectional, bidi_merge_int, "merge_outputs must be BOOL"},
    {"BIDIRECTIONAL_SEQUENCE_LSTM: backward CIFG partial", build_bidirectional, bidi_backward_cifg_partial, "backward input-to-input weights"},
    {"BIDIRECTIONAL_SEQUENCE_LSTM: auxiliary input of rank 2", build_bidirectional, bidi_aux_rank_2, "auxiliary input must have rank 3"},
    {"BIDIRECTIONAL_SEQUENCE_LSTM: backward output dims", build_bidirectional, bidi_backward_output_dims, "output dimension 2 is 5, expected 4"},
    {"BIDIRECTIONAL_SEQUENCE_LSTM: activation omitted", build_bidirectional, bidi_omit_activation, "input 48 is omitted but not optional"},
    {"BIDIRECTIONAL_SEQUENCE_LSTM: projection clip omitted", build_bidirectional, bidi_omit_proj_clip, "input 50 is omitted but not optional"},
    {"BIDIRECTIONAL_SEQUENCE_LSTM: merge_outputs omitted", build_bidirectional, bidi_omit_merge, "input 51 is omitted but not optional"},
    {"BIDIRECTIONAL_SEQUENCE_LSTM: time_major omitted", build_bidirectional, bidi_omit_time_major, "input 52 is omitted but not optional"},
    {"BIDIRECTIONAL_SEQUENCE_LSTM accepted (input dimension 0 unknown)", build_bidirectional, input_dim0_unknown, NULL},
    {"BIDIRECTIONAL_SEQUENCE_LSTM: input dimension 0 unknown, merged with 2 outputs", build_bidirectional, bidi_unknown_merged_2_outputs, "2 outputs do not fit merge_outputs = 1"},
    {"BIDIRECTIONAL_SEQUENCE_LSTM: input dimension 0 unknown, backward input-to-forget shape", build_bidirectional, bidi_unknown_backward_forget_shape, "backward the shapes of the weights, biases and states do not agree"},
    {"BIDIRECTIONAL_SEQUENCE_LSTM: input dimension 0 unknown, activation 2", build_bidirectional, bidi_unknown_activation_2, "activation 2 is not one of 0, 1, 3, 4, 6"},
};

/* ---- running -------------------------------------------------------------- */

/* The group's device (runner_group_fixture) is kept apart from cmocka's
 * state: each test's state is its row. */
static void test_row(void **state) {
  const row *r = *state;
  ctx *c = calloc(1, sizeof(*c));
  assert_non_null(c);
  mb_init(&c->b);
  r->build(c);
  if (r->mutate) r->mutate(c);
  finish(c);
  model_runner_expect_rule(runner_group_fixture, mb_finish(&c->b), r->name, r->expected_log);
  free(c);
}

/* A valid sequence whose input projection (steps x 3 * units elements)
 * exceeds the kernels' 32-bit element indices is reported unsupported, and
 * prepare fails, with a log line: 70000 steps of 24576 units, float16 (its
 * output within the model's 4 GiB per tensor), CIFG, no peephole, no
 * projection, no normalization, weights given as model inputs. */
static void build_too_large(ctx *c) {
  enum { BIG_STEPS = 70000, BIG_UNITS = 24576 };
  const uint32_t x[3] = {BIG_STEPS, 1, INPUT}, w[2] = {BIG_UNITS, INPUT},
                 r[2] = {BIG_UNITS, BIG_UNITS}, v[1] = {BIG_UNITS}, state[2] = {1, BIG_UNITS},
                 seq[3] = {BIG_STEPS, 1, BIG_UNITS};
  const uint16_t zero = 0;
  c->op_type = OP(UNIDIRECTIONAL_SEQUENCE_LSTM);
  c->omitted = no_value(c);
  set_x(c, x, 3);
  c->x_type = F16;
  for (uint32_t k = 0; k < 28; ++k) c->in[k] = c->omitted;
  uint32_t in_w = mb_input(&c->b, F16, w, 2), rec_w = mb_input(&c->b, F16, r, 2),
           bias = mb_input(&c->b, F16, v, 1);
  for (uint32_t g = 1; g < 4; ++g) c->in[1 + g] = in_w, c->in[5 + g] = rec_w, c->in[12 + g] = bias;
  c->in[18] = mb_input(&c->b, F16, state, 2);
  c->in[19] = mb_input(&c->b, F16, state, 2);
  c->in[20] = mb_const_i32(&c->b, 4);
  c->in[21] = c->in[22] = mb_const_tensor(&c->b, VKNN_OPERAND_FLOAT16, NULL, 0, &zero, 2);
  c->in[23] = scalar_bool(c, 1);
  c->in_count = 28;
  set_output(c, 0, seq, 3);
  c->out_type[0] = F16;
  c->out_count = 1;
}

static void test_too_large(void **state) {
  (void)state;
  runner_fixture *f = runner_group_fixture;
  ctx *c = calloc(1, sizeof(*c));
  assert_non_null(c);
  mb_init(&c->b);
  build_too_large(c);
  finish(c);
  const vknn_model *model = mb_finish(&c->b);
  bool supported[1] = {true};
  f->log.last[0] = '\0';
  vknn_status q = vknn_device_get_supported_operations(f->device, model, supported, 1);
  if (q != VKNN_STATUS_NONE) fail_msg("support query: %s (%s)", vknn_status_name(q), f->log.last);
  if (supported[0]) fail_msg("supported (log: %s)", f->log.last);
  if (strstr(f->log.last, "too large") == NULL) fail_msg("logged \"%s\"", f->log.last);
  vknn_prepared_model *pm = NULL;
  vknn_status s = vknn_device_prepare_model(f->device, model, VKNN_PREFER_SUSTAINED_SPEED,
                                            VKNN_PRIORITY_MEDIUM, NULL, &pm);
  free(c);
  assert_null(pm);
  assert_int_not_equal(s, VKNN_STATUS_NONE);
}

/* ---- numbers: activations and clipping ----------------------------------- */

/* The conformance cases all use tanh and no clipping: one LSTM step with
 * peepholes and a projection is checked here for every activation, with
 * cell and projection clipping that bind, against the cell's equations in
 * double precision. */
enum { NB = 2, NI = 3, NU = 4, NO = 3 };

typedef struct cell_values {
  float in_w[4][NU * NI], rec_w[4][NU * NO], peep[3][NU], bias[4][NU], proj_w[NO * NU],
      proj_b[NO];
  float x[NB * NI], h[NB * NO], c[NB * NU];
} cell_values;

static float pseudo_random(uint32_t *state) {
  *state = *state * 1664525u + 1013904223u;
  return (float)((*state >> 8) & 0xffff) / 32768.f - 1.f;
}

static void fill_values(cell_values *v) {
  uint32_t state = 7;
  float *all = (float *)v;
  for (size_t i = 0; i < sizeof(*v) / sizeof(float); ++i) all[i] = pseudo_random(&state);
}

static double activate(int32_t f, double x) {
  if (f == 1) return x > 0 ? x : 0;
  if (f == 3) return x < 0 ? 0 : x > 6 ? 6 : x;
  if (f == 4) return tanh(x);
  if (f == 6) return 1 / (1 + exp(-x));
  return x;
}

static double clip(double x, double t) { return t > 0 && x > t ? t : t > 0 && x < -t ? -t : x; }

/* The reference step: cell state and output of batch row b. */
static void reference_step(const cell_values *v, int32_t f, double cell_clip, double proj_clip,
                           uint32_t b, double c_out[NU], double h_out[NO]) {
  double hidden[NU];
  for (uint32_t u = 0; u < NU; ++u) {
    double a[4];
    for (uint32_t g = 0; g < 4; ++g) {
      a[g] = v->bias[g][u];
      for (uint32_t i = 0; i < NI; ++i) a[g] += v->in_w[g][u * NI + i] * v->x[b * NI + i];
      for (uint32_t o = 0; o < NO; ++o) a[g] += v->rec_w[g][u * NO + o] * v->h[b * NO + o];
    }
    double c_prev = v->c[b * NU + u];
    double i_gate = 1 / (1 + exp(-(a[0] + v->peep[0][u] * c_prev)));
    double f_gate = 1 / (1 + exp(-(a[1] + v->peep[1][u] * c_prev)));
    double c = clip(f_gate * c_prev + i_gate * activate(f, a[2]), cell_clip);
    double o_gate = 1 / (1 + exp(-(a[3] + v->peep[2][u] * c)));
    c_out[u] = c;
    hidden[u] = o_gate * activate(f, c);
  }
  for (uint32_t o = 0; o < NO; ++o) {
    double y = v->proj_b[o];
    for (uint32_t u = 0; u < NU; ++u) y += v->proj_w[o * NU + u] * hidden[u];
    h_out[o] = clip(y, proj_clip);
  }
}

static uint32_t const_floats(model_builder *b, const float *data, uint32_t rows, uint32_t cols) {
  const uint32_t dims[2] = {rows, cols};
  return mb_const_tensor(b, F32, cols ? dims : &rows, cols ? 2 : 1, data,
                         rows * (cols ? cols : 1) * sizeof(float));
}

/* x_rank_unknown: the input declared without dimensions (an execution
 * gives them). */
static void build_numeric(model_builder *b, const cell_values *v, int32_t f, float cell_clip,
                          float proj_clip, bool x_rank_unknown) {
  const uint32_t x[2] = {NB, NI}, h[2] = {NB, NO}, c[2] = {NB, NU}, scratch[2] = {NB, 4 * NU};
  uint32_t in[23];
  in[0] = x_rank_unknown ? mb_input(b, F32, NULL, 0) : mb_input(b, F32, x, 2);
  for (uint32_t g = 0; g < 4; ++g) {
    in[1 + g] = const_floats(b, v->in_w[g], NU, NI);
    in[5 + g] = const_floats(b, v->rec_w[g], NU, NO);
    in[12 + g] = const_floats(b, v->bias[g], NU, 0);
  }
  for (uint32_t k = 0; k < 3; ++k) in[9 + k] = const_floats(b, v->peep[k], NU, 0);
  in[16] = const_floats(b, v->proj_w, NO, NU);
  in[17] = const_floats(b, v->proj_b, NO, 0);
  in[18] = mb_input(b, F32, h, 2);
  in[19] = mb_input(b, F32, c, 2);
  in[20] = mb_const_i32(b, f);
  in[21] = mb_const_tensor(b, VKNN_OPERAND_FLOAT32, NULL, 0, &cell_clip, sizeof(float));
  in[22] = mb_const_tensor(b, VKNN_OPERAND_FLOAT32, NULL, 0, &proj_clip, sizeof(float));
  const uint32_t out[4] = {mb_output(b, F32, scratch, 2), mb_output(b, F32, h, 2),
                           mb_output(b, F32, c, 2), mb_output(b, F32, h, 2)};
  mb_operation(b, OP(LSTM), in, 23, out, 4);
}

static void expect_close(const char *what, int32_t f, uint32_t i, float got, double want) {
  if (fabs(got - want) > 1e-5 + 1e-5 * fabs(want))
    fail_msg("activation %d: %s[%u] = %.9g, the equations give %.9g", f, what, i, got, want);
}

static void test_activations_and_clipping(void **state) {
  (void)state;
  static const int32_t activations[5] = {0, 1, 3, 4, 6};
  const float cell_clip = 0.3f, proj_clip = 0.2f;
  cell_values v;
  fill_values(&v);
  uint32_t clipped_cells = 0, clipped_outputs = 0;
  for (uint32_t a = 0; a < 5; ++a) {
    model_builder *b = calloc(1, sizeof(*b));
    assert_non_null(b);
    mb_init(b);
    build_numeric(b, &v, activations[a], cell_clip, proj_clip, false);
    mb_finish(b);
    float scratch[NB * 4 * NU], h[NB * NO], c[NB * NU], out[NB * NO];
    const buffer_arg inputs[3] = {{v.x, NULL, sizeof(v.x)}, {v.h, NULL, sizeof(v.h)},
                                  {v.c, NULL, sizeof(v.c)}};
    buffer_arg outputs[4] = {{NULL, scratch, sizeof(scratch)}, {NULL, h, sizeof(h)},
                             {NULL, c, sizeof(c)}, {NULL, out, sizeof(out)}};
    runner_fixture *f = runner_group_fixture;
    model_runner_run(f->device, &f->log, b, inputs, outputs, NULL);
    free(b);
    for (uint32_t row = 0; row < NB; ++row) {
      double want_c[NU], want_h[NO];
      reference_step(&v, activations[a], cell_clip, proj_clip, row, want_c, want_h);
      for (uint32_t u = 0; u < NU; ++u) {
        expect_close("cell state", activations[a], row * NU + u, c[row * NU + u], want_c[u]);
        clipped_cells += fabs(want_c[u]) == cell_clip;
      }
      for (uint32_t o = 0; o < NO; ++o) {
        expect_close("output state", activations[a], row * NO + o, h[row * NO + o], want_h[o]);
        expect_close("output", activations[a], row * NO + o, out[row * NO + o], want_h[o]);
        clipped_outputs += fabs(want_h[o]) == proj_clip;
      }
    }
  }
  /* The thresholds must bind somewhere, or the test would not see them. */
  assert_true(clipped_cells > 0 && clipped_outputs > 0);
}

/* LSTM's input declared without a rank: an execution giving it rank 2 runs,
 * one giving the same elements as rank 3 fails with INVALID_ARGUMENT (the
 * rank is checked once known), and the prepared model runs again after. */
static void test_input_rank_at_execution(void **state) {
  (void)state;
  cell_values v;
  fill_values(&v);
  model_builder *b = calloc(1, sizeof(*b));
  assert_non_null(b);
  mb_init(b);
  build_numeric(b, &v, 4, 0.f, 0.f, true);
  mb_finish(b);
  runner_fixture *f = runner_group_fixture;
  vknn_prepared_model *pm = model_runner_prepare(f->device, &f->log, b);
  float scratch[NB * 4 * NU], h[NB * NO], c[NB * NU], out[NB * NO];
  buffer_arg outputs[4] = {{NULL, scratch, sizeof(scratch)}, {NULL, h, sizeof(h)},
                           {NULL, c, sizeof(c)}, {NULL, out, sizeof(out)}};
  const uint32_t rank_2[2] = {NB, NI}, rank_3[3] = {NB, NI, 1};
  const uint32_t *dims[3] = {rank_2, rank_3, rank_2};
  const uint32_t ranks[3] = {2, 3, 2};
  const vknn_status want[3] = {VKNN_STATUS_NONE, VKNN_STATUS_INVALID_ARGUMENT, VKNN_STATUS_NONE};
  for (int i = 0; i < 3; ++i) {
    const buffer_arg inputs[3] = {{v.x, NULL, sizeof(v.x), dims[i], ranks[i]}, {v.h, NULL, sizeof(v.h)},
                                  {v.c, NULL, sizeof(v.c)}};
    assert_int_equal(model_runner_execute(pm, b, inputs, outputs, NULL), want[i]);
  }
  vknn_prepared_model_release(pm);
  free(b);
}

/* A sequence LSTM whose operand `input` (0: the data, 39: the
 * bidirectional's auxiliary input) the model declares without a rank, run
 * three times: given rank 3 it runs, given the same elements as rank 2 it
 * fails with INVALID_ARGUMENT for the rank, and it runs again after. */
static void expect_rank_3_at_execution(void (*build)(ctx *c), void (*mutate)(ctx *c),
                                       uint32_t input) {
  ctx *c = calloc(1, sizeof(*c));
  assert_non_null(c);
  mb_init(&c->b);
  build(c);
  if (mutate) mutate(c);
  if (input == 0) c->x_rank = 0;
  else c->b.operands[c->in[input]].dimension_count = 0;
  finish(c);
  mb_finish(&c->b);
  vknn_prepared_model *pm = model_runner_prepare(runner_group_fixture->device,
                                                 &runner_group_fixture->log, &c->b);
  const uint32_t cols = input == 0 ? INPUT : AUX;
  const uint32_t rank_3[3] = {STEPS, BATCHES, cols}, rank_2[2] = {STEPS * BATCHES, cols};
  static float zeros[STEPS * BATCHES * 2 * UNITS], out[2][STEPS * BATCHES * 2 * UNITS];
  buffer_arg in[MODEL_RUNNER_MAX_ARGS] = {0}, outs[MODEL_RUNNER_MAX_ARGS] = {0};
  for (uint32_t k = 0; k < c->b.input_count; ++k) {
    const vknn_operand *o = &c->b.operands[c->b.inputs[k]];
    size_t elements = c->b.inputs[k] == c->in[input] ? STEPS * BATCHES * cols : 1;
    for (uint32_t d = 0; d < o->dimension_count; ++d) elements *= o->dimensions[d];
    in[k] = (buffer_arg){zeros, NULL, sizeof(float) * elements};
  }
  for (uint32_t k = 0; k < c->out_count; ++k)
    outs[k] = (buffer_arg){NULL, out[k], sizeof(float) * STEPS * BATCHES * UNITS};
  const uint32_t *dims[3] = {rank_3, rank_2, rank_3};
  const uint32_t ranks[3] = {3, 2, 3};
  const vknn_status want[3] = {VKNN_STATUS_NONE, VKNN_STATUS_INVALID_ARGUMENT, VKNN_STATUS_NONE};
  for (int i = 0; i < 3; ++i) {
    for (uint32_t k = 0; k < c->b.input_count; ++k)
      if (c->b.inputs[k] == c->in[input]) in[k].dims = dims[i], in[k].rank = ranks[i];
    vknn_status s = model_runner_execute(pm, &c->b, in, outs, NULL);
    if (s != want[i])
      fail_msg("input %u, execution %d: %s, not %s (log: %s)", input, i, vknn_status_name(s),
               vknn_status_name(want[i]), runner_group_fixture->log.last);
    /* Refused for its rank, not by a later shape check reading past it. */
    if (s != VKNN_STATUS_NONE && strstr(runner_group_fixture->log.last, "has rank 2, not 3") == NULL)
      fail_msg("input %u: logged \"%s\"", input, runner_group_fixture->log.last);
  }
  vknn_prepared_model_release(pm);
  free(c);
}

static void test_sequence_ranks_at_execution(void **state) {
  (void)state;
  expect_rank_3_at_execution(build_unidirectional, NULL, 0);
  expect_rank_3_at_execution(build_bidirectional, NULL, 0);
  expect_rank_3_at_execution(build_bidirectional, bidi_cross_linked, 39);
}

#define ROW_COUNT (sizeof(rows) / sizeof(rows[0]))

int main(void) {
  static struct CMUnitTest tests[ROW_COUNT + 4];
  for (size_t i = 0; i < ROW_COUNT; ++i)
    tests[i] = (struct CMUnitTest){.name = rows[i].name, .test_func = test_row,
                                   .initial_state = (void *)&rows[i]};
  tests[ROW_COUNT] = (struct CMUnitTest){.name = "UNIDIRECTIONAL_SEQUENCE_LSTM too large",
                                         .test_func = test_too_large};
  tests[ROW_COUNT + 1] = (struct CMUnitTest){.name = "LSTM activations and clipping",
                                             .test_func = test_activations_and_clipping};
  tests[ROW_COUNT + 2] = (struct CMUnitTest){.name = "LSTM input rank given at execution",
                                             .test_func = test_input_rank_at_execution};
  tests[ROW_COUNT + 3] = (struct CMUnitTest){.name = "sequence LSTM input ranks given at execution",
                                             .test_func = test_sequence_ranks_at_execution};
  return _cmocka_run_group_tests("lstm", tests, ROW_COUNT + 4, runner_group_setup,
                                 runner_group_teardown);
}
