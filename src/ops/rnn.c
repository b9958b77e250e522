/* RNN and UNIDIRECTIONAL_SEQUENCE_RNN: state = activation(input * weights' +
 * state * recurrent_weights' + bias), once (RNN) or per step of a sequence.
 * Also the cell's lowering that BIDIRECTIONAL_SEQUENCE_RNN shares (rnn.h).
 * Products on the matrix kernels (vknn_lower_matmul), the rest in
 * shaders/rnn_step.comp; every step's dispatches are recorded at prepare. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ops/rnn.h"
#include "ops/conv2d.h"
#include "model/operand_type.h"
#include "util/fault_injection.h"

bool vknn_rnn_check_float(const vknn_logger *log, const vknn_operation *op, const char *what,
                          const vknn_operand *operand, int32_t type) {
  if (!vknn_is_float_tensor(type)) {
    VKNN_LOG_E(log, "model", "%s: %s of type %s is not allowed (float32 or float16)",
               vknn_operation_type_name(op->type), what, vknn_operand_type_name(type));
    return false;
  }
  return vknn_op_check_type(log, op, what, operand, type);
}

bool vknn_rnn_check_tensor(const vknn_logger *log, const vknn_operation *op, const char *what,
                           const vknn_operand *operand, int32_t type, uint32_t rank) {
  return vknn_rnn_check_float(log, op, what, operand, type) &&
         vknn_op_check_rank(log, op, what, operand, rank);
}

/* Inputs 0-4 (input, weights, recurrent weights, bias, hidden state) and
 * every output: one float type; the activation (input 5) INT32. */
static bool check_cell_operands(const vknn_logger *log, const vknn_subgraph *sg,
                                const vknn_operation *op, uint32_t input_rank) {
  static const char *names[] = {"the input", "the weights", "the recurrent weights", "the bias",
                                "the hidden state"};
  const uint32_t ranks[] = {input_rank, 2, 2, 1, 2};
  int32_t type = sg->operands[op->inputs[0]].type;
  for (uint32_t i = 0; i < 5; ++i)
    if (!vknn_rnn_check_tensor(log, op, names[i], &sg->operands[op->inputs[i]], type, ranks[i]))
      return false;
  for (uint32_t o = 0; o < op->output_count; ++o)
    if (!vknn_rnn_check_float(log, op, "every output", &sg->operands[op->outputs[o]], type))
      return false;
  return vknn_op_check_type(log, op, "the activation", &sg->operands[op->inputs[5]],
                            VKNN_OPERAND_INT32);
}

static vknn_status validate_rnn(const vknn_logger *log, const vknn_model *model,
                                const vknn_subgraph *sg, const vknn_operation *op) {
  (void)model;
  if (!vknn_op_check_counts(log, sg, op, 6, 6, 2)) return VKNN_STATUS_INVALID_ARGUMENT;
  bool ok = check_cell_operands(log, sg, op, 2) &&
            vknn_op_check_rank(log, op, "the state output", &sg->operands[op->outputs[0]], 2) &&
            vknn_op_check_rank(log, op, "the output", &sg->operands[op->outputs[1]], 2);
  return ok ? VKNN_STATUS_NONE : VKNN_STATUS_INVALID_ARGUMENT;
}

/* Outputs: the sequence, and (since NNAPI 1.3) the last step's state. */
static vknn_status validate_unidirectional(const vknn_logger *log, const vknn_model *model,
                                           const vknn_subgraph *sg, const vknn_operation *op) {
  (void)model;
  uint32_t outputs = op->output_count == 2 ? 2 : 1;
  if (!vknn_op_check_counts(log, sg, op, 7, 7, outputs)) return VKNN_STATUS_INVALID_ARGUMENT;
  bool ok = check_cell_operands(log, sg, op, 3) &&
            vknn_op_check_type(log, op, "timeMajor", &sg->operands[op->inputs[6]],
                               VKNN_OPERAND_INT32) &&
            vknn_op_check_rank(log, op, "the output", &sg->operands[op->outputs[0]], 3) &&
            (outputs == 1 ||
             vknn_op_check_rank(log, op, "the state output", &sg->operands[op->outputs[1]], 2));
  return ok ? VKNN_STATUS_NONE : VKNN_STATUS_INVALID_ARGUMENT;
}

/* The cell's units from whichever of its operands gives them first, so that
 * each is checked against the others even where the weights' shape is left
 * to the execution. */
static uint32_t known_units(const vknn_graph *graph, const vknn_rnn_direction *dir) {
  const vknn_tensor *t = graph->tensors;
  uint32_t aux =
      dir->aux_weights == VKNN_NONE_TENSOR ? 0 : vknn_known_dim(&t[dir->aux_weights], 2, 0);
  const uint32_t given[] = {vknn_known_dim(&t[dir->weights], 2, 0),
                            vknn_known_dim(&t[dir->recurrent], 2, 0),
                            vknn_known_dim(&t[dir->recurrent], 2, 1),
                            vknn_known_dim(&t[dir->bias], 1, 0),
                            vknn_known_dim(&t[dir->hidden_in], 2, 1), aux};
  return vknn_first_known_dim(given, sizeof(given) / sizeof(given[0]));
}

vknn_status vknn_rnn_check_cell(vknn_graph *graph, const vknn_operation *op,
                                const vknn_rnn_sequence *seq, vknn_rnn_direction *dir) {
  const vknn_tensor *t = graph->tensors;
  uint32_t u = dir->units = known_units(graph, dir);
  bool ok = vknn_dims_fit(&t[dir->weights], 2, u, dir->input_size) &&
            vknn_dims_fit(&t[dir->recurrent], 2, u, u) && vknn_dims_fit(&t[dir->bias], 1, u, 0) &&
            vknn_dims_fit(&t[dir->hidden_in], 2, seq->batch, u) &&
            (dir->aux_weights == VKNN_NONE_TENSOR ||
             vknn_dims_fit(&t[dir->aux_weights], 2, u, dir->aux_size));
  if (!ok) {
    VKNN_LOG_E(graph->log, "model",
               "%s: the weights, recurrent weights, bias, hidden state (and auxiliary weights) "
               "do not agree with each other or the input: units %u, batch %u, input size %u, "
               "auxiliary input size %u (0: not known yet)", vknn_operation_type_name(op->type),
               u, seq->batch, dir->input_size, dir->aux_size);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  /* The kernels index in 32 bits; merged outputs hold two cells' units. */
  uint64_t limit = INT32_MAX / 2;
  if ((uint64_t)seq->batch * seq->steps * u > limit || (uint64_t)u * u > limit) {
    VKNN_LOG_E(graph->log, "compilation", "%s: %u units over %u x %u rows are too many",
               vknn_operation_type_name(op->type), u, seq->batch, seq->steps);
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  return VKNN_STATUS_NONE;
}

vknn_status vknn_rnn_check_activation(const vknn_graph *graph, const vknn_operation *op,
                                      int32_t activation) {
  if (vknn_activation_valid(activation)) return VKNN_STATUS_NONE;
  VKNN_LOG_E(graph->log, "model", "%s: activation %d is not a fused activation code",
             vknn_operation_type_name(op->type), activation);
  return VKNN_STATUS_INVALID_ARGUMENT;
}

vknn_status vknn_rnn_read_sequence(vknn_graph *graph, const vknn_operation *op, uint32_t input,
                                   int32_t activation, bool time_major, vknn_rnn_sequence *seq) {
  const vknn_tensor *in = &graph->tensors[input];
  uint32_t rank = op->type == VKNN_OPERATION_RNN ? 2u : 3u;
  seq->type = in->type;
  seq->time_major = time_major;
  seq->steps = rank == 3 ? vknn_known_dim(in, 3, time_major ? 0 : 1) : 1;
  seq->batch = vknn_known_dim(in, rank, rank == 3 && time_major ? 1 : 0);
  vknn_activation_bounds(activation, in, &seq->act_min, &seq->act_max);
  if (seq->steps > VKNN_RNN_MAX_STEPS ||
      vknn_shape_element_count(in->dims, in->rank) > INT32_MAX) {
    VKNN_LOG_E(graph->log, "compilation",
               "%s: %u steps (at most %u) or an input of this size are not supported",
               vknn_operation_type_name(op->type), seq->steps, VKNN_RNN_MAX_STEPS);
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  return VKNN_STATUS_NONE;
}

vknn_status vknn_rnn_require_sequence(vknn_graph *graph, const vknn_operation *op, uint32_t i,
                                      uint32_t rank) {
  vknn_status s = vknn_op_require_input_shape(graph, op, i);
  return s == VKNN_STATUS_NONE ? vknn_op_check_known_rank(graph, op, i, rank, rank) : s;
}

/* A zero bias for the products that have none. */
static uint32_t add_zeros(vknn_graph *graph, int32_t type, uint32_t count) {
  void *zeros = vknn_calloc(count, type == VKNN_OPERAND_TENSOR_FLOAT16 ? 2 : 4);
  if (zeros == NULL) return UINT32_MAX;
  return vknn_graph_add_constant(graph, type, &count, 1, zeros);
}

static uint32_t add_temporary_2d(vknn_graph *graph, int32_t type, uint32_t rows, uint32_t cols) {
  uint32_t dims[2] = {rows, cols};
  return vknn_graph_add_temporary(graph, type, dims, 2);
}

typedef struct rnn_step_params {
  uint32_t batch, units;
  uint32_t proj_base, proj_batch_stride;
  uint32_t out_base, out_batch_stride;
  uint32_t has_aux;
  float act_min, act_max;
} rnn_step_params;
VKNN_PUSH_LAYOUT(rnn_step, rnn_step_params);

/* The tensors one direction's steps use. */
typedef struct rnn_buffers {
  uint32_t proj, aux_proj, rec, state, zeros;
} rnn_buffers;

static vknn_status add_step(vknn_graph *graph, const vknn_rnn_sequence *seq,
                            const vknn_rnn_direction *dir, const rnn_buffers *b, uint32_t s,
                            vknn_dispatch_list *out_list) {
  uint32_t t = dir->reverse ? seq->steps - 1 - s : s;
  bool first = s == 0, last = s + 1 == seq->steps;
  vknn_matmul m = {.t = {.input = first ? dir->hidden_in : b->state, .filter = dir->recurrent,
                         .bias = b->zeros, .output = b->rec, .act_min = -INFINITY, .act_max = INFINITY},
                   .rows = seq->batch, .k = dir->units, .n = dir->units};
  vknn_status st = vknn_lower_matmul(graph, &m, out_list);
  if (st != VKNN_STATUS_NONE) return st;
  /* Rows of step t: t * batch + b (time-major) or b * steps + t. */
  uint32_t step_rows = seq->time_major ? seq->batch : 1, batch_rows = seq->time_major ? 1 : seq->steps;
  rnn_step_params p = {seq->batch, dir->units,
                       t * step_rows * dir->units, batch_rows * dir->units,
                       t * step_rows * dir->out_width + dir->out_col, batch_rows * dir->out_width,
                       b->aux_proj != VKNN_NONE_TENSOR, seq->act_min, seq->act_max};
  vknn_dispatch *d = vknn_dispatch_list_add(out_list);
  if (d == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  bool f16 = seq->type == VKNN_OPERAND_TENSOR_FLOAT16;
  d->shader = f16 ? VKNN_SHADER_RNN_STEP_F16 : VKNN_SHADER_RNN_STEP_F32;
  d->local_size = 64;
  vknn_dispatch_bind(d, b->proj, VKNN_ACCESS_READ);
  vknn_dispatch_bind(d, b->aux_proj != VKNN_NONE_TENSOR ? b->aux_proj : b->proj, VKNN_ACCESS_READ);
  vknn_dispatch_bind(d, b->rec, VKNN_ACCESS_READ);
  /* The last step writes the operation's state output where it has one. */
  bool to_output = last && dir->state_out != VKNN_NONE_TENSOR;
  vknn_dispatch_bind(d, to_output ? dir->state_out : b->state, VKNN_ACCESS_WRITE);
  vknn_dispatch_bind(d, dir->output, VKNN_ACCESS_WRITE);
  memcpy(d->push, &p, sizeof(p));
  d->push_size = sizeof(p);
  d->invocations = (uint64_t)seq->batch * dir->units;
  return VKNN_STATUS_NONE;
}

/* The projections of every step's input (with the bias) and auxiliary input. */
static vknn_status add_projections(vknn_graph *graph, const vknn_rnn_sequence *seq,
                                   const vknn_rnn_direction *dir, const rnn_buffers *b,
                                   vknn_dispatch_list *out_list) {
  uint32_t rows = seq->batch * seq->steps;
  vknn_matmul m = {.t = {.input = dir->input, .filter = dir->weights, .bias = dir->bias, .output = b->proj,
                         .act_min = -INFINITY, .act_max = INFINITY},
                   .rows = rows, .k = dir->input_size, .n = dir->units};
  vknn_status s = vknn_lower_matmul(graph, &m, out_list);
  if (s != VKNN_STATUS_NONE || b->aux_proj == VKNN_NONE_TENSOR) return s;
  m.t.input = dir->aux_input;
  m.t.filter = dir->aux_weights;
  m.t.bias = b->zeros;
  m.t.output = b->aux_proj;
  m.k = dir->aux_size;
  return vknn_lower_matmul(graph, &m, out_list);
}

vknn_status vknn_lower_rnn_direction(vknn_graph *graph, const vknn_rnn_sequence *seq,
                                     const vknn_rnn_direction *dir, vknn_dispatch_list *out_list) {
  uint32_t rows = seq->batch * seq->steps;
  rnn_buffers b = {add_temporary_2d(graph, seq->type, rows, dir->units), VKNN_NONE_TENSOR,
                   add_temporary_2d(graph, seq->type, seq->batch, dir->units),
                   add_temporary_2d(graph, seq->type, seq->batch, dir->units),
                   add_zeros(graph, seq->type, dir->units)};
  if (dir->aux_weights != VKNN_NONE_TENSOR)
    b.aux_proj = add_temporary_2d(graph, seq->type, rows, dir->units);
  bool aux_missing = dir->aux_weights != VKNN_NONE_TENSOR && b.aux_proj == UINT32_MAX;
  if (b.proj == UINT32_MAX || b.rec == UINT32_MAX || b.state == UINT32_MAX ||
      b.zeros == UINT32_MAX || aux_missing)
    return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  vknn_status s = add_projections(graph, seq, dir, &b, out_list);
  for (uint32_t step = 0; step < seq->steps && s == VKNN_STATUS_NONE; ++step)
    s = add_step(graph, seq, dir, &b, step, out_list);
  return s;
}

/* ---- RNN ---------------------------------------------------------------- */

/* The one direction of RNN and UNIDIRECTIONAL_SEQUENCE_RNN: inputs 0-4 are
 * the input, weights, recurrent weights, bias and hidden state; its shapes
 * checked (vknn_rnn_check_cell). */
static vknn_status read_cell(vknn_graph *graph, const vknn_operation *op, uint32_t input_size,
                             uint32_t output, uint32_t state_out, const vknn_rnn_sequence *seq,
                             vknn_rnn_direction *dir) {
  *dir = (vknn_rnn_direction){.input = op->inputs[0], .input_size = input_size,
                              .aux_input = VKNN_NONE_TENSOR, .aux_weights = VKNN_NONE_TENSOR,
                              .weights = op->inputs[1], .recurrent = op->inputs[2],
                              .bias = op->inputs[3], .hidden_in = op->inputs[4],
                              .output = output, .state_out = state_out};
  vknn_status s = vknn_rnn_check_cell(graph, op, seq, dir);
  dir->out_width = dir->units;
  return s;
}

/* The scalar parameters from input 5 (count of them: the activation, and
 * UNIDIRECTIONAL_SEQUENCE_RNN's timeMajor), read and checked before the
 * shapes: a model whose shapes wait for an execution still has them checked
 * at prepare. */
static vknn_status read_params(vknn_graph *graph, const vknn_operation *op, uint32_t count,
                               int32_t *params) {
  vknn_status s = vknn_op_require_constant_params(graph, op, 5, count);
  if (s == VKNN_STATUS_NONE && !vknn_graph_const_i32_list(graph, op, 5, count, params))
    s = VKNN_STATUS_GENERAL_FAILURE;
  if (s == VKNN_STATUS_NONE) s = vknn_rnn_check_activation(graph, op, params[0]);
  if (s == VKNN_STATUS_NONE && count > 1 && params[1] != 0 && params[1] != 1) {
    VKNN_LOG_E(graph->log, "model", "UNIDIRECTIONAL_SEQUENCE_RNN: timeMajor %d is not 0 or 1",
               params[1]);
    s = VKNN_STATUS_INVALID_ARGUMENT;
  }
  return s;
}

/* The cell is checked against the input's dimensions known so far, then the
 * operation waits for the shapes it does not know. */
static vknn_status read_rnn(vknn_graph *graph, const vknn_operation *op, vknn_rnn_sequence *seq,
                            vknn_rnn_direction *dir) {
  int32_t activation;
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  vknn_status s = read_params(graph, op, 1, &activation);
  if (s == VKNN_STATUS_NONE) s = vknn_rnn_read_sequence(graph, op, op->inputs[0], activation, true, seq);
  /* One step: the state output (0) and the output (1) hold the same values. */
  if (s == VKNN_STATUS_NONE)
    s = read_cell(graph, op, vknn_known_dim(in, 2, 1), op->outputs[1], op->outputs[0], seq, dir);
  if (s == VKNN_STATUS_NONE) s = vknn_op_require_input_shapes(graph, op, 5);
  return s == VKNN_STATUS_NONE ? vknn_rnn_require_sequence(graph, op, 0, 2) : s;
}

static vknn_status infer_rnn(vknn_graph *graph, const vknn_operation *op) {
  vknn_rnn_sequence seq;
  vknn_rnn_direction dir;
  vknn_status s = read_rnn(graph, op, &seq, &dir);
  uint32_t dims[2] = {seq.batch, dir.units};
  for (uint32_t o = 0; o < 2 && s == VKNN_STATUS_NONE; ++o)
    s = vknn_op_set_output_shape(graph, op, o, dims, 2);
  return s;
}

static vknn_status lower_rnn(vknn_graph *graph, const vknn_operation *op,
                             vknn_dispatch_list *out_list) {
  vknn_rnn_sequence seq;
  vknn_rnn_direction dir;
  vknn_status s = read_rnn(graph, op, &seq, &dir);
  return s == VKNN_STATUS_NONE ? vknn_lower_rnn_direction(graph, &seq, &dir, out_list) : s;
}

/* ---- UNIDIRECTIONAL_SEQUENCE_RNN --------------------------------------- */

/* As RNN's: the cell against the input's dimensions known so far first. */
static vknn_status read_unidirectional(vknn_graph *graph, const vknn_operation *op,
                                       vknn_rnn_sequence *seq, vknn_rnn_direction *dir) {
  int32_t params[2]; /* activation, timeMajor */
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  vknn_status s = read_params(graph, op, 2, params);
  if (s == VKNN_STATUS_NONE) s = vknn_rnn_read_sequence(graph, op, op->inputs[0], params[0], params[1] == 1, seq);
  if (s == VKNN_STATUS_NONE)
    s = read_cell(graph, op, vknn_known_dim(in, 3, 2), op->outputs[0],
                  op->output_count > 1 ? op->outputs[1] : VKNN_NONE_TENSOR, seq, dir);
  if (s == VKNN_STATUS_NONE) s = vknn_op_require_input_shapes(graph, op, 5);
  return s == VKNN_STATUS_NONE ? vknn_rnn_require_sequence(graph, op, 0, 3) : s;
}

static vknn_status infer_unidirectional(vknn_graph *graph, const vknn_operation *op) {
  vknn_rnn_sequence seq;
  vknn_rnn_direction dir;
  vknn_status s = read_unidirectional(graph, op, &seq, &dir);
  if (s != VKNN_STATUS_NONE) return s;
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  uint32_t out[3] = {in->dims[0], in->dims[1], dir.units}, state[2] = {seq.batch, dir.units};
  s = vknn_op_set_output_shape(graph, op, 0, out, 3);
  if (s == VKNN_STATUS_NONE && op->output_count > 1)
    s = vknn_op_set_output_shape(graph, op, 1, state, 2);
  return s;
}

static vknn_status lower_unidirectional(vknn_graph *graph, const vknn_operation *op,
                                        vknn_dispatch_list *out_list) {
  vknn_rnn_sequence seq;
  vknn_rnn_direction dir;
  vknn_status s = read_unidirectional(graph, op, &seq, &dir);
  return s == VKNN_STATUS_NONE ? vknn_lower_rnn_direction(graph, &seq, &dir, out_list) : s;
}

const vknn_op_def vknn_op_rnn = {VKNN_OPERATION_RNN, false, validate_rnn, infer_rnn, lower_rnn};
const vknn_op_def vknn_op_unidirectional_sequence_rnn = {
    VKNN_OPERATION_UNIDIRECTIONAL_SEQUENCE_RNN, false, validate_unidirectional,
    infer_unidirectional, lower_unidirectional};
