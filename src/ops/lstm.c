/* LSTM: one step of a long short-term memory cell, with CIFG, peephole,
 * projection, clipping and layer normalization; and the cell's rules and
 * lowering that the sequence forms share (ops/lstm.h). */
#include "ops/lstm.h"

#include <float.h>
#include <stdio.h>
#include <string.h>

#include "model/operand_type.h"
#include "ops/conv2d.h"
#include "ops/slice_copy.h"
#include "util/fault_injection.h"

static const char *op_name(const vknn_operation *op) {
  return vknn_operation_type_name(op->type);
}

/* ---- slots --------------------------------------------------------------- */

static void fill_none(vknn_lstm_slots *s) { memset(s, 0xff, sizeof(*s)); }

static void set_run(uint32_t *dst, uint32_t first, uint32_t count) {
  for (uint32_t i = 0; i < count; ++i) dst[i] = first + i;
}

void vknn_lstm_single_slots(const vknn_operation *op, vknn_lstm_slots *out) {
  fill_none(out);
  set_run(out->in_w, 1, 4);
  set_run(out->rec_w, 5, 4);
  set_run(out->peep, 9, 3);
  set_run(out->bias, 12, 4);
  out->proj_w = 16;
  out->proj_b = 17;
  out->h_in = 18;
  out->c_in = 19;
  if (op->type == VKNN_OPERATION_UNIDIRECTIONAL_SEQUENCE_LSTM) set_run(out->ln, 24, 4);
  else if (op->input_count == 27) set_run(out->ln, 23, 4);
}

/* ---- signature rules ----------------------------------------------------- */

static bool slot_optional(const vknn_lstm_slots *s, uint32_t index) {
  const uint32_t *a = vknn_lstm_slot_array(s);
  uint32_t slot = a[index];
  return slot == s->in_w[0] || slot == s->rec_w[0] || slot == s->bias[0] ||
         slot == s->peep[0] || slot == s->peep[1] || slot == s->peep[2] ||
         slot == s->proj_w || slot == s->proj_b || slot == s->ln[0] || slot == s->ln[1] ||
         slot == s->ln[2] || slot == s->ln[3] || slot == s->aux_w[0] || slot == s->aux_w[1] ||
         slot == s->aux_w[2] || slot == s->aux_w[3];
}

/* Rank of each slot: matrices 2, vectors 1, states 2. */
static uint32_t slot_rank(const vknn_lstm_slots *s, uint32_t slot) {
  for (int g = 0; g < 4; ++g)
    if (slot == s->in_w[g] || slot == s->rec_w[g] || slot == s->aux_w[g]) return 2;
  return slot == s->proj_w || slot == s->h_in || slot == s->c_in ? 2 : 1;
}

bool vknn_lstm_check_cell(const vknn_logger *log, const vknn_subgraph *sg,
                          const vknn_operation *op, const vknn_lstm_slots *slots,
                          const char *name) {
  int32_t type = sg->operands[op->inputs[0]].type;
  const uint32_t *a = vknn_lstm_slot_array(slots);
  vknn_presence present[VKNN_LSTM_SLOT_COUNT];
  for (uint32_t i = 0; i < VKNN_LSTM_SLOT_COUNT; ++i) {
    present[i] = 0;
    if (a[i] == VKNN_LSTM_NONE) continue;
    const vknn_operand *o = &sg->operands[op->inputs[a[i]]];
    present[i] = o->lifetime == VKNN_LIFETIME_NO_VALUE        ? 0
                 : o->lifetime == VKNN_LIFETIME_SUBGRAPH_INPUT ? -1
                                                               : 1;
    if (present[i] == 0) {
      if (slot_optional(slots, i)) continue;
      VKNN_LOG_E(log, "model", "%s: %sinput %u is omitted but not optional", op_name(op), name,
                 a[i]);
      return false;
    }
    char what[48];
    snprintf(what, sizeof(what), "%sinput %u", name, a[i]);
    if (!vknn_op_check_type(log, op, what, o, type) ||
        !vknn_op_check_rank(log, op, what, o, slot_rank(slots, a[i])))
      return false;
  }
  return vknn_lstm_check_presence(log, op, slots, present, name);
}

/* The slots of a all given or all omitted (unknown ones agree with both). */
static bool all_or_none(const vknn_presence *p, const uint32_t *idx, uint32_t count) {
  bool given = false, omitted = false;
  for (uint32_t i = 0; i < count; ++i) {
    given |= p[idx[i]] == 1;
    omitted |= p[idx[i]] == 0;
  }
  return !(given && omitted);
}

enum { /* indices of vknn_lstm_slots members in its array */
  SLOT_IN_W = 0, SLOT_REC_W = 4, SLOT_PEEP = 8, SLOT_BIAS = 11, SLOT_PROJ_W = 15,
  SLOT_PROJ_B = 16, SLOT_LN = 19, SLOT_AUX_W = 23,
};

bool vknn_lstm_check_presence(const vknn_logger *log, const vknn_operation *op,
                              const vknn_lstm_slots *slots, const vknn_presence *p,
                              const char *name) {
  const char *rule = NULL;
  uint32_t cifg_set[3] = {SLOT_IN_W, SLOT_REC_W, SLOT_BIAS};
  uint32_t peep_set[2] = {SLOT_PEEP + 1, SLOT_PEEP + 2};
  uint32_t ln_set[3] = {SLOT_LN + 1, SLOT_LN + 2, SLOT_LN + 3};
  uint32_t aux_set[3] = {SLOT_AUX_W + 1, SLOT_AUX_W + 2, SLOT_AUX_W + 3};
  /* CIFG known omitted / known given: the input gate's operands follow it. */
  vknn_presence input_gate = p[SLOT_IN_W];
  if (!all_or_none(p, cifg_set, 3))
    rule = "input-to-input weights, recurrent-to-input weights and input gate bias must be "
           "all given or all omitted";
  else if (!all_or_none(p, peep_set, 2))
    rule = "cell-to-forget and cell-to-output weights must be both given or both omitted";
  else if (input_gate == 0 && p[SLOT_PEEP] == 1)
    rule = "cell-to-input weights must be omitted with CIFG";
  else if (input_gate == 1 && p[SLOT_PEEP + 1] != -1 && p[SLOT_PEEP] != -1 &&
           p[SLOT_PEEP] != p[SLOT_PEEP + 1])
    rule = "cell-to-input weights must be given with peephole connections and no CIFG";
  else if (p[SLOT_PROJ_W] == 0 && p[SLOT_PROJ_B] == 1)
    rule = "a projection bias needs projection weights";
  else if (slots->ln[0] != VKNN_LSTM_NONE && !all_or_none(p, ln_set, 3))
    rule = "the forget, cell and output layer normalization weights must be all given or all "
           "omitted";
  else if (slots->ln[0] != VKNN_LSTM_NONE && input_gate == 0 && p[SLOT_LN] == 1)
    rule = "input layer normalization weights must be omitted with CIFG";
  else if (slots->ln[0] != VKNN_LSTM_NONE && input_gate == 1 && p[SLOT_LN] != -1 &&
           p[SLOT_LN + 1] != -1 && p[SLOT_LN] != p[SLOT_LN + 1])
    rule = "input layer normalization weights must be given with layer normalization and no "
           "CIFG";
  else if (slots->aux_w[0] != VKNN_LSTM_NONE && !all_or_none(p, aux_set, 3))
    rule = "auxiliary forget, cell and output weights must be all given or all omitted";
  else if (slots->aux_w[0] != VKNN_LSTM_NONE && input_gate == 0 && p[SLOT_AUX_W] == 1)
    rule = "auxiliary input-to-input weights must be omitted with CIFG";
  else if (slots->aux_w[0] != VKNN_LSTM_NONE && input_gate == 1 && p[SLOT_AUX_W] != -1 &&
           p[SLOT_AUX_W + 1] != -1 && p[SLOT_AUX_W] != p[SLOT_AUX_W + 1])
    rule = "auxiliary input-to-input weights must be given with auxiliary weights and no CIFG";
  if (rule == NULL) return true;
  VKNN_LOG_E(log, "model", "%s: %s%s", op_name(op), name, rule);
  return false;
}

bool vknn_lstm_check_input(const vknn_logger *log, const vknn_subgraph *sg,
                           const vknn_operation *op, uint32_t rank) {
  const vknn_operand *in = &sg->operands[op->inputs[0]];
  if (in->lifetime == VKNN_LIFETIME_NO_VALUE) {
    VKNN_LOG_E(log, "model", "%s: input 0 is omitted but not optional", op_name(op));
    return false;
  }
  if (in->type != VKNN_OPERAND_TENSOR_FLOAT32 && in->type != VKNN_OPERAND_TENSOR_FLOAT16) {
    VKNN_LOG_E(log, "model", "%s: input must be TENSOR_FLOAT32 or TENSOR_FLOAT16, not %s",
               op_name(op), vknn_operand_type_name(in->type));
    return false;
  }
  return vknn_op_check_rank(log, op, "input", in, rank);
}

bool vknn_lstm_check_scalars(const vknn_logger *log, const vknn_subgraph *sg,
                             const vknn_operation *op, uint32_t act) {
  bool f16 = sg->operands[op->inputs[0]].type == VKNN_OPERAND_TENSOR_FLOAT16;
  int32_t clip_type = f16 ? VKNN_OPERAND_FLOAT16 : VKNN_OPERAND_FLOAT32;
  /* NNAPI makes none of them optional. */
  for (uint32_t i = act; i < act + 3; ++i) {
    if (sg->operands[op->inputs[i]].lifetime != VKNN_LIFETIME_NO_VALUE) continue;
    VKNN_LOG_E(log, "model", "%s: input %u is omitted but not optional", op_name(op), i);
    return false;
  }
  return vknn_op_check_type(log, op, "activation", &sg->operands[op->inputs[act]],
                            VKNN_OPERAND_INT32) &&
         vknn_op_check_type(log, op, "cell clip", &sg->operands[op->inputs[act + 1]],
                            clip_type) &&
         vknn_op_check_type(log, op, "projection clip", &sg->operands[op->inputs[act + 2]],
                            clip_type);
}

/* ---- reading a cell in a graph ------------------------------------------- */

/* Each slot's presence; *shapes_known: every given operand's shape is known. */
static vknn_status read_presence(vknn_graph *graph, const vknn_operation *op,
                                 const vknn_lstm_slots *slots, vknn_presence *present,
                                 bool *shapes_known) {
  const uint32_t *a = vknn_lstm_slot_array(slots);
  *shapes_known = true;
  for (uint32_t i = 0; i < VKNN_LSTM_SLOT_COUNT; ++i) {
    present[i] = 0;
    if (a[i] == VKNN_LSTM_NONE) continue;
    const vknn_tensor *t = &graph->tensors[op->inputs[a[i]]];
    bool optional = slot_optional(slots, i);
    if (optional && vknn_presence_waits(graph, t))
      return vknn_graph_defer(graph, op, "which optional inputs are omitted is known at execution");
    present[i] = t->lifetime != VKNN_LIFETIME_NO_VALUE;
    if (!optional && !present[i]) {
      VKNN_LOG_E(graph->log, "model", "%s: input %u is omitted but not optional", op_name(op),
                 a[i]);
      return VKNN_STATUS_INVALID_ARGUMENT;
    }
    if (present[i] && !t->shape_known) *shapes_known = false;
  }
  return VKNN_STATUS_NONE;
}

static uint32_t tensor_or_none(const vknn_operation *op, const vknn_presence *present,
                               const uint32_t *a, uint32_t i) {
  return a[i] != VKNN_LSTM_NONE && present[i] ? op->inputs[a[i]] : VKNN_LSTM_NONE;
}

/* The extents a cell's operands are made of. */
typedef enum { EXTENT_UNITS, EXTENT_OUTPUT, EXTENT_INPUT, EXTENT_BATCH, EXTENT_AUX } cell_extent;

/* Slot i's shape: its rank and which extent each dimension is. */
typedef struct slot_layout {
  uint32_t rank;
  cell_extent dim[2];
} slot_layout;

static slot_layout layout_of_slot(uint32_t i) {
  if (i < SLOT_REC_W) return (slot_layout){2, {EXTENT_UNITS, EXTENT_INPUT}};
  if (i < SLOT_PEEP) return (slot_layout){2, {EXTENT_UNITS, EXTENT_OUTPUT}};
  if (i < SLOT_PROJ_W) return (slot_layout){1, {EXTENT_UNITS}};
  if (i == SLOT_PROJ_W) return (slot_layout){2, {EXTENT_OUTPUT, EXTENT_UNITS}};
  if (i == SLOT_PROJ_B) return (slot_layout){1, {EXTENT_OUTPUT}};
  if (i == SLOT_PROJ_B + 1) return (slot_layout){2, {EXTENT_BATCH, EXTENT_OUTPUT}};
  if (i == SLOT_PROJ_B + 2) return (slot_layout){2, {EXTENT_BATCH, EXTENT_UNITS}};
  if (i < SLOT_AUX_W) return (slot_layout){1, {EXTENT_UNITS}};
  return (slot_layout){2, {EXTENT_UNITS, EXTENT_AUX}};
}

/* The extents a cell's shapes are checked against (0: not known yet). */
typedef struct cell_extents {
  uint32_t of[5]; /* by cell_extent */
} cell_extents;

/* Every given operand's shape: the expected dims of slot i. */
static bool slot_shape_ok(const vknn_graph *graph, uint32_t i, uint32_t tensor, const cell_extents *e) {
  slot_layout l = layout_of_slot(i);
  return vknn_dims_fit(&graph->tensors[tensor], l.rank, e->of[l.dim[0]], l.rank > 1 ? e->of[l.dim[1]] : 0);
}

/* An extent (the units, the output size) from the first given operand that
 * knows it, so that each operand is checked against the others even where
 * some shape waits for an execution; 0: none knows it yet. */
static uint32_t known_cell_extent(const vknn_graph *graph, const vknn_lstm_cell *c, cell_extent x) {
  for (uint32_t i = 0; i < VKNN_LSTM_SLOT_COUNT; ++i) {
    if (c->t.all[i] == VKNN_LSTM_NONE) continue;
    slot_layout l = layout_of_slot(i);
    for (uint32_t d = 0; d < l.rank; ++d) {
      uint32_t v = l.dim[d] == x ? vknn_known_dim(&graph->tensors[c->t.all[i]], l.rank, d) : 0;
      if (v != 0) return v;
    }
  }
  return 0;
}

vknn_status vknn_lstm_read_cell(vknn_graph *graph, const vknn_operation *op,
                                const vknn_lstm_slots *slots, uint32_t batches,
                                uint32_t input_size, uint32_t aux_size, const char *name,
                                vknn_lstm_cell *out) {
  vknn_presence present[VKNN_LSTM_SLOT_COUNT];
  vknn_status s = read_presence(graph, op, slots, present, &out->shapes_known);
  if (s != VKNN_STATUS_NONE) return s;
  if (!vknn_lstm_check_presence(graph->log, op, slots, present, name))
    return VKNN_STATUS_INVALID_ARGUMENT;
  const uint32_t *a = vknn_lstm_slot_array(slots);
  uint32_t *dst = out->t.all;
  for (uint32_t i = 0; i < VKNN_LSTM_SLOT_COUNT; ++i) dst[i] = tensor_or_none(op, present, a, i);
  out->units = known_cell_extent(graph, out, EXTENT_UNITS);
  out->output_size = known_cell_extent(graph, out, EXTENT_OUTPUT);
  out->cifg = out->t.in_w[0] == VKNN_LSTM_NONE;
  out->peephole = out->t.peep[1] != VKNN_LSTM_NONE;
  out->layer_norm = out->t.ln[1] != VKNN_LSTM_NONE;
  /* A tensor of another rank than its slot's fails that slot's check. */
  const cell_extents extents = {{out->units, out->output_size, input_size, batches, aux_size}};
  bool ok = out->t.proj_w != VKNN_LSTM_NONE || vknn_dims_agree(out->output_size, out->units);
  for (uint32_t i = 0; ok && i < VKNN_LSTM_SLOT_COUNT; ++i)
    if (dst[i] != VKNN_LSTM_NONE)
      ok = slot_shape_ok(graph, i, dst[i], &extents);
  if (ok) return VKNN_STATUS_NONE;
  VKNN_LOG_E(graph->log, "model",
             "%s: %sthe shapes of the weights, biases and states do not agree (batches %u, "
             "input %u, units %u, output %u)",
             op_name(op), name, batches, input_size, out->units, out->output_size);
  return VKNN_STATUS_INVALID_ARGUMENT;
}

vknn_status vknn_lstm_read_params(vknn_graph *graph, const vknn_operation *op, uint32_t act,
                                  vknn_lstm_params *out) {
  vknn_status s = vknn_op_require_constant_params(graph, op, act, 3);
  if (s != VKNN_STATUS_NONE) return s;
  if (!vknn_graph_const_i32_list(graph, op, act, 1, &out->activation) ||
      !vknn_graph_const_float(graph, op->inputs[act + 1], &out->cell_clip) ||
      !vknn_graph_const_float(graph, op->inputs[act + 2], &out->proj_clip))
    return VKNN_STATUS_GENERAL_FAILURE;
  int32_t f = out->activation;
  if (f != 0 && f != 1 && f != 3 && f != 4 && f != 6) {
    VKNN_LOG_E(graph->log, "model", "%s: activation %d is not one of 0, 1, 3, 4, 6",
               op_name(op), f);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  if (!(out->cell_clip >= 0.f) || !(out->proj_clip >= 0.f)) {
    VKNN_LOG_E(graph->log, "model", "%s: clipping thresholds %g and %g must be >= 0",
               op_name(op), out->cell_clip, out->proj_clip);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  return VKNN_STATUS_NONE;
}

vknn_status vknn_lstm_read_single(vknn_graph *graph, const vknn_operation *op,
                                  vknn_lstm_run *run) {
  vknn_lstm_slots slots;
  vknn_lstm_single_slots(op, &slots);
  vknn_status s = vknn_lstm_read_cell(graph, op, &slots, run->batches, run->input_size, 0, "",
                                      &run->cell);
  if (s == VKNN_STATUS_NONE && !run->cell.shapes_known)
    s = vknn_graph_defer(graph, op, "shapes unknown");
  run->out_width = run->cell.output_size;
  return s;
}

/* ---- lowering ------------------------------------------------------------ */

typedef vknn_lstm_block block;

static bool all_constant(const vknn_graph *graph, const block *b, uint32_t count) {
  for (uint32_t i = 0; i < count; ++i)
    if (graph->tensors[b[i].src].constant_data == NULL) return false;
  return true;
}

vknn_status vknn_lstm_assemble(vknn_graph *graph, int32_t type, const vknn_lstm_block *b,
                               uint32_t count, uint32_t rows, uint32_t width, uint32_t *out_tensor,
                               vknn_dispatch_list *out_list) {
  uint32_t dims[2] = {rows, width};
  uint32_t esize = vknn_operand_type_element_size(type);
  if (all_constant(graph, b, count)) {
    uint8_t *data = vknn_calloc((size_t)rows * width, esize);
    if (data == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
    for (uint32_t i = 0; i < count; ++i)
      for (uint32_t r = 0; r < b[i].rows; ++r)
        memcpy(data + ((size_t)(b[i].row + r) * width + b[i].col) * esize,
               graph->tensors[b[i].src].constant_data + (size_t)r * b[i].cols * esize,
               (size_t)b[i].cols * esize);
    *out_tensor = vknn_graph_add_constant(graph, type, dims, 2, data);
    return *out_tensor == UINT32_MAX ? VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT : VKNN_STATUS_NONE;
  }
  *out_tensor = vknn_graph_add_temporary(graph, type, dims, 2);
  if (*out_tensor == UINT32_MAX) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  /* The blocks' encoding (quantized blocks share one), so copies move bits. */
  graph->tensors[*out_tensor].scale = graph->tensors[b[0].src].scale;
  graph->tensors[*out_tensor].zero_point = graph->tensors[b[0].src].zero_point;
  for (uint32_t i = 0; i < count; ++i) {
    /* Rows of cols elements, placed width apart from (row, col). */
    vknn_slice slice = {b[i].rows, b[i].cols, 1, width, (uint64_t)b[i].row * width + b[i].col};
    vknn_status s = vknn_lower_slice_copy(graph, b[i].src, *out_tensor, &slice, out_list);
    if (s != VKNN_STATUS_NONE) return s;
  }
  return VKNN_STATUS_NONE;
}

static uint32_t gate_count(const vknn_lstm_cell *c) { return c->cifg ? 3 : 4; }

/* The gate weights of one product side by side: [gates * units, width],
 * each gate's weights w[g] (and aux[g], after them in the row). */
static vknn_status assemble_gates(vknn_graph *graph, int32_t type, const vknn_lstm_cell *c,
                                  const uint32_t *w, uint32_t cols, const uint32_t *aux,
                                  uint32_t aux_cols, uint32_t *out_tensor,
                                  vknn_dispatch_list *out_list) {
  block b[8];
  uint32_t count = 0, first = c->cifg ? 1 : 0;
  for (uint32_t g = first; g < 4; ++g) {
    uint32_t row = (g - first) * c->units;
    b[count++] = (block){w[g], c->units, cols, row, 0};
    if (aux != NULL) b[count++] = (block){aux[g], c->units, aux_cols, row, cols};
  }
  return vknn_lstm_assemble(graph, type, b, count, gate_count(c) * c->units, cols + aux_cols,
                            out_tensor, out_list);
}

/* Rows of units values the gate kernel reads (lstm_gates.comp): biases,
 * peepholes, layer normalization weights. */
static vknn_status assemble_params(vknn_graph *graph, int32_t type, const vknn_lstm_cell *c,
                                   uint32_t *out_tensor, vknn_dispatch_list *out_list) {
  const uint32_t *rows[3] = {c->t.bias, c->t.peep, c->t.ln};
  uint32_t counts[3] = {4, 3, 4};
  block b[11];
  uint32_t count = 0, row = 0;
  for (uint32_t k = 0; k < 3; ++k)
    for (uint32_t i = 0; i < counts[k]; ++i, ++row)
      if (rows[k][i] != VKNN_LSTM_NONE) b[count++] = (block){rows[k][i], 1, c->units, row, 0};
  return vknn_lstm_assemble(graph, type, b, count, 11, c->units, out_tensor, out_list);
}

static uint32_t zeros(vknn_graph *graph, int32_t type, uint32_t count) {
  void *data = vknn_calloc(count, vknn_operand_type_element_size(type));
  return data == NULL ? UINT32_MAX : vknn_graph_add_constant(graph, type, &count, 1, data);
}

static vknn_status matmul(vknn_graph *graph, uint32_t in, uint32_t weights, uint32_t bias,
                          uint32_t out, uint32_t rows, uint32_t k, uint32_t n, float clip,
                          vknn_dispatch_list *out_list) {
  vknn_matmul m = {.t = {.input = in, .filter = weights, .bias = bias, .output = out,
                         .multipliers = UINT32_MAX, .act_min = clip > 0.f ? -clip : -FLT_MAX,
                         .act_max = clip > 0.f ? clip : FLT_MAX},
                   .rows = rows, .k = k, .n = n};
  return vknn_lower_matmul(graph, &m, out_list);
}

/* Push constants of lstm_gates.comp, std430 layout. */
typedef struct lstm_gates_params {
  uint32_t units, gate_cols, batches;
  uint32_t x_base, x_stride;
  uint32_t out_base, out_stride, out_width, out_col;
  uint32_t width;
  float cell_clip;
} lstm_gates_params;
VKNN_PUSH_LAYOUT(lstm_gates, lstm_gates_params);

enum { FLAG_CIFG = 1, FLAG_PEEPHOLE = 2, FLAG_LAYER_NORM = 4, FLAG_WRITE_SEQ = 8,
       FLAG_WRITE_SCRATCH = 16 };

/* What one run keeps across its steps. */
typedef struct lstm_lowering {
  const vknn_lstm_run *run;
  int32_t type;
  uint32_t w_x, w_h, params, zero_gates, zero_proj;
  uint32_t gx, gh, h_cell;
  uint32_t h[2], c[2];
} lstm_lowering;

static vknn_dispatch *gates_dispatch(const lstm_lowering *l, uint32_t mode, uint32_t t,
                                     vknn_dispatch_list *out_list) {
  const vknn_lstm_run *r = l->run;
  vknn_dispatch *d = vknn_dispatch_list_add(out_list);
  if (d == NULL) return NULL;
  d->shader = l->type == VKNN_OPERAND_TENSOR_FLOAT16 ? VKNN_SHADER_LSTM_GATES_F16
                                                     : VKNN_SHADER_LSTM_GATES_F32;
  d->spec_count = VKNN_SPEC_COUNT_LSTM_GATES;
  d->spec[VKNN_SPEC_LSTM_GATES_MODE] = mode;
  d->spec[VKNN_SPEC_LSTM_GATES_ACTIVATION] = (uint32_t)r->params.activation;
  d->local_size = 64;
  /* Row of (t, b): base + b * stride, for the input projection and the
   * sequence output alike. */
  uint32_t base = r->time_major ? t * r->batches : t;
  uint32_t stride = r->time_major ? 1 : r->steps;
  lstm_gates_params p = {r->cell.units, gate_count(&r->cell) * r->cell.units, r->batches,
                         base, stride, base, stride, r->out_width, r->out_col,
                         r->cell.output_size, r->params.cell_clip};
  memcpy(d->push, &p, sizeof(p));
  d->push_size = sizeof(p);
  return d;
}

/* The rows of a projected output state into the sequence output. */
static vknn_status copy_rows(const lstm_lowering *l, uint32_t t, uint32_t src,
                             vknn_dispatch_list *out_list) {
  vknn_dispatch *d = gates_dispatch(l, 1, t, out_list);
  if (d == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  /* The kernel declares eight bindings; this mode uses 0 and 6. */
  for (uint32_t i = 0; i < 6; ++i) vknn_dispatch_bind(d, src, VKNN_ACCESS_READ);
  vknn_dispatch_bind(d, l->run->output, VKNN_ACCESS_READ | VKNN_ACCESS_WRITE);
  vknn_dispatch_bind(d, src, VKNN_ACCESS_READ);
  d->invocations = (uint64_t)l->run->batches * l->run->cell.output_size;
  return VKNN_STATUS_NONE;
}

/* One step: recurrent product, gates, projection. s: the step's position in
 * the run; t: its time (reversed runs go backward). */
static vknn_status lower_step(const lstm_lowering *l, vknn_graph *graph, uint32_t s,
                              vknn_dispatch_list *out_list) {
  const vknn_lstm_run *r = l->run;
  const vknn_lstm_cell *c = &r->cell;
  uint32_t t = r->reverse ? r->steps - 1 - s : s;
  bool last = s + 1 == r->steps;
  uint32_t h_prev = s == 0 ? c->t.h_in : l->h[(s - 1) & 1];
  uint32_t c_prev = s == 0 ? c->t.c_in : l->c[(s - 1) & 1];
  uint32_t h_next = last && r->h_out != VKNN_LSTM_NONE ? r->h_out : l->h[s & 1];
  uint32_t c_next = last && r->c_out != VKNN_LSTM_NONE ? r->c_out : l->c[s & 1];
  uint32_t cols = gate_count(c) * c->units;
  bool projected = c->t.proj_w != VKNN_LSTM_NONE;
  vknn_status st = matmul(graph, h_prev, l->w_h, l->zero_gates, l->gh, r->batches,
                          c->output_size, cols, 0.f, out_list);
  if (st != VKNN_STATUS_NONE) return st;
  vknn_dispatch *d = gates_dispatch(l, 0, t, out_list);
  if (d == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  bool write_seq = !projected && r->output != VKNN_LSTM_NONE;
  d->spec[VKNN_SPEC_LSTM_GATES_FLAGS] =
      (c->cifg ? FLAG_CIFG : 0) | (c->peephole ? FLAG_PEEPHOLE : 0) |
      (c->layer_norm ? FLAG_LAYER_NORM : 0) | (write_seq ? FLAG_WRITE_SEQ : 0) |
      (r->scratch != VKNN_LSTM_NONE ? FLAG_WRITE_SCRATCH : 0);
  uint32_t h_cell = projected ? l->h_cell : h_next;
  vknn_dispatch_bind(d, l->gx, VKNN_ACCESS_READ);
  vknn_dispatch_bind(d, l->gh, VKNN_ACCESS_READ);
  vknn_dispatch_bind(d, l->params, VKNN_ACCESS_READ);
  vknn_dispatch_bind(d, c_prev, VKNN_ACCESS_READ);
  vknn_dispatch_bind(d, c_next, VKNN_ACCESS_READ | VKNN_ACCESS_WRITE);
  vknn_dispatch_bind(d, h_cell, VKNN_ACCESS_WRITE);
  /* Unused outputs are given a tensor the kernel only reads. */
  vknn_dispatch_bind(d, write_seq ? r->output : l->params,
                     write_seq ? VKNN_ACCESS_READ | VKNN_ACCESS_WRITE : VKNN_ACCESS_READ);
  bool scratch = r->scratch != VKNN_LSTM_NONE;
  vknn_dispatch_bind(d, scratch ? r->scratch : l->params,
                     scratch ? VKNN_ACCESS_WRITE : VKNN_ACCESS_READ);
  d->invocations = (uint64_t)r->batches * 64;
  if (!projected) return VKNN_STATUS_NONE;
  uint32_t bias = c->t.proj_b != VKNN_LSTM_NONE ? c->t.proj_b : l->zero_proj;
  st = matmul(graph, l->h_cell, c->t.proj_w, bias, h_next, r->batches, c->units, c->output_size,
              r->params.proj_clip, out_list);
  if (st != VKNN_STATUS_NONE || r->output == VKNN_LSTM_NONE) return st;
  return copy_rows(l, t, h_next, out_list);
}

static uint32_t temp2(vknn_graph *graph, int32_t type, uint32_t rows, uint32_t cols) {
  uint32_t dims[2] = {rows, cols};
  return vknn_graph_add_temporary(graph, type, dims, 2);
}

/* The input projection of every step: [steps * batches, gates * units],
 * from the input (and the auxiliary input, side by side with it). */
static vknn_status lower_input_projection(lstm_lowering *l, vknn_graph *graph,
                                          vknn_dispatch_list *out_list) {
  const vknn_lstm_run *r = l->run;
  const vknn_lstm_cell *c = &r->cell;
  uint32_t rows = r->steps * r->batches, cols = gate_count(c) * c->units;
  bool aux = r->aux_input != VKNN_LSTM_NONE;
  uint32_t k = r->input_size + (aux ? r->aux_size : 0);
  vknn_status s = assemble_gates(graph, l->type, c, c->t.in_w, r->input_size,
                                 aux ? c->t.aux_w : NULL, aux ? r->aux_size : 0, &l->w_x, out_list);
  uint32_t x = r->input;
  if (s == VKNN_STATUS_NONE && aux) {
    block b[2] = {{r->input, rows, r->input_size, 0, 0}, {r->aux_input, rows, r->aux_size, 0,
                                                         r->input_size}};
    s = vknn_lstm_assemble(graph, l->type, b, 2, rows, k, &x, out_list);
  }
  if (s != VKNN_STATUS_NONE) return s;
  l->gx = temp2(graph, l->type, rows, cols);
  if (l->gx == UINT32_MAX) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  return matmul(graph, x, l->w_x, l->zero_gates, l->gx, rows, k, cols, 0.f, out_list);
}

static vknn_status make_temporaries(lstm_lowering *l, vknn_graph *graph) {
  const vknn_lstm_run *r = l->run;
  const vknn_lstm_cell *c = &r->cell;
  uint32_t cols = gate_count(c) * c->units;
  l->zero_gates = zeros(graph, l->type, cols);
  l->zero_proj = zeros(graph, l->type, c->output_size);
  l->gh = temp2(graph, l->type, r->batches, cols);
  l->h_cell = temp2(graph, l->type, r->batches, c->units);
  for (uint32_t i = 0; i < 2; ++i) {
    l->h[i] = temp2(graph, l->type, r->batches, c->output_size);
    l->c[i] = temp2(graph, l->type, r->batches, c->units);
  }
  uint32_t made[8] = {l->zero_gates, l->zero_proj, l->gh, l->h_cell, l->h[0], l->h[1],
                      l->c[0], l->c[1]};
  for (uint32_t i = 0; i < 8; ++i)
    if (made[i] == UINT32_MAX) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  return VKNN_STATUS_NONE;
}

/* The kernels index elements in 32 bits: every matrix of a run must fit. */
static bool run_fits(const vknn_lstm_run *r) {
  uint64_t rows = (uint64_t)r->steps * r->batches;
  uint64_t k = (uint64_t)r->input_size + r->aux_size;
  uint64_t cols = (uint64_t)gate_count(&r->cell) * r->cell.units;
  uint64_t width = r->out_width > r->cell.units ? r->out_width : r->cell.units;
  uint64_t largest[4] = {rows * cols, rows * k, rows * width, cols * (k + r->cell.output_size)};
  for (uint32_t i = 0; i < 4; ++i)
    if (largest[i] >= UINT32_MAX) return false;
  return true;
}

vknn_status vknn_lstm_lower(vknn_graph *graph, const vknn_lstm_run *run,
                            vknn_dispatch_list *out_list) {
  lstm_lowering l = {.run = run, .type = graph->tensors[run->input].type};
  const vknn_lstm_cell *c = &run->cell;
  if (!run_fits(run)) {
    VKNN_LOG_E(graph->log, "compilation",
               "LSTM: %u steps of %u batches, input %u, %u units are too large for 32-bit "
               "element indices", run->steps, run->batches, run->input_size, c->units);
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  vknn_status s = make_temporaries(&l, graph);
  if (s == VKNN_STATUS_NONE)
    s = assemble_gates(graph, l.type, c, c->t.rec_w, c->output_size, NULL, 0, &l.w_h, out_list);
  if (s == VKNN_STATUS_NONE) s = assemble_params(graph, l.type, c, &l.params, out_list);
  if (s == VKNN_STATUS_NONE) s = lower_input_projection(&l, graph, out_list);
  for (uint32_t step = 0; s == VKNN_STATUS_NONE && step < run->steps; ++step)
    s = lower_step(&l, graph, step, out_list);
  return s;
}

vknn_status vknn_lstm_lower_op(vknn_graph *graph, const vknn_operation *op,
                               vknn_lstm_reader read, vknn_dispatch_list *out_list) {
  vknn_lstm_run run;
  vknn_status s = read(graph, op, &run);
  return s == VKNN_STATUS_NONE ? vknn_lstm_lower(graph, &run, out_list) : s;
}

/* ---- LSTM ---------------------------------------------------------------- */

static vknn_status validate_lstm(const vknn_logger *log, const vknn_model *model,
                                 const vknn_subgraph *sg, const vknn_operation *op) {
  (void)model;
  if ((op->input_count != 23 && op->input_count != 27) || op->output_count != 4) {
    VKNN_LOG_E(log, "model", "LSTM takes 23 or 27 inputs and 4 outputs, got %u and %u",
               op->input_count, op->output_count);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  const vknn_operand *in = &sg->operands[op->inputs[0]];
  vknn_lstm_slots slots;
  vknn_lstm_single_slots(op, &slots);
  bool ok = vknn_lstm_check_input(log, sg, op, 2) &&
            vknn_lstm_check_cell(log, sg, op, &slots, "") &&
            vknn_lstm_check_scalars(log, sg, op, 20);
  static const char *names[4] = {"scratch buffer", "output state", "cell state", "output"};
  for (uint32_t i = 0; ok && i < 4; ++i)
    ok = vknn_op_check_type(log, op, names[i], &sg->operands[op->outputs[i]], in->type) &&
         vknn_op_check_rank(log, op, names[i], &sg->operands[op->outputs[i]], 2);
  return ok ? VKNN_STATUS_NONE : VKNN_STATUS_INVALID_ARGUMENT;
}

/* The parameters, then the cell against the input's dimensions known so far
 * (0: not known yet), then the input's shape (the operation waits for it). */
static vknn_status read_lstm(vknn_graph *graph, const vknn_operation *op, vknn_lstm_run *run) {
  vknn_lstm_params params;
  vknn_status s = vknn_lstm_read_params(graph, op, 20, &params);
  if (s != VKNN_STATUS_NONE) return s;
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  *run = (vknn_lstm_run){.params = params, .input = op->inputs[0], .aux_input = VKNN_LSTM_NONE,
                         .steps = 1, .batches = vknn_known_dim(in, 2, 0),
                         .input_size = vknn_known_dim(in, 2, 1), .time_major = true,
                         .output = op->outputs[3], .h_out = op->outputs[1],
                         .c_out = op->outputs[2], .scratch = op->outputs[0]};
  s = vknn_lstm_read_single(graph, op, run);
  if (s == VKNN_STATUS_NONE) s = vknn_op_require_input_shape(graph, op, 0);
  /* The rank again: a rank the model leaves unknown passed its checks. */
  return s == VKNN_STATUS_NONE ? vknn_op_check_known_rank(graph, op, 0, 2, 2) : s;
}

static vknn_status infer_lstm(vknn_graph *graph, const vknn_operation *op) {
  vknn_lstm_run run;
  vknn_status s = read_lstm(graph, op, &run);
  if (s != VKNN_STATUS_NONE) return s;
  uint32_t b = run.batches, u = run.cell.units, o = run.cell.output_size;
  uint32_t shapes[4][2] = {{b, u * gate_count(&run.cell)}, {b, o}, {b, u}, {b, o}};
  for (uint32_t i = 0; i < 4 && s == VKNN_STATUS_NONE; ++i)
    s = vknn_op_set_output_shape(graph, op, i, shapes[i], 2);
  return s;
}

static vknn_status lower_lstm(vknn_graph *graph, const vknn_operation *op,
                              vknn_dispatch_list *out_list) {
  return vknn_lstm_lower_op(graph, op, read_lstm, out_list);
}

const vknn_op_def vknn_op_lstm = {VKNN_OPERATION_LSTM, false, validate_lstm, infer_lstm,
                                  lower_lstm};
