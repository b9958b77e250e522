#include "util/quant_multiplier.h"

#include <math.h>

bool vknn_quantize_multiplier(double real, vknn_quant_multiplier *out) {
  *out = (vknn_quant_multiplier){0, 0};
  if (!(real >= 0.0) || !isfinite(real)) return false;
  if (real == 0.0) return true;
  int exponent;
  double fraction = frexp(real, &exponent); /* in [0.5, 1) */
  int64_t fixed = (int64_t)round(fraction * (double)(1ll << 31));
  if (fixed == (1ll << 31)) { /* the fraction rounded up to 1 */
    fixed /= 2;
    ++exponent;
  }
  if (exponent > 30) return false;
  if (exponent < -31) return true; /* every product rounds to 0 */
  out->multiplier = (int32_t)fixed;
  out->shift = exponent;
  return true;
}

/* The scales combine in single precision first, as in the reference. */
bool vknn_add_multipliers_for(float a_scale, float b_scale, float out_scale,
                              vknn_add_multipliers *out) {
  float twice_max = 2.f * (a_scale > b_scale ? a_scale : b_scale);
  float headroom = (float)(1 << VKNN_ADD_LEFT_SHIFT) * out_scale;
  return vknn_quantize_multiplier((double)a_scale / twice_max, &out->a) &&
         vknn_quantize_multiplier((double)b_scale / twice_max, &out->b) &&
         vknn_quantize_multiplier((double)twice_max / headroom, &out->out);
}
