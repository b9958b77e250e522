/* vknn-demo CASE.json: a conformance case through the driver, as an app
 * would run it: the support answer, prepare time, the result against the
 * expected output, latency and the slowest dispatches. */
#pragma once
#include "vknn/vknn.h"

#define DEMO_RUNS 5

/* Runs the first case of the file on a device opened with per-dispatch
 * timestamps; 0 when the result matches the expected output. */
int demo_case_run(vknn_device *device, const char *path);
