/* vknn-demo: one small model through the driver: out = relu(a + b) on the
 * GPU; or, given a conformance JSON file, its first case (demo_case.c). */
#include <stdio.h>
#include <string.h>

#include "common/shared_memory.h"
#include "demo_case.h"
#include "vknn/vknn.h"

#define N 8

static int run(vknn_device *device) {
  const uint32_t dims[] = {N};
  const int32_t activation = VKNN_FUSED_RELU;
  const vknn_operand operands[] = {
      {.type = VKNN_OPERAND_TENSOR_FLOAT32, .dimension_count = 1, .dimensions = dims,
       .number_of_consumers = 1, .lifetime = VKNN_LIFETIME_SUBGRAPH_INPUT},
      {.type = VKNN_OPERAND_TENSOR_FLOAT32, .dimension_count = 1, .dimensions = dims,
       .number_of_consumers = 1, .lifetime = VKNN_LIFETIME_SUBGRAPH_INPUT},
      {.type = VKNN_OPERAND_INT32, .number_of_consumers = 1,
       .lifetime = VKNN_LIFETIME_CONSTANT_COPY, .location = {0, 0, sizeof(int32_t)}},
      {.type = VKNN_OPERAND_TENSOR_FLOAT32, .dimension_count = 1, .dimensions = dims,
       .lifetime = VKNN_LIFETIME_SUBGRAPH_OUTPUT},
  };
  const uint32_t op_inputs[] = {0, 1, 2}, op_outputs[] = {3};
  const uint32_t model_inputs[] = {0, 1}, model_outputs[] = {3};
  const vknn_operation add = {VKNN_OPERATION_ADD, op_inputs, 3, op_outputs, 1};
  const vknn_model model = {
      .main = {operands, 4, &add, 1, model_inputs, 2, model_outputs, 1},
      .operand_values = (const uint8_t *)&activation,
      .operand_values_size = sizeof(activation)};

  bool supported = false;
  vknn_status s = vknn_device_get_supported_operations(device, &model, &supported, 1);
  printf("ADD supported: %s\n", supported ? "yes" : "no");
  vknn_prepared_model *prepared = NULL;
  if (s == VKNN_STATUS_NONE)
    s = vknn_device_prepare_model(device, &model, VKNN_PREFER_FAST_SINGLE_ANSWER,
                                  VKNN_PRIORITY_MEDIUM, NULL, &prepared);
  if (s != VKNN_STATUS_NONE) {
    fprintf(stderr, "prepare failed: %s\n", vknn_status_name(s));
    return 1;
  }
  shared_memory pool;
  if (shared_memory_create(&pool, 3 * N * sizeof(float)) != 0) return 1;
  float *a = (float *)pool.data, *b = a + N, *out = b + N;
  for (int i = 0; i < N; ++i) {
    a[i] = (float)i - 4.0f;
    b[i] = 0.5f * (float)i;
  }
  const vknn_request_argument inputs[] = {{.location = {0, 0, N * sizeof(float)}},
                                          {.location = {0, N * sizeof(float), N * sizeof(float)}}};
  const vknn_request_argument outputs[] = {{.location = {0, 2 * N * sizeof(float), N * sizeof(float)}}};
  const vknn_request_pool pools[] = {{.kind = VKNN_REQUEST_POOL_MEMORY, .memory = pool.memory}};
  const vknn_request request = {inputs, 2, outputs, 1, pools, 1};
  vknn_output_shape shape;
  vknn_timing timing;
  s = vknn_prepared_model_execute(prepared, &request, VKNN_MEASURE_TIMING_YES, NULL, NULL, &shape,
                                  1, &timing);
  printf("execute: %s, output shape [%u], %llu us in driver\n", vknn_status_name(s),
         shape.dimensions[0], (unsigned long long)timing.time_in_driver);
  for (int i = 0; i < N && s == VKNN_STATUS_NONE; ++i)
    printf("  relu(%5.1f + %4.1f) = %4.1f\n", a[i], b[i], out[i]);
  shared_memory_destroy(&pool);
  vknn_prepared_model_release(prepared);
  return s == VKNN_STATUS_NONE ? 0 : 1;
}

int main(int argc, char **argv) {
  if (argc > 2) {
    fprintf(stderr, "usage: vknn-demo [CASE.json]\n");
    return 2;
  }
  /* Per-dispatch timestamps, for the slowest dispatches of a case. */
  const vknn_device_options options = {.profile_dispatches = argc == 2};
  vknn_device *device = NULL;
  vknn_status s = vknn_device_open(&options, &device);
  if (s != VKNN_STATUS_NONE) {
    fprintf(stderr, "vknn-demo: no device (%s)\n", vknn_status_name(s));
    return 1;
  }
  const char *version = NULL;
  vknn_device_get_version_string(device, &version);
  printf("device: %s\n", version);
  int rc = argc == 2 ? demo_case_run(device, argv[1]) : run(device);
  vknn_device_close(device);
  return rc;
}
