/* Batched matrix products of the extension org.vknn.transformer
 * (BATCH_MATMUL, ATTENTION): batch broadcasting and the tiled kernel
 * shaders/batch_matmul.comp, from ext_batch_matmul.c. */
#pragma once
#include "ops/op_common.h"

/* Tensors of rank 2 to 4: up to two batch dimensions before the matrix. */
#define VKNN_BATCH_MATMUL_MAX_RANK 4

/* c[batch, m, n] = alpha * sum_k a[batch, m, k] * b[batch, k, n] (+ mask),
 * a and b (and the mask) addressed by strides; a batch is (outer, inner),
 * batch strides of 0 broadcast. mask: UINT32_MAX for none. c is dense
 * [batches, m, n]. */
typedef struct vknn_batch_matmul {
  uint32_t a, b, mask, c;
  uint32_t m, n, k;
  uint32_t a_row, a_col, b_row, b_col;
  uint32_t batches, batch_inner;
  uint32_t a_outer, a_inner, b_outer, b_inner;
  uint32_t mask_outer, mask_inner, mask_row, mask_col;
  float alpha;
} vknn_batch_matmul;

/* The batch of two shapes broadcast (numpy rules on all but the last two
 * dimensions), as two extents (outer, inner), padded with 1 at the front;
 * false when they do not broadcast. An extent of 0 is not known yet
 * (ops/known_dims.h): it broadcasts with any, and the result is the other
 * one where that is above 1, else 0. */
bool vknn_batch_broadcast(const uint32_t *x, uint32_t x_rank, const uint32_t *y, uint32_t y_rank,
                          uint32_t out_batch[2]);

/* Batch strides (outer, inner) of a tensor whose last two dimensions form
 * its matrices: 0 where its extent is 1 (broadcast). */
void vknn_batch_strides(const uint32_t *dims, uint32_t rank, uint32_t out_strides[2]);

/* The product of graph tensors a and b into c over a batch (outer, inner):
 * a's and b's batch strides from their shapes, no mask, alpha 1; the caller
 * sets m, n, k and the matrix strides. */
vknn_batch_matmul vknn_batch_matmul_of(const vknn_graph *graph, uint32_t a, uint32_t b, uint32_t c,
                                       const uint32_t batch[2]);

/* Appends the product's dispatch. */
vknn_status vknn_lower_batch_matmul(vknn_graph *graph, const vknn_batch_matmul *bm,
                                    vknn_dispatch_list *out_list);
