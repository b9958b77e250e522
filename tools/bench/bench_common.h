/* What every verb of vknn-bench shares: clocks, statistics, argument
 * parsing, the device, JSON reports. */
#pragma once
#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

#include "vknn/vknn.h"

/* CLOCK_MONOTONIC in milliseconds. */
double bench_now_ms(void);

/* Executions before the timed ones run for at least this long: a GPU idle
 * through a long prepare (pipeline compilation, kernel tuning) has dropped
 * to its idle clock (an H200: 345 MHz against 1980) and takes a while of
 * steady work to come back up; a short timed run would measure that. */
#define BENCH_WARM_UP_MS 300.0

/* Sorts values in place and returns the value at fraction q (0.5: median,
 * 0.9: p90) of the sorted order; 0 for an empty array. */
double bench_quantile(double *values, size_t count, double q);

/* A positive integer / a positive finite number from a command-line value;
 * 0 on success, -1 (with a message naming option) otherwise. */
int bench_parse_count(const char *option, const char *text, int *out);
int bench_parse_positive(const char *option, const char *text, double *out);

/* Opens the device as the driver is opened everywhere (VKNN_DEVICE,
 * VKNN_VALIDATION), with per-dispatch timestamps when profile is set.
 * 0, or -1 with a message. */
int bench_open_device(bool profile, vknn_device **out_device, const char **out_name);
/* The options of the devices bench_open_device opens (the command line's
 * --operand-reads and the like: tools/common/device_flags.h). */
vknn_device_options *bench_device_options(void);

/* The trace file (VKNN_TRACE's JSON) of the first device bench_open_device
 * opens after this call. */
void bench_set_trace(const char *path);

/* -1 with a message when the validation layer reported anything on the device. */
int bench_check_validation(const vknn_device *device);

/* Writes root (pretty-printed) to path; 0 or -1 with a message. Does not free root. */
int bench_write_json(const cJSON *root, const char *path);

/* Every value finite: 0, else -1 with a message naming what and where. */
int bench_check_finite(const char *what, const float *values, size_t count);
