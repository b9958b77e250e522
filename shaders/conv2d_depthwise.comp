#version 450
// Variants (built by embed_shaders.py; "name: defines"):
// variant conv2d_depthwise_f32: -DELEM_F32
// variant conv2d_depthwise_f16: -DELEM_F16
// variant conv2d_depthwise_f32_texel: -DELEM_F32 -DTEXEL_READS
// variant conv2d_depthwise_f16_texel: -DELEM_F16 -DTEXEL_READS requires=shaderStorageImageExtendedFormats
// variant conv2d_depthwise_f16_arith: -DELEM_F16 -DF16_ARITH requires=shaderFloat16
// variant conv2d_depthwise_f16_arith_texel: -DELEM_F16 -DF16_ARITH -DTEXEL_READS requires=shaderFloat16 requires=shaderStorageImageExtendedFormats
// variant conv2d_depthwise_q8: -DELEM_Q8
// variant conv2d_depthwise_q8_filter_i8: -DELEM_Q8 -DFILTER_I8
// variant conv2d_depthwise_q8s: -DELEM_Q8S
// variant conv2d_depthwise_q8_texel: -DELEM_Q8 -DTEXEL_READS requires=shaderStorageImageExtendedFormats
// variant conv2d_depthwise_q8_filter_i8_texel: -DELEM_Q8 -DFILTER_I8 -DTEXEL_READS requires=shaderStorageImageExtendedFormats
// variant conv2d_depthwise_q8s_texel: -DELEM_Q8S -DTEXEL_READS requires=shaderStorageImageExtendedFormats
// DEPTHWISE_CONV_2D, NHWC, depth multiplier 1, dilation 1: every output
// channel convolves its own input channel.
//
// Each invocation computes OUT_BLOCK neighbouring output pixels of one row
// for 4 channels (a vec4). Per window row it loads the input columns the
// OUT_BLOCK windows span once ((OUT_BLOCK - 1) * STRIDE_X + K_W of them,
// instead of OUT_BLOCK * K_W) and the K_W filter taps once for all of them.
// A workgroup works on one block of 4 channels. Taps in the padding read
// nothing: their index is clamped into the tensor and the value replaced by
// zero, so lanes do not diverge.
// Variants: ELEM_F32, ELEM_F16 (float16 storage, float32 arithmetic);
// F16_ARITH (float16 storage and arithmetic within a window row, the rows'
// sums added in float32; the host picks it for rows of at most 32 taps,
// DEPTHWISE_F16_SPAN in conv2d_select.c); TEXEL_READS reads input and filter through storage texel buffers
// (operand_reads.glsl). The quantized ones, ELEM_Q8 (FILTER_I8: an int8
// per-channel filter) and ELEM_Q8S, sum (input - zero point) * (filter -
// zero point) in int32 and requantize as the direct kernel (conv2d.comp):
// the same sums, so the same bits.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "common.glsl"
#include "elem_types.glsl"
#if defined(QUANTIZED)
#include "fixed_point.glsl"
#include "quant_reads.glsl"
#else
#include "operand_reads.glsl"
#endif

layout(constant_id = 1) const uint K_H = 3;
layout(constant_id = 2) const uint K_W = 3;
layout(constant_id = 3) const uint STRIDE_X = 1;
layout(constant_id = 4) const uint STRIDE_Y = 1;
layout(constant_id = 5) const uint OUT_BLOCK = 4; // output pixels along x per invocation
layout(constant_id = 6) const uint VEC4_IO = 1;   // channels % 4 == 0: whole vec4 loads
// 1: the output is a slice of a larger tensor (output_slice.glsl); with
// VEC4_IO, out_row, out_stride and out_offset are multiples of 4.
layout(constant_id = 7) const uint SLICED = 0;
// Tensors in the packed layout (docs/architecture.md, "Packed arena
// layout"): bit 0 the input, bit 1 the output lie in planes of 4 channels,
// [batch][channel / 4][row][column][4], instead of NHWC. Only with VEC4_IO,
// and bit 1 only with SLICED == 0. Indexes stay element indexes whose
// quarter is the vec4's.
layout(constant_id = 8) const uint PACKED_LAYOUT = 0;
const bool INPUT_PACKED = (PACKED_LAYOUT & 1u) != 0;
const bool OUTPUT_PACKED = (PACKED_LAYOUT & 2u) != 0;

#if defined(ELEM_F16)
#define STORAGE_VEC4 f16vec4
#else
#define STORAGE_VEC4 vec4
#endif

// Input (binding 0) and filter (binding 1); READ4 only where VEC4_IO == 1.
#if defined(QUANTIZED)
#define ACC4_T ivec4
#define BIAS_T int
QUANT_INPUT(0, x)
QUANT_FILTER(1, w)
#define VALUE1(name, i) READ1_Q(name, i)
#define INPUT4(i) READ4_INPUT(x, i)
#define FILTER4(i) READ4_FILTER(w, i)
#else
#define ACC4_T ARITH_VEC4
#define BIAS_T STORAGE_T
OPERAND(0, Input, x)
OPERAND(1, Filter, w)
#define VALUE1(name, i) READ1_ARITH(name, i)
#define INPUT4(i) READ4_ARITH(x, i)
#define FILTER4(i) READ4_ARITH(w, i)
#endif
layout(std430, set = 0, binding = 2) readonly buffer Bias { BIAS_T bias[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Output { STORAGE_T y[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Output4 { STORAGE_VEC4 y4[]; };
#if defined(QUANTIZED)
// Per channel: input_scale * filter_scale[c] / output_scale as a fixed-point
// multiplier (mantissa, exponent), as for conv2d.comp.
layout(std430, set = 0, binding = 4) readonly buffer Multiplier { ivec2 multiplier[]; };
#endif

layout(push_constant) uniform Params {
    uint in_h, in_w, channels, out_h, out_w;
    int pad_left, pad_top;
    uint x_blocks;       // ceil(out_w / OUT_BLOCK)
    uint items;          // batches * out_h * x_blocks
    uint channel_blocks; // ceil(channels / 4)
    int in_zero_point, filter_zero_point, out_zero_point; // quantized variants
    uint out_row, out_stride, out_offset; // SLICED
    float act_min, act_max;
} p;

#include "output_slice.glsl"

const uint SPAN = (OUT_BLOCK - 1) * STRIDE_X + K_W; // input columns of one row

// Channels c..c+3 at element index i (a multiple of channels plus c); the
// quantized variants less the zero point. Past the last channel the last
// one repeats; it is never stored.
ACC4_T load4(uint i, uint c) {
    ACC4_T v;
    if (VEC4_IO == 1) {
        v = INPUT4(i / 4);
    } else {
        uint last = i - c + p.channels - 1;
        v = ACC4_T(VALUE1(x, i), VALUE1(x, min(i + 1, last)), VALUE1(x, min(i + 2, last)),
                   VALUE1(x, min(i + 3, last)));
    }
#if defined(QUANTIZED)
    v -= p.in_zero_point;
#endif
    return v;
}

ACC4_T load_filter4(uint tap, uint c) {
    uint i = tap * p.channels + c;
    ACC4_T v;
    if (VEC4_IO == 1) {
        v = FILTER4(i / 4);
    } else {
        uint last = tap * p.channels + p.channels - 1;
        v = ACC4_T(VALUE1(w, i), VALUE1(w, min(i + 1, last)), VALUE1(w, min(i + 2, last)),
                   VALUE1(w, min(i + 3, last)));
    }
#if defined(QUANTIZED)
    v -= p.filter_zero_point;
#endif
    return v;
}

#if defined(QUANTIZED)
// Sums of channels c..c+3 requantized, clamped and stored (bias added).
void store_quantized(uint i, uint c, ivec4 sums) {
    for (uint k = 0; k < 4; ++k) {
        if (c + k >= p.channels) break;
        ivec2 m = multiplier[c + k];
        int q = multiply_by_quantized_multiplier(sums[k] + bias[c + k], m.x, m.y) + p.out_zero_point;
        y[slice_index(i + k)] = STORAGE_T(clamp(q, int(p.act_min), int(p.act_max)));
    }
}
#else
void store4(uint i, uint c, vec4 v) {
    if (VEC4_IO == 1) {
        y4[slice_index(i) / 4] = STORAGE_VEC4(v);
        return;
    }
    for (uint k = 0; k < 4; ++k)
        if (c + k < p.channels) y[slice_index(i + k)] = STORAGE_T(v[k]);
}
#endif

void main() {
    uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint tile = group / p.channel_blocks;
    uint c = (group % p.channel_blocks) * 4;
    // Groups past the last tile (the grid is 2-D) have nothing to do.
    if (tile * gl_WorkGroupSize.x >= p.items) return;
    uint item = tile * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
    bool writes = item < p.items;
    item = min(item, p.items - 1);
    uint ox0 = (item % p.x_blocks) * OUT_BLOCK;
    uint row = item / p.x_blocks;
    uint oy = row % p.out_h;
    uint n = row / p.out_h;

    ACC4_T acc[OUT_BLOCK];
    for (uint j = 0; j < OUT_BLOCK; ++j) acc[j] = ACC4_T(0);
#if defined(F16_ARITH)
    // acc holds one window row's float16 sums; total the rows'.
    vec4 total[OUT_BLOCK];
    for (uint j = 0; j < OUT_BLOCK; ++j) total[j] = vec4(0);
#define TOTAL4(j) total[j]
#else
#define TOTAL4(j) acc[j]
#endif
    int ix0 = int(ox0 * STRIDE_X) - p.pad_left;
    // Packed: the first pixel of this image's plane of channels c..c+3.
    uint in_plane = (n * (p.channels / 4) + c / 4) * p.in_h * p.in_w;
    uint out_plane = (n * (p.channels / 4) + c / 4) * p.out_h * p.out_w;
    // Rows unrolled (where the compiler unrolls the loops inside them): the
    // block's sums are then no loop variables, which lavapipe writes under
    // the lanes' mask on every iteration (docs/perf.md, "Cheaper epilogues").
    [[unroll]] for (uint ky = 0; ky < K_H; ++ky) {
        int iy = int(oy * STRIDE_Y + ky) - p.pad_top;
        bool row_inside = iy >= 0 && iy < int(p.in_h);
        uint row_base = INPUT_PACKED ? in_plane + uint(clamp(iy, 0, int(p.in_h) - 1)) * p.in_w
                                     : (n * p.in_h + uint(clamp(iy, 0, int(p.in_h) - 1))) * p.in_w;
        ACC4_T taps[K_W];
        for (uint kx = 0; kx < K_W; ++kx) taps[kx] = load_filter4(ky * K_W + kx, c);
        for (uint col = 0; col < SPAN; ++col) {
            int ix = ix0 + int(col);
            bool inside = row_inside && ix >= 0 && ix < int(p.in_w);
            uint pixel = row_base + uint(clamp(ix, 0, int(p.in_w) - 1));
            uint i = INPUT_PACKED ? 4 * pixel : pixel * p.channels + c;
            ACC4_T v = inside ? load4(i, c) : ACC4_T(0);
            for (uint kx = 0; kx < K_W; ++kx) {
                // Output j reads this column at tap kx when col == j * STRIDE_X + kx.
                if (col < kx || (col - kx) % STRIDE_X != 0) continue;
                uint j = (col - kx) / STRIDE_X;
                if (j < OUT_BLOCK) acc[j] += v * taps[kx];
            }
        }
#if defined(F16_ARITH)
        for (uint j = 0; j < OUT_BLOCK; ++j) {
            total[j] += vec4(acc[j]);
            acc[j] = ACC4_T(0);
        }
#endif
    }
    if (!writes) return;
#if defined(QUANTIZED)
    for (uint j = 0; j < OUT_BLOCK; ++j) {
        uint ox = ox0 + j;
        if (ox >= p.out_w) break;
        store_quantized(((n * p.out_h + oy) * p.out_w + ox) * p.channels + c, c, acc[j]);
    }
#else
    vec4 b = vec4(float(bias[c]), float(bias[min(c + 1, p.channels - 1)]),
                  float(bias[min(c + 2, p.channels - 1)]), float(bias[min(c + 3, p.channels - 1)]));
    for (uint j = 0; j < OUT_BLOCK; ++j) {
        uint ox = ox0 + j;
        if (ox >= p.out_w) break;
        uint i = OUTPUT_PACKED ? 4 * (out_plane + oy * p.out_w + ox)
                               : ((n * p.out_h + oy) * p.out_w + ox) * p.channels + c;
        store4(i, c, clamp(TOTAL4(j) + b, p.act_min, p.act_max));
    }
#endif
}
