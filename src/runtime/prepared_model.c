/* The prepared model object: made from a compiled plan (api/prepare.c).
 * When every shape is known the plan is recorded once (recorded_graph.c) and
 * executions only submit it; when shapes depend on an execution's inputs the
 * prepared model keeps its own copy of the model and records per distinct
 * input shapes (specialization.c). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/compiler.h"
#include "compiler/operation_registry.h"
#include "runtime/control_flow.h"
#include "runtime/prepared_model_internal.h"
#include "runtime/recorded_graph_pool.h"
#include "model/extension.h"
#include "vknn/prepared_model.h"
#include "util/fault_injection.h"

/* Types are the driver's (extension types decoded: model/extension.h). */
static vknn_status describe_io(vknn_io_decl **out, uint32_t count, const uint32_t *indexes,
                               const vknn_model *model, const vknn_subgraph *sg) {
  *out = vknn_calloc(count ? count : 1, sizeof(vknn_io_decl));
  if (*out == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  for (uint32_t i = 0; i < count; ++i) {
    const vknn_operand *o = &sg->operands[indexes[i]];
    vknn_io_decl *d = &(*out)[i];
    d->type = vknn_model_operand_type(model, o->type);
    d->scale = o->scale;
    d->zero_point = o->zero_point;
    d->declared_rank = o->dimension_count;
    d->value_is_data = o->lifetime == VKNN_LIFETIME_SUBGRAPH_INPUT &&
                       vknn_operand_read_only_as_data(sg, indexes[i]);
    if (o->dimension_count > 0)
      memcpy(d->declared_dims, o->dimensions, o->dimension_count * sizeof(uint32_t));
  }
  return VKNN_STATUS_NONE;
}

static vknn_status build(vknn_prepared_model *pm, const vknn_plan *plan) {
  const vknn_subgraph *sg = plan->graph.sg;
  pm->input_count = sg->input_count;
  pm->output_count = sg->output_count;
  vknn_status s = describe_io(&pm->inputs, sg->input_count, sg->input_indexes, plan->graph.model, sg);
  if (s == VKNN_STATUS_NONE)
    s = describe_io(&pm->outputs, sg->output_count, sg->output_indexes, plan->graph.model, sg);
  if (s != VKNN_STATUS_NONE) return s;
  pm->deferred = plan->deferred;
  if (plan->deferred) return vknn_model_copy_make(&plan->graph, &pm->model);
  s = vknn_recorded_graph_create(pm->device, plan, &pm->recorded);
  pm->last = pm->recorded;
  return s;
}

static void trim_watched(vknn_watched *item, uint64_t now_ns, uint64_t idle_ns) {
  vknn_prepared_model *pm =
      (vknn_prepared_model *)((char *)item - offsetof(vknn_prepared_model, watched));
  vknn_prepared_model_trim(pm, now_ns, idle_ns);
}

static vknn_prepared_model *allocate(vknn_device *device, vknn_priority priority,
                                     vknn_execution_preference preference) {
  vknn_prepared_model *pm = vknn_calloc(1, sizeof(*pm));
  if (pm == NULL) return NULL;
  pm->device = device;
  pm->id = atomic_fetch_add(&device->last_model_id, 1) + 1;
  pm->priority = priority;
  pm->preference = preference;
  pm->watched.trim = trim_watched;
  pthread_mutex_init(&pm->lock, NULL);
  vknn_pool_mappings_init(&pm->pool_mappings);
  pthread_mutex_init(&pm->pending_lock, NULL);
  pthread_cond_init(&pm->pending_done, NULL);
  return pm;
}

static vknn_status watch_or_release(vknn_prepared_model *pm, vknn_status s,
                                    vknn_prepared_model **out) {
  if (s == VKNN_STATUS_NONE) s = vknn_watchdog_watch(&pm->device->watchdog, &pm->watched);
  if (s != VKNN_STATUS_NONE) {
    vknn_prepared_model_release(pm);
    return s;
  }
  *out = pm;
  return VKNN_STATUS_NONE;
}

vknn_status vknn_prepared_model_create(vknn_device *device, const vknn_plan *plan,
                                       vknn_priority priority,
                                       vknn_execution_preference preference,
                                       vknn_prepared_model **out) {
  vknn_prepared_model *pm = allocate(device, priority, preference);
  if (pm == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  return watch_or_release(pm, build(pm, plan), out);
}

vknn_status vknn_prepared_model_create_control_flow(vknn_device *device, const vknn_model *model,
                                                    vknn_priority priority,
                                                    vknn_execution_preference preference,
                                                    vknn_prepared_model **out) {
  vknn_prepared_model *pm = allocate(device, priority, preference);
  if (pm == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  const vknn_subgraph *sg = &model->main;
  pm->input_count = sg->input_count;
  pm->output_count = sg->output_count;
  vknn_status s = describe_io(&pm->inputs, sg->input_count, sg->input_indexes, model, sg);
  if (s == VKNN_STATUS_NONE)
    s = describe_io(&pm->outputs, sg->output_count, sg->output_indexes, model, sg);
  if (s == VKNN_STATUS_NONE) s = vknn_control_flow_create(pm, model, &pm->control_flow);
  return watch_or_release(pm, s, out);
}

/* The graph the accessors below describe, retained: executions on other
 * threads replace pm->last, and an evicted specialization may drop it, both
 * under pm's lock. The lock is taken through a const model: it guards the
 * model, it is not part of its value. */
static vknn_recorded_graph *retain_last(const vknn_prepared_model *pm) {
  vknn_prepared_model *shared = (vknn_prepared_model *)pm;
  pthread_mutex_lock(&shared->lock);
  vknn_recorded_graph *rg = shared->last;
  if (rg != NULL) vknn_recorded_graph_retain(rg);
  pthread_mutex_unlock(&shared->lock);
  return rg;
}

/* A model compiled per execution describes the graph its last execution ran;
 * before any, an empty one. */
vknn_status vknn_prepared_model_get_info(const vknn_prepared_model *pm,
                                         vknn_prepared_model_info *out_info) {
  if (pm == NULL || out_info == NULL) return VKNN_STATUS_INVALID_ARGUMENT;
  vknn_recorded_graph *rg = retain_last(pm);
  *out_info = rg != NULL ? rg->info : (vknn_prepared_model_info){0};
  if (rg != NULL) vknn_recorded_graph_unref(rg);
  return VKNN_STATUS_NONE;
}

const char *vknn_prepared_model_get_dispatch_kernel(const vknn_prepared_model *pm, uint32_t i) {
  if (pm == NULL) return NULL;
  vknn_recorded_graph *rg = retain_last(pm);
  if (rg == NULL) return NULL;
  const char *name = i < rg->info.dispatch_count
                         ? vknn_embedded_shaders[rg->dispatches.items[i].shader].name
                         : NULL;
  vknn_recorded_graph_unref(rg);
  return name;
}

vknn_status vknn_prepared_model_get_dispatch_times(const vknn_prepared_model *pm, double *out_ms,
                                                   uint32_t count) {
  if (pm == NULL || out_ms == NULL) return VKNN_STATUS_INVALID_ARGUMENT;
  vknn_recorded_graph *rg = retain_last(pm);
  vknn_status s = VKNN_STATUS_NONE;
  if (rg == NULL || !rg->info.profiled) s = VKNN_STATUS_GENERAL_FAILURE;
  else if (count < rg->info.dispatch_count) s = VKNN_STATUS_INVALID_ARGUMENT;
  else if (!vknn_recorded_graph_get_dispatch_times(rg, out_ms)) s = VKNN_STATUS_GENERAL_FAILURE;
  if (rg != NULL) vknn_recorded_graph_unref(rg);
  return s;
}

void vknn_prepared_model_retain_pending(vknn_prepared_model *pm) {
  pthread_mutex_lock(&pm->pending_lock);
  pm->pending++;
  pthread_mutex_unlock(&pm->pending_lock);
}

void vknn_prepared_model_release_pending(vknn_prepared_model *pm) {
  pthread_mutex_lock(&pm->pending_lock);
  if (--pm->pending == 0) pthread_cond_broadcast(&pm->pending_done);
  pthread_mutex_unlock(&pm->pending_lock);
}

void vknn_prepared_model_trim(vknn_prepared_model *pm, uint64_t now_ns, uint64_t idle_ns) {
  pthread_mutex_lock(&pm->lock);
  uint32_t released = vknn_prepared_model_trim_specializations(pm, now_ns, idle_ns);
  released += vknn_pool_mappings_trim(&pm->pool_mappings, now_ns, idle_ns);
  atomic_fetch_add(&pm->device->vk.counters.idle_releases, released);
  /* The graphs count their own releases, as they make them. */
  if (pm->recorded != NULL) released += vknn_recorded_graph_trim(pm->recorded, now_ns, idle_ns);
  for (uint32_t i = 0; i < pm->specialization_count; ++i)
    released += vknn_recorded_graph_trim(pm->specializations[i].graph, now_ns, idle_ns);
  pthread_mutex_unlock(&pm->lock);
  if (released == 0) return;
  VKNN_LOG_V(&pm->device->log, "driver", "watchdog: released %u idle resources", released);
}

void vknn_prepared_model_release(vknn_prepared_model *pm) {
  if (pm == NULL) return;
  pthread_mutex_lock(&pm->pending_lock);
  while (pm->pending > 0) pthread_cond_wait(&pm->pending_done, &pm->pending_lock);
  pthread_mutex_unlock(&pm->pending_lock);
  vknn_watchdog_unwatch(&pm->device->watchdog, &pm->watched);
  vknn_control_flow_destroy(pm->control_flow);
  vknn_recorded_graph_unref(pm->recorded);
  vknn_prepared_model_release_specializations(pm);
  vknn_model_copy_free(&pm->model);
  vknn_pool_mappings_destroy(&pm->pool_mappings);
  pthread_mutex_destroy(&pm->lock);
  pthread_mutex_destroy(&pm->pending_lock);
  pthread_cond_destroy(&pm->pending_done);
  free(pm->inputs);
  free(pm->outputs);
  free(pm);
}
