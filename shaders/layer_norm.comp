#version 450
// Variants (built by embed_shaders.py; "name: defines"):
// variant layer_norm_f32: -DELEM_F32
// variant layer_norm_f16: -DELEM_F16
// LAYER_NORMALIZATION (org.vknn.transformer): every row along the axis is
// normalized by its own mean and (biased) variance, then scaled and shifted
// per position along the axis,
//   out = (x - mean) / sqrt(variance + epsilon) * gamma[a] + beta[a],
// as a row reduction (row_reduce.glsl) of [outer, axis, inner] with the
// statistic of welford.glsl. gamma and beta are optional (1 and 0).
// Variants by element type (float16 stored, float32 computed).
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "elem_types.glsl"

layout(std430, set = 0, binding = 0) readonly buffer Input { STORAGE_T x[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Output { STORAGE_T y[]; };
layout(std430, set = 0, binding = 3) readonly buffer Gamma { STORAGE_T gamma[]; };
layout(std430, set = 0, binding = 4) readonly buffer Beta { STORAGE_T beta[]; };

layout(push_constant) uniform Params {
    uint outer, axis, inner, lanes, chunks, chunk_len, chunk_lanes;  // row_reduce.glsl
    float epsilon;
    uint has_gamma, has_beta;
} p;

#include "row_reduce.glsl"
#include "welford.glsl"

void write_element(uint index, uvec4 row_stat) {
    float n = uintBitsToFloat(row_stat.x), mean = uintBitsToFloat(row_stat.y);
    float sigma = sqrt(uintBitsToFloat(row_stat.z) / n + p.epsilon);
    uint a = (index / p.inner) % p.axis;
    float scale = p.has_gamma != 0u ? float(gamma[a]) : 1.0;
    float shift = p.has_beta != 0u ? float(beta[a]) : 0.0;
    y[index] = STORAGE_T((float(x[index]) - mean) / sigma * scale + shift);
}

void main() { row_reduce_main(); }
