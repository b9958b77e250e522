#version 450
// Variants (built by embed_shaders.py; "name: defines"):
// variant quantized_lstm:
// One step of QUANTIZED_LSTM's cell after its matrix products
// (src/ops/quantized_lstm.c), in the NNAPI reference's integer arithmetic:
// int8 operands, int16 gates and cell state, bit for bit.
// The products come in as int32 sums (quant_matmul.comp), the gates side by
// side as in lstm_gates.comp ([i | f | c | o] of units columns, or
// [f | c | o] with CIFG): the input's rows first, the output state's at
// h_offset. A workgroup takes a batch row b; its lanes take units j = lane,
// lane + 64, ... Per gate:
//   a = sat16(M_x(sum_x)), a = sat16(a + M_h(sum_h)), with peepholes
//   a = sat16(a + M_p(w_p * C)) (i and f read C_{t-1}, o reads C_t), where
//   M(v) is the fixed-point multiplication by a gate's scale ratio;
//   with layer normalization the integer normalization of the reference
//   (mean and variance of the row's a, their inverse square root by
//   Newton-Raphson, then * weight + bias, rescaled), whose 64-bit sums are
//   kept as pairs of 32-bit words; the biases take part only there, as in
//   the reference;
//   i, f, o = logistic(a), c = tanh(a) on Q3.12 (i = 1 - f with CIFG).
// Then C_t = sat16(f * C_{t-1} / 2^15 + i * c / 2^(30 + cell_shift)),
// clipped, and the hidden state int8(M_hidden(o * tanh(C_t)) - zero point),
// tanh of the cell's own format (2^cell_shift: 15 + cell_shift integer bits).
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "fixed_point.glsl"
#include "fixed_point_math.glsl"

layout(constant_id = 1) const uint FLAGS = 0;
const uint FLAG_CIFG = 1u;
const uint FLAG_PEEPHOLE = 2u;
const uint FLAG_LAYER_NORM = 4u;
const uint FLAG_WRITE_STATE = 8u; // the hidden state is also the output state

layout(std430, set = 0, binding = 0) readonly buffer Sums { int sums[]; };
// Rows of units values: biases i, f, c, o.
layout(std430, set = 0, binding = 1) readonly buffer Bias { int bias[]; };
// Rows of units values: peepholes i, f, o (0-2), layer normalization
// weights i, f, c, o (3-6).
layout(std430, set = 0, binding = 2) readonly buffer Weights16 { int16_t w16[]; };
// Per gate i, f, c, o eight ints: the multipliers (mantissa, exponent) of
// the input product, the recurrent product, the peephole product and the
// layer normalization weights; then the four variance floors.
layout(std430, set = 0, binding = 3) readonly buffer QParams { int qp[]; };
layout(std430, set = 0, binding = 4) readonly buffer CellIn { int16_t c_prev[]; };
layout(std430, set = 0, binding = 5) buffer CellOut { int16_t c_next[]; };
layout(std430, set = 0, binding = 6) writeonly buffer Hidden { int8_t hidden[]; };
layout(std430, set = 0, binding = 7) writeonly buffer State { int8_t state[]; };

layout(push_constant) uniform Params {
    uint units, gate_cols, batches, h_offset;
    int hidden_multiplier, hidden_shift, hidden_zero_point;
    int cell_clip;  // 0: none
    int cell_shift; // the cell state's scale is 2^cell_shift
} p;

const uint GROUP = 64u;
shared ivec4 sh_sum[GROUP];
shared uvec4 sh_sq_lo[GROUP];
shared uvec4 sh_sq_hi[GROUP];

bool has(uint flag) { return (FLAGS & flag) != 0u; }

int qparam(uint g, uint k) { return qp[g * 8u + k]; }

int mbqm(int x, int multiplier, int shift) {
    return multiply_by_quantized_multiplier(x, multiplier, shift);
}

// Gate g (0 i, 1 f, 2 c, 3 o) before normalization; cell: the cell state
// its peephole reads.
int gate_input(uint g, uint b, uint j, int cell) {
    uint col = (has(FLAG_CIFG) ? g - 1u : g) * p.units + j;
    int a = saturate_int16(mbqm(sums[b * p.gate_cols + col], qparam(g, 0u), qparam(g, 1u)));
    a = saturate_int16(a + mbqm(sums[p.h_offset + b * p.gate_cols + col], qparam(g, 2u),
                                qparam(g, 3u)));
    if (has(FLAG_PEEPHOLE) && g != 2u) {
        int w = int(w16[(g == 3u ? 2u : g) * p.units + j]);
        a = saturate_int16(a + mbqm(w * cell, qparam(g, 4u), qparam(g, 5u)));
    }
    return a;
}

// ---- layer normalization ----------------------------------------------------

// Saturating x * 2^exponent on int32 (exponent > 0).
int saturating_shift_left(int x, int exponent) {
    int threshold = (1 << (31 - exponent)) - 1;
    return x > threshold ? INT32_MAX : x < -threshold ? INT32_MIN : x << exponent;
}

// 1 / sqrt(v) as a multiplier (mantissa, exponent), v > 0: Newton-Raphson
// in Q3.28 on v scaled into [2^27, 2^29) by an even power of two.
ivec2 inverse_sqrt_multiplier(int v) {
    if (v <= 1) return ivec2(INT32_MAX, 0);
    int shift = 11;
    while (v >= (1 << 29)) {
        v >>= 2;
        ++shift;
    }
    int pairs = (31 - findMSB(v) - 1) / 2 - 1;
    shift -= pairs;
    v <<= 2 * pairs;
    int half_v = rounding_divide_by_pot(v >> 1, 1);
    const int three_halves = (1 << 28) + (1 << 27);
    int x = 1 << 28;
    for (int i = 0; i < 5; ++i) {
        int x3 = saturating_shift_left(
            rounding_doubling_high_mul(rounding_doubling_high_mul(x, x), x), 6);
        x = saturating_shift_left(rounding_doubling_high_mul(three_halves, x) -
                                      rounding_doubling_high_mul(half_v, x3), 3);
    }
    x = rounding_doubling_high_mul(x, 1518500250); // * sqrt(2) / 2
    if (shift < 0) {
        x <<= -shift;
        shift = 0;
    }
    return ivec2(x, -shift);
}

// The low 32 bits of a signed 64-bit (lo, hi) divided by 2^20, truncated
// toward zero.
int divide_by_2_20(uint lo, uint hi) {
    bool negative = int(hi) < 0;
    if (negative) {
        lo = ~lo + 1u;
        hi = ~hi + (lo == 0u ? 1u : 0u);
    }
    uint q = (lo >> 20) | (hi << 12);
    return negative ? -int(q) : int(q);
}

// Mean (times 1024) and the inverse standard deviation's multiplier of one
// gate's row: sum and the 64-bit sum of squares (lo, hi) over the units.
ivec3 norm_stats(int sum, uint sq_lo, uint sq_hi, int variance_floor) {
    uint n = p.units;
    uint s = uint(abs(sum));
    int q = int((s / n) * 1024u + ((s % n) * 1024u) / n);
    int mean = sum < 0 ? -q : q;
    uint scale = (1u << 20) / n;
    uint prod_hi, prod_lo, sq_hi2, sq_lo2;
    umulExtended(sq_lo, scale, prod_hi, prod_lo);
    prod_hi += sq_hi * scale;
    umulExtended(uint(abs(mean)), uint(abs(mean)), sq_hi2, sq_lo2);
    uint borrow;
    uint lo = usubBorrow(prod_lo, sq_lo2, borrow);
    int variance = divide_by_2_20(lo, prod_hi - sq_hi2 - borrow);
    if (variance < 1) variance = variance_floor;
    return ivec3(mean, inverse_sqrt_multiplier(variance));
}

// Sums of the lanes' values and 64-bit squares (4 gates at once).
void reduce_rows(inout ivec4 sum, inout uvec4 lo, inout uvec4 hi) {
    uint lane = gl_LocalInvocationID.x;
    sh_sum[lane] = sum;
    sh_sq_lo[lane] = lo;
    sh_sq_hi[lane] = hi;
    barrier();
    for (uint half_ = GROUP / 2u; half_ > 0u; half_ /= 2u) {
        if (lane < half_) {
            uvec4 carry;
            sh_sum[lane] += sh_sum[lane + half_];
            sh_sq_lo[lane] = uaddCarry(sh_sq_lo[lane], sh_sq_lo[lane + half_], carry);
            sh_sq_hi[lane] += sh_sq_hi[lane + half_] + carry;
        }
        barrier();
    }
    sum = sh_sum[0];
    lo = sh_sq_lo[0];
    hi = sh_sq_hi[0];
    barrier(); // every lane has read the totals before they are reused
}

void add_square(inout uvec4 lo, inout uvec4 hi, uint g, int a) {
    uint carry;
    lo[g] = uaddCarry(lo[g], uint(a * a), carry);
    hi[g] += carry;
}

// The normalized gate: rescaled by the inverse deviation, times the weight
// plus the bias (int32, wrapping as the reference's), back to Q3.12.
int normalized(uint g, uint j, int a, ivec3 stat) {
    if (!has(FLAG_LAYER_NORM)) return a;
    int rescaled = mbqm(1024 * a - stat.x, stat.y, stat.z);
    int v = rescaled * int(w16[(3u + g) * p.units + j]) + bias[g * p.units + j];
    int rounded = v > 0 ? int((uint(v) + 512u) >> 10) : -int((uint(-v) + 512u) >> 10);
    return saturate_int16(mbqm(rounded, qparam(g, 6u), qparam(g, 7u) + 12));
}

// ---- the cell ---------------------------------------------------------------

// The output gate from the new cell state, and the hidden state.
void finish_output(uint b, uint j, int cell, ivec3 stat) {
    int o = fx_logistic(normalized(3u, j, gate_input(3u, b, j, cell), stat), 3);
    int t = fx_tanh(cell, 15 + p.cell_shift);
    int h = clamp(mbqm(o * t, p.hidden_multiplier, p.hidden_shift) - p.hidden_zero_point, -128,
                  127);
    hidden[b * p.units + j] = int8_t(h);
    if (has(FLAG_WRITE_STATE)) state[b * p.units + j] = int8_t(h);
}

void cell_row(uint b) {
    uint lane = gl_LocalInvocationID.x;
    uint first = has(FLAG_CIFG) ? 1u : 0u;
    ivec3 stat[4] = ivec3[4](ivec3(0), ivec3(0), ivec3(0), ivec3(0));
    if (has(FLAG_LAYER_NORM)) {
        ivec4 sum = ivec4(0);
        uvec4 lo = uvec4(0), hi = uvec4(0);
        for (uint j = lane; j < p.units; j += GROUP) {
            int cell = int(c_prev[b * p.units + j]);
            for (uint g = first; g < 3u; ++g) {
                int a = gate_input(g, b, j, cell);
                sum[g] += a;
                add_square(lo, hi, g, a);
            }
        }
        reduce_rows(sum, lo, hi);
        for (uint g = first; g < 3u; ++g) stat[g] = norm_stats(sum[g], lo[g], hi[g], qp[32u + g]);
    }
    ivec4 o_sum = ivec4(0);
    uvec4 o_lo = uvec4(0), o_hi = uvec4(0);
    for (uint j = lane; j < p.units; j += GROUP) {
        int cell = int(c_prev[b * p.units + j]);
        int f = fx_logistic(normalized(1u, j, gate_input(1u, b, j, cell), stat[1]), 3);
        int c = fx_tanh(normalized(2u, j, gate_input(2u, b, j, cell), stat[2]), 3);
        int i = has(FLAG_CIFG)
                    ? 32767 - f
                    : fx_logistic(normalized(0u, j, gate_input(0u, b, j, cell), stat[0]), 3);
        int next = saturate_int16(wrap_int16(rounding_divide_by_pot(f * cell, 15)) +
                                  wrap_int16(rounding_divide_by_pot(i * c, 30 + p.cell_shift)));
        if (p.cell_clip > 0) next = clamp(next, -p.cell_clip, p.cell_clip);
        c_next[b * p.units + j] = int16_t(next);
        if (has(FLAG_LAYER_NORM)) {
            int a = gate_input(3u, b, j, next);
            o_sum.w += a;
            add_square(o_lo, o_hi, 3u, a);
        } else {
            finish_output(b, j, next, ivec3(0));
        }
    }
    if (!has(FLAG_LAYER_NORM)) return;
    reduce_rows(o_sum, o_lo, o_hi);
    stat[3] = norm_stats(o_sum.w, o_lo.w, o_hi.w, qp[35]);
    for (uint j = lane; j < p.units; j += GROUP) {
        // This lane wrote c_next[b, j] above: its own write is visible to it.
        finish_output(b, j, int(c_next[b * p.units + j]), stat[3]);
    }
}

void main() {
    uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    // Uniform in the workgroup: a whole group leaves or none of it.
    if (group >= p.batches) return;
    cell_row(group);
}
