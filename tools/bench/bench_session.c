#include "bench_session.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "common/cts_values.h"

static int create_pools(bench_session *s, bench_graph *g) {
  size_t input_count = bench_graph_element_count(g, g->input);
  s->output_count = bench_graph_element_count(g, g->output);
  s->quant8 = g->quant8;
  s->float16 = g->float16 && !g->quant8;
  size_t element = s->quant8 ? 1 : s->float16 ? sizeof(uint16_t) : sizeof(float);
  if (shared_memory_create(&s->input_pool, input_count * element) != 0) return -1;
  if (shared_memory_create(&s->output_pool, s->output_count * element) != 0) {
    shared_memory_destroy(&s->input_pool);
    return -1;
  }
  float *input = (float *)s->input_pool.data;
  for (size_t i = 0; i < input_count; ++i) {
    float v = bench_graph_random(g);
    if (s->quant8) s->input_pool.data[i] = (uint8_t)(128 + (int)(v * 127.f));
    else if (s->float16) ((uint16_t *)(void *)input)[i] = cts_float_to_half(v);
    else input[i] = v;
  }
  s->input = (vknn_request_argument){.location = {0, 0, (uint32_t)(input_count * element)}};
  s->output = (vknn_request_argument){.location = {1, 0, (uint32_t)(s->output_count * element)}};
  s->pools[0] = (vknn_request_pool){.kind = VKNN_REQUEST_POOL_MEMORY, .memory = s->input_pool.memory};
  s->pools[1] = (vknn_request_pool){.kind = VKNN_REQUEST_POOL_MEMORY, .memory = s->output_pool.memory};
  s->request = (vknn_request){&s->input, 1, &s->output, 1, s->pools, 2};
  return 0;
}

int bench_session_open(bench_session *s, vknn_device *device, bench_graph *g) {
  memset(s, 0, sizeof(*s));
  double start = bench_now_ms();
  vknn_status status = vknn_device_prepare_model(device, &g->model, VKNN_PREFER_SUSTAINED_SPEED,
                                                 VKNN_PRIORITY_MEDIUM, NULL, &s->prepared);
  s->prepare_ms = bench_now_ms() - start;
  if (status != VKNN_STATUS_NONE) {
    fprintf(stderr, "vknn-bench: prepare failed: %s\n", vknn_status_name(status));
    return -1;
  }
  vknn_prepared_model_info info;
  vknn_prepared_model_get_info(s->prepared, &info);
  s->dispatch_count = info.dispatch_count;
  if (create_pools(s, g) != 0) {
    fprintf(stderr, "vknn-bench: no shared memory for the request\n");
    vknn_prepared_model_release(s->prepared);
    s->prepared = NULL;
    return -1;
  }
  return 0;
}

void bench_session_close(bench_session *s) {
  if (s->prepared == NULL) return;
  vknn_prepared_model_release(s->prepared);
  shared_memory_destroy(&s->input_pool);
  shared_memory_destroy(&s->output_pool);
  memset(s, 0, sizeof(*s));
}

int bench_session_execute(bench_session *s, double *wall_ms, double *device_ms) {
  vknn_timing timing;
  double start = bench_now_ms();
  vknn_status status = vknn_prepared_model_execute(
      s->prepared, &s->request, device_ms ? VKNN_MEASURE_TIMING_YES : VKNN_MEASURE_TIMING_NO,
      NULL, NULL, NULL, 0, &timing);
  *wall_ms = bench_now_ms() - start;
  if (status != VKNN_STATUS_NONE) {
    fprintf(stderr, "vknn-bench: execute failed: %s\n", vknn_status_name(status));
    return -1;
  }
  if (device_ms != NULL)
    *device_ms = timing.time_on_device == UINT64_MAX ? NAN : (double)timing.time_on_device * 1e-3;
  return 0;
}

int bench_session_warm_up(bench_session *s) {
  double start = bench_now_ms(), wall;
  do {
    if (bench_session_execute(s, &wall, NULL) != 0) return -1;
  } while (bench_now_ms() - start < BENCH_WARM_UP_MS);
  return 0;
}

int bench_session_dispatch_ms(const bench_session *s, double *times, double *out_total) {
  double *own = times ? times : calloc(s->dispatch_count ? s->dispatch_count : 1, sizeof(double));
  vknn_status status = own ? vknn_prepared_model_get_dispatch_times(s->prepared, own, s->dispatch_count)
                           : VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  *out_total = 0.0;
  for (uint32_t i = 0; status == VKNN_STATUS_NONE && i < s->dispatch_count; ++i) *out_total += own[i];
  if (own != times) free(own);
  if (status == VKNN_STATUS_NONE) return 0;
  fprintf(stderr, "vknn-bench: no per-dispatch GPU times: %s\n", vknn_status_name(status));
  return -1;
}

int bench_session_check_outputs(const bench_session *s) {
  if (s->quant8) return 0; /* every byte is a value */
  if (!s->float16) return bench_check_finite("output", (const float *)s->output_pool.data, s->output_count);
  float *values = malloc(s->output_count * sizeof(float) + 1);
  if (values == NULL) return -1;
  const uint16_t *halves = (const uint16_t *)(const void *)s->output_pool.data;
  for (size_t i = 0; i < s->output_count; ++i) values[i] = cts_half_to_float(halves[i]);
  int rc = bench_check_finite("output", values, s->output_count);
  free(values);
  return rc;
}
