/* Index remapping (kernel: shaders/remap.comp): the data-movement operations
 * describe where each output element comes from as an affine map. */
#pragma once
#include "ops/op_common.h"

#define VKNN_REMAP_MAX 6

/* shaders/remap_params.comp's push constants. */
typedef struct vknn_remap_params_push {
  uint32_t words;                          /* of the map */
  int32_t begin_mask, end_mask;            /* STRIDED_SLICE (a shrunk axis is one in the view) */
  int32_t h_axis, w_axis, h_view, w_view;  /* the batch/space operations */
  int32_t block_h_view, block_w_view, batches; /* BATCH_TO_SPACE_ND: output batches */
  int32_t out_height, out_width;           /* BATCH_TO_SPACE_ND: the declared output's */
  uint32_t check_code; /* graph/runtime_check.h: reported when a parameter is invalid */
} vknn_remap_params_push;

typedef struct vknn_remap {
  uint32_t axis_count; /* input axes */
  struct {
    uint32_t extent;
    int64_t stride; /* elements */
    int32_t start;
    bool modulo; /* wrap instead of padding (TILE) */
  } axes[VKNN_REMAP_MAX];
  uint32_t view_rank; /* the output, row-major */
  struct {
    uint32_t size;
    uint32_t axis;
    int32_t mul;
  } view[VKNN_REMAP_MAX];
  uint32_t pad_bits; /* value of out-of-bounds elements, as stored */
  /* Parameters known only at run time: the map above is a template that
   * shaders/remap_params.comp completes on the GPU before the copy. */
  struct {
    bool active;
    uint32_t kind;      /* OP of remap_params.comp */
    uint32_t params[3]; /* parameter tensors (unused: UINT32_MAX) */
    vknn_remap_params_push push; /* words is set at lowering */
  } dynamic;
} vknn_remap;

/* Kinds of run-time completion (OP of remap_params.comp). */
enum {
  VKNN_REMAP_DYNAMIC_PAD = 0,
  VKNN_REMAP_DYNAMIC_SLICE = 1,
  VKNN_REMAP_DYNAMIC_STRIDED_SLICE = 2,
  VKNN_REMAP_DYNAMIC_TRANSPOSE = 3,
  VKNN_REMAP_DYNAMIC_SPACE_TO_BATCH = 4,
  VKNN_REMAP_DYNAMIC_BATCH_TO_SPACE = 5,
  VKNN_REMAP_DYNAMIC_TILE = 6, /* the map is complete: multiples are only checked */
};

/* The declared output shape (vknn_remap_declared_output) walked one view
 * dimension per input axis, the input's axes as stored: the template of
 * PAD, SLICE, TRANSPOSE and TILE when their parameters come at run time.
 * INVALID_ARGUMENT (logged) when the declared rank differs from the input's. */
vknn_status vknn_remap_declared_identity(vknn_graph *graph, const vknn_operation *op,
                                         vknn_remap *r, uint32_t *dims, uint32_t *rank);

/* Whether a parameter tensor known only at run time can be read by the GPU:
 * its shape must be known and hold exactly count elements (logged if not; a
 * model input of unknown length defers the operation to execution time). */
bool vknn_remap_param_ok(vknn_graph *graph, const vknn_operation *op, uint32_t input,
                         uint32_t count);

/* Marks a map as completed at run time from up to three parameter tensors
 * (UINT32_MAX: none). The kernel checks every parameter value against the
 * input's shape and the declared output's, and reports what breaks a rule of
 * the operation (docs/architecture.md, "Run-time checks"). */
void vknn_remap_set_dynamic(vknn_remap *r, uint32_t kind, uint32_t a, uint32_t b, uint32_t c);

/* The common run-time-parameter template: input 1 (count elements, known
 * only at run time) completes, on the GPU, an identity view of the declared
 * output (PAD, SLICE, TRANSPOSE). */
vknn_status vknn_remap_dynamic_identity(vknn_graph *graph, const vknn_operation *op,
                                        uint32_t count, uint32_t kind, vknn_remap *r,
                                        uint32_t *dims, uint32_t *rank);

/* The declared shape of output i when parameters are not constants: the
 * output shape must be declared then (GENERAL_FAILURE, logged, if not). */
vknn_status vknn_remap_declared_output(vknn_graph *graph, const vknn_operation *op,
                                       uint32_t output, uint32_t *dims, uint32_t *rank);

/* Axis `given` of input 0 made non-negative: given + rank when below 0. */
int32_t vknn_remap_axis(const vknn_graph *graph, const vknn_operation *op, int32_t given);
/* Whether axis `given` of input 0 is in [-rank, rank) and cut into `parts`
 * equal parts (parts above 0; SPLIT, CHANNEL_SHUFFLE), as far as the rank
 * and the axis's size are known: a rank not known yet, or a size of 0,
 * agrees (ops/known_dims.h). */
bool vknn_remap_axis_parts_fit(const vknn_graph *graph, const vknn_operation *op, int32_t given, int32_t parts);

/* Input 0's image shape in a layout (the batch and space operations), as far
 * as it is known: all 0 while the rank is not, each dimension 0 until it is.
 * INVALID_ARGUMENT (logged) for a known rank other than 4. */
vknn_status vknn_remap_image_shape(const vknn_graph *graph, const vknn_operation *op, bool nchw,
                                   vknn_image_shape *out);

/* The axes of a tensor as they are stored (row-major), starting at 0. */
void vknn_remap_set_axes(vknn_remap *r, const vknn_tensor *t);
/* Appends a view dimension of size that walks axis by mul. */
void vknn_remap_add_view(vknn_remap *r, uint32_t size, uint32_t axis, int32_t mul);

/* Appends the dispatch copying src into dst through the map. */
vknn_status vknn_lower_remap(vknn_graph *graph, uint32_t src, uint32_t dst, const vknn_remap *r,
                             vknn_dispatch_list *out_list);

/* The bits a pad value of zero has in a tensor: its zero point for
 * quantized types. */
uint32_t vknn_zero_pad_bits(const vknn_tensor *t);

/* Builds the map of output `output` of op and that output's shape.
 * GENERAL_FAILURE when a parameter is not a constant, INVALID_ARGUMENT when
 * the parameters are invalid (both logged). */
typedef vknn_status (*vknn_remap_builder)(vknn_graph *graph, const vknn_operation *op,
                                          uint32_t output, vknn_remap *r, uint32_t *dims,
                                          uint32_t *rank);

/* Checks op's parameters, every one a constant (or an optional one
 * omitted), against input 0's rank and the dimensions known so far: a rank
 * the model leaves unknown is 0, a dimension not known yet is 0 and agrees
 * with any (ops/known_dims.h). INVALID_ARGUMENT (logged) for what they
 * already decide. Gives the output shape as far as they decide it: *rank 0
 * while the rank is not known, a dimension 0 where it depends on one not
 * known yet (every output of a remap operation has that shape). */
typedef vknn_status (*vknn_remap_checker)(vknn_graph *graph, const vknn_operation *op, uint32_t *dims,
                                          uint32_t *rank);

/* infer and lower of an operation that is one remap per output. infer runs
 * check first when every parameter is a constant, before it waits for a
 * shape an execution gives: a model leaving the input's shape to the
 * execution still has its parameters, and its declared outputs against the
 * shape they give, checked at prepare (a parameter given as a model input
 * is read once an execution gives it). */
vknn_status vknn_remap_infer(vknn_graph *graph, const vknn_operation *op, vknn_remap_checker check,
                             vknn_remap_builder build);
vknn_status vknn_remap_lower(vknn_graph *graph, const vknn_operation *op, vknn_remap_builder build,
                             vknn_dispatch_list *out_list);

#define VKNN_REMAP_OP_DEF(name, TYPE, validate, check, build)                                \
  static vknn_status infer_##name(vknn_graph *graph, const vknn_operation *op) {            \
    return vknn_remap_infer(graph, op, check, build);                                      \
  }                                                                                         \
  static vknn_status lower_##name(vknn_graph *graph, const vknn_operation *op,              \
                                  vknn_dispatch_list *out_list) {                          \
    return vknn_remap_lower(graph, op, build, out_list);                                   \
  }                                                                                         \
  const vknn_op_def vknn_op_##name = {VKNN_OPERATION_##TYPE, false, validate, infer_##name, \
                                      lower_##name}
