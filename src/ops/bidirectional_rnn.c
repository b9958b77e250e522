/* BIDIRECTIONAL_SEQUENCE_RNN: a forward and a backward basic RNN cell over
 * one sequence (rnn.h), each lowered as UNIDIRECTIONAL_SEQUENCE_RNN is. The
 * auxiliary input either adds its own projection to both cells
 * (cross-linking: auxiliary weights given) or replaces the backward cell's
 * input (parallel linking: auxiliary weights omitted). Merged outputs: the
 * two cells write the two halves of each output row. */
#include "ops/rnn.h"
#include "model/operand_type.h"

enum {
  IN_INPUT = 0,
  IN_FW = 1,  /* weights, recurrent weights, bias, hidden state */
  IN_BW = 5,  /* the same for the backward cell */
  IN_AUX = 9, /* auxiliary input, forward and backward auxiliary weights */
  IN_ACTIVATION = 12,
  IN_TIME_MAJOR = 13,
  IN_MERGE = 14,
  INPUT_COUNT = 15,
};

static bool omitted_in_model(const vknn_subgraph *sg, const vknn_operation *op, uint32_t i) {
  return sg->operands[op->inputs[i]].lifetime == VKNN_LIFETIME_NO_VALUE;
}

/* Only the auxiliary input and weights may be omitted; auxiliary weights
 * need the auxiliary input, and come both or neither. */
static bool check_presence(const vknn_logger *log, const vknn_subgraph *sg,
                           const vknn_operation *op) {
  for (uint32_t i = 0; i < INPUT_COUNT; ++i) {
    if (i < IN_AUX || i > IN_AUX + 2) {
      if (!omitted_in_model(sg, op, i)) continue;
      VKNN_LOG_E(log, "model", "BIDIRECTIONAL_SEQUENCE_RNN: input %u is omitted but not optional",
                 i);
      return false;
    }
  }
  bool fw_aux = !omitted_in_model(sg, op, IN_AUX + 1), bw_aux = !omitted_in_model(sg, op, IN_AUX + 2);
  if (fw_aux == bw_aux && (!fw_aux || !omitted_in_model(sg, op, IN_AUX))) return true;
  VKNN_LOG_E(log, "model", "BIDIRECTIONAL_SEQUENCE_RNN: the auxiliary weights must be both given "
             "(with the auxiliary input) or both omitted");
  return false;
}

static bool check_cells(const vknn_logger *log, const vknn_subgraph *sg,
                        const vknn_operation *op, int32_t type) {
  static const char *names[] = {"the input", "the forward weights", "the forward recurrent weights",
                                "the forward bias", "the forward hidden state",
                                "the backward weights", "the backward recurrent weights",
                                "the backward bias", "the backward hidden state",
                                "the auxiliary input", "the forward auxiliary weights",
                                "the backward auxiliary weights"};
  /* The optional ones may be model inputs declared [0], to be omitted: their
   * shapes are checked once known. */
  static const uint32_t ranks[] = {3, 2, 2, 1, 2, 2, 2, 1, 2, 0, 0, 0};
  for (uint32_t i = 0; i < IN_ACTIVATION; ++i) {
    if (i >= IN_AUX && omitted_in_model(sg, op, i)) continue;
    const vknn_operand *operand = &sg->operands[op->inputs[i]];
    if (!vknn_rnn_check_float(log, op, names[i], operand, type) ||
        (ranks[i] != 0 && !vknn_op_check_rank(log, op, names[i], operand, ranks[i])))
      return false;
  }
  return true;
}

/* Outputs: an even count is [fw, bw] (+ [fw state, bw state]), an odd one
 * the merged sequence (+ the states). */
static bool check_outputs(const vknn_logger *log, const vknn_subgraph *sg,
                          const vknn_operation *op, int32_t type) {
  uint32_t sequences = op->output_count % 2 == 0 ? 2 : 1;
  for (uint32_t o = 0; o < op->output_count; ++o) {
    const vknn_operand *out = &sg->operands[op->outputs[o]];
    if (!vknn_rnn_check_tensor(log, op, o < sequences ? "an output" : "a state output", out, type,
                               o < sequences ? 3 : 2))
      return false;
  }
  return true;
}

static vknn_status validate_bidirectional(const vknn_logger *log, const vknn_model *model,
                                          const vknn_subgraph *sg, const vknn_operation *op) {
  (void)model;
  if (op->input_count != INPUT_COUNT || op->output_count < 1 || op->output_count > 4) {
    VKNN_LOG_E(log, "model", "BIDIRECTIONAL_SEQUENCE_RNN takes 15 inputs and 1 to 4 outputs, got "
               "%u and %u", op->input_count, op->output_count);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  int32_t type = sg->operands[op->inputs[IN_INPUT]].type;
  bool ok = check_presence(log, sg, op) && check_cells(log, sg, op, type) &&
            check_outputs(log, sg, op, type) &&
            vknn_op_check_type(log, op, "the activation", &sg->operands[op->inputs[IN_ACTIVATION]],
                               VKNN_OPERAND_INT32) &&
            vknn_op_check_type(log, op, "timeMajor", &sg->operands[op->inputs[IN_TIME_MAJOR]],
                               VKNN_OPERAND_BOOL) &&
            vknn_op_check_type(log, op, "mergeOutputs", &sg->operands[op->inputs[IN_MERGE]],
                               VKNN_OPERAND_BOOL);
  return ok ? VKNN_STATUS_NONE : VKNN_STATUS_INVALID_ARGUMENT;
}

/* Everything the lowering needs: the two cells and the sequence. */
typedef struct bidi_shape {
  vknn_rnn_sequence seq;
  vknn_rnn_direction fw, bw;
  bool merge;
} bidi_shape;

/* Whether the auxiliary inputs are given decides the cells' inputs: known at
 * execution when they are model inputs (the operation waits for it). */
static vknn_status require_presence(vknn_graph *graph, const vknn_operation *op) {
  for (uint32_t i = IN_AUX; i < IN_ACTIVATION; ++i)
    if (vknn_known_presence(graph, op->inputs[i]) < 0)
      return vknn_graph_defer(graph, op, "whether the auxiliary inputs are omitted is known at "
                              "execution");
  return VKNN_STATUS_NONE;
}

/* Known shapes of the inputs given (else the operation waits for an
 * execution), the input and auxiliary input of rank 3. */
static vknn_status require_shapes(vknn_graph *graph, const vknn_operation *op) {
  vknn_status s = vknn_rnn_require_sequence(graph, op, IN_INPUT, 3);
  for (uint32_t i = IN_FW; i < IN_ACTIVATION && s == VKNN_STATUS_NONE; ++i) {
    if (i >= IN_AUX && vknn_graph_omitted(graph, op->inputs[i])) continue;
    s = i == IN_AUX ? vknn_rnn_require_sequence(graph, op, i, 3)
                    : vknn_op_require_input_shape(graph, op, i);
  }
  return s;
}

/* The activation, timeMajor and mergeOutputs, read and checked before the
 * shapes: a model whose shapes wait for an execution still has them checked
 * at prepare. */
static vknn_status read_params(vknn_graph *graph, const vknn_operation *op, int32_t *activation,
                               bool *time_major, bidi_shape *out) {
  vknn_status s = vknn_op_require_constant_params(graph, op, IN_ACTIVATION, 3);
  if (s != VKNN_STATUS_NONE) return s;
  if (!vknn_graph_const_i32_list(graph, op, IN_ACTIVATION, 1, activation) ||
      !vknn_graph_const_bool(graph, op->inputs[IN_TIME_MAJOR], time_major) ||
      !vknn_graph_const_bool(graph, op->inputs[IN_MERGE], &out->merge)) {
    VKNN_LOG_E(graph->log, "compilation",
               "BIDIRECTIONAL_SEQUENCE_RNN: the activation, timeMajor and mergeOutputs must be "
               "constants");
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  if (out->merge == (op->output_count % 2 == 0)) {
    VKNN_LOG_E(graph->log, "model",
               "BIDIRECTIONAL_SEQUENCE_RNN: %u outputs do not go with mergeOutputs %s",
               op->output_count, out->merge ? "true" : "false");
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  return vknn_rnn_check_activation(graph, op, *activation);
}

/* A cell reading input (its last dimension the input size, 0 while not
 * known). */
static vknn_rnn_direction cell_at(const vknn_graph *graph, const vknn_operation *op,
                                  uint32_t first, uint32_t input) {
  return (vknn_rnn_direction){.input = input,
                              .input_size = vknn_known_dim(&graph->tensors[input], 3, 2),
                              .aux_input = VKNN_NONE_TENSOR, .aux_weights = VKNN_NONE_TENSOR,
                              .weights = op->inputs[first], .recurrent = op->inputs[first + 1],
                              .bias = op->inputs[first + 2], .hidden_in = op->inputs[first + 3],
                              .state_out = VKNN_NONE_TENSOR};
}

/* The linking as far as the auxiliary operands' presence is known: aux the
 * auxiliary input's (1, 0, -1: given, omitted, not known yet), weights the
 * auxiliary weights' (both or neither, the one known; INVALID_ARGUMENT,
 * logged, where they cannot be). */
typedef struct bidi_linking {
  int aux, weights;
} bidi_linking;

static vknn_status read_linking(vknn_graph *graph, const vknn_operation *op, bidi_linking *l) {
  int fw = vknn_known_presence(graph, op->inputs[IN_AUX + 1]);
  int bw = vknn_known_presence(graph, op->inputs[IN_AUX + 2]);
  l->aux = vknn_known_presence(graph, op->inputs[IN_AUX]);
  l->weights = fw >= 0 ? fw : bw;
  if ((fw >= 0 && bw >= 0 && fw != bw) || (l->weights == 1 && l->aux == 0)) {
    VKNN_LOG_E(graph->log, "model", "BIDIRECTIONAL_SEQUENCE_RNN: the auxiliary weights must be "
               "both given (with the auxiliary input) or both omitted");
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  return VKNN_STATUS_NONE;
}

/* The auxiliary input's steps and batch are the input's, as far as both are
 * known (the layout is the same for both: compared axis by axis). */
static bool aux_fits_input(const vknn_tensor *aux, const vknn_tensor *in) {
  return vknn_dims_agree(vknn_known_dim(aux, 3, 0), vknn_known_dim(in, 3, 0)) &&
         vknn_dims_agree(vknn_known_dim(aux, 3, 1), vknn_known_dim(in, 3, 1));
}

/* The two cells' inputs by linking mode, and the auxiliary input's shape, as
 * far as they are known: an auxiliary operand an execution may omit is
 * checked only where the linking needs it whatever the execution does (its
 * rank once its shape is known). */
static vknn_status link_cells(vknn_graph *graph, const vknn_operation *op, bidi_shape *b) {
  bidi_linking l;
  vknn_status s = read_linking(graph, op, &l);
  if (s != VKNN_STATUS_NONE) return s;
  uint32_t aux = op->inputs[IN_AUX];
  const vknn_tensor *a = &graph->tensors[aux];
  bool cross = l.weights == 1, parallel = l.weights == 0 && l.aux == 1;
  if ((cross || l.aux == 1) && !aux_fits_input(a, &graph->tensors[op->inputs[IN_INPUT]])) {
    VKNN_LOG_E(graph->log, "model", "BIDIRECTIONAL_SEQUENCE_RNN: the auxiliary input's steps and "
               "batch differ from the input's");
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  b->fw = cell_at(graph, op, IN_FW, op->inputs[IN_INPUT]);
  /* Parallel linking: the backward cell reads the auxiliary input. */
  b->bw = cell_at(graph, op, IN_BW, parallel ? aux : op->inputs[IN_INPUT]);
  /* Which input the backward cell reads waits for an execution. */
  if (!cross && !parallel && l.aux != 0) b->bw.input_size = 0;
  if (cross) {
    b->fw.aux_input = b->bw.aux_input = aux;
    b->fw.aux_size = b->bw.aux_size = vknn_known_dim(a, 3, 2);
    b->fw.aux_weights = op->inputs[IN_AUX + 1];
    b->bw.aux_weights = op->inputs[IN_AUX + 2];
  }
  return VKNN_STATUS_NONE;
}

/* Outputs: fw [, bw] then the states; merged, both cells write output 0. */
static void place_outputs(const vknn_operation *op, bidi_shape *b) {
  uint32_t sequences = b->merge ? 1 : 2;
  b->bw.reverse = true;
  b->fw.output = op->outputs[0];
  b->bw.output = op->outputs[sequences - 1];
  b->fw.out_width = b->merge ? b->fw.units + b->bw.units : b->fw.units;
  b->bw.out_width = b->merge ? b->fw.out_width : b->bw.units;
  b->bw.out_col = b->merge ? b->fw.units : 0;
  if (op->output_count > sequences) {
    b->fw.state_out = op->outputs[sequences];
    b->bw.state_out = op->outputs[sequences + 1];
  }
}

/* The parameters, then both cells against the dimensions known so far, then
 * the operation waits for what it does not know: which auxiliary operands an
 * execution gives, and the shapes. */
static vknn_status read_bidirectional(vknn_graph *graph, const vknn_operation *op,
                                      bidi_shape *b) {
  int32_t activation;
  bool time_major;
  vknn_status s = read_params(graph, op, &activation, &time_major, b);
  if (s == VKNN_STATUS_NONE)
    s = vknn_rnn_read_sequence(graph, op, op->inputs[IN_INPUT], activation, time_major, &b->seq);
  if (s == VKNN_STATUS_NONE) s = link_cells(graph, op, b);
  if (s == VKNN_STATUS_NONE) s = vknn_rnn_check_cell(graph, op, &b->seq, &b->fw);
  if (s == VKNN_STATUS_NONE) s = vknn_rnn_check_cell(graph, op, &b->seq, &b->bw);
  if (s == VKNN_STATUS_NONE) s = require_presence(graph, op);
  if (s == VKNN_STATUS_NONE) s = require_shapes(graph, op);
  if (s == VKNN_STATUS_NONE) place_outputs(op, b);
  return s;
}

static vknn_status infer_bidirectional(vknn_graph *graph, const vknn_operation *op) {
  bidi_shape b;
  vknn_status s = read_bidirectional(graph, op, &b);
  if (s != VKNN_STATUS_NONE) return s;
  const vknn_tensor *in = &graph->tensors[op->inputs[IN_INPUT]];
  uint32_t fw[3] = {in->dims[0], in->dims[1], b.fw.out_width};
  uint32_t bw[3] = {in->dims[0], in->dims[1], b.bw.units};
  uint32_t fw_state[2] = {b.seq.batch, b.fw.units}, bw_state[2] = {b.seq.batch, b.bw.units};
  uint32_t sequences = b.merge ? 1 : 2;
  s = vknn_op_set_output_shape(graph, op, 0, fw, 3);
  if (s == VKNN_STATUS_NONE && !b.merge) s = vknn_op_set_output_shape(graph, op, 1, bw, 3);
  if (s == VKNN_STATUS_NONE && op->output_count > sequences)
    s = vknn_op_set_output_shape(graph, op, sequences, fw_state, 2);
  if (s == VKNN_STATUS_NONE && op->output_count > sequences)
    s = vknn_op_set_output_shape(graph, op, sequences + 1, bw_state, 2);
  return s;
}

static vknn_status lower_bidirectional(vknn_graph *graph, const vknn_operation *op,
                                       vknn_dispatch_list *out_list) {
  bidi_shape b;
  vknn_status s = read_bidirectional(graph, op, &b);
  if (s == VKNN_STATUS_NONE) s = vknn_lower_rnn_direction(graph, &b.seq, &b.fw, out_list);
  if (s == VKNN_STATUS_NONE) s = vknn_lower_rnn_direction(graph, &b.seq, &b.bw, out_list);
  return s;
}

const vknn_op_def vknn_op_bidirectional_sequence_rnn = {
    VKNN_OPERATION_BIDIRECTIONAL_SEQUENCE_RNN, false, validate_bidirectional,
    infer_bidirectional, lower_bidirectional};
