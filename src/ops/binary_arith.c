/* ADD, SUB, MUL, DIV: elementwise arithmetic with broadcasting and a fused
 * activation. Kernel: shaders/binary_arith.comp. */
#include <string.h>

#include "operand_type.h"
#include "op_common.h"

#define LOG_TAG "model"
#define BINARY_MAX_RANK 4

enum { BINARY_ADD = 0, BINARY_SUB = 1, BINARY_MUL = 2, BINARY_DIV = 3 };

/* Push constants of binary_arith.comp, std430 layout. */
typedef struct binary_params {
  uint32_t out_dims[4];
  uint32_t a_strides[4];
  uint32_t b_strides[4];
  uint32_t count;
  float a_scale;
  int32_t a_zero_point;
  float b_scale;
  int32_t b_zero_point;
  float out_scale;
  int32_t out_zero_point;
  float act_min;
  float act_max;
} binary_params;

static int binary_kind(int32_t type) {
  switch (type) {
    case VKNN_OPERATION_ADD: return BINARY_ADD;
    case VKNN_OPERATION_SUB: return BINARY_SUB;
    case VKNN_OPERATION_MUL: return BINARY_MUL;
    default: return BINARY_DIV;
  }
}

static bool type_allowed(int kind, int32_t type) {
  switch (type) {
    case VKNN_OPERAND_TENSOR_FLOAT32:
    case VKNN_OPERAND_TENSOR_FLOAT16:
    case VKNN_OPERAND_TENSOR_INT32:
      return true;
    case VKNN_OPERAND_TENSOR_QUANT8_ASYMM:
    case VKNN_OPERAND_TENSOR_QUANT8_ASYMM_SIGNED:
      return kind != BINARY_DIV;
    default:
      return false;
  }
}

/* Broadcast shape of a and b (numpy rules, aligned on trailing dimensions).
 * Unknown (0) dimensions stay unknown unless the other side fixes them. */
static bool broadcast_shape(const uint32_t *a, uint32_t ra, const uint32_t *b, uint32_t rb,
                            uint32_t *out, uint32_t *out_rank) {
  uint32_t rank = ra > rb ? ra : rb;
  for (uint32_t i = 0; i < rank; ++i) {
    uint32_t da = i < ra ? a[ra - 1 - i] : 1;
    uint32_t db = i < rb ? b[rb - 1 - i] : 1;
    uint32_t d;
    if (da == db || db == 1) d = da;
    else if (da == 1) d = db;
    else if (da == 0 || db == 0) d = da == 0 ? db : da;
    else return false;
    out[rank - 1 - i] = d;
  }
  *out_rank = rank;
  return true;
}

/* TENSOR_INT32 arithmetic takes no fused activation. */
static bool activation_valid(int32_t activation, int32_t type) {
  return vknn_activation_valid(activation) &&
         (type != VKNN_OPERAND_TENSOR_INT32 || activation == VKNN_FUSED_NONE);
}

static vknn_status validate_binary(const vknn_logger *log, const vknn_model *model,
                                   const vknn_subgraph *sg, const vknn_operation *op) {
  const char *name = vknn_operation_type_name(op->type);
  if (op->input_count != 3 || op->output_count != 1) {
    VKNN_LOG_E(log, LOG_TAG, "%s takes 3 inputs and 1 output, got %u and %u", name,
               op->input_count, op->output_count);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  const vknn_operand *a = &sg->operands[op->inputs[0]];
  const vknn_operand *b = &sg->operands[op->inputs[1]];
  const vknn_operand *act = &sg->operands[op->inputs[2]];
  const vknn_operand *out = &sg->operands[op->outputs[0]];
  int kind = binary_kind(op->type);
  if (!type_allowed(kind, a->type) || b->type != a->type || out->type != a->type) {
    VKNN_LOG_E(log, LOG_TAG, "%s: operand types %s, %s -> %s are not allowed", name,
               vknn_operand_type_name(a->type), vknn_operand_type_name(b->type),
               vknn_operand_type_name(out->type));
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  if (act->type != VKNN_OPERAND_INT32) {
    VKNN_LOG_E(log, LOG_TAG, "%s: input 2 (activation) must be an INT32 scalar", name);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  if (a->dimension_count > BINARY_MAX_RANK || b->dimension_count > BINARY_MAX_RANK ||
      out->dimension_count > BINARY_MAX_RANK) {
    VKNN_LOG_E(log, LOG_TAG, "%s supports tensors of rank up to %d", name, BINARY_MAX_RANK);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  int32_t activation;
  if (act->lifetime == VKNN_LIFETIME_CONSTANT_COPY &&
      act->location.length == sizeof(activation)) {
    memcpy(&activation, model->operand_values + act->location.offset, sizeof(activation));
    if (!activation_valid(activation, a->type)) {
      VKNN_LOG_E(log, LOG_TAG, "%s: invalid fused activation %d", name, activation);
      return VKNN_STATUS_INVALID_ARGUMENT;
    }
  }
  uint32_t dims[VKNN_MAX_RANK], rank;
  if (a->dimension_count > 0 && b->dimension_count > 0 &&
      !broadcast_shape(a->dimensions, a->dimension_count, b->dimensions, b->dimension_count,
                       dims, &rank)) {
    VKNN_LOG_E(log, LOG_TAG, "%s: input shapes cannot be broadcast together", name);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  return VKNN_STATUS_NONE;
}

/* Output shape: broadcast of the inputs, merged with what the model declares. */
static vknn_status infer_binary(vknn_graph *graph, const vknn_operation *op) {
  const char *name = vknn_operation_type_name(op->type);
  const vknn_tensor *a = &graph->tensors[op->inputs[0]];
  const vknn_tensor *b = &graph->tensors[op->inputs[1]];
  int32_t activation;
  if (!vknn_graph_const_i32(graph, op->inputs[2], &activation)) {
    VKNN_LOG_E(graph->log, "compilation", "%s: the activation must be a constant", name);
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  if (!activation_valid(activation, a->type)) {
    VKNN_LOG_E(graph->log, LOG_TAG, "%s: invalid fused activation %d", name, activation);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  if (!a->shape_known || !b->shape_known) {
    VKNN_LOG_E(graph->log, "compilation", "%s: input shapes unknown at prepare time", name);
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  uint32_t dims[VKNN_MAX_RANK], rank;
  broadcast_shape(a->dims, a->rank, b->dims, b->rank, dims, &rank);
  return vknn_op_set_output_shape(graph, op, 0, dims, rank);
}

/* Element strides of an input for each of the 4 right-aligned output
 * dimensions; 0 where the input is broadcast. */
static void broadcast_strides(const vknn_tensor *in, uint32_t strides[4]) {
  uint32_t stride = 1;
  memset(strides, 0, 4 * sizeof(uint32_t));
  for (uint32_t i = 0; i < in->rank; ++i) {
    uint32_t dim = in->dims[in->rank - 1 - i];
    strides[3 - i] = dim == 1 ? 0 : stride;
    stride *= dim;
  }
}

static vknn_shader_id shader_for(int32_t type) {
  switch (type) {
    case VKNN_OPERAND_TENSOR_FLOAT16: return VKNN_SHADER_BINARY_ARITH_F16;
    case VKNN_OPERAND_TENSOR_INT32: return VKNN_SHADER_BINARY_ARITH_I32;
    case VKNN_OPERAND_TENSOR_QUANT8_ASYMM: return VKNN_SHADER_BINARY_ARITH_Q8;
    case VKNN_OPERAND_TENSOR_QUANT8_ASYMM_SIGNED: return VKNN_SHADER_BINARY_ARITH_Q8S;
    default: return VKNN_SHADER_BINARY_ARITH_F32;
  }
}

static vknn_status lower_binary(vknn_graph *graph, const vknn_operation *op,
                                vknn_dispatch_list *out_list) {
  const vknn_tensor *a = &graph->tensors[op->inputs[0]];
  const vknn_tensor *b = &graph->tensors[op->inputs[1]];
  uint32_t out_index = vknn_graph_op_output(graph, op, 0);
  const vknn_tensor *out = &graph->tensors[out_index];
  int32_t activation = 0;
  vknn_graph_const_i32(graph, op->inputs[2], &activation);
  binary_params p = {.a_scale = a->scale,
                     .a_zero_point = a->zero_point,
                     .b_scale = b->scale,
                     .b_zero_point = b->zero_point,
                     .out_scale = out->scale,
                     .out_zero_point = out->zero_point};
  for (uint32_t i = 0; i < 4; ++i)
    p.out_dims[i] = i + out->rank >= 4 ? out->dims[i + out->rank - 4] : 1;
  broadcast_strides(a, p.a_strides);
  broadcast_strides(b, p.b_strides);
  p.count = (uint32_t)vknn_shape_element_count(out->dims, out->rank);
  vknn_op_activation_bounds(graph, op, activation, &p.act_min, &p.act_max);

  vknn_dispatch *d = vknn_dispatch_list_add(out_list);
  if (d == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  d->shader = shader_for(out->type);
  d->spec[0] = (uint32_t)binary_kind(op->type);
  d->spec_count = 1;
  vknn_dispatch_bind(d, op->inputs[0], VKNN_ACCESS_READ);
  vknn_dispatch_bind(d, op->inputs[1], VKNN_ACCESS_READ);
  vknn_dispatch_bind(d, out_index, VKNN_ACCESS_WRITE);
  memcpy(d->push, &p, sizeof(p));
  d->push_size = sizeof(p);
  d->invocations = p.count;
  return VKNN_STATUS_NONE;
}

const vknn_op_def vknn_op_add = {VKNN_OPERATION_ADD, true, validate_binary, infer_binary,
                                 lower_binary};
const vknn_op_def vknn_op_sub = {VKNN_OPERATION_SUB, true, validate_binary, infer_binary,
                                 lower_binary};
const vknn_op_def vknn_op_mul = {VKNN_OPERATION_MUL, true, validate_binary, infer_binary,
                                 lower_binary};
const vknn_op_def vknn_op_div = {VKNN_OPERATION_DIV, true, validate_binary, infer_binary,
                                 lower_binary};
