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

static vknn_operand_reads operand_reads = VKNN_OPERAND_READS_AUTO;

void bench_set_operand_reads(vknn_operand_reads reads) { operand_reads = reads; }

static vknn_integer_dot integer_dot = VKNN_INTEGER_DOT_AUTO;

void bench_set_integer_dot(vknn_integer_dot choice) { integer_dot = choice; }

static vknn_io_copies io_copies = VKNN_IO_COPIES_AUTO;

void bench_set_io_copies(vknn_io_copies choice) { io_copies = choice; }
static vknn_winograd winograd = VKNN_WINOGRAD_AUTO;

void bench_set_winograd(vknn_winograd choice) { winograd = choice; }

static vknn_relaxed_float16 relaxed_float16 = VKNN_RELAXED_FLOAT16_AUTO;

void bench_set_relaxed_float16(vknn_relaxed_float16 choice) { relaxed_float16 = choice; }

static vknn_float16_arithmetic float16_arithmetic = VKNN_FLOAT16_ARITHMETIC_AUTO;

void bench_set_float16_arithmetic(vknn_float16_arithmetic choice) { float16_arithmetic = choice; }

static vknn_kernel_tuning kernel_tuning = VKNN_KERNEL_TUNING_AUTO;

void bench_set_kernel_tuning(vknn_kernel_tuning choice) { kernel_tuning = choice; }

static vknn_subgroup_filter subgroup_filter = VKNN_SUBGROUP_FILTER_AUTO;

void bench_set_subgroup_filter(vknn_subgroup_filter choice) { subgroup_filter = choice; }

static const char *trace_path = NULL;

void bench_set_trace(const char *path) { trace_path = path; }

int bench_open_device(bool profile, vknn_device **out_device, const char **out_name) {
  vknn_device_options options = {.profile_dispatches = profile, .operand_reads = operand_reads,
                                 .integer_dot = integer_dot, .io_copies = io_copies,
                                 .winograd = winograd, .relaxed_float16 = relaxed_float16,
                                 .float16_arithmetic = float16_arithmetic,
                                 .kernel_tuning = kernel_tuning,
                                 .subgroup_filter = subgroup_filter,
                                 .trace_path = trace_path};
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
