/* Prepare (HAL IDevice::prepareModel_1_3): validate the arguments and the
 * model, compile it, and make the prepared model from the plan. */
#include "compiler/compiler.h"
#include "compiler/control_flow_split.h"
#include "compiler/operation_registry.h"
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

vknn_status vknn_device_prepare_model(vknn_device *device, const vknn_model *model,
                                      vknn_execution_preference preference,
                                      vknn_priority priority, const vknn_deadline *deadline,
                                      vknn_prepared_model **out_prepared_model) {
  if (out_prepared_model != NULL) *out_prepared_model = NULL;
  if (device == NULL || model == NULL || out_prepared_model == NULL)
    return VKNN_STATUS_INVALID_ARGUMENT;
  vknn_status s = validate_prepare_arguments(&device->log, preference, priority);
  if (s == VKNN_STATUS_NONE) s = vknn_compiler_validate_model(&device->log, model);
  if (s == VKNN_STATUS_NONE) s = vknn_device_check_lost(device, TAG);
  if (s == VKNN_STATUS_NONE) s = vknn_check_deadline(&device->log, TAG, deadline);
  if (s != VKNN_STATUS_NONE) return s;
  if (vknn_subgraph_has_control_flow(&model->main))
    return vknn_prepared_model_create_control_flow(device, model, priority, preference,
                                                   out_prepared_model);
  vknn_plan plan;
  vknn_plan_target target = vknn_recorded_graph_target(device);
  s = vknn_compile(&device->log, model, NULL, &target, &plan);
  if (s != VKNN_STATUS_NONE) return s;
  vknn_prepared_model *pm = NULL;
  s = vknn_prepared_model_create(device, &plan, priority, preference, &pm);
  vknn_plan_release(&plan);
  if (s != VKNN_STATUS_NONE) return s;
  VKNN_LOG_V(&device->log, TAG, "prepared a model%s", pm->deferred ? " compiled per execution" : "");
  *out_prepared_model = pm;
  return VKNN_STATUS_NONE;
}
