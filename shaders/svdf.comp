#version 450
// Variants (built by embed_shaders.py; "name: defines"):
// variant svdf_f32: -DSVDF_F32
// variant svdf_f16: -DSVDF_F16
// SVDF's memory and time filtering, after the matrix kernels computed the
// feature activations act[b, f] = input[b] . weights_feature[f]. The state
// holds, per batch and filter, memory_size slots, oldest first, the last one
// free: the filter's memory is the state with act[b, f] in that last slot.
// Per batch b and unit u (filters u * rank .. u * rank + rank - 1):
//     out[b, u] = clamp(bias[u] + sum over those filters f and memory
//                       slots j of memory[b, f, j] * weights_time[f, j])
// and the new state is the memory shifted by one slot, the last slot zero
// (as the NNAPI reference keeps it). One invocation per (b, u) writes its
// filters' new state and its output.
// Variants by element type: SVDF_F32, SVDF_F16 (computed in float32).
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

#if defined(SVDF_F16)
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#define ELEM_T float16_t
#define BITS_T uint16_t
#else
#define ELEM_T float
#define BITS_T uint
#endif

layout(std430, set = 0, binding = 0) readonly buffer Act { ELEM_T act[]; };
layout(std430, set = 0, binding = 1) readonly buffer StateIn { ELEM_T state_in[]; };
layout(std430, set = 0, binding = 2) readonly buffer WeightsTime { ELEM_T wt[]; };
layout(std430, set = 0, binding = 3) readonly buffer Bias { ELEM_T bias[]; };
layout(std430, set = 0, binding = 4) writeonly buffer StateOut { ELEM_T state_out[]; };
// The same buffer by bits, to write zeros (a float16 constant would need
// float16 arithmetic).
layout(std430, set = 0, binding = 4) writeonly buffer StateOutBits { BITS_T state_bits[]; };
layout(std430, set = 0, binding = 5) writeonly buffer Output { ELEM_T y[]; };

layout(push_constant) uniform Params {
    uint batch, units, rank, memory;
    uint has_bias;
    float act_min, act_max;
} p;

// Filter f's memory of batch b, time-filtered; its new state, shifted.
float filter_memory(uint b, uint f, uint filters) {
    uint base = (b * filters + f) * p.memory;
    uint w = f * p.memory;
    float sum = 0.0;
    for (uint j = 0; j + 1 < p.memory; ++j) {
        float v = float(state_in[base + j]);
        if (j > 0u) state_out[base + j - 1u] = ELEM_T(v);
        sum += v * float(wt[w + j]);
    }
    float newest = float(act[b * filters + f]);
    if (p.memory > 1u) state_out[base + p.memory - 2u] = ELEM_T(newest);
    state_bits[base + p.memory - 1u] = BITS_T(0u);
    return sum + newest * float(wt[w + p.memory - 1u]);
}

void main() {
    uint i = flat_invocation_index();
    if (i >= p.batch * p.units) return;
    uint b = i / p.units, u = i - b * p.units;
    uint filters = p.units * p.rank;
    float v = p.has_bias != 0u ? float(bias[u]) : 0.0;
    for (uint r = 0; r < p.rank; ++r) v += filter_memory(b, u * p.rank + r, filters);
    y[i] = ELEM_T(clamp(v, p.act_min, p.act_max));
}
