/* Normalizations along an axis or over image planes:
 *   L2_NORMALIZATION: x / sqrt(sum of squares along an axis);
 *   LOCAL_RESPONSE_NORMALIZATION: x * (bias + alpha * sum of squares within
 *     a radius along an axis)^-beta;
 *   INSTANCE_NORMALIZATION: (x - mean) * gamma / sqrt(variance + epsilon) +
 *     beta over each (batch, channel) plane, NHWC or NCHW.
 * Row reductions (row_reduce.h); kernels: shaders/sum_squares.comp (L2, LRN)
 * and shaders/instance_norm.comp. */
#include <math.h>
#include <string.h>

#include "ops/row_reduce.h"
#include "model/operand_type.h"

#define NORM_MAX_RANK 4

enum { KERNEL_L2 = 0, KERNEL_LRN = 1 }; /* sum_squares.comp's OP */
/* sum_squares.comp's own passes. */
enum { LRN_PASS_WINDOW = VKNN_ROW_PASS_OWN, LRN_PASS_WINDOW_BLOCKS = VKNN_ROW_PASS_OWN + 1 };

/* LRN windows of up to this many elements are summed element by element;
 * longer ones add partial sums of blocks. */
#define LRN_DIRECT_WINDOW 32u
#define LRN_MIN_BLOCK 16u

_Static_assert(VKNN_SPEC_SUM_SQUARES_PASS == 0, "row kernels take the pass as constant_id 1");
_Static_assert(VKNN_SPEC_INSTANCE_NORM_PASS == 0, "row kernels take the pass as constant_id 1");

/* ---- signatures ----------------------------------------------------------- */

static const char *op_name(const vknn_operation *op) { return vknn_operation_type_name(op->type); }

/* Input 0 of an allowed type and rank, the output of its type. */
static bool check_data(const vknn_logger *log, const vknn_subgraph *sg, const vknn_operation *op,
                       bool quantized) {
  const vknn_operand *in = &sg->operands[op->inputs[0]];
  bool type_ok = vknn_is_float_tensor(in->type) || (quantized && vknn_is_quant8(in->type));
  if (!type_ok || in->dimension_count > NORM_MAX_RANK) {
    VKNN_LOG_E(log, "model", "%s: input %s of rank %u is not allowed", op_name(op),
               vknn_operand_type_name(in->type), in->dimension_count);
    return false;
  }
  return vknn_op_check_type(log, op, "the output", &sg->operands[op->outputs[0]], in->type);
}

/* The scalar type of a float parameter: FLOAT16 for a float16 input. */
static int32_t float_param_type(const vknn_subgraph *sg, const vknn_operation *op) {
  return sg->operands[op->inputs[0]].type == VKNN_OPERAND_TENSOR_FLOAT16 ? VKNN_OPERAND_FLOAT16
                                                                        : VKNN_OPERAND_FLOAT32;
}

static bool check_float_params(const vknn_logger *log, const vknn_subgraph *sg,
                               const vknn_operation *op, uint32_t first, const char *const *names,
                               uint32_t count) {
  for (uint32_t i = 0; i < count; ++i)
    if (!vknn_op_check_type(log, op, names[i], &sg->operands[op->inputs[first + i]],
                            float_param_type(sg, op)))
      return false;
  return true;
}

/* The output of a quantized L2_NORMALIZATION has scale 1/128 and zero point
 * 128 (0 signed). */
static bool check_l2_output_quant(const vknn_logger *log, const vknn_subgraph *sg,
                                  const vknn_operation *op) {
  const vknn_operand *out = &sg->operands[op->outputs[0]];
  if (!vknn_is_quant8(out->type)) return true;
  int32_t zero = out->type == VKNN_OPERAND_TENSOR_QUANT8_ASYMM ? 128 : 0;
  if (out->scale == 1.f / 128 && out->zero_point == zero) return true;
  VKNN_LOG_E(log, "model",
             "L2_NORMALIZATION: quantized output must have scale 1/128 and zero point %d, not %g, %d",
             zero, out->scale, out->zero_point);
  return false;
}

static vknn_status validate_l2(const vknn_logger *log, const vknn_model *model,
                               const vknn_subgraph *sg, const vknn_operation *op) {
  (void)model;
  bool ok = vknn_op_check_counts(log, sg, op, 1, 2, 1) && check_data(log, sg, op, true) &&
            (op->input_count < 2 ||
             vknn_op_check_type(log, op, "axis", &sg->operands[op->inputs[1]], VKNN_OPERAND_INT32)) &&
            check_l2_output_quant(log, sg, op);
  return ok ? VKNN_STATUS_NONE : VKNN_STATUS_INVALID_ARGUMENT;
}

static vknn_status validate_lrn(const vknn_logger *log, const vknn_model *model,
                                const vknn_subgraph *sg, const vknn_operation *op) {
  (void)model;
  static const char *const names[3] = {"bias", "alpha", "beta"};
  bool ok = vknn_op_check_counts(log, sg, op, 5, 6, 1) && check_data(log, sg, op, false) &&
            vknn_op_check_type(log, op, "radius", &sg->operands[op->inputs[1]], VKNN_OPERAND_INT32) &&
            check_float_params(log, sg, op, 2, names, 3) &&
            (op->input_count < 6 ||
             vknn_op_check_type(log, op, "axis", &sg->operands[op->inputs[5]], VKNN_OPERAND_INT32));
  return ok ? VKNN_STATUS_NONE : VKNN_STATUS_INVALID_ARGUMENT;
}

static vknn_status validate_instance(const vknn_logger *log, const vknn_model *model,
                                     const vknn_subgraph *sg, const vknn_operation *op) {
  (void)model;
  static const char *const names[3] = {"gamma", "beta", "epsilon"};
  bool ok = vknn_op_check_counts(log, sg, op, 5, 5, 1) && check_data(log, sg, op, false) &&
            vknn_op_check_rank(log, op, "input 0", &sg->operands[op->inputs[0]], 4) &&
            check_float_params(log, sg, op, 1, names, 3) &&
            vknn_op_check_type(log, op, "the layout", &sg->operands[op->inputs[4]], VKNN_OPERAND_BOOL);
  return ok ? VKNN_STATUS_NONE : VKNN_STATUS_INVALID_ARGUMENT;
}

/* ---- parameters ------------------------------------------------------------ */

/* The input's shape (deferred when unknown) within the rank limits. */
static vknn_status require_input(vknn_graph *graph, const vknn_operation *op, uint32_t min_rank,
                                 uint32_t max_rank) {
  vknn_status s = vknn_op_require_output_like_input(graph, op, 0);
  return s == VKNN_STATUS_NONE ? vknn_op_check_known_rank(graph, op, 0, min_rank, max_rank) : s;
}

static vknn_status not_constant(const vknn_graph *graph, const vknn_operation *op) {
  VKNN_LOG_E(graph->log, "compilation", "%s: its parameters must be constants", op_name(op));
  return VKNN_STATUS_GENERAL_FAILURE;
}

/* The axis of input `index` when present, else the last, checked against
 * the input's rank (within the limits) before its shape: the model gives the
 * rank with its dimensions, even those an execution gives; a rank it leaves
 * unknown waits. Then the input's shape. */
static vknn_status read_axis(vknn_graph *graph, const vknn_operation *op, uint32_t index,
                             uint32_t *axis) {
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  int32_t raw = -1;
  if (op->input_count > index && !vknn_graph_const_i32(graph, op->inputs[index], &raw))
    return not_constant(graph, op);
  vknn_status s = in->rank == 0 ? vknn_op_require_input_shape(graph, op, 0) : VKNN_STATUS_NONE;
  if (s == VKNN_STATUS_NONE) s = vknn_op_check_known_rank(graph, op, 0, 1, NORM_MAX_RANK);
  if (s == VKNN_STATUS_NONE) s = vknn_op_axis(graph, op, raw, in->rank, axis);
  return s == VKNN_STATUS_NONE ? vknn_op_require_output_like_input(graph, op, 0) : s;
}

static vknn_status same_shape_output(vknn_graph *graph, const vknn_operation *op) {
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  return vknn_op_set_output_shape(graph, op, 0, in->dims, in->rank);
}

typedef struct lrn_params {
  int32_t radius;
  float bias, alpha, beta;
  uint32_t axis;
} lrn_params;

/* The parameters come first: a model whose input shape waits for an
 * execution still has them checked at prepare (given as model inputs, they
 * are compiled per execution with their values). */
static vknn_status read_lrn(vknn_graph *graph, const vknn_operation *op, lrn_params *l) {
  vknn_status s = vknn_op_require_constant_params(graph, op, 1, op->input_count - 1);
  if (s != VKNN_STATUS_NONE) return s;
  if (!vknn_graph_const_i32(graph, op->inputs[1], &l->radius) ||
      !vknn_graph_const_float(graph, op->inputs[2], &l->bias) ||
      !vknn_graph_const_float(graph, op->inputs[3], &l->alpha) ||
      !vknn_graph_const_float(graph, op->inputs[4], &l->beta))
    return not_constant(graph, op);
  if (l->bias == 0.f) {
    VKNN_LOG_E(graph->log, "model", "LOCAL_RESPONSE_NORMALIZATION: bias must not be zero");
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  return read_axis(graph, op, 5, &l->axis);
}

typedef struct instance_params {
  float gamma, beta, epsilon;
  bool nchw;
} instance_params;

static vknn_status read_instance(vknn_graph *graph, const vknn_operation *op, instance_params *n) {
  vknn_status s = require_input(graph, op, 4, 4);
  if (s != VKNN_STATUS_NONE) return s;
  if (!vknn_graph_const_float(graph, op->inputs[1], &n->gamma) ||
      !vknn_graph_const_float(graph, op->inputs[2], &n->beta) ||
      !vknn_graph_const_float(graph, op->inputs[3], &n->epsilon) ||
      !vknn_graph_const_bool(graph, op->inputs[4], &n->nchw))
    return not_constant(graph, op);
  return VKNN_STATUS_NONE;
}

/* ---- inference ------------------------------------------------------------- */

/* The axis before the shape (read_axis); given as a model input, it is
 * compiled per execution with its value. */
static vknn_status read_l2(vknn_graph *graph, const vknn_operation *op, uint32_t *axis) {
  vknn_status s = vknn_op_require_constant_params(graph, op, 1, op->input_count - 1);
  return s == VKNN_STATUS_NONE ? read_axis(graph, op, 1, axis) : s;
}

static vknn_status infer_l2(vknn_graph *graph, const vknn_operation *op) {
  uint32_t axis;
  vknn_status s = read_l2(graph, op, &axis);
  return s == VKNN_STATUS_NONE ? same_shape_output(graph, op) : s;
}

static vknn_status infer_lrn(vknn_graph *graph, const vknn_operation *op) {
  lrn_params l;
  vknn_status s = read_lrn(graph, op, &l);
  return s == VKNN_STATUS_NONE ? same_shape_output(graph, op) : s;
}

static vknn_status infer_instance(vknn_graph *graph, const vknn_operation *op) {
  instance_params n;
  vknn_status s = read_instance(graph, op, &n);
  return s == VKNN_STATUS_NONE ? same_shape_output(graph, op) : s;
}

/* ---- lowering -------------------------------------------------------------- */

/* Push constants of sum_squares.comp, std430 layout. */
typedef struct sum_squares_params {
  VKNN_ROW_PARAMS;
  int32_t in_zero_point;
  int32_t radius;
  float bias, alpha, beta;
} sum_squares_params;
VKNN_PUSH_LAYOUT(sum_squares, sum_squares_params);

static vknn_shader_id sum_squares_shader(int32_t type) {
  static const vknn_shader_id shaders[] = {VKNN_SHADER_SUM_SQUARES_F32, VKNN_SHADER_SUM_SQUARES_F16,
                                           VKNN_SHADER_SUM_SQUARES_Q8, VKNN_SHADER_SUM_SQUARES_Q8S};
  return shaders[vknn_variant_of(type)];
}

static vknn_status lower_l2(vknn_graph *graph, const vknn_operation *op,
                            vknn_dispatch_list *out_list) {
  uint32_t axis;
  vknn_status s = read_l2(graph, op, &axis);
  if (s != VKNN_STATUS_NONE) return s;
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  vknn_row_plan plan;
  if (!vknn_row_plan_of(graph, in, axis, &plan)) return VKNN_STATUS_GENERAL_FAILURE;
  sum_squares_params p = {VKNN_ROW_PARAMS_OF(plan), .in_zero_point = in->zero_point};
  vknn_row_kernel kernel = {.shader = sum_squares_shader(in->type),
                            .spec_count = VKNN_SPEC_COUNT_SUM_SQUARES,
                            .push = &p,
                            .push_size = sizeof(p)};
  kernel.spec[VKNN_SPEC_SUM_SQUARES_OP] = KERNEL_L2;
  /* The reference's int8 kernel runs on the last axis only. */
  kernel.spec[VKNN_SPEC_SUM_SQUARES_INT8_LAST_AXIS] =
      in->type == VKNN_OPERAND_TENSOR_QUANT8_ASYMM_SIGNED && axis == in->rank - 1;
  return vknn_row_reduce_lower(graph, &plan, &kernel, op->inputs[0], op->outputs[0], out_list);
}

/* A window of w elements adds at most 2 * block elements at its ends and
 * w / block blocks: block ~ sqrt(w / 2) balances them. */
static uint32_t lrn_block(uint64_t window) {
  uint32_t block = LRN_MIN_BLOCK;
  while (2 * (uint64_t)block * block < window) block *= 2;
  return block;
}

/* Windows shorter than the row: summed by each element, directly or from
 * block sums (a partials pass first). kernel->push is p: the block size set
 * here goes into both dispatches. */
static vknn_status lower_lrn_windows(vknn_graph *graph, const vknn_operation *op,
                                     const vknn_row_plan *rows, const vknn_row_kernel *kernel,
                                     sum_squares_params *p, vknn_dispatch_list *out_list) {
  uint32_t input = op->inputs[0], output = op->outputs[0];
  uint64_t rows_count = (uint64_t)rows->outer * rows->inner;
  uint64_t elements = rows_count * rows->axis;
  uint64_t window = p->radius < 0 ? 0 : 2 * (uint64_t)p->radius + 1;
  if (window <= LRN_DIRECT_WINDOW)
    return vknn_row_dispatch(kernel, LRN_PASS_WINDOW, elements, input, output, UINT32_MAX, out_list)
               ? VKNN_STATUS_NONE
               : VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  p->chunk_len = lrn_block(window);
  p->chunks = (uint32_t)(((uint64_t)rows->axis + p->chunk_len - 1) / p->chunk_len);
  uint32_t partials = vknn_row_partials(graph, rows_count * p->chunks);
  if (partials == UINT32_MAX) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  /* A block takes a workgroup of its own size. */
  uint32_t group = vknn_power_of_two_at_least(p->chunk_len);
  if (group > VKNN_ROW_GROUP) group = VKNN_ROW_GROUP;
  vknn_dispatch *sums = vknn_row_dispatch(kernel, VKNN_ROW_PASS_PARTIALS,
                                          rows_count * p->chunks * group, input, output, partials,
                                          out_list);
  if (sums == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  sums->local_size = group;
  return vknn_row_dispatch(kernel, LRN_PASS_WINDOW_BLOCKS, elements, input, output, partials, out_list)
             ? VKNN_STATUS_NONE
             : VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
}

static vknn_status lower_lrn(vknn_graph *graph, const vknn_operation *op,
                             vknn_dispatch_list *out_list) {
  lrn_params l;
  vknn_status s = read_lrn(graph, op, &l);
  if (s != VKNN_STATUS_NONE) return s;
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  vknn_row_plan plan;
  if (!vknn_row_plan_of(graph, in, l.axis, &plan)) return VKNN_STATUS_GENERAL_FAILURE;
  /* Beyond the row a radius adds nothing; a negative one sums nothing. */
  int64_t axis = plan.axis;
  int32_t radius = (int32_t)(l.radius < 0 ? -1 : l.radius > axis ? axis : l.radius);
  sum_squares_params p = {VKNN_ROW_PARAMS_OF(plan),
                          .radius = radius,
                          .bias = l.bias,
                          .alpha = l.alpha,
                          .beta = l.beta};
  vknn_row_kernel kernel = {.shader = sum_squares_shader(in->type),
                            .spec_count = VKNN_SPEC_COUNT_SUM_SQUARES,
                            .push = &p,
                            .push_size = sizeof(p)};
  kernel.spec[VKNN_SPEC_SUM_SQUARES_OP] = KERNEL_LRN;
  /* Every window holds the whole row: a row reduction. */
  if (radius >= axis - 1)
    return vknn_row_reduce_lower(graph, &plan, &kernel, op->inputs[0], op->outputs[0], out_list);
  return lower_lrn_windows(graph, op, &plan, &kernel, &p, out_list);
}

/* Push constants of instance_norm.comp, std430 layout. */
typedef struct instance_norm_params {
  VKNN_ROW_PARAMS;
  float gamma, beta, epsilon;
} instance_norm_params;
VKNN_PUSH_LAYOUT(instance_norm, instance_norm_params);

static vknn_status lower_instance(vknn_graph *graph, const vknn_operation *op,
                                  vknn_dispatch_list *out_list) {
  instance_params n;
  vknn_status s = read_instance(graph, op, &n);
  if (s != VKNN_STATUS_NONE) return s;
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  vknn_image_shape shape = vknn_image_shape_of(in, n.nchw);
  uint64_t plane = (uint64_t)shape.height * shape.width;
  if (plane * shape.batches * shape.channels > UINT32_MAX) {
    VKNN_LOG_E(graph->log, "compilation", "INSTANCE_NORMALIZATION: the input is too large");
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  /* A plane is a row: [batches, plane, channels] in NHWC, [batches *
   * channels, plane, 1] in NCHW. */
  vknn_row_plan plan;
  if (n.nchw) vknn_row_plan_shape(shape.batches * shape.channels, (uint32_t)plane, 1, &plan);
  else vknn_row_plan_shape(shape.batches, (uint32_t)plane, shape.channels, &plan);
  instance_norm_params p = {VKNN_ROW_PARAMS_OF(plan), .gamma = n.gamma, .beta = n.beta,
                            .epsilon = n.epsilon};
  vknn_row_kernel kernel = {.shader = in->type == VKNN_OPERAND_TENSOR_FLOAT16 ? VKNN_SHADER_INSTANCE_NORM_F16
                                                                              : VKNN_SHADER_INSTANCE_NORM_F32,
                            .spec_count = VKNN_SPEC_COUNT_INSTANCE_NORM,
                            .push = &p,
                            .push_size = sizeof(p)};
  return vknn_row_reduce_lower(graph, &plan, &kernel, op->inputs[0], op->outputs[0], out_list);
}

const vknn_op_def vknn_op_l2_normalization = {VKNN_OPERATION_L2_NORMALIZATION, false, validate_l2,
                                              infer_l2, lower_l2};
const vknn_op_def vknn_op_local_response_normalization = {
    VKNN_OPERATION_LOCAL_RESPONSE_NORMALIZATION, false, validate_lrn, infer_lrn, lower_lrn};
const vknn_op_def vknn_op_instance_normalization = {VKNN_OPERATION_INSTANCE_NORMALIZATION, false,
                                                    validate_instance, infer_instance, lower_instance};
