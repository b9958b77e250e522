/* SPLIT: num_splits equal parts along an axis, one per output.
 * Kernel: shaders/remap.comp (one dispatch per output). */
#include "ops/remap.h"

static vknn_status validate_split(const vknn_logger *log, const vknn_model *model,
                                  const vknn_subgraph *sg, const vknn_operation *op) {
  (void)model;
  bool ok = vknn_op_check_counts(log, sg, op, 3, 3, op->output_count) && op->output_count >= 1 &&
            vknn_op_check_data_types(log, sg, op, VKNN_MAX_RANK, true) &&
            vknn_op_check_type(log, op, "axis", &sg->operands[op->inputs[1]], VKNN_OPERAND_INT32) &&
            vknn_op_check_type(log, op, "num_splits", &sg->operands[op->inputs[2]], VKNN_OPERAND_INT32);
  if (!ok) VKNN_LOG_E(log, "model", "SPLIT: takes an input, an axis and num_splits");
  ok = ok && vknn_op_check_outputs_same_quant(log, sg, op);
  return ok ? VKNN_STATUS_NONE : VKNN_STATUS_INVALID_ARGUMENT;
}

/* Every part: the input's shape with the axis divided (0 while its size is
 * not known, ops/known_dims.h). */
static void part_shape(const vknn_tensor *in, int32_t axis, int32_t parts, uint32_t *dims) {
  for (uint32_t d = 0; d < in->rank; ++d)
    dims[d] = (int32_t)d == axis ? in->dims[d] / (uint32_t)parts : in->dims[d];
}

/* num_splits is the output count, and cuts the axis into equal parts as far
 * as the rank and the axis's size are known. */
static vknn_status check_split(vknn_graph *graph, const vknn_operation *op, uint32_t *dims, uint32_t *rank) {
  int32_t params[2]; /* axis, num_splits */
  if (!vknn_graph_const_i32_list(graph, op, 1, 2, params)) return VKNN_STATUS_GENERAL_FAILURE;
  if (params[1] == (int32_t)op->output_count && vknn_remap_axis_parts_fit(graph, op, params[0], params[1])) {
    const vknn_tensor *in = &graph->tensors[op->inputs[0]];
    part_shape(in, vknn_remap_axis(graph, op, params[0]), params[1], dims);
    *rank = in->rank;
    return VKNN_STATUS_NONE;
  }
  VKNN_LOG_E(graph->log, "model", "SPLIT: axis %d and %d splits do not fit the input", params[0], params[1]);
  return VKNN_STATUS_INVALID_ARGUMENT;
}

/* The parameters have passed check_split. */
static vknn_status build_split(vknn_graph *graph, const vknn_operation *op, uint32_t output,
                               vknn_remap *r, uint32_t *dims, uint32_t *rank) {
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  int32_t params[2]; /* axis, num_splits */
  if (!vknn_graph_const_i32_list(graph, op, 1, 2, params)) return VKNN_STATUS_GENERAL_FAILURE;
  int32_t axis = vknn_remap_axis(graph, op, params[0]);
  part_shape(in, axis, params[1], dims);
  vknn_remap_set_axes(r, in);
  r->axes[axis].start = (int32_t)(dims[axis] * output);
  for (uint32_t d = 0; d < in->rank; ++d) vknn_remap_add_view(r, dims[d], d, 1);
  *rank = in->rank;
  return VKNN_STATUS_NONE;
}

VKNN_REMAP_OP_DEF(split, SPLIT, validate_split, check_split, build_split);
