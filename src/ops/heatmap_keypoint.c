/* HEATMAP_MAX_KEYPOINT: for every box and keypoint, the heatmap's maximum
 * refined by a quadratic fit, and its position mapped into the box. Kernel:
 * shaders/heatmap_keypoint.comp, a workgroup per (box, keypoint) reducing
 * the heatmap in shared memory. Inputs: heatmaps [boxes, size, size,
 * keypoints] (NCHW: [boxes, keypoints, size, size]), boxes [boxes, 4] and the
 * layout; outputs: scores [boxes, keypoints] and keypoints [boxes,
 * keypoints, 2]. Quantized heatmaps pair with quant16 boxes and keypoints
 * in 1/8 pixel. */
#include <string.h>

#include "ops/op_common.h"
#include "ops/known_dims.h"
#include "graph/runtime_check.h"
#include "model/operand_type.h"

#define HEATMAP_LANES 64u

static vknn_status validate_heatmap(const vknn_logger *log, const vknn_model *model, const vknn_subgraph *sg,
                                    const vknn_operation *op) {
  (void)model;
  if (!vknn_op_check_counts(log, sg, op, 3, 3, 2)) return VKNN_STATUS_INVALID_ARGUMENT;
  const vknn_operand *heat = &sg->operands[op->inputs[0]], *boxes = &sg->operands[op->inputs[1]];
  const vknn_operand *scores = &sg->operands[op->outputs[0]], *points = &sg->operands[op->outputs[1]];
  if (vknn_variant_of(heat->type) < 0) {
    VKNN_LOG_E(log, "model", "HEATMAP_MAX_KEYPOINT: input type %s is not allowed",
               vknn_operand_type_name(heat->type));
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  int32_t box_type = vknn_is_quant8(heat->type) ? VKNN_OPERAND_TENSOR_QUANT16_ASYMM : heat->type;
  bool ok = vknn_op_check_type(log, op, "the boxes", boxes, box_type) &&
            vknn_op_check_type(log, op, "the layout", &sg->operands[op->inputs[2]], VKNN_OPERAND_BOOL) &&
            vknn_op_check_type(log, op, "the scores (output 0)", scores, heat->type) &&
            vknn_op_check_type(log, op, "the keypoints (output 1)", points, box_type) &&
            vknn_op_check_rank(log, op, "the heatmaps", heat, 4) &&
            vknn_op_check_rank(log, op, "the boxes", boxes, 2) &&
            vknn_op_check_rank(log, op, "the scores", scores, 2) &&
            vknn_op_check_rank(log, op, "the keypoints", points, 3) &&
            vknn_op_check_box_quant16(log, op, "boxes", boxes) &&
            vknn_op_check_box_quant16(log, op, "keypoints", points);
  return ok ? VKNN_STATUS_NONE : VKNN_STATUS_INVALID_ARGUMENT;
}

typedef struct heatmap_geometry {
  uint32_t boxes, size, keypoints;
  bool nchw;
} heatmap_geometry;

/* The heatmaps square, at least 2x2, with one box [4] each, as far as the
 * dimensions are known (ops/known_dims.h: 0 not known yet); exact once the
 * shapes are. */
static vknn_status check_shapes(vknn_graph *graph, const vknn_operation *op, bool nchw) {
  const vknn_tensor *heat = &graph->tensors[op->inputs[0]], *boxes = &graph->tensors[op->inputs[1]];
  uint32_t h = vknn_known_dim(heat, 4, nchw ? 2 : 1), w = vknn_known_dim(heat, 4, nchw ? 3 : 2);
  if ((heat->rank != 0 && heat->rank != 4) || (boxes->rank != 0 && boxes->rank != 2)) {
    VKNN_LOG_E(graph->log, "model", "HEATMAP_MAX_KEYPOINT: the heatmaps must have rank 4, the boxes rank 2");
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  if (!vknn_dims_agree(h, w) || h == 1 || w == 1 ||
      !vknn_dims_fit(boxes, 2, vknn_known_dim(heat, 4, 0), 4)) {
    VKNN_LOG_E(graph->log, "model",
               "HEATMAP_MAX_KEYPOINT: the heatmaps must be square, at least 2x2, with one box [4] each");
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  return VKNN_STATUS_NONE;
}

/* The layout and the shapes known so far are checked before the operation
 * waits for the rest: a model whose shapes an execution gives still has them
 * checked at prepare. */
static vknn_status read_geometry(vknn_graph *graph, const vknn_operation *op, heatmap_geometry *g) {
  vknn_status s = vknn_op_require_constant_params(graph, op, 2, 1);
  if (s != VKNN_STATUS_NONE) return s;
  if (!vknn_graph_const_bool(graph, op->inputs[2], &g->nchw)) {
    VKNN_LOG_E(graph->log, "compilation", "HEATMAP_MAX_KEYPOINT: the layout must be a constant");
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  s = check_shapes(graph, op, g->nchw);
  if (s == VKNN_STATUS_NONE) s = vknn_op_require_input_shapes(graph, op, 2);
  if (s != VKNN_STATUS_NONE) return s;
  const vknn_tensor *heat = &graph->tensors[op->inputs[0]];
  g->boxes = heat->dims[0];
  g->size = heat->dims[2];
  g->keypoints = heat->dims[g->nchw ? 1 : 3];
  if (g->boxes == 0 || g->keypoints == 0) {
    VKNN_LOG_E(graph->log, "compilation", "HEATMAP_MAX_KEYPOINT: zero-sized tensors are not supported");
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  return VKNN_STATUS_NONE;
}

static vknn_status infer_heatmap(vknn_graph *graph, const vknn_operation *op) {
  heatmap_geometry g;
  vknn_status s = read_geometry(graph, op, &g);
  if (s != VKNN_STATUS_NONE) return s;
  const uint32_t score_dims[2] = {g.boxes, g.keypoints}, point_dims[3] = {g.boxes, g.keypoints, 2};
  s = vknn_op_set_output_shape(graph, op, 0, score_dims, 2);
  return s == VKNN_STATUS_NONE ? vknn_op_set_output_shape(graph, op, 1, point_dims, 3) : s;
}

/* Push constants of heatmap_keypoint.comp. */
typedef struct heatmap_params {
  uint32_t boxes_count, size, keypoints_count;
  float in_scale;
  int32_t in_zero;
  float score_scale;
  int32_t score_zero;
  float tolerance;
  uint32_t check_code;
} heatmap_params;
VKNN_PUSH_LAYOUT(heatmap_keypoint, heatmap_params);

static vknn_status lower_heatmap(vknn_graph *graph, const vknn_operation *op, vknn_dispatch_list *out_list) {
  heatmap_geometry g;
  vknn_status s = read_geometry(graph, op, &g);
  if (s != VKNN_STATUS_NONE) return s;
  const vknn_tensor *heat = &graph->tensors[op->inputs[0]], *scores = &graph->tensors[op->outputs[0]];
  /* The reference fits float16 heatmaps with a looser tolerance. */
  float tolerance = heat->type == VKNN_OPERAND_TENSOR_FLOAT16 ? 1e-3f : 1e-5f;
  heatmap_params p = {g.boxes, g.size, g.keypoints, heat->scale, heat->zero_point, scores->scale,
                      scores->zero_point, tolerance,
                      vknn_graph_check_code(graph, op)};
  static const vknn_shader_id shaders[] = {VKNN_SHADER_HEATMAP_KEYPOINT_F32, VKNN_SHADER_HEATMAP_KEYPOINT_F16,
                                           VKNN_SHADER_HEATMAP_KEYPOINT_Q8, VKNN_SHADER_HEATMAP_KEYPOINT_Q8S};
  vknn_dispatch *d = vknn_dispatch_list_add(out_list);
  if (d == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  d->shader = shaders[vknn_variant_of(heat->type)];
  d->spec[VKNN_SPEC_HEATMAP_KEYPOINT_NCHW] = g.nchw;
  d->spec_count = VKNN_SPEC_COUNT_HEATMAP_KEYPOINT;
  d->local_size = HEATMAP_LANES;
  vknn_dispatch_bind(d, op->inputs[0], VKNN_ACCESS_READ);
  vknn_dispatch_bind(d, op->inputs[1], VKNN_ACCESS_READ);
  vknn_dispatch_bind(d, op->outputs[0], VKNN_ACCESS_WRITE);
  vknn_dispatch_bind(d, op->outputs[1], VKNN_ACCESS_WRITE);
  memcpy(d->push, &p, sizeof(p));
  d->push_size = sizeof(p);
  d->invocations = (uint64_t)g.boxes * g.keypoints * HEATMAP_LANES;
  return VKNN_STATUS_NONE;
}

const vknn_op_def vknn_op_heatmap_max_keypoint = {VKNN_OPERATION_HEATMAP_MAX_KEYPOINT, false, validate_heatmap,
                                                  infer_heatmap, lower_heatmap};
