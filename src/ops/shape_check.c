/* Shape parameters given at run time against a declared output
 * (ops/shape_check.h). Kernel: shaders/shape_check.comp. */
#include <string.h>

#include "ops/shape_check.h"

/* shaders/shape_check.comp's push constants. */
typedef struct shape_check_params {
  uint32_t count;    /* the parameter's elements */
  uint32_t in_rank;  /* SQUEEZE: the input's */
  uint32_t out_rank;
  uint32_t check_code; /* graph/runtime_check.h */
  uint32_t in_dims[4];
  uint32_t out_dims[8];
} shape_check_params;
VKNN_PUSH_LAYOUT(shape_check, shape_check_params);

vknn_status vknn_shape_check_infer(vknn_graph *graph, const vknn_operation *op, uint32_t input,
                                   vknn_shape_check_kind kind) {
  const vknn_tensor *param = &graph->tensors[op->inputs[input]];
  const vknn_tensor *out = &graph->tensors[op->outputs[0]];
  if (!param->shape_known) {
    if (param->lifetime == VKNN_LIFETIME_SUBGRAPH_INPUT)
      return vknn_graph_defer(graph, op, "the length of a shape parameter is known at run time only");
    VKNN_LOG_E(graph->log, "compilation", "%s: a shape parameter of unknown length",
               vknn_operation_type_name(op->type));
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  vknn_status s = vknn_op_check_known_rank(graph, op, input, 1, 1);
  if (s != VKNN_STATUS_NONE) return s;
  /* FILL's own inference checks the length before (for a constant shape too). */
  if (kind == VKNN_SHAPE_CHECK_RESHAPE && param->dims[0] != out->rank) {
    VKNN_LOG_E(graph->log, "model", "%s: a shape of %u entries for an output of rank %u",
               vknn_operation_type_name(op->type), param->dims[0], out->rank);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  return VKNN_STATUS_NONE;
}

vknn_status vknn_lower_shape_check(vknn_graph *graph, const vknn_operation *op, uint32_t input,
                                   vknn_shape_check_kind kind, vknn_dispatch_list *out_list) {
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  const vknn_tensor *param = &graph->tensors[op->inputs[input]];
  const vknn_tensor *out = &graph->tensors[op->outputs[0]];
  shape_check_params p = {.count = param->dims[0], .out_rank = out->rank,
                          .check_code = vknn_graph_check_code(graph, op)};
  memcpy(p.out_dims, out->dims, out->rank * sizeof(uint32_t));
  if (kind == VKNN_SHAPE_CHECK_SQUEEZE) {
    p.in_rank = in->rank; /* at most 4: validation */
    memcpy(p.in_dims, in->dims, in->rank * sizeof(uint32_t));
  }
  vknn_dispatch *d = vknn_dispatch_list_add(out_list);
  if (d == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  d->shader = VKNN_SHADER_SHAPE_CHECK;
  d->spec[VKNN_SPEC_SHAPE_CHECK_OP] = kind;
  d->spec_count = VKNN_SPEC_COUNT_SHAPE_CHECK;
  vknn_dispatch_bind(d, op->inputs[input], VKNN_ACCESS_READ);
  memcpy(d->push, &p, sizeof(p));
  d->push_size = sizeof(p);
  d->invocations = 1;
  return VKNN_STATUS_NONE;
}
