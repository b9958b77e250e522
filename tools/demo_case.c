#include "demo_case.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cts_case.h"
#include "common/cts_compare.h"
#include "common/tool_stats.h"


static int print_support(vknn_device *device, const cts_case *c) {
  uint32_t n = c->model.main.operation_count, supported = 0;
  bool *answer = calloc(n ? n : 1, sizeof(bool));
  vknn_status s = answer ? vknn_device_get_supported_operations(device, &c->model, answer, n)
                         : VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  for (uint32_t i = 0; i < n && s == VKNN_STATUS_NONE; ++i) supported += answer[i];
  free(answer);
  printf("supported:  %u of %u operations (%s)\n", supported, n, vknn_status_name(s));
  return s == VKNN_STATUS_NONE && supported == n ? 0 : -1;
}

/* The first float outputs beside their expected values, and the verdict of
 * the conformance criteria. */
static int print_result(const cts_case *c, const vknn_output_shape *shapes) {
  const cts_expected *e = &c->expected[0];
  if (e->type == VKNN_OPERAND_TENSOR_FLOAT32) {
    const float *out = (const float *)(c->output_pool.data + c->outputs[0].location.offset);
    for (size_t i = 0; i < e->count && i < 8; ++i)
      printf("  output[%zu] = %.6f   expected %.6f\n", i, (double)out[i], e->values[i]);
  }
  char reason[256] = "";
  int rc = cts_compare_outputs(c, shapes, reason, sizeof(reason));
  printf("result:     %s%s\n", rc == 0 ? "matches the expected output" : "MISMATCH: ", reason);
  return rc;
}

typedef struct slow_dispatch {
  double ms;
  uint32_t index;
} slow_dispatch;

static int slower_first(const void *a, const void *b) {
  double x = ((const slow_dispatch *)a)->ms, y = ((const slow_dispatch *)b)->ms;
  return x > y ? -1 : x < y;
}

/* The five slowest dispatches of the last execution (GPU timestamps). */
static void print_slowest(vknn_prepared_model *pm) {
  vknn_prepared_model_info info;
  vknn_prepared_model_get_info(pm, &info);
  uint32_t n = info.dispatch_count;
  double *ms = calloc(n ? n : 1, sizeof(double));
  slow_dispatch *order = calloc(n ? n : 1, sizeof(slow_dispatch));
  if (ms != NULL && order != NULL &&
      vknn_prepared_model_get_dispatch_times(pm, ms, n) == VKNN_STATUS_NONE) {
    double total = 0;
    for (uint32_t i = 0; i < n; ++i) order[i] = (slow_dispatch){ms[i], i}, total += ms[i];
    qsort(order, n, sizeof(*order), slower_first);
    printf("dispatches: %u, %.2f ms on the GPU; the five slowest:\n", n, total);
    for (uint32_t i = 0; i < n && i < 5; ++i)
      printf("  #%-3u %-36s %8.3f ms\n", order[i].index,
             vknn_prepared_model_get_dispatch_kernel(pm, order[i].index), order[i].ms);
  } else {
    printf("dispatches: %u (no GPU timestamps on this device)\n", n);
  }
  free(ms);
  free(order);
}

static int execute(vknn_prepared_model *pm, cts_case *c, vknn_output_shape *shapes) {
  vknn_status s = vknn_prepared_model_execute(pm, &c->request, VKNN_MEASURE_TIMING_NO, NULL, NULL,
                                              shapes, shapes ? 16 : 0, NULL);
  if (s != VKNN_STATUS_NONE) fprintf(stderr, "execute failed: %s\n", vknn_status_name(s));
  return s == VKNN_STATUS_NONE ? 0 : -1;
}

static int run_prepared(vknn_prepared_model *pm, cts_case *c) {
  vknn_output_shape shapes[16];
  cts_case_reset_outputs(c);
  if (execute(pm, c, shapes) != 0 || print_result(c, shapes) != 0) return -1;
  double latency[DEMO_RUNS];
  for (int i = 0; i < DEMO_RUNS; ++i) {
    double start = tool_now_ms();
    if (execute(pm, c, NULL) != 0) return -1;
    latency[i] = tool_now_ms() - start;
  }
  double median = tool_quantile(latency, DEMO_RUNS, 0.5); /* sorts */
  printf("latency:    %.2f ms median of %d executions (%.2f .. %.2f)\n", median, DEMO_RUNS,
         latency[0], latency[DEMO_RUNS - 1]);
  print_slowest(pm);
  return 0;
}

static int run_case(vknn_device *device, cts_case *c) {
  printf("model:      %s, %u operations\n", c->name, c->model.main.operation_count);
  if (print_support(device, c) != 0) return -1;
  vknn_prepared_model *pm = NULL;
  double start = tool_now_ms();
  vknn_status s = vknn_device_prepare_model(device, &c->model, VKNN_PREFER_FAST_SINGLE_ANSWER,
                                            VKNN_PRIORITY_MEDIUM, NULL, &pm);
  printf("prepare:    %.1f ms (%s)\n", tool_now_ms() - start, vknn_status_name(s));
  if (s != VKNN_STATUS_NONE) return -1;
  int rc = run_prepared(pm, c);
  vknn_prepared_model_release(pm);
  return rc;
}

int demo_case_run(vknn_device *device, const char *path) {
  cJSON *root = cts_parse_file(path);
  const cJSON *tests = root ? cJSON_GetObjectItemCaseSensitive(root, "tests") : NULL;
  const cJSON *test = cJSON_GetArrayItem(tests, 0);
  if (test == NULL) {
    fprintf(stderr, "vknn-demo: no conformance case in %s\n", path);
    cJSON_Delete(root);
    return 1;
  }
  cts_case c;
  const char *error = NULL;
  int rc = cts_case_load(test, &c, &error);
  if (rc != 0) {
    fprintf(stderr, "vknn-demo: %s: %s\n", path, error);
  } else {
    rc = run_case(device, &c);
    cts_case_free(&c);
  }
  cJSON_Delete(root); /* after the case: its name points into the JSON */
  return rc != 0;
}
