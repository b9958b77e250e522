/* DEPTH_TO_SPACE and SPACE_TO_DEPTH: blocks of block x block pixels moved to
 * and from channels, NHWC or NCHW. Kernel: shaders/remap.comp. */
#include "ops/remap.h"

static vknn_status validate_space_depth(const vknn_logger *log, const vknn_model *model,
                                        const vknn_subgraph *sg, const vknn_operation *op) {
  (void)model;
  bool ok = vknn_op_check_counts(log, sg, op, 2, 3, 1) && vknn_op_check_data_types(log, sg, op, 4, false) &&
            vknn_op_check_rank(log, op, "input", &sg->operands[op->inputs[0]], 4) &&
            vknn_op_check_type(log, op, "block size", &sg->operands[op->inputs[1]], VKNN_OPERAND_INT32) &&
            (op->input_count < 3 ||
             vknn_op_check_type(log, op, "layout", &sg->operands[op->inputs[2]], VKNN_OPERAND_BOOL)) &&
            vknn_op_check_same_quant(log, sg, op, 0);
  return ok ? VKNN_STATUS_NONE : VKNN_STATUS_INVALID_ARGUMENT;
}

/* The block size, the layout, and the input's image shape in that layout:
 * all 0 while the model leaves the rank unknown, each dimension 0 until it
 * is known (ops/known_dims.h). */
typedef struct block_params {
  uint32_t b;
  bool nchw;
  const vknn_tensor *in;
  vknn_image_shape shape;
} block_params;

static vknn_status read_params(vknn_graph *graph, const vknn_operation *op, block_params *p) {
  int32_t b;
  p->nchw = false;
  if (!vknn_graph_const_i32_list(graph, op, 1, 1, &b) ||
      (op->input_count > 2 && !vknn_graph_const_bool(graph, op->inputs[2], &p->nchw)))
    return VKNN_STATUS_GENERAL_FAILURE;
  if (b < 1) {
    VKNN_LOG_E(graph->log, "model", "%s: block size %d", vknn_operation_type_name(op->type), b);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  p->b = (uint32_t)b;
  p->in = &graph->tensors[op->inputs[0]];
  return vknn_remap_image_shape(graph, op, p->nchw, &p->shape);
}

/* DEPTH_TO_SPACE: the depth holds whole blocks (b x b channels each), and
 * the image scaled by b stays within 32-bit dimensions. */
static vknn_status check_depth_to_space(const vknn_logger *log, const block_params *p) {
  uint64_t block_area = (uint64_t)p->b * p->b; /* in 64 bits: a huge block must not wrap */
  if (p->shape.channels % block_area == 0 && (uint64_t)p->shape.height * p->b <= UINT32_MAX &&
      (uint64_t)p->shape.width * p->b <= UINT32_MAX)
    return VKNN_STATUS_NONE;
  VKNN_LOG_E(log, "model", "DEPTH_TO_SPACE: %u channels, block %u", p->shape.channels, p->b);
  return VKNN_STATUS_INVALID_ARGUMENT;
}

/* SPACE_TO_DEPTH: the image holds whole blocks, and the depth scaled by
 * b x b stays within a 32-bit dimension. */
static vknn_status check_space_to_depth(const vknn_logger *log, const block_params *p) {
  if (p->shape.height % p->b == 0 && p->shape.width % p->b == 0 &&
      (uint64_t)p->shape.channels * p->b * p->b <= UINT32_MAX)
    return VKNN_STATUS_NONE;
  VKNN_LOG_E(log, "model", "SPACE_TO_DEPTH: %ux%u not divisible by block %u", p->shape.height, p->shape.width,
             p->b);
  return VKNN_STATUS_INVALID_ARGUMENT;
}

/* The output's image shape, each dimension 0 while the input's it comes
 * from is not known (ops/known_dims.h): DEPTH_TO_SPACE's image scaled by the
 * block and depth divided by its area, SPACE_TO_DEPTH's the other way. */
static vknn_image_shape depth_to_space_shape(const block_params *p) {
  uint64_t block_area = (uint64_t)p->b * p->b; /* in 64 bits: a huge block must not wrap to 0 */
  return (vknn_image_shape){p->shape.batches, p->shape.height * p->b, p->shape.width * p->b,
                            (uint32_t)(p->shape.channels / block_area)};
}
static vknn_image_shape space_to_depth_shape(const block_params *p) {
  return (vknn_image_shape){p->shape.batches, p->shape.height / p->b, p->shape.width / p->b,
                            p->shape.channels * p->b * p->b};
}

/* The parameters against the input's dimensions known so far, and the
 * output's shape as far as they decide it. */
static vknn_status check_space_depth(vknn_graph *graph, const vknn_operation *op, uint32_t *dims,
                                     uint32_t *rank) {
  block_params p;
  vknn_status s = read_params(graph, op, &p);
  if (s != VKNN_STATUS_NONE) return s;
  bool to_space = op->type == VKNN_OPERATION_DEPTH_TO_SPACE;
  s = to_space ? check_depth_to_space(graph->log, &p) : check_space_to_depth(graph->log, &p);
  if (s != VKNN_STATUS_NONE) return s;
  vknn_image_dims(to_space ? depth_to_space_shape(&p) : space_to_depth_shape(&p), p.nchw, dims);
  *rank = 4;
  return VKNN_STATUS_NONE;
}

/* The map and output of DEPTH_TO_SPACE. */
static void map_depth_to_space(const block_params *p, vknn_remap *r, uint32_t *dims) {
  vknn_image_axes a = vknn_image_axes_of(p->nchw);
  vknn_image_shape out = depth_to_space_shape(p);
  uint32_t c = out.channels, h = a.h, w = a.w, ch = a.c;
  vknn_remap_set_axes(r, p->in);
  vknn_remap_add_view(r, p->shape.batches, a.n, 1);
  if (p->nchw) vknn_remap_add_view(r, c, ch, 1);
  vknn_remap_add_view(r, p->shape.height, h, 1);
  vknn_remap_add_view(r, p->b, ch, (int32_t)(p->b * c));
  vknn_remap_add_view(r, p->shape.width, w, 1);
  vknn_remap_add_view(r, p->b, ch, (int32_t)c);
  if (!p->nchw) vknn_remap_add_view(r, c, ch, 1);
  vknn_image_dims(out, p->nchw, dims);
}

/* The map and output of SPACE_TO_DEPTH. */
static void map_space_to_depth(const block_params *p, vknn_remap *r, uint32_t *dims) {
  vknn_image_axes a = vknn_image_axes_of(p->nchw);
  vknn_image_shape out = space_to_depth_shape(p);
  uint32_t h = a.h, w = a.w, ch = a.c, oh = out.height, ow = out.width;
  vknn_remap_set_axes(r, p->in);
  vknn_remap_add_view(r, p->shape.batches, a.n, 1);
  if (p->nchw) {
    vknn_remap_add_view(r, p->b, h, 1);
    vknn_remap_add_view(r, p->b, w, 1);
    vknn_remap_add_view(r, p->shape.channels, ch, 1);
    vknn_remap_add_view(r, oh, h, (int32_t)p->b);
    vknn_remap_add_view(r, ow, w, (int32_t)p->b);
  } else {
    vknn_remap_add_view(r, oh, h, (int32_t)p->b);
    vknn_remap_add_view(r, ow, w, (int32_t)p->b);
    vknn_remap_add_view(r, p->b, h, 1);
    vknn_remap_add_view(r, p->b, w, 1);
    vknn_remap_add_view(r, p->shape.channels, ch, 1);
  }
  vknn_image_dims(out, p->nchw, dims);
}

/* The parameters have passed check_space_depth. */
static vknn_status build_space_depth(vknn_graph *graph, const vknn_operation *op, uint32_t output,
                                     vknn_remap *r, uint32_t *dims, uint32_t *rank) {
  (void)output;
  block_params p;
  vknn_status s = read_params(graph, op, &p);
  if (s != VKNN_STATUS_NONE) return s;
  if (op->type == VKNN_OPERATION_DEPTH_TO_SPACE) map_depth_to_space(&p, r, dims);
  else map_space_to_depth(&p, r, dims);
  *rank = 4;
  return VKNN_STATUS_NONE;
}

VKNN_REMAP_OP_DEF(depth_to_space, DEPTH_TO_SPACE, validate_space_depth, check_space_depth, build_space_depth);
VKNN_REMAP_OP_DEF(space_to_depth, SPACE_TO_DEPTH, validate_space_depth, check_space_depth, build_space_depth);
