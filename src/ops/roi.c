/* ROI_ALIGN and ROI_POOLING: a fixed-size feature map per region of
 * interest, by bilinear sampling (ALIGN) or by the maximum of each bin
 * (POOLING). Regions are [x1, y1, x2, y2] boxes in image coordinates, scaled
 * to the feature map by 1 / stride; a second tensor names each region's
 * batch. Kernels: shaders/roi_align.comp, shaders/roi_pooling.comp, one
 * invocation per output element. The boxes and batch indices are data: the
 * kernels check them on the GPU as the NNAPI reference does (a batch out of
 * range, a negative or inverted box, a box past the image) and report a
 * violation in the status word; nothing is read out of bounds. */
#include <string.h>

#include "ops/op_common.h"
#include "ops/known_dims.h"
#include "graph/runtime_check.h"
#include "model/operand_type.h"

enum {
  INPUT_FEATURES = 0,
  INPUT_ROIS = 1,
  INPUT_BATCHES = 2,
  INPUT_OUT_HEIGHT = 3,
  INPUT_HEIGHT_STRIDE = 5,
  INPUT_HEIGHT_SAMPLING = 7, /* ROI_ALIGN only */
};

#define ROI_LANES 64u

static bool is_align(const vknn_operation *op) { return op->type == VKNN_OPERATION_ROI_ALIGN; }
static uint32_t layout_input(const vknn_operation *op) { return is_align(op) ? 9 : 7; }

/* The boxes' type NNAPI pairs with a feature map type. */
static int32_t roi_type_for(int32_t type) {
  return vknn_is_quant8(type) ? VKNN_OPERAND_TENSOR_QUANT16_ASYMM : type;
}

/* Every parameter's type, by position after the three tensors. */
static bool check_parameter_types(const vknn_logger *log, const vknn_subgraph *sg,
                                  const vknn_operation *op, int32_t stride_type) {
  const vknn_operand *o = sg->operands;
  bool ok = vknn_op_check_type(log, op, "the output height", &o[op->inputs[3]], VKNN_OPERAND_INT32) &&
            vknn_op_check_type(log, op, "the output width", &o[op->inputs[4]], VKNN_OPERAND_INT32) &&
            vknn_op_check_type(log, op, "the height stride", &o[op->inputs[5]], stride_type) &&
            vknn_op_check_type(log, op, "the width stride", &o[op->inputs[6]], stride_type);
  if (ok && is_align(op))
    ok = vknn_op_check_type(log, op, "the height sampling ratio", &o[op->inputs[7]], VKNN_OPERAND_INT32) &&
         vknn_op_check_type(log, op, "the width sampling ratio", &o[op->inputs[8]], VKNN_OPERAND_INT32);
  return ok && vknn_op_check_type(log, op, "the layout", &o[op->inputs[layout_input(op)]], VKNN_OPERAND_BOOL);
}

static vknn_status validate_roi(const vknn_logger *log, const vknn_model *model, const vknn_subgraph *sg,
                                const vknn_operation *op) {
  (void)model;
  uint32_t inputs = is_align(op) ? 10 : 8;
  if (!vknn_op_check_counts(log, sg, op, inputs, inputs, 1)) return VKNN_STATUS_INVALID_ARGUMENT;
  const vknn_operand *in = &sg->operands[op->inputs[INPUT_FEATURES]];
  const vknn_operand *rois = &sg->operands[op->inputs[INPUT_ROIS]];
  const vknn_operand *out = &sg->operands[op->outputs[0]];
  if (vknn_variant_of(in->type) < 0) {
    VKNN_LOG_E(log, "model", "%s: input type %s is not allowed", vknn_operation_type_name(op->type),
               vknn_operand_type_name(in->type));
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  int32_t stride_type = in->type == VKNN_OPERAND_TENSOR_FLOAT16 ? VKNN_OPERAND_FLOAT16 : VKNN_OPERAND_FLOAT32;
  bool ok = vknn_op_check_type(log, op, "the boxes", rois, roi_type_for(in->type)) &&
            vknn_op_check_type(log, op, "the batch indices", &sg->operands[op->inputs[INPUT_BATCHES]],
                               VKNN_OPERAND_TENSOR_INT32) &&
            check_parameter_types(log, sg, op, stride_type) &&
            vknn_op_check_type(log, op, "the output", out, in->type) &&
            vknn_op_check_rank(log, op, "input", in, 4) && vknn_op_check_rank(log, op, "the boxes", rois, 2) &&
            vknn_op_check_rank(log, op, "the batch indices", &sg->operands[op->inputs[INPUT_BATCHES]], 1) &&
            vknn_op_check_rank(log, op, "output", out, 4) && vknn_op_check_box_quant16(log, op, "boxes", rois);
  /* ROI_POOLING keeps the input's encoding; ROI_ALIGN's output may differ. */
  if (ok && !is_align(op)) ok = vknn_op_check_same_quant(log, sg, op, 0);
  return ok ? VKNN_STATUS_NONE : VKNN_STATUS_INVALID_ARGUMENT;
}

typedef struct roi_geometry {
  vknn_image_shape in, out; /* out.batches: the number of regions */
  bool nchw;
  float stride_h, stride_w;
  int32_t sampling_h, sampling_w;
} roi_geometry;

/* The parameters, read and checked before the shapes: a model whose shapes
 * wait for an execution still has them checked at prepare (given as model
 * inputs, they are compiled per execution with their values). */
static vknn_status read_parameters(vknn_graph *graph, const vknn_operation *op, roi_geometry *g) {
  const char *name = vknn_operation_type_name(op->type);
  int32_t size[2] = {0, 0}, sampling[2] = {0, 0};
  vknn_status s =
      vknn_op_require_constant_params(graph, op, INPUT_OUT_HEIGHT, op->input_count - INPUT_OUT_HEIGHT);
  if (s != VKNN_STATUS_NONE) return s;
  if (!vknn_graph_const_i32_list(graph, op, INPUT_OUT_HEIGHT, 2, size) ||
      (is_align(op) && !vknn_graph_const_i32_list(graph, op, INPUT_HEIGHT_SAMPLING, 2, sampling)))
    return VKNN_STATUS_GENERAL_FAILURE;
  if (!vknn_graph_const_float(graph, op->inputs[INPUT_HEIGHT_STRIDE], &g->stride_h) ||
      !vknn_graph_const_float(graph, op->inputs[INPUT_HEIGHT_STRIDE + 1], &g->stride_w) ||
      !vknn_graph_const_bool(graph, op->inputs[layout_input(op)], &g->nchw)) {
    VKNN_LOG_E(graph->log, "compilation", "%s: the strides and the layout must be constants", name);
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  if (size[0] <= 0 || size[1] <= 0 || !(g->stride_h > 0.f) || !(g->stride_w > 0.f) || sampling[0] < 0 ||
      sampling[1] < 0) {
    VKNN_LOG_E(graph->log, "model",
               "%s: the output size (%d x %d) and strides (%g, %g) must be positive, the sampling "
               "ratios (%d, %d) not negative",
               name, size[0], size[1], g->stride_h, g->stride_w, sampling[0], sampling[1]);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  g->out.height = (uint32_t)size[0];
  g->out.width = (uint32_t)size[1];
  g->sampling_h = sampling[0];
  g->sampling_w = sampling[1];
  return VKNN_STATUS_NONE;
}

/* The boxes [regions, 4] and the batch indices [regions], as far as their
 * dimensions are known (ops/known_dims.h): exact once the shapes are. */
static vknn_status check_boxes(vknn_graph *graph, const vknn_operation *op) {
  const vknn_tensor *rois = &graph->tensors[op->inputs[INPUT_ROIS]];
  const vknn_tensor *batches = &graph->tensors[op->inputs[INPUT_BATCHES]];
  if (vknn_dims_fit(rois, 2, 0, 4) && vknn_dims_fit(batches, 1, vknn_known_dim(rois, 2, 0), 0))
    return VKNN_STATUS_NONE;
  VKNN_LOG_E(graph->log, "model", "%s: the boxes must be [regions, 4] and the batch indices [regions]",
             vknn_operation_type_name(op->type));
  return VKNN_STATUS_INVALID_ARGUMENT;
}

static vknn_status check_shapes(vknn_graph *graph, const vknn_operation *op, const roi_geometry *g) {
  const char *name = vknn_operation_type_name(op->type);
  if (g->in.batches == 0 || g->in.height == 0 || g->in.width == 0 || g->in.channels == 0) {
    VKNN_LOG_E(graph->log, "model", "%s: the input's dimensions must be positive", name);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  if (g->out.batches == 0) {
    VKNN_LOG_E(graph->log, "compilation", "%s: no regions: zero-sized tensors are not supported", name);
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  return VKNN_STATUS_NONE;
}

static vknn_status read_geometry(vknn_graph *graph, const vknn_operation *op, roi_geometry *g) {
  vknn_status s = read_parameters(graph, op, g);
  if (s == VKNN_STATUS_NONE) s = check_boxes(graph, op);
  if (s == VKNN_STATUS_NONE) s = vknn_op_require_input_shapes(graph, op, INPUT_BATCHES + 1);
  if (s != VKNN_STATUS_NONE) return s;
  const vknn_tensor *in = &graph->tensors[op->inputs[INPUT_FEATURES]];
  if (in->rank != 4) {
    VKNN_LOG_E(graph->log, "model", "%s: input must have rank 4, not %u", vknn_operation_type_name(op->type),
               in->rank);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  g->in = vknn_image_shape_of(in, g->nchw);
  g->out.batches = graph->tensors[op->inputs[INPUT_ROIS]].dims[0];
  g->out.channels = g->in.channels;
  return check_shapes(graph, op, g);
}

static vknn_status infer_roi(vknn_graph *graph, const vknn_operation *op) {
  roi_geometry g;
  vknn_status s = read_geometry(graph, op, &g);
  if (s != VKNN_STATUS_NONE) return s;
  return vknn_op_set_image_output(graph, op, g.out, g.nchw);
}

/* Push constants of roi_align.comp and roi_pooling.comp (the same block). */
typedef struct roi_params {
  uint32_t batches, in_h, in_w, channels, out_h, out_w, regions;
  int32_t sampling_h, sampling_w;
  float scale_h, scale_w; /* 1 / stride, divided on the host as the reference does */
  int32_t in_zero, out_zero;
  float multiplier; /* quantized ROI_ALIGN: in_scale / 255 / out_scale */
  uint32_t check_code;
} roi_params;
VKNN_PUSH_LAYOUT(roi_align, roi_params);
VKNN_PUSH_LAYOUT(roi_pooling, roi_params);

/* float32 -> float16 -> float32, round to nearest even: a float16 model's
 * scales are float16 values in the reference. */
static float round_to_half(float v) {
  uint32_t bits;
  memcpy(&bits, &v, sizeof(bits));
  uint32_t exponent = (bits >> 23) & 0xffu;
  if (exponent < 103 || exponent > 142) return v; /* below half's subnormals, or too large */
  uint32_t drop = exponent >= 113 ? 13 : 13 + (113 - exponent);
  uint32_t half_ulp = 1u << (drop - 1), mask = (1u << drop) - 1u;
  uint32_t rest = bits & mask;
  bits &= ~mask;
  if (rest > half_ulp || (rest == half_ulp && (bits >> drop) & 1u)) bits += mask + 1u;
  memcpy(&v, &bits, sizeof(v));
  return v;
}

static roi_params params_of(const vknn_graph *graph, const vknn_operation *op, const roi_geometry *g) {
  const vknn_tensor *in = &graph->tensors[op->inputs[INPUT_FEATURES]];
  const vknn_tensor *out = &graph->tensors[op->outputs[0]];
  volatile float scale_h = 1.0f / g->stride_h, scale_w = 1.0f / g->stride_w;
  roi_params p = {g->in.batches, g->in.height, g->in.width, g->in.channels, g->out.height, g->out.width,
                  g->out.batches, g->sampling_h, g->sampling_w, scale_h, scale_w, in->zero_point,
                  out->zero_point, 0.f,
                  vknn_graph_check_code(graph, op)};
  if (in->type == VKNN_OPERAND_TENSOR_FLOAT16) {
    p.scale_h = round_to_half(p.scale_h);
    p.scale_w = round_to_half(p.scale_w);
  }
  if (vknn_is_quant8(in->type)) {
    /* The reference's single-precision product, in its order. */
    volatile float ratio = in->scale * (1.0f / 255.0f);
    ratio = ratio / out->scale;
    p.multiplier = ratio;
  }
  return p;
}

/* The most pixels one bin can span along an axis: the kernels reject a box
 * reaching past the feature map, so a bin covers at most (size + 1) / bins
 * pixels (ROI_POOLING's corners are inclusive), one more where it straddles
 * pixel edges; ROI_ALIGN's adaptive sample count is no larger. */
static uint64_t bin_extent(uint32_t size, uint32_t bins) { return ((uint64_t)size + bins) / bins + 1; }

/* Loop iterations of one invocation at most: the bin's rows, each a loop
 * over its columns (ROI_ALIGN's samples: the sampling ratio where given). */
static uint64_t roi_iterations(const vknn_operation *op, const roi_geometry *g) {
  uint64_t rows = bin_extent(g->in.height, g->out.height), cols = bin_extent(g->in.width, g->out.width);
  if (is_align(op) && g->sampling_h > 0) rows = (uint64_t)g->sampling_h;
  if (is_align(op) && g->sampling_w > 0) cols = (uint64_t)g->sampling_w;
  return rows * (1 + cols);
}

static vknn_status lower_roi(vknn_graph *graph, const vknn_operation *op, vknn_dispatch_list *out_list) {
  roi_geometry g;
  vknn_status s = read_geometry(graph, op, &g);
  if (s != VKNN_STATUS_NONE) return s;
  if (!vknn_op_within_loop_budget(graph, vknn_operation_type_name(op->type), roi_iterations(op, &g),
                                  "a bin's rows and columns"))
    return VKNN_STATUS_GENERAL_FAILURE;
  roi_params p = params_of(graph, op, &g);
  static const vknn_shader_id align[] = {VKNN_SHADER_ROI_ALIGN_F32, VKNN_SHADER_ROI_ALIGN_F16,
                                         VKNN_SHADER_ROI_ALIGN_Q8, VKNN_SHADER_ROI_ALIGN_Q8S};
  static const vknn_shader_id pooling[] = {VKNN_SHADER_ROI_POOLING_F32, VKNN_SHADER_ROI_POOLING_F16,
                                           VKNN_SHADER_ROI_POOLING_Q8, VKNN_SHADER_ROI_POOLING_Q8S};
  int variant = vknn_variant_of(graph->tensors[op->inputs[INPUT_FEATURES]].type);
  vknn_dispatch *d = vknn_dispatch_list_add(out_list);
  if (d == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  d->shader = is_align(op) ? align[variant] : pooling[variant];
  if (is_align(op)) {
    d->spec[VKNN_SPEC_ROI_ALIGN_NCHW] = g.nchw;
    d->spec_count = VKNN_SPEC_COUNT_ROI_ALIGN;
  } else {
    d->spec[VKNN_SPEC_ROI_POOLING_NCHW] = g.nchw;
    d->spec_count = VKNN_SPEC_COUNT_ROI_POOLING;
  }
  d->local_size = ROI_LANES;
  vknn_dispatch_bind(d, op->inputs[INPUT_FEATURES], VKNN_ACCESS_READ);
  vknn_dispatch_bind(d, op->inputs[INPUT_ROIS], VKNN_ACCESS_READ);
  vknn_dispatch_bind(d, op->inputs[INPUT_BATCHES], VKNN_ACCESS_READ);
  vknn_dispatch_bind(d, op->outputs[0], VKNN_ACCESS_WRITE);
  memcpy(d->push, &p, sizeof(p));
  d->push_size = sizeof(p);
  d->invocations = (uint64_t)g.out.batches * g.out.height * g.out.width * g.out.channels;
  return VKNN_STATUS_NONE;
}

const vknn_op_def vknn_op_roi_align = {VKNN_OPERATION_ROI_ALIGN, false, validate_roi, infer_roi, lower_roi};
const vknn_op_def vknn_op_roi_pooling = {VKNN_OPERATION_ROI_POOLING, false, validate_roi, infer_roi,
                                         lower_roi};
