/* IF and WHILE in the compiler: their HAL signature rules
 * (control_flow_validate.c). The split of a subgraph that holds them into
 * segments is control_flow_split.h; the runtime that runs them,
 * runtime/control_flow.c. */
#pragma once
#include "util/log.h"
#include "vknn/types.h"

bool vknn_is_control_flow(int32_t operation_type);
/* Whether a subgraph holds an IF or a WHILE. */
bool vknn_subgraph_has_control_flow(const vknn_subgraph *sg);
/* The subgraph a SUBGRAPH operand names (its location's offset). */
const vknn_subgraph *vknn_referenced_subgraph(const vknn_model *model, const vknn_operand *o);

/* The HAL rules of IF and WHILE (NeuralNetworks.h, ValidateHal): operand
 * counts, SUBGRAPH operands, a TENSOR_BOOL8 condition of one element, and
 * branch, condition and body inputs and outputs that agree with the outer
 * operands in type, quantization and (where both know it) shape.
 * INVALID_ARGUMENT, logged, when one is broken. */
vknn_status vknn_control_flow_validate(const vknn_logger *log, const vknn_model *model,
                                       const vknn_subgraph *sg, const vknn_operation *op);

