/* The debugging outputs, checked by parsing what they write:
 * VKNN_GRAPH_DUMP's .dot files through Graphviz (dot -Tsvg must accept
 * them), VKNN_TRACE's JSON through cJSON (the prepare and execution phases,
 * one GPU span per dispatch per execution); a folder or file that cannot be
 * written is logged and the driver keeps working. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <unistd.h>

#include "support/model_runner.h"
#include "vknn/vknn.h"

#define F32 VKNN_OPERAND_TENSOR_FLOAT32

typedef struct errors {
  int count;
  char last[512];
} errors;

static void collect_errors(void *user_data, vknn_log_level level, const char *tag,
                           const char *message) {
  (void)tag;
  errors *e = user_data;
  if (level > VKNN_LOG_WARNING) return;
  e->count++;
  snprintf(e->last, sizeof(e->last), "%s", message);
}

static vknn_device *open_device(errors *e, const char *trace_path) {
  vknn_device_options options = {.log_callback = collect_errors, .log_user_data = e,
                                 .enable_validation = true, .trace_path = trace_path};
  vknn_device *device = NULL;
  assert_int_equal(vknn_device_open(&options, &device), VKNN_STATUS_NONE);
  return device;
}

static void close_device(vknn_device *device) {
  assert_int_equal(vknn_device_get_validation_message_count(device), 0);
  vknn_device_close(device);
}

/* out = relu(x + y) + x: the RELU is fused into the first ADD, the value
 * between the two dispatches lives in the arena. */
static void build_model(model_builder *b) {
  static const uint32_t dims[2] = {2, 3};
  mb_init(b);
  uint32_t x = mb_input(b, F32, dims, 2), y = mb_input(b, F32, dims, 2);
  uint32_t sum = mb_temporary(b, F32, dims, 2), relu = mb_temporary(b, F32, dims, 2);
  uint32_t out = mb_output(b, F32, dims, 2);
  uint32_t add1[3] = {x, y, mb_const_i32(b, VKNN_FUSED_NONE)};
  mb_operation(b, VKNN_OPERATION_ADD, add1, 3, &sum, 1);
  mb_operation(b, VKNN_OPERATION_RELU, &sum, 1, &relu, 1);
  uint32_t add2[3] = {relu, x, mb_const_i32(b, VKNN_FUSED_NONE)};
  mb_operation(b, VKNN_OPERATION_ADD, add2, 3, &out, 1);
}

/* Prepares and runs the model `runs` times; checks the results. */
static void run_model(vknn_device *device, int runs) {
  model_builder b;
  build_model(&b);
  test_log log = {0};
  vknn_prepared_model *pm = model_runner_prepare(device, &log, &b);
  const float x[6] = {1, -2, 3, -4, 5, -6}, y[6] = {-3, 1, 1, 1, -9, 2};
  for (int r = 0; r < runs; ++r) {
    float out[6];
    buffer_arg inputs[2] = {{x, NULL, sizeof(x)}, {y, NULL, sizeof(y)}};
    buffer_arg outputs[1] = {{NULL, out, sizeof(out)}};
    assert_int_equal(model_runner_execute(pm, &b, inputs, outputs, NULL), VKNN_STATUS_NONE);
    for (int i = 0; i < 6; ++i) {
      float s = x[i] + y[i];
      assert_true(out[i] == (s > 0 ? s : 0) + x[i]);
    }
  }
  vknn_prepared_model_release(pm);
}

static char *read_text(const char *path) {
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *text = calloc(1, (size_t)size + 1);
  assert_int_equal(fread(text, 1, (size_t)size, f), (size_t)size);
  fclose(f);
  return text;
}

/* Graphviz must accept the file: dot exits 0 with an SVG written. */
static void assert_dot_accepts(const char *dot_file, const char *svg_file) {
  char command[1024];
  snprintf(command, sizeof(command), "'%s' -Tsvg '%s' -o '%s'", VKNN_DOT, dot_file, svg_file);
  assert_int_equal(system(command), 0);
  char *svg = read_text(svg_file);
  assert_non_null(strstr(svg, "<svg"));
  free(svg);
}

static void make_temp_dir(char *dir, size_t size) {
  snprintf(dir, size, "/tmp/vknn_dump_XXXXXX");
  assert_non_null(mkdtemp(dir));
}

static void remove_dir(const char *dir) {
  char command[512];
  snprintf(command, sizeof(command), "rm -rf '%s'", dir);
  assert_int_equal(system(command), 0);
}

static void test_graph_dump(void **state) {
  (void)state;
  char dir[64], path[128], svg[128];
  make_temp_dir(dir, sizeof(dir));
  setenv("VKNN_GRAPH_DUMP", dir, 1);
  errors e = {0};
  vknn_device *device = open_device(&e, NULL);
  unsetenv("VKNN_GRAPH_DUMP");
  run_model(device, 1);
  run_model(device, 1); /* a second prepare gets files of its own */
  close_device(device);
  assert_int_equal(e.count, 0);
  snprintf(svg, sizeof(svg), "%s/out.svg", dir);
  for (int n = 0; n < 2; ++n) {
    snprintf(path, sizeof(path), "%s/model-%d.dot", dir, n);
    assert_dot_accepts(path, svg);
    char *model = read_text(path);
    assert_non_null(strstr(model, "RELU"));
    free(model);
    snprintf(path, sizeof(path), "%s/plan-%d.dot", dir, n);
    assert_dot_accepts(path, svg);
    char *plan = read_text(path);
    assert_non_null(strstr(plan, "dispatch 1: "));  /* two dispatches: the RELU left none */
    assert_null(strstr(plan, "dispatch 2: "));
    assert_non_null(strstr(plan, "op 1 RELU\\nfused")); /* drawn as fused */
    assert_non_null(strstr(plan, "op 0 ADD\\n+ activation 1")); /* into the ADD's clamp */
    assert_non_null(strstr(plan, "label=\"arena ("));
    assert_non_null(strstr(plan, "lives d0..d1"));
    free(plan);
  }
  snprintf(path, sizeof(path), "%s/model-2.dot", dir);
  assert_int_equal(access(path, F_OK), -1);
  remove_dir(dir);
}

/* A folder that does not exist, and a file where the folder should be. */
static void test_graph_dump_bad_folder(void **state) {
  (void)state;
  static const char *const bad[] = {"/nonexistent/vknn-dumps", "/dev/null"};
  for (int i = 0; i < 2; ++i) {
    setenv("VKNN_GRAPH_DUMP", bad[i], 1);
    errors e = {0};
    vknn_device *device = open_device(&e, NULL);
    unsetenv("VKNN_GRAPH_DUMP");
    assert_int_equal(e.count, 1);
    assert_non_null(strstr(e.last, "VKNN_GRAPH_DUMP"));
    run_model(device, 1);
    assert_int_equal(e.count, 1);
    close_device(device);
  }
}

static int count_spans(const cJSON *events, const char *category, const char *name) {
  int n = 0;
  const cJSON *event;
  cJSON_ArrayForEach(event, events) {
    const char *cat = cJSON_GetStringValue(cJSON_GetObjectItem(event, "cat"));
    const char *event_name = cJSON_GetStringValue(cJSON_GetObjectItem(event, "name"));
    if (cat == NULL || strcmp(cat, category) != 0 || event_name == NULL) continue;
    if (name == NULL || strcmp(event_name, name) == 0 || strstr(event_name, name) != NULL) n++;
  }
  return n;
}

/* Every span is a complete event with a start and a duration. */
static void assert_spans_complete(const cJSON *events) {
  const cJSON *event;
  cJSON_ArrayForEach(event, events) {
    const char *ph = cJSON_GetStringValue(cJSON_GetObjectItem(event, "ph"));
    assert_non_null(ph);
    if (strcmp(ph, "X") != 0) continue;
    assert_true(cJSON_IsNumber(cJSON_GetObjectItem(event, "ts")));
    assert_true(cJSON_IsNumber(cJSON_GetObjectItem(event, "dur")));
    assert_true(cJSON_GetObjectItem(event, "dur")->valuedouble >= 0);
  }
}

static void test_trace(void **state) {
  (void)state;
  char path[] = "/tmp/vknn_trace_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  errors e = {0};
  vknn_device *device = open_device(&e, path);
  run_model(device, 3);
  close_device(device);
  assert_int_equal(e.count, 0);
  char *text = read_text(path);
  cJSON *root = cJSON_Parse(text);
  free(text);
  assert_non_null(root);
  const cJSON *events = cJSON_GetObjectItem(root, "traceEvents");
  assert_true(cJSON_IsArray(events));
  assert_spans_complete(events);
  assert_int_equal(count_spans(events, "prepare", "prepare"), 1);
  assert_int_equal(count_spans(events, "prepare", "validate"), 1);
  assert_int_equal(count_spans(events, "prepare", "compile"), 1);
  assert_int_equal(count_spans(events, "prepare", "upload constants and record"), 1);
  assert_int_equal(count_spans(events, "execution", "execute"), 3);
  assert_int_equal(count_spans(events, "execution", "submit and wait"), 3);
  assert_int_equal(count_spans(events, "execution", "copy inputs"), 3);
  assert_int_equal(count_spans(events, "execution", "copy outputs"), 3);
  /* Two dispatches (the RELU fused) per execution, named operation and kernel. */
  assert_int_equal(count_spans(events, "gpu", NULL), 6);
  assert_int_equal(count_spans(events, "gpu", "ADD "), 6);
  cJSON_Delete(root);
  unlink(path);
}

static void test_trace_unwritable(void **state) {
  (void)state;
  errors e = {0};
  vknn_device *device = open_device(&e, "/nonexistent/vknn/trace.json");
  assert_int_equal(e.count, 1);
  assert_non_null(strstr(e.last, "VKNN_TRACE"));
  run_model(device, 1);
  assert_int_equal(e.count, 1);
  close_device(device);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_graph_dump),
      cmocka_unit_test(test_graph_dump_bad_folder),
      cmocka_unit_test(test_trace),
      cmocka_unit_test(test_trace_unwritable),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
