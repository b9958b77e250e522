/* Real multipliers of quantized kernels as the integer pair the fixed-point
 * kernels use (shaders/fixed_point.glsl): multiplier * 2^(shift - 31), the
 * multiplier in [2^30, 2^31). The rounding follows the NNAPI reference, so
 * the GPU reproduces its results bit for bit. */
#pragma once
#include <stdbool.h>
#include <stdint.h>

typedef struct vknn_quant_multiplier {
  int32_t multiplier;
  int32_t shift; /* > 0 shifts left */
} vknn_quant_multiplier;

/* False for a negative, non-finite or too large (>= 2^30) real multiplier.
 * A multiplier too small to matter (below 2^-32) becomes 0. */
bool vknn_quantize_multiplier(double real, vknn_quant_multiplier *out);

/* The reference's ADD and SUB: both inputs move to a common scale twice the
 * larger input scale, with 20 bits of headroom, before they are added. */
#define VKNN_ADD_LEFT_SHIFT 20
typedef struct vknn_add_multipliers {
  vknn_quant_multiplier a, b, out;
} vknn_add_multipliers;
bool vknn_add_multipliers_for(float a_scale, float b_scale, float out_scale,
                              vknn_add_multipliers *out);
