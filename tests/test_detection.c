/* GENERATE_PROPOSALS and DETECTION_POSTPROCESSING: every rule of their NNAPI
 * documentation rejected (a valid model broken one way, refused with
 * INVALID_ARGUMENT by the support query and by prepare, logging the
 * problem), and executions checked against results worked out by hand:
 * proposals' rows the data decide (per image, with the pre- and post-NMS
 * maxima, quantized), a location too small for them
 * (OUTPUT_INSUFFICIENT_SIZE with the needed shape), an empty anchor found on
 * the GPU, parameters given by the executions and checked there; SSD
 * post-processing with regular and fast NMS, the rows past the detections
 * zero and the counts per batch, at SSD MobileNet's size against a model of
 * the reference, and more anchors than the kernel holds refused;
 * BOX_WITH_NMS_LIMIT at size (up to 65536 boxes, Mask R-CNN's box head)
 * against a model of the reference, and the sizes past its limits refused. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "graph/runtime_check.h"
#include "support/box_reference.h"
#include "support/model_runner.h"

#define F32 VKNN_OPERAND_TENSOR_FLOAT32
#define F16 VKNN_OPERAND_TENSOR_FLOAT16
#define I32 VKNN_OPERAND_TENSOR_INT32
#define Q8 VKNN_OPERAND_TENSOR_QUANT8_ASYMM
#define Q8S VKNN_OPERAND_TENSOR_QUANT8_ASYMM_SIGNED
#define Q16 VKNN_OPERAND_TENSOR_QUANT16_ASYMM
#define Q16S VKNN_OPERAND_TENSOR_QUANT16_SYMM
#define REAL32 VKNN_OPERAND_FLOAT32
#define REAL16 VKNN_OPERAND_FLOAT16

/* A model under test and the operands a mutation changes: the operation's
 * inputs and outputs by position. */
typedef struct det_model {
  model_builder b;
  uint32_t in[14], out[4];
} det_model;

static uint32_t bool_scalar(model_builder *b, bool v) {
  uint8_t byte = v ? 1 : 0;
  return mb_const_tensor(b, VKNN_OPERAND_BOOL, NULL, 0, &byte, 1);
}

static vknn_operand *operand(det_model *m, uint32_t i) { return &m->b.operands[i]; }
static vknn_operation *det_op(det_model *m) { return &m->b.operations[0]; }

/* Operation input k becomes another operand. */
static void replace_input(det_model *m, uint32_t k, uint32_t operand_index) {
  mb_replace_input(&m->b, 0, k, operand_index);
  m->in[k] = operand_index;
}

static void set_dims(det_model *m, uint32_t i, uint32_t rank, const uint32_t *dims) {
  memcpy(m->b.dims[i], dims, rank * sizeof(uint32_t));
  m->b.operands[i].dimension_count = rank;
}

/* ---- GENERATE_PROPOSALS -------------------------------------------------------
 * Two images of a 1 x 2 feature map with two anchors (stride 4): positions
 * k = w * 2 + a. With zero deltas the boxes are the shifted anchors, [0, 0,
 * 4, 4], [0, 0, 8, 2], [4, 0, 8, 4], [4, 0, 12, 2] (clipped to [4, 0, 10,
 * 2] by the 10 x 10 images). IoUs: 0-1 and 1-2 1/3, 1-3 and 2-3 0.4, 0-2 and
 * 0-3 0. At an IoU threshold of 0.375, image 0 (scores 0.9 0.8 0.7 0.6)
 * keeps 0, 1, 2; image 1 (reversed) keeps 3 then 0. */
enum { GP_IMAGES = 2, GP_POSITIONS = 4, GP_MAX_ROWS = GP_IMAGES * GP_POSITIONS };
static const float kGpScores[GP_IMAGES * GP_POSITIONS] = {0.9f, 0.8f, 0.7f, 0.6f, 0.6f, 0.7f, 0.8f, 0.9f};
static const float kGpAnchors[8] = {0, 0, 4, 4, 0, 0, 8, 2};
static const float kGpImages[4] = {10, 10, 10, 10};
static const float kGpBoxes[GP_POSITIONS][4] = {{0, 0, 4, 4}, {0, 0, 8, 2}, {4, 0, 8, 4}, {4, 0, 10, 2}};

static bool is_quant(int32_t type) { return type == Q8 || type == Q8S; }

static void gp_build(det_model *m, int32_t type, int32_t pre, int32_t post) {
  model_builder *b = &m->b;
  mb_init(b);
  bool quant = is_quant(type);
  int32_t real = type == F16 ? REAL16 : REAL32;
  const uint32_t score_dims[4] = {GP_IMAGES, 1, 2, 2}, delta_dims[4] = {GP_IMAGES, 1, 2, 8};
  const uint32_t anchor_dims[2] = {2, 4}, image_dims[2] = {GP_IMAGES, 2}, out_dims[2] = {0, 4};
  m->in[0] = mb_input(b, type, score_dims, 4);
  m->in[1] = mb_input(b, type, delta_dims, 4);
  m->in[2] = mb_input(b, quant ? Q16S : type, anchor_dims, 2);
  m->in[3] = mb_input(b, quant ? Q16 : type, image_dims, 2);
  m->in[4] = runner_real_scalar(b, real, 4.f);
  m->in[5] = runner_real_scalar(b, real, 4.f);
  m->in[6] = mb_const_i32(b, pre);
  m->in[7] = mb_const_i32(b, post);
  m->in[8] = runner_real_scalar(b, real, 0.375f);
  m->in[9] = runner_real_scalar(b, real, 1.f);
  m->in[10] = bool_scalar(b, false);
  m->out[0] = mb_output(b, type, out_dims, 1);
  m->out[1] = mb_output(b, quant ? Q16 : type, out_dims, 2);
  m->out[2] = mb_output(b, I32, out_dims, 1);
  if (quant) {
    int32_t zero = type == Q8 ? 0 : -128;
    mb_set_quant(b, m->in[0], 0.1f, zero);
    mb_set_quant(b, m->out[0], 0.1f, zero);
    mb_set_quant(b, m->in[1], 0.05f, type == Q8 ? 128 : 0);
    mb_set_quant(b, m->in[2], 0.125f, 0);
    mb_set_quant(b, m->in[3], 0.125f, 0);
    mb_set_quant(b, m->out[1], 0.125f, 0);
  }
  mb_operation(b, VKNN_OPERATION_GENERATE_PROPOSALS, m->in, 11, m->out, 3);
}

/* ---- DETECTION_POSTPROCESSING -------------------------------------------------
 * One batch, four anchors [ctr_y, ctr_x, h, w] with zero deltas: boxes
 * [0, 0, 2, 2], [0, 0.5, 2, 2.5] (IoU 0.6 with the first), [4, 4, 6, 6] and
 * [0, 9, 2, 11]; classes: background, 1, 2. */
enum { DP_ANCHORS = 4, DP_CLASSES = 3 };
static const float kDpScores[DP_ANCHORS * DP_CLASSES] = {0, 0.9f, 0.1f, 0, 0.8f, 0.7f,
                                                         0, 0.2f, 0.6f, 0, 0.05f, 0.3f};
static const float kDpAnchors[DP_ANCHORS * 4] = {1, 1, 2, 2, 1, 1.5f, 2, 2, 5, 5, 2, 2, 1, 10, 2, 2};
static const float kDpDeltas[DP_ANCHORS * 4] = {0};
static const float kDpBoxes[DP_ANCHORS][4] = {{0, 0, 2, 2}, {0, 0.5f, 2, 2.5f}, {4, 4, 6, 6}, {0, 9, 2, 11}};

typedef struct dp_config {
  bool regular, background_label;
  int32_t max_detections, classes_per_detection, per_class;
} dp_config;

/* The model of anchors x classes, score threshold 0.125 (0 for more than
 * DP_ANCHORS anchors: every anchor a candidate), IoU threshold 0.5. */
static void dp_build_sized(det_model *m, int32_t type, dp_config c, uint32_t anchors, uint32_t classes) {
  model_builder *b = &m->b;
  mb_init(b);
  int32_t real = type == F16 ? REAL16 : REAL32;
  const uint32_t score_dims[3] = {1, anchors, classes}, delta_dims[3] = {1, anchors, 4};
  const uint32_t anchor_dims[2] = {anchors, 4}, out_dims[3] = {0, 0, 4};
  m->in[0] = mb_input(b, type, score_dims, 3);
  m->in[1] = mb_input(b, type, delta_dims, 3);
  m->in[2] = mb_input(b, type, anchor_dims, 2);
  for (uint32_t i = 3; i < 7; ++i) m->in[i] = runner_real_scalar(b, real, 10.f);
  m->in[7] = bool_scalar(b, c.regular);
  m->in[8] = mb_const_i32(b, c.max_detections);
  m->in[9] = mb_const_i32(b, c.classes_per_detection);
  m->in[10] = mb_const_i32(b, c.per_class);
  m->in[11] = runner_real_scalar(b, real, anchors > DP_ANCHORS ? 0.f : 0.125f);
  m->in[12] = runner_real_scalar(b, real, 0.5f);
  m->in[13] = bool_scalar(b, c.background_label);
  m->out[0] = mb_output(b, type, out_dims, 2);
  m->out[1] = mb_output(b, type, out_dims, 3);
  m->out[2] = mb_output(b, I32, out_dims, 2);
  m->out[3] = mb_output(b, I32, out_dims, 1);
  mb_operation(b, VKNN_OPERATION_DETECTION_POSTPROCESSING, m->in, 14, m->out, 4);
}

static void dp_build(det_model *m, int32_t type, dp_config c) { dp_build_sized(m, type, c, DP_ANCHORS, DP_CLASSES); }

static const dp_config kRegular = {true, false, 3, 1, 2};

/* ---- rules ------------------------------------------------------------------ */

typedef struct rule {
  const char *name;
  bool proposals; /* GENERATE_PROPOSALS, or DETECTION_POSTPROCESSING */
  int32_t type;
  void (*mutate)(det_model *m);
  const char *expected_log;
} rule;

static void drop_last_input(det_model *m) {
  vknn_operation *op = det_op(m);
  operand(m, op->inputs[op->input_count - 1])->number_of_consumers = 0;
  op->input_count--;
}
static void input_f16(det_model *m, uint32_t k) { operand(m, m->in[k])->type = F16; }
static void input_rank(det_model *m, uint32_t k, uint32_t rank) {
  const uint32_t dims[4] = {2, 2, 2, 2};
  set_dims(m, m->in[k], rank, dims);
}
static void output_rank(det_model *m, uint32_t k, uint32_t rank) {
  const uint32_t dims[4] = {0, 0, 0, 0};
  set_dims(m, m->out[k], rank, dims);
}

static void scores_int32(det_model *m) { operand(m, m->in[0])->type = operand(m, m->out[0])->type = I32; }
static void deltas_f16(det_model *m) { input_f16(m, 1); }
static void anchors_f16(det_model *m) { input_f16(m, 2); }
static void images_f16(det_model *m) { input_f16(m, 3); }
static void anchors_q16_asymm(det_model *m) { operand(m, m->in[2])->type = Q16; }
static void anchors_scale(det_model *m) { operand(m, m->in[2])->scale = 0.25f; }
static void images_f32(det_model *m) {
  operand(m, m->in[3])->type = F32;
  mb_set_quant(&m->b, m->in[3], 0.f, 0);
}
static void images_scale(det_model *m) { operand(m, m->in[3])->scale = 0.25f; }
static void images_zero_point(det_model *m) { operand(m, m->in[3])->zero_point = 1; }
static void gp_height_stride_f16(det_model *m) { replace_input(m, 4, runner_real_scalar(&m->b, REAL16, 4.f)); }
static void gp_width_stride_int(det_model *m) { replace_input(m, 5, mb_const_i32(&m->b, 4)); }
static void gp_pre_float(det_model *m) { replace_input(m, 6, runner_real_scalar(&m->b, REAL32, 1.f)); }
static void gp_post_float(det_model *m) { replace_input(m, 7, runner_real_scalar(&m->b, REAL32, 1.f)); }
static void gp_iou_int(det_model *m) { replace_input(m, 8, mb_const_i32(&m->b, 0)); }
static void gp_min_size_f32(det_model *m) { replace_input(m, 9, runner_real_scalar(&m->b, REAL32, 1.f)); }
static void gp_layout_int(det_model *m) { replace_input(m, 10, mb_const_i32(&m->b, 0)); }
static void scores_rank_3(det_model *m) { input_rank(m, 0, 3); }
static void deltas_rank_3(det_model *m) { input_rank(m, 1, 3); }
static void anchors_rank_1(det_model *m) { input_rank(m, 2, 1); }
static void images_rank_3(det_model *m) { input_rank(m, 3, 3); }
static void out_scores_f16(det_model *m) { operand(m, m->out[0])->type = F16; }
static void out_boxes_f16(det_model *m) { operand(m, m->out[1])->type = F16; }
static void out_third_f32(det_model *m) { operand(m, m->out[2])->type = F32; }
static void out_scores_scale(det_model *m) { operand(m, m->out[0])->scale = 0.2f; }
static void out_boxes_scale(det_model *m) { operand(m, m->out[1])->scale = 0.5f; }
static void out_scores_rank_2(det_model *m) { output_rank(m, 0, 2); }
static void out_boxes_rank_1(det_model *m) { output_rank(m, 1, 1); }
static void out_third_rank_2(det_model *m) { output_rank(m, 2, 2); }
static void gp_delta_channels(det_model *m) { m->b.dims[m->in[1]][3] = 12; }
static void gp_anchor_count(det_model *m) { m->b.dims[m->in[2]][0] = 3; }
static void gp_image_count(det_model *m) { m->b.dims[m->in[3]][0] = 3; }
static void gp_boxes_width(det_model *m) { m->b.dims[m->out[1]][1] = 5; }
static void gp_rows_disagree(det_model *m) {
  const uint32_t scores[1] = {3}, batches[1] = {4};
  set_dims(m, m->out[0], 1, scores);
  set_dims(m, m->out[2], 1, batches);
}

static void dp_scores_q8(det_model *m) {
  operand(m, m->in[0])->type = operand(m, m->out[0])->type = Q8;
  mb_set_quant(&m->b, m->in[0], 0.1f, 0);
  mb_set_quant(&m->b, m->out[0], 0.1f, 0);
}
static void dp_scale_y_f16(det_model *m) { replace_input(m, 3, runner_real_scalar(&m->b, REAL16, 10.f)); }
static void dp_scale_w_int(det_model *m) { replace_input(m, 6, mb_const_i32(&m->b, 10)); }
static void dp_regular_int(det_model *m) { replace_input(m, 7, mb_const_i32(&m->b, 1)); }
static void dp_max_float(det_model *m) { replace_input(m, 8, runner_real_scalar(&m->b, REAL32, 3.f)); }
static void dp_classes_per_float(det_model *m) { replace_input(m, 9, runner_real_scalar(&m->b, REAL32, 1.f)); }
static void dp_per_class_float(det_model *m) { replace_input(m, 10, runner_real_scalar(&m->b, REAL32, 1.f)); }
static void dp_score_threshold_int(det_model *m) { replace_input(m, 11, mb_const_i32(&m->b, 0)); }
static void dp_iou_f16(det_model *m) { replace_input(m, 12, runner_real_scalar(&m->b, REAL16, 0.5f)); }
static void dp_background_int(det_model *m) { replace_input(m, 13, mb_const_i32(&m->b, 0)); }
static void dp_scores_rank_2(det_model *m) { input_rank(m, 0, 2); }
static void dp_deltas_rank_4(det_model *m) { input_rank(m, 1, 4); }
static void dp_anchors_rank_3(det_model *m) { input_rank(m, 2, 3); }
static void dp_out_scores_rank_1(det_model *m) { output_rank(m, 0, 1); }
static void dp_out_boxes_rank_2(det_model *m) { output_rank(m, 1, 2); }
static void dp_out_classes_rank_1(det_model *m) { output_rank(m, 2, 1); }
static void dp_out_counts_f32(det_model *m) { operand(m, m->out[3])->type = F32; }
static void dp_out_counts_rank_2(det_model *m) { output_rank(m, 3, 2); }
static void dp_one_class(det_model *m) { m->b.dims[m->in[0]][2] = 1; }
static void dp_box_length_3(det_model *m) { m->b.dims[m->in[1]][2] = 3; }
static void dp_delta_anchors(det_model *m) { m->b.dims[m->in[1]][1] = DP_ANCHORS + 1; }
static void dp_delta_batches(det_model *m) { m->b.dims[m->in[1]][0] = 2; }
static void dp_anchor_width(det_model *m) { m->b.dims[m->in[2]][1] = 3; }
static void dp_anchor_count(det_model *m) { m->b.dims[m->in[2]][0] = DP_ANCHORS + 1; }
static void dp_scale_y_zero(det_model *m) { replace_input(m, 3, runner_real_scalar(&m->b, REAL32, 0.f)); }
/* A dimension left to the execution: the operation waits for it, and its
 * parameters and the shapes known already are still checked at prepare. */
static void gp_batches_unknown(det_model *m) { m->b.dims[m->in[0]][0] = 0; }
static void gp_unknown_anchors_5_wide(det_model *m) {
  gp_batches_unknown(m);
  m->b.dims[m->in[2]][1] = 5;
}
/* The parameters' documented ranges: the strides are ratios of sizes
 * (positive, finite); the IoU threshold and the minimum size take any value
 * (the text bounds neither; the reference takes negative ones). */
static void gp_real_param(det_model *m, uint32_t k, float v) {
  replace_input(m, k, runner_real_scalar(&m->b, operand(m, m->in[k])->type, v));
}
static void gp_height_stride_zero(det_model *m) { gp_real_param(m, 4, 0.f); }
static void gp_width_stride_negative(det_model *m) { gp_real_param(m, 5, -4.f); }
static void gp_width_stride_infinite(det_model *m) { gp_real_param(m, 5, INFINITY); }
static void gp_height_stride_nan(det_model *m) { gp_real_param(m, 4, NAN); }
static void gp_iou_and_min_size_negative(det_model *m) { gp_real_param(m, 8, -0.5f), gp_real_param(m, 9, -1.f); }
/* At the ends of the ranges: no box too small, an IoU no pair reaches. */
static void gp_min_size_zero_iou_above_one(det_model *m) { gp_real_param(m, 9, 0.f), gp_real_param(m, 8, 1.5f); }
static void gp_unknown_stride_zero(det_model *m) { gp_batches_unknown(m), gp_height_stride_zero(m); }
static void dp_anchors_unknown(det_model *m) { m->b.dims[m->in[0]][1] = 0; }
static void dp_unknown_scale_y_zero(det_model *m) { dp_anchors_unknown(m), dp_scale_y_zero(m); }
static void dp_unknown_anchor_width(det_model *m) { dp_anchors_unknown(m), dp_anchor_width(m); }
static void dp_scale_h_negative(det_model *m) { replace_input(m, 5, runner_real_scalar(&m->b, REAL32, -1.f)); }
static void dp_score_threshold_negative(det_model *m) { replace_input(m, 11, runner_real_scalar(&m->b, REAL32, -0.5f)); }
static void dp_iou_negative(det_model *m) { replace_input(m, 12, runner_real_scalar(&m->b, REAL32, -0.5f)); }
static void dp_max_zero(det_model *m) { replace_input(m, 8, mb_const_i32(&m->b, 0)); }
static void dp_per_class_zero(det_model *m) { replace_input(m, 10, mb_const_i32(&m->b, 0)); }
static void dp_fast_classes_per_zero(det_model *m) {
  replace_input(m, 7, bool_scalar(&m->b, false));
  replace_input(m, 9, mb_const_i32(&m->b, 0));
}
static void dp_declared_rows(det_model *m) {
  const uint32_t dims[2] = {1, 5};
  set_dims(m, m->out[0], 2, dims);
}

static const rule kRules[] = {
    {"proposals float32 accepted", true, F32, NULL, NULL},
    {"proposals float16 accepted", true, F16, NULL, NULL},
    {"proposals quant8 accepted", true, Q8, NULL, NULL},
    {"proposals quant8 signed accepted", true, Q8S, NULL, NULL},
    {"proposals with 10 inputs", true, F32, drop_last_input, "takes 11 inputs and 3 outputs"},
    {"proposals int32 scores", true, F32, scores_int32, "score type TENSOR_INT32 is not allowed"},
    {"proposals float16 deltas", true, F32, deltas_f16, "the deltas must be TENSOR_FLOAT32"},
    {"proposals float16 anchors", true, F32, anchors_f16, "the anchors must be TENSOR_FLOAT32"},
    {"proposals float16 image sizes", true, F32, images_f16, "the image sizes must be TENSOR_FLOAT32"},
    {"proposals quant16 asymm anchors", true, Q8, anchors_q16_asymm, "the anchors must be TENSOR_QUANT16_SYMM"},
    {"proposals anchors of scale 0.25", true, Q8S, anchors_scale, "quant16 anchors must have scale 0.125"},
    {"proposals float32 image sizes with quant8", true, Q8, images_f32,
     "the image sizes must be TENSOR_QUANT16_ASYMM"},
    {"proposals image sizes of scale 0.25", true, Q8, images_scale, "quant16 image sizes must have scale 0.125"},
    {"proposals image sizes of zero point 1", true, Q8S, images_zero_point,
     "quant16 image sizes must have scale 0.125"},
    {"proposals float16 height stride", true, F32, gp_height_stride_f16, "the height stride must be FLOAT32"},
    {"proposals int width stride", true, F32, gp_width_stride_int, "the width stride must be FLOAT32"},
    {"proposals float pre-NMS maximum", true, F32, gp_pre_float, "the pre-NMS maximum must be INT32"},
    {"proposals float post-NMS maximum", true, F32, gp_post_float, "the post-NMS maximum must be INT32"},
    {"proposals int IoU threshold", true, F32, gp_iou_int, "the IoU threshold must be FLOAT32"},
    {"proposals float32 minimum size with float16", true, F16, gp_min_size_f32, "the minimum size must be FLOAT16"},
    {"proposals int layout", true, F32, gp_layout_int, "the layout must be BOOL"},
    {"proposals scores of rank 3", true, F32, scores_rank_3, "the scores must have rank 4"},
    {"proposals deltas of rank 3", true, F32, deltas_rank_3, "the deltas must have rank 4"},
    {"proposals anchors of rank 1", true, F32, anchors_rank_1, "the anchors must have rank 2"},
    {"proposals image sizes of rank 3", true, F32, images_rank_3, "the image sizes must have rank 2"},
    {"proposals float16 output scores", true, F32, out_scores_f16, "the output scores must be TENSOR_FLOAT32"},
    {"proposals float16 output boxes", true, F32, out_boxes_f16, "the output boxes must be TENSOR_FLOAT32"},
    {"proposals float batch indices", true, F32, out_third_f32, "the output batch indices must be TENSOR_INT32"},
    {"proposals output scores of another scale", true, Q8, out_scores_scale, "must keep input 0's scale"},
    {"proposals output boxes of scale 0.5", true, Q8, out_boxes_scale, "quant16 output boxes must have scale 0.125"},
    {"proposals output scores and batch indices of 3 and 4 rows", true, F32, gp_rows_disagree,
     "output 0 has 3 rows, output 2 has 4"},
    {"proposals output scores of rank 2", true, F32, out_scores_rank_2, "the output scores must have rank 1"},
    {"proposals output boxes of rank 1", true, F32, out_boxes_rank_1, "the output boxes must have rank 2"},
    {"proposals batch indices of rank 2", true, F32, out_third_rank_2, "the output batch indices must have rank 1"},
    {"proposals deltas not 4 x anchors", true, F32, gp_delta_channels, "the deltas must have 4 x anchors channels"},
    {"proposals anchors not one per anchor", true, F32, gp_anchor_count, "the anchors be [anchors, 4]"},
    {"proposals image sizes not one per image", true, F32, gp_image_count, "the image sizes [batches, 2]"},
    {"proposals output boxes 5 wide", true, F32, gp_boxes_width, "output 1's dimension 1 is 5, expected 4"},
    {"proposals accepted with the batches unknown", true, F32, gp_batches_unknown, NULL},
    {"proposals batches unknown, anchors 5 wide", true, F32, gp_unknown_anchors_5_wide, "the anchors be [anchors, 4]"},
    {"proposals height stride 0", true, F32, gp_height_stride_zero, "the height stride (0, 4) must be a positive finite"},
    {"proposals float16 height stride 0", true, F16, gp_height_stride_zero, "the height stride (0, 4) must be a positive"},
    {"proposals width stride -4", true, Q8, gp_width_stride_negative, "the width stride (4, -4) must be a positive"},
    {"proposals width stride infinite", true, F32, gp_width_stride_infinite, "the width stride (4, inf) must be a positive"},
    {"proposals height stride NaN", true, F32, gp_height_stride_nan, "the height stride (nan, 4) must be a positive"},
    {"proposals IoU threshold -0.5 and minimum size -1 accepted", true, F32, gp_iou_and_min_size_negative, NULL},
    {"proposals minimum size 0 and IoU threshold 1.5 accepted", true, F32, gp_min_size_zero_iou_above_one, NULL},
    {"proposals batches unknown, height stride 0", true, F32, gp_unknown_stride_zero, "the height stride (0, 4) must be a positive"},

    {"postprocessing float32 accepted", false, F32, NULL, NULL},
    {"postprocessing float16 accepted", false, F16, NULL, NULL},
    {"postprocessing with 13 inputs", false, F32, drop_last_input, "takes 14 inputs and 4 outputs"},
    {"postprocessing quant8 scores", false, F32, dp_scores_q8, "score type TENSOR_QUANT8_ASYMM is not allowed"},
    {"postprocessing float16 deltas", false, F32, deltas_f16, "the deltas must be TENSOR_FLOAT32"},
    {"postprocessing float16 anchors", false, F32, anchors_f16, "the anchors must be TENSOR_FLOAT32"},
    {"postprocessing float16 scale of y", false, F32, dp_scale_y_f16, "the scale of y must be FLOAT32"},
    {"postprocessing int scale of w", false, F16, dp_scale_w_int, "the scale of w must be FLOAT16"},
    {"postprocessing int NMS choice", false, F32, dp_regular_int, "the NMS choice must be BOOL"},
    {"postprocessing float maximum detections", false, F32, dp_max_float, "the maximum detections must be INT32"},
    {"postprocessing float classes per detection", false, F32, dp_classes_per_float,
     "the maximum classes per detection must be INT32"},
    {"postprocessing float detections per class", false, F32, dp_per_class_float,
     "the maximum detections per class must be INT32"},
    {"postprocessing int score threshold", false, F32, dp_score_threshold_int, "the score threshold must be FLOAT32"},
    {"postprocessing float16 IoU threshold", false, F32, dp_iou_f16, "the IoU threshold must be FLOAT32"},
    {"postprocessing int background choice", false, F32, dp_background_int,
     "the background label choice must be BOOL"},
    {"postprocessing scores of rank 2", false, F32, dp_scores_rank_2, "the scores must have rank 3"},
    {"postprocessing deltas of rank 4", false, F32, dp_deltas_rank_4, "the deltas must have rank 3"},
    {"postprocessing anchors of rank 3", false, F32, dp_anchors_rank_3, "the anchors must have rank 2"},
    {"postprocessing float16 output scores", false, F32, out_scores_f16, "the output scores must be TENSOR_FLOAT32"},
    {"postprocessing float16 output boxes", false, F32, out_boxes_f16, "the output boxes must be TENSOR_FLOAT32"},
    {"postprocessing float output classes", false, F32, out_third_f32, "the output classes must be TENSOR_INT32"},
    {"postprocessing float detection counts", false, F32, dp_out_counts_f32,
     "the detection counts must be TENSOR_INT32"},
    {"postprocessing output scores of rank 1", false, F32, dp_out_scores_rank_1, "the output scores must have rank 2"},
    {"postprocessing output boxes of rank 2", false, F32, dp_out_boxes_rank_2, "the output boxes must have rank 3"},
    {"postprocessing output classes of rank 1", false, F32, dp_out_classes_rank_1,
     "the output classes must have rank 2"},
    {"postprocessing detection counts of rank 2", false, F32, dp_out_counts_rank_2,
     "the detection counts must have rank 1"},
    {"postprocessing one class", false, F32, dp_one_class, "with classes > 1"},
    {"postprocessing box encodings of length 3", false, F32, dp_box_length_3, "length >= 4"},
    {"postprocessing deltas of other anchors", false, F32, dp_delta_anchors, "deltas [batches, anchors"},
    {"postprocessing deltas of 2 batches for 1", false, F32, dp_delta_batches, "deltas [batches, anchors"},
    {"postprocessing anchors 3 wide", false, F32, dp_anchor_width, "anchors [anchors, 4]"},
    {"postprocessing 5 anchors for 4", false, F32, dp_anchor_count, "anchors [anchors, 4]"},
    {"postprocessing scale of y 0", false, F32, dp_scale_y_zero, "the scale of y must be above 0"},
    {"postprocessing scale of h -1", false, F32, dp_scale_h_negative, "the scale of h must be above 0"},
    {"postprocessing negative score threshold", false, F32, dp_score_threshold_negative,
     "the score threshold must not be negative"},
    {"postprocessing negative IoU threshold", false, F32, dp_iou_negative, "the IoU threshold must not be negative"},
    {"postprocessing no detections", false, F32, dp_max_zero, "the maximum detections must be above 0"},
    {"postprocessing regular, no detections per class", false, F32, dp_per_class_zero,
     "the maximum detections per class must be above 0"},
    {"postprocessing fast, no classes per detection", false, F32, dp_fast_classes_per_zero,
     "the maximum classes per detection must be above 0"},
    {"postprocessing 5 rows declared for 3", false, F32, dp_declared_rows, "output dimension 1 is 5, expected 3"},
    {"postprocessing accepted with the anchors unknown", false, F32, dp_anchors_unknown, NULL},
    {"postprocessing anchors unknown, scale of y 0", false, F32, dp_unknown_scale_y_zero, "the scale of y must be above 0"},
    {"postprocessing anchors unknown, anchors 3 wide", false, F32, dp_unknown_anchor_width, "anchors [anchors, 4]"},
};

/* Support query and prepare of one rule's model give want (logging the
 * expected line when refused). */
static void expect_status(runner_fixture *f, const rule *r, const vknn_model *model, vknn_status want) {
  bool supported[1] = {false};
  f->log.last[0] = '\0';
  vknn_status s = vknn_device_get_supported_operations(f->device, model, supported, 1);
  if (s != want || (want == VKNN_STATUS_NONE && !supported[0]))
    fail_msg("%s: support query gave %s, supported %d (%s)", r->name, vknn_status_name(s), supported[0],
             f->log.last);
  if (r->expected_log != NULL && strstr(f->log.last, r->expected_log) == NULL)
    fail_msg("%s: logged \"%s\", not \"%s\"", r->name, f->log.last, r->expected_log);
  vknn_prepared_model *pm = NULL;
  s = vknn_device_prepare_model(f->device, model, VKNN_PREFER_FAST_SINGLE_ANSWER, VKNN_PRIORITY_MEDIUM, NULL, &pm);
  vknn_prepared_model_release(pm);
  if (s != want) fail_msg("%s: prepare gave %s (%s)", r->name, vknn_status_name(s), f->log.last);
}

static void test_rules(void **state) {
  runner_fixture *f = *state;
  det_model *m = calloc(1, sizeof(*m));
  assert_non_null(m);
  for (size_t i = 0; i < sizeof(kRules) / sizeof(kRules[0]); ++i) {
    const rule *r = &kRules[i];
    if (r->proposals)
      gp_build(m, r->type, -1, -1);
    else
      dp_build(m, r->type, kRegular);
    if (r->mutate != NULL) r->mutate(m);
    expect_status(f, r, mb_finish(&m->b), r->expected_log ? VKNN_STATUS_INVALID_ARGUMENT : VKNN_STATUS_NONE);
  }
  free(m);
}

/* ---- proposals executions ---------------------------------------------------- */

typedef struct gp_result {
  float scores[GP_MAX_ROWS], boxes[GP_MAX_ROWS * 4];
  int32_t batches[GP_MAX_ROWS];
  vknn_output_shape shapes[3];
} gp_result;

static vknn_status gp_run(runner_fixture *f, det_model *m, const float *anchors, size_t score_bytes, gp_result *r) {
  static const float deltas[GP_IMAGES * GP_POSITIONS * 4] = {0};
  const buffer_arg in[4] = {{kGpScores, NULL, sizeof(kGpScores)},
                            {deltas, NULL, sizeof(deltas)},
                            {anchors, NULL, sizeof(kGpAnchors)},
                            {kGpImages, NULL, sizeof(kGpImages)}};
  buffer_arg out[3] = {{NULL, r->scores, score_bytes},
                       {NULL, r->boxes, sizeof(r->boxes)},
                       {NULL, r->batches, sizeof(r->batches)}};
  return model_runner_try(f->device, &f->log, &m->b, in, out, r->shapes);
}

/* Rows: (image, position, score) each. */
typedef struct gp_row {
  int32_t image;
  uint32_t position;
  float score;
} gp_row;

static void expect_gp_rows(const gp_result *r, const gp_row *rows, uint32_t count) {
  for (uint32_t i = 0; i < 3; ++i) {
    assert_int_equal(r->shapes[i].rank, i == 1 ? 2 : 1);
    assert_int_equal(r->shapes[i].dimensions[0], count);
  }
  for (uint32_t i = 0; i < count; ++i) {
    assert_float_equal(r->scores[i], rows[i].score, 0.f);
    assert_int_equal(r->batches[i], rows[i].image);
    for (uint32_t c = 0; c < 4; ++c) assert_float_equal(r->boxes[4 * i + c], kGpBoxes[rows[i].position][c], 0.f);
  }
}

static void run_gp_limits(runner_fixture *f, int32_t pre, int32_t post, const gp_row *rows, uint32_t count) {
  det_model *m = calloc(1, sizeof(*m));
  gp_result *r = calloc(1, sizeof(*r));
  assert_true(m != NULL && r != NULL);
  gp_build(m, F32, pre, post);
  assert_int_equal(gp_run(f, m, kGpAnchors, sizeof(r->scores), r), VKNN_STATUS_NONE);
  expect_gp_rows(r, rows, count);
  free(r);
  free(m);
}

static void test_proposals_rows_from_the_data(void **state) {
  const gp_row rows[5] = {{0, 0, 0.9f}, {0, 1, 0.8f}, {0, 2, 0.7f}, {1, 3, 0.9f}, {1, 0, 0.6f}};
  run_gp_limits(*state, -1, 0, rows, 5);
}

/* The best 2 before NMS: image 0 keeps 0 and 1, image 1 only 3 (2 dropped). */
static void test_proposals_pre_nms_maximum(void **state) {
  const gp_row rows[3] = {{0, 0, 0.9f}, {0, 1, 0.8f}, {1, 3, 0.9f}};
  run_gp_limits(*state, 2, -1, rows, 3);
}

/* One box per image after NMS. */
static void test_proposals_post_nms_maximum(void **state) {
  const gp_row rows[2] = {{0, 0, 0.9f}, {1, 3, 0.9f}};
  run_gp_limits(*state, 0, 1, rows, 2);
}

/* Room for 2 scores where 5 come out: the needed shape, then a retry fits. */
static void test_proposals_insufficient_size(void **state) {
  runner_fixture *f = *state;
  det_model *m = calloc(1, sizeof(*m));
  gp_result *r = calloc(1, sizeof(*r));
  assert_true(m != NULL && r != NULL);
  gp_build(m, F32, -1, -1);
  assert_int_equal(gp_run(f, m, kGpAnchors, 2 * sizeof(float), r), VKNN_STATUS_OUTPUT_INSUFFICIENT_SIZE);
  assert_false(r->shapes[0].is_sufficient);
  assert_true(r->shapes[1].is_sufficient);
  assert_int_equal(r->shapes[0].dimensions[0], 5);
  assert_int_equal(r->shapes[1].dimensions[0], 5);
  assert_int_equal(gp_run(f, m, kGpAnchors, 5 * sizeof(float), r), VKNN_STATUS_NONE);
  assert_int_equal(r->shapes[0].dimensions[0], 5);
  free(r);
  free(m);
}

/* An anchor with x1 > x2, found by the kernel: INVALID_ARGUMENT naming the
 * operation and the rule, nothing read or written out of bounds. */
static void test_proposals_empty_anchor(void **state) {
  runner_fixture *f = *state;
  det_model *m = calloc(1, sizeof(*m));
  gp_result *r = calloc(1, sizeof(*r));
  assert_true(m != NULL && r != NULL);
  gp_build(m, F32, -1, -1);
  float anchors[8];
  memcpy(anchors, kGpAnchors, sizeof(anchors));
  anchors[4] = 9.f; /* anchor 1: x1 9 > x2 8 */
  assert_int_equal(gp_run(f, m, anchors, sizeof(r->scores), r), VKNN_STATUS_INVALID_ARGUMENT);
  if (!test_log_names_rule(&f->log, "GENERATE_PROPOSALS", VKNN_RUNTIME_RULE_ANCHOR_EMPTY))
    fail_msg("logged \"%s\"", f->log.last);
  free(r);
  free(m);
}

/* The height stride and the IoU threshold given by the executions (model
 * inputs: the model is compiled per execution with their values). Valid
 * ones give test_proposals_rows_from_the_data's rows; a stride of 0 fails
 * that execution with INVALID_ARGUMENT and the rule's log line, and the same
 * prepared model runs on after it. */
static void test_proposals_parameters_at_execution(void **state) {
  runner_fixture *f = *state;
  det_model *m = calloc(1, sizeof(*m));
  gp_result *r = calloc(1, sizeof(*r));
  assert_true(m != NULL && r != NULL);
  gp_build(m, F32, -1, 0);
  replace_input(m, 4, mb_input(&m->b, REAL32, NULL, 0));
  replace_input(m, 8, mb_input(&m->b, REAL32, NULL, 0));
  vknn_prepared_model *pm = model_runner_prepare(f->device, &f->log, &m->b);
  static const float deltas[GP_IMAGES * GP_POSITIONS * 4] = {0};
  const float strides[5] = {4.f, 0.f, 4.f, 4.f, 4.f}, thresholds[5] = {0.375f, 0.375f, 0.375f, 0.375f, 0.375f};
  const char *const logged[5] = {NULL, "the height stride (0, 4) must be a positive", NULL, NULL, NULL};
  const gp_row rows[5] = {{0, 0, 0.9f}, {0, 1, 0.8f}, {0, 2, 0.7f}, {1, 3, 0.9f}, {1, 0, 0.6f}};
  for (uint32_t i = 0; i < 5; ++i) {
    const buffer_arg in[6] = {{kGpScores, NULL, sizeof(kGpScores)}, {deltas, NULL, sizeof(deltas)},
                              {kGpAnchors, NULL, sizeof(kGpAnchors)}, {kGpImages, NULL, sizeof(kGpImages)},
                              {&strides[i], NULL, sizeof(float)},       {&thresholds[i], NULL, sizeof(float)}};
    buffer_arg out[3] = {{NULL, r->scores, sizeof(r->scores)},
                         {NULL, r->boxes, sizeof(r->boxes)},
                         {NULL, r->batches, sizeof(r->batches)}};
    f->log.last[0] = '\0';
    vknn_status s = model_runner_execute(pm, &m->b, in, out, r->shapes);
    if (s != (logged[i] ? VKNN_STATUS_INVALID_ARGUMENT : VKNN_STATUS_NONE))
      fail_msg("execution %u: %s (%s)", i, vknn_status_name(s), f->log.last);
    if (logged[i] != NULL && strstr(f->log.last, logged[i]) == NULL)
      fail_msg("execution %u logged \"%s\", not \"%s\"", i, f->log.last, logged[i]);
    if (logged[i] == NULL) expect_gp_rows(r, rows, 5);
  }
  vknn_prepared_model_release(pm);
  free(r);
  free(m);
}

/* A NaN score has no place in the reference's sort for the pre-NMS maximum
 * (the kernels' sort puts it first: its key is the highest): the execution
 * still completes, its rows within the planned ones. */
static void test_proposals_nan_score(void **state) {
  runner_fixture *f = *state;
  det_model *m = calloc(1, sizeof(*m));
  gp_result *r = calloc(1, sizeof(*r));
  assert_true(m != NULL && r != NULL);
  gp_build(m, F32, 2, -1);
  float scores[GP_IMAGES * GP_POSITIONS];
  memcpy(scores, kGpScores, sizeof(scores));
  scores[1] = scores[6] = nanf("");
  static const float deltas[GP_IMAGES * GP_POSITIONS * 4] = {0};
  const buffer_arg in[4] = {{scores, NULL, sizeof(scores)},
                            {deltas, NULL, sizeof(deltas)},
                            {kGpAnchors, NULL, sizeof(kGpAnchors)},
                            {kGpImages, NULL, sizeof(kGpImages)}};
  buffer_arg out[3] = {{NULL, r->scores, sizeof(r->scores)},
                       {NULL, r->boxes, sizeof(r->boxes)},
                       {NULL, r->batches, sizeof(r->batches)}};
  assert_int_equal(model_runner_try(f->device, &f->log, &m->b, in, out, r->shapes), VKNN_STATUS_NONE);
  assert_true(r->shapes[0].dimensions[0] <= 2 * GP_IMAGES);
  free(r);
  free(m);
}

/* The same in quant8 (signed): scores in steps of 0.1, boxes in 1/8 pixel. */
static void run_gp_quant(runner_fixture *f, int32_t type) {
  det_model *m = calloc(1, sizeof(*m));
  assert_non_null(m);
  gp_build(m, type, -1, -1);
  int32_t zero = type == Q8 ? 0 : -128, delta_zero = type == Q8 ? 128 : 0;
  uint8_t scores[GP_IMAGES * GP_POSITIONS], deltas[GP_IMAGES * GP_POSITIONS * 4];
  for (uint32_t i = 0; i < GP_IMAGES * GP_POSITIONS; ++i)
    scores[i] = (uint8_t)((int32_t)(kGpScores[i] * 10.f + 0.5f) + zero);
  memset(deltas, (uint8_t)delta_zero, sizeof(deltas));
  int16_t anchors[8];
  uint16_t images[4];
  for (uint32_t i = 0; i < 8; ++i) anchors[i] = (int16_t)(kGpAnchors[i] * 8.f);
  for (uint32_t i = 0; i < 4; ++i) images[i] = (uint16_t)(kGpImages[i] * 8.f);
  uint8_t out_scores[GP_MAX_ROWS];
  uint16_t out_boxes[GP_MAX_ROWS * 4];
  int32_t out_batches[GP_MAX_ROWS];
  const buffer_arg in[4] = {{scores, NULL, sizeof(scores)},
                            {deltas, NULL, sizeof(deltas)},
                            {anchors, NULL, sizeof(anchors)},
                            {images, NULL, sizeof(images)}};
  buffer_arg out[3] = {{NULL, out_scores, sizeof(out_scores)},
                       {NULL, out_boxes, sizeof(out_boxes)},
                       {NULL, out_batches, sizeof(out_batches)}};
  vknn_output_shape shapes[3];
  model_runner_run(f->device, &f->log, &m->b, in, out, shapes);
  const gp_row rows[5] = {{0, 0, 9}, {0, 1, 8}, {0, 2, 7}, {1, 3, 9}, {1, 0, 6}};
  assert_int_equal(shapes[0].dimensions[0], 5);
  for (uint32_t i = 0; i < 5; ++i) {
    assert_int_equal((int8_t)(out_scores[i] - (uint8_t)zero), (int32_t)rows[i].score);
    assert_int_equal(out_batches[i], rows[i].image);
    for (uint32_t c = 0; c < 4; ++c)
      assert_int_equal(out_boxes[4 * i + c], (uint16_t)(kGpBoxes[rows[i].position][c] * 8.f));
  }
  free(m);
}

static void test_proposals_quant8(void **state) { run_gp_quant(*state, Q8); }
static void test_proposals_quant8_signed(void **state) { run_gp_quant(*state, Q8S); }

/* The boxes concatenated along the rows, after a constant row and twice:
 * the real rows one after the other, then the count the GPU wrote. */
static void test_proposals_rows_concatenated(void **state) {
  runner_fixture *f = *state;
  det_model *m = calloc(1, sizeof(*m));
  gp_result *r = calloc(1, sizeof(*r));
  assert_true(m != NULL && r != NULL);
  gp_build(m, F32, -1, -1);
  model_builder *b = &m->b;
  b->operands[m->out[1]].lifetime = VKNN_LIFETIME_TEMPORARY_VARIABLE;
  b->outputs[1] = m->out[2];
  b->output_count = 2;
  const float first[4] = {1, 2, 3, 4};
  const uint32_t row_dims[2] = {1, 4}, out_dims[2] = {0, 4};
  uint32_t joined = mb_output(b, F32, out_dims, 2);
  const uint32_t in[4] = {mb_const_tensor(b, F32, row_dims, 2, first, sizeof(first)), m->out[1], m->out[1],
                          mb_const_i32(b, 0)};
  mb_operation(b, VKNN_OPERATION_CONCATENATION, in, 4, &joined, 1);
  static const float deltas[GP_IMAGES * GP_POSITIONS * 4] = {0};
  float rows[11 * 4];
  const buffer_arg args[4] = {{kGpScores, NULL, sizeof(kGpScores)},
                              {deltas, NULL, sizeof(deltas)},
                              {kGpAnchors, NULL, sizeof(kGpAnchors)},
                              {kGpImages, NULL, sizeof(kGpImages)}};
  buffer_arg out[3] = {{NULL, r->scores, sizeof(r->scores)},
                       {NULL, r->batches, sizeof(r->batches)},
                       {NULL, rows, sizeof(rows)}};
  model_runner_run(f->device, &f->log, b, args, out, r->shapes);
  assert_int_equal(r->shapes[2].dimensions[0], 11);
  const uint32_t positions[5] = {0, 1, 2, 3, 0};
  for (uint32_t c = 0; c < 4; ++c) assert_float_equal(rows[c], first[c], 0.f);
  for (uint32_t i = 0; i < 10; ++i)
    for (uint32_t c = 0; c < 4; ++c)
      assert_float_equal(rows[4 * (1 + i) + c], kGpBoxes[positions[i % 5]][c], 0.f);
  free(r);
  free(m);
}

/* More inputs along the rows than one dispatch binds: the CONCATENATION is
 * unsupported, the proposals still run. */
static void test_proposals_rows_concatenated_five_times(void **state) {
  runner_fixture *f = *state;
  det_model *m = calloc(1, sizeof(*m));
  assert_non_null(m);
  gp_build(m, F32, -1, -1);
  model_builder *b = &m->b;
  b->operands[m->out[1]].lifetime = VKNN_LIFETIME_TEMPORARY_VARIABLE;
  b->outputs[1] = m->out[2];
  b->output_count = 2;
  const uint32_t out_dims[2] = {0, 4};
  uint32_t joined = mb_output(b, F32, out_dims, 2);
  const uint32_t in[6] = {m->out[1], m->out[1], m->out[1], m->out[1], m->out[1], mb_const_i32(b, 0)};
  mb_operation(b, VKNN_OPERATION_CONCATENATION, in, 6, &joined, 1);
  bool supported[2] = {false, true};
  assert_int_equal(vknn_device_get_supported_operations(f->device, mb_finish(b), supported, 2), VKNN_STATUS_NONE);
  assert_true(supported[0]);
  assert_false(supported[1]);
  assert_non_null(strstr(f->log.last, "5 inputs along rows the data decide, at most 4"));
  free(m);
}

/* ---- feature maps of many positions, against a model of the reference --- */

/* A GENERATE_PROPOSALS model over images x height x width x anchors (NHWC)
 * on a grid of one stride, minimum size 1. */
typedef struct grid_config {
  uint32_t images, height, width, anchors;
  int32_t pre, post;
  float stride, iou, image_height, image_width;
  const float *anchor_boxes; /* [anchors][4] */
  uint32_t score_levels;     /* scores in steps of 1 / this */
} grid_config;

/* Its inputs, the boxes they decode to, the outputs and the reference's
 * kept positions. */
typedef struct grid_data {
  uint32_t positions, rows; /* per image; planned rows of all images */
  float *scores, *deltas, *images, *boxes, *out_scores, *out_boxes;
  int32_t *out_batches;
  uint32_t *kept;
} grid_data;

static void grid_build(model_builder *b, const grid_config *c) {
  mb_init(b);
  const uint32_t score_dims[4] = {c->images, c->height, c->width, c->anchors};
  const uint32_t delta_dims[4] = {c->images, c->height, c->width, 4 * c->anchors};
  const uint32_t anchor_dims[2] = {c->anchors, 4}, image_dims[2] = {c->images, 2}, out_dims[2] = {0, 4};
  uint32_t in[11] = {mb_input(b, F32, score_dims, 4), mb_input(b, F32, delta_dims, 4),
                     mb_input(b, F32, anchor_dims, 2), mb_input(b, F32, image_dims, 2),
                     runner_real_scalar(b, REAL32, c->stride), runner_real_scalar(b, REAL32, c->stride),
                     mb_const_i32(b, c->pre), mb_const_i32(b, c->post),
                     runner_real_scalar(b, REAL32, c->iou), runner_real_scalar(b, REAL32, 1.f),
                     bool_scalar(b, false)};
  const uint32_t outs[3] = {mb_output(b, F32, out_dims, 1), mb_output(b, F32, out_dims, 2),
                            mb_output(b, I32, out_dims, 1)};
  mb_operation(b, VKNN_OPERATION_GENERATE_PROPOSALS, in, 11, outs, 3);
}

static void grid_free(grid_data *d) {
  free(d->scores);
  free(d->deltas);
  free(d->images);
  free(d->boxes);
  free(d->out_scores);
  free(d->out_boxes);
  free(d->out_batches);
  free(d->kept);
}

/* Zero deltas (the boxes are the shifted anchors clipped to the image,
 * exact in float), scores of a few levels (many ties). */
static void grid_fill(const grid_config *c, grid_data *d) {
  uint32_t all = c->images * d->positions, state = 777;
  for (uint32_t i = 0; i < all; ++i) {
    state = state * 1103515245u + 12345u;
    d->scores[i] = (float)((state >> 16) % c->score_levels) / (float)c->score_levels;
  }
  for (uint32_t image = 0; image < c->images; ++image) {
    d->images[2 * image] = c->image_height;
    d->images[2 * image + 1] = c->image_width;
  }
  for (uint32_t i = 0; i < all; ++i) {
    uint32_t k = i % d->positions, a = k % c->anchors, cell = k / c->anchors;
    float x = (float)(cell % c->width) * c->stride, y = (float)(cell / c->width) * c->stride;
    const float *anchor = &c->anchor_boxes[4 * a];
    d->boxes[4 * i] = fminf(fmaxf(anchor[0] + x, 0.f), c->image_width);
    d->boxes[4 * i + 1] = fminf(fmaxf(anchor[1] + y, 0.f), c->image_height);
    d->boxes[4 * i + 2] = fminf(fmaxf(anchor[2] + x, 0.f), c->image_width);
    d->boxes[4 * i + 3] = fminf(fmaxf(anchor[3] + y, 0.f), c->image_height);
  }
}

static void grid_init(const grid_config *c, grid_data *d) {
  d->positions = c->height * c->width * c->anchors;
  uint32_t all = c->images * d->positions;
  uint32_t candidates = c->pre > 0 && (uint32_t)c->pre < d->positions ? (uint32_t)c->pre : d->positions;
  d->rows = c->images * (c->post > 0 && (uint32_t)c->post < candidates ? (uint32_t)c->post : candidates);
  d->scores = calloc(all, sizeof(float));
  d->deltas = calloc(4 * (size_t)all, sizeof(float));
  d->images = calloc(2 * c->images, sizeof(float));
  d->boxes = calloc(4 * (size_t)all, sizeof(float));
  d->out_scores = calloc(d->rows, sizeof(float));
  d->out_boxes = calloc(4 * (size_t)d->rows, sizeof(float));
  d->out_batches = calloc(d->rows, sizeof(int32_t));
  d->kept = calloc(d->positions, sizeof(uint32_t));
  assert_true(d->scores && d->deltas && d->images && d->boxes && d->out_scores && d->out_boxes && d->out_batches &&
              d->kept);
  grid_fill(c, d);
}

static void grid_args(const grid_config *c, grid_data *d, buffer_arg in[4], buffer_arg out[3]) {
  uint32_t all = c->images * d->positions;
  in[0] = (buffer_arg){d->scores, NULL, all * sizeof(float)};
  in[1] = (buffer_arg){d->deltas, NULL, 4 * (size_t)all * sizeof(float)};
  in[2] = (buffer_arg){c->anchor_boxes, NULL, 4 * c->anchors * sizeof(float)};
  in[3] = (buffer_arg){d->images, NULL, 2 * c->images * sizeof(float)};
  out[0] = (buffer_arg){NULL, d->out_scores, d->rows * sizeof(float)};
  out[1] = (buffer_arg){NULL, d->out_boxes, 4 * (size_t)d->rows * sizeof(float)};
  out[2] = (buffer_arg){NULL, d->out_batches, d->rows * sizeof(int32_t)};
}

/* Each image's rows after the previous images', as the reference keeps
 * them; enough rows per image to tell orders apart. */
static void grid_check(const grid_config *c, grid_data *d, const vknn_output_shape *shapes) {
  uint32_t row = 0;
  for (uint32_t image = 0; image < c->images; ++image) {
    const float *scores = &d->scores[image * d->positions], *boxes = &d->boxes[4 * (size_t)image * d->positions];
    const box_reference_proposals p = {scores, boxes, d->positions, c->pre, c->post, c->iou, 1.f,
                                       c->image_height, c->image_width};
    uint32_t rows = box_reference_generate_proposals(&p, d->kept);
    assert_true(rows != UINT32_MAX && rows > (c->post > 0 ? (uint32_t)c->post / 2 : 1u));
    for (uint32_t r = 0; r < rows; ++r, ++row) {
      uint32_t k = d->kept[r];
      assert_true(row < shapes[0].dimensions[0]);
      if (d->out_scores[row] != scores[k] || d->out_batches[row] != (int32_t)image ||
          memcmp(&d->out_boxes[4 * row], &boxes[4 * k], 4 * sizeof(float)) != 0)
        fail_msg("image %u row %u: score %g box x1 %g y1 %g, the reference position %u: %g %g %g", image, r,
                 d->out_scores[row], d->out_boxes[4 * row], d->out_boxes[4 * row + 1], k, scores[k], boxes[4 * k],
                 boxes[4 * k + 1]);
    }
  }
  assert_int_equal(shapes[0].dimensions[0], row);
}

/* The model once, checked against the reference. */
static void run_grid(runner_fixture *f, const grid_config *c) {
  model_builder *b = calloc(1, sizeof(*b));
  grid_data d = {0};
  assert_non_null(b);
  grid_init(c, &d);
  grid_build(b, c);
  buffer_arg in[4], out[3];
  grid_args(c, &d, in, out);
  vknn_output_shape shapes[3];
  model_runner_run(f->device, &f->log, b, in, out, shapes);
  grid_check(c, &d, shapes);
  grid_free(&d);
  free(b);
}

/* Anchors of 3 sizes on a stride-4 grid of a 32 x 64 image: the sort of 384
 * positions (padded to 512) for the pre-NMS maximum, the filter and NMS. */
static void test_proposals_many_positions(void **state) {
  static const float anchors[3 * 4] = {0, 0, 6, 6, 0, 0, 12, 4, 0, 0, 3, 9};
  const grid_config c = {1, 8, 16, 3, 100, 30, 4.f, 0.5f, 32.f, 64.f, anchors, 16};
  run_grid(*state, &c);
}

/* Faster R-CNN's region proposals at test time: 2 images of 600 x 800, a
 * 38 x 50 feature map at stride 16 with 9 anchors (3 sizes, 3 aspect
 * ratios; 17100 positions), the best 6000 by score through NMS at IoU 0.7,
 * 1000 kept: the steps take several select passes (src/ops/nms_passes.h). */
static void test_proposals_faster_rcnn(void **state) {
  static const float anchors[9 * 4] = {-83, -39, 100, 56,   -175, -87,  192, 104, -359, -183, 376, 200,
                                       -56, -56, 72,  72,   -120, -120, 136, 136, -248, -248, 264, 264,
                                       -36, -80, 52,  95,   -80,  -168, 96,  184, -168, -344, 184, 360};
  const grid_config c = {2, 38, 50, 9, 6000, 1000, 16.f, 0.7f, 600.f, 800.f, anchors, 1024};
  run_grid(*state, &c);
}

/* An IoU threshold no pair reaches: every one of 2304 candidates is kept,
 * one NMS step each, in order of score (ties by position), over as many
 * select passes as lavapipe's loop limiter needs. */
static void test_proposals_every_candidate_kept(void **state) {
  static const float anchors[3 * 4] = {0, 0, 6, 6, 0, 0, 12, 4, 0, 0, 3, 9};
  const grid_config c = {1, 12, 64, 3, -1, -1, 4.f, 1.5f, 48.f, 256.f, anchors, 64};
  run_grid(*state, &c);
}

/* The support query at the candidate limit (65536 per image): every
 * position of a 64 x 64 map with 16 anchors runs, without a pre-NMS
 * maximum or sorted for one; one position more (2 x 3 x 10923 = 65538) is
 * refused with a log line, with or without a maximum, and so are 65 images
 * of 65536 kept boxes (the write pass walks at most 2^22 rows). */
static void test_proposals_candidate_limit(void **state) {
  runner_fixture *f = *state;
  static const grid_config kCases[5] = {
      {1, 64, 64, 16, -1, 300, 16.f, 0.7f, 800.f, 800.f, NULL, 64},
      {1, 64, 64, 16, 12000, 1000, 16.f, 0.7f, 800.f, 800.f, NULL, 64},
      {1, 2, 3, 10923, -1, 300, 16.f, 0.7f, 800.f, 800.f, NULL, 64},
      {1, 2, 3, 10923, 6000, 300, 16.f, 0.7f, 800.f, 800.f, NULL, 64},
      {65, 64, 64, 16, -1, -1, 16.f, 0.7f, 800.f, 800.f, NULL, 64},
  };
  static const char *const kLogged[5] = {NULL, NULL, "65538 anchor positions per image, 65538 candidates: at most 65536",
                                         "65538 anchor positions per image, 6000 candidates: at most 65536",
                                         "65 images of 65536 kept boxes: at most 4194304 rows"};
  for (uint32_t i = 0; i < 5; ++i) {
    model_builder *b = calloc(1, sizeof(*b));
    assert_non_null(b);
    grid_build(b, &kCases[i]);
    bool supported = kLogged[i] != NULL;
    f->log.last[0] = '\0';
    vknn_status s = vknn_device_get_supported_operations(f->device, mb_finish(b), &supported, 1);
    if (s != VKNN_STATUS_NONE) fail_msg("case %u: status %d, logged \"%s\"", i, s, f->log.last);
    if (supported != (kLogged[i] == NULL)) fail_msg("case %u: supported %d, logged \"%s\"", i, supported, f->log.last);
    if (kLogged[i] != NULL && strstr(f->log.last, kLogged[i]) == NULL)
      fail_msg("case %u: logged \"%s\"", i, f->log.last);
    free(b);
  }
}

/* ---- post-processing executions ------------------------------------------------ */

enum { DP_MAX_ROWS = 8 };

typedef struct dp_result {
  float scores[DP_MAX_ROWS], boxes[DP_MAX_ROWS * 4];
  int32_t classes[DP_MAX_ROWS], count;
  vknn_output_shape shapes[4];
} dp_result;

/* Rows: (anchor, label, score); the rows after them up to rows are zero. */
typedef struct dp_row {
  uint32_t anchor;
  int32_t label;
  float score;
} dp_row;

static void run_dp(runner_fixture *f, dp_config c, const dp_row *rows, uint32_t count, uint32_t planned) {
  det_model *m = calloc(1, sizeof(*m));
  dp_result *r = calloc(1, sizeof(*r));
  assert_true(m != NULL && r != NULL);
  dp_build(m, F32, c);
  memset(r, 0x7f, sizeof(*r)); /* no zero the kernels did not write */
  const buffer_arg in[3] = {{kDpScores, NULL, sizeof(kDpScores)},
                            {kDpDeltas, NULL, sizeof(kDpDeltas)},
                            {kDpAnchors, NULL, sizeof(kDpAnchors)}};
  buffer_arg out[4] = {{NULL, r->scores, planned * sizeof(float)},
                       {NULL, r->boxes, planned * 4 * sizeof(float)},
                       {NULL, r->classes, planned * sizeof(int32_t)},
                       {NULL, &r->count, sizeof(int32_t)}};
  model_runner_run(f->device, &f->log, &m->b, in, out, r->shapes);
  assert_int_equal(r->shapes[0].dimensions[1], planned);
  assert_int_equal(r->shapes[1].dimensions[2], 4);
  assert_int_equal(r->shapes[3].dimensions[0], 1);
  assert_int_equal(r->count, count);
  for (uint32_t i = 0; i < planned; ++i) {
    bool real = i < count;
    assert_float_equal(r->scores[i], real ? rows[i].score : 0.f, 0.f);
    assert_int_equal(r->classes[i], real ? rows[i].label : 0);
    for (uint32_t k = 0; k < 4; ++k)
      assert_float_equal(r->boxes[4 * i + k], real ? kDpBoxes[rows[i].anchor][k] : 0.f, 0.f);
  }
  free(r);
  free(m);
}

/* Class 1 keeps anchors 0 and 2 (1 suppressed by 0), class 2 keeps 1 and 2
 * (at most 2 per class); the best 3 of them, labels from 0. */
static void test_postprocess_regular(void **state) {
  const dp_row rows[3] = {{0, 0, 0.9f}, {1, 1, 0.7f}, {2, 1, 0.6f}};
  run_dp(*state, kRegular, rows, 3, 3);
}

/* Room for 5: the 4 detections, then a zero row. */
static void test_postprocess_regular_zero_rows(void **state) {
  const dp_row rows[4] = {{0, 0, 0.9f}, {1, 1, 0.7f}, {2, 1, 0.6f}, {2, 0, 0.2f}};
  const dp_config c = {true, false, 5, 1, 2};
  run_dp(*state, c, rows, 4, 5);
}

/* Fast: NMS over the anchors' best scores keeps 0 and 2 (1 suppressed),
 * each with its best class; labels count the background. */
static void test_postprocess_fast(void **state) {
  const dp_row rows[2] = {{0, 1, 0.9f}, {2, 2, 0.6f}};
  const dp_config c = {false, true, 2, 1, 0};
  run_dp(*state, c, rows, 2, 2);
}

/* Fast with two classes per detection: each anchor's classes by score. */
static void test_postprocess_fast_two_classes(void **state) {
  const dp_row rows[4] = {{0, 1, 0.9f}, {0, 2, 0.1f}, {2, 2, 0.6f}, {2, 1, 0.2f}};
  const dp_config c = {false, true, 2, 2, 0};
  run_dp(*state, c, rows, 4, 4);
}

/* ---- SSD MobileNet's size, against the reference ------------------------------
 * 1917 anchors (SSD's six feature maps: 19x19 cells of 3 anchors, then 10x10,
 * 5x5, 3x3, 2x2 and 1x1 of 6), 91 classes, 100 detections; score threshold
 * 0, so that each class has about 1900 candidates (more than a workgroup's
 * shared memory held before); scores in steps of 1/1024, so that equal
 * scores meet in a class and the order of the reference's swaps decides
 * between them. Deltas move the centres only (exp(0) is exact on any
 * device), so the boxes are the host's to the bit. */
enum { SSD_ANCHORS = 1917, SSD_CLASSES = 91, SSD_DETECTIONS = 100, SSD_COPIES = 5 };

/* Room for SSD's anchors, or SSD_COPIES copies of them side by side (a
 * lane's share of a list then takes 3 words of marks) of 3 classes. */
typedef struct ssd_data {
  float scores[SSD_ANCHORS * SSD_CLASSES], deltas[SSD_COPIES * SSD_ANCHORS * 4], anchors[SSD_COPIES * SSD_ANCHORS * 4];
  float out_scores[SSD_DETECTIONS], out_boxes[SSD_DETECTIONS * 4];
  int32_t out_classes[SSD_DETECTIONS], count;
  float want_scores[SSD_DETECTIONS], want_boxes[SSD_DETECTIONS * 4];
  int32_t want_classes[SSD_DETECTIONS];
} ssd_data;

static uint32_t ssd_random(uint32_t *state) {
  *state = *state * 1103515245u + 12345u;
  return *state >> 16;
}

/* Anchors [ctr_y, ctr_x, h, w] of each map's cells, the map's scale over
 * aspect ratios 1, 2, 1/2, 3, 1/3 and a larger square. */
static uint32_t fill_ssd_anchors(float *anchors) {
  static const uint32_t kGrid[6] = {19, 10, 5, 3, 2, 1}, kPerCell[6] = {3, 6, 6, 6, 6, 6};
  static const float kRatio[6] = {1.f, 2.f, 0.5f, 3.f, 1.f / 3.f, 1.f};
  uint32_t n = 0;
  for (uint32_t l = 0; l < 6; ++l) {
    float scale = 0.2f + 0.15f * (float)l, g = (float)kGrid[l];
    for (uint32_t cell = 0; cell < kGrid[l] * kGrid[l]; ++cell)
      for (uint32_t k = 0; k < kPerCell[l]; ++k, ++n) {
        float root = sqrtf(kRatio[k]) * (k == 5 ? 1.2f : 1.f);
        const float anchor[4] = {((float)(cell / kGrid[l]) + 0.5f) / g, ((float)(cell % kGrid[l]) + 0.5f) / g,
                                 scale / root * (k == 5 ? 1.44f : 1.f), scale * root};
        memcpy(&anchors[4 * n], anchor, sizeof(anchor));
      }
  }
  return n;
}

/* copies times SSD's anchors, copy k moved k to the right. */
static void fill_ssd(ssd_data *d, uint32_t copies, uint32_t classes) {
  for (uint32_t k = 0; k < copies; ++k) {
    float *anchors = &d->anchors[4 * k * SSD_ANCHORS];
    assert_int_equal(fill_ssd_anchors(anchors), SSD_ANCHORS);
    for (uint32_t a = 0; a < SSD_ANCHORS; ++a) anchors[4 * a + 1] += (float)k;
  }
  uint32_t state = 1917;
  for (uint32_t i = 0; i < copies * SSD_ANCHORS * classes; ++i)
    d->scores[i] = (float)(ssd_random(&state) % 1024) / 1024.f;
  for (uint32_t a = 0; a < copies * SSD_ANCHORS; ++a) {
    d->deltas[4 * a] = ((float)(ssd_random(&state) % 9) - 4.f) / 4.f;
    d->deltas[4 * a + 1] = ((float)(ssd_random(&state) % 9) - 4.f) / 4.f;
  }
}

/* The support query accepts the model, and the execution gives the
 * reference's rows to the bit; logs the time of an execution after a first. */
static void run_ssd(runner_fixture *f, dp_config c, uint32_t copies, uint32_t classes, const char *name) {
  ssd_data *d = calloc(1, sizeof(*d));
  det_model *m = calloc(1, sizeof(*m));
  assert_true(d != NULL && m != NULL);
  uint32_t anchors = copies * SSD_ANCHORS;
  fill_ssd(d, copies, classes);
  dp_build_sized(m, F32, c, anchors, classes);
  bool supported[1] = {false};
  assert_int_equal(vknn_device_get_supported_operations(f->device, mb_finish(&m->b), supported, 1), VKNN_STATUS_NONE);
  assert_true(supported[0]);
  const buffer_arg in[3] = {{d->scores, NULL, anchors * classes * sizeof(float)},
                            {d->deltas, NULL, anchors * 4 * sizeof(float)},
                            {d->anchors, NULL, anchors * 4 * sizeof(float)}};
  buffer_arg out[4] = {{NULL, d->out_scores, sizeof(d->out_scores)},
                       {NULL, d->out_boxes, sizeof(d->out_boxes)},
                       {NULL, d->out_classes, sizeof(d->out_classes)},
                       {NULL, &d->count, sizeof(d->count)}};
  vknn_prepared_model *pm = model_runner_prepare(f->device, &f->log, &m->b);
  assert_int_equal(model_runner_execute(pm, &m->b, in, out, NULL), VKNN_STATUS_NONE);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  assert_int_equal(model_runner_execute(pm, &m->b, in, out, NULL), VKNN_STATUS_NONE);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  vknn_prepared_model_release(pm);
  print_message("%s: %u anchors x %u classes, %u detections: %.1f ms per execution\n", name, anchors, classes,
                SSD_DETECTIONS,
                (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-6);
  const box_postprocess_params p = {anchors, classes, 4, {10.f, 10.f, 10.f, 10.f}, c.regular,
                                    c.background_label, (uint32_t)c.max_detections, (uint32_t)c.classes_per_detection,
                                    (uint32_t)c.per_class, 0.f, 0.5f};
  uint32_t want = box_reference_postprocess(&p, d->scores, d->deltas, d->anchors, d->want_scores, d->want_boxes,
                                            d->want_classes);
  assert_int_equal(want, SSD_DETECTIONS); /* every row a detection */
  assert_int_equal(d->count, want);
  for (uint32_t r = 0; r < SSD_DETECTIONS; ++r)
    if (d->out_scores[r] != d->want_scores[r] || d->out_classes[r] != d->want_classes[r] ||
        memcmp(&d->out_boxes[4 * r], &d->want_boxes[4 * r], 4 * sizeof(float)) != 0)
      fail_msg("row %u: score %g class %d y1 %g x1 %g, the reference's %g %d %g %g", r, d->out_scores[r],
               d->out_classes[r], d->out_boxes[4 * r], d->out_boxes[4 * r + 1], d->want_scores[r], d->want_classes[r],
               d->want_boxes[4 * r], d->want_boxes[4 * r + 1]);
  free(m);
  free(d);
}

static void test_postprocess_ssd_regular(void **state) {
  const dp_config c = {true, false, SSD_DETECTIONS, 1, SSD_DETECTIONS};
  run_ssd(*state, c, 1, SSD_CLASSES, "regular NMS");
}

static void test_postprocess_ssd_fast(void **state) {
  const dp_config c = {false, true, SSD_DETECTIONS, 1, 1};
  run_ssd(*state, c, 1, SSD_CLASSES, "fast NMS");
}

/* 9585 anchors of 3 classes: each lane of a list's workgroup takes 75
 * places, their marks in 3 words. */
static void test_postprocess_many_anchors(void **state) {
  const dp_config regular = {true, false, SSD_DETECTIONS, 1, SSD_DETECTIONS / 2};
  const dp_config fast = {false, false, SSD_DETECTIONS, 1, 1};
  run_ssd(*state, regular, SSD_COPIES, 3, "regular NMS");
  run_ssd(*state, fast, SSD_COPIES, 3, "fast NMS");
}

/* 65537 anchors, one more than the kernel's candidate lists hold: the
 * support query reports the operation unsupported, naming the limit, and
 * prepare fails. */
static void test_postprocess_too_many_anchors(void **state) {
  runner_fixture *f = *state;
  det_model *m = calloc(1, sizeof(*m));
  assert_non_null(m);
  dp_build_sized(m, F32, kRegular, 65537, DP_CLASSES);
  bool supported[1] = {true};
  f->log.last[0] = '\0';
  assert_int_equal(vknn_device_get_supported_operations(f->device, mb_finish(&m->b), supported, 1), VKNN_STATUS_NONE);
  assert_false(supported[0]);
  if (strstr(f->log.last, "65537 anchors: at most 65536") == NULL) fail_msg("logged \"%s\"", f->log.last);
  vknn_prepared_model *pm = NULL;
  assert_int_equal(vknn_device_prepare_model(f->device, &m->b.model, VKNN_PREFER_FAST_SINGLE_ANSWER,
                                             VKNN_PRIORITY_MEDIUM, NULL, &pm),
                   VKNN_STATUS_GENERAL_FAILURE);
  assert_null(pm);
  free(m);
}

/* ---- BOX_WITH_NMS_LIMIT at size ---------------------------------------------
 * Hard NMS over many boxes against box_reference_box_nms_hard, row by row:
 * long lists take their NMS steps in several class passes (lavapipe's loop
 * limiter, src/ops/nms_passes.h). */

typedef struct box_nms_case {
  uint32_t boxes, classes, first_batch_boxes; /* boxes of batch 0, the rest batch 1 */
  float score_threshold, iou_threshold;
  int32_t max_detections;
  float spacing; /* boxes on a grid this far apart, 10 x 10 each; 0: random boxes */
} box_nms_case;

typedef struct box_nms_data {
  float *scores, *boxes, *out_scores, *out_boxes;
  int32_t *batches, *out_classes, *out_batches;
  box_reference_nms_row *want;
} box_nms_data;

static float box_nms_random(uint32_t *state) {
  *state = *state * 1103515245u + 12345u;
  return (float)(*state >> 16 & 0x7fff) / 32768.f;
}

/* Scores in steps of 1/1024 (ties), boxes on the grid (each class moved a
 * little) or random ones of 20 to 120 pixels in a 1000 x 800 image. */
static void box_nms_fill(const box_nms_case *c, box_nms_data *d) {
  uint32_t state = c->boxes * 31u + c->classes, columns = 256;
  for (uint32_t b = 0; b < c->boxes; ++b) {
    d->batches[b] = b < c->first_batch_boxes ? 0 : 1;
    for (uint32_t k = 0; k < c->classes; ++k) {
      uint32_t i = b * c->classes + k;
      d->scores[i] = floorf(box_nms_random(&state) * 1024.f) / 1024.f;
      float x = c->spacing * (float)(b % columns) + (float)k, y = c->spacing * (float)(b / columns);
      float w = 10.f, h = 10.f;
      if (c->spacing == 0.f) {
        x = floorf(box_nms_random(&state) * 900.f);
        y = floorf(box_nms_random(&state) * 700.f);
        w = 20.f + floorf(box_nms_random(&state) * 100.f);
        h = 20.f + floorf(box_nms_random(&state) * 100.f);
      }
      const float box[4] = {x, y, x + w, y + h};
      memcpy(&d->boxes[4 * i], box, sizeof(box));
    }
  }
}

/* Hard NMS drops a box by setting its score to 0, removed below the NMS
 * score threshold: a positive one below every score threshold here, so
 * that the steps are box_reference_hard_nms's. */
static const float kNmsScoreThreshold = 0.001f;

static void box_nms_build(model_builder *b, const box_nms_case *c) {
  mb_init(b);
  const uint32_t score_dims[2] = {c->boxes, c->classes}, box_dims[2] = {c->boxes, 4 * c->classes};
  const uint32_t n = c->boxes, out_dims[2] = {0, 4};
  const uint32_t in[9] = {mb_input(b, F32, score_dims, 2),
                          mb_input(b, F32, box_dims, 2),
                          mb_input(b, I32, &n, 1),
                          runner_real_scalar(b, REAL32, c->score_threshold),
                          mb_const_i32(b, c->max_detections),
                          mb_const_i32(b, 0),
                          runner_real_scalar(b, REAL32, c->iou_threshold),
                          runner_real_scalar(b, REAL32, 0.5f),
                          runner_real_scalar(b, REAL32, kNmsScoreThreshold)};
  const uint32_t outs[4] = {mb_output(b, F32, out_dims, 1), mb_output(b, F32, out_dims, 2),
                            mb_output(b, I32, out_dims, 1), mb_output(b, I32, out_dims, 1)};
  mb_operation(b, VKNN_OPERATION_BOX_WITH_NMS_LIMIT, in, 9, outs, 4);
}

/* The reference's rows of both batches into d->want; their number. */
static uint32_t box_nms_want(const box_nms_case *c, const box_nms_data *d, uint32_t *first_rows) {
  uint32_t rows = box_reference_box_nms_hard(d->scores, d->boxes, 0, c->first_batch_boxes, c->classes,
                                             c->score_threshold, c->iou_threshold, c->max_detections, d->want);
  assert_int_not_equal(rows, UINT32_MAX);
  *first_rows = rows;
  uint32_t more = box_reference_box_nms_hard(d->scores, d->boxes, c->first_batch_boxes,
                                             c->boxes - c->first_batch_boxes, c->classes, c->score_threshold,
                                             c->iou_threshold, c->max_detections, d->want + rows);
  assert_int_not_equal(more, UINT32_MAX);
  return rows + more;
}

static void box_nms_check(const box_nms_case *c, const box_nms_data *d, uint32_t rows, uint32_t first_rows) {
  for (uint32_t r = 0; r < rows; ++r) {
    const box_reference_nms_row *w = &d->want[r];
    const float *box = &d->boxes[4 * (w->box * c->classes + w->cls)];
    if (d->out_scores[r] != w->score || d->out_classes[r] != (int32_t)w->cls ||
        d->out_batches[r] != (r < first_rows ? 0 : 1) || memcmp(&d->out_boxes[4 * r], box, 4 * sizeof(float)) != 0)
      fail_msg("row %u of %u: score %g class %d batch %d x1 %g y1 %g, the reference's %g %u (box %u) %g %g", r, rows,
               d->out_scores[r], d->out_classes[r], d->out_batches[r], d->out_boxes[4 * r], d->out_boxes[4 * r + 1],
               w->score, w->cls, w->box, box[0], box[1]);
  }
}

static void run_box_nms(runner_fixture *f, const box_nms_case *c, const char *name) {
  uint32_t cells = c->boxes * c->classes, rows_max = c->boxes * (c->classes - 1u);
  box_nms_data d = {calloc(cells, sizeof(float)),         calloc(4u * cells, sizeof(float)),
                    calloc(rows_max, sizeof(float)),      calloc(4u * rows_max, sizeof(float)),
                    calloc(c->boxes, sizeof(int32_t)),    calloc(rows_max, sizeof(int32_t)),
                    calloc(rows_max, sizeof(int32_t)),    calloc(rows_max, sizeof(box_reference_nms_row))};
  model_builder *b = calloc(1, sizeof(*b));
  assert_true(d.scores && d.boxes && d.out_scores && d.out_boxes && d.batches && d.out_classes && d.out_batches &&
              d.want && b);
  box_nms_fill(c, &d);
  box_nms_build(b, c);
  const buffer_arg args[3] = {{d.scores, NULL, cells * sizeof(float)},
                              {d.boxes, NULL, 4u * cells * sizeof(float)},
                              {d.batches, NULL, c->boxes * sizeof(int32_t)}};
  buffer_arg results[4] = {{NULL, d.out_scores, rows_max * sizeof(float)},
                           {NULL, d.out_boxes, 4u * rows_max * sizeof(float)},
                           {NULL, d.out_classes, rows_max * sizeof(int32_t)},
                           {NULL, d.out_batches, rows_max * sizeof(int32_t)}};
  vknn_output_shape shapes[4];
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  model_runner_run(f->device, &f->log, b, args, results, shapes);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  uint32_t first_rows, rows = box_nms_want(c, &d, &first_rows);
  print_message("%s: %u boxes x %u classes, %u rows: %.0f ms (prepare and execution)\n", name, c->boxes, c->classes,
                rows, (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-6);
  assert_int_equal(shapes[0].dimensions[0], rows);
  box_nms_check(c, &d, rows, first_rows);
  free(b);
  void *blocks[8] = {d.scores, d.boxes, d.out_scores, d.out_boxes, d.batches, d.out_classes, d.out_batches, d.want};
  for (uint32_t i = 0; i < 8; ++i) free(blocks[i]);
}

/* 1024 boxes of one batch, 3 classes, an IoU threshold no pair reaches:
 * every box above the score threshold is kept (about 2900 rows), lists of
 * about 970 taking as many NMS steps, in 3 class passes. */
static const box_nms_case kEveryBoxKept = {1024, 4, 1024, 0.05f, 1.5f, -1, 12.f};
/* Mask R-CNN's box head: 1000 boxes of 81 classes, score threshold 0.05,
 * hard NMS at 0.5, 100 detections. */
static const box_nms_case kMaskRcnn = {1000, 81, 1000, 0.05f, 0.5f, 100, 0.f};
/* 2000 boxes of 3 classes in two batches (1200 and 800) on a grid where
 * neighbours in a row or column overlap (IoU 1/3): IoU 0.3 drops the
 * neighbours of each choice; lists of up to 1200 candidates take their
 * steps in 7 class passes. (Every box is a workgroup of each class pass,
 * which is what such cases cost on lavapipe: 5000 boxes took 5.6 s.) */
static const box_nms_case kThousands = {2000, 3, 1200, 0.05f, 0.3f, -1, 5.f};
/* 16384 boxes of 2 classes, 100 detections: 2 class passes of 57 steps
 * over a list of about 15500 (65536 boxes, the most supported, ran the
 * same way in 7 passes and 13 s on lavapipe; the support query's test
 * keeps that size). */
static const box_nms_case kLargest = {16384, 2, 16384, 0.05f, 0.5f, 100, 8.f};

static void test_box_nms_every_box_kept(void **state) { run_box_nms(*state, &kEveryBoxKept, "every box kept"); }
static void test_box_nms_mask_rcnn(void **state) { run_box_nms(*state, &kMaskRcnn, "Mask R-CNN box head"); }
static void test_box_nms_thousands(void **state) { run_box_nms(*state, &kThousands, "thousands of boxes"); }
static void test_box_nms_largest(void **state) { run_box_nms(*state, &kLargest, "16384 boxes"); }

/* Sizes past what the kernels hold or lavapipe's loop limiter allows: the
 * support query refuses them with a log line naming the limit. */
static void test_box_nms_limits(void **state) {
  runner_fixture *f = *state;
  static const box_nms_case kCases[5] = {
      {65536, 2, 65536, 0.05f, 0.5f, 100, 8.f},  {65537, 2, 65537, 0.05f, 0.5f, 100, 8.f},
      {1000, 133, 1000, 0.05f, 0.5f, 100, 0.f},  {1025, 2, 1025, -0.5f, 0.5f, -1, 8.f},
      {1024, 2, 1024, -0.5f, 0.5f, -1, 8.f},
  };
  static const char *const kLogged[5] = {NULL, "65537 boxes of 2 classes: at most 65536 boxes and 131072",
                                         "1000 boxes of 133 classes: at most 65536 boxes and 131072",
                                         "score threshold -0.5: choices that may leave score order", NULL};
  for (uint32_t i = 0; i < 5; ++i) {
    model_builder *b = calloc(1, sizeof(*b));
    assert_non_null(b);
    box_nms_build(b, &kCases[i]);
    bool supported[1] = {kLogged[i] != NULL};
    f->log.last[0] = '\0';
    assert_int_equal(vknn_device_get_supported_operations(f->device, mb_finish(b), supported, 1), VKNN_STATUS_NONE);
    if (supported[0] != (kLogged[i] == NULL)) fail_msg("case %u: supported %d (%s)", i, supported[0], f->log.last);
    if (kLogged[i] != NULL && strstr(f->log.last, kLogged[i]) == NULL) fail_msg("case %u: logged \"%s\"", i, f->log.last);
    free(b);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rules),
      cmocka_unit_test(test_proposals_rows_from_the_data),
      cmocka_unit_test(test_proposals_pre_nms_maximum),
      cmocka_unit_test(test_proposals_post_nms_maximum),
      cmocka_unit_test(test_proposals_insufficient_size),
      cmocka_unit_test(test_proposals_empty_anchor),
      cmocka_unit_test(test_proposals_parameters_at_execution),
      cmocka_unit_test(test_proposals_nan_score),
      cmocka_unit_test(test_proposals_quant8),
      cmocka_unit_test(test_proposals_quant8_signed),
      cmocka_unit_test(test_proposals_rows_concatenated),
      cmocka_unit_test(test_proposals_rows_concatenated_five_times),
      cmocka_unit_test(test_proposals_many_positions),
      cmocka_unit_test(test_proposals_candidate_limit),
      cmocka_unit_test(test_proposals_faster_rcnn),
      cmocka_unit_test(test_proposals_every_candidate_kept),
      cmocka_unit_test(test_postprocess_regular),
      cmocka_unit_test(test_postprocess_regular_zero_rows),
      cmocka_unit_test(test_postprocess_fast),
      cmocka_unit_test(test_postprocess_fast_two_classes),
      cmocka_unit_test(test_postprocess_ssd_regular),
      cmocka_unit_test(test_postprocess_ssd_fast),
      cmocka_unit_test(test_postprocess_many_anchors),
      cmocka_unit_test(test_postprocess_too_many_anchors),
      cmocka_unit_test(test_box_nms_every_box_kept),
      cmocka_unit_test(test_box_nms_mask_rcnn),
      cmocka_unit_test(test_box_nms_thousands),
      cmocka_unit_test(test_box_nms_largest),
      cmocka_unit_test(test_box_nms_limits),
  };
  return cmocka_run_group_tests(tests, runner_fixture_setup, runner_fixture_teardown);
}
