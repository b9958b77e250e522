#version 450
// ADD, SUB, MUL, DIV with numpy-style broadcasting over up to 4 dimensions and a
// fused activation (clamp). One invocation computes one output element.
// Variants by element type: ELEM_F32, ELEM_F16, ELEM_I32, ELEM_Q8 (uint8 asymmetric),
// ELEM_Q8S (int8 asymmetric). The operation is a specialization constant.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

layout(constant_id = 1) const int OP = 0;   // 0 ADD, 1 SUB, 2 MUL, 3 DIV

#if defined(ELEM_F32)
#define STORAGE_T float
#elif defined(ELEM_F16)
#define STORAGE_T float16_t
#elif defined(ELEM_I32)
#define STORAGE_T int
#elif defined(ELEM_Q8)
#define STORAGE_T uint8_t
#define QUANTIZED 1
#elif defined(ELEM_Q8S)
#define STORAGE_T int8_t
#define QUANTIZED 1
#endif

layout(std430, set = 0, binding = 0) readonly buffer InputA { STORAGE_T a[]; };
layout(std430, set = 0, binding = 1) readonly buffer InputB { STORAGE_T b[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Output { STORAGE_T o[]; };

layout(push_constant) uniform Params {
    uvec4 out_dims;      // output shape, right-aligned to rank 4 (leading 1s)
    uvec4 a_strides;     // element strides of A per output dimension, 0 where broadcast
    uvec4 b_strides;
    uint count;          // number of output elements
    float a_scale; int a_zero_point;
    float b_scale; int b_zero_point;
    float out_scale; int out_zero_point;
    float act_min;       // activation bounds, in the output's own domain
    float act_max;
} p;

uvec2 input_offsets(uint index) {
    uint rem = index;
    uvec2 off = uvec2(0);
    for (int d = 3; d >= 0; --d) {
        uint coord = rem % p.out_dims[d];
        rem /= p.out_dims[d];
        off += coord * uvec2(p.a_strides[d], p.b_strides[d]);
    }
    return off;
}

#if defined(ELEM_I32)
int apply(int x, int y) {
    if (OP == 0) return x + y;
    if (OP == 1) return x - y;
    if (OP == 2) return x * y;
    if (y == 0) return 0;  // undefined in NNAPI; defined here so the result is deterministic
    // Integer division rounds toward negative infinity.
    int q = x / y;
    if ((x % y != 0) && ((x < 0) != (y < 0))) q -= 1;
    return q;
}
#else
float apply(float x, float y) {
    if (OP == 0) return x + y;
    if (OP == 1) return x - y;
    if (OP == 2) return x * y;
    return x / y;
}
#endif

void main() {
    uint index = flat_invocation_index();
    if (index >= p.count) return;
    uvec2 off = input_offsets(index);
#if defined(ELEM_I32)
    // TENSOR_INT32 takes no fused activation (validated on the host).
    o[index] = apply(a[off.x], b[off.y]);
#elif defined(QUANTIZED)
    float x = float(int(a[off.x]) - p.a_zero_point);
    float y = float(int(b[off.y]) - p.b_zero_point);
    float real;
    if (OP == 2) {
        real = x * y * (p.a_scale * p.b_scale / p.out_scale);
    } else {
        real = apply(x * (p.a_scale / p.out_scale), y * (p.b_scale / p.out_scale));
    }
    float q = round_half_away(real) + float(p.out_zero_point);
    o[index] = STORAGE_T(int(clamp(q, p.act_min, p.act_max)));
#else
    float r = apply(float(a[off.x]), float(b[off.y]));
    o[index] = STORAGE_T(clamp(r, p.act_min, p.act_max));
#endif
}
