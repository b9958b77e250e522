/* BOX_WITH_NMS_LIMIT: per batch (a run of boxes with equal batch indices)
 * and class other than 0 (the background), the boxes scoring above a
 * threshold go through non-maximum suppression (hard, linear or gaussian
 * decay of the scores), then the run keeps its best ones up to a maximum,
 * ordered by class, then score. Kernel: shaders/box_nms.comp, three stages
 * (per (run, class) lists, the limit, the writes); the lists live in
 * scratch buffers and take their NMS steps in as many class passes as
 * lavapipe's loop limiter needs (ops/nms_passes.h), which also bounds the
 * sizes supported (check_loops). How many boxes come out
 * depends on the data: the outputs are planned at their largest ((classes -
 * 1) x boxes rows) and the last pass writes the real number into a count
 * word the execution reads after the fence (docs/architecture.md, "Outputs
 * whose size the data decide"). Inputs: scores [boxes, classes], boxes
 * [boxes, 4 x classes] (quant16 in 1/8 pixel with quant8 scores), batch
 * indices [boxes], then the score threshold, the maximum per batch (negative:
 * none), the kernel, the IoU threshold, sigma and the NMS score threshold. */
#include <string.h>

#include "ops/op_common.h"
#include "ops/known_dims.h"
#include "ops/nms_passes.h"
#include "graph/runtime_check.h"
#include "model/operand_type.h"

enum {
  INPUT_SCORES = 0,
  INPUT_BOXES = 1,
  INPUT_BATCHES = 2,
  INPUT_SCORE_THRESHOLD = 3,
  INPUT_MAX_DETECTIONS = 4,
  INPUT_KERNEL = 5,
  INPUT_IOU_THRESHOLD = 6,
  INPUT_SIGMA = 7,
  INPUT_NMS_SCORE_THRESHOLD = 8,
  INPUT_COUNT = 9,
};

enum { OUTPUT_SCORES = 0, OUTPUT_BOXES = 1, OUTPUT_CLASSES = 2, OUTPUT_BATCHES = 3, OUTPUT_COUNT = 4 };

/* Boxes of one batch a class list holds (box_nms.comp's MAX_CANDIDATES: a
 * lane's marks in 16 words): more boxes in all are unsupported. */
#define NMS_MAX_BOXES 65536u
/* (box, class) rows in all: the write pass's one workgroup walks every row
 * (about 26 loop iterations a lane per 128 rows), inside the loop budget. */
#define NMS_MAX_ROWS (1u << 17)
/* Choices one list may sort by rank counting (choices^2 / 128 iterations a
 * lane), when they may come out of score order (check_loops). */
#define NMS_MAX_RANKED 1024u
#define NMS_LANES 128u /* box_nms.comp's LANES */
#define NMS_LIMIT_LANES 64u

static const char *const kName = "BOX_WITH_NMS_LIMIT";

/* The boxes' type NNAPI pairs with a score type. */
static int32_t box_type_for(int32_t type) {
  return vknn_is_quant8(type) ? VKNN_OPERAND_TENSOR_QUANT16_ASYMM : type;
}

static bool check_parameter_types(const vknn_logger *log, const vknn_subgraph *sg, const vknn_operation *op,
                                  int32_t real_type) {
  const vknn_operand *o = sg->operands;
  return vknn_op_check_type(log, op, "the score threshold", &o[op->inputs[INPUT_SCORE_THRESHOLD]], real_type) &&
         vknn_op_check_type(log, op, "the maximum detections", &o[op->inputs[INPUT_MAX_DETECTIONS]],
                            VKNN_OPERAND_INT32) &&
         vknn_op_check_type(log, op, "the NMS kernel", &o[op->inputs[INPUT_KERNEL]], VKNN_OPERAND_INT32) &&
         vknn_op_check_type(log, op, "the IoU threshold", &o[op->inputs[INPUT_IOU_THRESHOLD]], real_type) &&
         vknn_op_check_type(log, op, "sigma", &o[op->inputs[INPUT_SIGMA]], real_type) &&
         vknn_op_check_type(log, op, "the NMS score threshold", &o[op->inputs[INPUT_NMS_SCORE_THRESHOLD]],
                            real_type);
}

static bool check_outputs(const vknn_logger *log, const vknn_subgraph *sg, const vknn_operation *op) {
  const vknn_operand *o = sg->operands;
  const vknn_operand *scores = &o[op->inputs[INPUT_SCORES]];
  const vknn_operand *boxes_out = &o[op->outputs[OUTPUT_BOXES]];
  bool ok = vknn_op_check_type(log, op, "the output scores", &o[op->outputs[OUTPUT_SCORES]], scores->type) &&
            vknn_op_check_type(log, op, "the output boxes", boxes_out, box_type_for(scores->type)) &&
            vknn_op_check_type(log, op, "the output classes", &o[op->outputs[OUTPUT_CLASSES]],
                               VKNN_OPERAND_TENSOR_INT32) &&
            vknn_op_check_type(log, op, "the output batch indices", &o[op->outputs[OUTPUT_BATCHES]],
                               VKNN_OPERAND_TENSOR_INT32) &&
            vknn_op_check_rank(log, op, "the output scores", &o[op->outputs[OUTPUT_SCORES]], 1) &&
            vknn_op_check_rank(log, op, "the output boxes", boxes_out, 2) &&
            vknn_op_check_rank(log, op, "the output classes", &o[op->outputs[OUTPUT_CLASSES]], 1) &&
            vknn_op_check_rank(log, op, "the output batch indices", &o[op->outputs[OUTPUT_BATCHES]], 1) &&
            vknn_op_check_box_quant16(log, op, "output boxes", boxes_out) &&
            vknn_op_check_output_rows_agree(log, sg, op);
  /* Quantized scores keep their encoding. */
  return ok && vknn_op_check_same_quant(log, sg, op, OUTPUT_SCORES);
}

static vknn_status validate_box_nms(const vknn_logger *log, const vknn_model *model, const vknn_subgraph *sg,
                                    const vknn_operation *op) {
  (void)model;
  if (!vknn_op_check_counts(log, sg, op, INPUT_COUNT, INPUT_COUNT, OUTPUT_COUNT))
    return VKNN_STATUS_INVALID_ARGUMENT;
  const vknn_operand *o = sg->operands;
  const vknn_operand *scores = &o[op->inputs[INPUT_SCORES]], *boxes = &o[op->inputs[INPUT_BOXES]];
  const vknn_operand *batches = &o[op->inputs[INPUT_BATCHES]];
  int32_t type, real_type;
  if (!vknn_op_check_score_type(log, sg, op, true, &type, &real_type)) return VKNN_STATUS_INVALID_ARGUMENT;
  bool ok = vknn_op_check_type(log, op, "the boxes", boxes, box_type_for(type)) &&
            vknn_op_check_type(log, op, "the batch indices", batches, VKNN_OPERAND_TENSOR_INT32) &&
            check_parameter_types(log, sg, op, real_type) && vknn_op_check_rank(log, op, "the scores", scores, 2) &&
            vknn_op_check_rank(log, op, "the boxes", boxes, 2) &&
            vknn_op_check_rank(log, op, "the batch indices", batches, 1) &&
            vknn_op_check_box_quant16(log, op, "boxes", boxes) && check_outputs(log, sg, op);
  return ok ? VKNN_STATUS_NONE : VKNN_STATUS_INVALID_ARGUMENT;
}

typedef struct nms_geometry {
  uint32_t boxes, classes;
  float score_threshold, iou_threshold, sigma, nms_score_threshold;
  int32_t max_detections, kernel;
} nms_geometry;

static vknn_status read_parameters(vknn_graph *graph, const vknn_operation *op, nms_geometry *g) {
  vknn_status s = vknn_op_require_constant_params(graph, op, INPUT_SCORE_THRESHOLD, 6);
  if (s != VKNN_STATUS_NONE) return s;
  const uint32_t *in = op->inputs;
  if (!vknn_graph_const_float(graph, in[INPUT_SCORE_THRESHOLD], &g->score_threshold) ||
      !vknn_graph_const_i32(graph, in[INPUT_MAX_DETECTIONS], &g->max_detections) ||
      !vknn_graph_const_i32(graph, in[INPUT_KERNEL], &g->kernel) ||
      !vknn_graph_const_float(graph, in[INPUT_IOU_THRESHOLD], &g->iou_threshold) ||
      !vknn_graph_const_float(graph, in[INPUT_SIGMA], &g->sigma) ||
      !vknn_graph_const_float(graph, in[INPUT_NMS_SCORE_THRESHOLD], &g->nms_score_threshold)) {
    VKNN_LOG_E(graph->log, "compilation", "%s: the parameters must be constants", kName);
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  if (g->kernel < 0 || g->kernel > 2) {
    VKNN_LOG_E(graph->log, "model", "%s: NMS kernel %d is none of 0 (hard), 1 (linear), 2 (gaussian)", kName,
               g->kernel);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  return VKNN_STATUS_NONE;
}

/* The shapes as far as they are known (ops/known_dims.h: boxes and classes
 * 0 when not known yet), and the sizes supported. */
static vknn_status check_shapes(vknn_graph *graph, const vknn_operation *op, const nms_geometry *g) {
  const vknn_tensor *boxes = &graph->tensors[op->inputs[INPUT_BOXES]];
  const vknn_tensor *batches = &graph->tensors[op->inputs[INPUT_BATCHES]];
  if (!vknn_dims_fit(boxes, 2, g->boxes, 4u * g->classes) || !vknn_dims_fit(batches, 1, g->boxes, 0) ||
      g->classes == 1) {
    VKNN_LOG_E(graph->log, "model",
               "%s: scores must be [boxes, classes] with classes > 1, boxes [boxes, 4 x classes] and batch "
               "indices [boxes]",
               kName);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  if (g->boxes > NMS_MAX_BOXES || (g->classes > 1 && (uint64_t)g->boxes * (g->classes - 1u) > NMS_MAX_ROWS)) {
    VKNN_LOG_E(graph->log, "compilation",
               "%s: %u boxes of %u classes: at most %u boxes and %u (box, class) rows are supported", kName,
               g->boxes, g->classes, NMS_MAX_BOXES, NMS_MAX_ROWS);
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  return VKNN_STATUS_NONE;
}

/* The most one (run, class) list may choose: a run may hold every box. */
static uint32_t max_choices(const nms_geometry *g) {
  return g->max_detections >= 0 && (uint32_t)g->max_detections < g->boxes ? (uint32_t)g->max_detections : g->boxes;
}

/* The loops that are not NMS steps, within lavapipe's loop limiter
 * (ops/nms_passes.h): the class pass sorts its choices by rank counting
 * when they may leave score order (anything but hard NMS over scores above
 * a non-negative threshold: box_nms.comp's nms_write_sorted), and the limit
 * pass searches each other class's list (a binary search each). */
static vknn_status check_loops(const vknn_logger *log, const nms_geometry *g) {
  uint32_t choices = max_choices(g);
  bool in_order = g->kernel == 0 && g->score_threshold >= 0.f;
  if (!in_order && choices > NMS_MAX_RANKED) {
    VKNN_LOG_E(log, "compilation",
               "%s: %u boxes, maximum %d, kernel %d, score threshold %g: choices that may leave score order are "
               "sorted by rank, at most %u per class are supported",
               kName, g->boxes, g->max_detections, g->kernel, (double)g->score_threshold, NMS_MAX_RANKED);
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  uint32_t search = 1;
  while (search < 32 && (1u << search) <= choices) search++;
  if (g->max_detections >= 0 && (uint64_t)(g->classes - 1u) * (search + 1u) > VKNN_NMS_PASS_ITERATIONS) {
    VKNN_LOG_E(log, "compilation", "%s: %u classes of up to %u choices: too many lists for the limit pass to search",
               kName, g->classes, choices);
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  return VKNN_STATUS_NONE;
}

/* The parameters and the shapes known so far are checked before the
 * operation waits for the rest: a model whose shapes an execution gives
 * still has them checked at prepare. */
static vknn_status read_geometry(vknn_graph *graph, const vknn_operation *op, nms_geometry *g) {
  const vknn_tensor *scores = &graph->tensors[op->inputs[INPUT_SCORES]];
  vknn_status s = read_parameters(graph, op, g);
  g->boxes = vknn_known_dim(scores, 2, 0);
  g->classes = vknn_known_dim(scores, 2, 1);
  if (s == VKNN_STATUS_NONE) s = check_shapes(graph, op, g);
  if (s == VKNN_STATUS_NONE) s = vknn_op_require_input_shapes(graph, op, INPUT_BATCHES + 1);
  if (s != VKNN_STATUS_NONE) return s;
  if (scores->rank != 2) {
    VKNN_LOG_E(graph->log, "model", "%s: the scores must have rank 2, not %u", kName, scores->rank);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  return check_loops(graph->log, g);
}

static vknn_status infer_box_nms(vknn_graph *graph, const vknn_operation *op) {
  nms_geometry g;
  vknn_status s = read_geometry(graph, op, &g);
  if (s != VKNN_STATUS_NONE) return s;
  if (g.boxes == 0) {
    VKNN_LOG_E(graph->log, "compilation", "%s: no boxes: zero-sized tensors are not supported", kName);
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  uint32_t rows = g.boxes * (g.classes - 1u); /* every (box, class) kept, at most */
  uint32_t slot = ++graph->count_slots;
  const uint32_t four = 4;
  s = vknn_op_set_dynamic_output(graph, op, OUTPUT_SCORES, rows, NULL, 1, slot);
  if (s == VKNN_STATUS_NONE) s = vknn_op_set_dynamic_output(graph, op, OUTPUT_BOXES, rows, &four, 2, slot);
  if (s == VKNN_STATUS_NONE) s = vknn_op_set_dynamic_output(graph, op, OUTPUT_CLASSES, rows, NULL, 1, slot);
  if (s == VKNN_STATUS_NONE) s = vknn_op_set_dynamic_output(graph, op, OUTPUT_BATCHES, rows, NULL, 1, slot);
  return s;
}

/* Push constants of box_nms.comp (every pass). */
typedef struct nms_params {
  uint32_t boxes_count, classes;
  float score_threshold;
  int32_t max_detections, nms_kernel;
  float iou_threshold, sigma, nms_score_threshold;
  float score_scale;
  int32_t score_zero;
  uint32_t count_word, check_code;
  uint32_t step_begin, step_end; /* the class passes' NMS steps */
} nms_params;
VKNN_PUSH_LAYOUT(box_nms, nms_params);

static nms_params params_of(const vknn_graph *graph, const vknn_operation *op, const nms_geometry *g) {
  const vknn_tensor *scores = &graph->tensors[op->inputs[INPUT_SCORES]];
  const vknn_tensor *out = &graph->tensors[op->outputs[OUTPUT_SCORES]];
  return (nms_params){g->boxes, g->classes, g->score_threshold, g->max_detections, g->kernel, g->iou_threshold,
                      g->sigma, g->nms_score_threshold, scores->scale, scores->zero_point, out->count_slot,
                      vknn_graph_check_code(graph, op),
                      0,
                      0};
}

static vknn_dispatch *add_pass(vknn_dispatch_list *list, vknn_shader_id shader, const nms_params *p,
                               uint32_t local_size, uint64_t invocations) {
  return vknn_op_add_pass(list, shader, p, sizeof(*p), local_size, invocations);
}

/* Scratch tensors of the plan (box_nms.comp): the selection lists, the
 * meta words, the class passes' NMS lists and their marks. */
enum { SCRATCH_SELECTED = 0, SCRATCH_META = 1, SCRATCH_ENTRIES = 2, SCRATCH_MARKS = 3, SCRATCH_TENSORS = 4 };

/* Words of each scratch tensor; returns their sum. */
static uint64_t scratch_words(const nms_geometry *g, uint64_t words[SCRATCH_TENSORS]) {
  uint64_t lists = (uint64_t)g->boxes * (g->classes - 1u);
  words[SCRATCH_SELECTED] = 2u * lists;
  words[SCRATCH_META] = 5u * lists + 2u * g->boxes; /* lengths, kept, offsets, runs, NMS state */
  words[SCRATCH_ENTRIES] = 2u * lists;
  words[SCRATCH_MARKS] = lists;
  return words[0] + words[1] + words[2] + words[3];
}

/* Every index the shaders compute stays within 32 bits. */
static vknn_status check_scratch(const vknn_logger *log, const nms_geometry *g) {
  uint64_t words[SCRATCH_TENSORS], total = scratch_words(g, words);
  if (total > UINT32_MAX) {
    VKNN_LOG_E(log, "compilation", "%s: %llu words of scratch are too many (%u boxes of %u classes)", kName,
               (unsigned long long)total, g->boxes, g->classes);
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  return VKNN_STATUS_NONE;
}

/* The scratch tensors (sizes checked by check_scratch), all int32. */
static bool add_scratch(vknn_graph *graph, const nms_geometry *g, uint32_t ids[SCRATCH_TENSORS]) {
  uint64_t words[SCRATCH_TENSORS];
  scratch_words(g, words);
  return vknn_op_add_scratch(graph, words, SCRATCH_TENSORS, 0, ids);
}

/* The class passes: the NMS steps up to the most one list may choose, as
 * many a pass as lavapipe's loop limiter allows (ops/nms_passes.h); the
 * first gathers the lists, the last writes the sorted selections and their
 * lengths. */
static vknn_status add_class_passes(vknn_graph *graph, const vknn_operation *op, vknn_dispatch_list *out_list,
                                    const nms_geometry *g, nms_params *p, const uint32_t x[SCRATCH_TENSORS]) {
  static const vknn_shader_id class_pass[] = {VKNN_SHADER_BOX_NMS_CLASS_F32, VKNN_SHADER_BOX_NMS_CLASS_F16,
                                              VKNN_SHADER_BOX_NMS_CLASS_Q8, VKNN_SHADER_BOX_NMS_CLASS_Q8S};
  int variant = vknn_variant_of(graph->tensors[op->inputs[INPUT_SCORES]].type);
  /* A workgroup per (class, chunk of NMS_LANES boxes): the runs starting in it. */
  uint64_t groups = (uint64_t)(g->classes - 1u) * ((g->boxes + NMS_LANES - 1u) / NMS_LANES);
  uint32_t steps = max_choices(g);
  uint32_t per_pass = vknn_nms_steps_per_pass(g->boxes, NMS_LANES);
  uint32_t passes = vknn_nms_pass_count(steps, per_pass);
  for (uint32_t i = 0; i < passes; ++i) {
    p->step_begin = i * per_pass;
    p->step_end = i + 1 == passes ? steps : (i + 1) * per_pass;
    vknn_dispatch *d = add_pass(out_list, class_pass[variant], p, NMS_LANES, groups * NMS_LANES);
    if (d == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
    vknn_dispatch_bind(d, op->inputs[INPUT_SCORES], VKNN_ACCESS_READ);
    vknn_dispatch_bind(d, op->inputs[INPUT_BOXES], VKNN_ACCESS_READ);
    vknn_dispatch_bind(d, op->inputs[INPUT_BATCHES], VKNN_ACCESS_READ);
    vknn_dispatch_bind(d, x[SCRATCH_SELECTED], VKNN_ACCESS_WRITE);
    vknn_dispatch_bind(d, x[SCRATCH_META], VKNN_ACCESS_READ | VKNN_ACCESS_WRITE);
    /* The NMS lists: written and read by the class passes alone. */
    vknn_dispatch_bind(d, x[SCRATCH_ENTRIES], VKNN_ACCESS_READ | VKNN_ACCESS_WRITE);
    vknn_dispatch_bind(d, x[SCRATCH_MARKS], VKNN_ACCESS_READ | VKNN_ACCESS_WRITE);
  }
  p->step_begin = p->step_end = 0;
  return VKNN_STATUS_NONE;
}

static vknn_status lower_box_nms(vknn_graph *graph, const vknn_operation *op, vknn_dispatch_list *out_list) {
  nms_geometry g;
  vknn_status s = read_geometry(graph, op, &g);
  if (s == VKNN_STATUS_NONE) s = check_scratch(graph->log, &g);
  if (s != VKNN_STATUS_NONE) return s;
  static const vknn_shader_id write_pass[] = {VKNN_SHADER_BOX_NMS_WRITE_F32, VKNN_SHADER_BOX_NMS_WRITE_F16,
                                              VKNN_SHADER_BOX_NMS_WRITE_Q8, VKNN_SHADER_BOX_NMS_WRITE_Q8S};
  int variant = vknn_variant_of(graph->tensors[op->inputs[INPUT_SCORES]].type);
  nms_params p = params_of(graph, op, &g);
  uint32_t lists = g.boxes * (g.classes - 1u);
  uint32_t x[SCRATCH_TENSORS];
  if (!add_scratch(graph, &g, x)) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  s = add_class_passes(graph, op, out_list, &g, &p, x);
  if (s != VKNN_STATUS_NONE) return s;
  vknn_dispatch *d = add_pass(out_list, VKNN_SHADER_BOX_NMS_LIMIT, &p, NMS_LIMIT_LANES, lists);
  if (d == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  vknn_dispatch_bind(d, x[SCRATCH_SELECTED], VKNN_ACCESS_READ);
  vknn_dispatch_bind(d, x[SCRATCH_META], VKNN_ACCESS_READ | VKNN_ACCESS_WRITE);
  d = add_pass(out_list, write_pass[variant], &p, NMS_LANES, NMS_LANES);
  if (d == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  vknn_dispatch_bind(d, op->inputs[INPUT_BOXES], VKNN_ACCESS_READ);
  vknn_dispatch_bind(d, x[SCRATCH_SELECTED], VKNN_ACCESS_READ);
  vknn_dispatch_bind(d, x[SCRATCH_META], VKNN_ACCESS_READ | VKNN_ACCESS_WRITE);
  for (uint32_t i = 0; i < OUTPUT_COUNT; ++i)
    vknn_dispatch_bind(d, vknn_graph_op_output(graph, op, i), VKNN_ACCESS_WRITE);
  return VKNN_STATUS_NONE;
}

const vknn_op_def vknn_op_box_with_nms_limit = {VKNN_OPERATION_BOX_WITH_NMS_LIMIT, false, validate_box_nms,
                                                infer_box_nms, lower_box_nms};
