#include "ops/row_reduce.h"

#include <string.h>

#include "model/operand_type.h"

static uint32_t ceil_div(uint32_t a, uint32_t b) { return (a + b - 1) / b; }

uint32_t vknn_power_of_two_at_least(uint32_t v) {
  uint32_t p = 1;
  while (p < v) p <<= 1;
  return p;
}

void vknn_row_plan_shape(uint32_t outer, uint32_t axis, uint32_t inner, vknn_row_plan *out_plan) {
  vknn_row_plan plan = {outer, axis, inner, 1, 0, 0, 1};
  if (axis <= VKNN_ROW_GROUP * VKNN_ROW_LANE_ELEMENTS) {
    /* Short rows share a workgroup: each takes the lanes its elements fill
     * at up to VKNN_ROW_LANE_ELEMENTS each. */
    plan.lanes = vknn_power_of_two_at_least(ceil_div(axis, VKNN_ROW_LANE_ELEMENTS));
    if (plan.lanes > VKNN_ROW_GROUP) plan.lanes = VKNN_ROW_GROUP;
  } else {
    /* At most one chunk per lane, so that one workgroup combines a row's
     * partials; a chunk takes at least a workgroup's share. */
    plan.chunks = ceil_div(axis, VKNN_ROW_GROUP * VKNN_ROW_LANE_ELEMENTS);
    if (plan.chunks > VKNN_ROW_GROUP) plan.chunks = VKNN_ROW_GROUP;
    plan.chunk_len = ceil_div(axis, plan.chunks);
    plan.chunks = ceil_div(axis, plan.chunk_len);
    plan.chunk_lanes = vknn_power_of_two_at_least(plan.chunks);
  }
  *out_plan = plan;
}

bool vknn_row_plan_of(const vknn_graph *graph, const vknn_tensor *t, uint32_t axis,
                      vknn_row_plan *out_plan) {
  uint64_t outer = 1, inner = 1;
  for (uint32_t d = 0; d < axis; ++d) outer *= t->dims[d];
  for (uint32_t d = axis + 1; d < t->rank; ++d) inner *= t->dims[d];
  /* The kernels index elements in 32 bits. */
  if (outer * t->dims[axis] * inner > UINT32_MAX) {
    VKNN_LOG_E(graph->log, "compilation", "a row reduction over %llu elements is too large",
               (unsigned long long)(outer * t->dims[axis] * inner));
    return false;
  }
  vknn_row_plan_shape((uint32_t)outer, t->dims[axis], (uint32_t)inner, out_plan);
  return true;
}

uint32_t vknn_row_partials(vknn_graph *graph, uint64_t count) {
  if (count * 4 > UINT32_MAX) return UINT32_MAX;
  uint32_t words = (uint32_t)(count * 4);
  return vknn_graph_add_temporary(graph, VKNN_OPERAND_TENSOR_INT32, &words, 1);
}

vknn_dispatch *vknn_row_dispatch(const vknn_row_kernel *kernel, uint32_t pass,
                                 uint64_t invocations, uint32_t input, uint32_t output,
                                 uint32_t partials, vknn_dispatch_list *out_list) {
  vknn_dispatch *d = vknn_dispatch_list_add(out_list);
  if (d == NULL) return NULL;
  d->shader = kernel->shader;
  memcpy(d->spec, kernel->spec, sizeof(d->spec));
  d->spec[0] = pass;
  d->spec_count = kernel->spec_count;
  d->local_size = VKNN_ROW_GROUP;
  vknn_dispatch_bind(d, input, VKNN_ACCESS_READ);
  vknn_dispatch_bind(d, output, VKNN_ACCESS_WRITE);
  /* Every pass declares the partials; a pass without them is given the
   * output there, which it never touches. */
  bool own_partials = partials != UINT32_MAX;
  vknn_access partial_access = pass == VKNN_ROW_PASS_PARTIALS ? VKNN_ACCESS_WRITE : VKNN_ACCESS_READ;
  vknn_dispatch_bind(d, own_partials ? partials : output,
                     own_partials ? partial_access : VKNN_ACCESS_WRITE);
  memcpy(d->push, kernel->push, kernel->push_size);
  d->push_size = kernel->push_size;
  d->invocations = invocations;
  return d;
}

vknn_status vknn_row_reduce_lower(vknn_graph *graph, const vknn_row_plan *plan,
                                  const vknn_row_kernel *kernel, uint32_t input, uint32_t output,
                                  vknn_dispatch_list *out_list) {
  uint64_t rows = (uint64_t)plan->outer * plan->inner;
  if (plan->chunks == 0) {
    uint64_t groups = (rows + VKNN_ROW_GROUP / plan->lanes - 1) / (VKNN_ROW_GROUP / plan->lanes);
    return vknn_row_dispatch(kernel, VKNN_ROW_PASS_ROWS, groups * VKNN_ROW_GROUP, input, output,
                             UINT32_MAX, out_list)
               ? VKNN_STATUS_NONE
               : VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  }
  uint64_t groups = rows * plan->chunks;
  uint32_t partials = vknn_row_partials(graph, groups);
  if (partials == UINT32_MAX) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  uint64_t invocations = groups * VKNN_ROW_GROUP;
  if (!vknn_row_dispatch(kernel, VKNN_ROW_PASS_PARTIALS, invocations, input, output, partials,
                         out_list) ||
      !vknn_row_dispatch(kernel, VKNN_ROW_PASS_APPLY, invocations, input, output, partials,
                         out_list))
    return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  return VKNN_STATUS_NONE;
}

