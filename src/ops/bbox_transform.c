/* AXIS_ALIGNED_BBOX_TRANSFORM: every box moved and scaled by per-class
 * deltas, clipped to the size of its batch's image. Kernel:
 * shaders/bbox_transform.comp, one invocation per (box, class). Inputs:
 * boxes [n, 4] (x1, y1, x2, y2), deltas [n, 4 * classes] (dx, dy, dw, dh),
 * batch indices [n], image sizes [batches, 2] (height, width); output [n, 4 *
 * classes]. Quantized: quant16 boxes, image sizes and output in 1/8 pixel,
 * quant8 (asymm or signed) deltas. Batch indices and empty boxes are checked
 * on the GPU, as the reference checks them. */
#include <string.h>

#include "ops/op_common.h"
#include "ops/known_dims.h"
#include "graph/runtime_check.h"
#include "model/operand_type.h"

static bool check_delta_type(const vknn_logger *log, const vknn_operand *boxes, const vknn_operand *deltas) {
  bool ok = boxes->type == VKNN_OPERAND_TENSOR_QUANT16_ASYMM ? vknn_is_quant8(deltas->type)
                                                             : deltas->type == boxes->type;
  if (!ok)
    VKNN_LOG_E(log, "model", "AXIS_ALIGNED_BBOX_TRANSFORM: deltas of type %s do not go with %s boxes",
               vknn_operand_type_name(deltas->type), vknn_operand_type_name(boxes->type));
  return ok;
}

static vknn_status validate_bbox(const vknn_logger *log, const vknn_model *model, const vknn_subgraph *sg,
                                 const vknn_operation *op) {
  (void)model;
  if (!vknn_op_check_counts(log, sg, op, 4, 4, 1)) return VKNN_STATUS_INVALID_ARGUMENT;
  const vknn_operand *o = sg->operands;
  const vknn_operand *boxes = &o[op->inputs[0]], *deltas = &o[op->inputs[1]];
  const vknn_operand *batches = &o[op->inputs[2]], *images = &o[op->inputs[3]], *out = &o[op->outputs[0]];
  if (boxes->type != VKNN_OPERAND_TENSOR_FLOAT32 && boxes->type != VKNN_OPERAND_TENSOR_FLOAT16 &&
      boxes->type != VKNN_OPERAND_TENSOR_QUANT16_ASYMM) {
    VKNN_LOG_E(log, "model", "AXIS_ALIGNED_BBOX_TRANSFORM: box type %s is not allowed",
               vknn_operand_type_name(boxes->type));
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  bool ok = check_delta_type(log, boxes, deltas) &&
            vknn_op_check_type(log, op, "the batch indices", batches, VKNN_OPERAND_TENSOR_INT32) &&
            vknn_op_check_type(log, op, "the image sizes", images, boxes->type) &&
            vknn_op_check_type(log, op, "the output", out, boxes->type) &&
            vknn_op_check_rank(log, op, "the boxes", boxes, 2) && vknn_op_check_rank(log, op, "the deltas", deltas, 2) &&
            vknn_op_check_rank(log, op, "the batch indices", batches, 1) &&
            vknn_op_check_rank(log, op, "the image sizes", images, 2) &&
            vknn_op_check_rank(log, op, "the output", out, 2) && vknn_op_check_box_quant16(log, op, "boxes", boxes) &&
            vknn_op_check_box_quant16(log, op, "image sizes", images) &&
            vknn_op_check_box_quant16(log, op, "output", out);
  return ok ? VKNN_STATUS_NONE : VKNN_STATUS_INVALID_ARGUMENT;
}

typedef struct bbox_geometry {
  uint32_t boxes, classes, batches;
} bbox_geometry;

/* The box count: the first dimension of the boxes, deltas or batch indices
 * the model gives first; 0 when none is known yet. */
static uint32_t known_boxes(const vknn_graph *graph, const vknn_operation *op) {
  for (uint32_t i = 0; i < 3; ++i) {
    uint32_t n = vknn_known_dim(&graph->tensors[op->inputs[i]], i == 2 ? 1 : 2, 0);
    if (n != 0) return n;
  }
  return 0;
}

/* Boxes [n, 4], deltas [n, 4 * classes], batch indices [n] and image sizes
 * [batches, 2], as far as the dimensions are known (ops/known_dims.h: 0 not
 * known yet); exact once the shapes are. */
static vknn_status check_shapes(vknn_graph *graph, const vknn_operation *op) {
  const vknn_tensor *t = graph->tensors;
  const vknn_tensor *deltas = &t[op->inputs[1]];
  uint32_t n = known_boxes(graph, op);
  if (vknn_dims_fit(&t[op->inputs[0]], 2, n, 4) && vknn_dims_fit(deltas, 2, n, 0) &&
      vknn_known_dim(deltas, 2, 1) % 4 == 0 && vknn_dims_fit(&t[op->inputs[2]], 1, n, 0) &&
      vknn_dims_fit(&t[op->inputs[3]], 2, 0, 2))
    return VKNN_STATUS_NONE;
  VKNN_LOG_E(graph->log, "model",
             "AXIS_ALIGNED_BBOX_TRANSFORM: shapes must be boxes [n, 4], deltas [n, 4 * classes], batch "
             "indices [n] and image sizes [batches, 2]");
  return VKNN_STATUS_INVALID_ARGUMENT;
}

/* The shapes known so far are checked before the operation waits for the
 * rest: a model whose shapes an execution gives still has them checked at
 * prepare. */
static vknn_status read_geometry(vknn_graph *graph, const vknn_operation *op, bbox_geometry *g) {
  vknn_status s = check_shapes(graph, op);
  if (s == VKNN_STATUS_NONE) s = vknn_op_require_input_shapes(graph, op, 4);
  if (s != VKNN_STATUS_NONE) return s;
  const vknn_tensor *t = graph->tensors;
  const vknn_tensor *boxes = &t[op->inputs[0]], *deltas = &t[op->inputs[1]], *images = &t[op->inputs[3]];
  g->boxes = boxes->dims[0];
  g->classes = deltas->dims[1] / 4;
  g->batches = images->dims[0];
  /* NNAPI allows no boxes (not supported here), but wants classes and images. */
  if (g->classes == 0 || g->batches == 0) {
    VKNN_LOG_E(graph->log, "model", "AXIS_ALIGNED_BBOX_TRANSFORM: %u classes and %u images: both must be positive",
               g->classes, g->batches);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  if (g->boxes == 0) {
    VKNN_LOG_E(graph->log, "compilation", "AXIS_ALIGNED_BBOX_TRANSFORM: zero boxes are not supported");
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  return VKNN_STATUS_NONE;
}

static vknn_status infer_bbox(vknn_graph *graph, const vknn_operation *op) {
  bbox_geometry g;
  vknn_status s = read_geometry(graph, op, &g);
  if (s != VKNN_STATUS_NONE) return s;
  const uint32_t dims[2] = {g.boxes, 4 * g.classes};
  return vknn_op_set_output_shape(graph, op, 0, dims, 2);
}

/* Push constants of bbox_transform.comp. */
typedef struct bbox_params {
  uint32_t boxes_count, classes, batches;
  float delta_scale;
  int32_t delta_zero;
  uint32_t check_code;
} bbox_params;
VKNN_PUSH_LAYOUT(bbox_transform, bbox_params);

static vknn_status lower_bbox(vknn_graph *graph, const vknn_operation *op, vknn_dispatch_list *out_list) {
  bbox_geometry g;
  vknn_status s = read_geometry(graph, op, &g);
  if (s != VKNN_STATUS_NONE) return s;
  const vknn_tensor *deltas = &graph->tensors[op->inputs[1]];
  bbox_params p = {g.boxes, g.classes, g.batches, deltas->scale, deltas->zero_point,
                   vknn_graph_check_code(graph, op)};
  /* By the deltas' type: float32, float16, quant8 and quant8 signed. */
  static const vknn_shader_id shaders[] = {VKNN_SHADER_BBOX_TRANSFORM_F32, VKNN_SHADER_BBOX_TRANSFORM_F16,
                                           VKNN_SHADER_BBOX_TRANSFORM_Q8, VKNN_SHADER_BBOX_TRANSFORM_Q8S};
  vknn_dispatch *d = vknn_dispatch_list_add(out_list);
  if (d == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  d->shader = shaders[vknn_variant_of(deltas->type)];
  for (uint32_t i = 0; i < 4; ++i) vknn_dispatch_bind(d, op->inputs[i], VKNN_ACCESS_READ);
  vknn_dispatch_bind(d, op->outputs[0], VKNN_ACCESS_WRITE);
  memcpy(d->push, &p, sizeof(p));
  d->push_size = sizeof(p);
  d->invocations = (uint64_t)g.boxes * g.classes;
  return VKNN_STATUS_NONE;
}

const vknn_op_def vknn_op_axis_aligned_bbox_transform = {VKNN_OPERATION_AXIS_ALIGNED_BBOX_TRANSFORM, false,
                                                         validate_bbox, infer_bbox, lower_bbox};
