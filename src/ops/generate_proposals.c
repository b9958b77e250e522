/* GENERATE_PROPOSALS: per image, every anchor placed at every cell of the
 * feature map, moved and scaled by its deltas and clipped to the image; the
 * best pre-NMS maximum of them by score, those big enough and centred inside
 * the image, hard NMS, at most the post-NMS maximum kept. Kernel:
 * shaders/proposals.comp, three passes (decode, select, write), with a sort
 * of each image's positions by score before the select when a pre-NMS
 * maximum leaves out some. The select pass keeps each image's candidates
 * in scratch buffers of the plan, not in shared memory: up to 65536 per
 * image (PROPOSALS_MAX_CANDIDATES, the kernel's marks per lane), above the
 * pre-NMS maxima of Faster and Mask R-CNN's region proposals (6000 to
 * 12000); more, or more than 65536 positions to sort for a pre-NMS maximum,
 * are unsupported (the support query says so, with a log line). How
 * many boxes come out depends on the data: the outputs are planned at their
 * largest and the last pass writes the real number into a count word the
 * execution reads after the fence (docs/architecture.md, "Outputs whose size
 * the data decide"). Inputs: scores [batches, height, width, anchors] (NCHW:
 * [batches, anchors, height, width]), deltas [.., anchors x 4], anchors
 * [anchors, 4], image sizes [batches, 2], the height and width strides, the
 * pre- and post-NMS maxima (non-positive: none), the IoU threshold, the
 * minimum size and the layout. Quantized: quant8 scores and deltas,
 * quant16 anchors (symmetric) and image sizes and output boxes (1/8 pixel). */
#include <math.h>
#include <string.h>

#include "ops/op_common.h"
#include "ops/known_dims.h"
#include "ops/nms_passes.h"
#include "graph/runtime_check.h"
#include "model/operand_type.h"

enum {
  INPUT_SCORES = 0,
  INPUT_DELTAS = 1,
  INPUT_ANCHORS = 2,
  INPUT_IMAGES = 3,
  INPUT_HEIGHT_STRIDE = 4,
  INPUT_WIDTH_STRIDE = 5,
  INPUT_PRE_NMS = 6,
  INPUT_POST_NMS = 7,
  INPUT_IOU_THRESHOLD = 8,
  INPUT_MIN_SIZE = 9,
  INPUT_LAYOUT = 10,
  INPUT_COUNT = 11,
};

enum { OUTPUT_SCORES = 0, OUTPUT_BOXES = 1, OUTPUT_BATCHES = 2, OUTPUT_COUNT = 3 };

/* Candidates of one image that go through NMS (proposals.comp's
 * MAX_CANDIDATES): its select pass keeps them in scratch buffers of the
 * plan, so the bound is the kernel's marks per lane, not shared memory. */
#define PROPOSALS_MAX_CANDIDATES 65536u
/* Positions of one image sorted by one workgroup (a bitonic sort over a
 * power of two of them). */
#define PROPOSALS_MAX_SORTED 65536u
#define PROPOSALS_LANES 128u /* proposals.comp's LANES */
#define PROPOSALS_MAX_ROWS (1u << 22)
#define DECODE_LANES 64u

static const char *const kName = "GENERATE_PROPOSALS";

static bool check_tensor_types(const vknn_logger *log, const vknn_operation *op, const vknn_operand *o,
                               int32_t type) {
  bool quant = vknn_is_quant8(type);
  const vknn_operand *anchors = &o[op->inputs[INPUT_ANCHORS]], *images = &o[op->inputs[INPUT_IMAGES]];
  bool ok = vknn_op_check_type(log, op, "the deltas", &o[op->inputs[INPUT_DELTAS]], type) &&
            vknn_op_check_type(log, op, "the anchors", anchors, quant ? VKNN_OPERAND_TENSOR_QUANT16_SYMM : type) &&
            vknn_op_check_type(log, op, "the image sizes", images, quant ? VKNN_OPERAND_TENSOR_QUANT16_ASYMM : type) &&
            vknn_op_check_box_quant16(log, op, "image sizes", images);
  if (ok && quant && anchors->scale != 0.125f) {
    VKNN_LOG_E(log, "model", "%s: quant16 anchors must have scale 0.125, not %g", kName, (double)anchors->scale);
    return false;
  }
  return ok;
}

static bool check_parameter_types(const vknn_logger *log, const vknn_operation *op, const vknn_operand *o,
                                  int32_t real) {
  return vknn_op_check_type(log, op, "the height stride", &o[op->inputs[INPUT_HEIGHT_STRIDE]], real) &&
         vknn_op_check_type(log, op, "the width stride", &o[op->inputs[INPUT_WIDTH_STRIDE]], real) &&
         vknn_op_check_type(log, op, "the pre-NMS maximum", &o[op->inputs[INPUT_PRE_NMS]], VKNN_OPERAND_INT32) &&
         vknn_op_check_type(log, op, "the post-NMS maximum", &o[op->inputs[INPUT_POST_NMS]], VKNN_OPERAND_INT32) &&
         vknn_op_check_type(log, op, "the IoU threshold", &o[op->inputs[INPUT_IOU_THRESHOLD]], real) &&
         vknn_op_check_type(log, op, "the minimum size", &o[op->inputs[INPUT_MIN_SIZE]], real) &&
         vknn_op_check_type(log, op, "the layout", &o[op->inputs[INPUT_LAYOUT]], VKNN_OPERAND_BOOL);
}

static bool check_ranks(const vknn_logger *log, const vknn_operation *op, const vknn_operand *o) {
  return vknn_op_check_rank(log, op, "the scores", &o[op->inputs[INPUT_SCORES]], 4) &&
         vknn_op_check_rank(log, op, "the deltas", &o[op->inputs[INPUT_DELTAS]], 4) &&
         vknn_op_check_rank(log, op, "the anchors", &o[op->inputs[INPUT_ANCHORS]], 2) &&
         vknn_op_check_rank(log, op, "the image sizes", &o[op->inputs[INPUT_IMAGES]], 2) &&
         vknn_op_check_rank(log, op, "the output scores", &o[op->outputs[OUTPUT_SCORES]], 1) &&
         vknn_op_check_rank(log, op, "the output boxes", &o[op->outputs[OUTPUT_BOXES]], 2) &&
         vknn_op_check_rank(log, op, "the output batch indices", &o[op->outputs[OUTPUT_BATCHES]], 1);
}

static bool check_outputs(const vknn_logger *log, const vknn_subgraph *sg, const vknn_operation *op) {
  const vknn_operand *o = sg->operands;
  const vknn_operand *boxes_out = &o[op->outputs[OUTPUT_BOXES]];
  return vknn_op_check_type(log, op, "the output scores", &o[op->outputs[OUTPUT_SCORES]],
                            o[op->inputs[INPUT_SCORES]].type) &&
         vknn_op_check_type(log, op, "the output boxes", boxes_out, o[op->inputs[INPUT_IMAGES]].type) &&
         vknn_op_check_type(log, op, "the output batch indices", &o[op->outputs[OUTPUT_BATCHES]],
                            VKNN_OPERAND_TENSOR_INT32) &&
         vknn_op_check_box_quant16(log, op, "output boxes", boxes_out) &&
         vknn_op_check_output_rows_agree(log, sg, op) &&
         vknn_op_check_same_quant(log, sg, op, OUTPUT_SCORES); /* quantized scores keep their encoding */
}

static vknn_status validate_proposals(const vknn_logger *log, const vknn_model *model, const vknn_subgraph *sg,
                                      const vknn_operation *op) {
  (void)model;
  if (!vknn_op_check_counts(log, sg, op, INPUT_COUNT, INPUT_COUNT, OUTPUT_COUNT))
    return VKNN_STATUS_INVALID_ARGUMENT;
  const vknn_operand *o = sg->operands;
  int32_t type, real;
  if (!vknn_op_check_score_type(log, sg, op, true, &type, &real)) return VKNN_STATUS_INVALID_ARGUMENT;
  bool ok = check_tensor_types(log, op, o, type) && check_parameter_types(log, op, o, real) &&
            check_ranks(log, op, o) && check_outputs(log, sg, op);
  return ok ? VKNN_STATUS_NONE : VKNN_STATUS_INVALID_ARGUMENT;
}

typedef struct proposals_geometry {
  vknn_image_shape scores; /* channels: the anchors */
  uint32_t positions;      /* height x width x anchors, per image */
  uint32_t candidates;     /* list entries per image that may go through NMS */
  uint32_t list_length;    /* entries per image: positions, padded to a power of two when sorted */
  uint32_t kept;           /* boxes kept per image at most */
  bool nchw;
  float height_stride, width_stride, iou_threshold, min_size;
} proposals_geometry;

/* The ranges NNAPI's documentation gives the scalar parameters (inputs 4-9).
 * The height and width strides are ratios of the original image's height
 * (width) to the feature map's: of two positive sizes, so positive and
 * finite. The text bounds neither the IoU threshold nor min_size (the
 * reference takes a negative one: every box after the first suppressed, no
 * box too small), lets both maxima take any value (non-positive: no limit),
 * and the layout is any BOOL. */
static vknn_status check_parameter_values(const vknn_logger *log, const proposals_geometry *g) {
  const char *broken = !(isfinite(g->height_stride) && g->height_stride > 0.f) ? "the height stride"
                       : !(isfinite(g->width_stride) && g->width_stride > 0.f) ? "the width stride"
                                                                                : NULL;
  if (broken != NULL) {
    VKNN_LOG_E(log, "model", "%s: %s (%g, %g) must be a positive finite ratio", kName, broken,
               (double)g->height_stride, (double)g->width_stride);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  return VKNN_STATUS_NONE;
}

static vknn_status read_parameters(vknn_graph *graph, const vknn_operation *op, proposals_geometry *g,
                                   int32_t limits[2]) {
  vknn_status s = vknn_op_require_constant_params(graph, op, INPUT_HEIGHT_STRIDE, INPUT_COUNT - INPUT_HEIGHT_STRIDE);
  if (s != VKNN_STATUS_NONE) return s;
  const uint32_t *in = op->inputs;
  if (!vknn_graph_const_float(graph, in[INPUT_HEIGHT_STRIDE], &g->height_stride) ||
      !vknn_graph_const_float(graph, in[INPUT_WIDTH_STRIDE], &g->width_stride) ||
      !vknn_graph_const_i32_list(graph, op, INPUT_PRE_NMS, 2, limits) ||
      !vknn_graph_const_float(graph, in[INPUT_IOU_THRESHOLD], &g->iou_threshold) ||
      !vknn_graph_const_float(graph, in[INPUT_MIN_SIZE], &g->min_size) ||
      !vknn_graph_const_bool(graph, in[INPUT_LAYOUT], &g->nchw)) {
    VKNN_LOG_E(graph->log, "compilation", "%s: the parameters must be constants", kName);
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  return check_parameter_values(graph->log, g);
}

/* An image tensor's shape by layout; every dimension 0 (not known yet)
 * unless it has rank 4. */
static vknn_image_shape known_image_shape(const vknn_tensor *t, bool nchw) {
  return t->rank == 4 ? vknn_image_shape_of(t, nchw) : (vknn_image_shape){0, 0, 0, 0};
}

/* Deltas, anchors and image sizes fit the scores as far as their dimensions
 * are known (ops/known_dims.h). */
static bool shapes_agree(const vknn_graph *graph, const vknn_operation *op, const proposals_geometry *g) {
  const vknn_tensor *deltas = &graph->tensors[op->inputs[INPUT_DELTAS]];
  const vknn_tensor *anchors = &graph->tensors[op->inputs[INPUT_ANCHORS]];
  const vknn_tensor *images = &graph->tensors[op->inputs[INPUT_IMAGES]];
  vknn_image_shape d = known_image_shape(deltas, g->nchw), s = g->scores;
  return (deltas->rank == 4 || !deltas->shape_known) && vknn_dims_agree(d.batches, s.batches) &&
         vknn_dims_agree(d.height, s.height) && vknn_dims_agree(d.width, s.width) &&
         vknn_dims_agree(d.channels, 4u * s.channels) && vknn_dims_fit(anchors, 2, s.channels, 4) &&
         vknn_dims_fit(images, 2, s.batches, 2);
}

/* The scratch of the passes: decoded boxes, real scores, the lists (score
 * key and position each), kept lists (g->kept places per image) with their
 * numbers and offsets, and the select pass's NMS lists (box and score bits,
 * and a mark, for each of `candidates` places per image). */
typedef struct proposals_scratch {
  uint32_t decoded, real_scores, order, meta, entries, marks;
} proposals_scratch;
enum { SCRATCH_TENSORS = 6, SCRATCH_FLOATS = 2 /* the first ones, float32 */ };

/* Words of each scratch tensor (in the order of proposals_scratch), in 64
 * bits; returns their sum, which bounds every index the kernels form (the
 * outputs' too: 4 x kept x images words at most). */
static uint64_t scratch_words(const proposals_geometry *g, uint64_t words[SCRATCH_TENSORS]) {
  uint64_t images = g->scores.batches, boxes = images * g->positions, lists = images * g->candidates;
  words[0] = 4u * boxes;
  words[1] = boxes;
  words[2] = 2u * images * g->list_length;
  words[3] = images * g->kept + 4u * images; /* kept lists, numbers, offsets, NMS state */
  words[4] = 2u * lists;
  words[5] = lists;
  return words[0] + words[1] + words[2] + words[3] + words[4] + words[5];
}

/* Every index into the scratch fits in 32 bits (the planner then checks
 * each tensor against the device's binding range). */
static vknn_status check_scratch(const vknn_logger *log, const proposals_geometry *g) {
  uint64_t words[SCRATCH_TENSORS], total = scratch_words(g, words);
  if (total > UINT32_MAX) {
    VKNN_LOG_E(log, "compilation", "%s: %llu words of scratch are too many (%u images of %u positions)", kName,
               (unsigned long long)total, g->scores.batches, g->positions);
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  return VKNN_STATUS_NONE;
}

/* The scratch tensors (sizes checked by check_scratch). */
static bool add_scratch(vknn_graph *graph, const proposals_geometry *g, proposals_scratch *out) {
  uint64_t words[SCRATCH_TENSORS];
  uint32_t ids[SCRATCH_TENSORS];
  scratch_words(g, words);
  if (!vknn_op_add_scratch(graph, words, SCRATCH_TENSORS, SCRATCH_FLOATS, ids)) return false;
  *out = (proposals_scratch){ids[0], ids[1], ids[2], ids[3], ids[4], ids[5]};
  return true;
}

/* Candidates and kept boxes per image from the maxima (non-positive: no
 * limit, as the documentation says; the reference keeps no box for a
 * post-NMS maximum of 0), within what the kernels hold. */
static vknn_status size_lists(const vknn_logger *log, proposals_geometry *g, const int32_t limits[2]) {
  uint64_t positions = (uint64_t)g->scores.height * g->scores.width * g->scores.channels;
  if (positions == 0 || g->scores.batches == 0) {
    VKNN_LOG_E(log, "compilation", "%s: zero-sized tensors are not supported", kName);
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  uint64_t candidates = limits[0] > 0 && (uint64_t)limits[0] < positions ? (uint64_t)limits[0] : positions;
  if (candidates > PROPOSALS_MAX_CANDIDATES || (candidates < positions && positions > PROPOSALS_MAX_SORTED)) {
    VKNN_LOG_E(log, "compilation",
               "%s: %llu anchor positions per image, %llu candidates: at most %u candidates (and %u positions "
               "with a pre-NMS maximum) are supported",
               kName, (unsigned long long)positions, (unsigned long long)candidates, PROPOSALS_MAX_CANDIDATES,
               PROPOSALS_MAX_SORTED);
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  g->positions = (uint32_t)positions;
  g->candidates = (uint32_t)candidates;
  g->list_length = g->positions;
  if (candidates < positions) /* sorted: padded to a power of two */
    for (g->list_length = 1; g->list_length < g->positions;) g->list_length <<= 1;
  g->kept = limits[1] > 0 && (uint32_t)limits[1] < g->candidates ? (uint32_t)limits[1] : g->candidates;
  /* The write pass's one workgroup walks every planned row: 2^22 rows keep
   * its lanes' loops inside lavapipe's loop limiter (ops/nms_passes.h). */
  if ((uint64_t)g->scores.batches * g->kept > PROPOSALS_MAX_ROWS) {
    VKNN_LOG_E(log, "compilation", "%s: %u images of %u kept boxes: at most %u rows in all are supported", kName,
               g->scores.batches, g->kept, PROPOSALS_MAX_ROWS);
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  return check_scratch(log, g);
}

/* The parameters and the shapes known so far are checked before the
 * operation waits for the rest: a model whose shapes an execution gives
 * still has them checked at prepare. */
static vknn_status read_geometry(vknn_graph *graph, const vknn_operation *op, proposals_geometry *g) {
  int32_t limits[2];
  vknn_status s = read_parameters(graph, op, g, limits);
  if (s != VKNN_STATUS_NONE) return s;
  const vknn_tensor *scores = &graph->tensors[op->inputs[INPUT_SCORES]];
  g->scores = known_image_shape(scores, g->nchw);
  if (!shapes_agree(graph, op, g)) {
    VKNN_LOG_E(graph->log, "model",
               "%s: with scores [batches, height, width, anchors] (NCHW: [batches, anchors, height, width]), the "
               "deltas must have 4 x anchors channels, the anchors be [anchors, 4], the image sizes [batches, 2]",
               kName);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  s = vknn_op_require_input_shapes(graph, op, INPUT_IMAGES + 1);
  if (s == VKNN_STATUS_NONE && scores->rank != 4) {
    VKNN_LOG_E(graph->log, "model", "%s: the scores must have rank 4, not %u", kName, scores->rank);
    s = VKNN_STATUS_INVALID_ARGUMENT;
  }
  return s == VKNN_STATUS_NONE ? size_lists(graph->log, g, limits) : s;
}

static vknn_status infer_proposals(vknn_graph *graph, const vknn_operation *op) {
  proposals_geometry g;
  vknn_status s = read_geometry(graph, op, &g);
  if (s != VKNN_STATUS_NONE) return s;
  uint32_t rows = g.scores.batches * g.kept, slot = ++graph->count_slots;
  const uint32_t four = 4;
  s = vknn_op_set_dynamic_output(graph, op, OUTPUT_SCORES, rows, NULL, 1, slot);
  if (s == VKNN_STATUS_NONE) s = vknn_op_set_dynamic_output(graph, op, OUTPUT_BOXES, rows, &four, 2, slot);
  if (s == VKNN_STATUS_NONE) s = vknn_op_set_dynamic_output(graph, op, OUTPUT_BATCHES, rows, NULL, 1, slot);
  return s;
}

/* Push constants of proposals.comp (every pass). */
typedef struct proposals_params {
  uint32_t batches, height, width, anchors;
  uint32_t nchw;
  float height_stride, width_stride;
  uint32_t candidates, post_limit;
  float iou_threshold, min_size;
  float score_scale;
  int32_t score_zero;
  float delta_scale;
  int32_t delta_zero;
  float anchor_scale;
  uint32_t count_word, check_code;
  uint32_t step_begin, step_end; /* the select pass's NMS steps */
} proposals_params;
VKNN_PUSH_LAYOUT(proposals, proposals_params);

static proposals_params params_of(const vknn_graph *graph, const vknn_operation *op, const proposals_geometry *g) {
  const vknn_tensor *t = graph->tensors;
  const vknn_tensor *scores = &t[op->inputs[INPUT_SCORES]], *deltas = &t[op->inputs[INPUT_DELTAS]];
  return (proposals_params){g->scores.batches,
                            g->scores.height,
                            g->scores.width,
                            g->scores.channels,
                            g->nchw,
                            g->height_stride,
                            g->width_stride,
                            g->candidates,
                            g->kept,
                            g->iou_threshold,
                            g->min_size,
                            scores->scale,
                            scores->zero_point,
                            deltas->scale,
                            deltas->zero_point,
                            t[op->inputs[INPUT_ANCHORS]].scale,
                            t[op->outputs[OUTPUT_SCORES]].count_slot,
                            vknn_graph_check_code(graph, op),
                            0,
                            0};
}

static const vknn_shader_id kDecode[] = {VKNN_SHADER_PROPOSALS_DECODE_F32, VKNN_SHADER_PROPOSALS_DECODE_F16,
                                         VKNN_SHADER_PROPOSALS_DECODE_Q8, VKNN_SHADER_PROPOSALS_DECODE_Q8S};
static const vknn_shader_id kWrite[] = {VKNN_SHADER_PROPOSALS_WRITE_F32, VKNN_SHADER_PROPOSALS_WRITE_F16,
                                        VKNN_SHADER_PROPOSALS_WRITE_Q8, VKNN_SHADER_PROPOSALS_WRITE_Q8S};

/* The select passes: the NMS steps up to the kept maximum, as many a pass
 * as lavapipe's loop limiter allows (ops/nms_passes.h); the first gathers
 * the lists, the last writes the kept boxes. */
static vknn_status add_select_passes(vknn_dispatch_list *out_list, const proposals_geometry *g,
                                     proposals_params *p, const proposals_scratch *x) {
  uint32_t per_pass = vknn_nms_steps_per_pass(g->candidates, PROPOSALS_LANES);
  uint32_t passes = vknn_nms_pass_count(g->kept, per_pass);
  for (uint32_t i = 0; i < passes; ++i) {
    p->step_begin = i * per_pass;
    p->step_end = i + 1 == passes ? g->kept : (i + 1) * per_pass;
    vknn_dispatch *d = vknn_op_add_pass(out_list, VKNN_SHADER_PROPOSALS_SELECT, p, sizeof(*p), PROPOSALS_LANES,
                                        (uint64_t)g->scores.batches * PROPOSALS_LANES);
    if (d == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
    vknn_dispatch_bind(d, x->decoded, VKNN_ACCESS_READ);
    vknn_dispatch_bind(d, x->order, VKNN_ACCESS_READ);
    vknn_dispatch_bind(d, x->real_scores, VKNN_ACCESS_READ);
    vknn_dispatch_bind(d, x->meta, VKNN_ACCESS_READ | VKNN_ACCESS_WRITE);
    /* The NMS lists: written and read by the select passes alone. */
    vknn_dispatch_bind(d, x->entries, VKNN_ACCESS_READ | VKNN_ACCESS_WRITE);
    vknn_dispatch_bind(d, x->marks, VKNN_ACCESS_READ | VKNN_ACCESS_WRITE);
  }
  p->step_begin = p->step_end = 0;
  return VKNN_STATUS_NONE;
}

static vknn_status lower_proposals(vknn_graph *graph, const vknn_operation *op, vknn_dispatch_list *out_list) {
  proposals_geometry g;
  vknn_status s = read_geometry(graph, op, &g);
  if (s != VKNN_STATUS_NONE) return s;
  int variant = vknn_variant_of(graph->tensors[op->inputs[INPUT_SCORES]].type);
  proposals_params p = params_of(graph, op, &g);
  proposals_scratch x;
  if (!add_scratch(graph, &g, &x)) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  vknn_dispatch *d = vknn_op_add_pass(out_list, kDecode[variant], &p, sizeof(p), DECODE_LANES,
                                      (uint64_t)g.scores.batches * g.positions);
  if (d == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  for (uint32_t i = INPUT_SCORES; i <= INPUT_IMAGES; ++i) vknn_dispatch_bind(d, op->inputs[i], VKNN_ACCESS_READ);
  vknn_dispatch_bind(d, x.decoded, VKNN_ACCESS_WRITE);
  vknn_dispatch_bind(d, x.order, VKNN_ACCESS_WRITE);
  vknn_dispatch_bind(d, x.real_scores, VKNN_ACCESS_WRITE);
  if (g.candidates < g.positions) {
    d = vknn_op_add_pass(out_list, VKNN_SHADER_PROPOSALS_SORT, &p, sizeof(p), PROPOSALS_LANES,
                         (uint64_t)g.scores.batches * PROPOSALS_LANES);
    if (d == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
    vknn_dispatch_bind(d, x.order, VKNN_ACCESS_READ | VKNN_ACCESS_WRITE);
  }
  s = add_select_passes(out_list, &g, &p, &x);
  if (s != VKNN_STATUS_NONE) return s;
  d = vknn_op_add_pass(out_list, kWrite[variant], &p, sizeof(p), PROPOSALS_LANES, PROPOSALS_LANES);
  if (d == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  vknn_dispatch_bind(d, x.decoded, VKNN_ACCESS_READ);
  vknn_dispatch_bind(d, x.real_scores, VKNN_ACCESS_READ);
  vknn_dispatch_bind(d, x.meta, VKNN_ACCESS_READ | VKNN_ACCESS_WRITE);
  for (uint32_t i = 0; i < OUTPUT_COUNT; ++i)
    vknn_dispatch_bind(d, vknn_graph_op_output(graph, op, i), VKNN_ACCESS_WRITE);
  return VKNN_STATUS_NONE;
}

const vknn_op_def vknn_op_generate_proposals = {VKNN_OPERATION_GENERATE_PROPOSALS, false, validate_proposals,
                                                infer_proposals, lower_proposals};
