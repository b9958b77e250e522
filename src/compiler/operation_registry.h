/* The registry of implemented operations (src/ops/op_list.h) and the
 * model validation that needs it. */
#pragma once
#include "graph/operation.h"

/* The HAL's model rules (model/model_validate.c), then the signature rules
 * of every implemented operation in every subgraph. */
vknn_status vknn_compiler_validate_model(const vknn_logger *log, const vknn_model *model);
/* The signature rules alone, of every operation of sg (a subgraph of model,
 * or one with its operands' lifetimes changed: a request's omitted inputs). */
vknn_status vknn_compiler_validate_signatures(const vknn_logger *log, const vknn_model *model,
                                              const vknn_subgraph *sg);

/* The implementation of an operation type (the driver's: an extension's
 * operation types canonical, model/extension.h); NULL when the driver has none. */
const vknn_op_def *vknn_op_find(int32_t type);
/* The implementation of a model's operation type (its extension types
 * decoded through the model's extensionNameToPrefix); NULL when none. */
const vknn_op_def *vknn_op_find_in(const vknn_model *model, int32_t type);

/* Whether every operand of op has a rank the driver holds (VKNN_MAX_RANK).
 * NNAPI sets no limit: an operation past it is valid but unsupported, and
 * its own rules are not checked (they keep shapes in arrays of that rank). */
bool vknn_operation_ranks_fit(const vknn_subgraph *sg, const vknn_operation *op);
/* The same for every operand of every subgraph: a model that may be prepared. */
bool vknn_model_ranks_fit(const vknn_model *model);

/* Whether every operation of sg that reads operand reads it as data only
 * (the binary family's tensor inputs): its value then decides nothing at compile time. */
bool vknn_operand_read_only_as_data(const vknn_subgraph *sg, uint32_t operand);
