/* Copying a tensor into a slice of another along an axis, requantizing when
 * the encodings differ (kernel: shaders/concat.comp). Used by CONCATENATION
 * and RESHAPE. */
#pragma once
#include "ops/op_common.h"

typedef struct vknn_slice {
  uint64_t outer, in_axis, inner, out_axis, axis_offset;
} vknn_slice;

vknn_status vknn_lower_slice_copy(vknn_graph *graph, uint32_t src, uint32_t dst,
                                  const vknn_slice *slice, vknn_dispatch_list *out_list);
