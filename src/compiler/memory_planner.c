/* Memory planning: where every tensor a dispatch binds lives.
 *
 * Model inputs and outputs get their own slots in the request staging
 * regions; constants are packed once into the constant region, or read in
 * place from their imported model pool; temporaries share one arena, placed
 * greedily (largest first) at the lowest offset that does not overlap a
 * tensor alive during an overlapping dispatch interval. A view (alias_of)
 * lies where its source does, and keeps the source alive while it is used. */
#include <stdlib.h>

#include "compiler/compiler.h"
#include "util/fault_injection.h"

static uint64_t align_up(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

static void mark_use(vknn_tensor *t, int32_t d) {
  if (t->first_dispatch < 0) t->first_dispatch = d;
  t->last_dispatch = d;
}

static void mark_lifetimes(vknn_plan *plan) {
  vknn_tensor *tensors = plan->graph.tensors;
  for (uint32_t d = 0; d < plan->dispatches.count; ++d) {
    const vknn_dispatch *dispatch = &plan->dispatches.items[d];
    for (uint32_t b = 0; b < dispatch->binding_count; ++b) {
      vknn_tensor *t = &tensors[dispatch->bindings[b].tensor];
      mark_use(t, (int32_t)d);
      if (t->alias_of != UINT32_MAX) mark_use(&tensors[t->alias_of], (int32_t)d);
    }
  }
}

static void place_views(vknn_graph *g) {
  for (uint32_t i = 0; i < g->tensor_count; ++i) {
    vknn_tensor *view = &g->tensors[i];
    if (view->alias_of == UINT32_MAX || view->first_dispatch < 0) continue;
    const vknn_tensor *source = &g->tensors[view->alias_of];
    view->region = source->region;
    view->pool_index = source->pool_index;
    view->io_index = source->io_index;
    view->offset = source->offset;
    view->byte_size = source->byte_size;
  }
}

static vknn_region region_of(const vknn_tensor *t) {
  switch (t->lifetime) {
    case VKNN_LIFETIME_SUBGRAPH_INPUT: return VKNN_REGION_INPUT;
    case VKNN_LIFETIME_SUBGRAPH_OUTPUT: return VKNN_REGION_OUTPUT;
    case VKNN_LIFETIME_CONSTANT_COPY:
    case VKNN_LIFETIME_CONSTANT_REFERENCE: return VKNN_REGION_CONSTANT;
    case VKNN_LIFETIME_TEMPORARY_VARIABLE: return VKNN_REGION_ARENA;
    default: return VKNN_REGION_NONE;
  }
}

static bool intervals_overlap(const vknn_tensor *a, const vknn_tensor *b) {
  return a->first_dispatch <= b->last_dispatch && b->first_dispatch <= a->last_dispatch;
}

/* Lowest aligned offset where t fits beside the already placed tensors it
 * overlaps in time. */
static uint64_t arena_offset(const vknn_plan *plan, const uint32_t *placed, uint32_t placed_count,
                             const vknn_tensor *t, uint64_t alignment) {
  uint64_t offset = 0;
  bool moved = true;
  while (moved) {
    moved = false;
    for (uint32_t i = 0; i < placed_count; ++i) {
      const vknn_tensor *p = &plan->graph.tensors[placed[i]];
      if (!intervals_overlap(p, t)) continue;
      if (offset < p->offset + p->byte_size && p->offset < offset + t->byte_size) {
        offset = align_up(p->offset + p->byte_size, alignment);
        moved = true;
      }
    }
  }
  return offset;
}

static int compare_size_desc(const void *a, const void *b, void *tensors) {
  const vknn_tensor *t = tensors;
  uint64_t sa = t[*(const uint32_t *)a].byte_size, sb = t[*(const uint32_t *)b].byte_size;
  return sa < sb ? 1 : sa > sb ? -1 : 0;
}

static vknn_status place_arena(vknn_plan *plan, uint64_t alignment) {
  vknn_graph *g = &plan->graph;
  uint32_t *order = vknn_malloc((g->tensor_count + 1) * sizeof(uint32_t));
  if (order == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  uint32_t n = 0;
  for (uint32_t i = 0; i < g->tensor_count; ++i)
    if (g->tensors[i].region == VKNN_REGION_ARENA) order[n++] = i;
  qsort_r(order, n, sizeof(uint32_t), compare_size_desc, g->tensors);
  for (uint32_t i = 0; i < n; ++i) {
    vknn_tensor *t = &g->tensors[order[i]];
    t->offset = arena_offset(plan, order, i, t, alignment);
    uint64_t end = align_up(t->offset + t->byte_size, alignment);
    if (end > plan->region_size[VKNN_REGION_ARENA]) plan->region_size[VKNN_REGION_ARENA] = end;
  }
  free(order);
  return VKNN_STATUS_NONE;
}

/* A constant in a model pool is read where it lies when the pool can be
 * imported and its offset in the mapping meets the binding alignment. */
static bool place_in_pool(const vknn_graph *g, uint32_t operand, const vknn_plan_target *target,
                          vknn_tensor *t) {
  if (!target->import_pools || t->lifetime != VKNN_LIFETIME_CONSTANT_REFERENCE ||
      operand >= g->sg->operand_count)
    return false;
  const vknn_data_location *loc = &g->sg->operands[operand].location;
  const vknn_mapped_pool *pool = &g->pools[loc->pool_index];
  uint64_t offset = (uint64_t)(pool->data - (uint8_t *)pool->mapping) + loc->offset;
  if (offset % target->alignment != 0) return false;
  t->region = VKNN_REGION_POOL;
  t->pool_index = loc->pool_index;
  t->offset = offset;
  return true;
}

uint64_t vknn_plan_binding_bytes(const vknn_tensor *t) {
  uint64_t bytes = align_up(vknn_tensor_byte_size(t), 4);
  return bytes == 0 ? 4 : bytes;
}

/* A kernel binds each tensor whole: one larger than a binding may span can
 * never run on this device. */
bool vknn_plan_binding_fits(const vknn_graph *g, uint32_t index, const vknn_plan_target *target) {
  uint64_t bytes = vknn_plan_binding_bytes(&g->tensors[index]);
  if (target->max_binding_bytes == 0 || bytes <= target->max_binding_bytes) return true;
  VKNN_LOG_E(g->log, "compilation",
             "tensor %u of %llu bytes exceeds the device's largest storage-buffer binding (%llu)",
             index, (unsigned long long)bytes, (unsigned long long)target->max_binding_bytes);
  return false;
}

vknn_status vknn_plan_memory(vknn_plan *plan, const vknn_plan_target *target) {
  uint64_t alignment = target->alignment;
  vknn_graph *g = &plan->graph;
  mark_lifetimes(plan);
  for (uint32_t i = 0; i < g->tensor_count; ++i) {
    vknn_tensor *t = &g->tensors[i];
    /* Inputs and outputs always get a slot: the request copies through it. */
    bool io = t->lifetime == VKNN_LIFETIME_SUBGRAPH_INPUT ||
              t->lifetime == VKNN_LIFETIME_SUBGRAPH_OUTPUT;
    if ((t->first_dispatch < 0 && !io) || t->alias_of != UINT32_MAX) continue;
    t->region = region_of(t);
    t->byte_size = vknn_plan_binding_bytes(t);
    if (t->first_dispatch >= 0 && !vknn_plan_binding_fits(g, i, target))
      return VKNN_STATUS_RESOURCE_EXHAUSTED_PERSISTENT;
    if (t->region == VKNN_REGION_ARENA || t->region == VKNN_REGION_NONE ||
        place_in_pool(g, i, target, t))
      continue;
    t->offset = plan->region_size[t->region];
    plan->region_size[t->region] = align_up(t->offset + t->byte_size, alignment);
  }
  vknn_status s = place_arena(plan, alignment);
  if (s == VKNN_STATUS_NONE) place_views(g);
  return s;
}
