#version 450
// Variants (built by embed_shaders.py; "name: defines"):
// variant pool2d_f32: -DELEM_F32
// variant pool2d_f16: -DELEM_F16
// variant pool2d_q8: -DELEM_Q8
// variant pool2d_q8s: -DELEM_Q8S
// AVERAGE_POOL_2D, MAX_POOL_2D, L2_POOL_2D over NHWC or NCHW tensors, with a
// fused activation. One invocation computes one output element. Quantized
// pooling works on the codes: NNAPI requires equal input and output encodings.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "elem_types.glsl"

layout(constant_id = 1) const int NCHW = 0;
layout(constant_id = 2) const int OP = 0;  // 0 average, 1 max, 2 L2

layout(std430, set = 0, binding = 0) readonly buffer Input { STORAGE_T x[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Output { STORAGE_T y[]; };

layout(push_constant) uniform Params {
    uint in_h, in_w, channels;
    uint batches, out_h, out_w;
    uint k_w, k_h, stride_x, stride_y;
    int pad_left, pad_top;
    float act_min, act_max;
} p;

float load(uint i) {
#if defined(QUANTIZED)
    return float(int(x[i]));
#else
    return float(x[i]);
#endif
}

uint offset(uint n, uint yy, uint xx, uint c, uint h, uint w) {
    if (NCHW == 1) return ((n * p.channels + c) * h + yy) * w + xx;
    return ((n * h + yy) * w + xx) * p.channels + c;
}

void main() {
    uint index = flat_invocation_index();
    if (index >= p.batches * p.out_h * p.out_w * p.channels) return;
    uint c = index % p.channels;
    uint t = index / p.channels;
    uint ox = t % p.out_w;
    t /= p.out_w;
    uint oy = t % p.out_h;
    uint n = t / p.out_h;
    int y0 = int(oy * p.stride_y) - p.pad_top;
    int x0 = int(ox * p.stride_x) - p.pad_left;
    uint y_begin = uint(max(y0, 0)), y_end = uint(min(y0 + int(p.k_h), int(p.in_h)));
    uint x_begin = uint(max(x0, 0)), x_end = uint(min(x0 + int(p.k_w), int(p.in_w)));
    float acc = OP == 1 ? -3.402823466e38 : 0.0;
    float count = 0.0;
    for (uint iy = y_begin; iy < y_end; ++iy) {
        for (uint ix = x_begin; ix < x_end; ++ix) {
            float v = load(offset(n, iy, ix, c, p.in_h, p.in_w));
            if (OP == 0) acc += v;
            else if (OP == 1) acc = max(acc, v);
            else acc += v * v;
            count += 1.0;
        }
    }
    float r = acc;
    if (OP == 0) r = acc / max(count, 1.0);
    if (OP == 2) r = sqrt(acc / max(count, 1.0));
#if defined(QUANTIZED)
    if (OP == 0) {
        // The reference's integer average, halves away from zero: a GPU
        // division need not be correctly rounded, so no float quotient.
        int sum = int(acc), n = max(int(count), 1);
        r = float(sum >= 0 ? (sum + n / 2) / n : -((n / 2 - sum) / n));
    } else {
        r = round_half_away(r);
    }
    y[offset(n, oy, ox, c, p.out_h, p.out_w)] = STORAGE_T(int(clamp(r, p.act_min, p.act_max)));
#else
    y[offset(n, oy, ox, c, p.out_h, p.out_w)] = STORAGE_T(clamp(r, p.act_min, p.act_max));
#endif
}
