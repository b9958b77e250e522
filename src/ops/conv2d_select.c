/* Float convolution kernels: which kernel runs a convolution (one selection
 * function, its rules measured: docs/perf.md) and the lowering to the tiled
 * ones (shaders/conv2d_gemm.comp, conv2d_depthwise.comp, gemv_splitk.comp). */
#include "conv2d.h"

#include <string.h>

#include "operand_type.h"

/* Invocations per workgroup of the tiled kernels: within the 128 every
 * Vulkan device supports (maxComputeWorkGroupInvocations and
 * maxComputeWorkGroupSize[0] are at least 128). */
#define GEMM_GROUP 64
#define DEPTHWISE_GROUP 64
#define GEMV_GROUP 64

static bool pointwise(const vknn_conv_geometry *g) {
  return g->k_h == 1 && g->k_w == 1 && g->stride_x == 1 && g->stride_y == 1 &&
         g->pad_left == 0 && g->pad_top == 0 && g->in_h == g->out_h && g->in_w == g->out_w;
}

vknn_conv_choice vknn_conv_select(const vknn_conv_geometry *g, int32_t type) {
  vknn_conv_choice c = {.kernel = VKNN_CONV_KERNEL_DIRECT};
  /* Quantized kernels stay bit-exact on the direct kernel; NCHW keeps it too
   * (the tiled kernels read NHWC rows). */
  if (!vknn_is_float_tensor(type) || g->nchw) return c;
  if (g->depthwise) {
    /* The depthwise kernel reuses loaded window columns across a row of
     * outputs, which needs dilation 1; a multiplier above 1 reads each
     * input channel for several outputs: both stay on the direct kernel. */
    if (g->cout_per_group != 1 || g->dilation_x != 1 || g->dilation_y != 1) return c;
    c.kernel = VKNN_CONV_KERNEL_DEPTHWISE;
    c.pix_block = 4;
    return c;
  }
  uint64_t pixels = (uint64_t)g->batches * g->out_h * g->out_w;
  /* A single row against a long reduction: split the reduction across a
   * workgroup, else one invocation would sum all of it alone. */
  if (pixels == 1 && pointwise(g) && g->in_c >= 64) {
    c.kernel = VKNN_CONV_KERNEL_GEMV;
    c.ch_block = 4;
    c.group = GEMV_GROUP;
    while (c.group > 8 && c.group * 4 * 2 > g->in_c) c.group /= 2;
    return c;
  }
  c.kernel = VKNN_CONV_KERNEL_GEMM;
  c.ch_block = g->out_c >= 8 ? 8 : 4;
  c.pix_block = 4;

  /* Few pixels (the 7x7 layers of MobileNet): a smaller group, so that a
   * tile is not mostly lanes past the last pixel. */
  c.group = GEMM_GROUP;
  while (c.group > 8 && (uint64_t)c.group / 2 * c.pix_block >= pixels) c.group /= 2;
  return c;
}

/* Push constants of conv2d_gemm.comp, std430 layout. */
typedef struct gemm_params {
  uint32_t in_h, in_w, out_h, out_w, pixels, out_c, channel_blocks;
  uint32_t stride_x, stride_y, dilation_x, dilation_y;
  int32_t pad_left, pad_top;
  float act_min, act_max;
} gemm_params;

static vknn_dispatch *add_float_dispatch(vknn_graph *graph, const vknn_operation *op,
                                         uint32_t out_index, vknn_dispatch_list *out_list) {
  vknn_dispatch *d = vknn_dispatch_list_add(out_list);
  if (d == NULL) return NULL;
  vknn_dispatch_bind(d, op->inputs[0], VKNN_ACCESS_READ);
  vknn_dispatch_bind(d, op->inputs[1], VKNN_ACCESS_READ);
  vknn_dispatch_bind(d, op->inputs[2], VKNN_ACCESS_READ);
  vknn_dispatch_bind(d, out_index, VKNN_ACCESS_WRITE);
  (void)graph;
  return d;
}

static uint32_t ceil_div(uint64_t a, uint64_t b) { return (uint32_t)((a + b - 1) / b); }

static vknn_status lower_gemm(vknn_graph *graph, const vknn_operation *op,
                              const vknn_conv_geometry *g, vknn_conv_choice c, bool f16,
                              vknn_dispatch_list *out_list) {
  uint32_t out_index = vknn_graph_op_output(graph, op, 0);
  uint32_t pixels = g->batches * g->out_h * g->out_w;
  gemm_params p = {g->in_h, g->in_w, g->out_h, g->out_w, pixels, g->out_c,
                   ceil_div(g->out_c, c.ch_block), g->stride_x, g->stride_y, g->dilation_x,
                   g->dilation_y, g->pad_left, g->pad_top, 0.f, 0.f};
  vknn_op_activation_bounds(graph, op, g->activation, &p.act_min, &p.act_max);
  vknn_dispatch *d = add_float_dispatch(graph, op, out_index, out_list);
  if (d == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  d->shader = f16 ? VKNN_SHADER_CONV2D_GEMM_F16 : VKNN_SHADER_CONV2D_GEMM_F32;
  d->local_size = c.group;
  uint32_t spec[] = {c.ch_block, c.pix_block, g->in_c, g->k_h, g->k_w, pointwise(g)};
  memcpy(d->spec, spec, sizeof(spec));
  d->spec_count = sizeof(spec) / sizeof(spec[0]);
  memcpy(d->push, &p, sizeof(p));
  d->push_size = sizeof(p);
  uint64_t tiles = ceil_div(pixels, (uint64_t)c.group * c.pix_block);
  d->invocations = tiles * p.channel_blocks * c.group;
  return VKNN_STATUS_NONE;
}

/* Push constants of conv2d_depthwise.comp, std430 layout. */
typedef struct depthwise_params {
  uint32_t in_h, in_w, channels, out_h, out_w;
  int32_t pad_left, pad_top;
  uint32_t x_blocks, items, channel_blocks;
  float act_min, act_max;
} depthwise_params;

static vknn_status lower_depthwise(vknn_graph *graph, const vknn_operation *op,
                                   const vknn_conv_geometry *g, vknn_conv_choice c, bool f16,
                                   vknn_dispatch_list *out_list) {
  uint32_t out_index = vknn_graph_op_output(graph, op, 0);
  uint32_t x_blocks = ceil_div(g->out_w, c.pix_block);
  depthwise_params p = {g->in_h, g->in_w, g->out_c, g->out_h, g->out_w, g->pad_left, g->pad_top,
                        x_blocks, g->batches * g->out_h * x_blocks, ceil_div(g->out_c, 4),
                        0.f, 0.f};
  vknn_op_activation_bounds(graph, op, g->activation, &p.act_min, &p.act_max);
  vknn_dispatch *d = add_float_dispatch(graph, op, out_index, out_list);
  if (d == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  d->shader = f16 ? VKNN_SHADER_CONV2D_DEPTHWISE_F16 : VKNN_SHADER_CONV2D_DEPTHWISE_F32;
  d->local_size = DEPTHWISE_GROUP;
  uint32_t spec[] = {g->k_h, g->k_w, g->stride_x, g->stride_y, c.pix_block, g->out_c % 4 == 0};
  memcpy(d->spec, spec, sizeof(spec));
  d->spec_count = sizeof(spec) / sizeof(spec[0]);
  memcpy(d->push, &p, sizeof(p));
  d->push_size = sizeof(p);
  d->invocations = (uint64_t)ceil_div(p.items, DEPTHWISE_GROUP) * p.channel_blocks * DEPTHWISE_GROUP;
  return VKNN_STATUS_NONE;
}

/* Push constants of gemv_splitk.comp, std430 layout. */
typedef struct gemv_params {
  uint32_t out_c;
  float act_min, act_max;
} gemv_params;

static vknn_status lower_gemv(vknn_graph *graph, const vknn_operation *op,
                              const vknn_conv_geometry *g, vknn_conv_choice c, bool f16,
                              vknn_dispatch_list *out_list) {
  uint32_t out_index = vknn_graph_op_output(graph, op, 0);
  gemv_params p = {g->out_c, 0.f, 0.f};
  vknn_op_activation_bounds(graph, op, g->activation, &p.act_min, &p.act_max);
  vknn_dispatch *d = add_float_dispatch(graph, op, out_index, out_list);
  if (d == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  d->shader = f16 ? VKNN_SHADER_GEMV_SPLITK_F16 : VKNN_SHADER_GEMV_SPLITK_F32;
  d->local_size = c.group;
  d->spec[0] = c.ch_block;
  d->spec[1] = g->in_c;
  d->spec_count = 2;
  memcpy(d->push, &p, sizeof(p));
  d->push_size = sizeof(p);
  d->invocations = (uint64_t)ceil_div(g->out_c, c.ch_block) * c.group;
  return VKNN_STATUS_NONE;
}

vknn_status vknn_lower_conv_tiled(vknn_graph *graph, const vknn_operation *op,
                                  const vknn_conv_geometry *g, vknn_conv_choice c,
                                  vknn_dispatch_list *out_list) {
  bool f16 = graph->tensors[op->inputs[0]].type == VKNN_OPERAND_TENSOR_FLOAT16;
  switch (c.kernel) {
    case VKNN_CONV_KERNEL_GEMM: return lower_gemm(graph, op, g, c, f16, out_list);
    case VKNN_CONV_KERNEL_DEPTHWISE: return lower_depthwise(graph, op, g, c, f16, out_list);
    case VKNN_CONV_KERNEL_GEMV: return lower_gemv(graph, op, g, c, f16, out_list);
    default: return VKNN_STATUS_GENERAL_FAILURE;
  }
}
