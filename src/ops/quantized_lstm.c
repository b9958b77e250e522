/* QUANTIZED_LSTM: one step of an LSTM cell in integers (int8 input, weights
 * and output state, int16 cell state), with optional CIFG, peephole,
 * projection and layer normalization, bit-exact with the NNAPI reference.
 * Lowering: the input and recurrent weights of the gates side by side (one
 * matrix each, as the float LSTM assembles them), two products with int32
 * sums (shaders/quant_matmul.comp, also the projection's), the cell in
 * shaders/quantized_lstm.comp. The scale ratios become fixed-point
 * multipliers here, in the single or double precision the reference uses.
 *
 * Where the reference's arithmetic differs from the operation's evident
 * intent, the driver follows the reference: gate biases are applied only with
 * layer normalization; the hidden state is M(o * tanh(C)) minus (not plus)
 * its zero point, and the projection adds zero point * row sum to the
 * products, which undoes it; the projection clip is in units of the
 * projection weights' scale. The peepholes read C_{t-1} for the input and
 * forget gates and C_t for the output gate (the reference reads its cell
 * output buffer there, which holds neither at that point). */
#include "ops/quantized_lstm.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/operand_type.h"
#include "ops/lstm.h"
#include "util/fault_injection.h"
#include "util/quant_multiplier.h"

enum {
  IN_INPUT = 0, IN_INPUT_W = 1, IN_REC_W = 5, IN_PEEP = 9, IN_BIAS = 12, IN_PROJ_W = 16,
  IN_PROJ_B = 17, IN_H = 18, IN_C = 19, IN_LN = 20, IN_CELL_CLIP = 24, IN_PROJ_CLIP = 25,
  IN_INTERMEDIATE = 26, IN_HIDDEN_ZP = 30, IN_HIDDEN_SCALE = 31, INPUT_COUNT = 32,
};
enum { OUT_STATE = 0, OUT_CELL = 1, OUT_OUTPUT = 2, OUTPUT_COUNT = 3 };

static const char *const gate_names[4] = {"input", "forget", "cell", "output"};

/* ---- the matrix products (quantized_lstm.h) ------------------------------- */

/* Push constants of quant_matmul.comp, std430 layout. */
typedef struct quant_matmul_params {
  uint32_t rows, k, n, col_blocks;
  int32_t zx, zw;
  uint32_t out_offset, out_stride;
  int32_t multiplier, shift, out_zero_point, clip;
} quant_matmul_params;
VKNN_PUSH_LAYOUT(quant_matmul, quant_matmul_params);

vknn_status vknn_lower_quant_matmul(vknn_graph *graph, const vknn_quant_matmul *m,
                                    vknn_dispatch_list *out_list) {
  /* Blocks of 4 columns and of up to 4 rows (quant_matmul.comp). */
  uint32_t block_rows = m->rows < 4 ? m->rows : 4;
  uint32_t col_blocks = (m->n + 3) / 4, row_blocks = (m->rows + block_rows - 1) / block_rows;
  /* One invocation walks K, four at a time where K allows. */
  if (!vknn_op_within_loop_budget(graph, "quantized LSTM", m->k % 4 == 0 ? m->k / 4 : m->k,
                                  "the products along the inputs and units"))
    return VKNN_STATUS_GENERAL_FAILURE;
  vknn_dispatch *d = vknn_dispatch_list_add(out_list);
  if (d == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  bool is_signed = graph->tensors[m->x].type != VKNN_OPERAND_TENSOR_QUANT8_ASYMM;
  d->shader = is_signed ? VKNN_SHADER_QUANT_MATMUL_Q8S : VKNN_SHADER_QUANT_MATMUL_Q8;
  d->spec_count = VKNN_SPEC_COUNT_QUANT_MATMUL;
  d->spec[VKNN_SPEC_QUANT_MATMUL_VEC4] = m->k % 4 == 0;
  d->spec[VKNN_SPEC_QUANT_MATMUL_EPILOGUE] = m->project;
  d->spec[VKNN_SPEC_QUANT_MATMUL_ROWS] = block_rows;
  d->local_size = 64;
  quant_matmul_params p = {m->rows, m->k, m->n, col_blocks, m->zx, m->zw, m->out_offset,
                           m->out_stride, m->multiplier, m->shift, m->out_zero_point, m->clip};
  memcpy(d->push, &p, sizeof(p));
  d->push_size = sizeof(p);
  vknn_dispatch_bind(d, m->x, VKNN_ACCESS_READ);
  vknn_dispatch_bind(d, m->w, VKNN_ACCESS_READ);
  /* Raw sums read no bias and write one output: the unused bindings get a
   * tensor the kernel does not touch, bound for reading. Each dispatch writes
   * its own part of out (READ orders it after the other parts' writers). */
  vknn_dispatch_bind(d, m->project ? m->bias : m->x, VKNN_ACCESS_READ);
  vknn_dispatch_bind(d, m->out, VKNN_ACCESS_READ | VKNN_ACCESS_WRITE);
  vknn_dispatch_bind(d, m->project ? m->out2 : m->x,
                     m->project ? VKNN_ACCESS_WRITE : VKNN_ACCESS_READ);
  d->invocations = (uint64_t)row_blocks * col_blocks;
  return VKNN_STATUS_NONE;
}

vknn_status vknn_qlstm_multiplier(const vknn_graph *graph, const vknn_operation *op,
                                  const char *what, float real, int32_t *out_pair) {
  vknn_quant_multiplier q;
  if (!vknn_quantize_multiplier((double)real, &q)) {
    VKNN_LOG_E(graph->log, "model",
               "%s: the %s scale ratio %g has no fixed-point multiplier (it must be finite, >= 0 "
               "and below 2^30)",
               vknn_operation_type_name(op->type), what, (double)real);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  out_pair[0] = q.multiplier;
  out_pair[1] = q.shift;
  return VKNN_STATUS_NONE;
}

/* ---- signature rules ------------------------------------------------------ */

/* The clips too: NNAPI marks them optional (omitted: no clipping, as 0). */
static bool is_optional(uint32_t i) {
  return i == IN_INPUT_W || i == IN_REC_W || (i >= IN_PEEP && i <= IN_BIAS) || i == IN_PROJ_W ||
         i == IN_PROJ_B || (i >= IN_LN && i < IN_LN + 4) || i == IN_CELL_CLIP || i == IN_PROJ_CLIP;
}

static int32_t input_type(uint32_t i) {
  if (i == IN_INPUT || i == IN_H) return VKNN_OPERAND_TENSOR_QUANT8_ASYMM_SIGNED;
  if (i < IN_PEEP || i == IN_PROJ_W) return VKNN_OPERAND_TENSOR_QUANT8_SYMM;
  if (i < IN_BIAS || i == IN_C || (i >= IN_LN && i < IN_CELL_CLIP))
    return VKNN_OPERAND_TENSOR_QUANT16_SYMM;
  if (i < IN_PROJ_W || i == IN_PROJ_B) return VKNN_OPERAND_TENSOR_INT32;
  return i == IN_HIDDEN_ZP ? VKNN_OPERAND_INT32 : VKNN_OPERAND_FLOAT32;
}

static uint32_t input_rank(uint32_t i) {
  if (i >= IN_CELL_CLIP) return 0;
  bool vector = (i >= IN_PEEP && i < IN_PROJ_W) || i == IN_PROJ_B || i >= IN_LN;
  return vector ? 1 : 2;
}

static bool check_operands(const vknn_logger *log, const vknn_subgraph *sg,
                           const vknn_operation *op) {
  for (uint32_t i = 0; i < INPUT_COUNT; ++i) {
    const vknn_operand *o = &sg->operands[op->inputs[i]];
    char what[24];
    snprintf(what, sizeof(what), "input %u", i);
    if (o->lifetime == VKNN_LIFETIME_NO_VALUE) {
      if (is_optional(i)) continue;
      VKNN_LOG_E(log, "model", "QUANTIZED_LSTM: input %u is omitted but not optional", i);
      return false;
    }
    if (!vknn_op_check_type(log, op, what, o, input_type(i)) ||
        (input_rank(i) != 0 && !vknn_op_check_rank(log, op, what, o, input_rank(i))))
      return false;
  }
  static const int32_t out_types[OUTPUT_COUNT] = {VKNN_OPERAND_TENSOR_QUANT8_ASYMM_SIGNED,
                                                  VKNN_OPERAND_TENSOR_QUANT16_SYMM,
                                                  VKNN_OPERAND_TENSOR_QUANT8_ASYMM_SIGNED};
  static const char *const out_names[OUTPUT_COUNT] = {"output state", "cell state", "output"};
  for (uint32_t i = 0; i < OUTPUT_COUNT; ++i)
    if (!vknn_op_check_type(log, op, out_names[i], &sg->operands[op->outputs[i]], out_types[i]) ||
        !vknn_op_check_rank(log, op, out_names[i], &sg->operands[op->outputs[i]], 2))
      return false;
  return true;
}

/* Presence of optional input i: 1 given, 0 omitted, -1 not known before an
 * execution (a model input the request may omit). */
typedef int8_t presence;

static bool all_or_none(const presence *p, const uint32_t *idx, uint32_t count) {
  bool given = false, omitted = false;
  for (uint32_t i = 0; i < count; ++i) {
    given |= p[idx[i]] == 1;
    omitted |= p[idx[i]] == 0;
  }
  return !(given && omitted);
}

/* The reference's rules on which optional inputs go together. */
static const char *presence_rule(const presence *p) {
  static const uint32_t cifg[2] = {IN_INPUT_W, IN_REC_W}, peep[2] = {IN_PEEP + 1, IN_PEEP + 2},
                        ln_cifg[3] = {IN_LN + 1, IN_LN + 2, IN_LN + 3};
  presence input_gate = p[IN_INPUT_W];
  if (!all_or_none(p, cifg, 2))
    return "input-to-input and recurrent-to-input weights must be both given or both omitted";
  if (input_gate == 0 && p[IN_BIAS] == 1) return "the input gate bias must be omitted with CIFG";
  if (input_gate == 1 && p[IN_BIAS] == 0) return "the input gate bias must be given without CIFG";
  if (!all_or_none(p, peep, 2))
    return "cell-to-forget and cell-to-output weights must be both given or both omitted";
  if (p[IN_PROJ_W] == 0 && p[IN_PROJ_B] == 1) return "a projection bias needs projection weights";
  if (p[IN_PEEP] == 1 && p[IN_PEEP + 1] == 0)
    return "cell-to-input weights need cell-to-forget and cell-to-output weights";
  if (input_gate == 1 && p[IN_PEEP + 1] == 1 && p[IN_PEEP] == 0)
    return "cell-to-input weights must be given with peephole connections and no CIFG";
  if (!all_or_none(p, ln_cifg, 3))
    return "the forget, cell and output layer normalization weights must be all given or all "
           "omitted";
  if (input_gate == 0 && p[IN_LN] == 1)
    return "input layer normalization weights must be omitted with CIFG";
  if (input_gate == 1 && p[IN_LN] != -1 && p[IN_LN + 1] != -1 && p[IN_LN] != p[IN_LN + 1])
    return "input layer normalization weights must be given with layer normalization and no "
           "CIFG";
  return NULL;
}

static presence operand_presence(const vknn_operand *o) {
  return o->lifetime == VKNN_LIFETIME_NO_VALUE        ? 0
         : o->lifetime == VKNN_LIFETIME_SUBGRAPH_INPUT ? -1
                                                       : 1;
}

/* The cell state's scale 2^shift, shift in [-15, -9]: the reference's
 * cell arithmetic needs a power of two there (and its tanh has at most 6
 * integer bits). */
static bool cell_shift_of(float scale, int32_t *out_shift) {
  float l = logf(scale) * (1.f / logf(2.f));
  float rounded = roundf(l);
  *out_shift = (int32_t)rounded;
  return scale > 0.f && fabsf(l - rounded) < 1e-3f && *out_shift >= -15 && *out_shift <= -9;
}

static vknn_status validate_quantized_lstm(const vknn_logger *log, const vknn_model *model,
                                           const vknn_subgraph *sg, const vknn_operation *op) {
  (void)model;
  if (op->input_count != INPUT_COUNT || op->output_count != OUTPUT_COUNT) {
    VKNN_LOG_E(log, "model", "QUANTIZED_LSTM takes 32 inputs and 3 outputs, got %u and %u",
               op->input_count, op->output_count);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  if (!check_operands(log, sg, op)) return VKNN_STATUS_INVALID_ARGUMENT;
  presence p[INPUT_COUNT];
  for (uint32_t i = 0; i < INPUT_COUNT; ++i) p[i] = operand_presence(&sg->operands[op->inputs[i]]);
  const char *rule = presence_rule(p);
  if (rule != NULL) {
    VKNN_LOG_E(log, "model", "QUANTIZED_LSTM: %s", rule);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  int32_t shift;
  float cell_scale = sg->operands[op->inputs[IN_C]].scale;
  if (!cell_shift_of(cell_scale, &shift)) {
    VKNN_LOG_E(log, "model",
               "QUANTIZED_LSTM: the cell state's scale %g must be 2^n with n in [-15, -9]",
               (double)cell_scale);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  return VKNN_STATUS_NONE;
}

/* ---- reading the cell in a graph ------------------------------------------ */

typedef struct qlstm {
  uint32_t batches, input_size, units, output_size;
  bool cifg, peephole, layer_norm, projection, projection_bias;
} qlstm;

static bool given(const vknn_graph *graph, const vknn_operation *op, uint32_t i) {
  return !vknn_graph_omitted(graph, op->inputs[i]);
}

/* The shape of input i, when given, is [d0] or [d0, d1] (by rank) as far as
 * both are known (ops/known_dims.h). */
static bool shape_is(const vknn_graph *graph, const vknn_operation *op, uint32_t i, uint32_t rank,
                     uint32_t d0, uint32_t d1) {
  return !given(graph, op, i) || vknn_dims_fit(&graph->tensors[op->inputs[i]], rank, d0, d1);
}

static vknn_status check_shapes(vknn_graph *graph, const vknn_operation *op, const qlstm *q) {
  uint32_t u = q->units;
  bool ok = shape_is(graph, op, IN_H, 2, q->batches, q->output_size) &&
            shape_is(graph, op, IN_C, 2, q->batches, u) &&
            shape_is(graph, op, IN_PROJ_W, 2, q->output_size, u) &&
            shape_is(graph, op, IN_PROJ_B, 1, q->output_size, 0);
  for (uint32_t g = 0; g < 4 && ok; ++g)
    ok = shape_is(graph, op, IN_INPUT_W + g, 2, u, q->input_size) &&
         shape_is(graph, op, IN_REC_W + g, 2, u, q->output_size) &&
         shape_is(graph, op, IN_BIAS + g, 1, u, 0) && shape_is(graph, op, IN_LN + g, 1, u, 0) &&
         (g == 3 || shape_is(graph, op, IN_PEEP + g, 1, u, 0));
  if (ok && (q->projection || vknn_dims_agree(q->output_size, u))) return VKNN_STATUS_NONE;
  VKNN_LOG_E(graph->log, "model",
             "QUANTIZED_LSTM: the shapes of the input, weights and states do not agree (batches "
             "%u, input %u, units %u, output %u)",
             q->batches, q->input_size, u, q->output_size);
  return VKNN_STATUS_INVALID_ARGUMENT;
}

/* Which optional inputs are given: known unless one is a model input and no
 * execution has said yet (the operation waits for one). */
static vknn_status require_presence(vknn_graph *graph, const vknn_operation *op) {
  for (uint32_t i = 0; i < IN_CELL_CLIP; ++i) {
    const vknn_tensor *t = &graph->tensors[op->inputs[i]];
    if (is_optional(i) && vknn_presence_waits(graph, t))
      return vknn_graph_defer(graph, op, "which optional inputs are omitted is known at execution");
  }
  return VKNN_STATUS_NONE;
}

/* The scalar parameters (the clips when given): constants, or model inputs
 * (the operation waits for an execution's values). */
static vknn_status require_params(vknn_graph *graph, const vknn_operation *op) {
  vknn_status s = VKNN_STATUS_NONE;
  for (uint32_t i = IN_CELL_CLIP; i <= IN_PROJ_CLIP && s == VKNN_STATUS_NONE; ++i)
    if (!vknn_graph_omitted(graph, op->inputs[i])) s = vknn_op_require_constant_params(graph, op, i, 1);
  if (s == VKNN_STATUS_NONE)
    s = vknn_op_require_constant_params(graph, op, IN_PROJ_CLIP + 1, INPUT_COUNT - IN_PROJ_CLIP - 1);
  return s;
}

/* The cell's form from which inputs are given (INVALID_ARGUMENT, logged,
 * against the reference's rules). */
static vknn_status read_form(vknn_graph *graph, const vknn_operation *op, qlstm *out) {
  out->cifg = !given(graph, op, IN_INPUT_W);
  out->peephole = given(graph, op, IN_PEEP + 1);
  out->layer_norm = given(graph, op, IN_LN + 1);
  out->projection = given(graph, op, IN_PROJ_W);
  out->projection_bias = out->projection && given(graph, op, IN_PROJ_B);
  presence p[INPUT_COUNT];
  for (uint32_t i = 0; i < INPUT_COUNT; ++i) p[i] = given(graph, op, i);
  const char *rule = presence_rule(p);
  if (rule == NULL) return VKNN_STATUS_NONE;
  VKNN_LOG_E(graph->log, "model", "QUANTIZED_LSTM: %s", rule);
  return VKNN_STATUS_INVALID_ARGUMENT;
}

/* Every given tensor's shape known (else the operation waits for an
 * execution), the input and the output gate's weights of rank 2. */
static vknn_status require_shapes(vknn_graph *graph, const vknn_operation *op) {
  for (uint32_t i = 0; i < IN_CELL_CLIP; ++i) {
    if (!given(graph, op, i)) continue;
    vknn_status s = vknn_op_require_input_shape(graph, op, i);
    if (s != VKNN_STATUS_NONE) return s;
  }
  const uint32_t matrices[3] = {IN_INPUT, IN_INPUT_W + 3, IN_REC_W + 3};
  for (uint32_t k = 0; k < 3; ++k) {
    if (graph->tensors[op->inputs[matrices[k]]].rank == 2) continue;
    VKNN_LOG_E(graph->log, "model",
               "QUANTIZED_LSTM: the input and the output gate's weights must have rank 2");
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  return VKNN_STATUS_NONE;
}

/* ---- quantization parameters ----------------------------------------------- */

/* Every scalar the cell needs: per gate (i, f, c, o) the multipliers of the
 * input and recurrent products, the peephole and the layer normalization
 * weights, and the variance floors (qparams, quantized_lstm.comp); the
 * hidden state's and the projection's multipliers; the clips. */
typedef struct qlstm_scalars {
  int32_t qparams[36];
  int32_t hidden[2], projection[2];
  int32_t hidden_zero_point, cell_shift, cell_clip, proj_clip;
} qlstm_scalars;

static float scalar_f32(const vknn_graph *graph, const vknn_operation *op, uint32_t i) {
  float v = 0.f;
  vknn_graph_const_float(graph, op->inputs[i], &v);
  return v;
}

static float scale_of(const vknn_graph *graph, const vknn_operation *op, uint32_t i) {
  return graph->tensors[op->inputs[i]].scale;
}

static vknn_status gate_multipliers(const vknn_graph *graph, const vknn_operation *op,
                                    const qlstm *q, uint32_t g, qlstm_scalars *out) {
  int32_t *m = &out->qparams[g * 8];
  float intermediate = scalar_f32(graph, op, IN_INTERMEDIATE + g);
  float x_ratio =
      scale_of(graph, op, IN_INPUT_W + g) * scale_of(graph, op, IN_INPUT) / intermediate;
  float h_ratio = scale_of(graph, op, IN_REC_W + g) * scale_of(graph, op, IN_H) / intermediate;
  char what[40];
  snprintf(what, sizeof(what), "%s gate's input", gate_names[g]);
  vknn_status s = vknn_qlstm_multiplier(graph, op, what, x_ratio, &m[0]);
  snprintf(what, sizeof(what), "%s gate's recurrent", gate_names[g]);
  if (s == VKNN_STATUS_NONE) s = vknn_qlstm_multiplier(graph, op, what, h_ratio, &m[2]);
  if (s == VKNN_STATUS_NONE && q->peephole && g != 2) {
    uint32_t peep = IN_PEEP + (g == 3 ? 2 : g);
    /* The reference's power of two is a double: the ratio is formed in
     * double precision, then rounded to float. */
    float ratio = (float)(ldexp(1.0, out->cell_shift) * (double)scale_of(graph, op, peep) /
                          (double)intermediate);
    snprintf(what, sizeof(what), "%s gate's peephole", gate_names[g]);
    s = vknn_qlstm_multiplier(graph, op, what, ratio, &m[4]);
  }
  if (s == VKNN_STATUS_NONE && q->layer_norm) {
    float ln_scale = scale_of(graph, op, IN_LN + g);
    snprintf(what, sizeof(what), "%s gate's layer normalization", gate_names[g]);
    s = vknn_qlstm_multiplier(graph, op, what, ln_scale, &m[6]);
    int32_t limit = (int32_t)(10000.f * ln_scale);
    out->qparams[32 + g] = limit < 1 ? limit : 1;
  }
  return s;
}

static vknn_status read_scalars(const vknn_graph *graph, const vknn_operation *op, const qlstm *q,
                                qlstm_scalars *out) {
  memset(out, 0, sizeof(*out));
  float cell_scale = scale_of(graph, op, IN_C);
  out->cell_shift = (int32_t)roundf(logf(cell_scale) * (1.f / logf(2.f)));
  vknn_status s = VKNN_STATUS_NONE;
  for (uint32_t g = q->cifg ? 1 : 0; g < 4 && s == VKNN_STATUS_NONE; ++g)
    s = gate_multipliers(graph, op, q, g, out);
  float hidden_scale = scalar_f32(graph, op, IN_HIDDEN_SCALE);
  float hidden_ratio = (float)(ldexp(1.0, -15) / (double)hidden_scale * ldexp(1.0, -15));
  if (s == VKNN_STATUS_NONE)
    s = vknn_qlstm_multiplier(graph, op, "hidden state", hidden_ratio, out->hidden);
  if (s == VKNN_STATUS_NONE && q->projection) {
    float ratio = scale_of(graph, op, IN_PROJ_W) * hidden_scale / scale_of(graph, op, IN_H);
    s = vknn_qlstm_multiplier(graph, op, "projection", ratio, out->projection);
  }
  int32_t zp = 0;
  vknn_graph_const_i32(graph, op->inputs[IN_HIDDEN_ZP], &zp);
  out->hidden_zero_point = (int8_t)zp; /* read as int8 by the reference */
  float cell_clip = scalar_f32(graph, op, IN_CELL_CLIP);
  float proj_clip = scalar_f32(graph, op, IN_PROJ_CLIP);
  if (cell_clip > 0.f)
    out->cell_clip = (int16_t)(int32_t)fminf(fmaxf(cell_clip / cell_scale, -32768.f), 32767.f);
  if (proj_clip > 0.f && q->projection)
    out->proj_clip = (int8_t)(int32_t)fminf(
        fmaxf(proj_clip / scale_of(graph, op, IN_PROJ_W), -128.f), 127.f);
  return s;
}

/* The ranges the documentation leaves the scalar parameters. The hidden
 * state's zero point (input 30) is the zero point of an int8 tensor (the
 * hidden state feeds the projection as TENSOR_QUANT8_ASYMM_SIGNED, whose
 * zero point lies in [-128, 127]). The clips (inputs 24 and 25) are those of
 * LSTM, of which this is the quantized version: values are bound within
 * [-clip, clip], 0 (or an omitted clip) disabling it; a negative or NaN clip
 * bounds nothing. The projection clip is checked with or without a
 * projection, as LSTM checks it. */
static vknn_status check_scalar_ranges(const vknn_graph *graph, const vknn_operation *op) {
  int32_t zp = 0;
  vknn_graph_const_i32(graph, op->inputs[IN_HIDDEN_ZP], &zp);
  if (zp < -128 || zp > 127) {
    VKNN_LOG_E(graph->log, "model",
               "QUANTIZED_LSTM: the hidden state's zero point %d is outside [-128, 127] (an int8 tensor's)", zp);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  float cell_clip = scalar_f32(graph, op, IN_CELL_CLIP), proj_clip = scalar_f32(graph, op, IN_PROJ_CLIP);
  if (!(cell_clip >= 0.f) || !(proj_clip >= 0.f)) {
    VKNN_LOG_E(graph->log, "model", "QUANTIZED_LSTM: the cell clip %g and the projection clip %g must be >= 0",
               (double)cell_clip, (double)proj_clip);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  return VKNN_STATUS_NONE;
}

/* The form and the scalars (their multipliers) first, then the shapes as far
 * as they are known (0: not known yet), then the wait for the rest: a model
 * whose shapes an execution gives still has these checked at prepare. */
static vknn_status read_qlstm(vknn_graph *graph, const vknn_operation *op, qlstm *out,
                              qlstm_scalars *sc) {
  vknn_status s = require_presence(graph, op);
  if (s == VKNN_STATUS_NONE) s = require_params(graph, op);
  if (s == VKNN_STATUS_NONE) s = read_form(graph, op, out);
  if (s == VKNN_STATUS_NONE) s = check_scalar_ranges(graph, op);
  if (s == VKNN_STATUS_NONE) s = read_scalars(graph, op, out, sc);
  if (s != VKNN_STATUS_NONE) return s;
  const vknn_tensor *in = &graph->tensors[op->inputs[IN_INPUT]];
  out->batches = vknn_known_dim(in, 2, 0);
  out->input_size = vknn_known_dim(in, 2, 1);
  out->units = vknn_known_dim(&graph->tensors[op->inputs[IN_INPUT_W + 3]], 2, 0);
  out->output_size = vknn_known_dim(&graph->tensors[op->inputs[IN_REC_W + 3]], 2, 1);
  s = check_shapes(graph, op, out);
  if (s == VKNN_STATUS_NONE) s = require_shapes(graph, op);
  return s;
}

static vknn_status infer_quantized_lstm(vknn_graph *graph, const vknn_operation *op) {
  qlstm q = {0};
  qlstm_scalars sc;
  /* The multipliers are made here too: a scale ratio without one is an
   * invalid model, which the support query reports as such. */
  vknn_status s = read_qlstm(graph, op, &q, &sc);
  uint32_t state[2] = {q.batches, q.output_size}, cell[2] = {q.batches, q.units};
  if (s == VKNN_STATUS_NONE) s = vknn_op_set_output_shape(graph, op, OUT_STATE, state, 2);
  if (s == VKNN_STATUS_NONE) s = vknn_op_set_output_shape(graph, op, OUT_CELL, cell, 2);
  if (s == VKNN_STATUS_NONE) s = vknn_op_set_output_shape(graph, op, OUT_OUTPUT, state, 2);
  return s;
}

/* ---- lowering -------------------------------------------------------------- */

/* Push constants of quantized_lstm.comp, std430 layout. */
typedef struct quantized_lstm_params {
  uint32_t units, gate_cols, batches, h_offset;
  int32_t hidden_multiplier, hidden_shift, hidden_zero_point, cell_clip, cell_shift;
} quantized_lstm_params;
VKNN_PUSH_LAYOUT(quantized_lstm, quantized_lstm_params);

enum { FLAG_CIFG = 1, FLAG_PEEPHOLE = 2, FLAG_LAYER_NORM = 4, FLAG_WRITE_STATE = 8 };

static uint32_t temp2(vknn_graph *graph, int32_t type, uint32_t rows, uint32_t cols) {
  uint32_t dims[2] = {rows, cols};
  return vknn_graph_add_temporary(graph, type, dims, 2);
}

static uint32_t constant_copy(vknn_graph *graph, int32_t type, uint32_t count, const void *data,
                              size_t bytes) {
  void *copy = vknn_calloc(1, bytes);
  if (copy == NULL) return UINT32_MAX;
  if (data != NULL) memcpy(copy, data, bytes);
  return vknn_graph_add_constant(graph, type, &count, 1, copy);
}

/* Rows of units values from the inputs first + k (rows[k] of them, at
 * positions slots[k]; omitted ones stay unwritten), of one type. */
static vknn_status assemble_rows(vknn_graph *graph, const vknn_operation *op, int32_t type,
                                 const uint32_t *inputs, const uint32_t *rows, uint32_t count,
                                 uint32_t total_rows, uint32_t units, uint32_t *out_tensor,
                                 vknn_dispatch_list *out_list) {
  vknn_lstm_block b[8];
  uint32_t n = 0;
  for (uint32_t k = 0; k < count; ++k)
    if (given(graph, op, inputs[k]))
      b[n++] = (vknn_lstm_block){op->inputs[inputs[k]], 1, units, rows[k], 0};
  return vknn_lstm_assemble(graph, type, b, n, total_rows, units, out_tensor, out_list);
}

/* The gate weights of one product side by side: [gates * units, cols]. */
static vknn_status assemble_gates(vknn_graph *graph, const vknn_operation *op, const qlstm *q,
                                  uint32_t first_input, uint32_t cols, uint32_t *out_tensor,
                                  vknn_dispatch_list *out_list) {
  vknn_lstm_block b[4];
  uint32_t n = 0;
  for (uint32_t g = q->cifg ? 1 : 0; g < 4; ++g, ++n)
    b[n] = (vknn_lstm_block){op->inputs[first_input + g], q->units, cols, n * q->units, 0};
  return vknn_lstm_assemble(graph, VKNN_OPERAND_TENSOR_QUANT8_SYMM, b, n, n * q->units, cols,
                            out_tensor, out_list);
}

/* The tensors the cell kernel reads besides the sums and states. */
typedef struct cell_inputs {
  uint32_t sums, bias, w16, qparams;
} cell_inputs;

static vknn_status lower_products(vknn_graph *graph, const vknn_operation *op, const qlstm *q,
                                  cell_inputs *c, vknn_dispatch_list *out_list) {
  uint32_t gates = q->cifg ? 3 : 4, cols = gates * q->units, w_x, w_h;
  vknn_status s = assemble_gates(graph, op, q, IN_INPUT_W, q->input_size, &w_x, out_list);
  if (s == VKNN_STATUS_NONE)
    s = assemble_gates(graph, op, q, IN_REC_W, q->output_size, &w_h, out_list);
  if (s != VKNN_STATUS_NONE) return s;
  c->sums = temp2(graph, VKNN_OPERAND_TENSOR_INT32, 2 * q->batches, cols);
  if (c->sums == UINT32_MAX) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  const vknn_tensor *x = &graph->tensors[op->inputs[IN_INPUT]];
  const vknn_tensor *h = &graph->tensors[op->inputs[IN_H]];
  vknn_quant_matmul mx = {.x = op->inputs[IN_INPUT], .w = w_x, .rows = q->batches,
                          .k = q->input_size, .n = cols, .zx = x->zero_point, .out = c->sums,
                          .out_stride = cols};
  vknn_quant_matmul mh = {.x = op->inputs[IN_H], .w = w_h, .rows = q->batches,
                          .k = q->output_size, .n = cols, .zx = h->zero_point, .out = c->sums,
                          .out_offset = q->batches * cols, .out_stride = cols};
  s = vknn_lower_quant_matmul(graph, &mx, out_list);
  return s == VKNN_STATUS_NONE ? vknn_lower_quant_matmul(graph, &mh, out_list) : s;
}

static vknn_status lower_cell_inputs(vknn_graph *graph, const vknn_operation *op, const qlstm *q,
                                     const qlstm_scalars *sc, cell_inputs *c,
                                     vknn_dispatch_list *out_list) {
  static const uint32_t bias_inputs[4] = {IN_BIAS, IN_BIAS + 1, IN_BIAS + 2, IN_BIAS + 3};
  static const uint32_t bias_rows[4] = {0, 1, 2, 3};
  static const uint32_t w16_inputs[7] = {IN_PEEP, IN_PEEP + 1, IN_PEEP + 2, IN_LN,
                                         IN_LN + 1, IN_LN + 2, IN_LN + 3};
  static const uint32_t w16_rows[7] = {0, 1, 2, 3, 4, 5, 6};
  vknn_status s = lower_products(graph, op, q, c, out_list);
  /* The biases are read only with layer normalization, the 16-bit weights
   * with peepholes or layer normalization: else the sums stand in. */
  c->bias = c->w16 = c->sums;
  if (s == VKNN_STATUS_NONE && q->layer_norm)
    s = assemble_rows(graph, op, VKNN_OPERAND_TENSOR_INT32, bias_inputs, bias_rows, 4, 4, q->units,
                      &c->bias, out_list);
  if (s == VKNN_STATUS_NONE && (q->layer_norm || q->peephole))
    s = assemble_rows(graph, op, VKNN_OPERAND_TENSOR_QUANT16_SYMM, w16_inputs, w16_rows, 7, 7,
                      q->units, &c->w16, out_list);
  if (s != VKNN_STATUS_NONE) return s;
  c->qparams = constant_copy(graph, VKNN_OPERAND_TENSOR_INT32, 36, sc->qparams,
                             sizeof(sc->qparams));
  return c->qparams == UINT32_MAX ? VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT : VKNN_STATUS_NONE;
}

static vknn_status lower_cell(const vknn_operation *op, const qlstm *q, const qlstm_scalars *sc,
                              const cell_inputs *c, uint32_t hidden, vknn_dispatch_list *out_list) {
  vknn_dispatch *d = vknn_dispatch_list_add(out_list);
  if (d == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  uint32_t cols = (q->cifg ? 3 : 4) * q->units;
  d->shader = VKNN_SHADER_QUANTIZED_LSTM;
  d->spec_count = VKNN_SPEC_COUNT_QUANTIZED_LSTM;
  d->spec[VKNN_SPEC_QUANTIZED_LSTM_FLAGS] =
      (q->cifg ? FLAG_CIFG : 0) | (q->peephole ? FLAG_PEEPHOLE : 0) |
      (q->layer_norm ? FLAG_LAYER_NORM : 0) | (q->projection ? 0 : FLAG_WRITE_STATE);
  d->local_size = 64;
  quantized_lstm_params p = {q->units, cols, q->batches, q->batches * cols, sc->hidden[0],
                             sc->hidden[1], sc->hidden_zero_point, sc->cell_clip, sc->cell_shift};
  memcpy(d->push, &p, sizeof(p));
  d->push_size = sizeof(p);
  vknn_dispatch_bind(d, c->sums, VKNN_ACCESS_READ);
  vknn_dispatch_bind(d, c->bias, VKNN_ACCESS_READ);
  vknn_dispatch_bind(d, c->w16, VKNN_ACCESS_READ);
  vknn_dispatch_bind(d, c->qparams, VKNN_ACCESS_READ);
  vknn_dispatch_bind(d, op->inputs[IN_C], VKNN_ACCESS_READ);
  vknn_dispatch_bind(d, op->outputs[OUT_CELL], VKNN_ACCESS_READ | VKNN_ACCESS_WRITE);
  vknn_dispatch_bind(d, hidden, VKNN_ACCESS_WRITE);
  /* Without a projection the hidden state is the output and the output
   * state; with one, binding 7 is unused and gets a tensor only read. */
  vknn_dispatch_bind(d, q->projection ? c->sums : op->outputs[OUT_STATE],
                     q->projection ? VKNN_ACCESS_READ : VKNN_ACCESS_WRITE);
  d->invocations = (uint64_t)q->batches * 64;
  return VKNN_STATUS_NONE;
}

/* The projection: int8 output and output state from the hidden state. The
 * reference adds hidden zero point * row sum of the weights to its bias. */
static vknn_status lower_projection(vknn_graph *graph, const vknn_operation *op, const qlstm *q,
                                    const qlstm_scalars *sc, uint32_t hidden,
                                    vknn_dispatch_list *out_list) {
  uint32_t bias = q->projection_bias ? op->inputs[IN_PROJ_B]
                                     : constant_copy(graph, VKNN_OPERAND_TENSOR_INT32,
                                                     q->output_size, NULL,
                                                     q->output_size * sizeof(int32_t));
  if (bias == UINT32_MAX) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  vknn_quant_matmul m = {.x = hidden, .w = op->inputs[IN_PROJ_W], .rows = q->batches,
                         .k = q->units, .n = q->output_size, .zx = -sc->hidden_zero_point,
                         .out = op->outputs[OUT_OUTPUT], .project = true, .bias = bias,
                         .out2 = op->outputs[OUT_STATE], .multiplier = sc->projection[0],
                         .shift = sc->projection[1],
                         .out_zero_point = graph->tensors[op->inputs[IN_H]].zero_point,
                         .clip = sc->proj_clip};
  return vknn_lower_quant_matmul(graph, &m, out_list);
}

/* The kernels index elements in 32 bits, and a row's int32 sums of up to
 * 65535 int16 gate values cannot overflow. */
static bool fits(const qlstm *q) {
  uint64_t cols = 4ull * q->units, widest = q->input_size > q->output_size ? q->input_size
                                                                         : q->output_size;
  uint64_t largest[3] = {cols * widest, 2ull * q->batches * cols,
                         (uint64_t)q->output_size * q->units};
  return q->units < 65536 && largest[0] < UINT32_MAX && largest[1] < UINT32_MAX &&
         largest[2] < UINT32_MAX;
}

static vknn_status lower_quantized_lstm(vknn_graph *graph, const vknn_operation *op,
                                        vknn_dispatch_list *out_list) {
  qlstm q;
  qlstm_scalars sc;
  cell_inputs c;
  vknn_status s = read_qlstm(graph, op, &q, &sc);
  if (s == VKNN_STATUS_NONE && !fits(&q)) {
    VKNN_LOG_E(graph->log, "compilation",
               "QUANTIZED_LSTM: %u units of input %u and output %u are too large for the "
               "kernels (65535 units, 32-bit element indices)",
               q.units, q.input_size, q.output_size);
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  if (s == VKNN_STATUS_NONE) s = lower_cell_inputs(graph, op, &q, &sc, &c, out_list);
  if (s != VKNN_STATUS_NONE) return s;
  uint32_t hidden = op->outputs[OUT_OUTPUT];
  if (q.projection) {
    hidden = temp2(graph, VKNN_OPERAND_TENSOR_QUANT8_ASYMM_SIGNED, q.batches, q.units);
    if (hidden == UINT32_MAX) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  }
  s = lower_cell(op, &q, &sc, &c, hidden, out_list);
  if (s != VKNN_STATUS_NONE || !q.projection) return s;
  return lower_projection(graph, op, &q, &sc, hidden, out_list);
}

const vknn_op_def vknn_op_quantized_lstm = {VKNN_OPERATION_QUANTIZED_LSTM, false,
                                            validate_quantized_lstm, infer_quantized_lstm,
                                            lower_quantized_lstm};
