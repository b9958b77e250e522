#include "ops/slice_copy.h"

#include <string.h>

#include "model/operand_type.h"

/* Push constants of concat.comp, std430 layout. */
typedef struct slice_params {
  uint32_t outer, in_axis, inner, out_axis, axis_offset;
  uint32_t requantize;
  float scale_ratio;
  int32_t in_zero_point, out_zero_point;
  float q_min, q_max;
} slice_params;
VKNN_PUSH_LAYOUT(concat, slice_params);

static vknn_shader_id shader_for(int32_t type) {
  switch (type) {
    case VKNN_OPERAND_TENSOR_QUANT8_ASYMM:
    case VKNN_OPERAND_TENSOR_BOOL8: return VKNN_SHADER_CONCAT_Q8;
    case VKNN_OPERAND_TENSOR_QUANT8_ASYMM_SIGNED:
    case VKNN_OPERAND_TENSOR_QUANT8_SYMM: return VKNN_SHADER_CONCAT_Q8S;
    default:
      return vknn_operand_type_element_size(type) == 2 ? VKNN_SHADER_CONCAT_RAW16
                                                       : VKNN_SHADER_CONCAT_RAW32;
  }
}

vknn_status vknn_lower_slice_copy(vknn_graph *graph, uint32_t src, uint32_t dst,
                                  const vknn_slice *slice, vknn_dispatch_list *out_list) {
  const vknn_tensor *in = &graph->tensors[src];
  const vknn_tensor *out = &graph->tensors[dst];
  if (slice->outer * slice->out_axis * slice->inner > UINT32_MAX) return VKNN_STATUS_GENERAL_FAILURE;
  bool requantize = vknn_is_quant8(in->type) &&
                    (in->scale != out->scale || in->zero_point != out->zero_point);
  slice_params p = {(uint32_t)slice->outer, (uint32_t)slice->in_axis, (uint32_t)slice->inner,
                    (uint32_t)slice->out_axis, (uint32_t)slice->axis_offset, requantize,
                    requantize ? in->scale / out->scale : 1.f, in->zero_point, out->zero_point,
                    (float)vknn_quant_min(out->type), (float)vknn_quant_max(out->type)};
  vknn_dispatch *d = vknn_dispatch_list_add(out_list);
  if (d == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  d->shader = shader_for(in->type);
  vknn_dispatch_bind(d, src, VKNN_ACCESS_READ);
  /* Each dispatch writes its own slice; READ marks that other slices of the
   * output are written by other dispatches and must not be reordered. */
  vknn_dispatch_bind(d, dst, VKNN_ACCESS_READ | VKNN_ACCESS_WRITE);
  memcpy(d->push, &p, sizeof(p));
  d->push_size = sizeof(p);
  d->invocations = slice->outer * slice->in_axis * slice->inner;
  return VKNN_STATUS_NONE;
}
