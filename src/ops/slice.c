/* SLICE and STRIDED_SLICE: a box (with steps) of the input.
 * Kernel: shaders/remap.comp. */
#include <string.h>

#include "ops/remap.h"

/* The parameter vectors (SLICE: begin, size; STRIDED_SLICE: begin, end,
 * strides) are 1-D TENSOR_INT32, STRIDED_SLICE's three masks INT32 scalars. */
static bool check_parameters(const vknn_logger *log, const vknn_subgraph *sg,
                             const vknn_operation *op, uint32_t vectors) {
  for (uint32_t i = 1; i < op->input_count; ++i) {
    const vknn_operand *p = &sg->operands[op->inputs[i]];
    bool vector = i <= vectors;
    if (!vknn_op_check_type(log, op, vector ? "a parameter vector" : "a mask", p,
                            vector ? VKNN_OPERAND_TENSOR_INT32 : VKNN_OPERAND_INT32) ||
        (vector && !vknn_op_check_rank(log, op, "a parameter vector", p, 1)))
      return false;
  }
  return true;
}

/* SLICE: any rank, int32 data too. */
static vknn_status validate_slice(const vknn_logger *log, const vknn_model *model,
                                  const vknn_subgraph *sg, const vknn_operation *op) {
  (void)model;
  bool ok = vknn_op_check_counts(log, sg, op, 3, 3, 1) &&
            vknn_op_check_data_types(log, sg, op, VKNN_MAX_RANK, true) &&
            check_parameters(log, sg, op, 2) && vknn_op_check_same_quant(log, sg, op, 0);
  return ok ? VKNN_STATUS_NONE : VKNN_STATUS_INVALID_ARGUMENT;
}

/* STRIDED_SLICE: float and quant8 data of rank up to 4. */
static vknn_status validate_strided_slice(const vknn_logger *log, const vknn_model *model,
                                          const vknn_subgraph *sg, const vknn_operation *op) {
  (void)model;
  bool ok = vknn_op_check_counts(log, sg, op, 7, 7, 1) && vknn_op_check_data_types(log, sg, op, 4, false) &&
            check_parameters(log, sg, op, 3) && vknn_op_check_same_quant(log, sg, op, 0);
  return ok ? VKNN_STATUS_NONE : VKNN_STATUS_INVALID_ARGUMENT;
}

/* Whether parameters 1 .. count are all constants. */
static bool vectors_constant(const vknn_graph *graph, const vknn_operation *op, uint32_t count) {
  for (uint32_t i = 0; i < count; ++i)
    if (graph->tensors[op->inputs[1 + i]].constant_data == NULL) return false;
  return true;
}

/* Reads count constant int tensors of one entry per input axis: as many as
 * the first one has while the model leaves the rank unknown. *n is that
 * count. */
static vknn_status read_vectors(vknn_graph *graph, const vknn_operation *op, uint32_t count,
                                int32_t vectors[][VKNN_MAX_RANK], uint32_t *n) {
  uint32_t rank = graph->tensors[op->inputs[0]].rank;
  for (uint32_t i = 0; i < count; ++i) {
    if (!vknn_graph_const_i32_tensor(graph, op->inputs[1 + i], vectors[i], VKNN_MAX_RANK, n)) {
      VKNN_LOG_E(graph->log, "model", "%s: parameter %u does not fit the input",
                 vknn_operation_type_name(op->type), 1 + i);
      return VKNN_STATUS_INVALID_ARGUMENT;
    }
    if (rank == 0) rank = *n;
    if (*n != rank) {
      VKNN_LOG_E(graph->log, "model", "%s: parameter %u has %u entries for rank %u",
                 vknn_operation_type_name(op->type), 1 + i, *n, rank);
      return VKNN_STATUS_INVALID_ARGUMENT;
    }
  }
  return VKNN_STATUS_NONE;
}

/* One axis of a constant slice: begin, and a size (-1: to the end) within
 * the axis's size dim. While dim is 0 (not known yet) only their signs are
 * checked, and *size is the size given, or 0 (not known either) for -1. */
static vknn_status slice_axis(vknn_graph *graph, uint32_t d, int32_t begin, int32_t size_param, uint32_t dim,
                              uint32_t *size) {
  int64_t b = begin, n = size_param == -1 ? (int64_t)dim - b : size_param;
  if (dim != 0 && b >= 0 && n == 0 && b <= dim) {
    /* Valid (the reference allows it), but a tensor of no elements. */
    VKNN_LOG_E(graph->log, "compilation",
               "SLICE: axis %u selects no elements: zero-sized tensors are not supported", d);
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  if (b < 0 || size_param < -1 || (dim != 0 && (n < 0 || b + n > dim))) {
    VKNN_LOG_E(graph->log, "model", "SLICE: axis %u: begin %d, size %d out of %u", d, begin, size_param, dim);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  *size = dim != 0 || size_param > 0 ? (uint32_t)n : 0;
  return VKNN_STATUS_NONE;
}

/* Constant begin and size, against the input's rank (the entries' count
 * while it is not known) and the dimensions known so far; the output's
 * shape as far as they decide it. */
static vknn_status check_slice(vknn_graph *graph, const vknn_operation *op, uint32_t *dims, uint32_t *rank) {
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  int32_t v[2][VKNN_MAX_RANK]; /* begin, size */
  uint32_t n;
  vknn_status s = read_vectors(graph, op, 2, v, &n);
  for (uint32_t d = 0; s == VKNN_STATUS_NONE && d < n; ++d)
    s = slice_axis(graph, d, v[0][d], v[1][d], d < in->rank ? in->dims[d] : 0, &dims[d]);
  if (s == VKNN_STATUS_NONE) *rank = n;
  return s;
}

static vknn_status build_slice(vknn_graph *graph, const vknn_operation *op, uint32_t output,
                               vknn_remap *r, uint32_t *dims, uint32_t *rank) {
  (void)output;
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  if (!vectors_constant(graph, op, 2)) { /* begin decides at run time, size is checked */
    if (!vknn_remap_param_ok(graph, op, 2, in->rank)) return VKNN_STATUS_GENERAL_FAILURE;
    vknn_status s = vknn_remap_dynamic_identity(graph, op, in->rank, VKNN_REMAP_DYNAMIC_SLICE, r,
                                                dims, rank);
    r->dynamic.params[1] = op->inputs[2];
    return s;
  }
  int32_t v[2][VKNN_MAX_RANK]; /* begin, size */
  uint32_t n;
  vknn_status s = read_vectors(graph, op, 2, v, &n);
  if (s != VKNN_STATUS_NONE) return s;
  vknn_remap_set_axes(r, in);
  for (uint32_t d = 0; d < in->rank; ++d) {
    s = slice_axis(graph, d, v[0][d], v[1][d], in->dims[d], &dims[d]);
    if (s != VKNN_STATUS_NONE) return s;
    r->axes[d].start = v[0][d];
    vknn_remap_add_view(r, dims[d], d, 1);
  }
  *rank = in->rank;
  return VKNN_STATUS_NONE;
}

/* Begin and end of one axis of a strided slice, as TensorFlow defines them. */
static void strided_range(int32_t dim, int32_t stride, bool begin_masked, bool end_masked,
                          int32_t *begin, int32_t *end) {
  int32_t lo = stride > 0 ? 0 : -1, hi = stride > 0 ? dim : dim - 1;
  if (begin_masked) {
    *begin = stride > 0 ? 0 : dim - 1;
  } else {
    if (*begin < 0) *begin += dim;
    *begin = *begin < lo ? lo : *begin > hi ? hi : *begin;
  }
  if (end_masked) {
    *end = stride > 0 ? dim : -1;
  } else {
    if (*end < 0) *end += dim;
    *end = *end < lo ? lo : *end > hi ? hi : *end;
  }
}

/* Begin, end and strides known only at run time: the view walks the declared
 * output (shrunk axes as size 1); the GPU sets starts and steps. */
static vknn_status build_dynamic_strided_slice(vknn_graph *graph, const vknn_operation *op,
                                               const int32_t masks[3], vknn_remap *r,
                                               uint32_t *dims, uint32_t *rank) {
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  for (uint32_t i = 1; i <= 3; ++i)
    if (!vknn_remap_param_ok(graph, op, i, in->rank)) return VKNN_STATUS_GENERAL_FAILURE;
  vknn_status s = vknn_remap_declared_output(graph, op, 0, dims, rank);
  if (s != VKNN_STATUS_NONE) return s;
  uint32_t kept = 0; /* rank n - k, k the axes shrunk */
  for (uint32_t d = 0; d < in->rank; ++d) kept += !((masks[2] >> d) & 1);
  if (kept != *rank && !(kept == 0 && *rank == 1)) {
    VKNN_LOG_E(graph->log, "model", "STRIDED_SLICE: output rank %u does not fit the shrink mask (%u)",
               *rank, kept);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  /* Every axis shrunk: the output is [1] (NNAPI), one element. */
  if (kept == 0 && dims[0] != 1) {
    VKNN_LOG_E(graph->log, "model", "STRIDED_SLICE: every axis shrunk, so the output is [1], not [%u]",
               dims[0]);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  vknn_remap_set_axes(r, in);
  for (uint32_t d = 0, k = 0; d < in->rank; ++d) {
    bool shrink = (masks[2] >> d) & 1;
    vknn_remap_add_view(r, shrink ? 1 : dims[k++], d, 1);
  }
  vknn_remap_set_dynamic(r, VKNN_REMAP_DYNAMIC_STRIDED_SLICE, op->inputs[1], op->inputs[2], op->inputs[3]);
  r->dynamic.push.begin_mask = masks[0];
  r->dynamic.push.end_mask = masks[1];
  return VKNN_STATUS_NONE;
}

/* Size of a strided range: ceil((end - begin) / stride), 0 when empty. */
static int64_t strided_size(int32_t begin, int32_t end, int32_t stride) {
  int64_t span = stride > 0 ? (int64_t)end - begin : (int64_t)begin - end;
  int64_t step = stride > 0 ? stride : -(int64_t)stride;
  return span > 0 ? (span + step - 1) / step : 0;
}

/* A stride of 0 is refused whatever the axis's size. */
static vknn_status check_stride(vknn_graph *graph, uint32_t d, int32_t stride) {
  if (stride != 0) return VKNN_STATUS_NONE;
  VKNN_LOG_E(graph->log, "model", "STRIDED_SLICE: stride 0 on axis %u", d);
  return VKNN_STATUS_INVALID_ARGUMENT;
}

/* One axis of a strided slice with constant parameters: its start, stride
 * and size. A shrunk axis must define a slice of exactly one element (the
 * NNAPI text; the reference also wants a positive stride, the text does
 * not); any other axis that selects none is unsupported. */
static vknn_status strided_axis(vknn_graph *graph, uint32_t d, int32_t dim, const int32_t v[3][VKNN_MAX_RANK],
                                const int32_t masks[3], int32_t *begin, int32_t *stride,
                                uint32_t *size) {
  int32_t end = v[1][d];
  bool shrink = (masks[2] >> d) & 1;
  *begin = v[0][d];
  *stride = v[2][d];
  vknn_status s = check_stride(graph, d, *stride);
  if (s != VKNN_STATUS_NONE) return s;
  strided_range(dim, *stride, (masks[0] >> d) & 1, (masks[1] >> d) & 1, begin, &end);
  int64_t n = strided_size(*begin, end, *stride);
  if (shrink && n != 1) {
    VKNN_LOG_E(graph->log, "model",
               "STRIDED_SLICE: shrunk axis %u must select one element "
               "(begin %d, end %d, stride %d select %lld)",
               d, v[0][d], v[1][d], v[2][d], (long long)n);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  if (n == 0) {
    /* Valid (the reference clamps the axis to no elements), but a tensor of
     * no elements. */
    VKNN_LOG_E(graph->log, "compilation",
               "STRIDED_SLICE: axis %u is empty (begin %d, end %d, stride %d): zero-sized tensors are not supported",
               d, v[0][d], v[1][d], v[2][d]);
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  *size = (uint32_t)n;
  return VKNN_STATUS_NONE;
}

/* The output of a strided slice whose axis d selects sizes[d]: the axes
 * not shrunk, or [1] where every axis is. Its rank. */
static uint32_t kept_shape(const uint32_t *sizes, uint32_t n, int32_t shrink_mask, uint32_t *dims) {
  uint32_t rank = 0;
  for (uint32_t d = 0; d < n; ++d)
    if (!((shrink_mask >> d) & 1)) dims[rank++] = sizes[d];
  if (rank == 0) dims[rank++] = 1; /* every axis shrunk: a one-element tensor */
  return rank;
}

/* Constant begin, end and strides, against the input's rank (the entries'
 * count while it is not known); each axis whose size is known selects what
 * the rules allow, the others have a stride other than 0. The output's
 * shape as far as they decide it: an axis's size, clamped to the input's,
 * is known only where that is. */
static vknn_status check_strided_slice(vknn_graph *graph, const vknn_operation *op, uint32_t *dims,
                                       uint32_t *rank) {
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  int32_t v[3][VKNN_MAX_RANK]; /* begin, end, strides */
  int32_t masks[3];            /* begin, end, shrink-axis */
  uint32_t n, sizes[VKNN_MAX_RANK] = {0};
  if (!vknn_graph_const_i32_list(graph, op, 4, 3, masks)) return VKNN_STATUS_GENERAL_FAILURE;
  vknn_status s = read_vectors(graph, op, 3, v, &n);
  for (uint32_t d = 0; s == VKNN_STATUS_NONE && d < n; ++d) {
    int32_t dim = d < in->rank ? (int32_t)in->dims[d] : 0, begin, stride;
    s = dim != 0 ? strided_axis(graph, d, dim, v, masks, &begin, &stride, &sizes[d])
                 : check_stride(graph, d, v[2][d]);
  }
  if (s == VKNN_STATUS_NONE) *rank = kept_shape(sizes, n, masks[2], dims);
  return s;
}

static vknn_status build_strided_slice(vknn_graph *graph, const vknn_operation *op,
                                       uint32_t output, vknn_remap *r, uint32_t *dims,
                                       uint32_t *rank) {
  (void)output;
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  int32_t v[3][VKNN_MAX_RANK]; /* begin, end, strides */
  int32_t masks[3];            /* begin, end, shrink-axis */
  uint32_t n, sizes[VKNN_MAX_RANK];
  if (!vknn_graph_const_i32_list(graph, op, 4, 3, masks)) return VKNN_STATUS_GENERAL_FAILURE;
  if (!vectors_constant(graph, op, 3)) return build_dynamic_strided_slice(graph, op, masks, r, dims, rank);
  vknn_status s = read_vectors(graph, op, 3, v, &n);
  if (s != VKNN_STATUS_NONE) return s;
  vknn_remap_set_axes(r, in);
  for (uint32_t d = 0; d < in->rank; ++d) {
    int32_t begin, stride;
    s = strided_axis(graph, d, (int32_t)in->dims[d], v, masks, &begin, &stride, &sizes[d]);
    if (s != VKNN_STATUS_NONE) return s;
    r->axes[d].start = begin;
    vknn_remap_add_view(r, sizes[d], d, stride);
  }
  *rank = kept_shape(sizes, in->rank, masks[2], dims);
  return VKNN_STATUS_NONE;
}

VKNN_REMAP_OP_DEF(slice, SLICE, validate_slice, check_slice, build_slice);
VKNN_REMAP_OP_DEF(strided_slice, STRIDED_SLICE, validate_strided_slice, check_strided_slice,
                  build_strided_slice);
