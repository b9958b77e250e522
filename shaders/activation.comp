#version 450
// Variants (built by embed_shaders.py; "name: defines"):
// variant activation_f32: -DELEM_F32
// variant activation_f16: -DELEM_F16
// variant activation_q8: -DELEM_Q8
// variant activation_q8s: -DELEM_Q8S
// variant activation_i32: -DELEM_I32
// Elementwise unary operations: RELU, RELU1, RELU6 (a clamp whose bounds the
// host computes in the output's domain), LOGISTIC, TANH, ABS, EXP, LOG, SIN,
// SQRT, RSQRT, NEG, FLOOR, ELU, HARD_SWISH. Quantized variants dequantize,
// compute in float and requantize, except HARD_SWISH, which follows the
// reference's 16-bit fixed-point arithmetic; ELEM_I32 serves ABS and NEG.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "fixed_point.glsl"
#include "unary_math.glsl"

#if defined(ELEM_I32)
#define STORAGE_T int
#else
#include "elem_types.glsl"
#endif

layout(constant_id = 1) const int OP = 0;  // a code of unary_math.glsl

layout(std430, set = 0, binding = 0) readonly buffer Input { STORAGE_T x[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Output { STORAGE_T y[]; };

layout(push_constant) uniform Params {
    uint count;
    float in_scale; int in_zero_point;
    float out_scale; int out_zero_point;
    float lo, hi;  // clamp bounds in the output's domain
    float alpha;   // ELU
    // Quantized HARD_SWISH: 16-bit multipliers (mantissa, exponent) from the
    // input's scale / 128 to the "relu-ish" scale 3 / 32768 and to the
    // output's scale.
    int reluish_multiplier, reluish_exponent;
    int output_multiplier, output_exponent;
    float post_alpha[3];  // fused chain (float only)
} p;


#if defined(QUANTIZED)
// The output value before the clamp to the output type's range.
int hard_swish_quantized(int q) {
    int hires = (q - p.in_zero_point) * 128;
    int on_output_scale = rounding_doubling_high_mul_16(hires, p.output_multiplier);
    // hires rescaled so that 3.0 maps to 32768, saturating, then to [0, 1].
    int reluish = hires;
    if (p.reluish_exponent > 0) reluish = saturating_left_shift_16(reluish, p.reluish_exponent - 1);
    reluish = rounding_doubling_high_mul_16(reluish, p.reluish_multiplier);
    if (p.reluish_exponent > 0) reluish = saturating_left_shift_16(reluish, 1);
    if (p.reluish_exponent < 0) reluish = rounding_divide_by_pot(reluish, -p.reluish_exponent);
    reluish = (reluish + 32768) >> 1;
    int product = doubling_high_mul_16(reluish, on_output_scale);
    return rounding_divide_by_pot(product, -p.output_exponent) + p.out_zero_point;
}
#endif

void main() {
    uint index = flat_invocation_index();
    if (index >= p.count) return;
#if defined(ELEM_I32)
    int v = x[index];
    y[index] = OP == ABS ? abs(v) : -v;
#elif defined(QUANTIZED)
    if (OP == HARD_SWISH) {
        y[index] = STORAGE_T(clamp(hard_swish_quantized(int(x[index])), int(p.lo), int(p.hi)));
        return;
    }
    float v = unary_op(OP, float(int(x[index]) - p.in_zero_point) * p.in_scale, p.alpha);
    float q = round_half_away(v / p.out_scale) + float(p.out_zero_point);
    y[index] = STORAGE_T(int(clamp(q, p.lo, p.hi)));
#else
    float v = clamp(unary_op(OP, float(x[index]), p.alpha), p.lo, p.hi);
    y[index] = STORAGE_T(apply_post_ops(v, p.post_alpha[0], p.post_alpha[1], p.post_alpha[2]));
#endif
}
