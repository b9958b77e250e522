/* RESHAPE, SQUEEZE, EXPAND_DIMS: the same elements under a new shape.
 * RESHAPE's shape may hold one -1 (inferred). A result that is a temporary
 * is a view of the input's bytes (no dispatch); a model output gets a copy. */
#include <string.h>

#include "model/operand_type.h"
#include "ops/shape_check.h"
#include "ops/slice_copy.h"

/* NNAPI limits RESHAPE to tensors of rank up to 4, both sides. */
#define RESHAPE_MAX_RANK 4

static vknn_status validate_reshape(const vknn_logger *log, const vknn_model *model,
                                    const vknn_subgraph *sg, const vknn_operation *op) {
  (void)model;
  if (!vknn_op_check_counts(log, sg, op, 2, 2, 1) ||
      !vknn_op_check_data_types(log, sg, op, RESHAPE_MAX_RANK, false))
    return VKNN_STATUS_INVALID_ARGUMENT;
  const vknn_operand *out = &sg->operands[op->outputs[0]];
  if (out->dimension_count > RESHAPE_MAX_RANK) {
    VKNN_LOG_E(log, "model", "RESHAPE: output rank %u is above %d", out->dimension_count,
               RESHAPE_MAX_RANK);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  bool ok = vknn_op_check_type(log, op, "shape", &sg->operands[op->inputs[1]], VKNN_OPERAND_TENSOR_INT32) &&
            vknn_op_check_rank(log, op, "shape", &sg->operands[op->inputs[1]], 1) &&
            vknn_op_check_same_quant(log, sg, op, 0);
  return ok ? VKNN_STATUS_NONE : VKNN_STATUS_INVALID_ARGUMENT;
}

/* A shape given at run time is not needed when the model declares the
 * output's shape in full: that declaration is the result's shape, and each
 * execution's parameter is checked against it on the GPU. */
static vknn_status infer_from_declared(vknn_graph *graph, const vknn_operation *op,
                                       vknn_shape_check_kind kind) {
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  const vknn_tensor *out = &graph->tensors[op->outputs[0]];
  if (!out->shape_known)
    return vknn_graph_defer(graph, op, "the shape is known at run time only");
  if (vknn_shape_element_count(out->dims, out->rank) != vknn_shape_element_count(in->dims, in->rank)) {
    VKNN_LOG_E(graph->log, "model", "%s: the output does not hold the input's elements",
               vknn_operation_type_name(op->type));
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  return vknn_shape_check_infer(graph, op, 1, kind);
}

static vknn_status infer_reshape(vknn_graph *graph, const vknn_operation *op) {
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  const vknn_tensor *shape = &graph->tensors[op->inputs[1]];
  vknn_status s = vknn_op_require_input_shape(graph, op, 0);
  /* The rank limit again: a rank the model leaves unknown passed its checks. */
  if (s == VKNN_STATUS_NONE) s = vknn_op_check_known_rank(graph, op, 0, 0, RESHAPE_MAX_RANK);
  if (s != VKNN_STATUS_NONE) return s;
  if (shape->constant_data == NULL) return infer_from_declared(graph, op, VKNN_SHAPE_CHECK_RESHAPE);
  /* The shape's rank again: one the model leaves unknown passed validation. */
  s = vknn_op_check_known_rank(graph, op, 1, 1, 1);
  if (s != VKNN_STATUS_NONE) return s;
  uint32_t rank = shape->dims[0];
  if (rank == 0 || rank > RESHAPE_MAX_RANK) {
    VKNN_LOG_E(graph->log, "model", "RESHAPE: target rank %u is not in [1, %d]", rank, RESHAPE_MAX_RANK);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  int32_t target[VKNN_MAX_RANK];
  memcpy(target, shape->constant_data, rank * sizeof(int32_t));
  uint64_t elements = vknn_shape_element_count(in->dims, in->rank), known = 1;
  int32_t unknown = -1;
  for (uint32_t d = 0; d < rank; ++d) {
    if (target[d] == -1 && unknown < 0) unknown = (int32_t)d;
    else if (target[d] > 0) known *= (uint64_t)target[d];
    else {
      VKNN_LOG_E(graph->log, "model", "RESHAPE: invalid target dimension %d", target[d]);
      return VKNN_STATUS_INVALID_ARGUMENT;
    }
  }
  if (unknown >= 0 && known > 0 && elements % known == 0) target[unknown] = (int32_t)(elements / known);
  uint32_t dims[VKNN_MAX_RANK];
  for (uint32_t d = 0; d < rank; ++d) dims[d] = (uint32_t)target[d];
  if (vknn_shape_element_count(dims, rank) != elements) {
    VKNN_LOG_E(graph->log, "model", "RESHAPE: the new shape does not hold the same elements");
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  return vknn_op_set_output_shape(graph, op, 0, dims, rank);
}

/* RESHAPE's shape or SQUEEZE's axes given at run time (EXPAND_DIMS's axis
 * is a constant). */
static bool shape_given_at_run_time(const vknn_graph *graph, const vknn_operation *op) {
  if (op->type == VKNN_OPERATION_EXPAND_DIMS || op->input_count < 2 || vknn_graph_omitted(graph, op->inputs[1]))
    return false;
  return graph->tensors[op->inputs[1]].constant_data == NULL;
}

static vknn_status lower_reshape(vknn_graph *graph, const vknn_operation *op,
                                 vknn_dispatch_list *out_list) {
  if (shape_given_at_run_time(graph, op)) {
    vknn_shape_check_kind kind =
        op->type == VKNN_OPERATION_SQUEEZE ? VKNN_SHAPE_CHECK_SQUEEZE : VKNN_SHAPE_CHECK_RESHAPE;
    vknn_status s = vknn_lower_shape_check(graph, op, 1, kind, out_list);
    if (s != VKNN_STATUS_NONE) return s;
  }
  if (vknn_graph_alias(graph, vknn_graph_op_output(graph, op, 0), op->inputs[0]))
    return VKNN_STATUS_NONE;
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  uint64_t elements = vknn_shape_element_count(in->dims, in->rank);
  vknn_slice slice = {.outer = 1, .in_axis = elements, .inner = 1, .out_axis = elements};
  return vknn_lower_slice_copy(graph, op->inputs[0], op->outputs[0], &slice, out_list);
}

const vknn_op_def vknn_op_reshape = {VKNN_OPERATION_RESHAPE, false, validate_reshape, infer_reshape,
                                     lower_reshape};

static vknn_status validate_squeeze(const vknn_logger *log, const vknn_model *model,
                                    const vknn_subgraph *sg, const vknn_operation *op) {
  (void)model;
  /* The counts first: input 1 exists only once they hold. */
  if (!vknn_op_check_counts(log, sg, op, 2, 2, 1)) return VKNN_STATUS_INVALID_ARGUMENT;
  const vknn_operand *axes = &sg->operands[op->inputs[1]];
  bool ok = vknn_op_check_data_types(log, sg, op, 4, false) &&
            vknn_op_check_type(log, op, "axes", axes, VKNN_OPERAND_TENSOR_INT32) &&
            vknn_op_check_rank(log, op, "axes", axes, 1) && vknn_op_check_same_quant(log, sg, op, 0);
  return ok ? VKNN_STATUS_NONE : VKNN_STATUS_INVALID_ARGUMENT;
}

/* Drops the listed axes of size 1 (all of them when the list is omitted). */
static vknn_status infer_squeeze(vknn_graph *graph, const vknn_operation *op) {
  vknn_status s = vknn_op_require_input_shape(graph, op, 0);
  /* The rank limit again: a rank the model leaves unknown passed its checks. */
  if (s == VKNN_STATUS_NONE) s = vknn_op_check_known_rank(graph, op, 0, 0, 4);
  if (s != VKNN_STATUS_NONE) return s;
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  bool drop[VKNN_MAX_RANK] = {false};
  int32_t axes[VKNN_MAX_RANK];
  uint32_t n = 0;
  if (op->input_count < 2 || vknn_graph_omitted(graph, op->inputs[1])) {
    for (uint32_t d = 0; d < in->rank; ++d) drop[d] = in->dims[d] == 1;
  } else if (graph->tensors[op->inputs[1]].constant_data == NULL) {
    return infer_from_declared(graph, op, VKNN_SHAPE_CHECK_SQUEEZE);
  } else if ((s = vknn_op_check_known_rank(graph, op, 1, 1, 1)) != VKNN_STATUS_NONE) {
    return s; /* the axes' rank again: one the model leaves unknown passed validation */
  } else if (!vknn_graph_const_i32_tensor(graph, op->inputs[1], axes, VKNN_MAX_RANK, &n)) {
    VKNN_LOG_E(graph->log, "model", "SQUEEZE: the axes do not fit the input");
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  for (uint32_t i = 0; i < n; ++i) {
    int32_t a = axes[i] < 0 ? axes[i] + (int32_t)in->rank : axes[i];
    if (a < 0 || a >= (int32_t)in->rank || in->dims[a] != 1) {
      VKNN_LOG_E(graph->log, "model", "SQUEEZE: axis %d is not of size 1", axes[i]);
      return VKNN_STATUS_INVALID_ARGUMENT;
    }
    drop[a] = true;
  }
  uint32_t dims[VKNN_MAX_RANK], rank = 0;
  for (uint32_t d = 0; d < in->rank; ++d)
    if (!drop[d]) dims[rank++] = in->dims[d];
  if (rank == 0) dims[rank++] = 1;
  return vknn_op_set_output_shape(graph, op, 0, dims, rank);
}

static vknn_status validate_expand_dims(const vknn_logger *log, const vknn_model *model,
                                        const vknn_subgraph *sg, const vknn_operation *op) {
  (void)model;
  bool ok = vknn_op_check_counts(log, sg, op, 2, 2, 1) &&
            vknn_op_check_data_types(log, sg, op, VKNN_MAX_RANK - 1, true) &&
            vknn_op_check_type(log, op, "axis", &sg->operands[op->inputs[1]], VKNN_OPERAND_INT32) &&
            vknn_op_check_same_quant(log, sg, op, 0);
  return ok ? VKNN_STATUS_NONE : VKNN_STATUS_INVALID_ARGUMENT;
}

static vknn_status infer_expand_dims(vknn_graph *graph, const vknn_operation *op) {
  vknn_status s = vknn_op_require_input_shape(graph, op, 0);
  if (s != VKNN_STATUS_NONE) return s;
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  int32_t axis;
  if (!vknn_graph_const_i32_list(graph, op, 1, 1, &axis)) return VKNN_STATUS_GENERAL_FAILURE;
  int32_t rank = (int32_t)in->rank + 1;
  if (rank > VKNN_MAX_RANK) {
    /* NNAPI sets no rank limit here: this driver's. */
    VKNN_LOG_E(graph->log, "compilation", "EXPAND_DIMS: a result of rank %d is above the %d supported", rank,
               VKNN_MAX_RANK);
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  if (axis < -rank || axis >= rank) {
    VKNN_LOG_E(graph->log, "model", "EXPAND_DIMS: axis %d out of rank %d", axis, rank);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  uint32_t at = (uint32_t)(axis < 0 ? axis + rank : axis), dims[VKNN_MAX_RANK];
  for (uint32_t d = 0, i = 0; d < (uint32_t)rank; ++d) dims[d] = d == at ? 1 : in->dims[i++];
  return vknn_op_set_output_shape(graph, op, 0, dims, (uint32_t)rank);
}

const vknn_op_def vknn_op_squeeze = {VKNN_OPERATION_SQUEEZE, false, validate_squeeze, infer_squeeze,
                                     lower_reshape};
const vknn_op_def vknn_op_expand_dims = {VKNN_OPERATION_EXPAND_DIMS, false, validate_expand_dims,
                                         infer_expand_dims, lower_reshape};
