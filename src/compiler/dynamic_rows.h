/* Values whose rows the data decide (vknn_tensor.count_slot), read by later
 * operations: see docs/architecture.md, "Outputs whose size the data
 * decide". */
#pragma once
#include "graph/operation.h"

/* Infers operation op (def's inference) when it reads such a value: only
 * operations that treat every row of it apart (first dimension in, first
 * dimension out) are supported; their outputs are planned at the largest
 * rows and take the same count word. GENERAL_FAILURE (logged) otherwise;
 * *handled false when op reads no such value (nothing done). */
vknn_status vknn_dynamic_rows_infer(vknn_graph *graph, const vknn_operation *op, const vknn_op_def *def,
                                    bool *handled);
