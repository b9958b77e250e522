/* Model validation as the NN HAL 1.3 requires. Every failure is logged with
 * the tag "model" and names the offending subgraph, operand or operation. */
#pragma once
#include "util/log.h"

/* INVALID_ARGUMENT (logged) unless the model is valid, including the
 * signature rules of every operation the driver implements. */
vknn_status vknn_validate_model(const vknn_logger *log, const vknn_model *model);

/* Byte size of an operand's value from its type and dimensions: 0 when a
 * dimension is unknown, UINT64_MAX for types of no defined size. */
uint64_t vknn_operand_byte_size(const vknn_operand *operand);
