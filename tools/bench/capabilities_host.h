/* The reference workloads of vknn-bench capabilities computed in plain
 * single-threaded C on the host: the denominators of the ratios the HAL
 * reports (the tool computes on the CPU; the driver never does). */
#pragma once
#include <stddef.h>
#include <stdint.h>

/* A 3x3 convolution, stride 1, SAME padding, NHWC input [1,h,w,c], filter
 * [k,3,3,c] (NNAPI's layout), bias [k], RELU6. */
typedef struct host_conv {
  uint32_t h, w, c, k;
} host_conv;

void host_conv_f32(const host_conv *p, const float *x, const float *filter, const float *bias,
                   float *y);

/* The same on QUANT8_ASYMM values: int32 sums of (x - x_zero) * (f - f_zero)
 * plus the bias, scaled by multiplier to the output's steps, RELU6 in them. */
typedef struct host_quant {
  int32_t x_zero, f_zero, y_zero;
  float multiplier; /* x_scale * f_scale / y_scale */
  int32_t low, high; /* RELU6 in output steps */
} host_quant;

void host_conv_q8(const host_conv *p, const host_quant *q, const uint8_t *x,
                  const uint8_t *filter, const int32_t *bias, uint8_t *y);

/* Elementwise: int32 a + b, and bool8 a && b, over n elements. */
void host_add_i32(const int32_t *a, const int32_t *b, int32_t *y, size_t n);
void host_and_b8(const uint8_t *a, const uint8_t *b, uint8_t *y, size_t n);
