/* Overlapping executions of one prepared model, the watchdog that releases
 * what they leave idle, and deadlines that stop an execution between two
 * command-buffer segments. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/shared_memory.h"
#include "support/model_builder.h"
#include "support/test_model.h"
#include "vknn/vknn.h"

#define CHAIN 16 /* ADDs in a row: two segments of eight dispatches */
#define THREADS 4
#define ROUNDS 12

/* out = in0 + CHAIN * in1, as CHAIN ADDs in a row. */
static const vknn_model *chain_model(model_builder *b, uint32_t elements) {
  mb_init(b);
  const uint32_t dims[1] = {elements};
  uint32_t sum = mb_input(b, VKNN_OPERAND_TENSOR_FLOAT32, dims, 1);
  uint32_t addend = mb_input(b, VKNN_OPERAND_TENSOR_FLOAT32, dims, 1);
  uint32_t none = mb_const_i32(b, 0);
  for (int i = 0; i < CHAIN; ++i) {
    uint32_t next = i == CHAIN - 1 ? mb_output(b, VKNN_OPERAND_TENSOR_FLOAT32, dims, 1)
                                   : mb_temporary(b, VKNN_OPERAND_TENSOR_FLOAT32, dims, 1);
    const uint32_t in[3] = {sum, addend, none};
    mb_operation(b, VKNN_OPERATION_ADD, in, 3, &next, 1);
    sum = next;
  }
  return mb_finish(b);
}

/* Inputs and output in one memfd pool: in0 | in1 | out. */
typedef struct chain_request {
  shared_memory pool;
  uint32_t elements;
  vknn_request_argument inputs[2];
  vknn_request_argument outputs[1];
  vknn_request_pool pools[1];
  vknn_request request;
} chain_request;

static void chain_request_init(chain_request *r, uint32_t elements, float base, float step) {
  uint32_t bytes = elements * sizeof(float);
  assert_int_equal(shared_memory_create(&r->pool, 3 * (size_t)bytes), 0);
  r->elements = elements;
  float *in0 = (float *)r->pool.data, *in1 = in0 + elements;
  for (uint32_t i = 0; i < elements; ++i) {
    in0[i] = base + (float)(i % 100);
    in1[i] = step;
  }
  for (int i = 0; i < 3; ++i) {
    vknn_request_argument *a = i < 2 ? &r->inputs[i] : &r->outputs[0];
    *a = (vknn_request_argument){.location = {0, (uint32_t)i * bytes, bytes}};
  }
  r->pools[0] = (vknn_request_pool){.kind = VKNN_REQUEST_POOL_MEMORY, .memory = r->pool.memory};
  r->request = (vknn_request){r->inputs, 2, r->outputs, 1, r->pools, 1};
}

static bool chain_request_correct(const chain_request *r, float base, float step) {
  const float *out = (const float *)r->pool.data + 2 * r->elements;
  for (uint32_t i = 0; i < r->elements; ++i)
    if (out[i] != base + (float)(i % 100) + CHAIN * step) return false;
  return true;
}

typedef struct fixture {
  vknn_device *device;
  model_builder builder;
} fixture;

static int setup(void **state) {
  fixture *f = calloc(1, sizeof(*f));
  vknn_device_options options = {.enable_validation = true, .idle_release_ms = 50};
  if (f == NULL || vknn_device_open(&options, &f->device) != VKNN_STATUS_NONE) return -1;
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fixture *f = *state;
  uint64_t messages = vknn_device_get_validation_message_count(f->device);
  vknn_device_close(f->device);
  free(f);
  return messages == 0 ? 0 : -1;
}

static vknn_prepared_model *prepare(fixture *f, uint32_t elements) {
  vknn_prepared_model *pm = NULL;
  assert_int_equal(vknn_device_prepare_model(f->device, chain_model(&f->builder, elements),
                                             VKNN_PREFER_FAST_SINGLE_ANSWER, VKNN_PRIORITY_MEDIUM,
                                             NULL, &pm),
                   VKNN_STATUS_NONE);
  return pm;
}

static vknn_device_statistics statistics(const fixture *f) {
  vknn_device_statistics s;
  assert_int_equal(vknn_device_get_statistics(f->device, &s), VKNN_STATUS_NONE);
  return s;
}

typedef struct worker {
  vknn_prepared_model *pm;
  float base, step;
  int wrong; /* executions that failed or gave a wrong result */
} worker;

static void *execute_rounds(void *arg) {
  worker *w = arg;
  chain_request r;
  chain_request_init(&r, 1 << 16, w->base, w->step);
  for (int i = 0; i < ROUNDS; ++i) {
    memset(r.pool.data + 2 * r.pool.size / 3, 0, r.pool.size / 3);
    vknn_status s = vknn_prepared_model_execute(w->pm, &r.request, VKNN_MEASURE_TIMING_NO, NULL,
                                                NULL, NULL, 0, NULL);
    w->wrong += s != VKNN_STATUS_NONE || !chain_request_correct(&r, w->base, w->step);
    /* The accessors read the graph other threads' executions replace. */
    vknn_prepared_model_info info;
    w->wrong += vknn_prepared_model_get_info(w->pm, &info) != VKNN_STATUS_NONE ||
                info.dispatch_count == 0 || vknn_prepared_model_get_dispatch_kernel(w->pm, 0) == NULL;
  }
  shared_memory_destroy(&r.pool);
  return NULL;
}

/* Waits (at most ~10 s) until the watchdog has brought the live instances
 * down to `instances`. */
static bool settles_to(const fixture *f, uint64_t instances) {
  for (int i = 0; i < 1000; ++i) {
    if (statistics(f).graph_instances == instances) return true;
    usleep(10000);
  }
  return false;
}

/* Threads sharing one prepared model each get correct results; their
 * executions overlap on instances of their own, which the watchdog releases
 * once idle, keeping one. */
static void test_overlapping_executions(void **state) {
  fixture *f = *state;
  vknn_prepared_model *pm = prepare(f, 1 << 16);
  assert_int_equal(statistics(f).graph_instances, 1);
  pthread_t threads[THREADS];
  worker workers[THREADS];
  for (int t = 0; t < THREADS; ++t) {
    workers[t] = (worker){pm, (float)(t * 1000), (float)(t + 1), 0};
    assert_int_equal(pthread_create(&threads[t], NULL, execute_rounds, &workers[t]), 0);
  }
  for (int t = 0; t < THREADS; ++t) {
    pthread_join(threads[t], NULL);
    assert_int_equal(workers[t].wrong, 0);
  }
  vknn_device_statistics after = statistics(f);
  assert_true(after.graph_instances >= 1 && after.graph_instances <= 4);
  assert_true(settles_to(f, 1));
  assert_true(statistics(f).idle_releases >= after.graph_instances - 1);
  /* The one kept still runs. */
  worker again = {pm, 5.f, 0.5f, 0};
  execute_rounds(&again);
  assert_int_equal(again.wrong, 0);
  vknn_prepared_model_release(pm);
  assert_int_equal(statistics(f).graph_instances, 0);
}

/* A zero-copy entry (the caller's memory imported) is released once idle:
 * the driver does not keep the caller's pages mapped for ever. */
static void test_idle_imports_released(void **state) {
  fixture *f = *state;
  vknn_prepared_model *pm = prepare(f, 1024);
  chain_request r;
  chain_request_init(&r, 1024, 1.f, 2.f);
  for (int i = 0; i < 3; ++i)
    assert_int_equal(vknn_prepared_model_execute(pm, &r.request, VKNN_MEASURE_TIMING_NO, NULL, NULL,
                                                 NULL, 0, NULL),
                     VKNN_STATUS_NONE);
  vknn_device_statistics before = statistics(f);
  assert_true(before.zero_copy_executions >= 1);
  bool released = false;
  for (int i = 0; i < 1000 && !released; ++i) {
    released = statistics(f).idle_releases > before.idle_releases;
    if (!released) usleep(10000);
  }
  assert_true(released);
  /* The request's mapping and its import go idle at different times (the
   * first execution mapped the pool, the last used the import): wait until
   * the watchdog has released nothing more for 6 idle periods, so that a
   * slow run (sanitizers) does not execute between the two releases. */
  uint64_t count = statistics(f).idle_releases;
  for (int quiet = 0, i = 0; quiet < 30 && i < 2000; ++i) {
    usleep(10000);
    uint64_t now = statistics(f).idle_releases;
    quiet = now == count ? quiet + 1 : 0;
    count = now;
  }
  /* The next execution on the same memory starts over: staged, then imported. */
  memset(r.pool.data + 2 * 1024 * sizeof(float), 0, 1024 * sizeof(float));
  assert_int_equal(vknn_prepared_model_execute(pm, &r.request, VKNN_MEASURE_TIMING_NO, NULL, NULL,
                                               NULL, 0, NULL),
                   VKNN_STATUS_NONE);
  assert_true(chain_request_correct(&r, 1.f, 2.f));
  assert_int_equal(statistics(f).staged_executions, before.staged_executions + 1);
  shared_memory_destroy(&r.pool);
  vknn_prepared_model_release(pm);
}

/* A deadline that passes during the work stops it between segments:
 * MISSED_DEADLINE_TRANSIENT; a deadline far enough lets it finish. */
static void test_deadline_stops_between_segments(void **state) {
  fixture *f = *state;
  const uint32_t elements = 1 << 22; /* 16 MiB per tensor: far more than a microsecond of work */
  vknn_prepared_model *pm = prepare(f, elements);
  chain_request r;
  chain_request_init(&r, elements, 0.f, 1.f);
  vknn_device_statistics before = statistics(f);
  vknn_timing timing;
  /* The deadline must still lie ahead when the execution starts (else it is
   * MISSED_DEADLINE_PERSISTENT at once): later each try on a busy machine. */
  vknn_status s = VKNN_STATUS_MISSED_DEADLINE_PERSISTENT;
  for (uint64_t ms = 5; ms <= 320 && s == VKNN_STATUS_MISSED_DEADLINE_PERSISTENT; ms *= 2) {
    vknn_deadline soon = {true, test_boottime_ns() + ms * 1000000ull};
    s = vknn_prepared_model_execute(pm, &r.request, VKNN_MEASURE_TIMING_YES, &soon, NULL, NULL, 0,
                                    &timing);
  }
  assert_int_equal(s, VKNN_STATUS_MISSED_DEADLINE_TRANSIENT);
  assert_true(timing.time_on_device == UINT64_MAX && timing.time_in_driver == UINT64_MAX);
  assert_int_equal(statistics(f).deadline_cancellations, before.deadline_cancellations + 1);
  vknn_deadline later = {true, test_boottime_ns() + 600ull * 1000000000ull};
  assert_int_equal(vknn_prepared_model_execute(pm, &r.request, VKNN_MEASURE_TIMING_YES, &later, NULL,
                                               NULL, 0, &timing),
                   VKNN_STATUS_NONE);
  assert_true(chain_request_correct(&r, 0.f, 1.f));
  assert_true(timing.time_in_driver >= timing.time_on_device);
  shared_memory_destroy(&r.pool);
  vknn_prepared_model_release(pm);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_overlapping_executions, setup, teardown),
      cmocka_unit_test_setup_teardown(test_idle_imports_released, setup, teardown),
      cmocka_unit_test_setup_teardown(test_deadline_stops_between_segments, setup, teardown),
  };
  return cmocka_run_group_tests_name("concurrency", tests, NULL, NULL);
}
