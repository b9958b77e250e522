#include "capabilities_workloads.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "capabilities_host.h"
#include "common/shared_memory.h"

static const char *const kNames[CAP_COUNT] = {
    "TENSOR_FLOAT32 (conv 3x3)", "relaxed float32 (conv 3x3)", "TENSOR_QUANT8_ASYMM (conv 3x3)",
    "TENSOR_INT32 (add)",        "TENSOR_BOOL8 (logical and)", "IF (conv branch)",
    "WHILE (4 x conv)"};
static const char *const kKeys[CAP_COUNT] = {"float32", "relaxed", "quant8_asymm", "int32",
                                             "bool8",   "if",      "while"};

void cap_figure_set(cap_figure *f, double *device_ms, double *host_ms, int rounds,
                    double max_difference) {
  f->device_ms = bench_quantile(device_ms, (size_t)rounds, 0.5);
  f->host_ms = bench_quantile(host_ms, (size_t)rounds, 0.5);
  f->ratio = f->host_ms > 0 ? f->device_ms / f->host_ms : 0;
  f->max_difference = max_difference;
}

/* Two inputs and the output of n elements in one pool. */
typedef struct elementwise {
  shared_memory pool;
  vknn_request_argument inputs[2], output;
  vknn_request_pool request_pool;
  vknn_request request;
  size_t element;
} elementwise;

static int elementwise_request(elementwise *e, size_t element) {
  uint32_t bytes = (uint32_t)(CAP_ELEMENTS * element);
  e->element = element;
  if (shared_memory_create(&e->pool, 3 * (size_t)bytes) != 0) return -1;
  for (int i = 0; i < 2; ++i) e->inputs[i].location = (vknn_data_location){0, i * bytes, bytes};
  e->output.location = (vknn_data_location){0, 2 * bytes, bytes};
  e->request_pool = (vknn_request_pool){.kind = VKNN_REQUEST_POOL_MEMORY, .memory = e->pool.memory};
  e->request = (vknn_request){e->inputs, 2, &e->output, 1, &e->request_pool, 1};
  uint64_t state = 0x9e3779b97f4a7c15ull; /* fixed values: a xorshift sequence */
  for (size_t i = 0; i < 2 * (size_t)bytes; ++i) {
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    e->pool.data[i] = (uint8_t)(element == 1 ? (state >> 60) & 1 : state >> 56);
  }
  return 0;
}

static vknn_status prepare_elementwise(vknn_device *device, cap_workload which,
                                       vknn_prepared_model **pm) {
  static const uint32_t dims[1] = {CAP_ELEMENTS};
  static const int32_t no_activation = VKNN_FUSED_NONE;
  int32_t type = which == CAP_INT32 ? VKNN_OPERAND_TENSOR_INT32 : VKNN_OPERAND_TENSOR_BOOL8;
  const vknn_operand operands[4] = {
      {.type = type, .dimension_count = 1, .dimensions = dims, .number_of_consumers = 1,
       .lifetime = VKNN_LIFETIME_SUBGRAPH_INPUT},
      {.type = type, .dimension_count = 1, .dimensions = dims, .number_of_consumers = 1,
       .lifetime = VKNN_LIFETIME_SUBGRAPH_INPUT},
      {.type = type, .dimension_count = 1, .dimensions = dims,
       .lifetime = VKNN_LIFETIME_SUBGRAPH_OUTPUT},
      {.type = VKNN_OPERAND_INT32, .number_of_consumers = 1,
       .lifetime = VKNN_LIFETIME_CONSTANT_COPY, .location = {0, 0, 4}},
  };
  const uint32_t add_in[3] = {0, 1, 3}, out[1] = {2}, model_in[2] = {0, 1};
  const vknn_operation op = which == CAP_INT32
                                ? (vknn_operation){VKNN_OPERATION_ADD, add_in, 3, out, 1}
                                : (vknn_operation){VKNN_OPERATION_LOGICAL_AND, add_in, 2, out, 1};
  const vknn_model model = {.main = {operands, which == CAP_INT32 ? 4 : 3, &op, 1, model_in, 2, out, 1},
                            .operand_values = (const uint8_t *)&no_activation,
                            .operand_values_size = which == CAP_INT32 ? 4 : 0};
  return vknn_device_prepare_model(device, &model, VKNN_PREFER_SUSTAINED_SPEED,
                                   VKNN_PRIORITY_MEDIUM, NULL, pm);
}

static void host_elementwise(const elementwise *e, cap_workload which, void *out) {
  const uint8_t *a = e->pool.data, *b = a + CAP_ELEMENTS * e->element;
  if (which == CAP_INT32) host_add_i32((const int32_t *)a, (const int32_t *)b, out, CAP_ELEMENTS);
  else host_and_b8(a, b, out, CAP_ELEMENTS);
}

static int time_elementwise(vknn_prepared_model *pm, elementwise *e, int rounds,
                            cap_workload which, cap_figure *f) {
  double *device_ms = calloc((size_t)rounds, sizeof(double));
  double *host_ms = calloc((size_t)rounds, sizeof(double));
  uint8_t *host = malloc(CAP_ELEMENTS * e->element);
  vknn_status s = device_ms && host_ms && host ? VKNN_STATUS_NONE : VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  for (int r = -1; r < rounds && s == VKNN_STATUS_NONE; ++r) { /* round -1: warm-up */
    double start = bench_now_ms();
    s = vknn_prepared_model_execute(pm, &e->request, VKNN_MEASURE_TIMING_NO, NULL, NULL, NULL, 0, NULL);
    if (r >= 0) device_ms[r] = bench_now_ms() - start;
    start = bench_now_ms();
    host_elementwise(e, which, host);
    if (r >= 0) host_ms[r] = bench_now_ms() - start;
  }
  const uint8_t *device_out = e->pool.data + 2 * CAP_ELEMENTS * e->element;
  if (s == VKNN_STATUS_NONE)
    cap_figure_set(f, device_ms, host_ms, rounds,
                   memcmp(device_out, host, CAP_ELEMENTS * e->element) == 0 ? 0 : 1);
  else fprintf(stderr, "vknn-bench capabilities: %s\n", vknn_status_name(s));
  free(device_ms);
  free(host_ms);
  free(host);
  return s == VKNN_STATUS_NONE ? 0 : -1;
}

int cap_measure_elementwise(vknn_device *device, int rounds, cap_workload which, cap_figure *f) {
  elementwise e = {0};
  if (elementwise_request(&e, which == CAP_INT32 ? 4 : 1) != 0) return -1;
  vknn_prepared_model *pm = NULL;
  vknn_status s = prepare_elementwise(device, which, &pm);
  int rc = s == VKNN_STATUS_NONE ? time_elementwise(pm, &e, rounds, which, f) : -1;
  if (s != VKNN_STATUS_NONE) fprintf(stderr, "vknn-bench capabilities: prepare: %s\n", vknn_status_name(s));
  vknn_prepared_model_release(pm);
  shared_memory_destroy(&e.pool);
  return rc;
}

int cap_check(const cap_figure *f) {
  static const double tolerance[CAP_COUNT] = {1e-3, 2e-2, 2, 0, 0, 1e-3, 1e-3};
  int rc = 0;
  for (int i = 0; i < CAP_COUNT; ++i) {
    if (f[i].max_difference <= tolerance[i]) continue;
    fprintf(stderr, "vknn-bench capabilities: %s: the device's result differs from the host's by %g\n",
            kNames[i], f[i].max_difference);
    rc = -1;
  }
  return rc;
}

void cap_print(vknn_device *device, const char *name, const cap_figure *f, int rounds) {
  (void)device;
  printf("device: %s\n", name);
  printf("%-32s %12s %12s %10s\n", "workload", "device ms", "host ms", "ratio");
  for (int i = 0; i < CAP_COUNT; ++i)
    printf("%-32s %12.3f %12.3f %10.3f\n", kNames[i], f[i].device_ms, f[i].host_ms, f[i].ratio);
  printf("(medians of %d alternating rounds; ratio = device / host, lower is better)\n", rounds);
}

int cap_write_json(const cap_figure *f, const char *path) {
  cJSON *root = cJSON_CreateObject();
  for (int i = 0; i < CAP_COUNT; ++i) {
    cJSON *w = cJSON_AddObjectToObject(root, kKeys[i]);
    cJSON_AddNumberToObject(w, "device_ms", f[i].device_ms);
    cJSON_AddNumberToObject(w, "host_ms", f[i].host_ms);
    cJSON_AddNumberToObject(w, "ratio", f[i].ratio);
  }
  int rc = bench_write_json(root, path);
  cJSON_Delete(root);
  return rc;
}
