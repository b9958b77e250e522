/* Runs a model_builder's model once through the public API, for kernel
 * tests that compare outputs with a model of the reference. */
#pragma once
#include <stddef.h>

#include "support/model_builder.h"
#include "support/test_model.h"
#include "vknn/vknn.h"

#define MODEL_RUNNER_MAX_ARGS 4

typedef struct buffer_arg {
  const void *data; /* inputs; NULL: the input is omitted (has_no_value) */
  void *result;     /* outputs: filled by model_runner_run */
  size_t bytes;
} buffer_arg;

/* Prepares b's model, runs it once with the inputs, copies the outputs and
 * their shapes (when shapes is not NULL); fails the test (naming log's last
 * line) when prepare or the execution fails. */
void model_runner_run(vknn_device *device, const test_log *log, model_builder *b,
                      const buffer_arg *inputs, buffer_arg *outputs, vknn_output_shape *shapes);
