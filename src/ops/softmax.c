/* SOFTMAX: exp(beta * (x - max)) / sum along an axis (default: the last).
 * Kernel: shaders/softmax.comp. */
#include <string.h>

#include "ops/op_common.h"
#include "model/operand_type.h"

#define SOFTMAX_MAX_RANK 4

static vknn_status validate_softmax(const vknn_logger *log, const vknn_model *model,
                                    const vknn_subgraph *sg, const vknn_operation *op) {
  (void)model;
  if (!vknn_op_check_counts(log, sg, op, 2, 3, 1)) return VKNN_STATUS_INVALID_ARGUMENT;
  const vknn_operand *in = &sg->operands[op->inputs[0]];
  const vknn_operand *out = &sg->operands[op->outputs[0]];
  if (vknn_variant_of(in->type) < 0 || out->type != in->type || in->dimension_count > SOFTMAX_MAX_RANK) {
    VKNN_LOG_E(log, "model", "SOFTMAX: %s of rank %u is not allowed", vknn_operand_type_name(in->type),
               in->dimension_count);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  int32_t beta_type = in->type == VKNN_OPERAND_TENSOR_FLOAT16 ? VKNN_OPERAND_FLOAT16 : VKNN_OPERAND_FLOAT32;
  bool ok = vknn_op_check_type(log, op, "beta", &sg->operands[op->inputs[1]], beta_type) &&
            (op->input_count < 3 ||
             vknn_op_check_type(log, op, "axis", &sg->operands[op->inputs[2]], VKNN_OPERAND_INT32));
  if (ok && vknn_is_quant8(in->type)) {
    int32_t zero = in->type == VKNN_OPERAND_TENSOR_QUANT8_ASYMM ? 0 : -128;
    if (out->scale != 1.f / 256 || out->zero_point != zero) {
      VKNN_LOG_E(log, "model", "SOFTMAX: quantized output must have scale 1/256 and zero point %d", zero);
      ok = false;
    }
  }
  return ok ? VKNN_STATUS_NONE : VKNN_STATUS_INVALID_ARGUMENT;
}

static vknn_status read_params(vknn_graph *graph, const vknn_operation *op, float *beta,
                               uint32_t *axis) {
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  int32_t raw_axis = -1;
  vknn_status s = vknn_op_require_input_shape(graph, op, 0);
  if (s != VKNN_STATUS_NONE) return s;
  if (!vknn_graph_const_float(graph, op->inputs[1], beta) ||
      (op->input_count == 3 && !vknn_graph_const_i32_list(graph, op, 2, 1, &raw_axis))) {
    VKNN_LOG_E(graph->log, "compilation", "SOFTMAX: needs a known shape and constant parameters");
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  int32_t rank = (int32_t)in->rank;
  if (raw_axis < -rank || raw_axis >= rank || !(*beta > 0.f)) {
    VKNN_LOG_E(graph->log, "model", "SOFTMAX: axis %d out of rank %d, or beta %g not positive",
               raw_axis, rank, *beta);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  *axis = (uint32_t)(raw_axis < 0 ? raw_axis + rank : raw_axis);
  return VKNN_STATUS_NONE;
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
  uint32_t outer, axis, inner;
  float beta;
  float in_scale;
  int32_t in_zero_point;
  float out_scale;
  int32_t out_zero_point;
  float q_min, q_max;
} softmax_params;
VKNN_PUSH_LAYOUT(softmax, softmax_params);

static vknn_status lower_softmax(vknn_graph *graph, const vknn_operation *op,
                                 vknn_dispatch_list *out_list) {
  float beta;
  uint32_t axis;
  vknn_status s = read_params(graph, op, &beta, &axis);
  if (s != VKNN_STATUS_NONE) return s;
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  const vknn_tensor *out = &graph->tensors[op->outputs[0]];
  softmax_params p = {1, in->dims[axis], 1, beta, in->scale, in->zero_point, out->scale,
                      out->zero_point, (float)vknn_quant_min(out->type), (float)vknn_quant_max(out->type)};
  for (uint32_t d = 0; d < axis; ++d) p.outer *= in->dims[d];
  for (uint32_t d = axis + 1; d < in->rank; ++d) p.inner *= in->dims[d];
  static const vknn_shader_id shaders[] = {VKNN_SHADER_SOFTMAX_F32, VKNN_SHADER_SOFTMAX_F16,
                                           VKNN_SHADER_SOFTMAX_Q8, VKNN_SHADER_SOFTMAX_Q8S};
  vknn_dispatch *d = vknn_dispatch_list_add(out_list);
  if (d == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  d->shader = shaders[vknn_variant_of(in->type)];
  vknn_dispatch_bind(d, op->inputs[0], VKNN_ACCESS_READ);
  vknn_dispatch_bind(d, op->outputs[0], VKNN_ACCESS_WRITE);
  memcpy(d->push, &p, sizeof(p));
  d->push_size = sizeof(p);
  d->invocations = (uint64_t)p.outer * p.inner;
  return VKNN_STATUS_NONE;
}

const vknn_op_def vknn_op_softmax = {VKNN_OPERATION_SOFTMAX, false, validate_softmax, infer_softmax,
                                     lower_softmax};
