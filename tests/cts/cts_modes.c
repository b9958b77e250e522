/* The execution paths beyond sync: async, burst, fenced, threads. Each runs a
 * prepared case and judges it as sync does (cts_run.c). */
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "cts_compare.h"
#include "cts_modes.h"

#define THREADS 10

/* ---- async --------------------------------------------------------------- */

typedef struct async_result {
  pthread_mutex_t lock;
  pthread_cond_t cond;
  bool done;
  vknn_status status;
  vknn_output_shape shapes[CTS_MAX_OUTPUTS];
  vknn_timing timing;
} async_result;

static void on_done(void *user_data, vknn_status status, const vknn_output_shape *shapes,
                    uint32_t shape_count, const vknn_timing *timing) {
  async_result *r = user_data;
  pthread_mutex_lock(&r->lock);
  r->status = status;
  if (shapes != NULL) memcpy(r->shapes, shapes, shape_count * sizeof(*shapes));
  r->timing = *timing;
  r->done = true;
  pthread_cond_signal(&r->cond);
  pthread_mutex_unlock(&r->lock);
}

void cts_run_async(cts_worker *w, cts_case *c, vknn_prepared_model *pm, cts_judgement *j) {
  async_result r = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};
  cts_case_reset_outputs(c);
  vknn_status s = vknn_prepared_model_execute_async(pm, &c->request, VKNN_MEASURE_TIMING_YES, NULL,
                                                    cts_loop_timeout(), on_done, &r);
  if (s == VKNN_STATUS_NONE) {
    pthread_mutex_lock(&r.lock);
    while (!r.done) pthread_cond_wait(&r.cond, &r.lock);
    pthread_mutex_unlock(&r.lock);
    s = r.status;
  }
  cts_judge(w, c, "execute_async", s, c->output_pool.data, r.shapes, &r.timing, j);
}

/* ---- burst --------------------------------------------------------------- */

/* Two executions: the second finds both memories in the burst's cache. */
void cts_run_burst(cts_worker *w, cts_case *c, vknn_prepared_model *pm, cts_judgement *j) {
  vknn_burst *burst = NULL;
  vknn_status s = vknn_burst_create(pm, &burst);
  const int32_t slots[2] = {0, 1};
  vknn_output_shape shapes[CTS_MAX_OUTPUTS];
  vknn_timing timing = {UINT64_MAX, UINT64_MAX};
  for (int run = 0; run < 2 && s == VKNN_STATUS_NONE; ++run) {
    cts_case_reset_outputs(c);
    s = vknn_burst_execute(burst, &c->request, slots, VKNN_MEASURE_TIMING_YES, NULL, cts_loop_timeout(), shapes,
                           CTS_MAX_OUTPUTS, &timing);
  }
  vknn_burst_release(burst);
  cts_judge(w, c, "burst execute", s, c->output_pool.data, shapes, &timing, j);
}

/* ---- fenced -------------------------------------------------------------- */

/* Whether the model leaves a dimension of an output open (0): its real shape
 * comes from the data (the outputs of BOX_WITH_NMS_LIMIT and what follows). */
bool cts_output_shape_open(const cts_case *c) {
  for (uint32_t i = 0; i < c->model.main.output_count; ++i) {
    const vknn_operand *o = &c->model.main.operands[c->model.main.output_indexes[i]];
    for (uint32_t d = 0; d < o->dimension_count; ++d)
      if (o->dimensions[d] == 0) return true;
  }
  return false;
}

/* A fenced execution reports no shapes, so the HAL has the driver refuse one
 * whose outputs' shapes the model leaves open: INVALID_ARGUMENT passes. */
static void expect_fenced_refused(cts_case *c, vknn_prepared_model *pm, cts_judgement *j) {
  int signaled = eventfd(1, EFD_CLOEXEC), fence = -1;
  vknn_fenced_execution *execution = NULL;
  vknn_status s = vknn_prepared_model_execute_fenced(pm, &c->request, &signaled, 1, VKNN_MEASURE_TIMING_NO,
                                                     NULL, cts_loop_timeout(), NULL, &fence, &execution);
  if (fence >= 0) close(fence);
  vknn_fenced_execution_release(execution);
  close(signaled);
  if (s == VKNN_STATUS_INVALID_ARGUMENT) return;
  j->status = CTS_FAILED;
  snprintf(j->reason, sizeof(j->reason), "a fenced execution with an output of open shape gave %s",
           vknn_status_name(s));
}

/* Waits on an already signaled fence; polls the fence it gets back. */
void cts_run_fenced(cts_worker *w, cts_case *c, vknn_prepared_model *pm, cts_judgement *j) {
  if (!c->expect_failure && cts_output_shape_open(c)) {
    expect_fenced_refused(c, pm, j);
    return;
  }
  int signaled = eventfd(1, EFD_CLOEXEC), fence = -1;
  vknn_fenced_execution *execution = NULL;
  vknn_timing launched = {UINT64_MAX, UINT64_MAX}, fenced = launched;
  cts_case_reset_outputs(c);
  vknn_status s = vknn_prepared_model_execute_fenced(pm, &c->request, &signaled, 1,
                                                     VKNN_MEASURE_TIMING_YES, NULL, cts_loop_timeout(),
                                                     NULL, &fence, &execution);
  if (s == VKNN_STATUS_NONE) {
    struct pollfd pfd = {.fd = fence, .events = POLLIN};
    if (poll(&pfd, 1, 60000) != 1) {
      snprintf(j->reason, sizeof(j->reason), "the returned sync fence never signaled");
      j->status = CTS_FAILED;
    }
    s = vknn_fenced_execution_get_info(execution, &launched, &fenced);
    /* The fence itself says whether the execution failed (work waiting for
     * it fails then). */
    vknn_sync_fence_state state = vknn_sync_fence_wait(fence, 0);
    if (j->status != CTS_FAILED && (state == VKNN_SYNC_FENCE_SIGNALED) != (s == VKNN_STATUS_NONE)) {
      snprintf(j->reason, sizeof(j->reason), "the sync fence's state %d does not match the outcome %s", (int)state,
               vknn_status_name(s));
      j->status = CTS_FAILED;
    }
    close(fence);
  }
  vknn_fenced_execution_release(execution);
  close(signaled);
  if (j->status == CTS_FAILED) return;
  if (s == VKNN_STATUS_NONE && !cts_timing_valid(&fenced)) {
    j->status = CTS_FAILED;
    snprintf(j->reason, sizeof(j->reason), "fenced timing breaks the HAL rules");
    return;
  }
  /* A fenced execution reports no shapes: values only. */
  cts_judge(w, c, "execute_fenced", s, c->output_pool.data, NULL, &launched, j);
}

/* ---- threads ------------------------------------------------------------- */

typedef struct thread_run {
  cts_case *c;
  vknn_prepared_model *pm;
  shared_memory outputs;
  vknn_request_pool pools[2];
  vknn_request request;
  vknn_status status;
  vknn_output_shape shapes[CTS_MAX_OUTPUTS];
  vknn_timing timing;
} thread_run;

static void *thread_main(void *arg) {
  thread_run *t = arg;
  t->status = vknn_prepared_model_execute(t->pm, &t->request, VKNN_MEASURE_TIMING_YES, NULL,
                                          cts_loop_timeout(), t->shapes, CTS_MAX_OUTPUTS, &t->timing);
  return NULL;
}

/* Ten threads execute one prepared model at once, each into its own memory. */
void cts_run_threads(cts_worker *w, cts_case *c, vknn_prepared_model *pm, cts_judgement *j) {
  thread_run runs[THREADS];
  pthread_t threads[THREADS];
  int started = 0;
  memset(runs, 0, sizeof(runs));
  for (int i = 0; i < THREADS; ++i) {
    thread_run *t = &runs[i];
    t->c = c;
    t->pm = pm;
    if (shared_memory_create(&t->outputs, c->output_pool.size) != 0) break;
    t->pools[0] = c->request_pools[0];
    t->pools[1] = (vknn_request_pool){.kind = VKNN_REQUEST_POOL_MEMORY, .memory = t->outputs.memory};
    t->request = c->request;
    t->request.pools = t->pools;
    if (pthread_create(&threads[i], NULL, thread_main, t) != 0) {
      shared_memory_destroy(&t->outputs);
      break;
    }
    started++;
  }
  for (int i = 0; i < started; ++i) pthread_join(threads[i], NULL);
  j->status = started == THREADS ? CTS_PASSED : CTS_FAILED;
  if (started != THREADS) snprintf(j->reason, sizeof(j->reason), "could not start %d threads", THREADS);
  for (int i = 0; i < started; ++i) {
    if (j->status == CTS_PASSED)
      cts_judge(w, c, "execute (threads)", runs[i].status, runs[i].outputs.data, runs[i].shapes,
                &runs[i].timing, j);
    shared_memory_destroy(&runs[i].outputs);
  }
}

/* ---- dynamic ------------------------------------------------------------- */

static size_t expected_bytes(const cts_case *c, uint32_t output) {
  return c->outputs[output].location.length;
}

/* The first output one byte short must be reported insufficient, with the
 * shape it needs. */
static void check_insufficient(cts_worker *w, cts_case *c, vknn_prepared_model *pm, cts_judgement *j) {
  if (c->output_count == 0 || expected_bytes(c, 0) == 0) return;
  vknn_output_shape shapes[CTS_MAX_OUTPUTS];
  c->outputs[0].location.length--;
  vknn_status s = vknn_prepared_model_execute(pm, &c->request, VKNN_MEASURE_TIMING_NO, NULL, cts_loop_timeout(),
                                              shapes, CTS_MAX_OUTPUTS, NULL);
  c->outputs[0].location.length++;
  const cts_expected *e = &c->expected[0];
  bool shape_ok = shapes[0].rank == e->rank && !shapes[0].is_sufficient &&
                  memcmp(shapes[0].dimensions, e->dims, e->rank * sizeof(uint32_t)) == 0;
  if (s != VKNN_STATUS_OUTPUT_INSUFFICIENT_SIZE || !shape_ok) {
    j->status = CTS_FAILED;
    snprintf(j->reason, sizeof(j->reason), "a short output gave %s%s (%s)", vknn_status_name(s),
             shape_ok ? "" : " without the needed shape", w->last_error);
  }
}

void cts_run_dynamic(cts_worker *w, const cJSON *test, cts_judgement *j) {
  cts_case c;
  const char *error = "out of memory";
  if (cts_case_load(test, &c, &error) != 0 || cts_case_make_outputs_dynamic(&c) != 0) {
    j->status = CTS_FAILED;
    snprintf(j->reason, sizeof(j->reason), "cannot load the case: %s", error);
    return;
  }
  vknn_prepared_model *pm = NULL;
  vknn_status s = vknn_device_prepare_model(w->device, &c.model, VKNN_PREFER_FAST_SINGLE_ANSWER,
                                            VKNN_PRIORITY_MEDIUM, NULL, &pm);
  if (s != VKNN_STATUS_NONE) {
    cts_judge(w, &c, "prepare (outputs of unknown shape)", s, NULL, NULL, NULL, j);
  } else {
    if (!c.expect_failure) check_insufficient(w, &c, pm, j);
    if (j->status != CTS_FAILED) {
      vknn_output_shape shapes[CTS_MAX_OUTPUTS];
      vknn_timing timing;
      cts_case_reset_outputs(&c);
      s = vknn_prepared_model_execute(pm, &c.request, VKNN_MEASURE_TIMING_YES, NULL, cts_loop_timeout(), shapes,
                                      CTS_MAX_OUTPUTS, &timing);
      cts_judge(w, &c, "execute (outputs of unknown shape)", s, c.output_pool.data, shapes, &timing, j);
    }
  }
  vknn_prepared_model_release(pm);
  cts_case_free(&c);
}
