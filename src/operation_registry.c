#include "operation_registry.h"

#include <stddef.h>

static const vknn_op_def *const implemented[] = {
    &vknn_op_add,
    &vknn_op_sub,
    &vknn_op_mul,
    &vknn_op_div,
    &vknn_op_conv_2d,
    &vknn_op_depthwise_conv_2d,
    &vknn_op_fully_connected,
    &vknn_op_average_pool_2d,
    &vknn_op_max_pool_2d,
    &vknn_op_l2_pool_2d,
    &vknn_op_softmax,
    &vknn_op_relu,
    &vknn_op_relu1,
    &vknn_op_relu6,
    &vknn_op_logistic,
    &vknn_op_tanh,
    &vknn_op_concatenation,
    &vknn_op_reshape,
};

const vknn_op_def *vknn_op_find(int32_t type) {
  for (size_t i = 0; i < sizeof(implemented) / sizeof(implemented[0]); ++i)
    if (implemented[i]->type == type) return implemented[i];
  return NULL;
}
