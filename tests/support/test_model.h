/* A small, valid model for unit tests that each test may then break:
 * out = ADD(in0, in1, activation) with [2, 3] float tensors, or quant8. */
#pragma once
#include "common/shared_memory.h"
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
/* The same graph as OEM_OPERATION over TENSOR_OEM_BYTE tensors and an OEM
 * scalar constant: valid, but no operation of the driver's. */
void test_model_init_oem(test_model *m);

/* A request for the [2, 3] ADD model in one memfd pool: in0 | in1 | out,
 * 24 bytes each, in0[i] = i and in1[i] = 10 i. */
typedef struct test_request {
  shared_memory pool;
  vknn_request_argument inputs[2];
  vknn_request_argument outputs[1];
  vknn_request_pool pools[1];
  vknn_request request;
} test_request;

/* 0 on success. The request points into r: keep r in place. */
int test_request_init_add(test_request *r);
void test_request_release(test_request *r);
/* Output element i after an execution. */
float test_request_output(const test_request *r, int i);

/* Captures the last log line of a device or validator. */
typedef struct test_log {
  char last[512];
  int errors;
} test_log;
void test_log_callback(void *user_data, vknn_log_level level, const char *tag, const char *message);

/* Whether the last line is the log of a value out of range found at run
 * time (docs/architecture.md, "Run-time checks") naming the operation, as
 * "(NAME)", and the text of the rule (a VKNN_RUNTIME_RULE_*, generated from
 * shaders/runtime_status.glsl). */
bool test_log_names_rule(const test_log *log, const char *operation, uint32_t rule);

/* CLOCK_BOOTTIME in nanoseconds: the clock of deadlines. */
uint64_t test_boottime_ns(void);
