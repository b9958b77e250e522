#include "test_model.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "graph/runtime_check.h"

void test_model_init_oem(test_model *m) {
  test_model_init_add(m, VKNN_OPERAND_TENSOR_FLOAT32);
  m->operation.type = VKNN_OPERATION_OEM;
  for (int i = 0; i < 4; ++i) {
    if (i == 2) continue;
    m->operands[i].type = VKNN_OPERAND_TENSOR_OEM_BYTE;
    m->operands[i].scale = 0.25f; /* no rule of the HAL's applies */
    m->operands[i].zero_point = 300;
  }
  /* An OEM scalar constant: its length is not checked against any size. */
  m->operands[2].type = VKNN_OPERAND_OEM;
  m->operands[2].location.length = 3;
}

void test_model_init_add(test_model *m, int32_t tensor_type) {
  memset(m, 0, sizeof(*m));
  bool quant = tensor_type == VKNN_OPERAND_TENSOR_QUANT8_ASYMM ||
               tensor_type == VKNN_OPERAND_TENSOR_QUANT8_ASYMM_SIGNED;
  for (int i = 0; i < 4; ++i) {
    m->dims[i][0] = 2;
    m->dims[i][1] = 3;
    m->operands[i] = (vknn_operand){.type = tensor_type,
                                    .dimension_count = 2,
                                    .dimensions = m->dims[i],
                                    .number_of_consumers = 1,
                                    .scale = quant ? 0.5f : 0.f,
                                    .zero_point = 0,
                                    .lifetime = VKNN_LIFETIME_SUBGRAPH_INPUT};
  }
  m->operands[2] = (vknn_operand){.type = VKNN_OPERAND_INT32,
                                  .number_of_consumers = 1,
                                  .lifetime = VKNN_LIFETIME_CONSTANT_COPY,
                                  .location = {0, 0, sizeof(int32_t)}};
  m->operands[3].lifetime = VKNN_LIFETIME_SUBGRAPH_OUTPUT;
  m->operands[3].number_of_consumers = 0;
  m->op_inputs[0] = 0;
  m->op_inputs[1] = 1;
  m->op_inputs[2] = 2;
  m->op_outputs[0] = 3;
  m->operation = (vknn_operation){VKNN_OPERATION_ADD, m->op_inputs, 3, m->op_outputs, 1};
  m->inputs[0] = 0;
  m->inputs[1] = 1;
  m->outputs[0] = 3;
  m->activation = VKNN_FUSED_NONE;
  m->model = (vknn_model){
      .main = {m->operands, 4, &m->operation, 1, m->inputs, 2, m->outputs, 1},
      .operand_values = (const uint8_t *)&m->activation,
      .operand_values_size = sizeof(m->activation)};
}

void test_log_callback(void *user_data, vknn_log_level level, const char *tag,
                       const char *message) {
  test_log *log = user_data;
  if (level != VKNN_LOG_ERROR) return;
  log->errors++;
  snprintf(log->last, sizeof(log->last), "%s: %s", tag, message);
}

bool test_log_names_rule(const test_log *log, const char *operation, uint32_t rule) {
  char name[80];
  snprintf(name, sizeof(name), "(%s): ", operation);
  const char *after = strstr(log->last, name);
  return after != NULL && strstr(after, vknn_runtime_rule_text(rule)) != NULL &&
         strstr(log->last, "a value given at run time") != NULL;
}

int test_request_init_add(test_request *r) {
  memset(r, 0, sizeof(*r));
  if (shared_memory_create(&r->pool, 72) != 0) return -1;
  float *values = (float *)r->pool.data;
  for (int i = 0; i < 6; ++i) {
    values[i] = (float)i;
    values[6 + i] = 10.f * (float)i;
  }
  r->inputs[0].location = (vknn_data_location){0, 0, 24};
  r->inputs[1].location = (vknn_data_location){0, 24, 24};
  r->outputs[0].location = (vknn_data_location){0, 48, 24};
  r->pools[0] = (vknn_request_pool){.kind = VKNN_REQUEST_POOL_MEMORY, .memory = r->pool.memory};
  r->request = (vknn_request){r->inputs, 2, r->outputs, 1, r->pools, 1};
  return 0;
}

void test_request_release(test_request *r) { shared_memory_destroy(&r->pool); }

float test_request_output(const test_request *r, int i) {
  return ((const float *)(r->pool.data + 48))[i];
}

uint64_t test_boottime_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_BOOTTIME, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
