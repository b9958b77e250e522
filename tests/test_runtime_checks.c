/* Values that decide addresses, given at execution time, are range-checked
 * by the kernels (docs/architecture.md, "Run-time checks"): per operation, a
 * model whose parameter (or GATHER's indices) is a model input computes the
 * right result with a valid value, fails with INVALID_ARGUMENT with each
 * invalid one, logging the operation and the rule the value broke (a value
 * no shape could take is named before one that leads to a shape other than
 * the declared output), and runs correctly again afterwards on the same prepared
 * model (the status word is reset). The first execution of a memory layout
 * is staged, later ones run in place (zero copy): both paths are checked. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/shared_memory.h"
#include "graph/runtime_check.h"
#include "support/model_builder.h"
#include "support/test_model.h"
#include "vknn/vknn.h"

#define F32 VKNN_OPERAND_TENSOR_FLOAT32
#define I32 VKNN_OPERAND_TENSOR_INT32
#define SLOT 1024 /* bytes per request argument: offsets meet any alignment */
#define MAX_ARGS 5
#define MAX_OUTPUTS 2
#define RULE(name) VKNN_RUNTIME_RULE_##name

typedef struct fixture {
  vknn_device *device;
  test_log log;
} fixture;

static int setup(void **state) {
  fixture *f = calloc(1, sizeof(*f));
  if (f == NULL) return -1;
  *state = f;
  vknn_device_options options = {
      .log_callback = test_log_callback, .log_user_data = &f->log, .enable_validation = true};
  return vknn_device_open(&options, &f->device) == VKNN_STATUS_NONE ? 0 : -1;
}

static int teardown(void **state) {
  fixture *f = *state;
  uint64_t messages = vknn_device_get_validation_message_count(f->device);
  vknn_device_close(f->device);
  free(f);
  return messages == 0 ? 0 : -1;
}

/* A prepared model and a request: model input i at SLOT * i of one pool, the
 * outputs after the inputs (expect_result checks output 0). */
typedef struct runner {
  fixture *f;
  vknn_prepared_model *pm;
  shared_memory pool;
  vknn_request_argument inputs[MAX_ARGS];
  vknn_request_argument outputs[MAX_OUTPUTS];
  vknn_request_pool pools[1];
  vknn_request request;
  const char *operation; /* named in the log of a violation */
} runner;

static void runner_init(fixture *f, runner *r, model_builder *b, const char *operation) {
  memset(r, 0, sizeof(*r));
  r->f = f;
  r->operation = operation;
  assert_int_equal(vknn_device_prepare_model(f->device, mb_finish(b), VKNN_PREFER_FAST_SINGLE_ANSWER,
                                             VKNN_PRIORITY_MEDIUM, NULL, &r->pm),
                   VKNN_STATUS_NONE);
  assert_true(b->output_count <= MAX_OUTPUTS);
  assert_int_equal(shared_memory_create(&r->pool, SLOT * (b->input_count + b->output_count)), 0);
  for (uint32_t i = 0; i < b->input_count; ++i)
    r->inputs[i].location = (vknn_data_location){0, SLOT * i, SLOT};
  for (uint32_t i = 0; i < b->output_count; ++i)
    r->outputs[i].location = (vknn_data_location){0, SLOT * (b->input_count + i), SLOT};
  r->pools[0] = (vknn_request_pool){.kind = VKNN_REQUEST_POOL_MEMORY, .memory = r->pool.memory};
  r->request = (vknn_request){r->inputs, b->input_count, r->outputs, b->output_count, r->pools, 1};
}

static void runner_release(runner *r) {
  vknn_prepared_model_release(r->pm);
  shared_memory_destroy(&r->pool);
}

/* Writes model input i (its request length becomes bytes). */
static void set_input(runner *r, uint32_t i, const void *data, size_t bytes) {
  assert_true(bytes <= SLOT);
  memcpy(r->pool.data + SLOT * i, data, bytes);
  r->inputs[i].location.length = (uint32_t)bytes;
}

static const float *output(const runner *r) {
  return (const float *)(r->pool.data + r->outputs[0].location.offset);
}

static vknn_status execute_sync(runner *r) {
  return vknn_prepared_model_execute(r->pm, &r->request, VKNN_MEASURE_TIMING_NO, NULL, NULL, NULL,
                                     0, NULL);
}

typedef struct completion {
  pthread_mutex_t lock;
  pthread_cond_t cond;
  bool done;
  vknn_status status;
} completion;

static void on_done(void *user_data, vknn_status status, const vknn_output_shape *shapes,
                    uint32_t shape_count, const vknn_timing *timing) {
  (void)shapes, (void)shape_count, (void)timing;
  completion *c = user_data;
  pthread_mutex_lock(&c->lock);
  c->status = status;
  c->done = true;
  pthread_cond_signal(&c->cond);
  pthread_mutex_unlock(&c->lock);
}

static vknn_status execute_async(runner *r) {
  completion c = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false, VKNN_STATUS_NONE};
  vknn_status s = vknn_prepared_model_execute_async(r->pm, &r->request, VKNN_MEASURE_TIMING_NO,
                                                    NULL, NULL, on_done, &c);
  if (s != VKNN_STATUS_NONE) return s;
  pthread_mutex_lock(&c.lock);
  while (!c.done) pthread_cond_wait(&c.cond, &c.lock);
  pthread_mutex_unlock(&c.lock);
  return c.status;
}

static vknn_status execute_fenced(runner *r) {
  int fence = -1;
  vknn_fenced_execution *e = NULL;
  vknn_status s = vknn_prepared_model_execute_fenced(r->pm, &r->request, NULL, 0,
                                                     VKNN_MEASURE_TIMING_NO, NULL, NULL, NULL,
                                                     &fence, &e);
  if (s != VKNN_STATUS_NONE) return s;
  struct pollfd pfd = {.fd = fence, .events = POLLIN};
  if (poll(&pfd, 1, 60000) != 1) fail_msg("the sync fence never signaled");
  s = vknn_fenced_execution_get_info(e, NULL, NULL);
  vknn_fenced_execution_release(e);
  if (fence >= 0) close(fence);
  return s;
}

static vknn_status execute_burst(runner *r) {
  vknn_burst *burst = NULL;
  vknn_status s = vknn_burst_create(r->pm, &burst);
  const int32_t slots[1] = {0};
  if (s == VKNN_STATUS_NONE)
    s = vknn_burst_execute(burst, &r->request, slots, VKNN_MEASURE_TIMING_NO, NULL, NULL, NULL, 0,
                           NULL);
  vknn_burst_release(burst);
  return s;
}

typedef vknn_status (*execute_fn)(runner *r);

/* INVALID_ARGUMENT, with a log line naming the operation and the rule. */
static void expect_violation(runner *r, execute_fn execute, uint32_t rule) {
  r->f->log.last[0] = '\0';
  assert_int_equal(execute(r), VKNN_STATUS_INVALID_ARGUMENT);
  if (!test_log_names_rule(&r->f->log, r->operation, rule))
    fail_msg("log \"%s\" does not name %s and \"%s\"", r->f->log.last, r->operation,
             vknn_runtime_rule_text(rule));
}

static void expect_result(runner *r, execute_fn execute, const float *expected, size_t count) {
  assert_int_equal(execute(r), VKNN_STATUS_NONE);
  for (size_t i = 0; i < count; ++i) assert_float_equal(output(r)[i], expected[i], 0.f);
}

/* One parameter input: each invalid value (count values of `bytes` each)
 * fails, and the valid one gives expected before, between and after them. */
typedef struct param_case {
  uint32_t input;
  size_t bytes;
  const int32_t *valid;
  const int32_t *invalid; /* invalid_count values, one after the other */
  const uint32_t *rules;  /* the rule each breaks */
  uint32_t invalid_count;
  const float *expected;
  size_t expected_count;
} param_case;

static void check_param(runner *r, const param_case *c) {
  size_t words = c->bytes / sizeof(int32_t);
  for (uint32_t k = 0; k < c->invalid_count; ++k) {
    set_input(r, c->input, c->invalid + k * words, c->bytes);
    expect_violation(r, execute_sync, c->rules[k]);
    set_input(r, c->input, c->valid, c->bytes);
    expect_result(r, execute_sync, c->expected, c->expected_count);
  }
}

static void set_iota(runner *r, uint32_t input, uint32_t count, float first) {
  float values[256];
  assert_true(count <= 256);
  for (uint32_t i = 0; i < count; ++i) values[i] = first + (float)i;
  set_input(r, input, values, count * sizeof(float));
}

/* ---- TRANSPOSE ---- */

static void build_transpose(model_builder *b) {
  mb_init(b);
  uint32_t in_dims[2] = {2, 3}, perm_dims[1] = {2}, out_dims[2] = {3, 2};
  uint32_t in = mb_input(b, F32, in_dims, 2), perm = mb_input(b, I32, perm_dims, 1);
  uint32_t out = mb_output(b, F32, out_dims, 2);
  uint32_t inputs[2] = {in, perm};
  mb_operation(b, VKNN_OPERATION_TRANSPOSE, inputs, 2, &out, 1);
}

static const int32_t transpose_valid[2] = {1, 0};
/* Out of range, repeated, the identity (not the declared [3, 2]), negative. */
static const int32_t transpose_invalid[] = {0, 2, 1, 1, 0, 1, -1, 0, 1, 6};
static const uint32_t transpose_rules[] = {RULE(PERM_NOT_PERMUTATION), RULE(PERM_NOT_PERMUTATION),
                                           RULE(SHAPE_MISMATCH), RULE(PERM_NOT_PERMUTATION),
                                           RULE(PERM_NOT_PERMUTATION)};
static const float transpose_expected[6] = {0, 3, 1, 4, 2, 5};

static void test_transpose_perm(void **state) {
  model_builder b;
  runner r;
  build_transpose(&b);
  runner_init(*state, &r, &b, "TRANSPOSE");
  set_iota(&r, 0, 6, 0.f);
  param_case c = {1, 8, transpose_valid, transpose_invalid, transpose_rules, 5, transpose_expected, 6};
  check_param(&r, &c);
  runner_release(&r);
}

/* The asynchronous, fenced and burst paths fail alike, and the next
 * execution on each succeeds. */
static void test_every_path_reports(void **state) {
  model_builder b;
  runner r;
  build_transpose(&b);
  runner_init(*state, &r, &b, "TRANSPOSE");
  set_iota(&r, 0, 6, 0.f);
  const execute_fn paths[] = {execute_async, execute_fenced, execute_burst, execute_sync};
  for (size_t p = 0; p < sizeof(paths) / sizeof(paths[0]); ++p) {
    set_input(&r, 1, transpose_invalid, 8);
    expect_violation(&r, paths[p], RULE(PERM_NOT_PERMUTATION));
    set_input(&r, 1, transpose_valid, 8);
    expect_result(&r, paths[p], transpose_expected, 6);
  }
  vknn_device_statistics stats;
  assert_int_equal(vknn_device_get_statistics(r.f->device, &stats), VKNN_STATUS_NONE);
  assert_true(stats.zero_copy_executions > 0); /* the in-place recording was checked too */
  runner_release(&r);
}

/* ---- GATHER ---- */

static void build_gather(model_builder *b, const int32_t *constant_indices) {
  mb_init(b);
  uint32_t in_dims[2] = {4, 2}, index_dims[1] = {3}, out_dims[2] = {3, 2};
  uint32_t in = mb_input(b, F32, in_dims, 2);
  uint32_t axis = mb_const_i32(b, 0);
  uint32_t indices = constant_indices != NULL
                         ? mb_const_tensor(b, I32, index_dims, 1, constant_indices, 12)
                         : mb_input(b, I32, index_dims, 1);
  uint32_t out = mb_output(b, F32, out_dims, 2);
  uint32_t inputs[3] = {in, axis, indices};
  mb_operation(b, VKNN_OPERATION_GATHER, inputs, 3, &out, 1);
}

static void test_gather_indices(void **state) {
  model_builder b;
  runner r;
  build_gather(&b, NULL);
  runner_init(*state, &r, &b, "GATHER");
  set_iota(&r, 0, 8, 0.f);
  static const int32_t valid[3] = {3, 0, 1};
  static const int32_t invalid[] = {0, 4, 1, -1, 0, 0, 0, 0, INT32_MIN, INT32_MAX, 0, 0};
  static const float expected[6] = {6, 7, 0, 1, 2, 3};
  static const uint32_t rules[] = {RULE(INDEX_OUT_OF_RANGE), RULE(INDEX_OUT_OF_RANGE),
                                   RULE(INDEX_OUT_OF_RANGE), RULE(INDEX_OUT_OF_RANGE)};
  param_case c = {1, 12, valid, invalid, rules, 4, expected, 6};
  check_param(&r, &c);
  runner_release(&r);
}

/* Constant indices out of range are rejected at prepare. */
static void test_gather_constant_indices(void **state) {
  fixture *f = *state;
  model_builder b;
  static const int32_t indices[3] = {0, 4, 1};
  build_gather(&b, indices);
  vknn_prepared_model *pm = NULL;
  assert_int_equal(vknn_device_prepare_model(f->device, mb_finish(&b), VKNN_PREFER_FAST_SINGLE_ANSWER,
                                             VKNN_PRIORITY_MEDIUM, NULL, &pm),
                   VKNN_STATUS_INVALID_ARGUMENT);
  assert_null(pm);
  assert_non_null(strstr(f->log.last, "GATHER: index 4"));
}

/* A model compiled per execution (its data's batch is unknown) binds the
 * status word too: 65 indices are more than the specialization key takes as
 * values, so the kernel reads them. */
static void test_gather_specialized(void **state) {
  model_builder b;
  runner r;
  mb_init(&b);
  uint32_t in_dims[2] = {0, 2}, index_dims[1] = {65}, out_dims[2] = {65, 2};
  uint32_t inputs[3] = {mb_input(&b, F32, in_dims, 2), mb_const_i32(&b, 0),
                        mb_input(&b, I32, index_dims, 1)};
  uint32_t out = mb_output(&b, F32, out_dims, 2);
  mb_operation(&b, VKNN_OPERATION_GATHER, inputs, 3, &out, 1);
  runner_init(*state, &r, &b, "GATHER");
  uint32_t request_dims[2] = {4, 2};
  r.inputs[0].dimensions = request_dims;
  r.inputs[0].dimension_count = 2;
  set_iota(&r, 0, 8, 0.f);
  int32_t valid[65], invalid[65];
  float expected[130];
  for (int i = 0; i < 65; ++i) {
    valid[i] = invalid[i] = i % 4;
    expected[2 * i] = (float)(2 * (i % 4));
    expected[2 * i + 1] = (float)(2 * (i % 4) + 1);
  }
  invalid[64] = 4;
  static const uint32_t rules[] = {RULE(INDEX_OUT_OF_RANGE)};
  param_case c = {1, sizeof(valid), valid, invalid, rules, 1, expected, 130};
  check_param(&r, &c);
  runner_release(&r);
}

/* ---- EMBEDDING_LOOKUP ---- */

/* Rows of a [4, 2] table picked by 3 lookups given at run time: one out of
 * range fails the execution (the reference's error), it never reads past
 * the table. */
static void test_embedding_lookup_indices(void **state) {
  model_builder b;
  runner r;
  mb_init(&b);
  uint32_t lookup_dims[1] = {3}, value_dims[2] = {4, 2}, out_dims[2] = {3, 2};
  uint32_t lookups = mb_input(&b, I32, lookup_dims, 1), values = mb_input(&b, F32, value_dims, 2);
  uint32_t out = mb_output(&b, F32, out_dims, 2);
  uint32_t inputs[2] = {lookups, values};
  mb_operation(&b, VKNN_OPERATION_EMBEDDING_LOOKUP, inputs, 2, &out, 1);
  runner_init(*state, &r, &b, "EMBEDDING_LOOKUP");
  set_iota(&r, 1, 8, 0.f);
  static const int32_t valid[3] = {2, 3, 0};
  static const int32_t invalid[] = {0, 4, 1, -1, 0, 0, INT32_MIN, INT32_MAX, 0};
  static const float expected[6] = {4, 5, 6, 7, 0, 1};
  static const uint32_t rules[] = {RULE(INDEX_OUT_OF_RANGE), RULE(INDEX_OUT_OF_RANGE),
                                   RULE(INDEX_OUT_OF_RANGE)};
  param_case c = {0, 12, valid, invalid, rules, 3, expected, 6};
  check_param(&r, &c);
  runner_release(&r);
}

/* ---- TILE ---- */

static void test_tile_multiples(void **state) {
  model_builder b;
  runner r;
  mb_init(&b);
  uint32_t in_dims[2] = {2, 2}, m_dims[1] = {2}, out_dims[2] = {4, 2};
  uint32_t inputs[2] = {mb_input(&b, F32, in_dims, 2), mb_input(&b, I32, m_dims, 1)};
  uint32_t out = mb_output(&b, F32, out_dims, 2);
  mb_operation(&b, VKNN_OPERATION_TILE, inputs, 2, &out, 1);
  runner_init(*state, &r, &b, "TILE");
  set_iota(&r, 0, 4, 0.f);
  static const int32_t valid[2] = {2, 1};
  /* Swapped, zero, negative, too many. */
  static const int32_t invalid[] = {1, 2, 0, 1, -2, 1, 2, 0, 4, 1};
  static const float expected[8] = {0, 1, 2, 3, 0, 1, 2, 3};
  static const uint32_t rules[] = {RULE(SHAPE_MISMATCH), RULE(MULTIPLE_NOT_POSITIVE),
                                   RULE(MULTIPLE_NOT_POSITIVE), RULE(MULTIPLE_NOT_POSITIVE),
                                   RULE(SHAPE_MISMATCH)};
  param_case c = {1, 8, valid, invalid, rules, 5, expected, 8};
  check_param(&r, &c);
  runner_release(&r);
}

/* ---- FILL, RESHAPE, SQUEEZE: a shape given at run time, the output declared ---- */

/* The declared output is what the kernels write; the shape (or SQUEEZE's
 * axes) the execution gives must lead to that same shape. */
static void test_fill_shape(void **state) {
  model_builder b;
  runner r;
  mb_init(&b);
  const float seven = 7.f;
  uint32_t shape_dims[1] = {2}, out_dims[2] = {2, 3};
  uint32_t inputs[2] = {mb_input(&b, I32, shape_dims, 1),
                        mb_const_tensor(&b, VKNN_OPERAND_FLOAT32, NULL, 0, &seven, sizeof(seven))};
  uint32_t out = mb_output(&b, F32, out_dims, 2);
  mb_operation(&b, VKNN_OPERATION_FILL, inputs, 2, &out, 1);
  runner_init(*state, &r, &b, "FILL");
  static const int32_t valid[2] = {2, 3};
  /* Swapped, larger, negative, zero. */
  static const int32_t invalid[] = {3, 2, 2, 4, -2, 3, 2, 0};
  static const float expected[6] = {7, 7, 7, 7, 7, 7};
  static const uint32_t rules[] = {RULE(SHAPE_MISMATCH), RULE(SHAPE_MISMATCH),
                                   RULE(DIMENSION_NOT_POSITIVE), RULE(DIMENSION_NOT_POSITIVE)};
  param_case c = {0, 8, valid, invalid, rules, 4, expected, 6};
  check_param(&r, &c);
  runner_release(&r);
}

/* The result as a model output (a copy) or as a temporary (a view of the
 * input, read by a RELU). */
static void build_reshape(model_builder *b, bool view) {
  mb_init(b);
  uint32_t in_dims[2] = {2, 3}, shape_dims[1] = {2}, out_dims[2] = {3, 2};
  uint32_t inputs[2] = {mb_input(b, F32, in_dims, 2), mb_input(b, I32, shape_dims, 1)};
  uint32_t out = mb_output(b, F32, out_dims, 2);
  uint32_t reshaped = view ? mb_temporary(b, F32, out_dims, 2) : out;
  mb_operation(b, VKNN_OPERATION_RESHAPE, inputs, 2, &reshaped, 1);
  if (view) mb_operation(b, VKNN_OPERATION_RELU, &reshaped, 1, &out, 1);
}

static void test_reshape_shape(void **state) {
  model_builder b;
  runner r;
  static const float expected[6] = {0, 1, 2, 3, 4, 5};
  /* -1 stands for the dimension the others leave, once. */
  static const int32_t valid[] = {3, 2, -1, 2, 3, -1};
  /* The input's shape, the same elements otherwise, -1 twice, zero, negative. */
  static const int32_t invalid[] = {2, 3, 6, 1, -1, -1, 0, 2, -3, 2};
  static const uint32_t rules[] = {RULE(SHAPE_MISMATCH), RULE(SHAPE_MISMATCH),
                                   RULE(RESHAPE_WILDCARDS), RULE(DIMENSION_NOT_POSITIVE),
                                   RULE(DIMENSION_NOT_POSITIVE)};
  for (int view = 0; view < 2; ++view) {
    build_reshape(&b, view);
    runner_init(*state, &r, &b, "RESHAPE");
    set_iota(&r, 0, 6, 0.f);
    for (uint32_t k = 0; k < 3; ++k) {
      param_case c = {1, 8, valid + 2 * k, invalid, rules, 5, expected, 6};
      check_param(&r, &c);
    }
    runner_release(&r);
  }
}

/* A shape of unknown length: each execution compiles with its value known. */
static void test_reshape_shape_of_unknown_length(void **state) {
  model_builder b;
  runner r;
  build_reshape(&b, false);
  b.dims[b.inputs[1]][0] = 0;
  runner_init(*state, &r, &b, "RESHAPE");
  set_iota(&r, 0, 6, 0.f);
  static const float expected[6] = {0, 1, 2, 3, 4, 5};
  static const int32_t valid[2] = {3, -1}, swapped[2] = {2, 3}, longer[3] = {3, 2, 1};
  uint32_t length = 2;
  r.inputs[1].dimensions = &length;
  r.inputs[1].dimension_count = 1;
  set_input(&r, 1, swapped, sizeof(swapped));
  assert_int_equal(execute_sync(&r), VKNN_STATUS_INVALID_ARGUMENT);
  length = 3;
  set_input(&r, 1, longer, sizeof(longer));
  assert_int_equal(execute_sync(&r), VKNN_STATUS_INVALID_ARGUMENT);
  length = 2;
  set_input(&r, 1, valid, sizeof(valid));
  expect_result(&r, execute_sync, expected, 6);
  runner_release(&r);
}

static void test_squeeze_axes(void **state) {
  model_builder b;
  runner r;
  mb_init(&b);
  uint32_t in_dims[3] = {1, 3, 1}, axes_dims[1] = {1}, out_dims[2] = {3, 1};
  uint32_t inputs[2] = {mb_input(&b, F32, in_dims, 3), mb_input(&b, I32, axes_dims, 1)};
  uint32_t out = mb_output(&b, F32, out_dims, 2);
  mb_operation(&b, VKNN_OPERATION_SQUEEZE, inputs, 2, &out, 1);
  runner_init(*state, &r, &b, "SQUEEZE");
  set_iota(&r, 0, 3, 0.f);
  static const float expected[3] = {0, 1, 2};
  static const int32_t valid[] = {0, -3};
  /* The other axis of size 1 (the result [1, 3]), one of size 3, past the
   * rank either way. */
  static const int32_t invalid[] = {2, 1, 3, -4};
  static const uint32_t rules[] = {RULE(SHAPE_MISMATCH), RULE(SQUEEZED_AXIS_NOT_ONE),
                                   RULE(AXIS_OUT_OF_RANGE), RULE(AXIS_OUT_OF_RANGE)};
  for (uint32_t k = 0; k < 2; ++k) {
    param_case c = {1, 4, valid + k, invalid, rules, 4, expected, 3};
    check_param(&r, &c);
  }
  runner_release(&r);
}

/* ---- SLICE ---- */

static void test_slice_begin_and_size(void **state) {
  model_builder b;
  runner r;
  mb_init(&b);
  uint32_t in_dims[2] = {3, 4}, v_dims[1] = {2}, out_dims[2] = {2, 2};
  uint32_t inputs[3] = {mb_input(&b, F32, in_dims, 2), mb_input(&b, I32, v_dims, 1),
                        mb_input(&b, I32, v_dims, 1)};
  uint32_t out = mb_output(&b, F32, out_dims, 2);
  mb_operation(&b, VKNN_OPERATION_SLICE, inputs, 3, &out, 1);
  runner_init(*state, &r, &b, "SLICE");
  set_iota(&r, 0, 12, 0.f);
  static const float expected[4] = {5, 6, 9, 10};
  static const int32_t begin[2] = {1, 1}, size[2] = {2, 2}, rest[2] = {-1, 2};
  set_input(&r, 2, size, 8);
  /* Past the end, negative, past the end of axis 1, INT32_MAX. */
  static const int32_t bad_begin[] = {2, 1, -1, 0, 1, 3, INT32_MAX, 0};
  static const uint32_t outside[] = {RULE(SLICE_OUT_OF_RANGE), RULE(SLICE_OUT_OF_RANGE),
                                     RULE(SLICE_OUT_OF_RANGE), RULE(SLICE_OUT_OF_RANGE)};
  param_case c = {1, 8, begin, bad_begin, outside, 4, expected, 4};
  check_param(&r, &c);
  /* size -1: the rest of the axis (3 - 1 = 2 rows). */
  set_input(&r, 2, rest, 8);
  expect_result(&r, execute_sync, expected, 4);
  /* Not the declared output's; -1 where the rest is 3 rows; zero. */
  static const int32_t bad_size[] = {2, 3, -2, 2, 0, 2};
  static const uint32_t other_shape[] = {RULE(SHAPE_MISMATCH), RULE(SHAPE_MISMATCH),
                                         RULE(SHAPE_MISMATCH)};
  param_case sizes = {2, 8, size, bad_size, other_shape, 3, expected, 4};
  check_param(&r, &sizes);
  static const int32_t from_top[2] = {0, 1};
  set_input(&r, 1, from_top, 8);
  set_input(&r, 2, rest, 8);
  expect_violation(&r, execute_sync, RULE(SHAPE_MISMATCH));
  runner_release(&r);
}

/* ---- PAD, PAD_V2 ---- */

static void check_pad(fixture *f, bool v2) {
  model_builder b;
  runner r;
  mb_init(&b);
  uint32_t in_dims[2] = {2, 2}, p_dims[2] = {2, 2}, out_dims[2] = {3, 5};
  float nine = 9.f;
  uint32_t inputs[3] = {mb_input(&b, F32, in_dims, 2), mb_input(&b, I32, p_dims, 2), 0};
  if (v2) inputs[2] = mb_const_tensor(&b, VKNN_OPERAND_FLOAT32, NULL, 0, &nine, 4);
  uint32_t out = mb_output(&b, F32, out_dims, 2);
  mb_operation(&b, v2 ? VKNN_OPERATION_PAD_V2 : VKNN_OPERATION_PAD, inputs, v2 ? 3 : 2, &out, 1);
  runner_init(f, &r, &b, v2 ? "PAD_V2" : "PAD");
  set_iota(&r, 0, 4, 1.f);
  static const int32_t valid[4] = {1, 0, 2, 1};
  /* Sums that miss the declared output; negative ones that do not. */
  static const int32_t invalid[] = {0, 1, 1, 1, -1, 2, 2, 1, 4, -3, 2, 1, 1, 0, 4, -1,
                                    INT32_MAX, INT32_MAX, 2, 1};
  float p = v2 ? 9.f : 0.f;
  const float expected[15] = {p, p, p, p, p, p, p, 1, 2, p, p, p, 3, 4, p};
  static const uint32_t rules[] = {RULE(SHAPE_MISMATCH), RULE(PADDING_NEGATIVE),
                                   RULE(PADDING_NEGATIVE), RULE(PADDING_NEGATIVE),
                                   RULE(SHAPE_MISMATCH)};
  param_case c = {1, 16, valid, invalid, rules, 5, expected, 15};
  check_param(&r, &c);
  runner_release(&r);
}

static void test_pad_paddings(void **state) { check_pad(*state, false); }
static void test_pad_v2_paddings(void **state) { check_pad(*state, true); }

/* ---- STRIDED_SLICE ---- */

static void build_strided_slice(model_builder *b, uint32_t in_rows, const uint32_t *out_dims,
                                uint32_t out_rank, int32_t shrink_mask) {
  mb_init(b);
  uint32_t in_dims[2] = {in_rows, 4}, v_dims[1] = {2};
  uint32_t inputs[7] = {mb_input(b, F32, in_dims, 2), mb_input(b, I32, v_dims, 1),
                        mb_input(b, I32, v_dims, 1),  mb_input(b, I32, v_dims, 1),
                        mb_const_i32(b, 0),           mb_const_i32(b, 0),
                        mb_const_i32(b, shrink_mask)};
  uint32_t out = mb_output(b, F32, out_dims, out_rank);
  mb_operation(b, VKNN_OPERATION_STRIDED_SLICE, inputs, 7, &out, 1);
}

static void test_strided_slice_parameters(void **state) {
  model_builder b;
  runner r;
  uint32_t out_dims[2] = {2, 2};
  build_strided_slice(&b, 4, out_dims, 2, 0);
  runner_init(*state, &r, &b, "STRIDED_SLICE");
  set_iota(&r, 0, 16, 0.f);
  static const int32_t begin[2] = {0, 1}, end[2] = {4, 4}, strides[2] = {2, 2};
  set_input(&r, 1, begin, 8);
  set_input(&r, 2, end, 8);
  static const float expected[4] = {1, 3, 9, 11};
  /* Zero, a count of 4 rows, an empty range, INT32_MIN (one row). */
  static const int32_t bad_strides[] = {0, 2, 1, 2, -2, 2, INT32_MIN, 2};
  static const uint32_t stride_rules[] = {RULE(STRIDE_ZERO), RULE(SHAPE_MISMATCH),
                                          RULE(SHAPE_MISMATCH), RULE(SHAPE_MISMATCH)};
  param_case c = {3, 8, strides, bad_strides, stride_rules, 4, expected, 4};
  check_param(&r, &c);
  /* Backwards: rows 3 and 1 (begin -1, end clamped to before row 0). */
  static const int32_t back_begin[2] = {-1, 1}, back_end[2] = {-5, 4}, back_strides[2] = {-2, 2};
  set_input(&r, 1, back_begin, 8);
  set_input(&r, 2, back_end, 8);
  set_input(&r, 3, back_strides, 8);
  static const float backwards[4] = {13, 15, 5, 7};
  expect_result(&r, execute_sync, backwards, 4);
  static const int32_t bad_end[] = {2, 4, 4, 4}; /* one row; none (clamped to row 3) */
  static const uint32_t end_rules[] = {RULE(SHAPE_MISMATCH), RULE(SHAPE_MISMATCH)};
  param_case ends = {2, 8, back_end, bad_end, end_rules, 2, backwards, 4};
  check_param(&r, &ends);
  runner_release(&r);
}

/* A shrunk axis must select exactly one element, its begin, end and
 * stride applied as on any axis (as with constant parameters). */
static void test_strided_slice_shrink_index(void **state) {
  model_builder b;
  runner r;
  uint32_t out_dims[1] = {4};
  build_strided_slice(&b, 3, out_dims, 1, 1);
  runner_init(*state, &r, &b, "STRIDED_SLICE");
  set_iota(&r, 0, 12, 0.f);
  static const int32_t end[2] = {3, 4}, strides[2] = {1, 1};
  set_input(&r, 2, end, 8);
  set_input(&r, 3, strides, 8);
  static const int32_t begin[2] = {-1, 0};
  /* Past the axis (none), before it (clamped to 0: three), the lowest
   * int32 (three), and one inside that selects two (1 to 3). */
  static const int32_t bad_begin[] = {3, 0, -4, 0, INT32_MIN, 0, 1, 0};
  static const float expected[4] = {8, 9, 10, 11};
  static const uint32_t rules[] = {RULE(SHAPE_MISMATCH), RULE(SHAPE_MISMATCH),
                                   RULE(SHAPE_MISMATCH), RULE(SHAPE_MISMATCH)};
  param_case c = {1, 8, begin, bad_begin, rules, 4, expected, 4};
  check_param(&r, &c);
  /* An end that makes the slice empty (row 2 to row 0). */
  static const int32_t bad_end[] = {0, 4};
  param_case ends = {2, 8, end, bad_end, rules, 1, expected, 4};
  check_param(&r, &ends);
  runner_release(&r);
}

/* ---- SPACE_TO_BATCH_ND, BATCH_TO_SPACE_ND ---- */

static void test_space_to_batch_parameters(void **state) {
  model_builder b;
  runner r;
  mb_init(&b);
  uint32_t in_dims[4] = {1, 4, 4, 1}, block_dims[1] = {2}, pad_dims[2] = {2, 2};
  uint32_t out_dims[4] = {4, 2, 2, 1};
  uint32_t inputs[3] = {mb_input(&b, F32, in_dims, 4), mb_input(&b, I32, block_dims, 1),
                        mb_input(&b, I32, pad_dims, 2)};
  uint32_t out = mb_output(&b, F32, out_dims, 4);
  mb_operation(&b, VKNN_OPERATION_SPACE_TO_BATCH_ND, inputs, 3, &out, 1);
  runner_init(*state, &r, &b, "SPACE_TO_BATCH_ND");
  set_iota(&r, 0, 16, 0.f);
  static const int32_t block[2] = {2, 2}, pads[4] = {0, 0, 0, 0};
  set_input(&r, 2, pads, 16);
  static const float expected[16] = {0, 2, 8, 10, 1, 3, 9, 11, 4, 6, 12, 14, 5, 7, 13, 15};
  /* The right area split otherwise, zero, negative, too large. */
  static const int32_t bad_block[] = {1, 4, 4, 1, 0, 2, -2, -2, 65536, 65536};
  static const uint32_t block_rules[] = {RULE(SHAPE_MISMATCH), RULE(SHAPE_MISMATCH),
                                         RULE(BLOCK_NOT_POSITIVE), RULE(BLOCK_NOT_POSITIVE),
                                         RULE(SHAPE_MISMATCH)};
  param_case blocks = {1, 8, block, bad_block, block_rules, 5, expected, 16};
  check_param(&r, &blocks);
  /* Too much padding; negative with the right sum; huge. */
  static const int32_t bad_pads[] = {1, 1, 0, 0, 2, -2, 0, 0, 0, 0, INT32_MAX, INT32_MAX};
  static const uint32_t pad_rules[] = {RULE(SHAPE_MISMATCH), RULE(PADDING_NEGATIVE),
                                       RULE(SHAPE_MISMATCH)};
  param_case paddings = {2, 16, pads, bad_pads, pad_rules, 3, expected, 16};
  check_param(&r, &paddings);
  runner_release(&r);
}

static void test_batch_to_space_block(void **state) {
  model_builder b;
  runner r;
  mb_init(&b);
  uint32_t in_dims[4] = {4, 2, 2, 1}, block_dims[1] = {2}, out_dims[4] = {1, 4, 4, 1};
  uint32_t inputs[2] = {mb_input(&b, F32, in_dims, 4), mb_input(&b, I32, block_dims, 1)};
  uint32_t out = mb_output(&b, F32, out_dims, 4);
  mb_operation(&b, VKNN_OPERATION_BATCH_TO_SPACE_ND, inputs, 2, &out, 1);
  runner_init(*state, &r, &b, "BATCH_TO_SPACE_ND");
  set_iota(&r, 0, 16, 0.f);
  float expected[16];
  for (int y = 0; y < 4; ++y) /* out[y][x] = in[batch (y % 2) * 2 + x % 2][y / 2][x / 2] */
    for (int x = 0; x < 4; ++x)
      expected[y * 4 + x] = (float)(((y % 2) * 2 + x % 2) * 4 + (y / 2) * 2 + x / 2);
  static const int32_t block[2] = {2, 2};
  static const int32_t bad_block[] = {4, 1, 1, 4, 0, 2, 2, 3, -2, -2, INT32_MAX, INT32_MAX};
  static const uint32_t rules[] = {RULE(SHAPE_MISMATCH),     RULE(SHAPE_MISMATCH),
                                   RULE(BLOCK_NOT_POSITIVE), RULE(SHAPE_MISMATCH),
                                   RULE(BLOCK_NOT_POSITIVE), RULE(SHAPE_MISMATCH)};
  param_case c = {1, 8, block, bad_block, rules, 6, expected, 16};
  check_param(&r, &c);
  runner_release(&r);
}

/* Declared outputs the copy kernel's map would not fill exactly, with the
 * parameters given at run time, are refused at prepare: BATCH_TO_SPACE_ND
 * of [4, 2, 2, 1] into [1, 2, 2, 1] (its map of 16 elements wrote 12 past
 * that output) or into [3, 2, 2, 1] (no whole block), STRIDED_SLICE with
 * every axis shrunk into [5] (one element written, four left as they were). */
static void expect_prepare_refused(fixture *f, model_builder *b, const char *log) {
  vknn_prepared_model *pm = NULL;
  assert_int_equal(vknn_device_prepare_model(f->device, mb_finish(b), VKNN_PREFER_FAST_SINGLE_ANSWER,
                                             VKNN_PRIORITY_MEDIUM, NULL, &pm),
                   VKNN_STATUS_INVALID_ARGUMENT);
  assert_null(pm);
  if (strstr(f->log.last, log) == NULL) fail_msg("log \"%s\" lacks \"%s\"", f->log.last, log);
}

static void test_declared_output_fits_the_copy(void **state) {
  fixture *f = *state;
  model_builder *b = calloc(1, sizeof(*b));
  assert_non_null(b);
  const uint32_t in_dims[4] = {4, 2, 2, 1}, block_dims[1] = {2};
  const uint32_t outs[2][4] = {{1, 2, 2, 1}, {3, 2, 2, 1}};
  const char *logs[2] = {"BATCH_TO_SPACE_ND: an output of 2 x 2 cannot hold 4 images of 2 x 2 each",
                         "BATCH_TO_SPACE_ND: batches 4 into 3: not a whole block"};
  for (int i = 0; i < 2; ++i) {
    mb_init(b);
    uint32_t inputs[2] = {mb_input(b, F32, in_dims, 4), mb_input(b, I32, block_dims, 1)};
    uint32_t out = mb_output(b, F32, outs[i], 4);
    mb_operation(b, VKNN_OPERATION_BATCH_TO_SPACE_ND, inputs, 2, &out, 1);
    expect_prepare_refused(f, b, logs[i]);
  }
  /* A shape parameter whose length is not the declared rank. */
  const uint32_t shape_dims[1] = {3}, fill_out[2] = {2, 3};
  mb_init(b);
  uint32_t fill_in[2] = {mb_input(b, I32, shape_dims, 1), mb_const_i32(b, 1)};
  uint32_t fill = mb_output(b, I32, fill_out, 2);
  mb_operation(b, VKNN_OPERATION_FILL, fill_in, 2, &fill, 1);
  expect_prepare_refused(f, b, "FILL: a shape of 3 entries for an output of rank 2");
  build_reshape(b, false);
  b->dims[b->inputs[1]][0] = 3;
  expect_prepare_refused(f, b, "RESHAPE: a shape of 3 entries for an output of rank 2");
  uint32_t five[1] = {5};
  build_strided_slice(b, 3, five, 1, 3);
  expect_prepare_refused(f, b, "every axis shrunk, so the output is [1], not [5]");
  free(b);
}

/* ---- ROI_ALIGN, ROI_POOLING ---- */

/* Features [2, 2, 2, 1] (0..7), one box and its batch index given by the
 * execution; a 1x1 output per box, strides 1. */
static void build_roi(model_builder *b, int32_t op_type) {
  mb_init(b);
  uint32_t in_dims[4] = {2, 2, 2, 1}, box_dims[2] = {1, 4}, batch_dims[1] = {1}, out_dims[4] = {1, 1, 1, 1};
  const float one = 1.f;
  const uint8_t nhwc = 0;
  uint32_t inputs[10] = {mb_input(b, F32, in_dims, 4), mb_input(b, F32, box_dims, 2),
                         mb_input(b, I32, batch_dims, 1), mb_const_i32(b, 1), mb_const_i32(b, 1),
                         mb_const_tensor(b, VKNN_OPERAND_FLOAT32, NULL, 0, &one, sizeof(one)),
                         mb_const_tensor(b, VKNN_OPERAND_FLOAT32, NULL, 0, &one, sizeof(one))};
  uint32_t count = 7;
  if (op_type == VKNN_OPERATION_ROI_ALIGN) {
    inputs[count++] = mb_const_i32(b, 0);
    inputs[count++] = mb_const_i32(b, 0);
  }
  inputs[count++] = mb_const_tensor(b, VKNN_OPERAND_BOOL, NULL, 0, &nhwc, 1);
  uint32_t out = mb_output(b, F32, out_dims, 4);
  mb_operation(b, op_type, inputs, count, &out, 1);
}

/* A batch index out of range and boxes the reference rejects (negative,
 * inverted, past the image) fail; the valid box and batch 1 give the
 * average (ALIGN) or the maximum (POOLING) of batch 1's four values. */
static void check_roi(fixture *f, int32_t op_type, const char *name, float expected) {
  model_builder b;
  runner r;
  build_roi(&b, op_type);
  runner_init(f, &r, &b, name);
  set_iota(&r, 0, 8, 0.f);
  static const float box[4] = {0, 0, 1, 1};
  static const float bad_boxes[][4] = {{-1, 0, 1, 1}, {1, 0, 0, 1}, {0, 1, 1, 0}, {0, 0, 3, 1}, {0, 0, 1, 2.5f}};
  static const uint32_t box_rules[] = {RULE(BOX_OUT_OF_RANGE), RULE(BOX_INVERTED), RULE(BOX_INVERTED),
                                       RULE(BOX_OUT_OF_RANGE), RULE(BOX_OUT_OF_RANGE)};
  static const int32_t batch = 1, bad_batches[] = {2, -1, INT32_MAX};
  set_input(&r, 1, box, sizeof(box));
  for (size_t k = 0; k < sizeof(bad_batches) / sizeof(bad_batches[0]); ++k) {
    set_input(&r, 2, &bad_batches[k], sizeof(int32_t));
    expect_violation(&r, execute_sync, RULE(BATCH_INDEX_OUT_OF_RANGE));
    set_input(&r, 2, &batch, sizeof(batch));
    expect_result(&r, execute_sync, &expected, 1);
  }
  for (size_t k = 0; k < sizeof(bad_boxes) / sizeof(bad_boxes[0]); ++k) {
    set_input(&r, 1, bad_boxes[k], sizeof(box));
    expect_violation(&r, execute_sync, box_rules[k]);
    set_input(&r, 1, box, sizeof(box));
    expect_result(&r, execute_sync, &expected, 1);
  }
  runner_release(&r);
}

static void test_roi_align_boxes(void **state) { check_roi(*state, VKNN_OPERATION_ROI_ALIGN, "ROI_ALIGN", 5.5f); }
static void test_roi_pooling_boxes(void **state) {
  check_roi(*state, VKNN_OPERATION_ROI_POOLING, "ROI_POOLING", 7.f);
}

/* Quantized ROI_ALIGN: a region's requantization multiplier, in_scale / 255
 * / out_scale / samples, must be below 1 (the reference rejects it
 * otherwise), and the adaptive sample count depends on the box. With scales
 * 1/16 and 1/4096 that is 1.004 / samples: below 1 over a box of 4 x 4
 * pixels (16 samples), not over a box of one pixel (1 sample). The features
 * are all zero: the output is its zero point. */
static void test_roi_align_quantized_scale(void **state) {
  model_builder b;
  runner r;
  mb_init(&b);
  uint32_t in_dims[4] = {1, 4, 4, 1}, box_dims[2] = {1, 4}, batch_dims[1] = {1}, out_dims[4] = {1, 1, 1, 1};
  const float one = 1.f;
  const uint8_t nhwc = 0;
  uint32_t inputs[10] = {mb_input(&b, VKNN_OPERAND_TENSOR_QUANT8_ASYMM, in_dims, 4),
                         mb_input(&b, VKNN_OPERAND_TENSOR_QUANT16_ASYMM, box_dims, 2),
                         mb_input(&b, I32, batch_dims, 1), mb_const_i32(&b, 1), mb_const_i32(&b, 1),
                         mb_const_tensor(&b, VKNN_OPERAND_FLOAT32, NULL, 0, &one, sizeof(one)),
                         mb_const_tensor(&b, VKNN_OPERAND_FLOAT32, NULL, 0, &one, sizeof(one)),
                         mb_const_i32(&b, 0), mb_const_i32(&b, 0),
                         mb_const_tensor(&b, VKNN_OPERAND_BOOL, NULL, 0, &nhwc, 1)};
  mb_set_quant(&b, inputs[0], 1.f / 16.f, 0);
  mb_set_quant(&b, inputs[1], 0.125f, 0);
  uint32_t out = mb_output(&b, VKNN_OPERAND_TENSOR_QUANT8_ASYMM, out_dims, 4);
  mb_set_quant(&b, out, 1.f / 4096.f, 100);
  mb_operation(&b, VKNN_OPERATION_ROI_ALIGN, inputs, 10, &out, 1);
  runner_init(*state, &r, &b, "ROI_ALIGN");
  static const uint8_t features[16] = {0};
  static const uint16_t wide[4] = {0, 0, 32, 32}, narrow[4] = {8, 8, 16, 16}; /* in 1/8 pixel */
  static const int32_t batch = 0;
  set_input(&r, 0, features, sizeof(features));
  set_input(&r, 2, &batch, sizeof(batch));
  for (int k = 0; k < 2; ++k) {
    set_input(&r, 1, wide, sizeof(wide));
    assert_int_equal(execute_sync(&r), VKNN_STATUS_NONE);
    assert_int_equal(r.pool.data[r.outputs[0].location.offset], 100);
    set_input(&r, 1, narrow, sizeof(narrow));
    expect_violation(&r, execute_sync, RULE(REGION_SCALE));
  }
  runner_release(&r);
}

/* ---- AXIS_ALIGNED_BBOX_TRANSFORM, HEATMAP_MAX_KEYPOINT ---- */

/* One box [1, 1, 3, 3] of batch 1 (of 2 images, 8x8), zero deltas: the box
 * comes back unchanged; a batch index out of range or an inverted box fails;
 * a box of no width or no height is valid (as the reference has it). */
static void test_bbox_transform_batches(void **state) {
  model_builder b;
  runner r;
  mb_init(&b);
  uint32_t box_dims[2] = {1, 4}, one = 1, image_dims[2] = {2, 2};
  uint32_t inputs[4] = {mb_input(&b, F32, box_dims, 2), mb_input(&b, F32, box_dims, 2),
                        mb_input(&b, I32, &one, 1), mb_input(&b, F32, image_dims, 2)};
  uint32_t out = mb_output(&b, F32, box_dims, 2);
  mb_operation(&b, VKNN_OPERATION_AXIS_ALIGNED_BBOX_TRANSFORM, inputs, 4, &out, 1);
  runner_init(*state, &r, &b, "AXIS_ALIGNED_BBOX_TRANSFORM");
  static const float box[4] = {1, 1, 3, 3}, deltas[4] = {0, 0, 0, 0}, images[4] = {8, 8, 8, 8};
  static const float inverted_boxes[][4] = {{3, 1, 2, 3}, {1, 3, 3, 2}};
  static const float flat_boxes[][4] = {{3, 1, 3, 3}, {1, 2, 3, 2}};
  static const int32_t batch = 1, bad_batches[] = {2, -1};
  set_input(&r, 0, box, sizeof(box));
  set_input(&r, 1, deltas, sizeof(deltas));
  set_input(&r, 3, images, sizeof(images));
  for (size_t k = 0; k < 2; ++k) {
    set_input(&r, 2, &bad_batches[k], sizeof(int32_t));
    expect_violation(&r, execute_sync, RULE(BATCH_INDEX_OUT_OF_RANGE));
    set_input(&r, 2, &batch, sizeof(batch));
    expect_result(&r, execute_sync, box, 4);
    set_input(&r, 0, inverted_boxes[k], sizeof(box));
    expect_violation(&r, execute_sync, RULE(BOX_INVERTED));
    set_input(&r, 0, flat_boxes[k], sizeof(box));
    expect_result(&r, execute_sync, flat_boxes[k], 4);
    set_input(&r, 0, box, sizeof(box));
    expect_result(&r, execute_sync, box, 4);
  }
  runner_release(&r);
}

/* A 2x2 heatmap (one keypoint) peaking at (1, 1) in a box [0, 0, 4, 4]: the
 * mirrored neighbourhood is symmetric, the fit moves nothing, and the score
 * (output 0) is the peak. An inverted box fails. */
static void test_heatmap_boxes(void **state) {
  model_builder b;
  runner r;
  mb_init(&b);
  uint32_t heat_dims[4] = {1, 2, 2, 1}, box_dims[2] = {1, 4}, score_dims[2] = {1, 1}, point_dims[3] = {1, 1, 2};
  const uint8_t nhwc = 0;
  uint32_t inputs[3] = {mb_input(&b, F32, heat_dims, 4), mb_input(&b, F32, box_dims, 2),
                        mb_const_tensor(&b, VKNN_OPERAND_BOOL, NULL, 0, &nhwc, 1)};
  uint32_t outs[2] = {mb_output(&b, F32, score_dims, 2), mb_output(&b, F32, point_dims, 3)};
  mb_operation(&b, VKNN_OPERATION_HEATMAP_MAX_KEYPOINT, inputs, 3, outs, 2);
  runner_init(*state, &r, &b, "HEATMAP_MAX_KEYPOINT");
  static const float heat[4] = {0, 1, 2, 3}, box[4] = {0, 0, 4, 4};
  static const float bad_boxes[][4] = {{4, 0, 0, 4}, {0, 4, 4, 0}};
  static const float peak = 3.f;
  set_input(&r, 0, heat, sizeof(heat));
  set_input(&r, 1, box, sizeof(box));
  expect_result(&r, execute_sync, &peak, 1);
  for (size_t k = 0; k < 2; ++k) {
    set_input(&r, 1, bad_boxes[k], sizeof(box));
    expect_violation(&r, execute_sync, RULE(BOX_INVERTED));
    set_input(&r, 1, box, sizeof(box));
    expect_result(&r, execute_sync, &peak, 1);
  }
  runner_release(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_transpose_perm, setup, teardown),
      cmocka_unit_test_setup_teardown(test_every_path_reports, setup, teardown),
      cmocka_unit_test_setup_teardown(test_gather_indices, setup, teardown),
      cmocka_unit_test_setup_teardown(test_gather_constant_indices, setup, teardown),
      cmocka_unit_test_setup_teardown(test_gather_specialized, setup, teardown),
      cmocka_unit_test_setup_teardown(test_embedding_lookup_indices, setup, teardown),
      cmocka_unit_test_setup_teardown(test_tile_multiples, setup, teardown),
      cmocka_unit_test_setup_teardown(test_fill_shape, setup, teardown),
      cmocka_unit_test_setup_teardown(test_reshape_shape, setup, teardown),
      cmocka_unit_test_setup_teardown(test_reshape_shape_of_unknown_length, setup, teardown),
      cmocka_unit_test_setup_teardown(test_squeeze_axes, setup, teardown),
      cmocka_unit_test_setup_teardown(test_slice_begin_and_size, setup, teardown),
      cmocka_unit_test_setup_teardown(test_pad_paddings, setup, teardown),
      cmocka_unit_test_setup_teardown(test_pad_v2_paddings, setup, teardown),
      cmocka_unit_test_setup_teardown(test_strided_slice_parameters, setup, teardown),
      cmocka_unit_test_setup_teardown(test_strided_slice_shrink_index, setup, teardown),
      cmocka_unit_test_setup_teardown(test_space_to_batch_parameters, setup, teardown),
      cmocka_unit_test_setup_teardown(test_batch_to_space_block, setup, teardown),
      cmocka_unit_test_setup_teardown(test_roi_align_boxes, setup, teardown),
      cmocka_unit_test_setup_teardown(test_roi_pooling_boxes, setup, teardown),
      cmocka_unit_test_setup_teardown(test_roi_align_quantized_scale, setup, teardown),
      cmocka_unit_test_setup_teardown(test_bbox_transform_batches, setup, teardown),
      cmocka_unit_test_setup_teardown(test_heatmap_boxes, setup, teardown),
      cmocka_unit_test_setup_teardown(test_declared_output_fits_the_copy, setup, teardown),
  };
  return cmocka_run_group_tests_name("runtime_checks", tests, NULL, NULL);
}
