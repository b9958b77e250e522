/* The operations the driver implements. Each lives in src/ops/<family>.c and
 * provides its signature validation, shape inference and lowering. */
#pragma once
#include "dispatch.h"
#include "graph.h"

typedef struct vknn_op_def {
  int32_t type;
  /* Clamps its output by a fused activation: a following RELU/RELU1/RELU6
   * may be fused into it (fusion.c); its lowering then uses
   * vknn_op_activation_bounds and vknn_graph_op_output. */
  bool applies_activation;
  /* The HAL signature rules: operand counts, types, ranks where known,
   * constant parameter values. INVALID_ARGUMENT (logged) when broken. */
  vknn_status (*validate)(const vknn_logger *log, const vknn_model *model,
                          const vknn_subgraph *sg, const vknn_operation *op);
  /* Infers output shapes from input shapes, and checks that the GPU path
   * handles these exact types and parameters: GENERAL_FAILURE (logged) when
   * it does not, INVALID_ARGUMENT for incompatible shapes. */
  vknn_status (*infer)(vknn_graph *graph, const vknn_operation *op);
  /* Appends the operation's dispatches. Runs after infer succeeded. */
  vknn_status (*lower)(vknn_graph *graph, const vknn_operation *op, vknn_dispatch_list *out);
} vknn_op_def;

/* The implementation of an operation type; NULL when the driver has none. */
const vknn_op_def *vknn_op_find(int32_t type);

/* Families (src/ops/). */
extern const vknn_op_def vknn_op_add, vknn_op_sub, vknn_op_mul, vknn_op_div, vknn_op_maximum,
    vknn_op_minimum, vknn_op_pow, vknn_op_prelu, vknn_op_equal, vknn_op_not_equal, vknn_op_less,
    vknn_op_less_equal, vknn_op_greater, vknn_op_greater_equal, vknn_op_logical_and,
    vknn_op_logical_or, vknn_op_logical_not;                                   /* binary.c */
extern const vknn_op_def vknn_op_conv_2d, vknn_op_depthwise_conv_2d;           /* conv2d.c */
extern const vknn_op_def vknn_op_fully_connected;                              /* fully_connected.c */
extern const vknn_op_def vknn_op_average_pool_2d, vknn_op_max_pool_2d, vknn_op_l2_pool_2d; /* pool2d.c */
extern const vknn_op_def vknn_op_softmax;                                      /* softmax.c */
extern const vknn_op_def vknn_op_relu, vknn_op_relu1, vknn_op_relu6, vknn_op_logistic,
    vknn_op_tanh, vknn_op_abs, vknn_op_exp, vknn_op_log, vknn_op_sin, vknn_op_sqrt, vknn_op_rsqrt,
    vknn_op_neg, vknn_op_floor, vknn_op_elu, vknn_op_hard_swish;               /* activation.c */
extern const vknn_op_def vknn_op_concatenation;                                /* concatenation.c */
extern const vknn_op_def vknn_op_reshape, vknn_op_squeeze, vknn_op_expand_dims; /* reshape.c */
extern const vknn_op_def vknn_op_transpose;                                    /* transpose.c */
extern const vknn_op_def vknn_op_slice, vknn_op_strided_slice;                 /* slice.c */
extern const vknn_op_def vknn_op_pad, vknn_op_pad_v2;                          /* pad.c */
extern const vknn_op_def vknn_op_tile;                                         /* tile.c */
extern const vknn_op_def vknn_op_split;                                        /* split.c */
extern const vknn_op_def vknn_op_depth_to_space, vknn_op_space_to_depth;      /* space_depth.c */
extern const vknn_op_def vknn_op_batch_to_space_nd, vknn_op_space_to_batch_nd; /* batch_space.c */
extern const vknn_op_def vknn_op_channel_shuffle;                              /* channel_shuffle.c */
extern const vknn_op_def vknn_op_cast, vknn_op_quantize, vknn_op_dequantize;   /* convert.c */
extern const vknn_op_def vknn_op_gather;                                       /* gather.c */
extern const vknn_op_def vknn_op_select;                                       /* select.c */
extern const vknn_op_def vknn_op_fill, vknn_op_rank;                           /* fill.c */
