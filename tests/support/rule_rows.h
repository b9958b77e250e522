/* Rule rows of the operation tests (tests/test_lstm.c, tests/test_extensions.c):
 * one model per row, broken in one way or valid, checked through the
 * support query and prepare on the group's device. */
#pragma once
#include "support/model_runner.h"

/* cmocka group setup and teardown: the group's device (validation layer
 * on; teardown fails when the layer reported anything). */
int rule_rows_setup(void **state);
int rule_rows_teardown(void **state);
runner_fixture *rule_rows_fixture(void);

/* expected_log NULL: the model is valid and its one operation supported;
 * otherwise the support query and prepare give INVALID_ARGUMENT with a log
 * line containing expected_log. Fails the test (naming the row) otherwise. */
void rule_rows_check(const char *name, const char *expected_log, const vknn_model *model);
