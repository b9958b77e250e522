/* The NNAPI reference's integer requantization, written out for the tests as
 * an oracle independent of the driver: real multipliers as a 31-bit mantissa
 * and an exponent, products rounded with 64-bit arithmetic. */
#pragma once
#include <stdbool.h>
#include <stdint.h>

typedef struct ref_multiplier {
  int32_t mantissa;
  int exponent;
} ref_multiplier;

ref_multiplier ref_quantize_multiplier(double real);
int32_t ref_multiply(int32_t x, ref_multiplier m);

/* One element of each quantized operation; a and b are the stored values,
 * the result is clamped to [lo, hi]. */
typedef struct ref_encoding {
  float scale;
  int32_t zero_point;
} ref_encoding;

int32_t ref_add(int32_t a, int32_t b, ref_encoding ea, ref_encoding eb, ref_encoding eo, bool sub,
                int32_t lo, int32_t hi);
int32_t ref_mul(int32_t a, int32_t b, ref_encoding ea, ref_encoding eb, ref_encoding eo,
                int32_t lo, int32_t hi);
int32_t ref_prelu(int32_t a, int32_t alpha, ref_encoding ea, ref_encoding ealpha, ref_encoding eo,
                  int32_t lo, int32_t hi);
int32_t ref_maximum(int32_t a, int32_t b, ref_encoding ea, ref_encoding eb, ref_encoding eo,
                    bool minimum, int32_t lo, int32_t hi);
int32_t ref_hard_swish(int32_t a, ref_encoding ea, ref_encoding eo, int32_t lo, int32_t hi);
