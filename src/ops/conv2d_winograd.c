/* Winograd convolution F(m x m, 3 x 3), m = 2 or 4, for float CONV_2D of a
 * 3x3 window at stride 1 (NHWC, no groups, no dilation) with a constant
 * filter. The output is cut into m x m tiles, each reading an n x n window
 * of the input (n = m + 2); per tile and channel, with the transform
 * matrices B, G and A of F(m, 3):
 *   y = A^T [(G g G^T) (.) (B^T d B)] A    ((.): elementwise)
 * which needs n^2 multiplications for m^2 outputs instead of 9 m^2 (2.25x
 * fewer for m = 2, 4x for m = 4). Three dispatches:
 *   1. input transform (conv2d_winograd.comp): V[tile][t][ic] = (B^T d B)[t]
 *   2. T = n^2 independent matrix products M[tile][t][oc] = sum_ic
 *      V[tile][t][ic] U[t][oc][ic] on conv2d_gemm.comp, as one grouped
 *      pointwise convolution (tiles as pixels, T groups of channels);
 *   3. output transform (conv2d_winograd.comp): A^T M A, bias, activation.
 * U = G g G^T is computed here, at prepare, from the constant filter:
 * parameter preparation like the requantization multipliers or LSTM's
 * weight rearrangement, since the plan has no dispatches that run once at
 * prepare (every dispatch runs at every execution, and a transform of the
 * filter there would cost more than the convolution saves). V and M are
 * float32 temporaries (planned in the arena) for float16 tensors too. */
#include "ops/conv2d.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/operand_type.h"
#include "util/fault_injection.h"

#define TRANSFORM_GROUP 64

static uint32_t ceil_div(uint64_t a, uint64_t b) { return (uint32_t)((a + b - 1) / b); }

static uint32_t round_up(uint32_t a, uint32_t b) { return ceil_div(a, b) * b; }

static uint32_t tile_of(vknn_conv_kernel kernel) {
  return kernel == VKNN_CONV_KERNEL_WINOGRAD_F4X3 ? 4 : 2;
}

/* The layout of a Winograd convolution's intermediate tensors. */
typedef struct winograd_shape {
  uint32_t m, n, positions;        /* output tile edge, input tile edge, n^2 */
  uint32_t tiles_x, tiles_y, tiles;
  uint32_t in_c4, out_c_padded;    /* V's vec4s per position, M's channels per position */
} winograd_shape;

/* Output channels per block of the matrix product (8: its widest block;
 * M's channels are padded to it, U's padding rows are zeros). */
#define PRODUCT_CH_BLOCK 8u

static winograd_shape shape_of(const vknn_conv_geometry *g, uint32_t m) {
  winograd_shape s = {.m = m, .n = m + 2, .positions = (m + 2) * (m + 2)};
  s.tiles_x = ceil_div(g->out_w, m);
  s.tiles_y = ceil_div(g->out_h, m);
  s.tiles = g->batches * s.tiles_x * s.tiles_y;
  s.in_c4 = ceil_div(g->in_c, 4);
  s.out_c_padded = round_up(g->out_c, PRODUCT_CH_BLOCK);
  return s;
}

/* A 3x3 stride-1 float convolution the transforms cover. */
static bool eligible(const vknn_conv_geometry *g, int32_t type) {
  if (!vknn_is_float_tensor(type) || g->nchw || g->depthwise || g->transposed) return false;
  if (g->cin_per_group != g->in_c || g->cout_per_group != g->out_c) return false;
  return g->k_h == 3 && g->k_w == 3 && g->stride_x == 1 && g->stride_y == 1 &&
         g->dilation_x == 1 && g->dilation_y == 1;
}

/* The most bytes an intermediate tensor may take: 2^27, the storage-buffer
 * range every Vulkan device binds (maxStorageBufferRange), so that Winograd
 * never makes a convolution the implicit product runs unsupported; it also
 * keeps every element index well inside 32 bits. */
#define MAX_INTERMEDIATE_BYTES (1ull << 27)

static bool intermediates_fit(const vknn_conv_geometry *g, vknn_conv_kernel kernel) {
  winograd_shape s = shape_of(g, tile_of(kernel));
  uint64_t per_position = (uint64_t)s.positions * sizeof(float);
  uint64_t u = per_position * s.out_c_padded * s.in_c4 * 4;
  uint64_t v = per_position * s.tiles * s.in_c4 * 4;
  uint64_t m = per_position * s.tiles * s.out_c_padded;
  return u <= MAX_INTERMEDIATE_BYTES && v <= MAX_INTERMEDIATE_BYTES && m <= MAX_INTERMEDIATE_BYTES;
}

/* The tile: 4x4 where that gives the matrix products at least 16 tiles
 * (two per lane of a group of 8, lavapipe's SIMD width), else 2x2. F(4,3)
 * was faster than F(2,3) at every shape measured with 16 tiles or more; at
 * 7x7 (4 tiles of 4x4, 16 of 2x2), F(2,3) ran 15 ms, F(4,3) 67 ms (the
 * fastest of four runs each; docs/perf.md, "Winograd convolution"). */
static vknn_conv_kernel tile_kernel(const vknn_conv_geometry *g) {
  uint64_t tiles = (uint64_t)g->batches * ceil_div(g->out_h, 4) * ceil_div(g->out_w, 4);
  return tiles >= 16 ? VKNN_CONV_KERNEL_WINOGRAD_F4X3 : VKNN_CONV_KERNEL_WINOGRAD_F2X3;
}

/* Where Winograd wins on lavapipe (fastest of four alternating runs each,
 * implicit product against the Winograd tile chosen above, load average
 * 7-12; docs/perf.md, "Winograd convolution"): 64 input and output channels
 * and more (14x14x512:512 168 -> 61 ms, 14x14x256:256 28 -> 6.9,
 * 28x28x128:128 28 -> 8.2, 56x56x64:64 17 -> 12.5, 14x14x64:64 1.5 -> 0.84,
 * 7x7x512:512 42 -> 15); with 32 channels or fewer the implicit product
 * (28x28x32:32 1.1 against 1.9, 56x56x32:32 4.0 against 4.5, 14x14x16:16
 * 0.20 against 0.29): too little reduction per transformed value to pay for
 * three dispatches and the transforms' memory traffic. */
static bool measured_faster(const vknn_conv_geometry *g) { return g->in_c >= 64 && g->out_c >= 64; }

bool vknn_winograd_select(const vknn_kernel_target *target, const vknn_conv_geometry *g,
                          int32_t type, vknn_conv_choice *out) {
  vknn_winograd mode = target != NULL ? target->winograd : VKNN_WINOGRAD_OFF;
  if (mode == VKNN_WINOGRAD_OFF || !eligible(g, type)) return false;
  if (mode == VKNN_WINOGRAD_AUTO && !measured_faster(g)) return false;
  vknn_conv_kernel kernel = tile_kernel(g);
  if (mode == VKNN_WINOGRAD_F2X3) kernel = VKNN_CONV_KERNEL_WINOGRAD_F2X3;
  if (mode == VKNN_WINOGRAD_F4X3) kernel = VKNN_CONV_KERNEL_WINOGRAD_F4X3;
  /* F(2,3)'s U is 16/36 of F(4,3)'s: the smaller tile where the larger's
   * does not fit (unless a tile is forced). */
  if (!intermediates_fit(g, kernel) && mode != VKNN_WINOGRAD_F4X3) kernel = VKNN_CONV_KERNEL_WINOGRAD_F2X3;
  if (!intermediates_fit(g, kernel)) return false;
  *out = (vknn_conv_choice){.kernel = kernel, .group = TRANSFORM_GROUP};
  return true;
}

/* G of F(2, 3) and F(4, 3): the filter transform, n x 3. */
static const double G2[4][3] = {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
static const double G4[6][3] = {{1.0 / 4, 0, 0},
                                {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                                {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                                {1.0 / 24, 1.0 / 12, 1.0 / 6},
                                {1.0 / 24, -1.0 / 12, 1.0 / 6},
                                {0, 0, 1}};

static double filter_value(const vknn_tensor *filter, size_t index) {
  if (filter->type == VKNN_OPERAND_TENSOR_FLOAT16) {
    uint16_t h;
    memcpy(&h, filter->constant_data + index * sizeof(h), sizeof(h));
    return vknn_half_to_float(h);
  }
  float f;
  memcpy(&f, filter->constant_data + index * sizeof(f), sizeof(f));
  return f;
}

/* out[i * n + j] = (G w G^T)[i][j] for one 3x3 filter w, G being n x 3. */
static void transform_3x3(const double (*gm)[3], uint32_t n, const double w[3][3], double *out) {
  double left[6][3];
  for (uint32_t i = 0; i < n; ++i)
    for (uint32_t j = 0; j < 3; ++j) left[i][j] = gm[i][0] * w[0][j] + gm[i][1] * w[1][j] + gm[i][2] * w[2][j];
  for (uint32_t i = 0; i < n; ++i)
    for (uint32_t j = 0; j < n; ++j)
      out[i * n + j] = left[i][0] * gm[j][0] + left[i][1] * gm[j][1] + left[i][2] * gm[j][2];
}

/* U[t][oc][ic] = (G g G^T)[t] of filter [oc][3][3][ic], in double, rounded
 * once to float32; rows and channels of the padding are zeros. */
static float *transform_filter(const vknn_tensor *filter, const vknn_conv_geometry *g,
                               const winograd_shape *s) {
  uint32_t in_c = s->in_c4 * 4;
  float *u = vknn_calloc((size_t)s->positions * s->out_c_padded * in_c, sizeof(float));
  if (u == NULL) return NULL;
  const double(*gm)[3] = s->m == 4 ? G4 : G2;
  for (uint32_t oc = 0; oc < g->out_c; ++oc) {
    for (uint32_t ic = 0; ic < g->in_c; ++ic) {
      double w[3][3], transformed[36];
      for (uint32_t k = 0; k < 9; ++k) w[k / 3][k % 3] = filter_value(filter, ((size_t)oc * 9 + k) * g->in_c + ic);
      transform_3x3(gm, s->n, w, transformed);
      for (uint32_t t = 0; t < s->positions; ++t)
        u[((size_t)t * s->out_c_padded + oc) * in_c + ic] = (float)transformed[t];
    }
  }
  return u;
}

/* Push constants of conv2d_winograd.comp, std430 layout. */
typedef struct winograd_params {
  uint32_t in_h, in_w, in_c, out_h, out_w, out_c;
  int32_t pad_left, pad_top;
  uint32_t tiles_x, tiles_y, tiles, in_c4, out_c4;
  uint32_t out_row, out_stride, out_offset;
  float act_min, act_max;
} winograd_params;
VKNN_PUSH_LAYOUT(conv2d_winograd, winograd_params);

/* The intermediate tensors: U (constant), a zero bias for the products,
 * V and M (temporaries). */
typedef struct winograd_tensors {
  uint32_t u, zero_bias, v, m;
} winograd_tensors;

static vknn_status add_tensors(vknn_graph *graph, const vknn_conv_tensors *t,
                               const vknn_conv_geometry *g, const winograd_shape *s,
                               winograd_tensors *out) {
  float *u = transform_filter(&graph->tensors[t->filter], g, s);
  float *zeros = vknn_calloc((size_t)s->positions * s->out_c_padded, sizeof(float));
  if (u == NULL || zeros == NULL) {
    free(u);
    free(zeros);
    return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  }
  uint32_t u_dims[2] = {s->positions * s->out_c_padded, s->in_c4 * 4};
  uint32_t bias_dims[1] = {s->positions * s->out_c_padded};
  uint32_t v_dims[2] = {s->tiles, s->positions * s->in_c4 * 4};
  uint32_t m_dims[2] = {s->tiles, s->positions * s->out_c_padded};
  out->u = vknn_graph_add_constant(graph, VKNN_OPERAND_TENSOR_FLOAT32, u_dims, 2, u);
  out->zero_bias = vknn_graph_add_constant(graph, VKNN_OPERAND_TENSOR_FLOAT32, bias_dims, 1, zeros);
  out->v = vknn_graph_add_temporary(graph, VKNN_OPERAND_TENSOR_FLOAT32, v_dims, 2);
  out->m = vknn_graph_add_temporary(graph, VKNN_OPERAND_TENSOR_FLOAT32, m_dims, 2);
  bool ok = out->u != UINT32_MAX && out->zero_bias != UINT32_MAX && out->v != UINT32_MAX &&
            out->m != UINT32_MAX;
  return ok ? VKNN_STATUS_NONE : VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
}

static vknn_shader_id transform_shader(bool output, uint32_t m, bool f16) {
  static const vknn_shader_id ids[2][2][2] = {
      {{VKNN_SHADER_CONV2D_WINOGRAD_INPUT_F2X3_F32, VKNN_SHADER_CONV2D_WINOGRAD_INPUT_F2X3_F16},
       {VKNN_SHADER_CONV2D_WINOGRAD_INPUT_F4X3_F32, VKNN_SHADER_CONV2D_WINOGRAD_INPUT_F4X3_F16}},
      {{VKNN_SHADER_CONV2D_WINOGRAD_OUTPUT_F2X3_F32, VKNN_SHADER_CONV2D_WINOGRAD_OUTPUT_F2X3_F16},
       {VKNN_SHADER_CONV2D_WINOGRAD_OUTPUT_F4X3_F32, VKNN_SHADER_CONV2D_WINOGRAD_OUTPUT_F4X3_F16}}};
  return ids[output][m == 4][f16];
}

/* One transform's dispatch: input (binds input, V) or output (binds M,
 * bias, output). */
static vknn_status add_transform(vknn_graph *graph, const vknn_conv_tensors *t,
                                 const vknn_conv_geometry *g, const winograd_shape *s,
                                 const winograd_tensors *w, bool output,
                                 vknn_dispatch_list *out_list) {
  bool f16 = graph->tensors[t->input].type == VKNN_OPERAND_TENSOR_FLOAT16;
  const vknn_out_slice *slice = &g->out_slice;
  winograd_params p = {g->in_h, g->in_w, g->in_c, g->out_h, g->out_w, g->out_c,
                       g->pad_left, g->pad_top, s->tiles_x, s->tiles_y, s->tiles, s->in_c4,
                       s->out_c_padded / 4, slice->row, slice->stride, slice->offset,
                       t->act_min, t->act_max};
  vknn_dispatch *d = vknn_dispatch_list_add(out_list);
  if (d == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  d->shader = transform_shader(output, s->m, f16);
  d->local_size = TRANSFORM_GROUP;
  bool slice_vec4 = slice->row == 0 ||
                    (slice->row % 4 == 0 && slice->stride % 4 == 0 && slice->offset % 4 == 0);
  d->spec[VKNN_SPEC_CONV2D_WINOGRAD_VEC4_IO] = output ? g->out_c % 4 == 0 && slice_vec4
                                                      : g->in_c % 4 == 0;
  d->spec[VKNN_SPEC_CONV2D_WINOGRAD_SLICED] = output && slice->row != 0;
  d->spec_count = VKNN_SPEC_COUNT_CONV2D_WINOGRAD;
  memcpy(d->push, &p, sizeof(p));
  d->push_size = sizeof(p);
  if (output) {
    vknn_dispatch_bind(d, w->m, VKNN_ACCESS_READ);
    vknn_dispatch_bind(d, t->bias, VKNN_ACCESS_READ);
    vknn_dispatch_bind(d, t->output, VKNN_ACCESS_WRITE);
    d->invocations = (uint64_t)s->tiles * ceil_div(g->out_c, 4);
  } else {
    vknn_dispatch_bind(d, t->input, VKNN_ACCESS_READ);
    vknn_dispatch_bind(d, w->v, VKNN_ACCESS_WRITE);
    d->invocations = (uint64_t)s->tiles * s->in_c4;
  }
  return VKNN_STATUS_NONE;
}

/* The T matrix products as one grouped pointwise convolution: tiles as
 * pixels, V's T * in_c channels in T groups, U as its filter. */
static vknn_status add_products(vknn_graph *graph, const winograd_shape *s, const winograd_tensors *w,
                                vknn_dispatch_list *out_list) {
  uint32_t in_c = s->in_c4 * 4;
  vknn_conv_geometry pg = {.batches = s->tiles, .in_h = 1, .in_w = 1, .in_c = s->positions * in_c,
                           .out_h = 1, .out_w = 1, .out_c = s->positions * s->out_c_padded,
                           .k_w = 1, .k_h = 1, .stride_x = 1, .stride_y = 1, .dilation_x = 1,
                           .dilation_y = 1, .cin_per_group = in_c,
                           .cout_per_group = s->out_c_padded, .activation = VKNN_FUSED_NONE};
  vknn_conv_tensors pt = {.input = w->v, .filter = w->u, .bias = w->zero_bias, .output = w->m,
                          .multipliers = UINT32_MAX, .act_min = -INFINITY, .act_max = INFINITY};
  /* Few tiles (a 14x14 layer has 16 of 4x4): 2 per invocation, so that a
   * group of 8 lanes (lavapipe's SIMD width) is not half idle; many: 4, as
   * the plain product. The group grows from the device's subgroup. */
  uint32_t pix_block = s->tiles >= 64 ? 4 : 2;
  uint32_t subgroup = graph->kernels.subgroup_size;
  uint32_t group = subgroup >= 8 && subgroup <= 64 ? subgroup : 8;
  while (group < 64 && (uint64_t)group * 2 * pix_block <= s->tiles) group *= 2;
  /* 16 channels a block where they divide M's (2 pixels x 16 channels
   * measured 10-40% faster than 2 x 8 on the 14x14x512 layer's 16 tiles). */
  uint32_t ch_block = s->out_c_padded % 16 == 0 ? 16 : PRODUCT_CH_BLOCK;
  vknn_conv_choice c = {VKNN_CONV_KERNEL_GEMM, ch_block, pix_block, group, 1};
  return vknn_lower_conv_tiled(graph, &pt, &pg, c, out_list);
}

vknn_status vknn_lower_conv_winograd(vknn_graph *graph, const vknn_conv_tensors *t,
                                     const vknn_conv_geometry *g, vknn_conv_choice c,
                                     vknn_dispatch_list *out_list) {
  if (graph->tensors[t->filter].constant_data == NULL) {
    vknn_kernel_target plain = graph->kernels;
    plain.winograd = VKNN_WINOGRAD_OFF;
    vknn_conv_choice gemm = vknn_conv_select(&plain, g, graph->tensors[t->input].type);
    return vknn_lower_conv_tiled(graph, t, g, gemm, out_list);
  }
  winograd_shape s = shape_of(g, tile_of(c.kernel));
  winograd_tensors w;
  vknn_status st = add_tensors(graph, t, g, &s, &w);
  if (st == VKNN_STATUS_NONE) st = add_transform(graph, t, g, &s, &w, false, out_list);
  if (st == VKNN_STATUS_NONE) st = add_products(graph, &s, &w, out_list);
  if (st == VKNN_STATUS_NONE) st = add_transform(graph, t, g, &s, &w, true, out_list);
  return st;
}
