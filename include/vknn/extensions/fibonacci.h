/*
 * The example vendor extension com.example.fibonacci, as vknn implements it.
 *
 * A model uses it through its extensionNameToPrefix table: an operand or
 * operation type is (prefix << 16) | code, where prefix is the one the model
 * gives VKNN_FIBONACCI_EXTENSION_NAME and code one of the values below.
 * docs/extensions.md describes the semantics in full.
 */
#ifndef VKNN_EXTENSIONS_FIBONACCI_H
#define VKNN_EXTENSIONS_FIBONACCI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define VKNN_FIBONACCI_EXTENSION_NAME "com.example.fibonacci"

/* The extension data (operand extraParams.extension) of every
 * EXAMPLE_TENSOR_QUANT64_ASYMM operand: exactly these 16 bytes, in the
 * device's byte order. scale must be finite and > 0. */
typedef struct vknn_example_quant64_asymm_params {
  double scale;
  int64_t zero_point;
} vknn_example_quant64_asymm_params;

/* Operand types (codes within the extension). */
enum {
  /* A signed 64-bit integer scalar (8 bytes). */
  VKNN_EXAMPLE_INT64 = 0,
  /* A tensor of signed 64-bit integers (8 bytes per element) representing
   * real numbers: real = (value - zero_point) * scale, with scale and
   * zero_point from its vknn_example_quant64_asymm_params. */
  VKNN_EXAMPLE_TENSOR_QUANT64_ASYMM = 1,
};

/* Operation types (codes within the extension). */
enum {
  /* The first n Fibonacci numbers: 1, 1, 2, 3, 5, ...
   *
   * Inputs:
   * * 0: n, an EXAMPLE_INT64 scalar or a TENSOR_FLOAT32 of exactly one
   *      element (an integer value); 1 <= n <= 92 (F(92) is the largest
   *      Fibonacci number of 64 bits).
   *
   * Outputs:
   * * 0: A 1-D tensor of n elements: TENSOR_FLOAT32 (F(i) rounded to
   *      float32), or EXAMPLE_TENSOR_QUANT64_ASYMM (F(i) / scale rounded to
   *      nearest, halves away from zero, plus zero_point, saturated to the
   *      64-bit range).
   */
  VKNN_EXAMPLE_FIBONACCI = 0,
};

#ifdef __cplusplus
}
#endif
#endif /* VKNN_EXTENSIONS_FIBONACCI_H */
