/* Asynchronous, fenced and burst executions; priorities and deadlines. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/shared_memory.h"
#include "runtime/prepared_model_internal.h"
#include "support/add_fixture.h"
#include "support/test_model.h"
#include "util/fault_injection.h"
#include "vknn/vknn.h"

typedef struct fixture {
  vknn_device *device;
  test_log log;
  test_model model;
  vknn_prepared_model *pm;
  test_request r;
} fixture;

static vknn_prepared_model *prepare(fixture *f, vknn_priority priority) {
  vknn_prepared_model *pm = NULL;
  assert_int_equal(vknn_device_prepare_model(f->device, &f->model.model, VKNN_PREFER_FAST_SINGLE_ANSWER,
                                             priority, NULL, &pm),
                   VKNN_STATUS_NONE);
  return pm;
}

static int setup(void **state) {
  fixture *f = calloc(1, sizeof(*f));
  if (f == NULL) return -1;
  vknn_device_options options = {.enable_validation = true, .log_callback = test_log_callback,
                                 .log_user_data = &f->log};
  if (vknn_device_open(&options, &f->device) != VKNN_STATUS_NONE) return -1;
  test_model_init_add(&f->model, VKNN_OPERAND_TENSOR_FLOAT32);
  f->pm = prepare(f, VKNN_PRIORITY_MEDIUM);
  if (test_request_init_add(&f->r) != 0) return -1;
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fixture *f = *state;
  vknn_prepared_model_release(f->pm);
  uint64_t messages = vknn_device_get_validation_message_count(f->device);
  vknn_device_close(f->device);
  test_request_release(&f->r);
  free(f);
  return messages == 0 ? 0 : -1;
}

static float output(const fixture *f, int i) { return test_request_output(&f->r, i); }

/* ---- async ---- */

typedef struct completion {
  pthread_mutex_t lock;
  pthread_cond_t cond;
  int done;
  vknn_status status;
  uint32_t shape_count;
  vknn_output_shape shape;
  vknn_timing timing;
  int order[16]; /* tags in completion order */
} completion;

typedef struct tagged {
  completion *c;
  int tag;
} tagged;

static void on_done(void *user_data, vknn_status status, const vknn_output_shape *shapes,
                    uint32_t shape_count, const vknn_timing *timing) {
  tagged *t = user_data;
  completion *c = t->c;
  pthread_mutex_lock(&c->lock);
  c->status = status;
  c->shape_count = shape_count;
  if (shape_count > 0) c->shape = shapes[0];
  c->timing = *timing;
  c->order[c->done++] = t->tag;
  pthread_cond_broadcast(&c->cond);
  pthread_mutex_unlock(&c->lock);
}

/* A wait that fails the test instead of hanging it: 30 s at most. */
static struct timespec in_30_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  t.tv_sec += 30;
  return t;
}

static void wait_done(completion *c, int count) {
  struct timespec limit = in_30_seconds();
  pthread_mutex_lock(&c->lock);
  int r = 0;
  while (c->done < count && r == 0) r = pthread_cond_timedwait(&c->cond, &c->lock, &limit);
  bool done = c->done >= count;
  pthread_mutex_unlock(&c->lock);
  assert_true(done);
}

#define COMPLETION_INIT {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0, {0}, {0, 0}, {0}}

/* Starts the fixture's request and waits for its callback. */
static void execute_async_and_wait(fixture *f, vknn_measure_timing measure, completion *c) {
  tagged t = {c, 1};
  assert_int_equal(vknn_prepared_model_execute_async(f->pm, &f->r.request, measure, NULL, NULL, on_done, &t),
                   VKNN_STATUS_NONE);
  wait_done(c, 1);
}

static void test_async_reports_through_callback(void **state) {
  fixture *f = *state;
  completion c = COMPLETION_INIT;
  execute_async_and_wait(f, VKNN_MEASURE_TIMING_YES, &c);
  assert_int_equal(c.status, VKNN_STATUS_NONE);
  assert_int_equal(c.shape_count, 1);
  assert_int_equal(c.shape.rank, 2);
  assert_float_equal(output(f, 5), 55.f, 0.f);
  assert_true(c.timing.time_in_driver != UINT64_MAX && c.timing.time_in_driver >= c.timing.time_on_device);
}

static void test_async_rejects_at_once(void **state) {
  fixture *f = *state;
  completion c = COMPLETION_INIT;
  tagged t = {&c, 1};
  f->r.request.input_count = 1;
  assert_int_equal(vknn_prepared_model_execute_async(f->pm, &f->r.request, VKNN_MEASURE_TIMING_NO,
                                                     NULL, NULL, on_done, &t),
                   VKNN_STATUS_INVALID_ARGUMENT);
  f->r.request.input_count = 2;
  assert_int_equal(vknn_prepared_model_execute_async(f->pm, &f->r.request, VKNN_MEASURE_TIMING_NO,
                                                     NULL, NULL, NULL, NULL),
                   VKNN_STATUS_INVALID_ARGUMENT);
  vknn_deadline past = {true, 1};
  assert_int_equal(vknn_prepared_model_execute_async(f->pm, &f->r.request, VKNN_MEASURE_TIMING_NO,
                                                     &past, NULL, on_done, &t),
                   VKNN_STATUS_MISSED_DEADLINE_PERSISTENT);
  assert_int_equal(c.done, 0); /* no callback for a rejected launch */
}

/* A pool named by token carries no memory: whatever its memory fields hold
 * is ignored, also where an asynchronous execution copies the request. */
static void test_async_token_pool_ignores_memory(void **state) {
  fixture *f = *state;
  const vknn_buffer_role role = {0, 0, 1.f};
  vknn_buffer *buffer = NULL;
  uint32_t token = 0;
  assert_int_equal(vknn_device_allocate(f->device, NULL, 0, &f->pm, 1, &role, 1, NULL, 0, &buffer, &token),
                   VKNN_STATUS_NONE);
  shared_memory value;
  assert_int_equal(shared_memory_create(&value, 24), 0);
  memcpy(value.data, f->r.pool.data, 24);
  assert_int_equal(vknn_buffer_copy_from(buffer, &value.memory, NULL, 0), VKNN_STATUS_NONE);
  vknn_request_pool pools[2] = {f->r.pools[0], {.kind = VKNN_REQUEST_POOL_TOKEN, .token = token}};
  /* Fields a caller left as they were: counts without arrays, a name that is none. */
  pools[1].memory = (vknn_memory){.name = (const char *)(uintptr_t)8, .fd_count = 1u << 30,
                                  .int_count = 1u << 30, .size = 5};
  f->r.inputs[0].location = (vknn_data_location){1, 0, 0};
  f->r.request.pools = pools;
  f->r.request.pool_count = 2;
  completion c = COMPLETION_INIT;
  execute_async_and_wait(f, VKNN_MEASURE_TIMING_NO, &c);
  assert_int_equal(c.status, VKNN_STATUS_NONE);
  assert_float_equal(output(f, 5), 55.f, 0.f);
  shared_memory_destroy(&value);
  vknn_buffer_release(buffer);
}

/* Releasing a prepared model waits for its queued executions. */
static void test_release_waits_for_pending(void **state) {
  fixture *f = *state;
  completion c = COMPLETION_INIT;
  tagged tags[8];
  vknn_prepared_model *pm = prepare(f, VKNN_PRIORITY_LOW);
  for (int i = 0; i < 8; ++i) {
    tags[i] = (tagged){&c, i};
    assert_int_equal(vknn_prepared_model_execute_async(pm, &f->r.request, VKNN_MEASURE_TIMING_NO,
                                                       NULL, NULL, on_done, &tags[i]),
                     VKNN_STATUS_NONE);
  }
  vknn_prepared_model_release(pm);
  assert_int_equal(c.done, 8);
}

/* ---- fenced ---- */

static bool readable(int fd, int timeout_ms) {
  struct pollfd pfd = {.fd = fd, .events = POLLIN};
  return poll(&pfd, 1, timeout_ms) == 1;
}

/* The outcome once the sync fence signals (getExecutionInfo does not wait). */
static vknn_status fenced_outcome(vknn_fenced_execution *e, int fence, vknn_timing *launched,
                                  vknn_timing *fenced) {
  assert_true(readable(fence, 60000));
  return vknn_fenced_execution_get_info(e, launched, fenced);
}

/* A fenced execution waiting for gates (signaled) ends with `want`: NONE,
 * its fence signaled and the sum written, or a failure, its fence in error
 * and the output untouched (0). */
static void fenced_ends(fixture *f, const int *gates, uint32_t gate_count, const vknn_duration *after_fence,
                        vknn_status want) {
  int fence = -1;
  vknn_fenced_execution *e = NULL;
  assert_int_equal(vknn_prepared_model_execute_fenced(f->pm, &f->r.request, gates, gate_count, 0, NULL, NULL,
                                                      after_fence, &fence, &e),
                   VKNN_STATUS_NONE);
  assert_int_equal(fenced_outcome(e, fence, NULL, NULL), want);
  bool ran = want == VKNN_STATUS_NONE;
  assert_int_equal(vknn_sync_fence_wait(fence, 0), ran ? VKNN_SYNC_FENCE_SIGNALED : VKNN_SYNC_FENCE_ERROR);
  assert_float_equal(output(f, 2), ran ? 22.f : 0.f, 0.f);
  vknn_fenced_execution_release(e);
  close(fence);
}

static void fenced_runs(fixture *f, const int *gates, uint32_t gate_count, const vknn_duration *after_fence) {
  fenced_ends(f, gates, gate_count, after_fence, VKNN_STATUS_NONE);
}

static void test_fenced_waits_for_its_fences(void **state) {
  fixture *f = *state;
  int gate = eventfd(0, EFD_CLOEXEC), fence = -1;
  vknn_fenced_execution *e = NULL;
  assert_int_equal(vknn_prepared_model_execute_fenced(f->pm, &f->r.request, &gate, 1,
                                                      VKNN_MEASURE_TIMING_YES, NULL, NULL, NULL,
                                                      &fence, &e),
                   VKNN_STATUS_NONE);
  assert_false(readable(fence, 100)); /* the gate is not signaled: no work yet */
  /* HAL getExecutionInfo: before the sync fence signals, GENERAL_FAILURE
   * (it waited for the execution, here for ever). */
  vknn_timing launched, fenced;
  assert_int_equal(vknn_fenced_execution_get_info(e, &launched, &fenced), VKNN_STATUS_GENERAL_FAILURE);
  assert_true(launched.time_in_driver == UINT64_MAX && fenced.time_on_device == UINT64_MAX);
  uint64_t one = 1;
  assert_int_equal(write(gate, &one, sizeof(one)), sizeof(one));
  assert_true(readable(fence, 10000));
  assert_int_equal(vknn_fenced_execution_get_info(e, &launched, &fenced), VKNN_STATUS_NONE);
  assert_float_equal(output(f, 2), 22.f, 0.f);
  /* timingFenced starts when the fences signaled: at least the 100 ms the
   * gate stayed shut after the call separate the two. */
  assert_true(launched.time_in_driver >= fenced.time_in_driver + 90000);
  assert_true(fenced.time_in_driver >= fenced.time_on_device);
  vknn_fenced_execution_release(e);
  close(fence);
  close(gate);
}

/* How a sync fence stands: an eventfd not written is active (at once, and
 * after a wait), one written is signaled, a closed descriptor is in error,
 * and so is a fence that signaled an error (fault injection: none can be
 * made here without the kernel's test driver sw_sync). */
static void test_sync_fence_states(void **state) {
  (void)state;
  int active = eventfd(0, EFD_CLOEXEC), signaled = eventfd(1, EFD_CLOEXEC), closed = eventfd(0, EFD_CLOEXEC);
  close(closed);
  assert_int_equal(vknn_sync_fence_wait(active, 0), VKNN_SYNC_FENCE_ACTIVE);
  assert_int_equal(vknn_sync_fence_wait(active, 20), VKNN_SYNC_FENCE_ACTIVE);
  assert_int_equal(vknn_sync_fence_wait(signaled, 0), VKNN_SYNC_FENCE_SIGNALED);
  assert_int_equal(vknn_sync_fence_wait(signaled, -1), VKNN_SYNC_FENCE_SIGNALED);
  assert_int_equal(vknn_sync_fence_wait(closed, 0), VKNN_SYNC_FENCE_ERROR);
  vknn_fault_arm(VKNN_FAULT_SYNC_FENCE_ERROR, 1);
  assert_int_equal(vknn_sync_fence_wait(active, 0), VKNN_SYNC_FENCE_ACTIVE); /* counts no signal */
  assert_int_equal(vknn_sync_fence_wait(signaled, 0), VKNN_SYNC_FENCE_ERROR);
  assert_int_equal(vknn_sync_fence_wait(signaled, 0), VKNN_SYNC_FENCE_SIGNALED);
  vknn_fault_arm(VKNN_FAULT_SYNC_FENCE_ERROR, 0);
  /* A pipe (this driver's completion fences): a byte then the writer gone is
   * signaled; the writer gone without one, in error. */
  int data[2], hung_up[2];
  assert_int_equal(pipe(data), 0);
  assert_int_equal(pipe(hung_up), 0);
  assert_int_equal(vknn_sync_fence_wait(data[0], 0), VKNN_SYNC_FENCE_ACTIVE);
  assert_int_equal(write(data[1], "", 1), 1);
  close(data[1]);
  close(hung_up[1]);
  assert_int_equal(vknn_sync_fence_wait(data[0], 0), VKNN_SYNC_FENCE_SIGNALED);
  assert_int_equal(vknn_sync_fence_wait(hung_up[0], -1), VKNN_SYNC_FENCE_ERROR);
  close(data[0]);
  close(hung_up[0]);
  close(active);
  close(signaled);
}

/* A sync fence that signaled an error (the work of another driver it stood
 * for failed) fails the execution with GENERAL_FAILURE, logged naming the
 * fence, and the work does not run; the completion fence still signals.
 * Here the second of two signaled fences reads as failed (fault injection). */
static void test_fenced_fails_on_fence_error(void **state) {
  fixture *f = *state;
  int gates[2] = {eventfd(1, EFD_CLOEXEC), eventfd(1, EFD_CLOEXEC)}, fence = -1;
  vknn_fenced_execution *e = NULL;
  vknn_fault_arm(VKNN_FAULT_SYNC_FENCE_ERROR, 2);
  assert_int_equal(vknn_prepared_model_execute_fenced(f->pm, &f->r.request, gates, 2, VKNN_MEASURE_TIMING_YES,
                                                      NULL, NULL, NULL, &fence, &e),
                   VKNN_STATUS_NONE);
  vknn_timing launched, fenced;
  assert_int_equal(fenced_outcome(e, fence, &launched, &fenced), VKNN_STATUS_GENERAL_FAILURE);
  vknn_fault_arm(VKNN_FAULT_SYNC_FENCE_ERROR, 0);
  assert_true(launched.time_in_driver == UINT64_MAX && fenced.time_on_device == UINT64_MAX);
  assert_non_null(strstr(f->log.last, "sync fence 1 of 2 signaled an error"));
  assert_float_equal(output(f, 2), 0.f, 0.f); /* nothing ran */
  vknn_fenced_execution_release(e);
  /* Its own fence signals the failure on: an execution waiting for it fails. */
  assert_int_equal(vknn_sync_fence_wait(fence, 0), VKNN_SYNC_FENCE_ERROR);
  fenced_ends(f, &fence, 1, NULL, VKNN_STATUS_GENERAL_FAILURE);
  close(fence);
  fenced_runs(f, gates, 2, NULL); /* without the fault the same fences let it run */
  close(gates[0]);
  close(gates[1]);
}

/* A model output of unknown shape is fully specified by the request's
 * dimensions: a fenced execution takes it (HAL executeFenced needs the
 * outputs' dimensions known, from the model or the request). */
static void test_fenced_takes_request_output_shape(void **state) {
  fixture *f = *state;
  test_model m;
  vknn_prepared_model *pm = add_fixture_prepare_batch_unknown(f->device, &m);
  assert_non_null(pm);
  const uint32_t dims[2] = {2, 3};
  for (int i = 0; i < 2; ++i) f->r.inputs[i] = (vknn_request_argument){.location = f->r.inputs[i].location,
                                                                        .dimensions = dims, .dimension_count = 2};
  int fence = -1;
  vknn_fenced_execution *e = NULL;
  assert_int_equal(vknn_prepared_model_execute_fenced(pm, &f->r.request, NULL, 0, 0, NULL, NULL, NULL, &fence, &e),
                   VKNN_STATUS_INVALID_ARGUMENT); /* the output's shape known nowhere */
  f->r.outputs[0].dimensions = dims;
  f->r.outputs[0].dimension_count = 2;
  assert_int_equal(vknn_prepared_model_execute_fenced(pm, &f->r.request, NULL, 0, 0, NULL, NULL, NULL, &fence, &e),
                   VKNN_STATUS_NONE);
  assert_int_equal(fenced_outcome(e, fence, NULL, NULL), VKNN_STATUS_NONE);
  assert_float_equal(output(f, 5), 55.f, 0.f);
  vknn_fenced_execution_release(e);
  close(fence);
  vknn_prepared_model_release(pm);
}

static void test_fenced_rejects_bad_fences(void **state) {
  fixture *f = *state;
  int fence = -1, closed = eventfd(0, 0);
  close(closed);
  vknn_fenced_execution *e = NULL;
  const int negative = -1;
  assert_int_equal(vknn_prepared_model_execute_fenced(f->pm, &f->r.request, &negative, 1, 0, NULL, NULL,
                                                      NULL, &fence, &e),
                   VKNN_STATUS_INVALID_ARGUMENT);
  assert_int_equal(vknn_prepared_model_execute_fenced(f->pm, &f->r.request, &closed, 1, 0, NULL, NULL,
                                                      NULL, &fence, &e),
                   VKNN_STATUS_INVALID_ARGUMENT);
  assert_int_equal(fence, -1);
  assert_null(e);
}

/* A fence that never signals before the deadline: MISSED_DEADLINE_TRANSIENT. */
static void test_fenced_deadline_while_waiting(void **state) {
  fixture *f = *state;
  int gate = eventfd(0, EFD_CLOEXEC), fence = -1;
  vknn_deadline deadline = {true, test_boottime_ns() + 200000000ull};
  vknn_fenced_execution *e = NULL;
  assert_int_equal(vknn_prepared_model_execute_fenced(f->pm, &f->r.request, &gate, 1, 0, &deadline,
                                                      NULL, NULL, &fence, &e),
                   VKNN_STATUS_NONE);
  assert_int_equal(fenced_outcome(e, fence, NULL, NULL), VKNN_STATUS_MISSED_DEADLINE_TRANSIENT);
  assert_true(readable(fence, 1000)); /* signaled even on failure */
  vknn_fenced_execution_release(e);
  close(fence);
  close(gate);
}

/* An asynchronous execution whose callback holds the executor until the
 * test opens the gate. */
typedef struct gate {
  pthread_mutex_t lock;
  pthread_cond_t cond;
  bool entered, open;
} gate;

static void hold_executor(void *user_data, vknn_status status, const vknn_output_shape *shapes,
                          uint32_t shape_count, const vknn_timing *timing) {
  (void)status, (void)shapes, (void)shape_count, (void)timing;
  gate *g = user_data;
  pthread_mutex_lock(&g->lock);
  g->entered = true;
  pthread_cond_broadcast(&g->cond);
  while (!g->open) pthread_cond_wait(&g->cond, &g->lock);
  pthread_mutex_unlock(&g->lock);
}

static void occupy_executor(vknn_prepared_model *pm, const vknn_request *request, gate *g) {
  assert_int_equal(vknn_prepared_model_execute_async(pm, request, 0, NULL, NULL, hold_executor, g),
                   VKNN_STATUS_NONE);
  struct timespec limit = in_30_seconds();
  pthread_mutex_lock(&g->lock);
  int r = 0;
  while (!g->entered && r == 0) r = pthread_cond_timedwait(&g->cond, &g->lock, &limit);
  bool entered = g->entered;
  pthread_mutex_unlock(&g->lock);
  assert_true(entered);
}

static void open_gate(gate *g) {
  pthread_mutex_lock(&g->lock);
  g->open = true;
  pthread_cond_broadcast(&g->cond);
  pthread_mutex_unlock(&g->lock);
}

#define GATE_INIT {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false, false}

/* Requests of their own: executions on different executor threads must not
 * write one output memory at once. */
#define OWN_REQUESTS 7
static void own_requests_init(test_request *r, int count) {
  for (int i = 0; i < count; ++i) assert_int_equal(test_request_init_add(&r[i]), 0);
}
static void own_requests_release(test_request *r, int count) {
  for (int i = 0; i < count; ++i) test_request_release(&r[i]);
}

/* A HIGH priority execution queued behind LOW ones runs first: with both
 * executor threads held, the first one released takes the HIGH job. */
static void test_high_priority_runs_first(void **state) {
  fixture *f = *state;
  vknn_prepared_model *low = prepare(f, VKNN_PRIORITY_LOW), *high = prepare(f, VKNN_PRIORITY_HIGH);
  test_request r[OWN_REQUESTS];
  own_requests_init(r, OWN_REQUESTS);
  gate first = GATE_INIT, second = GATE_INIT;
  occupy_executor(low, &r[5].request, &first);
  occupy_executor(low, &r[6].request, &second);
  completion c = COMPLETION_INIT;
  tagged tags[5];
  for (int i = 0; i < 5; ++i) {
    tags[i] = (tagged){&c, i};
    vknn_prepared_model *pm = i == 4 ? high : low;
    assert_int_equal(vknn_prepared_model_execute_async(pm, &r[i].request, 0, NULL, NULL, on_done, &tags[i]),
                     VKNN_STATUS_NONE);
  }
  open_gate(&first);
  wait_done(&c, 1);
  assert_int_equal(c.order[0], 4); /* the HIGH one */
  open_gate(&second);
  wait_done(&c, 5);
  bool seen[4] = {false};
  for (int i = 1; i < 5; ++i) seen[c.order[i]] = true; /* then every LOW one */
  for (int i = 0; i < 4; ++i) assert_true(seen[i]);
  vknn_prepared_model_release(low);
  vknn_prepared_model_release(high);
  own_requests_release(r, OWN_REQUESTS);
}

/* One executor thread held up (here in a callback; on a GPU, waiting for
 * its work) leaves the other to run the next execution. */
static void test_executions_run_side_by_side(void **state) {
  fixture *f = *state;
  vknn_prepared_model *pm = prepare(f, VKNN_PRIORITY_MEDIUM);
  test_request r[2];
  own_requests_init(r, 2);
  gate g = GATE_INIT;
  occupy_executor(pm, &r[0].request, &g);
  completion c = COMPLETION_INIT;
  tagged t = {&c, 0};
  assert_int_equal(vknn_prepared_model_execute_async(pm, &r[1].request, 0, NULL, NULL, on_done, &t),
                   VKNN_STATUS_NONE);
  wait_done(&c, 1); /* while the gate is still closed */
  assert_int_equal(c.status, VKNN_STATUS_NONE);
  open_gate(&g);
  vknn_prepared_model_release(pm); /* waits for the held execution */
  own_requests_release(r, 2);
}

/* A HIGH fenced execution waiting for a fence that a LOW execution's
 * completion would signal does not hold up that LOW execution (nor any
 * other): fences are waited for off the executor. */
static void test_fence_wait_holds_up_nothing(void **state) {
  fixture *f = *state;
  vknn_prepared_model *low = prepare(f, VKNN_PRIORITY_LOW), *high = prepare(f, VKNN_PRIORITY_HIGH);
  int low_fence = -1, high_fence = -1, gate_fd = eventfd(0, EFD_CLOEXEC);
  vknn_fenced_execution *first = NULL, *second = NULL;
  /* LOW waits for a gate; HIGH waits for LOW's completion fence. */
  assert_int_equal(vknn_prepared_model_execute_fenced(low, &f->r.request, &gate_fd, 1, 0, NULL, NULL,
                                                      NULL, &low_fence, &first),
                   VKNN_STATUS_NONE);
  assert_int_equal(vknn_prepared_model_execute_fenced(high, &f->r.request, &low_fence, 1, 0, NULL,
                                                      NULL, NULL, &high_fence, &second),
                   VKNN_STATUS_NONE);
  /* Meanwhile plain asynchronous work runs. */
  completion c = COMPLETION_INIT;
  tagged t = {&c, 0};
  assert_int_equal(vknn_prepared_model_execute_async(low, &f->r.request, 0, NULL, NULL, on_done, &t),
                   VKNN_STATUS_NONE);
  wait_done(&c, 1);
  assert_int_equal(c.status, VKNN_STATUS_NONE);
  assert_false(readable(high_fence, 0));
  uint64_t one = 1;
  assert_int_equal(write(gate_fd, &one, sizeof(one)), sizeof(one));
  assert_true(readable(high_fence, 10000));
  assert_int_equal(fenced_outcome(first, low_fence, NULL, NULL), VKNN_STATUS_NONE);
  assert_int_equal(fenced_outcome(second, high_fence, NULL, NULL), VKNN_STATUS_NONE);
  vknn_fenced_execution_release(first);
  vknn_fenced_execution_release(second);
  close(low_fence);
  close(high_fence);
  close(gate_fd);
  vknn_prepared_model_release(low);
  vknn_prepared_model_release(high);
}

/* The caller may close its fence descriptors once the call returns. */
static void test_fenced_keeps_its_own_descriptors(void **state) {
  fixture *f = *state;
  int gate_fd = eventfd(0, EFD_CLOEXEC), caller_copy = dup(gate_fd), fence = -1;
  vknn_fenced_execution *e = NULL;
  assert_int_equal(vknn_prepared_model_execute_fenced(f->pm, &f->r.request, &caller_copy, 1, 0, NULL,
                                                      NULL, NULL, &fence, &e),
                   VKNN_STATUS_NONE);
  close(caller_copy);
  assert_false(readable(fence, 50));
  uint64_t one = 1;
  assert_int_equal(write(gate_fd, &one, sizeof(one)), sizeof(one));
  assert_true(readable(fence, 10000));
  assert_int_equal(fenced_outcome(e, fence, NULL, NULL), VKNN_STATUS_NONE);
  vknn_fenced_execution_release(e);
  close(fence);
  close(gate_fd);
}

/* ---- waiting in the executor: deadlines and driver time ---- */

/* Both executor threads held by executions of a prepared model of their
 * own; the test then queues work behind them. */
typedef struct held_executor {
  vknn_prepared_model *pm;
  test_request r[2];
  gate gates[2];
} held_executor;

static void hold_both_threads(fixture *f, held_executor *h) {
  h->pm = prepare(f, VKNN_PRIORITY_HIGH);
  own_requests_init(h->r, 2);
  for (int i = 0; i < 2; ++i) {
    h->gates[i] = (gate)GATE_INIT;
    occupy_executor(h->pm, &h->r[i].request, &h->gates[i]);
  }
}

static void release_both_threads(held_executor *h) {
  for (int i = 0; i < 2; ++i) open_gate(&h->gates[i]);
}

/* Waits for the held executions to return (they use h's gates). */
static void finish_held(held_executor *h) {
  vknn_prepared_model_release(h->pm);
  own_requests_release(h->r, 2);
}

static void sleep_ms(long ms) {
  struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&t, NULL);
}

/* How far ahead the queued executions' deadline lies: far enough that the
 * call itself, on a loaded machine, does not outlast it. */
#define QUEUE_DEADLINE_MS 250

/* A deadline that passes while the execution waits for the busy driver is
 * MISSED_DEADLINE_TRANSIENT (a retry may make it); one already past at the
 * call stays PERSISTENT. */
static void test_async_deadline_passes_in_queue(void **state) {
  fixture *f = *state;
  held_executor h;
  hold_both_threads(f, &h);
  completion c = COMPLETION_INIT;
  tagged t = {&c, 0};
  vknn_deadline soon = {true, test_boottime_ns() + QUEUE_DEADLINE_MS * 1000000ull};
  assert_int_equal(vknn_prepared_model_execute_async(f->pm, &f->r.request, 0, &soon, NULL, on_done, &t),
                   VKNN_STATUS_NONE);
  sleep_ms(2 * QUEUE_DEADLINE_MS);
  release_both_threads(&h);
  wait_done(&c, 1);
  assert_int_equal(c.status, VKNN_STATUS_MISSED_DEADLINE_TRANSIENT);
  assert_int_equal(c.shape_count, 0); /* shapes go with NONE and OUTPUT_INSUFFICIENT_SIZE only */
  vknn_deadline past = {true, test_boottime_ns() - 1};
  assert_int_equal(vknn_prepared_model_execute_async(f->pm, &f->r.request, 0, &past, NULL, on_done, &t),
                   VKNN_STATUS_MISSED_DEADLINE_PERSISTENT);
  finish_held(&h);
}

/* The duration after the fences bounds a fenced execution like a deadline:
 * one that has passed by the time the executor takes the job fails it
 * before it runs (the output stays as it was); a generous one lets it run. */
static void test_fenced_duration_after_fence(void **state) {
  fixture *f = *state;
  held_executor h;
  hold_both_threads(f, &h);
  float *out = (float *)(f->r.pool.data + f->r.outputs[0].location.offset);
  out[2] = -1.f;
  int fence = -1;
  vknn_fenced_execution *e = NULL;
  const vknn_duration short_after = {true, QUEUE_DEADLINE_MS * 1000000ull};
  assert_int_equal(vknn_prepared_model_execute_fenced(f->pm, &f->r.request, NULL, 0, 0, NULL, NULL, &short_after,
                                                      &fence, &e),
                   VKNN_STATUS_NONE);
  sleep_ms(2 * QUEUE_DEADLINE_MS);
  release_both_threads(&h);
  assert_int_equal(fenced_outcome(e, fence, NULL, NULL), VKNN_STATUS_MISSED_DEADLINE_TRANSIENT);
  assert_float_equal(out[2], -1.f, 0.f); /* never ran */
  vknn_fenced_execution_release(e);
  close(fence);
  finish_held(&h);
  const vknn_duration long_after = {true, 60ull * 1000000000ull};
  fenced_runs(f, NULL, 0, &long_after);
}

static void test_fenced_deadline_passes_in_queue(void **state) {
  fixture *f = *state;
  held_executor h;
  hold_both_threads(f, &h);
  int fence = -1;
  vknn_fenced_execution *e = NULL;
  vknn_deadline soon = {true, test_boottime_ns() + QUEUE_DEADLINE_MS * 1000000ull};
  assert_int_equal(vknn_prepared_model_execute_fenced(f->pm, &f->r.request, NULL, 0, 0, &soon, NULL,
                                                      NULL, &fence, &e),
                   VKNN_STATUS_NONE);
  sleep_ms(2 * QUEUE_DEADLINE_MS);
  release_both_threads(&h);
  assert_int_equal(fenced_outcome(e, fence, NULL, NULL), VKNN_STATUS_MISSED_DEADLINE_TRANSIENT);
  assert_true(readable(fence, 1000));
  vknn_fenced_execution_release(e);
  close(fence);
  vknn_deadline past = {true, test_boottime_ns() - 1};
  e = NULL;
  assert_int_equal(vknn_prepared_model_execute_fenced(f->pm, &f->r.request, NULL, 0, 0, &past, NULL,
                                                      NULL, &fence, &e),
                   VKNN_STATUS_MISSED_DEADLINE_PERSISTENT);
  assert_null(e);
  finish_held(&h);
}

/* Driver time runs from the call: an execution that waited 100 ms in the
 * queue reports at least that, and never less than its device time. */
static void test_driver_time_includes_queue_wait(void **state) {
  fixture *f = *state;
  held_executor h;
  hold_both_threads(f, &h);
  completion c = COMPLETION_INIT;
  tagged t = {&c, 0};
  assert_int_equal(vknn_prepared_model_execute_async(f->pm, &f->r.request, VKNN_MEASURE_TIMING_YES,
                                                     NULL, NULL, on_done, &t),
                   VKNN_STATUS_NONE);
  int fence = -1;
  vknn_fenced_execution *e = NULL;
  assert_int_equal(vknn_prepared_model_execute_fenced(f->pm, &f->r.request, NULL, 0,
                                                      VKNN_MEASURE_TIMING_YES, NULL, NULL, NULL,
                                                      &fence, &e),
                   VKNN_STATUS_NONE);
  sleep_ms(100);
  release_both_threads(&h);
  wait_done(&c, 1);
  assert_int_equal(c.status, VKNN_STATUS_NONE);
  assert_true(c.timing.time_in_driver != UINT64_MAX && c.timing.time_in_driver >= 100000);
  assert_true(c.timing.time_on_device == UINT64_MAX ||
              c.timing.time_in_driver >= c.timing.time_on_device);
  vknn_timing launched, fenced;
  assert_int_equal(fenced_outcome(e, fence, &launched, &fenced), VKNN_STATUS_NONE);
  /* No fence to wait for: signaled at the call, so both include the wait. */
  assert_true(launched.time_in_driver >= 100000 && fenced.time_in_driver >= 100000);
  assert_true(launched.time_in_driver >= fenced.time_in_driver);
  assert_true(fenced.time_on_device == UINT64_MAX || fenced.time_in_driver >= fenced.time_on_device);
  vknn_fenced_execution_release(e);
  close(fence);
  /* Synchronous and burst: driver time covers device time. */
  vknn_timing timing;
  assert_int_equal(vknn_prepared_model_execute(f->pm, &f->r.request, VKNN_MEASURE_TIMING_YES, NULL,
                                               NULL, NULL, 0, &timing),
                   VKNN_STATUS_NONE);
  assert_true(timing.time_in_driver != UINT64_MAX);
  assert_true(timing.time_on_device == UINT64_MAX || timing.time_in_driver >= timing.time_on_device);
  finish_held(&h);
}

/* ---- loop timeout and execution preference ---- */

/* The loop timeout: the HAL's 2 s when none is given, the caller's when
 * given, 15 s when more is asked (clamped, not an error). */
static void test_loop_timeout_kept_and_clamped(void **state) {
  fixture *f = *state;
  vknn_execution_options o = vknn_execution_options_make(f->pm, 0, NULL, NULL);
  assert_int_equal(o.loop_timeout_ns, VKNN_LOOP_TIMEOUT_DEFAULT_NS);
  const vknn_duration unset = {false, 7};
  o = vknn_execution_options_make(f->pm, 0, NULL, &unset);
  assert_int_equal(o.loop_timeout_ns, VKNN_LOOP_TIMEOUT_DEFAULT_NS);
  const vknn_duration five = {true, 5000000000ull};
  o = vknn_execution_options_make(f->pm, 0, NULL, &five);
  assert_int_equal(o.loop_timeout_ns, 5000000000ull);
  const vknn_duration twenty = {true, 20000000000ull};
  o = vknn_execution_options_make(f->pm, 0, NULL, &twenty);
  assert_int_equal(o.loop_timeout_ns, VKNN_LOOP_TIMEOUT_MAXIMUM_NS);
  assert_int_equal(vknn_prepared_model_execute(f->pm, &f->r.request, 0, NULL, &twenty, NULL, 0, NULL),
                   VKNN_STATUS_NONE);
  const vknn_duration zero = {true, 0};
  assert_int_equal(vknn_prepared_model_execute(f->pm, &f->r.request, 0, NULL, &zero, NULL, 0, NULL),
                   VKNN_STATUS_NONE);
}

/* The preference is one of the HAL's three and is kept. */
static void test_preference_validated_and_kept(void **state) {
  fixture *f = *state;
  const vknn_execution_preference valid[] = {VKNN_PREFER_LOW_POWER, VKNN_PREFER_FAST_SINGLE_ANSWER,
                                             VKNN_PREFER_SUSTAINED_SPEED};
  for (int i = 0; i < 3; ++i) {
    vknn_prepared_model *pm = NULL;
    assert_int_equal(vknn_device_prepare_model(f->device, &f->model.model, valid[i],
                                               VKNN_PRIORITY_LOW, NULL, &pm),
                     VKNN_STATUS_NONE);
    assert_int_equal(pm->preference, valid[i]);
    vknn_prepared_model_release(pm);
  }
  const int invalid[] = {-1, 3};
  for (int i = 0; i < 2; ++i) {
    vknn_prepared_model *pm = NULL;
    assert_int_equal(vknn_device_prepare_model(f->device, &f->model.model,
                                               (vknn_execution_preference)invalid[i],
                                               VKNN_PRIORITY_LOW, NULL, &pm),
                     VKNN_STATUS_INVALID_ARGUMENT);
    assert_null(pm);
  }
}

/* ---- burst ---- */

static void test_burst_caches_memory_by_slot(void **state) {
  fixture *f = *state;
  vknn_burst *burst = NULL;
  assert_int_equal(vknn_burst_create(f->pm, &burst), VKNN_STATUS_NONE);
  const int32_t slots[1] = {3};
  assert_int_equal(vknn_burst_execute(burst, &f->r.request, slots, 0, NULL, NULL, NULL, 0, NULL), VKNN_STATUS_NONE);
  assert_float_equal(output(f, 1), 11.f, 0.f);
  /* The same slot with another memory: the cached one is used. */
  shared_memory other;
  assert_int_equal(shared_memory_create(&other, 72), 0);
  for (int i = 0; i < 12; ++i) ((float *)other.data)[i] = 1.f;
  f->r.pools[0].memory = other.memory;
  assert_int_equal(vknn_burst_execute(burst, &f->r.request, slots, 0, NULL, NULL, NULL, 0, NULL), VKNN_STATUS_NONE);
  assert_float_equal(((const float *)(other.data + 48))[1], 0.f, 0.f);
  /* Once freed, the slot takes the memory given with it. */
  assert_int_equal(vknn_burst_free_memory(burst, 3), VKNN_STATUS_NONE);
  assert_int_equal(vknn_burst_execute(burst, &f->r.request, slots, 0, NULL, NULL, NULL, 0, NULL), VKNN_STATUS_NONE);
  assert_float_equal(((const float *)(other.data + 48))[1], 2.f, 0.f);
  assert_int_equal(vknn_burst_execute(burst, &f->r.request, NULL, 0, NULL, NULL, NULL, 0, NULL),
                   VKNN_STATUS_INVALID_ARGUMENT);
  assert_non_null(strstr(f->log.last, "1 pools and no slots"));
  assert_int_equal(vknn_burst_create(f->pm, NULL), VKNN_STATUS_INVALID_ARGUMENT);
  assert_non_null(strstr(f->log.last, "no place for the burst"));
  const int32_t negative[1] = {-1};
  assert_int_equal(vknn_burst_execute(burst, &f->r.request, negative, 0, NULL, NULL, NULL, 0, NULL),
                   VKNN_STATUS_INVALID_ARGUMENT);
  /* The memory a cached slot holds bounds the arguments, not the one the
   * request gives with it: an output past the slot's 72 bytes is refused. */
  shared_memory big;
  assert_int_equal(shared_memory_create(&big, 16384), 0);
  f->r.pools[0].memory = big.memory;
  uint32_t offset = f->r.outputs[0].location.offset;
  f->r.outputs[0].location.offset = 8192;
  assert_int_equal(vknn_burst_execute(burst, &f->r.request, slots, 0, NULL, NULL, NULL, 0, NULL),
                   VKNN_STATUS_INVALID_ARGUMENT);
  f->r.outputs[0].location.offset = offset;
  vknn_burst_release(burst);
  shared_memory_destroy(&big);
  shared_memory_destroy(&other);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_async_reports_through_callback, setup, teardown),
      cmocka_unit_test_setup_teardown(test_async_rejects_at_once, setup, teardown),
      cmocka_unit_test_setup_teardown(test_async_token_pool_ignores_memory, setup, teardown),
      cmocka_unit_test_setup_teardown(test_release_waits_for_pending, setup, teardown),
      cmocka_unit_test_setup_teardown(test_fenced_waits_for_its_fences, setup, teardown),
      cmocka_unit_test_setup_teardown(test_fenced_takes_request_output_shape, setup, teardown),
      cmocka_unit_test_setup_teardown(test_fenced_rejects_bad_fences, setup, teardown),
      cmocka_unit_test(test_sync_fence_states),
      cmocka_unit_test_setup_teardown(test_fenced_fails_on_fence_error, setup, teardown),
      cmocka_unit_test_setup_teardown(test_fenced_deadline_while_waiting, setup, teardown),
      cmocka_unit_test_setup_teardown(test_high_priority_runs_first, setup, teardown),
      cmocka_unit_test_setup_teardown(test_executions_run_side_by_side, setup, teardown),
      cmocka_unit_test_setup_teardown(test_fence_wait_holds_up_nothing, setup, teardown),
      cmocka_unit_test_setup_teardown(test_fenced_keeps_its_own_descriptors, setup, teardown),
      cmocka_unit_test_setup_teardown(test_async_deadline_passes_in_queue, setup, teardown),
      cmocka_unit_test_setup_teardown(test_fenced_deadline_passes_in_queue, setup, teardown),
      cmocka_unit_test_setup_teardown(test_fenced_duration_after_fence, setup, teardown),
      cmocka_unit_test_setup_teardown(test_driver_time_includes_queue_wait, setup, teardown),
      cmocka_unit_test_setup_teardown(test_loop_timeout_kept_and_clamped, setup, teardown),
      cmocka_unit_test_setup_teardown(test_preference_validated_and_kept, setup, teardown),
      cmocka_unit_test_setup_teardown(test_burst_caches_memory_by_slot, setup, teardown),
  };
  return cmocka_run_group_tests_name("execution_paths", tests, NULL, NULL);
}
