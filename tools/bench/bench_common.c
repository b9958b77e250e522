#include "bench_common.h"
#include "common/tool_stats.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

double bench_now_ms(void) { return tool_now_ms(); }

double bench_quantile(double *values, size_t count, double q) {
  return tool_quantile(values, count, q);
}

int bench_parse_count(const char *option, const char *text, int *out) {
  char *end = NULL;
  errno = 0;
  long value = strtol(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || value <= 0 || value > 1000000) {
    fprintf(stderr, "vknn-bench: %s wants a positive integer, not '%s'\n", option, text);
    return -1;
  }
  *out = (int)value;
  return 0;
}

int bench_parse_positive(const char *option, const char *text, double *out) {
  char *end = NULL;
  errno = 0;
  double value = strtod(text, &end);
  if (errno != 0 || end == text || *end != '\0' || !isfinite(value) || value <= 0) {
    fprintf(stderr, "vknn-bench: %s wants a positive number, not '%s'\n", option, text);
    return -1;
  }
  *out = value;
  return 0;
}

static vknn_device_options device_options;

vknn_device_options *bench_device_options(void) { return &device_options; }

static const char *trace_path = NULL;

void bench_set_trace(const char *path) { trace_path = path; }

int bench_open_device(bool profile, vknn_device **out_device, const char **out_name) {
  vknn_device_options options = device_options;
  options.profile_dispatches = profile;
  options.trace_path = trace_path;
  trace_path = NULL; /* the first device only: a second would write over its file */
  vknn_status s = vknn_device_open(&options, out_device);
  if (s != VKNN_STATUS_NONE) {
    fprintf(stderr, "vknn-bench: no Vulkan device (%s)\n", vknn_status_name(s));
    return -1;
  }
  vknn_device_get_name(*out_device, out_name);
  return 0;
}

int bench_check_validation(const vknn_device *device) {
  uint64_t messages = vknn_device_get_validation_message_count(device);
  if (messages == 0) return 0;
  fprintf(stderr, "vknn-bench: the validation layer reported %llu messages\n",
          (unsigned long long)messages);
  return -1;
}

int bench_write_json(const cJSON *root, const char *path) {
  char *text = cJSON_Print(root);
  FILE *f = text != NULL ? fopen(path, "w") : NULL;
  int rc = f != NULL && fputs(text, f) >= 0 && fputc('\n', f) != EOF ? 0 : -1;
  if (f != NULL && fclose(f) != 0) rc = -1;
  free(text);
  if (rc != 0) fprintf(stderr, "vknn-bench: cannot write %s\n", path);
  return rc;
}

int bench_check_finite(const char *what, const float *values, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    if (isfinite(values[i])) continue;
    fprintf(stderr, "vknn-bench: %s: element %zu is %f\n", what, i, (double)values[i]);
    return -1;
  }
  return 0;
}
