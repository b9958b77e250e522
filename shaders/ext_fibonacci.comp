#version 450
// Variants (built by embed_shaders.py; "name: defines"):
// variant ext_fibonacci_f32: -DOUT_F32 requires=shaderInt64 requires=shaderFloat64
// variant ext_fibonacci_q64: -DOUT_Q64 requires=shaderInt64 requires=shaderFloat64
// EXAMPLE_FIBONACCI (com.example.fibonacci): y[i] = F(i + 1), the first n
// Fibonacci numbers 1, 1, 2, 3, ... Invocation i adds its way up in 64-bit
// integers (n <= 92: at most 91 additions, exact, F(93) still fits 64 bits
// unsigned), then rounds once:
//   OUT_F32: to float32;
//   OUT_Q64: EXAMPLE_TENSOR_QUANT64_ASYMM, F / scale in double precision
//            rounded to nearest (halves away from zero), plus the zero point,
//            saturated to the 64-bit range.
// Variants by output type: OUT_F32, OUT_Q64.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#include "common.glsl"

#if defined(OUT_Q64)
#define OUT_T int64_t
#else
#define OUT_T float
#endif

layout(std430, set = 0, binding = 0) writeonly buffer Output { OUT_T y[]; };

layout(push_constant) uniform Params {
    uint n;
    uint scale_lo, scale_hi;  // the double scale's bits (EXAMPLE_TENSOR_QUANT64_ASYMM)
    uint zero_lo, zero_hi;    // the int64 zero point's bits
} p;

#if defined(OUT_Q64)
int64_t quantize(uint64_t f) {
    double scale = packDouble2x32(uvec2(p.scale_lo, p.scale_hi));
    int64_t zero = int64_t(packUint2x32(uvec2(p.zero_lo, p.zero_hi)));
    double v = double(f) / scale;
    double whole = trunc(v);
    if (abs(v - whole) >= 0.5LF) whole += sign(v);
    // 2^63 - 2^10: the largest double below 2^63; past it the sum saturates.
    const double limit = 9223372036854774784.0LF;
    double total = whole + double(zero);
    if (total >= limit) return int64_t(0x7fffffffffffffffl);
    if (total <= -limit) return int64_t(0x8000000000000000ul);
    return int64_t(whole) + zero;
}
#endif

void main() {
    uint i = flat_invocation_index();
    if (i >= p.n) return;
    uint64_t a = 1ul, b = 1ul;  // F(1), F(2)
    for (uint j = 0u; j < i; ++j) {
        uint64_t c = a + b;
        a = b;
        b = c;
    }
#if defined(OUT_Q64)
    y[i] = quantize(a);
#else
    y[i] = float(a);
#endif
}
