/* A shape parameter given at run time (FILL's shape, RESHAPE's new shape,
 * SQUEEZE's axes) where the model declares the output: the declaration
 * decides the kernels, and shaders/shape_check.comp checks each execution's
 * parameter against it (docs/architecture.md, "Run-time checks"). */
#pragma once
#include "ops/op_common.h"

typedef enum vknn_shape_check_kind {
  VKNN_SHAPE_CHECK_FILL = 0,
  VKNN_SHAPE_CHECK_RESHAPE = 1,
  VKNN_SHAPE_CHECK_SQUEEZE = 2,
} vknn_shape_check_kind;

/* At prepare: the parameter (op's input `input`) must have a known length,
 * RESHAPE's the declared rank (FILL's inference checks its own); a model
 * input of unknown length defers
 * the operation to each execution, where it is a constant. */
vknn_status vknn_shape_check_infer(vknn_graph *graph, const vknn_operation *op, uint32_t input,
                                   vknn_shape_check_kind kind);

/* Adds the dispatch that checks op's input `input` against its declared
 * output 0. */
vknn_status vknn_lower_shape_check(vknn_graph *graph, const vknn_operation *op, uint32_t input,
                                   vknn_shape_check_kind kind, vknn_dispatch_list *out_list);
