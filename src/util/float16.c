#include "util/float16.h"

#include <math.h>
#include <string.h>

uint16_t vknn_float16_bits(float value) {
  if (isnan(value)) return 0x7e00;
  uint32_t bits;
  memcpy(&bits, &value, sizeof(bits));
  uint16_t sign = (uint16_t)((bits >> 16) & 0x8000u);
  float magnitude = fabsf(value);
  if (magnitude >= 65520.f) return sign | 0x7c00u;
  if (magnitude < 6.103515625e-05f) /* subnormal: multiples of 2^-24 */
    return sign | (uint16_t)lrintf(magnitude * 16777216.f);
  int exponent;
  float mantissa = frexpf(magnitude, &exponent); /* [0.5, 1) */
  uint32_t m = (uint32_t)lrintf((mantissa * 2.f - 1.f) * 1024.f);
  if (m == 1024) {
    m = 0;
    exponent++;
  }
  return sign | (uint16_t)(((uint32_t)(exponent - 1 + 15) << 10) | m);
}
