#version 450
// Variants (built by embed_shaders.py; "name: defines"):
// variant binary_arith_f32: -DELEM_F32
// variant binary_arith_f16: -DELEM_F16
// variant binary_arith_i32: -DELEM_I32
// variant binary_arith_q8: -DELEM_Q8
// variant binary_arith_q8s: -DELEM_Q8S
// variant binary_arith_f32_flat4: -DELEM_F32 -DFLAT4
// variant binary_arith_f16_flat4: -DELEM_F16 -DFLAT4
// variant binary_arith_f32_flat4_texel: -DELEM_F32 -DFLAT4 -DTEXEL_READS
// variant binary_arith_f16_flat4_texel: -DELEM_F16 -DFLAT4 -DTEXEL_READS requires=shaderStorageImageExtendedFormats
// variant binary_compare_f32: -DELEM_F32 -DCOMPARE
// variant binary_compare_f16: -DELEM_F16 -DCOMPARE
// variant binary_compare_i32: -DELEM_I32 -DCOMPARE
// variant binary_compare_q8: -DELEM_Q8 -DCOMPARE
// variant binary_compare_q8s: -DELEM_Q8S -DCOMPARE
// Elementwise binary operations with numpy-style broadcasting over up to 4
// dimensions. One invocation computes one output element.
//  - arithmetic (ADD, SUB, MUL, DIV, MAXIMUM, MINIMUM, POW, PRELU) writes the
//    input type, clamped by a fused activation;
//  - with COMPARE (EQUAL ... GREATER_EQUAL, LOGICAL_AND, LOGICAL_OR,
//    LOGICAL_NOT) it writes TENSOR_BOOL8.
// Variants by element type: ELEM_F32, ELEM_F16, ELEM_I32, ELEM_Q8 (uint8,
// also BOOL8), ELEM_Q8S. The operation is a specialization constant. Float
// arithmetic may carry a fused chain of unary operations (unary_math.glsl).
// Quantized ADD, SUB, MUL and PRELU use the reference's integer fixed-point
// arithmetic (fixed_point.glsl); MAXIMUM and MINIMUM requantize both inputs
// to the output's scale as the reference does, in floating point;
// comparisons compare real values.
// FLAT4: float arithmetic on inputs of the output's own shape (no
// broadcast), element count a multiple of 4: an invocation computes four
// neighbouring elements, with no index arithmetic; TEXEL_READS reads the
// inputs through texel buffers (operand_reads.glsl).
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "fixed_point.glsl"
#include "unary_math.glsl"

layout(constant_id = 1) const int OP = 0;
const int ADD = 0, SUB = 1, MUL = 2, DIV = 3, MAXIMUM = 4, MINIMUM = 5, POW = 6, PRELU = 7;
const int EQUAL = 8, NOT_EQUAL = 9, LESS = 10, LESS_EQUAL = 11, GREATER = 12;
const int GREATER_EQUAL = 13, AND = 14, OR = 15, NOT = 16;

#if defined(ELEM_I32)
#define STORAGE_T int
#define VALUE_T int
#else
#include "elem_types.glsl"
#define VALUE_T float
#endif

#if defined(FLAT4)
#include "operand_reads.glsl"
OPERAND(0, InputA, a)
OPERAND(1, InputB, b)
#if defined(ELEM_F16)
layout(std430, set = 0, binding = 2) writeonly buffer Output4 { f16vec4 o4[]; };
#else
layout(std430, set = 0, binding = 2) writeonly buffer Output4 { vec4 o4[]; };
#endif
#else
layout(std430, set = 0, binding = 0) readonly buffer InputA { STORAGE_T a[]; };
layout(std430, set = 0, binding = 1) readonly buffer InputB { STORAGE_T b[]; };
#endif
#if defined(FLAT4)
#elif defined(COMPARE)
layout(std430, set = 0, binding = 2) writeonly buffer Output { uint8_t o[]; };
#else
layout(std430, set = 0, binding = 2) writeonly buffer Output { STORAGE_T o[]; };
#endif

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
    // Quantized arithmetic: fixed-point multipliers (mantissa, exponent).
    // ADD/SUB: each input to the common scale, then the sum to the output.
    // MUL: the product to the output (out_*). PRELU: a_* for x >= 0, out_*
    // for x * alpha. SUB carries b's multiplier negated.
    QuantMultiplier a_multiplier, b_multiplier, out_multiplier;
    int left_shift;      // ADD/SUB headroom
    float post_alpha[3];  // fused unary chain (float only)
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

#if !defined(FLAT4)
// The values operations see: integers for int32, reals otherwise.
VALUE_T value_a(uint i) {
#if defined(QUANTIZED)
    return float(int(a[i]) - p.a_zero_point) * p.a_scale;
#else
    return VALUE_T(a[i]);
#endif
}

VALUE_T value_b(uint i) {
#if defined(QUANTIZED)
    return float(int(b[i]) - p.b_zero_point) * p.b_scale;
#else
    return VALUE_T(b[i]);
#endif
}
#endif

bool compare(VALUE_T x, VALUE_T y) {
    if (OP == EQUAL) return x == y;
    if (OP == NOT_EQUAL) return x != y;
    if (OP == LESS) return x < y;
    if (OP == LESS_EQUAL) return x <= y;
    if (OP == GREATER) return x > y;
    if (OP == GREATER_EQUAL) return x >= y;
    if (OP == AND) return x != VALUE_T(0) && y != VALUE_T(0);
    if (OP == OR) return x != VALUE_T(0) || y != VALUE_T(0);
    return x == VALUE_T(0);  // NOT: the second input is ignored
}

#if defined(ELEM_I32)
int apply(int x, int y) {
    if (OP == ADD) return x + y;
    if (OP == SUB) return x - y;
    if (OP == MUL) return x * y;
    if (OP == MAXIMUM) return max(x, y);
    if (OP == MINIMUM) return min(x, y);
    if (y == 0) return 0;  // undefined in NNAPI; defined here so the result is deterministic
    // Integer division rounds toward negative infinity.
    int q = x / y;
    if ((x % y != 0) && ((x < 0) != (y < 0))) q -= 1;
    return q;
}
#else
float apply(float x, float y) {
    if (OP == ADD) return x + y;
    if (OP == SUB) return x - y;
    if (OP == MUL) return x * y;
    if (OP == DIV) return x / y;
    if (OP == MAXIMUM) return max(x, y);
    if (OP == MINIMUM) return min(x, y);
    if (OP == POW) return pow(x, y);
    return x >= 0.0 ? x : x * y;  // PRELU
}
#endif

#if defined(QUANTIZED)
int requantize_to_output(int x_minus_zero, int multiplier, int shift) {
    return multiply_by_quantized_multiplier(x_minus_zero, multiplier, shift) + p.out_zero_point;
}

// The result in the output's quantized domain, before the activation clamp.
int apply_quantized(int qa, int qb) {
    int x = qa - p.a_zero_point;
    int y = qb - p.b_zero_point;
    if (OP == ADD || OP == SUB) {
        int xs = multiply_by_quantized_multiplier(x << p.left_shift, p.a_multiplier.multiplier, p.a_multiplier.shift);
        int ys = multiply_by_quantized_multiplier(y << p.left_shift, p.b_multiplier.multiplier, p.b_multiplier.shift);
        return requantize_to_output(xs + ys, p.out_multiplier.multiplier, p.out_multiplier.shift);
    }
    if (OP == MUL) return requantize_to_output(x * y, p.out_multiplier.multiplier, p.out_multiplier.shift);
    if (OP == PRELU) {
        if (x >= 0) return requantize_to_output(x, p.a_multiplier.multiplier, p.a_multiplier.shift);
        return requantize_to_output(x * y, p.out_multiplier.multiplier, p.out_multiplier.shift);
    }
    // MAXIMUM, MINIMUM: the reference requantizes each input in floating point.
    int xo = requantize_real(float(x) * p.a_scale, p.out_scale, p.out_zero_point);
    int yo = requantize_real(float(y) * p.b_scale, p.out_scale, p.out_zero_point);
    return OP == MAXIMUM ? max(xo, yo) : min(xo, yo);
}
#endif

#if defined(FLAT4)
void main() {
    uint index = flat_invocation_index();
    if (index >= p.count / 4) return;
    vec4 x = READ4(a, index), y = READ4(b, index), r;
    for (int c = 0; c < 4; ++c) {
        float v = clamp(apply(x[c], y[c]), p.act_min, p.act_max);
        r[c] = apply_post_ops(v, p.post_alpha[0], p.post_alpha[1], p.post_alpha[2]);
    }
#if defined(ELEM_F16)
    o4[index] = f16vec4(r);
#else
    o4[index] = r;
#endif
}
#else
void main() {
    uint index = flat_invocation_index();
    if (index >= p.count) return;
    uvec2 off = input_offsets(index);
#if defined(COMPARE)
    o[index] = uint8_t(compare(value_a(off.x), value_b(off.y)) ? 1u : 0u);
#elif defined(ELEM_I32)
    // TENSOR_INT32 takes no fused activation (validated on the host).
    o[index] = apply(a[off.x], b[off.y]);
#elif defined(QUANTIZED)
    int q = apply_quantized(int(a[off.x]), int(b[off.y]));
    o[index] = STORAGE_T(clamp(q, int(p.act_min), int(p.act_max)));
#else
    float r = clamp(apply(float(a[off.x]), float(b[off.y])), p.act_min, p.act_max);
    o[index] = STORAGE_T(apply_post_ops(r, p.post_alpha[0], p.post_alpha[1], p.post_alpha[2]));
#endif
}
#endif
