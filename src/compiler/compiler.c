#include "compiler/compiler.h"

#include <string.h>

#include "compiler/operation_registry.h"

static vknn_status infer_operation(vknn_graph *graph, uint32_t k) {
  const vknn_operation *op = &graph->sg->operations[k];
  const vknn_op_def *def = vknn_op_find(op->type);
  if (def == NULL) {
    const char *name = vknn_operation_type_name(op->type);
    VKNN_LOG_E(graph->log, "compilation", "operation %u (%s) is not supported", k,
               name ? name : "extension");
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  return def->infer(graph, op);
}

/* An operation deferred for want of run-time shapes counts as supported:
 * an execution compiles it once the shapes are known. */
vknn_status vknn_compile_infer(vknn_graph *graph, bool *supported) {
  for (uint32_t k = 0; k < graph->sg->operation_count; ++k) {
    uint32_t deferrals = graph->deferrals;
    vknn_status s = infer_operation(graph, k);
    if (s == VKNN_STATUS_INVALID_ARGUMENT) return s;
    bool deferred = s != VKNN_STATUS_NONE && graph->deferrals != deferrals;
    if (supported != NULL) supported[k] = s == VKNN_STATUS_NONE || deferred;
    else if (s != VKNN_STATUS_NONE && !deferred) return s;
  }
  return VKNN_STATUS_NONE;
}

static bool outputs_known(const vknn_graph *graph) {
  for (uint32_t i = 0; i < graph->sg->output_count; ++i)
    if (!graph->tensors[graph->sg->output_indexes[i]].shape_known) return false;
  return true;
}

static vknn_status lower_all(vknn_plan *plan) {
  vknn_graph *graph = &plan->graph;
  for (uint32_t k = 0; k < graph->sg->operation_count; ++k) {
    const vknn_operation *op = &graph->sg->operations[k];
    if (graph->fusion[k].fused_away) continue;
    vknn_status s = vknn_op_find(op->type)->lower(graph, op, &plan->dispatches);
    if (s != VKNN_STATUS_NONE) return s;
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

vknn_status vknn_compile(const vknn_logger *log, const vknn_model *model,
                         const vknn_input_override *overrides, const vknn_plan_target *target,
                         vknn_plan *out_plan) {
  memset(out_plan, 0, sizeof(*out_plan));
  vknn_status s = vknn_graph_init(&out_plan->graph, log, model, overrides);
  if (s == VKNN_STATUS_NONE) s = vknn_compile_infer(&out_plan->graph, NULL);
  if (s == VKNN_STATUS_NONE && (out_plan->graph.deferrals > 0 || !outputs_known(&out_plan->graph))) {
    s = defer_or_fail(out_plan, overrides);
    if (s == VKNN_STATUS_NONE) return s;
  }
  if (s == VKNN_STATUS_NONE) vknn_fuse_activations(&out_plan->graph);
  if (s == VKNN_STATUS_NONE) vknn_fuse_elementwise_chains(&out_plan->graph);
  if (s == VKNN_STATUS_NONE) s = lower_all(out_plan);
  if (s == VKNN_STATUS_NONE) s = vknn_plan_memory(out_plan, target);
  if (s != VKNN_STATUS_NONE) vknn_plan_release(out_plan);
  return s;
}

void vknn_plan_release(vknn_plan *plan) {
  vknn_graph_release(&plan->graph);
  vknn_dispatch_list_release(&plan->dispatches);
}
