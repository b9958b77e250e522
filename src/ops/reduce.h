/* Reductions along axes, shared by reduce.c (MEAN, REDUCE_*) and
 * arg_minmax.c (ARGMAX, ARGMIN): the input seen as rows, and the passes of
 * workgroups that reduce them (kernels: shaders/reduce.comp and
 * arg_minmax.comp, over shaders/reduce_rows.glsl). */
#pragma once
#include "ops/op_common.h"

/* The input as [outer, row_outer, middle, row_inner, inner]: each output
 * (one per outer x middle x inner) reduces a row of row_outer x row_inner
 * elements. */
typedef struct vknn_reduce_rows {
  uint32_t outer, row_outer, middle, row_inner, inner;
} vknn_reduce_rows;

/* Groups the axes of a shape, those marked in reduced and the others, into
 * rows. Axes of extent 1 belong to neither side. False when the reduced
 * axes form more than two separate runs (only possible above rank 4). */
bool vknn_reduce_rows_of(const uint32_t *dims, uint32_t rank, const bool *reduced,
                         vknn_reduce_rows *out);

/* Push constants of the reduction kernels (reduce_rows.glsl), std430. */
typedef struct vknn_reduce_params {
  uint32_t outputs;
  uint32_t inner, middle;
  uint32_t row_outer, row_inner, row;
  uint32_t chunk, splits;
  uint32_t count;
  float act_min, act_max;
} vknn_reduce_params;

/* How a pass reads elements (reduce_rows.glsl's VECTORS): one at a time,
 * 4 neighbouring elements of a row, or one element of 4 neighbouring
 * outputs. */
typedef enum vknn_reduce_vectors {
  VKNN_REDUCE_SCALARS = 0,
  VKNN_REDUCE_ROW_VECTORS = 1,
  VKNN_REDUCE_OUTPUT_VECTORS = 2,
} vknn_reduce_vectors;

/* What a family's kernel choice needs to know of one pass. */
typedef struct vknn_reduce_pass {
  bool reads_partials;  /* the input holds the partials of an earlier pass */
  bool writes_partials; /* rows are split: this pass writes partials */
  uint32_t out_lanes;   /* outputs (or vectors of 4) per workgroup */
  vknn_reduce_vectors vectors;
} vknn_reduce_pass;

typedef struct vknn_reduce_lowering {
  vknn_reduce_rows rows;
  uint32_t input, output;   /* tensors */
  int32_t partial_type;     /* TENSOR_FLOAT32 or TENSOR_INT32 */
  uint32_t partial_words;   /* 32-bit words of one partial result */
  uint32_t count;           /* push constant `count` (MEAN's divisor) */
  float act_min, act_max;   /* push constants: reduce.comp's CLAMP bounds */
  /* Sets d's kernel and specialization constants for a pass. */
  void (*set_kernel)(const void *context, const vknn_reduce_pass *pass, vknn_dispatch *d);
  const void *context;
} vknn_reduce_lowering;

/* The dispatches of a reduction: one pass when every row fits a workgroup,
 * else passes that split rows across workgroups and combine their partials
 * (kept in temporaries) until one result per output remains. */
vknn_status vknn_lower_reduce(vknn_graph *graph, const vknn_reduce_lowering *r,
                              vknn_dispatch_list *out_list);

/* A pooling whose window covers the whole image (pool2d.c) on reduce.comp:
 * the input's `reduced` axes (height and width) reduced by its operation
 * (average, maximum or L2), clamped by its fused activation's bounds. */
typedef enum vknn_reduce_pooling {
  VKNN_REDUCE_POOL_AVERAGE,
  VKNN_REDUCE_POOL_MAX,
  VKNN_REDUCE_POOL_L2,
} vknn_reduce_pooling;
vknn_status vknn_lower_pooling_reduction(vknn_graph *graph, uint32_t input, uint32_t output,
                                         const bool *reduced, vknn_reduce_pooling pooling,
                                         float act_min, float act_max, vknn_dispatch_list *out_list);

/* A reduction's output shape from its input's (a dimension 0, not known
 * yet, stays 0): the axes not reduced, and the reduced ones as 1 with
 * keep_dims; one element when every axis is reduced, as the reference
 * gives. Returns its rank. */
uint32_t vknn_reduced_shape(const vknn_tensor *in, const bool *reduced, bool keep_dims, uint32_t *dims);

/* Elements a reduction kernel can address (32-bit offsets); an operation
 * whose input has more is unsupported (logged). */
bool vknn_reduce_fits(const vknn_graph *graph, const vknn_operation *op);
