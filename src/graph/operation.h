/* The interface every operation implements (src/ops/<family>.c): its HAL
 * signature rules, shape inference and lowering to dispatches. The
 * operations are listed in src/ops/op_list.h. */
#pragma once
#include "graph/dispatch.h"
#include "graph/graph.h"

typedef struct vknn_op_def {
  int32_t type;
  /* Clamps its output by a fused activation: a following RELU/RELU1/RELU6
   * may be fused into it (fusion.c); its lowering then uses
   * vknn_op_activation_bounds and vknn_graph_op_output. */
  bool applies_activation;
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
