/* Model validation as the NN HAL 1.3 requires. Every failure is logged with
 * the tag "model" and names the offending subgraph, operand or operation. */
#pragma once
#include "util/log.h"

/* INVALID_ARGUMENT (logged) unless the model is valid, including the
 * signature rules of every operation the driver implements. */
vknn_status vknn_validate_model(const vknn_logger *log, const vknn_model *model);

/* The rules on subgraph references that operations' own rules come before
 * (vknn_compiler_validate_model runs it last): every referenced subgraph is
 * referenced by another subgraph, every SUBGRAPH operand is read (by an IF
 * or WHILE). INVALID_ARGUMENT (logged) otherwise. The model must have passed
 * vknn_validate_model. */
vknn_status vknn_validate_model_references(const vknn_logger *log, const vknn_model *model);

/* Byte size of an operand's value from its type and dimensions: 0 when a
 * dimension is unknown, UINT64_MAX for types of no defined size. */
uint64_t vknn_operand_byte_size(const vknn_operand *operand);
