/* Facts about operand types: element sizes, scalar or tensor, quantization. */
#pragma once
#include <stdbool.h>
#include <stdint.h>
#include "vknn/types.h"

/* True for the 16 HAL 1.3 types (not OEM, not extensions). */
bool vknn_operand_type_is_builtin(int32_t type);
bool vknn_operand_type_is_extension(int32_t type);
/* OEM and TENSOR_OEM_BYTE: valid in a model, of no size or rule the HAL
 * defines; no operation of the driver takes them. */
bool vknn_operand_type_is_oem(int32_t type);
/* The next three know the driver's canonical extension types (model/extension.h)
 * too; a model's own extension type must be decoded first. */
bool vknn_operand_type_is_scalar(int32_t type);
bool vknn_operand_type_is_tensor(int32_t type);
/* TENSOR_FLOAT32 or TENSOR_FLOAT16. */
bool vknn_is_float_tensor(int32_t type);
/* Bytes of one element; 0 for SUBGRAPH and types of unknown size. */
uint32_t vknn_operand_type_element_size(int32_t type);

/* Elements of a shape; 0 when a dimension is unknown (0). Saturates at UINT64_MAX. */
uint64_t vknn_shape_element_count(const uint32_t *dims, uint32_t rank);

/* count * element_size, UINT64_MAX where that does not fit. */
uint64_t vknn_saturating_bytes(uint64_t count, uint32_t element_size);

/* The most bytes a tensor may hold (the model rule, model_validate.c): a
 * value larger, whatever gives its shape, is refused. */
#define VKNN_MAX_TENSOR_BYTES ((uint64_t)UINT32_MAX)

/* Bytes of a value of a type and shape: a scalar's element size; for a
 * tensor, 0 while its rank (0) or a dimension is unknown; UINT64_MAX where
 * the product does not fit. */
uint64_t vknn_operand_value_bytes(int32_t type, const uint32_t *dims, uint32_t rank);
