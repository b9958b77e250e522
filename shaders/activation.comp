#version 450
// Elementwise activations: RELU, RELU1, RELU6 (a clamp whose bounds the host
// computes in the output's domain), LOGISTIC, TANH. Quantized variants
// dequantize, compute in float and requantize.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "elem_types.glsl"

layout(constant_id = 1) const int OP = 0;  // 0 clamp (RELU family), 1 LOGISTIC, 2 TANH

layout(std430, set = 0, binding = 0) readonly buffer Input { STORAGE_T x[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Output { STORAGE_T y[]; };

layout(push_constant) uniform Params {
    uint count;
    float in_scale; int in_zero_point;
    float out_scale; int out_zero_point;
    float lo, hi;  // clamp bounds in the output's domain
} p;

float activate(float v) {
    if (OP == 1) return 1.0 / (1.0 + exp(-v));
    if (OP == 2) return tanh(v);
    return v;
}

void main() {
    uint index = flat_invocation_index();
    if (index >= p.count) return;
#if defined(QUANTIZED)
    float v = activate(float(int(x[index]) - p.in_zero_point) * p.in_scale);
    float q = round_half_away(v / p.out_scale) + float(p.out_zero_point);
    y[index] = STORAGE_T(int(clamp(q, p.lo, p.hi)));
#else
    y[index] = STORAGE_T(clamp(activate(float(x[index])), p.lo, p.hi));
#endif
}
