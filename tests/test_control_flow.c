/* IF and WHILE: branches and loops over referenced subgraphs, shapes that
 * change from one iteration to the next, the loop timeout, and the rules
 * that reject a model. */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/shared_memory.h"
#include "graph/runtime_check.h"
#include "runtime/control_flow.h"
#include "support/model_builder.h"
#include "support/test_model.h"
#include "vknn/vknn.h"

#define F32 VKNN_OPERAND_TENSOR_FLOAT32
#define I32 VKNN_OPERAND_TENSOR_INT32
#define BOOL8 VKNN_OPERAND_TENSOR_BOOL8

static const uint32_t kOne[1] = {1};
static const uint32_t kUnknown[1] = {0};

typedef struct fixture {
  vknn_device *device;
  test_log log;
  shared_memory pool;
  /* The model: main and up to four referenced subgraphs. */
  model_builder main;
  model_builder sub[4];
  vknn_subgraph referenced[4];
  const vknn_model *model;
  vknn_prepared_model *pm;
  /* A request in pool: inputs at 0, 64, 128, 192; outputs at 512, 1024. */
  vknn_request_argument inputs[4];
  vknn_request_argument outputs[2];
  vknn_request_pool pools[2];
  vknn_request request;
  vknn_output_shape shapes[2];
} fixture;

static int setup(void **state) {
  fixture *f = calloc(1, sizeof(*f));
  if (f == NULL) return -1;
  vknn_device_options options = {.enable_validation = true,
                                 .log_callback = test_log_callback,
                                 .log_user_data = &f->log};
  if (vknn_device_open(&options, &f->device) != VKNN_STATUS_NONE) return -1;
  if (shared_memory_create(&f->pool, 4096) != 0) return -1;
  mb_init(&f->main);
  for (int i = 0; i < 4; ++i) {
    mb_init(&f->sub[i]);
    f->sub[i].values_owner = &f->main;
  }
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fixture *f = *state;
  vknn_prepared_model_release(f->pm);
  uint64_t messages = vknn_device_get_validation_message_count(f->device);
  vknn_device_close(f->device);
  shared_memory_destroy(&f->pool);
  free(f);
  return messages == 0 ? 0 : -1;
}

static void finish(fixture *f, uint32_t subgraph_count) {
  f->model = mb_finish_referencing(&f->main, f->sub, subgraph_count, f->referenced);
}

static void prepare(fixture *f) {
  assert_int_equal(vknn_device_prepare_model(f->device, f->model, VKNN_PREFER_FAST_SINGLE_ANSWER,
                                             VKNN_PRIORITY_MEDIUM, NULL, &f->pm),
                   VKNN_STATUS_NONE);
}

/* The request: input i of in_bytes[i] bytes at 64 i, output j at 512 (j + 1). */
static void make_request(fixture *f, const uint32_t *in_bytes, uint32_t in_count,
                         uint32_t out_count) {
  f->pools[0] = (vknn_request_pool){.kind = VKNN_REQUEST_POOL_MEMORY, .memory = f->pool.memory};
  for (uint32_t i = 0; i < in_count; ++i)
    f->inputs[i] = (vknn_request_argument){.location = {0, 64 * i, in_bytes[i]}};
  for (uint32_t j = 0; j < out_count; ++j)
    f->outputs[j] = (vknn_request_argument){.location = {0, 512 * (j + 1), 512}};
  f->request = (vknn_request){f->inputs, in_count, f->outputs, out_count, f->pools, 1};
}

static void *input_at(fixture *f, uint32_t i) { return f->pool.data + 64 * i; }
static float *output_f32(fixture *f, uint32_t j) { return (float *)(f->pool.data + 512 * (j + 1)); }

static vknn_status execute_with(fixture *f, const vknn_deadline *deadline, uint64_t loop_timeout_ns) {
  vknn_duration timeout = {loop_timeout_ns > 0, loop_timeout_ns};
  return vknn_prepared_model_execute(f->pm, &f->request, VKNN_MEASURE_TIMING_YES, deadline,
                                     &timeout, f->shapes, 2, NULL);
}

static vknn_status execute(fixture *f) { return execute_with(f, NULL, 0); }

static vknn_device_statistics statistics(fixture *f) {
  vknn_device_statistics s;
  assert_int_equal(vknn_device_get_statistics(f->device, &s), VKNN_STATUS_NONE);
  return s;
}

static uint32_t const_f32(model_builder *b, float value) {
  return mb_const_tensor(b, F32, kOne, 1, &value, sizeof(value));
}

static uint32_t const_i32(model_builder *b, int32_t value) {
  return mb_const_tensor(b, I32, kOne, 1, &value, sizeof(value));
}

/* out = x + 1 (then) or x * 2 (else): one input, one output. */
static void branch(model_builder *b, int32_t operation, float operand) {
  uint32_t x = mb_input(b, F32, kOne, 1);
  uint32_t c = const_f32(b, operand), act = mb_const_i32(b, 0);
  uint32_t out = mb_output(b, F32, kOne, 1);
  mb_operation(b, operation, (uint32_t[]){x, c, act}, 3, &out, 1);
}

/* cond(loop values...) = counter < limit, where the counter and the limit are
 * the loop's inputs counter_input and limit_input. */
static void counter_condition(model_builder *b, const int32_t *types, uint32_t count,
                              uint32_t counter_input, uint32_t limit_input, int32_t compare) {
  uint32_t in[4];
  for (uint32_t i = 0; i < count; ++i)
    in[i] = mb_input(b, types[i], types[i] == F32 && i == 0 ? kUnknown : kOne, 1);
  uint32_t c = mb_output(b, BOOL8, kOne, 1);
  mb_operation(b, compare, (uint32_t[]){in[counter_input], in[limit_input]}, 2, &c, 1);
}

/* ---- IF inside WHILE --------------------------------------------------- */

/* x = 1; for i in [0, n): x = i < half ? x + 1 : x * 2. */
static void build_if_inside_while(fixture *f) {
  model_builder *m = &f->main, *cond = &f->sub[0], *body = &f->sub[1];
  uint32_t x = mb_input(m, F32, kOne, 1), n = mb_input(m, I32, kOne, 1);
  uint32_t half = mb_input(m, I32, kOne, 1);
  uint32_t i0 = const_i32(m, 0), cs = mb_subgraph(m, 0), bs = mb_subgraph(m, 1);
  uint32_t out = mb_output(m, F32, kOne, 1);
  mb_operation(m, VKNN_OPERATION_WHILE, (uint32_t[]){cs, bs, x, i0, n, half}, 6, &out, 1);

  uint32_t cx = mb_input(cond, F32, kOne, 1), ci = mb_input(cond, I32, kOne, 1);
  uint32_t cn = mb_input(cond, I32, kOne, 1);
  (void)mb_input(cond, I32, kOne, 1);
  (void)cx;
  uint32_t c = mb_output(cond, BOOL8, kOne, 1);
  mb_operation(cond, VKNN_OPERATION_LESS, (uint32_t[]){ci, cn}, 2, &c, 1);

  uint32_t bx = mb_input(body, F32, kOne, 1), bi = mb_input(body, I32, kOne, 1);
  (void)mb_input(body, I32, kOne, 1);
  uint32_t bh = mb_input(body, I32, kOne, 1);
  uint32_t x1 = mb_output(body, F32, kOne, 1), i1 = mb_output(body, I32, kOne, 1);
  uint32_t small = mb_temporary(body, BOOL8, kOne, 1);
  uint32_t then_sg = mb_subgraph(body, 2), else_sg = mb_subgraph(body, 3);
  uint32_t one = const_i32(body, 1), act = mb_const_i32(body, 0);
  mb_operation(body, VKNN_OPERATION_LESS, (uint32_t[]){bi, bh}, 2, &small, 1);
  mb_operation(body, VKNN_OPERATION_IF, (uint32_t[]){small, then_sg, else_sg, bx}, 4, &x1, 1);
  mb_operation(body, VKNN_OPERATION_ADD, (uint32_t[]){bi, one, act}, 3, &i1, 1);

  branch(&f->sub[2], VKNN_OPERATION_ADD, 1.f);
  branch(&f->sub[3], VKNN_OPERATION_MUL, 2.f);
  finish(f, 4);
}

static void run_if_inside_while(fixture *f, int32_t n, float expected) {
  *(float *)input_at(f, 0) = 1.f;
  *(int32_t *)input_at(f, 1) = n;
  *(int32_t *)input_at(f, 2) = 2;
  assert_int_equal(execute(f), VKNN_STATUS_NONE);
  assert_float_equal(*output_f32(f, 0), expected, 0.f);
  assert_int_equal(f->shapes[0].rank, 1);
  assert_int_equal(f->shapes[0].dimensions[0], 1);
}

static void test_if_inside_while(void **state) {
  fixture *f = *state;
  build_if_inside_while(f);
  bool supported[1] = {false};
  assert_int_equal(vknn_device_get_supported_operations(f->device, f->model, supported, 1),
                   VKNN_STATUS_NONE);
  assert_true(supported[0]);
  prepare(f);
  make_request(f, (uint32_t[]){4, 4, 4}, 3, 1);
  run_if_inside_while(f, 4, 12.f); /* 1 -> 2 -> 3 -> 6 -> 12 */
  run_if_inside_while(f, 0, 1.f);  /* no iteration */
  run_if_inside_while(f, 1, 2.f);
}

/* ---- A body whose output grows ------------------------------------------ */

/* y = [x]; for i in [0, n): y = concat(y, [7]). y's shape changes every
 * iteration; each shape is recorded once and kept. The WHILE's output is
 * declared out_dims. */
static void build_growing_declared(fixture *f, const uint32_t *out_dims) {
  model_builder *m = &f->main, *cond = &f->sub[0], *body = &f->sub[1];
  uint32_t x = mb_input(m, F32, kOne, 1), n = mb_input(m, I32, kOne, 1);
  uint32_t i0 = const_i32(m, 0), cs = mb_subgraph(m, 0), bs = mb_subgraph(m, 1);
  uint32_t out = mb_output(m, F32, out_dims, 1);
  mb_operation(m, VKNN_OPERATION_WHILE, (uint32_t[]){cs, bs, x, i0, n}, 5, &out, 1);

  counter_condition(cond, (int32_t[]){F32, I32, I32}, 3, 1, 2, VKNN_OPERATION_LESS);

  uint32_t by = mb_input(body, F32, kUnknown, 1), bi = mb_input(body, I32, kOne, 1);
  (void)mb_input(body, I32, kOne, 1);
  uint32_t y1 = mb_output(body, F32, kUnknown, 1), i1 = mb_output(body, I32, kOne, 1);
  uint32_t seven = const_f32(body, 7.f), axis = mb_const_i32(body, 0);
  uint32_t one = const_i32(body, 1), act = mb_const_i32(body, 0);
  mb_operation(body, VKNN_OPERATION_CONCATENATION, (uint32_t[]){by, seven, axis}, 3, &y1, 1);
  mb_operation(body, VKNN_OPERATION_ADD, (uint32_t[]){bi, one, act}, 3, &i1, 1);
  finish(f, 2);
}

/* The WHILE's output of open size, as its value grows. */
static void build_growing(fixture *f) { build_growing_declared(f, kUnknown); }

static void run_growing(fixture *f, int32_t n) {
  *(float *)input_at(f, 0) = 1.f;
  *(int32_t *)input_at(f, 1) = n;
  assert_int_equal(execute(f), VKNN_STATUS_NONE);
  assert_int_equal(f->shapes[0].rank, 1);
  assert_int_equal(f->shapes[0].dimensions[0], (uint32_t)n + 1);
  assert_float_equal(output_f32(f, 0)[0], 1.f, 0.f);
  for (int32_t k = 1; k <= n; ++k) assert_float_equal(output_f32(f, 0)[k], 7.f, 0.f);
}

static void test_body_output_grows(void **state) {
  fixture *f = *state;
  build_growing(f);
  prepare(f);
  make_request(f, (uint32_t[]){4, 4}, 2, 1);
  run_growing(f, 5);
  uint64_t recorded = statistics(f).command_buffers_recorded;
  run_growing(f, 5); /* every shape seen: nothing recorded */
  run_growing(f, 3);
  assert_int_equal(statistics(f).command_buffers_recorded, recorded);
  /* Too little room: the needed shape is reported. */
  f->outputs[0].location.length = 8;
  *(int32_t *)input_at(f, 1) = 4;
  assert_int_equal(execute(f), VKNN_STATUS_OUTPUT_INSUFFICIENT_SIZE);
  assert_false(f->shapes[0].is_sufficient);
  assert_int_equal(f->shapes[0].dimensions[0], 5);
}

/* ---- Conditions: a model input, a value computed from a driver buffer ---- */

/* out = IF c THEN x + 1 ELSE x * 2, the model finished. */
static void finish_if(fixture *f, uint32_t c, uint32_t x) {
  model_builder *m = &f->main;
  uint32_t then_sg = mb_subgraph(m, 0), else_sg = mb_subgraph(m, 1);
  uint32_t out = mb_output(m, F32, kOne, 1);
  mb_operation(m, VKNN_OPERATION_IF, (uint32_t[]){c, then_sg, else_sg, x}, 4, &out, 1);
  branch(&f->sub[0], VKNN_OPERATION_ADD, 1.f);
  branch(&f->sub[1], VKNN_OPERATION_MUL, 2.f);
  finish(f, 2);
}

static void build_if(fixture *f, bool condition_is_input) {
  model_builder *m = &f->main;
  uint32_t c = condition_is_input ? mb_input(m, BOOL8, kOne, 1) : 0;
  uint32_t x = mb_input(m, F32, kOne, 1);
  if (!condition_is_input) { /* c = x > 0 */
    c = mb_temporary(m, BOOL8, kOne, 1);
    mb_operation(m, VKNN_OPERATION_GREATER, (uint32_t[]){x, const_f32(m, 0.f)}, 2, &c, 1);
  }
  finish_if(f, c, x);
}

static void test_condition_is_model_input(void **state) {
  fixture *f = *state;
  build_if(f, true);
  prepare(f);
  make_request(f, (uint32_t[]){1, 4}, 2, 1);
  *(float *)input_at(f, 1) = 5.f;
  *(uint8_t *)input_at(f, 0) = 1;
  assert_int_equal(execute(f), VKNN_STATUS_NONE);
  assert_float_equal(*output_f32(f, 0), 6.f, 0.f);
  *(uint8_t *)input_at(f, 0) = 0;
  assert_int_equal(execute(f), VKNN_STATUS_NONE);
  assert_float_equal(*output_f32(f, 0), 10.f, 0.f);
}

/* Only constants an IF or WHILE reads directly stay in host memory: the
 * branches' constants live in their segments' own models (every constant
 * of every subgraph was copied, loop-body weights held twice). */
static void test_host_keeps_only_control_flow_constants(void **state) {
  fixture *f = *state;
  model_builder *m = &f->main;
  uint32_t x = mb_input(m, F32, kOne, 1);
  uint8_t yes = 1;
  finish_if(f, mb_const_tensor(m, BOOL8, kOne, 1, &yes, sizeof(yes)), x);
  prepare(f);
  assert_non_null(f->pm->control_flow);
  assert_int_equal(vknn_control_flow_host_constant_bytes(f->pm->control_flow), sizeof(yes));
  make_request(f, (uint32_t[]){4}, 1, 1);
  *(float *)input_at(f, 0) = 5.f;
  assert_int_equal(execute(f), VKNN_STATUS_NONE);
  assert_float_equal(*output_f32(f, 0), 6.f, 0.f);
}

static void test_condition_from_driver_buffer(void **state) {
  fixture *f = *state;
  build_if(f, false);
  prepare(f);
  const vknn_buffer_role role = {0, 0, 1.f};
  vknn_buffer *buffer = NULL;
  uint32_t token = 0;
  assert_int_equal(vknn_device_allocate(f->device, NULL, 0, &f->pm, 1, &role, 1, NULL, 0, &buffer,
                                        &token),
                   VKNN_STATUS_NONE);
  shared_memory value;
  assert_int_equal(shared_memory_create(&value, 4), 0);
  make_request(f, (uint32_t[]){0}, 1, 1);
  f->inputs[0].location = (vknn_data_location){1, 0, 0};
  f->pools[1] = (vknn_request_pool){.kind = VKNN_REQUEST_POOL_TOKEN, .token = token};
  f->request.pool_count = 2;
  const float xs[2] = {3.f, -3.f}, expected[2] = {4.f, -6.f};
  for (int k = 0; k < 2; ++k) {
    *(float *)value.data = xs[k];
    assert_int_equal(vknn_buffer_copy_from(buffer, &value.memory, kOne, 1), VKNN_STATUS_NONE);
    assert_int_equal(execute(f), VKNN_STATUS_NONE);
    assert_float_equal(*output_f32(f, 0), expected[k], 0.f);
  }
  shared_memory_destroy(&value);
  vknn_buffer_release(buffer);
}

/* ---- Timeouts and long loops ------------------------------------------- */

/* x = start; while x < limit: x = x + 1. With limit = inf it never ends
 * (x stops growing at 2^24). */
static void build_counting(fixture *f) {
  model_builder *m = &f->main, *cond = &f->sub[0], *body = &f->sub[1];
  uint32_t x = mb_input(m, F32, kOne, 1), limit = mb_input(m, F32, kOne, 1);
  uint32_t cs = mb_subgraph(m, 0), bs = mb_subgraph(m, 1);
  uint32_t out = mb_output(m, F32, kOne, 1);
  mb_operation(m, VKNN_OPERATION_WHILE, (uint32_t[]){cs, bs, x, limit}, 4, &out, 1);
  uint32_t cx = mb_input(cond, F32, kOne, 1), cl = mb_input(cond, F32, kOne, 1);
  uint32_t c = mb_output(cond, BOOL8, kOne, 1);
  mb_operation(cond, VKNN_OPERATION_LESS, (uint32_t[]){cx, cl}, 2, &c, 1);
  uint32_t bx = mb_input(body, F32, kOne, 1);
  (void)mb_input(body, F32, kOne, 1);
  uint32_t x1 = mb_output(body, F32, kOne, 1);
  mb_operation(body, VKNN_OPERATION_ADD, (uint32_t[]){bx, const_f32(body, 1.f), mb_const_i32(body, 0)},
               3, &x1, 1);
  finish(f, 2);
  prepare(f);
  make_request(f, (uint32_t[]){4, 4}, 2, 1);
}

static void set_counting(fixture *f, float limit) {
  *(float *)input_at(f, 0) = 0.f;
  *(float *)input_at(f, 1) = limit;
}

static void test_infinite_loop_times_out(void **state) {
  fixture *f = *state;
  build_counting(f);
  set_counting(f, INFINITY);
  uint64_t start = test_boottime_ns();
  assert_int_equal(execute_with(f, NULL, 1000000), VKNN_STATUS_MISSED_DEADLINE_TRANSIENT);
  /* The 1 ms timeout, not the 2 s default, ended it (the bound is loose on purpose). */
  assert_true(test_boottime_ns() - start < 1000000000ull);
  assert_non_null(strstr(f->log.last, "loop timeout"));
  /* A deadline is checked between iterations too. It must still lie ahead
   * when the execution starts (else it is MISSED_DEADLINE_PERSISTENT at
   * once): later each try on a busy machine. */
  vknn_status s = VKNN_STATUS_MISSED_DEADLINE_PERSISTENT;
  for (uint64_t ms = 5; ms <= 320 && s == VKNN_STATUS_MISSED_DEADLINE_PERSISTENT; ms *= 2) {
    vknn_deadline soon = {true, test_boottime_ns() + ms * 1000000ull};
    s = execute_with(f, &soon, VKNN_LOOP_TIMEOUT_MAXIMUM_NS);
  }
  assert_int_equal(s, VKNN_STATUS_MISSED_DEADLINE_TRANSIENT);
  /* The device and the prepared model still work. */
  set_counting(f, 3.f);
  assert_int_equal(execute_with(f, NULL, 1000000000), VKNN_STATUS_NONE);
  assert_float_equal(*output_f32(f, 0), 3.f, 0.f);
}

/* The HAL caps a loop at 15 s: sanitizer builds, several times slower, run
 * fewer iterations so that the cap does not end the loop. */
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define LONG_LOOP 2000.f
#else
#define LONG_LOOP 10000.f
#endif

static void test_ten_thousand_iterations(void **state) {
  fixture *f = *state;
  build_counting(f);
  set_counting(f, 10.f);
  assert_int_equal(execute(f), VKNN_STATUS_NONE);
  vknn_device_statistics before = statistics(f);
  set_counting(f, LONG_LOOP);
  assert_int_equal(execute_with(f, NULL, VKNN_LOOP_TIMEOUT_MAXIMUM_NS), VKNN_STATUS_NONE);
  assert_float_equal(*output_f32(f, 0), LONG_LOOP, 0.f);
  /* Nothing recorded and no instance added: the loop reuses what it has
   * (host allocations are checked by the sanitizer builds). */
  vknn_device_statistics after = statistics(f);
  assert_int_equal(after.command_buffers_recorded, before.command_buffers_recorded);
  assert_int_equal(after.graph_instances, before.graph_instances);
}

/* ---- Values out of range, found by the kernels --------------------------- */

/* The execution fails with INVALID_ARGUMENT, the log naming the operation
 * where the caller's model has it ("operation N of subgraph S (GATHER)",
 * "operation N (GATHER)" in the main subgraph), not by its place in the
 * segment that ran it, and the rule. */
static void expect_gather_index_logged(fixture *f, const char *operation) {
  f->log.last[0] = '\0';
  assert_int_equal(execute(f), VKNN_STATUS_INVALID_ARGUMENT);
  char named[64];
  snprintf(named, sizeof(named), "%s (GATHER): ", operation);
  if (strstr(f->log.last, named) == NULL ||
      !test_log_names_rule(&f->log, "GATHER", VKNN_RUNTIME_RULE_INDEX_OUT_OF_RANGE))
    fail_msg("logged \"%s\", not %s's index", f->log.last, operation);
}

/* out = GATHER(x, 0, index), after a RELU of x when relu. */
static void gather_branch(model_builder *b, bool relu) {
  const uint32_t three[1] = {3};
  uint32_t x = mb_input(b, F32, three, 1), index = mb_input(b, I32, kOne, 1);
  uint32_t out = mb_output(b, F32, kOne, 1);
  if (relu) {
    uint32_t r = mb_temporary(b, F32, three, 1);
    mb_operation(b, VKNN_OPERATION_RELU, &x, 1, &r, 1);
    x = r;
  }
  mb_operation(b, VKNN_OPERATION_GATHER, (uint32_t[]){x, mb_const_i32(b, 0), index}, 3, &out, 1);
}

/* y = IF c THEN GATHER(RELU(x), 0, i) ELSE GATHER(x, 0, i); z = GATHER(x,
 * 0, j) after the IF (the main subgraph's operation 1, the first of its
 * segment). An index out of range in either branch or after the IF. */
static void test_index_out_of_range_in_a_branch(void **state) {
  fixture *f = *state;
  model_builder *m = &f->main;
  const uint32_t three[1] = {3};
  uint32_t c = mb_input(m, BOOL8, kOne, 1), x = mb_input(m, F32, three, 1);
  uint32_t i = mb_input(m, I32, kOne, 1), j = mb_input(m, I32, kOne, 1);
  uint32_t y = mb_output(m, F32, kOne, 1), z = mb_output(m, F32, kOne, 1);
  mb_operation(m, VKNN_OPERATION_IF, (uint32_t[]){c, mb_subgraph(m, 0), mb_subgraph(m, 1), x, i}, 5,
               &y, 1);
  mb_operation(m, VKNN_OPERATION_GATHER, (uint32_t[]){x, mb_const_i32(m, 0), j}, 3, &z, 1);
  gather_branch(&f->sub[0], true);
  gather_branch(&f->sub[1], false);
  finish(f, 2);
  prepare(f);
  make_request(f, (uint32_t[]){1, 12, 4, 4}, 4, 2);
  const float values[3] = {-1.f, 2.f, -3.f};
  memcpy(input_at(f, 1), values, sizeof(values));
  *(uint8_t *)input_at(f, 0) = 1;
  *(int32_t *)input_at(f, 2) = 0;
  *(int32_t *)input_at(f, 3) = 2;
  assert_int_equal(execute(f), VKNN_STATUS_NONE);
  assert_float_equal(*output_f32(f, 0), 0.f, 0.f); /* RELU(-1) */
  assert_float_equal(*output_f32(f, 1), -3.f, 0.f);
  *(int32_t *)input_at(f, 2) = 3;
  expect_gather_index_logged(f, "operation 1 of subgraph 1");
  *(uint8_t *)input_at(f, 0) = 0;
  *(int32_t *)input_at(f, 2) = -1;
  expect_gather_index_logged(f, "operation 0 of subgraph 2");
  *(int32_t *)input_at(f, 2) = 1;
  *(int32_t *)input_at(f, 3) = 3;
  expect_gather_index_logged(f, "operation 1");
}

/* i = start; while i < GATHER(limits, 0, i): i = i + 1, limits = [3, 3]:
 * the condition's GATHER reads index i, out of range once i reaches 2,
 * whether the condition runs alone (the first test: start 2) or after the
 * body in the loop's one segment (start 0; the condition's operations come
 * after the body's there). */
static void test_index_out_of_range_in_a_loop(void **state) {
  fixture *f = *state;
  model_builder *m = &f->main, *cond = &f->sub[0], *body = &f->sub[1];
  uint32_t start = mb_input(m, I32, kOne, 1), out = mb_output(m, I32, kOne, 1);
  mb_operation(m, VKNN_OPERATION_WHILE, (uint32_t[]){mb_subgraph(m, 0), mb_subgraph(m, 1), start}, 3,
               &out, 1);
  const uint32_t two[1] = {2};
  const int32_t limits[2] = {3, 3};
  uint32_t ci = mb_input(cond, I32, kOne, 1), limit = mb_temporary(cond, I32, kOne, 1);
  uint32_t go_on = mb_output(cond, BOOL8, kOne, 1);
  uint32_t table = mb_const_tensor(cond, I32, two, 1, limits, sizeof(limits));
  mb_operation(cond, VKNN_OPERATION_GATHER, (uint32_t[]){table, mb_const_i32(cond, 0), ci}, 3, &limit, 1);
  mb_operation(cond, VKNN_OPERATION_LESS, (uint32_t[]){ci, limit}, 2, &go_on, 1);
  uint32_t bi = mb_input(body, I32, kOne, 1), next = mb_output(body, I32, kOne, 1);
  mb_operation(body, VKNN_OPERATION_ADD, (uint32_t[]){bi, const_i32(body, 1), mb_const_i32(body, 0)}, 3,
               &next, 1);
  finish(f, 2);
  prepare(f);
  make_request(f, (uint32_t[]){4}, 1, 1);
  *(int32_t *)input_at(f, 0) = 2;
  expect_gather_index_logged(f, "operation 0 of subgraph 1");
  *(int32_t *)input_at(f, 0) = 0;
  expect_gather_index_logged(f, "operation 0 of subgraph 1");
}

/* ---- Rejected and unsupported models ------------------------------------ */

/* main -> IF over 0 -> IF over 1 -> IF over 0: a cycle through two subgraphs. */
static void test_cycle_rejected(void **state) {
  fixture *f = *state;
  model_builder *m = &f->main;
  uint32_t c = mb_input(m, BOOL8, kOne, 1), x = mb_input(m, F32, kOne, 1);
  uint32_t out = mb_output(m, F32, kOne, 1);
  mb_operation(m, VKNN_OPERATION_IF, (uint32_t[]){c, mb_subgraph(m, 0), mb_subgraph(m, 0), c, x},
               5, &out, 1);
  for (uint32_t s = 0; s < 2; ++s) {
    model_builder *b = &f->sub[s];
    uint32_t bc = mb_input(b, BOOL8, kOne, 1), bx = mb_input(b, F32, kOne, 1);
    uint32_t bo = mb_output(b, F32, kOne, 1), other = mb_subgraph(b, 1 - s);
    mb_operation(b, VKNN_OPERATION_IF, (uint32_t[]){bc, other, other, bc, bx}, 5, &bo, 1);
  }
  finish(f, 2);
  bool supported[1];
  assert_int_equal(vknn_device_get_supported_operations(f->device, f->model, supported, 1),
                   VKNN_STATUS_INVALID_ARGUMENT);
  assert_int_equal(vknn_device_prepare_model(f->device, f->model, VKNN_PREFER_FAST_SINGLE_ANSWER,
                                             VKNN_PRIORITY_MEDIUM, NULL, &f->pm),
                   VKNN_STATUS_INVALID_ARGUMENT);
  assert_non_null(strstr(f->log.last, "cycle"));
}

/* A branch with an operation the driver lacks makes the IF unsupported. */
static void test_unsupported_branch(void **state) {
  fixture *f = *state;
  build_if(f, true);
  model_builder *b = &f->sub[1];
  b->operations[0].type = VKNN_OPERATION_OEM;
  bool supported[1] = {true};
  assert_int_equal(vknn_device_get_supported_operations(f->device, f->model, supported, 1),
                   VKNN_STATUS_NONE);
  assert_false(supported[0]);
}

/* ---- Values against their operands' declarations -------------------------- */

/* A WHILE whose output the model declares [1] while the loop value grows
 * (the body's operands leave its size open), and an IF whose output is
 * declared [1] while its then branch returns [2]: GENERAL_FAILURE, as in the
 * reference (NONE with the grown shape before). Zero iterations, and the
 * else branch, fit and run. */
static void test_while_output_keeps_its_shape(void **state) {
  fixture *f = *state;
  build_growing_declared(f, kOne);
  prepare(f);
  make_request(f, (uint32_t[]){4, 4}, 2, 1);
  *(float *)input_at(f, 0) = 1.f;
  *(int32_t *)input_at(f, 1) = 0;
  assert_int_equal(execute(f), VKNN_STATUS_NONE);
  assert_float_equal(*output_f32(f, 0), 1.f, 0.f);
  *(int32_t *)input_at(f, 1) = 4;
  assert_int_equal(execute(f), VKNN_STATUS_GENERAL_FAILURE);
  assert_non_null(strstr(f->log.last, "WHILE output: a value of rank 1 does not agree"));
}

static void test_if_output_keeps_its_shape(void **state) {
  fixture *f = *state;
  model_builder *m = &f->main, *then_b = &f->sub[0];
  uint32_t c = mb_input(m, BOOL8, kOne, 1), x = mb_input(m, F32, kOne, 1);
  uint32_t out = mb_output(m, F32, kOne, 1);
  mb_operation(m, VKNN_OPERATION_IF, (uint32_t[]){c, mb_subgraph(m, 0), mb_subgraph(m, 1), x}, 4, &out, 1);
  uint32_t tx = mb_input(then_b, F32, kOne, 1), ty = mb_output(then_b, F32, kUnknown, 1);
  mb_operation(then_b, VKNN_OPERATION_CONCATENATION, (uint32_t[]){tx, const_f32(then_b, 7.f), mb_const_i32(then_b, 0)},
               3, &ty, 1);
  branch(&f->sub[1], VKNN_OPERATION_MUL, 2.f);
  finish(f, 2);
  prepare(f);
  make_request(f, (uint32_t[]){1, 4}, 2, 1);
  *(float *)input_at(f, 1) = 3.f;
  *(uint8_t *)input_at(f, 0) = 0;
  assert_int_equal(execute(f), VKNN_STATUS_NONE);
  assert_float_equal(*output_f32(f, 0), 6.f, 0.f);
  *(uint8_t *)input_at(f, 0) = 1;
  assert_int_equal(execute(f), VKNN_STATUS_GENERAL_FAILURE);
  assert_non_null(strstr(f->log.last, "IF output: a value of rank 1 does not agree"));
  /* An omitted condition is no condition (it took the else branch). */
  f->inputs[0] = (vknn_request_argument){.has_no_value = true};
  assert_int_equal(execute(f), VKNN_STATUS_INVALID_ARGUMENT);
}

/* A loop value carried to the next iteration must agree with the
 * condition's input too: declared [1] there while the body grows it, the
 * fused loop (whose condition runs on the GPU) returned NONE. */
static void test_carried_value_keeps_the_condition_shape(void **state) {
  fixture *f = *state;
  build_growing(f);
  f->sub[0].dims[0][0] = 1; /* the condition's x: [1] */
  prepare(f);
  make_request(f, (uint32_t[]){4, 4}, 2, 1);
  *(float *)input_at(f, 0) = 1.f;
  *(int32_t *)input_at(f, 1) = 0;
  assert_int_equal(execute(f), VKNN_STATUS_NONE);
  *(int32_t *)input_at(f, 1) = 2;
  assert_int_equal(execute(f), VKNN_STATUS_GENERAL_FAILURE);
  assert_non_null(strstr(f->log.last, "does not agree with the loop's input"));
}

/* HAL: a loop is aborted when its condition does not give false within the
 * loop timeout; a condition false at once gives NONE even with a timeout of
 * 0 or 1 ns (fused loop and, IF inside WHILE, the unfused one). */
static vknn_status execute_loop_timeout(fixture *f, uint64_t ns) {
  vknn_duration timeout = {true, ns};
  return vknn_prepared_model_execute(f->pm, &f->request, VKNN_MEASURE_TIMING_NO, NULL, &timeout,
                                     f->shapes, 2, NULL);
}

static void test_zero_iterations_never_time_out(void **state) {
  fixture *f = *state;
  build_counting(f);
  set_counting(f, 0.f); /* 0 < 0: no iteration */
  for (uint64_t ns = 0; ns < 2; ++ns) assert_int_equal(execute_loop_timeout(f, ns), VKNN_STATUS_NONE);
  assert_float_equal(*output_f32(f, 0), 0.f, 0.f);
}

static void test_zero_iterations_unfused(void **state) {
  fixture *f = *state;
  build_if_inside_while(f);
  prepare(f);
  make_request(f, (uint32_t[]){4, 4, 4}, 3, 1);
  *(float *)input_at(f, 0) = 1.f;
  *(int32_t *)input_at(f, 1) = 0;
  *(int32_t *)input_at(f, 2) = 0;
  for (uint64_t ns = 0; ns < 2; ++ns) assert_int_equal(execute_loop_timeout(f, ns), VKNN_STATUS_NONE);
  assert_float_equal(*output_f32(f, 0), 1.f, 0.f);
}

/* A WHILE carrying a rank-5 value whose dimensions the request gives:
 * 5 x 5581 x 8681 x 49477 x 384773 float32 elements (2^62 + 1) counted as 4
 * bytes went through a loop of no iteration and came back NONE; now it is
 * INVALID_ARGUMENT like any value past 4 GiB. */
static void test_loop_value_past_4_gib(void **state) {
  fixture *f = *state;
  static const uint32_t unknown5[5] = {0, 0, 0, 0, 0};
  model_builder *m = &f->main, *cond = &f->sub[0], *body = &f->sub[1];
  uint32_t x = mb_input(m, F32, unknown5, 5), n = mb_input(m, I32, kOne, 1);
  uint32_t out = mb_output(m, F32, unknown5, 5);
  mb_operation(m, VKNN_OPERATION_WHILE, (uint32_t[]){mb_subgraph(m, 0), mb_subgraph(m, 1), x, const_i32(m, 0), n}, 5,
               &out, 1);
  (void)mb_input(cond, F32, unknown5, 5);
  uint32_t ci = mb_input(cond, I32, kOne, 1), cn = mb_input(cond, I32, kOne, 1);
  uint32_t c = mb_output(cond, BOOL8, kOne, 1);
  mb_operation(cond, VKNN_OPERATION_LESS, (uint32_t[]){ci, cn}, 2, &c, 1);
  uint32_t bx = mb_input(body, F32, unknown5, 5), bi = mb_input(body, I32, kOne, 1);
  (void)mb_input(body, I32, kOne, 1);
  uint32_t bx1 = mb_output(body, F32, unknown5, 5), bi1 = mb_output(body, I32, kOne, 1);
  mb_operation(body, VKNN_OPERATION_ABS, &bx, 1, &bx1, 1);
  mb_operation(body, VKNN_OPERATION_ADD, (uint32_t[]){bi, const_i32(body, 1), mb_const_i32(body, 0)}, 3, &bi1, 1);
  finish(f, 2);
  prepare(f);
  make_request(f, (uint32_t[]){4, 4}, 2, 1);
  static const uint32_t wraps[5] = {5, 5581, 8681, 49477, 384773};
  f->inputs[0].dimensions = wraps;
  f->inputs[0].dimension_count = 5;
  *(int32_t *)input_at(f, 1) = 0;
  assert_int_equal(execute(f), VKNN_STATUS_INVALID_ARGUMENT);
  assert_non_null(strstr(f->log.last, "more than 4 GiB"));
}

/* ---- Nesting depth --------------------------------------------------------
 * A chain of IFs: main and each referenced subgraph but the last hold one
 * IF(c, next, next, x, c) into the next; the last one is y = ABS(x). Built
 * by hand: the builder holds four subgraphs. */

typedef struct if_chain {
  vknn_model model;
  vknn_subgraph *subgraphs; /* [0] main, [i] referenced[i - 1] */
  vknn_operand (*operands)[4];
  vknn_operation *operations;
  uint32_t (*indexes)[8];
  uint32_t one;
  /* What query_and_prepare found. */
  vknn_device *device;
  vknn_status query, prepare;
  bool supported;
  vknn_prepared_model *pm;
} if_chain;

static void chain_link(if_chain *c, uint32_t i, bool last) {
  vknn_subgraph *sg = &c->subgraphs[i];
  vknn_operand *o = c->operands[i];
  uint32_t *idx = c->indexes[i];
  const vknn_operand tensor = {.dimension_count = 1, .dimensions = &c->one, .number_of_consumers = 1};
  o[0] = tensor, o[0].type = F32, o[0].lifetime = VKNN_LIFETIME_SUBGRAPH_INPUT;
  o[1] = tensor, o[1].type = BOOL8, o[1].lifetime = VKNN_LIFETIME_SUBGRAPH_INPUT;
  o[3] = tensor, o[3].type = F32, o[3].lifetime = VKNN_LIFETIME_SUBGRAPH_OUTPUT;
  o[3].number_of_consumers = 0;
  memcpy(idx, (uint32_t[]){0, 1, 3, 1, 2, 2, 0, 1}, sizeof(c->indexes[i]));
  *sg = (vknn_subgraph){.operands = o, .operand_count = 4, .operations = &c->operations[i],
                        .operation_count = 1, .input_indexes = idx, .input_count = 2,
                        .output_indexes = idx + 2, .output_count = 1};
  if (last) { /* ABS(x); c unused */
    o[1].number_of_consumers = 0;
    o[2] = o[3];
    idx[2] = 2;
    sg->operand_count = 3;
    c->operations[i] = (vknn_operation){VKNN_OPERATION_ABS, idx, 1, idx + 2, 1};
    return;
  }
  o[1].number_of_consumers = 2;
  o[2] = (vknn_operand){.type = VKNN_OPERAND_SUBGRAPH, .lifetime = VKNN_LIFETIME_SUBGRAPH,
                        .number_of_consumers = 2, .location = {0, i, 0}};
  c->operations[i] = (vknn_operation){VKNN_OPERATION_IF, idx + 3, 5, idx + 2, 1};
}

static if_chain *chain_make(uint32_t depth) {
  if_chain *c = calloc(1, sizeof(*c));
  assert_non_null(c);
  c->one = 1;
  c->subgraphs = calloc(depth + 1, sizeof(*c->subgraphs));
  c->operands = calloc(depth + 1, sizeof(*c->operands));
  c->operations = calloc(depth + 1, sizeof(*c->operations));
  c->indexes = calloc(depth + 1, sizeof(*c->indexes));
  assert_true(c->subgraphs && c->operands && c->operations && c->indexes);
  for (uint32_t i = 0; i <= depth; ++i) chain_link(c, i, i == depth);
  c->model = (vknn_model){.main = c->subgraphs[0], .referenced = c->subgraphs + 1,
                          .referenced_count = depth};
  return c;
}

static void chain_free(if_chain *c) {
  vknn_prepared_model_release(c->pm);
  free(c->subgraphs);
  free(c->operands);
  free(c->operations);
  free(c->indexes);
  free(c);
}

static void *query_and_prepare(void *arg) {
  if_chain *c = arg;
  c->query = vknn_device_get_supported_operations(c->device, &c->model, &c->supported, 1);
  c->prepare = vknn_device_prepare_model(c->device, &c->model, VKNN_PREFER_FAST_SINGLE_ANSWER,
                                         VKNN_PRIORITY_MEDIUM, NULL, &c->pm);
  return NULL;
}

/* On a thread of a 256 KiB stack, less than a binder thread's. */
static void query_and_prepare_small_stack(if_chain *c) {
  pthread_attr_t attr;
  pthread_t thread;
  assert_int_equal(pthread_attr_init(&attr), 0);
  assert_int_equal(pthread_attr_setstacksize(&attr, 256 * 1024), 0);
  assert_int_equal(pthread_create(&thread, &attr, query_and_prepare, c), 0);
  assert_int_equal(pthread_join(thread, NULL), 0);
  pthread_attr_destroy(&attr);
}

/* IFs nested 32 deep run (the result: |x|); 33 deep, and 20000 deep on a
 * small stack, are unsupported: the query says so and prepare gives
 * GENERAL_FAILURE, where the walks over nested subgraphs overflowed the
 * stack before. */
static void test_nesting_limit(void **state) {
  fixture *f = *state;
  const uint32_t depths[3] = {32, 33, 20000};
  for (int i = 0; i < 3; ++i) {
    if_chain *c = chain_make(depths[i]);
    c->device = f->device;
    query_and_prepare_small_stack(c);
    assert_int_equal(c->query, VKNN_STATUS_NONE);
    assert_int_equal(c->supported, i == 0);
    assert_int_equal(c->prepare, i == 0 ? VKNN_STATUS_NONE : VKNN_STATUS_GENERAL_FAILURE);
    if (i > 0) assert_non_null(strstr(f->log.last, "nest deeper than 32 levels"));
    if (i == 0) {
      make_request(f, (uint32_t[]){4, 1}, 2, 1);
      *(float *)input_at(f, 0) = -2.5f;
      *(uint8_t *)input_at(f, 1) = 1;
      assert_int_equal(vknn_prepared_model_execute(c->pm, &f->request, VKNN_MEASURE_TIMING_NO, NULL,
                                                   NULL, f->shapes, 1, NULL),
                       VKNN_STATUS_NONE);
      assert_float_equal(output_f32(f, 0)[0], 2.5f, 0.f);
    }
    chain_free(c);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_if_inside_while, setup, teardown),
      cmocka_unit_test_setup_teardown(test_index_out_of_range_in_a_branch, setup, teardown),
      cmocka_unit_test_setup_teardown(test_index_out_of_range_in_a_loop, setup, teardown),
      cmocka_unit_test_setup_teardown(test_body_output_grows, setup, teardown),
      cmocka_unit_test_setup_teardown(test_condition_is_model_input, setup, teardown),
      cmocka_unit_test_setup_teardown(test_host_keeps_only_control_flow_constants, setup, teardown),
      cmocka_unit_test_setup_teardown(test_condition_from_driver_buffer, setup, teardown),
      cmocka_unit_test_setup_teardown(test_infinite_loop_times_out, setup, teardown),
      cmocka_unit_test_setup_teardown(test_ten_thousand_iterations, setup, teardown),
      cmocka_unit_test_setup_teardown(test_cycle_rejected, setup, teardown),
      cmocka_unit_test_setup_teardown(test_unsupported_branch, setup, teardown),
      cmocka_unit_test_setup_teardown(test_nesting_limit, setup, teardown),
      cmocka_unit_test_setup_teardown(test_while_output_keeps_its_shape, setup, teardown),
      cmocka_unit_test_setup_teardown(test_if_output_keeps_its_shape, setup, teardown),
      cmocka_unit_test_setup_teardown(test_zero_iterations_never_time_out, setup, teardown),
      cmocka_unit_test_setup_teardown(test_zero_iterations_unfused, setup, teardown),
      cmocka_unit_test_setup_teardown(test_loop_value_past_4_gib, setup, teardown),
      cmocka_unit_test_setup_teardown(test_carried_value_keeps_the_condition_shape, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
