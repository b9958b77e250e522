/* Convolution kernels: which kernel runs a convolution (one selection
 * function, its rules measured: docs/perf.md) and the lowering to the tiled
 * ones (shaders/conv2d_gemm.comp and conv2d_depthwise.comp, float and
 * quantized; gemv_splitk.comp, float). */
#include "ops/conv2d.h"

#include <string.h>

#include "model/operand_type.h"
#include "ops/op_common.h"

/* Invocations per workgroup of the tiled kernels: within the 128 every
 * Vulkan device supports (maxComputeWorkGroupInvocations and
 * maxComputeWorkGroupSize[0] are at least 128). */
#define GEMM_GROUP 64
#define DEPTHWISE_GROUP 64
#define GEMV_GROUP 64
/* conv2d_gemm with its reduction split (K_SPLIT): at most 8 slices in a
 * workgroup of 128, so that slices 1..7 hand 7 x 16 lanes x 32 sums (14 KiB)
 * to slice 0 within the 16 KiB of shared memory every device has; and each
 * slice keeps at least 16 input channels of every tap (4 vec4 steps). */
#define GEMM_SPLIT_GROUP 128
#define GEMM_MAX_SPLIT 8
#define GEMM_SLICE_MIN_CHANNELS 16
/* gemm_shared_64x64.comp: 64 x 64 output tiles, a workgroup of 128 (its
 * GROUP: 8 x 16 register blocks of 8 rows x 4 channels). */
#define GEMM_SHARED_TILE 64
#define GEMM_SHARED_GROUP 128
/* The longest float16 sum of conv2d_depthwise's _f16_arith variants: one
 * window row (its F16_ARITH comment), as conv2d_gemm's F16_SPAN bounds its. */
#define DEPTHWISE_F16_SPAN 32

/* 1x1, stride 1, no padding: each output pixel reads the input pixel at its
 * own index (transposed or not, the same taps). */
static bool pointwise(const vknn_conv_geometry *g) {
  return g->k_h == 1 && g->k_w == 1 && g->stride_x == 1 && g->stride_y == 1 &&
         g->pad_left == 0 && g->pad_top == 0 && g->in_h == g->out_h && g->in_w == g->out_w;
}

static uint32_t ceil_div(uint64_t a, uint64_t b) { return (uint32_t)((a + b - 1) / b); }

/* The smallest workgroup worth dispatching: the device's subgroup (a
 * smaller group leaves lanes of its one subgroup idle), 8 (lavapipe's SIMD
 * width) where unknown, and never above the groups the kernels use. */
static uint32_t group_floor(const vknn_kernel_target *target) {
  uint32_t subgroup = target != NULL && target->subgroup_size != 0 ? target->subgroup_size : 8;
  return subgroup < GEMM_GROUP ? subgroup : GEMM_GROUP;
}

/* A workgroup size for items invocations' worth of work: the largest, halved
 * (down to the floor) while half a group still covers every item, so that a
 * small layer's one tile is not mostly idle lanes. */
static uint32_t smallest_group(uint32_t largest, uint32_t floor, uint64_t items) {
  uint32_t group = largest;
  while (group > floor && group / 2 >= items) group /= 2;
  return group;
}

/* A workgroup size for items spread over workgroups of group invocations
 * each (the last workgroup's invocations past the items computing on a
 * copy and storing nothing): of largest, largest / 2, ... down to the
 * floor, the one that leaves the fewest invocations idle, the largest of
 * those. A 14x14 layer's 98 register blocks of 2 pixels fill 104 lanes in
 * workgroups of 8 and 128 in workgroups of 64: 14-19% faster on lavapipe
 * (docs/perf.md, "Workgroups that leave few lanes idle"), where a
 * workgroup's size matters otherwise little. */
static uint32_t least_idle_group(uint32_t largest, uint32_t floor, uint64_t items) {
  uint32_t best = largest;
  uint64_t best_slots = (uint64_t)ceil_div(items, largest) * largest;
  for (uint32_t group = largest / 2; group >= floor && group > 0; group /= 2) {
    uint64_t slots = (uint64_t)ceil_div(items, group) * group;
    if (slots < best_slots) {
      best = group;
      best_slots = slots;
    }
  }
  return best;
}

/* Slices of conv2d_gemm's reduction: doubled while the layer's register
 * blocks (blocks invocations' worth) leave most of the device idle, up to
 * GEMM_MAX_SPLIT. A 14x14 layer of 512 channels has 3136 blocks; an H200
 * runs 270336 invocations at once (docs/perf.md: 2x on MobileNet v1). */
static uint32_t gemm_split(const vknn_kernel_target *target, const vknn_conv_geometry *g,
                           uint64_t blocks) {
  uint32_t split = 1;
  if (target == NULL) return split;
  while (split < GEMM_MAX_SPLIT && blocks * split < target->parallel_invocations &&
         g->cin_per_group / (split * 2) >= GEMM_SLICE_MIN_CHANNELS)
    split *= 2;
  return split;
}

/* Loop iterations of one conv2d_depthwise invocation: per window row, its
 * taps' filter loads and the input columns its row block spans, each of
 * those over the taps again (counted as loops, though short ones unroll). */
static uint64_t depthwise_iterations(const vknn_conv_geometry *g, uint32_t out_block) {
  uint64_t span = (uint64_t)(out_block - 1) * g->stride_x + g->k_w;
  return g->k_h * (1 + g->k_w + span * (1 + g->k_w));
}

/* Output pixels per conv2d_depthwise invocation: from block (8 at stride 1,
 * 4 at stride 2; the loaded columns serve that many windows), halved while
 * the layer's invocations leave most of a device that says its width idle:
 * there, each invocation's chain of loads is what waits (MobileNet v1 0.25's
 * 3x3 layers took 6-8 us each on an H200 with blocks of 8). */
static uint32_t depthwise_block(const vknn_kernel_target *target, const vknn_conv_geometry *g,
                                uint32_t block) {
  uint64_t rows_and_channels = (uint64_t)g->batches * g->out_h * ceil_div(g->out_c, 4);
  while (target != NULL && block > 1 &&
         rows_and_channels * ceil_div(g->out_w, block) < target->parallel_invocations)
    block /= 2;
  return block;
}

vknn_conv_choice vknn_conv_select(const vknn_kernel_target *target, const vknn_conv_geometry *g,
                                  int32_t type) {
  uint32_t floor = group_floor(target);
  vknn_conv_choice c = {.kernel = VKNN_CONV_KERNEL_DIRECT};
  /* NCHW keeps the direct kernel (the tiled kernels read NHWC rows). */
  bool quant = vknn_is_quant8(type);
  if (!(vknn_is_float_tensor(type) || quant) || g->nchw) return c;
  /* The tiled kernels index elements in 32 bits (input offsets signed, -1
   * marking padding), as the direct one does in unsigned ones. */
  uint64_t in_elements = (uint64_t)g->batches * g->in_h * g->in_w * g->in_c;
  uint64_t pixels = (uint64_t)g->batches * g->out_h * g->out_w;
  if (in_elements > INT32_MAX || pixels * g->out_c > UINT32_MAX) return c;
  if (g->depthwise) {
    /* The depthwise kernel reuses loaded window columns across a row of
     * outputs, which needs dilation 1; a multiplier above 1 reads each
     * input channel for several outputs: both stay on the direct kernel. */
    if (g->cout_per_group != 1 || g->dilation_x != 1 || g->dilation_y != 1) return c;
    /* Row blocks of 8 at stride 1 (10 loaded columns for 8 windows); at
     * stride 2 a block of 8 spans 17 columns and was slower than 4. */
    uint32_t pix_block = depthwise_block(target, g, g->stride_x == 1 ? 8 : 4);
    /* Windows too wide for the loop limiter's budget (their column reuse
     * loops over the taps again) take the direct kernel, which loops over
     * each tap once. */
    if (target != NULL && target->loop_budget != 0 && depthwise_iterations(g, pix_block) > target->loop_budget)
      return c;
    c.kernel = VKNN_CONV_KERNEL_DEPTHWISE;
    c.pix_block = pix_block;
    c.group = least_idle_group(DEPTHWISE_GROUP, floor,
                             (uint64_t)g->batches * g->out_h * ceil_div(g->out_w, c.pix_block));
    return c;
  }
  bool grouped = g->cout_per_group != g->out_c;
  /* A single row against a long reduction: split the reduction across a
   * workgroup, else one invocation would sum all of it alone. */
  /* Quantized, such a row stays on the direct kernel: without a quantized
   * split-K variant the matrix product gives one workgroup per 8 outputs to
   * one pixel (vknn-bench kernel fc --quant8: 37-39 ms against 5-12 ms). */
  if (quant && pixels == 1 && pointwise(g)) return c;
  if (!grouped && pixels == 1 && pointwise(g) && g->in_c >= 64) {
    c.kernel = VKNN_CONV_KERNEL_GEMV;
    c.ch_block = 4;
    c.group = smallest_group(GEMV_GROUP, floor, ceil_div(g->in_c, 8)); /* 2 vec4 slices a lane */
    return c;
  }
  /* Tiles in shared memory where the device option or kernel tuning asks
   * for them: float pointwise layers of several pixels (one pixel is the
   * matrix-vector kernel's). */
  if (target != NULL && target->gemm_shared_tiles && !quant && !grouped && pointwise(g) && pixels > 1) {
    c.kernel = VKNN_CONV_KERNEL_GEMM_SHARED;
    c.ch_block = GEMM_SHARED_TILE;
    c.pix_block = GEMM_SHARED_TILE;
    c.group = GEMM_SHARED_GROUP;
    return c;
  }
  if (vknn_winograd_select(target, g, type, &c)) return c;
  /* 8 output channels (4 when out_c < 8, so that a block is not mostly
   * channels past the end) x 4 pixels: 8x8, 16x4 and 16x2 measured the same
   * where every lane loads its own filter values (but see below). */
  c.kernel = VKNN_CONV_KERNEL_GEMM;
  c.ch_block = g->out_c >= 8 ? 8 : 4;
  /* With groups a workgroup's channel block must lie inside one group (it
   * reads that group's input channels): a block size dividing the group's
   * output channels, else the direct kernel. */
  if (grouped) {
    c.ch_block = g->cout_per_group % 8 == 0 ? 8 : 4;
    if (g->cout_per_group % c.ch_block != 0) return (vknn_conv_choice){.kernel = VKNN_CONV_KERNEL_DIRECT};
  }
  c.pix_block = 4;
  /* Where a subgroup shares the filter loads (lavapipe), 2 pixels x 16
   * channels: the same 32 sums a lane, from 2 input loads and 2 filter loads
   * a step instead of 4 and 1 (an input load is a gather of every lane's own
   * pixel, a filter load one slice a lane handed on by shuffles). Measured
   * 6-24% faster on every 1x1 layer of MobileNet v1 and on its first layer
   * (docs/perf.md, "Storage texel buffers"); blocks of more than 32 sums
   * spill and run several times slower there. */
  if (!grouped && g->out_c % 16 == 0 && target != NULL && target->subgroup_filter) {
    c.ch_block = 16;
    c.pix_block = 2;
  }
  uint64_t pixel_blocks = ceil_div(pixels, c.pix_block);
  c.k_split = gemm_split(target, g, pixel_blocks * ceil_div(g->out_c, c.ch_block));
  if (c.k_split > 1) {
    uint32_t lanes =
        smallest_group(GEMM_SPLIT_GROUP / c.k_split, ceil_div(floor, c.k_split), pixel_blocks);
    c.group = lanes * c.k_split;
    return c;
  }
  c.group = least_idle_group(GEMM_GROUP, floor, pixel_blocks);
  return c;
}

/* What differs between the dispatches of the tiled kernels. Each binds
 * input, filter, bias and output (and, quantized, the requantization
 * multipliers), and each push-constant block ends with the fused
 * activation's bounds (act_min, act_max), filled in here. */
typedef struct tiled_launch {
  vknn_shader_id f32_shader, f16_shader;
  /* Quantized variants (has_quant): uint8, uint8 with an int8 per-channel
   * filter, int8 (they read the tensors' requantization multipliers). */
  bool has_quant;
  vknn_shader_id q8_shader, q8_filter_i8_shader, q8s_shader;
  vknn_shader_id q8_texel_shader, q8_filter_i8_texel_shader, q8s_texel_shader;
  /* Variants reading input and filter through texel buffers (TEXEL_READS);
   * texel_vec4: they read four elements per texel. */
  bool has_texel;
  vknn_shader_id f32_texel_shader, f16_texel_shader;
  bool texel_vec4;
  uint32_t group;
  uint32_t spec[VKNN_MAX_SPEC_CONSTANTS];
  uint32_t spec_count;
  const void *push;
  uint32_t push_size;
  uint64_t invocations;
  /* Quantized variants summing packed 8-bit dot products (conv2d_gemm's
   * _idot), where the reads are vec4 (texel_vec4). */
  bool has_integer_dot;
  /* conv2d_gemm's register block and workgroup allow sharing filter loads
   * across a subgroup (its _subgroup variants, where the device has them on). */
  bool subgroup_filter;
  /* The kernel's float16 sums would run longer than its float16 variant
   * keeps them (conv2d_depthwise: a window row of more than F16_SPAN taps):
   * float32 arithmetic even where float16 arithmetic is on. */
  bool long_float16_sums;
  /* conv2d_gemm: the filter is filter_rows rows of filter_row elements, read
   * filter_unit at a time; where its loads are shared across a subgroup, a
   * constant one is bound packed (PACKED_FILTER). 0 rows: never packed. */
  uint32_t filter_rows, filter_row, filter_unit;
  /* The kernel's PACKED_LAYOUT constant (its spec index + 1; 0: none) and whether
   * it can read the input (bit 1) and write the output and residual (bit
   * 2) packed (docs/architecture.md, "Packed arena layout"). */
  uint32_t packed_spec;
  bool packed_input, packed_output;
} tiled_launch;

/* Input and filter through texel buffers where the device prefers them (its
 * table, vk_context.c) and they fit: formats[0] and [1], or false (storage
 * buffers). The results are the same either way. */
static bool texel_formats(const vknn_graph *graph, const vknn_conv_tensors *t, const tiled_launch *l,
                          vknn_texel_format formats[2]) {
  if (!l->has_texel || !graph->kernels.texel_reads || !vknn_fits_texels(graph, t->input, l->texel_vec4) ||
      !vknn_fits_texels(graph, t->filter, l->texel_vec4))
    return false;
  formats[0] = vknn_texel_format_of(graph->tensors[t->input].type, l->texel_vec4);
  formats[1] = vknn_texel_format_of(graph->tensors[t->filter].type, l->texel_vec4);
  return true;
}

/* The variant for the input and filter types and the way of reading. */
static vknn_shader_id tiled_shader(const vknn_graph *graph, const vknn_conv_tensors *t,
                                   const tiled_launch *l, bool texel) {
  switch (graph->tensors[t->input].type) {
    case VKNN_OPERAND_TENSOR_FLOAT16: return texel ? l->f16_texel_shader : l->f16_shader;
    case VKNN_OPERAND_TENSOR_QUANT8_ASYMM:
      if (graph->tensors[t->filter].type == VKNN_OPERAND_TENSOR_QUANT8_SYMM_PER_CHANNEL)
        return texel ? l->q8_filter_i8_texel_shader : l->q8_filter_i8_shader;
      return texel ? l->q8_texel_shader : l->q8_shader;
    case VKNN_OPERAND_TENSOR_QUANT8_ASYMM_SIGNED: return texel ? l->q8s_texel_shader : l->q8s_shader;
    default: return texel ? l->f32_texel_shader : l->f32_shader;
  }
}

/* The float matrix kernel's variant that adds a residual (conv2d_gemm's
 * _residual), or VKNN_SHADER_COUNT where the kernel has none. */
static vknn_shader_id residual_shader(vknn_shader_id shader) {
  switch (shader) {
    case VKNN_SHADER_CONV2D_GEMM_F32: return VKNN_SHADER_CONV2D_GEMM_F32_RESIDUAL;
    case VKNN_SHADER_CONV2D_GEMM_F16: return VKNN_SHADER_CONV2D_GEMM_F16_RESIDUAL;
    case VKNN_SHADER_CONV2D_GEMM_F32_TEXEL: return VKNN_SHADER_CONV2D_GEMM_F32_TEXEL_RESIDUAL;
    case VKNN_SHADER_CONV2D_GEMM_F16_TEXEL: return VKNN_SHADER_CONV2D_GEMM_F16_TEXEL_RESIDUAL;
    default: return VKNN_SHADER_COUNT;
  }
}

/* The float16 kernel's variant computing in float16 (its _f16_arith twin),
 * or the shader itself where it has none. */
static vknn_shader_id float16_arithmetic_shader(vknn_shader_id shader) {
  switch (shader) {
    case VKNN_SHADER_CONV2D_GEMM_F16: return VKNN_SHADER_CONV2D_GEMM_F16_ARITH;
    case VKNN_SHADER_CONV2D_GEMM_F16_TEXEL: return VKNN_SHADER_CONV2D_GEMM_F16_ARITH_TEXEL;
    case VKNN_SHADER_CONV2D_GEMM_F16_RESIDUAL: return VKNN_SHADER_CONV2D_GEMM_F16_ARITH_RESIDUAL;
    case VKNN_SHADER_CONV2D_GEMM_F16_TEXEL_RESIDUAL: return VKNN_SHADER_CONV2D_GEMM_F16_ARITH_TEXEL_RESIDUAL;
    case VKNN_SHADER_CONV2D_DEPTHWISE_F16: return VKNN_SHADER_CONV2D_DEPTHWISE_F16_ARITH;
    case VKNN_SHADER_CONV2D_DEPTHWISE_F16_TEXEL: return VKNN_SHADER_CONV2D_DEPTHWISE_F16_ARITH_TEXEL;
    case VKNN_SHADER_GEMV_SPLITK_F16: return VKNN_SHADER_GEMV_SPLITK_F16_ARITH;
    case VKNN_SHADER_GEMV_SPLITK_F16_TEXEL: return VKNN_SHADER_GEMV_SPLITK_F16_ARITH_TEXEL;
    default: return shader;
  }
}

/* conv2d_gemm's variant sharing filter loads across a subgroup (its
 * _subgroup twin), or the shader itself where it has none (float16
 * arithmetic, packed dot products). */
static vknn_shader_id subgroup_filter_shader(vknn_shader_id shader) {
  switch (shader) {
    case VKNN_SHADER_CONV2D_GEMM_F32: return VKNN_SHADER_CONV2D_GEMM_F32_SUBGROUP;
    case VKNN_SHADER_CONV2D_GEMM_F16: return VKNN_SHADER_CONV2D_GEMM_F16_SUBGROUP;
    case VKNN_SHADER_CONV2D_GEMM_F32_TEXEL: return VKNN_SHADER_CONV2D_GEMM_F32_TEXEL_SUBGROUP;
    case VKNN_SHADER_CONV2D_GEMM_F16_TEXEL: return VKNN_SHADER_CONV2D_GEMM_F16_TEXEL_SUBGROUP;
    case VKNN_SHADER_CONV2D_GEMM_F32_RESIDUAL: return VKNN_SHADER_CONV2D_GEMM_F32_RESIDUAL_SUBGROUP;
    case VKNN_SHADER_CONV2D_GEMM_F16_RESIDUAL: return VKNN_SHADER_CONV2D_GEMM_F16_RESIDUAL_SUBGROUP;
    case VKNN_SHADER_CONV2D_GEMM_F32_TEXEL_RESIDUAL:
      return VKNN_SHADER_CONV2D_GEMM_F32_TEXEL_RESIDUAL_SUBGROUP;
    case VKNN_SHADER_CONV2D_GEMM_F16_TEXEL_RESIDUAL:
      return VKNN_SHADER_CONV2D_GEMM_F16_TEXEL_RESIDUAL_SUBGROUP;
    case VKNN_SHADER_CONV2D_GEMM_Q8: return VKNN_SHADER_CONV2D_GEMM_Q8_SUBGROUP;
    case VKNN_SHADER_CONV2D_GEMM_Q8_FILTER_I8: return VKNN_SHADER_CONV2D_GEMM_Q8_FILTER_I8_SUBGROUP;
    case VKNN_SHADER_CONV2D_GEMM_Q8S: return VKNN_SHADER_CONV2D_GEMM_Q8S_SUBGROUP;
    case VKNN_SHADER_CONV2D_GEMM_Q8_TEXEL: return VKNN_SHADER_CONV2D_GEMM_Q8_TEXEL_SUBGROUP;
    case VKNN_SHADER_CONV2D_GEMM_Q8_FILTER_I8_TEXEL:
      return VKNN_SHADER_CONV2D_GEMM_Q8_FILTER_I8_TEXEL_SUBGROUP;
    case VKNN_SHADER_CONV2D_GEMM_Q8S_TEXEL: return VKNN_SHADER_CONV2D_GEMM_Q8S_TEXEL_SUBGROUP;
    default: return shader;
  }
}

/* The packed dot product variant for the operand types (conv2d_gemm's). */
static vknn_shader_id integer_dot_shader(const vknn_graph *graph, const vknn_conv_tensors *t) {
  if (graph->tensors[t->input].type == VKNN_OPERAND_TENSOR_QUANT8_ASYMM_SIGNED)
    return VKNN_SHADER_CONV2D_GEMM_Q8S_IDOT;
  if (graph->tensors[t->filter].type == VKNN_OPERAND_TENSOR_QUANT8_SYMM_PER_CHANNEL)
    return VKNN_SHADER_CONV2D_GEMM_Q8_FILTER_I8_IDOT;
  return VKNN_SHADER_CONV2D_GEMM_Q8_IDOT;
}

/* Where the dispatch shares filter loads across a subgroup, a constant
 * filter packed by 8 channels, so that the 8 lanes' loads of a step read
 * adjacent values (docs/perf.md, "Filters packed by 8 channels"); *filter:
 * the tensor to bind. A packed copy that would be too large for a texel
 * buffer is not made (the plain filter is read). */
static vknn_status pack_shared_filter(vknn_graph *graph, const tiled_launch *l, bool texel_reads,
                                      vknn_dispatch *d, uint32_t *filter) {
  if (l->filter_rows == 0 || graph->tensors[*filter].constant_data == NULL) return VKNN_STATUS_NONE;
  /* Its rows rounded up to 8 (vknn_conv_pack_filter_by_8). */
  uint64_t packed_elements = ((uint64_t)l->filter_rows + 7) / 8 * 8 * l->filter_row;
  if (texel_reads && !vknn_fits_texel_count(graph, packed_elements, l->texel_vec4)) return VKNN_STATUS_NONE;
  uint32_t packed;
  vknn_status s = vknn_conv_pack_filter_by_8(graph, *filter, l->filter_rows, l->filter_row,
                                             l->filter_unit, &packed);
  if (s != VKNN_STATUS_NONE) return s;
  *filter = packed;
  d->spec[VKNN_SPEC_CONV2D_GEMM_PACKED_FILTER] = 1;
  return VKNN_STATUS_NONE;
}

/* Marks the bindings the kernel can read or write packed: the input
 * (binding 0), the output (binding 3) and the residual (the last binding)
 * under the output's bit, since the kernel indexes both alike. */
static void allow_packed(vknn_dispatch *d, const tiled_launch *l, bool has_residual) {
  if (l->packed_spec == 0) return;
  if (l->packed_input) vknn_dispatch_allow_packed(d, 0, l->packed_spec - 1, 0);
  if (!l->packed_output) return;
  vknn_dispatch_allow_packed(d, 3, l->packed_spec - 1, 1);
  if (has_residual) vknn_dispatch_allow_packed(d, d->binding_count - 1, l->packed_spec - 1, 1);
}

static vknn_status add_tiled_dispatch(vknn_graph *graph, const vknn_conv_tensors *t,
                                      const tiled_launch *l, vknn_dispatch_list *out_list) {
  bool quant = vknn_is_quant8(graph->tensors[t->input].type);
  if (quant && !l->has_quant) return VKNN_STATUS_GENERAL_FAILURE;
  vknn_dispatch *d = vknn_dispatch_list_add(out_list);
  if (d == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  /* Packed dot products read the 8-bit words from storage buffers. */
  bool integer_dot = quant && l->has_integer_dot && l->texel_vec4 && graph->kernels.integer_dot;
  vknn_texel_format texel[2] = {VKNN_TEXEL_NONE, VKNN_TEXEL_NONE};
  bool texel_reads = !integer_dot && texel_formats(graph, t, l, texel);
  d->shader = integer_dot ? integer_dot_shader(graph, t) : tiled_shader(graph, t, l, texel_reads);
  if (t->has_residual) d->shader = residual_shader(d->shader);
  if (d->shader == VKNN_SHADER_COUNT) return VKNN_STATUS_GENERAL_FAILURE;
  if (graph->kernels.float16_arithmetic && !l->long_float16_sums)
    d->shader = float16_arithmetic_shader(d->shader);
  d->local_size = l->group;
  memcpy(d->spec, l->spec, sizeof(l->spec));
  d->spec_count = l->spec_count;
  uint32_t filter = t->filter;
  if (l->subgroup_filter && graph->kernels.subgroup_filter && subgroup_filter_shader(d->shader) != d->shader) {
    d->shader = subgroup_filter_shader(d->shader);
    vknn_status s = pack_shared_filter(graph, l, texel_reads, d, &filter);
    if (s != VKNN_STATUS_NONE) return s;
  }
  memcpy(d->push, l->push, l->push_size);
  d->push_size = l->push_size;
  float bounds[2] = {t->act_min, t->act_max};
  memcpy(d->push + l->push_size - sizeof(bounds), bounds, sizeof(bounds));
  if (texel_reads) {
    vknn_dispatch_bind_texel(d, t->input, texel[0]);
    vknn_dispatch_bind_texel(d, filter, texel[1]);
  } else {
    vknn_dispatch_bind(d, t->input, VKNN_ACCESS_READ);
    vknn_dispatch_bind(d, filter, VKNN_ACCESS_READ);
  }
  vknn_dispatch_bind(d, t->bias, VKNN_ACCESS_READ);
  vknn_dispatch_bind(d, t->output, VKNN_ACCESS_WRITE);
  if (quant) vknn_dispatch_bind(d, t->multipliers, VKNN_ACCESS_READ);
  if (t->has_residual) vknn_dispatch_bind(d, t->residual, VKNN_ACCESS_READ);
  allow_packed(d, l, t->has_residual);
  d->invocations = l->invocations;
  return VKNN_STATUS_NONE;
}

/* Zero points of input, filter and output (quantized kernels). */
static void tensor_zero_points(const vknn_graph *graph, const vknn_conv_tensors *t, int32_t out[3]) {
  out[0] = graph->tensors[t->input].zero_point;
  out[1] = graph->tensors[t->filter].zero_point;
  out[2] = graph->tensors[t->output].zero_point;
}

/* Stores of four consecutive output elements stay four consecutive ones in
 * the slice (when there is one). */
static bool slice_vec4(const vknn_conv_geometry *g) {
  const vknn_out_slice *s = &g->out_slice;
  return s->row == 0 || (s->row % 4 == 0 && s->stride % 4 == 0 && s->offset % 4 == 0);
}

/* Push constants of conv2d_gemm.comp, std430 layout. */
typedef struct gemm_params {
  uint32_t in_h, in_w, out_h, out_w, in_c, cout_per_group, pixels, out_c, channel_blocks;
  uint32_t stride_x, stride_y, dilation_x, dilation_y;
  int32_t pad_left, pad_top;
  int32_t in_zero_point, filter_zero_point, out_zero_point;
  uint32_t out_row, out_stride, out_offset;
  float res_min, res_max;
  float act_min, act_max;
} gemm_params;
VKNN_PUSH_LAYOUT(conv2d_gemm, gemm_params);

/* The TAPS constant of conv2d_gemm.comp. */
enum { TAPS_WINDOW, TAPS_POINTWISE, TAPS_TRANSPOSED };

static uint32_t gemm_taps(const vknn_conv_geometry *g) {
  if (pointwise(g)) return TAPS_POINTWISE;
  return g->transposed ? TAPS_TRANSPOSED : TAPS_WINDOW;
}

/* Loop iterations of one conv2d_gemm invocation: per window row, its taps,
 * and per tap the input-channel steps (four channels a step where a group's
 * input channels are a multiple of 4). The loops over the register block
 * (at most 8 trips) are unrolled: tests/test_loop_budget.c runs the largest
 * reduction this allows against its exact result. */
static uint64_t gemm_iterations(const vknn_conv_geometry *g) {
  uint64_t steps = g->cin_per_group % 4 == 0 ? g->cin_per_group / 4 : g->cin_per_group;
  return g->k_h * (1 + g->k_w * (1 + steps));
}

/* conv2d_gemm unrolls its taps (UNROLL_TAPS) for a window of at most 9 taps
 * over at most 3 input channels (an image's first layer), on a layer of at
 * least UNROLL_MIN_OUTPUTS outputs. MobileNet v1's first layer ran 26%
 * faster on lavapipe; the unrolled kernel compiles longer (the sync
 * conformance pass over the convolution cases, mostly tiny, took 40-48%
 * longer with every such window unrolled: docs/perf.md), which only a
 * large layer repays. */
#define UNROLL_MAX_TAPS 9
#define UNROLL_MAX_CHANNELS 3
#define UNROLL_MIN_OUTPUTS (1u << 16)

static bool unroll_taps(const vknn_conv_geometry *g, uint64_t pixels) {
  return g->k_h * g->k_w <= UNROLL_MAX_TAPS && g->cin_per_group <= UNROLL_MAX_CHANNELS &&
         pixels * g->out_c >= UNROLL_MIN_OUTPUTS;
}

/* Workgroups of whole subgroups of a multiple of 8 lanes: every group of 8
 * lanes exists and runs together (subgroup_share.glsl). */
static bool whole_groups_of_8(const vknn_graph *graph, uint32_t group) {
  uint32_t subgroup = graph->kernels.subgroup_size;
  return subgroup != 0 && subgroup % 8 == 0 && group % subgroup == 0;
}

static vknn_status lower_gemm(vknn_graph *graph, const vknn_conv_tensors *t,
                              const vknn_conv_geometry *g, vknn_conv_choice c,
                              vknn_dispatch_list *out_list) {
  if (!vknn_op_within_loop_budget(graph, "conv2d_gemm", gemm_iterations(g),
                                  "the filter's rows, columns and input channels"))
    return VKNN_STATUS_GENERAL_FAILURE;
  uint32_t pixels = g->batches * g->out_h * g->out_w;
  int32_t zero_points[3];
  tensor_zero_points(graph, t, zero_points);
  gemm_params p = {g->in_h, g->in_w, g->out_h, g->out_w, g->in_c, g->cout_per_group, pixels, g->out_c,
                   ceil_div(g->out_c, c.ch_block), g->stride_x, g->stride_y, g->dilation_x,
                   g->dilation_y, g->pad_left, g->pad_top, zero_points[0], zero_points[1],
                   zero_points[2], g->out_slice.row, g->out_slice.stride, g->out_slice.offset,
                   t->residual_min, t->residual_max, 0.f, 0.f};
  bool quant = vknn_is_quant8(graph->tensors[t->input].type);
  uint32_t k_split = c.k_split > 1 ? c.k_split : 1;
  /* Shared filter loads: lanes of 8 owning the block's channels 8 at a
   * time, all taking the same reduction steps (no split). */
  bool subgroup_filter = c.ch_block % 8 == 0 && k_split == 1 && whole_groups_of_8(graph, c.group);
  uint64_t tiles = ceil_div(pixels, (uint64_t)(c.group / k_split) * c.pix_block);
  bool vec4_stores = !quant && g->out_c % 4 == 0 && c.ch_block % 4 == 0 && slice_vec4(g);
  /* Packed reads need whole vec4 loads of one group's channels from a
   * window or a row; packed stores, whole vec4 stores into the tensor. */
  bool packed_input = g->packable && !quant && g->cin_per_group == g->in_c && g->in_c % 4 == 0 &&
                      gemm_taps(g) != TAPS_TRANSPOSED;
  bool packed_output = g->packable && vec4_stores && g->out_slice.row == 0;
  tiled_launch l = {VKNN_SHADER_CONV2D_GEMM_F32, VKNN_SHADER_CONV2D_GEMM_F16,
                    true, VKNN_SHADER_CONV2D_GEMM_Q8, VKNN_SHADER_CONV2D_GEMM_Q8_FILTER_I8,
                    VKNN_SHADER_CONV2D_GEMM_Q8S, VKNN_SHADER_CONV2D_GEMM_Q8_TEXEL,
                    VKNN_SHADER_CONV2D_GEMM_Q8_FILTER_I8_TEXEL, VKNN_SHADER_CONV2D_GEMM_Q8S_TEXEL,
                    true, VKNN_SHADER_CONV2D_GEMM_F32_TEXEL, VKNN_SHADER_CONV2D_GEMM_F16_TEXEL,
                    g->cin_per_group % 4 == 0, c.group,
                    {[VKNN_SPEC_CONV2D_GEMM_CH_BLOCK] = c.ch_block,
                     [VKNN_SPEC_CONV2D_GEMM_PIX_BLOCK] = c.pix_block,
                     [VKNN_SPEC_CONV2D_GEMM_IN_C] = g->cin_per_group,
                     [VKNN_SPEC_CONV2D_GEMM_K_H] = g->k_h,
                     [VKNN_SPEC_CONV2D_GEMM_K_W] = g->k_w,
                     [VKNN_SPEC_CONV2D_GEMM_TAPS] = gemm_taps(g),
                     [VKNN_SPEC_CONV2D_GEMM_VEC4_STORES] = vec4_stores,
                     [VKNN_SPEC_CONV2D_GEMM_SLICED] = g->out_slice.row != 0,
                     [VKNN_SPEC_CONV2D_GEMM_K_SPLIT] = k_split,
                     [VKNN_SPEC_CONV2D_GEMM_UNROLL_TAPS] = unroll_taps(g, pixels)},
                    VKNN_SPEC_COUNT_CONV2D_GEMM,
                    &p, sizeof(p), tiles * p.channel_blocks * c.group, true, subgroup_filter, false,
                    g->out_c, g->k_h * g->k_w * g->cin_per_group, g->cin_per_group % 4 == 0 ? 4 : 1,
                    VKNN_SPEC_CONV2D_GEMM_PACKED_LAYOUT + 1, packed_input, packed_output};
  return add_tiled_dispatch(graph, t, &l, out_list);
}

/* Push constants of conv2d_depthwise.comp, std430 layout. */
typedef struct depthwise_params {
  uint32_t in_h, in_w, channels, out_h, out_w;
  int32_t pad_left, pad_top;
  uint32_t x_blocks, items, channel_blocks;
  int32_t in_zero_point, filter_zero_point, out_zero_point;
  uint32_t out_row, out_stride, out_offset;
  float act_min, act_max;
} depthwise_params;
VKNN_PUSH_LAYOUT(conv2d_depthwise, depthwise_params);

static vknn_status lower_depthwise(vknn_graph *graph, const vknn_conv_tensors *t,
                                   const vknn_conv_geometry *g, vknn_conv_choice c,
                                   vknn_dispatch_list *out_list) {
  uint32_t x_blocks = ceil_div(g->out_w, c.pix_block);
  int32_t zero_points[3];
  tensor_zero_points(graph, t, zero_points);
  depthwise_params p = {g->in_h, g->in_w, g->out_c, g->out_h, g->out_w, g->pad_left, g->pad_top,
                        x_blocks, g->batches * g->out_h * x_blocks, ceil_div(g->out_c, 4),
                        zero_points[0], zero_points[1], zero_points[2], g->out_slice.row,
                        g->out_slice.stride, g->out_slice.offset, 0.f, 0.f};
  /* Whole vec4 loads and stores: four channels at a time, also in the slice. */
  bool vec4_io = g->out_c % 4 == 0 && slice_vec4(g);
  bool packable = g->packable && vec4_io && !vknn_is_quant8(graph->tensors[t->input].type);
  tiled_launch l = {VKNN_SHADER_CONV2D_DEPTHWISE_F32, VKNN_SHADER_CONV2D_DEPTHWISE_F16,
                    true, VKNN_SHADER_CONV2D_DEPTHWISE_Q8, VKNN_SHADER_CONV2D_DEPTHWISE_Q8_FILTER_I8,
                    VKNN_SHADER_CONV2D_DEPTHWISE_Q8S, VKNN_SHADER_CONV2D_DEPTHWISE_Q8_TEXEL,
                    VKNN_SHADER_CONV2D_DEPTHWISE_Q8_FILTER_I8_TEXEL,
                    VKNN_SHADER_CONV2D_DEPTHWISE_Q8S_TEXEL,
                    true, VKNN_SHADER_CONV2D_DEPTHWISE_F32_TEXEL,
                    VKNN_SHADER_CONV2D_DEPTHWISE_F16_TEXEL, vec4_io, c.group,
                    {[VKNN_SPEC_CONV2D_DEPTHWISE_K_H] = g->k_h,
                     [VKNN_SPEC_CONV2D_DEPTHWISE_K_W] = g->k_w,
                     [VKNN_SPEC_CONV2D_DEPTHWISE_STRIDE_X] = g->stride_x,
                     [VKNN_SPEC_CONV2D_DEPTHWISE_STRIDE_Y] = g->stride_y,
                     [VKNN_SPEC_CONV2D_DEPTHWISE_OUT_BLOCK] = c.pix_block,
                     [VKNN_SPEC_CONV2D_DEPTHWISE_VEC4_IO] = vec4_io,
                     [VKNN_SPEC_CONV2D_DEPTHWISE_SLICED] = g->out_slice.row != 0},
                    VKNN_SPEC_COUNT_CONV2D_DEPTHWISE,
                    &p, sizeof(p),
                    (uint64_t)ceil_div(p.items, c.group) * p.channel_blocks * c.group, false, false,
                    g->k_w > DEPTHWISE_F16_SPAN, 0, 0, 0,
                    VKNN_SPEC_CONV2D_DEPTHWISE_PACKED_LAYOUT + 1, packable, packable && g->out_slice.row == 0};
  return add_tiled_dispatch(graph, t, &l, out_list);
}

/* Push constants of gemv_splitk.comp, std430 layout. */
typedef struct gemv_params {
  uint32_t out_c;
  uint32_t out_row, out_stride, out_offset;
  float act_min, act_max;
} gemv_params;
VKNN_PUSH_LAYOUT(gemv_splitk, gemv_params);

static vknn_status lower_gemv(vknn_graph *graph, const vknn_conv_tensors *t,
                              const vknn_conv_geometry *g, vknn_conv_choice c,
                              vknn_dispatch_list *out_list) {
  gemv_params p = {g->out_c, g->out_slice.row, g->out_slice.stride, g->out_slice.offset, 0.f, 0.f};
  tiled_launch l = {VKNN_SHADER_GEMV_SPLITK_F32, VKNN_SHADER_GEMV_SPLITK_F16, false, 0, 0, 0, 0, 0, 0, true,
                    VKNN_SHADER_GEMV_SPLITK_F32_TEXEL, VKNN_SHADER_GEMV_SPLITK_F16_TEXEL,
                    g->in_c % 4 == 0, c.group,
                    {[VKNN_SPEC_GEMV_SPLITK_CH_BLOCK] = c.ch_block, [VKNN_SPEC_GEMV_SPLITK_K] = g->in_c,
                     [VKNN_SPEC_GEMV_SPLITK_SLICED] = g->out_slice.row != 0},
                    VKNN_SPEC_COUNT_GEMV_SPLITK, &p, sizeof(p),
                    (uint64_t)ceil_div(g->out_c, c.ch_block) * c.group, false, false, false, 0, 0, 0, 0, false, false};
  return add_tiled_dispatch(graph, t, &l, out_list);
}

/* Push constants of gemm_shared_64x64.comp, std430 layout. */
typedef struct gemm_shared_params {
  uint32_t m, n, k, n_tiles;
  uint32_t out_row, out_stride, out_offset;
  float act_min, act_max;
} gemm_shared_params;
VKNN_PUSH_LAYOUT(gemm_shared_64x64, gemm_shared_params);

/* Loop iterations of one gemm_shared_64x64 invocation: per reduction step
 * of 16, the step itself, its 16 products, and two staging passes of two
 * four-element loops each (counted as loops, though short ones unroll). */
static uint64_t gemm_shared_iterations(const vknn_conv_geometry *g) {
  return (uint64_t)ceil_div(g->in_c, 16) * (1 + 16 + 2 * (1 + 4 + 4));
}

static vknn_status lower_gemm_shared(vknn_graph *graph, const vknn_conv_tensors *t,
                                     const vknn_conv_geometry *g, vknn_conv_choice c,
                                     vknn_dispatch_list *out_list) {
  if (!vknn_op_within_loop_budget(graph, "gemm_shared_64x64", gemm_shared_iterations(g),
                                  "the input channels"))
    return VKNN_STATUS_GENERAL_FAILURE;
  uint32_t pixels = g->batches * g->out_h * g->out_w;
  gemm_shared_params p = {pixels, g->out_c, g->in_c, ceil_div(g->out_c, c.ch_block),
                          g->out_slice.row, g->out_slice.stride, g->out_slice.offset, 0.f, 0.f};
  uint64_t tiles = (uint64_t)ceil_div(pixels, c.pix_block) * p.n_tiles;
  tiled_launch l = {VKNN_SHADER_GEMM_SHARED_64X64_F32, VKNN_SHADER_GEMM_SHARED_64X64_F16, false, 0, 0, 0, 0, 0,
                    0, false, 0, 0, g->in_c % 4 == 0, c.group,
                    {[VKNN_SPEC_GEMM_SHARED_64X64_VEC4_LOADS] = g->in_c % 4 == 0,
                     [VKNN_SPEC_GEMM_SHARED_64X64_VEC4_STORES] = g->out_c % 4 == 0 && slice_vec4(g),
                     [VKNN_SPEC_GEMM_SHARED_64X64_SLICED] = g->out_slice.row != 0},
                    VKNN_SPEC_COUNT_GEMM_SHARED_64X64, &p, sizeof(p), tiles * c.group, false, false, false,
                    0, 0, 0, 0, false, false};
  return add_tiled_dispatch(graph, t, &l, out_list);
}

vknn_status vknn_lower_conv_tiled(vknn_graph *graph, const vknn_conv_tensors *t,
                                  const vknn_conv_geometry *g, vknn_conv_choice c,
                                  vknn_dispatch_list *out_list) {
  switch (c.kernel) {
    case VKNN_CONV_KERNEL_GEMM: return lower_gemm(graph, t, g, c, out_list);
    case VKNN_CONV_KERNEL_DEPTHWISE: return lower_depthwise(graph, t, g, c, out_list);
    case VKNN_CONV_KERNEL_GEMV: return lower_gemv(graph, t, g, c, out_list);
    case VKNN_CONV_KERNEL_GEMM_SHARED: return lower_gemm_shared(graph, t, g, c, out_list);
    case VKNN_CONV_KERNEL_WINOGRAD_F2X3:
    case VKNN_CONV_KERNEL_WINOGRAD_F4X3: return vknn_lower_conv_winograd(graph, t, g, c, out_list);
    default: return VKNN_STATUS_GENERAL_FAILURE;
  }
}
