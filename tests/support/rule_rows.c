#include "rule_rows.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

static runner_fixture *group_fixture;

/* The group's device is kept apart from cmocka's state: each test's state is its row. */
int rule_rows_setup(void **state) {
  (void)state;
  void *fixture = NULL;
  int rc = runner_fixture_setup(&fixture);
  group_fixture = fixture;
  return rc;
}

int rule_rows_teardown(void **state) {
  (void)state;
  void *fixture = group_fixture;
  return runner_fixture_teardown(&fixture);
}

runner_fixture *rule_rows_fixture(void) { return group_fixture; }

/* The outcome a row expects, and the rule's log line among the errors (the
 * last one a fixture keeps). */
static void expect_outcome(const char *name, const char *expected_log, const test_log *log,
                           const char *what, vknn_status s) {
  vknn_status want = expected_log ? VKNN_STATUS_INVALID_ARGUMENT : VKNN_STATUS_NONE;
  if (s != want) fail_msg("%s: %s gave %s (log: %s)", name, what, vknn_status_name(s), log->last);
  if (expected_log && strstr(log->last, expected_log) == NULL)
    fail_msg("%s: %s logged \"%s\", not \"%s\"", name, what, log->last, expected_log);
}

void rule_rows_check(const char *name, const char *expected_log, const vknn_model *model) {
  runner_fixture *f = group_fixture;
  bool supported[1] = {false};
  f->log.last[0] = '\0';
  vknn_status s = vknn_device_get_supported_operations(f->device, model, supported, 1);
  expect_outcome(name, expected_log, &f->log, "the support query", s);
  if (!expected_log && !supported[0]) fail_msg("%s: not supported (log: %s)", name, f->log.last);
  f->log.last[0] = '\0';
  vknn_prepared_model *pm = NULL;
  s = vknn_device_prepare_model(f->device, model, VKNN_PREFER_SUSTAINED_SPEED,
                                VKNN_PRIORITY_MEDIUM, NULL, &pm);
  if (pm != NULL) vknn_prepared_model_release(pm);
  expect_outcome(name, expected_log, &f->log, "prepare", s);
}
