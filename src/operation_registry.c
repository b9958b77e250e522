#include "operation_registry.h"

#include <stddef.h>

static const vknn_op_def *const implemented[] = {
    &vknn_op_add,
    &vknn_op_sub,
    &vknn_op_mul,
    &vknn_op_div,
};

const vknn_op_def *vknn_op_find(int32_t type) {
  for (size_t i = 0; i < sizeof(implemented) / sizeof(implemented[0]); ++i)
    if (implemented[i]->type == type) return implemented[i];
  return NULL;
}
