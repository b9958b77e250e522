/* SOFTMAX: exp(beta * (x - max)) / sum along an axis (default: the last);
 * LOG_SOFTMAX: beta * (x - max) - log(sum) along an axis. Both are row
 * reductions (row_reduce.h); kernel: shaders/softmax.comp. */
#include <string.h>

#include "ops/row_reduce.h"
#include "ops/softmax.h"
#include "model/operand_type.h"

#define SOFTMAX_MAX_RANK 4

enum { KERNEL_SOFTMAX = 0, KERNEL_LOG_SOFTMAX = 1 }; /* softmax.comp's OP */

_Static_assert(VKNN_SPEC_SOFTMAX_PASS == 0, "row kernels take the pass as constant_id 1");

/* beta: FLOAT16 for a float16 input, FLOAT32 otherwise; axis INT32. */
static bool check_parameter_types(const vknn_logger *log, const vknn_subgraph *sg,
                                  const vknn_operation *op) {
  const vknn_operand *in = &sg->operands[op->inputs[0]];
  int32_t beta_type = in->type == VKNN_OPERAND_TENSOR_FLOAT16 ? VKNN_OPERAND_FLOAT16 : VKNN_OPERAND_FLOAT32;
  return vknn_op_check_type(log, op, "beta", &sg->operands[op->inputs[1]], beta_type) &&
         (op->input_count < 3 ||
          vknn_op_check_type(log, op, "axis", &sg->operands[op->inputs[2]], VKNN_OPERAND_INT32)) &&
         vknn_op_check_type(log, op, "the output", &sg->operands[op->outputs[0]], in->type);
}

static vknn_status validate_softmax(const vknn_logger *log, const vknn_model *model,
                                    const vknn_subgraph *sg, const vknn_operation *op) {
  (void)model;
  if (!vknn_op_check_counts(log, sg, op, 2, 3, 1)) return VKNN_STATUS_INVALID_ARGUMENT;
  const vknn_operand *in = &sg->operands[op->inputs[0]];
  const vknn_operand *out = &sg->operands[op->outputs[0]];
  if (vknn_variant_of(in->type) < 0 || in->dimension_count > SOFTMAX_MAX_RANK) {
    VKNN_LOG_E(log, "model", "SOFTMAX: %s of rank %u is not allowed", vknn_operand_type_name(in->type),
               in->dimension_count);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  bool ok = check_parameter_types(log, sg, op);
  if (ok && vknn_is_quant8(in->type)) {
    int32_t zero = in->type == VKNN_OPERAND_TENSOR_QUANT8_ASYMM ? 0 : -128;
    if (out->scale != 1.f / 256 || out->zero_point != zero) {
      VKNN_LOG_E(log, "model", "SOFTMAX: quantized output must have scale 1/256 and zero point %d", zero);
      ok = false;
    }
  }
  return ok ? VKNN_STATUS_NONE : VKNN_STATUS_INVALID_ARGUMENT;
}

/* LOG_SOFTMAX: float tensors of any rank, beta, a required axis. */
static vknn_status validate_log_softmax(const vknn_logger *log, const vknn_model *model,
                                        const vknn_subgraph *sg, const vknn_operation *op) {
  (void)model;
  if (!vknn_op_check_counts(log, sg, op, 3, 3, 1)) return VKNN_STATUS_INVALID_ARGUMENT;
  const vknn_operand *in = &sg->operands[op->inputs[0]];
  if (!vknn_is_float_tensor(in->type)) {
    VKNN_LOG_E(log, "model", "LOG_SOFTMAX: input %s is not allowed (float32 or float16)",
               vknn_operand_type_name(in->type));
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  return check_parameter_types(log, sg, op) ? VKNN_STATUS_NONE : VKNN_STATUS_INVALID_ARGUMENT;
}

/* beta (> 0) and the axis (default the last), read and checked before the
 * input's shape: a model whose shape waits for an execution still has them
 * checked at prepare (given as model inputs, they are compiled per execution
 * with their values). The model gives the input's rank with its dimensions,
 * even those an execution gives; a rank it leaves unknown waits. */
static vknn_status read_params(vknn_graph *graph, const vknn_operation *op, float *beta,
                               uint32_t *axis) {
  const char *name = vknn_operation_type_name(op->type);
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  int32_t raw_axis = -1;
  vknn_status s = vknn_op_require_constant_params(graph, op, 1, op->input_count - 1);
  if (s != VKNN_STATUS_NONE) return s;
  if (!vknn_graph_const_float(graph, op->inputs[1], beta) ||
      (op->input_count == 3 && !vknn_graph_const_i32_list(graph, op, 2, 1, &raw_axis))) {
    VKNN_LOG_E(graph->log, "compilation", "%s: needs constant parameters", name);
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  if (!(*beta > 0.f)) {
    VKNN_LOG_E(graph->log, "model", "%s: beta %g is not positive", name, *beta);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  if (in->rank == 0) s = vknn_op_require_input_shape(graph, op, 0);
  /* SOFTMAX's rank again (up to 4): a rank the model leaves unknown passed its checks. */
  if (s == VKNN_STATUS_NONE)
    s = vknn_op_check_known_rank(graph, op, 0, 1, op->type == VKNN_OPERATION_SOFTMAX ? 4 : VKNN_MAX_RANK);
  if (s == VKNN_STATUS_NONE) s = vknn_op_axis(graph, op, raw_axis, in->rank, axis);
  return s == VKNN_STATUS_NONE ? vknn_op_require_output_like_input(graph, op, 0) : s;
}

static vknn_status infer_softmax(vknn_graph *graph, const vknn_operation *op) {
  float beta;
  uint32_t axis;
  vknn_status s = read_params(graph, op, &beta, &axis);
  if (s != VKNN_STATUS_NONE) return s;
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  return vknn_op_set_output_shape(graph, op, 0, in->dims, in->rank);
}

/* Push constants of softmax.comp, std430 layout. */
typedef struct softmax_params {
  VKNN_ROW_PARAMS;
  float beta;
  float in_scale;
  int32_t in_zero_point;
  float out_scale;
  int32_t out_zero_point;
  float q_min, q_max;
} softmax_params;
VKNN_PUSH_LAYOUT(softmax, softmax_params);

/* The dispatches of softmax (or LOG_SOFTMAX) along an axis of input into output. */
static vknn_status lower_rows(vknn_graph *graph, uint32_t input, uint32_t output, uint32_t axis,
                              float beta, uint32_t kernel_op, vknn_dispatch_list *out_list) {
  const vknn_tensor *in = &graph->tensors[input];
  const vknn_tensor *out = &graph->tensors[output];
  vknn_row_plan plan;
  if (!vknn_row_plan_of(graph, in, axis, &plan)) return VKNN_STATUS_GENERAL_FAILURE;
  softmax_params p = {VKNN_ROW_PARAMS_OF(plan),
                      .beta = beta,
                      .in_scale = in->scale,
                      .in_zero_point = in->zero_point,
                      .out_scale = out->scale,
                      .out_zero_point = out->zero_point,
                      .q_min = (float)vknn_quant_min(out->type),
                      .q_max = (float)vknn_quant_max(out->type)};
  static const vknn_shader_id shaders[] = {VKNN_SHADER_SOFTMAX_F32, VKNN_SHADER_SOFTMAX_F16,
                                           VKNN_SHADER_SOFTMAX_Q8, VKNN_SHADER_SOFTMAX_Q8S};
  vknn_row_kernel kernel = {.shader = shaders[vknn_variant_of(in->type)],
                            .spec_count = VKNN_SPEC_COUNT_SOFTMAX,
                            .push = &p,
                            .push_size = sizeof(p)};
  kernel.spec[VKNN_SPEC_SOFTMAX_OP] = kernel_op;
  return vknn_row_reduce_lower(graph, &plan, &kernel, input, output, out_list);
}

vknn_status vknn_lower_softmax_last_axis(vknn_graph *graph, uint32_t input, uint32_t output,
                                         vknn_dispatch_list *out_list) {
  return lower_rows(graph, input, output, graph->tensors[input].rank - 1, 1.f, KERNEL_SOFTMAX,
                    out_list);
}

static vknn_status lower_softmax(vknn_graph *graph, const vknn_operation *op,
                                 vknn_dispatch_list *out_list) {
  float beta;
  uint32_t axis;
  vknn_status s = read_params(graph, op, &beta, &axis);
  if (s != VKNN_STATUS_NONE) return s;
  uint32_t kernel_op = op->type == VKNN_OPERATION_LOG_SOFTMAX ? KERNEL_LOG_SOFTMAX : KERNEL_SOFTMAX;
  return lower_rows(graph, op->inputs[0], op->outputs[0], axis, beta, kernel_op, out_list);
}

const vknn_op_def vknn_op_softmax = {VKNN_OPERATION_SOFTMAX, false, validate_softmax, infer_softmax,
                                     lower_softmax};
const vknn_op_def vknn_op_log_softmax = {VKNN_OPERATION_LOG_SOFTMAX, false, validate_log_softmax,
                                         infer_softmax, lower_softmax};
