#include "model/operand_type.h"

#include "model/extension.h"

bool vknn_operand_type_is_builtin(int32_t type) {
  return type >= VKNN_OPERAND_FLOAT32 && type <= VKNN_OPERAND_SUBGRAPH;
}

bool vknn_operand_type_is_extension(int32_t type) {
  return VKNN_EXTENSION_PREFIX(type) != 0;
}

bool vknn_operand_type_is_oem(int32_t type) {
  return type == VKNN_OPERAND_OEM || type == VKNN_OPERAND_TENSOR_OEM_BYTE;
}

bool vknn_operand_type_is_scalar(int32_t type) {
  switch (type) {
    case VKNN_OPERAND_FLOAT32:
    case VKNN_OPERAND_INT32:
    case VKNN_OPERAND_UINT32:
    case VKNN_OPERAND_BOOL:
    case VKNN_OPERAND_FLOAT16:
      return true;
    default: {
      bool is_tensor;
      uint32_t size;
      return vknn_ext_operand_info(type, &is_tensor, &size) && !is_tensor;
    }
  }
}

bool vknn_operand_type_is_tensor(int32_t type) {
  bool is_tensor;
  uint32_t size;
  if (vknn_ext_operand_info(type, &is_tensor, &size)) return is_tensor;
  return vknn_operand_type_is_builtin(type) && !vknn_operand_type_is_scalar(type) &&
         type != VKNN_OPERAND_SUBGRAPH;
}

uint32_t vknn_operand_type_element_size(int32_t type) {
  switch (type) {
    case VKNN_OPERAND_FLOAT32:
    case VKNN_OPERAND_INT32:
    case VKNN_OPERAND_UINT32:
    case VKNN_OPERAND_TENSOR_FLOAT32:
    case VKNN_OPERAND_TENSOR_INT32:
      return 4;
    case VKNN_OPERAND_FLOAT16:
    case VKNN_OPERAND_TENSOR_FLOAT16:
    case VKNN_OPERAND_TENSOR_QUANT16_SYMM:
    case VKNN_OPERAND_TENSOR_QUANT16_ASYMM:
      return 2;
    case VKNN_OPERAND_BOOL:
    case VKNN_OPERAND_TENSOR_BOOL8:
    case VKNN_OPERAND_TENSOR_QUANT8_ASYMM:
    case VKNN_OPERAND_TENSOR_QUANT8_ASYMM_SIGNED:
    case VKNN_OPERAND_TENSOR_QUANT8_SYMM:
    case VKNN_OPERAND_TENSOR_QUANT8_SYMM_PER_CHANNEL:
      return 1;
    default: {
      bool is_tensor;
      uint32_t size;
      return vknn_ext_operand_info(type, &is_tensor, &size) ? size : 0;
    }
  }
}

uint64_t vknn_saturating_bytes(uint64_t count, uint32_t element_size) {
  return element_size != 0 && count > UINT64_MAX / element_size ? UINT64_MAX : count * element_size;
}

uint64_t vknn_operand_value_bytes(int32_t type, const uint32_t *dims, uint32_t rank) {
  if (vknn_operand_type_is_scalar(type)) return vknn_operand_type_element_size(type);
  if (rank == 0) return 0;
  return vknn_saturating_bytes(vknn_shape_element_count(dims, rank),
                               vknn_operand_type_element_size(type));
}

uint64_t vknn_shape_element_count(const uint32_t *dims, uint32_t rank) {
  uint64_t count = 1;
  for (uint32_t i = 0; i < rank; ++i) {
    if (dims[i] == 0) return 0;
    if (count > UINT64_MAX / dims[i]) return UINT64_MAX;
    count *= dims[i];
  }
  return count;
}

bool vknn_is_float_tensor(int32_t type) {
  return type == VKNN_OPERAND_TENSOR_FLOAT32 || type == VKNN_OPERAND_TENSOR_FLOAT16;
}
