/* DEPTH_TO_SPACE and SPACE_TO_DEPTH: blocks of block x block pixels moved to
 * and from channels, NHWC or NCHW. Kernel: shaders/remap.comp. */
#include "remap.h"

static vknn_status validate_space_depth(const vknn_logger *log, const vknn_model *model,
                                        const vknn_subgraph *sg, const vknn_operation *op) {
  (void)model;
  bool ok = vknn_op_check_counts(log, op, 2, 3, 1) && vknn_op_check_data_types(log, sg, op, 4, false) &&
            vknn_op_check_rank(log, op, "input", &sg->operands[op->inputs[0]], 4) &&
            vknn_op_check_type(log, op, "block size", &sg->operands[op->inputs[1]], VKNN_OPERAND_INT32) &&
            (op->input_count < 3 ||
             vknn_op_check_type(log, op, "layout", &sg->operands[op->inputs[2]], VKNN_OPERAND_BOOL));
  return ok ? VKNN_STATUS_NONE : VKNN_STATUS_INVALID_ARGUMENT;
}

static vknn_status read_params(vknn_graph *graph, const vknn_operation *op, uint32_t *block,
                               bool *nchw) {
  int32_t b;
  *nchw = false;
  if (!vknn_graph_const_i32_list(graph, op, 1, 1, &b) ||
      (op->input_count > 2 && !vknn_graph_const_bool(graph, op->inputs[2], nchw)))
    return VKNN_STATUS_GENERAL_FAILURE;
  if (b < 1) {
    VKNN_LOG_E(graph->log, "model", "%s: block size %d", vknn_operation_type_name(op->type), b);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  *block = (uint32_t)b;
  return VKNN_STATUS_NONE;
}

static vknn_status build_depth_to_space(vknn_graph *graph, const vknn_operation *op, uint32_t output,
                                        vknn_remap *r, uint32_t *dims, uint32_t *rank) {
  (void)output;
  uint32_t b;
  bool nchw;
  vknn_status s = read_params(graph, op, &b, &nchw);
  if (s != VKNN_STATUS_NONE) return s;
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  vknn_image_shape shape = vknn_image_shape_of(in, nchw);
  if (shape.channels % (b * b) != 0) {
    VKNN_LOG_E(graph->log, "model", "DEPTH_TO_SPACE: %u channels, block %u", shape.channels, b);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  vknn_image_axes a = vknn_image_axes_of(nchw);
  uint32_t c = shape.channels / (b * b), h = a.h, w = a.w, ch = a.c;
  vknn_remap_set_axes(r, in);
  vknn_remap_add_view(r, shape.batches, a.n, 1);
  if (nchw) vknn_remap_add_view(r, c, ch, 1);
  vknn_remap_add_view(r, shape.height, h, 1);
  vknn_remap_add_view(r, b, ch, (int32_t)(b * c));
  vknn_remap_add_view(r, shape.width, w, 1);
  vknn_remap_add_view(r, b, ch, (int32_t)c);
  if (!nchw) vknn_remap_add_view(r, c, ch, 1);
  vknn_image_dims((vknn_image_shape){shape.batches, shape.height * b, shape.width * b, c}, nchw, dims);
  *rank = 4;
  return VKNN_STATUS_NONE;
}

static vknn_status build_space_to_depth(vknn_graph *graph, const vknn_operation *op, uint32_t output,
                                        vknn_remap *r, uint32_t *dims, uint32_t *rank) {
  (void)output;
  uint32_t b;
  bool nchw;
  vknn_status s = read_params(graph, op, &b, &nchw);
  if (s != VKNN_STATUS_NONE) return s;
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  vknn_image_shape shape = vknn_image_shape_of(in, nchw);
  if (shape.height % b != 0 || shape.width % b != 0) {
    VKNN_LOG_E(graph->log, "model", "SPACE_TO_DEPTH: %ux%u not divisible by block %u", shape.height,
               shape.width, b);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  vknn_image_axes a = vknn_image_axes_of(nchw);
  uint32_t h = a.h, w = a.w, ch = a.c;
  uint32_t oh = shape.height / b, ow = shape.width / b;
  vknn_remap_set_axes(r, in);
  vknn_remap_add_view(r, shape.batches, a.n, 1);
  if (nchw) {
    vknn_remap_add_view(r, b, h, 1);
    vknn_remap_add_view(r, b, w, 1);
    vknn_remap_add_view(r, shape.channels, ch, 1);
    vknn_remap_add_view(r, oh, h, (int32_t)b);
    vknn_remap_add_view(r, ow, w, (int32_t)b);
  } else {
    vknn_remap_add_view(r, oh, h, (int32_t)b);
    vknn_remap_add_view(r, ow, w, (int32_t)b);
    vknn_remap_add_view(r, b, h, 1);
    vknn_remap_add_view(r, b, w, 1);
    vknn_remap_add_view(r, shape.channels, ch, 1);
  }
  vknn_image_dims((vknn_image_shape){shape.batches, oh, ow, shape.channels * b * b}, nchw, dims);
  *rank = 4;
  return VKNN_STATUS_NONE;
}

VKNN_REMAP_OP_DEF(depth_to_space, DEPTH_TO_SPACE, validate_space_depth, build_depth_to_space);
VKNN_REMAP_OP_DEF(space_to_depth, SPACE_TO_DEPTH, validate_space_depth, build_space_to_depth);
