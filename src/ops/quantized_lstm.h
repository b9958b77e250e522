/* What the quantized LSTM cells share (src/ops/quantized_lstm.c,
 * quantized_16bit_lstm.c): their matrix products of 8-bit operands with
 * int32 sums, on shaders/quant_matmul.comp.
 *
 * Why not vknn_lower_matmul: its quantized kernels (conv2d_gemm) sum exactly
 * but requantize each sum into the 8-bit output type, while these cells need
 * the raw int32 sums (each gate requantizes its input and recurrent products
 * separately, saturating to 16 bits in between) and an int8 projection with
 * the reference's zero-point convention and clip. quant_matmul.comp is
 * tiled the same way (a 4 x 4 register block per invocation, four 8-bit
 * values per 32-bit load). */
#pragma once
#include "ops/op_common.h"

typedef struct vknn_quant_matmul {
  uint32_t x, w;      /* [rows, k] and [n, k], 8-bit, the same signedness */
  uint32_t rows, k, n;
  int32_t zx, zw;     /* subtracted from x and w */
  /* Raw sums (project == false): into the INT32 tensor out at out_offset +
   * r * out_stride + c. */
  uint32_t out, out_offset, out_stride;
  /* Projection (project == true): int8 clamp(M(sum + bias[c])) + zero point,
   * clipped to [-clip, clip] when clip > 0, into out and out2 ([rows, n]). */
  bool project;
  uint32_t bias, out2;
  int32_t multiplier, shift, out_zero_point, clip;
} vknn_quant_matmul;

vknn_status vknn_lower_quant_matmul(vknn_graph *graph, const vknn_quant_matmul *m,
                                    vknn_dispatch_list *out_list);

/* The reference's fixed-point form of a real multiplier given as float
 * (vknn_quantize_multiplier); logs (tag "model") and fails with
 * INVALID_ARGUMENT when it has none. */
vknn_status vknn_qlstm_multiplier(const vknn_graph *graph, const vknn_operation *op,
                                  const char *what, float real, int32_t *out_pair);
