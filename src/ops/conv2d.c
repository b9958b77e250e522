/* CONV_2D, GROUPED_CONV_2D and DEPTHWISE_CONV_2D: signature validation,
 * shape inference and lowering: to the kernel vknn_conv_select picks
 * (conv2d_select.c), else to shaders/conv2d.comp. */
#include "ops/conv2d.h"

#include <stdlib.h>
#include <string.h>

#include "model/operand_type.h"
#include "ops/known_dims.h"
#include "util/fault_injection.h"
#include "util/quant_multiplier.h"

/* The three operations of the family: their parameters differ in one
 * scalar after the strides (the depth multiplier, the number of groups). */
typedef enum conv_kind { CONV_PLAIN, CONV_DEPTHWISE, CONV_GROUPED } conv_kind;

/* Operand positions of the scalar parameters, by form. */
typedef struct conv_form {
  bool explicit_padding;
  uint32_t first_param; /* pads (explicit: 4) or the padding scheme (implicit: 1) */
  uint32_t stride;      /* stride_w, then stride_h */
  int32_t multiplier;   /* depthwise: the multiplier, grouped: the groups, else -1 */
  uint32_t activation;
  uint32_t layout;      /* optional BOOL */
  uint32_t dilation;    /* optional stride_w, stride_h factors */
} conv_form;

/* Explicit padding: 10, 11 or 13 inputs (depthwise one more); 10 (11) is
 * ambiguous with the implicit form with layout and dilation, told apart by
 * the type of input 7 (8). GROUPED_CONV_2D: 12 inputs explicit, 9 implicit
 * (its layout is not optional, and it has no dilation). */
static conv_form form_of(const vknn_subgraph *sg, const vknn_operation *op, conv_kind kind) {
  uint32_t extra = kind == CONV_PLAIN ? 0 : 1;
  uint32_t n = op->input_count;
  bool explicit_padding = n == 11 + extra || n == 13 + extra ||
                          (n == 10 + extra && op->inputs[7 + extra] < sg->operand_count &&
                           sg->operands[op->inputs[7 + extra]].type == VKNN_OPERAND_INT32);
  if (kind == CONV_GROUPED) explicit_padding = n == 12;
  conv_form f = {.explicit_padding = explicit_padding, .first_param = 3, .multiplier = -1};
  uint32_t next = explicit_padding ? 7 : 4;
  f.stride = next;
  next += 2;
  if (kind != CONV_PLAIN) f.multiplier = (int32_t)next++;
  f.activation = next++;
  f.layout = next++;
  f.dilation = next;
  return f;
}

static bool check_scalars(const vknn_logger *log, const vknn_subgraph *sg,
                          const vknn_operation *op, const conv_form *f) {
  for (uint32_t i = 3; i < op->input_count; ++i) {
    int32_t want = i == f->layout ? VKNN_OPERAND_BOOL : VKNN_OPERAND_INT32;
    if (!vknn_op_check_type(log, op, "a scalar parameter", &sg->operands[op->inputs[i]], want))
      return false;
  }
  return true;
}

static bool filter_type_allowed(int32_t input, const vknn_operand *filter, int32_t channel_dim) {
  if (filter->type == input) return true;
  return vknn_is_quant8(input) && channel_dim >= 0 &&
         filter->type == VKNN_OPERAND_TENSOR_QUANT8_SYMM_PER_CHANNEL &&
         filter->extra_params.channel_quant.channel_dim == (uint32_t)channel_dim;
}

bool vknn_conv_check_types(const vknn_logger *log, const vknn_subgraph *sg,
                           const vknn_operation *op, int32_t per_channel_dim) {
  const vknn_operand *in = &sg->operands[op->inputs[0]];
  const vknn_operand *filter = &sg->operands[op->inputs[1]];
  const vknn_operand *bias = &sg->operands[op->inputs[2]];
  const vknn_operand *out = &sg->operands[op->outputs[0]];
  const char *name = vknn_operation_type_name(op->type);
  if (vknn_variant_of(in->type) < 0 || out->type != in->type) {
    VKNN_LOG_E(log, "model", "%s: input %s and output %s are not allowed", name,
               vknn_operand_type_name(in->type), vknn_operand_type_name(out->type));
    return false;
  }
  if (!filter_type_allowed(in->type, filter, per_channel_dim)) {
    VKNN_LOG_E(log, "model", "%s: filter of type %s does not go with input %s", name,
               vknn_operand_type_name(filter->type), vknn_operand_type_name(in->type));
    return false;
  }
  int32_t bias_type = vknn_is_quant8(in->type) ? VKNN_OPERAND_TENSOR_INT32 : in->type;
  return vknn_op_check_type(log, op, "bias", bias, bias_type) &&
         vknn_op_check_rank(log, op, "bias", bias, 1) && vknn_op_check_bias_scale(log, sg, op);
}

bool vknn_conv_check_operands(const vknn_logger *log, const vknn_subgraph *sg,
                              const vknn_operation *op, int32_t per_channel_dim) {
  return vknn_conv_check_types(log, sg, op, per_channel_dim) &&
         vknn_op_check_rank(log, op, "input", &sg->operands[op->inputs[0]], 4) &&
         vknn_op_check_rank(log, op, "filter", &sg->operands[op->inputs[1]], 4) &&
         vknn_op_check_rank(log, op, "output", &sg->operands[op->outputs[0]], 4);
}

static vknn_status validate_conv_family(const vknn_logger *log, const vknn_subgraph *sg,
                                        const vknn_operation *op, bool depthwise) {
  conv_kind kind = depthwise ? CONV_DEPTHWISE : CONV_PLAIN;
  uint32_t extra = depthwise ? 1 : 0;
  if (!vknn_op_check_counts(log, sg, op, 7 + extra, 13 + extra, 1)) return VKNN_STATUS_INVALID_ARGUMENT;
  /* Dilation comes as a pair: one factor alone leaves 9 or 12 inputs. */
  if (op->input_count == 9 + extra || op->input_count == 12 + extra) {
    VKNN_LOG_E(log, "model", "%s: %u inputs (a dilation factor without its pair)",
               vknn_operation_type_name(op->type), op->input_count);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  conv_form f = form_of(sg, op, kind);
  const vknn_operand *filter = &sg->operands[op->inputs[1]];
  bool ok = vknn_conv_check_operands(log, sg, op, depthwise ? 3 : 0) && check_scalars(log, sg, op, &f);
  /* 0 is unknown: the execution's shape is checked at inference. */
  if (ok && depthwise && filter->dimension_count == 4 && filter->dimensions[0] > 1) {
    VKNN_LOG_E(log, "model", "DEPTHWISE_CONV_2D: filter dimension 0 must be 1, not %u",
               filter->dimensions[0]);
    ok = false;
  }
  return ok ? VKNN_STATUS_NONE : VKNN_STATUS_INVALID_ARGUMENT;
}

static vknn_status validate_conv(const vknn_logger *log, const vknn_model *model,
                                 const vknn_subgraph *sg, const vknn_operation *op) {
  (void)model;
  return validate_conv_family(log, sg, op, false);
}

static vknn_status validate_depthwise(const vknn_logger *log, const vknn_model *model,
                                      const vknn_subgraph *sg, const vknn_operation *op) {
  (void)model;
  return validate_conv_family(log, sg, op, true);
}

/* 12 inputs with explicit padding, 9 with implicit padding. The API 29
 * documentation's "output_scale > input_scale * filter_scale" for quant8 is
 * not checked: NNAPI's reference does not check it and its conformance
 * cases break it (grouped_conv2d_quant8_signed: output scale 0.1, input
 * times filter scale 0.125). */
static vknn_status validate_grouped(const vknn_logger *log, const vknn_model *model,
                                    const vknn_subgraph *sg, const vknn_operation *op) {
  (void)model;
  if (!vknn_op_check_counts(log, sg, op, 9, 12, 1)) return VKNN_STATUS_INVALID_ARGUMENT;
  if (op->input_count != 9 && op->input_count != 12) {
    VKNN_LOG_E(log, "model", "GROUPED_CONV_2D: %u inputs (9 or 12)", op->input_count);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  conv_form f = form_of(sg, op, CONV_GROUPED);
  bool ok = vknn_conv_check_operands(log, sg, op, 0) && check_scalars(log, sg, op, &f);
  return ok ? VKNN_STATUS_NONE : VKNN_STATUS_INVALID_ARGUMENT;
}

/* The scalar parameters, read and checked before the shapes: their rules
 * need no shape, so a model whose shapes wait for the execution still has
 * them checked at prepare. */
typedef struct conv_scalars {
  int32_t pads[4], scheme, strides[2], dilation[2], multiplier, activation;
  bool nchw;
} conv_scalars;

static vknn_status read_scalars(vknn_graph *graph, const vknn_operation *op, conv_kind kind,
                               const conv_form *f, conv_scalars *p) {
  const char *name = vknn_operation_type_name(op->type);
  *p = (conv_scalars){.dilation = {1, 1}, .multiplier = 1};
  vknn_status s = vknn_op_require_constant_params(graph, op, 3, op->input_count - 3);
  if (s != VKNN_STATUS_NONE) return s;
  bool ok = f->explicit_padding ? vknn_graph_const_i32_list(graph, op, 3, 4, p->pads)
                                : vknn_graph_const_i32_list(graph, op, 3, 1, &p->scheme);
  ok = ok && vknn_graph_const_i32_list(graph, op, f->stride, 2, p->strides) &&
       vknn_graph_const_i32_list(graph, op, f->activation, 1, &p->activation);
  if (ok && f->multiplier >= 0)
    ok = vknn_graph_const_i32_list(graph, op, (uint32_t)f->multiplier, 1, &p->multiplier);
  if (ok && op->input_count > f->layout) ok = vknn_graph_const_bool(graph, op->inputs[f->layout], &p->nchw);
  if (ok && op->input_count > f->dilation)
    ok = vknn_graph_const_i32_list(graph, op, f->dilation, 2, p->dilation);
  if (!ok) return VKNN_STATUS_GENERAL_FAILURE;
  if (!f->explicit_padding && !vknn_op_check_padding_code(graph->log, op, p->scheme))
    return VKNN_STATUS_INVALID_ARGUMENT;
  if (kind == CONV_GROUPED && p->multiplier <= 0) {
    VKNN_LOG_E(graph->log, "model", "GROUPED_CONV_2D: %d groups", p->multiplier);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  bool valid = vknn_activation_valid(p->activation) && p->strides[0] > 0 && p->strides[1] > 0 &&
               p->dilation[0] > 0 && p->dilation[1] > 0 && p->multiplier > 0 && p->pads[0] >= 0 &&
               p->pads[1] >= 0 && p->pads[2] >= 0 && p->pads[3] >= 0;
  if (!valid) {
    VKNN_LOG_E(graph->log, "model", "%s: invalid stride, dilation, padding or activation", name);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  return VKNN_STATUS_NONE;
}

/* One spatial extent of the output (axis 0: width, 1: height) and its
 * leading padding (vknn_window_extent: 0 while the input's or the window's
 * extent is not known yet); false where the window cannot fit the input. */
static bool spatial_extent(const conv_form *f, const conv_scalars *p, uint32_t axis, uint32_t in, uint32_t kernel,
                           uint32_t *out, uint32_t *pad_before) {
  return vknn_window_extent(in, kernel, (uint32_t)p->strides[axis], (uint32_t)p->dilation[axis],
                            f->explicit_padding ? -1 : p->scheme, (uint32_t)p->pads[2 * axis],
                            (uint32_t)p->pads[2 * axis + 1], out, pad_before);
}

/* Input and output channels as far as the filter and the input give them
 * (0: not known yet): each kind's relation between them and the bias. */
static bool known_channels_agree(const vknn_graph *graph, const vknn_operation *op, conv_kind kind,
                                 const conv_scalars *p, uint32_t in_c, uint32_t out_c) {
  const vknn_tensor *filter = &graph->tensors[op->inputs[1]];
  uint32_t f_in = vknn_known_dim(filter, 4, 3), groups = (uint32_t)p->multiplier;
  bool ok = vknn_dims_agree(vknn_known_dim(&graph->tensors[op->inputs[2]], 1, 0), out_c);
  if (kind == CONV_PLAIN) return ok && vknn_dims_agree(in_c, f_in);
  if (kind == CONV_GROUPED)
    return ok && (in_c == 0 || f_in == 0 || in_c == (uint64_t)groups * f_in) && out_c % groups == 0;
  return ok && vknn_dims_agree(vknn_known_dim(filter, 4, 0), 1) &&
         (in_c == 0 || out_c == 0 || out_c == (uint64_t)in_c * groups);
}

/* What the known dimensions already decide, where some shape waits for an
 * execution (ops/known_dims.h): the channels of input, filter and bias
 * agree, the window fits the input's known extents, and the declared
 * output agrees with the known batch, extents and channels. Once every
 * shape is known, read_geometry and check_channels decide exactly. */
static vknn_status check_known_dims(const vknn_graph *graph, const vknn_operation *op, conv_kind kind,
                                    const conv_form *f, const conv_scalars *p) {
  const char *name = vknn_operation_type_name(op->type);
  const vknn_tensor *filter = &graph->tensors[op->inputs[1]];
  vknn_image_shape in = vknn_known_image_shape(&graph->tensors[op->inputs[0]], p->nchw);
  vknn_image_shape out = {in.batches, 0, 0, vknn_known_dim(filter, 4, kind == CONV_DEPTHWISE ? 3 : 0)};
  if (!known_channels_agree(graph, op, kind, p, in.channels, out.channels)) {
    VKNN_LOG_E(graph->log, "model", "%s: input, filter and bias channels do not agree", name);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  uint32_t pad;
  if (!spatial_extent(f, p, 0, in.width, vknn_known_dim(filter, 4, 2), &out.width, &pad) ||
      !spatial_extent(f, p, 1, in.height, vknn_known_dim(filter, 4, 1), &out.height, &pad)) {
    VKNN_LOG_E(graph->log, "model", "%s: the window does not fit the input", name);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  return vknn_op_check_known_image_output(graph, op, out, p->nchw);
}

/* Reads the parameters and derives the geometry from them and the shapes. */
static vknn_status read_geometry(vknn_graph *graph, const vknn_operation *op, conv_kind kind,
                                 vknn_conv_geometry *g) {
  const char *name = vknn_operation_type_name(op->type);
  bool depthwise = kind == CONV_DEPTHWISE;
  conv_form f = form_of(graph->sg, op, kind);
  conv_scalars p;
  vknn_status ps = read_scalars(graph, op, kind, &f, &p);
  if (ps != VKNN_STATUS_NONE) return ps;
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  const vknn_tensor *filter = &graph->tensors[op->inputs[1]];
  const vknn_tensor *bias = &graph->tensors[op->inputs[2]];
  if (!in->shape_known || !filter->shape_known || !bias->shape_known) {
    vknn_status ks = check_known_dims(graph, op, kind, &f, &p);
    return ks != VKNN_STATUS_NONE ? ks : vknn_graph_defer(graph, op, "shapes unknown at prepare time");
  }
  /* Ranks again: a rank the model leaves unknown passed its checks. */
  vknn_status rs = vknn_op_check_known_rank(graph, op, 0, 4, 4);
  if (rs == VKNN_STATUS_NONE) rs = vknn_op_check_known_rank(graph, op, 1, 4, 4);
  if (rs != VKNN_STATUS_NONE) return rs;
  if (depthwise && filter->dims[0] != 1) {
    VKNN_LOG_E(graph->log, "model", "%s: filter dimension 0 must be 1, not %u", name, filter->dims[0]);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  *g = (vknn_conv_geometry){.nchw = p.nchw, .depthwise = depthwise, .activation = p.activation};
  vknn_image_shape image = vknn_image_shape_of(in, p.nchw);
  g->batches = image.batches;
  g->in_c = image.channels;
  g->in_h = image.height;
  g->in_w = image.width;
  g->k_h = filter->dims[1];
  g->k_w = filter->dims[2];
  g->out_c = depthwise ? filter->dims[3] : filter->dims[0];
  g->stride_x = (uint32_t)p.strides[0];
  g->stride_y = (uint32_t)p.strides[1];
  g->dilation_x = (uint32_t)p.dilation[0];
  g->dilation_y = (uint32_t)p.dilation[1];
  g->cin_per_group = depthwise ? 1 : filter->dims[3];
  g->cout_per_group = depthwise ? (uint32_t)p.multiplier : g->out_c;
  if (kind == CONV_GROUPED) {
    /* p.multiplier holds the groups: in_c = groups * depth_group, and the
     * groups divide out_c. */
    uint32_t groups = (uint32_t)p.multiplier;
    if ((uint64_t)groups * g->cin_per_group != g->in_c || g->out_c % groups != 0) {
      VKNN_LOG_E(graph->log, "model",
                 "GROUPED_CONV_2D: %u groups of %u input channels for %u input and %u output channels",
                 groups, g->cin_per_group, g->in_c, g->out_c);
      return VKNN_STATUS_INVALID_ARGUMENT;
    }
    g->cout_per_group = g->out_c / groups;
  }
  uint32_t pad_left = 0, pad_top = 0;
  bool valid = spatial_extent(&f, &p, 0, g->in_w, g->k_w, &g->out_w, &pad_left) &&
               spatial_extent(&f, &p, 1, g->in_h, g->k_h, &g->out_h, &pad_top);
  g->pad_left = (int32_t)pad_left;
  g->pad_top = (int32_t)pad_top;
  if (!valid) {
    VKNN_LOG_E(graph->log, "model", "%s: the window does not fit the input", name);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  return VKNN_STATUS_NONE;
}

static vknn_status check_channels(const vknn_graph *graph, const vknn_operation *op,
                                  const vknn_conv_geometry *g) {
  const vknn_tensor *bias = &graph->tensors[op->inputs[2]];
  /* Grouped: in_c = groups * cin_per_group and out_c = groups * cout_per_group
   * (the groups' output channels divide out_c evenly). */
  bool ok = g->depthwise ? g->out_c == g->in_c * g->cout_per_group
                         : g->cin_per_group > 0 && g->in_c % g->cin_per_group == 0 &&
                               g->in_c / g->cin_per_group * g->cout_per_group == g->out_c;
  ok = ok && bias->shape_known && bias->rank == 1 && bias->dims[0] == g->out_c;
  if (ok) return VKNN_STATUS_NONE;
  VKNN_LOG_E(graph->log, "model", "%s: input, filter and bias channels do not agree",
             vknn_operation_type_name(op->type));
  return VKNN_STATUS_INVALID_ARGUMENT;
}

static vknn_status infer_conv_family(vknn_graph *graph, const vknn_operation *op, conv_kind kind) {
  vknn_conv_geometry g;
  vknn_status s = read_geometry(graph, op, kind, &g);
  if (s == VKNN_STATUS_NONE) s = check_channels(graph, op, &g);
  if (s != VKNN_STATUS_NONE) return s;
  vknn_image_shape out = {g.batches, g.out_h, g.out_w, g.out_c};
  return vknn_op_set_image_output(graph, op, out, g.nchw);
}

static vknn_status infer_conv(vknn_graph *graph, const vknn_operation *op) {
  return infer_conv_family(graph, op, CONV_PLAIN);
}

static vknn_status infer_depthwise(vknn_graph *graph, const vknn_operation *op) {
  return infer_conv_family(graph, op, CONV_DEPTHWISE);
}

static vknn_status infer_grouped(vknn_graph *graph, const vknn_operation *op) {
  return infer_conv_family(graph, op, CONV_GROUPED);
}

bool vknn_conv_absorbs_pad(const vknn_graph *graph, const vknn_operation *op, bool *out_nchw) {
  conv_kind kind;
  switch (op->type) {
    case VKNN_OPERATION_CONV_2D: kind = CONV_PLAIN; break;
    case VKNN_OPERATION_DEPTHWISE_CONV_2D: kind = CONV_DEPTHWISE; break;
    case VKNN_OPERATION_GROUPED_CONV_2D: kind = CONV_GROUPED; break;
    default: return false;
  }
  conv_form f = form_of(graph->sg, op, kind);
  *out_nchw = false;
  return op->input_count <= f.layout || vknn_graph_const_bool(graph, op->inputs[f.layout], out_nchw);
}

/* A PAD fused into the convolution (vknn_fuse_pads): the geometry of the
 * PAD's input, its padding added to the convolution's own. */
static void apply_fused_pad(const vknn_graph *graph, const vknn_operation *op, vknn_conv_geometry *g) {
  const vknn_op_fusion *f = &graph->fusion[vknn_graph_op_index(graph, op)];
  if (f->input_override == UINT32_MAX) return;
  g->in_w -= f->pad[0] + f->pad[1];
  g->in_h -= f->pad[2] + f->pad[3];
  g->pad_left += (int32_t)f->pad[0];
  g->pad_top += (int32_t)f->pad[2];
}

bool vknn_conv_takes_residual(vknn_graph *graph, const vknn_operation *op) {
  vknn_conv_geometry g;
  if (op->type != VKNN_OPERATION_CONV_2D || read_geometry(graph, op, CONV_PLAIN, &g) != VKNN_STATUS_NONE)
    return false;
  apply_fused_pad(graph, op, &g);
  int32_t type = graph->tensors[vknn_graph_op_input(graph, op, 0)].type;
  return vknn_is_float_tensor(type) && vknn_conv_select(&graph->kernels, &g, type).kernel == VKNN_CONV_KERNEL_GEMM;
}

static vknn_status lower_conv_family(vknn_graph *graph, const vknn_operation *op, conv_kind kind,
                                     vknn_dispatch_list *out_list) {
  vknn_conv_geometry g;
  vknn_status s = read_geometry(graph, op, kind, &g);
  if (s != VKNN_STATUS_NONE) return s;
  apply_fused_pad(graph, op, &g);
  g.packable = kind != CONV_GROUPED && !g.nchw;
  return vknn_lower_conv(graph, op, &g, out_list);
}

static vknn_status lower_conv(vknn_graph *graph, const vknn_operation *op,
                              vknn_dispatch_list *out_list) {
  return lower_conv_family(graph, op, CONV_PLAIN, out_list);
}

static vknn_status lower_depthwise(vknn_graph *graph, const vknn_operation *op,
                                   vknn_dispatch_list *out_list) {
  return lower_conv_family(graph, op, CONV_DEPTHWISE, out_list);
}

static vknn_status lower_grouped(vknn_graph *graph, const vknn_operation *op,
                                 vknn_dispatch_list *out_list) {
  return lower_conv_family(graph, op, CONV_GROUPED, out_list);
}

/* The scales combine as in the NNAPI reference: the product in single
 * precision, the quotient in double. */
vknn_status vknn_conv_add_multipliers(vknn_graph *graph, const vknn_conv_tensors *t, uint32_t out_c,
                                      const char *what, uint32_t *out_constant) {
  const vknn_tensor *filter = &graph->tensors[t->filter];
  const float *channel_scales = NULL;
  if (filter->type == VKNN_OPERAND_TENSOR_QUANT8_SYMM_PER_CHANNEL) {
    /* Per-channel scales live in the model operand the filter tensor is. */
    if (t->filter >= graph->sg->operand_count) return VKNN_STATUS_GENERAL_FAILURE;
    channel_scales = graph->sg->operands[t->filter].extra_params.channel_quant.scales;
  }
  float in_scale = graph->tensors[t->input].scale;
  float out_scale = graph->tensors[t->output].scale;
  vknn_quant_multiplier *m = vknn_malloc(out_c * sizeof(*m));
  if (m == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  for (uint32_t c = 0; c < out_c; ++c) {
    float filter_scale = channel_scales != NULL ? channel_scales[c] : filter->scale;
    float product = in_scale * filter_scale;
    if (!vknn_quantize_multiplier((double)product / out_scale, &m[c])) {
      VKNN_LOG_E(graph->log, "compilation", "%s: channel %u: the scales give no usable multiplier",
                 what, c);
      free(m);
      return VKNN_STATUS_GENERAL_FAILURE;
    }
  }
  uint32_t count = 2 * out_c;
  *out_constant = vknn_graph_add_constant(graph, VKNN_OPERAND_TENSOR_INT32, &count, 1, m);
  return *out_constant == UINT32_MAX ? VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT : VKNN_STATUS_NONE;
}

/* Push constants of conv2d.comp, std430 layout. */
typedef struct conv_params {
  uint32_t in_h, in_w, in_c;
  uint32_t batches, out_h, out_w, out_c;
  uint32_t k_w, k_h, stride_x, stride_y, dilation_x, dilation_y;
  int32_t pad_left, pad_top;
  uint32_t cin_per_group, cout_per_group;
  float act_min, act_max;
  int32_t in_zero_point, filter_zero_point, out_zero_point;
  uint32_t out_row, out_stride, out_offset;
} conv_params;
VKNN_PUSH_LAYOUT(conv2d, conv_params);

static vknn_shader_id conv_shader(int32_t input_type, int32_t filter_type) {
  switch (input_type) {
    case VKNN_OPERAND_TENSOR_FLOAT16: return VKNN_SHADER_CONV2D_F16;
    case VKNN_OPERAND_TENSOR_QUANT8_ASYMM:
      return filter_type == VKNN_OPERAND_TENSOR_QUANT8_SYMM_PER_CHANNEL
                 ? VKNN_SHADER_CONV2D_Q8_FILTER_I8
                 : VKNN_SHADER_CONV2D_Q8;
    case VKNN_OPERAND_TENSOR_QUANT8_ASYMM_SIGNED: return VKNN_SHADER_CONV2D_Q8S;
    default: return VKNN_SHADER_CONV2D_F32;
  }
}

/* Loop iterations of one invocation of conv2d.comp: every filter row, on
 * each its columns, on each its group's input channels (taps in the
 * padding count all the same). */
static uint64_t direct_iterations(const vknn_conv_geometry *g) {
  uint64_t rows = g->k_h, taps = (uint64_t)g->k_h * g->k_w;
  return rows + taps + taps * g->cin_per_group;
}

vknn_status vknn_lower_conv_tensors(vknn_graph *graph, const vknn_conv_tensors *t,
                                    const vknn_conv_geometry *g, vknn_dispatch_list *out_list) {
  const vknn_tensor *in = &graph->tensors[t->input];
  const vknn_tensor *filter = &graph->tensors[t->filter];
  vknn_conv_choice choice = vknn_conv_select(&graph->kernels, g, in->type);
  if (choice.kernel != VKNN_CONV_KERNEL_DIRECT)
    return vknn_lower_conv_tiled(graph, t, g, choice, out_list);
  if (!vknn_op_within_loop_budget(graph, "direct convolution", direct_iterations(g),
                                  "the filter's rows, columns and input channels"))
    return VKNN_STATUS_GENERAL_FAILURE;
  bool quant = vknn_is_quant8(in->type);
  conv_params p = {g->in_h, g->in_w, g->in_c, g->batches, g->out_h, g->out_w, g->out_c,
                   g->k_w, g->k_h, g->stride_x, g->stride_y, g->dilation_x, g->dilation_y,
                   g->pad_left, g->pad_top, g->cin_per_group, g->cout_per_group, t->act_min,
                   t->act_max, in->zero_point, filter->zero_point,
                   graph->tensors[t->output].zero_point, g->out_slice.row, g->out_slice.stride,
                   g->out_slice.offset};
  vknn_dispatch *d = vknn_dispatch_list_add(out_list);
  if (d == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  d->shader = conv_shader(in->type, filter->type);
  /* Blocks of 4 output channels share input loads (not for depthwise, where
   * every output channel reads its own input channel); a block lies inside
   * one group. */
  uint32_t block = !g->depthwise && g->cout_per_group % 4 == 0 ? 4 : 1;
  d->spec[VKNN_SPEC_CONV2D_NCHW] = g->nchw;
  d->spec[VKNN_SPEC_CONV2D_DEPTHWISE] = g->depthwise;
  d->spec[VKNN_SPEC_CONV2D_TRANSPOSED] = g->transposed;
  d->spec[VKNN_SPEC_CONV2D_OC_BLOCK] = block;
  d->spec[VKNN_SPEC_CONV2D_SLICED] = g->out_slice.row != 0;
  d->spec_count = VKNN_SPEC_COUNT_CONV2D;
  vknn_dispatch_bind(d, t->input, VKNN_ACCESS_READ);
  vknn_dispatch_bind(d, t->filter, VKNN_ACCESS_READ);
  vknn_dispatch_bind(d, t->bias, VKNN_ACCESS_READ);
  if (quant) vknn_dispatch_bind(d, t->multipliers, VKNN_ACCESS_READ);
  vknn_dispatch_bind(d, t->output, VKNN_ACCESS_WRITE);
  memcpy(d->push, &p, sizeof(p));
  d->push_size = sizeof(p);
  d->invocations = (uint64_t)g->batches * g->out_h * g->out_w * (g->out_c / block);
  return VKNN_STATUS_NONE;
}

bool vknn_conv_writes_slices(int32_t operation_type) {
  switch (operation_type) {
    case VKNN_OPERATION_CONV_2D:
    case VKNN_OPERATION_DEPTHWISE_CONV_2D:
    case VKNN_OPERATION_GROUPED_CONV_2D:
    case VKNN_OPERATION_TRANSPOSE_CONV_2D:
    case VKNN_OPERATION_FULLY_CONNECTED: return true;
    default: return false;
  }
}

vknn_status vknn_lower_conv(vknn_graph *graph, const vknn_operation *op,
                            const vknn_conv_geometry *geometry, vknn_dispatch_list *out_list) {
  /* A CONCATENATION's slice, when the fusion pass chose this operation to
   * write it in place. */
  vknn_conv_geometry sliced = *geometry;
  sliced.out_slice = graph->fusion[vknn_graph_op_index(graph, op)].out_slice;
  const vknn_conv_geometry *g = &sliced;
  vknn_conv_tensors t = {.input = vknn_graph_op_input(graph, op, 0), .filter = op->inputs[1],
                         .bias = op->inputs[2], .output = vknn_graph_op_output(graph, op, 0),
                         .multipliers = UINT32_MAX};
  vknn_op_activation_bounds(graph, op, g->activation, &t.act_min, &t.act_max);
  const vknn_op_fusion *f = &graph->fusion[vknn_graph_op_index(graph, op)];
  t.has_residual = f->residual != UINT32_MAX;
  t.residual = f->residual;
  t.residual_min = f->residual_min;
  t.residual_max = f->residual_max;
  if (vknn_is_quant8(graph->tensors[t.input].type)) {
    vknn_status s = vknn_conv_add_multipliers(graph, &t, g->out_c,
                                              vknn_operation_type_name(op->type), &t.multipliers);
    if (s != VKNN_STATUS_NONE) return s;
  }
  return vknn_lower_conv_tensors(graph, &t, g, out_list);
}

vknn_status vknn_lower_matmul(vknn_graph *graph, const vknn_matmul *m, vknn_dispatch_list *out_list) {
  /* A 1x1 convolution over rows images of 1x1 pixels with k channels. */
  vknn_conv_geometry g = {.batches = m->rows, .in_h = 1, .in_w = 1, .in_c = m->k,
                          .out_h = 1, .out_w = 1, .out_c = m->n, .k_w = 1, .k_h = 1,
                          .stride_x = 1, .stride_y = 1, .dilation_x = 1, .dilation_y = 1,
                          .cin_per_group = m->k, .cout_per_group = m->n,
                          .activation = VKNN_FUSED_NONE};
  return vknn_lower_conv_tensors(graph, &m->t, &g, out_list);
}

const vknn_op_def vknn_op_conv_2d = {VKNN_OPERATION_CONV_2D, true, validate_conv, infer_conv,
                                     lower_conv};
const vknn_op_def vknn_op_depthwise_conv_2d = {VKNN_OPERATION_DEPTHWISE_CONV_2D, true,
                                               validate_depthwise, infer_depthwise,
                                               lower_depthwise};
const vknn_op_def vknn_op_grouped_conv_2d = {VKNN_OPERATION_GROUPED_CONV_2D, true,
                                             validate_grouped, infer_grouped, lower_grouped};
