/* The registry of implemented operations (src/ops/op_list.h) and the
 * model validation that needs it. */
#pragma once
#include "graph/operation.h"

/* The HAL's model rules (model/model_validate.c), then the signature rules
 * of every implemented operation in every subgraph. */
vknn_status vknn_compiler_validate_model(const vknn_logger *log, const vknn_model *model);

/* The implementation of an operation type (the driver's: an extension's
 * operation types canonical, model/extension.h); NULL when the driver has none. */
const vknn_op_def *vknn_op_find(int32_t type);
/* The implementation of a model's operation type (its extension types
 * decoded through the model's extensionNameToPrefix); NULL when none. */
const vknn_op_def *vknn_op_find_in(const vknn_model *model, int32_t type);

/* Whether every operation of sg that reads operand reads it as data only
 * (the binary family's tensor inputs): its value then decides nothing at compile time. */
bool vknn_operand_read_only_as_data(const vknn_subgraph *sg, uint32_t operand);
