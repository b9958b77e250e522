/* RELU, RELU1, RELU6, LOGISTIC, TANH: elementwise activations.
 * Kernel: shaders/activation.comp. A RELU family operation right after an
 * operation with a fused activation usually disappears into it (fusion.c). */
#include <string.h>

#include "op_common.h"
#include "operand_type.h"

#define ACTIVATION_MAX_RANK 4

enum { KERNEL_CLAMP = 0, KERNEL_LOGISTIC = 1, KERNEL_TANH = 2 };

static int kernel_op(int32_t type) {
  return type == VKNN_OPERATION_LOGISTIC ? KERNEL_LOGISTIC
         : type == VKNN_OPERATION_TANH   ? KERNEL_TANH
                                         : KERNEL_CLAMP;
}

/* The fixed output encoding NNAPI demands of quantized LOGISTIC and TANH. */
static bool quant_output_ok(int32_t op_type, const vknn_operand *out) {
  bool is_signed = out->type == VKNN_OPERAND_TENSOR_QUANT8_ASYMM_SIGNED;
  if (op_type == VKNN_OPERATION_LOGISTIC)
    return out->scale == 1.f / 256 && out->zero_point == (is_signed ? -128 : 0);
  if (op_type == VKNN_OPERATION_TANH)
    return out->scale == 1.f / 128 && out->zero_point == (is_signed ? 0 : 128);
  return true;
}

static vknn_status validate_activation(const vknn_logger *log, const vknn_model *model,
                                       const vknn_subgraph *sg, const vknn_operation *op) {
  (void)model;
  if (!vknn_op_check_counts(log, op, 1, 1, 1)) return VKNN_STATUS_INVALID_ARGUMENT;
  const vknn_operand *in = &sg->operands[op->inputs[0]];
  const vknn_operand *out = &sg->operands[op->outputs[0]];
  const char *name = vknn_operation_type_name(op->type);
  if (vknn_variant_of(in->type) < 0 || out->type != in->type || in->dimension_count > ACTIVATION_MAX_RANK) {
    VKNN_LOG_E(log, "model", "%s: %s of rank %u is not allowed", name, vknn_operand_type_name(in->type),
               in->dimension_count);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  if (vknn_is_quant8(in->type) && !quant_output_ok(op->type, out)) {
    VKNN_LOG_E(log, "model", "%s: wrong quantized output scale or zero point", name);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  return VKNN_STATUS_NONE;
}

static vknn_status infer_activation(vknn_graph *graph, const vknn_operation *op) {
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  if (!in->shape_known) {
    VKNN_LOG_E(graph->log, "compilation", "%s: input shape unknown at prepare time",
               vknn_operation_type_name(op->type));
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  return vknn_op_set_output_shape(graph, op, 0, in->dims, in->rank);
}

/* Push constants of activation.comp, std430 layout. */
typedef struct activation_params {
  uint32_t count;
  float in_scale;
  int32_t in_zero_point;
  float out_scale;
  int32_t out_zero_point;
  float lo, hi;
} activation_params;

static int32_t clamp_code(int32_t type) {
  switch (type) {
    case VKNN_OPERATION_RELU: return VKNN_FUSED_RELU;
    case VKNN_OPERATION_RELU1: return VKNN_FUSED_RELU1;
    case VKNN_OPERATION_RELU6: return VKNN_FUSED_RELU6;
    default: return VKNN_FUSED_NONE;
  }
}

static vknn_status lower_activation(vknn_graph *graph, const vknn_operation *op,
                                    vknn_dispatch_list *out_list) {
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  const vknn_tensor *out = &graph->tensors[op->outputs[0]];
  activation_params p = {(uint32_t)vknn_shape_element_count(in->dims, in->rank), in->scale,
                         in->zero_point, out->scale, out->zero_point, 0.f, 0.f};
  vknn_activation_bounds(clamp_code(op->type), out, &p.lo, &p.hi);
  static const vknn_shader_id shaders[] = {VKNN_SHADER_ACTIVATION_F32, VKNN_SHADER_ACTIVATION_F16,
                                           VKNN_SHADER_ACTIVATION_Q8, VKNN_SHADER_ACTIVATION_Q8S};
  vknn_dispatch *d = vknn_dispatch_list_add(out_list);
  if (d == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  d->shader = shaders[vknn_variant_of(in->type)];
  d->spec[0] = (uint32_t)kernel_op(op->type);
  d->spec_count = 1;
  vknn_dispatch_bind(d, op->inputs[0], VKNN_ACCESS_READ);
  vknn_dispatch_bind(d, op->outputs[0], VKNN_ACCESS_WRITE);
  memcpy(d->push, &p, sizeof(p));
  d->push_size = sizeof(p);
  d->invocations = p.count;
  return VKNN_STATUS_NONE;
}

#define ACTIVATION_DEF(NAME) {VKNN_OPERATION_##NAME, false, validate_activation, infer_activation, lower_activation}
const vknn_op_def vknn_op_relu = ACTIVATION_DEF(RELU);
const vknn_op_def vknn_op_relu1 = ACTIVATION_DEF(RELU1);
const vknn_op_def vknn_op_relu6 = ACTIVATION_DEF(RELU6);
const vknn_op_def vknn_op_logistic = ACTIVATION_DEF(LOGISTIC);
const vknn_op_def vknn_op_tanh = ACTIVATION_DEF(TANH);
