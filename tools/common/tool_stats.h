/* Clock and statistics the tools share (vknn-bench, vknn-demo). */
#pragma once
#include <stddef.h>

/* CLOCK_MONOTONIC in milliseconds. */
double tool_now_ms(void);

/* Sorts values in place and returns the value at fraction q (0.5: median,
 * 0.9: p90) of the sorted order; 0 for an empty array. */
double tool_quantile(double *values, size_t count, double q);
