/* vknn-bench loop: what IF and WHILE cost beyond the operations they run.
 *
 *   vknn-bench loop [--iterations N] [--loop L] [--json FILE]
 *
 * Three models over one [1] float x (wall times, host round trips included):
 *   execution  x + 1 as a plain model: one execution of one operation, and
 *              the mean of L executions back to back, which a loop of L
 *              iterations is best compared with
 *   while      while x < limit: x = x + 1, with limit = 1 (one iteration) and
 *              limit = 1 + L; one iteration costs the difference / L
 *   if         IF(c, x + 1, x + 1): a condition read and one branch
 * The first two alternate in N rounds (after one warm-up round), so that
 * they see the same load; each figure is the median over the rounds.
 * docs/perf.md ("Control flow") records the figures and the capabilities
 * derived from them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "bench_verbs.h"
#include "common/shared_memory.h"

static const uint32_t kOne[1] = {1};

#define TENSOR(t, life) {.type = (t), .dimension_count = 1, .dimensions = kOne, .lifetime = (life)}
#define INPUT(t) TENSOR(t, VKNN_LIFETIME_SUBGRAPH_INPUT)
#define OUTPUT(t) TENSOR(t, VKNN_LIFETIME_SUBGRAPH_OUTPUT)
#define REFERENCE(index) \
  {.type = VKNN_OPERAND_SUBGRAPH, .lifetime = VKNN_LIFETIME_SUBGRAPH, .location = {0, (index), 0}, \
   .number_of_consumers = 1}

/* operand_values: 1.0f at 0, INT32 0 (no activation) at 4. */
static const uint8_t kValues[8] = {0x00, 0x00, 0x80, 0x3f, 0, 0, 0, 0};
#define CONST_ONE                                                                            \
  {.type = VKNN_OPERAND_TENSOR_FLOAT32, .dimension_count = 1, .dimensions = kOne,            \
   .number_of_consumers = 1, .lifetime = VKNN_LIFETIME_CONSTANT_COPY, .location = {0, 0, 4}}
#define CONST_NO_ACTIVATION                                                                 \
  {.type = VKNN_OPERAND_INT32, .number_of_consumers = 1,                                    \
   .lifetime = VKNN_LIFETIME_CONSTANT_COPY, .location = {0, 4, 4}}

/* x + 1, the limit (input 1) unread: the WHILE body, and the plain model. */
static const vknn_operand kAddOperands[5] = {
    {.type = VKNN_OPERAND_TENSOR_FLOAT32, .dimension_count = 1, .dimensions = kOne,
     .lifetime = VKNN_LIFETIME_SUBGRAPH_INPUT, .number_of_consumers = 1},
    INPUT(VKNN_OPERAND_TENSOR_FLOAT32), OUTPUT(VKNN_OPERAND_TENSOR_FLOAT32), CONST_ONE,
    CONST_NO_ACTIVATION};
static const uint32_t kAddIn[3] = {0, 3, 4}, kAddOut[1] = {2};
static const vknn_operation kAdd = {VKNN_OPERATION_ADD, kAddIn, 3, kAddOut, 1};
static const uint32_t kTwoInputs[2] = {0, 1}, kOutput2[1] = {2};
/* Macros, not constants, where another static initializer takes them whole
 * (a const object is no constant expression in C). */
#define ADD_SUBGRAPH {kAddOperands, 5, &kAdd, 1, kTwoInputs, 2, kOutput2, 1}
static const vknn_subgraph kAddSubgraph = ADD_SUBGRAPH;

/* x < limit. */
static const vknn_operand kLessOperands[3] = {
    {.type = VKNN_OPERAND_TENSOR_FLOAT32, .dimension_count = 1, .dimensions = kOne,
     .lifetime = VKNN_LIFETIME_SUBGRAPH_INPUT, .number_of_consumers = 1},
    {.type = VKNN_OPERAND_TENSOR_FLOAT32, .dimension_count = 1, .dimensions = kOne,
     .lifetime = VKNN_LIFETIME_SUBGRAPH_INPUT, .number_of_consumers = 1},
    OUTPUT(VKNN_OPERAND_TENSOR_BOOL8)};
static const vknn_operation kLess = {VKNN_OPERATION_LESS, kTwoInputs, 2, kOutput2, 1};
#define LESS_SUBGRAPH {kLessOperands, 3, &kLess, 1, kTwoInputs, 2, kOutput2, 1}

/* WHILE(cond = 0, body = 1, x, limit). */
static const vknn_operand kWhileOperands[5] = {
    REFERENCE(0), REFERENCE(1),
    {.type = VKNN_OPERAND_TENSOR_FLOAT32, .dimension_count = 1, .dimensions = kOne,
     .lifetime = VKNN_LIFETIME_SUBGRAPH_INPUT, .number_of_consumers = 1},
    {.type = VKNN_OPERAND_TENSOR_FLOAT32, .dimension_count = 1, .dimensions = kOne,
     .lifetime = VKNN_LIFETIME_SUBGRAPH_INPUT, .number_of_consumers = 1},
    OUTPUT(VKNN_OPERAND_TENSOR_FLOAT32)};
static const uint32_t kWhileIn[4] = {0, 1, 2, 3}, kWhileInputs[2] = {2, 3}, kOutput4[1] = {4};
static const vknn_operation kWhile = {VKNN_OPERATION_WHILE, kWhileIn, 4, kOutput4, 1};
static const vknn_subgraph kWhileReferenced[2] = {LESS_SUBGRAPH, ADD_SUBGRAPH};

/* IF(c, then = 0, else = 0, x) with the branch x + 1 (input 1 dropped). */
static const vknn_operand kBranchOperands[4] = {
    {.type = VKNN_OPERAND_TENSOR_FLOAT32, .dimension_count = 1, .dimensions = kOne,
     .lifetime = VKNN_LIFETIME_SUBGRAPH_INPUT, .number_of_consumers = 1},
    OUTPUT(VKNN_OPERAND_TENSOR_FLOAT32), CONST_ONE, CONST_NO_ACTIVATION};
static const uint32_t kBranchIn[3] = {0, 2, 3}, kBranchInputs[1] = {0}, kOutput1[1] = {1};
static const vknn_operation kBranchAdd = {VKNN_OPERATION_ADD, kBranchIn, 3, kOutput1, 1};
static const vknn_subgraph kBranch = {kBranchOperands, 4, &kBranchAdd, 1, kBranchInputs, 1, kOutput1, 1};
static const vknn_operand kIfOperands[4] = {
    {.type = VKNN_OPERAND_TENSOR_BOOL8, .dimension_count = 1, .dimensions = kOne,
     .lifetime = VKNN_LIFETIME_SUBGRAPH_INPUT, .number_of_consumers = 1},
    {.type = VKNN_OPERAND_SUBGRAPH, .lifetime = VKNN_LIFETIME_SUBGRAPH, .number_of_consumers = 2},
    {.type = VKNN_OPERAND_TENSOR_FLOAT32, .dimension_count = 1, .dimensions = kOne,
     .lifetime = VKNN_LIFETIME_SUBGRAPH_INPUT, .number_of_consumers = 1},
    OUTPUT(VKNN_OPERAND_TENSOR_FLOAT32)};
static const uint32_t kIfIn[4] = {0, 1, 1, 2}, kIfInputs[2] = {2, 0}, kOutput3[1] = {3};
static const vknn_operation kIf = {VKNN_OPERATION_IF, kIfIn, 4, kOutput3, 1};

static vknn_model model_of(vknn_subgraph main, const vknn_subgraph *referenced, uint32_t count) {
  return (vknn_model){.main = main, .referenced = referenced, .referenced_count = count,
                      .operand_values = kValues, .operand_values_size = sizeof(kValues)};
}

typedef struct loop_bench {
  vknn_device *device;
  shared_memory pool; /* inputs at 0 and 64, the output at 128 */
  vknn_request_argument inputs[2], output;
  vknn_request_pool request_pool;
  vknn_request request;
  int iterations;
} loop_bench;

static void set_inputs(loop_bench *b, float x, float second) {
  ((float *)b->pool.data)[0] = x;
  memcpy(b->pool.data + 64, &second, sizeof(second));
}

static vknn_status prepare(loop_bench *b, const vknn_model *model, vknn_prepared_model **pm) {
  return vknn_device_prepare_model(b->device, model, VKNN_PREFER_FAST_SINGLE_ANSWER,
                                   VKNN_PRIORITY_MEDIUM, NULL, pm);
}

/* Wall time of count executions back to back, in microseconds; the output
 * must then be expected. */
static vknn_status time_us(loop_bench *b, vknn_prepared_model *pm, int count, float expected,
                           double *out_us) {
  const vknn_duration timeout = {true, VKNN_LOOP_TIMEOUT_MAXIMUM_NS};
  vknn_status s = VKNN_STATUS_NONE;
  double start = bench_now_ms();
  for (int i = 0; i < count && s == VKNN_STATUS_NONE; ++i)
    s = vknn_prepared_model_execute(pm, &b->request, VKNN_MEASURE_TIMING_NO, NULL, &timeout, NULL, 0, NULL);
  *out_us = (bench_now_ms() - start) * 1000.0;
  if (s == VKNN_STATUS_NONE && *(float *)(b->pool.data + 128) != expected) s = VKNN_STATUS_GENERAL_FAILURE;
  return s;
}

typedef struct loop_result {
  double execution_us, execution_series_us, while_one_us, while_long_us, while_iteration_us, if_us;
} loop_result;

/* Per round, under the same load: one plain execution, L of them back to
 * back, the loop of 1 and of 1 + L iterations. */
typedef struct round_times {
  double *single, *series, *one, *longer, *iteration;
} round_times;

static vknn_status run_round(loop_bench *b, vknn_prepared_model *plain, vknn_prepared_model *loops,
                             int loop, int i, round_times *t) {
  set_inputs(b, 0.f, 0.f);
  vknn_status s = time_us(b, plain, 1, 1.f, &t->single[i]);
  if (s == VKNN_STATUS_NONE) s = time_us(b, plain, loop, 1.f, &t->series[i]);
  t->series[i] /= loop;
  set_inputs(b, 0.f, 1.f);
  if (s == VKNN_STATUS_NONE) s = time_us(b, loops, 1, 1.f, &t->one[i]);
  set_inputs(b, 0.f, (float)(1 + loop));
  if (s == VKNN_STATUS_NONE) s = time_us(b, loops, 1, (float)(1 + loop), &t->longer[i]);
  t->iteration[i] = (t->longer[i] - t->one[i]) / loop;
  return s;
}

static vknn_status measure_loop(loop_bench *b, int loop, loop_result *r) {
  vknn_model plain_model = model_of(kAddSubgraph, NULL, 0);
  vknn_model loop_model = model_of(
      (vknn_subgraph){kWhileOperands, 5, &kWhile, 1, kWhileInputs, 2, kOutput4, 1}, kWhileReferenced, 2);
  vknn_prepared_model *plain = NULL, *loops = NULL;
  size_t n = (size_t)b->iterations;
  double *all = calloc(5 * n, sizeof(double));
  round_times t = {all, all + n, all + 2 * n, all + 3 * n, all + 4 * n};
  vknn_status s = all != NULL ? prepare(b, &plain_model, &plain) : VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  if (s == VKNN_STATUS_NONE) s = prepare(b, &loop_model, &loops);
  /* Round 0 is the warm-up (first-use costs): not counted. */
  for (int i = 0; i <= b->iterations && s == VKNN_STATUS_NONE; ++i)
    s = run_round(b, plain, loops, loop, i == 0 ? 0 : i - 1, &t);
  if (s == VKNN_STATUS_NONE) {
    r->execution_us = bench_quantile(t.single, n, 0.5);
    r->execution_series_us = bench_quantile(t.series, n, 0.5);
    r->while_one_us = bench_quantile(t.one, n, 0.5);
    r->while_long_us = bench_quantile(t.longer, n, 0.5);
    r->while_iteration_us = bench_quantile(t.iteration, n, 0.5);
  }
  vknn_prepared_model_release(plain);
  vknn_prepared_model_release(loops);
  free(all);
  return s;
}

static vknn_status measure_if(loop_bench *b, loop_result *r) {
  vknn_model model = model_of((vknn_subgraph){kIfOperands, 4, &kIf, 1, kIfInputs, 2, kOutput3, 1}, &kBranch, 1);
  vknn_prepared_model *pm = NULL;
  double *times = calloc((size_t)b->iterations + 1, sizeof(double));
  set_inputs(b, 0.f, 0.f);
  uint8_t condition = 1;
  memcpy(b->pool.data + 64, &condition, 1);
  vknn_status s = times != NULL ? prepare(b, &model, &pm) : VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  for (int i = 0; i <= b->iterations && s == VKNN_STATUS_NONE; ++i)
    s = time_us(b, pm, 1, 1.f, &times[i == 0 ? 0 : i - 1]);
  if (s == VKNN_STATUS_NONE) r->if_us = bench_quantile(times, (size_t)b->iterations, 0.5);
  vknn_prepared_model_release(pm);
  free(times);
  return s;
}

static int measure(loop_bench *b, int loop, loop_result *r) {
  vknn_status s = measure_loop(b, loop, r);
  if (s == VKNN_STATUS_NONE) s = measure_if(b, r);
  if (s != VKNN_STATUS_NONE) fprintf(stderr, "vknn-bench loop: %s\n", vknn_status_name(s));
  return s == VKNN_STATUS_NONE ? 0 : -1;
}

static int write_json(const loop_result *r, int loop, const char *path) {
  cJSON *root = cJSON_CreateObject();
  cJSON_AddNumberToObject(root, "loop", loop);
  cJSON_AddNumberToObject(root, "execution_us", r->execution_us);
  cJSON_AddNumberToObject(root, "execution_series_us", r->execution_series_us);
  cJSON_AddNumberToObject(root, "while_one_iteration_us", r->while_one_us);
  cJSON_AddNumberToObject(root, "while_long_us", r->while_long_us);
  cJSON_AddNumberToObject(root, "while_iteration_us", r->while_iteration_us);
  cJSON_AddNumberToObject(root, "if_us", r->if_us);
  int rc = bench_write_json(root, path);
  cJSON_Delete(root);
  return rc;
}

static int parse_args(int argc, char **argv, int *iterations, int *loop, const char **json) {
  *iterations = 20;
  *loop = 200;
  *json = NULL;
  if (argc % 2 != 1) return -1;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--iterations") == 0) {
      if (bench_parse_count(argv[i], argv[i + 1], iterations) != 0) return -1;
    } else if (strcmp(argv[i], "--loop") == 0) {
      if (bench_parse_count(argv[i], argv[i + 1], loop) != 0) return -1;
    } else if (strcmp(argv[i], "--json") == 0) {
      *json = argv[i + 1];
    } else {
      return -1;
    }
  }
  return 0;
}

static int open_bench(loop_bench *b, const char **device_name) {
  if (shared_memory_create(&b->pool, 256) != 0) return -1;
  b->request_pool = (vknn_request_pool){.kind = VKNN_REQUEST_POOL_MEMORY, .memory = b->pool.memory};
  b->inputs[0].location = (vknn_data_location){0, 0, 4};
  b->inputs[1].location = (vknn_data_location){0, 64, 4};
  b->output.location = (vknn_data_location){0, 128, 4};
  b->request = (vknn_request){b->inputs, 2, &b->output, 1, &b->request_pool, 1};
  return bench_open_device(false, &b->device, device_name);
}

int bench_loop_main(int argc, char **argv) {
  loop_bench b = {0};
  int loop = 0;
  const char *json = NULL;
  if (parse_args(argc, argv, &b.iterations, &loop, &json) != 0) return 2;
  const char *device_name = "";
  if (open_bench(&b, &device_name) != 0) {
    shared_memory_destroy(&b.pool);
    return 1;
  }
  loop_result r;
  int rc = measure(&b, loop, &r) != 0;
  if (rc == 0) {
    printf("device:          %s\n", device_name);
    printf("execution:       %.1f us (x + 1, one operation, median of %d; %.1f us each in a "
           "series of %d)\n", r.execution_us, b.iterations, r.execution_series_us, loop);
    printf("WHILE iteration: %.1f us (%d iterations %.1f us, one %.1f us)\n", r.while_iteration_us,
           loop + 1, r.while_long_us, r.while_one_us);
    printf("IF:              %.1f us (condition read and one branch of x + 1)\n", r.if_us);
  }
  if (rc == 0 && json != NULL) rc = write_json(&r, loop, json) != 0;
  if (bench_check_validation(b.device) != 0) rc = 1;
  vknn_device_close(b.device);
  shared_memory_destroy(&b.pool);
  return rc;
}
