/* Mode device-memory: every input and output goes through a driver-managed
 * buffer (memory domains). Inputs are copied in with copy_from, the request
 * names the buffers by token, outputs are copied out with copy_to and judged
 * like sync results. Applies to cases every output of which has a value. */
#include <stdio.h>
#include <string.h>

#include "cts_modes.h"

typedef struct device_memory_run {
  vknn_buffer *buffers[2 * CTS_MAX_OUTPUTS];
  vknn_request_pool pools[2 * CTS_MAX_OUTPUTS];
  vknn_request_argument inputs[CTS_MAX_OUTPUTS];
  vknn_request_argument outputs[CTS_MAX_OUTPUTS];
  uint32_t count;
} device_memory_run;

static bool applies(const cts_case *c) {
  if (c->expect_failure || c->input_count > CTS_MAX_OUTPUTS) return false;
  for (uint32_t i = 0; i < c->output_count; ++i)
    if (c->outputs[i].location.length == 0) return false;
  return true;
}

/* A buffer for one role, named by the next request pool. */
static vknn_status add_buffer(cts_worker *w, vknn_prepared_model *pm, bool output, uint32_t index,
                              device_memory_run *run, vknn_request_argument *arg) {
  vknn_buffer_role role = {.model_index = 0, .io_index = index, .frequency = 1.f};
  uint32_t token = 0;
  vknn_status s = vknn_device_allocate(w->device, NULL, 0, &pm, 1, output ? NULL : &role,
                                       output ? 0 : 1, output ? &role : NULL, output ? 1 : 0,
                                       &run->buffers[run->count], &token);
  if (s != VKNN_STATUS_NONE) return s;
  run->pools[run->count] = (vknn_request_pool){.kind = VKNN_REQUEST_POOL_TOKEN, .token = token};
  *arg = (vknn_request_argument){.location = {.pool_index = run->count}};
  run->count++;
  return VKNN_STATUS_NONE;
}

/* Copies a value from the case's pool into a buffer through exact-size memory. */
static vknn_status fill_buffer(vknn_buffer *buffer, const uint8_t *data, uint32_t size) {
  shared_memory m;
  if (shared_memory_create(&m, size) != 0) return VKNN_STATUS_GENERAL_FAILURE;
  memcpy(m.data, data, size);
  vknn_status s = vknn_buffer_copy_from(buffer, &m.memory, NULL, 0);
  shared_memory_destroy(&m);
  return s;
}

static vknn_status drain_buffer(vknn_buffer *buffer, uint8_t *data, uint32_t size) {
  shared_memory m;
  if (shared_memory_create(&m, size) != 0) return VKNN_STATUS_GENERAL_FAILURE;
  vknn_status s = vknn_buffer_copy_to(buffer, &m.memory);
  if (s == VKNN_STATUS_NONE) memcpy(data, m.data, size);
  shared_memory_destroy(&m);
  return s;
}

static vknn_status set_up(cts_worker *w, cts_case *c, vknn_prepared_model *pm,
                          device_memory_run *run) {
  vknn_status s = VKNN_STATUS_NONE;
  for (uint32_t i = 0; i < c->input_count && s == VKNN_STATUS_NONE; ++i) {
    const vknn_request_argument *in = &c->inputs[i];
    run->inputs[i] = *in;
    if (in->has_no_value) continue;
    s = add_buffer(w, pm, false, i, run, &run->inputs[i]);
    if (s == VKNN_STATUS_NONE)
      s = fill_buffer(run->buffers[run->count - 1], c->input_pool.data + in->location.offset,
                      in->location.length);
  }
  for (uint32_t i = 0; i < c->output_count && s == VKNN_STATUS_NONE; ++i)
    s = add_buffer(w, pm, true, i, run, &run->outputs[i]);
  return s;
}

static vknn_status copy_results(cts_case *c, device_memory_run *run) {
  vknn_status s = VKNN_STATUS_NONE;
  for (uint32_t i = 0; i < c->output_count && s == VKNN_STATUS_NONE; ++i) {
    vknn_buffer *buffer = run->buffers[run->outputs[i].location.pool_index];
    s = drain_buffer(buffer, c->output_pool.data + c->outputs[i].location.offset,
                     c->outputs[i].location.length);
  }
  return s;
}

void cts_run_device_memory(cts_worker *w, cts_case *c, vknn_prepared_model *pm, cts_judgement *j) {
  if (!applies(c)) return;
  device_memory_run run;
  memset(&run, 0, sizeof(run));
  vknn_output_shape shapes[CTS_MAX_OUTPUTS];
  vknn_timing timing = {UINT64_MAX, UINT64_MAX};
  cts_case_reset_outputs(c);
  vknn_status s = set_up(w, c, pm, &run);
  const char *step = "allocate / copy_from";
  if (s == VKNN_STATUS_NONE) {
    vknn_request request = {run.inputs, c->input_count, run.outputs, c->output_count, run.pools,
                            run.count};
    step = "execute with driver buffers";
    s = vknn_prepared_model_execute(pm, &request, VKNN_MEASURE_TIMING_YES, NULL, cts_loop_timeout(), shapes,
                                    CTS_MAX_OUTPUTS, &timing);
  }
  if (s == VKNN_STATUS_NONE) {
    step = "copy_to";
    s = copy_results(c, &run);
  }
  cts_judge(w, c, step, s, c->output_pool.data, s == VKNN_STATUS_NONE ? shapes : NULL, &timing, j);
  for (uint32_t i = 0; i < run.count; ++i) vknn_buffer_release(run.buffers[i]);
}
