/* TRANSPOSE_CONV_2D: signature validation, shape inference and lowering onto
 * the convolution kernels in their transposed mode (vknn_conv_geometry
 * .transposed): each output pixel gathers the input pixels whose scattered
 * window covers it, so no output is written twice and no atomics are needed. */
#include <stdint.h>

#include "model/operand_type.h"
#include "ops/conv2d.h"
#include "ops/known_dims.h"

/* Explicit padding: 11 inputs (pads 3..6, strides 7 and 8, activation 9,
 * layout 10). Implicit: 9 inputs (output shape tensor 3, padding scheme 4,
 * strides 5 and 6, activation 7, layout 8). */
typedef struct transpose_form {
  bool explicit_padding;
  uint32_t stride, activation, layout;
} transpose_form;

enum { OUTPUT_SHAPE_INPUT = 3 };

static transpose_form form_of(const vknn_operation *op) {
  bool explicit_padding = op->input_count == 11;
  uint32_t stride = explicit_padding ? 7 : 5;
  return (transpose_form){explicit_padding, stride, stride + 2, stride + 3};
}

static int32_t scalar_type(const transpose_form *f, uint32_t input) {
  if (input == f->layout) return VKNN_OPERAND_BOOL;
  if (!f->explicit_padding && input == OUTPUT_SHAPE_INPUT) return VKNN_OPERAND_TENSOR_INT32;
  return VKNN_OPERAND_INT32;
}

/* The output shape input: a 1-D TENSOR_INT32 of 4 entries. */
static bool check_output_shape_input(const vknn_logger *log, const vknn_subgraph *sg,
                                     const vknn_operation *op) {
  const vknn_operand *shape = &sg->operands[op->inputs[OUTPUT_SHAPE_INPUT]];
  if (!vknn_op_check_rank(log, op, "output shape", shape, 1)) return false;
  if (shape->dimension_count != 1 || shape->dimensions[0] == 0 || shape->dimensions[0] == 4)
    return true;
  VKNN_LOG_E(log, "model", "TRANSPOSE_CONV_2D: output shape of %u entries (4)", shape->dimensions[0]);
  return false;
}

static vknn_status validate_transpose_conv(const vknn_logger *log, const vknn_model *model,
                                           const vknn_subgraph *sg, const vknn_operation *op) {
  (void)model;
  if (!vknn_op_check_counts(log, sg, op, 9, 11, 1)) return VKNN_STATUS_INVALID_ARGUMENT;
  if (op->input_count == 10) {
    VKNN_LOG_E(log, "model", "TRANSPOSE_CONV_2D: 10 inputs (9 or 11)");
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  transpose_form f = form_of(op);
  if (!vknn_conv_check_operands(log, sg, op, 0)) return VKNN_STATUS_INVALID_ARGUMENT;
  for (uint32_t i = 3; i < op->input_count; ++i) {
    if (!vknn_op_check_type(log, op, "a parameter", &sg->operands[op->inputs[i]], scalar_type(&f, i)))
      return VKNN_STATUS_INVALID_ARGUMENT;
  }
  if (!f.explicit_padding && !check_output_shape_input(log, sg, op)) return VKNN_STATUS_INVALID_ARGUMENT;
  return VKNN_STATUS_NONE;
}

/* Padding before and after of one dimension under an implicit scheme, from
 * the requested output size (NNAPI's rule: the SAME total is what a stride
 * walk over the output needs; the trailing part may be negative, which
 * shortens the output to the requested size). */
static void implicit_padding(int64_t out, int64_t stride, int64_t kernel, int32_t scheme,
                             int64_t *before, int64_t *after) {
  *before = 0;
  *after = 0;
  if (scheme != VKNN_PADDING_SAME) return;
  int64_t total = ((out + stride - 1) / stride - 1) * stride + kernel - out;
  *before = total > 0 ? total / 2 : 0;
  *after = total - *before;
}

/* The requested output height and width from the output shape input: a
 * constant, or a model input known once an execution gives it (deferred). */
static vknn_status requested_size(vknn_graph *graph, const vknn_operation *op, bool nchw,
                                  int64_t *out_h, int64_t *out_w) {
  int32_t shape[4];
  uint32_t count = 0;
  uint32_t operand = op->inputs[OUTPUT_SHAPE_INPUT];
  if (!vknn_graph_const_i32_tensor(graph, operand, shape, 4, &count)) {
    if (graph->tensors[operand].lifetime == VKNN_LIFETIME_SUBGRAPH_INPUT)
      return vknn_graph_defer(graph, op, "the output shape is a model input");
    VKNN_LOG_E(graph->log, "compilation", "TRANSPOSE_CONV_2D: needs a constant output shape");
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  if (count != 4) {
    VKNN_LOG_E(graph->log, "model", "TRANSPOSE_CONV_2D: output shape of %u entries (4)", count);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  vknn_image_axes axes = vknn_image_axes_of(nchw);
  *out_h = shape[axes.h];
  *out_w = shape[axes.w];
  return VKNN_STATUS_NONE;
}

/* Pads (left, right, top, bottom), read or derived from the output shape. */
static vknn_status read_pads(vknn_graph *graph, const vknn_operation *op, const transpose_form *f,
                             const vknn_conv_geometry *g, int64_t pads[4]) {
  if (f->explicit_padding) {
    int32_t values[4];
    if (!vknn_graph_const_i32_list(graph, op, 3, 4, values)) return VKNN_STATUS_GENERAL_FAILURE;
    for (int i = 0; i < 4; ++i) pads[i] = values[i];
    return VKNN_STATUS_NONE;
  }
  int32_t scheme;
  if (!vknn_graph_const_i32_list(graph, op, 4, 1, &scheme)) return VKNN_STATUS_GENERAL_FAILURE;
  if (!vknn_op_check_padding_code(graph->log, op, scheme)) return VKNN_STATUS_INVALID_ARGUMENT;
  int64_t out_h = 0, out_w = 0;
  vknn_status s = requested_size(graph, op, g->nchw, &out_h, &out_w);
  if (s != VKNN_STATUS_NONE) return s;
  implicit_padding(out_w, g->stride_x, g->k_w, scheme, &pads[0], &pads[1]);
  implicit_padding(out_h, g->stride_y, g->k_h, scheme, &pads[2], &pads[3]);
  return VKNN_STATUS_NONE;
}

/* One output extent: stride * (in - 1) + kernel - pads; false unless in
 * (0, INT32_MAX]. */
static bool output_extent(uint32_t in, uint32_t stride, uint32_t kernel, int64_t before,
                          int64_t after, uint32_t *out) {
  int64_t extent = (int64_t)stride * ((int64_t)in - 1) + kernel - before - after;
  if (extent <= 0 || extent > INT32_MAX) return false;
  *out = (uint32_t)extent;
  return true;
}

/* Strides, activation and layout: constants whose rules need no shape, so
 * they are checked at prepare even where the shapes wait for the execution. */
static vknn_status read_scalars(vknn_graph *graph, const vknn_operation *op, const transpose_form *f,
                                int32_t strides[2], int32_t *activation, bool *nchw) {
  vknn_status s = vknn_op_require_constant_params(graph, op, f->stride, f->layout + 1 - f->stride);
  if (s != VKNN_STATUS_NONE) return s;
  if (!vknn_graph_const_i32_list(graph, op, f->stride, 2, strides) ||
      !vknn_graph_const_i32_list(graph, op, f->activation, 1, activation) ||
      !vknn_graph_const_bool(graph, op->inputs[f->layout], nchw))
    return VKNN_STATUS_GENERAL_FAILURE;
  if (!vknn_activation_valid(*activation) || strides[0] <= 0 || strides[1] <= 0) {
    VKNN_LOG_E(graph->log, "model", "TRANSPOSE_CONV_2D: invalid stride or activation");
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  return VKNN_STATUS_NONE;
}

/* What the known dimensions decide where a shape waits for an execution
 * (ops/known_dims.h): the input's channels against the filter's, the bias
 * against the filter's output channels, and the declared output's batch and
 * channels. Once every shape is known, read_geometry and check_channels
 * decide exactly (the output's extents too). */
static vknn_status check_known_dims(const vknn_graph *graph, const vknn_operation *op, bool nchw) {
  const vknn_tensor *filter = &graph->tensors[op->inputs[1]];
  vknn_image_shape in = vknn_known_image_shape(&graph->tensors[op->inputs[0]], nchw);
  vknn_image_shape out = {in.batches, 0, 0, vknn_known_dim(filter, 4, 0)};
  if (!vknn_dims_agree(in.channels, vknn_known_dim(filter, 4, 3)) ||
      !vknn_dims_agree(vknn_known_dim(&graph->tensors[op->inputs[2]], 1, 0), out.channels)) {
    VKNN_LOG_E(graph->log, "model", "TRANSPOSE_CONV_2D: input, filter and bias channels do not agree");
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  return vknn_op_check_known_image_output(graph, op, out, nchw);
}

/* The scalars, the shapes of input and filter, then pads and the output
 * extent. */
static vknn_status read_geometry(vknn_graph *graph, const vknn_operation *op,
                                 vknn_conv_geometry *g) {
  transpose_form f = form_of(op);
  int32_t strides[2], activation;
  bool nchw = false;
  vknn_status ss = read_scalars(graph, op, &f, strides, &activation, &nchw);
  if (ss != VKNN_STATUS_NONE) return ss;
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  const vknn_tensor *filter = &graph->tensors[op->inputs[1]];
  const vknn_tensor *bias = &graph->tensors[op->inputs[2]];
  if (!in->shape_known || !filter->shape_known || !bias->shape_known) {
    vknn_status ks = check_known_dims(graph, op, nchw);
    return ks != VKNN_STATUS_NONE ? ks : vknn_graph_defer(graph, op, "shapes unknown at prepare time");
  }
  /* Ranks again: a rank the model leaves unknown passed its checks. */
  vknn_status rs = vknn_op_check_known_rank(graph, op, 0, 4, 4);
  if (rs == VKNN_STATUS_NONE) rs = vknn_op_check_known_rank(graph, op, 1, 4, 4);
  if (rs != VKNN_STATUS_NONE) return rs;
  vknn_image_shape image = vknn_image_shape_of(in, nchw);
  *g = (vknn_conv_geometry){
      .batches = image.batches, .in_h = image.height, .in_w = image.width, .in_c = image.channels,
      .out_c = filter->dims[0], .k_h = filter->dims[1], .k_w = filter->dims[2],
      .stride_x = (uint32_t)strides[0], .stride_y = (uint32_t)strides[1],
      .dilation_x = 1, .dilation_y = 1, .cin_per_group = filter->dims[3],
      .cout_per_group = filter->dims[0], .nchw = nchw, .transposed = true,
      .activation = activation};
  int64_t pads[4];
  vknn_status s = read_pads(graph, op, &f, g, pads);
  if (s != VKNN_STATUS_NONE) return s;
  /* Only the leading pads must not be negative: a negative trailing pad
   * lengthens the output (NNAPI's reference allows it). */
  bool valid = pads[0] >= 0 && pads[2] >= 0 && pads[0] <= INT32_MAX && pads[2] <= INT32_MAX &&
               output_extent(g->in_w, g->stride_x, g->k_w, pads[0], pads[1], &g->out_w) &&
               output_extent(g->in_h, g->stride_y, g->k_h, pads[2], pads[3], &g->out_h);
  if (!valid) {
    VKNN_LOG_E(graph->log, "model", "TRANSPOSE_CONV_2D: padding or output extent out of range");
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  g->pad_left = (int32_t)pads[0];
  g->pad_top = (int32_t)pads[2];
  return VKNN_STATUS_NONE;
}

/* The filter is [out_c, k_h, k_w, in_c]; the bias [out_c] (its rank again:
 * one the model leaves unknown passed validation). */
static vknn_status check_channels(const vknn_graph *graph, const vknn_operation *op,
                                  const vknn_conv_geometry *g) {
  const vknn_tensor *bias = &graph->tensors[op->inputs[2]];
  if (g->cin_per_group == g->in_c && bias->shape_known && bias->rank == 1 && bias->dims[0] == g->out_c)
    return VKNN_STATUS_NONE;
  VKNN_LOG_E(graph->log, "model", "TRANSPOSE_CONV_2D: input, filter and bias channels do not agree");
  return VKNN_STATUS_INVALID_ARGUMENT;
}

static vknn_status infer_transpose_conv(vknn_graph *graph, const vknn_operation *op) {
  vknn_conv_geometry g;
  vknn_status s = read_geometry(graph, op, &g);
  if (s == VKNN_STATUS_NONE) s = check_channels(graph, op, &g);
  if (s != VKNN_STATUS_NONE) return s;
  vknn_image_shape out = {g.batches, g.out_h, g.out_w, g.out_c};
  return vknn_op_set_image_output(graph, op, out, g.nchw);
}

static vknn_status lower_transpose_conv(vknn_graph *graph, const vknn_operation *op,
                                        vknn_dispatch_list *out_list) {
  vknn_conv_geometry g;
  vknn_status s = read_geometry(graph, op, &g);
  return s == VKNN_STATUS_NONE ? vknn_lower_conv(graph, op, &g, out_list) : s;
}

const vknn_op_def vknn_op_transpose_conv_2d = {VKNN_OPERATION_TRANSPOSE_CONV_2D, true,
                                               validate_transpose_conv, infer_transpose_conv,
                                               lower_transpose_conv};
