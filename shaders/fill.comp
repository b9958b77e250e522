#version 450
// Variants (built by embed_shaders.py; "name: defines"):
// variant fill_b8: -DB8
// variant fill_b16: -DB16
// variant fill_b32: -DB32
// Writes one value to every element: FILL (the value tensor may be computed
// at run time), RANK (a constant). The value is read from its own tensor.
// Variants by element size: B8, B16, B32.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

#if defined(B8)
#define STORAGE_T uint8_t
#elif defined(B16)
#define STORAGE_T uint16_t
#else
#define STORAGE_T uint
#endif

layout(std430, set = 0, binding = 0) readonly buffer Value { STORAGE_T value[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Output { STORAGE_T y[]; };

layout(push_constant) uniform Params {
    uint count;
} p;

void main() {
    uint i = flat_invocation_index();
    if (i < p.count) y[i] = value[0];
}
