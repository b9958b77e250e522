/* Runs a model_builder's model once through the public API, for kernel
 * tests that compare outputs with a model of the reference. */
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "support/model_builder.h"
#include "support/test_model.h"
#include "vknn/vknn.h"

/* The inputs and outputs most tests' models have (their arrays' size);
 * model_runner_execute takes as many as a builder holds (MB_MAX_IO). */
#define MODEL_RUNNER_MAX_ARGS 4

/* A device with the validation layer on, its last log line kept. */
typedef struct runner_fixture {
  vknn_device *device;
  test_log log;
} runner_fixture;

/* cmocka setup and teardown (teardown fails when the layer reported anything). */
int runner_fixture_setup(void **state);
int runner_fixture_teardown(void **state);
/* The same for a group whose tests keep their own state (a table row): the
 * group's fixture is runner_group_fixture. */
extern runner_fixture *runner_group_fixture;
int runner_group_setup(void **state);
int runner_group_teardown(void **state);

typedef struct buffer_arg {
  const void *data; /* inputs; NULL: the input is omitted (has_no_value) */
  void *result;     /* outputs: filled by model_runner_run */
  size_t bytes;
  /* An input's dimensions for this execution (rank 0: the model's). */
  const uint32_t *dims;
  uint32_t rank;
} buffer_arg;

/* float16 bits of a value exact in it (zero or normal; asserted), and back. */
uint16_t runner_half(float v);
float runner_float(uint16_t h);
/* A constant FLOAT16 (v exact in it) or FLOAT32 scalar, by type. */
uint32_t runner_real_scalar(model_builder *b, int32_t type, float v);

/* Prepares b's model, runs it once with the inputs, copies the outputs and
 * their shapes (when shapes is not NULL); fails the test (naming log's last
 * line) when prepare or the execution fails. */
void model_runner_run(vknn_device *device, const test_log *log, model_builder *b,
                      const buffer_arg *inputs, buffer_arg *outputs, vknn_output_shape *shapes);
/* Prepares b's model (failing the test when prepare fails), and runs a
 * prepared model once, as often as wanted: the execution's status; the
 * outputs are copied only when it succeeds. */
vknn_prepared_model *model_runner_prepare(vknn_device *device, const test_log *log, model_builder *b);
vknn_status model_runner_execute(vknn_prepared_model *pm, const model_builder *b,
                                 const buffer_arg *inputs, buffer_arg *outputs,
                                 vknn_output_shape *shapes);
/* model_runner_run returning the execution's status (prepare must succeed);
 * the outputs are copied only when it succeeds. */
vknn_status model_runner_try(vknn_device *device, const test_log *log, model_builder *b,
                             const buffer_arg *inputs, buffer_arg *outputs,
                             vknn_output_shape *shapes);

/* A signature rule on a single-operation model: the support query and
 * prepare give INVALID_ARGUMENT with a log line holding expected_log, or,
 * with expected_log NULL, succeed with the operation supported; fails the
 * test (naming name) otherwise. */
void model_runner_expect_rule(runner_fixture *f, const vknn_model *model, const char *name,
                              const char *expected_log);
/* The support query on a single-operation model succeeds and finds the
 * operation supported, or, with refused_log, on lavapipe (its loop
 * limiter), unsupported with a log line holding refused_log (a limit of the
 * device, not of the model); fails the test (naming name) otherwise. */
void model_runner_expect_support(runner_fixture *f, const vknn_model *model, const char *name,
                                 const char *refused_log);
