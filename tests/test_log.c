/* VKNN_LOG in the syntax of Android's debug.nn.vlog property: "1" or "all",
 * or tag names separated by spaces, commas or colons; verbose lines of a
 * disabled tag are never formatted; errors always go out. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "util/log.h"

static void configured(vknn_logger *logger, const char *spec) {
  vknn_logger_init(logger, NULL, NULL);
  vknn_logger_configure(logger, spec);
}

static void test_all_and_one(void **state) {
  (void)state;
  vknn_logger logger;
  configured(&logger, "1");
  assert_true(vknn_log_tag_enabled(&logger, "model"));
  assert_true(vknn_log_tag_enabled(&logger, "anything"));
  configured(&logger, "all");
  assert_true(vknn_log_tag_enabled(&logger, "execution"));
  configured(&logger, "model all");
  assert_true(vknn_log_tag_enabled(&logger, "vulkan"));
}

static void test_separators(void **state) {
  (void)state;
  static const char *const specs[] = {"model compilation", "model,compilation",
                                      "model:compilation", "  model ,: compilation,,"};
  for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); ++i) {
    vknn_logger logger;
    configured(&logger, specs[i]);
    assert_true(vknn_log_tag_enabled(&logger, "model"));
    assert_true(vknn_log_tag_enabled(&logger, "compilation"));
    assert_false(vknn_log_tag_enabled(&logger, "execution"));
    assert_false(vknn_log_tag_enabled(&logger, "mode")); /* whole names only */
    assert_false(vknn_log_tag_enabled(&logger, "model,compilation"));
  }
}

static void test_none(void **state) {
  (void)state;
  static const char *const specs[] = {NULL, "", " , : ", "0", "al", "11"};
  for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); ++i) {
    vknn_logger logger;
    configured(&logger, specs[i]);
    assert_false(vknn_log_tag_enabled(&logger, "model"));
    assert_false(vknn_log_tag_enabled(&logger, "all"));
  }
}

static void test_environment(void **state) {
  (void)state;
  setenv("VKNN_LOG", "execution:vulkan", 1);
  vknn_logger logger;
  vknn_logger_init(&logger, NULL, NULL);
  unsetenv("VKNN_LOG");
  assert_true(vknn_log_tag_enabled(&logger, "vulkan"));
  assert_true(vknn_log_tag_enabled(&logger, "execution"));
  assert_false(vknn_log_tag_enabled(&logger, "model"));
}

/* "%n" stores how many characters were formatted: it stays untouched when
 * the line is dropped before formatting. */
static void test_disabled_tag_not_formatted(void **state) {
  (void)state;
  vknn_logger logger;
  configured(&logger, "compilation");
  int formatted = -1;
  vknn_logf(&logger, VKNN_LOG_VERBOSE, "model", "abc%n", &formatted);
  assert_int_equal(formatted, -1);
  vknn_logf(&logger, VKNN_LOG_VERBOSE, "compilation", "abc%n", &formatted);
  assert_int_equal(formatted, 3);
  formatted = -1;
  vknn_logf(&logger, VKNN_LOG_ERROR, "model", "abcd%n", &formatted); /* errors always */
  assert_int_equal(formatted, 4);
}

typedef struct received {
  int count;
  char last[64];
} received;

static void collect(void *user_data, vknn_log_level level, const char *tag, const char *message) {
  (void)level;
  received *r = user_data;
  r->count++;
  snprintf(r->last, sizeof(r->last), "%s|%s", tag, message);
}

/* A callback receives every line, as device.h promises, whatever VKNN_LOG says. */
static void test_callback_gets_everything(void **state) {
  (void)state;
  received r = {0};
  vknn_logger logger;
  vknn_logger_init(&logger, collect, &r);
  vknn_logger_configure(&logger, "compilation");
  vknn_logf(&logger, VKNN_LOG_VERBOSE, "model", "operand %d", 7);
  assert_int_equal(r.count, 1);
  assert_string_equal(r.last, "model|operand 7");
}

static void test_too_many_tags(void **state) {
  (void)state;
  char spec[VKNN_LOG_MAX_TAGS * 4 + 64] = "";
  for (int i = 0; i < VKNN_LOG_MAX_TAGS + 2; ++i) {
    char tag[8];
    snprintf(tag, sizeof(tag), "t%d ", i);
    strcat(spec, tag);
  }
  strcat(spec, "a_tag_name_longer_than_a_slot_holds");
  vknn_logger logger;
  configured(&logger, spec);
  assert_true(vknn_log_tag_enabled(&logger, "t0"));
  assert_true(vknn_log_tag_enabled(&logger, "t15"));
  assert_false(vknn_log_tag_enabled(&logger, "t16"));
  assert_false(vknn_log_tag_enabled(&logger, "a_tag_name_longer_than_a_slot_holds"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_all_and_one),
      cmocka_unit_test(test_separators),
      cmocka_unit_test(test_none),
      cmocka_unit_test(test_environment),
      cmocka_unit_test(test_disabled_tag_not_formatted),
      cmocka_unit_test(test_callback_gets_everything),
      cmocka_unit_test(test_too_many_tags),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
