#version 450
// Variants (built by embed_shaders.py; "name: defines"):
// variant conv2d_f32: -DELEM_F32
// variant conv2d_f16: -DELEM_F16
// variant conv2d_q8: -DELEM_Q8
// variant conv2d_q8_filter_i8: -DELEM_Q8 -DFILTER_I8
// variant conv2d_q8s: -DELEM_Q8S
// 2-D convolution over NHWC or NCHW tensors: CONV_2D, GROUPED_CONV_2D,
// DEPTHWISE_CONV_2D, TRANSPOSE_CONV_2D and FULLY_CONNECTED (a 1x1
// convolution over a 1x1 image). One invocation computes one output element
// (or a block of OC_BLOCK channels).
// Variants: ELEM_F32, ELEM_F16, ELEM_Q8 (uint8 input and filter), ELEM_Q8
// with FILTER_I8 (uint8 input, int8 per-channel filter), ELEM_Q8S (int8).
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "elem_types.glsl"
#include "fixed_point.glsl"

layout(constant_id = 1) const int NCHW = 0;      // data layout of input and output
layout(constant_id = 2) const int DEPTHWISE = 0; // filter [1, kh, kw, out_c]
// Output channels per invocation (1 or 4): a block shares every input load.
// The host uses 4 only when a group's output channels (out_c without groups)
// are a multiple of 4, so a block lies inside one group, and not for depthwise.
layout(constant_id = 3) const uint OC_BLOCK = 1;
// 1: TRANSPOSE_CONV_2D as a gather: output row oy under tap ky reads input
// row (oy + pad_top - ky) / stride_y where that divides evenly (and the same
// for columns); other taps contribute nothing, like padding taps.
layout(constant_id = 4) const int TRANSPOSED = 0;
// 1: the output is a slice of a larger tensor (output_slice.glsl).
layout(constant_id = 5) const uint SLICED = 0;

#if defined(FILTER_I8) || defined(ELEM_Q8S)
#define FILTER_T int8_t
#else
#define FILTER_T STORAGE_T
#endif

#if defined(QUANTIZED)
#define BIAS_T int
#else
#define BIAS_T STORAGE_T
#endif

layout(std430, set = 0, binding = 0) readonly buffer Input { STORAGE_T x[]; };
layout(std430, set = 0, binding = 1) readonly buffer Filter { FILTER_T w[]; };
layout(std430, set = 0, binding = 2) readonly buffer Bias { BIAS_T bias[]; };
#if defined(QUANTIZED)
// Per output channel: input_scale * filter_scale[c] / output_scale as a
// fixed-point multiplier (mantissa, exponent), applied as the reference does.
layout(std430, set = 0, binding = 3) readonly buffer Multiplier { ivec2 multiplier[]; };
layout(std430, set = 0, binding = 4) writeonly buffer Output { STORAGE_T y[]; };
#else
layout(std430, set = 0, binding = 3) writeonly buffer Output { STORAGE_T y[]; };
#endif

layout(push_constant) uniform Params {
    uint in_h, in_w, in_c;
    uint batches, out_h, out_w, out_c;
    uint k_w, k_h, stride_x, stride_y, dilation_x, dilation_y;
    int pad_left, pad_top;
    uint cin_per_group, cout_per_group;
    float act_min, act_max;
    int in_zero_point, filter_zero_point, out_zero_point;
    uint out_row, out_stride, out_offset; // SLICED
} p;

#include "output_slice.glsl"

uint input_offset(uint n, uint yy, uint xx, uint c) {
    if (NCHW == 1) return ((n * p.in_c + c) * p.in_h + yy) * p.in_w + xx;
    return ((n * p.in_h + yy) * p.in_w + xx) * p.in_c + c;
}

uint output_offset(uint n, uint yy, uint xx, uint c) {
    if (NCHW == 1) return ((n * p.out_c + c) * p.out_h + yy) * p.out_w + xx;
    return ((n * p.out_h + yy) * p.out_w + xx) * p.out_c + c;
}

uint filter_offset(uint oc, uint ky, uint kx, uint icg) {
    if (DEPTHWISE == 1) return (ky * p.k_w + kx) * p.out_c + oc;
    return ((oc * p.k_h + ky) * p.k_w + kx) * p.cin_per_group + icg;
}

// The input row (or column) output position o reads under tap k, or -1
// where the tap falls into the padding or, transposed, between input rows.
int source_index(uint o, uint k, uint stride, uint dilation, int pad, uint extent) {
    int i;
    if (TRANSPOSED == 1) {
        int t = int(o) + pad - int(k * dilation);
        if (t < 0 || t % int(stride) != 0) return -1;
        i = t / int(stride);
    } else {
        i = int(o * stride + k * dilation) - pad;
    }
    return i < int(extent) ? i : -1;
}

void main() {
    uint index = flat_invocation_index();
    uint blocks = p.out_c / OC_BLOCK;
    if (index >= p.batches * p.out_h * p.out_w * blocks) return;
    uint oc0 = (index % blocks) * OC_BLOCK;
    uint t = index / blocks;
    uint ox = t % p.out_w;
    t /= p.out_w;
    uint oy = t % p.out_h;
    uint n = t / p.out_h;
    uint ic0 = (oc0 / p.cout_per_group) * p.cin_per_group;
#if defined(QUANTIZED)
    int acc[4] = int[4](0, 0, 0, 0);
#else
    float acc[4] = float[4](0.0, 0.0, 0.0, 0.0);
#endif
    for (uint ky = 0; ky < p.k_h; ++ky) {
        int iy = source_index(oy, ky, p.stride_y, p.dilation_y, p.pad_top, p.in_h);
        if (iy < 0) continue;
        for (uint kx = 0; kx < p.k_w; ++kx) {
            int ix = source_index(ox, kx, p.stride_x, p.dilation_x, p.pad_left, p.in_w);
            if (ix < 0) continue;
            for (uint icg = 0; icg < p.cin_per_group; ++icg) {
#if defined(QUANTIZED)
                int xv = int(x[input_offset(n, uint(iy), uint(ix), ic0 + icg)]) - p.in_zero_point;
                for (uint j = 0; j < OC_BLOCK; ++j)
                    acc[j] += xv * (int(w[filter_offset(oc0 + j, ky, kx, icg)]) - p.filter_zero_point);
#else
                float xv = float(x[input_offset(n, uint(iy), uint(ix), ic0 + icg)]);
                for (uint j = 0; j < OC_BLOCK; ++j)
                    acc[j] += xv * float(w[filter_offset(oc0 + j, ky, kx, icg)]);
#endif
            }
        }
    }
    for (uint j = 0; j < OC_BLOCK; ++j) {
        uint oc = oc0 + j;
        uint yi = slice_index(output_offset(n, oy, ox, oc));
#if defined(QUANTIZED)
        ivec2 m = multiplier[oc];
        int q = multiply_by_quantized_multiplier(acc[j] + bias[oc], m.x, m.y) + p.out_zero_point;
        y[yi] = STORAGE_T(clamp(q, int(p.act_min), int(p.act_max)));
#else
        y[yi] = STORAGE_T(clamp(acc[j] + float(bias[oc]), p.act_min, p.act_max));
#endif
    }
}
