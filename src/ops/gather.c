/* GATHER: slices of the input along an axis picked by an index tensor (read
 * on the GPU); EMBEDDING_LOOKUP: the same along axis 0, its operands in
 * another order. Kernel: shaders/gather.comp. */
#include <string.h>

#include "ops/op_common.h"
#include "graph/runtime_check.h"
#include "model/operand_type.h"

static vknn_status validate_gather(const vknn_logger *log, const vknn_model *model,
                                   const vknn_subgraph *sg, const vknn_operation *op) {
  (void)model;
  bool ok = vknn_op_check_counts(log, sg, op, 3, 3, 1) &&
            vknn_op_check_data_types(log, sg, op, VKNN_MAX_RANK, true) &&
            vknn_op_check_type(log, op, "axis", &sg->operands[op->inputs[1]], VKNN_OPERAND_INT32) &&
            vknn_op_check_type(log, op, "indices", &sg->operands[op->inputs[2]], VKNN_OPERAND_TENSOR_INT32) &&
            vknn_op_check_same_quant(log, sg, op, 0);
  return ok ? VKNN_STATUS_NONE : VKNN_STATUS_INVALID_ARGUMENT;
}

static vknn_status read_axis(vknn_graph *graph, const vknn_operation *op, uint32_t *out_axis) {
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  int32_t axis;
  if (!vknn_graph_const_i32_list(graph, op, 1, 1, &axis)) return VKNN_STATUS_GENERAL_FAILURE;
  return vknn_op_axis(graph, op, axis, in->rank, out_axis);
}

/* NNAPI requires every index in [0, axis size): constant indices are checked
 * here, at prepare; indices known only at run time, by the kernel. An axis
 * size of 0 is not known yet: only the indices' signs are checked. */
static vknn_status check_constant_indices(vknn_graph *graph, const vknn_operation *op,
                                          uint32_t indices_operand, uint32_t axis_size) {
  const vknn_tensor *indices = &graph->tensors[indices_operand];
  if (indices->constant_data == NULL) return VKNN_STATUS_NONE;
  uint64_t count = vknn_shape_element_count(indices->dims, indices->rank);
  for (uint64_t i = 0; i < count; ++i) {
    int32_t index;
    memcpy(&index, indices->constant_data + i * sizeof(index), sizeof(index));
    if (index < 0 || (axis_size != 0 && (uint32_t)index >= axis_size)) {
      VKNN_LOG_E(graph->log, "model", "%s: index %d (element %llu) out of [0, %u)",
                 vknn_operation_type_name(op->type), index, (unsigned long long)i, axis_size);
      return VKNN_STATUS_INVALID_ARGUMENT;
    }
  }
  return VKNN_STATUS_NONE;
}

/* The axis and constant indices, against the input's rank and the size of
 * the axis (0 until known). */
static vknn_status check_axis_and_indices(vknn_graph *graph, const vknn_operation *op, uint32_t *axis) {
  vknn_status s = read_axis(graph, op, axis);
  if (s == VKNN_STATUS_NONE)
    s = check_constant_indices(graph, op, op->inputs[2], graph->tensors[op->inputs[0]].dims[*axis]);
  return s;
}

/* The output: the input's dimensions with the axis replaced by the
 * indices' shape, 0 where one is not known yet (ops/known_dims.h). Its rank
 * (at most VKNN_MAX_RANK: the caller checks). */
static uint32_t gathered_shape(const vknn_tensor *in, const vknn_tensor *indices, uint32_t axis, uint32_t *dims) {
  uint32_t n = 0;
  for (uint32_t d = 0; d < axis; ++d) dims[n++] = in->dims[d];
  for (uint32_t d = 0; d < indices->rank; ++d) dims[n++] = indices->dims[d];
  for (uint32_t d = axis + 1; d < in->rank; ++d) dims[n++] = in->dims[d];
  return n;
}

/* The declared output against the dimensions known before the shapes are
 * (the input's rank is known): once the indices' rank is, the output's is
 * too. A rank past the limit is reported once the shapes are known. */
static vknn_status check_known_gather_output(const vknn_graph *graph, const vknn_operation *op, uint32_t axis) {
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  const vknn_tensor *indices = &graph->tensors[op->inputs[2]];
  uint32_t dims[VKNN_MAX_RANK];
  if ((indices->rank == 0 && !indices->shape_known) || in->rank + indices->rank - 1 > VKNN_MAX_RANK)
    return VKNN_STATUS_NONE;
  uint32_t rank = gathered_shape(in, indices, axis, dims);
  return vknn_op_check_known_output(graph, op, dims, rank);
}

/* A constant axis and constant indices are checked against the rank and
 * the dimensions the model gives, and the declared output against the
 * dimensions they give, before the shapes are required: a model leaving
 * them to an execution still has them checked at prepare. */
static vknn_status infer_gather(vknn_graph *graph, const vknn_operation *op) {
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  bool early = in->rank != 0 && graph->tensors[op->inputs[1]].constant_data != NULL;
  uint32_t axis;
  vknn_status s = early ? check_axis_and_indices(graph, op, &axis) : VKNN_STATUS_NONE;
  if (s == VKNN_STATUS_NONE && early) s = check_known_gather_output(graph, op, axis);
  if (s == VKNN_STATUS_NONE) s = vknn_op_require_input_shape(graph, op, 0);
  if (s == VKNN_STATUS_NONE) s = vknn_op_require_input_shape(graph, op, 2);
  if (s == VKNN_STATUS_NONE && !early) s = check_axis_and_indices(graph, op, &axis);
  if (s == VKNN_STATUS_NONE) s = vknn_op_check_same_encoding(graph, op, 0);
  if (s != VKNN_STATUS_NONE) return s;
  const vknn_tensor *indices = &graph->tensors[op->inputs[2]];
  uint32_t rank = in->rank + indices->rank - 1, dims[VKNN_MAX_RANK];
  if (rank > VKNN_MAX_RANK) {
    VKNN_LOG_E(graph->log, "compilation", "GATHER: output rank %u is too large", rank);
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  gathered_shape(in, indices, axis, dims);
  return vknn_op_set_output_shape(graph, op, 0, dims, rank);
}

/* Input viewed as [outer, axis, inner]; the output as [outer, index_count, inner]. */
typedef struct gather_params {
  uint32_t outer, axis, inner, index_count;
  uint32_t check_code; /* graph/runtime_check.h: an index out of range */
} gather_params;
VKNN_PUSH_LAYOUT(gather, gather_params);

/* One dispatch: out[o, i, r] = values[o, indices[i], r]. */
static vknn_status add_gather_dispatch(vknn_graph *graph, const vknn_operation *op, uint32_t values,
                                       uint32_t indices, gather_params p,
                                       vknn_dispatch_list *out_list) {
  static const vknn_shader_id by_size[] = {VKNN_SHADER_GATHER_B8, VKNN_SHADER_GATHER_B16,
                                           VKNN_SHADER_GATHER_B32, VKNN_SHADER_GATHER_B32};
  const vknn_tensor *index_tensor = &graph->tensors[indices];
  p.index_count = (uint32_t)vknn_shape_element_count(index_tensor->dims, index_tensor->rank);
  p.check_code = vknn_graph_check_code(graph, op);
  vknn_dispatch *d = vknn_dispatch_list_add(out_list);
  if (d == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  d->shader = by_size[vknn_operand_type_element_size(graph->tensors[values].type) / 2];
  vknn_dispatch_bind(d, values, VKNN_ACCESS_READ);
  vknn_dispatch_bind(d, indices, VKNN_ACCESS_READ);
  vknn_dispatch_bind(d, op->outputs[0], VKNN_ACCESS_WRITE);
  memcpy(d->push, &p, sizeof(p));
  d->push_size = sizeof(p);
  d->invocations = (uint64_t)p.outer * p.inner * p.index_count;
  return VKNN_STATUS_NONE;
}

static vknn_status lower_gather(vknn_graph *graph, const vknn_operation *op,
                                vknn_dispatch_list *out_list) {
  uint32_t axis;
  vknn_status s = read_axis(graph, op, &axis);
  if (s != VKNN_STATUS_NONE) return s;
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  gather_params p = {1, in->dims[axis], 1, 0, 0};
  for (uint32_t d = 0; d < axis; ++d) p.outer *= in->dims[d];
  for (uint32_t d = axis + 1; d < in->rank; ++d) p.inner *= in->dims[d];
  return add_gather_dispatch(graph, op, op->inputs[0], op->inputs[2], p, out_list);
}

const vknn_op_def vknn_op_gather = {VKNN_OPERATION_GATHER, false, validate_gather, infer_gather,
                                    lower_gather};

/* EMBEDDING_LOOKUP: lookups (1-D TENSOR_INT32) select rows of values (rank
 * 2 or more: float32, float16, int32, quant8 asymm or signed); the output
 * keeps the values' type and encoding. */
static vknn_status validate_embedding_lookup(const vknn_logger *log, const vknn_model *model,
                                             const vknn_subgraph *sg, const vknn_operation *op) {
  (void)model;
  if (!vknn_op_check_counts(log, sg, op, 2, 2, 1)) return VKNN_STATUS_INVALID_ARGUMENT;
  const vknn_operand *lookups = &sg->operands[op->inputs[0]];
  const vknn_operand *values = &sg->operands[op->inputs[1]];
  const vknn_operand *out = &sg->operands[op->outputs[0]];
  bool ok = vknn_op_check_type(log, op, "lookups", lookups, VKNN_OPERAND_TENSOR_INT32) &&
            vknn_op_check_rank(log, op, "lookups", lookups, 1);
  if (ok && !(vknn_variant_of(values->type) >= 0 || values->type == VKNN_OPERAND_TENSOR_INT32)) {
    VKNN_LOG_E(log, "model", "EMBEDDING_LOOKUP: values of type %s are not allowed",
               vknn_operand_type_name(values->type));
    ok = false;
  }
  ok = ok && vknn_op_check_table(log, op, values, out);
  return ok ? VKNN_STATUS_NONE : VKNN_STATUS_INVALID_ARGUMENT;
}

/* Output: the values' shape with its first dimension the lookup count,
 * checked against the declared output as far as it is known before the
 * operation waits for the shapes an execution gives. */
static vknn_status infer_embedding_lookup(vknn_graph *graph, const vknn_operation *op) {
  const vknn_tensor *lookups = &graph->tensors[op->inputs[0]];
  const vknn_tensor *values = &graph->tensors[op->inputs[1]];
  uint32_t dims[VKNN_MAX_RANK], rank = vknn_op_lookup_shape(lookups, values, dims);
  vknn_status s = vknn_op_check_known_output(graph, op, dims, rank);
  if (s == VKNN_STATUS_NONE) s = vknn_op_require_input_shape(graph, op, 0);
  if (s == VKNN_STATUS_NONE) s = vknn_op_require_input_shape(graph, op, 1);
  if (s != VKNN_STATUS_NONE) return s;
  if (lookups->rank != 1 || values->rank < 2) {
    VKNN_LOG_E(graph->log, "model", "EMBEDDING_LOOKUP: lookups of rank %u and values of rank %u "
               "(1 and 2 or more expected)", lookups->rank, values->rank);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  s = check_constant_indices(graph, op, op->inputs[0], values->dims[0]);
  if (s != VKNN_STATUS_NONE) return s;
  rank = vknn_op_lookup_shape(lookups, values, dims);
  return vknn_op_set_output_shape(graph, op, 0, dims, rank);
}

/* GATHER along axis 0 of the values, indices out of range reported by the
 * kernel (the reference fails the execution). */
static vknn_status lower_embedding_lookup(vknn_graph *graph, const vknn_operation *op,
                                          vknn_dispatch_list *out_list) {
  const vknn_tensor *values = &graph->tensors[op->inputs[1]];
  gather_params p = {1, values->dims[0], 1, 0, 0};
  for (uint32_t d = 1; d < values->rank; ++d) p.inner *= values->dims[d];
  return add_gather_dispatch(graph, op, op->inputs[1], op->inputs[0], p, out_list);
}

const vknn_op_def vknn_op_embedding_lookup = {VKNN_OPERATION_EMBEDDING_LOOKUP, false,
                                              validate_embedding_lookup, infer_embedding_lookup,
                                              lower_embedding_lookup};
