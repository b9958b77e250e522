#include "support/model_runner.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/shared_memory.h"

#define SLOT_ALIGN 256u

int runner_fixture_setup(void **state) {
  runner_fixture *f = calloc(1, sizeof(*f));
  if (f == NULL) return -1;
  *state = f;
  vknn_device_options options = {
      .log_callback = test_log_callback, .log_user_data = &f->log, .enable_validation = true};
  return vknn_device_open(&options, &f->device) == VKNN_STATUS_NONE ? 0 : -1;
}

int runner_fixture_teardown(void **state) {
  runner_fixture *f = *state;
  uint64_t messages = vknn_device_get_validation_message_count(f->device);
  vknn_device_close(f->device);
  free(f);
  return messages == 0 ? 0 : -1;
}

uint16_t runner_half(float v) {
  uint32_t bits;
  memcpy(&bits, &v, sizeof(bits));
  uint32_t sign = (bits >> 16) & 0x8000u;
  if ((bits & 0x7fffffffu) == 0) return (uint16_t)sign;
  int32_t exponent = (int32_t)((bits >> 23) & 0xffu) - 127 + 15;
  assert_true(exponent > 0 && exponent < 31 && (bits & 0x1fffu) == 0);
  return (uint16_t)(sign | ((uint32_t)exponent << 10) | ((bits >> 13) & 0x3ffu));
}

uint32_t runner_real_scalar(model_builder *b, int32_t type, float v) {
  if (type == VKNN_OPERAND_FLOAT16) {
    uint16_t h = runner_half(v);
    return mb_const_tensor(b, type, NULL, 0, &h, sizeof(h));
  }
  return mb_const_tensor(b, type, NULL, 0, &v, sizeof(v));
}

float runner_float(uint16_t h) {
  int32_t exponent = (h >> 10) & 0x1f;
  float magnitude = exponent == 0 ? ldexpf((float)(h & 0x3ff), -24)
                                  : ldexpf((float)((h & 0x3ff) | 0x400), exponent - 25);
  return (h & 0x8000) ? -magnitude : magnitude;
}

static size_t aligned(size_t bytes) { return (bytes + SLOT_ALIGN - 1) & ~(size_t)(SLOT_ALIGN - 1); }

vknn_prepared_model *model_runner_prepare(vknn_device *device, const test_log *log, model_builder *b) {
  vknn_prepared_model *pm = NULL;
  vknn_status s = vknn_device_prepare_model(device, mb_finish(b), VKNN_PREFER_FAST_SINGLE_ANSWER,
                                            VKNN_PRIORITY_MEDIUM, NULL, &pm);
  if (s != VKNN_STATUS_NONE) fail_msg("prepare: %s (%s)", vknn_status_name(s), log->last);
  return pm;
}

vknn_status model_runner_execute(vknn_prepared_model *pm, const model_builder *b,
                                 const buffer_arg *inputs, buffer_arg *outputs,
                                 vknn_output_shape *shapes) {
  assert_true(b->input_count <= MB_MAX_IO && b->output_count <= MB_MAX_IO);
  vknn_request_argument in_args[MB_MAX_IO], out_args[MB_MAX_IO];
  size_t total = 0;
  for (uint32_t i = 0; i < b->input_count; ++i) total += aligned(inputs[i].bytes);
  for (uint32_t i = 0; i < b->output_count; ++i) total += aligned(outputs[i].bytes);
  shared_memory pool;
  assert_int_equal(shared_memory_create(&pool, total), 0);
  size_t offset = 0;
  for (uint32_t i = 0; i < b->input_count; ++i) {
    if (inputs[i].data == NULL) { /* omitted: no location either */
      in_args[i] = (vknn_request_argument){.has_no_value = true};
      continue;
    }
    in_args[i] = (vknn_request_argument){.location = {0, (uint32_t)offset, (uint32_t)inputs[i].bytes},
                                         .dimension_count = inputs[i].rank,
                                         .dimensions = inputs[i].dims};
    memcpy(pool.data + offset, inputs[i].data, inputs[i].bytes);
    offset += aligned(inputs[i].bytes);
  }
  for (uint32_t i = 0; i < b->output_count; ++i) {
    out_args[i] = (vknn_request_argument){.location = {0, (uint32_t)offset, (uint32_t)outputs[i].bytes}};
    /* not zeros: an element the execution does not write must not pass for a zero result */
    memset(pool.data + offset, 0xa5, outputs[i].bytes);
    offset += aligned(outputs[i].bytes);
  }
  vknn_request_pool pools[1] = {{.kind = VKNN_REQUEST_POOL_MEMORY, .memory = pool.memory}};
  vknn_request request = {in_args, b->input_count, out_args, b->output_count, pools, 1};
  vknn_status s = vknn_prepared_model_execute(pm, &request, VKNN_MEASURE_TIMING_NO, NULL, NULL, shapes,
                                              shapes != NULL ? b->output_count : 0, NULL);
  for (uint32_t i = 0; s == VKNN_STATUS_NONE && i < b->output_count; ++i)
    memcpy(outputs[i].result, pool.data + out_args[i].location.offset, outputs[i].bytes);
  shared_memory_destroy(&pool);
  return s;
}

vknn_status model_runner_try(vknn_device *device, const test_log *log, model_builder *b,
                             const buffer_arg *inputs, buffer_arg *outputs,
                             vknn_output_shape *shapes) {
  vknn_prepared_model *pm = model_runner_prepare(device, log, b);
  vknn_status s = model_runner_execute(pm, b, inputs, outputs, shapes);
  vknn_prepared_model_release(pm);
  return s;
}

void model_runner_run(vknn_device *device, const test_log *log, model_builder *b,
                      const buffer_arg *inputs, buffer_arg *outputs, vknn_output_shape *shapes) {
  vknn_status s = model_runner_try(device, log, b, inputs, outputs, shapes);
  if (s != VKNN_STATUS_NONE) fail_msg("execute: %s (%s)", vknn_status_name(s), log->last);
}

/* The outcome a rule expects, and the rule's log line among the errors (the
 * last one the fixture keeps). */
static void expect_rule_outcome(const char *name, const char *expected_log, const test_log *log,
                                const char *what, vknn_status s) {
  vknn_status want = expected_log ? VKNN_STATUS_INVALID_ARGUMENT : VKNN_STATUS_NONE;
  if (s != want) fail_msg("%s: %s gave %s (log: %s)", name, what, vknn_status_name(s), log->last);
  if (expected_log && strstr(log->last, expected_log) == NULL)
    fail_msg("%s: %s logged \"%s\", not \"%s\"", name, what, log->last, expected_log);
}

void model_runner_expect_rule(runner_fixture *f, const vknn_model *model, const char *name,
                              const char *expected_log) {
  bool supported[1] = {false};
  f->log.last[0] = '\0';
  vknn_status s = vknn_device_get_supported_operations(f->device, model, supported, 1);
  expect_rule_outcome(name, expected_log, &f->log, "the support query", s);
  if (!expected_log && !supported[0]) fail_msg("%s: not supported (log: %s)", name, f->log.last);
  f->log.last[0] = '\0';
  vknn_prepared_model *pm = NULL;
  s = vknn_device_prepare_model(f->device, model, VKNN_PREFER_SUSTAINED_SPEED,
                                VKNN_PRIORITY_MEDIUM, NULL, &pm);
  if (pm != NULL) vknn_prepared_model_release(pm);
  expect_rule_outcome(name, expected_log, &f->log, "prepare", s);
}

/* lavapipe, whose loop limiter the driver keeps kernels within (the
 * device table in src/vk/vk_context.c); other devices have no such limit. */
static bool device_has_loop_limiter(const vknn_device *device) {
  const char *name = NULL;
  return vknn_device_get_name(device, &name) == VKNN_STATUS_NONE && name != NULL && strstr(name, "llvmpipe") != NULL;
}

void model_runner_expect_support(runner_fixture *f, const vknn_model *model, const char *name,
                                 const char *refused_log) {
  if (!device_has_loop_limiter(f->device)) refused_log = NULL;
  bool supported[1] = {refused_log != NULL};
  f->log.last[0] = '\0';
  vknn_status s = vknn_device_get_supported_operations(f->device, model, supported, 1);
  if (s != VKNN_STATUS_NONE) fail_msg("%s: status %d, logged \"%s\"", name, s, f->log.last);
  if (supported[0] != (refused_log == NULL)) fail_msg("%s: supported %d, logged \"%s\"", name, supported[0], f->log.last);
  if (refused_log != NULL && strstr(f->log.last, refused_log) == NULL)
    fail_msg("%s: logged \"%s\", not \"%s\"", name, f->log.last, refused_log);
}

runner_fixture *runner_group_fixture;

int runner_group_setup(void **state) {
  (void)state;
  void *fixture = NULL;
  int rc = runner_fixture_setup(&fixture);
  runner_group_fixture = fixture;
  return rc;
}

int runner_group_teardown(void **state) {
  (void)state;
  void *fixture = runner_group_fixture;
  runner_group_fixture = NULL;
  return runner_fixture_teardown(&fixture);
}
