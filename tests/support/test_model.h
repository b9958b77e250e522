/* A small, valid model for unit tests that each test may then break:
 * out = ADD(in0, in1, activation) with [2, 3] float tensors, or quant8. */
#pragma once
#include "vknn/vknn.h"

typedef struct test_model {
  uint32_t dims[5][VKNN_MAX_RANK];
  vknn_operand operands[5]; /* operands[4] is a spare: not counted until a test adds it */
  uint32_t op_inputs[3];
  uint32_t op_outputs[1];
  vknn_operation operation;
  uint32_t inputs[2];
  uint32_t outputs[1];
  int32_t activation;
  vknn_model model;
} test_model;

/* Fills m with the valid ADD model for a tensor type (FLOAT32, QUANT8...). */
void test_model_init_add(test_model *m, int32_t tensor_type);

/* Captures the last log line of a device or validator. */
typedef struct test_log {
  char last[512];
  int errors;
} test_log;
void test_log_callback(void *user_data, vknn_log_level level, const char *tag, const char *message);
