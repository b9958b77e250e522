#include "tool_stats.h"

#include <stdlib.h>
#include <time.h>

double tool_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int compare_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

double tool_quantile(double *values, size_t count, double q) {
  if (count == 0) return 0.0;
  qsort(values, count, sizeof(double), compare_double);
  size_t index = (size_t)(q * (double)count);
  return values[index < count ? index : count - 1];
}
