#version 450
// Variants (built by embed_shaders.py; "name: defines"):
// variant softmax_f32: -DELEM_F32
// variant softmax_f16: -DELEM_F16
// variant softmax_q8: -DELEM_Q8
// variant softmax_q8s: -DELEM_Q8S
// SOFTMAX along one axis: out = exp(beta * (x - max)) / sum. The tensor is
// seen as [outer, axis, inner]; one invocation handles one (outer, inner) row.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "elem_types.glsl"

layout(std430, set = 0, binding = 0) readonly buffer Input { STORAGE_T x[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Output { STORAGE_T y[]; };

layout(push_constant) uniform Params {
    uint outer, axis, inner;
    float beta;
    float in_scale; int in_zero_point;
    float out_scale; int out_zero_point;
    float q_min, q_max;
} p;

float load(uint i) {
#if defined(QUANTIZED)
    return float(int(x[i]) - p.in_zero_point) * p.in_scale;
#else
    return float(x[i]);
#endif
}

void main() {
    uint row = flat_invocation_index();
    if (row >= p.outer * p.inner) return;
    uint base = (row / p.inner) * p.axis * p.inner + row % p.inner;
    float m = -3.402823466e38;
    for (uint a = 0; a < p.axis; ++a) m = max(m, load(base + a * p.inner));
    float sum = 0.0;
    for (uint a = 0; a < p.axis; ++a) sum += exp((load(base + a * p.inner) - m) * p.beta);
    for (uint a = 0; a < p.axis; ++a) {
        float v = exp((load(base + a * p.inner) - m) * p.beta) / sum;
#if defined(QUANTIZED)
        float q = round_half_away(v / p.out_scale) + float(p.out_zero_point);
        y[base + a * p.inner] = STORAGE_T(int(clamp(q, p.q_min, p.q_max)));
#else
        y[base + a * p.inner] = STORAGE_T(v);
#endif
    }
}
