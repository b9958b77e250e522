#version 450
// Variants (built by embed_shaders.py; "name: defines"):
// variant quant_matmul_q8: -DELEM_Q8
// variant quant_matmul_q8s: -DELEM_Q8S
// Matrix products of 8-bit operands for the quantized LSTM cells
// (src/ops/quantized_lstm.c, quantized_16bit_lstm.c), which need the raw
// int32 sums (the gates requantize, saturate and add them in their own
// fixed-point steps) and an int8 epilogue conv2d_gemm does not have:
//   sum[r, n] = sum_k (x[r, k] - zx) * (w[n, k] - zw)      (int32, wrapping
// as the reference's sums do: the same bits in any order).
// EPILOGUE 0 writes sum into an int32 matrix at out_offset + r * out_stride
// + n; EPILOGUE 1 (a projection) writes clamp(round(sum + bias[n]) * M) + zp
// to int8, clipped to [-clip, clip] when clip > 0, into two outputs (the
// output and the output state).
// Work split: an invocation owns a block of ROWS rows (4, or the rows there
// are when fewer: a single row computes no copies) and 4 columns, so an x
// word serves four products and a w word ROWS; VEC4 (k % 4 == 0) reads four
// 8-bit values per 32-bit load. Rows and columns past the end repeat the
// last one and store nothing.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "elem_types.glsl"
#include "fixed_point.glsl"
#include "quant_reads.glsl"

layout(constant_id = 1) const uint VEC4 = 0;
layout(constant_id = 2) const uint EPILOGUE = 0;
layout(constant_id = 3) const uint ROWS = 4;

QUANT_INPUT(0, x)
QUANT_FILTER(1, w)
layout(std430, set = 0, binding = 2) readonly buffer Bias { int bias[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Sums { int sums[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Out { int8_t out8[]; };
layout(std430, set = 0, binding = 4) writeonly buffer Out2 { int8_t out8b[]; };

layout(push_constant) uniform Params {
    uint rows, k, n, col_blocks;
    int zx, zw;
    uint out_offset, out_stride;
    int multiplier, shift, out_zero_point, clip;
} p;

const uint B = 4u; // columns per invocation

void store(uint r, uint c, int sum) {
    if (EPILOGUE == 0u) {
        sums[p.out_offset + r * p.out_stride + c] = sum;
        return;
    }
    int q = multiply_by_quantized_multiplier(sum + bias[c], p.multiplier, p.shift) +
            p.out_zero_point;
    q = clamp(q, -128, 127);
    if (p.clip > 0) q = clamp(q, -p.clip, p.clip);
    out8[r * p.n + c] = int8_t(q);
    out8b[r * p.n + c] = int8_t(q);
}

void main() {
    uint index = flat_invocation_index();
    uint row0 = (index / p.col_blocks) * ROWS;
    uint col0 = (index % p.col_blocks) * B;
    if (row0 >= p.rows) return;
    uint xr[ROWS], wr[B];
    for (uint i = 0u; i < ROWS; ++i) xr[i] = min(row0 + i, p.rows - 1u) * p.k;
    for (uint j = 0u; j < B; ++j) wr[j] = min(col0 + j, p.n - 1u) * p.k;
    int acc[ROWS * B];
    for (uint i = 0u; i < ROWS * B; ++i) acc[i] = 0;
    if (VEC4 == 1u) {
        for (uint kk = 0u; kk < p.k; kk += 4u) {
            ivec4 xv[ROWS];
            for (uint i = 0u; i < ROWS; ++i) xv[i] = READ4_INPUT(x, (xr[i] + kk) / 4u) - p.zx;
            for (uint j = 0u; j < B; ++j) {
                ivec4 wv = READ4_FILTER(w, (wr[j] + kk) / 4u) - p.zw;
                for (uint i = 0u; i < ROWS; ++i) {
                    ivec4 prod = xv[i] * wv;
                    acc[i * B + j] += prod.x + prod.y + prod.z + prod.w;
                }
            }
        }
    } else {
        for (uint kk = 0u; kk < p.k; ++kk) {
            int xv[ROWS];
            for (uint i = 0u; i < ROWS; ++i) xv[i] = READ1_Q(x, xr[i] + kk) - p.zx;
            for (uint j = 0u; j < B; ++j) {
                int wv = READ1_Q(w, wr[j] + kk) - p.zw;
                for (uint i = 0u; i < ROWS; ++i) acc[i * B + j] += xv[i] * wv;
            }
        }
    }
    for (uint i = 0u; i < ROWS; ++i) {
        if (row0 + i >= p.rows) break;
        for (uint j = 0u; j < B; ++j)
            if (col0 + j < p.n) store(row0 + i, col0 + j, acc[i * B + j]);
    }
}
