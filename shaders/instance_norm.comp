#version 450
// Variants (built by embed_shaders.py; "name: defines"):
// variant instance_norm_f32: -DELEM_F32
// variant instance_norm_f16: -DELEM_F16
// INSTANCE_NORMALIZATION: each (batch, channel) plane of height * width
// elements is normalized by its own mean and variance,
//   out = (x - mean) * gamma / sqrt(variance + epsilon) + beta,
// as a row reduction (row_reduce.glsl): the host sees NHWC as [batches,
// height * width, channels] and NCHW as [batches * channels, height * width,
// 1]. A part of a plane is summarised by its count, mean and sum of squared
// deviations (Welford's update, Chan's combination), which is accurate
// where sum(x^2) / n - mean^2 would cancel.
// Variants by element type (float16 stored, float32 computed).
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "elem_types.glsl"

layout(std430, set = 0, binding = 0) readonly buffer Input { STORAGE_T x[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Output { STORAGE_T y[]; };

layout(push_constant) uniform Params {
    uint outer, axis, inner, lanes, chunks, chunk_len, chunk_lanes;  // row_reduce.glsl
    float gamma, beta, epsilon;
} p;

#include "row_reduce.glsl"

#include "welford.glsl"

void write_element(uint index, uvec4 row_stat) {
    float n = uintBitsToFloat(row_stat.x), mean = uintBitsToFloat(row_stat.y);
    float sigma = sqrt(uintBitsToFloat(row_stat.z) / n + p.epsilon);
    y[index] = STORAGE_T((float(x[index]) - mean) * p.gamma / sigma + p.beta);
}

void main() { row_reduce_main(); }
