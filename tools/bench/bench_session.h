/* One prepared bench_graph with its request: a random input (fixed seed) and
 * an output pool, both shared memory, reused by every execution. */
#pragma once
#include "bench_graph.h"

typedef struct bench_session {
  vknn_prepared_model *prepared;
  double prepare_ms;
  shared_memory input_pool, output_pool;
  vknn_request_argument input, output;
  vknn_request_pool pools[2];
  vknn_request request;
  size_t output_count; /* elements */
  bool quant8;         /* input and output QUANT8_ASYMM (else float32) */
  bool float16;        /* input and output TENSOR_FLOAT16 */
  uint32_t dispatch_count;
} bench_session;

/* Prepares g's finished model on device and builds the request; 0, or -1
 * with a message (the session then holds nothing). */
int bench_session_open(bench_session *s, vknn_device *device, bench_graph *g);
void bench_session_close(bench_session *s);

/* One execution: its wall time, and the device time the driver measured
 * (time_on_device, NaN when it measured none) when device_ms is not NULL.
 * 0, or -1 with a message. */
int bench_session_execute(bench_session *s, double *wall_ms, double *device_ms);

/* Executions (untimed) until BENCH_WARM_UP_MS have passed, at least one;
 * 0, or -1 with a message. */
int bench_session_warm_up(bench_session *s);

/* The GPU time of the last execution, the sum of its dispatches (needs a
 * device opened with profile_dispatches); times, when not NULL, receives
 * each dispatch's. 0, or -1 with a message. */
int bench_session_dispatch_ms(const bench_session *s, double *times, double *out_total);

/* 0 when every output value is finite (quantized: always), else -1 with a
 * message. */
int bench_session_check_outputs(const bench_session *s);
