#version 450
// Variants (built by embed_shaders.py; "name: defines"):
// variant concat_raw32: -DRAW32
// variant concat_raw16: -DRAW16
// variant concat_q8: -DELEM_Q8
// variant concat_q8s: -DELEM_Q8S
// Copies one input into a slice of the output along an axis: CONCATENATION
// (one dispatch per input) and RESHAPE (one whole copy). Tensors are seen as
// [outer, axis, inner]. Variants: RAW32, RAW16 (bit copies), ELEM_Q8 and
// ELEM_Q8S (requantize when the encodings differ).
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

#if defined(RAW32)
#define STORAGE_T uint
#elif defined(RAW16)
#define STORAGE_T uint16_t
#else
#include "elem_types.glsl"
#endif

layout(std430, set = 0, binding = 0) readonly buffer Input { STORAGE_T x[]; };
layout(std430, set = 0, binding = 1) buffer Output { STORAGE_T y[]; };

layout(push_constant) uniform Params {
    uint outer, in_axis, inner, out_axis, axis_offset;
    uint requantize;
    float scale_ratio;  // input scale / output scale
    int in_zero_point, out_zero_point;
    float q_min, q_max;
} p;

void main() {
    uint index = flat_invocation_index();
    uint slice = p.in_axis * p.inner;
    if (index >= p.outer * slice) return;
    uint o = index / slice;
    uint r = index % slice;
    uint out_index = (o * p.out_axis + p.axis_offset) * p.inner + r;
#if defined(QUANTIZED)
    if (p.requantize != 0u) {
        float q = round_half_away(float(int(x[index]) - p.in_zero_point) * p.scale_ratio) +
                  float(p.out_zero_point);
        y[out_index] = STORAGE_T(int(clamp(q, p.q_min, p.q_max)));
        return;
    }
#endif
    y[out_index] = x[index];
}
