/* Names of statuses and types for logs and tools. */
#include "vknn/device.h"

const char *vknn_status_name(vknn_status status) {
  switch (status) {
    case VKNN_STATUS_NONE: return "NONE";
    case VKNN_STATUS_DEVICE_UNAVAILABLE: return "DEVICE_UNAVAILABLE";
    case VKNN_STATUS_GENERAL_FAILURE: return "GENERAL_FAILURE";
    case VKNN_STATUS_OUTPUT_INSUFFICIENT_SIZE: return "OUTPUT_INSUFFICIENT_SIZE";
    case VKNN_STATUS_INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    case VKNN_STATUS_MISSED_DEADLINE_TRANSIENT: return "MISSED_DEADLINE_TRANSIENT";
    case VKNN_STATUS_MISSED_DEADLINE_PERSISTENT: return "MISSED_DEADLINE_PERSISTENT";
    case VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT: return "RESOURCE_EXHAUSTED_TRANSIENT";
    case VKNN_STATUS_RESOURCE_EXHAUSTED_PERSISTENT: return "RESOURCE_EXHAUSTED_PERSISTENT";
  }
  return "UNKNOWN_STATUS";
}

const char *vknn_operation_type_name(int32_t type) {
  switch (type) {
#define VKNN_OPERATION_NAME_(name, value) \
  case value: return #name;
    VKNN_OPERATION_LIST(VKNN_OPERATION_NAME_)
#undef VKNN_OPERATION_NAME_
    case VKNN_OPERATION_OEM: return "OEM_OPERATION";
    default: return VKNN_EXTENSION_PREFIX(type) != 0 ? "an extension operation" : NULL;
  }
}

const char *vknn_operand_type_name(int32_t type) {
  static const char *const names[] = {
      "FLOAT32", "INT32", "UINT32", "TENSOR_FLOAT32", "TENSOR_INT32", "TENSOR_QUANT8_ASYMM",
      "BOOL", "TENSOR_QUANT16_SYMM", "TENSOR_FLOAT16", "TENSOR_BOOL8", "FLOAT16",
      "TENSOR_QUANT8_SYMM_PER_CHANNEL", "TENSOR_QUANT16_ASYMM", "TENSOR_QUANT8_SYMM",
      "TENSOR_QUANT8_ASYMM_SIGNED", "SUBGRAPH"};
  if (type >= 0 && type < (int32_t)(sizeof(names) / sizeof(names[0]))) return names[type];
  if (type == VKNN_OPERAND_OEM) return "OEM";
  if (type == VKNN_OPERAND_TENSOR_OEM_BYTE) return "TENSOR_OEM_BYTE";
  if (VKNN_EXTENSION_PREFIX(type) != 0) return "an extension type";
  return NULL;
}
