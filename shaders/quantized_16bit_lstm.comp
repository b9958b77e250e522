#version 450
// Variants (built by embed_shaders.py; "name: defines"):
// variant quantized_16bit_lstm:
// One step of QUANTIZED_16BIT_LSTM's cell after its matrix product
// (src/ops/quantized_16bit_lstm.c), in the NNAPI reference's 16-bit fixed
// point, bit for bit. The product comes in as int32 sums [batches, 4 *
// units] (gates i, f, c, o side by side); one invocation per (b, j):
//   a = sat16(M(sum + bias)) in Q3.12 (M: 4096 * the bias scale),
//   i, f, o = logistic(a), c = tanh(a) (Q0.15),
//   C_t = sat16(i * c / 2^4 + f * C_{t-1}) in Q4.11,
//   h = o * tanh(C_t in Q3.12), output uint8(clamp(h / 2^8) + 128).
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "fixed_point.glsl"
#include "fixed_point_math.glsl"

layout(std430, set = 0, binding = 0) readonly buffer Sums { int sums[]; };
layout(std430, set = 0, binding = 1) readonly buffer Bias { int bias[]; };
layout(std430, set = 0, binding = 2) readonly buffer CellIn { int16_t c_prev[]; };
layout(std430, set = 0, binding = 3) writeonly buffer CellOut { int16_t c_next[]; };
layout(std430, set = 0, binding = 4) writeonly buffer Out { uint8_t y[]; };

layout(push_constant) uniform Params {
    uint units, batches;
    int multiplier, shift;
} p;

int gate(uint b, uint g, uint j) {
    uint col = g * p.units + j;
    return saturate_int16(multiply_by_quantized_multiplier(sums[b * 4u * p.units + col] + bias[col],
                                                           p.multiplier, p.shift));
}

void main() {
    uint index = flat_invocation_index();
    if (index >= p.batches * p.units) return;
    uint b = index / p.units, j = index % p.units;
    int i = fx_logistic(gate(b, 0u, j), 3);
    int f = fx_logistic(gate(b, 1u, j), 3);
    int c = fx_tanh(gate(b, 2u, j), 3);
    int o = fx_logistic(gate(b, 3u, j), 3);
    int cell = saturate_int16(mul_pot_16(fx_mul(i, c), -4) + fx_mul(f, int(c_prev[index])));
    c_next[index] = int16_t(cell);
    int h = fx_mul(o, fx_tanh(mul_pot_16(cell, 1), 3));
    y[index] = uint8_t(clamp(rounding_divide_by_pot(h, 8), -128, 127) + 128);
}
