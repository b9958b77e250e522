/* SELECT: out = condition ? input1 : input2, over equal shapes.
 * Kernel: shaders/select.comp. */
#include <string.h>

#include "ops/op_common.h"
#include "ops/known_dims.h"
#include "model/operand_type.h"

static vknn_status validate_select(const vknn_logger *log, const vknn_model *model,
                                   const vknn_subgraph *sg, const vknn_operation *op) {
  (void)model;
  if (!vknn_op_check_counts(log, sg, op, 3, 3, 1)) return VKNN_STATUS_INVALID_ARGUMENT;
  const vknn_operand *a = &sg->operands[op->inputs[1]];
  bool type_ok = vknn_variant_of(a->type) >= 0 || a->type == VKNN_OPERAND_TENSOR_INT32;
  if (!type_ok) VKNN_LOG_E(log, "model", "SELECT: %s is not allowed", vknn_operand_type_name(a->type));
  bool ok = type_ok &&
            vknn_op_check_type(log, op, "condition", &sg->operands[op->inputs[0]], VKNN_OPERAND_TENSOR_BOOL8) &&
            vknn_op_check_type(log, op, "input 2", &sg->operands[op->inputs[2]], a->type) &&
            vknn_op_check_type(log, op, "output", &sg->operands[op->outputs[0]], a->type);
  return ok ? VKNN_STATUS_NONE : VKNN_STATUS_INVALID_ARGUMENT;
}

/* a and b have the same shape as far as the model gives them: a rank not
 * known yet, or a dimension (0), agrees with any. */
static bool shapes_agree(const vknn_tensor *a, const vknn_tensor *b) {
  if (a->rank == 0 || b->rank == 0) return true;
  bool agree = a->rank == b->rank;
  for (uint32_t d = 0; d < a->rank && agree; ++d) agree = vknn_dims_agree(a->dims[d], b->dims[d]);
  return agree;
}

/* The inputs' shapes, and the declared output against them, are checked as
 * far as the model gives them before they are required: a model leaving
 * some to an execution still has them checked at prepare (exactly, once
 * every shape is known). */
static vknn_status infer_select(vknn_graph *graph, const vknn_operation *op) {
  for (uint32_t i = 0; i < 3; ++i) {
    for (uint32_t j = i + 1; j < 3; ++j) {
      if (!shapes_agree(&graph->tensors[op->inputs[i]], &graph->tensors[op->inputs[j]])) {
        VKNN_LOG_E(graph->log, "model", "SELECT: the inputs must have equal shapes");
        return VKNN_STATUS_INVALID_ARGUMENT;
      }
    }
  }
  vknn_status s = VKNN_STATUS_NONE;
  for (uint32_t i = 0; i < 3 && s == VKNN_STATUS_NONE; ++i) {
    const vknn_tensor *in = &graph->tensors[op->inputs[i]];
    if (in->lifetime != VKNN_LIFETIME_NO_VALUE) s = vknn_op_check_known_output(graph, op, in->dims, in->rank);
  }
  if (s == VKNN_STATUS_NONE) s = vknn_op_require_input_shapes(graph, op, 3);
  if (s != VKNN_STATUS_NONE) return s;
  const vknn_tensor *c = &graph->tensors[op->inputs[0]];
  return vknn_op_set_output_shape(graph, op, 0, c->dims, c->rank);
}

/* Push constants of select.comp, std430 layout. */
typedef struct select_params {
  uint32_t count;
  float a_scale;
  int32_t a_zero_point;
  float b_scale;
  int32_t b_zero_point;
  float out_scale;
  int32_t out_zero_point;
  float q_min, q_max;
} select_params;
VKNN_PUSH_LAYOUT(select, select_params);

static vknn_status lower_select(vknn_graph *graph, const vknn_operation *op,
                                vknn_dispatch_list *out_list) {
  const vknn_tensor *a = &graph->tensors[op->inputs[1]];
  const vknn_tensor *b = &graph->tensors[op->inputs[2]];
  const vknn_tensor *out = &graph->tensors[op->outputs[0]];
  select_params p = {(uint32_t)vknn_shape_element_count(out->dims, out->rank), a->scale,
                     a->zero_point, b->scale, b->zero_point, out->scale, out->zero_point,
                     (float)vknn_quant_min(out->type), (float)vknn_quant_max(out->type)};
  static const vknn_shader_id shaders[] = {VKNN_SHADER_SELECT_F32, VKNN_SHADER_SELECT_F16,
                                           VKNN_SHADER_SELECT_Q8, VKNN_SHADER_SELECT_Q8S};
  vknn_dispatch *d = vknn_dispatch_list_add(out_list);
  if (d == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  d->shader = a->type == VKNN_OPERAND_TENSOR_INT32 ? VKNN_SHADER_SELECT_I32 : shaders[vknn_variant_of(a->type)];
  for (uint32_t i = 0; i < 3; ++i) vknn_dispatch_bind(d, op->inputs[i], VKNN_ACCESS_READ);
  vknn_dispatch_bind(d, op->outputs[0], VKNN_ACCESS_WRITE);
  memcpy(d->push, &p, sizeof(p));
  d->push_size = sizeof(p);
  d->invocations = p.count;
  return VKNN_STATUS_NONE;
}

const vknn_op_def vknn_op_select = {VKNN_OPERATION_SELECT, false, validate_select, infer_select,
                                    lower_select};
