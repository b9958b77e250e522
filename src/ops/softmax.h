/* SOFTMAX's kernels for operations built of them (ATTENTION), from softmax.c. */
#pragma once
#include "ops/op_common.h"

/* Appends softmax (beta 1) along the last axis of a float tensor of known
 * shape, input into output (same shape and type). */
vknn_status vknn_lower_softmax_last_axis(vknn_graph *graph, uint32_t input, uint32_t output,
                                         vknn_dispatch_list *out_list);
