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

/* The new shape, a constant: of rank 1 to 4, each dimension above 0 but one
 * that may be -1 (inferred: *inferred is its index, -1 when none). */
static vknn_status read_target(vknn_graph *graph, const vknn_operation *op, int32_t *target, uint32_t *rank,
                               int32_t *inferred) {
  const vknn_tensor *shape = &graph->tensors[op->inputs[1]];
  /* The shape's rank again: one the model leaves unknown passed validation. */
  vknn_status s = vknn_op_check_known_rank(graph, op, 1, 1, 1);
  if (s != VKNN_STATUS_NONE) return s;
  *rank = shape->dims[0];
  if (*rank == 0 || *rank > RESHAPE_MAX_RANK) {
    VKNN_LOG_E(graph->log, "model", "RESHAPE: target rank %u is not in [1, %d]", *rank, RESHAPE_MAX_RANK);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  memcpy(target, shape->constant_data, *rank * sizeof(int32_t));
  *inferred = -1;
  for (uint32_t d = 0; d < *rank; ++d) {
    if (target[d] == -1 && *inferred < 0) *inferred = (int32_t)d;
    else if (target[d] <= 0) {
      VKNN_LOG_E(graph->log, "model", "RESHAPE: invalid target dimension %d", target[d]);
      return VKNN_STATUS_INVALID_ARGUMENT;
    }
  }
  return VKNN_STATUS_NONE;
}

/* A new shape read by read_target for an input of `elements` elements (0:
 * not known yet, ops/known_dims.h): the inferred dimension is their count
 * over the product of the others, not known while it is not (and 0, so
 * that the counts differ, where that product does not divide it). */
static void target_shape(const int32_t *target, uint32_t rank, int32_t inferred, uint64_t elements,
                         uint32_t *dims) {
  uint64_t known = 1;
  for (uint32_t d = 0; d < rank; ++d) {
    dims[d] = (uint32_t)target[d];
    if ((int32_t)d != inferred) known *= (uint64_t)target[d];
  }
  if (inferred >= 0) dims[inferred] = known != 0 && elements % known == 0 ? (uint32_t)(elements / known) : 0;
}

/* A constant new shape is read and checked, and the declared output against
 * the dimensions it gives, before the input's shape is required: a model
 * leaving it to an execution still has them checked at prepare. */
static vknn_status infer_reshape(vknn_graph *graph, const vknn_operation *op) {
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  const vknn_tensor *shape = &graph->tensors[op->inputs[1]];
  int32_t target[VKNN_MAX_RANK], inferred;
  uint32_t rank, dims[VKNN_MAX_RANK];
  bool constant = shape->constant_data != NULL;
  vknn_status s = constant ? read_target(graph, op, target, &rank, &inferred) : VKNN_STATUS_NONE;
  if (s == VKNN_STATUS_NONE && constant && !in->shape_known) {
    target_shape(target, rank, inferred, 0, dims);
    s = vknn_op_check_known_output(graph, op, dims, rank);
  }
  if (s == VKNN_STATUS_NONE) s = vknn_op_require_input_shape(graph, op, 0);
  /* The rank limit again: a rank the model leaves unknown passed its checks. */
  if (s == VKNN_STATUS_NONE) s = vknn_op_check_known_rank(graph, op, 0, 0, RESHAPE_MAX_RANK);
  if (s != VKNN_STATUS_NONE) return s;
  if (!constant) return infer_from_declared(graph, op, VKNN_SHAPE_CHECK_RESHAPE);
  uint64_t elements = vknn_shape_element_count(in->dims, in->rank);
  target_shape(target, rank, inferred, elements, dims);
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

/* The listed axes, a constant: each an axis of the input of size 1 (or not
 * known yet: 0 agrees), marked in drop. */
static vknn_status read_axes(vknn_graph *graph, const vknn_operation *op, bool *drop) {
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  int32_t axes[VKNN_MAX_RANK];
  uint32_t n = 0;
  /* The axes' rank again: one the model leaves unknown passed validation. */
  vknn_status s = vknn_op_check_known_rank(graph, op, 1, 1, 1);
  if (s != VKNN_STATUS_NONE) return s;
  if (!vknn_graph_const_i32_tensor(graph, op->inputs[1], axes, VKNN_MAX_RANK, &n)) {
    VKNN_LOG_E(graph->log, "model", "SQUEEZE: the axes do not fit the input");
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t a;
    s = vknn_op_axis(graph, op, axes[i], in->rank, &a);
    if (s != VKNN_STATUS_NONE) return s;
    if (in->dims[a] > 1) {
      VKNN_LOG_E(graph->log, "model", "SQUEEZE: axis %d is not of size 1", axes[i]);
      return VKNN_STATUS_INVALID_ARGUMENT;
    }
    drop[a] = true;
  }
  return VKNN_STATUS_NONE;
}

/* The input's dimensions less the dropped axes (0 where not known yet,
 * ops/known_dims.h): [1] where every axis is dropped. Its rank. */
static uint32_t squeezed_shape(const vknn_tensor *in, const bool *drop, uint32_t *dims) {
  uint32_t rank = 0;
  for (uint32_t d = 0; d < in->rank; ++d)
    if (!drop[d]) dims[rank++] = in->dims[d];
  if (rank == 0) dims[rank++] = 1;
  return rank;
}

/* Constant axes, read while the input's shape waits for an execution: the
 * declared output against the shape they give. */
static vknn_status read_axes_early(vknn_graph *graph, const vknn_operation *op, bool *drop) {
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  uint32_t dims[VKNN_MAX_RANK];
  vknn_status s = read_axes(graph, op, drop);
  if (s != VKNN_STATUS_NONE) return s;
  uint32_t rank = squeezed_shape(in, drop, dims);
  return vknn_op_check_known_output(graph, op, dims, rank);
}

/* Drops the listed axes of size 1 (all of them when the list is omitted).
 * Constant axes are checked against the rank and the dimensions the model
 * gives, and the declared output against the shape they give, before the
 * input's shape is required: a model leaving it to an execution still has
 * them checked at prepare. Omitted axes drop the axes of size 1, which
 * waits for every dimension. */
static vknn_status infer_squeeze(vknn_graph *graph, const vknn_operation *op) {
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  bool drop[VKNN_MAX_RANK] = {false};
  bool listed = op->input_count >= 2 && !vknn_graph_omitted(graph, op->inputs[1]);
  bool constant = listed && graph->tensors[op->inputs[1]].constant_data != NULL;
  bool early = constant && in->rank != 0;
  vknn_status s = early ? read_axes_early(graph, op, drop) : VKNN_STATUS_NONE;
  if (s == VKNN_STATUS_NONE) s = vknn_op_require_input_shape(graph, op, 0);
  /* The rank limit again: a rank the model leaves unknown passed its checks. */
  if (s == VKNN_STATUS_NONE) s = vknn_op_check_known_rank(graph, op, 0, 0, 4);
  if (s == VKNN_STATUS_NONE && constant && !early) s = read_axes(graph, op, drop);
  if (s != VKNN_STATUS_NONE) return s;
  if (!listed) {
    for (uint32_t d = 0; d < in->rank; ++d) drop[d] = in->dims[d] == 1;
  } else if (!constant) {
    return infer_from_declared(graph, op, VKNN_SHAPE_CHECK_SQUEEZE);
  }
  uint32_t dims[VKNN_MAX_RANK], rank = squeezed_shape(in, drop, dims);
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

/* The axis, a constant within the output's rank (the input's + 1): *at is
 * where the new dimension goes. */
static vknn_status read_axis(vknn_graph *graph, const vknn_operation *op, uint32_t *at) {
  int32_t axis, rank = (int32_t)graph->tensors[op->inputs[0]].rank + 1;
  if (!vknn_graph_const_i32_list(graph, op, 1, 1, &axis)) return VKNN_STATUS_GENERAL_FAILURE;
  if (rank > VKNN_MAX_RANK) {
    /* NNAPI sets no rank limit here: this driver's. */
    VKNN_LOG_E(graph->log, "compilation", "EXPAND_DIMS: a result of rank %d is above the %d supported", rank,
               VKNN_MAX_RANK);
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  return vknn_op_axis(graph, op, axis, (uint32_t)rank, at);
}

/* The input's dimensions (0 where not known yet, ops/known_dims.h) with a
 * 1 inserted at `at`. Its rank. */
static uint32_t expanded_shape(const vknn_tensor *in, uint32_t at, uint32_t *dims) {
  for (uint32_t d = 0, i = 0; d <= in->rank; ++d) dims[d] = d == at ? 1 : in->dims[i++];
  return in->rank + 1;
}

/* A constant axis is checked against the rank the model gives, and the
 * declared output against the shape it gives, before the input's shape is
 * required: a model leaving it to an execution still has them checked at
 * prepare. */
static vknn_status infer_expand_dims(vknn_graph *graph, const vknn_operation *op) {
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  bool early = in->rank != 0 && graph->tensors[op->inputs[1]].constant_data != NULL;
  uint32_t at, dims[VKNN_MAX_RANK];
  vknn_status s = early ? read_axis(graph, op, &at) : VKNN_STATUS_NONE;
  if (s == VKNN_STATUS_NONE && early) {
    uint32_t rank = expanded_shape(in, at, dims);
    s = vknn_op_check_known_output(graph, op, dims, rank);
  }
  if (s == VKNN_STATUS_NONE) s = vknn_op_require_input_shape(graph, op, 0);
  if (s == VKNN_STATUS_NONE && !early) s = read_axis(graph, op, &at);
  if (s != VKNN_STATUS_NONE) return s;
  uint32_t rank = expanded_shape(in, at, dims);
  return vknn_op_set_output_shape(graph, op, 0, dims, rank);
}

const vknn_op_def vknn_op_squeeze = {VKNN_OPERATION_SQUEEZE, false, validate_squeeze, infer_squeeze,
                                     lower_reshape};
const vknn_op_def vknn_op_expand_dims = {VKNN_OPERATION_EXPAND_DIMS, false, validate_expand_dims,
                                         infer_expand_dims, lower_reshape};
