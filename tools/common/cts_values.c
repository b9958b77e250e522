#include "cts_values.h"

#include <math.h>
#include <string.h>

#include "vknn/types.h"

double cts_json_number(const cJSON *item) {
  if (cJSON_IsNumber(item)) return item->valuedouble;
  if (cJSON_IsString(item)) {
    if (strcmp(item->valuestring, "nan") == 0) return NAN;
    if (strcmp(item->valuestring, "inf") == 0) return INFINITY;
    if (strcmp(item->valuestring, "-inf") == 0) return -INFINITY;
  }
  return 0.0;
}

uint16_t cts_float_to_half(float value) {
  uint32_t bits;
  memcpy(&bits, &value, sizeof(bits));
  uint16_t sign = (uint16_t)((bits >> 16) & 0x8000u);
  uint32_t exponent = (bits >> 23) & 0xffu;
  uint32_t mantissa = bits & 0x7fffffu;
  if (exponent == 0xff) return sign | 0x7c00u | (mantissa ? 0x200u : 0);
  int32_t e = (int32_t)exponent - 127 + 15;
  if (e >= 31) return sign | 0x7c00u;
  if (e <= 0) {
    if (e < -10) return sign;
    /* Subnormal: shift the mantissa with its implicit bit, rounding to even. */
    mantissa |= 0x800000u;
    uint32_t shift = (uint32_t)(14 - e);
    uint32_t half = mantissa >> shift;
    uint32_t rest = mantissa & ((1u << shift) - 1);
    uint32_t halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (half & 1u))) half++;
    return sign | (uint16_t)half;
  }
  uint32_t half = ((uint32_t)e << 10) | (mantissa >> 13);
  uint32_t rest = mantissa & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1u))) half++; /* may carry into inf */
  return sign | (uint16_t)half;
}

float cts_half_to_float(uint16_t half) {
  uint32_t sign = (uint32_t)(half & 0x8000u) << 16;
  uint32_t exponent = (half >> 10) & 0x1fu;
  uint32_t mantissa = half & 0x3ffu;
  uint32_t bits;
  if (exponent == 0x1f) {
    bits = sign | 0x7f800000u | (mantissa << 13);
  } else if (exponent == 0) {
    float f = ldexpf((float)mantissa, -24);
    return sign ? -f : f;
  } else {
    bits = sign | ((exponent - 15 + 127) << 23) | (mantissa << 13);
  }
  float f;
  memcpy(&f, &bits, sizeof(f));
  return f;
}

static void store(int32_t type, uint8_t *out, size_t i, double v) {
  switch (type) {
    case VKNN_OPERAND_FLOAT32:
    case VKNN_OPERAND_TENSOR_FLOAT32: { float f = (float)v; memcpy(out + 4 * i, &f, 4); break; }
    case VKNN_OPERAND_FLOAT16:
    case VKNN_OPERAND_TENSOR_FLOAT16: {
      uint16_t h = cts_float_to_half((float)v);
      memcpy(out + 2 * i, &h, 2);
      break;
    }
    case VKNN_OPERAND_INT32:
    case VKNN_OPERAND_TENSOR_INT32: { int32_t x = (int32_t)v; memcpy(out + 4 * i, &x, 4); break; }
    case VKNN_OPERAND_UINT32: { uint32_t x = (uint32_t)v; memcpy(out + 4 * i, &x, 4); break; }
    case CTS_TYPE_INT64: { int64_t x = (int64_t)v; memcpy(out + 8 * i, &x, 8); break; }
    case VKNN_OPERAND_TENSOR_QUANT16_SYMM: { int16_t x = (int16_t)v; memcpy(out + 2 * i, &x, 2); break; }
    case VKNN_OPERAND_TENSOR_QUANT16_ASYMM: { uint16_t x = (uint16_t)v; memcpy(out + 2 * i, &x, 2); break; }
    case VKNN_OPERAND_TENSOR_QUANT8_ASYMM_SIGNED:
    case VKNN_OPERAND_TENSOR_QUANT8_SYMM:
    case VKNN_OPERAND_TENSOR_QUANT8_SYMM_PER_CHANNEL: out[i] = (uint8_t)(int8_t)v; break;
    default: out[i] = (uint8_t)v; break; /* QUANT8_ASYMM, BOOL, TENSOR_BOOL8 */
  }
}

void cts_encode_values(int32_t type, const cJSON *data, uint8_t *out) {
  size_t i = 0;
  const cJSON *item;
  cJSON_ArrayForEach(item, data) store(type, out, i++, cts_json_number(item));
}

double cts_decode_value(int32_t type, const uint8_t *bytes, size_t i) {
  switch (type) {
    case VKNN_OPERAND_FLOAT32:
    case VKNN_OPERAND_TENSOR_FLOAT32: { float f; memcpy(&f, bytes + 4 * i, 4); return f; }
    case VKNN_OPERAND_FLOAT16:
    case VKNN_OPERAND_TENSOR_FLOAT16: { uint16_t h; memcpy(&h, bytes + 2 * i, 2); return cts_half_to_float(h); }
    case VKNN_OPERAND_INT32:
    case VKNN_OPERAND_TENSOR_INT32: { int32_t x; memcpy(&x, bytes + 4 * i, 4); return x; }
    case VKNN_OPERAND_UINT32: { uint32_t x; memcpy(&x, bytes + 4 * i, 4); return x; }
    case CTS_TYPE_INT64: { int64_t x; memcpy(&x, bytes + 8 * i, 8); return (double)x; }
    case VKNN_OPERAND_TENSOR_QUANT16_SYMM: { int16_t x; memcpy(&x, bytes + 2 * i, 2); return x; }
    case VKNN_OPERAND_TENSOR_QUANT16_ASYMM: { uint16_t x; memcpy(&x, bytes + 2 * i, 2); return x; }
    case VKNN_OPERAND_TENSOR_QUANT8_ASYMM_SIGNED:
    case VKNN_OPERAND_TENSOR_QUANT8_SYMM:
    case VKNN_OPERAND_TENSOR_QUANT8_SYMM_PER_CHANNEL: return (int8_t)bytes[i];
    default: return bytes[i];
  }
}
