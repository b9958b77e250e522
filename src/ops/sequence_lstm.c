/* UNIDIRECTIONAL_SEQUENCE_LSTM and BIDIRECTIONAL_SEQUENCE_LSTM: the LSTM cell
 * (ops/lstm.h) over every step of a sequence, time-major or batch-major.
 * Every step's dispatches are recorded at prepare: the input projection of
 * all steps is one matrix product, then each step is the recurrent product,
 * the gate kernel and the projection, the states passed between steps in
 * temporaries. */
#include "ops/lstm.h"

#include <string.h>

#include "model/operand_type.h"

/* Outputs first..first+count of input 0's type; the sequence outputs of
 * rank 3, the states of rank 2. */
static bool check_outputs(const vknn_logger *log, const vknn_subgraph *sg,
                          const vknn_operation *op, uint32_t sequences) {
  int32_t type = sg->operands[op->inputs[0]].type;
  for (uint32_t i = 0; i < op->output_count; ++i) {
    const vknn_operand *o = &sg->operands[op->outputs[i]];
    const char *what = i < sequences ? "sequence output" : "state output";
    if (!vknn_op_check_type(log, op, what, o, type) ||
        !vknn_op_check_rank(log, op, what, o, i < sequences ? 3 : 2))
      return false;
  }
  return true;
}

/* A required BOOL scalar (NNAPI makes none of them optional). */
static bool check_bool(const vknn_logger *log, const vknn_subgraph *sg, const vknn_operation *op,
                       uint32_t input, const char *what) {
  if (sg->operands[op->inputs[input]].lifetime == VKNN_LIFETIME_NO_VALUE) {
    VKNN_LOG_E(log, "model", "%s: input %u is omitted but not optional",
               vknn_operation_type_name(op->type), input);
    return false;
  }
  return vknn_op_check_type(log, op, what, &sg->operands[op->inputs[input]], VKNN_OPERAND_BOOL);
}

/* The sequence input's steps, batches and size by layout (0: not known yet). */
typedef struct seq_shape {
  uint32_t steps, batches, size;
} seq_shape;

static seq_shape seq_shape_of(const vknn_tensor *t, bool time_major) {
  return (seq_shape){vknn_known_dim(t, 3, time_major ? 0 : 1), vknn_known_dim(t, 3, time_major ? 1 : 0),
                     vknn_known_dim(t, 3, 2)};
}

/* Input i's shape known (else the operation waits for an execution), of rank
 * 3: a rank the model leaves unknown passed its checks. */
static vknn_status require_sequence(vknn_graph *graph, const vknn_operation *op, uint32_t i) {
  vknn_status s = vknn_op_require_input_shape(graph, op, i);
  return s == VKNN_STATUS_NONE ? vknn_op_check_known_rank(graph, op, i, 3, 3) : s;
}

static vknn_status read_time_major(vknn_graph *graph, const vknn_operation *op, uint32_t input,
                                   bool *out) {
  vknn_status s = vknn_op_require_constant_params(graph, op, input, 1);
  if (s == VKNN_STATUS_NONE && !vknn_graph_const_bool(graph, op->inputs[input], out))
    s = VKNN_STATUS_GENERAL_FAILURE;
  return s;
}

static vknn_status set_sequence_output(vknn_graph *graph, const vknn_operation *op, uint32_t i,
                                       const vknn_lstm_run *r, uint32_t width) {
  uint32_t dims[3] = {r->time_major ? r->steps : r->batches,
                      r->time_major ? r->batches : r->steps, width};
  return vknn_op_set_output_shape(graph, op, i, dims, 3);
}

static vknn_status set_state_outputs(vknn_graph *graph, const vknn_operation *op, uint32_t first,
                                     const vknn_lstm_run *r) {
  uint32_t h[2] = {r->batches, r->cell.output_size}, c[2] = {r->batches, r->cell.units};
  vknn_status s = vknn_op_set_output_shape(graph, op, first, h, 2);
  return s == VKNN_STATUS_NONE ? vknn_op_set_output_shape(graph, op, first + 1, c, 2) : s;
}

/* ---- UNIDIRECTIONAL_SEQUENCE_LSTM ----------------------------------------- */

static vknn_status validate_unidirectional(const vknn_logger *log, const vknn_model *model,
                                           const vknn_subgraph *sg, const vknn_operation *op) {
  (void)model;
  if (op->input_count != 28 || (op->output_count != 1 && op->output_count != 3)) {
    VKNN_LOG_E(log, "model",
               "UNIDIRECTIONAL_SEQUENCE_LSTM takes 28 inputs and 1 or 3 outputs, got %u and %u",
               op->input_count, op->output_count);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  vknn_lstm_slots slots;
  vknn_lstm_single_slots(op, &slots);
  bool ok = vknn_lstm_check_input(log, sg, op, 3) && vknn_lstm_check_cell(log, sg, op, &slots, "") &&
            vknn_lstm_check_scalars(log, sg, op, 20) && check_bool(log, sg, op, 23, "time_major") &&
            check_outputs(log, sg, op, 1);
  return ok ? VKNN_STATUS_NONE : VKNN_STATUS_INVALID_ARGUMENT;
}

/* The parameters, then the cell against the input's dimensions known so far,
 * then the input's shape (the operation waits for it). */
static vknn_status read_unidirectional(vknn_graph *graph, const vknn_operation *op,
                                       vknn_lstm_run *run) {
  bool time_major = false;
  vknn_lstm_params params;
  vknn_status s = read_time_major(graph, op, 23, &time_major);
  if (s == VKNN_STATUS_NONE) s = vknn_lstm_read_params(graph, op, 20, &params);
  if (s != VKNN_STATUS_NONE) return s;
  seq_shape shape = seq_shape_of(&graph->tensors[op->inputs[0]], time_major);
  bool states = op->output_count == 3;
  *run = (vknn_lstm_run){.params = params, .input = op->inputs[0], .aux_input = VKNN_LSTM_NONE,
                         .steps = shape.steps, .batches = shape.batches,
                         .input_size = shape.size, .time_major = time_major,
                         .output = op->outputs[0],
                         .h_out = states ? op->outputs[1] : VKNN_LSTM_NONE,
                         .c_out = states ? op->outputs[2] : VKNN_LSTM_NONE,
                         .scratch = VKNN_LSTM_NONE};
  s = vknn_lstm_read_single(graph, op, run);
  return s == VKNN_STATUS_NONE ? require_sequence(graph, op, 0) : s;
}

static vknn_status infer_unidirectional(vknn_graph *graph, const vknn_operation *op) {
  vknn_lstm_run run;
  vknn_status s = read_unidirectional(graph, op, &run);
  if (s == VKNN_STATUS_NONE) s = set_sequence_output(graph, op, 0, &run, run.out_width);
  if (s == VKNN_STATUS_NONE && op->output_count == 3) s = set_state_outputs(graph, op, 1, &run);
  return s;
}

static vknn_status lower_unidirectional(vknn_graph *graph, const vknn_operation *op,
                                        vknn_dispatch_list *out_list) {
  return vknn_lstm_lower_op(graph, op, read_unidirectional, out_list);
}

const vknn_op_def vknn_op_unidirectional_sequence_lstm = {
    VKNN_OPERATION_UNIDIRECTIONAL_SEQUENCE_LSTM, false, validate_unidirectional,
    infer_unidirectional, lower_unidirectional};

/* ---- BIDIRECTIONAL_SEQUENCE_LSTM ------------------------------------------ */

enum { BIDI_AUX_INPUT = 39, BIDI_ACTIVATION = 48, BIDI_MERGE = 51, BIDI_TIME_MAJOR = 52 };

static void run_of(uint32_t *dst, uint32_t first, uint32_t count) {
  for (uint32_t i = 0; i < count; ++i) dst[i] = first + i;
}

/* Slots of the forward (0) or backward (1) cell. */
static void bidirectional_slots(uint32_t direction, vknn_lstm_slots *out) {
  uint32_t base = direction * 17;
  run_of(out->in_w, base + 1, 4);
  run_of(out->rec_w, base + 5, 4);
  run_of(out->peep, base + 9, 3);
  run_of(out->bias, base + 12, 4);
  out->proj_w = base + 16;
  out->proj_b = base + 17;
  out->h_in = 35 + 2 * direction;
  out->c_in = 36 + 2 * direction;
  run_of(out->ln, 53 + 4 * direction, 4);
  run_of(out->aux_w, 40 + 4 * direction, 4);
}

static const char *direction_name(uint32_t direction) {
  return direction == 0 ? "forward " : "backward ";
}

static vknn_presence presence_in(const vknn_subgraph *sg, uint32_t operand) {
  vknn_operand_lifetime l = sg->operands[operand].lifetime;
  return l == VKNN_LIFETIME_NO_VALUE ? 0 : l == VKNN_LIFETIME_SUBGRAPH_INPUT ? -1 : 1;
}

static const char both_linked_rule[] =
    "BIDIRECTIONAL_SEQUENCE_LSTM: the forward and backward auxiliary weights must be both given "
    "or both omitted";

/* Auxiliary weights need the auxiliary input, in both cells or neither. */
static bool check_aux(const vknn_logger *log, const vknn_subgraph *sg, const vknn_operation *op) {
  const vknn_operand *aux = &sg->operands[op->inputs[BIDI_AUX_INPUT]];
  vknn_presence fw = presence_in(sg, op->inputs[41]), bw = presence_in(sg, op->inputs[45]);
  if (fw != -1 && bw != -1 && fw != bw) {
    VKNN_LOG_E(log, "model", "%s", both_linked_rule);
    return false;
  }
  if (presence_in(sg, op->inputs[BIDI_AUX_INPUT]) != 0) {
    return vknn_op_check_type(log, op, "auxiliary input", aux, sg->operands[op->inputs[0]].type) &&
           vknn_op_check_rank(log, op, "auxiliary input", aux, 3);
  }
  for (uint32_t i = 40; i < 48; ++i) {
    if (presence_in(sg, op->inputs[i]) == 1) {
      VKNN_LOG_E(log, "model", "BIDIRECTIONAL_SEQUENCE_LSTM: auxiliary weights (input %u) "
                 "without an auxiliary input", i);
      return false;
    }
  }
  return true;
}

/* Outputs: the forward sequence output, the backward one unless merged, then
 * optionally the four states. */
static bool bidirectional_output_count_ok(const vknn_logger *log, const vknn_subgraph *sg,
                                          const vknn_operation *op) {
  (void)sg; /* the count must also fit merge_outputs: checked once its value is read */
  uint32_t n = op->output_count;
  bool ok = n == 1 || n == 2 || n == 5 || n == 6;
  if (!ok)
    VKNN_LOG_E(log, "model", "BIDIRECTIONAL_SEQUENCE_LSTM takes 1, 2, 5 or 6 outputs, got %u", n);
  return ok;
}

static vknn_status validate_bidirectional(const vknn_logger *log, const vknn_model *model,
                                          const vknn_subgraph *sg, const vknn_operation *op) {
  (void)model;
  if (op->input_count != 61) {
    VKNN_LOG_E(log, "model", "BIDIRECTIONAL_SEQUENCE_LSTM takes 61 inputs, got %u",
               op->input_count);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  bool ok = vknn_lstm_check_input(log, sg, op, 3) && bidirectional_output_count_ok(log, sg, op);
  for (uint32_t d = 0; ok && d < 2; ++d) {
    vknn_lstm_slots slots;
    bidirectional_slots(d, &slots);
    ok = vknn_lstm_check_cell(log, sg, op, &slots, direction_name(d));
  }
  ok = ok && check_aux(log, sg, op) && vknn_lstm_check_scalars(log, sg, op, BIDI_ACTIVATION) &&
       check_bool(log, sg, op, BIDI_MERGE, "merge_outputs") &&
       check_bool(log, sg, op, BIDI_TIME_MAJOR, "time_major");
  ok = ok && check_outputs(log, sg, op, op->output_count == 1 || op->output_count == 5 ? 1 : 2);
  return ok ? VKNN_STATUS_NONE : VKNN_STATUS_INVALID_ARGUMENT;
}

typedef struct bidirectional {
  vknn_lstm_run run[2];
  bool merge;
} bidirectional;

/* The auxiliary input and how the cells read it: none, cross-linked (both
 * cells, through their auxiliary weights) or parallel (the backward cell
 * reads it instead of the input). */
static vknn_status read_aux(vknn_graph *graph, const vknn_operation *op, bidirectional *b,
                            seq_shape shape) {
  const vknn_tensor *aux = &graph->tensors[op->inputs[BIDI_AUX_INPUT]];
  if (vknn_presence_waits(graph, aux))
    return vknn_graph_defer(graph, op, "whether the auxiliary input is omitted is known at execution");
  if (aux->lifetime == VKNN_LIFETIME_NO_VALUE) return VKNN_STATUS_NONE;
  /* Dimensions not known yet (0) agree; the shape is required after the cells. */
  seq_shape a = seq_shape_of(aux, b->run[0].time_major);
  if (!vknn_dims_agree(a.steps, shape.steps) || !vknn_dims_agree(a.batches, shape.batches)) {
    VKNN_LOG_E(graph->log, "model",
               "BIDIRECTIONAL_SEQUENCE_LSTM: the auxiliary input's steps and batches (%u, %u) "
               "differ from the input's (%u, %u)", a.steps, a.batches, shape.steps, shape.batches);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  for (uint32_t d = 0; d < 2; ++d) {
    b->run[d].aux_input = op->inputs[BIDI_AUX_INPUT];
    b->run[d].aux_size = a.size;
  }
  return VKNN_STATUS_NONE;
}

/* Both cells' shapes are checked (as far as they are known) before the
 * operation waits for the rest. */
static vknn_status read_cells(vknn_graph *graph, const vknn_operation *op, bidirectional *b) {
  for (uint32_t d = 0; d < 2; ++d) {
    vknn_lstm_run *r = &b->run[d];
    vknn_lstm_slots slots;
    bidirectional_slots(d, &slots);
    const vknn_tensor *aux_w = &graph->tensors[op->inputs[slots.aux_w[1]]];
    bool linked = r->aux_input != VKNN_LSTM_NONE && aux_w->lifetime != VKNN_LIFETIME_NO_VALUE &&
                  !vknn_presence_waits(graph, aux_w);
    if (r->aux_input != VKNN_LSTM_NONE && !linked && d == 1) {
      /* Parallel linking: the backward cell reads the auxiliary input. */
      r->input = r->aux_input;
      r->input_size = r->aux_size;
    }
    vknn_status s = vknn_lstm_read_cell(graph, op, &slots, r->batches, r->input_size,
                                        linked ? r->aux_size : 0, direction_name(d), &r->cell);
    if (s != VKNN_STATUS_NONE) return s;
    if (!linked) r->aux_input = VKNN_LSTM_NONE;
  }
  bool fw_linked = b->run[0].aux_input != VKNN_LSTM_NONE;
  bool bw_linked = b->run[1].aux_input != VKNN_LSTM_NONE;
  if (fw_linked != bw_linked) {
    VKNN_LOG_E(graph->log, "model", "%s", both_linked_rule);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  if (!b->run[0].cell.shapes_known || !b->run[1].cell.shapes_known)
    return vknn_graph_defer(graph, op, "shapes unknown");
  return VKNN_STATUS_NONE;
}

static vknn_status check_output_count(vknn_graph *graph, const vknn_operation *op, bool merge) {
  uint32_t n = op->output_count;
  if (merge ? (n == 1 || n == 5) : (n == 2 || n == 6)) return VKNN_STATUS_NONE;
  VKNN_LOG_E(graph->log, "model",
             "BIDIRECTIONAL_SEQUENCE_LSTM: %u outputs do not fit merge_outputs = %d", n, merge);
  return VKNN_STATUS_INVALID_ARGUMENT;
}

/* The scalar parameters, then both cells against the input's dimensions
 * known so far, then the input's shape (the operation waits for it). */
static vknn_status read_bidirectional(vknn_graph *graph, const vknn_operation *op,
                                      bidirectional *b) {
  bool time_major = false;
  vknn_lstm_params params;
  vknn_status s = read_time_major(graph, op, BIDI_TIME_MAJOR, &time_major);
  if (s == VKNN_STATUS_NONE) s = read_time_major(graph, op, BIDI_MERGE, &b->merge);
  if (s == VKNN_STATUS_NONE) s = check_output_count(graph, op, b->merge);
  if (s == VKNN_STATUS_NONE) s = vknn_lstm_read_params(graph, op, BIDI_ACTIVATION, &params);
  if (s != VKNN_STATUS_NONE) return s;
  seq_shape shape = seq_shape_of(&graph->tensors[op->inputs[0]], time_major);
  uint32_t states = b->merge ? 1 : 2; /* the first state output */
  bool has_states = op->output_count > 2;
  for (uint32_t d = 0; d < 2; ++d) {
    b->run[d] = (vknn_lstm_run){.params = params, .input = op->inputs[0], .aux_input = VKNN_LSTM_NONE,
                                .steps = shape.steps, .batches = shape.batches,
                                .input_size = shape.size, .time_major = time_major,
                                .reverse = d == 1,
                                .output = op->outputs[b->merge ? 0 : d],
                                .h_out = has_states ? op->outputs[states + 2 * d] : VKNN_LSTM_NONE,
                                .c_out = has_states ? op->outputs[states + 2 * d + 1]
                                                    : VKNN_LSTM_NONE,
                                .scratch = VKNN_LSTM_NONE};
  }
  s = read_aux(graph, op, b, shape);
  if (s == VKNN_STATUS_NONE) s = read_cells(graph, op, b);
  if (s == VKNN_STATUS_NONE) s = require_sequence(graph, op, 0);
  if (s == VKNN_STATUS_NONE && !vknn_graph_omitted(graph, op->inputs[BIDI_AUX_INPUT]))
    s = require_sequence(graph, op, BIDI_AUX_INPUT);
  if (s != VKNN_STATUS_NONE) return s;
  uint32_t fw = b->run[0].cell.output_size, bw = b->run[1].cell.output_size;
  b->run[0].out_width = b->merge ? fw + bw : fw;
  b->run[1].out_width = b->merge ? fw + bw : bw;
  b->run[1].out_col = b->merge ? fw : 0;
  return VKNN_STATUS_NONE;
}

static vknn_status infer_bidirectional(vknn_graph *graph, const vknn_operation *op) {
  bidirectional b;
  vknn_status s = read_bidirectional(graph, op, &b);
  /* b is partly unset when reading stopped early (a deferral too). */
  if (s != VKNN_STATUS_NONE) return s;
  s = set_sequence_output(graph, op, 0, &b.run[0], b.run[0].out_width);
  if (s == VKNN_STATUS_NONE && !b.merge)
    s = set_sequence_output(graph, op, 1, &b.run[1], b.run[1].out_width);
  uint32_t states = b.merge ? 1 : 2;
  for (uint32_t d = 0; d < 2 && s == VKNN_STATUS_NONE && op->output_count > 2; ++d)
    s = set_state_outputs(graph, op, states + 2 * d, &b.run[d]);
  return s;
}

static vknn_status lower_bidirectional(vknn_graph *graph, const vknn_operation *op,
                                       vknn_dispatch_list *out_list) {
  bidirectional b;
  vknn_status s = read_bidirectional(graph, op, &b);
  for (uint32_t d = 0; d < 2 && s == VKNN_STATUS_NONE; ++d)
    s = vknn_lstm_lower(graph, &b.run[d], out_list);
  return s;
}

const vknn_op_def vknn_op_bidirectional_sequence_lstm = {
    VKNN_OPERATION_BIDIRECTIONAL_SEQUENCE_LSTM, false, validate_bidirectional,
    infer_bidirectional, lower_bidirectional};
