/* Prepare (HAL IDevice::prepareModel_1_3): validate the arguments and the
 * model, compile it, and make the prepared model from the plan. */
#include <stdlib.h>

#include "compiler/compiler.h"
#include "compiler/control_flow_split.h"
#include "compiler/graph_dump.h"
#include "compiler/operation_registry.h"
#include "compiler/relaxed_float16.h"
#include "runtime/compilation_cache.h"
#include "runtime/kernel_tuning.h"
#include "runtime/prepared_model_internal.h"
#include "runtime/recorded_graph.h"

#define TAG "compilation"

static vknn_status validate_prepare_arguments(const vknn_logger *log,
                                              vknn_execution_preference preference,
                                              vknn_priority priority) {
  if ((unsigned)preference > VKNN_PREFER_SUSTAINED_SPEED) {
    VKNN_LOG_E(log, TAG, "invalid execution preference %d", (int)preference);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  if ((unsigned)priority > VKNN_PRIORITY_HIGH) {
    VKNN_LOG_E(log, TAG, "invalid priority %d", (int)priority);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  return VKNN_STATUS_NONE;
}

/* VKNN_GRAPH_DUMP: the model as received, and its plan where there is one. */
static void dump_graphs(vknn_device *device, const vknn_model *model, const vknn_plan *plan) {
  if (device->graph_dump_dir[0] == '\0') return;
  uint64_t begin = vknn_trace_begin(&device->trace);
  vknn_graph_dump_files(&device->log, device->graph_dump_dir, model, plan);
  vknn_trace_end(&device->trace, "prepare", "graph dump", begin);
}

/* A relaxed model's float16 copy (compiler/relaxed_float16.h), or the
 * model itself when the device keeps relaxed models in float32 (the device
 * option relaxed_float16), none applies or the copy fails (it then runs in
 * float32, which a relaxed model allows too). */
static const vknn_model *relaxed_in_float16(vknn_device *device, const vknn_model *model,
                                            vknn_model_copy *half) {
  if (!device->vk.relaxed_float16 || !vknn_relaxed_float16_applies(model)) return model;
  vknn_status s = vknn_relaxed_float16_make(&device->log, model, half);
  if (s == VKNN_STATUS_NONE) return &half->model;
  VKNN_LOG_E(&device->log, TAG, "the relaxed model's float16 copy failed (status %d): compiled in float32", s);
  return model;
}

/* Kernel variants measured per layer where the device option asks for it
 * (runtime/kernel_tuning.h); not under a deadline, which the measuring
 * could spend. NULL: the device's rules for every layer. */
static vknn_kernel_target *tuned_kernels(vknn_device *device, const vknn_model *model,
                                         const vknn_plan_target *target,
                                         vknn_execution_preference preference,
                                         const vknn_deadline *deadline) {
  if (!vknn_kernel_tuning_wanted(device, preference)) return NULL;
  if (deadline != NULL && deadline->has_value) {
    VKNN_LOG_V(&device->log, TAG, "a deadline was given: no kernel tuning");
    return NULL;
  }
  uint64_t begin = vknn_trace_begin(&device->trace);
  vknn_kernel_target *kernels = vknn_kernel_tuning_choose(device, model, target);
  vknn_trace_end(&device->trace, "prepare", "kernel tuning", begin);
  return kernels;
}

/* Nesting past VKNN_MAX_CONTROL_FLOW_NESTING is unsupported (GENERAL_FAILURE). */
static vknn_status check_nesting(vknn_device *device, const vknn_model *model) {
  bool fits = false;
  vknn_status s = vknn_control_flow_nesting_fits(model, &fits);
  if (s != VKNN_STATUS_NONE || fits) return s;
  VKNN_LOG_E(&device->log, TAG, "IF and WHILE nest deeper than %u levels: unsupported",
             VKNN_MAX_CONTROL_FLOW_NESTING);
  return VKNN_STATUS_GENERAL_FAILURE;
}

/* Compiles a valid model and makes the prepared model from the plan. */
static vknn_status compile_and_create(vknn_device *device, const vknn_model *model,
                                      vknn_execution_preference preference,
                                      vknn_priority priority, const vknn_deadline *deadline,
                                      vknn_prepared_model **out_prepared_model) {
  /* Valid, but the driver holds shapes in arrays of VKNN_MAX_RANK. */
  if (!vknn_model_ranks_fit(model)) {
    VKNN_LOG_E(&device->log, TAG, "an operand of rank above %d: unsupported", VKNN_MAX_RANK);
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  if (vknn_subgraph_has_control_flow(&model->main)) {
    vknn_status ns = check_nesting(device, model);
    if (ns != VKNN_STATUS_NONE) return ns;
    dump_graphs(device, model, NULL); /* its segments are compiled one by one */
    return vknn_prepared_model_create_control_flow(device, model, priority, preference,
                                                   out_prepared_model);
  }
  vknn_plan plan;
  vknn_plan_target target = vknn_recorded_graph_target(device);
  uint64_t begin = vknn_trace_begin(&device->trace);
  vknn_model_copy half;
  const vknn_model *compiled = relaxed_in_float16(device, model, &half);
  vknn_kernel_target *tuned = tuned_kernels(device, compiled, &target, preference, deadline);
  target.op_kernels = tuned;
  target.op_sources = compiled != model ? half.op_sources : NULL;
  vknn_status s = vknn_compile(&device->log, compiled, NULL, &target, &plan);
  vknn_trace_end(&device->trace, "prepare", "compile", begin);
  dump_graphs(device, compiled, s == VKNN_STATUS_NONE ? &plan : NULL);
  vknn_prepared_model *pm = NULL;
  if (s == VKNN_STATUS_NONE) {
    begin = vknn_trace_begin(&device->trace);
    s = vknn_prepared_model_create(device, &plan, priority, preference, &pm);
    vknn_trace_end(&device->trace, "prepare", "upload constants and record", begin);
    vknn_plan_release(&plan);
  }
  free(tuned); /* the plan's graph pointed at it until released */
  if (compiled != model) vknn_model_copy_free(&half);
  if (s != VKNN_STATUS_NONE) return s;
  VKNN_LOG_V(&device->log, TAG, "prepared a model%s", pm->deferred ? " compiled per execution" : "");
  *out_prepared_model = pm;
  return VKNN_STATUS_NONE;
}

/* HAL: a prepare that cannot finish before its deadline is aborted: one
 * that finished after it gives MISSED_DEADLINE_TRANSIENT, not its model. */
static vknn_status abort_if_late(vknn_device *device, const vknn_deadline *deadline, const char *what,
                                 vknn_prepared_model **prepared_model) {
  vknn_status s = vknn_check_deadline_after(&device->log, TAG, deadline, what);
  if (s != VKNN_STATUS_NONE) {
    vknn_prepared_model_release(*prepared_model);
    *prepared_model = NULL;
  }
  return s;
}

vknn_status vknn_device_prepare_model(vknn_device *device, const vknn_model *model,
                                      vknn_execution_preference preference,
                                      vknn_priority priority, const vknn_deadline *deadline,
                                      vknn_prepared_model **out_prepared_model) {
  return vknn_device_prepare_model_with_cache(device, model, preference, priority, deadline, NULL,
                                              out_prepared_model);
}

vknn_status vknn_device_prepare_model_with_cache(vknn_device *device, const vknn_model *model,
                                                 vknn_execution_preference preference,
                                                 vknn_priority priority,
                                                 const vknn_deadline *deadline,
                                                 const vknn_cache_files *cache,
                                                 vknn_prepared_model **out_prepared_model) {
  if (out_prepared_model != NULL) *out_prepared_model = NULL;
  if (device == NULL || model == NULL || out_prepared_model == NULL)
    return VKNN_STATUS_INVALID_ARGUMENT;
  uint64_t begin = vknn_trace_begin(&device->trace);
  vknn_status s = validate_prepare_arguments(&device->log, preference, priority);
  if (s == VKNN_STATUS_NONE) s = vknn_compiler_validate_model(&device->log, model);
  vknn_trace_end(&device->trace, "prepare", "validate", begin);
  if (s == VKNN_STATUS_NONE) s = vknn_device_check_lost(device, TAG);
  if (s == VKNN_STATUS_NONE) s = vknn_check_deadline(&device->log, TAG, deadline);
  if (s == VKNN_STATUS_NONE)
    s = compile_and_create(device, model, preference, priority, deadline, out_prepared_model);
  if (s == VKNN_STATUS_NONE) s = abort_if_late(device, deadline, "the prepare", out_prepared_model);
  /* After the prepare, whose result saving never changes (nor its time). */
  if (s == VKNN_STATUS_NONE && vknn_cache_given(cache))
    vknn_cache_save(device, model, cache, preference, priority);
  vknn_trace_end(&device->trace, "prepare", "prepare", begin);
  return s;
}

/* The model read back from a cache is checked again exactly like a new
 * one: a data cache changed in a way its checksum missed can at worst give
 * another valid model. An invalid one (rules or shapes) is the cache's
 * fault, not an argument's; running out of memory stays what it is. The
 * saved pipelines and tuning choices reach the device only once the model
 * has passed its rules. */
static vknn_status prepare_loaded(vknn_device *device, const vknn_cache_loaded *loaded,
                                  const vknn_deadline *deadline,
                                  vknn_prepared_model **out_prepared_model) {
  vknn_status s = vknn_compiler_validate_model(&device->log, &loaded->model.model);
  if (s == VKNN_STATUS_NONE) vknn_cache_use_saved(device, loaded);
  if (s == VKNN_STATUS_NONE)
    s = compile_and_create(device, &loaded->model.model, loaded->preference, loaded->priority,
                           deadline, out_prepared_model);
  if (s != VKNN_STATUS_INVALID_ARGUMENT) return s;
  VKNN_LOG_E(&device->log, TAG, "the cached model is not valid");
  return VKNN_STATUS_GENERAL_FAILURE;
}

vknn_status vknn_device_prepare_model_from_cache(vknn_device *device,
                                                 const vknn_deadline *deadline,
                                                 const vknn_cache_files *cache,
                                                 vknn_prepared_model **out_prepared_model) {
  if (out_prepared_model != NULL) *out_prepared_model = NULL;
  if (device == NULL || cache == NULL || out_prepared_model == NULL)
    return VKNN_STATUS_INVALID_ARGUMENT;
  vknn_status s = vknn_cache_check_arguments(&device->log, cache);
  if (s == VKNN_STATUS_NONE) s = vknn_device_check_lost(device, TAG);
  if (s == VKNN_STATUS_NONE) s = vknn_check_deadline(&device->log, TAG, deadline);
  if (s != VKNN_STATUS_NONE) return s;
  vknn_cache_loaded loaded;
  s = vknn_cache_load(device, cache, &loaded);
  if (s == VKNN_STATUS_NONE) s = vknn_check_deadline_after(&device->log, TAG, deadline, "reading the cache");
  if (s == VKNN_STATUS_NONE) s = prepare_loaded(device, &loaded, deadline, out_prepared_model);
  if (s == VKNN_STATUS_NONE)
    s = abort_if_late(device, deadline, "the prepare from cache", out_prepared_model);
  vknn_cache_loaded_release(&loaded);
  return s;
}
