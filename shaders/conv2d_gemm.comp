#version 450
// Variants (built by embed_shaders.py; "name: defines"):
// variant conv2d_gemm_f32: -DELEM_F32
// variant conv2d_gemm_f16: -DELEM_F16
// variant conv2d_gemm_f32_texel: -DELEM_F32 -DTEXEL_READS
// variant conv2d_gemm_f16_texel: -DELEM_F16 -DTEXEL_READS requires=shaderStorageImageExtendedFormats
// variant conv2d_gemm_f32_residual: -DELEM_F32 -DRESIDUAL
// variant conv2d_gemm_f16_residual: -DELEM_F16 -DRESIDUAL
// variant conv2d_gemm_f32_texel_residual: -DELEM_F32 -DTEXEL_READS -DRESIDUAL
// variant conv2d_gemm_f16_texel_residual: -DELEM_F16 -DTEXEL_READS -DRESIDUAL requires=shaderStorageImageExtendedFormats
// variant conv2d_gemm_f16_arith: -DELEM_F16 -DF16_ARITH requires=shaderFloat16
// variant conv2d_gemm_f16_arith_texel: -DELEM_F16 -DF16_ARITH -DTEXEL_READS requires=shaderFloat16 requires=shaderStorageImageExtendedFormats
// variant conv2d_gemm_f16_arith_residual: -DELEM_F16 -DF16_ARITH -DRESIDUAL requires=shaderFloat16
// variant conv2d_gemm_f16_arith_texel_residual: -DELEM_F16 -DF16_ARITH -DTEXEL_READS -DRESIDUAL requires=shaderFloat16 requires=shaderStorageImageExtendedFormats
// variant conv2d_gemm_q8: -DELEM_Q8
// variant conv2d_gemm_q8_filter_i8: -DELEM_Q8 -DFILTER_I8
// variant conv2d_gemm_q8s: -DELEM_Q8S
// variant conv2d_gemm_q8_texel: -DELEM_Q8 -DTEXEL_READS requires=shaderStorageImageExtendedFormats
// variant conv2d_gemm_q8_filter_i8_texel: -DELEM_Q8 -DFILTER_I8 -DTEXEL_READS requires=shaderStorageImageExtendedFormats
// variant conv2d_gemm_q8s_texel: -DELEM_Q8S -DTEXEL_READS requires=shaderStorageImageExtendedFormats
// variant conv2d_gemm_f32_subgroup: -DELEM_F32 -DSUBGROUP_FILTER requires=subgroupShuffle
// variant conv2d_gemm_f16_subgroup: -DELEM_F16 -DSUBGROUP_FILTER requires=subgroupShuffle
// variant conv2d_gemm_f32_texel_subgroup: -DELEM_F32 -DTEXEL_READS -DSUBGROUP_FILTER requires=subgroupShuffle
// variant conv2d_gemm_f16_texel_subgroup: -DELEM_F16 -DTEXEL_READS -DSUBGROUP_FILTER requires=subgroupShuffle requires=shaderStorageImageExtendedFormats
// variant conv2d_gemm_f32_residual_subgroup: -DELEM_F32 -DRESIDUAL -DSUBGROUP_FILTER requires=subgroupShuffle
// variant conv2d_gemm_f16_residual_subgroup: -DELEM_F16 -DRESIDUAL -DSUBGROUP_FILTER requires=subgroupShuffle
// variant conv2d_gemm_f32_texel_residual_subgroup: -DELEM_F32 -DTEXEL_READS -DRESIDUAL -DSUBGROUP_FILTER requires=subgroupShuffle
// variant conv2d_gemm_f16_texel_residual_subgroup: -DELEM_F16 -DTEXEL_READS -DRESIDUAL -DSUBGROUP_FILTER requires=subgroupShuffle requires=shaderStorageImageExtendedFormats
// variant conv2d_gemm_q8_subgroup: -DELEM_Q8 -DSUBGROUP_FILTER requires=subgroupShuffle
// variant conv2d_gemm_q8_filter_i8_subgroup: -DELEM_Q8 -DFILTER_I8 -DSUBGROUP_FILTER requires=subgroupShuffle
// variant conv2d_gemm_q8s_subgroup: -DELEM_Q8S -DSUBGROUP_FILTER requires=subgroupShuffle
// variant conv2d_gemm_q8_texel_subgroup: -DELEM_Q8 -DTEXEL_READS -DSUBGROUP_FILTER requires=subgroupShuffle requires=shaderStorageImageExtendedFormats
// variant conv2d_gemm_q8_filter_i8_texel_subgroup: -DELEM_Q8 -DFILTER_I8 -DTEXEL_READS -DSUBGROUP_FILTER requires=subgroupShuffle requires=shaderStorageImageExtendedFormats
// variant conv2d_gemm_q8s_texel_subgroup: -DELEM_Q8S -DTEXEL_READS -DSUBGROUP_FILTER requires=subgroupShuffle requires=shaderStorageImageExtendedFormats
// variant conv2d_gemm_q8_idot: -DELEM_Q8 -DINTEGER_DOT requires=shaderIntegerDotProduct
// variant conv2d_gemm_q8_filter_i8_idot: -DELEM_Q8 -DFILTER_I8 -DINTEGER_DOT requires=shaderIntegerDotProduct
// variant conv2d_gemm_q8s_idot: -DELEM_Q8S -DINTEGER_DOT requires=shaderIntegerDotProduct
// Float CONV_2D, GROUPED_CONV_2D, TRANSPOSE_CONV_2D (NHWC) and
// FULLY_CONNECTED as a matrix product: output [pixels x out_c] =
// im2col(input) [pixels x k_h*k_w*in_c] * filter^T, the filter in NNAPI's
// [out_c][k_h][k_w][in_c] layout. The im2col matrix is never stored: each
// invocation reads its pixels' windows where they lie (implicit GEMM); a
// pointwise convolution (1x1, stride 1, no padding) or a fully connected
// layer reads plain rows. With groups, IN_C is a group's input channels (the
// reduction per tap) and p.in_c the whole pixel's; a workgroup's channel
// block lies inside one group (the host picks CH_BLOCK dividing
// cout_per_group) and reads that group's input channels.
//
// Work split: a workgroup owns CH_BLOCK output channels (the same for all its
// invocations, so every filter load is uniform across the group: one load
// broadcast to every lane) and local_size * PIX_BLOCK pixels. Each invocation
// keeps a PIX_BLOCK x CH_BLOCK register block of sums; a 4-channel input slice
// is loaded once (one vec4 load where in_c % 4 == 0) and used for CH_BLOCK
// output channels, a filter slice once for PIX_BLOCK pixels.
// K_SPLIT > 1: the workgroup's invocations form K_SPLIT slices of LANES;
// the invocations at one position of every slice own the same register
// block, slice s summing input channels s, s + K_SPLIT, ... (in steps of 4
// with vec4 loads) of every tap, and slice 0 adds the other slices' sums
// from shared memory before the epilogue (quantized: exact int32 sums, whose
// additions in any order give the same bits). A layer of few pixels and long
// reductions (14x14 at 512 channels: 3136 register blocks) thereby fills a
// device that runs far more invocations at once; the host picks K_SPLIT
// from the device's width (conv2d_select.c).
// Variants: ELEM_F32, ELEM_F16 (float16 storage, float32 arithmetic);
// F16_ARITH (float16 storage and products: four-channel dot products summed
// in float16 over F16_SPAN input channels at most, those sums added in
// float32, so the error stays that of a short float16 sum however long the
// reduction); TEXEL_READS reads input and filter through storage texel buffers
// (operand_reads.glsl). RESIDUAL (float): a fused ADD: a tensor of the
// output's shape (binding 4) is added to each result after the activation,
// the sum clamped to [res_min, res_max] (the ADD's activation); the output
// is then no slice. The quantized ones, ELEM_Q8 (uint8 input and
// filter; FILTER_I8: an int8 per-channel filter) and ELEM_Q8S (int8), sum
// (input - zero point) * (filter - zero point) and requantize as the direct
// kernel does (conv2d.comp, fixed_point.glsl); four 8-bit channels are one
// 32-bit load. Their products run as float32 multiply-adds, which on most
// devices (lavapipe among them) outpace int32 multiplies and adds: each
// factor lies in [-255, 255], so a product is an integer of at most 65025
// and a float32 sum of up to 256 of them stays below 2^24, where every
// integer is exact in any order of additions. The float partial sums are
// moved into int32 sums every EXACT_SPAN products, so the result is the
// reference's int32 sum bit for bit. INTEGER_DOT (devices with packed 8-bit
// dot products, where IN_C % 4 == 0) sums the raw 8-bit words instead:
// sum((x - zx)(w - zw)) = sum(x w) - zw sum(x) - zx sum(w) + n zx zw, each
// sum one packed dot product per four channels (integer_dot.glsl); a
// padding tap reads zx in every byte, which adds nothing, so n is TAP_SIZE.
// The int32 sums wrap as the reference's do: the same bits.
// SUBGROUP_FILTER (CH_BLOCK a multiple of 8, K_SPLIT 1, whole subgroups of a
// multiple of 8 invocations): the block's filter values of a step are the
// same for every lane, and a load of them is one per lane wherever the
// device cannot tell (lavapipe gathers every lane's copy). Here each lane of
// 8 loads one channel's slice of every 8 channels and meets the others by
// rotating the 8 slices across the lanes (subgroup_share.glsl): CH_BLOCK / 8
// filter loads a step instead of CH_BLOCK (docs/perf.md, "Filter loads
// shared across a subgroup"). Each lane then sums its 8 channels in its own
// rotated order of the registers (channel_order puts them back before the
// epilogue): per channel the same products in the same order.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "common.glsl"
#include "elem_types.glsl"
#if defined(QUANTIZED)
#include "fixed_point.glsl"
#include "quant_reads.glsl"
#if defined(INTEGER_DOT)
#include "integer_dot.glsl"
#endif
#else
#include "operand_reads.glsl"
#endif
#if defined(SUBGROUP_FILTER)
#include "subgroup_share.glsl"
#endif

#if defined(ELEM_F16)
#define OUTPUT_VEC4 f16vec4
#else
#define OUTPUT_VEC4 vec4
#endif

#if defined(QUANTIZED)
#define BIAS_T int
#else
#define BIAS_T STORAGE_T
#endif

layout(constant_id = 1) const uint CH_BLOCK = 8;  // output channels per invocation
layout(constant_id = 2) const uint PIX_BLOCK = 1; // pixels per invocation
layout(constant_id = 3) const uint IN_C = 4;      // input channels per group
layout(constant_id = 4) const uint K_H = 1;
layout(constant_id = 5) const uint K_W = 1;
// How a pixel finds its taps' input pixels (one constant: a kernel has at
// most 8):
// TAPS_WINDOW: a convolution window, input (oy * stride + ky * dilation - pad).
// TAPS_POINTWISE: the input pixel at the output's own index (1x1 window,
//   stride 1, no padding; FULLY_CONNECTED): no window arithmetic, no bounds.
// TAPS_TRANSPOSED: TRANSPOSE_CONV_2D as a gather: input row
//   (oy + pad_top - ky * dilation) / stride where that divides evenly (and
//   the same for columns); other taps contribute nothing, like padding.
const uint TAPS_WINDOW = 0;
const uint TAPS_POINTWISE = 1;
const uint TAPS_TRANSPOSED = 2;
layout(constant_id = 6) const uint TAPS = TAPS_POINTWISE;
// 1: out_c % 4 == 0 (and CH_BLOCK a multiple of 4): results are stored four
// channels at a time, a quarter of the store instructions (float variants).
layout(constant_id = 7) const uint VEC4_STORES = 0;
// 1: the output is a slice of a larger tensor (output_slice.glsl); with
// VEC4_STORES, out_row, out_stride and out_offset are multiples of 4.
layout(constant_id = 8) const uint SLICED = 0;
layout(constant_id = 9) const uint K_SPLIT = 1;
// 1: the filter is packed by 8 output channels (the host's
// vknn_conv_pack_filter_by_8, for the SUBGROUP_FILTER variants): the values
// 8 lanes load in one step (one slice of each of 8 channels) lie side by
// side, rather than a filter row apart (a 512-channel row is 2 KiB, so the
// rows of a block fall into the same few L1 sets and evict each other).
layout(constant_id = 10) const uint PACKED_FILTER = 0;
const uint LANES = gl_WorkGroupSize.x / K_SPLIT; // invocations per slice

// Input (binding 0) and filter (binding 1); READ4 only where IN_C % 4 == 0
// (then p.in_c and every group's first channel are multiples of 4 too), so
// every vec4 index is a whole multiple of 4 elements from the start.
#if defined(QUANTIZED)
QUANT_INPUT(0, x)
QUANT_FILTER(1, w)
#define READ4_X(i) READ4_INPUT(x, i)
#define READ4_W(i) READ4_FILTER(w, i)
#define READ1_X(i) READ1_Q(x, i)
#define READ1_W(i) READ1_Q(w, i)
#else
OPERAND(0, Input, x)
OPERAND(1, Filter, w)
#define READ4_X(i) READ4(x, i)
#define READ4_W(i) READ4(w, i)
#define READ1_X(i) READ1(x, i)
#define READ1_W(i) READ1(w, i)
#endif
layout(std430, set = 0, binding = 2) readonly buffer Bias { BIAS_T bias[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Output { STORAGE_T y[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Output4 { OUTPUT_VEC4 y4[]; };
#if defined(QUANTIZED)
// Per output channel: input_scale * filter_scale[c] / output_scale as a
// fixed-point multiplier (mantissa, exponent), as for conv2d.comp.
layout(std430, set = 0, binding = 4) readonly buffer Multiplier { ivec2 multiplier[]; };
#endif
#if defined(RESIDUAL)
layout(std430, set = 0, binding = 4) readonly buffer Residual { STORAGE_T residual[]; };
layout(std430, set = 0, binding = 4) readonly buffer Residual4 { OUTPUT_VEC4 residual4[]; };
#endif

layout(push_constant) uniform Params {
    uint in_h, in_w, out_h, out_w;
    uint in_c;           // elements per input pixel (IN_C times the groups)
    uint cout_per_group; // output channels per group (out_c without groups)
    uint pixels;         // batches * out_h * out_w
    uint out_c;
    uint channel_blocks; // ceil(out_c / CH_BLOCK)
    uint stride_x, stride_y, dilation_x, dilation_y;
    int pad_left, pad_top;
    int in_zero_point, filter_zero_point, out_zero_point; // quantized variants
    uint out_row, out_stride, out_offset; // SLICED
    float res_min, res_max; // RESIDUAL
    float act_min, act_max;
} p;

#include "output_slice.glsl"

const bool VEC4_LOADS = IN_C % 4 == 0;
const uint BLOCK = PIX_BLOCK * CH_BLOCK;
// Slices 1.. hand their sums to slice 0 (K_SPLIT above): one float per
// register block element, slice and lane, the lane innermost.
#if defined(QUANTIZED)
#define SUM_T int
#else
#define SUM_T float
#endif
shared SUM_T partial[K_SPLIT > 1 ? (K_SPLIT - 1) * BLOCK * LANES : 1];
const uint TAP_SIZE = K_H * K_W * IN_C; // filter elements per output channel

// Where the innermost sums are short-lived, FLUSH() moves them into the
// totals after every TAPS_PER_FLUSH taps, and within a tap of more channels
// every FLUSH_SPAN channels. Quantized: products summed exactly in float32
// before they move into the int32 sums (see above). F16_ARITH: float16 sums
// moved into float32 ones.
const uint EXACT_SPAN = 256;
const uint F16_SPAN = 32;
#if defined(F16_ARITH)
const uint FLUSH_SPAN = F16_SPAN;
#else
const uint FLUSH_SPAN = EXACT_SPAN;
#endif
const uint TAPS_PER_FLUSH = IN_C >= FLUSH_SPAN ? 1 : FLUSH_SPAN / IN_C;
const bool FLUSH_IN_TAP = IN_C > FLUSH_SPAN;
// The totals the innermost sums move into (sum[], beside acc[]): exact
// int32 sums (quantized) or float32 ones (F16_ARITH); plain float32 sums
// are their own totals.
#if defined(QUANTIZED)
#define TOTALS_T int
#define FLUSH() for (uint i = 0; i < BLOCK; ++i) { sum[i] += int(acc[i]); acc[i] = 0.0; }
#elif defined(F16_ARITH)
#define TOTALS_T float
#define FLUSH() for (uint i = 0; i < BLOCK; ++i) { sum[i] += float(acc[i]); acc[i] = ARITH_T(0); }
#else
#define FLUSH()
#endif
#if defined(TOTALS_T)
#define TOTALS_PARAM , inout TOTALS_T sum[BLOCK]
#define TOTALS_ARG , sum
#else
#define TOTALS_PARAM
#define TOTALS_ARG
#endif

// 1: the taps are unrolled, where the host finds them few (a window of at
// most 9 taps over at most 3 channels: MobileNet's first layer runs 27
// straight steps, its window arithmetic folded, rather than a loop whose
// sums lavapipe writes under a mask every tap) and the layer large enough
// to repay the longer compile (conv2d_select.c). A tap's channel loop that
// stays a loop keeps the taps rolled: a loop holding a loop never unrolls.
layout(constant_id = 11) const uint UNROLL_TAPS = 0;

// Tensors in the packed layout (docs/architecture.md, "Packed arena
// layout"): bit 0 the input, bit 1 the output (and the residual, of the
// output's shape) lie in planes of 4 channels, [batch][channel / 4][row]
// [column][4], instead of NHWC. The compiler sets a bit only where every
// kernel touching that tensor agrees, with vec4 loads (bit 0: no groups,
// TAPS_WINDOW or TAPS_POINTWISE) or vec4 stores into a tensor of its own
// (bit 1). Indexes stay element indexes whose quarter is the vec4's.
layout(constant_id = 12) const uint PACKED_LAYOUT = 0;
const bool INPUT_PACKED = (PACKED_LAYOUT & 1u) != 0;
const bool OUTPUT_PACKED = (PACKED_LAYOUT & 2u) != 0;

// Where a pixel's window starts: its batch's first row, and the input row
// and column of tap (0, 0) (negative inside the padding); transposed, the
// output row and column shifted by the padding.
struct Window {
    uint batch_row;
    int iy, ix;
};

Window window_of(uint pixel) {
    uint ox = pixel % p.out_w;
    uint t = pixel / p.out_w;
    uint oy = t % p.out_h;
    Window win;
    win.batch_row = (t / p.out_h) * p.in_h;
    if (TAPS == TAPS_TRANSPOSED) {
        win.iy = int(oy) + p.pad_top;
        win.ix = int(ox) + p.pad_left;
    } else {
        win.iy = int(oy * p.stride_y) - p.pad_top;
        win.ix = int(ox * p.stride_x) - p.pad_left;
    }
    return win;
}

// Transposed: the input index that position t (output plus padding, minus
// the tap) reads, or -1 where t falls between input rows or before the first.
int transposed_source(int t, uint stride) {
    return t >= 0 && t % int(stride) == 0 ? t / int(stride) : -1;
}

// Element index of the group's first input channel (ic0) under window tap
// (ky, kx), or -1 where the tap falls into the padding.
int tap_base(Window win, uint ky, uint kx, uint ic0) {
    int iy, ix;
    if (TAPS == TAPS_TRANSPOSED) {
        iy = transposed_source(win.iy - int(ky * p.dilation_y), p.stride_y);
        ix = transposed_source(win.ix - int(kx * p.dilation_x), p.stride_x);
    } else {
        iy = win.iy + int(ky * p.dilation_y);
        ix = win.ix + int(kx * p.dilation_x);
    }
    bool inside = iy >= 0 && iy < int(p.in_h) && ix >= 0 && ix < int(p.in_w);
    // Packed: the pixel's place in its batch's first plane (ic0 is 0).
    uint pixel = INPUT_PACKED ? (win.batch_row * (p.in_c / 4) + uint(iy)) * p.in_w + uint(ix)
                              : (win.batch_row + uint(iy)) * p.in_w + uint(ix);
    return inside ? int(INPUT_PACKED ? 4 * pixel : pixel * p.in_c + ic0) : -1;
}

// Element index (packed: 4 times the vec4 index) where the pointwise row of
// input pixel `pixel` (counted over the batches) starts: NHWC, or in its
// batch's first plane of 4 channels.
uint pointwise_row(uint pixel, uint ic0) {
    if (!INPUT_PACKED) return pixel * p.in_c + ic0;
    uint plane = p.in_h * p.in_w;
    return 4 * (pixel + (pixel / plane) * (p.in_c / 4 - 1) * plane);
}

// The vec4 index of input channels c..c+3 from base (a row or tap start,
// >= 0): packed, c / 4 planes on.
uint input_vec4(uint base, uint c) {
    return INPUT_PACKED ? base / 4 + (c / 4) * (p.in_h * p.in_w) : (base + c) / 4;
}

// The vec4 index of output channels oc..oc+3 of output pixel `pixel` (a
// tensor of its own where packed: SLICED is 0).
uint output_vec4(uint pixel, uint oc) {
    if (!OUTPUT_PACKED) return slice_index(pixel * p.out_c + oc) / 4;
    uint plane = p.out_h * p.out_w;
    return pixel + ((pixel / plane) * (p.out_c / 4 - 1) + oc / 4) * plane;
}

// Input channels c..c+3 (c + 3 < IN_C) at base (>= 0), zeros for a padding
// tap (-1); quantized, less the zero point (a padding tap adds nothing, as
// in the reference). The index is clamped rather than branched on, so lanes
// never diverge and never read outside the tensor.
ARITH_VEC4 load_input4(int base, uint c) {
#if defined(QUANTIZED)
    vec4 v = vec4(READ4_X(input_vec4(uint(max(base, 0)), c)) - p.in_zero_point);
#else
    ARITH_VEC4 v = READ4_ARITH(x, input_vec4(uint(max(base, 0)), c));
#endif
    return base < 0 ? ARITH_VEC4(0) : v;
}

ARITH_T load_input(int base, uint c) {
#if defined(QUANTIZED)
    float v = float(READ1_X(uint(max(base, 0)) + c) - p.in_zero_point);
#else
    ARITH_T v = READ1_ARITH(x, uint(max(base, 0)) + c);
#endif
    return base < 0 ? ARITH_T(0) : v;
}

ARITH_VEC4 load_filter4(uint i) {
#if defined(QUANTIZED)
    return vec4(READ4_W(i) - p.filter_zero_point);
#else
    return READ4_ARITH(w, i);
#endif
}

ARITH_T load_filter(uint i) {
#if defined(QUANTIZED)
    return float(READ1_W(i) - p.filter_zero_point);
#else
    return READ1_ARITH(w, i);
#endif
}

// Element index of output channel oc's filter value at tap (ky, kx), input
// channel c. Packed: units of FILTER_UNIT channels (the width of one load),
// ordered [oc / 8][tap][c / FILTER_UNIT][oc % 8][c % FILTER_UNIT].
const uint FILTER_UNIT = VEC4_LOADS ? 4 : 1;
uint filter_index(uint oc, uint ky, uint kx, uint c) {
    uint tap = ky * K_W + kx;
    if (PACKED_FILTER == 0) return oc * TAP_SIZE + tap * IN_C + c;
    uint unit = ((oc / 8) * (K_H * K_W) + tap) * (IN_C / FILTER_UNIT) + c / FILTER_UNIT;
    return (unit * 8 + oc % 8) * FILTER_UNIT + c % FILTER_UNIT;
}

#if defined(INTEGER_DOT)
// The word of input channels c..c+3 at base, or pad_word (the input zero
// point in every byte) for a padding tap.
uint input_word(int base, uint c, uint pad_word) {
    uint word = x4[input_vec4(uint(max(base, 0)), c)];
    return base < 0 ? pad_word : word;
}
#endif

#if defined(SUBGROUP_FILTER)
#if defined(F16_ARITH)
#error "float16 sums are never rotated back (channel_order)"
#endif
#if defined(QUANTIZED)
#define ROTATED_T int
#else
#define ROTATED_T ARITH_T
#endif
// With shared filter loads, sum k = 8 h + r of a pixel's block holds the
// block's channel 8 h + (lane + r) % 8 for this lane of 8 (subgroup_share.glsl):
// puts them back in channel order, 8 at a time, by rotating each 8 registers
// by the lane's place in three steps of 1, 2 and 4 (24 selects per 8 sums,
// where picking each channel's register among 8 took 56).
void channel_order(inout ROTATED_T sums[BLOCK]) {
    for (uint g = 0; g < BLOCK; g += 8) {
        for (uint bit = 0; bit < 3; ++bit) {
            uint step = 1u << bit;
            ROTATED_T was[8];
            for (uint r = 0; r < 8; ++r) was[r] = sums[g + r];
            bool shift = undo_rotation_step(step);
            for (uint c = 0; c < 8; ++c) sums[g + c] = shift ? was[(c - step) % 8] : was[c];
        }
    }
}
#endif

#if !defined(QUANTIZED)
// The bias each float sum of a pixel's block starts from (k: the sum's place
// in the block): channel oc0 + k, or with shared filter loads the channel
// that sum holds until channel_order, loaded as the filter is (a lane of 8
// loads one of 8 values and rotations hand them on); 0 in the slices past
// the first of a split reduction, so that slice 0 adds it once. Starting
// from the bias loads it once per channel rather than once per output.
void block_bias(out float bias_of[CH_BLOCK], uint oc0, uint oc_last, uint slice) {
#if defined(SUBGROUP_FILTER)
    for (uint h = 0; h < CH_BLOCK / 8; ++h) {
        float mine = float(bias[min(oc0 + 8 * h + lane_of_8(), oc_last)]);
        for (uint r = 0; r < 8; ++r) bias_of[8 * h + r] = rotated_by(mine, r);
    }
#else
    for (uint k = 0; k < CH_BLOCK; ++k) bias_of[k] = slice == 0 ? float(bias[min(oc0 + k, oc_last)]) : 0.0;
#endif
}
#endif

// Sums of the products of tap (ky, kx): every input channel of the slice
// for every pixel and channel of the block.
void add_tap(uint ky, uint kx, Window win[PIX_BLOCK], uint row[PIX_BLOCK], uint ic0, uint oc0,
             uint oc_last, uint slice, inout ARITH_T acc[BLOCK] TOTALS_PARAM) {
    int base[PIX_BLOCK];
    for (uint j = 0; j < PIX_BLOCK; ++j)
        base[j] = TAPS == TAPS_POINTWISE ? int(row[j]) : tap_base(win[j], ky, kx, ic0);
    // n counts the slice's steps in this tap, for the flushes.
    if (VEC4_LOADS) {
        for (uint c = 4 * slice, n = 1; c < IN_C; c += 4 * K_SPLIT, ++n) {
            ARITH_VEC4 xv[PIX_BLOCK];
            for (uint j = 0; j < PIX_BLOCK; ++j) xv[j] = load_input4(base[j], c);
#if defined(SUBGROUP_FILTER)
            ARITH_VEC4 mine[CH_BLOCK / 8];
            for (uint h = 0; h < CH_BLOCK / 8; ++h)
                mine[h] = load_filter4(filter_index(min(oc0 + 8 * h + lane_of_8(), oc_last), ky, kx, c) / 4);
#endif
            for (uint k = 0; k < CH_BLOCK; ++k) {
#if defined(SUBGROUP_FILTER)
                ARITH_VEC4 wv = rotated_by(mine[k / 8], k % 8);
#else
                ARITH_VEC4 wv = load_filter4(filter_index(min(oc0 + k, oc_last), ky, kx, c) / 4);
#endif
                for (uint j = 0; j < PIX_BLOCK; ++j) acc[j * CH_BLOCK + k] += dot(xv[j], wv);
            }
            if (FLUSH_IN_TAP && n % (FLUSH_SPAN / 4) == 0) { FLUSH() }
        }
    } else {
        for (uint c = slice, n = 1; c < IN_C; c += K_SPLIT, ++n) {
            ARITH_T xv[PIX_BLOCK];
            for (uint j = 0; j < PIX_BLOCK; ++j) xv[j] = load_input(base[j], c);
#if defined(SUBGROUP_FILTER)
            ARITH_T mine[CH_BLOCK / 8];
            for (uint h = 0; h < CH_BLOCK / 8; ++h)
                mine[h] = load_filter(filter_index(min(oc0 + 8 * h + lane_of_8(), oc_last), ky, kx, c));
#endif
            for (uint k = 0; k < CH_BLOCK; ++k) {
#if defined(SUBGROUP_FILTER)
                ARITH_T wv = rotated_by(mine[k / 8], k % 8);
#else
                ARITH_T wv = load_filter(filter_index(min(oc0 + k, oc_last), ky, kx, c));
#endif
                for (uint j = 0; j < PIX_BLOCK; ++j) acc[j * CH_BLOCK + k] += xv[j] * wv;
            }
            if (FLUSH_IN_TAP && n % FLUSH_SPAN == 0) { FLUSH() }
        }
    }
    if ((ky * K_W + kx + 1) % TAPS_PER_FLUSH == 0) { FLUSH() }
}

void main() {
    uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint channel_block = group % p.channel_blocks;
    uint tile = group / p.channel_blocks;
    uint oc0 = channel_block * CH_BLOCK;
    uint ic0 = (oc0 / p.cout_per_group) * IN_C; // the block's group's first input channel
    uint lane = K_SPLIT == 1 ? gl_LocalInvocationID.x : gl_LocalInvocationID.x % LANES;
    uint slice = K_SPLIT == 1 ? 0 : gl_LocalInvocationID.x / LANES;
    uint first_pixel = tile * LANES * PIX_BLOCK + lane;
    // Groups past the last tile (the grid is 2-D) have nothing to do.
    if (tile * LANES * PIX_BLOCK >= p.pixels) return;

    // Pixels past the end compute on the last pixel and store nothing;
    // channels past out_c repeat the last one and store nothing.
    Window win[PIX_BLOCK];
    uint row[PIX_BLOCK];
    for (uint j = 0; j < PIX_BLOCK; ++j) {
        uint pixel = min(first_pixel + j * LANES, p.pixels - 1);
        if (TAPS == TAPS_POINTWISE) row[j] = pointwise_row(pixel, ic0);
        else win[j] = window_of(pixel);
    }
    uint oc_last = p.out_c - 1;
    ARITH_T acc[BLOCK];
    for (uint i = 0; i < BLOCK; ++i) acc[i] = ARITH_T(0);
#if !defined(QUANTIZED)
    float bias_of[CH_BLOCK];
    block_bias(bias_of, oc0, oc_last, slice);
#endif
#if defined(QUANTIZED)
    int sum[BLOCK];
    for (uint i = 0; i < BLOCK; ++i) sum[i] = 0;
#elif defined(F16_ARITH)
    float sum[BLOCK];
    for (uint i = 0; i < BLOCK; ++i) sum[i] = bias_of[i % CH_BLOCK];
#else
    for (uint i = 0; i < BLOCK; ++i) acc[i] = bias_of[i % CH_BLOCK];
#endif
// A float result's whole sum.
#if defined(F16_ARITH)
#define TOTAL(i) sum[i]
#else
#define TOTAL(i) acc[i]
#endif
#if defined(INTEGER_DOT)
    if (VEC4_LOADS) {
        int x_sums[PIX_BLOCK], w_sums[CH_BLOCK];
        for (uint j = 0; j < PIX_BLOCK; ++j) x_sums[j] = 0;
        for (uint k = 0; k < CH_BLOCK; ++k) w_sums[k] = 0;
        uint pad_word = (uint(p.in_zero_point) & 0xffu) * ONES_4X8;
        for (uint ky = 0; ky < K_H; ++ky) {
            for (uint kx = 0; kx < K_W; ++kx) {
                int base[PIX_BLOCK];
                for (uint j = 0; j < PIX_BLOCK; ++j)
                    base[j] = TAPS == TAPS_POINTWISE ? int(row[j]) : tap_base(win[j], ky, kx, ic0);
                for (uint c = 4 * slice; c < IN_C; c += 4 * K_SPLIT) {
                    uint xv[PIX_BLOCK];
                    for (uint j = 0; j < PIX_BLOCK; ++j) {
                        xv[j] = input_word(base[j], c, pad_word);
                        x_sums[j] += dot_input_ones(xv[j]);
                    }
                    for (uint k = 0; k < CH_BLOCK; ++k) {
                        uint wv = w4[filter_index(min(oc0 + k, oc_last), ky, kx, c) / 4];
                        w_sums[k] += dot_filter_ones(wv);
                        for (uint j = 0; j < PIX_BLOCK; ++j) sum[j * CH_BLOCK + k] += dot_input_filter(xv[j], wv);
                    }
                }
            }
        }
        // Each slice corrects its own sums; the n zx zw term, once.
        int zx = p.in_zero_point, zw = p.filter_zero_point;
        int n = slice == 0 ? int(TAP_SIZE) : 0;
        for (uint j = 0; j < PIX_BLOCK; ++j)
            for (uint k = 0; k < CH_BLOCK; ++k)
                sum[j * CH_BLOCK + k] += n * zx * zw - zw * x_sums[j] - zx * w_sums[k];
    } else
#endif
    {
    if (UNROLL_TAPS == 1) {
        [[unroll]] for (uint ky = 0; ky < K_H; ++ky)
            [[unroll]] for (uint kx = 0; kx < K_W; ++kx)
                add_tap(ky, kx, win, row, ic0, oc0, oc_last, slice, acc TOTALS_ARG);
    } else {
        for (uint ky = 0; ky < K_H; ++ky)
            for (uint kx = 0; kx < K_W; ++kx)
                add_tap(ky, kx, win, row, ic0, oc0, oc_last, slice, acc TOTALS_ARG);
    }
    FLUSH()
    }
#if defined(SUBGROUP_FILTER) && defined(QUANTIZED)
    channel_order(sum);
#elif defined(SUBGROUP_FILTER)
    channel_order(acc);
#endif
// A result's whole sum (this slice's share of it before the reduction).
#if defined(QUANTIZED)
#define RESULT(i) sum[i]
#else
#define RESULT(i) TOTAL(i)
#endif
    if (K_SPLIT > 1) {
        if (slice > 0)
            for (uint i = 0; i < BLOCK; ++i) partial[((slice - 1) * BLOCK + i) * LANES + lane] = RESULT(i);
        barrier();
        if (slice > 0) return;
        for (uint s = 1; s < K_SPLIT; ++s)
            for (uint i = 0; i < BLOCK; ++i) RESULT(i) += partial[((s - 1) * BLOCK + i) * LANES + lane];
    }
#if defined(QUANTIZED)
    for (uint j = 0; j < PIX_BLOCK; ++j) {
        uint pixel = first_pixel + j * LANES;
        if (pixel >= p.pixels) continue;
        for (uint k = 0; k < CH_BLOCK; ++k) {
            uint oc = oc0 + k;
            if (oc >= p.out_c) break;
            ivec2 m = multiplier[oc];
            int q = multiply_by_quantized_multiplier(sum[j * CH_BLOCK + k] + bias[oc], m.x, m.y) +
                    p.out_zero_point;
            y[slice_index(pixel * p.out_c + oc)] = STORAGE_T(clamp(q, int(p.act_min), int(p.act_max)));
        }
    }
#else
    for (uint j = 0; j < PIX_BLOCK; ++j) {
        uint pixel = first_pixel + j * LANES;
        if (pixel >= p.pixels) continue;
        if (VEC4_STORES == 1) {
            // oc0 and out_c are multiples of 4: a group of 4 channels is
            // wholly inside or wholly past the end.
            for (uint k = 0; k < CH_BLOCK; k += 4) {
                uint oc = oc0 + k;
                if (oc >= p.out_c) break;
                vec4 v = vec4(TOTAL(j * CH_BLOCK + k), TOTAL(j * CH_BLOCK + k + 1),
                              TOTAL(j * CH_BLOCK + k + 2), TOTAL(j * CH_BLOCK + k + 3));
                v = clamp(v, p.act_min, p.act_max);
                uint at = output_vec4(pixel, oc);
#if defined(RESIDUAL)
                v = clamp(v + vec4(residual4[at]), p.res_min, p.res_max);
#endif
                y4[at] = OUTPUT_VEC4(v);
            }
            continue;
        }
        for (uint k = 0; k < CH_BLOCK; ++k) {
            uint oc = oc0 + k;
            if (oc >= p.out_c) break;
            float v = clamp(TOTAL(j * CH_BLOCK + k), p.act_min, p.act_max);
#if defined(RESIDUAL)
            v = clamp(v + float(residual[pixel * p.out_c + oc]), p.res_min, p.res_max);
#endif
            y[slice_index(pixel * p.out_c + oc)] = STORAGE_T(v);
        }
    }
#endif
}
