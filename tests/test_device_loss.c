/* A lost device (fault injection makes a queue submission or a fence wait
 * report VK_ERROR_DEVICE_LOST): the execution in flight fails with
 * DEVICE_UNAVAILABLE, through whatever path it came (sync, async callback,
 * fenced, burst), every later one fails at once without touching the GPU,
 * prepare and allocate fail too, the loss is logged once, and releasing and
 * closing still work (run under ASan for leaks). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "support/test_model.h"
#include "util/fault_injection.h"
#include "vknn/vknn.h"

/* Counts the error lines that announce the loss. */
typedef struct loss_log {
  pthread_mutex_t lock;
  int device_lost_lines;
} loss_log;

static void count_loss_lines(void *user_data, vknn_log_level level, const char *tag,
                             const char *message) {
  (void)tag;
  loss_log *log = user_data;
  if (level != VKNN_LOG_ERROR || strstr(message, "device lost") == NULL) return;
  pthread_mutex_lock(&log->lock);
  log->device_lost_lines++;
  pthread_mutex_unlock(&log->lock);
}

typedef struct fixture {
  loss_log log;
  vknn_device *device;
  test_model model;
  vknn_prepared_model *pm;
  test_request r;
} fixture;

/* One executor thread: queued executions run one after the other. */
static int setup(void **state) {
  fixture *f = calloc(1, sizeof(*f));
  if (f == NULL) return -1;
  pthread_mutex_init(&f->log.lock, NULL);
  vknn_device_options options = {.enable_validation = true,
                                 .executor_threads = 1,
                                 .log_callback = count_loss_lines,
                                 .log_user_data = &f->log};
  if (vknn_device_open(&options, &f->device) != VKNN_STATUS_NONE) return -1;
  test_model_init_add(&f->model, VKNN_OPERAND_TENSOR_FLOAT32);
  if (vknn_device_prepare_model(f->device, &f->model.model, VKNN_PREFER_FAST_SINGLE_ANSWER,
                                VKNN_PRIORITY_MEDIUM, NULL, &f->pm) != VKNN_STATUS_NONE)
    return -1;
  if (test_request_init_add(&f->r) != 0) return -1;
  *state = f;
  return 0;
}

/* Releases after the loss: the prepared model, then the device. */
static int teardown(void **state) {
  fixture *f = *state;
  vknn_fault_arm(VKNN_FAULT_QUEUE_SUBMIT, 0);
  vknn_fault_arm(VKNN_FAULT_FENCE_WAIT, 0);
  vknn_prepared_model_release(f->pm);
  uint64_t messages = vknn_device_get_validation_message_count(f->device);
  vknn_device_close(f->device);
  test_request_release(&f->r);
  pthread_mutex_destroy(&f->log.lock);
  free(f);
  return messages == 0 ? 0 : -1;
}

static vknn_status execute(fixture *f) {
  return vknn_prepared_model_execute(f->pm, &f->r.request, VKNN_MEASURE_TIMING_YES, NULL, NULL,
                                     NULL, 0, NULL);
}

static vknn_device_statistics statistics(const fixture *f) {
  vknn_device_statistics s;
  assert_int_equal(vknn_device_get_statistics(f->device, &s), VKNN_STATUS_NONE);
  return s;
}

/* After the loss: nothing reaches the GPU, prepare, allocate and the
 * support query fail, and the loss was logged once. */
static void assert_everything_refused(fixture *f) {
  uint64_t submissions = statistics(f).submissions;
  for (int i = 0; i < 3; ++i) assert_int_equal(execute(f), VKNN_STATUS_DEVICE_UNAVAILABLE);
  assert_int_equal(statistics(f).submissions, submissions);
  vknn_prepared_model *pm = NULL;
  assert_int_equal(vknn_device_prepare_model(f->device, &f->model.model, VKNN_PREFER_LOW_POWER,
                                             VKNN_PRIORITY_MEDIUM, NULL, &pm),
                   VKNN_STATUS_DEVICE_UNAVAILABLE);
  assert_null(pm);
  vknn_buffer *buffer = NULL;
  uint32_t token = 0;
  const vknn_buffer_role role = {0, 0, 1.f};
  assert_int_equal(vknn_device_allocate(f->device, NULL, 0, &f->pm, 1, &role, 1, NULL, 0, &buffer,
                                        &token),
                   VKNN_STATUS_DEVICE_UNAVAILABLE);
  assert_null(buffer);
  bool supported = true;
  assert_int_equal(vknn_device_get_supported_operations(f->device, &f->model.model, &supported, 1),
                   VKNN_STATUS_DEVICE_UNAVAILABLE);
  assert_int_equal(f->log.device_lost_lines, 1);
}

/* The failed wait's instance is destroyed, not taken back: no instance is
 * left with a fence in an unknown state. */
static void test_sync_wait_lost(void **state) {
  fixture *f = *state;
  assert_int_equal(execute(f), VKNN_STATUS_NONE);
  assert_int_equal(statistics(f).graph_instances, 1);
  vknn_fault_arm(VKNN_FAULT_FENCE_WAIT, 1);
  assert_int_equal(execute(f), VKNN_STATUS_DEVICE_UNAVAILABLE);
  assert_int_equal(statistics(f).graph_instances, 0);
  assert_everything_refused(f);
}

static void test_sync_submit_lost(void **state) {
  fixture *f = *state;
  vknn_fault_arm(VKNN_FAULT_QUEUE_SUBMIT, 1);
  assert_int_equal(execute(f), VKNN_STATUS_DEVICE_UNAVAILABLE);
  assert_int_equal(statistics(f).graph_instances, 0);
  assert_everything_refused(f);
}

/* ---- async: the execution in flight and those queued behind it ---- */

typedef struct completion {
  pthread_mutex_t lock;
  pthread_cond_t cond;
  int done;
  vknn_status status[8];
} completion;

static void on_done(void *user_data, vknn_status status, const vknn_output_shape *shapes,
                    uint32_t shape_count, const vknn_timing *timing) {
  (void)shapes, (void)shape_count, (void)timing;
  completion *c = user_data;
  pthread_mutex_lock(&c->lock);
  c->status[c->done++] = status;
  pthread_cond_broadcast(&c->cond);
  pthread_mutex_unlock(&c->lock);
}

static void wait_done(completion *c, int count) {
  struct timespec limit;
  clock_gettime(CLOCK_REALTIME, &limit);
  limit.tv_sec += 30;
  pthread_mutex_lock(&c->lock);
  int r = 0;
  while (c->done < count && r == 0) r = pthread_cond_timedwait(&c->cond, &c->lock, &limit);
  bool done = c->done >= count;
  pthread_mutex_unlock(&c->lock);
  assert_true(done);
}

/* Queues count asynchronous executions and waits for their callbacks. */
static void run_queue(fixture *f, completion *c, int count) {
  for (int i = 0; i < count; ++i)
    assert_int_equal(vknn_prepared_model_execute_async(f->pm, &f->r.request, VKNN_MEASURE_TIMING_NO,
                                                       NULL, NULL, on_done, c),
                     VKNN_STATUS_NONE);
  wait_done(c, count);
}

static void test_async_reports_loss(void **state) {
  fixture *f = *state;
  completion c = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, {0}};
  vknn_fault_arm(VKNN_FAULT_FENCE_WAIT, 1);
  run_queue(f, &c, 4);
  for (int i = 0; i < 4; ++i) assert_int_equal(c.status[i], VKNN_STATUS_DEVICE_UNAVAILABLE);
  /* A later launch is refused at once: no callback. */
  assert_int_equal(vknn_prepared_model_execute_async(f->pm, &f->r.request, VKNN_MEASURE_TIMING_NO,
                                                     NULL, NULL, on_done, &c),
                   VKNN_STATUS_DEVICE_UNAVAILABLE);
  assert_int_equal(c.done, 4);
  assert_everything_refused(f);
}

/* ---- fenced: the status through get_info, the fence still signaled ---- */

static void test_fenced_reports_loss(void **state) {
  fixture *f = *state;
  vknn_fault_arm(VKNN_FAULT_QUEUE_SUBMIT, 1);
  int fence = -1;
  vknn_fenced_execution *e = NULL;
  vknn_timing launched, fenced;
  assert_int_equal(vknn_prepared_model_execute_fenced(f->pm, &f->r.request, NULL, 0,
                                                      VKNN_MEASURE_TIMING_YES, NULL, NULL, NULL,
                                                      &fence, &e),
                   VKNN_STATUS_NONE);
  struct pollfd pfd = {.fd = fence, .events = POLLIN};
  assert_int_equal(poll(&pfd, 1, 30000), 1);
  assert_int_equal(vknn_fenced_execution_get_info(e, &launched, &fenced),
                   VKNN_STATUS_DEVICE_UNAVAILABLE);
  assert_true(launched.time_in_driver == UINT64_MAX && fenced.time_on_device == UINT64_MAX);
  vknn_fenced_execution_release(e);
  close(fence);
  e = NULL;
  assert_int_equal(vknn_prepared_model_execute_fenced(f->pm, &f->r.request, NULL, 0,
                                                      VKNN_MEASURE_TIMING_NO, NULL, NULL, NULL,
                                                      &fence, &e),
                   VKNN_STATUS_DEVICE_UNAVAILABLE);
  assert_int_equal(fence, -1);
  assert_null(e);
  assert_everything_refused(f);
}

/* ---- burst ---- */

static void test_burst_reports_loss(void **state) {
  fixture *f = *state;
  vknn_burst *burst = NULL;
  const int32_t slots[1] = {0};
  assert_int_equal(vknn_burst_create(f->pm, &burst), VKNN_STATUS_NONE);
  assert_int_equal(vknn_burst_execute(burst, &f->r.request, slots, 0, NULL, NULL, NULL, 0, NULL),
                   VKNN_STATUS_NONE);
  vknn_fault_arm(VKNN_FAULT_FENCE_WAIT, 1);
  assert_int_equal(vknn_burst_execute(burst, &f->r.request, slots, 0, NULL, NULL, NULL, 0, NULL),
                   VKNN_STATUS_DEVICE_UNAVAILABLE);
  assert_int_equal(vknn_burst_execute(burst, &f->r.request, slots, 0, NULL, NULL, NULL, 0, NULL),
                   VKNN_STATUS_DEVICE_UNAVAILABLE);
  vknn_burst_release(burst);
  assert_everything_refused(f);
}

/* A loss in the middle of a queue of executions: those before it succeed,
 * it and every one after fail, and the pool keeps no instance that failed. */
static void test_loss_in_a_queue(void **state) {
  fixture *f = *state;
  completion c = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, {0}};
  vknn_fault_arm(VKNN_FAULT_FENCE_WAIT, 3);
  run_queue(f, &c, 6);
  /* One thread: the first two ran, the third lost the device, the rest
   * were refused. */
  for (int i = 0; i < 6; ++i)
    assert_int_equal(c.status[i], i < 2 ? VKNN_STATUS_NONE : VKNN_STATUS_DEVICE_UNAVAILABLE);
  assert_int_equal(statistics(f).graph_instances, 0);
  assert_everything_refused(f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_sync_wait_lost, setup, teardown),
      cmocka_unit_test_setup_teardown(test_sync_submit_lost, setup, teardown),
      cmocka_unit_test_setup_teardown(test_async_reports_loss, setup, teardown),
      cmocka_unit_test_setup_teardown(test_fenced_reports_loss, setup, teardown),
      cmocka_unit_test_setup_teardown(test_burst_reports_loss, setup, teardown),
      cmocka_unit_test_setup_teardown(test_loss_in_a_queue, setup, teardown),
  };
  return cmocka_run_group_tests_name("device_loss", tests, NULL, NULL);
}
