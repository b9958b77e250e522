/* IEEE binary16 on the host: the bits of a float rounded to float16, for
 * constants the driver converts once at prepare (a pad value, a relaxed
 * model's weights). */
#pragma once
#include <stdint.h>

/* Round to nearest even; beyond float16's range: infinity; NaN stays NaN. */
uint16_t vknn_float16_bits(float value);
