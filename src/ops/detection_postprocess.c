/* DETECTION_POSTPROCESSING (SSD post-processing): per batch, every anchor
 * [ctr_y, ctr_x, h, w] moved by its deltas [dy, dx, dh, dw] over their
 * scales into a box [y1, x1, y2, x2]; then hard NMS, regular (per class
 * other than 0, at most a maximum per class, the best of all classes up to
 * the maximum detections) or fast (once over each anchor's highest class
 * score, up to the maximum detections, each chosen anchor giving its best
 * classes up to a maximum per detection). Kernel:
 * shaders/detection_postprocess.comp, three passes (decode, nms, write).
 * The outputs have a fixed size, [batches, detections] (fast: times the
 * classes per detection): the rows past a batch's detections are zero, and
 * the number of detections of each batch is the last output. Up to 65536
 * anchors (POSTPROCESS_MAX_ANCHORS; SSD MobileNet has 1917): each NMS
 * workgroup keeps its candidate list in scratch buffers of the plan, not in
 * shared memory, so the limit is the kernel's marks per lane (and the
 * storage-buffer range, which the planner checks); more anchors are
 * unsupported. Inputs: scores
 * [batches, anchors, classes], deltas [batches, anchors, length >= 4],
 * anchors [anchors, 4], the scales of y, x, h and w, regular or fast, the
 * maximum detections, classes per detection and detections per class, the
 * score and IoU thresholds, whether labels count the background. */
#include <string.h>

#include "ops/op_common.h"
#include "ops/known_dims.h"
#include "ops/nms_passes.h"
#include "model/operand_type.h"

enum {
  INPUT_SCORES = 0,
  INPUT_DELTAS = 1,
  INPUT_ANCHORS = 2,
  INPUT_SCALE_Y = 3, /* then x, h, w */
  INPUT_REGULAR = 7,
  INPUT_MAX_DETECTIONS = 8,
  INPUT_MAX_CLASSES_PER_DETECTION = 9,
  INPUT_MAX_PER_CLASS = 10,
  INPUT_SCORE_THRESHOLD = 11,
  INPUT_IOU_THRESHOLD = 12,
  INPUT_BACKGROUND_LABEL = 13,
  INPUT_COUNT = 14,
};

enum { OUTPUT_SCORES = 0, OUTPUT_BOXES = 1, OUTPUT_CLASSES = 2, OUTPUT_DETECTIONS = 3, OUTPUT_COUNT = 4 };

#define POSTPROCESS_MAX_ANCHORS 65536u /* detection_postprocess.comp's MAX_CANDIDATES */
#define POSTPROCESS_LANES 128u       /* its LANES */
#define DECODE_LANES 64u

static const char *const kName = "DETECTION_POSTPROCESSING";
static const char *const kScaleNames[4] = {"the scale of y", "the scale of x", "the scale of h", "the scale of w"};

static bool check_parameter_types(const vknn_logger *log, const vknn_operation *op, const vknn_operand *o,
                                  int32_t real) {
  for (uint32_t i = 0; i < 4; ++i)
    if (!vknn_op_check_type(log, op, kScaleNames[i], &o[op->inputs[INPUT_SCALE_Y + i]], real)) return false;
  return vknn_op_check_type(log, op, "the NMS choice", &o[op->inputs[INPUT_REGULAR]], VKNN_OPERAND_BOOL) &&
         vknn_op_check_type(log, op, "the maximum detections", &o[op->inputs[INPUT_MAX_DETECTIONS]],
                            VKNN_OPERAND_INT32) &&
         vknn_op_check_type(log, op, "the maximum classes per detection",
                            &o[op->inputs[INPUT_MAX_CLASSES_PER_DETECTION]], VKNN_OPERAND_INT32) &&
         vknn_op_check_type(log, op, "the maximum detections per class", &o[op->inputs[INPUT_MAX_PER_CLASS]],
                            VKNN_OPERAND_INT32) &&
         vknn_op_check_type(log, op, "the score threshold", &o[op->inputs[INPUT_SCORE_THRESHOLD]], real) &&
         vknn_op_check_type(log, op, "the IoU threshold", &o[op->inputs[INPUT_IOU_THRESHOLD]], real) &&
         vknn_op_check_type(log, op, "the background label choice", &o[op->inputs[INPUT_BACKGROUND_LABEL]],
                            VKNN_OPERAND_BOOL);
}

static bool check_outputs(const vknn_logger *log, const vknn_operation *op, const vknn_operand *o, int32_t type) {
  const vknn_operand *out = &o[op->outputs[OUTPUT_SCORES]];
  return vknn_op_check_type(log, op, "the output scores", out, type) &&
         vknn_op_check_type(log, op, "the output boxes", &o[op->outputs[OUTPUT_BOXES]], type) &&
         vknn_op_check_type(log, op, "the output classes", &o[op->outputs[OUTPUT_CLASSES]],
                            VKNN_OPERAND_TENSOR_INT32) &&
         vknn_op_check_type(log, op, "the detection counts", &o[op->outputs[OUTPUT_DETECTIONS]],
                            VKNN_OPERAND_TENSOR_INT32) &&
         vknn_op_check_rank(log, op, "the output scores", out, 2) &&
         vknn_op_check_rank(log, op, "the output boxes", &o[op->outputs[OUTPUT_BOXES]], 3) &&
         vknn_op_check_rank(log, op, "the output classes", &o[op->outputs[OUTPUT_CLASSES]], 2) &&
         vknn_op_check_rank(log, op, "the detection counts", &o[op->outputs[OUTPUT_DETECTIONS]], 1);
}

static vknn_status validate_postprocess(const vknn_logger *log, const vknn_model *model, const vknn_subgraph *sg,
                                        const vknn_operation *op) {
  (void)model;
  int32_t type, real; /* float only: no quantized types */
  if (!vknn_op_check_counts(log, sg, op, INPUT_COUNT, INPUT_COUNT, OUTPUT_COUNT) ||
      !vknn_op_check_score_type(log, sg, op, false, &type, &real))
    return VKNN_STATUS_INVALID_ARGUMENT;
  const vknn_operand *o = sg->operands;
  bool ok = vknn_op_check_type(log, op, "the deltas", &o[op->inputs[INPUT_DELTAS]], type) &&
            vknn_op_check_type(log, op, "the anchors", &o[op->inputs[INPUT_ANCHORS]], type) &&
            check_parameter_types(log, op, o, real) &&
            vknn_op_check_rank(log, op, "the scores", &o[op->inputs[INPUT_SCORES]], 3) &&
            vknn_op_check_rank(log, op, "the deltas", &o[op->inputs[INPUT_DELTAS]], 3) &&
            vknn_op_check_rank(log, op, "the anchors", &o[op->inputs[INPUT_ANCHORS]], 2) &&
            check_outputs(log, op, o, type);
  return ok ? VKNN_STATUS_NONE : VKNN_STATUS_INVALID_ARGUMENT;
}

typedef struct postprocess_params {
  uint32_t batches, anchors, classes, box_length;
  float scale_y, scale_x, scale_h, scale_w;
  uint32_t regular;
  uint32_t max_detections, max_classes_per_detection, max_per_class;
  float score_threshold, iou_threshold;
  uint32_t background_label;
  uint32_t rows;
  uint32_t step_begin, step_end; /* the nms pass's steps */
} postprocess_params;
VKNN_PUSH_LAYOUT(detection_postprocess, postprocess_params);

/* The constant parameters, read as the kernels take them. */
typedef struct postprocess_values {
  float scales[4], score_threshold, iou_threshold;
  int32_t limits[3]; /* detections, classes per detection, detections per class */
  bool regular, background_label;
} postprocess_values;

static vknn_status read_parameters(vknn_graph *graph, const vknn_operation *op, postprocess_values *v) {
  vknn_status s = vknn_op_require_constant_params(graph, op, INPUT_SCALE_Y, INPUT_COUNT - INPUT_SCALE_Y);
  if (s != VKNN_STATUS_NONE) return s;
  const uint32_t *in = op->inputs;
  bool ok = vknn_graph_const_bool(graph, in[INPUT_REGULAR], &v->regular) &&
            vknn_graph_const_i32_list(graph, op, INPUT_MAX_DETECTIONS, 3, v->limits) &&
            vknn_graph_const_float(graph, in[INPUT_SCORE_THRESHOLD], &v->score_threshold) &&
            vknn_graph_const_float(graph, in[INPUT_IOU_THRESHOLD], &v->iou_threshold) &&
            vknn_graph_const_bool(graph, in[INPUT_BACKGROUND_LABEL], &v->background_label);
  for (uint32_t i = 0; i < 4 && ok; ++i) ok = vknn_graph_const_float(graph, in[INPUT_SCALE_Y + i], &v->scales[i]);
  if (!ok) {
    VKNN_LOG_E(graph->log, "compilation", "%s: the parameters must be constants", kName);
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  return VKNN_STATUS_NONE;
}

/* The documented ranges of the parameters. */
static vknn_status check_values(const vknn_logger *log, const postprocess_values *v) {
  for (uint32_t i = 0; i < 4; ++i)
    if (!(v->scales[i] > 0.f)) {
      VKNN_LOG_E(log, "model", "%s: %s must be above 0, not %g", kName, kScaleNames[i], (double)v->scales[i]);
      return VKNN_STATUS_INVALID_ARGUMENT;
    }
  const char *broken = !(v->score_threshold >= 0.f)                 ? "the score threshold must not be negative"
                       : !(v->iou_threshold >= 0.f)                 ? "the IoU threshold must not be negative"
                       : v->limits[0] <= 0                          ? "the maximum detections must be above 0"
                       : v->regular && v->limits[2] <= 0            ? "the maximum detections per class must be above 0"
                       : !v->regular && v->limits[1] <= 0           ? "the maximum classes per detection must be above 0"
                                                                    : NULL;
  if (broken != NULL) {
    VKNN_LOG_E(log, "model", "%s: %s", kName, broken);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  return VKNN_STATUS_NONE;
}

/* Whether scores, deltas and anchors fit each other as far as their
 * dimensions are known (ops/known_dims.h). */
static bool shapes_fit(const vknn_tensor *scores, const vknn_tensor *deltas, const vknn_tensor *anchors) {
  uint32_t batches = vknn_known_dim(scores, 3, 0), count = vknn_known_dim(scores, 3, 1);
  uint32_t classes = vknn_known_dim(scores, 3, 2), length = vknn_known_dim(deltas, 3, 2);
  bool ranks = (scores->rank == 3 || !scores->shape_known) && (deltas->rank == 3 || !deltas->shape_known);
  return ranks && classes != 1 && (length == 0 || length >= 4) &&
         vknn_dims_agree(vknn_known_dim(deltas, 3, 0), batches) &&
         vknn_dims_agree(vknn_known_dim(deltas, 3, 1), count) && vknn_dims_fit(anchors, 2, count, 4);
}

/* Shapes: scores [batches, anchors, classes > 1], deltas [batches, anchors,
 * length >= 4], anchors [anchors, 4], as far as they are known. */
static vknn_status check_shapes(const vknn_graph *graph, const vknn_operation *op) {
  const vknn_tensor *t = graph->tensors;
  const vknn_tensor *scores = &t[op->inputs[INPUT_SCORES]], *deltas = &t[op->inputs[INPUT_DELTAS]];
  if (!shapes_fit(scores, deltas, &t[op->inputs[INPUT_ANCHORS]])) {
    VKNN_LOG_E(graph->log, "model",
               "%s: scores must be [batches, anchors, classes] with classes > 1, deltas [batches, anchors, "
               "length] with length >= 4, anchors [anchors, 4]",
               kName);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  if (vknn_known_dim(scores, 3, 1) > POSTPROCESS_MAX_ANCHORS) {
    VKNN_LOG_E(graph->log, "compilation", "%s: %u anchors: at most %u are supported", kName, scores->dims[1],
               POSTPROCESS_MAX_ANCHORS);
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  return VKNN_STATUS_NONE;
}

/* The scratch of the passes: decoded boxes, scores in float32, each
 * anchor's best score; per NMS workgroup its candidate list (box and score
 * bits) with a mark per place, then its chosen boxes (list_stride() places
 * in the kernel); the lengths of the chosen lists. */
enum {
  SCRATCH_DECODED,
  SCRATCH_REAL_SCORES,
  SCRATCH_BEST_SCORES,
  SCRATCH_ENTRIES,
  SCRATCH_MARKS,
  SCRATCH_SELECTED,
  SCRATCH_LENGTHS,
  SCRATCH_COUNT
};

/* Words of each scratch tensor, in 64 bits: their sum bounds every index
 * the kernels form. */
static uint64_t scratch_words(const postprocess_params *p, uint64_t words[SCRATCH_COUNT]) {
  uint64_t boxes = (uint64_t)p->batches * p->anchors, lists = (uint64_t)p->batches * (p->classes - 1u);
  uint64_t nms_lists = p->regular ? lists : p->batches;
  uint32_t limit = p->regular ? p->max_per_class : p->max_detections;
  uint64_t stride = limit < p->anchors ? limit : p->anchors;
  const uint64_t all[SCRATCH_COUNT] = {4u * boxes, boxes * p->classes, boxes, 2u * nms_lists * p->anchors,
                                       nms_lists * p->anchors, 2u * nms_lists * stride, 3u * lists /* lengths, NMS state */};
  uint64_t sum = 0;
  for (uint32_t i = 0; i < SCRATCH_COUNT; ++i) sum += words[i] = all[i];
  return sum;
}

/* Every index the kernels form into the scratch fits in 32 bits (the
 * planner then checks each tensor against the device's binding range). */
static vknn_status check_scratch(const vknn_logger *log, const postprocess_params *p) {
  uint64_t words[SCRATCH_COUNT], total = scratch_words(p, words);
  if (total > UINT32_MAX) {
    VKNN_LOG_E(log, "compilation", "%s: %llu words of scratch are too many (%u batches, %u anchors, %u classes)",
               kName, (unsigned long long)total, p->batches, p->anchors, p->classes);
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  return VKNN_STATUS_NONE;
}

/* The parameters and the shapes known so far are checked before the
 * operation waits for the rest: a model whose shapes an execution gives
 * still has them checked at prepare. */
static vknn_status read_geometry(vknn_graph *graph, const vknn_operation *op, postprocess_params *p) {
  postprocess_values v;
  vknn_status s = read_parameters(graph, op, &v);
  if (s == VKNN_STATUS_NONE) s = check_values(graph->log, &v);
  if (s == VKNN_STATUS_NONE) s = check_shapes(graph, op);
  if (s == VKNN_STATUS_NONE) s = vknn_op_require_input_shapes(graph, op, INPUT_ANCHORS + 1);
  if (s != VKNN_STATUS_NONE) return s;
  const vknn_tensor *scores = &graph->tensors[op->inputs[INPUT_SCORES]];
  uint64_t rows = (uint64_t)v.limits[0] * (v.regular ? 1u : (uint32_t)v.limits[1]);
  if (rows * scores->dims[0] > UINT32_MAX / 16u) {
    VKNN_LOG_E(graph->log, "compilation", "%s: %llu detections per batch are too many", kName,
               (unsigned long long)rows);
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  *p = (postprocess_params){scores->dims[0],   scores->dims[1],
                            scores->dims[2],   graph->tensors[op->inputs[INPUT_DELTAS]].dims[2],
                            v.scales[0],       v.scales[1],
                            v.scales[2],       v.scales[3],
                            v.regular,         (uint32_t)v.limits[0],
                            (uint32_t)v.limits[1], (uint32_t)v.limits[2],
                            v.score_threshold, v.iou_threshold,
                            v.background_label, (uint32_t)rows,
                            0,                 0};
  return check_scratch(graph->log, p);
}

static vknn_status infer_postprocess(vknn_graph *graph, const vknn_operation *op) {
  postprocess_params p;
  vknn_status s = read_geometry(graph, op, &p);
  if (s != VKNN_STATUS_NONE) return s;
  const uint32_t dims[3] = {p.batches, p.rows, 4};
  s = vknn_op_set_output_shape(graph, op, OUTPUT_SCORES, dims, 2);
  if (s == VKNN_STATUS_NONE) s = vknn_op_set_output_shape(graph, op, OUTPUT_BOXES, dims, 3);
  if (s == VKNN_STATUS_NONE) s = vknn_op_set_output_shape(graph, op, OUTPUT_CLASSES, dims, 2);
  if (s == VKNN_STATUS_NONE) s = vknn_op_set_output_shape(graph, op, OUTPUT_DETECTIONS, dims, 1);
  return s;
}

/* The scratch tensors (sizes checked by check_scratch): float32 up to the
 * NMS entries, int32 from there. */
static bool add_scratch(vknn_graph *graph, const postprocess_params *p, uint32_t out[SCRATCH_COUNT]) {
  uint64_t words[SCRATCH_COUNT];
  scratch_words(p, words);
  return vknn_op_add_scratch(graph, words, SCRATCH_COUNT, SCRATCH_ENTRIES, out);
}

/* Binds the scratch tensors listed (SCRATCH_COUNT ends the list). */
static void bind_scratch(vknn_dispatch *d, const uint32_t scratch[SCRATCH_COUNT], const uint32_t *which,
                         vknn_access access) {
  for (; *which != SCRATCH_COUNT; ++which) vknn_dispatch_bind(d, scratch[*which], access);
}

/* The scratch the decode pass writes and the later ones read. */
static const uint32_t kDecoded[] = {SCRATCH_DECODED, SCRATCH_REAL_SCORES, SCRATCH_BEST_SCORES, SCRATCH_COUNT};

/* The nms passes: the steps up to the limit, as many a pass as lavapipe's
 * loop limiter allows (ops/nms_passes.h); the first gathers the lists, the
 * last writes the chosen ones. */
static vknn_status add_nms_passes(vknn_dispatch_list *out_list, postprocess_params *p,
                                  const uint32_t x[SCRATCH_COUNT]) {
  static const uint32_t kNmsOut[] = {SCRATCH_ENTRIES, SCRATCH_MARKS, SCRATCH_SELECTED, SCRATCH_LENGTHS, SCRATCH_COUNT};
  uint64_t groups = (uint64_t)p->batches * (p->regular ? p->classes - 1u : 1u);
  uint32_t limit = p->regular ? p->max_per_class : p->max_detections;
  uint32_t per_pass = vknn_nms_steps_per_pass(p->anchors, POSTPROCESS_LANES);
  uint32_t passes = vknn_nms_pass_count(limit < p->anchors ? limit : p->anchors, per_pass);
  for (uint32_t i = 0; i < passes; ++i) {
    p->step_begin = i * per_pass;
    p->step_end = i + 1 == passes ? limit : (i + 1) * per_pass;
    vknn_dispatch *d = vknn_op_add_pass(out_list, VKNN_SHADER_DETECTION_POSTPROCESS_NMS, p, sizeof(*p),
                                        POSTPROCESS_LANES, groups * POSTPROCESS_LANES);
    if (d == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
    bind_scratch(d, x, kDecoded, VKNN_ACCESS_READ);
    /* The candidate lists and their state: written and read by these passes alone. */
    bind_scratch(d, x, kNmsOut, i == 0 ? VKNN_ACCESS_WRITE : VKNN_ACCESS_READ | VKNN_ACCESS_WRITE);
  }
  p->step_begin = p->step_end = 0;
  return VKNN_STATUS_NONE;
}

static vknn_status lower_postprocess(vknn_graph *graph, const vknn_operation *op, vknn_dispatch_list *out_list) {
  postprocess_params p;
  vknn_status s = read_geometry(graph, op, &p);
  if (s != VKNN_STATUS_NONE) return s;
  bool f16 = graph->tensors[op->inputs[INPUT_SCORES]].type == VKNN_OPERAND_TENSOR_FLOAT16;
  uint32_t x[SCRATCH_COUNT];
  if (!add_scratch(graph, &p, x)) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  static const uint32_t kWriteIn[] = {SCRATCH_DECODED, SCRATCH_REAL_SCORES, SCRATCH_SELECTED, SCRATCH_LENGTHS,
                                      SCRATCH_COUNT};
  vknn_dispatch *d = vknn_op_add_pass(
      out_list, f16 ? VKNN_SHADER_DETECTION_POSTPROCESS_DECODE_F16 : VKNN_SHADER_DETECTION_POSTPROCESS_DECODE_F32,
      &p, sizeof(p), DECODE_LANES, (uint64_t)p.batches * p.anchors);
  if (d == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  for (uint32_t i = INPUT_SCORES; i <= INPUT_ANCHORS; ++i) vknn_dispatch_bind(d, op->inputs[i], VKNN_ACCESS_READ);
  bind_scratch(d, x, kDecoded, VKNN_ACCESS_WRITE);
  s = add_nms_passes(out_list, &p, x);
  if (s != VKNN_STATUS_NONE) return s;
  d = vknn_op_add_pass(
      out_list, f16 ? VKNN_SHADER_DETECTION_POSTPROCESS_WRITE_F16 : VKNN_SHADER_DETECTION_POSTPROCESS_WRITE_F32, &p,
      sizeof(p), POSTPROCESS_LANES, (uint64_t)p.batches * POSTPROCESS_LANES);
  if (d == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  bind_scratch(d, x, kWriteIn, VKNN_ACCESS_READ);
  for (uint32_t i = 0; i < OUTPUT_COUNT; ++i)
    vknn_dispatch_bind(d, vknn_graph_op_output(graph, op, i), VKNN_ACCESS_WRITE);
  return VKNN_STATUS_NONE;
}

const vknn_op_def vknn_op_detection_postprocessing = {VKNN_OPERATION_DETECTION_POSTPROCESSING, false,
                                                      validate_postprocess, infer_postprocess, lower_postprocess};
