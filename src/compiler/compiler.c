#include "compiler/compiler.h"

#include <stdlib.h>
#include <string.h>

#include "compiler/dynamic_rows.h"
#include "compiler/operation_registry.h"
#include "model/extension.h"
#include "util/fault_injection.h"

static vknn_status infer_operation(vknn_graph *graph, uint32_t k) {
  const vknn_operation *op = &graph->sg->operations[k];
  const vknn_op_def *def = vknn_op_find_in(graph->model, op->type);
  const char *name = vknn_model_operation_name(graph->model, op->type);
  if (def == NULL) {
    VKNN_LOG_E(graph->log, "compilation", "operation %u (%s) is not supported", k, name);
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  if (!vknn_operation_ranks_fit(graph->sg, op)) {
    VKNN_LOG_E(graph->log, "compilation", "operation %u (%s): an operand of rank above %d is not supported",
               k, name, VKNN_MAX_RANK);
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  bool handled = false;
  vknn_status s = vknn_dynamic_rows_infer(graph, op, def, &handled);
  if (handled) return s;
  return def->infer(graph, op);
}

static bool is_resource_exhausted(vknn_status s) {
  return s == VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT ||
         s == VKNN_STATUS_RESOURCE_EXHAUSTED_PERSISTENT;
}

/* An operation deferred for want of run-time shapes counts as supported:
 * an execution compiles it once the shapes are known. inferred[k] (may be
 * NULL) tells the operations whose shapes are all known now. */
static vknn_status infer_all(vknn_graph *graph, bool *supported, bool *inferred) {
  for (uint32_t k = 0; k < graph->sg->operation_count; ++k) {
    uint32_t deferrals = graph->deferrals;
    vknn_status s = infer_operation(graph, k);
    /* Out of memory is not the operation's fault: no answer for it. */
    if (s == VKNN_STATUS_INVALID_ARGUMENT || is_resource_exhausted(s)) return s;
    bool deferred = s != VKNN_STATUS_NONE && graph->deferrals != deferrals;
    if (inferred != NULL) inferred[k] = s == VKNN_STATUS_NONE;
    if (supported != NULL) supported[k] = s == VKNN_STATUS_NONE || deferred;
    else if (s != VKNN_STATUS_NONE && !deferred) return s;
  }
  return VKNN_STATUS_NONE;
}

vknn_status vknn_compile_infer(vknn_graph *graph, bool *supported) {
  return infer_all(graph, supported, NULL);
}

/* Whether the device can dispatch this many workgroups (a 2-D grid of at
 * most maxComputeWorkGroupCount[0] x [1]); logged when not. */
static bool grid_fits(const vknn_graph *graph, const vknn_dispatch *d,
                      const vknn_plan_target *target) {
  uint64_t groups = d->local_size ? (d->invocations + d->local_size - 1) / d->local_size : 0;
  if (target->max_workgroups == 0 || groups <= target->max_workgroups) return true;
  VKNN_LOG_E(graph->log, "compilation", "a dispatch of %llu workgroups exceeds the device's %llu",
             (unsigned long long)groups, (unsigned long long)target->max_workgroups);
  return false;
}

/* A grid the device cannot dispatch never runs: as an unsupported
 * operation. (Bindings are the planner's check.) */
static vknn_status check_grids(const vknn_graph *graph, const vknn_dispatch_list *list,
                               const vknn_plan_target *target) {
  for (uint32_t i = 0; i < list->count; ++i)
    if (!grid_fits(graph, &list->items[i], target)) return VKNN_STATUS_GENERAL_FAILURE;
  return VKNN_STATUS_NONE;
}

/* The device's limits on a list of dispatches: every bound tensor fits a
 * binding, every grid the device's. */
static bool dispatches_fit(const vknn_graph *graph, const vknn_dispatch_list *list,
                           const vknn_plan_target *target) {
  for (uint32_t i = 0; i < list->count; ++i) {
    const vknn_dispatch *d = &list->items[i];
    if (!grid_fits(graph, d, target)) return false;
    for (uint32_t b = 0; b < d->binding_count; ++b)
      if (!vknn_plan_binding_fits(graph, d->bindings[b].tensor, target)) return false;
  }
  return true;
}

/* Operation k lowered alone, as prepare lowers it: unsupported when
 * lowering refuses it or a dispatch exceeds the device's limits. */
static vknn_status query_lowering(vknn_graph *graph, uint32_t k, const vknn_plan_target *target,
                                  bool *supported) {
  const vknn_operation *op = &graph->sg->operations[k];
  vknn_dispatch_list list = {0};
  vknn_status s = vknn_op_find_in(graph->model, op->type)->lower(graph, op, &list);
  if (s == VKNN_STATUS_NONE) *supported = dispatches_fit(graph, &list, target);
  else if (!is_resource_exhausted(s)) *supported = false;
  vknn_dispatch_list_release(&list);
  return is_resource_exhausted(s) ? s : VKNN_STATUS_NONE;
}

vknn_status vknn_compile_query(const vknn_logger *log, const vknn_model *model,
                               const vknn_plan_target *target, bool *supported) {
  uint32_t n = model->main.operation_count;
  bool *inferred = vknn_calloc(n ? n : 1, sizeof(bool));
  vknn_graph graph;
  vknn_status s = inferred != NULL ? vknn_graph_init(&graph, log, model, NULL)
                                   : VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  if (s == VKNN_STATUS_NONE) graph.kernels = graph.device_kernels = target->kernels;
  if (s == VKNN_STATUS_NONE) s = infer_all(&graph, supported, inferred);
  for (uint32_t k = 0; k < n && s == VKNN_STATUS_NONE; ++k)
    if (inferred[k]) s = query_lowering(&graph, k, target, &supported[k]);
  if (inferred != NULL) vknn_graph_release(&graph);
  free(inferred);
  return s;
}

static bool outputs_known(const vknn_graph *graph) {
  for (uint32_t i = 0; i < graph->sg->output_count; ++i)
    if (!graph->tensors[graph->sg->output_indexes[i]].shape_known) return false;
  return true;
}

/* A producer writing its slice of a CONCATENATION's output writes only
 * that slice of it. */
static void mark_disjoint_writes(vknn_dispatch *d, uint32_t tensor) {
  for (uint32_t b = 0; b < d->binding_count; ++b)
    if (d->bindings[b].tensor == tensor && (d->bindings[b].access & VKNN_ACCESS_WRITE))
      d->bindings[b].access |= VKNN_ACCESS_DISJOINT;
}

static vknn_status lower_all(vknn_plan *plan) {
  vknn_graph *graph = &plan->graph;
  for (uint32_t k = 0; k < graph->sg->operation_count; ++k) {
    const vknn_operation *op = &graph->sg->operations[k];
    if (graph->fusion[k].fused_away) continue;
    uint32_t first = plan->dispatches.count;
    vknn_graph_use_kernels_of(graph, k);
    vknn_status s = vknn_op_find_in(graph->model, op->type)->lower(graph, op, &plan->dispatches);
    vknn_graph_use_kernels_of(graph, UINT32_MAX);
    if (s != VKNN_STATUS_NONE) return s;
    for (uint32_t d = first; d < plan->dispatches.count; ++d) {
      plan->dispatches.items[d].operation = k;
      plan->dispatches.items[d].operation_type = op->type;
      if (graph->fusion[k].out_slice.row != 0)
        mark_disjoint_writes(&plan->dispatches.items[d], graph->fusion[k].output_override);
    }
  }
  return VKNN_STATUS_NONE;
}

/* Shapes left open: a prepare keeps the graph to copy the model; a
 * specialization should have known them all. */
static vknn_status defer_or_fail(vknn_plan *plan, const vknn_input_override *overrides) {
  if (overrides == NULL) {
    plan->deferred = true;
    return VKNN_STATUS_NONE;
  }
  VKNN_LOG_E(plan->graph.log, "execution", "shapes stay unknown with the request's inputs");
  return VKNN_STATUS_GENERAL_FAILURE;
}

/* The operations' rules again where the request omits model inputs: the
 * model's validation took them as given. An operation that requires one is
 * INVALID_ARGUMENT (an omitted tensor would otherwise reach the recording
 * with no memory of its own). */
static vknn_status check_omitted_inputs(const vknn_logger *log, const vknn_model *model,
                                        const vknn_input_override *overrides) {
  const vknn_subgraph *sg = &model->main;
  bool any = false;
  for (uint32_t i = 0; i < sg->input_count; ++i) any = any || overrides[i].omitted;
  if (!any) return VKNN_STATUS_NONE;
  vknn_operand *operands = vknn_malloc(sg->operand_count * sizeof(vknn_operand));
  if (operands == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  memcpy(operands, sg->operands, sg->operand_count * sizeof(vknn_operand));
  for (uint32_t i = 0; i < sg->input_count; ++i)
    if (overrides[i].omitted) operands[sg->input_indexes[i]].lifetime = VKNN_LIFETIME_NO_VALUE;
  vknn_subgraph omitted = *sg;
  omitted.operands = operands;
  vknn_status s = vknn_compiler_validate_signatures(log, model, &omitted);
  free(operands);
  return s;
}

vknn_status vknn_compile(const vknn_logger *log, const vknn_model *model,
                         const vknn_input_override *overrides, const vknn_plan_target *target,
                         vknn_plan *out_plan) {
  memset(out_plan, 0, sizeof(*out_plan));
  vknn_status s = overrides != NULL ? check_omitted_inputs(log, model, overrides) : VKNN_STATUS_NONE;
  if (s == VKNN_STATUS_NONE) s = vknn_graph_init(&out_plan->graph, log, model, overrides);
  if (s == VKNN_STATUS_NONE) {
    out_plan->graph.kernels = out_plan->graph.device_kernels = target->kernels;
    out_plan->graph.op_kernels = target->op_kernels;
    out_plan->graph.op_sources = target->op_sources;
  }
  if (s == VKNN_STATUS_NONE) s = vknn_compile_infer(&out_plan->graph, NULL);
  if (s == VKNN_STATUS_NONE && (out_plan->graph.deferrals > 0 || !outputs_known(&out_plan->graph))) {
    s = defer_or_fail(out_plan, overrides);
    if (s == VKNN_STATUS_NONE) return s;
  }
  if (s == VKNN_STATUS_NONE) vknn_fuse_activations(&out_plan->graph);
  if (s == VKNN_STATUS_NONE) vknn_fuse_elementwise_chains(&out_plan->graph);
  if (s == VKNN_STATUS_NONE) vknn_fuse_pads(&out_plan->graph);
  if (s == VKNN_STATUS_NONE) vknn_fuse_concat_slices(&out_plan->graph);
  if (s == VKNN_STATUS_NONE) vknn_fuse_residual_adds(&out_plan->graph);
  if (s == VKNN_STATUS_NONE) s = lower_all(out_plan);
  if (s == VKNN_STATUS_NONE) s = vknn_pack_arena_tensors(out_plan);
  if (s == VKNN_STATUS_NONE) s = check_grids(&out_plan->graph, &out_plan->dispatches, target);
  if (s == VKNN_STATUS_NONE) s = vknn_plan_memory(out_plan, target);
  if (s != VKNN_STATUS_NONE) vknn_plan_release(out_plan);
  return s;
}

void vknn_plan_release(vknn_plan *plan) {
  vknn_graph_release(&plan->graph);
  vknn_dispatch_list_release(&plan->dispatches);
}
