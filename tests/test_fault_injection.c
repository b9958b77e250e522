/* Fault injection: the Nth host allocation, then the Nth Vulkan allocation,
 * fails during a full MobileNet prepare and execution, for every N the run
 * makes. Each run must end in an error status (RESOURCE_EXHAUSTED_* or
 * GENERAL_FAILURE) or, where the driver has a fallback (staging instead of
 * an import), in the right answer; never a crash, a validation message, or
 * (under LeakSanitizer) a leak. The device keeps working afterwards. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cts_compare.h"
#include "util/fault_injection.h"
#include "support/test_model.h"
#include "vknn/vknn.h"

#define MOBILENET VKNN_CTS_DATA "/V1_0/mobilenet_224_gender_basic_fixed.json"

typedef struct fixture {
  vknn_device *device;
  test_log log;
  cJSON *root;
  cts_case c;
} fixture;

static int setup(void **state) {
  fixture *f = calloc(1, sizeof(*f));
  *state = f;
  f->root = cts_parse_file(MOBILENET);
  const cJSON *test = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(f->root, "tests"), 0);
  const char *error = NULL;
  if (test == NULL || cts_case_load(test, &f->c, &error) != 0) return -1;
  vknn_device_options options = {
      .log_callback = test_log_callback, .log_user_data = &f->log, .enable_validation = true};
  return vknn_device_open(&options, &f->device) == VKNN_STATUS_NONE ? 0 : -1;
}

static int teardown(void **state) {
  fixture *f = *state;
  uint64_t messages = vknn_device_get_validation_message_count(f->device);
  vknn_device_close(f->device);
  cts_case_free(&f->c);
  cJSON_Delete(f->root);
  free(f);
  return messages == 0 ? 0 : -1;
}

/* Prepare and one execution; the outputs are checked when both succeed. */
static vknn_status run_once(fixture *f) {
  vknn_prepared_model *pm = NULL;
  vknn_status s = vknn_device_prepare_model(f->device, &f->c.model, VKNN_PREFER_FAST_SINGLE_ANSWER,
                                            VKNN_PRIORITY_MEDIUM, NULL, &pm);
  vknn_output_shape shapes[4];
  if (s == VKNN_STATUS_NONE) {
    cts_case_reset_outputs(&f->c);
    s = vknn_prepared_model_execute(pm, &f->c.request, VKNN_MEASURE_TIMING_YES, NULL, NULL, shapes,
                                    4, NULL);
  }
  char reason[256];
  if (s == VKNN_STATUS_NONE && cts_compare_outputs(&f->c, shapes, reason, sizeof(reason)) != 0)
    fail_msg("a run that succeeded gave wrong outputs: %s", reason);
  vknn_prepared_model_release(pm);
  return s;
}

static bool is_allocation_error(vknn_status s) {
  return s == VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT ||
         s == VKNN_STATUS_RESOURCE_EXHAUSTED_PERSISTENT || s == VKNN_STATUS_GENERAL_FAILURE;
}

static void walk(fixture *f, vknn_fault_kind kind, const char *name) {
  assert_int_equal(run_once(f), VKNN_STATUS_NONE); /* pipelines and pools warm */
  vknn_fault_arm(kind, 0);
  assert_int_equal(run_once(f), VKNN_STATUS_NONE);
  uint64_t total = vknn_fault_count(kind), recovered = 0;
  assert_true(total > 0);
  for (uint64_t n = 1; n <= total; ++n) {
    vknn_fault_arm(kind, n);
    vknn_status s = run_once(f);
    vknn_fault_arm(kind, 0);
    if (s == VKNN_STATUS_NONE) recovered++;
    else if (!is_allocation_error(s))
      fail_msg("%s %llu of %llu: %s", name, (unsigned long long)n, (unsigned long long)total,
               vknn_status_name(s));
  }
  printf("%s: %llu allocations failed one at a time, %llu absorbed by a fallback\n", name,
         (unsigned long long)total, (unsigned long long)recovered);
  assert_int_equal(run_once(f), VKNN_STATUS_NONE);
}

static void test_every_host_allocation(void **state) {
  walk(*state, VKNN_FAULT_HOST_ALLOCATION, "host allocation");
}

static void test_every_vulkan_allocation(void **state) {
  walk(*state, VKNN_FAULT_VULKAN_ALLOCATION, "Vulkan allocation");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_every_host_allocation, setup, teardown),
      cmocka_unit_test_setup_teardown(test_every_vulkan_allocation, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
