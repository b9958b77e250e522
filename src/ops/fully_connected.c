/* FULLY_CONNECTED: out[b, u] = act(sum_i in[b, i] * weights[u, i] + bias[u]).
 * Lowered as a 1x1 convolution over a 1x1 image of input_size channels. */
#include "ops/conv2d.h"
#include "model/operand_type.h"
#include "ops/known_dims.h"

static vknn_status validate_fully_connected(const vknn_logger *log, const vknn_model *model,
                                            const vknn_subgraph *sg, const vknn_operation *op) {
  (void)model;
  if (!vknn_op_check_counts(log, sg, op, 4, 4, 1)) return VKNN_STATUS_INVALID_ARGUMENT;
  const vknn_operand *in = &sg->operands[op->inputs[0]];
  bool ok = vknn_conv_check_types(log, sg, op, -1) &&
            vknn_op_check_rank(log, op, "weights", &sg->operands[op->inputs[1]], 2) &&
            vknn_op_check_rank(log, op, "output", &sg->operands[op->outputs[0]], 2) &&
            vknn_op_check_type(log, op, "activation", &sg->operands[op->inputs[3]],
                               VKNN_OPERAND_INT32);
  if (ok && (in->dimension_count == 1 || in->dimension_count > 4)) {
    VKNN_LOG_E(log, "model", "FULLY_CONNECTED: input rank %u is not in [2, 4]", in->dimension_count);
    ok = false;
  }
  return ok ? VKNN_STATUS_NONE : VKNN_STATUS_INVALID_ARGUMENT;
}

/* Weights [units, input_size] and bias [units], checked as soon as both
 * shapes are known, also where the input's waits for an execution (as the
 * NNAPI reference validates them). */
static vknn_status check_weights_and_bias(const vknn_graph *graph, const vknn_operation *op) {
  const vknn_tensor *weights = &graph->tensors[op->inputs[1]];
  const vknn_tensor *bias = &graph->tensors[op->inputs[2]];
  if (!weights->shape_known || !bias->shape_known) return VKNN_STATUS_NONE;
  vknn_status rs = vknn_op_check_known_rank(graph, op, 1, 2, 2);
  if (rs == VKNN_STATUS_NONE) rs = vknn_op_check_known_rank(graph, op, 2, 1, 1);
  if (rs != VKNN_STATUS_NONE || bias->dims[0] == weights->dims[0]) return rs;
  VKNN_LOG_E(graph->log, "model", "FULLY_CONNECTED: a bias of %u for %u units", bias->dims[0], weights->dims[0]);
  return VKNN_STATUS_INVALID_ARGUMENT;
}

/* The declared output [batch, units] against the weights' units where they
 * are known, before an execution gives the input's shape. */
static vknn_status check_known_units(const vknn_graph *graph, const vknn_operation *op) {
  uint32_t units = vknn_known_dim(&graph->tensors[op->inputs[1]], 2, 0);
  uint32_t declared = vknn_known_dim(&graph->tensors[op->outputs[0]], 2, 1);
  if (vknn_dims_agree(declared, units)) return VKNN_STATUS_NONE;
  VKNN_LOG_E(graph->log, "model", "FULLY_CONNECTED: an output of %u units, the weights have %u", declared,
             units);
  return VKNN_STATUS_INVALID_ARGUMENT;
}

/* The fused activation, read and checked before the input's shape: a model
 * whose input shape waits for an execution still has it checked at prepare.
 * Given as a model input, it is compiled per execution with its value. */
static vknn_status read_activation(vknn_graph *graph, const vknn_operation *op, int32_t *activation) {
  vknn_status s = vknn_op_require_constant_params(graph, op, 3, 1);
  if (s != VKNN_STATUS_NONE) return s;
  if (!vknn_graph_const_i32_list(graph, op, 3, 1, activation)) return VKNN_STATUS_GENERAL_FAILURE;
  if (vknn_activation_valid(*activation)) return VKNN_STATUS_NONE;
  VKNN_LOG_E(graph->log, "model", "FULLY_CONNECTED: invalid fused activation %d", *activation);
  return VKNN_STATUS_INVALID_ARGUMENT;
}

static vknn_status read_geometry(vknn_graph *graph, const vknn_operation *op,
                                 vknn_conv_geometry *g) {
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  const vknn_tensor *weights = &graph->tensors[op->inputs[1]];
  const vknn_tensor *bias = &graph->tensors[op->inputs[2]];
  int32_t activation;
  vknn_status s = check_weights_and_bias(graph, op);
  if (s == VKNN_STATUS_NONE) s = read_activation(graph, op, &activation);
  if (s != VKNN_STATUS_NONE) return s;
  if (!in->shape_known || !weights->shape_known || !bias->shape_known) {
    s = check_known_units(graph, op);
    return s != VKNN_STATUS_NONE ? s : vknn_graph_defer(graph, op, "shapes unknown at prepare time");
  }
  /* The input's rank again: one the model leaves unknown passed its checks. */
  s = vknn_op_check_known_rank(graph, op, 0, 2, 4);
  if (s != VKNN_STATUS_NONE) return s;
  uint32_t input_size = weights->dims[1], units = weights->dims[0];
  uint64_t elements = vknn_shape_element_count(in->dims, in->rank);
  if (input_size == 0 || elements % input_size != 0) {
    VKNN_LOG_E(graph->log, "model", "FULLY_CONNECTED: input, weights and bias do not agree");
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  *g = (vknn_conv_geometry){.batches = (uint32_t)(elements / input_size),
                            .in_h = 1, .in_w = 1, .in_c = input_size,
                            .out_h = 1, .out_w = 1, .out_c = units,
                            .k_w = 1, .k_h = 1, .stride_x = 1, .stride_y = 1,
                            .dilation_x = 1, .dilation_y = 1,
                            .cin_per_group = input_size, .cout_per_group = units,
                            .activation = activation};
  return VKNN_STATUS_NONE;
}

static vknn_status infer_fully_connected(vknn_graph *graph, const vknn_operation *op) {
  vknn_conv_geometry g;
  vknn_status s = read_geometry(graph, op, &g);
  if (s != VKNN_STATUS_NONE) return s;
  uint32_t dims[2] = {g.batches, g.out_c};
  return vknn_op_set_output_shape(graph, op, 0, dims, 2);
}

static vknn_status lower_fully_connected(vknn_graph *graph, const vknn_operation *op,
                                         vknn_dispatch_list *out_list) {
  vknn_conv_geometry g;
  vknn_status s = read_geometry(graph, op, &g);
  return s == VKNN_STATUS_NONE ? vknn_lower_conv(graph, op, &g, out_list) : s;
}

const vknn_op_def vknn_op_fully_connected = {VKNN_OPERATION_FULLY_CONNECTED, true,
                                             validate_fully_connected, infer_fully_connected,
                                             lower_fully_connected};
