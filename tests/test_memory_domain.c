/* Driver-managed buffers (memory domains): allocate, copy_from, copy_to, and
 * their use by token in executions; every validation rule. */
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
#include "support/add_fixture.h"
#include "support/model_builder.h"
#include "runtime/device_internal.h"
#include "util/fault_injection.h"
#include "vknn/vknn.h"

typedef add_fixture fixture;

static int setup(void **state) { return add_fixture_setup(state, NULL); }
static int teardown(void **state) { return add_fixture_teardown(state); }

static const vknn_buffer_role kRole = {0, 0, 1.f};

static vknn_status allocate_roles(fixture *f, vknn_prepared_model *const *models, uint32_t count,
                                  const vknn_buffer_role *in, uint32_t in_count,
                                  const vknn_buffer_role *out, uint32_t out_count,
                                  vknn_buffer **buffer, uint32_t *token) {
  return vknn_device_allocate(f->device, NULL, 0, models, count, in, in_count, out, out_count,
                              buffer, token);
}

/* A buffer for input 0 (or output 0) of the fixture's model. */
static vknn_buffer *allocate_for(fixture *f, bool output, uint32_t *token) {
  vknn_buffer *b = NULL;
  assert_int_equal(allocate_roles(f, &f->pm, 1, output ? NULL : &kRole, output ? 0 : 1,
                                  output ? &kRole : NULL, output ? 1 : 0, &b, token),
                   VKNN_STATUS_NONE);
  assert_true(*token > 0);
  return b;
}

static void expect_allocate_invalid(fixture *f, vknn_prepared_model *const *models, uint32_t count,
                                    const vknn_buffer_role *in, uint32_t in_count,
                                    const vknn_buffer_role *out, uint32_t out_count,
                                    const char *log) {
  vknn_buffer *b = (vknn_buffer *)1;
  uint32_t token = 7;
  assert_int_equal(allocate_roles(f, models, count, in, in_count, out, out_count, &b, &token),
                   VKNN_STATUS_INVALID_ARGUMENT);
  assert_null(b);
  assert_int_equal(token, 0);
  if (strstr(f->log.last, log) == NULL) fail_msg("log \"%s\" lacks \"%s\"", f->log.last, log);
}

static void test_allocate_rules(void **state) {
  fixture *f = *state;
  vknn_prepared_model *null_model = NULL;
  expect_allocate_invalid(f, &f->pm, 1, NULL, 0, NULL, 0, "no roles");
  expect_allocate_invalid(f, &null_model, 1, &kRole, 1, NULL, 0, "is NULL");
  const vknn_buffer_role bad_model = {1, 0, 1.f}, bad_io = {0, 2, 1.f}, bad_output = {0, 1, 1.f};
  expect_allocate_invalid(f, &f->pm, 1, &bad_model, 1, NULL, 0, "names model 1");
  expect_allocate_invalid(f, &f->pm, 1, &bad_io, 1, NULL, 0, "names input 2");
  expect_allocate_invalid(f, &f->pm, 1, NULL, 0, &bad_output, 1, "names output 1");
  const float frequencies[] = {0.f, -1.f, 1.5f, NAN};
  for (int i = 0; i < 4; ++i) {
    const vknn_buffer_role r = {0, 0, frequencies[i]};
    expect_allocate_invalid(f, &f->pm, 1, &r, 1, NULL, 0, "frequency");
  }
  const vknn_buffer_role twice[2] = {{0, 1, 1.f}, {0, 1, 0.5f}};
  expect_allocate_invalid(f, &f->pm, 1, twice, 2, NULL, 0, "given twice");
  vknn_buffer *b;
  uint32_t token;
  assert_int_equal(allocate_roles(f, &f->pm, 1, &kRole, 1, NULL, 0, NULL, &token),
                   VKNN_STATUS_INVALID_ARGUMENT);
  assert_non_null(strstr(f->log.last, "no place for the buffer"));
  const uint32_t conflicting[2] = {3, 3}, wrong_rank[3] = {2, 3, 1}, agreeing[2] = {2, 0};
  assert_int_equal(vknn_device_allocate(f->device, conflicting, 2, &f->pm, 1, &kRole, 1, NULL, 0,
                                        &b, &token), VKNN_STATUS_INVALID_ARGUMENT);
  assert_int_equal(vknn_device_allocate(f->device, wrong_rank, 3, &f->pm, 1, &kRole, 1, NULL, 0,
                                        &b, &token), VKNN_STATUS_INVALID_ARGUMENT);
  assert_int_equal(vknn_device_allocate(f->device, agreeing, 2, &f->pm, 1, &kRole, 1, NULL, 0,
                                        &b, &token), VKNN_STATUS_NONE);
  vknn_buffer_release(b);
}

/* A scalar role (FILL's value, a model input) takes no descriptor
 * dimensions; without them it allocates. */
static void test_allocate_scalar_without_dimensions(void **state) {
  fixture *f = *state;
  model_builder *b = calloc(1, sizeof(*b));
  assert_non_null(b);
  mb_init(b);
  const int32_t shape[1] = {3};
  const uint32_t one = 1, three = 3;
  uint32_t in[2] = {mb_const_tensor(b, VKNN_OPERAND_TENSOR_INT32, &one, 1, shape, sizeof(shape)),
                    mb_input(b, VKNN_OPERAND_FLOAT32, NULL, 0)};
  uint32_t out = mb_output(b, VKNN_OPERAND_TENSOR_FLOAT32, &three, 1);
  mb_operation(b, VKNN_OPERATION_FILL, in, 2, &out, 1);
  vknn_prepared_model *pm = NULL;
  assert_int_equal(vknn_device_prepare_model(f->device, mb_finish(b), VKNN_PREFER_FAST_SINGLE_ANSWER,
                                             VKNN_PRIORITY_MEDIUM, NULL, &pm),
                   VKNN_STATUS_NONE);
  vknn_buffer *buffer = NULL;
  uint32_t token = 0;
  const uint32_t dims[1] = {1};
  assert_int_equal(vknn_device_allocate(f->device, dims, 1, &pm, 1, &kRole, 1, NULL, 0, &buffer, &token),
                   VKNN_STATUS_INVALID_ARGUMENT);
  assert_null(buffer);
  assert_non_null(strstr(f->log.last, "given for a scalar operand"));
  assert_int_equal(vknn_device_allocate(f->device, NULL, 0, &pm, 1, &kRole, 1, NULL, 0, &buffer, &token),
                   VKNN_STATUS_NONE);
  vknn_buffer_release(buffer);
  vknn_prepared_model_release(pm);
  free(b);
}

/* The ADD model of test_model.h of a type; quant8 with the given scale. */
static vknn_prepared_model *prepare_add(vknn_device *device, int32_t type, float scale,
                                        test_model *m) {
  test_model_init_add(m, type);
  if (scale > 0.f)
    for (int i = 0; i < 4; ++i)
      if (i != 2) m->operands[i].scale = scale;
  vknn_prepared_model *pm = NULL;
  assert_int_equal(vknn_device_prepare_model(device, &m->model, VKNN_PREFER_FAST_SINGLE_ANSWER,
                                             VKNN_PRIORITY_MEDIUM, NULL, &pm),
                   VKNN_STATUS_NONE);
  return pm;
}

/* Roles on two models must agree on type, scale and zero point. */
static void test_allocate_operands_must_agree(void **state) {
  fixture *f = *state;
  test_model quant_a, quant_b;
  vknn_prepared_model *models[3] = {
      f->pm, prepare_add(f->device, VKNN_OPERAND_TENSOR_QUANT8_ASYMM, 0.5f, &quant_a),
      prepare_add(f->device, VKNN_OPERAND_TENSOR_QUANT8_ASYMM, 0.25f, &quant_b)};
  const vknn_buffer_role float_and_quant[2] = {{0, 0, 1.f}, {1, 0, 1.f}};
  expect_allocate_invalid(f, models, 3, float_and_quant, 2, NULL, 0, "differ");
  const vknn_buffer_role two_scales[2] = {{1, 0, 1.f}, {2, 0, 1.f}};
  expect_allocate_invalid(f, models, 3, two_scales, 2, NULL, 0, "differ");
  const vknn_buffer_role same[2] = {{1, 0, 1.f}, {1, 1, 1.f}};
  vknn_buffer *b;
  uint32_t token;
  assert_int_equal(allocate_roles(f, models, 3, same, 2, NULL, 0, &b, &token), VKNN_STATUS_NONE);
  vknn_buffer_release(b);
  vknn_prepared_model_release(models[1]);
  vknn_prepared_model_release(models[2]);
}

/* A prepared model of another device is foreign; tokens do not cross devices. */
static void test_other_device(void **state) {
  fixture *f = *state;
  vknn_device *other = NULL;
  assert_int_equal(vknn_device_open(NULL, &other), VKNN_STATUS_NONE);
  test_model m;
  vknn_prepared_model *foreign = prepare_add(other, VKNN_OPERAND_TENSOR_FLOAT32, 0.f, &m);
  expect_allocate_invalid(f, &foreign, 1, &kRole, 1, NULL, 0, "another device");
  uint32_t token;
  vknn_buffer *b = allocate_for(f, false, &token);
  f->r.pools[0] = (vknn_request_pool){.kind = VKNN_REQUEST_POOL_TOKEN, .token = token};
  f->r.inputs[0].location = (vknn_data_location){0, 0, 0};
  vknn_request request = f->r.request;
  assert_int_equal(vknn_prepared_model_execute(foreign, &request, 0, NULL, NULL, NULL, 0, NULL),
                   VKNN_STATUS_INVALID_ARGUMENT);
  vknn_buffer_release(b);
  vknn_prepared_model_release(foreign);
  vknn_device_close(other);
}

static void test_copy_rules(void **state) {
  fixture *f = *state;
  uint32_t token;
  vknn_buffer *b = allocate_for(f, false, &token);
  shared_memory exact, short_memory;
  assert_int_equal(shared_memory_create(&exact, 24), 0);
  assert_int_equal(shared_memory_create(&short_memory, 20), 0);
  assert_int_equal(vknn_buffer_copy_to(b, &exact.memory), VKNN_STATUS_GENERAL_FAILURE);
  assert_int_equal(vknn_buffer_copy_from(b, &short_memory.memory, NULL, 0),
                   VKNN_STATUS_INVALID_ARGUMENT);
  const uint32_t conflicting[2] = {3, 2}, agreeing[2] = {2, 3};
  assert_int_equal(vknn_buffer_copy_from(b, &exact.memory, conflicting, 2),
                   VKNN_STATUS_INVALID_ARGUMENT);
  for (int i = 0; i < 6; ++i) ((float *)exact.data)[i] = (float)i;
  assert_int_equal(vknn_buffer_copy_from(b, &exact.memory, agreeing, 2), VKNN_STATUS_NONE);
  assert_int_equal(vknn_buffer_copy_to(b, &short_memory.memory), VKNN_STATUS_INVALID_ARGUMENT);
  memset(exact.data, 0, 24);
  assert_int_equal(vknn_buffer_copy_to(b, &exact.memory), VKNN_STATUS_NONE);
  assert_float_equal(((float *)exact.data)[5], 5.f, 0.f);
  /* No memory: refused and logged; a copy_from so failed forgets the value too. */
  assert_int_equal(vknn_buffer_copy_to(b, NULL), VKNN_STATUS_INVALID_ARGUMENT);
  assert_non_null(strstr(f->log.last, "copy_to: no memory"));
  assert_int_equal(vknn_buffer_copy_from(b, NULL, NULL, 0), VKNN_STATUS_INVALID_ARGUMENT);
  assert_non_null(strstr(f->log.last, "copy_from: no memory"));
  assert_false(vknn_buffer_is_written(b));
  shared_memory_destroy(&exact);
  shared_memory_destroy(&short_memory);
  vknn_buffer_release(b);
}

/* A failed copy_from leaves the buffer unwritten (HAL IDevice::allocate),
 * and dimensions given to copy_from are given in full. */
static void test_failed_copy_forgets(void **state) {
  fixture *f = *state;
  uint32_t token;
  vknn_buffer *b = allocate_for(f, false, &token);
  shared_memory exact, short_memory;
  assert_int_equal(shared_memory_create(&exact, 24), 0);
  assert_int_equal(shared_memory_create(&short_memory, 20), 0);
  assert_int_equal(vknn_buffer_copy_from(b, &exact.memory, NULL, 0), VKNN_STATUS_NONE);
  assert_int_equal(vknn_buffer_copy_to(b, &exact.memory), VKNN_STATUS_NONE);
  assert_int_equal(vknn_buffer_copy_from(b, &short_memory.memory, NULL, 0), VKNN_STATUS_INVALID_ARGUMENT);
  assert_int_equal(vknn_buffer_copy_to(b, &exact.memory), VKNN_STATUS_GENERAL_FAILURE);
  const uint32_t partly[2] = {0, 3};
  assert_int_equal(vknn_buffer_copy_from(b, &exact.memory, partly, 2), VKNN_STATUS_INVALID_ARGUMENT);
  if (strstr(f->log.last, "dimension 0 is left unspecified") == NULL) fail_msg("log: %s", f->log.last);
  shared_memory_destroy(&exact);
  shared_memory_destroy(&short_memory);
  vknn_buffer_release(b);
}

/* Once the device is lost, copies in and out of a buffer fail as the
 * device's every other call does (HAL IBuffer: DEVICE_UNAVAILABLE when the
 * driver is offline). */
static void test_copies_after_device_loss(void **state) {
  fixture *f = *state;
  uint32_t token;
  vknn_buffer *b = allocate_for(f, false, &token);
  shared_memory value;
  assert_int_equal(shared_memory_create(&value, 24), 0);
  assert_int_equal(vknn_buffer_copy_from(b, &value.memory, NULL, 0), VKNN_STATUS_NONE);
  vknn_fault_arm(VKNN_FAULT_QUEUE_SUBMIT, 1);
  assert_int_equal(vknn_prepared_model_execute(f->pm, &f->r.request, 0, NULL, NULL, NULL, 0, NULL),
                   VKNN_STATUS_DEVICE_UNAVAILABLE);
  vknn_fault_arm(VKNN_FAULT_QUEUE_SUBMIT, 0);
  assert_int_equal(vknn_buffer_copy_to(b, &value.memory), VKNN_STATUS_DEVICE_UNAVAILABLE);
  assert_int_equal(vknn_buffer_copy_from(b, &value.memory, NULL, 0), VKNN_STATUS_DEVICE_UNAVAILABLE);
  shared_memory_destroy(&value);
  vknn_buffer_release(b);
}

/* Requests name buffers by token: in0 and out from buffers, in1 from memory. */
typedef struct token_request {
  vknn_request_pool pools[3];
  vknn_request_argument inputs[2];
  vknn_request_argument outputs[1];
  vknn_request request;
} token_request;

static void make_token_request(fixture *f, token_request *t, uint32_t in_token, uint32_t out_token) {
  t->pools[0] = f->r.pools[0];
  t->pools[1] = (vknn_request_pool){.kind = VKNN_REQUEST_POOL_TOKEN, .token = in_token};
  t->pools[2] = (vknn_request_pool){.kind = VKNN_REQUEST_POOL_TOKEN, .token = out_token};
  t->inputs[0] = (vknn_request_argument){.location = {1, 0, 0}};
  t->inputs[1] = f->r.inputs[1];
  t->outputs[0] = (vknn_request_argument){.location = {2, 0, 0}};
  t->request = (vknn_request){t->inputs, 2, t->outputs, 1, t->pools, 3};
}

static vknn_status run(fixture *f, const token_request *t) {
  return vknn_prepared_model_execute(f->pm, &t->request, VKNN_MEASURE_TIMING_NO, NULL, NULL,
                                     f->shapes, 1, NULL);
}

static void fill_from_request_pool(fixture *f, vknn_buffer *b) {
  shared_memory m;
  assert_int_equal(shared_memory_create(&m, 24), 0);
  memcpy(m.data, f->r.pool.data, 24); /* in0[i] = i */
  assert_int_equal(vknn_buffer_copy_from(b, &m.memory, NULL, 0), VKNN_STATUS_NONE);
  shared_memory_destroy(&m);
}

static void test_execute_with_buffers(void **state) {
  fixture *f = *state;
  uint32_t in_token, out_token;
  vknn_buffer *in = allocate_for(f, false, &in_token), *out = allocate_for(f, true, &out_token);
  token_request t;
  make_token_request(f, &t, in_token, out_token);
  assert_int_equal(run(f, &t), VKNN_STATUS_GENERAL_FAILURE); /* in0 never written */
  fill_from_request_pool(f, in);
  assert_int_equal(run(f, &t), VKNN_STATUS_NONE);
  shared_memory result;
  assert_int_equal(shared_memory_create(&result, 24), 0);
  assert_int_equal(vknn_buffer_copy_to(out, &result.memory), VKNN_STATUS_NONE);
  for (int i = 0; i < 6; ++i) assert_float_equal(((float *)result.data)[i], 11.f * (float)i, 0.f);
  shared_memory_destroy(&result);
  vknn_buffer_release(in);
  vknn_buffer_release(out);
}

static void test_execute_token_rules(void **state) {
  fixture *f = *state;
  uint32_t in_token, out_token, both_token;
  vknn_buffer *in = allocate_for(f, false, &in_token), *out = allocate_for(f, true, &out_token);
  fill_from_request_pool(f, in);
  token_request t;
  make_token_request(f, &t, in_token + 1000003u, out_token);
  assert_int_equal(run(f, &t), VKNN_STATUS_INVALID_ARGUMENT); /* unknown token */
  make_token_request(f, &t, out_token, in_token);
  assert_int_equal(run(f, &t), VKNN_STATUS_INVALID_ARGUMENT); /* roles swapped */
  make_token_request(f, &t, in_token, out_token);
  t.inputs[0].location.length = 24;
  assert_int_equal(run(f, &t), VKNN_STATUS_INVALID_ARGUMENT); /* length must be 0 */
  const vknn_buffer_role in_role = {0, 0, 1.f}, out_role = {0, 0, 1.f};
  vknn_buffer *both;
  assert_int_equal(allocate_roles(f, &f->pm, 1, &in_role, 1, &out_role, 1, &both, &both_token),
                   VKNN_STATUS_NONE);
  fill_from_request_pool(f, both);
  make_token_request(f, &t, both_token, both_token);
  assert_int_equal(run(f, &t), VKNN_STATUS_INVALID_ARGUMENT); /* input and output */
  test_model m;
  vknn_prepared_model *other = prepare_add(f->device, VKNN_OPERAND_TENSOR_FLOAT32, 0.f, &m);
  make_token_request(f, &t, in_token, out_token);
  assert_int_equal(vknn_prepared_model_execute(other, &t.request, 0, NULL, NULL, NULL, 0, NULL),
                   VKNN_STATUS_INVALID_ARGUMENT); /* buffers of another prepared model */
  vknn_prepared_model_release(other);
  vknn_buffer_release(both);
  vknn_buffer_release(in);
  vknn_buffer_release(out);
}

/* An output buffer of a failed execution holds no value after it: the
 * deadline had passed before the call, or a memory the request names could
 * not be mapped (its file is shorter than its size; the pools after it were
 * not mapped yet). */
static void test_failed_execution_forgets_output(void **state) {
  fixture *f = *state;
  uint32_t in_token, out_token;
  vknn_buffer *in = allocate_for(f, false, &in_token), *out = allocate_for(f, true, &out_token);
  fill_from_request_pool(f, in);
  token_request t;
  make_token_request(f, &t, in_token, out_token);
  assert_int_equal(run(f, &t), VKNN_STATUS_NONE);
  shared_memory result;
  assert_int_equal(shared_memory_create(&result, 24), 0);
  assert_int_equal(vknn_buffer_copy_to(out, &result.memory), VKNN_STATUS_NONE);
  const vknn_deadline past = {true, 1};
  assert_int_equal(vknn_prepared_model_execute(f->pm, &t.request, VKNN_MEASURE_TIMING_NO, &past, NULL, NULL, 0,
                                               NULL),
                   VKNN_STATUS_MISSED_DEADLINE_PERSISTENT);
  assert_int_equal(vknn_buffer_copy_to(out, &result.memory), VKNN_STATUS_GENERAL_FAILURE);
  assert_int_equal(vknn_buffer_copy_to(in, &result.memory), VKNN_STATUS_NONE); /* an input keeps its value */
  assert_int_equal(run(f, &t), VKNN_STATUS_NONE);
  assert_true(vknn_buffer_is_written(out));
  t.pools[0].memory.size = f->r.pool.size + 4096;
  assert_int_equal(run(f, &t), VKNN_STATUS_INVALID_ARGUMENT);
  if (strstr(f->log.last, "exceeds its file") == NULL) fail_msg("log: %s", f->log.last);
  assert_false(vknn_buffer_is_written(out));
  assert_true(vknn_buffer_is_written(in));
  shared_memory_destroy(&result);
  vknn_buffer_release(in);
  vknn_buffer_release(out);
}

/* Two outputs may not name one driver buffer. */
static void test_buffer_is_one_output(void **state) {
  fixture *f = *state;
  model_builder *b = calloc(1, sizeof(*b));
  assert_non_null(b);
  mb_init(b);
  const uint32_t dims[2] = {2, 3};
  uint32_t x = mb_input(b, VKNN_OPERAND_TENSOR_FLOAT32, dims, 2);
  uint32_t outs[2] = {mb_output(b, VKNN_OPERAND_TENSOR_FLOAT32, dims, 2),
                      mb_output(b, VKNN_OPERAND_TENSOR_FLOAT32, dims, 2)};
  for (int k = 0; k < 2; ++k) {
    const uint32_t in[3] = {x, x, mb_const_i32(b, VKNN_FUSED_NONE)};
    mb_operation(b, VKNN_OPERATION_ADD, in, 3, &outs[k], 1);
  }
  vknn_prepared_model *pm = NULL;
  assert_int_equal(vknn_device_prepare_model(f->device, mb_finish(b), VKNN_PREFER_FAST_SINGLE_ANSWER,
                                             VKNN_PRIORITY_MEDIUM, NULL, &pm),
                   VKNN_STATUS_NONE);
  const vknn_buffer_role roles[2] = {{0, 0, 1.f}, {0, 1, 1.f}};
  vknn_buffer *out = NULL;
  uint32_t token;
  assert_int_equal(vknn_device_allocate(f->device, NULL, 0, &pm, 1, NULL, 0, roles, 2, &out, &token),
                   VKNN_STATUS_NONE);
  vknn_request_pool pools[2] = {f->r.pools[0], {.kind = VKNN_REQUEST_POOL_TOKEN, .token = token}};
  vknn_request_argument outputs[2] = {{.location = {1, 0, 0}}, {.location = {1, 0, 0}}};
  vknn_request request = {f->r.inputs, 1, outputs, 2, pools, 2};
  assert_int_equal(vknn_prepared_model_execute(pm, &request, 0, NULL, NULL, NULL, 0, NULL),
                   VKNN_STATUS_INVALID_ARGUMENT);
  if (strstr(f->log.last, "is more than one output") == NULL) fail_msg("log: %s", f->log.last);
  outputs[1] = f->r.outputs[0];
  assert_int_equal(vknn_prepared_model_execute(pm, &request, 0, NULL, NULL, NULL, 0, NULL), VKNN_STATUS_NONE);
  vknn_buffer_release(out);
  vknn_prepared_model_release(pm);
  free(b);
}

/* A buffer may outlive the prepared model of its roles; a prepared model
 * made afterwards (often at the same address) still cannot use it. */
static void test_buffer_outlives_its_model(void **state) {
  fixture *f = *state;
  test_model m;
  vknn_prepared_model *first = prepare_add(f->device, VKNN_OPERAND_TENSOR_FLOAT32, 0.f, &m);
  const vknn_buffer_role role = {0, 0, 1.f};
  vknn_buffer *in, *out;
  uint32_t in_token, out_token;
  assert_int_equal(allocate_roles(f, &first, 1, &role, 1, NULL, 0, &in, &in_token), VKNN_STATUS_NONE);
  assert_int_equal(allocate_roles(f, &first, 1, NULL, 0, &role, 1, &out, &out_token), VKNN_STATUS_NONE);
  fill_from_request_pool(f, in);
  token_request t;
  make_token_request(f, &t, in_token, out_token);
  assert_int_equal(vknn_prepared_model_execute(first, &t.request, 0, NULL, NULL, NULL, 0, NULL),
                   VKNN_STATUS_NONE);
  vknn_prepared_model_release(first);
  vknn_prepared_model *second = prepare_add(f->device, VKNN_OPERAND_TENSOR_FLOAT32, 0.f, &m);
  if (second == first) print_message("the second prepared model has the first's address\n");
  assert_int_equal(vknn_prepared_model_execute(second, &t.request, 0, NULL, NULL, NULL, 0, NULL),
                   VKNN_STATUS_INVALID_ARGUMENT);
  vknn_prepared_model_release(second);
  vknn_buffer_release(in);
  vknn_buffer_release(out);
}

/* x [6] reshaped by a shape given as model input 1; the output's shape is
 * unknown until the shape's value is: compiled per execution. */
static vknn_prepared_model *prepare_reshape_by_input(vknn_device *device, model_builder *b) {
  mb_init(b);
  const uint32_t six[1] = {6}, two[1] = {2}, unknown[2] = {0, 0};
  const uint32_t ins[2] = {mb_input(b, VKNN_OPERAND_TENSOR_FLOAT32, six, 1),
                           mb_input(b, VKNN_OPERAND_TENSOR_INT32, two, 1)};
  uint32_t out = mb_output(b, VKNN_OPERAND_TENSOR_FLOAT32, unknown, 2);
  mb_operation(b, VKNN_OPERATION_RESHAPE, ins, 2, &out, 1);
  vknn_prepared_model *pm = NULL;
  assert_int_equal(vknn_device_prepare_model(device, mb_finish(b), VKNN_PREFER_FAST_SINGLE_ANSWER,
                                             VKNN_PRIORITY_MEDIUM, NULL, &pm), VKNN_STATUS_NONE);
  return pm;
}

/* A value that decides shapes may come from a driver buffer: it is read
 * from the buffer to choose (or compile) the recording. */
static void test_shape_input_in_buffer(void **state) {
  fixture *f = *state;
  model_builder *b = malloc(sizeof(*b));
  assert_non_null(b);
  vknn_prepared_model *pm = prepare_reshape_by_input(f->device, b);
  const vknn_buffer_role role = {0, 1, 1.f};
  vknn_buffer *shape;
  uint32_t token;
  assert_int_equal(vknn_device_allocate(f->device, NULL, 0, &pm, 1, &role, 1, NULL, 0, &shape,
                                        &token), VKNN_STATUS_NONE);
  shared_memory m;
  assert_int_equal(shared_memory_create(&m, 64), 0);
  const int32_t three_by_two[2] = {3, 2};
  memcpy(m.data, three_by_two, sizeof(three_by_two));
  vknn_memory shape_memory = m.memory;
  shape_memory.size = sizeof(three_by_two);
  assert_int_equal(vknn_buffer_copy_from(shape, &shape_memory, NULL, 0), VKNN_STATUS_NONE);
  for (int i = 0; i < 6; ++i) ((float *)m.data)[i] = (float)i;
  const vknn_request_pool pools[2] = {{.kind = VKNN_REQUEST_POOL_MEMORY, .memory = m.memory},
                                      {.kind = VKNN_REQUEST_POOL_TOKEN, .token = token}};
  const vknn_request_argument inputs[2] = {{.location = {0, 0, 24}}, {.location = {1, 0, 0}}};
  const vknn_request_argument output = {.location = {0, 32, 24}};
  const vknn_request request = {inputs, 2, &output, 1, pools, 2};
  vknn_output_shape shape_out;
  assert_int_equal(vknn_prepared_model_execute(pm, &request, 0, NULL, NULL, &shape_out, 1, NULL),
                   VKNN_STATUS_NONE);
  assert_int_equal(shape_out.rank, 2);
  assert_int_equal(shape_out.dimensions[0], 3);
  assert_int_equal(shape_out.dimensions[1], 2);
  for (int i = 0; i < 6; ++i) assert_float_equal(((float *)(m.data + 32))[i], (float)i, 0.f);
  shared_memory_destroy(&m);
  vknn_buffer_release(shape);
  vknn_prepared_model_release(pm);
  free(b);
}

/* An output buffer of unknown shape takes each execution's output shape. */
static void test_output_buffer_takes_shape(void **state) {
  fixture *f = *state;
  uint32_t out_token;
  vknn_buffer *out = allocate_for(f, true, &out_token);
  vknn_output_shape shape;
  assert_int_equal(vknn_buffer_get_shape(out, &shape), VKNN_STATUS_NONE);
  assert_int_equal(shape.rank, 0);
  vknn_buffer_release(out);
  test_model m;
  vknn_prepared_model *pm = add_fixture_prepare_batch_unknown(f->device, &m);
  assert_non_null(pm);
  const vknn_buffer_role role = {0, 0, 1.f};
  assert_int_equal(vknn_device_allocate(f->device, NULL, 0, &pm, 1, NULL, 0, &role, 1, &out,
                                        &out_token), VKNN_STATUS_NONE);
  f->r.outputs[0] = (vknn_request_argument){.location = {1, 0, 0}};
  vknn_request_pool pools[2] = {f->r.pools[0], {.kind = VKNN_REQUEST_POOL_TOKEN, .token = out_token}};
  f->r.request.pools = pools;
  f->r.request.pool_count = 2;
  for (uint32_t batch = 2; batch >= 1; --batch) {
    add_fixture_set_batch(f, batch);
    assert_int_equal(vknn_prepared_model_execute(pm, &f->r.request, 0, NULL, NULL, NULL, 0, NULL),
                     VKNN_STATUS_NONE);
    assert_int_equal(vknn_buffer_get_shape(out, &shape), VKNN_STATUS_NONE);
    assert_int_equal(shape.rank, 2);
    assert_int_equal(shape.dimensions[0], batch);
    assert_int_equal(shape.dimensions[1], 3);
  }
  vknn_buffer_release(out);
  vknn_prepared_model_release(pm);
}

/* An output buffer whose descriptor fixes its shape takes no value of
 * another shape: a smaller one fails the execution (and leaves the buffer
 * unwritten), a larger one does not fit (OUTPUT_INSUFFICIENT_SIZE). */
static void test_output_buffer_keeps_declared_shape(void **state) {
  fixture *f = *state;
  test_model m;
  vknn_prepared_model *pm = add_fixture_prepare_batch_unknown(f->device, &m);
  assert_non_null(pm);
  const vknn_buffer_role role = {0, 0, 1.f};
  const uint32_t two_by_three[2] = {2, 3};
  vknn_buffer *out = NULL;
  uint32_t out_token;
  assert_int_equal(vknn_device_allocate(f->device, two_by_three, 2, &pm, 1, NULL, 0, &role, 1, &out,
                                        &out_token), VKNN_STATUS_NONE);
  f->r.outputs[0] = (vknn_request_argument){.location = {1, 0, 0}};
  vknn_request_pool pools[2] = {f->r.pools[0], {.kind = VKNN_REQUEST_POOL_TOKEN, .token = out_token}};
  f->r.request.pools = pools;
  f->r.request.pool_count = 2;
  vknn_output_shape shape;
  add_fixture_set_batch(f, 2);
  assert_int_equal(vknn_prepared_model_execute(pm, &f->r.request, 0, NULL, NULL, &shape, 1, NULL),
                   VKNN_STATUS_NONE);
  assert_true(vknn_buffer_is_written(out));
  add_fixture_set_batch(f, 1);
  assert_int_equal(vknn_prepared_model_execute(pm, &f->r.request, 0, NULL, NULL, &shape, 1, NULL),
                   VKNN_STATUS_GENERAL_FAILURE);
  if (strstr(f->log.last, "disagrees with the driver buffer's") == NULL) fail_msg("log: %s", f->log.last);
  assert_false(vknn_buffer_is_written(out));
  add_fixture_set_batch(f, 3);
  assert_int_equal(vknn_prepared_model_execute(pm, &f->r.request, 0, NULL, NULL, &shape, 1, NULL),
                   VKNN_STATUS_OUTPUT_INSUFFICIENT_SIZE);
  assert_false(shape.is_sufficient);
  assert_int_equal(shape.dimensions[0], 3);
  vknn_buffer_release(out);
  vknn_prepared_model_release(pm);
}

/* An input read from a driver buffer has the shape of the value it holds
 * (the last output written to it): the request may repeat that shape or
 * give none, not change it. */
static void test_input_shape_is_the_value(void **state) {
  fixture *f = *state;
  test_model m;
  vknn_prepared_model *pm = add_fixture_prepare_batch_unknown(f->device, &m);
  assert_non_null(pm);
  const vknn_buffer_role role = {0, 0, 1.f};
  vknn_buffer *buffer = NULL;
  uint32_t token;
  assert_int_equal(vknn_device_allocate(f->device, NULL, 0, &pm, 1, &role, 1, &role, 1, &buffer, &token),
                   VKNN_STATUS_NONE);
  vknn_request_pool pools[2] = {f->r.pools[0], {.kind = VKNN_REQUEST_POOL_TOKEN, .token = token}};
  f->r.request.pools = pools;
  f->r.request.pool_count = 2;
  add_fixture_set_batch(f, 2);
  /* Written as the output: a value of [2, 3]. */
  vknn_request_argument memory_output = f->r.outputs[0];
  f->r.outputs[0] = (vknn_request_argument){.location = {1, 0, 0}};
  assert_int_equal(vknn_prepared_model_execute(pm, &f->r.request, 0, NULL, NULL, NULL, 0, NULL), VKNN_STATUS_NONE);
  /* Read as input 0, the output in memory. */
  f->r.outputs[0] = memory_output;
  f->r.inputs[0].location = (vknn_data_location){1, 0, 0};
  const uint32_t one_row[2] = {1, 3};
  f->r.inputs[0].dimensions = one_row;
  assert_int_equal(vknn_prepared_model_execute(pm, &f->r.request, 0, NULL, NULL, NULL, 0, NULL),
                   VKNN_STATUS_INVALID_ARGUMENT);
  if (strstr(f->log.last, "disagree with the shape of driver buffer") == NULL) fail_msg("log: %s", f->log.last);
  f->r.inputs[0].dimensions = f->request_dims[0]; /* [2, 3]: the value's */
  assert_int_equal(vknn_prepared_model_execute(pm, &f->r.request, 0, NULL, NULL, NULL, 0, NULL), VKNN_STATUS_NONE);
  f->r.inputs[0].dimension_count = 0;
  assert_int_equal(vknn_prepared_model_execute(pm, &f->r.request, 0, NULL, NULL, NULL, 0, NULL), VKNN_STATUS_NONE);
  vknn_buffer_release(buffer);
  vknn_prepared_model_release(pm);
}

/* ABS on a float32 input of rank 5 whose dimensions the execution gives. */
static vknn_prepared_model *prepare_abs_rank_5(vknn_device *device, model_builder *b) {
  const uint32_t unknown[5] = {0, 0, 0, 0, 0};
  mb_init(b);
  uint32_t in = mb_input(b, VKNN_OPERAND_TENSOR_FLOAT32, unknown, 5);
  uint32_t out = mb_output(b, VKNN_OPERAND_TENSOR_FLOAT32, unknown, 5);
  mb_operation(b, VKNN_OPERATION_ABS, &in, 1, &out, 1);
  vknn_prepared_model *pm = NULL;
  assert_int_equal(vknn_device_prepare_model(device, mb_finish(b), VKNN_PREFER_FAST_SINGLE_ANSWER,
                                             VKNN_PRIORITY_MEDIUM, NULL, &pm),
                   VKNN_STATUS_NONE);
  return pm;
}

/* Values past 4 GiB (the most a tensor may hold) are refused wherever a
 * shape comes from: an allocate descriptor, copy_from's dimensions, a
 * request's. 5 x 5581 x 8681 x 49477 x 384773 is 2^62 + 1 elements, whose
 * float32 bytes wrapped to 4 (a 4-byte value was taken for them). */
static void test_values_past_4_gib(void **state) {
  fixture *f = *state;
  model_builder *mb = calloc(1, sizeof(*mb));
  vknn_prepared_model *pm = prepare_abs_rank_5(f->device, mb);
  const uint32_t wraps[5] = {5, 5581, 8681, 49477, 384773}, eight_gib[5] = {1024, 1024, 1024, 2, 1};
  const vknn_buffer_role role = {0, 0, 1.f};
  vknn_buffer *b = NULL;
  uint32_t token;
  for (int i = 0; i < 2; ++i) {
    assert_int_equal(vknn_device_allocate(f->device, i ? eight_gib : wraps, 5, &pm, 1, &role, 1, NULL, 0,
                                          &b, &token),
                     VKNN_STATUS_INVALID_ARGUMENT);
    if (strstr(f->log.last, "more than 4 GiB") == NULL) fail_msg("log: %s", f->log.last);
  }
  assert_int_equal(vknn_device_allocate(f->device, NULL, 0, &pm, 1, &role, 1, NULL, 0, &b, &token),
                   VKNN_STATUS_NONE);
  shared_memory four;
  assert_int_equal(shared_memory_create(&four, 4), 0);
  assert_int_equal(vknn_buffer_copy_from(b, &four.memory, wraps, 5), VKNN_STATUS_INVALID_ARGUMENT);
  if (strstr(f->log.last, "more than 4 GiB") == NULL) fail_msg("log: %s", f->log.last);
  vknn_buffer_release(b);
  /* A request: 4 bytes given for those dimensions. */
  vknn_request_argument in = {.location = {0, 0, 4}, .dimensions = wraps, .dimension_count = 5};
  vknn_request_argument out = {.location = {0, 0, 4}};
  vknn_request_pool pool = {.kind = VKNN_REQUEST_POOL_MEMORY, .memory = four.memory};
  vknn_request request = {&in, 1, &out, 1, &pool, 1};
  assert_int_equal(vknn_prepared_model_execute(pm, &request, 0, NULL, NULL, NULL, 0, NULL),
                   VKNN_STATUS_INVALID_ARGUMENT);
  if (strstr(f->log.last, "more than 4 GiB") == NULL) fail_msg("log: %s", f->log.last);
  shared_memory_destroy(&four);
  vknn_prepared_model_release(pm);
  free(mb);
}

/* HAL allocate: every role is unique, also where the same prepared model
 * is listed twice (roles {0, 0} and {1, 0} are one role). */
static void test_same_role_through_two_indexes(void **state) {
  fixture *f = *state;
  vknn_prepared_model *const twice[2] = {f->pm, f->pm};
  const vknn_buffer_role roles[2] = {{0, 0, 1.f}, {1, 0, 1.f}};
  expect_allocate_invalid(f, twice, 2, roles, 2, NULL, 0, "given twice");
  expect_allocate_invalid(f, twice, 2, NULL, 0, roles, 2, "given twice");
  const vknn_buffer_role different[2] = {{0, 0, 1.f}, {1, 1, 1.f}};
  vknn_buffer *b = NULL;
  uint32_t token;
  assert_int_equal(allocate_roles(f, twice, 2, different, 2, NULL, 0, &b, &token), VKNN_STATUS_NONE);
  vknn_buffer_release(b);
}

/* HAL allocate: tokens are positive as an int32 and never a live buffer's,
 * also once the counter wraps. */
static void test_tokens_positive_and_unique(void **state) {
  fixture *f = *state;
  f->device->buffers.next_token = INT32_MAX;
  uint32_t tokens[3];
  vknn_buffer *b[3];
  for (int i = 0; i < 2; ++i) {
    b[i] = allocate_for(f, false, &tokens[i]);
    assert_true((int32_t)tokens[i] > 0);
  }
  assert_int_equal(tokens[0], INT32_MAX);
  assert_int_equal(tokens[1], 1);
  f->device->buffers.next_token = tokens[1]; /* onto a live buffer's */
  b[2] = allocate_for(f, false, &tokens[2]);
  assert_int_not_equal(tokens[2], tokens[1]);
  assert_int_equal(tokens[2], 2);
  for (int i = 0; i < 3; ++i) vknn_buffer_release(b[i]);
}

/* Many executions read one input buffer at once, each into its own output. */
#define READERS 8
typedef struct reader {
  fixture *f;
  token_request t;
  vknn_status status;
} reader;

/* Each reader has its own output shapes: executions of one prepared model
 * run at once. */
static void *read_buffer(void *arg) {
  reader *r = arg;
  vknn_output_shape shapes[1];
  for (int i = 0; i < 10 && r->status == VKNN_STATUS_NONE; ++i)
    r->status = vknn_prepared_model_execute(r->f->pm, &r->t.request, VKNN_MEASURE_TIMING_NO, NULL,
                                            NULL, shapes, 1, NULL);
  return NULL;
}

static void test_concurrent_readers(void **state) {
  fixture *f = *state;
  uint32_t in_token, out_tokens[READERS];
  vknn_buffer *in = allocate_for(f, false, &in_token), *outs[READERS];
  fill_from_request_pool(f, in);
  reader readers[READERS];
  pthread_t threads[READERS];
  for (int i = 0; i < READERS; ++i) {
    outs[i] = allocate_for(f, true, &out_tokens[i]);
    readers[i] = (reader){.f = f, .status = VKNN_STATUS_NONE};
    make_token_request(f, &readers[i].t, in_token, out_tokens[i]);
    readers[i].t.request.inputs = readers[i].t.inputs;
    readers[i].t.request.outputs = readers[i].t.outputs;
    readers[i].t.request.pools = readers[i].t.pools;
    assert_int_equal(pthread_create(&threads[i], NULL, read_buffer, &readers[i]), 0);
  }
  for (int i = 0; i < READERS; ++i) {
    pthread_join(threads[i], NULL);
    assert_int_equal(readers[i].status, VKNN_STATUS_NONE);
    vknn_buffer_release(outs[i]);
  }
  vknn_buffer_release(in);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_allocate_rules, setup, teardown),
      cmocka_unit_test_setup_teardown(test_allocate_operands_must_agree, setup, teardown),
      cmocka_unit_test_setup_teardown(test_allocate_scalar_without_dimensions, setup, teardown),
      cmocka_unit_test_setup_teardown(test_other_device, setup, teardown),
      cmocka_unit_test_setup_teardown(test_copy_rules, setup, teardown),
      cmocka_unit_test_setup_teardown(test_failed_copy_forgets, setup, teardown),
      cmocka_unit_test_setup_teardown(test_copies_after_device_loss, setup, teardown),
      cmocka_unit_test_setup_teardown(test_failed_execution_forgets_output, setup, teardown),
      cmocka_unit_test_setup_teardown(test_buffer_is_one_output, setup, teardown),
      cmocka_unit_test_setup_teardown(test_execute_with_buffers, setup, teardown),
      cmocka_unit_test_setup_teardown(test_execute_token_rules, setup, teardown),
      cmocka_unit_test_setup_teardown(test_buffer_outlives_its_model, setup, teardown),
      cmocka_unit_test_setup_teardown(test_shape_input_in_buffer, setup, teardown),
      cmocka_unit_test_setup_teardown(test_output_buffer_takes_shape, setup, teardown),
      cmocka_unit_test_setup_teardown(test_output_buffer_keeps_declared_shape, setup, teardown),
      cmocka_unit_test_setup_teardown(test_input_shape_is_the_value, setup, teardown),
      cmocka_unit_test_setup_teardown(test_concurrent_readers, setup, teardown),
      cmocka_unit_test_setup_teardown(test_values_past_4_gib, setup, teardown),
      cmocka_unit_test_setup_teardown(test_same_role_through_two_indexes, setup, teardown),
      cmocka_unit_test_setup_teardown(test_tokens_positive_and_unique, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
