/* The operations the driver implements. Each lives in src/ops/<family>.c and
 * provides its signature validation, shape inference and lowering. */
#pragma once
#include "dispatch.h"
#include "graph.h"

typedef struct vknn_op_def {
  int32_t type;
  /* The HAL signature rules: operand counts, types, ranks where known,
   * constant parameter values. INVALID_ARGUMENT (logged) when broken. */
  vknn_status (*validate)(const vknn_logger *log, const vknn_model *model,
                          const vknn_subgraph *sg, const vknn_operation *op);
  /* Infers output shapes from input shapes, and checks that the GPU path
   * handles these exact types and parameters: GENERAL_FAILURE (logged) when
   * it does not, INVALID_ARGUMENT for incompatible shapes. */
  vknn_status (*infer)(vknn_graph *graph, const vknn_operation *op);
  /* Appends the operation's dispatches. Runs after infer succeeded. */
  vknn_status (*lower)(vknn_graph *graph, const vknn_operation *op, vknn_dispatch_list *out);
} vknn_op_def;

/* The implementation of an operation type; NULL when the driver has none. */
const vknn_op_def *vknn_op_find(int32_t type);

/* Families (src/ops/). */
extern const vknn_op_def vknn_op_add, vknn_op_sub, vknn_op_mul, vknn_op_div;
