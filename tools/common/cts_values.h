/* Converting conformance values between JSON numbers and operand bytes. */
#pragma once
#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

/* The value encoding of 64-bit integer operands of extensions
 * (com.example.fibonacci's EXAMPLE_INT64 and EXAMPLE_TENSOR_QUANT64_ASYMM):
 * a type code of the runner's own, never a model's. */
#define CTS_TYPE_INT64 (-64)

/* A JSON number, or "nan", "inf", "-inf". */
double cts_json_number(const cJSON *item);

/* float -> IEEE binary16, round to nearest even. */
uint16_t cts_float_to_half(float value);
float cts_half_to_float(uint16_t half);

/* Writes count values of an operand type into out (element-size bytes each). */
void cts_encode_values(int32_t type, const cJSON *data, uint8_t *out);
/* Reads element i of an operand type from bytes. */
double cts_decode_value(int32_t type, const uint8_t *bytes, size_t i);
