/* CHANNEL_SHUFFLE: channels seen as [groups, k] are transposed to [k, groups]
 * along an axis. Kernel: shaders/remap.comp. */
#include <string.h>

#include "ops/remap.h"

static vknn_status validate_channel_shuffle(const vknn_logger *log, const vknn_model *model,
                                            const vknn_subgraph *sg, const vknn_operation *op) {
  (void)model;
  bool ok = vknn_op_check_counts(log, sg, op, 3, 3, 1) && vknn_op_check_data_types(log, sg, op, 4, false) &&
            vknn_op_check_type(log, op, "num_groups", &sg->operands[op->inputs[1]], VKNN_OPERAND_INT32) &&
            vknn_op_check_type(log, op, "axis", &sg->operands[op->inputs[2]], VKNN_OPERAND_INT32) &&
            vknn_op_check_same_quant(log, sg, op, 0);
  return ok ? VKNN_STATUS_NONE : VKNN_STATUS_INVALID_ARGUMENT;
}

/* num_groups cuts the axis into equal parts as far as the rank and the
 * axis's size are known; the output has the input's shape. */
static vknn_status check_channel_shuffle(vknn_graph *graph, const vknn_operation *op, uint32_t *dims,
                                         uint32_t *rank) {
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  int32_t params[2]; /* groups, axis */
  if (!vknn_graph_const_i32_list(graph, op, 1, 2, params)) return VKNN_STATUS_GENERAL_FAILURE;
  memcpy(dims, in->dims, in->rank * sizeof(uint32_t));
  *rank = in->rank;
  if (vknn_remap_axis_parts_fit(graph, op, params[1], params[0])) return VKNN_STATUS_NONE;
  VKNN_LOG_E(graph->log, "model", "CHANNEL_SHUFFLE: %d groups on axis %d do not fit", params[0], params[1]);
  return VKNN_STATUS_INVALID_ARGUMENT;
}

/* The parameters have passed check_channel_shuffle. */
static vknn_status build_channel_shuffle(vknn_graph *graph, const vknn_operation *op,
                                         uint32_t output, vknn_remap *r, uint32_t *dims,
                                         uint32_t *rank) {
  (void)output;
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  int32_t params[2]; /* groups, axis */
  if (!vknn_graph_const_i32_list(graph, op, 1, 2, params)) return VKNN_STATUS_GENERAL_FAILURE;
  int32_t axis = vknn_remap_axis(graph, op, params[1]);
  uint32_t groups = (uint32_t)params[0], k = in->dims[axis] / groups;
  vknn_remap_set_axes(r, in);
  for (uint32_t d = 0; d < in->rank; ++d) {
    dims[d] = in->dims[d];
    if ((int32_t)d != axis) {
      vknn_remap_add_view(r, in->dims[d], d, 1);
      continue;
    }
    vknn_remap_add_view(r, k, d, 1);
    vknn_remap_add_view(r, groups, d, (int32_t)k);
  }
  *rank = in->rank;
  return VKNN_STATUS_NONE;
}

VKNN_REMAP_OP_DEF(channel_shuffle, CHANNEL_SHUFFLE, validate_channel_shuffle, check_channel_shuffle,
                  build_channel_shuffle);
