/* QUANTIZED_16BIT_LSTM: one step of an LSTM cell with 8-bit input, weights
 * and output (scale 1/128, zero point 128), int32 biases and a 16-bit cell
 * state (scale 2^-11), in the NNAPI reference's 16-bit fixed point, bit for
 * bit. No CIFG, peephole, projection or clipping: output size = units.
 *
 * Lowering: the reference's one fully connected layer over the input and the
 * output state together: rows [input | output state] ([batches, input +
 * output]) times the weights assembled [4 * output, output + input], each
 * gate's rows [recurrent | input]. The reference lays the two out in these
 * (mismatched) orders, and its results (those of the conformance data) pair
 * them so, which this lowering keeps; with input size = output size it is an
 * exchange of the two weight blocks. The int32 sums come from
 * shaders/quant_matmul.comp (see quantized_lstm.h), the cell from
 * shaders/quantized_16bit_lstm.comp. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/operand_type.h"
#include "ops/lstm.h"
#include "ops/quantized_lstm.h"

enum { IN_INPUT = 0, IN_INPUT_W = 1, IN_REC_W = 5, IN_BIAS = 9, IN_C = 13, IN_H = 14,
       INPUT_COUNT = 15 };
enum { OUT_CELL = 0, OUT_OUTPUT = 1, OUTPUT_COUNT = 2 };

/* ---- signature rules ------------------------------------------------------ */

static bool check_types(const vknn_logger *log, const vknn_subgraph *sg, const vknn_operation *op) {
  for (uint32_t i = 0; i < INPUT_COUNT; ++i) {
    const vknn_operand *o = &sg->operands[op->inputs[i]];
    int32_t type = i == IN_C                       ? VKNN_OPERAND_TENSOR_QUANT16_SYMM
                   : i >= IN_BIAS && i < IN_C      ? VKNN_OPERAND_TENSOR_INT32
                                                   : VKNN_OPERAND_TENSOR_QUANT8_ASYMM;
    uint32_t rank = i >= IN_BIAS && i < IN_C ? 1 : 2;
    if (o->lifetime == VKNN_LIFETIME_NO_VALUE) {
      VKNN_LOG_E(log, "model", "QUANTIZED_16BIT_LSTM: input %u is omitted but not optional", i);
      return false;
    }
    char what[16];
    snprintf(what, sizeof(what), "input %u", i);
    if (!vknn_op_check_type(log, op, what, o, type) || !vknn_op_check_rank(log, op, what, o, rank))
      return false;
  }
  const vknn_operand *cell = &sg->operands[op->outputs[OUT_CELL]];
  const vknn_operand *out = &sg->operands[op->outputs[OUT_OUTPUT]];
  return vknn_op_check_type(log, op, "cell state output", cell, VKNN_OPERAND_TENSOR_QUANT16_SYMM) &&
         vknn_op_check_rank(log, op, "cell state output", cell, 2) &&
         vknn_op_check_type(log, op, "output", out, VKNN_OPERAND_TENSOR_QUANT8_ASYMM) &&
         vknn_op_check_rank(log, op, "output", out, 2);
}

/* The encodings NNAPI fixes: 8-bit activations in [-1, 127/128] (scale
 * 1/128, zero point 128), the cell state in Q4.11 (scale 2^-11, zero point
 * 0), one scale and zero point for all weights, biases at weights scale /
 * 128 with zero point 0. */
static const char *encoding_rule(const vknn_subgraph *sg, const vknn_operation *op) {
  const vknn_operand *w0 = &sg->operands[op->inputs[IN_INPUT_W]];
  const vknn_operand *act[3] = {&sg->operands[op->inputs[IN_INPUT]],
                                &sg->operands[op->inputs[IN_H]],
                                &sg->operands[op->outputs[OUT_OUTPUT]]};
  for (uint32_t i = 0; i < 3; ++i)
    if (act[i]->scale != 1.f / 128.f || act[i]->zero_point != 128)
      return "the input, the output state and the output must have scale 1/128 and zero point "
             "128";
  const vknn_operand *cells[2] = {&sg->operands[op->inputs[IN_C]],
                                  &sg->operands[op->outputs[OUT_CELL]]};
  for (uint32_t i = 0; i < 2; ++i) {
    float l = log2f(cells[i]->scale);
    if (!(fabsf(l + 11.f) < 1e-3f) || cells[i]->zero_point != 0)
      return "the cell states must have scale 2^-11 and zero point 0";
  }
  if (w0->scale == 0.f) return "the weights' scale must not be 0";
  for (uint32_t i = IN_INPUT_W; i < IN_BIAS; ++i) {
    const vknn_operand *w = &sg->operands[op->inputs[i]];
    if (w->scale != w0->scale || w->zero_point != w0->zero_point)
      return "all weights must have the same scale and zero point";
  }
  for (uint32_t i = IN_BIAS; i < IN_C; ++i) {
    const vknn_operand *b = &sg->operands[op->inputs[i]];
    if ((double)b->scale != (double)w0->scale / 128.0 || b->zero_point != 0)
      return "the biases must have the weights' scale / 128 and zero point 0";
  }
  return NULL;
}

static vknn_status validate_quantized_16bit_lstm(const vknn_logger *log, const vknn_model *model,
                                                 const vknn_subgraph *sg,
                                                 const vknn_operation *op) {
  (void)model;
  if (op->input_count != INPUT_COUNT || op->output_count != OUTPUT_COUNT) {
    VKNN_LOG_E(log, "model", "QUANTIZED_16BIT_LSTM takes 15 inputs and 2 outputs, got %u and %u",
               op->input_count, op->output_count);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  if (!check_types(log, sg, op)) return VKNN_STATUS_INVALID_ARGUMENT;
  const char *rule = encoding_rule(sg, op);
  if (rule == NULL) return VKNN_STATUS_NONE;
  VKNN_LOG_E(log, "model", "QUANTIZED_16BIT_LSTM: %s", rule);
  return VKNN_STATUS_INVALID_ARGUMENT;
}

/* ---- shapes ---------------------------------------------------------------- */

typedef struct q16_cell {
  uint32_t batches, input_size, units;
} q16_cell;

static bool dims_are(const vknn_graph *graph, const vknn_operation *op, uint32_t i, uint32_t rank,
                     uint32_t d0, uint32_t d1) {
  return vknn_dims_fit(&graph->tensors[op->inputs[i]], rank, d0, d1);
}

/* The shapes as far as they are known, checked before the operation waits
 * for the rest (a model whose shapes an execution gives still has them
 * checked at prepare); then every shape known, the input and the output
 * state of rank 2. */
static vknn_status read_cell(vknn_graph *graph, const vknn_operation *op, q16_cell *out) {
  const vknn_tensor *in = &graph->tensors[op->inputs[IN_INPUT]];
  const vknn_tensor *h = &graph->tensors[op->inputs[IN_H]];
  *out = (q16_cell){.batches = vknn_known_dim(in, 2, 0), .input_size = vknn_known_dim(in, 2, 1),
                    .units = vknn_known_dim(h, 2, 1)};
  bool ok = dims_are(graph, op, IN_H, 2, out->batches, out->units) &&
            dims_are(graph, op, IN_C, 2, out->batches, out->units);
  for (uint32_t g = 0; g < 4 && ok; ++g)
    ok = dims_are(graph, op, IN_INPUT_W + g, 2, out->units, out->input_size) &&
         dims_are(graph, op, IN_REC_W + g, 2, out->units, out->units) &&
         dims_are(graph, op, IN_BIAS + g, 1, out->units, 0);
  if (!ok) {
    VKNN_LOG_E(graph->log, "model",
               "QUANTIZED_16BIT_LSTM: the shapes of the input, weights, biases and states do not "
               "agree (batches %u, input %u, output %u)",
               out->batches, out->input_size, out->units);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  vknn_status s = vknn_op_require_input_shapes(graph, op, INPUT_COUNT);
  if (s == VKNN_STATUS_NONE && (in->rank != 2 || h->rank != 2)) {
    VKNN_LOG_E(graph->log, "model",
               "QUANTIZED_16BIT_LSTM: the input and the output state must have rank 2");
    s = VKNN_STATUS_INVALID_ARGUMENT;
  }
  return s;
}

static vknn_status infer_quantized_16bit_lstm(vknn_graph *graph, const vknn_operation *op) {
  q16_cell c = {0};
  vknn_status s = read_cell(graph, op, &c);
  uint32_t dims[2] = {c.batches, c.units};
  if (s == VKNN_STATUS_NONE) s = vknn_op_set_output_shape(graph, op, OUT_CELL, dims, 2);
  if (s == VKNN_STATUS_NONE) s = vknn_op_set_output_shape(graph, op, OUT_OUTPUT, dims, 2);
  return s;
}

/* ---- lowering -------------------------------------------------------------- */

/* Push constants of quantized_16bit_lstm.comp, std430 layout. */
typedef struct quantized_16bit_lstm_params {
  uint32_t units, batches;
  int32_t multiplier, shift;
} quantized_16bit_lstm_params;
VKNN_PUSH_LAYOUT(quantized_16bit_lstm, quantized_16bit_lstm_params);

/* The matrix product's operands: rows [input | output state], weights with
 * each gate's rows [recurrent | input] (gates i, f, c, o), biases. */
static vknn_status assemble_operands(vknn_graph *graph, const vknn_operation *op,
                                     const q16_cell *c, uint32_t *x, uint32_t *w, uint32_t *bias,
                                     vknn_dispatch_list *out_list) {
  const int32_t q8 = VKNN_OPERAND_TENSOR_QUANT8_ASYMM;
  uint32_t u = c->units, k = c->input_size + u;
  vknn_lstm_block wb[8], bb[4];
  for (uint32_t g = 0; g < 4; ++g) {
    wb[2 * g] = (vknn_lstm_block){op->inputs[IN_REC_W + g], u, u, g * u, 0};
    wb[2 * g + 1] = (vknn_lstm_block){op->inputs[IN_INPUT_W + g], u, c->input_size, g * u, u};
    bb[g] = (vknn_lstm_block){op->inputs[IN_BIAS + g], 1, u, g, 0};
  }
  vknn_lstm_block xb[2] = {{op->inputs[IN_INPUT], c->batches, c->input_size, 0, 0},
                           {op->inputs[IN_H], c->batches, u, 0, c->input_size}};
  vknn_status s = vknn_lstm_assemble(graph, q8, xb, 2, c->batches, k, x, out_list);
  if (s == VKNN_STATUS_NONE) s = vknn_lstm_assemble(graph, q8, wb, 8, 4 * u, k, w, out_list);
  if (s == VKNN_STATUS_NONE)
    s = vknn_lstm_assemble(graph, VKNN_OPERAND_TENSOR_INT32, bb, 4, 4, u, bias, out_list);
  return s;
}

static vknn_status lower_quantized_16bit_lstm(vknn_graph *graph, const vknn_operation *op,
                                              vknn_dispatch_list *out_list) {
  q16_cell c = {0};
  uint32_t x, w, bias;
  int32_t multiplier[2];
  vknn_status s = read_cell(graph, op, &c);
  /* The kernels index elements in 32 bits. */
  uint64_t k = (uint64_t)c.input_size + c.units;
  if (s == VKNN_STATUS_NONE && (4ull * c.units * k >= UINT32_MAX || c.batches * k >= UINT32_MAX ||
                                4ull * c.batches * c.units >= UINT32_MAX)) {
    VKNN_LOG_E(graph->log, "compilation",
               "QUANTIZED_16BIT_LSTM: input %u and output %u are too large for 32-bit element "
               "indices",
               c.input_size, c.units);
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  /* The gates' Q3.12: 2^12 times the sums' scale (the biases'). */
  float ratio = 4096.f * graph->tensors[op->inputs[IN_BIAS]].scale;
  if (s == VKNN_STATUS_NONE) s = vknn_qlstm_multiplier(graph, op, "gate", ratio, multiplier);
  if (s == VKNN_STATUS_NONE) s = assemble_operands(graph, op, &c, &x, &w, &bias, out_list);
  if (s != VKNN_STATUS_NONE) return s;
  uint32_t dims[2] = {c.batches, 4 * c.units};
  uint32_t sums = vknn_graph_add_temporary(graph, VKNN_OPERAND_TENSOR_INT32, dims, 2);
  if (sums == UINT32_MAX) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  vknn_quant_matmul m = {.x = x, .w = w, .rows = c.batches, .k = c.input_size + c.units,
                         .n = 4 * c.units, .zx = 128,
                         .zw = graph->tensors[op->inputs[IN_INPUT_W]].zero_point, .out = sums,
                         .out_stride = 4 * c.units};
  s = vknn_lower_quant_matmul(graph, &m, out_list);
  if (s != VKNN_STATUS_NONE) return s;
  vknn_dispatch *d = vknn_dispatch_list_add(out_list);
  if (d == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  d->shader = VKNN_SHADER_QUANTIZED_16BIT_LSTM;
  d->local_size = 64;
  quantized_16bit_lstm_params p = {c.units, c.batches, multiplier[0], multiplier[1]};
  memcpy(d->push, &p, sizeof(p));
  d->push_size = sizeof(p);
  vknn_dispatch_bind(d, sums, VKNN_ACCESS_READ);
  vknn_dispatch_bind(d, bias, VKNN_ACCESS_READ);
  vknn_dispatch_bind(d, op->inputs[IN_C], VKNN_ACCESS_READ);
  vknn_dispatch_bind(d, op->outputs[OUT_CELL], VKNN_ACCESS_WRITE);
  vknn_dispatch_bind(d, op->outputs[OUT_OUTPUT], VKNN_ACCESS_WRITE);
  d->invocations = (uint64_t)c.batches * c.units;
  return VKNN_STATUS_NONE;
}

const vknn_op_def vknn_op_quantized_16bit_lstm = {VKNN_OPERATION_QUANTIZED_16BIT_LSTM, false,
                                                  validate_quantized_16bit_lstm,
                                                  infer_quantized_16bit_lstm,
                                                  lower_quantized_16bit_lstm};
