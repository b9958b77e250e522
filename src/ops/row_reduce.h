/* Row reductions (shaders/row_reduce.glsl): a tensor seen as [outer, axis,
 * inner] is reduced along its axis, then every element is written from its
 * row's result (SOFTMAX, LOG_SOFTMAX, L2_NORMALIZATION, LRN over whole rows,
 * INSTANCE_NORMALIZATION). A workgroup reduces rows in shared memory; rows
 * longer than one workgroup takes at once are cut into chunks reduced by
 * workgroups of their own, and a second pass combines the chunks' partial
 * results and writes the elements. */
#pragma once
#include "ops/op_common.h"

/* Invocations of a row-reducing workgroup. */
#define VKNN_ROW_GROUP 128u
/* Elements one lane folds, at most, before a row takes two passes. */
#define VKNN_ROW_LANE_ELEMENTS 4u

/* The kernels' pass (specialization constant PASS, constant_id 1: index 0
 * of vknn_dispatch.spec in every row-reducing family). */
typedef enum vknn_row_pass {
  VKNN_ROW_PASS_ROWS = 0,     /* whole rows, `lanes` lanes each */
  VKNN_ROW_PASS_PARTIALS = 1, /* one workgroup per chunk: its partial result */
  VKNN_ROW_PASS_APPLY = 2,    /* one workgroup per chunk: combine, write */
  VKNN_ROW_PASS_OWN = 3,      /* the first pass a family defines itself */
} vknn_row_pass;

/* The members every row-reducing kernel's push constants start with, in
 * this order (row_reduce.glsl). */
#define VKNN_ROW_PARAMS uint32_t outer, axis, inner, lanes, chunks, chunk_len, chunk_lanes
#define VKNN_ROW_PARAMS_OF(plan)                                                           \
  .outer = (plan).outer, .axis = (plan).axis, .inner = (plan).inner, .lanes = (plan).lanes, \
  .chunks = (plan).chunks, .chunk_len = (plan).chunk_len, .chunk_lanes = (plan).chunk_lanes

typedef struct vknn_row_plan {
  uint32_t outer, axis, inner;
  uint32_t lanes;       /* one pass: lanes per row, a power of two */
  uint32_t chunks;      /* 0: one pass; else chunks per row (at most VKNN_ROW_GROUP) */
  uint32_t chunk_len;   /* elements per chunk */
  uint32_t chunk_lanes; /* a power of two >= chunks: lanes combining a row's partials */
} vknn_row_plan;

/* The rows of a tensor of known shape along dimension `axis`, and how they
 * are reduced. False (logged) when the tensor has more elements than the
 * kernels address. */
bool vknn_row_plan_of(const vknn_graph *graph, const vknn_tensor *t, uint32_t axis,
                      vknn_row_plan *out_plan);

/* A plan over [outer, axis, inner] directly (INSTANCE_NORMALIZATION's
 * planes). */
void vknn_row_plan_shape(uint32_t outer, uint32_t axis, uint32_t inner, vknn_row_plan *out_plan);

/* The dispatch of a row kernel: input and output bound at 0 and 1, the
 * partials at 2; spec[0] is set to the pass. */
typedef struct vknn_row_kernel {
  vknn_shader_id shader;
  uint32_t spec[VKNN_MAX_SPEC_CONSTANTS]; /* the family's constants after PASS */
  uint32_t spec_count;                    /* the family's count, PASS included */
  const void *push;
  uint32_t push_size;
} vknn_row_kernel;

/* Appends one dispatch (whole rows) or two (partials, apply) reducing
 * input into output by the plan. */
vknn_status vknn_row_reduce_lower(vknn_graph *graph, const vknn_row_plan *plan,
                                  const vknn_row_kernel *kernel, uint32_t input, uint32_t output,
                                  vknn_dispatch_list *out_list);

/* A temporary for `count` partial results of a row kernel (16 bytes each);
 * UINT32_MAX when out of memory. */
uint32_t vknn_row_partials(vknn_graph *graph, uint64_t count);

/* Appends a row kernel's dispatch for a pass: invocations, pass, bindings
 * (partials: UINT32_MAX binds the output there, unused). NULL when out of
 * memory. */
vknn_dispatch *vknn_row_dispatch(const vknn_row_kernel *kernel, uint32_t pass,
                                 uint64_t invocations, uint32_t input, uint32_t output,
                                 uint32_t partials, vknn_dispatch_list *out_list);

/* The least power of two >= v (v <= 2^31). */
uint32_t vknn_power_of_two_at_least(uint32_t v);
