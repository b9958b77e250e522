#version 450
// Variants (built by embed_shaders.py; "name: defines"):
// variant concat_rows_raw32: -DRAW32
// variant concat_rows_raw16: -DRAW16
// variant concat_rows_q8: -DELEM_Q8
// variant concat_rows_q8s: -DELEM_Q8S
// CONCATENATION along axis 0 of values whose rows the data decide
// (src/ops/concatenation.c; docs/architecture.md, "Outputs whose size the
// data decide"): an invocation per element of the output's planned rows.
// Each input's real rows are its count word times its rows per count (or
// its fixed rows); the output's rows are the inputs' real rows one after
// the other, its count word their sum, and the rows past them zero (the
// harmless value row-wise readers accept). The 8-bit variants requantize
// the inputs whose encoding differs from the output's.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

#if defined(RAW32)
#define STORAGE_T uint
#elif defined(RAW16)
#define STORAGE_T uint16_t
#else
#include "elem_types.glsl"
#endif
#define RUNTIME_COUNTS 1
#include "runtime_status.glsl"

const uint MAX_INPUTS = 4u;  // the driver binds input 0 again for the missing ones

layout(std430, set = 0, binding = 0) readonly buffer Input0 { STORAGE_T x0[]; };
layout(std430, set = 0, binding = 1) readonly buffer Input1 { STORAGE_T x1[]; };
layout(std430, set = 0, binding = 2) readonly buffer Input2 { STORAGE_T x2[]; };
layout(std430, set = 0, binding = 3) readonly buffer Input3 { STORAGE_T x3[]; };
layout(std430, set = 0, binding = 4) writeonly buffer Output { STORAGE_T y[]; };

layout(push_constant) uniform Params {
    uint inner;        // elements per row
    uint inputs;       // 1..MAX_INPUTS
    uint planned_rows; // of the output
    uint count_word;   // the output's count word (1..)
    uvec4 count_words; // each input's count word, 0 for fixed rows
    uvec4 rows;        // rows per count, or the fixed rows
    vec4 scale_ratio;  // 8-bit: input scale / output scale
    ivec4 in_zero_point;
    uint requantize;  // a bit per input whose encoding differs
    int out_zero_point;
    float q_min, q_max;
} p;

uint real_rows(uint i) {
    return p.count_words[i] == 0u ? p.rows[i] : runtime_counts[p.count_words[i] - 1u] * p.rows[i];
}

#if defined(QUANTIZED)
// Code v of input i in the output's encoding.
int requantized(uint i, int v) {
    float q = round_half_away(float(v - p.in_zero_point[i]) * p.scale_ratio[i]) + float(p.out_zero_point);
    return int(clamp(q, p.q_min, p.q_max));
}
// Element `at` of input X (number i) into output element `to`.
#define COPY(X, i, at, to)                                                     \
    if ((p.requantize >> (i) & 1u) != 0u) y[to] = STORAGE_T(requantized(i, int(X[at]))); \
    else y[to] = X[at];
#else
#define COPY(X, i, at, to) y[to] = X[at];
#endif

void copy_row_element(uint i, uint at, uint to) {
    if (i == 0u) {
        COPY(x0, 0u, at, to)
    } else if (i == 1u) {
        COPY(x1, 1u, at, to)
    } else if (i == 2u) {
        COPY(x2, 2u, at, to)
    } else {
        COPY(x3, 3u, at, to)
    }
}

void main() {
    uint index = flat_invocation_index();
    if (index >= p.planned_rows * p.inner) return;
    uint row = index / p.inner, column = index % p.inner, first = 0u, source = MAX_INPUTS;
    for (uint i = 0u; i < p.inputs && i < MAX_INPUTS; ++i) {
        uint n = real_rows(i);
        if (source == MAX_INPUTS && row < first + n) {
            source = i;
            copy_row_element(i, (row - first) * p.inner + column, index);
        }
        if (source == MAX_INPUTS) first += n;
    }
    if (source == MAX_INPUTS) y[index] = STORAGE_T(0);
    if (index == 0u) {
        uint total = 0u;
        for (uint i = 0u; i < p.inputs && i < MAX_INPUTS; ++i) total += real_rows(i);
        runtime_counts[p.count_word - 1u] = total;
    }
}
