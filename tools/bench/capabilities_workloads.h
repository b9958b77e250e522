/* vknn-bench capabilities: the figures, the elementwise workloads (ADD of
 * TENSOR_INT32, LOGICAL_AND of TENSOR_BOOL8), and the report. */
#pragma once
#include "vknn/vknn.h"

typedef enum cap_workload {
  CAP_FLOAT32, /* CONV_2D float32 */
  CAP_RELAXED, /* the same, relaxed to float16 */
  CAP_QUANT8,  /* CONV_2D QUANT8_ASYMM */
  CAP_INT32,   /* ADD TENSOR_INT32 */
  CAP_BOOL8,   /* LOGICAL_AND TENSOR_BOOL8 */
  CAP_IF,      /* IF taking the float32 convolution's branch */
  CAP_WHILE,   /* WHILE running the float32 convolution CAPABILITIES_LOOP times */
  CAP_COUNT,
} cap_workload;

typedef struct cap_figure {
  double device_ms, host_ms; /* medians over the rounds */
  double ratio;              /* device / host: the HAL's figure */
  double max_difference;     /* device result against the host's */
} cap_figure;

#define CAP_ELEMENTS 262144

/* Medians of the rounds (the arrays are sorted in place). */
void cap_figure_set(cap_figure *f, double *device_ms, double *host_ms, int rounds,
                    double max_difference);
/* One elementwise workload (CAP_INT32 or CAP_BOOL8), timed like the others. */
int cap_measure_elementwise(vknn_device *device, int rounds, cap_workload which, cap_figure *f);
/* -1 with a message when a device result differs from the host's beyond
 * rounding (float32: 1e-3; quantized: 2 steps; integer and boolean: 0). */
int cap_check(const cap_figure *f);
void cap_print(vknn_device *device, const char *name, const cap_figure *f, int rounds);
int cap_write_json(const cap_figure *f, const char *path);
