/* A constant filter repacked for conv2d_gemm's shared filter loads
 * (PACKED_FILTER): the layout moves bytes only, every value stays as the
 * model gave it. */
#include <string.h>

#include "model/operand_type.h"
#include "ops/conv2d.h"
#include "util/fault_injection.h"

vknn_status vknn_conv_pack_filter_by_8(vknn_graph *graph, uint32_t filter, uint32_t out_c,
                                       uint32_t tap_size, uint32_t unit, uint32_t *out_tensor) {
  const vknn_tensor *f = &graph->tensors[filter];
  uint32_t elem = vknn_operand_type_element_size(f->type);
  uint64_t rows = ((uint64_t)out_c + 7) / 8 * 8;
  if (f->constant_data == NULL || elem == 0 || unit == 0 || tap_size % unit != 0 ||
      vknn_shape_element_count(f->dims, f->rank) < (uint64_t)out_c * tap_size ||
      rows * tap_size > UINT32_MAX) {
    VKNN_LOG_E(graph->log, "compilation", "tensor %u is no constant filter of %u rows of %u elements",
               filter, out_c, tap_size);
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  /* Rows past out_c (up to the next multiple of 8) stay zero: the kernel
   * never reads them (it clamps channels to the last one). */
  uint8_t *packed = vknn_calloc(rows * tap_size, elem);
  if (packed == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  uint32_t units = tap_size / unit;
  size_t unit_bytes = (size_t)unit * elem;
  for (uint32_t oc = 0; oc < out_c; ++oc) {
    for (uint32_t u = 0; u < units; ++u) {
      size_t to = (((size_t)(oc / 8) * units + u) * 8 + oc % 8) * unit_bytes;
      size_t from = ((size_t)oc * units + u) * unit_bytes;
      memcpy(packed + to, f->constant_data + from, unit_bytes);
    }
  }
  uint32_t dims[1] = {(uint32_t)(rows * tap_size)};
  int32_t type = f->type;
  float scale = f->scale;
  int32_t zero_point = f->zero_point;
  uint32_t index = vknn_graph_add_constant(graph, type, dims, 1, packed);
  if (index == UINT32_MAX) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  graph->tensors[index].scale = scale;
  graph->tensors[index].zero_point = zero_point;
  *out_tensor = index;
  return VKNN_STATUS_NONE;
}
