/* BATCH_TO_SPACE_ND and SPACE_TO_BATCH_ND: spatial blocks moved to and from
 * the batch dimension (block index outermost, as TensorFlow orders it),
 * NHWC or NCHW; SPACE_TO_BATCH_ND pads first. Kernel: shaders/remap.comp. */
#include "remap.h"

static vknn_status validate_batch_space(const vknn_logger *log, const vknn_model *model,
                                        const vknn_subgraph *sg, const vknn_operation *op) {
  (void)model;
  bool to_batch = op->type == VKNN_OPERATION_SPACE_TO_BATCH_ND;
  uint32_t layout = to_batch ? 3 : 2;
  bool ok = vknn_op_check_counts(log, op, layout, layout + 1, 1) &&
            vknn_op_check_data_types(log, sg, op, 4, false) &&
            vknn_op_check_rank(log, op, "input", &sg->operands[op->inputs[0]], 4);
  for (uint32_t i = 1; ok && i < op->input_count; ++i)
    ok = vknn_op_check_type(log, op, "a parameter", &sg->operands[op->inputs[i]],
                            i == layout ? VKNN_OPERAND_BOOL : VKNN_OPERAND_TENSOR_INT32);
  return ok ? VKNN_STATUS_NONE : VKNN_STATUS_INVALID_ARGUMENT;
}

/* block = {bh, bw}, pads = {top, bottom, left, right}. */
static vknn_status read_params(vknn_graph *graph, const vknn_operation *op, int32_t block[2],
                               int32_t pads[4], bool *nchw) {
  bool to_batch = op->type == VKNN_OPERATION_SPACE_TO_BATCH_ND;
  uint32_t layout = to_batch ? 3 : 2, nb = 0, np = 4;
  pads[0] = pads[1] = pads[2] = pads[3] = 0;
  *nchw = false;
  bool ok = vknn_graph_const_i32_tensor(graph, op->inputs[1], block, 2, &nb) &&
            (!to_batch || vknn_graph_const_i32_tensor(graph, op->inputs[2], pads, 4, &np)) &&
            (op->input_count <= layout || vknn_graph_const_bool(graph, op->inputs[layout], nchw));
  if (!ok) {
    VKNN_LOG_E(graph->log, "compilation", "%s: parameters must be constants",
               vknn_operation_type_name(op->type));
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  if (nb != 2 || np != 4 || block[0] < 1 || block[1] < 1 || pads[0] < 0 || pads[1] < 0 ||
      pads[2] < 0 || pads[3] < 0) {
    VKNN_LOG_E(graph->log, "model", "%s: invalid block or paddings", vknn_operation_type_name(op->type));
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  return VKNN_STATUS_NONE;
}

static vknn_status build_batch_to_space(vknn_graph *graph, const vknn_operation *op, uint32_t output,
                                        vknn_remap *r, uint32_t *dims, uint32_t *rank) {
  (void)output;
  int32_t block[2], pads[4];
  bool nchw;
  vknn_status s = read_params(graph, op, block, pads, &nchw);
  if (s != VKNN_STATUS_NONE) return s;
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  vknn_image_shape shape = vknn_image_shape_of(in, nchw);
  uint32_t bh = (uint32_t)block[0], bw = (uint32_t)block[1];
  if (shape.batches % (bh * bw) != 0) {
    VKNN_LOG_E(graph->log, "model", "BATCH_TO_SPACE_ND: batch %u not divisible by %ux%u",
               shape.batches, bh, bw);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  uint32_t n = shape.batches / (bh * bw);
  vknn_image_axes a = vknn_image_axes_of(nchw);
  uint32_t h = a.h, w = a.w, c = a.c;
  vknn_remap_set_axes(r, in);
  vknn_remap_add_view(r, n, a.n, 1);
  if (nchw) vknn_remap_add_view(r, shape.channels, c, 1);
  vknn_remap_add_view(r, shape.height, h, 1);
  vknn_remap_add_view(r, bh, a.n, (int32_t)(bw * n));
  vknn_remap_add_view(r, shape.width, w, 1);
  vknn_remap_add_view(r, bw, a.n, (int32_t)n);
  if (!nchw) vknn_remap_add_view(r, shape.channels, c, 1);
  vknn_image_dims((vknn_image_shape){n, shape.height * bh, shape.width * bw, shape.channels}, nchw, dims);
  *rank = 4;
  return VKNN_STATUS_NONE;
}

static vknn_status build_space_to_batch(vknn_graph *graph, const vknn_operation *op, uint32_t output,
                                        vknn_remap *r, uint32_t *dims, uint32_t *rank) {
  (void)output;
  int32_t block[2], pads[4];
  bool nchw;
  vknn_status s = read_params(graph, op, block, pads, &nchw);
  if (s != VKNN_STATUS_NONE) return s;
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  vknn_image_shape shape = vknn_image_shape_of(in, nchw);
  uint32_t bh = (uint32_t)block[0], bw = (uint32_t)block[1];
  uint32_t ph = shape.height + (uint32_t)pads[0] + (uint32_t)pads[1];
  uint32_t pw = shape.width + (uint32_t)pads[2] + (uint32_t)pads[3];
  if (ph % bh != 0 || pw % bw != 0) {
    VKNN_LOG_E(graph->log, "model", "SPACE_TO_BATCH_ND: padded %ux%u not divisible by %ux%u", ph, pw,
               bh, bw);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  vknn_image_axes a = vknn_image_axes_of(nchw);
  uint32_t h = a.h, w = a.w, c = a.c;
  vknn_remap_set_axes(r, in);
  r->axes[h].start = -pads[0];
  r->axes[w].start = -pads[2];
  r->pad_bits = vknn_zero_pad_bits(in);
  vknn_remap_add_view(r, bh, h, 1);
  vknn_remap_add_view(r, bw, w, 1);
  vknn_remap_add_view(r, shape.batches, a.n, 1);
  if (nchw) vknn_remap_add_view(r, shape.channels, c, 1);
  vknn_remap_add_view(r, ph / bh, h, (int32_t)bh);
  vknn_remap_add_view(r, pw / bw, w, (int32_t)bw);
  if (!nchw) vknn_remap_add_view(r, shape.channels, c, 1);
  vknn_image_dims((vknn_image_shape){shape.batches * bh * bw, ph / bh, pw / bw, shape.channels}, nchw, dims);
  *rank = 4;
  return VKNN_STATUS_NONE;
}

VKNN_REMAP_OP_DEF(batch_to_space_nd, BATCH_TO_SPACE_ND, validate_batch_space, build_batch_to_space);
VKNN_REMAP_OP_DEF(space_to_batch_nd, SPACE_TO_BATCH_ND, validate_batch_space, build_space_to_batch);
