/* Mode quant-coupling: a single-operation case with TENSOR_QUANT8_ASYMM
 * operands is converted to TENSOR_QUANT8_ASYMM_SIGNED (zero points and every
 * value, constants, inputs and expected outputs alike, minus 128). The driver
 * that runs the unsigned case must run the signed twin and give the same
 * results shifted by 128. */
#include <stdio.h>
#include <string.h>

#include "cts_modes.h"

static bool is_quant8_asymm(const cJSON *operand) {
  const cJSON *type = cJSON_GetObjectItemCaseSensitive(operand, "type");
  return cJSON_IsString(type) && strcmp(type->valuestring, "TENSOR_QUANT8_ASYMM") == 0;
}

/* Operations whose quant8 operands are not coupled to their values: bytes
 * taken as booleans or hashed, a pad value given as an INT32 scalar, casts
 * that ignore scale and zero point. */
static bool coupling_exempt(const char *type) {
  static const char *const exempt[] = {"HASHTABLE_LOOKUP", "LSH_PROJECTION", "PAD_V2", "CAST",
                                       "QUANTIZED_16BIT_LSTM"};
  for (size_t i = 0; i < sizeof(exempt) / sizeof(exempt[0]); ++i)
    if (strcmp(type, exempt[i]) == 0) return true;
  return false;
}

static bool any_quant8_asymm(const cJSON *operands, const cJSON *indexes) {
  const cJSON *index;
  cJSON_ArrayForEach(index, indexes)
    if (cJSON_IsNumber(index) && is_quant8_asymm(cJSON_GetArrayItem(operands, index->valueint)))
      return true;
  return false;
}

/* Some operation that is not exempt reads or writes a quant8 asymm tensor. */
static bool subgraph_has_quant8_asymm(const cJSON *subgraph) {
  const cJSON *operands = cJSON_GetObjectItemCaseSensitive(subgraph, "operands");
  const cJSON *op;
  cJSON_ArrayForEach(op, cJSON_GetObjectItemCaseSensitive(subgraph, "operations")) {
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(op, "type");
    if (!cJSON_IsString(type) || coupling_exempt(type->valuestring)) continue;
    if (any_quant8_asymm(operands, cJSON_GetObjectItemCaseSensitive(op, "inputs")) ||
        any_quant8_asymm(operands, cJSON_GetObjectItemCaseSensitive(op, "outputs")))
      return true;
  }
  return false;
}

static bool applies(const cJSON *test) {
  const cJSON *main = cJSON_GetObjectItemCaseSensitive(test, "main");
  const cJSON *referenced = cJSON_GetObjectItemCaseSensitive(test, "referenced");
  return !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(test, "expectFailure")) &&
         cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(main, "operations")) == 1 &&
         cJSON_GetArraySize(referenced) == 0 && subgraph_has_quant8_asymm(main);
}

static void shift_operand(cJSON *operand) {
  cJSON_ReplaceItemInObjectCaseSensitive(operand, "type",
                                         cJSON_CreateString("TENSOR_QUANT8_ASYMM_SIGNED"));
  cJSON *zero_point = cJSON_GetObjectItemCaseSensitive(operand, "zeroPoint");
  if (cJSON_IsNumber(zero_point)) cJSON_SetNumberValue(zero_point, zero_point->valuedouble - 128);
  cJSON *value;
  cJSON_ArrayForEach(value, cJSON_GetObjectItemCaseSensitive(operand, "data"))
    if (cJSON_IsNumber(value)) cJSON_SetNumberValue(value, value->valuedouble - 128);
}

static void shift_subgraph(cJSON *subgraph) {
  cJSON *operand;
  cJSON_ArrayForEach(operand, cJSON_GetObjectItemCaseSensitive(subgraph, "operands"))
    if (is_quant8_asymm(operand)) shift_operand(operand);
}

static void run_signed(cts_worker *w, cts_case *c, cts_judgement *j) {
  bool supported[1] = {false};
  vknn_status s = vknn_device_get_supported_operations(w->device, &c->model, supported, 1);
  if (s != VKNN_STATUS_NONE || !supported[0]) {
    j->status = CTS_FAILED;
    snprintf(j->reason, sizeof(j->reason), "the signed twin is not supported (%s)", w->last_error);
    return;
  }
  vknn_prepared_model *pm = NULL;
  s = vknn_device_prepare_model(w->device, &c->model, VKNN_PREFER_FAST_SINGLE_ANSWER,
                                VKNN_PRIORITY_MEDIUM, NULL, &pm);
  vknn_output_shape shapes[CTS_MAX_OUTPUTS];
  vknn_timing timing = {UINT64_MAX, UINT64_MAX};
  cts_case_reset_outputs(c);
  if (s == VKNN_STATUS_NONE)
    s = vknn_prepared_model_execute(pm, &c->request, VKNN_MEASURE_TIMING_YES, NULL, cts_loop_timeout(), shapes,
                                    CTS_MAX_OUTPUTS, &timing);
  cts_judge(w, c, "signed twin", s, c->output_pool.data, shapes, &timing, j);
  vknn_prepared_model_release(pm);
}

void cts_run_quant_coupling(cts_worker *w, const cJSON *test, cts_judgement *j) {
  if (!applies(test)) return;
  cJSON *twin = cJSON_Duplicate(test, true);
  cts_case c;
  const char *error = "out of memory";
  if (twin != NULL) shift_subgraph(cJSON_GetObjectItemCaseSensitive(twin, "main"));
  if (twin == NULL || cts_case_load(twin, &c, &error) != 0) {
    j->status = CTS_FAILED;
    snprintf(j->reason, sizeof(j->reason), "cannot build the signed twin: %s", error);
  } else {
    run_signed(w, &c, j);
    cts_case_free(&c);
  }
  cJSON_Delete(twin);
}
