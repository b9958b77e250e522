/* BATCH_TO_SPACE_ND and SPACE_TO_BATCH_ND: spatial blocks moved to and from
 * the batch dimension (block index outermost, as TensorFlow orders it),
 * NHWC or NCHW; SPACE_TO_BATCH_ND pads first. Kernel: shaders/remap.comp. */
#include "ops/remap.h"

static vknn_status validate_batch_space(const vknn_logger *log, const vknn_model *model,
                                        const vknn_subgraph *sg, const vknn_operation *op) {
  (void)model;
  bool to_batch = op->type == VKNN_OPERATION_SPACE_TO_BATCH_ND;
  uint32_t layout = to_batch ? 3 : 2;
  bool ok = vknn_op_check_counts(log, sg, op, layout, layout + 1, 1) &&
            vknn_op_check_data_types(log, sg, op, 4, false) &&
            vknn_op_check_rank(log, op, "input", &sg->operands[op->inputs[0]], 4);
  for (uint32_t i = 1; ok && i < op->input_count; ++i)
    ok = vknn_op_check_type(log, op, "a parameter", &sg->operands[op->inputs[i]],
                            i == layout ? VKNN_OPERAND_BOOL : VKNN_OPERAND_TENSOR_INT32);
  ok = ok && vknn_op_check_rank(log, op, "block_shape", &sg->operands[op->inputs[1]], 1) &&
       (!to_batch || vknn_op_check_rank(log, op, "paddings", &sg->operands[op->inputs[2]], 2)) &&
       vknn_op_check_same_quant(log, sg, op, 0);
  return ok ? VKNN_STATUS_NONE : VKNN_STATUS_INVALID_ARGUMENT;
}

static uint32_t layout_input(const vknn_operation *op) {
  return op->type == VKNN_OPERATION_SPACE_TO_BATCH_ND ? 3 : 2;
}

/* block_shape is [2] and SPACE_TO_BATCH_ND's paddings [2, 2]: the two
 * spatial dimensions (checked once the shapes are known). */
static vknn_status check_param_shapes(vknn_graph *graph, const vknn_operation *op) {
  const vknn_tensor *block = &graph->tensors[op->inputs[1]];
  bool block_ok = !block->shape_known || (block->rank == 1 && block->dims[0] == 2);
  bool paddings_ok = true;
  if (op->type == VKNN_OPERATION_SPACE_TO_BATCH_ND) {
    const vknn_tensor *paddings = &graph->tensors[op->inputs[2]];
    paddings_ok = !paddings->shape_known ||
                  (paddings->rank == 2 && paddings->dims[0] == 2 && paddings->dims[1] == 2);
  }
  if (block_ok && paddings_ok) return VKNN_STATUS_NONE;
  VKNN_LOG_E(graph->log, "model", "%s: block_shape must be [2] and paddings [2, 2]",
             vknn_operation_type_name(op->type));
  return VKNN_STATUS_INVALID_ARGUMENT;
}

static bool params_constant(const vknn_graph *graph, const vknn_operation *op) {
  for (uint32_t i = 1; i < layout_input(op); ++i)
    if (graph->tensors[op->inputs[i]].constant_data == NULL) return false;
  return true;
}

/* Block and paddings known only at run time. The view is laid out as for
 * constants, with the block dimensions as placeholders whose product is right
 * (the whole block on the first one); the GPU writes the real values. */
static vknn_status build_dynamic(vknn_graph *graph, const vknn_operation *op, vknn_remap *r,
                                 uint32_t *dims, uint32_t *rank) {
  bool to_batch = op->type == VKNN_OPERATION_SPACE_TO_BATCH_ND, nchw = false;
  uint32_t layout = layout_input(op);
  vknn_status s = check_param_shapes(graph, op);
  if (s != VKNN_STATUS_NONE) return s;
  if (op->input_count > layout && !vknn_graph_const_bool(graph, op->inputs[layout], &nchw))
    return VKNN_STATUS_GENERAL_FAILURE;
  if (!vknn_remap_param_ok(graph, op, 1, 2) || (to_batch && !vknn_remap_param_ok(graph, op, 2, 4)))
    return VKNN_STATUS_GENERAL_FAILURE;
  s = vknn_op_check_known_rank(graph, op, 0, 4, 4);
  if (s == VKNN_STATUS_NONE) s = vknn_remap_declared_output(graph, op, 0, dims, rank);
  if (s != VKNN_STATUS_NONE) return s;
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  vknn_image_shape shape = vknn_image_shape_of(in, nchw);
  vknn_image_shape out = vknn_image_shape_of(&graph->tensors[op->outputs[0]], nchw);
  /* The copy moves the input's depth: the declared output must have it, or
   * the kernel would write past an output of fewer channels. */
  if (*rank != 4 || out.channels != shape.channels) {
    VKNN_LOG_E(graph->log, "model", "%s: the output must be of rank 4 with the input's %u channels",
               vknn_operation_type_name(op->type), shape.channels);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  vknn_image_axes a = vknn_image_axes_of(nchw);
  uint32_t small = to_batch ? shape.batches : out.batches, large = to_batch ? out.batches : shape.batches;
  if (small == 0 || large % small != 0) {
    VKNN_LOG_E(graph->log, "model", "%s: batches %u into %u: not a whole block", vknn_operation_type_name(op->type),
               shape.batches, out.batches);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  /* BATCH_TO_SPACE_ND: the declared output must hold the input's pixels,
   * spread over the block (area = large / small), whatever the block. */
  if (!to_batch && (uint64_t)out.height * out.width != (uint64_t)shape.height * shape.width * (large / small)) {
    VKNN_LOG_E(graph->log, "model",
               "BATCH_TO_SPACE_ND: an output of %u x %u cannot hold %u images of %u x %u each",
               out.height, out.width, large / small, shape.height, shape.width);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  vknn_remap_set_axes(r, in);
  vknn_remap_params_push *push = &r->dynamic.push;
  push->h_axis = (int32_t)a.h;
  push->w_axis = (int32_t)a.w;
  if (to_batch) { /* view [bh, bw, N, (C,) OH, OW, (C)] */
    vknn_remap_add_view(r, large / small, a.h, 1);
    vknn_remap_add_view(r, 1, a.w, 1);
    vknn_remap_add_view(r, shape.batches, a.n, 1);
    if (nchw) vknn_remap_add_view(r, shape.channels, a.c, 1);
    push->h_view = (int32_t)r->view_rank;
    vknn_remap_add_view(r, out.height, a.h, 1);
    push->w_view = (int32_t)r->view_rank;
    vknn_remap_add_view(r, out.width, a.w, 1);
    if (!nchw) vknn_remap_add_view(r, shape.channels, a.c, 1);
    push->block_h_view = 0;
    push->block_w_view = 1;
  } else { /* view [N, (C,) H, bh, W, bw, (C)] */
    vknn_remap_add_view(r, out.batches, a.n, 1);
    if (nchw) vknn_remap_add_view(r, shape.channels, a.c, 1);
    vknn_remap_add_view(r, shape.height, a.h, 1);
    push->block_h_view = (int32_t)r->view_rank;
    vknn_remap_add_view(r, large / small, a.n, 1);
    vknn_remap_add_view(r, shape.width, a.w, 1);
    push->block_w_view = (int32_t)r->view_rank;
    vknn_remap_add_view(r, 1, a.n, 1);
    if (!nchw) vknn_remap_add_view(r, shape.channels, a.c, 1);
  }
  push->batches = (int32_t)out.batches;
  push->out_height = (int32_t)out.height;
  push->out_width = (int32_t)out.width;
  r->pad_bits = vknn_zero_pad_bits(in);
  vknn_remap_set_dynamic(r, to_batch ? VKNN_REMAP_DYNAMIC_SPACE_TO_BATCH : VKNN_REMAP_DYNAMIC_BATCH_TO_SPACE,
                         op->inputs[1], to_batch ? op->inputs[2] : UINT32_MAX, UINT32_MAX);
  return VKNN_STATUS_NONE;
}

/* Shapes are computed in 64 bits: a result beyond 32 bits is an invalid
 * model, never a wrapped size that would let a kernel write past its output. */
static bool fits_u32(uint64_t value) { return value <= UINT32_MAX; }

/* Constant parameters: the block, pads = {top, bottom, left, right}, the
 * layout, and the input's image shape in that layout: all 0 while the model
 * leaves the rank unknown, each dimension 0 until it is known
 * (ops/known_dims.h). */
typedef struct block_params {
  uint32_t bh, bw;
  int32_t pads[4];
  bool nchw;
  const vknn_tensor *in;
  vknn_image_shape shape;
} block_params;

static vknn_status read_params(vknn_graph *graph, const vknn_operation *op, block_params *p) {
  int32_t block[2];
  int32_t *pads = p->pads;
  bool *nchw = &p->nchw;
  bool to_batch = op->type == VKNN_OPERATION_SPACE_TO_BATCH_ND;
  uint32_t layout = layout_input(op), nb = 0, np = 4;
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
  p->bh = (uint32_t)block[0];
  p->bw = (uint32_t)block[1];
  p->in = &graph->tensors[op->inputs[0]];
  return vknn_remap_image_shape(graph, op, p->nchw, &p->shape);
}

/* BATCH_TO_SPACE_ND: the batches hold whole blocks, and the image scaled by
 * the block stays within 32-bit dimensions. */
static vknn_status check_batch_to_space(const vknn_logger *log, const block_params *p) {
  uint64_t block_area = (uint64_t)p->bh * p->bw;
  if (p->shape.batches % block_area == 0 && fits_u32((uint64_t)p->shape.height * p->bh) &&
      fits_u32((uint64_t)p->shape.width * p->bw))
    return VKNN_STATUS_NONE;
  VKNN_LOG_E(log, "model", "BATCH_TO_SPACE_ND: batch %u not divisible by %ux%u", p->shape.batches, p->bh, p->bw);
  return VKNN_STATUS_INVALID_ARGUMENT;
}

/* SPACE_TO_BATCH_ND: the padded image (where its height and width are
 * known) holds whole blocks, and the output stays within 32-bit dimensions. */
static vknn_status check_space_to_batch(const vknn_logger *log, const block_params *p) {
  uint64_t ph = (uint64_t)p->shape.height + (uint64_t)p->pads[0] + (uint64_t)p->pads[1];
  uint64_t pw = (uint64_t)p->shape.width + (uint64_t)p->pads[2] + (uint64_t)p->pads[3];
  if (!fits_u32(ph) || !fits_u32(pw) || !fits_u32((uint64_t)p->shape.batches * p->bh * p->bw)) {
    VKNN_LOG_E(log, "model", "SPACE_TO_BATCH_ND: the output does not fit 32-bit dimensions");
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  if ((p->shape.height != 0 && ph % p->bh != 0) || (p->shape.width != 0 && pw % p->bw != 0)) {
    VKNN_LOG_E(log, "model", "SPACE_TO_BATCH_ND: padded %ux%u not divisible by %ux%u", (uint32_t)ph,
               (uint32_t)pw, p->bh, p->bw);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  return VKNN_STATUS_NONE;
}

/* The output's image shape with constant parameters, each dimension 0
 * while the input's it comes from is not known (ops/known_dims.h):
 * BATCH_TO_SPACE_ND's batches divided by the block and image scaled by it,
 * SPACE_TO_BATCH_ND's padded image divided and batches multiplied. The
 * parameters have passed their checks. */
static vknn_image_shape batch_to_space_shape(const block_params *p) {
  uint64_t block_area = (uint64_t)p->bh * p->bw; /* in 64 bits: a huge block must not wrap to 0 */
  return (vknn_image_shape){(uint32_t)(p->shape.batches / block_area), p->shape.height * p->bh,
                            p->shape.width * p->bw, p->shape.channels};
}
static uint32_t padded_blocks(uint32_t size, int32_t before, int32_t after, uint32_t block) {
  return size == 0 ? 0 : (size + (uint32_t)before + (uint32_t)after) / block;
}
static vknn_image_shape space_to_batch_shape(const block_params *p) {
  return (vknn_image_shape){p->shape.batches * p->bh * p->bw,
                            padded_blocks(p->shape.height, p->pads[0], p->pads[1], p->bh),
                            padded_blocks(p->shape.width, p->pads[2], p->pads[3], p->bw), p->shape.channels};
}

/* Constant parameters against the input's dimensions known so far, and the
 * output's shape as far as they decide it. */
static vknn_status check_batch_space(vknn_graph *graph, const vknn_operation *op, uint32_t *dims,
                                     uint32_t *rank) {
  block_params p;
  vknn_status s = check_param_shapes(graph, op);
  if (s == VKNN_STATUS_NONE) s = read_params(graph, op, &p);
  if (s != VKNN_STATUS_NONE) return s;
  bool to_batch = op->type == VKNN_OPERATION_SPACE_TO_BATCH_ND;
  s = to_batch ? check_space_to_batch(graph->log, &p) : check_batch_to_space(graph->log, &p);
  if (s != VKNN_STATUS_NONE) return s;
  vknn_image_dims(to_batch ? space_to_batch_shape(&p) : batch_to_space_shape(&p), p.nchw, dims);
  *rank = 4;
  return VKNN_STATUS_NONE;
}

/* The map and output of BATCH_TO_SPACE_ND with constant parameters. */
static void map_batch_to_space(const block_params *p, vknn_remap *r, uint32_t *dims) {
  vknn_image_shape out = batch_to_space_shape(p);
  uint32_t n = out.batches;
  vknn_image_axes a = vknn_image_axes_of(p->nchw);
  uint32_t h = a.h, w = a.w, c = a.c;
  vknn_remap_set_axes(r, p->in);
  vknn_remap_add_view(r, n, a.n, 1);
  if (p->nchw) vknn_remap_add_view(r, p->shape.channels, c, 1);
  vknn_remap_add_view(r, p->shape.height, h, 1);
  vknn_remap_add_view(r, p->bh, a.n, (int32_t)(p->bw * n));
  vknn_remap_add_view(r, p->shape.width, w, 1);
  vknn_remap_add_view(r, p->bw, a.n, (int32_t)n);
  if (!p->nchw) vknn_remap_add_view(r, p->shape.channels, c, 1);
  vknn_image_dims(out, p->nchw, dims);
}

/* The map and output of SPACE_TO_BATCH_ND with constant parameters. */
static void map_space_to_batch(const block_params *p, vknn_remap *r, uint32_t *dims) {
  vknn_image_shape out = space_to_batch_shape(p);
  vknn_image_axes a = vknn_image_axes_of(p->nchw);
  uint32_t h = a.h, w = a.w, c = a.c;
  vknn_remap_set_axes(r, p->in);
  r->axes[h].start = -p->pads[0];
  r->axes[w].start = -p->pads[2];
  r->pad_bits = vknn_zero_pad_bits(p->in);
  vknn_remap_add_view(r, p->bh, h, 1);
  vknn_remap_add_view(r, p->bw, w, 1);
  vknn_remap_add_view(r, p->shape.batches, a.n, 1);
  if (p->nchw) vknn_remap_add_view(r, p->shape.channels, c, 1);
  vknn_remap_add_view(r, out.height, h, (int32_t)p->bh);
  vknn_remap_add_view(r, out.width, w, (int32_t)p->bw);
  if (!p->nchw) vknn_remap_add_view(r, p->shape.channels, c, 1);
  vknn_image_dims(out, p->nchw, dims);
}

/* Constant parameters have passed check_batch_space. */
static vknn_status build_batch_space(vknn_graph *graph, const vknn_operation *op, uint32_t output,
                                     vknn_remap *r, uint32_t *dims, uint32_t *rank) {
  (void)output;
  if (!params_constant(graph, op)) return build_dynamic(graph, op, r, dims, rank);
  block_params p;
  vknn_status s = read_params(graph, op, &p);
  if (s != VKNN_STATUS_NONE) return s;
  if (op->type == VKNN_OPERATION_SPACE_TO_BATCH_ND) map_space_to_batch(&p, r, dims);
  else map_batch_to_space(&p, r, dims);
  *rank = 4;
  return VKNN_STATUS_NONE;
}

VKNN_REMAP_OP_DEF(batch_to_space_nd, BATCH_TO_SPACE_ND, validate_batch_space, check_batch_space,
                  build_batch_space);
VKNN_REMAP_OP_DEF(space_to_batch_nd, SPACE_TO_BATCH_ND, validate_batch_space, check_batch_space,
                  build_batch_space);
