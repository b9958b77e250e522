/*
 * The vendor extension org.vknn.transformer: the building blocks of
 * transformer models that NNAPI 1.3 lacks. Every operation takes
 * TENSOR_FLOAT32 or TENSOR_FLOAT16 tensors (float32 models may be relaxed);
 * all tensors of one operation share the type. The extension declares no
 * operand type of its own.
 *
 * A model uses it through its extensionNameToPrefix table: an operation type
 * is (prefix << 16) | code, where prefix is the one the model gives
 * VKNN_TRANSFORMER_EXTENSION_NAME. docs/extensions.md describes the semantics.
 */
#ifndef VKNN_EXTENSIONS_TRANSFORMER_H
#define VKNN_EXTENSIONS_TRANSFORMER_H

#ifdef __cplusplus
extern "C" {
#endif

#define VKNN_TRANSFORMER_EXTENSION_NAME "org.vknn.transformer"

/* Operation types (codes within the extension). */
enum {
  /* Batched matrix product: out[..., m, n] = sum_k x[..., m, k] * y[..., k, n].
   *
   * Inputs:
   * * 0: x, rank 2 to 4: [..., M, K] ([..., K, M] when adj_x).
   * * 1: y, rank 2 to 4: [..., K, N] ([..., N, K] when adj_y).
   * * 2: adj_x, a BOOL scalar: x's last two dimensions are transposed.
   * * 3: adj_y, a BOOL scalar: y's last two dimensions are transposed.
   * The dimensions before the last two (the batch) broadcast as in numpy:
   * aligned from the right, each pair equal or one of them 1.
   *
   * Outputs:
   * * 0: [broadcast batch..., M, N].
   */
  VKNN_TRANSFORMER_BATCH_MATMUL = 0,

  /* Layer normalization along one axis:
   *   out = (x - mean) / sqrt(variance + epsilon) * gamma + beta,
   * mean and (biased) variance over the axis.
   *
   * Inputs:
   * * 0: x, rank 1 to 4.
   * * 1: gamma, 1-D of x's extent along the axis; optional (omitted: 1).
   * * 2: beta, 1-D of x's extent along the axis; optional (omitted: 0).
   * * 3: axis, an INT32 scalar in [-rank, rank).
   * * 4: epsilon, a FLOAT32 scalar (FLOAT16 for TENSOR_FLOAT16), > 0.
   *
   * Outputs:
   * * 0: x's shape.
   */
  VKNN_TRANSFORMER_LAYER_NORMALIZATION = 1,

  /* Gaussian error linear unit, elementwise:
   *   exact: out = x * Phi(x) = 0.5 * x * (1 + erf(x / sqrt(2)))
   *   tanh:  out = 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))
   *
   * Inputs:
   * * 0: x, any rank.
   * * 1: approximate, a BOOL scalar: the tanh form.
   *
   * Outputs:
   * * 0: x's shape.
   */
  VKNN_TRANSFORMER_GELU = 2,

  /* Scaled dot-product attention:
   *   out = softmax(query * key^T * scale + mask) * value,
   * the softmax along the last dimension.
   *
   * Inputs:
   * * 0: query, rank 2 to 4: [..., Sq, D].
   * * 1: key, [..., Sk, D], the same batch dimensions as query.
   * * 2: value, [..., Sk, Dv], the same batch dimensions as query.
   * * 3: mask, optional: added to the scaled scores [..., Sq, Sk]; rank 2
   *      to query's rank, broadcasting as in BATCH_MATMUL (-inf or a large
   *      negative value hides a key; a row hidden whole gives NaN).
   * * 4: scale, a FLOAT32 scalar (FLOAT16 for TENSOR_FLOAT16), finite.
   *
   * Outputs:
   * * 0: [..., Sq, Dv].
   */
  VKNN_TRANSFORMER_ATTENTION = 3,
};

#ifdef __cplusplus
}
#endif
#endif /* VKNN_EXTENSIONS_TRANSFORMER_H */
