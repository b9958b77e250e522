/* vknn-bench kernel, recurrent cells: one LSTM step and a long
 * UNIDIRECTIONAL_SEQUENCE_LSTM, built through the public API with random
 * weights and states (constants, fixed seed) and a random input.
 *
 *   lstm_step  LSTM, batch 1, 512 units, input 512, projection to 256
 *   lstm_seq   UNIDIRECTIONAL_SEQUENCE_LSTM, 1000 time-major steps of batch 1,
 *              input 64, 64 units, no projection
 *
 * Reports the median GPU time (the sum of the dispatches, from per-dispatch
 * timestamps), the median wall time of an execution, the dispatch count,
 * and GFLOP/s over the GPU time (2 * the multiply-adds of the matrix
 * products). docs/perf.md ("Recurrent cells") records the figures. */
#include "bench_kernel_lstm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "bench_session.h"

#define SEED 20240601u
#define MAX_INPUTS 28

typedef struct lstm_kernel {
  const char *name;
  int32_t type;
  uint32_t steps, batches, input, units, output; /* output != units: a projection */
} lstm_kernel;

static const lstm_kernel kernels[] = {
    {"lstm_step", VKNN_OPERATION_LSTM, 1, 1, 512, 512, 256},
    {"lstm_seq", VKNN_OPERATION_UNIDIRECTIONAL_SEQUENCE_LSTM, 1000, 1, 64, 64, 64},
};
#define KERNEL_COUNT (sizeof(kernels) / sizeof(kernels[0]))

static const lstm_kernel *find_kernel(const char *name) {
  for (size_t i = 0; i < KERNEL_COUNT; ++i)
    if (strcmp(kernels[i].name, name) == 0) return &kernels[i];
  return NULL;
}

bool bench_kernel_lstm_known(const char *name) { return find_kernel(name) != NULL; }

/* The operation, whose inputs and outputs exceed what bench_graph's
 * operations hold: its own arrays, put into the model after it is built. */
typedef struct lstm_model {
  bench_graph g;
  uint32_t inputs[MAX_INPUTS], input_count;
  uint32_t outputs[4], output_count;
  vknn_operation operation;
} lstm_model;

static uint32_t omitted(bench_graph *g) {
  const uint32_t one = 1;
  uint32_t i = bench_graph_tensor(g, &one, 1);
  if (i < g->operand_count) g->operands[i].operand.lifetime = VKNN_LIFETIME_NO_VALUE;
  return i;
}

static uint32_t random_matrix(bench_graph *g, uint32_t rows, uint32_t cols) {
  const uint32_t dims[2] = {rows, cols};
  return bench_graph_random_tensor(g, dims, 2, 0.1f);
}

static uint32_t random_vector(bench_graph *g, uint32_t n) {
  return bench_graph_random_tensor(g, &n, 1, 0.1f);
}

/* Inputs 1-22 of both operations: the gates' weights and biases, no
 * peepholes, the projection when output != units, the states, tanh, no
 * clipping. */
static void cell_inputs(lstm_model *m, const lstm_kernel *k) {
  bench_graph *g = &m->g;
  uint32_t *in = m->inputs;
  bool projected = k->output != k->units;
  const uint32_t h[2] = {k->batches, k->output}, c[2] = {k->batches, k->units};
  for (uint32_t gate = 0; gate < 4; ++gate) {
    in[1 + gate] = random_matrix(g, k->units, k->input);
    in[5 + gate] = random_matrix(g, k->units, k->output);
    in[12 + gate] = random_vector(g, k->units);
  }
  for (uint32_t i = 9; i < 12; ++i) in[i] = omitted(g);
  in[16] = projected ? random_matrix(g, k->output, k->units) : omitted(g);
  in[17] = projected ? random_vector(g, k->output) : omitted(g);
  in[18] = bench_graph_random_tensor(g, h, 2, 0.5f);
  in[19] = bench_graph_random_tensor(g, c, 2, 0.5f);
  in[20] = bench_graph_int32(g, 4);
  in[21] = bench_graph_float32(g, 0.f);
  in[22] = bench_graph_float32(g, 0.f);
}

static int build_model(lstm_model *m, const lstm_kernel *k) {
  bench_graph *g = &m->g;
  bool sequence = k->type == VKNN_OPERATION_UNIDIRECTIONAL_SEQUENCE_LSTM;
  const uint32_t x_step[2] = {k->batches, k->input}, x_seq[3] = {k->steps, k->batches, k->input};
  const uint32_t y_seq[3] = {k->steps, k->batches, k->output}, h[2] = {k->batches, k->output},
                 c[2] = {k->batches, k->units}, scratch[2] = {k->batches, 4 * k->units};
  bench_graph_init(g, SEED);
  m->inputs[0] = sequence ? bench_graph_input(g, x_seq, 3) : bench_graph_input(g, x_step, 2);
  cell_inputs(m, k);
  m->input_count = 23;
  if (sequence) {
    m->inputs[23] = bench_graph_bool(g, true); /* time-major */
    for (uint32_t i = 24; i < 28; ++i) m->inputs[i] = omitted(g);
    m->input_count = 28;
    m->outputs[0] = bench_graph_tensor(g, y_seq, 3);
    m->output_count = 1;
  } else {
    m->outputs[0] = bench_graph_tensor(g, scratch, 2);
    m->outputs[1] = bench_graph_tensor(g, h, 2);
    m->outputs[2] = bench_graph_tensor(g, c, 2);
    m->outputs[3] = bench_graph_tensor(g, h, 2);
    m->output_count = 4;
  }
  if (g->failed) return -1;
  for (uint32_t i = 0; i < m->input_count; ++i) g->operands[m->inputs[i]].operand.number_of_consumers++;
  uint32_t result = m->outputs[m->output_count - 1];
  if (bench_graph_finish(g, result, false) != 0) return -1;
  m->operation = (vknn_operation){k->type, m->inputs, m->input_count, m->outputs, m->output_count};
  g->model.main.operations = &m->operation;
  g->model.main.operation_count = 1;
  return 0;
}

/* Multiply-adds of the matrix products: per step the input and recurrent
 * products of the four gates and the projection. */
static double lstm_macs(const lstm_kernel *k) {
  double per_row = 4.0 * k->units * (k->input + k->output);
  if (k->output != k->units) per_row += (double)k->output * k->units;
  return per_row * k->batches * k->steps;
}

#define SHOWN_DISPATCHES 6

typedef struct lstm_result {
  double prepare_ms, gpu_median_ms, gpu_p90_ms, wall_median_ms;
  uint32_t dispatch_count;
  /* The kernels of the first dispatches, and their GPU times in the last
   * execution (a step's dispatches, after the input projection). */
  const char *kernels[SHOWN_DISPATCHES];
  double dispatch_ms[SHOWN_DISPATCHES];
} lstm_result;

/* Execution -1 warms up (its outputs checked, its time dropped); the
 * outputs of the last are checked again. */
static int time_lstm(bench_session *s, int iterations, lstm_result *r) {
  double *times = calloc(2 * (size_t)iterations, sizeof(double));
  if (times == NULL) return -1;
  double *gpu = times, *wall = times + iterations, warm_up;
  int rc = 0;
  for (int i = -1; rc == 0 && i < iterations; ++i) {
    rc = bench_session_execute(s, i < 0 ? &warm_up : &wall[i], NULL);
    if (rc == 0 && i >= 0) rc = bench_session_dispatch_ms(s, NULL, &gpu[i]);
    if (rc == 0 && (i < 0 || i + 1 == iterations)) rc = bench_session_check_outputs(s);
  }
  r->gpu_median_ms = bench_quantile(gpu, (size_t)iterations, 0.5);
  r->gpu_p90_ms = bench_quantile(gpu, (size_t)iterations, 0.9);
  r->wall_median_ms = bench_quantile(wall, (size_t)iterations, 0.5);
  free(times);
  return rc;
}

static int last_dispatches(const bench_session *s, lstm_result *r) {
  double *times = calloc(s->dispatch_count, sizeof(double)), total;
  int rc = times != NULL ? bench_session_dispatch_ms(s, times, &total) : -1;
  for (uint32_t i = 0; rc == 0 && i < SHOWN_DISPATCHES && i < s->dispatch_count; ++i) {
    r->kernels[i] = vknn_prepared_model_get_dispatch_kernel(s->prepared, i);
    r->dispatch_ms[i] = times[i];
  }
  free(times);
  return rc;
}

static int run_lstm(vknn_device *device, const lstm_kernel *k, int iterations, lstm_result *r) {
  lstm_model *m = calloc(1, sizeof(*m));
  if (m == NULL) return 1;
  bench_session s = {0};
  int rc = build_model(m, k);
  if (rc == 0) rc = bench_session_open(&s, device, &m->g);
  if (rc == 0) {
    r->prepare_ms = s.prepare_ms;
    r->dispatch_count = s.dispatch_count;
    rc = time_lstm(&s, iterations, r);
  }
  if (rc == 0) rc = last_dispatches(&s, r);
  bench_session_close(&s);
  bench_graph_free(&m->g);
  free(m);
  return rc == 0 ? 0 : 1;
}

static cJSON *lstm_report(const lstm_kernel *k, const char *device_name, int iterations,
                          const lstm_result *r) {
  cJSON *root = cJSON_CreateObject();
  cJSON_AddStringToObject(root, "device", device_name);
  cJSON_AddNumberToObject(root, "iterations", iterations);
  cJSON *j = cJSON_CreateObject();
  cJSON_AddStringToObject(j, "name", k->name);
  cJSON_AddNumberToObject(j, "steps", k->steps);
  cJSON_AddNumberToObject(j, "batches", k->batches);
  cJSON_AddNumberToObject(j, "input", k->input);
  cJSON_AddNumberToObject(j, "units", k->units);
  cJSON_AddNumberToObject(j, "output", k->output);
  cJSON_AddNumberToObject(j, "dispatches", r->dispatch_count);
  cJSON_AddNumberToObject(j, "macs", lstm_macs(k));
  cJSON_AddNumberToObject(j, "prepare_ms", r->prepare_ms);
  cJSON *gpu = cJSON_AddObjectToObject(j, "gpu_ms");
  cJSON_AddNumberToObject(gpu, "median", r->gpu_median_ms);
  cJSON_AddNumberToObject(gpu, "p90", r->gpu_p90_ms);
  cJSON_AddNumberToObject(j, "execute_wall_median_ms", r->wall_median_ms);
  cJSON_AddNumberToObject(j, "gflops", 2.0 * lstm_macs(k) / (r->gpu_median_ms * 1e6));
  cJSON_AddItemToArray(cJSON_AddArrayToObject(root, "kernels"), j);
  return root;
}

static int parse_lstm_options(int argc, char **argv, int *iterations, const char **json_path) {
  *iterations = 20;
  *json_path = NULL;
  for (int i = 2; i < argc; ++i) {
    bool has_value = i + 1 < argc;
    if (strcmp(argv[i], "--json") == 0 && has_value) *json_path = argv[++i];
    else if (strcmp(argv[i], "--iterations") == 0 && has_value) {
      if (bench_parse_count(argv[i], argv[i + 1], iterations) != 0) return -1;
      ++i;
    } else {
      return -1;
    }
  }
  return 0;
}

int bench_kernel_lstm_main(int argc, char **argv) {
  const lstm_kernel *k = argc >= 2 ? find_kernel(argv[1]) : NULL;
  int iterations;
  const char *json_path;
  if (k == NULL || parse_lstm_options(argc, argv, &iterations, &json_path) != 0) return 2;
  vknn_device *device = NULL;
  const char *device_name = "";
  if (bench_open_device(true, &device, &device_name) != 0) return 1;
  printf("device: %s\nfloat32, %d iterations, median GPU time = sum of the operation's "
         "dispatches\n", device_name, iterations);
  lstm_result r = {0};
  int rc = run_lstm(device, k, iterations, &r);
  if (rc == 0) {
    printf("%-10s %5s %5s %5s %5s %5s %5s %9s %11s %11s %11s %9s\n", "kernel", "steps", "batch",
           "input", "units", "out", "disp", "MMACs", "GPU med ms", "GPU p90 ms", "wall med ms",
           "GFLOP/s");
    printf("%-10s %5u %5u %5u %5u %5u %5u %9.3f %11.4f %11.4f %11.4f %9.2f\n", k->name, k->steps,
           k->batches, k->input, k->units, k->output, r.dispatch_count, lstm_macs(k) * 1e-6,
           r.gpu_median_ms, r.gpu_p90_ms, r.wall_median_ms,
           2.0 * lstm_macs(k) / (r.gpu_median_ms * 1e6));
    printf("first dispatches (GPU ms, last execution):");
    for (uint32_t i = 0; i < SHOWN_DISPATCHES && r.kernels[i] != NULL; ++i)
      printf(" %s %.4f", r.kernels[i], r.dispatch_ms[i]);
    printf("\n");
  }
  if (rc == 0 && bench_check_validation(device) != 0) rc = 1;
  if (rc == 0 && json_path != NULL) {
    cJSON *root = lstm_report(k, device_name, iterations, &r);
    if (bench_write_json(root, json_path) != 0) rc = 1;
    cJSON_Delete(root);
  }
  vknn_device_close(device);
  return rc;
}
