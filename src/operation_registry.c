#include "operation_registry.h"

#include <stddef.h>

static const vknn_op_def *const implemented[] = {
    &vknn_op_add,
    &vknn_op_sub,
    &vknn_op_mul,
    &vknn_op_div,
    &vknn_op_maximum,
    &vknn_op_minimum,
    &vknn_op_pow,
    &vknn_op_prelu,
    &vknn_op_equal,
    &vknn_op_not_equal,
    &vknn_op_less,
    &vknn_op_less_equal,
    &vknn_op_greater,
    &vknn_op_greater_equal,
    &vknn_op_logical_and,
    &vknn_op_logical_or,
    &vknn_op_logical_not,
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
    &vknn_op_squeeze,
    &vknn_op_expand_dims,
    &vknn_op_transpose,
    &vknn_op_slice,
    &vknn_op_strided_slice,
    &vknn_op_pad,
    &vknn_op_pad_v2,
    &vknn_op_tile,
    &vknn_op_split,
    &vknn_op_depth_to_space,
    &vknn_op_space_to_depth,
    &vknn_op_batch_to_space_nd,
    &vknn_op_space_to_batch_nd,
    &vknn_op_channel_shuffle,
    &vknn_op_cast,
    &vknn_op_quantize,
    &vknn_op_dequantize,
};

const vknn_op_def *vknn_op_find(int32_t type) {
  for (size_t i = 0; i < sizeof(implemented) / sizeof(implemented[0]); ++i)
    if (implemented[i]->type == type) return implemented[i];
  return NULL;
}
