#version 450
// Variants (built by embed_shaders.py; "name: defines"):
// variant gather_b8: -DB8
// variant gather_b16: -DB16
// variant gather_b32: -DB32
// GATHER: out[o, i, r] = in[o, indices[i], r], the input seen as
// [outer, axis, inner]. The indices come from a tensor (a model input, or
// computed): an index out of range is reported in the status word and its
// elements are written as zero bits. Variants by element size: B8, B16, B32.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "runtime_status.glsl"

#if defined(B8)
#define STORAGE_T uint8_t
#elif defined(B16)
#define STORAGE_T uint16_t
#else
#define STORAGE_T uint
#endif

layout(std430, set = 0, binding = 0) readonly buffer Input { STORAGE_T x[]; };
layout(std430, set = 0, binding = 1) readonly buffer Indices { int indices[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Output { STORAGE_T y[]; };

layout(push_constant) uniform Params {
    uint outer, axis, inner, index_count;
    uint check_code;  // reported when an index is out of range
} p;

void main() {
    uint i = flat_invocation_index();
    if (i >= p.outer * p.index_count * p.inner) return;
    uint r = i % p.inner;
    uint t = i / p.inner;
    uint k = t % p.index_count;
    uint o = t / p.index_count;
    int index = indices[k];
    if (index < 0 || index >= int(p.axis)) {
        report_invalid_value(p.check_code, RULE_INDEX_OUT_OF_RANGE);
        y[i] = STORAGE_T(0u);
        return;
    }
    y[i] = x[(o * p.axis + uint(index)) * p.inner + r];
}
