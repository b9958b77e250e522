/* The packed arena layout (docs/architecture.md, "Packed arena layout"): a
 * temporary of rank 4 whose channels are a multiple of 4 is stored as
 * planes of 4 channels, [batch][channel / 4][row][column][4], where every
 * dispatch that binds it can read or write it so (vknn_binding's
 * packed_spec). Nothing converts between layouts: a tensor that any of its
 * kernels needs in NHWC stays NHWC, and so do model inputs, outputs and
 * constants. The bytes are as many either way, so memory planning is the
 * same. */
#include <stdlib.h>

#include "compiler/compiler.h"
#include "util/fault_injection.h"

#define TAG "compilation"

/* A tensor the layout may apply to: a temporary with bytes of its own
 * (no view of another, none viewed as another shape), rank 4, whole groups
 * of 4 channels, rows the shapes decide. */
static bool eligible(const vknn_tensor *t) {
  return t->lifetime == VKNN_LIFETIME_TEMPORARY_VARIABLE && t->rank == 4 && t->dims[3] % 4 == 0 &&
         t->alias_of == UINT32_MAX && t->count_slot == 0;
}

/* Whether operation k's kernel target lets its kernels take the packed
 * layout: the device's option, or kernel tuning's choice for the model. */
static bool op_packs(const vknn_graph *graph, uint32_t k) {
  return graph->op_kernels != NULL ? graph->op_kernels[k].packed_layout : graph->device_kernels.packed_layout;
}

/* Clears packed[] for every tensor that a binding cannot take packed, and
 * for the tensors sharing a bit of one dispatch with such a tensor; false
 * when nothing changed. */
static bool drop_unpackable(const vknn_graph *graph, const vknn_dispatch *d, bool *packed) {
  bool kernel_packs = op_packs(graph, d->operation);
  bool changed = false;
  for (uint32_t b = 0; b < d->binding_count; ++b) {
    const vknn_binding *x = &d->bindings[b];
    if (!packed[x->tensor]) {
      /* A tensor left NHWC keeps the others under its bit NHWC too. */
      for (uint32_t o = 0; x->packed_spec != 0 && o < d->binding_count; ++o) {
        const vknn_binding *y = &d->bindings[o];
        if (y->packed_spec == x->packed_spec && y->packed_bit == x->packed_bit && packed[y->tensor]) {
          packed[y->tensor] = false;
          changed = true;
        }
      }
    } else if (x->packed_spec == 0 || !kernel_packs) {
      packed[x->tensor] = false;
      changed = true;
    }
  }
  return changed;
}

/* Sets the bits of the dispatches' PACKED_LAYOUT constants for the tensors kept. */
static void set_packed_bits(vknn_dispatch_list *list, const bool *packed) {
  for (uint32_t i = 0; i < list->count; ++i) {
    vknn_dispatch *d = &list->items[i];
    for (uint32_t b = 0; b < d->binding_count; ++b) {
      const vknn_binding *x = &d->bindings[b];
      if (x->packed_spec != 0 && packed[x->tensor]) d->spec[x->packed_spec - 1] |= 1u << x->packed_bit;
    }
  }
}

vknn_status vknn_pack_arena_tensors(vknn_plan *plan) {
  vknn_graph *graph = &plan->graph;
  bool any = false;
  for (uint32_t k = 0; k < graph->sg->operation_count; ++k) any |= op_packs(graph, k);
  if (!any) return VKNN_STATUS_NONE;
  bool *packed = vknn_calloc(graph->tensor_count ? graph->tensor_count : 1, sizeof(bool));
  if (packed == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  /* Only tensors some dispatch binds. */
  for (uint32_t i = 0; i < plan->dispatches.count; ++i) {
    const vknn_dispatch *d = &plan->dispatches.items[i];
    for (uint32_t b = 0; b < d->binding_count; ++b) packed[d->bindings[b].tensor] = true;
  }
  for (uint32_t t = 0; t < graph->tensor_count; ++t) packed[t] = packed[t] && eligible(&graph->tensors[t]);
  /* A view's source is read in the view's shape, NHWC. */
  for (uint32_t t = 0; t < graph->tensor_count; ++t)
    if (graph->tensors[t].alias_of != UINT32_MAX) packed[graph->tensors[t].alias_of] = false;
  /* Each pass may leave NHWC a tensor that shares a bit with one left NHWC
   * the pass before; repeat until none changes. */
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t i = 0; i < plan->dispatches.count; ++i)
      changed |= drop_unpackable(graph, &plan->dispatches.items[i], packed);
  }
  set_packed_bits(&plan->dispatches, packed);
  uint32_t count = 0;
  for (uint32_t t = 0; t < graph->tensor_count; ++t) count += packed[t];
  if (count > 0) VKNN_LOG_V(graph->log, TAG, "%u tensors in the packed layout", count);
  plan->packed_tensors = count;
  free(packed);
  return VKNN_STATUS_NONE;
}
