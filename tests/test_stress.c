/* Stress: 10,000 executions of one prepared model and 1,000 prepares and
 * releases leave the resident size where it was after a warm-up. Under a
 * sanitizer the loops are shorter and LeakSanitizer, not the resident size
 * (which its bookkeeping inflates), judges leaks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <cmocka.h>

#include "support/add_fixture.h"
#include "vknn/vknn.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

#define EXECUTIONS (SANITIZED ? 1000 : 10000)
#define PREPARES (SANITIZED ? 100 : 1000)
/* Allocator arenas settle in steps; a leak of even a few bytes per
 * iteration exceeds these over the loops above. */
#define EXECUTION_GROWTH_KIB 1024
#define PREPARE_GROWTH_KIB 2048

typedef add_fixture fixture;

static int setup(void **state) { return add_fixture_setup(state, NULL); }
static int teardown(void **state) { return add_fixture_teardown(state); }

static long resident_kib(void) {
  long pages = 0, resident = 0;
  FILE *f = fopen("/proc/self/statm", "r");
  if (f == NULL) return -1;
  int n = fscanf(f, "%ld %ld", &pages, &resident);
  fclose(f);
  return n == 2 ? resident * (sysconf(_SC_PAGESIZE) / 1024) : -1;
}

static void expect_stable(long before, long after, long allowed_kib, const char *what) {
  printf("%s: resident %ld KiB -> %ld KiB\n", what, before, after);
  assert_true(before > 0 && after > 0);
  if (!SANITIZED) assert_true(after - before <= allowed_kib);
}

static void execute(fixture *f) {
  assert_int_equal(vknn_prepared_model_execute(f->pm, &f->r.request, VKNN_MEASURE_TIMING_YES, NULL,
                                               NULL, f->shapes, 1, &f->timing),
                   VKNN_STATUS_NONE);
}

static void test_executions_keep_memory_stable(void **state) {
  fixture *f = *state;
  for (int i = 0; i < EXECUTIONS / 10; ++i) execute(f);
  long before = resident_kib();
  for (int i = 0; i < EXECUTIONS; ++i) execute(f);
  expect_stable(before, resident_kib(), EXECUTION_GROWTH_KIB, "executions");
  assert_float_equal(test_request_output(&f->r, 5), 55.f, 0.f);
}

static void prepare_and_release(fixture *f) {
  vknn_prepared_model *pm = NULL;
  assert_int_equal(vknn_device_prepare_model(f->device, &f->model.model,
                                             VKNN_PREFER_FAST_SINGLE_ANSWER, VKNN_PRIORITY_MEDIUM,
                                             NULL, &pm),
                   VKNN_STATUS_NONE);
  vknn_prepared_model_release(pm);
}

static void test_prepares_keep_memory_stable(void **state) {
  fixture *f = *state;
  for (int i = 0; i < PREPARES / 10; ++i) prepare_and_release(f);
  long before = resident_kib();
  for (int i = 0; i < PREPARES; ++i) prepare_and_release(f);
  expect_stable(before, resident_kib(), PREPARE_GROWTH_KIB, "prepares");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_executions_keep_memory_stable, setup, teardown),
      cmocka_unit_test_setup_teardown(test_prepares_keep_memory_stable, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
