/* FILL (every element takes a value, possibly computed at run time) and RANK
 * (the input's rank, a constant once shapes are known). Kernel:
 * shaders/fill.comp. */
#include <stdlib.h>
#include <string.h>

#include "ops/op_common.h"
#include "ops/shape_check.h"
#include "model/operand_type.h"
#include "util/fault_injection.h"

static int32_t value_type(int32_t tensor_type) {
  switch (tensor_type) {
    case VKNN_OPERAND_TENSOR_FLOAT32: return VKNN_OPERAND_FLOAT32;
    case VKNN_OPERAND_TENSOR_FLOAT16: return VKNN_OPERAND_FLOAT16;
    default: return VKNN_OPERAND_INT32;
  }
}

static vknn_status validate_fill(const vknn_logger *log, const vknn_model *model,
                                 const vknn_subgraph *sg, const vknn_operation *op) {
  (void)model;
  if (!vknn_op_check_counts(log, sg, op, 2, 2, 1)) return VKNN_STATUS_INVALID_ARGUMENT;
  const vknn_operand *out = &sg->operands[op->outputs[0]];
  bool out_ok = out->type == VKNN_OPERAND_TENSOR_FLOAT32 || out->type == VKNN_OPERAND_TENSOR_FLOAT16 ||
                out->type == VKNN_OPERAND_TENSOR_INT32;
  if (!out_ok) VKNN_LOG_E(log, "model", "FILL: output %s is not allowed", vknn_operand_type_name(out->type));
  bool ok = out_ok &&
            vknn_op_check_type(log, op, "shape", &sg->operands[op->inputs[0]], VKNN_OPERAND_TENSOR_INT32) &&
            vknn_op_check_rank(log, op, "shape", &sg->operands[op->inputs[0]], 1) &&
            vknn_op_check_type(log, op, "value", &sg->operands[op->inputs[1]], value_type(out->type));
  return ok ? VKNN_STATUS_NONE : VKNN_STATUS_INVALID_ARGUMENT;
}

/* The shape comes from the shape input when it is a constant, else from the
 * model's declaration of the output (each execution's shape checked against
 * it on the GPU), else from the value an execution gives. */
static vknn_status infer_fill(vknn_graph *graph, const vknn_operation *op) {
  int32_t shape[VKNN_MAX_RANK];
  uint32_t rank, dims[VKNN_MAX_RANK];
  const vknn_tensor *shape_input = &graph->tensors[op->inputs[0]];
  const vknn_tensor *out = &graph->tensors[op->outputs[0]];
  /* The shape's rank again: one the model leaves unknown passed validation. */
  if (shape_input->shape_known) {
    vknn_status s = vknn_op_check_known_rank(graph, op, 0, 1, 1);
    if (s != VKNN_STATUS_NONE) return s;
  }
  if (shape_input->shape_known && out->rank != 0 && shape_input->dims[0] != out->rank) {
    VKNN_LOG_E(graph->log, "model", "FILL: a shape of %u entries for an output of rank %u",
               shape_input->dims[0], out->rank);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  if (!vknn_graph_const_i32_tensor(graph, op->inputs[0], shape, VKNN_MAX_RANK, &rank)) {
    if (out->shape_known) return vknn_shape_check_infer(graph, op, 0, VKNN_SHAPE_CHECK_FILL);
    if (graph->tensors[op->inputs[0]].lifetime == VKNN_LIFETIME_SUBGRAPH_INPUT)
      return vknn_graph_defer(graph, op, "the shape is a model input");
    VKNN_LOG_E(graph->log, "compilation", "FILL: needs a constant shape or a declared output shape");
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  for (uint32_t d = 0; d < rank; ++d) {
    if (shape[d] < 0) {
      VKNN_LOG_E(graph->log, "model", "FILL: dimension %d", shape[d]);
      return VKNN_STATUS_INVALID_ARGUMENT;
    }
    if (shape[d] == 0) {
      /* Valid (the reference takes it), but an output of no elements. */
      VKNN_LOG_E(graph->log, "compilation", "FILL: dimension 0: zero-sized tensors are not supported");
      return VKNN_STATUS_GENERAL_FAILURE;
    }
    dims[d] = (uint32_t)shape[d];
  }
  return vknn_op_set_output_shape(graph, op, 0, dims, rank);
}

/* Every element of out_index takes the value of the scalar tensor value. */
typedef struct fill_params {
  uint32_t count; /* elements written */
} fill_params;
VKNN_PUSH_LAYOUT(fill, fill_params);

static vknn_status lower_fill_from(vknn_graph *graph, uint32_t value, uint32_t out_index,
                                   vknn_dispatch_list *out_list) {
  const vknn_tensor *out = &graph->tensors[out_index];
  uint32_t element = vknn_operand_type_element_size(out->type);
  uint32_t count = (uint32_t)(vknn_tensor_byte_size(out) / element);
  static const vknn_shader_id by_size[] = {VKNN_SHADER_FILL_B8, VKNN_SHADER_FILL_B16,
                                           VKNN_SHADER_FILL_B32, VKNN_SHADER_FILL_B32};
  vknn_dispatch *d = vknn_dispatch_list_add(out_list);
  if (d == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  d->shader = by_size[element / 2];
  vknn_dispatch_bind(d, value, VKNN_ACCESS_READ);
  vknn_dispatch_bind(d, out_index, VKNN_ACCESS_WRITE);
  fill_params p = {.count = count};
  memcpy(d->push, &p, sizeof(p));
  d->push_size = sizeof(p);
  d->invocations = count;
  return VKNN_STATUS_NONE;
}

static vknn_status lower_fill(vknn_graph *graph, const vknn_operation *op,
                              vknn_dispatch_list *out_list) {
  if (graph->tensors[op->inputs[0]].constant_data == NULL) {
    vknn_status s = vknn_lower_shape_check(graph, op, 0, VKNN_SHAPE_CHECK_FILL, out_list);
    if (s != VKNN_STATUS_NONE) return s;
  }
  return lower_fill_from(graph, op->inputs[1], op->outputs[0], out_list);
}

static vknn_status validate_rank(const vknn_logger *log, const vknn_model *model,
                                 const vknn_subgraph *sg, const vknn_operation *op) {
  (void)model;
  bool ok = vknn_op_check_counts(log, sg, op, 1, 1, 1) &&
            vknn_op_check_type(log, op, "output", &sg->operands[op->outputs[0]], VKNN_OPERAND_INT32);
  int32_t in = ok ? sg->operands[op->inputs[0]].type : 0; /* no input to read where the counts failed */
  if (ok && !(vknn_operand_type_is_builtin(in) && vknn_operand_type_is_tensor(in))) {
    VKNN_LOG_E(log, "model", "RANK: the input must be a tensor of an NNAPI type");
    ok = false;
  }
  return ok ? VKNN_STATUS_NONE : VKNN_STATUS_INVALID_ARGUMENT;
}

static vknn_status infer_rank(vknn_graph *graph, const vknn_operation *op) {
  vknn_status s = vknn_op_require_input_shape(graph, op, 0);
  return s == VKNN_STATUS_NONE ? vknn_op_set_output_shape(graph, op, 0, NULL, 0) : s;
}

static vknn_status lower_rank(vknn_graph *graph, const vknn_operation *op,
                              vknn_dispatch_list *out_list) {
  int32_t *rank = vknn_malloc(sizeof(int32_t));
  if (rank != NULL) *rank = (int32_t)graph->tensors[op->inputs[0]].rank;
  uint32_t value = vknn_graph_add_constant(graph, VKNN_OPERAND_INT32, NULL, 0, rank);
  if (value == UINT32_MAX) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  return lower_fill_from(graph, value, op->outputs[0], out_list);
}

const vknn_op_def vknn_op_fill = {VKNN_OPERATION_FILL, false, validate_fill, infer_fill, lower_fill};
const vknn_op_def vknn_op_rank = {VKNN_OPERATION_RANK, false, validate_rank, infer_rank, lower_rank};
